// SPDX-License-Identifier: MIT
/*
 * `locktrace report`: analysis over the timeline model (see report.h and
 * docs/report.md for what each rule claims and where it can be wrong).
 *
 * The report is a timeline sink.  As the model reports calls, wake-ups and
 * scheduler records, it keeps per thread where its time goes and its last
 * few calls, per lock (a futex word, or adjacent words used together such
 * as a condition variable's two g_signals words) its wait-time histogram,
 * queue, hand-offs and the thread that holds it by the event rule below,
 * and per pair of threads how often one woke the other.  At the end the
 * threads still waiting, the snapshot's view of the same moment (owners,
 * futex words, symbols) and those tables are turned into findings.
 *
 * The holder of a lock, from events alone: the thread whose wait on one of
 * the lock's words last returned (0, or EAGAIN: the word had already
 * changed, which for a condition variable means a signal was there to take)
 * and that has neither woken nor waited on the lock's words since.  For a
 * mutex taken after a futex wait glibc always unlocks with a FUTEX_WAKE
 * (the word says "contended"), so its release is seen; a lock taken
 * without waiting is invisible until it is released with a wake.
 */
#include <errno.h>
#include <inttypes.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>
#include "locktrace/locksyms.h"
#include "locktrace/report.h"
#include "locktrace/lockid.h"
#include "locktrace/calls.h"
#include "locktrace/timeline.h"
#include "report_int.h"
#include "utf8.h"
#include "u64map.h"


/* A wake that woke nobody this long before a waiter entered its wait on the
 * same lock counts as "while the waiter was about to sleep": the waiter read
 * the lock's state before the wake and slept on the old news. */
#define WAKE0_WINDOW_NS (10ull * 1000 * 1000)
/* Snapshot facts hold at the end for a thread that made no traced call
 * this long after the snapshot started (reading 1,000 threads takes ~0.2 s). */
#define SNAP_SLACK_NS (250ull * 1000 * 1000)
#define MAX_EDGES 65536
#define MAX_HELD 4
#define MAX_CHAIN 16
#define MAX_WORDS 8

/* ------------------------------------------------------------------ map */

/* tid / address / pair -> index+1.  Open addressing, key 0 = empty. */
struct rmap {
	uint64_t *keys;
	uint32_t *vals;
	size_t cap, n;
};

static size_t rmap_slot(const struct rmap *m, uint64_t k)
{
	return (size_t)((k * 0x9E3779B97F4A7C15ull) >> 29) & (m->cap - 1);
}

static uint32_t rmap_get(const struct rmap *m, uint64_t k)
{
	if (!m->cap || !k)
		return 0;
	for (size_t i = rmap_slot(m, k);; i = (i + 1) & (m->cap - 1)) {
		if (m->keys[i] == k)
			return m->vals[i];
		if (!m->keys[i])
			return 0;
	}
}

static int rmap_put(struct rmap *m, uint64_t k, uint32_t v)
{
	if ((m->n + 1) * 4 > m->cap * 3) {
		struct rmap g = { 0 };
		g.cap = m->cap ? m->cap * 2 : 64;
		g.keys = calloc(g.cap, sizeof(*g.keys));
		g.vals = calloc(g.cap, sizeof(*g.vals));
		if (!g.keys || !g.vals) {
			free(g.keys);
			free(g.vals);
			return -ENOMEM;
		}
		for (size_t i = 0; i < m->cap; i++)
			if (m->keys[i])
				rmap_put(&g, m->keys[i], m->vals[i]);
		free(m->keys);
		free(m->vals);
		*m = g;
	}
	size_t i = rmap_slot(m, k);
	while (m->keys[i] && m->keys[i] != k)
		i = (i + 1) & (m->cap - 1);
	if (!m->keys[i])
		m->n++;
	m->keys[i] = k;
	m->vals[i] = v;
	return 0;
}

static void rmap_free(struct rmap *m)
{
	free(m->keys);
	free(m->vals);
	memset(m, 0, sizeof(*m));
}

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
static uint64_t hquantile(const uint32_t *h, uint64_t n, double q, uint64_t lo, uint64_t hi)
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

/* ---------------------------------------------------------------- model */

enum { TS_UNKNOWN = 0, TS_RUNNING, TS_RUNNABLE, TS_BLOCKED, TS_EXITED };
enum { CL_NONE = 0, CL_FUTEX, CL_POLL, CL_IO };
enum { REL_NONE = 0, REL_WAIT, REL_WAKE, REL_EXIT };
enum { OFF_PREEMPTED = 1, OFF_BLOCKED };

struct rthread {
	struct lt_report_thread pub;
	uint32_t idx, uid;
	int state;
	uint64_t since;         /* accounted up to */
	uint64_t state_ts;      /* when it entered state */
	int cls;                /* class of the open call */
	int in_call;
	struct lt_report_call open;
	uint32_t open_group;    /* group+1 of an open lock wait */
	uint64_t slept_at;      /* first switch-out asleep in the open call */
	uint32_t w0_tid;        /* a wake that woke nobody near the entry */
	uint64_t w0_ts;
	uint32_t end_group;     /* group+1 of the lock wait open at the end */
	int join_wait;          /* that wait is pthread_join's */
	uint64_t last_call_ts;  /* last traced call began or ended */
	struct lt_report_call *ring;
	unsigned ring_n, ring_pos;
	uint32_t held[MAX_HELD];/* group+1 this thread holds by the event rule */
	/* off the cpu while holding a lock others wait for */
	uint32_t off_group;
	uint64_t off_ts;
	uint32_t off_waiters;
	int off_kind;
	struct lt_report_call off_call;
	int off_in_call;
	const struct rp_snap_thread *snap; /* valid at the end, or NULL */
	uint8_t other_proc;     /* of a process other than the trace's pid */
};

struct rgroup {
	struct lt_report_lock pub;
	uint32_t idx;
	uint32_t *hist;
	uint64_t min_ns;
	uint32_t cur_waiters;
	/* holder by the event rule */
	uint32_t holder;        /* thread idx+1 */
	uint64_t acq_ts;
	uint32_t acq_waker;
	uint32_t last_holder;   /* thread idx+1: the current or the last one */
	uint64_t last_acq, rel_ts;
	uint32_t last_acq_waker;
	int rel_kind;
	int64_t rel_woken;
	/* hand-off chain */
	uint32_t chain_wakee, chain_len;
	uint64_t chain_start;
	/* the last wake that woke nobody */
	uint64_t wake0_ts;
	uint32_t wake0_tid;
	/* worst off-cpu incident of a holder */
	uint64_t off_ts;
	uint32_t off_tid, off_waiters;
	int off_kind;
	struct lt_report_call off_call;
	int off_in_call;
	/* how its waits look: what kind of lock it is */
	uint64_t n_mutex, n_cond, n_pi, n_join, n_other;
	/* at the end */
	uint32_t n_end, n_end_asleep;
	uint64_t end_oldest;    /* since of the longest end waiter */
	uint32_t end_holder;    /* thread idx+1 */
	int end_holder_src;     /* 1 snapshot owner, 2 events, 3 inferred */
	/* the snapshot's lock models: a runtime lock's kind and name */
	char rt_kind[48], rt_name[64];
	char infer_func[64];    /* the waiters' function the inferred holder runs */
	char keytext[56];       /* its lock key for people: "0x..." (lockid.h) */
	int in_cycle;
	int has_finding;
	int lost_release; /* a released_without_wake finding is about it */
	/* the threads whose end group it is, in thread order (built once the
	 * trace is read: the rules walk these, not every thread per lock) */
	struct rthread **mem;
	uint32_t n_mem, n_mem_alive;
};

struct redge {
	struct lt_report_edge pub;
};

struct sym {
	uint64_t addr;
	char *text;
};

struct lt_report_priv {
	struct lt_timeline *tl;
	uint32_t pid;
	uint64_t mono_to_boot; /* boottime - monotonic at attach */
	char exe_base[512];
	struct rthread **th;
	size_t nth, capth;
	struct rmap tmap;      /* tid -> current instance idx+1 */
	struct rgroup **gr;
	size_t ngr, capgr;
	uint32_t n_alive;      /* threads not exited at the end */
	struct fent *fidx;     /* infer_holder's index (fidx_build) */
	size_t nfidx;
	int fidx_built;
	struct rmap amap;      /* futex address -> group idx+1 */
	struct rmap seen;      /* distinct waiter / waker per group */
	struct redge *ed;
	size_t ned, caped;
	struct rmap emap;      /* waker<<32|wakee -> edge idx+1 */
	struct lt_report_loss *loss;
	size_t nloss, caploss;
	/* progress: the last successful hand-off or blocking call */
	uint64_t prog_ts;
	uint32_t prog_tid, prog_other;
	struct lt_report_call prog_call;
	int prog_kind; /* 1 hand-off (prog_other woken), 2 call returned */
	/* snapshots */
	struct rp_snapshot snap;
	int have_snap;
	struct lt_u64map rtnames; /* tid -> the runtime's thread name (char *) */
	struct sym *syms;
	size_t nsyms, capsyms;
	struct rmap smap;      /* futex address -> syms idx+1 */
	struct sspan *span;    /* the named objects by start (span_build) */
	uint64_t *span_max;    /* max-tree of their ends, span_m leaves */
	size_t nspan, span_m;
	int span_ok;           /* built for the current syms */
	uint64_t stats_end;
	int oom, finished;
};

#define P(r) ((r)->priv)

static uint64_t tl_origin(struct lt_report *r)
{
	return lt_timeline_start(P(r)->tl);
}

static struct rthread *thread_of(struct lt_report *r, uint32_t tid)
{
	uint32_t i = rmap_get(&P(r)->tmap, tid);
	return i ? P(r)->th[i - 1] : NULL;
}

