// SPDX-License-Identifier: MIT
/*
 * The flight recorder's dump reader: the units the BPF programs wrote
 * (include/locktrace/flightbuf.h), each record copied if its units' tags
 * say it is complete and whole before and after the copy, then sorted by
 * time across cpus.  Within a cpu, records are in the order they were
 * claimed, which is nearly that of their times (a record is claimed when
 * complete: one from an interrupt may be claimed before the record it
 * interrupted, whose time was read earlier), so everything is sorted by
 * (time, cpu, number).
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "fbdump.h"
#include "grow.h"
#include "snapshot_int.h"

#define rd_barrier() __asm__ __volatile__("" ::: "memory")

uint32_t lt_fb_nunits(uint64_t ring_bytes, unsigned ncpus)
{
	uint64_t per = ring_bytes / LT_FB_UNIT / (ncpus ? ncpus : 1);
	uint32_t n = LT_FB_MIN_NUNITS;

	while (n < LT_FB_MAX_NUNITS && (uint64_t)n * 2 <= per)
		n *= 2;
	return n;
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

uint64_t lt_fb_tag_at(const struct lt_fb_unit *base, uint32_t mask, uint64_t u)
{
	return __atomic_load_n(&base[u & mask].tag, __ATOMIC_ACQUIRE);
}

uint32_t lt_fb_copy_rec(const struct lt_fb_unit *base, uint32_t mask, uint64_t u, uint8_t *out)
{
	uint64_t t0 = lt_fb_tag_at(base, mask, u);
	uint32_t len = LT_FB_TAG_LEN(t0), k;

	if (LT_FB_TAG_SEQ(t0) != (u & (UINT64_MAX >> 8)) || len < 16 || len > LT_FB_MAXREC)
		return 0;
	k = LT_FB_UNITS(len);
	for (uint32_t i = 1; i < k; i++)
		if (lt_fb_tag_at(base, mask, u + i) != LT_FB_TAG(u, 0))
			return 0;
	rd_barrier();
	for (uint32_t i = 0; i < k; i++) {
		uint32_t n = len - i * LT_FB_UDATA;
		memcpy(out + i * LT_FB_UDATA, (const void *)base[(u + i) & mask].data,
		       n < LT_FB_UDATA ? n : LT_FB_UDATA);
	}
	rd_barrier();
	if (lt_fb_tag_at(base, mask, u) != t0)
		return 0;
	for (uint32_t i = 1; i < k; i++)
		if (lt_fb_tag_at(base, mask, u + i) != LT_FB_TAG(u, 0))
			return 0;
	return len;
}

/* The time from which a cpu whose oldest units were written over has all
 * its records: e[0..n), its records kept, in the order they were claimed
 * (their numbers), read from unit from on; below unit lo the writers may
 * have written over units before they were read.  A gap between kept
 * records that begins below lo may be such a unit, or the start of
 * everything's being overwritten: A, the first kept record after the last
 * such gap (or the first kept), has nothing missing after it but what an
 * interrupt wrote while A was being filled (its claim comes before A's,
 * its time after A's).  Every record lost has a time before A's claim (a
 * record is claimed when complete, after its time was read).  The first
 * record claimed after A whose time is after A's began after A's claim
 * (one that A interrupted read its time before A began, or after A's
 * claim): from its time on, nothing of this cpu is missing.  Without such
 * a record, A's time.  0: nothing kept. */
static uint64_t complete_from(const struct lt_fb_ent *e, size_t n, uint64_t from, uint64_t lo)
{
	size_t a = 0;
	uint64_t t = UINT64_MAX, end = from;

	if (!n)
		return 0;
	for (size_t i = 0; i < n; i++) {
		if (e[i].seq > end && end < lo)
			a = i; /* a gap that may be units written over before read */
		end = e[i].seq + LT_FB_UNITS(e[i].len);
	}
	if (end < lo) /* everything kept may have been followed by lost ones */
		return e[n - 1].ts;
	for (size_t i = a + 1; i < n; i++)
		if (e[i].ts > e[a].ts && e[i].ts < t)
			t = e[i].ts;
	return t == UINT64_MAX ? e[a].ts : t;
}

