/* Wait-for edges: for a blocked thread, the kind of wait and the parties
 * (processes, sometimes one thread) that can end it, with the evidence
 * they were read from.  Filled by a live snapshot (src/waitfor.c) for
 * file locks, pipes, sockets, poll/select/epoll sets and child waits;
 * other modules (an application lock manager's model) add their own kind
 * with lt_waitfor_add.  The verdicts (verdicts.c, waitfor_verdicts.c) use
 * them: a file-lock wait is a lock wait, a cycle of any mix of edges is a
 * deadlock, IDLE only when every wait can end by itself.  docs/waits.md.
 */
#ifndef LOCKTRACE_WAITFOR_H
#define LOCKTRACE_WAITFOR_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>
#include <sys/types.h>
#include "filelock.h"

#ifdef __cplusplus
extern "C" {
#endif

struct lt_thread;
struct lt_snapshot;

enum lt_wf_kind {
	LT_WF_NONE = 0,
	LT_WF_FILE_LOCK,   /* flock/fcntl/lockf: holders of the conflicting lock */
	LT_WF_PIPE_READ,   /* reader of an empty pipe: processes with a write end */
	LT_WF_PIPE_WRITE,  /* writer to a full pipe: processes with a read end */
	LT_WF_SOCKET,      /* a socket whose peer is on this host: its processes */
	LT_WF_REMOTE,      /* a socket whose peer is outside this host / namespace */
	LT_WF_LISTEN,      /* a listening socket: whoever connects */
	LT_WF_CHILD,       /* wait4/waitid: the children waited for */
	LT_WF_TIMER,       /* ends by itself: a sleep, a timeout, a timerfd */
	LT_WF_APP_LOCK,    /* an application's own lock manager (its model) */
	LT_WF_EXIT,        /* a process's exit, not a child's (a pidfd polled) */
	LT_WF_TRACEE,      /* a tracer's wait4/waitid: its tracees' next stops */
	LT_WF_UNKNOWN,     /* who can end it is not known (said why) */
};
const char *lt_wf_kind_name(enum lt_wf_kind k);

/* What the parties of an edge were doing when it was read. */
enum lt_wf_pstate {
	LT_WFP_UNKNOWN = 0, /* not read (no party, or unreadable)            */
	LT_WFP_RUNNING,     /* a thread of it is running or runnable          */
	LT_WFP_TIMED,       /* asleep, but a thread sleeps on a timer          */
	LT_WFP_EVENTS,      /* asleep in an event wait (poll/epoll/select/
	                       accept/pause): an idle server, presumed healthy */
	LT_WFP_BLOCKED,     /* every thread blocked in a wait that no timer ends */
	LT_WFP_GONE,        /* exited / zombie                                 */
};
const char *lt_wf_pstate_name(enum lt_wf_pstate s);
/* The same in words: "in an event wait (idle)", "blocked itself", ... */
const char *lt_wf_pstate_words(enum lt_wf_pstate s);

#define LT_WF_MAX_PIDS 8

struct lt_wf_edge {
	enum lt_wf_kind kind;
	int fd;                 /* the fd waited on, -1 none                     */
	char *what;             /* "pipe:[812] (read end)", "flock WRITE on /tmp/l" */
	char *evidence;         /* where it was read ("/proc/locks: 1: FLOCK ..."),
	                           or why the parties are unknown; NULL          */
	pid_t pids[LT_WF_MAX_PIDS]; /* processes that can end the wait (the
	                           waiter's own process may be one)              */
	size_t n_pids;
	bool more_pids;         /* more than LT_WF_MAX_PIDS, or the scan stopped */
	pid_t holder_tid;       /* a known thread among them (app lock), 0 none */
	double wait_s;          /* how long the wait has lasted by the application's
	                           own record (PostgreSQL's PGPROC.waitStart), 0
	                           unknown: the kernel's last run time may be later
	                           (a backend's latch wakes for its deadlock check) */
	enum lt_wf_pstate pstate; /* the parties, together (the least stuck)     */
	char *doing;            /* "1234 (sleep): clock_nanosleep", NULL         */
	/* a timeout the application keeps that ends this wait by itself
	 * (PostgreSQL's idle_in_transaction_session_timeout for a backend
	 * idle in transaction, lock_timeout or statement_timeout for one
	 * waiting on a lock): a timer of its own (SIGALRM), not the call's */
	char timeout_what[48];  /* the setting ("lock_timeout"), "" none          */
	double timeout_s;       /* its value, > 0; < 0: it could not be read,
	                           so whether one ends the wait is not known     */
	double timeout_left_s;  /* it ends the wait at most this long after the
	                           snapshot; < 0 not known (the value alone)     */
};

struct lt_waitfor {
	pid_t pid;              /* the process of the thread                     */
	struct lt_wf_edge *edges;
	size_t n_edges;
	/* a thread stopped by a tracer (state t) runs again only when its
	 * tracer lets it go: the tracer (TracerPid), 0 none or unread, and
	 * what it was doing, read as an edge's parties are */
	pid_t tracer;
	enum lt_wf_pstate tracer_st;
	char *tracer_doing;     /* "8032 (gdb): poll", NULL                      */
};

/* What a pipe_read/pipe_write edge is on, from its "what" (the one place
 * that says it, kept as it is in a stored snapshot's JSON): a pipe or a
 * FIFO, which has ends; an eventfd or a POSIX message queue, which have
 * holders (the kernel writes eventfds too; a process may open a queue by
 * name); a unix socket (its edge a socket one: a connected peer, a
 * listener); LT_WF_OBJ_OTHER for any other edge. */
enum lt_wf_obj { LT_WF_OBJ_OTHER = 0, LT_WF_OBJ_PIPE, LT_WF_OBJ_EVENTFD, LT_WF_OBJ_MQUEUE, LT_WF_OBJ_UNIX };
static inline enum lt_wf_obj lt_wf_edge_obj(const struct lt_wf_edge *e)
{
	if (!e->what)
		return LT_WF_OBJ_OTHER;
	if (!strncmp(e->what, "pipe", 4) || !strncmp(e->what, "FIFO", 4))
		return LT_WF_OBJ_PIPE;
	if (!strncmp(e->what, "eventfd", 7))
		return LT_WF_OBJ_EVENTFD;
	if (!strncmp(e->what, "message queue", 13))
		return LT_WF_OBJ_MQUEUE;
	if (!strncmp(e->what, "unix socket", 11))
		return LT_WF_OBJ_UNIX;
	return LT_WF_OBJ_OTHER;
}

/* The "what" of an edge of an open() of a FIFO waiting for a process to
 * open its other end (kind unknown): this prefix, the path, the end. */
#define LT_WF_FIFO_OPEN "a process to open FIFO "
static inline bool lt_wf_fifo_open(const struct lt_wf_edge *e)
{
	return e->kind == LT_WF_UNKNOWN && e->what &&
	       !strncmp(e->what, LT_WF_FIFO_OPEN, sizeof(LT_WF_FIFO_OPEN) - 1);
}

/* A socket edge of a connect() not yet accepted: its parties hold the
 * listener, not a peer ("..., connecting to PATH: listener socket:[N]",
 * "..., connecting (SYN_SENT): listener socket:[N] on ADDR"). */
#define LT_WF_LISTENER " listener socket:["
static inline bool lt_wf_connecting(const struct lt_wf_edge *e)
{
	return e->kind == LT_WF_SOCKET && e->what && strstr(e->what, LT_WF_LISTENER);
}

/* A signal wait (rt_sigsuspend, pause, rt_sigtimedwait) that a child's
 * SIGCHLD can end is a child wait: a child edge whose "what" starts with
 * LT_WF_SIGCHLD.  When the mask it passed could not be read, its children
 * may be what it waits for: an unknown edge naming them, "what" starting
 * with LT_WF_MAYBE_CHILD (an inference, said as one).  A timer whose
 * signal can end it (a POSIX timer of /proc/PID/timers, an alarm) is a
 * timer edge whose "what" starts with LT_WF_SIGTIMER: whether it is armed,
 * and when it fires, /proc does not say.  A file-lock wait has such timer
 * edges too (util-linux flock -w: a SIGALRM timer interrupts the call):
 * beside its file-lock edge they are no party but what may end it first
 * (its lock wait, or the deadlock it is a link of, says so). */
#define LT_WF_SIGCHLD "SIGCHLD from "
#define LT_WF_MAYBE_CHILD "perhaps SIGCHLD from "
#define LT_WF_SIGTIMER "the signal of "
/* A signalfd whose SIGCHLD its children's exits end (a child edge,
 * "what" LT_WF_SIGCHLD "any child (signalfd fd N)") has other signals in
 * its mask, which any process may send: an unknown edge whose "what"
 * starts with LT_WF_SIGOTHER.  Like a signal's timer it may end the wait
 * first: a caveat of a chain into the child, never a link of a cycle. */
#define LT_WF_SIGOTHER "other signals of "
static inline bool lt_wf_sigother(const struct lt_wf_edge *e)
{
	return e->kind == LT_WF_UNKNOWN && e->what && !strncmp(e->what, LT_WF_SIGOTHER, sizeof(LT_WF_SIGOTHER) - 1);
}
/* A wait that polls between sleeps for a child (Python's Popen.wait with
 * a timeout): a child edge whose "what" starts with LT_WF_POLLCHILD (the
 * thread wakes every few ms: seen moving, it is still that wait), and the
 * timeout it was given as a timer edge whose "what" starts with
 * LT_WF_APPTIMER, which like a signal's timer may end it, when not known. */
#define LT_WF_POLLCHILD "a poll of "
#define LT_WF_APPTIMER "the timeout of "
static inline bool lt_wf_maybe_child(const struct lt_wf_edge *e)
{
	return e->kind == LT_WF_UNKNOWN && e->what &&
	       !strncmp(e->what, LT_WF_MAYBE_CHILD, sizeof(LT_WF_MAYBE_CHILD) - 1);
}
static inline bool lt_wf_sigtimer(const struct lt_wf_edge *e)
{
	return e->kind == LT_WF_TIMER && e->what &&
	       (!strncmp(e->what, LT_WF_SIGTIMER, sizeof(LT_WF_SIGTIMER) - 1) ||
		!strncmp(e->what, LT_WF_APPTIMER, sizeof(LT_WF_APPTIMER) - 1));
}
/* A tracer's event loop (gdb's): each ptrace stop of a tracee sends it
 * SIGCHLD, which its handler may turn into a wake-up of its poll (a pipe
 * of its own): a tracee edge whose "what" starts with LT_WF_MAYBE_TRACEE,
 * an inference said as one. */
#define LT_WF_MAYBE_TRACEE "perhaps, through its SIGCHLD handler, "
static inline bool lt_wf_maybe_tracee(const struct lt_wf_edge *e)
{
	return e->kind == LT_WF_TRACEE && e->what &&
	       !strncmp(e->what, LT_WF_MAYBE_TRACEE, sizeof(LT_WF_MAYBE_TRACEE) - 1);
}
/* A child's exit, or another process's (an exit edge: coreutils' tail
 * --pid=P checks kill(P, 0) between waits), polled for between sleeps. */
static inline bool lt_wf_pollchild(const struct lt_wf_edge *e)
{
	return (e->kind == LT_WF_CHILD || e->kind == LT_WF_EXIT) && e->what &&
	       !strncmp(e->what, LT_WF_POLLCHILD, sizeof(LT_WF_POLLCHILD) - 1);
}
/* Such an exit edge whose process is inferred (tail --pid: the pid read
 * from its command line, its "what" says so). */
static inline bool lt_wf_inferred_exit(const struct lt_wf_edge *e)
{
	return e->kind == LT_WF_EXIT && lt_wf_pollchild(e) && strstr(e->what, "inferred");
}

/* Append an edge to T (allocating t->wf for process PID); returns it
 * zeroed except kind, fd = -1, or NULL on OOM.  Strings set later are
 * owned by the edge (malloc'd). */
struct lt_wf_edge *lt_waitfor_add(struct lt_thread *t, pid_t pid, enum lt_wf_kind kind);
void lt_waitfor_free(struct lt_waitfor *w);
/* One line for an edge: what, who, what they do, evidence (malloc'd). */
char *lt_wf_edge_line(const struct lt_wf_edge *e);

/* Fill every thread's wait-for edges from /proc of the live process
 * s->pid (snapshot.c calls it; the memory reader decodes struct flock).
 * MEM may be NULL.  Bounded: see docs/waits.md. */
struct lt_mem;
void lt_waitfor_collect(struct lt_snapshot *s, struct lt_mem *mem);

/* ---- following the edges across processes ---- */

struct lt_follow_limits {
	size_t max_procs;   /* 0 = 8 (the first included)                    */
	int max_depth;      /* 0 = 7 edges from the first process            */
	double max_s;       /* 0 = 3 s                                       */
};
struct lt_strlist;
/* Snapshot process PID (0, or nonzero when it could not). */
typedef int (*lt_follow_take_fn)(pid_t pid, void *arg, struct lt_snapshot **out);
/* Whether snapshot_follow goes into the parties of E: blocked ones, and
 * up to three peers (pipe, socket, child) or lock holders (file lock,
 * application lock) idle in event waits or on timers, some of whose
 * threads may be stuck all the same. */
bool lt_wf_follow_edge(const struct lt_wf_edge *e);
/* FIRST and the processes its waits lead to (lt_wf_follow_edge),
 * breadth first within LIM (NULL = defaults): a
 * malloc'd array (*out[0] == first) of *n snapshots, the caller's to
 * free.  What was followed and where it stopped go to NOTES.  0 or -1. */
int lt_snapshot_follow(struct lt_snapshot *first, const struct lt_follow_limits *lim, lt_follow_take_fn take,
		       void *arg, struct lt_snapshot ***out, size_t *n, struct lt_strlist *notes);

/* ---- pure decoders (tested on fixtures) ---- */

/* One line of /proc/locks. */
struct lt_plock {
	int id;                 /* the "N:" number; a blocked entry has the
	                           number of the lock that blocks it          */
	bool blocked;           /* "->" entry: a waiter                        */
	char cls[8];            /* "FLOCK", "POSIX", "OFDLCK", "LEASE"          */
	char type[8];           /* "READ", "WRITE", "UNLCK"                     */
	bool mandatory;
	pid_t pid;              /* -1 for OFD locks                            */
	unsigned major, minor;
	uint64_t ino;
	uint64_t start;
	uint64_t end;           /* UINT64_MAX for EOF                          */
};
/* Parse one line; 0 or -1. */
int lt_parse_plock(const char *line, struct lt_plock *out);
/* The "lock:" lines of /proc/PID/fdinfo/N text (same format after
 * "lock:\t"); up to max; returns the count. */
size_t lt_parse_fdinfo_locks(const char *text, struct lt_plock *out, size_t max);
/* Does lock A (held) conflict with request B (type, range)? */
bool lt_plock_conflicts(const struct lt_plock *held, const struct lt_plock *want);
/* Does the fdinfo TEXT of one open file show a granted OFD or flock lock
 * (the locks of that open file description, whichever process took them)
 * that conflicts with REQ?  The lock lines carry the locked file's
 * maj:min:ino, so only a lock on REQ's file counts, whatever path the fd
 * was opened by (a hard link, a bind mount). */
bool lt_fdinfo_holds_lock(const char *text, const struct lt_plock *req);

/* Whether signal SIG can end a thread's signal wait (x86-64 numbers: 34
 * pause, 128 rt_sigtimedwait, 130 rt_sigsuspend; 73 flock and 72 fcntl,
 * whose lock waits a caught signal interrupts too), from what was read:
 * the signals blocked during the call (rt_sigsuspend's mask; pause's and
 * rt_sigtimedwait's SigBlk of /proc/PID/task/TID/status, from which the
 * kernel took rt_sigtimedwait's set out), rt_sigtimedwait's set, and the
 * process's SigCgt and SigIgn.  A caught signal not blocked ends it; one
 * at its default action ends it only if that kills the process (SIGCHLD's
 * default discards it); an ignored one never; rt_sigtimedwait also ends
 * on a signal of its set.  MAYBE when what decides it was not read.  WHY
 * (if given) says it in words. */
struct lt_sigwait {
	long nr;
	bool blocked_ok, set_ok, disp_ok;
	uint64_t blocked, set, caught, ignored; /* bit sig-1 for signal sig */
};
enum lt_sig_end { LT_SIG_END_NO = 0, LT_SIG_END_YES, LT_SIG_END_MAYBE };
enum lt_sig_end lt_sigwait_ends(const struct lt_sigwait *w, int sig, char *why, size_t len);
/* Whether signal SIG can end a read of a signalfd (or a poll for its
 * reading): SIG is in its mask (W->set, the "sigmask:" line of its
 * /proc/PID/fdinfo/N, read with lt_status_sigmask) and is queued for it:
 * blocked by the reading thread (W->blocked, SigBlk), and for SIGCHLD not
 * ignored (no SIGCHLD is sent then).  Not blocked it is delivered instead
 * (caught: its handler takes it, MAYBE; else discarded or the process
 * ends).  MAYBE when what decides it was not read. */
enum lt_sig_end lt_signalfd_ends(const struct lt_sigwait *w, int sig, char *why, size_t len);
/* The signals of MASK (bit sig-1), "SIGINT SIGTERM SIGWINCH", into BUF
 * (cut with "..." when it does not fit); its length. */
size_t lt_sigset_str(uint64_t mask, char *buf, size_t len);
/* The "tty-index:" line of a pty master's /proc/PID/fdinfo/N (its slave
 * is /dev/pts/INDEX): 0 and *OUT, or -1 when there is none. */
int lt_fdinfo_tty_index(const char *fdinfo, int *out);
/* "SIGCHLD", "SIGRTMIN+3", "signal 70". */
const char *lt_signal_name(int sig, char *buf, size_t len);
/* A mask line of /proc/PID/status ("SigBlk:", "SigCgt:", ...) into *OUT;
 * 0, or -1 if FIELD is not there. */
int lt_status_sigmask(const char *status, const char *field, uint64_t *out);
/* One POSIX timer of /proc/PID/timers. */
struct lt_ptimer {
	int id;
	int signo;        /* its signal                                    */
	bool signal;      /* it notifies by a signal (not "none", "thread") */
	bool to_thread;   /* to one thread (SIGEV_THREAD_ID: "tid.N")       */
	pid_t target;     /* the pid or tid it signals                     */
	int clock;        /* ClockID                                       */
};
/* The timers of /proc/PID/timers TEXT, up to MAX; their count. */
size_t lt_parse_proc_timers(const char *text, struct lt_ptimer *out, size_t max);
/* The DURATION coreutils' timeout(1) was given, in seconds, from its
 * /proc/PID/cmdline (LEN bytes, NUL-separated): after its options, a
 * number with an optional suffix s, m, h, d, followed by a command; -1 when
 * the line does not read as one (0: no timeout). */
double lt_timeout1_duration(const char *cmdline, size_t len);

/* The -w/--wait/--timeout SECONDS util-linux flock(1) was given, from its
 * /proc/PID/cmdline (LEN bytes, NUL-separated; its options end at the
 * first word that is none): -1 when there is none or the line does not
 * read as flock(1)'s (0: -w 0, which does not wait). */
double lt_flock1_wait(const char *cmdline, size_t len);

/* The process coreutils' tail(1) follows with --pid=PID, from its
 * /proc/PID/cmdline (LEN bytes, NUL-separated): tail -f (-F, --follow)
 * checks with kill(PID, 0) between waits whether it still exists and
 * exits once it does not.  0 when it does not follow or has no --pid, -1
 * when the line does not read as tail's; its sleep interval (-s,
 * --sleep-interval, default 1 s) into *SLEEP_S (if given). */
pid_t lt_tail1_pid(const char *cmdline, size_t len, double *sleep_s);

/* lt_flock_op_str, lt_fcntl_lock_cmd: filelock.h (src/trace). */
/* struct flock as x86-64 lays it out (short type, short whence, off_t
 * start, off_t len, pid_t pid): "F_WRLCK SEEK_SET 0 len 0 (to EOF)". */
size_t lt_flock_struct_str(const unsigned char raw[32], char *buf, size_t len);

/* A NETLINK_SOCK_DIAG reply to a unix_diag request: the socket's inode
 * and its peer's (UNIX_DIAG_PEER).  0 when found, -1 otherwise. */
int lt_parse_unix_diag(const void *buf, size_t len, uint32_t *ino, uint32_t *peer);
/* In one recv of a NETLINK_SOCK_DIAG unix dump asked with
 * UDIAG_SHOW_VFS: the socket bound to the file VFS_DEV (the kernel's
 * encoding, major << 20 | minor) : VFS_INO, of TYPE (SOCK_STREAM,
 * SOCK_DGRAM...; 0 any), its inode into *INO.  1 found, 0 not in this
 * buffer (more may come), 2 at NLMSG_DONE, -1 an error. */
int lt_unix_diag_find_vfs(const void *buf, size_t len, uint32_t vfs_dev, uint64_t vfs_ino, int type, uint32_t *ino);

#ifdef __cplusplus
}
#endif
#endif
