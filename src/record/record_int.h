/* SPDX-License-Identifier: MIT */
/* The recorder's parts (src/record*.c), shared among them: the state of one
 * recording and the steps lt_record (record.c) runs. */
#ifndef LOCKTRACE_RECORD_INT_H
#define LOCKTRACE_RECORD_INT_H

#include <limits.h>
#include <pthread.h>
#include <signal.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>
#include "callnorm.h"
#include "log.h"
#include "flight.h"
#include "loader.h"
#include "locksyms.h"
#include "record.h"
#include "stackrec.h"
#include "stall.h"
#include "target.h"
#include "locktrace/tracefile.h"
#include "u64map.h"

struct lt_rtwatch;

/* The distinct threads seen: an open-addressing set of tids of its own,
 * not a u64map, because it is asked up to three times per event and its
 * inlined hit path is measured (BENCHMARKS.md, "a cheaper collector"). */
struct tidset {
	uint32_t *v;
	uint32_t *tg; /* tg[j]: the tgid of v[j] (several processes: read per event) */
	size_t cap, n;
};

/* A traced process: at attach, or joined later (a fork followed, a process
 * of the cgroup seen for the first time). */
struct proc {
	pid_t tgid;
	uint32_t flags;   /* LT_PROC_* */
	int pidfd;        /* to see it end (-1: not watched, or gone) */
	uint64_t threads; /* distinct threads seen */
	int have_syms;
	struct lt_locksyms syms; /* its futex addresses to name */
	struct lt_rtwatch *rtw;  /* --stall: its runtime's own locks (NULL: not yet) */
	struct lt_go_watch *gow; /* --stall: its goroutines, if a Go program (golang.h) */
};

/* What the events go through on their way to the sink (a file, or the
 * flight recorder's ring): counts, the threads and processes they show,
 * the stall rule, the pairing of calls with their returns. */
struct collector {
	struct lt_writer *w;
	uint32_t tgid;
	uint64_t events[LT_EV_MAX];
	uint64_t total;
	int werr;
	struct tidset tids;
	/* the thread of the last event found in tids (0: none yet), and its
	 * tgid there (non-zero): the next event is often the same thread's (a
	 * call and its return), or names it (the switch after a sleep) */
	uint32_t last_tid, last_tg;
	struct lt_stall *stall; /* NULL unless --stall */
	struct lt_callnorm *norm; /* --calls blocking: returns from switches */
	/* every call, streamed: tid -> the call whose entry was seen and whose
	 * return was not yet (record_loop.c: pair_event) */
	struct lt_u64map calls;
	struct lt_stackrec *stk;  /* --stacks (NULL: off) */
	/* the processes (procs[0] is tgid); multi: several may be traced */
	int multi;
	struct proc **procs;
	size_t nprocs, cap_procs;
	struct lt_u64map proc_of;  /* tgid -> struct proc * */
	struct lt_u64map tid_tgid; /* tid -> tgid (multi) */
	struct lt_u64map untraced; /* tgids seen in switches, not traced (--cgroup) */
	const struct lt_cgroup *cg; /* --cgroup: its processes join when seen */
	int want_syms, want_pidfd;
	/* the trace's end (boottime ns), set as the programs are detached:
	 * they go one by one, so the events after it are of some of them
	 * only (the scheduler's without the calls'): dropped, and counted */
	uint64_t end_ns;
	uint64_t after_end;
};

/* The snapshot at attach, taken off the collector thread. */
struct snap_job {
	pthread_t th;
	pid_t *tgids; /* the processes at attach (the job's own copy) */
	size_t n;
	int started;
	volatile int done; /* set by the job, read by the loop */
	char *json;
	size_t len;
	char err[256];
};

/* Hands a completed trace to the caller (conversion, analysis).  While the
 * recorder goes on (a flight dump with --keep-going), that work runs in a
 * child process: it allocates a lot for a moment, and the collector's own
 * memory must stay at its ring size.  Children are reaped as they end. */
struct kids {
	pid_t pid[16];
	int n;
};

/* Flight recorder state: the ring of chunks and where dumps go. */
struct flight {
	struct lt_flight fl;
	int first_fd;         /* the output named at start, created empty; -1 once used */
	char base[PATH_MAX];  /* its path; later dumps get -2, -3, ... before .ltrace */
	int ndumps;
	uint64_t last_dump_bytes; /* the kernel-side units: the last dump's size */
	const struct lt_record_opts *o; /* check_out for the dump names */
};

