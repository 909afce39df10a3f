/* record --stacks, end to end as root: a program whose two functions lock
 * the same mutex at known lines, held for known times by another thread
 * (tests/workloads/stack_sites.c).  Every wait of the waiter on the mutex
 * lasts at least the hold time (12 ms and more), so each must have a stack,
 * and that stack must name the function and the line (DWARF) of its lock
 * call; the Perfetto trace must carry the same callstacks on the wait
 * slices (checked with Perfetto's trace processor).  The recorder runs
 * without its symbol cache, as on a fresh machine.  Without root each
 * test says why it skips. */
#include <criterion/criterion.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include "lt_test.h"
#include "loader.h"
#include "stacks.h"
#include "tp.h"
#include "locktrace/futex.h"

#define NEED_ROOT() tl_skip_unless_root("needs root: loads BPF programs to record a workload")
#define ROUNDS 4

struct truth {
	uint32_t waiter, holder;
	long line_release;
	uint64_t lock;
	long line_a, line_b;
	double wait_a_us, wait_b_us;
	int rounds; /* the workload's: each site waited this many times */
};

/* the last record_sites' recorder's stderr (its summary) */
static char last_err[64][256];
static int last_nerr;

/* stack_sites -r ROUNDS -a HOLD_A_MS -b HOLD_B_MS recorded with --stacks
 * --calls CALLS and EXTRA (NULL: none); WSTACKS: LOCKTRACE_WAITER_STACKS
 * for the recorder (NULL: unset). */
static void record_sites(const char *raw, const char *calls, struct truth *t, const char *extra,
			 const char *rounds, const char *hold_a, const char *hold_b,
			 const char *wstacks)
{
	char out[64][256], err[64][256];
	int nout, nerr;
	char *rec[24] = { LT_BIN, "record", "-o", (char *)raw, "--no-status", "--stacks", "--calls",
			  (char *)calls };
	int k = 8;
	if (extra)
		rec[k++] = (char *)extra;
	rec[k++] = "--";
	rec[k++] = WL("stack_sites");
	rec[k++] = "--no-wait";
	rec[k++] = "-r";
	rec[k++] = (char *)rounds;
	rec[k++] = "-a";
	rec[k++] = (char *)hold_a;
	rec[k++] = "-b";
	rec[k++] = (char *)hold_b;
	rec[k] = NULL;
	/* as on a fresh machine: no symbol cache, so the first stack reads
	 * libc's debug information (0.1 s), and the waits that begin
	 * meanwhile must still get theirs */
	setenv("LOCKTRACE_CACHE_DIR", "off", 1);
	if (wstacks)
		setenv("LOCKTRACE_WAITER_STACKS", wstacks, 1);
	int rc = tl_run_to_end(rec, out, &nout, err, &nerr);
	unsetenv("LOCKTRACE_CACHE_DIR");
	unsetenv("LOCKTRACE_WAITER_STACKS");
	memcpy(last_err, err, sizeof(last_err));
	last_nerr = nerr;
	cr_assert_eq(rc, 0, "locktrace record --stacks failed (%d): %s", rc, nerr ? err[0] : "");
	t->waiter = (uint32_t)tl_truth_val(out, nout, "thread", "role=waiter", "tid");
	t->holder = (uint32_t)tl_truth_val(out, nout, "thread", "role=holder", "tid");
	t->line_release = (long)tl_truth_val(out, nout, "site", "name=release", "line");
	t->lock = tl_truth_val(out, nout, "lock", "name=sitelock", "addr");
	t->line_a = (long)tl_truth_val(out, nout, "site", "name=alpha", "line");
	t->line_b = (long)tl_truth_val(out, nout, "site", "name=beta", "line");
	t->wait_a_us = (double)tl_truth_val(out, nout, "done", "rounds=", "alpha_wait_us");
	t->wait_b_us = (double)tl_truth_val(out, nout, "done", "rounds=", "beta_wait_us");
	t->rounds = (int)tl_truth_val(out, nout, "done", "rounds=", "rounds");
	cr_assert_eq(t->rounds, atoi(rounds));
}

static void record(const char *raw, const char *calls, struct truth *t, const char *extra)
{
	record_sites(raw, calls, t, extra, "4", "30", "12", NULL);
}

/* The site (1 alpha, 2 beta) whose function a stack passes through, with
 * the line of its frame; 0 if neither. */
static int site_of(const struct lt_stack *s, long *line)
{
	for (uint32_t i = 0; i < s->nframes; i++) {
		const struct lt_sframe *f = &s->frames[i];
		if (!f->func)
			continue;
		int site = !strcmp(f->func, "site_alpha") ? 1 : !strcmp(f->func, "site_beta") ? 2 : 0;
		if (site) {
			*line = f->line;
			cr_assert(f->file && strstr(f->file, "stack_sites.c"), "frame %s in file %s",
				  f->func, f->file ? f->file : "(none)");
			return site;
		}
	}
	return 0;
}

/* --calls blocking: each of the holder's unlocks that woke the waiter
 * (its FUTEX_ENTER at the wake-up) has the holder's stack, through
 * hold_for at the unlock's line: the release site.  2 * ROUNDS of them. */
