/* SPDX-License-Identifier: MIT */
/* What the report and the trace readers take from stored snapshots (the
 * JSON documents a trace carries, docs/snapshot.md), as read by the one
 * reader of that schema, lt_snapshot_from_json (snapshot.h): snapfacts.c. */
#ifndef LOCKTRACE_SNAPFACTS_H
#define LOCKTRACE_SNAPFACTS_H

#include <stddef.h>
#include <stdint.h>

#include "locktrace/tracefile.h"
#include "json_read.h"
#include "snapshot.h"

/* ---- snapshot facts ------------------------------------------------------ */

struct rp_snap_thread {
	int32_t tid;
	int32_t pid;             /* its process (a combined snapshot's "processes") */
	char comm[LT_COMM_LEN * 2];
	char state;
	double blocked_s;        /* < 0 unknown */
	long nr;                 /* -1 none */
	uint64_t args[2];        /* its first two arguments (0 unknown) */
	char *sc_name;
	char *detail;
	int moved;
	/* futex */
	int has_futex, is_wait, is_pi;
	uint64_t uaddr;
	char *lock;              /* symbol of uaddr */
	char *op_name;           /* as the snapshot names the op */
	uint32_t op;             /* raw futex op */
	int expected_ok, word_ok;
	uint32_t expected, word;
	char *owner_kind;
	int32_t owner;           /* 0 none */
	int32_t owner_pid;       /* owner is a thread of this other process, 0 */
	/* a private lock whose recorded owner is no thread of its process
	 * (snapshot "owner_gone": copied locked by fork(), or the owner
	 * exited); gone_parent: the process it was forked from, 0 unknown */
	int owner_gone;
	int32_t gone_tid, gone_parent;
	char *lock_kind;         /* what the lock models recognised, NULL  */
	uint64_t lock_base;      /* the object it belongs to (a Python Lock,
				    a threading.Condition), 0 if none      */
	char *lock_name;         /* the lock object's name, NULL           */
	char *lock_state;        /* the models' decoded state, NULL        */
	int cond_signal;         /* condvar: 0 not known, 1 no signal pending,
				    2 a signal pending (signal_pending)    */
	int acquire;             /* waits in a lock-acquire function ("acquire") */
	int runtime;             /* waits for a runtime lock (lockmodel.h) */
	char *rt_how;            /* the runtime model's holder evidence     */
	/* fd I/O */
	int io_fd;               /* -1 none */
	int io_socket;
	int io_pipe, io_fifo;    /* a pipe, a FIFO (named pipe)                */
	char *where;             /* innermost runtime frame ("side (app.py:7)"),
	                            else the first frame in the program's own
	                            module */
	char *rt_name;           /* the runtime's name for the thread, NULL */
	char *java_sleep;        /* in Java's Thread.sleep() (its innermost Java
	                            frame, rt_idle.h): where it was called,
	                            "J1.sleep (J1.java:9)", "" not known; NULL:
	                            not in Thread.sleep() */
	int timed;               /* its wait has a timeout that ends it by itself
	                            (lts_wait_timed) */
	double timed_left_s;     /* about how long from the snapshot until then,
	                            < 0 not known */
	char **funcs;            /* functions of the program's own module on its stack */
	size_t n_funcs;
	/* its wait-for edge of kind file_lock (docs/snapshot.md "wait_for"):
	 * the fd, the file (its path, NULL unknown), what it waits for and
	 * the first holder process (0 none named) */
	int fl_fd;               /* -1 none */
	char *fl_path, *fl_what;
	int32_t fl_holder;
	/* asleep on a timer beside a file another process holds locked (its
	 * timer edge's parties: a lock it may be polling): the first such
	 * process and what the edge says, 0/NULL none */
	int32_t poll_holder;
	char *poll_what;
};

struct rp_snap_verdict {
	char *kind, *summary;
	char **evidence;
	size_t n_evidence;
	int32_t *tids;
	size_t n_tids;
	uint64_t *locks;
	size_t n_locks;
	int32_t owner;
};

struct rp_snapshot {
	char *occasion;          /* "start", "end", ...; NULL not said */
	int64_t taken_monotonic_ns;
	int32_t pid;             /* the process it is of (0 unknown); a combined
				    snapshot of several: the first's */
	struct rp_snap_thread *threads; /* sorted by tid */
	size_t n_threads;
	struct rp_snap_verdict *verdicts;
	size_t n_verdicts;
	/* the runtime locks' extents ("runtime_locks" base and size): the
	 * futex words inside one are that lock's internal words */
	struct rp_snap_rtrange {
		uint64_t base, size;
	} *rtranges;
	size_t n_rtranges;
	/* what it could not read: its notes "the snapshot is incomplete: X"
	 * as X, "process P: the snapshot is incomplete: X" as "process P: X" */
	struct lt_strlist incomplete;
};

/* Takes what the report uses from a stored snapshot (JSON text).
 * exe_base: the executable's file name (frames in it are "the program's
 * own code").  0, or as lt_snapshot_from_json with what is wrong in err:
 * -1 (not JSON, out of memory) or -2 (not a snapshot document). */
int rp_snapshot_from_json(const char *json, size_t len, const char *exe_base, struct rp_snapshot *out,
			  char *err, size_t errlen);
void rp_snapshot_clear(struct rp_snapshot *s);
const struct rp_snap_thread *rp_snapshot_find(const struct rp_snapshot *s, int32_t tid);

/* The runtime locks' holders a snapshot read (docs/locks.md), for the
 * timeline writers: at most MAX, "OCaml runtime lock caml_master_lock". */
struct rp_holder {
	uint32_t tid;
	char what[160];
};
size_t rp_snapshot_holders(const char *json, size_t len, struct rp_holder *out, size_t max);

/* The names one snapshot gives, for the timeline writers (values
 * malloc'd; either map may be NULL):
 *  - into locks, the lock models' names of futex words (docs/locks.md:
 *    "OCaml runtime lock caml_master_lock (caml_master_lock+0x58)"); an
 *    address already there keeps its name;
 *  - into threads, tid -> the runtime's name for the thread
 *    (runtime.name), and under RP_FILE_KEY the path of the file a thread
 *    waits to lock on fd (its "wait_for" file_lock edge); a later name
 *    replaces an earlier one.
 * The signature of lt_snapnames_fn (locksyms.h).  0 or -1. */
struct lt_u64map;
int rp_snapshot_names(const char *json, size_t len, struct lt_u64map *locks, struct lt_u64map *threads);
/* The extent of a runtime lock a snapshot read (docs/locks.md): the
 * futex words in [base, base + size) of process pid belong to it. */
struct rp_extent {
	int32_t pid;
	uint64_t base, size;
	char what[160]; /* "GIL _PyRuntime.ceval.gil (CPython 3.11.2)" */
};
/* The extents of the runtime locks of kind KIND ("GIL") in one stored
 * snapshot, at most MAX into out; how many. */
size_t rp_snapshot_extents(const char *json, size_t len, const char *kind, struct rp_extent *out,
			   size_t max);
/* The key under which rp_snapshot_names stores the path of the file a
 * thread waits to lock on fd: no tid collides with it. */
#define RP_FILE_KEY(tid, fd) (1ull << 63 | (uint64_t)(uint32_t)(tid) << 32 | (uint32_t)(fd))

#endif
