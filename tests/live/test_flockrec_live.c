/* Live tests of recording file-lock calls (FLOCK_ENTER events, trace
 * format 1.4) on programs we did not write: flock(1) from util-linux and
 * Debian's python3 (fcntl.lockf).  Ground truth: the kernel's own view of
 * the blocked call (/proc/PID/syscall: number, fd, operation) and of the
 * lock request (/proc/locks: the "->" entry and its range), and the fd the
 * python program prints.  Needs root. */
#include <criterion/criterion.h>
#include <errno.h>
#include <inttypes.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "filelock.h"
#include "json_read.h"
#include "locktrace/calls.h"
#include "target.h"
#include "waitfor.h"
#include "lt_test.h"

#define FLOCK_BIN "/usr/bin/flock"
#define SQLITE_BIN "/usr/bin/sqlite3"

static struct tl_proc procs[3];
static char lines[3][64][256];
static int nlines[3];
static char lockfile[64], trace[128], jsonpath[160];
static char cgdir[400]; /* a cgroup a test made, removed at the end */

static void cleanup(void)
{
	for (int i = 0; i < 3; i++)
		if (procs[i].pid > 0) {
			tl_kill_tree(procs[i].pid);
			tl_close(&procs[i]);
		}
	if (lockfile[0]) {
		char journal[96]; /* sqlite3's */
		snprintf(journal, sizeof(journal), "%s-journal", lockfile);
		unlink(journal);
		unlink(lockfile);
	}
	if (trace[0])
		unlink(trace);
	if (jsonpath[0])
		unlink(jsonpath);
	for (int i = 0; cgdir[0] && i < 100 && rmdir(cgdir) && errno == EBUSY; i++)
		usleep(20000); /* its processes were killed: wait until they are gone */
}

TestSuite(flockrec_live, .fini = cleanup, .timeout = 120);

static void need_root(void)
{
	if (!tl_is_root())
		cr_skip_test("needs root: loads BPF programs and reads other processes' /proc/PID/syscall");
}

static uint64_t boottime_ns(void)
{
	struct timespec ts;
	clock_gettime(CLOCK_BOOTTIME, &ts);
	return (uint64_t)ts.tv_sec * 1000000000u + (uint64_t)ts.tv_nsec;
}

static void tmp_lockfile(void)
{
	snprintf(lockfile, sizeof(lockfile), "/tmp/lt-flockrec-%d.lock", (int)getpid());
	FILE *f = fopen(lockfile, "w");
	cr_assert_not_null(f);
	fclose(f);
}

/* procs[0]: flock(1) holding a fresh LOCKFILE (sleep 600), its
 * /proc/locks line in HELD (skips without root or flock). */
static void flock_held(char *held, size_t len)
{
	need_root();
	if (access(FLOCK_BIN, X_OK))
		cr_skip_test("%s missing (Debian: util-linux)", FLOCK_BIN);
	tmp_lockfile();
	cr_assert_eq(tl_spawn(&procs[0], (char *const[]){ FLOCK_BIN, lockfile, "-c", "sleep 600", NULL }), 0);
	tl_locks_line(procs[0].pid, lockfile, false, held, len);
}

/* /proc/PID/syscall of thread PID now: its call's number and first three
 * arguments, or false when it is on a cpu ("running": the kernel shows no
 * call then). */
static bool call_now(pid_t pid, long *nr, uint64_t a[3])
{
	char path[64], buf[256];
	snprintf(path, sizeof(path), "/proc/%d/syscall", (int)pid);
	FILE *f = fopen(path, "r");
	cr_assert_not_null(f, "%s: %s", path, strerror(errno));
	cr_assert_not_null(fgets(buf, sizeof(buf), f));
	fclose(f);
	if (!strncmp(buf, "running", 7))
		return false;
	cr_assert_eq(sscanf(buf, "%ld 0x%" SCNx64 " 0x%" SCNx64 " 0x%" SCNx64, nr, &a[0], &a[1], &a[2]), 4,
		     "%s: %s", path, buf);
	return true;
}