/* Leaves out the records before d->start_ts. */
static void cut_before_start(struct lt_fb_dump *d)
{
	size_t k = 0;

	for (size_t i = 0; i < d->n; i++)
		if (d->ent[i].ts >= d->start_ts)
			d->ent[k++] = d->ent[i];
	d->before_start = d->n - k;
	d->n = k;
}

/* d->start_ts from each cpu's records (d->ent[first[c]..first[c + 1]),
 * in the order they were claimed), then the records before it left out.
 * 0 or -ENOMEM. */
static int find_start(struct lt_fb_dump *d, unsigned ncpus, uint32_t nunits, const uint64_t *heads,
		      const size_t *first, lt_fb_heads_fn heads_now, void *ctx)
{
	uint64_t *after = NULL;

	if (heads_now) {
		after = calloc(ncpus ? ncpus : 1, sizeof(*after));
		if (!after)
			return -ENOMEM;
		if (heads_now(ctx, after)) { /* not known: as read before */
			free(after);
			after = NULL;
		}
	}
	for (unsigned c = 0; c < ncpus; c++) {
		uint64_t h = after && after[c] > heads[c] ? after[c] : heads[c];
		uint64_t lo = h > nunits ? h - nunits : 0; /* not written over */
		if (!lo)
			continue; /* all this cpu wrote is there */
		uint64_t t = complete_from(d->ent + first[c], first[c + 1] - first[c],
					   heads[c] > nunits ? heads[c] - nunits : 0, lo);
		if (t > d->start_ts)
			d->start_ts = t;
	}
	free(after);
	cut_before_start(d);
	return 0;
}

int lt_fb_collect(struct lt_fb_dump *d, const struct lt_fb_unit *units, unsigned ncpus,
		  uint32_t nunits, const uint64_t *heads, const uint64_t *records)
{
	return lt_fb_collect_live(d, units, ncpus, nunits, heads, records, NULL, NULL);
}

int lt_fb_collect_live(struct lt_fb_dump *d, const struct lt_fb_unit *units, unsigned ncpus,
		       uint32_t nunits, const uint64_t *heads, const uint64_t *records,
		       lt_fb_heads_fn heads_now, void *ctx)
{
	size_t *first = NULL;

	if (!nunits || (nunits & (nunits - 1)))
		return -EINVAL;
	memset(d, 0, sizeof(*d));
	d->ncpus = ncpus;
	d->cpu_written = calloc(ncpus ? ncpus : 1, sizeof(uint64_t));
	d->cpu_overwritten = calloc(ncpus ? ncpus : 1, sizeof(uint64_t));
	if (!d->cpu_written || !d->cpu_overwritten)
		goto oom;
	size_t most = 0;
	for (unsigned c = 0; c < ncpus; c++)
		most += heads[c] < nunits ? heads[c] : nunits;
	d->cap = most ? most : 1;
	d->bufcap = most * 64 + LT_FB_MAXREC;
	d->ent = malloc(d->cap * sizeof(*d->ent));
	d->buf = malloc(d->bufcap);
	first = malloc((ncpus + 1) * sizeof(*first));
	if (!d->ent || !d->buf || !first)
		goto oom;
	uint32_t mask = nunits - 1;
	for (unsigned c = 0; c < ncpus; c++) {
		first[c] = d->n;
		uint64_t h = heads[c], u = h > nunits ? h - nunits : 0, kept = 0;
		const struct lt_fb_unit *base = units + (size_t)c * nunits;
		while (u < h) {
			uint8_t *nb = lt_grow_to(d->buf, &d->bufcap, d->buflen + LT_FB_MAXREC, 1,
						 LT_FB_MAXREC);
			if (!nb)
				goto oom;
			d->buf = nb;
			uint32_t len = lt_fb_copy_rec(base, mask, u, d->buf + d->buflen);
			if (!len || u + LT_FB_UNITS(len) > h) {
				u++; /* a remnant, or a record being written */
				continue;
			}
			struct lt_fb_ent *e = &d->ent[d->n++];
			memcpy(&e->ts, d->buf + d->buflen, sizeof(e->ts));
			e->seq = u;
			e->cpu = c;
			e->len = len;
			e->off = d->buflen;
			d->buflen += (len + 7) & ~7u;
			kept++;
			u += LT_FB_UNITS(len);
		}
		uint64_t w = records ? records[c] : kept;
		if (w < kept) /* records read before the heads: more written since */
			w = kept;
		d->cpu_written[c] = w;
		d->cpu_overwritten[c] = w - kept;
		d->written += w;
		d->overwritten += w - kept;
	}
	first[ncpus] = d->n;
	if (find_start(d, ncpus, nunits, heads, first, heads_now, ctx))
		goto oom;
	free(first);
	qsort(d->ent, d->n, sizeof(*d->ent), ent_cmp);
	return 0;
oom:
	free(first);
	lt_fb_dump_free(d);
	return -ENOMEM;
}

