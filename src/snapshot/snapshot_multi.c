/* Snapshots of several processes diagnosed together.
 *
 * Each process is snapshotted alone (lt_snapshot_take); a lock word's
 * owner in another process is then only a tid and a tgid.  The view puts
 * every thread in one table sorted by tid, where such an owner is a thread
 * like any other, and the verdict rules (verdicts.c) run on it unchanged:
 * a cycle through two processes is a cycle, and waiters on one lock in a
 * shared mapping group by its object and offset (lt_futex.shared_obj).
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "golang.h"
#include "lockmodel.h"
#include "semlock.h"
#include "snapshot.h"
#include "snapshot_int.h"

#define FUTEX_TID_MASK 0x3fffffffu
#define FUTEX_WAITERS 0x80000000u

struct tid_pid {
	struct lt_thread t;
	pid_t pid;
};

static int tid_pid_cmp(const void *a, const void *b)
{
	const struct tid_pid *x = a, *y = b;
	return (x->t.tid > y->t.tid) - (x->t.tid < y->t.tid);
}

static bool given(const struct lt_multi_snapshot *m, pid_t tgid)
{
	for (size_t i = 0; i < m->n_procs; i++)
		if (m->procs[i]->pid == tgid)
			return true;
	return false;
}

/* A lock word naming a thread of another given process: that thread owns
 * it, as it would if both were one process. */
static void resolve_owner(const struct lt_multi_snapshot *m, struct lt_thread *t)
{
	struct lt_futex *f = &t->futex;
	if (t->wait != LT_WAIT_FUTEX || !f->word_ok)
		return;
	if (f->private_)
		return; /* no thread of another process holds a private lock */
	if (f->owner_tgid > 0 && given(m, f->owner_tgid) && lt_snapshot_find(&m->view, f->mutex_owner)) {
		f->owner_kind = f->is_pi ? LT_OWNER_PI : LT_OWNER_MUTEX;
		f->owner = f->mutex_owner;
		f->owner_tgid = 0;
		f->owner_comm[0] = 0;
		return;
	}
	pid_t w = (pid_t)(f->word & FUTEX_TID_MASK);
	if (f->owner_kind == LT_OWNER_NONE && !f->is_pi && (f->word & FUTEX_WAITERS) &&
	    lt_multi_pid_of(m, w) && lt_multi_pid_of(m, w) != lt_multi_pid_of(m, t->tid)) {
		f->owner_kind = LT_OWNER_ROBUST;
		f->owner = w;
	}
}

static int fill_view(struct lt_multi_snapshot *m)
{
	size_t nt = 0, nr = 0;
	for (size_t i = 0; i < m->n_procs; i++) {
		nt += m->procs[i]->n_threads;
		nr += m->procs[i]->n_rtlocks;
	}
	struct tid_pid *tp = calloc(nt ? nt : 1, sizeof(*tp));
	m->view.threads = calloc(nt ? nt : 1, sizeof(*m->view.threads));
	m->view.rtlocks = calloc(nr ? nr : 1, sizeof(*m->view.rtlocks));
	m->thread_pid = calloc(nt ? nt : 1, sizeof(*m->thread_pid));
	if (!tp || !m->view.threads || !m->view.rtlocks || !m->thread_pid) {
		free(tp);
		return -ENOMEM;
	}
	size_t k = 0, r = 0;
	for (size_t i = 0; i < m->n_procs; i++) {
		const struct lt_snapshot *s = m->procs[i];
		for (size_t j = 0; j < s->n_threads; j++, k++) {
			tp[k].t = s->threads[j];
			tp[k].pid = s->pid;
			if (tp[k].t.futex.rtlock)
				tp[k].t.futex.rtlock += (unsigned)r;
			tp[k].t.futex.space = s->pid; /* one address in two processes is two locks */
		}
		if (s->n_rtlocks) /* a process without runtime locks has none (NULL) */
			memcpy(m->view.rtlocks + r, s->rtlocks, s->n_rtlocks * sizeof(*s->rtlocks));
		r += s->n_rtlocks;
	}
	qsort(tp, nt, sizeof(*tp), tid_pid_cmp);
	for (size_t i = 0; i < nt; i++) {
		m->view.threads[i] = tp[i].t;
		m->thread_pid[i] = tp[i].pid;
	}
	free(tp);
	m->view.n_threads = nt;
	m->view.n_rtlocks = nr;
	return 0;
}

