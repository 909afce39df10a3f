/* Unit tests of `locktrace report` on synthetic traces with known answers:
 * each rule (holder blocked in I/O, lost wake-ups of three kinds, deadlock
 * from snapshot owners and from events, convoy, holder preempted, stall,
 * waiters nobody wakes), the tables (wait quantiles, thread times, wake
 * edges, losses), JSON output and escaping, and reading files (not a trace,
 * cut short).  No root needed. */
#include <criterion/criterion.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>
#include "report.h"
#include "lt_events.h"
#include "lt_test.h"
#include "timeline.h"
#include "report_int.h"

#define PID 500
#define BASE 100000000000ull /* 100 s after boot: the attach */
#define US 1000ull
#define MS 1000000ull
#define SEC 1000000000ull

#define FUTEX_WAIT_PRIVATE 0x80
#define FUTEX_WAKE_PRIVATE 0x81
#define COND_WAIT 0x189 /* FUTEX_WAIT_BITSET|PRIVATE|CLOCK_REALTIME, as glibc's condvar */
#define NR_read 0
#define NR_pselect6 270
#define NR_futex 202

static struct lt_header H;
static struct lt_thread_info TI[32];
static struct lt_report *R;

/* threads of the process at attach, not in a syscall */
static void header(int n, const uint32_t *tids)
{
	/* monotonic = boottime: snapshot times read as boottime */
	tl_header(&H, TI, sizeof(TI) / sizeof(TI[0]), PID, BASE, n, tids);
	snprintf(H.exe, sizeof(H.exe), "/usr/bin/app");
	H.clock_realtime = 1700000000ull * SEC;
}

/* thread i was blocked at attach in futex(addr, op, val) for blocked_ns */
static void blocked_at_attach(int i, uint64_t addr, uint32_t op, uint32_t val, uint64_t blocked_ns)
{
	TI[i].sc_nr = NR_futex;
	TI[i].sc_args[0] = addr;
	TI[i].sc_args[1] = op;
	TI[i].sc_args[2] = val;
	TI[i].sc_args[5] = 0xffffffff;
	TI[i].blocked_ns = blocked_ns;
}

static void start_opts(const struct lt_report_opts *o)
{
	R = lt_report_new(&H, o);
	cr_assert_not_null(R);
}

static void start(void)
{
	start_opts(NULL);
}

static struct lt_event mk(uint8_t kind, uint64_t ts, uint32_t tid)
{
	return lt_ev(ts, tid, 0, kind);
}

static void feed(const struct lt_event *e)
{
	cr_assert_eq(lt_report_event(R, e), 0);
}

static void futex(uint64_t ts, uint32_t tid, uint32_t op, uint64_t addr, uint32_t val)
{
	struct lt_event e = mk(LT_EV_FUTEX_ENTER, ts, tid);
	e.futex.nr = NR_futex;
	e.futex.op = op;
	e.futex.uaddr = addr;
	e.futex.val = val;
	e.futex.timeout = -1;
	e.futex.val3 = 0xffffffff;
	feed(&e);
}

static void sys_exit(uint64_t ts, uint32_t tid, uint16_t nr, int64_t ret)
{
	struct lt_event e = mk(LT_EV_SYS_EXIT, ts, tid);
	e.exit.nr = nr;
	e.exit.ret = ret;
	feed(&e);
}

/* a read or write of a socket, or with LT_F_IO_PIPE of a pipe or FIFO */
static void io_flagged(uint64_t ts, uint32_t tid, uint16_t nr, int fd, uint8_t flags)
{
	struct lt_event e = mk(LT_EV_IO_ENTER, ts, tid);
	e.h.flags = flags;
	e.io.nr = nr;
	e.io.fd = fd;
	e.io.count = 4096;
	feed(&e);
}

static void io(uint64_t ts, uint32_t tid, uint16_t nr, int fd)
{
	io_flagged(ts, tid, nr, fd, 0);
}

static void sel(uint64_t ts, uint32_t tid, int fd)
{
	struct lt_event e = mk(LT_EV_WAIT_ENTER, ts, tid);
	e.wait.nr = NR_pselect6;
	e.wait.nfds = (uint32_t)fd + 1;
	e.wait.timeout_ns = -1;
	e.wait.fds[0] = fd;
	e.wait.fds[1] = e.wait.fds[2] = e.wait.fds[3] = -1;
	feed(&e);
}

/* tid leaves its cpu: asleep (state 1) or preempted */
static void off(uint64_t ts, uint32_t tid, int preempt)
{
	struct lt_event e = mk(LT_EV_SWITCH, ts, tid);
	e.sw.prev_tid = tid;
	e.sw.prev_tgid = PID;
	e.sw.prev_state = preempt ? 0 : 1;
	if (preempt)
		e.h.flags = LT_F_PREEMPT;
	e.sw.next_tid = 0;
	e.sw.next_tgid = 0;
	feed(&e);
}

static void on(uint64_t ts, uint32_t tid)
{
	struct lt_event e = mk(LT_EV_SWITCH, ts, 0);
	e.sw.prev_tid = 0;
	e.sw.prev_tgid = 0;
	e.sw.next_tid = tid;
	e.sw.next_tgid = PID;
	feed(&e);
}

static void waking(uint64_t ts, uint32_t wakee, uint32_t waker)
{
	struct lt_event e = mk(LT_EV_WAKING, ts, wakee);
	e.wake.waker_tid = waker;
	e.wake.waker_tgid = PID;
	snprintf(e.wake.waker_comm, sizeof(e.wake.waker_comm), "t%u", waker);
	feed(&e);
}

/* waiter sleeps in a wait on addr at ts */
static void wait_sleep(uint64_t ts, uint32_t tid, uint32_t op, uint64_t addr, uint32_t val)
{
	futex(ts, tid, op, addr, val);
	off(ts + 2 * US, tid, 0);
}

/* waker wakes wakee (asleep on addr) at ts; the wakee returns 0 */
static void handoff(uint64_t ts, uint32_t waker, uint32_t wakee, uint64_t addr)
{
	futex(ts, waker, FUTEX_WAKE_PRIVATE, addr, 1);
	waking(ts + 1 * US, wakee, waker);
	sys_exit(ts + 2 * US, waker, NR_futex, 1);
	on(ts + 5 * US, wakee);
	sys_exit(ts + 6 * US, wakee, NR_futex, 0);
}

static void finish(uint64_t end)
{
	struct lt_stats s;
	memset(&s, 0, sizeof(s));
	s.start_ns = BASE;
	s.end_ns = end;
	s.stop_reason = LT_STOP_SIGNAL;
	lt_report_stats(R, &s);
	lt_report_reader_end(R, 1, "", 0);
	cr_assert_eq(lt_report_finish(R), 0);
}

static void done(void)
{
	lt_report_free(R);
	R = NULL;
}

static const struct lt_report_finding *find(enum lt_finding_kind k, const char *rule)
{
	for (size_t i = 0; i < R->n_findings; i++)
		if (R->findings[i].kind == k && (!rule || !strcmp(R->findings[i].rule, rule)))
			return &R->findings[i];
	return NULL;
}

static int has_tid(const struct lt_report_finding *f, uint32_t tid)
{
	return TL_HAS(f->tids, f->n_tids, tid);
}

static int has_lock(const struct lt_report_finding *f, uint64_t a)
{
	return TL_HAS(f->locks, f->n_locks, a);
}

static const struct lt_report_lock *lock_at(uint64_t addr)
{
	for (size_t i = 0; i < R->n_locks; i++)
		for (unsigned k = 0; k < R->locks[i].n_words; k++)
			if (R->locks[i].words[k] == addr)
				return &R->locks[i];
	return NULL;
}

static const struct lt_report_thread *thread(uint32_t tid)
{
	for (size_t i = 0; i < R->n_threads; i++)
		if (R->threads[i].tid == tid)
			return &R->threads[i];
	return NULL;
}

static void dump_findings(void)
{
	for (size_t i = 0; i < R->n_findings; i++) {
		fprintf(stderr, "finding %s/%s: %s\n", lt_finding_kind_name(R->findings[i].kind),
			R->findings[i].rule, R->findings[i].summary);
		for (size_t k = 0; k < R->findings[i].n_evidence; k++)
			fprintf(stderr, "   - %s\n", R->findings[i].evidence[k]);
	}
}

/* The finding of kind K (and RULE, unless NULL), which must be there (the
 * findings shown if not). */
static const struct lt_report_finding *must_find(enum lt_finding_kind k, const char *rule)
{
	const struct lt_report_finding *f = find(k, rule);
	if (!f)
		dump_findings();
	cr_assert_not_null(f, "no %s/%s finding", lt_finding_kind_name(k), rule ? rule : "*");
	return f;
}

/* The count and the array of the tids listed, for header(). */
#define TIDS(...) \
	(int)(sizeof((const uint32_t[]){ __VA_ARGS__ }) / sizeof(uint32_t)), (const uint32_t[]){ __VA_ARGS__ }

/* header() and start() for these threads; the time of the first event. */
static uint64_t begin(int n, const uint32_t *tids)
{
	header(n, tids);
	start();
	return BASE + 10 * MS;
}

#define G0 0x5600000011b0ull /* a condition variable's g_signals[0] */
#define G1 0x5600000011b4ull /* and [1] */
#define L1 0x5600000011c0ull
#define L2 0x560000001180ull

/* ---- holder blocked in I/O ------------------------------------------ */

/* The demo's --stall io, in small: A takes the runtime lock (its condvar
 * wait returns after B's signal) and blocks in a socket read; B and C wait
 * on the condition variable's two words; nobody wakes them. */
Test(report, holder_blocked_in_io_is_named_with_its_fd_and_the_condvar_words)
{
	uint64_t t = begin(TIDS(PID, 501, 502, 503));
	wait_sleep(t, 501, COND_WAIT, G0, 0);
	handoff(t + 1 * MS, 502, 501, G0); /* 501 takes it */
	wait_sleep(t + 2 * MS, 502, COND_WAIT, G1, 0);
	wait_sleep(t + 3 * MS, 503, COND_WAIT, G0, 0);
	io(t + 4 * MS, 501, NR_read, 7);
	off(t + 4 * MS + 10 * US, 501, 0);
	finish(t + 3 * SEC);

	const struct lt_report_finding *f = must_find(LT_FIND_HOLDER_BLOCKED, "io");
	cr_assert_eq(f->holder, 501);
	cr_assert_eq(f->fd, 7);
	cr_assert(has_lock(f, G0) && has_lock(f, G1), "the condvar's two words are one lock");
	cr_assert(has_tid(f, 502) && has_tid(f, 503));
	cr_assert_eq(f->since, t + 4 * MS, "since the read began");
	cr_assert(strstr(f->summary, "read(socket fd 7"), "%s", f->summary);
	cr_assert(strstr(f->summary, "2 threads wait"), "%s", f->summary);
	/* the lock's table row: both words, a condvar, held by 501 */
	const struct lt_report_lock *l = lock_at(G1);
	cr_assert_not_null(l);
	cr_assert_eq(l->n_words, 2);
	cr_assert_str_eq(l->kind, "condvar");
	cr_assert_eq(l->holder, 501);
	cr_assert_eq(l->open_at_end, 2);
	cr_assert_eq(l->last_waker, 502);
	cr_assert_eq(l->last_wakee, 501);
	/* and a stall: nothing moved for ~3 s */
	cr_assert_not_null(find(LT_FIND_STALL, NULL));
	done();
}

/* The same holder blocked reading a pipe (a recorded read flagged
 * LT_F_IO_PIPE): the call says so, the thread's time is pipe I/O, not
 * socket I/O, and the stall counts it among the pipe readers. */
Test(report, holder_blocked_reading_a_pipe_says_pipe)
{
	uint64_t t = begin(TIDS(PID, 501, 502, 503));
	wait_sleep(t, 501, COND_WAIT, G0, 0);
	handoff(t + 1 * MS, 502, 501, G0);
	wait_sleep(t + 2 * MS, 502, COND_WAIT, G1, 0);
	wait_sleep(t + 3 * MS, 503, COND_WAIT, G0, 0);
	io_flagged(t + 4 * MS, 501, NR_read, 7, LT_F_IO_PIPE);
	off(t + 4 * MS + 10 * US, 501, 0);
	finish(t + 3 * SEC);

	const struct lt_report_finding *f = must_find(LT_FIND_HOLDER_BLOCKED, "io");
	cr_assert_eq(f->holder, 501);
	cr_assert(strstr(f->summary, "read(pipe fd 7, 4096)"), "%s", f->summary);
	const struct lt_report_thread *th = thread(501);
	cr_assert_not_null(th);
	cr_assert_eq(th->pipe_reads, 1);
	cr_assert_eq(th->io_reads, 0);
	cr_assert_eq(th->io_ns, 0);
	cr_assert_eq(th->pipe_ns, t + 3 * SEC - (t + 4 * MS + 10 * US), "asleep in the read from its switch out");
	const struct lt_report_finding *st = find(LT_FIND_STALL, NULL);
	cr_assert_not_null(st);
	cr_assert(strstr(st->summary, "0 in socket I/O, 1 in pipe I/O"), "%s", st->summary);
	done();
}

/* glibc's sem_wait sleeps as pthread_cond_wait does (FUTEX_WAIT_BITSET,
 * match-any, expecting 0): a Python 3.11 threading.Lock held across a
 * read.  Its waits are all on one word, so the table does not call it a
 * condvar (whose two g_signals words are both waited on as its groups
 * rotate) and the finding says it may be either. */
Test(report, one_word_of_condvar_shaped_waits_is_a_condvar_or_a_semaphore)
{
	uint64_t t = begin(TIDS(PID, 501, 502, 503));
	wait_sleep(t, 501, COND_WAIT, L1, 0);
	handoff(t + 1 * MS, 502, 501, L1); /* 501 takes it */
	wait_sleep(t + 2 * MS, 502, COND_WAIT, L1, 0);
	wait_sleep(t + 3 * MS, 503, COND_WAIT, L1, 0);
	io_flagged(t + 4 * MS, 501, NR_read, 7, LT_F_IO_PIPE);
	off(t + 4 * MS + 10 * US, 501, 0);
	finish(t + 3 * SEC);
	cr_assert_str_eq(lock_at(L1)->kind, "cond/sem");
	const struct lt_report_finding *f = must_find(LT_FIND_HOLDER_BLOCKED, "io");
	cr_assert_eq(f->holder, 501);
	cr_assert(strstr(f->summary, "condition variable or semaphore"), "%s", f->summary);
	done();
}

/* The holder's chain: A waits on L2 held by B, B is blocked in select. */
Test(report, holder_chain_leads_to_the_thread_in_select)
{
	uint64_t t = begin(TIDS(PID, 501, 502));
	/* 502 takes L2 after a contended wait, 500 takes L1 the same way */
	wait_sleep(t, 502, FUTEX_WAIT_PRIVATE, L2, 2);
	handoff(t + 1 * MS, 501, 502, L2);
	wait_sleep(t + 2 * MS, PID, FUTEX_WAIT_PRIVATE, L1, 2);
	handoff(t + 3 * MS, 501, PID, L1);
	/* 501 waits on L1 (held by 500), 500 waits on L2 (held by 502),
	 * 502 sits in select */
	wait_sleep(t + 4 * MS, 501, FUTEX_WAIT_PRIVATE, L1, 2);
	wait_sleep(t + 5 * MS, PID, FUTEX_WAIT_PRIVATE, L2, 2);
	sel(t + 6 * MS, 502, 9);
	off(t + 6 * MS + 5 * US, 502, 0);
	finish(t + 2 * SEC);
	const struct lt_report_finding *f = NULL;
	for (size_t i = 0; i < R->n_findings; i++)
		if (R->findings[i].kind == LT_FIND_HOLDER_BLOCKED && has_lock(&R->findings[i], L1))
			f = &R->findings[i];
	if (!f)
		dump_findings();
	cr_assert_not_null(f);
	cr_assert_str_eq(f->rule, "poll");
	cr_assert_eq(f->holder, 502, "the end of the chain");
	cr_assert(has_tid(f, PID) && has_tid(f, 501));
	cr_assert_eq(f->via, 1, "%s", f->summary);
	cr_assert_null(find(LT_FIND_DEADLOCK, NULL));
	/* L2's own finding (its holder 502 holds it) is said first: it is
	 * why L1's waiters wait, though L1's stops more threads and is the
	 * lower lock */
	bool direct_seen = false;
	for (size_t i = 0; i < R->n_findings; i++) {
		const struct lt_report_finding *g = &R->findings[i];
		if (g->kind != LT_FIND_HOLDER_BLOCKED)
			continue;
		if (g == f)
			break;
		direct_seen |= has_lock(g, L2) && g->via == 0 && g->holder == 502;
	}
	if (!direct_seen)
		dump_findings();
	cr_assert(direct_seen, "the finding of L2, which 502 holds, before the one through it");
	done();
}

/* One holder stuck in read() with two locks (CPython: the GIL, and the
 * lock Thread.join waits on for the same thread): the two findings began
 * together; the one that stops more threads (BIG: three waiters) comes
 * first, whatever the locks' order, whichever was seen first, waited on
 * first and longest (SMALL, with one waiter, is all three). */