/* One recording, from attach to the summary: lt_record's state, shared by
 * the steps below. */
struct session {
	/* when the programs were detached at the end (CLOCK_BOOTTIME ns): the
	 * trace's end, not after the end snapshot (rec_drain) */
	uint64_t detach_ns;
	/* non-empty: the output is written as this temporary file beside
	 * res->path, where a file --force replaces still is; renamed over it
	 * (rec_out_commit) once there is something to keep, removed if not */
	char out_tmp[PATH_MAX];
	/* the trace file at its name (device, inode), once it is there: a
	 * file renamed over it meanwhile is said at the end */
	dev_t out_dev;
	ino_t out_ino;
	const struct lt_record_opts *o;
	struct lt_record_result *res;
	struct collector c;
	struct lt_callnorm norm;
	struct lt_bpf bpf;
	struct lt_header hdr;
	struct lt_launch launch;
	uint64_t *lost_seen, *lost_now; /* per (cpu, kind) */
	size_t nlost;
	pid_t tgid;
	int pidfd, launched, bpf_started;
	int wcopies; /* LT_BPF_COPY_WAITERS: the BPF side copies waiters' stacks */
	char comm[LT_COMM_LEN + 8];
	struct snap_job snap;
	struct flight flight;
	struct lt_stall stall;
	int have_stall;
	uint64_t rtw_window;     /* --stall: each process's runtime locks are read */
	struct lt_appwatch *appw; /* --stall: application lock waits (appwatch.h) */
	int ring;                /* flight recorder: events go to memory */
	int fb;                  /* ... to the kernel-side units (flightbuf.h),
				  * not drained (the default); else streamed
				  * (--ring-stream, --stacks) */
	struct lt_writer *file_w; /* the output in normal mode */
	struct lt_cgroup cg;     /* --cgroup */
	int have_cg;
	struct kids kids;
	int show_status;
	sigset_t oldmask;        /* the mask to restore (signals held until go) */
	int holding;             /* signals are still held */
	int reaped;              /* the launched program was waited for */
	int pid_file_written;
	dev_t pid_file_dev;      /* the pid file we created: only it is removed */
	ino_t pid_file_ino;
	char exe[PATH_MAX];      /* the launched program, as execvp finds it */
	char note[160];          /* said after the first line (lt_info) */
};

extern volatile sig_atomic_t rec_stop_requests;

/* record_procs.c */
/* The process tgid, added (flags: how it came to be traced) if create and
 * not known yet; NULL if unknown or out of memory. */
struct proc *rec_get_proc(struct collector *c, pid_t tgid, uint32_t flags, int create);
void rec_free_procs(struct collector *c);
int rec_is_traced_cb(void *ctx, uint32_t tgid);
/* A thread of a traced process, counted once. */
void rec_note_thread(struct collector *c, uint32_t tid, uint32_t tgid);
/* The out-of-line parts of rec_note_event: a process or a thread not
 * known yet (several processes traced). */
int rec_tgid_traced_multi(struct collector *c, uint32_t tgid);
uint32_t rec_tgid_of_multi(struct collector *c, uint32_t tid);

/* rec_note_event's hit path is inline here: it runs for every event
 * (BENCHMARKS.md, "the collector, again"). */
/* cap is a power of two: the slot is the top bits of a multiplicative
 * hash, masked (no division: this runs for every event, up to 3 times). */
static inline size_t rec_tidset_slot(uint32_t tid, size_t cap)
{
	return (size_t)((tid * 0x9E3779B97F4A7C15ull) >> 32) & (cap - 1);
}

/* Is tid (non-zero) in the set? */
static inline int rec_tidset_has(const struct tidset *s, uint32_t tid)
{
	if (!s->cap)
		return 0;
	for (size_t j = rec_tidset_slot(tid, s->cap);; j = (j + 1) & (s->cap - 1)) {
		if (s->v[j] == tid)
			return 1;
		if (!s->v[j])
			return 0;
	}
}

