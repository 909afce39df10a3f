/* SPDX-License-Identifier: MIT */
/*
 * Event records shared by the BPF programs (bpf/locktrace.bpf.c) and user
 * space.  Fixed-width types only: this header is compiled both by clang for
 * the BPF target and by the host compiler.
 *
 * The BPF side reserves exactly sizeof(struct lt_ev_hdr) + the payload of the
 * kind it emits; user space decodes every record (from the ring buffer or a
 * trace file) into the full struct lt_event.
 */
#ifndef LOCKTRACE_EVENT_H
#define LOCKTRACE_EVENT_H

#ifndef __bpf__
#include <stdint.h> /* for BPF, vmlinux.h typedefs the same names */
#endif

#define LT_COMM_LEN 16
/* processes one recording can trace (the kernel filter's hash map) */
#define LT_MAX_TGIDS 4096
/* cgroups one recording can trace (--cgroup: the one given and those below) */
#define LT_MAX_CGROUPS 1024
#define LT_WAIT_FDS 4 /* first fds of a select/poll set kept in an event */

enum lt_kind {
	LT_EV_NONE = 0,
	LT_EV_FUTEX_ENTER = 1, /* futex(2), futex_waitv, futex_wait/wake/requeue */
	LT_EV_WAIT_ENTER = 2,  /* select, pselect6, poll, ppoll, epoll_wait* */
	LT_EV_IO_ENTER = 3,    /* read/write family on a socket */
	LT_EV_SYS_EXIT = 4,    /* return of any of the calls above */
	LT_EV_SWITCH = 5,      /* sched_switch where a target thread is prev or next */
	LT_EV_WAKING = 6,      /* sched_waking / sched_wakeup_new of a target thread */
	LT_EV_TASK_NEW = 7,    /* a thread of the target was created */
	LT_EV_TASK_EXIT = 8,   /* a thread of the target exited */
	LT_EV_RENAME = 9,      /* a thread of the target changed its comm */
	LT_EV_EXEC = 10,       /* the target called execve */
	LT_EV_LOST = 11,       /* user space: the ring buffer dropped events */
	LT_EV_FLOCK_ENTER = 12, /* flock(2), fcntl(2) F_SETLK[W]/F_OFD_SETLK[W] (1.4) */
	LT_EV_MAX = 13,
};

/* hdr.flags */
#define LT_F_WAKEUP_NEW  0x01 /* WAKING: from sched_wakeup_new (thread start) */
#define LT_F_WAKER_IDLE  0x02 /* WAKING: waker is the idle task (an interrupt) */
#define LT_F_WAKER_IRQ   0x04 /* WAKING: issued from interrupt context (a timer,
			       * a device): the "waker" is only the task that
			       * happened to be interrupted */
