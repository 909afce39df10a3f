/* The differential test, as root: locktrace records a bundled workload
 * with --calls all while an independent reference, bpftrace running
 * tests/differential.bt, counts the same calls of the same run; per thread
 * and per system call, the entries, the returns and the sum of the return
 * values must be equal, exactly.  bpftrace needs tracefs: the test mounts
 * /sys/kernel/tracing if it is not mounted, in a mount namespace of its
 * own, and unmounts what it mounted.  Without root or without bpftrace
 * (scripts/install-deps.sh installs it) each test says why it skips. */
#include <criterion/criterion.h>
#include <dirent.h>
#include <errno.h>
#include <poll.h>
#include <sched.h>
#include <signal.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mount.h>
#include <sys/vfs.h>
#include <sys/wait.h>
#include <time.h>
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

/* bpftrace stops by itself once the workload is gone (-p: it watches the
 * pid with a pidfd and leaves its poll loop, runs END and prints its maps),
 * never on SIGINT: bpftrace 0.17 (Debian 12) loses a SIGINT that arrives while
 * its main thread is not asleep in epoll_wait (its loop checks the flag only
 * when epoll_wait fails with EINTR; 0.19 checks it on every turn), and on a
 * loaded machine that thread is often runnable after its 100 ms timeout, so
 * about one SIGINT in five was lost and bpftrace never printed its maps.  The
 * "ready" printed by BEGIN reaches stdout only from that poll loop, which
 * starts after every probe is attached. */
static void start_reference(struct tl_proc *bt, pid_t pid)
{
	char p[16];
	snprintf(p, sizeof(p), "%d", (int)pid);
	char *argv[] = { BPFTRACE, "-B", "none", "-p", p, "tests/differential.bt", p, NULL };
	cr_assert_eq(tl_spawn(bt, argv), 0);
	cr_assert(tl_wait_for(bt, 0, "ready", NULL, NULL, 0, 30000), "bpftrace did not attach");
}

static uint64_t now_ms(void)
{
	struct timespec ts;
	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * 1000 + (uint64_t)ts.tv_nsec / 1000000;
}

/* For a message: each thread of PID, its state, wait channel and signals. */
static void describe(pid_t pid, char *out, size_t n)
{
	char path[96], line[256];
	size_t len = 0;
	snprintf(path, sizeof(path), "/proc/%d/task", (int)pid);
	DIR *d = opendir(path);
	out[0] = 0;
	if (!d) {
		snprintf(out, n, "(%s: %s)", path, strerror(errno));
		return;
	}
	for (struct dirent *e; (e = readdir(d)) && len + 1 < n;) {
		char wchan[64] = "";
		if (e->d_name[0] == '.')
			continue;
		snprintf(path, sizeof(path), "/proc/%d/task/%.16s/wchan", (int)pid, e->d_name);
		FILE *f = fopen(path, "r");
		if (f) {
			if (!fgets(wchan, sizeof(wchan), f))
				wchan[0] = 0;
			fclose(f);
		}
		len += (size_t)snprintf(out + len, n - len, "[tid %s wchan %s", e->d_name, wchan);
		snprintf(path, sizeof(path), "/proc/%d/task/%.16s/status", (int)pid, e->d_name);
		if (len + 1 < n && (f = fopen(path, "r"))) {
			while (len + 1 < n && fgets(line, sizeof(line), f)) {
				if (strncmp(line, "State:", 6) && strncmp(line, "SigPnd:", 7) &&
				    strncmp(line, "ShdPnd:", 7) && strncmp(line, "SigBlk:", 7) &&
				    strncmp(line, "SigCgt:", 7))
					continue;
				line[strcspn(line, "\n")] = 0;
				len += (size_t)snprintf(out + len, n - len, " %s", line);
			}
			fclose(f);
		}
		if (len + 1 < n)
			len += (size_t)snprintf(out + len, n - len, "] ");
	}
	closedir(d);
}

/* Appends what FD has to B (at most CAP - 1 bytes kept); 0 at EOF. */
static int drain(int fd, char *b, size_t *len, size_t cap)
{
	char tmp[4096];
	ssize_t got = read(fd, tmp, sizeof(tmp));
	if (got <= 0)
		return got < 0 && errno == EINTR;
	size_t c = (size_t)got < cap - 1 - *len ? (size_t)got : cap - 1 - *len;
	memcpy(b + *len, tmp, c);
	*len += c;
	b[*len] = 0;
	return 1;
}

