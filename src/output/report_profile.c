// SPDX-License-Identifier: MIT
/* `locktrace report --profile` (report_profile.h): each wait of the
 * timeline that has a stack (STACKS sections) is charged to its (lock,
 * stack) pair; each futex wait ended by a wake-up whose waker's stack was
 * copied at the wake (`--calls blocking --stacks`) is charged to its
 * (lock, releasing stack) pair; the pairs are ranked by total wait time.
 * The other formats write the waiting pairs: folded stacks, or a gzipped
 * pprof Profile (field numbers of perftools.profiles, proto/profile.proto
 * in github.com/google/pprof) encoded with src/base/pb.h. */
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>
#include <zlib.h>
#include "locksyms.h"
#include "snapfacts.h"
#include "pb.h"
#include "report.h"
#include "report_profile.h"
#include "rt_idle.h"
#include "stacks.h"
#include "strtab.h"
#include "timeline.h"
#include "u64map.h"
#include "utf8.h"
#include "locktrace/tracefile.h"
#include "grow.h"

struct entry {
	uint64_t lock;      /* futex address (a runtime lock's object when
	                       rtlock is set; the lowest word's lock key when
	                       grp is set), or 0 for another wait */
	uint32_t grp;       /* the report's lock of several adjacent futex
	                       words this one is of (rp_group_of): its index in
	                       struct lt_report.locks + 1, 0 none */
	const char *rtlock; /* the runtime lock, in its terms, where the futex
	                       does not name it (struct lt_stack_ref) */
	const char *call;   /* a non-futex wait: its call's name (static) */
	int32_t fd;         /* a socket wait: its fd, else -1 */
	uint32_t stack_id;
	uint32_t tgid;
	uint64_t total_ns, max_ns, count;
	/* of count, waits under way when the trace began (LT_SPAN_AT_START):
	 * charged from the trace's start; how long they had waited before
	 * it, as far as the header's snapshot knew (0 for each not known) */
	uint64_t early, early_before_ns, early_unknown;
	int idle;           /* a runtime's own idle wait, ranked last: 1 the Go
			       scheduler's (go_idle), 2 another's (rt_idle) */
	/* of count and total_ns, the waits under 1 ms with a stack (a sample
	 * of those, --stack-sample): how many, how long; what they stand
	 * for (struct scale), and whether that is an estimate (est: their
	 * lock had short waits without a stack), which total_ns and count
	 * hold once the trace is read (scale_finish) */
	uint64_t short_n, short_ns;
	double short_est_n, short_est_ns;
	int est;
	/* in a table of short waits by lock (struct scale's pop): those of
	 * them with a stack; total_ns and count: all of them */
	uint64_t samp_n, samp_ns;
};

/* (lock, stack) pairs and their totals */
struct table {
	struct lt_u64map idx; /* key -> entry index + 1 */
	struct entry *e;
	size_t n, cap;
};

/* The waits under 1 ms of a table: only a sample of them have a stack
 * (1 in --stack-sample N, and of those only the ones still asleep when
 * read), but the events give every one's lock and length.  pop: by lock
 * (the entry's lock, call and fd, no stack), all of them (total_ns,
 * count) and those with a stack (samp_ns, samp_n); s: each of those,
 * its entry and its lock's.  Once the trace is read each lock's short
 * waits' total is shared among its sampled stacks in proportion to their
 * sampled time: exact per lock, an estimate per stack. */
struct sampled {
	size_t entry, pop;
	uint64_t dur;
};
struct scale {
	struct table pop;
	struct sampled *s;
	size_t ns, caps;
	uint64_t unsampled_n, unsampled_ns; /* of locks none of whose were sampled */
	uint64_t all_n, all_ns, samp_n;
};

/* A futex wait ended by a wake-up issued from a call (its span id): the
 * waker's stack is known once that call's span has ended, which may come
 * before or after the wait's. */
struct caused {
	uint64_t waker_span;
	uint64_t lock;
	uint32_t grp;
	const char *rtlock;
	uint32_t tgid;
	uint64_t dur;
	int at_start;
};

/* A futex lock (an entry's lock, grp, tgid) known to be a CPython GIL,
 * and how it is known: a stored snapshot read the GIL over its words
 * (snap), else a waiting stack in CPython's GIL acquire or a releasing
 * stack in its release (func, release). */
struct gilmark {
	uint64_t lock;
	uint32_t grp, tgid;
	const char *func; /* static: one of GIL_TAKE or GIL_DROP */
	int release;
	char snap[200];   /* "" none */
};

/* A lock of several adjacent futex words, as the text report's analysis
 * of the trace found it (struct lt_report_lock, kept without the rest of
 * that analysis), with its keys as the report prints them */
struct pgroup {
	uint64_t addr;       /* its lowest word's lock key */
	uint64_t words[8];
	unsigned n_words;
	char key[56];        /* addr for people: "0xa5b8f0" */
	char wkey[8][56];    /* each word's */
	char symbol[128];    /* "" or "_PyRuntime+0x1b0/+0x1b4/+0x1b8" */
	char kind[48];       /* "condvar" ... */
};

/* A thread's wake-ups from futex calls since it last went on a cpu (the
 * locks and the threads they woke, a few of each), and when it was then
 * switched out runnable to one of those threads (0 not): a release that
 * handed its cpu to the thread it woke (CPython's drop_gil, whose waiter
 * runs at once on the releaser's cpu). */
#define RELRUN_LOCKS 4
#define RELRUN_WAKEES 8
struct relrun {
	uint32_t tgid, nlk, nwakee;
	uint64_t lock[RELRUN_LOCKS];
	uint32_t grp[RELRUN_LOCKS];
	uint32_t wakee[RELRUN_WAKEES];
	uint64_t out_ts;
};

/* Such times runnable, summed per process and set of locks (the first of
 * them that is a GIL gets the sum): as many as there are distinct sets,
 * however long the recording */
struct relrun_iv {
	uint64_t lock[RELRUN_LOCKS];
	uint32_t grp[RELRUN_LOCKS];
	uint32_t nlk, tgid;
	uint64_t ns, n;
};

struct prof {
	const struct lt_stacktab *stacks;
	struct gilmark *gil;
	size_t ngil, capgil;
	/* the text report's locks of several words: adjacent futex words
	 * used together (a condition variable's) are one lock there
	 * (rp_group_of), and one here, so that the two agree */
	struct pgroup *grp;
	size_t ngrp;
	struct lt_u64map word_lock; /* a futex word's lock key -> index in grp + 1 */
	/* the CPython GILs the trace's snapshots read */
	struct rp_extent *gilx;
	size_t ngilx;
	struct table wait, release;
	struct scale wscale, rscale; /* the short waits of wait, release */
	struct lt_u64map waker_stack; /* a waking call's span id -> its stack id */
	struct caused *c;
	size_t nc, capc;
	uint64_t waits, with_stack, wait_ns, stack_ns;
	uint64_t early; /* waits with a stack under way when the trace began */
	uint64_t early_all; /* waits under way when the trace began, with a stack or not */
	uint64_t long_waits, long_with_stack; /* of 1 ms or more */
	uint64_t idle_ns;                     /* of the go_idle waits */
	uint64_t rt_idle_ns;                  /* of the rt_idle waits */
	uint64_t released, released_ns;       /* of the nc: with the waker's stack */
	uint64_t caused_ns;
	/* the releasers switched out runnable to the thread they woke */
	struct lt_u64map relrun_of; /* tid -> index in relrun + 1 */
	struct relrun *relrun;
	size_t nrelrun, caprelrun;
	struct relrun_iv *reliv;
	size_t nreliv, capreliv;
	struct lt_u64map reliv_idx; /* hash of a relrun_iv's key -> index + 1 */
	int oom;
};

struct entry_query {
	const struct table *t;
	struct entry want;
};

static int same_entry(const void *val, const void *ctx)
{
	const struct entry_query *q = ctx;
	const struct entry *e = &q->t->e[(size_t)(uintptr_t)val - 1];
	return e->lock == q->want.lock && e->grp == q->want.grp && e->stack_id == q->want.stack_id && e->fd == q->want.fd &&
	       e->call == q->want.call && e->tgid == q->want.tgid &&
	       (e->rtlock == q->want.rtlock ||
		(e->rtlock && q->want.rtlock && !strcmp(e->rtlock, q->want.rtlock)));
}

static struct entry *charge(struct prof *p, struct table *t, uint64_t lock, uint32_t grp, const char *rtlock,
			    const char *call, int32_t fd, uint32_t stack_id, uint32_t tgid, uint64_t dur)
{
	struct entry_query q = { t, { .lock = lock, .grp = grp, .rtlock = rtlock, .call = call, .fd = fd,
				      .stack_id = stack_id, .tgid = tgid } };
	uint64_t key;
	size_t i = (size_t)(uintptr_t)lt_u64map_find(
		&t->idx,
		(lock * 0x9E3779B97F4A7C15ull) ^ ((uint64_t)stack_id << 32) ^ (uint32_t)fd ^
			(uint64_t)(uintptr_t)call ^ tgid,
		same_entry, &q, &key);
	if (i) {
		struct entry *e = &t->e[i - 1];
		e->total_ns += dur;
		e->count++;
		if (dur > e->max_ns)
			e->max_ns = dur;
		return e;
	}
	struct entry *v = lt_grow(t->e, &t->cap, t->n, sizeof(*v), 64);
	if (!v) {
		p->oom = 1;
		return NULL;
	}
	t->e = v;
	t->e[t->n] = (struct entry){ .lock = lock, .grp = grp, .rtlock = rtlock, .call = call, .fd = fd,
				     .stack_id = stack_id,
				     .tgid = tgid, .total_ns = dur, .max_ns = dur, .count = 1 };
	if (lt_u64map_put(&t->idx, key, (void *)(uintptr_t)(t->n + 1))) {
		p->oom = 1;
		return NULL;
	}
	return &t->e[t->n++];
}

