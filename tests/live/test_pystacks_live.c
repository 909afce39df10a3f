/* record --stacks on CPython, end to end as root: the stacks of GIL waits
 * carry the waiting thread's Python frames.  The workload
 * (tests/workloads/py_gil_sites.py) has two threads that wait for the GIL
 * from two known functions at known lines: alpha() (GIL-keeping usleep()
 * calls, one line) and beta() (time.sleep(0), then a GIL-keeping usleep(),
 * one line).
 * The test reads the GIL's extent with a snapshot (the lock model), records
 * the process with -p, then checks:
 *   - every GIL wait of the two threads that has a stack names its thread's
 *     function at its line as its innermost Python frame, placed just above
 *     the interpreter-loop frame that runs it (as the snapshot places
 *     them), with the outer Python frames (run_alpha, Thread.run, ...) and
 *     the native stack down to the thread's start, nothing left unplaced;
 *   - every GIL wait of the two threads that a thread of their process
 *     woke after it had slept 1 ms or more has a stack (the BPF side
 *     copies it at that wake-up);
 *   - `report --profile` ranks GIL entries through alpha and beta at their
 *     lines, beta's adding up to the waits of beta's thread in the trace
 *     whose stacks go through beta; with --calls all (each wait of 1 ms or
 *     more copied, at the latest at its return) every GIL wait of beta's
 *     thread of 1 ms or more has a stack;
 *   - the collapsed and pprof formats name the Python functions.
 * With --calls blocking, the releasing stacks (the waker's, copied by the
 * BPF program with its Python frames at the wake-up): the GIL's releases
 * by alpha and beta name them at their lines (trace, profile, collapsed),
 * and a threading.Lock released by holder() in py_lock_sites.py names
 * holder at its release line.
 * Run on Debian's python3 (3.11) and on the pyenv builds 3.8 - 3.13 when
 * present ($PYENV_ROOT/versions, default /root/.pyenv).  The recorder runs
 * without its symbol cache, as on a fresh machine. */
#include <criterion/criterion.h>
#include <glob.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include "lockmodel.h"
#include "lt_test.h"
#include "snapshot.h"
#include "stacks.h"
#include "tp.h"
#include "locktrace/futex.h"

#define SCRIPT "tests/workloads/py_gil_sites.py"
/* README: the waits of 1 ms or more have stacks; shorter ones are sampled */
#define LONG_WAIT_NS 1000000ull

TL_RECORDING(64);
TestSuite(pystacks_live, .fini = tl_recording_fini, .timeout = 180);

struct truth {
	pid_t alpha, beta;
	long line_a, line_b;
	uint64_t gil, gil_size;
	double beta_wait_us;
	char version[64];
	/* from the trace: beta's GIL waits, those with a stack, those with
	 * a stack through beta (ms); beta's GIL waits of 1 ms or more, and
	 * those of them without a stack */
	double trace_ms, stacked_ms, through_ms;
	int long_waits, long_bare;
	double long_bare_ms;
};

/* The pyenv build of CPython 3.MINOR into PY, or a skip. */
static void pyenv_python(int minor, char *py, size_t len)
{
	const char *root = getenv("PYENV_ROOT");
	char pat[512];
	snprintf(pat, sizeof(pat), "%s/versions/3.%d.*/bin/python3.%d",
		 root && *root ? root : "/root/.pyenv", minor, minor);
	glob_t g;
	int r = glob(pat, 0, NULL, &g);
	int found = 0;
	for (size_t i = 0; r == 0 && i < g.gl_pathc && !found; i++)
		if (access(g.gl_pathv[i], X_OK) == 0) {
			snprintf(py, len, "%s", g.gl_pathv[i]);
			found = 1;
		}
	if (r == 0)
		globfree(&g);
	if (!found)
		cr_skip_test("no CPython 3.%d here (%s): a pyenv build of 3.%d is what this test runs",
			     minor, pat, minor);
}

/* The GIL of the workload, as the lock model finds it: its waits are the
 * futex words inside it. */
static void find_gil(const char *py, struct truth *t)
{
	struct lt_snapshot *s = NULL;
	cr_assert_eq(lt_snapshot_take(wl.pid, NULL, &s), 0, "snapshot of the workload failed");
	for (size_t i = 0; i < s->n_rtlocks; i++)
		if (!strcmp(s->rtlocks[i].kind, "GIL")) {
			t->gil = s->rtlocks[i].base;
			t->gil_size = s->rtlocks[i].size;
			snprintf(t->version, sizeof(t->version), "%s",
				 s->rtlocks[i].version ? s->rtlocks[i].version : "?");
		}
	lt_snapshot_free(s);
	cr_assert(t->gil && t->gil_size, "the lock model found no GIL in %s", py);
}

/* Starts the Python workload ARGV (PY, its script, --gate, --linger and
 * its options) on PY, reads the GIL's extent from a snapshot into T,
 * records it (-p, --stacks and CALLS: "all", or "blocking" for the wakers'
 * stacks; the trace named after TAG) until it is done (its last lines into
 * DONE, ND).  Its ground truth is in truth, ntruth. */
static void record_python(const char *py, char **argv, struct truth *t, const char *tag,
			  const char *calls, char done[8][256], int *nd)
{
	tl_skip_unless_root("needs root: loads BPF programs to record a CPython process");
	if (access(py, X_OK) != 0)
		cr_skip_test("%s is missing (Debian: apt-get install python3)", py);
	tl_start_ready(&wl, argv, truth, &ntruth, 64, 30000);
	find_gil(py, t);
	char *extra[] = { "--stacks", "--calls", (char *)calls, NULL };
	tl_record_until_done(&rec, &wl, raw, tag, extra, done, nd, 8, argv[1]);
}

