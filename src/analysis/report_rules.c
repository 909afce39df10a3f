// SPDX-License-Identifier: MIT
/* The report's rules: each turns the state at the end and the tables the
 * model kept into findings (docs/report.md says what each claims). */
#include <errno.h>
#include <inttypes.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>
#include "filelock.h"
#include "locktrace/calls.h"
#include "fgraph.h"
#include "lockid.h"
#include "report_model.h"

/* ---- deadlock ---- */

/* The owner the snapshot read for the very word t waits on, NULL if none:
 * a group may hold adjacent words of different locks (raw futexes 4 bytes
 * apart), each with its own holder, and the group's one holder is then
 * not the holder of every waiter's lock. */

/* "the threading.Condition at 0x...", "JucLocks$Mon@0x69ec1ef08": the
 * object g's waiters wait for a notify() on (rp_notify_of) */
static const char *notify_obj(const struct rgroup *g, const struct rp_notify *nk, char *buf, size_t len)
{
	uint64_t obj = 0;
	rp_notify_of(g, &obj);
	if (!strcmp(nk->kind, "threading.Condition"))
		snprintf(buf, len, "the threading.Condition at 0x%" PRIx64, obj);
	else
		snprintf(buf, len, "%s", g->rt_name[0] ? g->rt_name : "?");
	return buf;
}

static struct rthread *word_owner(struct lt_report *r, const struct rthread *t)
{
	const struct rp_snap_thread *s = t->snap;
	if (!s || !s->has_futex || !s->is_wait || s->uaddr != t->pub.end_call.addr || s->owner <= 0 ||
	    ((!s->owner_kind || !strcmp(s->owner_kind, "none") || !strcmp(s->owner_kind, "unknown")) &&
	     !s->owner_pid))
		return NULL;
	return rp_thread_of(r, (uint32_t)s->owner);
}

static struct rthread *waits_for(struct lt_report *r, struct rthread *t)
{
	if (t->pub.end_state != LT_RTS_IN_CALL || !t->end_group || !t->pub.asleep)
		return NULL;
	struct rthread *o = word_owner(r, t);
	if (o)
		return o;
	struct rgroup *g = P(r)->gr[t->end_group - 1];
	if (!g->end_holder)
		return NULL;
	return P(r)->th[g->end_holder - 1];
}

/* The finding of one cycle: cyc[0] waits for cyc[1]'s lock, ..., the last
 * for cyc[0]'s. */
static void deadlock_finding(struct lt_report *r, struct rthread *const *cyc, size_t n)
{
	struct lt_report_finding *f = rp_finding_new(r, LT_FIND_DEADLOCK, "cycle");
	if (!f)
		return;
	char line[2048], tn[96], tn2[96], gn[RP_GNAME_LEN], ts[32], d[32], how[700];
	size_t m = 0;
	uint64_t since = 0;
	for (size_t i = 0; i < n; i++) {
		struct rthread *a = cyc[i], *b = waits_for(r, a);
		struct rgroup *g = P(r)->gr[a->end_group - 1];
		g->in_cycle = 1;
		rp_f_tid(f, a->pub.tid);
		rp_f_lock(f, a->pub.end_call.addr, 0);
		if (!since || (rp_end_since(a) && rp_end_since(a) < since))
			since = rp_end_since(a);
		m += (size_t)snprintf(line + m, m < sizeof(line) ? sizeof(line) - m : 0, "%s -> ",
				      rp_tname(a, tn, sizeof(tn)));
		rp_fmt_ts(rp_end_since(a), ts, sizeof(ts));
		lt_fmt_dur(rp_dur_to_end(r, rp_end_since(a)), d, sizeof(d));
		if (word_owner(r, a) && (!g->end_holder || P(r)->th[g->end_holder - 1] != b))
			snprintf(how, sizeof(how), "the snapshot read the owner of this word (%s); the other "
				 "words of the object name %s", a->snap->owner_kind ? a->snap->owner_kind : "?",
				 g->end_holder ? rp_tname(P(r)->th[g->end_holder - 1], gn, sizeof(gn)) : "nobody");
		else
			rp_holder_how(r, g, how, sizeof(how));
		const struct rp_notify *nk = rp_notify_of(g, NULL);
		/* a wait for the holder's work to end (a join, a task) */
		const struct lt_done_kind *dk = g->end_holder && P(r)->th[g->end_holder - 1] == b
						? lt_done_kind_of(g->rt_kind) : NULL;
		char on[RP_GNAME_LEN];
		if (dk && dk->exit)
			rp_f_ev(f, "thread %s waits in %s for thread %s to exit since %s (%s): %s",
				rp_tname(a, tn, sizeof(tn)), dk->wait_call, rp_tname(b, tn2, sizeof(tn2)),
				rp_end_since(a) ? ts : "before the trace", d, how);
		else if (dk)
			rp_f_ev(f, "thread %s waits in %s for %s%s, %s thread %s, since %s (%s): %s",
				rp_tname(a, tn, sizeof(tn)), dk->wait_call, dk->what, g->rt_name[0] ? g->rt_name : "?",
				dk->run_by, rp_tname(b, tn2, sizeof(tn2)), rp_end_since(a) ? ts : "before the trace", d,
				how);
		else if (nk)
			rp_f_ev(f, "thread %s waits in %s on %s since %s (%s); %s is thread %s, and no %s can "
				"come but from it: %s", rp_tname(a, tn, sizeof(tn)), nk->wait_call,
				notify_obj(g, nk, on, sizeof(on)), rp_end_since(a) ? ts : "before the trace", d,
				nk->holder_of, rp_tname(b, tn2, sizeof(tn2)), nk->wake_call, how);
		else
			rp_f_ev(f, "thread %s waits for lock %s since %s (%s), held by thread %s: %s",
				rp_tname(a, tn, sizeof(tn)), rp_gname(g, gn, sizeof(gn)),
				rp_end_since(a) ? ts : "before the trace", d, rp_tname(b, tn2, sizeof(tn2)), how);
	}
	if (m < sizeof(line))
		snprintf(line + m, sizeof(line) - m, "%u", cyc[0]->pub.tid);
	f->since = since;
	f->duration_ns = rp_dur_to_end(r, since);
	/* a wait of the cycle with a timeout ends by itself (the snapshot
	 * at the end read it): the cycle lasts until then, never a plain
	 * deadlock */
	const struct rthread *timed = NULL;
	for (size_t i = 0; i < n; i++) {
		const struct rp_snap_thread *s = cyc[i]->snap;
		if (!s || !s->timed)
			continue;
		if (!timed || (s->timed_left_s >= 0 && (timed->snap->timed_left_s < 0 ||
							s->timed_left_s < timed->snap->timed_left_s)))
			timed = cyc[i];
		char in[64] = "when is not known";
		if (s->timed_left_s >= 0)
			snprintf(in, sizeof(in), "in about %.1f s after the snapshot at the end", s->timed_left_s);
		rp_f_ev(f, "thread %s waits with a timeout (%s): the cycle lasts until then, and breaks if it "
			"then gives up what it holds (if it tries again, it does not)",
			rp_tname(cyc[i], tn, sizeof(tn)), in);
	}
	char until[480] = "";
	if (timed)
		snprintf(until, sizeof(until), "; thread %s waits with a timeout", rp_tname(timed, tn2, sizeof(tn2)));
	/* a Java FutureTask.get() or a Python Future.result() in the cycle
	 * (the snapshot's lock kind): a cancel() or a set_result() from any
	 * thread ends it too, so the cycle is probable, that inference said */
	const struct rthread *fut = NULL;
	const struct lt_done_kind *fk = NULL;
	for (size_t i = 0; i < n && !fut; i++) {
		fk = lt_done_kind_of(cyc[i]->snap ? cyc[i]->snap->lock_kind : NULL);
		if (fk && fk->inferred && fk->els)
			fut = cyc[i];
	}
	if (fut) {
		size_t ul = strlen(until);
		snprintf(until + ul, sizeof(until) - ul, "; inferred: that thread %s, in %s, %s (%s would end it "
			 "too)", rp_tname(fut, tn2, sizeof(tn2)), fk->wait_call,
			 fk->every ? "cannot go on before the task's runner ends it" : "waits for the task's runner alone",
			 fk->els);
	}
	const char *dl = fut ? "probable deadlock" : "deadlock";
	if (n == 1)
		rp_f_summary(f, "%s%s: thread %s waits for a lock it holds itself (self-deadlock)%s", dl,
			     timed ? " until a timeout" : "", rp_tname(cyc[0], tn, sizeof(tn)), until);
	else
		rp_f_summary(f, "%s%s: %zu threads wait for each other: %s%s", dl, timed ? " until a timeout" : "",
			     n, line, until);
	for (size_t i = 0; i < n; i++)
		rp_snap_ev(r, f, cyc[i]);
}

/* A cycle of the waits-for graph (fgraph.h), reported once.  One thread
 * waiting for itself only when the snapshot read the owner of the very word
 * it waits on as itself (a real self-deadlock), never from a group's
 * holder. */
