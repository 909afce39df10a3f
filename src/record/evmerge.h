/* SPDX-License-Identifier: MIT */
/* Putting back in time order the events of per-cpu batches (issue 29: the
 * switch and wake-up programs of --calls blocking collect their records in
 * a per-cpu buffer that reaches the ring buffer in one record per batch, so
 * a cpu's events arrive late and in bursts).  Events are kept per cpu, each
 * cpu's in time order, and handed on merged across cpus by (time, cpu,
 * arrival) - the order fbdump.c sorts the flight recorder's slots in -
 * once every cpu's batch up to a time is known to have arrived. */
#ifndef LOCKTRACE_EVMERGE_H
#define LOCKTRACE_EVMERGE_H

#include <stddef.h>
#include <stdint.h>
#include "locktrace/event.h"

struct lt_evq {
	struct lt_event *ev; /* circular, cap a power of two */
	size_t head, n, cap;
};

struct lt_evmerge {
	struct lt_evq *q; /* by cpu (hdr.cpu) */
	size_t nq;
	size_t pending;     /* events held */
	uint64_t released;  /* the time of the last event handed on */
	uint64_t late;      /* events that arrived after a later one of
			     * another cpu was handed on (then handed on at
			     * the next release, out of order) */
	int oom;            /* an event could not be kept: handed on at once */
};

typedef void (*lt_evmerge_fn)(void *ctx, const struct lt_event *ev);

/* Keeps ev (copied) until a release covers its time.  An event that cannot
 * be kept (no memory) is handed to fn at once, out of order, and counted
 * in m->oom.  0 or -ENOMEM. */
int lt_evmerge_push(struct lt_evmerge *m, const struct lt_event *ev, lt_evmerge_fn fn, void *ctx);
/* Hands to fn, in (time, cpu, arrival) order, every event kept whose time
 * is at most upto; returns how many. */
size_t lt_evmerge_release(struct lt_evmerge *m, uint64_t upto, lt_evmerge_fn fn, void *ctx);
/* Everything kept, in order (the end of a recording). */
size_t lt_evmerge_release_all(struct lt_evmerge *m, lt_evmerge_fn fn, void *ctx);
void lt_evmerge_free(struct lt_evmerge *m);

#endif
