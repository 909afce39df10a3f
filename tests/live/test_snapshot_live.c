/* Integration tests of the snapshot library against live processes: the
 * bundled workloads (tests/workloads, built by `make all`) and a
 * 1,000-thread child.  Each test reads the workload's ground truth (tids,
 * lock addresses), takes a snapshot and asserts exact facts.  The workload
 * is killed at the end of every test, also when an assertion fails (.fini).
 * Needs root (kernel stacks, and the same view of /proc as the recorder). */
#include <criterion/criterion.h>
#include <errno.h>
#include <pthread.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "snapshot.h"
#include "lt_test.h"

#define NEED_ROOT() \
	tl_skip_unless_root("needs root: kernel stacks and other users' /proc files; run make test as root")

TL_WORKLOAD(1200);
static pid_t child; /* the 1,000-thread child, if any */

static void cleanup(void)
{
	tl_close(&wl);
	if (child > 0) {
		kill(child, SIGKILL);
		waitpid(child, NULL, 0);
		child = 0;
	}
}

/* Starts build/workloads/NAME and reads its lines up to "ready". */
/* Starts workload NAME (EXTRA: more arguments) up to its ready line;
 * skips the test unless root or if NAME is not built. */
static void start(const char *name, char *const extra[])
{
	NEED_ROOT();
	char path[256];
	snprintf(path, sizeof(path), WL("%s"), name);
	if (access(path, X_OK) != 0)
		cr_skip_test("%s not built: run make all first", path);
	char *argv[16] = { path };
	int n = 1;
	for (int i = 0; extra && extra[i] && n < 15; i++)
		argv[n++] = extra[i];
	argv[n] = NULL;
	tl_start_ready(&wl, argv, truth, &ntruth, 1200, 30000);
}

static uint64_t truth_val(const char *type, const char *match, const char *key)
{
	return tl_truth_val(truth, ntruth, type, match, key);
}

static struct lt_snapshot *snap(pid_t pid, const struct lt_snapshot_opts *o)
{
	struct lt_snapshot *s = NULL;
	int r = lt_snapshot_take(pid, o, &s);
	cr_assert_eq(r, 0, "lt_snapshot_take(%d): %s", (int)pid, lt_snapshot_strerror(r));
	cr_assert_not_null(s);
	return s;
}

static const struct lt_verdict *verdict(const struct lt_snapshot *s, enum lt_verdict_kind k, size_t *count)
{
	const struct lt_verdict *v = NULL;
	size_t n = 0;
	for (size_t i = 0; i < s->n_verdicts; i++)
		if (s->verdicts[i].kind == k) {
			if (!v)
				v = &s->verdicts[i];
			n++;
		}
	if (count)
		*count = n;
	return v;
}

static int frame_index(const struct lt_thread *t, const char *func)
{
	for (size_t i = 0; i < t->n_frames; i++)
		if (t->frames[i].func && strcmp(t->frames[i].func, func) == 0)
			return (int)i;
	return -1;
}

/* The user stack has a libc frame above (inner to) the workload function. */
static void assert_stack(const struct lt_thread *t, const char *func)
{
	int fi = frame_index(t, func);
	cr_assert_geq(fi, 1, "thread %d: no frame '%s' below libc (%zu frames, end %s)", (int)t->tid,
		      func, t->n_frames, t->ustack_end ? t->ustack_end : "-");
	bool libc = false;
	for (int i = 0; i < fi; i++)
		if (t->frames[i].module && strncmp(t->frames[i].module, "libc.so", 7) == 0)
			libc = true;
	cr_assert(libc, "thread %d: no libc frame above %s", (int)t->tid, func);
	cr_assert_str_neq(t->frames[fi].module ? t->frames[fi].module : "", "libc.so.6");
}

