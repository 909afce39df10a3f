/* Verdicts on a snapshot's thread table, each with its evidence.
 *
 * Pure functions of the table (no /proc access), so every rule is tested on
 * synthetic tables.  Rules:
 *   deadlock     a cycle in the wait-for graph thread -> lock -> owner -> ...
 *                (edges: futex waits whose owner is recorded: pthread mutex
 *                __owner, PI/robust futex word, pthread_join target)
 *   lost wake-up a thread asleep in FUTEX_WAIT/WAIT_BITSET longer than the
 *                threshold although the word no longer holds the value it
 *                went to sleep on (a wake-up would have ended the wait)
 *   convoy       >= N threads waiting on one lock; the owner and what it does
 *   idle         every thread waits for I/O, timers or children, no lock
 *   ok           nothing suspicious
 * Cost: O(n log n) in the number of threads.
 */
#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "golang.h"
#include "lockmodel.h"
#include "rt_idle.h"
#include "rtthread.h"
#include "snapshot.h"
#include "snapshot_int.h"
#include "waitfor_int.h"
#include "appwait_int.h"
#include "fgraph.h"

#define FX_WAIT 0
#define FX_WAIT_BITSET 9

/* Asleep in a system call, and confirmed stable if it was re-checked. */
static bool asleep(const struct lt_thread *t)
{
	return t->state != 'R' && t->sc.state == LT_SC_IN_SYSCALL && !t->moved;
}

/* A wait the runtime itself vouches for: a lock whose model names its
 * waiters by tid, and the holder it names (lockmodel.h, waiters_named). */
static bool runtime_says(const struct lt_snapshot *s, const struct lt_thread *t)
{
	const struct lt_futex *f = &t->futex;
	return f->rtlock && f->rtlock <= s->n_rtlocks && s->rtlocks[f->rtlock - 1].waiters_named &&
	       f->owner_kind == LT_OWNER_RUNTIME;
}

static bool has_owner(const struct lt_futex *f)
{
	return f->owner_kind == LT_OWNER_MUTEX || f->owner_kind == LT_OWNER_PI ||
	       f->owner_kind == LT_OWNER_ROBUST || f->owner_kind == LT_OWNER_JOIN ||
	       f->owner_kind == LT_OWNER_RUNTIME || f->owner_kind == LT_OWNER_RWLOCK ||
	       f->owner_kind == LT_OWNER_INFERRED || f->owner_kind == LT_OWNER_COND;
}

static const char *owner_how(enum lt_owner_kind k)
{
	switch (k) {
	case LT_OWNER_MUTEX: return "pthread mutex __owner";
	case LT_OWNER_PI: return "PI futex word";
	case LT_OWNER_ROBUST: return "robust mutex word";
	case LT_OWNER_JOIN: return "pthread_join on its tid";
	case LT_OWNER_RWLOCK: return "rwlock __cur_writer";
	case LT_OWNER_RUNTIME: return "runtime's own state";
	case LT_OWNER_INFERRED: return "inferred from its frames, not recorded by the lock";
	case LT_OWNER_COND: return "the Condition's RLock's recorded owner";
	default: return "?";
	}
}

static const char *owner_source(const struct lt_futex *f)
{
	if (f->sem_owner)
		return "read from memory: the holding process's _multiprocessing.SemLock (its count and last_tid)";
	switch (f->owner_kind) {
	case LT_OWNER_MUTEX: return "pthread mutex __owner";
	case LT_OWNER_PI: return "PI futex word";
	case LT_OWNER_ROBUST: return "robust mutex word";
	case LT_OWNER_RWLOCK: return "rwlock __cur_writer";
	case LT_OWNER_RUNTIME: return "the runtime's own state";
	case LT_OWNER_INFERRED: return "inferred from the threads' frames (the lock records no holder)";
	case LT_OWNER_COND: return "the Condition's lock (an RLock: its recorded owner)";
	default: return NULL;
	}
}

/* Running, runnable, or moved during the snapshot (its state changed
 * between two reads): not asleep where it was seen. */
static bool busy(const struct lt_thread *t)
{
	return t->state == 'R' || t->sc.state == LT_SC_RUNNING || t->moved;
}

/* A wait for a notify() that only the holder of the object's lock can send
 * (a Python Condition's waiter: LT_OWNER_COND; a runtime's Object.wait()
 * or await(): lt_rtlock.wait_call), held by F's owner: its words. */
struct notify_words {
	const char *wait_call, *wake_call, *held_what;
	char name[200];
};

static bool notify_words(const struct lt_snapshot *s, const struct lt_futex *f, struct notify_words *w)
{
	if (f->owner_kind == LT_OWNER_COND) {
		*w = (struct notify_words){ "Condition.wait()", "notify()", "lock", "" };
		snprintf(w->name, sizeof(w->name), "the threading.Condition at 0x%" PRIx64, f->lock_base);
		return true;
	}
	const struct lt_rtlock *l = f->rtlock && f->rtlock <= s->n_rtlocks ? &s->rtlocks[f->rtlock - 1] : NULL;
	if (!l || !l->wait_call || !l->wake_call || l->holder != f->owner)
		return false;
	*w = (struct notify_words){ l->wait_call, l->wake_call, l->held_what ? l->held_what : "lock", "" };
	snprintf(w->name, sizeof(w->name), "%s", l->name ? l->name : "?");
	return true;
}

/* A wait for another thread to finish something (a FutureTask's runner,
 * a joined thread: a lock of a lt_done_kind_of kind), held by F's owner:
 * the lock, and its kind in *K. */
static const struct lt_rtlock *done_lock_k(const struct lt_snapshot *s, const struct lt_futex *f,
					   const struct lt_done_kind **k)
{
	const struct lt_rtlock *l = f->rtlock && f->rtlock <= s->n_rtlocks ? &s->rtlocks[f->rtlock - 1] : NULL;
	const struct lt_done_kind *dk = l ? lt_done_kind_of(l->kind) : NULL;
	if (k)
		*k = dk;
	return dk && l->wait_call && f->owner && l->holder == f->owner ? l : NULL;
}

static const struct lt_rtlock *done_lock(const struct lt_snapshot *s, const struct lt_futex *f)
{
	return done_lock_k(s, f, NULL);
}

/* ---- runtime frames ---- */

/* "side (/app/worker.py:107)": a runtime frame, for evidence lines. */
static char *rt_where(const struct lt_rtframe *r)
{
	if (r->line > 0)
		return lts_asprintf("%s (%s:%d)", r->func ? r->func : "?", r->file ? r->file : "?", r->line);
	return lts_asprintf("%s (%s)", r->func ? r->func : "?", r->file ? r->file : "?");
}

/* "thread 812 (worker-3) waits in python at side (/app/worker.py:107)" */
static void rt_waits_at(struct lt_verdict *v, const struct lt_thread *t)
{
	if (!t->n_rt_frames)
		return;
	char *w = rt_where(&t->rt_frames[0]);
	lt_strlist_add(&v->evidence, "thread %d (%s) waits in %s at %s", (int)t->tid, lt_thread_name(t),
		       t->rt_lang, w ? w : "?");
	free(w);
}

/* WHO's innermost MAX runtime frames: "owner 812 python frame #0: ..." */
static void rt_frames_evidence(struct lt_verdict *v, const struct lt_thread *t, const char *who,
			       size_t max)
{
	for (size_t k = 0; k < t->n_rt_frames && k < max; k++) {
		char *w = rt_where(&t->rt_frames[k]);
		lt_strlist_add(&v->evidence, "%s %d %s frame #%zu: %s", who, (int)t->tid, t->rt_lang, k,
			       w ? w : "?");
		free(w);
	}
}

/* ---- deadlock ---- */

static long idx_of(const struct lt_snapshot *s, pid_t tid)
{
	const struct lt_thread *t = lt_snapshot_find(s, tid);
	return t ? (long)(t - s->threads) : -1;
}

static char *lock_phrase(const struct lt_snapshot *s, const struct lt_futex *f);

/* An edge through a runtime lock: the lock in the runtime's terms (a Java
 * monitor and its object's class), the futex the thread sleeps on, and
 * how the runtime's state names the holder. */
static void runtime_edge(struct lt_verdict *v, const struct lt_snapshot *s, const struct lt_thread *t,
			 const struct lt_thread *o, const char *op, const char *dur)
{
	const struct lt_futex *f = &t->futex;
	const struct lt_rtlock *l = &s->rtlocks[f->rtlock - 1];
	char lb[160];
	char *lp = lock_phrase(s, f);
	lt_strlist_add(&v->evidence,
		       "thread %d (%s) waits for %s [sleeps on %s, %s, word=%u] held by thread %d (%s) "
		       "[%s%s%s], for %s%s", (int)t->tid, lt_thread_name(t), lp ? lp : "?",
		       lts_lock_label(f, lb, sizeof(lb)), op, f->word, (int)f->owner, o ? lt_thread_name(o) : "?",
		       owner_how(f->owner_kind), l->holder_how ? ": " : "", l->holder_how ? l->holder_how : "",
		       dur, f->timeout_ptr ? " in its current park (it parks on a timer and again: the whole "
					     "wait may be longer)" : "");
	free(lp);
}

static void edge_evidence(struct lt_verdict *v, const struct lt_snapshot *s, const struct lt_thread *t)
{
	const struct lt_futex *f = &t->futex;
	const struct lt_thread *o = lt_snapshot_find(s, f->owner);
	struct notify_words nw;
	char lb[160], op[96], dur[32];
	lt_futex_op_str(f->op, op, sizeof(op));
	if (f->cmd < 0)
		snprintf(op, sizeof(op), "futex_wait");
	lts_fmt_duration(t->idle_src == LT_IDLE_UNKNOWN ? -1 : t->idle_s, dur, sizeof(dur));
	const struct lt_done_kind *jk = f->owner_kind == LT_OWNER_JOIN ? lt_done_kind_of(f->lock_kind) : NULL;
	if (jk && strcmp(jk->kind, LT_KIND_PTHREAD_JOIN))
		/* a runtime's join that sleeps on a lock of its own (Python's
		 * Thread.join on the joined thread's _tstate_lock), not on
		 * the joined thread's tid as glibc's does */
		lt_strlist_add(&v->evidence, "thread %d (%s) waits in %s for thread %d (%s) to exit [sleeps on %s: "
			       "%s], for %s", (int)t->tid, lt_thread_name(t), jk->wait_call, (int)f->owner,
			       o ? lt_thread_name(o) : "?", lts_lock_label(f, lb, sizeof(lb)), f->lock_kind, dur);
	else if (f->owner_kind == LT_OWNER_JOIN)
		lt_strlist_add(&v->evidence,
			       "thread %d (%s) is joining thread %d (%s): sleeps on its tid field %s, for %s",
			       (int)t->tid, lt_thread_name(t), (int)f->owner, o ? lt_thread_name(o) : "?",
			       lts_lock_label(f, lb, sizeof(lb)), dur);
	else if (done_lock(s, f)) {
		const struct lt_done_kind *dk;
		const struct lt_rtlock *l = done_lock_k(s, f, &dk);
		char what[300];
		if (dk->exit)
			snprintf(what, sizeof(what), "for thread %d (%s) to exit", (int)f->owner,
				 o ? lt_thread_name(o) : "?");
		else
			snprintf(what, sizeof(what), "for %s, %s thread %d (%s)", l->name ? l->name : "?",
				 dk->run_by, (int)f->owner, o ? lt_thread_name(o) : "?");
		lt_strlist_add(&v->evidence, "thread %d (%s) waits in %s %s [sleeps on %s, %s, word=%u] [%s%s%s], "
			       "for %s", (int)t->tid, lt_thread_name(t), l->wait_call, what,
			       lts_lock_label(f, lb, sizeof(lb)), op, f->word, owner_how(f->owner_kind),
			       l->holder_how ? ": " : "", l->holder_how ? l->holder_how : "", dur);
		if (dk->inferred && dk->every)
			lt_strlist_add(&v->evidence, "inferred: that the wait of thread %d cannot end before thread "
				       "%d ends its task (%s ends when %s; nothing shows that no other thread will end "
				       "it: %s would)", (int)t->tid, (int)f->owner, l->wait_call, dk->done_what, dk->els);
		else if (dk->inferred)
			lt_strlist_add(&v->evidence, "inferred: that only thread %d can end the wait of thread %d "
				       "(%s ends when %s; nothing shows that no other thread will end it: %s would)",
				       (int)f->owner, (int)t->tid, l->wait_call, dk->done_what, dk->els);
	} else if (notify_words(s, f, &nw)) {
		/* Python's waiter sleeps on a waiter lock of its own; a runtime
		 * says how it found the holder */
		const struct lt_rtlock *l = f->rtlock ? &s->rtlocks[f->rtlock - 1] : NULL;
		char sleeps[300];
		if (l)
			snprintf(sleeps, sizeof(sleeps), "%s, %s, word=%u", lts_lock_label(f, lb, sizeof(lb)), op,
				 f->word);
		else
			snprintf(sleeps, sizeof(sleeps), "its waiter lock %s", lts_lock_label(f, lb, sizeof(lb)));
		lt_strlist_add(&v->evidence,
			       "thread %d (%s) waits in %s on %s [sleeps on %s], whose %s thread %d (%s) holds "
			       "[%s%s%s]: no %s but from it, for %s", (int)t->tid, lt_thread_name(t), nw.wait_call,
			       nw.name, sleeps, nw.held_what, (int)f->owner, o ? lt_thread_name(o) : "?",
			       owner_how(f->owner_kind), l && l->holder_how ? ": " : "",
			       l && l->holder_how ? l->holder_how : "", nw.wake_call, dur);
	} else if (f->rtlock && f->rtlock <= s->n_rtlocks)
		runtime_edge(v, s, t, o, op, dur);
	else if (f->lock_kind && f->lock_base && f->lock_base != f->uaddr) {
		/* an object whose waiters sleep on another word (a Python
		 * Lock's semaphore): named as the object, as everywhere */
		char *lp = lock_phrase(s, f);
		lt_strlist_add(&v->evidence,
			       "thread %d (%s) waits for %s [%s, word=%u] %s by thread %d (%s) [%s], for %s",
			       (int)t->tid, lt_thread_name(t), lp ? lp : "?", op, f->word,
			       f->owner_kind == LT_OWNER_INFERRED ? "probably held" : "held", (int)f->owner,
			       o ? lt_thread_name(o) : "?", owner_how(f->owner_kind), dur);
		free(lp);
	} else
		/* the lock by what its model calls it (an OCaml "Stdlib Mutex"),
		 * "lock" where none did */
		lt_strlist_add(&v->evidence,
			       "thread %d (%s) waits for %s %s [%s, word=%u] held by thread %d (%s) [%s], for %s",
			       (int)t->tid, lt_thread_name(t), f->lock_kind ? f->lock_kind : "lock",
			       lts_lock_label(f, lb, sizeof(lb)), op, f->word,
			       (int)f->owner, o ? lt_thread_name(o) : "?", owner_how(f->owner_kind), dur);
	if (f->owner_kind == LT_OWNER_INFERRED)
		lt_strlist_add(&v->evidence, "inferred: thread %d %s", (int)f->owner,
			       f->owner_how ? f->owner_how : "keeps it in its frames");
}

/* How many processes a cycle's threads belong to (waitfor.h knows each
 * thread's process); 1 when that is not known. */
static size_t cycle_procs(const struct lt_snapshot *s, const struct lt_verdict *v)
{
	pid_t seen[16];
	size_t n = 0;
	for (size_t m = 0; m < v->n_tids; m++) {
		const struct lt_thread *t = lt_snapshot_find(s, v->tids[m]);
		if (!t || !t->wf)
			return 1;
		bool dup = false;
		for (size_t k = 0; k < n; k++)
			dup |= seen[k] == t->wf->pid;
		if (!dup && n < 16)
			seen[n++] = t->wf->pid;
	}
	return n ? n : 1;
}

/* A timed futex wait of a runtime's lock acquire that only polls (S's
 * lock models name the lock it waits for): it
 * waits again when the timeout ends, whatever happens (CPython's take_gil
 * waits in steps of the switch interval to ask the holder to drop the GIL;
 * HotSpot's thread responsible for a contended monitor parks in timed
 * steps, ObjectMonitor::EnterI, and so does re-entering one after a
 * wait(), ReenterI). */
static bool retries_on_timeout(const struct lt_snapshot *s, const struct lt_thread *t)
{
	if (t->acquire && !strcmp(t->acquire, "take_gil"))
		return true;
	/* the lock models' runtime locks that only poll (not a
	 * java.util.concurrent lock: its tryLock(timeout) gives up) */
	const struct lt_rtlock *l = t->futex.rtlock && t->futex.rtlock <= s->n_rtlocks
					    ? &s->rtlocks[t->futex.rtlock - 1] : NULL;
	if (l && l->kind && (!strcmp(l->kind, "GIL") || !strcmp(l->kind, "Java monitor") ||
			     !strcmp(l->kind, "OCaml runtime lock")))
		return true;
	for (size_t i = 0; i < t->n_frames; i++) {
		const char *fn = t->frames[i].func;
		if (fn && (strstr(fn, "take_gil") || strstr(fn, "ObjectMonitor6EnterI") ||
			   strstr(fn, "ObjectMonitor8ReenterI") || strstr(fn, "ObjectMonitor::EnterI") ||
			   strstr(fn, "ObjectMonitor::ReenterI")))
			return true;
	}
	return false;
}

/* T's wait edge with a timeout its application keeps (a PostgreSQL
 * backend's idle_in_transaction_session_timeout, lock_timeout: waitfor.h):
 * KNOWN, one read (timeout_s > 0); else one that could not be read. */
static const struct lt_wf_edge *app_timeout(const struct lt_thread *t, bool known)
{
	for (size_t k = 0; t->wf && k < t->wf->n_edges; k++) {
		const struct lt_wf_edge *e = &t->wf->edges[k];
		if (e->timeout_what[0] && (known ? e->timeout_s > 0 : e->timeout_s < 0))
			return e;
	}
	return NULL;
}

/* Whether thread T's wait has a timeout, so that it ends by itself: a
 * futex wait given one (pthread_mutex_timedlock, a Java tryLock's or a
 * Python acquire(timeout=)'s timed park), a poll, select or epoll wait
 * given one, a socket's SO_RCVTIMEO, or an application's own timeout on
 * its edge (app_timeout).  *LEFT_S: about how long from the snapshot until it times
 * out, < 0 not known (the timeout unreadable; a relative one counted
 * from when the thread last ran). */
bool lts_wait_timed(const struct lt_snapshot *s, const struct lt_thread *t, double *left_s)
{
	*left_s = -1;
	double to = -1;
	bool abs_rt = false, abs_mono = false;
	const struct lt_wf_edge *ae = app_timeout(t, true);
	if (ae) { /* its own timer, of which the edge says how much is left */
		*left_s = ae->timeout_left_s;
		return true;
	}
	if (t->wait == LT_WAIT_FUTEX) {
		const struct lt_futex *f = &t->futex;
		if (!f->is_wait || !f->timeout_ptr || retries_on_timeout(s, t))
			return false;
		if (f->timeout_ok) {
			to = (double)f->timeout_sec + (double)f->timeout_nsec / 1e9;
			abs_rt = f->timeout_abs && f->clock_realtime;
			abs_mono = f->timeout_abs && !f->clock_realtime;
		}
	} else if (t->wait == LT_WAIT_POLL) {
		if (!t->fdw.has_timeout)
			return false;
		if (t->fdw.timeout_ms >= 0)
			to = (double)t->fdw.timeout_ms / 1e3;
	} else if (t->wait == LT_WAIT_IO && t->fdw.sock_timeo == LT_SOCK_TIMEO_SET) {
		/* a socket's SO_RCVTIMEO / SO_SNDTIMEO counts from the call's
		 * start, which is at most when the thread last ran */
		if (t->fdw.sock_timeo_ms >= 0)
			to = (double)t->fdw.sock_timeo_ms / 1e3;
	} else
		return false;
	if (to < 0)
		return true;
	if (abs_rt && s->taken_realtime_ns)
		*left_s = to - (double)s->taken_realtime_ns / 1e9;
	else if (abs_mono && s->taken_monotonic_ns)
		*left_s = to - (double)s->taken_monotonic_ns / 1e9;
	else if (!abs_rt && !abs_mono && t->idle_src != LT_IDLE_UNKNOWN)
		*left_s = to - t->idle_s;
	if (*left_s < 0 && (abs_rt || abs_mono || t->idle_src != LT_IDLE_UNKNOWN))
		*left_s = 0;
	return true;
}

