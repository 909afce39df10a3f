// SPDX-License-Identifier: MIT
/* The report's model as the timeline tells it (report_model.h): the sink
 * callbacks that keep, per thread, where its time goes and its last calls,
 * per lock its waits, queue, hand-offs and holder by the event rule, and per
 * pair of threads how often one woke the other. */
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include "locktrace/calls.h"
#include "lockid.h"
#include "report_model.h"

/* ------------------------------------------------------------ histogram */

/* Log-scale buckets with 8 steps per power of two (at most 12.5% apart):
 * values below 8 ns exactly, then up to 2^48 ns (3.3 days), the last bucket
 * holding everything above. */
#define HBUCKETS 368

static unsigned hbucket(uint64_t v)
{
	if (v < 8)
		return (unsigned)v;
	unsigned e = 63u - (unsigned)__builtin_clzll(v);
	if (e > 47)
		return HBUCKETS - 1;
	return 8 + (e - 3) * 8 + (unsigned)((v >> (e - 3)) & 7);
}

static uint64_t hlow(unsigned b)
{
	if (b < 8)
		return b;
	unsigned e = (b - 8) / 8 + 3, m = (b - 8) % 8;
	return (8ull + m) << (e - 3);
}

/* The value at quantile q: the middle of its bucket, within [lo, hi]. */
uint64_t rp_hquantile(const uint32_t *h, uint64_t n, double q, uint64_t lo, uint64_t hi)
{
	if (!h || !n)
		return 0;
	uint64_t rank = (uint64_t)(q * (double)n + 0.999999), seen = 0;
	if (rank < 1)
		rank = 1;
	for (unsigned b = 0; b < HBUCKETS; b++) {
		seen += h[b];
		if (seen >= rank) {
			uint64_t a = hlow(b), z = b + 1 < HBUCKETS ? hlow(b + 1) : a;
			uint64_t v = a + (z - a) / 2;
			return v < lo ? lo : v > hi ? hi : v;
		}
	}
	return hi;
}

static uint64_t tl_origin(struct lt_report *r)
{
	return lt_timeline_start(P(r)->tl);
}

struct rthread *rp_thread_of(struct lt_report *r, uint32_t tid)
{
	uint32_t i = rp_idx_get(&P(r)->tmap, tid);
	return i ? P(r)->th[i - 1] : NULL;
}

static struct rthread *thread_new(struct lt_report *r, uint32_t tid, uint32_t uid, const char *name,
				  uint64_t ts)
{
	struct lt_report_priv *p = P(r);
	struct rthread **v = lt_grow(p->th, &p->capth, p->nth, sizeof(*v), 64);
	if (!v)
		return NULL;
	p->th = v;
	struct rthread *t = calloc(1, sizeof(*t));
	if (!t)
		return NULL;
	t->ring = calloc(r->opts.last_n, sizeof(*t->ring));
	if (!t->ring || rp_idx_put(&p->tmap, tid, (uint32_t)p->nth + 1)) {
		free(t->ring);
		free(t);
		return NULL;
	}
	t->idx = (uint32_t)p->nth;
	t->uid = uid;
	t->pub.tid = tid;
	t->pub.first_ts = ts;
	snprintf(t->pub.name, sizeof(t->pub.name), "%s", name);
	p->th[p->nth++] = t;
	return t;
}

struct rgroup *rp_group_of(struct lt_report *r, uint64_t addr, int create)
{
	struct lt_report_priv *p = P(r);
	uint32_t i = rp_idx_get(&p->amap, addr);
	if (i)
		return p->gr[i - 1];
	if (!create || !addr)
		return NULL;
	/* an adjacent 32-bit word already known: the same object (a condition
	 * variable's g_signals[0] and [1]) */
	struct rgroup *g = NULL;
	uint32_t j = rp_idx_get(&p->amap, addr - 4);
	if (!j)
		j = rp_idx_get(&p->amap, addr + 4);
	if (j && p->gr[j - 1]->pub.n_words < MAX_WORDS)
		g = p->gr[j - 1];
	if (!g) {
		struct rgroup **v = lt_grow(p->gr, &p->capgr, p->ngr, sizeof(*v), 64);
		if (!v)
			return NULL;
		p->gr = v;
		g = calloc(1, sizeof(*g));
		if (!g)
			return NULL;
		g->idx = (uint32_t)p->ngr;
		g->min_ns = UINT64_MAX;
		p->gr[p->ngr++] = g;
	}
	if (rp_idx_put(&p->amap, addr, g->idx + 1))
		return NULL;
	g->pub.words[g->pub.n_words++] = addr;
	if (!g->pub.addr || addr < g->pub.addr)
		g->pub.addr = addr;
	return g;
}

/* Counts a distinct waiter (waker=0) or waker (1) of group g once. */
static void seen(struct lt_report *r, struct rgroup *g, struct rthread *t, int waker)
{
	uint64_t k = ((uint64_t)(g->idx + 1) << 32) | (t->idx + 1) | ((uint64_t)waker << 63);
	if (rp_idx_get(&P(r)->seen, k))
		return;
	if (rp_idx_put(&P(r)->seen, k, 1)) {
		P(r)->oom = 1;
		return;
	}
	if (waker)
		g->pub.n_wakers++;
	else
		g->pub.n_waiters++;
}

