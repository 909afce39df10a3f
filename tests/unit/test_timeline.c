/* Unit tests of the timeline model on synthetic event sequences with known
 * answers: wait/wake pairing, overlapping calls, calls open at the end or
 * blocked at the start, cpu interleaving, wakers outside the process, lost
 * records, thread names.  No root needed. */
#include <criterion/criterion.h>
#include <stdlib.h>
#include <string.h>
#include "callnorm.h"
#include "timeline.h"
#include "lt_events.h"
#include "u64map.h"

#define PID 100
#define FUTEX_WAIT_PRIVATE 0x80
#define FUTEX_WAKE_PRIVATE 0x81
#define FUTEX_WAIT_BITSET_PRIVATE 0x89
#define ADDR_A 0x5600000010a0ull
#define ADDR_B 0x5600000010c8ull

/* ---- a sink that records everything --------------------------------- */

#define MAXREC 64
struct span_rec {
	struct lt_span s;
	struct lt_wake_edge woke[8], woken_by[8];
};
struct thread_rec {
	struct lt_thread_ev t;
	char name[32], old[32];
	int ev_kind; /* of t.ev, which is valid only during the callback */
};
static struct {
	struct span_rec ended[MAXREC];
	int nended;
	struct lt_span begun[MAXREC];
	int nbegun;
	struct lt_wake_edge wakes[MAXREC];
	int nwakes;
	struct lt_lock_ev locks[MAXREC];
	int nlocks;
	struct thread_rec threads[MAXREC];
	int nthreads;
	struct lt_event sched[MAXREC];
	int nsched;
	uint64_t lost;
	int nlost;
	uint64_t last_sched_ts;
	int sched_out_of_order;
	uint64_t start;        /* the start callback's */
	int nstart;            /* calls of it */
	int begun_before_start, sched_before_start;
} R;

static void on_start(void *c, uint64_t ts)
{
	(void)c;
	R.start = ts;
	R.nstart++;
	R.begun_before_start = R.nbegun;
	R.sched_before_start = R.nsched;
}

static void on_span_end(void *c, const struct lt_span *s)
{
	(void)c;
	cr_assert_lt(R.nended, MAXREC);
	struct span_rec *r = &R.ended[R.nended++];
	r->s = *s;
	cr_assert_leq(s->nwoke, 8);
	cr_assert_leq(s->nwoken_by, 8);
	if (s->nwoke) /* woke is NULL when empty: memcpy(NULL) is undefined */
		memcpy(r->woke, s->woke, s->nwoke * sizeof(*s->woke));
	if (s->nwoken_by)
		memcpy(r->woken_by, s->woken_by, s->nwoken_by * sizeof(*s->woken_by));
	r->s.woke = r->woke;
	r->s.woken_by = r->woken_by;
}

/* *X appended to the record's array ARR, of N entries. */
#define KEEP(arr, n, x)                      \
	do {                                 \
		cr_assert_lt(R.n, MAXREC);   \
		R.arr[R.n++] = *(x);         \
	} while (0)

static void on_span_begin(void *c, const struct lt_span *s)
{
	(void)c;
	KEEP(begun, nbegun, s);
}

static void on_wake(void *c, const struct lt_wake_edge *w)
{
	(void)c;
	KEEP(wakes, nwakes, w);
}

static void on_lock(void *c, const struct lt_lock_ev *l)
{
	(void)c;
	KEEP(locks, nlocks, l);
}

static void on_thread(void *c, const struct lt_thread_ev *t)
{
	(void)c;
	cr_assert_lt(R.nthreads, MAXREC);
	struct thread_rec *r = &R.threads[R.nthreads++];
	r->t = *t;
	r->ev_kind = t->ev ? t->ev->h.kind : 0;
	snprintf(r->name, sizeof(r->name), "%s", t->name);
	snprintf(r->old, sizeof(r->old), "%s", t->old_name ? t->old_name : "");
}

static void on_sched(void *c, const struct lt_event *ev)
{
	(void)c;
	if (ev->h.ts < R.last_sched_ts)
		R.sched_out_of_order = 1;
	R.last_sched_ts = ev->h.ts;
	if (R.nsched < MAXREC)
		R.sched[R.nsched] = *ev;
	R.nsched++;
}

static void on_lost(void *c, const struct lt_event *ev)
{
	(void)c;
	R.lost += ev->lost.count;
	R.nlost++;
}

static const struct lt_timeline_sink rec_sink = {
	.start = on_start, .thread = on_thread, .span_begin = on_span_begin, .span_end = on_span_end,
	.wake = on_wake, .lock = on_lock, .sched = on_sched, .lost = on_lost,
};

static void reset(void)
{
	memset(&R, 0, sizeof(R));
}

/* ---- event builders -------------------------------------------------- */

#define hdr_ev(...) lt_ev(__VA_ARGS__)
#define sys_exit(...) lt_ev_exit(__VA_ARGS__)
#define io(...) lt_ev_io(__VA_ARGS__)

static struct lt_event futex(uint64_t ts, uint32_t tid, uint16_t cpu, uint32_t op, uint64_t uaddr,
			     uint32_t val)
{
	return lt_ev_futex(ts, tid, cpu, op, uaddr, val, -1, 0);
}

/* comms: waker w<tid>, switch sides c<tid> */
static struct lt_event waking(uint64_t ts, uint32_t wakee, uint16_t cpu, uint32_t waker,
			      uint32_t waker_tgid, uint8_t flags)
{
	char c[LT_COMM_LEN];
	snprintf(c, sizeof(c), "w%u", waker);
	return lt_ev_waking(ts, wakee, cpu, waker, waker_tgid, flags, cpu, c);
}

/* TID of PID is created on CPU 0 by PARENT, named COMM */
static struct lt_event task_new(uint64_t ts, uint32_t tid, uint32_t parent, const char *comm)
{
	struct lt_event e = lt_ev(ts, tid, 0, LT_EV_TASK_NEW);
	e.tnew.parent_tid = parent;
	e.tnew.tgid = PID;
	snprintf(e.tnew.comm, LT_COMM_LEN, "%s", comm);
	return e;
}

static struct lt_event sw(uint64_t ts, uint16_t cpu, uint32_t prev, uint32_t prev_tgid,
			  uint64_t state, uint32_t next, uint32_t next_tgid)
{
	char pc[LT_COMM_LEN], nc[LT_COMM_LEN];
	snprintf(pc, sizeof(pc), "c%u", prev);
	snprintf(nc, sizeof(nc), "c%u", next);
	return lt_ev_switch(ts, cpu, prev, prev_tgid, state, next, next_tgid, pc, nc);
}

/* A header with threads 101..100+n, named t101..., none blocked. */
static struct lt_thread_info hthreads[8];
/* TID waits on CPU with OP on ADDR (expecting VAL) at TS and is switched
 * out asleep 10 ns later: two events. */