static long deadlock_cycle(const long *nodes, size_t k, void *arg)
{
	struct lt_report *r = arg;
	struct lt_report_priv *p = P(r);
	struct rthread *t = p->th[nodes[0]];
	if (k == 1 && word_owner(r, t) != t)
		return -1;
	struct rthread **cyc = malloc(k * sizeof(*cyc));
	if (!cyc)
		return -ENOMEM;
	for (size_t i = 0; i < k; i++)
		cyc[i] = p->th[nodes[i]];
	deadlock_finding(r, cyc, k);
	free(cyc);
	return 0;
}

static void rule_deadlock(struct lt_report *r)
{
	struct lt_report_priv *p = P(r);
	long *next = malloc((p->nth ? p->nth : 1) * sizeof(*next));
	if (!next) {
		p->oom = 1;
		return;
	}
	for (size_t i = 0; i < p->nth; i++) {
		struct rthread *o = waits_for(r, p->th[i]);
		next[i] = o ? (long)o->idx : -1;
	}
	if (lt_fgraph_cycles(p->nth, next, deadlock_cycle, r, NULL, NULL))
		p->oom = 1;
	free(next);
}

/* ---- holder blocked ---- */

/* Since when the lock's queue has stood: its oldest waiter's wait, or for a
 * runtime lock whose holder the snapshot read from memory, the start of the
 * call the holder is still in (it has not let the lock go since), whichever
 * is older. */
static uint64_t queue_since(struct lt_report *r, const struct rgroup *g)
{
	uint64_t since = g->end_oldest;
	if (g->end_holder_src != 1 || !g->rt_kind[0] || !g->end_holder)
		return since;
	const struct lt_report_thread *hp = &P(r)->th[g->end_holder - 1]->pub;
	uint64_t b = hp->end_since ? hp->end_since : hp->end_call.begin;
	if (hp->end_state == LT_RTS_IN_CALL && b && b < since)
		since = b;
	return since;
}

static int on_path(struct rgroup *const *path, unsigned n, const struct rgroup *g)
{
	for (unsigned i = 0; i < n; i++)
		if (path[i] == g)
			return 1;
	return 0;
}

/* From g's holder, follow holders that themselves wait for a lock to the
 * one that does something else: only through holders known from memory or
 * events (a guess stops the chain), and never round a loop (rule_deadlock
 * reports those it can prove).  The locks passed go to path (*np of them);
 * returns the last holder. */
static struct rthread *chain_holder(struct lt_report *r, struct rgroup *g, struct rgroup **path, unsigned *np)
{
	struct lt_report_priv *p = P(r);
	struct rthread *h = p->th[g->end_holder - 1];
	*np = 0;
	while (rp_is_lock_waiter(h) && h->pub.asleep && *np < MAX_CHAIN) {
		struct rgroup *g2 = p->gr[h->end_group - 1];
		if (!rp_holder_evidenced(g2) || g2->in_cycle || g2 == g || on_path(path, *np, g2))
			break;
		path[(*np)++] = g2;
		h = p->th[g2->end_holder - 1];
	}
	return h;
}

/* What the holder does at the end: the finding's rule and title. */
enum holder_state { HS_IO, HS_POLL, HS_WAITS, HS_IN_CALL, HS_PREEMPTED, HS_RUNNING, HS_SLEEP, HS_EXITED,
		    HS_UNKNOWN, HS_PARKED, HS_JAVA_SLEEP };
static const struct {
	const char *rule, *title;
} holder_states[] = {
	[HS_IO] = { "io", "lock holder blocked in I/O" },
	[HS_POLL] = { "poll", "lock holder blocked in select/poll" },
	[HS_WAITS] = { "waits", "lock holder waits on another lock" },
	[HS_IN_CALL] = { "in_call", "lock holder inside a call" },
	[HS_PREEMPTED] = { "preempted", "lock holder preempted" },
	[HS_RUNNING] = { "running", "lock holder still running" },
	[HS_SLEEP] = { "sleep", "lock holder asleep outside the traced calls" },
	[HS_EXITED] = { "exited", "lock holder exited" },
	[HS_UNKNOWN] = { "unknown", "lock held by a thread in an unknown state" },
	/* Java's Thread.sleep(): a timed sleep on the thread's own word */
	[HS_JAVA_SLEEP] = { "java_sleep", "lock holder asleep in Thread.sleep()" },
	/* glibc's endless wait after a refused PI or robust mutex: no lock */
	[HS_PARKED] = { "parked", "lock holder sleeps for ever (glibc's endless wait after the kernel refused "
				  "it a PI or robust mutex: EDEADLK, a cycle, or ESRCH, a dead owner)" },
};

static enum holder_state holder_state(const struct lt_report_thread *hp)
{
	const struct lt_report_call *c = &hp->end_call;
	switch (hp->end_state) {
	case LT_RTS_IN_CALL:
		if (c->kind == LT_EV_IO_ENTER)
			return HS_IO;
		if (c->kind == LT_EV_WAIT_ENTER)
			return HS_POLL;
		return (c->flags & LT_SPAN_LOCK_WAIT) ? HS_WAITS : HS_IN_CALL;
	case LT_RTS_RUNNABLE: return HS_PREEMPTED;
	case LT_RTS_RUNNING: return HS_RUNNING;
	case LT_RTS_SLEEPING: return HS_SLEEP;
	case LT_RTS_EXITED: return HS_EXITED;
	default: return HS_UNKNOWN;
	}
}

/* How long nobody has woken g, as the summary's last clause. */
static void quiet_phrase(struct lt_report *r, const struct rgroup *g, char *buf, size_t len)
{
	char d[32];
	uint64_t quiet = g->pub.last_wake_ts, qs = queue_since(r, g);
	lt_fmt_dur(rp_dur_to_end(r, quiet ? quiet : g->end_oldest), d, sizeof(d));
	/* its waiters waited again (timed out, or more waits than waiters) */
	bool retried = g->pub.timeouts > 0 || g->pub.waits > g->n_mem;
	if (qs < g->end_oldest && !quiet && retried) {
		/* a runtime lock whose waiters retry in timed waits (CPython's GIL
		 * every 5 ms): no single wait is long, the queue is */
		lt_fmt_dur(rp_dur_to_end(r, qs), d, sizeof(d));
		snprintf(buf, len, "its waiters retry in timed waits and nobody has woken it in the "
			 "trace; the holder has kept it for at least %s", d);
	} else if (qs < g->end_oldest && !quiet) {
		/* one wait each, begun after the holder's call */
		char h[32];
		lt_fmt_dur(rp_dur_to_end(r, qs), h, sizeof(h));
		snprintf(buf, len, "no wake-up on it in the trace, the first waiter has waited %s; the holder "
			 "has kept it for at least %s", d, h);
	} else if (quiet) {
		snprintf(buf, len, "nobody has woken the lock for %s", d);
	} else {
		snprintf(buf, len, "no wake-up on it in the trace, the first waiter has waited %s", d);
	}
}

/* The evidence: the waiters, the holder and the chain to the last holder
 * h, the last wake-up, the holders' calls. */
static void holder_blocked_ev(struct lt_report *r, struct lt_report_finding *f, struct rgroup *g,
			      struct rthread *h, struct rgroup *const *path, unsigned np, const char *gn)
{
	char tn[96], how[700], ts[32], d[32], list[512], op[64] = "";
	struct rthread *h0 = P(r)->th[g->end_holder - 1];
	rp_tid_list(r, g, list, sizeof(list), 12);
	rp_fmt_ts(g->end_oldest, ts, sizeof(ts));
	for (size_t i = 0; i < g->n_mem; i++) {
		struct rthread *t = g->mem[i];
		if (rp_is_lock_waiter(t)) {
			rp_f_tid(f, t->pub.tid);
			if (!op[0])
				lt_futex_op_name(t->pub.end_call.op & ~0x180u, t->pub.end_call.nr, op, sizeof(op));
		}
	}
	rp_f_tid(f, h0->pub.tid);
	rp_f_tid(f, h->pub.tid);
	rp_f_ev(f, "%u thread%s asleep in %s on %s, the longest since %s: %s", g->n_end_asleep,
		g->n_end_asleep == 1 ? "" : "s", op[0] ? op : "futex waits", gn,
		g->end_oldest ? ts : "before the trace", list);
	rp_f_ev(f, "holder: %s: %s", rp_tname(h0, tn, sizeof(tn)), rp_holder_how(r, g, how, sizeof(how)));
	for (unsigned i = 0; i < np; i++) {
		struct rthread *hh = P(r)->th[path[i]->end_holder - 1];
		char g2[RP_GNAME_LEN], tn2[96];
		rp_f_ev(f, "which waits on %s, held by %s: %s", rp_gname(path[i], g2, sizeof(g2)),
			rp_tname(hh, tn2, sizeof(tn2)), rp_holder_how(r, path[i], how, sizeof(how)));
		rp_f_lock(f, path[i]->pub.addr, 1);
		rp_f_tid(f, hh->pub.tid);
	}
	if (g->pub.last_wake_ts) {
		rp_fmt_ts(g->pub.last_wake_ts, ts, sizeof(ts));
		lt_fmt_dur(rp_dur_to_end(r, g->pub.last_wake_ts), d, sizeof(d));
		rp_f_ev(f, "the last wake-up on the lock: %u woke %u at %s; none since (%s)", g->pub.last_waker,
			g->pub.last_wakee, ts, d);
	} else {
		rp_f_ev(f, "no wake-up on the lock was recorded in the trace");
	}
	if (g->end_holder_src == 2)
		rp_last_calls_ev(r, f, h0, g->acq_ts ? g->acq_ts - 1 : 0, "the holder's calls since it took the lock:");
	if (h != h0)
		rp_last_calls_ev(r, f, h, 0, "the last holder's last calls:");
	rp_snap_ev(r, f, h);
	rp_related_ev(r, f, g);
}