/* ------------------------------------------------------ time accounting */

void rp_acct(struct rthread *t, uint64_t ts)
{
	if (t->state == TS_UNKNOWN || t->state == TS_EXITED || ts <= t->since)
		return;
	uint64_t d = ts - t->since;
	switch (t->state) {
	case TS_RUNNING: t->pub.running_ns += d; break;
	case TS_RUNNABLE: t->pub.runnable_ns += d; break;
	default:
		switch (t->cls) {
		case CL_FUTEX: t->pub.futex_ns += d; break;
		case CL_POLL: t->pub.poll_ns += d; break;
		case CL_IO: t->pub.io_ns += d; break;
		case CL_PIPE: t->pub.pipe_ns += d; break;
		case CL_FLOCK: t->pub.filelock_ns += d; break;
		default: t->pub.other_ns += d; break;
		}
	}
	t->since = ts;
}

/* Moves t to state st at ts.  The first time its state becomes known, the
 * record that told us also tells what it was before (prior): scheduler
 * records of the target's threads are complete from the trace's start, so
 * a first switch-out means it ran since it was first seen, a first
 * wake-up that it slept, a first switch-in that it waited for a cpu. */
static void set_state(struct lt_report *r, struct rthread *t, int st, uint64_t ts, int prior)
{
	if (t->state == TS_EXITED)
		return;
	if (t->state == TS_UNKNOWN) {
		uint64_t origin = t->pub.first_ts ? t->pub.first_ts : tl_origin(r);
		if (prior != TS_UNKNOWN && ts > origin) {
			t->state = prior;
			t->since = origin;
			rp_acct(t, ts);
		}
	} else {
		rp_acct(t, ts);
	}
	if (t->state != st)
		t->state_ts = ts;
	t->state = st;
	if (ts > t->since) /* records from another cpu may be slightly late */
		t->since = ts;
}

/* ------------------------------------------------------------- holders */

static void held_remove(struct rthread *t, uint32_t g1)
{
	for (int i = 0; i < MAX_HELD; i++)
		if (t->held[i] == g1)
			t->held[i] = 0;
}

static void held_add(struct rthread *t, uint32_t g1)
{
	for (int i = 0; i < MAX_HELD; i++)
		if (t->held[i] == g1)
			return;
	for (int i = 0; i < MAX_HELD; i++)
		if (!t->held[i]) {
			t->held[i] = g1;
			return;
		}
	memmove(t->held, t->held + 1, (MAX_HELD - 1) * sizeof(t->held[0]));
	t->held[MAX_HELD - 1] = g1;
}

static void release(struct lt_report *r, struct rgroup *g, uint64_t ts, int kind, int64_t woken)
{
	if (!g->holder)
		return;
	held_remove(P(r)->th[g->holder - 1], g->idx + 1);
	g->last_holder = g->holder;
	g->rel_ts = ts;
	g->rel_kind = kind;
	g->rel_woken = woken;
	g->holder = 0;
	g->ntakes = 0;
	g->undo_tid = 0;
}

/* thread index+1 th's take of g, if g keeps one, leaves the list */
static void takes_drop(struct rgroup *g, uint32_t th)
{
	uint32_t k = 0;
	for (uint32_t i = 0; i < g->ntakes; i++)
		if (g->takes[i].th != th)
			g->takes[k++] = g->takes[i];
	g->ntakes = k;
}

/* A wait and a wait on the same lock again this soon, with no traced call
 * but futex calls between, is a thread that found the lock taken when its
 * wait returned (a condition variable's predicate still false once its
 * mutex was back, a mutex another thread barged into): it never held it.
 * Longer, and it ran holding it; and only takes this close to each other
 * are threads woken together, one of which got the lock. */
#define REWAIT_NS 1000000ull

/* t's wait on g returned at ts (0 or EAGAIN): it holds g by the rule */
static void take(struct lt_report *r, struct rgroup *g, struct rthread *t, uint64_t ts, uint32_t waker)
{
	if (g->holder && g->holder != t->idx + 1)
		held_remove(P(r)->th[g->holder - 1], g->idx + 1);
	g->holder = t->idx + 1;
	g->acq_ts = ts;
	g->acq_waker = waker;
	g->last_holder = t->idx + 1;
	g->last_acq = ts;
	g->last_acq_waker = waker;
	g->rel_ts = 0;
	g->rel_kind = REL_NONE;
	g->undo_tid = 0;
	held_add(t, g->idx + 1);
	/* the earlier takes it may prove false kept: the recent ones */
	takes_drop(g, t->idx + 1);
	uint32_t k = 0;
	for (uint32_t i = 0; i < g->ntakes; i++)
		if (g->takes[i].ts <= ts && ts - g->takes[i].ts < REWAIT_NS)
			g->takes[k++] = g->takes[i];
	g->ntakes = k;
	if (g->ntakes == MAX_TAKES) {
		memmove(g->takes, g->takes + 1, (MAX_TAKES - 1) * sizeof(g->takes[0]));
		g->ntakes--;
	}
	g->takes[g->ntakes++] = (struct rtake){ t->idx + 1, waker, ts };
}

