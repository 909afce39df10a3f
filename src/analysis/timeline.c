// SPDX-License-Identifier: MIT
/*
 * The timeline model (see src/analysis/timeline.h): a sort window in
 * front of a per-thread state machine.
 *
 * Sort window: events are kept in a ring ordered by timestamp.  The
 * collector drains per-cpu streams interleaved, so an arriving event is
 * almost always at or near the tail; insertion scans back from the tail and
 * costs O(displacement).  An event leaves the window once the newest
 * timestamp seen is reorder_ns past it, or when the ring is full.
 *
 * Per thread: the call it is in (at most one: system calls do not nest),
 * whether it is on a cpu and whether it is asleep, and when it first ran
 * again after sleeping in the call.  The latter dates the end of a call
 * whose return was not recorded: the collector records a return only for
 * an entry it saw, so a call already blocked at attach never gets one, and
 * a lost record loses one.  A switch that put a thread back on a cpu may be
 * missing too (lost, or not reported by the kernel): the thread's next own
 * event stands for it (acting()).
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "callnorm.h"
#include "locktrace/calls.h"
#include "filelock.h"
#include "lockid.h"
#include "taskrun.h"
#include "timeline.h"
#include "grow.h"
#include "u64map.h"



#define TASK_DEAD_BIT 0x80 /* raw task state of a task's last switch-out */

/* struct tl_thread.oncpu: not known (no switch of it seen yet; it may run
 * since before the trace), on a cpu, or off one (switched out, or asleep
 * in its call at attach) */
enum { CPU_UNKNOWN, CPU_ON, CPU_OFF };

/* ---------------------------------------------------------------- model */

struct tl_thread {
	uint32_t tid, uid;
	uint32_t tgid;       /* its process */
	size_t idx;          /* in tl->threads */
	char comm[LT_COMM_LEN];
	uint8_t named;       /* comm is real, not our placeholder */
	uint8_t exited;      /* TASK_EXIT seen */
	uint8_t in_span;     /* span is open */
	uint8_t pending;     /* span is a snapshot call not yet confirmed */
	uint8_t sleeping;    /* switched out asleep and not back yet */
	uint8_t oncpu;       /* CPU_*: what its last switch says */
	int32_t prio;        /* its priority at its last switch, 0 unknown */
	uint64_t woke_ts;    /* first switch-in after sleeping in the open call */
	struct lt_span span;
	struct lt_wake_edge *in, *out; /* grown on use, up to max_edges each */
	uint32_t nin, nout, dropped, cap_in, cap_out;
};

struct tl_lock {
	uint64_t addr;
	uint32_t uid, waiters;
};

struct lt_timeline {
	struct lt_timeline_sink sink;
	struct lt_timeline_opts opts;
	struct lt_timeline_stats stats;
	uint32_t pid;
	struct lt_u64map procs;  /* tgid -> 1: the traced processes */
	struct lt_lockid *ids;   /* lock keys (lockid.h) */
	int own_ids;             /* ids is ours to free */
	uint64_t attach_ts;   /* the header's boottime: when the snapshot was taken */
	uint64_t start_ts;
	int started, confirmed, finished;
	uint64_t now;         /* time of the last interpreted event */
	uint64_t next_span, next_edge;
	uint32_t next_uid;
	struct lt_u64map tmap;   /* tid -> struct tl_thread * */
	struct tl_thread **threads;
	size_t nthreads, cap_threads;
	struct lt_u64map lmap;   /* futex address -> struct tl_lock * */
	/* sort window */
	struct lt_event *ring;
	size_t rcap, rhead, rn; /* rcap: power of two */
	uint64_t max_seen, released_ts;
	int released_any;
};

#define RING(tl, k) ((tl)->ring[((tl)->rhead + (k)) & ((tl)->rcap - 1)])

const char *lt_span_fd_kind(const struct lt_span *s)
{
	if (s->enter.h.kind != LT_EV_IO_ENTER)
		return NULL;
	/* the recorder records fd I/O on sockets, pipes and FIFOs (flagged);
	 * a call the start snapshot saw may be on any fd */
	if (s->enter.h.flags & LT_F_IO_PIPE)
		return "pipe";
	return s->flags & LT_SPAN_AT_START ? NULL : "socket";
}

const char *lt_span_name(const struct lt_span *s)
{
	if (s->nr == LT_NR_FUTEX) {
		const char *n = lt_futex_cmd_name(s->enter.futex.op & LT_FUTEX_CMD_MASK);
		return n ? n : "futex";
	}
	if (s->enter.h.kind == LT_EV_FLOCK_ENTER) {
		/* named for the lock, whose call says the rest */
		const struct lt_flock_enter *f = &s->enter.flk;
		if (f->nr == LT_NR_FLOCK)
			return f->cmd & LT_LOCK_UN ? "file unlock (flock)" : "file lock (flock)";
		if (f->type == 2)
			return "file unlock (fcntl)";
		switch (f->cmd) {
		case LT_F_SETLKW: return "file lock (fcntl F_SETLKW)";
		case LT_F_SETLK: return "file lock (fcntl F_SETLK)";
		case LT_F_OFD_SETLKW: return "file lock (fcntl F_OFD_SETLKW)";
		default: return "file lock (fcntl F_OFD_SETLK)";
		}
	}
	return lt_call_name(s->nr);
}

