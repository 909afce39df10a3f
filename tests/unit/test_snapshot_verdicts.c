/* Verdict rules on synthetic thread tables: wait-for-graph cycles,
 * lost wake-ups, convoys, idle, nothing suspicious.  No root needed. */
#include <criterion/criterion.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "rt_idle.h"
#include "lockmodel.h"
#include "lt_test.h"
#include "snapshot.h"
#include "waitfor.h"

static struct lt_snapshot *table(size_t n)
{
	struct lt_snapshot *s = calloc(1, sizeof(*s));
	cr_assert_not_null(s);
	s->pid = 100;
	snprintf(s->comm, sizeof(s->comm), "prog");
	s->threads = calloc(n, sizeof(*s->threads));
	s->n_threads = n;
	return s;
}

static void base(struct lt_thread *t, pid_t tid, const char *comm, double idle)
{
	t->tid = tid;
	snprintf(t->comm, sizeof(t->comm), "%s", comm);
	t->state = 'S';
	t->idle_s = idle;
	t->idle_src = LT_IDLE_SCHED_EXEC_START;
	t->fdw.epfd = -1;
	t->fdw.io.fd = -1;
}

/* futex(uaddr, FUTEX_WAIT_PRIVATE, expected) with the word and owner seen */
static void futex_wait(struct lt_thread *t, pid_t tid, const char *comm, uint64_t uaddr,
		       uint32_t expected, uint32_t word, enum lt_owner_kind ok, pid_t owner, double idle)
{
	base(t, tid, comm, idle);
	t->sc.state = LT_SC_IN_SYSCALL;
	t->sc.nr = 202;
	t->sc.args[0] = uaddr;
	t->sc.args[1] = 0x80;
	t->sc.args[2] = expected;
	t->sc_name = "futex";
	t->wait = LT_WAIT_FUTEX;
	lt_futex_decode_args(&t->futex, t->sc.args);
	t->futex.word_ok = true;
	t->futex.word = word;
	t->futex.owner_kind = ok;
	t->futex.owner = owner;
}

static void in_io(struct lt_thread *t, pid_t tid, const char *comm, long nr, int fd,
		  enum lt_fd_kind kind, double idle)
{
	base(t, tid, comm, idle);
	t->sc.state = LT_SC_IN_SYSCALL;
	t->sc.nr = nr;
	t->sc.args[0] = (uint64_t)fd;
	t->sc_name = lt_syscall_name(nr);
	t->wait = lt_syscall_wait_kind(nr);
	if (t->wait == LT_WAIT_IO) {
		t->fdw.io.fd = fd;
		t->fdw.io.kind = kind;
	}
}

static void running(struct lt_thread *t, pid_t tid, const char *comm)
{
	base(t, tid, comm, 0);
	t->state = 'R';
	t->idle_src = LT_IDLE_RUNNING;
	t->sc.state = LT_SC_RUNNING;
	t->sc.nr = -1;
}

static size_t count(const struct lt_snapshot *s, enum lt_verdict_kind k)
{
	size_t n = 0;
	for (size_t i = 0; i < s->n_verdicts; i++)
		n += s->verdicts[i].kind == k;
	return n;
}

/* Diagnoses S: how many verdicts of kind K. */
static size_t diagnosed(struct lt_snapshot *s, enum lt_verdict_kind k)
{
	lt_snapshot_diagnose(s, NULL);
	return count(s, k);
}

static const struct lt_verdict *find(const struct lt_snapshot *s, enum lt_verdict_kind k)
{
	for (size_t i = 0; i < s->n_verdicts; i++)
		if (s->verdicts[i].kind == k)
			return &s->verdicts[i];
	return NULL;
}

#define LA 0x5000
#define LB 0x5040
#define LC 0x5080

Test(verdict_deadlock, two_threads_ab_ba)
{
	struct lt_snapshot *s = table(3);
	in_io(&s->threads[0], 100, "main", 34, -1, LT_FD_UNKNOWN, 3); /* pause */
	futex_wait(&s->threads[1], 101, "A", LB, 2, 2, LT_OWNER_MUTEX, 102, 3);
	futex_wait(&s->threads[2], 102, "B", LA, 2, 2, LT_OWNER_MUTEX, 101, 3);
	s->threads[1].futex.lock_sym = strdup("L2");
	s->threads[2].futex.lock_sym = strdup("L1");
	cr_assert_eq(lt_snapshot_diagnose(s, NULL), 0);
	cr_assert_eq(count(s, LT_VERDICT_DEADLOCK), 1);
	const struct lt_verdict *v = find(s, LT_VERDICT_DEADLOCK);
	cr_assert_eq(v->n_tids, 2);
	cr_assert_eq(v->n_locks, 2);
	/* cycle order: each thread paired with the lock it waits on */
	for (size_t i = 0; i < 2; i++) {
		if (v->tids[i] == 101)
			cr_assert_eq(v->locks[i], LB);
		else
			cr_assert(v->tids[i] == 102 && v->locks[i] == LA);
	}
	cr_assert(tl_strlist_has(&v->evidence, "thread 101 (A) waits for lock L2 (0x5040)"));
	cr_assert(tl_strlist_has(&v->evidence, "held by thread 102 (B)"));
	cr_assert_not_null(strstr(v->summary, "2 threads wait for each other"));
	cr_assert_eq(count(s, LT_VERDICT_OK), 0);
	lt_snapshot_free(s);
}

/* A cycle one of whose waits has a timeout (pthread_mutex_timedlock, a
 * Java tryLock(timeout), Python's acquire(timeout=)) ends by itself: the
 * verdict says until when, never a plain deadlock.  A runtime lock's
 * polling steps (CPython's take_gil, HotSpot's EnterI) are no such
 * timeout: it waits again. */
static struct lt_snapshot *timed_cycle(const char *acquire, const char *frame)
{
	struct lt_snapshot *s = table(2);
	s->taken_realtime_ns = 1700000000ll * 1000000000ll;
	futex_wait(&s->threads[0], 101, "A", LB, 2, 2, LT_OWNER_MUTEX, 102, 3);
	futex_wait(&s->threads[1], 102, "B", LA, 2, 2, LT_OWNER_MUTEX, 101, 3);
	/* FUTEX_WAIT_BITSET|FUTEX_CLOCK_REALTIME, an absolute deadline 12.5 s on */
	struct lt_futex *f = &s->threads[0].futex;
	f->cmd = 9;
	f->clock_realtime = true;
	f->timeout_ptr = 0x7ffd000;
	f->timeout_ok = true;
	f->timeout_abs = true;
	f->timeout_sec = 1700000012;
	f->timeout_nsec = 500000000;
	s->threads[0].acquire = acquire;
	if (frame) {
		s->threads[0].frames = calloc(1, sizeof(struct lt_frame));
		s->threads[0].frames[0].func = strdup(frame);
		s->threads[0].n_frames = 1;
	}
	cr_assert_eq(lt_snapshot_diagnose(s, NULL), 0);
	cr_assert_eq(count(s, LT_VERDICT_DEADLOCK), 1);
	return s;
}

Test(verdict_deadlock, a_cycle_with_a_timed_wait_lasts_until_its_timeout)
{
	struct lt_snapshot *s = timed_cycle("pthread_mutex_clocklock", NULL);
	const struct lt_verdict *v = find(s, LT_VERDICT_DEADLOCK);
	cr_assert(!strncmp(v->summary, "deadlock until a timeout: 2 threads wait for each other", 55), "%s",
		  v->summary);
	cr_assert_not_null(strstr(v->summary, "; thread 101 (A) waits with a timeout (in about 12.5 s)"), "%s",
			   v->summary);
	cr_assert(tl_strlist_has(&v->evidence, "thread 101 (A) waits with a timeout (in about 12.5 s): the cycle "
				 "lasts until then, and breaks if it then gives up what it holds"));
	cr_assert(!tl_strlist_has(&v->evidence, "thread 102 (B) waits with a timeout"));
	lt_snapshot_free(s);
}

Test(verdict_deadlock, a_runtime_locks_polling_steps_are_no_timeout)
{
	const char *const frames[] = { "take_gil", "_ZN13ObjectMonitor6EnterIEP10JavaThread" };
	for (int k = 0; k < 2; k++) {
		struct lt_snapshot *s = timed_cycle(k ? NULL : "take_gil", frames[k]);
		const struct lt_verdict *v = find(s, LT_VERDICT_DEADLOCK);
		cr_assert(!strncmp(v->summary, "deadlock: 2 threads wait for each other", 39), "%s: %s", frames[k],
			  v->summary);
		cr_assert(!tl_strlist_has(&v->evidence, "waits with a timeout"), "%s", frames[k]);
		lt_snapshot_free(s);
	}
}

Test(verdict_deadlock, three_cycle_with_thread_behind)
{
	struct lt_snapshot *s = table(4);
	futex_wait(&s->threads[0], 10, "t10", LA, 2, 2, LT_OWNER_MUTEX, 11, 5);
	futex_wait(&s->threads[1], 11, "t11", LB, 2, 2, LT_OWNER_MUTEX, 12, 5);
	futex_wait(&s->threads[2], 12, "t12", LC, 2, 2, LT_OWNER_MUTEX, 10, 5);
	futex_wait(&s->threads[3], 13, "t13", LA, 2, 2, LT_OWNER_MUTEX, 11, 5);
	cr_assert_eq(diagnosed(s, LT_VERDICT_DEADLOCK), 1);
	const struct lt_verdict *v = find(s, LT_VERDICT_DEADLOCK);
	cr_assert_eq(v->n_tids, 3);
	for (size_t i = 0; i < 3; i++)
		cr_assert_neq(v->tids[i], 13);
	cr_assert(tl_strlist_has(&v->evidence, "1 more thread(s) blocked behind the cycle: 13"));
	lt_snapshot_free(s);
}

Test(verdict_deadlock, self_deadlock)
{
	struct lt_snapshot *s = table(1);
	futex_wait(&s->threads[0], 10, "t10", LA, 2, 2, LT_OWNER_MUTEX, 10, 5);
	lt_snapshot_diagnose(s, NULL);
	const struct lt_verdict *v = find(s, LT_VERDICT_DEADLOCK);
	cr_assert_not_null(v);
	cr_assert_eq(v->n_tids, 1);
	cr_assert_not_null(strstr(v->summary, "itself"));
	lt_snapshot_free(s);
}

Test(verdict_deadlock, join_cycle)
{
	/* main joins A while A waits for a mutex main holds */
	struct lt_snapshot *s = table(2);
	futex_wait(&s->threads[0], 100, "main", 0x7f0000, 101, 101, LT_OWNER_JOIN, 101, 5);
	futex_wait(&s->threads[1], 101, "A", LA, 2, 2, LT_OWNER_MUTEX, 100, 5);
	lt_snapshot_diagnose(s, NULL);
	const struct lt_verdict *v = find(s, LT_VERDICT_DEADLOCK);
	cr_assert_not_null(v);
	cr_assert_eq(v->n_tids, 2);
	cr_assert(tl_strlist_has(&v->evidence, "thread 100 (main) is joining thread 101 (A)"));
	lt_snapshot_free(s);
}

/* The same with Python's Thread.join(), which sleeps on the joined
 * thread's _tstate_lock (a semaphore), not on its tid: the edge says the
 * join in its own words (lt_done_kind_of), never "its tid field". */
Test(verdict_deadlock, python_join_cycle_says_thread_join_not_a_tid_field)
{
	struct lt_snapshot *s = table(2);
	futex_wait(&s->threads[0], 100, "main", 0x7f0000, 0, 0, LT_OWNER_JOIN, 101, 5);
	s->threads[0].futex.lock_kind = LT_KIND_PY_JOIN;
	futex_wait(&s->threads[1], 101, "A", LA, 2, 2, LT_OWNER_MUTEX, 100, 5);
	lt_snapshot_diagnose(s, NULL);
	const struct lt_verdict *v = find(s, LT_VERDICT_DEADLOCK);
	cr_assert_not_null(v);
	cr_assert_eq(v->n_tids, 2);
	cr_assert(tl_strlist_has(&v->evidence, "thread 100 (main) waits in Thread.join() for thread 101 (A) to exit "
				 "[sleeps on 0x7f0000: thread exit (Thread.join)]"), "%s", v->evidence.n ? v->evidence.v[0] : "-");
	cr_assert(!tl_strlist_has(&v->evidence, "tid field"));
	lt_snapshot_free(s);
}

Test(verdict_deadlock, chain_without_cycle_is_not_a_deadlock)
{
	struct lt_snapshot *s = table(3);
	futex_wait(&s->threads[0], 10, "t10", LA, 2, 2, LT_OWNER_MUTEX, 11, 5);
	futex_wait(&s->threads[1], 11, "t11", LB, 2, 2, LT_OWNER_MUTEX, 12, 5);
	in_io(&s->threads[2], 12, "t12", 0, 7, LT_FD_SOCKET, 5);
	cr_assert_eq(diagnosed(s, LT_VERDICT_DEADLOCK), 0);
	lt_snapshot_free(s);
}

Test(verdict_deadlock, running_thread_breaks_the_cycle)
{
	/* a thread whose state is R is not asleep: its edge is stale */
	struct lt_snapshot *s = table(2);
	futex_wait(&s->threads[0], 10, "t10", LA, 2, 2, LT_OWNER_MUTEX, 11, 5);
	futex_wait(&s->threads[1], 11, "t11", LB, 2, 2, LT_OWNER_MUTEX, 10, 5);
	s->threads[1].state = 'R';
	cr_assert_eq(diagnosed(s, LT_VERDICT_DEADLOCK), 0);
	lt_snapshot_free(s);
}

Test(verdict_deadlock, two_separate_cycles)
{
	struct lt_snapshot *s = table(4);
	futex_wait(&s->threads[0], 10, "a", LA, 2, 2, LT_OWNER_MUTEX, 11, 5);
	futex_wait(&s->threads[1], 11, "b", LB, 2, 2, LT_OWNER_MUTEX, 10, 5);
	futex_wait(&s->threads[2], 12, "c", LC, 2, 2, LT_OWNER_PI, 13, 5);
	futex_wait(&s->threads[3], 13, "d", 0x6000, 2, 2, LT_OWNER_ROBUST, 12, 5);
	cr_assert_eq(diagnosed(s, LT_VERDICT_DEADLOCK), 2);
	lt_snapshot_free(s);
}

/* n threads: one long chain into a 2-cycle.  The thread CPU time the
 * diagnosis takes (not wall time: a loaded machine stretches that). */
static double chain_diagnose_cpu_s(size_t n)
{
	struct lt_snapshot *s = table(n);
	for (size_t i = 0; i < n; i++) {
		pid_t tid = (pid_t)(1000 + i);
		pid_t owner = i + 1 < n ? tid + 1 : (pid_t)(1000 + n - 2);
		futex_wait(&s->threads[i], tid, "w", 0x10000 + 64 * i, 2, 2, LT_OWNER_MUTEX, owner, 5);
	}
	struct timespec a, b;
	clock_gettime(CLOCK_THREAD_CPUTIME_ID, &a);
	lt_snapshot_diagnose(s, NULL);
	clock_gettime(CLOCK_THREAD_CPUTIME_ID, &b);
	cr_assert_eq(count(s, LT_VERDICT_DEADLOCK), 1, "%zu threads", n);
	cr_assert_eq(find(s, LT_VERDICT_DEADLOCK)->n_tids, 2, "%zu threads", n);
	lt_snapshot_free(s);
	return (double)(b.tv_sec - a.tv_sec) + (double)(b.tv_nsec - a.tv_nsec) / 1e9;
}