static int rewait_at_once(const struct rgroup *g, const struct rthread *t, uint64_t ts)
{
	return t->last_other_ts < g->acq_ts && ts - g->acq_ts < REWAIT_NS;
}

/* t, g's holder by the rule, waits on g again at ts, at once: it did not
 * take g.  The last take before its own that still stands (a thread woken
 * with it, that has neither waited on g, woken on it nor exited since)
 * holds it; if none, the events name no holder (the rules may then infer
 * one from the stacks). */
static void untake(struct lt_report *r, struct rgroup *g, struct rthread *t, uint64_t ts)
{
	uint64_t ret_ts = g->acq_ts;
	held_remove(t, g->idx + 1);
	takes_drop(g, t->idx + 1);
	while (g->ntakes && P(r)->th[g->takes[g->ntakes - 1].th - 1]->pub.exited)
		g->ntakes--;
	g->holder = g->last_holder = 0;
	g->last_acq = g->acq_ts = 0;
	g->last_acq_waker = g->acq_waker = 0;
	if (g->ntakes) {
		const struct rtake *k = &g->takes[g->ntakes - 1];
		g->holder = g->last_holder = k->th;
		g->last_acq = g->acq_ts = k->ts;
		g->last_acq_waker = g->acq_waker = k->waker;
		held_add(P(r)->th[k->th - 1], g->idx + 1);
	}
	g->rel_ts = 0;
	g->rel_kind = REL_NONE;
	g->undo_tid = t->pub.tid;
	g->undo_ret_ts = ret_ts;
	g->undo_rewait_ts = ts;
}

static void progress(struct lt_report *r, uint64_t ts, uint32_t tid, uint32_t other, int kind,
		     const struct lt_report_call *c)
{
	struct lt_report_priv *p = P(r);
	if (ts < p->prog_ts)
		return;
	p->prog_ts = ts;
	p->prog_tid = tid;
	p->prog_other = other;
	p->prog_kind = kind;
	if (c)
		p->prog_call = *c;
}

/* ------------------------------------------------------------ callbacks */

static int call_class(const struct lt_span *s)
{
	switch (s->enter.h.kind) {
	case LT_EV_FUTEX_ENTER: return CL_FUTEX;
	case LT_EV_WAIT_ENTER: return CL_POLL;
	case LT_EV_IO_ENTER: return s->enter.h.flags & LT_F_IO_PIPE ? CL_PIPE : CL_IO;
	case LT_EV_FLOCK_ENTER: return CL_FLOCK;
	default: return CL_NONE;
	}
}


static void call_from_span(const struct lt_span *s, struct lt_report_call *c)
{
	const struct lt_event *e = &s->enter;
	memset(c, 0, sizeof(*c));
	c->begin = s->begin_ts;
	c->end = s->end_ts;
	c->blocked_before_ns = s->blocked_before_ns;
	c->flags = s->flags;
	c->nr = s->nr;
	c->kind = e->h.kind;
	c->fd = -1;
	c->timeout_ns = -1;
	switch (e->h.kind) {
	case LT_EV_FUTEX_ENTER:
		c->op = e->futex.op;
		c->val = e->futex.val;
		c->addr = s->futex_key; /* the address, in a trace of one process */
		/* wake-type ops carry val2 in timeout, not a time */
		if (s->flags & LT_SPAN_WAIT)
			c->timeout_ns = e->futex.timeout;
		break;
	case LT_EV_WAIT_ENTER:
		c->fd = e->wait.fds[0];
		c->nfds = e->wait.nfds;
		c->timeout_ns = e->wait.timeout_ns;
		break;
	case LT_EV_IO_ENTER:
		c->fd = e->io.fd;
		c->count = e->io.count;
		/* the collector records fd I/O on sockets, pipes and FIFOs
		 * (flagged); a call the header saw at attach may be on any fd */
		c->pipe = !!(e->h.flags & LT_F_IO_PIPE);
		c->socket = lt_span_fd_kind(s) && !c->pipe;
		break;
	case LT_EV_FLOCK_ENTER:
		c->fd = e->flk.fd;
		c->op = e->flk.cmd;
		c->flk = e->flk;
		break;
	default:
		break;
	}
	if (s->flags & LT_SPAN_HAS_RESULT)
		c->ret = s->ret;
}

