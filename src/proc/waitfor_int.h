/* The wait-for edges' hooks into the verdict rules (waitfor_verdicts.c,
 * called by verdicts.c).  Internal. */
#ifndef LOCKTRACE_WAITFOR_INT_H
#define LOCKTRACE_WAITFOR_INT_H

#include <stdbool.h>
#include <stddef.h>

#include "snapshot.h"
#include "waitfor.h"

/* Index of the thread that alone can end T's (non-futex) wait, -1 none:
 * a process's main thread stands for the process. */
long lts_wf_next(const struct lt_snapshot *s, const struct lt_thread *t);
/* A thread stopped (by a signal or a tracer) in a read, a write or a poll
 * (not a file lock's): what it waited for may have come since (a stopped
 * thread is woken, and stays stopped), so its call is no evidence of a
 * wait: no cycle or chain goes through it; the STOPPED verdict says it.  A
 * lock's owner, by contrast, still holds it. */
bool lts_wf_stopped_io(const struct lt_thread *t);
/* The first timer of T's file-lock wait whose signal may interrupt the
 * lock call (a POSIX timer of its process, an alarm possibly armed:
 * util-linux flock -w), NULL none; how many into *N (if given).  No party
 * of the wait: what may end it first, which its verdict says. */
const struct lt_wf_edge *lts_wf_lock_timer(const struct lt_thread *t, size_t *n);
/* Those timers in words: "the signal of POSIX timer 0 (...), if it is
 * armed, would interrupt its flock() (whether ... are not known)"
 * (malloc'd), NULL when T has none. */
char *lts_wf_lock_timer_words(const struct lt_thread *t);
/* T's edge names a process, not one thread. */
bool lts_wf_process_edge(const struct lt_snapshot *s, const struct lt_thread *t);
/* The cycle CYC (n indexes, next[] the cycle search's edges) holds: each
 * process an edge enters has all its threads asleep and leading into it. */
bool lts_wf_cycle_sound(const struct lt_snapshot *s, const long *next, const long *cyc, size_t n);
/* The same, but the links out of the threads marked in SKIP (indexes) are
 * not checked (the caller judges them: a link whose far end is inferred). */
bool lts_wf_cycle_sound_but(const struct lt_snapshot *s, const long *next, const long *cyc, size_t n,
			    const unsigned char *skip);
/* The one process, not T's own, any of whose threads can end T's
 * (non-futex) wait, when no thread of it is named: a socket's peer, a
 * pipe's other end; 0 otherwise. */
pid_t lts_wf_party_process(const struct lt_snapshot *s, const struct lt_thread *t);
/* T reads a pipe whose only write end its own process holds, and every
 * thread of that process is blocked (none running, on a timer or in an
 * event wait): only a thread of its own that waits could write it. */
bool lts_wf_own_pipe_stuck(const struct lt_thread *t);
/* One evidence line for T's step in a chain or cycle. */
void lts_wf_edge_evidence(struct lt_verdict *v, const struct lt_snapshot *s, const struct lt_thread *t);
/* File-lock / application-lock waits and stuck chains of threads outside
 * a cycle. */
void lts_wf_verdicts(struct lt_snapshot *s, const bool *in_cycle);
/* After every other rule: a thread in no verdict whose every wait leads
 * to a process (snapshotted with it: snapshot_follow) with threads in a
 * verdict of a waiting kind (a lock wait, a deadlock, a chain, stopped):
 * a wait chain into that verdict, said as an inference when only some of
 * the party's threads are in one (which would answer is not known). */
void lts_wf_into_verdicts(struct lt_snapshot *s, const bool *in_cycle);
/* IDLE: why each waiting thread's wait is not stuck. */
void lts_wf_idle_evidence(struct lt_verdict *v, const struct lt_snapshot *s);
/* What the asleep threads' waits end by, for the IDLE headline: "2 waits on a
 * timer; 1 wait on process 812, asleep on a timer" (malloc'd), or NULL when no
 * thread has wait-for edges.  *unsure (if given, and set only then): what
 * ends some of them is not known (an eventfd, a signal, a FIFO's opener, a
 * party unread).  *some_blocked (likewise): a party is blocked itself (the
 * threads have other waits, which can end). */
char *lts_wf_idle_because(const struct lt_snapshot *s, bool *unsure, bool *some_blocked);
/* Threads asleep on a timer beside a file another process holds locked
 * (their timer edge names its holders: waitfor.c, polled_edge); the
 * holders' pids, each once, into HOLDERS (at most MAX; their count in *NH). */
size_t lts_wf_polled_locks(const struct lt_snapshot *s, pid_t *holders, size_t max, size_t *nh);

/* "wait_for" of a thread in the snapshot JSON, and back (waitfor_json.c). */
struct jw;
struct rp_json;
void lts_wf_json(struct jw *w, const struct lt_thread *t);
void lts_wf_from_json(struct lt_thread *t, const struct rp_json *j);

#endif