#define WAITS(ts, tid, cpu, op, addr, val) \
	futex(ts, tid, cpu, op, addr, val), sw((ts) + 10, cpu, tid, PID, 1, 0, 0)

static struct lt_header make_hdr(int n, uint64_t attach)
{
	struct lt_header h;
	memset(&h, 0, sizeof(h));
	memset(hthreads, 0, sizeof(hthreads));
	h.pid = PID;
	h.clock_boottime = attach;
	h.nthreads = (uint32_t)n;
	h.threads = hthreads;
	for (int i = 0; i < n; i++) {
		hthreads[i].tid = 101 + i;
		snprintf(hthreads[i].comm, LT_COMM_LEN, "t%d", 101 + i);
		hthreads[i].sc_nr = -3;
	}
	return h;
}

static void feed(struct lt_timeline *tl, const struct lt_event *v, size_t n)
{
	for (size_t i = 0; i < n; i++)
		cr_assert_eq(lt_timeline_event(tl, &v[i]), 0);
}

/* A fresh record and a timeline reading H (with options O, or NULL) into
 * it. */
static struct lt_timeline *restart(const struct lt_header *h, const struct lt_timeline_opts *o)
{
	reset();
	return lt_timeline_new(h, &rec_sink, o);
}

/* The same for N threads attached at 500. */
static struct lt_timeline *open_tl(int n)
{
	static struct lt_header h;
	h = make_hdr(n, 500);
	return restart(&h, NULL);
}

/* The N events of V, then the end of the trace at END. */
static void play(struct lt_timeline *tl, const struct lt_event *v, size_t n, uint64_t end)
{
	feed(tl, v, n);
	lt_timeline_finish(tl, end);
}

static const struct span_rec *ended_on(uint32_t tid, int nth)
{
	for (int i = 0; i < R.nended; i++)
		if (R.ended[i].s.tid == tid && nth-- == 0)
			return &R.ended[i];
	return NULL;
}

/* The canonical hand-off: 101 waits on A, 102 wakes it. */
static const struct lt_event handoff[] = {
	/* cpu0: 101 waits and sleeps */
	{ .h = { 1000, 101, 0, LT_EV_FUTEX_ENTER, 0 },
	  .futex = { .uaddr = ADDR_A, .op = FUTEX_WAIT_PRIVATE, .val = 2, .timeout = -1, .nr = 202 } },
	{ .h = { 1100, 101, 0, LT_EV_SWITCH, 0 },
	  .sw = { .prev_state = 1, .prev_tid = 101, .next_tid = 0, .prev_tgid = PID } },
	/* cpu1: 102 wakes it */
	{ .h = { 2000, 102, 1, LT_EV_FUTEX_ENTER, 0 },
	  .futex = { .uaddr = ADDR_A, .op = FUTEX_WAKE_PRIVATE, .val = 1, .timeout = 0, .nr = 202 } },
	{ .h = { 2100, 101, 1, LT_EV_WAKING, 0 },
	  .wake = { .waker_tid = 102, .waker_tgid = PID, .prio = 120, .target_cpu = 0 } },
	{ .h = { 2200, 102, 1, LT_EV_SYS_EXIT, 0 }, .exit = { .ret = 1, .nr = 202 } },
	/* cpu0: 101 runs and returns */
	{ .h = { 2300, 0, 0, LT_EV_SWITCH, 0 },
	  .sw = { .prev_tid = 0, .next_tid = 101, .next_tgid = PID } },
	{ .h = { 2400, 101, 0, LT_EV_SYS_EXIT, 0 }, .exit = { .ret = 0, .nr = 202 } },
};

static void check_handoff(void)
{
	cr_assert_eq(R.nended, 2);
	const struct span_rec *w = ended_on(102, 0), *s = ended_on(101, 0);
	cr_assert(w && s);
	/* the waker's call */
	cr_assert_eq(w->s.begin_ts, 2000);
	cr_assert_eq(w->s.end_ts, 2200);
	cr_assert(w->s.flags & LT_SPAN_WAKER);
	cr_assert(w->s.flags & LT_SPAN_HAS_RESULT);
	cr_assert_eq(w->s.ret, 1);
	cr_assert_str_eq(lt_span_name(&w->s), "FUTEX_WAKE");
	cr_assert_eq(w->s.nwoke, 1);
	/* the wait it ended */
	cr_assert_eq(s->s.begin_ts, 1000);
	cr_assert_eq(s->s.end_ts, 2400);
	cr_assert_eq(s->s.flags & (LT_SPAN_WAIT | LT_SPAN_LOCK_WAIT | LT_SPAN_SLEPT),
		     LT_SPAN_WAIT | LT_SPAN_LOCK_WAIT | LT_SPAN_SLEPT);
	cr_assert_eq(s->s.flags & (LT_SPAN_UNFINISHED | LT_SPAN_END_INFERRED | LT_SPAN_AT_START), 0);
	cr_assert_str_eq(lt_span_name(&s->s), "FUTEX_WAIT");
	cr_assert_eq(s->s.enter.futex.val, 2);
	cr_assert_eq(s->s.nwoken_by, 1);
	/* one edge, seen from both ends */
	const struct lt_wake_edge *a = &w->woke[0], *b = &s->woken_by[0];
	cr_assert_eq(a->id, b->id);
	cr_assert_neq(a->id, 0);
	cr_assert_eq(a->waker_span, w->s.id);
	cr_assert_eq(a->wakee_span, s->s.id);
	cr_assert_eq(b->waker_span, w->s.id);
	cr_assert_eq(b->waker_tid, 102);
	cr_assert_eq(b->wakee_tid, 101);
	cr_assert_eq(b->ts, 2100);
	cr_assert_eq(b->flags, 0);
	/* the lock's waiter count: 1 while 101 waited, then 0 */
	cr_assert_eq(R.nlocks, 2);
	cr_assert_eq(R.locks[0].ts, 1000);
	cr_assert_eq(R.locks[0].addr, ADDR_A);
	cr_assert_eq(R.locks[0].waiters, 1);
	cr_assert_eq(R.locks[0].first, 1);
	cr_assert_eq(R.locks[1].ts, 2400);
	cr_assert_eq(R.locks[1].waiters, 0);
	cr_assert_eq(s->s.lock_uid, R.locks[0].uid);
	cr_assert_eq(s->s.waiters_begin, 1);
	cr_assert_eq(s->s.waiters_end, 0);
	/* scheduler records pass through in order */
	cr_assert_eq(R.nsched, 3);
	cr_assert_not(R.sched_out_of_order);
}