/* Starts the workload on PY (ROUNDS rounds of beta, NULL: its default),
 * reads the GIL's extent from a snapshot, records it (-p, --stacks and
 * CALLS: "all", or "blocking" for the wakers' stacks) until it exits. */
static void record_gil_sites_as(const char *py, struct truth *t, const char *rounds,
				const char *calls)
{
	/* --linger: the process stays until the recording has ended, so
	 * the recorder can read its code objects (the stacks are resolved
	 * from the process's memory, by a thread that may lag behind) */
	char *argv[] = { (char *)py, SCRIPT, "--gate", "--linger", rounds ? "-r" : NULL,
			 (char *)rounds, NULL };
	char done[8][256];
	int nd = 0;
	record_python(py, argv, t, "pystacks", calls, done, &nd);
	t->alpha = (pid_t)tl_truth_val(truth, ntruth, "thread", "role=alpha", "tid");
	t->beta = (pid_t)tl_truth_val(truth, ntruth, "thread", "role=beta", "tid");
	t->line_a = (long)tl_truth_val(truth, ntruth, "site", "name=alpha", "line");
	t->line_b = (long)tl_truth_val(truth, ntruth, "site", "name=beta", "line");
	t->beta_wait_us = (double)tl_truth_val(done, nd, "done", "rounds=", "beta_wait_us");
}

static void record_gil_sites(const char *py, struct truth *t)
{
	record_gil_sites_as(py, t, NULL, "all");
}

/* As record_gil_sites, with only the BPF side's copies of the waiters'
 * stacks (LOCKTRACE_WAITER_STACKS=bpf: no reads from /proc). */
static void record_gil_sites_bpf(const char *py, struct truth *t, const char *calls)
{
	setenv("LOCKTRACE_WAITER_STACKS", "bpf", 1);
	record_gil_sites_as(py, t, NULL, calls);
	unsetenv("LOCKTRACE_WAITER_STACKS");
}

/* The trace RAW into TR and its stacks into ST (not damaged). */
static void load_stacks(struct tl_trace *tr, struct lt_stacktab *st)
{
	memset(st, 0, sizeof(*st));
	tl_load_clean(tr, raw);
	cr_assert_eq(lt_trace_stacks(raw, st), 0);
	cr_assert(!st->damaged);
}

/* Whether E is a FUTEX_ENTER of alpha's or beta's thread on a word inside
 * the GIL, at a wake-up (AT_WAKE: LT_F_AT_WAKE) or not (0). */
static int gil_futex_of(const struct truth *t, const struct lt_event *e, unsigned at_wake)
{
	return e->h.kind == LT_EV_FUTEX_ENTER && (e->h.flags & LT_F_AT_WAKE) == at_wake &&
	       (e->h.tid == (uint32_t)t->alpha || e->h.tid == (uint32_t)t->beta) &&
	       e->futex.uaddr >= t->gil && e->futex.uaddr - t->gil < t->gil_size;
}

/* Whether the profile entry's header LINE ("... futex 0x...") is on a
 * word inside the GIL. */
static int on_gil(const struct truth *t, const char *line)
{
	const char *fx = strstr(line, "futex 0x");
	unsigned long long addr;
	return fx && sscanf(fx, "futex 0x%llx", &addr) == 1 && addr >= t->gil &&
	       addr - t->gil < t->gil_size;
}

/* The profile's frame lines of alpha and beta at their lines
 * ("      alpha (py_gil_sites.py:LA) [python]"), 64 bytes each. */
static void profile_frames(const struct truth *t, char *want_a, char *want_b)
{
	snprintf(want_a, 64, "      alpha (py_gil_sites.py:%ld) [python]", t->line_a);
	snprintf(want_b, 64, "      beta (py_gil_sites.py:%ld) [python]", t->line_b);
}

static int is_loop(const char *func)
{
	return func && !strncmp(func, "_PyEval_EvalFrameDefault", 24);
}

/* A GIL wait's stack: Python frames, each run of them just above an
 * interpreter-loop frame, and the stack ending natively at the thread's
 * start.  1 if it passes through FUNC, which must then be its innermost
 * Python frame, at LINE of the workload; 0 if not (the thread's start,
 * before FUNC is called, or its end, after FUNC returned). */
