/* Python threading.Lock cycles (issue 25, item 2) against
 * tests/workloads/py_lock_abba.py: two Locks taken in opposite orders in
 * `with` blocks, the main thread joining one worker.  A Lock records no
 * holder: the snapshot infers it from the frames (the lock's __exit__ on
 * a `with` block's evaluation stack), says so, and finds the cycle as a
 * probable deadlock; the join is no lock wait.  Debian's python3, then
 * each pyenv build of /root/.pyenv/versions present (skipped with the
 * reason where absent).  Ground truth: the tids the workload prints.
 * Also a multiprocessing.Lock whose holder process was killed (issue 25,
 * item 5): no false holder, no false label; and the GIL and an RLock whose
 * recorded holder thread has exited (py_gone_holder.py): said to be gone,
 * never "not recorded". */
#include <criterion/criterion.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "json_read.h"
#include "lockmodel.h"
#include "snapshot.h"
#include "lt_test.h"
#include "report_int.h"

TL_WORKLOAD(64);

static void cleanup(void)
{
	tl_close_started(&wl);
}

static void check(const char *python)
{
	tl_skip_unless_root("needs root: another process's /proc files and memory");
	if (access(python, X_OK) != 0)
		cr_skip_test("%s is not installed on this machine", python);
	char *argv[] = { (char *)python, "tests/workloads/py_lock_abba.py", NULL };
	tl_start_ready(&wl, argv, truth, &ntruth, 64, 30000);
	tl_go(&wl); /* main leaves the start gate and joins worker-AB */
	pid_t ta = (pid_t)tl_truth_val(truth, ntruth, "thread", "role=AB", "tid");
	pid_t tb = (pid_t)tl_truth_val(truth, ntruth, "thread", "role=BA", "tid");
	pid_t main_tid = (pid_t)tl_truth_val(truth, ntruth, "thread", "role=main", "tid");
	pid_t joined = (pid_t)tl_truth_val(truth, ntruth, "thread", "role=main", "joins");
	cr_assert(ta > 0 && tb > 0 && main_tid == wl.pid && joined == ta);

	/* main prints ready, then joins: wait until it sleeps in futex() */
	char path[64], line[256] = "";
	snprintf(path, sizeof(path), "/proc/%d/task/%d/syscall", (int)wl.pid, (int)main_tid);
	for (int i = 0; i < 10000 && strncmp(line, "202 ", 4); i++) {
		FILE *sf = fopen(path, "r");
		line[0] = 0;
		if (sf) {
			if (!fgets(line, sizeof(line), sf))
				line[0] = 0;
			fclose(sf);
		}
		if (strncmp(line, "202 ", 4))
			usleep(1000);
	}
	cr_assert(!strncmp(line, "202 ", 4), "%s: main never slept in futex() (join): %s", python, line);
	struct lt_snapshot_opts o = { .flags = LT_SNAP_NO_LINES };
	struct lt_snapshot *s = NULL;
	cr_assert_eq(lt_snapshot_take(wl.pid, &o, &s), 0);
	size_t ndl = 0;
	const struct lt_verdict *dl = NULL;
	for (size_t i = 0; i < s->n_verdicts; i++) {
		const struct lt_verdict *v = &s->verdicts[i];
		if (v->kind == LT_VERDICT_DEADLOCK && !ndl++)
			dl = v;
		/* the join is never a lock wait, the workers are in the cycle */
		cr_assert(v->kind != LT_VERDICT_LOCK_WAIT && v->kind != LT_VERDICT_CONVOY,
			  "%s: unexpected lock verdict: %s", python, v->summary);
	}
	cr_assert_eq(ndl, 1, "%s: expected one deadlock, got %zu (first verdict: %s)", python, ndl,
		     s->n_verdicts ? s->verdicts[0].summary : "-");
	cr_assert_eq(s->verdicts[0].kind, LT_VERDICT_DEADLOCK, "the cycle ranks first");
	cr_assert_eq(dl->n_tids, 2);
	cr_assert((dl->tids[0] == ta && dl->tids[1] == tb) || (dl->tids[0] == tb && dl->tids[1] == ta),
		  "cycle %d, %d, want %d, %d", (int)dl->tids[0], (int)dl->tids[1], (int)ta, (int)tb);
	cr_assert(!strncmp(dl->summary, "probable deadlock:", 18), "an inference says so: %s", dl->summary);
	cr_assert(strstr(dl->summary, "inferred"), "%s", dl->summary);
	pid_t w[2] = { ta, tb };
	for (int i = 0; i < 2; i++) {
		const struct lt_thread *t = lt_snapshot_find(s, w[i]);
		cr_assert_not_null(t);
		cr_assert_str_eq(t->futex.lock_kind ? t->futex.lock_kind : "-", "threading.Lock");
		cr_assert_eq(t->futex.owner_kind, LT_OWNER_INFERRED);
		cr_assert_eq(t->futex.owner, w[!i], "%s: %d's lock held by %d, want %d", python, (int)w[i],
			     (int)t->futex.owner, (int)w[!i]);
		cr_assert(t->futex.owner_how && strstr(t->futex.owner_how, "`with` block"), "%s",
			  t->futex.owner_how ? t->futex.owner_how : "-");
	}
	/* the main thread joins worker-AB: a join behind the cycle */
	const struct lt_thread *mt = lt_snapshot_find(s, main_tid);
	cr_assert_not_null(mt);
	cr_assert_eq(mt->futex.owner_kind, LT_OWNER_JOIN, "%s: main waits in join, owner kind %d", python,
		     mt->futex.owner_kind);
	cr_assert_eq(mt->futex.owner, ta);

	/* JSON marks the inference */
	char *buf = NULL;
	size_t len = 0;
	FILE *f = open_memstream(&buf, &len);
	cr_assert_eq(lt_snapshot_print_json(f, s), 0);
	fclose(f);
	struct rp_json *j = tl_json_of(buf, len);
	const struct rp_json *th = rp_json_get(j, "threads");
	int inferred = 0;
	for (size_t i = 0; th && i < th->n; i++) {
		const struct rp_json *fx = rp_json_get(&th->items[i], "futex");
		const char *k = rp_json_str(rp_json_get(fx, "owner_kind"));
		if (k && !strcmp(k, "inferred") && rp_json_str(rp_json_get(fx, "owner_how")))
			inferred++;
	}
	cr_assert_eq(inferred, 2, "two waiters with owner_kind \"inferred\" and owner_how in the JSON");
	rp_json_free(j);
	free(buf);
	lt_snapshot_free(s);
}

Test(pylock_live, abba_with_blocks_debian_python3, .fini = cleanup, .timeout = 60)
{
	check(TL_PYTHON);
}

#define PYENV(v) "/root/.pyenv/versions/" v "/bin/python3"
Test(pylock_live, abba_with_blocks_pyenv_3_8, .fini = cleanup, .timeout = 60) { check(PYENV("3.8.18")); }
Test(pylock_live, abba_with_blocks_pyenv_3_9, .fini = cleanup, .timeout = 60) { check(PYENV("3.9.18")); }
Test(pylock_live, abba_with_blocks_pyenv_3_10, .fini = cleanup, .timeout = 60) { check(PYENV("3.10.13")); }
Test(pylock_live, abba_with_blocks_pyenv_3_11, .fini = cleanup, .timeout = 60) { check(PYENV("3.11.7")); }
Test(pylock_live, abba_with_blocks_pyenv_3_12, .fini = cleanup, .timeout = 60) { check(PYENV("3.12.1")); }
Test(pylock_live, abba_with_blocks_pyenv_3_13, .fini = cleanup, .timeout = 60) { check(PYENV("3.13.0")); }

/* A multiprocessing.Lock (a POSIX semaphore in shared memory) whose
 * holder process was SIGKILLed while 3 threads wait for it
 * (tests/workloads/py_mp_killed.py, Debian's python3): the holder is
 * unknown and said to be, never a "probable holder"; the lock is a
 * semaphore everywhere (the snapshot, the report's findings and its lock
 * table), never a "condition variable", and no "idle pool" hint. */
static void no_false_label(const char *where, const char *text)
{
	cr_assert(!strstr(text, "probable holder"), "%s: %s", where, text);
	cr_assert(!strstr(text, "condition variable"), "%s: %s", where, text);
	cr_assert(!strstr(text, "idle pool"), "%s: %s", where, text);
}