/* The target was neither traced nor stopped, and still lives. */
static void assert_untouched(pid_t pid)
{
	char path[64], buf[4096];
	snprintf(path, sizeof(path), "/proc/%d/status", (int)pid);
	FILE *f = fopen(path, "r");
	cr_assert_not_null(f, "target %d is gone", (int)pid);
	size_t n = fread(buf, 1, sizeof(buf) - 1, f);
	fclose(f);
	buf[n] = 0;
	const char *tp = strstr(buf, "\nTracerPid:");
	cr_assert_not_null(tp);
	cr_assert_eq(atoi(tp + 11), 0, "TracerPid is not 0");
	const char *st = strstr(buf, "\nState:");
	cr_assert_not_null(st);
	char state = st[7 + strspn(st + 7, " \t")];
	cr_assert(state != 'T' && state != 't' && state != 'Z', "target state %c", state);
	cr_assert_eq(waitpid(pid, NULL, WNOHANG), 0, "target exited");
}

/* ---- timing ---- */

/* A snapshot's wall and CPU time depend on the machine and its load (other
 * builds and tests share these CPUs): they are logged here and measured
 * by scripts/bench.sh (BENCHMARKS.md, "Snapshot of a 1,000-thread
 * process"); a hang is caught by the test's timeout. */
struct stopwatch {
	struct timespec wall, cpu;
};

static void sw_start(struct stopwatch *w)
{
	clock_gettime(CLOCK_MONOTONIC, &w->wall);
	clock_gettime(CLOCK_THREAD_CPUTIME_ID, &w->cpu);
}

static double ts_diff(const struct timespec *a, const struct timespec *b)
{
	return (double)(b->tv_sec - a->tv_sec) + (double)(b->tv_nsec - a->tv_nsec) / 1e9;
}

static void sw_check(const struct stopwatch *w, const char *what)
{
	struct timespec wall, cpu;
	clock_gettime(CLOCK_MONOTONIC, &wall);
	clock_gettime(CLOCK_THREAD_CPUTIME_ID, &cpu);
	double dw = ts_diff(&w->wall, &wall), dc = ts_diff(&w->cpu, &cpu);
	double load = 0;
	FILE *f = fopen("/proc/loadavg", "r");
	if (f) {
		if (fscanf(f, "%lf", &load) != 1)
			load = 0;
		fclose(f);
	}
	long ncpu = sysconf(_SC_NPROCESSORS_ONLN);
	cr_log_info("%s: %.3f s wall, %.3f s CPU (load %.1f on %ld CPUs)", what, dw, dc, load, ncpu);
}

Test(snapshot_live, deadlock_cycle_has_exactly_the_two_threads, .fini = cleanup, .timeout = 60)
{
	start("deadlock", NULL);
	pid_t ta = (pid_t)truth_val("thread", "role=A", "tid");
	pid_t tb = (pid_t)truth_val("thread", "role=B", "tid");
	uint64_t l1 = truth_val("lock", "name=L1", "addr");
	uint64_t l2 = truth_val("lock", "name=L2", "addr");

	struct lt_snapshot *s = snap(wl.pid, NULL);
	size_t nd;
	const struct lt_verdict *v = verdict(s, LT_VERDICT_DEADLOCK, &nd);
	cr_assert_eq(nd, 1, "expected one deadlock, got %zu", nd);
	cr_assert_eq(v->n_tids, 2);
	cr_assert_eq(v->n_locks, 2);
	for (size_t i = 0; i < 2; i++) {
		cr_assert(v->tids[i] == ta || v->tids[i] == tb, "unexpected tid %d", (int)v->tids[i]);
		/* A holds L1 and waits on L2; B the reverse */
		cr_assert_eq(v->locks[i], v->tids[i] == ta ? l2 : l1);
	}
	cr_assert_neq(v->tids[0], v->tids[1]);

	const struct lt_thread *a = lt_snapshot_find(s, ta), *b = lt_snapshot_find(s, tb);
	cr_assert(a && b);
	cr_assert_eq(a->sc.nr, 202);
	cr_assert_eq(a->futex.owner_kind, LT_OWNER_MUTEX);
	cr_assert_eq(a->futex.owner, tb);
	cr_assert_eq(b->futex.owner, ta);
	cr_assert_str_eq(a->futex.lock_sym, "L2");
	cr_assert_str_eq(b->futex.lock_sym, "L1");
	cr_assert_eq(a->idle_src, LT_IDLE_SCHED_EXEC_START);
	cr_assert_eq(a->kstack_status, LT_KSTACK_OK);
	cr_assert_gt(a->kstack.n, 0);
	assert_stack(a, "run");
	assert_stack(b, "run");

	/* the text names both tids and both locks */
	char *txt = TL_PRINTED(NULL, lt_snapshot_print_text, s);
	char want[64];
	snprintf(want, sizeof(want), "%d (", (int)ta);
	cr_assert_not_null(strstr(txt, want));
	cr_assert_not_null(strstr(txt, "waits for pthread mutex L2 ("));
	cr_assert_not_null(strstr(txt, "waits for pthread mutex L1 ("));
	free(txt);

	lt_snapshot_free(s);
	assert_untouched(wl.pid);
}

