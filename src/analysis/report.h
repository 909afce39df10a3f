/* SPDX-License-Identifier: MIT */
/*
 * `locktrace report`: the analysis a person reads first (docs/report.md).
 *
 * A sink of the timeline model (timeline.h) plus the trace's header, its
 * SNAPSHOT sections (JSON, docs/snapshot.md) and its STATS, turned into
 * tables (per lock, per thread, wake edges) and findings with evidence and
 * timestamps (deadlocks, lost wake-ups, lock holders blocked in I/O or
 * preempted, convoys, stalls).  Pure: no I/O except the printers and
 * lt_report_file_opts (src/output/report_file.c).  Memory is bounded by threads and locks, never by the
 * trace's length (wait times go to log-scale histograms).
 *
 *   r = lt_report_new(&hdr, NULL);
 *   for each item: lt_report_event(r, &ev) / lt_report_snapshot(r, json, len)
 *                  / lt_report_symbols(r, data, len)
 *   lt_report_stats(r, &stats); lt_report_reader_end(r, clean, why, offset);
 *   lt_report_finish(r);
 *   lt_report_print_text(stdout, r);   (or lt_report_print_json)
 *   lt_report_free(r);
 */
#ifndef LOCKTRACE_REPORT_H
#define LOCKTRACE_REPORT_H

#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include "locktrace/tracefile.h"

struct lt_report_opts {
	unsigned last_n;     /* calls kept per thread ("what led up to it"); 0: 8 */
	double stall_s;      /* a wait at least this long at the end is stuck; 0: 1.0 */
	unsigned convoy_min; /* waiters queued at once for a convoy; 0: 4 */
	double incident_ms;  /* a holder off-cpu this long while others wait is
				reported; 0: 5 ms */
	unsigned rows;       /* text: rows per table; 0: 20; UINT32_MAX: all */
};

#define LT_REPORT_LAST_N 8
#define LT_REPORT_STALL_S 1.0
#define LT_REPORT_CONVOY_MIN 4
#define LT_REPORT_INCIDENT_MS 5.0
#define LT_REPORT_ROWS 20

enum lt_finding_kind {
	LT_FIND_DEADLOCK = 1,   /* a cycle of threads each waiting for a lock the next holds */
	LT_FIND_LOST_WAKEUP,    /* waiters that nobody will wake (rule says which evidence) */
	LT_FIND_HOLDER_BLOCKED, /* waiters stuck behind a holder that is in I/O, asleep,
				   preempted, running or gone */
	LT_FIND_STALL,          /* nothing made progress at the end of the trace */
	LT_FIND_HOLDER_OFFCPU,  /* during the trace: a holder preempted or blocked
				   while others waited for it */
	LT_FIND_CONVOY,         /* a queue of waiters the lock was handed through */
	LT_FIND_STALLED_WAITERS,/* waiters nobody woke, and no holder known */
	LT_FIND_SNAPSHOT,       /* a snapshot verdict none of the above covers */
	LT_FIND_FILE_LOCK,      /* a thread waited (or still waits) for a kernel file
				   lock: flock(2), fcntl(2) F_SETLKW / F_OFD_SETLKW */
};
const char *lt_finding_kind_name(enum lt_finding_kind k);

struct lt_report_finding {
	enum lt_finding_kind kind;
	const char *rule;    /* static: which rule fired, e.g. "woke_nobody" */
	char *summary;       /* one line */
	char **evidence;     /* one fact per line, with timestamps */
	size_t n_evidence;
	uint64_t since;      /* boottime ns the situation began (0 unknown) */
	uint64_t duration_ns;/* how long it lasted, or has lasted at the end */
	uint32_t *tids;      /* threads involved (deadlock: cycle order) */
	size_t n_tids;
	uint64_t *locks;     /* futex addresses involved (deadlock: parallel to tids) */
	size_t n_locks;
	uint32_t holder;     /* the holder / releaser / owner named, 0 none */
	int fd;              /* holder_blocked in fd I/O: the fd, else -1 */
	unsigned via;        /* holder_blocked: the locks between its waiters'
				and the holder (0: the holder holds theirs) */
};