Test(pylock_live, killed_multiprocessing_lock_holder, .fini = cleanup, .timeout = 120)
{
	tl_start_python(&wl, "tests/workloads/py_mp_killed.py", NULL, truth, &ntruth,
			"another process's /proc files and memory, BPF");
	tl_go(&wl);
	uint64_t addr = tl_truth_val(truth, ntruth, "lock", "name=L", "addr");
	pid_t w[3];
	for (int i = 0; i < 3; i++) {
		char m[32];
		snprintf(m, sizeof(m), "idx=%d", i);
		w[i] = (pid_t)tl_truth_val(truth, ntruth, "thread", m, "tid");
	}
	cr_assert(tl_find(truth, ntruth, "killed", NULL), "the holder was not killed");

	struct lt_snapshot_opts o = { .flags = LT_SNAP_NO_LINES };
	struct lt_snapshot *s = NULL;
	cr_assert_eq(lt_snapshot_take(wl.pid, &o, &s), 0);
	const struct lt_verdict *lw = NULL;
	for (size_t i = 0; i < s->n_verdicts; i++) {
		const struct lt_verdict *v = &s->verdicts[i];
		no_false_label("snapshot verdict", v->summary);
		for (size_t e = 0; e < v->evidence.n; e++)
			no_false_label("snapshot evidence", v->evidence.v[e]);
		bool on = false;
		for (size_t k = 0; k < v->n_locks; k++)
			on |= v->locks[k] == addr;
		if (on) {
			cr_assert_null(lw, "two verdicts on L: %s / %s", lw ? lw->summary : "", v->summary);
			lw = v;
		}
	}
	cr_assert_not_null(lw, "no verdict on L (0x%" PRIx64 ")", addr);
	cr_assert_eq(lw->kind, LT_VERDICT_LOCK_WAIT, "%s", lw->summary);
	cr_assert_eq(lw->owner, 0, "a holder named for a lock whose holder is gone: %s", lw->summary);
	cr_assert_eq(lw->n_tids, 3, "%s", lw->summary);
	for (int i = 0; i < 3; i++) {
		cr_assert(TL_HAS(lw->tids, lw->n_tids, w[i]), "waiter %d not in: %s", (int)w[i], lw->summary);
		const struct lt_thread *t = lt_snapshot_find(s, w[i]);
		cr_assert_not_null(t);
		cr_assert_str_eq(t->futex.lock_kind ? t->futex.lock_kind : "-", "semaphore");
		cr_assert_eq(t->futex.owner, 0);
	}
	cr_assert(strstr(lw->summary, "semaphore") && strstr(lw->summary, "holder is not recorded"), "%s",
		  lw->summary);
	lt_snapshot_free(s);

	char trace[TL_PATH_MAX], pftrace[TL_PATH_MAX];
	tl_record_perfetto(wl.pid, "mpkilled", trace, pftrace);
	struct rp_json *j = tl_report_json(trace);
	const struct rp_json *fs = rp_json_get(j, "findings");
	size_t on_l = 0;
	for (size_t i = 0; fs && i < fs->n; i++) {
		const struct rp_json *f = &fs->items[i];
		const char *summary = rp_json_str(rp_json_get(f, "summary"));
		no_false_label("report finding", summary);
		const struct rp_json *ev = rp_json_get(f, "evidence");
		for (size_t e = 0; ev && e < ev->n; e++)
			no_false_label("report evidence", rp_json_str(&ev->items[e]));
		const struct rp_json *ls = rp_json_get(f, "locks");
		int on = 0;
		for (size_t k = 0; ls && k < ls->n; k++) {
			uint64_t a = 0;
			on |= rp_json_addr(&ls->items[k], &a) && a == addr;
		}
		if (!on)
			continue;
		on_l++;
		cr_assert_eq(rp_json_num(rp_json_get(f, "holder"), 0), 0, "a holder named: %s", summary);
		cr_assert(strstr(summary, "semaphore") && strstr(summary, "no holder is known"), "%s", summary);
	}
	cr_assert_eq(on_l, 1, "%zu findings on L", on_l);
	const struct rp_json *ls = rp_json_get(j, "locks");
	size_t rows = 0;
	for (size_t i = 0; ls && i < ls->n; i++) {
		uint64_t a = 0;
		if (rp_json_addr(rp_json_get(&ls->items[i], "addr"), &a) && a == addr) {
			rows++;
			cr_assert_str_eq(rp_json_str(rp_json_get(&ls->items[i], "kind")), "semaphore");
		}
	}
	cr_assert_eq(rows, 1, "L in %zu rows of the lock table", rows);
	rp_json_free(j);
	tl_unlink_traces(trace, pftrace);
}

/* Waits until /proc says thread TID of PID sleeps in futex(). */
static void wait_in_futex(pid_t pid, pid_t tid)
{
	tl_wait_in_call(pid, tid, 202, 10000);
}

/* The one verdict on the lock the threads W[0], W[1] wait for: exactly
 * them, no holder named. */
static const struct lt_verdict *gone_verdict(const struct lt_snapshot *s, const pid_t w[2])
{
	const struct lt_verdict *v = NULL;
	for (size_t i = 0; i < s->n_verdicts; i++)
		if (TL_HAS(s->verdicts[i].tids, s->verdicts[i].n_tids, w[0])) {
			cr_assert_null(v, "two verdicts on %d: %s / %s", (int)w[0], v ? v->summary : "",
				       s->verdicts[i].summary);
			v = &s->verdicts[i];
		}
	cr_assert_not_null(v, "no verdict names %d", (int)w[0]);
	cr_assert_eq(v->kind, LT_VERDICT_LOCK_WAIT, "%s", v->summary);
	cr_assert_eq(v->n_tids, 2, "%s", v->summary);
	cr_assert(TL_HAS(v->tids, v->n_tids, w[1]), "%s", v->summary);
	cr_assert_eq(v->owner, 0, "%s", v->summary);
	cr_assert(!strstr(v->summary, "not recorded"), "the holder was recorded, it is gone: %s", v->summary);
	cr_assert(!strstr(v->summary, "probab"), "%s", v->summary);
	return v;
}

/* A thread exited holding the GIL (pthread_exit with it held): the GIL's
 * last_holder names a thread that no longer exists. */
Test(pylock_live, gil_holder_that_exited_is_gone, .fini = cleanup, .timeout = 60)
{
	char *extra[] = { "gil", NULL };
	tl_start_python(&wl, "tests/workloads/py_gone_holder.py", extra, truth, &ntruth,
			"another process's /proc files and memory");
	pid_t gone = (pid_t)tl_truth_val(truth, ntruth, "holder", NULL, "tid");
	pid_t w[2] = { (pid_t)tl_truth_val(truth, ntruth, "thread", "idx=0", "tid"),
		       (pid_t)tl_truth_val(truth, ntruth, "thread", "idx=1", "tid") };
	char task[64];
	snprintf(task, sizeof(task), "/proc/%d/task/%d", (int)wl.pid, (int)gone);
	int i = 0;
	for (; i < 10000 && access(task, F_OK) == 0; i++)
		usleep(1000);
	cr_assert_lt(i, 10000, "the GIL's holder %d never exited", (int)gone);
	wait_in_futex(wl.pid, w[0]);
	wait_in_futex(wl.pid, w[1]);

	struct lt_snapshot_opts o = { .flags = LT_SNAP_NO_LINES };
	struct lt_snapshot *s = NULL;
	cr_assert_eq(lt_snapshot_take(wl.pid, &o, &s), 0);
	const struct lt_rtlock *gil = NULL;
	for (size_t k = 0; k < s->n_rtlocks; k++)
		if (!strcmp(s->rtlocks[k].kind, "GIL"))
			gil = &s->rtlocks[k];
	cr_assert_not_null(gil, "the lock model found no GIL");
	cr_assert_eq(gil->held, 1);
	cr_assert_eq(gil->holder, 0);
	cr_assert_eq(gil->holder_gone, gone, "the GIL's recorded holder %d, the workload's %d", (int)gil->holder_gone,
		     (int)gone);
	const struct lt_verdict *v = gone_verdict(s, w);
	char want[96];
	snprintf(want, sizeof(want), "held by a thread that no longer exists (its recorded holder %d is no longer",
		 (int)gone);
	cr_assert(strstr(v->summary, "the GIL") && strstr(v->summary, want), "want '%s' in: %s", want, v->summary);
	lt_snapshot_free(s);
}