/* Its waiters at the end, a Condition's all of them (rp_fold_conditions). */
static uint32_t end_waiters(const struct rgroup *g)
{
	return g->cond_obj ? g->cond_n_end : g->n_end;
}

/* g's waiters wait for a notify() that only its lock's holder can send,
 * and the snapshot read that holder: the summary's words for it, else NULL. */
static const struct rp_notify *notify_holder(const struct rgroup *g)
{
	const struct rp_notify *nk = g->cond_obj && g->end_holder_src == 1 ? rp_notify_of(g, NULL) : NULL;
	for (size_t i = 0; nk && i < g->n_mem; i++) {
		const struct rp_snap_thread *t = g->mem[i]->snap;
		if (t && t->owner_kind && (!strcmp(t->owner_kind, "condition_lock") || t->runtime))
			return nk;
	}
	return NULL;
}

static void rule_holder_blocked(struct lt_report *r, struct rgroup *g)
{
	char gn[RP_GNAME_LEN], what[512], hn[200], chain[256] = "", nobody[160];
	struct rgroup *path[MAX_CHAIN];
	unsigned np;
	struct rthread *h = chain_holder(r, g, path, &np);
	const struct lt_report_thread *hp = &h->pub;
	enum holder_state hs = holder_state(hp);
	if (hs == HS_WAITS && h->snap && h->snap->lock_kind && !strcmp(h->snap->lock_kind, "glibc's endless wait"))
		hs = HS_PARKED;
	if (h->java_sleep)
		hs = HS_JAVA_SLEEP;
	struct lt_report_finding *f = rp_finding_new(r, LT_FIND_HOLDER_BLOCKED, holder_states[hs].rule);
	if (!f)
		return;
	g->has_finding = 1;
	f->holder = hp->tid;
	f->via = np;
	if (hs == HS_IO)
		f->fd = hp->end_call.fd;
	rp_f_group(f, g);
	rp_doing(r, h, what, sizeof(what));
	rp_gname(g, gn, sizeof(gn));
	rp_tname(h, hn, sizeof(hn));
	if (np)
		snprintf(chain, sizeof(chain), " (through %u more lock%s)", np, np == 1 ? "" : "s");
	uint32_t n = end_waiters(g);
	/* a wait for the holder to finish (a task's runner, a joined thread:
	 * the snapshot read it), said so rather than as a lock kept */
	const struct lt_done_kind *dk = !np && g->end_holder_src == 1 ? lt_done_kind_of(g->rt_kind) : NULL;
	const char *title = holder_states[hs].title;
	char dtitle[200];
	if (dk && !strncmp(title, "lock holder ", 12)) {
		snprintf(dtitle, sizeof(dtitle), "%s %s", dk->other, title + 12);
		title = dtitle;
	}
	if (dk) {
		char since[96] = "";
		if (g->end_oldest) {
			char d[32];
			lt_fmt_dur(rp_dur_to_end(r, g->end_oldest), d, sizeof(d));
			snprintf(since, sizeof(since), "; the first waiter has waited %s", d);
		}
		char orelse[200] = "";
		if (dk->els)
			snprintf(orelse, sizeof(orelse), " (or on %s)", dk->els);
		if (dk->exit)
			rp_f_summary(f, "%s: %u thread%s wait%s in %s for thread %s to exit, which is %s: %s when %s%s%s",
				     title, n, n == 1 ? "" : "s", n == 1 ? "s" : "", dk->wait_call, hn, what,
				     n == 1 ? "the wait ends" : "their waits end", dk->done_what, orelse, since);
		else
			rp_f_summary(f, "%s: %u thread%s wait%s in %s for %s%s, %s thread %s, which is %s: "
				     "%s when %s%s%s", title, n, n == 1 ? "" : "s", n == 1 ? "s" : "", dk->wait_call,
				     dk->what, g->rt_name[0] ? g->rt_name : gn, dk->run_by, hn, what, n == 1 ? "the wait ends" : "their waits end",
				     dk->done_what, orelse, since);
	} else {
		const struct rp_notify *nk = notify_holder(g);
		char on[RP_GNAME_LEN];
		quiet_phrase(r, g, nobody, sizeof(nobody));
		if (nk)
			rp_f_summary(f, "%s: %u thread%s wait%s in %s on %s; %s%s, %s, is %s: no %s can come but "
				     "from it, nor can %s go on before it lets go; %s", holder_states[hs].title, n,
				     n == 1 ? "" : "s", n == 1 ? "s" : "", nk->wait_call,
				     notify_obj(g, nk, on, sizeof(on)), nk->holder_of, chain, hn, what, nk->wake_call,
				     n == 1 ? "it" : "they", nobody);
		else
			rp_f_summary(f, "%s: %u thread%s wait%s on %s; its %sholder%s %s is %s; %s",
				     holder_states[hs].title, n, n == 1 ? "" : "s", n == 1 ? "s" : "", gn,
				     g->end_holder_src == 3 ? "probable " : "", chain, hn, what, nobody);
	}
	f->since = hp->end_since ? hp->end_since : g->end_oldest;
	f->duration_ns = rp_dur_to_end(r, f->since);
	holder_blocked_ev(r, f, g, h, path, np, gn);
}

/* ---- lost wake-ups ---- */

/* (a) a wake that woke nobody while a waiter was about to sleep.  -1 when
 * out of memory (the rule stops), else 0. */
static int lost_wake_woke_nobody(struct lt_report *r, struct rgroup *g, const char *gn)
{
	char tn[96], ts[32], ts2[32], d[32];
	for (size_t i = 0; i < g->n_mem; i++) {
		struct rthread *t = g->mem[i];
		const struct lt_report_call *c = &t->pub.end_call;
		if (!rp_is_lock_waiter(t) || !t->pub.asleep || !t->w0_tid ||
		    c->woken_by || (g->pub.last_wake_ts && g->pub.last_wake_ts >= c->begin) ||
		    (double)rp_dur_to_end(r, c->begin) < r->opts.stall_s * 1e9)
			continue;
		struct lt_report_finding *f = rp_finding_new(r, LT_FIND_LOST_WAKEUP, "woke_nobody");
		if (!f)
			return -1;
		g->has_finding = 1;
		f->since = c->begin;
		f->duration_ns = rp_dur_to_end(r, c->begin);
		f->holder = t->w0_tid;
		rp_f_group(f, g);
		rp_f_tid(f, t->pub.tid);
		rp_f_tid(f, t->w0_tid);
		rp_fmt_ts(t->w0_ts, ts, sizeof(ts));
		rp_fmt_ts(c->begin, ts2, sizeof(ts2));
		lt_fmt_dur(f->duration_ns, d, sizeof(d));
		int64_t gap = (int64_t)(c->begin - t->w0_ts);
		char gp[32];
		lt_fmt_dur((uint64_t)(gap < 0 ? -gap : gap), gp, sizeof(gp));
		rp_f_summary(f, "lost wake-up on %s: thread %u's wake at %s woke nobody while thread %s was about to sleep on it; %u has slept %s since",
			     gn, t->w0_tid, ts, rp_tname(t, tn, sizeof(tn)), t->pub.tid, d);
		rp_f_ev(f, "%u's futex wake on %s at %s returned 0 (woke nobody)", t->w0_tid, gn, ts);
		rp_f_ev(f, "%s entered its wait on it at %s (%s %s the wake) and was asleep by then or soon after",
			rp_tname(t, tn, sizeof(tn)), ts2, gp, gap >= 0 ? "after" : "before");
		rp_f_ev(f, "nobody has woken %s since: %u is still asleep at the end (%s)", gn, t->pub.tid, d);
		rp_snap_ev(r, f, t);
	}
	return 0;
}

/* Does the snapshot show t asleep in a plain futex wait on a word that no
 * longer holds the value it expected? */
static int sleeps_on_changed_word(const struct rthread *t)
{
	const struct rp_snap_thread *s = t->snap;
	const struct lt_report_call *c = &t->pub.end_call;
	unsigned cmd = c->op & LT_FUTEX_CMD_MASK;
	return rp_is_lock_waiter(t) && s && s->has_futex && s->is_wait && !s->is_pi && s->word_ok &&
	       s->expected_ok && s->word != s->expected &&
	       !(c->nr == LT_NR_FUTEX && cmd != LT_FUTEX_WAIT && cmd != LT_FUTEX_WAIT_BITSET);
}

/* (b) a waiter sleeping on a word that has since changed.  -1 when out of
 * memory, else 0. */
