// SPDX-License-Identifier: MIT
/* Stall detection from events (rules in src/record/stall.h). */
#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "durfmt.h"
#include "filelock.h"
#include "locktrace/calls.h"
#include "locktrace/flightbuf.h"
#include "locktrace/futex.h"
#include "stall.h"
#include "taskrun.h"

_Static_assert(LT_FB_ETIMEDOUT == ETIMEDOUT, "flightbuf.h: -ETIMEDOUT");
_Static_assert(LT_FB_TS_NONE == LT_TS_NONE && LT_FB_TS_FUTEX_WAIT == LT_TS_FUTEX_WAIT &&
	       LT_FB_TS_FUTEX_OTHER == LT_TS_FUTEX_OTHER && LT_FB_TS_IOWAIT == LT_TS_IOWAIT &&
	       LT_FB_WOKEN_BY_TASK == LT_WOKEN_BY_TASK && LT_FB_WOKEN_BY_IRQ == LT_WOKEN_BY_IRQ,
	       "flightbuf.h mirrors stall.h");


int lt_stall_rule_parse(const char *name)
{
	if (!strcmp(name, "locks"))
		return LT_STALL_LOCKS;
	if (!strcmp(name, "progress"))
		return LT_STALL_PROGRESS;
	return -1;
}

const char *lt_stall_rule_name(int rule)
{
	return rule == LT_STALL_PROGRESS ? "progress" : "locks";
}

int lt_stall_init(struct lt_stall *s, int rule, uint64_t window_ns, uint64_t start_ts)
{
	memset(s, 0, sizeof(*s));
	s->rule = rule;
	s->window_ns = window_ns;
	s->last_progress = s->last_lock_progress = s->floor = start_ts;
	return 0;
}

const struct lt_stall_thread *lt_stall_next(const struct lt_stall *s, size_t *pos)
{
	for (; *pos < s->threads.cap; ++*pos)
		if (s->threads.keys[*pos])
			return s->threads.vals[(*pos)++];
	return NULL;
}

/* Writable: the functions of this file only. */
#define EACH_THREAD(s, t)                                                                          \
	for (size_t pos_ = 0; ((t) = (struct lt_stall_thread *)lt_stall_next((s), &pos_));)

void lt_stall_free(struct lt_stall *s)
{
	struct lt_stall_thread *t;
	EACH_THREAD(s, t)
		free(t);
	lt_u64map_free(&s->threads);
}

/* The thread tid (non-zero), added if create; NULL if unknown or out of
 * memory. */
static struct lt_stall_thread *lookup(struct lt_stall *s, uint32_t tid, int create)
{
	struct lt_stall_thread *t = tid ? lt_u64map_get(&s->threads, tid) : NULL;
	if (t || !create || !tid)
		return t;
	if (!(t = calloc(1, sizeof(*t))))
		return NULL;
	t->tid = tid;
	if (lt_u64map_put(&s->threads, tid, t)) {
		free(t);
		return NULL;
	}
	return t;
}

static void remove_tid(struct lt_stall *s, uint32_t tid)
{
	struct lt_stall_thread *t = lookup(s, tid, 0);
	if (!t)
		return;
	lt_u64map_del(&s->threads, tid);
	free(t);
}

/* A futex wait whose expected value is the tid of a thread of the process
 * is pthread_join() sleeping on that thread's tid word: waiting for a
 * thread to finish is not waiting for a lock. */
static int is_join_wait(struct lt_stall *s, uint32_t val)
{
	return val && lookup(s, val, 0) != NULL;
}

/* A thread asleep at attach in a blocking file-lock call (flock without
 * LOCK_NB, fcntl F_SETLKW / F_OFD_SETLKW) waits for a lock like a futex
 * waiter.  Those calls are not traced: its wake-up (the lock granted, or
 * a signal) ends the wait.  futex_op holds this marker. */
#define FILE_LOCK_OP 0xffffffffu
/* A file-lock wait whose entry was recorded (FLOCK_ENTER): its return
 * ends it, as a futex wait's does; lt_stall_thread.flk has the call. */
#define FILE_LOCK_OP_TRACED 0xfffffffeu

static int file_lock_wait(int64_t nr, const uint64_t *a)
{
	return (nr == 73 && !(a[1] & 4) && (a[1] & 3)) || (nr == 72 && (a[1] == 7 || a[1] == 38));
}

