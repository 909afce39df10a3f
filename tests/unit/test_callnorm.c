/* Unit tests of the --calls blocking normalizer (src/trace/callnorm.c) from
 * synthetic events: what it adds, where, and what it leaves alone. */
#include <criterion/criterion.h>
#include <string.h>
#include "callnorm.h"
#include "lt_events.h"

#define PID 100
#define OTHER 900

struct sink {
	struct lt_event ev[32];
	int n;
};

static void collect(void *ctx, const struct lt_event *ev)
{
	struct sink *s = ctx;
	cr_assert_lt(s->n, 32);
	s->ev[s->n++] = *ev;
}

static struct lt_event futex_at(uint64_t ts, uint32_t tid, uint32_t op, uint64_t uaddr, uint8_t flags)
{
	struct lt_event e = lt_ev_futex(ts, tid, 0, op, uaddr, 0, -1, 0);
	e.h.flags = flags;
	return e;
}

static struct lt_event sw(uint64_t ts, uint32_t prev, uint32_t ptgid, uint64_t state, uint32_t next,
			  uint32_t ntgid)
{
	return lt_ev_switch(ts, 0, prev, ptgid, state, next, ntgid, "", "");
}

static struct lt_event waking(uint64_t ts, uint32_t wakee, uint32_t waker, uint8_t flags)
{
	return lt_ev_waking(ts, wakee, 0, waker, PID, flags, 0, "");
}

static struct lt_event simple(uint64_t ts, uint32_t tid, uint8_t kind)
{
	return lt_ev(ts, tid, 0, kind);
}

/* every test: a normalizer for process PID and an empty sink */
static struct lt_callnorm n;
static struct sink s;

static void setup(void)
{
	memset(&s, 0, sizeof(s));
	cr_assert_eq(lt_callnorm_init(&n, PID), 0);
}

static void teardown(void)
{
	lt_callnorm_free(&n);
}

TestSuite(callnorm, .init = setup, .fini = teardown);

static void feed(struct lt_callnorm *nm, struct sink *sk, struct lt_event e)
{
	lt_callnorm_feed(nm, &e, collect, sk);
}

static void assert_return(const struct lt_event *e, uint64_t ts, uint32_t tid, uint16_t nr,
			  uint8_t flags)
{
	cr_assert_eq(e->h.kind, LT_EV_SYS_EXIT);
	cr_assert_eq(e->h.ts, ts);
	cr_assert_eq(e->h.tid, tid);
	cr_assert_eq(e->exit.nr, nr);
	cr_assert_eq(e->exit.ret, 0);
	cr_assert_eq(e->h.flags, LT_F_RET_UNKNOWN | flags, "flags 0x%x", e->h.flags);
}

Test(callnorm, a_sleep_returns_when_the_thread_runs_again)
{
	feed(&n, &s, simple(1, 101, LT_EV_TASK_NEW));
	feed(&n, &s, futex_at(10, 101, 0x80, 0x1000, LT_F_AT_SLEEP));
	feed(&n, &s, sw(10, 101, PID, 1, 0, 0));
	feed(&n, &s, waking(20, 101, 102, 0));
	feed(&n, &s, sw(30, 0, 0, 0, 101, PID));
	/* running again, switched out preempted and back: no new return */
	feed(&n, &s, sw(40, 101, PID, 0, 0, 0));
	feed(&n, &s, sw(50, 0, 0, 0, 101, PID));
	cr_assert_eq(s.n, 8);
	cr_assert_eq(s.ev[1].h.kind, LT_EV_FUTEX_ENTER);
	cr_assert_eq(s.ev[4].h.kind, LT_EV_SWITCH);
	assert_return(&s.ev[5], 30, 101, 202, 0);
	cr_assert_eq(s.ev[6].h.kind, LT_EV_SWITCH);
	cr_assert_eq(s.ev[7].h.kind, LT_EV_SWITCH);
	cr_assert_eq(n.synthesized, 1);
}

