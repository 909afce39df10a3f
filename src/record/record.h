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
	const pid_t *pids;   /* or to these (-p A,B; -p A -p B): npids > 0 */
	size_t npids;
	char *const *argv;   /* or launch this command (no pid then) */
	int children;        /* --children: the given processes' descendants
			      * too, those there now and those forked later */
	int no_follow_forks; /* launch mode: not the processes it forks */
	const char *cgroup;  /* --cgroup PATH: every process of a cgroup v2
			      * (and those below it), filtered in the kernel */
	const char *output;  /* NULL: locktrace-COMM-PID.ltrace in the cwd */
	int force;           /* overwrite an existing output file */
	double duration_s;   /* 0: until stopped */
	uint64_t ring_bytes; /* BPF ring buffer size; 0: default */
	int status_line;     /* -1: when stderr is a terminal, 0 never, 1 always */
	int verbose;
	int quiet;           /* no progress, no summary: only what was found
			      * and the files written */
	const char *pid_file; /* write our pid there while recording (NULL: no) */
	int no_snapshot;     /* skip the snapshot at attach (stacks, owners) */
	int calls_blocking;  /* --calls blocking: only the calls threads sleep
			      * in, from the scheduler (no syscall tracepoints) */
	int stacks;          /* --stacks: the user stack of each wait (stacks_rec.c) */
	int stack_sample;    /* --stack-sample N: 1 in N waits under 1 ms too (0: none;
			      * -1: the default, 16) */
	/* flight recorder: keep the newest events in ring_mem bytes (per-cpu
	 * kernel buffers read only at a dump; ring_stream or stacks: encoded
	 * events in the collector's memory) and write a trace only on a
	 * trigger (stall, SIGUSR1, end) */
	uint64_t ring_mem;
	int ring_stream;
	double stall_s;      /* trigger when stalled this long (0: off) */
	int stall_rule;      /* enum lt_stall_rule */
	int keep_going;      /* re-arm after a trigger instead of stopping */
	/* called after each complete trace file (flight dumps, the final trace) */
	void (*on_trace)(void *ctx, const char *path);
	void *on_trace_ctx;
	/* checks the outputs on_trace will write for a trace path (the Perfetto
	 * file beside it) before anything is attached and before each flight
	 * dump: 0, or -errno with a message in err; then -o is refused and a
	 * default or dump name moves on to the next free one.  May be NULL. */
	int (*check_out)(void *ctx, const char *path, char *err, size_t errlen);
};

struct lt_record_result {
	char path[PATH_MAX];
	pid_t tgid;
	uint64_t events, lost, bytes, threads;
	uint64_t processes; /* traced processes seen (at attach and later) */
	double seconds;
	int exit_status; /* launched target's wait status, else -1 */
	int exec_errno;  /* the launched command could not be run: errno */
	int stop_reason; /* enum lt_stop */
	int triggers;    /* stall or SIGUSR1 triggers handled */
	int dumps;       /* trace files written by the flight recorder */
	char err[PATH_MAX + 256]; /* why nothing was recorded (lt_record -1), or "" */
};

#define LT_DEFAULT_RING_BYTES (16ull << 20)
#define LT_FLIGHT_CHUNK (64u << 10)      /* encoded events per flight chunk */
#define LT_FLIGHT_MIN (1ull << 20)       /* smallest --ring */

/* Returns 0 when a trace was written (even if the run ended on an error
 * after attaching: then res->stop_reason is LT_STOP_ERROR and a message was
 * printed, as it happened), or -1 when nothing could be recorded (the
 * reason in res->err for the caller to say, "" when a stop request ended
 * the start, which was said; no file is left behind; res->exec_errno says
 * when the launched command could not be run).  Progress, the summary and
 * what goes wrong while recording goes on (a flight dump that fails) are
 * printed on stderr.  SIGINT, SIGTERM and SIGUSR1 are held from the start and acted
 * on once recording runs; one that asks to stop before then ends the run
 * with nothing recorded.  A launched command still running when recording
 * ends gets SIGTERM; lt_record waits for it (res->exit_status). */
int lt_record(const struct lt_record_opts *o, struct lt_record_result *res);

#endif