static void check_wakers(const struct tl_trace *tr, const struct lt_stacktab *st,
			 const struct truth *t)
{
	int n = 0;
	for (size_t i = 0; i < tr->n; i++) {
		const struct lt_event *e = &tr->ev[i];
		if (e->h.kind != LT_EV_FUTEX_ENTER || e->h.tid != t->holder ||
		    e->futex.uaddr != t->lock || !(e->h.flags & LT_F_AT_WAKE))
			continue;
		const struct lt_stack *s = lt_stacktab_find(st, (int32_t)e->h.tid, e->h.ts,
							    LT_STACK_WAKER);
		cr_assert(s, "the holder's wake-up at %llu has no stack", (unsigned long long)e->h.ts);
		int found = 0;
		for (uint32_t k = 0; k < s->nframes; k++)
			if (s->frames[k].func && !strcmp(s->frames[k].func, "hold_for")) {
				cr_assert_eq((long)s->frames[k].line, t->line_release,
					     "hold_for at line %u, not %ld", s->frames[k].line,
					     t->line_release);
				found = 1;
			}
		cr_assert(found, "the release stack at %llu has no hold_for frame",
			  (unsigned long long)e->h.ts);
		n++;
	}
	cr_assert_eq(n, 2 * t->rounds, "the holder's wake-ups with a stack: %d", n);
}

/* Each of the waiter's futex waits on the mutex has its stack, naming the
 * site's function at its lock call's line: ROUNDS of each site. */
static void check_trace(const char *raw, const struct truth *t)
{
	struct tl_trace tr;
	struct lt_stacktab st = { 0 };
	tl_load_clean(&tr, raw);
	cr_assert_eq(tr.hdr.version_minor, LT_VERSION_MINOR);
	cr_assert_eq(lt_trace_stacks(raw, &st), 0);
	cr_assert(!st.damaged);
	int seen[3] = { 0 };
	for (size_t i = 0; i < tr.n; i++) {
		const struct lt_event *e = &tr.ev[i];
		if (e->h.kind != LT_EV_FUTEX_ENTER || e->h.tid != t->waiter ||
		    e->futex.uaddr != t->lock || (e->h.flags & LT_F_AT_WAKE))
			continue;
		unsigned cmd = e->futex.op & LT_FUTEX_CMD_MASK;
		if (cmd != 0 && cmd != 9)
			continue; /* its FUTEX_WAKEs at unlock */
		const struct lt_stack *s = lt_stacktab_find(&st, (int32_t)e->h.tid, e->h.ts,
							    LT_STACK_WAITER);
		cr_assert(s, "the waiter's wait at %llu on the mutex has no stack",
			  (unsigned long long)e->h.ts);
		cr_assert_eq(s->tgid, (int32_t)tr.hdr.pid);
		long line = 0;
		int site = site_of(s, &line);
		cr_assert(site, "the stack of the wait at %llu names neither site (innermost %s)",
			  (unsigned long long)e->h.ts, s->nframes && s->frames[0].func ?
			  s->frames[0].func : "?");
		cr_assert_eq(line, site == 1 ? t->line_a : t->line_b, "site %d at line %ld, not %ld",
			     site, line, site == 1 ? t->line_a : t->line_b);
		/* innermost: the lock's own wait in glibc; outermost: the
		 * thread's start */
		cr_assert(s->nframes >= 4);
		cr_assert_null(s->end, "the unwind stopped early: %s", s->end);
		seen[site]++;
	}
	cr_assert_eq(seen[1], t->rounds, "waits with site_alpha's stack: %d", seen[1]);
	cr_assert_eq(seen[2], t->rounds, "waits with site_beta's stack: %d", seen[2]);
	if (tr.hdr.flags & LT_HDR_CALLS_BLOCKING)
		check_wakers(&tr, &st, t);
	lt_stacktab_free(&st);
	tl_free(&tr);
}

/* report --profile, the releasing stacks (--calls blocking): every wait on
 * the mutex was ended by the holder's unlock in hold_for at its line, so
 * the entries through hold_for hold the sites' waits (alpha's and beta's,
 * within 10% of the program's measure) in 2 * ROUNDS releases. */
static void check_releases(char out[][256], int nout, const struct truth *t)
{
	int i = 0, n = 0;
	while (i < nout && strncmp(out[i], "Where the lock was held", 23))
		i++;
	cr_assert_lt(i, nout, "no releasing stacks in the profile");
	char want[64];
	snprintf(want, sizeof(want), " hold_for+");
	double ms = 0, cur_ms = 0;
	int cur_n = 0, cur_lock = 0;
	long count = 0;
	for (i++; i < nout; i++) {
		int r;
		double v;
		if (sscanf(out[i], "#%d %lf ms of waiting ended by %d", &r, &v, &cur_n) == 3) {
			cur_ms = v;
			cur_lock = strstr(out[i], "<sitelock>") != NULL;
			continue;
		}
		if (cur_lock && strstr(out[i], want)) {
			char line[48];
			snprintf(line, sizeof(line), "(stack_sites.c:%ld)", t->line_release);
			cr_assert(strstr(out[i], line), "hold_for not at line %ld: %s", t->line_release,
				  out[i]);
			ms += cur_ms;
			count += cur_n;
			n++;
		}
	}
	cr_assert_geq(n, 1, "no releasing stack through hold_for on the mutex");
	cr_assert_eq(count, 2 * ROUNDS, "releases through hold_for: %ld", count);
	double want_ms = (t->wait_a_us + t->wait_b_us) / 1e3;
	cr_assert(ms >= want_ms * 0.9 && ms <= want_ms * 1.1, "the releases ended %.1f ms of "
		  "waiting, the program measured %.1f ms", ms, want_ms);
}

