/* Java processes for real: Debian's default JDK (and any other JDK under
 * /usr/lib/jvm) running tests/workloads/java/JavaLocks, whose threads print
 * their own tids, Java names and monitors.  The snapshot must name a
 * monitor deadlock with those tids, names and classes; read names while a
 * thread spins in compiled code; and take a 25-thread JVM in under a
 * second.  The JVM is never attached to or signalled: only read.  Skips,
 * saying why, where java or the workload is missing. */
#include <criterion/criterion.h>
#include <time.h>
#include <glob.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "lockmodel.h"
#include "snapshot.h"
#include "lt_test.h"
#include "pf_check.h"
#include "report_int.h"

#define JAVA "/usr/bin/java"
#define CLASSES "build/workloads/java"

TL_WORKLOAD(128);
static char trace[TL_PATH_MAX], pftrace[TL_PATH_MAX];

static void cleanup(void)
{
	tl_close(&wl);
	tl_unlink_traces(trace, pftrace);
}

static void need_java(const char *java)
{
	if (access(java, X_OK) != 0)
		cr_skip_test("%s missing: Debian's default-jdk-headless is needed (make deps installs it)", java);
	if (access(CLASSES "/JavaLocks.class", R_OK) != 0)
		cr_skip_test("%s/JavaLocks.class not built: javac was missing at build time", CLASSES);
}

/* Starts JAVA on JavaLocks ARGS and waits for `ready`. */
/* Starts JAVA on JavaLocks and waits for `ready`: true; false (the reason
 * printed) only for a JVM too old for the class files (Java 11). */
static bool try_start(const char *java, const char *mode, const char *waiters)
{
	char *argv[] = { (char *)java, "-cp", CLASSES, "JavaLocks", (char *)mode, "-w", (char *)waiters, NULL };
	ntruth = 0;
	cr_assert_eq(tl_spawn(&wl, argv), 0);
	if (tl_wait_for(&wl, 0, "ready", truth, &ntruth, 128, 90000))
		return true;
	char line[256];
	while (tl_readline(&wl, 1, line, sizeof(line), 1000) == 1)
		if (strstr(line, "UnsupportedClassVersionError")) {
			fprintf(stderr, "java_live: %s cannot run Java 11 class files: not tried\n", java);
			tl_close(&wl);
			return false;
		}
	cr_assert(0, "%s JavaLocks %s never got ready", java, mode);
	return false;
}

static void start(const char *java, const char *mode, const char *waiters)
{
	need_java(java);
	cr_assert(try_start(java, mode, waiters), "%s is too old for JavaLocks", java);
}

struct jt {
	pid_t tid;
	char name[128];
};

static void unhex(const char *h, char *out, size_t len)
{
	size_t n = 0;
	while (h[0] && h[1] && h[0] != ' ' && n + 1 < len) {
		unsigned v;
		sscanf(h, "%2x", &v);
		out[n++] = (char)v;
		h += 2;
	}
	out[n] = 0;
}

/* The thread printed with role ROLE and index IDX. */
static struct jt thread_of(const char *role, int idx)
{
	char want[64];
	struct jt t = { 0 };
	snprintf(want, sizeof(want), "role=%s idx=%d ", role, idx);
	const char *l = tl_find(truth, ntruth, "thread", want);
	cr_assert_not_null(l, "the workload printed no %s thread", want);
	int ok = 1;
	t.tid = (pid_t)tl_val(l, "tid", &ok);
	cr_assert(ok && t.tid > 0, "%s", l);
	const char *h = strstr(l, "namehex=");
	cr_assert_not_null(h);
	unhex(h + 8, t.name, sizeof(t.name));
	return t;
}

static void dump(const struct lt_snapshot *s)
{
	for (size_t i = 0; i < s->n_verdicts; i++) {
		fprintf(stderr, "java_live: verdict %zu: %s\n", i, s->verdicts[i].summary);
		for (size_t k = 0; k < s->verdicts[i].evidence.n; k++)
			fprintf(stderr, "java_live:     %s\n", s->verdicts[i].evidence.v[k]);
	}
}

