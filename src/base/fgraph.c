/* SPDX-License-Identifier: MIT */
/* Cycles of a graph with at most one edge out of each node (fgraph.h). */
#include <errno.h>
#include <stdlib.h>

#include "fgraph.h"

int lt_fgraph_cycles(size_t n, const long *next, lt_fgraph_cycle_fn on_cycle, void *arg, long *on,
		     long *reach)
{
	long *stamp = calloc(n ? n : 1, sizeof(*stamp)); /* walk id + 1 that visited it */
	long *id = malloc((n ? n : 1) * sizeof(*id));     /* the cycle's id on a cycle, else -2 */
	long *buf = malloc((n ? n : 1) * sizeof(*buf));   /* a cycle's nodes, then a path */
	int rc = 0;
	if (!stamp || !id || !buf) {
		rc = -ENOMEM;
		goto out;
	}
	for (size_t i = 0; i < n; i++)
		id[i] = -2;
	for (size_t i = 0; i < n; i++) {
		if (stamp[i])
			continue;
		long j = (long)i;
		while (j >= 0 && !stamp[j]) {
			stamp[j] = (long)i + 1;
			j = next[j];
		}
		if (j < 0 || stamp[j] != (long)i + 1)
			continue; /* the chain ended, or joined an earlier walk */
		size_t k = 0;
		long m = j;
		do {
			buf[k++] = m;
			m = next[m];
		} while (m != j);
		long c = on_cycle(buf, k, arg);
		if (c == -ENOMEM) {
			rc = -ENOMEM;
			goto out;
		}
		for (size_t q = 0; q < k; q++)
			id[buf[q]] = c < 0 ? -1 : c;
	}
	for (size_t i = 0; on && i < n; i++)
		on[i] = id[i] >= 0 ? id[i] : -1;
	if (reach) {
		/* memoized: each chain is walked once */
		for (size_t i = 0; i < n; i++)
			reach[i] = id[i] != -2 ? id[i] : -2;
		for (size_t i = 0; i < n; i++) {
			size_t np = 0;
			long j = (long)i;
			while (j >= 0 && reach[j] == -2) {
				buf[np++] = j;
				reach[j] = -3; /* on the path at hand */
				j = next[j];
			}
			long r = (j >= 0 && reach[j] >= 0) ? reach[j] : -1;
			while (np)
				reach[buf[--np]] = r;
		}
	}
out:
	free(stamp);
	free(id);
	free(buf);
	return rc;
}