/* One blocking call of a thread, as kept for "the last calls". */
struct lt_report_call {
	uint64_t begin, end;   /* end: the return, or the trace's end if still open */
	uint64_t blocked_before_ns; /* open when the trace began: blocked this long before */
	uint32_t flags;        /* LT_SPAN_* (timeline.h) */
	uint16_t nr;           /* syscall number */
	uint8_t kind;          /* LT_EV_FUTEX_ENTER, LT_EV_WAIT_ENTER, LT_EV_IO_ENTER,
				  LT_EV_FLOCK_ENTER */
	uint32_t op, val;      /* futex */
	uint64_t addr;         /* futex address */
	int32_t fd;            /* I/O fd; select/poll: first fd (-1 none) */
	uint32_t nfds;
	uint64_t count;        /* I/O bytes asked */
	int64_t timeout_ns;    /* futex / select / poll timeout, -1 none */
	int64_t ret;           /* LT_SPAN_HAS_RESULT */
	uint32_t woken_by;     /* who ended it (first waker), 0 */
	uint32_t nwoke;        /* threads this call woke */
	uint8_t socket;        /* I/O on an fd known to be a socket */
	uint8_t pipe;          /* I/O on a pipe or FIFO (recorded calls are
				  flagged; the header's are on any fd) */
	struct lt_flock_enter flk; /* a file-lock call: its arguments */
};

enum lt_report_tstate {
	LT_RTS_UNKNOWN = 0,
	LT_RTS_RUNNING,
	LT_RTS_RUNNABLE,  /* preempted or woken, waiting for a cpu */
	LT_RTS_IN_CALL,   /* in a traced blocking call (end_call) */
	LT_RTS_SLEEPING,  /* asleep outside the traced calls (nanosleep, pause, ...) */
	LT_RTS_EXITED,
};
const char *lt_report_tstate_name(enum lt_report_tstate s);

struct lt_report_thread {
	uint32_t tid;
	uint32_t tgid;                 /* its process */
	char name[LT_COMM_LEN];
	int exited;
	uint64_t first_ts, last_ts; /* observed from / to (exit or trace end) */
	/* where its time went; together they cover [first_ts, last_ts] once its
	 * state is known (unknown_ns before that) */
	uint64_t running_ns, runnable_ns, futex_ns, poll_ns, io_ns, other_ns, unknown_ns;
	uint64_t pipe_ns;              /* in reads and writes of pipes and FIFOs
					  (io_ns: of sockets; the text table
					  adds them up as "fd-io") */
	uint64_t filelock_ns;          /* in file-lock calls (the text table counts
					  it under "other") */
	/* operations */
	uint64_t futex_waits, futex_wakes, futex_other, polls, io_reads, io_writes;
	uint64_t pipe_reads, pipe_writes;
	uint64_t filelock_calls;       /* flock / fcntl lock calls */
	/* the longest file-lock wait that ended during the trace */
	struct lt_report_call filelock_max;
	int has_filelock_max;
	uint64_t wakeups, switches, preempted;
	/* at the end of the trace */
	enum lt_report_tstate end_state;
	uint64_t end_since;            /* 0 unknown */
	int has_end_call;
	struct lt_report_call end_call;/* LT_RTS_IN_CALL */
	int asleep;                    /* switched out asleep at the end */
	char end_syscall[32];          /* the snapshot's syscall for it, if valid at the end */
	char *snap_detail;             /* the snapshot's line for it, if valid at the end */
	char *snap_where;              /* innermost frame of the program's own code,
					  or of its runtime's stack (Python) */
	char *rt_name;                 /* the runtime's name for it (a snapshot's
					  runtime.name: threading's, ...), NULL */
	/* the last calls, oldest first (at most opts.last_n) */
	struct lt_report_call *last;
	size_t n_last;
};

