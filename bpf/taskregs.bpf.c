// SPDX-License-Identifier: GPL-2.0
/* A task iterator that writes the saved user registers of every thread of
 * one process: what a snapshot needs to unwind a sleeping thread's user
 * stack without ptrace (see src/proc/taskregs.c). */
#include "vmlinux.h"
#include <bpf/bpf_helpers.h>
#include <bpf/bpf_tracing.h>
#include <bpf/bpf_core_read.h>
#include "locktrace/taskregs.h"

char LICENSE[] SEC("license") = "GPL";

const volatile __u32 targ_tgid = 0;

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