/* The same of a thread /proc/locks shows blocked: it must be in a call. */
static void blocked_call(pid_t pid, long *nr, uint64_t a[3])
{
	cr_assert(call_now(pid, nr, a), "/proc/%d/syscall: running, though /proc/locks shows it blocked", (int)pid);
}

/* The one FLOCK_ENTER of thread TID in the trace with command CMD. */
static const struct lt_event *flock_event(const struct tl_trace *t, uint32_t tid, uint32_t cmd, size_t *at)
{
	const struct lt_event *found = NULL;
	int n = 0;
	for (size_t i = 0; i < t->n; i++) {
		const struct lt_event *e = &t->ev[i];
		if (e->h.kind == LT_EV_FLOCK_ENTER && e->h.tid == tid && e->flk.cmd == cmd) {
			found = e;
			*at = i;
			n++;
		}
	}
	cr_assert_eq(n, 1, "%d file-lock entries of %u with command %u in the trace", n, tid, cmd);
	return found;
}

/* The return of the call entered at event AT: the next SYS_EXIT of its
 * thread, which must be of the same call. */
static int64_t return_of(const struct tl_trace *t, size_t at)
{
	const struct lt_event *e = &t->ev[at];
	for (size_t i = at + 1; i < t->n; i++)
		if (t->ev[i].h.kind == LT_EV_SYS_EXIT && t->ev[i].h.tid == e->h.tid) {
			cr_assert_eq(t->ev[i].exit.nr, e->flk.nr, "the next return of %u is of call %u", e->h.tid,
				     t->ev[i].exit.nr);
			return t->ev[i].exit.ret;
		}
	cr_assert_fail("no return of the file-lock call of %u", e->h.tid);
	return -1;
}

/* The report's first finding: a file-lock wait of TID whose summary has
 * CALL (the decoded call) or, when a snapshot saw the wait, CALL_PATH (the
 * same with the file's path after the fd). */
static void report_names_it(const char *path, uint32_t tid, const char *call, const char *call_path)
{
	struct rp_json *j = tl_report_json(path);
	const struct rp_json *fs = rp_json_get(j, "findings");
	cr_assert(fs && fs->type == RPJ_ARR && fs->n > 0, "the report has no findings");
	const struct rp_json *f = &fs->items[0];
	const char *kind = rp_json_str(rp_json_get(f, "kind"));
	const char *sum = rp_json_str(rp_json_get(f, "summary"));
	cr_assert(kind && !strcmp(kind, "file_lock"), "first finding: %s: %s", kind ? kind : "?", sum ? sum : "?");
	cr_expect(sum && strstr(sum, "file-lock wait") && (strstr(sum, call) || strstr(sum, call_path)),
		  "summary: %s (wanted %s or %s)", sum ? sum : "?", call, call_path);
	const struct rp_json *tids = rp_json_get(f, "tids");
	cr_assert(tids && tids->type == RPJ_ARR && tids->n == 1);
	cr_expect_eq((uint32_t)rp_json_num(&tids->items[0], 0), tid);
	rp_json_free(j);
}

/* The JSON timeline's span of TID named NAME ("file lock (flock)"), or
 * named for the lock file when a snapshot in the trace saw the wait ("file
 * lock on LOCKFILE (flock)"; the snapshot at attach is taken while the
 * recording runs, so it may or may not see a wait that begins then): its
 * call argument must be CALL and it must cover the moment SEEN (boottime
 * ns) at which /proc showed the thread blocked in it; SEEN 0: a span open
 * since the trace began (blocked_at_start), still open at its end. */