/* Is tid (non-zero) in the set?  Its slot in *slot. */
static inline int rec_tidset_find(const struct tidset *s, uint32_t tid, size_t *slot)
{
	if (!s->cap)
		return 0;
	for (size_t j = rec_tidset_slot(tid, s->cap);; j = (j + 1) & (s->cap - 1)) {
		if (s->v[j] == tid) {
			*slot = j;
			return 1;
		}
		if (!s->v[j])
			return 0;
	}
}

static inline int rec_tgid_traced(struct collector *c, uint32_t tgid)
{
	if (tgid == c->tgid)
		return 1;
	if (!c->multi || !tgid)
		return 0;
	return rec_tgid_traced_multi(c, tgid);
}

/* rec_note_thread for every event: a thread already counted returns here,
 * without a call (up to three per event). */
static inline void rec_note(struct collector *c, uint32_t tid, uint32_t tgid)
{
	if (tid && tid != c->last_tid && !rec_tidset_has(&c->tids, tid))
		rec_note_thread(c, tid, tgid);
}

/* Which traced threads and processes an event shows. */
/* kind: ev->h.kind (a constant where the caller knows it) */
static inline __attribute__((always_inline)) uint32_t rec_note_event_kind(struct collector *c,
									  const struct lt_event *ev,
									  uint8_t kind)
{
	switch (kind) {
	case LT_EV_SWITCH:
		if (rec_tgid_traced(c, ev->sw.prev_tgid))
			rec_note(c, ev->sw.prev_tid, ev->sw.prev_tgid);
		if (rec_tgid_traced(c, ev->sw.next_tgid))
			rec_note(c, ev->sw.next_tid, ev->sw.next_tgid);
		return 0;
	case LT_EV_TASK_NEW:
		if (ev->tnew.tgid != c->tgid)
			rec_get_proc(c, (pid_t)ev->tnew.tgid, c->cg ? LT_PROC_CGROUP : LT_PROC_CHILD, c->multi);
		rec_note_thread(c, ev->h.tid, ev->tnew.tgid);
		return ev->tnew.tgid;
	case LT_EV_WAKING:
		if (rec_tgid_traced(c, ev->wake.waker_tgid))
			rec_note(c, ev->wake.waker_tid, ev->wake.waker_tgid);
		break;
	case LT_EV_LOST:
		return 0;
	default:
		break;
	}
	/* the event's own thread is traced; a thread in the thread set stays
	 * there, so the last one found needs no lookup */
	if (ev->h.tid == c->last_tid && c->last_tg)
		return c->last_tg;
	if (!c->multi) {
		if (c->tgid && ev->h.tid) {
			if (rec_tidset_has(&c->tids, ev->h.tid)) {
				c->last_tid = ev->h.tid;
				c->last_tg = c->tgid;
			} else {
				rec_note_thread(c, ev->h.tid, c->tgid);
			}
		}
		return c->tgid;
	}
	/* several processes: a thread counted already has its tgid in the
	 * thread set (what tid_tgid holds), one lookup for both */
	size_t j;
	if (ev->h.tid && rec_tidset_find(&c->tids, ev->h.tid, &j) && c->tids.tg[j]) {
		c->last_tid = ev->h.tid;
		c->last_tg = c->tids.tg[j];
		return c->tids.tg[j];
	}
	uint32_t tgid = rec_tgid_of_multi(c, ev->h.tid);
	if (tgid)
		rec_note(c, ev->h.tid, tgid);
	return tgid;
}

static inline __attribute__((always_inline)) uint32_t rec_note_event(struct collector *c,
								  const struct lt_event *ev)
{
	return rec_note_event_kind(c, ev, ev->h.kind);
}

/* The traced processes still alive, in a malloc'd array (*n of them). */
pid_t *rec_live_procs(const struct collector *c, size_t *n);
/* The other traced processes into h (already describing the first, c's
 * tgid): their threads (each with its tgid), the process list and the
 * shared mappings (shared: read them; not for a launched program, which
 * has not exec'd yet).  Processes that have gone are skipped. */
void rec_describe_procs(struct lt_header *h, const struct collector *c, int shared, int names_only);

/* record_snap.c */
/* The snapshot job's thread (arg: its struct snap_job). */
void *rec_snap_main(void *arg);
/* Takes a snapshot of the traced processes now and writes it as a
 * SNAPSHOT section into w, with why it was taken (occasion: "end",
 * "stall", "sigusr1").  0 or -errno (a write error). */
