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

/* The runtime's semaphore wrappers whose callers wait for work (IW_SEM);
 * and (IW_COND: on a condition variable, through HotSpot's Monitor::wait)
 * the JVM's own service loops that wait for work on one of its Monitors:
 * its compiler threads for a compile task, the VM thread for an operation,
 * the service, monitor-deflation, periodic-task, notification, sweeper, G1
 * service and G1 concurrent-mark threads for their next round, its GC
 * threads for the VM's initialization, the Reference Handler for
 * references to enqueue; and (IW_JOIN, for `report --profile` only: the
 * snapshot judges joins on its own) the java launcher's first thread,
 * which joins the Java main thread for as long as the program runs.  A
 * Java thread's own waits (Object.wait, monitors, parking) go through
 * ParkEvents and Parkers, never these.  Each entry's label is what
 * `report --profile` charges such a wait to. */
enum iw_kind { IW_SEM, IW_COND, IW_JOIN, IW_PLAT };
#define IW_LABEL(what) "the runtime's own idle wait: " what ", not a lock"
#define IW(func, module, what, kind) { func, module, what, kind, IW_LABEL(what) }
static const struct {
	const char *func;   /* prefix of the (mangled) symbol */
	const char *module; /* prefix of the module's file name */
	const char *what;
	enum iw_kind kind;
	const char *label;
} idle_waits[] = {
	IW("_ZN14PosixSemaphore4waitEv", "libjvm.so", "HotSpot's PosixSemaphore::wait", IW_SEM),
	IW("_ZN14PosixSemaphore9timedwait", "libjvm.so", "HotSpot's PosixSemaphore::timedwait", IW_SEM),
	IW("uv_sem_wait", NULL, "libuv's uv_sem_wait", IW_SEM),
	IW("_ZN12CompileQueue3get", "libjvm.so", "HotSpot's CompileQueue::get (a compiler thread)", IW_COND),
	IW("_ZN8VMThread18wait_for_operation", "libjvm.so", "HotSpot's VMThread::wait_for_operation", IW_COND),
	IW("_ZN13ServiceThread20service_thread_entry", "libjvm.so", "HotSpot's service thread", IW_COND),
	IW("_ZN22MonitorDeflationThread30monitor_deflation_thread_entry", "libjvm.so",
	   "HotSpot's monitor deflation thread", IW_COND),
	IW("_ZN13WatcherThread5sleep", "libjvm.so", "HotSpot's WatcherThread::sleep (periodic tasks)", IW_COND),
	/* JDK 17's is const */
	IW("_ZNK13WatcherThread5sleep", "libjvm.so", "HotSpot's WatcherThread::sleep (periodic tasks)", IW_COND),
	IW("_ZN15G1ServiceThread23sleep_before_next_cycle", "libjvm.so", "HotSpot's G1 service thread", IW_COND),
	IW("_ZN22G1ConcurrentMarkThread11run_service", "libjvm.so", "HotSpot's G1 concurrent mark thread", IW_COND),
	IW("_ZN18NotificationThread25notification_thread_entry", "libjvm.so", "HotSpot's notification thread",
	   IW_COND),
	IW("_ZN14NMethodSweeper12sweeper_loop", "libjvm.so", "HotSpot's sweeper thread", IW_COND),
	IW("_Z19wait_init_completed", "libjvm.so", "HotSpot's GC thread waiting for the VM's start", IW_COND),
	IW("JVM_WaitForReferencePendingList", "libjvm.so", "HotSpot's Reference Handler", IW_COND),
	IW("CallJavaMainInNewThread", "libjli.so", "the java launcher's join of the Java main thread", IW_JOIN),
	/* (IW_PLAT: on a condition variable through OCaml's caml_plat_wait)
	 * OCaml 5's backup thread of a domain, which handles its
	 * interrupts while the domain's thread is in a blocking section:
	 * it waits for that on the domain's condition (its waits for the
	 * domain lock itself are lock waits) */
	IW("backup_thread_func", NULL, "OCaml 5's domain backup thread", IW_PLAT),
};

/* OCaml's caml_plat_wait, or the condition wait it wraps (inlined). */
static bool plat_wait(const char *func)
{
	return func && (!strncmp(func, "caml_plat_wait", 14) || !strncmp(func, "pthread_cond_wait", 17) ||
			!strncmp(func, "___pthread_cond_wait", 20) || !strncmp(func, "__pthread_cond_wait", 19));
}

