// SPDX-License-Identifier: MIT
/* The state at the end of the trace: what each thread is doing (the
 * events, and the last snapshot where they say nothing), which threads wait
 * on each lock, and who holds it: read by the snapshot, by the event rule,
 * or inferred from the waiters' stacks. */
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include "filelock.h"
#include "locktrace/calls.h"
#include "locktrace/futex.h"
#include "lockid.h"
#include "report_model.h"
#include "rt_idle.h"

/* ---------------------------------------------------------------- finish */

/* The holder of g at the end: the snapshot's recorded owner (glibc mutex
 * __owner, PI or robust word, or a runtime lock's holder read from the
 * runtime) for one of its waiters, else the event rule.  What the snapshot
 * read of memory outranks what the events suggest. */
static void end_holder(struct lt_report *r, struct rgroup *g)
{
	for (size_t i = 0; i < g->n_mem; i++) {
		struct rthread *t = g->mem[i];
		if (t->pub.end_state != LT_RTS_IN_CALL || !t->snap)
			continue;
		if ((t->snap->runtime || rp_python_lock(t->snap)) && t->snap->lock_kind && !g->rt_kind[0]) {
			snprintf(g->rt_kind, sizeof(g->rt_kind), "%s", t->snap->lock_kind);
			if (snprintf(g->rt_name, sizeof(g->rt_name), "%s",
				     t->snap->lock_name ? t->snap->lock_name : "?") >= (int)sizeof(g->rt_name))
				rp_ellipsis(g->rt_name, sizeof(g->rt_name));
		}
		if (t->snap->owner <= 0 || ((!t->snap->owner_kind || !strcmp(t->snap->owner_kind, "none") ||
					     !strcmp(t->snap->owner_kind, "unknown")) && !t->snap->owner_pid))
			continue;
		struct rthread *o = rp_thread_of(r, (uint32_t)t->snap->owner);
		if (o) {
			g->end_holder = o->idx + 1;
			g->end_holder_src = 1;
			return;
		}
	}
	if (g->holder) {
		g->end_holder = g->holder;
		g->end_holder_src = 2;
	}
}

/* Could t hold a lock it is not waiting for?  Blocked in a call, and if
 * that call is a wait on another lock, that lock's holder is known: a
 * thread asleep on a lock nobody is known to hold is one more waiter (all
 * of a Go program's idle threads park on futexes in the same runtime
 * code), and guessing from it would pair such threads as each other's
 * holders. */
static int may_hold(struct lt_report *r, const struct rthread *t)
{
	if (t->pub.end_state != LT_RTS_IN_CALL || !t->pub.asleep)
		return 0;
	return !rp_is_lock_waiter(t) || rp_holder_evidenced(P(r)->gr[t->end_group - 1]);
}

/* Every function on the stack of every thread that could hold a lock (in
 * a call and asleep, with a snapshot stack), sorted by name: built once,
 * so that finding the suspects of one lock costs what its waiters' stacks
 * hold, not a walk of every thread for every lock. */
struct fent {
	const char *func;
	struct rthread *t;
	uint32_t stamp; /* group idx + 1 that scanned the run starting here */
};

static int fent_cmp(const void *a, const void *b)
{
	const struct fent *x = a, *y = b;
	int c = strcmp(x->func, y->func);
	return c ? c : (x->t->idx > y->t->idx) - (x->t->idx < y->t->idx);
}

/* may_hold depends on end_holder_src 1 and 2 only, which end_holder sets
 * before any rule runs: the index stays valid while the rules run. */
static int can_hold(struct lt_report *r, const struct rthread *t)
{
	return t->snap && t->snap->n_funcs && may_hold(r, t);
}

static int fidx_build(struct lt_report *r)
{
	struct lt_report_priv *p = P(r);
	size_t n = 0;
	for (size_t i = 0; i < p->nth; i++)
		if (can_hold(r, p->th[i]))
			n += p->th[i]->snap->n_funcs;
	p->fidx = calloc(n ? n : 1, sizeof(*p->fidx));
	if (!p->fidx)
		return -1;
	for (size_t i = 0; i < p->nth; i++)
		for (size_t a = 0; can_hold(r, p->th[i]) && a < p->th[i]->snap->n_funcs; a++)
			p->fidx[p->nfidx++] = (struct fent){ p->th[i]->snap->funcs[a], p->th[i], 0 };
	qsort(p->fidx, p->nfidx, sizeof(*p->fidx), fent_cmp);
	p->fidx_built = 1;
	return 0;
}