static void table_free(struct table *t)
{
	free(t->e);
	lt_u64map_free(&t->idx);
}

/* A wait of table t (dur long, e its entry when it has a stack, else
 * NULL) on lock (lock, grp, rtlock, call, fd of process tgid, as the events give
 * it): one of the short waits of sc when under 1 ms and begun in the
 * trace (one under way at the start has its stack read whatever its
 * length: no sample; at_start also set for a call the recorder does not
 * sample). */
static void note_short(struct prof *p, struct scale *sc, const struct table *t, const struct entry *e,
		       uint64_t lock, uint32_t grp, const char *rtlock, const char *call, int32_t fd, uint32_t tgid,
		       uint64_t dur, int at_start)
{
	if (dur >= 1000000 || at_start)
		return;
	struct entry *k = charge(p, &sc->pop, lock, grp, rtlock, call, fd, 0, tgid, dur);
	sc->all_n++;
	sc->all_ns += dur;
	if (!k || !e)
		return;
	k->samp_n++;
	k->samp_ns += dur;
	sc->samp_n++;
	struct sampled *v = lt_grow(sc->s, &sc->caps, sc->ns, sizeof(*v), 64);
	if (!v) {
		p->oom = 1;
		return;
	}
	sc->s = v;
	sc->s[sc->ns++] = (struct sampled){ (size_t)(e - t->e), (size_t)(k - sc->pop.e), dur };
}

/* Each sampled short wait of t stands for its share of its lock's short
 * waits: its time scaled by their total time over the sampled time, and
 * count / sampled count waits (both exact for the lock): the entries' totals
 * become the estimates, est set where some short wait had no stack. */
static void scale_finish(struct scale *sc, struct table *t)
{
	for (size_t i = 0; i < sc->ns; i++) {
		const struct sampled *x = &sc->s[i];
		const struct entry *k = &sc->pop.e[x->pop];
		struct entry *e = &t->e[x->entry];
		double f = k->samp_ns ? (double)k->total_ns / (double)k->samp_ns : 1.0;
		e->short_n++;
		e->short_ns += x->dur;
		e->short_est_ns += (double)x->dur * f;
		e->short_est_n += k->samp_n ? (double)k->count / (double)k->samp_n : 1.0;
		e->est |= k->count > k->samp_n;
	}
	for (size_t i = 0; i < t->n; i++) {
		struct entry *e = &t->e[i];
		if (!e->short_n)
			continue;
		e->total_ns = e->total_ns - e->short_ns + (uint64_t)(e->short_est_ns + 0.5);
		e->count = e->count - e->short_n + (uint64_t)(e->short_est_n + 0.5);
	}
	for (size_t i = 0; i < sc->pop.n; i++)
		if (!sc->pop.e[i].samp_n) {
			sc->unsampled_n += sc->pop.e[i].count;
			sc->unsampled_ns += sc->pop.e[i].total_ns;
		}
}

/* The lock a futex call's word is charged to: the report's lock of
 * several adjacent words that holds it (*grp its index + 1, the lock key
 * of its lowest word returned), else the word's own address (*grp 0). */
static uint64_t futex_lock(const struct prof *p, const struct lt_span *s, uint32_t *grp)
{
	*grp = s->futex_key ? (uint32_t)(uintptr_t)lt_u64map_get(&p->word_lock, s->futex_key) : 0;
	return *grp ? p->grp[*grp - 1].addr : s->enter.futex.uaddr;
}

/* A futex wait ended by a wake-up from a call: the wake that ended it is
 * the latest of those from a call.  WR: the wait's own reference (its
 * runtime lock), NULL none. */
static void note_caused(struct prof *p, const struct lt_span *s, uint64_t dur, const struct lt_stack_ref *wr)
{
	if (s->enter.h.kind != LT_EV_FUTEX_ENTER || !(s->flags & LT_SPAN_WAIT))
		return;
	const struct lt_wake_edge *last = NULL;
	for (uint32_t i = 0; i < s->nwoken_by; i++)
		if (s->woken_by[i].waker_span && (!last || s->woken_by[i].ts >= last->ts))
			last = &s->woken_by[i];
	if (!last)
		return;
	struct caused *v = lt_grow(p->c, &p->capc, p->nc, sizeof(*v), 64);
	if (!v) {
		p->oom = 1;
		return;
	}
	p->c = v;
	uint32_t grp = 0;
	uint64_t lock = wr && wr->rtlock_name ? wr->rtlock : futex_lock(p, s, &grp);
	p->c[p->nc++] = (struct caused){ .waker_span = last->waker_span, .lock = lock, .grp = grp,
					 .rtlock = wr ? wr->rtlock_name : NULL, .tgid = s->tgid, .dur = dur,
					 .at_start = (s->flags & LT_SPAN_AT_START) != 0 };
	p->caused_ns += dur;
}

static const char JAVA_SLEEP[] = "Java Thread.sleep(), not a lock";

/* A JVM thread's Thread.sleep(): it sleeps on a futex word of its own
 * thread's, which a snapshot may have named for a lock the thread waited
 * for on the same word (its Parker, its ParkEvent): never charged to it. */
static bool java_sleep(const struct lt_stack *st)
{
	for (uint32_t i = 0; i < st->nframes; i++) {
		if (lt_rt_java_sleep_func(st->frames[i].func))
			return true;
	}
	return false;
}

static const char GO_IDLE_M[] = "Go scheduler: an idle M parked on its note (runtime.stopm), not a lock";
static const char GO_IDLE_NET[] = "Go scheduler: the netpoller's wait for I/O (runtime.netpoll), not a lock";
static const char GO_IDLE_SYSMON[] = "Go runtime: sysmon's sleep (runtime.sysmon), not a lock";

/* A Go scheduler's own wait, not contention: an M with no goroutine to
 * run parked on its note (runtime.stopm from findRunnable) or in the
 * netpoller's epoll_wait from findRunnable.  Goroutines that wait for a
 * sync.Mutex or a channel park in the scheduler (gopark), no futex of
 * theirs: a recording does not see those waits.  Its label, or NULL. */
static const char *go_idle(const struct lt_stack *st)
{
	bool sched = false, stopm = false, netpoll = false, sysmon = false;
	for (uint32_t i = 0; i < st->nframes; i++) {
		const char *f = st->frames[i].func;
		if (!f || strncmp(f, "runtime.", 8))
			continue;
		stopm |= !strcmp(f, "runtime.stopm") || !strcmp(f, "runtime.mPark");
		netpoll |= !strcmp(f, "runtime.netpoll");
		sysmon |= !strcmp(f, "runtime.sysmon");
		sched |= !strcmp(f, "runtime.findRunnable") || !strcmp(f, "runtime.findrunnable") ||
			 !strcmp(f, "runtime.schedule");
	}
	if (stopm)
		return GO_IDLE_M;
	if (netpoll && sched)
		return GO_IDLE_NET;
	if (sysmon)
		return GO_IDLE_SYSMON;
	return NULL;
}

/* A runtime's own thread waiting for work, not contention (rt_idle.c: the
 * waits the snapshot calls idle, known by the same functions): a JVM's
 * compiler threads in CompileQueue::get, its GC workers on their
 * semaphore, its VM thread, service threads and Reference Handler,
 * libuv's workers; the innermost LT_RT_IDLE_FRAMES native and Java frames
 * are looked at (twelve Java frames for an executor's idle worker, *POOL
 * then set: the recorder names its park blocker as a lock, which it is
 * not waiting to take).  Its label, or NULL. */
static const char *rt_idle(const struct lt_stack *st, int *pool)
{
	uint32_t nat = 0, jav = 0;
	const struct lt_sframe *callee = NULL; /* the native frame it called */
	for (uint32_t i = 0; i < st->nframes; i++) {
		const struct lt_sframe *f = &st->frames[i];
		const char *l = NULL;
		if (f->lang == LT_SFRAME_JAVA) {
			if (jav < LT_RT_IDLE_FRAMES)
				l = lt_rt_idle_java_label(f->func);
			if (!l && jav < LT_RT_IDLE_POOL_FRAMES && (l = lt_rt_idle_java_pool_label(f->func)))
				*pool = 1;
			jav++;
		} else if (nat < LT_RT_IDLE_FRAMES) {
			nat += !f->inlined; /* functions' frames counted, not their inlined calls' */
			l = lt_rt_idle_frame_label(f->func, f->module, callee ? callee->func : NULL,
						   callee ? callee->module : NULL);
			callee = f;
		}
		if (l)
			return l;
	}
	return NULL;
}

/* A futex call of thread S->tid that woke threads: noted until the thread
 * next goes on a cpu (on_sched) */