/* LT_SPAN_WAIT / WAKER / LOCK_WAIT for an entry record. */
static uint32_t classify(const struct lt_event *e)
{
	switch (e->h.kind) {
	case LT_EV_FUTEX_ENTER:
		if (lt_futex_waits(e->futex.nr, e->futex.op))
			return LT_SPAN_WAIT | LT_SPAN_LOCK_WAIT;
		return lt_futex_wakes(e->futex.nr, e->futex.op) ? LT_SPAN_WAKER : 0;
	case LT_EV_WAIT_ENTER:
		return LT_SPAN_WAIT;
	case LT_EV_IO_ENTER:
		/* a socket read can wait for data and also wake a writer blocked
		 * on a full buffer; a write the reverse */
		return LT_SPAN_WAIT | LT_SPAN_WAKER;
	case LT_EV_FLOCK_ENTER:
		/* the holder's release wakes the waiter from its own process */
		return lt_flock_may_wait(e->flk.nr, e->flk.cmd, e->flk.type)
			       ? LT_SPAN_WAIT | LT_SPAN_FILE_LOCK : 0;
	default:
		return 0;
	}
}

/* Builds the entry record of a call the snapshot saw a thread blocked in,
 * from its syscall number and raw arguments.  0, or -1 if the call is not
 * one the collector records or does not block. */
static int entry_from_snapshot(const struct lt_thread_info *t, struct lt_event *e)
{
	const uint64_t *a = t->sc_args;

	memset(e, 0, sizeof(*e));
	e->h.tid = (uint32_t)t->tid;
	if (lt_call_flock(t->sc_nr, a[1])) {
		/* the struct flock was not read at attach: its range is not known */
		e->h.kind = LT_EV_FLOCK_ENTER;
		e->flk.nr = (uint16_t)t->sc_nr;
		e->flk.fd = (int32_t)a[0];
		e->flk.cmd = (uint32_t)a[1];
		e->flk.type = LT_FLOCK_TYPE_NOT_READ;
		return classify(e) & LT_SPAN_WAIT ? 0 : -1;
	}
	switch (lt_call_class(t->sc_nr)) {
	case LT_CALL_FUTEX:
		if (!lt_futex_waits((uint16_t)t->sc_nr, t->sc_nr == LT_NR_FUTEX ? (uint32_t)a[1] : 0))
			return -1; /* wakes and requeues do not block */
		e->h.kind = LT_EV_FUTEX_ENTER;
		e->futex.nr = (uint16_t)t->sc_nr;
		e->futex.timeout = -1; /* only the timespec's address is known */
		if (t->sc_nr == LT_NR_FUTEX) {
			e->futex.uaddr = a[0];
			e->futex.op = (uint32_t)a[1];
			e->futex.val = (uint32_t)a[2];
			e->futex.uaddr2 = a[4];
			e->futex.val3 = (uint32_t)a[5];
		} else if (t->sc_nr == LT_NR_FUTEX_WAIT) {
			e->futex.uaddr = a[0];
			e->futex.val = (uint32_t)a[1];
			e->futex.val3 = (uint32_t)a[2];
			e->futex.op = (uint32_t)a[3];
		} else { /* the waiters live in user memory: only their array */
			e->futex.uaddr2 = a[0];
			e->futex.val3 = (uint32_t)a[1];
			e->futex.op = (uint32_t)a[2];
		}
		return classify(e) & LT_SPAN_WAIT ? 0 : -1;
	case LT_CALL_WAIT:
		e->h.kind = LT_EV_WAIT_ENTER;
		e->wait.nr = (uint16_t)t->sc_nr;
		e->wait.timeout_ns = -1;
		for (int i = 0; i < LT_WAIT_FDS; i++)
			e->wait.fds[i] = -1;
		if (t->sc_nr == LT_NR_SELECT || t->sc_nr == LT_NR_PSELECT6) {
			e->wait.nfds = (uint32_t)a[0];
		} else if (t->sc_nr == LT_NR_POLL || t->sc_nr == LT_NR_PPOLL) {
			e->wait.nfds = (uint32_t)a[1];
			if (t->sc_nr == LT_NR_POLL && (int32_t)a[2] >= 0)
				e->wait.timeout_ns = (int64_t)(int32_t)a[2] * 1000000;
		} else {
			e->wait.fds[0] = (int32_t)a[0];
			e->wait.nfds = (uint32_t)a[2];
			if (t->sc_nr != LT_NR_EPOLL_PWAIT2 && (int32_t)a[3] >= 0)
				e->wait.timeout_ns = (int64_t)(int32_t)a[3] * 1000000;
		}
		return 0;
	case LT_CALL_IO:
		/* the snapshot does not say whether the fd is a socket; a
		 * thread blocked in read or write is worth showing either way */
		e->h.kind = LT_EV_IO_ENTER;
		e->io.nr = (uint16_t)t->sc_nr;
		e->io.fd = (int32_t)a[0];
		/* the vector and message calls' count is in their iovecs */
		e->io.count = lt_call_iovecs(t->sc_nr) ? LT_IO_COUNT_UNKNOWN : a[2];
		return 0;
	default:
		return -1;
	}
}

/* ------------------------------------------------------------- threads */

