/* A bounded recording streamed through the kernel-side units
 * (src/record/fbstream.c): records read from each cpu's tail on as their
 * tags say they are complete, their units given back, and handed on
 * merged across cpus in time order up to the drain's bound; a record being
 * written stops its cpu until the next drain; the rest of a record written
 * over by the one it interrupted is skipped.  Units laid out as the BPF
 * programs write them (include/locktrace/flightbuf.h). */
#include <criterion/criterion.h>
#include <stdlib.h>
#include <string.h>
#include "fbstream.h"

#define NCPUS 2
#define NUNITS 256

struct got {
	uint32_t tid[64];
	uint64_t ts[64];
	size_t len[64];
	int n;
};

static int take(void *ctx, void *data, size_t size)
{
	struct got *g = ctx;
	const struct lt_ev_hdr *h = data;
	cr_assert_lt(g->n, 64);
	g->tid[g->n] = h->tid;
	g->ts[g->n] = h->ts;
	g->len[g->n] = size;
	g->n++;
	return 0;
}

struct fix {
	struct lt_fb_unit *units;
	struct lt_fb_tail tails[NCPUS];
	uint64_t head[NCPUS];
	struct lt_fbs s;
	struct got g; /* what the last drain handed on */
};

static void fix_init(struct fix *f)
{
	memset(f, 0, sizeof(*f));
	f->units = calloc(NCPUS * NUNITS, sizeof(*f->units));
	cr_assert(f->units);
	f->s.units = f->units;
	f->s.tails = f->tails;
	f->s.ncpus = NCPUS;
	f->s.nunits = NUNITS;
}

static void fix_free(struct fix *f)
{
	lt_fbs_free(&f->s);
	free(f->units);
}

/* A record of len bytes (a header with ts and tid, the rest filler)
 * written as fb_copy does at claim s of cpu c; complete: its length in the
 * first tag (else left as being written). */
static void put_at(struct fix *f, unsigned c, uint64_t s, uint64_t ts, uint32_t tid, uint32_t len,
		   int complete)
{
	uint8_t rec[LT_FB_MAXREC];
	memset(rec, 0xab, sizeof(rec));
	struct lt_ev_hdr h = { .ts = ts, .tid = tid, .cpu = (uint16_t)c, .kind = LT_EV_WAKING };
	memcpy(rec, &h, sizeof(h));
	struct lt_fb_unit *base = f->units + c * NUNITS;
	uint32_t k = LT_FB_UNITS(len);
	for (uint32_t i = 0; i < k; i++) {
		struct lt_fb_unit *u = &base[(s + i) & (NUNITS - 1)];
		u->tag = LT_FB_TAG(s, 0);
		uint32_t n = len - i * LT_FB_UDATA;
		memcpy(u->data, rec + i * LT_FB_UDATA, n < LT_FB_UDATA ? n : LT_FB_UDATA);
	}
	if (complete)
		base[s & (NUNITS - 1)].tag = LT_FB_TAG(s, len);
}

static void put(struct fix *f, unsigned c, uint64_t ts, uint32_t tid, uint32_t len)
{
	put_at(f, c, f->head[c], ts, tid, len, 1);
	f->head[c] += LT_FB_UNITS(len);
}

/* One drain up to upto: exactly n records handed on, of these tids in
 * order (f->g holds them) */
static void drained(struct fix *f, uint64_t upto, int n, const uint32_t *tids)
{
	f->g.n = 0;
	cr_assert_eq(lt_fbs_drain(&f->s, upto, take, &f->g), n);
	for (int i = 0; i < n; i++)
		cr_assert_eq(f->g.tid[i], tids[i], "record %d: tid %u, expected %u", i, f->g.tid[i], tids[i]);
}

Test(fbstream, cpus_merged_in_time_order_up_to_the_bound_and_units_given_back)
{
	struct fix f;
	fix_init(&f);
	/* cpu 0: times 10, 30, 50 (a two-unit record at 30); cpu 1: 20, 40, 60 */
	put(&f, 0, 10, 1, 48);
	put(&f, 0, 30, 2, 104);
	put(&f, 0, 50, 3, 48);
	put(&f, 1, 20, 4, 48);
	put(&f, 1, 40, 5, 136);
	put(&f, 1, 60, 6, 48);
	drained(&f, 45, 4, (const uint32_t[]){ 1, 4, 2, 5 });
	cr_assert_eq(f.g.len[2], 104);
	cr_assert_eq(f.g.len[3], 136);
	/* the units of the records handed on are given back, not those of
	 * the records past the bound (one unit each, last) */
	cr_assert_eq(f.tails[0].tail, f.head[0] - 1);
	cr_assert_eq(f.tails[1].tail, f.head[1] - 1);
	drained(&f, UINT64_MAX, 2, (const uint32_t[]){ 3, 6 });
	cr_assert_eq(f.s.late, 0);
	fix_free(&f);
}