Test(timeline, wait_wake_pairing)
{
	struct lt_timeline *tl = open_tl(2);
	cr_assert(tl);
	feed(tl, handoff, sizeof(handoff) / sizeof(handoff[0]));
	lt_timeline_finish(tl, 3000);
	check_handoff();
	const struct lt_timeline_stats *st = lt_timeline_stats(tl);
	cr_assert_eq(st->spans, 2);
	cr_assert_eq(st->flows, 1);
	cr_assert_eq(st->wakes, 1);
	cr_assert_eq(lt_timeline_start(tl), 500);
	lt_timeline_free(tl);
}

/* The same hand-off as --calls blocking writes it (through the collector's
 * normalizer): returns without values; the wait's entry at its sleep. */
Test(timeline, returns_without_a_value_close_the_calls_without_a_result)
{
	struct lt_timeline *tl = open_tl(2);
	cr_assert(tl);
	struct lt_event v[sizeof(handoff) / sizeof(handoff[0])];
	memcpy(v, handoff, sizeof(v));
	for (size_t i = 0; i < sizeof(v) / sizeof(v[0]); i++) {
		if (v[i].h.kind == LT_EV_SYS_EXIT) {
			v[i].h.flags = LT_F_RET_UNKNOWN;
			v[i].exit.ret = 0;
		} else if (v[i].h.kind == LT_EV_FUTEX_ENTER) {
			v[i].h.flags = v[i].futex.op == FUTEX_WAKE_PRIVATE ? LT_F_AT_WAKE : LT_F_AT_SLEEP;
		}
	}
	feed(tl, v, sizeof(v) / sizeof(v[0]));
	/* a thread asleep since before the trace, ended by an unknown call */
	struct lt_event e = futex(2500, 103, 0, FUTEX_WAIT_PRIVATE, ADDR_A, 2);
	feed(tl, &e, 1);
	e = sys_exit(2600, 103, 0, LT_NR_UNKNOWN, 0);
	e.h.flags = LT_F_RET_UNKNOWN | LT_F_BEGAN_BEFORE;
	feed(tl, &e, 1);
	lt_timeline_finish(tl, 3000);
	cr_assert_eq(R.nended, 3);
	const struct span_rec *w = ended_on(102, 0), *s = ended_on(101, 0), *u = ended_on(103, 0);
	cr_assert(w && s && u);
	cr_assert_eq(w->s.end_ts, 2200);
	cr_assert_eq(s->s.end_ts, 2400);
	cr_assert_eq(u->s.end_ts, 2600);
	cr_assert_eq(w->s.flags & LT_SPAN_HAS_RESULT, 0);
	cr_assert_eq(s->s.flags & LT_SPAN_HAS_RESULT, 0);
	cr_assert_eq(u->s.flags & (LT_SPAN_HAS_RESULT | LT_SPAN_END_INFERRED), 0);
	/* the flow from the waking call to the wait is kept */
	cr_assert_eq(s->s.nwoken_by, 1);
	cr_assert_eq(s->woken_by[0].waker_span, w->s.id);
	cr_assert_eq(lt_timeline_stats(tl)->orphan_exits, 0);
	lt_timeline_free(tl);
}

Test(timeline, out_of_order_cpu_interleaving)
{
	/* cpu1's records drained after cpu0's: the exit of 101 (2400) arrives
	 * before the wake that caused it (2100) */
	static const int order[] = { 0, 1, 5, 6, 2, 3, 4 };
	struct lt_event v[7];
	for (int i = 0; i < 7; i++)
		v[i] = handoff[order[i]];
	struct lt_timeline *tl = open_tl(2);
	feed(tl, v, 7);
	lt_timeline_finish(tl, 3000);
	check_handoff();
	cr_assert_eq(lt_timeline_stats(tl)->late, 0);
	lt_timeline_free(tl);
}

Test(timeline, late_beyond_window_is_counted_not_dropped)
{
	struct lt_header h = make_hdr(2, 500);
	struct lt_timeline_opts o = { .reorder_ns = 100 };
	struct lt_timeline *tl = restart(&h, &o);
	struct lt_event v[] = {
		sw(1000, 0, 101, PID, 0, 0, 0),
		sw(5000, 0, 0, 0, 0, 101, PID),
		sw(6000, 0, 101, PID, 0, 0, 0), /* releases 5000 */
		sw(2000, 1, 102, PID, 0, 0, 0), /* older than what was released */
	};
	feed(tl, v, 4);
	lt_timeline_finish(tl, 0);
	cr_assert_eq(lt_timeline_stats(tl)->late, 1);
	cr_assert_eq(R.nsched, 4);
	lt_timeline_free(tl);
}

Test(timeline, window_memory_is_bounded)
{
	struct lt_header h = make_hdr(1, 0);
	struct lt_timeline_opts o = { .reorder_ns = 1000 };
	struct lt_timeline *tl = restart(&h, &o);
	/* a million records 10 ns apart: the window holds ~100 */
	for (uint64_t i = 0; i < 1000000; i++) {
		struct lt_event e = sw(1000 + i * 10, 0, 101, PID, 0, 101, PID);
		cr_assert_eq(lt_timeline_event(tl, &e), 0);
	}
	cr_assert_leq(lt_timeline_stats(tl)->max_held, 102);
	lt_timeline_finish(tl, 0);
	cr_assert_eq(R.nsched, 1000000);
	cr_assert_not(R.sched_out_of_order);
	lt_timeline_free(tl);

	/* and reorder_max caps it whatever the timestamps */
	struct lt_timeline_opts o2 = { .reorder_ns = ~0ull / 2, .reorder_max = 4096 };
	tl = restart(&h, &o2);
	for (uint64_t i = 0; i < 100000; i++) {
		struct lt_event e = sw(1000 + i, 0, 101, PID, 0, 101, PID);
		lt_timeline_event(tl, &e);
	}
	cr_assert_leq(lt_timeline_stats(tl)->max_held, 4096);
	lt_timeline_free(tl);
}