void lt_stall_seed(struct lt_stall *s, uint32_t tid, int64_t sc_nr, const uint64_t args[6],
		   uint64_t since)
{
	struct lt_stall_thread *t = lookup(s, tid, 1); /* known threads: see is_join_wait */
	if (sc_nr < 0 || !t)
		return;
	if (sc_nr == LT_NR_FUTEX || sc_nr == LT_NR_FUTEX_WAIT || sc_nr == LT_NR_FUTEX_WAITV) {
		uint32_t op = sc_nr == LT_NR_FUTEX ? (uint32_t)args[1] : 0;
		t->state = lt_futex_waits((uint16_t)sc_nr, op) ? LT_TS_FUTEX_WAIT : LT_TS_FUTEX_OTHER;
		if (t->state == LT_TS_FUTEX_WAIT && sc_nr == LT_NR_FUTEX && is_join_wait(s, (uint32_t)args[2]))
			t->state = LT_TS_IOWAIT;
		t->futex_op = op;
		t->uaddr = args[0];
		if (t->state == LT_TS_FUTEX_WAIT) {
			t->last_uaddr = t->uaddr;
			t->last_wait_at = since;
		}
	} else if (file_lock_wait(sc_nr, args)) {
		t->state = LT_TS_FUTEX_WAIT;
		t->futex_op = FILE_LOCK_OP;
		t->uaddr = 0;
	} else {
		t->state = LT_TS_IOWAIT;
	}
	t->since = since;
	t->woken = LT_WOKEN_NONE;
	t->judged = t->idle = 0;
	t->timeout = -1; /* what is left of it is unknown */
}

/* --calls blocking: how did the open call of t end?  1 success, 0 not (a
 * timeout, or unknown): see the rule in stall.h. */
static int ended_well(const struct lt_stall_thread *t)
{
	if (t->woken == LT_WOKEN_BY_TASK)
		return 1;
	if (t->woken != LT_WOKEN_BY_IRQ || t->state != LT_TS_IOWAIT)
		return 0;
	/* an interrupt: a device with data, unless the timer had run out
	 * (the sleep began a little after the call, so allow 1 ms).  Judged
	 * at the wake-up: the return is written when the thread runs again,
	 * which may be later (a busy cpu, or a switch the kernel did not
	 * report, when the return comes at the thread's next event). */
	return t->timeout < 0 || t->woken_at - t->since + 1000000 < (uint64_t)t->timeout;
}