Test(snapshot_live, lost_wakeup_names_waiter_and_lockword, .fini = cleanup, .timeout = 60)
{
	start("lost_wakeup", NULL);
	pid_t waiter = (pid_t)truth_val("waiter", NULL, "tid");
	uint64_t addr = truth_val("lock", "name=lockword", "addr");
	uint64_t expected = truth_val("lock", "name=lockword", "expected");
	uint64_t current = truth_val("current", NULL, "current");

	/* the waiter went to sleep just before "ready": a short threshold */
	struct lt_snapshot_opts o = { .verdict.lost_wakeup_threshold_s = 0.1 };
	usleep(200000);
	struct lt_snapshot *s = snap(wl.pid, &o);
	size_t n;
	const struct lt_verdict *v = verdict(s, LT_VERDICT_LOST_WAKEUP, &n);
	cr_assert_eq(n, 1);
	cr_assert_eq(v->n_tids, 1);
	cr_assert_eq(v->tids[0], waiter);
	cr_assert_eq(v->locks[0], addr);
	cr_assert_not_null(strstr(v->summary, "lockword"), "%s", v->summary);
	const struct lt_thread *t = lt_snapshot_find(s, waiter);
	cr_assert_eq(t->futex.expected, expected);
	cr_assert_eq(t->futex.word, current);
	cr_assert_eq(t->futex.owner_kind, LT_OWNER_NONE);
	cr_assert_eq(verdict(s, LT_VERDICT_DEADLOCK, NULL), NULL);
	assert_stack(t, "waiter");
	lt_snapshot_free(s);

	/* with the default 1 s threshold the same sleeper is not (yet) flagged
	 * unless it has slept that long */
	s = snap(wl.pid, NULL);
	t = lt_snapshot_find(s, waiter);
	if (t->idle_s < 0.9)
		cr_assert_eq(verdict(s, LT_VERDICT_LOST_WAKEUP, NULL), NULL);
	lt_snapshot_free(s);
	assert_untouched(wl.pid);
}

