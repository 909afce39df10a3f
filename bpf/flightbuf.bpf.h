/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The flight recorder's memory in the kernel (include/locktrace/flightbuf.h):
 * with flightbuf set, reserve()/submit() of locktrace.bpf.c fill each ring
 * record in a per-cpu buffer and copy it into the next units of this cpu's
 * circular array instead of the ring buffer, overwriting the oldest;
 * nobody reads them until a dump.  With fb_stream too (every recording but
 * the flight recorder's units), the collector reads them as they come and
 * a record never overwrites a unit it has not read (fb_room).  With
 * fb_stall, every record written also updates the stall rule's state (per
 * thread: the call it is blocked in; per cpu: the last progress), the same
 * rules as src/record/stall.c applies to events, which the collector polls.
 * Included by locktrace.bpf.c before its reserve(); nothing else of it is
 * used here.
 */
#ifndef LOCKTRACE_FLIGHTBUF_BPF_H
#define LOCKTRACE_FLIGHTBUF_BPF_H

#include "locktrace/flightbuf.h"
#include "locktrace/futex.h"

const volatile bool flightbuf = 0;
const volatile bool fb_stall = 0;
const volatile __u32 fb_nunits = LT_FB_MIN_NUNITS; /* units per cpu, a power of two */
/* A bounded recording's events in the units (flightbuf set too): the
 * collector reads them as they come (include/locktrace/flightbuf.h: struct
 * lt_fb_tail), and a record that would overwrite units it has not read yet
 * is left out and counted lost, as a full ring's would be. */
const volatile bool fb_stream = 0;

struct {
	__uint(type, BPF_MAP_TYPE_ARRAY);
	__uint(map_flags, BPF_F_MMAPABLE);
	__uint(max_entries, 1); /* ncpus * nunits, set by user space */
	__type(key, __u32);
	__type(value, struct lt_fb_unit);
} fb_units SEC(".maps");

struct {
	__uint(type, BPF_MAP_TYPE_PERCPU_ARRAY);
	__uint(max_entries, 1);
	__type(key, __u32);
	__type(value, struct lt_fb_cpu);
} fb_cpu SEC(".maps");

struct {
	__uint(type, BPF_MAP_TYPE_HASH);
	__uint(max_entries, 1); /* set by user space with fb_stall */
	__type(key, __u32);
	__type(value, struct lt_fb_thread);
} fb_threads SEC(".maps");

struct {
	__uint(type, BPF_MAP_TYPE_PERCPU_ARRAY);
	__uint(max_entries, 1);
	__type(key, __u32);
	__type(value, struct lt_fb_progress);
} fb_progress SEC(".maps");

struct {
	__uint(type, BPF_MAP_TYPE_ARRAY);
	__uint(map_flags, BPF_F_MMAPABLE);
	__uint(max_entries, 1); /* ncpus with fb_stream */
	__type(key, __u32);
	__type(value, struct lt_fb_tail);
} fb_tails SEC(".maps");

#define fb_barrier() asm volatile("" ::: "memory")

/*
 * No atomic anywhere here: this cpu's struct lt_fb_cpu is written only by
 * programs running on this cpu, which do not migrate (tracepoint programs
 * run with preemption off).  What can happen is nesting: a program run
 * with interrupts on (sys_enter/sys_exit, task_newtask, exec, exit,
 * rename) interrupted by one run from the interrupt (sched_waking of a
 * thread woken by a timer or a device), which runs to its end before the
 * first goes on.  So:
 *  - nest: each program increments it when it begins a record and puts it
 *    back when done; one that interrupts sees the count of the one it
 *    interrupted plus one (or, between that one's load and store, the same
 *    count: it finishes and puts it back before the interrupted store),
 *    so two records being filled never share a buffer of rec[];
 *  - head: claimed at commit by a load and a store.  An interrupt between
 *    the two makes both records take the same units: the interrupted one
 *    is copied last and overwrites the other's units, which the tags then
 *    show as remnants (a record lost, counted as overwritten; never a torn
 *    record kept).  An atomic add would close that window of two
 *    instructions at the price of a locked instruction on every record.
 */

/* A record of size bytes to fill on this cpu; its bytes, or NULL (too
 * large, or nested deeper than LT_FB_NEST). */
