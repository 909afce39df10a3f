// SPDX-License-Identifier: MIT
/* `report --profile` (src/output/report_profile.c) on a synthetic trace
 * with STACKS sections and known answers: two threads wait on one futex
 * three times, each wait ended by a holder's FUTEX_WAKE whose stack was
 * copied at the wake-up (as `--calls blocking --stacks` records it).  The
 * text ranks (lock, waiting stack) and (lock, releasing stack); the
 * collapsed lines and the pprof profile (decoded with src/base/pbread.h)
 * carry exact values, names and lines. */
#include <criterion/criterion.h>
#include <linux/futex.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>
#include <zlib.h>
#include "lt_events.h"
#include "lt_test.h"
#include "rt_idle.h"
#include "pbread.h"
#include "report_profile.h"
#include "stacks.h"
#include "locktrace/tracefile.h"

#define PID 1000
#define WA 1001 /* waits with stack 1 */
#define WB 1002 /* waits with stack 2 */
#define HOLDER 1003
#define LOCK 0x7f0000000100ull
/* a JVM's waiters park on futexes of their own, the Java lock is an object */
#define PARK_A 0x7f0000000a00ull
#define PARK_B 0x7f0000000b00ull
#define JADDR 0x69ec1cad0ull
#define JLOCK "Java lock java.util.concurrent.locks.ReentrantLock$NonfairSync@0x69ec1cad0"

#define T0 1000000000ull

/* an executor's idle worker as JDK 17 parks it: its queue's Condition
 * through ForkJoinPool.managedBlock, ThreadPoolExecutor.getTask eight Java
 * frames in (stack 15) */
static struct lt_sframe st15[] = {
	{ .pc = 0x7f0000001234, .func = "__futex_abstimed_wait_common", .module = "libc.so.6" },
	{ .pc = 0x7f0000001300, .func = "_ZN6Parker4parkEbl", .module = "libjvm.so" },
	{ .lang = LT_SFRAME_JAVA, .func = "jdk.internal.misc.Unsafe.park", .file = "Unsafe.java" },
	{ .lang = LT_SFRAME_JAVA, .func = "java.util.concurrent.locks.LockSupport.park", .file = "LockSupport.java",
	  .line = 341 },
	{ .lang = LT_SFRAME_JAVA, .func = "java.util.concurrent.locks.AbstractQueuedSynchronizer$ConditionNode.block",
	  .file = "AbstractQueuedSynchronizer.java", .line = 506 },
	{ .lang = LT_SFRAME_JAVA, .func = "java.util.concurrent.ForkJoinPool.unmanagedBlock", .file = "ForkJoinPool.java",
	  .line = 3465 },
	{ .lang = LT_SFRAME_JAVA, .func = "java.util.concurrent.ForkJoinPool.managedBlock", .file = "ForkJoinPool.java",
	  .line = 3436 },
	{ .lang = LT_SFRAME_JAVA, .func = "java.util.concurrent.locks.AbstractQueuedSynchronizer$ConditionObject.await",
	  .file = "AbstractQueuedSynchronizer.java", .line = 1630 },
	{ .lang = LT_SFRAME_JAVA, .func = "java.util.concurrent.LinkedBlockingQueue.take",
	  .file = "LinkedBlockingQueue.java", .line = 435 },
	{ .lang = LT_SFRAME_JAVA, .func = "java.util.concurrent.ThreadPoolExecutor.getTask",
	  .file = "ThreadPoolExecutor.java", .line = 1062 },
};

/* waiting stacks 1 (site_alpha) and 2 (site_beta), release stacks 3 and 4 */
static struct lt_sframe st1[] = {
	{ .pc = 0x7f0000001234, .func = "__lll_lock_wait", .func_off = 0x2b, .module = "libc.so.6",
	  .file = "futex-internal.h", .line = 146 },
	{ .pc = 0x555500001100, .func = "site_alpha", .func_off = 0x59, .module = "app",
	  .file = "app.c", .line = 45 },
	{ .pc = 0x555500001300, .func = "waiter", .func_off = 0x5a, .module = "app",
	  .file = "app.c", .line = 97 },
	{ .pc = 0x7f0000005555, .module = "libc.so.6" }, /* no symbol */
};
static struct lt_sframe st2[] = {
	{ .pc = 0x7f0000001234, .func = "__lll_lock_wait", .func_off = 0x2b, .module = "libc.so.6",
	  .file = "futex-internal.h", .line = 146 },
	{ .pc = 0x555500001200, .func = "site_beta", .func_off = 0x59, .module = "app",
	  .file = "app.c", .line = 56 },
	/* a JVM's Java frame (record --stacks): its name, file and line, no pc */
	{ .lang = LT_SFRAME_JAVA, .func = "app.Main.run", .file = "Main.java", .line = 311 },
	{ .pc = 0x555500001400, .func = "odd;name", .module = "app" },
};
static struct lt_sframe st3[] = {
	{ .pc = 0x7f0000002222, .func = "__lll_lock_wake", .module = "libc.so.6",
	  .file = "lowlevellock.c", .line = 65 },
	{ .pc = 0x555500001500, .func = "hold_for", .module = "app", .file = "app.c", .line = 72 },
	{ .pc = 0x555500001600, .func = "holder", .module = "app", .file = "app.c", .line = 82 },
};
static struct lt_sframe st4[] = {
	{ .pc = 0x7f0000002222, .func = "__lll_lock_wake", .module = "libc.so.6",
	  .file = "lowlevellock.c", .line = 65 },
	{ .pc = 0x555500001500, .func = "hold_for", .module = "app", .file = "app.c", .line = 72 },
	{ .pc = 0x555500001700, .func = "holder", .module = "app", .file = "app.c", .line = 84 },
};

/* a Go M parked on its note with no goroutine to run */
static struct lt_sframe st5[] = {
	{ .pc = 0x460001, .func = "runtime.futex.abi0", .module = "gosrv" },
	{ .pc = 0x460002, .func = "runtime.notesleep", .module = "gosrv" },
	{ .pc = 0x460003, .func = "runtime.stopm", .module = "gosrv" },
	{ .pc = 0x460004, .func = "runtime.findRunnable", .module = "gosrv" },
	{ .pc = 0x460005, .func = "runtime.schedule", .module = "gosrv" },
};

/* a JVM thread in Thread.sleep() */
static struct lt_sframe st6[] = {
	{ .pc = 0x7f0000003333, .func = "__futex_abstimed_wait_common", .module = "libc.so.6" },
	{ .pc = 0x7f0000004444, .func = "JVM_Sleep", .module = "libjvm.so" },
	{ .lang = LT_SFRAME_JAVA, .func = "java.lang.Thread.sleep", .file = "Thread.java", .line = 1 },
	{ .lang = LT_SFRAME_JAVA, .func = "app.Main.hold", .file = "Main.java", .line = 20 },
};

/* a JVM's compiler thread waiting for a compile task on its Monitor */
static struct lt_sframe st7[] = {
	{ .pc = 0x7f0000003333, .func = "__futex_abstimed_wait_common", .module = "libc.so.6" },
	{ .pc = 0x7f0000003334, .func = "pthread_cond_timedwait@@GLIBC_2.3.2", .module = "libc.so.6" },
	{ .pc = 0x7f0000006001, .func = "_ZN2os15PlatformMonitor4waitEl", .module = "libjvm.so" },
	{ .pc = 0x7f0000006002, .func = "_ZN7Monitor4waitEl", .module = "libjvm.so" },
	{ .pc = 0x7f0000006003, .func = "_ZN12CompileQueue3getEv", .module = "libjvm.so" },
	{ .pc = 0x7f0000006004, .func = "_ZN13CompileBroker20compiler_thread_loopEv", .module = "libjvm.so" },
	{ .pc = 0x7f0000006005, .func = "_ZN10JavaThread17thread_main_innerEv", .module = "libjvm.so" },
};
/* a JVM's GC worker waiting for work on its semaphore */
static struct lt_sframe st8[] = {
	{ .pc = 0x7f0000003333, .func = "__futex_abstimed_wait_common", .module = "libc.so.6" },
	{ .pc = 0x7f0000003335, .func = "__new_sem_wait_slow64.constprop.0", .module = "libc.so.6" },
	{ .pc = 0x7f0000007001, .func = "_ZN14PosixSemaphore4waitEv", .module = "libjvm.so" },
	{ .pc = 0x7f0000007002, .func = "_ZN10GangWorker4loopEv", .module = "libjvm.so" },
};
/* the same compiler thread code taking the compile queue's lock: a lock
 * wait (CompileQueue::get does not call Monitor::wait here) */
static struct lt_sframe st9[] = {
	{ .pc = 0x7f0000003333, .func = "__futex_abstimed_wait_common", .module = "libc.so.6" },
	{ .pc = 0x7f0000003336, .func = "__lll_lock_wait", .module = "libc.so.6" },
	{ .pc = 0x7f0000006011, .func = "_ZN5Mutex4lockEv", .module = "libjvm.so" },
	{ .pc = 0x7f0000006003, .func = "_ZN12CompileQueue3getEv", .module = "libjvm.so" },
	{ .pc = 0x7f0000006004, .func = "_ZN13CompileBroker20compiler_thread_loopEv", .module = "libjvm.so" },
};

/* CPython's GIL: a condition variable's three adjacent futex words */
#define GIL 0x7f0000000f00ull
/* a thread waiting for the GIL in PyEval_RestoreThread (take_gil
 * unnamed, as in a distribution's build) */
static struct lt_sframe st10[] = {
	{ .pc = 0x7f0000003333, .func = "__futex_abstimed_wait_common", .module = "libc.so.6" },
	{ .pc = 0x7f0000003334, .func = "pthread_cond_timedwait@@GLIBC_2.3.2", .module = "libc.so.6" },
	{ .pc = 0x4f94ee, .module = "python3.11" },
	{ .pc = 0x4f9500, .func = "PyEval_RestoreThread", .func_off = 0x12, .module = "python3.11" },
	{ .lang = LT_SFRAME_PYTHON, .func = "beta", .file = "gil.py", .line = 33 },
};
/* the same in a build with DWARF: take_gil and its helper inlined into
 * PyEval_RestoreThread, each a frame of its own (lt_sym_expand_inlined) */
