/* SPDX-License-Identifier: MIT */
/*
 * The writer's state and its per-event path, inline, for the collector's
 * loop (src/record/record_loop.c): an event is encoded into the chunk being
 * filled without a call (BENCHMARKS.md, "the collector, again").
 * lt_writer_event (src/trace/tracefile.c) is the same function.  Private to
 * src/.
 */
#ifndef LT_WRITER_INT_H
#define LT_WRITER_INT_H

#include <errno.h>
#include "locktrace/tracefile.h"
#include "codec_enc.h"

struct lt_writer {
	int fd;        /* -1: chunks go to emit (an in-memory writer) */
	lt_chunk_fn emit;
	void *emit_ctx;
	size_t chunk_target;
	int err; /* first write error (-errno), sticky */
	uint64_t bytes;
	int32_t pid;
	struct lt_codec codec;
	uint8_t *buf; /* LT_CHUNK_HDR_LEN + payload */
	size_t len;   /* payload bytes in buf */
	size_t cap;
	struct lt_chunk_info info; /* of the events chunk being filled */
};

/* The chunk being filled begins with the event at ts (tracefile.c). */
void lt_writer_chunk_start(struct lt_writer *w, uint64_t ts);

/* kind: ev->h.kind (a constant where the caller knows it) */
static inline __attribute__((always_inline)) int lt_writer_event_kind(struct lt_writer *w,
								      const struct lt_event *ev, uint8_t kind)
{
	if (w->len == 0)
		lt_writer_chunk_start(w, ev->h.ts);
	size_t n = lt_codec_encode_kind(&w->codec, w->buf + LT_CHUNK_HDR_LEN + w->len, ev, kind);
	if (!n)
		return -EINVAL;
	w->len += n;
	/* events of different cpus may be slightly out of order (first_ts
	 * <= last_ts: a later one is not an earlier one) */
	w->info.nevents++;
	if (ev->h.ts > w->info.last_ts)
		w->info.last_ts = ev->h.ts;
	else if (ev->h.ts < w->info.first_ts)
		w->info.first_ts = ev->h.ts;
	if (w->len >= w->chunk_target)
		return lt_writer_flush(w);
	return w->err;
}

static inline __attribute__((always_inline)) int lt_writer_event_inline(struct lt_writer *w,
									const struct lt_event *ev)
{
	return lt_writer_event_kind(w, ev, ev->h.kind);
}

#endif