Test(verdict_deadlock, linear_time_on_a_big_table)
{
	/* 50,000 and 200,000 threads: four times the threads must cost about
	 * four times the CPU (n log n: ~4.5), not sixteen (n^2, minutes).
	 * Measured as growth, so a loaded machine does not decide it; the
	 * absolute time is a benchmark's business. */
	double small = chain_diagnose_cpu_s(50000), big = chain_diagnose_cpu_s(200000);
	fprintf(stderr, "verdict_deadlock: diagnose 50,000 threads %.3f s, 200,000 threads %.3f s (CPU)\n",
		small, big);
	cr_assert_lt(big, 8 * (small > 0.005 ? small : 0.005), "4x the threads took %.1fx the CPU (%.3f s, %.3f s)",
		     big / small, small, big);
}

Test(verdict_lost_wakeup, word_changed_without_wake)
{
	struct lt_snapshot *s = table(2);
	in_io(&s->threads[0], 100, "main", 34, -1, LT_FD_UNKNOWN, 3);
	futex_wait(&s->threads[1], 101, "waiter", 0x7000, 0, 1, LT_OWNER_NONE, 0, 2.5);
	s->threads[1].futex.lock_sym = strdup("lockword");
	lt_snapshot_diagnose(s, NULL);
	const struct lt_verdict *v = find(s, LT_VERDICT_LOST_WAKEUP);
	cr_assert_not_null(v);
	cr_assert_eq(v->n_tids, 1);
	cr_assert_eq(v->tids[0], 101);
	cr_assert_eq(v->locks[0], 0x7000);
	cr_assert_not_null(strstr(v->summary, "lockword"), "%s", v->summary);
	cr_assert_not_null(strstr(v->summary, "expecting 0, but the word is 1"), "%s", v->summary);
	cr_assert_null(strstr(v->summary, "timeout"), "%s", v->summary);
	lt_snapshot_free(s);
}

/* The same with a relative timeout of 30 s, asleep 2.5 s: it will wake by
 * itself and see the word, said. */
Test(verdict_lost_wakeup, a_timed_wait_says_when_it_sees_the_word)
{
	struct lt_snapshot *s = table(2);
	in_io(&s->threads[0], 100, "main", 34, -1, LT_FD_UNKNOWN, 3);
	futex_wait(&s->threads[1], 101, "waiter", 0x7000, 0, 1, LT_OWNER_NONE, 0, 2.5);
	struct lt_futex *f = &s->threads[1].futex;
	f->timeout_ptr = 0x7ffd000;
	f->timeout_ok = true;
	f->timeout_sec = 30;
	lt_snapshot_diagnose(s, NULL);
	const struct lt_verdict *v = find(s, LT_VERDICT_LOST_WAKEUP);
	cr_assert_not_null(v);
	cr_assert_not_null(strstr(v->summary, "; it waits with a timeout, which ends its wait in about 27.5 s (then "
				  "it sees the word)"), "%s", v->summary);
	lt_snapshot_free(s);
}

Test(verdict_lost_wakeup, threshold_and_exclusions)
{
	struct lt_snapshot *s = table(5);
	futex_wait(&s->threads[0], 10, "young", 0x7000, 0, 1, LT_OWNER_NONE, 0, 0.5); /* < 1 s */
	futex_wait(&s->threads[1], 11, "same", 0x7100, 3, 3, LT_OWNER_NONE, 0, 9);    /* word unchanged */
	futex_wait(&s->threads[2], 12, "pi", 0x7200, 0, 13, LT_OWNER_PI, 13, 9);
	s->threads[2].futex.is_pi = true;                                            /* LOCK_PI */
	s->threads[2].futex.cmd = 6;
	futex_wait(&s->threads[3], 13, "unknown", 0x7300, 0, 1, LT_OWNER_NONE, 0, 9);
	s->threads[3].idle_src = LT_IDLE_UNKNOWN;                                    /* no evidence of time */
	futex_wait(&s->threads[4], 14, "unread", 0x7400, 0, 1, LT_OWNER_NONE, 0, 9);
	s->threads[4].futex.word_ok = false;                                         /* word unreadable */
	cr_assert_eq(diagnosed(s, LT_VERDICT_LOST_WAKEUP), 0);

	struct lt_verdict_opts o = { .lost_wakeup_threshold_s = 0.2 };
	lt_snapshot_diagnose(s, &o);
	cr_assert_eq(count(s, LT_VERDICT_LOST_WAKEUP), 1);
	cr_assert_eq(find(s, LT_VERDICT_LOST_WAKEUP)->tids[0], 10);
	cr_assert_float_eq(s->vopts.lost_wakeup_threshold_s, 0.2, 1e-9);
	lt_snapshot_free(s);
}

Test(verdict_lost_wakeup, several_sleepers_on_one_word_make_one_verdict)
{
	struct lt_snapshot *s = table(3);
	for (int i = 0; i < 3; i++)
		futex_wait(&s->threads[i], 20 + i, "w", 0x7000, 0, 4, LT_OWNER_NONE, 0, 3);
	cr_assert_eq(diagnosed(s, LT_VERDICT_LOST_WAKEUP), 1);
	cr_assert_eq(find(s, LT_VERDICT_LOST_WAKEUP)->n_tids, 3);
	lt_snapshot_free(s);
}

Test(verdict_convoy, owner_in_read)
{
	struct lt_snapshot *s = table(7);
	in_io(&s->threads[0], 800, "main", 34, -1, LT_FD_UNKNOWN, 20);
	for (int i = 1; i <= 5; i++)
		futex_wait(&s->threads[i], 800 + i, "worker", LA, 2, 2, LT_OWNER_MUTEX, 812, 10 + i);
	s->threads[1].futex.lock_sym = strdup("rtlock");
	in_io(&s->threads[6], 812, "worker-3", 0, 7, LT_FD_SOCKET, 14);
	lt_snapshot_diagnose(s, NULL);
	const struct lt_verdict *v = find(s, LT_VERDICT_CONVOY);
	cr_assert_not_null(v);
	cr_assert_eq(v->owner, 812);
	cr_assert_eq(v->n_tids, 5);
	cr_assert_not_null(strstr(v->summary, "5 threads wait on rtlock (0x5000)"), "%s", v->summary);
	cr_assert_not_null(strstr(v->summary, "owner 812 (worker-3) has been in read(fd 7: socket) for 14 s"),
			   "%s", v->summary);
	cr_assert(tl_strlist_has(&v->evidence, "5 of 5 waiters agree"));
	cr_assert_eq(count(s, LT_VERDICT_DEADLOCK), 0);
	lt_snapshot_free(s);
}

Test(verdict_convoy, size_threshold)
{
	struct lt_snapshot *s = table(4);
	for (int i = 0; i < 3; i++)
		futex_wait(&s->threads[i], 10 + i, "w", LA, 2, 2, LT_OWNER_MUTEX, 13, 3);
	running(&s->threads[3], 13, "busy");
	cr_assert_eq(diagnosed(s, LT_VERDICT_CONVOY), 0);
	struct lt_verdict_opts o = { .convoy_min_waiters = 3 };
	lt_snapshot_diagnose(s, &o);
	const struct lt_verdict *v = find(s, LT_VERDICT_CONVOY);
	cr_assert_not_null(v);
	cr_assert_not_null(strstr(v->summary, "owner 13 (busy) is running"), "%s", v->summary);
	lt_snapshot_free(s);
}

Test(verdict_convoy, idle_condvar_waiters_are_not_a_convoy)
{
	struct lt_snapshot *s = table(6);
	for (int i = 0; i < 6; i++)
		futex_wait(&s->threads[i], 10 + i, "pool", 0x9028, 0, 0, LT_OWNER_NONE, 0, 30);
	cr_assert_eq(diagnosed(s, LT_VERDICT_CONVOY), 0);
	lt_snapshot_free(s);
}

Test(verdict_convoy, owner_unknown_but_lock_word)
{
	struct lt_snapshot *s = table(4);
	for (int i = 0; i < 4; i++)
		futex_wait(&s->threads[i], 10 + i, "w", LA, 2, 2, LT_OWNER_NONE, 0, 3);
	/* one waiter ran a moment ago: the lock is being handed on */
	s->threads[3].idle_s = 0.2;
	lt_snapshot_diagnose(s, NULL);
	const struct lt_verdict *v = find(s, LT_VERDICT_CONVOY);
	cr_assert_not_null(v);
	cr_assert_eq(v->owner, 0);
	cr_assert_not_null(strstr(v->summary, "no owner recorded"), "%s", v->summary);
	lt_snapshot_free(s);
}

Test(verdict_idle, all_in_io)
{
	struct lt_snapshot *s = table(5);
	in_io(&s->threads[0], 10, "main", 232, 3, LT_FD_ANON, 5);  /* epoll_wait */
	in_io(&s->threads[1], 11, "rx", 45, 7, LT_FD_SOCKET, 5);   /* recvfrom */
	in_io(&s->threads[2], 12, "tick", 230, 0, LT_FD_UNKNOWN, 5);/* clock_nanosleep */
	in_io(&s->threads[3], 13, "acc", 43, 4, LT_FD_SOCKET, 5);  /* accept */
	futex_wait(&s->threads[4], 14, "pool", 0x9028, 0, 0, LT_OWNER_NONE, 0, 30);
	lt_snapshot_diagnose(s, NULL);
	cr_assert_eq(s->n_verdicts, 1);
	const struct lt_verdict *v = find(s, LT_VERDICT_IDLE);
	cr_assert_not_null(v);
	cr_assert(tl_strlist_has(&v->evidence, "4 in I/O, sleep, child or signal waits"));
	cr_assert(tl_strlist_has(&v->evidence, "1 wait on futexes with no owner"));
	lt_snapshot_free(s);
}

/* A process stopped by SIGSTOP (state T) whose thread was in a sleep is
 * not idle: the sleep's timer does not run it again, only SIGCONT does
 * (seen as "IDLE ... 1 wait on a timer" on a stopped sleep(1)); a tracer's
 * stop (state t) is said as one. */
Test(verdict_idle, a_stopped_thread_is_no_idle_one)
{
	struct lt_snapshot *s = table(2);
	in_io(&s->threads[0], 10, "sleep", 230, 0, LT_FD_UNKNOWN, 3); /* clock_nanosleep */
	s->threads[0].state = 'T';
	in_io(&s->threads[1], 11, "rx", 45, 7, LT_FD_SOCKET, 3);
	s->threads[1].state = 'T';
	lt_snapshot_diagnose(s, NULL);
	cr_assert_eq(count(s, LT_VERDICT_IDLE), 0);
	const struct lt_verdict *v = find(s, LT_VERDICT_STOPPED);
	cr_assert_not_null(v);
	cr_assert_str_eq(lt_verdict_kind_name(v->kind), "stopped");
	cr_assert_eq(v->n_tids, 2);
	cr_assert_not_null(strstr(v->summary, "2 of 2 threads are stopped by a signal (state T"), "%s", v->summary);
	cr_assert_not_null(strstr(v->summary, "SIGCONT"), "%s", v->summary);
	cr_assert(tl_strlist_has(&v->evidence, "thread 10 (sleep) state T, in clock_nanosleep"));
	lt_snapshot_free(s);

	s = table(1);
	in_io(&s->threads[0], 10, "app", 232, 3, LT_FD_ANON, 3); /* epoll_wait */
	s->threads[0].state = 't';
	lt_snapshot_diagnose(s, NULL);
	cr_assert_eq(count(s, LT_VERDICT_IDLE), 0);
	v = find(s, LT_VERDICT_STOPPED);
	cr_assert_not_null(v);
	cr_assert_not_null(strstr(v->summary, "stopped by a tracer (state t"), "%s", v->summary);
	lt_snapshot_free(s);
}

/* Threads stopped by one tracer (their TracerPid): the verdict names it
 * and what it does (a debugger idle at its prompt); by two tracers, none
 * is named. */
Test(verdict_idle, a_stopped_threads_tracer_is_named)
{
	for (int two = 0; two < 2; two++) {
		struct lt_snapshot *s = table(2);
		for (int i = 0; i < 2; i++) {
			in_io(&s->threads[i], 10 + i, "app", 232, 3, LT_FD_ANON, 3); /* epoll_wait */
			s->threads[i].state = 't';
			s->threads[i].wf = calloc(1, sizeof(*s->threads[i].wf));
			cr_assert_not_null(s->threads[i].wf);
			s->threads[i].wf->pid = 10;
			s->threads[i].wf->tracer = two && i ? 9000 : 8032;
			s->threads[i].wf->tracer_st = LT_WFP_EVENTS;
			s->threads[i].wf->tracer_doing = strdup(two && i ? "9000 (strace): wait4" : "8032 (gdb): poll");
		}
		lt_snapshot_diagnose(s, NULL);
		const struct lt_verdict *v = find(s, LT_VERDICT_STOPPED);
		cr_assert_not_null(v);
		if (two) {
			cr_expect_null(strstr(v->summary, "process 8032"), "%s", v->summary);
			cr_expect(!tl_strlist_has(&v->evidence, "tracer 8032"));
		} else {
			cr_expect_not_null(strstr(v->summary, "2 of 2 threads are stopped by a tracer, process 8032 (gdb), "
							"which is in an event wait (idle) (state t"), "%s", v->summary);
			cr_expect(tl_strlist_has(&v->evidence, "tracer 8032: 8032 (gdb): poll"));
		}
		lt_snapshot_free(s);
	}
}

/* A thread in a ptrace stop of a tracer that is running (strace at each
 * system call): a stop it is handling, said as momentary (inferred), and
 * explaining no stall; with the tracer idle, stopped until it lets go. */
Test(verdict_idle, a_ptrace_stop_of_a_running_tracer_is_momentary)
{
	for (int idle = 0; idle < 2; idle++) {
		struct lt_snapshot *s = table(1);
		in_io(&s->threads[0], 10, "app", 39, 3, LT_FD_ANON, 3);
		s->threads[0].state = 't';
		s->threads[0].wf = calloc(1, sizeof(*s->threads[0].wf));
		cr_assert_not_null(s->threads[0].wf);
		s->threads[0].wf->pid = 10;
		s->threads[0].wf->tracer = 7513;
		s->threads[0].wf->tracer_st = idle ? LT_WFP_EVENTS : LT_WFP_RUNNING;
		s->threads[0].wf->tracer_doing = strdup(idle ? "7513 (strace): poll" : "7513 (strace): running");
		lt_snapshot_diagnose(s, NULL);
		const struct lt_verdict *v = find(s, LT_VERDICT_STOPPED);
		cr_assert_not_null(v);
		if (idle) {
			cr_expect_not_null(strstr(v->summary, "stopped by a tracer, process 7513 (strace)"), "%s", v->summary);
			cr_expect_eq(v->explains, 1);
		} else {
			cr_expect_not_null(strstr(v->summary, "are in a ptrace stop of a tracer, process 7513 (strace), "
							"which is running: a stop it is handling"), "%s", v->summary);
			cr_expect_not_null(strstr(v->summary, "momentary, inferred"), "%s", v->summary);
			cr_expect_eq(v->explains, 0);
		}
		lt_snapshot_free(s);
	}
}

