// SPDX-License-Identifier: MIT
/*
 * The per-cpu batches' events merged back into time order (evmerge.h).
 * Within a cpu, the batched records come in the order they were written,
 * which is that of their times (the switch and wake-up programs run with
 * interrupts off: nothing of the same cpu comes between a record's clock
 * read and its place in the batch); a record written straight to the ring
 * (a thread's start, exit, rename) may arrive before older batched ones of
 * its cpu, and is put in its place from the back of that cpu's queue.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include "evmerge.h"
#include "grow.h"

static struct lt_event *at(struct lt_evq *q, size_t i)
{
	return &q->ev[(q->head + i) & (q->cap - 1)];
}

static int q_grow(struct lt_evq *q)
{
	size_t cap = lt_grow_cap(q->cap, q->n + 1, sizeof(struct lt_event), 256);
	struct lt_event *nv = cap ? malloc(cap * sizeof(*nv)) : NULL;
	if (!nv)
		return -ENOMEM;
	for (size_t i = 0; i < q->n; i++)
		nv[i] = *at(q, i);
	free(q->ev);
	q->ev = nv;
	q->cap = cap;
	q->head = 0;
	return 0;
}

static int q_insert(struct lt_evq *q, const struct lt_event *ev)
{
	if (q->n == q->cap && q_grow(q))
		return -ENOMEM;
	/* after every event of the same or an earlier time: stable */
	size_t i = q->n;
	while (i > 0 && at(q, i - 1)->h.ts > ev->h.ts) {
		*at(q, i) = *at(q, i - 1);
		i--;
	}
	*at(q, i) = *ev;
	q->n++;
	return 0;
}

int lt_evmerge_push(struct lt_evmerge *m, const struct lt_event *ev, lt_evmerge_fn fn, void *ctx)
{
	size_t cpu = ev->h.cpu;

	if (cpu >= m->nq) {
		size_t nq = cpu + 1;
		struct lt_evq *q = realloc(m->q, nq * sizeof(*q));
		if (!q)
			goto oom;
		memset(q + m->nq, 0, (nq - m->nq) * sizeof(*q));
		m->q = q;
		m->nq = nq;
	}
	if (ev->h.ts < m->released)
		m->late++;
	if (q_insert(&m->q[cpu], ev))
		goto oom;
	m->pending++;
	return 0;
oom:
	m->oom++;
	fn(ctx, ev);
	return -ENOMEM;
}

static size_t release(struct lt_evmerge *m, uint64_t upto, int all, lt_evmerge_fn fn, void *ctx)
{
	size_t done = 0;

	while (m->pending) {
		struct lt_evq *best = NULL;
		for (size_t c = 0; c < m->nq; c++) {
			struct lt_evq *q = &m->q[c];
			if (q->n && (!best || at(q, 0)->h.ts < at(best, 0)->h.ts))
				best = q;
		}
		struct lt_event *e = at(best, 0);
		if (!all && e->h.ts > upto)
			break;
		if (e->h.ts > m->released)
			m->released = e->h.ts;
		struct lt_event ev = *e;
		best->head = (best->head + 1) & (best->cap - 1);
		best->n--;
		m->pending--;
		fn(ctx, &ev);
		done++;
	}
	return done;
}

size_t lt_evmerge_release(struct lt_evmerge *m, uint64_t upto, lt_evmerge_fn fn, void *ctx)
{
	return release(m, upto, 0, fn, ctx);
}

size_t lt_evmerge_release_all(struct lt_evmerge *m, lt_evmerge_fn fn, void *ctx)
{
	return release(m, 0, 1, fn, ctx);
}

void lt_evmerge_free(struct lt_evmerge *m)
{
	for (size_t c = 0; c < m->nq; c++)
		free(m->q[c].ev);
	free(m->q);
	memset(m, 0, sizeof(*m));
}