static int check_stack(const struct lt_stack *s, pid_t tid, const char *func, long line,
		       uint64_t ts)
{
	int first = -1, py = 0, through = 0;
	for (uint32_t i = 0; i < s->nframes; i++) {
		const struct lt_sframe *f = &s->frames[i];
		if (f->lang != LT_SFRAME_PYTHON)
			continue;
		py++;
		if (first < 0)
			first = (int)i;
		cr_assert_eq(f->pc, 0, "a Python frame with a pc");
		cr_assert(f->func && f->file && f->line > 0, "thread %d, wait at %llu: a Python frame "
			  "without a function, file or line", (int)tid, (unsigned long long)ts);
		through |= !strcmp(f->func, func);
		/* the loop frame that runs it comes right after its run */
		if (i + 1 < s->nframes && s->frames[i + 1].lang != LT_SFRAME_PYTHON)
			cr_assert(is_loop(s->frames[i + 1].func), "thread %d: Python frame %s placed above "
				  "%s, not the interpreter loop", (int)tid, f->func,
				  s->frames[i + 1].func ? s->frames[i + 1].func : "??");
	}
	int loop = 0;
	for (uint32_t i = 0; i < s->nframes; i++)
		loop |= s->frames[i].lang == LT_SFRAME_NATIVE && is_loop(s->frames[i].func);
	if (first < 0) {
		/* no Python code runs: the thread takes the GIL to start or
		 * to end, outside any call of the interpreter loop */
		cr_assert(!loop, "thread %d: the GIL wait at %llu has no Python frame, but %u native "
			  "frames through the interpreter loop (stack %u, end: %s)", (int)tid,
			  (unsigned long long)ts, s->nframes, s->id, s->end ? s->end : "none");
		cr_assert_null(s->end, "the stack is incomplete: %s", s->end);
		return 0;
	}
	/* Thread.run, _bootstrap_inner, _bootstrap at least */
	cr_assert_geq(py, 3, "thread %d: %d Python frames", (int)tid, py);
	/* nothing unplaced: the outermost frame is native */
	cr_assert_eq(s->frames[s->nframes - 1].lang, LT_SFRAME_NATIVE);
	cr_assert_null(s->end, "the stack is incomplete: %s", s->end);
	if (!through)
		return 0;
	const struct lt_sframe *f = &s->frames[first];
	cr_assert_str_eq(f->func, func, "thread %d: innermost Python frame %s (%s:%u), not %s",
			 (int)tid, f->func, f->file, f->line, func);
	cr_assert_eq((long)f->line, line, "thread %d: %s at line %u, not %ld", (int)tid, func, f->line,
		     line);
	const char *base = strrchr(f->file, '/');
	cr_assert_str_eq(base ? base + 1 : f->file, "py_gil_sites.py");
	return 1;
}

/* Was the wait that TR's event I begins woken, first, by a thread of the
 * traced process after sleeping LONG_WAIT_NS or more?  Then the BPF side
 * copied its stack at that wake-up (the waking record's time is the one
 * its rule read).  Its first wake-up before its return. */
static int woken_long_from_inside(const struct tl_trace *tr, size_t i)
{
	const struct lt_event *e = &tr->ev[i];
	for (size_t j = i + 1; j < tr->n; j++) {
		const struct lt_event *x = &tr->ev[j];
		if (x->h.tid != e->h.tid)
			continue;
		if (x->h.kind == LT_EV_SYS_EXIT)
			return 0;
		if (x->h.kind == LT_EV_WAKING)
			return x->wake.waker_tgid == (uint32_t)tr->hdr.pid && x->wake.waker_tid &&
			       x->h.ts - e->h.ts >= LONG_WAIT_NS;
	}
	return 0;
}

/* Every GIL wait (a FUTEX_WAIT on a word inside the GIL) of alpha's and
 * beta's threads that has a stack has their Python frames; once a
 * thread's wait is in its function (alpha, beta), every one is until the
 * function returns, at its line.  Each that a thread of the process woke
 * after 1 ms or more has a stack. */
static void check_trace(struct truth *t)
{
	struct tl_trace tr;
	struct lt_stacktab st;
	load_stacks(&tr, &st);
	int waits[2] = { 0 }, with[2] = { 0 }, in[2] = { 0 }, left[2] = { 0 }, woken[2] = { 0 };
	for (size_t i = 0; i < tr.n; i++) {
		const struct lt_event *e = &tr.ev[i];
		if (!gil_futex_of(t, e, 0))
			continue;
		unsigned cmd = e->futex.op & LT_FUTEX_CMD_MASK;
		if (cmd != 0 && cmd != 9)
			continue; /* its wake-ups of the other */
		int k = e->h.tid == (uint32_t)t->beta;
		waits[k]++;
		const struct lt_stack *s = lt_stacktab_find(&st, (int32_t)e->h.tid, e->h.ts,
							    LT_STACK_WAITER);
		int inside = woken_long_from_inside(&tr, i);
		woken[k] += inside;
		cr_assert(s || !inside, "%s: the %s thread's GIL wait at %llu, woken by a thread of "
			  "its process after 1 ms or more, has no stack", t->version,
			  k ? "beta" : "alpha", (unsigned long long)e->h.ts);
		double ms = 0;
		for (size_t j = i + 1; k && j < tr.n; j++)
			if (tr.ev[j].h.tid == e->h.tid && tr.ev[j].h.kind == LT_EV_SYS_EXIT) {
				ms = (double)(tr.ev[j].h.ts - e->h.ts) / 1e6;
				t->trace_ms += ms;
				t->stacked_ms += s ? ms : 0;
				if (tr.ev[j].h.ts - e->h.ts >= LONG_WAIT_NS) {
					t->long_waits++;
					t->long_bare += !s;
					t->long_bare_ms += s ? 0 : ms;
				}
				break;
			}
		if (!s)
			continue; /* shorter than 1 ms and not sampled, or woken from
				     elsewhere with the reads off (--calls blocking) */
		cr_assert_eq(s->tgid, (int32_t)tr.hdr.pid);
		int through = check_stack(s, (pid_t)e->h.tid, k ? "beta" : "alpha",
					  k ? t->line_b : t->line_a, e->h.ts);
		t->through_ms += k && through ? ms : 0;
		if (through)
			cr_assert(!left[k], "%s: a wait of the %s thread in its function after one "
				  "outside it, at %llu", t->version, k ? "beta" : "alpha",
				  (unsigned long long)e->h.ts);
		else if (in[k])
			left[k] = 1; /* returned from its function */
		in[k] += through;
		with[k]++;
	}
	/* beta waits a switch interval (20 ms, woken by a timer), then about
	 * 4 ms until alpha lets go (woken by alpha), in each of its 60
	 * rounds; alpha 3 ms in each (woken by beta): both have stacks in
	 * their functions, even from the BPF side's copies at the wake-up
	 * alone */
	cr_assert(in[1] > 0, "%s: none of beta's %d GIL waits (%d with a stack, %d woken by a "
		  "thread of its process after 1 ms or more) is in beta()", t->version, waits[1],
		  with[1], woken[1]);
	cr_assert(in[0] > 0, "%s: none of alpha's %d GIL waits (%d with a stack, %d woken by a "
		  "thread of its process after 1 ms or more) is in alpha()", t->version, waits[0],
		  with[0], woken[0]);
	lt_stacktab_free(&st);
	tl_free(&tr);
}

