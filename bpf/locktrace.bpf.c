// SPDX-License-Identifier: GPL-2.0
/*
 * locktrace kernel side: raw (BTF-typed) tracepoints only, so nothing here
 * needs tracefs, kprobes or fentry.  Every program first checks that the task
 * it is about belongs to a traced process (traced(): targ_tgid, set in rodata
 * before load; with several processes also one lookup in the traced_tgids
 * hash map), so other processes cost one comparison, or one comparison and
 * one constant-time map lookup when several are traced.  With follow_forks,
 * a process created by a traced one is added to the map at fork, in the
 * kernel (task_newtask, before its first event), and removed when it exits.
 * With --cgroup (targ_cgroup), a task is also traced when its cgroup in the
 * default (v2) hierarchy is a key of traced_cgroups: one more constant-time
 * lookup, and a process forked or moved into the cgroup is traced from its
 * first event, with nothing for user space to do.
 *
 * Events go to per-cpu circular arrays of 64-byte units (flightbuf.bpf.h,
 * flightbuf and fb_stream set: no lock, where a ring buffer's reservation
 * takes one with interrupts off) that the collector reads on a timer; it
 * is woken only when a cpu's unread units pass a quarter.  Per-event
 * wake-ups halve the target's throughput (see BENCHMARKS.md).  A record
 * that finds no room is counted per cpu and kind.  Without fb_stream
 * (LOCKTRACE_EVENTS_RING=1) they go to one ring buffer instead, a wake-up
 * forced past wake_bytes.
 *
 * With flightbuf alone (the flight recorder, --ring) the units are
 * overwrite buffers read only at a dump.
 *
 * With calls_at_switch (--calls blocking) the syscall programs are not
 * loaded at all: the switch and wake-up programs write the call a thread
 * sleeps in or wakes another from, read from its saved user registers.
 */
#include "vmlinux.h"
#include <bpf/bpf_helpers.h>
#include <bpf/bpf_tracing.h>
#include <bpf/bpf_core_read.h>
#include <bpf/bpf_endian.h>
#include "locktrace/event.h"
#include "locktrace/calls.h"
#include "locktrace/pyframes.h"
#include "locktrace/ocframes.h"

char LICENSE[] SEC("license") = "GPL";

const volatile __u32 targ_tgid = 0;
/* more than one process: the others are keys of traced_tgids.  False (the
 * default) lets the verifier drop the lookups: one process costs one
 * comparison, as before. */
const volatile bool targ_multi = 0;
/* add the processes a traced process forks (launch mode, --children) */
const volatile bool follow_forks = 0;
/* --cgroup: also trace every task whose v2 cgroup is in traced_cgroups,
 * except the recorder itself (it may run in the cgroup it records) */
const volatile bool targ_cgroup = 0;
const volatile __u32 self_tgid = 0;
const volatile __u64 wake_bytes = 1 << 20;
/* --calls blocking: the syscall programs are not loaded; the switch program
 * writes the call a thread goes to sleep in, from its saved registers. */
const volatile bool calls_at_switch = 0;

struct {
	__uint(type, BPF_MAP_TYPE_RINGBUF);
	__uint(max_entries, 16 << 20); /* resized by user space before load */
} events SEC(".maps");

/* record --stacks (with --calls blocking): wakers' registers and stack
 * bytes (struct lt_stack_copy), a ring of their own so that the events'
 * ring never waits for them; full: copies are skipped, never events. */
const volatile bool copy_waker_stacks = 0;
/* record --stacks: the long waits' stacks, copied at their wake-up (see
 * sleep_at); 0: no waiter copies */
const volatile __u64 waiter_copy_ns = 0;
/* record --stacks with waiters' copies: a waker's stack is copied when the
 * wake-up ends a sleep of waiter_copy_ns or more, and 1 in
 * waker_sample_every of the others (0: none of them) */
const volatile __u32 waker_sample_every = 0;
/* record --stacks --calls blocking: a long sleep of a thread that has
 * rseq registered (glibc 2.35 and later do it for every thread) is copied
 * in the thread's own context, at its return to user space (rseq_update:
 * its registers and stack are still the sleep's), not by its waker inside
 * sched_waking (under the wakee's pi_lock, on the hand-off's path, the
 * waiter's stack cold on the waker's cpu); 0: at the wake-up (the
 * default: LOCKTRACE_WAITER_COPY=return sets it) */
const volatile bool waiter_copy_at_return = 0;
struct {
	__uint(type, BPF_MAP_TYPE_RINGBUF);
	__uint(max_entries, 1 << 20); /* 4 KiB (one page) unless copy_waker_stacks */
} stack_copies SEC(".maps");

/* A waker's Python frames (include/locktrace/pyframes.h): the layout of
 * each CPython process and the thread state of each of its threads, both
 * filled by the collector; none for a process: native frames only. */
struct {
	__uint(type, BPF_MAP_TYPE_HASH);
	__uint(max_entries, LT_MAX_TGIDS); /* 1 unless copy_waker_stacks */
	__type(key, __u32);
	__type(value, struct lt_py_layout);
} py_layouts SEC(".maps");

struct {
	__uint(type, BPF_MAP_TYPE_HASH);
	__uint(max_entries, 65536); /* 1 unless copy_waker_stacks */
	__type(key, __u32);
	__type(value, __u64);
} py_tstates SEC(".maps");

/* A waker's OCaml 5 stack (include/locktrace/ocframes.h): where each
 * OCaml 5 process's stack-switching entry points are, filled by the
 * collector; none for a process: its C stack only. */
struct {
	__uint(type, BPF_MAP_TYPE_HASH);
	__uint(max_entries, LT_MAX_TGIDS); /* 1 unless copy_waker_stacks */
	__type(key, __u32);
	__type(value, struct lt_oc_layout);
} oc_layouts SEC(".maps");

/* Processes whose waiters are not copied (filled by the collector): an
 * OCaml 5 program's or a JVM's waits are read from where they sleep,
 * with their OCaml stack or Java frames, which a copy lacks; their copies
 * were taken on the hand-off path only to be dropped. */
struct {
	__uint(type, BPF_MAP_TYPE_HASH);
	__uint(max_entries, LT_MAX_TGIDS); /* 1 unless waiters' copies */
	__type(key, __u32);
	__type(value, __u8);
} waiters_read SEC(".maps");

/* record --stacks: processes (filled by the collector once it has opened
 * them) whose waits the BPF side's copies serve: neither a CPython, an OCaml
 * 5 nor a JVM process (those are read with their runtime's frames).  A wait
 * there that is copied when it ends (copy_flags) is flagged LT_F_BPF_COPY,
 * and the collector does not read it at 1 ms. */
struct {
	__uint(type, BPF_MAP_TYPE_HASH);
	__uint(max_entries, LT_MAX_TGIDS); /* 1 unless waiters' copies */
	__type(key, __u32);
	__type(value, __u8);
} copies_serve SEC(".maps");

/* The last time a wait the collector must read at 1 ms woke it (one
 * forced wake-up a millisecond at most; it drains every 20 ms otherwise
 * and every 1 ms while such a read is due or was seen in the last 2 ms). */
struct {
	__uint(type, BPF_MAP_TYPE_ARRAY);
	__uint(max_entries, 1);
	__type(key, __u32);
	__type(value, __u64);
} read_wake SEC(".maps");

/* Per cpu: flagged sleeps since the last one sampled (LT_F_BPF_SAMPLED). */
struct {
	__uint(type, BPF_MAP_TYPE_PERCPU_ARRAY);
	__uint(max_entries, 1);
	__type(key, __u32);
	__type(value, __u32);
} wait_skip SEC(".maps");

/* one frame's bytes, read at once */
struct {
	__uint(type, BPF_MAP_TYPE_PERCPU_ARRAY);
	__uint(max_entries, 1);
	__type(key, __u32);
	__type(value, __u8[LT_PY_BLOCK]);
} py_block SEC(".maps");

static __always_inline __u64 blk_u64(const __u8 *b, __u32 off)
{
	return *(const __u64 *)(b + (off & (LT_PY_BLOCK - 8)));
}

/* The waker's Python frame chain, innermost first, into O: one read of
 * its thread state and (3.11) its cframe, then one read per frame. */
static __always_inline void copy_py_frames(const struct lt_py_layout *l, __u32 tid,
					   struct lt_py_copy *o)
{
	__u32 zero = 0, sz = l->block;
	__u64 *tsp = bpf_map_lookup_elem(&py_tstates, &tid);
	__u8 *b = bpf_map_lookup_elem(&py_block, &zero);
	__u64 ts, f = 0, native = 0;

	o->magic = LT_PY_COPY_MAGIC;
	o->n = 0;
	o->pad = 0;
	o->end_at = 0;
	o->tstate = 0;
	o->end = LT_PYC_NO_TSTATE;
	if (!tsp || !b)
		return;
	ts = *tsp;
	o->tstate = ts;
	/* a thread state freed and taken by another thread reads as that one's */
	if (l->ts_native && (bpf_probe_read_user(&native, 8, (void *)(ts + l->ts_native)) ||
			     (__u32)native != tid))
		return;
	o->end = LT_PYC_UNREADABLE;
	o->end_at = ts;
	if (bpf_probe_read_user(&f, 8, (void *)(ts + l->ts_frame)))
		return;
	if (l->cf_frame >= 0 && f && bpf_probe_read_user(&f, 8, (void *)(f + (__u32)l->cf_frame)))
		return;
	if (sz > LT_PY_BLOCK)
		sz = LT_PY_BLOCK;
	if (sz < 8)
		sz = 8;
	o->end = LT_PYC_ALL;
	for (__u32 i = 0; i < LT_PY_COPY_FRAMES; i++) {
		if (!f)
			return;
		if (bpf_probe_read_user(b, sz, (void *)f)) {
			o->end = LT_PYC_UNREADABLE;
			o->end_at = f;
			return;
		}
		o->f[i].frame = f;
		o->f[i].code = blk_u64(b, l->off_code);
		o->f[i].a = blk_u64(b, l->off_a);
		o->f[i].b = blk_u64(b, l->off_b);
		o->n = i + 1;
		f = blk_u64(b, l->off_prev);
	}
	if (f) {
		o->end = LT_PYC_CUT;
		o->end_at = f;
	}
}

/* A waker copy: its registers and stack bytes, and for a CPython process
 * (a layout in py_layouts) its Python frames after them. */
struct lt_waker_py_copy {
	struct lt_stack_copy c;
	struct lt_py_copy py;
};

/* A waker copy of an OCaml 5 process: its registers and C stack bytes,
 * then its OCaml stack. */
struct lt_waker_oc_copy {
	struct lt_stack_copy c;
	struct lt_oc_copy oc;
};

static __always_inline __u64 stack_word(const struct lt_stack_copy *c, __u32 off)
{
	return *(const __u64 *)(c->stack + (off & (LT_STACK_COPY_BYTES - 8)));
}