static __always_inline void *fb_reserve(__u32 size)
{
	struct lt_fb_cpu *c;
	__u32 zero = 0, n;

	if (size > LT_FB_MAXREC)
		return NULL;
	c = bpf_map_lookup_elem(&fb_cpu, &zero);
	if (!c)
		return NULL;
	n = c->nest;
	if (n >= LT_FB_NEST)
		return NULL;
	c->nest = n + 1;
	c->len[n] = size;
	return c->rec[n];
}

/* Unit i of a record claimed at s: tagged as part of it, its data copied
 * from src.  The unit, or NULL. */
static __always_inline struct lt_fb_unit *fb_put(__u32 base, __u64 s, __u32 i, const void *src)
{
	__u32 idx = base + (((__u32)s + i) & (fb_nunits - 1));
	struct lt_fb_unit *u = bpf_map_lookup_elem(&fb_units, &idx);

	if (!u)
		return NULL;
	u->tag = LT_FB_TAG(s, 0);
	fb_barrier();
	__builtin_memcpy(u->data, src, LT_FB_UDATA);
	return u;
}

/* An event of kind lost: counted per cpu (the ring's and the units'). */
static __always_inline void count_lost(__u8 kind)
{
	__u32 k = kind;
	__u64 *c = bpf_map_lookup_elem(&lost, &k);

	if (c)
		*c += 1;
}

/* fb_stream: the collector woken (8 bytes into the events' ring, which it
 * ignores); it reads the units every 20 ms otherwise. */
static __always_inline void fb_wake(void)
{
	__u64 nil = 0;

	bpf_ringbuf_output(&events, &nil, sizeof(nil), BPF_RB_FORCE_WAKEUP);
}

/* fb_stream: may this cpu's record of k units, claimed at s, go into the
 * units, or would it write over units the collector has not read (its
 * tail, read once: a stale one only says fuller)?  If not, its events are
 * counted lost.  If it may and takes the unread units past a quarter of
 * them, the collector is woken. */
static __always_inline bool fb_room(__u64 s, __u32 k, const __u8 *rec)
{
	__u32 cpu = bpf_get_smp_processor_id();
	struct lt_fb_tail *t = bpf_map_lookup_elem(&fb_tails, &cpu);
	const struct lt_ev_hdr *h = (const void *)rec;
	__u64 used = t ? s - *(volatile __u64 *)&t->tail : 0, q = fb_nunits / 4;

	if (t && used + k <= fb_nunits) {
		if (used < q && used + k >= q)
			fb_wake();
		return true;
	}
	count_lost(h->kind);
	/* a call's entry with its switch or wake-up (reserve2) */
	if (h->flags & LT_F_AT_SLEEP)
		count_lost(LT_EV_SWITCH);
	else if (h->flags & LT_F_AT_WAKE)
		count_lost(LT_EV_WAKING);
	return false;
}

/* The record filled at level n of c, len bytes: into the next units. */
static __always_inline void fb_copy(struct lt_fb_cpu *c, __u32 n)
{
	__u32 len = c->len[n & (LT_FB_NEST - 1)], base = bpf_get_smp_processor_id() * fb_nunits;
	const __u8 *src = c->rec[n & (LT_FB_NEST - 1)];
	struct lt_fb_unit *first;
	__u64 s = c->head;

	if (fb_stream && !fb_room(s, LT_FB_UNITS(len), src))
		return;
	c->head = s + LT_FB_UNITS(len);
	c->records++;
	first = fb_put(base, s, 0, src);
	if (!first)
		return;
	if (len > LT_FB_UDATA && !fb_put(base, s, 1, src + LT_FB_UDATA))
		return;
	if (len > 2 * LT_FB_UDATA && !fb_put(base, s, 2, src + 2 * LT_FB_UDATA))
		return;
	fb_barrier();
	first->tag = LT_FB_TAG(s, len);
}

static __always_inline void fb_progress_at(__u64 ts, bool lock)
{
	__u32 zero = 0;
	struct lt_fb_progress *p = bpf_map_lookup_elem(&fb_progress, &zero);

	if (!p)
		return;
	p->last_progress = ts;
	if (lock)
		p->last_lock_progress = ts;
	p->events++;
}

