/* SPDX-License-Identifier: MIT */
/*
 * The stall rule's third witness: an application's own lock wait
 * (appwait.h) that the events cannot tell from I/O.
 *
 * A PostgreSQL backend waiting for a row lock sleeps in epoll_wait on its
 * latch: by the events an idle server, which the stall rule never counts.
 * So when a thread of the stall table has sat in one I/O wait (poll,
 * select, epoll, a read) for the whole window, the watch looks at its
 * process once: a snapshot (stacks unwound, no file:line, no kernel
 * stacks) classifies every thread of it with the table of appwait.h, and
 * the result is kept for as long as each thread stays in that same call.
 * A thread in an application lock wait past the window is a stall.  Cost:
 * one snapshot of a process that runs a program of the table
 * (lt_appwait_may_run) per long I/O wait of one of its threads, at most
 * one every half second; an idle server is looked at once per long wait,
 * not at every check; other processes cost a readlink.
 */
#ifndef LOCKTRACE_APPWATCH_H
#define LOCKTRACE_APPWATCH_H

#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>

struct lt_stall;
struct lt_snapshot;
struct lt_appwatch;

/* A snapshot (lt_snapshot_take, with lt_appwait_apply done) of the process
 * of thread TID: 0 and *out; < 0 when none could be taken; > 0 when the
 * process is not worth one (no program of the table runs it): such a
 * cheap answer does not count against the look rate. */
typedef int (*lt_appwatch_look_fn)(void *arg, uint32_t tid, struct lt_snapshot **out);

/* NULL on ENOMEM. */
struct lt_appwatch *lt_appwatch_new(uint64_t window_ns);
void lt_appwatch_free(struct lt_appwatch *w);
/* 1, with a one-line reason in why, when a thread of S's table has been in
 * an application lock wait for the window at now (BOOTTIME ns); looks at
 * (at most) one process through LOOK to learn it. */
int lt_appwatch_check(struct lt_appwatch *w, const struct lt_stall *s, uint64_t now,
		      lt_appwatch_look_fn look, void *arg, char *why, size_t len);
/* How many snapshots the watch has taken (for tests and the summary). */
uint64_t lt_appwatch_looks(const struct lt_appwatch *w);

#endif
