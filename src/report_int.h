/* SPDX-License-Identifier: MIT */
/* Internal to the report (report.c, report_print.c, json_read.c,
 * report_snapfacts.c): a small JSON reader for the SNAPSHOT sections and
 * the facts taken from them.  Not part of the public API; every name has
 * the rp_ prefix. */
#ifndef LOCKTRACE_REPORT_INT_H
#define LOCKTRACE_REPORT_INT_H

#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include "locktrace/report.h"

/* ---- JSON ---------------------------------------------------------------- */

enum rp_jtype { RPJ_NULL, RPJ_FALSE, RPJ_TRUE, RPJ_NUM, RPJ_STR, RPJ_ARR, RPJ_OBJ };

struct rp_json {
	enum rp_jtype type;
	double num;
	int64_t inum;           /* RPJ_NUM written as an integer: its exact value */
	int is_int;
	char *str;              /* RPJ_STR: decoded, NUL-terminated */
	size_t n;               /* RPJ_ARR / RPJ_OBJ: items */
	struct rp_json *items;
	char **keys;            /* RPJ_OBJ: parallel to items */
};

/* Parses text (not necessarily NUL-terminated).  NULL on a syntax error,
 * with what and where in err. */
struct rp_json *rp_json_parse(const char *text, size_t len, char *err, size_t errlen);
void rp_json_free(struct rp_json *j);
/* Member of an object, NULL if absent or j is not an object. */
const struct rp_json *rp_json_get(const struct rp_json *j, const char *key);
/* Conversions that tolerate absent or mistyped values. */
int rp_json_is_num(const struct rp_json *j);
double rp_json_num(const struct rp_json *j, double dflt);
/* An integer exactly (doubles lose nanoseconds of a realtime clock). */
int64_t rp_json_int(const struct rp_json *j, int64_t dflt);
const char *rp_json_str(const struct rp_json *j); /* NULL unless a string */
/* "0x..." strings (and plain numbers): 1 and *out, or 0. */
int rp_json_addr(const struct rp_json *j, uint64_t *out);

/* ---- snapshot facts ------------------------------------------------------ */

struct rp_snap_thread {
	int32_t tid;
	int32_t pid;             /* its process (a combined snapshot's "processes") */
	char comm[LT_COMM_LEN * 2];
	char state;
	double blocked_s;        /* < 0 unknown */
	long nr;                 /* -1 none */
	char *sc_name;
	char *wait;              /* "futex", "io", ... */
	char *detail;
	int moved;
	/* futex */
	int has_futex, is_wait, is_pi;
	uint64_t uaddr;
	char *lock;              /* symbol of uaddr */
	char *op_name;
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
	char *lock_name;         /* the lock object's name, NULL           */
	char *lock_state;        /* the models' decoded state, NULL        */
	int runtime;             /* waits for a runtime lock (lockmodel.h) */
	char *rt_how;            /* the runtime model's holder evidence     */
	/* fd I/O */
	int io_fd;               /* -1 none */
	int io_socket;
	char *io_desc;
	char *where;             /* innermost runtime frame ("side (app.py:7)"),
	                            else the first frame in the program's own
	                            module */
	char *rt_name;           /* the runtime's name for the thread, NULL */
	char **funcs;            /* functions of the program's own module on its stack */
	size_t n_funcs;
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
	int64_t taken_monotonic_ns;
	int32_t pid;             /* the process it is of (0 unknown); a combined
				    snapshot of several: the first's */
	struct rp_snap_thread *threads; /* sorted by tid */
	size_t n_threads;
	struct rp_snap_verdict *verdicts;
	size_t n_verdicts;
};

/* Extracts what the report uses from a parsed snapshot document.  exe_base:
 * the executable's file name (frames in it are "the program's own code").
 * 0 or -1 (not a snapshot / out of memory). */
int rp_snapshot_from_json(const struct rp_json *doc, const char *exe_base, struct rp_snapshot *out);
void rp_snapshot_clear(struct rp_snapshot *s);
/* Futex word -> the lock models' name for it, from one snapshot JSON
 * document (values malloc'd; existing keys kept).  0 or -1. */
struct rp_holder {
	uint32_t tid;
	char what[160];
};
size_t rp_snapshot_holders(const char *json, size_t len, struct rp_holder *out, size_t max);
struct lt_u64map;
int rp_snapshot_lock_names(const char *json, size_t len, struct lt_u64map *map);
/* tid -> the runtime's name for the thread (runtime.name), from one
 * snapshot JSON document; values malloc'd, a later name replaces an
 * earlier one.  0 or -1. */
int rp_snapshot_thread_names(const char *json, size_t len, struct lt_u64map *map);
const struct rp_snap_thread *rp_snapshot_find(const struct rp_snapshot *s, int32_t tid);
/* Sets the threads' pid from a combined snapshot's "processes" member
 * (docs/snapshot.md), else to the document's pid. */
void rp_snapshot_procs(const struct rp_json *doc, struct rp_snapshot *s);


/* ---- processes (report_procs.c) ------------------------------------------ */

/* Copies the header's processes into r->procs (at lt_report_new).  0 or -1. */
int rp_procs_init(struct lt_report *r, const struct lt_header *hdr);
/* Process tgid was forked by process ppid during the trace.  0 or -1. */
int rp_proc_forked(struct lt_report *r, uint32_t tgid, uint32_t ppid);
/* Completes r->procs from the threads' tgids (at lt_report_finish).  0 or -1. */
int rp_procs_finish(struct lt_report *r);

/* ---- output helpers (report_print.c) ------------------------------------- */

/* ---- phrases (report_fmt.c): the findings' and the printers' -------------- */

/* "1.93 s", "120 ms", "35 us", "812 ns" */
void rp_fmt_dur(uint64_t ns, char *buf, size_t len);
/* boottime seconds as `locktrace dump` prints them, microsecond precision */
void rp_fmt_ts(uint64_t ns, char *buf, size_t len);
/* Short description of a call: "read(fd 132, 8192)", "FUTEX_WAIT_BITSET on
 * rtlock+0x54 (val 0)", "pselect6(fd 55)". */
void rp_fmt_call(const struct lt_report *r, const struct lt_report_call *c, char *buf, size_t len);
/* Printable thread name: control bytes replaced. */
void rp_clean_name(const char *in, char *out, size_t len);

#endif