static struct lt_sframe st14[] = {
	{ .pc = 0x7f0000003333, .func = "__futex_abstimed_wait_common", .module = "libc.so.6" },
	{ .pc = 0x7f0000003334, .func = "pthread_cond_timedwait@@GLIBC_2.3.2", .module = "libc.so.6" },
	{ .pc = 0x4f94ee, .func = "PyCOND_TIMEDWAIT", .module = "python3.11", .inlined = 1 },
	{ .pc = 0x4f94ee, .func = "take_gil", .module = "python3.11", .inlined = 1 },
	{ .pc = 0x4f94ee, .func = "PyEval_RestoreThread", .func_off = 0x12, .module = "python3.11" },
	{ .lang = LT_SFRAME_PYTHON, .func = "beta", .file = "gil.py", .line = 33 },
};
/* one letting go of it */
static struct lt_sframe st11[] = {
	{ .pc = 0x7f0000003400, .func = "pthread_cond_signal@@GLIBC_2.3.2", .module = "libc.so.6" },
	{ .pc = 0x4f9600, .func = "PyEval_SaveThread", .func_off = 0x60, .module = "python3.11" },
	{ .lang = LT_SFRAME_PYTHON, .func = "alpha", .file = "gil.py", .line = 27 },
};
/* two deep call chains through a recursive layer(), whose copies ended
 * after the same frames: one unwound to the thread's start (stack 12),
 * one cut (stack 13, with its end) */
static struct lt_sframe st12[] = {
	{ .pc = 0x7f0000001234, .func = "__lll_lock_wait", .module = "libc.so.6" },
	{ .pc = 0x555500002000, .func = "locked_work", .module = "app" },
	{ .pc = 0x555500002100, .func = "layer", .module = "app" },
	{ .pc = 0x555500002100, .func = "layer", .module = "app" },
};
#define CUT_END "[unwind stopped: no caller of layer in app: its caller's frame lies past the 2048 bytes of stack copied]"
#define CUT_FRAME "[stack cut: no caller of layer in app: its caller's frame lies past the 2048 bytes of stack copied]"

/* a snapshot that read the GIL over 0x7f0000000ee0-0x7f0000000fb0 */
static const char GIL_SNAPSHOT[] =
	"{\"schema\":\"locktrace.snapshot/1\",\"pid\":1000,\"threads\":[],\"runtime_locks\":["
	"{\"model\":\"cpython\",\"kind\":\"GIL\",\"name\":\"_PyRuntime.ceval.gil\","
	"\"version\":\"CPython 3.11.2\",\"base\":\"0x7f0000000ee0\",\"size\":208}]}";

static void put(struct lt_writer *w, struct lt_event e)
{
	cr_assert_eq(lt_writer_event(w, &e), 0);
}

/* tid waits on futex LK from t; the holder wakes it at t + wait_ns (its
 * FUTEX_ENTER written at the wake-up); the wait lasts wait_ns + 400.
 * RTLOCK: the runtime lock its stack's reference names (NULL none), at
 * address RTADDR. */
static void wait_woken_on(struct lt_writer *w, struct lt_stackbuf *sb, uint32_t tid, uint64_t t,
			  uint64_t wait_ns, uint32_t stack, uint32_t release_stack, uint64_t lk,
			  const char *rtlock, uint64_t rtaddr)
{
	put(w, lt_ev_futex(t, tid, 0, FUTEX_WAIT_PRIVATE, lk, 2, -1, 0));
	put(w, lt_ev_switch(t + 1000, 0, tid, PID, 1, 0, 0, "w", "swapper/0"));
	uint64_t tw = t + wait_ns;
	struct lt_event wk = lt_ev_futex(tw, HOLDER, 1, FUTEX_WAKE_PRIVATE, lk, 1, -1, 0);
	wk.h.flags |= LT_F_AT_WAKE;
	put(w, wk);
	put(w, lt_ev_waking(tw + 100, tid, 1, HOLDER, PID, 0, 0, "holder"));
	put(w, lt_ev_exit(tw + 200, HOLDER, 1, 202, 1));
	put(w, lt_ev_switch(tw + 300, 0, 0, 0, 0, tid, PID, "swapper/0", "w"));
	put(w, lt_ev_exit(tw + 400, tid, 0, 202, 0));
	struct lt_stack_ref r = { .tid = (int32_t)tid, .ts = t, .stack_id = stack,
				  .role = LT_STACK_WAITER, .delay_ns = 1000, .rtlock = rtaddr,
				  .rtlock_name = rtlock };
	if (stack) /* 0: not sampled */
		lt_stacks_put_ref(sb, &r);
	struct lt_stack_ref rw = { .tid = HOLDER, .ts = tw, .stack_id = release_stack,
				   .role = LT_STACK_WAKER };
	if (release_stack)
		lt_stacks_put_ref(sb, &rw);
}

static void wait_woken(struct lt_writer *w, struct lt_stackbuf *sb, uint32_t tid, uint64_t t,
		       uint64_t wait_ns, uint32_t stack, uint32_t release_stack)
{
	wait_woken_on(w, sb, tid, t, wait_ns, stack, release_stack, LOCK, NULL, 0);
}

/* waits: WA 3 ms (release stack 3), WB 5 ms (4), WA 4 ms (4); with JAVA,
 * each thread parks on a futex of its own (a JVM's Parker), WA's and WB's
 * references naming the one Java lock they wait for, but for WA's last
 * wait (its Java lock not read: charged to its futex) */