Test(timeline, waker_in_another_process_or_interrupt)
{
	struct lt_timeline *tl = open_tl(2);
	struct lt_event v[] = {
		WAITS(1000, 101, 0, FUTEX_WAIT_PRIVATE, ADDR_A, 0),
		waking(1500, 101, 0, 4242, 4200, 0), /* another process */
		sw(1600, 0, 0, 0, 0, 101, PID),
		sys_exit(1700, 101, 0, 202, 0),
		WAITS(2000, 101, 0, FUTEX_WAIT_PRIVATE, ADDR_A, 0),
		waking(2500, 101, 0, 0, 0, LT_F_WAKER_IDLE), /* timer interrupt */
		sw(2600, 0, 0, 0, 0, 101, PID),
		sys_exit(2700, 101, 0, 202, -110),
		/* 102 sits in a wait (not a waking call) when an interrupt on
		 * its cpu wakes 101: no flow from 102's wait */
		WAITS(3000, 101, 0, FUTEX_WAIT_PRIVATE, ADDR_A, 0),
		futex(3100, 102, 1, FUTEX_WAIT_PRIVATE, ADDR_B, 0),
		waking(3200, 101, 1, 102, PID, 0),
		sys_exit(3300, 102, 1, 202, -11),
		sw(3400, 0, 0, 0, 0, 101, PID),
		sys_exit(3500, 101, 0, 202, 0),
		/* 102 is in a FUTEX_WAKE, but the wake-up came from an
		 * interrupt that happened to hit it: no flow either */
		WAITS(4000, 101, 0, FUTEX_WAIT_PRIVATE, ADDR_A, 0),
		futex(4100, 102, 1, FUTEX_WAKE_PRIVATE, ADDR_B, 1),
		waking(4200, 101, 1, 102, PID, LT_F_WAKER_IRQ),
		sys_exit(4300, 102, 1, 202, 0),
		sw(4400, 0, 0, 0, 0, 101, PID),
		sys_exit(4500, 101, 0, 202, 0),
	};
	play(tl, v, sizeof(v) / sizeof(v[0]), 5000);

	const struct span_rec *s = ended_on(101, 0);
	cr_assert_eq(s->s.nwoken_by, 1);
	cr_assert_eq(s->woken_by[0].flags, LT_WAKE_OTHER);
	cr_assert_eq(s->woken_by[0].waker_tid, 4242);
	cr_assert_eq(s->woken_by[0].waker_span, 0);
	cr_assert_str_eq(s->woken_by[0].waker_comm, "w4242");

	s = ended_on(101, 1);
	cr_assert_eq(s->s.nwoken_by, 1);
	cr_assert_eq(s->woken_by[0].flags, LT_WAKE_IDLE);
	cr_assert_eq(s->woken_by[0].waker_span, 0);
	cr_assert_eq(s->s.ret, -110);

	s = ended_on(101, 2);
	cr_assert_eq(s->s.nwoken_by, 1);
	cr_assert_eq(s->woken_by[0].waker_tid, 102);
	cr_assert_eq(s->woken_by[0].waker_span, 0);
	cr_assert_eq(ended_on(102, 0)->s.nwoke, 0);

	s = ended_on(101, 3);
	cr_assert_eq(s->s.nwoken_by, 1);
	cr_assert_eq(s->woken_by[0].flags, LT_WAKE_IRQ);
	cr_assert_eq(s->woken_by[0].waker_span, 0);
	cr_assert_eq(ended_on(102, 1)->s.nwoke, 0);
	cr_assert_eq(lt_timeline_stats(tl)->flows, 0);
	lt_timeline_free(tl);
}

Test(timeline, broadcast_wakes_overlapping_waits)
{
	struct lt_timeline *tl = open_tl(3);
	struct lt_event v[] = {
		WAITS(1000, 101, 0, FUTEX_WAIT_BITSET_PRIVATE, ADDR_A, 0),
		futex(1100, 102, 1, FUTEX_WAIT_BITSET_PRIVATE, ADDR_A, 0),
		sw(1110, 1, 102, PID, 1, 103, PID),
		futex(2000, 103, 1, FUTEX_WAKE_PRIVATE, ADDR_A, 0x7fffffff),
		waking(2010, 101, 1, 103, PID, 0),
		waking(2020, 102, 1, 103, PID, 0),
		sys_exit(2100, 103, 1, 202, 2),
		sw(2200, 0, 0, 0, 0, 101, PID),
		sys_exit(2300, 101, 0, 202, 0),
		sw(2400, 1, 103, PID, 1, 102, PID),
		sys_exit(2500, 102, 1, 202, 0),
	};
	play(tl, v, sizeof(v) / sizeof(v[0]), 3000);
	cr_assert_eq(R.nended, 3);
	const struct span_rec *w = ended_on(103, 0);
	cr_assert_eq(w->s.nwoke, 2);
	cr_assert_eq(w->woke[0].wakee_tid, 101);
	cr_assert_eq(w->woke[1].wakee_tid, 102);
	cr_assert_eq(ended_on(101, 0)->woken_by[0].id, w->woke[0].id);
	cr_assert_eq(ended_on(102, 0)->woken_by[0].id, w->woke[1].id);
	cr_assert_neq(w->woke[0].id, w->woke[1].id);
	cr_assert_str_eq(lt_span_name(&ended_on(101, 0)->s), "FUTEX_WAIT_BITSET");
	/* two waiters on A at once */
	cr_assert_eq(R.nlocks, 4);
	cr_assert_eq(R.locks[0].waiters, 1);
	cr_assert_eq(R.locks[1].waiters, 2);
	cr_assert_eq(R.locks[2].waiters, 1);
	cr_assert_eq(R.locks[3].waiters, 0);
	cr_assert_eq(R.locks[1].first, 0);
	lt_timeline_free(tl);
}

Test(timeline, socket_write_wakes_reader)
{
	struct lt_timeline *tl = open_tl(2);
	struct lt_event v[] = {
		io(1000, 101, 0, 45 /* recvfrom */, 5, 4096),
		sw(1010, 0, 101, PID, 1, 0, 0),
		io(2000, 102, 1, 44 /* sendto */, 6, 100),
		waking(2050, 101, 1, 102, PID, 0),
		sys_exit(2100, 102, 1, 44, 100),
		sw(2150, 0, 0, 0, 0, 101, PID),
		sys_exit(2200, 101, 0, 45, 100),
	};
	play(tl, v, sizeof(v) / sizeof(v[0]), 3000);
	const struct span_rec *r = ended_on(101, 0), *w = ended_on(102, 0);
	cr_assert_str_eq(lt_span_name(&r->s), "recvfrom");
	cr_assert_str_eq(lt_span_name(&w->s), "sendto");
	cr_assert_eq(r->s.enter.io.fd, 5);
	cr_assert_eq(w->s.nwoke, 1);
	cr_assert_eq(r->woken_by[0].waker_span, w->s.id);
	cr_assert_eq(R.nlocks, 0); /* sockets are not locks */
	lt_timeline_free(tl);
}

Test(timeline, unfinished_at_end)
{
	struct lt_timeline *tl = open_tl(2);
	struct lt_event v[] = {
		WAITS(1000, 101, 0, FUTEX_WAIT_PRIVATE, ADDR_A, 2),
		futex(1500, 102, 1, FUTEX_WAKE_PRIVATE, ADDR_B, 1),
		sys_exit(1600, 102, 1, 202, 0),
	};
	feed(tl, v, sizeof(v) / sizeof(v[0]));
	cr_assert_eq(R.nended, 0); /* still in the window */
	lt_timeline_finish(tl, 9000);
	cr_assert_eq(R.nended, 2);
	const struct span_rec *s = ended_on(101, 0);
	cr_assert_eq(s->s.begin_ts, 1000);
	cr_assert_eq(s->s.end_ts, 9000);
	cr_assert(s->s.flags & LT_SPAN_UNFINISHED);
	cr_assert_not(s->s.flags & LT_SPAN_HAS_RESULT);
	cr_assert_eq(R.locks[R.nlocks - 1].waiters, 0);
	cr_assert_eq(R.locks[R.nlocks - 1].ts, 9000);
	/* end 0: the last event's time */
	tl = open_tl(2);
	feed(tl, v, 2);
	lt_timeline_finish(tl, 0);
	cr_assert_eq(ended_on(101, 0)->s.end_ts, 1010);
	lt_timeline_free(tl);
}

