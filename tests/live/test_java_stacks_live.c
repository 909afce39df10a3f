/* record --stacks on a JVM, end to end as root: Debian's default JDK
 * running tests/workloads/java/JavaSites, whose two methods take one lock
 * (the monitor of a `synchronized` block, or a ReentrantLock) at known
 * lines while a holder thread keeps it for known times.  A JVM thread that
 * waits sleeps in the VM (ObjectMonitor::EnterI) or in native code
 * (Unsafe.park), its last Java frame in its JavaFrameAnchor: the recorder
 * reads its Java frames with its stack copy, through the snapshot's
 * HotSpot walker (src/snapshot/runtimes/hs_stack.h).  Checked:
 *   - the waiter's waits of 5 ms or more in the lock's native code
 *     (EnterI, Unsafe_Park) that have a stack and were entered from Java
 *     code have its Java frames (the waiter's lambda, placed before the
 *     JVM's native frames that called into Java) and the Java lock they
 *     wait for; those for the sites' Java lock name the site
 *     (JavaSites.siteAlpha or siteBeta) as a Java frame at the lock's line
 *     in JavaSites.java, inside the lambda; each site in every round; those
 *     for another Java lock name neither (the waiter's first print,
 *     `synchronized` on JavaSites.class, can wait for the holder's on a
 *     loaded machine: seen once in 45 runs, 29 ms);
 *   - `report --profile` names them ("JavaSites.siteAlpha (JavaSites.java:N)
 *     [java]"), alpha (the longer hold) ranked first, each adding up to the
 *     waiter's waits in the trace whose stacks go through it (the program's
 *     own measure, in the messages, also holds what the recorder does not
 *     promise to keep: the monitor's spinning, its parked steps of 1 ms
 *     and those the collector read too late, the time the waiter sat
 *     runnable after its wake-up), all of it charged to the Java lock
 *     itself ("Java monitor JavaSites$Mon@0x...", "Java lock
 *     java.util.concurrent.locks.ReentrantLock$NonfairSync@0x...": its
 *     waiters park on futexes of their own, which name no lock), one object
 *     for both sites;
 *   - the collapsed lines name them too (";JavaSites.siteAlpha;"), rooted
 *     at that lock, adding up to the same;
 *   - the Perfetto trace (a third test, where trace_processor is there):
 *     the waiter's wait slices carry callstacks through each site, whose
 *     frames have JavaSites.java and the site's line, and those through a
 *     site the Java lock (one ReentrantLock$NonfairSync) in their `lock`
 *     argument (another wait of the waiter names its own lock).
 * The JVM is attached to (-p) before its first wait: the recorder reads
 * the JVM's tables first.  The recorder runs without its symbol cache, as
 * on a fresh machine.  Skips, saying why, where java or the class files
 * are missing. */
#include <criterion/criterion.h>
#include <inttypes.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include "lt_test.h"
#include "stacks.h"
#include "tp.h"
#include "locktrace/futex.h"

#define JAVA "/usr/bin/java"
#define CLASSES "build/workloads/java"
#define NROUNDS 4

TL_WORKLOAD(64);
static struct tl_proc rec;
static char raw[TL_PATH_MAX];

static void cleanup(void)
{
	tl_close_started(&rec);
	tl_close_started(&wl);
	if (raw[0])
		unlink(raw);
	raw[0] = 0;
}

TestSuite(java_stacks_live, .fini = cleanup, .timeout = 240);

struct truth {
	uint32_t waiter;
	long line[2];
	double wait_us[2];
	/* from the trace: the waiter's waits whose stacks go through each
	 * site and which are charged to the sites' Java lock (ms), and its
	 * waits of 5 ms or more in the lock's native code for another Java
	 * lock */
	double through_ms[2];
	int other_lock;
};

static const char *const site_func[2] = { "JavaSites.siteAlpha", "JavaSites.siteBeta" };

