/* record --stacks on OCaml 5, end to end as root: a program whose two
 * OCaml functions lock the same Stdlib Mutex at known lines, held for
 * known times by another thread (tests/workloads/ocaml5/sites5.ml, built
 * by the real OCaml 5.2.0 and 5.4.0+dev compilers of ../shared/tools).
 * OCaml 5 runs OCaml code on a stack of its own: the recorder copies it
 * with the waiter's C stack (src/record/stackrec_ocaml.h).  Checked:
 *   - every wait of the waiter on the mutex (each lasts the hold time, 30
 *     ms and more) but those the recorder says it came too late for (its
 *     summary's count: a wait keeps its stack only if the collector reads
 *     it while it sleeps, and on a loaded machine it has been seen 30 ms
 *     late) has a stack through caml_ml_mutex_lock and caml_c_call
 *     into the OCaml function (Sites5.site_alpha or site_beta) at its
 *     Mutex.lock line in sites5.ml, then the OCaml caller (Sites5.waiter)
 *     and the thread's start (nothing cut short);
 *   - `report --profile` names them in OCaml's terms, as the snapshot
 *     does ("Sites5.site_alpha+0x.. (sites5.ml:LINE)"), alpha (the longer
 *     hold) ranked first, each adding up to the waiter's waits in the
 *     trace whose stacks go through it (the program's own measure of its
 *     wait, in the messages, also holds the time the waiter ran or sat
 *     runnable in Mutex.lock outside any wait);
 *   - the collapsed lines name them too ("...;Sites5.site_alpha;..."),
 *     adding up to the same;
 *   - the BPF side copies none of its waiters at their wake-ups (their
 *     copies would lack the OCaml stack and be dropped: the summary counts
 *     the waits it left to the reads, and no copy dropped);
 *   - with --calls blocking (a second recording), the same, and each of
 *     the holder's unlocks that woke the waiter has its releasing stack,
 *     copied by the BPF side at the wake-up with its OCaml stack
 *     (include/locktrace/ocframes.h): through caml_ml_mutex_unlock and
 *     caml_c_call to Sites5.hold_for at the unlock's line and on to the
 *     thread's start; never an OCaml frame read afterwards, where the
 *     holder is by then (its Unix.sleepf after the unlock); a stack that
 *     stops at caml_c_call must say that the OCaml stack was not copied
 *     (and fails the count of those that go on).
 * The workload is attached to (-p) before its first wait: the recorder
 * reads the program's symbols first (as for Python frames).  The recorder
 * runs without its symbol cache, as on a fresh machine.  Where a compiler
 * tarball is absent the test of that version skips, saying so. */
#include <criterion/criterion.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <signal.h>
#include <string.h>
#include <unistd.h>
#include "demangle.h"
#include "lt_test.h"
#include "stacks.h"
#include "locktrace/futex.h"

#define ROUNDS "4"
#define NROUNDS 4

TL_RECORDING(64);
TestSuite(ocaml5_stacks_live, .fini = tl_recording_fini, .timeout = 180);

struct truth {
	uint32_t waiter, holder;
	uint64_t lock;
	long line_a, line_b, line_release;
	double wait_a_us, wait_b_us;
	/* from the trace: the waiter's waits on the mutex whose stacks go
	 * through each site (ms) */
	double through_ms[2];
	/* from the recorder's summary: waits of 1 ms or more over before it
	 * came to read them */
	unsigned long long unread;
};

/* The workload built with OCaml VERSION (tl_ocaml5_workload). */
static const char *workload(const char *version)
{
	return tl_ocaml5_workload(version, "ocaml5_sites", "needs root: loads BPF programs to record an OCaml 5 program");
}

/* Starts the workload, attaches the recorder (--stacks --calls CALLS), lets
 * the workload run its rounds, stops the recorder. */