/* report --profile: an entry per site on the mutex, its total within 10%
 * of the waiter's own measure, ranked in the order of those measures
 * (alpha holds longer). */
static void check_profile(const char *raw, const struct truth *t, int blocking)
{
	int nout;
	tl_line *out = tl_profile_lines(raw, &nout);
	const char *const func[2] = { "site_alpha", "site_beta" };
	const double want[2] = { t->wait_a_us, t->wait_b_us };
	int rank[2];
	double ms[2];
	tl_profile_sites(out, nout, "<sitelock>", func, NULL, rank, ms, NULL);
	tl_check_site_profile(rank, ms, want, func);
	if (blocking)
		check_releases(out, nout, t);
	free(out);
}

Test(stacks_live, every_mutex_wait_has_its_call_site, .timeout = 120)
{
	NEED_ROOT();
	char raw[TL_PATH_MAX];
	struct truth t;
	tl_tmp_path(raw, sizeof(raw), "stacks-all");
	record(raw, "all", &t, NULL);
	check_trace(raw, &t);
	check_profile(raw, &t, 0);
	unlink(raw);
}

/* --format collapsed, the releasing stacks: lines rooted at "release of
 * futex ADDR sitelock" through hold_for, whose microseconds add up to the
 * waits the releases ended (within 10% of the program's measure). */
static void check_collapsed_releases(const char *raw, const struct truth *t)
{
	char out[64][256], err[64][256], path[TL_PATH_MAX + 16];
	int nout, nerr;
	snprintf(path, sizeof(path), "%s.folded", raw);
	char *rep[] = { LT_BIN, "report", (char *)raw, "--profile", "--format", "collapsed", "-o", path,
			"--force", NULL };
	cr_assert_eq(tl_run_to_end(rep, out, &nout, err, &nerr), 0, "%s", nerr ? err[0] : "");
	FILE *f = fopen(path, "r");
	cr_assert(f, "no %s", path);
	char root[96], line[4096];
	snprintf(root, sizeof(root), "release of futex 0x%" PRIx64 " sitelock;", t->lock);
	double us = 0;
	int n = 0;
	while (fgets(line, sizeof(line), f)) {
		const char *sp = strrchr(line, ' ');
		if (strncmp(line, root, strlen(root)) || !strstr(line, ";hold_for;") || !sp)
			continue;
		us += strtod(sp + 1, NULL);
		n++;
	}
	fclose(f);
	unlink(path);
	double want = t->wait_a_us + t->wait_b_us;
	cr_assert(n >= 1, "no collapsed line rooted at '%s' through hold_for", root);
	cr_assert(us >= want * 0.9 && us <= want * 1.1, "the releases' collapsed lines hold %.0f us, "
		  "the program measured %.0f us of waiting", us, want);
}

Test(stacks_live, blocking_calls_waits_have_their_call_site, .timeout = 120)
{
	NEED_ROOT();
	char raw[TL_PATH_MAX];
	struct truth t;
	tl_tmp_path(raw, sizeof(raw), "stacks-blk");
	record(raw, "blocking", &t, "--stack-sample=0");
	check_trace(raw, &t);
	check_profile(raw, &t, 1);
	check_collapsed_releases(raw, &t);
	unlink(raw);
}

/* The counts of the summary's line on the waiters' copies: all of them,
 * at the wake-up, at the switch, at the return (-1: no such line). */
static void copy_counts(int *n, int *wake, int *sw, int *ret)
{
	*n = *wake = *sw = *ret = -1;
	for (int i = 0; i < last_nerr; i++) {
		const char *l = strstr(last_err[i], "waiters' stacks copied at the wake-up of a wait of "
						    "1 ms or more: ");
		if (l)
			sscanf(strchr(l, ':') + 2, "%d (%d at the wake-up, %d when the thread ran again, %d",
			       n, wake, sw, ret);
	}
}

/* stack_sites' 24 long waits (12 rounds, holds of 3 and 2 ms) recorded
 * --calls blocking with only the BPF side's copies (no short waits
 * sampled), VAR=VAL in the recorder's environment if VAR; the copies'
 * counts from its summary (copy_counts). */
static void record_long_waits(const char *raw, struct truth *t, const char *var, const char *val,
			      int *n, int *wake, int *sw, int *ret)
{
	if (var)
		setenv(var, val, 1);
	record_sites(raw, "blocking", t, "--stack-sample=0", "12", "3", "2", "bpf");
	if (var)
		unsetenv(var);
	copy_counts(n, wake, sw, ret);
}

