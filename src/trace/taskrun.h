/* SPDX-License-Identifier: MIT */
/*
 * When a traced thread runs: the one rule the call normaliser
 * (callnorm.c), the timeline (src/analysis/timeline.c) and the Perfetto
 * writer (src/output/perfetto.c) judge by.
 *
 *  - At attach, the header (its thread table, read from /proc) says which
 *    threads were off a cpu, and in which call: a thread whose
 *    /proc/PID/task/TID/syscall gave a call number was not on a cpu; its
 *    stat state says whether it slept there ('S', 'D'), was stopped ('T',
 *    't') or was runnable ('R': it had been woken, or preempted, and
 *    waited for a cpu only).  Asleep (or stopped) in a call at attach, its
 *    next switch-in, or else its first own event, ends that call.
 *  - Afterwards, an event shows that a thread is on a cpu when the thread
 *    wrote it itself (a call's entry, a recorded return, exit, execve,
 *    leaving a cpu) or issued it from its own context (a clone, a wake-up
 *    from a task rather than from an interrupt or the idle task).
 * Pure logic, no state.
 */
#ifndef LOCKTRACE_TASKRUN_H
#define LOCKTRACE_TASKRUN_H

#include <stdint.h>

#include "locktrace/event.h"
#include "locktrace/tracefile.h"

/* The scheduler state the header saw thread t in at attach: 'S' or 'D'
 * (asleep), 'T' or 't' (stopped), or 0: on a cpu or runnable, or not
 * known (its call was not read; a flight dump's header, which describes
 * the dump's end). */
char lt_run_attach_state(const struct lt_header *hdr, const struct lt_thread_info *t);

/* The system call thread t was asleep (or stopped) in at attach: its
 * number, or -1: in none, running or runnable, a target locktrace
 * launched (it sat in locktrace's own gate, not in a call of the
 * program), or a flight dump's header (it describes the dump's end).  A header without the state letter (0: not read) is taken at
 * the call number's word: not on a cpu. */
long lt_run_attach_call(const struct lt_header *hdr, const struct lt_thread_info *t);

/* A wake-up (LT_EV_WAKING) issued by a task from its own context: not
 * from an interrupt, not from the idle task.  Its waker runs. */
static inline int lt_run_woken_by_task(const struct lt_event *ev)
{
	return ev->h.kind == LT_EV_WAKING && ev->wake.waker_tid &&
	       !(ev->h.flags & (LT_F_WAKER_IRQ | LT_F_WAKER_IDLE));
}

/* The thread ev shows running at ev's time (see above), 0 if none: a
 * switch's previous task, a task wake-up's waker, a clone's caller, the
 * thread of a call's entry, of a recorded return (not one flagged
 * LT_F_RET_UNKNOWN, dated by something else), of an exit or an execve. */
/* (inline: call normalisation asks it for every event; kind is
 * ev->h.kind, a constant where the caller knows it) */
static inline uint32_t lt_run_actor_kind(const struct lt_event *ev, uint8_t kind)
{
	switch (kind) {
	case LT_EV_FUTEX_ENTER:
	case LT_EV_WAIT_ENTER:
	case LT_EV_IO_ENTER:
	case LT_EV_FLOCK_ENTER:
	case LT_EV_TASK_EXIT:
	case LT_EV_EXEC:
		return ev->h.tid;
	case LT_EV_SYS_EXIT:
		return ev->h.flags & LT_F_RET_UNKNOWN ? 0 : ev->h.tid;
	case LT_EV_SWITCH:
		return ev->sw.prev_tid;
	case LT_EV_WAKING: /* lt_run_woken_by_task */
		return ev->wake.waker_tid && !(ev->h.flags & (LT_F_WAKER_IRQ | LT_F_WAKER_IDLE))
			       ? ev->wake.waker_tid
			       : 0;
	case LT_EV_TASK_NEW:
		return ev->tnew.parent_tid;
	default:
		return 0;
	}
}

static inline uint32_t lt_run_actor(const struct lt_event *ev)
{
	return lt_run_actor_kind(ev, ev->h.kind);
}

/* Why an event of the target is missing from a trace that lost lost
 * events: with none lost, the kernel did not report it.  A kernel may hide
 * some tasks from tracing (the Firecracker VMs' 6.18 kernel hides those of
 * PID 1, the VM's agent: docs/trace-format.md): no switch away from one is
 * reported to anyone, and no BPF program runs while one is current, not
 * even for an interrupt, so the timer's or a device's wake-up of a traced
 * thread that came then is missing too. */
#define LT_UNSEEN_CAUSE(lost)                                                                   \
	((lost) ? "lost, or not reported by the kernel"                                          \
		: "nothing was lost: not reported by the kernel, which may hide some tasks from " \
		  "tracing, as a VM's agent; it reports no switch away from one, and no wake-up " \
		  "an interrupt issued while one ran, so such a switch's wake-up is missing too")

#endif
