/* SPDX-License-Identifier: MIT */
/*
 * The Perfetto writer: a timeline sink that streams a native Perfetto trace
 * (a sequence of TracePacket records, protos/perfetto/trace in the Perfetto
 * repository) to a FILE as the timeline model reports what happened.
 *
 *   p = lt_perfetto_new(f, &hdr);
 *   lt_perfetto_sink(p, &sink);
 *   tl = lt_timeline_new(&hdr, &sink, NULL);  ... feed, finish ...
 *   lt_perfetto_finish(p);  lt_perfetto_free(p);
 *
 * What the file holds: a ClockSnapshot and SystemInfo (kernel release,
 * version, machine), one process track and a ProcessTree with its command
 * line, one track per thread; the state of each thread asleep at attach
 * (GenericKernelTaskStateEvent) and scheduler switches and wake-ups as
 * full-form ftrace events (Perfetto builds its thread-state tracks from
 * them); one slice per blocking call with its arguments as interned debug
 * annotations; flows from each waking call to the wait it ended; a counter
 * track of waiters per contended futex; an instant wherever events were
 * lost.  Memory is bounded by threads, locks and cpus.
 */
#ifndef LOCKTRACE_PERFETTO_H
#define LOCKTRACE_PERFETTO_H

#include <stdint.h>
#include <stdio.h>
#include "timeline.h"
#include "locktrace/tracefile.h"

struct lt_perfetto;

/* Writes the first packets (clocks, system, process track) to f, which
 * stays the caller's.  NULL on out of memory. */
struct lt_perfetto *lt_perfetto_new(FILE *f, const struct lt_header *hdr);
/* Fills sink with the writer's callbacks (ctx = p). */
void lt_perfetto_sink(struct lt_perfetto *p, struct lt_timeline_sink *sink);
/* Writes what is buffered (per-cpu scheduler bundles).  Returns 0 or the
 * first error (negative errno) met while writing, e.g. -ENOSPC. */
int lt_perfetto_finish(struct lt_perfetto *p);
/* A slice NAME from BEGIN to END on a "lock held" track under the thread
 * whose timeline uid is THREAD_UID: a lock holder read from memory by a
 * snapshot (docs/locks.md).  Call before lt_perfetto_finish. */
/* A goroutine of a stored snapshot: its own track TRACK ("goroutine 19
 * (main.lockAB)") under process PID's, with an instant NAME at TS. */
void lt_perfetto_goroutine(struct lt_perfetto *p, uint32_t pid, int64_t goid, const char *track, uint64_t ts,
			   const char *name);
void lt_perfetto_held(struct lt_perfetto *p, uint32_t thread_uid, uint64_t begin, uint64_t end,
		      const char *name);
void lt_perfetto_free(struct lt_perfetto *p);
/* Lock tracks are named "futex 0xADDR", or "NAME (futex 0xADDR)" when the
 * lock namer names addr; thread tracks by the thread namer when it names
 * the tid (a runtime's thread name read by a snapshot), else by the comm. */
void lt_perfetto_set_namers(struct lt_perfetto *p, const struct lt_namers *names);
/* Bytes handed to f so far. */
/* The lock identity of the timeline (lt_timeline_lockid): names a lock of
 * another process or a shared object by what it is, and puts a lock of
 * another process under that process's track.  Optional. */
struct lt_lockid;
void lt_perfetto_set_lockid(struct lt_perfetto *p, const struct lt_lockid *ids);
/* The stacks of waits (STACKS sections, record --stacks): each wait slice
 * gets its callstack.  stacks must outlive p's writing (NULL: none). */
struct lt_stacktab;
void lt_perfetto_set_stacks(struct lt_perfetto *p, const struct lt_stacktab *stacks);
uint64_t lt_perfetto_bytes(const struct lt_perfetto *p);

/* sched_switch's prev_state as the kernel's trace event reports it, for a
 * kernel of the given release ("6.1.0-18-amd64"), from the raw task state
 * the collector records and whether prev was preempted.  Perfetto decodes
 * the reported form by kernel version; raw bits above 0x1ff (TASK_FREEZABLE
 * and friends) would read as an invalid state. */
uint64_t lt_report_prev_state(uint64_t raw_state, int preempt, const char *kernel_release);

#endif