size_t lt_fb_event_size(const uint8_t *p, size_t size)
{
	struct lt_ev_hdr h;
	size_t k;

	if (size < sizeof(h))
		return 0;
	memcpy(&h, p, sizeof(h));
	k = h.kind == LT_EV_SWITCH && (h.flags & LT_FB_F_NO_COMM) ? LT_FB_SWITCH_SIZE
								   : lt_record_size(h.kind);
	return k && k <= size ? k : 0;
}

/* tid's name now, or "" (gone) */
static void read_comm(uint32_t tid, char out[LT_COMM_LEN])
{
	char path[48];

	memset(out, 0, LT_COMM_LEN);
	snprintf(path, sizeof(path), "/proc/%u/comm", tid); /* any thread's tid */
	if (lts_read_small(path, out, LT_COMM_LEN) <= 0)
		memset(out, 0, LT_COMM_LEN);
	out[strcspn(out, "\n")] = 0;
}

/* tid's name (tid 0: the idle task of cpu, as the kernel names it) */
static int comm_of(struct lt_fb_comms *c, uint32_t tid, unsigned cpu, char out[LT_COMM_LEN])
{
	char *name;

	if (!tid) {
		memset(out, 0, LT_COMM_LEN);
		snprintf(out, LT_COMM_LEN, "swapper/%u", cpu);
		return 0;
	}
	name = lt_u64map_get(&c->map, (uint64_t)tid + 1);
	if (!name) {
		if (!(name = malloc(LT_COMM_LEN)))
			return -ENOMEM;
		read_comm(tid, name);
		const char *had = name[0] ? NULL : lt_u64map_get(&c->known, (uint64_t)tid + 1);
		if (had)
			memcpy(name, had, LT_COMM_LEN);
		if (lt_u64map_put(&c->map, (uint64_t)tid + 1, name)) {
			free(name);
			return -ENOMEM;
		}
	}
	memcpy(out, name, LT_COMM_LEN);
	return 0;
}

int lt_fb_event(struct lt_event *ev, const uint8_t *p, size_t k, struct lt_fb_comms *c)
{
	memset(ev, 0, sizeof(*ev));
	memcpy(ev, p, k);
	if (ev->h.kind != LT_EV_SWITCH || !(ev->h.flags & LT_FB_F_NO_COMM))
		return 0;
	ev->h.flags &= (uint8_t)~LT_FB_F_NO_COMM;
	int r = comm_of(c, ev->sw.prev_tid, ev->h.cpu, ev->sw.prev_comm);
	return r ? r : comm_of(c, ev->sw.next_tid, ev->h.cpu, ev->sw.next_comm);
}

int lt_fb_comms_know(struct lt_fb_comms *c, uint32_t tid, const char *comm)
{
	void **ref = lt_u64map_ref(&c->known, (uint64_t)tid + 1);
	char *name = ref ? *ref : malloc(LT_COMM_LEN);

	if (!name)
		return -ENOMEM;
	memset(name, 0, LT_COMM_LEN);
	memcpy(name, comm, strnlen(comm, LT_COMM_LEN - 1));
	if (!ref && lt_u64map_put(&c->known, (uint64_t)tid + 1, name)) {
		free(name);
		return -ENOMEM;
	}
	return 0;
}

static void free_names(struct lt_u64map *m)
{
	for (size_t i = 0; i < m->cap; i++)
		if (m->keys[i])
			free(m->vals[i]);
	lt_u64map_free(m);
}

void lt_fb_comms_free(struct lt_fb_comms *c)
{
	free_names(&c->map);
	free_names(&c->known);
	memset(c, 0, sizeof(*c));
}
