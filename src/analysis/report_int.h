/* SPDX-License-Identifier: MIT */
/* Internal to the report (report.c, report_print.c, json_read.c,
 * report_snapfacts.c): a small JSON reader for the SNAPSHOT sections and
 * the facts taken from them.  Not part of the public API; every name has
 * the rp_ prefix. */
#ifndef LOCKTRACE_REPORT_INT_H
#define LOCKTRACE_REPORT_INT_H

#include "durfmt.h" /* lt_fmt_dur: the report's durations */
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include "report.h"

#include "json_read.h"  /* rp_json_* */

#include "snapfacts.h"  /* rp_snapshot_*: the stored snapshots */


/* ---- processes (report_procs.c) ------------------------------------------ */

/* Copies the header's processes into r->procs (at lt_report_new).  0 or -1. */
int rp_procs_init(struct lt_report *r, const struct lt_header *hdr);
/* Process tgid was forked by process ppid during the trace.  0 or -1. */
int rp_proc_forked(struct lt_report *r, uint32_t tgid, uint32_t ppid);
/* Completes r->procs from the threads' tgids (at lt_report_finish).  0 or -1. */
int rp_procs_finish(struct lt_report *r);

/* ---- output helpers (report_print.c) ------------------------------------- */

/* ---- phrases (report_fmt.c): the findings' and the printers' -------------- */

/* durations: lt_fmt_dur (durfmt.h) */
/* boottime seconds as `locktrace dump` prints them, microsecond precision */
void rp_fmt_ts(uint64_t ns, char *buf, size_t len);
/* Short description of a call: "read(fd 132, 8192)", "FUTEX_WAIT_BITSET on
 * rtlock+0x54 (val 0)", "pselect6(fd 55)". */
void rp_fmt_call(const struct lt_report *r, const struct lt_report_call *c, char *buf, size_t len);
/* Printable thread name: control bytes replaced. */
void rp_clean_name(const char *in, char *out, size_t len);

#endif