static void emit_thread(struct lt_timeline *tl, int change, uint64_t ts, const struct tl_thread *th,
			const char *old, int from_header, const struct lt_event *ev)
{
	if (!tl->sink.thread)
		return;
	struct lt_thread_ev t = {
		.change = change, .ts = ts, .tid = th->tid, .tgid = th->tgid, .uid = th->uid,
		.name = th->comm, .old_name = old, .from_header = from_header, .ev = ev,
	};
	tl->sink.thread(tl->sink.ctx, &t);
}

static void set_comm(struct tl_thread *th, const char *comm)
{
	size_t n = strnlen(comm, LT_COMM_LEN - 1);
	memcpy(th->comm, comm, n);
	th->comm[n] = 0;
}

/* The live thread tid, created (and announced) if unknown.  comm: its name
 * if the record that revealed it carries one.  NULL on out of memory. */
static int is_traced(const struct lt_timeline *tl, uint32_t tgid)
{
	return tgid && (tgid == tl->pid || lt_u64map_get(&tl->procs, tgid));
}

static void add_proc(struct lt_timeline *tl, uint32_t tgid)
{
	if (tgid && tgid != tl->pid && !lt_u64map_get(&tl->procs, tgid))
		lt_u64map_put(&tl->procs, tgid, (void *)1);
}

/* The live thread tid of process tgid (0: not known, the trace's pid),
 * created (and announced) if unknown.  comm: its name if the record that
 * revealed it carries one.  NULL on out of memory. */
static struct tl_thread *get_thread_of(struct lt_timeline *tl, uint32_t tid, uint32_t tgid,
				       const char *comm, uint64_t ts, int from_header,
				       const struct lt_event *ev)
{
	struct tl_thread *th = lt_u64map_get(&tl->tmap, tid);
	if (th) {
		if (tgid && th->tgid != tgid && is_traced(tl, tgid))
			th->tgid = tgid; /* first seen in a record without it */
		return th;
	}
	struct tl_thread **v = lt_grow(tl->threads, &tl->cap_threads, tl->nthreads, sizeof(*v), 64);
	if (!v)
		return NULL;
	tl->threads = v;
	th = calloc(1, sizeof(*th));
	if (!th || lt_u64map_put(&tl->tmap, tid, th)) {
		free(th);
		return NULL;
	}
	th->tid = tid;
	th->tgid = tgid ? tgid : tl->pid;
	th->uid = ++tl->next_uid;
	th->idx = tl->nthreads;
	tl->threads[tl->nthreads++] = th;
	if (comm && comm[0]) {
		set_comm(th, comm);
		th->named = 1;
	} else {
		snprintf(th->comm, sizeof(th->comm), "thread %u", tid);
	}
	emit_thread(tl, LT_THREAD_NEW, ts, th, NULL, from_header, ev);
	return th;
}

static struct tl_thread *get_thread(struct lt_timeline *tl, uint32_t tid, const char *comm,
				    uint64_t ts, int from_header, const struct lt_event *ev)
{
	return get_thread_of(tl, tid, 0, comm, ts, from_header, ev);
}

static void drop_thread(struct lt_timeline *tl, struct tl_thread *th)
{
	lt_u64map_del(&tl->tmap, th->tid);
	tl->threads[th->idx] = tl->threads[--tl->nthreads];
	tl->threads[th->idx]->idx = th->idx;
	free(th->in);
	free(th->out);
	free(th);
}

/* A record names a thread we only knew by number: adopt the name. */
static void learn_comm(struct lt_timeline *tl, struct tl_thread *th, const char *comm, uint64_t ts)
{
	if (th->named || !comm[0])
		return;
	char old[LT_COMM_LEN];
	memcpy(old, th->comm, sizeof(old));
	set_comm(th, comm);
	th->named = 1;
	emit_thread(tl, LT_THREAD_RENAME, ts, th, old, 0, NULL);
}

/* --------------------------------------------------------------- locks */

static void lock_change(struct lt_timeline *tl, struct lt_span *s, uint64_t ts, int delta)
{
	struct tl_lock *l = lt_u64map_get(&tl->lmap, s->lock_addr);
	int first = 0;

	if (!l) {
		if (delta < 0)
			return;
		l = calloc(1, sizeof(*l));
		if (!l || lt_u64map_put(&tl->lmap, s->lock_addr, l)) {
			free(l);
			return;
		}
		l->addr = s->lock_addr;
		l->uid = ++tl->next_uid;
		first = 1;
	}
	if (delta > 0)
		l->waiters++;
	else if (l->waiters)
		l->waiters--;
	s->lock_uid = l->uid;
	if (delta > 0)
		s->waiters_begin = l->waiters;
	else
		s->waiters_end = l->waiters;
	if (tl->sink.lock) {
		struct lt_lock_ev e = { ts, l->addr, l->uid, l->waiters, first };
		tl->sink.lock(tl->sink.ctx, &e);
	}
}

/* --------------------------------------------------------------- spans */

/* Announce a span whose begin is final. */
static void span_started(struct lt_timeline *tl, struct tl_thread *th)
{
	struct lt_span *s = &th->span;
	if ((s->flags & LT_SPAN_LOCK_WAIT) && s->lock_addr)
		lock_change(tl, s, s->begin_ts, +1);
	tl->stats.spans++;
	if (tl->sink.span_begin)
		tl->sink.span_begin(tl->sink.ctx, s);
}

