/* The holder of a multiprocessing.Lock, RLock or BoundedSemaphore(1): a
 * POSIX semaphore in a shared /dev/shm mapping, which records no holder.
 * CPython's _multiprocessing.SemLock object over it does, per process:
 * `count`, the acquisitions through that object not released, and
 * `last_tid`, pthread_self() of its last acquirer (rt_cpython.c reads the
 * SemLocks the frames keep into lt_snapshot.semlocks; snapshot.c keys each
 * by the semaphore's mapped object, device, inode and offset, as a shared
 * futex is keyed).  A thread asleep on that semaphore in any process then
 * waits for the one thread whose process's SemLock holds it:
 *
 *   - one SemLock over it with acquisitions not released, none with fewer
 *     releases than acquisitions (count < 0: a Lock released through
 *     another object than the one that took it, as a signal is; then a
 *     count says nothing of who holds it now), the semaphore at most 1
 *     (maxvalue 1), and that count 1 or the SemLock recursive (an RLock
 *     counts its owner's recursion): its last_tid holds it; a thread of
 *     that process, or one no longer there (it exited holding it);
 *   - several, or a counting semaphore (permits held by several threads,
 *     or released by others than who took them): no holder; the counts
 *     are said in the lock's state.
 *
 * Read from memory, the runtime's own record: owner_kind RUNTIME, sem_owner
 * and sem_pid saying whose record it is, owner_how the evidence.  Only
 * SemLocks the frames keep are seen (docs/locks.md says which), so one
 * held through an object no frame keeps is not: its holder is then not
 * named, or, where another process's object took it before and it was
 * released through a third one no frame keeps, named wrongly; the
 * evidence names the count and the object read. */
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "snapshot.h"
#include "semlock.h"
#include "snapshot_int.h"

#define MAX_CLAIMS 8
#define SAID "_multiprocessing.SemLocks over it"

struct claim {
	const struct lt_snapshot *p;
	const struct lt_semlock *l;
};

static bool same_sem(const struct lt_futex *f, const struct lt_semlock *l)
{
	return l->shared && l->obj_ino == f->obj_ino && l->obj_major == f->obj_major &&
	       l->obj_minor == f->obj_minor && l->obj_off == f->obj_off;
}

/* STR set as *FIELD: owned by the thread (OWN: freeing what it replaces),
 * else kept in STRINGS (a multi-process view's shallow copies own none). */
static void set_str(char **field, char *str, bool own, struct lt_strlist *strings)
{
	if (own) {
		free(*field);
		*field = str;
		return;
	}
	*field = NULL;
	if (str && lt_strlist_add(strings, "%s", str) == 0)
		*field = strings->v[strings->n - 1];
	free(str);
}

static void unset(struct lt_futex *f, bool own, struct lt_strlist *strings)
{
	f->owner = 0;
	f->owner_kind = LT_OWNER_NONE;
	f->owner_gone = false;
	f->gone_tid = 0;
	f->gone_ptr = 0;
	f->sem_owner = false;
	f->sem_pid = 0;
	set_str(&f->owner_how, NULL, own, strings);
}

static const char *kind_name(const struct lt_semlock *l)
{
	return l->kind == 0 ? "an RLock's" : l->maxvalue == 1 ? "a Lock's" : "a Semaphore's";
}