static int lost_wake_word_changed(struct lt_report *r, struct rgroup *g, const char *gn)
{
	char tn[96], ts[32], ts2[32], d[32];
	for (size_t i = 0; i < g->n_mem; i++) {
		struct rthread *t = g->mem[i];
		const struct rp_snap_thread *s = t->snap;
		if (!sleeps_on_changed_word(t))
			continue;
		uint64_t since = rp_end_since(t);
		if ((double)rp_dur_to_end(r, since) < r->opts.stall_s * 1e9 ||
		    (g->pub.last_wake_ts && g->pub.last_wake_ts >= since))
			continue;
		struct lt_report_finding *f = rp_finding_new(r, LT_FIND_LOST_WAKEUP, "word_changed");
		if (!f)
			return -1;
		g->has_finding = 1;
		f->since = since;
		f->duration_ns = rp_dur_to_end(r, since);
		rp_f_group(f, g);
		rp_f_tid(f, t->pub.tid);
		rp_fmt_ts(since, ts, sizeof(ts));
		rp_fmt_ts(r->snapshot_ts, ts2, sizeof(ts2));
		lt_fmt_dur(f->duration_ns, d, sizeof(d));
		rp_f_summary(f, "lost wake-up on %s: thread %s sleeps expecting the word to be %u, but it is %u and nobody woke it (asleep %s)",
			     gn, rp_tname(t, tn, sizeof(tn)), s->expected, s->word, d);
		rp_f_ev(f, "%s has slept in %s on 0x%" PRIx64 " since %s, expecting the value %u", rp_tname(t, tn, sizeof(tn)),
			s->op_name ? s->op_name : "a futex wait", s->uaddr, since ? ts : "before the trace", s->expected);
		rp_f_ev(f, "the snapshot at %s read the word as %u: it changed after the thread went to sleep", ts2,
			s->word);
		if (g->pub.last_wake_ts) {
			rp_fmt_ts(g->pub.last_wake_ts, ts, sizeof(ts));
			rp_f_ev(f, "the last wake-up on the lock was at %s, before this wait began", ts);
		} else {
			rp_f_ev(f, "no wake-up on the lock was recorded in the trace");
		}
		rp_snap_ev(r, f, t);
	}
	return 0;
}

/* Of g's sleeping waiters other than its last holder h: the first that
 * queued while h held it (*w, or NULL) and the oldest (*oldest). */
static void waiters_of_released(const struct rgroup *g, const struct rthread *h, struct rthread **w,
				struct rthread **oldest)
{
	*w = *oldest = NULL;
	for (size_t i = 0; i < g->n_mem; i++) {
		struct rthread *t = g->mem[i];
		if (!rp_is_lock_waiter(t) || !t->pub.asleep || t == h)
			continue;
		uint64_t b = t->pub.end_call.begin;
		if (b >= g->last_acq && (!g->rel_ts || b <= g->rel_ts) && (!*w || b < (*w)->pub.end_call.begin))
			*w = t;
		if (!*oldest || b < (*oldest)->pub.end_call.begin)
			*oldest = t;
	}
}

/* The evidence of (c): how h took the lock and let it go, w queued, the
 * waiters now, the hand-offs that make it a lock passed on by wakes. */
static void released_ev(struct lt_report *r, struct lt_report_finding *f, struct rgroup *g,
			const struct rthread *h, const struct rthread *w, const char *gn)
{
	char tn2[96], ts[32], ts2[32], list[512];
	rp_fmt_ts(g->last_acq, ts, sizeof(ts));
	char by[64] = "";
	if (g->last_acq_waker)
		snprintf(by, sizeof(by), " (woken by %u)", g->last_acq_waker);
	rp_f_ev(f, "%u took the lock at %s%s: its wait on it returned", h->pub.tid, ts, by);
	if (w) {
		rp_fmt_ts(w->pub.end_call.begin, ts, sizeof(ts));
		rp_f_ev(f, "%s queued on it at %s, while %u held it, and was never woken", rp_tname(w, tn2, sizeof(tn2)),
			ts, h->pub.tid);
	}
	rp_fmt_ts(g->rel_ts, ts2, sizeof(ts2));
	if (g->rel_kind == REL_WAIT)
		rp_f_ev(f, "%u woke nobody on the lock and waited on it itself at %s", h->pub.tid, ts2);
	else if (g->rel_kind == REL_WAKE)
		rp_f_ev(f, "%u's wake on the lock at %s woke %" PRId64 " thread%s", h->pub.tid, ts2, g->rel_woken,
			g->rel_woken == 1 ? "" : "s");
	else if (g->rel_kind == REL_EXIT)
		rp_f_ev(f, "%u exited at %s without waking it", h->pub.tid, ts2);
	rp_last_calls_ev(r, f, h, g->last_acq ? g->last_acq - 1 : 0, "its calls since it took the lock:");
	rp_tid_list(r, g, list, sizeof(list), 12);
	rp_fmt_ts(g->end_oldest, ts, sizeof(ts));
	rp_f_ev(f, "%u thread%s asleep on %s since %s or later: %s", g->n_end_asleep, g->n_end_asleep == 1 ? "" : "s",
		gn, ts, list);
	if (g->pub.last_wake_ts) {
		rp_fmt_ts(g->pub.last_wake_ts, ts, sizeof(ts));
		rp_f_ev(f, "the last wake-up on the lock: %u woke %u at %s", g->pub.last_waker, g->pub.last_wakee, ts);
	}
	rp_fmt_ts(g->pub.chain_begin, ts, sizeof(ts));
	rp_f_ev(f, "its threads hand it to each other (a thread woken on it wakes the next): %" PRIu64 " hand-offs, up to %u in a row",
		g->pub.handoffs, g->pub.longest_chain);
	rp_related_ev(r, f, g);
}

/* (c) released without a wake: a lock its threads hand to each other
 * (a woken waiter later woke the next one) has waiters and no holder;
 * the last holder let it go while one of them already waited */
static void lost_wake_released(struct lt_report *r, struct rgroup *g, const char *gn)
{
	char tn[96], tn2[96], d[32];
	struct rthread *h = P(r)->th[g->last_holder - 1], *w, *oldest;
	waiters_of_released(g, h, &w, &oldest);
	if (!oldest || (double)rp_dur_to_end(r, g->end_oldest) < r->opts.stall_s * 1e9)
		return;
	/* without a waiter that queued while the last holder had it, its own
	 * acquire may have been invisible (taken without waiting): the lock is
	 * still free while its waiters sleep, which is what is reported */
	struct lt_report_finding *f = rp_finding_new(r, LT_FIND_LOST_WAKEUP,
						     w ? "released_without_wake" : "free_with_waiters");
	if (!f)
		return;
	g->has_finding = 1;
	g->lost_release = 1;
	f->holder = h->pub.tid;
	f->since = (w ? w : oldest)->pub.end_call.begin;
	f->duration_ns = rp_dur_to_end(r, f->since);
	rp_f_group(f, g);
	rp_f_tid(f, h->pub.tid);
	rp_f_tid(f, (w ? w : oldest)->pub.tid);
	for (size_t i = 0; i < g->n_mem; i++)
		if (rp_is_lock_waiter(g->mem[i]))
			rp_f_tid(f, g->mem[i]->pub.tid);
	lt_fmt_dur(rp_dur_to_end(r, g->pub.last_wake_ts ? g->pub.last_wake_ts : g->end_oldest), d, sizeof(d));
	if (w)
		rp_f_summary(f, "lost wake-up on %s: %u %s on it and none holds it; its last holder %s let it go without waking %s, who had queued while it held the lock; nobody has woken it for %s",
			     gn, g->n_end, g->n_end == 1 ? "thread waits" : "threads wait", rp_tname(h, tn, sizeof(tn)), rp_tname(w, tn2, sizeof(tn2)), d);
	else
		rp_f_summary(f, "lost wake-up on %s: %u %s on it while it is free (nobody holds it by the event rule); nobody has woken it for %s; the last thread to take it was %s",
			     gn, g->n_end, g->n_end == 1 ? "thread sleeps" : "threads sleep", d, rp_tname(h, tn, sizeof(tn)));
	released_ev(r, f, g, h, w, gn);
}

/* Three ways a wake-up is lost, the first that finds something wins. */
static void rule_lost_wakeup(struct lt_report *r, struct rgroup *g)
{
	char gn[RP_GNAME_LEN];
	rp_gname(g, gn, sizeof(gn));
	if (lost_wake_woke_nobody(r, g, gn) || g->has_finding)
		return;
	if (lost_wake_word_changed(r, g, gn) || g->has_finding || g->end_holder || !g->last_holder ||
	    g->pub.longest_chain < 2)
		return;
	lost_wake_released(r, g, gn);
}

/* A condition variable by the snapshot's lock models whose decoded state
 * has no signal pending for its waiters: only then is "an idle pool" a
 * reading of nobody waking it (how the waits look, a mutex's or a
 * semaphore's, or a condvar with a wake-up on its way, is not one). */
static int rp_real_condvar(const struct rgroup *g)
{
	int idle = 0;
	for (size_t i = 0; i < g->n_mem; i++) {
		const struct rp_snap_thread *s = g->mem[i]->snap;
		if (!s || !s->lock_kind)
			continue;
		if (!lt_kind_condvar_like(s->lock_kind) || s->cond_signal != 1 || s->acquire)
			return 0; /* under a lock-acquire function: a lock built on it */
		idle = 1;
	}
	return idle;
}