static void json_span_covers(const char *path, uint32_t tid, const char *name, const char *call, uint64_t seen)
{
	snprintf(jsonpath, sizeof(jsonpath), "%s.json", path);
	unlink(jsonpath);
	int st = tl_run_to_end((char *const[]){ LT_BIN, "convert", (char *)path, "--format", "json", "-o", jsonpath,
						NULL },
			       NULL, NULL, NULL, NULL);
	cr_assert_eq(st, 0, "convert --format json");
	FILE *f = fopen(jsonpath, "r");
	cr_assert_not_null(f);
	static char buf[1 << 20];
	size_t len = fread(buf, 1, sizeof(buf), f);
	fclose(f);
	struct rp_json *j = tl_json_of(buf, len);
	const struct rp_json *evs = rp_json_get(j, "traceEvents");
	cr_assert(evs && evs->type == RPJ_ARR);
	int found = 0;
	char named[300];
	const char *paren = strchr(name, '(');
	cr_assert_not_null(paren);
	snprintf(named, sizeof(named), "file lock on %s %s", lockfile, paren);
	for (size_t i = 0; i < evs->n; i++) {
		const struct rp_json *e = &evs->items[i];
		const char *n = rp_json_str(rp_json_get(e, "name"));
		if (!n || (strcmp(n, name) && strcmp(n, named)) ||
		    (uint32_t)rp_json_num(rp_json_get(e, "tid"), 0) != tid)
			continue;
		found++;
		const char *c = rp_json_str(rp_json_get(rp_json_get(e, "args"), "call"));
		cr_expect(c && !strcmp(c, call), "span call: %s (wanted %s)", c ? c : "?", call);
		cr_expect_str_eq(rp_json_str(rp_json_get(e, "cat")), "file_lock");
		double ts = rp_json_num(rp_json_get(e, "ts"), 0), dur = rp_json_num(rp_json_get(e, "dur"), 0);
		double seen_us = (double)seen / 1e3;
		if (!seen) {
			const struct rp_json *args = rp_json_get(e, "args");
			cr_expect(rp_json_get(args, "blocked_at_start") && rp_json_get(args, "unfinished"),
				  "blocked from the start to the end");
			continue;
		}
		cr_expect(ts <= seen_us && seen_us <= ts + dur,
			  "the span [%.3f, %.3f] us covers the moment /proc saw it blocked (%.3f us)", ts, ts + dur,
			  seen_us);
	}
	cr_expect_eq(found, 1, "%d spans \"%s\" or \"%s\" of %u", found, name, named, tid);
	rp_json_free(j);
}

/* flock(1) holds the lock, a second flock(1) launched under locktrace
 * waits for it: the trace has its flock(2) entry with the fd and
 * operation /proc/PID/syscall shows while it blocks, the return after
 * the holder is gone, a span covering the wait, and the report's first
 * finding is that file-lock wait. */
Test(flockrec_live, flock1_launched_waiter)
{
	char held[256], waiting[256];
	flock_held(held, sizeof(held));
	tl_tmp_path(trace, sizeof(trace), "flockrec");
	cr_assert_eq(tl_spawn(&procs[1], (char *const[]){ LT_BIN, "record", "-o", trace, "--no-status", "--",
							   FLOCK_BIN, lockfile, "-c", "true", NULL }),
		     0);
	char out[8][256];
	int n = 0;
	cr_assert(tl_wait_for(&procs[1], 1, "locktrace (pid ", out, &n, 8, 20000), "the recorder did not start");
	const char *p = strstr(out[n - 1], "(pid ");
	p = p ? strstr(p + 5, "(pid ") : NULL;
	cr_assert_not_null(p, "the launched pid in: %s", out[n - 1]);
	pid_t waiter = atoi(p + 5);
	cr_assert_gt(waiter, 0);
	tl_locks_line(waiter, lockfile, true, waiting, sizeof(waiting));
	long nr;
	uint64_t a[3];
	blocked_call(waiter, &nr, a);
	uint64_t seen = boottime_ns();
	cr_assert_eq(nr, LT_NR_FLOCK, "/proc/%d/syscall: call %ld", (int)waiter, nr);
	cr_assert_eq(a[1], LT_LOCK_EX, "flock(1) takes LOCK_EX: %#" PRIx64, a[1]);
	/* the report names a wait that ended from 5 ms on (its incident threshold):
	 * /proc may show it blocked sooner than that */
	usleep(100000);
	/* release: the holder and its command (which inherited the fd) */
	tl_kill_tree(procs[0].pid);
	kill(procs[0].pid, SIGKILL);
	tl_recorder_done(&procs[1], &procs[0], 30000);

	struct tl_trace t;
	tl_load_clean(&t, trace);
	size_t at = 0;
	const struct lt_event *e = flock_event(&t, (uint32_t)waiter, LT_LOCK_EX, &at);
	cr_expect_eq(e->flk.nr, LT_NR_FLOCK);
	cr_expect_eq(e->flk.fd, (int32_t)a[0], "fd %d, /proc says %d", e->flk.fd, (int)a[0]);
	cr_expect_eq(e->flk.type, -1);
	cr_expect(e->h.ts < seen, "entered before /proc saw it blocked");
	cr_expect_eq(return_of(&t, at), 0, "granted once the holder was gone");
	tl_free(&t);

	char call[64], call_path[160];
	snprintf(call, sizeof(call), "flock(fd %d, LOCK_EX)", (int)a[0]);
	snprintf(call_path, sizeof(call_path), "flock(fd %d: %s, LOCK_EX)", (int)a[0], lockfile);
	json_span_covers(trace, (uint32_t)waiter, "file lock (flock)", call, seen);
	report_names_it(trace, (uint32_t)waiter, call, call_path);
}

