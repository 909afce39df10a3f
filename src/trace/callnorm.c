// SPDX-License-Identifier: MIT
/* See src/trace/callnorm.h. */
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include "callnorm_feed.h"
#include "taskrun.h"
#include "u64map.h"

int lt_callnorm_init(struct lt_callnorm *n, uint32_t tgid)
{
	memset(n, 0, sizeof(*n));
	n->tgid = tgid;
	n->threads = calloc(1, sizeof(*n->threads));
	n->wakers = calloc(1, sizeof(*n->wakers));
	if (!n->threads || !n->wakers) {
		lt_callnorm_free(n);
		return -ENOMEM;
	}
	return 0;
}

void lt_callnorm_free(struct lt_callnorm *n)
{
	while (n->spare) {
		void *next = *(void **)n->spare;
		free(n->spare);
		n->spare = next;
	}
	if (n->wakers) {
		for (size_t i = 0; i < n->wakers->cap; i++)
			if (n->wakers->keys[i])
				free(n->wakers->vals[i]);
		lt_u64map_free(n->wakers);
		free(n->wakers);
	}
	if (n->threads) {
		lt_u64map_free(n->threads);
		free(n->threads);
	}
	memset(n, 0, sizeof(*n));
}

int lt_callnorm_asleep_at_attach(struct lt_callnorm *n, uint32_t tid, uint64_t now)
{
	n->seeded_at = now;
	if (!tid || lt_u64map_get(n->threads, tid))
		return 0;
	cn_set_state(n, tid, CN_ST_BEFORE);
	return n->oom ? -ENOMEM : 0;
}

/* lt_callnorm_feed's one callback, as lt_callnorm_feed_kind's two */
struct fwd {
	lt_callnorm_out out;
	void *ctx;
};

static void fwd_fed(void *p, const struct lt_event *ev, uint8_t kind)
{
	const struct fwd *f = p;
	(void)kind;
	f->out(f->ctx, ev);
}

static void fwd_ret(void *p, const struct lt_event *ev)
{
	const struct fwd *f = p;
	f->out(f->ctx, ev);
}

void lt_callnorm_feed(struct lt_callnorm *n, const struct lt_event *ev, lt_callnorm_out out,
		      void *ctx)
{
	struct fwd f = { out, ctx };
	lt_callnorm_feed_kind(n, ev, ev->h.kind, fwd_fed, fwd_ret, &f);
}

void lt_callnorm_flush(struct lt_callnorm *n, lt_callnorm_out out, void *ctx)
{
	while (n->wakers->n) {
		for (size_t i = 0; i < n->wakers->cap; i++) {
			if (n->wakers->keys[i]) {
				cn_end_wake_call(n, (uint32_t)n->wakers->keys[i], out, ctx);
				break;
			}
		}
	}
}