static void on_thread(void *ctx, const struct lt_thread_ev *te)
{
	struct lt_report *r = ctx;
	struct rthread *t = rp_thread_of(r, te->tid);

	switch (te->change) {
	case LT_THREAD_NEW:
		/* threads named by the header are there from the trace's start
		 * (first_ts 0); a flight dump's header is written at the dump */
		if (!(t = thread_new(r, te->tid, te->uid, te->name, te->from_header ? 0 : te->ts))) {
			P(r)->oom = 1;
			break;
		}
		t->pub.tgid = te->tgid;
		t->other_proc = te->tgid && te->tgid != P(r)->pid;
		/* a thread or process created in the trace: its creator did
		 * something (a server's accept, which is not recorded,
		 * returned and handed the connection to a new thread) */
		if (te->ev && te->ev->h.kind == LT_EV_TASK_NEW)
			progress(r, te->ts, te->ev->tnew.parent_tid, te->tid, 3, NULL);
		if (te->ev && te->ev->h.kind == LT_EV_TASK_NEW && te->tid == te->tgid) {
			/* a process forked from a traced one: its parent */
			const struct rthread *pt = rp_thread_of(r, te->ev->tnew.parent_tid);
			if (pt && rp_proc_forked(r, te->tgid, pt->pub.tgid))
				P(r)->oom = 1;
		}
		break;
	case LT_THREAD_RENAME:
	case LT_THREAD_EXEC:
		if (t)
			snprintf(t->pub.name, sizeof(t->pub.name), "%s", te->name);
		break;
	case LT_THREAD_EXIT:
		if (!t)
			break;
		rp_acct(t, te->ts);
		t->state = TS_EXITED;
		t->pub.exited = 1;
		t->pub.last_ts = te->ts;
		for (int i = 0; i < MAX_HELD; i++)
			if (t->held[i]) {
				struct rgroup *g = P(r)->gr[t->held[i] - 1];
				if (g->holder == t->idx + 1)
					release(r, g, te->ts, REL_EXIT, 0);
			}
		break;
	default:
		break;
	}
}

/* glibc's waits have recognizable shapes: a mutex sleeps in FUTEX_WAIT
 * expecting 2 ("locked, contended"), pthread_cond_wait in LT_FUTEX_WAIT_BITSET
 * with the match-any bitset (and so does sem_wait: told apart only by a
 * condvar's two words, below), pthread_join on the joined thread's tid.
 * KEY: the word waited on. */
void rp_count_kind(struct lt_report *r, struct rgroup *g, struct rthread *t, const struct lt_futex_enter *fe,
		   uint64_t key)
{
	unsigned cmd = fe->op & LT_FUTEX_CMD_MASK;
	if (fe->nr == LT_NR_FUTEX &&
	    (cmd == LT_FUTEX_LOCK_PI || cmd == LT_FUTEX_WAIT_REQUEUE_PI || cmd == LT_FUTEX_LOCK_PI2))
		g->n_pi++;
	else if (fe->val && fe->val != t->pub.tid && rp_thread_of(r, fe->val))
		g->n_join++;
	else if (fe->nr == LT_NR_FUTEX && cmd == LT_FUTEX_WAIT && fe->val == 2)
		g->n_mutex++;
	else if (fe->nr == LT_NR_FUTEX && cmd == LT_FUTEX_WAIT_BITSET && fe->val3 == 0xffffffffu) {
		g->n_cond++;
		for (unsigned i = 0; i < g->pub.n_words && i < 8; i++)
			if (g->pub.words[i] == key)
				g->cond_words |= (uint8_t)(1u << i);
	} else
		g->n_other++;
}

const char *lt_report_kind_of(const uint64_t n[5], unsigned n_cond_words)
{
	static const char *const k[] = { "mutex", "condvar", "pi_mutex", "join", "futex" };
	int best = 4;
	for (int i = 0; i < 4; i++)
		if (n[i] > n[best] && n[i] * 2 > n[0] + n[1] + n[2] + n[3] + n[4])
			best = i;
	/* waits on one word only: a condvar whose groups did not rotate in
	 * the trace, or a semaphore (a Python 3.8-3.12 threading.Lock) */
	if (best == 1 && n_cond_words <= 1)
		return "cond/sem";
	return k[best];
}

const char *rp_group_kind(const struct rgroup *g)
{
	const uint64_t n[] = { g->n_mutex, g->n_cond, g->n_pi, g->n_join, g->n_other };
	return lt_report_kind_of(n, (unsigned)__builtin_popcount(g->cond_words));
}

