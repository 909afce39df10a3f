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

/* The fewest units a cpu streams through, whatever -b asks: the collector
 * is woken when a quarter of a cpu's units are unread, and must read them
 * before the rest fill (a record finding no room is lost).  512 units
 * (-b 64K on 2 cpus) filled in ~0.2 ms of a CPU-bound target and lost 97%
 * of its events where the ring buffer of the same size lost 2-4%
 * (BENCHMARKS.md, "2026-12-05, 14:30 UTC"). */
#define LT_FBS_MIN_NUNITS (1u << 12)

/* A cpu's next record, read (peeked) but not handed on yet. */
struct lt_fbs_cpu {
	uint64_t pos;     /* the unit after it: where this cpu's reading goes on */
	uint64_t ts, seq;
	uint32_t len;     /* 0: none read */
	uint32_t pad;
	uint64_t rec[LT_FB_MAXREC / 8]; /* its bytes (aligned for struct lt_event) */
};

struct lt_fbs {
	const struct lt_fb_unit *units; /* ncpus * nunits, mapped */
	struct lt_fb_tail *tails;       /* ncpus, mapped: written here */
	unsigned ncpus;
	uint32_t nunits;                /* a power of two */
	struct lt_fbs_cpu *cpu;         /* ncpus, allocated at the first drain */
	uint64_t released;              /* the time of the last record handed on */
	uint64_t late;                  /* records handed on after a later one */
	uint64_t remnants;              /* units skipped: a record written over by
					 * one it interrupted (flightbuf.bpf.h) */
	int oom;
};

typedef int (*lt_fbs_fn)(void *ctx, void *data, size_t size);

/* Hands to fn, in (time, cpu, number) order, every complete record of the
 * cpus' units whose time is at most upto (UINT64_MAX: all of them, the end
 * of a recording), merging the cpus' records as they are read (each cpu's
 * are in the order they were claimed: nearly that of their times); a
 * record not complete yet stops its cpu until the next drain.  Units are
 * given back (the tails) as their records are handed on.  How many were,
 * or -ENOMEM. */
long lt_fbs_drain(struct lt_fbs *s, uint64_t upto, lt_fbs_fn fn, void *ctx);
void lt_fbs_free(struct lt_fbs *s);

#endif