void lt_stall_event(struct lt_stall *s, const struct lt_event *ev)
{
	struct lt_stall_thread *t;

	switch (ev->h.kind) {
	case LT_EV_FUTEX_ENTER:
		if (!(t = lookup(s, ev->h.tid, 1)))
			return;
		t->state = lt_futex_waits(ev->futex.nr, ev->futex.op) ? LT_TS_FUTEX_WAIT
								      : LT_TS_FUTEX_OTHER;
		if (t->state == LT_TS_FUTEX_WAIT && ev->futex.nr == LT_NR_FUTEX &&
		    is_join_wait(s, ev->futex.val))
			t->state = LT_TS_IOWAIT; /* not a lock; progress on return */
		t->futex_op = ev->futex.op | (uint32_t)ev->futex.nr << 16;
		t->uaddr = ev->futex.uaddr;
		t->since = ev->h.ts;
		t->judged = t->idle = 0;
		if (t->state == LT_TS_FUTEX_WAIT) {
			if (t->retry_uaddr && t->retry_uaddr == t->uaddr) {
				/* the same wait again after its time ran out */
				t->since = t->retry_since;
				t->judged = t->retry_judged;
				t->idle = t->retry_idle;
			}
			t->retry_uaddr = 0;
			t->last_uaddr = t->uaddr;
			t->last_wait_at = ev->h.ts;
		}
		t->woken = LT_WOKEN_NONE;
		t->timeout = -1;
		break;
	case LT_EV_FLOCK_ENTER:
		if (!(t = lookup(s, ev->h.tid, 1)))
			return;
		/* a file-lock call that can wait counts as a lock wait; one
		 * that cannot (LOCK_NB, F_SETLK, an unlock) as any call */
		if (lt_flock_may_wait(ev->flk.nr, ev->flk.cmd, ev->flk.type)) {
			t->state = LT_TS_FUTEX_WAIT;
			t->futex_op = FILE_LOCK_OP_TRACED;
		} else {
			t->state = LT_TS_IOWAIT;
		}
		t->flk = ev->flk;
		t->uaddr = 0;
		t->since = ev->h.ts;
		t->woken = LT_WOKEN_NONE;
		t->judged = t->idle = 0;
		t->timeout = -1;
		break;
	case LT_EV_WAIT_ENTER:
	case LT_EV_IO_ENTER:
		if (!(t = lookup(s, ev->h.tid, 1)))
			return;
		t->state = LT_TS_IOWAIT;
		t->since = ev->h.ts;
		t->woken = LT_WOKEN_NONE;
		t->judged = t->idle = 0;
		t->timeout = ev->h.kind == LT_EV_WAIT_ENTER ? ev->wait.timeout_ns : -1;
		break;
	case LT_EV_WAKING:
		/* the first wake-up of a sleep ends it (a thread woken by the
		 * timer and then by a wake that came too late was timed out) */
		if ((t = lookup(s, ev->h.tid, 0)) && t->state == LT_TS_FUTEX_WAIT && t->futex_op == FILE_LOCK_OP) {
			/* the file lock granted (or a signal): no exit event follows */
			t->state = LT_TS_NONE;
			s->last_lock_progress = s->last_progress = ev->h.ts;
			s->progress_events++;
			break;
		}
		if (t && t->state != LT_TS_NONE && !t->woken) {
			t->woken = lt_run_woken_by_task(ev) ? LT_WOKEN_BY_TASK : LT_WOKEN_BY_IRQ;
			t->woken_at = ev->h.ts;
		}
		break;
	case LT_EV_SYS_EXIT:
		if (!(t = lookup(s, ev->h.tid, 0)))
			return;
		int64_t ret = ev->exit.ret;
		/* --calls blocking: the thread ran again after sleeping in the
		 * call; its wake-up says whether it succeeded (0 / 1) */
		if (ev->h.flags & LT_F_RET_UNKNOWN) {
			int ok = t->state == LT_TS_FUTEX_OTHER || ended_well(t);
			ret = !ok ? -1 : t->state == LT_TS_FUTEX_WAIT ? 0 : 1;
		}
		if (t->state == LT_TS_FUTEX_WAIT && ret != 0 &&
		    (ret == -ETIMEDOUT || ((ev->h.flags & LT_F_RET_UNKNOWN) && t->woken == LT_WOKEN_BY_IRQ))) {
			/* out of time (a timer's interrupt woke it): a wait on
			 * the same futex next goes on with this one */
			t->retry_uaddr = t->uaddr;
			t->retry_since = t->since;
			t->retry_judged = t->judged;
			t->retry_idle = t->idle;
		} else if (t->state != LT_TS_FUTEX_OTHER) {
			t->retry_uaddr = 0; /* it got somewhere, or waited for something else */
		}
		if (t->state == LT_TS_FUTEX_WAIT && ret == 0) {
			s->last_lock_progress = s->last_progress = ev->h.ts;
			s->progress_events++;
		} else if (t->state == LT_TS_FUTEX_OTHER) {
			uint16_t nr = (uint16_t)(t->futex_op >> 16);
			if (lt_futex_wakes(nr ? nr : LT_NR_FUTEX, t->futex_op & 0xffff) && ret > 0) {
				s->last_lock_progress = s->last_progress = ev->h.ts;
				s->progress_events++;
			}
		} else if (t->state == LT_TS_IOWAIT && ret > 0) {
			s->last_progress = ev->h.ts;
			s->progress_events++;
		}
		t->state = LT_TS_NONE;
		break;
	case LT_EV_TASK_NEW:
		lookup(s, ev->h.tid, 1);
		break;
	case LT_EV_TASK_EXIT:
		remove_tid(s, ev->h.tid);
		break;
	}
}

/* Whether a's call began before b's; of two that began together, the
 * lower tid: the one named does not depend on the map's order. */
static int older(const struct lt_stall_thread *a, const struct lt_stall_thread *b)
{
	return a->since < b->since || (a->since == b->since && a->tid < b->tid);
}

