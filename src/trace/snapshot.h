/* locktrace snapshot: what every thread of a (possibly hung) process is
 * blocked in right now, read from /proc and the target's memory only.
 *
 * The target is never ptraced, signalled or stopped: the library reads
 * /proc/PID/... files and target memory through process_vm_readv (fallback
 * /proc/PID/mem).  Every failure (a thread that exits mid-read, unreadable
 * memory, a module without symbols) becomes a note in the result, never an
 * abort.  See docs/snapshot.md for the field meanings and the JSON schema.
 */
#ifndef LOCKTRACE_SNAPSHOT_H
#define LOCKTRACE_SNAPSHOT_H

#include <signal.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>
#include <sys/types.h>

#ifdef __cplusplus
extern "C" {
#endif

struct lt_rtlock;
struct lt_go;
struct lt_waitfor;
struct lt_taskiter;

/* ---- register sets ------------------------------------------------------ */

/* User registers of a thread as saved on kernel entry (x86-64 pt_regs
 * order does not matter: fields are named).  The recorder fills these from a
 * BPF iter/task program (bpf_task_pt_regs); for a thread that is running
 * they are stale and must not be passed. */
struct lt_regs {
	uint64_t ip, sp, bp, bx;
	uint64_t r12, r13, r14, r15;
	uint64_t ax, cx, dx, si, di;
	uint64_t r8, r9, r10, r11;
	uint64_t orig_ax;
	uint64_t fsbase;  /* the thread's pthread_t (task->thread.fsbase), 0 unknown */
};

/* Registers for one tid, for lt_snapshot_opts.regs. */
struct lt_tid_regs {
	pid_t tid;
	struct lt_regs regs;
	bool stale;       /* the thread was running: only regs.fsbase is valid */
};

/* Callback form: return 0 and fill *out when registers for TID are known,
 * nonzero otherwise (the /proc fallback is then used). */
typedef int (*lt_regs_fn)(void *arg, pid_t tid, struct lt_regs *out);

/* ---- options ------------------------------------------------------------ */

enum {
	LT_SNAP_NO_USTACK = 1u << 0,  /* skip user stacks (no elfutils work)  */
	LT_SNAP_NO_KSTACK = 1u << 1,  /* skip /proc/.../stack                 */
	LT_SNAP_NO_SYMBOLS = 1u << 2, /* no address/lock symbolization        */
	LT_SNAP_NO_LINES = 1u << 3,   /* no file:line lookups (faster)        */
};

struct lt_verdict_opts {
	double lost_wakeup_threshold_s; /* 0 = default 1.0 s                  */
	int convoy_min_waiters;         /* 0 = default 4                      */
};

struct lt_snapshot_opts {
	unsigned flags;                 /* LT_SNAP_*                          */
	int max_frames;                 /* 0 = default 64                     */
	struct lt_verdict_opts verdict; /* rules run by lt_snapshot_take      */
	/* Optional full register sets per tid (from the BPF task iterator).
	 * get_regs is asked first, then the array; with neither, or when a tid
	 * is missing, sp and pc from /proc/PID/task/TID/syscall are used. */
	lt_regs_fn get_regs;
	void *get_regs_arg;
	const struct lt_tid_regs *regs;
	size_t n_regs;
	/* The BPF iterators loaded for the process (lt_taskiter_open,
	 * locktrace/taskregs.h), whose task-file iterator reads the socket
	 * timeouts when a thread blocks in socket I/O; NULL: the snapshot
	 * loads them itself then (root only). */
	struct lt_taskiter *iter;
	/* Budget (src/budget.h): reading stops, said in the notes and in each
	 * verdict's evidence, at deadline_ns (CLOCK_MONOTONIC; 0: the default,
	 * LT_SNAP_BUDGET_MS plus 1 ms per thread of the process, at most
	 * LT_SNAP_BUDGET_MAX_MS) or once *stop (when not NULL) changes. */
	int64_t deadline_ns;
	const volatile sig_atomic_t *stop;
};
/* A snapshot's default time budget (milliseconds). */
#define LT_SNAP_BUDGET_MS 5000
#define LT_SNAP_BUDGET_MAX_MS 15000

/* ---- per-thread facts --------------------------------------------------- */

struct lt_strlist {
	char **v;
	size_t n;
};

/* Where the "has not run for" figure comes from. */
enum lt_idle_source {
	LT_IDLE_UNKNOWN = 0,       /* no source available                      */
	LT_IDLE_RUNNING,           /* state R: running or runnable, idle = 0   */
	LT_IDLE_SCHED_EXEC_START,  /* CLOCK_MONOTONIC - se.exec_start from
	                              /proc/PID/task/TID/sched, corrected by
	                              the per-CPU offset between the two
	                              clocks measured at snapshot time         */
	LT_IDLE_CALLER,            /* given by the caller (recorder)           */
};
const char *lt_idle_source_name(enum lt_idle_source s);

/* What /proc/PID/task/TID/syscall said. */
enum lt_sc_state {
	LT_SC_UNREADABLE = 0, /* file missing/unreadable (thread gone, perms)  */
	LT_SC_RUNNING,        /* "running": the thread is on a CPU             */
	LT_SC_NOT_IN_SYSCALL, /* "-1 sp pc": blocked outside a syscall         */
	LT_SC_IN_SYSCALL,     /* "nr a0..a5 sp pc"                             */
};
const char *lt_sc_state_name(enum lt_sc_state s);

/* Parsed form of /proc/PID/task/TID/syscall. */
struct lt_sc_line {
	enum lt_sc_state state;
	long nr;          /* valid for IN_SYSCALL                               */
	uint64_t args[6]; /* valid for IN_SYSCALL                               */
	uint64_t sp, pc;  /* valid for IN_SYSCALL and NOT_IN_SYSCALL            */
};

/* Broad class of what a thread waits for. */
enum lt_wait_kind {
	LT_WAIT_NONE = 0,  /* running, or not in a syscall                     */
	LT_WAIT_FUTEX,     /* futex wait / lock_pi / futex_wait (futex2)       */
	LT_WAIT_POLL,      /* select, pselect6, poll, ppoll, epoll_*           */
	LT_WAIT_IO,        /* blocking fd syscall: read, recvmsg, accept, ...  */
	LT_WAIT_SLEEP,     /* nanosleep, clock_nanosleep, pause, ...           */
	LT_WAIT_CHILD,     /* wait4, waitid                                    */
	LT_WAIT_SIGNAL,    /* rt_sigtimedwait, rt_sigsuspend                   */
	LT_WAIT_OTHER,     /* any other syscall                                */
};
const char *lt_wait_kind_name(enum lt_wait_kind k);

/* Who holds a futex, and how we know. */
enum lt_owner_kind {
	LT_OWNER_UNKNOWN = 0, /* word unreadable or not examined                */
	LT_OWNER_NONE,        /* no owner recorded (condvar, custom lock, ...)   */
	LT_OWNER_MUTEX,       /* glibc pthread_mutex_t: int __owner at uaddr+8   */
	LT_OWNER_PI,          /* PI futex: word & FUTEX_TID_MASK                 */
	LT_OWNER_ROBUST,      /* robust mutex word: tid | FUTEX_WAITERS          */
	LT_OWNER_JOIN,        /* pthread_join: the word is the joined thread's tid */
	LT_OWNER_RUNTIME,     /* a runtime lock whose model named the holder
	                         (OCaml master lock, CPython GIL): lockmodel.h */
	LT_OWNER_RWLOCK,      /* glibc rwlock: __cur_writer                       */
	LT_OWNER_INFERRED,    /* not recorded by the lock: inferred (a Python
	                         threading.Lock kept by one thread's frames in a
	                         `with` block or a local); lt_futex.owner_how  */
	LT_OWNER_COND,        /* a threading.Condition's waiter: owner holds the
	                         Condition's lock (an RLock's recorded owner), so
	                         no notify() can come before it releases it     */
};
const char *lt_owner_kind_name(enum lt_owner_kind k);

/* A runtime's wait for another thread to finish something rather than to
 * let go of a lock or to notify (a lt_rtlock of one of these kinds; its
 * holder is that thread; or a join's own futex: LT_KIND_PTHREAD_JOIN): its lock kind as the snapshot names it (a stored
 * snapshot keeps it, and the report reads it back), and what the kind
 * says, the same wherever it is said: the call; what the report calls the
 * thread that ends it; what ends it ("the task ends"); what else may end
 * it, NULL if nothing else can; exit: the holder's exit ends it (a join:
 * the holder is named as the thread to exit); inferred: that only the
 * holder can end it is an inference (a task's cancel() or set_result()
 * may come from any thread), so a cycle through it is at most a probable
 * deadlock. */
#define LT_KIND_JAVA_FUTURE "java.util.concurrent FutureTask (get)"
/* FutureTask.get() of a task that has not started, queued in an executor
 * whose only thread (the holder) runs another task: the wait ends when
 * that thread has ended it and the tasks before this one */
#define LT_KIND_JAVA_FUTURE_QUEUED "java.util.concurrent FutureTask (get, queued)"
#define LT_KIND_JAVA_JOIN "Java monitor (Thread.join)"
#define LT_KIND_PY_FUTURE "concurrent.futures Future (result)"
/* Waits for other threads' arrival that no thread holds: a Java thread
 * parked in CyclicBarrier.await() (on the barrier's Condition, its lock
 * free) or in a Phaser's advance (on a QNode of the root Phaser).  Not a
 * runtime lock: the futex's lock kind, lock_base the object, as a
 * condition variable's (waitfor_verdicts.c, notify_pass) */
#define LT_KIND_JAVA_BARRIER "java.util.concurrent CyclicBarrier"
#define LT_KIND_JAVA_PHASER "java.util.concurrent Phaser"
/* A thread in CompletableFuture.get() or join() (parked on a Signaller of
 * its own, which names no future) or in ForkJoinTask.get() or join() from
 * outside its pool (parked on the task): any thread may complete either */
#define LT_KIND_JAVA_CFUTURE "java.util.concurrent CompletableFuture"
#define LT_KIND_JAVA_FJTASK "java.util.concurrent ForkJoinTask"
/* The other parked Java waits no thread is recorded to hold, in Java's
 * terms (no rule above, no lock claimed): a Condition's await() (a
 * LinkedBlockingQueue's take(), an ArrayBlockingQueue's put()), an
 * Object.wait() and a LockSupport.park() with another blocker or none (a
 * SynchronousQueue, an Exchanger): each waits for a signal(), a notify()
 * or an unpark() from another thread */
#define LT_KIND_JAVA_SIGNAL "java.util.concurrent Condition (signal)"
#define LT_KIND_JAVA_NOTIFY "Java monitor (notify)"
#define LT_KIND_JAVA_UNPARK "java.util.concurrent LockSupport (unpark)"
/* A CountDownLatch's await() and a Semaphore's acquire(): no thread holds
 * either, any may count it down or release a permit */
#define LT_KIND_JAVA_LATCH "java.util.concurrent CountDownLatch"
#define LT_KIND_JAVA_SEMAPHORE "java.util.concurrent Semaphore"
/* Is K a kind of those Java waits (all of them: a thread parked on its own
 * Parker or ParkEvent, a glibc condition variable underneath)? */
static inline bool lt_kind_java_parked(const char *k)
{
	static const char *const kinds[] = { LT_KIND_JAVA_BARRIER, LT_KIND_JAVA_PHASER, LT_KIND_JAVA_CFUTURE,
					     LT_KIND_JAVA_FJTASK,  LT_KIND_JAVA_SIGNAL, LT_KIND_JAVA_NOTIFY,
					     LT_KIND_JAVA_UNPARK,  LT_KIND_JAVA_LATCH,  LT_KIND_JAVA_SEMAPHORE };
	for (size_t i = 0; k && i < sizeof(kinds) / sizeof(kinds[0]); i++)
		if (!strcmp(k, kinds[i]))
			return true;
	return false;
}
/* Where a rule asks whether a wait is a plain condition variable's (no
 * lock built on it, maybe an idle worker's: the flight recorder's stall
 * rule, the report's idle pools, rt_idle.c), a condition variable's, or a
 * Java wait for a signal(), notify() or unpark() (what they were before
 * the model named them); not a barrier's, a future's, a latch's or a
 * Semaphore's, which wait for particular threads, not for work. */
static inline bool lt_kind_condvar_like(const char *k)
{
	return k && (!strcmp(k, "condition variable") || !strcmp(k, LT_KIND_JAVA_SIGNAL) ||
		     !strcmp(k, LT_KIND_JAVA_NOTIFY) || !strcmp(k, LT_KIND_JAVA_UNPARK));
}
/* A wait for another thread's signal of any of those kinds: a condition
 * variable's, or any Java wait on its own Parker or ParkEvent. */
static inline bool lt_kind_signal_wait(const char *k)
{
	return lt_kind_condvar_like(k) || lt_kind_java_parked(k);
}
#define LT_KIND_OCAML_THREAD_JOIN "OCaml Thread.join"
#define LT_KIND_OCAML_DOMAIN_JOIN "OCaml Domain.join"
/* Joins no runtime lock stands for: the futex's lock kind when the glibc
 * model (pthread_join, by its frames or the joined thread's stack) or the
 * CPython model (Thread.join, by its frames) names the wait, owner_kind
 * LT_OWNER_JOIN and owner the joined thread (waitfor_verdicts.c follows
 * them into the joined thread's own verdict) */
#define LT_KIND_PTHREAD_JOIN "thread exit (pthread_join)"
#define LT_KIND_PY_JOIN "thread exit (Thread.join)"
/* multiprocessing's Condition.wait() (under Event.wait(), Barrier.wait()):
 * its semaphore in shared memory, which any thread of a process mapping it
 * may post by notify() or set(); no thread holds it (rt_cpython.c names
 * it, waitfor_verdicts.c follows it into those processes) */
#define LT_KIND_PY_MP_COND "multiprocessing Condition"
/* concurrent.futures.wait() (ALL_COMPLETED, FIRST_EXCEPTION) for two or
 * more futures: ends when every one ends, so one runner that does not
 * keeps it; its lock's name counts the futures ("2 futures (...)") */
#define LT_KIND_PY_WAIT_ALL "concurrent.futures wait (all)"
/* wait() (FIRST_COMPLETED) or as_completed(), or any wait() for one future
 * left: ends when any one ends; held by the one future's runner, or
 * holderless when every future's runner is blocked */
#define LT_KIND_PY_WAIT_ANY "concurrent.futures wait (any)"
/* what: the words before the lock's name ("the task " or ""); run_by:
 * before the holder ("run by", "one of them run by"); none: a holderless
 * one's lock, as a thread waiting on it is said ("which no thread
 * runs"); every: the holder is one of several whose ends are all needed
 * (wait()'s ALL_COMPLETED): it does not end the wait alone, the wait
 * cannot end before it does */
struct lt_done_kind {
	const char *kind, *wait_call, *other, *done_what, *els;
	bool exit, inferred;
	const char *what, *run_by, *none;
	bool every;
};
static inline const struct lt_done_kind *lt_done_kind_of(const char *kind)
{
	static const struct lt_done_kind k[] = {
		{ LT_KIND_JAVA_FUTURE, "FutureTask.get()", "task runner", "the task ends",
		  "a cancel() from any thread", false, true, "the task ", "run by", "which no thread runs", false },
		{ LT_KIND_JAVA_FUTURE_QUEUED, "FutureTask.get()", "executor thread",
		  "that thread has ended the tasks before it and this one", "a cancel() from any thread", false, true,
		  "the task ", "queued for its executor's only thread,", "which no thread runs", false },
		{ LT_KIND_PY_FUTURE, "Future.result()", "task runner", "the task ends",
		  "a set_result() or set_exception() on the Future from another thread", false, true, "the task ",
		  "run by", "which no thread runs", false },
		{ LT_KIND_PY_WAIT_ALL, "concurrent.futures.wait()", "task runner", "every one of them ends",
		  "a set_result(), set_exception() or cancel() on its futures from another thread", false, true, "",
		  "one of them run by", "which no thread runs", true },
		{ LT_KIND_PY_WAIT_ANY, "concurrent.futures.wait() or as_completed()", "task runner",
		  "any one of them ends",
		  "a set_result(), set_exception() or cancel() on its futures from another thread", false, true, "",
		  "run by", "each of them run by a thread that is blocked", false },
		{ LT_KIND_JAVA_JOIN, "Thread.join()", "joined thread", "it exits", "an interrupt", true, false, "",
		  "", "", false },
		{ LT_KIND_OCAML_THREAD_JOIN, "Thread.join", "joined thread", "it exits", NULL, true, false, "", "", "",
		  false },
		/* pthread_join is a cancellation point; a Python signal
		 * handler runs in the main thread only, and a join there
		 * returns with its exception (3.x's lock acquire is
		 * interruptible) */
		{ LT_KIND_PTHREAD_JOIN, "pthread_join()", "joined thread", "it exits",
		  "a pthread_cancel() of the joining thread", true, false, "", "", "", false },
		{ LT_KIND_PY_JOIN, "Thread.join()", "joined thread", "it exits",
		  "a signal whose Python handler raises in the main thread, as Ctrl-C's KeyboardInterrupt", true, false, "", "", "",
		  false },
		/* not an exit: the join ends when the domain's function
		 * returns; its thread may stay to join the domain's other
		 * threads (caml_thread_domain_stop_hook) */
		{ LT_KIND_OCAML_DOMAIN_JOIN, "Domain.join", "joined domain's thread", "the domain's function returns",
		  NULL, false, false, "", "run by", "", false },
	};
	for (size_t i = 0; kind && i < sizeof(k) / sizeof(k[0]); i++)
		if (!strcmp(kind, k[i].kind))
			return &k[i];
	return NULL;
}

#define LT_FUTEX_MAPPERS 8
struct lt_futex {
	uint64_t uaddr;
	uint32_t op;          /* raw op argument (futex) or flags (futex2)       */
	int cmd;              /* op & FUTEX_CMD_MASK; -1 for futex2 futex_wait    */
	bool private_, clock_realtime;
	bool is_wait;         /* a waiting command (WAIT, WAIT_BITSET, LOCK_PI, ...) */
	bool is_pi;
	uint32_t expected;    /* val argument (WAIT*)                            */
	uint32_t bitset;      /* val3 (BITSET commands)                          */
	uint64_t timeout_ptr; /* 0 = none (wait forever)                         */
	bool timeout_ok;      /* *timeout_ptr read from target memory            */
	int64_t timeout_sec, timeout_nsec;
	bool timeout_abs;     /* absolute deadline (WAIT_BITSET, LOCK_PI)        */
	bool word_ok;         /* word read from target memory                    */
	uint32_t word;        /* current value of *uaddr                         */
	bool mutex_ok;        /* uaddr..uaddr+20 read                            */
	int32_t mutex_count, mutex_owner, mutex_kind;
	enum lt_owner_kind owner_kind;
	pid_t owner;          /* tid, when owner_kind is MUTEX/PI/ROBUST/JOIN    */
	/* A lock word's recorded owner that is a live thread of ANOTHER
	 * process (a process-shared lock): its process and name.  0 if not. */
	pid_t owner_tgid;
	char owner_comm[16];
	/* A PRIVATE lock whose recorded owner is no thread of this process
	 * (forkorigin.c): copied locked by fork(), or its owner exited.  Set
	 * by the glibc decoder and the lock models (RLock).  gone_tid: the
	 * owner's tid, 0 if unknown; gone_ptr: its pthread_t, 0 if unknown;
	 * gone_parent: the ancestor process the owner is a live thread of (the
	 * lock was held there when this process was forked), 0 if none. */
	/* LT_OWNER_INFERRED: the evidence ("inside `with first:` in worker
	 * (x.py:12)"), malloc'd; NULL otherwise */
	char *owner_how;
	bool owner_gone;
	/* A process-shared lock's recorded owner tid (a pthread mutex's
	 * __owner) names no thread at all: /proc/TID absent when read, the
	 * target in our pid namespace (so the tid is one /proc names). */
	bool owner_exited;
	/* glibc's endless wait: after the kernel refused a PI or robust mutex
	 * (EDEADLK: a cycle of PI mutexes; ESRCH: its owner died) glibc sleeps
	 * on a zero word of its own stack that nothing wakes (lock_glibc.c) */
	bool parked;
	pid_t gone_tid, gone_parent;
	uint64_t gone_ptr;
	char gone_comm[16];
	/* The process whose memory uaddr is in, in a multi-process view only
	 * (snapshot_multi.c): private locks of two processes are never one
	 * lock.  0 in a one-process snapshot. */
	pid_t space;
	bool join_confirmed;  /* JOIN: uaddr is in the joined thread's stack map */
	char *lock_sym;       /* identity of uaddr: "rtlock", "[heap]+0x10", ... */
	/* Set by the lock models (lockmodel.h, docs/locks.md): */
	const char *lock_kind; /* what uaddr belongs to: "pthread mutex",
	                          "condition variable", "semaphore", "rwlock",
	                          "thread exit (pthread_join)", "OCaml runtime
	                          lock", "GIL"; NULL when not recognised        */
	uint64_t lock_base;   /* address of that object (waits on two words of
	                         one object are one lock); 0 = uaddr             */
	char *lock_name;      /* the object's symbol ("caml_master_lock"), NULL */
	char *lock_state;     /* decoded state ("value 0, 2 waiters"), NULL      */
	/* a glibc condition variable's decoded state: is a signal pending for
	 * (or the closing of) the waiter's group, __g_signals[g] != 0?
	 * 0 not known (not a condvar, fields not recognised), 1 none, 2 yes */
	uint8_t cond_signal;
	unsigned rtlock;      /* 1 + index into lt_snapshot.rtlocks; 0: none    */
	/* A shared (not FUTEX_PRIVATE) wait on a MAP_SHARED mapping: the
	 * object mapped there, as the kernel keys the futex (device and inode
	 * from /proc/PID/maps, and the offset of uaddr in the object), so
	 * one lock is one key in every process whatever address maps it. */
	bool shared_obj;
	uint32_t obj_major, obj_minor;
	uint64_t obj_ino, obj_off;
	/* whether the other processes mapping that object were counted when
	 * the snapshot was taken, and how many there were (any of them may
	 * post a semaphore that records no holder); none: the process's own
	 * exited children not reaped yet, the first (a consumer that died) */
	bool obj_mappers_known;
	int obj_mappers;
	pid_t obj_mapper[LT_FUTEX_MAPPERS]; /* the first of them (snapshot_follow.c
	                                      follows them; the candidate holders
	                                      are threads of them, verdicts.c) */
	bool obj_mapper_pids;  /* obj_mapper was read (a snapshot read back
	                          from JSON written before "mapper_pids": not) */
	pid_t obj_zombie_child;
	/* A POSIX semaphore of CPython's multiprocessing (a Lock, RLock,
	 * BoundedSemaphore(1)) whose holder was read from a _multiprocessing
	 * .SemLock's own count and last_tid (semlock.c): owner (owner_kind
	 * RUNTIME) or owner_gone is then that record's, sem_pid the process
	 * whose object says so, owner_how the evidence.  Not stored in JSON
	 * (owner_how is). */
	bool sem_owner;
	pid_t sem_pid;
};

/* An fd and what it refers to. */
enum lt_fd_kind {
	LT_FD_UNKNOWN = 0, /* readlink failed (closed, no permission)          */
	LT_FD_FILE,
	LT_FD_SOCKET,
	LT_FD_PIPE,
	LT_FD_ANON,        /* anon_inode:[eventfd], [eventpoll], ...            */
	LT_FD_OTHER,
	LT_FD_FIFO,        /* a named pipe: a path whose inode is a FIFO        */
};
const char *lt_fd_kind_name(enum lt_fd_kind k);

struct lt_fd {
	int fd;
	enum lt_fd_kind kind;
	char *target;     /* readlink of /proc/PID/fd/N, e.g. "socket:[1234]"   */
	char *desc;       /* "unix stream connected", "tcp 127.0.0.1:80 -> ..." */
	unsigned events;  /* poll events (POLLIN...); select: 1 read 2 write 4 except */
};

/* select/poll/epoll and single-fd I/O waits. */
struct lt_fdwait {
	int nfds;              /* nfds argument (select/poll), maxevents (epoll) */
	int epfd;              /* epoll: the epoll fd; else -1                    */
	struct lt_fd *fds;     /* watched fds (poll/select/epoll interest list)   */
	size_t n_fds;
	bool fds_ok;           /* fds could be read (memory or fdinfo)           */
	bool has_timeout;      /* false = wait forever                            */
	int64_t timeout_ms;    /* relative timeout as given (or remaining)        */
	struct lt_fd io;       /* the fd of read/recvmsg/...; io.fd = -1 if none  */
	/* A blocking read (write) of a socket: its SO_RCVTIMEO (SO_SNDTIMEO),
	 * which no /proc file shows, read by a BPF task-file iterator
	 * (proc/taskregs.c).  LT_SOCK_TIMEO_*; NOT_READ for other waits. */
	uint8_t sock_timeo;
	int64_t sock_timeo_ms; /* SET: the timeout; -1 its length unknown (HZ) */
};
enum {
	LT_SOCK_TIMEO_NOT_READ = 0,
	LT_SOCK_TIMEO_NONE,    /* none: the wait lasts until data comes       */
	LT_SOCK_TIMEO_SET,     /* the wait ends by itself within the timeout  */
	LT_SOCK_TIMEO_UNKNOWN, /* could not be read (no BPF, not root)        */
};

/* One user stack frame. */
struct lt_frame {
	uint64_t pc;          /* pc of the frame (return address for callers)    */
	bool activation;      /* true for the innermost frame                    */
	char *func;           /* symbol, NULL if unknown                         */
	uint64_t func_off;    /* pc_lookup - symbol start                        */
	char *module;         /* module basename ("libc.so.6"), NULL if none     */
	char *build_id;       /* hex, NULL if unknown                            */
	char *file;           /* source file, NULL without debug info            */
	int line;
	bool inlined;         /* a call inlined into the next (outer) frame, at
	                         the same pc (its DWARF's inlined subroutine;
	                         func its name, file:line where pc is in it;
	                         the outer frame's line is the call's)         */
};

/* Is F a named frame of module EXE_BASE (the program's own executable,
 * by basename)?  What the snapshot and the report compare threads' code
 * by. */
static inline bool lt_frame_own(const struct lt_frame *f, const char *exe_base)
{
	return exe_base && *exe_base && f->func && f->module && !strcmp(f->module, exe_base);
}

/* One frame of a language runtime's own stack (a Python function, a Java
 * method), read from the runtime's memory by a runtime thread model
 * (rtthread.h) or a lock model's scan (lockmodel.h; docs/runtimes.md). */
struct lt_rtframe {
	char *func;           /* "worker", "Worker.run", "JavaLocks.crosswise"
	                         (qualified where the runtime keeps a qualified
	                         name), NULL unknown                            */
	char *file;           /* source file as the runtime names it, NULL       */
	int line;             /* 0 unknown                                       */
	int native;           /* index in lt_thread.frames of the native frame
	                         that runs it (the interpreter loop; for Java the
	                         interpreter or JIT frame itself), -1 when it
	                         could not be placed among the native frames     */
	/* Where the runtime runs it as machine code, for runtimes whose frames
	 * are machine frames the unwinder also walks (Java): */
	uint64_t pc;          /* that frame's pc (the native frame's), 0 none    */
	const char *kind;     /* "interpreted", "compiled", "inlined" (into the
	                         next frame's compiled code), "native" (a native
	                         method); static, NULL for Python               */
	int bci;              /* bytecode index (Java), -1 none                  */
};

/* Where the initial registers of the user unwind came from. */
enum lt_regs_source {
	LT_REGS_NONE = 0,   /* no unwind attempted                             */
	LT_REGS_PROC,       /* sp, pc from /proc/PID/task/TID/syscall only      */
	LT_REGS_CALLER,     /* full set given by the caller (BPF iter/task)     */
};
const char *lt_regs_source_name(enum lt_regs_source s);

enum lt_kstack_status {
	LT_KSTACK_NOT_READ = 0,
	LT_KSTACK_OK,
	LT_KSTACK_UNAVAILABLE, /* not root / file missing */
};

struct lt_thread {
	pid_t tid;
	char comm[64];            /* from stat, escaped by the printers        */
	char state;               /* stat state letter: R S D T t Z X I ...     */
	int cpu;                  /* CPU it last ran on (stat field 39), -1    */
	/* how long it has not run */
	double idle_s;            /* valid unless idle_src == LT_IDLE_UNKNOWN   */
	enum lt_idle_source idle_src;
	/* syscall */
	struct lt_sc_line sc;
	const char *sc_name;      /* static, NULL if unknown number             */
	/* In restart_syscall resuming a poll after a stop (do_restart_poll in
	 * its kernel stack): decoded as the poll (sc.nr 7), whose arguments
	 * its registers still hold as first made (the timeout the original,
	 * not what is left) */
	bool sc_resumed;
	enum lt_wait_kind wait;
	struct lt_futex futex;    /* wait == LT_WAIT_FUTEX                      */
	struct lt_fdwait fdw;     /* wait == LT_WAIT_POLL or LT_WAIT_IO         */
	char *detail;             /* one-line human decoding of the syscall     */
	/* stacks */
	enum lt_kstack_status kstack_status;
	struct lt_strlist kstack; /* "futex_do_wait+0x46/0x90", innermost first */
	enum lt_regs_source regs_src;
	struct lt_frame *frames;  /* innermost first                            */
	size_t n_frames;
	char *ustack_end;         /* why the unwind stopped, NULL if clean end  */
	struct lt_strlist notes;  /* everything that could not be read          */
	/* Re-read when a verdict involved it: its syscall line or futex word /
	 * owner had changed, so it was busy, not stuck.  Verdict rules skip
	 * moved threads (the snapshot is not atomic; true hangs are stable). */
	bool moved;
	/* The lock-acquire function on its user stack ("pthread_mutex_lock",
	 * "sem_wait", "caml_thread_leave_blocking_section", "take_gil"), static
	 * string, NULL if none: such a thread waits for a lock, whatever the
	 * futex word says. */
	const char *acquire;
	/* The thread as its language runtime knows it (rtthread.h,
	 * docs/runtimes.md); NULL/0 for a thread no runtime model knows. */
	const char *rt_lang;      /* "python", "java" (static)                  */
	char *rt_name;            /* the runtime's name for it, which comm cuts
	                             to 15 bytes ("MainThread", "worker-3":
	                             threading.Thread.name; Java:
	                             Thread.getName(), set by a lock model's
	                             scan, lockmodel.h), NULL                   */
	struct lt_rtframe *rt_frames; /* the runtime's stack, innermost first */
	size_t n_rt_frames;
	char *rt_end;             /* why that stack is incomplete, NULL         */
	/* the JVM says it is blocked entering a monitor, but it was running
	 * when read (HotSpot's waiter responsible for a monitor re-tries it
	 * from timed parks): its wait could not be claimed (snapshot.c takes
	 * the snapshot again once) */
	bool rt_wait_ran;
	/* a runtime's own service thread (OCaml's tick thread and backup
	 * threads, a JVM's internal threads, Go's sysmon: rt_idle.c), which
	 * runs none of the program's code: no party to a wait of the program's
	 * own (waitfor.c does not count it among who could end one) */
	bool rt_service;
	/* a JDK reference-queue thread (the Finalizer, the Common-Cleaner:
	 * its frames in Finalizer$FinalizerThread.run or CleanerImpl.run)
	 * asleep waiting for references (rt_idle.c): it runs the program's
	 * code (finalize(), a cleaner's action) only for references a
	 * collection found, which none does while no thread of the program
	 * runs; its timer only re-checks (waitfor.c does not count it as on
	 * a timer) */
	bool rt_refq;
	/* the signals its process catches (SigCgt of /proc/PID/status, bit
	 * sig-1: a handler installed) and not all its threads block, as
	 * struct lt_snapshot's; not read (an older stored snapshot) when
	 * !sig_caught_ok */
	uint64_t sig_caught;
	bool sig_caught_ok;
	/* A child it polls for between sleeps, read from the runtime's frame
	 * (Python's Popen._wait: rt_cpython.c; waitfor.c makes it an edge):
	 * the child's pid, the timeout given (s), and its deadline in
	 * CLOCK_MONOTONIC seconds; 0 where not read. */
	bool poll_wait;             /* such a frame was found ...               */
	unsigned char poll_frame;   /* ... at this index of rt_frames           */
	/* ... or a poll of the child's pipes with the timeout it was given
	 * (Popen.communicate(timeout=...): Popen._communicate's selector),
	 * which raises TimeoutExpired when it passes: the pipes' edges keep
	 * that timeout as the application's own */
	bool poll_pipes;
	pid_t poll_child;
	double poll_timeout_s, poll_deadline_s;
	/* A multiprocessing Process's exit waited for on its sentinel, a pipe
	 * whose write end its starter keeps (the forkserver's: Python's
	 * popen_forkserver.Popen.poll, or popen_fork.Popen.wait with a
	 * timeout): the Process's pid (self.pid) and the sentinel's fd
	 * (self.sentinel), read from that frame's locals (rt_cpython.c;
	 * waitfor.c makes the sentinel's edge the Process's exit); 0 none. */
	pid_t mp_child;
	int mp_sentinel;
	unsigned char mp_frame;
	/* Who can end its wait (waitfor.h, docs/waits.md): its process and
	 * the wait-for edges; NULL when not examined. */
	struct lt_waitfor *wf;
	/* A wait of an application's own lock manager (or its own idle wait),
	 * recognised from the user stack by the table of appwait.h: */
	int app_class;            /* enum lt_appwait_class, 0 none            */
	const char *app;          /* "PostgreSQL" (static)                      */
	const char *app_what;     /* "a row/transaction lock" (static)          */
	const char *app_kind;     /* "row/transaction lock" (static)            */
	char *app_via;            /* "ProcSleep < ?? < LockAcquireExtended < XactLockTableWait" */
	char *app_title;          /* its process title (/proc/PID/cmdline)      */
	pid_t app_pid;            /* its process                                */
	pid_t app_server;         /* the server it belongs to: its parent, 0    */
};

/* Is R a frame of the program's own code, not of its runtime's library
 * (Python's lib/pythonX.Y, site-packages included, and frozen modules; the
 * JDK's java., javax., jdk., sun. and com.sun. classes)? */
static inline bool lt_rtframe_own(const struct lt_rtframe *r)
{
	static const char *const jdk[] = { "java.", "javax.", "jdk.", "sun.", "com.sun." };
	if (!r->func)
		return false;
	if (r->file && (r->file[0] == '<' || strstr(r->file, "/lib/python")))
		return false;
	for (size_t i = 0; i < sizeof(jdk) / sizeof(*jdk); i++)
		if (!strncmp(r->func, jdk[i], strlen(jdk[i])))
			return false;
	return true;
}

/* Where thread TH's own code is compared with other threads' (the
 * snapshot's inferred holder of a quiet lock, the report's): the number of
 * places, and the function at place I, NULL when it is not the program's
 * own.  A thread with a runtime's frames is compared by those that are the
 * program's own (lt_rtframe_own): an interpreter's native functions, in
 * the program's module when it is linked in (Debian's python3), run in
 * every thread, a join as a lock acquire; others by their named frames in
 * the program's own module (exe_base). */
static inline size_t lt_own_places(const struct lt_thread *th)
{
	return th->n_rt_frames ? th->n_rt_frames : th->n_frames;
}

static inline const char *lt_own_func(const struct lt_thread *th, size_t i, const char *exe_base)
{
	if (th->n_rt_frames)
		return lt_rtframe_own(&th->rt_frames[i]) ? th->rt_frames[i].func : NULL;
	return lt_frame_own(&th->frames[i], exe_base) ? th->frames[i].func : NULL;
}

/* ---- verdicts ----------------------------------------------------------- */

enum lt_verdict_kind {
	LT_VERDICT_DEADLOCK = 1,
	LT_VERDICT_LOST_WAKEUP,
	LT_VERDICT_CONVOY,
	LT_VERDICT_IDLE,
	LT_VERDICT_OK,           /* nothing suspicious */
	LT_VERDICT_UNKNOWN,      /* no thread's state could be read (permissions) */
	LT_VERDICT_LOCK_WAIT,    /* threads wait for a lock: fewer than a convoy,
	                            or a holder that is not recorded           */
	LT_VERDICT_WAIT_CHAIN,   /* a thread waits (pipe, socket, child) for
	                            processes that are blocked themselves, or on
	                            a pipe only its own process can write
	                            (waitfor.h)                               */
	LT_VERDICT_STOPPED,      /* threads stopped by a signal or a tracer
	                            (state T or t): whatever they wait for,
	                            they run again only when continued       */
};
const char *lt_verdict_kind_name(enum lt_verdict_kind k);
/* A kind that says its threads are stuck: a deadlock, a lost wake-up, a
 * convoy, a lock wait, a wait chain, a stop (not idle, ok or unknown). */
bool lt_verdict_kind_stuck(enum lt_verdict_kind k);
/* The same of a kind's name as lt_verdict_kind_name gives it (a stored
 * snapshot's "lock_wait"); false for NULL or any other name. */
bool lt_verdict_kind_name_stuck(const char *name);

struct lt_verdict {
	enum lt_verdict_kind kind;
	char *summary;            /* one line                                   */
	struct lt_strlist evidence; /* one line per fact                        */
	pid_t *tids;              /* threads involved (cycle order for deadlock) */
	size_t n_tids;
	uint64_t *locks;          /* lock addresses involved (parallel to tids
	                             for deadlock: the lock tids[i] waits on)   */
	size_t n_locks;
	pid_t owner;              /* convoy: owner tid, 0 if unknown            */
	const char *owner_source; /* how the owner is known (static): "pthread
	                             mutex __owner", "runtime: OCaml curr_thread" */
	/* ranking (lt_snapshot_diagnose sorts by these) */
	size_t explains;          /* threads this verdict accounts for          */
	double longest_s;         /* longest wait among them, -1 unknown        */
	pid_t *behind;            /* deadlock: threads whose chain of waits
	                             leads into its cycle (said in its evidence) */
	size_t n_behind;
	pid_t cause_tid;          /* a wait chain's: the thread in another
	                             verdict it waits behind (ranked after that
	                             verdict), 0 none                          */
};

/* ---- snapshot ----------------------------------------------------------- */

/* A multiprocessing SemLock object of one process (Modules/_multiprocessing/
 * semaphore.c: handle, last_tid, count, maxvalue, kind), read from memory. */
struct lt_semlock {
	uint64_t obj;        /* the SemLock                                    */
	uint64_t handle;     /* its sem_t * in this process                    */
	uint64_t last_tid;   /* PyThread_get_thread_ident() (pthread_self) of
	                        its last acquirer                              */
	int count;           /* acquisitions through this object not released */
	int maxvalue, kind;  /* kind 0: RLock (recursive mutex), 1: semaphore  */
	pid_t tid;           /* last_tid's thread in this process, 0: none     */
	char *where;         /* "'self'._rlock in SimpleQueue.get (x.py:12)"   */
	/* the semaphore's object (the MAP_SHARED mapping of handle), as
	 * lt_futex.shared_obj keys it; shared false when not found */
	bool shared;
	uint32_t obj_major, obj_minor;
	uint64_t obj_ino, obj_off;
};

struct lt_snapshot {
	pid_t pid;
	char comm[64];
	/* why a recorder took it, stored in its trace: "start", "end",
	 * "stall", "sigusr1" (static string); NULL for `locktrace snapshot` */
	const char *occasion;
	char *exe;                   /* readlink /proc/PID/exe, NULL if unknown  */
	int64_t taken_realtime_ns;   /* CLOCK_REALTIME at start                  */
	int64_t taken_monotonic_ns;  /* CLOCK_MONOTONIC at start                 */
	int64_t duration_ns;         /* time taken by lt_snapshot_take           */
	bool kstack_available;       /* /proc/.../stack was readable             */
	bool ustack_skipped;         /* user stacks not unwound (--no-ustack, a
					32-bit process, no symbolizer): lock
					acquire paths and applications' own lock
					waits, known by their frames, not seen  */
	struct lt_thread *threads;   /* sorted by tid                            */
	size_t n_threads;
	struct lt_verdict *verdicts;
	size_t n_verdicts;
	/* runtime locks found by the lock models (lockmodel.h) */
	struct lt_rtlock *rtlocks;
	size_t n_rtlocks;
	struct lt_verdict_opts vopts; /* as applied                              */
	/* se.exec_start is in the CPU's scheduler task clock, which lags
	 * CLOCK_MONOTONIC by the IRQ and steal time accumulated on that CPU
	 * (seconds in a VM): offset per CPU, measured on our own thread at
	 * snapshot time; INT64_MIN where it could not be measured. */
	int64_t *sched_offset_ns;
	size_t n_cpus;
	struct lt_strlist notes;     /* process-level notes                      */
	/* the signals the process catches (SigCgt, bit sig-1) and not every
	 * one of its threads blocks (SigBlk): those a handler of may run now,
	 * read once; sig_caught_ok false when not read.  Copied into each
	 * thread (a combined view keeps each process's own). */
	uint64_t sig_caught;
	bool sig_caught_ok;
	/* a Go program's goroutines (golang.h, rt_go.c), NULL for others */
	struct lt_go *go;
	/* a snapshot read back from JSON: the strings its static-string
	 * fields (occasion, sc_name, acquire, lock_kind, ...) point into */
	struct lt_strlist strings;
	/* CPython _multiprocessing.SemLock objects this process's Python
	 * frames keep (rt_cpython.c) with acquisitions not released through
	 * them (count != 0), and the semaphore's object (snapshot.c): what
	 * semlock.c names a semaphore's holder from.  Not stored in JSON. */
	struct lt_semlock *semlocks;
	size_t n_semlocks;
	/* a combined snapshot of several processes read back from JSON (its
	 * "processes" member): each thread's process, parallel to threads;
	 * NULL for one of one process (pid) */
	pid_t *thread_pid;
};

/* Error codes returned by lt_snapshot_take (negated errno values otherwise). */
#define LT_SNAP_ENOPROC  (-3)   /* no such process */
#define LT_SNAP_EKTHREAD (-4)   /* the pid is a kernel thread */

/* Take a snapshot of PID.  O may be NULL.  Returns 0 and sets *out (free with
 * lt_snapshot_free) on success, even if parts could not be read (see notes);
 * returns LT_SNAP_ENOPROC, LT_SNAP_EKTHREAD or -errno if no snapshot could be
 * taken at all (then *out is NULL).
 *
 * Reentrant (no global state), so it may run on a helper thread.  It briefly
 * pins the calling thread to each CPU in turn to measure the scheduler clock
 * offset (see lt_snapshot.sched_offset_ns) and restores its affinity. */
int lt_snapshot_take(pid_t pid, const struct lt_snapshot_opts *o,
		     struct lt_snapshot **out);
void lt_snapshot_free(struct lt_snapshot *s);
const char *lt_snapshot_strerror(int err);

/* Find a thread by tid (binary search; threads are sorted). */
struct lt_thread *lt_snapshot_find(const struct lt_snapshot *s, pid_t tid);

/* (Re)compute s->verdicts from the thread table with the given options
 * (NULL = defaults).  Pure: reads only the snapshot.  Returns 0 or -ENOMEM. */
int lt_snapshot_diagnose(struct lt_snapshot *s, const struct lt_verdict_opts *o);

/* Output.  Text is for people; JSON follows docs/snapshot.md (flushes f;
 * 0 or the first write error as a negative errno). */
void lt_snapshot_print_text(FILE *f, const struct lt_snapshot *s);
int lt_snapshot_print_json(FILE *f, const struct lt_snapshot *s);
/* The JSON document in a malloc'd NUL-terminated buffer (for embedding in
 * the trace file).  Returns 0 or -ENOMEM. */
int lt_snapshot_to_json_buf(const struct lt_snapshot *s, char **buf, size_t *len);

/* ---- several processes -------------------------------------------------- */

/* Snapshots of several processes diagnosed together (snapshot -p A,B): a
 * mutex owner tid in another given process is that thread, a lock in a
 * shared mapping is one lock (lt_futex.shared_obj), wait-for cycles span
 * processes.  view holds every thread of every process, sorted by tid
 * (tids are system-wide), as shallow copies of the processes' threads with
 * cross-process owners resolved; its runtime locks are the processes'
 * concatenated.  Only view.verdicts, notes and the arrays are its own. */
struct lt_multi_snapshot {
	struct lt_snapshot **procs;  /* in the order given; owned */
	size_t n_procs;
	struct lt_snapshot view;     /* verdicts about all of them */
	pid_t *thread_pid;           /* parallel to view.threads */
};

/* Build the view of PROCS (N >= 1 snapshots of distinct processes) and
 * diagnose it with O (NULL = defaults).  Takes ownership of the snapshots
 * (and of the array, which must be malloc'd) on success.  Pure: reads no
 * /proc.  Returns 0 or -ENOMEM. */
int lt_multi_build(struct lt_snapshot **procs, size_t n, const struct lt_verdict_opts *o,
		   struct lt_multi_snapshot **out);
/* Re-read the system call of every thread in a cross-process verdict (the
 * processes were read one after the other) and diagnose again without
 * those that moved.  Returns 0 or -ENOMEM. */
int lt_multi_confirm(struct lt_multi_snapshot *m);
void lt_multi_free(struct lt_multi_snapshot *m);
/* The process of thread TID in the view, 0 if none. */
pid_t lt_multi_pid_of(const struct lt_multi_snapshot *m, pid_t tid);
void lt_multi_print_text(FILE *f, const struct lt_multi_snapshot *m);
int lt_multi_print_json(FILE *f, const struct lt_multi_snapshot *m);

/* A snapshot stored in a trace (the JSON above) read back, so that it
 * prints as `locktrace snapshot` printed it live: the one reader of that
 * schema (the report's facts, snapfacts.h, are taken from its result).
 * Unknown fields are ignored, absent ones read as unknown.  0 and *out
 * (free with lt_snapshot_free), or with what is wrong in err -1 (not
 * JSON, out of memory) or -2 (JSON, but not a locktrace.snapshot/1
 * document). */
int lt_snapshot_from_json(const char *json, size_t len, struct lt_snapshot **out, char *err,
			  size_t errlen);
/* Why the i-th of the n snapshots stored in a trace was taken: OCCASION as
 * stored ("start", "end", "stall", "sigusr1"), or when it is NULL (traces
 * written before it was stored) what the order says: "dump" for a flight
 * dump's, else "start" for the first and "end" for the last. */
const char *lt_snapshot_occasion(const char *occasion, size_t i, size_t n, int flight);

/* ---- pure helpers (exposed for tests and the timeline) ------------------ */

/* Parse one line of /proc/PID/task/TID/syscall. Returns 0 or -EINVAL. */
int lt_parse_syscall_line(const char *line, struct lt_sc_line *out);
/* Parse /proc/PID/task/TID/stat: comm and state. Returns 0 or -EINVAL. */
int lt_parse_stat(const char *buf, char *comm, size_t comm_len, char *state);
/* Find "se.exec_start : <ms>" in /proc/.../sched, returned in ns. */
int lt_parse_sched_exec_start(const char *buf, int64_t *ns);
/* x86-64 syscall name, NULL if unknown. */
const char *lt_syscall_name(long nr);
/* Decode a futex op into "FUTEX_WAIT_BITSET|FUTEX_PRIVATE_FLAG|FUTEX_CLOCK_REALTIME". */
size_t lt_futex_op_str(uint32_t op, char *buf, size_t len);
/* Fill the op-derived fields of F from the futex(2) arguments. */
void lt_futex_decode_args(struct lt_futex *f, const uint64_t args[6]);
/* Classify a syscall number. */
enum lt_wait_kind lt_syscall_wait_kind(long nr);
/* The fd an I/O wait (LT_WAIT_IO) of thread T blocks on, and its
 * direction in *DIR (1 read, 2 write, 3 either or not known): arg 0 for
 * most calls; splice and tee have two, a pipe on at least one side, and
 * which one they sleep on the kernel stack says (pipe_wait_writable,
 * wait_for_space, opipe_prep: the output; else the input); vmsplice's one
 * fd, a pipe, is written when the kernel stack waits for space. */
int lt_io_wait_fd(const struct lt_thread *t, int *dir);
/* Is T a vfork parent: a wait for a child (LT_WAIT_CHILD, which the
 * snapshot's decode gives vfork, and clone/clone3 with CLONE_VFORK) in one
 * of those calls, not in wait4/waitid? */
bool lt_vfork_wait(const struct lt_thread *t);
/* Has thread T's kernel stack a frame of function FN ("FN+0x.../0x...")? */
bool lt_kstack_has(const struct lt_thread *t, const char *fn);
/* A thread in call NR with arguments A (restart_syscall: 219) resumes a
 * poll with no timeout after a stop: its kernel stack (KS, its frames, or
 * TEXT, that of /proc/.../stack) in do_restart_poll and the poll's
 * timeout, still in its registers, negative.  The other restarted calls
 * are timed (a sleep, a futex wait or a poll with a timeout: only they
 * keep a restart block).  For a party's threads, read from /proc; a
 * snapshot's own decodes the poll itself (sc_resumed). */
bool lt_restart_untimed_poll(long nr, const uint64_t *a, const struct lt_strlist *ks, const char *text);

/* Free the strings and arrays owned by one thread / verdict (for code that
 * builds synthetic thread tables, e.g. tests). */
void lt_thread_clear(struct lt_thread *t);
/* Only the runtime view (rt_*): lt_lockmodels_apply starts from it. */
void lt_thread_clear_rt(struct lt_thread *t);
/* The name to show next to a tid: the runtime's name when a runtime read
 * one (a runtime thread model, or a lock model's scan: Java), else the
 * kernel's comm.  Every place that names a thread uses it. */
const char *lt_thread_name(const struct lt_thread *t);
void lt_verdict_clear(struct lt_verdict *v);
int lt_strlist_add(struct lt_strlist *l, const char *fmt, ...)
	__attribute__((format(printf, 2, 3)));
void lt_strlist_free(struct lt_strlist *l);

/* How far the calling CPU's scheduler clock (se.exec_start) lags
 * CLOCK_MONOTONIC, in ns.  0 or -1 if /proc/thread-self/sched is unreadable. */
int lt_sched_clock_offset(int64_t *off);
/* Each CPU's offset (lt_sched_clock_offset) measured on it, the calling
 * thread pinned to each CPU it may run on in turn (its affinity restored
 * after, so a `taskset` of the caller does not hide a CPU):
 * off[c] for c < n, INT64_MIN where not measured.  The CPUs' clocks lag
 * by different amounts (each its own IRQ and steal time: 0.7 s apart on a
 * busy VM), so a thread's time since it last ran (now - se.exec_start -
 * offset) takes the offset of the CPU it last ran on.  Returns how many
 * were measured. */
size_t lt_sched_clock_offsets(int64_t *off, size_t n);
/* The offset of OFF (N CPUs, as lt_sched_clock_offsets) for a thread last
 * on CPU (-1 unknown): its CPU's, else the largest measured (a time since
 * the last run is then never overstated), 0 when none is. */
int64_t lt_sched_offset_of(const int64_t *off, size_t n, int cpu);

/* What `locktrace snapshot` shows (src/cli/snapshot_show.c), on stdout, with
 * its errors on stderr; each returns the command's exit status.
 * lt_snapshot_show: a snapshot of pids[0], or with n > 1 of each, diagnosed
 * together (lt_multi_build); 0, or 1 when none could be taken (or none of
 * the threads could be read).  lt_snapshot_show_stored: the snapshots the
 * recording at path stored, each with its occasion; 0, 1 (none, or one
 * unreadable), or 3 when path is cut short (what it holds is printed). */
int lt_snapshot_show(const pid_t *pids, size_t n, const struct lt_snapshot_opts *o, bool json);
int lt_snapshot_show_stored(const char *path, bool json);

#ifdef __cplusplus
}
#endif
#endif
