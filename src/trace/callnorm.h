/* SPDX-License-Identifier: MIT */
/*
 * --calls blocking: the kernel side loads no syscall programs and writes a
 * call only when a thread goes to sleep in it (an entry flagged
 * LT_F_AT_SLEEP, from the switch).  This turns that stream into the one a
 * full recording has, so that the trace file, the timeline, the report and
 * the stall detector keep seeing a call as an entry and a return:
 *  - the return of a call is the moment its thread runs again (the switch
 *    that puts it back on a cpu): a SYS_EXIT flagged LT_F_RET_UNKNOWN;
 *  - a thread that was asleep when tracing began and runs for the first
 *    time gets a return of an unknown call (nr LT_NR_UNKNOWN, flagged
 *    LT_F_BEGAN_BEFORE too), which ends the call the snapshot saw it in;
 *  - a call that wakes threads of the target (an entry flagged LT_F_AT_WAKE
 *    before each of its wake-ups) is written once, and returns at its last
 *    wake-up (written when its thread does something else);
 *  - a thread seen acting (taskrun.h: a call, a wake-up it issues from a
 *    task, leaving a cpu, ...) while it is still asleep in a call as far
 *    as the stream says has run again without its switch being seen: the
 *    call returns at that event.
 *    Kernels do not report every switch: here, none whose previous task
 *    is a thread of PID 1 (a VM's agent), whichever task comes next; nor,
 *    to BPF, a wake-up an interrupt issues while such a thread runs (see
 *    LT_UNSEEN_CAUSE, taskrun.h).
 * Pure logic, testable from synthetic events.
 */
#ifndef LOCKTRACE_CALLNORM_H
#define LOCKTRACE_CALLNORM_H

#include "locktrace/event.h"

#define LT_NR_UNKNOWN 0xffff /* SYS_EXIT.nr: the call is not known */

struct lt_u64map;

struct lt_callnorm {
	uint32_t tgid;             /* the target: switches name other tasks too */
	/* several processes: is tgid one of them (besides tgid)?  NULL: no */
	int (*is_traced)(void *ctx, uint32_t tgid);
	void *traced_ctx;
	struct lt_u64map *threads; /* tid -> state (see callnorm.c) */
	struct lt_u64map *wakers;  /* tid -> a call it wakes others from */
	uint64_t synthesized;      /* returns added */
	/* of those, returns placed at the thread's first own event because
	 * the switch that ran it again was not in the stream (lost, or not
	 * reported by the kernel) */
	uint64_t unseen_runs;
	uint32_t sleep_switch;     /* internal: see lt_callnorm_feed */
	uint64_t seeded_at;        /* see lt_callnorm_asleep_at_attach */
	int oom;                   /* a thread could not be tracked */
	void *spare;               /* internal: waking calls ended, for reuse */
};

typedef void (*lt_callnorm_out)(void *ctx, const struct lt_event *ev);

/* 0 or -ENOMEM. */
int lt_callnorm_init(struct lt_callnorm *n, uint32_t tgid);
void lt_callnorm_free(struct lt_callnorm *n);
/* The header saw thread tid asleep in a call when tracing began (the
 * header was complete at time now, BOOTTIME ns): if its switch-in is
 * missing, its first own event after now ends that call (a return flagged
 * LT_F_BEGAN_BEFORE), as the switch-in would have.  Events stamped before
 * now may come from before it fell asleep: they end nothing.  0 or
 * -ENOMEM. */
int lt_callnorm_asleep_at_attach(struct lt_callnorm *n, uint32_t tid, uint64_t now);
/* Passes ev on to out (it is never dropped), preceded or followed by the
 * events it implies. */
void lt_callnorm_feed(struct lt_callnorm *n, const struct lt_event *ev, lt_callnorm_out out,
		      void *ctx);
/* At the end of a recording: the returns of the calls still waking. */
void lt_callnorm_flush(struct lt_callnorm *n, lt_callnorm_out out, void *ctx);

#endif