/* A read on a pipe is no socket I/O: sockets, pipes and FIFOs apart. */
Test(verdict_idle, sockets_pipes_and_fifos_counted_apart)
{
	struct lt_snapshot *s = table(6);
	in_io(&s->threads[0], 10, "rx", 0, 7, LT_FD_SOCKET, 5);   /* read */
	in_io(&s->threads[1], 11, "p1", 0, 8, LT_FD_PIPE, 5);
	in_io(&s->threads[2], 12, "p2", 1, 9, LT_FD_PIPE, 5);     /* write */
	in_io(&s->threads[3], 13, "ff", 0, 10, LT_FD_FIFO, 5);
	in_io(&s->threads[4], 14, "tty", 0, 0, LT_FD_FILE, 5);
	in_io(&s->threads[5], 15, "main", 232, 3, LT_FD_ANON, 5); /* epoll_wait */
	lt_snapshot_diagnose(s, NULL);
	const struct lt_verdict *v = find(s, LT_VERDICT_IDLE);
	cr_assert_not_null(v);
	cr_assert(tl_strlist_has(&v->evidence, "6 in I/O, sleep, child or signal waits: 1 poll/select/epoll, 1 socket I/O, 2 pipe I/O, "
						"1 FIFO I/O, 1 other fd I/O"));
	lt_snapshot_free(s);
}

/* A thread glibc parks for ever (lt_futex.parked) and one waiting for a
 * PI mutex it holds: one lock wait of both that says neither can go on (a
 * cycle the kernel refused, or a dead owner: which is not recorded, so no
 * DEADLOCK); parked alone: a verdict that it sleeps for ever, never a lock
 * wait on its stack word. */
Test(verdict_parked, waiter_of_a_parked_holder_is_stuck_with_it)
{
	struct lt_snapshot *s = table(3);
	in_io(&s->threads[0], 10, "main", 34, -1, LT_FD_UNKNOWN, 3); /* pause */
	futex_wait(&s->threads[1], 11, "first", LA, 0, 12 | 0x80000000u, LT_OWNER_PI, 12, 3);
	futex_wait(&s->threads[2], 12, "second", 0x7000, 0, 0, LT_OWNER_NONE, 0, 3);
	s->threads[2].futex.parked = true;
	lt_snapshot_diagnose(s, NULL);
	const struct lt_verdict *v = &s->verdicts[0];
	cr_assert_eq(v->kind, LT_VERDICT_LOCK_WAIT, "%s", v->summary);
	cr_expect(strstr(v->summary, "thread 11 (first) waits for") &&
		  strstr(v->summary, "held by thread 12 (second), which sleeps for ever") &&
		  strstr(v->summary, "none of them can go on"), "%s", v->summary);
	cr_assert_eq(v->n_tids, 2);
	cr_expect_eq(count(s, LT_VERDICT_LOCK_WAIT), 1);
	cr_expect_eq(count(s, LT_VERDICT_DEADLOCK), 0);
	lt_snapshot_free(s);

	s = table(1);
	futex_wait(&s->threads[0], 12, "second", 0x7000, 0, 0, LT_OWNER_NONE, 0, 3);
	s->threads[0].futex.parked = true;
	lt_snapshot_diagnose(s, NULL);
	cr_assert_eq(s->n_verdicts, 1);
	cr_expect_eq(s->verdicts[0].kind, LT_VERDICT_LOCK_WAIT);
	cr_expect(strstr(s->verdicts[0].summary, "thread 12 (second) sleeps for ever"), "%s", s->verdicts[0].summary);
	lt_snapshot_free(s);
}

Test(verdict_ok, running_threads)
{
	struct lt_snapshot *s = table(3);
	running(&s->threads[0], 10, "cpu");
	in_io(&s->threads[1], 11, "rx", 0, 5, LT_FD_PIPE, 1);
	running(&s->threads[2], 12, "cpu2");
	lt_snapshot_diagnose(s, NULL);
	cr_assert_eq(s->n_verdicts, 1);
	const struct lt_verdict *v = find(s, LT_VERDICT_OK);
	cr_assert_not_null(v);
	cr_assert_not_null(strstr(v->summary, "nothing suspicious"));
	lt_snapshot_free(s);
}

/* The only thread of a process asleep on a private condition variable
 * with no timeout (a worker pool whose worker exited without signalling):
 * nothing of the process can wake it, never "nothing suspicious".  Not
 * so with a timeout, on a shared futex (another process may wake it), or
 * beside a thread that runs. */
Test(verdict_lost_wakeup, a_private_wait_nothing_left_to_wake)
{
	struct lt_snapshot *s = table(1);
	futex_wait(&s->threads[0], 100, "main", LA, 0, 0, LT_OWNER_NONE, 0, 5);
	lt_snapshot_diagnose(s, NULL);
	cr_assert_eq(s->n_verdicts, 1);
	const struct lt_verdict *v = find(s, LT_VERDICT_LOST_WAKEUP);
	cr_assert_not_null(v, "%s", s->verdicts[0].summary);
	cr_assert(!strncmp(v->summary, "nothing can wake it: the only thread, 100 (main), sleeps on a private "
			   "futex with no timeout", 85), "%s", v->summary);
	cr_assert(v->n_tids == 1 && v->tids[0] == 100);
	lt_snapshot_free(s);
	/* two threads, one joining the other */
	s = table(2);
	futex_wait(&s->threads[0], 100, "main", 0x7000, 101, 101, LT_OWNER_JOIN, 101, 5);
	s->threads[0].futex.owner = 101;
	futex_wait(&s->threads[1], 101, "w", LA, 0, 0, LT_OWNER_NONE, 0, 5);
	lt_snapshot_diagnose(s, NULL);
	v = find(s, LT_VERDICT_LOST_WAKEUP);
	cr_assert_not_null(v, "%s", s->verdicts[0].summary);
	cr_assert(!strncmp(v->summary, "nothing can wake them: all 2 threads", 36), "%s", v->summary);
	lt_snapshot_free(s);
	for (int k = 0; k < 3; k++) {
		s = table(2);
		futex_wait(&s->threads[0], 100, "main", LA, 0, 0, LT_OWNER_NONE, 0, 5);
		futex_wait(&s->threads[1], 101, "w", LB, 0, 0, LT_OWNER_NONE, 0, 5);
		if (k == 0) {
			s->threads[1].futex.timeout_ptr = 0x7ffd000;
		} else if (k == 1) {
			s->threads[1].futex.private_ = false;
		} else {
			base(&s->threads[1], 101, "cpu", 0);
			running(&s->threads[1], 101, "cpu");
		}
		lt_snapshot_diagnose(s, NULL);
		cr_assert_null(find(s, LT_VERDICT_LOST_WAKEUP), "case %d: %s", k, s->verdicts[0].summary);
		cr_assert_not_null(find(s, LT_VERDICT_OK), "case %d", k);
		lt_snapshot_free(s);
	}
}

/* The same with the process's caught signals read (SigCgt less what every
 * thread blocks, bit sig-1): a handler of one may still wake the futex, so
 * not known to be lost ("hung, or waiting for that signal"); none caught, or
 * only faults (SIGSEGV) or glibc's own (32, 33), and it is lost, said with
 * why.  A Python process's SIGINT may raise KeyboardInterrupt in the main
 * thread, or run the program's own handler: a way out too (a review). */
Test(verdict_lost_wakeup, a_handler_of_a_caught_signal_may_still_wake)
{
	static const struct {
		uint64_t caught;
		const char *lang;
		enum lt_verdict_kind kind;
		const char *says;
	} cases[] = {
		{ 1ull << 14, NULL, LT_VERDICT_UNKNOWN, "no thread is left to wake it: the only thread, 100 (main), "
		  "sleeps on a private futex with no timeout (a condition variable, semaphore or lock with no owner "
		  "recorded), which only a thread of its own process can wake, and there is none; only a signal "
		  "could still end it: the process catches SIGTERM (a handler may wake it): hung, or waiting for "
		  "that signal" },
		{ 0, NULL, LT_VERDICT_LOST_WAKEUP, "and there is none: the wake-up it waits for cannot come; nor can "
		  "a signal handler: no signal the process catches can run one now (SigCgt and SigBlk" },
		{ (1ull << 10) | (1ull << 31) | (1ull << 32), NULL, LT_VERDICT_LOST_WAKEUP, "; nor can a signal "
		  "handler: the process catches only fault signals (SIGSEGV), which no sleeping thread raises" },
		{ 1ull << 1, "python", LT_VERDICT_UNKNOWN, "the process catches SIGINT (a handler may wake it; "
		  "CPython's own SIGINT handler raises KeyboardInterrupt in the main thread): hung, or waiting" },
		{ (1ull << 1) | (1ull << 9), "python", LT_VERDICT_UNKNOWN, "the process catches SIGINT SIGUSR1 (a "
		  "handler may wake it" },
	};
	for (size_t k = 0; k < sizeof(cases) / sizeof(cases[0]); k++) {
		struct lt_snapshot *s = table(1);
		futex_wait(&s->threads[0], 100, "main", LA, 0, 0, LT_OWNER_NONE, 0, 5);
		s->threads[0].sig_caught = cases[k].caught;
		s->threads[0].sig_caught_ok = true;
		s->threads[0].rt_lang = cases[k].lang;
		lt_snapshot_diagnose(s, NULL);
		cr_assert_eq(s->n_verdicts, 1, "case %zu", k);
		cr_expect_eq(s->verdicts[0].kind, cases[k].kind, "case %zu: %s", k, s->verdicts[0].summary);
		cr_expect(strstr(s->verdicts[0].summary, cases[k].says), "case %zu: %s\nwant: %s", k,
			  s->verdicts[0].summary, cases[k].says);
		s->threads[0].rt_lang = NULL;
		lt_snapshot_free(s);
	}
	/* two threads: "them", "their waits" */
	struct lt_snapshot *s = table(2);
	futex_wait(&s->threads[0], 100, "main", LA, 0, 0, LT_OWNER_NONE, 0, 5);
	futex_wait(&s->threads[1], 101, "w", LB, 0, 0, LT_OWNER_NONE, 0, 5);
	for (int i = 0; i < 2; i++) {
		s->threads[i].sig_caught = 1ull << 14;
		s->threads[i].sig_caught_ok = true;
	}
	lt_snapshot_diagnose(s, NULL);
	cr_assert_eq(s->n_verdicts, 1);
	cr_expect(strstr(s->verdicts[0].summary, "no thread is left to wake them: all 2 threads") &&
		  strstr(s->verdicts[0].summary, "; only a signal could still end their waits: the process catches "
			 "SIGTERM (a handler may wake them)"), "%s", s->verdicts[0].summary);
	lt_snapshot_free(s);
}

/* A combined view of two processes, each thread asleep on a private futex:
 * each process is judged by its own signals (a review found the first
 * thread's process said for all): one that catches SIGTERM makes the
 * verdict unknown and is named; none catching any, lost. */
Test(verdict_lost_wakeup, several_processes_each_by_its_own_signals)
{
	for (int k = 0; k < 2; k++) {
		struct lt_snapshot *s = table(2);
		futex_wait(&s->threads[0], 100, "a", LA, 0, 0, LT_OWNER_NONE, 0, 5);
		futex_wait(&s->threads[1], 200, "b", LB, 0, 0, LT_OWNER_NONE, 0, 5);
		s->thread_pid = calloc(2, sizeof(*s->thread_pid));
		s->thread_pid[0] = 100;
		s->thread_pid[1] = 200;
		s->threads[0].sig_caught_ok = s->threads[1].sig_caught_ok = true;
		s->threads[1].sig_caught = k ? 1ull << 14 : 0;
		lt_snapshot_diagnose(s, NULL);
		cr_assert_eq(s->n_verdicts, 1);
		const struct lt_verdict *v = &s->verdicts[0];
		cr_expect_eq(v->kind, k ? LT_VERDICT_UNKNOWN : LT_VERDICT_LOST_WAKEUP, "%s", v->summary);
		cr_expect(strstr(v->summary, k ? "; only a signal could still end their waits: process 200 catches "
				 "SIGTERM (a handler may wake them)" : "; nor can a signal handler: no signal these "
				 "processes catch"), "%s", v->summary);
		lt_snapshot_free(s);
	}
}

/* The only thread of a process in sem_wait() on a private semaphore
 * (sem_init's pshared 0): no thread can post it, said so, with whether a
 * signal handler still could (a SIGTERM handler that posts is a common
 * shutdown pattern): unknown then, a lost wake-up when none can; before,
 * only "whose holder is not recorded".  A shared one no other process maps
 * says the same of its handlers. */
Test(verdict_lock_wait, a_private_semaphore_every_thread_waits_for)
{
	for (int k = 0; k < 3; k++) {
		bool caught = k != 1, shared = k == 2;
		struct lt_snapshot *s = table(1);
		futex_wait(&s->threads[0], 100, "main", LA, 0, 0, LT_OWNER_NONE, 0, 5);
		s->threads[0].futex.lock_kind = "semaphore";
		s->threads[0].acquire = "sem_wait"; /* its frames (lock_glibc.c) */
		s->threads[0].sig_caught = caught ? 1ull << 14 : 0;
		s->threads[0].sig_caught_ok = true;
		if (shared) {
			s->threads[0].futex.private_ = false;
			s->threads[0].futex.shared_obj = true;
			s->threads[0].futex.obj_mappers_known = true;
		}
		lt_snapshot_diagnose(s, NULL);
		cr_assert_eq(s->n_verdicts, 1, "case %d", k);
		const struct lt_verdict *v = &s->verdicts[0];
		cr_expect_eq(v->kind, caught ? LT_VERDICT_UNKNOWN : LT_VERDICT_LOST_WAKEUP, "case %d: %s", k, v->summary);
		cr_expect(strstr(v->summary, shared ? "none can release it: no other live process maps it"
				 : "no thread can post it: it is private to this process, and every thread of the "
				 "process waits for it"), "case %d: %s", k, v->summary);
		cr_expect(strstr(v->summary, caught ? "; only a signal could still end it: the process catches "
				 "SIGTERM (a handler may post it): hung, or waiting for that signal"
				 : "; nor can a signal handler: no signal the process catches"), "case %d: %s", k,
			  v->summary);
		lt_snapshot_free(s);
	}
	/* a second thread that runs: it may post */
	struct lt_snapshot *s = table(2);
	futex_wait(&s->threads[0], 100, "main", LA, 0, 0, LT_OWNER_NONE, 0, 5);
	s->threads[0].futex.lock_kind = "semaphore";
	s->threads[0].acquire = "sem_wait";
	running(&s->threads[1], 101, "cpu");
	lt_snapshot_diagnose(s, NULL);
	for (size_t i = 0; i < s->n_verdicts; i++)
		cr_expect(!strstr(s->verdicts[i].summary, "no thread can post it"), "%s", s->verdicts[i].summary);
	lt_snapshot_free(s);
}

