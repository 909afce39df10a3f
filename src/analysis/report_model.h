/* SPDX-License-Identifier: MIT */
/* Internal to the report's model and rules (report.c, report_track.c,
 * report_syms.c, report_find.c, report_end.c, report_rules.c): the
 * per-thread and per-lock state the timeline callbacks keep, and the
 * functions those files share.  Not part of the public API. */
#ifndef LOCKTRACE_REPORT_MODEL_H
#define LOCKTRACE_REPORT_MODEL_H

#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include "report.h"
#include "timeline.h"
#include "report_int.h"
#include "grow.h"
#include "u64map.h"

/* A wake that woke nobody this long before a waiter entered its wait on the
 * same lock counts as "while the waiter was about to sleep": the waiter read
 * the lock's state before the wake and slept on the old news. */
#define WAKE0_WINDOW_NS (10ull * 1000 * 1000)
/* Snapshot facts hold at the end for a thread that made no traced call
 * this long after the snapshot started (reading 1,000 threads takes ~0.2 s). */
#define SNAP_SLACK_NS (250ull * 1000 * 1000)
#define MAX_EDGES 65536
#define MAX_HELD 4
#define MAX_CHAIN 16
#define MAX_WORDS 8
/* A runtime lock's name (a Java class name, 255 bytes at most as the
 * snapshot reads it, and its object's address), and a lock's name for
 * people that holds it whole (rp_gname: its kind, name, symbol and key). */
#define RP_RTNAME_LEN 384
#define RP_GNAME_LEN 768

/* tid / address / pair -> index+1 (0: absent), in the shared u64map: the
 * index is stored as the pointer value.  Key 0 is never stored (u64map's
 * empty slot): a get of it finds nothing, a put of it does nothing. */
static inline uint32_t rp_idx_get(const struct lt_u64map *m, uint64_t k)
{
	return k ? (uint32_t)(uintptr_t)lt_u64map_get(m, k) : 0;
}

static inline int rp_idx_put(struct lt_u64map *m, uint64_t k, uint32_t v)
{
	return k ? lt_u64map_put(m, k, (void *)(uintptr_t)v) : 0;
}


/* -1, 0 or 1 as a is below, equal to or above b (for qsort). */
#define RP_CMP(a, b) (((a) > (b)) - ((a) < (b)))

/* Frees n malloc'd strings and their array. */
static inline void rp_strv_free(char **v, size_t n)
{
	for (size_t i = 0; i < n; i++)
		free(v[i]);
	free(v);
}

/* ---------------------------------------------------------------- model */

enum { TS_UNKNOWN = 0, TS_RUNNING, TS_RUNNABLE, TS_BLOCKED, TS_EXITED };
enum { CL_NONE = 0, CL_FUTEX, CL_POLL, CL_IO, CL_PIPE, CL_FLOCK };
enum { REL_NONE = 0, REL_WAIT, REL_WAKE, REL_EXIT };
#define MAX_TAKES 4
enum { OFF_PREEMPTED = 1, OFF_BLOCKED };