/* copy_oc_stack's walks (bpf_loop: 256 words of stack, each against 4
 * ranges, would be unrolled by the verifier in every program inlining the
 * waker's copy) */
struct oc_scan {
	const struct lt_stack_copy *c;
	const struct lt_oc_layout *l;
	__u32 at, found, unreadable;
	__u64 sp, handler;
};

/* word I of the copy: a return address into an entry point? */
static long oc_find_entry(__u64 i, void *arg)
{
	struct oc_scan *s = arg;
	const struct lt_stack_copy *c = s->c;
	const struct lt_oc_layout *l = s->l;
	__u32 off = (__u32)i * 8;

	if (off + 8 > c->len || off + 8 > LT_STACK_COPY_BYTES)
		return 1;
	__u64 ra = stack_word(c, off);
	for (__u32 k = 0; k < LT_OC_ENTRIES; k++)
		if (k < l->n && ra > l->lo[k] && ra <= l->hi[k]) {
			s->at = off;
			s->found = 1;
			return 1;
		}
	return 0;
}

/* the K+1th word above the return address: a link { stack, sp, prev }
 * whose stack_info's handler lies above the saved sp? */
static long oc_find_link(__u64 k, void *arg)
{
	struct oc_scan *s = arg;
	const struct lt_stack_copy *c = s->c;
	__u32 off = s->at + 8 * ((__u32)k + 1);
	__u64 info[3];

	if (off + 24 > c->len || off + 24 > LT_STACK_COPY_BYTES)
		return 1;
	__u64 stack = stack_word(c, off), sp = stack_word(c, off + 8);
	if (!stack || (stack & 7) || (sp & 7) || sp <= stack || sp - stack > LT_OC_STACK_MAX)
		return 0;
	if (bpf_probe_read_user(info, sizeof(info), (void *)stack)) {
		s->unreadable = 1;
		return 0;
	}
	if (info[2] <= sp || info[2] - sp > LT_OC_STACK_MAX)
		return 0;
	s->sp = sp;
	s->handler = info[2];
	return 1;
}

/* The OCaml stack under the C stack copied in C (ocframes.h): the
 * innermost return address into an entry point of L, the link above it,
 * the stack it names, and that stack from the saved sp. */
static __always_inline void copy_oc_stack(const struct lt_oc_layout *l,
					  const struct lt_stack_copy *c, struct lt_oc_copy *o)
{
	struct oc_scan s = { .c = c, .l = l };

	o->magic = LT_OC_COPY_MAGIC;
	o->end = LT_OCC_NO_CALL;
	o->len = 0;
	o->pad = 0;
	o->base = 0;
	bpf_loop(LT_STACK_COPY_BYTES / 8, oc_find_entry, &s, 0);
	if (!s.found)
		return;
	bpf_loop(LT_OC_LINK_WORDS, oc_find_link, &s, 0);
	if (!s.sp) {
		if (s.unreadable)
			o->end = LT_OCC_UNREADABLE;
		return;
	}
	/* to the stack's end, and its handler's 4 words */
	__u64 len = s.handler - s.sp + 32;
	long err;
	o->base = s.sp;
	if (len >= LT_OC_COPY_BYTES) {
		len = LT_OC_COPY_BYTES;
		o->end = len == s.handler - s.sp + 32 ? LT_OCC_ALL : LT_OCC_CUT;
		err = bpf_probe_read_user(o->data, LT_OC_COPY_BYTES, (void *)s.sp);
	} else {
		len &= LT_OC_COPY_BYTES - 1; /* (for the verifier) */
		o->end = LT_OCC_ALL;
		err = bpf_probe_read_user(o->data, len, (void *)s.sp);
	}
	if (err) {
		o->end = LT_OCC_UNREADABLE;
		return;
	}
	o->len = len;
}

/* A stack copy's header: whose, when (ts: the wait's start or the wake;
 * at: when copied), its role and flags, the user registers it slept or
 * woke with; the stack bytes apart (copy_stack_bytes). */
static __always_inline void fill_copy(struct lt_stack_copy *c, const struct pt_regs *regs, __u32 tid,
				      __u32 tgid, __u64 ts, __u64 at, __u16 role, __u16 flags)
{
	c->ts = ts;
	c->at = at;
	c->tid = tid;
	c->tgid = tgid;
	c->role = role;
	c->pad = flags;
	c->ip = regs->ip;
	c->sp = regs->sp;
	c->bp = regs->bp;
	c->bx = regs->bx;
	c->r12 = regs->r12;
	c->r13 = regs->r13;
	c->r14 = regs->r14;
	c->r15 = regs->r15;
	c->ax = regs->ax;
	c->cx = regs->cx;
	c->dx = regs->dx;
	c->si = regs->si;
	c->di = regs->di;
	c->r8 = regs->r8;
	c->r9 = regs->r9;
	c->r10 = regs->r10;
	c->r11 = regs->r11;
}

/* LT_STACK_COPY_BYTES from the copy's sp, or, near the stack's top end,
 * what is left of sp's page (len 0: nothing readable). */
static __always_inline void copy_stack_bytes(struct lt_stack_copy *c)
{
	c->len = LT_STACK_COPY_BYTES;
	if (bpf_probe_read_user(c->stack, LT_STACK_COPY_BYTES, (void *)c->sp)) {
		/* near the stack's top end: what is left of sp's page */
		__u32 room = 4096 - (__u32)(c->sp & 4095);
		c->len = 0;
		if (room <= LT_STACK_COPY_BYTES &&
		    !bpf_probe_read_user(c->stack, room & (LT_STACK_COPY_BYTES - 1), (void *)c->sp))
			c->len = room;
	}
}

/* A stack copy submitted: no wake-up (the collector drains on its own
 * cadence) unless the copies' ring is a quarter full. */
static __always_inline void submit_copy(void *c)
{
	__u64 avail = bpf_ringbuf_query(&stack_copies, BPF_RB_AVAIL_DATA);
	__u64 size = bpf_ringbuf_query(&stack_copies, BPF_RB_RING_SIZE);

	bpf_ringbuf_submit(c, avail >= size / 4 ? BPF_RB_FORCE_WAKEUP : BPF_RB_NO_WAKEUP);
}

static __always_inline void copy_waker_stack(struct task_struct *cur, struct pt_regs *regs,
					     __u64 ts)
{
	__u32 tgid = cur->tgid;
	const struct lt_py_layout *pyl = bpf_map_lookup_elem(&py_layouts, &tgid);
	const struct lt_oc_layout *ocl = pyl ? NULL : bpf_map_lookup_elem(&oc_layouts, &tgid);
	struct lt_stack_copy *c;

	if (ocl) {
		struct lt_waker_oc_copy *w = bpf_ringbuf_reserve(&stack_copies, sizeof(*w), 0);
		if (!w)
			return;
		fill_copy(&w->c, regs, cur->pid, cur->tgid, ts, ts, LT_COPY_WAKER, 0);
		copy_stack_bytes(&w->c);
		copy_oc_stack(ocl, &w->c, &w->oc);
		submit_copy(w);
		return;
	}
	if (pyl) {
		struct lt_waker_py_copy *w = bpf_ringbuf_reserve(&stack_copies, sizeof(*w), 0);
		if (!w)
			return;
		copy_py_frames(pyl, cur->pid, &w->py);
		c = &w->c;
	} else {
		c = bpf_ringbuf_reserve(&stack_copies, sizeof(*c), 0);
		if (!c)
			return;
	}
	fill_copy(c, regs, cur->pid, cur->tgid, ts, ts, LT_COPY_WAKER, 0);
	copy_stack_bytes(c);
	submit_copy(c);
}

struct {
	__uint(type, BPF_MAP_TYPE_PERCPU_ARRAY);
	__uint(max_entries, LT_EV_MAX);
	__type(key, __u32);
	__type(value, __u64);
} lost SEC(".maps");

/* Per thread: the syscall whose entry was emitted, so that its exit is
 * emitted too (read/write are only emitted for sockets).  Streamed, only
 * the read/write family's (the socket test); the other calls' returns are
 * all written and the collector pairs them with their entries
 * (record_int.h: rec_pair_exit).  The kernel-side units (flightbuf) keep
 * it for every call: nothing pairs their records before a dump. */
struct {
	__uint(type, BPF_MAP_TYPE_TASK_STORAGE);
	__uint(map_flags, BPF_F_NO_PREALLOC);
	__type(key, int);
	__type(value, __u32);
} inflight SEC(".maps");

/* Traced processes besides targ_tgid (key tgid, value unused). */
struct {
	__uint(type, BPF_MAP_TYPE_HASH);
	__uint(max_entries, LT_MAX_TGIDS);
	__type(key, __u32);
	__type(value, __u8);
} traced_tgids SEC(".maps");

/* The traced cgroups (key: the cgroup's id, kernfs node id, which is the
 * inode number of its directory; value unused): the one given and those
 * below it when recording began. */
struct {
	__uint(type, BPF_MAP_TYPE_HASH);
	__uint(max_entries, LT_MAX_CGROUPS);
	__type(key, __u64);
	__type(value, __u8);
} traced_cgroups SEC(".maps");

static __always_inline bool traced_pid(__u32 tgid)
{
	if (tgid == targ_tgid)
		return true;
	return targ_multi && bpf_map_lookup_elem(&traced_tgids, &tgid);
}

/* Is the running task traced?  tgid: its tgid. */
static __always_inline bool traced_cur(__u32 tgid)
{
	if (traced_pid(tgid))
		return true;
	if (!targ_cgroup || tgid == self_tgid)
		return false;
	__u64 id = bpf_get_current_cgroup_id();
	return bpf_map_lookup_elem(&traced_cgroups, &id);
}

/* Is task t (any task, not necessarily running) traced? */
static __always_inline bool traced(struct task_struct *t)
{
	if (traced_pid(t->tgid))
		return true;
	if (!targ_cgroup || t->tgid == self_tgid)
		return false;
	__u64 id = BPF_CORE_READ(t, cgroups, dfl_cgrp, kn, id);
	return bpf_map_lookup_elem(&traced_cgroups, &id);
}

#define S_IFMT 00170000
#define S_IFSOCK 0140000
#define S_IFIFO 0010000


#include "flightbuf.bpf.h"
/* the flight recorder's units read only at a dump (--ring): its records
 * shortened (switches without comms) and every call marked (nothing pairs
 * returns with entries before the dump); streamed through the units
 * (fb_stream), a bounded recording's records are the ring's */
#define fb_dump_only (flightbuf && !fb_stream)

static __always_inline void *reserve(__u32 size, __u8 kind)
{
	void *e = flightbuf ? fb_reserve(size) : bpf_ringbuf_reserve(&events, size, 0);
	if (!e)
		count_lost(kind);
	return e;
}

/* ts: a time already read for a record written together with this one
 * (a clock read costs 60-80 ns in this VM), or 0 to read it */