/* The first entry for func, or nfidx. */
static size_t fidx_find(const struct lt_report_priv *p, const char *func)
{
	size_t lo = 0, hi = p->nfidx;
	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;
		if (strcmp(p->fidx[mid].func, func) < 0)
			lo = mid + 1;
		else
			hi = mid;
	}
	return lo < p->nfidx && !strcmp(p->fidx[lo].func, func) ? lo : p->nfidx;
}

/* The one thread outside g, asleep in a call, that runs a function one of
 * g's waiters runs; NULL if none or more than one. */
static struct rthread *suspect(struct lt_report *r, struct rgroup *g)
{
	struct lt_report_priv *p = P(r);
	struct rthread *cand = NULL;

	if (!p->fidx_built && fidx_build(r))
		return NULL;
	for (size_t j = 0; j < g->n_mem; j++) {
		const struct rthread *w = g->mem[j];
		if (!rp_is_lock_waiter(w) || !w->snap)
			continue;
		for (size_t b = 0; b < w->snap->n_funcs; b++) {
			size_t k = fidx_find(p, w->snap->funcs[b]);
			if (k == p->nfidx || p->fidx[k].stamp == g->idx + 1)
				continue;
			p->fidx[k].stamp = g->idx + 1;
			const char *f = p->fidx[k].func;
			for (; k < p->nfidx && !strcmp(p->fidx[k].func, f); k++) {
				struct rthread *t = p->fidx[k].t;
				if (t->end_group == g->idx + 1 || t == cand)
					continue;
				/* a private lock is held in its own process only */
				if (t->pub.tgid != w->pub.tgid && !(g->pub.addr & LT_LOCKKEY_SHARED))
					continue;
				if (cand)
					return NULL; /* two suspects: no guess */
				cand = t;
			}
		}
	}
	return cand;
}

/* A lock that records no owner (a condition variable, a custom lock) and
 * whose taking the events did not show (the trace began after it stalled):
 * the waiters' stacks show what code takes it; a thread that runs that same
 * code, is not waiting, and is blocked in I/O, select/poll or a wait on
 * another lock whose holder is known is the probable holder, if it is the
 * only one. */
void rp_infer_holder(struct lt_report *r, struct rgroup *g)
{
	const char *func = NULL;
	/* the lock records an owner that is no thread of its process (copied
	 * locked by fork()): no other thread is guessed */
	for (size_t i = 0; i < g->n_mem; i++)
		if (g->mem[i]->snap && g->mem[i]->snap->owner_gone)
			return;
	struct rthread *cand = suspect(r, g);

	if (!cand)
		return;
	/* the first of its functions that a waiter runs, waiters in order */
	const struct rp_snap_thread *s = cand->snap;
	for (size_t j = 0; j < g->n_mem && !func; j++) {
		const struct rthread *w = g->mem[j];
		if (!rp_is_lock_waiter(w) || !w->snap)
			continue;
		for (size_t a = 0; a < s->n_funcs && !func; a++)
			for (size_t b = 0; b < w->snap->n_funcs && !func; b++)
				if (!strcmp(s->funcs[a], w->snap->funcs[b]))
					func = s->funcs[a];
	}
	if (!func)
		return;
	g->end_holder = cand->idx + 1;
	g->end_holder_src = 3;
	snprintf(g->infer_func, sizeof(g->infer_func), "%s", func);
}