Test(snapshot_live, convoy_names_owner_in_read, .fini = cleanup, .timeout = 60)
{
	start("convoy", NULL);
	pid_t owner = (pid_t)truth_val("owner", NULL, "tid");
	int fd = (int)truth_val("owner", NULL, "fd");
	uint64_t addr = truth_val("lock", "name=convoy_lock", "addr");
	int waiters = 0;
	for (int i = 0; i < ntruth; i++)
		waiters += strncmp(truth[i], "blocked ", 8) == 0;
	cr_assert_gt(waiters, 0);

	struct lt_snapshot *s = snap(wl.pid, NULL);
	size_t n;
	const struct lt_verdict *v = verdict(s, LT_VERDICT_CONVOY, &n);
	cr_assert_eq(n, 1);
	cr_assert_eq(v->owner, owner);
	cr_assert_eq(v->n_tids, (size_t)waiters);
	cr_assert_eq(v->locks[0], addr);
	char want[64];
	snprintf(want, sizeof(want), "owner %d (", (int)owner);
	cr_assert_not_null(strstr(v->summary, want), "%s", v->summary);
	snprintf(want, sizeof(want), "in read(fd %d: socket)", fd);
	cr_assert_not_null(strstr(v->summary, want), "%s", v->summary);
	cr_assert_not_null(strstr(v->summary, "convoy_lock"), "%s", v->summary);

	const struct lt_thread *o = lt_snapshot_find(s, owner);
	cr_assert_eq(o->wait, LT_WAIT_IO);
	cr_assert_eq(o->sc.nr, 0);
	cr_assert_eq(o->fdw.io.fd, fd);
	cr_assert_eq(o->fdw.io.kind, LT_FD_SOCKET);
	cr_assert_not_null(strstr(o->fdw.io.desc, "unix stream"), "%s", o->fdw.io.desc);
	assert_stack(o, "owner");
	for (size_t i = 0; i < v->n_tids; i++) {
		const struct lt_thread *w = lt_snapshot_find(s, v->tids[i]);
		cr_assert_eq(w->futex.owner, owner);
		assert_stack(w, "waiter");
	}
	lt_snapshot_free(s);
	assert_untouched(wl.pid);
}

Test(snapshot_live, json_has_what_the_timeline_needs, .fini = cleanup, .timeout = 60)
{
	start("deadlock", NULL);
	pid_t ta = (pid_t)truth_val("thread", "role=A", "tid");
	uint64_t l2 = truth_val("lock", "name=L2", "addr");
	struct lt_snapshot *s = snap(wl.pid, NULL);
	char *j;
	size_t len;
	cr_assert_eq(lt_snapshot_to_json_buf(s, &j, &len), 0);
	char want[160];
	snprintf(want, sizeof(want), "{\"tid\":%d,", (int)ta);
	const char *t = strstr(j, want);
	cr_assert_not_null(t);
	snprintf(want, sizeof(want), "\"nr\":202,\"name\":\"futex\",\"args\":[\"0x%llx\",",
		 (unsigned long long)l2);
	cr_assert_not_null(strstr(t, want), "%.600s", t);
	cr_assert_not_null(strstr(t, "\"blocked_s\":"));
	cr_assert_not_null(strstr(j, "\"kind\":\"deadlock\""));
	free(j);
	lt_snapshot_free(s);
}

Test(snapshot_live, idle_server_is_idle, .fini = cleanup, .timeout = 60)
{
	char *extra[] = { "-t", "4", "-d", "60", NULL };
	start("idle", extra);
	int fds[4];
	for (int i = 0; i < 4; i++) {
		char m[32];
		snprintf(m, sizeof(m), "idx=%d ", i);
		fds[i] = (int)truth_val("socket", m, "fd");
	}
	tl_go(&wl);
	/* threads start after the gate: collect their 4 lines */
	for (int i = 0; i < 4; i++)
		cr_assert(tl_wait_for(&wl, 0, "thread", truth, &ntruth, 1200, 10000));
	/* until every idle thread sleeps in select (pselect6) */
	struct lt_snapshot *s = NULL;
	for (int tries = 0; tries < 100; tries++) {
		s = snap(wl.pid, NULL);
		size_t in_select = 0;
		for (size_t i = 0; i < s->n_threads; i++)
			in_select += s->threads[i].sc.nr == 270;
		if (in_select == 4)
			break;
		lt_snapshot_free(s);
		s = NULL;
		usleep(20000);
	}
	cr_assert_not_null(s, "idle threads never all in select");
	size_t n;
	cr_assert_not_null(verdict(s, LT_VERDICT_IDLE, &n), "verdict: %s", s->verdicts[0].summary);
	cr_assert_eq(s->n_verdicts, 1);
	for (int i = 0; i < ntruth; i++) {
		if (strncmp(truth[i], "thread ", 7))
			continue;
		int idx = (int)tl_val(truth[i], "idx", NULL);
		const struct lt_thread *t = lt_snapshot_find(s, (pid_t)tl_val(truth[i], "tid", NULL));
		cr_assert_not_null(t);
		cr_assert_eq(t->wait, LT_WAIT_POLL);
		cr_assert_eq(t->fdw.n_fds, 1);
		cr_assert_eq(t->fdw.fds[0].fd, fds[idx]);
		cr_assert_eq(t->fdw.fds[0].kind, LT_FD_SOCKET);
		cr_assert_eq(t->fdw.fds[0].events, 1); /* read set */
		cr_assert(t->fdw.has_timeout);
		cr_assert_leq(t->fdw.timeout_ms, 5000);
	}
	lt_snapshot_free(s);
	assert_untouched(wl.pid);
}