int lt_stall_check(const struct lt_stall *s, uint64_t now, char *why, size_t len)
{
	uint64_t w = s->window_ns;
	size_t blocked = 0, futex_waiters = 0, file_waiters = 0; /* of futex_waiters: file locks */
	const struct lt_stall_thread *longest = NULL;

	if (now < w || now - s->last_progress < w)
		return 0;
	if (s->rule == LT_STALL_LOCKS && now - s->last_lock_progress < w)
		return 0;
	const struct lt_stall_thread *t;
	for (size_t pos = 0; (t = lt_stall_next(s, &pos));) {
		if (t->state == LT_TS_NONE || now - t->since < w)
			continue;
		if (t->state == LT_TS_FUTEX_WAIT && !t->judged && t->unseen_at == now)
			continue; /* a look just found it out of the wait */
		blocked++;
		if (t->state == LT_TS_FUTEX_WAIT && !t->idle) {
			futex_waiters++;
			file_waiters += t->futex_op == FILE_LOCK_OP || t->futex_op == FILE_LOCK_OP_TRACED;
			if (!longest || longest->state != LT_TS_FUTEX_WAIT || longest->idle ||
			    older(t, longest))
				longest = t;
		} else if (!longest) {
			longest = t; /* an idle futex wait too: blocked, no lock wait */
		}
	}
	if (s->rule == LT_STALL_LOCKS ? futex_waiters == 0 : blocked == 0)
		return 0;
	char where[200], call[160];
	if (longest->state == LT_TS_FUTEX_WAIT && longest->futex_op == FILE_LOCK_OP)
		snprintf(where, sizeof(where), "tid %u in a file-lock wait (flock/fcntl)", longest->tid);
	else if (longest->state == LT_TS_FUTEX_WAIT && longest->futex_op == FILE_LOCK_OP_TRACED)
		snprintf(where, sizeof(where), "tid %u in a file-lock wait, %s", longest->tid,
			 (lt_flock_call_str(&longest->flk, NULL, call, sizeof(call)), call));
	else if (longest->state == LT_TS_FUTEX_WAIT && longest->idle)
		snprintf(where, sizeof(where), "tid %u idle on futex 0x%" PRIx64 " (waits for work)", longest->tid,
			 longest->uaddr);
	else if (longest->state == LT_TS_FUTEX_WAIT)
		snprintf(where, sizeof(where), "tid %u on futex 0x%" PRIx64, longest->tid, longest->uaddr);
	else
		snprintf(where, sizeof(where), "tid %u in a blocking call", longest->tid);
	/* lock waits: futex waits and file-lock waits, said apart */
	char waits[96];
	if (file_waiters)
		snprintf(waits, sizeof(waits), "%zu in futex waits, %zu in file-lock waits", futex_waiters - file_waiters,
			 file_waiters);
	else
		snprintf(waits, sizeof(waits), "%zu in futex waits", futex_waiters);
	/* durations as "2.00 s" or "1.5 ms": a --stall window under 50 ms
	 * would read "0.0 s" with one decimal */
	char win[32], longest_for[32], quiet[32];
	lt_fmt_dur(w, win, sizeof(win));
	lt_fmt_dur(now - longest->since, longest_for, sizeof(longest_for));
	lt_fmt_dur(now - s->last_progress, quiet, sizeof(quiet));
	snprintf(why, len,
		 "%zu thread%s blocked for over %s (%s; longest: %s for %s); "
		 "no %s for %s",
		 blocked, blocked == 1 ? "" : "s", win, waits, where, longest_for,
		 s->rule == LT_STALL_LOCKS ? "lock hand-off or successful blocking call"
					   : "successful blocking call",
		 quiet);
	return 1;
}

size_t lt_stall_unjudged(const struct lt_stall *s, uint64_t now, uint32_t *tids, size_t max)
{
	size_t n = 0;
	const struct lt_stall_thread *t;
	for (size_t pos = 0; (t = lt_stall_next(s, &pos));) {
		if (t->state != LT_TS_FUTEX_WAIT || t->judged || t->futex_op == FILE_LOCK_OP ||
		    t->futex_op == FILE_LOCK_OP_TRACED || now < t->since || now - t->since < s->window_ns)
			continue;
		if (n < max)
			tids[n] = t->tid;
		n++;
	}
	return n;
}

void lt_stall_unseen(struct lt_stall *s, uint32_t tid, uint64_t now)
{
	struct lt_stall_thread *t = lookup(s, tid, 0);
	if (t && t->state == LT_TS_FUTEX_WAIT && !t->judged)
		t->unseen_at = now;
}