/* A snapshot of the workload, its notes and verdicts shown. */
/* CPU seconds the last snap() took on this thread (the snapshot runs on
 * the caller's thread): its own work, which a loaded machine does not
 * stretch as it does wall time. */
static double snap_cpu_s;

static double thread_cpu_s(void)
{
	struct timespec t;
	clock_gettime(CLOCK_THREAD_CPUTIME_ID, &t);
	return (double)t.tv_sec + (double)t.tv_nsec / 1e9;
}

static struct lt_snapshot *snap(void)
{
	struct lt_snapshot *s = NULL;
	double c0 = thread_cpu_s();
	cr_assert_eq(lt_snapshot_take(wl.pid, NULL, &s), 0);
	snap_cpu_s = thread_cpu_s() - c0;
	for (size_t i = 0; i < s->notes.n; i++)
		fprintf(stderr, "java_live: note: %s\n", s->notes.v[i]);
	dump(s);
	return s;
}

static const struct lt_thread *thread(const struct lt_snapshot *s, pid_t tid)
{
	const struct lt_thread *t = lt_snapshot_find(s, tid);
	cr_assert_not_null(t, "thread %d is not in the snapshot", (int)tid);
	return t;
}

/* A verdict's summary or evidence line containing NEEDLE. */
static const char *verdict_line(const struct lt_snapshot *s, const char *needle)
{
	for (size_t i = 0; i < s->n_verdicts; i++) {
		const struct lt_verdict *v = &s->verdicts[i];
		if (strstr(v->summary, needle))
			return v->summary;
		for (size_t k = 0; k < v->evidence.n; k++)
			if (strstr(v->evidence.v[k], needle))
				return v->evidence.v[k];
	}
	return NULL;
}

/* The Java frames of thread TID (its runtime frames, rt_lang "java")
 * against what the JVM itself said of it (its `frame` lines, from
 * Thread.getStackTrace()): the same methods, in the same order, at the
 * same lines.  PLACED: each also at the native frame with its pc (the
 * unwinder walked the interpreter's frames; it has no unwind information
 * for JIT code, so compiled frames may lie beyond the native stack). */
static void check_frames(const struct lt_snapshot *s, pid_t tid, bool placed)
{
	const struct lt_thread *t = thread(s, tid);
	size_t k = 0;
	cr_assert_str_eq(t->rt_lang ? t->rt_lang : "(none)", "java");
	int idx;
	for (idx = 0;; idx++) {
		char want[64];
		snprintf(want, sizeof(want), "tid=%d idx=%d ", (int)tid, idx);
		const char *l = tl_find(truth, ntruth, "frame", want);
		if (!l)
			break;
		const char *p = strstr(l, "at=");
		cr_assert_not_null(p, "%s", l);
		char item[256];
		snprintf(item, sizeof(item), "%s", p + 3);
		char *colon = strrchr(item, ':');
		cr_assert_not_null(colon, "%s", item);
		*colon = 0;
		int line = atoi(colon + 1);
		/* frames the JVM hides from getStackTrace() (hidden classes; in
		 * later JDKs methods such as Thread.runWith) may sit between */
		while (k < t->n_rt_frames && !(t->rt_frames[k].func && !strcmp(t->rt_frames[k].func, item)))
			k++;
		cr_assert_lt(k, t->n_rt_frames, "thread %d: the snapshot has no Java frame %s (the JVM's frame %d), "
			     "or not in the JVM's order", (int)tid, item, idx);
		const struct lt_rtframe *f = &t->rt_frames[k++];
		cr_assert_eq(f->line, line > 0 ? line : 0, "thread %d: %s at line %d, the JVM says %d", (int)tid,
			     item, f->line, line);
		cr_assert_not_null(f->kind, "thread %d: %s", (int)tid, item);
		if (placed) {
			cr_assert(f->native >= 0 && (size_t)f->native < t->n_frames,
				  "thread %d: %s not placed among the native frames", (int)tid, item);
			cr_assert_eq(f->pc, t->frames[f->native].pc, "thread %d: %s at native frame #%d of another pc",
				     (int)tid, item, f->native);
		}
	}
	cr_assert_gt(idx, 0, "the workload printed no frames for %d", (int)tid);
}