Test(snapshot_live, many_threads_workload, .fini = cleanup, .timeout = 120)
{
	start("many_threads", NULL);
	int want = (int)truth_val("blocked", NULL, "threads");
	int rfd = (int)truth_val("socket", "role=read", "fd");
	uint64_t gate = truth_val("lock", "name=gate_word ", "addr");
	uint64_t g0 = truth_val("lock", "name=mt_cond.g_signals0", "addr");
	uint64_t g1 = truth_val("lock", "name=mt_cond.g_signals1", "addr");
	struct stopwatch sw;
	sw_start(&sw);
	struct lt_snapshot *s = snap(wl.pid, NULL);
	sw_check(&sw, "many_threads snapshot");
	cr_assert_eq(s->n_threads, (size_t)want + 1);
	int checked = 0;
	for (int i = 0; i < ntruth; i++) {
		if (strncmp(truth[i], "thread ", 7) || strstr(truth[i], "role=main"))
			continue;
		const struct lt_thread *t = lt_snapshot_find(s, (pid_t)tl_val(truth[i], "tid", NULL));
		cr_assert_not_null(t, "%s", truth[i]);
		if (strstr(truth[i], "role=cond")) {
			cr_assert_eq(t->wait, LT_WAIT_FUTEX);
			cr_assert(t->futex.uaddr == g0 || t->futex.uaddr == g1 ||
				  (t->futex.uaddr >= g0 - 40 && t->futex.uaddr < g0 + 48),
				  "cond waiter %d on 0x%llx", (int)t->tid, (unsigned long long)t->futex.uaddr);
		} else if (strstr(truth[i], "role=futex")) {
			cr_assert_eq(t->futex.uaddr, gate);
			cr_assert_str_eq(t->futex.lock_sym, "gate_word");
		} else if (strstr(truth[i], "role=read")) {
			cr_assert_eq(t->sc.nr, 0);
			cr_assert_eq(t->fdw.io.fd, rfd);
			cr_assert_eq(t->fdw.io.kind, LT_FD_SOCKET);
		} else if (strstr(truth[i], "role=sleep")) {
			cr_assert_eq(t->wait, LT_WAIT_SLEEP);
		} else {
			continue;
		}
		cr_assert_geq(frame_index(t, "sleeper"), 1, "thread %d: stack does not reach sleeper()",
			      (int)t->tid);
		checked++;
	}
	cr_assert_eq(checked, want);
	cr_assert_eq(verdict(s, LT_VERDICT_CONVOY, NULL), NULL);
	cr_assert_eq(verdict(s, LT_VERDICT_DEADLOCK, NULL), NULL);
	lt_snapshot_free(s);
	assert_untouched(wl.pid);
}

/* Registers from the caller (the recorder's BPF task iterator): used when
 * they match /proc's sp/pc, refused (with a note) when the thread moved. */
static pid_t cb_tid;
static struct lt_regs cb_regs;
static int regs_cb(void *arg, pid_t tid, struct lt_regs *out)
{
	(void)arg;
	if (tid != cb_tid)
		return -1;
	*out = cb_regs;
	return 0;
}