/* How a timed wait of T ends, for a verdict's words ("in about 4.0 s"):
 * a socket's timeout counts from the read's start, which the snapshot
 * does not know: at most the timeout from now, less the time the thread
 * has not run if the read began when it last ran. */
static void timed_when(const struct lt_thread *t, double left, char *buf, size_t len)
{
	const struct lt_wf_edge *ae = app_timeout(t, true);
	if (ae) {
		const char *ends = strstr(ae->timeout_what, "idle") ? "the server ends the session"
				   : !strncmp(ae->timeout_what, "Popen.communicate", 17)
				   ? "Popen.communicate raises TimeoutExpired"
				   : !strncmp(ae->timeout_what, "Popen", 5) ? "Popen.wait raises TimeoutExpired"
				   : !strncmp(ae->timeout_what, "timeout(1)", 10) ? "timeout(1) signals its child"
				   : !strncmp(ae->timeout_what, "flock(1)", 8) ? "its timer interrupts flock(1)'s flock(), "
										 "which then gives up"
				   : "the server cancels the statement";
		if (left >= 0)
			snprintf(buf, len, "%s %.1f s: %s within %.1f s", ae->timeout_what, ae->timeout_s, ends, left);
		else
			snprintf(buf, len, "%s %.1f s: %s within %.1f s at most (the timeout's value: when it began is "
				 "not known)", ae->timeout_what, ae->timeout_s, ends, ae->timeout_s);
		return;
	}
	if (t->wait == LT_WAIT_IO && t->fdw.sock_timeo == LT_SOCK_TIMEO_SET) {
		const char *opt = t->sc.nr == 1 || t->sc.nr == 20 || t->sc.nr == 44 || t->sc.nr == 46 ||
				  t->sc.nr == 307 ? "SO_SNDTIMEO" : "SO_RCVTIMEO";
		if (t->fdw.sock_timeo_ms < 0)
			snprintf(buf, len, "%s on its socket, of a length not known (the kernel's HZ unread)", opt);
		else if (left >= 0)
			snprintf(buf, len, "%s %.1f s on its socket: within %.1f s, about %.1f s from now if the call "
				 "began when the thread last ran", opt, (double)t->fdw.sock_timeo_ms / 1e3,
				 (double)t->fdw.sock_timeo_ms / 1e3, left);
		else
			snprintf(buf, len, "%s %.1f s on its socket: within %.1f s", opt,
				 (double)t->fdw.sock_timeo_ms / 1e3, (double)t->fdw.sock_timeo_ms / 1e3);
		return;
	}
	if (left >= 0)
		snprintf(buf, len, "in about %.1f s", left);
	else
		snprintf(buf, len, "when is not known");
}

/* A blocking socket read or write whose timeout could not be read. */
static bool sock_timeo_unknown(const struct lt_thread *t)
{
	return t->wait == LT_WAIT_IO && t->fdw.sock_timeo == LT_SOCK_TIMEO_UNKNOWN;
}

/* One cycle of the wait-for graph (fgraph.h): its verdict's index, or -1
 * when it is not sound (through a process only some of whose threads are
 * in it: another of them could end the wait). */
/* Links of the wait-for graph that are inferred, not read (the second
 * search, find_inferred_cycles): a wait into a process any of whose
 * threads could end it (a socket's peer, a pipe's other end) taken to go
 * to the one of them whose own chain leads back; a condition variable's
 * (or semaphore's) waiter, which records no one to wake it, taken to wait
 * for the thread of its process whose chain leads back to it. */
enum { INF_NONE = 0, INF_ANSWER, INF_SIGNAL };

struct inf_links {
	unsigned char *kind; /* per thread index: how its link was inferred */
	pid_t *proc;         /* the process that link goes into */
};

struct dl_ctx {
	struct lt_snapshot *s;
	const long *next;
	const struct inf_links *inf; /* NULL: the search of read links only */
};

static bool strong_link(const struct lt_thread *t);
static bool inferred_sound(const struct lt_snapshot *s, const long *cyc, size_t nc, long node,
			   const struct inf_links *inf);
static void inferred_evidence(struct lt_verdict *v, const struct lt_snapshot *s, const long *next,
			      const long *cyc, size_t nc, long node, const struct inf_links *inf);
static void signal_edge_evidence(struct lt_verdict *v, const struct lt_snapshot *s, const struct lt_thread *t,
				 const struct lt_thread *o);

static long deadlock_verdict(const long *cyc, size_t nc, void *arg)
{
	struct dl_ctx *c = arg;
	struct lt_snapshot *s = c->s;
	size_t n_inf = 0;
	bool inf_answer = false, inf_signal = false;
	if (c->inf) {
		/* the second search: only cycles with an inferred link (the
		 * others were judged by the first), each link sound */
		for (size_t q = 0; q < nc; q++) {
			unsigned char k = c->inf->kind[cyc[q]];
			n_inf += k != INF_NONE;
			inf_answer |= k == INF_ANSWER;
			inf_signal |= k == INF_SIGNAL;
		}
		bool strong = false;
		for (size_t q = 0; q < nc; q++)
			strong |= strong_link(&s->threads[cyc[q]]);
		if (!n_inf || !strong || !lts_wf_cycle_sound_but(s, c->next, cyc, nc, c->inf->kind))
			return -1;
		for (size_t q = 0; q < nc; q++)
			if (c->inf->kind[cyc[q]] && !inferred_sound(s, cyc, nc, cyc[q], c->inf))
				return -1;
	} else if (!lts_wf_cycle_sound(s, c->next, cyc, nc))
		return -1;
	struct lt_verdict *v = lts_verdict_new(s, LT_VERDICT_DEADLOCK);
	if (!v)
		return -ENOMEM;
	for (size_t q = 0; q < nc; q++)
		lts_verdict_add(v, s->threads[cyc[q]].tid, s->threads[cyc[q]].futex.uaddr, true);
	char chain[512];
	size_t cl = 0;
	chain[0] = 0;
	for (size_t m = 0; m < v->n_tids && cl < sizeof(chain) - 64; m++) {
		const struct lt_thread *t = lt_snapshot_find(s, v->tids[m]);
		cl += (size_t)snprintf(chain + cl, sizeof(chain) - cl, "%d (%s) -> ",
				       (int)v->tids[m], t ? lt_thread_name(t) : "?");
	}
	snprintf(chain + cl, sizeof(chain) - cl, "%d", (int)v->tids[0]);
	size_t inferred = 0;
	const struct lt_thread *own_pipe = NULL;
	for (size_t m = 0; m < v->n_tids; m++) {
		const struct lt_thread *t = lt_snapshot_find(s, v->tids[m]);
		inferred += t && t->futex.owner_kind == LT_OWNER_INFERRED;
		if (t && !own_pipe && lts_wf_own_pipe_stuck(t))
			own_pipe = t;
	}
	/* a holder inferred from the frames makes the cycle probable; so
	 * does a pipe of the process's own (which thread would write it is
	 * not known: any could, and none can) */
	/* an eventfd in the cycle: the kernel (an io_uring or aio
	 * completion) may write it too, which no process holds */
	bool efd = false;
	for (size_t m = 0; m < v->n_tids; m++) {
		const struct lt_thread *t = lt_snapshot_find(s, v->tids[m]);
		for (size_t k = 0; t && t->wf && k < t->wf->n_edges; k++)
			efd |= lt_wf_edge_obj(&t->wf->edges[k]) == LT_WF_OBJ_EVENTFD;
	}
	/* a wait of the cycle that has a timeout ends by itself: the cycle
	 * lasts until then, and breaks if that thread then gives up what
	 * it holds (it may also try again): said, never a plain deadlock */
	const struct lt_thread *timed = NULL;
	double timed_left = -1;
	for (size_t m = 0; m < v->n_tids; m++) {
		const struct lt_thread *t = lt_snapshot_find(s, v->tids[m]);
		double left;
		if (!t || !lts_wait_timed(s, t, &left))
			continue;
		if (!timed || (left >= 0 && (timed_left < 0 || left < timed_left))) {
			timed = t;
			timed_left = left;
		}
	}
	/* a file-lock wait of the cycle that a timer's signal may interrupt
	 * (flock -w: a POSIX timer, an alarm): whether it is armed and when
	 * it fires are not known: the cycle may end by it, said, never a
	 * plain deadlock */
	const struct lt_thread *ltimer = NULL;
	char ltimer_more[160] = "";
	size_t n_ltimer = 0, ltl = 0;
	for (size_t m = 0; m < v->n_tids; m++) {
		const struct lt_thread *t = lt_snapshot_find(s, v->tids[m]);
		if (!t || !lts_wf_lock_timer(t, NULL))
			continue;
		if (!ltimer)
			ltimer = t;
		else if (ltl < sizeof(ltimer_more) - 40)
			ltl += (size_t)snprintf(ltimer_more + ltl, sizeof(ltimer_more) - ltl, "%s%d (%s)",
						n_ltimer > 1 ? ", " : "", (int)t->tid, lt_thread_name(t));
		n_ltimer++;
	}
	/* a socket read whose SO_RCVTIMEO could not be read may time out:
	 * not a certain deadlock */
	const struct lt_thread *unk = NULL;
	char unk_list[160] = "";
	size_t n_unk = 0, ul = 0;
	for (size_t m = 0; m < v->n_tids; m++) {
		const struct lt_thread *t = lt_snapshot_find(s, v->tids[m]);
		if (!t || !sock_timeo_unknown(t))
			continue;
		if (!unk)
			unk = t;
		if (ul < sizeof(unk_list) - 40)
			ul += (size_t)snprintf(unk_list + ul, sizeof(unk_list) - ul, "%s%d (%s)", n_unk ? ", " : "",
					       (int)t->tid, lt_thread_name(t));
		n_unk++;
	}
	/* so may a wait whose application's timeout could not be read (a
	 * PostgreSQL backend's idle_in_transaction_session_timeout) */
	const struct lt_thread *aunk = NULL;
	char aunk_list[160] = "", aunk_what[160] = "";
	size_t n_aunk = 0, al = 0, aw = 0;
	for (size_t m = 0; m < v->n_tids; m++) {
		const struct lt_thread *t = lt_snapshot_find(s, v->tids[m]);
		const struct lt_wf_edge *ae = t ? app_timeout(t, false) : NULL;
		if (!ae || app_timeout(t, true))
			continue;
		if (!aunk)
			aunk = t;
		if (al < sizeof(aunk_list) - 40)
			al += (size_t)snprintf(aunk_list + al, sizeof(aunk_list) - al, "%s%d (%s)", n_aunk ? ", " : "",
					       (int)t->tid, lt_thread_name(t));
		if (aw < sizeof(aunk_what) - 50)
			aw += (size_t)snprintf(aunk_what + aw, sizeof(aunk_what) - aw, "%s%s", n_aunk ? "; " : "",
					       ae->timeout_what);
		n_aunk++;
	}
	/* a FutureTask.get() or Python Future.result() in the cycle: its
	 * runner's end of the task is not the only way out (a cancel() or
	 * set_result() from any thread: lt_done_kind.els) */
	const struct lt_thread *fut = NULL;
	for (size_t m = 0; m < v->n_tids && !fut; m++) {
		const struct lt_thread *t = lt_snapshot_find(s, v->tids[m]);
		const struct lt_done_kind *dk = NULL;
		if (t && done_lock_k(s, &t->futex, &dk) && dk->inferred)
			fut = t;
	}
	bool probable = inferred || own_pipe || efd || n_inf || unk || aunk || fut;
	const char *dl = probable ? "probable deadlock" : "deadlock";
	if (timed)
		dl = probable ? "probable deadlock until a timeout" : "deadlock until a timeout";
	else if (ltimer)
		dl = probable ? "probable deadlock unless a timer ends it" : "deadlock unless a timer ends it";
	if (n_inf && !own_pipe) {
		/* what is inferred, in the headline: never a plain deadlock */
		const char *what[3] = { "", "", "" };
		size_t nw = 0;
		if (inf_answer)
			what[nw++] = "which thread of a process answers";
		if (inf_signal)
			what[nw++] = "a condition variable's signaller";
		if (inferred)
			what[nw++] = "a lock's holder";
		char ws[200];
		if (nw == 1)
			snprintf(ws, sizeof(ws), "%s", what[0]);
		else if (nw == 2)
			snprintf(ws, sizeof(ws), "%s and %s", what[0], what[1]);
		else
			snprintf(ws, sizeof(ws), "%s, %s and %s", what[0], what[1], what[2]);
		char procs[48] = "";
		if (cycle_procs(s, v) > 1)
			snprintf(procs, sizeof(procs), " in %zu processes", cycle_procs(s, v));
		v->summary = lts_asprintf("%s (%s inferred): %zu threads%s wait for each other: %s%s",
					  dl, ws, v->n_tids, procs, chain,
					  efd ? " (through an eventfd, which the kernel may also write: an io_uring "
						"or aio completion)" : "");
	} else if (own_pipe) {
		const struct lt_thread *w = lt_snapshot_find(s, v->tids[v->n_tids > 1 ? 1 : 0]);
		for (size_t m = 0; m < v->n_tids; m++)
			if (v->tids[m] == own_pipe->tid)
				w = lt_snapshot_find(s, v->tids[(m + 1) % v->n_tids]);
		v->summary = lts_asprintf("%s through a pipe: thread %d (%s) reads a pipe only its own process %d "
					  "can write, all of whose threads are blocked; %zu threads wait for each "
					  "other: %s (that %d (%s) would write the pipe is inferred)%s",
					  dl, (int)own_pipe->tid, lt_thread_name(own_pipe), (int)own_pipe->wf->pid,
					  v->n_tids, chain, w ? (int)w->tid : 0, w ? lt_thread_name(w) : "?",
					  inferred ? "; holders inferred from their frames: a threading.Lock records none"
						   : "");
	} else if (v->n_tids == 1 && s->threads[cyc[0]].wf && s->threads[cyc[0]].wf->n_edges &&
		   s->threads[cyc[0]].wf->edges[0].kind == LT_WF_FILE_LOCK) {
		const struct lt_thread *t = &s->threads[cyc[0]];
		v->summary = lts_asprintf("%s: thread %d (%s) waits for a file lock its own process holds through "
					  "another open file of the same file (a flock or OFD lock belongs to the "
					  "open file, not to the process): nothing but this thread could release "
					  "it", dl, (int)t->tid, lt_thread_name(t));
	} else if (v->n_tids == 1)
		v->summary = lts_asprintf("%s: thread %s waits for a lock it holds itself", dl, chain);
	else if (cycle_procs(s, v) > 1) /* through pipes, sockets, file locks... */
		v->summary = lts_asprintf("%s: %zu threads in %zu processes wait for each other: %s%s%s", dl,
					  v->n_tids, cycle_procs(s, v), chain, inferred ? " (holders inferred from "
					  "their frames: a threading.Lock records none)" : "",
					  efd ? " (through an eventfd, which the kernel may also write: an io_uring "
						"or aio completion)" : "");
	else
		v->summary = lts_asprintf("%s: %zu threads wait for each other: %s%s", dl,
					  v->n_tids, chain, inferred ? " (holders inferred from "
					  "their frames: a threading.Lock records none)" : "");
	if (timed && v->summary) {
		char in[200];
		timed_when(timed, timed_left, in, sizeof(in));
		char *w = lts_asprintf("%s; thread %d (%s) waits with a timeout (%s)", v->summary, (int)timed->tid,
				       lt_thread_name(timed), in);
		if (w) {
			free(v->summary);
			v->summary = w;
		}
	}
	if (ltimer && v->summary) {
		char *tw = lts_wf_lock_timer_words(ltimer);
		char *w = lts_asprintf("%s; a timer may end the wait of thread %d (%s) first: %s%s%s%s", v->summary,
				       (int)ltimer->tid, lt_thread_name(ltimer), tw ? tw : "?",
				       n_ltimer == 1 ? "" : n_ltimer == 2 ? "; a timer may end that of thread "
									: "; timers may end those of threads ",
				       n_ltimer > 1 ? ltimer_more : "", n_ltimer > 1 ? " too (see the evidence)" : "");
		free(tw);
		if (w) {
			free(v->summary);
			v->summary = w;
		}
	}
	if (unk && v->summary) {
		char *w = lts_asprintf("%s; whether the socket %s of thread%s %s %s a timeout (SO_RCVTIMEO, "
				       "SO_SNDTIMEO) is not known (not read: see the notes): %s may end by %s",
				       v->summary, n_unk > 1 ? "reads or writes" : "read or write", n_unk > 1 ? "s" : "",
				       unk_list, n_unk > 1 ? "have" : "has", n_unk > 1 ? "they" : "it",
				       n_unk > 1 ? "themselves" : "itself");
		if (w) {
			free(v->summary);
			v->summary = w;
		}
	}
	if (fut && v->summary) {
		const struct lt_done_kind *fk;
		const struct lt_rtlock *fl = done_lock_k(s, &fut->futex, &fk);
		char *w = fk->every
			  ? lts_asprintf("%s; inferred: that thread %d (%s), in %s, cannot go on before thread %d "
					 "ends its task (%s would end its wait too)", v->summary, (int)fut->tid,
					 lt_thread_name(fut), fl->wait_call, (int)fut->futex.owner, fk->els)
			  : lts_asprintf("%s; inferred: that thread %d (%s), in %s, waits for thread %d alone (%s "
					 "would end its wait too)", v->summary, (int)fut->tid, lt_thread_name(fut),
					 fl->wait_call, (int)fut->futex.owner, fk->els);
		if (w) {
			free(v->summary);
			v->summary = w;
		}
	}
	if (aunk && v->summary) {
		char *w = lts_asprintf("%s; whether thread%s %s %s a timeout (%s) is not known (not read: see the "
				       "evidence): %s may end by %s", v->summary, n_aunk > 1 ? "s" : "", aunk_list,
				       n_aunk > 1 ? "have" : "has", aunk_what, n_aunk > 1 ? "they" : "it",
				       n_aunk > 1 ? "themselves" : "itself");
		if (w) {
			free(v->summary);
			v->summary = w;
		}
	}
	v->explains = v->n_tids;
	v->longest_s = -1;
	for (size_t m = 0; m < v->n_tids; m++) {
		const struct lt_thread *t = lt_snapshot_find(s, v->tids[m]);
		long ti = (long)(t - s->threads);
		if (c->inf && c->inf->kind[ti] == INF_SIGNAL)
			signal_edge_evidence(v, s, t, &s->threads[c->next[ti]]);
		else if (t->wait == LT_WAIT_FUTEX)
			edge_evidence(v, s, t);
		else
			lts_wf_edge_evidence(v, s, t);
		if (c->inf && c->inf->kind[ti])
			inferred_evidence(v, s, c->next, cyc, nc, ti, c->inf);
		double left;
		if (lts_wait_timed(s, t, &left)) {
			char in[200];
			timed_when(t, left, in, sizeof(in));
			lt_strlist_add(&v->evidence, "thread %d (%s) waits with a timeout (%s): the cycle lasts until "
				       "then, and breaks if it then gives up what it holds (if it tries again, it "
				       "does not)", (int)t->tid, lt_thread_name(t), in);
		}
		for (size_t k = 0; t->wf && k < t->wf->n_edges; k++)
			if (t->wf->edges[0].kind == LT_WF_FILE_LOCK && lt_wf_sigtimer(&t->wf->edges[k])) {
				char *l = lt_wf_edge_line(&t->wf->edges[k]);
				lt_strlist_add(&v->evidence, "thread %d (%s) %s by a timer, its lock call interrupted: %s",
					       (int)t->tid, lt_thread_name(t),
					       t->wf->edges[k].timeout_s > 0 ? "is let go" : "may be let go", l ? l : "?");
				free(l);
			}
		rt_waits_at(v, t);
		if (t->idle_src != LT_IDLE_UNKNOWN && t->idle_s > v->longest_s)
			v->longest_s = t->idle_s;
		if (has_owner(&t->futex) && t->futex.owner_kind != LT_OWNER_JOIN && !v->owner_source)
			v->owner_source = owner_source(&t->futex);
	}
	return (long)(v - s->verdicts);
}

/* Does the chain of waits from thread U (next[]) reach thread I? */
/* Asleep on a private futex with no timeout (a condition variable, a
 * Domain.join, a join): only a thread of its own process can wake it. */