/* A thread returned holding an RLock and was joined: the RLock's owner
 * (a pthread_t) is no thread any more, and no tid is made up for it. */
Test(pylock_live, rlock_owner_that_exited_is_gone, .fini = cleanup, .timeout = 60)
{
	char *extra[] = { "rlock", NULL };
	tl_start_python(&wl, "tests/workloads/py_gone_holder.py", extra, truth, &ntruth,
			"another process's /proc files and memory");
	uint64_t ident = tl_truth_val(truth, ntruth, "holder", NULL, "ident");
	pid_t w[2] = { (pid_t)tl_truth_val(truth, ntruth, "thread", "idx=0", "tid"),
		       (pid_t)tl_truth_val(truth, ntruth, "thread", "idx=1", "tid") };
	struct lt_snapshot_opts o = { .flags = LT_SNAP_NO_LINES };
	struct lt_snapshot *s = NULL;
	cr_assert_eq(lt_snapshot_take(wl.pid, &o, &s), 0);
	for (int i = 0; i < 2; i++) {
		const struct lt_thread *t = lt_snapshot_find(s, w[i]);
		cr_assert_not_null(t);
		cr_assert_str_eq(t->futex.lock_kind ? t->futex.lock_kind : "-", "threading.RLock");
		cr_assert(t->futex.owner_gone, "waiter %d: the RLock's owner not said to be gone", (int)w[i]);
		cr_assert_eq(t->futex.gone_ptr, ident);
		cr_assert_eq(t->futex.gone_parent, 0);
	}
	const struct lt_verdict *v = gone_verdict(s, w);
	char want[96];
	snprintf(want, sizeof(want), "held by no thread of this process (its recorded owner pthread 0x%" PRIx64,
		 ident);
	cr_assert(strstr(v->summary, want), "want '%s' in: %s", want, v->summary);
	for (size_t e = 0; e < v->evidence.n; e++)
		cr_assert(!strstr(v->evidence.v[e], "recorded owner 0 "), "an owner made up: %s", v->evidence.v[e]);
	lt_snapshot_free(s);
}

/* Two threads idle in queue.SimpleQueue.get() on an empty queue (CPython
 * 3.11's _queue module parks them on a semaphore of the queue's own): an
 * item awaited, not a lock; no LOCK WAIT, no holder looked for. */
Test(pylock_live, simplequeue_get_is_idle_not_a_lock_wait, .fini = cleanup, .timeout = 60)
{
	tl_start_python(&wl, "tests/workloads/py_simplequeue.py", NULL, truth, &ntruth,
			"another process's /proc files and memory");
	pid_t c[2] = { (pid_t)tl_truth_val(truth, ntruth, "thread", "idx=0", "tid"),
		       (pid_t)tl_truth_val(truth, ntruth, "thread", "idx=1", "tid") };
	wait_in_futex(wl.pid, c[0]);
	wait_in_futex(wl.pid, c[1]);
	struct lt_snapshot_opts o = { .flags = LT_SNAP_NO_LINES };
	struct lt_snapshot *s = NULL;
	cr_assert_eq(lt_snapshot_take(wl.pid, &o, &s), 0);
	for (int k = 0; k < 2; k++) {
		const struct lt_thread *t = lt_snapshot_find(s, c[k]);
		cr_assert_not_null(t);
		cr_assert(t->futex.lock_state && strstr(t->futex.lock_state, "queue.SimpleQueue.get"),
			  "thread %d: %s", (int)c[k], t->futex.lock_state ? t->futex.lock_state : "no lock state");
		cr_assert_null(t->acquire, "thread %d acquires nothing: %s", (int)c[k], t->acquire);
	}
	for (size_t i = 0; i < s->n_verdicts; i++)
		cr_assert_neq(s->verdicts[i].kind, LT_VERDICT_LOCK_WAIT, "%s", s->verdicts[i].summary);
	cr_assert_eq(s->verdicts[0].kind, LT_VERDICT_IDLE, "%s", s->verdicts[0].summary);
	lt_snapshot_free(s);
}

/* A multiprocessing.Lock taken by a sibling that exited holding it; a
 * child waits for it, the parent waits in Queue.get() for that child.
 * Followed from the parent, the child's lock wait names no probable holder:
 * the lock is in a shared mapping, any process mapping it may hold it, and
 * the parent runs the waiters' code (<module>) only as their fork (a
 * users' trial: "probably held by thread P (MainThread)"). */
/* The workload's children outlive it otherwise: the waiter blocks forever
 * on the lost lock. */
static void cleanup_tree(void)
{
	if (wl.pid > 0)
		tl_kill_tree(wl.pid);
	cleanup();
}

Test(pylock_live, shared_lock_names_no_holder_from_the_frames, .fini = cleanup_tree, .timeout = 60)
{
	tl_start_python(&wl, "tests/workloads/py_mp_sibling_lock.py", NULL, truth, &ntruth,
			"another process's /proc files and memory");
	pid_t parent = (pid_t)tl_truth_val(truth, ntruth, "parent", NULL, "pid");
	pid_t waiter = (pid_t)tl_truth_val(truth, ntruth, "waiter", NULL, "pid");
	wait_in_futex(waiter, waiter);
	usleep(1500 * 1000); /* a quiet lock: nobody has run on it for a while */
	struct rp_json *j = tl_snapshot_cli_json(parent);
	const struct rp_json *vs = rp_json_get(j, "verdicts"), *lw = NULL;
	cr_assert(vs && vs->type == RPJ_ARR);
	for (size_t i = 0; i < vs->n; i++) {
		const struct rp_json *tids = rp_json_get(&vs->items[i], "tids");
		const char *k = rp_json_str(rp_json_get(&vs->items[i], "kind"));
		if (k && !strcmp(k, "lock_wait") && tids && tids->n == 1 &&
		    (pid_t)rp_json_num(&tids->items[0], 0) == waiter)
			lw = &vs->items[i];
	}
	cr_assert_not_null(lw, "no lock_wait of the waiter %d (followed from %d)", (int)waiter, (int)parent);
	const char *sum = rp_json_str(rp_json_get(lw, "summary"));
	cr_assert(sum && !strstr(sum, "probably held") && strstr(sum, "holder is not recorded"), "%s", sum ? sum : "?");
	rp_json_free(j);
}

/* A multiprocessing.Lock held by a live thread of another process
 * (tests/workloads/py_mp_holder.py): thread "lockholder" of process H
 * holds it inside `with L:`, blocked reading a pipe nobody writes; threads
 * of two other processes wait for it.  A POSIX semaphore records no
 * holder, but H's _multiprocessing.SemLock does (count 1, last_tid): the
 * snapshot of a waiters' process, following the semaphore into the
 * processes mapping it, names that thread and process as the holder, read
 * from memory, and goes on into what the holder waits for (the pipe).
 * GONE: the holder thread returned holding it (its process lives on): the
 * holder is said to be gone, none is made up. */
static const struct rp_json *verdict_of(const struct rp_json *j, pid_t tid)
{
	const struct rp_json *vs = rp_json_get(j, "verdicts"), *v = NULL;
	cr_assert(vs && vs->type == RPJ_ARR);
	for (size_t i = 0; i < vs->n; i++) {
		const struct rp_json *tids = rp_json_get(&vs->items[i], "tids");
		for (size_t k = 0; tids && k < tids->n; k++)
			if ((pid_t)rp_json_num(&tids->items[k], 0) == tid) {
				cr_assert_null(v, "two verdicts name %d", (int)tid);
				v = &vs->items[i];
			}
	}
	cr_assert_not_null(v, "no verdict names thread %d", (int)tid);
	return v;
}

static bool evidence_has(const struct rp_json *v, const char *a, const char *b)
{
	const struct rp_json *ev = rp_json_get(v, "evidence");
	for (size_t e = 0; ev && e < ev->n; e++) {
		const char *l = rp_json_str(&ev->items[e]);
		if (l && strstr(l, a) && (!b || strstr(l, b)))
			return true;
	}
	return false;
}

