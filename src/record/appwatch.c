// SPDX-License-Identifier: MIT
/* The application-lock witness of the stall rule (include/locktrace/appwatch.h). */
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "appwait.h"
#include "appwatch.h"
#include "snapshot.h"
#include "stall.h"
#include "appwait_int.h"
#include "u64map.h"

#define LOOK_EVERY_NS 500000000ull

/* What one look said about a thread's open call (the one begun at since). */
struct seen {
	uint64_t since;
	int lock;          /* an application lock wait */
	pid_t pid;
	char what[160];    /* "a PostgreSQL row/transaction lock (ProcSleep < ...)" */
};

struct lt_appwatch {
	uint64_t window_ns;
	uint64_t last_look, looks;
	struct lt_u64map seen; /* tid -> struct seen * */
};

struct lt_appwatch *lt_appwatch_new(uint64_t window_ns)
{
	struct lt_appwatch *w = calloc(1, sizeof(*w));
	if (w)
		w->window_ns = window_ns;
	return w;
}

void lt_appwatch_free(struct lt_appwatch *w)
{
	if (!w)
		return;
	for (size_t i = 0; i < w->seen.cap; i++)
		if (w->seen.keys[i])
			free(w->seen.vals[i]);
	lt_u64map_free(&w->seen);
	free(w);
}

uint64_t lt_appwatch_looks(const struct lt_appwatch *w)
{
	return w ? w->looks : 0;
}

static bool long_io(const struct lt_stall_thread *t, uint64_t now, uint64_t window)
{
	return t && t->tid && t->state == LT_TS_IOWAIT && t->since <= now && now - t->since >= window;
}

/* Remember what the snapshot says of each of its threads in a long I/O
 * wait of the table. */
static void learn(struct lt_appwatch *w, const struct lt_stall *s, const struct lt_snapshot *snap,
		  uint64_t now)
{
	for (size_t i = 0; i < snap->n_threads; i++) {
		const struct lt_thread *t = &snap->threads[i];
		const struct lt_stall_thread *st = lt_stall_thread_of(s, (uint32_t)t->tid);
		if (!long_io(st, now, w->window_ns))
			continue;
		struct seen *e = lt_u64map_get(&w->seen, (uint64_t)t->tid);
		if (!e) {
			if (!(e = calloc(1, sizeof(*e))))
				return;
			if (lt_u64map_put(&w->seen, (uint64_t)t->tid, e)) {
				free(e);
				return;
			}
		}
		e->since = st->since;
		e->lock = lts_appwait_lock(t);
		e->pid = snap->pid;
		snprintf(e->what, sizeof(e->what), "%s %s [%s]", t->app ? t->app : "?",
			 t->app_kind ? t->app_kind : "?", t->app_via ? t->app_via : "?");
	}
}

int lt_appwatch_check(struct lt_appwatch *w, const struct lt_stall *s, uint64_t now,
		      lt_appwatch_look_fn look, void *arg, char *why, size_t len)
{
	if (!w)
		return 0;
	const struct lt_stall_thread *unknown = NULL, *fire = NULL;
	const struct seen *fe = NULL;
	const struct lt_stall_thread *t;
	for (size_t pos = 0; (t = lt_stall_next(s, &pos));) {
		if (!long_io(t, now, w->window_ns))
			continue;
		const struct seen *e = lt_u64map_get(&w->seen, (uint64_t)t->tid);
		if (!e || e->since != t->since) {
			if (!unknown || t->since < unknown->since)
				unknown = t;
		} else if (e->lock && (!fire || t->since < fire->since)) {
			fire = t;
			fe = e;
		}
	}
	if (!fire && unknown && look && (!w->looks || now - w->last_look >= LOOK_EVERY_NS)) {
		struct lt_snapshot *snap = NULL;
		int r = look(arg, unknown->tid, &snap);
		if (r <= 0) {
			w->last_look = now;
			w->looks++;
		}
		if (r == 0 && snap) {
			learn(w, s, snap, now);
			lt_snapshot_free(snap);
		}
		/* a thread the look did not find (it had gone, or a failed
		 * look) is not looked at again for this call */
		struct seen *e = lt_u64map_get(&w->seen, (uint64_t)unknown->tid);
		if (!e && (e = calloc(1, sizeof(*e))) && lt_u64map_put(&w->seen, unknown->tid, e)) {
			free(e);
			e = NULL;
		}
		if (e && e->since != unknown->since) {
			e->since = unknown->since;
			e->lock = 0;
		}
		if (e && e->lock) {
			fire = unknown;
			fe = e;
		}
	}
	if (!fire)
		return 0;
	snprintf(why, len, "process %d thread %u has waited %.1f s (over %.1f s) for a %s: an "
		 "application lock wait, which the events show as I/O", (int)fe->pid, fire->tid,
		 (double)(now - fire->since) / 1e9, (double)w->window_ns / 1e9, fe->what);
	return 1;
}
