/* Runtime-internal idle threads (issue 25): a JVM's GC, refinement and
 * signal-dispatcher threads, or a libuv program's helper threads (Node's
 * inspector thread), wait for work on a semaphore of their own through the
 * runtime's semaphore wrapper; a JVM's service loops on one of its
 * Monitors, its reference-queue threads in ReferenceQueue.remove.  glibc's
 * model sees sem_wait, an acquire; but nobody holds such a semaphore: it is
 * an event the runtime posts when there is work.  Such a wait is idle, never a lock wait, never a
 * headline, and its thread never a holder. */
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "snapshot.h"
#include "rt_idle.h"
#include "snapshot_int.h"

/* The runtime's semaphore wrappers whose callers wait for work; and
 * (cond: on a condition variable, through HotSpot's Monitor::wait) the
 * JVM's own service loops that wait for work on one of its Monitors: its
 * compiler threads for a compile task, the VM thread for an operation, the
 * service, monitor-deflation, periodic-task and G1 service threads for
 * their next round, the Reference Handler for references to enqueue.  A
 * Java thread's own waits (Object.wait, monitors, parking) go through
 * ParkEvents and Parkers, never these. */
static const struct {
	const char *func;   /* prefix of the (mangled) symbol */
	const char *module; /* prefix of the module's file name */
	const char *what;
	bool cond;
} idle_waits[] = {
	{ "_ZN14PosixSemaphore4waitEv", "libjvm.so", "HotSpot's PosixSemaphore::wait", false },
	{ "_ZN14PosixSemaphore9timedwait", "libjvm.so", "HotSpot's PosixSemaphore::timedwait", false },
	{ "uv_sem_wait", NULL, "libuv's uv_sem_wait", false },
	{ "_ZN12CompileQueue3get", "libjvm.so", "HotSpot's CompileQueue::get (a compiler thread)", true },
	{ "_ZN8VMThread18wait_for_operation", "libjvm.so", "HotSpot's VMThread::wait_for_operation", true },
	{ "_ZN13ServiceThread20service_thread_entry", "libjvm.so", "HotSpot's service thread", true },
	{ "_ZN22MonitorDeflationThread30monitor_deflation_thread_entry", "libjvm.so",
	  "HotSpot's monitor deflation thread", true },
	{ "_ZN13WatcherThread5sleep", "libjvm.so", "HotSpot's WatcherThread::sleep (periodic tasks)", true },
	{ "_ZN15G1ServiceThread23sleep_before_next_cycle", "libjvm.so", "HotSpot's G1 service thread", true },
	{ "JVM_WaitForReferencePendingList", "libjvm.so", "HotSpot's Reference Handler", true },
};

/* HotSpot's Monitor::wait and Monitor::wait_without_safepoint_check. */
static bool monitor_wait(const struct lt_frame *fr)
{
	return fr->func && !strncmp(fr->func, "_ZN7Monitor", 11) && strstr(fr->func, "wait") && fr->module &&
	       !strncmp(fr->module, "libjvm.so", 9);
}

/* The wrapper among T's innermost frames, NULL if none; COND: the waits
 * on a condition variable, whose listed caller must call Monitor::wait
 * itself (a service loop's entry is on every stack of its thread), else
 * the semaphore wrappers. */
static const char *idle_wrapper(const struct lt_thread *t, bool cond)
{
	for (size_t k = 0; k < t->n_frames && k < 6; k++) {
		const struct lt_frame *fr = &t->frames[k];
		if (cond && (!k || !monitor_wait(&t->frames[k - 1])))
			continue;
		for (size_t i = 0; fr->func && i < sizeof(idle_waits) / sizeof(idle_waits[0]); i++)
			if (idle_waits[i].cond == cond &&
			    !strncmp(fr->func, idle_waits[i].func, strlen(idle_waits[i].func)) &&
			    (!idle_waits[i].module || (fr->module && !strncmp(fr->module, idle_waits[i].module,
									     strlen(idle_waits[i].module)))))
				return idle_waits[i].what;
	}
	return NULL;
}

/* CPython's queue.SimpleQueue.get() (the C _queue module, up to 3.12:
 * what ThreadPoolExecutor's workers and multiprocessing.Pool's task
 * handler wait in) parks on a PyThread lock of the queue's own until a
 * put() releases it: an item awaited, not a lock anybody holds.  Known by
 * the acquire's caller: in the _queue extension module, or its symbol
 * where the module is built into the interpreter. */