static void span_open(struct lt_timeline *tl, struct tl_thread *th, const struct lt_event *enter,
		      uint64_t begin_ts, uint32_t flags, int pending)
{
	struct lt_span *s = &th->span;

	memset(s, 0, sizeof(*s));
	s->id = ++tl->next_span;
	s->tid = th->tid;
	s->thread_uid = th->uid;
	s->begin_ts = begin_ts;
	s->enter = *enter;
	s->nr = lt_entry_nr(enter);
	s->flags = classify(enter) | flags;
	s->tgid = th->tgid;
	if (enter->h.kind == LT_EV_FUTEX_ENTER && enter->futex.uaddr)
		s->futex_key = lt_lockid_key(tl->ids, th->tgid, enter->futex.uaddr,
					     lt_futex_private(enter->futex.nr, enter->futex.op));
	if ((s->flags & LT_SPAN_LOCK_WAIT) && enter->h.kind == LT_EV_FUTEX_ENTER)
		s->lock_addr = s->futex_key;
	th->in_span = 1;
	th->pending = (uint8_t)pending;
	th->woke_ts = 0;
	th->nin = th->nout = th->dropped = 0;
	if (!pending)
		span_started(tl, th);
}

static void span_close(struct lt_timeline *tl, struct tl_thread *th, uint64_t end_ts,
		       uint32_t flags, int has_ret, int64_t ret)
{
	struct lt_span *s = &th->span;

	s->end_ts = end_ts > s->begin_ts ? end_ts : s->begin_ts;
	s->flags |= flags;
	if (has_ret) {
		s->flags |= LT_SPAN_HAS_RESULT;
		s->ret = ret;
	}
	if (th->woke_ts || th->sleeping)
		s->flags |= LT_SPAN_SLEPT;
	if ((s->flags & LT_SPAN_LOCK_WAIT) && s->lock_addr)
		lock_change(tl, s, s->end_ts, -1);
	s->woke = th->out;
	s->nwoke = th->nout;
	s->woken_by = th->in;
	s->nwoken_by = th->nin;
	s->dropped_edges = th->dropped;
	if (tl->sink.span_end)
		tl->sink.span_end(tl->sink.ctx, s);
	th->in_span = 0;
	th->nin = th->nout = th->dropped = 0;
}

/* The thread did something that proves it left its call (a new call, a
 * mismatched return, exec) although the return was not recorded.  The end
 * is the first time it ran after sleeping in the call; a call it never
 * slept in ended about where it began. */
static void span_close_inferred(struct lt_timeline *tl, struct tl_thread *th, uint64_t proof_ts)
{
	uint64_t end;

	if (th->woke_ts)
		end = th->woke_ts;
	else if ((th->span.flags & LT_SPAN_AT_START) || th->sleeping)
		end = proof_ts;
	else
		end = th->span.begin_ts;
	tl->stats.inferred_ends++;
	span_close(tl, th, end, LT_SPAN_END_INFERRED, 0, 0);
}

static int push_edge(struct lt_timeline *tl, struct tl_thread *th, struct lt_wake_edge **v,
		     uint32_t *n, uint32_t *cap, const struct lt_wake_edge *e)
{
	if (*n >= tl->opts.max_edges) {
		th->dropped++;
		return -1;
	}
	if (*n == *cap) { /* most calls see one edge; a broadcast, many */
		uint32_t c = *cap ? *cap * 2 : 2;
		if (c > tl->opts.max_edges)
			c = tl->opts.max_edges;
		struct lt_wake_edge *nv = realloc(*v, c * sizeof(*nv));
		if (!nv) {
			th->dropped++;
			return -1;
		}
		*v = nv;
		*cap = c;
	}
	(*v)[(*n)++] = *e;
	return 0;
}

/* Snapshot calls become real once the model's time passes the snapshot:
 * until then an entry recorded before it may turn out to be the same call
 * (the collector attaches before it reads /proc). */
static void confirm_at_start(struct lt_timeline *tl)
{
	tl->confirmed = 1;
	for (size_t i = 0; i < tl->nthreads; i++) {
		struct tl_thread *th = tl->threads[i];
		if (!th->in_span || !th->pending)
			continue;
		th->pending = 0;
		th->span.begin_ts = tl->start_ts;
		th->sleeping = 1; /* blocked, as far as the snapshot knew */
		th->oncpu = CPU_OFF;
		th->woke_ts = 0;
		span_started(tl, th);
	}
}

/* ------------------------------------------------------------ interpret */

/* th was put on a cpu at ts: a sleep in its open call ended then. */
static void switched_in(struct tl_thread *th, uint64_t ts)
{
	if (th->in_span && !th->pending && th->sleeping && !th->woke_ts)
		th->woke_ts = ts;
	th->sleeping = 0;
	th->oncpu = CPU_ON;
}

/* th acts (ev: its call, recorded return, wake-up from a task, clone,
 * execve, exit, or leaving the cpu) but its last switch took it off a cpu: the switch that put it
 * back is not in the trace.  It is placed here, on ev's cpu, and told to
 * the sink as such (LT_SW_INFERRED). */
