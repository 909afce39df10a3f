/* Unit tests of the flight recorder's dump reader (src/record/fbdump.c)
 * and of the stall rule on the state the BPF programs keep
 * (lt_stall_load), on synthetic slot arrays and thread tables with known
 * answers. */
#include <criterion/criterion.h>
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include "lt_events.h"
#include "fbdump.h"
#include "stall.h"
#include "locktrace/flightbuf.h"

#define S(x) ((uint64_t)(x) * 1000000000ull)

/* Writes record s of cpu c as the BPF side does: a switch event whose tid
 * says (cpu, s), stamped ts. */
static void put(struct lt_fb_slot *slots, uint32_t nper, unsigned c, uint64_t s, uint64_t ts)
{
	struct lt_fb_slot *sl = &slots[(size_t)c * nper + s % nper];
	struct lt_event e = lt_ev(ts, c * 1000000 + (uint32_t)s, (uint16_t)c, LT_EV_SWITCH);
	sl->done = 0;
	sl->seq = s;
	sl->len = (uint32_t)lt_record_size(LT_EV_SWITCH);
	memcpy(sl->data, &e, sl->len);
	sl->done = 1;
}

static uint32_t tid_at(const struct lt_fb_dump *d, size_t i)
{
	struct lt_ev_hdr h;
	memcpy(&h, lt_fb_data(d, i), sizeof(h));
	return h.tid;
}

Test(fbdump, merges_cpus_by_time_and_counts_what_was_overwritten)
{
	enum { NPER = 8 };
	struct lt_fb_slot *slots = calloc(2 * NPER, sizeof(*slots));
	struct lt_fb_dump d;

	/* cpu 0 wrote 5 records at even times 0..8; cpu 1 wrote 20 at odd
	 * times 1..39: the first 12 of cpu 1 are overwritten */
	for (uint64_t s = 0; s < 5; s++)
		put(slots, NPER, 0, s, 100 + 2 * s);
	for (uint64_t s = 0; s < 20; s++)
		put(slots, NPER, 1, s, 100 + 2 * s + 1);
	uint64_t heads[2] = { 5, 20 };
	cr_assert_eq(lt_fb_collect(&d, slots, 2, NPER, heads), 0);
	cr_assert_eq(d.n, 5 + 8);
	cr_assert_eq(d.written, 25);
	cr_assert_eq(d.overwritten, 12);
	cr_assert_eq(d.cpu_overwritten[0], 0);
	cr_assert_eq(d.cpu_overwritten[1], 12);
	cr_assert_eq(d.cpu_written[1], 20);
	/* cpu 0's five (ts 100..108) come first: cpu 1 kept 12..19 (ts 125..139) */
	for (size_t i = 0; i < 5; i++)
		cr_assert_eq(tid_at(&d, i), (uint32_t)i, "record %zu", i);
	for (size_t i = 5; i < d.n; i++) {
		cr_assert_eq(tid_at(&d, i), 1000000 + 12 + (uint32_t)(i - 5), "record %zu", i);
		cr_assert_geq(d.ent[i].ts, d.ent[i - 1].ts);
		cr_assert_eq(d.ent[i].len, lt_record_size(LT_EV_SWITCH));
	}
	lt_fb_dump_free(&d);
	free(slots);
}

Test(fbdump, interleaved_times_and_ties_sort_by_cpu_then_number)
{
	enum { NPER = 4 };
	struct lt_fb_slot *slots = calloc(3 * NPER, sizeof(*slots));
	struct lt_fb_dump d;

	/* same times on every cpu; cpu 2 out of order within itself (a
	 * program run from an interrupt claimed a slot in between) */
	put(slots, NPER, 0, 0, 10);
	put(slots, NPER, 0, 1, 20);
	put(slots, NPER, 1, 0, 10);
	put(slots, NPER, 1, 1, 15);
	put(slots, NPER, 2, 0, 20);
	put(slots, NPER, 2, 1, 5);
	uint64_t heads[3] = { 2, 2, 2 };
	cr_assert_eq(lt_fb_collect(&d, slots, 3, NPER, heads), 0);
	cr_assert_eq(d.n, 6);
	cr_assert_eq(d.overwritten, 0);
	uint32_t want[6] = { 2000001, 0, 1000000, 1000001, 1, 2000000 };
	for (size_t i = 0; i < 6; i++)
		cr_assert_eq(tid_at(&d, i), want[i], "record %zu: tid %u, want %u", i, tid_at(&d, i),
			     want[i]);
	lt_fb_dump_free(&d);
	free(slots);
}