static void note_release(struct prof *p, const struct lt_span *s)
{
	if (s->enter.h.kind != LT_EV_FUTEX_ENTER || (s->flags & LT_SPAN_WAIT) || !s->nwoke)
		return;
	size_t i = (size_t)(uintptr_t)lt_u64map_get(&p->relrun_of, s->tid);
	if (!i) {
		struct relrun *v = lt_grow(p->relrun, &p->caprelrun, p->nrelrun, sizeof(*v), 16);
		if (!v || lt_u64map_put(&p->relrun_of, s->tid, (void *)(uintptr_t)(p->nrelrun + 1))) {
			p->oom = 1;
			return;
		}
		p->relrun = v;
		p->relrun[p->nrelrun] = (struct relrun){ 0 };
		i = ++p->nrelrun;
	}
	struct relrun *r = &p->relrun[i - 1];
	if (r->out_ts)
		return; /* not on a cpu: not its call */
	uint32_t grp = 0;
	uint64_t lock = futex_lock(p, s, &grp);
	r->tgid = s->tgid;
	uint32_t k = 0;
	while (k < r->nlk && (r->lock[k] != lock || r->grp[k] != grp))
		k++;
	if (k == r->nlk && r->nlk < RELRUN_LOCKS) {
		r->lock[r->nlk] = lock;
		r->grp[r->nlk++] = grp;
	}
	for (uint32_t j = 0; j < s->nwoke && r->nwakee < RELRUN_WAKEES; j++)
		r->wakee[r->nwakee++] = s->woke[j].wakee_tid;
}

struct reliv_query {
	const struct prof *p;
	const struct relrun *r;
};

static int same_reliv(const void *val, const void *ctx)
{
	const struct reliv_query *q = ctx;
	const struct relrun_iv *iv = &q->p->reliv[(size_t)(uintptr_t)val - 1];
	return iv->tgid == q->r->tgid && iv->nlk == q->r->nlk &&
	       !memcmp(iv->lock, q->r->lock, q->r->nlk * sizeof(iv->lock[0])) &&
	       !memcmp(iv->grp, q->r->grp, q->r->nlk * sizeof(iv->grp[0]));
}

/* Adds ns runnable to the sum of r's process and locks. */
static void add_relrun(struct prof *p, const struct relrun *r, uint64_t ns)
{
	uint64_t key[1 + 2 * RELRUN_LOCKS] = { ((uint64_t)r->tgid << 32) | r->nlk };
	for (uint32_t k = 0; k < r->nlk; k++) {
		key[1 + 2 * k] = r->lock[k];
		key[2 + 2 * k] = r->grp[k];
	}
	struct reliv_query q = { p, r };
	uint64_t free_key;
	size_t i = (size_t)(uintptr_t)lt_u64map_find(&p->reliv_idx, lt_fnv1a(key, (1 + 2 * r->nlk) * sizeof(key[0])),
						     same_reliv, &q, &free_key);
	if (!i) {
		struct relrun_iv *v = lt_grow(p->reliv, &p->capreliv, p->nreliv, sizeof(*v), 16);
		if (!v) {
			p->oom = 1;
			return;
		}
		p->reliv = v;
		struct relrun_iv *iv = &p->reliv[p->nreliv];
		*iv = (struct relrun_iv){ .nlk = r->nlk, .tgid = r->tgid };
		memcpy(iv->lock, r->lock, sizeof(iv->lock));
		memcpy(iv->grp, r->grp, sizeof(iv->grp));
		if (lt_u64map_put(&p->reliv_idx, free_key, (void *)(uintptr_t)(p->nreliv + 1))) {
			p->oom = 1;
			return;
		}
		i = ++p->nreliv;
	}
	p->reliv[i - 1].ns += ns;
	p->reliv[i - 1].n++;
}

/* Switches: a thread that woke threads from futex calls (note_release)
 * and is then switched out runnable, to one of the threads it woke, is
 * runnable until it is switched in again; that time is kept for the locks
 * of those calls.  Any other switch of the thread forgets its calls. */
static void on_sched(void *ctx, const struct lt_event *ev)
{
	struct prof *p = ctx;
	if (ev->h.kind != LT_EV_SWITCH || !p->nrelrun)
		return;
	size_t i = (size_t)(uintptr_t)lt_u64map_get(&p->relrun_of, ev->sw.prev_tid);
	if (i) {
		struct relrun *r = &p->relrun[i - 1];
		int runnable = (ev->h.flags & LT_F_PREEMPT) || ev->sw.prev_state == 0, to_wakee = 0;
		for (uint32_t j = 0; j < r->nwakee; j++)
			to_wakee |= r->wakee[j] == ev->sw.next_tid;
		if (runnable && to_wakee && r->nlk && !r->out_ts)
			r->out_ts = ev->h.ts;
		else
			*r = (struct relrun){ 0 };
	}
	i = (size_t)(uintptr_t)lt_u64map_get(&p->relrun_of, ev->sw.next_tid);
	if (!i)
		return;
	struct relrun *r = &p->relrun[i - 1];
	if (r->out_ts && ev->h.ts > r->out_ts)
		add_relrun(p, r, ev->h.ts - r->out_ts);
	*r = (struct relrun){ 0 }; /* on a cpu: its calls from now on */
}

static void on_span_end(void *ctx, const struct lt_span *s)
{
	struct prof *p = ctx;
	uint64_t dur = s->end_ts > s->begin_ts ? s->end_ts - s->begin_ts : 0;
	note_release(p, s);
	const struct lt_stack *ws = lt_stacktab_find(p->stacks, (int32_t)s->tid, lt_span_stack_ts(s),
						     LT_STACK_WAKER);
	if (ws && lt_u64map_put(&p->waker_stack, s->id, (void *)(uintptr_t)ws->id))
		p->oom = 1;
	const struct lt_stack_ref *wr = lt_stacktab_find_ref(p->stacks, (int32_t)s->tid, lt_span_stack_ts(s),
							     LT_STACK_WAITER);
	const struct lt_stack *st = wr ? lt_stacktab_get(p->stacks, wr->stack_id) : NULL;
	p->waits++;
	p->early_all += (s->flags & LT_SPAN_AT_START) != 0;
	p->wait_ns += dur;
	if (dur >= 1000000) {
		p->long_waits++;
		p->long_with_stack += st != NULL;
	}
	int futex = s->enter.h.kind == LT_EV_FUTEX_ENTER;
	uint32_t kgrp = 0; /* the wait's lock as the events give it */
	uint64_t klock = futex ? futex_lock(p, s, &kgrp) : 0;
	const char *kcall = futex ? NULL : lt_span_name(s);
	int32_t kfd = s->enter.h.kind == LT_EV_IO_ENTER ? s->enter.io.fd : -1;
	/* what the recorder samples (stackrec.c, is_wait): a futex wait, a
	 * wait call, an I/O call; else not a short wait of the population */
	int at_start = (s->flags & LT_SPAN_AT_START) != 0 ||
		       !(futex ? (s->flags & LT_SPAN_WAIT) != 0 :
			 s->enter.h.kind == LT_EV_WAIT_ENTER || s->enter.h.kind == LT_EV_IO_ENTER);
	if (!st) {
		note_short(p, &p->wscale, &p->wait, NULL, klock, kgrp, NULL, kcall, kfd, s->tgid, dur, at_start);
		note_caused(p, s, dur, NULL);
		return;
	}
	p->with_stack++;
	p->stack_ns += dur;
	const char *rtlock = futex ? wr->rtlock_name : NULL;
	uint32_t grp = 0;
	uint64_t lock = rtlock ? wr->rtlock : futex ? futex_lock(p, s, &grp) : 0;
	int32_t fd = s->enter.h.kind == LT_EV_IO_ENTER ? s->enter.io.fd : -1;
	const char *call = futex ? NULL : lt_span_name(s);
	const char *idle = rtlock ? NULL : go_idle(st);
	int pool = 0;
	const char *ri = futex && !idle ? rt_idle(st, &pool) : NULL;
	if (ri && rtlock && !pool)
		ri = NULL; /* a runtime lock's waiter, whatever its frames */
	if (idle) { /* one entry per kind of idle wait and stack */
		call = idle;
		lock = 0;
		grp = 0;
		fd = -1;
		p->idle_ns += dur;
	} else if (ri) {
		idle = ri;
		/* an executor's idle worker: its park blocker (the queue's
		 * Condition, a ForkJoinPool) is no lock it waits to take */
		call = idle;
		lock = 0;
		grp = 0;
		rtlock = NULL;
		p->rt_idle_ns += dur;
	} else if (futex && java_sleep(st)) {
		call = JAVA_SLEEP;
		lock = 0;
		grp = 0;
		rtlock = NULL;
	}
	/* a runtime's own idle wait (a scheduler's, a service thread's) or a
	 * sleep: its wake-up released no lock, so no release is charged */
	if (!idle && call != JAVA_SLEEP)
		note_caused(p, s, dur, wr);
	struct entry *e = charge(p, &p->wait, lock, grp, rtlock, call, fd, st->id, s->tgid, dur);
	if (e)
		note_short(p, &p->wscale, &p->wait, e, klock, kgrp, NULL, kcall, kfd, s->tgid, dur, at_start);
	if (e && (s->flags & LT_SPAN_AT_START)) {
		/* its wait is the part the trace saw, from its start */
		e->early++;
		e->early_before_ns += s->blocked_before_ns;
		e->early_unknown += !s->blocked_before_ns;
		p->early++;
	}
}

/* Every span is known: each caused wait to its waker's stack. */
static void resolve_caused(struct prof *p)
{
	for (size_t i = 0; i < p->nc; i++) {
		const struct caused *c = &p->c[i];
		uint32_t id = (uint32_t)(uintptr_t)lt_u64map_get(&p->waker_stack, c->waker_span);
		struct entry *e = NULL;
		if (id) {
			p->released++;
			p->released_ns += c->dur;
			e = charge(p, &p->release, c->lock, c->grp, c->rtlock, NULL, -1, id, c->tgid, c->dur);
			if (!e)
				continue;
		}
		/* the waker's stack is sampled as the waiter's: by the lock as
		 * the caused wait names it */
		note_short(p, &p->rscale, &p->release, e, c->lock, c->grp, c->rtlock, NULL, -1, c->tgid, c->dur,
			   c->at_start);
	}
}

