// SPDX-License-Identifier: MIT
#include "strtab.h"

#include <stdlib.h>
#include <string.h>

#include "grow.h"

uint64_t lt_fnv1a(const void *d, size_t n)
{
	const unsigned char *p = d;
	uint64_t h = 0xcbf29ce484222325ull;
	for (size_t i = 0; i < n; i++)
		h = (h ^ p[i]) * 0x100000001b3ull;
	return h;
}

struct query {
	const struct lt_strtab *t;
	const char *d;
	size_t n;
};

static int same(const void *val, const void *ctx)
{
	const struct query *q = ctx;
	const char *s = q->t->s[(size_t)(uintptr_t)val - 1];
	return !strncmp(s, q->d, q->n) && !s[q->n];
}

size_t lt_strtab_intern(struct lt_strtab *t, const char *d, size_t n, int *added)
{
	struct query q = { t, d, n };
	uint64_t k;
	if (added)
		*added = 0;
	size_t i = (size_t)(uintptr_t)lt_u64map_find(&t->idx, lt_fnv1a(d, n), same, &q, &k);
	if (i)
		return i - 1;
	char **v = lt_grow(t->s, &t->cap, t->n, sizeof(*v), 16);
	char *c = v ? malloc(n + 1) : NULL;
	if (v)
		t->s = v;
	if (c) {
		memcpy(c, d, n);
		c[n] = 0;
	}
	if (!c || lt_u64map_put(&t->idx, k, (void *)(uintptr_t)(t->n + 1))) {
		free(c);
		t->oom = 1;
		return (size_t)-1;
	}
	t->s[t->n] = c;
	if (added)
		*added = 1;
	return t->n++;
}

const char *lt_strtab_str(struct lt_strtab *t, const char *s)
{
	size_t i = lt_strtab_intern(t, s, strlen(s), NULL);
	return i == (size_t)-1 ? NULL : t->s[i];
}

void lt_strtab_free(struct lt_strtab *t)
{
	for (size_t i = 0; i < t->n; i++)
		free(t->s[i]);
	free(t->s);
	lt_u64map_free(&t->idx);
	memset(t, 0, sizeof(*t));
}
