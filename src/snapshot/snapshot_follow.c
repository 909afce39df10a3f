/* `snapshot -p PID` follows the wait-for edges (waitfor.h) into the
 * processes at their other ends: the parties of a wait that are blocked
 * themselves, or are a few peers idle in event waits or on timers
 * (whose threads may yet be stuck: a server's handler waiting for a lock
 * while its listener sits in accept, a PostgreSQL backend's lock wait in
 * epoll_wait), are snapshotted too, breadth first, bounded in depth,
 * processes and time; the caller diagnoses them together
 * (lt_multi_build), so a chain or a cycle through them is one verdict. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "snapshot.h"
#include "target.h"
#include "waitfor.h"
#include "snapshot_int.h"

bool lt_wf_follow_edge(const struct lt_wf_edge *e)
{
	if (e->pstate == LT_WFP_BLOCKED)
		return true;
	if (e->pstate != LT_WFP_EVENTS && e->pstate != LT_WFP_TIMED)
		return false;
	/* a lock's holder idle in an event wait (a PostgreSQL backend idle
	 * in transaction holding a row lock, flock(1)'s child polling its
	 * server) may wait for someone who waits for the lock: followed;
	 * one on a timer ends its wait by itself */
	bool lock = e->kind == LT_WF_APP_LOCK || e->kind == LT_WF_FILE_LOCK;
	if (lock)
		return e->pstate == LT_WFP_EVENTS && e->n_pids <= 3 && !e->more_pids;
	bool peer = e->kind == LT_WF_PIPE_READ || e->kind == LT_WF_PIPE_WRITE || e->kind == LT_WF_SOCKET ||
		    e->kind == LT_WF_CHILD || e->kind == LT_WF_EXIT ||
		    e->kind == LT_WF_TRACEE || lt_wf_maybe_child(e);
	return peer && e->n_pids <= 3 && !e->more_pids; /* the waiter's own process may be one */
}

static bool have(struct lt_snapshot **v, size_t n, pid_t pid)
{
	for (size_t i = 0; i < n; i++)
		if (v[i]->pid == pid)
			return true;
	return false;
}

/* The walk's state: the snapshots so far (v[0] the first), their depths,
 * the path said in the note, its limits. */
struct walk {
	struct lt_snapshot **v;
	int *depth;
	size_t n, max;
	int max_depth;
	double budget;
	int64_t t0;
	char path[512];
	size_t pl;
	bool stopped;
	pid_t cut[16]; /* processes a limit left unfollowed */
	size_t n_cut;
	lt_follow_take_fn take;
	void *arg;
	struct lt_strlist *notes;
};

/* Process P, at the other end of thread TID's wait (WHAT: "pipe", "futex
 * owner") of snapshot I, snapshotted and added unless it is there or a
 * limit is reached (said once). */
static void follow_one(struct walk *w, size_t i, pid_t p, const char *what, pid_t tid)
{
	if (p == w->v[i]->pid || have(w->v, w->n, p))
		return;
	double el = (double)(lts_now_ns(CLOCK_MONOTONIC) - w->t0) / 1e9;
	if (w->n >= w->max || w->depth[i] + 1 > w->max_depth || el > w->budget) {
		if (!w->stopped)
			lt_strlist_add(w->notes, "stopped following wait-for edges at process %d (%s): limits %zu "
				       "processes, depth %d, %g s", (int)p, w->n >= w->max ? "process limit" :
				       w->depth[i] + 1 > w->max_depth ? "depth limit" : "time limit", w->max,
				       w->max_depth, w->budget);
		w->stopped = true;
		bool known = false;
		for (size_t k = 0; k < w->n_cut && !known; k++)
			known = w->cut[k] == p;
		if (!known && w->n_cut < sizeof(w->cut) / sizeof(w->cut[0]))
			w->cut[w->n_cut++] = p;
		else if (!known)
			w->n_cut = SIZE_MAX; /* more than it keeps: every party said unknown */
		return;
	}
	struct lt_snapshot *ns = NULL;
	if (w->take(p, w->arg, &ns) || !ns) {
		lt_strlist_add(w->notes, "could not snapshot process %d (%s of thread %d)", (int)p, what, (int)tid);
		return;
	}
	if (have(w->v, w->n, ns->pid)) {
		lt_snapshot_free(ns);
		return;
	}
	w->depth[w->n] = w->depth[i] + 1;
	w->v[w->n++] = ns;
	if (w->pl < sizeof(w->path) - 64)
		w->pl += (size_t)snprintf(w->path + w->pl, sizeof(w->path) - w->pl, ", %d (%s of thread %d)",
					  (int)ns->pid, what, (int)tid);
}

