/* Unit tests of the one "the thread ran" / "asleep in a call at attach"
 * rule (src/trace/taskrun.c) on synthetic headers and events, directly and
 * through the two state machines that judge by it: the --calls blocking
 * normalizer (callnorm.c) and the timeline (timeline.c).  No root. */
#include <criterion/criterion.h>
#include <string.h>
#include "callnorm.h"
#include "taskrun.h"
#include "timeline.h"
#include "lt_events.h"

#define PID 100
#define SLEEPER 101 /* asleep in futex(2) at attach */
#define WAKER 102
#define ATTACH 1000
#define NR_FUTEX 202
#define FUTEX_WAIT_PRIVATE 0x80
#define ADDR 0x5600000010a0ull

/* A header of process PID attached at ATTACH with n threads 101.., each
 * in futex(FUTEX_WAIT_PRIVATE) on ADDR in state state[i] ('R' for the
 * running ones: sc_nr "running"). */
static struct lt_thread_info th[8];
static struct lt_header hdr_of(const char *states, uint32_t flags)
{
	struct lt_header h;
	memset(&h, 0, sizeof(h));
	memset(th, 0, sizeof(th));
	h.pid = PID;
	h.flags = flags;
	h.clock_boottime = ATTACH;
	h.threads = th;
	h.nthreads = (uint32_t)strlen(states);
	cr_assert_leq(h.nthreads, 8);
	for (uint32_t i = 0; i < h.nthreads; i++) {
		th[i].tid = (int32_t)(SLEEPER + i);
		th[i].tgid = PID;
		snprintf(th[i].comm, sizeof(th[i].comm), "t%u", SLEEPER + i);
		th[i].state = states[i] == '0' ? 0 : states[i];
		th[i].sc_nr = NR_FUTEX;
		th[i].sc_args[0] = ADDR;
		th[i].sc_args[1] = FUTEX_WAIT_PRIVATE;
	}
	return h;
}

static struct lt_event wake_from(uint64_t ts, uint32_t wakee, uint32_t waker, uint8_t flags)
{
	return lt_ev_waking(ts, wakee, 1, waker, PID, flags, 1, "w");
}

/* ---- the rule ---- */

Test(taskrun, asleep_in_a_call_at_attach_by_the_start_snapshot)
{
	struct lt_header h = hdr_of("SDTtR0", 0);
	for (int i = 0; i < 4; i++) { /* asleep or stopped in futex(2) */
		cr_expect_eq(lt_run_attach_call(&h, &th[i]), NR_FUTEX, "state %c", th[i].state);
		cr_expect_eq(lt_run_attach_state(&h, &th[i]), th[i].state);
	}
	/* runnable in its call: woken or preempted, it waits for a cpu only */
	cr_expect_eq(lt_run_attach_call(&h, &th[4]), -1);
	cr_expect_eq(lt_run_attach_state(&h, &th[4]), 0);
	/* a header without the state letter: the call number says off a cpu */
	cr_expect_eq(lt_run_attach_call(&h, &th[5]), NR_FUTEX);
	cr_expect_eq(lt_run_attach_state(&h, &th[5]), 0);

	/* on a cpu, not read, or asleep outside any call */
	th[0].sc_nr = LT_SC_NR_RUNNING;
	th[1].sc_nr = LT_SC_NR_UNKNOWN;
	th[2].sc_nr = LT_SC_NR_NONE;
	cr_expect_eq(lt_run_attach_call(&h, &th[0]), -1);
	cr_expect_eq(lt_run_attach_call(&h, &th[1]), -1);
	cr_expect_eq(lt_run_attach_call(&h, &th[2]), -1);
	cr_expect_eq(lt_run_attach_state(&h, &th[0]), 0);
	cr_expect_eq(lt_run_attach_state(&h, &th[1]), 0);
	cr_expect_eq(lt_run_attach_state(&h, &th[2]), 'T'); /* asleep, but in no call */

	/* a launched target waits in locktrace's gate, not in its own call;
	 * a flight dump's header describes the dump's end */
	h = hdr_of("S", LT_HDR_LAUNCHED);
	cr_expect_eq(lt_run_attach_call(&h, &th[0]), -1);
	cr_expect_eq(lt_run_attach_state(&h, &th[0]), 'S');
	h = hdr_of("S", LT_HDR_FLIGHT);
	cr_expect_eq(lt_run_attach_call(&h, &th[0]), -1);
	cr_expect_eq(lt_run_attach_state(&h, &th[0]), 0);
}

