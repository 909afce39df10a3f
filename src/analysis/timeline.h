/* SPDX-License-Identifier: MIT */
/*
 * The timeline model: the one reconstruction of what each thread of the
 * traced process was doing, fed event by event, shared by every output (the
 * Perfetto and JSON writers, reports, the stall detector).  Pure: no I/O, no
 * global state; everything it learns goes to the callbacks of a sink.
 *
 *   tl = lt_timeline_new(&hdr, &sink, NULL);
 *   for each event: lt_timeline_event(tl, &ev);
 *   lt_timeline_finish(tl, end_ns);
 *   lt_timeline_free(tl);
 *
 * What it builds:
 *  - threads: named from the header, TASK_NEW, RENAME, EXEC (or the
 *    scheduler's comm as a fallback), each instance with a small unique uid;
 *  - spans: one per blocking call (futex, select/poll/epoll, socket I/O) from
 *    its entry to its return, with its arguments and result.  A call the
 *    snapshot in the header saw blocked at attach starts at the trace's start
 *    (LT_SPAN_AT_START); a call still open at the end runs to the end
 *    (LT_SPAN_UNFINISHED); a call whose return was not recorded ends where
 *    the thread evidently left it (LT_SPAN_END_INFERRED);
 *  - switches not in the trace: a thread seen acting (a call, a recorded
 *    return, a wake-up it issues from a task, a clone, execve, its exit,
 *    leaving a cpu) after it left
 *    a cpu has been put back on one by a switch that was lost or that the
 *    kernel did not report (none whose previous task is a thread of PID 1
 *    in a Firecracker VM, whatever comes next).  That switch is passed to
 *    the sink's sched callback at the thread's event, flagged
 *    LT_SW_INFERRED, and ends any sleep in its call there;
 *  - wake edges: a sched_waking of a target thread matched to the waker's
 *    call open at that moment (a FUTEX_WAKE / REQUEUE / UNLOCK_PI, or a
 *    socket read or write) and to the wakee's open call;
 *  - processes: every thread knows its process (tgid); a trace may hold
 *    several (the header's procs and threads, TASK_NEW of a forked child),
 *    and wake-ups between them are matched like those within one;
 *  - locks: per lock key (src/trace/lockid.h: the address for the
 *    trace's own process, else the process or the shared object and
 *    offset), the number of threads waiting on it.
 *
 * Ordering: events may arrive slightly out of timestamp order across cpus;
 * the model sorts them in a bounded window (opts.reorder_ns, and at most
 * opts.reorder_max events) before interpreting them, so callbacks come in
 * timestamp order, except span_end, which comes when a span ends and
 * carries its begin time.  Memory is bounded by the number of live threads,
 * locks and the window, never by the trace's length.
 */
#ifndef LOCKTRACE_TIMELINE_H
#define LOCKTRACE_TIMELINE_H

#include <inttypes.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>
#include "locktrace/event.h"
#include "locktrace/tracefile.h"
#include "taskrun.h" /* LT_UNSEEN_CAUSE */

/* struct lt_span.flags */
#define LT_SPAN_AT_START     0x001 /* already blocked when the trace began */
#define LT_SPAN_UNFINISHED   0x002 /* still open when the trace ended */
#define LT_SPAN_END_INFERRED 0x004 /* return not recorded; end_ts inferred */
#define LT_SPAN_HAS_RESULT   0x008 /* ret is the call's return value */
#define LT_SPAN_WAIT         0x010 /* a call that sleeps until woken */
#define LT_SPAN_WAKER        0x020 /* a call that wakes other threads */
#define LT_SPAN_LOCK_WAIT    0x040 /* counted as a waiter on its futex */
#define LT_SPAN_THREAD_EXIT  0x080 /* ended because its thread exited */
#define LT_SPAN_SLEPT        0x100 /* the thread slept during the call */
#define LT_SPAN_FILE_LOCK    0x200 /* a file-lock call that can wait for
				      another holder (flock, F_SETLKW) */

/* struct lt_wake_edge.flags */
#define LT_WAKE_IDLE    0x1 /* issued from the idle task (an interrupt) */
#define LT_WAKE_OTHER   0x2 /* the waker (with IRQ: the task interrupted)
			     * belongs to another process */
