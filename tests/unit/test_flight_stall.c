/* Unit tests of the flight-recorder memory and the stall rules, on
 * synthetic chunks and events with known answers. */
#include <criterion/criterion.h>
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include "lt_events.h"
#include "flight.h"
#include "lockmodel.h"
#include "rtwatch.h"
#include "stall.h"
#include "rt_idle.h"
#include "locktrace/tracefile.h"
#include "varint.h"

/* a fake EVENTS payload: varint base ts, then filler of a known byte */
static size_t fake_chunk(uint8_t *buf, uint64_t ts, size_t len, uint8_t fill)
{
	uint8_t *p = lt_put_varint(buf, ts);
	size_t h = (size_t)(p - buf);
	memset(p, fill, len - h);
	return len;
}

struct sink {
	uint64_t ts[4096];
	size_t n;
	size_t bytes;
};

static int collect(void *ctx, uint32_t type, const uint8_t *payload, size_t len,
		   const struct lt_chunk_info *info)
{
	(void)info;
	struct sink *s = ctx;
	struct lt_cur c = { payload, payload + len, 0 };
	cr_assert_eq(type, LT_CHUNK_EVENTS);
	s->ts[s->n++] = lt_get_varint(&c);
	uint8_t fill = (uint8_t)(s->ts[s->n - 1] & 0xff);
	for (const uint8_t *p = c.p; p < payload + len; p++)
		cr_assert_eq(*p, fill, "chunk %llu corrupted", (unsigned long long)s->ts[s->n - 1]);
	s->bytes += len;
	return 0;
}

Test(flight, keeps_the_newest_chunks_within_its_size)
{
	struct lt_flight f;
	uint8_t buf[5000];
	const size_t cap = 64 * 1024;
	cr_assert_eq(lt_flight_init(&f, cap), 0);
	srand(7);
	for (uint64_t i = 1; i <= 2000; i++) {
		size_t len = 100 + (size_t)(rand() % 4000);
		fake_chunk(buf, 1000 + i, len, (uint8_t)((1000 + i) & 0xff));
		cr_assert_eq(lt_flight_push(&f, LT_CHUNK_EVENTS, buf, len, NULL), 0);
		cr_assert_leq(f.bytes, cap);

		/* what it holds: the newest chunks, consecutive, ending with i */
		struct lt_writer *w;
		struct sink s = { .n = 0 };
		if (i % 97 == 0 || i == 2000) {
			cr_assert_eq(lt_writer_mem_open(&w, 1, 1 << 16, collect, &s), 0);
			cr_assert_eq(lt_flight_dump(&f, w), 0);
			cr_assert_eq(lt_writer_close(w), 0);
			cr_assert_gt(s.n, 10);
			cr_assert_eq(s.ts[s.n - 1], 1000 + i);
			for (size_t k = 1; k < s.n; k++)
				cr_assert_eq(s.ts[k], s.ts[k - 1] + 1, "gap in history");
			cr_assert_eq(s.bytes, f.bytes);
			cr_assert_eq(lt_flight_oldest_ts(&f), s.ts[0]);
			/* and it holds all it can: one more older chunk would not fit */
			cr_assert_gt(f.bytes + 4100, cap / 2);
		}
	}
	cr_assert_gt(f.evicted_chunks, 1000);
	cr_assert_eq(lt_flight_push(&f, LT_CHUNK_EVENTS, buf, 0, NULL), 0);
	lt_flight_free(&f);
}

Test(flight, refuses_a_chunk_larger_than_itself)
{
	struct lt_flight f;
	uint8_t buf[2048];
	cr_assert_eq(lt_flight_init(&f, 1024), 0);
	fake_chunk(buf, 5, sizeof(buf), 5);
	cr_assert_lt(lt_flight_push(&f, LT_CHUNK_EVENTS, buf, sizeof(buf), NULL), 0);
	lt_flight_free(&f);
}

/* The ring knows how many events it holds and their span, as the writer
 * counted them: what a dump's message reports ("no events" when empty). */
Test(flight, counts_the_events_it_holds_and_their_span)
{
	struct lt_flight f;
	struct lt_writer *w;
	cr_assert_eq(lt_flight_init(&f, 64 * 1024), 0);
	cr_assert_eq(lt_writer_mem_open(&w, 100, 4096, lt_flight_push, &f), 0);
	cr_assert_eq(lt_flight_oldest_ts(&f), 0);
	cr_assert_eq(lt_flight_newest_ts(&f), 0);
	cr_assert_eq(f.events, 0);
	/* a little out of order, as events of two cpus are */
	for (uint64_t i = 0; i < 1000; i++) {
		uint64_t ts = 1000000 + i * 1000 + (i % 2 ? 0 : 1500);
		struct lt_event e = lt_ev_exit(ts, 101, (uint16_t)(i % 2), 202, 0);
		cr_assert_eq(lt_writer_event(w, &e), 0);
	}
	cr_assert_eq(lt_writer_flush(w), 0);
	cr_assert_eq(f.events, 1000);
	cr_assert_eq(lt_flight_oldest_ts(&f), 1000000 + 1000);
	cr_assert_eq(lt_flight_newest_ts(&f), 1000000 + 998 * 1000 + 1500);
	/* 64 KiB keep only the newest chunks: the count follows evictions */
	for (uint64_t i = 1000; i < 20000; i++) {
		struct lt_event e = lt_ev_exit(1000000 + i * 1000, 101, 0, 202, 0);
		cr_assert_eq(lt_writer_event(w, &e), 0);
	}
	cr_assert_eq(lt_writer_flush(w), 0);
	cr_assert_gt(f.evicted_chunks, 0);
	uint64_t sum = 0;
	for (size_t i = 0; i < f.count; i++)
		sum += f.recs[(f.head + i) % f.rcap].nevents;
	cr_assert_eq(f.events, sum);
	cr_assert_lt(f.events, 20000);
	cr_assert_eq(lt_flight_newest_ts(&f), 1000000 + 19999 * 1000ull);
	cr_assert_eq(lt_flight_newest_ts(&f) - lt_flight_oldest_ts(&f), (f.events - 1) * 1000);
	lt_writer_close(w);
	lt_flight_free(&f);
}

