/* SPDX-License-Identifier: MIT */
/*
 * What a futex operation does, in one place for the BPF programs and every
 * consumer (stall rules, timeline, names): header-only static inlines with
 * fixed-width types, so clang -target bpf and the host compiler share it.
 */
#ifndef LOCKTRACE_FUTEX_H
#define LOCKTRACE_FUTEX_H

#ifndef __bpf__
#include <stdint.h>
#endif

/* x86-64 syscall numbers of the futex family */
#define LT_NR_FUTEX 202
#define LT_NR_FUTEX_WAITV 449
#define LT_NR_FUTEX_WAKE 454
#define LT_NR_FUTEX_WAIT 455
#define LT_NR_FUTEX_REQUEUE 456

/* futex(2) commands: op & LT_FUTEX_CMD_MASK */
enum lt_futex_cmd {
	LT_FUTEX_WAIT = 0,
	LT_FUTEX_WAKE = 1,
	LT_FUTEX_FD = 2,
	LT_FUTEX_REQUEUE = 3,
	LT_FUTEX_CMP_REQUEUE = 4,
	LT_FUTEX_WAKE_OP = 5,
	LT_FUTEX_LOCK_PI = 6,
	LT_FUTEX_UNLOCK_PI = 7,
	LT_FUTEX_TRYLOCK_PI = 8,
	LT_FUTEX_WAIT_BITSET = 9,
	LT_FUTEX_WAKE_BITSET = 10,
	LT_FUTEX_WAIT_REQUEUE_PI = 11,
	LT_FUTEX_CMP_REQUEUE_PI = 12,
	LT_FUTEX_LOCK_PI2 = 13,
	LT_FUTEX_NCMDS = 14,
};
#define LT_FUTEX_CMD_MASK 0x7f
#define LT_FUTEX_PRIVATE 0x80
#define LT_FUTEX_CLOCK_REALTIME 0x100

/* Does this call sleep until woken?  For futex(2) these are also the
 * commands whose 4th argument is a timespec. */
static inline int lt_futex_waits(uint16_t nr, uint32_t op)
{
	if (nr == LT_NR_FUTEX_WAIT || nr == LT_NR_FUTEX_WAITV)
		return 1;
	if (nr != LT_NR_FUTEX)
		return 0;
	switch (op & LT_FUTEX_CMD_MASK) {
	case LT_FUTEX_WAIT:
	case LT_FUTEX_WAIT_BITSET:
	case LT_FUTEX_LOCK_PI:
	case LT_FUTEX_LOCK_PI2:
	case LT_FUTEX_WAIT_REQUEUE_PI:
		return 1;
	}
	return 0;
}

/* Does this call wake (or requeue) other threads' waits? */
static inline int lt_futex_wakes(uint16_t nr, uint32_t op)
{
	if (nr == LT_NR_FUTEX_WAKE || nr == LT_NR_FUTEX_REQUEUE)
		return 1;
	if (nr != LT_NR_FUTEX)
		return 0;
	switch (op & LT_FUTEX_CMD_MASK) {
	case LT_FUTEX_WAKE:
	case LT_FUTEX_WAKE_BITSET:
	case LT_FUTEX_WAKE_OP:
	case LT_FUTEX_REQUEUE:
	case LT_FUTEX_CMP_REQUEUE:
	case LT_FUTEX_CMP_REQUEUE_PI:
	case LT_FUTEX_UNLOCK_PI:
		return 1;
	}
	return 0;
}

/* Does the call name a process-private futex (FUTEX_PRIVATE_FLAG, or
 * FUTEX2_PRIVATE, the same bit, in futex_wait/wake's flags)?  The kernel
 * then keys the word by the process, even in a shared mapping. */
static inline int lt_futex_private(uint16_t nr, uint32_t op)
{
	return (nr == LT_NR_FUTEX || nr == LT_NR_FUTEX_WAIT || nr == LT_NR_FUTEX_WAKE ||
		nr == LT_NR_FUTEX_REQUEUE) && (op & LT_FUTEX_PRIVATE);
}

#endif