#define LT_WAKE_NEW     0x4 /* a new thread's first wake-up */
#define LT_WAKE_IRQ     0x8 /* issued from interrupt context: the waker_tid
			     * is only the task that was interrupted */

/* A wake-up of a target thread: who issued it, inside which call, and which
 * call of the wakee it ended. */
struct lt_wake_edge {
	uint64_t id;         /* unique in the trace, > 0 (usable as a flow id) */
	uint64_t ts;         /* of the sched_waking */
	uint32_t waker_tid, waker_tgid, wakee_tid;
	uint32_t flags;      /* LT_WAKE_* */
	uint64_t waker_span; /* id of the waker's call that issued it, 0 none */
	uint8_t waker_call;  /* that call's entry kind (LT_EV_FUTEX_ENTER, ...),
				also when waker_span is 0 because the call's
				wake-ups past max_edges are not kept; 0 none */
	uint64_t wakee_span; /* id of the wakee's call it woke, 0 none */
	char waker_comm[LT_COMM_LEN];
};

/* One blocking call of one thread. */
struct lt_span {
	uint64_t id;          /* unique in the trace, > 0 */
	uint32_t tid;
	uint32_t tgid;        /* its process */
	uint32_t thread_uid;  /* the thread instance (struct lt_thread_ev.uid) */
	uint64_t begin_ts;
	uint64_t end_ts;      /* valid in span_end */
	/* The entry record: kind LT_EV_FUTEX_ENTER, LT_EV_WAIT_ENTER,
	 * LT_EV_IO_ENTER or LT_EV_FLOCK_ENTER with its arguments.  For
	 * LT_SPAN_AT_START it is built from the snapshot's registers (fields
	 * not known there are -1/0; a file-lock call's struct flock: type
	 * LT_FLOCK_TYPE_NOT_READ). */
	struct lt_event enter;
	uint16_t nr;          /* syscall number */
	uint32_t flags;       /* LT_SPAN_* */
	int64_t ret;          /* LT_SPAN_HAS_RESULT */
	uint64_t blocked_before_ns; /* LT_SPAN_AT_START: blocked this long before
				       the snapshot (0 unknown) */
	/* A futex call: the lock key of its futex word (lockid.h; the address
	 * itself in a trace of one process), 0 none. */
	uint64_t futex_key;
	/* LT_SPAN_LOCK_WAIT: the futex's lock key (futex_key) and its waiter
	 * count just after this call began / just after it ended (this call no
	 * longer counted). */
	uint64_t lock_addr;
	uint32_t lock_uid;
	uint32_t waiters_begin, waiters_end;
	/* Wake edges, valid during span_end: those this call issued (its
	 * wakees had an open call) and those that woke this call.  At most
	 * opts.max_edges each; the excess is counted in dropped_edges. */
	const struct lt_wake_edge *woke, *woken_by;
	uint32_t nwoke, nwoken_by, dropped_edges;
};

enum lt_thread_change {
	LT_THREAD_NEW = 1,    /* first seen (header, TASK_NEW, or first event) */
	LT_THREAD_RENAME = 2, /* comm changed (RENAME, EXEC, or learnt later) */
	LT_THREAD_EXIT = 3,   /* TASK_EXIT */
	LT_THREAD_EXEC = 4,   /* the process called execve; tid is now its leader */
};

struct lt_thread_ev {
	int change;            /* enum lt_thread_change */
	uint64_t ts;
	uint32_t tid, tgid;
	uint32_t uid;          /* unique per thread instance and lock, > 0 */
	const char *name;      /* current name (never NULL, never empty) */
	const char *old_name;  /* RENAME: the previous name */
	int from_header;       /* NEW: listed in the trace header */
	const struct lt_event *ev; /* the record behind it, NULL if none */
};

struct lt_lock_ev {
	uint64_t ts;
	uint64_t addr;     /* lock key (lockid.h): the futex address in a trace
			      of one process */
	uint32_t uid;      /* unique per lock, shared number space with threads */
	uint32_t waiters;  /* threads waiting on it now */
	int first;         /* first time this lock had a waiter */
};

