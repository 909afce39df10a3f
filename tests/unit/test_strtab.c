// SPDX-License-Identifier: MIT
/* Strings interned (src/base/strtab.h): each once, numbered in order of
 * first use, found by length-bounded bytes, stable across growth. */
#include <criterion/criterion.h>
#include <stdio.h>
#include <string.h>
#include "strtab.h"

Test(strtab, each_string_once_in_order_of_first_use)
{
	struct lt_strtab t = { 0 };
	int added = -1;
	cr_assert_eq(lt_strtab_intern(&t, "wait", 4, &added), 0);
	cr_assert_eq(added, 1);
	cr_assert_eq(lt_strtab_intern(&t, "waits", 5, &added), 1);
	cr_assert_eq(added, 1);
	cr_assert_eq(lt_strtab_intern(&t, "wait", 4, &added), 0, "found again");
	cr_assert_eq(added, 0);
	/* n bytes of a longer buffer: a prefix is its own string */
	cr_assert_eq(lt_strtab_intern(&t, "waitsXYZ", 5, NULL), 1);
	cr_assert_eq(lt_strtab_intern(&t, "wai", 3, NULL), 2);
	cr_assert_eq(lt_strtab_intern(&t, "", 0, NULL), 3, "the empty string too");
	cr_assert_eq(t.n, 4);
	cr_assert_str_eq(t.s[1], "waits");
	cr_assert_str_eq(t.s[2], "wai");
	cr_assert_eq(t.oom, 0);
	lt_strtab_free(&t);
	cr_assert_eq(t.n, 0);
}

Test(strtab, copies_stay_where_they_are_across_growth)
{
	struct lt_strtab t = { 0 };
	const char *first = lt_strtab_str(&t, "GIL _PyRuntime.ceval.gil");
	cr_assert_not_null(first);
	char buf[32];
	for (int i = 0; i < 5000; i++) {
		snprintf(buf, sizeof(buf), "lock %d", i);
		cr_assert_eq(lt_strtab_intern(&t, buf, strlen(buf), NULL), (size_t)i + 1);
	}
	cr_assert_eq(lt_strtab_str(&t, "GIL _PyRuntime.ceval.gil"), first, "the same copy");
	for (int i = 0; i < 5000; i += 499) {
		snprintf(buf, sizeof(buf), "lock %d", i);
		cr_assert_eq(lt_strtab_intern(&t, buf, strlen(buf), NULL), (size_t)i + 1);
		cr_assert_str_eq(t.s[i + 1], buf);
	}
	lt_strtab_free(&t);
}

Test(strtab, fnv1a_of_known_strings)
{
	/* FNV-1a 64's published values */
	cr_assert_eq(lt_fnv1a("", 0), 0xcbf29ce484222325ull);
	cr_assert_eq(lt_fnv1a("a", 1), 0xaf63dc4c8601ec8cull);
	cr_assert_eq(lt_fnv1a("foobar", 6), 0x85944171f73967e8ull);
}