static bool private_sleep(const struct lt_thread *t)
{
	const struct lt_futex *f = &t->futex;
	return asleep(t) && t->wait == LT_WAIT_FUTEX && f->is_wait && !f->timeout_ptr &&
	       (f->private_ || f->owner_kind == LT_OWNER_JOIN);
}

static bool leads_to(const long *next, size_t n, size_t u, size_t i)
{
	long j = next[u];
	for (size_t step = 0; j >= 0 && j != (long)i && step < n; step++)
		j = next[j];
	return j == (long)i;
}


/* ---- cycles through an inferred link ---- */

static pid_t thread_proc(const struct lt_snapshot *s, const struct lt_thread *t)
{
	if (t->wf)
		return t->wf->pid;
	if (s->thread_pid)
		return s->thread_pid[t - s->threads];
	return s->pid;
}

static bool stopped(const struct lt_thread *t)
{
	return t->state == 'T' || t->state == 't';
}

/* T's wait can end by itself: a sleep, a timeout, a timer among its
 * waits. */
static bool timed_any(const struct lt_snapshot *s, const struct lt_thread *t)
{
	double left;
	if ((t->wait == LT_WAIT_SLEEP && t->sc.nr != 34) || lts_wait_timed(s, t, &left))
		return true;
	for (size_t k = 0; t->wf && k < t->wf->n_edges; k++)
		if (t->wf->edges[k].kind == LT_WF_TIMER)
			return true;
	return false;
}

/* A runtime's own thread (rt_service), or one the runtime idle table
 * knows to wait for work (rt_idle.c: a JVM's service loops, the JDK's
 * ReferenceQueue.remove, a Python pool's queue): it runs no code of the
 * program's that could end another's wait, and a timer only makes it wait
 * again.  Not any condition variable's waiter with no signal pending: a
 * program's own waits look so too. */
bool lts_runtime_idle(const struct lt_thread *t)
{
	const struct lt_futex *f = &t->futex;
	return asleep(t) && !stopped(t) &&
	       (t->rt_service || (t->wait == LT_WAIT_FUTEX && f->lock_state && strstr(f->lock_state, LT_RT_IDLE_STATE)));
}

/* Can thread O, of the process an inferred link goes into, end that link
 * otherwise than through the cycle?  A runtime's own thread never does,
 * asleep or caught running its periodic task (a JVM's VM Periodic Task
 * thread wakes every 50 ms); a thread waiting for work only waits again
 * when its timer fires. */
static bool cannot_end_link(const struct lt_thread *t)
{
	return t->rt_service || lts_runtime_idle(t);
}

/* A Java thread in Thread.sleep (one of its three innermost frames one of
 * the JDK's sleeps, lt_rt_java_sleep_func): HotSpot parks it on a timed
 * condition variable, a sleep that no thread's signal ends (interrupt()
 * aside). */
bool lts_java_sleep(const struct lt_thread *t)
{
	if (!lts_java_thread(t))
		return false;
	for (size_t k = 0; k < t->n_rt_frames && k < 3; k++)
		if (lt_rt_java_sleep_func(t->rt_frames[k].func))
			return true;
	return false;
}

bool lts_java_launcher_join(const struct lt_snapshot *s, pid_t pid, const struct lt_thread *t)
{
	const struct lt_futex *f = &t->futex;
	const struct lt_thread *m = t->tid == pid && !t->rt_lang && t->wait == LT_WAIT_FUTEX &&
					    f->owner_kind == LT_OWNER_JOIN && !strcmp(lt_thread_name(t), "java")
				    ? lt_snapshot_find(s, f->owner) : NULL;
	return m && lts_java_thread(m);
}

/* A wait for a wake-up that no field names the sender of: a glibc
 * condition variable's or semaphore's, private to its process, with no
 * signal pending for it. */
static bool signal_wait(const struct lt_thread *t)
{
	const struct lt_futex *f = &t->futex;
	/* not a runtime's idle thread: it waits for whoever posts work next,
	 * not for one thread's signal; nor a Java thread's sleep */
	if (lts_runtime_idle(t) || lts_java_sleep(t))
		return false;
	return t->wait == LT_WAIT_FUTEX && f->is_wait && asleep(t) && !has_owner(f) && !f->owner_gone &&
	       !f->rtlock && f->lock_kind &&
	       (lt_kind_signal_wait(f->lock_kind) || !strcmp(f->lock_kind, "semaphore")) &&
	       f->private_ && !f->shared_obj && f->cond_signal != 2;
}

static bool same_object(const struct lt_thread *a, const struct lt_thread *b)
{
	if (a->wait != LT_WAIT_FUTEX || b->wait != LT_WAIT_FUTEX || !b->futex.is_wait)
		return false;
	uint64_t x = a->futex.lock_base ? a->futex.lock_base : a->futex.uaddr;
	uint64_t y = b->futex.lock_base ? b->futex.lock_base : b->futex.uaddr;
	return x == y && a->futex.space == b->futex.space;
}

/* Does O wait for its lock's holder to finish something (a runtime lock
 * of a done kind: a task's end, a thread's exit)? */
static bool awaits_done_of(const struct lt_snapshot *s, const struct lt_thread *o)
{
	const struct lt_futex *f = &o->futex;
	const struct lt_rtlock *l = f->rtlock && f->rtlock <= s->n_rtlocks ? &s->rtlocks[f->rtlock - 1] : NULL;
	return l && lt_done_kind_of(l->kind) && f->owner_kind == LT_OWNER_RUNTIME && l->holder == f->owner;
}

/* Does O wait in a runtime's join (Java's Thread.join(): a runtime lock
 * of a done kind that the holder's exit ends) for its lock's holder? */
static bool joins_by_runtime(const struct lt_snapshot *s, const struct lt_thread *o)
{
	const struct lt_futex *f = &o->futex;
	const struct lt_rtlock *l = f->rtlock && f->rtlock <= s->n_rtlocks ? &s->rtlocks[f->rtlock - 1] : NULL;
	const struct lt_done_kind *dk = l ? lt_done_kind_of(l->kind) : NULL;
	return dk && dk->exit && f->owner_kind == LT_OWNER_RUNTIME && l->holder == f->owner;
}

/* Whether thread U may be where thread I's inferred link goes: another
 * thread of the process, asleep, that waits in turn (its wait goes on),
 * not a waiter of the same condition variable. */
static bool inf_cand(const struct lt_snapshot *s, const long *next, const struct inf_links *open, size_t i,
		     size_t u)
{
	const struct lt_thread *t = &s->threads[i], *o = &s->threads[u];
	if (u == i || thread_proc(s, o) != open->proc[i] || !asleep(o) || stopped(o))
		return false;
	/* a signaller waits in turn on a link read, not only for another
	 * signal (idle workers on condition variables of their own are no
	 * evidence of each other) */
	if (open->kind[i] == INF_SIGNAL) {
		/* a thread joining the waiter with no timeout sends it
		 * nothing before the waiter exits (a Java Thread.join()), nor
		 * does one waiting for a task the waiter runs to end (a
		 * FutureTask.get() of its task), nor the java launcher's join
		 * of the Java main thread */
		bool joins = o->wait == LT_WAIT_FUTEX && o->futex.owner == t->tid && !o->futex.timeout_ptr &&
			     (o->futex.owner_kind == LT_OWNER_JOIN || joins_by_runtime(s, o) || awaits_done_of(s, o));
		return !joins && !lts_java_launcher_join(s, open->proc[i], o) && !same_object(t, o) && next[u] >= 0 &&
		       open->kind[u] != INF_SIGNAL;
	}
	return next[u] >= 0 || open->kind[u];
}

/* A wait that is evidence of its own that the thread is stuck, not idle:
 * for a lock (its holder read or inferred), a file or application lock, a
 * child, another process's exit or a tracee, a full pipe or socket it writes, a listener's full backlog.  A
 * read of a socket or pipe is how an idle client or server waits too. */
static bool strong_link(const struct lt_thread *t)
{
	if (t->wait == LT_WAIT_FUTEX)
		return t->futex.is_wait && has_owner(&t->futex);
	bool wr = t->sc.nr == 1 || t->sc.nr == 18 || t->sc.nr == 20 || t->sc.nr == 44 || t->sc.nr == 46 ||
		  t->sc.nr == 296 || t->sc.nr == 307;
	for (size_t k = 0; t->wf && k < t->wf->n_edges; k++) {
		const struct lt_wf_edge *e = &t->wf->edges[k];
		if (e->kind == LT_WF_FILE_LOCK || e->kind == LT_WF_APP_LOCK || e->kind == LT_WF_CHILD ||
		    e->kind == LT_WF_EXIT || e->kind == LT_WF_TRACEE || e->kind == LT_WF_PIPE_WRITE || (e->kind == LT_WF_SOCKET && (wr || lt_wf_connecting(e))))
			return true;
	}
	return false;
}

/* Is LINK's far end sound: no thread of the process it goes into runs,
 * is stopped, or waits on a timer, but those in the cycle (those behind
 * it, or waiting for something else, may wait only for what does not end
 * by itself: a connection, a peer, a signal). */
static bool inferred_sound(const struct lt_snapshot *s, const long *cyc, size_t nc, long node,
			   const struct inf_links *inf)
{
	pid_t p = inf->proc[node];
	for (size_t u = 0; u < s->n_threads; u++) {
		const struct lt_thread *o = &s->threads[u];
		if (thread_proc(s, o) != p)
			continue;
		bool on = false;
		for (size_t q = 0; q < nc; q++)
			on |= cyc[q] == (long)u;
		/* a runtime's own thread runs none of the program's code, and
		 * one waiting for work (rt_idle.h: a JDK cleaner's timed
		 * ReferenceQueue.remove, a pool's worker) only waits again when
		 * its timer fires: neither ends the link */
		if (on || cannot_end_link(o))
			continue;
		if (!asleep(o) || stopped(o) || timed_any(s, o))
			return false;
	}
	return true;
}

/* Thread U's chain (next[]) reaches one of the cycle's threads. */
static bool into_cycle(const long *next, size_t n, const long *cyc, size_t nc, long u)
{
	for (size_t step = 0; u >= 0 && step <= n; step++) {
		for (size_t q = 0; q < nc; q++)
			if (cyc[q] == u)
				return true;
		u = next[u];
	}
	return false;
}

static void signal_edge_evidence(struct lt_verdict *v, const struct lt_snapshot *s, const struct lt_thread *t,
				 const struct lt_thread *o)
{
	char dur[32], op[96];
	char *lp = lock_phrase(s, &t->futex);
	lt_futex_op_str(t->futex.op, op, sizeof(op));
	if (t->futex.cmd < 0)
		snprintf(op, sizeof(op), "futex_wait");
	lts_fmt_duration(t->idle_src == LT_IDLE_UNKNOWN ? -1 : t->idle_s, dur, sizeof(dur));
	lt_strlist_add(&v->evidence, "thread %d (%s) of process %d waits on %s [%s, word=%u], which records no "
		       "thread to %s it <- probably thread %d (%s) (inferred), for %s", (int)t->tid,
		       lt_thread_name(t), (int)thread_proc(s, t), lp ? lp : "?", op, t->futex.word,
		       !strcmp(t->futex.lock_kind, "semaphore") ? "post" : "signal", (int)o->tid, lt_thread_name(o),
		       dur);
	free(lp);
}

/* "inferred: ..." for the link out of NODE: why the thread it goes to is
 * taken to be the one, and what the process's other threads do. */
static void inferred_evidence(struct lt_verdict *v, const struct lt_snapshot *s, const long *next,
			      const long *cyc, size_t nc, long node, const struct inf_links *inf)
{
	const struct lt_thread *t = &s->threads[node], *o = &s->threads[next[node]];
	pid_t p = inf->proc[node];
	char in[200] = "", behind[200] = "", others[600] = "";
	size_t li = 0, lb = 0, lo = 0, n_in = 0, n_behind = 0, n_others = 0, n_all = 0;
	const char *pcomm = "?";
	for (size_t u = 0; u < s->n_threads; u++) {
		const struct lt_thread *x = &s->threads[u];
		if (thread_proc(s, x) != p)
			continue;
		n_all++;
		if (x->tid == p)
			pcomm = x->comm;
		bool on = false;
		for (size_t q = 0; q < nc; q++)
			on |= cyc[q] == (long)u;
		if (on) {
			bool mid = (long)u != node && (long)u != next[node];
			if (mid && li < sizeof(in) - 16)
				li += (size_t)snprintf(in + li, sizeof(in) - li, "%s%d", n_in ? ", " : "", (int)x->tid);
			n_in += mid;
		} else if (into_cycle(next, s->n_threads, cyc, nc, (long)u)) {
			if (lb < sizeof(behind) - 16)
				lb += (size_t)snprintf(behind + lb, sizeof(behind) - lb, "%s%d", n_behind ? ", " : "",
						       (int)x->tid);
			n_behind++;
		} else {
			if (n_others < 4 && lo < sizeof(others) - 32) {
				char *act = lts_thread_activity(x);
				lo += (size_t)snprintf(others + lo, sizeof(others) - lo, "%s%d (%s) %s",
						       n_others ? "; " : "", (int)x->tid, lt_thread_name(x),
						       act ? act : "?");
				free(act);
			}
			n_others++;
		}
	}
	char tail[900];
	size_t tl = (size_t)snprintf(tail, sizeof(tail), "%s%s%s", n_behind ? "; behind it: " : "", behind,
				     n_behind ? " (their chains lead into it)" : "");
	if (n_others)
		snprintf(tail + tl, sizeof(tail) - tl, "; its other thread%s wait%s for what no thread of the cycle "
			 "gives, none running or on a timer: %s%s", n_others == 1 ? "" : "s",
			 n_others == 1 ? "s" : "", others, n_others > 4 ? "; ..." : "");
	if (inf->kind[node] == INF_ANSWER) {
		const struct lt_wf_edge *e = NULL;
		for (size_t k = 0; t->wf && k < t->wf->n_edges && !e; k++)
			if (t->wf->edges[k].n_pids)
				e = &t->wf->edges[k];
		lt_strlist_add(&v->evidence, "inferred: of the %zu threads of process %d (%s), which holds the other "
			       "end of %s (an end belongs to the process, not to one thread), thread %d (%s) is taken "
			       "to be the one to answer thread %d: its own chain leads back to it%s%s%s%s", n_all, (int)p,
			       pcomm, e && e->what ? e->what : "?", (int)o->tid, lt_thread_name(o), (int)t->tid,
			       n_in ? " (through " : "", n_in ? in : "", n_in ? ")" : "", tail);
	} else {
		char *lp = lock_phrase(s, &t->futex);
		lt_strlist_add(&v->evidence, "inferred: %s records no thread to %s it; of the other threads of process "
			       "%d (%s), thread %d (%s) is taken to be the one to, once it goes on: its own chain "
			       "leads back to thread %d%s", lp ? lp : "?",
			       !strcmp(t->futex.lock_kind, "semaphore") ? "post" : "signal", (int)p, pcomm,
			       (int)o->tid, lt_thread_name(o), (int)t->tid, tail);
		free(lp);
	}
}

/* The threads behind the cycles of verdicts FIRST.. (their chain leads
 * into one: ON, REACH as lt_fgraph_cycles sets them), said in its
 * evidence and marked in BEHIND_MARKS. */
static void add_behind(struct lt_snapshot *s, size_t first, const long *on, const long *reach, bool *behind_marks)
{
	size_t n = s->n_threads;
	for (size_t vi = first; vi < s->n_verdicts; vi++) {
		struct lt_verdict *v = &s->verdicts[vi];
		size_t behind = 0;
		char list[256];
		size_t ll = 0;
		list[0] = 0;
		for (size_t i = 0; i < n; i++) {
			if (on[i] >= 0 || reach[i] != (long)vi)
				continue;
			behind++;
			if (behind_marks)
				behind_marks[i] = true;
			pid_t *nb = realloc(v->behind, (v->n_behind + 1) * sizeof(*nb));
			if (nb) {
				nb[v->n_behind++] = s->threads[i].tid;
				v->behind = nb;
			}
			if (ll < sizeof(list) - 16)
				ll += (size_t)snprintf(list + ll, sizeof(list) - ll, "%s%d",
						       behind > 1 ? ", " : "", (int)s->threads[i].tid);
		}
		v->explains += behind;
		if (behind)
			lt_strlist_add(&v->evidence, "%zu more thread(s) blocked behind the cycle: %s%s",
				       behind, list, ll >= sizeof(list) - 16 ? ", ..." : "");
	}
}

/* The graph of the second search: the read links (next[]) of the threads
 * whose link is not inferred, reversed (CSR), and the threads whose link
 * is (their edges go to every candidate: inf_cand). */
struct inf_graph {
	const struct lt_snapshot *s;
	const long *next;
	const struct inf_links *open;
	size_t *rstart;   /* n + 1 */
	long *radj;       /* the threads whose read link goes to each */
	long *olist;      /* the threads whose link is inferred */
	size_t n_open;
};

/* The threads that reach thread I (following read links and every
 * inferred link's candidates), stamped STAMP in MARK. */
static void reaching(const struct inf_graph *g, size_t i, long stamp, long *mark, long *queue)
{
	size_t qh = 0, qt = 0;
	mark[i] = stamp;
	queue[qt++] = (long)i;
	while (qh < qt) {
		long x = queue[qh++];
		for (size_t k = g->rstart[x]; k < g->rstart[x + 1]; k++) {
			long u = g->radj[k];
			if (mark[u] != stamp) {
				mark[u] = stamp;
				queue[qt++] = u;
			}
		}
		for (size_t k = 0; k < g->n_open; k++) {
			long u = g->olist[k];
			if (mark[u] != stamp && inf_cand(g->s, g->next, g->open, (size_t)u, (size_t)x)) {
				mark[u] = stamp;
				queue[qt++] = u;
			}
		}
	}
}

/* How many of the threads marked WANT are reached from U, not through I. */
static size_t reached_from(const struct inf_graph *g, size_t u, size_t i, const unsigned char *want,
			   unsigned char *seen, long *queue)
{
	size_t n = g->s->n_threads, qh = 0, qt = 0, cnt = 0;
	memset(seen, 0, n);
	seen[u] = 1;
	seen[i] = 1;
	queue[qt++] = (long)u;
	while (qh < qt) {
		size_t x = (size_t)queue[qh++];
		if (!g->open->kind[x]) {
			long y = g->next[x];
			if (y >= 0 && !seen[y]) {
				seen[y] = 1;
				cnt += want[y];
				queue[qt++] = y;
			}
			continue;
		}
		for (size_t y = 0; y < n; y++) {
			if (seen[y] || !inf_cand(g->s, g->next, g->open, x, y))
				continue;
			seen[y] = 1;
			cnt += want[y];
			queue[qt++] = (long)y;
		}
	}
	return cnt;
}

/* The second search: cycles that close only through inferred links (a
 * probable deadlock, each inference said), among the threads that are
 * neither on nor behind a cycle of read links (NEXT, REACH: the first
 * search's). */