/* h.flags of a SWITCH record the timeline makes (never one in a trace
 * file): the switch that put thread sw.next_tid on cpu h.cpu was not in the
 * trace; it happened at h.ts or before.  Its prev side is not known
 * (prev_tid and prev_tgid 0), nor its next_prio (the thread's last known,
 * else 120). */
#define LT_SW_INFERRED 0x80

/* Callbacks, each optional.  Pointers passed are valid during the call. */
struct lt_timeline_sink {
	void *ctx;
	/* the trace's start (lt_timeline_start), once, when it is known:
	 * before the first event's callbacks, or in lt_timeline_finish when
	 * there is none.  Only the header's threads come before it. */
	void (*start)(void *ctx, uint64_t ts);
	void (*thread)(void *ctx, const struct lt_thread_ev *t);
	void (*span_begin)(void *ctx, const struct lt_span *s);
	void (*span_end)(void *ctx, const struct lt_span *s);
	void (*wake)(void *ctx, const struct lt_wake_edge *w);
	void (*lock)(void *ctx, const struct lt_lock_ev *l);
	/* SWITCH and WAKING records, unchanged, in timestamp order, and the
	 * switches the timeline infers (LT_SW_INFERRED) */
	void (*sched)(void *ctx, const struct lt_event *ev);
	/* LOST records */
	void (*lost)(void *ctx, const struct lt_event *ev);
};

/* Names a timeline writer (Perfetto, JSON) may give locks and threads
 * beyond the trace's own: a snapshot's lock models and runtimes.  Each
 * function, if set, writes a name into buf and returns > 0 when it has one. */
struct lt_namers {
	int (*lock)(void *ctx, uint64_t addr, char *buf, size_t len);
	void *lock_ctx;
	int (*thread)(void *ctx, uint32_t tid, char *buf, size_t len);
	void *thread_ctx;
	/* the file behind fd of thread tid, when a snapshot saw it wait for
	 * a file lock on it */
	int (*file)(void *ctx, uint32_t tid, int fd, char *buf, size_t len);
	void *file_ctx;
};

const char *lt_span_name(const struct lt_span *s);
/* The kind of fd of an I/O span: "socket", "pipe" (a pipe or FIFO), or
 * NULL when not known (not an I/O span, or a call begun before the trace,
 * which may be on any fd). */
const char *lt_span_fd_kind(const struct lt_span *s);

/* The name of span s: lt_span_name, and for a file-lock call the file's
 * path when the namers know it ("file lock on /tmp/l (flock)"). */
static inline const char *lt_namers_span(const struct lt_namers *n, const struct lt_span *s, char *buf,
					 size_t len)
{
	const char *name = lt_span_name(s);
	char path[256];
	if (s->enter.h.kind != LT_EV_FLOCK_ENTER || !n->file ||
	    n->file(n->file_ctx, s->tid, s->enter.flk.fd, path, sizeof(path)) <= 0)
		return name;
	/* "file lock (flock)" -> "file lock on PATH (flock)" */
	const char *paren = strchr(name, '(');
	snprintf(buf, len, "%.*son %s %s", paren ? (int)(paren - name) : 0, name, path, paren ? paren : name);
	return buf;
}

/* The name of the futex at addr's track (a counter of its waiters):
 * "NAME (futex 0xADDR)" when the lock namer names it, else "futex 0xADDR". */
static inline const char *lt_namers_lock_track(const struct lt_namers *n, uint64_t addr, char *buf,
					       size_t len)
{
	char sym[128];
	if (n->lock && n->lock(n->lock_ctx, addr, sym, sizeof(sym)) > 0)
		snprintf(buf, len, "%.127s (futex 0x%" PRIx64 ")", sym, addr);
	else
		snprintf(buf, len, "futex 0x%" PRIx64, addr);
	return buf;
}

/* 1 with the name of thread tid in buf, 0 if the namers have none. */
static inline int lt_namers_thread(const struct lt_namers *n, uint32_t tid, char *buf, size_t len)
{
	return n->thread && n->thread(n->thread_ctx, tid, buf, len) > 0;
}