#define S(x) ((uint64_t)(x) * 1000000000ull)

static struct lt_event ev_futex(uint64_t ts, uint32_t tid, uint32_t op, uint64_t uaddr)
{
	return lt_ev_futex(ts, tid, 0, op, uaddr, 0, 0, 0);
}

#define ev_exit(ts, tid, nr, ret) lt_ev_exit(ts, tid, 0, nr, ret)

/* One event into the stall detector. */
static void feed(struct lt_stall *s, struct lt_event e)
{
	lt_stall_event(s, &e);
}

static struct lt_event ev_select(uint64_t ts, uint32_t tid)
{
	struct lt_event e = lt_ev(ts, tid, 0, LT_EV_WAIT_ENTER);
	e.wait.nr = 270;
	return e;
}

Test(stall, locks_rule_fires_when_waiters_see_no_hand_off)
{
	struct lt_stall s;
	char why[256];
	cr_assert_eq(lt_stall_init(&s, LT_STALL_LOCKS, S(2), S(100)), 0);
	/* busy: waits that return, wakes that wake */
	for (int i = 0; i < 10; i++) {
		feed(&s, ev_futex(S(100) + i * 1000, 11, 128, 0x1000));
		feed(&s, ev_exit(S(100) + i * 1000 + 500, 11, 202, 0));
	}
	/* at 101 s thread 12 waits on 0x2000 and nobody comes */
	feed(&s, ev_futex(S(101), 12, 128, 0x2000));
	cr_assert_eq(lt_stall_check(&s, S(102), why, sizeof(why)), 0);
	cr_assert_eq(lt_stall_check(&s, S(102) + S(1) / 2, why, sizeof(why)), 0, "too early");
	cr_assert_eq(lt_stall_check(&s, S(103) + 1, why, sizeof(why)), 1);
	cr_assert(strstr(why, "tid 12 on futex 0x2000"), "%s", why);
	/* a wake that woke someone is progress */
	feed(&s, ev_futex(S(103) + 2, 13, 129, 0x2000));
	feed(&s, ev_exit(S(103) + 3, 13, 202, 1));
	cr_assert_eq(lt_stall_check(&s, S(104), why, sizeof(why)), 0);
	/* a wake that woke nobody is not */
	feed(&s, ev_futex(S(104), 13, 129, 0x2000));
	feed(&s, ev_exit(S(104) + 1, 13, 202, 0));
	cr_assert_eq(lt_stall_check(&s, S(105) + 4, why, sizeof(why)), 1);
	lt_stall_rearm(&s, S(106));
	cr_assert_eq(lt_stall_check(&s, S(107), why, sizeof(why)), 0, "re-armed");
	cr_assert_eq(lt_stall_check(&s, S(108) + 1, why, sizeof(why)), 1);
	lt_stall_free(&s);
}

/* --stall 0.001: the message's durations in units that show them (one
 * decimal of a second made every one "0.0 s") */
Test(stall, a_short_window_is_said_in_milliseconds)
{
	struct lt_stall s;
	char why[256];
	const uint64_t ms = 1000000ull;
	cr_assert_eq(lt_stall_init(&s, LT_STALL_LOCKS, ms, S(100)), 0);
	feed(&s, ev_futex(S(100), 12, 128, 0x2000));
	cr_assert_eq(lt_stall_check(&s, S(100) + 3 * ms + ms / 2, why, sizeof(why)), 1);
	cr_assert(strstr(why, "blocked for over 1.0 ms"), "%s", why);
	cr_assert(strstr(why, "tid 12 on futex 0x2000 for 3.5 ms"), "%s", why);
	cr_assert(!strstr(why, "0.0 s"), "%s", why);
	/* and seconds stay seconds */
	cr_assert_eq(lt_stall_check(&s, S(102) + S(1) / 4, why, sizeof(why)), 1);
	cr_assert(strstr(why, "for 2.25 s"), "%s", why);
	lt_stall_free(&s);
}

Test(stall, idle_io_waits_are_not_a_stall_under_locks)
{
	struct lt_stall s;
	char why[256];
	cr_assert_eq(lt_stall_init(&s, LT_STALL_LOCKS, S(2), S(0)), 0);
	for (uint32_t tid = 1; tid <= 8; tid++) {
		feed(&s, ev_select(S(1), tid));
	}
	cr_assert_eq(lt_stall_check(&s, S(60), why, sizeof(why)), 0);
	/* the progress rule does call it a stall */
	s.rule = LT_STALL_PROGRESS;
	cr_assert_eq(lt_stall_check(&s, S(60), why, sizeof(why)), 1);
	cr_assert(strstr(why, "8 threads blocked"), "%s", why);
	/* select timeouts (ret 0) are not progress; data (ret > 0) is */
	feed(&s, ev_exit(S(59), 3, 270, 0));
	cr_assert_eq(lt_stall_check(&s, S(60), why, sizeof(why)), 1);
	feed(&s, ev_select(S(59), 3));
	feed(&s, ev_exit(S(59) + 5, 3, 270, 1));
	cr_assert_eq(lt_stall_check(&s, S(60), why, sizeof(why)), 0);
	lt_stall_free(&s);
}

