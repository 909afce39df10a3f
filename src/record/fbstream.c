// SPDX-License-Identifier: MIT
/*
 * A bounded recording's events read from the kernel-side units as they come
 * (fbstream.h).  Each cpu's units are read from its tail on: a record is
 * taken when its units' tags say it is complete (fbdump.c's rule: the
 * first unit's tag its number and length, the others' its number, before
 * and after the copy).  The programs never write over a unit the collector
 * has not read, so a unit at the tail is one of: a complete record; one
 * being written (the tag still the last lap's, or its number without a
 * length yet: read at the next drain); or the rest of a record written
 * over by the record it had interrupted (two records claimed at the same
 * number, flightbuf.bpf.h): its tag a number one or two below, skipped.
 * Units are numbered from 1 here (the loader sets the heads and tails so):
 * a tag of 0 is a unit never written, never the rest of record 0.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include "fbstream.h"

static uint64_t tag_at(const struct lt_fb_unit *base, uint32_t mask, uint64_t u)
{
	return __atomic_load_n(&base[u & mask].tag, __ATOMIC_ACQUIRE);
}

/* The record at unit u copied into out if complete: its length, or 0. */
static uint32_t rec_at(const struct lt_fb_unit *base, uint32_t mask, uint64_t u, uint8_t *out)
{
	const uint64_t seq = u & (UINT64_MAX >> 8);
	uint64_t t0 = tag_at(base, mask, u);
	uint32_t len = LT_FB_TAG_LEN(t0), k;

	if (LT_FB_TAG_SEQ(t0) != seq || len < sizeof(struct lt_ev_hdr) || len > LT_FB_MAXREC)
		return 0;
	k = LT_FB_UNITS(len);
	for (uint32_t i = 1; i < k; i++)
		if (tag_at(base, mask, u + i) != LT_FB_TAG(seq, 0))
			return 0;
	for (uint32_t i = 0; i < k; i++) {
		uint32_t n = len - i * LT_FB_UDATA;
		memcpy(out + i * LT_FB_UDATA, (const void *)base[(u + i) & mask].data,
		       n < LT_FB_UDATA ? n : LT_FB_UDATA);
	}
	__atomic_thread_fence(__ATOMIC_ACQUIRE);
	if (tag_at(base, mask, u) != t0)
		return 0;
	for (uint32_t i = 1; i < k; i++)
		if (tag_at(base, mask, u + i) != LT_FB_TAG(seq, 0))
			return 0;
	return len;
}

/* Is unit u the rest of a record claimed one or two units before it? */
static int remnant_at(const struct lt_fb_unit *base, uint32_t mask, uint64_t u)
{
	uint64_t t = tag_at(base, mask, u), seq = LT_FB_TAG_SEQ(t), us = u & (UINT64_MAX >> 8);

	return t && seq < us && us - seq <= 2;
}

static int grow(struct lt_fbs *s)
{
	size_t cap = s->cap ? s->cap * 2 : 4096;
	struct lt_fbs_rec *p = realloc(s->pend, cap * sizeof(*p));

	if (!p)
		return -ENOMEM;
	s->pend = p;
	s->cap = cap;
	return 0;
}

/* Reads cpu c's complete records from its tail on; gives their units back. */
static int read_cpu(struct lt_fbs *s, unsigned c)
{
	const struct lt_fb_unit *base = s->units + (size_t)c * s->nunits;
	const uint32_t mask = s->nunits - 1;
	uint64_t u = s->tails[c].tail;
	int r = 0;

	for (;;) {
		if (s->n == s->cap && (r = grow(s)))
			break;
		struct lt_fbs_rec *e = &s->pend[s->n];
		uint32_t len = rec_at(base, mask, u, e->data);
		if (len) {
			const struct lt_ev_hdr *h = (const void *)e->data;
			e->ts = h->ts;
			e->seq = u;
			e->cpu = c;
			e->len = len;
			s->n++;
			u += LT_FB_UNITS(len);
		} else if (remnant_at(base, mask, u)) {
			s->remnants++;
			u++;
		} else {
			break; /* not written yet, or being written */
		}
	}
	__atomic_store_n(&s->tails[c].tail, u, __ATOMIC_RELEASE);
	return r;
}

static int by_time(const void *a, const void *b)
{
	const struct lt_fbs_rec *x = *(const struct lt_fbs_rec *const *)a;
	const struct lt_fbs_rec *y = *(const struct lt_fbs_rec *const *)b;

	if (x->ts != y->ts)
		return x->ts < y->ts ? -1 : 1;
	if (x->cpu != y->cpu)
		return x->cpu < y->cpu ? -1 : 1;
	return x->seq < y->seq ? -1 : x->seq > y->seq;
}

long lt_fbs_drain(struct lt_fbs *s, uint64_t upto, lt_fbs_fn fn, void *ctx)
{
	int r = 0;

	for (unsigned c = 0; c < s->ncpus && !r; c++)
		r = read_cpu(s, c);
	if (r)
		s->oom = 1;
	if (!s->n)
		return r ? r : 0;
	struct lt_fbs_rec **ord = malloc(s->n * sizeof(*ord));
	if (!ord) {
		s->oom = 1;
		return -ENOMEM;
	}
	for (size_t i = 0; i < s->n; i++)
		ord[i] = &s->pend[i];
	qsort(ord, s->n, sizeof(*ord), by_time);
	size_t k = 0;
	for (; k < s->n && ord[k]->ts <= upto; k++) {
		if (ord[k]->ts < s->released)
			s->late++;
		else
			s->released = ord[k]->ts;
		fn(ctx, ord[k]->data, ord[k]->len);
	}
	/* the rest, kept in their order at the front */
	if (k < s->n) {
		size_t left = s->n - k;
		struct lt_fbs_rec *keep = malloc(left * sizeof(*keep));
		if (keep) {
			for (size_t i = 0; i < left; i++)
				keep[i] = *ord[k + i];
			memcpy(s->pend, keep, left * sizeof(*keep));
			free(keep);
		} else {
			/* no room to reorder: handed on now, out of order */
			s->oom = 1;
			for (size_t i = k; i < s->n; i++)
				fn(ctx, ord[i]->data, ord[i]->len);
			k = s->n;
			left = 0;
		}
		s->n = left;
	} else {
		s->n = 0;
	}
	free(ord);
	return r ? r : (long)k;
}

void lt_fbs_free(struct lt_fbs *s)
{
	free(s->pend);
	s->pend = NULL;
	s->n = s->cap = 0;
}