/* --calls blocking, LOCKTRACE_WAITER_COPY=wake: the waiters' stacks the
 * BPF side copies at the wake-up (a wait of 1 ms or more ended by a thread
 * of the same process: here the holder's unlock), with the collector's
 * reads from /proc turned off (LOCKTRACE_WAITER_STACKS=bpf), so that every
 * stack checked comes from those copies: 12 rounds, holds of 3 and 2 ms,
 * each of the 24 waits has its stack naming its site's function and line,
 * unwound to the thread's start from the 2 KiB copied.  The releasing
 * stacks too. */
Test(stacks_live, waiters_stacks_copied_at_the_wake_up, .timeout = 120)
{
	NEED_ROOT();
	char raw[TL_PATH_MAX];
	struct truth t;
	tl_tmp_path(raw, sizeof(raw), "stacks-bpfw");
	int n, wake, sw, ret;
	record_long_waits(raw, &t, "LOCKTRACE_WAITER_COPY", "wake", &n, &wake, &sw, &ret);
	cr_assert_geq(n, 2 * t.rounds, "%d long waits copied, of at least %d", n, 2 * t.rounds);
	cr_assert_eq(ret, 0, "%d copied at the return", ret);
	cr_assert_eq(wake + sw, n, "%d at the wake-up and %d at the switch, of %d", wake, sw, n);
	check_trace(raw, &t);
	unlink(raw);
}

/* The default where the kernel has the rseq_update tracepoint: each long
 * wait's stack is copied in the waiter's own context at its return to
 * user space (after the switch that ran it again), none at the wake-up;
 * every wait still has its site, and the releases theirs. */
Test(stacks_live, waiters_stacks_copied_at_their_return, .timeout = 120)
{
	NEED_ROOT();
	if (!lt_bpf_has_rseq_update())
		cr_skip_test("this kernel has no rseq_update tracepoint (CONFIG_RSEQ)");
	char raw[TL_PATH_MAX];
	struct truth t;
	tl_tmp_path(raw, sizeof(raw), "stacks-bpfr");
	int n, wake, sw, ret;
	record_long_waits(raw, &t, NULL, NULL, &n, &wake, &sw, &ret);
	cr_assert_geq(n, 2 * t.rounds, "%d long waits copied, of at least %d", n, 2 * t.rounds);
	cr_assert_eq(wake, 0, "%d copied at the wake-up", wake);
	cr_assert_eq(sw, 0, "%d copied at the switch", sw);
	cr_assert_eq(ret, n, "%d of %d copied at the return", ret, n);
	check_trace(raw, &t);
	unlink(raw);
}

/* The sleep notes share one slot (LOCKTRACE_SLEEP_SLOTS=1): the main
 * thread, asleep in pthread_join for the whole run, and the waiter note
 * their sleeps in the same slot.  Whichever holds it when the other goes
 * to sleep (main, if the waiter was awake when main began to join: then
 * all 24 of the waiter's notes are kept apart, in sleep_spill; else the
 * waiter, and main's one note is kept apart), every long wait is still
 * copied at its return: the waiter's 24, each with its stack at its
 * site's line, and main's join (25 in all), and the recorder says that
 * notes were kept apart. */
Test(stacks_live, sleep_notes_sharing_a_slot_still_copy_every_wait, .timeout = 120)
{
	NEED_ROOT();
	if (!lt_bpf_has_rseq_update())
		cr_skip_test("this kernel has no rseq_update tracepoint (CONFIG_RSEQ)");
	char raw[TL_PATH_MAX];
	struct truth t;
	tl_tmp_path(raw, sizeof(raw), "stacks-spill");
	int n, wake, sw, ret;
	record_long_waits(raw, &t, "LOCKTRACE_SLEEP_SLOTS", "1", &n, &wake, &sw, &ret);
	cr_assert_geq(n, 2 * t.rounds + 1, "%d long waits copied, of at least %d (main's join too)", n,
		      2 * t.rounds + 1);
	cr_assert_eq(ret, n, "%d of %d copied at the return", ret, n);
	long spilled = -1;
	for (int i = 0; i < last_nerr; i++) {
		const char *l = strstr(last_err[i], "waiters' stacks: ");
		if (l && strstr(l, "sleeps noted apart"))
			spilled = strtol(l + strlen("waiters' stacks: "), NULL, 10);
	}
	cr_assert_geq(spilled, 1, "sleeps noted apart: %ld", spilled);
	check_trace(raw, &t);
	unlink(raw);
}

/* A wait that outlasts the recording (the waiter of stack_sites sleeps
 * in site_alpha while the holder keeps the lock 4 s; the recording, -p,
 * lasts 1.5 s): the BPF side would copy it only at its end, which never
 * comes while recording, so the collector reads it once it is 100 ms old:
 * the trace has its stack, naming site_alpha at its line.  WAKE: with the
 * copies at the wake-up (LOCKTRACE_WAITER_COPY=wake, an untimed private
 * futex wait left to the BPF side), else at the return (LT_F_BPF_COPY). */