/* The program's own account of its rounds, from its last lines. */
static void truth_of(char done[][256], int nd, struct truth *t)
{
	t->waiter = (uint32_t)tl_truth_val(done, nd, "thread", "role=waiter", "tid");
	t->line[0] = (long)tl_truth_val(done, nd, "site", "name=alpha", "line");
	t->line[1] = (long)tl_truth_val(done, nd, "site", "name=beta", "line");
	t->wait_us[0] = (double)tl_truth_val(done, nd, "done", "rounds=", "alpha_wait_us");
	t->wait_us[1] = (double)tl_truth_val(done, nd, "done", "rounds=", "beta_wait_us");
}

/* Skips, saying why, without root, java or the class files. */
static void need_java(void)
{
	tl_skip_unless_root("needs root: loads BPF programs to record a JVM");
	if (access(JAVA, X_OK) != 0)
		cr_skip_test("%s missing: Debian's default-jdk-headless is needed (make deps installs it)", JAVA);
	if (access(CLASSES "/JavaSites.class", R_OK) != 0)
		cr_skip_test("%s/JavaSites.class not built: javac was missing at build time", CLASSES);
}

/* Starts JavaSites MODE, attaches the recorder (--stacks --calls all),
 * lets the program run its rounds, stops the recorder.  JIT: the sites
 * compiled first (-Xbatch, --warm), by C1 (TieredStopAtLevel=1: its
 * frames, as C2's, keep no frame pointer, and leave rbp as the
 * interpreter set it, so the unwinder skips them rather than stopping
 * inside them, as it does after most of C2's code), the waiter's lambda
 * still interpreted. */
static void record_sites_jit(const char *mode, struct truth *t, bool jit)
{
	char done[8][256];
	int nd = 0;
	need_java();
	/* holds of 240 and 80 ms: alpha's waits outweigh beta's even split
	 * over two entries (tl_profile_java_sites).  A contender for a
	 * monitor parks in timed steps (HotSpot's "responsible" thread: 1 ms,
	 * then 8, then 64 and on), and the recorder copies only waits of 1 ms
	 * or more (and those while it copies in time: on a loaded machine it
	 * has been seen 15 ms late): the first steps of a wait may have no
	 * stack, a few ms of each (the profile is checked against the trace's
	 * waits, not against the program's measure of its wait) */
	char *argv[] = { JAVA, "-cp", CLASSES, "JavaSites", (char *)mode, "-r", "4", "-a", "240", "-b", "80", NULL };
	char *argv_jit[] = { JAVA, "-Xbatch", "-XX:TieredStopAtLevel=1", "-cp", CLASSES, "JavaSites", (char *)mode, "-r", "4", "-a", "240",
			     "-b", "80", "--warm", "20000", NULL };
	tl_start_ready(&wl, jit ? argv_jit : argv, truth, &ntruth, 64, 60000);
	tl_tmp_path(raw, sizeof(raw), "java-stacks");
	char *extra[] = { "--stacks", "--calls", "all", NULL };
	setenv("LOCKTRACE_CACHE_DIR", "off", 1);
	int rc = tl_start_recorder(&rec, wl.pid, raw, extra);
	unsetenv("LOCKTRACE_CACHE_DIR");
	cr_assert_eq(rc, 0, "locktrace record -p %d --stacks did not start", (int)wl.pid);
	tl_go(&wl);
	cr_assert(tl_wait_for(&wl, 0, "done", done, &nd, 8, 120000), "JavaSites %s never finished", mode);
	truth_of(done, nd, t);
	kill(rec.pid, SIGINT); /* Ctrl-C: the recorder finishes what it copied */
	tl_recorder_done(&rec, &wl, 60000);
}

static void record_sites(const char *mode, struct truth *t)
{
	record_sites_jit(mode, t, false);
}

