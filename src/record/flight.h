/* SPDX-License-Identifier: MIT */
/* The flight recorder's memory: the most recent EVENTS chunks in one fixed
 * byte buffer.  New chunks evict the oldest; memory never exceeds the size
 * given (plus a small descriptor array). */
#ifndef LOCKTRACE_FLIGHT_H
#define LOCKTRACE_FLIGHT_H

#include <stddef.h>
#include <stdint.h>

struct lt_writer;
struct lt_chunk_info;

struct lt_flight_rec {
	uint64_t vstart; /* virtual offset: position = vstart % cap */
	size_t len;
	uint64_t first_ts; /* its oldest event (the base timestamp if unknown) */
	uint64_t last_ts;  /* its newest event */
	uint32_t nevents;  /* 0 if unknown */
};

struct lt_flight {
	uint8_t *buf;
	size_t cap;
	uint64_t vtail;              /* virtual offset where the next chunk goes */
	struct lt_flight_rec *recs;  /* circular, oldest at recs[head] */
	size_t rcap, head, count;
	uint64_t bytes;              /* payload bytes held */
	uint64_t events;             /* events held (as counted by the writer) */
	uint64_t evicted_chunks, evicted_bytes;
};

/* 0 or -ENOMEM. */
int lt_flight_init(struct lt_flight *f, size_t cap);
void lt_flight_free(struct lt_flight *f);
/* lt_chunk_fn for lt_writer_mem_open: keeps an EVENTS chunk.  info (may be
 * NULL) gives its event count and time span. */
int lt_flight_push(void *f, uint32_t type, const uint8_t *payload, size_t len,
		   const struct lt_chunk_info *info);
/* Writes every chunk held, oldest first, as EVENTS chunks. 0 or -errno. */
int lt_flight_dump(const struct lt_flight *f, struct lt_writer *w);
/* Timestamp (BOOTTIME ns) of the oldest event held, 0 if empty. */
uint64_t lt_flight_oldest_ts(const struct lt_flight *f);
/* Timestamp of the newest event held, 0 if empty. */
uint64_t lt_flight_newest_ts(const struct lt_flight *f);

#endif