static void on_span_begin(void *ctx, const struct lt_span *s)
{
	struct lt_report *r = ctx;
	struct rthread *t = rp_thread_of(r, s->tid);
	if (!t)
		return;
	if (s->flags & LT_SPAN_AT_START) {
		if (t->state == TS_UNKNOWN) {
			t->state = TS_BLOCKED;
			t->since = t->state_ts = s->begin_ts;
		}
	} else if (t->state != TS_RUNNING) {
		/* making a call: it runs now */
		set_state(r, t, TS_RUNNING, s->begin_ts, TS_RUNNING);
	}
	rp_acct(t, s->begin_ts);
	t->cls = call_class(s);
	t->in_call = 1;
	call_from_span(s, &t->open);
	t->open_group = 0;
	t->slept_at = (s->flags & LT_SPAN_AT_START) ? s->begin_ts : 0;
	t->w0_tid = 0;
	t->w0_ts = 0;
	t->last_call_ts = s->begin_ts;
	if (s->enter.h.kind != LT_EV_FUTEX_ENTER)
		t->last_other_ts = s->begin_ts;

	switch (s->enter.h.kind) {
	case LT_EV_FUTEX_ENTER:
		if (s->flags & LT_SPAN_WAIT)
			t->pub.futex_waits++;
		else if (s->flags & LT_SPAN_WAKER)
			t->pub.futex_wakes++;
		else
			t->pub.futex_other++;
		break;
	case LT_EV_WAIT_ENTER:
		t->pub.polls++;
		break;
	case LT_EV_IO_ENTER:
		if ((s->enter.h.flags & LT_F_IO_PIPE) && lt_call_reads(s->nr))
			t->pub.pipe_reads++;
		else if (s->enter.h.flags & LT_F_IO_PIPE)
			t->pub.pipe_writes++;
		else if (lt_call_reads(s->nr))
			t->pub.io_reads++;
		else
			t->pub.io_writes++;
		break;
	case LT_EV_FLOCK_ENTER:
		t->pub.filelock_calls++;
		break;
	default:
		break;
	}

	if ((s->flags & LT_SPAN_LOCK_WAIT) && s->lock_addr) {
		struct rgroup *g = rp_group_of(r, s->lock_addr, 1);
		if (!g) {
			P(r)->oom = 1;
			return;
		}
		t->open_group = g->idx + 1;
		g->cur_waiters++;
		if (g->cur_waiters > g->pub.max_waiters) {
			g->pub.max_waiters = g->cur_waiters;
			g->pub.max_waiters_ts = s->begin_ts;
		}
		seen(r, g, t, 0);
		rp_count_kind(r, g, t, &s->enter.futex, s->futex_key);
		if (g->holder == t->idx + 1 && rewait_at_once(g, t, s->begin_ts))
			untake(r, g, t, s->begin_ts);
		else if (g->holder == t->idx + 1)
			release(r, g, s->begin_ts, REL_WAIT, 0);
		else
			takes_drop(g, t->idx + 1); /* it waits: it does not hold it */
		if (g->wake0_ts && g->wake0_tid != t->pub.tid && s->begin_ts >= g->wake0_ts &&
		    s->begin_ts - g->wake0_ts <= WAKE0_WINDOW_NS) {
			t->w0_tid = g->wake0_tid;
			t->w0_ts = g->wake0_ts;
		}
	}
}

static void ring_push(struct lt_report *r, struct rthread *t, const struct lt_report_call *c)
{
	unsigned n = r->opts.last_n;
	t->ring[t->ring_pos] = *c;
	t->ring_pos = (t->ring_pos + 1) % n;
	if (t->ring_n < n)
		t->ring_n++;
}

const struct lt_report_call *rp_ring_call(const struct lt_report *r, const struct rthread *t, unsigned k)
{
	return &t->ring[(t->ring_pos + r->opts.last_n - t->ring_n + k) % r->opts.last_n];
}

/* A wake that returned 0 on g: threads that had entered a wait on g but not
 * yet gone to sleep when it was issued missed it unless the word changed. */
static void wake0_check(struct lt_report *r, struct rgroup *g, struct rthread *waker,
			const struct lt_span *s)
{
	if (!g->cur_waiters)
		return;
	for (size_t i = 0; i < P(r)->nth; i++) {
		struct rthread *t = P(r)->th[i];
		if (t == waker || !t->in_call || t->open_group != g->idx + 1 || t->open.begin > s->end_ts)
			continue;
		if (!t->slept_at || t->slept_at > s->begin_ts) {
			t->w0_tid = waker->pub.tid;
			t->w0_ts = s->begin_ts;
		}
	}
}

/* Whether the call's result is known, and what it is (*ret).  --calls
 * blocking records no return values: a wait that a thread of ours woke
 * counts as done (a lock wait: acquired); a waking call as having woken
 * whom it woke. */
static int span_result(const struct lt_report *r, const struct lt_span *s, int64_t *ret)
{
	*ret = s->ret;
	if (s->flags & LT_SPAN_HAS_RESULT)
		return 1;
	if (!(r->hdr_flags & LT_HDR_CALLS_BLOCKING) ||
	    (s->flags & (LT_SPAN_UNFINISHED | LT_SPAN_END_INFERRED | LT_SPAN_AT_START)))
		return 0;
	if (s->flags & LT_SPAN_WAKER) {
		*ret = s->nwoke;
		return 1;
	}
	if (s->nwoken_by && !(s->woken_by[0].flags & (LT_WAKE_IDLE | LT_WAKE_IRQ))) {
		*ret = (s->flags & LT_SPAN_LOCK_WAIT) ? 0 : 1;
		return 1;
	}
	return 0;
}

/* t's wait c on g ended: its length into g's table; a wait that returned
 * 0 or EAGAIN took the lock. */
static void lock_wait_end(struct lt_report *r, struct rgroup *g, struct rthread *t, const struct lt_span *s,
			  const struct lt_report_call *c, int has, int64_t ret)
{
	uint64_t d = s->end_ts - s->begin_ts + s->blocked_before_ns;
	if (g->cur_waiters)
		g->cur_waiters--;
	if (!g->hist && !(g->hist = calloc(HBUCKETS, sizeof(*g->hist))))
		P(r)->oom = 1;
	if (g->hist)
		g->hist[hbucket(d)]++;
	g->pub.waits++;
	g->pub.total_ns += d;
	if (d > g->pub.max_ns)
		g->pub.max_ns = d;
	if (d < g->min_ns)
		g->min_ns = d;
	if (has && ret == -EAGAIN)
		g->pub.eagain++;
	if (has && ret == -ETIMEDOUT)
		g->pub.timeouts++;
	if (s->flags & LT_SPAN_UNFINISHED)
		g->pub.open_at_end++;
	if (has && (ret == 0 || ret == -EAGAIN)) {
		take(r, g, t, s->end_ts, c->woken_by);
		if (ret == 0 && (s->flags & LT_SPAN_SLEPT))
			progress(r, s->end_ts, t->pub.tid, c->woken_by, 2, c);
	}
}