/* The same, the JVM launched by the recorder (record -- java ...): its
 * libjvm.so is loaded after the exec, its runtime found only when the
 * recorder reads its modules again; its output comes through the
 * recorder's, its gate through the recorder's stdin. */
static void record_sites_launched(const char *mode, struct truth *t)
{
	char done[8][256];
	int nd = 0;
	need_java();
	tl_tmp_path(raw, sizeof(raw), "java-stacks-launched");
	char *argv[] = { LT_BIN, "record", "--no-status", "--stacks", "--calls", "all", "-o", raw, "--", JAVA, "-cp",
			 CLASSES, "JavaSites", (char *)mode, "-r", "4", "-a", "240", "-b", "80", NULL };
	setenv("LOCKTRACE_CACHE_DIR", "off", 1);
	tl_start_ready(&rec, argv, truth, &ntruth, 64, 60000);
	unsetenv("LOCKTRACE_CACHE_DIR");
	/* the recorder finds the JVM when a stack in libjvm.so shows its
	 * modules changed since the exec (at most every 100 ms while no
	 * runtime is found): the waits before that have no Java frames (said
	 * in docs/runtimes.md), so the sites' rounds start a second on */
	usleep(1000000);
	tl_go(&rec);
	cr_assert(tl_wait_for(&rec, 0, "done", done, &nd, 8, 120000), "JavaSites %s never finished", mode);
	truth_of(done, nd, t);
	int st = tl_wait(&rec, 60000); /* the recording ends with the command */
	cr_assert_eq(st, 0, "the recorder ended with status 0x%x", st);
	tl_close(&rec);
}

/* The first frame of S whose function contains NAME (lang LANG), or -1. */
static int frame_with(const struct lt_stack *s, const char *name, uint32_t lang)
{
	for (uint32_t i = 0; i < s->nframes; i++)
		if (s->frames[i].lang == lang && s->frames[i].func && strstr(s->frames[i].func, name))
			return (int)i;
	return -1;
}

/* Is REF's Java lock the sites' (LOCK: how the profile names it, up to
 * its address)? */
static int sites_lock(const struct lt_stack_ref *ref, const char *lock)
{
	return ref && ref->rtlock_name && !strncmp(ref->rtlock_name, lock, strlen(lock));
}

/* Every wait of the waiter of 5 ms or more in the lock's native code
 * (LOCK_FN) has its Java frames (the waiter's lambda, placed); one for the
 * sites' Java lock (LOCK) names one site at its line, its caller after it,
 * one for another Java lock neither (the waiter's print, `synchronized` on
 * JavaSites.class, can wait for the holder's: the JVM's own locks are not
 * the sites').  And each site's waits in the trace charged to LOCK (ms),
 * as the profile adds them up. */