/* report --profile (of a recording with --calls all): entries on the GIL
 * through alpha and beta at their lines ("alpha (py_gil_sites.py:LA)
 * [python]"), beta's adding up to the waits of beta's thread in the trace
 * whose stacks go through beta (each entry printed to 0.1 ms), and every
 * GIL wait of beta's thread of 1 ms or more with a stack.  (beta's own
 * measure, its time in time.sleep(0), is not what the profile adds up:
 * it also holds the waits shorter than 1 ms, of which the profile has
 * those sampled, and the time beta ran or was runnable there, outside any
 * wait: 2-6% of it on a machine with a load of 8-13, more when a cpu
 * stalls; it is in the messages.) */
static void check_profile(const struct truth *t)
{
	int nl;
	tl_line *lines = tl_profile_lines(raw, &nl);
	char want_a[64], want_b[64];
	profile_frames(t, want_a, want_b);
	double ms[2] = { 0 }, cur_ms = 0;
	int n[2] = { 0 }, cur_gil = 0, figs = 0, cur_figs = 1;
	for (int i = 0; i < nl; i++) {
		const char *line = lines[i];
		int r, ns, ne;
		double v, sampled, est;
		if (sscanf(line, "#%d %lf ms", &r, &v) == 2 || sscanf(line, "#%d ~%lf ms", &r, &v) == 2) {
			cur_ms = v;
			cur_gil = on_gil(t, line);
			cur_figs = 1;
			continue;
		}
		/* an entry whose waits under 1 ms are a sample scaled to their
		 * lock's total (printed "~"): what its waits with a stack add up
		 * to is its total less the estimate, plus the sample */
		const char *sm = strstr(line, " under 1 ms with a stack (");
		if (sscanf(line, " (~ an estimate: its %d wait", &ns) == 1 && sm &&
		    sscanf(sm, " under 1 ms with a stack (%lf ms) %*s a sample, standing for ~%d (~%lf ms)", &sampled,
			   &ne, &est) == 3) {
			cur_ms += sampled - est;
			cur_figs = 2; /* the total and the estimate, each printed to 0.1 ms */
			continue;
		}
		if (!strncmp(line, "Where the lock was held", 23))
			break;
		for (int k = 0; k < 2 && cur_gil; k++)
			if (!strcmp(line, k ? want_b : want_a)) {
				ms[k] += cur_ms;
				n[k]++;
				figs += k ? cur_figs : 0;
			}
	}
	free(lines);
	cr_assert(n[0] && n[1], "%s: the profile has no GIL entry through %s", t->version,
		  !n[0] ? want_a : want_b);
	double measured = t->beta_wait_us / 1e3;
	cr_assert(t->long_bare == 0, "%s: %d of beta's %d GIL waits of 1 ms or more (%.1f ms) have "
		  "no stack", t->version, t->long_bare, t->long_waits, t->long_bare_ms);
	cr_assert(fabs(ms[1] - t->through_ms) <= 0.05 * figs + 0.005 * (figs - n[1]) + 1e-6, "%s: %.1f ms of GIL waits "
		  "through beta in %d entries of the profile; the trace has %.3f ms of beta's GIL "
		  "waits with a stack through beta (of %.1f ms of beta's GIL waits, %.1f ms with a "
		  "stack; the program measured %.1f ms in time.sleep(0))", t->version, ms[1], n[1],
		  t->through_ms, t->trace_ms, t->stacked_ms, measured);
}

/* `report --profile --format collapsed` of the trace: how many of its
 * lines (those that start with PREFIX; NULL: all) go through run_alpha
 * then alpha (*A), through run_beta then beta (*B). */
static void collapsed_through(const char *prefix, int *a, int *b)
{
	char out[64][256], err[64][256], path[TL_PATH_MAX + 16];
	int nout, nerr;
	snprintf(path, sizeof(path), "%s.folded", raw);
	char *rep[] = { LT_BIN, "report", raw, "--profile", "--format", "collapsed", "-o", path,
			"--force", NULL };
	cr_assert_eq(tl_run_to_end(rep, out, &nout, err, &nerr), 0, "%s", nerr ? err[0] : "");
	FILE *f = fopen(path, "r");
	cr_assert(f, "no %s", path);
	char line[8192];
	*a = *b = 0;
	while (fgets(line, sizeof(line), f)) {
		if (prefix && strncmp(line, prefix, strlen(prefix)))
			continue;
		/* outer first: run_X, then X (through native frames up to
		 * 3.10, whose calls of the loop run one frame each) */
		const char *ra = strstr(line, ";run_alpha;"), *rb = strstr(line, ";run_beta;");
		*a += ra && strstr(ra + 1, ";alpha;");
		*b += rb && strstr(rb + 1, ";beta;");
	}
	fclose(f);
	unlink(path);
}

