/* SPDX-License-Identifier: MIT */
/* Reading the flight recorder's kernel-side units at a dump
 * (include/locktrace/flightbuf.h): every cpu's records that are still
 * there, merged by time, with how many were written over. */
#ifndef LOCKTRACE_FLIGHTBUF_READ_H
#define LOCKTRACE_FLIGHTBUF_READ_H

#include <stddef.h>
#include <stdint.h>
#include "locktrace/flightbuf.h"
#include "u64map.h"

/* One record kept: where its bytes are in the dump's buffer. */
struct lt_fb_ent {
	uint64_t ts;  /* of its first event */
	uint64_t seq; /* its number on its cpu (its first unit's) */
	uint32_t cpu;
	uint32_t len;
	size_t off;
};

struct lt_fb_dump {
	uint8_t *buf;             /* the records' bytes, one after another */
	size_t buflen, bufcap;
	struct lt_fb_ent *ent;    /* sorted by (ts, cpu, seq) */
	size_t n, cap;
	unsigned ncpus;
	uint64_t written;         /* records the cpus ever wrote */
	uint64_t overwritten;     /* of those, not kept: written over by newer
				   * ones (before or during the copy), or
				   * being written at that moment */
	uint64_t *cpu_written, *cpu_overwritten; /* the same per cpu */
	/* The dump begins at start_ts, where every cpu's kept records meet:
	 * a cpu whose units were written over keeps its newest stretch only,
	 * and a busier cpu a shorter one, so before the latest of their
	 * beginnings some cpus' events are gone and others' are not (a thread
	 * would be seen leaving one cpu and acting on another without the
	 * switch that put it there).  0: no cpu's units were written over. */
	uint64_t start_ts;
	uint64_t before_start;    /* records kept but older than start_ts: left out */
};

/* Reads every cpu's head now into heads (lt_bpf_fb_heads); 0 or -errno. */
typedef int (*lt_fb_heads_fn)(void *ctx, uint64_t *heads);

/* Copies the records of ncpus cpus of nunits units each (a power of two)
 * from units, heads[c] the units cpu c has claimed and records[c] the
 * records it has written, into d (zeroed by the caller or freed before),
 * sorted by time, from start_ts on (see struct lt_fb_dump).  Units may be
 * written while this reads them: a record is kept only if it was complete
 * and its units the same before and after its copy; heads_now (NULL: the units
 * do not change) reads the heads again after the copy, which says how far
 * the writers may have gone over the oldest units meanwhile.
 * 0 or -ENOMEM / -EINVAL (nunits not a power of two). */
int lt_fb_collect_live(struct lt_fb_dump *d, const struct lt_fb_unit *units, unsigned ncpus,
		       uint32_t nunits, const uint64_t *heads, const uint64_t *records,
		       lt_fb_heads_fn heads_now, void *ctx);
/* lt_fb_collect_live of units nobody writes meanwhile */
int lt_fb_collect(struct lt_fb_dump *d, const struct lt_fb_unit *units, unsigned ncpus,
		  uint32_t nunits, const uint64_t *heads, const uint64_t *records);
void lt_fb_dump_free(struct lt_fb_dump *d);
/* The bytes of record i in time order. */
static inline const uint8_t *lt_fb_data(const struct lt_fb_dump *d, size_t i)
{
	return d->buf + d->ent[i].off;
}

/* The size of the event at p, of a record of size bytes: as the ring's
 * (lt_record_size), or LT_FB_SWITCH_SIZE for a switch written without its
 * comms; 0 if it is not a whole event. */
size_t lt_fb_event_size(const uint8_t *p, size_t size);

/* Thread names for the switches written without them: each thread's name
 * read from /proc at the dump (its name then, not when it switched; a
 * thread gone by then has none), once per thread. */
struct lt_fb_comms {
	struct lt_u64map map;   /* tid + 1 -> name (LT_COMM_LEN bytes) */
	struct lt_u64map known; /* the same, for threads /proc no longer has */
};
/* A name tid had (at attach, or in an event of the dump: a thread's
 * start, rename, exec), for when /proc no longer has the thread: the
 * last one given counts.  0 or -ENOMEM. */
int lt_fb_comms_know(struct lt_fb_comms *c, uint32_t tid, const char *comm);
/* The event of k bytes at p into ev (zeros after it), a switch's comms
 * filled in from c; 0, or -ENOMEM (the names left empty). */
int lt_fb_event(struct lt_event *ev, const uint8_t *p, size_t k, struct lt_fb_comms *c);
void lt_fb_comms_free(struct lt_fb_comms *c);

/* Units per cpu for a ring of ring_bytes over ncpus: the largest power
 * of two that fits, at least LT_FB_MIN_NUNITS, at most LT_FB_MAX_NUNITS. */
uint32_t lt_fb_nunits(uint64_t ring_bytes, unsigned ncpus);
/* The tag of unit number u of a cpu's units (base, mask: nunits - 1), read
 * before anything read of the unit after it. */
uint64_t lt_fb_tag_at(const struct lt_fb_unit *base, uint32_t mask, uint64_t u);
/* The record claimed at unit u of a cpu's units (base, mask: nunits - 1)
 * copied into out (LT_FB_MAXREC bytes) if it is complete and whole: its
 * tags say so before and after the copy.  Its length, or 0. */
uint32_t lt_fb_copy_rec(const struct lt_fb_unit *base, uint32_t mask, uint64_t u, uint8_t *out);

#endif