Test(callnorm, first_run_of_a_thread_asleep_at_attach_began_before)
{
	/* 101 asleep since before tracing; OTHER's threads are not ours */
	feed(&n, &s, sw(5, 0, 0, 0, 101, PID));
	feed(&n, &s, sw(6, 101, PID, 0, 901, OTHER));
	feed(&n, &s, sw(7, 901, OTHER, 1, 101, PID));
	/* 103 ran first (seen leaving a cpu): its first return is not one */
	feed(&n, &s, sw(8, 103, PID, 1, 0, 0));
	feed(&n, &s, sw(9, 0, 0, 0, 103, PID));
	cr_assert_eq(s.n, 6);
	cr_assert_eq(s.ev[0].h.kind, LT_EV_SWITCH);
	assert_return(&s.ev[1], 5, 101, LT_NR_UNKNOWN, LT_F_BEGAN_BEFORE);
	for (int i = 2; i < 6; i++)
		cr_assert_eq(s.ev[i].h.kind, LT_EV_SWITCH, "event %d", i);
}

Test(callnorm, a_waking_call_is_written_once_and_returns_at_its_last_wake)
{
	feed(&n, &s, simple(1, 102, LT_EV_TASK_NEW));
	/* FUTEX_WAKE on 0x1000 wakes 101 and 103: written before each */
	feed(&n, &s, futex_at(10, 102, 1, 0x1000, LT_F_AT_WAKE));
	feed(&n, &s, waking(10, 101, 102, 0));
	feed(&n, &s, futex_at(12, 102, 1, 0x1000, LT_F_AT_WAKE));
	feed(&n, &s, waking(12, 103, 102, 0));
	/* an interrupt's wake-up on its cpu does not extend the call */
	feed(&n, &s, waking(15, 104, 102, LT_F_WAKER_IRQ));
	/* the next call of 102: a wake on another word ends the first */
	feed(&n, &s, futex_at(20, 102, 1, 0x2000, LT_F_AT_WAKE));
	feed(&n, &s, waking(20, 105, 102, 0));
	/* then it sleeps: the waking call returns before the switch */
	feed(&n, &s, futex_at(30, 102, 0, 0x3000, LT_F_AT_SLEEP));
	feed(&n, &s, sw(30, 102, PID, 1, 0, 0));
	cr_assert_eq(s.n, 11);
	cr_assert_eq(s.ev[1].h.kind, LT_EV_FUTEX_ENTER);
	cr_assert_eq(s.ev[1].futex.uaddr, 0x1000);
	cr_assert_eq(s.ev[2].h.kind, LT_EV_WAKING);
	cr_assert_eq(s.ev[3].h.kind, LT_EV_WAKING);
	cr_assert_eq(s.ev[4].h.kind, LT_EV_WAKING);
	assert_return(&s.ev[5], 12, 102, 202, 0);
	cr_assert_eq(s.ev[6].futex.uaddr, 0x2000);
	cr_assert_eq(s.ev[7].h.kind, LT_EV_WAKING);
	assert_return(&s.ev[8], 20, 102, 202, 0);
	cr_assert_eq(s.ev[9].futex.uaddr, 0x3000);
	cr_assert_eq(s.ev[10].h.kind, LT_EV_SWITCH);
}

Test(callnorm, flush_returns_the_calls_still_waking_and_exit_ends_them)
{
	feed(&n, &s, futex_at(10, 102, 1, 0x1000, LT_F_AT_WAKE));
	feed(&n, &s, waking(11, 101, 102, 0));
	feed(&n, &s, futex_at(20, 103, 1, 0x1000, LT_F_AT_WAKE));
	feed(&n, &s, waking(21, 101, 103, 0));
	/* 103 exits: its call returns first */
	feed(&n, &s, simple(25, 103, LT_EV_TASK_EXIT));
	cr_assert_eq(s.n, 6);
	assert_return(&s.ev[4], 21, 103, 202, 0);
	cr_assert_eq(s.ev[5].h.kind, LT_EV_TASK_EXIT);
	lt_callnorm_flush(&n, collect, &s);
	cr_assert_eq(s.n, 7);
	assert_return(&s.ev[6], 11, 102, 202, 0);
	lt_callnorm_flush(&n, collect, &s);
	cr_assert_eq(s.n, 7, "a second flush adds nothing");
	cr_assert_eq(n.synthesized, 2);
}