/* ---- the CPython GIL ---- */

/* CPython's GIL acquire and release (3.8-3.13): take_gil and drop_gil are
 * static (often unnamed in a distribution's build: then the exported
 * caller is the innermost named frame). */
static const char *const GIL_TAKE[] = { "take_gil", "PyEval_RestoreThread", "PyEval_AcquireThread",
					 "PyEval_AcquireLock", NULL };
static const char *const GIL_DROP[] = { "drop_gil", "PyEval_SaveThread", "PyEval_ReleaseThread",
					 "PyEval_ReleaseLock", NULL };

/* Whether func is name, or a compiler's clone of it ("take_gil.lto_priv.0") */
static bool func_is(const char *func, const char *name)
{
	size_t n = strlen(name);
	return !strncmp(func, name, n) && (!func[n] || func[n] == '.');
}

/* The GIL function (of GIL_TAKE, or GIL_DROP when release) in which a
 * futex wait or wake-up's stack is: its innermost named native frame past
 * the C library's (the futex call, pthread_cond_wait, pthread_mutex_lock,
 * their wake-ups); NULL when it is another. */
static const char *gil_frame(const struct lt_stack *st, int release)
{
	for (uint32_t i = 0; st && i < st->nframes; i++) {
		const struct lt_sframe *f = &st->frames[i];
		if (f->lang != LT_SFRAME_NATIVE)
			return NULL;
		if (!f->func)
			continue;
		if (f->module && (!strncmp(f->module, "libc.", 5) || !strncmp(f->module, "libc-", 5) ||
				  !strncmp(f->module, "libpthread", 10)))
			continue;
		for (const char *const *g = release ? GIL_DROP : GIL_TAKE; *g; g++)
			if (func_is(f->func, *g))
				return *g;
		if (f->inlined) /* a helper inlined into the GIL function (a
				   build with DWARF): the function is further out */
			continue;
		return NULL;
	}
	return NULL;
}

static struct gilmark *gil_of(const struct prof *p, const struct entry *e)
{
	for (size_t i = 0; i < p->ngil; i++)
		if (p->gil[i].lock == e->lock && p->gil[i].grp == e->grp && p->gil[i].tgid == e->tgid)
			return &p->gil[i];
	return NULL;
}

static struct gilmark *gil_add(struct prof *p, const struct entry *e)
{
	struct gilmark *g = gil_of(p, e);
	if (g)
		return g;
	struct gilmark *v = lt_grow(p->gil, &p->capgil, p->ngil, sizeof(*v), 8);
	if (!v) {
		p->oom = 1;
		return NULL;
	}
	p->gil = v;
	g = &p->gil[p->ngil++];
	*g = (struct gilmark){ .lock = e->lock, .grp = e->grp, .tgid = e->tgid };
	return g;
}

/* Whether a futex entry's words lie in [base, base + size) of its process */
static bool entry_within(const struct prof *p, const struct entry *e, const struct rp_extent *x)
{
	if (x->pid > 0 && (uint32_t)x->pid != e->tgid)
		return false;
	if (!e->grp)
		return e->lock >= x->base && e->lock - x->base < x->size;
	const struct pgroup *l = &p->grp[e->grp - 1];
	for (unsigned k = 0; k < l->n_words; k++)
		if (l->words[k] >= x->base && l->words[k] - x->base < x->size)
			return true;
	return false;
}

/* Which futex locks are a CPython GIL, and how that is known: a stored
 * snapshot that read the GIL over their words, else a waiting stack in
 * CPython's GIL acquire, else a releasing stack in its release.  A lock's
 * every entry (waiting and releasing) is named by what any of them
 * shows. */
static void find_gils(struct prof *p)
{
	for (int rel = 0; rel < 2; rel++) {
		const struct table *t = rel ? &p->release : &p->wait;
		for (size_t i = 0; i < t->n; i++) {
			const struct entry *e = &t->e[i];
			if (e->call || e->rtlock || !e->lock)
				continue;
			const char *f = gil_frame(lt_stacktab_get(p->stacks, e->stack_id), rel);
			struct gilmark *g = f ? gil_add(p, e) : NULL;
			if (g && (!g->func || (g->release && !rel))) {
				g->func = f;
				g->release = rel;
			}
		}
	}
	for (size_t k = 0; k < p->ngilx; k++) {
		const struct rp_extent *x = &p->gilx[k];
		for (int rel = 0; rel < 2; rel++) {
			const struct table *t = rel ? &p->release : &p->wait;
			for (size_t i = 0; i < t->n; i++) {
				const struct entry *e = &t->e[i];
				if (e->call || e->rtlock || !e->lock || !entry_within(p, e, x))
					continue;
				struct gilmark *g = gil_add(p, e);
				if (g && !g->snap[0])
					snprintf(g->snap, sizeof(g->snap), "%s over 0x%" PRIx64 "-0x%" PRIx64,
						 x->what, x->base, x->base + x->size);
			}
		}
	}
}

/* How the profile knows g is a GIL, for the line under its entries */
static const char *gil_how(const struct gilmark *g, char *buf, size_t len)
{
	if (g->snap[0])
		snprintf(buf, len, "a snapshot in the trace read the GIL there: %s", g->snap);
	else if (g->release)
		snprintf(buf, len, "releases of it wake from %s, CPython's GIL release", g->func);
	else
		snprintf(buf, len, "its waiters wait in %s, CPython's GIL acquire", g->func);
	return buf;
}

static int by_total(const void *a, const void *b)
{
	const struct entry *x = a, *y = b;
	if (x->idle != y->idle) /* a scheduler's idle waits after the others */
		return x->idle - y->idle;
	if (x->total_ns != y->total_ns)
		return x->total_ns < y->total_ns ? 1 : -1;
	return x->stack_id < y->stack_id ? -1 : x->stack_id > y->stack_id;
}

/* A lock of several adjacent futex words (the report's, rp_group_of), as
 * the report's LOCKS table shows it: "futex 0xa5b8f0
 * <_PyRuntime+0x1b0/+0x1b4/+0x1b8> (words 0xa5b8f0 0xa5b8f4 0xa5b8f8: a
 * condvar)"; for other tools "futex 0xa5b8f0
 * _PyRuntime+0x1b0/+0x1b4/+0x1b8" (or its words, "0x10/0x14", when they
 * have no name). */
static const char *group_text(const struct prof *p, const struct entry *e, char *buf, size_t len,
			      int tools)
{
	const struct pgroup *l = &p->grp[e->grp - 1];
	size_t n = (size_t)snprintf(buf, len, "futex %s", l->key);
	if (l->symbol[0])
		n += (size_t)snprintf(buf + (n < len ? n : len), n < len ? len - n : 0,
				      tools ? " %s" : " <%s>", l->symbol);
	for (unsigned k = tools ? 1 : 0; k < l->n_words && !(tools && l->symbol[0]); k++)
		n += (size_t)snprintf(buf + (n < len ? n : len), n < len ? len - n : 0, "%s%s",
				      tools ? "/" : k ? " " : " (words ",
				      l->wkey[k]);
	if (!tools)
		snprintf(buf + (n < len ? n : len), n < len ? len - n : 0, ": %s %s)",
			 strchr("aeiou", l->kind[0]) ? "an" : "a", l->kind);
	return buf;
}

static const char *lock_text_futex(const struct prof *p, const struct entry *e,
				   const struct lt_u64map *names, char *buf, size_t len, int tools);

/* "futex 0x1234 <name>" or "poll on fd 3": what an entry waited on; for
 * other tools (tools set) "futex 0x1234 name": pprof drops what is between
 * angle brackets from a function's name, as C++ template arguments. */
static const char *lock_text(const struct prof *p, const struct entry *e,
			     const struct lt_u64map *names, char *buf, size_t len, int tools)
{
	if (e->call) {
		if (e->fd >= 0)
			snprintf(buf, len, "%s on fd %d", e->call, e->fd);
		else
			snprintf(buf, len, "%s", e->call);
		return buf;
	}
	if (e->rtlock) { /* "Java monitor Mon@0x71a3b2e40" */
		snprintf(buf, len, "%s", e->rtlock);
		return buf;
	}
	const struct gilmark *g = gil_of(p, e);
	if (g) { /* "CPython GIL: futex 0x..." */
		int n = snprintf(buf, len, tools ? "CPython GIL " : "CPython GIL: ");
		if (n > 0 && (size_t)n < len)
			lock_text_futex(p, e, names, buf + n, len - (size_t)n, tools);
		return buf;
	}
	return lock_text_futex(p, e, names, buf, len, tools);
}

/* A futex entry's lock: its words, named */
static const char *lock_text_futex(const struct prof *p, const struct entry *e,
				   const struct lt_u64map *names, char *buf, size_t len, int tools)
{
	if (e->grp)
		return group_text(p, e, buf, len, tools);
	const char *name = lt_u64map_get(names, e->lock);
	if (name)
		snprintf(buf, len, tools ? "futex 0x%" PRIx64 " %s" : "futex 0x%" PRIx64 " <%s>",
			 e->lock, name);
	else
		snprintf(buf, len, "futex 0x%" PRIx64, e->lock);
	return buf;
}