static void mp_holder(const char *python, const char *mode)
{
	tl_skip_unless_root("needs root: other processes' /proc files and memory, BPF");
	if (access(python, X_OK) != 0)
		cr_skip_test("%s is not installed on this machine", python);
	char *argv[] = { (char *)python, "tests/workloads/py_mp_holder.py", (char *)mode, NULL };
	tl_start_ready(&wl, argv, truth, &ntruth, 64, 30000);
	pid_t hpid = (pid_t)tl_truth_val(truth, ntruth, "holder", NULL, "pid");
	pid_t htid = (pid_t)tl_truth_val(truth, ntruth, "holder", NULL, "tid");
	pid_t wpid[3], wtid[3];
	for (int i = 0; i < 3; i++) {
		char m[16];
		snprintf(m, sizeof(m), "idx=%d", i);
		wpid[i] = (pid_t)tl_truth_val(truth, ntruth, "waiter", m, "pid");
		wtid[i] = (pid_t)tl_truth_val(truth, ntruth, "waiter", m, "tid");
	}
	cr_assert(hpid > 0 && htid > 0 && htid != hpid, "the holder is a thread of its own");
	cr_assert(wpid[0] == wl.pid && wpid[1] == wpid[2] && wpid[1] != wl.pid && wpid[1] != hpid);
	/* from the waiters' process, which neither holds it nor names it */
	struct rp_json *j = tl_snapshot_cli_json(wpid[1]);
	const struct rp_json *v = verdict_of(j, wtid[1]);
	const char *k = rp_json_str(rp_json_get(v, "kind"));
	const char *sum = rp_json_str(rp_json_get(v, "summary"));
	cr_assert(k && sum && !strcmp(k, "lock_wait"), "%s: %s: %s", python, k ? k : "?", sum ? sum : "?");
	const struct rp_json *tids = rp_json_get(v, "tids");
	cr_assert_eq(tids->n, 3, "%s: %s", python, sum);
	for (int i = 0; i < 3; i++)
		cr_assert(verdict_of(j, wtid[i]) == v, "%s: waiter %d not in: %s", python, (int)wtid[i], sum);
	char want[160];
	if (!strcmp(mode, "gone")) {
		cr_assert_eq(rp_json_num(rp_json_get(v, "owner"), 0), 0, "%s: a holder made up: %s", python, sum);
		snprintf(want, sizeof(want), "held by no live thread: its holder, the last acquirer process %d's "
			 "multiprocessing SemLock records", (int)hpid);
		cr_assert(strstr(sum, want), "%s: want '%s' in: %s", python, want, sum);
		cr_assert(!strstr(sum, "not recorded") && !strstr(sum, "probab"), "%s", sum);
		cr_assert(evidence_has(v, "holder gone, read from memory", "count 1"), "%s: %s", python, sum);
		rp_json_free(j);
		return;
	}
	cr_assert_eq((pid_t)rp_json_num(rp_json_get(v, "owner"), 0), htid, "%s: holder %d, want %d: %s", python,
		     (int)rp_json_num(rp_json_get(v, "owner"), 0), (int)htid, sum);
	cr_assert_eq((pid_t)rp_json_num(rp_json_get(v, "owner_pid"), 0), hpid, "%s: %s", python, sum);
	snprintf(want, sizeof(want), "held by thread %d (lockholder) of process %d (its multiprocessing "
		 "SemLock's count and last acquirer, read from memory), which has been blocked in read(", (int)htid,
		 (int)hpid);
	cr_assert(strstr(sum, want), "%s: want '%s' in: %s", python, want, sum);
	const char *src = rp_json_str(rp_json_get(v, "owner_source"));
	cr_assert(src && strstr(src, "read from memory"), "%s", src ? src : "no owner_source");
	snprintf(want, sizeof(want), "process %d's _multiprocessing.SemLock", (int)hpid);
	cr_assert(evidence_has(v, want, "records count 1"), "%s: no '%s' in the evidence of: %s", python, want, sum);
	/* the chain goes on into what the holder waits for: the pipe */
	snprintf(want, sizeof(want), "owner %d waits for:", (int)htid);
	cr_assert(evidence_has(v, want, "pipe"), "%s: no '%s ... pipe' in the evidence of: %s", python, want, sum);
	rp_json_free(j);
}

Test(pylock_live, multiprocessing_lock_holder_named, .fini = cleanup_tree, .timeout = 90)
{
	mp_holder(TL_PYTHON, "held");
}
Test(pylock_live, multiprocessing_lock_holder_named_pyenv_3_8, .fini = cleanup_tree, .timeout = 90)
{
	mp_holder(PYENV("3.8.18"), "held");
}
Test(pylock_live, multiprocessing_lock_holder_named_pyenv_3_13, .fini = cleanup_tree, .timeout = 90)
{
	mp_holder(PYENV("3.13.0"), "held");
}
Test(pylock_live, multiprocessing_lock_holder_gone, .fini = cleanup_tree, .timeout = 90)
{
	mp_holder(TL_PYTHON, "gone");
}

/* A thread of the CLI's JSON snapshot, in any of its processes. */
static const struct rp_json *json_thread(const struct rp_json *j, pid_t tid)
{
	const struct rp_json *ps = rp_json_get(j, "processes");
	for (size_t p = 0; p < (ps ? ps->n : 1); p++) {
		const struct rp_json *ts = rp_json_get(ps ? &ps->items[p] : j, "threads");
		for (size_t i = 0; ts && i < ts->n; i++)
			if ((pid_t)rp_json_num(rp_json_get(&ts->items[i], "tid"), 0) == tid)
				return &ts->items[i];
	}
	return NULL;
}

/* multiprocessing.SimpleQueue.get() from 3 processes, nobody puts (a
 * Pool's idle workers): the one reading the pipe holds the queue's read
 * lock (self._rlock), the 2 others wait for it.  They wait for work, not
 * for a lock kept by a stuck thread: idle (rt_idle.c), no lock wait (it
 * was one, the holder named by its SemLock, on every idle Pool). */
Test(pylock_live, multiprocessing_queue_readers_waiting_for_the_rlock_are_idle, .fini = cleanup_tree, .timeout = 90)
{
	char *extra[] = { "queue", NULL };
	tl_start_python(&wl, "tests/workloads/py_mp_holder.py", extra, truth, &ntruth,
			"other processes' /proc files and memory, BPF");
	pid_t c[3], reader = 0, w[2];
	size_t nw = 0;
	for (int i = 0; i < 3; i++) {
		char m[16], path[64], line[64] = "";
		snprintf(m, sizeof(m), "idx=%d", i);
		c[i] = (pid_t)tl_truth_val(truth, ntruth, "consumer", m, "pid");
		snprintf(path, sizeof(path), "/proc/%d/syscall", (int)c[i]);
		FILE *sf = fopen(path, "r");
		cr_assert(sf && fgets(line, sizeof(line), sf), "%s", path);
		fclose(sf);
		if (!strncmp(line, "0 ", 2)) {
			cr_assert_eq(reader, 0, "two consumers in read()");
			reader = c[i];
		} else {
			cr_assert(!strncmp(line, "202 ", 4), "consumer %d in: %s", (int)c[i], line);
			w[nw++] = c[i];
		}
	}
	cr_assert(reader && nw == 2);
	struct rp_json *j = tl_snapshot_cli_json(w[0]);
	const struct rp_json *vs = rp_json_get(j, "verdicts");
	cr_assert(vs && vs->n > 0);
	for (size_t i = 0; i < vs->n; i++) {
		const char *k = rp_json_str(rp_json_get(&vs->items[i], "kind"));
		cr_expect(k && (!strcmp(k, "idle") || !strcmp(k, "ok")), "%s: %s", k ? k : "?",
			  rp_json_str(rp_json_get(&vs->items[i], "summary")));
	}
	for (size_t i = 0; i < 2; i++) {
		const struct rp_json *t = json_thread(j, w[i]);
		cr_assert_not_null(t, "thread %d in the snapshot", (int)w[i]);
		const char *st = rp_json_str(rp_json_get(rp_json_get(t, "futex"), "lock_state"));
		cr_expect(st && strstr(st, "the thread waits for work here (multiprocessing's Queue.get or "
					   "SimpleQueue.get, waiting for the queue's reader lock"),
			  "thread %d: %s", (int)w[i], st ? st : "no lock state");
	}
	rp_json_free(j);
}

