/* `snapshot -p PID` follows the wait-for edges (waitfor.h) into the
 * processes at their other ends: the parties of a wait that are blocked
 * themselves are snapshotted too, breadth first, bounded in depth,
 * processes and time; the caller diagnoses them together
 * (lt_multi_build), so a chain or a cycle through them is one verdict. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "snapshot.h"
#include "waitfor.h"
#include "snapshot_int.h"

static bool have(struct lt_snapshot **v, size_t n, pid_t pid)
{
	for (size_t i = 0; i < n; i++)
		if (v[i]->pid == pid)
			return true;
	return false;
}

int lt_snapshot_follow(struct lt_snapshot *first, const struct lt_follow_limits *lim, lt_follow_take_fn take,
		       void *arg, struct lt_snapshot ***out, size_t *n_out, struct lt_strlist *notes)
{
	size_t max = lim && lim->max_procs ? lim->max_procs : 8;
	int max_depth = lim && lim->max_depth ? lim->max_depth : 4;
	double budget = lim && lim->max_s > 0 ? lim->max_s : 3.0;
	struct lt_snapshot **v = calloc(max, sizeof(*v));
	int *depth = calloc(max, sizeof(*depth));
	if (!v || !depth) {
		free(v);
		free(depth);
		return -1;
	}
	int64_t t0 = lts_now_ns(CLOCK_MONOTONIC);
	size_t n = 1;
	v[0] = first;
	char path[512];
	size_t pl = (size_t)snprintf(path, sizeof(path), "%d", (int)first->pid);
	bool stopped = false;
	for (size_t i = 0; i < n; i++) {
		const struct lt_snapshot *s = v[i];
		for (size_t t = 0; t < s->n_threads; t++) {
			const struct lt_waitfor *w = s->threads[t].wf;
			for (size_t k = 0; w && k < w->n_edges; k++) {
				const struct lt_wf_edge *e = &w->edges[k];
				if (e->pstate != LT_WFP_BLOCKED)
					continue;
				for (size_t q = 0; q < e->n_pids; q++) {
					pid_t p = e->pids[q];
					if (p == s->pid || have(v, n, p))
						continue;
					double el = (double)(lts_now_ns(CLOCK_MONOTONIC) - t0) / 1e9;
					if (n >= max || depth[i] + 1 > max_depth || el > budget) {
						if (!stopped)
							lt_strlist_add(notes, "stopped following wait-for edges at process %d "
								       "(%s): limits %zu processes, depth %d, %g s",
								       (int)p, n >= max ? "process limit" :
								       depth[i] + 1 > max_depth ? "depth limit" : "time limit",
								       max, max_depth, budget);
						stopped = true;
						continue;
					}
					struct lt_snapshot *ns = NULL;
					if (take(p, arg, &ns) || !ns) {
						lt_strlist_add(notes, "could not snapshot process %d (%s of thread %d)",
							       (int)p, lt_wf_kind_name(e->kind), (int)s->threads[t].tid);
						continue;
					}
					if (have(v, n, ns->pid)) {
						lt_snapshot_free(ns);
						continue;
					}
					depth[n] = depth[i] + 1;
					v[n++] = ns;
					if (pl < sizeof(path) - 64)
						pl += (size_t)snprintf(path + pl, sizeof(path) - pl, ", %d (%s of thread %d)",
								       (int)ns->pid, lt_wf_kind_name(e->kind),
								       (int)s->threads[t].tid);
				}
			}
		}
	}
	if (n > 1)
		lt_strlist_add(notes, "followed the wait-for edges of process %d into: %s", (int)first->pid, path);
	free(depth);
	*out = v;
	*n_out = n;
	return 0;
}