static void find_inferred_cycles(struct lt_snapshot *s, const long *next, const long *reach, bool *behind_marks)
{
	size_t n = s->n_threads, n_open = 0;
	if (!n || n > 4096)
		return;
	long *next2 = malloc(n * sizeof(*next2)), *on2 = malloc(n * sizeof(*on2));
	long *reach2 = malloc(n * sizeof(*reach2)), *mark = malloc(n * sizeof(*mark));
	long *queue = malloc(n * sizeof(*queue));
	unsigned char *kind = calloc(n, 1), *want = calloc(n, 1), *seen = calloc(n, 1);
	unsigned char *okind = calloc(n, 1);
	pid_t *proc = calloc(n, sizeof(*proc));
	size_t *rstart = NULL;
	long *radj = NULL, *olist = NULL;
	struct inf_links open = { okind, proc }, inf = { kind, proc };
	if (!next2 || !on2 || !reach2 || !mark || !queue || !kind || !want || !seen || !okind || !proc)
		goto out;
	memcpy(next2, next, n * sizeof(*next2));
	for (size_t i = 0; i < n; i++) {
		const struct lt_thread *t = &s->threads[i];
		mark[i] = -1;
		if (reach[i] >= 0 || !asleep(t) || stopped(t))
			continue;
		pid_t p = 0;
		unsigned char k = INF_NONE;
		if (t->wait != LT_WAIT_FUTEX) {
			if (next[i] >= 0 && next[i] != (long)i && !lts_wf_stopped_io(t) &&
			    (p = lts_wf_party_process(s, t)))
				k = INF_ANSWER;
		} else if (signal_wait(t) && !lt_kind_java_parked(t->futex.lock_kind) && !(t->wf && t->wf->n_edges)) {
			/* (a waiter whose other end a model read, a Java
			 * Process.waitFor's child, is no guess's; nor is a
			 * Java wait the model named, which any thread may end
			 * (a latch's countDown(), a release(), a notify()):
			 * the rule for signals only another thread can send
			 * (waitfor_verdicts.c) infers a cycle through it only
			 * when no other thread of the process can end it; here
			 * a thread waiting for a live process's input counted
			 * for nothing, and one queued on a lock the waiter
			 * holds was taken for its signaller, a false
			 * "probable deadlock" in a healthy program) */
			p = thread_proc(s, t);
			k = INF_SIGNAL;
		}
		if (!k)
			continue;
		/* none of its threads runs (a running one could end it), and
		 * it has more than one (one thread alone is no inference) */
		size_t np = 0;
		bool quiet = true;
		for (size_t u = 0; u < n; u++)
			if (thread_proc(s, &s->threads[u]) == p) {
				np++;
				quiet &= u == i || asleep(&s->threads[u]);
			}
		if (!quiet || np < 2)
			continue;
		okind[i] = k;
		proc[i] = p;
		n_open++;
	}
	/* bounded: each inferred link costs a walk of the graph */
	if (!n_open || n_open * n > 400000)
		goto out;
	rstart = calloc(n + 1, sizeof(*rstart));
	radj = malloc(n * sizeof(*radj));
	olist = malloc(n_open * sizeof(*olist));
	if (!rstart || !radj || !olist)
		goto out;
	for (size_t u = 0; u < n; u++)
		if (!okind[u] && next[u] >= 0)
			rstart[next[u] + 1]++;
	for (size_t x = 0; x < n; x++)
		rstart[x + 1] += rstart[x];
	{
		size_t *fill = calloc(n, sizeof(*fill)), no = 0;
		if (!fill)
			goto out;
		for (size_t u = 0; u < n; u++) {
			if (okind[u])
				olist[no++] = (long)u;
			else if (next[u] >= 0)
				radj[rstart[next[u]] + fill[next[u]]++] = (long)u;
		}
		free(fill);
	}
	struct inf_graph g = { s, next, &open, rstart, radj, olist, n_open };
	for (size_t i = 0; i < n; i++) {
		if (!okind[i])
			continue;
		reaching(&g, i, (long)i, mark, queue);
		/* the candidates that lead back to I */
		size_t nr = 0;
		long pick = -1, direct = -1;
		memset(want, 0, n);
		for (size_t u = 0; u < n; u++) {
			if (mark[u] != (long)i || u == i || !inf_cand(s, next, &open, i, u))
				continue;
			want[u] = 1;
			nr++;
			if (pick < 0)
				pick = (long)u;
			/* one that waits on I's own process (the other end of
			 * the same connection): the one that talks to it */
			if (okind[i] == INF_ANSWER && direct < 0 && !okind[u] && next[u] >= 0 &&
			    thread_proc(s, &s->threads[next[u]]) == thread_proc(s, &s->threads[i]))
				direct = (long)u;
		}
		if (!nr)
			continue;
		if (direct >= 0)
			pick = direct;
		else if (nr > 1 && nr <= 16) {
			/* the one whose chain goes through the most others: it
			 * waits for them, so it goes on last */
			size_t best = 0;
			for (size_t u = 0; u < n; u++) {
				if (!want[u])
					continue;
				size_t c = reached_from(&g, u, i, want, seen, queue);
				if (c > best) {
					best = c;
					pick = (long)u;
				}
			}
		}
		next2[i] = pick;
		kind[i] = okind[i];
	}
	size_t first = s->n_verdicts;
	struct dl_ctx c = { s, next2, &inf };
	if (lt_fgraph_cycles(n, next2, deadlock_verdict, &c, on2, reach2))
		goto out;
	add_behind(s, first, on2, reach2, behind_marks);
out:
	free(next2);
	free(on2);
	free(reach2);
	free(mark);
	free(queue);
	free(kind);
	free(want);
	free(seen);
	free(okind);
	free(proc);
	free(rstart);
	free(radj);
	free(olist);
}

/* BEHIND (n_threads, may be NULL): set for the threads whose chain leads
 * into a cycle found, said in its evidence, so that no verdict of their
 * own repeats it. */
static void find_deadlocks(struct lt_snapshot *s, bool *behind_marks)
{
	size_t n = s->n_threads;
	long *next = malloc((n ? n : 1) * sizeof(*next));
	long *on = malloc((n ? n : 1) * sizeof(*on));       /* the cycle each node is on */
	long *reach = malloc((n ? n : 1) * sizeof(*reach)); /* ... or leads into */
	if (!next || !on || !reach)
		goto out;
	for (size_t i = 0; i < n; i++) {
		const struct lt_thread *t = &s->threads[i];
		next[i] = -1;
		if (t->wait == LT_WAIT_FUTEX && t->futex.is_wait && (asleep(t) || runtime_says(s, t)) &&
		    has_owner(&t->futex))
			next[i] = idx_of(s, t->futex.owner);
		else if (t->wait != LT_WAIT_FUTEX && !lts_wf_stopped_io(t))
			next[i] = lts_wf_next(s, t); /* file lock, pipe, socket, child (waitfor.h) */
	}
	/* a pipe only its own process can write, none of whose threads can
	 * run: the wait goes on to a thread of that process whose own chain
	 * leads back to the reader (a writer waiting for a lock the reader
	 * holds), if one does; and only when every other thread of the
	 * process leads back to it too, or is the runtime's own (a thread
	 * blocked in a read another process can end may write the pipe next) */
	for (size_t i = 0; i < n; i++) {
		const struct lt_thread *t = &s->threads[i];
		if (next[i] >= 0 || t->wait == LT_WAIT_FUTEX || lts_wf_stopped_io(t) || !lts_wf_own_pipe_stuck(t))
			continue;
		bool all_back = true;
		for (size_t u = 0; u < n && all_back; u++) {
			const struct lt_thread *o = &s->threads[u];
			if (u != i && o->wf && o->wf->pid == t->wf->pid && !o->rt_service && !leads_to(next, n, u, i) &&
			    !private_sleep(o))
				all_back = false;
		}
		if (!all_back)
			continue;
		for (size_t u = 0; u < n && next[i] < 0; u++) {
			const struct lt_thread *o = &s->threads[u];
			if (u == i || !o->wf || o->wf->pid != t->wf->pid)
				continue;
			if (leads_to(next, n, u, i))
				next[i] = (long)u;
		}
	}
	/* a wait into a process (any of its threads could end it) goes to
	 * its main thread; when another of its threads leads back to the
	 * waiter through a lock (not a pthread_join: the thread that would
	 * answer once it has the lock), the cycle goes through that one and
	 * names the lock */
	for (size_t i = 0; i < n; i++) {
		const struct lt_thread *t = &s->threads[i];
		if (next[i] < 0 || t->wait == LT_WAIT_FUTEX || !lts_wf_process_edge(s, t))
			continue;
		const struct lt_thread *to = &s->threads[next[i]];
		if (to->wait != LT_WAIT_FUTEX || to->futex.owner_kind != LT_OWNER_JOIN || !to->wf)
			continue;
		for (size_t u = 0; u < n; u++) {
			const struct lt_thread *o = &s->threads[u];
			if ((long)u == next[i] || !o->wf || o->wf->pid != to->wf->pid || o->wait != LT_WAIT_FUTEX ||
			    o->futex.owner_kind == LT_OWNER_JOIN || next[u] < 0)
				continue;
			if (leads_to(next, n, u, i)) {
				next[i] = (long)u;
				break;
			}
		}
	}
	size_t first_verdict = s->n_verdicts;
	struct dl_ctx c = { s, next, NULL };
	if (lt_fgraph_cycles(n, next, deadlock_verdict, &c, on, reach))
		goto out;
	/* threads blocked behind a cycle (their chain leads into it) */
	add_behind(s, first_verdict, on, reach, behind_marks);
	/* then the cycles that close only through an inferred link */
	find_inferred_cycles(s, next, reach, behind_marks);
out:
	free(next);
	free(on);
	free(reach);
}

/* ---- lost wake-up ---- */

static bool lost_wakeup_candidate(const struct lt_thread *t, double threshold)
{
	const struct lt_futex *f = &t->futex;
	if (t->wait != LT_WAIT_FUTEX || !f->is_wait || f->is_pi || !asleep(t))
		return false;
	if (f->cmd != FX_WAIT && f->cmd != FX_WAIT_BITSET && f->cmd != -1)
		return false;
	if (!f->word_ok || f->word == f->expected)
		return false;
	return t->idle_src != LT_IDLE_UNKNOWN && t->idle_s >= threshold;
}

/* A waiter and the key of its lock: the address, or for a lock in a
 * shared mapping the object (device, inode) and offset, the same in every
 * process (a multi-process view holds threads of several). */
struct waiter {
	uint64_t uaddr;   /* address, or offset in the shared object */
	uint64_t ino, dev; /* 0, 0 for a private lock */
	size_t idx;
};

static struct waiter waiter_of(const struct lt_snapshot *s, size_t i, uint64_t addr)
{
	const struct lt_futex *f = &s->threads[i].futex;
	struct waiter w = { addr, 0, 0, i };
	if (f->shared_obj) {
		w.uaddr = f->obj_off + (addr - f->uaddr);
		w.ino = f->obj_ino;
		w.dev = (uint64_t)f->obj_major << 32 | f->obj_minor;
	} else {
		w.dev = (uint64_t)(uint32_t)f->space; /* its process in a multi-process view */
	}
	return w;
}

static bool same_lock(const struct waiter *x, const struct waiter *y)
{
	return x->uaddr == y->uaddr && x->ino == y->ino && x->dev == y->dev;
}

static int waiter_cmp(const void *a, const void *b)
{
	const struct waiter *x = a, *y = b;
	if (x->ino != y->ino)
		return x->ino < y->ino ? -1 : 1;
	if (x->dev != y->dev)
		return x->dev < y->dev ? -1 : 1;
	if (x->uaddr != y->uaddr)
		return x->uaddr < y->uaddr ? -1 : 1;
	return (x->idx > y->idx) - (x->idx < y->idx);
}

static void find_lost_wakeups(struct lt_snapshot *s, double threshold)
{
	size_t n = s->n_threads, m = 0;
	struct waiter *w = malloc((n ? n : 1) * sizeof(*w));
	if (!w)
		return;
	for (size_t i = 0; i < n; i++)
		if (lost_wakeup_candidate(&s->threads[i], threshold))
			w[m++] = waiter_of(s, i, s->threads[i].futex.uaddr);
	qsort(w, m, sizeof(*w), waiter_cmp);
	for (size_t a = 0; a < m;) {
		size_t b = a;
		while (b < m && same_lock(&w[b], &w[a]))
			b++;
		struct lt_verdict *v = lts_verdict_new(s, LT_VERDICT_LOST_WAKEUP);
		if (!v)
			break;
		const struct lt_thread *t0 = &s->threads[w[a].idx];
		char lb[160], dur[32], op[96];
		lts_lock_label(&t0->futex, lb, sizeof(lb));
		v->explains = b - a;
		v->longest_s = -1;
		for (size_t k = a; k < b; k++) {
			const struct lt_thread *t = &s->threads[w[k].idx];
			lts_verdict_add(v, t->tid, t->futex.uaddr, true);
			if (t->idle_s > v->longest_s)
				v->longest_s = t->idle_s;
			lts_fmt_duration(t->idle_s, dur, sizeof(dur));
			if (t->futex.cmd >= 0)
				lt_futex_op_str(t->futex.op, op, sizeof(op));
			else
				snprintf(op, sizeof(op), "futex_wait");
			lt_strlist_add(&v->evidence,
				       "thread %d (%s) has slept %s in %s on %s expecting %u; the word is now %u",
				       (int)t->tid, lt_thread_name(t), dur, op, lb, t->futex.expected, t->futex.word);
		}
		lt_strlist_add(&v->evidence,
			       "whoever changed the word did not FUTEX_WAKE the sleeper "
			       "(sleep time from %s, threshold %.1f s)",
			       lt_idle_source_name(t0->idle_src), threshold);
		lts_fmt_duration(t0->idle_s, dur, sizeof(dur));
		/* a wait with a timeout wakes by itself and looks at the word
		 * again: the wake-up was missed, not lost for ever */
		double left;
		char timed[128] = "";
		if (lts_wait_timed(s, t0, &left)) {
			if (left >= 0)
				snprintf(timed, sizeof(timed), "; it waits with a timeout, which ends its wait in about "
					 "%.1f s (then it sees the word)", left);
			else
				snprintf(timed, sizeof(timed), "; it waits with a timeout (when it ends is not known), "
					 "then it sees the word");
		}
		if (b - a == 1)
			v->summary = lts_asprintf("lost wake-up: thread %d (%s) sleeps on %s expecting %u, "
						  "but the word is %u (for %s)%s", (int)t0->tid, lt_thread_name(t0), lb,
						  t0->futex.expected, t0->futex.word, dur, timed);
		else
			v->summary = lts_asprintf("lost wake-up: %zu threads sleep on %s although its word "
						  "changed (e.g. thread %d expects %u, word is %u)", b - a, lb,
						  (int)t0->tid, t0->futex.expected, t0->futex.word);
		a = b;
	}
	free(w);
}

/* ---- lock waits and convoys ---- */

/* A wait that is for a lock, not for an event: the models recognised a
 * lock (runtime lock, or an acquire function on the stack), an owner is
 * recorded, or the word looks like a held lock with waiters. */
static bool lock_wait(const struct lt_thread *t)
{
	const struct lt_futex *f = &t->futex;
	if (t->wait != LT_WAIT_FUTEX || !f->is_wait || f->owner_kind == LT_OWNER_JOIN)
		return false;
	if (t->state == 'R' || t->sc.state != LT_SC_IN_SYSCALL)
		return false;
	/* a runtime lock's waiters wait in timed slices (CPython: 5 ms): the
	 * runtime's own state, not the thread's stability, is the evidence */
	if (t->moved && !f->rtlock)
		return false;
	if (t->app_class) /* an application's own lock (appwait.c) says more */
		return false;
	return f->rtlock || t->acquire || has_owner(f) || f->is_pi ||
	       (f->word_ok && (f->word == 1 || f->word == 2) && !f->lock_kind);
}

static uint64_t lock_key(const struct lt_futex *f)
{
	return f->lock_base ? f->lock_base : f->uaddr;
}

/* "OCaml runtime lock (caml_master_lock)", "semaphore sem_a (0x5010)",
 * "rtlock (0x5000)" */
static char *lock_phrase(const struct lt_snapshot *s, const struct lt_futex *f)
{
	char lb[160];
	if (f->rtlock && f->rtlock <= s->n_rtlocks) {
		const struct lt_rtlock *l = &s->rtlocks[f->rtlock - 1];
		return lts_asprintf("the %s (%s)", l->kind, l->name ? l->name : "?");
	}
	lts_lock_label(f, lb, sizeof(lb));
	if (f->lock_kind && f->lock_name && f->lock_base && f->lock_base != f->uaddr)
		return lts_asprintf("%s '%s' at 0x%" PRIx64 " (waiters sleep on %s)", f->lock_kind,
				    f->lock_name, f->lock_base, lb);
	if (f->lock_kind && f->lock_base && f->lock_base != f->uaddr)
		return lts_asprintf("%s at 0x%" PRIx64 " (waiters sleep on %s)", f->lock_kind,
				    f->lock_base, lb);
	if (f->lock_kind)
		return lts_asprintf("%s %s", f->lock_kind, lb);
	return lts_strdup(lb);
}

/* What the holder does: "which is blocked in read(fd 7: socket) for 14 s";
 * a holder that itself waits for a lock a model named (a Java lock, a
 * monitor, a GIL) is said to wait for that lock, and for whom, rather
 * than for a futex word in an anonymous mapping. */
static char *holder_doing(const struct lt_snapshot *s, const struct lt_thread *o)
{
	char dur[32];
	if (o->state == 'R' || o->sc.state == LT_SC_RUNNING)
		return lts_strdup("which is running");
	if (o->moved)
		return lts_strdup("which is busy (its state changed during the snapshot)");
	char *r;
	if (lock_wait(o) && o->futex.rtlock && o->futex.rtlock <= s->n_rtlocks) {
		char *lp = lock_phrase(s, &o->futex);
		const struct lt_thread *h = has_owner(&o->futex) ? lt_snapshot_find(s, o->futex.owner) : NULL;
		char by[200];
		if (h)
			snprintf(by, sizeof(by), ", held by thread %d (%s)", (int)h->tid, lt_thread_name(h));
		else if (has_owner(&o->futex))
			snprintf(by, sizeof(by), ", held by %d", (int)o->futex.owner);
		else
			snprintf(by, sizeof(by), ", whose holder is not recorded");
		const struct lt_rtlock *l = &s->rtlocks[o->futex.rtlock - 1];
		const struct lt_done_kind *hk = lt_done_kind_of(l->kind);
		if (!h && l->holderless && hk && l->wait_call) {
			/* a task no thread runs (FutureTask.get(), Python's
			 * Future.result()), futures each run by a blocked
			 * thread (wait()): its own verdict says why */
			if (o->idle_src == LT_IDLE_UNKNOWN)
				dur[0] = 0;
			else
				lts_fmt_duration(o->idle_s, dur, sizeof(dur));
			r = lts_asprintf("which %s in %s for %s%s%s%s, %s", dur[0] ? "has been waiting" : "waits",
					 l->wait_call, hk->what, l->name ? l->name : "?", dur[0] ? " for " : "", dur,
					 hk->none);
			free(lp);
			return r;
		}
		if (o->idle_src == LT_IDLE_UNKNOWN) {
			r = lts_asprintf("which waits for %s%s", lp, by);
		} else {
			lts_fmt_duration(o->idle_s, dur, sizeof(dur));
			r = lts_asprintf("which has been waiting for %s for %s%s", lp, dur, by);
		}
		free(lp);
		return r;
	}
	char *act = lts_thread_activity(o);
	if (o->idle_src == LT_IDLE_UNKNOWN) {
		r = lts_asprintf("which is in %s", act ? act : "?");
	} else {
		lts_fmt_duration(o->idle_s, dur, sizeof(dur));
		r = lts_asprintf("which has been blocked in %s for %s", act ? act : "?", dur);
	}
	free(act);
	return r;
}

/* The owner most waiters agree on (they read it at different moments):
 * majority vote (Boyer-Moore), then count it. */
static pid_t vote_owner(const struct lt_snapshot *s, const struct waiter *w, size_t a, size_t b,
			size_t *agree, const struct lt_futex **how)
{
	pid_t cand = 0;
	size_t run = 0;
	for (size_t k = a; k < b; k++) {
		const struct lt_futex *f = &s->threads[w[k].idx].futex;
		if (!has_owner(f))
			continue;
		if (run == 0) {
			cand = f->owner;
			run = 1;
		} else if (f->owner == cand) {
			run++;
		} else {
			run--;
		}
	}
	*agree = 0;
	*how = NULL;
	for (size_t k = a; k < b && cand; k++) {
		const struct lt_futex *f = &s->threads[w[k].idx].futex;
		if (has_owner(f) && f->owner == cand) {
			(*agree)++;
			*how = f;
		}
	}
	return *agree ? cand : 0;
}