/* A record being written (its first unit without its length) stops its
 * cpu's reading, the units before it given back; the next drain takes it
 * and what follows. */
Test(fbstream, a_record_being_written_is_read_at_the_next_drain)
{
	struct fix f;
	fix_init(&f);
	put(&f, 0, 10, 1, 48);
	put_at(&f, 0, f.head[0], 20, 2, 104, 0);
	uint64_t at = f.head[0];
	f.head[0] += 2;
	put(&f, 0, 30, 3, 48);
	drained(&f, UINT64_MAX, 1, (const uint32_t[]){ 1 });
	cr_assert_eq(f.tails[0].tail, at, "tail %llu, the record being written at %llu",
		     (unsigned long long)f.tails[0].tail, (unsigned long long)at);
	put_at(&f, 0, at, 20, 2, 104, 1);
	drained(&f, UINT64_MAX, 2, (const uint32_t[]){ 2, 3 });
	cr_assert_eq(f.tails[0].tail, f.head[0]);
	fix_free(&f);
}

/* Units of the last lap are not records: a cpu whose units went round
 * once is read from its tail, across the array's end. */
Test(fbstream, units_across_the_arrays_end)
{
	struct fix f;
	fix_init(&f);
	f.head[1] = 2 * NUNITS - 1;
	f.tails[1].tail = 2 * NUNITS - 1;
	/* the last lap's tags where these go (numbers NUNITS below) */
	for (uint64_t u = 2 * NUNITS - 1; u < 2 * NUNITS + 4; u++)
		f.units[NUNITS + (u & (NUNITS - 1))].tag = LT_FB_TAG(u - NUNITS, 48);
	put(&f, 1, 5, 7, 104); /* units 2N-1 and 2N: the end crossed */
	put(&f, 1, 6, 8, 48);
	drained(&f, UINT64_MAX, 2, (const uint32_t[]){ 7, 8 });
	cr_assert_eq(f.tails[1].tail, 2 * NUNITS + 2);
	/* nothing new: the last lap's tags at the tail are not read */
	drained(&f, UINT64_MAX, 0, NULL);
	fix_free(&f);
}

/* Two records claimed at the same number (an interrupt between the claim's
 * load and store): the interrupted one, three units, written last over
 * the other's one unit; read after the interrupt's record was, its two
 * other units are remnants, skipped, and the next record is read. */
Test(fbstream, the_rest_of_a_record_written_over_is_skipped)
{
	struct fix f;
	fix_init(&f);
	f.tails[0].tail = 1; /* units are numbered from 1 (loader.c) */
	put_at(&f, 0, 1, 20, 1, 48, 1); /* the interrupt's record */
	drained(&f, UINT64_MAX, 1, (const uint32_t[]){ 1 });
	cr_assert_eq(f.tails[0].tail, 2);
	put_at(&f, 0, 1, 10, 2, 150, 1); /* the interrupted one: units 1-3 */
	f.head[0] = 4;
	put(&f, 0, 30, 3, 48);
	drained(&f, UINT64_MAX, 1, (const uint32_t[]){ 3 });
	cr_assert_eq(f.s.remnants, 2);
	cr_assert_eq(f.tails[0].tail, 5);
	fix_free(&f);
}

/* A record read after a later one was handed on (its writer held up past
 * the margin) is handed on all the same, and counted late. */
Test(fbstream, a_record_later_than_the_bound_is_counted_late)
{
	struct fix f;
	fix_init(&f);
	put(&f, 1, 50, 1, 48);
	drained(&f, 100, 1, (const uint32_t[]){ 1 });
	put(&f, 0, 40, 2, 48);
	drained(&f, 100, 1, (const uint32_t[]){ 2 });
	cr_assert_eq(f.s.late, 1);
	fix_free(&f);
}