static void two_findings_begun_together(uint64_t big, uint64_t small)
{
	uint64_t t = begin(TIDS(PID, 501, 502, 503, 504, 505));
	wait_sleep(t, 501, FUTEX_WAIT_PRIVATE, small, 2);
	handoff(t + 1 * MS, 503, 501, small); /* 501 takes SMALL, seen first */
	wait_sleep(t + 2 * MS, 501, FUTEX_WAIT_PRIVATE, big, 2);
	handoff(t + 3 * MS, 502, 501, big); /* and BIG */
	wait_sleep(t + 4 * MS, PID, FUTEX_WAIT_PRIVATE, small, 2); /* the oldest wait */
	io(t + 8 * MS, 501, NR_read, 7);
	off(t + 8 * MS + 10 * US, 501, 0);
	/* BIG's waiters came late: less time waited on it in all (4.5 s
	 * against 5 s), which orders the locks' table, not the findings */
	wait_sleep(t + 3500 * MS, 502, FUTEX_WAIT_PRIVATE, big, 2);
	wait_sleep(t + 3500 * MS + 1 * MS, 503, FUTEX_WAIT_PRIVATE, big, 2);
	wait_sleep(t + 3500 * MS + 2 * MS, 504, FUTEX_WAIT_PRIVATE, big, 2);
	finish(t + 5 * SEC);
	const struct lt_report_finding *first = NULL, *second = NULL;
	for (size_t i = 0; i < R->n_findings; i++) {
		if (R->findings[i].kind != LT_FIND_HOLDER_BLOCKED)
			continue;
		if (!first)
			first = &R->findings[i];
		else if (!second)
			second = &R->findings[i];
	}
	if (!second)
		dump_findings();
	cr_assert_not_null(second, "two holder_blocked findings");
	cr_assert_eq(first->holder, 501);
	cr_assert_eq(second->holder, 501);
	cr_assert_eq(first->since, second->since, "both since the read");
	cr_assert(has_lock(first, big) && has_tid(first, 502) && has_tid(first, 503) && has_tid(first, 504),
		  "first: %s", first->summary);
	cr_assert(has_lock(second, small) && has_tid(second, PID), "second: %s", second->summary);
	done();
}

Test(report, of_two_findings_begun_together_the_one_stopping_more_threads_comes_first)
{
	two_findings_begun_together(L1, L2);
}

Test(report, of_two_findings_begun_together_the_lower_lock_does_not_decide)
{
	two_findings_begun_together(L2, L1);
}

/* ---- lost wake-ups --------------------------------------------------- */

Test(report, wake_that_woke_nobody_while_a_waiter_was_about_to_sleep)
{
	uint64_t t = begin(TIDS(PID, 501));
	futex(t, PID, FUTEX_WAKE_PRIVATE, L1, 1); /* nobody sleeps yet */
	sys_exit(t + 1 * US, PID, NR_futex, 0);
	wait_sleep(t + 40 * US, 501, FUTEX_WAIT_PRIVATE, L1, 1);
	finish(t + 2 * SEC);
	const struct lt_report_finding *f = must_find(LT_FIND_LOST_WAKEUP, "woke_nobody");
	cr_assert_eq(f->holder, PID, "the waker is named");
	cr_assert(has_tid(f, 501) && has_lock(f, L1));
	cr_assert_eq(f->since, t + 40 * US);
	done();
}

Test(report, a_wake_long_before_the_wait_is_no_lost_wakeup)
{
	uint64_t t = begin(TIDS(PID, 501));
	futex(t, PID, FUTEX_WAKE_PRIVATE, L1, 1);
	sys_exit(t + 1 * US, PID, NR_futex, 0);
	wait_sleep(t + 100 * MS, 501, FUTEX_WAIT_PRIVATE, L1, 1);
	finish(t + 2 * SEC);
	cr_assert_null(find(LT_FIND_LOST_WAKEUP, NULL));
	cr_assert_not_null(find(LT_FIND_STALLED_WAITERS, NULL), "still: waiters nobody woke");
	done();
}

static char *snapshot_json(const char *threads)
{
	char *s;
	cr_assert_geq(asprintf(&s,
			       "{\"schema\": \"locktrace.snapshot/1\", \"pid\": %d, \"comm\": \"app\","
			       " \"taken_monotonic_ns\": %llu, \"future_field\": {\"x\": [1, 2.5e3, null]},"
			       " \"verdicts\": [], \"threads\": [%s]}",
			       PID, BASE + 1 * MS, threads), 0);
	return s;
}

static void snapshot(const char *threads)
{
	char *j = snapshot_json(threads);
	cr_assert_eq(lt_report_snapshot(R, j, strlen(j)), 0);
	free(j);
}

/* A stored snapshot that could not read everything (a thread left out
 * when its time budget ran out, in one process of several) says so among
 * the report's notes: a holder it could not name is not a holder it
 * looked for and found absent.  Other notes stay the snapshot's own. */
Test(report, an_incomplete_stored_snapshot_is_said_in_the_notes)
{
	header(TIDS(PID, 501));
	start();
	char *j;
	cr_assert_geq(asprintf(&j,
			       "{\"schema\": \"locktrace.snapshot/1\", \"pid\": %d, \"comm\": \"app\","
			       " \"occasion\": \"end\", \"taken_monotonic_ns\": %llu, \"verdicts\": [],"
			       " \"notes\": [\"process 7: the snapshot is incomplete: 1 of the 2 threads were not read\","
			       " \"process 7: kernel stacks unavailable\"], \"threads\": []}",
			       PID, BASE + 1 * MS), 0);
	cr_assert_eq(lt_report_snapshot(R, j, strlen(j)), 0);
	free(j);
	finish(BASE + 10 * MS);
	int said = 0, other = 0;
	for (size_t i = 0; i < R->n_notes; i++) {
		said += !strcmp(R->notes[i], "the snapshot taken at 100.001000, at the end, is incomplete: "
					     "process 7: 1 of the 2 threads were not read");
		other += strstr(R->notes[i], "kernel stacks") != NULL;
	}
	cr_assert_eq(said, 1, "%zu notes, first: %s", R->n_notes, R->n_notes ? R->notes[0] : "-");
	cr_assert_eq(other, 0);
	done();
}

/* The only snapshot is the one at the start (the process exited before the
 * end's), and it says a thread waits in a call whose other end is not
 * followed (a System V semaphore): a finding says so, marked as the
 * start's, never "none". */
Test(report, a_wait_not_followed_in_the_start_snapshot_is_a_finding_said_as_the_starts)
{
	header(TIDS(PID, 501));
	start();
	char *j;
	cr_assert_geq(asprintf(&j,
			       "{\"schema\": \"locktrace.snapshot/1\", \"pid\": %d, \"comm\": \"app\","
			       " \"occasion\": \"start\", \"taken_monotonic_ns\": %llu, \"verdicts\": [{\"kind\": \"unknown\","
			       " \"summary\": \"not known: no thread is running and 1 thread waits in semtimedop, whose other"
			       " end locktrace does not follow\", \"tids\": [500], \"locks\": [], \"owner\": null,"
			       " \"evidence\": [\"thread 500 (app) semtimedop(semid 3, sem 0 -1, 1 op, no timeout)\"]}],"
			       " \"threads\": [{\"tid\": 500, \"comm\": \"app\", \"state\": \"S\", \"blocked_s\": 2,"
			       " \"syscall\": {\"nr\": 220, \"name\": \"semtimedop\"}, \"wait\": \"other\","
			       " \"detail\": \"semtimedop(semid 3, sem 0 -1, 1 op, no timeout)\", \"futex\": null},"
			       " {\"tid\": 501, \"comm\": \"t501\", \"state\": \"S\", \"blocked_s\": 2,"
			       " \"syscall\": {\"nr\": 230, \"name\": \"clock_nanosleep\"}, \"wait\": \"sleep\","
			       " \"futex\": null}]}",
			       PID, BASE + 1 * MS), 0);
	cr_assert_eq(lt_report_snapshot(R, j, strlen(j)), 0);
	free(j);
	finish(BASE + 2 * SEC);
	const struct lt_report_finding *f = must_find(LT_FIND_SNAPSHOT, "unknown");
	cr_assert(strstr(f->summary, "(at the start of the trace: none was taken at its end") &&
		  strstr(f->summary, "1 thread waits in semtimedop"), "%s", f->summary);
	done();
}

/* A PI ABBA the kernel refused: the holder of L1 sleeps for ever in glibc's
 * endless wait on a zero word of its own stack (the snapshot's lock model
 * says so).  The holder's finding says it sleeps for ever, not that it
 * "waits on another lock", and its stack word's waiters finding says
 * nothing wakes it, not "no holder is known". */
Test(report, a_holder_in_glibcs_endless_wait_sleeps_for_ever)
{
	uint64_t t = begin(TIDS(PID, 501, 502));
	wait_sleep(t, 501, FUTEX_WAIT_PRIVATE, L1, 2);
	handoff(t + 1 * MS, PID, 501, L1);
	sys_exit(t + 1 * MS + 5 * US, 501, NR_futex, 0);
	wait_sleep(t + 2 * MS, 502, FUTEX_WAIT_PRIVATE, L1, 2);
	wait_sleep(t + 3 * MS, 501, COND_WAIT, L2, 0);
	snapshot("{\"tid\": 500, \"comm\": \"app\", \"state\": \"S\", \"blocked_s\": 3,"
		 " \"syscall\": {\"nr\": 230, \"name\": \"clock_nanosleep\"}, \"wait\": \"sleep\", \"futex\": null},"
		 "{\"tid\": 501, \"comm\": \"t501\", \"state\": \"S\", \"blocked_s\": 3,"
		 " \"syscall\": {\"nr\": 202, \"name\": \"futex\"}, \"wait\": \"futex\","
		 " \"futex\": {\"uaddr\": \"0x560000001180\", \"lock\": \"[stack of thread 501]\","
		 " \"op_name\": \"FUTEX_WAIT_BITSET_PRIVATE\", \"is_wait\": true, \"is_pi\": false, \"expected\": 0,"
		 " \"word\": 0, \"owner_kind\": \"none\", \"owner\": null, \"lock_kind\": \"glibc's endless wait\","
		 " \"parked_for_ever\": true}}");
	finish(t + 3 * SEC);
	const struct lt_report_finding *h = must_find(LT_FIND_HOLDER_BLOCKED, "parked");
	cr_assert_eq(h->holder, 501);
	cr_assert(strstr(h->summary, "lock holder sleeps for ever"), "%s", h->summary);
	const struct lt_report_finding *w = must_find(LT_FIND_STALLED_WAITERS, NULL);
	cr_assert(strstr(w->summary, "sleeps for ever") && !strstr(w->summary, "no holder is known"), "%s",
		  w->summary);
	done();
}

/* OCaml's Thread.join waits on a condition of its own runtime (its model
 * names it "Thread.join"): a join, which makes no finding, as pthread_join
 * does not. */
Test(report, an_ocaml_thread_join_makes_no_finding)
{
	header(TIDS(PID, 501));
	blocked_at_attach(0, L1, COND_WAIT, 0, 4 * SEC);
	start();
	snapshot("{\"tid\": 500, \"comm\": \"app\", \"state\": \"S\", \"blocked_s\": 4,"
		 " \"syscall\": {\"nr\": 202, \"name\": \"futex\"}, \"wait\": \"futex\","
		 " \"futex\": {\"uaddr\": \"0x5600000011c0\", \"lock\": \"[heap]\", \"op_name\": \"FUTEX_WAIT_BITSET_PRIVATE\","
		 " \"is_wait\": true, \"is_pi\": false, \"expected\": 0, \"word\": 0, \"owner_kind\": \"none\","
		 " \"owner\": null, \"lock_kind\": \"Thread.join\"}},"
		 "{\"tid\": 501, \"comm\": \"t501\", \"state\": \"S\", \"blocked_s\": 4,"
		 " \"syscall\": {\"nr\": 230, \"name\": \"clock_nanosleep\"}, \"wait\": \"sleep\", \"futex\": null}");
	finish(BASE + 3 * SEC);
	cr_assert_null(find(LT_FIND_STALLED_WAITERS, NULL), "a join is no stalled lock");
	done();
}

/* A Go program's idle M sleeps on its m.park note (the snapshot's Go model
 * says so): not a lock.  The LOCKS table names it as the runtime does and
 * lists it after the real lock, which waited less. */
Test(report, a_go_m_park_note_is_listed_after_the_locks_and_said_no_lock)
{
	header(TIDS(PID, 501, 502));
	blocked_at_attach(1, L1, FUTEX_WAIT_PRIVATE, 0, 4 * SEC);
	start();
	uint64_t t = BASE + 10 * MS;
	wait_sleep(t, 502, FUTEX_WAIT_PRIVATE, L2, 2);
	handoff(t + 100 * MS, PID, 502, L2);
	snapshot("{\"tid\": 500, \"comm\": \"app\", \"state\": \"S\", \"blocked_s\": 1,"
		 " \"syscall\": {\"nr\": 230, \"name\": \"clock_nanosleep\"}, \"wait\": \"sleep\", \"futex\": null},"
		 "{\"tid\": 501, \"comm\": \"app\", \"state\": \"S\", \"blocked_s\": 7,"
		 " \"syscall\": {\"nr\": 202, \"name\": \"futex\"}, \"wait\": \"futex\","
		 " \"futex\": {\"uaddr\": \"0x5600000011c0\", \"lock\": \"[anonymous mapping 0x560000000000]\","
		 " \"op_name\": \"FUTEX_WAIT_PRIVATE\", \"is_wait\": true, \"is_pi\": false, \"expected\": 0,"
		 " \"word\": 0, \"owner_kind\": \"none\", \"owner\": null, \"lock_kind\": \"Go runtime note (idle M)\","
		 " \"lock_name\": \"M2.park\"}},"
		 "{\"tid\": 502, \"comm\": \"app\", \"state\": \"S\", \"blocked_s\": 1,"
		 " \"syscall\": {\"nr\": 230, \"name\": \"clock_nanosleep\"}, \"wait\": \"sleep\", \"futex\": null}");
	finish(BASE + 3 * SEC);
	cr_assert_eq(R->n_locks, 2);
	cr_assert_eq(R->locks[0].addr, L2, "the real lock first, though it waited less");
	cr_assert_not(R->locks[0].not_lock);
	cr_assert_eq(R->locks[1].addr, L1);
	cr_assert(R->locks[1].not_lock);
	cr_assert_str_eq(R->locks[1].symbol, "M2.park");
	cr_assert(strstr(R->locks[1].kind, "idle M") && strstr(R->locks[1].kind, "not a lock"), "%s",
		  R->locks[1].kind);
	cr_assert_null(find(LT_FIND_STALLED_WAITERS, NULL), "an idle M is no stalled lock");
	done();
}

/* A threading.Lock's one waiter, in one untimed wait begun after its
 * holder (the snapshot read the owner) blocked in a socket read; no
 * wake-up on it in the trace: said so, never that its waiters "retry in
 * timed waits" (CPython's GIL waiters do; a Lock's do not). */
Test(report, a_single_untimed_wait_is_not_said_to_retry)
{
	uint64_t t = begin(TIDS(PID, 501, 502));
	io(t + 4 * MS, 501, NR_read, 7);
	off(t + 4 * MS + 10 * US, 501, 0);
	wait_sleep(t + 400 * MS, 502, FUTEX_WAIT_PRIVATE, L1, 2);
	snapshot("{\"tid\": 500, \"comm\": \"app\", \"state\": \"S\", \"blocked_s\": 3,"
		 " \"syscall\": {\"nr\": 230, \"name\": \"clock_nanosleep\"}, \"wait\": \"sleep\", \"futex\": null},"
		 "{\"tid\": 501, \"comm\": \"t501\", \"state\": \"S\", \"blocked_s\": 3,"
		 " \"syscall\": {\"nr\": 0, \"name\": \"read\"}, \"wait\": \"io\","
		 " \"io_fd\": {\"fd\": 7, \"kind\": \"socket\", \"target\": \"socket:[1]\"}},"
		 "{\"tid\": 502, \"comm\": \"t502\", \"state\": \"S\", \"blocked_s\": 2.6, \"syscall\": {\"nr\": 202},"
		 " \"futex\": {\"uaddr\": \"0x5600000011c0\", \"is_wait\": true, \"expected\": 2, \"word\": 2,"
		 " \"owner_kind\": \"mutex\", \"owner\": 501, \"lock_kind\": \"threading.Lock\"}}");
	finish(t + 3 * SEC);
	const struct lt_report_finding *f = must_find(LT_FIND_HOLDER_BLOCKED, "io");
	cr_assert_eq(f->holder, 501, "%s", f->summary);
	cr_assert(!strstr(f->summary, "retry"), "%s", f->summary);
	/* a lock the runtime does not name is not called "?" */
	cr_assert(strstr(f->summary, "the threading.Lock (") && !strstr(f->summary, "?"), "%s", f->summary);
	cr_assert(strstr(f->summary, "no wake-up on it in the trace, the first waiter has waited"), "%s", f->summary);
	done();
}

/* A server whose main thread accepts (not recorded) and hands each
 * connection to a new thread, one of which waits on a lock for good: the
 * threads created are progress, so no stall "since the trace began" is
 * claimed while connections are still being taken; 2.5 s after the last
 * one, there is. */
