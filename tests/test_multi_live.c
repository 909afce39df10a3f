/* Several processes against live workloads: tests/workloads/shared_locks
 * (process-shared mutexes in one memfd, mapped at a different address in
 * each process) is the ground truth.  The workload is killed at the end of
 * every test (its child dies with it: PR_SET_PDEATHSIG).  Needs root. */
#include <criterion/criterion.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "locktrace/cli.h"
#include "locktrace/snapshot.h"
#include "lt_test.h"

#define NEED_ROOT() \
	tl_skip_unless_root("needs root: other processes' /proc files; run make test as root")

TL_WORKLOAD(64);

static void cleanup(void)
{
	tl_close(&wl);
}

static void start(char *const extra[])
{
	char path[] = WL("shared_locks");
	if (access(path, X_OK) != 0)
		cr_skip_test("%s not built: run make all first", path);
	char *argv[8] = { path };
	for (int i = 0; extra && extra[i] && i < 6; i++)
		argv[i + 1] = extra[i];
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

static size_t count_kind(const struct lt_snapshot *s, enum lt_verdict_kind k, const struct lt_verdict **first)
{
	size_t n = 0;
	for (size_t i = 0; i < s->n_verdicts; i++)
		if (s->verdicts[i].kind == k && !n++)
			*first = &s->verdicts[i];
	return n;
}

Test(multi_live, two_process_deadlock_is_one_cycle, .fini = cleanup, .timeout = 60)
{
	NEED_ROOT();
	start(NULL);
	pid_t parent = wl.pid, child = (pid_t)tv("child", NULL, "pid");
	pid_t tp = (pid_t)tv("thread", "role=parent", "tid");
	pid_t tc = (pid_t)tv("thread", "role=child", "tid");
	uint64_t b_parent = tv("lock", "name=B", "parent_addr");
	uint64_t a_child = tv("lock", "name=A", "child_addr");
	cr_assert_neq(tv("lock", "name=A", "parent_addr"), a_child, "the child must map the lock elsewhere");

	struct lt_snapshot **s = calloc(2, sizeof(*s));
	s[0] = snap(parent);
	s[1] = snap(child);
	const struct lt_verdict *v = NULL;
	/* alone, each process sees a lock held by another process, no cycle */
	cr_assert_eq(count_kind(s[0], LT_VERDICT_DEADLOCK, &v), 0);
	cr_assert_eq(count_kind(s[1], LT_VERDICT_DEADLOCK, &v), 0);

	struct lt_multi_snapshot *m = NULL;
	cr_assert_eq(lt_multi_build(s, 2, NULL, &m), 0);
	cr_assert_eq(lt_multi_confirm(m), 0);
	cr_assert_eq(count_kind(&m->view, LT_VERDICT_DEADLOCK, &v), 1, "expected one deadlock");
	cr_assert_eq(m->view.verdicts[0].kind, LT_VERDICT_DEADLOCK, "the deadlock ranks first");
	cr_assert_eq(v->n_tids, 2);
	cr_assert_eq(v->n_locks, 2);
	for (size_t i = 0; i < 2; i++) {
		cr_assert(v->tids[i] == tp || v->tids[i] == tc, "unexpected tid %d", (int)v->tids[i]);
		/* each lock as its waiter's process maps it */
		cr_assert_eq(v->locks[i], v->tids[i] == tp ? b_parent : a_child);
		cr_assert_eq(lt_multi_pid_of(m, v->tids[i]), v->tids[i] == tp ? parent : child);
	}
	const struct lt_thread *a = lt_snapshot_find(&m->view, tp), *b = lt_snapshot_find(&m->view, tc);
	cr_assert(a && b);
	cr_assert_eq(a->futex.owner, tc);
	cr_assert_eq(b->futex.owner, tp);
	/* one object, the offsets the workload printed */
	cr_assert(a->futex.shared_obj && b->futex.shared_obj);
	cr_assert_eq(a->futex.obj_ino, b->futex.obj_ino);
	cr_assert_eq(a->futex.obj_off, tv("lock", "name=B", "offset"));
	cr_assert_eq(b->futex.obj_off, tv("lock", "name=A", "offset"));
	lt_multi_free(m);
}

/* The command line: -p P,C and -p P -p C give the same single verdict. */
Test(multi_live, cli_reports_one_deadlock_with_both_threads, .fini = cleanup, .timeout = 60)
{
	NEED_ROOT();
	start(NULL);
	pid_t child = (pid_t)tv("child", NULL, "pid");
	pid_t tp = (pid_t)tv("thread", "role=parent", "tid");
	pid_t tc = (pid_t)tv("thread", "role=child", "tid");
	const char *forms[2] = { "-p %d,%d", "-p %d -p %d" };
	for (int f = 0; f < 2; f++) {
		char args[64], cmd[256], out[1 << 16];
		snprintf(args, sizeof(args), forms[f], (int)wl.pid, (int)child);
		snprintf(cmd, sizeof(cmd), LT_BIN " snapshot %s --no-lines --no-ustack", args);
		FILE *p = popen(cmd, "r");
		cr_assert_not_null(p);
		size_t n = fread(out, 1, sizeof(out) - 1, p);
		out[n] = 0;
		cr_assert_eq(pclose(p), 0, "%s failed:\n%s", cmd, out);
		const char *d = strstr(out, "\nDEADLOCK: ");
		cr_assert_not_null(d, "no deadlock in:\n%s", out);
		cr_assert_null(strstr(d + 1, "\nDEADLOCK: "), "two deadlocks in:\n%s", out);
		char want[128];
		snprintf(want, sizeof(want), "thread %d of process %d", (int)tp, (int)wl.pid);
		cr_assert_not_null(strstr(out, want), "%s missing in:\n%s", want, out);
		snprintf(want, sizeof(want), "thread %d of process %d", (int)tc, (int)child);
		cr_assert_not_null(strstr(out, want), "%s missing in:\n%s", want, out);
		cr_assert_not_null(strstr(out, "offset 0x40"), "lock B's offset missing:\n%s", out);
	}
}

Test(multi_live, pid_lists_parse_and_refuse)
{
	pid_t *p = NULL;
	size_t n = 0;
	const char *bad = NULL;
	cr_assert_eq(lt_parse_pid_list("12,34", &p, &n, &bad), 0);
	cr_assert_eq(lt_parse_pid_list("34,56", &p, &n, &bad), 0);
	cr_assert_eq(n, 3, "repeats are skipped");
	cr_assert(p[0] == 12 && p[1] == 34 && p[2] == 56);
	cr_assert_eq(lt_parse_pid_list("7,x", &p, &n, &bad), -1);
	cr_assert_str_eq(bad, "x");
	cr_assert_eq(lt_parse_pid_list("7,,8", &p, &n, &bad), -1);
	cr_assert_eq(lt_parse_pid_list("-1", &p, &n, &bad), -1);
	cr_assert_eq(lt_parse_pid_list("", &p, &n, &bad), -1);
	free(p);
}

/* Launch mode follows forks: a program whose children contend with it on
 * a process-shared mutex has every process's futex calls in the trace,
 * and a TASK_NEW naming each child's process. */
Test(multi_live, launch_follows_forks_into_children, .timeout = 90)
{
	NEED_ROOT();
	if (access(WL("shared_locks"), X_OK) != 0)
		cr_skip_test("shared_locks not built: run make all first");
	char path[128];
	tl_tmp_path(path, sizeof(path), "forks");
	char *argv[] = { LT_BIN, "record", "--no-status", "-o", path, "--", WL("shared_locks"),
			 "--mode", "contend", "-P", "3", "-n", "100", "--no-wait", NULL };
	struct tl_proc p;
	char lines[64][256];
	int n = 0;
	cr_assert_eq(tl_spawn(&p, argv), 0);
	cr_assert(tl_wait_for(&p, 0, "done", lines, &n, 64, 60000), "the workload did not finish");
	cr_assert_eq(tl_wait(&p, 20000), 0);
	tl_close(&p);
	pid_t pid = (pid_t)tl_val(tl_find(lines, n, "pid", NULL), "pid", NULL);
	pid_t kids[2] = { (pid_t)tl_val(tl_find(lines, n, "child", "idx=1"), "pid", NULL),
			  (pid_t)tl_val(tl_find(lines, n, "child", "idx=2"), "pid", NULL) };

	struct tl_trace t;
	tl_load_clean(&t, path);
	cr_assert_eq(t.hdr.pid, pid);
	cr_assert_eq(tl_total_lost(&t), 0);
	size_t futex[3] = { 0 }, news[2] = { 0 };
	for (size_t i = 0; i < t.n; i++) {
		const struct lt_event *e = &t.ev[i];
		for (int k = 0; k < 2; k++)
			if (e->h.kind == LT_EV_TASK_NEW && e->h.tid == (uint32_t)kids[k]) {
				cr_assert_eq(e->tnew.tgid, (uint32_t)kids[k], "a child is its own process");
				news[k]++;
			}
		if (e->h.kind != LT_EV_FUTEX_ENTER)
			continue;
		futex[0] += e->h.tid == (uint32_t)pid;
		futex[1] += e->h.tid == (uint32_t)kids[0];
		futex[2] += e->h.tid == (uint32_t)kids[1];
	}
	for (int k = 0; k < 2; k++)
		cr_assert_eq(news[k], 1, "child %d: %zu TASK_NEW events", (int)kids[k], news[k]);
	/* 300 acquisitions of one lock held 200 us each by 3 processes:
	 * every process waits in futex() at some point */
	for (int k = 0; k < 3; k++)
		cr_assert_gt(futex[k], 0, "process %d of 3 has no futex call in the trace", k);
	tl_free(&t);
	unlink(path);
}
