/* Locks copied locked by fork() (issue 25, item 1), against live
 * workloads: tests/workloads/fork_locked (a private pthread mutex) and
 * tests/workloads/py_fork_rlock.py (a threading.RLock, Debian's python3).
 * The child's lock is held by a thread of the parent, which does not exist
 * in the child: the verdict says so, names the parent and the thread the
 * workload printed, and never takes the parent's copy for the child's
 * lock (snapshot -p PARENT,CHILD).  Needs root. */
#include <criterion/criterion.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "snapshot.h"
#include "lt_test.h"
#include "report_int.h"

TL_WORKLOAD(64);

static void cleanup(void)
{
	tl_close_started(&wl);
}

static void start(const char *extra)
{
	tl_skip_unless_root("needs root: another process's /proc files and memory");
	char path[] = WL("fork_locked");
	if (access(path, X_OK) != 0)
		cr_skip_test("%s not built: run make all first", path);
	char *argv[4] = { path, (char *)extra, NULL };
	tl_start_ready(&wl, argv, truth, &ntruth, 64, 30000);
}

static uint64_t tv(const char *type, const char *match, const char *key)
{
	return tl_truth_val(truth, ntruth, type, match, key);
}

static struct lt_snapshot *snap(pid_t pid)
{
	struct lt_snapshot_opts o = { .flags = LT_SNAP_NO_LINES };
	struct lt_snapshot *s = NULL;
	int r = lt_snapshot_take(pid, &o, &s);
	cr_assert_eq(r, 0, "lt_snapshot_take(%d): %s", (int)pid, lt_snapshot_strerror(r));
	return s;
}

/* The verdicts of S whose waiters include TID. */
static const struct lt_verdict *verdict_of(const struct lt_snapshot *s, pid_t tid, size_t *n)
{
	const struct lt_verdict *v = NULL;
	*n = 0;
	for (size_t i = 0; i < s->n_verdicts; i++)
		for (size_t k = 0; k < s->verdicts[i].n_tids; k++)
			if (s->verdicts[i].tids[k] == tid && !(*n)++)
				v = &s->verdicts[i];
	return v;
}

/* The child's one verdict: its wait, on a lock held by no thread of its
 * process, that the parent's HOLDER held when it forked. */
static void assert_forked(const struct lt_verdict *v, size_t n, pid_t child, pid_t parent, pid_t holder)
{
	char want[160];
	cr_assert_eq(n, 1, "the child's wait must be in one verdict, got %zu", n);
	cr_assert_eq(v->kind, LT_VERDICT_LOCK_WAIT, "kind %d: %s", v->kind, v->summary);
	cr_assert_eq(v->n_tids, 1, "only the child waits on its copy: %s", v->summary);
	cr_assert_eq(v->tids[0], child);
	cr_assert_eq(v->owner, 0, "no thread of the child holds it, yet owner %d: %s", (int)v->owner, v->summary);
	cr_assert(strstr(v->summary, "held by a thread that does not exist in this process"), "%s", v->summary);
	snprintf(want, sizeof(want), "it was locked when the process was forked from %d (its owner %d", (int)parent,
		 (int)holder);
	cr_assert(strstr(v->summary, want), "want '%s' in: %s", want, v->summary);
}

Test(forklock_live, child_of_a_locked_private_mutex, .fini = cleanup, .timeout = 60)
{
	start(NULL);
	pid_t parent = wl.pid, child = (pid_t)tv("child", NULL, "pid");
	pid_t holder = (pid_t)tv("thread", "role=holder", "tid");
	uint64_t addr = tv("lock", "name=M", "addr");
	cr_assert(child > 0 && holder > 0 && addr);
	struct lt_snapshot *s = snap(child);
	const struct lt_thread *t = lt_snapshot_find(s, child);
	cr_assert_not_null(t);
	cr_assert_eq(t->futex.uaddr, addr);
	cr_assert(t->futex.owner_gone);
	cr_assert_eq(t->futex.gone_tid, holder);
	cr_assert_eq(t->futex.gone_parent, parent);
	cr_assert_eq(t->futex.owner_tgid, 0, "a private lock is no process-shared one");
	size_t n;
	const struct lt_verdict *v = verdict_of(s, child, &n);
	assert_forked(v, n, child, parent, holder);
	cr_assert_null(strstr(v->summary, "another process"), "%s", v->summary);

	/* the JSON says the same */
	char *buf = NULL;
	size_t len = 0;
	FILE *f = open_memstream(&buf, &len);
	cr_assert_eq(lt_snapshot_print_json(f, s), 0);
	fclose(f);
	struct rp_json *j = tl_json_of(buf, len);
	cr_assert_not_null(j, "snapshot JSON does not parse");
	const struct rp_json *th = rp_json_get(j, "threads");
	cr_assert(th && th->type == RPJ_ARR && th->n == 1);
	const struct rp_json *og = rp_json_get(rp_json_get(&th->items[0], "futex"), "owner_gone");
	cr_assert(og && og->type == RPJ_OBJ, "no futex.owner_gone in the JSON");
	cr_assert_eq(rp_json_int(rp_json_get(og, "tid"), 0), holder);
	cr_assert_eq(rp_json_int(rp_json_get(og, "forked_from"), 0), parent);
	rp_json_free(j);
	free(buf);
	lt_snapshot_free(s);
}

/* -p PARENT,CHILD: the two copies of M stay two locks; the parent's waiter
 * is blocked by the parent's holder, the child's by nobody in the child. */
