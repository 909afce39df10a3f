// SPDX-License-Identifier: MIT
/*
 * The report's processes: a trace may hold several (format 1.3).  Each
 * thread has its tgid; r->procs lists the processes, the trace's pid
 * first, named from the header or their threads.
 */
#include <stdlib.h>
#include <string.h>
#include "lockid.h"
#include "locksyms.h"
#include "report_int.h"

static struct lt_report_proc *proc_find(const struct lt_report *r, int32_t tgid)
{
	for (size_t i = 0; i < r->n_procs; i++)
		if (r->procs[i].tgid == tgid)
			return &r->procs[i];
	return NULL;
}

static struct lt_report_proc *proc_add(struct lt_report *r, int32_t tgid)
{
	struct lt_report_proc *p = proc_find(r, tgid);
	if (p || tgid <= 0)
		return p;
	p = realloc(r->procs, (r->n_procs + 1) * sizeof(*p));
	if (!p)
		return NULL;
	r->procs = p;
	p = &r->procs[r->n_procs++];
	memset(p, 0, sizeof(*p));
	p->tgid = tgid;
	return p;
}

int rp_procs_init(struct lt_report *r, const struct lt_header *hdr)
{
	struct lt_report_proc *p = proc_add(r, hdr->pid);
	if (!p)
		return -1;
	p->ppid = hdr->ppid;
	snprintf(p->comm, sizeof(p->comm), "%s", hdr->comm);
	snprintf(p->cmdline, sizeof(p->cmdline), "%.255s", hdr->cmdline);
	for (uint32_t i = 0; i < hdr->nprocs; i++) {
		const struct lt_proc_info *h = &hdr->procs[i];
		if (!(p = proc_add(r, h->tgid)))
			return -1;
		if (h->ppid > 0)
			p->ppid = h->ppid;
		if (h->comm[0])
			snprintf(p->comm, sizeof(p->comm), "%s", h->comm);
		if (h->cmdline[0])
			snprintf(p->cmdline, sizeof(p->cmdline), "%.255s", h->cmdline);
	}
	return 0;
}

static int by_tgid(const void *a, const void *b)
{
	const struct lt_report_proc *x = a, *y = b;
	return (x->tgid > y->tgid) - (x->tgid < y->tgid);
}

int rp_procs_finish(struct lt_report *r)
{
	for (size_t i = 0; i < r->n_threads; i++) {
		const struct lt_report_thread *t = &r->threads[i];
		struct lt_report_proc *p = proc_add(r, t->tgid ? (int32_t)t->tgid : r->pid);
		if (!p)
			return -1;
		p->n_threads++;
		/* a process joined later (a fork): named by its main thread,
		 * else by its first thread */
		if (!p->comm[0] || (t->tid == (uint32_t)p->tgid && p->tgid != r->pid && !p->cmdline[0]))
			snprintf(p->comm, sizeof(p->comm), "%s", t->name);
	}
	if (r->n_procs > 2)
		qsort(r->procs + 1, r->n_procs - 1, sizeof(*r->procs), by_tgid);
	return 0;
}

const struct lt_report_proc *lt_report_proc_of(const struct lt_report *r, uint32_t tid)
{
	for (size_t i = 0; i < r->n_threads; i++)
		if (r->threads[i].tid == tid)
			return proc_find(r, (int32_t)r->threads[i].tgid);
	return NULL;
}

int rp_proc_forked(struct lt_report *r, uint32_t tgid, uint32_t ppid)
{
	struct lt_report_proc *p = proc_add(r, (int32_t)tgid);
	if (!p)
		return -1;
	if (!p->ppid)
		p->ppid = (int32_t)ppid;
	return 0;
}