/* --calls blocking: a return whose value was not recorded (the thread ran
 * again after sleeping in the call) counts as the call succeeding when a
 * thread woke it */
static void blocking_return(struct lt_stall *s, uint64_t ts, uint32_t tid, uint16_t nr,
			    uint32_t waker, uint8_t wflags)
{
	struct lt_event e;
	if (waker || wflags) {
		feed(s, lt_ev_waking(ts - 1000, tid, 0, waker, waker ? 9 : 0, wflags, 0, "w"));
	}
	e = ev_exit(ts, tid, nr, 0);
	e.h.flags = LT_F_RET_UNKNOWN;
	lt_stall_event(s, &e);
}

static struct lt_event at_sleep(struct lt_event e)
{
	e.h.flags = LT_F_AT_SLEEP;
	return e;
}

Test(stall, returns_without_a_value_are_progress_when_a_thread_woke_them)
{
	struct lt_stall s;
	char why[256];
	cr_assert_eq(lt_stall_init(&s, LT_STALL_PROGRESS, S(2), S(0)), 0);
	for (uint32_t tid = 3; tid <= 4; tid++) {
		feed(&s, at_sleep(ev_select(S(1), tid)));
	}
	cr_assert_eq(lt_stall_check(&s, S(4), why, sizeof(why)), 1, "blocked in select");
	/* 3 is woken by thread 9 and runs again at 5 s: progress then; 4 is
	 * still blocked */
	blocking_return(&s, S(5), 3, 270, 9, 0);
	cr_assert_eq(lt_stall_check(&s, S(6), why, sizeof(why)), 0, "%s", why);
	cr_assert_eq(lt_stall_check(&s, S(7) + 1, why, sizeof(why)), 1, "no progress since 5 s");
	lt_stall_free(&s);
}

/* The JVM case with --calls blocking: two threads deadlocked, others
 * woken every 100 ms by the timers of their timed waits (a condvar
 * timedwait, a select with a timeout).  Timeouts are not progress, as
 * with --calls all (-ETIMEDOUT, select returning 0): the rule fires one
 * window after the deadlock. */
Test(stall, timer_ended_waits_are_not_progress_without_return_values)
{
	static const uint8_t irq[] = { LT_F_WAKER_IRQ, LT_F_WAKER_IDLE };
	for (int mode = 0; mode < 2; mode++) {
		struct lt_stall s;
		struct lt_event e;
		char why[256];
		cr_assert_eq(lt_stall_init(&s, LT_STALL_LOCKS, S(2), S(0)), 0);
		feed(&s, at_sleep(ev_futex(S(1), 21, 128, 0x2000)));
		feed(&s, at_sleep(ev_futex(S(1), 22, 128, 0x3000)));
		for (uint64_t t = S(1); t < S(10); t += S(1) / 10) {
			if (t == S(2) + S(1) / 2)
				cr_assert_eq(lt_stall_check(&s, t, why, sizeof(why)), 0, "too early");
			feed(&s, at_sleep(lt_ev_futex(t, 23, 0, 137, 0x4000, 0, -1, 0xffffffff)));
			blocking_return(&s, t + S(1) / 10 - 2000, 23, 202, 0, irq[mode]);
			e = at_sleep(ev_select(t, 24));
			e.wait.timeout_ns = (int64_t)(S(1) / 10);
			lt_stall_event(&s, &e);
			blocking_return(&s, t + S(1) / 10 - 1000, 24, 270, 0, irq[mode]);
		}
		cr_assert_eq(lt_stall_check(&s, S(10), why, sizeof(why)), 1, "timeouts taken for progress");
		cr_assert(strstr(why, "2 in futex waits"), "%s", why);
		/* a lock hand-off: the futex wait woken by a thread */
		feed(&s, at_sleep(ev_futex(S(10), 25, 128, 0x5000)));
		blocking_return(&s, S(10) + 5000, 25, 202, 26, 0);
		cr_assert_eq(lt_stall_check(&s, S(11), why, sizeof(why)), 0, "%s", why);
		lt_stall_free(&s);
	}
}

/* An interrupt that ends a select before its timeout, or a socket read
 * (no timeout), is a device delivering data: progress.  An interrupt that
 * ends a futex wait is its timer (or a signal from one): not progress. */
Test(stall, interrupts_that_bring_data_are_progress)
{
	struct lt_stall s;
	struct lt_event e;
	char why[256];
	cr_assert_eq(lt_stall_init(&s, LT_STALL_PROGRESS, S(2), S(0)), 0);
	feed(&s, at_sleep(lt_ev_io(S(1), 31, 0, 0, 5, 4096)));
	e = at_sleep(ev_select(S(1), 32));
	e.wait.timeout_ns = (int64_t)S(5);
	lt_stall_event(&s, &e);
	feed(&s, at_sleep(ev_futex(S(1), 33, 0, 0x6000)));
	cr_assert_eq(lt_stall_check(&s, S(3) + 1, why, sizeof(why)), 1);
	blocking_return(&s, S(4), 33, 202, 0, LT_F_WAKER_IRQ);
	cr_assert_eq(lt_stall_check(&s, S(4) + 1, why, sizeof(why)), 1, "a timed-out futex wait");
	blocking_return(&s, S(4) + 2, 31, 0, 0, LT_F_WAKER_IRQ);
	cr_assert_eq(lt_stall_check(&s, S(5), why, sizeof(why)), 0, "a read that got data");
	blocking_return(&s, S(5), 32, 270, 0, LT_F_WAKER_IRQ);
	cr_assert_eq(lt_stall_check(&s, S(6) + 1, why, sizeof(why)), 0, "a select that got data");
	/* no wake-up seen: unknown, not progress */
	feed(&s, at_sleep(lt_ev_io(S(6), 31, 0, 0, 5, 4096)));
	feed(&s, at_sleep(ev_select(S(7), 32)));
	blocking_return(&s, S(8), 32, 270, 0, 0);
	cr_assert_eq(lt_stall_check(&s, S(8) + 1, why, sizeof(why)), 1);
	lt_stall_free(&s);
}