static void rule_stalled_waiters(struct lt_report *r, struct rgroup *g)
{
	char gn[RP_GNAME_LEN], ts[32], d[32], list[512], what[512], tn[96];
	/* waiters asleep since before the trace for a time nobody knows
	 * (end_oldest 0) have waited at least since its start */
	uint64_t oldest = g->end_oldest ? g->end_oldest : r->start_ts;
	uint64_t quiet = g->pub.last_wake_ts ? g->pub.last_wake_ts : oldest;
	if (!g->n_end_asleep || (double)rp_dur_to_end(r, quiet) < r->opts.stall_s * 1e9 ||
	    (double)rp_dur_to_end(r, oldest) < r->opts.stall_s * 1e9)
		return;
	struct lt_report_finding *f = rp_finding_new(r, LT_FIND_STALLED_WAITERS, "no_waker");
	if (!f)
		return;
	g->has_finding = 1;
	rp_gname(g, gn, sizeof(gn));
	f->since = g->end_oldest;
	f->duration_ns = rp_dur_to_end(r, oldest);
	rp_f_group(f, g);
	for (size_t i = 0; i < g->n_mem; i++)
		if (rp_is_lock_waiter(g->mem[i]))
			rp_f_tid(f, g->mem[i]->pub.tid);
	if (quiet == g->end_oldest || quiet == g->pub.last_wake_ts) {
		lt_fmt_dur(rp_dur_to_end(r, quiet), d, sizeof(d));
	} else { /* since before the trace: how long before it, unknown */
		char q[22];
		lt_fmt_dur(rp_dur_to_end(r, quiet), q, sizeof(q));
		snprintf(d, sizeof(d), "at least %s", q);
	}
	uint32_t n = end_waiters(g);
	const char *tw = n == 1 ? "thread waits" : "threads wait";
	const struct rp_notify *nk = g->cond_obj ? rp_notify_of(g, NULL) : NULL;
	const struct rp_snap_thread *gone = NULL; /* a private lock copied by fork() */
	for (size_t i = 0; i < g->n_mem && !gone; i++)
		if (g->mem[i]->snap && g->mem[i]->snap->owner_gone)
			gone = g->mem[i]->snap;
	/* a process-shared lock whose owner, by the snapshot at the end, is a
	 * thread of a process this trace does not record */
	const struct rp_snap_thread *elsewhere = NULL;
	for (size_t i = 0; i < g->n_mem && !elsewhere && !gone; i++) {
		const struct rp_snap_thread *sn = g->mem[i]->snap;
		if (sn && sn->has_futex && sn->is_wait && sn->uaddr == g->mem[i]->pub.end_call.addr &&
		    sn->owner > 0 && (sn->owner_pid > 0 || (sn->owner_kind && strcmp(sn->owner_kind, "none") &&
								   strcmp(sn->owner_kind, "unknown"))) &&
		    !rp_thread_of(r, (uint32_t)sn->owner))
			elsewhere = sn;
	}
	/* the snapshot followed it into its process (a combined snapshot's
	 * threads): what it does there */
	const struct rp_snap_thread *ot = NULL;
	for (size_t k = 0; elsewhere && k < P(r)->snap.n_threads; k++)
		if (P(r)->snap.threads[k].tid == elsewhere->owner)
			ot = &P(r)->snap.threads[k];
	char opid[48] = "";
	int32_t opd = elsewhere && elsewhere->owner_pid > 0 ? elsewhere->owner_pid : ot && ot->pid > 0 ? ot->pid : 0;
	if (opd)
		snprintf(opid, sizeof(opid), " of process %d", opd);
	/* glibc's endless wait after a refused PI or robust mutex (the
	 * snapshot's lock model): no lock, and nothing wakes it */
	const struct rp_snap_thread *parked = NULL;
	for (size_t i = 0; i < g->n_mem && !parked; i++) {
		const struct rp_snap_thread *sn = g->mem[i]->snap;
		if (sn && sn->lock_kind && !strcmp(sn->lock_kind, "glibc's endless wait"))
			parked = sn;
	}
	if (parked)
		rp_f_summary(f, "%u %s for ever on %s: a zero word of its own stack where glibc's "
			     "pthread_mutex_lock parks a thread the kernel refused a PI or robust mutex "
			     "(EDEADLK: a cycle of PI mutexes; ESRCH: a dead owner); nothing wakes it (by the "
			     "snapshot; asleep %s)", n, n == 1 ? "thread sleeps" : "threads sleep", gn, d);
	else if (elsewhere)
		rp_f_summary(f, "%u %s on %s, held by thread %d%s, which this trace does not record (the "
			     "snapshot at the end read the lock's owner); nobody has woken it for %s", n, tw, gn,
			     elsewhere->owner, opid, d);
	else if (gone && gone->gone_parent)
		rp_f_summary(f, "%u %s on %s, held by a thread that does not exist in this process: it was "
			     "locked when the process was forked from %d (its owner %d is a thread of %d); "
			     "nobody has woken it for %s", n, tw, gn, gone->gone_parent, gone->gone_tid,
			     gone->gone_parent, d);
	else if (gone)
		rp_f_summary(f, "%u %s on %s, held by no thread of this process (its recorded owner %d: it "
			     "exited holding the lock, or the lock was copied locked by fork()); nobody has "
			     "woken it for %s", n, tw, gn, gone->gone_tid, d);
	else if (nk) {
		char on[RP_GNAME_LEN];
		rp_f_summary(f, "%u %s in %s on %s and nobody has woken %s for %s; who could send a %s is not "
			     "known", n, tw, nk->wait_call, notify_obj(g, nk, on, sizeof(on)), n == 1 ? "it" : "them",
			     d, nk->wake_call);
	} else
		rp_f_summary(f, "%u %s on %s and nobody has woken it for %s; no holder is known", n, tw, gn, d);
	rp_tid_list(r, g, list, sizeof(list), 12);
	rp_fmt_ts(g->end_oldest, ts, sizeof(ts));
	if (g->end_oldest)
		rp_f_ev(f, "asleep on it since %s or later: %s", ts, list);
	else
		rp_f_ev(f, "asleep on it since before the trace, for how long before it not known: %s", list);
	if (g->pub.last_wake_ts) {
		struct rthread *w = rp_thread_of(r, g->pub.last_waker);
		rp_fmt_ts(g->pub.last_wake_ts, ts, sizeof(ts));
		rp_f_ev(f, "the last wake-up on it: %u woke %u at %s", g->pub.last_waker, g->pub.last_wakee, ts);
		if (w && !rp_is_lock_waiter(w)) {
			rp_doing(r, w, what, sizeof(what));
			rp_f_ev(f, "that waker, %s, is now %s", rp_tname(w, tn, sizeof(tn)), what);
			f->holder = w->pub.tid;
		}
	} else if (elsewhere && ot && ot->detail) {
		char bs[32] = "";
		if (ot->blocked_s >= 0)
			snprintf(bs, sizeof(bs), ", for %.1f s", ot->blocked_s);
		rp_f_ev(f, "no wake-up on it was recorded in the trace; its holder at the snapshot: thread %d (%s) "
			"%s%s", ot->tid, ot->comm, ot->detail, bs);
	} else if (elsewhere) {
		pid_t op = opd ? opd : elsewhere->owner;
		rp_f_ev(f, "no wake-up on it was recorded in the trace; what its holder does: locktrace snapshot "
			"-p %d (its process)", (int)op);
	} else if (gone) {
		rp_f_ev(f, "the snapshot read the lock's recorded owner %d, no thread of this process; the "
			"lock is private, so no other process's thread can release it", gone->gone_tid);
	} else if (!strcmp(g->rt_kind, "threading.Lock")) {
		rp_f_ev(f, "no wake-up on it was recorded in the trace, and a threading.Lock records no holder");
	} else if (rp_real_condvar(g)) {
		rp_f_ev(f, "no wake-up on it was recorded in the trace: an idle pool parked on a condition variable looks like this");
	} else {
		rp_f_ev(f, "no wake-up on it was recorded in the trace");
	}
	rp_python_lock_ev(r, f, g);
	rp_others_ev(r, f, g);
}

/* A runtime lock whose holder the snapshot read from the runtime's memory
 * and which that holder has been inside one call since B: it cannot have
 * let the lock go and taken it back inside that call, so from B on the
 * lock was not handed on at all. */
static int rt_kept_since(struct lt_report *r, const struct rgroup *g, uint64_t *b)
{
	if (g->end_holder_src != 1 || !g->rt_kind[0] || !g->end_holder)
		return 0;
	const struct lt_report_thread *hp = &P(r)->th[g->end_holder - 1]->pub;
	*b = hp->end_since ? hp->end_since : hp->end_call.begin;
	return hp->end_state == LT_RTS_IN_CALL && *b;
}