/* A header saying thread 101 was blocked in futex(ADDR_A, FUTEX_WAIT_PRIVATE,
 * 2) for 5 s and 102 was running. */
static struct lt_header blocked_hdr(uint64_t attach)
{
	struct lt_header h = make_hdr(2, attach);
	hthreads[0].sc_nr = 202;
	hthreads[0].sc_args[0] = ADDR_A;
	hthreads[0].sc_args[1] = FUTEX_WAIT_PRIVATE;
	hthreads[0].sc_args[2] = 2;
	hthreads[0].blocked_ns = 5000000000ull;
	return h;
}

Test(timeline, blocked_at_start_then_woken)
{
	struct lt_header h = blocked_hdr(1000);
	struct lt_timeline *tl = restart(&h, NULL);
	cr_assert_eq(R.nthreads, 2);
	cr_assert(R.threads[0].t.from_header);
	cr_assert_str_eq(R.threads[0].name, "t101");
	cr_assert_eq(R.nbegun, 0); /* not before the model's time passes attach */
	struct lt_event v[] = {
		sw(900, 1, 102, PID, 0, 102, PID), /* before attach: starts the trace */
		futex(2000, 102, 1, FUTEX_WAKE_PRIVATE, ADDR_A, 1),
		waking(2100, 101, 1, 102, PID, 0),
		sys_exit(2200, 102, 1, 202, 1),
		sw(2300, 0, 0, 0, 0, 101, PID),
		/* no return recorded for the call blocked at attach */
		futex(2500, 101, 0, FUTEX_WAKE_PRIVATE, ADDR_B, 1),
		sys_exit(2600, 101, 0, 202, 0),
	};
	play(tl, v, sizeof(v) / sizeof(v[0]), 3000);
	cr_assert_eq(lt_timeline_start(tl), 900);
	/* said once, before anything of the first event */
	cr_assert_eq(R.nstart, 1);
	cr_assert_eq(R.start, 900);
	cr_assert_eq(R.sched_before_start, 0);
	cr_assert_eq(R.begun_before_start, 0);
	const struct span_rec *s = ended_on(101, 0);
	cr_assert(s->s.flags & LT_SPAN_AT_START);
	cr_assert(s->s.flags & LT_SPAN_END_INFERRED);
	cr_assert_eq(s->s.begin_ts, 900);
	cr_assert_eq(s->s.end_ts, 2300); /* when it ran again */
	cr_assert_eq(s->s.blocked_before_ns, 5000000000ull);
	cr_assert_eq(s->s.enter.futex.uaddr, ADDR_A);
	cr_assert_eq(s->s.enter.futex.val, 2);
	cr_assert_str_eq(lt_span_name(&s->s), "FUTEX_WAIT");
	cr_assert_eq(s->s.nwoken_by, 1);
	cr_assert_eq(s->woken_by[0].waker_span, ended_on(102, 0)->s.id);
	cr_assert_eq(ended_on(102, 0)->s.nwoke, 1);
	/* and it counted as a waiter on A from the start */
	cr_assert_eq(R.locks[0].ts, 900);
	cr_assert_eq(R.locks[0].addr, ADDR_A);
	cr_assert_eq(R.locks[0].waiters, 1);
	lt_timeline_free(tl);
}

Test(timeline, blocked_at_start_whole_trace)
{
	struct lt_header h = blocked_hdr(1000);
	struct lt_timeline *tl = restart(&h, NULL);
	struct lt_event v[] = { sw(1500, 1, 102, PID, 1, 0, 0) };
	feed(tl, v, 1);
	lt_timeline_finish(tl, 8000);
	const struct span_rec *s = ended_on(101, 0);
	cr_assert(s);
	cr_assert_eq(s->s.flags & (LT_SPAN_AT_START | LT_SPAN_UNFINISHED),
		     LT_SPAN_AT_START | LT_SPAN_UNFINISHED);
	cr_assert_eq(s->s.begin_ts, 1000);
	cr_assert_eq(s->s.end_ts, 8000);
	cr_assert_eq(R.nstart, 1);
	cr_assert_eq(R.start, 1000); /* the attach came first */
	lt_timeline_free(tl);

	/* no events at all: still shown, from attach to the end */
	tl = restart(&h, NULL);
	cr_assert_eq(R.nstart, 0);
	lt_timeline_finish(tl, 4000);
	cr_assert_eq(R.nstart, 1);
	cr_assert_eq(R.start, 1000);
	cr_assert_eq(R.nended, 1);
	cr_assert_eq(R.ended[0].s.begin_ts, 1000);
	cr_assert_eq(R.ended[0].s.end_ts, 4000);
	lt_timeline_free(tl);
}

Test(timeline, launched_target_gate_is_not_a_call)
{
	/* `locktrace -- CMD` holds the child in a read of its gate pipe until
	 * the probes are attached: that read is locktrace's, not the program's */
	struct lt_header h = make_hdr(1, 1000);
	h.flags = LT_HDR_LAUNCHED;
	hthreads[0].sc_nr = 0; /* read(3, ...) */
	hthreads[0].sc_args[0] = 3;
	struct lt_timeline *tl = restart(&h, NULL);
	struct lt_event v[] = { sw(1500, 0, 0, 0, 0, 101, PID) };
	feed(tl, v, 1);
	lt_timeline_finish(tl, 2000);
	cr_assert_eq(R.nended, 0);
	lt_timeline_free(tl);

	/* attached by pid, the same read is shown */
	h.flags = 0;
	tl = restart(&h, NULL);
	feed(tl, v, 1);
	lt_timeline_finish(tl, 2000);
	cr_assert_eq(R.nended, 1);
	cr_assert_str_eq(lt_span_name(&R.ended[0].s), "read");
	cr_assert_eq(R.ended[0].s.enter.io.fd, 3);
	cr_assert_eq(R.ended[0].s.end_ts, 1500);
	lt_timeline_free(tl);
}