static void __attribute__((noinline)) unseen_switch_in(struct lt_timeline *tl, struct tl_thread *th,
						       const struct lt_event *ev)
{
	struct lt_event x;

	memset(&x, 0, sizeof(x));
	x.h.ts = ev->h.ts;
	x.h.cpu = ev->h.cpu;
	x.h.kind = LT_EV_SWITCH;
	x.h.flags = LT_SW_INFERRED;
	x.sw.next_tid = th->tid;
	x.sw.next_tgid = th->tgid;
	x.sw.next_prio = th->prio ? th->prio : 120;
	if (th->named)
		memcpy(x.sw.next_comm, th->comm, LT_COMM_LEN);
	tl->stats.unseen_switches++;
	switched_in(th, ev->h.ts);
	if (tl->sink.sched)
		tl->sink.sched(tl->sink.ctx, &x);
}

static inline void acting(struct lt_timeline *tl, struct tl_thread *th, const struct lt_event *ev)
{
	if (__builtin_expect(th->oncpu == CPU_OFF, 0))
		unseen_switch_in(tl, th, ev);
}

/* ev shows the thread that wrote or issued it running (taskrun.h). */
static void ran(struct lt_timeline *tl, const struct lt_event *ev)
{
	uint32_t tid = lt_run_actor(ev);
	struct tl_thread *th = tid ? lt_u64map_get(&tl->tmap, tid) : NULL;
	if (th)
		acting(tl, th, ev);
}

static void on_enter(struct lt_timeline *tl, const struct lt_event *ev)
{
	struct tl_thread *th = get_thread(tl, ev->h.tid, NULL, ev->h.ts, 0, NULL);
	if (!th)
		return;
	ran(tl, ev);
	if (th->in_span) {
		if (th->pending) /* the snapshot saw this very call, or an older one */
			th->in_span = th->pending = 0;
		else
			span_close_inferred(tl, th, ev->h.ts);
	}
	span_open(tl, th, ev, ev->h.ts, 0, 0);
}

static void on_exit_call(struct lt_timeline *tl, const struct lt_event *ev)
{
	struct tl_thread *th = get_thread(tl, ev->h.tid, NULL, ev->h.ts, 0, NULL);
	if (!th)
		return;
	/* --calls blocking writes returns when the thread runs again: at its
	 * switch-in, which comes first, or at the event that acts for it */
	ran(tl, ev);
	if (!th->in_span || th->pending) {
		tl->stats.orphan_exits++;
		return;
	}
	if (th->span.nr == ev->exit.nr || ev->exit.nr == LT_NR_UNKNOWN) {
		/* --calls blocking: when the thread ran again; no result */
		span_close(tl, th, ev->h.ts, 0, !(ev->h.flags & LT_F_RET_UNKNOWN), ev->exit.ret);
	} else { /* both this call's entry and the open call's return were lost */
		tl->stats.orphan_exits++;
		span_close_inferred(tl, th, ev->h.ts);
	}
}

static void on_waking(struct lt_timeline *tl, const struct lt_event *ev)
{
	struct tl_thread *wakee = get_thread(tl, ev->h.tid, NULL, ev->h.ts, 0, NULL);
	struct tl_thread *waker = NULL;
	struct lt_wake_edge e = { 0 };

	tl->stats.wakes++;
	e.id = ++tl->next_edge;
	e.ts = ev->h.ts;
	e.waker_tid = ev->wake.waker_tid;
	e.waker_tgid = ev->wake.waker_tgid;
	e.wakee_tid = ev->h.tid;
	memcpy(e.waker_comm, ev->wake.waker_comm, LT_COMM_LEN);
	e.waker_comm[LT_COMM_LEN - 1] = 0;
	if (ev->h.flags & LT_F_WAKEUP_NEW)
		e.flags |= LT_WAKE_NEW;
	if ((ev->h.flags & LT_F_WAKER_IDLE) || !ev->wake.waker_tid)
		e.flags |= LT_WAKE_IDLE;
	else if (ev->h.flags & LT_F_WAKER_IRQ)
		e.flags |= LT_WAKE_IRQ;
	/* also for an interrupt: the task it interrupted is another process's */
	if (ev->wake.waker_tid && !is_traced(tl, ev->wake.waker_tgid))
		e.flags |= LT_WAKE_OTHER;
	/* a wake-up issued from a task: the waker runs */
	if (lt_run_woken_by_task(ev) && !(e.flags & LT_WAKE_OTHER) &&
	    (waker = lt_u64map_get(&tl->tmap, e.waker_tid)))
		ran(tl, ev);

	/* a new thread's first wake-up ends no call; before the snapshot is
	 * confirmed the wakee's open call is not known */
	if (wakee && !(e.flags & LT_WAKE_NEW) && wakee->in_span && !wakee->pending)
		e.wakee_span = wakee->span.id;
	if (e.wakee_span && !(e.flags & (LT_WAKE_IDLE | LT_WAKE_IRQ | LT_WAKE_OTHER)) &&
	    e.waker_tid != e.wakee_tid) {
		/* the wake-up happened inside the waker's open call: the kernel
		 * issues it synchronously from FUTEX_WAKE & co. and from socket
		 * writes; a waker in any other call was merely running when an
		 * interrupt did the waking */
		if (waker && waker->in_span && !waker->pending && (waker->span.flags & LT_SPAN_WAKER)) {
			e.waker_span = waker->span.id;
			e.waker_call = waker->span.enter.h.kind;
		}
		if (e.waker_span && push_edge(tl, waker, &waker->out, &waker->nout, &waker->cap_out, &e))
			e.waker_span = 0;
	}
	if (e.wakee_span) {
		if (push_edge(tl, wakee, &wakee->in, &wakee->nin, &wakee->cap_in, &e) == 0 && e.waker_span)
			tl->stats.flows++;
		/* the waker keeps an edge the wakee could not store: harmless,
		 * a sink then sees a flow start that ends nowhere; drop it */
		else if (e.waker_span) {
			if (waker->nout)
				waker->nout--;
			e.waker_span = 0;
		}
	}
	if (tl->sink.wake)
		tl->sink.wake(tl->sink.ctx, &e);
}