/* --format collapsed: lines "lock;...;Thread.run;...;run_beta;beta;... WAIT_US". */
static void check_collapsed(const struct truth *t)
{
	int a, b;
	collapsed_through(NULL, &a, &b);
	cr_assert(a && b, "%s: collapsed stacks through alpha: %d, through beta: %d", t->version, a, b);
}

/* The trace converted to Perfetto, read by the trace processor into O:
 * t[0] the callsites ("cs") of thread TID's slices named SLICE..., t[1]
 * every callsite ("id", "parent_id", its frame's "name"), t[2] the
 * symbols ("name", "line", "file") of the frames whose name is NAMES (an
 * SQL test: "= 'f'", "in (...)"). */
static void perfetto_callstacks(pid_t tid, const char *slice, const char *names, struct tp_out *o)
{
	char pt[TL_PATH_MAX + 32], out[64][256], err[64][256], sql[1024];
	int nout, nerr;
	snprintf(pt, sizeof(pt), "%s.perfetto-trace", raw);
	char *conv[] = { LT_BIN, "convert", raw, "-o", pt, NULL };
	cr_assert_eq(tl_run_to_end(conv, out, &nout, err, &nerr), 0, "%s", nerr ? err[0] : "");
	snprintf(sql, sizeof(sql),
		 "select c.callsite_id as cs from __intrinsic_track_event_callstacks c "
		 "join slice s on s.id = c.slice_id join thread_track tt on s.track_id = tt.id "
		 "join thread using(utid) where thread.tid = %d and s.name like '%s%%';\n"
		 "select c.id as id, c.parent_id as parent_id, f.name as name from "
		 "stack_profile_callsite c join stack_profile_frame f on f.id = c.frame_id;\n"
		 "select f.name as name, y.line_number as line, y.source_file as file from "
		 "stack_profile_frame f join stack_profile_symbol y on y.symbol_set_id = "
		 "f.symbol_set_id where f.name %s;\n", (int)tid, slice, names);
	int rc = tp_run(pt, sql, o);
	unlink(pt);
	cr_assert_eq(rc, 0, "trace processor: %s (status %d)", o->error, o->status);
	cr_assert_eq(o->n, 3);
}

/* The Perfetto trace: wait slices of beta's thread carry callstacks
 * through beta, whose frame has the workload's file and beta's line. */
static void check_perfetto(const struct truth *t)
{
	struct tp_out o;
	perfetto_callstacks(t->beta, "FUTEX_WAIT", "in ('alpha', 'beta')", &o);
	int b = 0;
	for (size_t i = 0; i < o.t[0].nrows; i++)
		b += tp_chain_has(&o.t[1], tp_get(&o.t[0], i, "cs"), "beta");
	cr_assert_gt(b, 0, "no wait slice of beta's thread has a callstack through beta\n%s",
		     tp_dump(&o.t[0]));
	int lines = 0;
	for (size_t i = 0; i < o.t[2].nrows; i++) {
		int ok;
		const char *name = tp_get(&o.t[2], i, "name"), *file = tp_get(&o.t[2], i, "file");
		long line = (long)tp_int(&o.t[2], i, "line", &ok);
		cr_assert(ok && name && file);
		cr_assert_eq(line, !strcmp(name, "alpha") ? t->line_a : t->line_b, "%s at %ld", name, line);
		cr_assert(strstr(file, "py_gil_sites.py"), "%s in %s", name, file);
		lines++;
	}
	cr_assert_geq(lines, 2, "Python frames with lines: %d\n%s", lines, tp_dump(&o.t[2]));
	tp_free(&o);
}

static const char *find_go(void)
{
	return access("/usr/bin/go", X_OK) == 0 ? "/usr/bin/go" :
	       access("/usr/local/go/bin/go", X_OK) == 0 ? "/usr/local/go/bin/go" : NULL;
}

/* `go tool pprof -top` lists alpha and beta. */
static void check_pprof(const struct truth *t, const char *go)
{
	char pb[TL_PATH_MAX + 16], out[64][256], err[64][256];
	int nout, nerr;
	snprintf(pb, sizeof(pb), "%s.pb.gz", raw);
	char *rep[] = { LT_BIN, "report", raw, "--profile", "--format", "pprof", "-o", pb, "--force",
			NULL };
	cr_assert_eq(tl_run_to_end(rep, out, &nout, err, &nerr), 0, "%s", nerr ? err[0] : "");
	char *top[] = { (char *)go, "tool", "pprof", "-top", "-show", "^(alpha|beta)$", pb, NULL };
	int rc = tl_run_to_end(top, out, &nout, err, &nerr);
	unlink(pb);
	cr_assert_eq(rc, 0, "go tool pprof -top failed (%d): %s", rc, nerr ? err[nerr - 1] : "");
	int a = 0, b = 0;
	for (int i = 0; i < nout; i++) {
		size_t n = strlen(out[i]);
		a |= n >= 6 && !strcmp(out[i] + n - 6, " alpha");
		b |= n >= 5 && !strcmp(out[i] + n - 5, " beta");
	}
	cr_assert(a && b, "%s: go tool pprof -top lists alpha: %d, beta: %d\n%s\n%s", t->version, a, b,
		  nout > 0 ? out[0] : "", nout > 6 ? out[6] : "");
}

static void gil_sites(const char *py)
{
	struct truth t = { 0 };
	record_gil_sites(py, &t);
	check_trace(&t);
	check_profile(&t);
	check_collapsed(&t);
}