Test(callnorm, a_lost_switch_in_still_returns_the_call_before_the_next)
{
	feed(&n, &s, futex_at(10, 101, 0, 0x1000, LT_F_AT_SLEEP));
	feed(&n, &s, futex_at(20, 101, 0, 0x2000, LT_F_AT_SLEEP));
	cr_assert_eq(s.n, 3);
	assert_return(&s.ev[1], 20, 101, 202, 0);
	cr_assert_eq(s.ev[2].futex.uaddr, 0x2000);
}

/* Kernels do not report every switch (none whose previous task is a thread
 * of PID 1 in a Firecracker VM): a thread woken from its sleep may next
 * be seen doing something else.  Its call has returned by then. */
Test(callnorm, a_waking_call_after_an_unseen_switch_in_returns_the_sleep_first)
{
	feed(&n, &s, simple(1, 101, LT_EV_TASK_NEW));
	feed(&n, &s, futex_at(10, 101, 0x80, 0x1000, LT_F_AT_SLEEP));
	feed(&n, &s, sw(10, 101, PID, 1, 0, 0));
	feed(&n, &s, waking(20, 101, 102, 0));
	/* the switch 75 -> 101 is not in the stream; 101 unlocks */
	feed(&n, &s, futex_at(30, 101, 0x81, 0x1000, LT_F_AT_WAKE));
	feed(&n, &s, waking(30, 103, 101, 0));
	feed(&n, &s, sw(35, 101, PID, 0, 75, 1));
	cr_assert_eq(s.n, 9);
	assert_return(&s.ev[4], 30, 101, 202, 0);
	cr_assert_eq(s.ev[5].h.kind, LT_EV_FUTEX_ENTER);
	cr_assert_eq(s.ev[5].futex.op, 0x81);
	cr_assert_eq(s.ev[6].h.kind, LT_EV_WAKING);
	/* the waking call returns when the thread leaves the cpu */
	assert_return(&s.ev[7], 30, 101, 202, 0);
	cr_assert_eq(s.ev[8].h.kind, LT_EV_SWITCH);
	cr_assert_eq(n.unseen_runs, 1);
	cr_assert_eq(n.synthesized, 2);
}

Test(callnorm, a_wake_up_or_a_switch_out_after_an_unseen_switch_in_ends_the_sleep)
{
	/* 101 wakes 103 from outside any traced call (a signal, a pipe) */
	feed(&n, &s, futex_at(10, 101, 0x80, 0x1000, LT_F_AT_SLEEP));
	feed(&n, &s, sw(10, 101, PID, 1, 0, 0));
	feed(&n, &s, waking(20, 103, 101, 0));
	cr_assert_eq(s.n, 4);
	assert_return(&s.ev[2], 20, 101, 202, 0);
	cr_assert_eq(s.ev[3].h.kind, LT_EV_WAKING);
	/* 102 is preempted: it was running */
	feed(&n, &s, futex_at(30, 102, 0x80, 0x2000, LT_F_AT_SLEEP));
	feed(&n, &s, sw(30, 102, PID, 1, 0, 0));
	feed(&n, &s, sw(40, 102, PID, 0, 75, 1));
	cr_assert_eq(s.n, 8);
	assert_return(&s.ev[6], 40, 102, 202, 0);
	cr_assert_eq(s.ev[7].h.kind, LT_EV_SWITCH);
	/* an interrupt's wake-up on the cpu of a sleeping thread proves nothing */
	feed(&n, &s, futex_at(50, 104, 0x80, 0x3000, LT_F_AT_SLEEP));
	feed(&n, &s, sw(50, 104, PID, 1, 0, 0));
	feed(&n, &s, waking(55, 105, 104, LT_F_WAKER_IRQ));
	cr_assert_eq(s.n, 11);
	cr_assert_eq(s.ev[10].h.kind, LT_EV_WAKING);
	cr_assert_eq(n.unseen_runs, 2);
}

