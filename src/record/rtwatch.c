// SPDX-License-Identifier: MIT
/* The runtime-lock witness of the stall rule (src/record/rtwatch.h). */
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "lockmodel.h"
#include "rtwatch.h"
#include "stall.h"
#include "symbols.h"
#include "snapshot_int.h"

#define READ_EVERY_NS 500000000ull
#define GIVE_UP_AFTER 3 /* readings that found no lock with a hand-off count */

/* One lock being watched: what it was when its current stretch began. */
struct watched {
	uint64_t base, size;
	pid_t holder;
	uint64_t handoffs;
	uint64_t since; /* BOOTTIME ns the holder and count were first seen; 0 free */
};

struct lt_rtwatch {
	pid_t pid;
	uint64_t window_ns;
	struct lt_sym *sym;
	unsigned empty_reads;
	bool off;
	uint64_t last_read;
	struct watched *v;
	size_t n;
};

struct lt_rtwatch *lt_rtwatch_new(pid_t pid, uint64_t window_ns)
{
	struct lt_rtwatch *w = calloc(1, sizeof(*w));
	if (w) {
		w->pid = pid;
		w->window_ns = window_ns;
	}
	return w;
}

void lt_rtwatch_free(struct lt_rtwatch *w)
{
	if (!w)
		return;
	lt_sym_close(w->sym);
	free(w->v);
	free(w);
}

void lt_rtwatch_rearm(struct lt_rtwatch *w, uint64_t now)
{
	for (size_t i = 0; w && i < w->n; i++)
		if (w->v[i].since)
			w->v[i].since = now;
}

static struct watched *watched_of(struct lt_rtwatch *w, const struct lt_rtlock *l)
{
	for (size_t i = 0; i < w->n; i++)
		if (w->v[i].base == l->base)
			return &w->v[i];
	struct watched *v = realloc(w->v, (w->n + 1) * sizeof(*v));
	if (!v)
		return NULL;
	w->v = v;
	v[w->n] = (struct watched){ .base = l->base, .size = l->size };
	return &v[w->n++];
}

static void say_stuck(const struct lt_rtlock *l, const struct watched *x, size_t waiters,
		      const struct lt_stall *s, uint64_t now, char *why, size_t len)
{
	if (!l->has_handoffs) { /* kept_while_asleep: the holder's sleep is the evidence */
		const struct lt_stall_thread *h = lt_stall_thread_of(s, (uint32_t)x->holder);
		snprintf(why, len, "%zu %s for the %s (%s%s%s) held by thread %d, which has been in %s "
			 "for %.1f s", waiters, waiters == 1 ? "thread waits" : "threads wait", l->kind,
			 l->name, l->version ? ", " : "", l->version ? l->version : "", (int)x->holder,
			 h && h->state == LT_TS_IOWAIT ? "an I/O wait" : "a futex call",
			 (double)(now - x->since) / 1e9);
		return;
	}
	int o = snprintf(why, len, "the %s (%s%s%s) has been held by thread %d for %.1f s without "
			 "a hand-off while %zu %s for it", l->kind, l->name,
			 l->version ? ", " : "", l->version ? l->version : "", (int)x->holder,
			 (double)(now - x->since) / 1e9, waiters, waiters == 1 ? "thread waits" : "threads wait");
	const struct lt_stall_thread *h = lt_stall_thread_of(s, (uint32_t)x->holder);
	if (o > 0 && (size_t)o < len && h && h->state != LT_TS_NONE && h->since && h->since <= now)
		snprintf(why + o, len - (size_t)o, "; the holder has been in %s for %.1f s",
			 h->state == LT_TS_IOWAIT ? "an I/O wait" : "a futex call",
			 (double)(now - h->since) / 1e9);
}

/* Whether thread T sleeps on a futex word of lock L (then it waits for
 * L: a holder read so is a stale reading). */
static bool waits_on(const struct lt_stall_thread *t, const struct lt_rtlock *l)
{
	return t && t->state == LT_TS_FUTEX_WAIT && t->uaddr >= l->base &&
	       t->uaddr < l->base + l->size;
}

/* A holder asleep in a call since T cannot have let go of the lock since
 * T: the stretch began then at the latest. */
static uint64_t stretch_start(const struct lt_stall *s, const struct lt_rtlock *l, uint64_t now)
{
	const struct lt_stall_thread *h = lt_stall_thread_of(s, (uint32_t)l->holder);
	if (!h || h->state == LT_TS_NONE || waits_on(h, l) || !h->since || h->since >= now)
		return now;
	return h->since;
}