int lt_snapshot_follow(struct lt_snapshot *first, const struct lt_follow_limits *lim, lt_follow_take_fn take,
		       void *arg, struct lt_snapshot ***out, size_t *n_out, struct lt_strlist *notes)
{
	struct walk w = { .max = lim && lim->max_procs ? lim->max_procs : 8,
			  .max_depth = lim && lim->max_depth ? lim->max_depth : 7,
			  .budget = lim && lim->max_s > 0 ? lim->max_s : 3.0,
			  .take = take, .arg = arg, .notes = notes };
	w.v = calloc(w.max, sizeof(*w.v));
	w.depth = calloc(w.max, sizeof(*w.depth));
	if (!w.v || !w.depth) {
		free(w.v);
		free(w.depth);
		return -1;
	}
	w.t0 = lts_now_ns(CLOCK_MONOTONIC);
	w.n = 1;
	w.v[0] = first;
	w.pl = (size_t)snprintf(w.path, sizeof(w.path), "%d", (int)first->pid);
	pid_t m[LT_FUTEX_MAPPERS], m_self = 0; /* the last shared object's mappers */
	size_t nm = 0;
	uint64_t m_ino = 0, m_off = 0;
	uint32_t m_maj = 0, m_min = 0;
	for (size_t i = 0; i < w.n; i++) {
		const struct lt_snapshot *s = w.v[i];
		for (size_t t = 0; t < s->n_threads; t++) {
			const struct lt_thread *th = &s->threads[t];
			/* a process-shared lock held by a thread of another
			 * process: what that thread does decides the wait */
			if (th->wait == LT_WAIT_FUTEX && th->futex.is_wait && th->futex.owner_tgid > 0)
				follow_one(&w, i, th->futex.owner_tgid, "lock owner", th->tid);
			/* one in a shared mapping that records no owner (a POSIX
			 * semaphore, a multiprocessing.Lock): the other processes
			 * mapping it, any of which may post it */
			else if (th->wait == LT_WAIT_FUTEX && th->futex.is_wait && th->futex.shared_obj &&
				 (!th->futex.owner || th->futex.sem_owner) && th->sc.state == LT_SC_IN_SYSCALL) {
				/* (a holder one process's SemLock names is read
				 * again with the others': semlock.c) */
				/* as the snapshot found them when it took the wait
				 * (snapshot.c); else /proc is scanned once for the
				 * waiters of one object */
				const pid_t *mp = th->futex.obj_mapper;
				size_t cnt = (size_t)th->futex.obj_mappers;
				if (!th->futex.obj_mappers_known) {
					if (th->futex.obj_ino != m_ino || th->futex.obj_major != m_maj ||
					    th->futex.obj_minor != m_min || th->futex.obj_off != m_off ||
					    s->pid != m_self) {
						m_ino = th->futex.obj_ino;
						m_maj = th->futex.obj_major;
						m_min = th->futex.obj_minor;
						m_off = th->futex.obj_off;
						m_self = s->pid;
						nm = lt_proc_mappers(m_maj, m_min, m_ino, m_off, s->pid, m,
								     LT_FUTEX_MAPPERS);
					}
					mp = m;
					cnt = nm;
				}
				for (size_t q = 0; q < cnt && q < LT_FUTEX_MAPPERS; q++)
					follow_one(&w, i, mp[q], "process mapping the shared lock", th->tid);
			}
			const struct lt_waitfor *wf = th->wf;
			for (size_t k = 0; wf && k < wf->n_edges; k++) {
				const struct lt_wf_edge *e = &wf->edges[k];
				if (!lt_wf_follow_edge(e))
					continue;
				for (size_t q = 0; q < e->n_pids; q++)
					follow_one(&w, i, e->pids[q],
						   lt_wf_edge_obj(e) == LT_WF_OBJ_EVENTFD ? "eventfd_read"
						   : lt_wf_edge_obj(e) == LT_WF_OBJ_MQUEUE
						   ? (e->kind == LT_WF_PIPE_READ ? "mq_receive" : "mq_send")
						   : lt_wf_kind_name(e->kind), th->tid);
			}
		}
	}
	if (w.n > 1)
		lt_strlist_add(notes, "followed the wait-for edges of process %d into: %s", (int)first->pid, w.path);
	/* a party a limit left unfollowed was read blocked, in some call,
	 * but not what that call waits for: whether it is stuck is not
	 * known (an 11-stage pipeline whose first stage sleeps on a timer
	 * was chains all along) */
	for (size_t i = 0; w.n_cut && i < w.n; i++)
		for (size_t t = 0; t < w.v[i]->n_threads; t++) {
			struct lt_waitfor *wf = w.v[i]->threads[t].wf;
			for (size_t k = 0; wf && k < wf->n_edges; k++) {
				struct lt_wf_edge *e = &wf->edges[k];
				bool cut = false;
				for (size_t q = 0; q < e->n_pids && !cut; q++)
					for (size_t c = 0; c < w.n_cut && c < sizeof(w.cut) / sizeof(w.cut[0]) && !cut; c++)
						cut = e->pids[q] == w.cut[c];
				if (w.n_cut == SIZE_MAX) /* not all kept: any party not followed */
					for (size_t q = 0; q < e->n_pids && !cut; q++)
						cut = !have(w.v, w.n, e->pids[q]);
				if (!cut || e->pstate != LT_WFP_BLOCKED)
					continue;
				e->pstate = LT_WFP_UNKNOWN;
				char *d = lts_asprintf("%s (blocked in a call whose own wait was not followed: the "
						       "follow's limits)", e->doing ? e->doing : "?");
				if (d) {
					free(e->doing);
					e->doing = d;
				}
			}
		}
	free(w.depth);
	*out = w.v;
	*n_out = w.n;
	return 0;
}