static void record_sites(const char *version, const char *calls, struct truth *t)
{
	char done[8][256];
	int nd = 0;
	/* holds of 60 and 30 ms: a wait gets its stack if the collector
	 * copies it while it sleeps, and on a loaded machine the collector
	 * has been seen to come 15 ms after the 1 ms it waits for */
	char *argv[] = { (char *)workload(version), "-r", ROUNDS, "-a", "60", "-b", "30", NULL };
	tl_start_ready(&wl, argv, truth, &ntruth, 64, 30000);
	t->lock = tl_truth_val(truth, ntruth, "lock", "name=sitelock", "addr");
	char *extra[] = { "--stacks", "--calls", (char *)calls, NULL };
	tl_tmp_path(raw, TL_PATH_MAX, "ocaml5-stacks");
	setenv("LOCKTRACE_CACHE_DIR", "off", 1);
	int rc = tl_start_recorder(&rec, wl.pid, raw, extra);
	unsetenv("LOCKTRACE_CACHE_DIR");
	cr_assert_eq(rc, 0, "locktrace record -p %d --stacks did not start", (int)wl.pid);
	tl_go(&wl);
	cr_assert(tl_wait_for(&wl, 0, "done", done, &nd, 8, 120000), "ocaml5_sites never finished");
	kill(rec.pid, SIGINT); /* Ctrl-C: the recorder finishes what it copied */
	/* the summary: the BPF side copied none of the waiters (their OCaml
	 * stacks are read where they sleep), it counted those it did not */
	static char sum[64][256];
	int ns = 0, not_copied = 0;
	cr_assert(tl_wait_for(&rec, 1, "  trace: ", sum, &ns, 64, 60000), "no summary from the recorder");
	for (int i = 0; i < ns; i++) {
		cr_assert_null(strstr(sum[i], "left for the reads"), "the BPF side copied waiters of an OCaml 5 "
			       "program to be dropped: %s", sum[i]);
		not_copied |= strstr(sum[i], "long waits of OCaml 5 or JVM threads not copied by the BPF side") != NULL;
		unsigned long long n;
		if (sscanf(sum[i], "  stacks: %llu waits of 1 ms or more were over before the collector", &n) == 1)
			t->unread = n;
	}
	cr_assert(not_copied, "the summary does not count the waits the BPF side left to the reads");
	tl_recorder_done(&rec, &wl, 60000);
	t->waiter = (uint32_t)tl_truth_val(done, nd, "thread", "role=waiter", "tid");
	t->holder = (uint32_t)tl_truth_val(done, nd, "thread", "role=holder", "tid");
	t->line_release = (long)tl_truth_val(done, nd, "site", "name=release", "line");
	t->line_a = (long)tl_truth_val(done, nd, "site", "name=alpha", "line");
	t->line_b = (long)tl_truth_val(done, nd, "site", "name=beta", "line");
	t->wait_a_us = (double)tl_truth_val(done, nd, "done", "rounds=", "alpha_wait_us");
	t->wait_b_us = (double)tl_truth_val(done, nd, "done", "rounds=", "beta_wait_us");
}

/* The frame index of FUNC (OCaml's name) in S, or -1. */
static int frame_of(const struct lt_stack *s, const char *func)
{
	char dm[256];
	for (uint32_t i = 0; i < s->nframes; i++)
		if (s->frames[i].func && lt_demangle_ocaml(s->frames[i].func, dm, sizeof(dm)) &&
		    !strcmp(dm, func))
			return (int)i;
	return -1;
}

/* --calls blocking: each of the holder's unlocks that woke the waiter (its
 * FUTEX_ENTER at the wake-up) has the holder's stack, copied by the BPF
 * side at the wake-up: Mutex.unlock's C frames up to caml_c_call, then
 * either the end, saying the OCaml stack was not copied at the wake-up,
 * or Sites5.hold_for at the unlock's line; never an OCaml frame at another
 * line (where the holder went on to after the unlock).  2 * NROUNDS. */
static void check_wakers(const struct tl_trace *tr, const struct lt_stacktab *st,
			 const struct truth *t)
{
	int n = 0, through = 0;
	for (size_t i = 0; i < tr->n; i++) {
		const struct lt_event *e = &tr->ev[i];
		if (e->h.kind != LT_EV_FUTEX_ENTER || e->h.tid != t->holder || e->futex.uaddr != t->lock ||
		    !(e->h.flags & LT_F_AT_WAKE))
			continue;
		const struct lt_stack *s = lt_stacktab_find(st, (int32_t)e->h.tid, e->h.ts, LT_STACK_WAKER);
		cr_assert(s, "the holder's wake-up at %llu has no stack", (unsigned long long)e->h.ts);
		int unlock = tl_frame_named(s, "caml_ml_mutex_unlock"), call = tl_frame_named(s, "caml_c_call");
		cr_assert(unlock >= 0 && call == unlock + 1, "no caml_ml_mutex_unlock < caml_c_call in the "
			  "release stack at %llu", (unsigned long long)e->h.ts);
		if ((uint32_t)call + 1 == s->nframes) {
			cr_assert(s->end && strstr(s->end, "after caml_c_call") &&
				  strstr(s->end, "OCaml stack was not copied"),
				  "the release stack at %llu stops at caml_c_call without saying why: %s",
				  (unsigned long long)e->h.ts, s->end ? s->end : "(no end)");
		} else {
			const struct lt_sframe *f = &s->frames[call + 1];
			char dm[256];
			const char *name = f->func && lt_demangle_ocaml(f->func, dm, sizeof(dm)) ? dm :
					   f->func ? f->func : "?";
			cr_assert(!strcmp(name, "Sites5.hold_for") && (long)f->line == t->line_release,
				  "the release stack at %llu goes on from caml_c_call to %s at line %u, not to "
				  "Sites5.hold_for at the unlock's line %ld (end: %s)",
				  (unsigned long long)e->h.ts, name, f->line, t->line_release,
				  s->end ? s->end : "none");
			cr_assert_null(s->end, "the release stack at %llu stopped early: %s",
				       (unsigned long long)e->h.ts, s->end);
			through++;
		}
		n++;
	}
	cr_assert_eq(n, 2 * NROUNDS, "the holder's wake-ups of the waiter with a stack: %d", n);
	/* the BPF side copies the OCaml stack at the wake-up (ocframes.h):
	 * the holder sits in caml_c_call, whose link is in the C stack copied */
	cr_assert_eq(through, n, "%d of the %d release stacks go on to Sites5.hold_for at the unlock's "
		     "line; the others stop at caml_c_call", through, n);
}