int lt_multi_build(struct lt_snapshot **procs, size_t n, const struct lt_verdict_opts *o,
		   struct lt_multi_snapshot **out)
{
	*out = NULL;
	struct lt_multi_snapshot *m = calloc(1, sizeof(*m));
	if (!m)
		return -ENOMEM;
	m->procs = procs;
	m->n_procs = n;
	struct lt_snapshot *s0 = procs[0];
	m->view.pid = s0->pid;
	snprintf(m->view.comm, sizeof(m->view.comm), "%s", s0->comm);
	m->view.taken_realtime_ns = s0->taken_realtime_ns;
	m->view.taken_monotonic_ns = s0->taken_monotonic_ns;
	m->view.kstack_available = s0->kstack_available;
	for (size_t i = 0; i < n; i++)
		m->view.ustack_skipped |= procs[i]->ustack_skipped;
	if (fill_view(m) < 0)
		goto fail;
	for (size_t i = 0; i < m->view.n_threads; i++)
		resolve_owner(m, &m->view.threads[i]);
	/* a multiprocessing lock's holder in any of them (semlock.c) */
	lts_semlock_owners(&m->view, procs, n, false, &m->view.strings);
	/* a Go program's goroutines are its process's (the view has no
	 * table of them): the first Go process's are lent to the view, so
	 * that its goroutine verdicts (a leak, a sync.Mutex wait) stand
	 * beside the others instead of under an IDLE that does not know
	 * them; never freed through the view (lt_multi_free) */
	for (size_t i = 0; i < n && !m->view.go; i++)
		if (procs[i]->go && procs[i]->go->n_routines)
			m->view.go = procs[i]->go;
	if (lt_snapshot_diagnose(&m->view, o) < 0)
		goto fail;
	*out = m;
	return 0;
fail:
	m->procs = NULL; /* still the caller's */
	m->n_procs = 0;
	lt_multi_free(m);
	return -ENOMEM;
}

pid_t lt_multi_pid_of(const struct lt_multi_snapshot *m, pid_t tid)
{
	const struct lt_thread *t = lt_snapshot_find(&m->view, tid);
	return t ? m->thread_pid[t - m->view.threads] : 0;
}

/* Does verdict V involve threads of more than one process? */
static bool spans(const struct lt_multi_snapshot *m, const struct lt_verdict *v)
{
	for (size_t i = 1; i < v->n_tids; i++)
		if (lt_multi_pid_of(m, v->tids[i]) != lt_multi_pid_of(m, v->tids[0]))
			return true;
	return v->owner && v->n_tids && lt_multi_pid_of(m, v->owner) != lt_multi_pid_of(m, v->tids[0]);
}

static bool moved_since(pid_t pid, struct lt_thread *t)
{
	char path[96], buf[512];
	struct lt_sc_line now;
	snprintf(path, sizeof(path), "/proc/%d/task/%d/syscall", (int)pid, (int)t->tid);
	if (lts_read_small(path, buf, sizeof(buf)) < 0 || lt_parse_syscall_line(buf, &now))
		return true;
	return memcmp(&now, &t->sc, sizeof(now)) != 0;
}

int lt_multi_confirm(struct lt_multi_snapshot *m)
{
	bool any = false;
	for (size_t vi = 0; vi < m->view.n_verdicts; vi++) {
		const struct lt_verdict *v = &m->view.verdicts[vi];
		if (!spans(m, v))
			continue;
		for (size_t i = 0; i < v->n_tids; i++) {
			struct lt_thread *t = lt_snapshot_find(&m->view, v->tids[i]);
			if (t && !t->moved && moved_since(lt_multi_pid_of(m, t->tid), t)) {
				t->moved = true; /* the view's copy only */
				any = true;
			}
		}
	}
	if (any && lt_snapshot_diagnose(&m->view, &m->view.vopts) < 0)
		return -ENOMEM;
	if (any)
		lt_strlist_add(&m->view.notes, "threads that left their wait after their process was "
			       "read are left out of the verdicts");
	return 0;
}

void lt_multi_free(struct lt_multi_snapshot *m)
{
	if (!m)
		return;
	for (size_t i = 0; i < m->view.n_verdicts; i++)
		lt_verdict_clear(&m->view.verdicts[i]);
	free(m->view.verdicts);
	free(m->view.threads);
	free(m->view.rtlocks);
	lt_strlist_free(&m->view.notes);
	lt_strlist_free(&m->view.strings);
	free(m->thread_pid);
	for (size_t i = 0; i < m->n_procs; i++)
		lt_snapshot_free(m->procs[i]);
	free(m->procs);
	free(m);
}