/* Of threads whose waits began together (seeded at attach, or a rearm),
 * the one named is the lowest tid, whatever the table's order. */
Test(stall, longest_wait_ties_name_the_lowest_tid)
{
	struct lt_stall s;
	char why[256];
	uint64_t args[6] = { 0xabc0, 128, 2, 0, 0, 0 };
	cr_assert_eq(lt_stall_init(&s, LT_STALL_LOCKS, S(2), S(50)), 0);
	for (uint32_t tid = 5899; tid >= 5000; tid--)
		lt_stall_seed(&s, tid, 202, args, S(10));
	cr_assert_eq(lt_stall_check(&s, S(52) + 1, why, sizeof(why)), 1);
	cr_assert(strstr(why, "900 threads blocked"), "%s", why);
	cr_assert(strstr(why, "tid 5000 on futex 0xabc0"), "%s", why);
	lt_stall_rearm(&s, S(60));
	cr_assert_eq(lt_stall_check(&s, S(62) + 1, why, sizeof(why)), 1);
	cr_assert(strstr(why, "tid 5000 on futex 0xabc0"), "%s", why);
	lt_stall_free(&s);
}

Test(stall, threads_blocked_at_attach_and_thread_exit)
{
	struct lt_stall s;
	struct lt_event e;
	char why[256];
	uint64_t args[6] = { 0xabc0, 128, 2, 0, 0, 0 };
	cr_assert_eq(lt_stall_init(&s, LT_STALL_LOCKS, S(2), S(50)), 0);
	/* already waiting before observation began: fires one window later */
	lt_stall_seed(&s, 77, 202, args, S(10));
	cr_assert_eq(lt_stall_check(&s, S(51), why, sizeof(why)), 0);
	cr_assert_eq(lt_stall_check(&s, S(52) + 1, why, sizeof(why)), 1);
	cr_assert(strstr(why, "tid 77 on futex 0xabc0"), "%s", why);
	/* the waiter exits: nothing left to be stuck */
	e.h.kind = LT_EV_TASK_EXIT;
	e.h.tid = 77;
	e.h.ts = S(53);
	lt_stall_event(&s, &e);
	cr_assert_eq(lt_stall_check(&s, S(60), why, sizeof(why)), 0);
	/* many threads: the table grows and removal keeps lookups right */
	for (uint32_t tid = 1000; tid < 3000; tid++) {
		feed(&s, ev_futex(S(61), tid, 128, tid));
	}
	for (uint32_t tid = 1000; tid < 3000; tid += 2) {
		struct lt_event x = { .h = { .ts = S(61), .tid = tid, .kind = LT_EV_TASK_EXIT } };
		lt_stall_event(&s, &x);
	}
	cr_assert_eq(s.threads.n, 1000);
	for (uint32_t tid = 1001; tid < 3000; tid += 2) {
		feed(&s, ev_exit(S(62), tid, 202, 0));
	}
	cr_assert_eq(lt_stall_check(&s, S(63), why, sizeof(why)), 0);
	cr_assert_eq(lt_stall_rule_parse("progress"), LT_STALL_PROGRESS);
	cr_assert_eq(lt_stall_rule_parse("bogus"), -1);
	lt_stall_free(&s);
}

Test(stall, pthread_join_is_not_a_lock_wait)
{
	struct lt_stall s;
	struct lt_event e;
	char why[256];
	uint64_t none[6] = { 0 };
	cr_assert_eq(lt_stall_init(&s, LT_STALL_LOCKS, S(2), S(0)), 0);
	lt_stall_seed(&s, 500, -1, none, S(0)); /* main, running at attach */
	struct lt_event nt = { .h = { .ts = S(1), .tid = 501, .kind = LT_EV_TASK_NEW } };
	lt_stall_event(&s, &nt);
	/* main joins 501: FUTEX_WAIT on 501's tid word, expecting 501 */
	e = ev_futex(S(1), 500, 0, 0x7f0000001990);
	e.futex.val = 501;
	lt_stall_event(&s, &e);
	cr_assert_eq(lt_stall_check(&s, S(10), why, sizeof(why)), 0, "join taken for a lock: %s", why);
	/* the same wait expecting a value that is no tid is a lock wait */
	e.futex.val = 2;
	lt_stall_event(&s, &e);
	cr_assert_eq(lt_stall_check(&s, S(10), why, sizeof(why)), 1);
	lt_stall_free(&s);
}

/* The runtime witness: a GIL held by one thread whose switch count does not
 * move while threads sleep on it is a stall after the window; a count that
 * moves, a lock that is free, or nobody waiting is not. */