Test(report, threads_created_are_progress_for_the_stall_rule)
{
	uint64_t t = begin(TIDS(PID, 501));
	wait_sleep(t, 501, FUTEX_WAIT_PRIVATE, L1, 2);
	struct lt_event e = mk(LT_EV_TASK_NEW, t + 2500 * MS, 502);
	e.tnew.parent_tid = PID;
	e.tnew.tgid = PID;
	snprintf(e.tnew.comm, sizeof(e.tnew.comm), "srv");
	feed(&e);
	finish(t + 3 * SEC);
	cr_assert_null(find(LT_FIND_STALL, NULL), "%s", find(LT_FIND_STALL, NULL)->summary);
	done();

	t = begin(TIDS(PID, 501));
	wait_sleep(t, 501, FUTEX_WAIT_PRIVATE, L1, 2);
	e = mk(LT_EV_TASK_NEW, t + 500 * MS, 502);
	e.tnew.parent_tid = PID;
	e.tnew.tgid = PID;
	feed(&e);
	finish(t + 3 * SEC);
	const struct lt_report_finding *f = must_find(LT_FIND_STALL, NULL);
	cr_assert_eq(f->since, t + 500 * MS, "since the thread was created: %s", f->summary);
	cr_assert(strstr(f->summary, "no thread was created"), "%s", f->summary);
	bool said = false;
	for (size_t i = 0; i < f->n_evidence; i++)
		said |= strstr(f->evidence[i], "created thread 502") != NULL;
	cr_assert(said, "the last progress is not the thread created");
	done();
}

/* lost_wakeup workload: already asleep at attach expecting 1; the word is 0 */
Test(report, waiter_on_a_word_that_changed_without_a_wake)
{
	header(TIDS(PID, 501));
	blocked_at_attach(1, L1, FUTEX_WAIT_PRIVATE, 1, 500 * MS);
	start();
	snapshot("{\"tid\": 500, \"comm\": \"app\", \"state\": \"S\", \"blocked_s\": 0.6,"
		 " \"syscall\": {\"nr\": 230, \"name\": \"clock_nanosleep\"}, \"wait\": \"sleep\", \"futex\": null},"
		 "{\"tid\": 501, \"comm\": \"t501\", \"state\": \"S\", \"blocked_s\": 0.5,"
		 " \"syscall\": {\"nr\": 202, \"name\": \"futex\"}, \"wait\": \"futex\","
		 " \"detail\": \"futex(0x5600000011c0 <lockword>, FUTEX_WAIT_PRIVATE, 1) word=0\","
		 " \"futex\": {\"uaddr\": \"0x5600000011c0\", \"lock\": \"lockword\", \"op_name\": \"FUTEX_WAIT_PRIVATE\","
		 " \"is_wait\": true, \"is_pi\": false, \"expected\": 1, \"word\": 0, \"owner_kind\": \"none\", \"owner\": null}}");
	finish(BASE + 2 * SEC);
	const struct lt_report_finding *f = must_find(LT_FIND_LOST_WAKEUP, "word_changed");
	cr_assert(has_tid(f, 501) && has_lock(f, L1));
	cr_assert_eq(f->since, BASE - 500 * MS, "asleep since before the trace");
	cr_assert(strstr(f->summary, "lockword"), "symbol from the snapshot: %s", f->summary);
	char buf[64];
	cr_assert_str_eq(lt_report_lock_name(R, L1, buf, sizeof(buf)), "lockword");
	done();
}

/* Waiters asleep at the attach for a time the header does not know
 * (blocked_ns 0: se.exec_start unreadable, or ahead of the clock after
 * correction) have waited at least the whole trace: nobody woke them for
 * 3 s, a stall, not nothing (the rule took their unknown start for no
 * wait at all, and the lock got only the end snapshot's word).  Their
 * start stays unknown: "before the trace". */
Test(report, waiters_asleep_at_the_attach_for_an_unknown_time_stalled_the_whole_trace)
{
	header(TIDS(PID, 501, 502));
	blocked_at_attach(1, L1, 0 /* FUTEX_WAIT, shared */, 0, 0);
	blocked_at_attach(2, L1, 0, 0, 0);
	start();
	finish(BASE + 3 * SEC);
	const struct lt_report_finding *f = must_find(LT_FIND_STALLED_WAITERS, NULL);
	cr_assert(strstr(f->summary, "nobody has woken it for at least 3.00 s; no holder is known"), "%s",
		  f->summary);
	cr_assert(has_tid(f, 501) && has_tid(f, 502), "%s", f->summary);
	cr_assert_eq(f->since, 0, "a start nobody knows is not given one");
	cr_assert_geq(f->duration_ns, 3 * SEC, "at least the whole trace");
	bool before = false;
	for (size_t i = 0; i < f->n_evidence; i++)
		before |= strstr(f->evidence[i], "asleep on it since before the trace, for how long before it not known: 501, 502") != NULL;
	cr_assert(before, "the evidence does not say they slept since before the trace");
	done();
}

/* A process-shared mutex whose owner, by the snapshot at the end, is a
 * thread of a process the trace does not record: the waiters' finding names
 * it (it said "no holder is known") and how to look at it. */
Test(report, waiters_on_a_lock_held_by_another_process_name_its_owner)
{
	header(TIDS(PID, 501));
	blocked_at_attach(1, L1, 0 /* FUTEX_WAIT, shared */, 2, 500 * MS);
	start();
	snapshot("{\"tid\": 500, \"comm\": \"app\", \"state\": \"S\", \"blocked_s\": 0.6,"
		 " \"syscall\": {\"nr\": 230, \"name\": \"clock_nanosleep\"}, \"wait\": \"sleep\", \"futex\": null},"
		 "{\"tid\": 501, \"comm\": \"t501\", \"state\": \"S\", \"blocked_s\": 0.5,"
		 " \"syscall\": {\"nr\": 202, \"name\": \"futex\"}, \"wait\": \"futex\","
		 " \"futex\": {\"uaddr\": \"0x5600000011c0\", \"lock\": \"shm\", \"op_name\": \"FUTEX_WAIT\","
		 " \"is_wait\": true, \"is_pi\": false, \"expected\": 2, \"word\": 2, \"owner_kind\": \"none\","
		 " \"owner\": null, \"lock_kind\": \"pthread mutex\","
		 " \"owner_process\": {\"tid\": 777, \"pid\": 777, \"comm\": \"other\"}}}");
	finish(BASE + 3 * SEC);
	const struct lt_report_finding *f = must_find(LT_FIND_STALLED_WAITERS, NULL);
	cr_assert(strstr(f->summary, "held by thread 777 of process 777, which this trace does not record"), "%s",
		  f->summary);
	cr_assert(!strstr(f->summary, "no holder is known"), "%s", f->summary);
	bool how = false;
	for (size_t i = 0; i < f->n_evidence; i++)
		how |= strstr(f->evidence[i], "locktrace snapshot -p 777") != NULL;
	cr_assert(how, "no evidence says how to look at the holder");
	done();
}

/* The same, the snapshot having followed the lock into its owner's
 * process (a combined snapshot): what the owner does, from it. */
Test(report, waiters_on_a_lock_held_by_another_process_say_what_the_followed_owner_does)
{
	header(TIDS(PID, 501));
	blocked_at_attach(1, L1, 0 /* FUTEX_WAIT, shared */, 2, 500 * MS);
	start();
	snapshot("{\"tid\": 501, \"comm\": \"t501\", \"state\": \"S\", \"blocked_s\": 0.5,"
		 " \"syscall\": {\"nr\": 202, \"name\": \"futex\"}, \"wait\": \"futex\","
		 " \"futex\": {\"uaddr\": \"0x5600000011c0\", \"lock\": \"shm\", \"op_name\": \"FUTEX_WAIT\","
		 " \"is_wait\": true, \"is_pi\": false, \"expected\": 2, \"word\": 2, \"owner_kind\": \"none\","
		 " \"owner\": null, \"lock_kind\": \"pthread mutex\","
		 " \"owner_process\": {\"tid\": 777, \"pid\": 777, \"comm\": \"other\"}}},"
		 "{\"tid\": 777, \"comm\": \"other\", \"state\": \"S\", \"blocked_s\": 9.5,"
		 " \"syscall\": {\"nr\": 34, \"name\": \"pause\"}, \"wait\": \"sleep\", \"detail\": \"pause()\","
		 " \"futex\": null}");
	finish(BASE + 3 * SEC);
	const struct lt_report_finding *f = must_find(LT_FIND_STALLED_WAITERS, NULL);
	bool said = false;
	for (size_t i = 0; i < f->n_evidence; i++)
		said |= strstr(f->evidence[i], "its holder at the snapshot: thread 777 (other) pause(), for 9.5 s") != NULL;
	cr_assert(said, "%s", f->n_evidence > 1 ? f->evidence[1] : f->summary);
	done();
}

/* The demo's --stall lost-wakeup, in small: a lock its threads hand to each
 * other; 503 takes it, 501 queues while 503 holds it, 503 never wakes
 * anyone and queues itself. */
Test(report, last_holder_released_without_waking_the_queued_waiter)
{
	uint64_t t = begin(TIDS(PID, 501, 502, 503));
	wait_sleep(t, 502, COND_WAIT, G0, 0);
	handoff(t + 1 * MS, 501, 502, G0);
	wait_sleep(t + 2 * MS, 503, COND_WAIT, G1, 0);
	handoff(t + 3 * MS, 502, 503, G1); /* 502 got it by a hand-off and handed it on */
	wait_sleep(t + 4 * MS, 501, COND_WAIT, G0, 0);
	wait_sleep(t + 5 * MS, 502, COND_WAIT, G1, 0);
	sel(t + 6 * MS, 503, 4);
	sys_exit(t + 40 * MS, 503, NR_pselect6, 0);
	wait_sleep(t + 41 * MS, 503, COND_WAIT, G0, 0);
	finish(t + 3 * SEC);
	const struct lt_report_finding *f = must_find(LT_FIND_LOST_WAKEUP, "released_without_wake");
	cr_assert_eq(f->holder, 503, "the releaser");
	cr_assert(has_tid(f, 501), "the first waiter left behind");
	cr_assert(has_lock(f, G0) && has_lock(f, G1));
	cr_assert_eq(f->since, t + 4 * MS);
	cr_assert_null(find(LT_FIND_HOLDER_BLOCKED, NULL));
	done();
}

/* The demo's io stall as a flight dump once showed it (CI, 2026-12-05): two
 * condition-variable waiters are woken; 503 takes the lock and blocks in a
 * read holding it; 502's wait returned after 503's, but it found the lock
 * held and waited again at once, nothing between.  A wait that returned
 * did not take the lock then: the holder is still 503, not "502 let it go
 * without waking anyone". */
/* 502, 503 and 501 queue on G0's condition variable; 504 hands it to 501 */
static uint64_t three_queued_501_woken(void)
{
	uint64_t t = begin(TIDS(PID, 501, 502, 503, 504));
	wait_sleep(t, 502, COND_WAIT, G0, 0);
	wait_sleep(t + 10 * US, 503, COND_WAIT, G0, 0);
	wait_sleep(t + 20 * US, 501, COND_WAIT, G0, 0);
	handoff(t + 1 * MS, 504, 501, G0);
	return t;
}

/* 503 blocks in a read at t + 2.08 ms, 504 queues; the report: no lost
 * wake-up, 503 the holder blocked in I/O (the finding) */
static const struct lt_report_finding *holder_503_blocked_in_read(uint64_t t)
{
	io(t + 2 * MS + 80 * US, 503, NR_read, 7);
	off(t + 2 * MS + 82 * US, 503, 0);
	wait_sleep(t + 3 * MS, 504, COND_WAIT, G0, 0);
	finish(t + 3 * SEC);
	cr_assert_null(find(LT_FIND_LOST_WAKEUP, NULL), "%s", R->n_findings ? R->findings[0].summary : "");
	const struct lt_report_finding *f = must_find(LT_FIND_HOLDER_BLOCKED, "io");
	cr_assert_eq(f->holder, 503);
	return f;
}

Test(report, a_woken_waiter_that_waits_again_at_once_did_not_take_the_lock)
{
	uint64_t t = three_queued_501_woken();
	handoff(t + 2 * MS, 501, 503, G0); /* 501 got it by a hand-off and handed it on */
	handoff(t + 2 * MS + 10 * US, 501, 502, G0);
	wait_sleep(t + 2 * MS + 30 * US, 501, COND_WAIT, G0, 0);
	wait_sleep(t + 2 * MS + 40 * US, 502, COND_WAIT, G0, 0); /* 24 us after its wait returned */
	const struct lt_report_finding *f = holder_503_blocked_in_read(t);
	/* the evidence says why 502 is not the holder */
	int said = 0;
	for (size_t k = 0; k < f->n_evidence; k++)
		said |= strstr(f->evidence[k], "later, 502's wait on it returned at") &&
			strstr(f->evidence[k], "waited on it again 24 us after with no traced call between") != NULL;
	cr_assert(said, "the undone take is not in the holder's evidence");
	done();
}

/* 501 hands the lock to 502 and queues again; 502 waits again at
 * rewait (after a socket read if io): a take that stood, let go without
 * a wake (released_without_wake naming 502) */
static void woken_then_waits_again(uint64_t rewait, int io_between)
{
	uint64_t t = three_queued_501_woken();
	handoff(t + 2 * MS, 501, 502, G0);
	wait_sleep(t + 2 * MS + 30 * US, 501, COND_WAIT, G0, 0);
	if (io_between) {
		io(t + 2 * MS + 50 * US, 502, NR_read, 7);
		sys_exit(t + 2 * MS + 60 * US, 502, NR_read, 64);
	}
	wait_sleep(t + rewait, 502, COND_WAIT, G0, 0);
	wait_sleep(t + 43 * MS, 504, COND_WAIT, G0, 0);
	finish(t + 3 * SEC);
	const struct lt_report_finding *f = must_find(LT_FIND_LOST_WAKEUP, "released_without_wake");
	cr_assert_eq(f->holder, 502);
	cr_assert(has_tid(f, 501));
	done();
}

/* 40 ms later: it ran holding the lock (its calls then not recorded) */
Test(report, a_woken_waiter_that_ran_before_waiting_again_took_the_lock)
{
	woken_then_waits_again(42 * MS, 0);
}

/* 1.5 ms later: past the 1 ms of a thread that found the lock taken */
Test(report, a_woken_waiter_that_waits_again_after_1_5_ms_took_the_lock)
{
	woken_then_waits_again(2 * MS + 1500 * US, 0);
}

/* 100 us later, but a socket read between: it ran holding the lock */
Test(report, a_woken_waiter_that_made_a_call_before_waiting_again_took_the_lock)
{
	woken_then_waits_again(2 * MS + 100 * US, 1);
}

/* A broadcast: 501 wakes 503, 502, 505 in turn, each wait returning after
 * the last; 505 and 502 find the lock taken and wait again at once (in
 * either order): the holder is 503, the first whose take stands, blocked in
 * a read. */
static void three_woken_one_takes(int order)
{
	uint64_t t = begin(TIDS(PID, 501, 502, 503, 504, 505));
	wait_sleep(t, 502, COND_WAIT, G0, 0);
	wait_sleep(t + 10 * US, 503, COND_WAIT, G0, 0);
	wait_sleep(t + 20 * US, 505, COND_WAIT, G0, 0);
	wait_sleep(t + 30 * US, 501, COND_WAIT, G0, 0);
	handoff(t + 1 * MS, 504, 501, G0);
	handoff(t + 2 * MS, 501, 503, G0);
	handoff(t + 2 * MS + 10 * US, 501, 502, G0);
	handoff(t + 2 * MS + 20 * US, 501, 505, G0);
	wait_sleep(t + 2 * MS + 30 * US, 501, COND_WAIT, G0, 0);
	wait_sleep(t + 2 * MS + 40 * US, order ? 502 : 505, COND_WAIT, G0, 0);
	wait_sleep(t + 2 * MS + 50 * US, order ? 505 : 502, COND_WAIT, G0, 0);
	holder_503_blocked_in_read(t);
	done();
}

Test(report, three_woken_waiters_the_last_two_waiting_again_leave_the_first)
{
	three_woken_one_takes(0);
}

Test(report, three_woken_waiters_the_middle_one_waiting_again_first_leaves_the_first)
{
	three_woken_one_takes(1);
}

/* The report's end: neither a holder blocked nor a lost wake-up, but
 * waiters nobody woke, with no holder known */
static void no_holder_named(void)
{
	cr_assert_null(find(LT_FIND_HOLDER_BLOCKED, NULL), "%s", R->n_findings ? R->findings[0].summary : "");
	cr_assert_null(find(LT_FIND_LOST_WAKEUP, NULL), "%s", R->n_findings ? R->findings[0].summary : "");
	const struct lt_report_finding *f = must_find(LT_FIND_STALLED_WAITERS, NULL);
	cr_assert(strstr(f->summary, "no holder is known"), "%s", f->summary);
	done();
}

/* A take 2 ms before the one undone is not a thread woken with it: the
 * events do not give the lock back to it (503, in a read since), they name
 * no holder (the stacks may infer one, marked probable). */
Test(report, a_take_undone_does_not_give_the_lock_back_to_an_older_take)
{
	uint64_t t = begin(TIDS(PID, 501, 502, 503, 504));
	wait_sleep(t, 502, COND_WAIT, G0, 0);
	wait_sleep(t + 10 * US, 503, COND_WAIT, G0, 0);
	handoff(t + 1 * MS, 504, 503, G0);
	io(t + 1 * MS + 50 * US, 503, NR_read, 7);
	off(t + 1 * MS + 52 * US, 503, 0);
	handoff(t + 3 * MS, 504, 502, G0);
	wait_sleep(t + 3 * MS + 30 * US, 502, COND_WAIT, G0, 0);
	wait_sleep(t + 4 * MS, 504, COND_WAIT, G0, 0);
	finish(t + 3 * SEC);
	no_holder_named();
}

/* The thread whose take stood exited before the later one waited again:
 * the lock goes back to nobody the events know, not to a thread that is
 * gone. */