/* t's futex wake s ended: a wake by the holder releases the lock, a wake
 * that woke nobody may have been missed by a waiter about to sleep. */
static void lock_wake_end(struct lt_report *r, struct rthread *t, const struct lt_span *s, int has, int64_t ret)
{
	struct rgroup *g = rp_group_of(r, s->futex_key, 1);
	if (!g) {
		P(r)->oom = 1;
		return;
	}
	g->pub.wake_calls++;
	seen(r, g, t, 1);
	if (has && ret > 0)
		g->pub.woken += (uint64_t)ret;
	if (g->holder == t->idx + 1)
		release(r, g, s->begin_ts, REL_WAKE, has ? ret : 0);
	else
		takes_drop(g, t->idx + 1); /* it let it go */
	if (has && ret == 0) {
		g->wake0_ts = s->begin_ts;
		g->wake0_tid = t->pub.tid;
		wake0_check(r, g, t, s);
	}
}

/* A lock call that does not wait (F_SETLK, F_OFD_SETLK, flock LOCK_NB)
 * returned RET: a refusal of the same request as the last refused one is
 * counted (a program retrying a lock between sleeps, as SQLite's busy
 * handler does), a refusal of another starts the count again, a grant of
 * that request ends it.  Unlocks are not requests. */
static void polled_attempt(struct rthread *t, const struct lt_report_call *c, int64_t ret)
{
	const struct lt_flock_enter *k = &c->flk, *l = &t->polled_last.flk;
	if (k->nr == LT_NR_FLOCK ? (k->cmd & 8) != 0 : k->type == 2)
		return;
	bool same = t->polled_n && l->fd == k->fd && l->nr == k->nr && l->type == k->type && l->start == k->start &&
		    l->len == k->len && l->whence == k->whence && (k->nr != LT_NR_FLOCK || (l->cmd & 3) == (k->cmd & 3));
	if (ret == -EAGAIN || ret == -EACCES) {
		if (!same) {
			t->polled_n = 0;
			t->polled_first = c->begin;
		}
		t->polled_n++;
		t->polled_last = *c;
	} else if (same && ret == 0) {
		t->polled_n = 0;
	}
}

static void on_span_end(void *ctx, const struct lt_span *s)
{
	struct lt_report *r = ctx;
	struct rthread *t = rp_thread_of(r, s->tid);
	if (!t)
		return;
	struct lt_report_call c = t->open;
	if (!t->in_call || c.begin != s->begin_ts) /* no begin seen: rebuild */
		call_from_span(s, &c);
	c.end = s->end_ts;
	c.flags = s->flags;
	if (s->flags & LT_SPAN_HAS_RESULT)
		c.ret = s->ret;
	c.woken_by = s->nwoken_by ? s->woken_by[0].waker_tid : 0;
	c.nwoke = s->nwoke;
	uint32_t group1 = t->in_call ? t->open_group : 0;

	rp_acct(t, s->end_ts > t->since ? s->end_ts : t->since);
	t->cls = CL_NONE;
	t->in_call = 0;
	t->open_group = 0;
	if (s->end_ts > t->last_call_ts)
		t->last_call_ts = s->end_ts;
	if (s->flags & LT_SPAN_UNFINISHED) {
		t->pub.has_end_call = 1;
		t->pub.end_call = c;
		t->end_group = group1;
	}
	ring_push(r, t, &c);

	int64_t ret;
	int has = span_result(r, s, &ret);
	if ((s->flags & LT_SPAN_LOCK_WAIT) && group1)
		lock_wait_end(r, P(r)->gr[group1 - 1], t, s, &c, has, ret);
	else if ((s->flags & LT_SPAN_WAKER) && s->enter.h.kind == LT_EV_FUTEX_ENTER)
		lock_wake_end(r, t, s, has, ret);
	else if (has && ret > 0 && (s->enter.h.kind == LT_EV_WAIT_ENTER || s->enter.h.kind == LT_EV_IO_ENTER))
		progress(r, s->end_ts, t->pub.tid, 0, 2, &c);
	if (s->enter.h.kind == LT_EV_FLOCK_ENTER && !(s->flags & LT_SPAN_FILE_LOCK) && has)
		polled_attempt(t, &c, ret);
	if (s->flags & LT_SPAN_FILE_LOCK) {
		/* a file lock granted is a lock hand-off; the longest wait
		 * that ended is kept for the file-lock finding */
		if (has && ret == 0)
			progress(r, s->end_ts, t->pub.tid, 0, 2, &c);
		if (!(s->flags & LT_SPAN_UNFINISHED) &&
		    (!t->pub.has_filelock_max ||
		     c.end - c.begin > t->pub.filelock_max.end - t->pub.filelock_max.begin)) {
			t->pub.filelock_max = c;
			t->pub.has_filelock_max = 1;
		}
	}
}