static void check_outlasting_wait(const char *tag, int wake)
{
	char *wargv[] = { WL("stack_sites"), "-r", "1", "-a", "4000", "-b", "1", NULL };
	char truth[32][256], raw[TL_PATH_MAX];
	int n = 0;
	struct tl_proc wl, rec;
	tl_start_ready(&wl, wargv, truth, &n, 32, 10000);
	uint64_t lock = tl_truth_val(truth, n, "lock", "name=sitelock", "addr");
	tl_tmp_path(raw, sizeof(raw), tag);
	char *extra[] = { "--stacks", "--calls", "blocking", "--stack-sample=0", "-d", "1.5", NULL };
	setenv("LOCKTRACE_CACHE_DIR", "off", 1);
	if (wake)
		setenv("LOCKTRACE_WAITER_COPY", "wake", 1);
	int started = tl_start_recorder(&rec, wl.pid, raw, extra);
	unsetenv("LOCKTRACE_WAITER_COPY");
	unsetenv("LOCKTRACE_CACHE_DIR");
	cr_assert_eq(started, 0, "the recorder did not start");
	tl_go(&wl);
	tl_recorder_done(&rec, &wl, 30000);

	struct tl_trace tr;
	struct lt_stacktab st = { 0 };
	tl_load_clean(&tr, raw);
	cr_assert_eq(lt_trace_stacks(raw, &st), 0);
	int waits = 0;
	for (size_t i = 0; i < tr.n; i++) {
		const struct lt_event *e = &tr.ev[i];
		if (e->h.kind != LT_EV_FUTEX_ENTER || e->futex.uaddr != lock ||
		    !(e->h.flags & LT_F_AT_SLEEP))
			continue;
		waits++;
		for (size_t k = i + 1; k < tr.n; k++)
			cr_assert(tr.ev[k].h.tid != e->h.tid || tr.ev[k].h.kind != LT_EV_SYS_EXIT,
				  "the wait at %llu ended while recording",
				  (unsigned long long)e->h.ts);
		const struct lt_stack *s = lt_stacktab_find(&st, (int32_t)e->h.tid, e->h.ts,
							    LT_STACK_WAITER);
		cr_assert(s, "the wait that outlasted the recording (tid %u at %llu) has no stack",
			  e->h.tid, (unsigned long long)e->h.ts);
		long line = 0;
		cr_assert_eq(site_of(s, &line), 1, "its stack does not name site_alpha");
	}
	cr_assert_eq(waits, 1, "%d waits on sitelock in the trace, expected the waiter's one", waits);
	lt_stacktab_free(&st);
	tl_free(&tr);
	unlink(raw);
}

Test(stacks_live, a_wait_that_outlasts_the_recording_has_its_stack, .timeout = 60)
{
	NEED_ROOT();
	check_outlasting_wait("stacks-late", 0);
}

Test(stacks_live, a_wait_left_to_the_wake_up_copy_that_outlasts_it_has_its_stack, .timeout = 60)
{
	NEED_ROOT();
	check_outlasting_wait("stacks-latew", 1);
}

/* --calls all: the same copies, of the waits whose entries the recorder
 * writes at sys_enter (the copy keyed by the entry's time, the wait's
 * length counted from it), with the reads off (LOCKTRACE_WAITER_STACKS=
 * bpf): every_mutex_wait_has_its_call_site's checks, each stack from a
 * copy. */
Test(stacks_live, waiters_stacks_copied_at_the_wake_up_with_calls_all, .timeout = 120)
{
	NEED_ROOT();
	char raw[TL_PATH_MAX];
	struct truth t;
	tl_tmp_path(raw, sizeof(raw), "stacks-bpfa");
	record_sites(raw, "all", &t, NULL, "4", "30", "12", "bpf");
	check_trace(raw, &t);
	check_profile(raw, &t, 0);
	unlink(raw);
}

/* A value of a LOCKTRACE_WAITER_* variable (VAR) the recorder does not
 * know: a clear error naming the variable and the value, and a non-zero
 * exit, before anything is recorded. */
static void check_refused(const char *var, const char *val)
{
	char raw[TL_PATH_MAX], out[64][256], err[64][256], want[128];
	int nout, nerr;
	tl_tmp_path(raw, sizeof(raw), "stacks-badw");
	char *rec[] = { LT_BIN, "record", "-o", raw, "--no-status", "--stacks", "--calls", "blocking",
			"--", WL("stack_sites"), "--no-wait", "-r", "1", NULL };
	setenv(var, val, 1);
	int rc = tl_run_to_end(rec, out, &nout, err, &nerr);
	unsetenv(var);
	cr_assert_neq(rc, 0, "an unknown %s was accepted", var);
	snprintf(want, sizeof(want), "%s '%s'", var, val);
	int said = 0;
	for (int i = 0; i < nerr; i++)
		said |= strstr(err[i], want) != NULL;
	cr_assert(said, "the error does not name the variable and its value: %s",
		  nerr ? err[0] : "(nothing on stderr)");
	unlink(raw);
}

Test(stacks_live, unknown_waiter_stacks_value_is_refused, .timeout = 60)
{
	NEED_ROOT();
	check_refused("LOCKTRACE_WAITER_STACKS", "kernel");
}

Test(stacks_live, unknown_waiter_copy_value_is_refused, .timeout = 60)
{
	NEED_ROOT();
	check_refused("LOCKTRACE_WAITER_COPY", "exit");
}

Test(stacks_live, unknown_sleep_slots_value_is_refused, .timeout = 60)
{
	NEED_ROOT();
	check_refused("LOCKTRACE_SLEEP_SLOTS", "3");
}

