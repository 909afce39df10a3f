/* java.util.concurrent locks for real (issue 25, item 3): Debian's
 * default JDK running tests/workloads/java/JucLocks, whose threads print
 * their own tids.  Two ReentrantLocks taken in opposite orders beside four
 * busy threads are a deadlock naming both threads and both locks, as
 * jstack's "Found one Java-level deadlock" does; a monitor and a
 * ReentrantLock in a cycle too.  The JVM's own idle threads (GC, G1,
 * Signal Dispatcher) are in no verdict.  The JVM is only read.  Two
 * ReentrantReadWriteLocks' write locks in a cycle too, checked against
 * jstack's own deadlock report (run after the snapshot).  Needs root;
 * skips, saying why, where java, jstack or the class files are missing. */
#include <criterion/criterion.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "lockmodel.h"
#include "snapshot.h"
#include "lt_test.h"

#define JAVA "/usr/bin/java"
#define JSTACK "/usr/bin/jstack"
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

/* jstack's "Found one Java-level deadlock" section: for the thread named
 * NAME, the synchronizer it waits for (its address into *SYNC, its class
 * into CLS) and the name of the thread holding it (into HELD_BY).  Fails
 * the test if jstack finds no deadlock or does not list NAME. */
static void jstack_waits(const char *out, const char *name, uint64_t *sync, char *cls, size_t clen,
			 char *held_by, size_t hlen)
{
	const char *dl = strstr(out, "Found one Java-level deadlock:");
	cr_assert_not_null(dl, "jstack found no deadlock:\n%.2000s", out);
	char key[64];
	snprintf(key, sizeof(key), "\n\"%s\":\n  waiting for ownable synchronizer 0x", name);
	const char *p = strstr(dl, key);
	cr_assert_not_null(p, "jstack lists no ownable-synchronizer wait of %s:\n%.1500s", name, dl);
	p += strlen(key);
	char *end;
	*sync = strtoull(p, &end, 16);
	cr_assert(end != p && !strncmp(end, ", (a ", 5), "%.200s", p);
	p = end + 5;
	size_t n = strcspn(p, ")");
	snprintf(cls, clen, "%.*s", (int)n, p);
	p = strstr(p, "which is held by \"");
	cr_assert_not_null(p);
	p += strlen("which is held by \"");
	snprintf(held_by, hlen, "%.*s", (int)strcspn(p, "\""), p);
}

Test(juc_live, reentrantreadwritelock_write_owners_as_jstack_says, .fini = cleanup, .timeout = 240)
{
	if (access(JSTACK, X_OK) != 0)
		cr_skip_test("%s missing: the JDK's jstack is the ground truth here (default-jdk-headless)", JSTACK);
	start("rw-deadlock");
	pid_t a = tid_of("A"), b = tid_of("B");
	struct lt_snapshot *s = NULL;
	cr_assert_eq(lt_snapshot_take(wl.pid, NULL, &s), 0);
	const struct lt_verdict *dl = the_deadlock(s, a, b);
	cr_assert(strstr(dl->summary, "(rw-A)") && strstr(dl->summary, "(rw-B)"), "Java names: %s", dl->summary);
	no_jvm_idle_thread(s);

	char cmd[64];
	snprintf(cmd, sizeof(cmd), JSTACK " %d 2>&1", (int)wl.pid);
	FILE *p = popen(cmd, "r");
	cr_assert_not_null(p);
	static char out[1 << 20];
	size_t n = fread(out, 1, sizeof(out) - 1, p);
	out[n] = 0;
	cr_assert_eq(pclose(p), 0, "jstack failed:\n%.2000s", out);

	const char *names[2] = { "rw-A", "rw-B" };
	pid_t tids[2] = { a, b };
	for (int i = 0; i < 2; i++) {
		uint64_t sync = 0;
		char cls[128], held_by[64];
		jstack_waits(out, names[i], &sync, cls, sizeof(cls), held_by, sizeof(held_by));
		cr_assert_str_eq(cls, "java.util.concurrent.locks.ReentrantReadWriteLock$NonfairSync");
		cr_assert_str_eq(held_by, names[!i]);
		/* locktrace: the thread waits for that very synchronizer, whose
		 * write owner is the thread jstack names */
		const struct lt_thread *t = lt_snapshot_find(s, tids[i]);
		cr_assert_not_null(t);
		cr_assert_str_eq(t->futex.lock_kind ? t->futex.lock_kind : "-", "java.util.concurrent lock");
		cr_assert_eq(t->futex.owner, tids[!i], "%s waits for a lock of %d, jstack says %s (%d)", names[i],
			     (int)t->futex.owner, held_by, (int)tids[!i]);
		const struct lt_rtlock *l = NULL;
		for (size_t k = 0; k < s->n_rtlocks; k++)
			if (s->rtlocks[k].base == sync)
				l = &s->rtlocks[k];
		cr_assert_not_null(l, "no runtime lock at jstack's synchronizer 0x%" PRIx64, sync);
		cr_assert_str_eq(l->kind, "java.util.concurrent lock");
		cr_assert_eq(l->held, 1);
		cr_assert_eq(l->holder, tids[!i], "the write owner of 0x%" PRIx64 ": %d, jstack says %s (%d)", sync,
			     (int)l->holder, held_by, (int)tids[!i]);
		char at[40];
		snprintf(at, sizeof(at), "@0x%" PRIx64, sync);
		cr_assert(t->futex.lock_name && strstr(t->futex.lock_name, cls) && strstr(t->futex.lock_name, at),
			  "%s", t->futex.lock_name ? t->futex.lock_name : "-");
	}
	lt_snapshot_free(s);
}