static void check_trace(struct truth *t, const char *lock_fn, const char *lock)
{
	struct tl_trace tr;
	struct lt_stacktab st = { 0 };
	tl_load_clean(&tr, raw);
	cr_assert_eq(lt_trace_stacks(raw, &st), 0);
	cr_assert(!st.damaged);
	int seen[2] = { 0 }, lock_waits = 0;
	for (size_t i = 0; i < tr.n; i++) {
		const struct lt_event *e = &tr.ev[i];
		if (e->h.kind != LT_EV_FUTEX_ENTER || e->h.tid != t->waiter || (e->h.flags & LT_F_AT_WAKE))
			continue;
		unsigned cmd = e->futex.op & LT_FUTEX_CMD_MASK;
		if ((cmd != 0 && cmd != 9) || tl_wait_len(&tr, i) < 5000000)
			continue;
		const struct lt_stack *s = lt_stacktab_find(&st, (int32_t)e->h.tid, e->h.ts, LT_STACK_WAITER);
		if (!s || frame_with(s, lock_fn, LT_SFRAME_NATIVE) < 0)
			continue; /* the waiter's other waits (Thread.sleep) */
		const struct lt_stack_ref *ref = lt_stacktab_find_ref(&st, (int32_t)e->h.tid, e->h.ts,
								      LT_STACK_WAITER);
		int a = frame_with(s, site_func[0], LT_SFRAME_JAVA), b = frame_with(s, site_func[1], LT_SFRAME_JAVA);
		int caller = frame_with(s, "JavaSites.lambda$main$0", LT_SFRAME_JAVA);
		/* entered from Java code (a monitorenter, interpreted or
		 * compiled, or Unsafe.park), its last Java frame in its
		 * anchor: its Java frames read, whatever the lock (all the
		 * waiter's Java code runs in its lambda), placed among the
		 * native frames, and the Java lock it waits for.  (A wait of
		 * the VM's own, as at the thread's exit, has no Java frame.) */
		if (!strcmp(lock_fn, "Unsafe_Park") || frame_with(s, "InterpreterRuntime12monitorenter", LT_SFRAME_NATIVE) >= 0 ||
		    frame_with(s, "complete_monitor_locking", LT_SFRAME_NATIVE) >= 0) {
			cr_assert_geq(caller, 0, "the stack of the wait at %llu (%.1f ms) in %s, entered from "
				      "Java, has no Java frame of the waiter's lambda (end: %s)",
				      (unsigned long long)e->h.ts, (double)tl_wait_len(&tr, i) / 1e6, lock_fn,
				      s->end ? s->end : "none");
			int helper = frame_with(s, "call_helper", LT_SFRAME_NATIVE);
			cr_assert_gt(helper, caller, "the wait at %llu: the waiter's Java frames are not placed "
				     "among the native frames (no JavaCalls::call_helper after them)",
				     (unsigned long long)e->h.ts);
			cr_assert(ref && ref->rtlock_name, "the wait at %llu (%.1f ms) in %s, entered from Java, "
				  "names no Java lock", (unsigned long long)e->h.ts,
				  (double)tl_wait_len(&tr, i) / 1e6, lock_fn);
		}
		int mine = sites_lock(ref, lock);
		if (!mine) {
			cr_assert(a < 0 && b < 0, "the wait at %llu (%.1f ms) through %s is for %s, not the "
				  "sites' lock", (unsigned long long)e->h.ts, (double)tl_wait_len(&tr, i) / 1e6,
				  site_func[a >= 0 ? 0 : 1],
				  ref && ref->rtlock_name ? ref->rtlock_name : "no Java lock");
			t->other_lock++;
			continue;
		}
		lock_waits++;
		cr_assert((a >= 0) != (b >= 0), "the stack of the wait at %llu (%.1f ms) in %s for %s names %s "
			  "site (end: %s)", (unsigned long long)e->h.ts, (double)tl_wait_len(&tr, i) / 1e6, lock_fn,
			  ref->rtlock_name, a >= 0 ? "both" : "neither", s->end ? s->end : "none");
		int site = a >= 0 ? 0 : 1, k = a >= 0 ? a : b;
		const struct lt_sframe *f = &s->frames[k];
		cr_assert(f->file && !strcmp(f->file, "JavaSites.java"), "%s in file %s", f->func,
			  f->file ? f->file : "(none)");
		cr_assert_eq((long)f->line, t->line[site], "%s at line %u, not %ld", f->func, f->line,
			     t->line[site]);
		cr_assert(frame_with(s, lock_fn, LT_SFRAME_NATIVE) < k, "%s not inside %s", lock_fn, f->func);
		/* placed: in place of the machine frames that run them, the
		 * JVM's native frames that called into Java after them */
		cr_assert_gt(caller, k, "the waiter's lambda is not after %s", f->func);
		seen[site]++;
	}
	/* what the profile adds up through each site on the sites' lock:
	 * every wait of the waiter with a stack through it charged there
	 * (the monitor's timed steps of 1 and 8 ms, the waits under 1 ms
	 * that were sampled, in each entry's own stack) */
	t->through_ms[0] = t->through_ms[1] = 0;
	for (size_t i = 0; i < tr.n; i++) {
		const struct lt_event *e = &tr.ev[i];
		if (e->h.tid != t->waiter || (e->h.flags & LT_F_AT_WAKE) ||
		    (e->h.kind != LT_EV_FUTEX_ENTER && e->h.kind != LT_EV_WAIT_ENTER && e->h.kind != LT_EV_IO_ENTER))
			continue;
		const struct lt_stack_ref *ref = lt_stacktab_find_ref(&st, (int32_t)e->h.tid, e->h.ts,
								      LT_STACK_WAITER);
		const struct lt_stack *s = lt_stacktab_find(&st, (int32_t)e->h.tid, e->h.ts, LT_STACK_WAITER);
		if (!s || !sites_lock(ref, lock))
			continue;
		for (int k = 0; k < 2; k++)
			if (frame_with(s, site_func[k], LT_SFRAME_JAVA) >= 0)
				t->through_ms[k] += (double)tl_wait_len(&tr, i) / 1e6;
	}
	cr_assert_geq(seen[0], NROUNDS, "waits in %s with %s's stack: %d of %d", lock_fn, site_func[0], seen[0],
		      lock_waits);
	cr_assert_geq(seen[1], NROUNDS, "waits in %s with %s's stack: %d of %d", lock_fn, site_func[1], seen[1],
		      lock_waits);
	lt_stacktab_free(&st);
	tl_free(&tr);
}

