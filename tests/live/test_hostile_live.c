/* Hostile targets (issue 26): processes that impersonate a runtime or are
 * merely huge, each snapshotted and recorded with locktrace's wall time and
 * peak memory measured (wait4's rusage of the locktrace child).  The bounds
 * are generous, an order of magnitude above what is measured: the point is
 * that nothing a target holds is amplified, and that -d and Ctrl-C hold.
 *
 * hostile_jvm: 100,000 fake JavaThreads each blocked on a monitor owned by
 * the next (before: snapshot 15.9 s, record -d 1 58 s, Ctrl-C after 33 s);
 * many_maps: 30,000 mappings; hostile_ocaml5: a fake OCaml 5.2 whose
 * thread_table symbol claims 64 MiB (493,447 domains, 4,096 of them filled
 * as held locks; before: snapshot 8.6 s and 258 MB, record -d 1 44.5 s and
 * 2.0 GB); cyclic_frames: a thread whose saved frame
 * pointer points at its own frame (the chain loops: said once, not printed
 * 64 times); hostile_cpython: a fake CPython 3.11 whose lists are long,
 * looping and share 1 MiB line tables (below). */
#include <criterion/criterion.h>
#include <fcntl.h>
#include <inttypes.h>
#include <signal.h>
#include <stdio.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>
#include "lt_test.h"

static double now_s(void)
{
	struct timespec ts;
	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec + ts.tv_nsec / 1e9;
}

struct run {
	double wall_s;
	long maxrss_mib;
	int status;
	char out[1 << 20]; /* the head of its stdout and stderr together */
};

/* Runs locktrace ARGV (LT_BIN first) to its end, its output into r->out;
 * INT_AFTER_S > 0: SIGINT that long after the line "recording" appears
 * (the wall time is then from the signal). */
static void run_lt(char *const argv[], struct run *r, double int_after_s)
{
	char tmpl[] = "/tmp/lt-hostile-XXXXXX";
	int fd = mkstemp(tmpl);
	cr_assert_geq(fd, 0);
	unlink(tmpl);
	double t0 = now_s();
	pid_t c = fork();
	cr_assert_geq(c, 0);
	if (c == 0) {
		dup2(fd, 1);
		dup2(fd, 2);
		execv(argv[0], argv);
		_exit(127);
	}
	struct rusage ru;
	int st = 0;
	if (int_after_s > 0) {
		char buf[4096];
		for (int i = 0; i < 3000; i++) {
			ssize_t n = pread(fd, buf, sizeof(buf) - 1, 0);
			buf[n > 0 ? n : 0] = 0;
			if (strstr(buf, "recording"))
				break;
			usleep(10000);
		}
		usleep((useconds_t)(int_after_s * 1e6));
		kill(c, SIGINT);
		t0 = now_s();
	}
	for (int i = 0; i < 12000; i++) { /* 120 s at most, then killed */
		pid_t w = wait4(c, &st, WNOHANG, &ru);
		if (w == c)
			break;
		if (i == 11999) {
			kill(c, SIGKILL);
			wait4(c, &st, 0, &ru);
		}
		usleep(10000);
	}
	r->wall_s = now_s() - t0;
	r->maxrss_mib = ru.ru_maxrss / 1024;
	r->status = st;
	ssize_t n = pread(fd, r->out, sizeof(r->out) - 1, 0);
	r->out[n > 0 ? n : 0] = 0;
	close(fd);
	fprintf(stderr, "%s %s: %.2f s, %ld MiB peak\n", argv[1], argv[2], r->wall_s, r->maxrss_mib);
}

/* `record -p PID -d 1` into a new trace named NAME: it succeeds within
 * 15 s and 256 MiB whatever the target holds. */
static void record_bounded(char *pid, const char *name, char *trace, size_t len, struct run *r)
{
	tl_tmp_path(trace, len, name);
	char *rec[] = { LT_BIN, "record", "-p", pid, "-d", "1", "-q", "--force", "-o", trace, NULL };
	run_lt(rec, r, 0);
	cr_assert(WIFEXITED(r->status) && WEXITSTATUS(r->status) == 0, "%s", r->out);
	cr_assert_lt(r->wall_s, 15.0, "record -d 1 took %.1f s", r->wall_s);
	cr_assert_lt(r->maxrss_mib, 256, "record peaked at %ld MiB", r->maxrss_mib);
}

