// SPDX-License-Identifier: MIT
/* The models that run on a snapshot: the registries of the lock models
 * (lockmodel.h) and of the runtime thread models (rtthread.h), and how
 * their findings are applied.  The models and the library they use are in
 * src/snapshot/runtimes/: this file calls them, they never call it. */

/* Lock models: the framework (lockmodel.h).
 *
 * lt_lockmodels_apply runs on a snapshot's thread table once stacks are
 * unwound: the glibc model classifies every futex wait, then each runtime
 * model finds its own lock objects and claims the waits whose futex words
 * lie inside them, naming the holder the runtime records.  It is the first
 * step that reads the runtimes, so it starts each thread's runtime view
 * (rt_*) afresh; a scan fills it for the threads it knows, and the runtime
 * thread models (rtthread.c), run after, leave those alone. */

/* Runtime thread models: the framework (rtthread.h).
 *
 * lt_rtthreads_apply runs after the user stacks are unwound and the lock
 * models have run: each model names the threads its runtime knows, reads
 * their stacks in the language's terms and places those frames among the
 * native ones, at the interpreter loop that runs them.  The lock models
 * started every thread's runtime view afresh, and a lock model's scan may
 * already have filled it (HotSpot: lt_lockmodel.scan): a thread whose
 * rt_lang is set is another runtime's and is left alone. */

#include <errno.h>
#include <malloc.h>
#include <stdlib.h>
#include <string.h>

#include "lockmodel.h"
#include "rtthread.h"
#include "snapshot_int.h"

extern const struct lt_lockmodel lt_lm_ocaml;
extern const struct lt_lockmodel lt_lm_cpython;
extern const struct lt_lockmodel lt_lm_hotspot;

const struct lt_lockmodel *const lt_lockmodels[] = {
	&lt_lm_ocaml,
	&lt_lm_cpython,
	&lt_lm_hotspot,
	NULL,
};

extern const struct lt_rtmodel lt_rt_cpython;
extern const struct lt_rtmodel lt_rt_ocaml;
extern const struct lt_rtmodel lt_rt_go;

const struct lt_rtmodel *const lt_rtmodels[] = {
	&lt_rt_cpython,
	&lt_rt_ocaml,
	&lt_rt_go,
	NULL,
};

void lt_rtthreads_apply(struct lt_snapshot *s, const struct lt_lm_env *e)
{
	for (size_t m = 0; lt_rtmodels[m]; m++)
		lt_rtmodels[m]->apply(e, s);
}


/* ---- applying the models ---- */

static void claim(struct lt_snapshot *s, struct lt_thread *t, size_t li)
{
	const struct lt_rtlock *l = &s->rtlocks[li];
	struct lt_futex *f = &t->futex;
	char *state = NULL;
	if (f->lock_kind)
		state = lts_asprintf("its %s%s%s", f->lock_kind, f->lock_state ? ": " : "",
				     f->lock_state ? f->lock_state : "");
	free(f->lock_state);
	f->lock_state = state;
	f->lock_kind = l->kind;
	f->lock_base = l->base;
	free(f->lock_name);
	f->lock_name = lts_strdup(l->name);
	f->rtlock = (unsigned)li + 1;
	if (l->held == 1 && l->holder > 0 && l->holder != t->tid && !lt_snapshot_find(s, l->holder)) {
		/* checked against the kernel: the runtime's memory names a
		 * thread this process does not have (read torn, or forged) */
		char *st = lts_asprintf("%s%sthe runtime names thread %d as its holder, but the process "
					"has no such thread: the holder is not named",
					f->lock_state ? f->lock_state : "", f->lock_state ? "; " : "", (int)l->holder);
		free(f->lock_state);
		f->lock_state = st;
		f->owner_kind = LT_OWNER_UNKNOWN;
		f->owner = 0;
	} else if (l->held == 1 && l->holder > 0 && l->holder != t->tid) {
		f->owner_kind = LT_OWNER_RUNTIME;
		f->owner = l->holder;
	} else if (f->owner_kind != LT_OWNER_UNKNOWN) {
		/* the runtime lock's inner mutex may record an owner that only
		 * holds it for a moment; the runtime's holder is what counts */
		f->owner_kind = LT_OWNER_NONE;
		f->owner = 0;
	}
	if (!t->acquire)
		t->acquire = l->kind;
}

/* A wait the runtime names that no thread holds (a Java barrier's or
 * Phaser's parties, a future's getters: lt_rtthread.sig_kind): the futex
 * wait takes its kind,
 * object and name, its own state kept after the runtime's. */
static void name_signal_wait(struct lt_thread *t, struct lt_rtthread *r)
{
	struct lt_futex *f = &t->futex;
	char *state = lts_asprintf("%s%s%s%s%s", r->sig_state, f->lock_kind ? "; its " : "",
				   f->lock_kind ? f->lock_kind : "", f->lock_state ? ": " : "",
				   f->lock_state ? f->lock_state : "");
	if (!state)
		return;
	free(f->lock_state);
	f->lock_state = state;
	f->lock_kind = r->sig_kind;
	f->lock_base = r->sig_obj;
	free(f->lock_name);
	f->lock_name = r->sig_name;
	r->sig_name = NULL;
}