static void make_trace_java(const char *path, int java)
{
	struct lt_writer *w;
	struct lt_header h = { .pid = PID, .ncpus = 2 };
	struct lt_thread_info th[3] = { { .tid = WA, .comm = "wa", .sc_nr = -2 },
					{ .tid = WB, .comm = "wb", .sc_nr = -2 },
					{ .tid = HOLDER, .comm = "holder", .sc_nr = -2 } };
	cr_assert_eq(lt_writer_open(&w, path, 1), 0);
	snprintf(h.comm, sizeof(h.comm), "app");
	h.threads = malloc(sizeof(th));
	memcpy(h.threads, th, sizeof(th));
	h.nthreads = 3;
	cr_assert_eq(lt_writer_header(w, &h), 0);
	free(h.threads);
	struct lt_stackbuf sb = { 0 };
	struct lt_stack s1 = { .id = 1, .tgid = PID, .nframes = 4, .frames = st1 };
	struct lt_stack s2 = { .id = 2, .tgid = PID, .nframes = 4, .frames = st2 };
	struct lt_stack s3 = { .id = 3, .tgid = PID, .nframes = 3, .frames = st3 };
	struct lt_stack s4 = { .id = 4, .tgid = PID, .nframes = 3, .frames = st4 };
	lt_stacks_put_stack(&sb, &s1);
	lt_stacks_put_stack(&sb, &s2);
	lt_stacks_put_stack(&sb, &s3);
	lt_stacks_put_stack(&sb, &s4);
	struct lt_stack s5 = { .id = 5, .tgid = PID, .nframes = 5, .frames = st5 };
	lt_stacks_put_stack(&sb, &s5);
	struct lt_stack s6 = { .id = 6, .tgid = PID, .nframes = 4, .frames = st6 };
	lt_stacks_put_stack(&sb, &s6);
	struct lt_stack s7 = { .id = 7, .tgid = PID, .nframes = 7, .frames = st7 };
	struct lt_stack s8 = { .id = 8, .tgid = PID, .nframes = 4, .frames = st8 };
	struct lt_stack s9 = { .id = 9, .tgid = PID, .nframes = 5, .frames = st9 };
	lt_stacks_put_stack(&sb, &s7);
	lt_stacks_put_stack(&sb, &s8);
	lt_stacks_put_stack(&sb, &s9);
	struct lt_stack s10 = { .id = 10, .tgid = PID, .nframes = 5, .frames = st10 };
	struct lt_stack s11 = { .id = 11, .tgid = PID, .nframes = 3, .frames = st11 };
	struct lt_stack s12 = { .id = 12, .tgid = PID, .nframes = 4, .frames = st12 };
	struct lt_stack s13 = { .id = 13, .tgid = PID, .nframes = 4, .frames = st12, .end = CUT_END };
	lt_stacks_put_stack(&sb, &s10);
	lt_stacks_put_stack(&sb, &s11);
	lt_stacks_put_stack(&sb, &s12);
	lt_stacks_put_stack(&sb, &s13);
	struct lt_stack s14 = { .id = 14, .tgid = PID, .nframes = 6, .frames = st14 };
	lt_stacks_put_stack(&sb, &s14);
	struct lt_stack s15 = { .id = 15, .tgid = PID, .nframes = 10, .frames = st15 };
	lt_stacks_put_stack(&sb, &s15);
	if (java == 6) /* the GIL's extent, from a stored snapshot */
		cr_assert_eq(lt_writer_section(w, LT_CHUNK_SNAPSHOT, GIL_SNAPSHOT, strlen(GIL_SNAPSHOT)), 0);
	if (java == 5 || java == 6 || java == 8 || java == 9 || java == 12) {
		/* beta waits for the GIL on each of its condition variable's
		 * three words, 4 ms each, alpha's releases waking it (with
		 * java 6 neither stack says GIL: the snapshot does); one 6 ms
		 * wait on another lock, longer than each word's, shorter than
		 * the three */
		uint32_t ws = java == 6 ? 1 : java == 12 ? 14 : 10, rs = java == 6 ? 3 : 11;
		/* java 8: the last word first, then the first, then the
		 * middle one that joins them (a GIL's mutex word seen before
		 * its condition variable's); java 9: the middle one first */
		static const uint64_t order[3][3] = { { 0, 4, 8 }, { 8, 0, 4 }, { 4, 0, 8 } };
		const uint64_t *o = order[java == 8 ? 1 : java == 9 ? 2 : 0];
		wait_woken_on(w, &sb, WA, T0 + 10000, 4000000, ws, rs, GIL + o[0], NULL, 0);
		wait_woken_on(w, &sb, WA, T0 + 10000000, 4000000, ws, rs, GIL + o[1], NULL, 0);
		wait_woken_on(w, &sb, WA, T0 + 20000000, 4000000, ws, rs, GIL + o[2], NULL, 0);
		wait_woken_on(w, &sb, WB, T0 + 30000000, 6000000, 2, 4, LOCK, NULL, 0);
	} else if (java == 10 || java == 13) {
		/* HOLDER lets go of the GIL (its mutex's word, which WA's
		 * waiting stack in PyEval_RestoreThread names the GIL): its
		 * FUTEX_WAKE wakes WA, and WA takes HOLDER's cpu, HOLDER
		 * runnable 6 ms until WA sleeps on another lock.  Then twice
		 * the same but for what it sat runnable for: HOLDER wakes WA
		 * from that other lock and is switched out runnable to WA (2
		 * ms: not the GIL); HOLDER wakes WA from the GIL and is
		 * switched out runnable to a thread it did not wake (3 ms). */
		uint64_t t = T0 + 10000, t2 = T0 + 2000000;
		put(w, lt_ev_futex(t, WA, 0, FUTEX_WAIT_PRIVATE, GIL + 8, 2, -1, 0));
		put(w, lt_ev_switch(t + 1000, 0, WA, PID, 1, 0, 0, "wa", "swapper/0"));
		struct lt_stack_ref r = { .tid = WA, .ts = t, .stack_id = 10, .role = LT_STACK_WAITER };
		lt_stacks_put_ref(&sb, &r);
		struct lt_event wk = lt_ev_futex(t2, HOLDER, 1, FUTEX_WAKE_PRIVATE, GIL + 8, 1, -1, 0);
		wk.h.flags |= LT_F_AT_WAKE;
		put(w, wk);
		put(w, lt_ev_waking(t2 + 100, WA, 1, HOLDER, PID, 0, 1, "holder"));
		put(w, lt_ev_exit(t2 + 200, HOLDER, 1, 202, 1));
		put(w, lt_ev_switch(t2 + 1000, 1, HOLDER, PID, 0, WA, PID, "holder", "wa"));
		put(w, lt_ev_exit(t2 + 1100, WA, 1, 202, 0));
		put(w, lt_ev_futex(t2 + 6000900, WA, 1, FUTEX_WAIT_PRIVATE, LOCK, 2, -1, 0));
		put(w, lt_ev_switch(t2 + 6001000, 1, WA, PID, 1, HOLDER, PID, "wa", "holder"));
		r = (struct lt_stack_ref){ .tid = WA, .ts = t2 + 6000900, .stack_id = 2, .role = LT_STACK_WAITER };
		lt_stacks_put_ref(&sb, &r);
		uint64_t t3 = T0 + 20000000; /* the other lock */
		wk = lt_ev_futex(t3, HOLDER, 1, FUTEX_WAKE_PRIVATE, LOCK, 1, -1, 0);
		wk.h.flags |= LT_F_AT_WAKE;
		put(w, wk);
		put(w, lt_ev_waking(t3 + 100, WA, 1, HOLDER, PID, 0, 1, "holder"));
		put(w, lt_ev_exit(t3 + 200, HOLDER, 1, 202, 1));
		put(w, lt_ev_switch(t3 + 1000, 1, HOLDER, PID, 0, WA, PID, "holder", "wa"));
		put(w, lt_ev_exit(t3 + 1100, WA, 1, 202, 0));
		put(w, lt_ev_futex(t3 + 1000900, WA, 1, FUTEX_WAIT_PRIVATE, GIL + 8, 2, -1, 0));
		put(w, lt_ev_switch(t3 + 2001000, 1, WA, PID, 1, HOLDER, PID, "wa", "holder"));
		r = (struct lt_stack_ref){ .tid = WA, .ts = t3 + 1000900, .stack_id = 10, .role = LT_STACK_WAITER };
		lt_stacks_put_ref(&sb, &r);
		uint64_t t4 = T0 + 30000000; /* another thread takes the cpu */
		wk = lt_ev_futex(t4, HOLDER, 1, FUTEX_WAKE_PRIVATE, GIL + 8, 1, -1, 0);
		wk.h.flags |= LT_F_AT_WAKE;
		put(w, wk);
		put(w, lt_ev_waking(t4 + 100, WA, 1, HOLDER, PID, 0, 0, "holder"));
		put(w, lt_ev_exit(t4 + 200, HOLDER, 1, 202, 1));
		put(w, lt_ev_switch(t4 + 1000, 1, HOLDER, PID, 0, 1500, 1500, "holder", "other"));
		put(w, lt_ev_switch(t4 + 1100, 0, 0, 0, 0, WA, PID, "swapper/0", "wa"));
		put(w, lt_ev_exit(t4 + 1200, WA, 0, 202, 0));
		put(w, lt_ev_switch(t4 + 3001000, 1, 1500, 1500, 1, HOLDER, PID, "other", "holder"));
		if (java == 13) { /* the first release again, runnable 2 ms */
			uint64_t t5 = T0 + 40000000, t6 = t5 + 1000000;
			put(w, lt_ev_futex(t5, WA, 0, FUTEX_WAIT_PRIVATE, GIL + 8, 2, -1, 0));
			put(w, lt_ev_switch(t5 + 1000, 0, WA, PID, 1, 0, 0, "wa", "swapper/0"));
			wk = lt_ev_futex(t6, HOLDER, 1, FUTEX_WAKE_PRIVATE, GIL + 8, 1, -1, 0);
			wk.h.flags |= LT_F_AT_WAKE;
			put(w, wk);
			put(w, lt_ev_waking(t6 + 100, WA, 1, HOLDER, PID, 0, 1, "holder"));
			put(w, lt_ev_exit(t6 + 200, HOLDER, 1, 202, 1));
			put(w, lt_ev_switch(t6 + 1000, 1, HOLDER, PID, 0, WA, PID, "holder", "wa"));
			put(w, lt_ev_exit(t6 + 1100, WA, 1, 202, 0));
			put(w, lt_ev_futex(t6 + 2000900, WA, 1, FUTEX_WAIT_PRIVATE, LOCK, 2, -1, 0));
			put(w, lt_ev_switch(t6 + 2001000, 1, WA, PID, 1, HOLDER, PID, "wa", "holder"));
		}
	} else if (java == 11) {
		/* waits under 1 ms on LOCK (each lasts wait_ns + 400): three
		 * with a stack, as --stack-sample samples them (WA 0.2 and 0.3
		 * ms, stack 1; WB 0.5 ms, stack 2), six 0.5 ms ones without;
		 * WA's 3 ms one with stack 1; on lock 0xc00, two 0.2 ms ones
		 * none of which has a stack */
		uint64_t t = T0 + 10000;
		wait_woken_on(w, &sb, WA, t, 200000 - 400, 1, 3, LOCK, NULL, 0);
		wait_woken_on(w, &sb, WA, t += 2000000, 300000 - 400, 1, 3, LOCK, NULL, 0);
		wait_woken_on(w, &sb, WB, t += 2000000, 500000 - 400, 2, 4, LOCK, NULL, 0);
		for (int i = 0; i < 6; i++)
			wait_woken_on(w, &sb, i % 2 ? WA : WB, t += 2000000, 500000 - 400, 0, 0, LOCK, NULL, 0);
		wait_woken_on(w, &sb, WA, t += 2000000, 3000000 - 400, 1, 3, LOCK, NULL, 0);
		for (int i = 0; i < 2; i++)
			wait_woken_on(w, &sb, WB, t += 5000000, 200000 - 400, 0, 0, 0x7f0000000c00ull, NULL, 0);
	} else if (java == 7) { /* a complete and a cut stack through the same frames */
		wait_woken_on(w, &sb, WA, T0 + 10000, 3000000, 12, 3, LOCK, NULL, 0);
		wait_woken_on(w, &sb, WB, T0 + 10000000, 5000000, 13, 3, LOCK, NULL, 0);
	} else if (java == 15) {
		/* an executor's idle worker, 20 ms on its queue's Condition
		 * (the recorder names the park blocker as a Java lock), and
		 * WB 5 ms on a contended Java lock */
		wait_woken_on(w, &sb, WA, T0 + 10000, 20000000, 15, 3, PARK_A,
			      "Java park blocker java.util.concurrent.locks.AbstractQueuedSynchronizer$ConditionObject@"
			      "0x69ec1a690", 0x69ec1a690ull);
		wait_woken_on(w, &sb, WB, T0 + 30000000, 5000000, 2, 4, PARK_B, JLOCK, JADDR);
	} else if (java == 4) { /* a JVM's own idle waits, longer than every lock wait */
		wait_woken(w, &sb, WA, T0 + 10000, 3000000, 1, 3);
		wait_woken(w, &sb, WB, T0 + 10000000, 5000000, 2, 4);
		wait_woken_on(w, &sb, WA, T0 + 20000000, 10000000, 7, 4, 0x7f0000000c00ull, NULL, 0);
		wait_woken_on(w, &sb, WB, T0 + 40000000, 8000000, 8, 4, 0x7f0000000d00ull, NULL, 0);
		wait_woken_on(w, &sb, WA, T0 + 60000000, 4000000, 9, 4, 0x7f0000000e00ull, NULL, 0);
	} else if (java == 3) { /* a sleep on a word the Java lock's reference names */
		wait_woken_on(w, &sb, WA, T0 + 10000, 3000000, 1, 3, PARK_A, JLOCK, JADDR);
		wait_woken_on(w, &sb, WB, T0 + 10000000, 5000000, 6, 4, PARK_A, JLOCK, JADDR);
	} else if (java == 2) { /* a Go M's idle park, longer than every lock wait */
		wait_woken(w, &sb, WA, T0 + 10000, 3000000, 1, 3);
		wait_woken(w, &sb, WB, T0 + 10000000, 5000000, 2, 4);
		wait_woken_on(w, &sb, WA, T0 + 30000000, 10000000, 5, 4, 0x52bc68, NULL, 0);
	} else if (java) {
		wait_woken_on(w, &sb, WA, T0 + 10000, 3000000, 1, 3, PARK_A, JLOCK, JADDR);
		wait_woken_on(w, &sb, WB, T0 + 10000000, 5000000, 2, 4, PARK_B, JLOCK, JADDR);
		wait_woken_on(w, &sb, WA, T0 + 30000000, 4000000, 1, 4, PARK_A, NULL, 0);
	} else {
		wait_woken(w, &sb, WA, T0 + 10000, 3000000, 1, 3);
		wait_woken(w, &sb, WB, T0 + 10000000, 5000000, 2, 4);
		wait_woken(w, &sb, WA, T0 + 30000000, 4000000, 1, 4);
	}
	cr_assert(!sb.oom);
	cr_assert_eq(lt_writer_section(w, LT_CHUNK_STACKS, sb.p, sb.len), 0);
	lt_stackbuf_free(&sb);
	struct lt_stats st = { .start_ns = T0, .end_ns = T0 + 100000000, .ncpus = 2,
			       .exit_status = -1 };
	cr_assert_eq(lt_writer_stats(w, &st), 0);
	cr_assert_eq(lt_writer_close(w), 0);
}