Test(pystacks_live, debian_python3_gil_waits_name_their_python_functions)
{
	gil_sites(TL_PYTHON);
}

/* The GIL waits' stacks copied by the BPF side (--calls all: at the
 * wake-up when alpha lets go of the GIL, or at the call's return when the
 * timed wait timed out), with the waiting thread's Python frames read
 * there too (its thread state known to the BPF side), the reads from
 * /proc off: the same checks, so every stack checked, and beta's waits in
 * the profile, come from the copies. */
Test(pystacks_live, debian_python3_gil_waits_copied_by_bpf_name_their_functions)
{
	struct truth t = { 0 };
	record_gil_sites_bpf(TL_PYTHON, &t, "all");
	check_trace(&t);
	check_profile(&t);
}

/* --calls blocking: the copies taken at the wake-up carry the Python
 * frames too (the GIL's timed waits that time out are woken by a timer:
 * no copy, and no read here, so the profile's coverage is not checked). */
Test(pystacks_live, debian_python3_gil_waits_copied_by_bpf_blocking_name_their_functions)
{
	struct truth t = { 0 };
	record_gil_sites_bpf(TL_PYTHON, &t, "blocking");
	check_trace(&t);
}

Test(pystacks_live, debian_python3_perfetto_callstacks_have_python_frames)
{
	const char *why = tp_missing();
	if (why)
		cr_skip_test("%s", why);
	struct truth t = { 0 };
	record_gil_sites(TL_PYTHON, &t);
	check_perfetto(&t);
}

Test(pystacks_live, debian_python3_go_tool_pprof_reads_python_frames)
{
	const char *go = find_go();
	if (!go)
		cr_skip_test("go is not installed (Debian: apt-get install golang-go): go tool pprof "
			     "reads the profile");
	struct truth t = { 0 };
	record_gil_sites(TL_PYTHON, &t);
	check_pprof(&t, go);
}