struct lt_timeline_opts {
	uint64_t reorder_ns; /* sort window; 0: LT_TIMELINE_REORDER_NS */
	size_t reorder_max;  /* events held at most; 0: LT_TIMELINE_REORDER_MAX */
	uint32_t max_edges;  /* per span and direction; 0: LT_TIMELINE_MAX_EDGES */
	/* lock identity to use (the caller's, filled with the SYMBOLS
	 * sections' shared keys before the events); NULL: the timeline makes
	 * its own from the header.  Not freed by the timeline. */
	struct lt_lockid *lockid;
};

#define LT_TIMELINE_REORDER_NS (250ull * 1000 * 1000)
#define LT_TIMELINE_REORDER_MAX (1u << 20)
#define LT_TIMELINE_MAX_EDGES 64

struct lt_timeline_stats {
	uint64_t events;          /* fed */
	uint64_t late;            /* arrived after the window had passed them */
	uint64_t spans, wakes, flows; /* flows: edges with both calls known */
	uint64_t inferred_ends;   /* calls whose return was not recorded */
	uint64_t orphan_exits;    /* returns without a recorded entry */
	uint64_t unseen_switches; /* switches that put a thread on a cpu, not in
				     the trace (LT_SW_INFERRED) */
	uint64_t lost;            /* events the ring buffer dropped */
	size_t max_held;          /* most events held for sorting at once */
	uint64_t first_ts, last_ts;
};

/* How outputs say stats.unseen_switches (when not 0), the trace having
 * lost lost events: printf(LT_UNSEEN_SWITCHES_FMT,
 * LT_UNSEEN_SWITCHES_ARGS(n, lost)) */
#define LT_UNSEEN_SWITCHES_FMT                                                      \
	"%" PRIu64 " switch%s that put a traced thread on a cpu %s not in the trace (%s); " \
	"placed at the thread's next event"
#define LT_UNSEEN_SWITCHES_ARGS(n, lost)                                     \
	(uint64_t)(n), (n) == 1 ? "" : "es", (n) == 1 ? "was" : "were", \
		LT_UNSEEN_CAUSE(lost)

struct lt_timeline;

/* hdr: the trace's header (pid, threads at attach, clocks); it is read
 * during this call only.  opts may be NULL.  Returns NULL on out of memory. */
struct lt_timeline *lt_timeline_new(const struct lt_header *hdr, const struct lt_timeline_sink *sink,
				    const struct lt_timeline_opts *opts);
/* Feed one event.  Returns 0 or -ENOMEM (the model then stays usable but
 * may miss what it could not store). */
int lt_timeline_event(struct lt_timeline *tl, const struct lt_event *ev);
/* Interpret every held event and close what is still open at end_ts (0:
 * the last event's time).  Call once. */
void lt_timeline_finish(struct lt_timeline *tl, uint64_t end_ts);
void lt_timeline_free(struct lt_timeline *tl);

const struct lt_timeline_stats *lt_timeline_stats(const struct lt_timeline *tl);
/* The time a span's STACKS references key it by (trace-format.md,
 * STACKS): its entry's; for a call under way at the start
 * (LT_SPAN_AT_START) the header's boottime, the entry the timeline builds
 * from the snapshot (its begin_ts is the trace's start, which an event
 * recorded just before the attach may put earlier). */
static inline uint64_t lt_span_stack_ts(const struct lt_span *s)
{
	return (s->flags & LT_SPAN_AT_START) ? s->enter.h.ts : s->begin_ts;
}

/* The trace's start: the earlier of the first event and the attach time. */
uint64_t lt_timeline_start(const struct lt_timeline *tl);
/* The call thread tid is in right now (in the model's time), or NULL. */
const struct lt_span *lt_timeline_open_span(const struct lt_timeline *tl, uint32_t tid);

/* The lock identity the timeline keys its locks by (lockid.h). */
struct lt_lockid *lt_timeline_lockid(const struct lt_timeline *tl);
/* The process of live thread tid, 0 if unknown. */
uint32_t lt_timeline_tgid(const struct lt_timeline *tl, uint32_t tid);

/* Short display name of a call: "FUTEX_WAIT", "FUTEX_LOCK_PI", "epoll_wait",
 * "recvfrom", ...  (a static string) */
const char *lt_span_name(const struct lt_span *s);

#endif
