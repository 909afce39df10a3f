/* SPDX-License-Identifier: MIT */
/*
 * Stall detection from the recorded events alone (no help from the target).
 * Fed every event as it is collected; asked periodically whether the
 * process has stalled.  Rules (docs/flight-recorder.md):
 *
 *  locks (default): at least one thread has been waiting in a futex wait
 *    for SECONDS, and for SECONDS no futex wait returned successfully, no
 *    futex wake woke anyone, and no blocking call (futex, select/poll/epoll,
 *    socket I/O) returned successfully.  Threads sitting in I/O waits with
 *    nothing happening is an idle server, not a stall: without a futex
 *    waiter this rule never fires.  A futex wait whose expected value is
 *    the tid of a thread of the process is pthread_join() (glibc sleeps on
 *    the joined thread's tid word) and does not count as a lock wait.
 *    A thread in a file-lock call that can wait (flock without LOCK_NB,
 *    fcntl F_SETLKW / F_OFD_SETLKW) counts as a lock waiter, and its
 *    successful return as a lock hand-off.
 *    A futex wait the recorder's look at the process (a snapshot, taken
 *    once per wait when this rule would fire) judged idle is no lock wait:
 *    an idle pool parked on a condition variable with no signal pending,
 *    or a runtime's own thread waiting for work (rt_idle.h), as the
 *    snapshot judges them.
 *  progress: at least one thread has been blocked (any traced call) for
 *    SECONDS and no blocking call returned successfully for SECONDS.  For
 *    servers that always have traffic; an idle server trips it.
 *
 * A wait ended by its timer is a timeout, not progress, in both --calls
 * modes.  With --calls all the return value says so (-ETIMEDOUT, a select
 * returning 0).  With --calls blocking returns carry no value, so the
 * wake-up that ended the sleep decides: a futex wait succeeded only if a
 * thread woke it (one woken from interrupt context was woken by its timer,
 * or by a signal from one); a select/poll/epoll or socket call succeeded
 * if a thread woke it, or an interrupt did before its timeout had run out
 * (data arriving from a device).  A call no wake-up was seen for did not
 * succeed.
 */
#ifndef LOCKTRACE_STALL_H
#define LOCKTRACE_STALL_H

#include <stddef.h>
#include <stdint.h>
#include "locktrace/event.h"
#include "u64map.h"

enum lt_stall_rule { LT_STALL_LOCKS = 0, LT_STALL_PROGRESS = 1 };

enum lt_tstate { LT_TS_NONE = 0, LT_TS_FUTEX_WAIT, LT_TS_FUTEX_OTHER, LT_TS_IOWAIT };

enum lt_twoken { LT_WOKEN_NONE = 0, LT_WOKEN_BY_TASK, LT_WOKEN_BY_IRQ };

struct lt_stall_thread {
	uint32_t tid;
	uint8_t state;      /* enum lt_tstate */
	uint8_t woken;      /* enum lt_twoken: the first wake-up in the open call */
	int64_t timeout;    /* select/poll/epoll timeout (ns), -1 none or unknown */
	uint32_t futex_op;  /* of the open futex call */
	uint64_t since;     /* BOOTTIME ns the open call began */
	uint64_t woken_at;  /* BOOTTIME ns of that first wake-up */
	uint64_t uaddr;     /* futex address of the open wait */
	struct lt_flock_enter flk; /* the open file-lock call, if recorded */
	uint8_t judged;     /* the open futex wait was looked at (lt_stall_judge) */
	uint8_t idle;       /* and it is an idle wait for work, not a lock wait */
	uint64_t last_uaddr;   /* the futex of its latest futex wait, open or not */
	uint64_t last_wait_at; /* BOOTTIME ns that wait began */
	/* A futex wait that ran out of time: a new wait on the same futex
	 * before the thread's next successful wait or call goes on with it
	 * (its since and judgement), as a lock's retry loop does (HotSpot
	 * re-parks a monitor's contender every second at most). */
	uint64_t retry_uaddr;  /* 0: none */
	uint64_t retry_since;
	uint8_t retry_judged, retry_idle;
	/* A look at this time (BOOTTIME ns) found the thread out of its futex
	 * wait (between two tries of a retried wait, or just woken): left
	 * unjudged and not counted at that time; looked at again later. */
	uint64_t unseen_at;
};

