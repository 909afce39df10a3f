/* SPDX-License-Identifier: MIT */
/*
 * The body of lt_callnorm_feed (src/trace/callnorm.c), inline, for the
 * collector's loop (src/record/record_loop.c): it runs for every event with
 * --calls blocking (BENCHMARKS.md, "the collector, again").  Private to
 * src/.
 */
#ifndef LT_CALLNORM_FEED_H
#define LT_CALLNORM_FEED_H

#include <stdlib.h>
#include <string.h>
#include "callnorm.h"
#include "taskrun.h"
#include "u64map.h"

/* threads: tid -> state; absent: not seen leaving a cpu since tracing
 * began (so it may be asleep in a call we never saw start) */
#define CN_ST_RAN ((uintptr_t)1) /* seen, in no call we know of */
/* CN_ST_RAN + 1 + nr: asleep (or woken, not yet run) in call nr */
/* asleep in a call when tracing began, as the header saw it */
#define CN_ST_BEFORE (CN_ST_RAN + 1 + LT_NR_UNKNOWN)

/* wakers: tid -> the call a thread is waking others from (LT_F_AT_WAKE);
 * it returns at the last wake-up it issued, written at the thread's next
 * event */
struct cn_wcall {
	uint64_t key;  /* futex address or fd: tells one call from the next */
	uint64_t last; /* ts of its last wake-up */
	uint16_t nr, cpu;
};

static inline void cn_set_state(struct lt_callnorm *n, uint32_t tid, uintptr_t st)
{
	if (tid && lt_u64map_put(n->threads, tid, (void *)st))
		n->oom = 1;
}

/* cn_set_state for a thread most likely known already: its state replaced in
 * place (what lt_u64map_put does then), without the call */
static inline void cn_set_known_state(struct lt_callnorm *n, uint32_t tid, uintptr_t st)
{
	void **ref = tid ? lt_u64map_ref(n->threads, tid) : NULL;
	if (ref)
		*ref = (void *)st;
	else
		cn_set_state(n, tid, st);
}

static inline void cn_emit_return(struct lt_callnorm *n, uint64_t ts, uint16_t cpu, uint32_t tid,
				  uint16_t nr, uint8_t flags, lt_callnorm_out out, void *ctx)
{
	if (nr == LT_NR_UNKNOWN)
		flags |= LT_F_BEGAN_BEFORE; /* the call the header saw */
	struct lt_event x;

	memset(&x, 0, sizeof(x));
	x.h.ts = ts;
	x.h.cpu = cpu;
	x.h.tid = tid;
	x.h.kind = LT_EV_SYS_EXIT;
	x.h.flags = LT_F_RET_UNKNOWN | flags;
	x.exit.nr = nr;
	n->synthesized++;
	out(ctx, &x);
}

/* tid is seen doing something (a call, a wake-up it issues, leaving a
 * cpu): if it is still asleep in a call as far as we know, the switch
 * that ran it again was not in the stream (lost, or not reported: a
 * kernel may skip sched_switch when the task leaving the cpu is one it
 * hides from tracing).  The call has returned by now: its return is
 * placed here, the first moment the thread is known to have run. */
static inline __attribute__((always_inline)) void cn_ran_by_now(struct lt_callnorm *n, uint32_t tid,
								 uint64_t ts, uint16_t cpu,
								 lt_callnorm_out out, void *ctx)
{
	void **ref = lt_u64map_ref(n->threads, tid);
	uintptr_t st = ref ? (uintptr_t)*ref : 0;

	if (st <= CN_ST_RAN)
		return;
	/* (emitting a return does not change the map: ref stays valid) */
	if (st == CN_ST_BEFORE && ts < n->seeded_at) {
		/* acting before the header was complete: it may have fallen
		 * asleep after we attached, in the very call the header saw */
		*ref = (void *)CN_ST_RAN;
		return;
	}
	n->unseen_runs++;
	cn_emit_return(n, ts, cpu, tid, (uint16_t)(st - CN_ST_RAN - 1), 0, out, ctx);
	*ref = (void *)CN_ST_RAN;
}