static void resolve_one(struct lt_snapshot *view, struct lt_thread *t, struct lt_snapshot *const *procs, size_t n,
			bool own, struct lt_strlist *strings)
{
	struct lt_futex *f = &t->futex;
	struct claim pos[MAX_CLAIMS];
	size_t npos = 0, nneg = 0;
	for (size_t i = 0; i < n; i++)
		for (size_t k = 0; k < procs[i]->n_semlocks; k++) {
			const struct lt_semlock *l = &procs[i]->semlocks[k];
			if (!same_sem(f, l))
				continue;
			if (l->count < 0)
				nneg++;
			else if (npos < MAX_CLAIMS)
				pos[npos++] = (struct claim){ procs[i], l };
			else
				npos++;
		}
	if (!npos)
		return;
	const struct lt_semlock *l = pos[0].l;
	pid_t pid = pos[0].p->pid;
	bool one = npos == 1 && !nneg && l->maxvalue == 1 && (l->kind == 0 || l->count == 1);
	const struct lt_thread *h = one && l->tid ? lt_snapshot_find(view, l->tid) : NULL;
	if (one && l->tid && (!h || (l->kind == 0 && h == t)))
		return; /* a thread the view does not have (it exited since?), or
			   an RLock's owner waiting on it, which it never does */
	if (one) {
		/* h: its holder; none: no thread of its process any more */
		char *rec = lts_asprintf("process %d's _multiprocessing.SemLock at 0x%" PRIx64 " (%s, %s), over this "
					 "semaphore (its sem_t at 0x%" PRIx64 " there), records count %d and last_tid "
					 "0x%" PRIx64 " (pthread_self of its last acquirer)", (int)pid, l->obj,
					 kind_name(l), l->where, l->handle, l->count, l->last_tid);
		if (h) {
			f->owner = h->tid;
			f->owner_kind = LT_OWNER_RUNTIME;
		} else {
			f->owner_gone = true;
			f->gone_ptr = l->last_tid;
			f->gone_tid = 0;
		}
		f->sem_owner = true;
		f->sem_pid = pid;
		set_str(&f->owner_how,
			h ? lts_asprintf("%s: thread %d of process %d holds it, read from memory", rec ? rec : "?",
					 (int)h->tid, (int)pid)
			  : lts_asprintf("%s, which is no thread of process %d any more: it exited holding it, read "
					 "from memory", rec ? rec : "?", (int)pid),
			own, strings);
		free(rec);
		return;
	}
	/* not one holder: the counts read, as a lead */
	char buf[1024];
	const char *st = f->lock_state ? f->lock_state : "";
	const char *prev = strstr(st, SAID); /* said by the process's own reading */
	int keep = prev ? (int)(prev - st) : (int)strlen(st);
	if (keep >= 2 && !strncmp(st + keep - 2, "; ", 2))
		keep -= 2;
	size_t o = (size_t)snprintf(buf, sizeof(buf), "%.*s%s" SAID " with acquisitions not released through "
				    "them:", keep, st, keep ? "; " : "");
	for (size_t k = 0; k < npos && k < MAX_CLAIMS && o < sizeof(buf); k++)
		o += (size_t)snprintf(buf + o, sizeof(buf) - o, "%s process %d: count %d, last acquired by %s "
				      "%d (%s)", k ? ";" : "", (int)pos[k].p->pid, pos[k].l->count,
				      pos[k].l->tid ? "thread" : "no live thread, was pthread", pos[k].l->tid
				      ? (int)pos[k].l->tid : 0, pos[k].l->where);
	if (o < sizeof(buf))
		snprintf(buf + o, sizeof(buf) - o, "%s", nneg ? "; and some SemLock released more than it acquired "
			 "(released through another object than the one that took it): no holder named from "
			 "the counts" : npos > 1 ? ": no one holder named from them" :
			 ": a counting semaphore's permits may be held by several threads, or released by "
			 "others than took them: no holder named from them");
	set_str(&f->lock_state, lts_strdup(buf), own, strings);
}

void lts_semlock_owners(struct lt_snapshot *view, struct lt_snapshot *const *procs, size_t n, bool own,
			struct lt_strlist *strings)
{
	bool any = false;
	for (size_t i = 0; i < n && !any; i++)
		any = procs[i]->n_semlocks > 0;
	for (size_t i = 0; i < view->n_threads; i++) {
		struct lt_thread *t = &view->threads[i];
		struct lt_futex *f = &t->futex;
		if (t->wait != LT_WAIT_FUTEX || !f->is_wait || !f->shared_obj || t->sc.state != LT_SC_IN_SYSCALL)
			continue;
		if (f->sem_owner) /* a process's own reading, read again with all of them */
			unset(f, own, strings);
		if (!any || f->owner_kind >= LT_OWNER_MUTEX || f->owner_gone || f->owner_tgid > 0)
			continue; /* another record says who holds it */
		if (lts_runtime_idle(t))
			continue; /* a wait for work (a multiprocessing queue's reader lock, rt_idle.c) */
		resolve_one(view, t, procs, n, own, strings);
	}
}
