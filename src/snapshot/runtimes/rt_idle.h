/* Runtime-internal idle threads (rt_idle.c). */
#ifndef LOCKTRACE_RT_IDLE_H
#define LOCKTRACE_RT_IDLE_H

#include "snapshot.h"

/* Waits of a runtime's own threads for work (a JVM's GC workers on
 * PosixSemaphore::wait, libuv's uv_sem_wait): no acquire, no owner. */
void lt_rt_idle_apply(struct lt_snapshot *s);

#endif
