/* SPDX-License-Identifier: MIT */
/* Growing arrays by doubling, so that appending stays linear in the count:
 * the one growth rule of the project.  Every size is checked: a count whose
 * bytes would not fit a size_t fails like an allocation.  Internal to the
 * library. */
#ifndef LOCKTRACE_GROW_H
#define LOCKTRACE_GROW_H

#include <errno.h>
#include <stdint.h>
#include <stdlib.h>

/* The capacity that holds need elements of size bytes, for an array that
 * has cap (< need): cap doubled, or first when 0, doubled again until need
 * fits.  0 when its bytes would not fit a size_t.  For what grows in a way
 * of its own (a ring, arrays that share one capacity); else lt_grow. */
static inline size_t lt_grow_cap(size_t cap, size_t need, size_t size, size_t first)
{
	size_t c = cap ? cap : first ? first : 1;
	while (c < need)
		c = c > SIZE_MAX / 2 ? need : c * 2;
	return size && c > SIZE_MAX / size ? 0 : c;
}

/* Room for need elements of size bytes in the array v that has *cap: v
 * itself while they fit, else v grown (*cap updated) to lt_grow_cap()'s
 * capacity; NULL when out of memory or when the size overflows (errno
 * ENOMEM; v is left as it was, still to be freed by the caller). */
static inline void *lt_grow_to(void *v, size_t *cap, size_t need, size_t size, size_t first)
{
	if (need <= *cap)
		return v;
	size_t c = lt_grow_cap(*cap, need, size, first);
	if (!c) {
		errno = ENOMEM;
		return NULL;
	}
	void *nv = realloc(v, c * size);
	if (nv)
		*cap = c;
	return nv;
}

/* Room for element n (appending the n+1th) of the array v that has *cap. */
static inline void *lt_grow(void *v, size_t *cap, size_t n, size_t size, size_t first)
{
	if (n == SIZE_MAX) {
		errno = ENOMEM;
		return NULL;
	}
	return lt_grow_to(v, cap, n + 1, size, first);
}

/* The same for an array without a capacity that holds n: room for first
 * (a power of two) when empty, then doubled at every power of two from
 * first on. */
static inline void *lt_grow_pow2_from(void *v, size_t n, size_t size, size_t first)
{
	if (n && (n < first || (n & (n - 1))))
		return v;
	size_t c = n ? 2 * n : first;
	if ((n && c < n) || (size && c > SIZE_MAX / size)) {
		errno = ENOMEM;
		return NULL;
	}
	return realloc(v, c * size);
}

static inline void *lt_grow_pow2(void *v, size_t n, size_t size)
{
	return lt_grow_pow2_from(v, n, size, 1);
}

#endif