/* Every thread asleep, one in a call whose other end is not followed (a
 * System V semaphore): not "nothing suspicious" but not known, the thread
 * named; with a thread running, nothing suspicious as before. */
Test(verdict_ok, an_unfollowed_wait_with_nothing_running_is_not_known)
{
	struct lt_snapshot *s = table(2);
	in_io(&s->threads[0], 10, "main", 220, 1, LT_FD_UNKNOWN, 4); /* semtimedop */
	s->threads[0].detail = strdup("semtimedop(semid 1, sem 0 -1, 1 op, no timeout)");
	in_io(&s->threads[1], 11, "rx", 0, 5, LT_FD_PIPE, 1);
	lt_snapshot_diagnose(s, NULL);
	cr_assert_eq(s->n_verdicts, 1);
	const struct lt_verdict *v = find(s, LT_VERDICT_UNKNOWN);
	cr_assert_not_null(v, "%s", s->verdicts[0].summary);
	cr_expect(strstr(v->summary, "1 thread waits in semtimedop") && strstr(v->summary, "not known"), "%s",
		  v->summary);
	cr_assert_eq(v->n_tids, 1);
	cr_expect_eq(v->tids[0], 10);
	cr_expect(tl_strlist_has(&v->evidence, "thread 10 (main) semtimedop(semid 1"));
	lt_snapshot_free(s);

	s = table(2);
	in_io(&s->threads[0], 10, "main", 220, 1, LT_FD_UNKNOWN, 4);
	running(&s->threads[1], 11, "cpu");
	lt_snapshot_diagnose(s, NULL);
	cr_assert_not_null(find(s, LT_VERDICT_OK));
	lt_snapshot_free(s);
}

/* A thread queued on a lock is never "nothing suspicious", even for 1 ms
 * behind a running owner: it is said as what it is. */
Test(verdict_lock_wait, one_waiter_behind_a_running_owner_is_not_ok)
{
	struct lt_snapshot *s = table(3);
	running(&s->threads[0], 10, "cpu");
	in_io(&s->threads[1], 11, "rx", 0, 5, LT_FD_PIPE, 1);
	futex_wait(&s->threads[2], 12, "w", LA, 2, 2, LT_OWNER_MUTEX, 10, 0.001);
	cr_assert_eq(diagnosed(s, LT_VERDICT_OK), 0);
	cr_assert_eq(count(s, LT_VERDICT_IDLE), 0);
	const struct lt_verdict *v = &s->verdicts[0];
	cr_assert_eq(v->kind, LT_VERDICT_LOCK_WAIT);
	cr_assert_eq(v->owner, 10);
	cr_assert_str_eq(v->owner_source, "pthread mutex __owner");
	cr_assert_not_null(strstr(v->summary, "1 thread waits for 0x5000 held by thread 10 (cpu), which is running"),
			   "%s", v->summary);
	lt_snapshot_free(s);
}

/* Two Python threading.Locks (semaphores) taken in opposite orders: memory
 * cannot prove the cycle (a semaphore has no owner), but the verdict must
 * say that two threads wait on locks whose holders are not recorded. */
Test(verdict_lock_wait, semaphore_waiters_are_never_idle)
{
	struct lt_snapshot *s = table(3);
	in_io(&s->threads[0], 10, "main", 230, 0, LT_FD_UNKNOWN, 5);
	futex_wait(&s->threads[1], 11, "t1", LA, 0, 0, LT_OWNER_NONE, 0, 4);
	futex_wait(&s->threads[2], 12, "t2", LB, 0, 0, LT_OWNER_NONE, 0, 4);
	for (int i = 1; i <= 2; i++) {
		s->threads[i].futex.lock_kind = "semaphore";
		s->threads[i].acquire = "sem_wait";
	}
	cr_assert_eq(diagnosed(s, LT_VERDICT_OK), 0);
	cr_assert_eq(count(s, LT_VERDICT_IDLE), 0);
	cr_assert_eq(count(s, LT_VERDICT_LOCK_WAIT), 2);
	const struct lt_verdict *v = find(s, LT_VERDICT_LOCK_WAIT);
	cr_assert_not_null(strstr(v->summary, "semaphore"), "%s", v->summary);
	cr_assert_not_null(strstr(v->summary, "whose holder is not recorded (a semaphore records no holder)"),
			   "%s", v->summary);
	cr_assert(tl_strlist_has(&v->evidence, "waits in sem_wait: a lock acquire"));
	lt_snapshot_free(s);
}

/* A process-shared semaphore (a multiprocessing.Queue's slots) that no
 * other live process maps any more, the consumer child that posted it
 * exited unreaped: said, not "a thread of another process may hold it";
 * with another process mapping it, that one may. */
Test(verdict_lock_wait, a_shared_semaphore_nobody_else_maps_says_so)
{
	for (int k = 0; k < 2; k++) {
		struct lt_snapshot *s = table(2);
		futex_wait(&s->threads[0], 10, "main", LA, 0, 0, LT_OWNER_NONE, 0, 4);
		in_io(&s->threads[1], 11, "feeder", 0, 3, LT_FD_PIPE, 4);
		struct lt_futex *f = &s->threads[0].futex;
		f->lock_kind = "semaphore";
		s->threads[0].acquire = "sem_wait";
		f->private_ = false;
		f->shared_obj = true;
		f->obj_ino = 167771;
		f->obj_mappers_known = true;
		f->obj_mappers = k;
		f->obj_zombie_child = k ? 0 : 22496;
		lt_snapshot_diagnose(s, NULL);
		const struct lt_verdict *v = find(s, LT_VERDICT_LOCK_WAIT);
		cr_assert_not_null(v, "case %d", k);
		if (!k) {
			cr_assert(tl_strlist_has(&v->evidence, "the lock is not private, but no other live process maps "
						 "it now, and process 22496, a child of this one"));
			cr_assert(tl_strlist_has(&v->evidence, "has exited (a zombie, not reaped): only a thread of this "
						 "process could post it"));
			cr_assert(!tl_strlist_has(&v->evidence, "may hold it instead"));
		} else {
			cr_assert(tl_strlist_has(&v->evidence, "the lock is not private, so a thread of another "
						 "process may hold it instead"));
		}
		lt_snapshot_free(s);
	}
}

/* Waiters on a condition variable under a lock-acquire function (the
 * demo's rt_acquire, OCaml's master lock) wait for a lock: not idle. */
Test(verdict_lock_wait, condvar_under_an_acquire_function_is_a_lock_wait)
{
	struct lt_snapshot *s = table(6);
	for (int i = 0; i < 5; i++) {
		futex_wait(&s->threads[i], 10 + i, "w", 0x90b4, 0, 0, LT_OWNER_NONE, 0, 3);
		s->threads[i].futex.lock_kind = "condition variable";
		s->threads[i].futex.lock_base = 0x9088;
		s->threads[i].acquire = "rt_acquire";
	}
	in_io(&s->threads[5], 15, "holder", 0, 7, LT_FD_SOCKET, 3);
	lt_snapshot_diagnose(s, NULL);
	cr_assert_eq(s->n_verdicts, 1);
	const struct lt_verdict *v = &s->verdicts[0];
	/* every thread asleep for 3 s: not a convoy (nobody hands it on) */
	cr_assert_eq(v->kind, LT_VERDICT_LOCK_WAIT, "%s", lt_verdict_kind_name(v->kind));
	cr_assert_eq(v->n_tids, 5);
	cr_assert_eq(v->owner, 0);
	cr_assert_not_null(strstr(v->summary, "5 threads wait for condition variable at 0x9088"),
			   "%s", v->summary);
	cr_assert_not_null(strstr(v->summary, "no owner recorded"), "%s", v->summary);
	cr_assert_not_null(strstr(v->summary, "has not been handed on"), "%s", v->summary);
	cr_assert(tl_strlist_has(&v->evidence, "thread 15 (holder), which has been blocked in read(fd 7: "
				 "socket) for 3.0 s"));
	/* one waiter ran 0.1 s ago: handed on, a convoy */
	lt_snapshot_free(s);
	s = table(6);
	for (int i = 0; i < 5; i++) {
		futex_wait(&s->threads[i], 10 + i, "w", 0x90b4, 0, 0, LT_OWNER_NONE, 0, i ? 3 : 0.1);
		s->threads[i].futex.lock_kind = "condition variable";
		s->threads[i].futex.lock_base = 0x9088;
		s->threads[i].acquire = "rt_acquire";
	}
	in_io(&s->threads[5], 15, "holder", 0, 7, LT_FD_SOCKET, 3);
	lt_snapshot_diagnose(s, NULL);
	v = &s->verdicts[0];
	cr_assert_eq(v->kind, LT_VERDICT_CONVOY);
	cr_assert_not_null(strstr(v->summary, "convoy: 5 threads wait on condition variable at 0x9088"),
			   "%s", v->summary);
	cr_assert_not_null(strstr(v->summary, "no owner recorded"), "%s", v->summary);
	lt_snapshot_free(s);
}

/* A runtime lock model named the holder: the first line is the answer,
 * in the runtime's terms, with what the holder is doing. */
static void runtime_lock(struct lt_snapshot *s, pid_t holder)
{
	s->rtlocks = calloc(1, sizeof(*s->rtlocks));
	s->n_rtlocks = 1;
	s->rtlocks[0].model = "ocaml4";
	s->rtlocks[0].kind = "OCaml runtime lock";
	s->rtlocks[0].name = strdup("caml_master_lock");
	s->rtlocks[0].base = 0x7000;
	s->rtlocks[0].size = 96;
	s->rtlocks[0].held = 1;
	s->rtlocks[0].waiters = 30;
	s->rtlocks[0].holder = holder;
	s->rtlocks[0].holder_how = strdup("curr_thread's stack is thread 3296's");
}

static void claimed(struct lt_thread *t, pid_t tid, pid_t holder, double idle)
{
	futex_wait(t, tid, "worker", 0x7058 + (tid & 1) * 4, 0, 0, LT_OWNER_RUNTIME, holder, idle);
	t->futex.lock_kind = "OCaml runtime lock";
	t->futex.lock_base = 0x7000;
	t->futex.rtlock = 1;
	t->acquire = "OCaml runtime lock";
}

Test(verdict_runtime, holder_in_read_is_the_first_line)
{
	struct lt_snapshot *s = table(34);
	runtime_lock(s, 3296);
	/* a housekeeping thread: lost wake-up-looking timed wait, 1 thread */
	futex_wait(&s->threads[0], 3200, "tick", LC, 0, 1, LT_OWNER_NONE, 0, 40);
	for (int i = 1; i < 31; i++)
		claimed(&s->threads[i], 3200 + i, 3296, 2 + i * 0.01);
	in_io(&s->threads[31], 3296, "repro", 0, 58, LT_FD_SOCKET, 2.3);
	in_io(&s->threads[32], 3297, "main", 230, 0, LT_FD_UNKNOWN, 5);
	running(&s->threads[33], 3298, "spin");
	lt_snapshot_diagnose(s, NULL);
	const struct lt_verdict *v = &s->verdicts[0];
	cr_assert_eq(v->kind, LT_VERDICT_CONVOY);
	cr_assert_eq(v->owner, 3296);
	cr_assert_eq(v->n_tids, 30);
	cr_assert_str_eq(v->owner_source, "the runtime's own state");
	cr_assert_not_null(strstr(v->summary, "30 threads wait for the OCaml runtime lock (caml_master_lock) "
					      "held by thread 3296 (repro), which has been blocked in "
					      "read(fd 58: socket) for 2.3 s"), "%s", v->summary);
	cr_assert(tl_strlist_has(&v->evidence, "holder 3296 read from the runtime (ocaml4)"));
	/* the one-thread lost wake-up ranks below the 30-thread queue */
	cr_assert_eq(count(s, LT_VERDICT_LOST_WAKEUP), 1);
	cr_assert_eq(s->verdicts[1].kind, LT_VERDICT_LOST_WAKEUP);
	lt_snapshot_free(s);
}

/* Waiters of a runtime lock that park on a timer and park again (a HotSpot
 * monitor's responsible waiter): their time since they last ran is the
 * current park's, said so, not the wait's. */
Test(verdict_runtime, timed_parks_say_the_wait_may_be_longer)
{
	struct lt_snapshot *s = table(3);
	runtime_lock(s, 32);
	claimed(&s->threads[0], 30, 32, 0.144);
	claimed(&s->threads[1], 31, 32, 0.2);
	s->threads[0].futex.timeout_ptr = 0x7fff0000;
	in_io(&s->threads[2], 32, "holder", 0, 5, LT_FD_SOCKET, 3);
	lt_snapshot_diagnose(s, NULL);
	const struct lt_verdict *v = &s->verdicts[0];
	cr_assert(tl_strlist_has(&v->evidence, "longest 200 ms in its current park: a waiter of this runtime lock "
					       "parks on a timer"), "%s", v->evidence.n ? v->evidence.v[0] : "-");
	lt_snapshot_free(s);
}

/* A holder that itself waits for a lock a model named (the user trial's
 * journal-writer, holding a ReentrantLock while it waits for a Semaphore
 * permit) is said to wait for that lock, by its name, and for whom: it
 * was "blocked in futex([anonymous mapping ...])". */
Test(verdict_runtime, a_holder_waiting_for_a_named_lock_says_which)
{
	struct lt_snapshot *s = table(3);
	s->rtlocks = calloc(2, sizeof(*s->rtlocks));
	s->n_rtlocks = 2;
	const char *names[] = { "ReentrantLock$NonfairSync@0x69ec1ae88", "Semaphore$NonfairSync@0x69ec1b3e8" };
	for (int i = 0; i < 2; i++) {
		struct lt_rtlock *l = &s->rtlocks[i];
		l->model = "hotspot";
		l->kind = "java.util.concurrent lock";
		l->name = strdup(names[i]);
		l->base = 0x69ec1ae88 + (uint64_t)i * 0x1000;
		l->held = i ? -1 : 1;
		l->waiters = -1;
		l->holder = i ? 0 : 40;
		l->holder_how = strdup(i ? "no owner is recorded" : "exclusiveOwnerThread");
	}
	futex_wait(&s->threads[0], 41, "victim", 0x7000, 0, 0, LT_OWNER_RUNTIME, 40, 3);
	s->threads[0].futex.rtlock = 1;
	s->threads[0].futex.lock_kind = "java.util.concurrent lock";
	futex_wait(&s->threads[1], 40, "holder", 0x7100, 0, 0, LT_OWNER_NONE, 0, 3.5);
	s->threads[1].futex.rtlock = 2;
	s->threads[1].futex.lock_kind = "java.util.concurrent lock";
	running(&s->threads[2], 42, "spin");
	lt_snapshot_diagnose(s, NULL);
	const struct lt_verdict *v = NULL;
	for (size_t i = 0; i < s->n_verdicts && !v; i++)
		for (size_t k = 0; k < s->verdicts[i].n_tids; k++)
			if (s->verdicts[i].tids[k] == 41)
				v = &s->verdicts[i];
	cr_assert_not_null(v);
	cr_assert_eq(v->owner, 40);
	cr_assert_not_null(strstr(v->summary, "held by thread 40 (holder), which has been waiting for the "
					      "java.util.concurrent lock (Semaphore$NonfairSync@0x69ec1b3e8) for "
					      "3.5 s, whose holder is not recorded"), "%s", v->summary);
	lt_snapshot_free(s);
}

