/* SPDX-License-Identifier: MIT */
/* User registers of every thread of a process, read by a BPF task iterator
 * (bpf/taskregs.bpf.c) without ptrace: the registers the kernel saved when
 * each thread entered the kernel.  Only meaningful for threads that are not
 * running (a running thread's saved registers are stale). */
#ifndef LOCKTRACE_TASKREGS_H
#define LOCKTRACE_TASKREGS_H

#ifndef __bpf__
#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>
#endif

/* One record per thread, written by the iterator (fixed-width, shared). */
struct lt_taskregs_rec {
	uint32_t tid;
	uint32_t state; /* task->__state: 0 running/runnable */
	uint64_t ip, sp, bp, bx, r12, r13, r14, r15;
	uint64_t ax, cx, dx, si, di, r8, r9, r10, r11, orig_ax;
	uint64_t fsbase; /* task->thread.fsbase: the thread's pthread_t */
};

#ifndef __bpf__
struct lt_tid_regs;
/* Fills *out (malloc'd, *n entries) with the registers of every thread of
 * tgid; a thread that was running has only its fs base (stale = true).
 * 0, or -1 with a message in err. */
int lt_taskregs_read(pid_t tgid, struct lt_tid_regs **out, size_t *n, char *err, size_t errlen);
#endif

#endif
