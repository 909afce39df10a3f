// SPDX-License-Identifier: MIT
/*
 * The flight recorder's dump reader: the slots the BPF programs wrote
 * (include/locktrace/flightbuf.h), copied with the seqlock check, then
 * sorted by time across cpus.  Within a cpu, records are in the order they
 * were claimed, which is nearly that of their times (a program run from
 * an interrupt may claim a slot between another's claim and its clock
 * read), so everything is sorted by (time, cpu, number).
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include "fbdump.h"
#include "grow.h"

#define rd_barrier() __asm__ __volatile__("" ::: "memory")

uint32_t lt_fb_nper(uint64_t ring_bytes, unsigned ncpus)
{
	uint64_t per = ring_bytes / LT_FB_SLOT / (ncpus ? ncpus : 1);

	return per < 64 ? 64 : per > LT_FB_MAX_NPER ? LT_FB_MAX_NPER : (uint32_t)per;
}

void lt_fb_dump_free(struct lt_fb_dump *d)
{
	free(d->buf);
	free(d->ent);
	free(d->cpu_written);
	free(d->cpu_overwritten);
	memset(d, 0, sizeof(*d));
}

static int ent_cmp(const void *a, const void *b)
{
	const struct lt_fb_ent *x = a, *y = b;

	if (x->ts != y->ts)
		return x->ts < y->ts ? -1 : 1;
	if (x->cpu != y->cpu)
		return x->cpu < y->cpu ? -1 : 1;
	return x->seq < y->seq ? -1 : x->seq > y->seq;
}

/* One slot copied if it holds record s complete: its length, or 0. */
static uint32_t copy_slot(const struct lt_fb_slot *sl, uint64_t s, uint8_t *out)
{
	const volatile struct lt_fb_slot *v = (const volatile struct lt_fb_slot *)sl;
	uint32_t done1 = v->done;
	uint64_t seq1 = v->seq;
	uint32_t len = v->len;

	rd_barrier();
	if (!done1 || seq1 != s || len < 16 || len > LT_FB_DATA)
		return 0;
	memcpy(out, (const void *)sl->data, len);
	rd_barrier();
	if (v->done != 1 || v->seq != s)
		return 0;
	return len;
}

int lt_fb_collect(struct lt_fb_dump *d, const struct lt_fb_slot *slots, unsigned ncpus,
		  uint32_t nper, const uint64_t *heads)
{
	if (!nper)
		return -EINVAL;
	memset(d, 0, sizeof(*d));
	d->ncpus = ncpus;
	d->cpu_written = calloc(ncpus ? ncpus : 1, sizeof(uint64_t));
	d->cpu_overwritten = calloc(ncpus ? ncpus : 1, sizeof(uint64_t));
	if (!d->cpu_written || !d->cpu_overwritten)
		goto oom;
	size_t most = 0;
	for (unsigned c = 0; c < ncpus; c++)
		most += heads[c] < nper ? heads[c] : nper;
	d->cap = most ? most : 1;
	d->bufcap = most * 64 + LT_FB_DATA;
	d->ent = malloc(d->cap * sizeof(*d->ent));
	d->buf = malloc(d->bufcap);
	if (!d->ent || !d->buf)
		goto oom;
	for (unsigned c = 0; c < ncpus; c++) {
		uint64_t h = heads[c], first = h > nper ? h - nper : 0, kept = 0;
		const struct lt_fb_slot *base = slots + (size_t)c * nper;
		for (uint64_t s = first; s < h; s++) {
			uint8_t *nb = lt_grow_to(d->buf, &d->bufcap, d->buflen + LT_FB_DATA, 1,
						 LT_FB_DATA);
			if (!nb)
				goto oom;
			d->buf = nb;
			uint32_t len = copy_slot(&base[s % nper], s, d->buf + d->buflen);
			if (!len)
				continue;
			struct lt_fb_ent *e = &d->ent[d->n++];
			memcpy(&e->ts, d->buf + d->buflen, sizeof(e->ts));
			e->seq = s;
			e->cpu = c;
			e->len = len;
			e->off = d->buflen;
			d->buflen += (len + 7) & ~7u;
			kept++;
		}
		d->cpu_written[c] = h;
		d->cpu_overwritten[c] = h - kept;
		d->written += h;
		d->overwritten += h - kept;
	}
	qsort(d->ent, d->n, sizeof(*d->ent), ent_cmp);
	return 0;
oom:
	lt_fb_dump_free(d);
	return -ENOMEM;
}
