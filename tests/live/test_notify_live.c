/* Live tests of waits for a signal that only another thread of the
 * process can send (waitfor_verdicts.c, notify_pass): a condition
 * variable and a barrier (tests/workloads/notify_waits.c) whose signaller
 * waits in flock() for a lock a forked child holds, and Debian's python3
 * main thread in Future.result() of a ProcessPoolExecutor whose worker
 * process waits so (tests/workloads/py_procpool.py): each waiter's verdict
 * is a WAIT CHAIN into the stuck thread's, the inference said, and the
 * stuck thread's verdict says who waits for it.  A signaller asleep on a
 * timer makes no chain.  Ground truth: the tids and pids the workloads
 * print, /proc/PID/task/TID/syscall.  Needs root. */
#include <criterion/criterion.h>
#include <fcntl.h>
#include <inttypes.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <unistd.h>

#include "json_read.h"
#include "snapshot.h"
#include "lt_test.h"

TL_WORKLOAD(64);
static char lockfile[128];

static void cleanup(void)
{
	if (wl.pid > 0)
		tl_kill_tree(wl.pid);
	tl_close_started(&wl);
	if (lockfile[0])
		unlink(lockfile);
	lockfile[0] = 0;
}

static void new_lockfile(void)
{
	tl_tmp_path(lockfile, sizeof(lockfile), "notifylock");
	int fd = open(lockfile, O_RDWR | O_CREAT | O_TRUNC, 0600);
	cr_assert_geq(fd, 0, "%s", lockfile);
	close(fd);
}

/* build/workloads/notify_waits MODE [FILE] up to its ready line. */
static void start_c(const char *mode)
{
	tl_skip_unless_root("needs root: another process's /proc files and memory");
	const char *path = WL("notify_waits");
	if (access(path, X_OK) != 0)
		cr_skip_test("%s not built: run make first", path);
	if (strcmp(mode, "sleep"))
		new_lockfile();
	char *argv[] = { (char *)path, (char *)mode, lockfile[0] ? lockfile : NULL, NULL };
	tl_start_ready(&wl, argv, truth, &ntruth, 64, 30000);
}

static pid_t role(const char *r)
{
	char m[32];
	snprintf(m, sizeof(m), "role=%s ", r);
	pid_t t = (pid_t)tl_truth_val(truth, ntruth, "thread", m, "tid");
	cr_assert_gt(t, 0);
	return t;
}

/* The signaller S's lock wait (held by the child HOLDER) names the
 * waiters; their chain (WAITERS, in order) begins HEAD and goes into it. */
static void check_chain(pid_t sig, pid_t holder, const pid_t *waiters, size_t nw, const char *head,
			const char *by)
{
	tl_wait_in_call(wl.pid, sig, SYS_flock, 10000);
	struct lt_snapshot *s = NULL;
	cr_assert_eq(lt_snapshot_take(wl.pid, NULL, &s), 0);
	const struct lt_verdict *lw = tl_verdict_with(s, LT_VERDICT_LOCK_WAIT, sig);
	if (!lw)
		tl_dump_verdicts(s);
	cr_assert_not_null(lw, "no lock wait of the signaller %d", (int)sig);
	cr_assert(lw->n_tids == 1 && lw->owner == holder, "the holder %d: %s", (int)holder, lw->summary);
	cr_assert(tl_strlist_has(&lw->evidence, by), "no '%s' in the lock wait's evidence", by);

	const struct lt_verdict *ch = tl_verdict_with(s, LT_VERDICT_WAIT_CHAIN, waiters[0]);
	if (!ch)
		tl_dump_verdicts(s);
	cr_assert_not_null(ch, "no wait chain of %d", (int)waiters[0]);
	cr_assert_eq(ch->n_tids, nw, "%s", ch->summary);
	for (size_t k = 0; k < nw; k++)
		cr_assert_eq(ch->tids[k], waiters[k], "%s", ch->summary);
	cr_assert(!strncmp(ch->summary, head, strlen(head)), "%s\nwant at its start: %s", ch->summary, head);
	char want[400];
	snprintf(want, sizeof(want), "which only another thread of process %d can end (a futex private to it), "
		 "and none can now (it is asleep without a timeout); the only one, thread %d (notify_waits), is "
		 "itself in a lock wait: thread %d (notify_waits) waits for a file lock: FLOCK WRITE lock on %s",
		 (int)wl.pid, (int)sig, (int)sig, lockfile);
	cr_assert(strstr(ch->summary, want), "%s\nwant: %s", ch->summary, want);
	snprintf(want, sizeof(want), "held by process %d ", (int)holder);
	cr_assert(strstr(ch->summary, want), "the holder %d in: %s", (int)holder, ch->summary);
	cr_assert(strstr(ch->summary, "once free, and that no signal handler will end the wait, is inferred)"), "%s",
		  ch->summary);
	for (size_t i = 0; i < s->n_verdicts; i++)
		cr_assert(s->verdicts[i].kind != LT_VERDICT_DEADLOCK, "no deadlock: %s", s->verdicts[i].summary);
	lt_snapshot_free(s);
}