/* stall.c's ended_well: did the open call (ended with no return value)
 * succeed? */
static __always_inline bool fb_ended_well(const struct lt_fb_thread *t)
{
	if (t->woken == LT_FB_WOKEN_BY_TASK)
		return true;
	if (t->woken != LT_FB_WOKEN_BY_IRQ || t->state != LT_FB_TS_IOWAIT)
		return false;
	return t->timeout < 0 || t->woken_at - t->since + 1000000 < (__u64)t->timeout;
}

/* The open call of t returned (ret known) or its thread ran again (ret
 * unknown: its wake-up decides), at ts. */
static __always_inline void fb_close(struct lt_fb_thread *t, __u64 ts, bool known, __s64 ret)
{
	__u16 nr = t->futex_op >> 16;

	if (!known)
		ret = !(t->state == LT_FB_TS_FUTEX_OTHER || fb_ended_well(t)) ? -1
		      : t->state == LT_FB_TS_FUTEX_WAIT ? 0 : 1;
	if (t->state == LT_FB_TS_FUTEX_WAIT && t->futex_op != LT_FB_FILE_LOCK_OP_TRACED && ret != 0 &&
	    (ret == -LT_FB_ETIMEDOUT || (!known && t->woken == LT_FB_WOKEN_BY_IRQ))) {
		/* out of time (its timer woke it): a wait on the same futex
		 * next goes on with this one */
		t->retry_uaddr = t->uaddr;
		t->retry_since = t->since;
	} else if (t->state != LT_FB_TS_FUTEX_OTHER) {
		t->retry_uaddr = 0; /* it got somewhere, or waited for something else */
	}
	if (t->state == LT_FB_TS_FUTEX_WAIT && ret == 0)
		fb_progress_at(ts, true);
	else if (t->state == LT_FB_TS_FUTEX_OTHER &&
		 lt_futex_wakes(nr ? nr : LT_NR_FUTEX, t->futex_op & 0xffff) && ret > 0)
		fb_progress_at(ts, true);
	else if (t->state == LT_FB_TS_IOWAIT && ret > 0)
		fb_progress_at(ts, false);
	t->state = LT_FB_TS_NONE;
}

/* A call's entry: the thread is in it from now (at_sleep: from the switch
 * that put it to sleep; it ends when the thread runs again). */
static __always_inline void fb_open(struct lt_event *e)
{
	struct lt_fb_thread n = {}, *t;
	__u32 tid = e->h.tid;
	__u8 kind = e->h.kind;

	if (kind == LT_EV_FUTEX_ENTER && (e->h.flags & LT_F_AT_WAKE)) {
		/* a call that woke a thread: a lock hand-off if it is a wake */
		if (lt_futex_wakes(e->futex.nr, e->futex.op))
			fb_progress_at(e->h.ts, true);
		return;
	}
	if (e->h.flags & LT_F_AT_WAKE)
		return; /* a socket call that woke a reader: not progress (stall.c) */
	t = bpf_map_lookup_elem(&fb_threads, &tid);
	if (t && t->state != LT_FB_TS_NONE && t->at_sleep)
		fb_close(t, e->h.ts, false, 0); /* it ran again unseen */
	n.since = e->h.ts;
	n.timeout = -1;
	if (t && t->state == LT_FB_TS_NONE) {
		/* a futex call that is no wait keeps a retry pending */
		n.retry_uaddr = t->retry_uaddr;
		n.retry_since = t->retry_since;
	}
	n.tgid = bpf_get_current_pid_tgid() >> 32;
	n.at_sleep = (e->h.flags & LT_F_AT_SLEEP) != 0;
	if (kind == LT_EV_FUTEX_ENTER) {
		n.state = lt_futex_waits(e->futex.nr, e->futex.op) ? LT_FB_TS_FUTEX_WAIT
								   : LT_FB_TS_FUTEX_OTHER;
		n.futex_op = e->futex.op | (__u32)e->futex.nr << 16;
		n.uaddr = e->futex.uaddr;
		n.val = e->futex.val;
		if (n.state == LT_FB_TS_FUTEX_WAIT) {
			if (n.retry_uaddr && n.retry_uaddr == n.uaddr)
				n.since = n.retry_since; /* the same wait again after its time ran out */
			n.retry_uaddr = 0;
		}
	} else if (kind == LT_EV_FLOCK_ENTER) {
		/* a file-lock call that can wait counts as a lock wait (its
		 * success as a hand-off); one that cannot as any call */
		if (lt_flock_may_wait(e->flk.nr, e->flk.cmd, e->flk.type)) {
			n.state = LT_FB_TS_FUTEX_WAIT;
			n.futex_op = LT_FB_FILE_LOCK_OP_TRACED;
		} else {
			n.state = LT_FB_TS_IOWAIT;
		}
		n.flk = e->flk;
	} else {
		n.state = LT_FB_TS_IOWAIT;
		if (kind == LT_EV_WAIT_ENTER)
			n.timeout = e->wait.timeout_ns;
	}
	if (t)
		*t = n;
	else
		bpf_map_update_elem(&fb_threads, &tid, &n, BPF_ANY);
}