Test(stacks_live, perfetto_wait_slices_carry_their_callstacks, .timeout = 180)
{
	NEED_ROOT();
	const char *why = tp_missing();
	if (why)
		cr_skip_test("%s", why);
	char raw[TL_PATH_MAX], pt[TL_PATH_MAX], out[64][256], err[64][256], sql[1024];
	int nout, nerr;
	struct truth t;
	tl_tmp_paths(raw, pt, "stacks-pf");
	record(raw, "blocking", &t, NULL);
	char *conv[] = { LT_BIN, "convert", raw, "-o", pt, NULL };
	cr_assert_eq(tl_run_to_end(conv, out, &nout, err, &nerr), 0);
	snprintf(sql, sizeof(sql),
		 "select c.callsite_id as cs from __intrinsic_track_event_callstacks c "
		 "join slice s on s.id = c.slice_id join thread_track tt on s.track_id = tt.id "
		 "join thread using(utid) where thread.tid = %u and s.name like 'FUTEX_WAIT%%';\n"
		 "select c.id as id, c.parent_id as parent_id, f.name as name from "
		 "stack_profile_callsite c join stack_profile_frame f on f.id = c.frame_id;\n"
		 "select f.name as name, y.line_number as line, y.source_file as file from "
		 "stack_profile_frame f join stack_profile_symbol y on y.symbol_set_id = "
		 "f.symbol_set_id where f.name in ('site_alpha', 'site_beta');\n"
		 "select c.callsite_id as cs from __intrinsic_track_event_callstacks c "
		 "join slice s on s.id = c.slice_id join thread_track tt on s.track_id = tt.id "
		 "join thread using(utid) where thread.tid = %u and s.name like 'FUTEX_WAKE%%';\n",
		 t.waiter, t.holder);
	struct tp_out o;
	int rc = tp_run(pt, sql, &o);
	cr_assert_eq(rc, 0, "trace processor: %s (status %d)", o.error, o.status);
	cr_assert_eq(o.n, 4);
	int a = 0, b = 0;
	for (size_t i = 0; i < o.t[0].nrows; i++) {
		const char *cs = tp_get(&o.t[0], i, "cs");
		a += tp_chain_has(&o.t[1], cs, "site_alpha");
		b += tp_chain_has(&o.t[1], cs, "site_beta");
	}
	/* the mutex waits, and no other wait of the waiter has a stack
	 * through a site (its waits are only those) */
	cr_assert_eq(a, ROUNDS, "wait slices with site_alpha's callstack: %d\n%s", a,
		     tp_dump(&o.t[0]));
	cr_assert_eq(b, ROUNDS, "wait slices with site_beta's callstack: %d", b);
	/* the frames' source lines, as DWARF gives them */
	int lines = 0;
	for (size_t i = 0; i < o.t[2].nrows; i++) {
		int ok;
		const char *name = tp_get(&o.t[2], i, "name");
		long line = (long)tp_int(&o.t[2], i, "line", &ok);
		cr_assert(ok && name);
		cr_assert_eq(line, !strcmp(name, "site_alpha") ? t.line_a : t.line_b, "%s at %ld", name,
			     line);
		lines++;
	}
	cr_assert_geq(lines, 2, "site frames with lines: %d\n%s", lines, tp_dump(&o.t[2]));
	/* the release sites: the holder's FUTEX_WAKE slices, where the flows
	 * to the waits begin, carry its stack through hold_for */
	int rel = 0;
	for (size_t i = 0; i < o.t[3].nrows; i++)
		rel += tp_chain_has(&o.t[1], tp_get(&o.t[3], i, "cs"), "hold_for");
	cr_assert_eq(rel, 2 * ROUNDS, "FUTEX_WAKE slices with the release site's callstack: %d\n%s",
		     rel, tp_dump(&o.t[3]));
	tp_free(&o);
	tl_unlink_traces(raw, pt);
}

/* The flight recorder: its dump (here the one written when the program
 * exits) keeps the stacks of the waits it holds. */
Test(stacks_live, flight_dump_keeps_the_stacks_of_its_waits, .timeout = 120)
{
	NEED_ROOT();
	char raw[TL_PATH_MAX];
	struct truth t;
	tl_tmp_path(raw, sizeof(raw), "stacks-ring");
	record(raw, "blocking", &t, "--ring=4M");
	struct tl_trace tr;
	tl_load_clean(&tr, raw);
	cr_assert(tr.hdr.flags & LT_HDR_FLIGHT, "not a flight dump");
	tl_free(&tr);
	check_trace(raw, &t);
	unlink(raw);
}

/* go's path in PATH, or NULL */
static const char *find_go(char *buf, size_t len)
{
	const char *path = getenv("PATH");
	char dirs[4096];
	snprintf(dirs, sizeof(dirs), "%s", path ? path : "/usr/bin:/bin");
	for (char *save = NULL, *d = strtok_r(dirs, ":", &save); d; d = strtok_r(NULL, ":", &save)) {
		snprintf(buf, len, "%s/go", d);
		if (!access(buf, X_OK))
			return buf;
	}
	return NULL;
}

/* `go tool pprof -top` reads the pprof profile of the workload and lists
 * both sites with wait under them (cum), alpha's more than beta's. */