static void print_entry(FILE *out, const struct prof *p, const struct entry *e, size_t rank,
			const struct lt_u64map *names, int release)
{
	char buf[1024];
	const char *t = e->est ? "~" : ""; /* an estimate (scale_finish) */
	double cnt = e->count ? (double)e->count : 1.0;
	if (release)
		fprintf(out, "#%zu  %s%.1f ms of waiting ended by %s%" PRIu64 " release%s (average %s%.2f "
			"ms, longest %.2f ms)  ", rank, t, (double)e->total_ns / 1e6, t, e->count,
			e->count == 1 ? "" : "s", t, (double)e->total_ns / 1e6 / cnt,
			(double)e->max_ns / 1e6);
	else
		fprintf(out, "#%zu  %s%.1f ms in %s%" PRIu64 " wait%s (average %s%.2f ms, longest %.2f ms)  ",
			rank, t, (double)e->total_ns / 1e6, t, e->count, e->count == 1 ? "" : "s", t,
			(double)e->total_ns / 1e6 / cnt, (double)e->max_ns / 1e6);
	lt_text_fput(out, lock_text(p, e, names, buf, sizeof(buf), 0), (size_t)-1);
	fprintf(out, ", process %u\n", e->tgid);
	if (e->est)
		fprintf(out, "      (~ an estimate: its %" PRIu64 " %s%s under 1 ms with a stack (%.2f ms) %s a "
			"sample, standing for ~%.0f (~%.1f ms) of the lock's; the lock's total of them is exact)\n",
			e->short_n, release ? "released wait" : "wait", e->short_n == 1 ? "" : "s",
			(double)e->short_ns / 1e6, e->short_n == 1 ? "is" : "are", e->short_est_n,
			e->short_est_ns / 1e6);
	if (!release && e->early) {
		if (e->count == 1)
			fputs("      (under way when the trace began: counted from its start", out);
		else
			fprintf(out, "      (%s%" PRIu64 "%s under way when the trace began: counted from its start",
				e->early == e->count ? "all " : "", e->early, e->early == e->count ? "" : " of them");
		if (e->early_unknown < e->early)
			fprintf(out, "; %s waited %.1f ms more before it%s", e->early == 1 ? "it had" : "they had",
				(double)e->early_before_ns / 1e6,
				e->early_unknown ? " (as far as the snapshot knew)" : "");
		fputs(")\n", out);
	}
	const struct gilmark *g = gil_of(p, e);
	if (g) {
		fputs("      (the CPython GIL: ", out);
		lt_text_fput(out, gil_how(g, buf, sizeof(buf)), (size_t)-1);
		fputs(")\n", out);
	}
	const struct lt_stack *st = lt_stacktab_get(p->stacks, e->stack_id);
	for (uint32_t i = 0; st && i < st->nframes; i++) {
		fputs("      ", out);
		lt_text_fput(out, lt_sframe_text(&st->frames[i], buf, sizeof(buf)), (size_t)-1);
		fputc('\n', out);
	}
	if (st && st->end) {
		fputs("      ", out);
		lt_text_fput(out, st->end, (size_t)-1);
		fputc('\n', out);
	}
}

/* Why a trace recorded with --stacks has no stack at all, into buf:
 * true; false when the trace does not say it was (no stacks asked for, or
 * written by a recorder older than the STACKS key 3). */
static bool no_stacks_why(const struct prof *p, const struct lt_stacktab *stacks, char *buf, size_t len)
{
	if (!stacks->recorded)
		return false;
	if (!p->waits) {
		snprintf(buf, len, "no stacks in this trace, recorded with --stacks: no blocking call of its "
			 "threads was recorded, so no wait had a stack to read");
		return true;
	}
	char sampled[96];
	if (stacks->sample_every)
		snprintf(sampled, sizeof(sampled), "1 in %u of the shorter ones is sampled", stacks->sample_every);
	else
		snprintf(sampled, sizeof(sampled), "the shorter ones are not sampled (--stack-sample 0)");
	int n = snprintf(buf, len, "no stacks in this trace, recorded with --stacks: none of its %" PRIu64
			 " blocking calls got one (%" PRIu64 " of 1 ms or more, which all should; %s)",
			 p->waits, p->long_waits, sampled);
	if (n < 0 || (size_t)n >= len)
		return true;
	if (p->early_all)
		n += snprintf(buf + n, len - (size_t)n, "; %" PRIu64 " of them were under way at the attach, "
			      "read at once where they slept, and get none if their thread ran again first or "
			      "could not be read", p->early_all);
	if (n < 0 || (size_t)n >= len)
		return true;
	snprintf(buf + n, len - (size_t)n, ". A wait gets none when it ended before the recorder read it (a "
		 "busy machine), its thread could not be read (gone, or not ptrace-readable), or the "
		 "recorder's queues were full: `locktrace record`'s summary counted each");
	return true;
}

/* For each process with a CPython GIL: the time its threads sat runnable
 * right after letting go of the GIL, switched out to the thread their
 * release woke (on_sched), which no wait holds.  Such a time counts when one
 * of the locks of the thread's wake-ups is a GIL (the condition variable's
 * words and the mutex's may be locks of their own, each named the GIL). */
static void print_gil_runnable(FILE *out, const struct prof *p)
{
	for (size_t g = 0; g < p->ngil; g++) {
		uint32_t tgid = p->gil[g].tgid;
		size_t first = 0;
		while (p->gil[first].tgid != tgid)
			first++;
		if (first != g)
			continue; /* the process was printed */
		uint64_t ns = 0, n = 0;
		for (size_t i = 0; i < p->nreliv; i++) {
			const struct relrun_iv *iv = &p->reliv[i];
			for (uint32_t k = 0; iv->tgid == tgid && k < iv->nlk; k++) {
				struct entry e = { .lock = iv->lock[k], .grp = iv->grp[k], .tgid = tgid, .fd = -1 };
				if (gil_of(p, &e)) {
					ns += iv->ns;
					n += iv->n;
					break;
				}
			}
		}
		if (n)
			fprintf(out, "  CPython GIL, process %u: besides the waits for it, its threads sat runnable "
				"%.1f ms (%" PRIu64 " time%s) right after a futex call on it that woke another thread, "
				"switched out to that thread: waiting for a cpu, in no wait here (inferred: each a "
				"release, its next holder taking the releaser's cpu before the releaser asks for the "
				"GIL again; a program timing its own time.sleep(0) counts this time too)\n\n",
				tgid, (double)ns / 1e6, n, n == 1 ? "" : "s");
	}
}

/* What the entries' estimates are, under a table's header: only a sample
 * of the waits under 1 ms have a stack; each lock's total of them is
 * exact (the events), shared among its sampled stacks. */
static void print_scale(FILE *out, const struct scale *sc, const struct lt_stacktab *stacks, const char *what,
			const char *calls)
{
	if (sc->samp_n == sc->all_n)
		return;
	char rate[64] = "";
	if (stacks->sample_every)
		snprintf(rate, sizeof(rate), " (--stack-sample %u: 1 in %u)", stacks->sample_every,
			 stacks->sample_every);
	if (!sc->samp_n) { /* nothing estimated */
		fprintf(out, "  none of the %" PRIu64 " %s under 1 ms (%.1f ms) has a stack%s: they are in no entry\n\n",
			sc->all_n, calls, (double)sc->all_ns / 1e6, rate);
		return;
	}
	fprintf(out, "  ~ marks an estimate: of the %" PRIu64 " %s under 1 ms (%.1f ms), %" PRIu64 " have a "
		"stack%s; each lock's total of them, known from the events, is shared among its sampled "
		"stacks in proportion to their sampled time",
		sc->all_n, calls, (double)sc->all_ns / 1e6, sc->samp_n, rate);
	if (sc->unsampled_n)
		fprintf(out, "; %" PRIu64 " %s under 1 ms (%.1f ms) on locks none of whose were sampled are in no entry",
			sc->unsampled_n, what, (double)sc->unsampled_ns / 1e6);
	fputs("\n\n", out);
}