Test(taskrun, a_wake_up_from_a_task_shows_its_waker_running_one_from_an_interrupt_does_not)
{
	struct lt_event task = wake_from(10, SLEEPER, WAKER, 0);
	struct lt_event irq = wake_from(10, SLEEPER, WAKER, LT_F_WAKER_IRQ);
	struct lt_event idle = wake_from(10, SLEEPER, 0, LT_F_WAKER_IDLE);
	cr_expect(lt_run_woken_by_task(&task));
	cr_expect_eq(lt_run_actor(&task), WAKER);
	cr_expect(!lt_run_woken_by_task(&irq));
	cr_expect_eq(lt_run_actor(&irq), 0);
	cr_expect(!lt_run_woken_by_task(&idle));
	cr_expect_eq(lt_run_actor(&idle), 0);
	/* a new thread's first wake-up is its creator's doing, from a task */
	struct lt_event new_wake = wake_from(10, SLEEPER, WAKER, LT_F_WAKEUP_NEW);
	cr_expect_eq(lt_run_actor(&new_wake), WAKER);
}

Test(taskrun, the_thread_each_event_shows_running)
{
	struct lt_event e = lt_ev_futex(10, SLEEPER, 0, FUTEX_WAIT_PRIVATE, ADDR, 0, -1, 0);
	cr_expect_eq(lt_run_actor(&e), SLEEPER);
	e = lt_ev_exit(10, SLEEPER, 0, NR_FUTEX, 0);
	cr_expect_eq(lt_run_actor(&e), SLEEPER);
	e.h.flags = LT_F_RET_UNKNOWN; /* dated by the switch-in, not written by it */
	cr_expect_eq(lt_run_actor(&e), 0);
	e = lt_ev_switch(10, 0, WAKER, PID, 1, SLEEPER, PID, "", "");
	cr_expect_eq(lt_run_actor(&e), WAKER); /* the one leaving the cpu */
	e = lt_ev(10, 103, 0, LT_EV_TASK_NEW);
	e.tnew.parent_tid = WAKER;
	cr_expect_eq(lt_run_actor(&e), WAKER);
	e = lt_ev(10, SLEEPER, 0, LT_EV_TASK_EXIT);
	cr_expect_eq(lt_run_actor(&e), SLEEPER);
	e = lt_ev(10, SLEEPER, 0, LT_EV_EXEC);
	cr_expect_eq(lt_run_actor(&e), SLEEPER);
	e = lt_ev(10, SLEEPER, 0, LT_EV_LOST);
	cr_expect_eq(lt_run_actor(&e), 0);
}

/* ---- through the call normalizer ---- */

struct sink {
	struct lt_event ev[16];
	int n;
};

static void collect(void *ctx, const struct lt_event *ev)
{
	struct sink *s = ctx;
	cr_assert_lt(s->n, 16);
	s->ev[s->n++] = *ev;
}

/* The sleeper, asleep at attach by the header, whose switch-in is not in
 * the stream, wakes the waker at 2000 (flags): the returns the
 * normalizer adds. */
static int callnorm_returns(uint8_t flags, struct sink *s)
{
	struct lt_callnorm n;
	struct lt_header h = hdr_of("S", 0);
	cr_assert_eq(lt_callnorm_init(&n, PID), 0);
	if (lt_run_attach_call(&h, &th[0]) >= 0)
		cr_assert_eq(lt_callnorm_asleep_at_attach(&n, SLEEPER, ATTACH), 0);
	struct lt_event w = wake_from(2000, WAKER, SLEEPER, flags);
	memset(s, 0, sizeof(*s));
	lt_callnorm_feed(&n, &w, collect, s);
	int r = 0;
	for (int i = 0; i < s->n; i++)
		r += s->ev[i].h.kind == LT_EV_SYS_EXIT;
	cr_expect_eq((uint64_t)r, n.unseen_runs);
	lt_callnorm_free(&n);
	return r;
}