/* ---- concurrent.futures: a thread in Future.result() ----
 *
 * tests/workloads/py_futures.py: the main thread waits in result() of a
 * ThreadPoolExecutor task.  The wait is for the thread running the task
 * (its _WorkItem.run frame's self.future), a runtime lock that thread
 * holds, inferred (a set_result() may come from any thread): --pipe, the
 * runner reads a pipe only its own process could write (a probable
 * deadlock through the pipe, naming both threads); --starve, the pool's
 * one thread waits in result() of a task it submitted to itself, which
 * never starts (a starvation, inferred, naming the worker); --cycle, the
 * runner waits for an RLock the main thread holds in result() (a
 * probable deadlock); --busy, the task is queued behind one whose thread
 * runs: no starvation said, no claim.  Debian's python3 and every pyenv build 3.8-3.13
 * (skipped, saying why, where absent).  Ground truth: the tids, the
 * Futures' and the RLock's id() the workload prints. */

#define FUT_KIND "concurrent.futures Future (result)"

/* The watcher thread of py_futures.py that printed the truth exits after
 * "ready": until it has, the process has a thread that is not blocked (a
 * deadlock through a pipe only it holds is not one yet; seen once in a
 * full run, python 3.8).  Waits (10 s) until it is gone. */
static void watcher_gone(const char *python)
{
	pid_t watcher = (pid_t)tl_truth_val(truth, ntruth, "thread", "role=watcher", "tid");
	char tp[64];
	snprintf(tp, sizeof(tp), "/proc/%d/task/%d", (int)wl.pid, (int)watcher);
	for (double t0 = tl_now_s(); watcher > 0 && access(tp, F_OK) == 0 && tl_now_s() - t0 < 10; usleep(5000))
		;
	cr_assert(watcher > 0 && access(tp, F_OK) != 0, "%s: the watcher thread %d is still there", python, (int)watcher);
}

static struct lt_snapshot *fut_start(const char *python, const char *mode, pid_t *main_tid, pid_t *runner,
				     uint64_t *outer)
{
	tl_skip_unless_root("needs root: another process's /proc files and memory");
	if (access(python, X_OK) != 0)
		cr_skip_test("%s is not installed on this machine", python);
	char *argv[] = { (char *)python, "tests/workloads/py_futures.py", (char *)mode, NULL };
	tl_start_ready(&wl, argv, truth, &ntruth, 64, 30000);
	*main_tid = (pid_t)tl_truth_val(truth, ntruth, "thread", "role=main", "tid");
	*runner = (pid_t)tl_truth_val(truth, ntruth, "thread", "role=runner", "tid");
	*outer = tl_truth_val(truth, ntruth, "future", "name=outer", "addr");
	cr_assert(*main_tid == wl.pid && *runner > 0 && *runner != *main_tid && *outer);
	watcher_gone(python);
	struct lt_snapshot *s = NULL;
	cr_assert_eq(lt_snapshot_take(wl.pid, NULL, &s), 0);
	for (size_t i = 0; i < s->notes.n; i++)
		fprintf(stderr, "%s: note: %s\n", python, s->notes.v[i]);
	return s;
}

/* WHO waits in Future.result() for FUT, held by HOLDER (0: none). */
static const struct lt_rtlock *fut_waits(const struct lt_snapshot *s, const char *python, pid_t who, uint64_t fut,
					 pid_t holder)
{
	const struct lt_thread *t = lt_snapshot_find(s, who);
	cr_assert_not_null(t, "%s: thread %d", python, (int)who);
	const struct lt_futex *f = &t->futex;
	cr_assert_str_eq(f->lock_kind ? f->lock_kind : "-", FUT_KIND, "%s: thread %d: %s", python, (int)who,
			 f->lock_state ? f->lock_state : "-");
	cr_assert_eq(f->lock_base, fut, "%s: thread %d waits for 0x%" PRIx64 ", want 0x%" PRIx64, python, (int)who,
		     f->lock_base, fut);
	cr_assert(f->rtlock && f->rtlock <= s->n_rtlocks, "%s", python);
	const struct lt_rtlock *l = &s->rtlocks[f->rtlock - 1];
	cr_assert_str_eq(l->wait_call ? l->wait_call : "-", "Future.result()");
	cr_assert(lt_done_kind_of(l->kind) && lt_done_kind_of(l->kind)->inferred, "%s", python);
	cr_assert_eq(l->holder, holder, "%s: holder %d, want %d (%s)", python, (int)l->holder, (int)holder,
		     l->holder_how ? l->holder_how : "-");
	cr_assert_eq(f->owner, holder, "%s", python);
	cr_assert_eq(f->owner_kind, holder ? LT_OWNER_RUNTIME : LT_OWNER_NONE, "%s", python);
	return l;
}

static bool has_tid(const struct lt_verdict *v, pid_t tid)
{
	for (size_t k = 0; k < v->n_tids; k++)
		if (v->tids[k] == tid)
			return true;
	return false;
}

static bool fut_evidence(const struct lt_verdict *v, const char *want)
{
	for (size_t k = 0; k < v->evidence.n; k++)
		if (strstr(v->evidence.v[k], want))
			return true;
	return false;
}

static void fut_no_ok(const struct lt_snapshot *s, const char *python)
{
	for (size_t i = 0; i < s->n_verdicts; i++)
		cr_assert(s->verdicts[i].kind != LT_VERDICT_OK && s->verdicts[i].kind != LT_VERDICT_IDLE, "%s: %s",
			  python, s->verdicts[i].summary);
}

static void fut_pipe(const char *python)
{
	pid_t m, r;
	uint64_t outer;
	struct lt_snapshot *s = fut_start(python, "--pipe", &m, &r, &outer);
	int rfd = (int)tl_truth_val(truth, ntruth, "pipe", NULL, "rfd");
	fut_waits(s, python, m, outer, r);
	fut_no_ok(s, python);
	/* the runner's pipe read: only this process holds the write end, all
	 * of its threads blocked: a probable deadlock through the pipe */
	const struct lt_verdict *d = NULL;
	for (size_t i = 0; i < s->n_verdicts; i++)
		if (has_tid(&s->verdicts[i], m))
			d = &s->verdicts[i];
	cr_assert_not_null(d, "%s: no verdict for the main thread %d", python, (int)m);
	cr_assert_eq(d->kind, LT_VERDICT_DEADLOCK, "%s: %s", python, d->summary);
	cr_assert(has_tid(d, r), "%s: %s", python, d->summary);
	char want[512];
	snprintf(want, sizeof(want), "inferred: that thread %d (MainThread), in Future.result(), waits for thread %d "
		 "alone (a set_result() or set_exception() on the Future from another thread", (int)m, (int)r);
	cr_assert(strstr(d->summary, "probable deadlock") && strstr(d->summary, want), "%s: %s", python, d->summary);
	snprintf(want, sizeof(want), "thread %d (MainThread) waits in Future.result() for concurrent.futures.Future "
		 "at 0x%" PRIx64 ", run by thread %d (ThreadPoolExecutor-0_0)", (int)m, outer, (int)r);
	cr_assert(fut_evidence(d, want), "%s: no evidence '%s': %s", python, want, d->summary);
	snprintf(want, sizeof(want), "thread %d (ThreadPoolExecutor-0_0) read(fd %d: pipe)", (int)r, rfd);
	cr_assert(fut_evidence(d, want), "%s: no evidence '%s': %s", python, want, d->summary);
	lt_snapshot_free(s);
}