/* Each of the waiter's futex waits on the mutex has its stack: the C
 * frames of Mutex.lock, then the site's OCaml function at its line, its
 * caller, and the thread's start.  NROUNDS of each site. */
static void check_trace(struct truth *t)
{
	struct tl_trace tr;
	struct lt_stacktab st = { 0 };
	tl_load_clean(&tr, raw);
	cr_assert_eq(lt_trace_stacks(raw, &st), 0);
	cr_assert(!st.damaged);
	int seen[3] = { 0 }, missing = 0;
	size_t first_missing = 0;
	/* the latest copy of a stack, after its wait began */
	uint64_t latest = tl_latest_waiter_copy(&st);
	for (size_t i = 0; i < tr.n; i++) {
		const struct lt_event *e = &tr.ev[i];
		if (e->h.kind != LT_EV_FUTEX_ENTER || e->h.tid != t->waiter || e->futex.uaddr != t->lock ||
		    (e->h.flags & LT_F_AT_WAKE))
			continue;
		unsigned cmd = e->futex.op & LT_FUTEX_CMD_MASK;
		if (cmd != 0 && cmd != 9)
			continue; /* its FUTEX_WAKEs at unlock */
		const struct lt_stack *s = lt_stacktab_find(&st, (int32_t)e->h.tid, e->h.ts, LT_STACK_WAITER);
		/* the copy is made from user space while the thread sleeps:
		 * say how late the collector was with the others */
		if (!s) {
			/* promised only if the collector came while it slept:
			 * counted below against the recorder's own count of
			 * the long waits it came too late for */
			if (!missing++)
				first_missing = i;
			continue;
		}
		int lock = tl_frame_named(s, "caml_ml_mutex_lock"), call = tl_frame_named(s, "caml_c_call");
		int a = frame_of(s, "Sites5.site_alpha"), b = frame_of(s, "Sites5.site_beta");
		int w = frame_of(s, "Sites5.waiter");
		cr_assert(lock >= 0 && call == lock + 1, "no caml_ml_mutex_lock < caml_c_call in the stack "
			  "of the wait at %llu", (unsigned long long)e->h.ts);
		cr_assert((a >= 0) != (b >= 0), "the stack of the wait at %llu names %s site (after "
			  "caml_c_call: %s; end: %s)", (unsigned long long)e->h.ts, a >= 0 ? "both" : "neither",
			  (size_t)call + 1 < s->nframes && s->frames[call + 1].func ? s->frames[call + 1].func : "?",
			  s->end ? s->end : "none");
		int site = a >= 0 ? 1 : 2, k = a >= 0 ? a : b;
		const struct lt_sframe *f = &s->frames[k];
		cr_assert_eq(k, call + 1, "the site's function is not caml_c_call's caller");
		cr_assert(f->file && strstr(f->file, "sites5.ml"), "%s in file %s", f->func,
			  f->file ? f->file : "(none)");
		long want = site == 1 ? t->line_a : t->line_b;
		cr_assert_eq((long)f->line, want, "%s at line %u, not %ld", f->func, f->line, want);
		cr_assert_eq(w, k + 1, "Sites5.waiter is not the caller of the site");
		cr_assert_null(s->end, "the unwind stopped early: %s", s->end);
		seen[site]++;
		t->through_ms[site - 1] += (double)tl_wait_len(&tr, i) / 1e6;
	}
	cr_assert((unsigned long long)missing <= t->unread,
		  "%d of the waiter's waits on the mutex have no stack (the first at %llu, %.1f ms), and the "
		  "recorder counted %llu waits of 1 ms or more it came too late for (the other waits' stacks "
		  "were copied up to %.1f ms after they began)", missing,
		  missing ? (unsigned long long)tr.ev[first_missing].h.ts : 0ull,
		  missing ? (double)tl_wait_len(&tr, first_missing) / 1e6 : 0.0, t->unread, (double)latest / 1e6);
	cr_assert_eq(seen[1] + seen[2] + missing, 2 * NROUNDS, "the waiter's waits on the mutex: %d through "
		     "Sites5.site_alpha, %d through Sites5.site_beta, %d without a stack", seen[1], seen[2], missing);
	cr_assert(seen[1] <= NROUNDS && seen[2] <= NROUNDS && seen[1] > 0 && seen[2] > 0,
		  "waits with Sites5.site_alpha's stack: %d, with Sites5.site_beta's: %d", seen[1], seen[2]);
	if (tr.hdr.flags & LT_HDR_CALLS_BLOCKING)
		check_wakers(&tr, &st, t);
	lt_stacktab_free(&st);
	tl_free(&tr);
}

