/* Live tests of joins followed into the joined thread's verdict
 * (waitfor_verdicts.c, join_pass): a C pthread_join (tests/workloads/
 * join_waits.c) and Debian's python3 Thread.join (tests/workloads/
 * py_join.py) of a thread waiting in flock() for a lock a forked child
 * holds: the joined thread's LOCK WAIT names its joiner, the join is a WAIT
 * CHAIN into it.  A join of a thread reading a pipe only the joiner's
 * process holds stays the probable deadlock through the pipe; a join of a
 * sleeping thread is no chain.  Ground truth: the tids and pids the
 * workloads print, /proc/PID/task/TID/syscall.  Needs root. */
#include <criterion/criterion.h>
#include <fcntl.h>
#include <glob.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/syscall.h>
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

static void need_root(void)
{
	if (!tl_is_root())
		cr_skip_test("needs root: another process's /proc files and memory");
}

static void new_lockfile(void)
{
	tl_tmp_path(lockfile, sizeof(lockfile), "joinlock");
	int fd = open(lockfile, O_RDWR | O_CREAT | O_TRUNC, 0600);
	cr_assert_geq(fd, 0, "%s", lockfile);
	close(fd);
}

/* build/workloads/join_waits MODE [FILE] up to its ready line. */
static void start_c(const char *mode)
{
	need_root();
	const char *path = WL("join_waits");
	if (access(path, X_OK) != 0)
		cr_skip_test("%s not built: run make first", path);
	if (!strcmp(mode, "flock"))
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

/* A snapshot of the workload once JOINER's join of JOINED is seen (a
 * Python main thread may wait for the GIL on its way to the join): up to
 * 10 s. */
static struct lt_snapshot *snap_joining(pid_t joiner, pid_t joined)
{
	for (int i = 0;; i++) {
		struct lt_snapshot *s = NULL;
		cr_assert_eq(lt_snapshot_take(wl.pid, NULL, &s), 0);
		const struct lt_thread *t = lt_snapshot_find(s, joiner);
		if ((t && t->futex.owner_kind == LT_OWNER_JOIN && t->futex.owner == joined) || i >= 100)
			return s;
		lt_snapshot_free(s);
		usleep(100000);
	}
}

/* The flock case of either workload: the joined thread's lock wait first,
 * held by the child HOLDER, naming the joiner; the joiner's chain into it,
 * in CALL's words, ending as the kind says (ORELSE).  JN, DN: the names
 * the snapshot gives the joiner and the joined thread. */
static void check_flock_join(pid_t joiner, pid_t joined, pid_t holder, const char *kind, const char *call,
			     const char *orelse, const char *jn, const char *dn)
{
	tl_wait_in_call(wl.pid, joined, SYS_flock, 10000);
	struct lt_snapshot *s = snap_joining(joiner, joined);
	const struct lt_thread *j = lt_snapshot_find(s, joiner);
	cr_assert_not_null(j);
	cr_assert_eq(j->futex.owner_kind, LT_OWNER_JOIN, "the joiner's wait: owner kind %d", j->futex.owner_kind);
	cr_assert_eq(j->futex.owner, joined);
	cr_assert_str_eq(j->futex.lock_kind ? j->futex.lock_kind : "-", kind);
	cr_assert_eq(j->futex.timeout_ptr, 0, "a join without a timeout");

	cr_assert_gt(s->n_verdicts, 1, "two verdicts (first: %s)", s->n_verdicts ? s->verdicts[0].summary : "-");
	const struct lt_verdict *lw = &s->verdicts[0];
	cr_assert_eq(lw->kind, LT_VERDICT_LOCK_WAIT, "%s", lw->summary);
	cr_assert(lw->n_tids == 1 && lw->tids[0] == joined, "%s", lw->summary);
	cr_assert_eq(lw->owner, holder, "the lock's holder %d, want the child %d: %s", (int)lw->owner, (int)holder,
		     lw->summary);
	char want[400];
	snprintf(want, sizeof(want), "waited for by: thread %d (%s) in %s, for thread %d (%s) to exit", (int)joiner,
		 jn, call, (int)joined, dn);
	cr_assert(tl_strlist_has(&lw->evidence, want), "no '%s' in the lock wait's evidence", want);

	const struct lt_verdict *ch = tl_verdict_with(s, LT_VERDICT_WAIT_CHAIN, joiner);
	if (!ch)
		tl_dump_verdicts(s);
	cr_assert_not_null(ch, "no wait chain of the joiner %d", (int)joiner);
	cr_assert(ch->n_tids == 1, "%s", ch->summary);
	snprintf(want, sizeof(want), "thread %d (%s) waits in %s for thread %d (%s) to exit, which is itself in a "
		 "lock wait: thread %d (%s) waits for a file lock: FLOCK WRITE lock on %s", (int)joiner, jn, call,
		 (int)joined, dn, (int)joined, dn, lockfile);
	cr_assert(!strncmp(ch->summary, want, strlen(want)), "%s\nwant: %s", ch->summary, want);
	char pid_s[32];
	snprintf(pid_s, sizeof(pid_s), "held by process %d ", (int)holder);
	cr_assert(strstr(ch->summary, pid_s), "the holder %d in: %s", (int)holder, ch->summary);
	snprintf(want, sizeof(want), "; the wait ends when it exits (or on %s)", orelse);
	size_t sl = strlen(ch->summary), wlen = strlen(want);
	cr_assert(sl > wlen && !strcmp(ch->summary + sl - wlen, want), "%s\nwant at its end: %s", ch->summary, want);
	for (size_t i = 0; i < s->n_verdicts; i++)
		cr_assert(s->verdicts[i].kind != LT_VERDICT_DEADLOCK, "no deadlock: %s", s->verdicts[i].summary);
	lt_snapshot_free(s);
}

Test(join_live, c_pthread_join_of_a_thread_waiting_for_a_file_lock_is_a_chain_into_its_lock_wait,
     .fini = cleanup, .timeout = 60)
{
	start_c("flock");
	pid_t holder = (pid_t)tl_truth_val(truth, ntruth, "holder", NULL, "pid");
	pid_t joiner = role("joiner"), joined = role("joined");
	cr_assert(joiner == wl.pid && joined != joiner && holder > 0);
	check_flock_join(joiner, joined, holder, LT_KIND_PTHREAD_JOIN, "pthread_join()",
			 "a pthread_cancel() of the joining thread", "join_waits", "join_waits");

	/* the CLI's view (the holder's process followed, diagnosed together)
	 * says it alike */
	struct rp_json *js = tl_snapshot_cli_json(wl.pid);
	const struct rp_json *vs = rp_json_get(js, "verdicts");
	char want[160];
	snprintf(want, sizeof(want), "thread %d (join_waits) waits in pthread_join() for thread %d (join_waits) to exit, "
		 "which is itself in a lock wait: ", (int)joiner, (int)joined);
	bool said = false;
	for (size_t i = 0; vs && i < vs->n; i++) {
		const char *k = rp_json_str(rp_json_get(&vs->items[i], "kind"));
		const char *sum = rp_json_str(rp_json_get(&vs->items[i], "summary"));
		said |= k && sum && !strcmp(k, "wait_chain") && !strncmp(sum, want, strlen(want));
	}
	cr_assert(said, "the CLI's JSON has no wait_chain verdict beginning '%s'", want);
	rp_json_free(js);
}

/* py_join.py run by PYTHON (skipped where it is not installed). */
static void py_flock_join(const char *python)
{
	need_root();
	if (access(python, X_OK) != 0)
		cr_skip_test("%s is not installed on this machine", python);
	new_lockfile();
	char *argv[] = { (char *)python, "tests/workloads/py_join.py", lockfile, NULL };
	tl_start_ready(&wl, argv, truth, &ntruth, 64, 30000);
	pid_t holder = (pid_t)tl_truth_val(truth, ntruth, "holder", NULL, "pid");
	pid_t joiner = role("joiner"), joined = role("joined");
	cr_assert(joiner == wl.pid && joined != joiner && holder > 0);
	check_flock_join(joiner, joined, holder, LT_KIND_PY_JOIN, "Thread.join()",
			 "a signal whose Python handler raises in the main thread, as Ctrl-C's KeyboardInterrupt",
			 "MainThread", "worker");
}

Test(join_live, debian_python3_thread_join_of_a_thread_waiting_for_a_file_lock_is_a_chain_into_its_lock_wait,
     .fini = cleanup, .timeout = 60)
{
	py_flock_join(TL_PYTHON);
}

/* Up to 3.12 Thread.join() acquires the joined thread's _tstate_lock; from
 * 3.13 it parks in _ThreadHandle.join() on a semaphore of its own: the
 * pyenv builds at both ends, where present. */
static void pyenv_flock_join(int minor)
{
	need_root();
	const char *root = getenv("PYENV_ROOT");
	char pat[512], python[600] = "";
	snprintf(pat, sizeof(pat), "%s/versions/3.%d.*/bin/python3.%d", root && *root ? root : "/root/.pyenv",
		 minor, minor);
	glob_t g;
	int r = glob(pat, 0, NULL, &g);
	for (size_t i = 0; r == 0 && i < g.gl_pathc && !python[0]; i++)
		if (access(g.gl_pathv[i], X_OK) == 0)
			snprintf(python, sizeof(python), "%s", g.gl_pathv[i]);
	if (r == 0)
		globfree(&g);
	if (!python[0])
		cr_skip_test("no CPython 3.%d here (%s): a pyenv build of 3.%d is what this test runs", minor, pat,
			     minor);
	py_flock_join(python);
}

Test(join_live, pyenv_38_thread_join_of_a_flock_waiter_is_a_chain, .fini = cleanup, .timeout = 60)
{
	pyenv_flock_join(8);
}

Test(join_live, pyenv_313_thread_join_of_a_flock_waiter_is_a_chain, .fini = cleanup, .timeout = 60)
{
	pyenv_flock_join(13);
}

/* The joined thread reads a pipe whose write end only the process holds,
 * and the joiner is the only other thread: the probable deadlock through
 * the pipe, of the two, and no chain. */
Test(join_live, c_join_of_a_reader_of_its_own_pipe_stays_a_probable_deadlock, .fini = cleanup, .timeout = 60)
{
	start_c("pipe");
	pid_t joiner = role("joiner"), joined = role("joined");
	tl_wait_in_read(wl.pid, joined, 10000);
	struct lt_snapshot *s = snap_joining(joiner, joined);
	cr_assert_gt(s->n_verdicts, 0);
	const struct lt_verdict *v = &s->verdicts[0];
	cr_assert_eq(v->kind, LT_VERDICT_DEADLOCK, "%s", v->summary);
	cr_assert_eq(v->n_tids, 2, "%s", v->summary);
	cr_assert(TL_HAS(v->tids, v->n_tids, joiner) && TL_HAS(v->tids, v->n_tids, joined), "%s", v->summary);
	char want[200];
	snprintf(want, sizeof(want), "probable deadlock through a pipe: thread %d (join_waits) reads a pipe only its "
		 "own process %d can write", (int)joined, (int)wl.pid);
	cr_assert(!strncmp(v->summary, want, strlen(want)), "%s\nwant: %s", v->summary, want);
	snprintf(want, sizeof(want), "thread %d (join_waits) is joining thread %d (join_waits)", (int)joiner,
		 (int)joined);
	cr_assert(tl_strlist_has(&v->evidence, want), "no '%s' in: %s", want, v->summary);
	for (size_t i = 0; i < s->n_verdicts; i++)
		cr_assert(s->verdicts[i].kind != LT_VERDICT_WAIT_CHAIN, "no chain: %s", s->verdicts[i].summary);
	lt_snapshot_free(s);
}

/* The joined thread sleeps on a timer: nothing is stuck, the join is no
 * chain, the process idle with its join counted. */
Test(join_live, c_join_of_a_sleeping_thread_is_idle_not_a_chain, .fini = cleanup, .timeout = 60)
{
	start_c("sleep");
	pid_t joiner = role("joiner"), joined = role("joined");
	tl_wait_in_call(wl.pid, joined, SYS_clock_nanosleep, 10000);
	struct lt_snapshot *s = snap_joining(joiner, joined);
	const struct lt_thread *j = lt_snapshot_find(s, joiner);
	cr_assert(j && j->futex.owner_kind == LT_OWNER_JOIN && j->futex.owner == joined);
	if (s->n_verdicts != 1)
		tl_dump_verdicts(s);
	cr_assert_eq(s->n_verdicts, 1);
	const struct lt_verdict *v = &s->verdicts[0];
	cr_assert_eq(v->kind, LT_VERDICT_IDLE, "%s", v->summary);
	cr_assert(tl_strlist_has(&v->evidence, "1 wait in pthread_join for another thread"), "%s", v->summary);
	lt_snapshot_free(s);
}