static struct redge *edge_of(struct lt_report *r, uint32_t waker, uint32_t wakee)
{
	struct lt_report_priv *p = P(r);
	uint64_t k = ((uint64_t)waker << 32) | wakee;
	uint32_t i = rp_idx_get(&p->emap, k);
	if (i)
		return &p->ed[i - 1];
	if (p->ned >= MAX_EDGES)
		return NULL;
	struct redge *v = lt_grow(p->ed, &p->caped, p->ned, sizeof(*v), 256);
	if (!v)
		return NULL;
	p->ed = v;
	if (rp_idx_put(&p->emap, k, (uint32_t)p->ned + 1))
		return NULL;
	struct redge *e = &p->ed[p->ned++];
	memset(e, 0, sizeof(*e));
	e->pub.waker = waker;
	e->pub.wakee = wakee;
	return e;
}

/* Counts the wake-up w (ws: the waker's open call, or NULL) in the table
 * of who woke whom. */
static void count_edge(struct lt_report *r, const struct lt_wake_edge *w, const struct lt_span *ws)
{
	/* an interrupt's wake-up is the interrupt's, whichever task ran */
	int irq = !!(w->flags & (LT_WAKE_IDLE | LT_WAKE_IRQ));
	struct redge *e = edge_of(r, irq ? 0 : w->waker_tid, w->wakee_tid);
	if (!e) {
		r->edges_dropped++;
		return;
	}
	if (!e->pub.count)
		e->pub.first_ts = w->ts;
	e->pub.count++;
	e->pub.last_ts = w->ts;
	e->pub.flags |= irq ? w->flags & ~(uint32_t)LT_WAKE_OTHER : w->flags;
	if (irq)
		snprintf(e->pub.waker_name, LT_COMM_LEN, "interrupt");
	else
		memcpy(e->pub.waker_name, w->waker_comm, LT_COMM_LEN);
	/* the waker's call, also when its wake-ups past the timeline's
	 * bound were not kept (a pipe writer waking its reader thousands of
	 * times in what --calls blocking sees as one call) */
	uint8_t call = ws ? ws->enter.h.kind : w->waker_call;
	if (call == LT_EV_FUTEX_ENTER) {
		e->pub.via_futex++;
		if (ws)
			e->pub.lock = ws->futex_key;
	} else if (call == LT_EV_IO_ENTER) {
		e->pub.via_io++;
	} else {
		e->pub.other++;
	}
}

/* The wake-up w by the call ws handed g on: hand-offs, the queue it moved
 * through, the longest chain of wakees that woke the next. */
static void handoff(struct lt_report *r, struct rgroup *g, const struct lt_wake_edge *w, const struct lt_span *ws)
{
	g->pub.handoffs++;
	if (g->cur_waiters > g->pub.max_moving) {
		g->pub.max_moving = g->cur_waiters;
		g->pub.max_moving_ts = w->ts;
	}
	/* the waker was the previous wakee: it got the lock by a hand-off
	 * and handed it on */
	if (g->chain_len && w->waker_tid == g->chain_wakee) {
		g->chain_len++;
	} else {
		g->chain_len = 1;
		g->chain_start = w->ts;
	}
	g->chain_wakee = w->wakee_tid;
	if (g->chain_len > g->pub.longest_chain) {
		g->pub.longest_chain = g->chain_len;
		g->pub.chain_begin = g->chain_start;
	}
	if (g->chain_len == g->pub.longest_chain)
		g->pub.chain_end = w->ts;
	g->pub.last_wake_ts = w->ts;
	g->pub.last_waker = w->waker_tid;
	g->pub.last_wakee = w->wakee_tid;
	struct lt_report_call wc;
	call_from_span(ws, &wc);
	progress(r, w->ts, w->waker_tid, w->wakee_tid, 1, &wc);
}

/* The open span of tid, if it is the one with the given id. */
static const struct lt_span *open_span(struct lt_report *r, uint32_t tid, uint64_t id)
{
	const struct lt_span *sp = id ? lt_timeline_open_span(P(r)->tl, tid) : NULL;
	return sp && sp->id == id ? sp : NULL;
}

static void on_wake(void *ctx, const struct lt_wake_edge *w)
{
	struct lt_report *r = ctx;
	struct rthread *wakee = rp_thread_of(r, w->wakee_tid);
	const struct lt_span *ws = open_span(r, w->waker_tid, w->waker_span);
	const struct lt_span *es = open_span(r, w->wakee_tid, w->wakee_span);
	struct rgroup *g = NULL;

	if (wakee)
		wakee->pub.wakeups++;
	count_edge(r, w, ws);
	/* a hand-off: a wake on a lock that ends a wait on the same lock */
	if (ws && ws->enter.h.kind == LT_EV_FUTEX_ENTER && es && (es->flags & LT_SPAN_LOCK_WAIT))
		g = rp_group_of(r, ws->futex_key, 1);
	if (g && rp_group_of(r, es->lock_addr, 0) == g)
		handoff(r, g, w, ws);
}