/* report --profile: an entry per site on the mutex, in OCaml's terms at
 * the lock call's line, its total the trace's waits through it, ranked in
 * their order (alpha holds longer). */
static void check_profile(const struct truth *t)
{
	char lockt[64], where[2][64];
	int nout;
	tl_line *out = tl_profile_lines(raw, &nout);
	snprintf(lockt, sizeof(lockt), "futex 0x%" PRIx64 " ", t->lock);
	snprintf(where[0], sizeof(where[0]), "(sites5.ml:%ld)", t->line_a);
	snprintf(where[1], sizeof(where[1]), "(sites5.ml:%ld)", t->line_b);
	const char *const func[2] = { "Sites5.site_alpha", "Sites5.site_beta" };
	const char *const at[2] = { where[0], where[1] };
	const double want[2] = { t->wait_a_us, t->wait_b_us };
	const int nent[2] = { 1, 1 }; /* tl_profile_sites: one each */
	int rank[2];
	double ms[2], slack[2];
	tl_profile_sites(out, nout, lockt, func, at, rank, ms, slack);
	tl_check_site_trace(rank, ms, nent, slack, t->through_ms, want, func);
	free(out);
}

/* --format collapsed: the lines rooted at the mutex through each site's
 * OCaml name add up to the trace's waits through it (each line in whole
 * µs, cut). */
static void check_collapsed(const struct truth *t)
{
	char out[64][256], err[64][256], path[TL_PATH_MAX + 16], root[64], line[4096];
	int nout, nerr;
	snprintf(path, sizeof(path), "%s.folded", raw);
	char *rep[] = { LT_BIN, "report", raw, "--profile", "--format", "collapsed", "-o", path, "--force",
			NULL };
	cr_assert_eq(tl_run_to_end(rep, out, &nout, err, &nerr), 0, "%s", nerr ? err[0] : "");
	FILE *f = fopen(path, "r");
	cr_assert(f, "no %s", path);
	snprintf(root, sizeof(root), "futex 0x%" PRIx64 " ", t->lock);
	double us[3] = { 0 };
	int lines[3] = { 0 };
	while (fgets(line, sizeof(line), f)) {
		const char *sp = strrchr(line, ' ');
		if (strncmp(line, root, strlen(root)) || !sp)
			continue;
		int k = strstr(line, ";Sites5.waiter;Sites5.site_alpha;caml_c_call;caml_ml_mutex_lock;") ? 1 :
			strstr(line, ";Sites5.waiter;Sites5.site_beta;caml_c_call;caml_ml_mutex_lock;") ? 2 : 0;
		if (k) {
			us[k] += strtod(sp + 1, NULL);
			lines[k]++;
		}
	}
	fclose(f);
	unlink(path);
	const char *const name[3] = { NULL, "Sites5.site_alpha", "Sites5.site_beta" };
	const double measured[3] = { 0, t->wait_a_us, t->wait_b_us };
	for (int k = 1; k < 3; k++) {
		double want = t->through_ms[k - 1] * 1e3;
		cr_assert(us[k] <= want + 1e-3 && us[k] > want - lines[k] - 1e-3,
			  "collapsed lines through %s: %.0f us in %d lines; the trace has %.3f us of the "
			  "waiter's waits through it (the program measured %.0f us)", name[k], us[k], lines[k],
			  want, measured[k]);
	}
}

static void run(const char *version, const char *calls)
{
	struct truth t = { 0 };
	record_sites(version, calls, &t);
	check_trace(&t);
	check_profile(&t);
	check_collapsed(&t);
}

Test(ocaml5_stacks_live, mutex_waits_name_the_ocaml_sites_5_2_0)
{
	run("5.2.0", "all");
}

Test(ocaml5_stacks_live, mutex_waits_name_the_ocaml_sites_5_4_0_dev)
{
	run("5.4.0+dev", "all");
}

/* --calls blocking: the same waits, and the releasing stacks */
Test(ocaml5_stacks_live, release_stacks_hold_no_later_ocaml_frames_5_2_0)
{
	run("5.2.0", "blocking");
}

Test(ocaml5_stacks_live, release_stacks_hold_no_later_ocaml_frames_5_4_0_dev)
{
	run("5.4.0+dev", "blocking");
}