/* Every stack of the waiter's with Java frames has them in the thread's
 * order among its native frames: the innermost after the lock's native
 * frames (LOCK_FN), the lambda before JavaCalls::call_helper where the
 * stack has it, and no Java frame outer than the thread's start
 * (start_thread, __clone3).  HotSpot's compiled frames keep no frame
 * pointer, so the unwinder skips them and the interpreted frame that
 * called them: those Java frames were listed after __clone3.  Returns how
 * many stacks had frames placed by their order (said in the end). */
static int check_java_order(const struct truth *t, const char *lock_fn)
{
	struct lt_stacktab st = { 0 };
	cr_assert_eq(lt_trace_stacks(raw, &st), 0);
	int checked = 0, inferred = 0;
	for (size_t i = 0; i < st.nstacks; i++) {
		const struct lt_stack *s = st.stacks[i];
		int first = -1, last = -1, start = -1;
		for (uint32_t k = 0; k < s->nframes; k++) {
			const struct lt_sframe *f = &s->frames[k];
			if (f->lang == LT_SFRAME_JAVA) {
				if (first < 0)
					first = (int)k;
				last = (int)k;
			} else if (start < 0 && f->func &&
				   (!strcmp(f->func, "start_thread") || !strcmp(f->func, "__clone3"))) {
				start = (int)k;
			}
		}
		if (first < 0)
			continue;
		checked++;
		inferred += s->end && strstr(s->end, "placed by their order") != NULL;
		char what[160];
		snprintf(what, sizeof(what), "stack %u (%u frames, end: %.80s)", s->id, s->nframes,
			 s->end ? s->end : "none");
		cr_assert(start < 0 || last < start, "%s: Java frame #%d (%s) outer than #%d %s", what, last,
			  s->frames[last].func, start, s->frames[start].func);
		int lock = frame_with(s, lock_fn, LT_SFRAME_NATIVE), helper = frame_with(s, "call_helper",
											LT_SFRAME_NATIVE);
		cr_assert(lock < 0 || lock < first, "%s: the innermost Java frame #%d (%s) is inside %s (#%d)",
			  what, first, s->frames[first].func, lock_fn, lock);
		int caller = frame_with(s, "JavaSites.lambda$main$0", LT_SFRAME_JAVA);
		cr_assert(helper < 0 || caller < 0 || caller < helper, "%s: the lambda (#%d) is outer than "
			  "JavaCalls::call_helper (#%d)", what, caller, helper);
		for (int site = 0; site < 2; site++) {
			int k = frame_with(s, site_func[site], LT_SFRAME_JAVA);
			cr_assert(k < 0 || caller < 0 || k < caller, "%s: %s (#%d) outer than the lambda (#%d)", what,
				  site_func[site], k, caller);
		}
	}
	cr_assert_gt(checked, 0, "no stack of the waiter %u has Java frames", t->waiter);
	lt_stacktab_free(&st);
	return inferred;
}