Test(report, a_take_undone_does_not_give_the_lock_back_to_a_thread_that_exited)
{
	uint64_t t = three_queued_501_woken();
	handoff(t + 2 * MS, 501, 503, G0);
	handoff(t + 2 * MS + 10 * US, 501, 502, G0);
	wait_sleep(t + 2 * MS + 30 * US, 501, COND_WAIT, G0, 0);
	struct lt_event e = mk(LT_EV_TASK_EXIT, t + 2 * MS + 35 * US, 503);
	feed(&e);
	wait_sleep(t + 2 * MS + 40 * US, 502, COND_WAIT, G0, 0);
	wait_sleep(t + 3 * MS, 504, COND_WAIT, G0, 0);
	finish(t + 3 * SEC);
	no_holder_named();
}

/* A waiter woken by the last one to hand the lock on waits again at once:
 * it never took it, and nobody the events saw holds it.  Not "its last
 * holder let it go" nor "free with waiters" about that thread: waiters
 * nobody woke, no holder known. */
Test(report, when_the_last_take_is_undone_no_holder_is_named)
{
	uint64_t t = begin(TIDS(PID, 502, 503, 504));
	wait_sleep(t, 502, COND_WAIT, G0, 0);
	wait_sleep(t + 10 * US, 503, COND_WAIT, G0, 0);
	handoff(t + 1 * MS, 504, 502, G0);
	handoff(t + 2 * MS, 502, 503, G0); /* 502 got it by a hand-off and handed it on */
	wait_sleep(t + 2 * MS + 30 * US, 503, COND_WAIT, G0, 0);
	wait_sleep(t + 2 * MS + 50 * US, 502, COND_WAIT, G0, 0);
	wait_sleep(t + 3 * MS, 504, COND_WAIT, G0, 0);
	finish(t + 3 * SEC);
	cr_assert_null(find(LT_FIND_LOST_WAKEUP, NULL), "%s", R->n_findings ? R->findings[0].summary : "");
	cr_assert_null(find(LT_FIND_HOLDER_BLOCKED, NULL));
	const struct lt_report_finding *f = must_find(LT_FIND_STALLED_WAITERS, NULL);
	cr_assert(strstr(f->summary, "no holder is known"), "%s", f->summary);
	cr_assert(has_tid(f, 502) && has_tid(f, 503) && has_tid(f, 504));
	done();
}

/* The same, but the waiters queued before the last holder took the lock
 * (its own acquire was invisible, say): still waiters sleeping while the
 * lock is free. */
Test(report, waiters_sleeping_while_the_lock_is_free)
{
	uint64_t t = begin(TIDS(PID, 501, 502, 503));
	wait_sleep(t, 502, COND_WAIT, G0, 0);
	handoff(t + 1 * MS, 501, 502, G0);
	wait_sleep(t + 1500 * US, 501, COND_WAIT, G0, 0);
	wait_sleep(t + 2 * MS, 503, COND_WAIT, G1, 0);
	handoff(t + 3 * MS, 502, 503, G1);
	wait_sleep(t + 41 * MS, 503, COND_WAIT, G0, 0);
	finish(t + 3 * SEC);
	const struct lt_report_finding *f = must_find(LT_FIND_LOST_WAKEUP, "free_with_waiters");
	cr_assert_eq(f->holder, 503, "the last thread to take it");
	cr_assert(has_tid(f, 501) && has_tid(f, 503));
	cr_assert_eq(f->since, t + 1500 * US, "the oldest waiter");
	done();
}

/* An idle pool: workers parked on a condvar woken once by a producer that
 * now sits in a socket read.  No hand-offs between workers: not a lost
 * wake-up, but waiters nobody woke, naming the last waker. */
Test(report, idle_pool_is_waiters_nobody_woke_not_a_lost_wakeup)
{
	uint64_t t = begin(TIDS(PID, 501, 502));
	wait_sleep(t, 501, COND_WAIT, G0, 0);
	wait_sleep(t + 1 * MS, 502, COND_WAIT, G0, 0);
	handoff(t + 2 * MS, PID, 501, G0);
	wait_sleep(t + 3 * MS, 501, COND_WAIT, G1, 0);
	io(t + 4 * MS, PID, NR_read, 3);
	off(t + 4 * MS + 5 * US, PID, 0);
	finish(t + 3 * SEC);
	cr_assert_null(find(LT_FIND_LOST_WAKEUP, NULL));
	const struct lt_report_finding *f = must_find(LT_FIND_STALLED_WAITERS, NULL);
	cr_assert_eq(f->holder, PID, "the last waker");
	cr_assert(has_tid(f, 501) && has_tid(f, 502));
	done();
}

/* An idle pool, as the snapshot judges it (issue 25, item 4: libuv's
 * workers in uv_cond_wait under node --inspect): threads parked on what
 * the snapshot decoded as a condition variable with no signal pending,
 * nothing handed through it, nobody holding it, are no lock waiters: no
 * stall, no finding, a note that says so.  Not so for a semaphore, a
 * condvar a wake-up is on its way to, or waits that only look like a
 * condvar's (no snapshot): those stay waiters nobody woke, with no "idle
 * pool" hint.  KIND NULL: no snapshot.  MUTEX_WAITER: thread 503 is also
 * stuck on a mutex nobody hands on (a real stall beside the pool).
 * Returns 2 for no finding on the condvar and the idle-pool note, 1 for a
 * stalled_waiters finding with the hint, 0 for one without. */
static int idle_pool_case(const char *kind, const char *pending, int mutex_waiter)
{
	if (mutex_waiter)
		header(TIDS(PID, 501, 502, 503));
	else
		header(TIDS(PID, 501, 502));
	for (int i = 0; i < 3; i++)
		TI[i].sc_nr = -2;
	start();
	if (kind) {
		char th[2048], fx[512];
		snprintf(fx, sizeof(fx),
			 "\"futex\": {\"uaddr\": \"0x560000001190\", \"op\": 393, \"is_wait\": true,"
			 " \"expected\": 0, \"word\": 0, \"owner_kind\": \"none\", \"owner\": null,"
			 " \"lock_kind\": \"%s\"%s%s}", kind, pending ? ", \"signal_pending\": " : "",
			 pending ? pending : "");
		snprintf(th, sizeof(th),
			 "{\"tid\": 501, \"state\": \"S\", \"blocked_s\": 3.0, \"syscall\": {\"nr\": 202}, %s},"
			 "{\"tid\": 502, \"state\": \"S\", \"blocked_s\": 3.0, \"syscall\": {\"nr\": 202}, %s},"
			 "{\"tid\": 500, \"state\": \"S\", \"blocked_s\": 3.0, \"syscall\": {\"nr\": 34, \"name\": \"pause\"},"
			 " \"wait\": \"sleep\"}", fx, fx);
		snapshot(th);
	} else {
		wait_sleep(BASE, 501, COND_WAIT, 0x560000001190ull, 0);
		wait_sleep(BASE + 1 * MS, 502, COND_WAIT, 0x560000001190ull, 0);
	}
	if (mutex_waiter)
		wait_sleep(BASE + 2 * MS, 503, FUTEX_WAIT_PRIVATE, L1, 2);
	finish(BASE + 3 * SEC);
	const struct lt_report_finding *f = find(LT_FIND_STALLED_WAITERS, NULL);
	if (f && has_tid(f, 503) && !has_tid(f, 501))
		f = NULL; /* the mutex's, below */
	for (size_t i = 0; i < R->n_findings && !f; i++)
		if (R->findings[i].kind == LT_FIND_STALLED_WAITERS && has_tid(&R->findings[i], 501))
			f = &R->findings[i];
	const struct lt_report_finding *stall = find(LT_FIND_STALL, NULL);
	int ret;
	if (!f) {
		int note = 0;
		for (size_t k = 0; k < R->n_notes; k++)
			note |= strstr(R->notes[k], "an idle pool: 2 threads (501 502)") != NULL;
		cr_assert(note, "no finding on the pool, and no note saying why (%s)", kind ? kind : "no snapshot");
		for (size_t i = 0; i < R->n_findings; i++)
			cr_assert(!has_tid(&R->findings[i], 501) && !has_tid(&R->findings[i], 502),
				  "an idle worker in: %s", R->findings[i].summary);
		if (mutex_waiter) {
			/* the mutex waiter is a real stall: it still fires */
			cr_assert_not_null(stall, "a waiter stuck on a mutex beside the pool is a stall");
			const struct lt_report_finding *m = find(LT_FIND_STALLED_WAITERS, NULL);
			cr_assert(m && has_tid(m, 503) && has_lock(m, L1), "the mutex waiter's finding");
		} else {
			cr_assert_null(stall, "an idle pool is no stall: %s", stall ? stall->summary : "");
		}
		ret = 2;
	} else {
		cr_assert(has_tid(f, 501) && has_tid(f, 502));
		cr_assert_not_null(stall, "waiters nobody woke for 3 s, no idle pool: a stall");
		int hint = 0;
		for (size_t k = 0; k < f->n_evidence; k++)
			hint |= strstr(f->evidence[k], "idle pool") != NULL;
		ret = hint;
	}
	done();
	return ret;
}

Test(report, idle_pool_on_a_condvar_with_no_signal_pending_is_no_stall_and_no_finding)
{
	cr_assert_eq(idle_pool_case("condition variable", "false", 0), 2, "a condvar nobody signalled");
	cr_assert_eq(idle_pool_case("condition variable", "false", 1), 2, "the pool beside a stuck mutex");
	cr_assert_eq(idle_pool_case("condition variable", "true", 0), 0, "a signal is on its way");
	cr_assert_eq(idle_pool_case("condition variable", NULL, 0), 0, "its state is not known");
	cr_assert_eq(idle_pool_case("semaphore", NULL, 0), 0, "a semaphore is no condvar");
	cr_assert_eq(idle_pool_case(NULL, NULL, 0), 0, "waits that look like a condvar's");
}

/* Threads parked on a condition variable with no signal pending that the
 * snapshot found stuck (a wait chain: a consumer whose producer is stuck)
 * are no idle pool (a review: a Java queue's consumer, its producer in a
 * read of a pipe nobody writes, was "an idle pool ... they wait for work"
 * beside the snapshot's chain); the same threads with no such verdict are. */
Test(report, threads_in_a_snapshot_chain_are_no_idle_pool)
{
	for (int chain = 0; chain < 2; chain++) {
		header(TIDS(PID, 501, 502));
		for (int i = 0; i < 3; i++)
			TI[i].sc_nr = -2;
		start();
		static const char fx[] = "\"futex\": {\"uaddr\": \"0x560000001190\", \"op\": 393, \"is_wait\": true,"
					 " \"expected\": 0, \"word\": 0, \"owner_kind\": \"none\", \"owner\": null,"
					 " \"lock_kind\": \"condition variable\", \"signal_pending\": false}";
		char *j;
		cr_assert_geq(asprintf(&j,
				       "{\"schema\": \"locktrace.snapshot/1\", \"pid\": %d, \"comm\": \"app\","
				       " \"taken_monotonic_ns\": %llu, \"verdicts\": [%s], \"threads\": ["
				       "{\"tid\": 501, \"state\": \"S\", \"blocked_s\": 3.0, \"syscall\": {\"nr\": 202}, %s},"
				       "{\"tid\": 502, \"state\": \"S\", \"blocked_s\": 3.0, \"syscall\": {\"nr\": 202}, %s}]}",
				       PID, BASE + 1 * MS,
				       chain ? "{\"kind\": \"wait_chain\", \"summary\": \"2 threads wait on condition "
					       "variable ... one of them, thread 503, is itself in a wait chain\", "
					       "\"tids\": [501, 502]}" : "",
				       fx, fx), 0);
		cr_assert_eq(lt_report_snapshot(R, j, strlen(j)), 0);
		free(j);
		finish(BASE + 3 * SEC);
		int note = 0;
		for (size_t k = 0; k < R->n_notes; k++)
			note |= strstr(R->notes[k], "an idle pool: 2 threads (501 502)") != NULL;
		if (chain)
			cr_assert(!note, "the snapshot's chain called an idle pool");
		else
			cr_assert(note, "no idle pool note without the chain");
		done();
	}
}

/* ---- Java's Thread.sleep() ------------------------------------------ */

#define JSLEEP 0x560000002200ull /* a Java thread's own sleep event (its ParkEvent's condvar) */
#define JMON 0x560000002300ull   /* a monitor waiter's own ParkEvent */

/* The JVM of the user's trial (J1.java): thread 501 (sleep-holder) is in
 * Thread.sleep() inside synchronized (SLEEPMON), on its thread's own
 * condition variable; 502 (mon-blocked) waits to enter that Java monitor,
 * whose owner the snapshot read from the JVM (501).  SLEEPING: 501's
 * innermost Java frame is Thread.sleep; else it is in some other wait on
 * the same kind of word (a JVM-internal condvar).  RWLOCK: 501 holds a
 * ReentrantReadWriteLock's read lock instead, which 502 waits to write:
 * a read lock records no owner, so the snapshot names none. */
static void java_sleep_case_rw(int sleeping, int rwlock)
{
	header(TIDS(PID, 501, 502));
	blocked_at_attach(1, JSLEEP, COND_WAIT, 0, 3 * SEC);
	blocked_at_attach(2, JMON, COND_WAIT, 0, 3 * SEC);
	start();
	char *snap;
	cr_assert_geq(asprintf(&snap,
		"{\"schema\": \"locktrace.snapshot/1\", \"pid\": %d, \"comm\": \"java\", \"occasion\": \"end\","
		" \"taken_monotonic_ns\": %llu, \"verdicts\": [],"
		" \"runtime_locks\": [%s],"
		" \"threads\": ["
		"{\"tid\": 501, \"comm\": \"sleep-holder\", \"state\": \"S\", \"blocked_s\": 3.0,"
		" \"syscall\": {\"nr\": 202, \"name\": \"futex\"}, \"wait\": \"futex\","
		" \"futex\": {\"uaddr\": \"0x560000002200\", \"op\": 393, \"is_wait\": true, \"expected\": 0,"
		" \"word\": 0, \"owner_kind\": \"none\", \"owner\": null, \"lock_kind\": \"condition variable\","
		" \"signal_pending\": false},"
		" \"runtime\": {\"lang\": \"java\", \"name\": \"sleep-holder\", \"frames\": ["
		"%s"
		"{\"func\": \"J1.sleep\", \"file\": \"J1.java\", \"line\": 9},"
		"{\"func\": \"J1.lambda$main$7\", \"file\": \"J1.java\", \"line\": 21},"
		"{\"func\": \"java.lang.Thread.run\", \"file\": \"Thread.java\", \"line\": 840}]}},"
		"{\"tid\": 502, \"comm\": \"mon-blocked\", \"state\": \"S\", \"blocked_s\": 3.0,"
		" \"syscall\": {\"nr\": 202, \"name\": \"futex\"}, \"wait\": \"futex\","
		" \"futex\": {\"uaddr\": \"0x560000002300\", \"op\": 393, \"is_wait\": true, \"expected\": 0,"
		" \"word\": 0, %s, \"runtime_lock\": 0},"
		" \"runtime\": {\"lang\": \"java\", \"name\": \"mon-blocked\", \"frames\": ["
		"{\"func\": \"J1.lambda$main$8\", \"file\": \"J1.java\", \"line\": 22}]}}]}",
		PID, (unsigned long long)(BASE + 2 * SEC),
		rwlock ? "{\"model\": \"hotspot\", \"kind\": \"java.util.concurrent lock\", \"name\":"
			 " \"java.util.concurrent.locks.ReentrantReadWriteLock$NonfairSync@0x69ec1b000\", \"held\": 0}"
		       : "{\"model\": \"hotspot\", \"kind\": \"Java monitor\", \"name\":"
			 " \"java.lang.Object@0x69ec1b7e8\", \"held\": 1, \"holder\": 501,"
			 " \"holder_how\": \"ObjectMonitor::_owner is thread 501\"}",
		sleeping ? "{\"func\": \"java.lang.Thread.sleep\", \"file\": \"Thread.java\", \"native_frame\": 4},"
			 : "{\"func\": \"java.lang.Object.wait\", \"file\": \"Object.java\", \"native_frame\": 4},",
		rwlock ? "\"owner_kind\": \"none\", \"owner\": null, \"lock_kind\": \"java.util.concurrent lock\","
			 " \"lock_name\": \"java.util.concurrent.locks.ReentrantReadWriteLock$NonfairSync@0x69ec1b000\""
		       : "\"owner_kind\": \"runtime\", \"owner\": 501, \"lock_kind\": \"Java monitor\","
			 " \"lock_name\": \"java.lang.Object@0x69ec1b7e8\""), 0);
	cr_assert_eq(lt_report_snapshot(R, snap, strlen(snap)), 0);
	free(snap);
	finish(BASE + 2 * SEC + 10 * MS);
}

static void java_sleep_case(int sleeping)
{
	java_sleep_case_rw(sleeping, 0);
}

/* A Java monitor's holder asleep in Thread.sleep() waits on no lock: its
 * futex word is its own thread's sleep event.  The finding says it sleeps
 * in Thread.sleep(), where, and that it is a timed sleep, not a lock. */