static void print_text(FILE *out, const char *path, struct prof *p, const struct lt_stacktab *stacks,
		       const struct lt_u64map *names, unsigned rows)
{
	fprintf(out, "Contention profile of %s: where threads waited, by lock and waiting stack\n",
		path);
	if (!stacks->nstacks) {
		char why[1024];
		if (no_stacks_why(p, stacks, why, sizeof(why)))
			fprintf(out, "  %s\n", why);
		else
			fprintf(out, "  no stacks in this trace: record it with --stacks (locktrace record "
				"--stacks ...)\n");
		return;
	}
	fprintf(out, "  %" PRIu64 " of %" PRIu64 " blocking calls have a stack: %.1f of %.1f ms of "
		"waiting; of the %" PRIu64 " calls of 1 ms or more, %" PRIu64 " (shorter ones are "
		"sampled)\n\n",
		p->with_stack, p->waits, (double)p->stack_ns / 1e6, (double)p->wait_ns / 1e6,
		p->long_waits, p->long_with_stack);
	print_scale(out, &p->wscale, stacks, "waits", "blocking calls");
	if (p->early)
		fprintf(out, "  %" PRIu64 " of them were under way when the trace began (a process attached to "
			"while its threads waited): each is counted from the trace's start, and its entry says "
			"how long they had waited before\n\n", p->early);
	if (p->oom)
		fprintf(out, "  (out of memory: some waits are not counted)\n");
	if (p->idle_ns)
		fprintf(out, "  Go: %.1f ms of the waiting are the Go scheduler's own idle waits (Ms parked, the "
			"netpoller, sysmon), listed last, not contention; goroutines waiting for a sync.Mutex or a channel "
			"park in the scheduler, not in the kernel, so a recording does not see them: `locktrace "
			"snapshot -p PID` shows what each goroutine waits for\n\n", (double)p->idle_ns / 1e6);
	if (p->rt_idle_ns)
		fprintf(out, "  runtimes: %.1f ms of the waiting are the runtime's own threads waiting for work (a JVM's "
			"compiler threads, GC workers, VM thread, service threads and Reference Handler; libuv's workers; "
			"the java launcher's join of the main thread), and an executor's idle workers waiting for a task, "
			"listed last, not contention\n\n",
			(double)p->rt_idle_ns / 1e6);
	print_gil_runnable(out, p);
	for (size_t i = 0; i < p->wait.n && i < rows; i++) {
		int idle = p->wait.e[i].idle;
		if (idle && (!i || p->wait.e[i - 1].idle != idle))
			fprintf(out, idle == 1 ? "\nThe Go scheduler's own idle waits (not contention):\n"
					       : "\nThreads waiting for work, the runtime's own and executors' idle workers "
						 "(not contention):\n");
		print_entry(out, p, &p->wait.e[i], i + 1, names, 0);
	}
	if (p->wait.n > rows)
		fprintf(out, "\n  %zu more (lock, stack) pairs: --all shows them\n", p->wait.n - rows);

	fprintf(out, "\nWhere the lock was held: by lock and releasing stack (the waker's at the "
		"wake-up that ended a futex wait), ranked by the wait it ended\n");
	if (!p->released) {
		fprintf(out, "  no release sites in this trace (%zu futex waits ended by a wake-up "
			"from a call): record it with --calls blocking --stacks\n", p->nc);
		return;
	}
	fprintf(out, "  %" PRIu64 " of %zu futex waits ended by a wake-up from a call have the "
		"waker's stack: %.1f of %.1f ms of waiting\n\n",
		p->released, p->nc, (double)p->released_ns / 1e6, (double)p->caused_ns / 1e6);
	print_scale(out, &p->rscale, stacks, "releases", "releases");
	for (size_t i = 0; i < p->release.n && i < rows; i++)
		print_entry(out, p, &p->release.e[i], i + 1, names, 1);
	if (p->release.n > rows)
		fprintf(out, "\n  %zu more (lock, releasing stack) pairs: --all shows them\n",
			p->release.n - rows);
}

/* ---- collapsed (folded) stacks ---- */

struct str {
	char *s;
	size_t len, cap;
	int oom;
};

static void str_add(struct str *b, const char *s, int frame)
{
	size_t n = strlen(s);
	char *v = lt_grow_to(b->s, &b->cap, b->len + n + 2, 1, 256);
	if (!v) {
		b->oom = 1;
		return;
	}
	b->s = v;
	for (size_t i = 0; i < n; i++) {
		char c = s[i];
		/* a frame holds no separator, and the line no control byte */
		if (frame && c == ';')
			c = ':';
		else if ((unsigned char)c < 0x20 || c == 0x7f)
			c = '?';
		b->s[b->len++] = c;
	}
	b->s[b->len] = 0;
}

/* A frame's name in the formats for other tools: its function (OCaml's
 * in OCaml's terms, lt_sframe_func), or its module in brackets when the
 * function is not known. */
static const char *frame_name(const struct lt_sframe *f, char *buf, size_t len)
{
	if (f->func)
		return lt_sframe_func(f, buf, len);
	snprintf(buf, len, "[%s]", f->module ? f->module : "unknown");
	return buf;
}

/* The root frame of a stack the unwind did not take to the thread's
 * start (st->end: the recorder's copy of the stack ended, 2 KiB by the BPF
 * side; a runtime's frames were cut, 32 Python frames at a wake-up; the
 * unwinder's depth limit...), in the formats for other tools:
 * "[stack cut: REASON]", so that a flame graph shows the stack is
 * incomplete instead of rooting it at a middle frame, and does not merge
 * it with complete stacks through the same frames.  NULL: not cut. */
static const char *cut_frame(const struct lt_stack *st, char *buf, size_t len)
{
	if (!st || !st->end)
		return NULL;
	const char *r = st->end;
	size_t n = strlen(r);
	if (n >= 2 && r[0] == '[' && r[n - 1] == ']') {
		r++;
		n -= 2;
	}
	if (n >= 16 && !strncmp(r, "unwind stopped: ", 16)) {
		r += 16;
		n -= 16;
	}
	snprintf(buf, len, "[stack cut: %.*s]", (int)n, r);
	return buf;
}

struct fold {
	char *line;
	uint64_t ns;
};

static int by_line(const void *a, const void *b)
{
	return strcmp(((const struct fold *)a)->line, ((const struct fold *)b)->line);
}

/* The root frame of a release entry: the lock it released, marked so
 * that a flame graph keeps the waiting and the releasing stacks of a lock
 * in two towers. */
#define RELEASE_ROOT "release of "

/* The leaf frame of an entry's estimated part (its short waits' share,
 * scale_finish) in the formats for other tools, whose values are plain
 * numbers: the estimate is a tower of its own over the same stack. */
#define EST_FRAME "[~ estimated: waits under 1 ms, a sample scaled to the lock's exact total]"

/* An entry's estimated part, ns (0 when exact: all in the exact part) */
static uint64_t est_part(const struct entry *e)
{
	if (!e->est)
		return 0;
	uint64_t v = (uint64_t)(e->short_est_ns + 0.5);
	return v < e->total_ns ? v : e->total_ns;
}

static int write_collapsed(FILE *out, struct prof *p, const struct lt_u64map *names)
{
	size_t total = p->wait.n + p->release.n;
	struct fold *f = calloc(total ? 2 * total : 1, sizeof(*f));
	size_t n = 0;
	int oom = !f;
	char buf[1024];
	for (size_t j = 0; f && j < 2 * total; j++) {
		size_t i = j / 2;
		int est = j % 2; /* the entry's estimated part */
		int release = i >= p->wait.n;
		const struct entry *e = release ? &p->release.e[i - p->wait.n] : &p->wait.e[i];
		uint64_t ns = est ? est_part(e) : e->total_ns - est_part(e);
		if (!ns && (est || e->est))
			continue;
		const struct lt_stack *st = lt_stacktab_get(p->stacks, e->stack_id);
		struct str b = { 0 };
		if (release)
			str_add(&b, RELEASE_ROOT, 1);
		str_add(&b, lock_text(p, e, names, buf, sizeof(buf), 1), 1);
		if (cut_frame(st, buf, sizeof(buf))) {
			str_add(&b, ";", 0);
			str_add(&b, buf, 1);
		}
		for (uint32_t k = st ? st->nframes : 0; k-- > 0;) {
			str_add(&b, ";", 0);
			str_add(&b, frame_name(&st->frames[k], buf, sizeof(buf)), 1);
		}
		if (est) {
			str_add(&b, ";", 0);
			str_add(&b, EST_FRAME, 1);
		}
		if (b.oom || !b.s) {
			free(b.s);
			oom = 1;
			continue;
		}
		f[n++] = (struct fold){ .line = b.s, .ns = ns };
	}
	if (n)
		qsort(f, n, sizeof(*f), by_line);
	for (size_t i = 0; i < n;) {
		uint64_t ns = 0;
		size_t j = i;
		for (; j < n && !strcmp(f[j].line, f[i].line); j++)
			ns += f[j].ns;
		fprintf(out, "%s %" PRIu64 "\n", f[i].line, ns / 1000);
		i = j;
	}
	for (size_t i = 0; i < n; i++)
		free(f[i].line);
	free(f);
	return oom ? -1 : 0;
}

/* ---- pprof ---- */

/* perftools.profiles field numbers (proto/profile.proto) */
enum {
	PROFILE_SAMPLE_TYPE = 1, PROFILE_SAMPLE = 2, PROFILE_LOCATION = 4, PROFILE_FUNCTION = 5,
	PROFILE_STRING_TABLE = 6, PROFILE_DURATION_NANOS = 10, PROFILE_COMMENT = 13,
	PROFILE_DEFAULT_SAMPLE_TYPE = 14,
	VALUETYPE_TYPE = 1, VALUETYPE_UNIT = 2,
	SAMPLE_LOCATION_ID = 1, SAMPLE_VALUE = 2, SAMPLE_LABEL = 3,
	LABEL_KEY = 1, LABEL_STR = 2, LABEL_NUM = 3,
	LOCATION_ID = 1, LOCATION_ADDRESS = 3, LOCATION_LINE = 4,
	LINE_FUNCTION_ID = 1, LINE_LINE = 2,
	FUNCTION_ID = 1, FUNCTION_NAME = 2, FUNCTION_SYSTEM_NAME = 3, FUNCTION_FILENAME = 4,
};

/* The index of s in t (added if new); 0 when out of memory (t->oom, which
 * the writer checks before it writes anything). */
static size_t intern(struct lt_strtab *t, const char *s, int *added)
{
	size_t i = lt_strtab_intern(t, s, strlen(s), added);
	return i == (size_t)-1 ? 0 : i;
}

struct pfunc {
	size_t name, sys, file; /* string indexes (sys: the symbol, as linked) */
};
struct ploc {
	uint64_t pc;
	size_t func; /* id */
	uint32_t line;
};

struct pprof {
	struct lt_strtab str, fkeys, lkeys;
	struct pfunc *f;
	struct ploc *l;
	size_t nf, nl, capf, capl;
	int oom;
};

