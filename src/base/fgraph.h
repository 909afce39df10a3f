/* SPDX-License-Identifier: MIT */
#ifndef LOCKTRACE_FGRAPH_H
#define LOCKTRACE_FGRAPH_H

#include <stddef.h>

/* The cycle search of every wait-for graph (the snapshot's verdicts, the
 * report's rules): a graph in which each node waits for at most one other,
 * next[i] (or -1), so that each node is on at most one cycle and its chain
 * either ends or runs into exactly one cycle.  O(n).
 *
 * on_cycle is called once per cycle, with its nodes in wait order (nodes[0]
 * waits for nodes[1], ..., the last for nodes[0]); nodes[0] is the cycle's
 * first node reached from the lowest-numbered start.  It returns an id >= 0
 * for the cycle, or -1 to pass it over (a cycle its caller does not
 * believe); -ENOMEM from it stops the search.
 *
 * on, when not NULL (n entries), gets for each node the id of the cycle
 * it is on, or -1; reach, when not NULL, the id of the cycle it is on or
 * whose chain leads into it, or -1.  Returns 0, or -ENOMEM. */
typedef long (*lt_fgraph_cycle_fn)(const long *nodes, size_t k, void *arg);

int lt_fgraph_cycles(size_t n, const long *next, lt_fgraph_cycle_fn on_cycle, void *arg, long *on,
		     long *reach);

#endif