Test(timeline, snapshot_message_call_bytes_are_not_its_flags)
{
	/* 101 sleeps in recvmsg(3, msg, MSG_WAITALL) at attach: its third
	 * argument is flags, the bytes are in the message's iovecs, which
	 * the snapshot did not read; 102 in read(4, buf, 512) */
	struct lt_header h = make_hdr(2, 1000);
	hthreads[0].sc_nr = 47;
	hthreads[0].sc_args[0] = 3;
	hthreads[0].sc_args[2] = 0x100;
	hthreads[1].sc_nr = 0;
	hthreads[1].sc_args[0] = 4;
	hthreads[1].sc_args[2] = 512;
	struct lt_timeline *tl = restart(&h, NULL);
	lt_timeline_finish(tl, 2000);
	cr_assert_eq(R.nended, 2);
	for (int i = 0; i < 2; i++) {
		const struct lt_span *s = &R.ended[i].s;
		if (s->tid == 101)
			cr_assert_eq(s->enter.io.count, LT_IO_COUNT_UNKNOWN, "recvmsg: %llu bytes",
				     (unsigned long long)s->enter.io.count);
		else
			cr_assert_eq(s->enter.io.count, 512);
	}
	lt_timeline_free(tl);
}

Test(timeline, entry_recorded_before_snapshot_replaces_it)
{
	/* the collector attaches, then reads /proc: 101 entered its wait at
	 * 950, before the snapshot at 1000 saw it there */
	struct lt_header h = blocked_hdr(1000);
	struct lt_timeline *tl = restart(&h, NULL);
	struct lt_event v[] = {
		WAITS(950, 101, 0, FUTEX_WAIT_PRIVATE, ADDR_A, 2),
		sw(1500, 0, 0, 0, 0, 101, PID),
		sys_exit(1600, 101, 0, 202, 0),
	};
	play(tl, v, sizeof(v) / sizeof(v[0]), 3000);
	cr_assert_eq(R.nended, 1);
	cr_assert_eq(R.ended[0].s.begin_ts, 950);
	cr_assert_eq(R.ended[0].s.end_ts, 1600);
	cr_assert_eq(R.ended[0].s.flags & (LT_SPAN_AT_START | LT_SPAN_END_INFERRED), 0);
	lt_timeline_free(tl);
}

Test(timeline, lost_records)
{
	struct lt_timeline *tl = open_tl(2);
	struct lt_event lost = hdr_ev(1200, 0, 1, LT_EV_LOST);
	lost.lost.count = 37;
	lost.lost.lost_kind = LT_EV_SYS_EXIT;
	struct lt_event v[] = {
		WAITS(1000, 101, 0, FUTEX_WAIT_PRIVATE, ADDR_A, 2),
		lost,
		sw(1500, 0, 0, 0, 0, 101, PID),
		/* the return of the wait was lost; the next call proves it ended */
		futex(1600, 101, 0, FUTEX_WAKE_PRIVATE, ADDR_B, 1),
		sys_exit(1700, 101, 0, 202, 0),
		/* a return whose entry was lost */
		sys_exit(1800, 102, 1, 202, 0),
		/* a wake call whose return was lost ends where it began */
		futex(1900, 101, 0, FUTEX_WAKE_PRIVATE, ADDR_B, 1),
		futex(2500, 101, 0, FUTEX_WAKE_PRIVATE, ADDR_B, 1),
		sys_exit(2600, 101, 0, 202, 0),
	};
	play(tl, v, sizeof(v) / sizeof(v[0]), 3000);
	cr_assert_eq(R.nlost, 1);
	cr_assert_eq(R.lost, 37);
	cr_assert_eq(lt_timeline_stats(tl)->lost, 37);
	cr_assert_eq(lt_timeline_stats(tl)->orphan_exits, 1);
	const struct span_rec *s = ended_on(101, 0);
	cr_assert(s->s.flags & LT_SPAN_END_INFERRED);
	cr_assert_eq(s->s.end_ts, 1500);
	cr_assert_not(s->s.flags & LT_SPAN_HAS_RESULT);
	s = ended_on(101, 1);
	cr_assert_eq(s->s.end_ts, 1700);
	cr_assert_not(s->s.flags & LT_SPAN_END_INFERRED);
	s = ended_on(101, 2);
	cr_assert(s->s.flags & LT_SPAN_END_INFERRED);
	cr_assert_eq(s->s.begin_ts, 1900);
	cr_assert_eq(s->s.end_ts, 1900);
	cr_assert_eq(lt_timeline_stats(tl)->inferred_ends, 2);
	/* spans on one thread never overlap */
	for (int i = 1; ended_on(101, i); i++)
		cr_assert_geq(ended_on(101, i)->s.begin_ts, ended_on(101, i - 1)->s.end_ts);
	lt_timeline_free(tl);
}

Test(timeline, thread_exit_ends_its_call)
{
	struct lt_timeline *tl = open_tl(2);
	struct lt_event ex = hdr_ev(2000, 101, 0, LT_EV_TASK_EXIT);
	struct lt_event v[] = {
		WAITS(1000, 101, 0, FUTEX_WAIT_PRIVATE, ADDR_A, 2),
		sw(1900, 0, 0, 0, 0, 101, PID),
		ex,
		sw(2100, 0, 101, PID, 0x80, 0, 0),
	};
	play(tl, v, sizeof(v) / sizeof(v[0]), 3000);
	const struct span_rec *s = ended_on(101, 0);
	cr_assert_eq(s->s.end_ts, 2000);
	cr_assert(s->s.flags & LT_SPAN_THREAD_EXIT);
	cr_assert_null(lt_timeline_open_span(tl, 101));
	int exits = 0;
	for (int i = 0; i < R.nthreads; i++)
		exits += R.threads[i].t.change == LT_THREAD_EXIT && R.threads[i].t.tid == 101;
	cr_assert_eq(exits, 1);
	lt_timeline_free(tl);
}

Test(timeline, thread_names)
{
	struct lt_timeline *tl = open_tl(1);
	struct lt_event tn = task_new(1000, 102, 101, "worker");
	struct lt_event rn = hdr_ev(1100, 102, 0, LT_EV_RENAME);
	snprintf(rn.ren.oldcomm, LT_COMM_LEN, "worker");
	/* a name can hold anything, up to 15 bytes */
	memcpy(rn.ren.newcomm, "io\"\\\n\x01\xff-pool-12345", 15);
	struct lt_event v[] = {
		tn, rn,
		/* 103 appears first in a call: a placeholder until a switch
		 * names it */
		futex(1200, 103, 1, FUTEX_WAKE_PRIVATE, ADDR_A, 1),
		sys_exit(1250, 103, 1, 202, 0),
		sw(1300, 1, 103, PID, 1, 0, 0),
	};
	play(tl, v, sizeof(v) / sizeof(v[0]), 3000);
	/* 101 from the header, 102 new, renamed; 103 new, then named */
	cr_assert_eq(R.nthreads, 5);
	cr_assert_eq(R.threads[0].t.change, LT_THREAD_NEW);
	cr_assert_str_eq(R.threads[0].name, "t101");
	cr_assert_eq(R.threads[1].t.change, LT_THREAD_NEW);
	cr_assert_str_eq(R.threads[1].name, "worker");
	cr_assert_eq(R.threads[1].ev_kind, LT_EV_TASK_NEW);
	cr_assert_eq(R.threads[2].t.change, LT_THREAD_RENAME);
	cr_assert_eq(memcmp(R.threads[2].name, "io\"\\\n\x01\xff-pool-12345", 15), 0);
	cr_assert_str_eq(R.threads[2].old, "worker");
	cr_assert_eq(R.threads[3].t.change, LT_THREAD_NEW);
	cr_assert_str_eq(R.threads[3].name, "thread 103");
	cr_assert_eq(R.threads[4].t.change, LT_THREAD_RENAME);
	cr_assert_str_eq(R.threads[4].name, "c103");
	/* uids are distinct and stable */
	cr_assert_neq(R.threads[0].t.uid, R.threads[1].t.uid);
	cr_assert_eq(R.threads[1].t.uid, R.threads[2].t.uid);
	lt_timeline_free(tl);
}

