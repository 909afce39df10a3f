/* SPDX-License-Identifier: MIT */
/*
 * The system calls locktrace records, in one place for the BPF programs and
 * user space (x86-64 numbers; the futex family is in futex.h): which family
 * each belongs to.  Header-only static inlines with fixed-width types, like
 * futex.h, so that clang -target bpf and the host compiler share it.
 */
#ifndef LOCKTRACE_CALLS_H
#define LOCKTRACE_CALLS_H

#include "locktrace/futex.h"

#define LT_NR_READ 0
#define LT_NR_WRITE 1
#define LT_NR_POLL 7
#define LT_NR_READV 19
#define LT_NR_WRITEV 20
#define LT_NR_SELECT 23
#define LT_NR_FCNTL 72
#define LT_NR_FLOCK 73
#define LT_NR_SENDTO 44
#define LT_NR_RECVFROM 45
#define LT_NR_SENDMSG 46
#define LT_NR_RECVMSG 47
#define LT_NR_EPOLL_WAIT 232
#define LT_NR_PSELECT6 270
#define LT_NR_PPOLL 271
#define LT_NR_EPOLL_PWAIT 281
#define LT_NR_RECVMMSG 299
#define LT_NR_SENDMMSG 307
#define LT_NR_EPOLL_PWAIT2 441

/* The families: their entries are FUTEX_ENTER, WAIT_ENTER and IO_ENTER
 * events (io calls are recorded only on sockets). */
enum lt_call_class { LT_CALL_NONE, LT_CALL_FUTEX, LT_CALL_WAIT, LT_CALL_IO };

static inline int lt_call_class(long nr)
{
	switch (nr) {
	case LT_NR_FUTEX:
	case LT_NR_FUTEX_WAITV:
	case LT_NR_FUTEX_WAKE:
	case LT_NR_FUTEX_WAIT:
	case LT_NR_FUTEX_REQUEUE:
		return LT_CALL_FUTEX;
	case LT_NR_SELECT:
	case LT_NR_PSELECT6:
	case LT_NR_POLL:
	case LT_NR_PPOLL:
	case LT_NR_EPOLL_WAIT:
	case LT_NR_EPOLL_PWAIT:
	case LT_NR_EPOLL_PWAIT2:
		return LT_CALL_WAIT;
	case LT_NR_READ:
	case LT_NR_READV:
	case LT_NR_RECVFROM:
	case LT_NR_RECVMSG:
	case LT_NR_RECVMMSG:
	case LT_NR_WRITE:
	case LT_NR_WRITEV:
	case LT_NR_SENDTO:
	case LT_NR_SENDMSG:
	case LT_NR_SENDMMSG:
		return LT_CALL_IO;
	}
	return LT_CALL_NONE;
}

/* File-lock calls (their entries are FLOCK_ENTER events): flock(2), and
 * fcntl(2) with a command that sets a record lock (arg1: fcntl's command;
 * the other fcntl commands are not recorded). */
#define LT_F_SETLK 6
#define LT_F_SETLKW 7
#define LT_F_OFD_SETLK 37
#define LT_F_OFD_SETLKW 38
#define LT_LOCK_SH 1
#define LT_LOCK_EX 2
#define LT_LOCK_NB 4
#define LT_LOCK_UN 8

static inline int lt_call_flock(long nr, uint64_t arg1)
{
	if (nr == LT_NR_FLOCK)
		return 1;
	return nr == LT_NR_FCNTL && (arg1 == LT_F_SETLK || arg1 == LT_F_SETLKW ||
				     arg1 == LT_F_OFD_SETLK || arg1 == LT_F_OFD_SETLKW);
}

/* Can this file-lock call wait for another holder?  flock without LOCK_NB
 * taking a lock; fcntl F_SETLKW / F_OFD_SETLKW (an unlock never waits,
 * but its type is known only for fcntl: type -1 is "not known"). */
static inline int lt_flock_may_wait(uint16_t nr, uint32_t cmd, int type)
{
	if (nr == LT_NR_FLOCK)
		return !(cmd & (LT_LOCK_NB | LT_LOCK_UN)) && (cmd & (LT_LOCK_SH | LT_LOCK_EX));
	return (cmd == LT_F_SETLKW || cmd == LT_F_OFD_SETLKW) && type != 2 /* F_UNLCK */;
}

/* An io call whose bytes are in iovecs (readv, writev, the msg calls): its
 * third argument is not a byte count. */
static inline int lt_call_iovecs(long nr)
{
	return nr == LT_NR_READV || nr == LT_NR_WRITEV || nr == LT_NR_SENDMSG ||
	       nr == LT_NR_RECVMSG || nr == LT_NR_SENDMMSG || nr == LT_NR_RECVMMSG;
}

/* An io call that receives (the others send). */
static inline int lt_call_reads(long nr)
{
	return nr == LT_NR_READ || nr == LT_NR_READV || nr == LT_NR_RECVFROM ||
	       nr == LT_NR_RECVMSG || nr == LT_NR_RECVMMSG;
}

#endif