struct rthread {
	struct lt_report_thread pub;
	uint32_t idx, uid;
	int state;
	uint64_t since;         /* accounted up to */
	uint64_t state_ts;      /* when it entered state */
	int cls;                /* class of the open call */
	int in_call;
	struct lt_report_call open;
	uint32_t open_group;    /* group+1 of an open lock wait */
	uint64_t slept_at;      /* first switch-out asleep in the open call */
	uint32_t w0_tid;        /* a wake that woke nobody near the entry */
	uint64_t w0_ts;
	uint32_t end_group;     /* group+1 of the lock wait open at the end */
	int join_wait;          /* that wait is pthread_join's */
	int rt_note;            /* that wait is on a runtime's own sleep word (a Go
	                           M's note, rt_go.c): no lock's */
	int idle_cond;          /* that wait is an idle pool's: parked on a condition
	                           variable with no signal pending, nothing handed
	                           through it, nobody holding it (report_end.c) */
	int java_sleep;         /* that wait is Java's Thread.sleep() on a word of
	                           the thread's own (the snapshot's java_sleep):
	                           a timed sleep, no lock's */
	uint64_t last_call_ts;  /* last traced call began or ended */
	uint64_t last_other_ts; /* last call other than a futex call began */
	struct lt_report_call *ring;
	unsigned ring_n, ring_pos;
	uint32_t held[MAX_HELD];/* group+1 this thread holds by the event rule */
	/* off the cpu while holding a lock others wait for */
	uint32_t off_group;
	uint64_t off_ts;
	uint32_t off_waiters;
	int off_kind;
	struct lt_report_call off_call;
	int off_in_call;
	const struct rp_snap_thread *snap; /* valid at the end, or NULL */
	uint8_t other_proc;     /* of a process other than the trace's pid */
	/* lock calls that do not wait (F_SETLK, F_OFD_SETLK, flock LOCK_NB)
	 * refused (EAGAIN, EACCES) again and again for one request, with no
	 * grant of it since the first: a lock waited for by polling
	 * (report_track.c, polled_attempt) */
	uint64_t polled_n, polled_first;
	struct lt_report_call polled_last;
};

struct rgroup {
	struct lt_report_lock pub;
	uint32_t idx;
	uint32_t *hist;
	uint64_t min_ns;
	uint32_t cur_waiters;
	/* holder by the event rule */
	uint32_t holder;        /* thread idx+1 */
	uint64_t acq_ts;
	uint32_t acq_waker;
	uint32_t last_holder;   /* thread idx+1: the current or the last one */
	uint64_t last_acq, rel_ts;
	uint32_t last_acq_waker;
	int rel_kind;
	int64_t rel_woken;
	/* the takes since the last release, oldest first, the holder's last:
	 * a take found false (report_track.c, untake) gives the lock back to
	 * the one before it */
	struct rtake { uint32_t th; uint32_t waker; uint64_t ts; } takes[MAX_TAKES];
	uint32_t ntakes;
	/* the last take undone since the last one that stood: whose, when its
	 * wait returned, when it waited again (the holder's evidence says it);
	 * with no holder, none before it stood: the holder is in doubt */
	uint32_t undo_tid;
	uint64_t undo_ret_ts, undo_rewait_ts;
	/* hand-off chain */
	uint32_t chain_wakee, chain_len;
	uint64_t chain_start;
	/* the last wake that woke nobody */
	uint64_t wake0_ts;
	uint32_t wake0_tid;
	/* worst off-cpu incident of a holder */
	uint64_t off_ts;
	uint32_t off_tid, off_waiters;
	int off_kind;
	struct lt_report_call off_call;
	int off_in_call;
	/* how its waits look: what kind of lock it is */
	uint64_t n_mutex, n_cond, n_pi, n_join, n_other;
	uint8_t cond_words;     /* bit i: pub.words[i] had a condvar-shaped
				   wait (both g_signals words of a glibc
				   condvar are waited on as its groups
				   rotate; a sem_t has one futex word) */
	/* at the end */
	uint32_t n_end, n_end_asleep;
	uint32_t n_idle_cond;   /* threads parked on it as an idle pool (idle_cond) */
	uint64_t end_oldest;    /* since of the longest end waiter */
	uint32_t end_holder;    /* thread idx+1 */
	int end_holder_src;     /* 1 snapshot owner, 2 events, 3 inferred */
	/* the snapshot's lock models: a runtime lock's kind and name */
	char rt_kind[48], rt_name[RP_RTNAME_LEN];
	/* one of that runtime lock's own internal futex words (its mutex,
	 * a second condvar): the group of the runtime lock it belongs to,
	 * whose finding speaks for it (report_fold.c) */
	const struct rgroup *folded_into;
	/* an object whose waiters each sleep on a word of their own (a
	 * threading.Condition's waiter locks, a Java monitor's or
	 * java.util.concurrent lock's ParkEvents and Parkers), one group each:
	 * the first group of an object (the snapshot's lock_kind and lock_base)
	 * speaks for all of them (cond_obj, cond_n_end: its waiters at the
	 * end), the others point to it (cond_into) */
	const struct rgroup *cond_into;
	uint64_t cond_obj;
	uint32_t cond_n_end;
	char infer_func[64];    /* the waiters' function the inferred holder runs */
	char keytext[56];       /* its lock key for people: "0x..." (lockid.h) */
	int in_cycle;
	int has_finding;
	int lost_release; /* a released_without_wake finding is about it */
	/* the threads whose end group it is, in thread order (built once the
	 * trace is read: the rules walk these, not every thread per lock) */
	struct rthread **mem;
	uint32_t n_mem, n_mem_alive;
};

