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
#include <fcntl.h>
#include <inttypes.h>
#include <sys/file.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "lockmodel.h"
#include "report_int.h"
#include "snapshot.h"
#include "waitfor.h"
#include "lt_test.h"

#define JAVA "/usr/bin/java"
#define JSTACK "/usr/bin/jstack"
#define CLASSES "build/workloads/java"

TL_WORKLOAD(64);

static void cleanup(void)
{
	tl_close_started(&wl);
}

static void start2(const char *mode, const char *arg);
static void start(const char *mode)
{
	start2(mode, NULL);
}

static void start2(const char *mode, const char *arg)
{
	tl_skip_unless_root("needs root: another process's memory");
	if (access(JAVA, X_OK) != 0)
		cr_skip_test("%s missing: Debian's default-jdk-headless is needed (make deps installs it)", JAVA);
	if (access(CLASSES "/JucLocks.class", R_OK) != 0)
		cr_skip_test("%s/JucLocks.class not built: javac was missing at build time", CLASSES);
	char *argv[] = { JAVA, "-cp", CLASSES, "JucLocks", (char *)mode, (char *)arg, NULL };
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

/* jstack's line under the thread named NAME that starts with WHAT ("-
 * waiting on <", "- parking to wait for  <"): the address in it, 0 if
 * none. */
static uint64_t jstack_addr(const char *out, const char *name, const char *what)
{
	char key[64];
	snprintf(key, sizeof(key), "\n\"%s\" ", name);
	const char *p = strstr(out, key);
	cr_assert_not_null(p, "jstack lists no thread %s", name);
	const char *end = strstr(p + 1, "\n\n");
	const char *w = strstr(p, what);
	if (!w || (end && w > end))
		return 0;
	return strtoull(w + strlen(what), NULL, 16);
}

static void run_jstack(char *out, size_t len)
{
	char cmd[64];
	snprintf(cmd, sizeof(cmd), JSTACK " -l %d 2>&1", (int)wl.pid);
	FILE *p = popen(cmd, "r");
	cr_assert_not_null(p);
	size_t n = fread(out, 1, len - 1, p);
	out[n] = 0;
	cr_assert_eq(pclose(p), 0, "jstack failed:\n%.2000s", out);
}

/* The one verdict whose owner is OWNER: a lock wait (never a convoy) of
 * exactly the three threads of ROLE0..2 (ROLE is "MW" or "CW"). */
static const struct lt_verdict *notify_verdict(const struct lt_snapshot *s, pid_t owner, const char *role)
{
	const struct lt_verdict *v = NULL;
	for (size_t i = 0; i < s->n_verdicts; i++)
		if (s->verdicts[i].owner == owner) {
			cr_assert_null(v, "two verdicts name %d: %s", (int)owner, s->verdicts[i].summary);
			v = &s->verdicts[i];
		}
	cr_assert_not_null(v, "no verdict names %d", (int)owner);
	cr_assert_eq(v->kind, LT_VERDICT_LOCK_WAIT, "%s", v->summary);
	cr_assert_eq(v->n_tids, 3, "%s", v->summary);
	for (int i = 0; i < 3; i++) {
		char r[8];
		snprintf(r, sizeof(r), "%s%d", role, i);
		pid_t t = tid_of(r);
		bool in = false;
		for (size_t k = 0; k < v->n_tids; k++)
			in |= v->tids[k] == t;
		cr_assert(in, "%s (%d) not in: %s", r, (int)t, v->summary);
	}
	return v;
}

/* Three threads in Object.wait() on a monitor that a fourth owns while it
 * blocks in read() on a pipe, and three in a ReentrantLock Condition's
 * await() while a fifth holds the lock in read(): neither kind can be woken
 * (notify() and signal() throw unless their caller holds the monitor or the
 * lock), so each is one lock wait on its owner, never IDLE.  The objects are
 * the ones jstack says the waiters wait on and the owners hold. */
Test(juc_live, object_wait_and_await_wait_on_the_owner_of_their_lock, .fini = cleanup, .timeout = 240)
{
	start("notify-held");
	pid_t mo = tid_of("MO"), ro = tid_of("RO");
	struct lt_snapshot *s = NULL;
	cr_assert_eq(lt_snapshot_take(wl.pid, NULL, &s), 0);
	for (size_t i = 0; i < s->n_verdicts; i++)
		cr_assert(s->verdicts[i].kind != LT_VERDICT_IDLE && s->verdicts[i].kind != LT_VERDICT_OK &&
			  s->verdicts[i].kind != LT_VERDICT_CONVOY, "%s", s->verdicts[i].summary);
	uint64_t mon = 0, cond = 0;
	for (int i = 0; i < 3; i++) {
		char r[8];
		snprintf(r, sizeof(r), "MW%d", i);
		const struct lt_thread *t = lt_snapshot_find(s, tid_of(r));
		cr_assert_not_null(t);
		cr_assert_str_eq(t->futex.lock_kind ? t->futex.lock_kind : "-", "Java monitor (Object.wait)");
		cr_assert_eq(t->futex.owner, mo);
		cr_assert(!mon || t->futex.lock_base == mon);
		mon = t->futex.lock_base;
		snprintf(r, sizeof(r), "CW%d", i);
		t = lt_snapshot_find(s, tid_of(r));
		cr_assert_not_null(t);
		cr_assert_str_eq(t->futex.lock_kind ? t->futex.lock_kind : "-", "java.util.concurrent Condition (await)");
		cr_assert_eq(t->futex.owner, ro);
		cr_assert(!cond || t->futex.lock_base == cond);
		cond = t->futex.lock_base;
	}
	const struct lt_verdict *v = notify_verdict(s, mo, "MW");
	char want[200];
	snprintf(want, sizeof(want), "3 threads wait in Object.wait() on JucLocks$Mon@0x%" PRIx64
		 ", whose monitor thread %d (mon-owner) holds, which has been blocked in read(fd ", mon, (int)mo);
	cr_assert(strstr(v->summary, want) && strstr(v->summary, "pipe)"), "%s\nwant: %s", v->summary, want);
	v = notify_verdict(s, ro, "CW");
	snprintf(want, sizeof(want), "3 threads wait in Condition.await() on "
		 "java.util.concurrent.locks.AbstractQueuedSynchronizer$ConditionObject@0x%" PRIx64
		 ", whose lock, java.util.concurrent.locks.ReentrantLock$NonfairSync@0x", cond);
	cr_assert(strstr(v->summary, want) && strstr(v->summary, "(rl-owner) holds"), "%s\nwant: %s", v->summary,
		  want);
	no_jvm_idle_thread(s);
	/* the JVM's own service loops wait for work on its Monitors: idle
	 * (rt_idle.c); at least one of them is in that wait at any moment */
	size_t idle = 0;
	for (size_t i = 0; i < s->n_threads; i++) {
		const struct lt_thread *t = &s->threads[i];
		if ((!strncmp(t->comm, "VM Thread", 9) || !strncmp(t->comm, "C1 CompilerThre", 15) ||
		     !strncmp(t->comm, "C2 CompilerThre", 15) || !strncmp(t->comm, "Service Thread", 14)) &&
		    t->futex.lock_state && strstr(t->futex.lock_state, "the runtime's own thread waits for work here"))
			idle++;
	}
	cr_assert_geq(idle, 1, "no JVM service thread's wait was found idle");
	lt_snapshot_free(s);
	if (access(JSTACK, X_OK) != 0) {
		fprintf(stderr, "juc_live: %s missing: the objects are not checked against jstack\n", JSTACK);
		return;
	}
	static char out[1 << 20];
	run_jstack(out, sizeof(out));
	cr_assert_eq(jstack_addr(out, "mon-waiter-0", "- waiting on <"), mon, "jstack:\n%.3000s", out);
	cr_assert_eq(jstack_addr(out, "mon-owner", "- locked <"), mon);
	cr_assert_eq(jstack_addr(out, "cv-waiter-0", "- parking to wait for  <"), cond, "jstack:\n%.3000s", out);
}

/* wd-W owns monitor MON and waits in MON2.wait(); wd-H owns MON2 and waits
 * to enter MON: a deadlock through a notify() only H could send, which
 * jstack does not report (it finds cycles of monitor enters only).  Said in
 * every snapshot over 1.5 s: H, the monitor's responsible waiter, wakes
 * from a timed park (1 ms, 8, 64, 512, then every 1 s) to try MON again,
 * and for 0.2 s after each such wake-up the kernel's view of it (asleep
 * that long, not moved) no longer said it keeps MON2, so that one snapshot
 * in four or five missed the deadlock; the JVM's own state (a pending
 * monitor) says it does. */
Test(juc_live, object_wait_in_a_cycle_is_a_deadlock, .fini = cleanup, .timeout = 240)
{
	start("wait-deadlock");
	pid_t w = tid_of("W"), h = tid_of("H");
	for (int round = 0; round < 10; round++) {
		struct lt_snapshot *s = NULL;
		cr_assert_eq(lt_snapshot_take(wl.pid, NULL, &s), 0);
		const struct lt_verdict *dl = the_deadlock(s, w, h);
		bool said = false;
		char want[96];
		snprintf(want, sizeof(want), "thread %d (wd-W) waits in Object.wait() on JucLocks$Mon@0x",
			 (int)w);
		for (size_t k = 0; k < dl->evidence.n; k++)
			said |= strstr(dl->evidence.v[k], want) != NULL;
		cr_assert(said, "snapshot %d: no evidence line: %s", round, want);
		no_jvm_idle_thread(s);
		lt_snapshot_free(s);
		usleep(150 * 1000);
	}
}

/* The verdict that names thread TID (one). */
static const struct lt_verdict *verdict_of(const struct lt_snapshot *s, pid_t tid)
{
	const struct lt_verdict *found = NULL;
	for (size_t i = 0; i < s->n_verdicts; i++)
		for (size_t k = 0; k < s->verdicts[i].n_tids; k++)
			if (s->verdicts[i].tids[k] == tid) {
				cr_assert(!found || found == &s->verdicts[i], "two verdicts name %d", (int)tid);
				found = &s->verdicts[i];
			}
	cr_assert_not_null(found, "no verdict names %d", (int)tid);
	return found;
}

/* A ReentrantLock whose owner thread exited without unlocking it: its
 * exclusiveOwnerThread is no live thread's, so the waiter's verdict says
 * so, and lists no live thread as one that may hold it (it listed the
 * JVM's own service threads before). */
Test(juc_live, reentrant_lock_of_an_exited_thread_is_held_by_none, .fini = cleanup, .timeout = 240)
{
	start("rl-exited");
	pid_t v = tid_of("V");
	struct lt_snapshot *s = NULL;
	cr_assert_eq(lt_snapshot_take(wl.pid, NULL, &s), 0);
	const struct lt_verdict *lw = verdict_of(s, v);
	cr_assert_eq(lw->kind, LT_VERDICT_LOCK_WAIT, "%s", lw->summary);
	cr_assert_eq(lw->owner, 0, "%s", lw->summary);
	cr_assert(strstr(lw->summary, "held by a thread that no longer exists") &&
		  strstr(lw->summary, "it exited holding the java.util.concurrent lock"), "%s", lw->summary);
	for (size_t k = 0; k < lw->evidence.n; k++)
		cr_assert_null(strstr(lw->evidence.v[k], "is among these"), "a live thread listed: %s",
			       lw->evidence.v[k]);
	no_jvm_idle_thread(s);
	lt_snapshot_free(s);
}

/* A CountDownLatch counted down once of twice: its waiter waits for one
 * more countDown(), which nobody holds and any thread may call: its wait is
 * named by the latch and its count, and since the readers beside it sleep
 * on timers (any of them could count it down next), no verdict names it
 * (it was a LOCK WAIT, "nobody holds a latch", in a program the snapshot
 * cannot call stuck); a ReentrantReadWriteLock's writer behind three
 * readers: the AQS state's read holds are said (it said "state unknown"),
 * and every reader named (it said "readers are not recorded"). */
Test(juc_live, latch_and_read_holds_read_from_the_synchronizer_state, .fini = cleanup, .timeout = 240)
{
	start("shared-waits");
	pid_t la = tid_of("LA"), wr = tid_of("WR");
	struct lt_snapshot *s = NULL;
	cr_assert_eq(lt_snapshot_take(wl.pid, NULL, &s), 0);
	const struct lt_thread *lt = lt_snapshot_find(s, la);
	cr_assert_not_null(lt);
	const struct lt_futex *lf = &lt->futex;
	cr_assert_str_eq(lf->lock_kind ? lf->lock_kind : "-", LT_KIND_JAVA_LATCH);
	cr_assert_eq(lf->rtlock, 0, "claimed as a lock");
	cr_assert(lf->lock_name && !strncmp(lf->lock_name, "java.util.concurrent.CountDownLatch$Sync@0x", 43), "%s",
		  lf->lock_name ? lf->lock_name : "-");
	cr_assert(lf->lock_state && !strncmp(lf->lock_state, "count 1, in CountDownLatch.await(), called by JucLocks.",
					     55), "%s", lf->lock_state ? lf->lock_state : "-");
	for (size_t i = 0; i < s->n_verdicts; i++)
		for (size_t k = 0; k < s->verdicts[i].n_tids; k++)
			cr_assert_neq(s->verdicts[i].tids[k], la, "the latch's waiter in: %s", s->verdicts[i].summary);
	const struct lt_verdict *v = verdict_of(s, wr);
	/* the three readers as the lock records them: the first as
	 * Sync.firstReader, the others in their own ThreadLocal readHolds */
	pid_t r[3] = { tid_of("R0"), tid_of("R1"), tid_of("R2") };
	const char *how = NULL;
	for (size_t k = 0; k < v->evidence.n && !how; k++)
		if (strstr(v->evidence.v[k], "the AQS state says 3 read holds"))
			how = v->evidence.v[k];
	cr_assert_not_null(how, "no evidence says the read holds: %s", v->summary);
	cr_assert(strstr(how, "all of them recorded by the lock") && strstr(how, "(1 hold, Sync.firstReader)") &&
		  strstr(how, "(1 hold, its readHolds)"), "%s", how);
	bool owner_is_reader = false;
	for (int i = 0; i < 3; i++) {
		char a[64];
		snprintf(a, sizeof(a), "thread %d (\"reader-", (int)r[i]);
		cr_assert(strstr(how, a), "reader %d not named: %s", (int)r[i], how);
		owner_is_reader |= v->owner == r[i];
	}
	cr_assert(owner_is_reader, "owner %d is no reader", (int)v->owner);
	lt_snapshot_free(s);
}

/* A cycle through a read hold (the user trial's journal-writer and
 * index-reader): the reader holds RW_A's read lock and waits for RL_B,
 * which the writer holds while it waits for RW_A's write lock.  The read
 * hold is the lock's Sync.firstReader: a deadlock read from the JVM (it was
 * a lock wait whose "readers are not recorded").  Beside it, a thread
 * waiting for RL_A, whose holder waits for a Semaphore permit: its verdict
 * names the Semaphore its holder waits for, its permits and where it was
 * called (it said "blocked in futex([anonymous mapping ...])", then
 * "waiting for the java.util.concurrent lock (...Semaphore$NonfairSync@0x...)
 * whose holder is not recorded": a Semaphore has none). */
Test(juc_live, read_hold_cycle_is_a_deadlock_and_holders_say_their_lock, .fini = cleanup, .timeout = 240)
{
	start("read-cycle");
	pid_t r = tid_of("R"), w = tid_of("W"), h = tid_of("H"), vt = tid_of("V");
	struct lt_snapshot *s = NULL;
	cr_assert_eq(lt_snapshot_take(wl.pid, NULL, &s), 0);
	const struct lt_verdict *dl = the_deadlock(s, r, w);
	cr_assert(strstr(dl->summary, "(rc-reader)") && strstr(dl->summary, "(rc-writer)"), "%s", dl->summary);
	size_t rw = 0;
	for (size_t i = 0; i < s->n_rtlocks; i++) {
		const struct lt_rtlock *l = &s->rtlocks[i];
		if (!l->name || !strstr(l->name, "ReentrantReadWriteLock$NonfairSync@"))
			continue;
		rw++;
		char want[96];
		snprintf(want, sizeof(want), "thread %d (\"rc-reader\") (1 hold, Sync.firstReader)", (int)r);
		cr_assert_eq(l->holder, r, "holder %d", (int)l->holder);
		cr_assert(l->holder_how && strstr(l->holder_how, want) &&
			  strstr(l->holder_how, "1 read hold, all of them recorded"), "%s",
			  l->holder_how ? l->holder_how : "-");
	}
	cr_assert_eq(rw, 1, "one ReentrantReadWriteLock, got %zu", rw);
	const struct lt_verdict *v = verdict_of(s, vt);
	cr_assert_eq(v->kind, LT_VERDICT_LOCK_WAIT, "%s", v->summary);
	cr_assert_eq(v->owner, h, "%s", v->summary);
	char want[160];
	snprintf(want, sizeof(want), "held by thread %d (sem-holder), which has been blocked in "
		 "futex(java.util.concurrent.Semaphore$NonfairSync@0x", (int)h);
	cr_assert(strstr(v->summary, want) &&
		  strstr(v->summary, ": 0 permits available, in Semaphore.acquireUninterruptibly(), called by "
				     "JucLocks.lambda$readCycle$"), "%s", v->summary);
	no_jvm_idle_thread(s);
	lt_snapshot_free(s);
}

/* The finding of `locktrace report` (JSON) whose tids hold TID, of kind
 * holder_blocked; fails if there is none or two. */
static const struct rp_json *holder_finding_of(const struct rp_json *j, pid_t tid)
{
	const struct rp_json *fs = rp_json_get(j, "findings"), *found = NULL;
	for (size_t i = 0; fs && i < fs->n; i++) {
		const struct rp_json *tids = rp_json_get(&fs->items[i], "tids");
		for (size_t k = 0; tids && k < tids->n; k++)
			if (rp_json_num(&tids->items[k], 0) == tid &&
			    !strcmp(rp_json_str(rp_json_get(&fs->items[i], "kind")), "holder_blocked")) {
				cr_assert_null(found, "two holder_blocked findings name %d", (int)tid);
				found = &fs->items[i];
			}
	}
	for (size_t i = 0; !found && fs && i < fs->n; i++)
		fprintf(stderr, "finding: %s\n", rp_json_str(rp_json_get(&fs->items[i], "summary")));
	cr_assert_not_null(found, "no holder_blocked finding names %d", (int)tid);
	return found;
}

/* A 5 s recording of JucLocks MODE from the JVM's exec (`record -- java
 * ...`) into PATH (a temporary name with TAG), its truth lines read; skips,
 * saying why, without root, a JDK or the built class. */
static void record_mode(const char *mode, const char *tag, char *path, size_t len)
{
	tl_skip_unless_root("needs root (BPF programs)");
	if (access(JAVA, X_OK) != 0)
		cr_skip_test("%s missing: Debian's default-jdk-headless is needed (make deps installs it)", JAVA);
	if (access(CLASSES "/JucLocks.class", R_OK) != 0)
		cr_skip_test("%s/JucLocks.class not built: javac was missing at build time", CLASSES);
	tl_tmp_path(path, len, tag);
	char *argv[] = { LT_BIN, "record", "-o", path, "-d", "5", "--no-status", "--", JAVA, "-cp", CLASSES,
			 "JucLocks", (char *)mode, NULL };
	ntruth = 0;
	int st = tl_run_to_end(argv, truth, &ntruth, NULL, NULL);
	cr_assert(tl_find(truth, ntruth, "ready", NULL), "JucLocks never got ready (status %d)", st);
}

/* A recording of notify-held from the JVM's exec (`record -- java ...`:
 * its own threads start, compile and are woken in the trace), reported:
 * one finding for the monitor's three Object.wait() waiters and one for the
 * Condition's three await() waiters (each sleeps on a word of its own),
 * each naming the owner in read(): the holder the snapshot at the end read
 * from the JVM. */
Test(juc_live, recorded_notify_waits_are_one_finding_per_object, .fini = cleanup, .timeout = 240)
{
	char path[128];
	record_mode("notify-held", "notify", path, sizeof(path));
	pid_t mo = tid_of("MO"), ro = tid_of("RO");
	struct rp_json *j = tl_report_json(path);
	const char *role[2] = { "MW", "CW" }, *want[2] = { "3 threads wait in Object.wait() on "
							   "JucLocks$Mon@0x",
							   "3 threads wait in Condition.await() on "
							   "java.util.concurrent.locks.AbstractQueuedSynchronizer$ConditionObject@0x" };
	pid_t owner[2] = { mo, ro };
	for (int k = 0; k < 2; k++) {
		const struct rp_json *f = holder_finding_of(j, owner[k]);
		const char *sum = rp_json_str(rp_json_get(f, "summary"));
		char who[64];
		snprintf(who, sizeof(who), ", %d (%s), is blocked in read(pipe fd ", (int)owner[k],
			 k ? "rl-owner" : "mon-owner");
		cr_assert(strstr(sum, want[k]) && strstr(sum, who), "%s", sum);
		cr_assert_eq(rp_json_num(rp_json_get(f, "holder"), 0), owner[k], "%s", sum);
		for (int i = 0; i < 3; i++) {
			char r[8];
			snprintf(r, sizeof(r), "%s%d", role[k], i);
			cr_assert_eq(holder_finding_of(j, tid_of(r)), f, "%s not in: %s", r, sum);
		}
	}
	/* the JVM's own service loops waiting for work on its Monitors
	 * (compiler threads, VM thread, service threads: rt_idle.c) are in no
	 * finding about waiters at the end (stalled_waiters, holder_blocked,
	 * lost_wakeup), whatever woke them while the JVM started; what happened
	 * during the trace (a compile-queue holder preempted while others
	 * waited: holder_offcpu) may name them */
	static const char *internal[] = { "C1 CompilerThre", "C2 CompilerThre", "VM Thread", "Service Thread",
					  "Monitor Deflati", "VM Periodic Tas", "G1 Service", "Reference Handl",
					  "Finalizer", "Common-Cleaner" };
	const struct rp_json *fs = rp_json_get(j, "findings"), *ths = rp_json_get(j, "threads");
	size_t named = 0;
	for (size_t i = 0; fs && i < fs->n; i++) {
		const char *kind = rp_json_str(rp_json_get(&fs->items[i], "kind"));
		if (strcmp(kind, "stalled_waiters") && strcmp(kind, "holder_blocked") && strcmp(kind, "lost_wakeup"))
			continue;
		const struct rp_json *tids = rp_json_get(&fs->items[i], "tids");
		for (size_t k = 0; tids && k < tids->n; k++) {
			const char *comm = NULL;
			for (size_t q = 0; ths && q < ths->n && !comm; q++)
				if (rp_json_num(rp_json_get(&ths->items[q], "tid"), -1) == rp_json_num(&tids->items[k], 0))
					comm = rp_json_str(rp_json_get(&ths->items[q], "name"));
			if (!comm)
				continue;
			named++;
			for (size_t q = 0; q < sizeof(internal) / sizeof(internal[0]); q++)
				cr_assert(strncmp(comm, internal[q], strlen(internal[q])), "JVM thread %s in: %s", comm,
					  rp_json_str(rp_json_get(&fs->items[i], "summary")));
		}
	}
	cr_assert_geq(named, 8, "the findings' threads are named in the report's threads");
	rp_json_free(j);
	unlink(path);
}

static int take_fn(pid_t pid, void *arg, struct lt_snapshot **out)
{
	(void)arg;
	return lt_snapshot_take(pid, NULL, out);
}

/* Java's Process.waitFor() on flock(1) (a program we did not write) whose
 * file this test holds locked: the waiting thread sleeps in Object.wait on
 * the Process, which the JDK's process reaper thread notifies once its
 * waitpid returns.  Its wait is for the child: a child edge naming the
 * child (the JVM's only one), followed into the child's lock wait, held by
 * this test's process; the waiter is a wait chain into it (and, timed, its
 * timeout said as a timer whose end is not known), never IDLE. */
static void waitfor_child(bool timed)
{
	char path[] = "/tmp/lt-juc-wf-XXXXXX";
	int fd = mkstemp(path);
	cr_assert_geq(fd, 0);
	cr_assert_eq(flock(fd, LOCK_EX), 0);
	tl_skip_unless_root("needs root: another process's memory");
	if (access(JAVA, X_OK) != 0 || access("/usr/bin/flock", X_OK) != 0)
		cr_skip_test("%s or /usr/bin/flock missing", JAVA);
	if (access(CLASSES "/JucLocks.class", R_OK) != 0)
		cr_skip_test("%s/JucLocks.class not built: javac was missing at build time", CLASSES);
	char *argv[] = { JAVA, "-cp", CLASSES, "JucLocks", "waitfor-child", "/usr/bin/flock", path,
			 timed ? "timed" : "untimed", NULL };
	ntruth = 0;
	cr_assert_eq(tl_spawn(&wl, argv), 0);
	cr_assert(tl_wait_for(&wl, 0, "ready", truth, &ntruth, 64, 120000), "JucLocks waitfor-child never got ready");
	pid_t w = tid_of("W"), child = (pid_t)tl_truth_val(truth, ntruth, "child", "pid=", "pid");
	cr_assert_gt(child, 0);
	char waiting[256];
	tl_locks_line(child, path, true, waiting, sizeof(waiting)); /* the child waits for the test's lock */

	struct lt_snapshot *first = NULL;
	cr_assert_eq(take_fn(wl.pid, NULL, &first), 0);
	const struct lt_thread *t = lt_snapshot_find(first, w);
	cr_assert(t && t->wf, "thread %d has wait-for edges", (int)w);
	const struct lt_wf_edge *e = NULL, *te = NULL;
	for (size_t i = 0; i < t->wf->n_edges; i++) {
		if (t->wf->edges[i].kind == LT_WF_CHILD)
			e = &t->wf->edges[i];
		if (lt_wf_sigtimer(&t->wf->edges[i]))
			te = &t->wf->edges[i];
	}
	cr_assert(e && e->n_pids == 1 && e->pids[0] == child, "a child edge to %d (%s)", (int)child,
		  e ? e->what : "none");
	cr_expect(strstr(e->evidence, "java.lang.ProcessImpl.waitFor"), "%s", e->evidence);
	cr_expect_eq(te != NULL, timed, "a timer edge only for waitFor(timeout): %s", te ? te->what : "none");
	struct lt_multi_snapshot *m;
	tl_follow(first, take_fn, &m);
	const struct lt_verdict *lw = NULL, *wc = NULL;
	for (size_t i = 0; i < m->view.n_verdicts; i++) {
		const struct lt_verdict *vd = &m->view.verdicts[i];
		cr_expect(vd->kind != LT_VERDICT_IDLE && vd->kind != LT_VERDICT_DEADLOCK, "%s", vd->summary);
		for (size_t k = 0; k < vd->n_tids; k++) {
			if (vd->kind == LT_VERDICT_LOCK_WAIT && vd->tids[k] == child)
				lw = vd;
			if (vd->kind == LT_VERDICT_WAIT_CHAIN && vd->tids[k] == w)
				wc = vd;
		}
	}
	cr_assert_not_null(lw, "the child's lock wait (%s)", waiting);
	cr_expect_eq(lw->owner, getpid(), "held by this test's process: %s", lw->summary);
	cr_assert_not_null(wc, "the waiter's wait chain (first: %s)",
			   m->view.n_verdicts ? m->view.verdicts[0].summary : "-");
	char into[64];
	snprintf(into, sizeof(into), "waits for process %d, whose thread %d (flock)", (int)child, (int)child);
	cr_expect(strstr(wc->summary, into) && strstr(wc->summary, "in a lock wait"), "%s", wc->summary);
	cr_expect(!timed || strstr(wc->summary, "or by a timer: the timeout of Process.waitFor"), "%s", wc->summary);
	lt_multi_free(m);
	close(fd);
	unlink(path);
}

Test(juc_live, process_waitfor_is_followed_to_its_childs_lock_holder, .fini = cleanup, .timeout = 240)
{
	waitfor_child(false);
}

Test(juc_live, timed_process_waitfor_says_its_timeout, .fini = cleanup, .timeout = 240)
{
	waitfor_child(true);
}

/* The system call thread TID of PID is in (/proc/PID/task/TID/syscall),
 * -1 none or unreadable. */
static long syscall_nr(pid_t pid, pid_t tid)
{
	char path[96], buf[64] = "";
	snprintf(path, sizeof(path), "/proc/%d/task/%d/syscall", (int)pid, (int)tid);
	FILE *f = fopen(path, "re");
	if (!f)
		return -1;
	long nr = fgets(buf, sizeof(buf), f) && buf[0] >= '0' && buf[0] <= '9' ? strtol(buf, NULL, 10) : -1;
	fclose(f);
	return nr;
}

/* Process.waitFor() on a child writing more than its stdout pipe holds
 * while nobody reads it (coreutils' head -c 1000000 /dev/zero): the child
 * waits for the JVM to read, the JVM (its waiting thread, its process
 * reaper) for the child.  Which JVM thread would read the pipe is not
 * read: a probable deadlock naming the child and a JVM thread whose chain
 * leads back to it, none of the JVM's idle or own threads (GC, compilers,
 * the cleaner's timed wait) in it or behind it; it was IDLE.  The program
 * has no thread of its own but main (one asleep on a timer could read the
 * pipe when it wakes: then nothing is claimed). */
Test(juc_live, process_waitfor_on_a_full_pipe_is_a_probable_deadlock, .fini = cleanup, .timeout = 240)
{
	tl_skip_unless_root("needs root: another process's memory");
	if (access(JAVA, X_OK) != 0 || access("/usr/bin/head", X_OK) != 0)
		cr_skip_test("%s or /usr/bin/head missing", JAVA);
	if (access(CLASSES "/JucLocks.class", R_OK) != 0)
		cr_skip_test("%s/JucLocks.class not built: javac was missing at build time", CLASSES);
	char *argv[] = { JAVA, "-cp", CLASSES, "JucLocks", "waitfor-pipe", NULL };
	ntruth = 0;
	cr_assert_eq(tl_spawn(&wl, argv), 0);
	cr_assert(tl_wait_for(&wl, 0, "ready", truth, &ntruth, 64, 120000), "JucLocks waitfor-pipe never got ready");
	pid_t w = tid_of("W"), child = (pid_t)tl_truth_val(truth, ntruth, "child", "pid=", "pid");
	cr_assert_gt(child, 0);
	for (int i = 0; i < 200 && syscall_nr(child, child) != 1; i++)
		usleep(10000); /* until head blocks in write() */
	cr_assert_eq(syscall_nr(child, child), 1, "head is not in write()");
	/* until the scenario holds in a snapshot: main asleep in waitFor()
	 * (its frames say so: a child edge to head), no thread running or
	 * moving but the JVM's own (the compilers settle after start; another
	 * running thread could read the pipe, and then nothing is claimed) */
	struct lt_snapshot *first = NULL;
	const char *why = "no snapshot";
	for (double t0 = tl_now_s(); tl_now_s() - t0 < 20; usleep(50000)) {
		if (first)
			lt_snapshot_free(first);
		first = NULL;
		cr_assert_eq(take_fn(wl.pid, NULL, &first), 0);
		const struct lt_thread *mt = lt_snapshot_find(first, w);
		bool in_waitfor = false, quiet = true;
		for (size_t k = 0; mt && mt->wf && k < mt->wf->n_edges; k++)
			in_waitfor |= mt->wf->edges[k].kind == LT_WF_CHILD && mt->wf->edges[k].n_pids == 1 &&
				      mt->wf->edges[k].pids[0] == child;
		for (size_t k = 0; k < first->n_threads; k++) /* the JVM's own threads may run */
			quiet &= first->threads[k].rt_service ||
				 (first->threads[k].state != 'R' && !first->threads[k].moved);
		why = !in_waitfor ? "main not seen in Process.waitFor" : !quiet ? "a JVM thread ran" : NULL;
		if (!why)
			break;
	}
	cr_assert_null(why, "after 20 s: %s", why);

	struct lt_multi_snapshot *m;
	tl_follow(first, take_fn, &m);
	const struct lt_verdict *d = NULL;
	for (size_t i = 0; i < m->view.n_verdicts; i++) {
		const struct lt_verdict *vd = &m->view.verdicts[i];
		cr_expect(vd->kind != LT_VERDICT_IDLE, "%s", vd->summary);
		if (vd->kind == LT_VERDICT_DEADLOCK && !d)
			d = vd;
	}
	cr_assert_not_null(d, "no deadlock (first: %s)", m->view.n_verdicts ? m->view.verdicts[0].summary : "-");
	cr_expect(!strncmp(d->summary, "probable deadlock (which thread of a process answers inferred)", 62), "%s",
		  d->summary);
	cr_assert_eq(d->n_tids, 2, "%s", d->summary);
	pid_t jt = d->tids[0] == child ? d->tids[1] : d->tids[0];
	cr_assert(d->tids[0] == child || d->tids[1] == child, "the child %d in: %s", (int)child, d->summary);
	/* the JVM's thread in it waits for the child: W itself, or the reaper */
	const struct lt_snapshot *js = m->procs[0];
	const struct lt_thread *jth = lt_snapshot_find(js, jt);
	cr_assert_not_null(jth, "thread %d of the JVM", (int)jt);
	cr_expect(jt == w || (jth->rt_name && strstr(jth->rt_name, "process reaper")), "thread %d (%s)", (int)jt,
		  lt_thread_name(jth));
	/* behind it, at most main (when the reaper is the one in it) and the
	 * launcher's thread joining main: none of the JVM's idle or own ones */
	for (size_t k = 0; k < d->n_behind; k++) {
		const struct lt_thread *b = lt_snapshot_find(js, d->behind[k]);
		cr_expect((d->behind[k] == w && jt != w) || d->behind[k] == wl.pid, "thread %d (%s) behind it",
			  (int)d->behind[k], b ? lt_thread_name(b) : "?");
	}
	lt_multi_free(m);
}

/* The FutureTask thread ROLE's verdict is about, its kind checked (a
 * queued task's kind when QUEUED). */
static uint64_t future_of_kind(const struct lt_snapshot *s, pid_t tid, bool queued)
{
	const struct lt_thread *t = lt_snapshot_find(s, tid);
	cr_assert_not_null(t);
	cr_assert_str_eq(t->futex.lock_kind ? t->futex.lock_kind : "-",
			 queued ? "java.util.concurrent FutureTask (get, queued)" : "java.util.concurrent FutureTask (get)");
	/* a FutureTask, or a ScheduledThreadPoolExecutor's ScheduledFutureTask */
	cr_assert(t->futex.lock_name && (!strncmp(t->futex.lock_name, "java.util.concurrent.FutureTask@0x", 34) ||
					 !strncmp(t->futex.lock_name, "java.util.concurrent.ScheduledThreadPoolExecutor"
								      "$ScheduledFutureTask@0x", 71)),
		  "%s", t->futex.lock_name ? t->futex.lock_name : "-");
	return t->futex.lock_base;
}

static uint64_t future_of(const struct lt_snapshot *s, pid_t tid)
{
	return future_of_kind(s, tid, false);
}

/* The address jstack says thread NAME parks on (its parkBlocker); 0 when
 * jstack is missing (said). */
static uint64_t jstack_parked_on(const char *name)
{
	if (access(JSTACK, X_OK) != 0) {
		fprintf(stderr, "juc_live: %s missing: the task is not checked against jstack\n", JSTACK);
		return 0;
	}
	static char out[1 << 20];
	run_jstack(out, sizeof(out));
	uint64_t a = jstack_addr(out, name, "- parking to wait for  <");
	cr_assert_neq(a, 0, "jstack says %s parks on nothing:\n%.3000s", name, out);
	return a;
}

/* fut-getter in Future.get() of a task that fut-runner runs, blocked in
 * read() on a pipe nobody writes: a wait on the runner (FutureTask.runner),
 * whose read is followed; before, the whole process was IDLE.  The task is
 * the one jstack says the getter parks on. */
Test(juc_live, future_get_waits_for_the_tasks_runner, .fini = cleanup, .timeout = 240)
{
	start("future-pipe");
	pid_t g = tid_of("G"), r = tid_of("R");
	struct lt_snapshot *s = NULL;
	cr_assert_eq(lt_snapshot_take(wl.pid, NULL, &s), 0);
	const struct lt_verdict *v = verdict_of(s, g);
	cr_assert_eq(v->kind, LT_VERDICT_LOCK_WAIT, "%s", v->summary);
	cr_assert_eq(v->n_tids, 1, "%s", v->summary);
	cr_assert_eq(v->owner, r, "%s", v->summary);
	cr_assert_eq(lt_snapshot_find(s, g)->futex.owner, r);
	uint64_t task = future_of(s, g);
	char want[300];
	snprintf(want, sizeof(want), "1 thread waits in FutureTask.get() for the task java.util.concurrent.FutureTask@0x%"
		 PRIx64 ", run by thread %d (fut-runner), which has been blocked in read(fd ", task, (int)r);
	cr_assert(!strncmp(v->summary, want, strlen(want)), "%s\nwant: %s", v->summary, want);
	cr_assert(strstr(v->summary, "pipe) for ") &&
		  strstr(v->summary, ": the wait ends when the task ends (or on a cancel() from any thread)"), "%s",
		  v->summary);
	bool said = false;
	for (size_t k = 0; k < v->evidence.n; k++)
		said |= strstr(v->evidence.v[k], "FutureTask.runner is the java.lang.Thread of thread") != NULL;
	cr_assert(said, "the evidence says how the runner was found");
	no_jvm_idle_thread(s);
	lt_snapshot_free(s);
	uint64_t js = jstack_parked_on("fut-getter");
	cr_assert(!js || js == task, "jstack: 0x%" PRIx64 ", locktrace: 0x%" PRIx64, js, task);
}

/* fq-getter waits in get() of a task queued in a single-thread executor
 * whose thread runs a task blocked in read() on a pipe nobody writes: a
 * wait on that thread, which the JVM calls in native, not blocked (before:
 * "whose 1 thread (...) is not blocked", and nothing followed). */
Test(juc_live, future_get_of_a_task_queued_behind_a_blocked_read_waits_for_the_pool_thread, .fini = cleanup,
     .timeout = 240)
{
	start("future-queued-io");
	pid_t g = tid_of("G"), p = tid_of("P");
	struct lt_snapshot *s = NULL;
	cr_assert_eq(lt_snapshot_take(wl.pid, NULL, &s), 0);
	const struct lt_verdict *v = verdict_of(s, g);
	cr_assert_eq(v->kind, LT_VERDICT_LOCK_WAIT, "%s", v->summary);
	cr_assert_eq(v->n_tids, 1, "%s", v->summary);
	cr_assert_eq(v->owner, p, "%s", v->summary);
	cr_assert_eq(lt_snapshot_find(s, g)->futex.owner, p);
	uint64_t task = future_of_kind(s, g, true);
	char want[400];
	snprintf(want, sizeof(want), "1 thread waits in FutureTask.get() for the task java.util.concurrent.FutureTask@0x%"
		 PRIx64 ", queued for its executor's only thread, thread %d (fq-pool), which has been blocked in "
		 "read(fd ", task, (int)p);
	cr_assert(!strncmp(v->summary, want, strlen(want)), "%s\nwant: %s", v->summary, want);
	cr_assert(strstr(v->summary, "pipe) for ") &&
		  strstr(v->summary, ": the wait ends when that thread has ended the tasks before it and this one (or "
				     "on a cancel() from any thread)"), "%s", v->summary);
	snprintf(want, sizeof(want), "it is number 1 in the work queue of java.util.concurrent.ThreadPoolExecutor@0x");
	bool said = false;
	for (size_t k = 0; k < v->evidence.n; k++)
		said |= strstr(v->evidence.v[k], want) &&
			strstr(v->evidence.v[k], "whose 1 thread (") &&
			strstr(v->evidence.v[k], "(fq-pool)) is blocked (asleep in a system call of native code): the "
						 "task starts only when it goes on");
	cr_assert(said, "the evidence says where the task is queued and that the pool's thread is blocked");
	no_jvm_idle_thread(s);
	lt_snapshot_free(s);
	uint64_t js = jstack_parked_on("fq-getter");
	cr_assert(!js || js == task, "jstack: 0x%" PRIx64 ", locktrace: 0x%" PRIx64, js, task);
}

/* A ScheduledThreadPoolExecutor whose one thread, fs-pool, is stuck in
 * read() of a pipe nobody writes: fs-due-getter waits in get() of a task
 * due now, in the executor's DelayedWorkQueue: a wait on fs-pool (before:
 * "some executors' queues are of a kind not read here", holderless);
 * fs-later-getter waits for a task due in an hour: a wait for a time, no
 * lock wait (before: a holderless LOCK WAIT on a healthy program). */
Test(juc_live, future_get_of_scheduled_tasks_waits_for_the_pool_thread_or_for_the_time, .fini = cleanup,
     .timeout = 240)
{
	start("future-sched");
	pid_t g = tid_of("G"), l = tid_of("L"), p = tid_of("P");
	struct lt_snapshot *s = NULL;
	cr_assert_eq(lt_snapshot_take(wl.pid, NULL, &s), 0);
	const struct lt_verdict *v = verdict_of(s, g);
	cr_assert_eq(v->kind, LT_VERDICT_LOCK_WAIT, "%s", v->summary);
	cr_assert_eq(v->owner, p, "%s", v->summary);
	uint64_t task = future_of_kind(s, g, true);
	char want[400];
	snprintf(want, sizeof(want), "1 thread waits in FutureTask.get() for the task "
		 "java.util.concurrent.ScheduledThreadPoolExecutor$ScheduledFutureTask@0x%" PRIx64 ", queued for its "
		 "executor's only thread, thread %d (fs-pool), which has been blocked in read(fd ", task, (int)p);
	cr_assert(!strncmp(v->summary, want, strlen(want)), "%s\nwant: %s", v->summary, want);
	bool said = false;
	for (size_t k = 0; k < v->evidence.n; k++)
		said |= strstr(v->evidence.v[k], "it is in the delayed work queue of "
						 "java.util.concurrent.ScheduledThreadPoolExecutor@0x") &&
			strstr(v->evidence.v[k], " s ago, whose 1 thread (") != NULL;
	cr_assert(said, "the evidence names the delayed work queue and how late the task is");
	for (size_t i = 0; i < s->n_verdicts; i++)
		for (size_t k = 0; k < s->verdicts[i].n_tids; k++)
			cr_assert(s->verdicts[i].tids[k] != l || s->verdicts[i].kind != LT_VERDICT_LOCK_WAIT,
				  "the getter of a task due in an hour: %s", s->verdicts[i].summary);
	cr_assert_eq(lt_snapshot_find(s, l)->futex.rtlock, 0, "no lock claimed for a task not yet due");
	lt_snapshot_free(s);
}

/* starve-pool, the one thread of a single-thread executor, runs a task
 * that submits another to the same executor and waits in its get(): the
 * second task has not started (no runner, state NEW), is first in the
 * executor's queue, and the pool's only thread is the one waiting: said,
 * as an inference (before: "OK: nothing suspicious"). */
Test(juc_live, future_get_of_a_queued_task_names_its_starved_pool, .fini = cleanup, .timeout = 240)
{
	start("future-starve");
	pid_t p = tid_of("P");
	struct lt_snapshot *s = NULL;
	cr_assert_eq(lt_snapshot_take(wl.pid, NULL, &s), 0);
	const struct lt_verdict *v = verdict_of(s, p);
	cr_assert_eq(v->kind, LT_VERDICT_LOCK_WAIT, "%s", v->summary);
	cr_assert_eq(v->n_tids, 1, "%s", v->summary);
	cr_assert_eq(v->owner, 0, "%s", v->summary);
	uint64_t task = future_of(s, p);
	const struct lt_thread *t = lt_snapshot_find(s, p);
	const struct lt_rtlock *l = &s->rtlocks[t->futex.rtlock - 1];
	cr_assert(l->holderless && l->holder == 0);
	char want[400];
	snprintf(want, sizeof(want), "1 thread waits in FutureTask.get() for the task java.util.concurrent.FutureTask@0x%"
		 PRIx64 ": FutureTask.runner is null and its state is NEW (0): the task has not started: it waits "
		 "for a thread of its executor to take it; it is number 1 in the work queue of "
		 "java.util.concurrent.ThreadPoolExecutor@0x", task);
	cr_assert(!strncmp(v->summary, want, strlen(want)), "%s\nwant: %s", v->summary, want);
	snprintf(want, sizeof(want), ", whose 1 thread (%d (starve-pool)) is blocked, this one in this get(): "
		 "probably a thread-starvation deadlock (inferred: ", (int)p);
	cr_assert(strstr(v->summary, want), "%s\nwant: %s", v->summary, want);
	no_jvm_idle_thread(s);
	lt_snapshot_free(s);
	uint64_t js = jstack_parked_on("starve-pool");
	cr_assert(!js || js == task, "jstack: 0x%" PRIx64 ", locktrace: 0x%" PRIx64, js, task);
}

/* jl-A holds RL_A and waits in jl-B.join(); jl-B waits to lock RL_A: a
 * deadlock through a join (before: only B's wait, on A, was said). */
Test(juc_live, join_of_a_thread_waiting_for_the_joiners_lock_is_a_deadlock, .fini = cleanup, .timeout = 240)
{
	start("join-lock");
	pid_t a = tid_of("A"), b = tid_of("B");
	struct lt_snapshot *s = NULL;
	cr_assert_eq(lt_snapshot_take(wl.pid, NULL, &s), 0);
	const struct lt_verdict *dl = the_deadlock(s, a, b);
	const struct lt_thread *ta = lt_snapshot_find(s, a), *tb = lt_snapshot_find(s, b);
	cr_assert_str_eq(ta->futex.lock_kind ? ta->futex.lock_kind : "-", "Java monitor (Thread.join)");
	cr_assert(ta->futex.lock_name && !strncmp(ta->futex.lock_name, "java.lang.Thread@0x", 19), "%s",
		  ta->futex.lock_name ? ta->futex.lock_name : "-");
	cr_assert_str_eq(tb->futex.lock_kind ? tb->futex.lock_kind : "-", "java.util.concurrent lock");
	char want[160];
	snprintf(want, sizeof(want), "thread %d (jl-A) waits in Thread.join() for thread %d (jl-B) to exit [", (int)a,
		 (int)b);
	bool said = false;
	for (size_t k = 0; k < dl->evidence.n; k++)
		said |= !strncmp(dl->evidence.v[k], want, strlen(want));
	cr_assert(said, "no evidence line: %s", want);
	no_jvm_idle_thread(s);
	uint64_t obj = ta->futex.lock_base;
	lt_snapshot_free(s);
	if (access(JSTACK, X_OK) != 0) {
		fprintf(stderr, "juc_live: %s missing: the Thread object is not checked against jstack\n", JSTACK);
		return;
	}
	static char out[1 << 20];
	run_jstack(out, sizeof(out));
	cr_assert_eq(jstack_addr(out, "jl-A", "- waiting on <"), obj, "jstack:\n%.3000s", out);
}

/* fc-getter holds RL_A and waits in get() of a task fc-runner runs, which
 * waits to lock RL_A: a cycle through a get(), which a cancel() from any
 * thread would end: a probable deadlock, the inference said, in the
 * snapshot and in the report of a recording. */
Test(juc_live, future_get_cycle_is_a_probable_deadlock, .fini = cleanup, .timeout = 240)
{
	start("future-cycle");
	pid_t g = tid_of("G"), r = tid_of("R");
	struct lt_snapshot *s = NULL;
	cr_assert_eq(lt_snapshot_take(wl.pid, NULL, &s), 0);
	const struct lt_verdict *dl = NULL;
	for (size_t i = 0; i < s->n_verdicts; i++)
		if (s->verdicts[i].kind == LT_VERDICT_DEADLOCK) {
			cr_assert_null(dl, "two deadlocks: %s", s->verdicts[i].summary);
			dl = &s->verdicts[i];
		}
	cr_assert_not_null(dl, "no deadlock (first: %s)", s->n_verdicts ? s->verdicts[0].summary : "-");
	cr_assert_eq(dl->n_tids, 2, "%s", dl->summary);
	cr_assert((dl->tids[0] == g && dl->tids[1] == r) || (dl->tids[0] == r && dl->tids[1] == g), "%s", dl->summary);
	cr_assert_eq(lt_snapshot_find(s, g)->futex.owner, r);
	cr_assert_eq(lt_snapshot_find(s, r)->futex.owner, g);
	char want[200];
	snprintf(want, sizeof(want), "; inferred: that thread %d (fc-getter), in FutureTask.get(), waits for thread %d "
		 "alone (a cancel() from any thread would end its wait too)", (int)g, (int)r);
	cr_assert(!strncmp(dl->summary, "probable deadlock: 2 threads wait for each other: ", 50) &&
		  strstr(dl->summary, want), "%s\nwant: %s", dl->summary, want);
	no_jvm_idle_thread(s);
	lt_snapshot_free(s);
}

Test(juc_live, recorded_future_get_cycle_is_a_probable_deadlock, .fini = cleanup, .timeout = 240)
{
	char path[128];
	record_mode("future-cycle", "futcycle", path, sizeof(path));
	pid_t g = tid_of("G"), r = tid_of("R");
	struct rp_json *j = tl_report_json(path);
	const char *sum;
	tl_two_thread_deadlock(j, g, r, &sum);
	char want[200];
	snprintf(want, sizeof(want), "; inferred: that thread %d (fc-getter), in FutureTask.get(), waits for the task's "
		 "runner alone (a cancel() from any thread would end it too)", (int)g);
	cr_assert(!strncmp(sum, "probable deadlock: 2 threads wait for each other: ", 50) && strstr(sum, want),
		  "%s\nwant: %s", sum, want);
	rp_json_free(j);
	unlink(path);
}

/* jp-joiner in join() of jp-worker, which blocks in read() on a pipe
 * nobody writes: a wait for the worker's exit, whose read is followed
 * (before: an event, the monitor of the Thread being free). */
Test(juc_live, join_waits_for_the_joined_threads_exit, .fini = cleanup, .timeout = 240)
{
	start("join-pipe");
	pid_t jn = tid_of("J"), w = tid_of("W");
	struct lt_snapshot *s = NULL;
	cr_assert_eq(lt_snapshot_take(wl.pid, NULL, &s), 0);
	const struct lt_verdict *v = verdict_of(s, jn);
	cr_assert_eq(v->kind, LT_VERDICT_LOCK_WAIT, "%s", v->summary);
	cr_assert_eq(v->n_tids, 1, "%s", v->summary);
	cr_assert_eq(v->owner, w, "%s", v->summary);
	const struct lt_thread *t = lt_snapshot_find(s, jn);
	cr_assert_str_eq(t->futex.lock_kind ? t->futex.lock_kind : "-", "Java monitor (Thread.join)");
	char want[200];
	snprintf(want, sizeof(want), "1 thread waits in Thread.join() for thread %d (jp-worker) to exit, which has been "
		 "blocked in read(fd ", (int)w);
	cr_assert(!strncmp(v->summary, want, strlen(want)), "%s\nwant: %s", v->summary, want);
	cr_assert(strstr(v->summary, "pipe) for ") &&
		  strstr(v->summary, ": the wait ends when it exits (or on an interrupt)"), "%s", v->summary);
	no_jvm_idle_thread(s);
	lt_snapshot_free(s);
}

/* Where thread TID is said: its verdict's index times 1000, plus the line
 * of a folded verdict's evidence that begins with HEAD (a fold of
 * one-thread lock waits lists each one's summary); -1: in none. */
static long said_at(const struct lt_snapshot *s, pid_t tid, const char *head)
{
	for (size_t i = 0; i < s->n_verdicts; i++)
		for (size_t k = 0; k < s->verdicts[i].n_tids; k++) {
			if (s->verdicts[i].tids[k] != tid)
				continue;
			if (s->verdicts[i].n_tids == 1)
				return (long)i * 1000;
			for (size_t e = 0; e < s->verdicts[i].evidence.n; e++)
				if (!strncmp(s->verdicts[i].evidence.v[e], head, strlen(head)))
					return (long)i * 1000 + 1 + (long)e;
			cr_assert_fail("thread %d in %s, no line: %s", (int)tid, s->verdicts[i].summary, head);
		}
	return -1;
}

/* join-free: joins and a get() of threads that are not stuck beside a
 * join of one that is.  jf-busy spins running a task, which jf-getter
 * waits for in get() and jf-bjoiner in join(); jf-sjoiner joins jf-sleeper
 * (Thread.sleep), jf-ijoiner jf-idle (a BlockingQueue's take()): none of
 * the four waiters is in any verdict (before: a LOCK WAIT each, "to exit,
 * which is running").  jf-ljoiner joins jf-locked, which waits for RL_B,
 * held by jf-holder: its lock wait as before, said after jf-locked's. */
Test(juc_live, join_or_get_of_a_thread_that_is_not_stuck_is_no_lock_wait, .fini = cleanup, .timeout = 240)
{
	start("join-free");
	pid_t br = tid_of("BR"), g = tid_of("G"), bj = tid_of("BJ"), sl = tid_of("S"), sj = tid_of("SJ");
	pid_t id = tid_of("I"), ij = tid_of("IJ"), h = tid_of("H"), l = tid_of("L"), lj = tid_of("LJ");
	struct lt_snapshot *s = NULL;
	cr_assert_eq(lt_snapshot_take(wl.pid, NULL, &s), 0);
	/* the model sees each wait, and for whom */
	const pid_t waiter[] = { g, bj, sj, ij, lj }, other[] = { br, br, sl, id, l };
	for (size_t i = 0; i < 5; i++) {
		const struct lt_thread *t = lt_snapshot_find(s, waiter[i]);
		cr_assert_not_null(t, "thread %d", (int)waiter[i]);
		cr_assert_str_eq(t->futex.lock_kind ? t->futex.lock_kind : "-",
				 i ? "Java monitor (Thread.join)" : "java.util.concurrent FutureTask (get)");
		cr_assert_eq(t->futex.owner, other[i], "thread %d waits for %d, want %d", (int)waiter[i],
			     (int)t->futex.owner, (int)other[i]);
	}
	for (size_t i = 0; i < 4; i++)
		for (size_t v = 0; v < s->n_verdicts; v++)
			for (size_t k = 0; k < s->verdicts[v].n_tids; k++)
				cr_assert_neq(s->verdicts[v].tids[k], waiter[i], "thread %d in: %s", (int)waiter[i],
					      s->verdicts[v].summary);
	char want[300];
	snprintf(want, sizeof(want), "1 thread waits in Thread.join() for thread %d (jf-locked) to exit, which has been "
		 "waiting for the java.util.concurrent lock (java.util.concurrent.locks.ReentrantLock$NonfairSync@0x", (int)l);
	long jat = said_at(s, lj, want);
	const struct lt_verdict *jv = jat >= 0 ? &s->verdicts[jat / 1000] : NULL;
	cr_assert_not_null(jv, "no verdict names jf-ljoiner %d", (int)lj);
	cr_assert_eq(jv->kind, LT_VERDICT_LOCK_WAIT, "%s", jv->summary);
	if (jv->n_tids == 1) {
		cr_assert_eq(jv->owner, l, "%s", jv->summary);
		cr_assert(!strncmp(jv->summary, want, strlen(want)), "%s\nwant: %s", jv->summary, want);
	}
	snprintf(want, sizeof(want), "1 thread waits for the java.util.concurrent lock "
		 "(java.util.concurrent.locks.ReentrantLock$NonfairSync@0x");
	long lat = said_at(s, l, want);
	cr_assert_geq(lat, 0, "no verdict names jf-locked %d", (int)l);
	const struct lt_verdict *lv = &s->verdicts[lat / 1000];
	cr_assert_eq(lv->kind, LT_VERDICT_LOCK_WAIT, "%s", lv->summary);
	if (lv->n_tids == 1)
		cr_assert_eq(lv->owner, h, "%s", lv->summary);
	snprintf(want, sizeof(want), ") held by thread %d (jf-holder)", (int)h);
	cr_assert(lv->n_tids > 1 || strstr(lv->summary, want), "%s", lv->summary);
	cr_assert_lt(lat, jat, "jf-locked's lock wait (%ld) before the join into it (%ld)", lat, jat);
	no_jvm_idle_thread(s);
	lt_snapshot_free(s);
}

/* A recording of join-free, reported: no finding names the getter or the
 * joiners of the threads that are not stuck (before: "joined thread still
 * running: 1 thread waits in Thread.join() for thread N (jf-busy) to exit,
 * which is running", "task runner still running", "joined thread asleep
 * in Thread.sleep()", "joined thread waits on another lock" for jf-idle's
 * take()); jf-ljoiner's join of the lock waiter is still one. */
Test(juc_live, recorded_join_or_get_of_a_thread_that_is_not_stuck_is_no_finding, .fini = cleanup, .timeout = 240)
{
	char path[128];
	record_mode("join-free", "joinfree", path, sizeof(path));
	const pid_t free_waiter[] = { tid_of("G"), tid_of("BJ"), tid_of("SJ"), tid_of("IJ") };
	pid_t lj = tid_of("LJ");
	struct rp_json *j = tl_report_json(path);
	const struct rp_json *fs = rp_json_get(j, "findings");
	cr_assert(fs && fs->n > 0, "no findings");
	bool lj_said = false;
	for (size_t i = 0; i < fs->n; i++) {
		const struct rp_json *f = &fs->items[i];
		const char *sum = rp_json_str(rp_json_get(f, "summary"));
		const struct rp_json *tids = rp_json_get(f, "tids");
		for (size_t k = 0; tids && k < tids->n; k++) {
			pid_t t = (pid_t)rp_json_num(&tids->items[k], 0);
			lj_said |= t == lj;
			for (size_t w = 0; w < 4; w++)
				cr_assert_neq(t, free_waiter[w], "thread %d in: %s", (int)t, sum ? sum : "-");
		}
	}
	cr_assert(lj_said, "no finding names jf-ljoiner %d", (int)lj);
	rp_json_free(j);
	unlink(path);
}

/* Recordings of future-pipe and join-pipe from the JVM's exec, reported:
 * the first finding is the waiter's, said as a wait for the task's runner
 * or for the joined thread's exit (it read as a lock the holder "has kept"),
 * naming the threads the workload prints: HEAD begins the summary, and
 * TID_FMT (with the other thread's tid) is in it. */
static void recorded_done_wait(const char *mode, const char *tag, const char *waiter, const char *other,
			       const char *head, const char *tid_fmt)
{
	char path[128];
	record_mode(mode, tag, path, sizeof(path));
	pid_t wt = tid_of(waiter), ot = tid_of(other);
	struct rp_json *j = tl_report_json(path);
	const struct rp_json *fs = rp_json_get(j, "findings");
	cr_assert(fs && fs->n > 0, "no findings");
	const struct rp_json *f = &fs->items[0];
	const char *sum = rp_json_str(rp_json_get(f, "summary"));
	cr_assert_not_null(sum);
	cr_expect_str_eq(rp_json_str(rp_json_get(f, "kind")), "holder_blocked", "%s", sum);
	cr_expect_eq((pid_t)rp_json_num(rp_json_get(f, "holder"), 0), ot, "%s", sum);
	const struct rp_json *tids = rp_json_get(f, "tids");
	bool has = false;
	for (size_t i = 0; tids && i < tids->n; i++)
		has |= (pid_t)rp_json_num(&tids->items[i], 0) == wt;
	cr_expect(has, "the waiter %d among the finding's threads: %s", (int)wt, sum);
	char want[300];
	snprintf(want, sizeof(want), tid_fmt, (int)ot);
	cr_expect(!strncmp(sum, head, strlen(head)) && strstr(sum, want) && !strstr(sum, "kept it"),
		  "%s\nwant: %s ... %s", sum, head, want);
	rp_json_free(j);
	unlink(path);
}

Test(juc_live, recorded_future_get_is_a_wait_for_the_tasks_runner, .fini = cleanup, .timeout = 240)
{
	recorded_done_wait("future-pipe", "futpipe", "G", "R",
			   "task runner blocked in I/O: 1 thread waits in FutureTask.get() for the task "
			   "java.util.concurrent.FutureTask@0x",
			   ", run by thread %d (fut-runner), which is blocked in read(pipe fd ");
}

Test(juc_live, recorded_join_is_a_wait_for_the_joined_threads_exit, .fini = cleanup, .timeout = 240)
{
	recorded_done_wait("join-pipe", "joinpipe", "J", "W",
			   "joined thread blocked in I/O: 1 thread waits in Thread.join() for thread ",
			   "%d (jp-worker) to exit, which is blocked in read(pipe fd ");
}

/* barrier-late and phaser-late: two parties wait at a CyclicBarrier (a
 * Phaser) of 3 for a third, which blocks in read() on a pipe nobody writes
 * before it would arrive; the main thread joins it.  The parties' wait is
 * one chain into the late thread's, in Java's terms (before: "for
 * signals: ... on condition variable [anonymous mapping ...] for a signal
 * (pthread_cond_signal or _broadcast), 1 on other objects", the java
 * launcher's join named as the stuck thread).  MODE, PRE the thread names'
 * prefix; *OBJ the object the parties wait on. */
static const struct lt_verdict *parties_chain(struct lt_snapshot **s, const char *mode, const char *pre,
					      const char *kind, uint64_t *obj)
{
	start(mode);
	pid_t p0 = tid_of("P0"), p1 = tid_of("P1"), late = tid_of("L");
	cr_assert_eq(lt_snapshot_take(wl.pid, NULL, s), 0);
	const struct lt_verdict *v = verdict_of(*s, p0);
	cr_assert_eq(v, verdict_of(*s, p1), "one verdict for both parties");
	cr_assert_eq(v->kind, LT_VERDICT_WAIT_CHAIN, "%s", v->summary);
	/* the parties alone: not the executor's workers waiting for tasks */
	cr_assert_eq(v->n_tids, 2, "%s", v->summary);
	const struct lt_thread *t0 = lt_snapshot_find(*s, p0), *t1 = lt_snapshot_find(*s, p1);
	cr_assert_str_eq(t0->futex.lock_kind ? t0->futex.lock_kind : "-", kind);
	cr_assert_str_eq(t1->futex.lock_kind ? t1->futex.lock_kind : "-", kind);
	cr_assert_eq(t0->futex.lock_base, t1->futex.lock_base);
	cr_assert_neq(t0->futex.lock_base, 0);
	*obj = t0->futex.lock_base;
	/* the stuck threads: the main thread, in the join of the late one,
	 * and the late one, in a read of a pipe only its own process holds
	 * (the JVM's Common-Cleaner on its timer is no writer); not the java
	 * launcher's, which joins main and runs no Java code.  The late one is
	 * named: main waits for it */
	const struct lt_thread *m = NULL;
	for (size_t i = 0; i < (*s)->n_threads && !m; i++)
		if ((*s)->threads[i].rt_name && !strcmp((*s)->threads[i].rt_name, "main"))
			m = &(*s)->threads[i];
	cr_assert_not_null(m, "no Java main thread");
	/* the stuck ones in the snapshot's order, by tid (a late thread's tid
	 * is below main's once pids wrap: a run saw 305 and 32751) */
	char want[400];
	snprintf(want, sizeof(want), "which only another thread of process %d can end (a futex private to it), and none "
		 "can now (each asleep without a timeout); 2 of them are stuck (%d, %d; which of them would end it is "
		 "not known), among them thread %d (%slate), itself in a wait chain: thread %d (%slate) read(fd ",
		 (int)wl.pid, (int)(m->tid < late ? m->tid : late), (int)(m->tid < late ? late : m->tid), (int)late,
		 pre, (int)late, pre);
	cr_assert(strstr(v->summary, want), "%s\nwant: %s", v->summary, want);
	cr_assert_eq(v->cause_tid, late, "%s", v->summary);
	no_jvm_idle_thread(*s);
	return v;
}

Test(juc_live, cyclicbarrier_parties_wait_for_the_late_party, .fini = cleanup, .timeout = 240)
{
	struct lt_snapshot *s = NULL;
	uint64_t obj = 0;
	const struct lt_verdict *v = parties_chain(&s, "barrier-late", "cb-", LT_KIND_JAVA_BARRIER, &obj);
	char want[300];
	snprintf(want, sizeof(want), "2 threads wait in CyclicBarrier.await() on java.util.concurrent.locks."
		 "AbstractQueuedSynchronizer$ConditionObject@0x%" PRIx64 " (a CyclicBarrier's Condition) for the "
		 "barrier's other parties to arrive, ", obj);
	cr_assert(!strncmp(v->summary, want, strlen(want)), "%s\nwant: %s", v->summary, want);
	uint64_t js = jstack_parked_on("cb-party-0");
	cr_assert(!js || js == obj, "jstack: 0x%" PRIx64 ", locktrace: 0x%" PRIx64, js, obj);
	lt_snapshot_free(s);
}

Test(juc_live, phaser_parties_wait_for_the_late_party, .fini = cleanup, .timeout = 240)
{
	struct lt_snapshot *s = NULL;
	uint64_t obj = 0;
	const struct lt_verdict *v = parties_chain(&s, "phaser-late", "ph-", LT_KIND_JAVA_PHASER, &obj);
	char want[300];
	snprintf(want, sizeof(want), "2 threads wait at java.util.concurrent.Phaser@0x%" PRIx64 " (phase 0, 1 of its 3 "
		 "registered parties not arrived (the root phaser's count: a sub-phaser is one party)) for the other "
		 "parties to arrive, ", obj);
	cr_assert(!strncmp(v->summary, want, strlen(want)), "%s\nwant: %s", v->summary, want);
	lt_snapshot_free(s);
}

/* cfuture-late and fjtask-late: fu-getter in get() of a CompletableFuture
 * (a ForkJoinTask) that the late thread would complete (runs) after a
 * read() on a pipe nobody writes; main joins the getter.  Before: a
 * "probable deadlock (a condition variable's signaller inferred)" of the
 * java launcher, main and the getter (the launcher's and main's joins
 * taken for the getter's signallers), and with those set aside IDLE (the
 * JVM's Common-Cleaner on its timer counted as a writer of the pipe).
 * Now a chain into the late thread, in Java's terms; the object is the
 * one jstack says the getter parks on. */
static void future_late(const char *mode, const char *kind, const char *head)
{
	start(mode);
	pid_t g = tid_of("G"), late = tid_of("L");
	struct lt_snapshot *s = NULL;
	cr_assert_eq(lt_snapshot_take(wl.pid, NULL, &s), 0);
	for (size_t i = 0; i < s->n_verdicts; i++)
		cr_assert_neq(s->verdicts[i].kind, LT_VERDICT_DEADLOCK, "%s", s->verdicts[i].summary);
	const struct lt_verdict *v = verdict_of(s, g);
	cr_assert_eq(v->kind, LT_VERDICT_WAIT_CHAIN, "%s", v->summary);
	cr_assert_eq(v->n_tids, 1, "%s", v->summary);
	const struct lt_thread *t = lt_snapshot_find(s, g);
	cr_assert_str_eq(t->futex.lock_kind ? t->futex.lock_kind : "-", kind);
	char want[400];
	snprintf(want, sizeof(want), "thread %d (fu-getter) waits %s0x%" PRIx64, (int)g, head, t->futex.lock_base);
	cr_assert(!strncmp(v->summary, want, strlen(want)), "%s\nwant: %s", v->summary, want);
	snprintf(want, sizeof(want), "which only another thread of process %d can end (a futex private to it), and none "
		 "can now (each asleep without a timeout); one of them, thread %d (", (int)wl.pid, (int)late);
	cr_assert(strstr(v->summary, want), "%s\nwant: %s", v->summary, want);
	cr_assert_eq(v->cause_tid, late, "%s", v->summary);
	uint64_t js = jstack_parked_on("fu-getter");
	cr_assert(!js || js == t->futex.lock_base, "jstack: 0x%" PRIx64 ", locktrace: 0x%" PRIx64, js,
		  t->futex.lock_base);
	no_jvm_idle_thread(s);
	lt_snapshot_free(s);
}

Test(juc_live, completablefuture_get_waits_for_its_stuck_completer, .fini = cleanup, .timeout = 240)
{
	future_late("cfuture-late", LT_KIND_JAVA_CFUTURE,
		    "in CompletableFuture.get() or join() on java.util.concurrent.CompletableFuture$Signaller@");
}

Test(juc_live, forkjointask_get_waits_for_its_stuck_worker, .fini = cleanup, .timeout = 240)
{
	future_late("fjtask-late", LT_KIND_JAVA_FJTASK,
		    "in ForkJoinTask.get() or join() of the task java.util.concurrent.ForkJoinTask$AdaptedRunnableAction@");
}

/* handoff-late KIND: ho-waiter waits in handoffWait for a hand-off (a
 * queue's take() or put(), a SynchronousQueue, an Exchanger, Object.wait()
 * on a free monitor, park() with no blocker) that ho-late would make after
 * a read() on a pipe nobody writes; main joins the waiter.  Before: the
 * same chain, its wait said in C's terms ("waits on condition variable
 * [anonymous mapping 0x...] (0x...) for a signal (pthread_cond_signal or
 * _broadcast)").  Now Java's: the call, its object (the one jstack says it
 * parks on or waits on; none for a park with no blocker), the API the
 * program called and where, and what ends it. */
static void handoff_late(const char *kind, const char *lock_kind, const char *head, const char *api,
			 const char *jstack_what)
{
	start2("handoff-late", kind);
	pid_t w = tid_of("W"), late = tid_of("L");
	struct lt_snapshot *s = NULL;
	cr_assert_eq(lt_snapshot_take(wl.pid, NULL, &s), 0);
	for (size_t i = 0; i < s->n_verdicts; i++)
		cr_assert_neq(s->verdicts[i].kind, LT_VERDICT_DEADLOCK, "%s", s->verdicts[i].summary);
	const struct lt_verdict *v = verdict_of(s, w);
	cr_assert_eq(v->kind, LT_VERDICT_WAIT_CHAIN, "%s", v->summary);
	cr_assert_eq(v->n_tids, 1, "%s", v->summary);
	const struct lt_thread *t = lt_snapshot_find(s, w);
	cr_assert_str_eq(t->futex.lock_kind ? t->futex.lock_kind : "-", lock_kind);
	char want[500];
	if (jstack_what)
		snprintf(want, sizeof(want), "thread %d (ho-waiter) waits %s0x%" PRIx64 " (%scalled by "
			 "JucLocks.handoffWait (JucLocks.java:", (int)w, head, t->futex.lock_base, api);
	else
		snprintf(want, sizeof(want), "thread %d (ho-waiter) waits %s (%scalled by JucLocks.handoffWait "
			 "(JucLocks.java:", (int)w, head, api);
	cr_assert(!strncmp(v->summary, want, strlen(want)), "%s\nwant: %s", v->summary, want);
	snprintf(want, sizeof(want), "which only another thread of process %d can end (a futex private to it), and none "
		 "can now (each asleep without a timeout); one of them, thread %d (ho-late), is itself in a wait chain",
		 (int)wl.pid, (int)late);
	cr_assert(strstr(v->summary, want), "%s\nwant: %s", v->summary, want);
	cr_assert_eq(v->cause_tid, late, "%s", v->summary);
	if (access(JSTACK, X_OK) != 0) {
		fprintf(stderr, "juc_live: %s missing: the object is not checked against jstack\n", JSTACK);
	} else {
		static char out[1 << 20];
		run_jstack(out, sizeof(out));
		uint64_t js = jstack_addr(out, "ho-waiter", jstack_what ? jstack_what : "- parking to wait for  <");
		if (jstack_what)
			cr_assert_eq(js, t->futex.lock_base, "jstack: 0x%" PRIx64 ", locktrace: 0x%" PRIx64, js,
				     t->futex.lock_base);
		else
			cr_assert_eq(js, 0, "jstack says ho-waiter parks on 0x%" PRIx64, js);
	}
	no_jvm_idle_thread(s);
	lt_snapshot_free(s);
}

static const char PARK[] = "- parking to wait for  <";

Test(juc_live, linkedblockingqueue_take_waits_for_its_stuck_producer, .fini = cleanup, .timeout = 240)
{
	handoff_late("take", LT_KIND_JAVA_SIGNAL,
		     "in Condition.await() on java.util.concurrent.locks.AbstractQueuedSynchronizer$ConditionObject@",
		     "in LinkedBlockingQueue.take(), ", PARK);
}

Test(juc_live, arrayblockingqueue_put_waits_for_its_stuck_consumer, .fini = cleanup, .timeout = 240)
{
	handoff_late("put", LT_KIND_JAVA_SIGNAL,
		     "in Condition.await() on java.util.concurrent.locks.AbstractQueuedSynchronizer$ConditionObject@",
		     "in ArrayBlockingQueue.put(), ", PARK);
}

Test(juc_live, synchronousqueue_take_waits_for_its_stuck_producer, .fini = cleanup, .timeout = 240)
{
	handoff_late("sq", LT_KIND_JAVA_UNPARK,
		     "in LockSupport.park(), blocker java.util.concurrent.SynchronousQueue$TransferStack@",
		     "in SynchronousQueue.take(), ", PARK);
}

Test(juc_live, exchanger_waits_for_its_stuck_partner, .fini = cleanup, .timeout = 240)
{
	handoff_late("exchange", LT_KIND_JAVA_UNPARK, "in LockSupport.park(), blocker java.util.concurrent.Exchanger@",
		     "in Exchanger.exchange(), ", PARK);
}

Test(juc_live, object_wait_on_a_free_monitor_waits_for_its_stuck_notifier, .fini = cleanup, .timeout = 240)
{
	handoff_late("wait", LT_KIND_JAVA_NOTIFY, "in Object.wait() on JucLocks$Mon@", "", "- waiting on <");
}

Test(juc_live, park_with_no_blocker_waits_for_its_stuck_unparker, .fini = cleanup, .timeout = 240)
{
	handoff_late("park", LT_KIND_JAVA_UNPARK, "in LockSupport.park(), no blocker", "", NULL);
}

Test(juc_live, countdownlatch_await_waits_for_its_stuck_counter, .fini = cleanup, .timeout = 240)
{
	handoff_late("latch", LT_KIND_JAVA_LATCH, "at java.util.concurrent.CountDownLatch$Sync@",
		     "count 1, in CountDownLatch.await(), ", PARK);
}

Test(juc_live, semaphore_acquire_waits_for_its_stuck_releaser, .fini = cleanup, .timeout = 240)
{
	handoff_late("semaphore", LT_KIND_JAVA_SEMAPHORE, "at java.util.concurrent.Semaphore$NonfairSync@",
		     "0 permits available, in Semaphore.acquire(), ", PARK);
}