int lt_rtwatch_feed(struct lt_rtwatch *w, const struct lt_rtlock *locks, size_t n,
		    const struct lt_stall *s, uint64_t now, char *why, size_t len)
{
	for (size_t i = 0; i < n; i++) {
		const struct lt_rtlock *l = &locks[i];
		if (!l->has_handoffs && !l->kept_while_asleep)
			continue;
		struct watched *x = watched_of(w, l);
		if (!x)
			return 0;
		if (l->held != 1 || l->holder <= 0) {
			x->since = 0;
			continue;
		}
		if (!l->has_handoffs) {
			/* no count: only a holder asleep in one call proves that
			 * it kept the lock, since that call began */
			uint64_t st = stretch_start(s, l, now);
			x->holder = l->holder;
			x->since = st < now ? st : 0;
			if (!x->since)
				continue;
		} else if (!x->since || x->holder != l->holder || x->handoffs != l->handoffs) {
			x->holder = l->holder;
			x->handoffs = l->handoffs;
			x->since = stretch_start(s, l, now);
		}
		/* every thread that waited for it since it last changed hands
		 * still wants it (it has not changed hands since), also those
		 * between two timed waits at this instant (CPython's 5 ms
		 * retries: on a busy machine many are runnable, not asleep) */
		size_t waiters = lt_stall_waited_in(s, l->base, l->base + l->size, x->since,
						    (uint32_t)l->holder);
		if (now - x->since >= w->window_ns && waiters) {
			say_stuck(l, x, waiters, s, now, why, len);
			return 1;
		}
	}
	return 0;
}

/* The thread table the models check holders against: tids only. */
static int list_threads(pid_t pid, struct lt_snapshot *snap)
{
	size_t n = 0;
	pid_t *tids = lts_list_tasks(pid, &n);
	if (!tids || !n || !(snap->threads = calloc(n, sizeof(*snap->threads)))) {
		free(tids);
		return -1;
	}
	for (size_t i = 0; i < n; i++) /* sorted, as lt_snapshot_find needs */
		snap->threads[i].tid = tids[i];
	snap->n_threads = n;
	free(tids);
	return 0;
}

/* Runs the models that find locks by themselves (not the thread scanners)
 * on the live process. */
static void read_locks(struct lt_rtwatch *w, struct lt_rtlock **locks, size_t *n)
{
	struct lt_snapshot snap = { .pid = w->pid };
	struct lt_strlist notes = { 0 };
	struct lt_lm_env env;
	if (list_threads(w->pid, &snap) == 0) {
		lt_lm_env_live(&env, w->sym, &snap, NULL, NULL);
		for (size_t m = 0; lt_lockmodels[m]; m++)
			if (lt_lockmodels[m]->find)
				lt_lockmodels[m]->find(&env, locks, n, &notes);
	}
	free(snap.threads);
	lt_strlist_free(&notes);
}

static int check(struct lt_rtwatch *w, const struct lt_stall *s, uint64_t now, char *why,
		 size_t len, bool force)
{
	if (!w || w->off || (!force && w->last_read && now - w->last_read < READ_EVERY_NS))
		return 0;
	w->last_read = now;
	if (!w->sym && !(w->sym = lt_sym_open(w->pid, LT_SYM_NO_LINES, NULL))) {
		w->off = true; /* the process is gone */
		return 0;
	}
	struct lt_rtlock *locks = NULL;
	size_t n = 0, counted = 0;
	read_locks(w, &locks, &n);
	for (size_t i = 0; i < n; i++)
		counted += locks[i].has_handoffs || locks[i].kept_while_asleep;
	int r = lt_rtwatch_feed(w, locks, n, s, now, why, len);
	for (size_t i = 0; i < n; i++)
		lt_rtlock_clear(&locks[i]);
	free(locks);
	if (!counted && ++w->empty_reads >= GIVE_UP_AFTER && !w->n) {
		w->off = true; /* no runtime lock the events cannot see through */
		lt_sym_close(w->sym);
		w->sym = NULL;
	}
	return r;
}

int lt_rtwatch_check(struct lt_rtwatch *w, const struct lt_stall *s, uint64_t now, char *why,
		     size_t len)
{
	return check(w, s, now, why, len, false);
}

int lt_rtwatch_check_now(struct lt_rtwatch *w, const struct lt_stall *s, uint64_t now, char *why,
			 size_t len)
{
	return check(w, s, now, why, len, true);
}
