/* SPDX-License-Identifier: MIT */
/*
 * The stall rule's second witness: a runtime lock read from the process's
 * memory while recording (never ptrace, never a signal).
 *
 * Events alone cannot see a CPython process stuck behind its GIL: the
 * waiters' 5 ms timed waits end, and they pass the GIL's internal mutex to
 * each other to ask for it again, which looks like lock hand-offs.  The
 * runtime counts its real hand-offs (the GIL's switch_number), so the watch
 * reads the lock every half second through the lock models (lockmodel.h):
 * a lock held by one thread whose hand-off count has not moved for the
 * stall window while threads sleep waiting for it (the stall rule's own
 * view of the futex waits) is a stall.  A holder asleep in a call since T
 * has held the lock since T at least, so a process hung before recording
 * began is caught at the first reading.  A runtime that counts no
 * hand-offs but whose lock only its holder releases (OCaml's runtime lock:
 * lt_rtlock.kept_while_asleep) is judged by that alone: a holder asleep in
 * one call for the window while threads wait on the lock.  A process
 * without such a lock costs three looks at the start.
 */
#ifndef LOCKTRACE_RTWATCH_H
#define LOCKTRACE_RTWATCH_H

#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>

struct lt_stall;
struct lt_rtwatch;
struct lt_rtlock;

/* NULL on ENOMEM.  Nothing is read before the first check. */
struct lt_rtwatch *lt_rtwatch_new(pid_t pid, uint64_t window_ns);
void lt_rtwatch_free(struct lt_rtwatch *w);
/* Reads the runtime's locks (at most every half second) and says 1, with
 * a one-line reason in why, when one has been held without a hand-off for
 * the window while threads of the stall rule's table wait on it.  now is
 * BOOTTIME ns. */
int lt_rtwatch_check(struct lt_rtwatch *w, const struct lt_stall *s, uint64_t now, char *why,
		     size_t len);
/* The same, read now whatever the last reading's time (the events' rule is
 * about to stop recording: the runtime's own account first). */
int lt_rtwatch_check_now(struct lt_rtwatch *w, const struct lt_stall *s, uint64_t now, char *why,
			 size_t len);
/* A new window from now (after a trigger). */
void lt_rtwatch_rearm(struct lt_rtwatch *w, uint64_t now);

/* The decision for one reading, without the process (tests): LOCKS are
 * the runtime's locks as read at now; returns 1 and fills why when one of
 * them has been stuck for the window with waiters in S. */
int lt_rtwatch_feed(struct lt_rtwatch *w, const struct lt_rtlock *locks, size_t n,
		    const struct lt_stall *s, uint64_t now, char *why, size_t len);

#endif