struct lt_report_lock {
	uint64_t addr;              /* lowest word */
	uint64_t words[8];          /* adjacent futex words treated as one lock */
	unsigned n_words;
	char symbol[128];           /* "" unknown; "rtlock+0x50/+0x54" */
	char key[56];               /* addr for people: "0x5587e9e021b0"; in a trace of
				       several processes a lock of another one is
				       "0x... in process 812", a word in a shared
				       mapping "inode 1234 (dev 0:1)+0x40"
				       (src/trace/lockid.h) */
	const char *kind;           /* static: "mutex", "condvar", "cond/sem",
				       "pi_mutex", "join", "futex" (how its waits
				       look, see docs), or the snapshot's word */
	uint64_t waits, eagain, timeouts, open_at_end;
	uint64_t total_ns, median_ns, p99_ns, max_ns;
	uint32_t max_waiters;       /* queued at once */
	uint64_t max_waiters_ts;
	uint32_t max_moving;        /* queued at once when it was handed on */
	uint64_t max_moving_ts;
	uint32_t n_waiters, n_wakers; /* distinct threads */
	uint64_t wake_calls, woken, handoffs;
	uint32_t longest_chain;     /* most hand-offs in a row: each thread woken on
				       it woke the next waiter */
	uint64_t chain_begin, chain_end;
	uint64_t last_wake_ts;      /* last wake-up that woke a waiter, 0 none */
	uint32_t last_waker, last_wakee;
	uint32_t holder;            /* holder at the end by the event rule, 0 none */
	uint64_t holder_since;
	uint64_t offcpu_count, offcpu_max_ns; /* holder preempted/blocked while waited on */
	int not_lock;               /* a runtime's own sleep on a word (a Go M's park
				       note), not a lock: listed after the locks */
	/* how its waits looked (rp_count_kind): mutex, condvar, pi_mutex,
	 * join, other; and on how many of its words a condvar-shaped wait
	 * slept (lt_report_kind_of makes kind of these, where no snapshot
	 * named the lock's kind) */
	uint64_t n_shape[5];
	unsigned n_cond_words;
};

/* Wake-ups of wakee by waker.  Those issued from interrupt context (a
 * timer, a device; LT_WAKE_IRQ, LT_WAKE_IDLE) are the interrupt's, waker
 * 0 named "interrupt": the task that was running then did not wake it. */
struct lt_report_edge {
	uint32_t waker, wakee;
	char waker_name[LT_COMM_LEN], wakee_name[LT_COMM_LEN];
	uint32_t flags;             /* LT_WAKE_* of any of them (timeline.h) */
	uint64_t count, via_futex, via_io, other;
	uint64_t first_ts, last_ts;
	uint64_t lock;              /* futex of the last one woken through a futex */
};

struct lt_report_loss {
	uint32_t cpu, kind;
	uint64_t count, first_ts, last_ts;
};

struct lt_report_priv;

/* A process of the trace (several when it recorded several: -p A,B,
 * --children, a launched command that forks). */
struct lt_report_proc {
	int32_t tgid, ppid;            /* ppid 0 unknown */
	char comm[LT_COMM_LEN];
	char cmdline[256];             /* "" unknown */
	uint32_t n_threads;            /* in the threads table */
};

/* A snapshot stored in the trace, as it was written (docs/snapshot.md). */
struct lt_report_stored {
	char *json;
	size_t len;
	char occasion[16]; /* "start", "end", "stall", "sigusr1"; "" if not stored */
};

struct lt_report {
	/* the trace */
	int32_t pid;
	char comm[LT_COMM_LEN];
	char exe[512], cmdline[1024], host[128], kernel[128];
	uint32_t hdr_flags;
	uint64_t attach_boottime, attach_realtime;
	uint64_t start_ts, end_ts;  /* boottime ns */
	uint64_t events;
	int have_stats;
	uint32_t stop_reason;       /* enum lt_stop */
	int clean_end;
	char stop_why[256];         /* why reading stopped early ("" clean) */
	uint64_t stop_offset;
	uint64_t damaged_bytes;     /* damage the reader skipped (its lines are notes) */
	uint64_t snapshot_ts;       /* the last snapshot, boottime ns (0 none) */
	unsigned n_snapshots;
	struct lt_report_stored *stored; /* the snapshots read, in trace order */
	size_t n_stored;
	/* tables, sorted for reading: locks by total wait, threads by tid,
	 * edges by count */
	struct lt_report_lock *locks;
	size_t n_locks;
	struct lt_report_thread *threads;
	size_t n_threads;
	struct lt_report_edge *edges;
	size_t n_edges;
	/* the processes, the trace's pid first, then by pid; threads[] of
	 * each are those with its tgid */
	struct lt_report_proc *procs;
	size_t n_procs;
	uint64_t edges_dropped;     /* wake-ups of pairs beyond the table's bound */
	struct lt_report_finding *findings;
	size_t n_findings;
	/* losses */
	uint64_t lost_total;
	struct lt_report_loss *losses; /* per cpu and kind */
	size_t n_losses;
	uint64_t inferred_ends, orphan_exits, late_events;
	uint64_t unseen_switches; /* lt_timeline_stats' */
	char **notes;
	size_t n_notes;
	struct lt_report_opts opts;
	struct lt_report_priv *priv;
};