static const char LOCKF_PY[] =
	"import fcntl, os, sys, time\n"
	"f = open(sys.argv[1], 'a+')\n"
	"if sys.argv[2] == 'hold':\n"
	"    fcntl.lockf(f, fcntl.LOCK_EX, 10, 5)\n"
	"    print('ready', flush=True)\n"
	"    time.sleep(600)\n"
	"else:\n"
	"    print('fd', f.fileno(), flush=True)\n"
	"    print('ready', flush=True)\n"
	"    sys.stdin.readline()\n"
	"    fcntl.lockf(f, fcntl.LOCK_EX, 3, 10)\n"
	"    print('granted', flush=True)\n";

/* Starts the python holder (bytes 5-14) and the waiter, which takes bytes
 * 10-12 with F_SETLKW when told; its fd into *FD. */
static void start_lockf_pair(int *fd)
{
	if (access(TL_PYTHON, X_OK))
		cr_skip_test("%s missing", TL_PYTHON);
	tmp_lockfile();
	tl_start_ready(&procs[0], (char *const[]){ TL_PYTHON, "-c", (char *)LOCKF_PY, lockfile, "hold", NULL },
		       lines[0], &nlines[0], 64, 30000);
	tl_start_ready(&procs[1], (char *const[]){ TL_PYTHON, "-c", (char *)LOCKF_PY, lockfile, "wait", NULL },
		       lines[1], &nlines[1], 64, 30000);
	*fd = -1;
	for (int i = 0; i < nlines[1]; i++)
		if (sscanf(lines[1][i], "fd %d", fd) == 1)
			break;
	cr_assert_geq(*fd, 0, "the waiter printed its fd");
}

/* python3's fcntl.lockf(f, LOCK_EX, 3, 10) recorded with record -p: the
 * entry holds F_SETLKW and the struct flock read from python's memory
 * (F_WRLCK, SEEK_SET, start 10, len 3), the same range /proc/locks gives
 * the blocked request; decoded as "write lock 10..12". */