/* A holder leaves the cpu while others wait for its lock: remember when,
 * to measure how long they waited for it to come back. */
static void off_begin(struct lt_report *r, struct rthread *t, uint64_t ts, int preempted)
{
	struct rgroup *best = NULL;
	/* asleep in a wait for another lock is a chain, reported as such */
	if (!preempted && t->in_call && t->cls == CL_FUTEX)
		return;
	for (int i = 0; i < MAX_HELD; i++) {
		if (!t->held[i])
			continue;
		struct rgroup *g = P(r)->gr[t->held[i] - 1];
		if (g->holder == t->idx + 1 && g->cur_waiters && (!best || g->cur_waiters > best->cur_waiters))
			best = g;
	}
	if (!best)
		return;
	t->off_group = best->idx + 1;
	t->off_ts = ts;
	t->off_waiters = best->cur_waiters;
	t->off_kind = preempted ? OFF_PREEMPTED : OFF_BLOCKED;
	t->off_in_call = t->in_call;
	if (t->in_call)
		t->off_call = t->open;
}

static void off_end(struct lt_report *r, struct rthread *t, uint64_t ts)
{
	if (!t->off_group)
		return;
	struct rgroup *g = P(r)->gr[t->off_group - 1];
	uint64_t d = ts > t->off_ts ? ts - t->off_ts : 0;
	t->off_group = 0;
	if ((double)d < r->opts.incident_ms * 1e6)
		return;
	g->pub.offcpu_count++;
	if (d > g->pub.offcpu_max_ns) {
		g->pub.offcpu_max_ns = d;
		g->off_ts = t->off_ts;
		g->off_tid = t->pub.tid;
		g->off_waiters = t->off_waiters;
		g->off_kind = t->off_kind;
		g->off_in_call = t->off_in_call;
		g->off_call = t->off_call;
	}
}

static void on_sched(void *ctx, const struct lt_event *ev)
{
	struct lt_report *r = ctx;
	uint64_t ts = ev->h.ts;

	if (ev->h.kind == LT_EV_SWITCH) {
		/* a thread of a traced process (the timeline's threads); an
		 * inferred switch-in (LT_SW_INFERRED) has no prev side: it
		 * stands for a switch that is not in the trace, whose next
		 * was seen acting */
		struct rthread *t = ev->sw.prev_tid ? rp_thread_of(r, ev->sw.prev_tid) : NULL;
		if (t && t->pub.tgid == ev->sw.prev_tgid) {
			if (t->state != TS_EXITED) {
				int pre = (ev->h.flags & LT_F_PREEMPT) || ev->sw.prev_state == 0;
				set_state(r, t, pre ? TS_RUNNABLE : TS_BLOCKED, ts, TS_RUNNING);
				t->pub.switches++;
				t->pub.preempted += pre;
				if (t->in_call && !pre && !t->slept_at)
					t->slept_at = ts;
				if (!t->off_group)
					off_begin(r, t, ts, pre);
			}
		}
		t = rp_thread_of(r, ev->sw.next_tid);
		if (t && t->pub.tgid == ev->sw.next_tgid) {
			if (t->state != TS_EXITED) {
				set_state(r, t, TS_RUNNING, ts, TS_RUNNABLE);
				off_end(r, t, ts);
			}
		}
	} else if (ev->h.kind == LT_EV_WAKING) {
		struct rthread *t = rp_thread_of(r, ev->h.tid);
		if (t && t->state != TS_RUNNING && t->state != TS_EXITED)
			set_state(r, t, TS_RUNNABLE, ts,
				  (ev->h.flags & LT_F_WAKEUP_NEW) ? TS_UNKNOWN : TS_BLOCKED);
	}
}

void rp_on_lost(void *ctx, const struct lt_event *ev)
{
	struct lt_report *r = ctx;
	struct lt_report_priv *p = P(r);
	struct lt_report_loss *l = NULL;
	for (size_t i = 0; i < p->nloss; i++)
		if (p->loss[i].cpu == ev->h.cpu && p->loss[i].kind == ev->lost.lost_kind)
			l = &p->loss[i];
	if (!l) {
		struct lt_report_loss *v = lt_grow(p->loss, &p->caploss, p->nloss, sizeof(*v), 16);
		if (!v) {
			p->oom = 1;
			return;
		}
		p->loss = v;
		l = &p->loss[p->nloss++];
		memset(l, 0, sizeof(*l));
		l->cpu = ev->h.cpu;
		l->kind = ev->lost.lost_kind;
		l->first_ts = ev->h.ts;
	}
	l->count += ev->lost.count;
	l->last_ts = ev->h.ts;
}

struct lt_timeline_sink rp_track_sink(struct lt_report *r)
{
	return (struct lt_timeline_sink){
		.ctx = r, .thread = on_thread, .span_begin = on_span_begin, .span_end = on_span_end,
		.wake = on_wake, .sched = on_sched, .lost = rp_on_lost,
	};
}
