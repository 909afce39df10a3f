/* Unit tests of the merge of per-cpu batches back into time order
 * (src/record/evmerge.c), on synthetic event streams with known order. */
#include <criterion/criterion.h>
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include "lt_events.h"
#include "evmerge.h"

struct got {
	struct lt_event ev[4096];
	size_t n;
};

static void take(void *ctx, const struct lt_event *ev)
{
	struct got *g = ctx;
	cr_assert_lt(g->n, 4096);
	g->ev[g->n++] = *ev;
}

static struct lt_event ev_at(uint64_t ts, uint32_t tid, uint16_t cpu)
{
	return lt_ev(ts, tid, cpu, LT_EV_SWITCH);
}

Test(evmerge, batches_of_two_cpus_come_out_in_time_order)
{
	struct lt_evmerge m = { 0 };
	static struct got g;
	g.n = 0;
	/* cpu 1's batch arrives first, then cpu 0's: times interleave */
	for (uint32_t i = 0; i < 100; i++) {
		struct lt_event e = ev_at(1000 + 20 * i + 10, 100000 + i, 1);
		cr_assert_eq(lt_evmerge_push(&m, &e, take, &g), 0);
	}
	for (uint32_t i = 0; i < 100; i++) {
		struct lt_event e = ev_at(1000 + 20 * i, i, 0);
		cr_assert_eq(lt_evmerge_push(&m, &e, take, &g), 0);
	}
	/* up to 1500: cpu 0's 0..25 and cpu 1's 0..24 */
	cr_assert_eq(lt_evmerge_release(&m, 1500, take, &g), 51);
	cr_assert_eq(g.n, 51);
	for (size_t i = 0; i < g.n; i++) {
		cr_assert_eq(g.ev[i].h.ts, 1000 + 10 * i, "event %zu at %llu", i,
			     (unsigned long long)g.ev[i].h.ts);
		cr_assert_eq(g.ev[i].h.tid, (i % 2 ? 100000 : 0) + (uint32_t)i / 2);
	}
	cr_assert_eq(m.pending, 149);
	cr_assert_eq(lt_evmerge_release_all(&m, take, &g), 149);
	cr_assert_eq(g.n, 200);
	for (size_t i = 1; i < g.n; i++)
		cr_assert_gt(g.ev[i].h.ts, g.ev[i - 1].h.ts);
	cr_assert_eq(m.late, 0);
	cr_assert_eq(m.pending, 0);
	lt_evmerge_free(&m);
}

Test(evmerge, equal_times_keep_cpu_then_arrival_order)
{
	struct lt_evmerge m = { 0 };
	static struct got g;
	g.n = 0;
	/* a call's entry and its switch share a time and a cpu: they stay in
	 * the order written; the same time on another cpu goes by cpu */
	struct lt_event a = lt_ev(500, 1, 1, LT_EV_FUTEX_ENTER);
	struct lt_event b = lt_ev(500, 1, 1, LT_EV_SWITCH);
	struct lt_event c = lt_ev(500, 2, 0, LT_EV_WAKING);
	struct lt_event d = lt_ev(499, 3, 1, LT_EV_WAKING);
	lt_evmerge_push(&m, &a, take, &g);
	lt_evmerge_push(&m, &b, take, &g);
	lt_evmerge_push(&m, &c, take, &g);
	lt_evmerge_push(&m, &d, take, &g);
	cr_assert_eq(lt_evmerge_release(&m, 500, take, &g), 4);
	cr_assert_eq(g.ev[0].h.tid, 3);
	cr_assert_eq(g.ev[1].h.tid, 2);
	cr_assert_eq(g.ev[2].h.kind, LT_EV_FUTEX_ENTER);
	cr_assert_eq(g.ev[3].h.kind, LT_EV_SWITCH);
	lt_evmerge_free(&m);
}

Test(evmerge, a_direct_record_ahead_of_its_cpus_batch_is_put_in_its_place)
{
	struct lt_evmerge m = { 0 };
	static struct got g;
	g.n = 0;
	/* a thread's exit written straight to the ring at 350 arrives before
	 * the batch of the same cpu holding 100..300 and 400 */
	struct lt_event x = lt_ev(350, 9, 0, LT_EV_TASK_EXIT);
	lt_evmerge_push(&m, &x, take, &g);
	for (uint32_t i = 1; i <= 4; i++) {
		struct lt_event e = ev_at(i == 4 ? 400 : 100 * i, i, 0);
		lt_evmerge_push(&m, &e, take, &g);
	}
	cr_assert_eq(lt_evmerge_release(&m, 360, take, &g), 4);
	uint32_t want[] = { 1, 2, 3, 9 };
	for (size_t i = 0; i < 4; i++)
		cr_assert_eq(g.ev[i].h.tid, want[i]);
	cr_assert_eq(lt_evmerge_release(&m, 1000, take, &g), 1);
	cr_assert_eq(g.ev[4].h.tid, 4);
	lt_evmerge_free(&m);
}

Test(evmerge, an_event_older_than_what_was_released_is_counted_late_and_still_handed_on)
{
	struct lt_evmerge m = { 0 };
	static struct got g;
	g.n = 0;
	struct lt_event a = ev_at(1000, 1, 0), b = ev_at(900, 2, 1);
	lt_evmerge_push(&m, &a, take, &g);
	cr_assert_eq(lt_evmerge_release(&m, 1000, take, &g), 1);
	lt_evmerge_push(&m, &b, take, &g);
	cr_assert_eq(m.late, 1);
	cr_assert_eq(lt_evmerge_release(&m, 1000, take, &g), 1);
	cr_assert_eq(g.ev[1].h.tid, 2);
	lt_evmerge_free(&m);
}

Test(evmerge, queues_grow_past_their_first_size_and_wrap)
{
	struct lt_evmerge m = { 0 };
	static struct got g;
	uint64_t t = 1;
	size_t out = 0;
	/* pushes and releases alternate so that the circular queue wraps,
	 * then a burst makes it grow while wrapped */
	for (int round = 0; round < 20; round++) {
		g.n = 0;
		size_t k = round == 10 ? 1500 : 150;
		for (size_t i = 0; i < k; i++) {
			struct lt_event e = ev_at(t, (uint32_t)t, (uint16_t)(i % 3));
			t++;
			cr_assert_eq(lt_evmerge_push(&m, &e, take, &g), 0);
		}
		size_t r = lt_evmerge_release(&m, t - 100, take, &g);
		for (size_t i = 1; i < g.n; i++)
			cr_assert_eq(g.ev[i].h.ts, g.ev[i - 1].h.ts + 1);
		out += r;
	}
	g.n = 0;
	out += lt_evmerge_release_all(&m, take, &g);
	cr_assert_eq(out, t - 1);
	cr_assert_eq(m.oom, 0);
	lt_evmerge_free(&m);
}
