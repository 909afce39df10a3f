/* The one cycle search of the wait-for graphs (base/fgraph.h). */
#include <criterion/criterion.h>
#include <errno.h>
#include <string.h>

#include "fgraph.h"

struct seen {
	long nodes[8][8];
	size_t k[8];
	size_t n;
	long refuse_len; /* pass over cycles of this length */
};

static long record(const long *nodes, size_t k, void *arg)
{
	struct seen *s = arg;
	if ((long)k == s->refuse_len)
		return -1;
	memcpy(s->nodes[s->n], nodes, k * sizeof(*nodes));
	s->k[s->n] = k;
	return (long)s->n++;
}

/* 0 -> 1 -> 2 -> 0 (a cycle), 3 -> 1 (behind it), 4 -> 5 (a chain that
 * ends), 6 -> 6 (a self-loop), 7 -> 3 (two steps behind) */
Test(fgraph, cycles_in_wait_order_with_what_is_behind_them)
{
	long next[8] = { 1, 2, 0, 1, 5, -1, 6, 3 };
	long on[8], reach[8];
	struct seen s = { .refuse_len = -1 };
	cr_assert_eq(lt_fgraph_cycles(8, next, record, &s, on, reach), 0);
	cr_assert_eq(s.n, 2);
	cr_assert_eq(s.k[0], 3);
	cr_assert_eq(s.nodes[0][0], 0);
	cr_assert_eq(s.nodes[0][1], 1);
	cr_assert_eq(s.nodes[0][2], 2);
	cr_assert_eq(s.k[1], 1);
	cr_assert_eq(s.nodes[1][0], 6);
	long want_on[8] = { 0, 0, 0, -1, -1, -1, 1, -1 };
	long want_reach[8] = { 0, 0, 0, 0, -1, -1, 1, 0 };
	for (int i = 0; i < 8; i++) {
		cr_assert_eq(on[i], want_on[i], "on[%d] = %ld", i, on[i]);
		cr_assert_eq(reach[i], want_reach[i], "reach[%d] = %ld", i, reach[i]);
	}
}

/* a cycle reached first from a node behind it starts where the walk met
 * it: 0 -> 2 -> 3 -> 2 gives the cycle (2 3) */
Test(fgraph, a_cycle_starts_where_the_first_walk_meets_it)
{
	long next[4] = { 2, -1, 3, 2 };
	struct seen s = { .refuse_len = -1 };
	cr_assert_eq(lt_fgraph_cycles(4, next, record, &s, NULL, NULL), 0);
	cr_assert_eq(s.n, 1);
	cr_assert_eq(s.k[0], 2);
	cr_assert_eq(s.nodes[0][0], 2);
	cr_assert_eq(s.nodes[0][1], 3);
}

Test(fgraph, a_passed_over_cycle_reaches_nothing)
{
	long next[3] = { 0, 0, 1 };
	long on[3], reach[3];
	struct seen s = { .refuse_len = 1 };
	cr_assert_eq(lt_fgraph_cycles(3, next, record, &s, on, reach), 0);
	cr_assert_eq(s.n, 0);
	for (int i = 0; i < 3; i++) {
		cr_assert_eq(on[i], -1);
		cr_assert_eq(reach[i], -1);
	}
}

static long fail(const long *nodes, size_t k, void *arg)
{
	(void)nodes, (void)k, (void)arg;
	return -ENOMEM;
}

Test(fgraph, out_of_memory_in_the_callback_stops_the_search)
{
	long next[2] = { 1, 0 };
	cr_assert_eq(lt_fgraph_cycles(2, next, fail, NULL, NULL, NULL), -ENOMEM);
	cr_assert_eq(lt_fgraph_cycles(0, NULL, fail, NULL, NULL, NULL), 0);
}