static void on_switch(struct lt_timeline *tl, const struct lt_event *ev)
{
	struct tl_thread *dead = NULL;

	if (is_traced(tl, ev->sw.prev_tgid)) {
		struct tl_thread *th = get_thread_of(tl, ev->sw.prev_tid, ev->sw.prev_tgid, ev->sw.prev_comm,
						     ev->h.ts, 0, NULL);
		if (th) {
			ran(tl, ev);
			learn_comm(tl, th, ev->sw.prev_comm, ev->h.ts);
			/* preempted or yielding tasks stay runnable */
			th->sleeping = !(ev->h.flags & LT_F_PREEMPT) && ev->sw.prev_state != 0;
			th->oncpu = CPU_OFF;
			th->prio = ev->sw.prev_prio;
			if (th->exited && (ev->sw.prev_state & TASK_DEAD_BIT))
				dead = th;
		}
	}
	if (is_traced(tl, ev->sw.next_tgid)) {
		struct tl_thread *th = get_thread_of(tl, ev->sw.next_tid, ev->sw.next_tgid, ev->sw.next_comm,
						     ev->h.ts, 0, NULL);
		if (th) {
			learn_comm(tl, th, ev->sw.next_comm, ev->h.ts);
			switched_in(th, ev->h.ts);
			th->prio = ev->sw.next_prio;
		}
	}
	if (tl->sink.sched)
		tl->sink.sched(tl->sink.ctx, ev);
	if (dead && dead != lt_u64map_get(&tl->tmap, ev->sw.next_tid))
		drop_thread(tl, dead);
}

static void on_task_new(struct lt_timeline *tl, const struct lt_event *ev)
{
	struct tl_thread *th = lt_u64map_get(&tl->tmap, ev->h.tid);
	if (th && th->exited) { /* tid reused: a new instance */
		drop_thread(tl, th);
		th = NULL;
	}
	/* written by the thread that called clone: it runs */
	struct tl_thread *parent = lt_u64map_get(&tl->tmap, ev->tnew.parent_tid);
	ran(tl, ev);
	uint32_t tgid = ev->tnew.tgid;
	if (tgid && !is_traced(tl, tgid)) { /* a process forked from a traced one */
		add_proc(tl, tgid);
		lt_lockid_fork(tl->ids, parent ? parent->tgid : tl->pid, tgid);
	}
	if (!th) {
		get_thread_of(tl, ev->h.tid, tgid, ev->tnew.comm, ev->h.ts, 0, ev);
		return;
	}
	learn_comm(tl, th, ev->tnew.comm, ev->h.ts);
}

static void on_task_exit(struct lt_timeline *tl, const struct lt_event *ev)
{
	struct tl_thread *th = get_thread(tl, ev->h.tid, NULL, ev->h.ts, 0, NULL);
	if (!th)
		return;
	ran(tl, ev); /* written by the exiting thread itself */
	if (th->in_span && th->pending)
		th->in_span = th->pending = 0;
	if (th->in_span) { /* killed in the call, e.g. by exit_group */
		tl->stats.inferred_ends++;
		span_close(tl, th, ev->h.ts, LT_SPAN_END_INFERRED | LT_SPAN_THREAD_EXIT, 0, 0);
	}
	th->exited = 1;
	emit_thread(tl, LT_THREAD_EXIT, ev->h.ts, th, NULL, 0, ev);
}

static void rename_thread(struct lt_timeline *tl, struct tl_thread *th, const char *comm,
			  uint64_t ts, const struct lt_event *ev)
{
	char old[LT_COMM_LEN];
	if (!comm[0] || (th->named && !strncmp(th->comm, comm, LT_COMM_LEN)))
		return;
	memcpy(old, th->comm, sizeof(old));
	set_comm(th, comm);
	th->named = 1;
	emit_thread(tl, LT_THREAD_RENAME, ts, th, old, 0, ev);
}

static void on_exec(struct lt_timeline *tl, const struct lt_event *ev)
{
	uint32_t tid = ev->h.tid, old = ev->exec.old_tid;

	if (old && old != tid) { /* a non-leader exec'd and took the leader's id */
		struct tl_thread *o = lt_u64map_get(&tl->tmap, old);
		if (o) {
			if (o->in_span && !o->pending)
				span_close_inferred(tl, o, ev->h.ts);
			o->in_span = 0;
			if (!o->exited) {
				o->exited = 1;
				emit_thread(tl, LT_THREAD_EXIT, ev->h.ts, o, NULL, 0, NULL);
			}
		}
		struct tl_thread *l = lt_u64map_get(&tl->tmap, tid);
		if (l && l->exited)
			drop_thread(tl, l);
	}
	struct tl_thread *th = get_thread(tl, tid, ev->exec.comm, ev->h.ts, 0, NULL);
	if (!th)
		return;
	if (old && old != tid) { /* the thread that runs now is old's */
		th->sleeping = 0;
		th->oncpu = CPU_ON;
	} else {
		ran(tl, ev);
	}
	if (th->in_span) { /* it was in execve, not in the open call */
		if (th->pending)
			th->in_span = th->pending = 0;
		else
			span_close_inferred(tl, th, ev->h.ts);
	}
	rename_thread(tl, th, ev->exec.comm, ev->h.ts, ev);
	emit_thread(tl, LT_THREAD_EXEC, ev->h.ts, th, NULL, 0, ev);
}