static void fut_starve(const char *python)
{
	pid_t m, r;
	uint64_t outer;
	struct lt_snapshot *s = fut_start(python, "--starve", &m, &r, &outer);
	uint64_t inner = tl_truth_val(truth, ntruth, "future", "name=inner", "addr");
	fut_waits(s, python, m, outer, r);
	const struct lt_rtlock *l = fut_waits(s, python, r, inner, 0);
	cr_assert(l->holderless, "%s", python);
	char want[512];
	snprintf(want, sizeof(want), "no thread runs the task and its state is PENDING: the task has not started: it "
		 "waits for a thread of its executor to take it; every ThreadPoolExecutor worker thread of the "
		 "process (1: %d (ThreadPoolExecutor-0_0)) runs a task and is blocked, this one in this "
		 "Future.result(): probably a thread-starvation deadlock (inferred: ", (int)r);
	cr_assert(l->holder_how && strstr(l->holder_how, want), "%s: %s", python, l->holder_how ? l->holder_how : "-");
	fut_no_ok(s, python);
	const struct lt_verdict *vm = NULL, *vr = NULL;
	for (size_t i = 0; i < s->n_verdicts; i++) {
		if (has_tid(&s->verdicts[i], m))
			vm = &s->verdicts[i];
		if (has_tid(&s->verdicts[i], r))
			vr = &s->verdicts[i];
	}
	cr_assert(vm && vr && vm != vr, "%s: one verdict for each", python);
	cr_assert_eq(vr->kind, LT_VERDICT_LOCK_WAIT, "%s: %s", python, vr->summary);
	cr_assert_eq(vr->n_tids, 1, "%s: %s", python, vr->summary);
	cr_assert_eq(vr->owner, 0, "%s: %s", python, vr->summary);
	char head[200];
	snprintf(head, sizeof(head), "1 thread waits in Future.result() for the task concurrent.futures.Future at "
		 "0x%" PRIx64 ": ", inner);
	cr_assert(strstr(vr->summary, head) && strstr(vr->summary, want), "%s: %s", python, vr->summary);
	cr_assert_eq(vm->kind, LT_VERDICT_LOCK_WAIT, "%s: %s", python, vm->summary);
	cr_assert_eq(vm->owner, r, "%s: %s", python, vm->summary);
	snprintf(want, sizeof(want), "1 thread waits in Future.result() for the task concurrent.futures.Future at "
		 "0x%" PRIx64 ", run by thread %d (ThreadPoolExecutor-0_0), which has been waiting in Future.result() "
		 "for the task concurrent.futures.Future at 0x%" PRIx64 " for ", outer, (int)r, inner);
	cr_assert(strstr(vm->summary, want) && strstr(vm->summary, ", which no thread runs: the wait ends when the "
		  "task ends"), "%s: %s", python, vm->summary);
	lt_snapshot_free(s);
}

static void fut_cycle(const char *python)
{
	pid_t m, r;
	uint64_t outer;
	struct lt_snapshot *s = fut_start(python, "--cycle", &m, &r, &outer);
	uint64_t rl = tl_truth_val(truth, ntruth, "lock", "name=rl", "addr");
	fut_waits(s, python, m, outer, r);
	const struct lt_thread *tr = lt_snapshot_find(s, r);
	cr_assert_not_null(tr);
	cr_assert_str_eq(tr->futex.lock_kind ? tr->futex.lock_kind : "-", "threading.RLock", "%s", python);
	cr_assert_eq(tr->futex.lock_base, rl, "%s", python);
	cr_assert_eq(tr->futex.owner, m, "%s: the RLock's owner is main", python);
	const struct lt_verdict *d = NULL;
	for (size_t i = 0; i < s->n_verdicts; i++)
		if (s->verdicts[i].kind == LT_VERDICT_DEADLOCK)
			d = &s->verdicts[i];
	cr_assert_not_null(d, "%s: no deadlock verdict", python);
	cr_assert(d->n_tids == 2 && has_tid(d, m) && has_tid(d, r), "%s: %s", python, d->summary);
	char want[512];
	snprintf(want, sizeof(want), "probable deadlock: 2 threads wait for each other: %d (MainThread) -> %d "
		 "(ThreadPoolExecutor-0_0) -> %d; inferred: that thread %d (MainThread), in Future.result(), waits "
		 "for thread %d alone (a set_result() or set_exception() on the Future from another thread would "
		 "end its wait too)", (int)m, (int)r, (int)m, (int)m, (int)r);
	cr_assert(strstr(d->summary, want), "%s: %s", python, d->summary);
	lt_snapshot_free(s);
}

/* --busy: the task main waits for is queued behind one whose thread runs
 * (a pure-Python loop, never asleep): not started, but no starvation: the
 * wait stays a Condition's (no runtime lock, no holder, no lock verdict),
 * its state saying it is queued and why. */
static void fut_busy(const char *python)
{
	pid_t m, r;
	uint64_t outer;
	struct lt_snapshot *s = fut_start(python, "--busy", &m, &r, &outer);
	const struct lt_thread *t = lt_snapshot_find(s, m);
	cr_assert_not_null(t);
	const struct lt_futex *f = &t->futex;
	cr_assert_str_eq(f->lock_kind ? f->lock_kind : "-", "threading.Condition", "%s", python);
	cr_assert_eq(f->rtlock, 0, "%s", python);
	cr_assert_eq(f->owner, 0, "%s", python);
	char want[512];
	snprintf(want, sizeof(want), "no thread runs the task and its state is PENDING: the task has not started: it "
		 "waits for a thread of its executor to take it; the process's ThreadPoolExecutor worker thread (%d "
		 "(ThreadPoolExecutor-0_0)): 0 idle in its work queue's get(), 0 running a task and blocked: it is "
		 "queued, waiting for a worker", (int)r);
	cr_assert(f->lock_state && strstr(f->lock_state, want), "%s: %s", python, f->lock_state ? f->lock_state : "-");
	for (size_t i = 0; i < s->n_verdicts; i++)
		cr_assert(!has_tid(&s->verdicts[i], m) || (s->verdicts[i].kind != LT_VERDICT_LOCK_WAIT &&
							   s->verdicts[i].kind != LT_VERDICT_DEADLOCK),
			  "%s: %s", python, s->verdicts[i].summary);
	lt_snapshot_free(s);
}