Test(verdict_runtime, unknown_holder_is_said_unknown)
{
	struct lt_snapshot *s = table(3);
	runtime_lock(s, 0);
	free(s->rtlocks[0].holder_how);
	s->rtlocks[0].holder_how = strdup("curr_thread's stack pointers match no thread");
	claimed(&s->threads[0], 20, 0, 3);
	claimed(&s->threads[1], 21, 0, 3);
	s->threads[0].futex.owner_kind = s->threads[1].futex.owner_kind = LT_OWNER_NONE;
	s->threads[0].futex.owner = s->threads[1].futex.owner = 0;
	in_io(&s->threads[2], 22, "io", 0, 5, LT_FD_SOCKET, 3);
	lt_snapshot_diagnose(s, NULL);
	const struct lt_verdict *v = &s->verdicts[0];
	cr_assert_eq(v->kind, LT_VERDICT_LOCK_WAIT);
	cr_assert_eq(v->owner, 0);
	cr_assert_not_null(strstr(v->summary, "2 threads wait for the OCaml runtime lock (caml_master_lock) "
					      "whose holder is not recorded (its holder is unknown: curr_thread's "
					      "stack pointers match no thread)"), "%s", v->summary);
	lt_snapshot_free(s);
}

/* A thread that holds the GIL and waits on a mutex owned by a thread that
 * waits for the GIL: a cycle through a runtime lock. */
Test(verdict_runtime, cycle_through_a_runtime_lock)
{
	struct lt_snapshot *s = table(2);
	runtime_lock(s, 31);
	claimed(&s->threads[0], 30, 31, 5);
	futex_wait(&s->threads[1], 31, "holder", LA, 2, 2, LT_OWNER_MUTEX, 30, 5);
	lt_snapshot_diagnose(s, NULL);
	cr_assert_eq(s->verdicts[0].kind, LT_VERDICT_DEADLOCK);
	cr_assert_eq(s->verdicts[0].n_tids, 2);
	lt_snapshot_free(s);
}

Test(verdict_rank, one_thread_waits_fold_into_one_line)
{
	struct lt_snapshot *s = table(6);
	for (int i = 0; i < 5; i++)
		futex_wait(&s->threads[i], 10 + i, "w", 0x8000 + 0x40 * (uint64_t)i, 2, 2, LT_OWNER_MUTEX, 15, 1);
	running(&s->threads[5], 15, "busy");
	lt_snapshot_diagnose(s, NULL);
	cr_assert_eq(s->n_verdicts, 1);
	cr_assert_eq(s->verdicts[0].kind, LT_VERDICT_LOCK_WAIT);
	cr_assert_eq(s->verdicts[0].n_tids, 5);
	cr_assert_eq(s->verdicts[0].evidence.n, 5);
	cr_assert_not_null(strstr(s->verdicts[0].summary, "5 threads each wait for a different lock"));
	/* and names them */
	cr_assert_not_null(strstr(s->verdicts[0].summary, "(one waiter each): 10, 11, 12, 13, 14"), "%s",
			   s->verdicts[0].summary);
	lt_snapshot_free(s);
}

Test(verdict_ok, rediagnose_replaces_verdicts)
{
	struct lt_snapshot *s = table(1);
	running(&s->threads[0], 10, "cpu");
	lt_snapshot_diagnose(s, NULL);
	lt_snapshot_diagnose(s, NULL);
	cr_assert_eq(s->n_verdicts, 1);
	lt_snapshot_free(s);
}

/* A process-shared mutex whose owner lives in another process: the owner
 * is named as such, never as "exited while holding it". */
Test(verdict_lock_wait, owner_in_another_process_is_named)
{
	struct lt_snapshot *s = table(1);
	futex_wait(&s->threads[0], 10, "parent", LA, 2, 2, LT_OWNER_NONE, 0, 3);
	struct lt_futex *f = &s->threads[0].futex;
	f->mutex_ok = true;
	f->mutex_owner = 11;
	f->lock_kind = "pthread mutex";
	f->owner_tgid = 11;
	snprintf(f->owner_comm, sizeof(f->owner_comm), "child");
	s->threads[0].acquire = "pthread_mutex_lock";
	lt_snapshot_diagnose(s, NULL);
	cr_assert_eq(s->n_verdicts, 1);
	const struct lt_verdict *v = &s->verdicts[0];
	cr_assert_eq(v->kind, LT_VERDICT_LOCK_WAIT);
	cr_assert_not_null(strstr(v->summary, "held by thread 11 of another process, 11 (child)"), "%s", v->summary);
	cr_assert(!tl_strlist_has(&v->evidence, "exited"), "%s", v->evidence.v[0]);
	lt_snapshot_free(s);
}

/* A GIL held by a thread blocked in read() whose waiters were all runnable
 * (between two 5 ms timed waits) when the snapshot read them: the
 * re-samples saw them on its words (seen), and the verdict names the
 * holder; never "nothing suspicious". */
static void gil(struct lt_snapshot *s, pid_t holder, const pid_t *seen, size_t n_seen)
{
	s->rtlocks = calloc(1, sizeof(*s->rtlocks));
	s->n_rtlocks = 1;
	struct lt_rtlock *l = &s->rtlocks[0];
	l->model = "cpython";
	l->kind = "GIL";
	l->name = strdup("_PyRuntime.ceval.gil");
	l->version = strdup("CPython 3.11.2");
	l->base = 0x9000;
	l->size = 208;
	l->held = 1;
	l->waiters = -1;
	l->holder = holder;
	l->has_handoffs = true;
	l->seen = calloc(n_seen ? n_seen : 1, sizeof(*l->seen));
	if (n_seen) /* memcpy from NULL is undefined even for 0 bytes */
		memcpy(l->seen, seen, n_seen * sizeof(*seen));
	l->n_seen = n_seen;
	l->seen_samples = 12;
	l->seen_span_ms = 60.5;
}

/* The GIL's holder as read from the runtime (last_holder) was asleep
 * waiting for the GIL itself when its call was read: the GIL changed hands
 * between the readings (CPython 3.13, two CPU-bound threads).  No holder
 * is named, neither in the lock nor in its waiters' owners, and the
 * verdict says it is unknown, not "held by" the waiter. */
Test(verdict_runtime, a_gil_holder_found_waiting_for_the_gil_is_not_named)
{
	struct lt_snapshot *s = table(3);
	gil(s, 501, NULL, 0);
	running(&s->threads[0], 500, "main");
	futex_wait(&s->threads[1], 501, "spin_alpha", 0x9010, 0, 0, LT_OWNER_NONE, 0, 0.004);
	futex_wait(&s->threads[2], 502, "spin_beta", 0x9010, 0, 0, LT_OWNER_RUNTIME, 501, 0.004);
	for (int i = 1; i < 3; i++) {
		s->threads[i].futex.lock_kind = "GIL";
		s->threads[i].futex.lock_base = 0x9000;
		s->threads[i].futex.rtlock = 1;
	}
	lt_lockmodels_check_holders(s);
	cr_assert_eq(s->rtlocks[0].holder, 0);
	cr_assert(s->rtlocks[0].holder_how && strstr(s->rtlocks[0].holder_how, "changed hands while the snapshot read it"),
		  "%s", s->rtlocks[0].holder_how ? s->rtlocks[0].holder_how : "-");
	cr_assert_eq(s->threads[2].futex.owner, 0);
	cr_assert_eq(lt_snapshot_diagnose(s, NULL), 0);
	for (size_t i = 0; i < s->n_verdicts; i++)
		cr_assert_neq(s->verdicts[i].owner, 501, "%s", s->verdicts[i].summary);
	lt_snapshot_free(s);
}

Test(verdict_runtime, runnable_gil_waiters_seen_name_the_holder)
{
	struct lt_snapshot *s = table(7);
	pid_t seen[5] = { 501, 502, 503, 504, 505 };
	gil(s, 506, seen, 5);
	for (int i = 0; i < 5; i++)
		running(&s->threads[i], 501 + i, "python3");
	in_io(&s->threads[5], 506, "holder", 0, 3, LT_FD_SOCKET, 4.0);
	in_io(&s->threads[6], 507, "main", 7, 0, LT_FD_UNKNOWN, 5); /* poll */
	lt_snapshot_diagnose(s, NULL);
	cr_assert_gt(s->n_verdicts, 0);
	const struct lt_verdict *v = &s->verdicts[0];
	cr_assert_eq(v->kind, LT_VERDICT_CONVOY, "%s", lt_verdict_kind_name(v->kind));
	cr_assert_eq(v->owner, 506);
	cr_assert_eq(v->n_tids, 5);
	cr_assert_eq(v->explains, 6);
	cr_assert_str_eq(v->owner_source, "the runtime's own state");
	cr_assert_str_eq(v->summary, "5 threads wait for the GIL (_PyRuntime.ceval.gil) held by thread 506 "
				     "(holder), which has been blocked in read(fd 3: socket) for 4.0 s");
	cr_assert(tl_strlist_has(&v->evidence, "waiters seen in a futex wait on its words while the "
				 "holder stayed in its call (12 sample(s) over 60.5 ms; between two timed "
				 "waits they were runnable, not asleep): 501, 502, 503, 504, 505"));
	cr_assert(tl_strlist_has(&v->evidence, "holder 506 read from the runtime (cpython, CPython 3.11.2)"));
	cr_assert_eq(count(s, LT_VERDICT_OK), 0);
	lt_snapshot_free(s);
}

/* Fewer than the convoy threshold seen: a lock wait, still naming the holder. */
Test(verdict_runtime, one_runnable_gil_waiter_seen_is_a_lock_wait)
{
	struct lt_snapshot *s = table(3);
	pid_t seen[1] = { 501 };
	gil(s, 506, seen, 1);
	running(&s->threads[0], 501, "python3");
	running(&s->threads[1], 502, "python3");
	in_io(&s->threads[2], 506, "holder", 0, 3, LT_FD_SOCKET, 4.0);
	lt_snapshot_diagnose(s, NULL);
	cr_assert_eq(s->n_verdicts, 1);
	cr_assert_eq(s->verdicts[0].kind, LT_VERDICT_LOCK_WAIT);
	cr_assert_eq(s->verdicts[0].owner, 506);
	cr_assert_str_eq(s->verdicts[0].summary, "1 thread waits for the GIL (_PyRuntime.ceval.gil) held by "
						 "thread 506 (holder), which has been blocked in read(fd 3: "
						 "socket) for 4.0 s");
	lt_snapshot_free(s);
}

/* None seen, but runnable threads and a lock every Python thread needs:
 * said as what it is, naming the holder. */
Test(verdict_runtime, gil_held_across_read_with_runnable_threads)
{
	struct lt_snapshot *s = table(3);
	gil(s, 506, NULL, 0);
	running(&s->threads[0], 501, "python3");
	running(&s->threads[1], 502, "python3");
	in_io(&s->threads[2], 506, "holder", 0, 3, LT_FD_SOCKET, 4.0);
	lt_snapshot_diagnose(s, NULL);
	cr_assert_eq(s->n_verdicts, 1);
	const struct lt_verdict *v = &s->verdicts[0];
	cr_assert_eq(v->kind, LT_VERDICT_LOCK_WAIT);
	cr_assert_eq(v->owner, 506);
	cr_assert_eq(v->n_tids, 0);
	cr_assert_str_eq(v->summary, "the GIL (_PyRuntime.ceval.gil) is held by thread 506 (holder), which "
				     "has been blocked in read(fd 3: socket) for 4.0 s: no other thread can "
				     "take it until that call returns (2 runnable thread(s), none seen "
				     "waiting for it)");
	lt_snapshot_free(s);
}

/* Not for a lock only some threads need (a Java monitor held across I/O
 * is ordinary), nor for a holder that is running, nor when nobody else
 * could want it. */
Test(verdict_runtime, held_across_read_needs_evidence)
{
	struct lt_snapshot *s = table(3);
	gil(s, 506, NULL, 0);
	s->rtlocks[0].has_handoffs = false;
	s->rtlocks[0].kind = "Java monitor";
	running(&s->threads[0], 501, "java");
	in_io(&s->threads[1], 505, "io", 0, 4, LT_FD_SOCKET, 2.0);
	in_io(&s->threads[2], 506, "holder", 0, 3, LT_FD_SOCKET, 4.0);
	cr_assert_eq(diagnosed(s, LT_VERDICT_OK), 1);
	lt_snapshot_free(s);

	s = table(2);
	pid_t seen[1] = { 501 };
	gil(s, 506, seen, 1);
	running(&s->threads[0], 501, "python3");
	running(&s->threads[1], 506, "holder"); /* running: not blocked */
	cr_assert_eq(diagnosed(s, LT_VERDICT_OK), 1);
	lt_snapshot_free(s);

	s = table(2);
	gil(s, 506, NULL, 0);
	in_io(&s->threads[0], 505, "io", 0, 4, LT_FD_SOCKET, 2.0);
	in_io(&s->threads[1], 506, "holder", 0, 3, LT_FD_SOCKET, 4.0);
	cr_assert_eq(diagnosed(s, LT_VERDICT_IDLE), 1);
	lt_snapshot_free(s);
}

/* No holder recorded, every waiter asleep for seconds and nothing of the
 * process running: the lock is not being handed on, so no convoy; the
 * threads asleep elsewhere are listed as possible holders, as an
 * inference, the one blocked for about as long as the waiters first. */
Test(verdict_convoy, quiet_lock_with_no_holder_is_a_lock_wait)
{
	struct lt_snapshot *s = table(8);
	in_io(&s->threads[0], 800, "main", 34, -1, LT_FD_UNKNOWN, 9); /* pause */
	for (int i = 1; i <= 5; i++)
		futex_wait(&s->threads[i], 800 + i, "worker", LA, 2, 2, LT_OWNER_NONE, 0, 4 + i);
	in_io(&s->threads[6], 812, "worker-3", 0, 7, LT_FD_SOCKET, 4.9);
	in_io(&s->threads[7], 813, "tick", 230, -1, LT_FD_UNKNOWN, 0.05); /* clock_nanosleep */
	lt_snapshot_diagnose(s, NULL);
	cr_assert_eq(count(s, LT_VERDICT_CONVOY), 0);
	const struct lt_verdict *v = find(s, LT_VERDICT_LOCK_WAIT);
	cr_assert_not_null(v);
	cr_assert_eq(v->owner, 0, "a holder named from timing alone");
	cr_assert_eq(v->n_tids, 5);
	cr_assert_not_null(strstr(v->summary, "none of them has run for 5.0 s"), "%s", v->summary);
	cr_assert_not_null(strstr(v->summary, "the lock has not been handed on"), "%s", v->summary);
	cr_assert(tl_strlist_has(&v->evidence, "inferred"));
	/* nearest to the waiters' 5 s first: 812 (4.9 s), then main (9 s),
	 * then the ticking thread (50 ms) */
	size_t at812 = 0, atmain = 0, attick = 0;
	for (size_t i = 0; i < v->evidence.n; i++) {
		if (strstr(v->evidence.v[i], "thread 812 (worker-3), which has been blocked in read(fd 7"))
			at812 = i;
		if (strstr(v->evidence.v[i], "thread 800 (main), which has been blocked in pause"))
			atmain = i;
		if (strstr(v->evidence.v[i], "thread 813 (tick)"))
			attick = i;
	}
	cr_assert(at812 && atmain && attick, "candidates: %zu %zu %zu", at812, atmain, attick);
	cr_assert(at812 < atmain && atmain < attick);
	lt_snapshot_free(s);
}