Test(notify_live, condvar_whose_only_signaller_waits_for_a_file_lock_is_a_chain_into_it, .fini = cleanup,
     .timeout = 60)
{
	start_c("cond");
	pid_t holder = (pid_t)tl_truth_val(truth, ntruth, "holder", NULL, "pid");
	pid_t w = role("waiter"), sig = role("signaller");
	cr_assert(w == wl.pid && sig != w && holder > 0);
	char head[200], by[200];
	snprintf(head, sizeof(head), "thread %d (notify_waits) waits on condition variable cv", (int)w);
	snprintf(by, sizeof(by), "waited for by: thread %d (notify_waits) waits on condition variable cv", (int)w);
	check_chain(sig, holder, &w, 1, head, by);
}

Test(notify_live, barrier_whose_missing_thread_waits_for_a_file_lock_is_one_chain_of_its_waiters,
     .fini = cleanup, .timeout = 60)
{
	start_c("barrier");
	pid_t holder = (pid_t)tl_truth_val(truth, ntruth, "holder", NULL, "pid");
	pid_t w[2] = { role("waiter"), role("arrived") }, sig = role("signaller");
	cr_assert(w[0] == wl.pid && holder > 0);
	char head[200], by[200];
	snprintf(head, sizeof(head), "2 threads wait at barrier bar");
	snprintf(by, sizeof(by), "waited for by: 2 threads wait at barrier bar");
	check_chain(sig, holder, w, 2, head, by);
	struct lt_snapshot *s = NULL;
	cr_assert_eq(lt_snapshot_take(wl.pid, NULL, &s), 0);
	const struct lt_verdict *ch = tl_verdict_with(s, LT_VERDICT_WAIT_CHAIN, w[0]);
	cr_assert(ch && strstr(ch->summary, "(2 of 3 arrived) for the other threads to arrive"), "%s",
		  ch ? ch->summary : "no chain");
	lt_snapshot_free(s);
}

Test(notify_live, condvar_whose_signaller_sleeps_on_a_timer_is_no_chain, .fini = cleanup, .timeout = 60)
{
	start_c("sleep");
	pid_t w = role("waiter"), sig = role("signaller");
	tl_wait_in_call(wl.pid, sig, SYS_clock_nanosleep, 10000);
	struct lt_snapshot *s = NULL;
	cr_assert_eq(lt_snapshot_take(wl.pid, NULL, &s), 0);
	const struct lt_thread *t = lt_snapshot_find(s, w);
	cr_assert(t && t->futex.lock_kind && !strcmp(t->futex.lock_kind, "condition variable"),
		  "the waiter's wait: %s", t && t->futex.lock_kind ? t->futex.lock_kind : "-");
	if (s->n_verdicts != 1)
		tl_dump_verdicts(s);
	cr_assert_eq(s->n_verdicts, 1);
	cr_assert_eq(s->verdicts[0].kind, LT_VERDICT_IDLE, "%s", s->verdicts[0].summary);
	lt_snapshot_free(s);
}

/* Debian's python3: an idle multiprocessing.Pool of two workers.  One
 * worker waits for a task on the pool's queue holding its reader lock (a
 * shared semaphore), the other waits for that lock (rt_idle.c), and the
 * first one's pipe has the other's inherited write end beside the pool's:
 * nothing is stuck (before: a LOCK WAIT on the reader lock, and WAIT
 * CHAINs round the two workers). */