static void make_trace(const char *path)
{
	make_trace_java(path, 0);
}

/* The profile of the synthetic trace (JAVA: make_trace_java's) in
 * format, into a malloc'd buffer */
static char *profile_of(int format, size_t *len, int java)
{
	char path[TL_PATH_MAX], err[512];
	tl_tmp_path(path, sizeof(path), "profile");
	make_trace_java(path, java);
	FILE *f = tmpfile();
	cr_assert(f);
	int rc = lt_report_profile_fmt(path, f, 0, format, err, sizeof(err));
	cr_assert_eq(rc, 0, "profile: %s", err);
	long n = ftell(f);
	cr_assert_gt(n, 0);
	char *buf = malloc((size_t)n + 1);
	rewind(f);
	cr_assert_eq(fread(buf, 1, (size_t)n, f), (size_t)n);
	buf[n] = 0;
	*len = (size_t)n;
	fclose(f);
	cr_assert_str_empty(err);
	unlink(path);
	return buf;
}

static char *profile(int format, size_t *len)
{
	return profile_of(format, len, 0);
}

/* A Go M parked on its note is the scheduler's idle wait, not a lock's:
 * ranked after the lock waits, under a heading that says so, and the
 * profile says goroutines' own waits are not in a recording. */
Test(stacks, profile_puts_the_go_schedulers_idle_waits_apart)
{
	size_t len;
	char *out = profile_of(LT_PROFILE_TEXT, &len, 2);
	const char *idle = strstr(out, "The Go scheduler's own idle waits (not contention):\n#3  10.0 ms in 1 wait");
	cr_assert(idle, "%s", out);
	cr_assert(strstr(idle, "Go scheduler: an idle M parked on its note (runtime.stopm), not a lock"), "%s", out);
	const char *first = strstr(out, "#1  ");
	cr_assert(first && first < idle && strstr(first, "site_beta") < idle, "lock waits first: %s", out);
	cr_assert(strstr(out, "Go: 10.0 ms of the waiting are the Go scheduler's own idle waits"), "%s", out);
	free(out);
}

/* A JVM's own threads waiting for work (a compiler thread in
 * CompileQueue::get, a GC worker on its semaphore: what the snapshot calls
 * idle, rt_idle.c) are not contention: ranked after the lock waits under a
 * heading that says so, and the header says how much of the waiting they
 * are.  The same compiler code taking the queue's lock is a lock wait. */
/* OCaml 5's domain backup thread waiting on the domain's condition
 * (through caml_plat_wait) waits for work; taking the domain lock it is a
 * lock wait (rt_idle.c). */
/* A Java executor's worker parked under ThreadPoolExecutor.getTask or
 * ForkJoinPool.awaitWork (eight Java frames in, in JDK 17: through
 * ForkJoinPool.managedBlock) waits for a task: its label, known as an idle
 * one, says it is a program's thread, not the runtime's own */
Test(stacks, java_executors_idle_workers_are_labelled_idle)
{
	const char *l = lt_rt_idle_java_pool_label("java.util.concurrent.ThreadPoolExecutor.getTask");
	cr_assert_str_eq(l ? l : "-", "an idle wait: an executor's worker waiting for a task "
				      "(ThreadPoolExecutor.getTask), not a lock");
	cr_assert(lt_rt_idle_is_label(l));
	l = lt_rt_idle_java_pool_label("java.util.concurrent.ForkJoinPool.awaitWork");
	cr_assert(l && strstr(l, "ForkJoinPool worker") && lt_rt_idle_is_label(l));
	cr_assert_null(lt_rt_idle_java_pool_label("java.util.concurrent.LinkedBlockingQueue.take"));
	cr_assert_null(lt_rt_idle_java_label("java.util.concurrent.ThreadPoolExecutor.getTask"));
}

/* The same worker in a recording: the recorder names its park blocker (the
 * queue's Condition) as a runtime lock, which it waits for no holder of:
 * it is listed apart with the idle waits, after the contended Java lock (a
 * review's JDK 17 recording ranked it first, 32 s "on" the Condition) */
Test(stacks, profile_lists_an_executors_idle_worker_after_the_contention)
{
	size_t len;
	char *out = profile_of(LT_PROFILE_TEXT, &len, 15);
	const char *lock = strstr(out, "#1  5.0 ms in 1 wait");
	const char *idle = strstr(out, "an idle wait: an executor's worker waiting for a task "
				       "(ThreadPoolExecutor.getTask), not a lock");
	cr_assert(lock && strstr(lock, "ReentrantLock$NonfairSync@0x69ec1cad0"), "%s", out);
	cr_assert(idle && idle > lock, "the idle worker after the lock: %s", out);
	cr_assert(strstr(out, "  runtimes: 20.0 ms of the waiting are"), "%s", out);
	free(out);
}

Test(stacks, ocaml5_backup_threads_condition_wait_is_idle)
{
	cr_assert_not_null(lt_rt_idle_frame_label("backup_thread_func", "/srv/app", "caml_plat_wait", "/srv/app"));
	cr_assert_not_null(lt_rt_idle_frame_label("backup_thread_func", "/srv/app", "pthread_cond_wait@@GLIBC_2.3.2",
						  "libc.so.6"));
	cr_assert_null(lt_rt_idle_frame_label("backup_thread_func", "/srv/app", "caml_plat_lock_blocking", "/srv/app"));
	cr_assert_null(lt_rt_idle_frame_label("backup_thread_func", "/srv/app", "__lll_lock_wait", "libc.so.6"));
}

Test(stacks, profile_puts_the_jvms_own_idle_waits_apart)
{
	size_t len;
	char *out = profile_of(LT_PROFILE_TEXT, &len, 4);
	const char *idle = strstr(out, "Threads waiting for work, the runtime's own and executors' idle workers (not "
				      "contention):\n#4  10.0 ms in 1 wait");
	cr_assert(idle, "%s", out);
	cr_assert(strstr(idle, "#4  10.0 ms in 1 wait (average 10.00 ms, longest 10.00 ms)  the runtime's own idle wait: "
			       "HotSpot's CompileQueue::get (a compiler thread), not a lock"), "%s", out);
	cr_assert(strstr(idle, "#5  8.0 ms in 1 wait (average 8.00 ms, longest 8.00 ms)  the runtime's own idle wait: "
			       "HotSpot's PosixSemaphore::wait, not a lock"), "%s", out);
	const char *first = strstr(out, "#1  5.0 ms");
	cr_assert(first && first < idle && strstr(first, "site_beta") < idle, "lock waits first: %s", out);
	const char *mutex = strstr(out, "#2  4.0 ms in 1 wait (average 4.00 ms, longest 4.00 ms)  futex 0x7f0000000e00");
	cr_assert(mutex && mutex < idle, "the compile queue's lock is a lock wait: %s", out);
	cr_assert(strstr(out, "  runtimes: 18.0 ms of the waiting are the runtime's own threads waiting for work"),
		  "%s", out);
	cr_assert_null(strstr(out, "The Go scheduler"), "%s", out);
	/* their wake-ups released no lock: no release charged for them,
	 * the compile queue lock's release is */
	const char *rel = strstr(out, "ended by");
	cr_assert(rel, "%s", out);
	cr_assert_null(strstr(rel, "futex 0x7f0000000c00"), "an idle wait's wake-up ranked as a release: %s", out);
	cr_assert_null(strstr(rel, "futex 0x7f0000000d00"), "an idle wait's wake-up ranked as a release: %s", out);
	cr_assert(strstr(rel, "futex 0x7f0000000e00"), "%s", out);
	free(out);
}

/* A Thread.sleep() on a futex word that names a Java lock (the thread's
 * own Parker or ParkEvent, which a snapshot saw it park on for the lock)
 * is a sleep, not a wait for that lock. */
Test(stacks, profile_does_not_charge_a_java_sleep_to_a_lock)
{
	size_t len;
	char *out = profile_of(LT_PROFILE_TEXT, &len, 3);
	cr_assert(strstr(out, "#1  5.0 ms in 1 wait (average 5.00 ms, longest 5.00 ms)  Java Thread.sleep(), not a lock"),
		  "%s", out);
	cr_assert(strstr(out, "#2  3.0 ms in 1 wait (average 3.00 ms, longest 3.00 ms)  " JLOCK), "%s", out);
	free(out);
}

Test(stacks, profile_text_ranks_waiting_and_releasing_stacks)
{
	size_t len;
	char *out = profile(LT_PROFILE_TEXT, &len);
	/* waiting: stack 1 (3 + 4 ms), then stack 2 (5 ms) */
	const char *w1 = strstr(out, "#1  7.0 ms in 2 waits (average 3.50 ms, longest 4.00 ms)  "
				"futex 0x7f0000000100, process 1000\n"
				"      __lll_lock_wait+0x2b (futex-internal.h:146) [libc.so.6]\n"
				"      site_alpha+0x59 (app.c:45) [app]\n");
	cr_assert(w1, "%s", out);
	const char *w2 = strstr(out, "#2  5.0 ms in 1 wait (average 5.00 ms, longest 5.00 ms)  "
				"futex 0x7f0000000100, process 1000\n"
				"      __lll_lock_wait+0x2b (futex-internal.h:146) [libc.so.6]\n"
				"      site_beta+0x59 (app.c:56) [app]\n"
				"      app.Main.run (Main.java:311) [java]\n");
	cr_assert(w2 && w2 > w1, "%s", out);
	/* releasing: stack 4 ended the 5 and 4 ms waits, stack 3 the 3 ms */
	const char *rel = strstr(out, "\nWhere the lock was held:");
	cr_assert(rel && rel > w2, "%s", out);
	cr_assert(strstr(rel, "  3 of 3 futex waits ended by a wake-up from a call have the "
			 "waker's stack: 12.0 of 12.0 ms of waiting\n"), "%s", rel);
	const char *r1 = strstr(rel, "#1  9.0 ms of waiting ended by 2 releases (average 4.50 ms, "
				"longest 5.00 ms)  futex 0x7f0000000100, process 1000\n"
				"      __lll_lock_wake+0x0 (lowlevellock.c:65) [libc.so.6]\n"
				"      hold_for+0x0 (app.c:72) [app]\n"
				"      holder+0x0 (app.c:84) [app]\n");
	cr_assert(r1, "%s", rel);
	const char *r2 = strstr(rel, "#2  3.0 ms of waiting ended by 1 release (average 3.00 ms, "
				"longest 3.00 ms)  futex 0x7f0000000100, process 1000\n"
				"      __lll_lock_wake+0x0 (lowlevellock.c:65) [libc.so.6]\n"
				"      hold_for+0x0 (app.c:72) [app]\n"
				"      holder+0x0 (app.c:82) [app]\n");
	cr_assert(r2 && r2 > r1, "%s", rel);
	cr_assert_null(strstr(rel, "#3"), "%s", rel);
	free(out);
}