Test(callnorm, a_thread_asleep_at_attach_whose_switch_in_is_missing_began_before)
{
	/* the header, complete at 100, saw 101 and 102 asleep in calls */
	cr_assert_eq(lt_callnorm_asleep_at_attach(&n, 101, 100), 0);
	cr_assert_eq(lt_callnorm_asleep_at_attach(&n, 102, 100), 0);
	cr_assert_eq(lt_callnorm_asleep_at_attach(&n, 103, 100), 0);
	/* 102 fell asleep after attach, before the header read it: its sleep
	 * is in the stream, stamped before 100; nothing began before */
	feed(&n, &s, futex_at(90, 102, 0x80, 0x2000, LT_F_AT_SLEEP));
	feed(&n, &s, sw(90, 102, PID, 1, 0, 0));
	cr_assert_eq(s.n, 2);
	/* 101's switch-in is missing: its first call ends the one it slept in */
	feed(&n, &s, futex_at(120, 101, 0x81, 0x1000, LT_F_AT_WAKE));
	cr_assert_eq(s.n, 4);
	assert_return(&s.ev[2], 120, 101, LT_NR_UNKNOWN, LT_F_BEGAN_BEFORE);
	cr_assert_eq(s.ev[3].h.kind, LT_EV_FUTEX_ENTER);
	/* 103's switch-in is seen, as usual */
	feed(&n, &s, sw(130, 0, 0, 0, 103, PID));
	cr_assert_eq(s.n, 6);
	assert_return(&s.ev[5], 130, 103, LT_NR_UNKNOWN, LT_F_BEGAN_BEFORE);
	/* 102 runs again: its own call returns, not one from before */
	feed(&n, &s, sw(140, 0, 0, 0, 102, PID));
	assert_return(&s.ev[7], 140, 102, 202, 0);
	cr_assert_eq(n.unseen_runs, 1);
}

/* The demo's workers, woken at their gate, may exit at once: a thread's
 * exit, or a clone it made, shows it ran, switch-in or not. */
Test(callnorm, an_exit_or_a_clone_after_an_unseen_switch_in_ends_the_sleep)
{
	cr_assert_eq(lt_callnorm_asleep_at_attach(&n, 101, 5), 0);
	feed(&n, &s, waking(10, 101, 100, 0));
	feed(&n, &s, simple(20, 101, LT_EV_TASK_EXIT));
	cr_assert_eq(s.n, 3);
	assert_return(&s.ev[1], 20, 101, LT_NR_UNKNOWN, LT_F_BEGAN_BEFORE);
	cr_assert_eq(s.ev[2].h.kind, LT_EV_TASK_EXIT);
	/* 102 sleeps, is woken, and is next seen creating 103 */
	feed(&n, &s, futex_at(30, 102, 0x80, 0x1000, LT_F_AT_SLEEP));
	feed(&n, &s, sw(30, 102, PID, 1, 0, 0));
	struct lt_event c = simple(40, 103, LT_EV_TASK_NEW);
	c.tnew.parent_tid = 102;
	c.tnew.tgid = PID;
	feed(&n, &s, c);
	cr_assert_eq(s.n, 7);
	assert_return(&s.ev[5], 40, 102, 202, 0);
	cr_assert_eq(s.ev[6].h.kind, LT_EV_TASK_NEW);
	cr_assert_eq(n.unseen_runs, 2);
}