/* report --profile: each site named in Java's terms at the lock's line,
 * its entries on the sites' lock adding up to the waiter's waits in the
 * trace whose stacks go through it (charged to that lock), ranked in
 * their order (alpha holds longer).  (The waiter's own measure of its
 * wait, in the messages, is not what the profile adds up: it also holds
 * the monitor's spinning and parked steps too short to be copied or
 * read too late, and the time the waiter sat runnable after its wake-up.) */
static void check_profile(const struct truth *t, const char *lock)
{
	char where[2][64];
	int nout;
	tl_line *out = tl_profile_lines(raw, &nout);
	snprintf(where[0], sizeof(where[0]), "(JavaSites.java:%ld)", t->line[0]);
	snprintf(where[1], sizeof(where[1]), "(JavaSites.java:%ld)", t->line[1]);
	const char *const at[2] = { where[0], where[1] };
	int rank[2], nent[2];
	double ms[2], slack[2];
	tl_profile_java_sites(out, nout, lock, site_func, at, rank, ms, nent, slack);
	tl_check_site_trace(rank, ms, nent, slack, t->through_ms, t->wait_us, site_func);
	/* one object: every entry naming the lock's class names one address */
	const char *obj = NULL;
	for (int i = 0; i < nout; i++) {
		const char *at = strstr(out[i], lock);
		if (out[i][0] != '#' || !at)
			continue;
		if (!obj)
			obj = at;
		size_t n = strcspn(obj, ", ");
		cr_assert(!strncmp(at, obj, n) && strchr(", ", at[n]), "two objects of the Java lock: %.*s and %s",
			  (int)n, obj, at);
	}
	free(out);
}

/* --format collapsed: the lines rooted at the sites' lock through each
 * site's Java frame add up to the trace's waits through it (each line in
 * whole µs, cut). */
static void check_collapsed(const struct truth *t, const char *lock)
{
	char out[64][256], err[64][256], path[TL_PATH_MAX + 16], line[8192];
	int nout, nerr;
	snprintf(path, sizeof(path), "%s.folded", raw);
	char *rep[] = { LT_BIN, "report", raw, "--profile", "--format", "collapsed", "-o", path, "--force",
			NULL };
	cr_assert_eq(tl_run_to_end(rep, out, &nout, err, &nerr), 0, "%s", nerr ? err[0] : "");
	FILE *f = fopen(path, "r");
	cr_assert(f, "no %s", path);
	double us[2] = { 0 };
	int lines[2] = { 0 };
	while (fgets(line, sizeof(line), f)) {
		const char *sp = strrchr(line, ' ');
		if (strncmp(line, lock, strlen(lock)) || !sp)
			continue;
		for (int s = 0; s < 2; s++) {
			char pat[64];
			snprintf(pat, sizeof(pat), ";%s;", site_func[s]);
			if (strstr(line, ";JavaSites.lambda$main$0;") && strstr(line, pat)) {
				us[s] += strtod(sp + 1, NULL);
				lines[s]++;
				break;
			}
		}
	}
	fclose(f);
	unlink(path);
	for (int s = 0; s < 2; s++) {
		double want = t->through_ms[s] * 1e3;
		cr_assert(us[s] <= want + 1e-3 && us[s] > want - lines[s] - 1e-3,
			  "collapsed lines through %s: %.0f us in %d lines; the trace has %.3f us of waits with "
			  "a stack through it (the program measured %.0f us)", site_func[s], us[s], lines[s], want,
			  t->wait_us[s]);
	}
}

