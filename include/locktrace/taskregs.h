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

/* One record per socket fd of a process, written by the task-file
 * iterator of bpf/socktimeo.bpf.c: the socket's SO_RCVTIMEO and
 * SO_SNDTIMEO in jiffies (LONG_MAX: none), and the kernel's HZ (0 when
 * the kernel's configuration could not be read). */
struct lt_socktimeo_rec {
	uint32_t fd;
	uint32_t hz;
	uint64_t ino;
	int64_t rcvtimeo, sndtimeo;
};

#ifndef __bpf__
struct lt_tid_regs;
/* Fills *out (malloc'd, *n entries) with the registers of every thread of
 * tgid; a thread that was running has only its fs base (stale = true).
 * 0, or -1 with a message in err. */
int lt_taskregs_read(pid_t tgid, struct lt_tid_regs **out, size_t *n, char *err, size_t errlen);
/* Fills *out (malloc'd, *n entries) with the timeouts of every socket fd
 * of tgid.  0, or -1 with a message in err (no BPF, no task-file
 * iterator, not root). */
int lt_socktimeo_read(pid_t tgid, struct lt_socktimeo_rec **out, size_t *n, char *err, size_t errlen);
#endif

#endif