/* One event of a record just written: the stall rule's state. */
static __noinline void fb_note1(struct lt_event *e)
{
	struct lt_fb_thread *t;
	__u32 tid;

	switch (e->h.kind) {
	case LT_EV_FUTEX_ENTER:
	case LT_EV_WAIT_ENTER:
	case LT_EV_IO_ENTER:
	case LT_EV_FLOCK_ENTER:
		fb_open(e);
		break;
	case LT_EV_SYS_EXIT:
		tid = e->h.tid;
		t = bpf_map_lookup_elem(&fb_threads, &tid);
		if (t && t->state != LT_FB_TS_NONE)
			fb_close(t, e->h.ts, !(e->h.flags & LT_F_RET_UNKNOWN), e->exit.ret);
		break;
	case LT_EV_WAKING:
		tid = e->h.tid;
		t = bpf_map_lookup_elem(&fb_threads, &tid);
		if (!t || t->state == LT_FB_TS_NONE)
			break;
		if (t->state == LT_FB_TS_FUTEX_WAIT && t->futex_op == LT_FB_FILE_LOCK_OP) {
			/* a file lock granted (or a signal): no return follows */
			t->state = LT_FB_TS_NONE;
			fb_progress_at(e->h.ts, true);
		} else if (!t->woken) {
			t->woken = e->h.flags & (LT_F_WAKER_IRQ | LT_F_WAKER_IDLE) ? LT_FB_WOKEN_BY_IRQ
										     : LT_FB_WOKEN_BY_TASK;
			t->woken_at = e->h.ts;
		}
		break;
	case LT_EV_SWITCH:
		tid = e->sw.next_tid;
		t = bpf_map_lookup_elem(&fb_threads, &tid);
		if (t && t->state != LT_FB_TS_NONE && t->at_sleep)
			fb_close(t, e->h.ts, false, 0); /* it runs again */
		break;
	case LT_EV_TASK_EXIT:
		tid = e->h.tid;
		bpf_map_delete_elem(&fb_threads, &tid);
		break;
	}
}

/* The record e (from fb_reserve) is complete: the stall state, then the
 * units. */
static __always_inline void fb_commit(void *e)
{
	struct lt_fb_cpu *c;
	__u32 zero = 0, n;

	if (fb_stall) {
		struct lt_event *ev = e;
		__u32 n = 0;

		switch (ev->h.kind) {
		case LT_EV_FUTEX_ENTER: n = LT_REC_SIZE(lt_futex_enter); break;
		case LT_EV_WAIT_ENTER: n = LT_REC_SIZE(lt_wait_enter); break;
		case LT_EV_IO_ENTER: n = LT_REC_SIZE(lt_io_enter); break;
		case LT_EV_FLOCK_ENTER: n = LT_REC_SIZE(lt_flock_enter); break;
		}
		fb_note1(ev);
		/* the switch or wake-up written with a call (reserve2) */
		if (n && (ev->h.flags & (LT_F_AT_SLEEP | LT_F_AT_WAKE)))
			fb_note1(e + n);
	}
	c = bpf_map_lookup_elem(&fb_cpu, &zero);
	if (!c)
		return;
	n = c->nest - 1; /* ours: any nested record was finished */
	if (n >= LT_FB_NEST)
		return;
	fb_copy(c, n);
	c->nest = n;
}

#endif