/* The waking call of tid, if one is open, returns now. */
static inline __attribute__((always_inline)) void cn_end_wake_call(struct lt_callnorm *n,
								    uint32_t tid, lt_callnorm_out out,
								    void *ctx)
{
	struct cn_wcall *w;

	if (!n->wakers->n || !(w = lt_u64map_get(n->wakers, tid)))
		return;
	cn_emit_return(n, w->last, w->cpu, tid, w->nr, 0, out, ctx);
	lt_u64map_del(n->wakers, tid);
	*(void **)w = n->spare; /* kept for the next waking call */
	n->spare = w;
}

/* What follows an event, when it is delivered: a return (its thread, call,
 * and flags as cn_emit_return takes them) or nothing (tid 0 never: no return
 * is placed for tid 0). */
struct cn_after {
	uint32_t tid;
	uint16_t nr;
	int emit;
};

/* An entry: the returns it implies go out first; 0 if the event itself is
 * not delivered (one more wake-up of the same waking call). */
static inline __attribute__((always_inline)) int cn_on_enter(struct lt_callnorm *n,
							     const struct lt_event *ev, uint8_t kind,
							     struct cn_after *after,
							     lt_callnorm_out out_ret, void *ctx)
{
	uint32_t tid = ev->h.tid;
	uint16_t nr;
	uint64_t key;

	if (kind == LT_EV_FUTEX_ENTER) {
		nr = ev->futex.nr;
		key = ev->futex.uaddr;
	} else if (kind == LT_EV_FLOCK_ENTER) {
		nr = ev->flk.nr;
		key = (uint64_t)(uint32_t)ev->flk.fd;
	} else if (kind == LT_EV_WAIT_ENTER) {
		nr = ev->wait.nr;
		key = 0;
	} else {
		nr = ev->io.nr;
		key = (uint64_t)(uint32_t)ev->io.fd;
	}
	if (ev->h.flags & LT_F_AT_WAKE) {
		struct cn_wcall *w = n->wakers->n ? lt_u64map_get(n->wakers, tid) : NULL;
		if (w && w->nr == nr && w->key == key)
			return 0; /* the same call waking one more thread */
		cn_end_wake_call(n, tid, out_ret, ctx);
		if ((w = n->spare))
			n->spare = *(void **)w;
		else
			w = malloc(sizeof(*w));
		if (!w || lt_u64map_put(n->wakers, tid, w)) {
			free(w);
			n->oom = 1;
			/* it returns at once, after its entry */
			after->tid = tid;
			after->nr = nr;
			after->emit = 1;
			return 1;
		}
		w->key = key;
		w->last = ev->h.ts;
		w->nr = nr;
		w->cpu = ev->h.cpu;
		return 1;
	}
	cn_end_wake_call(n, tid, out_ret, ctx);
	if (ev->h.flags & LT_F_AT_SLEEP) {
		cn_set_known_state(n, tid, CN_ST_RAN + 1 + nr);
		n->sleep_switch = tid; /* the switch written with it comes next */
	}
	return 1;
}

/* A task of the traced processes (switches name other tasks too). */
static inline int cn_traced_tgid(const struct lt_callnorm *n, uint32_t tgid)
{
	return tgid == n->tgid || (n->is_traced && n->is_traced(n->traced_ctx, tgid));
}

/* A switch: the return of the waking call of the task leaving goes out
 * before it, the return of the call of the task it runs after it. */