struct redge {
	struct lt_report_edge pub;
};

struct sym {
	uint64_t addr;
	char *text;
};

struct lt_report_priv {
	struct lt_timeline *tl;
	uint32_t pid;
	uint64_t mono_to_boot; /* boottime - monotonic at attach */
	char exe_base[512];
	struct rthread **th;
	size_t nth, capth;
	struct lt_u64map tmap; /* tid -> current instance idx+1 */
	struct rgroup **gr;
	size_t ngr, capgr;
	uint32_t n_alive;      /* threads not exited at the end */
	struct fent *fidx;     /* infer_holder's index (fidx_build) */
	size_t nfidx;
	int fidx_built;
	struct lt_u64map amap; /* futex address -> group idx+1 */
	struct lt_u64map seen; /* distinct waiter / waker per group */
	struct redge *ed;
	size_t ned, caped;
	struct lt_u64map emap; /* waker<<32|wakee -> edge idx+1 */
	struct lt_report_loss *loss;
	size_t nloss, caploss;
	/* progress: the last successful hand-off or blocking call */
	uint64_t prog_ts;
	uint32_t prog_tid, prog_other;
	struct lt_report_call prog_call;
	int prog_kind; /* 1 hand-off (prog_other woken), 2 call returned */
	/* snapshots */
	struct rp_snapshot snap;
	int have_snap;
	/* the tids the snapshot's stuck verdicts name (stuck_tid), built
	 * at its first use */
	struct lt_u64map stuck_tids;
	int stuck_built;
	struct lt_u64map rtnames; /* tid -> the runtime's thread name (char *) */
	struct sym *syms;
	size_t nsyms, capsyms;
	struct lt_u64map smap; /* futex address -> syms idx+1 */
	struct sspan *span;    /* the named objects by start (span_build) */
	uint64_t *span_max;    /* max-tree of their ends, span_m leaves */
	size_t nspan, span_m;
	int span_ok;           /* built for the current syms */
	uint64_t stats_end;
	int oom, finished;
};

#define P(r) ((r)->priv)

/* ---- tracking (report_track.c) ------------------------------------------- */

uint64_t rp_hquantile(const uint32_t *h, uint64_t n, double q, uint64_t lo, uint64_t hi);
struct rthread *rp_thread_of(struct lt_report *r, uint32_t tid);
struct rgroup *rp_group_of(struct lt_report *r, uint64_t addr, int create);
void rp_acct(struct rthread *t, uint64_t ts);
void rp_count_kind(struct lt_report *r, struct rgroup *g, struct rthread *t, const struct lt_futex_enter *fe,
		   uint64_t key);
const char *rp_group_kind(const struct rgroup *g);
void rp_on_lost(void *ctx, const struct lt_event *ev);
/* The k-th oldest of the last calls t keeps (k < t->ring_n). */
const struct lt_report_call *rp_ring_call(const struct lt_report *r, const struct rthread *t, unsigned k);
/* The timeline sink that feeds the model. */
struct lt_timeline_sink rp_track_sink(struct lt_report *r);

/* ---- lock names (report_syms.c) ------------------------------------------ */