/* `snapshot --from TRACE`: the snapshot stored in the recording, read back. */
static void stored_snapshot(char *trace, struct run *r)
{
	char *snap[] = { LT_BIN, "snapshot", "--from", trace, NULL };
	run_lt(snap, r, 0);
	cr_assert(WIFEXITED(r->status) && WEXITSTATUS(r->status) == 0, "%s", r->out);
}

static void start(struct tl_proc *wl, char *const argv[], char pid[16])
{
	char lines[32][256];
	int n = 0;
	tl_start_pid(wl, argv, lines, &n, pid);
	tl_go(wl);
}

Test(hostile_live, fake_jvm_of_100000_threads_snapshot_and_record_bounded, .timeout = 300)
{
	tl_skip_unless_root("snapshots and recordings of another process");
	char *wargv[] = { WL("hostile_jvm"), NULL }, pid[16], trace[128];
	struct tl_proc wl;
	struct run r;

	start(&wl, wargv, pid);
	char *snap[] = { LT_BIN, "snapshot", "-p", pid, NULL };
	run_lt(snap, &r, 0);
	cr_assert(WIFEXITED(r.status) && WEXITSTATUS(r.status) == 0, "%s", r.out);
	cr_assert(strstr(r.out, "HotSpot 17.0.99-hostile"), "the fake JVM was not read: %s", r.out);
	/* its budget is 5 s (docs/snapshot.md); before: 15.9 s and more */
	cr_assert_lt(r.wall_s, 14.0, "snapshot took %.1f s", r.wall_s);
	cr_assert_lt(r.maxrss_mib, 512, "snapshot peaked at %ld MiB", r.maxrss_mib);

	tl_tmp_path(trace, sizeof(trace), "hostile-jvm");
	char *rec[] = { LT_BIN, "record", "-p", pid, "-d", "1", "-q", "--force", "-o", trace, NULL };
	run_lt(rec, &r, 0);
	cr_assert(WIFEXITED(r.status) && WEXITSTATUS(r.status) == 0, "%s", r.out);
	/* -d 1: attach, the rest of the start snapshot's 3 s, the end
	 * snapshot's 3 s; bounded at 15 x -d (before: 58 s) */
	cr_assert_lt(r.wall_s, 15.0, "record -d 1 took %.1f s", r.wall_s);
	cr_assert_lt(r.maxrss_mib, 512, "record peaked at %ld MiB", r.maxrss_mib);
	unlink(trace);

	/* Ctrl-C one second in: the start snapshot still reading stops */
	char *rec2[] = { LT_BIN, "record", "-p", pid, "--force", "-o", trace, "--no-status", NULL };
	run_lt(rec2, &r, 1.0);
	cr_assert(WIFEXITED(r.status), "%s", r.out);
	/* the end snapshot's 3 s and writing the file (before: 33 s) */
	cr_assert_lt(r.wall_s, 10.0, "record ended %.1f s after Ctrl-C", r.wall_s);
	unlink(trace);
	tl_kill(&wl);
	tl_close(&wl);
}

Test(hostile_live, thirty_thousand_mappings_snapshot_and_record_bounded, .timeout = 180)
{
	tl_skip_unless_root("snapshots and recordings of another process");
	char *wargv[] = { WL("many_maps"), NULL }, pid[16], trace[128];
	struct tl_proc wl;
	struct run r;

	start(&wl, wargv, pid);
	char *snap[] = { LT_BIN, "snapshot", "-p", pid, NULL };
	run_lt(snap, &r, 0);
	cr_assert(WIFEXITED(r.status) && WEXITSTATUS(r.status) == 0, "%s", r.out);
	cr_assert(strstr(r.out, "snapshot of pid"), "%s", r.out);
	cr_assert_lt(r.wall_s, 14.0, "snapshot took %.1f s", r.wall_s);
	cr_assert_lt(r.maxrss_mib, 256, "snapshot peaked at %ld MiB", r.maxrss_mib);
	record_bounded(pid, "many-maps", trace, sizeof(trace), &r);
	unlink(trace);
	tl_kill(&wl);
	tl_close(&wl);
}

