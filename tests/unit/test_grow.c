// SPDX-License-Identifier: MIT
/* The one growth rule (src/base/grow.h): doubling from a first capacity,
 * enough room at once for a larger need, and sizes that would overflow
 * refused like a failed allocation, the array left as it was. */
#include <criterion/criterion.h>
#include <errno.h>
#include <stdint.h>
#include <stdlib.h>
#include "grow.h"

Test(grow, doubles_from_first_and_keeps_the_array_while_it_fits)
{
	int *v = NULL;
	size_t cap = 0;
	size_t seen[8], nseen = 0;
	for (size_t n = 0; n < 100; n++) {
		size_t before = cap;
		int *nv = lt_grow(v, &cap, n, sizeof(*v), 8);
		cr_assert_not_null(nv);
		v = nv;
		v[n] = (int)n;
		if (cap != before)
			seen[nseen++] = cap;
	}
	cr_assert_eq(nseen, 5);
	size_t want[] = { 8, 16, 32, 64, 128 };
	for (size_t i = 0; i < nseen; i++)
		cr_assert_eq(seen[i], want[i]);
	for (size_t n = 0; n < 100; n++)
		cr_assert_eq(v[n], (int)n);
	free(v);
}

Test(grow, grow_to_reaches_a_larger_need_at_once)
{
	char *b = NULL;
	size_t cap = 0;
	b = lt_grow_to(b, &cap, 10, 1, 256);
	cr_assert(b && cap == 256);
	cr_assert_eq(lt_grow_to(b, &cap, 256, 1, 256), b, "fits: the same array");
	b = lt_grow_to(b, &cap, 257, 1, 256);
	cr_assert(b && cap == 512);
	b = lt_grow_to(b, &cap, 5000, 1, 256);
	cr_assert(b && cap == 8192, "%zu", cap);
	free(b);
	/* first 0 still makes room */
	size_t c0 = 0;
	char *z = lt_grow_to(NULL, &c0, 3, 1, 0);
	cr_assert(z && c0 == 4, "%zu", c0);
	free(z);
}

Test(grow, overflowing_sizes_fail_and_leave_the_array)
{
	uint64_t *v = malloc(4 * sizeof(*v));
	cr_assert_not_null(v);
	size_t cap = SIZE_MAX / sizeof(*v) / 2 + 1; /* doubled, its bytes overflow */
	errno = 0;
	cr_assert_null(lt_grow(v, &cap, cap, sizeof(*v), 8));
	cr_assert_eq(errno, ENOMEM);
	cr_assert_eq(cap, SIZE_MAX / sizeof(*v) / 2 + 1, "capacity unchanged");
	size_t big = SIZE_MAX;
	cr_assert_null(lt_grow(v, &big, SIZE_MAX, 1, 8), "no element after SIZE_MAX");
	cr_assert_eq(lt_grow_cap(SIZE_MAX / 2 + 1, SIZE_MAX, 1, 8), SIZE_MAX,
		     "doubling past SIZE_MAX gives the need itself");
	cr_assert_eq(lt_grow_cap(1u << 20, (1u << 20) + 1, SIZE_MAX / 1024, 8), 0);
	cr_assert_null(lt_grow_pow2_from(v, (size_t)1 << 62, 8, 1));
	free(v);
}

Test(grow, pow2_arrays_grow_at_powers_of_two_from_first)
{
	int *v = NULL;
	for (size_t n = 0; n < 70; n++) {
		int *nv = lt_grow_pow2_from(v, n, sizeof(*v), 8);
		cr_assert_not_null(nv);
		v = nv;
		v[n] = (int)n;
	}
	/* room for 8 from the start: 1..7 keep the array */
	for (size_t n = 1; n < 8; n++)
		cr_assert_eq(lt_grow_pow2_from(v, n, sizeof(*v), 8), v);
	for (size_t n = 0; n < 70; n++)
		cr_assert_eq(v[n], (int)n);
	free(v);
	int *w = lt_grow_pow2(NULL, 0, sizeof(int));
	cr_assert_not_null(w);
	w = lt_grow_pow2(w, 1, sizeof(int));
	cr_assert_not_null(w);
	cr_assert_eq(lt_grow_pow2(w, 3, sizeof(int)), w);
	free(w);
}