void rp_add_sym(struct lt_report_priv *p, uint64_t addr, const char *text);
int rp_parse_sym(const struct lt_report_priv *p, const char *s, char *name, size_t nlen,
		 uint64_t *off);
void rp_group_symbol(struct lt_report *r, struct rgroup *g);
/* Frees the names and the spans built from them. */
void rp_syms_free(struct lt_report_priv *p);

/* ---- findings (report_find.c) -------------------------------------------- */

void rp_vec_addv(char ***v, size_t *n, const char *fmt, va_list ap);
struct lt_report_finding *rp_finding_new(struct lt_report *r, enum lt_finding_kind kind,
					 const char *rule);
void rp_f_summary(struct lt_report_finding *f, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
void rp_f_ev(struct lt_report_finding *f, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
void rp_f_tid(struct lt_report_finding *f, uint32_t tid);
void rp_f_lock(struct lt_report_finding *f, uint64_t addr, int dedup);
void rp_f_group(struct lt_report_finding *f, const struct rgroup *g);
const char *rp_gname(const struct rgroup *g, char *buf, size_t len);
/* Ends a text cut to fit buf (len bytes) with a visible "...", on a UTF-8
 * character's boundary. */
void rp_ellipsis(char *buf, size_t len);
void rp_related_ev(struct lt_report *r, struct lt_report_finding *f, const struct rgroup *g);
const char *rp_tname(const struct rthread *t, char *buf, size_t len);
uint64_t rp_end_since(const struct rthread *t);
uint64_t rp_dur_to_end(const struct lt_report *r, uint64_t since);
void rp_doing(struct lt_report *r, const struct rthread *t, char *buf, size_t len);
int rp_is_lock_waiter(const struct rthread *t);
int rp_holder_evidenced(const struct rgroup *g);
int rp_python_lock(const struct rp_snap_thread *t);
const char *rp_holder_how(struct lt_report *r, const struct rgroup *g, char *buf, size_t len);
void rp_tid_list(struct lt_report *r, struct rgroup *g, char *buf, size_t len, unsigned max);
void rp_last_calls_ev(struct lt_report *r, struct lt_report_finding *f, const struct rthread *t,
		      uint64_t after, const char *label);
void rp_snap_ev(struct lt_report *r, struct lt_report_finding *f, const struct rthread *t);
void rp_python_lock_ev(struct lt_report *r, struct lt_report_finding *f, const struct rgroup *g);
void rp_others_ev(struct lt_report *r, struct lt_report_finding *f, const struct rgroup *g);

/* ---- the end (report_end.c) ---------------------------------------------- */

void rp_infer_holder(struct lt_report *r, struct rgroup *g);
/* Closes the books at the end of the trace: each thread's time up to the
 * end and its state there, each lock's summary and its waiters and holder
 * at the end.  0 or -ENOMEM. */
int rp_end_of_trace(struct lt_report *r);

/* ---- rules (report_rules.c) ---------------------------------------------- */

/* Every rule, most specific first: a lock gets one finding about its
 * waiters at the end. */
void rp_run_rules(struct lt_report *r);
/* Marks the groups that are a runtime lock's internal words (folded_into). */
void rp_fold_rtlock_words(struct lt_report *r);
void rp_fold_conditions(struct lt_report *r);
/* A wait for a notify() that only the holder of the object's lock can send
 * (Python's Condition.wait(), Java's Object.wait() and Condition.await()),
 * by the snapshot's lock_kind of g's waiters: its words; NULL if g is none. */
struct rp_notify {
	const char *kind, *wait_call, *wake_call, *holder_of;
};
const struct rp_notify *rp_notify_of(const struct rgroup *g, uint64_t *obj);
/* g's Condition, when it speaks for one: "N more threads ..." evidence and
 * their threads and locks on f */
void rp_cond_fold_ev(struct lt_report *r, struct lt_report_finding *f, const struct rgroup *g);

#endif