/* A thread running (a timer thread, or a holder busy on the cpu) changes
 * nothing but the list, where it comes as running; a waiter whose last run
 * is not known leaves it a convoy, as before. */
Test(verdict_convoy, quiet_needs_every_waiters_last_run)
{
	struct lt_snapshot *s = table(6);
	for (int i = 0; i < 5; i++)
		futex_wait(&s->threads[i], 800 + i, "worker", LA, 2, 2, LT_OWNER_NONE, 0, 5);
	running(&s->threads[5], 812, "busy");
	cr_assert_eq(diagnosed(s, LT_VERDICT_CONVOY), 0);
	const struct lt_verdict *v = find(s, LT_VERDICT_LOCK_WAIT);
	cr_assert_not_null(v);
	cr_assert_eq(v->owner, 0);
	cr_assert(tl_strlist_has(&v->evidence, "thread 812 (busy), which is running"));
	lt_snapshot_free(s);

	s = table(5);
	for (int i = 0; i < 5; i++)
		futex_wait(&s->threads[i], 800 + i, "worker", LA, 2, 2, LT_OWNER_NONE, 0, 5);
	s->threads[2].idle_src = LT_IDLE_UNKNOWN;
	cr_assert_eq(diagnosed(s, LT_VERDICT_CONVOY), 1);
	cr_assert_null(strstr(find(s, LT_VERDICT_CONVOY)->summary, "handed on"));
	lt_snapshot_free(s);

	/* one waiter, said as one */
	s = table(2);
	futex_wait(&s->threads[0], 800, "worker", LA, 2, 2, LT_OWNER_NONE, 0, 5);
	in_io(&s->threads[1], 812, "worker-3", 0, 7, LT_FD_SOCKET, 5);
	cr_assert_eq(diagnosed(s, LT_VERDICT_LOCK_WAIT), 1);
	v = find(s, LT_VERDICT_LOCK_WAIT);
	cr_assert_not_null(strstr(v->summary, "; it has not run for 5.0 s: the lock has not been handed on"),
			   "%s", v->summary);
	cr_assert(tl_strlist_has(&v->evidence, "the waiter has not run for 5.0 s"));
	cr_assert(tl_strlist_has(&v->evidence, "nobody has woken it since"));
	lt_snapshot_free(s);
}

/* Thread t's stack: frames "func@module", innermost first (strdup'd: the
 * snapshot frees them). */
static void stack_of(struct lt_thread *t, const char *const *fr, size_t n)
{
	t->frames = calloc(n, sizeof(*t->frames));
	cr_assert_not_null(t->frames);
	t->n_frames = n;
	for (size_t i = 0; i < n; i++) {
		const char *at = strchr(fr[i], '@');
		t->frames[i].func = strndup(fr[i], (size_t)(at - fr[i]));
		t->frames[i].module = strdup(at + 1);
	}
}

/* A quiet lock with no holder recorded, as the bundled demo's: of the
 * threads not waiting, one runs the waiters' code (worker) and is asleep
 * in a call: its probable holder, said as inferred (the report's rule). */
static struct lt_snapshot *quiet_demo(bool second_worker)
{
	static const char *const waiter[] = { "__futex_abstimed_wait_common@libc.so.6",
		"pthread_cond_wait@libc.so.6", "rt_acquire@demo", "xfer@demo", "worker@demo",
		"start_thread@libc.so.6" };
	static const char *const reader[] = { "read@libc.so.6", "worker@demo", "start_thread@libc.so.6" };
	static const char *const mainf[] = { "pause@libc.so.6", "main@demo", "__libc_start_main@libc.so.6" };
	struct lt_snapshot *s = table(second_worker ? 8 : 7);
	s->exe = strdup("/opt/app/demo");
	in_io(&s->threads[0], 800, "main", 34, -1, LT_FD_UNKNOWN, 9);
	stack_of(&s->threads[0], mainf, 3);
	for (int i = 1; i <= 5; i++) {
		futex_wait(&s->threads[i], 800 + i, "worker", 0x90b4, 0, 0, LT_OWNER_NONE, 0, 4 + i);
		s->threads[i].futex.lock_kind = "condition variable";
		s->threads[i].futex.lock_base = 0x9088;
		s->threads[i].acquire = "rt_acquire";
		stack_of(&s->threads[i], waiter, 6);
	}
	in_io(&s->threads[6], 812, "worker", 0, 7, LT_FD_SOCKET, 4.9);
	stack_of(&s->threads[6], reader, 3);
	if (second_worker) {
		in_io(&s->threads[7], 813, "worker", 0, 8, LT_FD_SOCKET, 1.2);
		stack_of(&s->threads[7], reader, 3);
	}
	lt_snapshot_diagnose(s, NULL);
	return s;
}

Test(verdict_lock_wait, quiet_lock_holder_inferred_from_the_waiters_code)
{
	struct lt_snapshot *s = quiet_demo(false);
	cr_assert_eq(count(s, LT_VERDICT_CONVOY), 0);
	const struct lt_verdict *v = find(s, LT_VERDICT_LOCK_WAIT);
	cr_assert_not_null(v);
	cr_assert_eq(v->owner, 812);
	cr_assert_not_null(v->owner_source);
	cr_assert_not_null(strstr(v->owner_source, "inferred"), "%s", v->owner_source);
	cr_assert_not_null(strstr(v->summary, "probably held by thread 812 (worker) (inferred from its "
				  "frames), which has been blocked in read(fd 7: socket) for 4.9 s; none of them "
				  "has run for 5.0 s"), "%s", v->summary);
	cr_assert(tl_strlist_has(&v->evidence, "holder 812 inferred, not recorded by the lock: it runs the "
				 "waiters' code (worker)"));
	lt_snapshot_free(s);

	/* two threads asleep in the waiters' code: no guess, both listed */
	s = quiet_demo(true);
	v = find(s, LT_VERDICT_LOCK_WAIT);
	cr_assert_not_null(v);
	cr_assert_eq(v->owner, 0);
	cr_assert(tl_strlist_has(&v->evidence, "thread 812 (worker), which has been blocked in read(fd 7"));
	cr_assert(tl_strlist_has(&v->evidence, "thread 813 (worker), which has been blocked in read(fd 8"));
	cr_assert(tl_strlist_has(&v->evidence, "is among these (inferred"), "all three listed");
	lt_snapshot_free(s);

	/* of many threads that may hold it, those in the waiters' code come
	 * first and are never left out for ones nearer in time: 813 blocked
	 * a minute before the waiters came, six others about when they did */
	{
		static const char *const waiterf[] = { "__futex_abstimed_wait_common@libc.so.6",
			"pthread_cond_wait@libc.so.6", "rt_acquire@demo", "worker@demo" };
		static const char *const readerf[] = { "read@libc.so.6", "worker@demo" };
		static const char *const otherf[] = { "poll@libc.so.6", "watch_files@demo" };
		s = table(13);
		s->exe = strdup("/opt/app/demo");
		for (int i = 0; i < 5; i++) {
			futex_wait(&s->threads[i], 800 + i, "worker", LA, 2, 2, LT_OWNER_NONE, 0, 5);
			stack_of(&s->threads[i], waiterf, 4);
		}
		in_io(&s->threads[5], 812, "worker", 0, 7, LT_FD_SOCKET, 4.9);
		stack_of(&s->threads[5], readerf, 2);
		in_io(&s->threads[6], 813, "worker", 0, 8, LT_FD_SOCKET, 65);
		stack_of(&s->threads[6], readerf, 2);
		for (int i = 7; i < 13; i++) {
			in_io(&s->threads[i], 900 + i, "watch", 7, -1, LT_FD_UNKNOWN, 5 + 0.1 * i);
			stack_of(&s->threads[i], otherf, 2);
		}
		lt_snapshot_diagnose(s, NULL);
		v = find(s, LT_VERDICT_LOCK_WAIT);
		cr_assert_not_null(v);
		cr_assert_eq(v->owner, 0, "two threads in the waiters' code: none named");
		cr_assert(tl_strlist_has(&v->evidence, "is among these (the 6 of 8 nearest)"));
		cr_assert(tl_strlist_has(&v->evidence, "those that run the waiters' code, then those blocked"));
		size_t at812 = 0, at813 = 0, atother = 0;
		for (size_t i = 0; i < v->evidence.n; i++) {
			const char *e = v->evidence.v[i];
			if (strstr(e, "thread 812 (worker), which has been blocked in read(fd 7") &&
			    strstr(e, "; it runs the waiters' code (worker)"))
				at812 = i;
			if (strstr(e, "thread 813 (worker), which has been blocked in read(fd 8") &&
			    strstr(e, "; it runs the waiters' code (worker)"))
				at813 = i;
			if (!atother && strstr(e, "(watch), which has been blocked")) {
				atother = i;
				cr_assert_null(strstr(e, "waiters' code"), "%s", e);
			}
		}
		cr_assert(at812 && at813 && atother, "listed: %zu %zu %zu", at812, at813, atother);
		cr_assert(at812 < at813 && at813 < atother, "order: %zu %zu %zu", at812, at813, atother);
		cr_assert(!tl_strlist_has(&v->evidence, "thread 912 (watch)"), "the farthest other: left out");
		lt_snapshot_free(s);
	}

	/* more than 6 threads that may hold it: the nearest 6, said so */
	s = table(13);
	for (int i = 0; i < 5; i++)
		futex_wait(&s->threads[i], 800 + i, "worker", LA, 2, 2, LT_OWNER_NONE, 0, 5);
	for (int i = 5; i < 13; i++)
		in_io(&s->threads[i], 900 + i, "io", 0, i, LT_FD_SOCKET, 1 + i);
	lt_snapshot_diagnose(s, NULL);
	v = find(s, LT_VERDICT_LOCK_WAIT);
	cr_assert_not_null(v);
	cr_assert(tl_strlist_has(&v->evidence, "is among these (the 6 of 8 nearest)"));
	cr_assert(tl_strlist_has(&v->evidence, "thread 905 (io)"), "5 s: the nearest");
	cr_assert(!tl_strlist_has(&v->evidence, "thread 912 (io)"), "13 s: not among the 6");
	lt_snapshot_free(s);
}

/* Thread t's runtime stack: frames "func@file", innermost first. */
static void rt_stack_of(struct lt_thread *t, const char *const *fr, size_t n)
{
	t->rt_lang = "python";
	t->rt_frames = calloc(n, sizeof(*t->rt_frames));
	cr_assert_not_null(t->rt_frames);
	t->n_rt_frames = n;
	for (size_t i = 0; i < n; i++) {
		const char *at = strchr(fr[i], '@');
		t->rt_frames[i].func = strndup(fr[i], (size_t)(at - fr[i]));
		t->rt_frames[i].file = strdup(at + 1);
		t->rt_frames[i].line = 1;
		t->rt_frames[i].native = -1;
		t->rt_frames[i].bci = -1;
	}
}

/* An interpreter linked into the program (Debian's python3.11): every
 * thread runs its native functions, a join included (Thread.join waits in
 * the same PyThread_acquire_lock_timed as a lock's waiters).  Threads are
 * compared by their Python frames of the program's own files: the joining
 * main thread is no probable holder of the locks two threads deadlock on
 * (seen on a real ABBA), while a thread asleep in the waiters' own Python
 * function still is. */
Test(verdict_lock_wait, quiet_lock_holder_compared_by_the_programs_own_python_frames)
{
	static const char *const nat[] = { "__futex_abstimed_wait_common@libc.so.6",
		"PyThread_acquire_lock_timed@python3.11", "_PyEval_EvalFrameDefault@python3.11",
		"Py_RunMain@python3.11" };
	static const char *const ab[] = { "t1@/app/acq.py", "Thread.run@/usr/lib/python3.11/threading.py" };
	static const char *const joinf[] = { "Thread._wait_for_tstate_lock@/usr/lib/python3.11/threading.py",
		"Thread.join@/usr/lib/python3.11/threading.py", "<module>@/app/acq.py" };
	struct lt_snapshot *s = table(2);
	s->exe = strdup("/usr/bin/python3.11");
	futex_wait(&s->threads[0], 801, "ab", LA, 0, 0, LT_OWNER_NONE, 0, 5);
	s->threads[0].acquire = "sem_wait";
	stack_of(&s->threads[0], nat, 4);
	rt_stack_of(&s->threads[0], ab, 2);
	futex_wait(&s->threads[1], 800, "python3.11", LA + 0x1000, 0, 0, LT_OWNER_JOIN, 0, 6);
	stack_of(&s->threads[1], nat, 4);
	rt_stack_of(&s->threads[1], joinf, 3);
	lt_snapshot_diagnose(s, NULL);
	const struct lt_verdict *v = find(s, LT_VERDICT_LOCK_WAIT);
	cr_assert_not_null(v);
	cr_assert_eq(v->owner, 0, "the joining thread named the holder: %s", v->summary);
	cr_assert_null(strstr(v->summary, "probably held by"), "%s", v->summary);
	cr_assert(tl_strlist_has(&v->evidence, "thread 800 (python3.11), which has been blocked"),
		  "still listed among those that may hold it");
	lt_snapshot_free(s);

	/* a thread asleep in the waiters' own Python function (worker) */
	static const char *const waitw[] = { "worker@/app/w.py", "Thread.run@/usr/lib/python3.11/threading.py" };
	static const char *const sleepw[] = { "flush@/app/w.py", "worker@/app/w.py",
		"Thread.run@/usr/lib/python3.11/threading.py" };
	static const char *const natsleep[] = { "clock_nanosleep@libc.so.6", "_PyEval_EvalFrameDefault@python3.11" };
	s = table(3);
	s->exe = strdup("/usr/bin/python3.11");
	for (int i = 0; i < 2; i++) {
		futex_wait(&s->threads[i], 801 + i, "worker", LA, 0, 0, LT_OWNER_NONE, 0, 5);
		s->threads[i].acquire = "sem_wait";
		stack_of(&s->threads[i], nat, 4);
		rt_stack_of(&s->threads[i], waitw, 2);
	}
	in_io(&s->threads[2], 812, "worker", 230, -1, LT_FD_UNKNOWN, 4.9);
	stack_of(&s->threads[2], natsleep, 2);
	rt_stack_of(&s->threads[2], sleepw, 3);
	lt_snapshot_diagnose(s, NULL);
	v = find(s, LT_VERDICT_LOCK_WAIT);
	cr_assert_not_null(v);
	cr_assert_eq(v->owner, 812, "%s", v->summary);
	cr_assert(tl_strlist_has(&v->evidence, "it runs the waiters' code (worker)"));
	lt_snapshot_free(s);
}

/* The JVM's own service loops that wait for work on one of its Monitors
 * (rt_idle.c), as OpenJDK 17 runs them: the periodic-task thread's const
 * WatcherThread::sleep, the G1 concurrent mark, notification and sweeper
 * threads, GC threads waiting for the VM's start: idle waits, with the
 * lock state that says so; the same wait under a function that is no such
 * loop is not. */