static __always_inline void fill_hdr_at(struct lt_ev_hdr *h, __u8 kind, __u32 tid, __u64 ts)
{
	h->ts = ts ? ts : bpf_ktime_get_boot_ns();
	h->tid = tid;
	h->cpu = bpf_get_smp_processor_id();
	h->kind = kind;
	h->flags = 0;
}

static __always_inline void fill_hdr(struct lt_ev_hdr *h, __u8 kind, __u32 tid)
{
	fill_hdr_at(h, kind, tid, 0);
}

static __always_inline void submit(void *e)
{
	if (flightbuf) {
		fb_commit(e);
		return;
	}
	__u64 avail = bpf_ringbuf_query(&events, BPF_RB_AVAIL_DATA);
	bpf_ringbuf_submit(e, avail >= wake_bytes ? BPF_RB_FORCE_WAKEUP : BPF_RB_NO_WAKEUP);
}

static __always_inline __s64 read_timespec_ns(__u64 uptr)
{
	struct { __s64 sec; __s64 nsec; } ts;
	if (!uptr)
		return -1;
	if (bpf_probe_read_user(&ts, sizeof(ts), (void *)uptr))
		return -2; /* unreadable: distinct from "none" */
	return ts.sec * 1000000000LL + ts.nsec;
}

/* The file behind fd in t's file table, or NULL. */
static __always_inline struct file *fd_file(struct task_struct *t, int fd)
{
	struct files_struct *files = BPF_CORE_READ(t, files);
	struct fdtable *fdt;
	struct file **fdarr;
	struct file *f = NULL;
	unsigned int max;

	if (fd < 0 || !files)
		return NULL;
	fdt = BPF_CORE_READ(files, fdt);
	max = BPF_CORE_READ(fdt, max_fds);
	if ((unsigned int)fd >= max)
		return NULL;
	fdarr = BPF_CORE_READ(fdt, fd);
	if (bpf_probe_read_kernel(&f, sizeof(f), &fdarr[fd]))
		return NULL;
	return f;
}

/* The socket behind fd in t's file table, or NULL if fd is not a socket. */
static __always_inline struct socket *fd_socket(struct task_struct *t, int fd)
{
	struct file *f = fd_file(t, fd);

	if (!f || (BPF_CORE_READ(f, f_inode, i_mode) & S_IFMT) != S_IFSOCK)
		return NULL;
	return BPF_CORE_READ(f, private_data);
}

/* Whether a read or write on fd is recorded, and how its entry is
 * flagged: 0 a socket, LT_F_IO_PIPE a pipe or FIFO, -1 anything else
 * (files, devices: not recorded). */
static __always_inline int fd_io_kind(struct task_struct *t, int fd)
{
	struct file *f = fd_file(t, fd);
	umode_t mode;

	if (!f)
		return -1;
	mode = BPF_CORE_READ(f, f_inode, i_mode) & S_IFMT;
	return mode == S_IFSOCK ? 0 : mode == S_IFIFO ? LT_F_IO_PIPE : -1;
}

static __always_inline void mark_inflight(struct task_struct *t, __u32 nr)
{
	__u32 *v = bpf_task_storage_get(&inflight, t, 0, BPF_LOCAL_STORAGE_GET_F_CREATE);
	if (v)
		*v = nr + 1;
}

#define SZ_FUTEX LT_REC_SIZE(lt_futex_enter)
#define SZ_WAIT LT_REC_SIZE(lt_wait_enter)
#define SZ_IO LT_REC_SIZE(lt_io_enter)
/* the kernel-side units take a switch without its comms (flightbuf.h) */
#define SZ_SWITCH (fb_dump_only ? LT_FB_SWITCH_SIZE : LT_REC_SIZE(lt_switch))
#define SZ_WAKING LT_REC_SIZE(lt_waking)

/* A call's entry and the switch or wake-up it comes with, in one ring
 * record (one reservation instead of two; the collector splits it). */
static __always_inline void *reserve2(__u32 size, __u8 kind1, __u8 kind2)
{
	void *e = flightbuf ? fb_reserve(size) : bpf_ringbuf_reserve(&events, size, 0);
	if (!e) {
		count_lost(kind1);
		count_lost(kind2);
	}
	return e;
}

static __always_inline void fill_futex(struct lt_event *e, struct pt_regs *regs, long id,
				       __u32 tid, __u8 flags, __u64 ts)
{
	__u64 a0 = regs->di, a1 = regs->si, a2 = regs->dx, a3 = regs->r10, a4 = regs->r8,
	      a5 = regs->r9;

	fill_hdr_at(&e->h, LT_EV_FUTEX_ENTER, tid, ts);
	e->h.flags = flags;
	e->futex.nr = id;
	e->futex.pad = 0;
	e->futex.uaddr2 = 0;
	e->futex.val3 = 0;
	e->futex.timeout = -1;
	if (id == LT_NR_FUTEX) {
		e->futex.uaddr = a0;
		e->futex.op = a1;
		e->futex.val = a2;
		e->futex.uaddr2 = a4;
		e->futex.val3 = a5;
		if (lt_futex_waits(LT_NR_FUTEX, a1)) /* their 4th argument is a timespec */
			e->futex.timeout = read_timespec_ns(a3);
		else
			e->futex.timeout = (__u32)a3; /* val2 */
	} else if (id == LT_NR_FUTEX_WAITV) {
		/* (waiters, nr_futexes, flags, timeout, clockid) */
		struct { __u64 val; __u64 uaddr; __u32 flags; __u32 r; } w = {};
		bpf_probe_read_user(&w, sizeof(w), (void *)a0);
		e->futex.uaddr = w.uaddr;
		e->futex.val = w.val;
		e->futex.uaddr2 = a0;
		e->futex.val3 = a1;
		e->futex.op = a2;
		e->futex.timeout = read_timespec_ns(a3);
	} else if (id == LT_NR_FUTEX_WAIT) {
		/* (uaddr, val, mask, flags, timeout, clockid) */
		e->futex.uaddr = a0;
		e->futex.val = a1;
		e->futex.val3 = a2;
		e->futex.op = a3;
		e->futex.timeout = read_timespec_ns(a4);
	} else if (id == LT_NR_FUTEX_WAKE) {
		/* (uaddr, mask, nr, flags) */
		e->futex.uaddr = a0;
		e->futex.val3 = a1;
		e->futex.val = a2;
		e->futex.op = a3;
	} else { /* futex_requeue(waiters[2], flags, nr_wake, nr_requeue) */
		struct { __u64 val; __u64 uaddr; __u32 flags; __u32 r; } w[2] = {};
		bpf_probe_read_user(&w, sizeof(w), (void *)a0);
		e->futex.uaddr = w[0].uaddr;
		e->futex.uaddr2 = w[1].uaddr;
		e->futex.op = a1;
		e->futex.val = a2;
		e->futex.timeout = (__u32)a3;
	}
}


/* The index of the lowest set bit of v (v not 0): a binary search, six
 * steps. */
static __always_inline int lowest_bit(__u64 v)
{
	int i = 0;

	if (!(v & 0xffffffffull)) { v >>= 32; i += 32; }
	if (!(v & 0xffffull)) { v >>= 16; i += 16; }
	if (!(v & 0xffull)) { v >>= 8; i += 8; }
	if (!(v & 0xfull)) { v >>= 4; i += 4; }
	if (!(v & 0x3ull)) { v >>= 2; i += 2; }
	if (!(v & 0x1ull))
		i += 1;
	return i;
}

static __always_inline void fill_wait(struct lt_event *e, struct pt_regs *regs, long id,
				      __u32 tid, __u8 flags, __u64 ts)
{
	__u64 a0 = regs->di, a1 = regs->si, a2 = regs->dx, a3 = regs->r10, a4 = regs->r8;
	int i;

	fill_hdr_at(&e->h, LT_EV_WAIT_ENTER, tid, ts);
	e->h.flags = flags;
	e->wait.nr = id;
	e->wait.pad = 0;
	e->wait.timeout_ns = -1;
	for (i = 0; i < LT_WAIT_FDS; i++)
		e->wait.fds[i] = -1;

	if (id == LT_NR_SELECT || id == LT_NR_PSELECT6) {
		__u64 bits = 0;
		int n = 0;
		e->wait.nfds = a0;
		/* first fds of the read set, else of the write set */
		if (bpf_probe_read_user(&bits, sizeof(bits), (void *)(a1 ? a1 : a2)))
			bits = 0;
		/* the lowest set bits, one a step (not a walk over all 64: this
		 * runs at every select's entry) */
		for (n = 0; n < LT_WAIT_FDS && bits; n++) {
			i = lowest_bit(bits);
			bits &= bits - 1;
			if (n == 0) e->wait.fds[0] = i;
			else if (n == 1) e->wait.fds[1] = i;
			else if (n == 2) e->wait.fds[2] = i;
			else e->wait.fds[3] = i;
		}
		if (id == LT_NR_SELECT) {
			struct { __s64 sec; __s64 usec; } tv;
			if (a4 && !bpf_probe_read_user(&tv, sizeof(tv), (void *)a4))
				e->wait.timeout_ns = tv.sec * 1000000000LL + tv.usec * 1000;
		} else {
			e->wait.timeout_ns = read_timespec_ns(a4);
		}
	} else if (id == LT_NR_POLL || id == LT_NR_PPOLL) {
		struct { __s32 fd; __s16 ev, rev; } p[LT_WAIT_FDS] = {};
		__u32 n = a1 < LT_WAIT_FDS ? a1 : LT_WAIT_FDS;
		e->wait.nfds = a1;
		if (n && !bpf_probe_read_user(&p, n * 8 <= sizeof(p) ? n * 8 : sizeof(p), (void *)a0)) {
			for (i = 0; i < LT_WAIT_FDS; i++)
				if ((__u32)i < n)
					e->wait.fds[i] = p[i].fd;
		}
		if (id == LT_NR_POLL)
			e->wait.timeout_ns = (int)a2 < 0 ? -1 : (__s64)(int)a2 * 1000000LL;
		else
			e->wait.timeout_ns = read_timespec_ns(a2);
	} else { /* epoll_wait(epfd, events, maxevents, timeout ms), pwait2: timespec */
		e->wait.fds[0] = a0;
		e->wait.nfds = a2;
		if (id == LT_NR_EPOLL_PWAIT2)
			e->wait.timeout_ns = read_timespec_ns(a3);
		else
			e->wait.timeout_ns = (int)a3 < 0 ? -1 : (__s64)(int)a3 * 1000000LL;
	}
}


/* Bytes in the n iovecs at uiov (struct iovec: base, len), read from the
 * caller's memory; LT_IO_COUNT_UNKNOWN if unreadable or more than
 * LT_IO_MAX_IOV.  Not inlined: its loop would be copied into every
 * program that writes an I/O entry. */
