/* SPDX-License-Identifier: MIT */
/* The collector: attach to (or launch) a process and stream its events to a
 * trace file until Ctrl-C, SIGTERM, a duration, or the target's exit. */
#ifndef LOCKTRACE_RECORD_H
#define LOCKTRACE_RECORD_H

#include <limits.h>
#include <stdint.h>
#include <sys/types.h>

struct lt_record_opts {
	pid_t pid;           /* attach to this process (or a thread of it) */
	char *const *argv;   /* or launch this command (pid must be 0) */
	const char *output;  /* NULL: locktrace-COMM-PID.ltrace in the cwd */
	int force;           /* overwrite an existing output file */
	double duration_s;   /* 0: until stopped */
	uint64_t ring_bytes; /* BPF ring buffer size; 0: default */
	int status_line;     /* -1: when stderr is a terminal, 0 never, 1 always */
	int verbose;
	int quiet;           /* no summary */
	int no_snapshot;     /* skip the snapshot at attach (stacks, owners) */
};

struct lt_record_result {
	char path[PATH_MAX];
	pid_t tgid;
	uint64_t events, lost, bytes, threads;
	double seconds;
	int exit_status; /* launched target's wait status, else -1 */
	int stop_reason; /* enum lt_stop */
};

#define LT_DEFAULT_RING_BYTES (16ull << 20)

/* Returns 0 when a trace was written (even if the run ended on an error
 * after attaching: then res->stop_reason is LT_STOP_ERROR and a message was
 * printed), or -1 when nothing could be recorded (message printed). */
int lt_record(const struct lt_record_opts *o, struct lt_record_result *res);

#endif
