/* java.util.concurrent locks for real (issue 25, item 3): Debian's
 * default JDK running tests/workloads/java/JucLocks, whose threads print
 * their own tids.  Two ReentrantLocks taken in opposite orders beside four
 * busy threads are a deadlock naming both threads and both locks, as
 * jstack's "Found one Java-level deadlock" does; a monitor and a
 * ReentrantLock in a cycle too.  The JVM's own idle threads (GC, G1,
 * Signal Dispatcher) are in no verdict.  The JVM is only read.  Needs
 * root; skips, saying why, where java or the class files are missing. */
#include <criterion/criterion.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "lockmodel.h"
#include "snapshot.h"
#include "lt_test.h"

#define JAVA "/usr/bin/java"
#define CLASSES "build/workloads/java"

TL_WORKLOAD(64);

static void cleanup(void)
{
	tl_close_started(&wl);
}

static void start(const char *mode)
{
	tl_skip_unless_root("needs root: another process's memory");
	if (access(JAVA, X_OK) != 0)
		cr_skip_test("%s missing: Debian's default-jdk-headless is needed (make deps installs it)", JAVA);
	if (access(CLASSES "/JucLocks.class", R_OK) != 0)
		cr_skip_test("%s/JucLocks.class not built: javac was missing at build time", CLASSES);
	char *argv[] = { JAVA, "-cp", CLASSES, "JucLocks", (char *)mode, NULL };
	ntruth = 0;
	cr_assert_eq(tl_spawn(&wl, argv), 0);
	cr_assert(tl_wait_for(&wl, 0, "ready", truth, &ntruth, 64, 120000), "JucLocks %s never got ready", mode);
}

static pid_t tid_of(const char *role)
{
	char want[32];
	snprintf(want, sizeof(want), "role=%s ", role);
	pid_t t = (pid_t)tl_truth_val(truth, ntruth, "thread", want, "tid");
	cr_assert_gt(t, 0, "no tid for role %s", role);
	return t;
}

/* The one deadlock: first, with exactly threads A and B, each waiting for
 * a lock the other holds. */
static const struct lt_verdict *the_deadlock(const struct lt_snapshot *s, pid_t a, pid_t b)
{
	const struct lt_verdict *dl = NULL;
	size_t n = 0;
	for (size_t i = 0; i < s->n_verdicts; i++)
		if (s->verdicts[i].kind == LT_VERDICT_DEADLOCK && !n++)
			dl = &s->verdicts[i];
	cr_assert_eq(n, 1, "expected one deadlock, got %zu; first verdict: %s", n,
		     s->n_verdicts ? s->verdicts[0].summary : "-");
	cr_assert_eq(&s->verdicts[0], dl, "the deadlock ranks first, not: %s", s->verdicts[0].summary);
	cr_assert_eq(dl->n_tids, 2);
	cr_assert((dl->tids[0] == a && dl->tids[1] == b) || (dl->tids[0] == b && dl->tids[1] == a),
		  "cycle %d, %d; want %d, %d", (int)dl->tids[0], (int)dl->tids[1], (int)a, (int)b);
	cr_assert(!strncmp(dl->summary, "deadlock:", 9), "read from the JVM, not inferred: %s", dl->summary);
	const struct lt_thread *ta = lt_snapshot_find(s, a), *tb = lt_snapshot_find(s, b);
	cr_assert(ta && tb);
	cr_assert_eq(ta->futex.owner, b);
	cr_assert_eq(tb->futex.owner, a);
	return dl;
}

/* No verdict names a thread of the JVM's own (GC, G1, Signal Dispatcher,
 * compilers): they wait for work. */
static void no_jvm_idle_thread(const struct lt_snapshot *s)
{
	static const char *internal[] = { "GC Thread", "G1 ", "Signal Dispatch", "C2 Compiler", "C1 Compiler" };
	for (size_t i = 0; i < s->n_verdicts; i++) {
		const struct lt_verdict *v = &s->verdicts[i];
		for (size_t k = 0; k < v->n_tids + 1; k++) {
			pid_t tid = k < v->n_tids ? v->tids[k] : v->owner;
			const struct lt_thread *t = tid ? lt_snapshot_find(s, tid) : NULL;
			for (size_t q = 0; t && q < sizeof(internal) / sizeof(internal[0]); q++)
				cr_assert(strncmp(t->comm, internal[q], strlen(internal[q])),
					  "JVM thread %d (%s) in verdict: %s", (int)tid, t->comm, v->summary);
		}
	}
}

Test(juc_live, reentrantlock_abba_with_busy_threads, .fini = cleanup, .timeout = 240)
{
	start("rl-deadlock");
	pid_t a = tid_of("A"), b = tid_of("B");
	struct lt_snapshot *s = NULL;
	cr_assert_eq(lt_snapshot_take(wl.pid, NULL, &s), 0);
	const struct lt_verdict *dl = the_deadlock(s, a, b);
	cr_assert(strstr(dl->summary, "(rl-A)") && strstr(dl->summary, "(rl-B)"), "Java names: %s", dl->summary);
	size_t juc = 0;
	for (size_t i = 0; i < s->n_rtlocks; i++) {
		const struct lt_rtlock *l = &s->rtlocks[i];
		if (strcmp(l->kind, "java.util.concurrent lock"))
			continue;
		juc++;
		cr_assert(l->name && strstr(l->name, "java.util.concurrent.locks.ReentrantLock$NonfairSync@"),
			  "%s", l->name ? l->name : "-");
		cr_assert_eq(l->held, 1);
		cr_assert(l->holder == a || l->holder == b, "holder %d", (int)l->holder);
	}
	cr_assert_eq(juc, 2, "two ReentrantLocks, got %zu", juc);
	no_jvm_idle_thread(s);
	lt_snapshot_free(s);
}

Test(juc_live, monitor_and_reentrantlock_cycle, .fini = cleanup, .timeout = 240)
{
	start("mixed");
	pid_t m = tid_of("M"), r = tid_of("R");
	struct lt_snapshot *s = NULL;
	cr_assert_eq(lt_snapshot_take(wl.pid, NULL, &s), 0);
	the_deadlock(s, m, r);
	const struct lt_thread *tm = lt_snapshot_find(s, m), *tr = lt_snapshot_find(s, r);
	cr_assert_str_eq(tm->futex.lock_kind ? tm->futex.lock_kind : "-", "java.util.concurrent lock");
	cr_assert_str_eq(tr->futex.lock_kind ? tr->futex.lock_kind : "-", "Java monitor");
	cr_assert(tr->futex.lock_name && strstr(tr->futex.lock_name, "JucLocks$Mon@"), "%s",
		  tr->futex.lock_name ? tr->futex.lock_name : "-");
	no_jvm_idle_thread(s);
	lt_snapshot_free(s);
}