Test(hostile_live, cyclic_frame_chain_is_said_to_loop, .timeout = 120)
{
	tl_skip_unless_root("snapshots and recordings of another process");
	char *wargv[] = { WL("cyclic_frames"), NULL }, pid[16], trace[128];
	struct tl_proc wl;
	struct run r;
	char lines[32][256];
	int n = 0;

	tl_start_pid(&wl, wargv, lines, &n, pid);
	uint64_t fp = tl_truth_val(lines, n, "frame", "func=cf_looper", "fp");
	cr_assert_eq(tl_truth_val(lines, n, "frame", "func=cf_looper", "saved"), fp, "the chain does not loop");
	tl_go(&wl);
	char *snap[] = { LT_BIN, "snapshot", "-p", pid, "--no-lines", NULL };
	run_lt(snap, &r, 0);
	cr_assert(WIFEXITED(r.status) && WEXITSTATUS(r.status) == 0, "%s", r.out);
	/* cf_outer's frame, whose saved rbp is cf_looper's frame: its caller
	 * would be itself again, at the stack pointer just above that frame */
	char want[160];
	snprintf(want, sizeof(want), "[unwind stopped: the frame chain loops: frame #3 would repeat frame #2 (pc 0x");
	const char *m = strstr(r.out, want);
	cr_assert_not_null(m, "the loop is not said:\n%s", r.out);
	snprintf(want, sizeof(want), ", sp 0x%" PRIx64 "): ", fp + 16);
	const char *eol = strchr(m, '\n');
	cr_assert(strstr(m, want) && strstr(m, want) < eol, "want '%s' in %.*s", want,
		  (int)(eol ? eol - m : 200), m);
	size_t outer = 0;
	for (const char *p = r.out; (p = strstr(p, "cf_outer")); p++)
		outer++;
	cr_assert_eq(outer, 1, "cf_outer printed %zu times:\n%s", outer, r.out);
	cr_assert_lt(r.wall_s, 14.0, "snapshot took %.1f s", r.wall_s);
	cr_assert_lt(r.maxrss_mib, 256, "snapshot peaked at %ld MiB", r.maxrss_mib);

	record_bounded(pid, "cyclic-frames", trace, sizeof(trace), &r);
	/* the stored snapshot says it too */
	stored_snapshot(trace, &r);
	cr_assert(strstr(r.out, "the frame chain loops"), "%s", r.out);
	unlink(trace);
	tl_kill(&wl);
	tl_close(&wl);
}

Test(hostile_live, fake_ocaml5_of_493447_domains_read_for_128, .timeout = 120)
{
	tl_skip_unless_root("snapshots and recordings of another process");
	char *wargv[] = { WL("hostile_ocaml5"), NULL }, pid[16], trace[128];
	struct tl_proc wl;
	struct run r;
	char lines[32][256];
	int n = 0;

	tl_start_pid(&wl, wargv, lines, &n, pid);
	uint64_t entries = tl_truth_val(lines, n, "table", NULL, "entries");
	cr_assert_eq(tl_truth_val(lines, n, "table", NULL, "filled"), 4096);
	tl_go(&wl);
	char *snap[] = { LT_BIN, "snapshot", "-p", pid, "--no-lines", NULL };
	run_lt(snap, &r, 0);
	cr_assert(WIFEXITED(r.status) && WEXITSTATUS(r.status) == 0, "%s", r.out);
	char want[160];
	snprintf(want, sizeof(want), "thread_table's symbol claims %" PRIu64 " entries (67108864 bytes); read 128, "
		 "the runtime's Max_domains", entries);
	cr_assert(strstr(r.out, want), "want '%s' in:\n%.3000s", want, r.out);
	/* exactly Max_domains locks: the printed ones and the rest counted */
	size_t shown = 0;
	for (const char *p = r.out; (p = strstr(p, "runtime lock: OCaml runtime lock domain ")); p++)
		shown++;
	char more[64];
	snprintf(more, sizeof(more), "(%zu more runtime locks that no thread", 128 - shown);
	cr_assert(shown > 0 && shown < 128 && strstr(r.out, more), "%zu shown, want '%s' in the rest:\n%.3000s",
		  shown, more, r.out);
	cr_assert(!strstr(r.out, "domain 128 "), "a domain past Max_domains was read");
	/* its 128 held locks with a blocked holder share one set of re-reads
	 * (12 rounds, 5 ms apart), not 12 each: the whole process is read */
	cr_assert(!strstr(r.out, "time budget"), "the snapshot ran out of time:\n%.3000s", r.out);
	cr_assert_lt(r.wall_s, 14.0, "snapshot took %.1f s", r.wall_s);
	cr_assert_lt(r.maxrss_mib, 256, "snapshot peaked at %ld MiB", r.maxrss_mib);

	record_bounded(pid, "hostile-ocaml5", trace, sizeof(trace), &r);
	struct stat st;
	cr_assert_eq(stat(trace, &st), 0);
	cr_assert_lt(st.st_size, 16 << 20, "a %lld-byte trace of a 2-thread process", (long long)st.st_size);
	char *rep[] = { LT_BIN, "report", trace, NULL };
	run_lt(rep, &r, 0);
	cr_assert(WIFEXITED(r.status) && WEXITSTATUS(r.status) == 0, "%s", r.out);
	cr_assert_lt(r.wall_s, 14.0, "report took %.1f s", r.wall_s);
	cr_assert_lt(r.maxrss_mib, 256, "report peaked at %ld MiB", r.maxrss_mib);
	unlink(trace);
	tl_kill(&wl);
	tl_close(&wl);
}