Test(verdict_idle, the_jvms_own_service_loops_wait_for_work)
{
	static const char *const loops[] = {
		"_ZNK13WatcherThread5sleepEv@libjvm.so",
		"_ZN22G1ConcurrentMarkThread11run_serviceEv@libjvm.so",
		"_ZN18NotificationThread25notification_thread_entryEP10JavaThreadS1_@libjvm.so",
		"_ZN14NMethodSweeper12sweeper_loopEv@libjvm.so",
		"_Z19wait_init_completedv@libjvm.so",
		"_ZN11SomeService4loopEv@libjvm.so", /* no such loop */
	};
	size_t n = sizeof(loops) / sizeof(loops[0]);
	struct lt_snapshot *s = table(n);
	for (size_t i = 0; i < n; i++) {
		const char *fr[] = { "__futex_abstimed_wait_common@libc.so.6", "pthread_cond_timedwait@libc.so.6",
				     "_ZN2os15PlatformMonitor4waitEl@libjvm.so",
				     "_ZN7Monitor28wait_without_safepoint_checkEl@libjvm.so", loops[i],
				     "_ZN6Thread8call_runEv@libjvm.so" };
		futex_wait(&s->threads[i], (pid_t)(10 + i), "jvm", 0x9000 + 0x40 * i, 0, 0, LT_OWNER_NONE, 0, 3);
		s->threads[i].futex.lock_kind = "condition variable";
		stack_of(&s->threads[i], fr, 6);
	}
	lt_rt_idle_apply(s);
	for (size_t i = 0; i < n; i++) {
		const char *st = s->threads[i].futex.lock_state;
		if (i + 1 < n)
			cr_assert(st && strstr(st, LT_RT_IDLE_STATE), "%s: %s", loops[i], st ? st : "no state");
		else
			cr_assert(!st || !strstr(st, LT_RT_IDLE_STATE), "%s: %s", loops[i], st);
	}
	lt_snapshot_free(s);
}

/* multiprocessing's queue readers (a Pool's, a ProcessPoolExecutor's
 * workers) wait for the queue's reader lock, a shared semaphore, which
 * the reader that waits for an item keeps: idle, as CPython 3.11 and 3.8
 * name the frames; a SemLock taken in the program's own function is a
 * lock wait as before. */
Test(verdict_idle, multiprocessing_queue_readers_wait_for_work)
{
	static const char *const stacks[][3] = {
		{ "SemLock.__enter__@/usr/lib/python3.11/multiprocessing/synchronize.py",
		  "Queue.get@/usr/lib/python3.11/multiprocessing/queues.py", "consumer@/tmp/app.py" },
		{ "__enter__@/opt/py38/lib/python3.8/multiprocessing/synchronize.py",
		  "get@/opt/py38/lib/python3.8/multiprocessing/queues.py", "worker@/opt/py38/lib/python3.8/multiprocessing/pool.py" },
		{ "SemLock.__enter__@/usr/lib/python3.11/multiprocessing/synchronize.py",
		  "SimpleQueue.get@/usr/lib/python3.11/multiprocessing/queues.py", "worker@/usr/lib/python3.11/multiprocessing/pool.py" },
		{ "SemLock.__enter__@/usr/lib/python3.11/multiprocessing/synchronize.py", "update@/tmp/app.py",
		  "main@/tmp/app.py" },
		{ "SemLock.__enter__@/usr/lib/python3.11/multiprocessing/synchronize.py",
		  "Queue.get@/tmp/mymultiprocessing/queues.py", "main@/tmp/app.py" },
	};
	const bool idle[] = { true, true, true, false, false };
	size_t n = sizeof(stacks) / sizeof(stacks[0]);
	struct lt_snapshot *s = table(n);
	for (size_t i = 0; i < n; i++) {
		futex_wait(&s->threads[i], (pid_t)(10 + i), "python3", 0x9000 + 0x40 * i, 0, 0, LT_OWNER_NONE, 0, 3);
		s->threads[i].futex.lock_kind = "semaphore";
		rt_stack_of(&s->threads[i], stacks[i], 3);
	}
	lt_rt_idle_apply(s);
	for (size_t i = 0; i < n; i++) {
		const char *st = s->threads[i].futex.lock_state;
		bool is = st && strstr(st, LT_RT_IDLE_STATE) && strstr(st, "multiprocessing's Queue.get or SimpleQueue.get");
		cr_assert_eq(is, idle[i], "%s under %s: %s", stacks[i][0], stacks[i][1], st ? st : "no state");
	}
	lt_snapshot_free(s);
}

/* A runtime's own service threads run none of the program's code, so
 * none can end a wait of the program's (write its pipe, unlock its file):
 * waitfor.c leaves them out of who could.  OCaml's tick thread in its
 * select, Go's sysmon in its sleep, a JVM loop waiting for work, OCaml 5's
 * backup thread; not libuv's pool (it runs the program's file operations),
 * nor a thread that merely sleeps, nor the JVM's thread doing nothing of
 * the table's. */
Test(verdict_idle, the_runtimes_own_service_threads_are_said_apart)
{
	static const char *const stacks[][4] = {
		{ "__select@libc.so.6", "caml_thread_tick@prog", "start_thread@libc.so.6", NULL },
		{ "runtime.usleep@prog", "runtime.sysmon@prog", "runtime.newm1@prog", NULL },
		{ "pthread_cond_timedwait@libc.so.6", "_ZN7Monitor28wait_without_safepoint_checkEl@libjvm.so",
		  "_ZNK13WatcherThread5sleepEv@libjvm.so", NULL },
		{ "pthread_cond_wait@libc.so.6", "backup_thread_func@prog", "start_thread@libc.so.6", NULL },
		{ "do_futex_wait@libc.so.6", "uv_sem_wait@libuv.so.1", "worker@libuv.so.1", NULL },
		{ "__select@libc.so.6", "caml_unix_select@prog", "caml_c_call@prog", NULL },
		{ "pthread_cond_timedwait@libc.so.6", "_ZN7Monitor28wait_without_safepoint_checkEl@libjvm.so",
		  "_ZN11SomeService4loopEv@libjvm.so", NULL },
	};
	const bool service[] = { true, true, true, true, false, false, false };
	size_t n = sizeof(stacks) / sizeof(stacks[0]);
	struct lt_snapshot *s = table(n);
	for (size_t i = 0; i < n; i++) {
		futex_wait(&s->threads[i], (pid_t)(10 + i), "prog", 0x9000 + 0x40 * i, 0, 0, LT_OWNER_NONE, 0, 3);
		s->threads[i].futex.lock_kind = "condition variable";
		stack_of(&s->threads[i], stacks[i], 3);
	}
	lt_rt_idle_apply(s);
	for (size_t i = 0; i < n; i++)
		cr_assert_eq(s->threads[i].rt_service, service[i], "%s under %s", stacks[i][0], stacks[i][1]);
	lt_snapshot_free(s);
}

/* A thread waits on a condition variable while it holds a mutex that the
 * one other thread that could signal it waits for (the classic "waits
 * with the lock held"): the condition variable records no signaller, so
 * the cycle is a probable deadlock that says so, never a plain one; with
 * a timed condition wait, until a timeout; with a third thread running
 * (it may signal), nothing claimed. */
Test(verdict_deadlock, a_condvar_waiter_holding_the_signallers_lock_is_a_probable_deadlock)
{
	for (int k = 0; k < 3; k++) {
		struct lt_snapshot *s = table(k == 2 ? 3 : 2);
		futex_wait(&s->threads[0], 101, "waiter", LA + 0x28, 0, 0, LT_OWNER_NONE, 0, 4);
		s->threads[0].futex.lock_kind = "condition variable";
		s->threads[0].futex.lock_base = LA;
		s->threads[0].futex.lock_sym = strdup("ready_cv+0x28");
		if (k == 1) {
			s->threads[0].futex.timeout_ptr = 0x7ffd000;
			s->threads[0].futex.timeout_ok = true;
			s->threads[0].futex.timeout_sec = 30;
		}
		futex_wait(&s->threads[1], 102, "worker", LB, 2, 2, LT_OWNER_MUTEX, 101, 4);
		s->threads[1].futex.lock_sym = strdup("state_mu");
		if (k == 2)
			running(&s->threads[2], 103, "cpu");
		cr_assert_eq(lt_snapshot_diagnose(s, NULL), 0);
		const struct lt_verdict *v = find(s, LT_VERDICT_DEADLOCK);
		if (k == 2) {
			cr_assert_null(v, "%s", v ? v->summary : "");
			lt_snapshot_free(s);
			continue;
		}
		cr_assert_not_null(v, "case %d: %s", k, s->verdicts[0].summary);
		if (k == 0)
			cr_expect_str_eq(v->summary, "probable deadlock (a condition variable's signaller inferred): 2 "
					 "threads wait for each other: 101 (waiter) -> 102 (worker) -> 101");
		else
			cr_expect(!strncmp(v->summary, "probable deadlock until a timeout (a condition variable's "
					   "signaller inferred)", 77) &&
				  strstr(v->summary, "thread 101 (waiter) waits with a timeout (in about 26.0 s)"),
				  "%s", v->summary);
		cr_expect(tl_strlist_has(&v->evidence, "thread 101 (waiter) of process 100 waits on condition "
					 "variable at 0x5000 (waiters sleep on ready_cv+0x28 (0x5028))"), "case %d", k);
		cr_expect(tl_strlist_has(&v->evidence, "which records no thread to signal it <- probably thread 102 "
					 "(worker) (inferred)"), "case %d", k);
		cr_expect(tl_strlist_has(&v->evidence, "thread 102 (worker) waits for lock state_mu (0x5040)"));
		cr_expect(tl_strlist_has(&v->evidence, "held by thread 101 (waiter)"));
		lt_snapshot_free(s);
	}
}

/* The second search's cost on a big table: 4,000 threads in a chain of
 * mutexes whose last holder waits on a condition variable, beside 63
 * idle condition variable waiters (a pool): the cycle through the
 * inferred signaller is found, in well under a second of CPU. */
Test(verdict_deadlock, inferred_cycles_on_a_big_table)
{
	size_t nc = 4000, ni = 64, n = nc + ni;
	struct lt_snapshot *s = table(n);
	for (size_t i = 0; i < n; i++) {
		pid_t tid = (pid_t)(1000 + i);
		if (i < nc) {
			pid_t owner = i + 1 < nc ? tid + 1 : (pid_t)(1000 + nc); /* the last: the first waiter */
			futex_wait(&s->threads[i], tid, "w", 0x10000 + 64 * i, 2, 2, LT_OWNER_MUTEX, owner, 5);
		} else {
			futex_wait(&s->threads[i], tid, "pool", 0x900000 + 64 * i + 0x28, 0, 0, LT_OWNER_NONE, 0, 5);
			s->threads[i].futex.lock_kind = "condition variable";
			s->threads[i].futex.lock_base = 0x900000 + 64 * i;
		}
	}
	struct timespec a, b;
	clock_gettime(CLOCK_THREAD_CPUTIME_ID, &a);
	lt_snapshot_diagnose(s, NULL);
	clock_gettime(CLOCK_THREAD_CPUTIME_ID, &b);
	double cpu = (double)(b.tv_sec - a.tv_sec) + (double)(b.tv_nsec - a.tv_nsec) / 1e9;
	fprintf(stderr, "verdict_deadlock: inferred cycles among %zu threads, %zu condition waiters: %.3f s (CPU)\n",
		n, ni, cpu);
	const struct lt_verdict *v = find(s, LT_VERDICT_DEADLOCK);
	cr_assert_not_null(v);
	cr_expect(!strncmp(v->summary, "probable deadlock (a condition variable's signaller inferred): 4001 threads "
			   "wait for each other: ", 95), "%s", v->summary);
	cr_expect_eq(count(s, LT_VERDICT_DEADLOCK), 1);
	cr_expect_lt(cpu, 2.0);
	lt_snapshot_free(s);
}

/* ---- waits for a thread to finish that is not stuck (Java's and OCaml's
 * joins, FutureTask.get()) and the order of chains ---- */

/* Runtime lock number K+1 of S (room for 4): a done kind's (a Java
 * Thread's monitor in join(), a FutureTask), held by HOLDER. */
static unsigned done_rtlock(struct lt_snapshot *s, const char *kind, const char *wait_call, const char *name,
			    pid_t holder)
{
	if (!s->rtlocks)
		s->rtlocks = calloc(4, sizeof(*s->rtlocks));
	cr_assert(s->rtlocks && s->n_rtlocks < 4);
	struct lt_rtlock *l = &s->rtlocks[s->n_rtlocks++];
	l->model = "hotspot";
	l->kind = kind;
	l->name = strdup(name);
	l->base = 0x69ec00000 + 0x1000 * (uint64_t)s->n_rtlocks;
	l->held = 1;
	l->waiters = -1;
	l->waiters_named = true;
	l->holder = holder;
	l->wait_call = wait_call;
	l->holder_how = strdup("the runtime's fields");
	return (unsigned)s->n_rtlocks;
}

/* Thread T (TID) in KIND's wait (Thread.join(), FutureTask.get()) for
 * HOLDER, on runtime lock RL. */
static void done_waiter(struct lt_snapshot *s, struct lt_thread *t, pid_t tid, const char *comm, unsigned rl,
			double idle)
{
	const struct lt_rtlock *l = &s->rtlocks[rl - 1];
	futex_wait(t, tid, comm, 0x7f00000 + 0x100 * (uint64_t)tid, 0, 0, LT_OWNER_RUNTIME, l->holder, idle);
	t->futex.rtlock = rl;
	t->futex.lock_kind = l->kind;
	t->futex.lock_name = strdup(l->name);
	t->futex.lock_base = l->base;
}

static const struct lt_verdict *verdict_naming(const struct lt_snapshot *s, pid_t tid, size_t *at)
{
	for (size_t i = 0; i < s->n_verdicts; i++)
		for (size_t k = 0; k < s->verdicts[i].n_tids; k++)
			if (s->verdicts[i].tids[k] == tid) {
				if (at)
					*at = i;
				return &s->verdicts[i];
			}
	return NULL;
}

/* A Java Thread.join() (or OCaml's, or a FutureTask.get()) of thread 51 in
 * the state SET gives it, beside a running thread 52 (a JVM has some): no
 * verdict names the joiner 50, and the whole process is OK, the join
 * counted with the joins. */
static void free_join_case(const char *kind, const char *wait_call, void (*set)(struct lt_thread *))
{
	struct lt_snapshot *s = table(3);
	unsigned rl = done_rtlock(s, kind, wait_call, "java.lang.Thread@0x69ec79e60", 51);
	done_waiter(s, &s->threads[0], 50, "joiner", rl, 30);
	set(&s->threads[1]);
	running(&s->threads[2], 52, "main");
	lt_snapshot_diagnose(s, NULL);
	for (size_t i = 0; i < s->n_verdicts; i++)
		cr_assert(!verdict_naming(s, 50, NULL), "the joiner in: %s", s->verdicts[i].summary);
	cr_assert_eq(s->n_verdicts, 1, "%s", s->n_verdicts ? s->verdicts[0].summary : "-");
	cr_assert(s->verdicts[0].kind == LT_VERDICT_OK || s->verdicts[0].kind == LT_VERDICT_IDLE, "%s",
		  s->verdicts[0].summary);
	cr_assert(tl_strlist_has(&s->verdicts[0].evidence, "1 joining") ||
		  tl_strlist_has(&s->verdicts[0].evidence, "1 wait in a runtime's join or get() for a thread that is not "
					 "blocked"), "%s", s->verdicts[0].evidence.n ? s->verdicts[0].evidence.v[0] : "-");
	lt_snapshot_free(s);
}

