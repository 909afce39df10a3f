// SPDX-License-Identifier: MIT
/*
 * Flight-recorder memory: EVENTS chunks laid one after another in a fixed
 * circular byte buffer.  Each chunk has a virtual start offset that only
 * grows (its place in the buffer is that offset modulo the size; a chunk
 * that would straddle the end starts at the next lap).  The chunks whose
 * virtual start lies within one buffer size before the newest chunk's end
 * are live; older ones are evicted, oldest first, so the history kept is
 * always the most recent and contiguous in time.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include "flight.h"
#include "locktrace/tracefile.h"
#include "varint.h"
#include "grow.h"

int lt_flight_init(struct lt_flight *f, size_t cap)
{
	memset(f, 0, sizeof(*f));
	f->buf = malloc(cap);
	if (!f->buf)
		return -ENOMEM;
	f->cap = cap;
	return 0;
}

void lt_flight_free(struct lt_flight *f)
{
	free(f->buf);
	free(f->recs);
	memset(f, 0, sizeof(*f));
}

static struct lt_flight_rec *rec_at(const struct lt_flight *f, size_t i)
{
	return &f->recs[(f->head + i) % f->rcap];
}

static void evict_oldest(struct lt_flight *f)
{
	struct lt_flight_rec *r = rec_at(f, 0);
	f->bytes -= r->len;
	f->events -= r->nevents;
	f->evicted_bytes += r->len;
	f->evicted_chunks++;
	f->head = (f->head + 1) % f->rcap;
	f->count--;
}

static int grow_recs(struct lt_flight *f)
{
	/* a ring: copied in order, not realloc'd */
	size_t ncap = lt_grow_cap(f->rcap, f->rcap + 1, sizeof(struct lt_flight_rec), 64);
	struct lt_flight_rec *n = ncap ? malloc(ncap * sizeof(*n)) : NULL;
	if (!n)
		return -ENOMEM;
	for (size_t i = 0; i < f->count; i++)
		n[i] = *rec_at(f, i);
	free(f->recs);
	f->recs = n;
	f->rcap = ncap;
	f->head = 0;
	return 0;
}

int lt_flight_push(void *ctx, uint32_t type, const uint8_t *payload, size_t len,
		   const struct lt_chunk_info *info)
{
	struct lt_flight *f = ctx;

	if (type != LT_CHUNK_EVENTS)
		return 0;
	if (len > f->cap)
		return -EFBIG;
	/* virtual offsets only grow; a chunk never straddles the buffer's end */
	uint64_t v = f->vtail;
	if (v % f->cap + len > f->cap)
		v += f->cap - v % f->cap;
	uint64_t vend = v + len;
	/* live chunks are exactly those after vend - cap: evict the older */
	while (f->count && vend > f->cap && rec_at(f, 0)->vstart < vend - f->cap)
		evict_oldest(f);
	if (f->count == f->rcap && grow_recs(f))
		return -ENOMEM;
	struct lt_cur c = lt_cur_over(payload, len);
	uint64_t base = lt_get_varint(&c);
	memcpy(f->buf + v % f->cap, payload, len);
	struct lt_flight_rec *r = &f->recs[(f->head + f->count) % f->rcap];
	r->vstart = v;
	r->len = len;
	r->first_ts = info ? info->first_ts : c.err ? 0 : base;
	r->last_ts = info ? info->last_ts : r->first_ts;
	r->nevents = info ? info->nevents : 0;
	f->count++;
	f->bytes += len;
	f->events += r->nevents;
	f->vtail = vend;
	return 0;
}

int lt_flight_dump(const struct lt_flight *f, struct lt_writer *w)
{
	for (size_t i = 0; i < f->count; i++) {
		const struct lt_flight_rec *r = rec_at(f, i);
		int e = lt_writer_section(w, LT_CHUNK_EVENTS, f->buf + r->vstart % f->cap, r->len);
		if (e)
			return e;
	}
	return 0;
}

uint64_t lt_flight_oldest_ts(const struct lt_flight *f)
{
	return f->count ? rec_at(f, 0)->first_ts : 0;
}

uint64_t lt_flight_newest_ts(const struct lt_flight *f)
{
	return f->count ? rec_at(f, f->count - 1)->last_ts : 0;
}
