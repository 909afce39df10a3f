// SPDX-License-Identifier: GPL-2.0
/* The snapshot's BPF iterators over one process, one object (one BTF load):
 *  - lt_dump_task_regs (iter/task): the saved user registers of every
 *    thread, what a snapshot needs to unwind a sleeping thread's user stack
 *    without ptrace;
 *  - lt_dump_sock_timeo (iter/task_file): the receive and send timeouts of
 *    every socket of the process (SO_RCVTIMEO, SO_SNDTIMEO: sk_rcvtimeo and
 *    sk_sndtimeo, in jiffies), which neither /proc nor sock_diag shows: what
 *    tells a blocking socket read that times out from one that waits for
 *    ever.  A kernel that refuses it gets the object loaded again without
 *    it, the registers still read (src/proc/taskregs.c); no __kconfig
 *    extern here (the kernel's HZ is read in user space), since a missing
 *    kernel configuration file would fail the whole object. */
#include "vmlinux.h"
#include <bpf/bpf_helpers.h>
#include <bpf/bpf_tracing.h>
#include <bpf/bpf_core_read.h>
#include "locktrace/taskregs.h"

char LICENSE[] SEC("license") = "GPL";

const volatile __u32 targ_tgid = 0;

#define LT_S_IFMT 0170000
#define LT_S_IFSOCK 0140000

SEC("iter/task")
int lt_dump_task_regs(struct bpf_iter__task *ctx)
{
	struct task_struct *task = ctx->task;
	struct lt_taskregs_rec rec = {};
	struct pt_regs *r;

	if (!task || task->tgid != targ_tgid)
		return 0;
	r = (struct pt_regs *)bpf_task_pt_regs(task);
	if (!r)
		return 0;
	rec.tid = task->pid;
	rec.state = BPF_CORE_READ(task, __state);
	rec.ip = BPF_CORE_READ(r, ip);
	rec.sp = BPF_CORE_READ(r, sp);
	rec.bp = BPF_CORE_READ(r, bp);
	rec.bx = BPF_CORE_READ(r, bx);
	rec.r12 = BPF_CORE_READ(r, r12);
	rec.r13 = BPF_CORE_READ(r, r13);
	rec.r14 = BPF_CORE_READ(r, r14);
	rec.r15 = BPF_CORE_READ(r, r15);
	rec.ax = BPF_CORE_READ(r, ax);
	rec.cx = BPF_CORE_READ(r, cx);
	rec.dx = BPF_CORE_READ(r, dx);
	rec.si = BPF_CORE_READ(r, si);
	rec.di = BPF_CORE_READ(r, di);
	rec.r8 = BPF_CORE_READ(r, r8);
	rec.r9 = BPF_CORE_READ(r, r9);
	rec.r10 = BPF_CORE_READ(r, r10);
	rec.r11 = BPF_CORE_READ(r, r11);
	rec.orig_ax = BPF_CORE_READ(r, orig_ax);
	/* saved at every switch-out: a thread's pthread_t, whatever it runs */
	rec.fsbase = BPF_CORE_READ(task, thread.fsbase);
	bpf_seq_write(ctx->meta->seq, &rec, sizeof(rec));
	return 0;
}

SEC("iter/task_file")
int lt_dump_sock_timeo(struct bpf_iter__task_file *ctx)
{
	struct task_struct *task = ctx->task;
	struct file *file = ctx->file;
	struct lt_socktimeo_rec rec = {};

	if (!task || !file || task->tgid != targ_tgid)
		return 0;
	struct inode *inode = BPF_CORE_READ(file, f_inode);
	if (!inode || (BPF_CORE_READ(inode, i_mode) & LT_S_IFMT) != LT_S_IFSOCK)
		return 0;
	struct socket *sock = (struct socket *)BPF_CORE_READ(file, private_data);
	struct sock *sk = sock ? BPF_CORE_READ(sock, sk) : NULL;
	if (!sk)
		return 0;
	rec.fd = ctx->fd;
	rec.ino = BPF_CORE_READ(inode, i_ino);
	rec.rcvtimeo = BPF_CORE_READ(sk, sk_rcvtimeo);
	rec.sndtimeo = BPF_CORE_READ(sk, sk_sndtimeo);
	bpf_seq_write(ctx->meta->seq, &rec, sizeof(rec));
	return 0;
}