static void rule_convoy(struct lt_report *r, struct rgroup *g)
{
	unsigned n = r->opts.convoy_min;
	char gn[RP_GNAME_LEN], ts[32], ts2[32], med[32], p99[32], mx[32], tot[32];
	if (g->pub.max_moving < n || g->pub.handoffs < n || g->pub.longest_chain < n)
		return;
	/* hand-offs on a runtime lock's words while its holder kept it (the
	 * GIL's own mutex, passed among waiters retrying their timed waits)
	 * are not hand-offs of the lock: no convoy on it */
	uint64_t kept;
	if (rt_kept_since(r, g, &kept) && g->pub.chain_begin >= kept)
		return;
	struct lt_report_finding *f = rp_finding_new(r, LT_FIND_CONVOY, "handoff_queue");
	if (!f)
		return;
	rp_gname(g, gn, sizeof(gn));
	rp_f_group(f, g);
	f->since = g->pub.chain_begin;
	f->duration_ns = g->pub.chain_end > g->pub.chain_begin ? g->pub.chain_end - g->pub.chain_begin : 0;
	lt_fmt_dur(g->pub.median_ns, med, sizeof(med));
	lt_fmt_dur(g->pub.p99_ns, p99, sizeof(p99));
	lt_fmt_dur(g->pub.max_ns, mx, sizeof(mx));
	lt_fmt_dur(g->pub.total_ns, tot, sizeof(tot));
	rp_f_summary(f, "convoy on %s: up to %u threads queued while it was handed on, up to %u hand-offs in a row; %" PRIu64 " waits, %s in total (median %s, p99 %s)",
		     gn, g->pub.max_moving, g->pub.longest_chain, g->pub.waits, tot, med, p99);
	rp_fmt_ts(g->pub.max_moving_ts, ts, sizeof(ts));
	rp_f_ev(f, "%u threads were queued on it at %s when it was handed to the next one", g->pub.max_moving, ts);
	rp_fmt_ts(g->pub.chain_begin, ts, sizeof(ts));
	rp_fmt_ts(g->pub.chain_end, ts2, sizeof(ts2));
	rp_f_ev(f, "from %s to %s each thread woken on it woke the next one: %u hand-offs in a row", ts, ts2,
		g->pub.longest_chain);
	rp_f_ev(f, "%" PRIu64 " hand-offs in all; %u distinct waiters, %u distinct wakers; longest wait %s",
		g->pub.handoffs, g->pub.n_waiters, g->pub.n_wakers, mx);
}

static void rule_offcpu(struct lt_report *r, struct rgroup *g)
{
	char gn[RP_GNAME_LEN], ts[32], d[32], c[256];
	if (!g->pub.offcpu_count)
		return;
	/* a holder that released the lock without a wake still looks like
	 * the holder until it waits again: that is the lost wake-up, not an
	 * incident */
	if (g->lost_release && g->last_holder && g->off_tid == P(r)->th[g->last_holder - 1]->pub.tid &&
	    g->off_ts >= g->last_acq)
		return;
	struct lt_report_finding *f = rp_finding_new(r, LT_FIND_HOLDER_OFFCPU,
						     g->off_kind == OFF_PREEMPTED ? "preempted" : "blocked");
	if (!f)
		return;
	rp_gname(g, gn, sizeof(gn));
	rp_f_group(f, g);
	rp_f_tid(f, g->off_tid);
	f->holder = g->off_tid;
	f->since = g->off_ts;
	f->duration_ns = g->pub.offcpu_max_ns;
	lt_fmt_dur(g->pub.offcpu_max_ns, d, sizeof(d));
	rp_fmt_ts(g->off_ts, ts, sizeof(ts));
	if (g->off_kind == OFF_PREEMPTED) {
		rp_f_summary(f, "lock holder preempted: the holder of %s was preempted %" PRIu64 " time%s for %.1f ms or more while others waited for it; worst: %u, %s at %s with %u waiting",
			     gn, g->pub.offcpu_count, g->pub.offcpu_count == 1 ? "" : "s", r->opts.incident_ms,
			     g->off_tid, d, ts, g->off_waiters);
	} else {
		if (g->off_in_call) {
			rp_fmt_call(r, &g->off_call, c, sizeof(c));
			f->fd = g->off_call.kind == LT_EV_IO_ENTER ? g->off_call.fd : -1;
		} else {
			snprintf(c, sizeof(c), "an untraced call");
		}
		rp_f_summary(f, "lock holder blocked while holding: the holder of %s slept %" PRIu64 " time%s for %.1f ms or more while others waited for it; worst: %u in %s for %s at %s with %u waiting",
			     gn, g->pub.offcpu_count, g->pub.offcpu_count == 1 ? "" : "s", r->opts.incident_ms,
			     g->off_tid, c, d, ts, g->off_waiters);
	}
	rp_f_ev(f, "holder by the event rule: the last thread whose wait on the lock returned and that has not woken or waited on it since");
}

static void rule_stall(struct lt_report *r)
{
	struct lt_report_priv *p = P(r);
	char ts[32], d[32], c[256], tn[96];
	uint64_t longest = 0;
	unsigned futex = 0, io = 0, pipe = 0, fifo = 0, fdio = 0, poll = 0, other = 0, running = 0, runnable = 0, alive = 0;
	unsigned flk = 0;
	for (size_t i = 0; i < p->nth; i++) {
		struct rthread *t = p->th[i];
		const struct lt_report_thread *x = &t->pub;
		if (x->end_state == LT_RTS_EXITED)
			continue;
		alive++;
		if (x->end_state == LT_RTS_RUNNING)
			running++;
		else if (x->end_state == LT_RTS_RUNNABLE)
			runnable++;
		else if (x->end_state == LT_RTS_IN_CALL && x->end_call.kind == LT_EV_FUTEX_ENTER)
			futex++;
		else if (x->end_state == LT_RTS_IN_CALL && x->end_call.kind == LT_EV_FLOCK_ENTER)
			flk++;
		else if (x->end_state == LT_RTS_IN_CALL && x->end_call.kind == LT_EV_IO_ENTER &&
			 (x->end_call.socket || (t->snap && t->snap->io_socket)))
			io++; /* a call begun before the trace: the snapshot knows its fd */
		else if (x->end_state == LT_RTS_IN_CALL && x->end_call.kind == LT_EV_IO_ENTER && t->snap &&
			 t->snap->io_fifo)
			fifo++; /* the snapshot read its fd: the recording flags pipes and FIFOs alike */
		else if (x->end_state == LT_RTS_IN_CALL && x->end_call.kind == LT_EV_IO_ENTER &&
			 (x->end_call.pipe || (t->snap && t->snap->io_pipe)))
			pipe++;
		else if (x->end_state == LT_RTS_IN_CALL && x->end_call.kind == LT_EV_IO_ENTER)
			fdio++; /* a file, a device, an fd not known */
		else if (x->end_state == LT_RTS_IN_CALL)
			poll++;
		else
			other++;
		int lock_wait = rp_is_lock_waiter(t) ||
				(x->end_state == LT_RTS_IN_CALL && (x->end_call.flags & LT_SPAN_FILE_LOCK));
		if (lock_wait && t->pub.asleep && rp_dur_to_end(r, x->end_since) > longest)
			longest = rp_dur_to_end(r, x->end_since);
	}
	uint64_t quiet = rp_dur_to_end(r, p->prog_ts ? p->prog_ts : r->start_ts);
	int fired = r->have_stats && r->stop_reason == LT_STOP_STALL;
	if (!fired && ((double)longest < r->opts.stall_s * 1e9 || (double)quiet < r->opts.stall_s * 1e9))
		return;
	struct lt_report_finding *f = rp_finding_new(r, LT_FIND_STALL, fired ? "detector" : "no_progress");
	if (!f)
		return;
	f->since = p->prog_ts ? p->prog_ts : r->start_ts;
	f->duration_ns = quiet;
	lt_fmt_dur(quiet, d, sizeof(d));
	rp_fmt_ts(f->since, ts, sizeof(ts));
	char when[96];
	snprintf(when, sizeof(when), p->prog_ts ? "since %s" : "since the trace began at %s", ts);
	char fl[48] = "";
	if (flk) /* only then: the sentence stays as it was without file locks */
		snprintf(fl, sizeof(fl), ", %u in file-lock waits", flk);
	rp_f_summary(f, "stall: no lock hand-off, no recorded blocking call succeeded and no thread was created for %s (%s); at the end %u of %u threads are in futex waits%s, %u in socket I/O, %u in pipe I/O, %u in FIFO I/O, %u in other fd I/O (files, devices, unknown), %u in select/poll, %u asleep elsewhere, %u running, %u runnable",
		     d, when, futex, alive, fl, io, pipe, fifo, fdio, poll, other, running, runnable);
	if (fired)
		rp_f_ev(f, "the recorder's stall detector fired and wrote this trace (its rule: docs/flight-recorder.md)");
	if (p->prog_ts) {
		rp_fmt_call(r, &p->prog_call, c, sizeof(c));
		struct rthread *t = rp_thread_of(r, p->prog_tid);
		if (p->prog_kind == 1)
			rp_f_ev(f, "the last progress: %s's %s woke %u at %s",
				t ? rp_tname(t, tn, sizeof(tn)) : "?", c, p->prog_other, ts);
		else if (p->prog_kind == 3)
			rp_f_ev(f, "the last progress: %s created thread %u at %s",
				t ? rp_tname(t, tn, sizeof(tn)) : "?", p->prog_other, ts);
		else
			rp_f_ev(f, "the last progress: %s's %s returned at %s", t ? rp_tname(t, tn, sizeof(tn)) : "?", c, ts);
	}
	rp_f_ev(f, "the last calls of every thread are listed under \"threads at the end\"");
}

/* The lock key of a verdict's lock k: the word is in the process of the
 * thread at the same place (a cycle's tids and locks are parallel), or of
 * its first thread. */