Test(report, a_java_monitor_holder_in_thread_sleep_is_asleep_not_waiting_on_a_lock)
{
	java_sleep_case(1);
	const struct lt_report_finding *f = must_find(LT_FIND_HOLDER_BLOCKED, NULL);
	cr_assert_eq(f->holder, 501);
	cr_assert_str_eq(f->rule, "java_sleep", "%s", f->summary);
	cr_assert(strstr(f->summary, "lock holder asleep in Thread.sleep(): 1 thread waits on the Java monitor "
				     "java.lang.Object@0x69ec1b7e8"), "%s", f->summary);
	cr_assert(strstr(f->summary, "its holder 501 (sleep-holder) is asleep in Thread.sleep() at J1.sleep "
				     "(J1.java:9) since "), "%s", f->summary);
	cr_assert(strstr(f->summary, "a timed sleep, not a lock"), "%s", f->summary);
	cr_assert_null(strstr(f->summary, "waits on another lock"), "%s", f->summary);
	cr_assert_null(strstr(f->summary, "FUTEX_WAIT"), "%s", f->summary);
	for (size_t i = 0; i < R->n_findings; i++)
		cr_assert(R->findings[i].kind == LT_FIND_HOLDER_BLOCKED || !has_lock(&R->findings[i], JSLEEP),
			  "the sleep's own word is no lock: %s", R->findings[i].summary);
	done();
	/* the same holder in another wait on its own condvar: as before */
	java_sleep_case(0);
	f = must_find(LT_FIND_HOLDER_BLOCKED, NULL);
	cr_assert_null(strstr(f->summary, "Thread.sleep"), "%s", f->summary);
	done();
}

/* A thread in Thread.sleep() holding a ReentrantReadWriteLock's read lock
 * (J1.java's "reader"): its wait looks like an idle pool's (a condvar
 * nobody signalled, nothing handed through it), but it is no pool worker
 * waiting for work: a note names it asleep in Thread.sleep(), where. */
Test(report, a_thread_in_thread_sleep_is_named_so_not_an_idle_pool)
{
	java_sleep_case_rw(1, 1);
	int named = 0;
	for (size_t k = 0; k < R->n_notes; k++) {
		cr_assert(!(strstr(R->notes[k], "an idle pool") && strstr(R->notes[k], "(501)")), "%s", R->notes[k]);
		named |= strstr(R->notes[k], "1 thread is asleep in Java's Thread.sleep(): 501 (sleep-holder) at "
					     "J1.sleep (J1.java:9): a timed sleep, not a wait for a lock nor an idle "
					     "pool's wait for work") != NULL;
	}
	if (!named)
		for (size_t k = 0; k < R->n_notes; k++)
			fprintf(stderr, "note: %s\n", R->notes[k]);
	cr_assert(named, "a note names the sleeper");
	/* the writer still waits on the lock nobody is known to hold */
	const struct lt_report_finding *f = must_find(LT_FIND_STALLED_WAITERS, NULL);
	cr_assert(has_tid(f, 502) && strstr(f->summary, "the java.util.concurrent lock"), "%s", f->summary);
	done();
}

/* The finding's summary of a java.util.concurrent lock named NAME by the
 * snapshot, that thread 501 waits on and nobody holds (a malloc'd copy). */
static char *juc_waiter_summary(const char *name)
{
	header(TIDS(PID, 501));
	blocked_at_attach(1, JMON, COND_WAIT, 0, 3 * SEC);
	start();
	char *snap;
	cr_assert_geq(asprintf(&snap,
		"{\"schema\": \"locktrace.snapshot/1\", \"pid\": %d, \"comm\": \"java\", \"occasion\": \"end\","
		" \"taken_monotonic_ns\": %llu, \"verdicts\": [],"
		" \"runtime_locks\": [{\"model\": \"hotspot\", \"kind\": \"java.util.concurrent lock\", \"name\": \"%s\","
		" \"held\": 0}], \"threads\": ["
		"{\"tid\": 501, \"comm\": \"sem-waiter\", \"state\": \"S\", \"blocked_s\": 3.0,"
		" \"syscall\": {\"nr\": 202, \"name\": \"futex\"}, \"wait\": \"futex\","
		" \"futex\": {\"uaddr\": \"0x560000002300\", \"op\": 393, \"is_wait\": true, \"expected\": 0,"
		" \"word\": 0, \"owner_kind\": \"none\", \"owner\": null, \"lock_kind\": \"java.util.concurrent lock\","
		" \"lock_name\": \"%s\", \"runtime_lock\": 0}}]}",
		PID, (unsigned long long)(BASE + 2 * SEC), name, name), 0);
	cr_assert_eq(lt_report_snapshot(R, snap, strlen(snap)), 0);
	free(snap);
	finish(BASE + 2 * SEC + 10 * MS);
	const struct lt_report_finding *f = must_find(LT_FIND_STALLED_WAITERS, NULL);
	char *sum = strdup(f->summary);
	done();
	return sum;
}

/* A Java class name is said whole in the findings (the trial's
 * "java.util.concurrent.Semaphore$NonfairSy (" and "...ReentrantRead ("),
 * however long the JVM's class names go (255 bytes as the snapshot reads
 * them); a name longer than the report keeps ends with a visible "...". */
Test(report, java_lock_class_names_are_whole_in_the_findings)
{
	static const char *const names[] = {
		"java.util.concurrent.Semaphore$NonfairSync@0x69ec1b550",
		"java.util.concurrent.locks.ReentrantReadWriteLock$NonfairSync@0x69ec1b050",
	};
	for (size_t i = 0; i < sizeof(names) / sizeof(names[0]); i++) {
		char *sum = juc_waiter_summary(names[i]);
		char want[256];
		snprintf(want, sizeof(want), "waits on the java.util.concurrent lock %s (0x560000002300)", names[i]);
		cr_assert(strstr(sum, want), "%s", sum);
		free(sum);
	}
	/* a 255-byte class name, as long as the snapshot reads them */
	char cls[256 + 32];
	memset(cls, 'a', 255);
	memcpy(cls, "com.example.", 12);
	snprintf(cls + 255, sizeof(cls) - 255, "@0x69ec1b550");
	char *sum = juc_waiter_summary(cls);
	cr_assert(strstr(sum, cls) && strstr(strstr(sum, cls), "@0x69ec1b550 (0x560000002300)"), "%s", sum);
	free(sum);
	/* longer than any the snapshot gives: cut, and said to be */
	char huge[1200];
	memset(huge, 'b', sizeof(huge) - 1);
	huge[sizeof(huge) - 1] = 0;
	sum = juc_waiter_summary(huge);
	cr_assert(strstr(sum, "bbb... (0x560000002300)"), "%s", sum);
	free(sum);
}

/* ---- deadlock ------------------------------------------------------- */

Test(report, deadlock_from_the_snapshot_owners)
{
	header(TIDS(PID, 501, 502));
	blocked_at_attach(1, L2, FUTEX_WAIT_PRIVATE, 2, 300 * MS);
	blocked_at_attach(2, L1, FUTEX_WAIT_PRIVATE, 2, 300 * MS);
	start();
	snapshot("{\"tid\": 501, \"comm\": \"a\", \"state\": \"S\", \"blocked_s\": 0.3, \"syscall\": {\"nr\": 202},"
		 " \"futex\": {\"uaddr\": \"0x560000001180\", \"lock\": \"L2\", \"is_wait\": true, \"expected\": 2,"
		 " \"word\": 2, \"owner_kind\": \"mutex\", \"owner\": 502}},"
		 "{\"tid\": 502, \"comm\": \"b\", \"state\": \"S\", \"blocked_s\": 0.3, \"syscall\": {\"nr\": 202},"
		 " \"futex\": {\"uaddr\": \"0x5600000011c0\", \"lock\": \"L1\", \"is_wait\": true, \"expected\": 2,"
		 " \"word\": 2, \"owner_kind\": \"mutex\", \"owner\": 501}}");
	finish(BASE + 2 * SEC);
	const struct lt_report_finding *f = must_find(LT_FIND_DEADLOCK, NULL);
	cr_assert_eq(f->n_tids, 2);
	cr_assert_eq(f->n_locks, 2);
	/* parallel: each thread and the lock it waits on */
	for (int i = 0; i < 2; i++)
		cr_assert_eq(f->locks[i], f->tids[i] == 501 ? L2 : L1);
	cr_assert(strstr(f->summary, "501 (t501) -> 502 (t502) -> 501") ||
		  strstr(f->summary, "502 (t502) -> 501 (t501) -> 502"), "%s", f->summary);
	cr_assert_null(find(LT_FIND_LOST_WAKEUP, NULL));
	done();
}

Test(report, deadlock_from_events_alone)
{
	uint64_t t = begin(TIDS(PID, 501, 502));
	wait_sleep(t, 501, FUTEX_WAIT_PRIVATE, L1, 2);
	handoff(t + 1 * MS, PID, 501, L1); /* 501 holds L1 */
	wait_sleep(t + 2 * MS, 502, FUTEX_WAIT_PRIVATE, L2, 2);
	handoff(t + 3 * MS, PID, 502, L2); /* 502 holds L2 */
	wait_sleep(t + 4 * MS, 501, FUTEX_WAIT_PRIVATE, L2, 2);
	wait_sleep(t + 5 * MS, 502, FUTEX_WAIT_PRIVATE, L1, 2);
	finish(t + 2 * SEC);
	const struct lt_report_finding *f = must_find(LT_FIND_DEADLOCK, NULL);
	cr_assert(has_tid(f, 501) && has_tid(f, 502) && f->n_tids == 2);
	cr_assert(has_lock(f, L1) && has_lock(f, L2));
	cr_assert_null(find(LT_FIND_HOLDER_BLOCKED, NULL), "the cycle is not also a chain");
	done();
}

/* ---- convoy, holder preempted ---------------------------------------- */

Test(report, convoy_of_handoffs_through_a_queue)
{
	uint64_t t = begin(TIDS(PID, 501, 502, 503, 504, 505, 506));
	for (uint32_t k = 501; k <= 506; k++)
		wait_sleep(t + (k - 500) * 10 * US, k, FUTEX_WAIT_PRIVATE, L1, 2);
	/* 500 hands it to 501, 501 to 502, ... each woken thread the next */
	uint32_t waker = PID;
	for (uint32_t k = 501; k <= 506; k++) {
		handoff(t + (k - 500) * MS, waker, k, L1);
		waker = k;
	}
	futex(t + 10 * MS, 506, FUTEX_WAKE_PRIVATE, L1, 1);
	sys_exit(t + 10 * MS + US, 506, NR_futex, 0);
	finish(t + 20 * MS);
	must_find(LT_FIND_CONVOY, NULL);
	const struct lt_report_lock *l = lock_at(L1);
	cr_assert_eq(l->handoffs, 6);
	cr_assert_eq(l->longest_chain, 6);
	cr_assert_eq(l->max_moving, 6, "6 queued when the first hand-off happened");
	cr_assert_eq(l->max_waiters, 6);
	cr_assert_eq(l->n_waiters, 6);
	cr_assert_eq(l->n_wakers, 7);
	cr_assert_str_eq(l->kind, "mutex");
	cr_assert_null(find(LT_FIND_STALL, NULL), "nothing is stuck at the end");
	done();
}

/* 501 takes L1 at t + 1 ms, the main thread waits for it from t + 2 ms,
 * and 501 is preempted at t + 3 ms. */
static void holder_preempted(uint64_t t)
{
	wait_sleep(t, 501, FUTEX_WAIT_PRIVATE, L1, 2);
	handoff(t + 1 * MS, PID, 501, L1);
	wait_sleep(t + 2 * MS, PID, FUTEX_WAIT_PRIVATE, L1, 2);
	off(t + 3 * MS, 501, 1);
}

Test(report, holder_preempted_while_others_wait)
{
	uint64_t t = begin(TIDS(PID, 501));
	holder_preempted(t); /* for 20 ms */
	on(t + 23 * MS, 501);
	handoff(t + 24 * MS, 501, PID, L1);
	finish(t + 30 * MS);
	const struct lt_report_finding *f = must_find(LT_FIND_HOLDER_OFFCPU, "preempted");
	cr_assert_eq(f->holder, 501);
	cr_assert_eq(f->duration_ns, 20 * MS);
	cr_assert_eq(f->since, t + 3 * MS);
	const struct lt_report_lock *l = lock_at(L1);
	cr_assert_eq(l->offcpu_count, 1);
	/* a short preemption is not worth a finding */
	done();
	header(TIDS(PID, 501));
	start();
	holder_preempted(t);
	on(t + 4 * MS, 501);
	handoff(t + 5 * MS, 501, PID, L1);
	finish(t + 30 * MS);
	cr_assert_null(find(LT_FIND_HOLDER_OFFCPU, NULL));
	/* every switch is in the trace: no word of missing ones */
	cr_assert_eq(R->unseen_switches, 0);
	char *buf = TL_PRINTED(NULL, lt_report_print_json, R);
	cr_assert_null(strstr(buf, "switches_not_in_trace"));
	cr_assert_null(strstr(buf, "not in the trace"));
	free(buf);
	buf = TL_PRINTED(NULL, lt_report_print_text, R);
	cr_assert_null(strstr(buf, "not in the trace"));
	free(buf);
	done();
}

/* The kernel reports no switch whose previous task is a thread of PID 1
 * (a Firecracker VM's agent): a holder preempted by one has no switch back
 * in the trace.  Its next own event is where it ran again. */
Test(report, a_holder_whose_switch_back_is_missing_ran_again_at_its_next_event)
{
	uint64_t t = begin(TIDS(PID, 501));
	holder_preempted(t);
	/* runs again at 4 ms, unreported, and unlocks at once; its next
	 * switch-in in the trace is at 30 ms, after a sleep */
	handoff(t + 4 * MS, 501, PID, L1);
	wait_sleep(t + 10 * MS, 501, FUTEX_WAIT_PRIVATE, L2, 2);
	handoff(t + 30 * MS, PID, 501, L2);
	finish(t + 40 * MS);
	cr_assert_null(find(LT_FIND_HOLDER_OFFCPU, NULL), "off the cpu for 1 ms, not 27");
	cr_assert_eq(lock_at(L1)->offcpu_count, 0);
	/* waiting for a cpu: 3 to 4 ms, and 4 us after each wake-up */
	cr_assert_eq(thread(501)->runnable_ns, 1 * MS + 8 * US);
	cr_assert_eq(thread(501)->end_state, LT_RTS_RUNNING);
	cr_assert_eq(R->unseen_switches, 1);
	int said = 0;
	for (size_t i = 0; i < R->n_notes; i++)
		said += strstr(R->notes[i], "1 switch that put a traced thread on a cpu was not in the trace") != NULL;
	cr_assert_eq(said, 1);
	char *buf = TL_PRINTED(NULL, lt_report_print_json, R);
	cr_assert(strstr(buf, "\"switches_not_in_trace\": 1,"));
	free(buf);
	done();

	done();
}

/* ---- no false alarms ------------------------------------------------- */

Test(report, healthy_trace_and_a_join_wait_have_no_findings)
{
	uint64_t t = begin(TIDS(PID, 501));
	wait_sleep(t, 501, FUTEX_WAIT_PRIVATE, L1, 2);
	handoff(t + 1 * MS, PID, 501, L1);
	/* the main thread joins 501 (sleeps on its tid word) for 5 s */
	wait_sleep(t + 2 * MS, PID, FUTEX_WAIT_PRIVATE, 0x7f0000001000ull, 501);
	finish(t + 5 * SEC);
	if (R->n_findings)
		dump_findings();
	cr_assert_eq(R->n_findings, 0);
	cr_assert_str_eq(lock_at(0x7f0000001000ull)->kind, "join");
	done();
}

/* CPython 3.11's Thread.join() waits on the joined thread's _tstate_lock
 * (a semaphore: condvar-shaped waits); the snapshot at the end read the
 * joined thread, asleep on a timer.  A join lasts while that thread runs:
 * no "lock holder asleep" finding, no stalled waiters (a users' trial: the
 * first finding of a program whose real contention was elsewhere). */
Test(report, a_join_on_a_sleeping_thread_is_no_held_lock)
{
	uint64_t t = begin(TIDS(PID, 501));
	wait_sleep(t, PID, COND_WAIT, 0x7f0000001000ull, 0);
	snapshot("{\"tid\": 500, \"state\": \"S\", \"blocked_s\": 3.0, \"syscall\": {\"nr\": 202},"
		 " \"futex\": {\"uaddr\": \"0x7f0000001000\", \"op\": 393, \"is_wait\": true, \"expected\": 0,"
		 " \"word\": 0, \"owner_kind\": \"join\", \"owner\": 501, \"lock_kind\": \"thread exit (Thread.join)\"}},"
		 "{\"tid\": 501, \"state\": \"S\", \"blocked_s\": 0.01, \"syscall\": {\"nr\": 230,"
		 " \"name\": \"clock_nanosleep\"}, \"wait\": \"sleep\"}");
	finish(t + 3 * SEC);
	for (size_t i = 0; i < R->n_findings; i++)
		cr_assert(!has_tid(&R->findings[i], PID) && R->findings[i].holder != 501, "%s",
			  R->findings[i].summary);
	done();
}

/* One write of a pipe (as --calls blocking sees a writer's many calls
 * between two sleeps: one call) wakes its reader 70 times, more than the
 * timeline keeps per call (LT_TIMELINE_MAX_EDGES): every wake-up is still
 * credited to the writer's call ("io"), none to "other". */
Test(report, wake_ups_past_the_kept_edges_are_still_the_calls)
{
	uint64_t t = begin(TIDS(PID, 501, 502));
	io_flagged(t, 501, 1, 4, LT_F_IO_PIPE);
	for (int i = 0; i < 70; i++) {
		uint64_t at = t + 10 * US + (uint64_t)i * 100 * US;
		io_flagged(at, 502, NR_read, 3, LT_F_IO_PIPE);
		off(at + 1 * US, 502, 0);
		waking(at + 20 * US, 502, 501);
		on(at + 30 * US, 502);
		sys_exit(at + 31 * US, 502, NR_read, 8192);
	}
	finish(t + 1 * SEC);
	const struct lt_report_edge *e = NULL;
	for (size_t i = 0; i < R->n_edges; i++)
		if (R->edges[i].waker == 501 && R->edges[i].wakee == 502)
			e = &R->edges[i];
	cr_assert_not_null(e);
	cr_assert_eq(e->count, 70);
	cr_assert_eq(e->via_io, 70, "io %llu, other %llu", (unsigned long long)e->via_io,
		     (unsigned long long)e->other);
	done();
}