/* A runtime lock named by the waits' references (a Java lock, whose
 * waiters park on futexes of their own) is the entry's lock in every
 * format, for the waiting and the releasing stacks: the two threads'
 * waits on two futexes are charged to it; a wait whose reference names
 * none stays on its futex. */
Test(stacks, profile_charges_waits_to_the_runtime_lock_their_references_name)
{
	size_t len;
	char *out = profile_of(LT_PROFILE_TEXT, &len, 1);
	cr_assert(strstr(out, "#1  5.0 ms in 1 wait (average 5.00 ms, longest 5.00 ms)  " JLOCK ", process 1000\n"
			      "      __lll_lock_wait+0x2b (futex-internal.h:146) [libc.so.6]\n"
			      "      site_beta+0x59 (app.c:56) [app]\n"), "%s", out);
	cr_assert(strstr(out, "#2  4.0 ms in 1 wait (average 4.00 ms, longest 4.00 ms)  futex 0x7f0000000a00, "
			      "process 1000\n"), "%s", out);
	cr_assert(strstr(out, "#3  3.0 ms in 1 wait (average 3.00 ms, longest 3.00 ms)  " JLOCK ", process 1000\n"
			      "      __lll_lock_wait+0x2b (futex-internal.h:146) [libc.so.6]\n"
			      "      site_alpha+0x59 (app.c:45) [app]\n"), "%s", out);
	const char *rel = strstr(out, "\nWhere the lock was held:");
	cr_assert(rel, "%s", out);
	/* releases: stack 4 ended WB's 5 ms (the Java lock) and WA's 4 ms
	 * (its futex), stack 3 WA's 3 ms (the Java lock) */
	cr_assert(strstr(rel, "ms of waiting ended by 1 release (average 5.00 ms, longest 5.00 ms)  " JLOCK), "%s",
		  rel);
	cr_assert(strstr(rel, "ms of waiting ended by 1 release (average 3.00 ms, longest 3.00 ms)  " JLOCK), "%s",
		  rel);
	cr_assert(strstr(rel, "ms of waiting ended by 1 release (average 4.00 ms, longest 4.00 ms)  futex "
			      "0x7f0000000a00"), "%s", rel);
	free(out);
	out = profile_of(LT_PROFILE_COLLAPSED, &len, 1);
	cr_assert_str_eq(out, JLOCK ";[libc.so.6];waiter;site_alpha;__lll_lock_wait 3000\n"
				    JLOCK ";odd:name;app.Main.run;site_beta;__lll_lock_wait 5000\n"
				    "futex 0x7f0000000a00;[libc.so.6];waiter;site_alpha;__lll_lock_wait 4000\n"
				    "release of " JLOCK ";holder;hold_for;__lll_lock_wake 8000\n"
				    "release of futex 0x7f0000000a00;holder;hold_for;__lll_lock_wake 4000\n");
	free(out);
}

/* Folded stacks: the lock at the root, frames root first, the waiting
 * time of each (lock, stack) in microseconds (rounded down), sorted; a
 * frame without a function is its module; ';' in a name becomes ':'. */
Test(stacks, profile_collapsed_lines)
{
	size_t len;
	char *out = profile(LT_PROFILE_COLLAPSED, &len);
	/* the releasing stacks under their own root: stacks 3 and 4 differ
	 * only in a line, so they fold into one (3 + 5 + 4 ms and 3 x 400 ns) */
	cr_assert_str_eq(out, "futex 0x7f0000000100;[libc.so.6];waiter;site_alpha;__lll_lock_wait 7000\n"
			      "futex 0x7f0000000100;odd:name;app.Main.run;site_beta;__lll_lock_wait 5000\n"
			      "release of futex 0x7f0000000100;holder;hold_for;__lll_lock_wake 12001\n");
	free(out);
}

/* ---- pprof, decoded with pbread ---- */

#define MAXN 64
struct pp {
	const char *str[MAXN];
	size_t nstr;
	int64_t st_type[4], st_unit[4];
	int nst;
	int64_t default_type;
	struct { uint64_t id, func; int64_t line; uint64_t addr; } loc[MAXN];
	int nloc;
	struct { uint64_t id; int64_t name, file; } fn[MAXN];
	int nfn;
	struct { uint64_t loc[MAXN]; int nloc; int64_t val[4]; int nval; int64_t pid, pidkey, estkey, estval; } s[8];
	int ns;
	char strbuf[8192];
};

static int64_t varint_field(const struct pb_field *f)
{
	cr_assert_eq(f->wire, PB_WT_VARINT, "field %u: wire %u", f->num, f->wire);
	return (int64_t)f->val;
}

static void decode(const uint8_t *gz, size_t gzlen, struct pp *p)
{
	static uint8_t raw[1 << 16];
	z_stream z = { 0 };
	cr_assert_eq(inflateInit2(&z, 15 + 16), Z_OK);
	z.next_in = (Bytef *)(uintptr_t)gz;
	z.avail_in = (uInt)gzlen;
	z.next_out = raw;
	z.avail_out = sizeof(raw);
	cr_assert_eq(inflate(&z, Z_FINISH), Z_STREAM_END, "not one whole gzip stream");
	size_t rawlen = z.total_out;
	inflateEnd(&z);
	memset(p, 0, sizeof(*p));
	size_t used = 0;
	struct pb_reader r;
	struct pb_field f;
	int rc;
	pb_reader_init(&r, raw, rawlen);
	while ((rc = pb_read_field(&r, &f)) > 0) {
		struct pb_reader sr;
		struct pb_field g;
		switch (f.num) {
		case 1:
			pb_reader_init_sub(&sr, &f);
			while (pb_read_field(&sr, &g) > 0)
				(g.num == 1 ? p->st_type : p->st_unit)[p->nst] = varint_field(&g);
			p->nst++;
			break;
		case 2:
			cr_assert_lt(p->ns, 8);
			pb_reader_init_sub(&sr, &f);
			while (pb_read_field(&sr, &g) > 0) {
				if (g.num == 1)
					p->s[p->ns].loc[p->s[p->ns].nloc++] = (uint64_t)varint_field(&g);
				else if (g.num == 2)
					p->s[p->ns].val[p->s[p->ns].nval++] = varint_field(&g);
				else if (g.num == 3) {
					struct pb_field k, n;
					cr_assert_eq(pb_find_first(g.data, g.len, 1, &k), 1);
					if (pb_find_first(g.data, g.len, 2, &n) == 1) { /* a string label */
						p->s[p->ns].estkey = (int64_t)k.val;
						p->s[p->ns].estval = (int64_t)n.val;
						continue;
					}
					cr_assert_eq(pb_find_first(g.data, g.len, 3, &n), 1);
					p->s[p->ns].pidkey = (int64_t)k.val;
					p->s[p->ns].pid = (int64_t)n.val;
				}
			}
			cr_assert_eq(sr.err, 0);
			p->ns++;
			break;
		case 4:
			pb_reader_init_sub(&sr, &f);
			while (pb_read_field(&sr, &g) > 0) {
				if (g.num == 1)
					p->loc[p->nloc].id = (uint64_t)varint_field(&g);
				else if (g.num == 3)
					p->loc[p->nloc].addr = (uint64_t)varint_field(&g);
				else if (g.num == 4) {
					struct pb_field a;
					cr_assert_eq(pb_find_first(g.data, g.len, 1, &a), 1);
					p->loc[p->nloc].func = a.val;
					if (pb_find_first(g.data, g.len, 2, &a) == 1)
						p->loc[p->nloc].line = (int64_t)a.val;
				}
			}
			p->nloc++;
			break;
		case 5:
			pb_reader_init_sub(&sr, &f);
			while (pb_read_field(&sr, &g) > 0) {
				if (g.num == 1)
					p->fn[p->nfn].id = (uint64_t)varint_field(&g);
				else if (g.num == 2)
					p->fn[p->nfn].name = varint_field(&g);
				else if (g.num == 4)
					p->fn[p->nfn].file = varint_field(&g);
			}
			p->nfn++;
			break;
		case 6:
			cr_assert_eq(f.wire, PB_WT_LEN);
			cr_assert_lt(p->nstr, MAXN);
			cr_assert_lt(used + f.len + 1, sizeof(p->strbuf));
			memcpy(p->strbuf + used, f.data, f.len);
			p->strbuf[used + f.len] = 0;
			p->str[p->nstr++] = p->strbuf + used;
			used += f.len + 1;
			break;
		case 14:
			p->default_type = varint_field(&f);
			break;
		}
	}
	cr_assert_eq(rc, 0, "the profile is not a valid protobuf");
}

static const char *str(const struct pp *p, int64_t i)
{
	cr_assert(i >= 0 && (size_t)i < p->nstr, "string index %lld", (long long)i);
	return p->str[i];
}

