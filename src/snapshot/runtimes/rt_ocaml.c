/* OCaml thread model (rtthread.h): a futex wait names what the OCaml
 * program waits for, in OCaml's terms, where the native stack shows it.
 *
 * OCaml's Stdlib Mutex is a pthread mutex in a custom block (error-checking
 * since 5.0), its Condition a pthread condition variable, and Thread.join
 * waits on a thread's termination event (a mutex and condvar of the
 * systhreads library); Domain.join (5.x) is OCaml code that waits on the
 * domain's Condition.  The glibc model already decodes those objects (the
 * mutex's owner, the condvar's groups); this model only says what they are
 * to the OCaml program, from the runtime's C entry points on the stack:
 *   caml_ml_mutex_lock (5.x runtime/sync.c), caml_mutex_lock (4.x
 *   systhreads)                                   -> "Stdlib Mutex"
 *   caml_ml_condition_wait (5.x), caml_condition_wait (4.x)
 *                                                 -> "Stdlib Condition",
 *     or "Domain.join" when Stdlib.Domain.join is further out
 *   caml_thread_join                               -> "Thread.join"
 * A condition or join wait is an event: the thread acquires nothing. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "rtthread.h"
#include "snapshot_int.h"

/* How many frames from the innermost the runtime's entry point may be:
 * futex wait, lll_lock_wait / cond wait, pthread_*, [st_* helper], entry. */
#define ENTRY_DEPTH 8
/* How far out Domain.join may be from Condition.wait: loop, protect, join. */
#define JOIN_DEPTH 6

enum what { NONE, MUTEX, CONDITION, THREAD_JOIN };

static enum what entry_of(const char *f)
{
	if (!strcmp(f, "caml_ml_mutex_lock") || !strcmp(f, "caml_mutex_lock"))
		return MUTEX;
	if (!strcmp(f, "caml_ml_condition_wait") || !strcmp(f, "caml_condition_wait"))
		return CONDITION;
	if (!strcmp(f, "caml_thread_join"))
		return THREAD_JOIN;
	return NONE;
}

/* Stdlib.Domain.join among the JOIN_DEPTH frames outside frame I. */
static bool in_domain_join(const struct lt_thread *t, size_t i)
{
	char name[128];
	for (size_t k = i + 1; k < t->n_frames && k <= i + JOIN_DEPTH; k++)
		if (t->frames[k].func && lt_demangle_ocaml(t->frames[k].func, name, sizeof(name)) &&
		    !strcmp(name, "Stdlib.Domain.join"))
			return true;
	return false;
}

static void restate(struct lt_futex *f, const char *kind, const char *says)
{
	char *st = lts_asprintf("%s; its %s: %s", says, f->lock_kind ? f->lock_kind : "futex",
				f->lock_state ? f->lock_state : "state unknown");
	free(f->lock_state);
	f->lock_state = st;
	f->lock_kind = kind;
}

static void name_wait(struct lt_thread *t)
{
	struct lt_futex *f = &t->futex;
	for (size_t i = 0; i < t->n_frames && i < ENTRY_DEPTH; i++) {
		enum what w = t->frames[i].func ? entry_of(t->frames[i].func) : NONE;
		if (w == NONE)
			continue;
		if (w == MUTEX) {
			restate(f, "Stdlib Mutex", "Mutex.lock on a Stdlib Mutex (a pthread mutex)");
			t->acquire = "Mutex.lock";
		} else if (w == CONDITION && in_domain_join(t, i)) {
			restate(f, "Domain.join", "waits in Domain.join for a domain to end (Condition.wait)");
			t->acquire = NULL;
		} else if (w == CONDITION) {
			restate(f, "Stdlib Condition", "Condition.wait for a signal");
			t->acquire = NULL;
		} else {
			restate(f, "Thread.join", "waits in Thread.join for a thread to end");
			t->acquire = NULL;
		}
		return;
	}
}

static void apply(const struct lt_lm_env *e, struct lt_snapshot *s)
{
	(void)e;
	for (size_t i = 0; i < s->n_threads; i++) {
		struct lt_thread *t = &s->threads[i];
		/* runtime-lock waits are the lock model's; other runtimes' threads theirs */
		if (t->wait != LT_WAIT_FUTEX || !t->futex.is_wait || t->futex.rtlock || t->rt_lang)
			continue;
		name_wait(t);
	}
}

const struct lt_rtmodel lt_rt_ocaml = { .name = "ocaml", .apply = apply };
