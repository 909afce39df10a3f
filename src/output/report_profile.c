// SPDX-License-Identifier: MIT
/* `locktrace report --profile` (report_profile.h): each wait of the
 * timeline that has a stack (STACKS sections) is charged to its (lock,
 * stack) pair; the pairs are ranked by total wait time. */
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>
#include "locksyms.h"
#include "report_profile.h"
#include "stacks.h"
#include "timeline.h"
#include "u64map.h"
#include "utf8.h"
#include "locktrace/tracefile.h"

struct entry {
	uint64_t lock;      /* futex address, or 0 for another wait */
	const char *call;   /* a non-futex wait: its call's name (static) */
	int32_t fd;         /* a socket wait: its fd, else -1 */
	uint32_t stack_id;
	uint32_t tgid;
	uint64_t total_ns, max_ns, count;
};

struct prof {
	const struct lt_stacktab *stacks;
	struct lt_u64map idx; /* key -> entry index + 1 */
	struct entry *e;
	size_t n, cap;
	uint64_t waits, with_stack, wait_ns, stack_ns;
	uint64_t long_waits, long_with_stack; /* of 1 ms or more */
	int oom;
};

static void on_span_end(void *ctx, const struct lt_span *s)
{
	struct prof *p = ctx;
	uint64_t dur = s->end_ts > s->begin_ts ? s->end_ts - s->begin_ts : 0;
	const struct lt_stack *st = lt_stacktab_find(p->stacks, (int32_t)s->tid, s->begin_ts,
						     LT_STACK_WAITER);
	p->waits++;
	p->wait_ns += dur;
	if (dur >= 1000000) {
		p->long_waits++;
		p->long_with_stack += st != NULL;
	}
	if (!st)
		return;
	p->with_stack++;
	p->stack_ns += dur;
	int futex = s->enter.h.kind == LT_EV_FUTEX_ENTER;
	uint64_t lock = futex ? s->enter.futex.uaddr : 0;
	int32_t fd = s->enter.h.kind == LT_EV_IO_ENTER ? s->enter.io.fd : -1;
	const char *call = futex ? NULL : lt_span_name(s);
	uint64_t key = (lock * 0x9E3779B97F4A7C15ull) ^ ((uint64_t)st->id << 32) ^ (uint32_t)fd ^
		       (uint64_t)(uintptr_t)call ^ s->tgid;
	for (;; key++) {
		if (!key)
			continue;
		size_t i = (size_t)(uintptr_t)lt_u64map_get(&p->idx, key);
		if (!i)
			break;
		struct entry *e = &p->e[i - 1];
		if (e->lock == lock && e->stack_id == st->id && e->fd == fd && e->call == call &&
		    e->tgid == s->tgid) {
			e->total_ns += dur;
			e->count++;
			if (dur > e->max_ns)
				e->max_ns = dur;
			return;
		}
	}
	if (p->n == p->cap) {
		size_t nc = p->cap ? p->cap * 2 : 64;
		struct entry *v = realloc(p->e, nc * sizeof(*v));
		if (!v) {
			p->oom = 1;
			return;
		}
		p->e = v;
		p->cap = nc;
	}
	p->e[p->n] = (struct entry){ .lock = lock, .call = call, .fd = fd, .stack_id = st->id,
				     .tgid = s->tgid, .total_ns = dur, .max_ns = dur, .count = 1 };
	if (lt_u64map_put(&p->idx, key, (void *)(uintptr_t)(p->n + 1)))
		p->oom = 1;
	else
		p->n++;
}

static int by_total(const void *a, const void *b)
{
	const struct entry *x = a, *y = b;
	return x->total_ns < y->total_ns ? 1 : x->total_ns > y->total_ns ? -1 : 0;
}

