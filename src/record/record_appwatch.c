// SPDX-License-Identifier: MIT
/* The recorder's side of the application-lock witness (appwatch.h): how
 * it looks at the process of a thread that sits in a long I/O wait. */
#include <stdbool.h>
#include <stdint.h>
#include <stdlib.h>
#include "appwait.h"
#include "appwatch.h"
#include "rt_idle.h"
#include "stall.h"
#include "snapshot.h"
#include "target.h"
#include "locktrace/taskregs.h"
#include "record_int.h"

/* A snapshot of the traced process of tid: stacks (registers from the task
 * iterator, as the stored snapshots have them), no file:line, no kernel
 * stacks: enough to classify each thread's wait. */
static pid_t tgid_of(struct session *s, uint32_t tid)
{
	pid_t tgid = 0;
	char err[160];

	if (!s->c.multi)
		tgid = (pid_t)s->c.tgid;
	else
		tgid = (pid_t)(uintptr_t)lt_u64map_get(&s->c.tid_tgid, tid);
	if (!tgid && (lt_target_resolve((pid_t)tid, &tgid, err, sizeof(err)) ||
		      !rec_get_proc(&s->c, tgid, 0, 0)))
		return 0;
	return tgid;
}

static int snapshot_of(pid_t tgid, struct lt_snapshot **out);

static int look(void *arg, uint32_t tid, struct lt_snapshot **out)
{
	struct session *s = arg;
	pid_t tgid = tgid_of(s, tid);
	if (!tgid)
		return -1;
	if (!lt_appwait_may_run(tgid))
		return 1; /* no program of the table: nothing to look at */
	return snapshot_of(tgid, out);
}

static int snapshot_of(pid_t tgid, struct lt_snapshot **out)
{
	char err[160];
	struct lt_snapshot_opts so = { .flags = LT_SNAP_NO_LINES | LT_SNAP_NO_KSTACK };
	struct lt_tid_regs *regs = NULL;
	size_t nregs = 0;
	/* one BPF object: the registers now, the socket timeouts in the snapshot */
	if (lt_taskiter_open(tgid, &so.iter, err, sizeof(err)) == 0 &&
	    lt_taskiter_regs(so.iter, &regs, &nregs, err, sizeof(err)) == 0) {
		so.regs = regs;
		so.n_regs = nregs;
	}
	int r = lt_snapshot_take(tgid, &so, out);
	free(regs);
	lt_taskiter_close(so.iter);
	return r;
}

/* Does a stuck verdict of snapshot S (a deadlock, a lost wake-up, a
 * convoy, a lock wait, a wait chain, a stop; an unknown one: a JVM's
 * waiter that no thread of the program is left to wake) name TID? */
static bool named_stuck(const struct lt_snapshot *s, pid_t tid)
{
	for (size_t i = 0; i < s->n_verdicts; i++) {
		const struct lt_verdict *v = &s->verdicts[i];
		if (!lt_verdict_kind_stuck(v->kind) && v->kind != LT_VERDICT_UNKNOWN)
			continue;
		for (size_t k = 0; k < v->n_tids; k++)
			if (v->tids[k] == tid)
				return true;
	}
	return false;
}

/* A thread of snapshot S waiting for work: an idle pool's, a runtime's own
 * (rt_idle.h); or a Java wait for particular threads (a latch's await(), a
 * Semaphore's acquire(), a barrier, a future's get(): any thread may end
 * it) that no stuck verdict names: the snapshot found a thread that could
 * still end it (running, on a timer), so it is no stall's waiter. */
static bool waits_for_work(const struct lt_snapshot *s, const struct lt_thread *t)
{
	if (lt_rt_idle_wait(t))
		return true;
	return lt_kind_java_parked(t->futex.lock_kind) && !t->futex.rtlock && !named_stuck(s, t->tid);
}

int rec_app_stall(struct session *s, uint64_t boot, char *why, size_t len)
{
	if (!s->appw && !(s->appw = lt_appwatch_new(s->rtw_window)))
		return 0;
	return lt_appwatch_check(s->appw, &s->stall, boot, look, s, why, len);
}

/* The events-only stall rule's futex waiters past the window that no look
 * judged yet: one snapshot of each of their processes says which of them
 * wait for work (rt_idle.h: an idle pool on a condition variable with no
 * signal pending, a runtime's own thread), as the snapshot's verdicts judge
 * them.  Each wait is judged once.  A thread the snapshot found out of any
 * futex wait (between two tries of a wait retried after its timeout, as a
 * poller's timed waits are: a judgement then would last as long as its
 * retries) is left for a later look and not counted now; a wait whose
 * process could not be looked at is judged a lock wait. */
int rec_idle_judge(struct session *s, uint64_t boot)
{
	uint32_t tids[256];
	size_t n = lt_stall_unjudged(&s->stall, boot, tids, sizeof(tids) / sizeof(tids[0]));
	if (n > sizeof(tids) / sizeof(tids[0]))
		n = sizeof(tids) / sizeof(tids[0]);
	if (!n)
		return 0;
	pid_t done[8], looked[8];
	size_t ndone = 0, nlooked = 0;
	for (size_t i = 0; i < n; i++) {
		pid_t tgid = tgid_of(s, tids[i]);
		int seen = 0;
		for (size_t k = 0; k < ndone; k++)
			seen |= done[k] == tgid;
		if (!tgid || seen || ndone == sizeof(done) / sizeof(done[0]))
			continue;
		done[ndone++] = tgid;
		struct lt_snapshot *snap = NULL;
		if (snapshot_of(tgid, &snap) || !snap)
			continue;
		looked[nlooked++] = tgid;
		for (size_t k = 0; k < snap->n_threads; k++) {
			const struct lt_thread *t = &snap->threads[k];
			if (t->wait == LT_WAIT_FUTEX)
				lt_stall_judge(&s->stall, (uint32_t)t->tid, t->futex.uaddr, waits_for_work(snap, t));
		}
		lt_snapshot_free(snap);
	}
	for (size_t i = 0; i < n; i++) {
		const struct lt_stall_thread *t = lt_stall_thread_of(&s->stall, tids[i]);
		if (!t || t->judged)
			continue;
		pid_t tgid = tgid_of(s, tids[i]);
		int saw = 0;
		for (size_t k = 0; k < nlooked; k++)
			saw |= looked[k] == tgid;
		if (saw)
			lt_stall_unseen(&s->stall, tids[i], boot); /* out of the wait now */
		else
			lt_stall_judge(&s->stall, tids[i], 0, 0); /* not looked at: a lock wait */
	}
	return 1;
}