Test(stall, runtime_lock_held_without_hand_off)
{
	struct lt_stall s;
	struct lt_event e;
	char why[320];
	const uint64_t gil = 0x7f00a0001000ull;
	struct lt_rtlock l = { .model = "cpython", .kind = "GIL", .name = "_PyRuntime.ceval.gil",
			       .version = "CPython 3.11.2", .base = gil, .size = 0x90, .held = 1,
			       .holder = 900, .handoffs = 41, .has_handoffs = true };
	cr_assert_eq(lt_stall_init(&s, LT_STALL_LOCKS, S(2), S(0)), 0);
	struct lt_rtwatch *w = lt_rtwatch_new(900, S(2));
	cr_assert_not_null(w);
	cr_assert_eq(lt_rtwatch_feed(w, &l, 1, &s, S(1), why, sizeof(why)), 0);
	cr_assert_eq(lt_rtwatch_feed(w, &l, 1, &s, S(4), why, sizeof(why)), 0,
		     "no thread waits on it: not a stall");
	/* two waiters on the GIL's condvar, one on a futex elsewhere */
	e = ev_futex(S(4), 901, 0, gil + 0x30);
	lt_stall_event(&s, &e);
	e = ev_futex(S(4), 902, 0, gil + 0x30);
	lt_stall_event(&s, &e);
	e = ev_futex(S(4), 903, 0, 0x5000);
	lt_stall_event(&s, &e);
	cr_assert_eq(lt_stall_waiters_in(&s, gil, gil + 0x90), 2);
	cr_assert_eq(lt_rtwatch_feed(w, &l, 1, &s, S(4), why, sizeof(why)), 1);
	cr_assert(strstr(why, "the GIL (_PyRuntime.ceval.gil, CPython 3.11.2) has been held by "
			      "thread 900 for 3.0 s without a hand-off while 2 threads wait for it"),
		  "%s", why);
	/* a hand-off: a new window begins */
	l.handoffs = 42;
	cr_assert_eq(lt_rtwatch_feed(w, &l, 1, &s, S(5), why, sizeof(why)), 0);
	cr_assert_eq(lt_rtwatch_feed(w, &l, 1, &s, S(6), why, sizeof(why)), 0);
	cr_assert_eq(lt_rtwatch_feed(w, &l, 1, &s, S(7), why, sizeof(why)), 1);
	/* another holder with the same count (never, but the holder decides) */
	l.holder = 901;
	cr_assert_eq(lt_rtwatch_feed(w, &l, 1, &s, S(8), why, sizeof(why)), 0);
	/* free: nothing to wait behind; re-armed: the window starts again */
	l.held = 0;
	cr_assert_eq(lt_rtwatch_feed(w, &l, 1, &s, S(20), why, sizeof(why)), 0);
	l.held = 1;
	cr_assert_eq(lt_rtwatch_feed(w, &l, 1, &s, S(21), why, sizeof(why)), 0);
	lt_rtwatch_rearm(w, S(22));
	cr_assert_eq(lt_rtwatch_feed(w, &l, 1, &s, S(23), why, sizeof(why)), 0);
	cr_assert_eq(lt_rtwatch_feed(w, &l, 1, &s, S(24), why, sizeof(why)), 1);
	/* a lock without a hand-off count is never judged */
	l.has_handoffs = false;
	struct lt_rtwatch *w2 = lt_rtwatch_new(900, S(2));
	cr_assert_eq(lt_rtwatch_feed(w2, &l, 1, &s, S(1), why, sizeof(why)), 0);
	cr_assert_eq(lt_rtwatch_feed(w2, &l, 1, &s, S(9), why, sizeof(why)), 0);
	lt_rtwatch_free(w2);
	lt_rtwatch_free(w);
	lt_stall_free(&s);
}

/* A holder asleep in read() since before recording began has held the
 * lock at least that long: the first reading is enough. */
Test(stall, runtime_lock_holder_asleep_since_attach)
{
	struct lt_stall s;
	char why[320];
	const uint64_t gil = 0x7f00a0001000ull;
	uint64_t rd[6] = { 3, 0x7ffd0000, 64, 0, 0, 0 }, fw[6] = { gil + 0x30, 9, 0, 0, 0, 0 };
	struct lt_rtlock l = { .kind = "GIL", .name = "_PyRuntime.ceval.gil", .base = gil,
			       .size = 0x90, .held = 1, .holder = 900, .handoffs = 7,
			       .has_handoffs = true };
	cr_assert_eq(lt_stall_init(&s, LT_STALL_LOCKS, S(2), S(10)), 0);
	lt_stall_seed(&s, 900, -1, rd, 0);
	lt_stall_seed(&s, 901, -1, fw, 0);
	lt_stall_seed(&s, 900, 0, rd, S(6));    /* read() since 6 s */
	lt_stall_seed(&s, 901, 202, fw, S(10)); /* FUTEX_WAIT_BITSET on the GIL */
	struct lt_rtwatch *w = lt_rtwatch_new(900, S(2));
	cr_assert_eq(lt_rtwatch_feed(w, &l, 1, &s, S(10) + 1, why, sizeof(why)), 1);
	cr_assert(strstr(why, "held by thread 900 for 4.0 s without a hand-off while 1 thread wait"),
		  "%s", why);
	cr_assert(strstr(why, "the holder has been in an I/O wait for 4.0 s"), "%s", why);
	lt_rtwatch_free(w);
	lt_stall_free(&s);
}

/* --calls blocking: a select woken by an interrupt before its timeout got
 * data, even when its return is written late (the thread ran on a busy cpu,
 * or its switch-in was not reported and the return came at its next event,
 * past the timeout): judged at the wake-up. */
Test(stall, an_interrupt_before_the_timeout_is_judged_at_the_wake_up)
{
	struct lt_stall s;
	char why[256];
	cr_assert_eq(lt_stall_init(&s, LT_STALL_PROGRESS, S(2), S(0)), 0);
	struct lt_event e = at_sleep(ev_select(S(1), 32));
	e.wait.timeout_ns = (int64_t)S(1);
	lt_stall_event(&s, &e);
	feed(&s, at_sleep(lt_ev_io(S(1), 31, 0, 0, 5, 4096)));
	/* data at 1.5 s, the thread seen again at 2.5 s */
	feed(&s, lt_ev_waking(S(1) + S(1) / 2, 32, 0, 0, 0, LT_F_WAKER_IRQ, 0, "w"));
	e = ev_exit(S(2) + S(1) / 2, 32, 270, 0);
	e.h.flags = LT_F_RET_UNKNOWN;
	lt_stall_event(&s, &e);
	cr_assert_eq(lt_stall_check(&s, S(4), why, sizeof(why)), 0, "the select got data: %s", why);
	lt_stall_free(&s);
}