/* A sample's frames, leaf first: "name file:line" each */
static void frames(const struct pp *p, int si, char out[][160])
{
	for (int k = 0; k < p->s[si].nloc; k++) {
		int li = -1, fi = -1;
		for (int j = 0; j < p->nloc; j++)
			if (p->loc[j].id == p->s[si].loc[k])
				li = j;
		cr_assert_geq(li, 0, "location %llu not in the profile",
			      (unsigned long long)p->s[si].loc[k]);
		for (int j = 0; j < p->nfn; j++)
			if (p->fn[j].id == p->loc[li].func)
				fi = j;
		cr_assert_geq(fi, 0, "function %llu not in the profile",
			      (unsigned long long)p->loc[li].func);
		snprintf(out[k], 160, "%s %s:%lld", str(p, p->fn[fi].name), str(p, p->fn[fi].file),
			 (long long)p->loc[li].line);
	}
}

Test(stacks, profile_pprof_decodes_to_the_waits)
{
	size_t len;
	char *out = profile(LT_PROFILE_PPROF, &len);
	static struct pp p;
	decode((const uint8_t *)out, len, &p);
	cr_assert_str_eq(str(&p, 0), "");
	cr_assert_eq(p.nst, 4);
	cr_assert_str_eq(str(&p, p.st_type[0]), "wait");
	cr_assert_str_eq(str(&p, p.st_unit[0]), "microseconds");
	cr_assert_str_eq(str(&p, p.st_type[1]), "waits");
	cr_assert_str_eq(str(&p, p.st_unit[1]), "count");
	cr_assert_str_eq(str(&p, p.st_type[2]), "released");
	cr_assert_str_eq(str(&p, p.st_unit[2]), "microseconds");
	cr_assert_str_eq(str(&p, p.st_type[3]), "releases");
	cr_assert_str_eq(str(&p, p.st_unit[3]), "count");
	cr_assert_str_eq(str(&p, p.default_type), "wait");
	cr_assert_eq(p.ns, 4, "2 waiting and 2 releasing stacks");
	/* ranked: stack 1 first */
	static const char *want_a[] = { "__lll_lock_wait futex-internal.h:146", "site_alpha app.c:45",
					 "waiter app.c:97", "[libc.so.6] :0",
					 "futex 0x7f0000000100 :0" };
	static const char *want_b[] = { "__lll_lock_wait futex-internal.h:146", "site_beta app.c:56",
					 "app.Main.run Main.java:311", "odd;name :0",
					 "futex 0x7f0000000100 :0" };
	char got[MAXN][160];
	cr_assert_eq(p.s[0].nloc, 5);
	cr_assert_eq(p.s[0].nval, 4);
	cr_assert_eq(p.s[0].val[0], 7000);
	cr_assert_eq(p.s[0].val[1], 2);
	cr_assert_eq(p.s[0].val[2], 0);
	cr_assert_eq(p.s[0].val[3], 0);
	cr_assert_eq(p.s[0].pid, 1000);
	cr_assert_str_eq(str(&p, p.s[0].pidkey), "pid");
	frames(&p, 0, got);
	for (int k = 0; k < 5; k++)
		cr_assert_str_eq(got[k], want_a[k]);
	cr_assert_eq(p.s[1].nloc, 5);
	cr_assert_eq(p.s[1].val[0], 5000);
	cr_assert_eq(p.s[1].val[1], 1);
	frames(&p, 1, got);
	for (int k = 0; k < 5; k++)
		cr_assert_str_eq(got[k], want_b[k]);
	/* the releases, ranked: stack 4 (WB's 5 ms and WA's 4 ms) then stack
	 * 3 (WA's 3 ms), their values in released/releases */
	static const char *want_r4[] = { "__lll_lock_wake lowlevellock.c:65", "hold_for app.c:72",
					  "holder app.c:84", "release of futex 0x7f0000000100 :0" };
	static const char *want_r3[] = { "__lll_lock_wake lowlevellock.c:65", "hold_for app.c:72",
					  "holder app.c:82", "release of futex 0x7f0000000100 :0" };
	static const int64_t want_rv[2][4] = { { 0, 0, 9000, 2 }, { 0, 0, 3000, 1 } };
	for (int r = 0; r < 2; r++) {
		cr_assert_eq(p.s[2 + r].nloc, 4);
		cr_assert_eq(p.s[2 + r].nval, 4);
		for (int k = 0; k < 4; k++)
			cr_assert_eq(p.s[2 + r].val[k], want_rv[r][k], "release %d value %d", r, k);
		frames(&p, 2 + r, got);
		for (int k = 0; k < 4; k++)
			cr_assert_str_eq(got[k], r ? want_r3[k] : want_r4[k]);
	}
	/* shared frames are one location and one function: 12 functions (8
	 * waiting, 3 releasing, the release root), 13 locations (holder at
	 * two lines; each root's is shared) */
	cr_assert_eq(p.s[0].loc[0], p.s[1].loc[0]);
	cr_assert_eq(p.s[0].loc[4], p.s[1].loc[4]);
	cr_assert_eq(p.s[2].loc[3], p.s[3].loc[3]);
	cr_assert_eq(p.nfn, 12);
	cr_assert_eq(p.nloc, 13);
	for (int j = 0; j < p.nloc; j++) {
		if (p.loc[j].id == p.s[0].loc[1])
			cr_assert_eq(p.loc[j].addr, 0x555500001100);
		if (p.loc[j].id == p.s[1].loc[2]) /* the Java frame: no address */
			cr_assert_eq(p.loc[j].addr, 0);
	}
	free(out);
}

/* `locktrace report --profile --format pprof -o FILE`: the file; an
 * existing FILE only with --force; bad combinations are usage errors that
 * say what to give. */
static int sh(const char *cmd, char *err, size_t len)
{
	char full[2048], errpath[TL_PATH_MAX];
	tl_tmp_path(errpath, sizeof(errpath), "profile-err");
	snprintf(full, sizeof(full), "%s >/dev/null 2>%s", cmd, errpath);
	int st = system(full);
	FILE *f = fopen(errpath, "r");
	err[0] = 0;
	if (f) {
		size_t n = fread(err, 1, len - 1, f);
		err[n] = 0;
		fclose(f);
	}
	unlink(errpath);
	return WIFEXITED(st) ? WEXITSTATUS(st) : -1;
}

Test(stacks, profile_cli_output_file)
{
	if (access(LT_BIN, X_OK))
		cr_skip_test("%s is not built (make all)", LT_BIN);
	char path[TL_PATH_MAX], pb[TL_PATH_MAX + 8], cmd[1024], err[1024];
	tl_tmp_path(path, sizeof(path), "profile-cli");
	make_trace(path);
	snprintf(pb, sizeof(pb), "%s.pb.gz", path);
	unlink(pb);
	snprintf(cmd, sizeof(cmd), "%s report %s --profile --format pprof -o %s", LT_BIN, path, pb);
	cr_assert_eq(sh(cmd, err, sizeof(err)), 0, "%s", err);
	FILE *f = fopen(pb, "rb");
	cr_assert(f);
	static uint8_t gz[1 << 16];
	size_t n = fread(gz, 1, sizeof(gz), f);
	fclose(f);
	static struct pp p;
	decode(gz, n, &p);
	cr_assert_eq(p.ns, 4);
	cr_assert_eq(p.s[0].val[0], 7000);
	/* exists: refused without --force, replaced with it */
	cr_assert_eq(sh(cmd, err, sizeof(err)), 1);
	cr_assert(strstr(err, "--force replaces it"), "%s", err);
	snprintf(cmd, sizeof(cmd), "%s report %s --profile --format collapsed -o %s --force", LT_BIN,
		 path, pb);
	cr_assert_eq(sh(cmd, err, sizeof(err)), 0, "%s", err);
	f = fopen(pb, "r");
	cr_assert(f);
	char line[256];
	cr_assert(fgets(line, sizeof(line), f));
	fclose(f);
	cr_assert_str_eq(line, "futex 0x7f0000000100;[libc.so.6];waiter;site_alpha;__lll_lock_wait 7000\n");
	snprintf(cmd, sizeof(cmd), "%s report %s --profile --format svg", LT_BIN, path);
	cr_assert_eq(sh(cmd, err, sizeof(err)), 2);
	cr_assert(strstr(err, "give text, collapsed or pprof"), "%s", err);
	snprintf(cmd, sizeof(cmd), "%s report %s --format collapsed", LT_BIN, path);
	cr_assert_eq(sh(cmd, err, sizeof(err)), 2);
	cr_assert(strstr(err, "go with --profile"), "%s", err);
	/* JSON is another option: said so */
	snprintf(cmd, sizeof(cmd), "%s report %s --format json", LT_BIN, path);
	cr_assert_eq(sh(cmd, err, sizeof(err)), 2);
	cr_assert(strstr(err, "is --json"), "%s", err);
	/* the input is never the output */
	snprintf(cmd, sizeof(cmd), "%s report %s --profile -o %s --force", LT_BIN, path, path);
	cr_assert_eq(sh(cmd, err, sizeof(err)), 2);
	cr_assert(strstr(err, "is the input trace"), "%s", err);
	cr_assert_eq(access(path, R_OK), 0, "the input trace is gone");
	unlink(pb);
	unlink(path);
}

/* The words of one object (a condition variable's three adjacent words)
 * are one lock, as in the report's LOCKS table: beta's three waits for
 * the GIL on its three words are one entry that outranks the other lock's
 * longer single wait, named as the report names the group; its waiting
 * stack in PyEval_RestoreThread (CPython's GIL acquire) names it the GIL,
 * and the text says so; its releases are charged to the same lock. */
