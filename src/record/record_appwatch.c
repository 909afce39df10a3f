// SPDX-License-Identifier: MIT
/* The recorder's side of the application-lock witness (appwatch.h): how
 * it looks at the process of a thread that sits in a long I/O wait. */
#include <stdint.h>
#include <stdlib.h>
#include "appwait.h"
#include "appwatch.h"
#include "snapshot.h"
#include "target.h"
#include "locktrace/taskregs.h"
#include "record_int.h"

/* A snapshot of the traced process of tid: stacks (registers from the task
 * iterator, as the stored snapshots have them), no file:line, no kernel
 * stacks: enough to classify each thread's wait. */
static int look(void *arg, uint32_t tid, struct lt_snapshot **out)
{
	struct session *s = arg;
	pid_t tgid = 0;
	char err[160];

	if (!s->c.multi)
		tgid = (pid_t)s->c.tgid;
	else
		tgid = (pid_t)(uintptr_t)lt_u64map_get(&s->c.tid_tgid, tid);
	if (!tgid && (lt_target_resolve((pid_t)tid, &tgid, err, sizeof(err)) ||
		      !rec_get_proc(&s->c, tgid, 0, 0)))
		return -1;
	if (!lt_appwait_may_run(tgid))
		return 1; /* no program of the table: nothing to look at */
	struct lt_snapshot_opts so = { .flags = LT_SNAP_NO_LINES | LT_SNAP_NO_KSTACK };
	struct lt_tid_regs *regs = NULL;
	size_t nregs = 0;
	if (lt_taskregs_read(tgid, &regs, &nregs, err, sizeof(err)) == 0) {
		so.regs = regs;
		so.n_regs = nregs;
	}
	int r = lt_snapshot_take(tgid, &so, out);
	free(regs);
	return r;
}

int rec_app_stall(struct session *s, uint64_t boot, char *why, size_t len)
{
	if (!s->appw && !(s->appw = lt_appwatch_new(s->rtw_window)))
		return 0;
	return lt_appwatch_check(s->appw, &s->stall, boot, look, s, why, len);
}
