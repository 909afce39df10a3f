/* Runtime thread models: the library the models use (rtthread.h):
 * placing a runtime's frames among the native ones.  Which models run is
 * src/snapshot/models.c (lt_rtthreads_apply). */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "rtthread.h"
#include "snapshot_int.h"

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

/* Is native frame K machine code of the runtime (a `??` frame the
 * runtime's own walk has too)? */
static bool in_code(const struct lt_thread *t, size_t k, const struct lt_rt_code *c)
{
	return t->frames[k].pc >= c->lo && t->frames[k].pc < c->hi;
}

size_t lt_rt_place_pc(struct lt_thread *t, const unsigned *group, const struct lt_rt_code *code)
{
	/* the native frames the runtime's frames may go to: all of them, or
	 * with CODE the run [from, to) of them in the runtime's code, from
	 * the first such frame to the frame that entered it (or the first
	 * one outside it) */
	size_t from = 0, to = t->n_frames;
	if (code) {
		while (from < t->n_frames && !in_code(t, from, code))
			from++;
		to = from;
		while (to < t->n_frames && in_code(t, to, code) && !(code->entry && t->frames[to].pc == code->entry))
			to++;
	}
	size_t next = from, unplaced = 0, inferred = 0, at_entry = 0;
	for (size_t i = 0; i < t->n_rt_frames;) {
		/* one machine frame: the frames of group[i], all at its pc */
		size_t j = i + 1;
		while (j < t->n_rt_frames && group[j] == group[i])
			j++;
		int at = -1;
		for (size_t k = next; k < to && at < 0; k++)
			if (t->rt_frames[i].pc && t->frames[k].pc == t->rt_frames[i].pc)
				at = (int)k;
		if (at >= 0)
			next = (size_t)at + 1;
		for (; i < j; i++) {
			t->rt_frames[i].native = at;
			unplaced += at < 0;
		}
	}
	if (code && unplaced && t->n_frames) {
		/* The unwinder skipped the machine frames of these (a JIT's
		 * compiled frames keep no frame pointer, and it has no unwind
		 * information for them): each goes with the next frame that
		 * was found, in the runtime's order, and the outermost ones
		 * with the frame that entered the runtime's code (just inside
		 * its caller).  Where the unwinder stopped inside the code
		 * there is no such frame: they stay after the native stack,
		 * which ended inside them. */
		int after = to < t->n_frames ? (int)to : -1;
		for (size_t i = t->n_rt_frames; i-- > 0;) {
			if (t->rt_frames[i].native >= 0) {
				after = t->rt_frames[i].native;
				continue;
			}
			if (after < 0)
				continue;
			t->rt_frames[i].native = after;
			inferred++;
			at_entry += after == (int)to;
		}
		unplaced -= inferred;
	}
	const char *lang = t->rt_lang ? t->rt_lang : "runtime";
	if (inferred) {
		char where[128] = "";
		if (at_entry)
			snprintf(where, sizeof(where), ", the outermost inside frame #%zu, %s", to,
				 code->entry && t->frames[to].pc == code->entry
					 ? "the frame that entered the runtime's code" : "the first outside it");
		lt_strlist_add(&t->notes, "%zu of %zu %s frames placed by their order, not by a native frame: "
			       "the unwinder skipped their machine frames (compiled code keeps no frame "
			       "pointer); each is shown with the next %s frame found%s", inferred,
			       t->n_rt_frames, lang, lang, where);
	}
	if (unplaced && t->n_frames)
		lt_strlist_add(&t->notes, "%zu of %zu %s frames not placed among the native frames: no native "
			       "frame has their pc (the unwinder stopped or lost its way in the runtime's code)",
			       unplaced, t->n_rt_frames, lang);
	return inferred;
}