/* The edge "thread A (name) waits for the Java monitor (CLASS@0x...) ...
 * held by thread B (name)". */
static void check_edge(const struct lt_verdict *v, const struct jt *a, const char *cls, const struct jt *b)
{
	char want[512];
	snprintf(want, sizeof(want), "thread %d (%s) waits for the Java monitor (%s@0x", (int)a->tid, a->name, cls);
	cr_assert(tl_strlist_has(&v->evidence, want), "no evidence line \"%s\"", want);
	snprintf(want, sizeof(want), "held by thread %d (%s) [runtime's own state: ", (int)b->tid, b->name);
	cr_assert(tl_strlist_has(&v->evidence, want), "no evidence line with \"%s\"", want);
}

/* The deadlock of `JavaLocks deadlock`: exactly AB and BA, by tid and Java
 * name, each waiting for the other's monitor class. */
static void check_deadlock(const struct lt_snapshot *s, const struct jt *ab, const struct jt *ba)
{
	cr_assert(s->n_verdicts > 0);
	const struct lt_verdict *v = &s->verdicts[0];
	cr_assert_eq(v->kind, LT_VERDICT_DEADLOCK, "first verdict: %s", v->summary);
	cr_assert_eq(v->n_tids, 2, "%s", v->summary);
	cr_assert((v->tids[0] == ab->tid && v->tids[1] == ba->tid) ||
		  (v->tids[0] == ba->tid && v->tids[1] == ab->tid), "%s", v->summary);
	char want[384];
	snprintf(want, sizeof(want), "%d (%s)", (int)ab->tid, ab->name);
	cr_assert_not_null(strstr(v->summary, want), "%s not in: %s", want, v->summary);
	snprintf(want, sizeof(want), "%d (%s)", (int)ba->tid, ba->name);
	cr_assert_not_null(strstr(v->summary, want), "%s not in: %s", want, v->summary);
	check_edge(v, ab, "JavaLocks$LockB", ba);
	check_edge(v, ba, "JavaLocks$LockA", ab);
	const struct lt_thread *ta = thread(s, ab->tid), *tb = thread(s, ba->tid);
	cr_assert_str_eq(ta->rt_name ? ta->rt_name : "(none)", ab->name);
	cr_assert_str_eq(tb->rt_name ? tb->rt_name : "(none)", ba->name);
	cr_assert_eq(ta->futex.owner_kind, LT_OWNER_RUNTIME);
	cr_assert_eq(ta->futex.owner, ba->tid);
	cr_assert_eq(tb->futex.owner, ab->tid);
	cr_assert_str_eq(ta->futex.lock_kind, "Java monitor");
	check_frames(s, ab->tid, true);
	check_frames(s, ba->tid, true);
}