/* A thread blocked in flock(LOCK_EX) or fcntl(F_SETLKW) at attach waits
 * for a lock: the locks rule fires on it; its wake-up (the lock granted;
 * no exit event comes, the calls are not traced) is a hand-off. */
Test(stall, file_lock_wait_at_attach_is_a_lock_wait)
{
	struct lt_stall s;
	char why[256];
	uint64_t fl[6] = { 3, 2, 0, 0, 0, 0 };       /* flock(3, LOCK_EX) */
	uint64_t nb[6] = { 3, 2 | 4, 0, 0, 0, 0 };   /* LOCK_NB: does not wait */
	uint64_t fc[6] = { 4, 7, 0x7000, 0, 0, 0 };  /* fcntl(4, F_SETLKW, ...) */
	cr_assert_eq(lt_stall_init(&s, LT_STALL_LOCKS, S(2), S(50)), 0);
	lt_stall_seed(&s, 80, -1, fl, 0);
	lt_stall_seed(&s, 81, -1, fl, 0);
	lt_stall_seed(&s, 80, 73, nb, S(10));
	cr_assert_eq(lt_stall_check(&s, S(53), why, sizeof(why)), 0, "LOCK_NB is no wait: %s", why);
	lt_stall_seed(&s, 80, 73, fl, S(10));
	lt_stall_seed(&s, 81, 72, fc, S(11));
	cr_assert_eq(lt_stall_check(&s, S(53), why, sizeof(why)), 1);
	cr_assert(strstr(why, "tid 80 in a file-lock wait"), "%s", why);
	/* file-lock waits are said as such, not as futex waits */
	cr_assert(strstr(why, "(0 in futex waits, 2 in file-lock waits;"), "%s", why);
	/* both granted: progress, nothing left waiting */
	feed(&s, lt_ev_waking(S(54), 80, 0, 0, 0, 0, 0, "w"));
	feed(&s, lt_ev_waking(S(54), 81, 0, 0, 0, 0, 0, "w"));
	cr_assert_eq(lt_stall_check(&s, S(57), why, sizeof(why)), 0, "%s", why);
	lt_stall_free(&s);
}

/* An idle pool (issue 25, item 4: libuv's workers in uv_cond_wait under an
 * idle node --inspect): futex waits a look at the process judged idle are
 * no lock waits; a mutex waiter beside them still fires, and a judgement
 * lasts only for the wait it was made on. */
Test(stall, waits_judged_idle_are_no_lock_waits)
{
	struct lt_stall s;
	char why[256];
	uint32_t tids[8];
	cr_assert_eq(lt_stall_init(&s, LT_STALL_LOCKS, S(1), S(100)), 0);
	for (uint32_t tid = 21; tid <= 24; tid++)
		feed(&s, ev_futex(S(100), tid, 393, 0x3000)); /* FUTEX_WAIT_BITSET, a condvar's */
	feed(&s, ev_select(S(100), 20));
	cr_assert_eq(lt_stall_unjudged(&s, S(100) + S(1) / 2, tids, 8), 0, "not yet past the window");
	cr_assert_eq(lt_stall_unjudged(&s, S(102), tids, 8), 4);
	cr_assert_eq(lt_stall_check(&s, S(102), why, sizeof(why)), 1, "not judged: lock waits");
	for (uint32_t tid = 21; tid <= 24; tid++)
		lt_stall_judge(&s, tid, 0x3000, 1);
	cr_assert_eq(lt_stall_unjudged(&s, S(102), tids, 8), 0);
	cr_assert_eq(lt_stall_check(&s, S(102), why, sizeof(why)), 0, "an idle pool is no stall: %s", why);
	/* the progress rule still counts them as blocked */
	s.rule = LT_STALL_PROGRESS;
	cr_assert_eq(lt_stall_check(&s, S(102), why, sizeof(why)), 1);
	s.rule = LT_STALL_LOCKS;
	/* a judgement on another word is none */
	feed(&s, ev_futex(S(102), 25, 393, 0x4000));
	lt_stall_judge(&s, 25, 0x5000, 1);
	cr_assert_eq(lt_stall_check(&s, S(104), why, sizeof(why)), 1, "judged idle on another word");
	cr_assert(strstr(why, "tid 25 on futex 0x4000"), "%s", why);
	feed(&s, ev_exit(S(104), 25, 202, -110));
	cr_assert_eq(lt_stall_check(&s, S(104) + 1, why, sizeof(why)), 0);
	/* a worker that woke (work came) and parked again is judged anew */
	feed(&s, ev_exit(S(104) + 2, 21, 202, 0));
	feed(&s, ev_futex(S(104) + 3, 21, 393, 0x3000));
	cr_assert_eq(lt_stall_check(&s, S(106), why, sizeof(why)), 1, "a new wait, not judged yet");
	cr_assert_eq(lt_stall_unjudged(&s, S(106), tids, 8), 1);
	cr_assert_eq(tids[0], 21);
	lt_stall_judge(&s, 21, 0x3000, 1);
	cr_assert_eq(lt_stall_check(&s, S(106), why, sizeof(why)), 0);
	/* a thread stuck on a mutex beside the idle pool is a stall */
	feed(&s, ev_futex(S(106), 26, 128, 0x6000));
	cr_assert_eq(lt_stall_check(&s, S(108), why, sizeof(why)), 1);
	cr_assert(strstr(why, "1 in futex waits; longest: tid 26 on futex 0x6000"), "%s", why);
	lt_stall_judge(&s, 26, 0x6000, 0);
	cr_assert_eq(lt_stall_check(&s, S(108), why, sizeof(why)), 1, "judged a lock wait");
	lt_stall_free(&s);
}

