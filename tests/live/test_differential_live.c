/* The differential test, as root: locktrace records a bundled workload
 * with --calls all while an independent reference, bpftrace running
 * tests/differential.bt, counts the same calls of the same run; per thread
 * and per system call, the entries, the returns and the sum of the return
 * values must be equal, exactly.  bpftrace needs tracefs: the test mounts
 * /sys/kernel/tracing if it is not mounted, in a mount namespace of its
 * own, and unmounts what it mounted.  Without root or without bpftrace
 * (scripts/install-deps.sh installs it) each test says why it skips. */
#include <criterion/criterion.h>
#include <errno.h>
#include <sched.h>
#include <signal.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mount.h>
#include <sys/vfs.h>
#include <unistd.h>
#include "locktrace/calls.h"
#include "lt_test.h"

#define BPFTRACE "/usr/bin/bpftrace"
#define TRACEFS "/sys/kernel/tracing"
#define TRACEFS_MAGIC 0x74726163

static int mounted_tracefs;

static void need_root_and_bpftrace(void)
{
	tl_skip_unless_root("needs root (BPF programs): run make test as root");
	if (access(BPFTRACE, X_OK))
		cr_skip_test("needs bpftrace, the reference (Debian package bpftrace): run "
			     "scripts/install-deps.sh");
}

static int is_tracefs(const char *path)
{
	struct statfs st;
	return statfs(path, &st) == 0 && (unsigned long)st.f_type == TRACEFS_MAGIC;
}

/* tracefs at /sys/kernel/tracing for bpftrace, mounted in this test's own
 * mount namespace (private: nothing propagates to the machine's) if the
 * machine has none there. */
static void tracefs_up(void)
{
	if (is_tracefs(TRACEFS))
		return;
	cr_assert_eq(unshare(CLONE_NEWNS), 0, "unshare: %s", strerror(errno));
	cr_assert_eq(mount(NULL, "/", NULL, MS_REC | MS_PRIVATE, NULL), 0, "%s", strerror(errno));
	cr_assert_eq(mount("tracefs", TRACEFS, "tracefs", 0, NULL), 0, "mount tracefs on " TRACEFS ": %s",
		     strerror(errno));
	mounted_tracefs = 1;
}

static void tracefs_down(void)
{
	if (mounted_tracefs && umount2(TRACEFS, 0) == 0)
		mounted_tracefs = 0;
}

/* ---- counts per thread and call ------------------------------------- */

struct cnt {
	uint32_t tid;
	uint32_t nr;
	uint64_t enter, exit;
	int64_t ret;
};

struct tab {
	struct cnt v[512];
	int n;
};

static struct cnt *slot(struct tab *t, uint32_t tid, uint32_t nr)
{
	for (int i = 0; i < t->n; i++)
		if (t->v[i].tid == tid && t->v[i].nr == nr)
			return &t->v[i];
	cr_assert_lt(t->n, 512, "more than 512 thread/call pairs");
	t->v[t->n] = (struct cnt){ .tid = tid, .nr = nr };
	return &t->v[t->n++];
}

static uint16_t enter_nr(const struct lt_event *e)
{
	return e->h.kind == LT_EV_FUTEX_ENTER ? e->futex.nr
	       : e->h.kind == LT_EV_WAIT_ENTER ? e->wait.nr : e->io.nr;
}

/* locktrace's: entries, and returns of calls whose entry it recorded */
static void from_trace(const struct tl_trace *tr, struct tab *t)
{
	for (size_t i = 0; i < tr->n; i++) {
		const struct lt_event *e = &tr->ev[i];
		if (e->h.kind == LT_EV_FUTEX_ENTER || e->h.kind == LT_EV_WAIT_ENTER || e->h.kind == LT_EV_IO_ENTER) {
			slot(t, e->h.tid, enter_nr(e))->enter++;
		} else if (e->h.kind == LT_EV_SYS_EXIT && !(e->h.flags & LT_F_BEGAN_BEFORE)) {
			struct cnt *c = slot(t, e->h.tid, e->exit.nr);
			c->exit++;
			c->ret += e->exit.ret;
		}
	}
}

/* bpftrace's: lines "@enter[TID, NR]: N", "@exit[...]: N", "@ret[...]: S" */
static void from_bpftrace(const char *line, struct tab *t)
{
	char map[16];
	unsigned tid, nr;
	long long v;
	if (sscanf(line, "@%15[a-z][%u, %u]: %lld", map, &tid, &nr, &v) != 4)
		return;
	struct cnt *c = slot(t, tid, nr);
	if (!strcmp(map, "enter"))
		c->enter = (uint64_t)v;
	else if (!strcmp(map, "exit"))
		c->exit = (uint64_t)v;
	else if (!strcmp(map, "ret"))
		c->ret = v;
}

