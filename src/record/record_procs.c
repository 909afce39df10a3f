// SPDX-License-Identifier: MIT
/* The processes and threads a recording traces: the set of traced processes
 * (given, children, forks followed, a cgroup's), which thread belongs to
 * which, and what the header says about them. */
#include <stdlib.h>
#include <sys/syscall.h>
#include <unistd.h>
#include "grow.h"
#include "golang.h"
#include "rtwatch.h"
#include "record_int.h"

/* 1 if tid is new (added, with its tgid), 0 if it was there (or is 0, or
 * no memory). */
static int tidset_add(struct tidset *s, uint32_t tid, uint32_t tgid)
{
	if (!tid)
		return 0;
	if (s->cap) {
		for (size_t j = rec_tidset_slot(tid, s->cap);; j = (j + 1) & (s->cap - 1)) {
			if (s->v[j] == tid)
				return 0;
			if (!s->v[j])
				break;
		}
	}
	if ((s->n + 1) * 2 > s->cap) {
		size_t cap = s->cap ? s->cap * 2 : 256;
		uint32_t *v = calloc(cap, sizeof(*v)), *tg = calloc(cap, sizeof(*tg));
		if (!v || !tg) {
			free(v);
			free(tg);
			return 0;
		}
		for (size_t i = 0; i < s->cap; i++) {
			if (!s->v[i])
				continue;
			size_t j = rec_tidset_slot(s->v[i], cap);
			while (v[j])
				j = (j + 1) & (cap - 1);
			v[j] = s->v[i];
			tg[j] = s->tg[i];
		}
		free(s->v);
		free(s->tg);
		s->v = v;
		s->tg = tg;
		s->cap = cap;
	}
	size_t j = rec_tidset_slot(tid, s->cap);
	while (s->v[j])
		j = (j + 1) & (s->cap - 1);
	s->v[j] = tid;
	s->tg[j] = tgid;
	s->n++;
	return 1;
}

/* The process tgid, added (flags: how it came to be traced) if create and
 * not known yet; NULL if unknown or out of memory. */
struct proc *rec_get_proc(struct collector *c, pid_t tgid, uint32_t flags, int create)
{
	struct proc *p = tgid > 0 ? lt_u64map_get(&c->proc_of, (uint64_t)tgid) : NULL;

	if (p || !create || tgid <= 0)
		return p;
	struct proc **v = lt_grow(c->procs, &c->cap_procs, c->nprocs, sizeof(*v), 8);
	if (!v)
		return NULL;
	c->procs = v;
	if (!(p = calloc(1, sizeof(*p))) || lt_u64map_put(&c->proc_of, (uint64_t)tgid, p)) {
		free(p);
		return NULL;
	}
	p->tgid = tgid;
	p->flags = flags;
	p->pidfd = c->want_pidfd ? (int)syscall(SYS_pidfd_open, tgid, 0) : -1;
	if (c->want_syms && lt_locksyms_init(&p->syms, tgid) == 0) {
		p->syms.trace_pid = (pid_t)c->tgid;
		p->have_syms = 1;
	}
	c->procs[c->nprocs++] = p;
	return p;
}

void rec_free_procs(struct collector *c)
{
	for (size_t i = 0; i < c->nprocs; i++) {
		struct proc *p = c->procs[i];
		if (p->have_syms)
			lt_locksyms_free(&p->syms);
		if (p->pidfd >= 0)
			close(p->pidfd);
		lt_rtwatch_free(p->rtw);
		lt_go_watch_free(p->gow);
		free(p);
	}
	free(c->procs);
	c->procs = NULL;
	c->nprocs = c->cap_procs = 0;
	lt_u64map_free(&c->proc_of);
	lt_u64map_free(&c->tid_tgid);
	lt_u64map_free(&c->untraced);
	lt_u64map_free(&c->calls);
}

/* Is tgid a traced process?  Processes that join a recording by -p,
 * --children or a followed fork are known (TASK_NEW); with --cgroup, a
 * process seen for the first time is looked up in /proc once. */
__attribute__((noinline)) int rec_tgid_traced_multi(struct collector *c, uint32_t tgid)
{
	if (lt_u64map_get(&c->proc_of, tgid))
		return 1;
	if (!c->cg || lt_u64map_get(&c->untraced, tgid) || tgid == (uint32_t)getpid())
		return 0;
	if (lt_cgroup_contains(c->cg, (pid_t)tgid) && rec_get_proc(c, (pid_t)tgid, LT_PROC_CGROUP, 1))
		return 1;
	lt_u64map_put(&c->untraced, tgid, c);
	return 0;
}