static void proc_sp_pc(pid_t pid, pid_t tid, uint64_t *sp, uint64_t *pc)
{
	char path[96], buf[512];
	snprintf(path, sizeof(path), "/proc/%d/task/%d/syscall", (int)pid, (int)tid);
	FILE *f = fopen(path, "r");
	cr_assert_not_null(f);
	cr_assert_not_null(fgets(buf, sizeof(buf), f));
	fclose(f);
	struct lt_sc_line l;
	cr_assert_eq(lt_parse_syscall_line(buf, &l), 0);
	*sp = l.sp;
	*pc = l.pc;
}

Test(snapshot_live, caller_registers_used_or_refused_when_stale, .fini = cleanup, .timeout = 60)
{
	start("deadlock", NULL);
	pid_t ta = (pid_t)truth_val("thread", "role=A", "tid");
	pid_t tb = (pid_t)truth_val("thread", "role=B", "tid");
	struct lt_tid_regs stale = { .tid = tb };
	uint64_t sp, pc;
	proc_sp_pc(wl.pid, ta, &sp, &pc);
	cb_tid = ta;
	memset(&cb_regs, 0, sizeof(cb_regs));
	cb_regs.sp = sp;
	cb_regs.ip = pc;
	cb_regs.orig_ax = 202;
	proc_sp_pc(wl.pid, tb, &sp, &pc);
	stale.regs.sp = sp + 64; /* as if saved before it moved */
	stale.regs.ip = pc;
	struct lt_snapshot_opts o = { .get_regs = regs_cb, .regs = &stale, .n_regs = 1 };
	struct lt_snapshot *s = snap(wl.pid, &o);
	const struct lt_thread *a = lt_snapshot_find(s, ta), *b = lt_snapshot_find(s, tb);
	cr_assert_eq(a->regs_src, LT_REGS_CALLER);
	assert_stack(a, "run");
	cr_assert_eq(b->regs_src, LT_REGS_PROC);
	bool noted = false;
	for (size_t i = 0; i < b->notes.n; i++)
		noted |= strstr(b->notes.v[i], "caller registers stale") != NULL;
	cr_assert(noted, "no note about the stale registers");
	assert_stack(b, "run");
	cr_assert_not_null(verdict(s, LT_VERDICT_DEADLOCK, NULL));
	lt_snapshot_free(s);
}

/* ---- 1,000 threads ---- */

static pthread_mutex_t big_lock = PTHREAD_MUTEX_INITIALIZER;
static pthread_cond_t big_cv = PTHREAD_COND_INITIALIZER;

static void *parked(void *arg)
{
	long i = (long)arg;
	if (i % 2) {
		pthread_mutex_lock(&big_lock);
		pthread_cond_wait(&big_cv, &big_lock);
	} else {
		pause();
	}
	return NULL;
}

static pid_t spawn_many(int n)
{
	int p[2];
	cr_assert_eq(pipe(p), 0);
	pid_t pid = fork();
	cr_assert_geq(pid, 0);
	if (pid == 0) {
		close(p[0]);
		pthread_attr_t at;
		pthread_attr_init(&at);
		pthread_attr_setstacksize(&at, 64 * 1024);
		for (long i = 0; i < n; i++) {
			pthread_t t;
			if (pthread_create(&t, &at, parked, (void *)i))
				_exit(3);
		}
		usleep(300000); /* let them all reach their wait */
		if (write(p[1], "r", 1) != 1)
			_exit(4);
		for (;;)
			pause();
	}
	close(p[1]);
	char c;
	cr_assert_eq(read(p[0], &c, 1), 1, "thread spawner failed");
	close(p[0]);
	return pid;
}

Test(snapshot_live, thousand_threads_each_stack_reaches_parked, .fini = cleanup, .timeout = 120)
{
	NEED_ROOT();
	child = spawn_many(1000);
	struct stopwatch sw;
	sw_start(&sw);
	struct lt_snapshot *s = snap(child, NULL);
	sw_check(&sw, "1001-thread snapshot");
	cr_assert_eq(s->n_threads, 1001);
	size_t stacks = 0;
	for (size_t i = 0; i < s->n_threads; i++)
		stacks += frame_index(&s->threads[i], "parked") >= 0;
	cr_assert_eq(stacks, 1000, "only %zu of 1000 stacks reach parked()", stacks);
	lt_snapshot_free(s);
	assert_untouched(child);
}

