/* Runtime-internal idle threads (rt_idle.c). */
#ifndef LOCKTRACE_RT_IDLE_H
#define LOCKTRACE_RT_IDLE_H

#include <stdbool.h>

#include "snapshot.h"

/* Waits of a runtime's own threads for work (a JVM's GC workers on
 * PosixSemaphore::wait, libuv's uv_sem_wait): no acquire, no owner. */
void lt_rt_idle_apply(struct lt_snapshot *s);

/* What such a wait's lock state says (the snapshot's text and JSON,
 * stored in traces): the report knows the wait by it. */
#define LT_RT_IDLE_STATE "waits for work here"

/* Is t's wait idle, as the verdicts judge it (verdicts.c: a futex wait with
 * no owner whose word is unchanged is no lock wait)?  Either a wait
 * lt_rt_idle_apply made idle, or a glibc condition variable with no signal
 * pending, outside a lock-acquire function and a runtime lock: a pool
 * parked for work (libuv's workers in uv_cond_wait).  Needs the lock
 * models applied (lt_snapshot_take does). */
bool lt_rt_idle_wait(const struct lt_thread *t);

/* Does thread O, holding a lock that others wait for a notify() on (a
 * Python Condition's RLock, a Java monitor or lock), keep it: asleep in a
 * system call for LT_RT_KEEPS_S or more by the kernel's clock, and not
 * waiting for a runtime lock (a CPython thread inside `with cond:` waiting
 * for the GIL, to notify)?  A thread that runs, or sleeps for a moment (a
 * write, a safepoint), may hold it only to notify. */
#define LT_RT_KEEPS_S 0.2
bool lt_rt_keeps(const struct lt_thread *o);

/* How many of a stack's innermost frames (native ones; Java frames
 * apart) are looked at for a runtime's own idle wait. */
#define LT_RT_IDLE_FRAMES 6

/* The same facts for `report --profile`, by one frame of a recorded stack:
 * the label to charge the wait to when the native frame FUNC in MODULE,
 * which called CFUNC in CMODULE (NULL for the innermost), is a runtime's
 * own idle wait (a JVM's compiler threads, GC workers, VM thread, service
 * threads, Reference Handler; libuv's uv_sem_wait; the java launcher's
 * join of the main thread), else NULL; by a Java frame FUNC
 * (ReferenceQueue.remove), likewise.  The labels are static: the same
 * pointer for the same wait, which lt_rt_idle_is_label knows. */
const char *lt_rt_idle_frame_label(const char *func, const char *module, const char *cfunc,
				   const char *cmodule);
const char *lt_rt_idle_java_label(const char *func);
/* By a Java frame FUNC among a stack's LT_RT_IDLE_POOL_FRAMES innermost
 * Java frames: an executor's worker waiting for a task (a program's
 * thread, not the runtime's: "an idle wait: ..."), else NULL. */
#define LT_RT_IDLE_POOL_FRAMES 12
const char *lt_rt_idle_java_pool_label(const char *func);
bool lt_rt_idle_is_label(const char *s);

/* Is FUNC a frame of Java's Thread.sleep(): the native JVM_Sleep, or the
 * JDK's own java.lang.Thread.sleep (JDK 17's native method), sleep0,
 * sleepNanos, sleepNanos0 (JDK 21+)?  A timed sleep on a futex word of
 * the thread's own, not a lock. */
bool lt_rt_java_sleep_func(const char *func);

#endif
