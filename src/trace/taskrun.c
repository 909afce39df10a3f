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

int lt_run_woken_by_task(const struct lt_event *ev)
{
	return ev->h.kind == LT_EV_WAKING && ev->wake.waker_tid &&
	       !(ev->h.flags & (LT_F_WAKER_IRQ | LT_F_WAKER_IDLE));
}

uint32_t lt_run_actor(const struct lt_event *ev)
{
	switch (ev->h.kind) {
	case LT_EV_FUTEX_ENTER:
	case LT_EV_WAIT_ENTER:
	case LT_EV_IO_ENTER:
	case LT_EV_FLOCK_ENTER:
	case LT_EV_TASK_EXIT:
	case LT_EV_EXEC:
		return ev->h.tid;
	case LT_EV_SYS_EXIT:
		return ev->h.flags & LT_F_RET_UNKNOWN ? 0 : ev->h.tid;
	case LT_EV_SWITCH:
		return ev->sw.prev_tid;
	case LT_EV_WAKING:
		return lt_run_woken_by_task(ev) ? ev->wake.waker_tid : 0;
	case LT_EV_TASK_NEW:
		return ev->tnew.parent_tid;
	default:
		return 0;
	}
}
