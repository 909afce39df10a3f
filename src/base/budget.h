// SPDX-License-Identifier: MIT
/* What one snapshot may spend on a process, and what it stopped short of.
 *
 * Everything read from a target (threads, runtime lists, line tables) is
 * bounded: by a time budget (an absolute CLOCK_MONOTONIC deadline), by an
 * interruption (a counter that changes, as Ctrl-C's), and by caps on
 * counts.  The state is per thread (a recording takes its start snapshot
 * on another thread), set by lt_snapshot_take around its work.  Readers
 * call lt_budget_over() in their loops and stop when it says so; a cap
 * that cuts a list is said with lt_budget_note().  lt_snapshot_take turns
 * what was cut into a note and marks each verdict's evidence incomplete. */
#ifndef LOCKTRACE_BUDGET_H
#define LOCKTRACE_BUDGET_H

#include <signal.h>
#include <stdbool.h>
#include <stdint.h>

/* Starts a budget on this thread: deadline_ns (CLOCK_MONOTONIC, 0 = none),
 * stop (NULL = none: interrupted once *stop differs from its value now). */
void lt_budget_begin(int64_t deadline_ns, const volatile sig_atomic_t *stop);
/* A deadline for a snapshot of process PID starting now: BASE_MS plus
 * 1 ms per thread the process has, at most MAX_MS (CLOCK_MONOTONIC ns). */
int64_t lt_budget_deadline(int pid, int base_ms, int max_ms);
/* Ends it; the notes are forgotten. */
void lt_budget_end(void);
/* true once the deadline passed or the stop counter changed (said once in
 * the notes as "time budget of X s ran out" / "interrupted"). */
bool lt_budget_over(void);
/* Records why something read from the target was cut short ("stopped
 * reading HotSpot threads after 65536: ..."): at most a few distinct
 * notes are kept. */
void lt_budget_note(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
/* The notes recorded since lt_budget_begin: *n of them (valid until end). */
const char *const *lt_budget_notes(size_t *n);

#endif
