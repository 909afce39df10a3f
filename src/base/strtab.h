/* SPDX-License-Identifier: MIT */
/* Strings interned: each distinct string stored once, numbered in the order
 * of first use, found again by its hash (FNV-1a, 64 bits) through a
 * lt_u64map.  Serves the trace reader's runtime-lock names, the recorder's,
 * and the profile writers' string tables. */
#ifndef LOCKTRACE_STRTAB_H
#define LOCKTRACE_STRTAB_H

#include <stddef.h>
#include <stdint.h>

#include "u64map.h"

struct lt_strtab {
	char **s;              /* s[i]: the i-th string, NUL-terminated, owned */
	size_t n, cap;
	struct lt_u64map idx;  /* hash (or the next free key) -> index + 1 */
	int oom;               /* an intern ran out of memory */
};

/* FNV-1a of n bytes. */
uint64_t lt_fnv1a(const void *d, size_t n);

/* The index of the n bytes at d (no NUL among them) as a string, added if
 * new (*added then 1, when added is not NULL); (size_t)-1 when out of
 * memory (t->oom then set). */
size_t lt_strtab_intern(struct lt_strtab *t, const char *d, size_t n, int *added);

/* The table's copy of the NUL-terminated string s; NULL when out of memory. */
const char *lt_strtab_str(struct lt_strtab *t, const char *s);

void lt_strtab_free(struct lt_strtab *t);

#endif