Test(timeline, u64map_survives_churn)
{
	/* threads come and go: deletions must keep every probe run intact */
	struct lt_u64map m = { 0 };
	static uint8_t live[20000];
	uint64_t x = 12345;
	for (int round = 0; round < 200000; round++) {
		x ^= x << 13;
		x ^= x >> 7;
		x ^= x << 17;
		uint64_t k = 1 + x % 20000;
		if (live[k - 1]) {
			lt_u64map_del(&m, k);
			live[k - 1] = 0;
		} else {
			cr_assert_eq(lt_u64map_put(&m, k, (void *)(uintptr_t)(k * 3)), 0);
			live[k - 1] = 1;
		}
		if (round % 9973 == 0)
			for (uint64_t j = 1; j <= 20000; j++)
				cr_assert_eq((uintptr_t)lt_u64map_get(&m, j), live[j - 1] ? j * 3 : 0,
					     "key %llu after %d rounds", (unsigned long long)j, round);
	}
	size_t n = 0;
	for (int j = 0; j < 20000; j++)
		n += live[j];
	cr_assert_eq(m.n, n);
	lt_u64map_free(&m);
}

/* ---- switches not in the trace ---------------------------------------
 * Kernels do not report every switch (none whose previous task is a thread
 * of PID 1 in a Firecracker VM, whatever comes next), and lost events drop
 * some: a thread that left a cpu may next be seen acting with no switch-in
 * between.  The timeline makes that switch-in at its first own event. */

/* The inferred switch-ins the sink saw, in order; *n their number. */
static const struct lt_event *unseen_in(int k)
{
	for (int i = 0; i < R.nsched && i < MAXREC; i++)
		if (R.sched[i].h.kind == LT_EV_SWITCH && (R.sched[i].h.flags & LT_SW_INFERRED) && k-- == 0)
			return &R.sched[i];
	return NULL;
}

Test(timeline, a_missing_switch_in_is_placed_at_the_threads_next_event)
{
	struct lt_timeline *tl = open_tl(2);
	struct lt_event v[] = {
		WAITS(1000, 101, 0, FUTEX_WAIT_PRIVATE, ADDR_A, 2),
		futex(2000, 102, 1, FUTEX_WAKE_PRIVATE, ADDR_A, 1),
		waking(2100, 101, 1, 102, PID, 0),
		sys_exit(2200, 102, 1, 202, 1),
		/* the switch that ran 101 again (from a thread of PID 1) is
		 * missing; its return is recorded */
		sys_exit(2400, 101, 0, 202, 0),
		/* a wake that never sleeps, preempted on the way out */
		futex(2500, 101, 0, FUTEX_WAKE_PRIVATE, ADDR_B, 1),
		sys_exit(2600, 101, 0, 202, 0),
		sw(2700, 0, 101, PID, 0, 102, PID),
	};
	v[7].h.flags = LT_F_PREEMPT;
	play(tl, v, sizeof(v) / sizeof(v[0]), 3000);
	cr_assert_eq(lt_timeline_stats(tl)->unseen_switches, 1);
	const struct lt_event *in = unseen_in(0);
	cr_assert(in);
	cr_assert_null(unseen_in(1));
	cr_assert_eq(in->h.ts, 2400);
	cr_assert_eq(in->h.cpu, 0);
	cr_assert_eq(in->sw.next_tid, 101);
	cr_assert_eq(in->sw.next_tgid, PID);
	cr_assert_eq(in->sw.prev_tid, 0, "who left the cpu is not known");
	cr_assert_eq(in->sw.prev_tgid, 0);
	cr_assert_str_eq(in->sw.next_comm, "t101");
	cr_assert_not(R.sched_out_of_order);
	/* the wait slept; the wake after it did not */
	cr_assert(ended_on(101, 0)->s.flags & LT_SPAN_SLEPT);
	cr_assert_eq(ended_on(101, 0)->s.end_ts, 2400);
	cr_assert_not(ended_on(101, 1)->s.flags & LT_SPAN_SLEPT,
		      "a call made after the thread ran again did not sleep");
	lt_timeline_free(tl);
	/* a switch-in that is in the trace needs nothing */
	tl = open_tl(2);
	play(tl, handoff, sizeof(handoff) / sizeof(handoff[0]), 3000);
	cr_assert_eq(lt_timeline_stats(tl)->unseen_switches, 0);
	cr_assert_null(unseen_in(0));
	lt_timeline_free(tl);
}

Test(timeline, a_call_whose_return_and_switch_in_are_missing_ends_at_the_first_sign_of_life)
{
	struct lt_timeline *tl = open_tl(3);
	struct lt_event v[] = {
		WAITS(1000, 101, 0, FUTEX_WAIT_PRIVATE, ADDR_A, 2),
		futex(2000, 102, 1, FUTEX_WAKE_PRIVATE, ADDR_A, 1),
		waking(2100, 101, 1, 102, PID, 0),
		sys_exit(2200, 102, 1, 202, 1),
		/* neither the switch that ran 101 again nor its return is in
		 * the trace; it wakes 103 from outside a traced call (a signal) */
		waking(2300, 103, 0, 101, PID, 0),
		/* an interrupt on its cpu proves nothing of 102, asleep */
		WAITS(2400, 102, 1, FUTEX_WAIT_PRIVATE, ADDR_B, 2),
		waking(2500, 103, 1, 102, PID, LT_F_WAKER_IRQ),
		futex(2800, 101, 0, FUTEX_WAKE_PRIVATE, ADDR_B, 1),
	};
	play(tl, v, sizeof(v) / sizeof(v[0]), 3000);
	const struct span_rec *s = ended_on(101, 0);
	cr_assert(s->s.flags & LT_SPAN_END_INFERRED);
	cr_assert(s->s.flags & LT_SPAN_SLEPT);
	cr_assert_eq(s->s.end_ts, 2300, "it ran by its wake-up at 2300, not only by its next call");
	cr_assert_eq(lt_timeline_stats(tl)->unseen_switches, 1);
	cr_assert_eq(unseen_in(0)->h.ts, 2300);
	cr_assert_eq(unseen_in(0)->sw.next_tid, 101);
	/* 102 is still asleep: its wait runs to the end */
	cr_assert(ended_on(102, 1)->s.flags & LT_SPAN_UNFINISHED);
	lt_timeline_free(tl);
}