/* Does the last snapshot describe thread t at the end of the trace? */
static const struct rp_snap_thread *snap_at_end(struct lt_report *r, struct rthread *t)
{
	struct lt_report_priv *p = P(r);
	if (!p->have_snap || t->pub.exited)
		return NULL;
	const struct rp_snap_thread *s = rp_snapshot_find(&p->snap, (int32_t)t->pub.tid);
	/* a runtime lock's waiters retry in timed waits (CPython's GIL: every
	 * 5 ms) and so often move during a snapshot; that the same futex word
	 * is waited on is what matters, the runtime's state is the evidence */
	if (!s || (s->moved && !s->runtime))
		return NULL;
	if (t->pub.has_end_call) {
		const struct lt_report_call *c = &t->pub.end_call;
		if (s->nr != c->nr ||
		    (c->kind == LT_EV_FUTEX_ENTER && s->has_futex &&
		     lt_lockid_key(lt_timeline_lockid(p->tl), t->pub.tgid, s->uaddr,
				   lt_futex_private((uint16_t)s->nr, s->op)) != c->addr))
			return NULL;
		return s;
	}
	return t->last_call_ts <= r->snapshot_ts + SNAP_SLACK_NS ? s : NULL;
}

/* When a thread the snapshot saw blocked for blocked_s seconds began to
 * block (0: unknown). */
static uint64_t snap_blocked_since(const struct lt_report *r, double blocked_s)
{
	uint64_t b = blocked_s >= 0 ? (uint64_t)(blocked_s * 1e9) : 0;
	return b && b < r->snapshot_ts ? r->snapshot_ts - b : 0;
}

/* Blocked since before the events begin (a flight dump's ring starts
 * late): the snapshot says in what, which becomes its call at the end. */
static void end_call_from_snapshot(struct lt_report *r, struct rthread *t)
{
	struct lt_report_thread *x = &t->pub;
	struct lt_report_call *c = &x->end_call;
	const struct rp_snap_thread *s = t->snap;
	memset(c, 0, sizeof(*c));
	c->nr = (uint16_t)s->nr;
	c->fd = -1;
	c->timeout_ns = -1;
	c->flags = LT_SPAN_UNFINISHED | LT_SPAN_WAIT;
	if (s->has_futex && s->is_wait) {
		c->kind = LT_EV_FUTEX_ENTER;
		c->addr = lt_lockid_key(lt_timeline_lockid(P(r)->tl), t->pub.tgid, s->uaddr,
					lt_futex_private((uint16_t)s->nr, s->op));
		c->val = s->expected;
		c->op = s->op;
		c->flags |= LT_SPAN_LOCK_WAIT;
		struct rgroup *g = rp_group_of(r, c->addr, 1);
		if (g) {
			struct lt_futex_enter fe = { .uaddr = s->uaddr, .op = s->op, .val = s->expected,
						     .nr = (uint16_t)s->nr, .val3 = 0xffffffffu };
			t->end_group = g->idx + 1;
			rp_count_kind(r, g, t, &fe, c->addr);
		}
	} else if (s->nr >= 0 && lt_call_flock(s->nr, s->args[1]) &&
		   lt_flock_may_wait((uint16_t)s->nr, (uint32_t)s->args[1], LT_FLOCK_TYPE_NOT_READ)) {
		/* a file-lock wait: its struct flock was not read */
		c->kind = LT_EV_FLOCK_ENTER;
		c->fd = (int32_t)s->args[0];
		c->flags |= LT_SPAN_FILE_LOCK;
		c->flk = (struct lt_flock_enter){ .fd = c->fd, .cmd = (uint32_t)s->args[1], .nr = (uint16_t)s->nr,
						  .type = LT_FLOCK_TYPE_NOT_READ };
	} else if (s->io_fd >= 0) {
		c->kind = LT_EV_IO_ENTER;
		c->fd = s->io_fd;
		c->socket = (uint8_t)s->io_socket;
	} else {
		c->kind = LT_EV_FUTEX_ENTER;
		c->addr = s->uaddr;
	}
	c->begin = snap_blocked_since(r, s->blocked_s);
	c->end = r->end_ts;
	x->has_end_call = 1;
	x->end_state = LT_RTS_IN_CALL;
	x->end_since = c->begin;
	x->asleep = 1;
}

/* The events end with the thread woken in its wait but not yet run again
 * (recording stopped between a wake-up and the switch-in: the waiters of a
 * runtime lock that retry in timed waits, CPython's GIL, wake together
 * every 5 ms), and the snapshot taken at the end found it asleep in the
 * same wait (snap_at_end matched the call and the futex word). */
static int asleep_in_snapshot(const struct rthread *t)
{
	const struct rp_snap_thread *s = t->snap;
	return t->pub.has_end_call && t->pub.end_call.kind == LT_EV_FUTEX_ENTER && s &&
	       s->has_futex && s->is_wait && s->state == 'S' && t->state == TS_RUNNABLE;
}