static void owner_evidence(struct lt_verdict *v, const struct lt_snapshot *s, pid_t owner,
			   const struct lt_futex *how, size_t agree, size_t cnt)
{
	const struct lt_thread *o = lt_snapshot_find(s, owner);
	if (how && how->rtlock && how->rtlock <= s->n_rtlocks) {
		const struct lt_rtlock *l = &s->rtlocks[how->rtlock - 1];
		lt_strlist_add(&v->evidence, "holder %d read from the runtime (%s%s%s)%s%s", (int)owner,
			       l->model, l->version ? ", " : "", l->version ? l->version : "",
			       l->holder_how ? ": " : "", l->holder_how ? l->holder_how : "");
	} else if (how && how->sem_owner) {
		lt_strlist_add(&v->evidence, "holder %d read from memory (%zu of %zu waiters): %s", (int)owner, agree,
			       cnt, how->owner_how ? how->owner_how : "its process's SemLock");
	} else if (how && how->owner_kind == LT_OWNER_INFERRED) {
		lt_strlist_add(&v->evidence, "holder %d inferred, not recorded by the lock: it %s", (int)owner,
			       how->owner_how ? how->owner_how : "keeps it in its frames");
	} else if (how && how->owner_kind == LT_OWNER_COND) {
		lt_strlist_add(&v->evidence, "thread %d holds the Condition's lock, by its RLock's recorded "
			       "owner (%zu of %zu waiters read it); notify() raises unless its caller holds "
			       "the lock", (int)owner, agree, cnt);
	} else {
		lt_strlist_add(&v->evidence, "owner %d from the %s (%zu of %zu waiters agree)", (int)owner,
			       how ? owner_how(how->owner_kind) : "?", agree, cnt);
	}
	if (o && o->detail)
		lt_strlist_add(&v->evidence, "owner %d: %s", (int)owner, o->detail);
	/* who can end the owner's own wait (a socket's peer, a pipe's
	 * writer, ...: waitfor.h) */
	for (size_t k = 0; o && o->wf && k < o->wf->n_edges && k < 4; k++) {
		char *l = lt_wf_edge_line(&o->wf->edges[k]);
		if (l)
			lt_strlist_add(&v->evidence, "owner %d waits for: %s", (int)owner, l);
		free(l);
	}
	if (o)
		rt_frames_evidence(v, o, "owner", 4);
	char dm[256];
	for (size_t f = 0; o && f < o->n_frames && f < 6; f++)
		if (o->frames[f].func)
			lt_strlist_add(&v->evidence, "owner %d frame #%zu: %s (%s)", (int)owner, f,
				       lt_func_display(o->frames[f].func, dm, sizeof(dm)),
				       o->frames[f].module ? o->frames[f].module : "?");
}

/* A private lock whose recorded owner is no thread of this process
 * (forkorigin.c): "held by a thread that does not exist in this process:
 * ...". */
static char *gone_holder(const struct lt_futex *f)
{
	char who[64];
	if (f->sem_owner)
		return lts_asprintf("held by no live thread: its holder, the last acquirer process %d's "
				    "multiprocessing SemLock records (pthread 0x%" PRIx64 "), is no thread of "
				    "process %d any more (it exited holding it)", (int)f->sem_pid, f->gone_ptr,
				    (int)f->sem_pid);
	if (f->gone_tid > 0)
		snprintf(who, sizeof(who), "%d%s%s%s", (int)f->gone_tid, f->gone_comm[0] ? " (" : "",
			 f->gone_comm, f->gone_comm[0] ? ")" : "");
	else
		snprintf(who, sizeof(who), "pthread 0x%" PRIx64, f->gone_ptr);
	if (f->gone_parent)
		return lts_asprintf("held by a thread that does not exist in this process: it was locked "
				    "when the process was forked from %d (its owner %s is a thread of %d)",
				    (int)f->gone_parent, who, (int)f->gone_parent);
	return lts_asprintf("held by no thread of this process (its recorded owner %s is not one: it "
			    "exited holding the lock, or the lock was copied locked by fork())", who);
}

/* A held runtime lock whose recorded holder is no thread of this process. */
static bool rt_holder_gone(const struct lt_snapshot *s, const struct lt_thread *t0)
{
	const struct lt_futex *f = &t0->futex;
	return f->rtlock && f->rtlock <= s->n_rtlocks && s->rtlocks[f->rtlock - 1].held == 1 &&
	       (s->rtlocks[f->rtlock - 1].holder_gone > 0 || s->rtlocks[f->rtlock - 1].holder_exited);
}

/* Why no holder can be named, said as what it is. */
static char *unknown_holder(const struct lt_snapshot *s, const struct lt_thread *t0, bool *dead)
{
	const struct lt_futex *f = &t0->futex;
	if (f->owner_gone)
		return gone_holder(f);
	if (f->owner_tgid > 0)
		return lts_asprintf("its recorded owner %d is a thread of another process, %d (%s): "
				    "a process-shared lock", (int)f->mutex_owner, (int)f->owner_tgid,
				    f->owner_comm);
	*dead = !has_owner(f) && f->mutex_ok && f->mutex_owner > 0 && (f->word == 1 || f->word == 2) &&
		(f->mutex_kind & ~0x3f3) == 0 && !lt_snapshot_find(s, f->mutex_owner) && !f->rtlock;
	if (*dead && f->owner_exited)
		return lts_asprintf("held by thread %d, which has exited (no such thread): it will never be "
				    "released (unless robust: EOWNERDEAD)", (int)f->mutex_owner);
	if (*dead)
		return lts_asprintf("its recorded owner %d is no longer a thread of this process",
				    (int)f->mutex_owner);
	if (f->rtlock && f->rtlock <= s->n_rtlocks) {
		const struct lt_rtlock *l = &s->rtlocks[f->rtlock - 1];
		if (l->held == 1 && l->holder_gone > 0)
			return lts_asprintf("its recorded holder %d is no longer a thread of this process: "
					    "it exited holding the %s, or the %s was changing hands while "
					    "read", (int)l->holder_gone, l->kind, l->kind);
		if (l->holderless && l->holder_how)
			return lts_strdup(l->holder_how);
		if (l->held == 1 && l->holder_exited)
			return lts_asprintf("its recorded holder is no live thread%s%s%s: it exited holding the "
					    "%s, and no thread of this process can release it", l->holder_how ? " (" : "",
					    l->holder_how ? l->holder_how : "", l->holder_how ? ")" : "", l->kind);
		if (l->held == 0)
			return lts_strdup("the runtime says it is free (a hand-off in progress?)");
		return lts_asprintf("its holder is unknown%s%s", l->holder_how ? ": " : "",
				    l->holder_how ? l->holder_how : "");
	}
	if (f->lock_kind && !strcmp(f->lock_kind, "semaphore"))
		return lts_strdup("a semaphore records no holder");
	if (f->lock_kind && !strcmp(f->lock_kind, "threading.Lock"))
		return lts_strdup("a threading.Lock records no holder");
	return lts_strdup("no owner recorded");
}

/* A lock wait with no holder known "has not been handed on" for at least
 * this long when every waiter has slept that long. */
#define LT_QUIET_S 1.0

/* How long the waiters w[a..b) of a lock with no known holder have all
 * been asleep, if at least LT_QUIET_S: nobody has woken any of them
 * since, so the lock has not been handed on in that time (a convoy's
 * waiters run in turn); -1 otherwise, or if a waiter's last run is not
 * known.  Other threads may run meanwhile (a timer thread, or a holder
 * busy on the cpu). */
static double quiet_for(const struct lt_snapshot *s, const struct waiter *w, size_t a, size_t b)
{
	double shortest = -1;
	for (size_t k = a; k < b; k++) {
		const struct lt_thread *t = &s->threads[w[k].idx];
		if (t->idle_src == LT_IDLE_UNKNOWN || t->idle_src == LT_IDLE_RUNNING || t->moved)
			return -1;
		if (shortest < 0 || t->idle_s < shortest)
			shortest = t->idle_s;
	}
	return shortest >= LT_QUIET_S ? shortest : -1;
}

/* The program's own functions (lt_own_func) on the stacks of the
 * first 16 waiters w[a..b), at most QUIET_NAMES: the code that takes the
 * lock, to compare other threads' stacks with (the report's rule,
 * src/analysis/report_end.c: rp_infer_holder). */
#define QUIET_NAMES 32
static size_t waiters_code(const struct lt_snapshot *s, const struct waiter *w, size_t a, size_t b,
			   const char *exe_base, const char **names)
{
	size_t n = 0;
	for (size_t k = a; k < b && k < a + 16; k++) {
		const struct lt_thread *t = &s->threads[w[k].idx];
		for (size_t f = 0; f < lt_own_places(t) && n < QUIET_NAMES; f++) {
			const char *fn = lt_own_func(t, f, exe_base);
			bool dup = false;
			if (!fn)
				continue;
			for (size_t i = 0; i < n && !dup; i++)
				dup = !strcmp(names[i], fn);
			if (!dup)
				names[n++] = fn;
		}
	}
	return n;
}

/* The first function of names[0..n) that t runs too, or NULL. */
static const char *runs_code(const struct lt_thread *t, const char *exe_base, const char *const *names,
			     size_t n)
{
	for (size_t f = 0; n && lt_own_places(t) > f && f < 64; f++) {
		const char *fn = lt_own_func(t, f, exe_base);
		for (size_t i = 0; fn && i < n; i++)
			if (!strcmp(names[i], fn))
				return names[i];
	}
	return NULL;
}

static const char *exe_base_of(const struct lt_snapshot *s)
{
	const char *e = s->exe ? strrchr(s->exe, '/') : NULL;
	return e && e[1] ? e + 1 : s->exe;
}

/* The waiters' own code, taken once for a quiet lock and compared with
 * the other threads' (quiet_suspect, quiet_candidates). */
struct quiet_code {
	const char *base;               /* exe_base_of */
	const char *names[QUIET_NAMES]; /* waiters_code */
	size_t n;
};

/* Can thread t hold a lock others wait for, as far as a snapshot tells:
 * running, or asleep in a call whose last run is known. */
static bool may_hold_quiet(const struct lt_thread *t)
{
	return busy(t) || (t->sc.state == LT_SC_IN_SYSCALL && t->idle_src != LT_IDLE_UNKNOWN);
}

/* A quiet lock with no holder recorded: the one thread not waiting on it,
 * asleep in a call, that runs code its waiters run (the function, in
 * *func), as the report infers a holder the events did not show; 0 if
 * none or several (or one of them running, or, for a runtime lock, a
 * running thread whose code is not known: it may be the holder too). */
static pid_t quiet_suspect(const struct lt_snapshot *s, const struct quiet_code *qc, const bool *waiter,
			   bool runtime, const char **func)
{
	pid_t cand = 0;
	for (size_t i = 0; qc->n && i < s->n_threads; i++) {
		const struct lt_thread *t = &s->threads[i];
		const char *f;
		/* a runtime lock (OCaml's, a GIL) is what a thread needs to
		 * run the runtime's code: a running thread whose code is not
		 * known (its stack is not read while it runs) may well be its
		 * holder */
		if (runtime && !waiter[i] && busy(t) && !lt_own_places(t))
			return 0;
		if (waiter[i] || !may_hold_quiet(t) || lock_wait(t) ||
		    !(f = runs_code(t, qc->base, qc->names, qc->n)))
			continue;
		if (cand || busy(t))
			return 0;
		cand = t->tid;
		*func = f;
	}
	return cand;
}

/* Are the processes that map the object of F's shared lock known, by
 * pid (all of them: no more than the snapshot keeps)? */
static bool mappers_listed(const struct lt_futex *f)
{
	return !f->private_ && f->shared_obj && f->obj_mappers_known && f->obj_mapper_pids &&
	       f->obj_mappers <= LT_FUTEX_MAPPERS;
}

/* The process of thread T (a view of several: its futex's space). */
static pid_t lock_proc_of(const struct lt_snapshot *s, const struct lt_thread *t)
{
	return t->futex.space ? t->futex.space : thread_proc(s, t);
}

/* May thread T, of process P, hold the lock F that a thread of process
 * WPID waits on?  A thread of WPID may; of another process, only when the
 * lock is not private and P maps its object (the futex's device, inode
 * and offset in /proc/P/maps, read when the snapshot was taken); when who
 * maps it is not known, any may. */
static bool may_hold_lock_of(const struct lt_futex *f, pid_t wpid, pid_t p)
{
	if (p == wpid)
		return true;
	if (f->private_)
		return false;
	if (!mappers_listed(f))
		return true;
	for (int i = 0; i < f->obj_mappers; i++)
		if (f->obj_mapper[i] == p)
			return true;
	return false;
}

/* What another process can do about a shared lock that records no holder
 * (F): "" for a private one; else that a thread of another process may
 * hold it, or, when no other live process mapped its object at the
 * snapshot, that none can (and the process's child that exited unreaped,
 * which may have been the one to post it). */
static void other_procs(const struct lt_futex *f, char *buf, size_t len)
{
	buf[0] = 0;
	if (f->private_)
		return;
	if (mappers_listed(f) && f->obj_mappers) {
		size_t l = (size_t)snprintf(buf, len, "; the lock is not private, so a thread of another "
					    "process that maps its object may hold it instead (process%s",
					    f->obj_mappers > 1 ? "es" : "");
		for (int i = 0; i < f->obj_mappers && l < len; i++)
			l += (size_t)snprintf(buf + l, len - l, "%s%d", i ? ", " : " ", (int)f->obj_mapper[i]);
		if (l < len)
			snprintf(buf + l, len - l, ")");
		return;
	}
	if (!f->shared_obj || !f->obj_mappers_known || f->obj_mappers) {
		snprintf(buf, len, "; the lock is not private, so a thread of another process may hold it instead");
		return;
	}
	char z[160] = "";
	if (f->obj_zombie_child > 0)
		snprintf(z, sizeof(z), ", and process %d, a child of this one (which may be the one that would "
			 "have posted it), has exited (a zombie, not reaped)", (int)f->obj_zombie_child);
	snprintf(buf, len, "; the lock is not private, but no other live process maps it now%s: only a thread of "
		 "this process could post it", z);
}

/* A quiet lock (quiet_for) with no holder recorded: the other threads of
 * the process, asleep in some call or running, one of which holds it if
 * a thread of this process does, said as an inference; first those that
 * run the waiters' own code (waiters_code: a holder that took the lock
 * where they wait for it), then the others; in each part those blocked
 * for about as long as the waiters first (a holder that took the lock at
 * its last hand-off and then blocked), a running one counted as blocked
 * for 0 s; at most 6, with what can end each one's wait. */
static void quiet_candidates(struct lt_verdict *v, const struct lt_snapshot *s, const struct waiter *w,
			     size_t a, const struct quiet_code *qc, const bool *waiter, double quiet)
{
	size_t n = 0, cap = 6, all = 0, own = 0, out = 0;
	size_t pick[6];
	double dist[6];
	const char *code[6];
	const struct lt_futex *f = &s->threads[w[a].idx].futex;
	pid_t wpid = lock_proc_of(s, &s->threads[w[a].idx]);
	pid_t outp[4]; /* processes left out: they do not map the lock */
	for (size_t i = 0; i < s->n_threads; i++) {
		const struct lt_thread *t = &s->threads[i];
		if (waiter[i] || !may_hold_quiet(t))
			continue;
		pid_t p = lock_proc_of(s, t);
		if (!may_hold_lock_of(f, wpid, p)) {
			bool seen = false;
			for (size_t k = 0; k < out && k < 4; k++)
				seen |= outp[k] == p;
			if (!seen && out < 4)
				outp[out] = p;
			out += !seen;
			continue;
		}
		all++;
		const char *fn = runs_code(t, qc->base, qc->names, qc->n);
		own += fn != NULL;
		double idle = busy(t) ? 0 : t->idle_s;
		/* the waiters' code first: a distance below any other's */
		double d = (idle > quiet ? idle - quiet : quiet - idle) + (fn ? 0 : 1e12);
		size_t at = n < cap ? n++ : cap;
		if (at == cap) {
			if (d >= dist[cap - 1])
				continue;
			at = cap - 1;
		}
		while (at > 0 && dist[at - 1] > d) {
			pick[at] = pick[at - 1];
			dist[at] = dist[at - 1];
			code[at] = code[at - 1];
			at--;
		}
		pick[at] = i;
		dist[at] = d;
		code[at] = fn;
	}
	char other[400];
	other_procs(f, other, sizeof(other));
	if (out) {
		size_t l = strlen(other);
		l += (size_t)snprintf(other + l, sizeof(other) - l, "; the threads of process%s", out > 1 ? "es" : "");
		for (size_t k = 0; k < out && k < 4 && l < sizeof(other); k++)
			l += (size_t)snprintf(other + l, sizeof(other) - l, "%s%d", k ? ", " : " ", (int)outp[k]);
		if (l < sizeof(other))
			snprintf(other + l, sizeof(other) - l, "%s are left out: %s",
				 out > 4 ? ", ..." : "", f->private_ ? "the lock is private to this process"
				 : "they did not map the lock's object when the snapshot was taken");
	}
	if (!n) {
		lt_strlist_add(&v->evidence, "no other thread of the process is running or asleep in a call%s", other);
		return;
	}
	char more[64] = "";
	if (all > n)
		snprintf(more, sizeof(more), " (the %zu of %zu nearest)", n, all);
	lt_strlist_add(&v->evidence, "the lock records no holder; any thread of this process holding it "
		       "is among these%s (inferred, not recorded; %sthose blocked for about as long as the "
		       "waiters' %.1f s first)%s:", more, own ? "those that run the waiters' code, then " : "",
		       quiet, other);
	for (size_t k = 0; k < n; k++) {
		const struct lt_thread *t = &s->threads[pick[k]];
		char *doing = holder_doing(s, t);
		char dm[256];
		if (code[k])
			lt_strlist_add(&v->evidence, "thread %d (%s), %s; it runs the waiters' code (%s)",
				       (int)t->tid, lt_thread_name(t), doing,
				       lt_func_display(code[k], dm, sizeof(dm)));
		else
			lt_strlist_add(&v->evidence, "thread %d (%s), %s", (int)t->tid, lt_thread_name(t), doing);
		free(doing);
		for (size_t e = 0; t->wf && e < t->wf->n_edges && e < 2; e++) {
			char *l = lt_wf_edge_line(&t->wf->edges[e]);
			if (l)
				lt_strlist_add(&v->evidence, "thread %d waits for: %s", (int)t->tid, l);
			free(l);
		}
	}
}