/* ---- errors as values (no root needed) ---- */

Test(snapshot_live, errors_for_missing_and_kernel_threads)
{
	struct lt_snapshot *s = (void *)1;
	cr_assert_eq(lt_snapshot_take(0, NULL, &s), LT_SNAP_ENOPROC);
	cr_assert_null(s);
	cr_assert_eq(lt_snapshot_take(0x3fffffff, NULL, &s), LT_SNAP_ENOPROC);
	/* kthreadd is pid 2 where there is a kernel; containers may hide it */
	char buf[512] = "";
	FILE *f = fopen("/proc/2/stat", "r");
	if (f) {
		size_t n = fread(buf, 1, sizeof(buf) - 1, f);
		buf[n] = 0;
		fclose(f);
	}
	if (strstr(buf, "(kthreadd)"))
		cr_assert_eq(lt_snapshot_take(2, NULL, &s), LT_SNAP_EKTHREAD);
}

Test(snapshot_live, cli_errors, .fini = cleanup, .timeout = 30)
{
	if (access(LT_BIN, X_OK) != 0)
		cr_skip_test("%s not built: run make first", LT_BIN);
	char *argv[] = { LT_BIN, "snapshot", "-p", "1073741823", NULL };
	cr_assert_eq(tl_spawn(&wl, argv), 0);
	char line[256];
	cr_assert_eq(tl_readline(&wl, 1, line, sizeof(line), 10000), 1);
	cr_assert_str_eq(line, "Error: no process 1073741823");
	int st = tl_wait(&wl, 10000);
	cr_assert(WIFEXITED(st) && WEXITSTATUS(st) == 1, "status 0x%x", st);
}

/* Runs argv to its end: its status, stdout's bytes and stderr's lines. */
static int run_all(char *const argv[], size_t *out_bytes, char err[][256], int *nerr, int max)
{
	struct tl_proc p;
	char buf[4096], line[256];
	cr_assert_eq(tl_spawn(&p, argv), 0);
	close(p.in_fd);
	p.in_fd = -1;
	*out_bytes = 0;
	for (ssize_t r; (r = read(p.out_fd, buf, sizeof(buf))) > 0;)
		*out_bytes += (size_t)r;
	while (tl_readline(&p, 1, line, sizeof(line), 10000) > 0)
		if (*nerr < max)
			snprintf(err[(*nerr)++], 256, "%s", line);
	int st = tl_wait(&p, 20000);
	tl_close(&p);
	return st;
}

/* Not allowed to read a process: the error comes first and alone, not
 * after a block of "unavailable" threads; its own process is fine. */