#define FUT_TESTS(name, py)                                                                               \
	Test(pylock_live, future_pipe_##name, .fini = cleanup, .timeout = 60) { fut_pipe(py); }          \
	Test(pylock_live, future_starve_##name, .fini = cleanup, .timeout = 60) { fut_starve(py); }      \
	Test(pylock_live, future_cycle_##name, .fini = cleanup, .timeout = 60) { fut_cycle(py); }        \
	Test(pylock_live, future_busy_##name, .fini = cleanup, .timeout = 60) { fut_busy(py); }

FUT_TESTS(debian_python3, TL_PYTHON)
FUT_TESTS(pyenv_3_8, PYENV("3.8.18"))
FUT_TESTS(pyenv_3_9, PYENV("3.9.18"))
FUT_TESTS(pyenv_3_10, PYENV("3.10.13"))
FUT_TESTS(pyenv_3_11, PYENV("3.11.7"))
FUT_TESTS(pyenv_3_12, PYENV("3.12.1"))
FUT_TESTS(pyenv_3_13, PYENV("3.13.0"))

/* py_futures.py FLAG recorded for 5 s (Debian's python3): the report's one
 * deadlock finding, of the main thread and the thread of role RUNNER, is
 * probable and says WANT (a format of the main thread's tid). */
static void recorded_py_cycle(const char *flag, const char *runner, const char *want_fmt)
{
	tl_skip_unless_root("needs root (BPF programs)");
	if (access(TL_PYTHON, X_OK) != 0)
		cr_skip_test("%s is missing", TL_PYTHON);
	char path[128], role[32];
	tl_tmp_path(path, sizeof(path), "pyfutcycle");
	char *argv[] = { LT_BIN, "record", "-o", path, "-d", "5", "--no-status", "--", TL_PYTHON,
			 "tests/workloads/py_futures.py", (char *)flag, NULL };
	ntruth = 0;
	int st = tl_run_to_end(argv, truth, &ntruth, NULL, NULL);
	cr_assert(tl_find(truth, ntruth, "ready", NULL), "py_futures.py never got ready (status %d)", st);
	snprintf(role, sizeof(role), "role=%s", runner);
	pid_t m = (pid_t)tl_truth_val(truth, ntruth, "thread", "role=main", "tid");
	pid_t r = (pid_t)tl_truth_val(truth, ntruth, "thread", role, "tid");
	struct rp_json *j = tl_report_json(path);
	const char *sum;
	tl_two_thread_deadlock(j, m, r, &sum);
	char want[400];
	snprintf(want, sizeof(want), want_fmt, (int)m);
	cr_assert(!strncmp(sum, "probable deadlock: 2 threads wait for each other: ", 50) && strstr(sum, want),
		  "%s\nwant: %s", sum, want);
	rp_json_free(j);
	unlink(path);
}

/* The same --cycle recorded: the report's deadlock finding, from the
 * snapshot at the end, is probable, the inference said (before this, it
 * said a plain "deadlock"). */
Test(pylock_live, recorded_future_cycle_is_a_probable_deadlock, .fini = cleanup, .timeout = 120)
{
	recorded_py_cycle("--cycle", "runner",
			  "; inferred: that thread %d (MainThread), in Future.result(), waits for the task's runner "
			  "alone (a set_result() or set_exception() on the Future from another thread would end it too)");
}

/* ---- concurrent.futures.wait() and as_completed() ----
 *
 * py_futures.py --wait-all, --wait-first, --as-completed: the main thread
 * waits for two ThreadPoolExecutor tasks, each reading a pipe nobody
 * writes, in wait() (ALL_COMPLETED, FIRST_COMPLETED) or as_completed().
 * ALL_COMPLETED: held by one of the runners (both blocked: either may be
 * named), which the verdict names with its pipe read, and follows; the
 * others: stuck, since every runner is blocked, with no holder, naming
 * both.  --wait-first-sleep: the second runner sleeps in time.sleep (a
 * timer): FIRST_COMPLETED is not said to be stuck, no claim, no lock
 * verdict.  Ground truth: the tids, the pipe and the Futures' id() the
 * workload prints. */

struct fw_truth {
	pid_t m, r[2];
	uint64_t f[2];
	int rfd;
};

static struct lt_snapshot *fw_start(const char *python, const char *mode, struct fw_truth *w)
{
	tl_skip_unless_root("needs root: another process's /proc files and memory");
	if (access(python, X_OK) != 0)
		cr_skip_test("%s is not installed on this machine", python);
	char *argv[] = { (char *)python, "tests/workloads/py_futures.py", (char *)mode, NULL };
	tl_start_ready(&wl, argv, truth, &ntruth, 64, 30000);
	w->m = (pid_t)tl_truth_val(truth, ntruth, "thread", "role=main", "tid");
	w->r[0] = (pid_t)tl_truth_val(truth, ntruth, "thread", "role=runner0", "tid");
	w->r[1] = (pid_t)tl_truth_val(truth, ntruth, "thread", "role=runner1", "tid");
	w->f[0] = tl_truth_val(truth, ntruth, "future", "name=f0", "addr");
	w->f[1] = tl_truth_val(truth, ntruth, "future", "name=f1", "addr");
	w->rfd = (int)tl_truth_val(truth, ntruth, "pipe", NULL, "rfd");
	cr_assert(w->m == wl.pid && w->r[0] > 0 && w->r[1] > 0 && w->r[0] != w->r[1] && w->f[0] && w->f[1] &&
		  w->rfd > 0);
	watcher_gone(python);
	struct lt_snapshot *s = NULL;
	cr_assert_eq(lt_snapshot_take(wl.pid, NULL, &s), 0);
	for (size_t i = 0; i < s->notes.n; i++)
		fprintf(stderr, "%s: note: %s\n", python, s->notes.v[i]);
	return s;
}

/* The main thread's wait: a lock of KIND whose wait_call is CALL, named
 * by both futures. */
static const struct lt_rtlock *fw_lock(const struct lt_snapshot *s, const char *python, const struct fw_truth *w,
				       const char *kind, const char *call, int nread)
{
	const struct lt_thread *t = lt_snapshot_find(s, w->m);
	cr_assert_not_null(t, "%s", python);
	const struct lt_futex *f = &t->futex;
	cr_assert_str_eq(f->lock_kind ? f->lock_kind : "-", kind, "%s: %s", python, f->lock_state ? f->lock_state : "-");
	cr_assert(f->rtlock && f->rtlock <= s->n_rtlocks, "%s", python);
	const struct lt_rtlock *l = &s->rtlocks[f->rtlock - 1];
	cr_assert_str_eq(l->wait_call ? l->wait_call : "-", call, "%s", python);
	cr_assert(lt_done_kind_of(l->kind) && lt_done_kind_of(l->kind)->inferred, "%s", python);
	char a[64], b[64];
	snprintf(a, sizeof(a), "0x%" PRIx64, w->f[0]);
	snprintf(b, sizeof(b), "0x%" PRIx64, w->f[1]);
	cr_assert(l->name && !strncmp(l->name, "2 futures (concurrent.futures.Future at ", 40) && strstr(l->name, a) &&
		  strstr(l->name, b), "%s: %s", python, l->name ? l->name : "-");
	/* each future, with its runner and what it does (the first NREAD read) */
	for (int k = 0; k < nread; k++) {
		char want[200];
		snprintf(want, sizeof(want), "concurrent.futures.Future at 0x%" PRIx64 " (RUNNING): run by thread %d "
			 "(ThreadPoolExecutor-0_%d), blocked in read(fd %d: pipe)", w->f[k], (int)w->r[k], k, w->rfd);
		cr_assert(l->holder_how && strstr(l->holder_how, want), "%s: no '%s' in %s", python, want,
			  l->holder_how ? l->holder_how : "-");
	}
	return l;
}

static const struct lt_verdict *fw_verdict(const struct lt_snapshot *s, pid_t tid)
{
	for (size_t i = 0; i < s->n_verdicts; i++)
		if (has_tid(&s->verdicts[i], tid) && (s->verdicts[i].kind == LT_VERDICT_LOCK_WAIT ||
						      s->verdicts[i].kind == LT_VERDICT_DEADLOCK))
			return &s->verdicts[i];
	return NULL;
}

static void fw_all(const char *python)
{
	struct fw_truth w;
	struct lt_snapshot *s = fw_start(python, "--wait-all", &w);
	const struct lt_rtlock *l = fw_lock(s, python, &w, "concurrent.futures wait (all)",
					    "concurrent.futures.wait() (ALL_COMPLETED)", 2);
	/* both runners are blocked: either one keeps the wait */
	int k = l->holder == w.r[0] ? 0 : 1;
	cr_assert_eq(l->holder, w.r[k], "%s: holder %d, want %d or %d", python, (int)l->holder, (int)w.r[0],
		     (int)w.r[1]);
	const struct lt_thread *t = lt_snapshot_find(s, w.m);
	cr_assert_eq(t->futex.owner, w.r[k], "%s", python);
	cr_assert_eq(t->futex.owner_kind, LT_OWNER_RUNTIME, "%s", python);
	fut_no_ok(s, python);
	const struct lt_verdict *v = fw_verdict(s, w.m);
	cr_assert_not_null(v, "%s: no lock verdict for the main thread %d", python, (int)w.m);
	cr_assert_eq(v->kind, LT_VERDICT_LOCK_WAIT, "%s: %s", python, v->summary);
	cr_assert_eq(v->owner, w.r[k], "%s: %s", python, v->summary);
	char want[600];
	snprintf(want, sizeof(want), "1 thread waits in concurrent.futures.wait() (ALL_COMPLETED) for %s, one of them "
		 "run by thread %d (ThreadPoolExecutor-0_%d), which has been blocked in read(fd %d: pipe) for ",
		 l->name, (int)w.r[k], k, w.rfd);
	cr_assert(strstr(v->summary, want), "%s: %s\nwant: %s", python, v->summary, want);
	cr_assert(strstr(v->summary, ": the wait ends when every one of them ends (or on a set_result(), "
			 "set_exception() or cancel() on its futures from another thread)"), "%s: %s", python,
		  v->summary);
	/* and follows the runner's pipe */
	snprintf(want, sizeof(want), "owner %d waits for: pipe pipe:[", (int)w.r[k]);
	cr_assert(fut_evidence(v, want), "%s: no evidence '%s': %s", python, want, v->summary);
	snprintf(want, sizeof(want), "(fd %d): write end held by process %d", w.rfd, (int)wl.pid);
	cr_assert(fut_evidence(v, want), "%s: no evidence '%s': %s", python, want, v->summary);
	lt_snapshot_free(s);
}

static void fw_any(const char *python, const char *mode, const char *call)
{
	struct fw_truth w;
	struct lt_snapshot *s = fw_start(python, mode, &w);
	const struct lt_rtlock *l = fw_lock(s, python, &w, "concurrent.futures wait (any)", call, 2);
	cr_assert(l->holderless && l->holder == 0, "%s: holder %d", python, (int)l->holder);
	const struct lt_thread *t = lt_snapshot_find(s, w.m);
	cr_assert_eq(t->futex.owner, 0, "%s", python);
	cr_assert_eq(t->futex.owner_kind, LT_OWNER_NONE, "%s", python);
	fut_no_ok(s, python);
	const struct lt_verdict *v = fw_verdict(s, w.m);
	cr_assert_not_null(v, "%s: no lock verdict for the main thread %d", python, (int)w.m);
	cr_assert_eq(v->kind, LT_VERDICT_LOCK_WAIT, "%s: %s", python, v->summary);
	cr_assert_eq(v->owner, 0, "%s: %s", python, v->summary);
	cr_assert_eq(v->n_tids, 1, "%s: %s", python, v->summary);
	char want[600];
	snprintf(want, sizeof(want), "1 thread waits in %s for %s: ", call, l->name);
	cr_assert(!strncmp(v->summary, want, strlen(want)), "%s: %s\nwant: %s", python, v->summary, want);
	for (int k = 0; k < 2; k++) {
		snprintf(want, sizeof(want), "run by thread %d (ThreadPoolExecutor-0_%d), blocked in read(fd %d: pipe)",
			 (int)w.r[k], k, w.rfd);
		cr_assert(strstr(v->summary, want), "%s: %s\nwant: %s", python, v->summary, want);
	}
	cr_assert(strstr(v->summary, "every one of them is run by a thread that is blocked, in a call with no "
			 "timeout, and any one's end would end the wait: stuck until one of those threads goes on "
			 "(inferred: "), "%s: %s", python, v->summary);
	lt_snapshot_free(s);
}

/* One runner blocked, the other asleep on a timer: FIRST_COMPLETED ends
 * when the sleep does: not stuck, no claim, no lock verdict; its state
 * says why. */
static void fw_sleep(const char *python)
{
	struct fw_truth w;
	struct lt_snapshot *s = fw_start(python, "--wait-first-sleep", &w);
	const struct lt_thread *t = lt_snapshot_find(s, w.m);
	cr_assert_not_null(t);
	const struct lt_futex *f = &t->futex;
	cr_assert_str_eq(f->lock_kind ? f->lock_kind : "-", "threading.Condition", "%s: %s", python,
			 f->lock_state ? f->lock_state : "-");
	cr_assert_eq(f->rtlock, 0, "%s", python);
	cr_assert_eq(f->owner, 0, "%s", python);
	char want[400];
	snprintf(want, sizeof(want), "concurrent.futures.Future at 0x%" PRIx64 " (RUNNING): run by thread %d "
		 "(ThreadPoolExecutor-0_0), blocked in read(fd %d: pipe)", w.f[0], (int)w.r[0], w.rfd);
	cr_assert(f->lock_state && strstr(f->lock_state, want), "%s: %s", python, f->lock_state ? f->lock_state : "-");
	snprintf(want, sizeof(want), "concurrent.futures.Future at 0x%" PRIx64 " (RUNNING): run by thread %d "
		 "(ThreadPoolExecutor-0_1), on a timer in ", w.f[1], (int)w.r[1]);
	cr_assert(strstr(f->lock_state, want), "%s: %s", python, f->lock_state);
	cr_assert(strstr(f->lock_state, "any one's end ends the wait, and not every one of them is run by a blocked "
			 "thread (1 by a thread not blocked or on a timer, 0 queued, 0 whose runner is not known): "
			 "not said to be stuck"), "%s: %s", python, f->lock_state);
	const struct lt_verdict *v = fw_verdict(s, w.m);
	cr_assert_null(v, "%s: %s", python, v ? v->summary : "");
	lt_snapshot_free(s);
}

/* --wait-all-cycle: main holds RLock rl in wait() (ALL_COMPLETED); f1's
 * runner waits for rl, f0's reads the pipe.  Both are blocked, but the
 * one waiting for the waiter's lock holds the wait: a probable deadlock
 * through it, the inference said as "cannot go on before", not "alone"
 * (f0's end is needed too). */
static void fw_cycle(const char *python)
{
	struct fw_truth w;
	struct lt_snapshot *s = fw_start(python, "--wait-all-cycle", &w);
	uint64_t rl = tl_truth_val(truth, ntruth, "lock", "name=rl", "addr");
	const struct lt_rtlock *l = fw_lock(s, python, &w, "concurrent.futures wait (all)",
					    "concurrent.futures.wait() (ALL_COMPLETED)", 1);
	cr_assert_eq(l->holder, w.r[1], "%s: holder %d, want %d (the one in the cycle)", python, (int)l->holder,
		     (int)w.r[1]);
	const struct lt_thread *tr = lt_snapshot_find(s, w.r[1]);
	cr_assert_not_null(tr);
	cr_assert_str_eq(tr->futex.lock_kind ? tr->futex.lock_kind : "-", "threading.RLock", "%s", python);
	cr_assert_eq(tr->futex.lock_base, rl, "%s", python);
	cr_assert_eq(tr->futex.owner, w.m, "%s: the RLock's owner is main", python);
	const struct lt_verdict *d = NULL;
	for (size_t i = 0; i < s->n_verdicts; i++)
		if (s->verdicts[i].kind == LT_VERDICT_DEADLOCK)
			d = &s->verdicts[i];
	cr_assert_not_null(d, "%s: no deadlock verdict", python);
	cr_assert(d->n_tids == 2 && has_tid(d, w.m) && has_tid(d, w.r[1]), "%s: %s", python, d->summary);
	char want[600];
	snprintf(want, sizeof(want), "probable deadlock: 2 threads wait for each other: %d (MainThread) -> %d "
		 "(ThreadPoolExecutor-0_1) -> %d; inferred: that thread %d (MainThread), in concurrent.futures.wait() "
		 "(ALL_COMPLETED), cannot go on before thread %d ends its task (a set_result(), set_exception() or "
		 "cancel() on its futures from another thread would end its wait too)", (int)w.m, (int)w.r[1],
		 (int)w.m, (int)w.m, (int)w.r[1]);
	cr_assert(strstr(d->summary, want), "%s: %s\nwant: %s", python, d->summary, want);
	snprintf(want, sizeof(want), "thread %d (MainThread) waits in concurrent.futures.wait() (ALL_COMPLETED) for "
		 "%s, one of them run by thread %d (ThreadPoolExecutor-0_1)", (int)w.m, l->name, (int)w.r[1]);
	cr_assert(fut_evidence(d, want), "%s: no evidence '%s'", python, want);
	snprintf(want, sizeof(want), "inferred: that the wait of thread %d cannot end before thread %d ends its task",
		 (int)w.m, (int)w.r[1]);
	cr_assert(fut_evidence(d, want), "%s: no evidence '%s'", python, want);
	lt_snapshot_free(s);
}

#define FW_TESTS(name, py)                                                                                         \
	Test(pylock_live, futures_wait_all_##name, .fini = cleanup, .timeout = 60) { fw_all(py); }                 \
	Test(pylock_live, futures_wait_first_##name, .fini = cleanup, .timeout = 60)                               \
	{                                                                                                          \
		fw_any(py, "--wait-first", "concurrent.futures.wait() (FIRST_COMPLETED)");                        \
	}                                                                                                          \
	Test(pylock_live, futures_as_completed_##name, .fini = cleanup, .timeout = 60)                             \
	{                                                                                                          \
		fw_any(py, "--as-completed", "concurrent.futures.as_completed()");                                \
	}                                                                                                          \
	Test(pylock_live, futures_wait_first_sleep_##name, .fini = cleanup, .timeout = 60) { fw_sleep(py); }       \
	Test(pylock_live, futures_wait_all_cycle_##name, .fini = cleanup, .timeout = 60) { fw_cycle(py); }

FW_TESTS(debian_python3, TL_PYTHON)
FW_TESTS(pyenv_3_8, PYENV("3.8.18"))
FW_TESTS(pyenv_3_9, PYENV("3.9.18"))
FW_TESTS(pyenv_3_10, PYENV("3.10.13"))
FW_TESTS(pyenv_3_11, PYENV("3.11.7"))
FW_TESTS(pyenv_3_12, PYENV("3.12.1"))
FW_TESTS(pyenv_3_13, PYENV("3.13.0"))

/* The same --wait-all-cycle recorded (Debian's python3): the report's
 * deadlock finding is probable, and says that main cannot go on before the
 * runner in the cycle ends its task (not that it waits for it alone). */
Test(pylock_live, recorded_futures_wait_all_cycle_is_a_probable_deadlock, .fini = cleanup, .timeout = 120)
{
	recorded_py_cycle("--wait-all-cycle", "runner1",
			  "; inferred: that thread %d (MainThread), in concurrent.futures.wait(), cannot go on before "
			  "the task's runner ends it (a set_result(), set_exception() or cancel() on its futures from "
			  "another thread would end it too)");
}