/* HotSpot's Monitor::wait and Monitor::wait_without_safepoint_check. */
static bool monitor_wait(const char *func, const char *module)
{
	return func && !strncmp(func, "_ZN7Monitor", 11) && strstr(func, "wait") && module &&
	       !strncmp(module, "libjvm.so", 9);
}

/* The entry for a frame of FUNC in MODULE that called CFUNC in CMODULE
 * (NULL: the innermost frame), -1 if none: an IW_COND entry's function
 * must call Monitor::wait itself (a service loop's entry is on every stack
 * of its thread). */
static int idle_entry(const char *func, const char *module, const char *cfunc, const char *cmodule)
{
	for (size_t i = 0; func && i < sizeof(idle_waits) / sizeof(idle_waits[0]); i++)
		if (!strncmp(func, idle_waits[i].func, strlen(idle_waits[i].func)) &&
		    (!idle_waits[i].module ||
		     (module && !strncmp(module, idle_waits[i].module, strlen(idle_waits[i].module)))) &&
		    (idle_waits[i].kind != IW_COND || monitor_wait(cfunc, cmodule)) &&
		    (idle_waits[i].kind != IW_PLAT || plat_wait(cfunc)))
			return (int)i;
	return -1;
}

/* T's next frame from *J on that is a machine frame (not a call the
 * compiler inlined, which the unwinder expands into frames of its own:
 * the tables here name the machine frames' functions and their callees),
 * *J moved past it; NULL at the end. */
static const struct lt_frame *real_frame(const struct lt_thread *t, size_t *j)
{
	while (*j < t->n_frames && t->frames[*j].inlined)
		(*j)++;
	return *j < t->n_frames ? &t->frames[(*j)++] : NULL;
}

/* A runtime's own service thread, which runs none of the program's code
 * and so can end none of its waits (write a pipe, release a file lock,
 * answer a socket): a JVM's internal threads waiting for work (the table's
 * libjvm entries), OCaml 5's domain backup threads (the table), OCaml's
 * tick thread (caml_thread_tick: a select with a 50 ms timeout, forever),
 * Go's sysmon.  Not libuv's pool (it runs the program's file operations),
 * nor the JDK's reference queues (the Finalizer runs finalize()). */
static bool service_thread(const struct lt_thread *t)
{
	const struct lt_frame *fr, *callee = NULL;
	for (size_t j = 0, k = 0; (fr = real_frame(t, &j)) && k < LT_RT_IDLE_FRAMES; k++, callee = fr) {
		if (fr->func && (!strcmp(fr->func, "caml_thread_tick") || !strcmp(fr->func, "runtime.sysmon")))
			return true;
		int i = idle_entry(fr->func, fr->module, callee ? callee->func : NULL, callee ? callee->module : NULL);
		if (i >= 0 && idle_waits[i].kind != IW_JOIN && idle_waits[i].module &&
		    !strcmp(idle_waits[i].module, "libjvm.so"))
			return true;
		if (i >= 0 && idle_waits[i].kind == IW_PLAT)
			return true;
	}
	return false;
}

/* The wrapper among T's innermost frames, NULL if none; COND: the waits
 * on a condition variable, else the semaphore wrappers. */
static const char *idle_wrapper(const struct lt_thread *t, bool cond)
{
	const struct lt_frame *fr, *callee = NULL;
	for (size_t j = 0, k = 0; (fr = real_frame(t, &j)) && k < LT_RT_IDLE_FRAMES; k++, callee = fr) {
		int i = idle_entry(fr->func, fr->module, callee ? callee->func : NULL, callee ? callee->module : NULL);
		if (i >= 0 && (cond ? idle_waits[i].kind == IW_COND || idle_waits[i].kind == IW_PLAT
				     : idle_waits[i].kind == IW_SEM))
			return idle_waits[i].what;
	}
	return NULL;
}

const char *lt_rt_idle_frame_label(const char *func, const char *module, const char *cfunc, const char *cmodule)
{
	int i = idle_entry(func, module, cfunc, cmodule);
	return i >= 0 ? idle_waits[i].label : NULL;
}

static const char REFQ_WHAT[] = "the JDK's ReferenceQueue.remove (references to process)";
static const char REFQ_LABEL[] = IW_LABEL("the JDK's ReferenceQueue.remove (references to process)");