Test(fbdump, torn_and_stale_slots_are_not_kept_and_are_counted)
{
	enum { NPER = 4 };
	struct lt_fb_slot *slots = calloc(NPER, sizeof(*slots));
	struct lt_fb_dump d;

	for (uint64_t s = 0; s < 10; s++)
		put(slots, NPER, 0, s, 1000 + s);
	/* head 10: records 6..9 are the candidates.  9 is being written
	 * (done 0); the slot of 7 still holds 3 (its writer claimed it but
	 * has not set seq yet); 6 has a bad length */
	slots[9 % NPER].done = 0;
	slots[7 % NPER].seq = 3;
	slots[6 % NPER].len = LT_FB_DATA + 8;
	uint64_t heads[1] = { 10 };
	cr_assert_eq(lt_fb_collect(&d, slots, 1, NPER, heads), 0);
	cr_assert_eq(d.n, 1);
	cr_assert_eq(tid_at(&d, 0), 8);
	cr_assert_eq(d.written, 10);
	cr_assert_eq(d.overwritten, 9);
	lt_fb_dump_free(&d);

	/* nothing written at all */
	uint64_t zero[1] = { 0 };
	cr_assert_eq(lt_fb_collect(&d, slots, 1, NPER, zero), 0);
	cr_assert_eq(d.n, 0);
	cr_assert_eq(d.written, 0);
	cr_assert_eq(d.overwritten, 0);
	lt_fb_dump_free(&d);
	cr_assert_eq(lt_fb_collect(&d, slots, 1, 0, zero), -EINVAL);
	free(slots);
}

Test(fbdump, a_call_and_its_switch_stay_one_record)
{
	enum { NPER = 2 };
	struct lt_fb_slot *slots = calloc(NPER, sizeof(*slots));
	struct lt_fb_dump d;
	struct lt_event f = lt_ev_futex(500, 7, 0, 0x80, 0x1000, 0, -1, 0);
	struct lt_event sw = lt_ev(500, 7, 0, LT_EV_SWITCH);
	size_t a = lt_record_size(LT_EV_FUTEX_ENTER), b = lt_record_size(LT_EV_SWITCH);

	f.h.flags = LT_F_AT_SLEEP;
	cr_assert_leq(a + b, LT_FB_DATA);
	memcpy(slots[0].data, &f, a);
	memcpy(slots[0].data + a, &sw, b);
	slots[0].seq = 0;
	slots[0].len = (uint32_t)(a + b);
	slots[0].done = 1;
	uint64_t heads[1] = { 1 };
	cr_assert_eq(lt_fb_collect(&d, slots, 1, NPER, heads), 0);
	cr_assert_eq(d.n, 1);
	cr_assert_eq(d.ent[0].len, a + b);
	cr_assert_eq(memcmp(lt_fb_data(&d, 0), slots[0].data, a + b), 0);
	lt_fb_dump_free(&d);
	free(slots);
}

Test(fbdump, slots_per_cpu_follow_the_ring_size)
{
	cr_assert_eq(lt_fb_nper(256ull << 20, 2), (256ull << 20) / LT_FB_SLOT / 2);
	cr_assert_eq(lt_fb_nper(1000, 4), 64);
	cr_assert_eq(lt_fb_nper(64ull << 30, 1), LT_FB_MAX_NPER);
	/* the largest record today (a futex entry with its switch) fits */
	cr_assert_leq(lt_record_size(LT_EV_FUTEX_ENTER) + lt_record_size(LT_EV_SWITCH), LT_FB_DATA);
	/* and one of 80 bytes of payload written with a switch */
	cr_assert_leq(sizeof(struct lt_ev_hdr) + 80 + lt_record_size(LT_EV_SWITCH), LT_FB_DATA);
}

/* The stall rule on the kernel-kept state: the same verdicts as from
 * events. */