static uint64_t verdict_lock_key(struct lt_report *r, const struct rp_snap_verdict *v, size_t k)
{
	size_t i = k < v->n_tids ? k : 0;
	const struct rthread *t = v->n_tids ? rp_thread_of(r, (uint32_t)v->tids[i]) : NULL;
	return lt_lockid_key(lt_timeline_lockid(P(r)->tl), t ? t->pub.tgid : P(r)->pid, v->locks[k], 0);
}

static int snapshot_covered(struct lt_report *r, const struct rp_snap_verdict *v)
{
	/* (a file-lock wait's verdict is kept beside its file-lock finding:
	 * it names every process that holds the lock, the finding one) */
	for (size_t k = 0; k < v->n_locks; k++) {
		uint64_t key = verdict_lock_key(r, v, k);
		for (size_t i = 0; i < r->n_findings; i++)
			for (size_t j = 0; j < r->findings[i].n_locks; j++)
				if (r->findings[i].locks[j] == key)
					return 1;
	}
	return 0;
}

static void rule_snapshot(struct lt_report *r)
{
	struct lt_report_priv *p = P(r);
	char ts[32];
	if (!p->have_snap)
		return;
	rp_fmt_ts(r->snapshot_ts, ts, sizeof(ts));
	for (size_t i = 0; i < p->snap.n_verdicts; i++) {
		const struct rp_snap_verdict *v = &p->snap.verdicts[i];
		/* "unknown" with threads: waits in calls whose other end is not
		 * followed (a System V semaphore), which the events do not
		 * cover either: said, never "none" */
		if (!v->kind || (!lt_verdict_kind_name_stuck(v->kind) && (strcmp(v->kind, "unknown") || !v->n_tids)))
			continue;
		if (snapshot_covered(r, v))
			continue;
		struct lt_report_finding *f = rp_finding_new(r, LT_FIND_SNAPSHOT, v->kind);
		if (!f)
			return;
		/* the latest snapshot is the one at the start when none was
		 * taken at the end (the process exited first): said, as what
		 * it saw may have ended since */
		const char *occ = p->snap.occasion;
		bool start_only = occ && !strcmp(occ, "start");
		rp_f_summary(f, "snapshot at %s%s: %s", ts,
			     start_only ? " (at the start of the trace: none was taken at its end, and what it "
					  "saw may have ended since)" : "", v->summary ? v->summary : v->kind);
		for (size_t k = 0; k < v->n_evidence; k++)
			rp_f_ev(f, "%s", v->evidence[k]);
		for (size_t k = 0; k < v->n_tids; k++)
			rp_f_tid(f, (uint32_t)v->tids[k]);
		for (size_t k = 0; k < v->n_locks; k++)
			rp_f_lock(f, v->locks[k], 0);
		f->holder = (uint32_t)(v->owner > 0 ? v->owner : 0);
		f->since = r->snapshot_ts;
	}
}

/* Its waiters wait for a thread to exit (pthread_join, Thread.join: the
 * snapshot read the joined thread, or the waits expect a tid): no lock,
 * and the joined thread asleep or blocked is no holder keeping it. */
static bool join_wait(const struct rgroup *g)
{
	for (size_t i = 0; i < g->n_mem; i++) {
		const struct rp_snap_thread *t = g->mem[i]->snap;
		if (t && t->owner_kind && !strcmp(t->owner_kind, "join"))
			return true;
		/* a runtime's own join (OCaml's Thread.join waits on a
		 * condition of its own, the snapshot's model names it) */
		if (t && t->lock_kind && !strcmp(t->lock_kind, "Thread.join"))
			return true;
	}
	return g->pub.kind && !strcmp(g->pub.kind, "join");
}

/* Its waiters wait for a thread to finish (a runtime's join or get(): the
 * snapshot at the end read the joined thread or the task's runner) and
 * that snapshot's verdicts say none of them is stuck: the thread they
 * wait for runs, sleeps on a timer or idles (verdicts.c, done_wait_free),
 * so it is no holder keeping a lock. */
static bool done_wait_not_stuck(const struct lt_report *r, const struct rgroup *g)
{
	const struct lt_report_priv *p = P(r);
	if (g->end_holder_src != 1 || !g->rt_kind[0] || !lt_done_kind_of(g->rt_kind) || !p->have_snap)
		return false;
	for (size_t i = 0; i < g->n_mem; i++) {
		if (!rp_is_lock_waiter(g->mem[i]))
			continue;
		for (size_t v = 0; v < p->snap.n_verdicts; v++) {
			const struct rp_snap_verdict *sv = &p->snap.verdicts[v];
			bool stuck = lt_verdict_kind_name_stuck(sv->kind);
			for (size_t k = 0; stuck && k < sv->n_tids; k++)
				if ((uint32_t)sv->tids[k] == g->mem[i]->pub.tid)
					return false;
		}
	}
	return true;
}

/* A lock its threads still wait on at the end, outside a deadlock: one
 * finding about its waiters, the most specific rule first. */
static void rules_for_waited_lock(struct lt_report *r, struct rgroup *g)
{
	/* a join lasts as long as the joined thread runs: what keeps that one
	 * is its own wait, found on its own (and by the snapshot's verdicts) */
	if (join_wait(g) || done_wait_not_stuck(r, g))
		return;
	/* a holder the snapshot read from the runtime's memory: the lock
	 * is not free, whatever the events suggest */
	if (!(g->end_holder_src == 1 && g->rt_kind[0]))
		rule_lost_wakeup(r, g);
	if (!g->has_finding && !g->end_holder && (!g->pub.last_wake_ts || (g->undo_tid && !g->holder)))
		rp_infer_holder(r, g);
	if (!g->has_finding && g->end_holder &&
	    (double)rp_dur_to_end(r, queue_since(r, g)) >= r->opts.stall_s * 1e9)
		rule_holder_blocked(r, g);
	if (!g->has_finding)
		rule_stalled_waiters(r, g);
}

/* A file-lock call in words, with the file's path when the snapshot at
 * the end saw the thread blocked on that fd. */
static void flock_call_text(const struct rthread *t, const struct lt_report_call *c, char *buf,
			    size_t len)
{
	char fdt[300], path[200];
	const struct rp_snap_thread *s = t->snap;
	/* begun before the trace, its struct flock not recorded: the
	 * snapshot's decoding of the same call, which read it */
	char want[32];
	snprintf(want, sizeof(want), "fcntl(fd %d:", c->flk.fd);
	if (c->flk.type == LT_FLOCK_TYPE_NOT_READ && s && s->detail && s->fl_fd == c->flk.fd &&
	    !strncmp(s->detail, want, strlen(want))) {
		snprintf(buf, len, "%s", s->detail);
		return;
	}
	if (s && s->fl_path && s->fl_fd == c->flk.fd) {
		rp_clean_name(s->fl_path, path, sizeof(path));
		snprintf(fdt, sizeof(fdt), "fd %d: %s", c->flk.fd, path);
		lt_flock_call_str(&c->flk, fdt, buf, len);
	} else {
		lt_flock_call_str(&c->flk, NULL, buf, len);
	}
}

/* File-lock waits (flock, fcntl F_SETLKW): a thread still waiting at the
 * end for at least stall_s ("blocked"), else its longest wait that ended,
 * if at least incident_ms ("waited").  The holder is another process or
 * open file description: the snapshot at the end names it, if it saw the
 * wait (its wait-for edge, from /proc/locks). */
static void rule_file_lock(struct lt_report *r)
{
	struct lt_report_priv *p = P(r);
	char tn[96], ts[32], ts2[32], d[32], c[400];
	for (size_t i = 0; i < p->nth; i++) {
		struct rthread *t = p->th[i];
		const struct lt_report_thread *x = &t->pub;
		const struct lt_report_call *ec = &x->end_call;
		int blocked = x->end_state == LT_RTS_IN_CALL && ec->kind == LT_EV_FLOCK_ENTER &&
			      (ec->flags & LT_SPAN_FILE_LOCK) &&
			      (double)rp_dur_to_end(r, ec->begin) >= r->opts.stall_s * 1e9;
		int waited = !blocked && x->has_filelock_max &&
			     (double)(x->filelock_max.end - x->filelock_max.begin) >= r->opts.incident_ms * 1e6;
		if (!blocked && !waited)
			continue;
		const struct lt_report_call *cl = blocked ? ec : &x->filelock_max;
		struct lt_report_finding *f = rp_finding_new(r, LT_FIND_FILE_LOCK, blocked ? "blocked" : "waited");
		if (!f)
			return;
		rp_f_tid(f, x->tid);
		f->fd = cl->flk.fd;
		/* a call begun before the trace: since when it was blocked by
		 * the start snapshot, as a futex wait's */
		uint64_t since = cl->begin > cl->blocked_before_ns ? cl->begin - cl->blocked_before_ns : cl->begin;
		f->since = since;
		f->duration_ns = blocked ? rp_dur_to_end(r, since) : cl->end - since;
		rp_tname(t, tn, sizeof(tn));
		flock_call_text(t, cl, c, sizeof(c));
		lt_fmt_dur(f->duration_ns, d, sizeof(d));
		rp_fmt_ts(since, ts, sizeof(ts));
		if (blocked) {
			const struct rp_snap_thread *s = t->snap;
			f->holder = s && s->fl_fd == cl->flk.fd && s->fl_holder > 0 ? (uint32_t)s->fl_holder : 0;
			if (f->holder)
				rp_f_summary(f, "file-lock wait: %s waits for a %s: %s, for %s at the end (since %s); held by process %u",
					     tn, lt_flock_kind(&cl->flk), c, d, ts, f->holder);
			else
				rp_f_summary(f, "file-lock wait: %s waits for a %s: %s, for %s at the end (since %s)",
					     tn, lt_flock_kind(&cl->flk), c, d, ts);
			if (s && s->fl_fd == cl->flk.fd && s->fl_what)
				rp_f_ev(f, "the snapshot at the end: it waits for %s", s->fl_what);
			else
				rp_f_ev(f, "the holder is in /proc/locks (a snapshot of the process names it: locktrace snapshot -p PID)");
		} else {
			rp_fmt_ts(cl->end, ts2, sizeof(ts2));
			rp_f_summary(f, "file-lock wait: %s waited %s for a %s: %s, from %s to %s%s",
				     tn, d, lt_flock_kind(&cl->flk), c, ts, ts2,
				     (cl->flags & LT_SPAN_HAS_RESULT) && cl->ret == 0 ? " (granted)" : "");
			if ((cl->flags & LT_SPAN_HAS_RESULT) && cl->ret != 0)
				rp_f_ev(f, "the call returned %" PRId64 " (not granted)", cl->ret);
			if (cl->woken_by)
				rp_f_ev(f, "thread %u woke it when the lock was released: the holder (or a thread of its process)",
					cl->woken_by);
			else
				rp_f_ev(f, "the lock was held by another open file or process; who held it then is not in the events");
		}
		if (x->filelock_calls > 1)
			rp_f_ev(f, "%" PRIu64 " file-lock calls in the trace, %s in them in all", x->filelock_calls,
				(lt_fmt_dur(x->filelock_ns, d, sizeof(d)), d));
	}
}

