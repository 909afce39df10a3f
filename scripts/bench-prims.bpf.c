// SPDX-License-Identifier: GPL-2.0
/*
 * What one piece of the recorder's BPF work costs on this machine
 * (scripts/bench-prims.sh, BENCHMARKS.md "what one piece of BPF work
 * costs"): the same pieces (a clock read, a ring record, map look-ups, a
 * user-memory read) run two ways, selected by `piece`:
 *  - in place: a program on tp_btf/sys_enter (and one on sys_exit) runs the
 *    piece once for each system call of the process `tgid`; user space
 *    times a loop of getppid() (what a traced thread pays, with whatever the
 *    system call's entry and exit did to the caches and the TLB);
 *  - hot: `hot` runs the piece 1,000 times in a bpf_loop, timed inside
 *    (BPF_PROG_TEST_RUN), everything in the caches.
 */
#include "vmlinux.h"
#include <bpf/bpf_helpers.h>
#include <bpf/bpf_tracing.h>
#include <bpf/bpf_core_read.h>

char LICENSE[] SEC("license") = "GPL";

struct {
	__uint(type, BPF_MAP_TYPE_RINGBUF);
	__uint(max_entries, 16 << 20);
} ring SEC(".maps");

struct {
	__uint(type, BPF_MAP_TYPE_HASH);
	__uint(max_entries, 1024);
	__type(key, __u32);
	__type(value, __u64);
} by_tgid SEC(".maps");

/* as the recorder's sleep notes: 65,536 slots of 48 bytes (vmalloc'ed) */
struct {
	__uint(type, BPF_MAP_TYPE_ARRAY);
	__uint(max_entries, 65536);
	__type(key, __u32);
	__type(value, __u64[6]);
} by_tid SEC(".maps");

struct {
	__uint(type, BPF_MAP_TYPE_PERCPU_ARRAY);
	__uint(max_entries, 1);
	__type(key, __u32);
	__type(value, __u64);
} per_cpu SEC(".maps");

struct {
	__uint(type, BPF_MAP_TYPE_TASK_STORAGE);
	__uint(map_flags, BPF_F_NO_PREALLOC);
	__type(key, int);
	__type(value, __u64);
} per_task SEC(".maps");

struct {
	__uint(type, BPF_MAP_TYPE_PERCPU_ARRAY);
	__uint(max_entries, 1);
	__type(key, __u32);
	__type(value, char[2048]);
} scratch SEC(".maps");

/* one variable, so that its layout is the one scripts/bench-prims.c reads:
 * piece and tgid (set by user space between runs), a user buffer of 2 KiB
 * or more for the hot runs, their time, records the full ring refused */
struct {
	__u32 piece, tgid;
	__u64 ubuf, hot_ns, failed, sink;
} vars;

#define HOT_ITERS 1000
#define piece vars.piece
#define tgid vars.tgid
#define ubuf vars.ubuf
#define hot_ns vars.hot_ns
#define failed vars.failed
#define sink vars.sink

enum {
	P_NONE,       /* the program runs, does nothing */
	P_CLOCK,      /* bpf_ktime_get_boot_ns() */
	P_CLOCK2,     /* two of them */
	P_RING64,     /* a 64-byte ring record reserved, written, submitted */
	P_RING2K,     /* a 2,240-byte one (a stack copy's size), header only written */
	P_RING2K_READ,/* a 2,240-byte one filled with 2 KiB of user stack */
	P_HASH,       /* a hash look-up by tgid */
	P_ARRAY,      /* an array look-up by tid in 65,536 slots */
	P_PERCPU,     /* a per-cpu array look-up */
	P_TASK,       /* a task-storage get with create */
	P_READ8,      /* bpf_probe_read_user of 8 bytes of the user stack */
	P_READ2K,     /* of 2 KiB, into a per-cpu scratch */
	P_MAX
};

static __always_inline void run_piece(__u32 p, __u64 pt, __u64 sp)
{
	__u32 k = pt >> 32, z = 0;
	__u64 *v;

	switch (p) {
	case P_CLOCK:
		sink += bpf_ktime_get_boot_ns();
		break;
	case P_CLOCK2:
		sink += bpf_ktime_get_boot_ns();
		sink += bpf_ktime_get_boot_ns();
		break;
	case P_RING64:
		v = bpf_ringbuf_reserve(&ring, 64, 0);
		if (!v) {
			failed++;
			break;
		}
		v[0] = pt;
		v[1] = sp;
		bpf_ringbuf_submit(v, BPF_RB_NO_WAKEUP);
		break;
	case P_RING2K:
		v = bpf_ringbuf_reserve(&ring, 2240, 0);
		if (!v) {
			failed++;
			break;
		}
		v[0] = pt;
		bpf_ringbuf_submit(v, BPF_RB_NO_WAKEUP);
		break;
	case P_RING2K_READ:
		v = bpf_ringbuf_reserve(&ring, 2240, 0);
		if (!v) {
			failed++;
			break;
		}
		v[0] = pt;
		bpf_probe_read_user(&v[24], 2048, (void *)sp);
		bpf_ringbuf_submit(v, BPF_RB_NO_WAKEUP);
		break;
	case P_HASH:
		v = bpf_map_lookup_elem(&by_tgid, &k);
		if (v)
			sink += *v;
		break;
	case P_ARRAY:
		k = (__u32)pt & 0xffff;
		v = bpf_map_lookup_elem(&by_tid, &k);
		if (v)
			v[1] += 1;
		break;
	case P_PERCPU:
		v = bpf_map_lookup_elem(&per_cpu, &z);
		if (v)
			*v += 1;
		break;
	case P_TASK:
		v = bpf_task_storage_get(&per_task, bpf_get_current_task_btf(), 0,
					 BPF_LOCAL_STORAGE_GET_F_CREATE);
		if (v)
			*v += 1;
		break;
	case P_READ8: {
		__u64 w = 0;
		bpf_probe_read_user(&w, 8, (void *)sp);
		sink += w;
		break;
	}
	case P_READ2K:
		v = bpf_map_lookup_elem(&scratch, &z);
		if (v)
			bpf_probe_read_user(v, 2048, (void *)sp);
		break;
	}
}

SEC("tp_btf/sys_enter")
int BPF_PROG(prim_enter, struct pt_regs *regs, long id)
{
	__u64 pt = bpf_get_current_pid_tgid();

	if ((__u32)(pt >> 32) != tgid)
		return 0;
	run_piece(piece, pt, regs->sp);
	return 0;
}

SEC("tp_btf/sys_exit")
int BPF_PROG(prim_exit, struct pt_regs *regs, long ret)
{
	__u64 pt = bpf_get_current_pid_tgid();

	if ((__u32)(pt >> 32) != tgid)
		return 0;
	run_piece(piece, pt, regs->sp);
	return 0;
}

static long hot_one(__u64 i, void *ctx)
{
	run_piece(piece, bpf_get_current_pid_tgid(), ubuf);
	return 0;
}

SEC("raw_tp")
int hot(void *ctx)
{
	__u64 t0 = bpf_ktime_get_ns();

	bpf_loop(HOT_ITERS, hot_one, NULL, 0);
	hot_ns = bpf_ktime_get_ns() - t0;
	return 0;
}