/* ---- tables ---------------------------------------------------------- */

Test(report, wait_time_quantiles_from_the_histogram)
{
	uint64_t t = begin(TIDS(PID, 501));
	/* 99 waits of 1 ms, one of 1 s */
	for (int i = 0; i < 100; i++) {
		uint64_t d = i == 99 ? SEC : MS;
		futex(t, 501, FUTEX_WAIT_PRIVATE, L1, 2);
		off(t + 1 * US, 501, 0);
		on(t + d, 501);
		sys_exit(t + d, 501, NR_futex, 0);
		t += d + 10 * US;
	}
	finish(t + 1 * MS);
	const struct lt_report_lock *l = lock_at(L1);
	cr_assert_not_null(l);
	cr_assert_eq(l->waits, 100);
	cr_assert_eq(l->max_ns, SEC);
	cr_assert_eq(l->total_ns, 99 * MS + SEC);
	/* within one bucket (12.5%) of the truth */
	cr_assert(l->median_ns >= 875 * US && l->median_ns <= 1125 * US, "median %lu", (unsigned long)l->median_ns);
	cr_assert(l->p99_ns >= 875 * US && l->p99_ns <= 1125 * US, "p99 %lu", (unsigned long)l->p99_ns);
	cr_assert_eq(l->n_waiters, 1);
	cr_assert_eq(l->n_wakers, 0);
	done();
}

Test(report, where_each_threads_time_went)
{
	header(TIDS(PID, 501));
	start();
	uint64_t t = BASE; /* a first switch-in means it waited for a cpu since the start */
	/* 501: runs 10 ms, sleeps 20 ms in a futex wait, waits 5 ms for a cpu,
	 * runs 1 ms, sleeps 30 ms in select, runs 4 ms to the end */
	on(t, 501);
	futex(t + 10 * MS, 501, FUTEX_WAIT_PRIVATE, L1, 2);
	off(t + 10 * MS, 501, 0);
	waking(t + 30 * MS, 501, PID);
	on(t + 35 * MS, 501);
	sys_exit(t + 35 * MS, 501, NR_futex, 0);
	sel(t + 36 * MS, 501, 3);
	off(t + 36 * MS, 501, 0);
	waking(t + 66 * MS, 501, 0);
	on(t + 66 * MS, 501);
	sys_exit(t + 66 * MS, 501, NR_pselect6, 1);
	finish(t + 70 * MS);
	const struct lt_report_thread *x = thread(501);
	cr_assert_not_null(x);
	cr_assert_eq(x->futex_ns, 20 * MS);
	cr_assert_eq(x->runnable_ns, 5 * MS);
	cr_assert_eq(x->poll_ns, 30 * MS);
	cr_assert_eq(x->running_ns, 15 * MS);
	cr_assert_eq(x->futex_waits, 1);
	cr_assert_eq(x->polls, 1);
	cr_assert_eq(x->end_state, LT_RTS_RUNNING);
	cr_assert_eq(x->n_last, 2);
	cr_assert_eq(x->last[1].nr, NR_pselect6);
	cr_assert_eq(x->last[1].ret, 1);
	done();
}

Test(report, wake_edges_count_who_woke_whom)
{
	uint64_t t = begin(TIDS(PID, 501, 502));
	for (int i = 0; i < 3; i++) {
		wait_sleep(t, 501, FUTEX_WAIT_PRIVATE, L1, 2);
		handoff(t + 1 * MS, 502, 501, L1);
		t += 2 * MS;
	}
	wait_sleep(t, PID, FUTEX_WAIT_PRIVATE, L2, 2);
	handoff(t + 1 * MS, 501, PID, L2);
	finish(t + 5 * MS);
	cr_assert_eq(R->n_edges, 2);
	cr_assert_eq(R->edges[0].waker, 502, "sorted by count");
	cr_assert_eq(R->edges[0].wakee, 501);
	cr_assert_eq(R->edges[0].count, 3);
	cr_assert_eq(R->edges[0].via_futex, 3);
	cr_assert_eq(R->edges[0].lock, L1);
	cr_assert_eq(R->edges[1].count, 1);
	done();
}

Test(report, losses_are_noted_with_cpu_kind_and_time)
{
	header(TIDS(PID));
	start();
	struct lt_event e = mk(LT_EV_LOST, BASE + 5 * MS, 0);
	e.h.cpu = 1;
	e.lost.lost_kind = LT_EV_SWITCH;
	e.lost.count = 42;
	feed(&e);
	e.h.ts = BASE + 9 * MS;
	e.lost.count = 8;
	feed(&e);
	finish(BASE + 10 * MS);
	cr_assert_eq(R->lost_total, 50);
	cr_assert_eq(R->n_losses, 1);
	cr_assert_eq(R->losses[0].cpu, 1);
	cr_assert_eq(R->losses[0].kind, LT_EV_SWITCH);
	cr_assert_eq(R->losses[0].first_ts, BASE + 5 * MS);
	cr_assert_eq(R->losses[0].last_ts, BASE + 9 * MS);
	char *buf = TL_PRINTED(NULL, lt_report_print_text, R);
	cr_assert(strstr(buf, "50 EVENTS LOST"), "%s", buf);
	cr_assert(strstr(buf, "cpu 1: 50 switch events, between 100.005000 and 100.009000"), "%s", buf);
	free(buf);
	done();
}

/* ---- output ---------------------------------------------------------- */

Test(report, json_output_parses_and_escapes_names)
{
	header(TIDS(PID, 501, 502, 503));
	snprintf(TI[1].comm, sizeof(TI[1].comm), "q\"uo\\te\n\xff");
	start();
	uint64_t t = BASE + 10 * MS;
	wait_sleep(t, 501, COND_WAIT, G0, 0);
	handoff(t + 1 * MS, 502, 501, G0);
	wait_sleep(t + 2 * MS, 502, COND_WAIT, G1, 0);
	io(t + 4 * MS, 501, NR_read, 7);
	off(t + 4 * MS + 10 * US, 501, 0);
	finish(t + 3 * SEC);
	size_t len;
	char *buf = TL_PRINTED(&len, lt_report_print_json, R);
	struct rp_json *j = tl_json_of(buf, len);
	cr_assert_str_eq(rp_json_str(rp_json_get(j, "schema")), "locktrace.report/1");
	const struct rp_json *th = rp_json_get(j, "threads");
	cr_assert(th && th->type == RPJ_ARR && th->n == 4);
	const char *name = rp_json_str(rp_json_get(&th->items[1], "name"));
	/* every byte but the one that is not UTF-8, which reads as U+FFFD */
	cr_assert_str_eq(name, "q\"uo\\te\n\xef\xbf\xbd", "the name survives escaping");
	cr_assert(strstr(buf, "\\ufffd") && strstr(buf, "\\n") && strstr(buf, "q\\\"uo\\\\te"),
		  "raw bytes are escaped");
	const struct rp_json *fs = rp_json_get(j, "findings");
	cr_assert(fs && fs->n >= 1);
	cr_assert_str_eq(rp_json_str(rp_json_get(&fs->items[0], "kind")), "holder_blocked");
	cr_assert_eq(rp_json_num(rp_json_get(&fs->items[0], "holder"), 0), 501);
	cr_assert_eq(rp_json_num(rp_json_get(&fs->items[0], "fd"), 0), 7);
	uint64_t a = 0;
	cr_assert(rp_json_addr(&rp_json_get(rp_json_get(j, "locks")->items, "words")->items[1], &a));
	cr_assert_eq(a, G1);
	rp_json_free(j);
	free(buf);
	done();
}

/* report --json carries the snapshots stored in the trace as they were
 * written, each with why it was taken (stored, or from the order). */
Test(report, json_carries_the_stored_snapshots)
{
	header(TIDS(PID));
	start();
	snapshot("{\"tid\": 500, \"comm\": \"app\"}");
	const char *end = "{\"schema\": \"locktrace.snapshot/1\", \"pid\": 500, \"occasion\": \"end\","
			  " \"threads\": [{\"tid\": 500, \"comm\": \"app2\"}]}";
	cr_assert_eq(lt_report_snapshot(R, end, strlen(end)), 0);
	cr_assert_eq(lt_report_snapshot(R, "{", 1), -1, "a damaged one is left out");
	finish(BASE + SEC);
	size_t len;
	char *buf = TL_PRINTED(&len, lt_report_print_json, R);
	struct rp_json *j = tl_json_of(buf, len);
	const struct rp_json *st = rp_json_get(j, "stored_snapshots");
	cr_assert(st && st->type == RPJ_ARR && st->n == 2, "%s", buf);
	cr_assert_str_eq(rp_json_str(rp_json_get(&st->items[0], "occasion")), "start");
	cr_assert_str_eq(rp_json_str(rp_json_get(&st->items[1], "occasion")), "end");
	const struct rp_json *s0 = rp_json_get(&st->items[0], "snapshot");
	cr_assert_str_eq(rp_json_str(rp_json_get(s0, "schema")), "locktrace.snapshot/1");
	cr_assert_eq(rp_json_num(rp_json_get(rp_json_get(s0, "future_field"), "x")->items + 1, 0), 2500,
		     "stored as written, unknown fields too");
	const struct rp_json *t1 = rp_json_get(rp_json_get(&st->items[1], "snapshot"), "threads");
	cr_assert_str_eq(rp_json_str(rp_json_get(&t1->items[0], "comm")), "app2");
	rp_json_free(j);
	free(buf);
	done();
}

Test(report, json_reader_is_strict_about_syntax_and_tolerant_about_content)
{
	char err[160];
	const char *bad[] = { "{", "{\"a\" 1}", "[1,]", "{\"a\": tru}", "\"abc", "{} x", "[\"\\q\"]",
			      "\"\\u12\"" };
	for (size_t i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
		struct rp_json *j = rp_json_parse(bad[i], strlen(bad[i]), err, sizeof(err));
		cr_assert_null(j, "accepted %s", bad[i]);
		cr_assert(strstr(err, "at byte"), "%s", err);
	}
	char deep[300];
	memset(deep, '[', sizeof(deep));
	cr_assert_null(rp_json_parse(deep, sizeof(deep), err, sizeof(err)), "nesting is bounded");
	const char *ok = "{\"s\": \"\\u00e9\\ud83d\\ude00\\t\", \"n\": -1.5e2, \"a\": \"0x10\"}";
	struct rp_json *j = rp_json_parse(ok, strlen(ok) + 1 /* a trailing NUL */, err, sizeof(err));
	cr_assert_not_null(j, "%s", err);
	cr_assert_str_eq(rp_json_str(rp_json_get(j, "s")), "\xe9\xf0\x9f\x98\x80\t");
	cr_assert_eq(rp_json_num(rp_json_get(j, "n"), 0), -150);
	uint64_t a;
	cr_assert(rp_json_addr(rp_json_get(j, "a"), &a) && a == 16);
	cr_assert_null(rp_json_get(j, "missing"));
	cr_assert_eq(rp_json_num(rp_json_get(j, "s"), 7), 7, "mistyped reads as the default");
	rp_json_free(j);
	/* a snapshot of another schema is ignored with a note */
	header(TIDS(PID));
	start();
	const char *other = "{\"schema\": \"something/2\", \"threads\": []}";
	cr_assert_eq(lt_report_snapshot(R, other, strlen(other)), -1);
	cr_assert_eq(lt_report_snapshot(R, "{", 1), -1);
	finish(BASE + MS);
	int notes = 0;
	for (size_t i = 0; i < R->n_notes; i++)
		notes += strstr(R->notes[i], "snapshot section") != NULL;
	cr_assert_eq(notes, 2);
	done();
}

/* ---- files ----------------------------------------------------------- */

static void write_trace(const char *path)
{
	struct lt_writer *w;
	header(TIDS(PID, 501));
	cr_assert_eq(lt_writer_open(&w, path, 1), 0);
	cr_assert_eq(lt_writer_header(w, &H), 0);
	uint64_t t = BASE + 10 * MS;
	for (int i = 0; i < 3; i++) {
		struct lt_event e = mk(LT_EV_FUTEX_ENTER, t + (uint64_t)i * 2 * SEC, 501);
		e.futex.nr = NR_futex;
		e.futex.op = FUTEX_WAIT_PRIVATE;
		e.futex.uaddr = L1;
		e.futex.val = 2;
		e.futex.timeout = -1;
		e.futex.val3 = 0xffffffff;
		cr_assert_eq(lt_writer_event(w, &e), 0);
		struct lt_event x = mk(LT_EV_SYS_EXIT, t + (uint64_t)i * 2 * SEC + MS, 501);
		x.exit.nr = NR_futex;
		x.exit.ret = 0;
		cr_assert_eq(lt_writer_event(w, &x), 0);
		cr_assert_eq(lt_writer_flush(w), 0); /* one chunk each */
	}
	cr_assert_eq(lt_writer_close(w), 0);
}

Test(report, files_not_a_trace_and_cut_short)
{
	char path[] = "/tmp/lt-report-test-XXXXXX";
	int fd = mkstemp(path);
	cr_assert_geq(fd, 0);
	cr_assert_eq(write(fd, "hello, world\n", 13), 13);
	close(fd);
	char err[768], *buf = NULL;
	size_t len = 0;
	FILE *out = open_memstream(&buf, &len);
	cr_assert_eq(lt_report_file_opts(path, out, 0, NULL, err, sizeof(err)), 1);
	cr_assert(strstr(err, "not a locktrace trace"), "%s", err);

	write_trace(path);
	cr_assert_eq(lt_report_file_opts(path, out, 0, NULL, err, sizeof(err)), 0);
	cr_assert_str_eq(err, "");
	fclose(out);
	cr_assert(strstr(buf, "locktrace report: process 500"), "%s", buf);
	free(buf);

	/* cut in the middle of the last chunk: the first two are reported */
	struct stat st;
	cr_assert_eq(stat(path, &st), 0);
	cr_assert_eq(truncate(path, st.st_size - 16 - 5), 0); /* the END chunk and into the last */
	buf = NULL;
	out = open_memstream(&buf, &len);
	cr_assert_eq(lt_report_file_opts(path, out, 1, NULL, err, sizeof(err)), 3);
	fclose(out);
	cr_assert(strstr(err, "cut short") && strstr(err, "at offset"), "%s", err);
	struct rp_json *j = tl_json_of(buf, len);
	const struct rp_json *tr = rp_json_get(j, "trace");
	cr_assert_eq(rp_json_get(tr, "clean_end")->type, RPJ_FALSE);
	cr_assert(rp_json_num(rp_json_get(rp_json_get(tr, "cut"), "offset"), 0) > 0);
	cr_assert_eq(rp_json_num(rp_json_get(tr, "events"), 0), 4, "two chunks of two events");
	rp_json_free(j);
	free(buf);
	unlink(path);
}

/* SYMBOLS payload: key 1 per name, nested TLV with 1 addr and 2 name */
static size_t put_varint(uint8_t *p, uint64_t v)
{
	size_t n = 0;
	do {
		p[n++] = (uint8_t)((v & 0x7f) | (v >= 0x80 ? 0x80 : 0));
		v >>= 7;
	} while (v);
	return n;
}

static size_t sym_entry(uint8_t *out, uint64_t addr, const char *name)
{
	uint8_t in[128];
	size_t n = 0, a;
	uint8_t av[16];
	a = put_varint(av, addr);
	in[n++] = 1;
	n += put_varint(in + n, a);
	memcpy(in + n, av, a);
	n += a;
	in[n++] = 2;
	n += put_varint(in + n, strlen(name));
	memcpy(in + n, name, strlen(name));
	n += strlen(name);
	size_t m = 0;
	out[m++] = 1;
	m += put_varint(out + m, n);
	memcpy(out + m, in, n);
	return m + n;
}

Test(report, symbols_sections_name_locks_and_a_later_name_wins)
{
	header(TIDS(PID, 501, 502, 503));
	start();
	uint8_t buf[512];
	size_t n = 0;
	n += sym_entry(buf + n, G0, "rtlock+0x50");
	n += sym_entry(buf + n, G1, "rtlock+0x54");
	n += sym_entry(buf + n, L1, "wrong");
	cr_assert_eq(lt_report_symbols(R, buf, n), 0);
	n = sym_entry(buf, L1, "rtlock");
	cr_assert_eq(lt_report_symbols(R, buf, n), 0);
	uint64_t t = BASE + 10 * MS;
	wait_sleep(t, 501, COND_WAIT, G0, 0);
	handoff(t + 1 * MS, 502, 501, G0);
	wait_sleep(t + 1500 * US, 501, FUTEX_WAIT_PRIVATE, L1, 2);
	handoff(t + 1700 * US, 502, 501, L1);
	wait_sleep(t + 2 * MS, 502, COND_WAIT, G1, 0);
	io(t + 4 * MS, 501, NR_read, 7);
	off(t + 4 * MS + 10 * US, 501, 0);
	finish(t + 3 * SEC);
	char nm[64];
	cr_assert_str_eq(lt_report_lock_name(R, L1, nm, sizeof(nm)), "rtlock");
	cr_assert_str_eq(lock_at(G0)->symbol, "rtlock+0x50/+0x54");
	const struct lt_report_finding *f = find(LT_FIND_HOLDER_BLOCKED, "io");
	cr_assert_not_null(f);
	cr_assert(strstr(f->summary, "rtlock+0x50/+0x54 (0x5600000011b0, condition variable)"), "%s", f->summary);
	int related = 0;
	for (size_t k = 0; k < f->n_evidence; k++)
		related |= strstr(f->evidence[k], "part of the same object rtlock: rtlock (0x5600000011c0, mutex)") != NULL;
	cr_assert(related, "the mutex of the same object is mentioned");
	/* damaged: what came before stays */
	n = sym_entry(buf, 0x1234, "x");
	buf[1] = 100; /* the entry claims more bytes than there are */
	cr_assert_eq(lt_report_symbols(R, buf, n), -1);
	done();
}