Test(java_live, monitor_deadlock_names_tids_and_classes, .fini = cleanup, .timeout = 180)
{
	start(JAVA, "deadlock", "2");
	struct jt ab = thread_of("AB", 0), ba = thread_of("BA", 0);
	struct jt w0 = thread_of("waiter", 0), w1 = thread_of("waiter", 1);
	struct lt_snapshot *s = snap();
	check_deadlock(s, &ab, &ba);
	char want[256];
	snprintf(want, sizeof(want), "2 more thread(s) blocked behind the cycle: %d, %d",
		 (int)(w0.tid < w1.tid ? w0.tid : w1.tid), (int)(w0.tid < w1.tid ? w1.tid : w0.tid));
	cr_assert(tl_strlist_has(&s->verdicts[0].evidence, want), "no \"%s\"", want);
	/* the waiters behind it queue on LockA, whose owner is AB */
	const struct jt *ws[2] = { &w0, &w1 };
	for (int i = 0; i < 2; i++) {
		const struct lt_thread *t = thread(s, ws[i]->tid);
		cr_assert_str_eq(t->rt_name ? t->rt_name : "(none)", ws[i]->name);
		cr_assert_eq(t->futex.owner, ab.tid);
	}
	/* both monitors, and the JVM they come from */
	size_t monitors = 0;
	for (size_t i = 0; i < s->n_rtlocks; i++) {
		const struct lt_rtlock *l = &s->rtlocks[i];
		if (strcmp(l->kind, "Java monitor"))
			continue;
		monitors++;
		cr_assert(l->version && !strncmp(l->version, "HotSpot 17.", 11), "%s", l->version);
		cr_assert_eq(l->holder, strstr(l->name, "LockA@") ? ab.tid : ba.tid, "%s: %s", l->name,
			     l->holder_how);
	}
	cr_assert_eq(monitors, 2);
	char *json = NULL;
	size_t len = 0;
	cr_assert_eq(lt_snapshot_to_json_buf(s, &json, &len), 0);
	snprintf(want, sizeof(want), "\"runtime\":{\"lang\":\"java\",\"name\":\"%s\",\"frames\":[{\"func\":", ab.name);
	cr_assert_not_null(strstr(json, want), "no %s in the JSON", want);
	free(json);
	lt_snapshot_free(s);
}

Test(java_live, spinning_compiled_thread_does_not_stop_the_snapshot, .fini = cleanup, .timeout = 180)
{
	start(JAVA, "spin", "1");
	struct jt sp = thread_of("spinner", 0), w = thread_of("waiter", 0);
	struct lt_snapshot *s = snap();
	/* it never waits for the spinner (a JVM safepoint would never come:
	 * the test's timeout catches that); how long it takes is the
	 * benchmark's (BENCHMARKS.md, "Snapshot of runtime-lock processes") */
	fprintf(stderr, "java_live: snapshot with a spinning thread took %.1f ms (%.1f ms CPU)\n",
		s->duration_ns / 1e6, snap_cpu_s * 1e3);
	const struct lt_thread *ts = thread(s, sp.tid), *tw = thread(s, w.tid);
	cr_assert_str_eq(ts->rt_name ? ts->rt_name : "(none)", sp.name);
	cr_assert_str_eq(tw->rt_name ? tw->rt_name : "(none)", w.name);
	cr_assert(ts->state == 'R' || ts->sc.state == LT_SC_RUNNING, "the spinner is in state %c", ts->state);
	cr_assert_eq(tw->futex.owner_kind, LT_OWNER_RUNTIME);
	cr_assert_eq(tw->futex.owner, sp.tid);
	cr_assert_str_eq(tw->futex.lock_kind, "Java monitor");
	/* one waiter: its line may be folded with the JVM's own one-waiter
	 * waits (GC workers parked on semaphores) */
	char want[384];
	snprintf(want, sizeof(want), "1 thread waits for the Java monitor (JavaLocks$Hot@0x");
	const char *line = verdict_line(s, want);
	cr_assert_not_null(line, "no verdict says \"%s\"", want);
	snprintf(want, sizeof(want), "held by thread %d (%s), which is running", (int)sp.tid, sp.name);
	cr_assert_not_null(strstr(line, want), "%s", line);
	lt_snapshot_free(s);
}

/* A thread blocked inside JIT-compiled code: its compiled frame, with the
 * method inlined into it, at the lines the JVM itself reports.  The debug
 * information is read where the tables describe it (JDK 17). */