static void set_running(struct lt_thread *t)
{
	running(t, 51, "busy");
}

/* Thread.sleep(): HotSpot parks on a timed condition variable */
static void set_sleeping(struct lt_thread *t)
{
	futex_wait(t, 51, "sleeper", 0x7100, 0, 0, LT_OWNER_NONE, 0, 30);
	t->futex.lock_kind = "condition variable";
	t->futex.timeout_ptr = 0x7ffd0000;
}

/* a park with no holder (a BlockingQueue's take()) */
static void set_idle(struct lt_thread *t)
{
	futex_wait(t, 51, "idler", 0x7100, 0, 0, LT_OWNER_NONE, 0, 30);
	t->futex.lock_kind = "condition variable";
}

/* an idle server thread: accept() on a listening socket anyone may
 * connect to */
static void set_accepting(struct lt_thread *t)
{
	in_io(t, 51, "acceptor", 43, 4, LT_FD_SOCKET, 30);
	struct lt_wf_edge *e = lt_waitfor_add(t, 50, LT_WF_LISTEN);
	cr_assert_not_null(e);
	e->what = strdup("listening socket socket:[5] (fd 4)");
	e->pstate = LT_WFP_UNKNOWN;
}

Test(verdict_done_wait, java_join_of_a_thread_in_accept_is_no_lock_wait)
{
	free_join_case(LT_KIND_JAVA_JOIN, "Thread.join()", set_accepting);
}

Test(verdict_done_wait, java_join_of_a_running_thread_is_no_lock_wait)
{
	free_join_case(LT_KIND_JAVA_JOIN, "Thread.join()", set_running);
}

Test(verdict_done_wait, java_join_of_a_thread_asleep_on_a_timer_is_no_lock_wait)
{
	free_join_case(LT_KIND_JAVA_JOIN, "Thread.join()", set_sleeping);
}

Test(verdict_done_wait, java_join_of_an_idle_thread_is_no_lock_wait)
{
	free_join_case(LT_KIND_JAVA_JOIN, "Thread.join()", set_idle);
}

Test(verdict_done_wait, future_get_of_a_running_runner_is_no_lock_wait)
{
	free_join_case(LT_KIND_JAVA_FUTURE, "FutureTask.get()", set_running);
}

Test(verdict_done_wait, ocaml_thread_join_of_a_running_thread_is_no_lock_wait)
{
	free_join_case(LT_KIND_OCAML_THREAD_JOIN, "Thread.join", set_running);
}

/* A join of a thread the snapshot does not hold (the model named a
 * holder that is no thread of it) is not known to be free: a lock wait
 * as before, naming the holder as not a thread of the process. */
Test(verdict_done_wait, a_join_of_a_thread_not_in_the_snapshot_is_said_as_before)
{
	struct lt_snapshot *s = table(2);
	unsigned rl = done_rtlock(s, LT_KIND_JAVA_JOIN, "Thread.join()", "java.lang.Thread@0x69ec79e60", 99);
	done_waiter(s, &s->threads[0], 50, "joiner", rl, 30);
	running(&s->threads[1], 52, "main");
	lt_snapshot_diagnose(s, NULL);
	const struct lt_verdict *v = verdict_naming(s, 50, NULL);
	cr_assert_not_null(v, "%s", s->n_verdicts ? s->verdicts[0].summary : "-");
	cr_assert_eq(v->kind, LT_VERDICT_LOCK_WAIT, "%s", v->summary);
	cr_assert_eq(v->owner, 99, "%s", v->summary);
	lt_snapshot_free(s);
}

/* A join of a join of a running thread: neither joiner is stuck. */
Test(verdict_done_wait, a_join_of_a_joiner_of_a_running_thread_is_no_lock_wait)
{
	struct lt_snapshot *s = table(3);
	unsigned r1 = done_rtlock(s, LT_KIND_JAVA_JOIN, "Thread.join()", "java.lang.Thread@0x1", 51);
	unsigned r2 = done_rtlock(s, LT_KIND_JAVA_JOIN, "Thread.join()", "java.lang.Thread@0x2", 52);
	done_waiter(s, &s->threads[0], 50, "j1", r1, 30);
	done_waiter(s, &s->threads[1], 51, "j2", r2, 20);
	running(&s->threads[2], 52, "busy");
	lt_snapshot_diagnose(s, NULL);
	cr_assert_null(verdict_naming(s, 50, NULL), "%s", s->verdicts[0].summary);
	cr_assert_null(verdict_naming(s, 51, NULL), "%s", s->verdicts[0].summary);
	lt_snapshot_free(s);
}

/* The join of a thread blocked on a lock is said as before, after the
 * lock wait it leads to, though the joiner has waited longer. */
Test(verdict_done_wait, java_join_of_a_lock_waiter_is_said_after_its_lock_wait)
{
	struct lt_snapshot *s = table(3);
	unsigned rl = done_rtlock(s, LT_KIND_JAVA_JOIN, "Thread.join()", "java.lang.Thread@0x69ec79e60", 51);
	done_waiter(s, &s->threads[0], 50, "joiner", rl, 60);
	futex_wait(&s->threads[1], 51, "locked", LA, 2, 2, LT_OWNER_MUTEX, 52, 5);
	in_io(&s->threads[2], 52, "holder", 0, 3, LT_FD_PIPE, 30);
	lt_snapshot_diagnose(s, NULL);
	size_t jat = 0, lat = 0;
	const struct lt_verdict *j = verdict_naming(s, 50, &jat), *l = verdict_naming(s, 51, &lat);
	cr_assert(j && l && j != l);
	cr_assert_eq(j->kind, LT_VERDICT_LOCK_WAIT, "%s", j->summary);
	cr_assert_eq(j->owner, 51);
	cr_assert(!strncmp(j->summary, "1 thread waits in Thread.join() for thread 51 (locked) to exit, which has been "
			   "blocked in futex(0x5000) for 5.0 s: the wait ends when it exits (or on an interrupt)", 162), "%s",
		  j->summary);
	cr_assert_eq(l->kind, LT_VERDICT_LOCK_WAIT, "%s", l->summary);
	cr_assert_eq(l->owner, 52);
	cr_assert_lt(lat, jat, "the lock wait (%zu) before the join into it (%zu): %s", lat, jat, s->verdicts[0].summary);
	lt_snapshot_free(s);
}

/* A C pthread_join of a thread in a lock wait whose holder is not
 * recorded: a chain into it, said after it, though the chain's joiner has
 * waited longer (both explain one thread). */
Test(verdict_done_wait, a_join_chain_comes_after_the_lock_wait_it_leads_to)
{
	struct lt_snapshot *s = table(3);
	futex_wait(&s->threads[0], 50, "main", 0x7f0000, 51, 51, LT_OWNER_JOIN, 51, 60);
	s->threads[0].futex.lock_kind = LT_KIND_PTHREAD_JOIN;
	futex_wait(&s->threads[1], 51, "locked", LA, 2, 2, LT_OWNER_NONE, 0, 5);
	in_io(&s->threads[2], 52, "other", 0, 3, LT_FD_PIPE, 30);
	lt_snapshot_diagnose(s, NULL);
	size_t jat = 0, lat = 0;
	const struct lt_verdict *j = verdict_naming(s, 50, &jat), *l = verdict_naming(s, 51, &lat);
	cr_assert(j && l && j != l);
	cr_assert_eq(j->kind, LT_VERDICT_WAIT_CHAIN, "%s", j->summary);
	cr_assert_eq(l->kind, LT_VERDICT_LOCK_WAIT, "%s", l->summary);
	cr_assert_lt(lat, jat, "the lock wait (%zu) before the chain into it (%zu): %s", lat, jat,
		     s->verdicts[0].summary);
	lt_snapshot_free(s);
}

/* A get() of a task whose runner idles on a condition variable, which
 * turns out a lost wake-up: no lock wait of its own, but a chain into the
 * runner's verdict, in get()'s words, after it. */
Test(verdict_done_wait, future_get_of_a_runner_in_a_lost_wakeup_is_a_chain_into_it)
{
	struct lt_snapshot *s = table(3);
	unsigned rl = done_rtlock(s, LT_KIND_JAVA_FUTURE, "FutureTask.get()",
				  "java.util.concurrent.FutureTask@0x69ec79cb0", 51);
	done_waiter(s, &s->threads[0], 50, "getter", rl, 60);
	futex_wait(&s->threads[1], 51, "runner", 0x7100, 0, 3, LT_OWNER_NONE, 0, 30);
	s->threads[1].futex.lock_kind = "condition variable";
	running(&s->threads[2], 52, "main");
	lt_snapshot_diagnose(s, NULL);
	size_t gat = 0, rat = 0;
	const struct lt_verdict *g = verdict_naming(s, 50, &gat), *r = verdict_naming(s, 51, &rat);
	cr_assert(g && r && g != r, "%s", s->n_verdicts ? s->verdicts[0].summary : "-");
	cr_assert_eq(r->kind, LT_VERDICT_LOST_WAKEUP, "%s", r->summary);
	cr_assert_eq(g->kind, LT_VERDICT_WAIT_CHAIN, "%s", g->summary);
	cr_assert(!strncmp(g->summary, "thread 50 (getter) waits in FutureTask.get() for the task "
			   "java.util.concurrent.FutureTask@0x69ec79cb0, run by thread 51 (runner), which is itself in a "
			   "lost wake-up: ", 159), "%s", g->summary);
	cr_assert(strstr(g->summary, "; the wait ends when the task ends (or on a cancel() from any thread)"), "%s",
		  g->summary);
	cr_assert(tl_strlist_has(&r->evidence, "waited for by: thread 50 (getter) in FutureTask.get(), for the task "
					       "java.util.concurrent.FutureTask@0x69ec79cb0, run by thread 51 (runner)"));
	cr_assert_lt(rat, gat, "%s", s->verdicts[0].summary);
	lt_snapshot_free(s);
}

/* A thread in FutureTask.get() of the task that a thread waiting on a
 * condition variable runs sends that thread nothing before the task ends:
 * it is no inferred signaller of it (a review's single-thread executor
 * whose task takes from a queue while the caller get()s it: "probable
 * deadlock (a condition variable's signaller inferred): ... 50 -> 51 ->
 * 50"), as an untimed join of it is not. */
Test(verdict_deadlock, a_get_of_the_waiters_own_task_is_no_inferred_signaller)
{
	struct lt_snapshot *s = table(2);
	unsigned rl = done_rtlock(s, LT_KIND_JAVA_FUTURE, "FutureTask.get()",
				  "java.util.concurrent.FutureTask@0x69ec79cb0", 51);
	done_waiter(s, &s->threads[0], 50, "getter", rl, 60);
	futex_wait(&s->threads[1], 51, "runner", 0x7100, 0, 0, LT_OWNER_NONE, 0, 30);
	s->threads[1].futex.lock_kind = "condition variable";
	s->threads[1].futex.cond_signal = 1;
	cr_assert_eq(lt_snapshot_diagnose(s, NULL), 0);
	const struct lt_verdict *v = find(s, LT_VERDICT_DEADLOCK);
	cr_assert_null(v, "%s", v ? v->summary : "");
	lt_snapshot_free(s);
}

/* One-thread lock waits folded into one verdict keep each one's first
 * "waited for by:" lines (5 C joins of thread 11: 3 and "and 2 more"),
 * and a Java join of one of them comes after it. */
Test(verdict_rank, folded_lock_waits_keep_their_waited_for_by_lines_and_their_order)
{
	struct lt_snapshot *s = table(11);
	unsigned rl = done_rtlock(s, LT_KIND_JAVA_JOIN, "Thread.join()", "java.lang.Thread@0x69ec79e60", 12);
	done_waiter(s, &s->threads[0], 9, "jjoiner", rl, 90);
	/* 10, 11, 12: one lock each, 10's and 12's held by 13 in read(), 11's holder not recorded */
	futex_wait(&s->threads[1], 10, "w10", 0x8000, 2, 2, LT_OWNER_MUTEX, 13, 1);
	futex_wait(&s->threads[2], 11, "w11", 0x8040, 2, 2, LT_OWNER_NONE, 0, 1);
	/* above the join's lock: its waiter is found (and its verdict made) first */
	futex_wait(&s->threads[3], 12, "w12", 0x900000000, 2, 2, LT_OWNER_MUTEX, 13, 1);
	in_io(&s->threads[4], 13, "holder", 0, 3, LT_FD_PIPE, 30);
	for (int i = 0; i < 5; i++) {
		futex_wait(&s->threads[5 + i], 20 + i, "cjoin", 0x7f0000 + 0x100 * (uint64_t)i, 11, 11, LT_OWNER_JOIN, 11,
			   5);
		s->threads[5 + i].futex.lock_kind = LT_KIND_PTHREAD_JOIN;
	}
	running(&s->threads[10], 30, "busy");
	lt_snapshot_diagnose(s, NULL);
	const struct lt_verdict *f = NULL;
	for (size_t i = 0; i < s->n_verdicts; i++)
		if (s->verdicts[i].kind == LT_VERDICT_LOCK_WAIT && strstr(s->verdicts[i].summary, "each wait for a different lock"))
			f = &s->verdicts[i];
	cr_assert_not_null(f, "%s", s->n_verdicts ? s->verdicts[0].summary : "-");
	cr_assert_eq(f->n_tids, 4, "%s", f->summary);
	long w11 = -1, by = -1, more = -1, w12 = -1, j9 = -1;
	size_t n_by = 0;
	for (size_t e = 0; e < f->evidence.n; e++) {
		const char *l = f->evidence.v[e];
		if (strstr(l, "1 thread waits for ") && strstr(l, "0x8040"))
			w11 = (long)e;
		if (!strncmp(l, "waited for by: thread 2", 23) && strstr(l, "for thread 11 (w11) to exit")) {
			n_by++;
			by = by < 0 ? (long)e : by;
		}
		if (!strcmp(l, "waited for by: and 2 more"))
			more = (long)e;
		if (strstr(l, "1 thread waits for ") && strstr(l, "0x900000000"))
			w12 = (long)e;
		if (!strncmp(l, "1 thread waits in Thread.join() for thread 12 (w12) to exit", 59))
			j9 = (long)e;
	}
	cr_assert_eq(n_by, 3, "3 of the 5 'waited for by' lines kept (%zu)", n_by);
	cr_assert(w11 >= 0 && by == w11 + 1 && more == w11 + 4, "w11 %ld, by %ld, more %ld", w11, by, more);
	cr_assert(w12 >= 0 && j9 > w12, "the Java join (%ld) after the lock wait it leads to (%ld)", j9, w12);
	lt_snapshot_free(s);
}