static __noinline __u64 iov_bytes(__u64 uiov, __u64 n)
{
	struct { __u64 base, len; } v;
	__u64 sum = 0;

	if (n > LT_IO_MAX_IOV)
		return LT_IO_COUNT_UNKNOWN;
	for (int i = 0; i < LT_IO_MAX_IOV && i < (int)n; i++) {
		if (bpf_probe_read_user(&v, sizeof(v), (void *)(uiov + i * sizeof(v))))
			return LT_IO_COUNT_UNKNOWN;
		sum += v.len;
	}
	return sum;
}

/* Bytes in the iovecs of n messages at umsg, stride bytes apart (a struct
 * user_msghdr: msg_iov at 16, msg_iovlen at 24; struct mmsghdr is one plus
 * msg_len, 64 bytes); unknown beyond LT_IO_MAX_MSGS messages. */
static __noinline __u64 msg_bytes(__u64 umsg, __u64 n, __u64 stride)
{
	struct { __u64 iov, iovlen; } m;
	__u64 sum = 0, b;

	if (n > LT_IO_MAX_MSGS)
		return LT_IO_COUNT_UNKNOWN;
	for (int i = 0; i < LT_IO_MAX_MSGS && i < (int)n; i++) {
		if (bpf_probe_read_user(&m, sizeof(m), (void *)(umsg + i * stride + 16)))
			return LT_IO_COUNT_UNKNOWN;
		b = iov_bytes(m.iov, m.iovlen);
		if (b == LT_IO_COUNT_UNKNOWN)
			return b;
		sum += b;
	}
	return sum;
}

/* The bytes a read or write family call asks for: its count register, or
 * for the vector and message calls the sum of their iovecs' lengths (the
 * register holds an iovec count, flags or a message count). */
static __always_inline __u64 io_count(long id, struct pt_regs *regs)
{
	switch (id) {
	case LT_NR_READV:
	case LT_NR_WRITEV:
		return iov_bytes(regs->si, regs->dx);
	case LT_NR_SENDMSG:
	case LT_NR_RECVMSG:
		return msg_bytes(regs->si, 1, 0);
	case LT_NR_SENDMMSG:
	case LT_NR_RECVMMSG:
		return msg_bytes(regs->si, (__u32)regs->dx, 64);
	default:
		return regs->dx;
	}
}

static __always_inline void fill_io(struct lt_event *e, struct pt_regs *regs, long id, __u32 tid,
				    __u8 flags, __u64 ts)
{
	fill_hdr_at(&e->h, LT_EV_IO_ENTER, tid, ts);
	e->h.flags = flags;
	e->io.nr = id;
	e->io.pad = 0;
	e->io.fd = regs->di;
	e->io.count = io_count(id, regs);
}


#define SZ_FLOCK LT_REC_SIZE(lt_flock_enter)

/* A file-lock call's entry (calls.h: lt_call_flock): flock(fd, op), or
 * fcntl(fd, cmd, struct flock *) with the struct read from the caller's
 * memory (type -1 if unreadable). */
static __always_inline void fill_flock(struct lt_event *e, struct pt_regs *regs, long id,
				       __u32 tid, __u8 flags, __u64 ts)
{
	struct { __s16 type, whence; __u32 pad; __s64 start, len; } fl;

	fill_hdr_at(&e->h, LT_EV_FLOCK_ENTER, tid, ts);
	e->h.flags = flags;
	e->flk.nr = id;
	e->flk.fd = regs->di;
	e->flk.cmd = regs->si;
	e->flk.type = -1;
	e->flk.whence = 0;
	e->flk.start = 0;
	e->flk.len = 0;
	e->flk.pad = 0;
	if (id == LT_NR_FCNTL && !bpf_probe_read_user(&fl, sizeof(fl), (void *)regs->dx)) {
		e->flk.type = fl.type;
		e->flk.whence = fl.whence;
		e->flk.start = fl.start;
		e->flk.len = fl.len;
	}
}

static __noinline int emit_flock(struct pt_regs *regs, long id, __u32 tid)
{
	struct lt_event *e = reserve(SZ_FLOCK, LT_EV_FLOCK_ENTER);

	if (!e)
		return 0;
	fill_flock(e, regs, id, tid, 0, 0);
	submit(e);
	return 1;
}

/* call_at's value: the entry's ts, and this bit for a sampled wait
 * (LT_F_BPF_SAMPLED: copied at its return whatever its length) */
#define CALL_SAMPLED (1ull << 63)
/* ... and this one once it slept in the call (a sampled call that never
 * slept is no wait: not copied) */
#define CALL_SLEPT (1ull << 62)
#define CALL_TS(v) ((v) & ~(CALL_SAMPLED | CALL_SLEPT))

static __always_inline __u8 copy_flags(bool copied_at_end, __u32 tgid);
static __always_inline void submit_sleep(void *e, __u8 flags, __u64 ts);

/* The entry of a call of class cls, as its own record (--calls all): its
 * timestamp if written, else 0.  WAIT: one whose stack --stacks wants (cf:
 * copy_flags), submitted as a sleep's (submit_sleep). */
static __always_inline __u64 emit_call(struct pt_regs *regs, long id, int cls, __u32 tid,
				       bool wait, __u8 cf)
{
	struct lt_event *e;
	__u64 ts;

	if (cls == LT_CALL_FUTEX) {
		if (!(e = reserve(SZ_FUTEX, LT_EV_FUTEX_ENTER)))
			return 0;
		fill_futex(e, regs, id, tid, cf, 0);
	} else if (cls == LT_CALL_WAIT) {
		if (!(e = reserve(SZ_WAIT, LT_EV_WAIT_ENTER)))
			return 0;
		fill_wait(e, regs, id, tid, cf, 0);
	} else {
		int k = fd_io_kind(bpf_get_current_task_btf(), regs->di);
		if (k < 0)
			return 0;
		if (!(e = reserve(SZ_IO, LT_EV_IO_ENTER)))
			return 0;
		fill_io(e, regs, id, tid, cf | k, 0);
	}
	ts = e->h.ts;
	if (wait)
		submit_sleep(e, cf, ts);
	else
		submit(e);
	return ts;
}

static __always_inline void note_call(__u32 tid, __u64 ts);
static __always_inline void end_call(struct task_struct *task, __u32 tid, __u64 now);

SEC("tp_btf/sys_enter")
int BPF_PROG(lt_sys_enter, struct pt_regs *regs, long id)
{
	__u64 pt = bpf_get_current_pid_tgid(), ets;
	int cls;

	if (!traced_cur(pt >> 32))
		return 0;
	if (lt_call_flock(id, regs->si)) {
		if (emit_flock(regs, id, (__u32)pt) && fb_dump_only)
			mark_inflight(bpf_get_current_task_btf(), id);
		return 0;
	}
	cls = lt_call_class(id);
	if (cls == LT_CALL_NONE)
		return 0;
	/* a wait whose stack the collector wants: its sleeps are copied at
	 * their wake-up or its return (call_at) */
	bool wait = waiter_copy_ns && (cls != LT_CALL_FUTEX || lt_futex_waits(id, regs->si));
	__u8 cf = wait ? copy_flags(true, pt >> 32) : 0;
	/* The exit is emitted only if the entry was (a lost entry makes its
	 * exit useless; a non-socket read has no entry): the mark tells
	 * sys_exit, for a read or write (streamed) or for any call (the
	 * units).  A streamed futex, wait or file-lock call's return is
	 * written whatever happened to its entry, and the collector pairs
	 * them: the mark's task-storage get with create cost ~55 ns here. */
	if ((ets = emit_call(regs, id, cls, (__u32)pt, wait, cf))) {
		if (fb_dump_only || cls == LT_CALL_IO)
			mark_inflight(bpf_get_current_task_btf(), id);
		if (wait)
			note_call((__u32)pt, ets | ((cf & LT_F_BPF_SAMPLED) ? CALL_SAMPLED : 0));
	}
	return 0;
}

SEC("tp_btf/sys_exit")
int BPF_PROG(lt_sys_exit, struct pt_regs *regs, long ret)
{
	__u64 pt = bpf_get_current_pid_tgid();
	struct task_struct *task;
	struct lt_event *e;
	__u32 *v, nr;
	__u8 flags = 0;
	__u64 now = 0;

	if (!traced_cur(pt >> 32))
		return 0;
	task = bpf_get_current_task_btf();
	if (!fb_dump_only) {
		/* streamed: every futex, wait and file-lock call's return; the
		 * collector drops one whose entry it did not see, or flags it
		 * as begun before tracing when it is the thread's first call
		 * (rec_pair_exit).  A read or write's goes by the mark (its
		 * entry only for a socket). */
		long id = regs->orig_ax;
		int cls = lt_call_class(id);
		if (cls == LT_CALL_NONE) {
			if (!lt_call_flock(id, regs->si))
				return 0;
		} else if (cls == LT_CALL_IO) {
			v = bpf_task_storage_get(&inflight, task, 0, 0);
			if (!v) {
				v = bpf_task_storage_get(&inflight, task, 0,
							 BPF_LOCAL_STORAGE_GET_F_CREATE);
				if (!v || fd_io_kind(task, regs->di) < 0)
					return 0;
			} else if (!*v) {
				return 0;
			}
			if (v)
				*v = 0;
		}
		if (waiter_copy_ns) {
			/* one clock read for the rule and the record */
			now = bpf_ktime_get_boot_ns();
			end_call(task, (__u32)pt, now);
		}
		nr = id;
		goto emit;
	}
	v = bpf_task_storage_get(&inflight, task, 0, 0);
	if (!v) {
		/* The first return from a thread we have no state for: a
		 * call it was already in when tracing began (its entry is
		 * in the header, from /proc).  Record it if it is one we
		 * trace, so the timeline ends that call exactly; from now
		 * on the state exists and untraced returns stop here. */
		long id = regs->orig_ax;
		int cls = lt_call_class(id);
		v = bpf_task_storage_get(&inflight, task, 0, BPF_LOCAL_STORAGE_GET_F_CREATE);
		if (!v || (cls == LT_CALL_NONE && !lt_call_flock(id, regs->si)))
			return 0;
		if (cls == LT_CALL_IO && fd_io_kind(task, regs->di) < 0)
			return 0;
		nr = id;
		flags = LT_F_BEGAN_BEFORE;
	} else if (!*v) {
		return 0;
	} else {
		nr = *v - 1;
		if (waiter_copy_ns) {
			/* one clock read for the rule and the record */
			now = bpf_ktime_get_boot_ns();
			end_call(task, (__u32)pt, now);
		}
		*v = 0;
	}
emit:
	e = reserve(LT_REC_SIZE(lt_sys_exit), LT_EV_SYS_EXIT);
	if (!e)
		return 0;
	fill_hdr_at(&e->h, LT_EV_SYS_EXIT, (__u32)pt, now);
	e->h.flags = flags;
	e->exit.ret = ret;
	e->exit.nr = nr;
	e->exit.pad[0] = e->exit.pad[1] = e->exit.pad[2] = 0;
	submit(e);
	return 0;
}