Test(taskrun, callnorm_ends_the_call_at_a_wake_up_the_sleeper_issues_from_a_task)
{
	struct sink s;
	cr_assert_eq(callnorm_returns(0, &s), 1);
	cr_expect_eq(s.ev[0].h.kind, LT_EV_SYS_EXIT); /* before the wake-up it proves */
	cr_expect_eq(s.ev[0].h.tid, SLEEPER);
	cr_expect_eq(s.ev[0].h.ts, 2000);
	cr_expect_eq(s.ev[0].exit.nr, LT_NR_UNKNOWN);
	cr_expect(s.ev[0].h.flags & LT_F_BEGAN_BEFORE);
	cr_expect_eq(s.ev[1].h.kind, LT_EV_WAKING);
	/* from an interrupt that came while it slept: it did not run */
	cr_expect_eq(callnorm_returns(LT_F_WAKER_IRQ, &s), 0);
	cr_expect_eq(s.n, 1);
}

/* ---- through the timeline ---- */

static struct {
	struct lt_event sched[16];
	int nsched;
	struct lt_span ended[8];
	int nended;
} T;

static void tl_sched(void *c, const struct lt_event *ev)
{
	(void)c;
	cr_assert_lt(T.nsched, 16);
	T.sched[T.nsched++] = *ev;
}

static void tl_end(void *c, const struct lt_span *s)
{
	(void)c;
	cr_assert_lt(T.nended, 8);
	T.ended[T.nended++] = *s;
}

static const struct lt_timeline_sink tl_sink = { .sched = tl_sched, .span_end = tl_end };

/* The header's threads (states), then the sleeper waking the waker at 2000
 * (flags) and the end at 3000: the spans that ended and the switches. */
static void timeline_run(const char *states, uint8_t flags)
{
	struct lt_header h = hdr_of(states, 0);
	memset(&T, 0, sizeof(T));
	struct lt_timeline *tl = lt_timeline_new(&h, &tl_sink, NULL);
	cr_assert_not_null(tl);
	struct lt_event ev[] = {
		wake_from(2000, WAKER, SLEEPER, flags),
		lt_ev_futex(2100, SLEEPER, 1, FUTEX_WAIT_PRIVATE, ADDR + 8, 0, -1, 0),
	};
	for (size_t i = 0; i < sizeof(ev) / sizeof(ev[0]); i++)
		cr_assert_eq(lt_timeline_event(tl, &ev[i]), 0);
	lt_timeline_finish(tl, 3000);
	lt_timeline_free(tl);
}

Test(taskrun, timeline_places_the_unseen_switch_in_at_a_wake_up_from_a_task)
{
	timeline_run("S", 0);
	/* the call the header saw ends where the thread ran: the wake-up */
	cr_assert_geq(T.nended, 1);
	cr_expect_eq(T.ended[0].tid, SLEEPER);
	cr_expect(T.ended[0].flags & LT_SPAN_AT_START);
	cr_expect_eq(T.ended[0].begin_ts, ATTACH);
	cr_expect_eq(T.ended[0].end_ts, 2000);
	cr_assert_eq(T.nsched, 2); /* the inferred switch-in, then the wake-up */
	cr_expect_eq(T.sched[0].h.kind, LT_EV_SWITCH);
	cr_expect(T.sched[0].h.flags & LT_SW_INFERRED);
	cr_expect_eq(T.sched[0].sw.next_tid, SLEEPER);
	cr_expect_eq(T.sched[0].h.ts, 2000);
}

Test(taskrun, timeline_an_interrupts_wake_up_is_no_sign_of_life)
{
	timeline_run("S", LT_F_WAKER_IRQ);
	/* the thread's own call at 2100 is the first sign: it ran by then */
	cr_assert_geq(T.nended, 1);
	cr_expect_eq(T.ended[0].tid, SLEEPER);
	cr_expect_eq(T.ended[0].end_ts, 2100);
	cr_assert_eq(T.nsched, 2); /* the wake-up, then the inferred switch-in */
	cr_expect_eq(T.sched[0].h.kind, LT_EV_WAKING);
	cr_expect(T.sched[1].h.flags & LT_SW_INFERRED);
	cr_expect_eq(T.sched[1].h.ts, 2100);
}

Test(taskrun, timeline_a_runnable_thread_at_attach_was_in_no_wait)
{
	/* R in futex(2): woken just before the attach; no span, and its next
	 * own event needs no inferred switch-in (it was never seen off a cpu) */
	timeline_run("R", 0);
	for (int i = 0; i < T.nended; i++)
		cr_expect(!(T.ended[i].flags & LT_SPAN_AT_START), "span at start for tid %u", T.ended[i].tid);
	for (int i = 0; i < T.nsched; i++)
		cr_expect(!(T.sched[i].h.flags & LT_SW_INFERRED));
}