/* The runtime's view of its threads: names, and the waits it claims by
 * tid (lockmodel.h, lt_lockmodel.scan).  FIRST is the index in s->rtlocks
 * of the scan's first lock. */
static void apply_rtthreads(struct lt_snapshot *s, size_t first, struct lt_rtthread *th, size_t nth)
{
	for (size_t k = 0; k < nth; k++) {
		struct lt_thread *t = lt_snapshot_find(s, th[k].tid);
		if (!t || (t->rt_lang && th[k].lang && strcmp(t->rt_lang, th[k].lang)))
			continue; /* another runtime's thread (two in one process) */
		if (th[k].lang)
			t->rt_lang = th[k].lang;
		if (th[k].name && !t->rt_name) {
			t->rt_name = th[k].name;
			th[k].name = NULL;
		}
		if (th[k].n_frames && !t->n_rt_frames) {
			/* the runtime's frames beside the native ones, at the
			 * frames that run them: the same view as a Python stack */
			t->rt_frames = th[k].frames;
			t->n_rt_frames = th[k].n_frames;
			th[k].frames = NULL;
			th[k].n_frames = 0;
			lt_rt_place_pc(t, th[k].group, th[k].code.hi ? &th[k].code : NULL);
		}
		if (th[k].end && !t->rt_end) {
			t->rt_end = th[k].end;
			th[k].end = NULL;
		}
		if (th[k].sig_kind && !th[k].waits && lt_lm_futex_waiter(t) && !t->futex.rtlock)
			name_signal_wait(t, &th[k]);
		if (!th[k].waits || first + th[k].waits - 1 >= s->n_rtlocks)
			continue;
		if (lt_lm_futex_waiter(t))
			claim(s, t, first + th[k].waits - 1);
		else if (th[k].lang && !strcmp(th[k].lang, "java") && (t->state == 'R' || t->sc.state == LT_SC_RUNNING))
			t->rt_wait_ran = true;
	}
}

/* A holder the runtime's memory names that was asleep waiting for that
 * very lock when its call was read: the lock changed hands between the
 * two readings (a GIL passed on every 5 ms).  Neither reading is wrong,
 * but no holder can be named from them: not named, said why, in the lock
 * and in its waiters' owners alike. */
static void unname_waiting_holder(struct lt_snapshot *s, size_t li)
{
	struct lt_rtlock *l = &s->rtlocks[li];
	const struct lt_thread *h = l->held == 1 && l->holder > 0 ? lt_snapshot_find(s, l->holder) : NULL;
	if (!h || !lt_lm_futex_waiter(h) || h->futex.rtlock != li + 1)
		return;
	char *how = lts_asprintf("%s%snamed thread %d, which was asleep waiting for the %s itself when its "
				 "call was read: the lock changed hands while the snapshot read it, and its "
				 "holder is not known", l->holder_how ? l->holder_how : "", l->holder_how ? " " : "",
				 (int)l->holder, l->kind);
	free(l->holder_how);
	l->holder_how = how;
	for (size_t i = 0; i < s->n_threads; i++) {
		struct lt_futex *f = &s->threads[i].futex;
		if (f->rtlock == li + 1 && f->owner_kind == LT_OWNER_RUNTIME && f->owner == l->holder) {
			f->owner_kind = LT_OWNER_NONE;
			f->owner = 0;
		}
	}
	l->holder = 0;
}

void lt_lockmodels_check_holders(struct lt_snapshot *s)
{
	for (size_t li = 0; li < s->n_rtlocks; li++)
		unname_waiting_holder(s, li);
}

static int run_model(const struct lt_lockmodel *m, struct lt_snapshot *s, const struct lt_lm_env *e)
{
	if (!m->scan)
		return m->find(e, &s->rtlocks, &s->n_rtlocks, &s->notes);
	struct lt_rtthread *th = NULL;
	size_t nth = 0, first = s->n_rtlocks;
	int rc = m->scan(e, &s->rtlocks, &s->n_rtlocks, &th, &nth, &s->notes);
	apply_rtthreads(s, first, th, nth);
	for (size_t k = 0; k < nth; k++)
		lt_rtthread_clear(&th[k]);
	free(th);
	return rc;
}

void lt_lockmodels_apply(struct lt_snapshot *s, const struct lt_lm_env *e)
{
	for (size_t i = 0; i < s->n_threads; i++) {
		struct lt_thread *t = &s->threads[i];
		t->acquire = NULL;
		lt_thread_clear_rt(t);
		if (lt_lm_futex_waiter(t))
			lt_glibc_classify(e, t);
	}
	for (size_t m = 0; lt_lockmodels[m]; m++) {
		size_t before = s->n_rtlocks;
		if (run_model(lt_lockmodels[m], s, e) < 0)
			lt_strlist_add(&s->notes, "lock model %s failed", lt_lockmodels[m]->name);
		for (size_t li = before; li < s->n_rtlocks; li++) {
			const struct lt_rtlock *l = &s->rtlocks[li];
			for (size_t i = 0; i < s->n_threads; i++) {
				struct lt_thread *t = &s->threads[i];
				if (lt_lm_futex_waiter(t) && t->futex.uaddr >= l->base &&
				    t->futex.uaddr < l->base + l->size && t->futex.rtlock != li + 1)
					claim(s, t, li);
			}
		}
	}
	lt_lockmodels_check_holders(s);
}