static const char TPE_WHAT[] = "an executor's worker waiting for a task (ThreadPoolExecutor.getTask)";
static const char TIMER_WHAT[] = "a java.util.Timer's thread waiting for a task (TimerThread.mainLoop)";
static const char FJP_WHAT[] = "a ForkJoinPool worker waiting for a task (ForkJoinPool.awaitWork)";
#define POOL_LABEL(what) "an idle wait: " what ", not a lock"
static const char TPE_LABEL[] = POOL_LABEL("an executor's worker waiting for a task (ThreadPoolExecutor.getTask)");
static const char FJP_LABEL[] = POOL_LABEL("a ForkJoinPool worker waiting for a task (ForkJoinPool.awaitWork)");
static const char TIMER_LABEL[] = POOL_LABEL("a java.util.Timer's thread waiting for a task (TimerThread.mainLoop)");

static const char *java_pool_what(const char *f, bool label)
{
	if (f && !strcmp(f, "java.util.concurrent.ThreadPoolExecutor.getTask"))
		return label ? TPE_LABEL : TPE_WHAT;
	if (f && !strcmp(f, "java.util.concurrent.ForkJoinPool.awaitWork"))
		return label ? FJP_LABEL : FJP_WHAT;
	if (f && !strcmp(f, "java.util.TimerThread.mainLoop"))
		return label ? TIMER_LABEL : TIMER_WHAT;
	return NULL;
}

const char *lt_rt_idle_java_label(const char *f)
{
	return f && (!strcmp(f, "java.lang.ref.ReferenceQueue.remove") ||
		     !strcmp(f, "java.lang.ref.ReferenceQueue.remove0") ||
		     !strcmp(f, "java.lang.ref.ReferenceQueue.await")) ? REFQ_LABEL : NULL;
}

bool lt_rt_idle_is_label(const char *s)
{
	if (s == REFQ_LABEL || s == TPE_LABEL || s == FJP_LABEL || s == TIMER_LABEL)
		return true;
	for (size_t i = 0; i < sizeof(idle_waits) / sizeof(idle_waits[0]); i++)
		if (s == idle_waits[i].label)
			return true;
	return false;
}

/* CPython's queue.SimpleQueue.get() (the C _queue module, up to 3.12:
 * what ThreadPoolExecutor's workers and multiprocessing.Pool's task
 * handler wait in) parks on a PyThread lock of the queue's own until a
 * put() releases it: an item awaited, not a lock anybody holds.  Known by
 * the acquire's caller: in the _queue extension module, or its symbol
 * where the module is built into the interpreter. */