Test(fbdump, stall_rule_on_loaded_state)
{
	struct lt_stall s;
	char why[320];
	uint32_t tids[3] = { 11, 12, 13 };
	struct lt_fb_thread t[3];

	memset(t, 0, sizeof(t));
	cr_assert_eq(lt_stall_init(&s, LT_STALL_LOCKS, S(2), S(100)), 0);
	/* 11 waits on a futex since 101; 12 is in a select; 13 runs */
	t[0] = (struct lt_fb_thread){ .since = S(101), .uaddr = 0xabc, .timeout = -1,
				      .futex_op = 0 | 202u << 16, .val = 2, .state = LT_FB_TS_FUTEX_WAIT,
				      .at_sleep = 1 };
	t[1] = (struct lt_fb_thread){ .since = S(100), .timeout = -1, .state = LT_FB_TS_IOWAIT };
	/* the last lock hand-off at 101 */
	cr_assert_eq(lt_stall_load(&s, tids, t, 3, S(101), S(101), 5), 0);
	cr_assert_eq(lt_stall_check(&s, S(102), why, sizeof(why)), 0);
	cr_assert_eq(lt_stall_check(&s, S(103) + 1, why, sizeof(why)), 1);
	cr_assert(strstr(why, "tid 11 on futex 0xabc"), "%s", why);
	const struct lt_stall_thread *st = lt_stall_thread_of(&s, 11);
	cr_assert_not_null(st);
	cr_assert_eq(st->since, S(101));
	cr_assert_eq(lt_stall_waiters_in(&s, 0xab0, 0xac0), 1);

	/* a hand-off at 103 (the programs' progress moved): no stall */
	cr_assert_eq(lt_stall_load(&s, tids, t, 3, S(103), S(103), 6), 0);
	cr_assert_eq(lt_stall_check(&s, S(104), why, sizeof(why)), 0);

	/* a wait whose value is the tid of a known thread is a join */
	t[0].val = 13;
	cr_assert_eq(lt_stall_load(&s, tids, t, 3, S(101), S(101), 6), 0);
	cr_assert_eq(lt_stall_check(&s, S(104), why, sizeof(why)), 0, "join taken for a lock: %s", why);

	/* after a rearm at 110, nothing counts from before it */
	t[0].val = 2;
	lt_stall_rearm(&s, S(110));
	cr_assert_eq(lt_stall_load(&s, tids, t, 3, S(101), S(101), 6), 0);
	cr_assert_eq(lt_stall_check(&s, S(111), why, sizeof(why)), 0);
	cr_assert_eq(lt_stall_check(&s, S(112) + 1, why, sizeof(why)), 1);
	cr_assert_eq(lt_stall_thread_of(&s, 11)->since, S(110));

	/* the thread's call ended (state none): no waiter, no stall */
	t[0].state = LT_FB_TS_NONE;
	cr_assert_eq(lt_stall_load(&s, tids, t, 3, S(101), S(101), 6), 0);
	cr_assert_eq(lt_stall_check(&s, S(120), why, sizeof(why)), 0);

	/* a file-lock wait seeded at attach */
	t[0] = (struct lt_fb_thread){ .since = S(90), .timeout = -1, .futex_op = LT_FB_FILE_LOCK_OP,
				      .state = LT_FB_TS_FUTEX_WAIT, .at_sleep = 1 };
	cr_assert_eq(lt_stall_load(&s, tids, t, 1, 0, 0, 6), 0);
	cr_assert_eq(lt_stall_check(&s, S(113), why, sizeof(why)), 1);
	cr_assert(strstr(why, "file-lock"), "%s", why);
	lt_stall_free(&s);
}

/* A look's judgement (lt_stall_judge: an idle pool's wait) survives the
 * reloads of the programs' state while the thread stays in that wait, and
 * is dropped when it is in another one. */
Test(fbdump, idle_judgement_survives_reloads_of_the_same_wait)
{
	struct lt_stall s;
	char why[320];
	uint32_t tids[1] = { 21 };
	struct lt_fb_thread t[1];

	memset(t, 0, sizeof(t));
	cr_assert_eq(lt_stall_init(&s, LT_STALL_LOCKS, S(1), S(100)), 0);
	t[0] = (struct lt_fb_thread){ .since = S(100), .uaddr = 0x3000, .timeout = -1,
				      .futex_op = 393 | 202u << 16, .state = LT_FB_TS_FUTEX_WAIT, .at_sleep = 1 };
	cr_assert_eq(lt_stall_load(&s, tids, t, 1, S(100), S(100), 0), 0);
	cr_assert_eq(lt_stall_check(&s, S(102), why, sizeof(why)), 1, "not judged yet");
	lt_stall_judge(&s, 21, 0x3000, 1);
	cr_assert_eq(lt_stall_load(&s, tids, t, 1, S(100), S(100), 0), 0);
	cr_assert_eq(lt_stall_check(&s, S(102), why, sizeof(why)), 0, "the same wait, judged idle: %s", why);
	/* woken and parked again at 103: judged anew */
	t[0].since = S(103);
	cr_assert_eq(lt_stall_load(&s, tids, t, 1, S(100), S(100), 0), 0);
	cr_assert_eq(lt_stall_check(&s, S(105), why, sizeof(why)), 1, "another wait");
	lt_stall_free(&s);
}