Test(timeline, blocked_at_start_and_run_without_a_switch_in_is_not_unfinished)
{
	struct lt_header h = blocked_hdr(1000);
	struct lt_timeline *tl = restart(&h, NULL);
	struct lt_event v[] = {
		sw(900, 1, 102, PID, 0, 102, PID),
		/* before attach: a wake-up 101 issues proves nothing, it may
		 * have fallen asleep in the call the header saw after it */
		waking(950, 102, 0, 101, PID, 0),
		futex(2000, 102, 1, FUTEX_WAKE_PRIVATE, ADDR_A, 1),
		waking(2100, 101, 1, 102, PID, 0),
		sys_exit(2200, 102, 1, 202, 1),
		/* 101's switch-in is missing; it is preempted at 2600 */
		sw(2600, 0, 101, PID, 0, 0, 0),
	};
	v[5].h.flags = LT_F_PREEMPT;
	play(tl, v, sizeof(v) / sizeof(v[0]), 3000);
	const struct span_rec *s = ended_on(101, 0);
	cr_assert(s->s.flags & LT_SPAN_AT_START);
	cr_assert_not(s->s.flags & LT_SPAN_UNFINISHED, "the thread ran: it is no longer blocked");
	cr_assert(s->s.flags & LT_SPAN_END_INFERRED);
	cr_assert_eq(s->s.end_ts, 2600);
	cr_assert_eq(lt_timeline_stats(tl)->unseen_switches, 1);
	/* placed before the switch-out it stands in for */
	int k = 0;
	while (k < R.nsched && !(R.sched[k].h.flags & LT_SW_INFERRED))
		k++;
	cr_assert_lt(k + 1, R.nsched);
	cr_assert_eq(R.sched[k + 1].h.ts, 2600);
	cr_assert_eq(R.sched[k + 1].sw.prev_tid, 101);
	lt_timeline_free(tl);
}

Test(timeline, calls_blocking_a_missing_switch_in_too)
{
	/* --calls blocking writes a return when the thread runs again: just
	 * after its switch-in, or, that missing, just before the event that
	 * shows it ran (src/trace/callnorm.c) */
	struct lt_timeline *tl = open_tl(2);
	struct lt_event v[] = {
		futex(1000, 101, 0, FUTEX_WAIT_PRIVATE, ADDR_A, 2),
		sw(1000, 0, 101, PID, 1, 0, 0),
		sw(2300, 0, 0, 0, 0, 101, PID),
		sys_exit(2300, 101, 0, 202, 0),
		/* its next sleep; the switch-in after it is missing, and so the
		 * normalizer put the return at the thread's next event */
		futex(2400, 101, 0, FUTEX_WAIT_PRIVATE, ADDR_A, 2),
		sw(2400, 0, 101, PID, 1, 0, 0),
		sys_exit(2800, 101, 1, 202, 0),
		futex(2800, 101, 1, FUTEX_WAKE_PRIVATE, ADDR_A, 1),
	};
	v[0].h.flags = v[4].h.flags = LT_F_AT_SLEEP;
	v[3].h.flags = v[6].h.flags = LT_F_RET_UNKNOWN;
	v[7].h.flags = LT_F_AT_WAKE;
	play(tl, v, sizeof(v) / sizeof(v[0]), 3000);
	cr_assert_eq(lt_timeline_stats(tl)->unseen_switches, 1);
	cr_assert_eq(unseen_in(0)->h.ts, 2800);
	cr_assert_eq(unseen_in(0)->h.cpu, 1);
	cr_assert_eq(ended_on(101, 1)->s.end_ts, 2800);
	cr_assert_not(ended_on(101, 2)->s.flags & LT_SPAN_SLEPT);
	lt_timeline_free(tl);
}

Test(timeline, execve_is_a_sign_of_life_of_the_thread_that_called_it)
{
	struct lt_timeline *tl = open_tl(2);
	struct lt_event x = hdr_ev(2000, 101, 0, LT_EV_EXEC);
	x.exec.old_tid = 101;
	snprintf(x.exec.comm, LT_COMM_LEN, "new");
	struct lt_event v[] = { sw(1000, 0, 101, PID, 1, 0, 0), x };
	play(tl, v, 2, 3000);
	cr_assert_eq(lt_timeline_stats(tl)->unseen_switches, 1);
	cr_assert_eq(unseen_in(0)->h.ts, 2000);
	lt_timeline_free(tl);

	/* 102 calls execve and takes the leader's id: what runs as 101 then
	 * is 102, on its cpu, whatever the leader's last switch said */
	tl = open_tl(2);
	x.exec.old_tid = 102;
	x.h.cpu = 1;
	struct lt_event w[] = {
		sw(1000, 0, 101, PID, 1, 0, 0), sw(1500, 1, 0, 0, 0, 102, PID), x,
		futex(2100, 101, 1, FUTEX_WAKE_PRIVATE, ADDR_A, 1),
	};
	play(tl, w, 4, 3000);
	cr_assert_eq(lt_timeline_stats(tl)->unseen_switches, 0);
	lt_timeline_free(tl);
}

Test(timeline, a_clone_or_an_exit_is_a_sign_of_life)
{
	struct lt_timeline *tl = open_tl(2);
	struct lt_event c = task_new(2000, 103, 101, "t103");
	struct lt_event x = hdr_ev(2500, 102, 1, LT_EV_TASK_EXIT);
	struct lt_event v[] = {
		sw(1000, 0, 101, PID, 1, 0, 0), WAITS(1100, 102, 1, FUTEX_WAIT_PRIVATE, ADDR_A, 2),
		waking(1500, 101, 1, 0, 0, LT_F_WAKER_IDLE), waking(1600, 102, 1, 0, 0, LT_F_WAKER_IDLE),
		/* neither switch-in is in the trace: 101 clones, 102 exits */
		c, x,
	};
	play(tl, v, sizeof(v) / sizeof(v[0]), 3000);
	cr_assert_eq(lt_timeline_stats(tl)->unseen_switches, 2);
	cr_assert_eq(unseen_in(0)->sw.next_tid, 101);
	cr_assert_eq(unseen_in(0)->h.ts, 2000);
	cr_assert_eq(unseen_in(1)->sw.next_tid, 102);
	cr_assert_eq(unseen_in(1)->h.ts, 2500);
	lt_timeline_free(tl);
}