static void lock_group(struct lt_snapshot *s, const struct waiter *w, size_t a, size_t b,
		       int min_waiters)
{
	size_t cnt = b - a, agree;
	const struct lt_futex *how;
	pid_t owner = vote_owner(s, w, a, b, &agree, &how);
	const struct lt_thread *t0 = &s->threads[w[a].idx];
	bool runtime = t0->futex.rtlock != 0;
	/* a Condition's waiters queue for no lock: never a convoy; nor do
	 * a runtime's waiters for a notify() (Object.wait(), await()) */
	bool cond = how && how->owner_kind == LT_OWNER_COND;
	const struct lt_rtlock *rl = runtime && t0->futex.rtlock <= s->n_rtlocks
				     ? &s->rtlocks[t0->futex.rtlock - 1] : NULL;
	bool notify = rl && rl->wait_call && (rl->wake_call || lt_done_kind_of(rl->kind));
	bool dead = false;
	char *why = owner ? NULL : unknown_holder(s, t0, &dead);
	/* no holder known, and nothing has moved for a while: not a convoy
	 * (its waiters would run in turn) but a lock that is not handed on */
	double quiet = owner || dead || t0->futex.owner_gone || t0->futex.owner_tgid > 0 ||
		       rt_holder_gone(s, t0) || (rl && rl->holderless) ? -1 : quiet_for(s, w, a, b);
	/* and the one thread not waiting that runs the waiters' code, asleep
	 * in a call: its probable holder, marked as inferred */
	bool *quiet_marks = NULL;
	struct lt_futex inferred = { 0 };
	char inferred_how[200];
	struct quiet_code qc = { .base = exe_base_of(s) };
	if (quiet >= 0 && (quiet_marks = calloc(s->n_threads ? s->n_threads : 1, sizeof(bool)))) {
		const char *func = NULL;
		for (size_t k = a; k < b; k++)
			quiet_marks[w[k].idx] = true;
		qc.n = waiters_code(s, w, a, b, qc.base, qc.names);
		/* a lock other processes can take (not private, or in a shared
		 * mapping: a multiprocessing.Lock) may be held by a thread of
		 * any of them, its forked children running the same code: no
		 * suspect of this one alone (the candidates are still listed) */
		bool others = !t0->futex.private_ || t0->futex.shared_obj;
		pid_t susp = others ? 0 : quiet_suspect(s, &qc, quiet_marks, runtime, &func);
		if (susp) {
			snprintf(inferred_how, sizeof(inferred_how), "runs the waiters' code (%s), and of the "
				 "threads not waiting on a lock it is the only one that does", func);
			inferred.owner_kind = LT_OWNER_INFERRED;
			inferred.owner = susp;
			inferred.owner_how = inferred_how;
			owner = susp;
			how = &inferred;
			agree = 0;
		}
	}
	bool convoy = cnt >= (size_t)min_waiters && !cond && !notify && quiet < 0;
	struct lt_verdict *v = lts_verdict_new(s, convoy ? LT_VERDICT_CONVOY : LT_VERDICT_LOCK_WAIT);
	if (!v) {
		free(why);
		free(quiet_marks);
		return;
	}
	double longest = -1;
	for (size_t k = a; k < b; k++) {
		const struct lt_thread *t = &s->threads[w[k].idx];
		lts_verdict_add(v, t->tid, t->futex.uaddr, true);
		if (t->idle_src != LT_IDLE_UNKNOWN && t->idle_s > longest)
			longest = t->idle_s;
	}
	v->owner = owner;
	v->owner_source = how ? owner_source(how) : NULL;
	v->explains = cnt + (owner ? 1 : 0);
	v->longest_s = longest;
	char *lp = lock_phrase(s, &t0->futex);
	const struct lt_thread *o = owner ? lt_snapshot_find(s, owner) : NULL;
	char *doing = o ? holder_doing(s, o) : NULL;
	const char *ts = cnt == 1 ? "thread waits" : "threads wait";
	/* a shared lock that records no holder at all (a semaphore), that no
	 * other live process maps, every thread of this process waiting for
	 * it: none can post it (multiprocessing's lock of a worker killed
	 * holding it); a mutex's recorded owner is said as such instead */
	bool orphaned = !owner && t0->futex.lock_kind && !strcmp(t0->futex.lock_kind, "semaphore") &&
			lts_futex_own_only(&t0->futex) && !t0->futex.timeout_ptr;
	pid_t own_pid = s->thread_pid ? s->thread_pid[w[a].idx] : t0->wf ? t0->wf->pid : s->pid;
	for (size_t i = 0; orphaned && i < s->n_threads; i++) {
		const struct lt_thread *u = &s->threads[i];
		if ((s->thread_pid ? s->thread_pid[i] : u->wf ? u->wf->pid : s->pid) != own_pid)
			continue;
		bool waits = false;
		for (size_t k = a; k < b && !waits; k++)
			waits = w[k].idx == i;
		orphaned = waits;
	}
	char quiet_d[32] = "";
	if (quiet >= 0)
		lts_fmt_duration(quiet, quiet_d, sizeof(quiet_d));
	if (runtime || !convoy) {
		struct notify_words nw;
		const struct lt_done_kind *dk = NULL;
		const struct lt_rtlock *dlk = owner && o && how ? done_lock_k(s, how, &dk) : NULL;
		char orelse[200] = "";
		if (dk && dk->els)
			snprintf(orelse, sizeof(orelse), " (or on %s)", dk->els);
		if (dlk && dk->exit)
			v->summary = lts_asprintf("%zu %s in %s for thread %d (%s) to exit, %s: %s when %s%s", cnt,
						  ts, dlk->wait_call, (int)owner, lt_thread_name(o), doing,
						  cnt == 1 ? "the wait ends" : "their waits end", dk->done_what, orelse);
		else if (dlk)
			v->summary = lts_asprintf("%zu %s in %s for %s%s, %s thread %d (%s), %s: %s "
						  "when %s%s", cnt, ts, dlk->wait_call, dk->what, dlk->name ? dlk->name : "?",
						  dk->run_by, (int)owner, lt_thread_name(o), doing,
						  cnt == 1 ? "the wait ends" : "their waits end", dk->done_what, orelse);
		else if (owner && o && how && notify_words(s, how, &nw))
			v->summary = lts_asprintf("%zu %s in %s on %s, whose %s thread %d (%s) holds, %s: no %s "
						  "can come but from it, nor can %s go on before it lets go", cnt, ts,
						  nw.wait_call, nw.name, nw.held_what, (int)owner, lt_thread_name(o),
						  doing, nw.wake_call, cnt == 1 ? "it" : "they");
		else if (owner && o && how && how->owner_kind == LT_OWNER_INFERRED)
			v->summary = lts_asprintf("%zu %s for %s probably held by thread %d (%s) (inferred "
						  "from its frames), %s%s%s%s%s", cnt, ts, lp, (int)owner,
						  lt_thread_name(o), doing,
						  quiet >= 0 ? "; " : "", quiet >= 0 ? (cnt == 1 ? "it has not" :
						  "none of them has") : "", quiet >= 0 ? " run for " : "",
						  quiet >= 0 ? quiet_d : "");
		else if (owner && o && how && how->sem_owner)
			v->summary = lts_asprintf("%zu %s for %s held by thread %d (%s) of process %d (its "
						  "multiprocessing SemLock's count and last acquirer, read from "
						  "memory), %s", cnt, ts, lp, (int)owner, lt_thread_name(o),
						  (int)how->sem_pid, doing);
		else if (owner && o)
			v->summary = lts_asprintf("%zu %s for %s held by thread %d (%s), %s", cnt, ts, lp,
						  (int)owner, lt_thread_name(o), doing);
		else if (owner)
			v->summary = lts_asprintf("%zu %s for %s held by %d, not a thread of this process",
						  cnt, ts, lp, (int)owner);
		else if (t0->futex.owner_gone)
			v->summary = lts_asprintf("%zu %s for %s %s", cnt, ts, lp, why);
		else if (rt_holder_gone(s, t0))
			v->summary = lts_asprintf("%zu %s for %s held by a thread that no longer exists (%s)",
						  cnt, ts, lp, why);
		else if (rl && rl->holderless && lt_done_kind_of(rl->kind) && rl->wait_call)
			v->summary = lts_asprintf("%zu %s in %s for %s%s: %s", cnt, ts, rl->wait_call,
						  lt_done_kind_of(rl->kind)->what, rl->name ? rl->name : "?", why);
		else if (rl && rl->holderless)
			v->summary = lts_asprintf("%zu %s on %s: %s", cnt, ts, lp, why);
		else if (t0->futex.owner_tgid > 0)
			v->summary = lts_asprintf("%zu %s for %s held by thread %d of another process, %d (%s); "
						  "snapshot that process to see what it does", cnt, ts, lp,
						  (int)t0->futex.mutex_owner, (int)t0->futex.owner_tgid,
						  t0->futex.owner_comm);
		else if (dead && t0->futex.owner_exited)
			v->summary = lts_asprintf("%zu %s for %s %s", cnt, ts, lp, why);
		else if (orphaned) {
			/* a private semaphore (sem_init's pshared 0) only a
			 * thread of this process can post, a shared one only
			 * a process mapping it; a handler of a signal it
			 * catches may still (a shutdown wait) */
			char sig[400];
			int h = lts_handler_clause(t0, "post", false, sig, sizeof(sig));
			if (h > 0)
				v->kind = LT_VERDICT_UNKNOWN;
			else if (!h && t0->futex.private_)
				v->kind = LT_VERDICT_LOST_WAKEUP; /* the post cannot come */
			if (t0->futex.private_)
				v->summary = lts_asprintf("%zu %s for %s whose holder is not recorded (%s); no thread "
							  "can post it: it is private to this process, and every thread "
							  "of the process waits for it%s", cnt, ts, lp, why, sig);
			else
				v->summary = lts_asprintf("%zu %s for %s whose holder is not recorded (%s); none can "
							  "release it: no other live process maps it, and every thread of "
							  "this one waits for it (a process that held it exited holding "
							  "it?)%s", cnt, ts, lp, why, h >= 0 ? sig : "");
		} else if (quiet >= 0)
			v->summary = lts_asprintf("%zu %s for %s whose holder is not recorded (%s); %s "
						  "run for %s: the lock has not been handed on since", cnt,
						  ts, lp, why, cnt == 1 ? "it has not" : "none of them has", quiet_d);
		else
			v->summary = lts_asprintf("%zu %s for %s whose holder is not recorded (%s)", cnt, ts,
						  lp, why);
	} else {
		/* the convoy line of a plain lock, as before the models */
		char *phrase;
		if (owner && o && (o->state == 'R' || o->sc.state == LT_SC_RUNNING))
			phrase = lts_asprintf("owner %d (%s) is running", (int)owner, lt_thread_name(o));
		else if (owner && o && o->moved)
			phrase = lts_asprintf("owner %d (%s) is busy (its state changed during the snapshot)",
					      (int)owner, lt_thread_name(o));
		else if (owner && o) {
			char *act = lts_thread_activity(o), dur[32];
			lts_fmt_duration(o->idle_s, dur, sizeof(dur));
			phrase = o->idle_src == LT_IDLE_UNKNOWN
				 ? lts_asprintf("owner %d (%s) is in %s", (int)owner, lt_thread_name(o), act ? act : "?")
				 : lts_asprintf("owner %d (%s) has been in %s for %s", (int)owner, lt_thread_name(o),
						act ? act : "?", dur);
			free(act);
		} else if (owner) {
			phrase = lts_asprintf("owner %d is not a thread of this process", (int)owner);
		} else {
			phrase = lts_strdup(why);
		}
		char semby[96] = "";
		if (how && how->sem_owner && owner)
			snprintf(semby, sizeof(semby), " (of process %d, read from its multiprocessing SemLock)",
				 (int)how->sem_pid);
		v->summary = lts_asprintf("convoy: %zu threads wait on %s; %s%s%s", cnt, lp, phrase,
					  how && how->owner_kind == LT_OWNER_INFERRED && owner
					  ? " (holder inferred from its frames)" : "", semby);
		free(phrase);
	}
	char list[400], dur[32];
	size_t ll = 0;
	list[0] = 0;
	for (size_t k = 0; k < v->n_tids && ll < sizeof(list) - 16; k++)
		ll += (size_t)snprintf(list + ll, sizeof(list) - ll, "%s%d", k ? ", " : "", (int)v->tids[k]);
	lts_fmt_duration(longest, dur, sizeof(dur));
	/* a runtime lock whose waiters park on a timer and park again (a
	 * HotSpot monitor's "responsible" waiter, every second at most):
	 * the kernel's last run time is the current park's, not the wait's */
	bool timed = false;
	for (size_t k = 0; k < v->n_tids; k++) {
		const struct lt_thread *w = lt_snapshot_find(s, v->tids[k]);
		timed |= w && w->futex.rtlock && w->futex.timeout_ptr;
	}
	lt_strlist_add(&v->evidence, "waiters (%zu, longest %s%s): %s%s", cnt, dur,
		       timed ? " in its current park: a waiter of this runtime lock parks on a timer and parks "
			       "again, so the whole wait may be longer" : "", list,
		       ll >= sizeof(list) - 16 ? ", ..." : "");
	if (quiet >= 0)
		lt_strlist_add(&v->evidence, "%s has not run for %s (the kernel's last run times): nobody "
			       "has woken %s since", cnt == 1 ? "the waiter" : "the waiter that slept last",
			       quiet_d, cnt == 1 ? "it" : "any of them");
	for (size_t k = a; k < b && k < a + 8; k++)
		rt_waits_at(v, &s->threads[w[k].idx]);
	if (t0->futex.lock_state)
		lt_strlist_add(&v->evidence, "lock state: %s", t0->futex.lock_state);
	if (runtime) {
		/* the decoded fields are listed with the runtime lock itself */
		const struct lt_rtlock *l = &s->rtlocks[t0->futex.rtlock - 1];
		char wn[48] = "";
		if (l->waiters >= 0)
			snprintf(wn, sizeof(wn), ", %d waiting by its own count", l->waiters);
		lt_strlist_add(&v->evidence, "%s %s%s%s: %s%s", l->kind, l->name ? l->name : "?",
			       l->version ? " in " : "", l->version ? l->version : "",
			       l->held == 1 ? "held" : l->held == 0 ? "free" : "state unknown", wn);
	}
	if (owner) {
		owner_evidence(v, s, owner, how, agree, cnt);
	} else if (t0->futex.owner_gone && t0->futex.sem_owner) {
		lt_strlist_add(&v->evidence, "holder gone, read from memory: %s", t0->futex.owner_how
			       ? t0->futex.owner_how : "its process's SemLock");
	} else if (t0->futex.owner_gone) {
		const struct lt_futex *f = &t0->futex;
		char who[40]; /* an exited thread's pthread_t no longer holds its tid */
		if (f->gone_tid > 0)
			snprintf(who, sizeof(who), "%d", (int)f->gone_tid);
		else
			snprintf(who, sizeof(who), "pthread 0x%" PRIx64, f->gone_ptr);
		lt_strlist_add(&v->evidence, "the lock is private to this process (%s), so no thread of "
			       "another process can hold it; its recorded owner %s%s%s",
			       f->lock_kind && !strcmp(f->lock_kind, "threading.RLock") ? "a Python object"
			       : "FUTEX_PRIVATE", who,
			       f->gone_parent ? " is a live thread of an ancestor process, " : " is no thread of it",
			       f->gone_parent ? "which held it when this process was forked" : "");
		if (f->gone_parent)
			lt_strlist_add(&v->evidence, "process %d: snapshot it to see what its thread %d does "
				       "(nothing it does can release this process's copy)",
				       (int)f->gone_parent, (int)f->gone_tid);
	} else if (dead && t0->futex.owner_exited) {
		const struct lt_futex *f = &t0->futex;
		lt_strlist_add(&v->evidence, "the pthread mutex __owner field holds tid %d, and no thread has "
			       "that tid: /proc/%d did not exist when the snapshot read the lock, and the target "
			       "is in locktrace's pid namespace, whose tids /proc names", (int)f->mutex_owner,
			       (int)f->mutex_owner);
		lt_strlist_add(&v->evidence, "inferred: its owner exited while holding the lock (a "
			       "process-shared mutex's owner in a nested pid namespace would have stored "
			       "that namespace's tid instead)%s", (f->mutex_kind & 0x10) ? ""
			       : "; the mutex is not robust (__kind has no PTHREAD_MUTEX_ROBUST bit), so "
				 "no EOWNERDEAD will come");
	} else if (dead) {
		lt_strlist_add(&v->evidence, "the pthread mutex __owner field holds tid %d, which is not "
			       "a thread of this process: the owner probably exited while holding the lock",
			       (int)t0->futex.mutex_owner);
	} else {
		if (t0->acquire)
			lt_strlist_add(&v->evidence, "thread %d waits in %s: a lock acquire", (int)t0->tid,
				       t0->acquire);
		else
			lt_strlist_add(&v->evidence, "lock word %u looks like a lock held with waiters, "
				       "but no owner tid is stored with it", t0->futex.word);
		rt_frames_evidence(v, t0, "thread", 4);
		char dm[256];
		for (size_t f = 0; f < t0->n_frames && f < (t0->n_rt_frames ? 4u : 8u); f++)
			if (t0->frames[f].func)
				lt_strlist_add(&v->evidence, "thread %d frame #%zu: %s (%s)", (int)t0->tid, f,
					       lt_func_display(t0->frames[f].func, dm, sizeof(dm)),
					       t0->frames[f].module ? t0->frames[f].module : "?");
		if (quiet >= 0)
			quiet_candidates(v, s, w, a, &qc, quiet_marks, quiet);
	}
	free(lp);
	free(doing);
	free(why);
	free(quiet_marks);
}

/* ---- a wait for a thread that is not stuck ----
 *
 * A runtime's wait for another thread to finish (Java's Thread.join() and
 * FutureTask.get(), OCaml's Thread.join and Domain.join: a lock of a
 * lt_done_kind_of kind, held by that thread) is a lock wait only when
 * that thread's own state shows it blocked: asleep with no timeout in a
 * lock wait, a join or get() of a thread so blocked, or I/O, a child or
 * signal wait.  One that runs, sleeps on a timer (Thread.sleep), or idles
 * in an event wait (a futex with no owner: a condition variable, a park
 * with no holder, a BlockingQueue's take(); a poll) ends when it does,
 * and nothing shows that it will not: the wait is no lock wait, as a C or
 * Python join of such a thread is none.  It is a chain into the thread's
 * verdict if a later rule finds it stuck (waitfor_verdicts.c, join_pass),
 * and else counted with the joins in the IDLE or OK verdict. */
static bool done_holder_blocked(const struct lt_snapshot *s, const struct lt_thread *o, int depth)
{
	if (!o || busy(o) || o->sc.state != LT_SC_IN_SYSCALL)
		return false;
	const struct lt_futex *f = &o->futex;
	/* a join of a join: as blocked as the thread at its end (a cycle of
	 * joins is a deadlock, found before) */
	if (o->wait == LT_WAIT_FUTEX && f->is_wait && !f->timeout_ptr && depth < 16 &&
	    (done_lock(s, f) || (f->owner_kind == LT_OWNER_JOIN && f->owner > 0)))
		return f->owner == o->tid || done_holder_blocked(s, lt_snapshot_find(s, f->owner), depth + 1);
	if (timed_any(s, o) || lts_java_sleep(o) || lts_runtime_idle(o))
		return false;
	switch (o->wait) {
	case LT_WAIT_FUTEX:
		return lock_wait(o);
	case LT_WAIT_POLL:
	case LT_WAIT_SLEEP:
		return false;
	default:
		break;
	}
	/* fd I/O whose other end is read (waitfor.h): an accept() (anyone may
	 * connect), a remote peer, a timer, an unknown party, or a local
	 * socket peer that runs or idles can end it: not blocked (a chain
	 * into it is the later rules' when its wait is found stuck,
	 * join_pass); a pipe's read or write stays blocked, as before */
	if (!o->wf || !o->wf->n_edges || lts_wf_own_pipe_stuck(o))
		return true;
	for (size_t i = 0; i < o->wf->n_edges; i++) {
		const struct lt_wf_edge *e = &o->wf->edges[i];
		if (e->kind == LT_WF_FILE_LOCK || e->kind == LT_WF_APP_LOCK)
			return true;
		if (e->kind == LT_WF_LISTEN || e->kind == LT_WF_REMOTE || e->kind == LT_WF_TIMER ||
		    e->kind == LT_WF_UNKNOWN || (e->kind == LT_WF_SOCKET && e->pstate != LT_WFP_BLOCKED))
			return false;
	}
	return true;
}

/* T waits for another thread to finish that nothing shows blocked (one
 * not among S's threads is not known: said as before). */
static bool done_wait_free(const struct lt_snapshot *s, const struct lt_thread *t)
{
	const struct lt_futex *f = &t->futex;
	if (t->wait != LT_WAIT_FUTEX || !f->is_wait || !done_lock(s, f))
		return false;
	const struct lt_thread *o = lt_snapshot_find(s, f->owner);
	return o && o != t && !done_holder_blocked(s, o, 0);
}

static void find_lock_waits(struct lt_snapshot *s, int min_waiters, const bool *in_cycle)
{
	size_t n = s->n_threads, m = 0;
	struct waiter *w = malloc((n ? n : 1) * sizeof(*w));
	if (!w)
		return;
	for (size_t i = 0; i < n; i++)
		if (!in_cycle[i] && lock_wait(&s->threads[i]) && !done_wait_free(s, &s->threads[i]))
			w[m++] = waiter_of(s, i, lock_key(&s->threads[i].futex));
	qsort(w, m, sizeof(*w), waiter_cmp);
	for (size_t a = 0; a < m;) {
		size_t b = a;
		while (b < m && same_lock(&w[b], &w[a]))
			b++;
		lock_group(s, w, a, b, min_waiters);
		a = b;
	}
	free(w);
}

/* ---- a runtime lock held across a blocking call ---- */

/* The holder of runtime lock LI, asleep in a system call that is not a wait
 * for that lock; NULL otherwise. */
static const struct lt_thread *rt_blocked_holder(const struct lt_snapshot *s, size_t li)
{
	const struct lt_rtlock *l = &s->rtlocks[li];
	const struct lt_thread *o = l->held == 1 && l->holder > 0 ? lt_snapshot_find(s, l->holder) : NULL;
	if (!o || o->state == 'R' || o->sc.state != LT_SC_IN_SYSCALL || o->moved ||
	    (o->wait == LT_WAIT_FUTEX && o->futex.rtlock == li + 1))
		return NULL;
	return o;
}

/* A runtime lock held by a thread blocked in a system call, whose waiters
 * were not asleep on it when the snapshot read them (CPython's GIL
 * waiters retry every 5 ms: on a loaded machine they spend most of their
 * time runnable, between two waits).  The waiters the snapshot saw on its
 * words while re-sampling (l->seen, snapshot.c) make it a finding that
 * names the holder; so does, for a lock every thread of the runtime needs
 * (the GIL, OCaml's runtime lock), any runnable thread of the process,
 * said as what it is: possibly waiting, not seen waiting.  Locks already
 * explained by find_lock_waits (a waiter asleep on them) are left alone. */
