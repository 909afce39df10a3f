/* SPDX-License-Identifier: MIT */
/*
 * A bounded recording's events streamed through the kernel-side units
 * (include/locktrace/flightbuf.h, fb_stream): the BPF programs write each
 * record into their cpu's units with no lock (a ring buffer's reservation
 * takes a lock with interrupts off: ~230 ns a record here, BENCHMARKS.md),
 * and never over a unit the collector has not read (its tail).  The
 * collector reads each cpu's complete records from its tail on, gives the
 * units back, and hands the records on merged across cpus in (time, cpu,
 * number) order, the order fbdump.c sorts a dump in, up to a time that
 * every record at or before it has been written by (the drain's time less
 * a margin): a cpu's records are in the order they were claimed, which an
 * interrupt's record can invert with the one it interrupted, and threads
 * move between cpus.
 */
#ifndef LOCKTRACE_FBSTREAM_H
#define LOCKTRACE_FBSTREAM_H

#include <stddef.h>
#include <stdint.h>
#include "locktrace/flightbuf.h"

/* A record is handed on once the drain that read it began this long after
 * its time: a program writes its record within microseconds of reading the
 * time, unless its cpu is taken from it (a hypervisor's preemption); one
 * later than that is handed on out of order and counted (late).  Its
 * thread's own events cannot be among those handed on before it (the
 * thread is inside the program), nor can any event it causes. */
#define LT_FBS_MARGIN_NS 250000ull

struct lt_fbs_rec {
	uint64_t ts, seq;
	uint32_t cpu, len;
	uint8_t data[LT_FB_MAXREC];
};

struct lt_fbs {
	const struct lt_fb_unit *units; /* ncpus * nunits, mapped */
	struct lt_fb_tail *tails;       /* ncpus, mapped: written here */
	unsigned ncpus;
	uint32_t nunits;                /* a power of two */
	struct lt_fbs_rec *pend;        /* read, not handed on: pend[0..n) */
	size_t n, cap;
	uint64_t released;              /* the time of the last record handed on */
	uint64_t late;                  /* records read after a later one was handed on */
	uint64_t remnants;              /* units skipped: a record written over by
					 * one it interrupted (flightbuf.bpf.h) */
	int oom;
};

typedef int (*lt_fbs_fn)(void *ctx, void *data, size_t size);

/* Reads every cpu's complete records into s->pend (a record not complete
 * yet stops its cpu's reading until the next drain), gives their units
 * back, then hands to fn, in order, those whose time is at most upto
 * (UINT64_MAX: all of them, the end of a recording).  How many were
 * handed on, or -ENOMEM (what was read is kept). */
long lt_fbs_drain(struct lt_fbs *s, uint64_t upto, lt_fbs_fn fn, void *ctx);
void lt_fbs_free(struct lt_fbs *s);

#endif