Test(notify_live, debian_python3_idle_process_pool_is_idle, .fini = cleanup, .timeout = 60)
{
	tl_skip_unless_root("needs root: another process's /proc files and memory");
	if (access(TL_PYTHON, X_OK) != 0)
		cr_skip_test("%s is not installed on this machine", TL_PYTHON);
	static const char script[] =
		"import multiprocessing as mp, os, time\n"
		"if __name__ == '__main__':\n"
		"    p = mp.Pool(2)\n"
		"    p.map(abs, range(8))\n"
		"    print('pid=%d' % os.getpid(), flush=True)\n"
		"    time.sleep(0.5)\n"
		"    print('ready', flush=True)\n"
		"    time.sleep(600)\n";
	char *argv[] = { (char *)TL_PYTHON, "-c", (char *)script, NULL };
	tl_start_ready(&wl, argv, truth, &ntruth, 64, 30000);
	struct rp_json *js = tl_snapshot_cli_json(wl.pid);
	const struct rp_json *vs = rp_json_get(js, "verdicts");
	cr_assert(vs && vs->n > 0, "no verdicts");
	for (size_t i = 0; i < vs->n; i++) {
		const char *k = rp_json_str(rp_json_get(&vs->items[i], "kind"));
		const char *sum = rp_json_str(rp_json_get(&vs->items[i], "summary"));
		cr_expect(k && (!strcmp(k, "idle") || !strcmp(k, "ok")), "%s: %s", k ? k : "?", sum ? sum : "?");
	}
	rp_json_free(js);
}

/* Debian's python3: the main thread in Future.result() of a process pool
 * whose worker waits in flock(); the executor's manager thread polls the
 * worker's result pipe (a chain into its lock wait), and the main thread's
 * Condition.wait() is a chain into the manager thread's chain, in the
 * CLI's view (the worker's process followed, diagnosed together). */
Test(notify_live, debian_python3_future_result_of_a_stuck_process_pool_task_is_a_chain, .fini = cleanup,
     .timeout = 60)
{
	tl_skip_unless_root("needs root: another process's /proc files and memory");
	if (access(TL_PYTHON, X_OK) != 0)
		cr_skip_test("%s is not installed on this machine", TL_PYTHON);
	new_lockfile();
	char *argv[] = { (char *)TL_PYTHON, "tests/workloads/py_procpool.py", lockfile, NULL };
	tl_start_ready(&wl, argv, truth, &ntruth, 64, 30000);
	pid_t main_tid = role("waiter"), worker = (pid_t)tl_truth_val(truth, ntruth, "worker", NULL, "pid");
	pid_t watcher = role("watcher");
	cr_assert(main_tid == wl.pid && worker > 0);
	char tp[64];
	snprintf(tp, sizeof(tp), "/proc/%d/task/%d", (int)wl.pid, (int)watcher);
	for (double t0 = tl_now_s(); access(tp, F_OK) == 0 && tl_now_s() - t0 < 10; usleep(5000))
		;
	cr_assert(access(tp, F_OK) != 0, "the watcher thread %d is still there", (int)watcher);
	tl_wait_in_call(worker, worker, SYS_flock, 10000);

	struct rp_json *js = tl_snapshot_cli_json(wl.pid);
	const struct rp_json *vs = rp_json_get(js, "verdicts");
	/* the main thread, and any other signal waiter of the process (a
	 * multiprocessing queue's feeder thread), in one verdict */
	char head[200], lock[300];
	snprintf(head, sizeof(head), "Condition.wait() on threading.Condition ");
	snprintf(lock, sizeof(lock), "is itself in a wait chain: thread ");
	char into[300];
	snprintf(into, sizeof(into), "thread %d (MainThread) waits for a file lock: FLOCK WRITE lock on %s", (int)worker,
		 lockfile);
	const char *found = NULL;
	for (size_t i = 0; vs && i < vs->n; i++) {
		const char *k = rp_json_str(rp_json_get(&vs->items[i], "kind"));
		const char *sum = rp_json_str(rp_json_get(&vs->items[i], "summary"));
		const struct rp_json *tids = rp_json_get(&vs->items[i], "tids");
		bool has_main = false;
		for (size_t q = 0; tids && q < tids->n; q++)
			has_main |= (pid_t)rp_json_num(&tids->items[q], 0) == main_tid;
		if (k && sum && !strcmp(k, "wait_chain") && has_main && strstr(sum, head))
			found = sum;
	}
	for (size_t i = 0; !found && vs && i < vs->n; i++)
		fprintf(stderr, "verdict: %s\n", rp_json_str(rp_json_get(&vs->items[i], "summary")));
	cr_assert_not_null(found, "no wait_chain verdict of thread %d with '%s'", (int)main_tid, head);
	cr_assert(strstr(found, lock) && strstr(found, into), "%s\nwant: '%s' and '%s'", found, lock, into);
	rp_json_free(js);
}