Test(stacks, profile_charges_one_objects_words_to_one_lock_and_names_the_gil)
{
	size_t len;
	char *out = profile_of(LT_PROFILE_TEXT, &len, 5);
	cr_assert(strstr(out, "#1  12.0 ms in 3 waits (average 4.00 ms, longest 4.00 ms)  CPython GIL: futex "
			      "0x7f0000000f00 (words 0x7f0000000f00 0x7f0000000f04 0x7f0000000f08: a "),
		  "%s", out);
	cr_assert(strstr(out, ", process 1000\n"
			      "      (the CPython GIL: its waiters wait in PyEval_RestoreThread, CPython's GIL acquire)\n"
			      "      __futex_abstimed_wait_common+0x0 [libc.so.6]\n"), "%s", out);
	cr_assert(strstr(out, "#2  6.0 ms in 1 wait (average 6.00 ms, longest 6.00 ms)  futex 0x7f0000000100, "
			      "process 1000\n"), "%s", out);
	cr_assert_null(strstr(out, "#3 "), "one entry per (lock, stack): %s", out);
	const char *rel = strstr(out, "\nWhere the lock was held:");
	cr_assert(rel, "%s", out);
	cr_assert(strstr(rel, "#1  12.0 ms of waiting ended by 3 releases (average 4.00 ms, longest 4.00 ms)  "
			      "CPython GIL: futex 0x7f0000000f00 (words "), "%s", rel);
	free(out);
	out = profile_of(LT_PROFILE_COLLAPSED, &len, 5);
	cr_assert_str_eq(out, "CPython GIL futex 0x7f0000000f00/0x7f0000000f04/0x7f0000000f08;beta;"
			      "PyEval_RestoreThread;[python3.11];pthread_cond_timedwait@@GLIBC_2.3.2;"
			      "__futex_abstimed_wait_common 12001\n"
			      "futex 0x7f0000000100;odd:name;app.Main.run;site_beta;__lll_lock_wait 6000\n"
			      "release of CPython GIL futex 0x7f0000000f00/0x7f0000000f04/0x7f0000000f08;alpha;"
			      "PyEval_SaveThread;pthread_cond_signal@@GLIBC_2.3.2 12001\n"
			      "release of futex 0x7f0000000100;holder;hold_for;__lll_lock_wake 6000\n");
	free(out);
}

/* A thread that woke another from a futex call on the GIL and was then
 * switched out runnable to that very thread (a release whose next holder
 * took its cpu) sat runnable, in no wait: the profile says how long, for
 * the GIL's process, and that the release is inferred; a wake-up on
 * another lock, or a switch to a thread it did not wake, is not counted.
 * The waits are charged as before: WA's two GIL waits, its wait on the
 * other lock. */
Test(stacks, profile_counts_a_gil_releasers_runnable_time_apart_from_the_waits)
{
	size_t len;
	char *out = profile_of(LT_PROFILE_TEXT, &len, 10);
	cr_assert(strstr(out, "\n  CPython GIL, process 1000: besides the waits for it, its threads sat "
			      "runnable 6.0 ms (1 time) right after a futex call on it that woke another "
			      "thread, switched out to that thread: waiting for a cpu, in no wait here "
			      "(inferred: each a release, its next holder taking the releaser's cpu before "
			      "the releaser asks for the GIL again; a program timing its own time.sleep(0) "
			      "counts this time too)\n"), "%s", out);
	cr_assert(strstr(out, "#1  12.0 ms in 1 wait (average 12.00 ms, longest 12.00 ms)  futex "
			      "0x7f0000000100, process 1000\n"), "%s", out);
	cr_assert(strstr(out, "#2  11.0 ms in 2 waits (average 5.50 ms, longest 9.00 ms)  CPython GIL: futex "
			      "0x7f0000000f08, process 1000\n"), "%s", out);
	free(out);
}

/* Such times are summed per process and lock, however many: a second
 * release like the first, runnable 2 ms, makes 8.0 ms in 2 times. */
Test(stacks, profile_sums_a_gil_releasers_runnable_times)
{
	size_t len;
	char *out = profile_of(LT_PROFILE_TEXT, &len, 13);
	cr_assert(strstr(out, "\n  CPython GIL, process 1000: besides the waits for it, its threads sat "
			      "runnable 8.0 ms (2 times) right after a futex call on it"), "%s", out);
	free(out);
}

/* The words of one object are one lock whatever the order of their waits:
 * the report groups a word with an adjacent one it already knows, so
 * when the GIL's last word (its mutex's) is waited on first, then its
 * first, its middle word joins the first and the last stays a lock of
 * its own in the report's LOCKS table; the profile makes runs of
 * adjacent words, and gives the same entries in either order. */
Test(stacks, profile_groups_an_objects_words_whatever_their_order)
{
	size_t len;
	for (int fmt = LT_PROFILE_TEXT; fmt <= LT_PROFILE_COLLAPSED; fmt++) {
		char *a = profile_of(fmt, &len, 8), *b = profile_of(fmt, &len, 9);
		/* past the header's line, which names the trace file */
		const char *ra = fmt == LT_PROFILE_TEXT ? strchr(a, '\n') : a;
		const char *rb = fmt == LT_PROFILE_TEXT ? strchr(b, '\n') : b;
		cr_assert(ra && rb);
		cr_assert_str_eq(ra, rb, "mutex word first:\n%s\nmiddle word first:\n%s", a, b);
		if (fmt == LT_PROFILE_TEXT)
			cr_assert(strstr(a, "#1  12.0 ms in 3 waits (average 4.00 ms, longest 4.00 ms)  CPython GIL: "
					    "futex 0x7f0000000f00 (words 0x7f0000000f00 0x7f0000000f04 "
					    "0x7f0000000f08: a mutex), process 1000\n"), "%s", a);
		else
			cr_assert(strstr(a, "CPython GIL futex 0x7f0000000f00/0x7f0000000f04/0x7f0000000f08;beta;"
					    "PyEval_RestoreThread;[python3.11];pthread_cond_timedwait@@GLIBC_2.3.2;"
					    "__futex_abstimed_wait_common 12001\n"), "%s", a);
		free(a);
		free(b);
	}
}

/* With DWARF, the GIL acquire's inlined calls are frames of their own:
 * the innermost named one past libc is a helper inlined into take_gil,
 * itself inlined; the GIL is still known by take_gil, and the text marks
 * the inlined frames. */
Test(stacks, profile_knows_the_gil_through_inlined_frames)
{
	size_t len;
	char *out = profile_of(LT_PROFILE_TEXT, &len, 12);
	cr_assert(strstr(out, "      (the CPython GIL: its waiters wait in take_gil, CPython's GIL acquire)\n"), "%s", out);
	cr_assert(strstr(out, "      PyCOND_TIMEDWAIT (inlined) [python3.11]\n"
			      "      take_gil (inlined) [python3.11]\n"
			      "      PyEval_RestoreThread+0x12 [python3.11]\n"), "%s", out);
	free(out);
}

/* A snapshot stored in the trace that read the GIL over the words names
 * the lock the GIL, though no stack shows CPython's functions. */
Test(stacks, profile_names_the_gil_a_snapshot_read)
{
	size_t len;
	char *out = profile_of(LT_PROFILE_TEXT, &len, 6);
	cr_assert(strstr(out, "#1  12.0 ms in 3 waits (average 4.00 ms, longest 4.00 ms)  CPython GIL: futex "
			      "0x7f0000000f00 (words 0x7f0000000f00 0x7f0000000f04 0x7f0000000f08: a "), "%s", out);
	cr_assert(strstr(out, "      (the CPython GIL: a snapshot in the trace read the GIL there: GIL "
			      "_PyRuntime.ceval.gil (CPython 3.11.2) over 0x7f0000000ee0-0x7f0000000fb0)\n"),
		  "%s", out);
	cr_assert(strstr(out, "#2  6.0 ms in 1 wait (average 6.00 ms, longest 6.00 ms)  futex 0x7f0000000100, "
			      "process 1000\n"), "the other lock is no GIL: %s", out);
	free(out);
}

/* A stack the unwind did not take to the thread's start says so: its end
 * under the entry in the text; in the collapsed lines and in pprof a
 * frame "[stack cut: ...]" below the lock, so that it is not merged with
 * the complete stack through the same frames. */
Test(stacks, profile_marks_a_cut_stack_in_every_format)
{
	size_t len;
	char *out = profile_of(LT_PROFILE_TEXT, &len, 7);
	cr_assert(strstr(out, "      layer+0x0 [app]\n      " CUT_END "\n"), "%s", out);
	free(out);
	out = profile_of(LT_PROFILE_COLLAPSED, &len, 7);
	cr_assert_str_eq(out, "futex 0x7f0000000100;" CUT_FRAME ";layer;layer;locked_work;__lll_lock_wait 5000\n"
			      "futex 0x7f0000000100;layer;layer;locked_work;__lll_lock_wait 3000\n"
			      "release of futex 0x7f0000000100;holder;hold_for;__lll_lock_wake 8000\n");
	free(out);
	out = profile_of(LT_PROFILE_PPROF, &len, 7);
	static struct pp p;
	decode((const uint8_t *)out, len, &p);
	cr_assert_eq(p.ns, 3);
	char fr[MAXN][160];
	frames(&p, 0, fr); /* ranked: the 5 ms cut stack first */
	cr_assert_eq(p.s[0].nloc, 6);
	cr_assert_str_eq(fr[3], "layer :0");
	cr_assert_str_eq(fr[4], CUT_FRAME " :0");
	cr_assert_str_eq(fr[5], "futex 0x7f0000000100 :0");
	frames(&p, 1, fr);
	cr_assert_eq(p.s[1].nloc, 5, "the complete stack has no such frame");
	cr_assert_str_eq(fr[4], "futex 0x7f0000000100 :0");
	free(out);
}

/* A trace attached to a hung process (record -p PID --stacks): WA and WB
 * were asleep on LOCK when it began (the header's snapshot, blocked 5 s
 * and an unknown time), WA until it ran again 40 ms on, WB to the end.
 * HOLDER's switch is recorded 1 us before the attach, so the trace's
 * start (the spans' begin) is not the header's time that keys the
 * waits' references (trace-format.md, STACKS).  REFS: whether the
 * section has the waits' references; RECORDED: whether it says the trace
 * was recorded with --stacks (key 3). */