Test(forklock_live, parent_and_child_copies_stay_apart, .fini = cleanup, .timeout = 60)
{
	start("--parent-waits");
	pid_t parent = wl.pid, child = (pid_t)tv("child", NULL, "pid");
	pid_t holder = (pid_t)tv("thread", "role=holder", "tid");
	pid_t waiter = (pid_t)tv("thread", "role=waiter", "tid");
	cr_assert(child > 0 && holder > 0 && waiter > 0);
	struct lt_snapshot **s = calloc(2, sizeof(*s));
	cr_assert_not_null(s);
	s[0] = snap(parent);
	s[1] = snap(child);
	struct lt_multi_snapshot *m = NULL;
	cr_assert_eq(lt_multi_build(s, 2, NULL, &m), 0);
	cr_assert_eq(lt_multi_confirm(m), 0);
	size_t n;
	const struct lt_verdict *v = verdict_of(&m->view, child, &n);
	assert_forked(v, n, child, parent, holder);
	const struct lt_verdict *p = verdict_of(&m->view, waiter, &n);
	cr_assert_eq(n, 1);
	cr_assert_eq(p->kind, LT_VERDICT_LOCK_WAIT, "%s", p->summary);
	cr_assert_eq(p->n_tids, 1, "the parent's M is not the child's: %s", p->summary);
	cr_assert_eq(p->tids[0], waiter);
	cr_assert_eq(p->owner, holder, "%s", p->summary);
	for (size_t i = 0; i < m->view.n_verdicts; i++)
		cr_assert(m->view.verdicts[i].kind != LT_VERDICT_DEADLOCK, "no cycle here: %s",
			  m->view.verdicts[i].summary);
	lt_multi_free(m);
}

/* A threading.RLock: CPython records its owner's pthread_t, which the
 * child's glibc no longer knows as a thread; the parent's thread sleeps
 * with its stack pointer in that pthread's stack. */
Test(forklock_live, child_of_a_locked_python_rlock, .fini = cleanup, .timeout = 60)
{
	char *extra[] = { NULL };
	tl_start_python(&wl, "tests/workloads/py_fork_rlock.py", extra, truth, &ntruth,
			"another process's /proc files and memory");
	pid_t parent = wl.pid, child = (pid_t)tv("child", NULL, "pid");
	pid_t holder = (pid_t)tv("thread", "role=holder", "tid");
	cr_assert(child > 0 && holder > 0);
	struct lt_snapshot *s = snap(child);
	const struct lt_thread *t = lt_snapshot_find(s, child);
	cr_assert_not_null(t);
	cr_assert_str_eq(t->futex.lock_kind ? t->futex.lock_kind : "", "threading.RLock");
	cr_assert(t->futex.owner_gone);
	cr_assert_eq(t->futex.gone_parent, parent);
	cr_assert_eq(t->futex.gone_tid, holder);
	size_t n;
	const struct lt_verdict *v = verdict_of(s, child, &n);
	assert_forked(v, n, child, parent, holder);
	cr_assert_null(strstr(v->summary, "no owner recorded"), "%s", v->summary);
	lt_snapshot_free(s);
}

/* locktrace record -p PARENT,CHILD, then report: the child's copy of M is
 * held by a thread that does not exist in the child, forked from the
 * parent; the parent's M is not "part of the same object"; nothing calls
 * the mutex an idle pool's condition variable. */
Test(forklock_live, report_of_parent_and_child, .fini = cleanup, .timeout = 180)
{
	start("--parent-waits");
	pid_t parent = wl.pid, child = (pid_t)tv("child", NULL, "pid");
	pid_t holder = (pid_t)tv("thread", "role=holder", "tid");
	char path[128], list[64];
	tl_tmp_path(path, sizeof(path), "forklock");
	sleep(3); /* the waits are older than the report's stall threshold (2 s) */
	snprintf(list, sizeof(list), "%d,%d", (int)parent, (int)child);
	char *argv[] = { LT_BIN, "record", "--no-status", "--duration", "1", "-o", path, "-p", list, NULL };
	cr_assert_eq(tl_run_to_end(argv, NULL, NULL, NULL, NULL), 0, "locktrace record failed");
	struct rp_json *j = tl_report_json(path);
	const struct rp_json *fs = rp_json_get(j, "findings");
	cr_assert(fs && fs->type == RPJ_ARR);
	char want[160];
	snprintf(want, sizeof(want), "held by a thread that does not exist in this process: it was locked when "
		 "the process was forked from %d (its owner %d", (int)parent, (int)holder);
	int forked = 0;
	for (size_t i = 0; i < fs->n; i++) {
		const char *sm = rp_json_str(rp_json_get(&fs->items[i], "summary"));
		forked += sm && strstr(sm, want) != NULL;
		if (sm && !strstr(sm, want))
			fprintf(stderr, "forklock_live: finding: %s\n", sm);
		const struct rp_json *ev = rp_json_get(&fs->items[i], "evidence");
		for (size_t k = 0; ev && ev->type == RPJ_ARR && k < ev->n; k++) {
			const char *e = rp_json_str(&ev->items[k]);
			cr_assert(!e || !strstr(e, "part of the same object"), "two processes' copies joined: %s", e);
			cr_assert(!e || !strstr(e, "idle pool"), "a mutex is no idle pool's condvar: %s", e);
		}
	}
	cr_assert_eq(forked, 1, "no finding says '%s'", want);
	rp_json_free(j);
	unlink(path);
}