/* The only thread of a C program in sem_wait() on a private semaphore
 * (tests/workloads/sem_signal.c): no thread of it can post, said so, and
 * whether a signal handler still could, from the process's SigCgt.  With
 * its SIGTERM handler (which posts): unknown, "hung, or waiting for that
 * signal", and SIGTERM does end the wait (the program says "posted" and
 * exits 0); without a handler: a lost wake-up, nor can a signal handler.
 * Before: a lock wait "whose holder is not recorded". */
static void sem_signal(bool handler, bool blocked)
{
	tl_skip_unless_root("needs root: another process's /proc files and memory");
	const char *path = WL("sem_signal");
	if (access(path, X_OK) != 0)
		cr_skip_test("%s not built: run make first", path);
	char *argv[] = { (char *)path, blocked ? "--handler-blocked" : handler ? "--handler" : NULL, NULL };
	tl_start_ready(&wl, argv, truth, &ntruth, 64, 30000);
	uint64_t sem = tl_truth_val(truth, ntruth, "sem", NULL, "addr");
	tl_wait_in_call(wl.pid, wl.pid, SYS_futex, 10000);
	struct lt_snapshot *s = NULL;
	cr_assert_eq(lt_snapshot_take(wl.pid, NULL, &s), 0);
	cr_assert_eq(s->n_verdicts, 1, "one verdict (first: %s)", s->n_verdicts ? s->verdicts[0].summary : "-");
	const struct lt_verdict *v = &s->verdicts[0];
	/* unknown while a handler may post it, else lost for good */
	handler &= !blocked; /* blocked in its only thread: no handler can run */
	cr_expect_eq(v->kind, handler ? LT_VERDICT_UNKNOWN : LT_VERDICT_LOST_WAKEUP, "%s", v->summary);
	cr_expect(v->n_tids == 1 && v->tids[0] == wl.pid, "%s", v->summary);
	char want[160];
	snprintf(want, sizeof(want), "1 thread waits for semaphore the_sem (0x%" PRIx64 ") whose holder is not "
		 "recorded", sem);
	cr_expect(strstr(v->summary, want), "%s\nwant: %s", v->summary, want);
	cr_expect(strstr(v->summary, "no thread can post it: it is private to this process, and every thread of "
			 "the process waits for it"), "%s", v->summary);
	cr_expect(strstr(v->summary, handler ? "; only a signal could still end it: the process catches SIGTERM "
			 "(a handler may post it): hung, or waiting for that signal"
			 : "; nor can a signal handler: no signal the process catches can run one now"), "%s",
		  v->summary);
	lt_snapshot_free(s);
	if (!handler)
		return;
	/* the truth of "a handler may post it": this one does */
	cr_assert_eq(kill(wl.pid, SIGTERM), 0);
	int st = tl_wait(&wl, 10000);
	cr_expect(WIFEXITED(st) && WEXITSTATUS(st) == 0, "SIGTERM's handler posted and the program ended: %#x", st);
}

Test(notify_live, a_private_semaphore_only_a_sigterm_handler_can_post, .fini = cleanup, .timeout = 60)
{
	sem_signal(true, false);
}

Test(notify_live, a_private_semaphore_nothing_can_post, .fini = cleanup, .timeout = 60)
{
	sem_signal(false, false);
}

/* The handler installed, SIGTERM blocked in the only thread (a review's
 * case: said "a handler may post it", yet a SIGTERM stayed pending and the
 * program hung): the signals every thread blocks run no handler. */
Test(notify_live, a_private_semaphore_whose_handlers_signal_is_blocked, .fini = cleanup, .timeout = 60)
{
	sem_signal(true, true);
}