#define ATT (T0 + 5000000)
static void make_attach_trace(const char *path, int refs, int recorded)
{
	struct lt_writer *w;
	struct lt_header h = { .pid = PID, .ncpus = 2, .clock_boottime = ATT };
	struct lt_thread_info th[3] = {
		{ .tid = WA, .comm = "wa", .sc_nr = 202, .sc_args = { LOCK, FUTEX_WAIT_PRIVATE, 2 },
		  .blocked_ns = 5000000000ull, .state = 'S' },
		{ .tid = WB, .comm = "wb", .sc_nr = 202, .sc_args = { LOCK, FUTEX_WAIT_PRIVATE, 2 },
		  .state = 'S' },
		{ .tid = HOLDER, .comm = "holder", .sc_nr = -2 } };
	cr_assert_eq(lt_writer_open(&w, path, 1), 0);
	snprintf(h.comm, sizeof(h.comm), "app");
	h.threads = malloc(sizeof(th));
	memcpy(h.threads, th, sizeof(th));
	h.nthreads = 3;
	cr_assert_eq(lt_writer_header(w, &h), 0);
	free(h.threads);
	struct lt_stackbuf sb = { 0 };
	if (recorded)
		lt_stacks_put_recording(&sb, 16);
	if (refs) {
		struct lt_stack s1 = { .id = 1, .tgid = PID, .nframes = 4, .frames = st1 };
		struct lt_stack s2 = { .id = 2, .tgid = PID, .nframes = 4, .frames = st2 };
		lt_stacks_put_stack(&sb, &s1);
		lt_stacks_put_stack(&sb, &s2);
		struct lt_stack_ref ra = { .tid = WA, .ts = ATT, .stack_id = 1, .role = LT_STACK_WAITER,
					   .delay_ns = 300000 };
		struct lt_stack_ref rb = { .tid = WB, .ts = ATT, .stack_id = 2, .role = LT_STACK_WAITER,
					   .delay_ns = 300000 };
		lt_stacks_put_ref(&sb, &ra);
		lt_stacks_put_ref(&sb, &rb);
	}
	put(w, lt_ev_switch(ATT - 1000, 1, HOLDER, PID, 1, 0, 0, "holder", "swapper/1"));
	put(w, lt_ev_switch(ATT + 40000000, 0, 0, 0, 0, WA, PID, "swapper/0", "wa"));
	if (sb.len)
		cr_assert_eq(lt_writer_section(w, LT_CHUNK_STACKS, sb.p, sb.len), 0);
	cr_assert(!sb.oom);
	lt_stackbuf_free(&sb);
	struct lt_stats st = { .start_ns = ATT, .end_ns = ATT + 100000000, .ncpus = 2, .exit_status = -1 };
	cr_assert_eq(lt_writer_stats(w, &st), 0);
	cr_assert_eq(lt_writer_close(w), 0);
}

static char *attach_profile(int refs, int recorded, int format, char *err, size_t errlen)
{
	char path[TL_PATH_MAX];
	tl_tmp_path(path, sizeof(path), "profile-attach");
	make_attach_trace(path, refs, recorded);
	FILE *f = tmpfile();
	cr_assert(f);
	cr_assert_eq(lt_report_profile_fmt(path, f, 0, format, err, errlen), 0, "profile: %s", err);
	long n = ftell(f);
	char *buf = malloc((size_t)n + 1);
	rewind(f);
	cr_assert_eq(fread(buf, 1, (size_t)n, f), (size_t)n);
	buf[n] = 0;
	fclose(f);
	unlink(path);
	return buf;
}

/* The waits under way at the attach have their stacks (keyed by the
 * header's time, not the trace's start) and are ranked, each counted from
 * the trace's start (WB's 100.001 ms to the end, WA's 40.001 ms), saying
 * they began before it and how long before, where the snapshot knew. */
Test(stacks, profile_ranks_the_waits_under_way_at_the_attach)
{
	char err[512] = "";
	char *out = attach_profile(1, 1, LT_PROFILE_TEXT, err, sizeof(err));
	cr_assert_str_empty(err);
	cr_assert(strstr(out, "2 of 2 blocking calls have a stack: 140.0 of 140.0 ms of waiting"), "%s", out);
	cr_assert(strstr(out, "2 of them were under way when the trace began"), "%s", out);
	const char *b = strstr(out, "#1  100.0 ms in 1 wait");
	const char *a = strstr(out, "#2  40.0 ms in 1 wait");
	cr_assert(a && b, "%s", out);
	cr_assert(strstr(b, "(under way when the trace began: counted from its start)\n"
			    "      __lll_lock_wait+0x2b (futex-internal.h:146) [libc.so.6]\n"
			    "      site_beta+0x59 (app.c:56) [app]"), "%s", out);
	cr_assert(strstr(a, "(under way when the trace began: counted from its start; it had waited "
			    "5000.0 ms more before it)\n"
			    "      __lll_lock_wait+0x2b (futex-internal.h:146) [libc.so.6]\n"
			    "      site_alpha+0x59 (app.c:45) [app]"), "%s", out);
	cr_assert_null(strstr(out, "record it with --stacks"), "%s", out);
	free(out);
}

/* A trace recorded with --stacks whose waits got no stack says why, not
 * "record it with --stacks"; one that does not say it was still does. */
Test(stacks, profile_says_why_a_stacks_recording_has_no_stack)
{
	char err[512] = "";
	char *out = attach_profile(0, 1, LT_PROFILE_TEXT, err, sizeof(err));
	cr_assert_str_empty(err);
	cr_assert(strstr(out, "no stacks in this trace, recorded with --stacks: none of its 2 blocking "
			      "calls got one (2 of 1 ms or more, which all should; 1 in 16 of the shorter "
			      "ones is sampled); 2 of them were under way at the attach"), "%s", out);
	cr_assert_null(strstr(out, "record it with"), "%s", out);
	free(out);

	out = attach_profile(0, 1, LT_PROFILE_COLLAPSED, err, sizeof(err));
	cr_assert(strstr(err, "is empty: no stacks in this trace, recorded with --stacks: none of its 2"),
		  "%s", err);
	cr_assert_null(strstr(err, "record it with"), "%s", err);
	free(out);

	err[0] = 0;
	out = attach_profile(0, 0, LT_PROFILE_TEXT, err, sizeof(err));
	cr_assert(strstr(out, "no stacks in this trace: record it with --stacks"), "%s", out);
	free(out);
}

#define EST_LEAF "[~ estimated: waits under 1 ms, a sample scaled to the lock's exact total]"

/* Waits under 1 ms are sampled (--stack-sample): an entry's short waits
 * stand for their lock's, whose exact total the events give (4.0 ms in 9
 * waits on LOCK, 1.0 ms of it in the 3 with a stack): site_alpha's 0.5 ms
 * in 2 sampled waits is ~2.0 ms in ~6 waits, plus its exact 3 ms wait;
 * site_beta's 0.5 ms in 1 is ~2.0 ms in ~3.  Marked "~" in the text, a
 * leaf frame of their own in the collapsed lines and in pprof (with a
 * label), the exact part apart; the releases likewise; the short waits
 * of a lock none of whose was sampled are said to be in no entry. */
Test(stacks, profile_scales_the_sampled_short_waits_to_their_locks_total)
{
	size_t len;
	char *out = profile_of(LT_PROFILE_TEXT, &len, 11);
	cr_assert(strstr(out, "  ~ marks an estimate: of the 11 blocking calls under 1 ms (4.4 ms), 3 have a stack; "
			      "each lock's total of them, known from the events, is shared among its sampled stacks "
			      "in proportion to their sampled time; 2 waits under 1 ms (0.4 ms) on locks none of "
			      "whose were sampled are in no entry\n"), "%s", out);
	cr_assert(strstr(out, "#1  ~5.0 ms in ~7 waits (average ~0.71 ms, longest 3.00 ms)  futex 0x7f0000000100, "
			      "process 1000\n"
			      "      (~ an estimate: its 2 waits under 1 ms with a stack (0.50 ms) are a sample, standing "
			      "for ~6 (~2.0 ms) of the lock's; the lock's total of them is exact)\n"
			      "      __lll_lock_wait+0x2b"), "%s", out);
	cr_assert(strstr(out, "#2  ~2.0 ms in ~3 waits (average ~0.67 ms, longest 0.50 ms)  futex 0x7f0000000100, "
			      "process 1000\n"
			      "      (~ an estimate: its 1 wait under 1 ms with a stack (0.50 ms) is a sample, standing "
			      "for ~3 (~2.0 ms) of the lock's; the lock's total of them is exact)\n"), "%s", out);
	const char *rel = strstr(out, "\nWhere the lock was held:");
	cr_assert(rel, "%s", out);
	cr_assert(strstr(rel, "#1  ~5.0 ms of waiting ended by ~7 releases"), "%s", rel);
	cr_assert(strstr(rel, "#2  ~2.0 ms of waiting ended by ~3 releases"), "%s", rel);
	free(out);
	out = profile_of(LT_PROFILE_COLLAPSED, &len, 11);
	cr_assert_str_eq(out, "futex 0x7f0000000100;[libc.so.6];waiter;site_alpha;__lll_lock_wait 3000\n"
			      "futex 0x7f0000000100;[libc.so.6];waiter;site_alpha;__lll_lock_wait;" EST_LEAF " 2000\n"
			      "futex 0x7f0000000100;odd:name;app.Main.run;site_beta;__lll_lock_wait;" EST_LEAF " 2000\n"
			      "release of futex 0x7f0000000100;holder;hold_for;__lll_lock_wake 3000\n"
			      "release of futex 0x7f0000000100;holder;hold_for;__lll_lock_wake;" EST_LEAF " 4000\n");
	free(out);
	/* pprof: the exact part and the estimate of an entry are two samples,
	 * the estimate's leaf frame and label saying so, values integers */
	out = profile_of(LT_PROFILE_PPROF, &len, 11);
	static struct pp p;
	decode((const uint8_t *)out, len, &p);
	cr_assert_eq(p.ns, 6, "site_alpha exact and estimated, site_beta estimated; releases likewise");
	static const int64_t want[6][4] = { { 3000, 1, 0, 0 }, { 2000, 6, 0, 0 }, { 2000, 3, 0, 0 },
					    { 0, 0, 3000, 1 }, { 0, 0, 2000, 6 }, { 0, 0, 2000, 3 } };
	char got[MAXN][160];
	for (int i = 0; i < 6; i++) {
		for (int v = 0; v < 4; v++)
			cr_assert_eq(p.s[i].val[v], want[i][v], "sample %d value %d: %lld", i, v,
				     (long long)p.s[i].val[v]);
		frames(&p, i, got);
		int est = i % 3 != 0;
		cr_assert_eq(!strcmp(got[0], EST_LEAF " :0"), est, "sample %d leaf %s", i, got[0]);
		if (est) {
			cr_assert_str_eq(str(&p, p.s[i].estkey), "estimated");
			cr_assert_str_eq(str(&p, p.s[i].estval), "short waits");
		} else {
			cr_assert_eq(p.s[i].estkey, 0);
		}
	}
	free(out);
}