int rec_snapshot_into(struct lt_writer *w, const struct collector *c, int quiet,
		      const char *occasion);
/* Writes the snapshot section once the job is done (wait: block for it). */
void rec_snap_collect(struct snap_job *j, struct collector *c, int wait, int quiet);

/* record_flight.c */
/* The ring written as a new trace file (its path in path, and in
 * res->path).  0, or -errno (said) with the ring kept; a failed dump is
 * removed unless final (the last). */
int rec_dump_flight(struct session *s, int reason, int final, char *path, size_t plen);

/* The flight recorder's kernel-side state polled for the stall rule
 * (record_flight.c): loads it into s->stall. */
void rec_fb_poll_stall(struct session *s);
/* Seeds the kernel-side stall state with the threads blocked at attach,
 * as s->stall has them. */
void rec_fb_seed_stall(struct session *s);

/* record_setup.c */
/* The output file (-o, or a default name that moves on to the next free
 * one), res->path its name.  0 or -errno (said in res->err). */
/* The output written as s->out_tmp takes its name (res->path, or the
 * flight recorder's base name): 0, or -1 after saying so (the trace stays
 * under the temporary name, which res->path then is). */
int rec_out_commit(struct session *s);
/* Notes the (device, inode) of the trace now at res->path. */
void rec_out_note(struct session *s);
/* Removes the output file, which holds nothing worth keeping: the
 * temporary one if it never took its name (the file it was to replace
 * stays). */
void rec_out_discard(struct session *s, const char *path);

int rec_open_output(struct session *s);
/* The processes to trace (launched, given with -p, the cgroup's) and the
 * first one's comm.  0 or -1. */
int rec_find_target(struct session *s);
/* --pid-file: our pid, written before attaching so that a bad path fails
 * early; a signal sent as soon as it exists is held until we can take it.
 * 0 or -1. */
int rec_write_pid_file(struct session *s);
/* Removes the pid file if it still holds our pid. */
void rec_remove_pid_file(struct session *s);
/* Where events go once the output file exists: the file, or the flight
 * recorder's ring (the file then stays empty until a dump).  0 or -1. */
int rec_open_sinks(struct session *s);
/* A pidfd to see the process end, the BPF programs, lock naming, loss
 * counters.  0 or -1. */
int rec_attach(struct session *s);
/* The header: the process and its threads at attach.  0 or -1. */
int rec_write_header(struct session *s);

/* record_loop.c */
/* SIGINT, SIGTERM and SIGUSR1 are blocked from the start: one that arrives
 * while we attach (the default actions would end us, leaving a half-made
 * output behind) waits until the handlers exist. */
void rec_hold_signals(sigset_t *old);
/* One ring record holds one event, or (--calls blocking) a call's entry
 * followed by the switch or wake-up it was written with. */
int rec_on_sample(void *ctx, void *data, size_t size);
/* The application-lock witness of the stall rule (record_appwatch.c):
 * 1 with why when a thread has been in an application lock wait for the
 * window. */
int rec_app_stall(struct session *s, uint64_t boot, char *why, size_t len);
/* Before the events-only stall rule fires: judges its unjudged futex
 * waiters idle or not by a look at their processes (record_appwatch.c).
 * 1 when it judged any (check again), 0 when there were none. */
int rec_idle_judge(struct session *s, uint64_t boot);

/* Takes the held signals; lets a launched command run; the stall rule and
 * the snapshot at attach.  -1 when recording must not begin: asked to stop
 * while attaching (said), or the command could not be run (res->err). */
int rec_go(struct session *s);
/* Drains the ring buffer every POLL_MS until a stop condition. */
void rec_run(struct session *s);
/* Detaches and drains what the ring buffer still holds (unless a second
 * interrupt asks to hurry); the snapshots that belong in the trace. */
void rec_drain(struct session *s);

/* record.c */
/* Why nothing could be recorded, into res->err for lt_record's caller to
 * say (lt_record returns -1): -1. */
int rec_fail(struct session *s, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
/* Hands a completed trace to o->on_trace; in the background (a child
 * process, see struct kids) while recording goes on. */
void rec_hand_over(const struct lt_record_opts *o, const char *path, int background,
		   struct kids *k);
/* Waits for the hand-over children that have ended (all of them: BLOCK). */
void rec_reap_kids(struct kids *k, int block);

#endif