static __always_inline void fill_switch(struct lt_event *e, bool preempt, struct task_struct *prev,
					struct task_struct *next, unsigned int prev_state, __u32 ptgid,
					__u32 ntgid, __u64 ts)
{
	fill_hdr_at(&e->h, LT_EV_SWITCH, prev->pid, ts);
	e->h.flags = preempt ? LT_F_PREEMPT : 0;
	e->sw.prev_state = prev_state;
	e->sw.prev_tid = prev->pid;
	e->sw.next_tid = next->pid;
	e->sw.prev_tgid = ptgid;
	e->sw.next_tgid = ntgid;
	e->sw.prev_prio = prev->prio;
	e->sw.next_prio = next->prio;
	if (fb_dump_only) {
		/* no comms: the dump names the threads (flightbuf.h) */
		e->h.flags |= LT_FB_F_NO_COMM;
		return;
	}
	/* comm is NUL-padded in the kernel: plain loads, no string helper */
	__builtin_memcpy(e->sw.prev_comm, prev->comm, LT_COMM_LEN);
	__builtin_memcpy(e->sw.next_comm, next->comm, LT_COMM_LEN);
}

/* record --stacks with --calls blocking: the waiters' stacks, copied from
 * the waker's context.  A thread that went to sleep in a traced call (its
 * entry written, LT_F_AT_SLEEP, at ts) has ts in sleep_at until it runs
 * again.  When it is woken after sleeping waiter_copy_ns or more by a
 * task of the same address space (a thread of its process: a lock's
 * release, a condition's signal; or an interrupt that came while such a
 * thread ran), its user memory is the current one: its saved user
 * registers (bpf_task_pt_regs) and LT_STACK_COPY_BYTES of its stack are
 * copied as a waker's are (LT_COPY_WAITER, ts: the sleep's), so that the
 * collector need not read /proc while it still sleeps, which it often
 * cannot do in time.  A wake-up from elsewhere (a timer, I/O, another
 * process) leaves the entry for the switch that runs the thread again:
 * if the task switched out shares its address space, the copy is taken
 * there; else the collector's /proc read stays the only one.  Shorter
 * sleeps are left to the collector's sampling (--stack-sample).
 * Not task storage: an insertion into task storage may allocate, and this
 * runs under the run queue's lock.  An array indexed by tid & sleep_mask
 * (its look-ups inlined by the verifier), each note saying whose it is:
 * the hash look-ups it replaced, four or five a hand-off, cost 100-800 ns
 * of CPU a hand-off (paired medians of four runs, BENCHMARKS.md,
 * 2026-12-05 night).  A note whose slot holds another thread's note in use
 * (tids equal modulo the slots) goes to sleep_spill, a hash by tid, which
 * readers look in once any note has (sleep_spilled).  Two such threads'
 * notes may race for a slot (one taking it while the other's waker clears
 * it): that sleep's copy is then not taken, and the collector's read, if
 * in time, is its only stack. */
const volatile __u32 sleep_mask = 0; /* slots - 1, set by user space */
struct {
	__uint(type, BPF_MAP_TYPE_ARRAY);
	__uint(max_entries, 1); /* set by user space with waiter_copy_ns */
	__type(key, __u32);
	__type(value, struct lt_sleep_note);
} sleep_at SEC(".maps");
struct {
	__uint(type, BPF_MAP_TYPE_HASH);
	__uint(max_entries, 1); /* set by user space with waiter_copy_ns */
	__type(key, __u32);
	__type(value, struct lt_sleep_note);
} sleep_spill SEC(".maps");
/* set once a note went to sleep_spill */
__u32 sleep_spilled = 0;

/* The slot of sleep_at thread tid maps to (whoever's note is in it). */
static __always_inline struct lt_sleep_note *sleep_slot(__u32 tid)
{
	__u32 k = tid & sleep_mask;

	return bpf_map_lookup_elem(&sleep_at, &k);
}

/* Thread tid's note, NULL if it has none. */
static __always_inline struct lt_sleep_note *sleep_note(__u32 tid)
{
	struct lt_sleep_note *v = sleep_slot(tid);

	if (v && v->tid == tid)
		return v;
	return sleep_spilled ? bpf_map_lookup_elem(&sleep_spill, &tid) : NULL;
}

/* Thread tid's note forgotten (it exited: its tid may come back). */
static __always_inline void sleep_note_drop(__u32 tid)
{
	struct lt_sleep_note *v = sleep_slot(tid);

	if (v && v->tid == tid)
		__builtin_memset(v, 0, sizeof(*v));
	if (sleep_spilled)
		bpf_map_delete_elem(&sleep_spill, &tid);
}

/* --calls all (sys_enter and sys_exit trace the calls): the entry's
 * timestamp of the wait call each thread is in (a futex wait, a poll, a
 * socket read or write: the calls the collector reads stacks for), 0 out
 * of one.  The collector keys a wait by its entry, so a sleep in the call
 * is noted in sleep_at with the entry's time (the copy's ts); the wait's
 * length is counted from there, as the call's is in the trace. */
struct {
	__uint(type, BPF_MAP_TYPE_HASH);
	__uint(max_entries, 1); /* set by user space with waiter_copy_ns, --calls all */
	__type(key, __u32);
	__type(value, __u64);
} call_at SEC(".maps");


static __always_inline void note_call(__u32 tid, __u64 ts)
{
	__u64 *v = bpf_map_lookup_elem(&call_at, &tid);

	if (v)
		*v = ts;
	else
		bpf_map_update_elem(&call_at, &tid, &ts, BPF_ANY);
}


/* What happened to the sleeps of waiter_copy_ns or more (per cpu, user
 * space sums them): LT_WCOPY_* */
struct {
	__uint(type, BPF_MAP_TYPE_PERCPU_ARRAY);
	__uint(max_entries, LT_WCOPY_MAX);
	__type(key, __u32);
	__type(value, __u64);
} wcopy_count SEC(".maps");

static __always_inline void wcopy_inc(__u32 k)
{
	__u64 *c = bpf_map_lookup_elem(&wcopy_count, &k);
	if (c)
		*c += 1;
}

/* regs: the sleeping thread's saved user registers (its sp and ip are
 * where the collector reads its stack from while it sleeps) */
static __noinline void note_sleep(__u32 tid, __u64 ts, struct pt_regs *regs, __u64 sampled)
{
	struct lt_sleep_note *v = sleep_slot(tid), *h;
	struct lt_sleep_note n = { .ts = ts, .sampled = sampled, .tid = tid };

	if (!v)
		return;
	if (regs) {
		n.sp = BPF_CORE_READ(regs, sp);
		n.ip = BPF_CORE_READ(regs, ip);
	}
	/* the slot is this thread's, or no note in it is in use */
	if (v->tid == tid || !(v->ts || v->at_return)) {
		if (v->tid != tid && sleep_spilled) /* a spilled note of its own: stale now */
			bpf_map_delete_elem(&sleep_spill, &tid);
		*v = n;
		return;
	}
	sleep_spilled = 1;
	wcopy_inc(LT_WCOPY_SPILLED);
	h = bpf_map_lookup_elem(&sleep_spill, &tid);
	if (h)
		*h = n;
	else
		bpf_map_update_elem(&sleep_spill, &tid, &n, BPF_ANY);
}

/* A waiter's copy of a CPython 3.10 (or older) thread: 16 KiB of stack
 * (pyframes.h: LT_STACK_COPY_DEEP), as each Python call there has a C
 * frame of the interpreter loop of its own, then its Python frames. */
struct lt_deep_py_copy {
	struct lt_stack_copy c;
	__u8 more[LT_STACK_COPY_DEEP];
	struct lt_py_copy py;
};

#define DEEP_BYTES (LT_STACK_COPY_BYTES + LT_STACK_COPY_DEEP)

static __noinline void copy_deep_waiter(struct task_struct *p, __u64 start, __u64 now, __u32 how)
{
	__u32 tgid = p->tgid;
	const struct lt_py_layout *pyl = bpf_map_lookup_elem(&py_layouts, &tgid);
	struct pt_regs *regs = (struct pt_regs *)bpf_task_pt_regs(p);
	struct lt_deep_py_copy *w;
	struct lt_stack_copy *c;
	__u64 sp;

	if (!pyl || !regs)
		return;
	w = bpf_ringbuf_reserve(&stack_copies, sizeof(*w), 0);
	if (!w) {
		wcopy_inc(LT_WCOPY_FULL);
		return;
	}
	c = &w->c;
	copy_py_frames(pyl, p->pid, &w->py);
	fill_copy(c, regs, p->pid, p->tgid, start, now, LT_COPY_WAITER, LT_COPY_F_DEEP);
	sp = c->sp;
	/* the stack's top end may come first: smaller reads, then what is
	 * left of sp's page */
	if (!bpf_probe_read_user(c->stack, DEEP_BYTES, (void *)sp))
		c->len = DEEP_BYTES;
	else if (!bpf_probe_read_user(c->stack, 12288, (void *)sp))
		c->len = 12288;
	else if (!bpf_probe_read_user(c->stack, 8192, (void *)sp))
		c->len = 8192;
	else if (!bpf_probe_read_user(c->stack, 4096, (void *)sp))
		c->len = 4096;
	else {
		__u32 room = 4096 - (__u32)(sp & 4095);
		c->len = 0;
		if (!bpf_probe_read_user(c->stack, room & 4095, (void *)sp))
			c->len = room & 4095;
	}
	wcopy_inc(how);
	submit_copy(w);
}

/* Copies the sleeping thread p's user registers and stack; the current
 * task shares p's address space. */
static __noinline void copy_waiter_stack(struct task_struct *p, __u64 start, __u64 now, __u32 how)
{
	__u32 tgid = p->tgid;
	const struct lt_py_layout *pyl;
	struct lt_stack_copy *c;
	struct pt_regs *regs;

	if (p->flags & 0x00200000) /* PF_KTHREAD */
		return;
	if (bpf_map_lookup_elem(&waiters_read, &tgid)) {
		wcopy_inc(LT_WCOPY_RT_READ);
		return;
	}
	regs = (struct pt_regs *)bpf_task_pt_regs(p);
	if (!regs)
		return;
	/* a CPython thread: its Python frames too, read as a waker's are
	 * (the current task shares its memory; p sleeps: its chain is the
	 * wait's) */
	pyl = bpf_map_lookup_elem(&py_layouts, &tgid);
	if (pyl && pyl->deep) {
		copy_deep_waiter(p, start, now, how);
		return;
	}
	if (pyl) {
		struct lt_waker_py_copy *w = bpf_ringbuf_reserve(&stack_copies, sizeof(*w), 0);
		if (!w) {
			wcopy_inc(LT_WCOPY_FULL);
			return;
		}
		copy_py_frames(pyl, p->pid, &w->py);
		c = &w->c;
	} else {
		c = bpf_ringbuf_reserve(&stack_copies, sizeof(*c), 0);
		if (!c) {
			wcopy_inc(LT_WCOPY_FULL);
			return;
		}
	}
	fill_copy(c, regs, p->pid, p->tgid, start, now, LT_COPY_WAITER, 0);
	copy_stack_bytes(c);
	wcopy_inc(how);
	submit_copy(c);
}