static size_t pp_func(struct pprof *pp, const char *name, const char *sys, const char *file)
{
	char key[3072];
	int added;
	if (!sys)
		sys = name;
	snprintf(key, sizeof(key), "%s\n%s\n%s", name, file ? file : "", sys);
	size_t i = intern(&pp->fkeys, key, &added);
	if (added) {
		struct pfunc *v = lt_grow(pp->f, &pp->capf, pp->nf, sizeof(*v), 64);
		if (!v) {
			pp->oom = 1;
			return 1;
		}
		pp->f = v;
		pp->f[pp->nf++] = (struct pfunc){ .name = intern(&pp->str, name, NULL),
						  .sys = intern(&pp->str, sys, NULL),
						  .file = intern(&pp->str, file ? file : "", NULL) };
	}
	return i + 1;
}

/* A location's id: one per (process, pc, function, line), and one per lock */
static size_t pp_loc(struct pprof *pp, int32_t tgid, uint64_t pc, size_t func, uint32_t line)
{
	char key[96];
	int added;
	snprintf(key, sizeof(key), "%d:%" PRIx64 ":%zu:%u", tgid, pc, func, line);
	size_t i = intern(&pp->lkeys, key, &added);
	if (added) {
		struct ploc *v = lt_grow(pp->l, &pp->capl, pp->nl, sizeof(*v), 64);
		if (!v) {
			pp->oom = 1;
			return 1;
		}
		pp->l = v;
		pp->l[pp->nl++] = (struct ploc){ .pc = pc, .func = func, .line = line };
	}
	return i + 1;
}

static void value_type(struct pb_buf *b, uint32_t field, size_t type, size_t unit)
{
	pb_tok t = pb_begin(b, field);
	pb_int64(b, VALUETYPE_TYPE, (int64_t)type);
	pb_int64(b, VALUETYPE_UNIT, (int64_t)unit);
	pb_end(b, t);
}

/* gzip of data into out; 0 or -1 */
static int gzip_write(FILE *out, const uint8_t *data, size_t len)
{
	z_stream z = { 0 };
	if (deflateInit2(&z, Z_DEFAULT_COMPRESSION, Z_DEFLATED, 15 + 16, 8, Z_DEFAULT_STRATEGY) !=
	    Z_OK)
		return -1;
	uLong cap = deflateBound(&z, (uLong)len) + 64;
	uint8_t *buf = malloc(cap);
	int rc = -1;
	if (buf) {
		z.next_in = (Bytef *)(uintptr_t)data;
		z.avail_in = (uInt)len;
		z.next_out = buf;
		z.avail_out = (uInt)cap;
		if (deflate(&z, Z_FINISH) == Z_STREAM_END &&
		    fwrite(buf, 1, z.total_out, out) == z.total_out)
			rc = 0;
	}
	deflateEnd(&z);
	free(buf);
	return rc;
}

static int write_pprof(FILE *out, const char *path, struct prof *p, const struct lt_u64map *names,
		       uint64_t duration_ns)
{
	struct pprof pp = { 0 };
	struct pb_buf b;
	char buf[1024], comment[2048];
	int rc = -1;
	pb_buf_init(&b);
	intern(&pp.str, "", NULL); /* string_table[0] */
	size_t s_wait = intern(&pp.str, "wait", NULL), s_us = intern(&pp.str, "microseconds", NULL);
	size_t s_waits = intern(&pp.str, "waits", NULL), s_count = intern(&pp.str, "count", NULL);
	size_t s_pid = intern(&pp.str, "pid", NULL);
	size_t s_est = intern(&pp.str, "estimated", NULL), s_short = intern(&pp.str, "short waits", NULL);
	snprintf(comment, sizeof(comment), "locktrace report --profile of %s: wait time by lock "
		 "and waiting stack (wait, waits), and the wait each release ended by lock and "
		 "releasing stack (released, releases); a sample whose leaf frame is " EST_FRAME
		 " and whose label estimated is \"short waits\" is an estimate: its stack's waits under 1 ms "
		 "(only a sample of them have a stack, --stack-sample), each lock's exact total of them "
		 "shared among its sampled stacks; the other samples are exact", path);
	size_t s_comment = intern(&pp.str, comment, NULL);
	/* the waiting stacks' samples carry wait/waits, the releasing ones
	 * released/releases (go tool pprof -sample_index=released) */
	size_t s_rel = intern(&pp.str, "released", NULL), s_rels = intern(&pp.str, "releases", NULL);
	value_type(&b, PROFILE_SAMPLE_TYPE, s_wait, s_us);
	value_type(&b, PROFILE_SAMPLE_TYPE, s_waits, s_count);
	value_type(&b, PROFILE_SAMPLE_TYPE, s_rel, s_us);
	value_type(&b, PROFILE_SAMPLE_TYPE, s_rels, s_count);
	for (size_t j = 0; j < 2 * (p->wait.n + p->release.n); j++) {
		size_t i = j / 2;
		int est = j % 2; /* the entry's estimated part */
		int release = i >= p->wait.n;
		const struct entry *e = release ? &p->release.e[i - p->wait.n] : &p->wait.e[i];
		uint64_t ns = est ? est_part(e) : e->total_ns - est_part(e);
		uint64_t ecnt = est_part(e) ? (uint64_t)(e->short_est_n + 0.5) : 0;
		if (ecnt > e->count)
			ecnt = e->count;
		uint64_t count = est ? ecnt : e->count - ecnt;
		if (!ns && (est || e->est))
			continue;
		const struct lt_stack *st = lt_stacktab_get(p->stacks, e->stack_id);
		pb_tok t = pb_begin(&b, PROFILE_SAMPLE);
		if (est) {
			size_t fe = pp_func(&pp, EST_FRAME, NULL, NULL);
			pb_uint64(&b, SAMPLE_LOCATION_ID, pp_loc(&pp, -1, 0, fe, 0));
		}
		for (uint32_t k = 0; st && k < st->nframes; k++) {
			const struct lt_sframe *f = &st->frames[k];
			size_t fn = pp_func(&pp, frame_name(f, buf, sizeof(buf)), f->func, f->file);
			pb_uint64(&b, SAMPLE_LOCATION_ID, pp_loc(&pp, st->tgid, f->pc, fn, f->line));
		}
		/* a stack cut short: a frame that says so, just below the root */
		if (cut_frame(st, buf, sizeof(buf))) {
			size_t fc = pp_func(&pp, buf, NULL, NULL);
			pb_uint64(&b, SAMPLE_LOCATION_ID, pp_loc(&pp, -1, 0, fc, 0));
		}
		/* the lock: the root */
		char root[1100];
		snprintf(root, sizeof(root), "%s%s", release ? RELEASE_ROOT : "",
			 lock_text(p, e, names, buf, sizeof(buf), 1));
		size_t fn = pp_func(&pp, root, NULL, NULL);
		pb_uint64(&b, SAMPLE_LOCATION_ID, pp_loc(&pp, -1, 0, fn, 0));
		int64_t us = (int64_t)(ns / 1000), cnt = (int64_t)count;
		pb_int64(&b, SAMPLE_VALUE, release ? 0 : us);
		pb_int64(&b, SAMPLE_VALUE, release ? 0 : cnt);
		pb_int64(&b, SAMPLE_VALUE, release ? us : 0);
		pb_int64(&b, SAMPLE_VALUE, release ? cnt : 0);
		pb_tok l = pb_begin(&b, SAMPLE_LABEL);
		pb_int64(&b, LABEL_KEY, (int64_t)s_pid);
		pb_int64(&b, LABEL_NUM, e->tgid);
		pb_end(&b, l);
		if (est) {
			l = pb_begin(&b, SAMPLE_LABEL);
			pb_int64(&b, LABEL_KEY, (int64_t)s_est);
			pb_int64(&b, LABEL_STR, (int64_t)s_short);
			pb_end(&b, l);
		}
		pb_end(&b, t);
	}
	for (size_t i = 0; i < pp.nl; i++) {
		pb_tok t = pb_begin(&b, PROFILE_LOCATION);
		pb_uint64(&b, LOCATION_ID, i + 1);
		if (pp.l[i].pc)
			pb_uint64(&b, LOCATION_ADDRESS, pp.l[i].pc);
		pb_tok l = pb_begin(&b, LOCATION_LINE);
		pb_uint64(&b, LINE_FUNCTION_ID, pp.l[i].func);
		if (pp.l[i].line)
			pb_int64(&b, LINE_LINE, pp.l[i].line);
		pb_end(&b, l);
		pb_end(&b, t);
	}
	for (size_t i = 0; i < pp.nf; i++) {
		pb_tok t = pb_begin(&b, PROFILE_FUNCTION);
		pb_uint64(&b, FUNCTION_ID, i + 1);
		pb_int64(&b, FUNCTION_NAME, (int64_t)pp.f[i].name);
		pb_int64(&b, FUNCTION_SYSTEM_NAME, (int64_t)pp.f[i].sys);
		if (pp.f[i].file)
			pb_int64(&b, FUNCTION_FILENAME, (int64_t)pp.f[i].file);
		pb_end(&b, t);
	}
	if (duration_ns)
		pb_int64(&b, PROFILE_DURATION_NANOS, (int64_t)duration_ns);
	pb_int64(&b, PROFILE_COMMENT, (int64_t)s_comment);
	pb_int64(&b, PROFILE_DEFAULT_SAMPLE_TYPE, (int64_t)s_wait);
	for (size_t i = 0; i < pp.str.n; i++)
		pb_string(&b, PROFILE_STRING_TABLE, pp.str.s[i]);
	if (!pp.oom && !pp.str.oom && !pp.fkeys.oom && !pp.lkeys.oom && !pb_buf_error(&b))
		rc = gzip_write(out, pb_buf_data(&b), pb_buf_len(&b));
	pb_buf_free(&b);
	lt_strtab_free(&pp.str);
	lt_strtab_free(&pp.fkeys);
	lt_strtab_free(&pp.lkeys);
	free(pp.f);
	free(pp.l);
	return rc;
}