/* Is t's wait at the end an idle pool's, as the snapshot judges it
 * (verdicts.c: a futex wait with no owner whose word is unchanged is no
 * lock wait)?  The snapshot decoded the very word it sleeps on as a glibc
 * condition variable with no signal pending, and by the events nothing was
 * handed through its lock and nobody holds it, and no lock-acquire
 * function is on its stack: a worker waiting for work
 * (libuv's thread pool in uv_cond_wait), never a lock waiter, a stall or
 * a headline.  A condvar whose signaller is stuck stays visible through
 * the signaller (on a mutex: a lock waiter of its own); a condvar a runtime
 * lock is built from has hand-offs and a holder. */
/* Does a stuck verdict of the snapshot (a deadlock, a lost wake-up, a
 * convoy, a lock wait, a wait chain, a stop) name TID? */
static bool stuck_tid(struct lt_report *r, uint32_t tid)
{
	struct lt_report_priv *p = P(r);
	if (!p->have_snap)
		return false;
	if (!p->stuck_built) {
		p->stuck_built = 1;
		for (size_t i = 0; i < p->snap.n_verdicts; i++) {
			const struct rp_snap_verdict *v = &p->snap.verdicts[i];
			bool is = lt_verdict_kind_name_stuck(v->kind);
			for (size_t k = 0; is && k < v->n_tids; k++)
				if (v->tids[k] > 0 && lt_u64map_put(&p->stuck_tids, (uint64_t)v->tids[k], (void *)1))
					break; /* no memory: fewer named, as before */
		}
	}
	return lt_u64map_get(&p->stuck_tids, tid) != NULL;
}

static int idle_condvar_wait(struct lt_report *r, const struct rthread *t)
{
	const struct rp_snap_thread *s = t->snap;
	const struct rgroup *g = P(r)->gr[t->end_group - 1];
	/* one the snapshot found stuck (a consumer whose producer is stuck:
	 * a wait chain) is no idle pool's, whatever its condvar says */
	if (s && stuck_tid(r, t->pub.tid))
		return 0;
	/* (a Java wait for particular threads, a latch's or a barrier's, that
	 * no stuck verdict names: a thread that could end it is not stuck) */
	if (!s || !lt_kind_signal_wait(s->lock_kind) || s->cond_signal != 1 ||
	    s->uaddr != t->pub.end_call.addr || s->owner || s->runtime || s->acquire ||
	    (s->owner_kind && strcmp(s->owner_kind, "none")) || !s->word_ok || !s->expected_ok ||
	    s->word != s->expected)
		return 0;
	return !g->pub.handoffs && !g->holder;
}