/* The same fake OCaml 5.2 with one domain whose active thread's c_stack
 * points into the stack of a thread that has exited: its lock is held
 * and no holder is named; the snapshot says the holder may have exited. */
Test(hostile_live, fake_ocaml5_holder_that_exited_is_not_named, .timeout = 60)
{
	tl_skip_unless_root("snapshots of another process");
	char *wargv[] = { WL("hostile_ocaml5"), "-n", "1", "--gone", NULL }, pid[16];
	struct tl_proc wl;
	struct run r;
	char lines[32][256];
	int n = 0;

	tl_start_pid(&wl, wargv, lines, &n, pid);
	pid_t gone = (pid_t)tl_truth_val(lines, n, "gone", NULL, "tid");
	cr_assert_gt(gone, 0);
	tl_go(&wl);
	char *snap[] = { LT_BIN, "snapshot", "-p", pid, "--no-lines", NULL };
	run_lt(snap, &r, 0);
	cr_assert(WIFEXITED(r.status) && WEXITSTATUS(r.status) == 0, "%s", r.out);
	const char *l = strstr(r.out, "runtime lock: OCaml runtime lock domain 0 ");
	cr_assert_not_null(l, "%s", r.out);
	const char *eol = strchr(l, '\n');
	cr_assert_not_null(eol);
	cr_assert(memmem(l, (size_t)(eol - l), "held, holder unknown", 20), "%.*s", (int)(eol - l), l);
	cr_assert(strstr(eol, "no stack pointer of the running thread is in a live thread's stack (the "
			      "thread that held it may have exited holding it"),
		  "%s", r.out);
	char who[48];
	snprintf(who, sizeof(who), "thread %d", (int)gone);
	cr_assert(!strstr(r.out, who), "the exited thread %d named: %s", (int)gone, r.out);
	cr_assert(!strstr(r.out, "held by thread"), "%s", r.out);
	tl_kill(&wl);
	tl_close(&wl);
}

/* A fake CPython 3.11 (hostile_cpython): 100,000 thread states in one
 * interpreter, a second interpreter whose thread-state list loops and
 * whose next is the first, a worker whose frame list loops, and seven
 * workers 300 frames deep, each frame its own code object (2,102 of them,
 * more than the 1,024 cached), sharing 24 line tables of 1 MiB, each
 * instruction past its table's end.  Before: every line lookup scanned its
 * whole table (1.8 GB for 1,792 frames, 3.5 s; under load the 5 s budget
 * ran out before the lists were read); a table copied per code object was
 * 1.05 GB for 1,024 of them.  Each cut and cycle is said in the product's
 * words. */