#define PYENV_TEST(minor)                                                          \
	Test(pystacks_live, pyenv_cpython_3_##minor##_gil_waits_name_their_functions) \
	{                                                                           \
		char py[512];                                                       \
		tl_skip_unless_root("needs root: loads BPF programs");             \
		pyenv_python(minor, py, sizeof(py));                                \
		gil_sites(py);                                                      \
	}
PYENV_TEST(8)
PYENV_TEST(9)
PYENV_TEST(10)
PYENV_TEST(11)
PYENV_TEST(12)
PYENV_TEST(13)

/* The BPF side's copies only (reads off), --calls all: up to 3.10 the
 * copy takes 16 KiB of stack (a loop frame per Python call), from 3.11
 * 2 KiB; 3.13 has no cframe. */
#define PYENV_BPF_TEST(minor)                                                              \
	Test(pystacks_live, pyenv_cpython_3_##minor##_gil_waits_copied_by_bpf_name_their_functions) \
	{                                                                                   \
		char py[512];                                                               \
		struct truth t = { 0 };                                                     \
		tl_skip_unless_root("needs root: loads BPF programs");                     \
		pyenv_python(minor, py, sizeof(py));                                        \
		record_gil_sites_bpf(py, &t, "all");                                        \
		check_trace(&t);                                                            \
		check_profile(&t);                                                          \
	}
PYENV_BPF_TEST(8)
PYENV_BPF_TEST(10)
PYENV_BPF_TEST(13)

/* ---- the releasing stacks (--calls blocking): the wakers' Python frames,
 * copied by the BPF side at the wake-up ---- */

/* A release stack (the waker's at a wake-up on the GIL) of thread TID:
 * 1 if its Python frames pass through FUNC, which must then be the
 * innermost, at LINE, under the thread's run_X, Thread.run and
 * threading's bootstrap; 0 if it has no Python frame or not FUNC (the
 * thread's start or end). */
static int check_release(const struct lt_stack *s, pid_t tid, const char *func, long line,
			 uint64_t ts)
{
	int first = -1, py = 0, through = 0, run = 0;
	char run_func[16];
	snprintf(run_func, sizeof(run_func), "run_%s", func);
	for (uint32_t i = 0; i < s->nframes; i++) {
		const struct lt_sframe *f = &s->frames[i];
		if (f->lang != LT_SFRAME_PYTHON)
			continue;
		cr_assert_eq(f->pc, 0, "a Python frame with a pc");
		cr_assert(f->func && f->file && f->line > 0, "thread %d, release at %llu: a Python "
			  "frame without a function, file or line", (int)tid, (unsigned long long)ts);
		if (first < 0)
			first = (int)i;
		py++;
		through |= !strcmp(f->func, func);
		run |= !strcmp(f->func, run_func);
	}
	if (!through)
		return 0;
	const struct lt_sframe *f = &s->frames[first];
	cr_assert_str_eq(f->func, func, "thread %d, release at %llu: innermost Python frame %s "
			 "(%s:%u), not %s", (int)tid, (unsigned long long)ts, f->func, f->file, f->line,
			 func);
	cr_assert_eq((long)f->line, line, "thread %d: %s released the GIL at line %u, not %ld",
		     (int)tid, func, f->line, line);
	const char *base = strrchr(f->file, '/');
	cr_assert_str_eq(base ? base + 1 : f->file, "py_gil_sites.py");
	/* the whole chain: run_X, Thread.run, _bootstrap_inner, _bootstrap */
	cr_assert(run, "thread %d: the release through %s has no %s frame", (int)tid, func, run_func);
	cr_assert_geq(py, 5, "thread %d: %d Python frames in a release through %s", (int)tid, py,
		      func);
	cr_assert(!s->end || !strstr(s->end, "Python"), "thread %d: %s", (int)tid, s->end);
	return 1;
}

/* Every release stack of alpha's and beta's threads on the GIL (the
 * wake-side FUTEX_ENTER the waker's stack is filed at) that passes
 * through their function has it innermost, at its line; both have some. */
static void check_trace_releases(const struct truth *t)
{
	struct tl_trace tr;
	struct lt_stacktab st;
	load_stacks(&tr, &st);
	int wakes[2] = { 0 }, with[2] = { 0 }, in[2] = { 0 };
	for (size_t i = 0; i < tr.n; i++) {
		const struct lt_event *e = &tr.ev[i];
		if (!gil_futex_of(t, e, LT_F_AT_WAKE))
			continue;
		int k = e->h.tid == (uint32_t)t->beta;
		wakes[k]++;
		const struct lt_stack *s = lt_stacktab_find(&st, (int32_t)e->h.tid, e->h.ts,
							    LT_STACK_WAKER);
		if (!s)
			continue; /* left for want of unwinding time (a budget) */
		with[k]++;
		cr_assert_eq(s->tgid, (int32_t)tr.hdr.pid);
		in[k] += check_release(s, (pid_t)e->h.tid, k ? "beta" : "alpha",
				       k ? t->line_b : t->line_a, e->h.ts);
	}
	cr_assert(in[0] > 0, "%s: none of alpha's %d GIL releases (%d with a stack) is in alpha()",
		  t->version, wakes[0], with[0]);
	cr_assert(in[1] > 0, "%s: none of beta's %d GIL releases (%d with a stack) is in beta()",
		  t->version, wakes[1], with[1]);
	lt_stacktab_free(&st);
	tl_free(&tr);
}

/* report --profile, "Where the lock was held": GIL entries whose
 * releasing stacks go through alpha and beta at their lines. */
static void check_profile_releases(const struct truth *t)
{
	int nl;
	tl_line *lines = tl_profile_lines(raw, &nl);
	char want_a[64], want_b[64];
	profile_frames(t, want_a, want_b);
	int held = 0, cur_gil = 0, n[2] = { 0 };
	for (int i = 0; i < nl; i++) {
		const char *line = lines[i];
		int r;
		double v;
		if (!strncmp(line, "Where the lock was held", 23)) {
			held = 1;
			continue;
		}
		if (!held)
			continue;
		if (sscanf(line, "#%d %lf ms of waiting ended by", &r, &v) == 2) {
			cur_gil = on_gil(t, line);
			continue;
		}
		for (int k = 0; k < 2 && cur_gil; k++)
			n[k] += !strcmp(line, k ? want_b : want_a);
	}
	free(lines);
	cr_assert(held, "%s: the profile has no releasing stacks", t->version);
	cr_assert(n[0] && n[1], "%s: no releasing stack on the GIL through %s", t->version,
		  !n[0] ? want_a : want_b);
}

/* --format collapsed: "release of futex 0x... ...;run_alpha;alpha;... US"
 * (outer frames first). */
static void check_collapsed_releases(const struct truth *t)
{
	int a, b;
	collapsed_through("release of ", &a, &b);
	cr_assert(a && b, "%s: collapsed releasing stacks through alpha: %d, through beta: %d",
		  t->version, a, b);
}

/* 150 rounds (3 s and more): the unwinder spends at most 0.2 s a second
 * on wakers, and the first unwinding of a process reads its modules' CFI
 * (0.2 - 0.7 s here): the releases after that second have their stacks. */
static void gil_releases(const char *py)
{
	struct truth t = { 0 };
	record_gil_sites_as(py, &t, "150", "blocking");
	check_trace_releases(&t);
	check_profile_releases(&t);
	check_collapsed_releases(&t);
}

Test(pystacks_live, debian_python3_gil_releases_name_their_python_functions)
{
	gil_releases(TL_PYTHON);
}

#define PYENV_RELEASE_TEST(minor)                                                     \
	Test(pystacks_live, pyenv_cpython_3_##minor##_gil_releases_name_their_functions) \
	{                                                                              \
		char py[512];                                                          \
		tl_skip_unless_root("needs root: loads BPF programs");                \
		pyenv_python(minor, py, sizeof(py));                                   \
		gil_releases(py);                                                      \
	}
PYENV_RELEASE_TEST(8)
PYENV_RELEASE_TEST(9)
PYENV_RELEASE_TEST(10)
PYENV_RELEASE_TEST(11)
PYENV_RELEASE_TEST(12)
PYENV_RELEASE_TEST(13)

/* ---- a threading.Lock's release site (tests/workloads/py_lock_sites.py):
 * holder() releases the lock at line LR while waiter() waits for it ---- */

struct lock_truth {
	pid_t holder, waiter;
	long line_r;
};

static void record_lock_sites(const char *py, struct truth *gt, struct lock_truth *lt)
{
	struct truth t = { 0 };
	char *argv[] = { (char *)py, "tests/workloads/py_lock_sites.py", "--gate", "--linger", NULL };
	char done[8][256];
	int nd = 0;
	record_python(py, argv, &t, "pylock", "blocking", done, &nd);
	*gt = t;
	*lt = (struct lock_truth){
		.holder = (pid_t)tl_truth_val(truth, ntruth, "thread", "role=holder", "tid"),
		.waiter = (pid_t)tl_truth_val(truth, ntruth, "thread", "role=waiter", "tid"),
		.line_r = (long)tl_truth_val(truth, ntruth, "site", "name=release", "line"),
	};
}

static void lock_releases(const char *py)
{
	struct truth t;
	struct lock_truth l;
	record_lock_sites(py, &t, &l);
	pid_t holder = l.holder, waiter = l.waiter;
	long line_r = l.line_r;

	/* the trace: the holder's wake-ups outside the GIL (the lock's
	 * semaphore) whose stack goes through holder() have it innermost at
	 * LR, and one of them ended a wait of the waiter */
	struct tl_trace tr;
	struct lt_stacktab st;
	load_stacks(&tr, &st);
	int wakes = 0, with = 0, at_lr = 0;
	for (size_t i = 0; i < tr.n; i++) {
		const struct lt_event *e = &tr.ev[i];
		if (e->h.kind != LT_EV_FUTEX_ENTER || !(e->h.flags & LT_F_AT_WAKE) ||
		    e->h.tid != (uint32_t)holder ||
		    (e->futex.uaddr >= t.gil && e->futex.uaddr - t.gil < t.gil_size))
			continue;
		wakes++;
		const struct lt_stack *s = lt_stacktab_find(&st, (int32_t)e->h.tid, e->h.ts,
							    LT_STACK_WAKER);
		if (!s)
			continue;
		with++;
		const struct lt_sframe *first = NULL;
		for (uint32_t k = 0; k < s->nframes && !first; k++)
			if (s->frames[k].lang == LT_SFRAME_PYTHON)
				first = &s->frames[k];
		if (!first || strcmp(first->func, "holder"))
			continue; /* threading's own code (the gate, the end) */
		cr_assert_eq((long)first->line, line_r, "%s: holder released a lock at line %u, not %ld",
			     t.version, first->line, line_r);
		const char *base = strrchr(first->file, '/');
		cr_assert_str_eq(base ? base + 1 : first->file, "py_lock_sites.py");
		/* the waiter was woken by it: a waking event for its tid */
		for (size_t j = i + 1; j < tr.n && tr.ev[j].h.ts == e->h.ts; j++)
			if (tr.ev[j].h.kind == LT_EV_WAKING && tr.ev[j].h.tid == (uint32_t)waiter)
				at_lr++;
	}
	cr_assert_gt(at_lr, 0, "%s: none of holder's %d wake-ups outside the GIL (%d with a stack) "
		     "woke the waiter from holder() at line %ld", t.version, wakes, with, line_r);
	lt_stacktab_free(&st);
	tl_free(&tr);

	/* the profile: a release entry outside the GIL through holder at LR */
	char want[96];
	int nl;
	tl_line *lines = tl_profile_lines(raw, &nl);
	snprintf(want, sizeof(want), "      holder (py_lock_sites.py:%ld) [python]", line_r);
	int held = 0, gil = 0, found = 0;
	for (int i = 0; i < nl; i++) {
		const char *line = lines[i];
		int r;
		double v;
		held |= !strncmp(line, "Where the lock was held", 23);
		if (held && sscanf(line, "#%d %lf ms of waiting ended by", &r, &v) == 2) {
			gil = on_gil(&t, line);
			continue;
		}
		found += held && !gil && !strcmp(line, want);
	}
	free(lines);
	cr_assert(found, "%s: no releasing stack of a lock through %s", t.version, want);
}

Test(pystacks_live, debian_python3_lock_releases_name_their_python_function)
{
	lock_releases(TL_PYTHON);
}

/* The Perfetto trace: the holder's FUTEX_WAKE slices (where the flows to
 * the waiter's waits begin) carry the release site's callstack through
 * holder, whose frame has the workload's file and the release line. */
Test(pystacks_live, debian_python3_perfetto_release_callstacks_have_python_frames)
{
	const char *why = tp_missing();
	if (why)
		cr_skip_test("%s", why);
	struct truth t;
	struct lock_truth l;
	record_lock_sites(TL_PYTHON, &t, &l);
	struct tp_out o;
	perfetto_callstacks(l.holder, "FUTEX_WAKE", "= 'holder'", &o);
	int rel = 0;
	for (size_t i = 0; i < o.t[0].nrows; i++)
		rel += tp_chain_has(&o.t[1], tp_get(&o.t[0], i, "cs"), "holder");
	cr_assert_gt(rel, 0, "no FUTEX_WAKE slice of the holder has a callstack through holder\n%s",
		     tp_dump(&o.t[0]));
	int at = 0;
	for (size_t i = 0; i < o.t[2].nrows; i++) {
		int ok;
		const char *file = tp_get(&o.t[2], i, "file");
		long line = (long)tp_int(&o.t[2], i, "line", &ok);
		cr_assert(ok && file && strstr(file, "py_lock_sites.py"), "holder in %s", file);
		at += line == l.line_r;
	}
	cr_assert_gt(at, 0, "no holder frame at the release line %ld\n%s", l.line_r,
		     tp_dump(&o.t[2]));
	tp_free(&o);
}

#define PYENV_LOCK_TEST(minor)                                                         \
	Test(pystacks_live, pyenv_cpython_3_##minor##_lock_releases_name_their_function) \
	{                                                                               \
		char py[512];                                                           \
		tl_skip_unless_root("needs root: loads BPF programs");                 \
		pyenv_python(minor, py, sizeof(py));                                    \
		lock_releases(py);                                                      \
	}
PYENV_LOCK_TEST(8)
PYENV_LOCK_TEST(13)
