// SPDX-License-Identifier: MIT
/* See u64map.h. */
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include "u64map.h"

static int grow(struct lt_u64map *m)
{
	struct lt_u64map n = { 0 };
	n.cap = m->cap ? m->cap * 2 : 64;
	n.keys = calloc(n.cap, sizeof(*n.keys));
	n.vals = calloc(n.cap, sizeof(*n.vals));
	if (!n.keys || !n.vals) {
		free(n.keys);
		free(n.vals);
		return -ENOMEM;
	}
	for (size_t i = 0; i < m->cap; i++)
		if (m->keys[i])
			lt_u64map_put(&n, m->keys[i], m->vals[i]);
	free(m->keys);
	free(m->vals);
	*m = n;
	return 0;
}

int lt_u64map_put(struct lt_u64map *m, uint64_t key, void *val)
{
	/* at most 3/4 full keeps probe runs short */
	if ((m->n + 1) * 4 > m->cap * 3 && grow(m))
		return -ENOMEM;
	size_t i = lt_u64map_slot(m, key);
	while (m->keys[i] && m->keys[i] != key)
		i = (i + 1) & (m->cap - 1);
	if (!m->keys[i])
		m->n++;
	m->keys[i] = key;
	m->vals[i] = val;
	return 0;
}

void *lt_u64map_find(const struct lt_u64map *m, uint64_t h,
		     int (*same)(const void *val, const void *ctx), const void *ctx,
		     uint64_t *free_key)
{
	/* the keys of a finite map: one of the next n + 1 is free */
	for (;; h++) {
		if (!h)
			continue;
		void *v = lt_u64map_get(m, h);
		if (!v)
			break;
		if (same(v, ctx))
			return v;
	}
	if (free_key)
		*free_key = h;
	return NULL;
}

void lt_u64map_del(struct lt_u64map *m, uint64_t key)
{
	if (!m->cap)
		return;
	size_t i = lt_u64map_slot(m, key);
	while (m->keys[i] != key) {
		if (!m->keys[i])
			return;
		i = (i + 1) & (m->cap - 1);
	}
	/* Shift later members of the probe run back over the hole: member j
	 * may fill hole i unless its home slot lies cyclically in (i, j]. */
	for (size_t j = (i + 1) & (m->cap - 1); m->keys[j]; j = (j + 1) & (m->cap - 1)) {
		size_t home = lt_u64map_slot(m, m->keys[j]);
		int home_in_between = i < j ? (home > i && home <= j) : (home > i || home <= j);
		if (!home_in_between) {
			m->keys[i] = m->keys[j];
			m->vals[i] = m->vals[j];
			i = j;
		}
	}
	m->keys[i] = 0;
	m->vals[i] = NULL;
	m->n--;
}

void lt_u64map_free(struct lt_u64map *m)
{
	free(m->keys);
	free(m->vals);
	memset(m, 0, sizeof(*m));
}