static void find_rt_blocked_holders(struct lt_snapshot *s, int min_waiters, const bool *in_cycle)
{
	for (size_t li = 0; li < s->n_rtlocks; li++) {
		const struct lt_rtlock *l = &s->rtlocks[li];
		const struct lt_thread *o = rt_blocked_holder(s, li);
		/* a joined thread or a task's runner holds nothing others take */
		if (!o || l->waiters_named || lt_done_kind_of(l->kind))
			continue;
		size_t asleep = 0, runnable = 0;
		for (size_t i = 0; i < s->n_threads; i++) {
			const struct lt_thread *t = &s->threads[i];
			if (t->tid == o->tid)
				continue;
			if (!in_cycle[i] && lock_wait(t) && t->futex.rtlock == li + 1)
				asleep++;
			if (busy(t))
				runnable++;
		}
		if (asleep)
			continue; /* lock_group named the holder */
		bool global = l->has_handoffs || l->kept_while_asleep;
		if (!l->n_seen && !(global && runnable))
			continue;
		size_t cnt = l->n_seen;
		struct lt_verdict *v = lts_verdict_new(s, cnt >= (size_t)min_waiters ? LT_VERDICT_CONVOY
										: LT_VERDICT_LOCK_WAIT);
		if (!v)
			return;
		for (size_t k = 0; k < cnt; k++)
			lts_verdict_add(v, l->seen[k], l->base, true);
		struct lt_futex how = { .rtlock = (unsigned)li + 1, .owner_kind = LT_OWNER_RUNTIME,
					.owner = o->tid };
		v->owner = o->tid;
		v->owner_source = owner_source(&how);
		v->explains = cnt + 1;
		v->longest_s = o->idle_src != LT_IDLE_UNKNOWN ? o->idle_s : -1;
		char *doing = holder_doing(s, o);
		const char *name = l->name ? l->name : "?";
		if (cnt)
			v->summary = lts_asprintf("%zu %s for the %s (%s) held by thread %d (%s), %s", cnt,
						  cnt == 1 ? "thread waits" : "threads wait", l->kind, name,
						  (int)o->tid, lt_thread_name(o), doing);
		else
			v->summary = lts_asprintf("the %s (%s) is held by thread %d (%s), %s: no other thread "
						  "can take it until that call returns (%zu runnable thread(s), "
						  "none seen waiting for it)", l->kind, name, (int)o->tid,
						  lt_thread_name(o), doing, runnable);
		free(doing);
		char list[400];
		size_t ll = 0;
		list[0] = 0;
		for (size_t k = 0; k < v->n_tids && ll < sizeof(list) - 16; k++)
			ll += (size_t)snprintf(list + ll, sizeof(list) - ll, "%s%d", k ? ", " : "", (int)v->tids[k]);
		if (cnt)
			lt_strlist_add(&v->evidence, "waiters seen in a futex wait on its words while the "
				       "holder stayed in its call (%d sample(s) over %.1f ms; between two "
				       "timed waits they were runnable, not asleep): %s%s",
				       l->seen_samples, l->seen_span_ms, list,
				       ll >= sizeof(list) - 16 ? ", ..." : "");
		else
			lt_strlist_add(&v->evidence, "no thread was seen asleep on its words in %d sample(s) "
				       "over %.1f ms; %zu thread(s) were runnable (waiters that retry in "
				       "timed slices are runnable between two waits)", l->seen_samples,
				       l->seen_span_ms, runnable);
		lt_strlist_add(&v->evidence, "%s %s%s%s: held", l->kind, name, l->version ? " in " : "",
			       l->version ? l->version : "");
		owner_evidence(v, s, o->tid, &how, 0, cnt);
	}
}

/* ---- stopped ---- */

/* Threads stopped by a job-control signal (SIGSTOP, SIGTSTP, SIGTTIN,
 * SIGTTOU: state T) or by a tracer (state t): whatever call they are in,
 * even a sleep its timer ends, they run again only when continued, so
 * none of them is idle. */
static pid_t proc_of(const struct lt_thread *t)
{
	return t->wf ? t->wf->pid : 0;
}

static void find_stopped(struct lt_snapshot *s)
{
	size_t sig = 0, traced = 0;
	/* the processes with stopped threads (in a snapshot of several, the
	 * count is of their threads), and whether there are others */
	pid_t procs[16];
	size_t np = 0, of = 0;
	bool several = false;
	for (size_t i = 0; i < s->n_threads; i++) {
		const struct lt_thread *t = &s->threads[i];
		sig += t->state == 'T';
		traced += t->state == 't';
		several |= proc_of(t) != proc_of(&s->threads[0]);
		if (t->state != 'T' && t->state != 't')
			continue;
		size_t k = 0;
		while (k < np && procs[k] != proc_of(t))
			k++;
		if (k == np && np < sizeof(procs) / sizeof(procs[0]))
			procs[np++] = proc_of(t);
	}
	if (!sig && !traced)
		return;
	for (size_t i = 0; i < s->n_threads; i++)
		for (size_t k = 0; k < np; k++)
			of += procs[k] == proc_of(&s->threads[i]);
	if (!several || np == sizeof(procs) / sizeof(procs[0]))
		of = s->n_threads;
	char whose[96] = "";
	if (several && np == 1) {
		const struct lt_thread *first = NULL;
		for (size_t i = 0; i < s->n_threads && !first; i++)
			if (proc_of(&s->threads[i]) == procs[0])
				first = &s->threads[i];
		snprintf(whose, sizeof(whose), " of process %d%s%s%s", (int)procs[0], first ? " (" : "",
			 first ? first->comm : "", first ? ")" : "");
	} else if (several && np > 1) {
		snprintf(whose, sizeof(whose), " of the %zu processes they are in", np);
	}
	/* their tracer, when one holds them all (TracerPid: waitfor.c) */
	const struct lt_waitfor *tw = NULL;
	for (size_t i = 0; i < s->n_threads; i++) {
		const struct lt_waitfor *w = s->threads[i].wf;
		if (s->threads[i].state != 't')
			continue;
		if (!w || !w->tracer || (tw && tw->tracer != w->tracer)) {
			tw = NULL;
			break;
		}
		if (!tw)
			tw = w;
	}
	char by[256] = "";
	/* a tracer running, or waiting for its tracees' next stops (strace
	 * in wait4), is handling the stop: momentary, most likely */
	const char *d0 = tw && tw->tracer_doing ? strrchr(tw->tracer_doing, ':') : NULL;
	bool busy = tw && !sig && (tw->tracer_st == LT_WFP_RUNNING ||
				   (d0 && (!strcmp(d0, ": wait4") || !strcmp(d0, ": waitid"))));
	if (tw) {
		const char *d = tw->tracer_doing, *o = d ? strstr(d, " (") : NULL, *cl = o ? strchr(o, ')') : NULL;
		snprintf(by, sizeof(by), ", process %d%s%.*s%s, which is %s", (int)tw->tracer, o ? " (" : "",
			 o && cl ? (int)(cl - o - 2) : 0, o ? o + 2 : "", o ? ")" : "",
			 lt_wf_pstate_words(tw->tracer_st));
	}
	struct lt_verdict *v = lts_verdict_new(s, LT_VERDICT_STOPPED);
	if (!v)
		return;
	v->longest_s = -1;
	if (sig && !traced)
		v->summary = lts_asprintf("%zu of %zu threads%s are stopped by a signal (state T: SIGSTOP, "
					  "SIGTSTP, SIGTTIN or SIGTTOU): whatever they wait for, they run "
					  "again only when the process gets SIGCONT", sig, of, whose);
	else if (busy)
		v->summary = lts_asprintf("%zu of %zu threads%s are in a ptrace stop of a tracer%s: a stop it is "
					  "handling, as strace does at each system call it reports (momentary, "
					  "inferred: a second snapshot shows them move on)", traced, of, whose, by);
	else if (!sig)
		v->summary = lts_asprintf("%zu of %zu threads%s are stopped by a tracer%s (state t: a debugger "
					  "or strace holds them): they run again only when it lets them go",
					  traced, of, whose, by);
	else
		v->summary = lts_asprintf("%zu of %zu threads%s are stopped: %zu by a signal (state T, until "
					  "SIGCONT), %zu by a tracer (state t)%s", sig + traced, of, whose,
					  sig, traced, by);
	if (tw)
		lt_strlist_add(&v->evidence, "tracer %d: %s [TracerPid of /proc/PID/task/TID/status]", (int)tw->tracer,
			       tw->tracer_doing ? tw->tracer_doing : "?");
	for (size_t i = 0; i < s->n_threads; i++) {
		const struct lt_thread *t = &s->threads[i];
		if (t->state != 'T' && t->state != 't')
			continue;
		lts_verdict_add(v, t->tid, 0, false);
		v->explains += !busy; /* a momentary stop explains no stall */
		if (t->idle_s > v->longest_s)
			v->longest_s = t->idle_s;
		if (v->n_tids <= 8)
			lt_strlist_add(&v->evidence, "thread %d (%s) state %c, in %s", (int)t->tid, t->comm,
				       t->state, t->sc.state == LT_SC_IN_SYSCALL && t->sc_name ? t->sc_name
				       : "no system call");
	}
	if (v->n_tids > 8)
		lt_strlist_add(&v->evidence, "and %zu more", v->n_tids - 8);
}

/* ---- glibc's endless wait ---- */

/* A thread glibc parks for ever after the kernel refused it a PI or robust
 * mutex (lt_futex.parked), and the threads that wait for a lock it holds:
 * nothing can end those waits.  With such waiters, the kernel's EDEADLK
 * was most likely a cycle through them (a probable deadlock; an owner that
 * died, ESRCH, is the other reason); alone, a thread that sleeps for ever.
 * Their threads are explained here (IN_CYCLE), not as lock waits. */
static void find_parked(struct lt_snapshot *s, bool *in_cycle)
{
	for (size_t i = 0; i < s->n_threads; i++) {
		const struct lt_thread *p = &s->threads[i];
		if (!p->futex.parked || !asleep(p) || p->moved || in_cycle[i])
			continue;
		size_t nw = 0; /* the threads waiting for a lock it holds */
		/* a lock wait, not a deadlock: which mutex it was refused, and
		 * so whether a cycle (EDEADLK) or a dead owner (ESRCH), is not
		 * recorded */
		struct lt_verdict *v = lts_verdict_new(s, LT_VERDICT_LOCK_WAIT);
		if (!v)
			return;
		char chain[300] = "";
		size_t cl = 0;
		for (size_t k = 0; k < s->n_threads; k++) {
			const struct lt_thread *t = &s->threads[k];
			if (k == i || t->wait != LT_WAIT_FUTEX || !asleep(t) || t->moved || in_cycle[k] ||
			    !has_owner(&t->futex) || t->futex.owner_kind == LT_OWNER_JOIN || t->futex.owner != p->tid)
				continue;
			lts_verdict_add(v, t->tid, t->futex.uaddr, true);
			in_cycle[k] = true;
			nw++;
			if (t->idle_src != LT_IDLE_UNKNOWN && t->idle_s > v->longest_s)
				v->longest_s = t->idle_s;
			char *lp = lock_phrase(s, &t->futex);
			if (cl < sizeof(chain) - 80)
				cl += (size_t)snprintf(chain + cl, sizeof(chain) - cl, "%sthread %d (%s) waits for %s",
						       cl ? ", " : "", (int)t->tid, lt_thread_name(t), lp ? lp : "?");
			free(lp);
			edge_evidence(v, s, t);
		}
		lts_verdict_add(v, p->tid, p->futex.uaddr, false);
		in_cycle[i] = true;
		if (p->idle_src != LT_IDLE_UNKNOWN && p->idle_s > v->longest_s)
			v->longest_s = p->idle_s;
		v->explains = v->n_tids;
		static const char why[] = "glibc parks a thread there when the kernel refuses it a PI or robust "
					  "mutex (EDEADLK: taking it would have closed a cycle of PI mutexes; ESRCH: "
					  "its owner died)";
		if (nw)
			v->summary = lts_asprintf("%s, held by thread %d (%s), which sleeps for ever on a zero word "
						  "of its own stack in pthread_mutex_lock: %s; none of them can go "
						  "on: a deadlock of PI mutexes the kernel refused to close, or a "
						  "dead owner (inferred from where %d sleeps)", chain, (int)p->tid,
						  lt_thread_name(p), why, (int)p->tid);
		else
			v->summary = lts_asprintf("thread %d (%s) sleeps for ever on a zero word of its own stack in "
						  "pthread_mutex_lock: %s; nothing wakes it (inferred from where it "
						  "sleeps)", (int)p->tid, lt_thread_name(p), why);
		lt_strlist_add(&v->evidence, "thread %d (%s) %s", (int)p->tid, lt_thread_name(p),
			       p->detail ? p->detail : "futex wait on its own stack");
		for (size_t k = 0; k < p->n_frames && k < 4; k++)
			lt_strlist_add(&v->evidence, "thread %d frame #%zu: %s (%s)", (int)p->tid, k,
				       p->frames[k].func ? p->frames[k].func : "?",
				       p->frames[k].module ? p->frames[k].module : "?");
		v->owner = p->tid;
		v->owner_source = "glibc's endless wait after a refused PI or robust mutex (inferred)";
	}
}

/* ---- idle / ok ---- */

/* Asleep in a system call that the rules and the wait-for edges do not
 * follow (semop, mq_timedreceive, msgrcv, restart_syscall, ...): counted
 * "other" below, with a thread not in a system call. */
static bool other_wait(const struct lt_thread *t)
{
	return !busy(t) && t->sc.state == LT_SC_IN_SYSCALL && t->wait == LT_WAIT_OTHER &&
	       !(t->wf && t->wf->n_edges);
}

/* Every thread asleep on a private futex (or a shared one no other live
 * process maps) with no timeout (a condition
 * variable, a semaphore, a lock with no owner recorded) or joining one of
 * them: a private futex is woken only by a thread of its own process (the
 * kernel keys it by the process), and none of them will run. */
static bool none_can_wake(const struct lt_snapshot *s)
{
	if (!s->n_threads)
		return false;
	for (size_t i = 0; i < s->n_threads; i++) {
		const struct lt_thread *t = &s->threads[i];
		const struct lt_futex *f = &t->futex;
		if (!asleep(t) || t->wait != LT_WAIT_FUTEX || !f->is_wait || f->timeout_ptr)
			return false;
		/* a pthread_join: the kernel wakes it when that thread exits */
		if (f->owner_kind == LT_OWNER_JOIN)
			continue;
		/* a shared one that no other live process maps either */
		if (!lts_futex_own_only(f) || f->owner_kind != LT_OWNER_NONE)
			return false;
	}
	return true;
}

struct tid_proc {
	pid_t pid;
	size_t idx;
};

/* by process, then by index: each process's first thread first */
static int tid_proc_cmp(const void *a, const void *b)
{
	const struct tid_proc *x = a, *y = b;
	if (x->pid != y->pid)
		return x->pid < y->pid ? -1 : 1;
	return x->idx < y->idx ? -1 : x->idx > y->idx;
}

/* lts_handler_clause for every process of S's threads (a combined view:
 * each by its own signals), "wake" them. */
static int handler_clause_all(const struct lt_snapshot *s, bool plural, char *buf, size_t len)
{
	pid_t first = s->n_threads ? thread_proc(s, &s->threads[0]) : 0;
	bool one = true;
	for (size_t i = 1; i < s->n_threads && one; i++)
		one = thread_proc(s, &s->threads[i]) == first;
	if (one)
		return lts_handler_clause(&s->threads[0], "wake", plural, buf, len);
	/* each process once (its threads carry its signals): the threads
	 * sorted by process, the first of each; not a scan of the threads
	 * before each one (n squared in a large view) */
	int any = 0, unread = 0;
	size_t l = 0;
	buf[0] = 0;
	struct tid_proc *tp = malloc(s->n_threads * sizeof(*tp));
	if (!tp) {
		snprintf(buf, len, " (only a signal handler that wakes them could)");
		return -1;
	}
	for (size_t i = 0; i < s->n_threads; i++)
		tp[i] = (struct tid_proc){ thread_proc(s, &s->threads[i]), i };
	qsort(tp, s->n_threads, sizeof(*tp), tid_proc_cmp);
	for (size_t k = 0; k < s->n_threads; k++) {
		if (k && tp[k].pid == tp[k - 1].pid)
			continue;
		char sigs[200];
		int h = lts_handled_signals(&s->threads[tp[k].idx], sigs, sizeof(sigs));
		unread |= h < 0;
		if (h > 0 && l + 80 < len)
			l += (size_t)snprintf(buf + l, len - l, "%s process %d catches %s", any++ ? "," : "",
					      (int)tp[k].pid, sigs);
	}
	free(tp);
	if (any) {
		char *c = lts_asprintf("; only a signal could still end their waits:%s (a handler may wake them): hung, "
				       "or waiting for that signal", buf);
		snprintf(buf, len, "%s", c ? c : "");
		free(c);
		return 1;
	}
	if (unread) {
		snprintf(buf, len, " (only a signal handler that wakes them could)");
		return -1;
	}
	snprintf(buf, len, "; nor can a signal handler: no signal these processes catch can run one now (SigCgt and "
		 "SigBlk of /proc/PID/status: none caught, or blocked by every thread, or faults only)");
	return 0;
}

/* The verdict when none_can_wake: nothing of the process can end these
 * waits (a lost wake-up: the one they wait for can no longer come). */
static void nobody_left_to_wake(struct lt_snapshot *s, size_t condvar, size_t joins)
{
	/* a handler of a signal it catches may still wake one: not known lost */
	char sig[600];
	int h = handler_clause_all(s, s->n_threads > 1, sig, sizeof(sig));
	struct lt_verdict *v = lts_verdict_new(s, h > 0 ? LT_VERDICT_UNKNOWN : LT_VERDICT_LOST_WAKEUP);
	if (!v)
		return;
	for (size_t i = 0; i < s->n_threads; i++) {
		const struct lt_thread *t = &s->threads[i];
		lts_verdict_add(v, t->tid, t->futex.owner_kind == LT_OWNER_JOIN ? 0 : t->futex.uaddr,
				t->futex.owner_kind != LT_OWNER_JOIN);
		if (t->idle_src != LT_IDLE_UNKNOWN && t->idle_s > v->longest_s)
			v->longest_s = t->idle_s;
		if (i < 8) {
			char lb[160];
			lt_strlist_add(&v->evidence, "thread %d (%s) waits on %s with no timeout", (int)t->tid,
				       lt_thread_name(t), t->futex.owner_kind == LT_OWNER_JOIN
				       ? "the exit of another thread (pthread_join)" : lts_lock_label(&t->futex, lb, sizeof(lb)));
		}
	}
	if (s->n_threads > 8)
		lt_strlist_add(&v->evidence, "and %zu more", s->n_threads - 8);
	v->explains = v->n_tids;
	if (s->n_threads == 1)
		v->summary = lts_asprintf("%s: the only thread, %d (%s), sleeps on a private futex with no timeout "
					  "(%s), which only a thread of its own process can wake, and there is none%s%s",
					  h > 0 ? "no thread is left to wake it" : "nothing can wake it",
					  (int)s->threads[0].tid, lt_thread_name(&s->threads[0]),
					  s->threads[0].futex.lock_kind ? s->threads[0].futex.lock_kind
					  : "a condition variable, semaphore or lock with no owner recorded",
					  h > 0 ? "" : ": the wake-up it waits for cannot come", sig);
	else
		v->summary = lts_asprintf("%s: all %zu threads sleep on private futexes with no timeout (%zu) or join "
					  "one that does (%zu), none runs or waits for anything else, and only a thread "
					  "of their own process can wake a private futex%s%s",
					  h > 0 ? "no thread is left to wake them" : "nothing can wake them", s->n_threads,
					  condvar, joins, h > 0 ? "" : ": the wake-ups they wait for cannot come", sig);
}

