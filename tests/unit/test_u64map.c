// SPDX-License-Identifier: MIT
/* The one hash map (src/base/u64map.h): put, get, delete across growth,
 * and lt_u64map_find for maps keyed by hashes of larger keys, with the
 * hashes made to collide on purpose. */
#include <criterion/criterion.h>
#include <stdint.h>
#include <string.h>
#include "u64map.h"

Test(u64map, put_get_del_across_growth)
{
	struct lt_u64map m = { 0 };
	for (uint64_t k = 1; k <= 5000; k++)
		cr_assert_eq(lt_u64map_put(&m, k * 7919, (void *)(uintptr_t)k), 0);
	cr_assert_eq(m.n, 5000);
	for (uint64_t k = 1; k <= 5000; k += 2)
		lt_u64map_del(&m, k * 7919);
	cr_assert_eq(m.n, 2500);
	for (uint64_t k = 1; k <= 5000; k++)
		cr_assert_eq((uintptr_t)lt_u64map_get(&m, k * 7919), k % 2 ? 0 : k, "key %llu",
			     (unsigned long long)k);
	lt_u64map_free(&m);
	cr_assert_null(lt_u64map_get(&m, 7919), "an empty map answers");
}

static const char *const words[] = { "futex", "poll", "read", "epoll_wait", "nanosleep" };

static int same_word(const void *val, const void *ctx)
{
	return !strcmp(words[(uintptr_t)val - 1], ctx);
}

/* Every word hashes to 0, then to 41: each takes the next free key. */
Test(u64map, find_steps_past_colliding_hashes)
{
	struct lt_u64map m = { 0 };
	for (uint64_t hash = 0; hash <= 41; hash += 41) {
		memset(&m, 0, sizeof(m));
		for (size_t i = 0; i < 5; i++) {
			uint64_t key = 0;
			cr_assert_null(lt_u64map_find(&m, hash, same_word, words[i], &key));
			cr_assert_eq(key, (hash ? hash : 1) + i, "word %zu under key %llu", i,
				     (unsigned long long)key);
			cr_assert_eq(lt_u64map_put(&m, key, (void *)(uintptr_t)(i + 1)), 0);
		}
		for (size_t i = 0; i < 5; i++)
			cr_assert_eq((uintptr_t)lt_u64map_find(&m, hash, same_word, words[i], NULL),
				     i + 1);
		cr_assert_null(lt_u64map_find(&m, hash, same_word, "write", NULL));
		lt_u64map_free(&m);
	}
}
