// SPDX-License-Identifier: MIT
/* See src/trace/taskrun.h. */
#include "taskrun.h"

char lt_run_attach_state(const struct lt_header *hdr, const struct lt_thread_info *t)
{
	/* "running", or /proc not read: nothing known of its sleep */
	if ((hdr->flags & LT_HDR_FLIGHT) || t->sc_nr == LT_SC_NR_RUNNING || t->sc_nr == LT_SC_NR_UNKNOWN)
		return 0;
	switch (t->state) {
	case 'S': case 'D': case 'T': case 't':
		return t->state;
	default:
		return 0;
	}
}

long lt_run_attach_call(const struct lt_header *hdr, const struct lt_thread_info *t)
{
	if (t->sc_nr < 0 || (hdr->flags & (LT_HDR_LAUNCHED | LT_HDR_FLIGHT)))
		return -1;
	if (t->state && !lt_run_attach_state(hdr, t))
		return -1; /* runnable: it waited for a cpu, not in its call */
	return (long)t->sc_nr;
}