/* Attached after it stalled (a flight dump whose ring starts late): no
 * event shows who took the condition variable; the snapshot's stacks do. */
static const char *stack_of(const char *f1, const char *f2)
{
	static char buf[8][256];
	static int k;
	char *b = buf[k++ % 8]; /* five in one call */
	snprintf(b, 256,
		 "\"user_stack\": {\"frames\": [{\"func\": \"__futex_abstimed_wait_common\", \"module\": \"libc.so.6\"},"
		 " {\"func\": \"%s\", \"module\": \"app\", \"file\": \"app.c\", \"line\": 10},"
		 " {\"func\": \"%s\", \"module\": \"app\", \"file\": \"app.c\", \"line\": 20}]}",
		 f1, f2);
	return b;
}

static void hung_before_the_trace(int second_suspect)
{
	header(TIDS(PID, 501, 502, 503, 504));
	H.flags = LT_HDR_FLIGHT;
	for (int i = 0; i < 5; i++)
		TI[i].sc_nr = -2;
	start();
	char th[4096];
	snprintf(th, sizeof(th),
		 "{\"tid\": 500, \"state\": \"S\", \"blocked_s\": 3.0, \"syscall\": {\"nr\": 34, \"name\": \"pause\"},"
		 " \"wait\": \"sleep\", %s},"
		 "{\"tid\": 501, \"state\": \"S\", \"blocked_s\": 2.5, \"syscall\": {\"nr\": 202, \"name\": \"futex\"},"
		 " \"futex\": {\"uaddr\": \"0x5600000011b0\", \"lock\": \"rtlock+0x50\", \"op\": 393, \"is_wait\": true,"
		 " \"expected\": 0, \"word\": 0, \"owner_kind\": \"none\", \"owner\": null}, %s},"
		 "{\"tid\": 502, \"state\": \"S\", \"blocked_s\": 2.4, \"syscall\": {\"nr\": 202, \"name\": \"futex\"},"
		 " \"futex\": {\"uaddr\": \"0x5600000011b4\", \"lock\": \"rtlock+0x54\", \"op\": 393, \"is_wait\": true,"
		 " \"expected\": 0, \"word\": 0, \"owner_kind\": \"none\", \"owner\": null}, %s},"
		 "{\"tid\": 503, \"state\": \"S\", \"blocked_s\": 2.45, \"syscall\": {\"nr\": 0, \"name\": \"read\"},"
		 " \"wait\": \"io\", \"io_fd\": {\"fd\": 7, \"kind\": \"socket\", \"target\": \"socket:[1]\"}, %s},"
		 "{\"tid\": 504, \"state\": \"S\", \"blocked_s\": 1.0, \"syscall\": {\"nr\": %d, \"name\": \"x\"},"
		 " \"wait\": \"io\", \"io_fd\": {\"fd\": 9, \"kind\": \"socket\"}, %s}",
		 stack_of("main", "main"), stack_of("rt_acquire", "worker"), stack_of("rt_acquire", "worker"),
		 stack_of("worker", "start"), second_suspect ? 0 : 230,
		 second_suspect ? stack_of("xfer", "worker") : stack_of("watchdog", "watchdog"));
	snapshot(th);
	/* the ring holds only the watchdog's ticks */
	off(BASE - 100 * MS, 504, 0);
	finish(BASE + 5 * MS);
}

Test(report, probable_holder_from_the_snapshot_when_the_trace_began_late)
{
	hung_before_the_trace(0);
	const struct lt_report_finding *f = must_find(LT_FIND_HOLDER_BLOCKED, "io");
	cr_assert_eq(f->holder, 503);
	cr_assert_eq(f->fd, 7);
	cr_assert(has_lock(f, G0) && has_lock(f, G1));
	cr_assert(strstr(f->summary, "probable holder 503"), "%s", f->summary);
	cr_assert(strstr(f->summary, "read(socket fd 7"), "%s", f->summary);
	cr_assert_eq(f->since, BASE + 1 * MS - 2450 * MS, "since the snapshot's blocked time");
	cr_assert_str_eq(lock_at(G0)->kind, "condvar");
	done();
}

/* CPython's threading.Condition: each waiter sleeps on a waiter lock of
 * its own (a sem_t in its own arena here), the snapshot names the
 * Condition (lock_base) and, when its RLock is held, the holder
 * (owner_kind condition_lock).  501-503 wait on COND_A unless
 * OTHER_COND, then 503 on COND_B; OWNED: the snapshot read 504 as the
 * holder of the Condition's lock; 504 is blocked in read(fd 7) throughout. */
#define W1 0x7f0000000ba0ull
#define W2 0x7f0004000ba0ull
#define W3 0x7f0008000ba0ull
#define COND_A 0x7f10000a0590ull
#define COND_B 0x7f10000a0610ull
static void condition_waiters_late(int owned, int other_cond, int late501)
{
	header(TIDS(PID, 501, 502, 503, 504));
	blocked_at_attach(1, W1, COND_WAIT, 0, 2 * SEC);
	blocked_at_attach(2, W2, COND_WAIT, 0, 2 * SEC);
	blocked_at_attach(3, W3, COND_WAIT, 0, 2 * SEC);
	TI[4].sc_nr = NR_read;
	TI[4].sc_args[0] = 7;
	TI[4].blocked_ns = 2 * SEC;
	start();
	char th[4096], fx[3][400];
	const uint64_t w[3] = { W1, W2, W3 };
	for (int i = 0; i < 3; i++)
		snprintf(fx[i], sizeof(fx[i]),
			 "{\"tid\": %d, \"state\": \"S\", \"blocked_s\": 2.0, \"syscall\": {\"nr\": 202, \"name\": \"futex\"},"
			 " \"futex\": {\"uaddr\": \"0x%llx\", \"op\": 393, \"is_wait\": true, \"expected\": 0, \"word\": 0,"
			 " \"lock_kind\": \"threading.Condition\", \"lock_base\": \"0x%llx\","
			 " \"owner_kind\": \"%s\", \"owner\": %s}}", 501 + i, (unsigned long long)w[i],
			 (unsigned long long)(other_cond && i == 2 ? COND_B : COND_A), owned ? "condition_lock" : "none",
			 owned ? "504" : "null");
	snprintf(th, sizeof(th),
		 "{\"tid\": 500, \"state\": \"S\", \"blocked_s\": 2.0, \"syscall\": {\"nr\": 230, \"name\": \"clock_nanosleep\"},"
		 " \"wait\": \"sleep\"}, %s, %s, %s,"
		 "{\"tid\": 504, \"state\": \"S\", \"blocked_s\": 2.0, \"syscall\": {\"nr\": 0, \"name\": \"read\"},"
		 " \"wait\": \"io\", \"io_fd\": {\"fd\": 7, \"kind\": \"socket\", \"target\": \"socket:[1]\"}}",
		 fx[0], fx[1], fx[2]);
	snapshot(th);
	if (late501) {
		/* woken at 1.8 s (its first group's wait ends) and waiting again
		 * at 1.9 s: its waiter is the object's youngest */
		uint64_t t = BASE + 1800 * MS;
		futex(t, PID, FUTEX_WAKE_PRIVATE, W1, 1);
		waking(t + 1 * US, 501, PID);
		sys_exit(t + 2 * US, PID, NR_futex, 1);
		on(t + 3 * US, 501);
		sys_exit(t + 4 * US, 501, NR_futex, 0);
		wait_sleep(BASE + 1900 * MS, 501, COND_WAIT, W1, 0);
	}
	finish(BASE + 2 * SEC);
}

static void condition_waiters(int owned, int other_cond)
{
	condition_waiters_late(owned, other_cond, 0);
}

static size_t n_findings(enum lt_finding_kind k)
{
	size_t n = 0;
	for (size_t i = 0; i < R->n_findings; i++)
		n += R->findings[i].kind == k;
	return n;
}

/* One finding for the Condition, not one per waiter lock: its holder of
 * the lock, blocked in read, and all three waiters and their locks. */
Test(report, a_conditions_waiters_are_one_finding_naming_the_holder_of_its_lock)
{
	condition_waiters(1, 0);
	const struct lt_report_finding *f = must_find(LT_FIND_HOLDER_BLOCKED, "io");
	cr_assert_eq(n_findings(LT_FIND_HOLDER_BLOCKED), 1);
	cr_assert_null(find(LT_FIND_STALLED_WAITERS, NULL));
	cr_assert_eq(f->holder, 504);
	cr_assert(has_tid(f, 501) && has_tid(f, 502) && has_tid(f, 503) && has_tid(f, 504));
	cr_assert(has_lock(f, W1) && has_lock(f, W2) && has_lock(f, W3));
	cr_assert(strstr(f->summary, "3 threads wait in Condition.wait() on the "
				     "threading.Condition at 0x7f10000a0590; the holder of its lock, 504 ") &&
		  strstr(f->summary, "is blocked in read(fd 7)") && strstr(f->summary, "no notify() can come but from it"),
		  "%s", f->summary);
	int more = 0, how = 0;
	for (size_t k = 0; k < f->n_evidence; k++) {
		more += strstr(f->evidence[k], "has 2 more waiters in Condition.wait()") != NULL;
		how += strstr(f->evidence[k], "the snapshot read the owner of the Condition's lock") != NULL;
	}
	cr_assert(more == 1 && how == 1);
	done();
}

/* No holder of its lock known: still one finding, which says so. */
Test(report, a_conditions_waiters_with_no_holder_known_are_one_finding)
{
	condition_waiters(0, 0);
	cr_assert_null(find(LT_FIND_HOLDER_BLOCKED, NULL));
	const struct lt_report_finding *f = must_find(LT_FIND_STALLED_WAITERS, NULL);
	cr_assert_eq(n_findings(LT_FIND_STALLED_WAITERS), 1);
	cr_assert(has_tid(f, 501) && has_tid(f, 502) && has_tid(f, 503));
	cr_assert(has_lock(f, W1) && has_lock(f, W2) && has_lock(f, W3));
	cr_assert(strstr(f->summary, "3 threads wait in Condition.wait() on the threading."
				     "Condition at 0x7f10000a0590 and nobody has woken them for") &&
		  strstr(f->summary, "who could send a notify() is not known"), "%s", f->summary);
	done();
}

/* The object's finding speaks from its oldest waiter: here the first
 * group's waiter (501) waits since 1.9 s only, the others since before
 * the trace; still one finding, with all three. */
Test(report, a_conditions_finding_speaks_from_its_oldest_waiter)
{
	condition_waiters_late(1, 0, 1);
	const struct lt_report_finding *f = must_find(LT_FIND_HOLDER_BLOCKED, "io");
	cr_assert_eq(n_findings(LT_FIND_HOLDER_BLOCKED), 1);
	cr_assert(has_tid(f, 501) && has_tid(f, 502) && has_tid(f, 503), "%s", f->summary);
	cr_assert(strstr(f->summary, "3 threads wait in Condition.wait()"), "%s", f->summary);
	cr_assert_lt(f->since, BASE, "since before the trace: %llu", (unsigned long long)f->since);
	done();
}

/* Two Conditions: two findings, each with its own waiters. */
Test(report, two_conditions_are_two_findings)
{
	condition_waiters(1, 1);
	cr_assert_eq(n_findings(LT_FIND_HOLDER_BLOCKED), 2);
	for (size_t i = 0; i < R->n_findings; i++) {
		const struct lt_report_finding *f = &R->findings[i];
		if (f->kind != LT_FIND_HOLDER_BLOCKED)
			continue;
		if (has_tid(f, 503))
			cr_assert(!has_tid(f, 501) && strstr(f->summary, "1 thread waits in Condition.wait() on the "
									   "threading.Condition at 0x7f10000a0610"),
				  "%s", f->summary);
		else
			cr_assert(has_tid(f, 501) && has_tid(f, 502) &&
				  strstr(f->summary, "2 threads wait in Condition.wait() on the "
						     "threading.Condition at 0x7f10000a0590"), "%s", f->summary);
	}
	done();
}

/* A read on a pipe is no socket I/O: the stall finding counts sockets,
 * pipes, FIFOs and other fds apart, from the snapshot's fds. */
Test(report, stall_counts_sockets_pipes_and_fifos_apart)
{
	header(TIDS(PID, 501, 502, 503, 504, 505));
	for (int i = 0; i < 6; i++)
		TI[i].sc_nr = -2;
	/* 501 was in read() at attach: the trace does not know its fd is a
	 * socket, the snapshot does */
	TI[1].sc_nr = NR_read;
	TI[1].sc_args[0] = 7;
	TI[1].blocked_ns = 3 * SEC;
	start();
	char th[4096];
	snprintf(th, sizeof(th),
		 "{\"tid\": 500, \"state\": \"S\", \"blocked_s\": 3.0, \"syscall\": {\"nr\": 202, \"name\": \"futex\"},"
		 " \"futex\": {\"uaddr\": \"0x5600000011b0\", \"op\": 128, \"is_wait\": true,"
		 " \"expected\": 2, \"word\": 2, \"owner_kind\": \"none\", \"owner\": null}, %s},"
		 "{\"tid\": 501, \"state\": \"S\", \"blocked_s\": 3.0, \"syscall\": {\"nr\": 0, \"name\": \"read\"},"
		 " \"wait\": \"io\", \"io_fd\": {\"fd\": 7, \"kind\": \"socket\", \"target\": \"socket:[1]\"}, %s},"
		 "{\"tid\": 502, \"state\": \"S\", \"blocked_s\": 3.0, \"syscall\": {\"nr\": 0, \"name\": \"read\"},"
		 " \"wait\": \"io\", \"io_fd\": {\"fd\": 8, \"kind\": \"pipe\", \"target\": \"pipe:[2]\"}, %s},"
		 "{\"tid\": 503, \"state\": \"S\", \"blocked_s\": 3.0, \"syscall\": {\"nr\": 1, \"name\": \"write\"},"
		 " \"wait\": \"io\", \"io_fd\": {\"fd\": 9, \"kind\": \"pipe\", \"target\": \"pipe:[3]\"}, %s},"
		 "{\"tid\": 504, \"state\": \"S\", \"blocked_s\": 3.0, \"syscall\": {\"nr\": 0, \"name\": \"read\"},"
		 " \"wait\": \"io\", \"io_fd\": {\"fd\": 10, \"kind\": \"fifo\", \"target\": \"/tmp/f\"}, %s},"
		 "{\"tid\": 505, \"state\": \"S\", \"blocked_s\": 3.0, \"syscall\": {\"nr\": 0, \"name\": \"read\"},"
		 " \"wait\": \"io\", \"io_fd\": {\"fd\": 0, \"kind\": \"file\", \"target\": \"/dev/pts/0\"}, %s}",
		 stack_of("lock", "main"), stack_of("rx", "start"), stack_of("p1", "start"),
		 stack_of("p2", "start"), stack_of("ff", "start"), stack_of("tty", "start"));
	snapshot(th);
	finish(BASE + 2 * SEC);
	const struct lt_report_finding *f = find(LT_FIND_STALL, NULL);
	if (!f)
		dump_findings();
	cr_assert_not_null(f);
	cr_assert(strstr(f->summary, "1 of 6 threads are in futex waits, 1 in socket I/O, 2 in pipe I/O, 1 in FIFO I/O, "
				     "1 in other fd I/O"), "%s", f->summary);
	done();
}

Test(report, no_guess_with_two_suspects)
{
	hung_before_the_trace(1);
	if (find(LT_FIND_HOLDER_BLOCKED, NULL))
		dump_findings();
	cr_assert_null(find(LT_FIND_HOLDER_BLOCKED, NULL));
	const struct lt_report_finding *f = find(LT_FIND_STALLED_WAITERS, NULL);
	cr_assert_not_null(f);
	int listed = 0;
	for (size_t k = 0; k < f->n_evidence; k++)
		listed |= strstr(f->evidence[k], "the threads not waiting on it") && strstr(f->evidence[k], "503") &&
			  strstr(f->evidence[k], "504");
	cr_assert(listed, "what the others do is listed");
	done();
}

/* CPython's GIL held by a thread asleep in read(): its waiters retry in
 * 5 ms timed waits and wake together, so recording may stop between their
 * timer wake-ups and their switch-in: every waiter is runnable in the last
 * events.  The snapshot taken at the end finds them asleep in the same
 * wait: they are still the GIL's queue, and the finding names the holder. */