static inline __attribute__((always_inline)) void cn_on_switch(struct lt_callnorm *n,
								const struct lt_event *ev,
								struct cn_after *after,
								lt_callnorm_out out_ret, void *ctx)
{
	uint32_t prev = ev->sw.prev_tid, next = ev->sw.next_tid;
	uintptr_t st;

	if (prev && cn_traced_tgid(n, ev->sw.prev_tgid)) {
		cn_end_wake_call(n, prev, out_ret, ctx);
		/* the entry of a call it sleeps in, if any, came just before */
		if (!lt_u64map_get(n->threads, prev))
			cn_set_state(n, prev, CN_ST_RAN);
	}
	if (!next || !cn_traced_tgid(n, ev->sw.next_tgid))
		return;
	void **ref = lt_u64map_ref(n->threads, next);
	st = ref ? (uintptr_t)*ref : 0;
	if (st > CN_ST_RAN) { /* (CN_ST_BEFORE: flagged as began before) */
		after->tid = next;
		after->nr = (uint16_t)(st - CN_ST_RAN - 1);
		after->emit = 1;
	} else if (!st) { /* asleep (or waiting for a cpu) since before tracing */
		after->tid = next;
		after->nr = LT_NR_UNKNOWN;
		after->emit = 1;
	}
	/* (the map is not changed by delivering: what out does is the
	 * caller's, not ours) */
	if (ref)
		*ref = (void *)CN_ST_RAN;
	else
		cn_set_state(n, next, CN_ST_RAN);
}

/* The events fed, with their kind (ev->h.kind, a constant where the
 * caller knows it). */
typedef void (*lt_callnorm_out_kind)(void *ctx, const struct lt_event *ev, uint8_t kind);

/* lt_callnorm_feed, inline: with out and out_ret constants (the
 * collector's), the calls between these functions are gone and the event
 * itself is delivered from one place (out may be inlined there).  out_ret
 * receives the returns added (LT_EV_SYS_EXIT, LT_F_RET_UNKNOWN), out the
 * events fed; the order of the two kinds is as lt_callnorm_feed's.  kind is
 * ev->h.kind: a constant, the switches on it fold. */
static inline __attribute__((always_inline)) void lt_callnorm_feed_kind(struct lt_callnorm *n,
								       const struct lt_event *ev,
								       uint8_t kind,
								       lt_callnorm_out_kind out,
								       lt_callnorm_out out_ret, void *ctx)
{
	/* paired: the tid whose sleep entry came just before, in the same
	 * ring record as this switch (0 if none): its switch is the sleep,
	 * not a sign that it ran */
	uint32_t paired = n->sleep_switch, actor = lt_run_actor_kind(ev, kind);
	struct cn_after after = { 0, 0, 0 };

	n->sleep_switch = 0;
	if (kind == LT_EV_SWITCH && (actor == paired || !cn_traced_tgid(n, ev->sw.prev_tgid)))
		actor = 0;
	if (actor)
		cn_ran_by_now(n, actor, ev->h.ts, ev->h.cpu, out_ret, ctx);
	switch (kind) {
	case LT_EV_FUTEX_ENTER:
	case LT_EV_WAIT_ENTER:
	case LT_EV_IO_ENTER:
	case LT_EV_FLOCK_ENTER:
		if (!cn_on_enter(n, ev, kind, &after, out_ret, ctx))
			return;
		break;
	case LT_EV_SWITCH:
		cn_on_switch(n, ev, &after, out_ret, ctx);
		break;
	case LT_EV_WAKING: {
		struct cn_wcall *w = n->wakers->n ? lt_u64map_get(n->wakers, ev->wake.waker_tid) : NULL;
		if (w && lt_run_woken_by_task(ev))
			w->last = ev->h.ts;
		break;
	}
	case LT_EV_TASK_NEW:
		cn_set_state(n, ev->h.tid, CN_ST_RAN);
		break;
	case LT_EV_TASK_EXIT:
		cn_end_wake_call(n, ev->h.tid, out_ret, ctx);
		lt_u64map_del(n->threads, ev->h.tid);
		break;
	default:
		break;
	}
	out(ctx, ev, kind);
	if (after.emit)
		cn_emit_return(n, ev->h.ts, ev->h.cpu, after.tid, after.nr, 0, out_ret, ctx);
}

#endif