static struct rthread *thread_new(struct lt_report *r, uint32_t tid, uint32_t uid, const char *name,
				  uint64_t ts)
{
	struct lt_report_priv *p = P(r);
	if (p->nth == p->capth) {
		size_t cap = p->capth ? p->capth * 2 : 64;
		struct rthread **v = realloc(p->th, cap * sizeof(*v));
		if (!v)
			return NULL;
		p->th = v;
		p->capth = cap;
	}
	struct rthread *t = calloc(1, sizeof(*t));
	if (!t)
		return NULL;
	t->ring = calloc(r->opts.last_n, sizeof(*t->ring));
	if (!t->ring || rmap_put(&p->tmap, tid, (uint32_t)p->nth + 1)) {
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

static struct rgroup *group_of(struct lt_report *r, uint64_t addr, int create)
{
	struct lt_report_priv *p = P(r);
	uint32_t i = rmap_get(&p->amap, addr);
	if (i)
		return p->gr[i - 1];
	if (!create || !addr)
		return NULL;
	/* an adjacent 32-bit word already known: the same object (a condition
	 * variable's g_signals[0] and [1]) */
	struct rgroup *g = NULL;
	uint32_t j = rmap_get(&p->amap, addr - 4);
	if (!j)
		j = rmap_get(&p->amap, addr + 4);
	if (j && p->gr[j - 1]->pub.n_words < MAX_WORDS)
		g = p->gr[j - 1];
	if (!g) {
		if (p->ngr == p->capgr) {
			size_t cap = p->capgr ? p->capgr * 2 : 64;
			struct rgroup **v = realloc(p->gr, cap * sizeof(*v));
			if (!v)
				return NULL;
			p->gr = v;
			p->capgr = cap;
		}
		g = calloc(1, sizeof(*g));
		if (!g)
			return NULL;
		g->idx = (uint32_t)p->ngr;
		g->min_ns = UINT64_MAX;
		p->gr[p->ngr++] = g;
	}
	if (rmap_put(&p->amap, addr, g->idx + 1))
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
	if (rmap_get(&P(r)->seen, k))
		return;
	if (rmap_put(&P(r)->seen, k, 1)) {
		P(r)->oom = 1;
		return;
	}
	if (waker)
		g->pub.n_wakers++;
	else
		g->pub.n_waiters++;
}

/* ------------------------------------------------------ time accounting */

static void acct(struct rthread *t, uint64_t ts)
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
			acct(t, ts);
		}
	} else {
		acct(t, ts);
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
}

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
	held_add(t, g->idx + 1);
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
	case LT_EV_IO_ENTER: return CL_IO;
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
		/* the collector records fd I/O on sockets only; a call the
		 * header saw at attach may be on any fd */
		c->socket = !(s->flags & LT_SPAN_AT_START);
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
	struct rthread *t = thread_of(r, te->tid);

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
		if (te->ev && te->ev->h.kind == LT_EV_TASK_NEW && te->tid == te->tgid) {
			/* a process forked from a traced one: its parent */
			const struct rthread *pt = thread_of(r, te->ev->tnew.parent_tid);
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
		acct(t, te->ts);
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
 * with the match-any bitset, pthread_join on the joined thread's tid. */
static void count_kind(struct lt_report *r, struct rgroup *g, struct rthread *t, const struct lt_futex_enter *fe)
{
	unsigned cmd = fe->op & LT_FUTEX_CMD_MASK;
	if (fe->nr == LT_NR_FUTEX &&
	    (cmd == LT_FUTEX_LOCK_PI || cmd == LT_FUTEX_WAIT_REQUEUE_PI || cmd == LT_FUTEX_LOCK_PI2))
		g->n_pi++;
	else if (fe->val && fe->val != t->pub.tid && thread_of(r, fe->val))
		g->n_join++;
	else if (fe->nr == LT_NR_FUTEX && cmd == LT_FUTEX_WAIT && fe->val == 2)
		g->n_mutex++;
	else if (fe->nr == LT_NR_FUTEX && cmd == LT_FUTEX_WAIT_BITSET && fe->val3 == 0xffffffffu)
		g->n_cond++;
	else
		g->n_other++;
}

static const char *group_kind(const struct rgroup *g)
{
	const uint64_t n[] = { g->n_mutex, g->n_cond, g->n_pi, g->n_join, g->n_other };
	static const char *const k[] = { "mutex", "condvar", "pi_mutex", "join", "futex" };
	int best = 4;
	for (int i = 0; i < 4; i++)
		if (n[i] > n[best] && n[i] * 2 > g->n_mutex + g->n_cond + g->n_pi + g->n_join + g->n_other)
			best = i;
	return k[best];
}

static void on_span_begin(void *ctx, const struct lt_span *s)
{
	struct lt_report *r = ctx;
	struct rthread *t = thread_of(r, s->tid);
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
	acct(t, s->begin_ts);
	t->cls = call_class(s);
	t->in_call = 1;
	call_from_span(s, &t->open);
	t->open_group = 0;
	t->slept_at = (s->flags & LT_SPAN_AT_START) ? s->begin_ts : 0;
	t->w0_tid = 0;
	t->w0_ts = 0;
	t->last_call_ts = s->begin_ts;

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
		if (lt_call_reads(s->nr))
			t->pub.io_reads++;
		else
			t->pub.io_writes++;
		break;
	default:
		break;
	}

	if ((s->flags & LT_SPAN_LOCK_WAIT) && s->lock_addr) {
		struct rgroup *g = group_of(r, s->lock_addr, 1);
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
		count_kind(r, g, t, &s->enter.futex);
		if (g->holder == t->idx + 1)
			release(r, g, s->begin_ts, REL_WAIT, 0);
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

static void on_span_end(void *ctx, const struct lt_span *s)
{
	struct lt_report *r = ctx;
	struct rthread *t = thread_of(r, s->tid);
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

	acct(t, s->end_ts > t->since ? s->end_ts : t->since);
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

	int has = (s->flags & LT_SPAN_HAS_RESULT) != 0;
	int64_t ret = s->ret;
	if (!has && (r->hdr_flags & LT_HDR_CALLS_BLOCKING) &&
	    !(s->flags & (LT_SPAN_UNFINISHED | LT_SPAN_END_INFERRED | LT_SPAN_AT_START))) {
		/* --calls blocking records no return values: a wait that a
		 * thread of ours woke counts as done (a lock wait: acquired);
		 * a waking call as having woken whom it woke */
		if (s->flags & LT_SPAN_WAKER) {
			has = 1;
			ret = s->nwoke;
		} else if (s->nwoken_by && !(s->woken_by[0].flags & (LT_WAKE_IDLE | LT_WAKE_IRQ))) {
			has = 1;
			ret = (s->flags & LT_SPAN_LOCK_WAIT) ? 0 : 1;
		}
	}
	if ((s->flags & LT_SPAN_LOCK_WAIT) && group1) {
		struct rgroup *g = P(r)->gr[group1 - 1];
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
			take(r, g, t, s->end_ts, c.woken_by);
			if (ret == 0 && (s->flags & LT_SPAN_SLEPT))
				progress(r, s->end_ts, t->pub.tid, c.woken_by, 2, &c);
		}
	} else if ((s->flags & LT_SPAN_WAKER) && s->enter.h.kind == LT_EV_FUTEX_ENTER) {
		struct rgroup *g = group_of(r, s->futex_key, 1);
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
		if (has && ret == 0) {
			g->wake0_ts = s->begin_ts;
			g->wake0_tid = t->pub.tid;
			wake0_check(r, g, t, s);
		}
	} else if (has && ret > 0 && (s->enter.h.kind == LT_EV_WAIT_ENTER ||
					 s->enter.h.kind == LT_EV_IO_ENTER)) {
		progress(r, s->end_ts, t->pub.tid, 0, 2, &c);
	}
}

static struct redge *edge_of(struct lt_report *r, uint32_t waker, uint32_t wakee)
{
	struct lt_report_priv *p = P(r);
	uint64_t k = ((uint64_t)waker << 32) | wakee;
	uint32_t i = rmap_get(&p->emap, k);
	if (i)
		return &p->ed[i - 1];
	if (p->ned >= MAX_EDGES)
		return NULL;
	if (p->ned == p->caped) {
		size_t cap = p->caped ? p->caped * 2 : 256;
		struct redge *v = realloc(p->ed, cap * sizeof(*v));
		if (!v)
			return NULL;
		p->ed = v;
		p->caped = cap;
	}
	if (rmap_put(&p->emap, k, (uint32_t)p->ned + 1))
		return NULL;
	struct redge *e = &p->ed[p->ned++];
	memset(e, 0, sizeof(*e));
	e->pub.waker = waker;
	e->pub.wakee = wakee;
	return e;
}

static void on_wake(void *ctx, const struct lt_wake_edge *w)
{
	struct lt_report *r = ctx;
	struct lt_report_priv *p = P(r);
	struct rthread *wakee = thread_of(r, w->wakee_tid);
	const struct lt_span *ws = NULL, *es = NULL;
	struct rgroup *g = NULL;

	if (wakee)
		wakee->pub.wakeups++;
	if (w->waker_span) {
		ws = lt_timeline_open_span(p->tl, w->waker_tid);
		if (ws && ws->id != w->waker_span)
			ws = NULL;
	}
	if (w->wakee_span) {
		es = lt_timeline_open_span(p->tl, w->wakee_tid);
		if (es && es->id != w->wakee_span)
			es = NULL;
	}
	/* an interrupt's wake-up is the interrupt's, whichever task ran */
	int irq = !!(w->flags & (LT_WAKE_IDLE | LT_WAKE_IRQ));
	struct redge *e = edge_of(r, irq ? 0 : w->waker_tid, w->wakee_tid);
	if (e) {
		if (!e->pub.count)
			e->pub.first_ts = w->ts;
		e->pub.count++;
		e->pub.last_ts = w->ts;
		e->pub.flags |= irq ? w->flags & ~(uint32_t)LT_WAKE_OTHER : w->flags;
		if (irq)
			snprintf(e->pub.waker_name, LT_COMM_LEN, "interrupt");
		else
			memcpy(e->pub.waker_name, w->waker_comm, LT_COMM_LEN);
		if (ws && ws->enter.h.kind == LT_EV_FUTEX_ENTER) {
			e->pub.via_futex++;
			e->pub.lock = ws->futex_key;
		} else if (ws && ws->enter.h.kind == LT_EV_IO_ENTER) {
			e->pub.via_io++;
		} else {
			e->pub.other++;
		}
	} else {
		r->edges_dropped++;
	}

	/* a hand-off: a wake on a lock that ends a wait on the same lock */
	if (ws && ws->enter.h.kind == LT_EV_FUTEX_ENTER && es && (es->flags & LT_SPAN_LOCK_WAIT))
		g = group_of(r, ws->futex_key, 1);
	if (!g || group_of(r, es->lock_addr, 0) != g)
		return;
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
		/* a thread of a traced process (the timeline's threads) */
		struct rthread *t = thread_of(r, ev->sw.prev_tid);
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
		t = thread_of(r, ev->sw.next_tid);
		if (t && t->pub.tgid == ev->sw.next_tgid) {
			if (t->state != TS_EXITED) {
				set_state(r, t, TS_RUNNING, ts, TS_RUNNABLE);
				off_end(r, t, ts);
			}
		}
	} else if (ev->h.kind == LT_EV_WAKING) {
		struct rthread *t = thread_of(r, ev->h.tid);
		if (t && t->state != TS_RUNNING && t->state != TS_EXITED)
			set_state(r, t, TS_RUNNABLE, ts,
				  (ev->h.flags & LT_F_WAKEUP_NEW) ? TS_UNKNOWN : TS_BLOCKED);
	}
}

static void on_lost(void *ctx, const struct lt_event *ev)
{
	struct lt_report *r = ctx;
	struct lt_report_priv *p = P(r);
	struct lt_report_loss *l = NULL;
	for (size_t i = 0; i < p->nloss; i++)
		if (p->loss[i].cpu == ev->h.cpu && p->loss[i].kind == ev->lost.lost_kind)
			l = &p->loss[i];
	if (!l) {
		if (p->nloss == p->caploss) {
			size_t cap = p->caploss ? p->caploss * 2 : 16;
			struct lt_report_loss *v = realloc(p->loss, cap * sizeof(*v));
			if (!v) {
				p->oom = 1;
				return;
			}
			p->loss = v;
			p->caploss = cap;
		}
		l = &p->loss[p->nloss++];
		memset(l, 0, sizeof(*l));
		l->cpu = ev->h.cpu;
		l->kind = ev->lost.lost_kind;
		l->first_ts = ev->h.ts;
	}
	l->count += ev->lost.count;
	l->last_ts = ev->h.ts;
}

/* -------------------------------------------------------------- public */

struct lt_report *lt_report_new(const struct lt_header *hdr, const struct lt_report_opts *o)
{
	struct lt_report *r = calloc(1, sizeof(*r));
	if (!r)
		return NULL;
	r->priv = calloc(1, sizeof(*r->priv));
	if (!r->priv) {
		free(r);
		return NULL;
	}
	if (o)
		r->opts = *o;
	if (!r->opts.last_n)
		r->opts.last_n = LT_REPORT_LAST_N;
	if (r->opts.last_n > 1000)
		r->opts.last_n = 1000;
	if (r->opts.stall_s <= 0)
		r->opts.stall_s = LT_REPORT_STALL_S;
	if (!r->opts.convoy_min)
		r->opts.convoy_min = LT_REPORT_CONVOY_MIN;
	if (r->opts.incident_ms <= 0)
		r->opts.incident_ms = LT_REPORT_INCIDENT_MS;
	if (!r->opts.rows)
		r->opts.rows = LT_REPORT_ROWS;

	r->pid = hdr->pid;
	snprintf(r->comm, sizeof(r->comm), "%s", hdr->comm);
	snprintf(r->exe, sizeof(r->exe), "%s", hdr->exe);
	snprintf(r->cmdline, sizeof(r->cmdline), "%s", hdr->cmdline);
	snprintf(r->host, sizeof(r->host), "%s", hdr->host);
	snprintf(r->kernel, sizeof(r->kernel), "%s", hdr->kernel);
	r->hdr_flags = hdr->flags;
	r->attach_boottime = hdr->clock_boottime;
	r->attach_realtime = hdr->clock_realtime;
	r->clean_end = 1;

	struct lt_report_priv *p = r->priv;
	p->pid = (uint32_t)hdr->pid;
	p->mono_to_boot = hdr->clock_boottime - hdr->clock_monotonic;
	const char *slash = strrchr(hdr->exe, '/');
	snprintf(p->exe_base, sizeof(p->exe_base), "%s", slash ? slash + 1 : hdr->exe);

	struct lt_timeline_sink sink = {
		.ctx = r, .thread = on_thread, .span_begin = on_span_begin, .span_end = on_span_end,
		.wake = on_wake, .sched = on_sched, .lost = on_lost,
	};
	p->tl = lt_timeline_new(hdr, &sink, NULL);
	if (!p->tl || p->oom || rp_procs_init(r, hdr)) {
		lt_report_free(r);
		return NULL;
	}
	return r;
}

int lt_report_event(struct lt_report *r, const struct lt_event *ev)
{
	if (P(r)->finished)
		return 0;
	r->events++;
	int ret = lt_timeline_event(P(r)->tl, ev);
	return ret ? ret : P(r)->oom ? -ENOMEM : 0;
}

/* Appends a formatted line to a vector of malloc'd strings (notes,
 * evidence); on out of memory the line is dropped. */