static void print_entry(FILE *out, const struct prof *p, const struct entry *e, size_t rank,
			const struct lt_u64map *names)
{
	char buf[1024];
	fprintf(out, "#%zu  %.1f ms in %" PRIu64 " wait%s (average %.2f ms, longest %.2f ms)  ",
		rank, (double)e->total_ns / 1e6, e->count, e->count == 1 ? "" : "s",
		(double)e->total_ns / 1e6 / (double)e->count, (double)e->max_ns / 1e6);
	if (e->call) {
		fprintf(out, "%s", e->call);
		if (e->fd >= 0)
			fprintf(out, " on fd %d", e->fd);
	} else {
		const char *name = lt_u64map_get(names, e->lock);
		fprintf(out, "futex 0x%" PRIx64, e->lock);
		if (name) {
			fputs(" <", out);
			lt_text_fput(out, name, (size_t)-1);
			fputc('>', out);
		}
	}
	fprintf(out, ", process %u\n", e->tgid);
	const struct lt_stack *st = lt_stacktab_get(p->stacks, e->stack_id);
	for (uint32_t i = 0; st && i < st->nframes; i++) {
		fputs("      ", out);
		lt_text_fput(out, lt_sframe_text(&st->frames[i], buf, sizeof(buf)), (size_t)-1);
		fputc('\n', out);
	}
	if (st && st->end) {
		fputs("      ", out);
		lt_text_fput(out, st->end, (size_t)-1);
		fputc('\n', out);
	}
}

int lt_report_profile(const char *path, FILE *out, unsigned rows, char *err, size_t errlen)
{
	struct lt_reader r;
	struct lt_item it;
	struct lt_stacktab stacks = { 0 };
	struct lt_u64map names = { 0 };
	struct prof p = { .stacks = &stacks };
	int rc = 0;

	err[0] = 0;
	if (lt_reader_open(&r, path, err, errlen))
		return 1;
	if (!rows)
		rows = 10;
	lt_trace_stacks(path, &stacks);
	lt_trace_symbols(path, &names);
	struct lt_timeline_sink sink = { .ctx = &p, .span_end = on_span_end };
	struct lt_timeline *tl = lt_timeline_new(&r.hdr, &sink, NULL);
	if (!tl) {
		snprintf(err, errlen, "out of memory reading %s", path);
		rc = 1;
		goto out;
	}
	while (lt_reader_next(&r, &it) > 0)
		if (it.type == LT_ITEM_EVENT)
			lt_timeline_event(tl, &it.ev);
	lt_timeline_finish(tl, r.have_stats ? r.stats.end_ns : 0);
	if (!r.clean_end || r.stop_reason[0]) {
		snprintf(err, errlen, "%s is cut short (%s): profiled up to its last good chunk", path,
			 r.stop_reason[0] ? r.stop_reason : "no end");
		rc = r.clean_end ? 0 : 3;
	}
	fprintf(out, "Contention profile of %s: where threads waited, by lock and waiting stack\n",
		path);
	if (!stacks.nstacks) {
		fprintf(out, "  no stacks in this trace: record it with --stacks (locktrace record "
			"--stacks ...)\n");
		goto out;
	}
	fprintf(out, "  %" PRIu64 " of %" PRIu64 " blocking calls have a stack: %.1f of %.1f ms of "
		"waiting; of the %" PRIu64 " calls of 1 ms or more, %" PRIu64 " (shorter ones are "
		"sampled)\n\n",
		p.with_stack, p.waits, (double)p.stack_ns / 1e6, (double)p.wait_ns / 1e6, p.long_waits,
		p.long_with_stack);
	if (p.oom)
		fprintf(out, "  (out of memory: some waits are not counted)\n");
	qsort(p.e, p.n, sizeof(*p.e), by_total);
	for (size_t i = 0; i < p.n && i < rows; i++)
		print_entry(out, &p, &p.e[i], i + 1, &names);
	if (p.n > rows)
		fprintf(out, "\n  %zu more (lock, stack) pairs: --all shows them\n", p.n - rows);
out:
	lt_timeline_free(tl);
	free(p.e);
	lt_u64map_free(&p.idx);
	lt_stacktab_free(&stacks);
	lt_symmap_free(&names);
	lt_reader_close(&r);
	return rc;
}