Test(flockrec_live, python_lockf_range_recorded)
{
	need_root();
	int fd;
	start_lockf_pair(&fd);
	char held[256], waiting[256];
	tl_locks_line(procs[0].pid, lockfile, false, held, sizeof(held));
	tl_tmp_path(trace, sizeof(trace), "lockfrec");
	cr_assert_eq(tl_start_recorder(&procs[2], procs[1].pid, trace, NULL), 0);
	tl_go(&procs[1]);
	tl_locks_line(procs[1].pid, lockfile, true, waiting, sizeof(waiting));
	uint64_t seen = boottime_ns();
	struct lt_plock want;
	cr_assert_eq(lt_parse_plock(waiting, &want), 0, "%s", waiting);
	cr_assert(want.start == 10 && want.end == 12 && !strcmp(want.type, "WRITE"), "ground truth: %s", waiting);
	usleep(100000); /* a wait of at least 5 ms, which the report names (as above) */
	kill(procs[0].pid, SIGKILL);
	cr_assert(tl_wait_for(&procs[1], 0, "granted", NULL, NULL, 0, 20000), "the waiter never got the lock");
	uint32_t waiter = (uint32_t)procs[1].pid;
	tl_recorder_done(&procs[2], &procs[1], 30000);

	struct tl_trace t;
	tl_load_clean(&t, trace);
	size_t at = 0;
	const struct lt_event *e = flock_event(&t, waiter, LT_F_SETLKW, &at);
	cr_expect_eq(e->flk.nr, LT_NR_FCNTL);
	cr_expect_eq(e->flk.fd, fd, "fd %d, python's %d", e->flk.fd, fd);
	cr_expect_eq(e->flk.type, 1, "F_WRLCK: %d", e->flk.type);
	cr_expect_eq(e->flk.whence, 0);
	/* the kernel's view of the request: start..end inclusive */
	cr_expect_eq(e->flk.start, (int64_t)want.start);
	cr_expect_eq(e->flk.start + e->flk.len - 1, (int64_t)want.end);
	cr_expect_eq(return_of(&t, at), 0);
	char call[96], ev[160];
	snprintf(call, sizeof(call), "fcntl(fd %d, F_SETLKW, write lock 10..12)", fd);
	lt_flock_call_str(&e->flk, NULL, ev, sizeof(ev));
	cr_expect_str_eq(ev, call);
	tl_free(&t);
	char call_path[200];
	snprintf(call_path, sizeof(call_path), "fcntl(fd %d: %s, F_SETLKW, write lock 10..12)", fd, lockfile);
	json_span_covers(trace, waiter, "file lock (fcntl F_SETLKW)", call, seen);
	report_names_it(trace, waiter, call, call_path);
}

/* The flight recorder (--ring, so --calls blocking: the call is written
 * when the thread goes to sleep in it) attached before python calls
 * lockf: the stall rule fires on that file-lock wait, and says which call
 * (decoded from the recorded entry, not from /proc at attach).  units:
 * with the events kept in the kernel (the default), where the BPF
 * programs keep the rule's state; else streamed (--ring-stream). */
static void stall_on_lockf(int units)
{
	need_root();
	int fd;
	start_lockf_pair(&fd);
	char held[256], waiting[256], path[128];
	tl_locks_line(procs[0].pid, lockfile, false, held, sizeof(held));
	tl_tmp_path(path, sizeof(path), units ? "lockfstallfb" : "lockfstall");
	snprintf(trace, sizeof(trace), "%s", path);
	int r = tl_start_recorder(&procs[2], procs[1].pid, path,
				  (char *const[]){ "--ring", "16M", "--stall", "1",
						   units ? NULL : "--ring-stream", NULL });
	cr_assert_eq(r, 0);
	tl_go(&procs[1]);
	tl_locks_line(procs[1].pid, lockfile, true, waiting, sizeof(waiting));
	char out[64][256];
	int n = 0;
	cr_assert(tl_wait_for(&procs[2], 1, "locktrace: stall detected", out, &n, 64, 30000),
		  "the stall detector never fired");
	char call[96];
	snprintf(call, sizeof(call), "file-lock wait, fcntl(fd %d, F_SETLKW, write lock 10..12)", fd);
	cr_expect(strstr(out[n - 1], call), "%s (wanted %s)", out[n - 1], call);
	char tid[32];
	snprintf(tid, sizeof(tid), "tid %d ", (int)procs[1].pid);
	cr_expect(strstr(out[n - 1], tid), "%s", out[n - 1]);
}

Test(flockrec_live, stall_fires_on_a_file_lock_wait_begun_while_recording_streamed)
{
	stall_on_lockf(0);
}

Test(flockrec_live, stall_fires_on_a_file_lock_wait_with_the_kernel_units)
{
	stall_on_lockf(1);
}

/* record -p on a flock(1) already waiting when recording begins: the span
 * starts at the trace's start and is named for the file (its path from
 * the snapshot), the report's first finding names the file, the wait and
 * the holder /proc/locks gives, and the dump's header decodes the call. */