/* With waiters' copies, a waker's is taken only while the copies' ring
 * is less than half full: the waits' own stacks first (the collector
 * unwinds wakers' copies within a time budget and leaves most of them on
 * a busy target anyway). */
static __always_inline bool waker_copy_room(void)
{
	if (!waiter_copy_ns)
		return true;
	if (bpf_ringbuf_query(&stack_copies, BPF_RB_AVAIL_DATA) <
	    bpf_ringbuf_query(&stack_copies, BPF_RB_RING_SIZE) / 2)
		return true;
	wcopy_inc(LT_WCOPY_WAKER_LEFT);
	return false;
}

/* --calls all: the current task returns from a traced call at now (the
 * return's record's time: the trace says which calls this copied).  A
 * wait call of waiter_copy_ns or more that no wake-up or switch could
 * copy (woken by a timer or from another process: a timed wait that timed
 * out) is copied now: until the return to user space the thread's user
 * registers (but ax, the result) and stack are the ones it slept with,
 * and its memory is the current one. */
static __always_inline void end_call(struct task_struct *task, __u32 tid, __u64 now)
{
	__u64 *v = bpf_map_lookup_elem(&call_at, &tid);
	__u64 start, sampled;

	if (!v || !(start = *v))
		return;
	*v = 0;
	sampled = (start & CALL_SAMPLED) && (start & CALL_SLEPT);
	start = CALL_TS(start);
	if (now - start >= waiter_copy_ns)
		copy_waiter_stack(task, start, now, LT_WCOPY_AT_EXIT);
	else if (sampled)
		copy_waiter_stack(task, start, now, LT_WCOPY_SAMPLED);
}

/* --calls all: a call's sleep copied: its later sleeps are not (one
 * stack per wait; the collector would drop them). */
static __always_inline void call_copied(__u32 tid, __u64 entry)
{
	__u64 *v = bpf_map_lookup_elem(&call_at, &tid);

	if (v && CALL_TS(*v) == entry)
		*v = 0;
}

/* Is a long sleep of p copied at its return to user space?  With rseq
 * registered, the return after a switch runs rseq_update. */
static __always_inline bool copy_at_return(struct task_struct *p)
{
	return waiter_copy_at_return && p->rseq;
}

/* The current task t's long (or sampled) sleep marked for a copy at its return (its
 * registers and stack are the sleep's until it returns to user space, or
 * sleeps again in the same call), copied now; or, at_return (called from
 * rseq_update: its first return to user space since a switch), with no
 * mark, a noted sleep whose ending switch went unseen. */
static __noinline void copy_marked(struct task_struct *t, bool at_return)
{
	__u32 tid = t->pid;
	struct lt_sleep_note *v = sleep_note(tid);
	struct pt_regs *regs;
	__u64 start, now;
	bool unseen = false;

	if (!v)
		return;
	start = v->at_return;
	if (!start && v->ts && at_return) {
		/* A sleep noted and not cleared: the thread runs, so the switch
		 * that ran it again went unseen (README, "stacks"); this is its
		 * first return to user space since, from that sleep's call if
		 * its registers say so (checked below). */
		start = v->ts;
		v->ts = 0;
		if (bpf_ktime_get_boot_ns() - start < waiter_copy_ns && !v->sampled)
			return;
		unseen = true;
	}
	if (!start)
		return;
	v->at_return = 0;
	/* Still that sleep's call: its user registers are those it slept
	 * with.  Else the mark came from a stale note (a switch to the thread
	 * after that sleep went unseen, and a return to user space too: README,
	 * "stacks") and these are another call's (a sched_yield's, seen in CI):
	 * no copy rather than a wrong stack. */
	regs = (struct pt_regs *)bpf_task_pt_regs(t);
	if (!regs || BPF_CORE_READ(regs, ip) != v->ip || BPF_CORE_READ(regs, sp) != v->sp) {
		wcopy_inc(LT_WCOPY_GONE);
		return;
	}
	if (unseen)
		wcopy_inc(LT_WCOPY_UNSEEN);
	now = bpf_ktime_get_boot_ns();
	copy_waiter_stack(t, start, now,
			  now - start < waiter_copy_ns ? LT_WCOPY_SAMPLED : LT_WCOPY_AT_EXIT);
}

/* sched_waking of traced p by the current task cur at now (the waking
 * record's time, so that the trace says which wake-ups the rule below
 * copied at): true if it ends a sleep of waiter_copy_ns or more (its
 * waker's stack is then copied too). */
static __always_inline bool waiter_copy_at_wake(struct task_struct *p, struct task_struct *cur,
						__u64 now)
{
	__u32 tid = p->pid;
	struct lt_sleep_note *v = sleep_note(tid);
	__u64 start;

	if (!v || !(start = v->ts))
		return false;
	if (now - start < waiter_copy_ns)
		return false; /* it may still reach it before it runs: the switch decides */
	if (copy_at_return(p))
		return true; /* the switch that runs it marks it for its return */
	if (!cur->mm || cur->mm != p->mm)
		return true; /* not readable from here: perhaps at the switch */
	v->ts = 0;
	copy_waiter_stack(p, start, now, LT_WCOPY_AT_WAKE);
	if (!calls_at_switch)
		call_copied(tid, start);
	return true;
}

/* Per cpu: wake-ups of short sleeps since the last whose waker was copied. */
struct {
	__uint(type, BPF_MAP_TYPE_PERCPU_ARRAY);
	__uint(max_entries, 1);
	__type(key, __u32);
	__type(value, __u32);
} waker_skip SEC(".maps");

/* Is the waker's stack to be copied at this wake-up? With waiters' copies:
 * if it ends a long sleep, else 1 in waker_sample_every (as the collector
 * samples the short waits' own stacks); without them, always. */
static __always_inline bool waker_copy_wanted(bool long_sleep)
{
	__u32 zero = 0, *n;

	if (!waiter_copy_ns || long_sleep)
		return true;
	if (!waker_sample_every)
		return false;
	n = bpf_map_lookup_elem(&waker_skip, &zero);
	if (!n)
		return false;
	if (++*n < waker_sample_every)
		return false;
	*n = 0;
	return true;
}

/* sched_switch to next (prev is current): a long sleep whose wake-up
 * could not copy it, or that was shorter than waiter_copy_ns at its
 * wake-up but is not when the thread runs again (a call's time in the
 * trace ends there). */
static __always_inline void waiter_copy_at_switch(struct task_struct *prev,
						  struct task_struct *next)
{
	__u32 tid = next->pid;
	struct lt_sleep_note *v = sleep_note(tid);
	__u64 start, now;

	if (!v || !(start = v->ts))
		return;
	v->ts = 0;
	now = bpf_ktime_get_boot_ns();
	if (now - start < waiter_copy_ns && !v->sampled)
		return;
	if (copy_at_return(next)) {
		v->at_return = start;
		return;
	}
	if (!prev->mm || prev->mm != next->mm) {
		wcopy_inc(LT_WCOPY_LEFT); /* the collector's read, if in time */
		return;
	}
	copy_waiter_stack(next, start, now, LT_WCOPY_AT_SWITCH);
	if (!calls_at_switch)
		call_copied(tid, start);
}

/* --calls all: prev goes to sleep (not preempted); in a wait call whose
 * entry was written (call_at), the sleep is noted with the entry's time.
 * Its saved registers say it is in a system call the collector reads
 * stacks for (a signal handler run from inside a call is not). */
static __always_inline void note_sleep_in_call(struct task_struct *prev)
{
	__u32 tid = prev->pid;
	__u64 *v = bpf_map_lookup_elem(&call_at, &tid);
	struct pt_regs *regs;

	if (!v || !*v || (prev->flags & 0x00200000)) /* PF_KTHREAD */
		return;
	regs = (struct pt_regs *)bpf_task_pt_regs(prev);
	if (!regs || lt_call_class(regs->orig_ax) == LT_CALL_NONE)
		return;
	/* a sampled wait is copied at its return (end_call) */
	*v |= CALL_SLEPT;
	note_sleep(tid, CALL_TS(*v), regs, 0);
}

/* --calls blocking: prev is going to sleep (not preempted) inside one of
 * the traced calls: write that call's entry and the switch in one record.
 * This runs before the switch, so prev is still current: its user
 * registers (the call's number and arguments), memory and file table are
 * the ones read.  A call that sleeps several times without returning (a
 * select woken for a descriptor it does not wait for) is written at each
 * sleep and shows as one call per sleep.  1 if written, 0 if the switch is
 * still to be written on its own. */
/* --stacks: a wait of process tgid begins (--calls blocking: prev goes to
 * sleep in it; --calls all: its call's entry).  LT_F_BPF_COPY if its stack
 * is the BPF side's to copy when it ends (copied_at_end: --calls blocking,
 * at its return to user space, prev having rseq; --calls all, at its call's
 * return) and its process's waits are served by the copies, with
 * LT_F_BPF_SAMPLED for 1 in waker_sample_every of them (copied whatever
 * their length: the short waits' sample); 0 if the collector reads it
 * while it sleeps. */
static __always_inline __u8 copy_flags(bool copied_at_end, __u32 tgid)
{
	__u32 zero = 0, *n;

	if (!waiter_copy_ns || !copied_at_end || !bpf_map_lookup_elem(&copies_serve, &tgid))
		return 0;
	if (!waker_sample_every)
		return LT_F_BPF_COPY;
	n = bpf_map_lookup_elem(&wait_skip, &zero);
	if (!n || ++*n < waker_sample_every)
		return LT_F_BPF_COPY;
	*n = 0;
	return LT_F_BPF_COPY | LT_F_BPF_SAMPLED;
}

static __always_inline __u8 sleep_copy_flags(struct task_struct *prev, __u32 tgid)
{
	return copy_flags(copy_at_return(prev), tgid);
}

/* A wait's entry written at its sleep (flags: sleep_copy_flags).  One the
 * collector must read at 1 ms wakes it (at most once a millisecond: it
 * drains every 1 ms for 2 ms after one it saw, every 20 ms otherwise). */
static __always_inline void submit_sleep(void *e, __u8 flags, __u64 ts)
{
	__u32 zero = 0;
	__u64 *last;

	if (flags || !waiter_copy_ns || fb_dump_only) {
		submit(e);
		return;
	}
	last = bpf_map_lookup_elem(&read_wake, &zero);
	if (last && ts - *last >= waiter_copy_ns) {
		*last = ts;
		if (flightbuf) { /* the units (fb_stream) */
			submit(e);
			fb_wake();
			return;
		}
		bpf_ringbuf_submit(e, BPF_RB_FORCE_WAKEUP);
		return;
	}
	submit(e);
}