static void classify_rest(struct lt_snapshot *s)
{
	size_t running = 0, io = 0, condvar = 0, joins = 0, locks = 0, other = 0, unreadable = 0, rt_done = 0;
	size_t by_kind[LT_WAIT_OTHER + 1] = { 0 };
	size_t sock = 0, pipe = 0, fifo = 0; /* of by_kind[LT_WAIT_IO] */
	size_t fifo_open = 0; /* an open() of a FIFO waiting for its other end (waitfor.c) */
	size_t counted = 0;   /* of condvar: a Java latch's or Semaphore's waiters */
	for (size_t i = 0; i < s->n_threads; i++) {
		const struct lt_thread *t = &s->threads[i];
		if (busy(t)) {
			running++; /* moved: ran during the snapshot */
			continue;
		}
		if (t->sc.state != LT_SC_IN_SYSCALL) {
			other++;
			unreadable += t->sc.state == LT_SC_UNREADABLE;
			continue;
		}
		switch (t->wait) {
		case LT_WAIT_POLL:
		case LT_WAIT_IO:
		case LT_WAIT_SLEEP:
		case LT_WAIT_CHILD:
		case LT_WAIT_SIGNAL:
			io++;
			by_kind[t->wait]++;
			if (t->wait == LT_WAIT_IO) {
				sock += t->fdw.io.kind == LT_FD_SOCKET;
				pipe += t->fdw.io.kind == LT_FD_PIPE;
				fifo += t->fdw.io.kind == LT_FD_FIFO;
			}
			break;
		case LT_WAIT_FUTEX:
			if (t->futex.is_wait && t->futex.owner_kind == LT_OWNER_NONE && t->futex.word_ok &&
			    t->futex.word == t->futex.expected) {
				condvar++;
				counted += t->futex.lock_kind && (!strcmp(t->futex.lock_kind, LT_KIND_JAVA_LATCH) ||
								  !strcmp(t->futex.lock_kind, LT_KIND_JAVA_SEMAPHORE));
			}
			else if (t->futex.is_wait && t->futex.owner_kind == LT_OWNER_JOIN)
				joins++; /* waits for a thread to exit, not for a lock */
			else if (t->futex.is_wait && done_lock(s, &t->futex))
				rt_done++; /* a runtime's join or get() (done_wait_free) */
			else if (t->futex.is_wait)
				locks++;
			else
				other++;
			break;
		default:
			if (t->wf && t->wf->n_edges == 1 && lt_wf_fifo_open(&t->wf->edges[0])) {
				io++;
				fifo_open++;
			} else if (t->wf && t->wf->n_edges) {
				/* a message queue's send or receive: its
				 * holders are followed as a pipe's */
				io++;
				by_kind[LT_WAIT_IO]++;
			} else {
				other++;
			}
			break;
		}
	}
	char kinds[300];
	/* sockets, pipes and FIFOs apart: each names another kind of peer */
	snprintf(kinds, sizeof(kinds), "%zu poll/select/epoll, %zu socket I/O, %zu pipe I/O, %zu FIFO I/O, "
		 "%zu other fd I/O (files, devices, unknown), %zu sleep, %zu child wait, %zu signal wait",
		 by_kind[LT_WAIT_POLL], sock, pipe, fifo, by_kind[LT_WAIT_IO] - sock - pipe - fifo,
		 by_kind[LT_WAIT_SLEEP], by_kind[LT_WAIT_CHILD], by_kind[LT_WAIT_SIGNAL]);
	if (fifo_open)
		snprintf(kinds + strlen(kinds), sizeof(kinds) - strlen(kinds), ", %zu FIFO open (waiting for the "
			 "other end)", fifo_open);
	struct lt_verdict *v;
	if (running == 0 && locks == 0 && other == 0 && io > 0) {
		v = lts_verdict_new(s, LT_VERDICT_IDLE);
		if (!v)
			return;
		bool unsure = false, some_blocked = false;
		char *because = lts_wf_idle_because(s, &unsure, &some_blocked);
		pid_t holders[4];
		size_t nh = 0;
		size_t polled = lts_wf_polled_locks(s, holders, 4, &nh);
		/* a FIFO's other end or a polled lock: what ends them is not known */
		char polled_s[400] = "", who[64] = "";
		for (size_t h = 0, l = 0; h < nh && l < sizeof(who) - 16; h++)
			l += holders[h] ? (size_t)snprintf(who + l, sizeof(who) - l, "%s%d", h ? ", " : "", (int)holders[h])
					: (size_t)snprintf(who + l, sizeof(who) - l, ", ..."); /* more than those */
		if (polled)
			snprintf(polled_s, sizeof(polled_s), ", but %zu thread%s asleep on a timer beside a file "
				 "locked by %s %s may be retrying that lock between sleeps "
				 "(inferred: one snapshot cannot tell; `locktrace record` shows the attempts)", polled,
				 polled == 1 ? "" : "s", nh == 1 ? "process" : "processes", who);
		/* without user stacks an acquire path or an application's own
		 * lock wait (PostgreSQL's, in epoll_wait) is not seen */
		/* a Semaphore used as a lock records no holder: its waiters
		 * are said, not "no lock" */
		char sem[200];
		snprintf(sem, sizeof(sem), "wait seen but %zu on a java.util.concurrent latch or Semaphore, which "
			 "records no holder (any thread may count it down or release it, and one not stuck still could)",
			 counted);
		const char *nolock = s->ustack_skipped ? "wait seen (user stacks not read: lock acquires and "
							 "applications' own lock waits are known by their frames)"
				     : counted ? sem
				     : polled || by_kind[LT_WAIT_SLEEP] ? "wait seen" /* a sleeper may retry one */
									 : "involved";
		if (because)
			v->summary = lts_asprintf("idle: all %zu threads wait for I/O, timers or events, none %s "
						  "(%s); no lock %s%s", s->n_threads,
						  polled || fifo_open || unsure || s->ustack_skipped ? "known to be stuck"
						  : some_blocked ? "stuck: each has a wait that something not stuck can "
								   "end, though some of what they wait on is blocked"
								 : "for anything stuck",
						  because, nolock, polled_s);
		else
			v->summary = lts_asprintf("idle: all %zu threads wait for I/O, timers or events%s; no lock "
						  "%s", s->n_threads, s->ustack_skipped ? ", none known to be stuck" : "",
						  nolock);
		free(because);
		lt_strlist_add(&v->evidence, "%zu in I/O, sleep, child or signal waits: %s", io, kinds);
		if (condvar)
			lt_strlist_add(&v->evidence, "%zu wait on futexes with no owner whose word is "
				       "unchanged (condition variables, semaphores)", condvar);
		if (joins)
			lt_strlist_add(&v->evidence, "%zu wait in pthread_join for another thread", joins);
		if (rt_done)
			lt_strlist_add(&v->evidence, "%zu wait in a runtime's join or get() for a thread that is "
				       "not blocked (running, asleep on a timer or idle)", rt_done);
		lts_wf_idle_evidence(v, s);
		return;
	}
	if (s->n_threads && unreadable == s->n_threads) {
		v = lts_verdict_new(s, LT_VERDICT_UNKNOWN);
		if (!v)
			return;
		v->summary = lts_asprintf("no verdict: the system call of none of the %zu threads could "
					  "be read (permission denied? run as root or as the owner)",
					  s->n_threads);
		return;
	}
	size_t n_ow = 0;
	for (size_t i = 0; i < s->n_threads; i++)
		n_ow += other_wait(&s->threads[i]);
	if (running == 0 && n_ow) {
		/* every thread is asleep, some in calls whose other end is not
		 * followed (a System V semaphore, a message queue, ...): what ends
		 * them is not known, so neither is whether the process is stuck */
		v = lts_verdict_new(s, LT_VERDICT_UNKNOWN);
		if (!v)
			return;
		char calls[200] = "";
		size_t l = 0, named = 0;
		for (size_t i = 0; i < s->n_threads && named < 4; i++) {
			const struct lt_thread *t = &s->threads[i];
			if (!other_wait(t))
				continue;
			const char *nm = t->sc_name ? t->sc_name : "an undecoded call";
			char tok[48];
			snprintf(tok, sizeof(tok), ", %s,", nm);
			char have[sizeof(calls) + 4];
			snprintf(have, sizeof(have), ", %s,", calls);
			if (l && strstr(have, tok))
				continue;
			l += (size_t)snprintf(calls + l, l < sizeof(calls) ? sizeof(calls) - l : 0, "%s%s",
					      l ? ", " : "", nm);
			named++;
		}
		v->summary = lts_asprintf("not known: no thread is running and %zu thread%s wait%s in %s, whose "
					  "other end locktrace does not follow: whether %s stuck is not known; "
					  "nothing else is suspicious (no lock cycle, no lost wake-up, no convoy)",
					  n_ow, n_ow == 1 ? "" : "s", n_ow == 1 ? "s" : "", calls,
					  n_ow == 1 ? "it is" : "they are");
		for (size_t i = 0; i < s->n_threads; i++) {
			const struct lt_thread *t = &s->threads[i];
			if (!other_wait(t))
				continue;
			lts_verdict_add(v, t->tid, 0, false);
			v->explains++;
			if (v->n_tids <= 8)
				lt_strlist_add(&v->evidence, "thread %d (%s) %s", (int)t->tid, lt_thread_name(t),
					       t->detail ? t->detail : t->sc_name ? t->sc_name : "?");
		}
		if (v->n_tids > 8)
			lt_strlist_add(&v->evidence, "and %zu more", v->n_tids - 8);
		lt_strlist_add(&v->evidence, "%zu in I/O, sleep, child or signal waits (%s), %zu on futexes without owner, %zu joining, "
			       "%zu on owned locks, %zu in other calls", io, kinds, condvar, joins + rt_done, locks, other);
		return;
	}
	if (running == 0 && io == 0 && locks == 0 && other == 0 && condvar > 0 && !unreadable &&
	    none_can_wake(s)) {
		nobody_left_to_wake(s, condvar, joins);
		return;
	}
	v = lts_verdict_new(s, LT_VERDICT_OK);
	if (!v)
		return;
	if (unreadable)
		lt_strlist_add(&v->evidence, "%zu of %zu threads could not be read: the verdict ignores them",
			       unreadable, s->n_threads);
	v->summary = lts_asprintf("nothing suspicious: no lock cycle, no lost wake-up, no convoy");
	lt_strlist_add(&v->evidence, "%zu running or busy, %zu in I/O, sleep, child or signal waits (%s), %zu on futexes without owner, "
		       "%zu joining, %zu on owned locks, %zu other", running, io, kinds, condvar, joins + rt_done,
		       locks, other);
	if (running == 0 && io == 0 && locks == 0 && other == 0 && condvar > 0)
		lt_strlist_add(&v->evidence, "no thread is running or doing I/O: every thread waits on a "
			       "futex only another thread (or a timeout) can end");
}

/* ---- ranking ---- */

/* The verdict among the first N of S that verdict VI leads into: the one
 * naming its cause_tid (a signal wait's chain), or one of
 * VI's threads waits for another thread to finish (a join, a get(): the
 * lock wait a done kind makes, or a chain into the joined thread's
 * verdict) and that thread is among the other verdict's own.  -1: none
 * (a deadlock leads nowhere: its cycle is its own cause). */
static long leads_into(const struct lt_snapshot *s, size_t n, size_t vi)
{
	const struct lt_verdict *v = &s->verdicts[vi];
	if (v->kind == LT_VERDICT_DEADLOCK)
		return -1;
	for (size_t u = 0; v->cause_tid > 0 && u < n; u++)
		if (u != vi && lts_verdict_names(&s->verdicts[u], v->cause_tid))
			return (long)u;
	for (size_t k = 0; k < v->n_tids; k++) {
		const struct lt_thread *t = lt_snapshot_find(s, v->tids[k]);
		const struct lt_futex *f = t ? &t->futex : NULL;
		if (!f || t->wait != LT_WAIT_FUTEX || !f->is_wait || f->owner <= 0 || f->owner == t->tid ||
		    (f->owner_kind != LT_OWNER_JOIN && !done_lock(s, f)))
			continue;
		for (size_t u = 0; u < n; u++)
			if (u != vi && s->verdicts[u].kind != LT_VERDICT_IDLE && s->verdicts[u].kind != LT_VERDICT_OK &&
			    s->verdicts[u].kind != LT_VERDICT_UNKNOWN && lts_verdict_names(&s->verdicts[u], f->owner))
				return (long)u;
	}
	return -1;
}

static void lead_emit(const long *lead, size_t i, bool *done, bool *open, size_t *out, size_t *k)
{
	if (done[i] || open[i])
		return;
	open[i] = true;
	if (lead[i] >= 0)
		lead_emit(lead, (size_t)lead[i], done, open, out, k);
	open[i] = false;
	done[i] = true;
	out[(*k)++] = i;
}

/* The order of the M verdicts IDX (indices into S's) with each one that
 * leads into another of them (leads_into) right after it: the cause
 * first, then what waits behind it, the cause moved up to its first
 * waiter's place.  OUT gets M indices; false when out of memory (IDX's
 * order is then kept). */
static bool cause_first(const struct lt_snapshot *s, const size_t *idx, size_t m, size_t *out)
{
	long *lead = malloc((m ? m : 1) * sizeof(*lead));
	bool *done = calloc(m ? m : 1, sizeof(*done)), *open = calloc(m ? m : 1, sizeof(*open));
	bool ok = lead && done && open;
	for (size_t i = 0; ok && i < m; i++) {
		long u = leads_into(s, s->n_verdicts, idx[i]);
		lead[i] = -1;
		for (size_t j = 0; u >= 0 && j < m; j++)
			if (idx[j] == (size_t)u)
				lead[i] = (long)j;
	}
	size_t k = 0;
	for (size_t i = 0; ok && i < m; i++)
		lead_emit(lead, i, done, open, out, &k);
	for (size_t i = 0; i < m; i++)
		out[i] = ok ? idx[out[i]] : idx[i];
	free(lead);
	free(done);
	free(open);
	return ok;
}

/* A folded verdict's "waited for by:" lines kept, the first few. */
#define FOLD_WAITED_BY 3

/* Repeated one-thread lock waits (each on its own lock) fold into one
 * verdict, so that the list stays readable and the first line stays the
 * answer.  A cause comes before what waits for it (cause_first), and each
 * keeps its first "waited for by:" lines. */
static void fold_singles(struct lt_snapshot *s)
{
	size_t singles = 0;
	for (size_t i = 0; i < s->n_verdicts; i++)
		singles += s->verdicts[i].kind == LT_VERDICT_LOCK_WAIT && s->verdicts[i].n_tids == 1;
	if (singles < 3)
		return;
	size_t *idx = malloc(singles * sizeof(*idx)), *ord = malloc(singles * sizeof(*ord)), m = 0;
	if (!idx || !ord) {
		free(idx);
		free(ord);
		return;
	}
	for (size_t i = 0; i < s->n_verdicts; i++)
		if (s->verdicts[i].kind == LT_VERDICT_LOCK_WAIT && s->verdicts[i].n_tids == 1)
			idx[m++] = i;
	cause_first(s, idx, m, ord);
	struct lt_verdict fold = { .kind = LT_VERDICT_LOCK_WAIT, .longest_s = -1 };
	for (size_t j = 0; j < m; j++) {
		struct lt_verdict *v = &s->verdicts[ord[j]];
		lts_verdict_add(&fold, v->tids[0], v->n_locks ? v->locks[0] : 0, true);
		lt_strlist_add(&fold.evidence, "%s", v->summary ? v->summary : "?");
		size_t by = 0;
		for (size_t e = 0; e < v->evidence.n; e++)
			if (!strncmp(v->evidence.v[e], "waited for by: ", 15) && by++ < FOLD_WAITED_BY)
				lt_strlist_add(&fold.evidence, "%s", v->evidence.v[e]);
		if (by > FOLD_WAITED_BY)
			lt_strlist_add(&fold.evidence, "waited for by: and %zu more", by - FOLD_WAITED_BY);
		fold.explains += v->explains;
		if (v->longest_s > fold.longest_s)
			fold.longest_s = v->longest_s;
	}
	free(idx);
	free(ord);
	size_t keep = 0;
	for (size_t i = 0; i < s->n_verdicts; i++) {
		struct lt_verdict *v = &s->verdicts[i];
		if (v->kind != LT_VERDICT_LOCK_WAIT || v->n_tids != 1) {
			s->verdicts[keep++] = *v;
			continue;
		}
		lt_verdict_clear(v);
	}
	char list[160];
	size_t ll = 0;
	list[0] = 0;
	for (size_t k = 0; k < fold.n_tids && ll < sizeof(list) - 16; k++)
		ll += (size_t)snprintf(list + ll, sizeof(list) - ll, "%s%d", k ? ", " : "", (int)fold.tids[k]);
	if (ll >= sizeof(list) - 16)
		snprintf(list + ll, sizeof(list) - ll, ", ...");
	fold.summary = lts_asprintf("%zu threads each wait for a different lock (one waiter each): %s", singles,
				    list);
	s->verdicts[keep++] = fold;
	s->n_verdicts = keep;
}

static int rank_cmp(const void *a, const void *b)
{
	const struct lt_verdict *x = a, *y = b;
	/* a proven cycle first: nothing else ends it */
	int dx = x->kind == LT_VERDICT_DEADLOCK, dy = y->kind == LT_VERDICT_DEADLOCK;
	if (dx != dy)
		return dy - dx;
	if (x->explains != y->explains)
		return x->explains < y->explains ? 1 : -1;
	if (x->longest_s != y->longest_s)
		return x->longest_s < y->longest_s ? 1 : -1;
	return (int)x->kind - (int)y->kind;
}

static void rank(struct lt_snapshot *s)
{
	fold_singles(s);
	/* qsort is not stable: ties fall back to the kind, then stay in
	 * input order by the explicit index kept in the comparison above */
	qsort(s->verdicts, s->n_verdicts, sizeof(*s->verdicts), rank_cmp);
	/* then a wait for a thread to finish after the verdict of that
	 * thread (a join of a thread in a lock wait: the lock wait first),
	 * as a chain is said from its cause */
	size_t n = s->n_verdicts;
	size_t *idx = malloc((n ? n : 1) * sizeof(*idx)), *ord = malloc((n ? n : 1) * sizeof(*ord));
	struct lt_verdict *sorted = malloc((n ? n : 1) * sizeof(*sorted));
	for (size_t i = 0; idx && i < n; i++)
		idx[i] = i;
	if (idx && ord && sorted && cause_first(s, idx, n, ord)) {
		for (size_t i = 0; i < n; i++)
			sorted[i] = s->verdicts[ord[i]];
		memcpy(s->verdicts, sorted, n * sizeof(*sorted));
	}
	free(idx);
	free(ord);
	free(sorted);
}

int lt_snapshot_diagnose(struct lt_snapshot *s, const struct lt_verdict_opts *o)
{
	for (size_t i = 0; i < s->n_verdicts; i++)
		lt_verdict_clear(&s->verdicts[i]);
	free(s->verdicts);
	s->verdicts = NULL;
	s->n_verdicts = 0;
	s->vopts.lost_wakeup_threshold_s = o && o->lost_wakeup_threshold_s > 0 ? o->lost_wakeup_threshold_s : 1.0;
	s->vopts.convoy_min_waiters = o && o->convoy_min_waiters > 0 ? o->convoy_min_waiters : 4;
	bool *in_cycle = calloc(s->n_threads ? s->n_threads : 1, sizeof(*in_cycle));
	if (!in_cycle)
		return -ENOMEM;
	find_deadlocks(s, in_cycle); /* marks the threads behind a cycle */
	for (size_t vi = 0; vi < s->n_verdicts; vi++)
		for (size_t k = 0; k < s->verdicts[vi].n_tids; k++) {
			long i = idx_of(s, s->verdicts[vi].tids[k]);
			if (i >= 0)
				in_cycle[i] = true;
		}
	find_lost_wakeups(s, s->vopts.lost_wakeup_threshold_s);
	find_parked(s, in_cycle);
	find_lock_waits(s, s->vopts.convoy_min_waiters, in_cycle);
	find_rt_blocked_holders(s, s->vopts.convoy_min_waiters, in_cycle);
	lts_wf_verdicts(s, in_cycle); /* file locks, wait chains (waitfor.h) */
	lt_go_verdicts(s); /* goroutines (rt_go_verdicts.c) */
	lts_appwait_diagnose(s);
	find_stopped(s);
	lts_wf_into_verdicts(s, in_cycle); /* waits into processes with such verdicts */
	free(in_cycle);
	if (s->n_verdicts == 0) {
		classify_rest(s);
		lts_appwait_idle_notes(s);
		lt_go_idle_notes(s);
	} else {
		rank(s);
	}
	return s->n_verdicts ? 0 : -ENOMEM;
}
