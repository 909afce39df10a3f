// SPDX-License-Identifier: MIT
/* The snapshots a recording stores: the one at attach (taken off the
 * collector thread) and those at the end, a stall or SIGUSR1. */
#include <errno.h>
#include <malloc.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include "snapshot.h"
#include "locktrace/taskregs.h"
#include "budget.h"
#include "record_int.h"
#include "waitfor.h"
#include "utf8.h"

/* The time a snapshot in a recording may take (docs/snapshot.md): 3 s,
 * plus 1 ms per thread of the process, at most 10 s, from when it starts
 * reading the process; Ctrl-C ends it sooner.  An absolute
 * CLOCK_MONOTONIC deadline. */
static int64_t rec_snap_deadline(pid_t tgid)
{
	return lt_budget_deadline((int)tgid, 3000, 10000);
}

/* A snapshot of tgid now: registers from the task iterator make DWARF
 * unwinding work past libc's syscall wrappers; without them the snapshot
 * falls back to /proc's sp and pc.  NULL with err on failure. */
static struct lt_snapshot *snapshot_now(pid_t tgid, const char *occasion, char *err, size_t errlen)
{
	struct lt_snapshot_opts so = { .stop = &rec_stop_requests };
	struct lt_tid_regs *regs = NULL;
	size_t nregs = 0;
	struct lt_snapshot *snap = NULL;
	char rerr[256];

	/* one BPF object: the registers now, the socket timeouts in the snapshot */
	if (lt_taskiter_open(tgid, &so.iter, rerr, sizeof(rerr)) == 0 &&
	    lt_taskiter_regs(so.iter, &regs, &nregs, rerr, sizeof(rerr)) == 0) {
		so.regs = regs;
		so.n_regs = nregs;
	}
	/* after the registers (BPF iterators to load): the budget is the
	 * snapshot's own */
	so.deadline_ns = rec_snap_deadline(tgid);
	int r = lt_snapshot_take(tgid, &so, &snap);
	if (r)
		snprintf(err, errlen, "%s", lt_snapshot_strerror(r));
	else
		snap->occasion = occasion;
	free(regs);
	lt_taskiter_close(so.iter);
	return snap;
}

/* Appends to *buf (a JSON object ending in '}') the member
 * "processes":[{"pid":P,"comm":C,"tids":[...]}...] saying which process
 * each thread of a combined snapshot belongs to.  0 or -ENOMEM. */
static int add_processes(const struct lt_multi_snapshot *m, char **buf, size_t *len)
{
	char *mb = NULL;
	size_t ml = 0;
	FILE *f = open_memstream(&mb, &ml);

	if (!f)
		return -ENOMEM;
	fputs(",\"processes\":[", f);
	for (size_t i = 0; i < m->n_procs; i++) {
		const struct lt_snapshot *p = m->procs[i];
		fprintf(f, "%s{\"pid\":%d,\"comm\":", i ? "," : "", (int)p->pid);
		lt_json_fput(f, p->comm);
		fputs(",\"tids\":[", f);
		for (size_t k = 0; k < p->n_threads; k++)
			fprintf(f, "%s%d", k ? "," : "", (int)p->threads[k].tid);
		fputs("]}", f);
	}
	fputs("]}\n", f);
	if (fclose(f))
		return -ENOMEM;
	char *end = *len ? memrchr(*buf, '}', *len) : NULL;
	char *nb = end ? realloc(*buf, (size_t)(end - *buf) + ml + 1) : NULL;
	if (!nb) {
		free(mb);
		return -ENOMEM;
	}
	size_t at = (size_t)(end - *buf);
	memcpy(nb + at, mb, ml + 1);
	*buf = nb;
	*len = at + ml;
	free(mb);
	return 0;
}

/* lt_snapshot_follow's way to take a snapshot of a process a traced one
 * waits for: ARG the occasion. */
static int follow_take(pid_t pid, void *arg, struct lt_snapshot **out)
{
	char err[160];
	*out = snapshot_now(pid, arg, err, sizeof(err));
	return *out ? 0 : -1;
}

/* Adds to v[0..*k) (room for *cap, grown) the processes the waits of
 * v[0..k0) lead to, as `snapshot -p` follows them (waitfor.h), each once:
 * a traced parent's Pool worker stuck on a file lock, a client's server.
 * Each walk knows only its own snapshots (one into another traced process
 * takes it again, then dropped), so only for a few traced processes, each
 * walk within FOLLOW_S: a recording of a cgroup or a process tree says so
 * in a note instead of taking seconds per process. */
#define FOLLOW_ROOTS 4
#define FOLLOW_S 1.5
static void follow_waits(struct lt_snapshot ***v, size_t *k, size_t *cap, size_t k0, const char *occasion)
{
	const struct lt_follow_limits lim = { .max_s = FOLLOW_S };
	if (k0 > FOLLOW_ROOTS) {
		lt_strlist_add(&(*v)[0]->notes, "the waits of the %zu traced processes were not followed into "
			       "other processes (done for %d at most): `locktrace snapshot -p PID` follows them",
			       k0, FOLLOW_ROOTS);
		return;
	}
	for (size_t i = 0; i < k0; i++) {
		struct lt_snapshot **more = NULL;
		size_t nm = 0;
		struct lt_strlist notes = { 0 };
		if (lt_snapshot_follow((*v)[i], &lim, follow_take, (void *)occasion, &more, &nm, &notes)) {
			lt_strlist_free(&notes);
			continue;
		}
		for (size_t q = 1; q < nm; q++) {
			bool dup = false;
			for (size_t j = 0; j < *k; j++)
				dup |= (*v)[j]->pid == more[q]->pid;
			if (!dup && *k == *cap) {
				struct lt_snapshot **nv = realloc(*v, (*cap * 2) * sizeof(*nv));
				if (nv) {
					*v = nv;
					*cap *= 2;
				}
			}
			if (dup || *k == *cap)
				lt_snapshot_free(more[q]);
			else
				(*v)[(*k)++] = more[q];
		}
		for (size_t q = 0; q < notes.n; q++)
			lt_strlist_add(&(*v)[i]->notes, "%s", notes.v[q]);
		lt_strlist_free(&notes);
		free(more);
	}
}