Test(java_live, compiled_and_inlined_frames_match_the_jvm, .fini = cleanup, .timeout = 180)
{
	start(JAVA, "compiled", "0");
	struct jt w = thread_of("waiter", 0), h = thread_of("holder", 0);
	struct lt_snapshot *s = snap();
	const struct lt_thread *t = thread(s, w.tid);
	bool compiled = false, inlined = false;
	for (size_t i = 0; i < t->n_rt_frames; i++) {
		const struct lt_rtframe *r = &t->rt_frames[i];
		const char *m = r->kind ? r->kind : "";
		fprintf(stderr, "java_live: java #%zu %s [%s] %s:%d at native #%d\n", i, r->func ? r->func : "?", m,
			r->file ? r->file : "", r->line, r->native);
		compiled |= !strcmp(m, "compiled");
		inlined |= !strcmp(m, "inlined");
		/* inlined: into the next frame's compiled code, at its pc */
		if (!strcmp(m, "inlined"))
			cr_assert(i + 1 < t->n_rt_frames && t->rt_frames[i + 1].pc == r->pc &&
				  t->rt_frames[i + 1].native == r->native, "%s: not at its compiled frame", r->func);
	}
	cr_assert(compiled && inlined, "no compiled and inlined frames: was the loop compiled in time?");
	check_frames(s, w.tid, false);
	cr_assert_eq(t->futex.owner, h.tid);
	lt_snapshot_free(s);
}

/* 25 application threads (one holder sleeping in LockA, 24 blocked on
 * it), ~45 with the JVM's own: one convoy verdict with every waiter.  How
 * long the snapshot takes is the benchmark's (BENCHMARKS.md, "Snapshot of
 * runtime-lock processes", java: 25 threads, target under 1 s). */
Test(java_live, convoy_of_25_threads, .fini = cleanup, .timeout = 180)
{
	start(JAVA, "convoy", "24");
	struct jt h = thread_of("holder", 0);
	struct lt_snapshot *s = snap();
	fprintf(stderr, "java_live: snapshot of %zu threads took %.1f ms (%.1f ms CPU)\n", s->n_threads,
		s->duration_ns / 1e6, snap_cpu_s * 1e3);
	const struct lt_verdict *v = &s->verdicts[0];
	cr_assert_eq(v->kind, LT_VERDICT_CONVOY, "%s", v->summary);
	cr_assert_eq(v->owner, h.tid, "%s", v->summary);
	cr_assert_eq(v->n_tids, 24, "%s", v->summary);
	char want[384];
	snprintf(want, sizeof(want), "24 threads wait for the Java monitor (JavaLocks$LockA@0x");
	cr_assert_not_null(strstr(v->summary, want), "%s", v->summary);
	snprintf(want, sizeof(want), "held by thread %d (%s), which has been blocked in", (int)h.tid, h.name);
	cr_assert_not_null(strstr(v->summary, want), "%s", v->summary);
	for (int i = 0; i < 24; i++) {
		struct jt w = thread_of("waiter", i);
		const struct lt_thread *t = thread(s, w.tid);
		cr_assert_str_eq(t->rt_name ? t->rt_name : "(none)", w.name);
		cr_assert_eq(t->futex.owner, h.tid);
	}
	lt_snapshot_free(s);
}

/* A recording's report and Perfetto trace name Java threads as the
 * snapshot does: the runtime view (runtime.name, runtime.frames) is read
 * the same way for every runtime, so a Java thread is named in the
 * report's tables and findings and on its Perfetto track, and the
 * report's 'where' is its innermost Java frame. */