/* Findings and notes are text for people, built from names, symbols and
 * paths of the target: formatted, then escaped as a whole (utf8.h; names
 * already escaped stay as they are), so that no output of them, text or
 * JSON, carries a control byte. */
static char *vtext(const char *fmt, va_list ap)
{
	char *s = NULL;
	if (vasprintf(&s, fmt, ap) < 0)
		return NULL;
	size_t n = strlen(s);
	char *t = malloc(4 * n + 1);
	if (t)
		lt_text_escape(t, 4 * n + 1, s, n);
	free(s);
	return t;
}

static void vec_addv(char ***v, size_t *n, const char *fmt, va_list ap)
{
	char *s = vtext(fmt, ap);
	if (!s)
		return;
	char **nv = realloc(*v, (*n + 1) * sizeof(*nv));
	if (!nv) {
		free(s);
		return;
	}
	*v = nv;
	nv[(*n)++] = s;
}

static void add_note(struct lt_report *r, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
static void add_note(struct lt_report *r, const char *fmt, ...)
{
	va_list ap;
	va_start(ap, fmt);
	vec_addv(&r->notes, &r->n_notes, fmt, ap);
	va_end(ap);
}

/* Names from SYMBOLS sections and snapshots; a later name wins, as the
 * recorder may rename an address once it knows better. */
static void add_sym(struct lt_report_priv *p, uint64_t addr, const char *text)
{
	if (!addr || !text || !*text)
		return;
	char *t = strdup(text);
	if (!t)
		return;
	uint32_t i = rmap_get(&p->smap, addr);
	p->span_ok = 0;
	if (i) {
		free(p->syms[i - 1].text);
		p->syms[i - 1].text = t;
		return;
	}
	if (p->nsyms == p->capsyms) {
		size_t cap = p->capsyms ? p->capsyms * 2 : 32;
		struct sym *v = realloc(p->syms, cap * sizeof(*v));
		if (!v) {
			free(t);
			return;
		}
		p->syms = v;
		p->capsyms = cap;
	}
	if (rmap_put(&p->smap, addr, (uint32_t)p->nsyms + 1)) {
		free(t);
		return;
	}
	p->syms[p->nsyms].addr = addr;
	p->syms[p->nsyms++].text = t;
}

void lt_report_symbol_entry(void *ctx, int32_t tgid, uint64_t addr, const char *name,
			    const struct lt_shared_key *key)
{
	struct lt_report *r = ctx;
	uint64_t k = lt_lockid_symbol(lt_timeline_lockid(P(r)->tl), (uint32_t)tgid, addr, key != NULL,
				      key ? key->dev : 0, key ? key->ino : 0, key ? key->offset : 0);
	if (k)
		add_sym(P(r), k, name);
}

int lt_report_symbols(struct lt_report *r, const void *data, size_t len)
{
	struct lt_u64map m = { 0 };
	int rc = lt_locksyms_parse(data, len, &m);
	if (!rc)
		rc = lt_locksyms_parse_procs(data, len, r->pid, lt_report_symbol_entry, r);
	for (size_t i = 0; i < m.cap; i++)
		if (m.keys[i] && m.vals[i])
			add_sym(P(r), m.keys[i], m.vals[i]);
	lt_symmap_free(&m);
	if (rc) {
		add_note(r, "a SYMBOLS section is damaged; lock names read before the damage are used");
		return -1;
	}
	return 0;
}

/* The text as stored, for the JSON report, which embeds it as it is: the
 * parser took it as JSON (no control bytes in its strings), and bytes that
 * are not UTF-8 become U+FFFD here, as in every JSON locktrace writes. */
static void keep_stored(struct lt_report *r, const char *json, size_t len, const char *occasion)
{
	struct lt_report_stored *nv = realloc(r->stored, (r->n_stored + 1) * sizeof(*nv));
	char *copy = malloc(3 * len + 1);
	if (nv)
		r->stored = nv;
	if (!nv || !copy) {
		free(copy);
		P(r)->oom = 1;
		return;
	}
	size_t n = lt_utf8_sanitize(copy, 3 * len + 1, json, len);
	nv[r->n_stored] = (struct lt_report_stored){ copy, n, "" };
	snprintf(nv[r->n_stored++].occasion, sizeof(nv->occasion), "%s", occasion ? occasion : "");
}

/* A runtime's name for a thread, from any snapshot: a thread that exited
 * before the last one keeps the name an earlier one read. */
static void add_rtname(struct lt_report_priv *p, int32_t tid, const char *name)
{
	if (tid <= 0 || !name || !name[0])
		return;
	char *v = strdup(name), *old = lt_u64map_get(&p->rtnames, (uint64_t)tid);
	if (!v || lt_u64map_put(&p->rtnames, (uint64_t)tid, v)) {
		free(v);
		return;
	}
	free(old);
}

int lt_report_snapshot(struct lt_report *r, const char *json, size_t len)
{
	struct lt_report_priv *p = P(r);
	char err[160];
	struct rp_json *doc = rp_json_parse(json, len, err, sizeof(err));
	struct rp_snapshot s;
	if (!doc) {
		add_note(r, "a snapshot section could not be read (%s); the report goes on without it", err);
		return -1;
	}
	if (rp_snapshot_from_json(doc, p->exe_base, &s)) {
		rp_json_free(doc);
		add_note(r, "a snapshot section is not a locktrace.snapshot/1 document; ignored");
		return -1;
	}
	keep_stored(r, json, len, rp_json_str(rp_json_get(doc, "occasion")));
	rp_json_free(doc);
	struct lt_lockid *ids = lt_timeline_lockid(p->tl);
	for (size_t i = 0; i < s.n_threads; i++) {
		if (s.threads[i].has_futex)
			add_sym(p, lt_lockid_key(ids, (uint32_t)s.threads[i].pid, s.threads[i].uaddr,
						 lt_futex_private((uint16_t)s.threads[i].nr, s.threads[i].op)),
				s.threads[i].lock);
		add_rtname(p, s.threads[i].tid, s.threads[i].rt_name);
	}
	/* the latest snapshot describes the end best; earlier ones still
	 * name the locks */
	if (p->have_snap)
		rp_snapshot_clear(&p->snap);
	p->snap = s;
	p->have_snap = 1;
	r->n_snapshots++;
	r->snapshot_ts = (uint64_t)s.taken_monotonic_ns + p->mono_to_boot;
	return 0;
}

void lt_report_stats(struct lt_report *r, const struct lt_stats *s)
{
	r->have_stats = 1;
	r->stop_reason = s->stop_reason;
	P(r)->stats_end = s->end_ns;
	uint64_t lost = 0;
	for (uint64_t i = 0; s->lost && i < (uint64_t)s->ncpus * LT_EV_MAX; i++)
		lost += s->lost[i];
	r->lost_total = lost;
	/* the stats have the losses per cpu and kind even when the LOST
	 * records themselves were cut off */
	for (uint32_t c = 0; s->lost && c < s->ncpus; c++)
		for (unsigned k = 0; k < LT_EV_MAX; k++) {
			uint64_t n = s->lost[(uint64_t)c * LT_EV_MAX + k];
			int known = 0;
			for (size_t i = 0; i < P(r)->nloss; i++)
				known |= P(r)->loss[i].cpu == c && P(r)->loss[i].kind == k;
			if (!n || known)
				continue;
			struct lt_event ev = { .h = { .cpu = (uint16_t)c, .kind = LT_EV_LOST } };
			ev.lost.count = n;
			ev.lost.lost_kind = k;
			on_lost(r, &ev);
		}
}

void lt_report_reader_end(struct lt_report *r, int clean, const char *why, uint64_t offset)
{
	r->clean_end = clean;
	snprintf(r->stop_why, sizeof(r->stop_why), "%s", why ? why : "");
	r->stop_offset = offset;
}

/* ------------------------------------------------------------- symbols */

/* A snapshot lock name that is a symbol with an offset ("rtlock+0x50",
 * "libc.so.6:lock"), as opposed to a mapping ("[heap]", "libfoo.so+0x1234",
 * "demo+0x4010" for the unsymbolized executable). */
static int parse_sym(const struct lt_report_priv *p, const char *s, char *name, size_t nlen,
		     uint64_t *off)
{
	if (!s || !*s || s[0] == '[' || !strcmp(s, "unmapped"))
		return 0;
	const char *plus = strrchr(s, '+');
	size_t l = plus && plus[1] == '0' && plus[2] == 'x' ? (size_t)(plus - s) : strlen(s);
	if (l == 0 || l >= nlen)
		return 0;
	memcpy(name, s, l);
	name[l] = 0;
	if (!strchr(name, ':') && (strstr(name, ".so") || !strcmp(name, p->exe_base)))
		return 0;
	*off = l < strlen(s) ? strtoull(plus + 1, NULL, 16) : 0;
	return 1;
}

/* A symbol "name+0xOFF" names a word OFF bytes into an object: the object
 * spans at least [word - OFF, word). */
struct sspan {
	uint64_t base, end;
	uint32_t k; /* syms index */
};

static int span_cmp(const void *a, const void *b)
{
	const struct sspan *x = a, *y = b;
	if (x->base != y->base)
		return x->base < y->base ? -1 : 1;
	return (x->k > y->k) - (x->k < y->k);
}

/* The spans sorted by start and a max-tree of their ends, built at the
 * first look-up that needs them (and again after new names): a look-up
 * inside an object then costs log n, not a parse of every symbol. */
static int span_build(struct lt_report_priv *p)
{
	char name[128];
	uint64_t off;

	free(p->span);
	free(p->span_max);
	p->span_max = NULL;
	p->nspan = 0;
	p->span = malloc((p->nsyms ? p->nsyms : 1) * sizeof(*p->span));
	if (!p->span)
		return -1;
	for (size_t i = 0; i < p->nsyms; i++)
		if (parse_sym(p, p->syms[i].text, name, sizeof(name), &off) && off && off <= p->syms[i].addr)
			p->span[p->nspan++] = (struct sspan){ p->syms[i].addr - off, p->syms[i].addr, (uint32_t)i };
	qsort(p->span, p->nspan, sizeof(*p->span), span_cmp);
	for (p->span_m = 1; p->span_m < p->nspan; p->span_m *= 2)
		;
	p->span_max = calloc(2 * p->span_m, sizeof(*p->span_max));
	if (!p->span_max)
		return -1;
	for (size_t i = 0; i < p->nspan; i++)
		p->span_max[p->span_m + i] = p->span[i].end;
	for (size_t n = p->span_m - 1; n >= 1; n--)
		p->span_max[n] = p->span_max[2 * n] > p->span_max[2 * n + 1] ? p->span_max[2 * n]
									  : p->span_max[2 * n + 1];
	p->span_ok = 1;
	return 0;
}

/* The rightmost span below lim (in node's range [lo, hi)) that ends after
 * addr, or -1. */
static long span_right(const struct lt_report_priv *p, size_t node, size_t lo, size_t hi, size_t lim,
		       uint64_t addr)
{
	if (lo >= lim || p->span_max[node] <= addr)
		return -1;
	if (hi - lo == 1)
		return (long)lo;
	size_t mid = lo + (hi - lo) / 2;
	long r = span_right(p, 2 * node + 1, mid, hi, lim, addr);
	return r >= 0 ? r : span_right(p, 2 * node, lo, mid, lim, addr);
}

const char *lt_report_lock_name(const struct lt_report *r, uint64_t addr, char *buf, size_t len)
{
	struct lt_report_priv *p = r->priv;
	uint32_t k = rmap_get(&p->smap, addr);
	if (k) {
		snprintf(buf, len, "%s", p->syms[k - 1].text);
		return buf;
	}
	/* inside a symbol whose later word the snapshot named: the object
	 * spans at least from its start to that word; of several, the one
	 * that starts nearest below */
	if (!p->span_ok && span_build(p))
		p->nspan = 0;
	size_t lo = 0, hi = p->nspan; /* lim: the spans starting at or below addr */
	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;
		if (p->span[mid].base <= addr)
			lo = mid + 1;
		else
			hi = mid;
	}
	long j = p->nspan && p->span_max ? span_right(p, 1, 0, p->span_m, lo, addr) : -1;
	char name[128];
	uint64_t off;
	if (j >= 0 && parse_sym(p, p->syms[p->span[j].k].text, name, sizeof(name), &off)) {
		uint64_t base = p->span[j].base;
		if (addr == base)
			snprintf(buf, len, "%s", name);
		else
			snprintf(buf, len, "%s+0x%" PRIx64, name, addr - base);
		return buf;
	}
	return lt_lockid_format(lt_timeline_lockid(p->tl), addr, buf, len);
}