Test(flockrec_live, flock1_waiting_before_record_p)
{
	char held[256], waiting[256];
	flock_held(held, sizeof(held));
	cr_assert_eq(tl_spawn(&procs[1], (char *const[]){ FLOCK_BIN, lockfile, "-c", "true", NULL }), 0);
	tl_locks_line(procs[1].pid, lockfile, true, waiting, sizeof(waiting));
	long nr;
	uint64_t a[3];
	blocked_call(procs[1].pid, &nr, a);
	cr_assert_eq(nr, LT_NR_FLOCK);
	struct lt_plock h;
	cr_assert_eq(lt_parse_plock(held, &h), 0, "%s", held);
	tl_tmp_path(trace, sizeof(trace), "flockrecp");
	uint32_t waiter = (uint32_t)procs[1].pid;
	char pid[16];
	snprintf(pid, sizeof(pid), "%u", waiter);
	int st = tl_run_to_end((char *const[]){ LT_BIN, "record", "-p", pid, "-o", trace, "-d", "1", "--no-status", NULL },
			   NULL, NULL, NULL, NULL);
	cr_assert_eq(st, 0, "record -p %s", pid);
	tl_locks_line(procs[1].pid, lockfile, true, waiting, sizeof(waiting)); /* still blocked: the holder lives */

	char call[160], name[160];
	snprintf(call, sizeof(call), "flock(fd %d, LOCK_EX)", (int)a[0]);
	snprintf(name, sizeof(name), "file lock on %s (flock)", lockfile);
	json_span_covers(trace, waiter, name, call, 0); /* only the name with the path */
	snprintf(call, sizeof(call), "flock(fd %d: %s, LOCK_EX)", (int)a[0], lockfile);
	/* blocked before the attach: the snapshot sees it, with the path */
	report_names_it(trace, waiter, call, call);
	struct rp_json *j = tl_report_json(trace);
	const struct rp_json *f = &rp_json_get(j, "findings")->items[0];
	cr_expect_str_eq(rp_json_str(rp_json_get(f, "rule")), "blocked");
	cr_expect_eq((int)rp_json_num(rp_json_get(f, "holder"), 0), h.pid, "holder per /proc/locks: %s", held);
	rp_json_free(j);
}

/* The same on a cgroup: the waiter moved into a new cgroup that the
 * flight recorder watches (--cgroup, filtered in the kernel by cgroup id):
 * the stall rule fires on its lockf wait, begun while recording. */
Test(flockrec_live, stall_fires_on_a_file_lock_wait_in_a_cgroup)
{
	need_root();
	int fd;
	char mount[256], dir[400], procs_file[420], path[128];
	if (lt_cgroup_mount(mount, sizeof(mount)))
		cr_skip_test("no cgroup v2 mount: --cgroup not tested");
	start_lockf_pair(&fd);
	char held[256], waiting[256];
	tl_locks_line(procs[0].pid, lockfile, false, held, sizeof(held));
	snprintf(dir, sizeof(dir), "%s/lt-flockrec-%d", mount, (int)getpid());
	cr_assert_eq(mkdir(dir, 0755), 0, "mkdir %s: %s", dir, strerror(errno));
	snprintf(cgdir, sizeof(cgdir), "%s", dir);
	snprintf(procs_file, sizeof(procs_file), "%s/cgroup.procs", dir);
	FILE *f = fopen(procs_file, "w");
	int werr = !f || fprintf(f, "%d\n", (int)procs[1].pid) < 0;
	werr |= f && fclose(f);
	tl_tmp_path(path, sizeof(path), "lockfcg");
	snprintf(trace, sizeof(trace), "%s", path);
	int said = 0, started = 0;
	char out[64][256], last[256] = "";
	int n = 0;
	if (!werr && tl_spawn(&procs[2], (char *const[]){ LT_BIN, "record", "--cgroup", dir, "-o", path, "--no-status",
							  "--ring", "16M", "--stall", "1", NULL }) == 0) {
		started = tl_wait_for(&procs[2], 1, "locktrace (pid ", out, &n, 64, 20000);
		if (started) {
			tl_go(&procs[1]);
			tl_locks_line(procs[1].pid, lockfile, true, waiting, sizeof(waiting));
			n = 0;
			said = tl_wait_for(&procs[2], 1, "locktrace: stall detected", out, &n, 64, 30000);
			if (said)
				snprintf(last, sizeof(last), "%s", out[n - 1]);
		}
	}
	/* the cgroup emptied and removed before asserting */
	pid_t waiter = procs[1].pid;
	tl_kill_tree(procs[2].pid);
	tl_close(&procs[2]);
	kill(waiter, SIGKILL);
	tl_close(&procs[1]);
	for (int i = 0; i < 100 && rmdir(dir); i++)
		usleep(20000);
	cr_assert_eq(werr, 0, "moving the waiter into %s", dir);
	cr_assert(started, "the recorder did not start on the cgroup");
	cr_assert(said, "the stall detector never fired");
	char call[96], tid[32];
	snprintf(call, sizeof(call), "file-lock wait, fcntl(fd %d, F_SETLKW, write lock 10..12)", fd);
	snprintf(tid, sizeof(tid), "tid %d ", (int)waiter);
	cr_expect(strstr(last, call) && strstr(last, tid), "%s (wanted %s, %s)", last, call, tid);
}