/* A lock waited for by polling: a thread whose lock calls that do not wait
 * (F_SETLK, F_OFD_SETLK, flock LOCK_NB) were refused for one request at
 * least POLLED_MIN times over POLLED_MIN_NS or more, and not granted since
 * (report_track.c, polled_attempt): SQLite's busy handler retrying a
 * database another process holds.  No call is asleep in it, so the other
 * rules saw a sleep; the holder is the one the snapshot at the end names
 * (a file of the process another process holds locked), an inference as
 * the snapshot says. */
#define POLLED_MIN 5
#define POLLED_MIN_NS 500000000ull
static void rule_polled_lock(struct lt_report *r)
{
	struct lt_report_priv *p = P(r);
	char tn[96], ts[32], ts2[32], d[32], c[400];
	for (size_t i = 0; i < p->nth; i++) {
		struct rthread *t = p->th[i];
		const struct lt_report_call *cl = &t->polled_last;
		if (t->polled_n < POLLED_MIN || cl->begin < t->polled_first ||
		    cl->begin - t->polled_first < POLLED_MIN_NS)
			continue;
		struct lt_report_finding *f = rp_finding_new(r, LT_FIND_FILE_LOCK, "polled");
		if (!f)
			return;
		rp_f_tid(f, t->pub.tid);
		f->fd = cl->flk.fd;
		f->since = t->polled_first;
		f->duration_ns = rp_dur_to_end(r, t->polled_first);
		rp_tname(t, tn, sizeof(tn));
		flock_call_text(t, cl, c, sizeof(c));
		lt_fmt_dur(cl->begin - t->polled_first, d, sizeof(d));
		rp_fmt_ts(t->polled_first, ts, sizeof(ts));
		rp_fmt_ts(cl->begin, ts2, sizeof(ts2));
		const struct rp_snap_thread *s = t->snap;
		f->holder = s && s->poll_holder > 0 ? (uint32_t)s->poll_holder : 0;
		rp_f_summary(f, "file-lock wait by polling: %s tried %s %" PRIu64 " times over %s (%s to %s), "
			     "refused each time (%s: a conflicting lock is held), and was not granted it since%s",
			     tn, c, t->polled_n, d, ts, ts2, cl->ret == -EACCES ? "EACCES" : "EAGAIN",
			     f->holder ? "" : "; who holds it is not in the events");
		if (f->holder)
			rp_f_ev(f, "held by process %u, as the snapshot at the end infers it: %s", f->holder,
				s->poll_what ? s->poll_what : "?");
		else
			rp_f_ev(f, "the holder is in /proc/locks while it holds the lock (its line names the "
				"file's inode: grep it there; locktrace snapshot -p PID names it when the waiter "
				"keeps the file open between its tries)");
		rp_f_ev(f, "a call that does not wait returns at once, so the thread sleeps between tries: "
			"no call of it is ever asleep on the lock");
	}
}

static void rule_note(struct lt_report *r, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
static void rule_note(struct lt_report *r, const char *fmt, ...)
{
	va_list ap;
	va_start(ap, fmt);
	rp_vec_addv(&r->notes, &r->n_notes, fmt, ap);
	va_end(ap);
}

/* Idle pools (report_end.c, idle_condvar_wait): no finding, a note that
 * says why their threads are in none. */
static void idle_pool_notes(struct lt_report *r)
{
	struct lt_report_priv *p = P(r);
	char gn[RP_GNAME_LEN], list[512];
	for (size_t i = 0; i < p->ngr; i++) {
		struct rgroup *g = p->gr[i];
		if (!g->n_idle_cond)
			continue;
		size_t n = 0;
		list[0] = 0;
		for (size_t k = 0; k < g->n_mem && n + 16 < sizeof(list); k++)
			if (g->mem[k]->idle_cond)
				n += (size_t)snprintf(list + n, sizeof(list) - n, "%s%u", n ? " " : "",
						      g->mem[k]->pub.tid);
		rp_gname(g, gn, sizeof(gn));
		rule_note(r, "an idle pool: %u thread%s (%s) parked on %s with no signal pending; nothing was handed through it and nobody holds it: they wait for work, or for threads the snapshot found not stuck, not for a lock (no finding, as the snapshot judges it)",
			  g->n_idle_cond, g->n_idle_cond == 1 ? "" : "s", list, gn);
	}
}

/* Threads asleep in Java's Thread.sleep() (report_end.c, java_sleep): no
 * finding of their own (a lock one holds is its waiters' finding), no
 * idle pool; one note names them and where they sleep. */
#define JAVA_SLEEP_LISTED 12
static void java_sleep_note(struct lt_report *r)
{
	struct lt_report_priv *p = P(r);
	char list[2048], tn[96];
	size_t n = 0;
	uint32_t k = 0;
	for (size_t i = 0; i < p->nth; i++) {
		const struct rthread *t = p->th[i];
		if (!t->java_sleep || t->pub.end_state != LT_RTS_IN_CALL)
			continue;
		const char *at = t->snap && t->snap->java_sleep ? t->snap->java_sleep : "";
		if (k++ < JAVA_SLEEP_LISTED && n < sizeof(list))
			n += (size_t)snprintf(list + n, sizeof(list) - n, "%s%s%s%s", n ? "; " : "",
					      rp_tname(t, tn, sizeof(tn)), at[0] ? " at " : "", at);
	}
	if (!k)
		return;
	char more[48] = "";
	if (k > JAVA_SLEEP_LISTED)
		snprintf(more, sizeof(more), "; and %u more", k - JAVA_SLEEP_LISTED);
	if (k == 1)
		rule_note(r, "1 thread is asleep in Java's Thread.sleep(): %s: a timed sleep, not a wait for a lock "
			  "nor an idle pool's wait for work (no finding of its own; a lock it holds is its waiters' "
			  "finding)", list);
	else
		rule_note(r, "%u threads are asleep in Java's Thread.sleep(): %s%s: timed sleeps, not waits for a lock "
			  "nor an idle pool's waits for work (no finding of their own; a lock one of them holds is its "
			  "waiters' finding)", k, list, more);
}

void rp_run_rules(struct lt_report *r)
{
	struct lt_report_priv *p = P(r);
	rule_deadlock(r);
	rp_fold_rtlock_words(r);
	rp_fold_conditions(r);
	for (size_t i = 0; i < p->ngr; i++)
		if (p->gr[i]->n_end_asleep && !p->gr[i]->in_cycle && !p->gr[i]->folded_into &&
		    !p->gr[i]->cond_into) {
			/* an object's other waiters, on words of their own, in
			 * whatever finding its first group got */
			size_t nf = r->n_findings;
			rules_for_waited_lock(r, p->gr[i]);
			for (size_t k = nf; k < r->n_findings; k++)
				rp_cond_fold_ev(r, &r->findings[k], p->gr[i]);
		} else if (p->gr[i]->cond_into && p->gr[i]->n_end_asleep && !p->gr[i]->in_cycle) {
			/* an object's other waiter: its own word's lost wake-up
			 * still says itself */
			rule_lost_wakeup(r, p->gr[i]);
		}
	rule_file_lock(r);
	rule_polled_lock(r);
	rule_stall(r);
	for (size_t i = 0; i < p->ngr; i++) {
		/* a runtime lock's internal word: the runtime lock's finding
		 * names it ("part of the same object") */
		if (p->gr[i]->folded_into)
			continue;
		rule_offcpu(r, p->gr[i]);
		rule_convoy(r, p->gr[i]);
	}
	rule_snapshot(r);
	idle_pool_notes(r);
	java_sleep_note(r);
}
