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
 * iterator of bpf/taskregs.bpf.c: the socket's SO_RCVTIMEO and
 * SO_SNDTIMEO in jiffies (LONG_MAX: none; the kernel's HZ is
 * lt_taskiter_socktimeo's). */
struct lt_socktimeo_rec {
	uint32_t fd;
	uint32_t pad;
	uint64_t ino;
	int64_t rcvtimeo, sndtimeo;
};

#ifndef __bpf__
struct lt_tid_regs;
/* The object of bpf/taskregs.bpf.c loaded for one process: its task
 * iterator (registers) and, where the kernel takes it, its task-file
 * iterator (socket timeouts), one BTF load for both. */
struct lt_taskiter;
/* Loads the object for tgid: both programs, or, when that fails (a kernel
 * without what the task-file iterator needs; LOCKTRACE_NO_SOCKTIMEO=1
 * makes it fail, for tests), the register iterator alone, the socket
 * timeouts then unreadable (lt_taskiter_socktimeo says why).  0, or -1
 * with a message in err (no BPF, not root). */
int lt_taskiter_open(pid_t tgid, struct lt_taskiter **out, char *err, size_t errlen);
void lt_taskiter_close(struct lt_taskiter *it);
/* The process it was loaded for. */
pid_t lt_taskiter_tgid(const struct lt_taskiter *it);
/* Fills *out (malloc'd, *n entries) with the registers of every thread of
 * the process; a thread that was running has only its fs base (stale =
 * true).  0, or -1 with a message in err. */
int lt_taskiter_regs(struct lt_taskiter *it, struct lt_tid_regs **out, size_t *n, char *err, size_t errlen);
/* Fills *out (malloc'd, *n entries) with the timeouts of every socket fd
 * of the process, and *hz with the kernel's HZ (CONFIG_HZ from its
 * configuration file; 0 when that cannot be read).  0, or -1 with a
 * message in err (the task-file iterator did not load). */
int lt_taskiter_socktimeo(struct lt_taskiter *it, struct lt_socktimeo_rec **out, size_t *n, unsigned *hz,
			  char *err, size_t errlen);
/* The registers alone (lt_taskiter_open, _regs, _close, without the
 * task-file iterator).  0, or -1 with a message in err. */
int lt_taskregs_read(pid_t tgid, struct lt_tid_regs **out, size_t *n, char *err, size_t errlen);
/* CONFIG_HZ from a kernel configuration file (plain or gzip'd) at path;
 * 0 when it is not there or cannot be read. */
unsigned lt_kconfig_hz(const char *path);
#endif

#endif