/* The snapshot of the processes tgids[0..n) now as one JSON document:
 * for one process the snapshot itself; for several the combined view
 * (snapshot_multi.c: cross-process owners, shared locks, cycles that span
 * processes) as a locktrace.snapshot/1 document of all their threads,
 * with "processes" mapping threads to processes (docs/snapshot.md).
 * Processes that have gone are left out.  0, or -1 with err. */
static int snapshot_json(const pid_t *tgids, size_t n, const char *occasion, char **json,
			 size_t *len, char *err, size_t errlen)
{
	size_t cap = n ? n : 1;
	struct lt_snapshot **v = calloc(cap, sizeof(*v));
	size_t k = 0;
	int r = -1;

	*json = NULL;
	if (!v) {
		snprintf(err, errlen, "out of memory");
		return -1;
	}
	for (size_t i = 0; i < n; i++)
		if ((v[k] = snapshot_now(tgids[i], occasion, err, errlen)))
			k++;
	/* at the start and the end (not at a stall, taken on the collector's
	 * thread while it records): into the processes they wait for */
	if (k && (!strcmp(occasion, "start") || !strcmp(occasion, "end")))
		follow_waits(&v, &k, &cap, k, occasion);
	if (k == 1) {
		if (lt_snapshot_to_json_buf(v[0], json, len) == 0)
			r = 0;
		else
			snprintf(err, errlen, "cannot serialize the snapshot");
	} else if (k > 1) {
		struct lt_multi_snapshot *m = NULL;
		if (lt_multi_build(v, k, NULL, &m) == 0) {
			v = NULL; /* the view owns them */
			lt_multi_confirm(m);
			m->view.occasion = occasion;
			/* the stored view is all a reader gets: each process's
			 * notes (a thread not read, a budget cut) go with it */
			for (size_t i = 0; i < m->n_procs; i++)
				for (size_t j = 0; j < m->procs[i]->notes.n; j++)
					lt_strlist_add(&m->view.notes, "process %d: %s", (int)m->procs[i]->pid,
						       m->procs[i]->notes.v[j]);
			if (lt_snapshot_to_json_buf(&m->view, json, len) == 0 &&
			    add_processes(m, json, len) == 0)
				r = 0;
			lt_multi_free(m);
		}
		if (r) {
			free(*json);
			*json = NULL;
			snprintf(err, errlen, "cannot build the snapshot of %zu processes: out of memory", k);
		}
	}
	for (size_t i = 0; v && i < k; i++)
		lt_snapshot_free(v[i]);
	free(v);
	return r;
}

void *rec_snap_main(void *arg)
{
	struct snap_job *j = arg;

	snapshot_json(j->tgids, j->n, "start", &j->json, &j->len, j->err, sizeof(j->err));
	__atomic_store_n(&j->done, 1, __ATOMIC_RELEASE);
	return NULL;
}

/* Takes a snapshot of the traced processes now and writes it as a
 * SNAPSHOT section into w, with why it was taken (occasion: "end",
 * "stall", "sigusr1").  0 or -errno (a write error). */
int rec_snapshot_into(struct lt_writer *w, const struct collector *c, int quiet,
		      const char *occasion)
{
	char err[256] = "no process left";
	char *json = NULL;
	size_t len = 0, n;
	int r = 0;
	pid_t *tgids = rec_live_procs(c, &n);

	if (!tgids || snapshot_json(tgids, n, occasion, &json, &len, err, sizeof(err))) {
		if (!quiet)
			lt_note("no snapshot of process %d now: %s", (int)c->tgid, err);
		free(tgids);
		return 0;
	}
	/* its verdicts reach people through the report's findings */
	r = lt_writer_section(w, LT_CHUNK_SNAPSHOT, json, len);
	free(json);
	free(tgids);
	/* the snapshot's debug information is large and short-lived: give it
	 * back, so a long flight recording stays at its ring size */
	malloc_trim(0);
	return r;
}

/* Writes the snapshot section once the job is done (wait: block for it). */
void rec_snap_collect(struct snap_job *j, struct collector *c, int wait, int quiet)
{
	if (!j->started || (!wait && !__atomic_load_n(&j->done, __ATOMIC_ACQUIRE)))
		return;
	pthread_join(j->th, NULL);
	j->started = 0;
	if (j->json && !c->werr) {
		int r = lt_writer_section(c->w, LT_CHUNK_SNAPSHOT, j->json, j->len);
		if (r)
			c->werr = r;
	} else if (!j->json && !quiet) {
		lt_warn("no snapshot at attach: %s", j->err);
	}
	free(j->json);
	j->json = NULL;
	free(j->tgids);
	j->tgids = NULL;
}