/* Every pair of either table has the same counts in the other. */
static void assert_equal(struct tab *ours, struct tab *ref)
{
	int bad = 0;
	for (int i = 0; i < ref->n; i++) /* pairs only the reference saw */
		slot(ours, ref->v[i].tid, ref->v[i].nr);
	for (int i = 0; i < ours->n; i++) {
		const struct cnt *x = &ours->v[i], *y = slot(ref, x->tid, x->nr);
		if (x->enter == y->enter && x->exit == y->exit && x->ret == y->ret)
			continue;
		bad++;
		fprintf(stderr, "tid %u %s (%u): locktrace %llu calls, %llu returns, sum %lld; bpftrace %llu, "
			"%llu, sum %lld\n", x->tid, lt_call_name(x->nr), x->nr, (unsigned long long)x->enter,
			(unsigned long long)x->exit, (long long)x->ret, (unsigned long long)y->enter,
			(unsigned long long)y->exit, (long long)y->ret);
	}
	cr_assert_eq(bad, 0, "%d thread/call pairs differ (above)", bad);
}

/* ---- one run, watched by both --------------------------------------- */

static void start_reference(struct tl_proc *bt, pid_t pid)
{
	char p[16];
	snprintf(p, sizeof(p), "%d", (int)pid);
	char *argv[] = { BPFTRACE, "-B", "none", "tests/differential.bt", p, NULL };
	cr_assert_eq(tl_spawn(bt, argv), 0);
	cr_assert(tl_wait_for(bt, 0, "ready", NULL, NULL, 0, 30000), "bpftrace did not attach");
}

static void stop_reference(struct tl_proc *bt, struct tab *ref)
{
	char line[256];
	kill(bt->pid, SIGINT); /* bpftrace prints its maps and exits */
	while (tl_readline(bt, 0, line, sizeof(line), 20000) == 1)
		from_bpftrace(line, ref);
	cr_assert_eq(tl_wait(bt, 20000), 0, "bpftrace failed");
	tl_close(bt);
}

static void differential(char *const argv[], int min_pairs)
{
	struct tl_proc wl, rec, bt;
	char truth[64][256], path[128];
	int n = 0;
	static struct tab ours, ref;
	struct tl_trace tr;

	need_root_and_bpftrace();
	tracefs_up();
	tl_tmp_path(path, sizeof(path), "diff");
	tl_start_ready(&wl, argv, truth, &n, 64, 10000);
	cr_assert_eq(tl_start_recorder(&rec, wl.pid, path, NULL), 0, "recorder did not start");
	start_reference(&bt, wl.pid);
	tl_go(&wl);
	cr_assert(tl_wait_for(&wl, 0, "done", truth, &n, 64, 30000), "%s did not finish", argv[0]);
	cr_assert_eq(tl_wait(&wl, 10000), 0, "workload failed");
	cr_assert_eq(tl_wait(&rec, 20000), 0, "locktrace record failed");
	tl_close(&wl);
	tl_close(&rec);
	stop_reference(&bt, &ref);
	tracefs_down();

	cr_assert_eq(tl_load(&tr, path), 0);
	cr_assert_eq(tl_total_lost(&tr), 0, "locktrace lost events");
	from_trace(&tr, &ours);
	tl_free(&tr);
	unlink(path);
	cr_assert_geq(ours.n, min_pairs, "only %d thread/call pairs recorded", ours.n);
	assert_equal(&ours, &ref);
}

static void fini(void)
{
	tracefs_down();
}

/* futex waits and wakes of four threads on one mutex */
Test(differential_live, futex_calls_of_mutex_contention, .fini = fini, .timeout = 90)
{
	char *argv[] = { WL("mutex_contention"), "-t", "4", "-n", "300", NULL };
	differential(argv, 5);
}

/* pselect6 and socket reads and writes (AF_UNIX), and stdout's writes to a
 * pipe, which neither counts */
Test(differential_live, select_and_socket_calls_of_select_reader, .fini = fini, .timeout = 90)
{
	char *argv[] = { WL("select_reader"), "-n", "200", NULL };
	differential(argv, 4);
}

/* sendto/recvfrom/sendmsg/recvmsg on loopback TCP */
Test(differential_live, socket_calls_of_tcp_pingpong, .fini = fini, .timeout = 90)
{
	char *argv[] = { WL("tcp_pingpong"), "-n", "200", NULL };
	differential(argv, 4);
}