Test(stacks_live, go_tool_pprof_reads_the_profile, .timeout = 180)
{
	NEED_ROOT();
	char go[512];
	if (!find_go(go, sizeof(go)))
		cr_skip_test("go is not installed (Debian: apt-get install golang-go): go tool pprof "
			     "reads the profile");
	char raw[TL_PATH_MAX], pb[TL_PATH_MAX + 8], out[64][256], err[64][256];
	int nout, nerr;
	struct truth t;
	tl_tmp_path(raw, sizeof(raw), "stacks-pprof");
	snprintf(pb, sizeof(pb), "%s.pb.gz", raw);
	record(raw, "blocking", &t, NULL);
	char *rep[] = { LT_BIN, "report", raw, "--profile", "--format", "pprof", "-o", pb,
			"--force", NULL };
	cr_assert_eq(tl_run_to_end(rep, out, &nout, err, &nerr), 0, "%s", nerr ? err[0] : "");
	char *top[] = { go, "tool", "pprof", "-top", pb, NULL };
	int rc = tl_run_to_end(top, out, &nout, err, &nerr);
	cr_assert_eq(rc, 0, "go tool pprof -top failed (%d): %s", rc, nerr ? err[nerr - 1] : "");
	double cum[3] = { 0 };
	int type_wait = 0;
	for (int i = 0; i < nout; i++) {
		/* flat flat% sum% cum cum% name: the cum with its unit ("0" has none) */
		char f0[32], f1[32], f2[32], cs[32], f4[32], name[200], cu[8] = "";
		double c;
		if (!strncmp(out[i], "Type: wait", 10))
			type_wait = 1;
		if (sscanf(out[i], "%31s %31s %31s %31s %31s %199s", f0, f1, f2, cs, f4, name) != 6 ||
		    !strchr(f4, '%') || sscanf(cs, "%lf%7[a-z]", &c, cu) < 1)
			continue;
		double scale = !strcmp(cu, "s") ? 1e3 : !strcmp(cu, "ms") ? 1 : !strcmp(cu, "us") ?
			       1e-3 : !cu[0] && c == 0 ? 1 : -1;
		cr_assert_gt(scale, 0, "unit %s in: %s", cu, out[i]);
		int site = !strcmp(name, "site_alpha") ? 1 : !strcmp(name, "site_beta") ? 2 : 0;
		if (site)
			cum[site] = c * scale;
	}
	cr_assert(type_wait, "go tool pprof -top does not show the wait type:\n%s\n%s", out[0],
		  nout > 1 ? out[1] : "");
	double want_a = t.wait_a_us / 1e3, want_b = t.wait_b_us / 1e3;
	cr_assert(cum[1] >= want_a * 0.9 && cum[1] <= want_a * 1.1, "site_alpha: %.1f ms under it "
		  "in pprof, the program measured %.1f ms", cum[1], want_a);
	cr_assert(cum[2] >= want_b * 0.9 && cum[2] <= want_b * 1.1, "site_beta: %.1f ms under it "
		  "in pprof, the program measured %.1f ms", cum[2], want_b);
	unlink(pb);
	unlink(raw);
}

/* The headline case: attach to a process that is already hung (the
 * deadlock workload: threads A and B asleep in pthread_mutex_lock, each on
 * the mutex the other holds, since before the recorder started; nothing
 * changes after).  Neither wait has an entry event in the trace: the
 * recorder reads their stacks where they sleep, keyed by the header's
 * time (trace-format.md, STACKS), and each passes through the workload's
 * own function run() (deadlock.c) under glibc's lock; `report --profile`
 * ranks both locks' waits with those frames, saying they were under way
 * when the trace began. */