void lt_stall_judge(struct lt_stall *s, uint32_t tid, uint64_t uaddr, int idle)
{
	struct lt_stall_thread *t = lookup(s, tid, 0);
	if (!t || t->state != LT_TS_FUTEX_WAIT || t->futex_op == FILE_LOCK_OP ||
	    t->futex_op == FILE_LOCK_OP_TRACED)
		return;
	if (uaddr && uaddr != t->uaddr)
		return; /* seen in another wait: not the one judged (lt_stall_unseen) */
	t->judged = 1;
	t->idle = idle && uaddr;
}

const struct lt_stall_thread *lt_stall_thread_of(const struct lt_stall *s, uint32_t tid)
{
	return lookup((struct lt_stall *)s, tid, 0);
}

size_t lt_stall_waited_in(const struct lt_stall *s, uint64_t lo, uint64_t hi, uint64_t since,
			  uint32_t except)
{
	size_t n = 0;
	const struct lt_stall_thread *t;
	for (size_t pos = 0; (t = lt_stall_next(s, &pos));) {
		if (t->tid == except)
			continue;
		n += (t->state == LT_TS_FUTEX_WAIT && t->uaddr >= lo && t->uaddr < hi) ||
		     (t->last_uaddr >= lo && t->last_uaddr < hi && t->last_wait_at >= since);
	}
	return n;
}

size_t lt_stall_waiters_in(const struct lt_stall *s, uint64_t lo, uint64_t hi)
{
	size_t n = 0;
	const struct lt_stall_thread *t;
	for (size_t pos = 0; (t = lt_stall_next(s, &pos));)
		n += t->state == LT_TS_FUTEX_WAIT && t->uaddr >= lo && t->uaddr < hi;
	return n;
}

int lt_stall_load(struct lt_stall *s, const uint32_t *tid, const struct lt_fb_thread *t, size_t n,
		  uint64_t last_progress, uint64_t last_lock_progress, uint64_t progress_events)
{
	struct lt_stall_thread *e;
	EACH_THREAD(s, e)
		e->state = LT_TS_NONE;
	/* known first, so that a join on any of them is recognized */
	for (size_t i = 0; i < n; i++)
		if (!lookup(s, tid[i], 1))
			return -ENOMEM;
	for (size_t i = 0; i < n; i++) {
		struct lt_stall_thread *d = lookup(s, tid[i], 0);
		const struct lt_fb_thread *f = &t[i];
		uint64_t old_since = d->since, old_uaddr = d->uaddr;
		d->state = f->state;
		d->woken = f->woken;
		d->timeout = f->timeout;
		d->futex_op = f->futex_op == LT_FB_FILE_LOCK_OP ? FILE_LOCK_OP
			      : f->futex_op == LT_FB_FILE_LOCK_OP_TRACED ? FILE_LOCK_OP_TRACED
			      : f->futex_op;
		if (d->futex_op == FILE_LOCK_OP_TRACED)
			d->flk = f->flk;
		d->since = f->since > s->since_floor ? f->since : s->since_floor;
		d->woken_at = f->woken_at;
		d->uaddr = f->uaddr;
		uint16_t nr = (uint16_t)(f->futex_op >> 16);
		if (d->state == LT_TS_FUTEX_WAIT && d->futex_op != FILE_LOCK_OP &&
		    d->futex_op != FILE_LOCK_OP_TRACED &&
		    (nr == 0 || nr == LT_NR_FUTEX) && is_join_wait(s, f->val))
			d->state = LT_TS_IOWAIT;
		if (d->state == LT_TS_FUTEX_WAIT) {
			d->last_uaddr = d->uaddr;
			d->last_wait_at = d->since;
		}
		/* a look's judgement holds for the wait it was made on, and
		 * across its retries (the same since and futex: the programs
		 * keep since for a wait retried after its timeout), even if a
		 * poll falls between two of them (the thread in no call) */
		if (d->state != LT_TS_NONE &&
		    (d->state != LT_TS_FUTEX_WAIT || d->since != old_since || d->uaddr != old_uaddr))
			d->judged = d->idle = 0;
	}
	s->last_progress = last_progress > s->floor ? last_progress : s->floor;
	s->last_lock_progress = last_lock_progress > s->floor ? last_lock_progress : s->floor;
	s->progress_events = progress_events;
	return 0;
}

void lt_stall_rearm(struct lt_stall *s, uint64_t now)
{
	s->floor = s->since_floor = now;
	s->last_progress = s->last_lock_progress = now;
	struct lt_stall_thread *t;
	EACH_THREAD(s, t)
		if (t->since < now)
			t->since = now;
}