const char *lt_report_key_text(const struct lt_report *r, uint64_t key, char *buf, size_t len)
{
	return lt_lockid_format(lt_timeline_lockid(r->priv->tl), key, buf, len);
}

/* "rtlock+0x50/+0x54" for a group whose words share a symbol. */
static void group_symbol(struct lt_report *r, struct rgroup *g)
{
	char first[128] = "", name[128], base0[128] = "";
	size_t n = 0;
	char *out = g->pub.symbol;
	size_t cap = sizeof(g->pub.symbol);
	out[0] = 0;
	lt_report_key_text(r, g->pub.addr, g->keytext, sizeof(g->keytext));
	snprintf(g->pub.key, sizeof(g->pub.key), "%s", g->keytext);
	/* words in address order */
	for (unsigned i = 1; i < g->pub.n_words; i++)
		for (unsigned j = i; j > 0 && g->pub.words[j] < g->pub.words[j - 1]; j--) {
			uint64_t x = g->pub.words[j];
			g->pub.words[j] = g->pub.words[j - 1];
			g->pub.words[j - 1] = x;
		}
	for (unsigned i = 0; i < g->pub.n_words; i++) {
		lt_report_lock_name(r, g->pub.words[i], name, sizeof(name));
		if (name[0] == '0' && name[1] == 'x')
			return; /* a word without a name: show addresses */
		/* for display any "base+0xOFF" shares its base, "[heap]" too */
		char b[128];
		uint64_t off = 0;
		const char *plus = strstr(name, "+0x");
		while (plus && strstr(plus + 1, "+0x"))
			plus = strstr(plus + 1, "+0x");
		snprintf(b, sizeof(b), "%.*s", plus ? (int)(plus - name) : (int)strlen(name), name);
		if (plus)
			off = strtoull(plus + 3, NULL, 16);
		if (i == 0) {
			snprintf(first, sizeof(first), "%s", name);
			snprintf(base0, sizeof(base0), "%s", b);
			n = (size_t)snprintf(out, cap, "%s", first);
		} else if (!strcmp(b, base0) && off) {
			n += (size_t)snprintf(out + n, n < cap ? cap - n : 0, "/+0x%" PRIx64, off);
		} else {
			n += (size_t)snprintf(out + n, n < cap ? cap - n : 0, "/%s", name);
		}
		if (n >= cap)
			break;
	}
}

/* ------------------------------------------------------------ findings */

static struct lt_report_finding *finding_new(struct lt_report *r, enum lt_finding_kind kind,
					     const char *rule)
{
	if ((r->n_findings & (r->n_findings - 1)) == 0) { /* doubling: linear in the count */
		size_t cap = r->n_findings ? 2 * r->n_findings : 1;
		struct lt_report_finding *v = realloc(r->findings, cap * sizeof(*v));
		if (!v) {
			P(r)->oom = 1;
			return NULL;
		}
		r->findings = v;
	}
	struct lt_report_finding *f = &r->findings[r->n_findings++];
	memset(f, 0, sizeof(*f));
	f->kind = kind;
	f->rule = rule;
	f->fd = -1;
	return f;
}