Test(report, runtime_lock_waiters_woken_as_recording_stopped)
{
	const uint32_t tids[] = { PID, 501, 502, 503 };
	header(4, tids);
	TI[3].sc_nr = NR_read;
	TI[3].sc_args[0] = 3;
	TI[3].blocked_ns = 2 * SEC;
	start();
	uint64_t t = BASE + 10 * MS;
	for (int k = 0; k < 200; k++, t += 5 * MS) {
		for (uint32_t w = 501; w <= 502; w++) {
			wait_sleep(t, w, COND_WAIT, G0, 0);
			waking(t + 5 * MS - 10 * US, w, 0); /* the timer */
			if (k < 199) {
				on(t + 5 * MS - 5 * US, w);
				sys_exit(t + 5 * MS - 4 * US, w, NR_futex, -110);
			}
		}
	}
	char *snap;
	cr_assert_geq(asprintf(&snap,
		"{\"schema\": \"locktrace.snapshot/1\", \"pid\": %d, \"comm\": \"python3\", \"occasion\": \"end\","
		" \"taken_monotonic_ns\": %llu, \"verdicts\": [],"
		" \"runtime_locks\": [{\"model\": \"cpython\", \"kind\": \"GIL\", \"name\": \"_PyRuntime.ceval.gil\","
		" \"held\": 1, \"holder\": 503, \"holder_how\": \"gil->last_holder->native_thread_id\"}],"
		" \"threads\": [%s, %s,"
		" {\"tid\": 503, \"comm\": \"python3\", \"state\": \"S\", \"blocked_s\": 3.0,"
		" \"syscall\": {\"nr\": 0, \"name\": \"read\"}, \"wait\": \"io\", \"futex\": null}]}",
		PID, (unsigned long long)(t + 2 * MS),
		"{\"tid\": 501, \"comm\": \"python3\", \"state\": \"S\", \"blocked_s\": 0.001,"
		" \"syscall\": {\"nr\": 202, \"name\": \"futex\"}, \"wait\": \"futex\","
		" \"futex\": {\"uaddr\": \"0x5600000011b0\", \"lock\": \"_PyRuntime+0x1b0\", \"op\": 393,"
		" \"is_wait\": true, \"is_pi\": false, \"expected\": 0, \"word\": 0, \"owner_kind\": \"runtime\","
		" \"owner\": 503, \"lock_kind\": \"GIL\", \"lock_name\": \"_PyRuntime.ceval.gil\", \"runtime_lock\": 0}}",
		"{\"tid\": 502, \"comm\": \"python3\", \"state\": \"S\", \"blocked_s\": 0.001,"
		" \"syscall\": {\"nr\": 202, \"name\": \"futex\"}, \"wait\": \"futex\","
		" \"futex\": {\"uaddr\": \"0x5600000011b0\", \"lock\": \"_PyRuntime+0x1b0\", \"op\": 393,"
		" \"is_wait\": true, \"is_pi\": false, \"expected\": 0, \"word\": 0, \"owner_kind\": \"runtime\","
		" \"owner\": 503, \"lock_kind\": \"GIL\", \"lock_name\": \"_PyRuntime.ceval.gil\", \"runtime_lock\": 0}}"),
		0);
	cr_assert_eq(lt_report_snapshot(R, snap, strlen(snap)), 0);
	free(snap);
	finish(t + 3 * MS);
	const struct lt_report_finding *f = R->n_findings ? &R->findings[0] : NULL;
	if (!f || f->kind != LT_FIND_HOLDER_BLOCKED)
		dump_findings();
	cr_assert(f && f->kind == LT_FIND_HOLDER_BLOCKED, "the first finding is not the blocked holder");
	cr_assert_eq(f->holder, 503);
	cr_assert(has_tid(f, 501) && has_tid(f, 502));
	cr_assert(strstr(f->summary, "2 threads wait on the GIL _PyRuntime.ceval.gil"), "%s", f->summary);
	done();
}

/* ---- runtime threads (rtthread.h) ------------------------------------- */

/* A Python process: the snapshots name threads as the runtime does, and a
 * thread that exited before the last snapshot keeps the name an earlier one
 * read; a threading.Lock wait is named as the lock, with where the lock is
 * kept, and the thread's Python frame is where it is. */
Test(report, runtime_thread_names_and_python_locks)
{
	header(TIDS(PID, 501, 502));
	blocked_at_attach(1, L1, FUTEX_WAIT_PRIVATE, 0, 500 * MS);
	start();
	snapshot("{\"tid\": 502, \"comm\": \"python3\", \"state\": \"S\", \"runtime\": {\"lang\": \"python\","
		 " \"name\": \"early-\xc3\xa9\", \"frames\": []}}"); /* UTF-8 as written */
	snapshot("{\"tid\": 500, \"comm\": \"python3\", \"state\": \"S\", \"runtime\": {\"lang\": \"python\","
		 " \"name\": \"MainThread\", \"frames\": [{\"func\": \"main\", \"file\": \"/app/main.py\", \"line\": 9,"
		 " \"native_frame\": 4}], \"end\": null}},"
		 "{\"tid\": 501, \"comm\": \"python3\", \"state\": \"S\", \"blocked_s\": 0.5,"
		 " \"syscall\": {\"nr\": 202, \"name\": \"futex\"}, \"wait\": \"futex\","
		 " \"detail\": \"futex(0x5600000011c0 <[heap]>, FUTEX_WAIT_PRIVATE, 0) word=0\","
		 " \"futex\": {\"uaddr\": \"0x5600000011c0\", \"lock\": \"[heap]\", \"op_name\": \"FUTEX_WAIT_PRIVATE\","
		 " \"lock_kind\": \"threading.Lock\", \"lock_name\": \"lk\", \"lock_state\": \"its semaphore: value 0,"
		 " 1 waiter; thread 500 (MainThread) has it in 'held' of main (/app/main.py:9)\","
		 " \"is_wait\": true, \"is_pi\": false, \"expected\": 0, \"word\": 0, \"owner_kind\": \"unknown\","
		 " \"owner\": null}, \"runtime\": {\"lang\": \"python\", \"name\": \"worker-1\", \"frames\":"
		 " [{\"func\": \"Worker.wait_on\", \"file\": \"/app/worker.py\", \"line\": 12, \"native_frame\": 6}]}}");
	finish(BASE + 2 * SEC);
	cr_assert_str_eq(lt_report_thread_name(R, 501, NULL), "worker-1");
	cr_assert_str_eq(lt_report_thread_name(R, PID, "python3"), "MainThread");
	cr_assert_str_eq(lt_report_thread_name(R, 502, NULL), "early-\xc3\xa9", "from the first snapshot");
	cr_assert_str_eq(lt_report_thread_name(R, 999, "other"), "other");
	const struct lt_report_finding *f = must_find(LT_FIND_STALLED_WAITERS, NULL);
	cr_assert(strstr(f->summary, "the threading.Lock lk ("), "%s", f->summary);
	bool kept = false;
	for (size_t i = 0; i < f->n_evidence; i++)
		kept |= strstr(f->evidence[i], "has it in 'held' of main (/app/main.py:9)") != NULL;
	cr_assert(kept, "the snapshot's lock state is evidence");
	char *buf = TL_PRINTED(NULL, lt_report_print_text, R);
	cr_assert(strstr(buf, "  501     worker-1 "), "THREADS table:\n%s", buf);
	for (size_t i = 0; i < R->n_threads; i++)
		if (R->threads[i].tid == 501)
			cr_assert_str_eq(R->threads[i].snap_where ? R->threads[i].snap_where : "-",
					 "Worker.wait_on (/app/worker.py:12)", "the Python frame is where it is");
	free(buf);
	buf = TL_PRINTED(NULL, lt_report_print_json, R);
	cr_assert(strstr(buf, "\"runtime_name\": \"worker-1\""));
	free(buf);
	done();
}

/* Four raw futex words 4 bytes apart (one lock group: adjacent words are
 * taken for one object), each waited on by one thread and owned, as the
 * snapshot read, by the next: the cycle is the 4 threads the snapshot
 * names, never "1 thread waits for each other: X -> X" from the group's
 * single holder (issue 26). */
#define W(i) (0x560000002000ull + 4 * (i))
Test(report, adjacent_words_keep_each_waiters_own_holder)
{
	header(TIDS(PID, 501, 502, 503, 504));
	for (int i = 0; i < 4; i++)
		blocked_at_attach(i + 1, W(i), FUTEX_WAIT_PRIVATE, 2, 300 * MS);
	start();
	char buf[4096];
	size_t m = 0;
	for (int i = 0; i < 4; i++)
		m += (size_t)snprintf(buf + m, sizeof(buf) - m,
				      "%s{\"tid\": %d, \"comm\": \"blk%d\", \"state\": \"S\", \"blocked_s\": 0.3, "
				      "\"syscall\": {\"nr\": 202}, \"futex\": {\"uaddr\": \"0x%llx\", \"is_wait\": true, "
				      "\"expected\": 2, \"word\": 2, \"owner_kind\": \"pi\", \"owner\": %d}}",
				      i ? "," : "", 501 + i, i + 1, (unsigned long long)W(i), 501 + (i + 1) % 4);
	snapshot(buf);
	finish(BASE + 2 * SEC);
	const struct lt_report_finding *f = must_find(LT_FIND_DEADLOCK, NULL);
	cr_assert_eq(f->n_tids, 4, "%s", f->summary);
	cr_assert(strstr(f->summary, "4 threads wait for each other"), "%s", f->summary);
	for (int i = 0; i < 4; i++)
		cr_assert(has_tid(f, 501 + i) && has_lock(f, W(i)), "%s", f->summary);
	for (size_t i = 0; i < R->n_findings; i++)
		cr_assert(!(R->findings[i].kind == LT_FIND_DEADLOCK && R->findings[i].n_tids == 1),
			  "a one-thread cycle: %s", R->findings[i].summary);
	done();
}

/* A cycle one of whose waits has a timeout (the snapshot at the end read
 * an absolute deadline 7.5 s on, FUTEX_WAIT_BITSET on CLOCK_MONOTONIC):
 * it lasts until then, and the finding says so, never a plain deadlock
 * (a pthread_mutex_timedlock that backs off ends it). */
Test(report, a_cycle_with_a_timed_wait_lasts_until_its_timeout)
{
	header(TIDS(PID, 501, 502));
	blocked_at_attach(1, W(0), FUTEX_WAIT_PRIVATE, 2, 300 * MS);
	blocked_at_attach(2, W(16), FUTEX_WAIT_PRIVATE, 2, 300 * MS);
	start();
	unsigned long long dl = BASE + 1 * MS + 7500 * MS;
	char buf[2048];
	snprintf(buf, sizeof(buf),
		 "{\"tid\": 501, \"comm\": \"t501\", \"state\": \"S\", \"blocked_s\": 0.3, \"syscall\": {\"nr\": 202}, \"wait\": \"futex\", "
		 "\"futex\": {\"uaddr\": \"0x%llx\", \"cmd\": 9, \"is_wait\": true, \"expected\": 2, \"word\": 2, "
		 "\"timeout\": {\"readable\": true, \"absolute\": true, \"sec\": %llu, \"nsec\": %llu}, "
		 "\"owner_kind\": \"mutex\", \"owner\": 502}},"
		 "{\"tid\": 502, \"comm\": \"t502\", \"state\": \"S\", \"blocked_s\": 0.3, \"syscall\": {\"nr\": 202}, \"wait\": \"futex\", "
		 "\"futex\": {\"uaddr\": \"0x%llx\", \"cmd\": 0, \"is_wait\": true, \"expected\": 2, \"word\": 2, "
		 "\"owner_kind\": \"mutex\", \"owner\": 501}}",
		 (unsigned long long)W(0), dl / 1000000000ull, dl % 1000000000ull, (unsigned long long)W(16));
	snapshot(buf);
	finish(BASE + 2 * SEC);
	const struct lt_report_finding *f = must_find(LT_FIND_DEADLOCK, NULL);
	cr_assert(!strncmp(f->summary, "deadlock until a timeout: 2 threads wait for each other", 55), "%s",
		  f->summary);
	cr_assert(strstr(f->summary, "; thread 501 (t501) waits with a timeout"), "%s", f->summary);
	int said = 0;
	for (size_t i = 0; i < f->n_evidence; i++)
		said += strstr(f->evidence[i], "thread 501 (t501) waits with a timeout (in about 7.5 s after the "
				 "snapshot at the end)") != NULL;
	cr_assert_eq(said, 1, "%s", f->summary);
	done();
}

/* A thread that waits on a word the snapshot says it owns itself: a real
 * self-deadlock, said as one. */
Test(report, self_deadlock_only_with_its_own_owner_read)
{
	header(TIDS(PID, 501));
	blocked_at_attach(1, W(0), FUTEX_WAIT_PRIVATE, 2, 300 * MS);
	start();
	snapshot("{\"tid\": 501, \"comm\": \"relock\", \"state\": \"S\", \"blocked_s\": 0.3, \"syscall\": {\"nr\": 202},"
		 " \"futex\": {\"uaddr\": \"0x560000002000\", \"is_wait\": true, \"expected\": 2, \"word\": 2,"
		 " \"owner_kind\": \"mutex\", \"owner\": 501}}");
	finish(BASE + 2 * SEC);
	const struct lt_report_finding *f = must_find(LT_FIND_DEADLOCK, NULL);
	cr_assert_eq(f->n_tids, 1);
	cr_assert(strstr(f->summary, "waits for a lock it holds itself"), "%s", f->summary);
	done();
}

/* ---- file-lock waits ------------------------------------------------- */

/* An F_SETLKW begun 700 ms before the trace: dated from when it began (the
 * header's blocked time, as a futex wait), its struct flock from the
 * snapshot that read it, and the snapshot's own verdict on the same wait
 * not said twice. */
Test(report, a_file_lock_wait_begun_before_the_trace_is_dated_and_decoded)
{
	header(TIDS(PID, 501));
	TI[1].sc_nr = 72;
	TI[1].sc_args[0] = 4;
	TI[1].sc_args[1] = 7; /* F_SETLKW */
	TI[1].blocked_ns = 700 * MS;
	start();
	snapshot("{\"tid\": 500, \"comm\": \"app\", \"state\": \"S\", \"blocked_s\": 3,"
		 " \"syscall\": {\"nr\": 230, \"name\": \"clock_nanosleep\"}, \"wait\": \"sleep\", \"futex\": null},"
		 "{\"tid\": 501, \"comm\": \"t501\", \"state\": \"S\", \"blocked_s\": 3,"
		 " \"syscall\": {\"nr\": 72, \"name\": \"fcntl\"}, \"wait\": \"io\","
		 " \"detail\": \"fcntl(fd 4: /tmp/l, F_SETLKW, {F_WRLCK, SEEK_SET, start 0, len 0 (to EOF)})\","
		 " \"futex\": null, \"wait_for\": {\"pid\": 500, \"edges\": [{\"kind\": \"file_lock\", \"fd\": 4,"
		 " \"what\": \"POSIX WRITE lock on /tmp/l (bytes 0 to EOF, inode fe:00:1)\", \"pids\": [777],"
		 " \"more_pids\": false, \"holder_tid\": null, \"parties_state\": \"timed\", \"parties_doing\": null,"
		 " \"evidence\": \"/proc/locks\"}]}}");
	finish(BASE + 2 * SEC);
	const struct lt_report_finding *f = must_find(LT_FIND_FILE_LOCK, "blocked");
	cr_assert(strstr(f->summary, "fcntl(fd 4: /tmp/l, F_SETLKW, {F_WRLCK, SEEK_SET, start 0, len 0 (to EOF)})"),
		  "%s", f->summary);
	cr_assert_eq(f->since, BASE - 700 * MS, "since %llu", (unsigned long long)f->since);
	cr_assert_eq(f->duration_ns, 2 * SEC + 700 * MS);
	done();
}

/* A flock wait that ended during the trace is named with its call and
 * whoever woke it; one still open at the end is the first finding, ahead
 * of the stall it causes, and the stall counts it as a file-lock wait. */
Test(report, file_lock_waits_are_named)
{
	uint64_t t0 = begin(TIDS(PID, 501));
	struct lt_event a = lt_ev_flock(t0, PID, 73, 3, 2 /* LOCK_EX */, -1, 0, 0);
	feed(&a);
	off(t0 + 1 * US, PID, 0);
	waking(t0 + 400 * MS, PID, 9000);
	on(t0 + 401 * MS, PID);
	sys_exit(t0 + 402 * MS, PID, 73, 0);
	struct lt_event b = lt_ev_flock(t0 + 500 * MS, 501, 72, 4, 7 /* F_SETLKW */, 1, 10, 3);
	feed(&b);
	off(t0 + 500 * MS + 1 * US, 501, 0);
	finish(t0 + 5 * SEC);

	const struct lt_report_finding *w = must_find(LT_FIND_FILE_LOCK, "waited");
	cr_expect(has_tid(w, PID));
	cr_expect(strstr(w->summary, "flock(fd 3, LOCK_EX)") && strstr(w->summary, "(granted)"), "%s", w->summary);
	cr_expect_eq(w->fd, 3);
	cr_expect_eq(w->duration_ns, 402 * MS);
	const struct lt_report_finding *b1 = must_find(LT_FIND_FILE_LOCK, "blocked");
	cr_expect(has_tid(b1, 501));
	cr_expect(strstr(b1->summary, "waits for a record lock: fcntl(fd 4, F_SETLKW, write lock 10..12)"), "%s",
		  b1->summary);
	cr_expect_eq(R->findings[0].kind, LT_FIND_FILE_LOCK, "first: %s", R->findings[0].summary);
	cr_expect_str_eq(R->findings[0].rule, "blocked");
	const struct lt_report_finding *st = must_find(LT_FIND_STALL, NULL);
	cr_expect(strstr(st->summary, "1 in file-lock waits"), "%s", st->summary);
	const struct lt_report_thread *th = thread(PID);
	cr_expect_eq(th->filelock_calls, 1);
	/* asleep in it from its switch-out to the wake-up (then runnable) */
	cr_expect_eq(th->filelock_ns, 400 * MS - 1 * US, "%llu", (unsigned long long)th->filelock_ns);
	cr_expect_eq(th->unknown_ns, 0, "file-lock time is known time: %llu", (unsigned long long)th->unknown_ns);
	done();
}