static void end_state(struct lt_report *r, struct rthread *t)
{
	struct lt_report_thread *x = &t->pub;
	t->snap = snap_at_end(r, t);
	if (t->snap && t->snap->sc_name)
		snprintf(x->end_syscall, sizeof(x->end_syscall), "%s", t->snap->sc_name);
	if (x->exited) {
		x->end_state = LT_RTS_EXITED;
		x->end_since = x->last_ts;
		return;
	}
	x->last_ts = r->end_ts;
	x->asleep = t->state == TS_BLOCKED || asleep_in_snapshot(t);
	if (x->has_end_call) {
		x->end_state = LT_RTS_IN_CALL;
		const struct lt_report_call *c = &x->end_call;
		x->end_since = c->begin;
		if (c->flags & LT_SPAN_AT_START) {
			/* blocked before the trace: how long from the header or snapshot */
			x->end_since = c->blocked_before_ns && c->blocked_before_ns < c->begin
					       ? c->begin - c->blocked_before_ns : 0;
			x->asleep = 1;
		}
	} else if (t->snap && t->snap->nr >= 0 && t->state != TS_RUNNING &&
		   (t->snap->has_futex || t->snap->io_fd >= 0)) {
		end_call_from_snapshot(r, t);
	} else if (t->state == TS_RUNNING) {
		x->end_state = LT_RTS_RUNNING;
		x->end_since = t->state_ts;
	} else if (t->state == TS_RUNNABLE) {
		x->end_state = LT_RTS_RUNNABLE;
		x->end_since = t->state_ts;
	} else if (t->state == TS_BLOCKED) {
		x->end_state = LT_RTS_SLEEPING;
		x->end_since = t->state_ts;
	} else if (t->snap && t->snap->nr >= 0 && t->snap->state != 'R') {
		/* no scheduler record of it at all: asleep since before the
		 * events begin, in what the snapshot says */
		x->end_state = LT_RTS_SLEEPING;
		x->end_since = snap_blocked_since(r, t->snap->blocked_s);
		x->asleep = 1;
	} else {
		x->end_state = LT_RTS_UNKNOWN;
	}
	if (x->end_state == LT_RTS_IN_CALL && t->end_group && x->end_call.kind == LT_EV_FUTEX_ENTER) {
		/* pthread_join sleeps on the joined thread's tid word */
		uint32_t v = x->end_call.val;
		if (v && v != x->tid && rp_thread_of(r, v))
			t->join_wait = 1;
		/* the snapshot says the word is a Go runtime note (rt_go.c) */
		if (t->snap && t->snap->lock_kind && !strncmp(t->snap->lock_kind, "Go runtime note", 15) &&
		    t->snap->uaddr == x->end_call.addr)
			t->rt_note = 1;
		/* a runtime's own thread waiting for work on its semaphore (a
		 * JVM's GC workers, Node's inspector thread: rt_idle.c): idle,
		 * never a lock waiter */
		if (t->snap && t->snap->lock_state && strstr(t->snap->lock_state, LT_RT_IDLE_STATE) &&
		    t->snap->uaddr == x->end_call.addr)
			t->rt_note = 1;
		/* Java's Thread.sleep() on its thread's own event (the
		 * snapshot's innermost Java frame): no lock, no idle pool */
		if (t->snap && t->snap->java_sleep && t->snap->uaddr == x->end_call.addr)
			t->java_sleep = 1;
		else if (idle_condvar_wait(r, t)) {
			t->idle_cond = 1;
			P(r)->gr[t->end_group - 1]->n_idle_cond++;
		}
	}
}

/* Each group's threads at the end (rgroup.mem), in thread order, and the
 * count of threads alive at the end.  0 or -ENOMEM. */
static int group_members(struct lt_report_priv *p)
{
	p->n_alive = 0;
	for (size_t i = 0; i < p->nth; i++) {
		struct rthread *t = p->th[i];
		int alive = t->pub.end_state != LT_RTS_EXITED;
		p->n_alive += alive;
		if (!t->end_group)
			continue;
		struct rgroup *g = p->gr[t->end_group - 1];
		g->n_mem++;
		g->n_mem_alive += alive;
	}
	for (size_t i = 0; i < p->ngr; i++) {
		struct rgroup *g = p->gr[i];
		if (g->n_mem && !(g->mem = calloc(g->n_mem, sizeof(*g->mem))))
			return -ENOMEM;
		g->n_mem = 0;
	}
	for (size_t i = 0; i < p->nth; i++) {
		struct rthread *t = p->th[i];
		if (t->end_group) {
			struct rgroup *g = p->gr[t->end_group - 1];
			g->mem[g->n_mem++] = t;
		}
	}
	return 0;
}

/* Time up to the end and the state there. */
static void close_thread(struct lt_report *r, struct rthread *t)
{
	if (!t->pub.first_ts)
		t->pub.first_ts = r->start_ts;
	if (!t->pub.exited)
		rp_acct(t, r->end_ts);
	t->off_group = 0; /* still off the cpu at the end: the end rules tell */
	end_state(r, t);
	uint64_t span = t->pub.last_ts > t->pub.first_ts ? t->pub.last_ts - t->pub.first_ts : 0;
	uint64_t known = t->pub.running_ns + t->pub.runnable_ns + t->pub.futex_ns + t->pub.poll_ns +
			 t->pub.io_ns + t->pub.pipe_ns + t->pub.filelock_ns + t->pub.other_ns;
	t->pub.unknown_ns = span > known ? span - known : 0;
	if (t->snap) {
		t->pub.snap_detail = t->snap->detail ? strdup(t->snap->detail) : NULL;
		t->pub.snap_where = t->snap->where ? strdup(t->snap->where) : NULL;
	}
	const char *rn = lt_u64map_get(&P(r)->rtnames, t->pub.tid);
	t->pub.rt_name = rn ? strdup(rn) : NULL;
}