static const char *simplequeue_get(const struct lt_thread *t)
{
	for (size_t k = 0; k + 1 < t->n_frames && k < 6; k++) {
		const struct lt_frame *fr = &t->frames[k], *up = &t->frames[k + 1];
		if (!fr->func || strncmp(fr->func, "PyThread_acquire_lock", 21))
			continue;
		const char *base = up->module ? strrchr(up->module, '/') : NULL;
		base = base ? base + 1 : up->module;
		if ((base && !strncmp(base, "_queue.", 7)) || (up->func && !strncmp(up->func, "_queue_SimpleQueue_get", 22)))
			return "CPython's queue.SimpleQueue.get (waits for an item: a put())";
		return NULL;
	}
	return NULL;
}

/* A Java thread waiting for references to process in the JDK's
 * ReferenceQueue (the Finalizer, the Common-Cleaner, a library's cleaner
 * thread): its innermost Java frames (Object.wait, or a Condition's await in
 * JDK 21+) are under ReferenceQueue.remove or .await. */
static const char *reference_queue_wait(const struct lt_thread *t)
{
	if (!t->rt_lang || strcmp(t->rt_lang, "java"))
		return NULL;
	for (size_t k = 0; k < t->n_rt_frames && k < 6; k++) {
		const char *f = t->rt_frames[k].func;
		if (f && (!strcmp(f, "java.lang.ref.ReferenceQueue.remove") ||
			  !strcmp(f, "java.lang.ref.ReferenceQueue.remove0") ||
			  !strcmp(f, "java.lang.ref.ReferenceQueue.await")))
			return "the JDK's ReferenceQueue.remove (references to process)";
	}
	return NULL;
}

void lt_rt_idle_apply(struct lt_snapshot *s)
{
	for (size_t i = 0; i < s->n_threads; i++) {
		struct lt_thread *t = &s->threads[i];
		struct lt_futex *f = &t->futex;
		if (t->wait != LT_WAIT_FUTEX || !f->is_wait || f->rtlock || !f->lock_kind)
			continue;
		bool cond = !strcmp(f->lock_kind, "condition variable");
		if (!cond && strcmp(f->lock_kind, "semaphore"))
			continue;
		/* a condition variable: only one nobody holds and whose word
		 * is unchanged (the wait's own, as the verdicts judge it) */
		if (cond && (f->owner_kind != LT_OWNER_NONE || !f->word_ok || f->word != f->expected))
			continue;
		const char *w = idle_wrapper(t, cond);
		if (!w && cond)
			w = reference_queue_wait(t);
		if (!w && !cond)
			w = simplequeue_get(t);
		if (!w)
			continue;
		char *st = lts_asprintf("%s%s" LT_RT_IDLE_STATE " (%s): idle, not a lock",
					f->lock_state ? f->lock_state : "", f->lock_state ? "; " : "", w);
		free(f->lock_state);
		f->lock_state = st;
		t->acquire = NULL;       /* no acquire: nobody holds an event */
		f->owner_kind = LT_OWNER_NONE;
		f->owner = 0;
	}
}

bool lt_rt_idle_wait(const struct lt_thread *t)
{
	const struct lt_futex *f = &t->futex;
	if (t->wait != LT_WAIT_FUTEX || !f->is_wait || f->owner_kind != LT_OWNER_NONE || !f->word_ok ||
	    f->word != f->expected || f->rtlock || t->acquire)
		return false;
	if (f->lock_state && strstr(f->lock_state, LT_RT_IDLE_STATE))
		return true;
	return f->lock_kind && !strcmp(f->lock_kind, "condition variable") && f->cond_signal == 1;
}

bool lt_rt_keeps(const struct lt_thread *o)
{
	return o && o->state != 'R' && o->sc.state == LT_SC_IN_SYSCALL && !o->moved &&
	       o->idle_src != LT_IDLE_UNKNOWN && o->idle_s >= LT_RT_KEEPS_S && !o->futex.rtlock;
}

bool lt_rt_java_sleep_func(const char *f)
{
	return f && (!strcmp(f, "JVM_Sleep") || !strcmp(f, "java.lang.Thread.sleep") ||
		     !strcmp(f, "java.lang.Thread.sleep0") || !strcmp(f, "java.lang.Thread.sleepNanos") ||
		     !strcmp(f, "java.lang.Thread.sleepNanos0"));
}