/* The judgement a look makes (rt_idle.h), as the snapshot's verdicts make
 * it: a condvar with no signal pending, no owner, its word unchanged, no
 * lock-acquire function and no runtime lock; or a runtime's own idle wait. */
Test(stall, idle_wait_judgement_of_a_snapshot_thread)
{
	struct lt_thread t;
	memset(&t, 0, sizeof(t));
	t.wait = LT_WAIT_FUTEX;
	t.futex.is_wait = true;
	t.futex.owner_kind = LT_OWNER_NONE;
	t.futex.word_ok = true;
	t.futex.lock_kind = "condition variable";
	t.futex.cond_signal = 1;
	cr_assert(lt_rt_idle_wait(&t), "a condvar nobody signalled");
	t.futex.cond_signal = 2;
	cr_assert(!lt_rt_idle_wait(&t), "a signal on its way");
	t.futex.cond_signal = 0;
	cr_assert(!lt_rt_idle_wait(&t), "its state unknown");
	t.futex.cond_signal = 1;
	t.acquire = "rt_acquire";
	cr_assert(!lt_rt_idle_wait(&t), "a lock built on the condvar");
	t.acquire = NULL;
	t.futex.rtlock = 1;
	cr_assert(!lt_rt_idle_wait(&t), "a runtime lock's word");
	t.futex.rtlock = 0;
	t.futex.word = 1;
	cr_assert(!lt_rt_idle_wait(&t), "the word changed");
	t.futex.word = 0;
	t.futex.lock_kind = "pthread mutex";
	cr_assert(!lt_rt_idle_wait(&t), "a mutex");
	t.futex.lock_kind = "semaphore";
	cr_assert(!lt_rt_idle_wait(&t), "a semaphore");
	char st[] = LT_RT_IDLE_STATE " (libuv's uv_sem_wait): idle, not a lock";
	t.futex.lock_state = st;
	cr_assert(lt_rt_idle_wait(&t), "a runtime's own thread waiting for work");
	t.futex.lock_state = NULL;
	t.futex.owner_kind = LT_OWNER_MUTEX;
	t.futex.lock_kind = "condition variable";
	cr_assert(!lt_rt_idle_wait(&t), "an owner");
}

/* The waiters of a runtime lock that has not changed hands (rtwatch.c):
 * those asleep on its words now and those whose latest wait there began
 * since it last changed hands, though they are between two timed waits at
 * this instant (CPython's GIL waiters retry every 5 ms); not the holder,
 * not a thread whose latest wait there is older, not a wait elsewhere. */
Test(stall, lock_waiters_counted_since_it_last_changed_hands)
{
	struct lt_stall s;
	cr_assert_eq(lt_stall_init(&s, LT_STALL_LOCKS, S(2), S(100)), 0);
	/* 21: asleep on the lock now */
	feed(&s, ev_futex(S(101), 21, 128, 0x5008));
	/* 22: its timed wait on it ended (-ETIMEDOUT), runnable now */
	feed(&s, ev_futex(S(101), 22, 137, 0x5010));
	feed(&s, ev_exit(S(101) + 5000000, 22, 202, -110));
	/* 23: waited on it before it last changed hands (at 100.5 s) */
	feed(&s, ev_futex(S(100), 23, 128, 0x5008));
	feed(&s, ev_exit(S(100) + 1000, 23, 202, 0));
	/* 24: a wait on another lock; 25, the holder, on the lock's words */
	feed(&s, ev_futex(S(101), 24, 128, 0x9000));
	feed(&s, ev_futex(S(101), 25, 128, 0x5000));
	uint64_t since = S(100) + S(1) / 2;
	cr_assert_eq(lt_stall_waited_in(&s, 0x5000, 0x5040, since, 25), 2);
	cr_assert_eq(lt_stall_waited_in(&s, 0x5000, 0x5040, since, 0), 3);
	/* asleep now only: the instantaneous count misses 22 */
	cr_assert_eq(lt_stall_waiters_in(&s, 0x5000, 0x5040), 2);
	lt_stall_free(&s);
}

/* HotSpot re-parks a monitor's contender every second at most: each of
 * the two deadlocked threads' futex waits runs out of time (ETIMEDOUT, or
 * a timer's interrupt without return values), the thread unlocks its park
 * mutex (a FUTEX_WAKE that wakes nobody) and waits on the same futex
 * again.  The waits go on from the first one: the locks rule fires once
 * they have lasted the window in all, not never.  A wait that succeeds,
 * or one on another futex, ends the retry. */