int rec_is_traced_cb(void *ctx, uint32_t tgid)
{
	return rec_tgid_traced(ctx, tgid);
}

/* A thread of a traced process, counted once. */
void rec_note_thread(struct collector *c, uint32_t tid, uint32_t tgid)
{
	if (!tidset_add(&c->tids, tid, tgid))
		return;
	struct proc *p = rec_get_proc(c, (pid_t)tgid, LT_PROC_CHILD, 0);
	if (p)
		p->threads++;
	if (c->multi)
		lt_u64map_put(&c->tid_tgid, tid, (void *)(uintptr_t)tgid);
}

/* The process of a traced thread (0 unknown: it has gone), when several
 * processes are traced. */
__attribute__((noinline)) uint32_t rec_tgid_of_multi(struct collector *c, uint32_t tid)
{
	char err[160];
	pid_t tgid;

	uintptr_t t = (uintptr_t)lt_u64map_get(&c->tid_tgid, tid);
	if (t)
		return (uint32_t)t;
	/* a thread first seen in an event of its own: once per thread */
	if (lt_target_resolve((pid_t)tid, &tgid, err, sizeof(err)) || !rec_tgid_traced(c, (uint32_t)tgid))
		return 0;
	rec_note_thread(c, tid, (uint32_t)tgid);
	return (uint32_t)tgid;
}

/* The traced processes still alive, in a malloc'd array (*n of them). */
pid_t *rec_live_procs(const struct collector *c, size_t *n)
{
	pid_t *v = calloc(c->nprocs ? c->nprocs : 1, sizeof(*v));

	*n = 0;
	for (size_t i = 0; v && i < c->nprocs; i++)
		if (lt_proc_alive(c->procs[i]->tgid))
			v[(*n)++] = c->procs[i]->tgid;
	return v;
}

static int cmp_thread_tid(const void *a, const void *b)
{
	const struct lt_thread_info *x = a, *y = b;
	return (x->tid > y->tid) - (x->tid < y->tid);
}

/* The other traced processes into h (already describing the first, c's
 * tgid): their threads (each with its tgid), the process list and the
 * shared mappings (shared: read them; not for a launched program, which
 * has not exec'd yet).  names_only: their threads' names only
 * (lt_target_describe_names).  Processes that have gone are skipped. */
void rec_describe_procs(struct lt_header *h, const struct collector *c, int shared, int names_only)
{
	size_t cap = h->nthreads;

	if (!c->multi)
		return;
	h->procs = calloc(c->nprocs ? c->nprocs : 1, sizeof(*h->procs));
	for (size_t i = 0; h->procs && i < c->nprocs; i++) {
		const struct proc *p = c->procs[i];
		struct lt_header o = { 0 };
		const struct lt_header *d = h;
		if (p->tgid != h->pid) {
			if ((names_only ? lt_target_describe_names : lt_target_describe)(p->tgid, &o)) {
				lt_header_free(&o);
				continue;
			}
			d = &o;
			struct lt_thread_info *t = realloc(h->threads, (cap + o.nthreads + 1) * sizeof(*t));
			if (t) {
				h->threads = t;
				for (uint32_t k = 0; k < o.nthreads; k++) {
					t[h->nthreads] = o.threads[k];
					t[h->nthreads++].tgid = p->tgid;
				}
				cap = h->nthreads;
			}
		}
		struct lt_proc_info *pi = &h->procs[h->nprocs++];
		pi->tgid = p->tgid;
		pi->ppid = d->ppid;
		pi->flags = p->flags;
		snprintf(pi->comm, sizeof(pi->comm), "%s", d->comm);
		snprintf(pi->exe, sizeof(pi->exe), "%s", d->exe);
		snprintf(pi->cmdline, sizeof(pi->cmdline), "%s", d->cmdline);
		lt_header_free(&o);
		if (shared) {
			size_t n = h->nshared, scap = h->nshared;
			if (lt_target_shared_maps(p->tgid, &h->shared, &n, &scap) == 0 || n > h->nshared)
				h->nshared = (uint32_t)n;
		}
	}
	if (h->nthreads) /* qsort's array must not be NULL, even empty */
		qsort(h->threads, h->nthreads, sizeof(*h->threads), cmp_thread_tid);
}
