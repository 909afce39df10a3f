/* Runtime-internal idle threads (rt_idle.c). */
#ifndef LOCKTRACE_RT_IDLE_H
#define LOCKTRACE_RT_IDLE_H

#include "snapshot.h"

/* Waits of a runtime's own threads for work (a JVM's GC workers on
 * PosixSemaphore::wait, libuv's uv_sem_wait): no acquire, no owner. */
void lt_rt_idle_apply(struct lt_snapshot *s);

/* What such a wait's lock state says (the snapshot's text and JSON,
 * stored in traces): the report knows the wait by it. */
#define LT_RT_IDLE_STATE "the runtime's own thread waits for work here"

#endif