/* The trace begins: at its first event, or at the attach if that came
 * first (the collector attaches before it reads the clock, so a busy
 * thread's events may precede the header's time). */
static void start(struct lt_timeline *tl, uint64_t ts)
{
	tl->started = 1;
	tl->start_ts = ts;
	if (tl->sink.start)
		tl->sink.start(tl->sink.ctx, ts);
}

static void interpret(struct lt_timeline *tl, const struct lt_event *ev)
{
	uint64_t ts = ev->h.ts;

	if (!tl->started) {
		tl->stats.first_ts = ts;
		start(tl, ts < tl->attach_ts ? ts : tl->attach_ts);
	}
	if (ts > tl->now)
		tl->now = ts;
	if (ts > tl->stats.last_ts)
		tl->stats.last_ts = ts;
	if (!tl->confirmed && ts > tl->attach_ts)
		confirm_at_start(tl);

	switch (ev->h.kind) {
	case LT_EV_FUTEX_ENTER:
	case LT_EV_WAIT_ENTER:
	case LT_EV_IO_ENTER:
	case LT_EV_FLOCK_ENTER:
		on_enter(tl, ev);
		break;
	case LT_EV_SYS_EXIT:
		on_exit_call(tl, ev);
		break;
	case LT_EV_SWITCH:
		on_switch(tl, ev);
		break;
	case LT_EV_WAKING:
		on_waking(tl, ev);
		if (tl->sink.sched)
			tl->sink.sched(tl->sink.ctx, ev);
		break;
	case LT_EV_TASK_NEW:
		on_task_new(tl, ev);
		break;
	case LT_EV_TASK_EXIT:
		on_task_exit(tl, ev);
		break;
	case LT_EV_RENAME: {
		struct tl_thread *th = get_thread(tl, ev->h.tid, ev->ren.oldcomm, ts, 0, NULL);
		if (th)
			rename_thread(tl, th, ev->ren.newcomm, ts, ev);
		break;
	}
	case LT_EV_EXEC:
		on_exec(tl, ev);
		break;
	case LT_EV_LOST:
		tl->stats.lost += ev->lost.count;
		if (tl->sink.lost)
			tl->sink.lost(tl->sink.ctx, ev);
		break;
	default:
		break;
	}
}

/* --------------------------------------------------------- sort window */

static void release_head(struct lt_timeline *tl)
{
	struct lt_event ev = RING(tl, 0);
	tl->rhead = (tl->rhead + 1) & (tl->rcap - 1);
	tl->rn--;
	tl->released_ts = ev.h.ts;
	tl->released_any = 1;
	interpret(tl, &ev);
}

static int ring_grow(struct lt_timeline *tl)
{
	/* a ring: copied in order, not realloc'd */
	size_t cap = lt_grow_cap(tl->rcap, tl->rcap + 1, sizeof(struct lt_event), 1024);
	struct lt_event *r = cap ? malloc(cap * sizeof(*r)) : NULL;
	if (!r)
		return -ENOMEM;
	for (size_t k = 0; k < tl->rn; k++)
		r[k] = RING(tl, k);
	free(tl->ring);
	tl->ring = r;
	tl->rcap = cap;
	tl->rhead = 0;
	return 0;
}

int lt_timeline_event(struct lt_timeline *tl, const struct lt_event *ev)
{
	uint64_t ts = ev->h.ts;
	int ret = 0;

	if (tl->finished || ev->h.kind == LT_EV_NONE || ev->h.kind >= LT_EV_MAX)
		return 0;
	tl->stats.events++;
	if (tl->released_any && ts < tl->released_ts) {
		/* later than the window allows: interpret it now rather than
		 * drop it; the model tolerates the disorder */
		tl->stats.late++;
		interpret(tl, ev);
		return 0;
	}
	if (tl->rn == tl->rcap) {
		if (tl->rcap >= tl->opts.reorder_max || ring_grow(tl)) {
			ret = tl->rcap >= tl->opts.reorder_max ? 0 : -ENOMEM;
			if (!tl->rn) { /* could not allocate even the first slot */
				interpret(tl, ev);
				return ret;
			}
			release_head(tl);
		}
	}
	/* stable insertion from the tail: equal timestamps keep arrival order */
	size_t i = tl->rn;
	while (i > 0 && RING(tl, i - 1).h.ts > ts) {
		RING(tl, i) = RING(tl, i - 1);
		i--;
	}
	RING(tl, i) = *ev;
	tl->rn++;
	if (tl->rn > tl->stats.max_held)
		tl->stats.max_held = tl->rn;
	if (ts > tl->max_seen)
		tl->max_seen = ts;
	while (tl->rn && RING(tl, 0).h.ts + tl->opts.reorder_ns <= tl->max_seen)
		release_head(tl);
	return ret;
}