Test(hostile_live, fake_cpython_lists_cut_and_cycles_said, .timeout = 180)
{
	tl_skip_unless_root("snapshots and recordings of another process");
	char *wargv[] = { WL("hostile_cpython"), NULL }, pid[16], trace[128];
	struct tl_proc wl;
	struct run r;
	char lines[32][256];
	int n = 0;

	tl_start_pid(&wl, wargv, lines, &n, pid);
	uint64_t ia = tl_truth_val(lines, n, "interp", "name=A", "addr");
	uint64_t ib = tl_truth_val(lines, n, "interp", "name=B", "addr");
	uint64_t tsb = tl_truth_val(lines, n, "interp", "name=B", "loop");
	uint64_t f0 = tl_truth_val(lines, n, "frames", "worker=0", "loop");
	cr_assert_eq(tl_truth_val(lines, n, "interp", "name=A", "states"), 100000);
	cr_assert_eq(tl_truth_val(lines, n, "codes", NULL, "tables"), 24);
	pid_t w0 = (pid_t)tl_truth_val(lines, n, "thread", "idx=0", "tid");
	pid_t w1 = (pid_t)tl_truth_val(lines, n, "thread", "idx=1", "tid");
	cr_assert(w0 > 0 && w1 > 0);
	tl_go(&wl);

	char *snap[] = { LT_BIN, "snapshot", "-p", pid, "--no-lines", NULL };
	run_lt(snap, &r, 0);
	cr_assert(WIFEXITED(r.status) && WEXITSTATUS(r.status) == 0, "%s", r.out);
	cr_assert(strstr(r.out, "CPython 3.11.99"), "the fake CPython was not read:\n%.3000s", r.out);
	char want[5][200];
	snprintf(want[0], sizeof(want[0]), "CPython 3.11.99: stopped reading the thread states of interpreter 0x%" PRIx64
		 " after 4096", ia);
	snprintf(want[1], sizeof(want[1]), "CPython 3.11.99: the thread-state list of interpreter 0x%" PRIx64
		 " loops back to 0x%" PRIx64 " after 2 (a cycle in the process's memory)", ib, tsb);
	snprintf(want[2], sizeof(want[2]), "CPython 3.11.99: the interpreter list loops back to 0x%" PRIx64
		 " after 2 (a cycle in the process's memory)", ia);
	snprintf(want[3], sizeof(want[3]), "the frame list loops back to frame 0x%" PRIx64
		 " (a cycle in the process's memory): not read further", f0);
	snprintf(want[4], sizeof(want[4]), "CPython 3.11.99: stopped reading line tables after 16384 KiB");
	for (int i = 0; i < 5; i++)
		cr_assert(strstr(r.out, want[i]), "want '%s' in:\n%.6000s", want[i], r.out);
	/* the thread states past the workers name no thread */
	cr_assert(strstr(r.out, "CPython 3.11.99: 4088 Python thread state(s) name no thread"), "%.6000s", r.out);
	/* worker 0's three frames once each; worker 1's innermost 256 */
	size_t loops = 0, deep = 0;
	for (const char *p = r.out; (p = strstr(p, "loop_0")); p++)
		loops++;
	cr_assert_eq(loops, 3, "worker 0's frames printed %zu times:\n%.6000s", loops, r.out);
	for (const char *p = r.out; (p = strstr(p, "deeper than 256 Python frames")); p++)
		deep++;
	cr_assert_eq(deep, 7, "%zu workers cut at 256 frames:\n%.6000s", deep, r.out);
	cr_assert(strstr(r.out, "w1_depth_299") && strstr(r.out, "w1_depth_44") && !strstr(r.out, "w1_depth_43 "),
		  "worker 1's innermost 256 frames are not the ones shown:\n%.6000s", r.out);
	cr_assert_lt(r.wall_s, 14.0, "snapshot took %.1f s", r.wall_s);
	cr_assert_lt(r.maxrss_mib, 256, "snapshot peaked at %ld MiB", r.maxrss_mib);

	record_bounded(pid, "hostile-cpython", trace, sizeof(trace), &r);
	/* the stored snapshot says what was cut too (the process's notes: a
	 * stored snapshot does not keep Python frames, nor where they end) */
	stored_snapshot(trace, &r);
	for (int i = 0; i < 5; i++)
		cr_assert(i == 3 || strstr(r.out, want[i]), "want '%s' in the stored snapshot:\n%.6000s", want[i],
			  r.out);
	unlink(trace);
	tl_kill(&wl);
	tl_close(&wl);
}