Test(snapshot_live, permission_error_first_and_alone, .fini = cleanup, .timeout = 60)
{
	NEED_ROOT();
	if (access("/usr/bin/setpriv", X_OK))
		cr_skip_test("needs /usr/bin/setpriv (util-linux) to drop privileges");
	start("deadlock", NULL);
	char pid[16];
	snprintf(pid, sizeof(pid), "%d", wl.pid);
	for (int json = 0; json < 2; json++) {
		char *argv[] = { "/usr/bin/setpriv", "--reuid=65534", "--regid=65534", "--clear-groups",
				 LT_BIN, "snapshot", "-p", pid, json ? "--json" : NULL, NULL };
		char err[16][256];
		int nerr = 0;
		size_t out = 0;
		int st = run_all(argv, &out, err, &nerr, 16);
		cr_assert(WIFEXITED(st) && WEXITSTATUS(st) == 1, "status 0x%x", st);
		cr_assert_eq(out, 0, "%zu bytes printed before the error", out);
		cr_assert_eq(nerr, 1, "%d lines on stderr, the first: %s", nerr, nerr ? err[0] : "");
		char want[96];
		snprintf(want, sizeof(want), "Error: not allowed to inspect process %s (owned by uid 0", pid);
		cr_assert(!strncmp(err[0], want, strlen(want)), "%s", err[0]);
	}
	/* a process of its own user it may read (no kernel stacks) */
	tl_close(&wl);
	char *own[] = { "/usr/bin/setpriv", "--reuid=65534", "--regid=65534", "--clear-groups",
			WL("deadlock"), NULL };
	ntruth = 0;
	cr_assert_eq(tl_spawn(&wl, own), 0);
	cr_assert(tl_wait_for(&wl, 0, "ready", truth, &ntruth, 1200, 30000));
	pid_t p2 = (pid_t)tl_val(tl_find(truth, ntruth, "pid", NULL), "pid", NULL);
	snprintf(pid, sizeof(pid), "%d", (int)p2);
	char *argv[] = { "/usr/bin/setpriv", "--reuid=65534", "--regid=65534", "--clear-groups",
			 LT_BIN, "snapshot", "-p", pid, NULL };
	char err[16][256];
	int nerr = 0;
	size_t out = 0;
	int st = run_all(argv, &out, err, &nerr, 16);
	cr_assert(WIFEXITED(st) && WEXITSTATUS(st) == 0, "status 0x%x: %s", st, nerr ? err[0] : "");
	cr_assert_gt(out, 100);
}

/* The seed's stall, snapshot only: 15 workers asleep on the demo's runtime
 * lock (a mutex, a condition variable and a flag: it records no holder)
 * while the thread that took it last is blocked in read() on a socket
 * nobody writes.  None of the waiters has run for seconds, so the snapshot
 * must not call it a convoy; the holder it cannot read is named only as
 * an inference: the one thread not waiting that runs the workers' code. */
Test(snapshot_live, stalled_runtime_lock_with_no_holder_recorded, .fini = cleanup, .timeout = 60)
{
	start("demo", (char *[]){ "-t", "16", "--stall", "io", NULL });
	tl_go(&wl);
	cr_assert(tl_wait_for(&wl, 0, "stall mode=io", truth, &ntruth, 1200, 20000), "demo never stalled");
	pid_t holder = (pid_t)tl_val(truth[ntruth - 1], "holder_tid", NULL);
	int fd = (int)tl_val(truth[ntruth - 1], "fd", NULL);
	cr_assert(tl_wait_for(&wl, 0, "stalled", truth, &ntruth, 1200, 10000));
	cr_assert_eq(tl_val(truth[ntruth - 1], "waiters", NULL), 15);
	usleep(1500 * 1000); /* quiet for over a second */

	struct lt_snapshot *s = snap(wl.pid, NULL);
	const struct lt_verdict *cv = verdict(s, LT_VERDICT_CONVOY, NULL);
	cr_assert_null(cv, "a convoy: %s", cv ? cv->summary : "");
	size_t n;
	const struct lt_verdict *v = verdict(s, LT_VERDICT_LOCK_WAIT, &n);
	cr_assert_eq(n, 1);
	cr_assert_eq(v->n_tids, 15);
	/* the only thread not waiting that runs the workers' code, asleep in
	 * a call: the probable holder, marked as inferred */
	cr_assert_eq(v->owner, holder, "%s", v->summary);
	cr_assert_not_null(v->owner_source);
	cr_assert_not_null(strstr(v->owner_source, "inferred"), "%s", v->owner_source);
	char want[128];
	snprintf(want, sizeof(want), "probably held by thread %d (demo) (inferred from its frames), which "
		 "has been blocked in read(fd %d: socket)", (int)holder, fd);
	cr_assert_not_null(strstr(v->summary, want), "%s", v->summary);
	cr_assert_not_null(strstr(v->summary, "none of them has run for"), "%s", v->summary);
	cr_assert(tl_strlist_has(&v->evidence, "runs the waiters' code (worker)"));
	lt_snapshot_free(s);
}