#define LT_F_WAKER_SOFTIRQ 0x08 /* WAKING: issued by a softirq the waker ran
				 * itself, inside its own socket call (a send
				 * on loopback: the network softirq runs in the
				 * sender's system call); the waker and its call
				 * caused it.  Never together with WAKER_IRQ */
#define LT_F_GROUP_DEAD  0x01 /* TASK_EXIT: last thread of the process */
#define LT_F_PREEMPT     0x01 /* SWITCH: prev was preempted */
#define LT_F_BEGAN_BEFORE 0x01 /* SYS_EXIT: the return of a call the thread was
				* already in when tracing began (no entry) */
/* --calls blocking (no syscall tracepoints; see docs/trace-format.md): */
#define LT_F_AT_SLEEP    0x02 /* FUTEX/WAIT/IO_ENTER: written when the thread
			       * went to sleep in the call (ts: that moment,
			       * not the entry); arguments from its saved
			       * user registers */
#define LT_F_AT_WAKE     0x04 /* FUTEX/IO_ENTER: written when the thread,
			       * inside the call, woke a thread of the target
			       * (ts: that wake-up, which follows) */
#define LT_F_IO_PIPE     0x08 /* IO_ENTER: the fd is a pipe or FIFO, not a
			       * socket (trace format 1.6; a 1.5 reader takes
			       * it for a socket) */
#define LT_F_RET_UNKNOWN 0x02 /* SYS_EXIT: written by the collector when the
			       * thread ran again after sleeping in the call
			       * (ts: that moment); ret is not known (0) */
/* record --stacks --calls blocking, between the BPF side and the collector
 * only (the encoder drops them, LT_F_RECORDER_ONLY): */
#define LT_F_BPF_COPY    0x40 /* FUTEX/WAIT/IO/FLOCK_ENTER at sleep: the BPF
			       * side copies this sleep's stack at the thread's
			       * return to user space if it lasts waiter_copy_ns
			       * or more; the collector need not read it while it
			       * sleeps (only if it outlasts LT_STACK_LATE_NS) */
#define LT_F_BPF_SAMPLED 0x80 /* with LT_F_BPF_COPY: one of the 1 in N short
			       * waits sampled, copied at its return whatever its
			       * length */
#define LT_F_RECORDER_ONLY (LT_F_BPF_COPY | LT_F_BPF_SAMPLED)

/* record --stacks with --calls blocking: a thread's user registers and the
 * first LT_STACK_COPY_BYTES of its user stack, into a ring buffer of its
 * own (stack_copies); unwound in the collector.  Two roles:
 *  - LT_COPY_WAKER: a waker's, copied when it woke a thread of the target
 *    from a futex call (the release site); ts is the ts of the FUTEX_ENTER
 *    (LT_F_AT_WAKE) written with it;
 *  - LT_COPY_WAITER: a waiter's, copied at the wake-up that ended a sleep
 *    of at least waiter_copy_ns in a traced call, by a waker of the same
 *    address space (or at the switch that runs it again, from a thread of
 *    its process, or with --calls all at its call's return); tid is the
 *    waiter, ts the ts of the wait's entry (--calls blocking: the one
 *    written when it went to sleep, LT_F_AT_SLEEP; --calls all: the one
 *    written at sys_enter), at when the copy was taken.  For a CPython
 *    process (a layout in py_layouts) a struct lt_py_copy follows, as
 *    after a waker's. */
#define LT_STACK_COPY_BYTES 2048
/* record --stacks with waiters' copies (BPF map sleep_at, by tid modulo
 * LT_SLEEP_SLOTS, or sleep_spill by tid when that slot is in use): the
 * sleep in a traced call a thread is in, noted when it went to sleep: ts as
 * an LT_COPY_WAITER's (0 once it ran again or its stack was copied), and
 * its saved user sp and ip then.  The collector reads the stack of a wait
 * still asleep from there, without reading /proc/PID/task/TID/syscall. */
struct lt_sleep_note {
	uint64_t ts, sp, ip;
	/* a sleep of waiter_copy_ns or more that ended: its ts, its copy due
	 * at the thread's return to user space (rseq_update), 0 none */
	uint64_t at_return;
	/* LT_F_BPF_SAMPLED: copied at its return even if shorter */
	uint64_t sampled;
	/* whose note it is (the map is indexed by tid modulo its size) */
	uint32_t tid, pad;
};
/* slots of the map sleep_at (a power of two) */
#define LT_SLEEP_SLOTS 65536
/* counters of the waiters' copies (BPF map wcopy_count, per cpu) */
#define LT_WCOPY_AT_WAKE 0   /* copied at the wake-up */
#define LT_WCOPY_AT_SWITCH 1 /* copied at the switch that ran it again */
#define LT_WCOPY_LEFT 2      /* woken from another address space: not copied */
#define LT_WCOPY_FULL 3      /* the copies' ring was full */
#define LT_WCOPY_WAKER_LEFT 4 /* a waker's copy not taken: the ring half full */
#define LT_WCOPY_AT_EXIT 5   /* --calls all: copied at its call's return (sys_exit) */
#define LT_WCOPY_RT_READ 6   /* not copied: a process whose waits the collector reads
				(OCaml 5, JVM: their runtime stacks are read with them) */
#define LT_WCOPY_SAMPLED 7   /* a sampled wait shorter than waiter_copy_ns copied at its
				return (LT_F_BPF_SAMPLED) */
#define LT_WCOPY_GONE 8      /* a copy due at its return not taken: the thread had
				left the call (its registers not the sleep's) */
#define LT_WCOPY_UNSEEN 9    /* of those copied at their return: the switch that ran
				the thread again was not seen (the copy made at the
				return that followed it) */
#define LT_WCOPY_SPILLED 10  /* sleep notes kept in sleep_spill: their slot of
                                sleep_at held another thread's note in use */
#define LT_WCOPY_MAX 11
#define LT_COPY_WAKER 0
#define LT_COPY_WAITER 1
struct lt_stack_copy {
	uint64_t ts;
	uint32_t tid, tgid;
	uint64_t ip, sp, bp, bx, r12, r13, r14, r15;
	uint64_t ax, cx, dx, si, di, r8, r9, r10, r11;
	uint32_t len; /* bytes copied from sp (0: none could be read) */
	uint16_t role; /* LT_COPY_* */
	uint16_t pad;
	uint64_t at;  /* LT_COPY_WAITER: when copied (CLOCK_BOOTTIME ns) */
	uint8_t stack[LT_STACK_COPY_BYTES];
};

struct lt_ev_hdr {
	uint64_t ts;   /* CLOCK_BOOTTIME, ns */
	uint32_t tid;  /* the thread the event is about (see each kind) */
	uint16_t cpu;
	uint8_t kind;  /* enum lt_kind */
	uint8_t flags; /* LT_F_* */
};

/* hdr.tid: the caller.  For futex(2): uaddr, op, val, val3 as passed;
 * timeout is the relative/absolute timeout in ns read from the timespec for
 * wait-type ops (-1: none), or the raw val2 argument for requeue/wake_op ops.
 * futex_waitv: uaddr/val of the first waiter, uaddr2 = the waiters array,
 * val = nr_futexes, op = flags.  futex2 calls: op holds their flags. */
struct lt_futex_enter {
	uint64_t uaddr;
	uint64_t uaddr2;
	int64_t timeout;
	uint32_t op;
	uint32_t val;
	uint32_t val3;
	uint16_t nr; /* syscall number */
	uint16_t pad;
};

/* hdr.tid: the caller.  nfds is nfds (select/poll) or maxevents (epoll);
 * fds[] the first fds of the read set / pollfd array (epoll: the epfd),
 * -1 where unused.  timeout_ns -1: infinite. */
struct lt_wait_enter {
	int64_t timeout_ns;
	uint32_t nfds;
	int32_t fds[LT_WAIT_FDS];
	uint16_t nr;
	uint16_t pad;
};

/* io.count when the bytes asked are not known: a vector or message call
 * with more than LT_IO_MAX_IOV iovecs (per message) or LT_IO_MAX_MSGS
 * messages, or whose memory could not be read. */
#define LT_IO_COUNT_UNKNOWN ((uint64_t)-1)
#define LT_IO_MAX_IOV 16
#define LT_IO_MAX_MSGS 8

/* hdr.tid: the caller; only emitted when fd is a socket */
struct lt_io_enter {
	uint64_t count; /* bytes asked: the count argument, or the sum of the
			 * iovecs' lengths of readv/writev and of every message
			 * of sendmsg/recvmsg/sendmmsg/recvmmsg (read from the
			 * caller's memory); LT_IO_COUNT_UNKNOWN: not known */
	int32_t fd;
	uint16_t nr;
	uint16_t pad;
};

/* hdr.tid: the caller.  A file-lock call (calls.h: lt_call_flock): flock
 * (fd, operation) or fcntl (fd, a lock-setting command, and the struct
 * flock it points to, read at entry).  type -1: flock, or the struct was
 * unreadable (then whence, start, len are 0). */
struct lt_flock_enter {
	int64_t start;  /* fcntl: l_start */
	int64_t len;    /* fcntl: l_len (0: to the end of the file, however far) */
	int32_t fd;
	uint32_t cmd;   /* flock: the operation (LOCK_SH 1, EX 2, NB 4, UN 8);
			 * fcntl: the command (F_SETLK 6, F_SETLKW 7,
			 * F_OFD_SETLK 37, F_OFD_SETLKW 38) */
	uint16_t nr;    /* LT_NR_FLOCK or LT_NR_FCNTL */
	int8_t type;    /* fcntl: l_type (F_RDLCK 0, F_WRLCK 1, F_UNLCK 2), -1 */
	uint8_t whence; /* fcntl: l_whence (SEEK_SET 0, SEEK_CUR 1, SEEK_END 2) */
	uint32_t pad;
};

/* hdr.tid: the caller */
struct lt_sys_exit {
	int64_t ret;
	uint16_t nr;
	uint16_t pad[3];
};

/* hdr.tid: prev_tid (the thread leaving the cpu) */
struct lt_switch {
	uint64_t prev_state; /* TASK_* bits as sched_switch reports them */
	uint32_t prev_tid;
	uint32_t next_tid;
	int32_t prev_prio;
	int32_t next_prio;
	uint32_t prev_tgid;
	uint32_t next_tgid;
	char prev_comm[LT_COMM_LEN];
	char next_comm[LT_COMM_LEN];
};

/* hdr.tid: the wakee.  The waker is the task running when the wake-up was
 * issued (current), which may belong to another process. */
struct lt_waking {
	uint32_t waker_tid;
	uint32_t waker_tgid;
	int32_t prio;
	uint32_t target_cpu;
	char waker_comm[LT_COMM_LEN];
};

/* hdr.tid: the new thread */
struct lt_task_new {
	uint64_t clone_flags;
	uint32_t parent_tid; /* the thread that called clone */
	uint32_t tgid;
	char comm[LT_COMM_LEN];
};

/* hdr.tid: the exiting thread */
struct lt_task_exit {
	int32_t exit_code;
	uint32_t pad;
};

/* hdr.tid: the renamed thread */
struct lt_rename {
	char oldcomm[LT_COMM_LEN];
	char newcomm[LT_COMM_LEN];
};

/* hdr.tid: the thread that exec'd (now the group leader) */
struct lt_exec {
	uint32_t old_tid;
	uint32_t pad;
	char comm[LT_COMM_LEN];
};

/* user space only: hdr.cpu: where, count of kind lost_kind since the
 * previous LOST record for that cpu and kind */
struct lt_lost {
	uint64_t count;
	uint32_t lost_kind;
	uint32_t pad;
};

struct lt_event {
	struct lt_ev_hdr h;
	union {
		struct lt_futex_enter futex;
		struct lt_wait_enter wait;
		struct lt_io_enter io;
		struct lt_sys_exit exit;
		struct lt_switch sw;
		struct lt_waking wake;
		struct lt_task_new tnew;
		struct lt_task_exit texit;
		struct lt_rename ren;
		struct lt_exec exec;
		struct lt_lost lost;
		struct lt_flock_enter flk;
	};
};

/* The size the BPF side reserves for a record of one payload type, e.g.
 * LT_REC_SIZE(lt_switch); lt_record_size gives it by kind (0: not a kind
 * the kernel side writes).  A ring record holds one such record, or with
 * --calls blocking a call's entry followed by its switch or wake-up. */
#define LT_REC_SIZE(payload) (sizeof(struct lt_ev_hdr) + sizeof(struct payload))

static inline unsigned long lt_record_size(uint8_t kind)
{
	switch (kind) {
	case LT_EV_FUTEX_ENTER: return LT_REC_SIZE(lt_futex_enter);
	case LT_EV_WAIT_ENTER: return LT_REC_SIZE(lt_wait_enter);
	case LT_EV_IO_ENTER: return LT_REC_SIZE(lt_io_enter);
	case LT_EV_SYS_EXIT: return LT_REC_SIZE(lt_sys_exit);
	case LT_EV_SWITCH: return LT_REC_SIZE(lt_switch);
	case LT_EV_WAKING: return LT_REC_SIZE(lt_waking);
	case LT_EV_TASK_NEW: return LT_REC_SIZE(lt_task_new);
	case LT_EV_TASK_EXIT: return LT_REC_SIZE(lt_task_exit);
	case LT_EV_RENAME: return LT_REC_SIZE(lt_rename);
	case LT_EV_EXEC: return LT_REC_SIZE(lt_exec);
	case LT_EV_FLOCK_ENTER: return LT_REC_SIZE(lt_flock_enter);
	}
	return 0;
}

/* The system call number of a call's entry record (FUTEX, WAIT, IO,
 * FLOCK_ENTER), 0xffff for any other kind. */
static inline uint16_t lt_entry_nr(const struct lt_event *e)
{
	switch (e->h.kind) {
	case LT_EV_FUTEX_ENTER: return e->futex.nr;
	case LT_EV_WAIT_ENTER: return e->wait.nr;
	case LT_EV_IO_ENTER: return e->io.nr;
	case LT_EV_FLOCK_ENTER: return e->flk.nr;
	}
	return 0xffff;
}

#endif