/* Debian's sqlite3 waiting (.timeout) for a database another sqlite3 holds
 * in a write transaction: its busy handler retries fcntl(F_SETLK), which
 * does not wait, between sleeps.  `record -p` of it for 1.5 s, then
 * `report`: one file_lock finding of rule "polled" naming the refused
 * request, its count, and the holder the snapshot at the end infers (it
 * said "none: no thread was stuck on a lock"). */
Test(flockrec_live, sqlite_busy_wait_is_a_lock_waited_for_by_polling)
{
	need_root();
	if (access(SQLITE_BIN, X_OK))
		cr_skip_test("%s missing (Debian: sqlite3, which scripts/install-deps.sh installs)", SQLITE_BIN);
	snprintf(lockfile, sizeof(lockfile), "/tmp/lt-flockrec-%d.db", (int)getpid());
	unlink(lockfile);
	cr_assert_eq(tl_run_to_end((char *const[]){ SQLITE_BIN, lockfile, "create table t(v int); insert into t "
						    "values(0);", NULL }, NULL, NULL, NULL, NULL), 0);
	cr_assert_eq(tl_spawn(&procs[0], (char *const[]){ SQLITE_BIN, "-cmd", "BEGIN IMMEDIATE;", "-cmd",
							  "UPDATE t SET v=1;", "-cmd", ".shell sleep 600", lockfile,
							  NULL }), 0);
	char held[256];
	tl_locks_line(procs[0].pid, lockfile, false, held, sizeof(held));
	cr_assert_eq(tl_spawn(&procs[1], (char *const[]){ SQLITE_BIN, "-cmd", ".timeout 600000", lockfile,
							  "UPDATE t SET v=2;", NULL }), 0);
	/* its busy handler sleeps: 100 ms a try after the first few; between
	 * sleeps it runs (tries the lock), when /proc shows no call */
	long nr = 0;
	uint64_t a[3];
	for (int i = 0; i < 200 && nr != 230 && nr != 35; i++) {
		usleep(10000);
		if (!call_now(procs[1].pid, &nr, a))
			nr = 0;
	}
	cr_assert(nr == 230 || nr == 35, "sqlite3 %d never slept in its busy handler", (int)procs[1].pid);
	tl_tmp_path(trace, sizeof(trace), "flockrecsq");
	char pid[16];
	snprintf(pid, sizeof(pid), "%d", (int)procs[1].pid);
	int st = tl_run_to_end((char *const[]){ LT_BIN, "record", "-p", pid, "-o", trace, "-d", "1.5", "--no-status",
						NULL }, NULL, NULL, NULL, NULL);
	cr_assert_eq(st, 0, "record -p %s", pid);
	struct rp_json *j = tl_report_json(trace);
	const struct rp_json *fs = rp_json_get(j, "findings"), *f = NULL;
	for (size_t i = 0; fs && i < fs->n; i++)
		if (!strcmp(rp_json_str(rp_json_get(&fs->items[i], "rule")), "polled"))
			f = &fs->items[i];
	cr_assert_not_null(f, "no finding of rule polled (%zu findings)", fs ? fs->n : 0);
	cr_expect_str_eq(rp_json_str(rp_json_get(f, "kind")), "file_lock");
	cr_expect_eq((int)rp_json_num(rp_json_get(f, "holder"), 0), (int)procs[0].pid, "/proc/locks: %s", held);
	const char *sum = rp_json_str(rp_json_get(f, "summary"));
	unsigned tries = 0;
	const char *at = strstr(sum, ", write lock 1073741825..1073741825) ");
	cr_assert(at && sscanf(at, ", write lock 1073741825..1073741825) %u times", &tries) == 1, "%s", sum);
	cr_expect_geq(tries, 5, "%s", sum);
	cr_expect(strstr(sum, "refused each time (EAGAIN"), "%s", sum);
	rp_json_free(j);
}