/* The Perfetto trace: wait slices of the waiter carry callstacks through
 * both sites, whose frames have JavaSites.java and the sites' lines. */
static void check_perfetto(const struct truth *t)
{
	char pt[TL_PATH_MAX + 32], out[64][256], err[64][256], sql[1200];
	int nout, nerr;
	snprintf(pt, sizeof(pt), "%s.perfetto-trace", raw);
	char *conv[] = { LT_BIN, "convert", raw, "-o", pt, NULL };
	cr_assert_eq(tl_run_to_end(conv, out, &nout, err, &nerr), 0, "%s", nerr ? err[0] : "");
	snprintf(sql, sizeof(sql),
		 "select c.callsite_id as cs from __intrinsic_track_event_callstacks c "
		 "join slice s on s.id = c.slice_id join thread_track tt on s.track_id = tt.id "
		 "join thread using(utid) where thread.tid = %u and s.name like 'FUTEX_WAIT%%';\n"
		 "select c.id as id, c.parent_id as parent_id, f.name as name from "
		 "stack_profile_callsite c join stack_profile_frame f on f.id = c.frame_id;\n"
		 "select f.name as name, y.line_number as line, y.source_file as file from "
		 "stack_profile_frame f join stack_profile_symbol y on y.symbol_set_id = "
		 "f.symbol_set_id where f.name in ('%s', '%s');\n"
		 "select c.callsite_id as cs, a.display_value as lock from slice s join thread_track tt on "
		 "s.track_id = tt.id join thread using(utid) join args a on a.arg_set_id = s.arg_set_id "
		 "left join __intrinsic_track_event_callstacks c on c.slice_id = s.id where thread.tid = %u "
		 "and a.key = 'debug.lock';\n", t->waiter, site_func[0], site_func[1], t->waiter);
	struct tp_out o;
	int rc = tp_run(pt, sql, &o);
	unlink(pt);
	cr_assert_eq(rc, 0, "trace processor: %s (status %d)", o.error, o.status);
	cr_assert_eq(o.n, 4);
	int through[2] = { 0 };
	for (size_t i = 0; i < o.t[0].nrows; i++)
		for (int k = 0; k < 2; k++)
			through[k] += tp_chain_has(&o.t[1], tp_get(&o.t[0], i, "cs"), site_func[k]);
	for (int k = 0; k < 2; k++)
		cr_assert_gt(through[k], 0, "no wait slice of the waiter has a callstack through %s\n%s",
			     site_func[k], tp_dump(&o.t[0]));
	int lines = 0;
	for (size_t i = 0; i < o.t[2].nrows; i++) {
		int ok;
		const char *name = tp_get(&o.t[2], i, "name"), *file = tp_get(&o.t[2], i, "file");
		long line = (long)tp_int(&o.t[2], i, "line", &ok);
		cr_assert(ok && name && file);
		cr_assert_eq(line, !strcmp(name, site_func[0]) ? t->line[0] : t->line[1], "%s at %ld", name, line);
		cr_assert_str_eq(file, "JavaSites.java", "%s in %s", name, file);
		lines++;
	}
	cr_assert_geq(lines, 2, "Java frames with lines: %d\n%s", lines, tp_dump(&o.t[2]));
	/* the waiter's wait slices through a site name the Java lock (one
	 * object); its others may name another (its first print,
	 * `synchronized` on JavaSites.class, can wait for the holder's) */
	const char *one = NULL;
	int named = 0;
	for (size_t i = 0; i < o.t[3].nrows; i++) {
		const char *cs = tp_get(&o.t[3], i, "cs"), *lk = tp_get(&o.t[3], i, "lock");
		if (!cs || !(tp_chain_has(&o.t[1], cs, site_func[0]) || tp_chain_has(&o.t[1], cs, site_func[1])))
			continue;
		cr_assert(lk && !strncmp(lk, "Java lock java.util.concurrent.locks.ReentrantLock$NonfairSync@0x", 65),
			  "a wait slice of the waiter through a site names %s\n%s", lk ? lk : "(null)",
			  tp_dump(&o.t[3]));
		cr_assert(!one || !strcmp(one, lk), "the waiter's wait slices through the sites name %s and %s",
			  one, lk);
		one = lk;
		named++;
	}
	cr_assert_gt(named, 0, "no wait slice of the waiter through a site names its Java lock\n%s",
		     tp_dump(&o.t[3]));
	tp_free(&o);
}

