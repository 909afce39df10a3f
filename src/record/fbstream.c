// SPDX-License-Identifier: MIT
/*
 * A bounded recording's events read from the kernel-side units as they come
 * (fbstream.h).  Each cpu's units are read from its tail on: a record is
 * taken when its units' tags say it is complete (fbdump.c's
 * lt_fb_copy_rec: the first unit's tag its number and length, the others'
 * its number, before and after the copy).  The programs never write over a unit the collector
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
#include "fbdump.h"
#include "fbstream.h"

/* Is unit u the rest of a record claimed one or two units before it? */
static int remnant_at(const struct lt_fb_unit *base, uint32_t mask, uint64_t u)
{
	uint64_t t = lt_fb_tag_at(base, mask, u), seq = LT_FB_TAG_SEQ(t), us = u & (UINT64_MAX >> 8);

	return t && seq < us && us - seq <= 2;
}

/* Cpu c's next complete record peeked into c's slot (skipping remnants);
 * false if there is none yet. */
static int peek(struct lt_fbs *s, unsigned c)
{
	struct lt_fbs_cpu *k = &s->cpu[c];
	const struct lt_fb_unit *base = s->units + (size_t)c * s->nunits;
	const uint32_t mask = s->nunits - 1;

	if (k->len)
		return 1;
	for (;;) {
		uint32_t len = lt_fb_copy_rec(base, mask, k->pos, (uint8_t *)k->rec);
		if (len) {
			k->ts = ((const struct lt_ev_hdr *)(const void *)k->rec)->ts;
			k->seq = k->pos;
			k->len = len;
			k->pos += LT_FB_UNITS(len);
			return 1;
		}
		if (!remnant_at(base, mask, k->pos))
			return 0; /* not written yet, or being written */
		s->remnants++;
		k->pos++;
	}
}

long lt_fbs_drain(struct lt_fbs *s, uint64_t upto, lt_fbs_fn fn, void *ctx)
{
	long n = 0;

	if (!s->cpu) {
		s->cpu = calloc(s->ncpus, sizeof(*s->cpu));
		if (!s->cpu) {
			s->oom = 1;
			return -ENOMEM;
		}
		for (unsigned c = 0; c < s->ncpus; c++)
			s->cpu[c].pos = s->tails[c].tail;
	}
	for (;;) {
		/* the earliest of the cpus' next records (a linear pick: few cpus
		 * have records at once) */
		struct lt_fbs_cpu *best = NULL;
		for (unsigned c = 0; c < s->ncpus; c++) {
			if (!peek(s, c))
				continue;
			struct lt_fbs_cpu *k = &s->cpu[c];
			if (!best || k->ts < best->ts)
				best = k;
		}
		if (!best || best->ts > upto)
			break;
		if (best->ts < s->released)
			s->late++;
		else
			s->released = best->ts;
		fn(ctx, best->rec, best->len);
		best->len = 0;
		n++;
		/* its units given back (those of the record peeked next stay
		 * until it is handed on) */
		__atomic_store_n(&s->tails[best - s->cpu].tail, best->pos, __ATOMIC_RELEASE);
	}
	return n;
}

void lt_fbs_free(struct lt_fbs *s)
{
	free(s->cpu);
	s->cpu = NULL;
}