/* -------------------------------------------------------------- public */

struct lt_timeline *lt_timeline_new(const struct lt_header *hdr, const struct lt_timeline_sink *sink,
				    const struct lt_timeline_opts *opts)
{
	struct lt_timeline *tl = calloc(1, sizeof(*tl));
	if (!tl)
		return NULL;
	if (sink)
		tl->sink = *sink;
	if (opts)
		tl->opts = *opts;
	if (!tl->opts.reorder_ns)
		tl->opts.reorder_ns = LT_TIMELINE_REORDER_NS;
	if (!tl->opts.reorder_max)
		tl->opts.reorder_max = LT_TIMELINE_REORDER_MAX;
	if (!tl->opts.max_edges)
		tl->opts.max_edges = LT_TIMELINE_MAX_EDGES;
	tl->pid = (uint32_t)hdr->pid;
	tl->ids = opts && opts->lockid ? opts->lockid : lt_lockid_new(hdr);
	tl->own_ids = !(opts && opts->lockid);
	if (!tl->ids) {
		free(tl);
		return NULL;
	}
	for (uint32_t i = 0; i < hdr->nprocs; i++)
		add_proc(tl, (uint32_t)hdr->procs[i].tgid);
	for (uint32_t i = 0; i < hdr->nthreads; i++)
		add_proc(tl, (uint32_t)hdr->threads[i].tgid);
	tl->attach_ts = hdr->clock_boottime;
	tl->start_ts = hdr->clock_boottime;

	for (uint32_t i = 0; i < hdr->nthreads; i++) {
		const struct lt_thread_info *t = &hdr->threads[i];
		struct lt_event e;
		if (t->tid <= 0)
			continue;
		struct tl_thread *th = get_thread_of(tl, (uint32_t)t->tid, (uint32_t)(t->tgid > 0 ? t->tgid : 0),
						     t->comm, hdr->clock_boottime, 1, NULL);
		if (!th) {
			lt_timeline_free(tl);
			return NULL;
		}
		/* asleep in a call at attach (taskrun.h; not a launched
		 * target's wait in locktrace's own gate) */
		if (lt_run_attach_call(hdr, t) >= 0 && entry_from_snapshot(t, &e) == 0) {
			e.h.ts = hdr->clock_boottime;
			span_open(tl, th, &e, hdr->clock_boottime, LT_SPAN_AT_START, 1);
			th->span.blocked_before_ns = t->blocked_ns;
		}
	}
	return tl;
}

void lt_timeline_finish(struct lt_timeline *tl, uint64_t end_ts)
{
	if (tl->finished)
		return;
	while (tl->rn)
		release_head(tl);
	if (!tl->started)
		start(tl, tl->attach_ts);
	if (!tl->confirmed)
		confirm_at_start(tl);
	uint64_t end = end_ts ? end_ts : tl->now;
	if (end < tl->now)
		end = tl->now;
	if (end < tl->start_ts)
		end = tl->start_ts;
	for (size_t i = 0; i < tl->nthreads; i++) {
		struct tl_thread *th = tl->threads[i];
		if (!th->in_span)
			continue;
		if ((th->span.flags & LT_SPAN_AT_START) && th->woke_ts) {
			/* a snapshot call never gets a recorded return; the
			 * thread ran again, so it left the call then */
			tl->stats.inferred_ends++;
			span_close(tl, th, th->woke_ts, LT_SPAN_END_INFERRED, 0, 0);
		} else {
			span_close(tl, th, end, LT_SPAN_UNFINISHED, 0, 0);
		}
	}
	tl->now = end;
	tl->finished = 1;
}

void lt_timeline_free(struct lt_timeline *tl)
{
	if (!tl)
		return;
	for (size_t i = 0; i < tl->nthreads; i++) {
		free(tl->threads[i]->in);
		free(tl->threads[i]->out);
		free(tl->threads[i]);
	}
	free(tl->threads);
	lt_u64map_free(&tl->tmap);
	for (size_t i = 0; i < tl->lmap.cap; i++)
		free(tl->lmap.vals[i]);
	lt_u64map_free(&tl->lmap);
	free(tl->ring);
	lt_u64map_free(&tl->procs);
	if (tl->own_ids)
		lt_lockid_free(tl->ids);
	free(tl);
}

struct lt_lockid *lt_timeline_lockid(const struct lt_timeline *tl)
{
	return tl->ids;
}

uint32_t lt_timeline_tgid(const struct lt_timeline *tl, uint32_t tid)
{
	const struct tl_thread *th = lt_u64map_get(&tl->tmap, tid);
	return th ? th->tgid : 0;
}

const struct lt_timeline_stats *lt_timeline_stats(const struct lt_timeline *tl)
{
	return &tl->stats;
}

uint64_t lt_timeline_start(const struct lt_timeline *tl)
{
	return tl->start_ts;
}

const struct lt_span *lt_timeline_open_span(const struct lt_timeline *tl, uint32_t tid)
{
	const struct tl_thread *th = lt_u64map_get(&tl->tmap, tid);
	return th && th->in_span && !th->pending ? &th->span : NULL;
}