static const char POOL_PY[] =
	"import fcntl, multiprocessing as mp, os, sys\n"
	"def work(x):\n"
	"    fd = os.open(sys.argv[1], os.O_RDWR)\n"
	"    fcntl.flock(fd, fcntl.LOCK_EX)\n"
	"    return x\n"
	"if __name__ == '__main__':\n"
	"    mp.set_start_method('fork')\n"
	"    with mp.Pool(1) as p:\n"
	"        print('worker pid=%d' % p._pool[0].pid, flush=True)\n"
	"        print('ready', flush=True)\n"
	"        p.map(work, [1])\n";

/* `record -p` of a multiprocessing.Pool's parent (Debian's python3) whose
 * worker waits in flock() for a file flock(1) holds: the parent's threads
 * only wait for the worker's pipes; the snapshots stored in the trace
 * follow those waits into the worker, as `snapshot -p` does, so the report
 * names the worker's file-lock wait and its holder (before: a stall and a
 * Condition wait, the worker never mentioned). */
Test(flockrec_live, record_of_a_pool_parent_follows_into_its_worker_on_a_file_lock)
{
	char held[256];
	flock_held(held, sizeof(held));
	if (access("/usr/bin/python3", X_OK))
		cr_skip_test("/usr/bin/python3 missing");
	char out[64][256];
	int no = 0;
	tl_start_ready(&procs[1], (char *const[]){ "/usr/bin/python3", "-c", (char *)POOL_PY, lockfile, NULL }, out,
		       &no, 64, 30000);
	const char *l = NULL;
	for (int i = 0; i < no && !l; i++)
		l = strstr(out[i], "worker pid=");
	cr_assert_not_null(l, "the pool printed no worker pid");
	pid_t worker = (pid_t)atoi(l + 11);
	char waiting[256];
	tl_locks_line(worker, lockfile, true, waiting, sizeof(waiting));
	tl_tmp_path(trace, sizeof(trace), "flockpool");
	char pid[16];
	snprintf(pid, sizeof(pid), "%d", (int)procs[1].pid);
	cr_assert_eq(tl_run_to_end((char *const[]){ LT_BIN, "record", "-p", pid, "-o", trace, "-d", "1", "--no-status",
						    NULL }, NULL, NULL, NULL, NULL), 0);
	struct rp_json *j = tl_report_json(trace);
	const struct rp_json *fs = rp_json_get(j, "findings");
	char want[96], holder[64];
	snprintf(want, sizeof(want), "thread %d (MainThread) waits for a file lock", (int)worker);
	snprintf(holder, sizeof(holder), "held by processes %d", (int)procs[0].pid);
	bool found = false;
	for (size_t i = 0; fs && i < fs->n && !found; i++) {
		const char *sum = rp_json_str(rp_json_get(&fs->items[i], "summary"));
		found = sum && strstr(sum, want) && strstr(sum, holder);
	}
	cr_assert(found, "no finding: %s ... %s (/proc/locks: %s)", want, holder, held);
	rp_json_free(j);
}