static __always_inline int emit_sleep_in_call(bool preempt, struct task_struct *prev,
					      struct task_struct *next, unsigned int prev_state,
					      __u32 ptgid, __u32 ntgid)
{
	struct pt_regs *regs;
	struct lt_event *e;
	__u32 tid = prev->pid;
	__u64 ts;
	__u8 cf;
	long id;
	int cls;

	if (prev->flags & 0x00200000) /* PF_KTHREAD: no user regs */
		return 0;
	regs = (struct pt_regs *)bpf_task_pt_regs(prev);
	if (!regs)
		return 0;
	if (waiter_copy_at_return)
		copy_marked(prev, false); /* woken, and asleep again in the same call */
	id = regs->orig_ax;
	if (lt_call_flock(id, regs->si)) {
		ts = bpf_ktime_get_boot_ns();
		e = reserve2(SZ_FLOCK + SZ_SWITCH, LT_EV_FLOCK_ENTER, LT_EV_SWITCH);
		if (!e)
			return 1;
		cf = sleep_copy_flags(prev, ptgid);
		fill_flock(e, regs, id, tid, LT_F_AT_SLEEP | cf, ts);
		fill_switch((void *)e + SZ_FLOCK, preempt, prev, next, prev_state, ptgid, ntgid, ts);
		submit_sleep(e, cf, ts);
		if (waiter_copy_ns)
			note_sleep(tid, ts, regs, cf & LT_F_BPF_SAMPLED);
		return 1;
	}
	cls = lt_call_class(id);
	int iok = cls == LT_CALL_IO ? fd_io_kind(prev, regs->di) : 0;
	if (cls == LT_CALL_NONE || iok < 0)
		return 0;
	ts = bpf_ktime_get_boot_ns();
	cf = sleep_copy_flags(prev, ptgid);
	if (cls == LT_CALL_FUTEX) {
		e = reserve2(SZ_FUTEX + SZ_SWITCH, LT_EV_FUTEX_ENTER, LT_EV_SWITCH);
		if (!e)
			return 1;
		fill_futex(e, regs, id, tid, LT_F_AT_SLEEP | cf, ts);
		fill_switch((void *)e + SZ_FUTEX, preempt, prev, next, prev_state, ptgid, ntgid, ts);
	} else if (cls == LT_CALL_WAIT) {
		e = reserve2(SZ_WAIT + SZ_SWITCH, LT_EV_WAIT_ENTER, LT_EV_SWITCH);
		if (!e)
			return 1;
		fill_wait(e, regs, id, tid, LT_F_AT_SLEEP | cf, ts);
		fill_switch((void *)e + SZ_WAIT, preempt, prev, next, prev_state, ptgid, ntgid, ts);
	} else {
		e = reserve2(SZ_IO + SZ_SWITCH, LT_EV_IO_ENTER, LT_EV_SWITCH);
		if (!e)
			return 1;
		fill_io(e, regs, id, tid, LT_F_AT_SLEEP | cf | iok, ts);
		fill_switch((void *)e + SZ_IO, preempt, prev, next, prev_state, ptgid, ntgid, ts);
	}
	submit_sleep(e, cf, ts);
	if (waiter_copy_ns)
		note_sleep(tid, ts, regs, cf & LT_F_BPF_SAMPLED);
	return 1;
}

SEC("tp_btf/sched_switch")
int BPF_PROG(lt_sched_switch, bool preempt, struct task_struct *prev, struct task_struct *next,
	     unsigned int prev_state)
{
	__u32 ptgid = prev->tgid, ntgid = next->tgid;
	struct lt_event *e;

	bool ptraced = traced_cur(ptgid); /* prev is the running task */

	if (!ptraced && !traced(next))
		return 0;
	if (waiter_copy_ns) {
		waiter_copy_at_switch(prev, next);
		if (!calls_at_switch && ptraced && prev_state && !preempt)
			note_sleep_in_call(prev);
	}
	if (calls_at_switch && ptraced && prev_state && !preempt &&
	    emit_sleep_in_call(preempt, prev, next, prev_state, ptgid, ntgid))
		return 0;
	e = reserve(SZ_SWITCH, LT_EV_SWITCH);
	if (!e)
		return 0;
	fill_switch(e, preempt, prev, next, prev_state, ptgid, ntgid, 0);
	submit(e);
	return 0;
}

/* A traced thread returns to user space after a switch (rseq registered):
 * a long sleep of it marked at the switch that ran it is copied here, on
 * its own cpu, with no scheduler lock held. */
SEC("tp_btf/rseq_update")
int BPF_PROG(lt_rseq_update, struct task_struct *t)
{
	if (!traced_cur(t->tgid))
		return 0;
	copy_marked(t, true);
	return 0;
}

/* Was this wake-up issued from interrupt context (a timer expiring, a
 * device completing)?  Then the "waker" is only the task that happened to
 * be interrupted.  x86-64 has two cases:
 *  - interrupted in kernel mode: the handler runs on the per-cpu interrupt
 *    stack, so the kernel stack we run on is outside current's 16 KiB task
 *    stack.  Where that stack is comes from ctx (the tracepoint's argument
 *    array, on the stack of the kernel function that called us), not from
 *    a variable of ours: Linux 6.14+ may give a program with a larger frame
 *    a per-cpu private stack, which is never the task stack;
 *  - interrupted in user mode: the handler runs on the task stack, but the
 *    user registers saved on entry say "not a syscall" (orig_ax < 0: the
 *    entry code stores the negated vector there, a syscall its number).
 * The interrupt stack also runs softirqs that a task runs itself: see
 * softirq_in_own_call. */
#define TASK_STACK_SIZE (16 * 1024)

enum wake_ctx { WCTX_TASK, WCTX_IRQ, WCTX_SOFTIRQ_CALL };

/* preempt_count bits (include/linux/preempt.h); x86 keeps an inverted
 * need-resched flag in bit 31 of the per-cpu word */
#define PC_PREEMPT_MASK 0x000000ff
#define PC_SOFTIRQ_MASK 0x0000ff00
#define PC_SOFTIRQ_OFFSET 0x00000100
#define PC_HARDIRQ_NMI_MASK 0x00ff0000

/* The per-cpu preempt count (a variable of its own up to 6.1 and again
 * from 6.15, a field of pcpu_hot in between) is found from this cpu's run
 * queue, another per-cpu variable: user space reads both offsets in the
 * per-cpu section from the kernel's BTF (loader.c) and sets the distance
 * here, 0 when it is not known.  Not a typed ksym: the verifier looks a
 * ksym's address up in kallsyms, which lists no variables unless the
 * kernel has CONFIG_KALLSYMS_ALL (Debian's does not).  Unknown, and every
 * wake-up on the interrupt stack stays an interrupt. */
const volatile __s64 pc_from_rq = 0;

static __always_inline long read_preempt_count(struct task_struct *cur)
{
	struct cfs_rq *cfs;
	struct rq *rq;
	int pc = 0;

	if (!pc_from_rq || !bpf_core_field_exists(cur->se.cfs_rq))
		return -1;
	/* current runs here, so its cfs_rq is this cpu's */
	cfs = BPF_CORE_READ(cur, se.cfs_rq);
	rq = cfs ? BPF_CORE_READ(cfs, rq) : NULL;
	if (!rq || BPF_CORE_READ(rq, cpu) != (int)bpf_get_smp_processor_id())
		return -1;
	if (bpf_probe_read_kernel(&pc, sizeof(pc), (void *)rq + pc_from_rq))
		return -1;
	return (unsigned int)pc;
}

/* Is the wakee p, if it sleeps in a receive on a socket, on the socket the
 * waker's socket wsk is connected to (same family, ports match both
 * ways)?  1 also when that cannot be told: p waits in something else
 * (poll, epoll, a futex), or the waker's socket is not connected. */
static __always_inline int wakee_is_peer(struct task_struct *p, struct sock *wsk)
{
	struct pt_regs *pr;
	struct socket *so;
	struct sock *sk;
	__u16 wport, wdport, port, dport;

	if (p->flags & 0x00200000) /* PF_KTHREAD */
		return 1;
	pr = (struct pt_regs *)bpf_task_pt_regs(p);
	if (!pr || lt_call_class(pr->orig_ax) != LT_CALL_IO || !lt_call_reads(pr->orig_ax))
		return 1;
	so = fd_socket(p, pr->di);
	sk = so ? BPF_CORE_READ(so, sk) : NULL;
	if (!sk || !wsk)
		return 1;
	if (BPF_CORE_READ(sk, __sk_common.skc_family) != BPF_CORE_READ(wsk, __sk_common.skc_family))
		return 0;
	port = BPF_CORE_READ(sk, __sk_common.skc_num);
	dport = BPF_CORE_READ(sk, __sk_common.skc_dport);
	wport = BPF_CORE_READ(wsk, __sk_common.skc_num);
	wdport = BPF_CORE_READ(wsk, __sk_common.skc_dport);
	if (!wdport)
		return 1; /* unconnected (a UDP sendto): the peer is not known */
	return port == bpf_ntohs(wdport) && (!dport || dport == bpf_htons(wport));
}

/* A wake-up on the interrupt stack: a softirq the waker ran itself inside
 * its own socket call, rather than an interrupt?  A send on 127.0.0.1
 * hands the packet to the loopback device with bottom halves disabled;
 * the local_bh_enable that follows runs the network softirq at once, on
 * the interrupt stack, inside the send, and that softirq wakes the
 * receiver.  Required, all of:
 *  - preempt_count: no hardirq or NMI level, exactly one softirq being
 *    served, and preemption disabled at least once: local_bh_enable keeps
 *    it disabled while it runs softirqs, while the softirq run at the end
 *    of a device interrupt adds nothing to what the interrupted code had
 *    (a hardirq handler itself has the hardirq bits);
 *  - the waker is a user task inside a socket read or write call (its
 *    saved user registers);
 *  - if the wakee sleeps in a receive on an inet socket, it is the one the
 *    waker's socket is connected to.
 * What this cannot tell apart (docs/trace-format.md): a device interrupt
 * arriving while the socket call runs with preemption disabled but bottom
 * halves enabled, whose softirq wakes a thread that waits in poll, epoll
 * or a futex rather than on the peer socket; such a wake-up is credited
 * to the call. */
static __always_inline int softirq_in_own_call(struct task_struct *cur, struct pt_regs *regs,
					       struct task_struct *p)
{
	struct socket *so;
	long pc;

	if (!regs || lt_call_class(regs->orig_ax) != LT_CALL_IO)
		return 0;
	pc = read_preempt_count(cur);
	if (pc < 0 || (pc & PC_HARDIRQ_NMI_MASK) || (pc & PC_SOFTIRQ_MASK) != PC_SOFTIRQ_OFFSET ||
	    !(pc & PC_PREEMPT_MASK))
		return 0;
	so = fd_socket(cur, regs->di);
	return so && wakee_is_peer(p, BPF_CORE_READ(so, sk));
}

