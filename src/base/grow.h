/* SPDX-License-Identifier: MIT */
/* Growing arrays by doubling, so that appending stays linear in the count.
 * Internal to the library. */
#ifndef LOCKTRACE_GROW_H
#define LOCKTRACE_GROW_H

#include <stdlib.h>

/* Room for element n of the array v that has *cap: v itself while it fits,
 * else v grown to twice *cap (first when empty; *cap updated), NULL when out
 * of memory (v is left as it was). */
static inline void *lt_grow(void *v, size_t *cap, size_t n, size_t size, size_t first)
{
	if (n < *cap)
		return v;
	size_t c = *cap ? *cap * 2 : first;
	void *nv = realloc(v, c * size);
	if (nv)
		*cap = c;
	return nv;
}

/* The same for an array without a capacity that holds n: grown at every
 * power of two. */
static inline void *lt_grow_pow2(void *v, size_t n, size_t size)
{
	return n & (n - 1) ? v : realloc(v, (n ? 2 * n : 1) * size);
}

#endif