Test(java_live, report_and_perfetto_name_java_threads, .fini = cleanup, .timeout = 180)
{
	need_java(JAVA);
	tl_skip_unless_root("needs root (BPF programs): run make test as root");
	start(JAVA, "deadlock", "0");
	struct jt ab = thread_of("AB", 0), ba = thread_of("BA", 0);
	tl_record_perfetto(wl.pid, "java", trace, pftrace);

	struct rp_json *j = tl_report_json(trace);
	const struct rp_json *ths = rp_json_get(j, "threads");
	const struct jt *want[2] = { &ab, &ba };
	for (int k = 0; k < 2; k++) {
		const struct rp_json *t = NULL;
		for (size_t i = 0; ths && i < ths->n && !t; i++)
			if (rp_json_num(rp_json_get(&ths->items[i], "tid"), 0) == want[k]->tid)
				t = &ths->items[i];
		cr_assert_not_null(t, "thread %d is not in the report", (int)want[k]->tid);
		const char *rn = rp_json_str(rp_json_get(t, "runtime_name"));
		cr_assert_str_eq(rn ? rn : "(none)", want[k]->name);
		const char *where = rp_json_str(rp_json_get(rp_json_get(t, "end"), "where"));
		cr_assert(where && !strncmp(where, "JavaLocks.crosswise (JavaLocks.java:", 36), "thread %d at %s",
			  (int)want[k]->tid, where ? where : "(none)");
	}
	const struct rp_json *fs = rp_json_get(j, "findings");
	cr_assert(fs && fs->n > 0, "no findings");
	const char *summary = rp_json_str(rp_json_get(&fs->items[0], "summary"));
	cr_assert_str_eq(rp_json_str(rp_json_get(&fs->items[0], "kind")), "deadlock", "first finding: %s", summary);
	char name[192];
	snprintf(name, sizeof(name), "%d (%s)", (int)ab.tid, ab.name);
	cr_assert_not_null(strstr(summary, name), "%s not in: %s", name, summary);
	rp_json_free(j);

	struct pfc c;
	if (pfc_load(&c, pftrace)) {
		pfc_print_errors(&c);
		cr_assert_fail("%s: %d problems in the Perfetto trace", pftrace, c.nerr);
	}
	for (int k = 0; k < 2; k++) {
		const struct pfc_track *tt = pfc_thread_track(&c, want[k]->tid);
		cr_assert_not_null(tt, "no track for thread %d", (int)want[k]->tid);
		cr_assert_str_eq(tt->name, want[k]->name);
	}
	pfc_free(&c);
}

/* Every other JDK installed under /usr/lib/jvm: the same tables, other
 * layouts (JDK 21+ field streams, JDK 24+ owner ids and lock stacks). */
Test(java_live, monitor_deadlock_on_every_other_jdk, .fini = cleanup, .timeout = 300)
{
	need_java(JAVA);
	char debian[PATH_MAX], real[PATH_MAX];
	cr_assert_not_null(realpath(JAVA, debian));
	glob_t g;
	int tried = 0;
	if (glob("/usr/lib/jvm/*/bin/java", 0, NULL, &g) != 0)
		cr_skip_test("no JDK under /usr/lib/jvm");
	char seen[16][PATH_MAX];
	int nseen = 0;
	for (size_t i = 0; i < g.gl_pathc; i++) {
		if (!realpath(g.gl_pathv[i], real) || !strcmp(real, debian))
			continue;
		bool dup = false;
		for (int k = 0; k < nseen; k++)
			dup |= !strcmp(seen[k], real);
		if (dup || nseen == 16)
			continue;
		snprintf(seen[nseen++], PATH_MAX, "%s", real);
		if (!try_start(real, "deadlock", "0"))
			continue;
		struct jt ab = thread_of("AB", 0), ba = thread_of("BA", 0);
		struct lt_snapshot *s = snap();
		const char *ver = "?";
		for (size_t k = 0; k < s->n_rtlocks; k++)
			if (!strcmp(s->rtlocks[k].kind, "Java monitor") && s->rtlocks[k].version)
				ver = s->rtlocks[k].version;
		fprintf(stderr, "java_live: %s: %s\n", real, ver);
		check_deadlock(s, &ab, &ba);
		lt_snapshot_free(s);
		tl_close(&wl);
		tried++;
	}
	globfree(&g);
	if (!tried)
		cr_skip_test("no JDK other than Debian's default under /usr/lib/jvm");
}
