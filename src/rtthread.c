/* Runtime thread models: the framework (include/locktrace/rtthread.h).
 *
 * lt_rtthreads_apply runs after the user stacks are unwound and the lock
 * models have run: each model names the threads its runtime knows, reads
 * their stacks in the language's terms and places those frames among the
 * native ones, at the interpreter loop that runs them.  The lock models
 * started every thread's runtime view afresh, and a lock model's scan may
 * already have filled it (HotSpot: lt_lockmodel.scan): a thread whose
 * rt_lang is set is another runtime's and is left alone. */
#include <stdlib.h>
#include <string.h>

#include "locktrace/rtthread.h"
#include "snapshot_int.h"

extern const struct lt_rtmodel lt_rt_cpython;
extern const struct lt_rtmodel lt_rt_go;

const struct lt_rtmodel *const lt_rtmodels[] = {
	&lt_rt_cpython,
	&lt_rt_go,
	NULL,
};

void lt_rtthreads_apply(struct lt_snapshot *s, const struct lt_lm_env *e)
{
	for (size_t m = 0; lt_rtmodels[m]; m++)
		lt_rtmodels[m]->apply(e, s);
}

void lt_rt_place(struct lt_thread *t, const unsigned *group, bool (*is_loop)(const char *func))
{
	size_t nloops = 0, unplaced = 0;
	int *loops = malloc((t->n_frames ? t->n_frames : 1) * sizeof(*loops));
	if (!loops)
		return;
	for (size_t i = 0; i < t->n_frames; i++)
		if (t->frames[i].func && is_loop(t->frames[i].func))
			loops[nloops++] = (int)i;
	unsigned ngroups = 0;
	for (size_t i = 0; i < t->n_rt_frames; i++) {
		unsigned g = group[i];
		t->rt_frames[i].native = g < nloops ? loops[g] : -1;
		unplaced += g >= nloops;
		if (g + 1 > ngroups)
			ngroups = g + 1;
	}
	free(loops);
	if (!t->n_frames)
		return; /* no native stack (running): the runtime's stack stands alone */
	if (unplaced)
		lt_strlist_add(&t->notes, "%zu of %zu %s frames not placed among the native frames: "
			       "the native stack shows %zu interpreter-loop frames for %u invocations",
			       unplaced, t->n_rt_frames, t->rt_lang ? t->rt_lang : "runtime", nloops,
			       ngroups);
	else if (nloops > ngroups && !t->rt_end)
		lt_strlist_add(&t->notes, "the native stack shows %zu interpreter-loop frames for %u "
			       "invocations of the %s stack: its frames may be placed too deep",
			       nloops, ngroups, t->rt_lang ? t->rt_lang : "runtime");
}

void lt_rt_place_pc(struct lt_thread *t, const unsigned *group)
{
	size_t next = 0, unplaced = 0;
	for (size_t i = 0; i < t->n_rt_frames;) {
		/* one machine frame: the frames of group[i], all at its pc */
		size_t j = i + 1;
		while (j < t->n_rt_frames && group[j] == group[i])
			j++;
		int at = -1;
		for (size_t k = next; k < t->n_frames && at < 0; k++)
			if (t->rt_frames[i].pc && t->frames[k].pc == t->rt_frames[i].pc)
				at = (int)k;
		if (at >= 0)
			next = (size_t)at + 1;
		for (; i < j; i++) {
			t->rt_frames[i].native = at;
			unplaced += at < 0;
		}
	}
	if (unplaced && t->n_frames)
		lt_strlist_add(&t->notes, "%zu of %zu %s frames not placed among the native frames: no native "
			       "frame has their pc (the unwinder stopped or lost its way in the runtime's code)",
			       unplaced, t->n_rt_frames, t->rt_lang ? t->rt_lang : "runtime");
}