/* hdr is copied.  o may be NULL.  NULL on out of memory. */
struct lt_report *lt_report_new(const struct lt_header *hdr, const struct lt_report_opts *o);
/* Feed one event.  0 or -ENOMEM. */
int lt_report_event(struct lt_report *r, const struct lt_event *ev);
/* A SNAPSHOT section's JSON text.  0, or -1 if it cannot be parsed (a note
 * says so and the report goes on without it). */
int lt_report_snapshot(struct lt_report *r, const char *json, size_t len);
/* A SYMBOLS section (lock names the recorder resolved while the process
 * was alive, src/proc/locksyms.h).  0, or -1 if damaged (the names
 * before the damage are kept, a note says so). */
int lt_report_symbols(struct lt_report *r, const void *data, size_t len);
/* One entry of a SYMBOLS section with its process and shared key (the
 * signature of lt_locksym_fn, src/proc/locksyms.h): names a lock
 * of another process, and ties a word in a shared mapping to its object.
 * Shared keys must come before the events that use them: lt_report_load
 * reads them in a first pass (lt_trace_symbols_procs). */
struct lt_shared_key;
void lt_report_symbol_entry(void *r, int32_t tgid, uint64_t addr, const char *name,
			    const struct lt_shared_key *key);
void lt_report_stats(struct lt_report *r, const struct lt_stats *s);
/* How reading ended: clean (END chunk seen), or why and where it stopped. */
void lt_report_reader_end(struct lt_report *r, int clean, const char *why, uint64_t offset);
/* The reader skipped damaged bytes (reader->skipped_bytes): its damage
 * lines (lt_reader_damage_line) become notes. */
void lt_report_reader_damage(struct lt_report *r, const struct lt_reader *rd);
/* Closes the timeline and runs the rules.  Call once.  0 or -ENOMEM. */
int lt_report_finish(struct lt_report *r);
void lt_report_free(struct lt_report *r);

void lt_report_print_text(FILE *f, const struct lt_report *r);
/* JSON, schema "locktrace.report/1" (docs/report.md); flushes f.  0 or
 * the first write error as a negative errno. */
int lt_report_print_json(FILE *f, const struct lt_report *r);

/* The name to show next to a tid: the runtime's name for the thread when a
 * snapshot read one, else the kernel's comm seen in the trace (COMM, or the
 * table's when COMM is NULL).  Valid after lt_report_finish. */
const char *lt_report_thread_name(const struct lt_report *r, uint32_t tid, const char *comm);

/* The name of a futex address for people: its symbol from the snapshot
 * ("rtlock+0x50") or "0x...".  Valid after lt_report_finish. */
const char *lt_report_lock_name(const struct lt_report *r, uint64_t addr, char *buf, size_t len);
/* A lock key (struct lt_report_lock.addr, words, a call's addr) for
 * people: "0x..." (see struct lt_report_lock.key). */
const char *lt_report_key_text(const struct lt_report *r, uint64_t key, char *buf, size_t len);
/* "rtlock+0x50/+0x54": the name of adjacent futex words (sorted, lowest
 * first) that share a symbol, into out; "" when a word has no name.  As
 * the LOCKS table names a lock of several words (struct
 * lt_report_lock.symbol).  Valid after lt_report_finish. */
void lt_report_words_symbol(const struct lt_report *r, const uint64_t *words, unsigned n, char *out,
			    size_t cap);
/* A lock's kind from how its waits looked (struct lt_report_lock.n_shape,
 * n_cond_words): "mutex", "condvar", "cond/sem", "pi_mutex", "join" or
 * "futex" (static). */
const char *lt_report_kind_of(const uint64_t n_shape[5], unsigned n_cond_words);
/* The process of thread tid (0 unknown) and its entry in procs, NULL. */
const struct lt_report_proc *lt_report_proc_of(const struct lt_report *r, uint32_t tid);

/* Reads the trace at path and prints its report to out.  Returns 0, 1 if
 * the file cannot be read as a trace (message in err), or 3 when the trace
 * was cut short (the report covers it up to its last good chunk; err says
 * where).  o may be NULL. */
int lt_report_file_opts(const char *path, FILE *out, int json, const struct lt_report_opts *o,
			char *err, size_t errlen);
/* The analysis of the trace at path, not printed: free with
 * lt_report_free.  NULL (and *rc 1, message in err) if the file cannot be
 * read as a trace; *rc 3 with a warning in err when it was cut short. */
struct lt_report *lt_report_load(const char *path, const struct lt_report_opts *o, char *err,
				 size_t errlen, int *rc);

#endif