Test(stall, a_wait_retried_after_its_timeout_goes_on)
{
	for (int mode = 0; mode < 2; mode++) {
		struct lt_stall s;
		char why[256];
		cr_assert_eq(lt_stall_init(&s, LT_STALL_LOCKS, S(2), S(0)), 0);
		for (uint64_t t = S(1); t < S(4); t += S(1)) {
			for (uint32_t tid = 31; tid <= 32; tid++) {
				uint64_t uaddr = tid == 31 ? 0x7000 : 0x8000;
				struct lt_event w = lt_ev_futex(t + tid, tid, 0, 137, uaddr, 0, S(1), 0xffffffff);
				if (mode) {
					feed(&s, at_sleep(w));
					blocking_return(&s, t + S(1) - 100 + tid, tid, 202, 0, LT_F_WAKER_IRQ);
				} else {
					feed(&s, w);
					feed(&s, ev_exit(t + S(1) - 100 + tid, tid, 202, -ETIMEDOUT));
				}
				if (!mode) { /* the park mutex's unlock, waking nobody */
					feed(&s, ev_futex(t + S(1) - 50 + tid, tid, 129, uaddr - 0x10));
					feed(&s, ev_exit(t + S(1) - 40 + tid, tid, 202, 0));
				}
			}
			if (t == S(2))
				cr_assert_eq(lt_stall_check(&s, t + S(1) / 2, why, sizeof(why)), 0, "too early");
		}
		for (uint32_t tid = 31; tid <= 32; tid++) /* and wait again */
			feed(&s, lt_ev_futex(S(4) + tid, tid, 0, 137, tid == 31 ? 0x7000 : 0x8000, 0, S(1),
					     0xffffffff));
		/* at 4.5 s both have waited 3.5 s, in retries of 1 s */
		cr_assert_eq(lt_stall_check(&s, S(4) + S(1) / 2, why, sizeof(why)), 1, "mode %d", mode);
		cr_assert(strstr(why, "2 in futex waits"), "%s", why);
		cr_assert(strstr(why, "tid 31 on futex 0x7000 for 3.50 s"), "%s", why);
		/* 31's wait succeeds; its next wait on 0x7000 starts anew */
		feed(&s, lt_ev_futex(S(5), 31, 0, 137, 0x7000, 0, S(1), 0xffffffff));
		feed(&s, ev_exit(S(5) + 10, 31, 202, 0));
		feed(&s, lt_ev_futex(S(5) + 20, 31, 0, 137, 0x7000, 0, S(1), 0xffffffff));
		feed(&s, ev_exit(S(6) + 20, 31, 202, -ETIMEDOUT));
		/* 32 waits on another futex after its timeout: anew too */
		feed(&s, lt_ev_futex(S(6) + 30, 32, 0, 137, 0x9000, 0, -1, 0xffffffff));
		feed(&s, lt_ev_futex(S(6) + 40, 31, 0, 137, 0x7000, 0, S(1), 0xffffffff));
		cr_assert_eq(lt_stall_check(&s, S(7), why, sizeof(why)), 0, "%s", why);
		cr_assert_eq(lt_stall_check(&s, S(8) + S(1) / 10, why, sizeof(why)), 1);
		cr_assert(strstr(why, "longest: tid 31 on futex 0x7000 for 3.10 s"), "%s", why);
		lt_stall_free(&s);
	}
}

/* A poller's timed waits on its own condition variable are one wait going
 * on (retried after each timeout), so it becomes a waiter past the window
 * that a look must judge.  A look that finds it between two tries judges
 * nothing (a judgement then would hold for all its retries, and name an
 * idle poller as the stall's longest lock waiter): it is not counted at
 * that moment, and the next look, finding it in its wait, judges it idle.
 * A lock waiter beside it is named. */
Test(stall, a_poller_seen_between_two_tries_is_looked_at_again)
{
	struct lt_stall s;
	char why[256];
	uint32_t tids[8];
	cr_assert_eq(lt_stall_init(&s, LT_STALL_LOCKS, S(1), S(100)), 0);
	uint64_t t = S(100);
	for (int i = 0; i < 40; i++, t += S(1) / 20) { /* 50 ms timed waits from 100 s */
		feed(&s, lt_ev_futex(t, 40, 0, 393, 0x7000, 0, S(1) / 20, 0xffffffff));
		feed(&s, ev_exit(t + S(1) / 20 - 1000, 40, 202, -ETIMEDOUT));
	}
	feed(&s, lt_ev_futex(t, 40, 0, 393, 0x7000, 0, S(1) / 20, 0xffffffff));
	uint64_t now = S(102) + 1;
	cr_assert_eq(lt_stall_unjudged(&s, now, tids, 8), 1);
	cr_assert_eq(tids[0], 40);
	cr_assert_eq(lt_stall_check(&s, now, why, sizeof(why)), 1, "not judged: a lock wait");
	/* the look's snapshot has it out of any futex wait */
	lt_stall_unseen(&s, 40, now);
	cr_assert_eq(lt_stall_check(&s, now, why, sizeof(why)), 0, "named a thread seen out of its wait: %s",
		     why);
	cr_assert_eq(lt_stall_unjudged(&s, now, tids, 8), 1, "left for another look");
	/* seen in another futex wait: no judgement either */
	lt_stall_judge(&s, 40, 0x7100, 1);
	cr_assert_eq(lt_stall_unjudged(&s, now, tids, 8), 1);
	/* a mutex waiter beside it, past the window: named, not the poller */
	feed(&s, ev_futex(S(101), 41, 128, 0x6000));
	lt_stall_unseen(&s, 40, now + 1);
	cr_assert_eq(lt_stall_check(&s, now + 1, why, sizeof(why)), 1);
	cr_assert(strstr(why, "1 in futex waits; longest: tid 41 on futex 0x6000"), "%s", why);
	/* the next look finds the poller in its wait: idle, for all its tries */
	lt_stall_judge(&s, 40, 0x7000, 1);
	feed(&s, ev_exit(t + S(1) / 20 - 1000, 40, 202, -ETIMEDOUT));
	feed(&s, lt_ev_futex(t + S(1) / 20, 40, 0, 393, 0x7000, 0, S(1) / 20, 0xffffffff));
	cr_assert_eq(lt_stall_unjudged(&s, S(103), tids, 8), 1, "only the mutex waiter");
	cr_assert_eq(tids[0], 41);
	feed(&s, ev_exit(S(103), 41, 202, 0)); /* it got its lock */
	cr_assert_eq(lt_stall_check(&s, S(103) + 2, why, sizeof(why)), 0, "%s", why);
	lt_stall_free(&s);
}