static void f_summary(struct lt_report_finding *f, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
static void f_summary(struct lt_report_finding *f, const char *fmt, ...)
{
	va_list ap;
	va_start(ap, fmt);
	free(f->summary);
	f->summary = vtext(fmt, ap);
	va_end(ap);
}

static void f_ev(struct lt_report_finding *f, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
static void f_ev(struct lt_report_finding *f, const char *fmt, ...)
{
	va_list ap;
	va_start(ap, fmt);
	vec_addv(&f->evidence, &f->n_evidence, fmt, ap);
	va_end(ap);
}

static void f_tid(struct lt_report_finding *f, uint32_t tid)
{
	for (size_t i = 0; i < f->n_tids; i++)
		if (f->tids[i] == tid)
			return;
	if ((f->n_tids & (f->n_tids - 1)) == 0) { /* doubling: linear in the count */
		uint32_t *v = realloc(f->tids, (f->n_tids ? 2 * f->n_tids : 1) * sizeof(*v));
		if (!v)
			return;
		f->tids = v;
	}
	f->tids[f->n_tids++] = tid;
}

/* Unlike tids, locks may repeat (deadlock: parallel to tids). */
static void f_lock(struct lt_report_finding *f, uint64_t addr, int dedup)
{
	for (size_t i = 0; dedup && i < f->n_locks; i++)
		if (f->locks[i] == addr)
			return;
	if ((f->n_locks & (f->n_locks - 1)) == 0) { /* doubling: linear in the count */
		uint64_t *v = realloc(f->locks, (f->n_locks ? 2 * f->n_locks : 1) * sizeof(*v));
		if (!v)
			return;
		f->locks = v;
	}
	f->locks[f->n_locks++] = addr;
}

static void f_group(struct lt_report_finding *f, const struct rgroup *g)
{
	for (unsigned i = 0; i < g->pub.n_words; i++)
		f_lock(f, g->pub.words[i], 1);
}

static const char *kind_text(const char *k)
{
	if (!k)
		return "futex";
	if (!strcmp(k, "condvar"))
		return "condition variable";
	if (!strcmp(k, "pi_mutex"))
		return "PI mutex";
	if (!strcmp(k, "join"))
		return "a thread's tid, pthread_join";
	return k;
}

/* "rtlock+0x50/+0x54 (0x5587e9e021b0, condition variable)" */
static const char *gname(const struct rgroup *g, char *buf, size_t len)
{
	const char *k = kind_text(g->pub.kind ? g->pub.kind : group_kind(g));
	const char *a = g->keytext; /* "0x...", or what a key of another process stands for */
	if (g->rt_kind[0])
		snprintf(buf, len, "the %.47s %.40s (%.60s, %.34s)", g->rt_kind, g->rt_name,
			 g->pub.symbol[0] ? g->pub.symbol : "?", a);
	else if (g->pub.symbol[0])
		snprintf(buf, len, "%s (%s, %s)", g->pub.symbol, a, k);
	else if (g->pub.n_words > 1)
		snprintf(buf, len, "%s and the next %u words (%s)", a, g->pub.n_words - 1, k);
	else
		snprintf(buf, len, "%s (%s)", a, k);
	return buf;
}

/* The symbol a group's words are in ("rtlock" for "rtlock+0x50/+0x54"). */
static int sym_base(struct lt_report *r, const struct rgroup *g, char *buf, size_t len)
{
	char s[128];
	uint64_t off;
	snprintf(s, sizeof(s), "%s", g->pub.symbol);
	char *slash = strchr(s, '/');
	if (slash)
		*slash = 0;
	return s[0] && parse_sym(P(r), s, buf, len, &off);
}

/* Other locks whose words the snapshot names with the same symbol: parts of
 * one object (a runtime lock's mutex and condition variable). */
static void related_ev(struct lt_report *r, struct lt_report_finding *f, const struct rgroup *g)
{
	char base[128], b2[128], gn[200];
	if (!sym_base(r, g, base, sizeof(base)))
		return;
	for (size_t i = 0; i < P(r)->ngr; i++) {
		const struct rgroup *o = P(r)->gr[i];
		if (o == g || !sym_base(r, o, b2, sizeof(b2)) || strcmp(base, b2))
			continue;
		char tot[32];
		rp_fmt_dur(o->pub.total_ns, tot, sizeof(tot));
		f_ev(f, "part of the same object %s: %s, %" PRIu64 " waits (%s in all), %" PRIu64 " wake calls, %u waiting at the end",
		     base, gname(o, gn, sizeof(gn)), o->pub.waits, tot, o->pub.wake_calls, o->n_end);
	}
}

static const char *tname(const struct rthread *t, char *buf, size_t len)
{
	char n[LT_COMM_LEN * 4];
	rp_clean_name(t->pub.rt_name ? t->pub.rt_name : t->pub.name, n, sizeof(n));
	if (t->other_proc)
		snprintf(buf, len, "%u (%s) of process %u", t->pub.tid, n, t->pub.tgid);
	else
		snprintf(buf, len, "%u (%s)", t->pub.tid, n);
	return buf;
}

static uint64_t end_since(const struct rthread *t)
{
	return t->pub.end_since;
}

static uint64_t dur_to_end(const struct lt_report *r, uint64_t since)
{
	return since && r->end_ts > since ? r->end_ts - since : 0;
}

/* What a thread is doing at the end, as a phrase: "blocked in read(fd 132,
 * 8192) since 2108.348769 (1.93 s)". */
static void doing(struct lt_report *r, const struct rthread *t, char *buf, size_t len)
{
	char call[256], ts[32], d[32];
	const struct lt_report_thread *p = &t->pub;
	rp_fmt_ts(p->end_since, ts, sizeof(ts));
	rp_fmt_dur(dur_to_end(r, p->end_since), d, sizeof(d));
	switch (p->end_state) {
	case LT_RTS_IN_CALL:
		rp_fmt_call(r, &p->end_call, call, sizeof(call));
		snprintf(buf, len, "%s %s since %s (%s)", t->pub.asleep ? "blocked in" : "in", call,
			 p->end_since ? ts : "before the trace", d);
		break;
	case LT_RTS_RUNNING:
		snprintf(buf, len, "running since %s (%s)", ts, d);
		break;
	case LT_RTS_RUNNABLE:
		snprintf(buf, len, "runnable but not running (preempted or waiting for a cpu) since %s (%s)",
			 ts, d);
		break;
	case LT_RTS_SLEEPING:
		if (t->snap && t->snap->sc_name)
			snprintf(buf, len, "asleep in %s (not traced) since %s (%s)", t->snap->sc_name, ts, d);
		else
			snprintf(buf, len, "asleep outside the traced calls since %s (%s)", ts, d);
		break;
	case LT_RTS_EXITED:
		snprintf(buf, len, "exited at %s", ts);
		break;
	default:
		snprintf(buf, len, "in an unknown state");
	}
}

static int is_lock_waiter(const struct rthread *t)
{
	return t->pub.end_state == LT_RTS_IN_CALL && t->end_group && !t->join_wait;
}

/* A holder known from memory or from the events, not guessed. */
static int holder_evidenced(const struct rgroup *g)
{
	return g->end_holder && (g->end_holder_src == 1 || g->end_holder_src == 2);
}

/* A threading.Lock or RLock the CPython thread model named (rtthread.h). */
static int python_lock(const struct rp_snap_thread *t)
{
	return t->lock_kind &&
	       (!strcmp(t->lock_kind, "threading.Lock") || !strcmp(t->lock_kind, "threading.RLock"));
}

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
		if ((t->snap->runtime || python_lock(t->snap)) && t->snap->lock_kind && !g->rt_kind[0]) {
			snprintf(g->rt_kind, sizeof(g->rt_kind), "%s", t->snap->lock_kind);
			snprintf(g->rt_name, sizeof(g->rt_name), "%s",
				 t->snap->lock_name ? t->snap->lock_name : "?");
		}
		if (t->snap->owner <= 0 || ((!t->snap->owner_kind || !strcmp(t->snap->owner_kind, "none") ||
					     !strcmp(t->snap->owner_kind, "unknown")) && !t->snap->owner_pid))
			continue;
		struct rthread *o = thread_of(r, (uint32_t)t->snap->owner);
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

static const char *holder_how(struct lt_report *r, const struct rgroup *g, char *buf, size_t len)
{
	struct rthread *h = P(r)->th[g->end_holder - 1];
	char ts[32], ws[64] = "";
	if (g->end_holder_src == 1) {
		char dis[96] = "";
		/* where the event rule disagrees, say so */
		if (g->holder && g->holder != g->end_holder)
			snprintf(dis, sizeof(dis), "; the event rule would name %u", P(r)->th[g->holder - 1]->pub.tid);
		else if (!g->holder)
			snprintf(dis, sizeof(dis), "; the event rule names nobody (the holder's acquire was not "
				 "seen as a wait)");
		for (size_t i = 0; i < g->n_mem; i++) {
			struct rthread *t = g->mem[i];
			if (!t->snap || t->snap->owner != (int32_t)h->pub.tid)
				continue;
			if (t->snap->runtime)
				snprintf(buf, len, "the snapshot read it from the runtime's own state (%s%s%s)%s",
					 t->snap->lock_kind ? t->snap->lock_kind : "runtime lock",
					 t->snap->rt_how ? ": " : "", t->snap->rt_how ? t->snap->rt_how : "", dis);
			else if (t->snap->owner_pid)
				snprintf(buf, len, "the snapshot read its owner (the process-shared mutex's "
					 "__owner, a thread of process %d)%s", t->snap->owner_pid, dis);
			else
				snprintf(buf, len, "the snapshot read its owner (%s)%s", t->snap->owner_kind, dis);
			return buf;
		}
		snprintf(buf, len, "the snapshot read its owner%s", dis);
		return buf;
	}
	if (g->end_holder_src == 3) {
		snprintf(buf, len, "inferred from the snapshot, which records no owner for this lock: of the threads "
				   "not waiting on it, only this one runs the waiters' code (%s) and is blocked in a call",
			 g->infer_func);
		return buf;
	}
	rp_fmt_ts(g->acq_ts, ts, sizeof(ts));
	if (g->acq_waker)
		snprintf(ws, sizeof(ws), ", woken by %u", g->acq_waker);
	snprintf(buf, len, "its wait on the lock returned at %s%s; it has neither woken nor waited on it since",
		 ts, ws);
	return buf;
}

/* up to max tids, "2047, 2048, ... (63)" */
static void tid_list(struct lt_report *r, struct rgroup *g, char *buf, size_t len, unsigned max)
{
	size_t n = 0;
	unsigned k = 0;
	buf[0] = 0;
	for (size_t i = 0; i < g->n_mem; i++) {
		struct rthread *t = g->mem[i];
		if (!is_lock_waiter(t))
			continue;
		if (k < max && n < len)
			n += (size_t)snprintf(buf + n, len - n, "%s%u", k ? ", " : "", t->pub.tid);
		k++;
	}
	if (k > max && n < len)
		snprintf(buf + n, len - n, ", ... (%u threads)", k);
}

static void last_calls_ev(struct lt_report *r, struct lt_report_finding *f, const struct rthread *t,
			  uint64_t after, const char *label)
{
	char line[1024], c[256], ts[32];
	size_t n = (size_t)snprintf(line, sizeof(line), "%s", label);
	int any = 0;
	for (unsigned k = 0; k < t->ring_n; k++) {
		const struct lt_report_call *x = &t->ring[(t->ring_pos + r->opts.last_n - t->ring_n + k) %
							  r->opts.last_n];
		if (x->begin < after)
			continue;
		rp_fmt_call(r, x, c, sizeof(c));
		rp_fmt_ts(x->begin, ts, sizeof(ts));
		if (n < sizeof(line))
			n += (size_t)snprintf(line + n, sizeof(line) - n, "%s%s %s", any ? "; " : " ", ts, c);
		any = 1;
	}
	if (any)
		f_ev(f, "%s", line);
}

static void snap_ev(struct lt_report *r, struct lt_report_finding *f, const struct rthread *t)
{
	char ts[32], tn[96];
	if (!t->snap)
		return;
	rp_fmt_ts(r->snapshot_ts, ts, sizeof(ts));
	if (t->snap->detail)
		f_ev(f, "snapshot at %s: %s %s%s%s", ts, tname(t, tn, sizeof(tn)), t->snap->detail,
		     t->snap->where ? "; at " : "", t->snap->where ? t->snap->where : "");
}

/* ---- deadlock ---- */

static struct rthread *waits_for(struct lt_report *r, struct rthread *t)
{
	if (t->pub.end_state != LT_RTS_IN_CALL || !t->end_group || !t->pub.asleep)
		return NULL;
	struct rgroup *g = P(r)->gr[t->end_group - 1];
	if (!g->end_holder)
		return NULL;
	return P(r)->th[g->end_holder - 1];
}

static void rule_deadlock(struct lt_report *r)
{
	struct lt_report_priv *p = P(r);
	uint8_t *color = calloc(p->nth, 1); /* 0 new, 1 on the current path, 2 done */
	struct rthread **path = calloc(p->nth + 1, sizeof(*path));
	if (!color || !path) {
		free(color);
		free(path);
		p->oom = 1;
		return;
	}
	for (size_t s = 0; s < p->nth; s++) {
		size_t n = 0;
		struct rthread *t = p->th[s];
		while (t && !color[t->idx]) {
			color[t->idx] = 1;
			path[n++] = t;
			t = waits_for(r, t);
		}
		if (t && color[t->idx] == 1) { /* a cycle from t to the path's end */
			size_t k = 0;
			while (path[k] != t)
				k++;
			struct lt_report_finding *f = finding_new(r, LT_FIND_DEADLOCK, "cycle");
			if (f) {
				char line[2048], tn[96], tn2[96], gn[200], ts[32], d[32], how[256];
				size_t m = 0;
				uint64_t since = 0;
				for (size_t i = k; i < n; i++) {
					struct rthread *a = path[i], *b = waits_for(r, a);
					struct rgroup *g = p->gr[a->end_group - 1];
					g->in_cycle = 1;
					f_tid(f, a->pub.tid);
					f_lock(f, a->pub.end_call.addr, 0);
					if (!since || (end_since(a) && end_since(a) < since))
						since = end_since(a);
					m += (size_t)snprintf(line + m, m < sizeof(line) ? sizeof(line) - m : 0,
							      "%s -> ", tname(a, tn, sizeof(tn)));
					rp_fmt_ts(end_since(a), ts, sizeof(ts));
					rp_fmt_dur(dur_to_end(r, end_since(a)), d, sizeof(d));
					f_ev(f, "thread %s waits for lock %s since %s (%s), held by thread %s: %s",
					     tname(a, tn, sizeof(tn)), gname(g, gn, sizeof(gn)),
					     end_since(a) ? ts : "before the trace", d, tname(b, tn2, sizeof(tn2)),
					     holder_how(r, g, how, sizeof(how)));
				}
				if (m < sizeof(line))
					snprintf(line + m, sizeof(line) - m, "%u", t->pub.tid);
				f->since = since;
				f->duration_ns = dur_to_end(r, since);
				f_summary(f, "deadlock: %zu thread%s wait for each other: %s", n - k,
					  n - k == 1 ? "" : "s", line);
				for (size_t i = k; i < n; i++)
					snap_ev(r, f, path[i]);
			}
		}
		for (size_t i = 0; i < n; i++)
			color[path[i]->idx] = 2;
	}
	free(color);
	free(path);
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

static void rule_holder_blocked(struct lt_report *r, struct rgroup *g)
{
	struct lt_report_priv *p = P(r);
	char gn[200], tn[96], how[700], what[512], ts[32], d[32], list[512], hn[200];
	struct rthread *h = p->th[g->end_holder - 1];
	struct rgroup *path[MAX_CHAIN];
	unsigned np = 0;
	/* follow holders that themselves wait for a lock to the one that does
	 * something else: only through holders known from memory or events
	 * (a guess stops the chain), and never round a loop (rule_deadlock
	 * reports those it can prove) */
	while (is_lock_waiter(h) && h->pub.asleep && np < MAX_CHAIN) {
		struct rgroup *g2 = p->gr[h->end_group - 1];
		if (!holder_evidenced(g2) || g2->in_cycle || g2 == g || on_path(path, np, g2))
			break;
		path[np++] = g2;
		h = p->th[g2->end_holder - 1];
	}
	const char *rule;
	const char *title;
	const struct lt_report_thread *hp = &h->pub;
	if (hp->end_state == LT_RTS_IN_CALL && hp->end_call.kind == LT_EV_IO_ENTER) {
		rule = "io";
		title = "lock holder blocked in I/O";
	} else if (hp->end_state == LT_RTS_IN_CALL && hp->end_call.kind == LT_EV_WAIT_ENTER) {
		rule = "poll";
		title = "lock holder blocked in select/poll";
	} else if (hp->end_state == LT_RTS_IN_CALL && (hp->end_call.flags & LT_SPAN_LOCK_WAIT)) {
		rule = "waits";
		title = "lock holder waits on another lock";
	} else if (hp->end_state == LT_RTS_IN_CALL) {
		rule = "in_call";
		title = "lock holder inside a call";
	} else if (hp->end_state == LT_RTS_RUNNABLE) {
		rule = "preempted";
		title = "lock holder preempted";
	} else if (hp->end_state == LT_RTS_RUNNING) {
		rule = "running";
		title = "lock holder still running";
	} else if (hp->end_state == LT_RTS_SLEEPING) {
		rule = "sleep";
		title = "lock holder asleep outside the traced calls";
	} else if (hp->end_state == LT_RTS_EXITED) {
		rule = "exited";
		title = "lock holder exited";
	} else {
		rule = "unknown";
		title = "lock held by a thread in an unknown state";
	}
	struct lt_report_finding *f = finding_new(r, LT_FIND_HOLDER_BLOCKED, rule);
	if (!f)
		return;
	g->has_finding = 1;
	f->holder = hp->tid;
	if (hp->end_state == LT_RTS_IN_CALL && hp->end_call.kind == LT_EV_IO_ENTER)
		f->fd = hp->end_call.fd;
	f_group(f, g);
	doing(r, h, what, sizeof(what));
	gname(g, gn, sizeof(gn));
	tname(h, hn, sizeof(hn));
	uint64_t quiet = g->pub.last_wake_ts, qs = queue_since(r, g);
	rp_fmt_dur(dur_to_end(r, quiet ? quiet : g->end_oldest), d, sizeof(d));
	char chain[256] = "", nobody[160];
	if (np)
		snprintf(chain, sizeof(chain), " (through %u more lock%s)", np, np == 1 ? "" : "s");
	if (qs < g->end_oldest && !quiet) {
		/* a runtime lock whose waiters retry in timed waits (CPython's GIL
		 * every 5 ms): no single wait is long, the queue is */
		rp_fmt_dur(dur_to_end(r, qs), d, sizeof(d));
		snprintf(nobody, sizeof(nobody), "its waiters retry in timed waits and nobody has woken it in the "
			 "trace; the holder has kept it for at least %s", d);
	} else if (quiet) {
		snprintf(nobody, sizeof(nobody), "nobody has woken the lock for %s", d);
	} else {
		snprintf(nobody, sizeof(nobody), "no wake-up on it in the trace, the first waiter has waited %s", d);
	}
	f_summary(f, "%s: %u thread%s wait%s on %s; its %sholder%s %s is %s; %s", title, g->n_end,
		  g->n_end == 1 ? "" : "s", g->n_end == 1 ? "s" : "", gn,
		  g->end_holder_src == 3 ? "probable " : "", chain, hn, what, nobody);
	f->since = hp->end_since ? hp->end_since : g->end_oldest;
	f->duration_ns = dur_to_end(r, f->since);

	/* the waiters */
	tid_list(r, g, list, sizeof(list), 12);
	rp_fmt_ts(g->end_oldest, ts, sizeof(ts));
	char op[64] = "";
	for (size_t i = 0; i < g->n_mem; i++) {
		struct rthread *t = g->mem[i];
		if (is_lock_waiter(t)) {
			f_tid(f, t->pub.tid);
			if (!op[0])
				lt_futex_op_name(t->pub.end_call.op & ~0x180u, t->pub.end_call.nr, op, sizeof(op));
		}
	}
	f_tid(f, p->th[g->end_holder - 1]->pub.tid);
	f_tid(f, hp->tid);
	f_ev(f, "%u thread%s asleep in %s on %s, the longest since %s: %s", g->n_end_asleep,
	     g->n_end_asleep == 1 ? "" : "s", op[0] ? op : "futex waits", gn,
	     g->end_oldest ? ts : "before the trace", list);
	struct rthread *h0 = p->th[g->end_holder - 1];
	f_ev(f, "holder: %s: %s", tname(h0, tn, sizeof(tn)), holder_how(r, g, how, sizeof(how)));
	for (unsigned i = 0; i < np; i++) {
		struct rthread *hh = p->th[path[i]->end_holder - 1];
		char g2[200], tn2[96];
		f_ev(f, "which waits on %s, held by %s: %s", gname(path[i], g2, sizeof(g2)),
		     tname(hh, tn2, sizeof(tn2)), holder_how(r, path[i], how, sizeof(how)));
		f_lock(f, path[i]->pub.addr, 1);
		f_tid(f, hh->pub.tid);
	}
	if (quiet) {
		rp_fmt_ts(quiet, ts, sizeof(ts));
		f_ev(f, "the last wake-up on the lock: %u woke %u at %s; none since (%s)", g->pub.last_waker,
		     g->pub.last_wakee, ts, d);
	} else {
		f_ev(f, "no wake-up on the lock was recorded in the trace");
	}
	if (g->end_holder_src == 2)
		last_calls_ev(r, f, h0, g->acq_ts ? g->acq_ts - 1 : 0, "the holder's calls since it took the lock:");
	if (h != h0)
		last_calls_ev(r, f, h, 0, "the last holder's last calls:");
	snap_ev(r, f, h);
	related_ev(r, f, g);
}

/* ---- lost wake-ups ---- */

static void rule_lost_wakeup(struct lt_report *r, struct rgroup *g)
{
	struct lt_report_priv *p = P(r);
	char gn[200], tn[96], tn2[96], ts[32], ts2[32], d[32], list[512];
	gname(g, gn, sizeof(gn));

	/* (a) a wake that woke nobody while a waiter was about to sleep */
	for (size_t i = 0; i < g->n_mem; i++) {
		struct rthread *t = g->mem[i];
		const struct lt_report_call *c = &t->pub.end_call;
		if (!is_lock_waiter(t) || !t->pub.asleep || !t->w0_tid ||
		    c->woken_by || (g->pub.last_wake_ts && g->pub.last_wake_ts >= c->begin) ||
		    (double)dur_to_end(r, c->begin) < r->opts.stall_s * 1e9)
			continue;
		struct lt_report_finding *f = finding_new(r, LT_FIND_LOST_WAKEUP, "woke_nobody");
		if (!f)
			return;
		g->has_finding = 1;
		f->since = c->begin;
		f->duration_ns = dur_to_end(r, c->begin);
		f->holder = t->w0_tid;
		f_group(f, g);
		f_tid(f, t->pub.tid);
		f_tid(f, t->w0_tid);
		rp_fmt_ts(t->w0_ts, ts, sizeof(ts));
		rp_fmt_ts(c->begin, ts2, sizeof(ts2));
		rp_fmt_dur(f->duration_ns, d, sizeof(d));
		int64_t gap = (int64_t)(c->begin - t->w0_ts);
		char gp[32];
		rp_fmt_dur((uint64_t)(gap < 0 ? -gap : gap), gp, sizeof(gp));
		f_summary(f, "lost wake-up on %s: thread %u's wake at %s woke nobody while thread %s was about to sleep on it; %u has slept %s since",
			  gn, t->w0_tid, ts, tname(t, tn, sizeof(tn)), t->pub.tid, d);
		f_ev(f, "%u's futex wake on %s at %s returned 0 (woke nobody)", t->w0_tid, gn, ts);
		f_ev(f, "%s entered its wait on it at %s (%s %s the wake) and was asleep by then or soon after",
		     tname(t, tn, sizeof(tn)), ts2, gp, gap >= 0 ? "after" : "before");
		f_ev(f, "nobody has woken %s since: %u is still asleep at the end (%s)", gn, t->pub.tid, d);
		snap_ev(r, f, t);
	}
	if (g->has_finding)
		return;

	/* (b) a waiter sleeping on a word that has since changed */
	for (size_t i = 0; i < g->n_mem; i++) {
		struct rthread *t = g->mem[i];
		const struct rp_snap_thread *s = t->snap;
		const struct lt_report_call *c = &t->pub.end_call;
		if (!is_lock_waiter(t) || !s || !s->has_futex || !s->is_wait ||
		    s->is_pi || !s->word_ok || !s->expected_ok || s->word == s->expected ||
		    (c->nr == LT_NR_FUTEX && (c->op & LT_FUTEX_CMD_MASK) != LT_FUTEX_WAIT &&
		     (c->op & LT_FUTEX_CMD_MASK) != LT_FUTEX_WAIT_BITSET))
			continue;
		uint64_t since = end_since(t);
		if ((double)dur_to_end(r, since) < r->opts.stall_s * 1e9 ||
		    (g->pub.last_wake_ts && g->pub.last_wake_ts >= since))
			continue;
		struct lt_report_finding *f = finding_new(r, LT_FIND_LOST_WAKEUP, "word_changed");
		if (!f)
			return;
		g->has_finding = 1;
		f->since = since;
		f->duration_ns = dur_to_end(r, since);
		f_group(f, g);
		f_tid(f, t->pub.tid);
		rp_fmt_ts(since, ts, sizeof(ts));
		rp_fmt_ts(r->snapshot_ts, ts2, sizeof(ts2));
		rp_fmt_dur(f->duration_ns, d, sizeof(d));
		f_summary(f, "lost wake-up on %s: thread %s sleeps expecting the word to be %u, but it is %u and nobody woke it (asleep %s)",
			  gn, tname(t, tn, sizeof(tn)), s->expected, s->word, d);
		f_ev(f, "%s has slept in %s on 0x%" PRIx64 " since %s, expecting the value %u", tname(t, tn, sizeof(tn)),
		     s->op_name ? s->op_name : "a futex wait", s->uaddr, since ? ts : "before the trace", s->expected);
		f_ev(f, "the snapshot at %s read the word as %u: it changed after the thread went to sleep", ts2,
		     s->word);
		if (g->pub.last_wake_ts) {
			rp_fmt_ts(g->pub.last_wake_ts, ts, sizeof(ts));
			f_ev(f, "the last wake-up on the lock was at %s, before this wait began", ts);
		} else {
			f_ev(f, "no wake-up on the lock was recorded in the trace");
		}
		snap_ev(r, f, t);
	}
	if (g->has_finding || g->end_holder || !g->last_holder || g->pub.longest_chain < 2)
		return;

	/* (c) released without a wake: a lock its threads hand to each other
	 * (a woken waiter later woke the next one) has waiters and no holder;
	 * the last holder let it go while one of them already waited */
	struct rthread *h = p->th[g->last_holder - 1], *w = NULL, *oldest = NULL;
	for (size_t i = 0; i < g->n_mem; i++) {
		struct rthread *t = g->mem[i];
		if (!is_lock_waiter(t) || !t->pub.asleep || t == h)
			continue;
		uint64_t b = t->pub.end_call.begin;
		if (b >= g->last_acq && (!g->rel_ts || b <= g->rel_ts) && (!w || b < w->pub.end_call.begin))
			w = t;
		if (!oldest || b < oldest->pub.end_call.begin)
			oldest = t;
	}
	if (!oldest || (double)dur_to_end(r, g->end_oldest) < r->opts.stall_s * 1e9)
		return;
	/* without a waiter that queued while the last holder had it, its own
	 * acquire may have been invisible (taken without waiting): the lock is
	 * still free while its waiters sleep, which is what is reported */
	struct lt_report_finding *f = finding_new(r, LT_FIND_LOST_WAKEUP,
						  w ? "released_without_wake" : "free_with_waiters");
	if (!f)
		return;
	g->has_finding = 1;
	g->lost_release = 1;
	f->holder = h->pub.tid;
	f->since = (w ? w : oldest)->pub.end_call.begin;
	f->duration_ns = dur_to_end(r, f->since);
	f_group(f, g);
	f_tid(f, h->pub.tid);
	f_tid(f, (w ? w : oldest)->pub.tid);
	for (size_t i = 0; i < g->n_mem; i++)
		if (is_lock_waiter(g->mem[i]))
			f_tid(f, g->mem[i]->pub.tid);
	rp_fmt_dur(dur_to_end(r, g->pub.last_wake_ts ? g->pub.last_wake_ts : g->end_oldest), d, sizeof(d));
	if (w)
		f_summary(f, "lost wake-up on %s: %u thread%s wait on it and none holds it; its last holder %s let it go without waking %s, who had queued while it held the lock; nobody has woken it for %s",
			  gn, g->n_end, g->n_end == 1 ? "" : "s", tname(h, tn, sizeof(tn)), tname(w, tn2, sizeof(tn2)), d);
	else
		f_summary(f, "lost wake-up on %s: %u thread%s sleep on it while it is free (nobody holds it by the event rule); nobody has woken it for %s; the last thread to take it was %s",
			  gn, g->n_end, g->n_end == 1 ? "" : "s", d, tname(h, tn, sizeof(tn)));
	rp_fmt_ts(g->last_acq, ts, sizeof(ts));
	char by[64] = "";
	if (g->last_acq_waker)
		snprintf(by, sizeof(by), " (woken by %u)", g->last_acq_waker);
	f_ev(f, "%u took the lock at %s%s: its wait on it returned", h->pub.tid, ts, by);
	if (w) {
		rp_fmt_ts(w->pub.end_call.begin, ts, sizeof(ts));
		f_ev(f, "%s queued on it at %s, while %u held it, and was never woken", tname(w, tn2, sizeof(tn2)),
		     ts, h->pub.tid);
	}
	rp_fmt_ts(g->rel_ts, ts2, sizeof(ts2));
	if (g->rel_kind == REL_WAIT)
		f_ev(f, "%u woke nobody on the lock and waited on it itself at %s", h->pub.tid, ts2);
	else if (g->rel_kind == REL_WAKE)
		f_ev(f, "%u's wake on the lock at %s woke %" PRId64 " thread%s", h->pub.tid, ts2, g->rel_woken,
		     g->rel_woken == 1 ? "" : "s");
	else if (g->rel_kind == REL_EXIT)
		f_ev(f, "%u exited at %s without waking it", h->pub.tid, ts2);
	last_calls_ev(r, f, h, g->last_acq ? g->last_acq - 1 : 0, "its calls since it took the lock:");
	tid_list(r, g, list, sizeof(list), 12);
	rp_fmt_ts(g->end_oldest, ts, sizeof(ts));
	f_ev(f, "%u thread%s asleep on %s since %s or later: %s", g->n_end_asleep, g->n_end_asleep == 1 ? "" : "s",
	     gn, ts, list);
	if (g->pub.last_wake_ts) {
		rp_fmt_ts(g->pub.last_wake_ts, ts, sizeof(ts));
		f_ev(f, "the last wake-up on the lock: %u woke %u at %s", g->pub.last_waker, g->pub.last_wakee, ts);
	}
	rp_fmt_ts(g->pub.chain_begin, ts, sizeof(ts));
	f_ev(f, "its threads hand it to each other (a thread woken on it wakes the next): %" PRIu64 " hand-offs, up to %u in a row",
	     g->pub.handoffs, g->pub.longest_chain);
	related_ev(r, f, g);
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
	return !is_lock_waiter(t) || holder_evidenced(P(r)->gr[t->end_group - 1]);
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
		if (!is_lock_waiter(w) || !w->snap)
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
static void infer_holder(struct lt_report *r, struct rgroup *g)
{
	struct rthread *cand = suspect(r, g);
	const char *func = NULL;

	if (!cand)
		return;
	/* the first of its functions that a waiter runs, waiters in order */
	const struct rp_snap_thread *s = cand->snap;
	for (size_t j = 0; j < g->n_mem && !func; j++) {
		const struct rthread *w = g->mem[j];
		if (!is_lock_waiter(w) || !w->snap)
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

/* What the snapshot read of a Python lock: its semaphore, and the threads
 * whose frames keep it (where its holder probably is). */
static void python_lock_ev(struct lt_report *r, struct lt_report_finding *f, const struct rgroup *g)
{
	struct lt_report_priv *p = P(r);
	for (size_t i = 0; i < p->nth; i++) {
		const struct rthread *t = p->th[i];
		if (t->end_group == g->idx + 1 && t->snap && python_lock(t->snap) && t->snap->lock_state) {
			f_ev(f, "the snapshot read the %s: %s", t->snap->lock_kind, t->snap->lock_state);
			return;
		}
	}
}

/* With no holder known, what every thread not waiting on the lock is
 * doing usually shows who keeps it (the one blocked in a read) or that
 * nobody does. */
static void others_ev(struct lt_report *r, struct lt_report_finding *f, const struct rgroup *g)
{
	char line[2048], what[512], tn[96];
	size_t n = 0;
	unsigned k = 0, more = 0;
	/* the first 8 in thread order and a count of the rest: the walk
	 * stops there, past at most the group's own threads */
	uint32_t others = P(r)->n_alive - g->n_mem_alive;
	for (size_t i = 0; i < P(r)->nth && k < 8; i++) {
		const struct rthread *t = P(r)->th[i];
		if (t->end_group == g->idx + 1 || t->pub.end_state == LT_RTS_EXITED)
			continue;
		k++;
		doing(r, t, what, sizeof(what));
		if (n < sizeof(line))
			n += (size_t)snprintf(line + n, sizeof(line) - n, "%s%s %s", k > 1 ? "; " : "",
					      tname(t, tn, sizeof(tn)), what);
	}
	if (!k)
		return;
	more = others > k ? others - k : 0;
	if (more && n < sizeof(line))
		snprintf(line + n, sizeof(line) - n, "; and %u more", more);
	f_ev(f, "the threads not waiting on it: %s", line);
}

static void rule_stalled_waiters(struct lt_report *r, struct rgroup *g)
{
	char gn[200], ts[32], d[32], list[512], what[512], tn[96];
	uint64_t quiet = g->pub.last_wake_ts ? g->pub.last_wake_ts : g->end_oldest;
	if (!g->n_end_asleep || (double)dur_to_end(r, quiet) < r->opts.stall_s * 1e9 ||
	    (double)dur_to_end(r, g->end_oldest) < r->opts.stall_s * 1e9)
		return;
	struct lt_report_finding *f = finding_new(r, LT_FIND_STALLED_WAITERS, "no_waker");
	if (!f)
		return;
	g->has_finding = 1;
	gname(g, gn, sizeof(gn));
	f->since = g->end_oldest;
	f->duration_ns = dur_to_end(r, g->end_oldest);
	f_group(f, g);
	for (size_t i = 0; i < g->n_mem; i++)
		if (is_lock_waiter(g->mem[i]))
			f_tid(f, g->mem[i]->pub.tid);
	rp_fmt_dur(dur_to_end(r, quiet), d, sizeof(d));
	f_summary(f, "%u thread%s wait on %s and nobody has woken it for %s; no holder is known", g->n_end,
		  g->n_end == 1 ? "" : "s", gn, d);
	tid_list(r, g, list, sizeof(list), 12);
	rp_fmt_ts(g->end_oldest, ts, sizeof(ts));
	f_ev(f, "asleep on it since %s or later: %s", g->end_oldest ? ts : "before the trace", list);
	if (g->pub.last_wake_ts) {
		struct rthread *w = thread_of(r, g->pub.last_waker);
		rp_fmt_ts(g->pub.last_wake_ts, ts, sizeof(ts));
		f_ev(f, "the last wake-up on it: %u woke %u at %s", g->pub.last_waker, g->pub.last_wakee, ts);
		if (w && !is_lock_waiter(w)) {
			doing(r, w, what, sizeof(what));
			f_ev(f, "that waker, %s, is now %s", tname(w, tn, sizeof(tn)), what);
			f->holder = w->pub.tid;
		}
	} else if (!strcmp(g->rt_kind, "threading.Lock")) {
		f_ev(f, "no wake-up on it was recorded in the trace, and a threading.Lock records no holder");
	} else {
		f_ev(f, "no wake-up on it was recorded in the trace: an idle pool parked on a condition variable looks like this");
	}
	python_lock_ev(r, f, g);
	others_ev(r, f, g);
}

static void rule_convoy(struct lt_report *r, struct rgroup *g)
{
	unsigned n = r->opts.convoy_min;
	char gn[200], ts[32], ts2[32], med[32], p99[32], mx[32], tot[32];
	if (g->pub.max_moving < n || g->pub.handoffs < n || g->pub.longest_chain < n)
		return;
	struct lt_report_finding *f = finding_new(r, LT_FIND_CONVOY, "handoff_queue");
	if (!f)
		return;
	gname(g, gn, sizeof(gn));
	f_group(f, g);
	f->since = g->pub.chain_begin;
	f->duration_ns = g->pub.chain_end > g->pub.chain_begin ? g->pub.chain_end - g->pub.chain_begin : 0;
	rp_fmt_dur(g->pub.median_ns, med, sizeof(med));
	rp_fmt_dur(g->pub.p99_ns, p99, sizeof(p99));
	rp_fmt_dur(g->pub.max_ns, mx, sizeof(mx));
	rp_fmt_dur(g->pub.total_ns, tot, sizeof(tot));
	f_summary(f, "convoy on %s: up to %u threads queued while it was handed on, up to %u hand-offs in a row; %" PRIu64 " waits, %s in total (median %s, p99 %s)",
		  gn, g->pub.max_moving, g->pub.longest_chain, g->pub.waits, tot, med, p99);
	rp_fmt_ts(g->pub.max_moving_ts, ts, sizeof(ts));
	f_ev(f, "%u threads were queued on it at %s when it was handed to the next one", g->pub.max_moving, ts);
	rp_fmt_ts(g->pub.chain_begin, ts, sizeof(ts));
	rp_fmt_ts(g->pub.chain_end, ts2, sizeof(ts2));
	f_ev(f, "from %s to %s each thread woken on it woke the next one: %u hand-offs in a row", ts, ts2,
	     g->pub.longest_chain);
	f_ev(f, "%" PRIu64 " hand-offs in all; %u distinct waiters, %u distinct wakers; longest wait %s",
	     g->pub.handoffs, g->pub.n_waiters, g->pub.n_wakers, mx);
}

static void rule_offcpu(struct lt_report *r, struct rgroup *g)
{
	char gn[200], ts[32], d[32], c[256];
	if (!g->pub.offcpu_count)
		return;
	/* a holder that released the lock without a wake still looks like
	 * the holder until it waits again: that is the lost wake-up, not an
	 * incident */
	if (g->lost_release && g->last_holder && g->off_tid == P(r)->th[g->last_holder - 1]->pub.tid &&
	    g->off_ts >= g->last_acq)
		return;
	struct lt_report_finding *f = finding_new(r, LT_FIND_HOLDER_OFFCPU,
						  g->off_kind == OFF_PREEMPTED ? "preempted" : "blocked");
	if (!f)
		return;
	gname(g, gn, sizeof(gn));
	f_group(f, g);
	f_tid(f, g->off_tid);
	f->holder = g->off_tid;
	f->since = g->off_ts;
	f->duration_ns = g->pub.offcpu_max_ns;
	rp_fmt_dur(g->pub.offcpu_max_ns, d, sizeof(d));
	rp_fmt_ts(g->off_ts, ts, sizeof(ts));
	if (g->off_kind == OFF_PREEMPTED) {
		f_summary(f, "lock holder preempted: the holder of %s was preempted %" PRIu64 " time%s for %.1f ms or more while others waited for it; worst: %u, %s at %s with %u waiting",
			  gn, g->pub.offcpu_count, g->pub.offcpu_count == 1 ? "" : "s", r->opts.incident_ms,
			  g->off_tid, d, ts, g->off_waiters);
	} else {
		if (g->off_in_call) {
			rp_fmt_call(r, &g->off_call, c, sizeof(c));
			f->fd = g->off_call.kind == LT_EV_IO_ENTER ? g->off_call.fd : -1;
		} else {
			snprintf(c, sizeof(c), "an untraced call");
		}
		f_summary(f, "lock holder blocked while holding: the holder of %s slept %" PRIu64 " time%s for %.1f ms or more while others waited for it; worst: %u in %s for %s at %s with %u waiting",
			  gn, g->pub.offcpu_count, g->pub.offcpu_count == 1 ? "" : "s", r->opts.incident_ms,
			  g->off_tid, c, d, ts, g->off_waiters);
	}
	f_ev(f, "holder by the event rule: the last thread whose wait on the lock returned and that has not woken or waited on it since");
}

static void rule_stall(struct lt_report *r)
{
	struct lt_report_priv *p = P(r);
	char ts[32], d[32], c[256], tn[96];
	uint64_t longest = 0;
	unsigned futex = 0, io = 0, poll = 0, other = 0, running = 0, runnable = 0, alive = 0;
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
		else if (x->end_state == LT_RTS_IN_CALL && x->end_call.kind == LT_EV_IO_ENTER)
			io++;
		else if (x->end_state == LT_RTS_IN_CALL)
			poll++;
		else
			other++;
		if (is_lock_waiter(t) && t->pub.asleep && dur_to_end(r, x->end_since) > longest)
			longest = dur_to_end(r, x->end_since);
	}
	uint64_t quiet = dur_to_end(r, p->prog_ts ? p->prog_ts : r->start_ts);
	int fired = r->have_stats && r->stop_reason == LT_STOP_STALL;
	if (!fired && ((double)longest < r->opts.stall_s * 1e9 || (double)quiet < r->opts.stall_s * 1e9))
		return;
	struct lt_report_finding *f = finding_new(r, LT_FIND_STALL, fired ? "detector" : "no_progress");
	if (!f)
		return;
	f->since = p->prog_ts ? p->prog_ts : r->start_ts;
	f->duration_ns = quiet;
	rp_fmt_dur(quiet, d, sizeof(d));
	rp_fmt_ts(f->since, ts, sizeof(ts));
	char when[96];
	snprintf(when, sizeof(when), p->prog_ts ? "since %s" : "since the trace began at %s", ts);
	f_summary(f, "stall: no lock hand-off and no blocking call succeeded for %s (%s); at the end %u of %u threads are in futex waits, %u in socket I/O, %u in select/poll, %u asleep elsewhere, %u running, %u runnable",
		  d, when, futex, alive, io, poll, other, running, runnable);
	if (fired)
		f_ev(f, "the recorder's stall detector fired and wrote this trace (its rule: docs/flight-recorder.md)");
	if (p->prog_ts) {
		rp_fmt_call(r, &p->prog_call, c, sizeof(c));
		struct rthread *t = thread_of(r, p->prog_tid);
		if (p->prog_kind == 1)
			f_ev(f, "the last progress: %s's %s woke %u at %s",
			     t ? tname(t, tn, sizeof(tn)) : "?", c, p->prog_other, ts);
		else
			f_ev(f, "the last progress: %s's %s returned at %s", t ? tname(t, tn, sizeof(tn)) : "?", c, ts);
	}
	f_ev(f, "the last calls of every thread are listed under \"threads at the end\"");
}

/* The lock key of a verdict's lock k: the word is in the process of the
 * thread at the same place (a cycle's tids and locks are parallel), or of
 * its first thread. */
static uint64_t verdict_lock_key(struct lt_report *r, const struct rp_snap_verdict *v, size_t k)
{
	size_t i = k < v->n_tids ? k : 0;
	const struct rthread *t = v->n_tids ? thread_of(r, (uint32_t)v->tids[i]) : NULL;
	return lt_lockid_key(lt_timeline_lockid(P(r)->tl), t ? t->pub.tgid : P(r)->pid, v->locks[k], 0);
}

static int snapshot_covered(struct lt_report *r, const struct rp_snap_verdict *v)
{
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
		if (!v->kind || (strcmp(v->kind, "deadlock") && strcmp(v->kind, "lost_wakeup") &&
				 strcmp(v->kind, "convoy") && strcmp(v->kind, "lock_wait")))
			continue;
		if (snapshot_covered(r, v))
			continue;
		struct lt_report_finding *f = finding_new(r, LT_FIND_SNAPSHOT, v->kind);
		if (!f)
			return;
		f_summary(f, "snapshot at %s: %s", ts, v->summary ? v->summary : v->kind);
		for (size_t k = 0; k < v->n_evidence; k++)
			f_ev(f, "%s", v->evidence[k]);
		for (size_t k = 0; k < v->n_tids; k++)
			f_tid(f, (uint32_t)v->tids[k]);
		for (size_t k = 0; k < v->n_locks; k++)
			f_lock(f, v->locks[k], 0);
		f->holder = (uint32_t)(v->owner > 0 ? v->owner : 0);
		f->since = r->snapshot_ts;
	}
}

/* ---------------------------------------------------------------- finish */

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
	x->asleep = t->state == TS_BLOCKED;
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
		/* blocked since before the events begin (a flight dump's ring
		 * starts late): the snapshot says in what */
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
			struct rgroup *g = group_of(r, c->addr, 1);
			if (g) {
				struct lt_futex_enter fe = { .uaddr = s->uaddr, .op = s->op, .val = s->expected,
							     .nr = (uint16_t)s->nr, .val3 = 0xffffffffu };
				t->end_group = g->idx + 1;
				count_kind(r, g, t, &fe);
			}
		} else if (s->io_fd >= 0) {
			c->kind = LT_EV_IO_ENTER;
			c->fd = s->io_fd;
			c->socket = (uint8_t)s->io_socket;
		} else {
			c->kind = LT_EV_FUTEX_ENTER;
			c->addr = s->uaddr;
		}
		uint64_t b = s->blocked_s >= 0 ? (uint64_t)(s->blocked_s * 1e9) : 0;
		c->begin = b && b < r->snapshot_ts ? r->snapshot_ts - b : 0;
		c->end = r->end_ts;
		x->has_end_call = 1;
		x->end_state = LT_RTS_IN_CALL;
		x->end_since = c->begin;
		x->asleep = 1;
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
		uint64_t b = t->snap->blocked_s >= 0 ? (uint64_t)(t->snap->blocked_s * 1e9) : 0;
		x->end_since = b && b < r->snapshot_ts ? r->snapshot_ts - b : 0;
		x->asleep = 1;
	} else {
		x->end_state = LT_RTS_UNKNOWN;
	}
	if (x->end_state == LT_RTS_IN_CALL && t->end_group && x->end_call.kind == LT_EV_FUTEX_ENTER) {
		/* pthread_join sleeps on the joined thread's tid word */
		uint32_t v = x->end_call.val;
		if (v && v != x->tid && thread_of(r, v))
			t->join_wait = 1;
	}
}

static int cmp_lock(const void *a, const void *b)
{
	const struct lt_report_lock *x = a, *y = b;
	if (x->total_ns != y->total_ns)
		return x->total_ns < y->total_ns ? 1 : -1;
	if (x->wake_calls != y->wake_calls)
		return x->wake_calls < y->wake_calls ? 1 : -1;
	return (x->addr > y->addr) - (x->addr < y->addr);
}

static int cmp_thread(const void *a, const void *b)
{
	const struct lt_report_thread *x = a, *y = b;
	if (x->tid != y->tid)
		return (x->tid > y->tid) - (x->tid < y->tid);
	return (x->first_ts > y->first_ts) - (x->first_ts < y->first_ts);
}

static int cmp_edge(const void *a, const void *b)
{
	const struct lt_report_edge *x = a, *y = b;
	if (x->count != y->count)
		return x->count < y->count ? 1 : -1;
	if (x->waker != y->waker)
		return (x->waker > y->waker) - (x->waker < y->waker);
	return (x->wakee > y->wakee) - (x->wakee < y->wakee);
}

static int cmp_finding(const void *a, const void *b)
{
	const struct lt_report_finding *x = a, *y = b;
	if (x->kind != y->kind)
		return (x->kind > y->kind) - (x->kind < y->kind);
	return (x->since > y->since) - (x->since < y->since);
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

int lt_report_finish(struct lt_report *r)
{
	struct lt_report_priv *p = P(r);
	if (p->finished)
		return 0;
	p->finished = 1;
	const struct lt_timeline_stats *st = lt_timeline_stats(p->tl);
	/* the last events are still in the timeline's sorting window: its
	 * last time is known once they are interpreted */
	lt_timeline_finish(p->tl, p->stats_end);
	uint64_t end = st->last_ts;
	if (p->stats_end > end)
		end = p->stats_end;
	r->start_ts = lt_timeline_start(p->tl);
	r->end_ts = end > r->start_ts ? end : r->start_ts;
	r->inferred_ends = st->inferred_ends;
	r->orphan_exits = st->orphan_exits;
	r->late_events = st->late;

	/* close the books: time up to the end, states at the end */
	for (size_t i = 0; i < p->nth; i++) {
		struct rthread *t = p->th[i];
		if (!t->pub.first_ts)
			t->pub.first_ts = r->start_ts;
		if (!t->pub.exited)
			acct(t, r->end_ts);
		t->off_group = 0; /* still off the cpu at the end: the end rules tell */
		end_state(r, t);
		uint64_t span = t->pub.last_ts > t->pub.first_ts ? t->pub.last_ts - t->pub.first_ts : 0;
		uint64_t known = t->pub.running_ns + t->pub.runnable_ns + t->pub.futex_ns + t->pub.poll_ns +
				 t->pub.io_ns + t->pub.other_ns;
		t->pub.unknown_ns = span > known ? span - known : 0;
		if (t->snap) {
			t->pub.snap_detail = t->snap->detail ? strdup(t->snap->detail) : NULL;
			t->pub.snap_where = t->snap->where ? strdup(t->snap->where) : NULL;
		}
		const char *rn = lt_u64map_get(&p->rtnames, t->pub.tid);
		t->pub.rt_name = rn ? strdup(rn) : NULL;
	}
	for (size_t i = 0; i < p->ngr; i++) {
		struct rgroup *g = p->gr[i];
		group_symbol(r, g);
		g->pub.kind = group_kind(g);
		g->pub.median_ns = hquantile(g->hist, g->pub.waits, 0.5, g->min_ns, g->pub.max_ns);
		g->pub.p99_ns = hquantile(g->hist, g->pub.waits, 0.99, g->min_ns, g->pub.max_ns);
		if (g->holder) {
			g->pub.holder = p->th[g->holder - 1]->pub.tid;
			g->pub.holder_since = g->acq_ts;
		}
	}
	for (size_t i = 0; i < p->nth; i++) {
		struct rthread *t = p->th[i];
		if (!is_lock_waiter(t))
			continue;
		struct rgroup *g = p->gr[t->end_group - 1];
		g->n_end++;
		g->n_end_asleep += t->pub.asleep;
		if (t->pub.asleep && (!g->end_oldest || (t->pub.end_since && t->pub.end_since < g->end_oldest)))
			g->end_oldest = t->pub.end_since;
	}
	if (group_members(p))
		return -ENOMEM;
	for (size_t i = 0; i < p->ngr; i++)
		if (p->gr[i]->n_end)
			end_holder(r, p->gr[i]);

	/* the rules, most specific first: a lock gets one finding about its
	 * waiters at the end */
	rule_deadlock(r);
	for (size_t i = 0; i < p->ngr; i++) {
		struct rgroup *g = p->gr[i];
		if (!g->n_end_asleep || g->in_cycle)
			continue;
		/* a holder the snapshot read from the runtime's memory: the lock
		 * is not free, whatever the events suggest */
		if (!(g->end_holder_src == 1 && g->rt_kind[0]))
			rule_lost_wakeup(r, g);
		if (!g->has_finding && !g->end_holder && !g->pub.last_wake_ts)
			infer_holder(r, g);
		if (!g->has_finding && g->end_holder &&
		    (double)dur_to_end(r, queue_since(r, g)) >= r->opts.stall_s * 1e9)
			rule_holder_blocked(r, g);
		if (!g->has_finding)
			rule_stalled_waiters(r, g);
	}
	rule_stall(r);
	for (size_t i = 0; i < p->ngr; i++) {
		rule_offcpu(r, p->gr[i]);
		rule_convoy(r, p->gr[i]);
	}
	rule_snapshot(r);
	if (r->n_findings)
		qsort(r->findings, r->n_findings, sizeof(*r->findings), cmp_finding);

	/* public tables */
	r->locks = calloc(p->ngr ? p->ngr : 1, sizeof(*r->locks));
	r->threads = calloc(p->nth ? p->nth : 1, sizeof(*r->threads));
	r->edges = calloc(p->ned ? p->ned : 1, sizeof(*r->edges));
	if (!r->locks || !r->threads || !r->edges)
		return -ENOMEM;
	for (size_t i = 0; i < p->ngr; i++)
		r->locks[i] = p->gr[i]->pub;
	r->n_locks = p->ngr;
	qsort(r->locks, r->n_locks, sizeof(*r->locks), cmp_lock);
	for (size_t i = 0; i < p->nth; i++) {
		struct rthread *t = p->th[i];
		struct lt_report_thread *x = &r->threads[i];
		*x = t->pub;
		t->pub.snap_detail = t->pub.snap_where = t->pub.rt_name = NULL; /* moved */
		x->n_last = t->ring_n;
		x->last = calloc(t->ring_n ? t->ring_n : 1, sizeof(*x->last));
		if (!x->last)
			return -ENOMEM;
		for (unsigned k = 0; k < t->ring_n; k++)
			x->last[k] = t->ring[(t->ring_pos + r->opts.last_n - t->ring_n + k) % r->opts.last_n];
	}
	r->n_threads = p->nth;
	qsort(r->threads, r->n_threads, sizeof(*r->threads), cmp_thread);
	if (rp_procs_finish(r))
		p->oom = 1;
	for (size_t i = 0; i < p->ned; i++) {
		r->edges[i] = p->ed[i].pub;
		struct rthread *w = thread_of(r, r->edges[i].waker);
		struct rthread *e = thread_of(r, r->edges[i].wakee);
		if (w)
			memcpy(r->edges[i].waker_name, w->pub.name, LT_COMM_LEN);
		if (e)
			memcpy(r->edges[i].wakee_name, e->pub.name, LT_COMM_LEN);
	}
	r->n_edges = p->ned;
	qsort(r->edges, r->n_edges, sizeof(*r->edges), cmp_edge);
	r->losses = p->loss;
	r->n_losses = p->nloss;
	p->loss = NULL;
	if (!r->lost_total)
		for (size_t i = 0; i < r->n_losses; i++)
			r->lost_total += r->losses[i].count;

	if (!r->clean_end) {
		char at[32];
		rp_fmt_ts(r->end_ts, at, sizeof(at));
		add_note(r, "the trace is cut at %s (%s): what happened after %s is missing, losses included; "
			 "this report covers it up to there, its last good chunk, and \"at the end\" means at the cut",
			 at, r->stop_why[0] ? r->stop_why : "no end marker", at);
	}
	if (r->late_events)
		add_note(r, "%" PRIu64 " events arrived later than the sorting window allows; their order may be approximate",
			 r->late_events);
	if (r->hdr_flags & LT_HDR_FLIGHT)
		add_note(r, "a flight-recorder dump: it holds the last stretch of time before the dump, so calls and waits that began earlier are missing or start at the ring's beginning");
	if (!p->have_snap)
		add_note(r, "no snapshot in the trace (a launched target has none at attach, a cut trace may have lost it): lock owners and the stacks of threads asleep before the events began are unknown");
	return p->oom ? -ENOMEM : 0;
}

const char *lt_report_thread_name(const struct lt_report *r, uint32_t tid, const char *comm)
{
	size_t lo = 0, hi = r->n_threads;
	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;
		const struct lt_report_thread *t = &r->threads[mid];
		if (t->tid == tid)
			return t->rt_name ? t->rt_name : comm ? comm : t->name;
		if (t->tid < tid)
			lo = mid + 1;
		else
			hi = mid;
	}
	return comm ? comm : "";
}

void lt_report_free(struct lt_report *r)
{
	if (!r)
		return;
	struct lt_report_priv *p = r->priv;
	if (p) {
		lt_timeline_free(p->tl);
		for (size_t i = 0; i < p->nth; i++) {
			free(p->th[i]->ring);
			free(p->th[i]->pub.snap_detail);
			free(p->th[i]->pub.snap_where);
			free(p->th[i]->pub.rt_name);
			free(p->th[i]);
		}
		free(p->th);
		for (size_t i = 0; i < p->ngr; i++) {
			free(p->gr[i]->hist);
			free(p->gr[i]->mem);
			free(p->gr[i]);
		}
		free(p->gr);
		free(p->fidx);
		rmap_free(&p->tmap);
		rmap_free(&p->amap);
		rmap_free(&p->seen);
		rmap_free(&p->emap);
		free(p->ed);
		free(p->loss);
		if (p->have_snap)
			rp_snapshot_clear(&p->snap);
		for (size_t i = 0; i < p->rtnames.cap; i++)
			if (p->rtnames.keys[i])
				free(p->rtnames.vals[i]);
		lt_u64map_free(&p->rtnames);
		for (size_t i = 0; i < p->nsyms; i++)
			free(p->syms[i].text);
		free(p->span);
		free(p->span_max);
		free(p->syms);
		rmap_free(&p->smap);
		free(p);
	}
	for (size_t i = 0; i < r->n_findings; i++) {
		struct lt_report_finding *f = &r->findings[i];
		free(f->summary);
		for (size_t k = 0; k < f->n_evidence; k++)
			free(f->evidence[k]);
		free(f->evidence);
		free(f->tids);
		free(f->locks);
	}
	free(r->findings);
	free(r->locks);
	for (size_t i = 0; i < r->n_stored; i++)
		free(r->stored[i].json);
	free(r->stored);
	for (size_t i = 0; i < r->n_threads; i++) {
		free(r->threads[i].last);
		free(r->threads[i].snap_detail);
		free(r->threads[i].snap_where);
		free(r->threads[i].rt_name);
	}
	free(r->threads);
	free(r->procs);
	free(r->edges);
	free(r->losses);
	for (size_t i = 0; i < r->n_notes; i++)
		free(r->notes[i]);
	free(r->notes);
	free(r);
}

const char *lt_finding_kind_name(enum lt_finding_kind k)
{
	switch (k) {
	case LT_FIND_DEADLOCK: return "deadlock";
	case LT_FIND_LOST_WAKEUP: return "lost_wakeup";
	case LT_FIND_HOLDER_BLOCKED: return "holder_blocked";
	case LT_FIND_STALL: return "stall";
	case LT_FIND_HOLDER_OFFCPU: return "holder_offcpu";
	case LT_FIND_CONVOY: return "convoy";
	case LT_FIND_STALLED_WAITERS: return "stalled_waiters";
	case LT_FIND_SNAPSHOT: return "snapshot";
	}
	return "unknown";
}

const char *lt_report_tstate_name(enum lt_report_tstate s)
{
	switch (s) {
	case LT_RTS_RUNNING: return "running";
	case LT_RTS_RUNNABLE: return "runnable";
	case LT_RTS_IN_CALL: return "in_call";
	case LT_RTS_SLEEPING: return "sleeping";
	case LT_RTS_EXITED: return "exited";
	default: return "unknown";
	}
}