/* Its name, kind, wait-time quantiles and holder by the event rule. */
static void close_lock(struct lt_report *r, struct rgroup *g)
{
	rp_group_symbol(r, g);
	const uint64_t shape[5] = { g->n_mutex, g->n_cond, g->n_pi, g->n_join, g->n_other };
	memcpy(g->pub.n_shape, shape, sizeof(shape));
	g->pub.n_cond_words = (unsigned)__builtin_popcount(g->cond_words);
	g->pub.kind = rp_group_kind(g);
	g->pub.median_ns = rp_hquantile(g->hist, g->pub.waits, 0.5, g->min_ns, g->pub.max_ns);
	g->pub.p99_ns = rp_hquantile(g->hist, g->pub.waits, 0.99, g->min_ns, g->pub.max_ns);
	if (g->holder) {
		g->pub.holder = P(r)->th[g->holder - 1]->pub.tid;
		g->pub.holder_since = g->acq_ts;
	}
}

/* How many wait on each lock at the end, how many asleep, since when. */
static void count_end_waiters(struct lt_report_priv *p)
{
	for (size_t i = 0; i < p->nth; i++) {
		struct rthread *t = p->th[i];
		if (!rp_is_lock_waiter(t))
			continue;
		struct rgroup *g = p->gr[t->end_group - 1];
		g->n_end++;
		g->n_end_asleep += t->pub.asleep;
		if (t->pub.asleep && (!g->end_oldest || (t->pub.end_since && t->pub.end_since < g->end_oldest)))
			g->end_oldest = t->pub.end_since;
	}
}

/* The kind column says what the snapshot's lock models said the lock is
 * (a semaphore's sem_wait looks like a condvar's wait), in the table's
 * short words; how its waits look only where no model said anything. */
static void kind_from_snapshot(struct rgroup *g)
{
	static const char *const words[][2] = {
		{ "pthread mutex", "mutex" },	 { "condition variable", "condvar" },
		{ "semaphore", "semaphore" },	 { "rwlock", "rwlock" },
		{ "barrier", "barrier" },	 { "thread exit (pthread_join)", "join" },
		{ "threading.Lock", "threading.Lock" }, { "threading.RLock", "threading.RLock" },
	};
	for (size_t i = 0; i < g->n_mem; i++) {
		const struct rp_snap_thread *st = g->mem[i]->snap;
		const char *k = st ? st->lock_kind : NULL;
		if (g->mem[i]->rt_note && k && !strncmp(k, "Go runtime note", 15)) {
			/* an idle M's or sysmon's sleep: the table lists it
			 * last, named as the runtime names it (M2.park) */
			g->pub.kind = !strcmp(k, "Go runtime note (idle M)") ? "Go note: an idle M's park, not a lock"
			              : !strcmp(k, "Go runtime note (sysmon)") ? "Go note: sysmon's sleep, not a lock"
										   : "Go runtime note, not a lock";
			g->pub.not_lock = 1;
			if (st->lock_name && (!g->pub.symbol[0] || !strncmp(g->pub.symbol, "[anonymous", 10)))
				snprintf(g->pub.symbol, sizeof(g->pub.symbol), "%s", st->lock_name);
			return;
		}
		for (size_t w = 0; k && w < sizeof(words) / sizeof(words[0]); w++)
			if (!strcmp(k, words[w][0])) {
				g->pub.kind = words[w][1];
				return;
			}
	}
}

int rp_end_of_trace(struct lt_report *r)
{
	struct lt_report_priv *p = P(r);
	for (size_t i = 0; i < p->nth; i++)
		close_thread(r, p->th[i]);
	for (size_t i = 0; i < p->ngr; i++)
		close_lock(r, p->gr[i]);
	count_end_waiters(p);
	if (group_members(p))
		return -ENOMEM;
	for (size_t i = 0; i < p->ngr; i++)
		kind_from_snapshot(p->gr[i]);
	for (size_t i = 0; i < p->ngr; i++)
		if (p->gr[i]->n_end)
			end_holder(r, p->gr[i]);
	return 0;
}