Test(stacks_live, the_waits_under_way_at_the_attach_have_their_stacks, .timeout = 60)
{
	NEED_ROOT();
	char *wargv[] = { WL("deadlock"), NULL };
	char truth[32][256], pid[16], raw[TL_PATH_MAX];
	int n = 0;
	struct tl_proc wl, rec;
	tl_start_pid(&wl, wargv, truth, &n, pid);
	uint32_t ta = (uint32_t)tl_truth_val(truth, n, "thread", "role=A", "tid");
	uint32_t tb = (uint32_t)tl_truth_val(truth, n, "thread", "role=B", "tid");
	uint64_t l1 = tl_truth_val(truth, n, "lock", "name=L1", "addr");
	uint64_t l2 = tl_truth_val(truth, n, "lock", "name=L2", "addr");
	tl_tmp_path(raw, sizeof(raw), "stacks-attach");
	char *extra[] = { "--stacks", "-d", "1", NULL };
	setenv("LOCKTRACE_CACHE_DIR", "off", 1);
	int started = tl_start_recorder(&rec, wl.pid, raw, extra);
	unsetenv("LOCKTRACE_CACHE_DIR");
	cr_assert_eq(started, 0, "the recorder did not start");
	tl_recorder_done(&rec, &wl, 30000); /* the workload killed too */

	struct tl_trace tr;
	struct lt_stacktab st = { 0 };
	tl_load_clean(&tr, raw);
	cr_assert_eq(lt_trace_stacks(raw, &st), 0);
	const uint32_t tids[2] = { ta, tb };
	const uint64_t want[2] = { l2, l1 };
	for (int k = 0; k < 2; k++) {
		const struct lt_thread_info *ti = NULL;
		for (uint32_t i = 0; i < tr.hdr.nthreads; i++)
			if (tr.hdr.threads[i].tid == (int32_t)tids[k])
				ti = &tr.hdr.threads[i];
		cr_assert(ti && ti->sc_nr == LT_NR_FUTEX && ti->sc_args[0] == want[k],
			  "the header does not have thread %u asleep in futex on 0x%llx", tids[k],
			  (unsigned long long)want[k]);
		for (size_t i = 0; i < tr.n; i++)
			cr_assert(tr.ev[i].h.tid != tids[k] || tr.ev[i].h.kind != LT_EV_FUTEX_ENTER,
				  "thread %u entered a futex call while recording: not hung", tids[k]);
		const struct lt_stack *s = lt_stacktab_find(&st, (int32_t)tids[k], tr.hdr.clock_boottime,
							    LT_STACK_WAITER);
		cr_assert(s, "thread %u's wait under way at the attach has no stack", tids[k]);
		int run = tl_frame_named(s, "run");
		cr_assert_gt(run, 0, "thread %u's stack does not pass through run() under glibc", tids[k]);
		cr_assert(s->frames[run].file && strstr(s->frames[run].file, "deadlock.c"),
			  "run's frame is not in deadlock.c");
		int lockf = -1;
		for (int i = 0; i < run; i++)
			if (s->frames[i].func && strstr(s->frames[i].func, "pthread_mutex_lock"))
				lockf = i;
		cr_assert_geq(lockf, 0, "thread %u's stack has no pthread_mutex_lock frame under run", tids[k]);
	}
	lt_stacktab_free(&st);
	tl_free(&tr);

	int nout;
	tl_line *out = tl_profile_lines(raw, &nout);
	int found[2] = { 0, 0 };
	for (int i = 0; i < nout; i++) {
		cr_assert_null(strstr(out[i], "record it with --stacks"), "%s", out[i]);
		if (out[i][0] != '#')
			continue;
		int k = strstr(out[i], "<L1") || strstr(out[i], "L1>") ? 1
			: strstr(out[i], "<L2") || strstr(out[i], "L2>") ? 0 : -1;
		if (k < 0)
			continue;
		cr_assert(strstr(out[i], " in 1 wait "), "%s", out[i]);
		cr_assert(i + 1 < nout && strstr(out[i + 1], "(under way when the trace began: counted from its "
						 "start; it had waited"), "%s", i + 1 < nout ? out[i + 1] : "");
		for (int j = i + 2; j < nout && out[j][0] == ' '; j++)
			if (strstr(out[j], " run+0x") && strstr(out[j], "deadlock.c:"))
				found[k] = 1;
	}
	cr_assert(found[0] && found[1], "the profile does not rank both waits through run(): L2 %d, L1 %d",
		  found[0], found[1]);
	free(out);
	unlink(raw);
}

/* A lock call in a static function the compiler inlined into its caller
 * (tests/workloads/inline_lock.c: locked_bump(), always_inline, called
 * from waiter_loop()): the waiting stack has a frame of its own for the
 * inlined function, marked "(inlined)", at the lock call's line, and the
 * caller's frame is at the line of the inlined call (DWARF inlined
 * subroutines, as addr2line -i); before, the stack named waiter_loop at
 * locked_bump's line. */
Test(stacks_live, an_inlined_functions_lock_call_has_its_own_frame, .timeout = 60)
{
	NEED_ROOT();
	char raw[TL_PATH_MAX], out[64][256], err[64][256];
	int nout, nerr;
	tl_tmp_path(raw, sizeof(raw), "stacks-inline");
	char *rec[] = { LT_BIN, "record", "-o", raw, "--no-status", "--stacks", "--",
			WL("inline_lock"), "--no-wait", "-r", "4", "-h", "15", NULL };
	cr_assert_eq(tl_run_to_end(rec, out, &nout, err, &nerr), 0, "%s", nerr ? err[0] : "");
	long line_lock = (long)tl_truth_val(out, nout, "site", "name=lock", "line");
	long line_call = (long)tl_truth_val(out, nout, "site", "name=call", "line");
	cr_assert(line_lock > 0 && line_call > 0);
	char *rep[] = { LT_BIN, "report", raw, "--profile", NULL };
	cr_assert_eq(tl_run_to_end(rep, out, &nout, err, &nerr), 0, "%s", nerr ? err[0] : "");
	char want_inl[128], want_call[128];
	snprintf(want_inl, sizeof(want_inl), "      locked_bump (inlined) (inline_lock.c:%ld) [inline_lock]",
		 line_lock);
	snprintf(want_call, sizeof(want_call), "(inline_lock.c:%ld) [inline_lock]", line_call);
	int found = 0;
	for (int i = 0; i + 1 < nout && !found; i++)
		found = !strcmp(out[i], want_inl) && !strncmp(out[i + 1], "      waiter_loop+0x", 20) &&
			strstr(out[i + 1], want_call);
	if (!found)
		for (int i = 0; i < nout; i++)
			fprintf(stderr, "%s\n", out[i]);
	cr_assert(found, "no frame \"%s\" over waiter_loop at %s in the profile (above)", want_inl, want_call);
	unlink(raw);
}