/* LOCK: how the profile names the Java lock (up to its address) */
static void run(const char *mode, const char *lock_fn, const char *lock)
{
	struct truth t = { 0 };
	record_sites(mode, &t);
	check_java_order(&t, lock_fn);
	check_trace(&t, lock_fn, lock);
	check_profile(&t, lock);
	check_collapsed(&t, lock);
}

Test(java_stacks_live, monitor_waits_name_the_java_sites)
{
	run("monitor", "ObjectMonitor6EnterI", "Java monitor JavaSites$Mon@0x");
}

Test(java_stacks_live, reentrant_lock_waits_name_the_java_sites)
{
	run("juc", "Unsafe_Park", "Java lock java.util.concurrent.locks.ReentrantLock$NonfairSync@0x");
}

/* record -- java ...: a JVM started by the recorder has its Java frames
 * and Java locks as one attached to (the runtime was found only at the
 * exec, before libjvm.so was loaded: none). */
Test(java_stacks_live, a_launched_jvms_waits_name_the_java_sites)
{
	struct truth t = { 0 };
	record_sites_launched("juc", &t);
	const char *lock = "Java lock java.util.concurrent.locks.ReentrantLock$NonfairSync@0x";
	check_trace(&t, "Unsafe_Park", lock);
	check_profile(&t, lock);
}

/* The sites JIT-compiled (with ReentrantLock.lock and its
 * AbstractQueuedSynchronizer.acquire inlined or compiled), the waiter's
 * lambda interpreted: the unwinder skips the compiled frames and the
 * lambda's (a user's trial had 98% of a JIT-compiled program's wait time
 * with its Java frames after __clone3); every stack keeps its Java frames
 * in order, the sites' waits name the sites as before, and the skipped
 * frames' placement is said in the stacks' end.  The same for a monitor
 * (compiled monitorenter, through C1's runtime stub). */
Test(java_stacks_live, jit_compiled_waits_keep_the_java_frames_in_order)
{
	const char *lock = "Java lock java.util.concurrent.locks.ReentrantLock$NonfairSync@0x";
	struct truth t = { 0 };
	record_sites_jit("juc", &t, true);
	int inferred = check_java_order(&t, "Unsafe_Park");
	check_trace(&t, "Unsafe_Park", lock);
	cr_assert_gt(inferred, 0, "no stack had Java frames the unwinder skipped: were the sites compiled?");
	check_profile(&t, lock);
	check_collapsed(&t, lock);
}

Test(java_stacks_live, jit_compiled_monitor_waits_keep_the_java_frames_in_order)
{
	const char *lock = "Java monitor JavaSites$Mon@0x";
	struct truth t = { 0 };
	record_sites_jit("monitor", &t, true);
	int inferred = check_java_order(&t, "ObjectMonitor6EnterI");
	check_trace(&t, "ObjectMonitor6EnterI", lock);
	cr_assert_gt(inferred, 0, "no stack had Java frames the unwinder skipped: were the sites compiled?");
	check_profile(&t, lock);
}

Test(java_stacks_live, perfetto_callstacks_have_the_java_sites)
{
	const char *why = tp_missing();
	if (why)
		cr_skip_test("%s", why);
	struct truth t;
	record_sites("juc", &t);
	check_perfetto(&t);
}