static const char *simplequeue_get(const struct lt_thread *t)
{
	const struct lt_frame *fr, *up;
	size_t j = 0;
	fr = real_frame(t, &j);
	for (size_t k = 0; fr && (up = real_frame(t, &j)) && k < 6; k++, fr = up) {
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

/* Does FILE end in /multiprocessing/NAME? */
static bool mp_file(const char *file, const char *name)
{
	size_t n = file ? strlen(file) : 0, k = strlen(name);
	return n > k + 17 && !strcmp(file + n - k, name) && !strncmp(file + n - k - 17, "/multiprocessing/", 17);
}

/* multiprocessing's Queue.get() and SimpleQueue.get() (what Pool's and
 * ProcessPoolExecutor's workers wait for tasks in) take the queue's reader
 * lock, a process-shared semaphore, and keep it while they wait for an
 * item on the queue's pipe (multiprocessing/queues.py, 3.8-3.13): a reader
 * waiting for that lock waits for work behind the one that holds it, not
 * for a lock kept by a stuck thread (the holder's own read is judged as
 * any read).  Known by its Python frames: SemLock's __enter__ or acquire,
 * under a get of queues.py. */
static const char *mp_queue_get(const struct lt_thread *t)
{
	size_t k = 0;
	while (k < t->n_rt_frames && k < 2 && mp_file(t->rt_frames[k].file, "synchronize.py"))
		k++;
	if (!k || k >= t->n_rt_frames)
		return NULL;
	const struct lt_rtframe *r = &t->rt_frames[k];
	size_t n = r->func ? strlen(r->func) : 0;
	if (!mp_file(r->file, "queues.py") || !r->func || (strcmp(r->func, "get") && (n < 4 || strcmp(r->func + n - 4, ".get"))))
		return NULL;
	return "multiprocessing's Queue.get or SimpleQueue.get, waiting for the queue's reader lock, which "
	       "another reader keeps while it waits for an item";
}

/* A Java thread waiting for references to process in the JDK's
 * ReferenceQueue (the Finalizer, the Common-Cleaner, a library's cleaner
 * thread): its innermost Java frames (Object.wait, or a Condition's await in
 * JDK 21+) are under ReferenceQueue.remove or .await. */
static const char *reference_queue_wait(const struct lt_thread *t)
{
	if (!t->rt_lang || strcmp(t->rt_lang, "java"))
		return NULL;
	for (size_t k = 0; k < t->n_rt_frames && k < LT_RT_IDLE_FRAMES; k++)
		if (lt_rt_idle_java_label(t->rt_frames[k].func))
			return REFQ_WHAT;
	return NULL;
}

/* A worker of a java.util.concurrent executor waiting for a task: parked
 * under ThreadPoolExecutor.getTask (its queue's take() or poll(), a
 * scheduled executor's too) or an idle ForkJoinPool worker's awaitWork,
 * among its innermost Java frames (JDK 17 parks a Condition's waiter
 * through ForkJoinPool.managedBlock: eight frames in).  It waits for
 * whoever submits next, not for one thread's signal. */
const char *lt_rt_idle_java_pool_label(const char *func)
{
	return java_pool_what(func, true);
}

static const char *java_pool_idle(const struct lt_thread *t)
{
	if (!t->rt_lang || strcmp(t->rt_lang, "java"))
		return NULL;
	for (size_t k = 0; k < t->n_rt_frames && k < LT_RT_IDLE_POOL_FRAMES; k++) {
		const char *f = t->rt_frames[k].func;
		/* a scheduled executor's or a Timer's thread on a timer waits
		 * for a task that is due then: it will run it, not idle */
		if (t->futex.timeout_ptr && f &&
		    (!strcmp(f, "java.util.concurrent.ScheduledThreadPoolExecutor$DelayedWorkQueue.take") ||
		     !strcmp(f, "java.util.TimerThread.mainLoop")))
			return NULL;
		const char *w = java_pool_what(f, false);
		if (w)
			return w;
	}
	return NULL;
}

/* The JDK's own reference-queue threads: the Finalizer, and a Cleaner's
 * thread (the Common-Cleaner), whose loops wait again when their timer
 * fires; not a program's own caller of ReferenceQueue.remove(timeout),
 * which may do anything then. */
static bool jdk_reference_thread(const struct lt_thread *t)
{
	for (size_t k = 0; k < t->n_rt_frames; k++)
		if (t->rt_frames[k].func && (!strcmp(t->rt_frames[k].func, "jdk.internal.ref.CleanerImpl.run") ||
					     !strcmp(t->rt_frames[k].func, "java.lang.ref.Finalizer$FinalizerThread.run")))
			return true;
	return false;
}

void lt_rt_idle_apply(struct lt_snapshot *s)
{
	for (size_t i = 0; i < s->n_threads; i++) {
		struct lt_thread *t = &s->threads[i];
		struct lt_futex *f = &t->futex;
		t->rt_service = service_thread(t);
		t->rt_refq = false;
		if (t->wait != LT_WAIT_FUTEX || !f->is_wait || f->rtlock || !f->lock_kind)
			continue;
		bool cond = lt_kind_condvar_like(f->lock_kind);
		if (!cond && strcmp(f->lock_kind, "semaphore"))
			continue;
		/* a condition variable: only one nobody holds and whose word
		 * is unchanged (the wait's own, as the verdicts judge it) */
		if (cond && (f->owner_kind != LT_OWNER_NONE || !f->word_ok || f->word != f->expected))
			continue;
		const char *w = idle_wrapper(t, cond);
		if (!w && cond)
			w = reference_queue_wait(t);
		/* the program's own threads, not the runtime's */
		bool own = w != NULL;
		if (!w && cond)
			w = java_pool_idle(t);
		if (!w && !cond)
			w = simplequeue_get(t);
		if (!w && !cond)
			w = mp_queue_get(t);
		if (!w)
			continue;
		char *st = lts_asprintf("%s%s%s " LT_RT_IDLE_STATE " (%s): idle, not a lock",
					f->lock_state ? f->lock_state : "", f->lock_state ? "; " : "",
					own ? "the runtime's own thread" : "the thread", w);
		free(f->lock_state);
		f->lock_state = st;
		t->rt_refq = w == REFQ_WHAT && jdk_reference_thread(t);
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
	return lt_kind_condvar_like(f->lock_kind) && f->cond_signal == 1;
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