struct lt_stall {
	int rule;
	uint64_t window_ns;
	uint64_t last_progress;      /* a blocking call returned successfully */
	uint64_t last_lock_progress; /* a futex wait returned 0 / a wake woke someone */
	uint64_t progress_events;
	uint64_t floor;              /* start, or the last rearm: progress loaded
				      * (lt_stall_load) counts from no earlier */
	uint64_t since_floor;        /* 0, or the last rearm: the same for the
				      * threads' calls */
	struct lt_u64map threads;    /* tid -> struct lt_stall_thread (ours) */
};

/* 0 or -ENOMEM.  start_ts: when observation began (BOOTTIME ns). */
int lt_stall_init(struct lt_stall *s, int rule, uint64_t window_ns, uint64_t start_ts);
void lt_stall_free(struct lt_stall *s);
/* A thread already blocked when observation began (from /proc at attach);
 * sc_nr < 0 only makes the thread known.  Make every thread known before
 * seeding states, so that a join on any of them is recognized. */
void lt_stall_seed(struct lt_stall *s, uint32_t tid, int64_t sc_nr, const uint64_t args[6],
		   uint64_t since);
void lt_stall_event(struct lt_stall *s, const struct lt_event *ev);
struct lt_fb_thread;
/* The flight recorder's state kept by the BPF programs
 * (include/locktrace/flightbuf.h) instead of events: every thread's open
 * call is replaced by those of t[0..n) (key tid[i]), and the progress
 * times by these (nothing counts from before the start or the last
 * rearm).  Threads stay known (for joins) once seen.  0 or -ENOMEM. */
int lt_stall_load(struct lt_stall *s, const uint32_t *tid, const struct lt_fb_thread *t, size_t n,
		  uint64_t last_progress, uint64_t last_lock_progress, uint64_t progress_events);
/* 1 if stalled at now (BOOTTIME ns), with a one-line reason in why. */
int lt_stall_check(const struct lt_stall *s, uint64_t now, char *why, size_t len);
/* Threads in a futex wait for the window at now that no look has judged
 * yet: up to max tids into tids; how many there are. */
size_t lt_stall_unjudged(const struct lt_stall *s, uint64_t now, uint32_t *tids, size_t max);
/* A look at tid's process at now (a snapshot that worked) did not find
 * tid in a futex wait: its wait is left unjudged, and not counted by a
 * check at that same now (the events say it waits; the look says it does
 * not at this moment, so no verdict either way). */
void lt_stall_unseen(struct lt_stall *s, uint32_t tid, uint64_t now);
/* A look at the process (a snapshot) judged tid's open futex wait on
 * uaddr: idle (a pool parked on a condition variable with no signal
 * pending, a runtime's own thread waiting for work: rt_idle.h) or not.
 * An idle wait is no lock wait for the locks rule; the judgement holds
 * until the thread's next call. */
void lt_stall_judge(struct lt_stall *s, uint32_t tid, uint64_t uaddr, int idle);
/* (A look that saw tid in a futex wait on another address than the open
 * wait's judges nothing: the thread is not in the wait the events say.
 * uaddr 0: a wait that could not be looked at, judged a lock wait.) */
/* Starts a new observation window at now (after a trigger, to re-arm). */
void lt_stall_rearm(struct lt_stall *s, uint64_t now);
/* The thread's open call as the events left it; NULL if unknown. */
const struct lt_stall_thread *lt_stall_thread_of(const struct lt_stall *s, uint32_t tid);
/* The known threads one by one, in no order: *pos starts at 0; NULL after
 * the last. */
const struct lt_stall_thread *lt_stall_next(const struct lt_stall *s, size_t *pos);
/* How many threads sleep now in a futex wait on a word in [lo, hi). */
size_t lt_stall_waiters_in(const struct lt_stall *s, uint64_t lo, uint64_t hi);
/* Threads other than EXCEPT asleep in a futex wait in [lo, hi) now, or
 * whose latest futex wait there began at SINCE or later: the waiters of a
 * lock that has not changed hands since SINCE, including those between two
 * timed waits (runnable, or queued for a cpu) at this instant. */
size_t lt_stall_waited_in(const struct lt_stall *s, uint64_t lo, uint64_t hi, uint64_t since,
			  uint32_t except);
/* "locks" / "progress" -> rule; -1 if unknown. */
int lt_stall_rule_parse(const char *name);
const char *lt_stall_rule_name(int rule);

#endif