/* A wake-up runs this inside try_to_wake_up, on the path of every lock
 * handoff: the task's fields are read as BTF pointers (plain loads), not
 * through helper calls; only the stack pointer needs one.  This took a
 * sched_waking from ~600 to ~400 ns (with bpf_stats) on the demo workload. */
static __always_inline enum wake_ctx wake_context(void *ctx, struct task_struct *cur,
						  struct pt_regs *regs, struct task_struct *p)
{
	__u64 base = (__u64)cur->stack;
	void *volatile here = ctx;
	__u64 sp = 0;

	/* the verifier keeps pointers opaque: copy the value out */
	if (bpf_probe_read_kernel(&sp, sizeof(sp), (void *)&here) || !base)
		return WCTX_TASK;
	if (sp - base >= TASK_STACK_SIZE)
		return softirq_in_own_call(cur, regs, p) ? WCTX_SOFTIRQ_CALL : WCTX_IRQ;
	return regs && (long)regs->orig_ax < 0 ? WCTX_IRQ : WCTX_TASK;
}

static __always_inline void fill_waking(struct lt_event *e, struct task_struct *p,
					struct task_struct *cur, __u8 flags, int irq, __u64 ts)
{
	__u64 pt = bpf_get_current_pid_tgid();

	fill_hdr_at(&e->h, LT_EV_WAKING, p->pid, ts);
	e->wake.waker_tid = (__u32)pt;
	e->wake.waker_tgid = pt >> 32;
	if ((__u32)pt == 0)
		flags |= LT_F_WAKER_IDLE;
	if (irq)
		flags |= LT_F_WAKER_IRQ;
	e->h.flags = flags;
	e->wake.prio = p->prio;
	e->wake.target_cpu = p->wake_cpu;
	__builtin_memcpy(e->wake.waker_comm, cur->comm, LT_COMM_LEN);
}

/* --calls blocking: a thread of the target wakes another from inside a
 * futex call or a socket call (FUTEX_WAKE, a write to a socket someone
 * reads): write that call's entry and the wake-up in one record, so the
 * wake-up has its cause (a call waking several threads is written each
 * time; the collector keeps one).  1 if written, 0 if the wake-up is
 * still to be written on its own. */
static __always_inline int emit_wake_in_call(struct task_struct *p, struct task_struct *cur,
					     struct pt_regs *regs, __u8 flags, bool long_sleep,
					     __u64 now)
{
	struct lt_event *e;
	__u64 ts;
	long id;
	int cls;

	if (!traced_cur(cur->tgid) || !regs)
		return 0;
	id = regs->orig_ax;
	cls = lt_call_class(id);
	int iok = cls == LT_CALL_IO ? fd_io_kind(cur, regs->di) : -1;
	if (cls != LT_CALL_FUTEX && iok < 0)
		return 0;
	ts = now ? now : bpf_ktime_get_boot_ns();
	if (cls == LT_CALL_FUTEX) {
		e = reserve2(SZ_FUTEX + SZ_WAKING, LT_EV_FUTEX_ENTER, LT_EV_WAKING);
		if (!e)
			return 1;
		fill_futex(e, regs, id, cur->pid, LT_F_AT_WAKE, ts);
		fill_waking((void *)e + SZ_FUTEX, p, cur, flags, 0, ts);
		if (copy_waker_stacks && waker_copy_wanted(long_sleep) && waker_copy_room())
			copy_waker_stack(cur, regs, ts);
	} else {
		e = reserve2(SZ_IO + SZ_WAKING, LT_EV_IO_ENTER, LT_EV_WAKING);
		if (!e)
			return 1;
		fill_io(e, regs, id, cur->pid, LT_F_AT_WAKE | iok, ts);
		fill_waking((void *)e + SZ_IO, p, cur, flags, 0, ts);
	}
	submit(e);
	return 1;
}

static __always_inline int emit_waking(void *ctx, struct task_struct *p, __u8 flags)
{
	struct task_struct *cur;
	struct pt_regs *regs = NULL;
	struct lt_event *e;
	enum wake_ctx wctx;
	bool long_sleep = false;
	__u64 now = 0;
	int irq;

	if (!traced(p))
		return 0;
	cur = bpf_get_current_task_btf();
	if (!(cur->flags & 0x00200000)) /* PF_KTHREAD: no user regs */
		regs = (struct pt_regs *)bpf_task_pt_regs(cur);
	if (waiter_copy_ns) {
		/* one clock read for the rule and the record */
		now = bpf_ktime_get_boot_ns();
		long_sleep = waiter_copy_at_wake(p, cur, now);
	}
	wctx = wake_context(ctx, cur, regs, p);
	irq = wctx == WCTX_IRQ;
	if (wctx == WCTX_SOFTIRQ_CALL)
		flags |= LT_F_WAKER_SOFTIRQ;
	if (calls_at_switch && !irq && !(flags & LT_F_WAKEUP_NEW) &&
	    emit_wake_in_call(p, cur, regs, flags, long_sleep, now))
		return 0;
	e = reserve(SZ_WAKING, LT_EV_WAKING);
	if (!e)
		return 0;
	fill_waking(e, p, cur, flags, irq, now);
	submit(e);
	return 0;
}

SEC("tp_btf/sched_waking")
int BPF_PROG(lt_sched_waking, struct task_struct *p)
{
	return emit_waking(ctx, p, 0);
}

SEC("tp_btf/sched_wakeup_new")
int BPF_PROG(lt_sched_wakeup_new, struct task_struct *p)
{
	return emit_waking(ctx, p, LT_F_WAKEUP_NEW);
}

SEC("tp_btf/task_newtask")
int BPF_PROG(lt_task_newtask, struct task_struct *task, __u64 clone_flags)
{
	struct lt_event *e;

	if (follow_forks && task->pid == task->tgid && traced_pid(bpf_get_current_pid_tgid() >> 32)) {
		__u32 tgid = task->tgid;
		__u8 one = 1;

		bpf_map_update_elem(&traced_tgids, &tgid, &one, BPF_ANY);
	}
	/* the child's cgroup is set (cgroup_post_fork) before this runs */
	if (!traced(task))
		return 0;
	e = reserve(LT_REC_SIZE(lt_task_new), LT_EV_TASK_NEW);
	if (!e)
		return 0;
	fill_hdr(&e->h, LT_EV_TASK_NEW, task->pid);
	e->tnew.clone_flags = clone_flags;
	e->tnew.parent_tid = (__u32)bpf_get_current_pid_tgid();
	e->tnew.tgid = task->tgid;
	bpf_probe_read_kernel_str(e->tnew.comm, LT_COMM_LEN, task->comm);
	submit(e);
	return 0;
}

/* The parent directory's node of a kernfs node: the field became __parent
 * (RCU-protected) in Linux 6.15; CO-RE picks the one the kernel has. */
struct kernfs_node___new {
	struct kernfs_node *__parent;
} __attribute__((preserve_access_index));
struct kernfs_node___old {
	struct kernfs_node *parent;
} __attribute__((preserve_access_index));

static __always_inline __u64 kn_parent_id(struct kernfs_node *kn)
{
	struct kernfs_node *p = NULL;

	if (bpf_core_field_exists(struct kernfs_node___new, __parent))
		p = BPF_CORE_READ((struct kernfs_node___new *)kn, __parent);
	else if (bpf_core_field_exists(struct kernfs_node___old, parent))
		p = BPF_CORE_READ((struct kernfs_node___old *)kn, parent);
	return p ? BPF_CORE_READ(p, id) : 0;
}

/* --cgroup (loaded only then): a v2 cgroup made below a traced one while
 * recording is traced from its birth, as those found at attach are (a
 * container's or a service's sub-cgroups).  The v2 hierarchy is the one
 * with hierarchy id 0 ("0::" in /proc/PID/cgroup); kernfs ids of v1
 * hierarchies are numbered apart and could collide. */
SEC("tp_btf/cgroup_mkdir")
int BPF_PROG(lt_cgroup_mkdir, struct cgroup *cgrp, const char *path)
{
	struct kernfs_node *kn = cgrp->kn;
	__u64 id, parent;
	__u8 one = 1;

	if (BPF_CORE_READ(cgrp, root, hierarchy_id) != 0 || !kn)
		return 0;
	parent = kn_parent_id(kn);
	if (!bpf_map_lookup_elem(&traced_cgroups, &parent))
		return 0;
	id = BPF_CORE_READ(kn, id);
	bpf_map_update_elem(&traced_cgroups, &id, &one, BPF_NOEXIST);
	return 0;
}

SEC("tp_btf/sched_process_exit")
int BPF_PROG(lt_process_exit, struct task_struct *p)
{
	struct lt_event *e;
	bool group_dead;

	if (!traced(p))
		return 0;
	/* signal->live reaches 0 when the last thread exits */
	group_dead = BPF_CORE_READ(p, signal, live.counter) == 0;
	/* its pid may be reused by a process nobody asked for */
	if (waiter_copy_ns) {
		__u32 tid = p->pid;

		sleep_note_drop(tid);
		if (!calls_at_switch)
			bpf_map_delete_elem(&call_at, &tid);
	}
	if (targ_multi && group_dead && p->tgid != targ_tgid) {
		__u32 tgid = p->tgid;

		bpf_map_delete_elem(&traced_tgids, &tgid);
	}
	e = reserve(LT_REC_SIZE(lt_task_exit), LT_EV_TASK_EXIT);
	if (!e)
		return 0;
	fill_hdr(&e->h, LT_EV_TASK_EXIT, p->pid);
	e->texit.exit_code = p->exit_code;
	e->texit.pad = 0;
	if (group_dead)
		e->h.flags = LT_F_GROUP_DEAD;
	submit(e);
	return 0;
}

SEC("tp_btf/task_rename")
int BPF_PROG(lt_task_rename, struct task_struct *task, const char *comm)
{
	struct lt_event *e;

	if (!traced(task))
		return 0;
	e = reserve(LT_REC_SIZE(lt_rename), LT_EV_RENAME);
	if (!e)
		return 0;
	fill_hdr(&e->h, LT_EV_RENAME, task->pid);
	bpf_probe_read_kernel_str(e->ren.oldcomm, LT_COMM_LEN, task->comm);
	bpf_probe_read_kernel_str(e->ren.newcomm, LT_COMM_LEN, comm);
	submit(e);
	return 0;
}

SEC("tp_btf/sched_process_exec")
int BPF_PROG(lt_process_exec, struct task_struct *p, pid_t old_pid)
{
	struct lt_event *e;

	if (!traced(p))
		return 0;
	e = reserve(LT_REC_SIZE(lt_exec), LT_EV_EXEC);
	if (!e)
		return 0;
	fill_hdr(&e->h, LT_EV_EXEC, p->pid);
	e->exec.old_tid = old_pid;
	e->exec.pad = 0;
	bpf_probe_read_kernel_str(e->exec.comm, LT_COMM_LEN, p->comm);
	submit(e);
	return 0;
}