/* Called once the workload is reaped.  Reads bpftrace's maps to EOF of its
 * stdout and stderr and its exit status.  120 s is a hang bound only: it
 * takes well under a second (BENCHMARKS.md); past it, the message says what
 * bpftrace was doing. */
static void stop_reference(struct tl_proc *bt, struct tab *ref)
{
	enum { HANG_MS = 120000 };
	static char out[65536], err[8192];
	char state[2048] = "";
	size_t olen = 0, elen = 0;
	uint64_t t0 = now_ms();

	/* what tl_wait_for read past "ready" */
	olen = bt->len[0] < sizeof(out) - 1 ? bt->len[0] : sizeof(out) - 1;
	memcpy(out, bt->buf[0], olen);
	out[olen] = 0;
	bt->len[0] = 0;
	while (bt->out_fd >= 0 || bt->err_fd >= 0) {
		uint64_t t = now_ms();
		if (t - t0 >= HANG_MS) {
			describe(bt->pid, state, sizeof(state));
			break;
		}
		struct pollfd pf[2] = { { .fd = bt->out_fd, .events = POLLIN },
					{ .fd = bt->err_fd, .events = POLLIN } };
		if (poll(pf, 2, (int)(HANG_MS - (t - t0))) < 0 && errno != EINTR)
			cr_assert_fail("poll bpftrace's output: %s", strerror(errno));
		if (pf[0].revents && !drain(bt->out_fd, out, &olen, sizeof(out))) {
			close(bt->out_fd);
			bt->out_fd = -1;
		}
		if (pf[1].revents && !drain(bt->err_fd, err, &elen, sizeof(err))) {
			close(bt->err_fd);
			bt->err_fd = -1;
		}
	}
	uint64_t t_eof = now_ms() - t0;
	int st = tl_wait(bt, state[0] ? 0 : 10000);
	char how[64];
	if (st == -1)
		snprintf(how, sizeof(how), "still running, killed");
	else if (WIFSIGNALED(st))
		snprintf(how, sizeof(how), "killed by signal %d (%s)", WTERMSIG(st), strsignal(WTERMSIG(st)));
	else
		snprintf(how, sizeof(how), "exit status %d", WEXITSTATUS(st));
	cr_assert(st == 0 && !state[0],
		  "bpftrace failed: %s; output %s after %llu ms; %s\nits stderr: %s\nits stdout: %.2000s",
		  how, state[0] ? "not ended" : "ended", (unsigned long long)t_eof, state, elen ? err : "(empty)",
		  olen ? out : "(empty)");
	cr_assert(olen < sizeof(out) - 1, "bpftrace printed more than %zu bytes", sizeof(out) - 1);
	for (char *l = out, *nl; *l; l = nl + 1) {
		if (!(nl = strchr(l, '\n')))
			nl = l + strlen(l) - 1;
		from_bpftrace(l, ref);
	}
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

/* Each test's timeout (300 s) is above the sum of its hang bounds (10 s to
 * start the workload, 20 the recorder, 30 bpftrace, 30 + 10 + 20 to end the
 * run, 120 + 10 for bpftrace's maps), so a bound, not the timeout, says what
 * hung. */
static void fini(void)
{
	tracefs_down();
}

/* futex waits and wakes of four threads on one mutex */
Test(differential_live, futex_calls_of_mutex_contention, .fini = fini, .timeout = 300)
{
	char *argv[] = { WL("mutex_contention"), "-t", "4", "-n", "300", NULL };
	differential(argv, 5);
}

/* pselect6 and socket reads and writes (AF_UNIX), and stdout's writes to a
 * pipe (the test's), which both count */
Test(differential_live, select_and_socket_calls_of_select_reader, .fini = fini, .timeout = 300)
{
	char *argv[] = { WL("select_reader"), "-n", "200", NULL };
	differential(argv, 4);
}

/* sendto/recvfrom/sendmsg/recvmsg on loopback TCP */
Test(differential_live, socket_calls_of_tcp_pingpong, .fini = fini, .timeout = 300)
{
	char *argv[] = { WL("tcp_pingpong"), "-n", "200", NULL };
	differential(argv, 4);
}