/* A futex word of one of the report's locks, and that lock's index */
struct pword {
	uint64_t w;
	size_t lock;
};

static int by_word(const void *a, const void *b)
{
	uint64_t x = ((const struct pword *)a)->w, y = ((const struct pword *)b)->w;
	return x < y ? -1 : x > y;
}

/* The profile's locks of several words: the words of the report's locks
 * in address order, each run of adjacent words (4 bytes apart, at most 8
 * in a lock) one lock.  The report groups a word with an adjacent word
 * it already knows (rp_group_of), so the words of one object can end in
 * two of its locks when the trace first shows them apart (a CPython
 * GIL's mutex word before the condition variable's word next to it): the
 * runs make the profile's locks the same whatever the order of the
 * waits.  A run of one report lock is that lock as the report shows it;
 * one of several gets the name the report gives words, the kind a
 * snapshot named for one of them (the lowest), else the kind its waits'
 * shapes make together. */
static void group_words(const struct lt_report *r, struct prof *p)
{
	size_t nw = 0;
	for (size_t i = 0; i < r->n_locks; i++)
		nw += r->locks[i].n_words;
	struct pword *w = nw ? calloc(nw, sizeof(*w)) : NULL;
	if (!w) {
		p->oom |= nw != 0;
		return;
	}
	nw = 0;
	for (size_t i = 0; i < r->n_locks; i++)
		for (unsigned k = 0; k < r->locks[i].n_words && k < 8; k++)
			w[nw++] = (struct pword){ r->locks[i].words[k], i };
	qsort(w, nw, sizeof(*w), by_word);
	if (!(p->grp = calloc(nw / 2 + 1, sizeof(*p->grp)))) {
		p->oom = 1;
		free(w);
		return;
	}
	for (size_t i = 0; i < nw;) {
		size_t j = i + 1;
		while (j < nw && j - i < 8 && w[j].w - w[j - 1].w == 4)
			j++;
		if (j - i < 2) { /* a word alone: its own lock */
			i = j;
			continue;
		}
		struct pgroup *g = &p->grp[p->ngrp++];
		const struct lt_report_lock *one = &r->locks[w[i].lock], *named = NULL;
		uint64_t shape[5] = { 0 };
		unsigned cond_words = 0;
		int parts = 0;
		for (size_t k = i; k < j; k++) {
			const struct lt_report_lock *l = &r->locks[w[k].lock];
			g->words[g->n_words++] = w[k].w;
			if (k > i && w[k].lock == w[k - 1].lock)
				continue;
			parts++;
			/* each part's waits' shapes once, each of its words once */
			if (l != one)
				one = NULL;
			for (int s = 0; s < 5; s++)
				shape[s] += l->n_shape[s];
			cond_words += l->n_cond_words;
			if (!named && l->kind && strcmp(l->kind, lt_report_kind_of(l->n_shape, l->n_cond_words)))
				named = l;
		}
		for (unsigned k = 0; k < g->n_words; k++) {
			lt_report_key_text(r, g->words[k], g->wkey[k], sizeof(g->wkey[k]));
			if (lt_u64map_put(&p->word_lock, g->words[k], (void *)(uintptr_t)p->ngrp))
				p->oom = 1;
		}
		g->addr = g->words[0];
		lt_report_key_text(r, g->addr, g->key, sizeof(g->key));
		/* one report lock whose words are exactly the run: as the
		 * report shows it */
		if (one && parts == 1 && one->n_words == g->n_words) {
			snprintf(g->symbol, sizeof(g->symbol), "%s", one->symbol);
			snprintf(g->kind, sizeof(g->kind), "%s", one->kind ? one->kind : "futex");
		} else {
			lt_report_words_symbol(r, g->words, g->n_words, g->symbol, sizeof(g->symbol));
			snprintf(g->kind, sizeof(g->kind), "%s",
				 named ? named->kind : lt_report_kind_of(shape, cond_words));
		}
		i = j;
	}
	free(w);
}

/* What the profile takes from the text report's analysis of the trace
 * (a pass of its own, freed before the profile's): its locks of several
 * words, and the GILs its stored snapshots read. */
static void load_report_facts(const char *path, struct prof *p)
{
	char err[512];
	int rc;
	struct lt_report *r = lt_report_load(path, NULL, err, sizeof(err), &rc);
	if (!r)
		return;
	group_words(r, p);
	struct rp_extent x[16];
	for (size_t s = 0; s < r->n_stored; s++) {
		size_t n = rp_snapshot_extents(r->stored[s].json, r->stored[s].len, "GIL", x, 16);
		if (!n)
			continue;
		struct rp_extent *v = realloc(p->gilx, (p->ngilx + n) * sizeof(*v));
		if (!v) {
			p->oom = 1;
			break;
		}
		p->gilx = v;
		memcpy(p->gilx + p->ngilx, x, n * sizeof(*x));
		p->ngilx += n;
	}
	lt_report_free(r);
}

int lt_report_profile_fmt(const char *path, FILE *out, unsigned rows, int format, char *err,
			  size_t errlen)
{
	struct lt_reader r;
	struct lt_item it;
	struct lt_stacktab stacks = { 0 };
	struct lt_u64map names = { 0 };
	struct prof p = { .stacks = &stacks };
	int rc = 0;

	err[0] = 0;
	if (lt_reader_open(&r, path, err, errlen))
		return 1;
	if (!rows)
		rows = 10;
	lt_trace_stacks(path, &stacks);
	lt_trace_symbols(path, &names, rp_snapshot_names);
	load_report_facts(path, &p);
	struct lt_timeline_sink sink = { .ctx = &p, .span_end = on_span_end, .sched = on_sched };
	struct lt_timeline *tl = lt_timeline_new(&r.hdr, &sink, NULL);
	if (!tl) {
		snprintf(err, errlen, "out of memory reading %s", path);
		rc = 1;
		goto out;
	}
	while (lt_reader_next(&r, &it) > 0)
		if (it.type == LT_ITEM_EVENT)
			lt_timeline_event(tl, &it.ev);
	lt_timeline_finish(tl, r.have_stats ? r.stats.end_ns : 0);
	if (!r.clean_end || r.stop_reason[0]) {
		snprintf(err, errlen, "%s is cut short (%s): profiled up to its last good chunk", path,
			 r.stop_reason[0] ? r.stop_reason : "no end");
		rc = r.clean_end ? 0 : 3;
	} else if (r.nskips) {
		snprintf(err, errlen, "%s is damaged: profiled what could be read", path);
	}
	if (r.nskips) {
		lt_trace_damage_append(&r, err, errlen);
		rc = 3;
	}
	resolve_caused(&p);
	scale_finish(&p.wscale, &p.wait);
	scale_finish(&p.rscale, &p.release);
	find_gils(&p);
	for (size_t i = 0; i < p.wait.n; i++)
		p.wait.e[i].idle = p.wait.e[i].call == GO_IDLE_M || p.wait.e[i].call == GO_IDLE_NET ||
				   p.wait.e[i].call == GO_IDLE_SYSMON ? 1
				   : lt_rt_idle_is_label(p.wait.e[i].call) ? 2 : 0;
	if (p.wait.n) /* qsort's array must not be NULL, even empty */
		qsort(p.wait.e, p.wait.n, sizeof(*p.wait.e), by_total);
	if (p.release.n)
		qsort(p.release.e, p.release.n, sizeof(*p.release.e), by_total);
	int w = 0;
	if (format == LT_PROFILE_COLLAPSED) {
		w = write_collapsed(out, &p, &names);
	} else if (format == LT_PROFILE_PPROF) {
		uint64_t dur = r.have_stats && r.stats.end_ns > r.stats.start_ns ?
			       r.stats.end_ns - r.stats.start_ns : 0;
		w = write_pprof(out, path, &p, &names, dur);
	} else {
		print_text(out, path, &p, &stacks, &names, rows);
	}
	if (w || fflush(out) || ferror(out)) {
		snprintf(err, errlen, "writing the profile of %s failed (out of memory or the output "
			 "is not writable)", path);
		rc = 1;
	} else if (format != LT_PROFILE_TEXT && !stacks.nstacks && !err[0]) {
		char why[1024];
		if (no_stacks_why(&p, &stacks, why, sizeof(why)))
			snprintf(err, errlen, "the profile of %s is empty: %s", path, why);
		else
			snprintf(err, errlen, "no stacks in %s: the profile is empty; record it with "
				 "--stacks (locktrace record --stacks ...)", path);
	}
out:
	lt_timeline_free(tl);
	table_free(&p.wait);
	table_free(&p.release);
	table_free(&p.wscale.pop);
	table_free(&p.rscale.pop);
	free(p.wscale.s);
	free(p.rscale.s);
	lt_u64map_free(&p.waker_stack);
	lt_u64map_free(&p.word_lock);
	lt_u64map_free(&p.relrun_of);
	free(p.relrun);
	free(p.reliv);
	lt_u64map_free(&p.reliv_idx);
	free(p.gil);
	free(p.grp);
	free(p.gilx);
	free(p.c);
	lt_stacktab_free(&stacks);
	lt_symmap_free(&names);
	lt_reader_close(&r);
	return rc;
}

int lt_report_profile(const char *path, FILE *out, unsigned rows, char *err, size_t errlen)
{
	return lt_report_profile_fmt(path, out, rows, LT_PROFILE_TEXT, err, errlen);
}
