/* Verdicts from the wait-for edges (include/locktrace/waitfor.h), pure
 * functions of the snapshot like verdicts.c, which calls them:
 *   - the cycle search's edges for threads that are not in a futex wait
 *     (lts_wf_next): one process that alone can end the wait;
 *   - a file-lock (or application lock) wait is a lock wait, with its holder;
 *   - a wait whose parties are all blocked themselves is a wait chain,
 *     said in order;
 *   - a wait into a process, or a join (pthread_join, Python's
 *     Thread.join) of a thread, in such a verdict is a chain into it;
 *   - the IDLE verdict says, per thread, why its wait is not stuck. */
#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "appwait.h"
#include "filelock.h"
#include "locktrace/calls.h"
#include "lockmodel.h"
#include "snapshot.h"
#include "waitfor.h"
#include "snapshot_int.h"
#include "waitfor_int.h"

static bool asleep(const struct lt_thread *t)
{
	return t->state != 'R' && t->sc.state == LT_SC_IN_SYSCALL && !t->moved;
}

#define pstate_words lt_wf_pstate_words

static void pid_list(const struct lt_wf_edge *e, char *buf, size_t len)
{
	size_t l = 0;
	buf[0] = 0;
	for (size_t i = 0; i < e->n_pids && l < len - 16; i++)
		l += (size_t)snprintf(buf + l, len - l, "%s%d", i ? ", " : "", (int)e->pids[i]);
	if (e->more_pids && l < len - 8)
		snprintf(buf + l, len - l, "%s...", l ? ", " : "");
}

char *lt_wf_edge_line(const struct lt_wf_edge *e)
{
	char pl[128];
	pid_list(e, pl, sizeof(pl));
	const char *who;
	switch (lt_wf_maybe_child(e) ? LT_WF_NONE : e->kind) {
	case LT_WF_NONE: who = "perhaps (inferred) child process"; break;
	case LT_WF_TRACEE: who = lt_wf_maybe_tracee(e) ? "perhaps (inferred) tracee process" : "tracee process"; break;
	case LT_WF_FILE_LOCK: who = "held by process"; break;
	case LT_WF_PIPE_READ:
	case LT_WF_PIPE_WRITE:
		/* an eventfd or a message queue has no ends: its holders */
		who = lt_wf_edge_obj(e) == LT_WF_OBJ_PIPE
		      ? (e->kind == LT_WF_PIPE_READ ? "write end held by process" : "read end held by process")
		      : e->kind == LT_WF_PIPE_READ ? "can be written by process" : "can be read by process";
		break;
	case LT_WF_SOCKET: who = lt_wf_connecting(e) ? "listener held by process" : "peer held by process"; break;
	case LT_WF_CHILD: who = "child process"; break;
	case LT_WF_EXIT: who = "ended by the exit of process"; break;
	case LT_WF_APP_LOCK: who = "held by process"; break;
	case LT_WF_LISTEN: return lts_asprintf("%s: a connection (listening)", e->what ? e->what : "?");
	case LT_WF_TIMER:
		return e->evidence ? lts_asprintf("timer: %s; %s", e->what ? e->what : "?", e->evidence)
				   : lts_asprintf("timer: %s", e->what ? e->what : "?");
	case LT_WF_REMOTE:
		return lts_asprintf("%s: a peer outside this host [%s]", e->what ? e->what : "?",
				    e->evidence ? e->evidence : "");
	default:
		return lts_asprintf("%s: unknown [%s]", e->what ? e->what : "?",
				    e->evidence ? e->evidence : "?");
	}
	if (!e->n_pids)
		return lts_asprintf("%s: %s unknown [%s]", e->what ? e->what : "?", who,
				    e->evidence ? e->evidence : "?");
	if (e->holder_tid)
		return lts_asprintf("%s: %s %s, thread %d, %s: %s [%s]", e->what ? e->what : "?", who, pl,
				    (int)e->holder_tid, pstate_words(e->pstate), e->doing ? e->doing : "?",
				    e->evidence ? e->evidence : "");
	return lts_asprintf("%s: %s %s, %s: %s [%s]", e->what ? e->what : "?", who, pl,
			    pstate_words(e->pstate), e->doing ? e->doing : "?", e->evidence ? e->evidence : "");
}

/* ---- the cycle search's edge ---- */

static bool ends_by_itself(enum lt_wf_kind k)
{
	return k == LT_WF_TIMER || k == LT_WF_REMOTE || k == LT_WF_LISTEN || k == LT_WF_UNKNOWN;
}

/* A file-lock wait's timer: a timer whose signal may interrupt the lock
 * call (lt_wf_sigtimer beside a file-lock edge: waitfor.c,
 * lock_timer_edges; util-linux flock -w).  No party: the lock's holders
 * are who can end the wait, the wait is a lock wait or a link of a cycle,
 * and its verdict says the timer may end it first. */
static bool lock_timer(const struct lt_waitfor *w, const struct lt_wf_edge *e)
{
	if (!lt_wf_sigtimer(e))
		return false;
	for (size_t i = 0; i < w->n_edges; i++)
		if (w->edges[i].kind == LT_WF_FILE_LOCK)
			return true;
	return false;
}

const struct lt_wf_edge *lts_wf_lock_timer(const struct lt_thread *t, size_t *n)
{
	const struct lt_wf_edge *first = NULL;
	size_t k = 0;
	for (size_t i = 0; t->wf && i < t->wf->n_edges; i++)
		if (lock_timer(t->wf, &t->wf->edges[i]) && !(t->wf->edges[i].timeout_what[0] &&
							     t->wf->edges[i].timeout_s > 0)) {
			first = first ? first : &t->wf->edges[i];
			k++;
		}
	if (n)
		*n = k;
	return first;
}

char *lts_wf_lock_timer_words(const struct lt_thread *t)
{
	size_t n;
	const struct lt_wf_edge *e = lts_wf_lock_timer(t, &n);
	if (!e)
		return NULL;
	return lts_asprintf("%s%s, would interrupt its %s (whether %s armed, when it fires, and whether the program "
			    "then gives up, are not known)", e->what, n > 1 ? ", or that of another" : "",
			    t->sc.nr == 72 ? "fcntl()" : t->sc.nr == 73 ? "flock()" : "lock call",
			    strstr(e->what, "if one is armed") ? "one is" : "it is");
}

/* The one process (or thread) that alone can end T's wait, or 0: every
 * edge names parties, none ends by itself, and together they are one
 * process other than T's own. */
static pid_t single_party(const struct lt_thread *t, pid_t *tid, bool own_ok)
{
	const struct lt_waitfor *w = t->wf;
	*tid = 0;
	if (!w || !w->n_edges || !asleep(t))
		return 0;
	pid_t p = 0;
	for (size_t i = 0; i < w->n_edges; i++) {
		const struct lt_wf_edge *e = &w->edges[i];
		if (lock_timer(w, e)) /* said by the verdict, no party */
			continue;
		if (ends_by_itself(e->kind) || !e->n_pids || e->more_pids)
			return 0;
		for (size_t k = 0; k < e->n_pids; k++) {
			if (e->pids[k] == w->pid && own_ok)
				continue;
			if (e->pids[k] == w->pid || (p && e->pids[k] != p))
				return 0;
			p = e->pids[k];
		}
		if (e->holder_tid)
			*tid = e->holder_tid;
	}
	return p;
}

#define MAX_SET 16

/* The processes that can end T's wait, when they are several, every one
 * of them blocked itself or in an event wait, none T's own (a file lock whose open file
 * flock(1), its shell and the shell's child all hold): into SET (at most
 * MAX_SET), their count, 0 if not so. */
static size_t party_set(const struct lt_thread *t, pid_t *set, bool own_ok)
{
	const struct lt_waitfor *w = t->wf;
	size_t n = 0;
	if (!w || !w->n_edges || !asleep(t))
		return 0;
	for (size_t i = 0; i < w->n_edges; i++) {
		const struct lt_wf_edge *e = &w->edges[i];
		if (lock_timer(w, e))
			continue;
		/* or in event waits (flock(1)'s child psql polling its
		 * backend): set_next then needs each in the snapshot, and
		 * a cycle through them each of its threads leading in */
		if (ends_by_itself(e->kind) || !e->n_pids || e->more_pids ||
		    (e->pstate != LT_WFP_BLOCKED && e->pstate != LT_WFP_EVENTS))
			return 0;
		for (size_t k = 0; k < e->n_pids; k++) {
			bool dup = false;
			if (e->pids[k] == w->pid && own_ok)
				continue;
			if (e->pids[k] == w->pid || n == MAX_SET)
				return 0;
			for (size_t q = 0; q < n; q++)
				dup |= set[q] == e->pids[k];
			if (!dup)
				set[n++] = e->pids[k];
		}
	}
	return n > 1 ? n : 0;
}

static bool in_set(const pid_t *set, size_t n, pid_t p)
{
	for (size_t i = 0; i < n; i++)
		if (set[i] == p)
			return true;
	return false;
}

/* Of several blocked parties, the one the wait goes on to: the one whose
 * own wait leads out of the set (the others wait for their children in
 * it: flock(1) and its shell for the shell's child, which waits for the
 * other lock); -1 if none or some is not in the snapshot. */
static long set_next(const struct lt_snapshot *s, const pid_t *set, size_t n)
{
	long rep = -1;
	for (size_t q = 0; q < n; q++) {
		bool seen = false;
		long out = -1; /* its first thread whose wait leads out */
		for (size_t i = 0; i < s->n_threads; i++) {
			const struct lt_thread *u = &s->threads[i];
			if (!u->wf || u->wf->pid != set[q])
				continue;
			seen = true;
			bool all_children_in = u->wf->n_edges > 0;
			for (size_t k = 0; k < u->wf->n_edges; k++) {
				const struct lt_wf_edge *e = &u->wf->edges[k];
				bool child_in = (e->kind == LT_WF_CHILD || e->kind == LT_WF_EXIT) && e->n_pids;
				for (size_t c = 0; child_in && c < e->n_pids; c++)
					child_in = in_set(set, n, e->pids[c]);
				all_children_in &= child_in;
			}
			if (!all_children_in && out < 0)
				out = (long)i;
		}
		if (!seen)
			return -1;
		if (out >= 0 && rep < 0)
			rep = out;
	}
	return rep;
}

/* Whether T's own process, when it is among the parties of T's wait (an
 * eventfd it reads, a pipe whose write end it kept), can be set aside to
 * find where the wait goes on: every other thread of it is asleep (the
 * cycle's check then requires each of them to lead into the cycle too). */
static bool own_quiet(const struct lt_snapshot *s, const struct lt_thread *t)
{
	for (size_t i = 0; i < s->n_threads; i++) {
		const struct lt_thread *u = &s->threads[i];
		if (u != t && u->wf && u->wf->pid == t->wf->pid && !asleep(u))
			return false;
	}
	return true;
}

/* Whether an edge of T's names its own process among several parties. */
static bool own_among(const struct lt_thread *t)
{
	for (size_t i = 0; t->wf && i < t->wf->n_edges; i++) {
		const struct lt_wf_edge *e = &t->wf->edges[i];
		for (size_t k = 0; k < e->n_pids && e->n_pids > 1; k++)
			if (e->pids[k] == t->wf->pid)
				return true;
	}
	return false;
}

/* Whether T's own process is set aside among the parties of its wait
 * (own_among, own_quiet). */
static bool own_aside(const struct lt_snapshot *s, const struct lt_thread *t)
{
	return t->wf && own_among(t) && own_quiet(s, t);
}

/* A file-lock wait whose only holder is the waiter's own process: a flock
 * or OFD lock it took through another open file of the same file (those
 * locks belong to the open file, not the process), which only its own
 * threads can release. */
static bool self_file_lock(const struct lt_thread *t)
{
	const struct lt_waitfor *w = t->wf;
	if (!w || !w->n_edges || !asleep(t))
		return false;
	for (size_t i = 0; i < w->n_edges; i++) {
		const struct lt_wf_edge *e = &w->edges[i];
		if (lock_timer(w, e))
			continue;
		if (e->kind != LT_WF_FILE_LOCK || e->n_pids != 1 || e->more_pids || e->pids[0] != w->pid)
			return false;
	}
	return true;
}

bool lts_wf_stopped_io(const struct lt_thread *t)
{
	return (t->state == 'T' || t->state == 't') && (t->wait == LT_WAIT_IO || t->wait == LT_WAIT_POLL) &&
	       t->sc.nr != LT_NR_FLOCK && !(t->sc.nr == LT_NR_FCNTL && lt_fcntl_lock_cmd((unsigned)t->sc.args[1]));
}

long lts_wf_next(const struct lt_snapshot *s, const struct lt_thread *t)
{
	pid_t tid, set[MAX_SET];
	/* its own process holds it, all of it asleep: a cycle through the
	 * waiter itself, sound only if every other thread leads into it too */
	if (self_file_lock(t) && own_quiet(s, t))
		return (long)(t - s->threads);
	bool own_ok = own_aside(s, t);
	pid_t p = single_party(t, &tid, own_ok);
	if (!p) {
		size_t n = party_set(t, set, own_ok);
		return n ? set_next(s, set, n) : -1;
	}
	const struct lt_thread *o = lt_snapshot_find(s, tid ? tid : p);
	return o ? (long)(o - s->threads) : -1;
}

bool lts_wf_process_edge(const struct lt_snapshot *s, const struct lt_thread *t)
{
	pid_t tid, set[MAX_SET];
	if (self_file_lock(t) && own_quiet(s, t))
		return true;
	bool own_ok = own_aside(s, t);
	return (single_party(t, &tid, own_ok) && !tid) || party_set(t, set, own_ok);
}

/* A cycle through process-level edges (into process P, any of whose
 * threads could end the wait, or into several processes any of which
 * could) is a deadlock only if every thread of each is asleep and its own
 * chain leads into the cycle. */
bool lts_wf_cycle_sound(const struct lt_snapshot *s, const long *next, const long *cyc, size_t n)
{
	return lts_wf_cycle_sound_but(s, next, cyc, n, NULL);
}

pid_t lts_wf_party_process(const struct lt_snapshot *s, const struct lt_thread *t)
{
	pid_t tid;
	if (!t->wf || self_file_lock(t) || own_aside(s, t))
		return 0;
	pid_t p = single_party(t, &tid, false);
	return p && !tid ? p : 0;
}

bool lts_wf_cycle_sound_but(const struct lt_snapshot *s, const long *next, const long *cyc, size_t n,
			    const unsigned char *skip)
{
	size_t nt = s->n_threads;
	for (size_t m = 0; m < n; m++) {
		const struct lt_thread *t = &s->threads[cyc[m]];
		if (t->wait == LT_WAIT_FUTEX || !lts_wf_process_edge(s, t) || (skip && skip[cyc[m]]))
			continue;
		pid_t set[MAX_SET + 1];
		bool own_ok = own_aside(s, t);
		size_t ns = party_set(t, set, own_ok);
		if (!ns) {
			const struct lt_thread *to = &s->threads[next[cyc[m]]];
			set[0] = to->wf ? to->wf->pid : 0;
			ns = 1;
			if (!set[0])
				return false;
		}
		if (own_ok) /* its own process could end it too: all of it leads in */
			set[ns++] = t->wf->pid;
		for (size_t i = 0; i < nt; i++) {
			const struct lt_thread *u = &s->threads[i];
			if (!u->wf || !in_set(set, ns, u->wf->pid))
				continue;
			if (!asleep(u))
				return false;
			long j = (long)i;
			bool in = false;
			for (size_t step = 0; j >= 0 && step <= nt && !in; step++) {
				for (size_t k = 0; k < n; k++)
					in |= cyc[k] == j;
				j = next[j];
			}
			if (!in)
				return false;
		}
	}
	return true;
}

static const struct lt_wf_edge *party_edge(const struct lt_thread *t)
{
	for (size_t i = 0; t->wf && i < t->wf->n_edges; i++)
		if (t->wf->edges[i].n_pids)
			return &t->wf->edges[i];
	return NULL;
}

static const char *kind_verb(const struct lt_wf_edge *e)
{
	if (lt_wf_connecting(e))
		return "listener held only by";
	switch (e->kind) {
	case LT_WF_FILE_LOCK: return "held only by";
	case LT_WF_PIPE_READ: return "written only by";
	case LT_WF_PIPE_WRITE: return "read only by";
	case LT_WF_SOCKET: return "peer held only by";
	case LT_WF_CHILD: return "child";
	case LT_WF_EXIT: return "ended only by the exit of";
	case LT_WF_TRACEE: return lt_wf_maybe_tracee(e) ? "perhaps (inferred) tracee" : "tracee";
	case LT_WF_APP_LOCK: return "held by";
	default: return "ended only by";
	}
}

static const char *kind_by(const struct lt_wf_edge *e)
{
	if (lt_wf_maybe_child(e))
		return "perhaps child";
	if (lt_wf_connecting(e))
		return "listener held by";
	switch (e->kind) {
	case LT_WF_PIPE_READ: return "written by";
	case LT_WF_PIPE_WRITE: return "read by";
	case LT_WF_SOCKET: return "peer held by";
	case LT_WF_CHILD: return "child";
	case LT_WF_EXIT: return "ended by the exit of";
	case LT_WF_TRACEE: return lt_wf_maybe_tracee(e) ? "perhaps (inferred) tracee" : "tracee";
	default: return "held by";
	}
}

/* Who must make progress for E's wait to end, in a chain's summary. */
static const char *end_word(const struct lt_wf_edge *e)
{
	switch (e->kind) {
	case LT_WF_CHILD: return "its child";
	case LT_WF_EXIT: return "that process's exit";
	case LT_WF_TRACEE: return lt_wf_maybe_tracee(e) ? "its tracee (inferred: through its SIGCHLD handler)"
							: "its tracee";
	default: return "the other end";
	}
}

void lts_wf_edge_evidence(struct lt_verdict *v, const struct lt_snapshot *s, const struct lt_thread *t)
{
	const struct lt_wf_edge *e = party_edge(t);
	char *act = lts_thread_activity(t), dur[32];
	lts_fmt_duration(t->idle_src == LT_IDLE_UNKNOWN ? -1 : t->idle_s, dur, sizeof(dur));
	if (!e) {
		lt_strlist_add(&v->evidence, "thread %d (%s) %s, for %s", (int)t->tid, lt_thread_name(t),
			       act ? act : "?", dur);
		free(act);
		return;
	}
	pid_t set[MAX_SET];
	bool own_ok = own_aside(s, t);
	size_t ns = party_set(t, set, own_ok);
	if (ns) { /* several processes, all asleep: the one it goes on to, and why */
		char pl[128];
		pid_list(e, pl, sizeof(pl));
		long nx = set_next(s, set, ns);
		const struct lt_thread *o = nx >= 0 ? &s->threads[nx] : NULL;
		lt_strlist_add(&v->evidence, "thread %d (%s) %s on %s <- %s processes %s, all %s; it goes "
			       "on through process %d (%s), the first of them not only waiting for its children "
			       "among them [%s], for %s",
			       (int)t->tid, lt_thread_name(t), act ? act : "?", e->what ? e->what : "?",
			       kind_by(e), pl, e->pstate == LT_WFP_BLOCKED ? "blocked"
			       : "asleep (blocked, or in event waits the snapshot followed)",
			       o && o->wf ? (int)o->wf->pid : 0, o ? o->comm : "?",
			       e->evidence ? e->evidence : "", dur);
		free(act);
		return;
	}
	pid_t first = e->pids[0];
	for (size_t k = 0; own_ok && k < e->n_pids; k++)
		if (e->pids[k] != t->wf->pid) { /* its own process set aside */
			first = e->pids[k];
			break;
		}
	const struct lt_thread *o = e->holder_tid ? lt_snapshot_find(s, e->holder_tid)
						  : lt_snapshot_find(s, first);
	lt_strlist_add(&v->evidence, "thread %d (%s) %s on %s <- %s process %d (%s)%s [%s], for %s",
		       (int)t->tid, lt_thread_name(t), act ? act : "?", e->what ? e->what : "?",
		       own_ok ? kind_by(e) : kind_verb(e), (int)first, o ? o->comm : "?",
		       e->holder_tid ? "" : own_ok ? ", any of its threads (its own process, all asleep, "
		       "holds it too)" : ", any of its threads", e->evidence ? e->evidence : "", dur);
	free(act);
}

/* ---- lock waits and chains ---- */

static struct lt_verdict *add_verdict(struct lt_snapshot *s, enum lt_verdict_kind k)
{
	/* the one verdict list (verdict_make.c): its capacity is the next
	 * power of two of its count, which a realloc to count + 1 here broke */
	struct lt_verdict *v = lts_verdict_new(s, k);
	if (v)
		v->longest_s = -1;
	return v;
}

static int add_one_tid(struct lt_verdict *v, pid_t tid)
{
	pid_t *nt = realloc(v->tids, (v->n_tids + 1) * sizeof(*nt));
	if (!nt)
		return -ENOMEM;
	v->tids = nt;
	v->tids[v->n_tids++] = tid;
	return 0;
}

/* "which is in read(...)" for a party thread in the view, else what
 * the live read of its process said. */
static char *party_phrase(const struct lt_snapshot *s, const struct lt_wf_edge *e)
{
	char pl[128];
	pid_list(e, pl, sizeof(pl));
	return lts_asprintf("process%s %s [%s]: %s", e->n_pids > 1 ? "es" : "", pl, pstate_words(e->pstate),
			    e->doing ? e->doing : "?");
}

/* The chain from T, in order, through futex owners and wait-for edges
 * of threads in the snapshot: one evidence line per step (at most 8). */
static void chain_evidence(struct lt_verdict *v, const struct lt_snapshot *s, const struct lt_thread *t)
{
	const struct lt_thread *cur = t;
	for (int step = 0; step < 8 && cur; step++) {
		const struct lt_thread *nx = NULL;
		if (cur->wait == LT_WAIT_FUTEX && cur->futex.owner_kind >= LT_OWNER_MUTEX && cur->futex.owner) {
			nx = lt_snapshot_find(s, cur->futex.owner);
			char *act = lts_thread_activity(cur);
			lt_strlist_add(&v->evidence, "chain: thread %d (%s) %s <- held by thread %d", (int)cur->tid,
				       lt_thread_name(cur), act ? act : "?", (int)cur->futex.owner);
			free(act);
		} else {
			long j = lts_wf_next(s, cur);
			if (j < 0 || step == 0)
				break;
			nx = &s->threads[j];
			lts_wf_edge_evidence(v, s, cur);
		}
		if (nx == t)
			break;
		cur = nx;
	}
}

/* Has process PID a Java thread among S's threads (a JVM)? */
static bool jvm_process(const struct lt_snapshot *s, pid_t pid)
{
	for (size_t i = 0; i < s->n_threads; i++)
		if (s->threads[i].wf && s->threads[i].wf->pid == pid && lts_java_thread(&s->threads[i]))
			return true;
	return false;
}

static bool party_stuck(const struct lt_snapshot *s, pid_t pid, const struct lt_wf_edge *e, int depth);

/* Every party of E is stuck: blocked when read, and where the snapshot
 * holds the party's threads (a followed process), each of them stuck too. */
static bool edge_stuck(const struct lt_snapshot *s, pid_t own, const struct lt_wf_edge *e, int depth)
{
	if (ends_by_itself(e->kind) || !e->n_pids || e->more_pids || e->pstate != LT_WFP_BLOCKED)
		return false;
	for (size_t q = 0; q < e->n_pids; q++)
		if (e->pids[q] != own && !party_stuck(s, e->pids[q], e, depth + 1))
			return false;
	return true;
}

static bool thread_stuck(const struct lt_snapshot *s, const struct lt_thread *u, int depth)
{
	if (!asleep(u))
		return false;
	if (u->wf && u->wf->n_edges) {
		for (size_t k = 0; k < u->wf->n_edges; k++)
			if (!edge_stuck(s, u->wf->pid, &u->wf->edges[k], depth))
				return false;
		return true;
	}
	/* no edges: a futex wait without a timeout is stuck unless woken, by
	 * a thread of its own process (or a mutex's owner); one another
	 * process may wake (a shared futex it maps, or one whose mappers are
	 * not known) is not known to be stuck */
	const struct lt_futex *f = &u->futex;
	return u->wait == LT_WAIT_FUTEX && !f->timeout_ptr &&
	       (lts_futex_own_only(f) || f->owner_kind >= LT_OWNER_MUTEX);
}

static bool party_stuck(const struct lt_snapshot *s, pid_t pid, const struct lt_wf_edge *e, int depth)
{
	if (depth > 8)
		return true; /* round a cycle: stuck as the cycle search says */
	bool seen = false;
	for (size_t i = 0; i < s->n_threads; i++) {
		const struct lt_thread *u = &s->threads[i];
		if (!u->wf || u->wf->pid != pid)
			continue;
		seen = true;
		if (!thread_stuck(s, u, depth))
			return false;
	}
	return seen || e->pstate == LT_WFP_BLOCKED;
}

static bool stuck_edge_in(const struct lt_snapshot *s, pid_t own, const struct lt_wf_edge *e)
{
	return edge_stuck(s, own, e, 0);
}

/* A pipe read whose only write end is in the reader's own process, all
 * of whose threads are blocked (one asleep on a timer or in an event wait
 * may yet write it). */
static bool leaked(const struct lt_waitfor *w, const struct lt_wf_edge *e)
{
	/* a pipe or FIFO only: the kernel writes an eventfd too, and a
	 * process may open a message queue by name (waitfor.c makes those
	 * an unknown party) */
	return e->kind == LT_WF_PIPE_READ && e->n_pids == 1 && !e->more_pids && e->pids[0] == w->pid &&
	       e->pstate == LT_WFP_BLOCKED && lt_wf_edge_obj(e) == LT_WF_OBJ_PIPE;
}

bool lts_wf_own_pipe_stuck(const struct lt_thread *t)
{
	const struct lt_waitfor *w = t->wf;
	if (!w || !w->n_edges || !asleep(t))
		return false;
	for (size_t i = 0; i < w->n_edges; i++)
		if (!leaked(w, &w->edges[i]))
			return false;
	return true;
}

/* The threads of other processes in the snapshot that wait for T's
 * process (its parent in wait4, a reader of its pipe, ...): the chain
 * before T, said in order, so a user who gave the first pid of a chain
 * finds it in the finding about its end. */
static void waited_by_evidence(struct lt_verdict *v, const struct lt_snapshot *s, const struct lt_thread *t)
{
	pid_t own = t->wf ? t->wf->pid : 0;
	size_t shown = 0;
	for (size_t i = 0; own && i < s->n_threads && shown < 4; i++) {
		const struct lt_thread *u = &s->threads[i];
		if (!u->wf || u->wf->pid == own || !asleep(u))
			continue;
		for (size_t k = 0; k < u->wf->n_edges; k++) {
			const struct lt_wf_edge *e = &u->wf->edges[k];
			bool names = false;
			for (size_t q = 0; q < e->n_pids; q++)
				names |= e->pids[q] == own;
			if (!names || (ends_by_itself(e->kind) && !lt_wf_maybe_child(e)))
				continue;
			char *act = lts_thread_activity(u);
			lt_strlist_add(&v->evidence, "waited for by: thread %d (%s) of process %d %s on %s <- %s %d",
				       (int)u->tid, lt_thread_name(u), (int)u->wf->pid, act ? act : "?",
				       e->what ? e->what : "?", kind_by(e), (int)own);
			free(act);
			shown++;
			break;
		}
	}
}

static void lock_wait_verdict(struct lt_snapshot *s, const struct lt_thread *t, const struct lt_wf_edge *e)
{
	struct lt_verdict *v = add_verdict(s, LT_VERDICT_LOCK_WAIT);
	if (!v)
		return;
	add_one_tid(v, t->tid);
	v->explains = 1 + (e->n_pids ? 1 : 0);
	v->longest_s = e->wait_s > 0 ? e->wait_s : t->idle_src == LT_IDLE_UNKNOWN ? -1 : t->idle_s;
	v->owner = e->holder_tid ? e->holder_tid : e->n_pids ? e->pids[0] : 0;
	v->owner_source = e->kind == LT_WF_FILE_LOCK ? "/proc/locks" : "application lock model";
	const char *what = e->kind == LT_WF_FILE_LOCK ? "a file lock" : "an application lock";
	char dur[32];
	lts_fmt_duration(v->longest_s, dur, sizeof(dur));
	if (e->n_pids) {
		char *pp = party_phrase(s, e);
		v->summary = lts_asprintf("thread %d (%s) waits for %s: %s, held by %s", (int)t->tid,
					  lt_thread_name(t), what, e->what ? e->what : "?", pp ? pp : "?");
		free(pp);
	} else {
		v->summary = lts_asprintf("thread %d (%s) waits for %s: %s, whose holder is unknown (%s)",
					  (int)t->tid, lt_thread_name(t), what, e->what ? e->what : "?",
					  e->evidence ? e->evidence : "not found");
	}
	/* a timer whose signal may interrupt the call (flock -w); one whose
	 * end its program's way tells (flock(1) -w N: lock_timer_edges) */
	for (size_t k = 0; t->wf && k < t->wf->n_edges; k++) {
		const struct lt_wf_edge *x = &t->wf->edges[k];
		if (!lock_timer(t->wf, x) || !x->timeout_what[0] || x->timeout_s <= 0 || !v->summary)
			continue;
		char *sm = x->timeout_left_s >= 0
			? lts_asprintf("%s; its timer (%s %.1f s) ends the wait within %.1f s (inferred: see the evidence)",
				       v->summary, x->timeout_what, x->timeout_s, x->timeout_left_s)
			: lts_asprintf("%s; its timer (%s %.1f s) ends the wait within %.1f s at most (inferred: see the "
				       "evidence)", v->summary, x->timeout_what, x->timeout_s, x->timeout_s);
		if (sm) {
			free(v->summary);
			v->summary = sm;
		}
		break;
	}
	char *tw = lts_wf_lock_timer_words(t);
	if (tw && v->summary) {
		char *sm = lts_asprintf("%s; a timer may end the wait first: %s", v->summary, tw);
		if (sm) {
			free(v->summary);
			v->summary = sm;
		}
	}
	free(tw);
	if (t->detail)
		lt_strlist_add(&v->evidence, "thread %d: %s, for %s%s", (int)t->tid, t->detail, dur,
			       e->wait_s > 0 ? " (by the application's own record of when the wait began)" : "");
	if (e->evidence)
		lt_strlist_add(&v->evidence, "%s", e->evidence);
	for (size_t k = 0; t->wf && k < t->wf->n_edges; k++)
		if (lock_timer(t->wf, &t->wf->edges[k])) {
			char *l = lt_wf_edge_line(&t->wf->edges[k]);
			lt_strlist_add(&v->evidence, "%s", l ? l : "?");
			free(l);
		}
	for (size_t k = 0; k < e->n_pids; k++) {
		/* a process holds it, any of its threads: its main thread's
		 * call, unless that is the waiter (its own process) */
		const struct lt_thread *o = lt_snapshot_find(s, e->pids[k]);
		if (o && o->detail && o != t)
			lt_strlist_add(&v->evidence, "holder %d: %s", (int)o->tid, o->detail);
	}
	waited_by_evidence(v, s, t);
}

/* Each of W's edges as an evidence line of V. */
static void edges_evidence(struct lt_verdict *v, const struct lt_waitfor *w)
{
	for (size_t i = 0; i < w->n_edges; i++) {
		char *l = lt_wf_edge_line(&w->edges[i]);
		lt_strlist_add(&v->evidence, "%s", l ? l : "?");
		free(l);
	}
}

/* A signal wait's timers (lt_wf_sigtimer), which may end it first:
 * "; or by its timer, if armed: ... (when it fires is not known)", or
 * NULL when it has none. */
static char *timer_clause(const struct lt_waitfor *w)
{
	const struct lt_wf_edge *first = NULL;
	size_t n = 0;
	for (size_t i = 0; i < w->n_edges; i++)
		if (lt_wf_sigtimer(&w->edges[i])) {
			first = first ? first : &w->edges[i];
			n++;
		}
	if (!first) {
		/* an application's own timeout on one of its edges, read */
		for (size_t i = 0; i < w->n_edges; i++) {
			const struct lt_wf_edge *e = &w->edges[i];
			if (!e->timeout_what[0] || e->timeout_s <= 0)
				continue;
			if (e->timeout_left_s >= 0)
				return lts_asprintf("; or by its %s (%.1f s), within %.1f s", e->timeout_what, e->timeout_s,
						    e->timeout_left_s);
			return lts_asprintf("; or by its %s (%.1f s; when it began is not known)", e->timeout_what,
					    e->timeout_s);
		}
		return NULL;
	}
	if (strncmp(first->what, LT_WF_SIGTIMER, sizeof(LT_WF_SIGTIMER) - 1))
		return lts_asprintf("; or by a timer: %s%s (when it ends is not known: no deadlock is claimed)",
				    first->what, n > 1 ? ", or another" : "");
	return lts_asprintf("; or by a timer: the signal of %s%s (whether it is, and when it fires, is not "
			    "known: no deadlock is claimed)", first->what + sizeof(LT_WF_SIGTIMER) - 1,
			    n > 1 ? ", or of another" : "");
}

/* What may end a wait besides the parties it is followed into: a signal
 * wait's timer (lt_wf_sigtimer), a signalfd's signals other than SIGCHLD
 * (lt_wf_sigother), which any process may send.  Said in a verdict, never
 * a link of a chain or a cycle. */
static bool caveat_edge(const struct lt_wf_edge *e)
{
	return lt_wf_sigtimer(e) || lt_wf_sigother(e);
}

/* timer_clause, then "; or by a signal another process may send: its
 * signalfd's ... (not followed: no deadlock is claimed)" for a signalfd's
 * other signals; NULL when there is neither. */
static char *caveat_clause(const struct lt_waitfor *w)
{
	char *tq = timer_clause(w);
	const struct lt_wf_edge *o = NULL;
	for (size_t i = 0; i < w->n_edges && !o; i++)
		if (lt_wf_sigother(&w->edges[i]))
			o = &w->edges[i];
	if (!o)
		return tq;
	char *r = lts_asprintf("%s; or by a signal another process may send: the %s (not followed: no deadlock is "
			       "claimed)", tq ? tq : "", o->what);
	free(tq);
	return r;
}

/* An event loop's own wake-up fd: a pipe whose only write end, or an
 * eventfd only, or a connected unix socket whose peer only, its own
 * process holds (libuv's signal pipe and async eventfd, a Tokio waker, a
 * self-pipe, asyncio's self-pipe socket pair).  Its own threads write it
 * (to wake the loop), a signal handler of its own may, and for an
 * eventfd the kernel (an io_uring or aio completion). */
static bool self_wake(const struct lt_waitfor *w, const struct lt_wf_edge *e)
{
	enum lt_wf_obj obj = lt_wf_edge_obj(e);
	bool own_only = e->n_pids == 1 && !e->more_pids && e->pids[0] == w->pid;
	if (obj == LT_WF_OBJ_PIPE)
		return e->kind == LT_WF_PIPE_READ && own_only;
	if (obj == LT_WF_OBJ_UNIX)
		return e->kind == LT_WF_SOCKET && !lt_wf_connecting(e) && own_only;
	if (obj == LT_WF_OBJ_EVENTFD) /* waitfor.c: an unknown party when only its own process holds it */
		return own_only || (e->kind == LT_WF_UNKNOWN && !e->n_pids && !e->more_pids);
	return false;
}

/* Can no other thread of T's process write its own wake-up fds?  Every
 * other thread of it in the snapshot is asleep without a timeout: in a
 * wait whose every edge is stuck or one of the process's own wake-up fds,
 * or in a futex wait with no timeout (a pool's idle worker).  One
 * running, on a timer, or in any other wait could write them. */
/* A child edge of a wait that a child's SIGCHLD ends (waitfor.c:
 * sigchld_edge), "what" LT_WF_SIGCHLD ... */
static bool sigchld_wait(const struct lt_wf_edge *e)
{
	return e->kind == LT_WF_CHILD && e->what && !strncmp(e->what, LT_WF_SIGCHLD, sizeof(LT_WF_SIGCHLD) - 1);
}

static bool has_sigchld_wait(const struct lt_waitfor *w)
{
	for (size_t k = 0; w && k < w->n_edges; k++)
		if (sigchld_wait(&w->edges[k]))
			return true;
	return false;
}

/* Thread U of T's process PID cannot wake T's own wake-up fds: asleep,
 * each of its waits on its own wake-up fds or on stuck parties.  A
 * child's SIGCHLD, which U's wait takes too, goes to one thread of the
 * process: when T's wait takes it as well, it is T's way out, not U's. */
static bool own_thread_cannot_wake(const struct lt_snapshot *s, pid_t pid, const struct lt_thread *u,
				   const struct lt_thread *t)
{
	if (!asleep(u))
		return false;
	/* a futex wait with no timeout, unless on a shared mapping another
	 * live process maps (or may: not counted), which may wake it */
	const struct lt_futex *f = &u->futex;
	if (!u->wf || !u->wf->n_edges)
		return u->wait == LT_WAIT_FUTEX && !f->timeout_ptr &&
		       !(f->shared_obj && !(f->obj_mappers_known && !f->obj_mappers));
	bool t_sigchld = has_sigchld_wait(t->wf);
	for (size_t k = 0; k < u->wf->n_edges; k++) {
		const struct lt_wf_edge *e = &u->wf->edges[k];
		if (!self_wake(u->wf, e) && !stuck_edge_in(s, pid, e) && !(t_sigchld && sigchld_wait(e)))
			return false;
	}
	return true;
}

/* Thread I of S's process: a combined snapshot's table, else its wait's. */
static pid_t thread_pid_of(const struct lt_snapshot *s, size_t i)
{
	const struct lt_thread *u = &s->threads[i];
	return s->thread_pid ? s->thread_pid[i] : u->wf ? u->wf->pid : s->pid;
}

static bool own_threads_cannot_wake(const struct lt_snapshot *s, const struct lt_thread *t)
{
	pid_t pid = t->wf->pid;
	for (size_t i = 0; i < s->n_threads; i++) {
		const struct lt_thread *u = &s->threads[i];
		if (u != t && thread_pid_of(s, i) == pid && !own_thread_cannot_wake(s, pid, u, t))
			return false;
	}
	return true;
}

/* "; its other fds, a pipe and an eventfd only its own process P holds
 * (...), ... is inferred": what a verdict on a wait with W's own wake-up
 * fds (self_wake) says of them.  NULL when it has none. */
/* "a pipe and an eventfd": W's own wake-up fds (self_wake) by kind, in
 * BUF; how many in all. */
static size_t own_wake_objs(const struct lt_waitfor *w, char *buf, size_t len)
{
	static const char *const one[] = { "a pipe", "an eventfd", "a unix socket pair" };
	static const char *const many[] = { "pipes", "eventfds", "unix socket pairs" };
	size_t n[3] = { 0 }, all = 0, l = 0, kinds = 0;
	for (size_t i = 0; i < w->n_edges; i++)
		if (self_wake(w, &w->edges[i])) {
			enum lt_wf_obj o = lt_wf_edge_obj(&w->edges[i]);
			n[o == LT_WF_OBJ_PIPE ? 0 : o == LT_WF_OBJ_UNIX ? 2 : 1]++;
			all++;
		}
	buf[0] = 0;
	for (size_t k = 0; k < 3; k++)
		kinds += n[k] > 0;
	for (size_t k = 0, said = 0; k < 3 && l < len; k++) {
		if (!n[k])
			continue;
		said++;
		l += (size_t)snprintf(buf + l, len - l, "%s%s", said == 1 ? "" : said == kinds ? " and " : ", ",
				      n[k] == 1 ? one[k] : many[k]);
	}
	return all;
}

static char *own_wake_clause(const struct lt_waitfor *w)
{
	char objs[96];
	size_t all = own_wake_objs(w, objs, sizeof(objs));
	if (!all)
		return NULL;
	bool one = all == 1;
	return lts_asprintf("; its other %s, %s only its own process %d holds (an event loop's wake-up), none of "
			    "its threads can write now (each asleep without a timeout): that no signal handler or "
			    "kernel completion will write %s is inferred", one ? "fd" : "fds", objs, (int)w->pid,
			    one ? "it" : "them");
}

/* A wait on stuck parties and on its own process's wake-up fds
 * (self_wake), none of whose threads can write them: an event loop whose
 * only way out is the stuck party (Node's execSync on a stuck child: its
 * loop also polls libuv's signal pipe and async eventfd).  That no
 * signal handler or kernel completion writes those fds is inferred, and
 * said.  *E the first stuck edge; false when the wait is not so. */
static bool stuck_but_own_wake(const struct lt_snapshot *s, const struct lt_thread *t, const struct lt_wf_edge **e)
{
	const struct lt_waitfor *w = t->wf;
	size_t n_stuck = 0, n_self = 0;
	*e = NULL;
	for (size_t i = 0; i < w->n_edges; i++) {
		const struct lt_wf_edge *x = &w->edges[i];
		if (self_wake(w, x)) {
			n_self++;
		} else if (stuck_edge_in(s, w->pid, x)) {
			if (!n_stuck++)
				*e = x;
		} else {
			return false;
		}
	}
	return n_stuck && n_self && own_threads_cannot_wake(s, t);
}

static void chain_verdict(struct lt_snapshot *s, const struct lt_thread *t)
{
	const struct lt_waitfor *w = t->wf;
	bool leak = false, stuck = w->n_edges > 0;
	const struct lt_wf_edge *timer = NULL; /* a signal wait's timer, armed or not (not known) */
	size_t n_party = 0;
	for (size_t i = 0; i < w->n_edges; i++) {
		const struct lt_wf_edge *e = &w->edges[i];
		if (caveat_edge(e)) {
			timer = timer ? timer : e;
			continue;
		}
		n_party++;
		if (leaked(w, e))
			leak = true;
		else if (!stuck_edge_in(s, w->pid, e))
			stuck = false;
	}
	if (!n_party)
		return;
	const struct lt_wf_edge *own_e = NULL;
	bool own_wake = !stuck && !leak && !timer && stuck_but_own_wake(s, t, &own_e);
	if (!stuck && !leak && !own_wake)
		return;
	if (leak && !stuck) {
		/* every other edge must be stuck too, unless the leak is the only one */
		for (size_t i = 0; i < w->n_edges; i++)
			if (!leaked(w, &w->edges[i]) && !caveat_edge(&w->edges[i]) &&
			    !stuck_edge_in(s, w->pid, &w->edges[i]))
				return;
	}
	/* another thread of its own process running could still write (not
	 * a JVM's own) */
	if (leak) {
		int jvm = -1;
		for (size_t i = 0; i < s->n_threads; i++) {
			const struct lt_thread *u = &s->threads[i];
			if (!u->wf || u->wf->pid != w->pid || asleep(u))
				continue;
			if (jvm < 0)
				jvm = jvm_process(s, w->pid);
			if (!jvm || !lts_jvm_own_thread(u))
				return;
		}
	}
	struct lt_verdict *v = add_verdict(s, LT_VERDICT_WAIT_CHAIN);
	if (!v)
		return;
	add_one_tid(v, t->tid);
	v->explains = 1;
	v->longest_s = t->idle_src == LT_IDLE_UNKNOWN ? -1 : t->idle_s;
	char *act = lts_thread_activity(t);
	const struct lt_wf_edge *e = &w->edges[0];
	for (size_t i = 0; i < w->n_edges && !own_e; i++)
		if (leaked(w, &w->edges[i]) || stuck_edge_in(s, w->pid, &w->edges[i])) {
			e = &w->edges[i];
			break;
		}
	if (own_e)
		e = own_e;
	if (own_wake) {
		char *pp = party_phrase(s, e), *ow = own_wake_clause(w);
		v->summary = lts_asprintf("thread %d (%s) %s waits for %s, which can end it only by progress: %s%s",
					  (int)t->tid, lt_thread_name(t), act ? act : "?", pp ? pp : "?",
					  end_word(e), ow ? ow : "");
		free(ow);
		free(pp);
	} else if (leak)
		v->summary = lts_asprintf("thread %d (%s) %s on %s, whose only write end is held by its own "
					  "process %d, all of whose threads are blocked: none is left to "
					  "write, and that write end keeps the pipe from its end-of-file (one "
					  "leaked across a fork, or kept for a writer of its own)", (int)t->tid,
					  lt_thread_name(t), act ? act : "?", e->what ? e->what : "?",
					  (int)w->pid);
	else {
		char *pp = party_phrase(s, e);
		char *tq = caveat_clause(w);
		/* another process's exit polled for (tail --pid): which
		 * process, from its command line, is inferred */
		bool inf = lt_wf_inferred_exit(e);
		v->summary = lts_asprintf("thread %d (%s) %s waits for %s, which can end it only by "
					  "progress: %s%s%s", (int)t->tid, lt_thread_name(t), act ? act : "?",
					  pp ? pp : "?", end_word(e),
					  inf ? " (inferred: it polls for that process's exit, the pid read from its "
						"command line)" : "",
					  tq ? tq : "");
		free(tq);
		free(pp);
	}
	free(act);
	edges_evidence(v, w);
	chain_evidence(v, s, t);
	waited_by_evidence(v, s, t);
	if (!leak && !lt_snapshot_find(s, e->pids[0]))
		lt_strlist_add(&v->evidence, "follow it: locktrace snapshot -p %d", (int)e->pids[0]);
}

/* Asleep on a timer between tries of a file lock, as its stack shows
 * (waitfor.c, retry_edge): such a thread wakes and retries all the time,
 * so it is often seen to have moved; its wait is the lock all the same. */
static bool polling_lock(const struct lt_thread *t)
{
	if ((t->wait != LT_WAIT_SLEEP && t->wait != LT_WAIT_POLL) || !t->wf || t->state == 'T' || t->state == 't')
		return false;
	for (size_t k = 0; k < t->wf->n_edges; k++)
		if (t->wf->edges[k].kind == LT_WF_FILE_LOCK || lt_wf_pollchild(&t->wf->edges[k]))
			return true;
	return false;
}

void lts_wf_verdicts(struct lt_snapshot *s, const bool *in_cycle)
{
	for (size_t i = 0; i < s->n_threads; i++) {
		const struct lt_thread *t = &s->threads[i];
		if (in_cycle[i] || !t->wf || !t->wf->n_edges || (!asleep(t) && !polling_lock(t)) ||
		    lts_wf_stopped_io(t))
			continue;
		if (t->app_class == LT_APPWAIT_LOCK) /* its own verdict (appwait.c) */
			continue;
		/* an application's own idle wait (a PostgreSQL backend waiting
		 * for its client's next command, lt_pg_client_wait): idle, as
		 * the IDLE verdict says with whom it waits for; its edge is a
		 * link of a cycle, not a chain of its own (a session idle in
		 * transaction whose psql reads its terminal is no chain) */
		if (t->app_class == LT_APPWAIT_IDLE)
			continue;
		const struct lt_wf_edge *lock = NULL;
		for (size_t k = 0; k < t->wf->n_edges && !lock; k++)
			if (t->wf->edges[k].kind == LT_WF_FILE_LOCK || t->wf->edges[k].kind == LT_WF_APP_LOCK)
				lock = &t->wf->edges[k];
		if (lock)
			lock_wait_verdict(s, t, lock);
		else
			chain_verdict(s, t);
	}
}

/* A verdict of a kind that says its threads are stuck, in words ("in a
 * lock wait"), or NULL. */
static const char *stuck_words(enum lt_verdict_kind k)
{
	switch (k) {
	case LT_VERDICT_DEADLOCK: return "in a deadlock";
	case LT_VERDICT_LOCK_WAIT: return "in a lock wait";
	case LT_VERDICT_CONVOY: return "in a lock convoy";
	case LT_VERDICT_WAIT_CHAIN: return "in a wait chain";
	case LT_VERDICT_LOST_WAKEUP: return "in a lost wake-up";
	case LT_VERDICT_STOPPED: return "stopped";
	default: return NULL;
	}
}

/* The first verdict of a stuck kind among the first N_V of S naming TID. */
static const struct lt_verdict *stuck_verdict_of(const struct lt_snapshot *s, size_t n_v, pid_t tid)
{
	for (size_t i = 0; i < n_v; i++)
		if (lt_verdict_kind_stuck(s->verdicts[i].kind)) {
			for (size_t k = 0; k < s->verdicts[i].n_tids; k++)
				if (s->verdicts[i].tids[k] == tid)
					return &s->verdicts[i];
			/* blocked behind a deadlock's cycle: stuck by it */
			for (size_t k = 0; k < s->verdicts[i].n_behind; k++)
				if (s->verdicts[i].behind[k] == tid)
					return &s->verdicts[i];
		}
	return NULL;
}

/* Process PID's threads in S (*n), how many are in a stuck verdict (*k;
 * the first such verdict and thread into *v, *who). */
static void party_verdicts(const struct lt_snapshot *s, size_t n_v, pid_t pid, size_t *n, size_t *k,
			   const struct lt_verdict **v, const struct lt_thread **who)
{
	*n = *k = 0;
	for (size_t i = 0; i < s->n_threads; i++) {
		const struct lt_thread *u = &s->threads[i];
		if (!u->wf || u->wf->pid != pid)
			continue;
		(*n)++;
		const struct lt_verdict *uv = stuck_verdict_of(s, n_v, u->tid);
		if (uv) {
			if (!*k) {
				*v = uv;
				*who = u;
			}
			(*k)++;
		}
	}
}

/* A new WAIT CHAIN verdict of T into *PV (one of S's verdicts, which
 * adding may move: *PV is set again), T its thread; NULL on OOM. */
static struct lt_verdict *chain_into(struct lt_snapshot *s, const struct lt_thread *t, const struct lt_verdict **pv)
{
	size_t pvi = (size_t)(*pv - s->verdicts);
	struct lt_verdict *v = add_verdict(s, LT_VERDICT_WAIT_CHAIN);
	if (!v)
		return NULL;
	*pv = &s->verdicts[pvi];
	add_one_tid(v, t->tid);
	v->explains = 1;
	v->longest_s = t->idle_src == LT_IDLE_UNKNOWN ? -1 : t->idle_s;
	return v;
}

/* Is W a wait on its own process's wake-up fds only (self_wake; a
 * caveat, a signal another process may send, aside)? */
static bool only_own_wake(const struct lt_waitfor *w)
{
	size_t n = 0;
	for (size_t i = 0; i < w->n_edges; i++) {
		if (caveat_edge(&w->edges[i]))
			continue;
		if (!self_wake(w, &w->edges[i]))
			return false;
		n++;
	}
	return n > 0;
}

/* An event loop that waits on nothing but its own wake-up fds, which only
 * its own threads write (asyncio's loop: its self-pipe socket pair, written
 * by its child watcher thread once that one's wait4 returns), while none
 * of them can write now and one of them is stuck: a chain into that
 * thread's verdict.  Which of its threads would write is inferred, as is
 * that no signal handler or kernel completion will.  After the other
 * chains: the own thread's may be one of them. */
static void own_loop_chains(struct lt_snapshot *s, const bool *in_cycle)
{
	size_t n_v = s->n_verdicts;
	for (size_t i = 0; i < s->n_threads; i++) {
		const struct lt_thread *t = &s->threads[i];
		const struct lt_waitfor *w = t->wf;
		if (in_cycle[i] || !w || !asleep(t) || !only_own_wake(w) || stuck_verdict_of(s, n_v, t->tid))
			continue;
		/* each other thread of its process asleep: in a stuck verdict
		 * (it writes nothing before that wait ends), or as
		 * own_threads_cannot_wake asks */
		const struct lt_thread *who = NULL;
		const struct lt_verdict *pv = NULL;
		size_t k = 0;
		bool can = false;
		for (size_t j = 0; j < s->n_threads && !can; j++) {
			const struct lt_thread *u = &s->threads[j];
			if (u == t || thread_pid_of(s, j) != w->pid)
				continue;
			/* a stuck verdict's thread asleep with no timeout (a timed
			 * futex wait, the GIL's 5 ms retries, may return and write) */
			bool timed = u->wait == LT_WAIT_FUTEX && u->futex.timeout_ptr;
			const struct lt_verdict *uv = asleep(u) && !timed ? stuck_verdict_of(s, n_v, u->tid) : NULL;
			/* another loop like it is no way out of this one */
			if (uv && !(u->wf && only_own_wake(u->wf))) {
				if (!k++) {
					who = u;
					pv = uv;
				}
			} else if (!own_thread_cannot_wake(s, w->pid, u, t)) {
				can = true;
			}
		}
		if (can || !pv)
			continue;
		struct lt_verdict *v = chain_into(s, t, &pv);
		if (!v)
			return;
		char objs[96], one[160];
		size_t all = own_wake_objs(w, objs, sizeof(objs));
		if (k == 1)
			snprintf(one, sizeof(one), "one of them, thread %d (%s), is itself", (int)who->tid,
				 lt_thread_name(who));
		else
			snprintf(one, sizeof(one), "%zu of them are stuck, among them thread %d (%s), itself", k,
				 (int)who->tid, lt_thread_name(who));
		char *act = lts_thread_activity(t), *tq = caveat_clause(w);
		v->summary = lts_asprintf("thread %d (%s) %s waits only for its own wake-up %s, %s only its own "
					  "process %d holds (an event loop's wake-up), which only its threads write, "
					  "and none can now (each asleep without a timeout); %s %s: %s (that this one "
					  "would write %s once free, and that no signal handler or kernel completion "
					  "will, is inferred)%s", (int)t->tid, lt_thread_name(t), act ? act : "?",
					  all == 1 ? "fd" : "fds", objs, (int)w->pid, one, stuck_words(pv->kind),
					  pv->summary ? pv->summary : "?", all == 1 ? "it" : "them", tq ? tq : "");
		free(tq);
		free(act);
		edges_evidence(v, w);
		char *wa = lts_thread_activity(who);
		lt_strlist_add(&v->evidence, "its own thread %d (%s) %s: %s", (int)who->tid, lt_thread_name(who),
			       wa ? wa : "?", stuck_words(pv->kind));
		free(wa);
		waited_by_evidence(v, s, t);
	}
}

/* ---- joins ----
 *
 * A join without a timeout (pthread_join, Python's Thread.join(): the
 * glibc and CPython models name it, owner_kind LT_OWNER_JOIN and the lock
 * kind one of lt_done_kind_of's whose holder's exit ends it) waits for
 * the joined thread to exit.  When that thread is itself in a stuck
 * verdict, the join is a chain into that verdict, as a wait into a stuck
 * process is (into_pass), and that verdict says who waits for it.  A
 * joined thread in no such verdict (asleep on a timer, running, idle)
 * makes no chain: the join is counted in the IDLE or OK verdict.  A
 * runtime's own waits for a thread to finish (Java's Thread.join() and
 * FutureTask.get(), OCaml's joins: a runtime lock of a done kind, held by
 * that thread) are lock waits when the thread's own state shows it
 * blocked (verdicts.c, lock_group); the others, in no verdict yet, are
 * followed here as C's are.  *RL: the runtime lock, or NULL. */
static const struct lt_done_kind *join_kind(const struct lt_snapshot *s, const struct lt_thread *t,
					    const struct lt_rtlock **rl)
{
	const struct lt_futex *f = &t->futex;
	*rl = NULL;
	if (t->wait != LT_WAIT_FUTEX || !f->is_wait || f->owner <= 0)
		return NULL;
	if (f->owner_kind != LT_OWNER_JOIN) {
		const struct lt_rtlock *l = f->rtlock && f->rtlock <= s->n_rtlocks ? &s->rtlocks[f->rtlock - 1] : NULL;
		const struct lt_done_kind *dk = l ? lt_done_kind_of(l->kind) : NULL;
		if (!dk || !l->wait_call || l->holder != f->owner)
			return NULL;
		*rl = l;
		return dk;
	}
	const struct lt_done_kind *dk = lt_done_kind_of(f->lock_kind);
	return dk && dk->exit ? dk : NULL;
}

static void join_pass(struct lt_snapshot *s, const bool *in_cycle, size_t n_v)
{
	for (size_t i = 0; i < s->n_threads; i++) {
		const struct lt_thread *t = &s->threads[i];
		const struct lt_futex *f = &t->futex;
		const struct lt_rtlock *rl;
		const struct lt_done_kind *dk = join_kind(s, t, &rl);
		/* a timed join (pthread_timedjoin_np, join(timeout)) ends by itself */
		if (in_cycle[i] || !dk || !asleep(t) || f->timeout_ptr || stuck_verdict_of(s, s->n_verdicts, t->tid))
			continue;
		const struct lt_thread *o = lt_snapshot_find(s, f->owner);
		const struct lt_verdict *pv = o && o != t ? stuck_verdict_of(s, n_v, o->tid) : NULL;
		if (!pv)
			continue;
		struct lt_verdict *v = chain_into(s, t, &pv);
		if (!v)
			return;
		struct lt_verdict *ov = &s->verdicts[pv - s->verdicts];
		bool in = lts_verdict_names(ov, o->tid);
		const char *words = in ? stuck_words(ov->kind) : "blocked behind a deadlock";
		char orelse[160] = "", dur[32];
		if (dk->els)
			snprintf(orelse, sizeof(orelse), " (or on %s)", dk->els);
		lts_fmt_duration(t->idle_src == LT_IDLE_UNKNOWN ? -1 : t->idle_s, dur, sizeof(dur));
		/* "for thread 9 (w) to exit"; a task's: "for the task
		 * java.util.concurrent.FutureTask@0x..., run by thread 9 (w)" */
		char *for_what = dk->exit ? lts_asprintf("for thread %d (%s) to exit", (int)o->tid, lt_thread_name(o))
				 : lts_asprintf("for %s%s, %s thread %d (%s)", dk->what, rl && rl->name ? rl->name : "?",
						dk->run_by, (int)o->tid, lt_thread_name(o));
		v->summary = lts_asprintf("thread %d (%s) waits in %s %s, which is itself %s: %s; the wait ends "
					  "when %s%s", (int)t->tid, lt_thread_name(t), dk->wait_call,
					  for_what ? for_what : "?", words, ov->summary ? ov->summary : "?",
					  dk->done_what, orelse);
		char lb[160];
		lt_strlist_add(&v->evidence, "thread %d (%s) waits in %s %s, for %s [sleeps on %s: %s%s%s]",
			       (int)t->tid, lt_thread_name(t), dk->wait_call, for_what ? for_what : "?", dur,
			       lts_lock_label(f, lb, sizeof(lb)), rl ? rl->kind : f->lock_kind,
			       f->lock_state ? ", " : "", f->lock_state ? f->lock_state : "");
		char *oa = lts_thread_activity(o);
		lt_strlist_add(&v->evidence, "%s %d (%s) %s: %s", dk->exit ? "joined thread" : "the task's runner, thread",
			       (int)o->tid, lt_thread_name(o), oa ? oa : "?", words);
		free(oa);
		waited_by_evidence(v, s, t);
		lt_strlist_add(&ov->evidence, "waited for by: thread %d (%s) in %s, %s", (int)t->tid, lt_thread_name(t),
			       dk->wait_call, for_what ? for_what : "?");
		free(for_what);
	}
}

/* ---- a signal that only a thread of the process can send ----
 *
 * A thread asleep with no timeout on a condition variable, a barrier or a
 * Python Condition (the models name it: no owner recorded, no signal
 * pending, its word what it expected), on a futex private to its process
 * (or a shared one that no other live process maps): only another thread
 * of its process can end the wait, the kernel keying a private futex by
 * its process (a signal handler aside).  When each of those threads is
 * asleep with no timeout and none can send it now (each in a stuck
 * verdict, or as own_thread_cannot_wake asks, or a runtime's own idle
 * thread), and one is stuck, the wait is a chain into that one's verdict:
 * that it is the one to send it once free is inferred, and said.  The
 * waiters of one object share the verdict.  A runtime's thread waiting for
 * work is left to IDLE (it waits for whoever posts next); a waiter whose
 * stuck thread's lock it holds itself is a cycle, left to the deadlock
 * rules. */
struct notify_kind {
	const char *kind; /* lt_futex.lock_kind */
	const char *at;   /* "waits on", "waits at" */
	const char *for_; /* what ends the wait */
	const char *does; /* what another thread does to end it */
	int state;        /* its lock_state said in the headline: 1 all of
	                     it, 2 its first clause (a runtime's, before
	                     the futex's own) */
	bool named;       /* the object by its lock_name (a runtime's), not
	                     by the futex word's address */
};
static const struct notify_kind notify_kinds[] = {
	{ "condition variable", "on", "a signal (pthread_cond_signal or _broadcast)", "send it", 0, false },
	{ "barrier", "at", "the other threads to arrive", "arrive", 1, false },
	{ "threading.Condition", "in Condition.wait() on", "a notify()", "send it", 0, false },
	{ LT_KIND_JAVA_BARRIER, "in CyclicBarrier.await() on", "the barrier's other parties to arrive", "arrive", 0,
	  true },
	{ LT_KIND_JAVA_PHASER, "at", "the other parties to arrive", "arrive", 2, true },
	{ LT_KIND_JAVA_CFUTURE, "in CompletableFuture.get() or join() on", "the future to be completed",
	  "complete it", 0, true },
	{ LT_KIND_JAVA_FJTASK, "in ForkJoinTask.get() or join() of", "it to end", "end it", 0, true },
	{ LT_KIND_JAVA_SIGNAL, "in Condition.await() on", "a signal()", "signal it", 2, true },
	{ LT_KIND_JAVA_NOTIFY, "in Object.wait() on", "a notify()", "notify it", 2, true },
	{ LT_KIND_JAVA_UNPARK, "in LockSupport.park(),", "an unpark()", "unpark it", 2, true },
	{ LT_KIND_JAVA_LATCH, "at", "its count to reach 0 (countDown() calls)", "count it down", 2, true },
	{ LT_KIND_JAVA_SEMAPHORE, "at", "a permit (a release())", "release one", 2, true },
};

static const struct notify_kind *notify_wait(const struct lt_thread *t)
{
	const struct lt_futex *f = &t->futex;
	if (t->wait != LT_WAIT_FUTEX || !f->is_wait || f->is_pi || !asleep(t) || t->state == 'T' ||
	    t->state == 't' || f->timeout_ptr || f->owner_kind != LT_OWNER_NONE || f->owner_gone || f->rtlock ||
	    !f->lock_kind || f->cond_signal == 2 || !f->word_ok || f->word != f->expected)
		return NULL;
	if (!lts_futex_own_only(f))
		return NULL;
	if (lts_runtime_idle(t) || lts_java_sleep(t))
		return NULL;
	for (size_t k = 0; k < sizeof(notify_kinds) / sizeof(notify_kinds[0]); k++)
		if (!strcmp(f->lock_kind, notify_kinds[k].kind))
			return &notify_kinds[k];
	return NULL;
}


/* What thread U of process PID could do for a waiter of notify_wait's,
 * whoever that waiter is: send it now (running, on a timer, in a wait
 * something not stuck ends), nothing until its stuck verdict ends, or
 * nothing (asleep for good: another such waiter, a runtime's idle thread). */
enum { NW_CANNOT = 0, NW_CAN, NW_STUCK };

static int notify_could(const struct lt_snapshot *s, pid_t pid, const struct lt_thread *u, bool stuck)
{
	static const struct lt_thread nobody; /* no wait of its own takes a SIGCHLD */
	double left;
	if (!asleep(u))
		return NW_CAN;
	if (notify_wait(u) || lts_runtime_idle(u) || lts_java_launcher_join(s, pid, u))
		return NW_CANNOT;
	if (lts_wait_timed(s, u, &left))
		return NW_CAN;
	if (stuck)
		return NW_STUCK;
	/* a futex another process may wake (a shared one it maps), then
	 * send the signal */
	const struct lt_futex *f = &u->futex;
	if (u->wait == LT_WAIT_FUTEX && f->is_wait && !lts_futex_own_only(f))
		return NW_CAN;
	return own_thread_cannot_wake(s, pid, u, &nobody) ? NW_CANNOT : NW_CAN;
}

/* For each of S's threads, the index of the first of the first N_V
 * verdicts that says it stuck (stuck_verdict_of, for all at once: one
 * look-up a thread named), or N_V: none. */
static void stuck_index(const struct lt_snapshot *s, size_t n_v, size_t *vi)
{
	for (size_t j = 0; j < s->n_threads; j++)
		vi[j] = n_v;
	for (size_t i = n_v; i-- > 0;) {
		const struct lt_verdict *v = &s->verdicts[i];
		if (!lt_verdict_kind_stuck(v->kind))
			continue;
		for (size_t k = 0; k < v->n_tids + v->n_behind; k++) {
			pid_t tid = k < v->n_tids ? v->tids[k] : v->behind[k - v->n_tids];
			const struct lt_thread *u = lt_snapshot_find(s, tid);
			if (u)
				vi[u - s->threads] = i;
		}
	}
}

/* A thread by its process (sorted: a process's threads are a run). */
struct nw_key {
	pid_t pid;
	size_t idx;
};

static int nw_cmp(const void *a, const void *b)
{
	const struct nw_key *x = a, *y = b;
	if (x->pid != y->pid)
		return x->pid < y->pid ? -1 : 1;
	return (x->idx > y->idx) - (x->idx < y->idx);
}

/* How stuck thread U's wait goes back to the signal waiters of its own
 * process PID (W, their tids): NW_SELF_HELD, it waits for a lock one of
 * them holds (its recorded owner), or a file or application lock its own
 * process holds (any of its threads, a waiter among them): a cycle;
 * NW_SELF_MAYBE, a lock of the process whose holder is not recorded (a
 * waiter may hold it); NW_SELF_NONE otherwise. */
enum { NW_SELF_NONE, NW_SELF_MAYBE, NW_SELF_HELD };
static int pid_cmp(const void *a, const void *b)
{
	pid_t x = *(const pid_t *)a, y = *(const pid_t *)b;
	return (x > y) - (x < y);
}

/* P in the ascending W[0..N) */
static bool in_sorted(const pid_t *w, size_t n, pid_t p)
{
	return n && bsearch(&p, w, n, sizeof(*w), pid_cmp);
}

static int self_held(const struct lt_thread *u, pid_t pid, const pid_t *w, size_t nw)
{
	const struct lt_futex *f = &u->futex;
	if (u->wait == LT_WAIT_FUTEX && f->is_wait) {
		if (f->owner_kind != LT_OWNER_NONE && f->owner > 0)
			return in_sorted(w, nw, f->owner) ? NW_SELF_HELD : NW_SELF_NONE;
		return f->private_ && !f->owner_gone && !f->owner_tgid ? NW_SELF_MAYBE : NW_SELF_NONE;
	}
	for (size_t i = 0; u->wf && i < u->wf->n_edges; i++) {
		const struct lt_wf_edge *e = &u->wf->edges[i];
		if (e->kind != LT_WF_FILE_LOCK && e->kind != LT_WF_APP_LOCK)
			continue;
		if (e->holder_tid)
			return in_sorted(w, nw, e->holder_tid) ? NW_SELF_HELD : NW_SELF_NONE;
		for (size_t q = 0; q < e->n_pids; q++)
			if (e->pids[q] == pid)
				return NW_SELF_HELD;
	}
	return NW_SELF_NONE;
}

/* Are the signal waiters W[0..N) all Java threads (parked: only a Java
 * thread's unpark() or notify() ends their waits)? */
static bool java_waiters(const struct lt_snapshot *s, const pid_t *w, size_t n)
{
	for (size_t q = 0; q < n; q++) {
		const struct lt_thread *u = lt_snapshot_find(s, w[q]);
		if (!u || !lts_java_thread(u))
			return false;
	}
	return true;
}

/* Does thread U wait for one of the stuck threads ST[0..N) (their
 * indexes): a lock it holds, its exit?  Such a one is behind another: the
 * other is the one to name. */
static bool behind_stuck(const struct lt_snapshot *s, const struct lt_thread *u, const size_t *st, size_t n)
{
	const struct lt_futex *f = &u->futex;
	if (u->wait != LT_WAIT_FUTEX || !f->is_wait || f->owner_kind == LT_OWNER_NONE || f->owner <= 0)
		return false;
	for (size_t q = 0; q < n; q++)
		if (s->threads[st[q]].tid == f->owner)
			return true;
	return false;
}

/* "a signal (pthread_cond_signal or _broadcast)", or for waiters of
 * several kinds "their signals" */
static void notify_object_words(const struct lt_snapshot *s, const pid_t *w, size_t nw, const struct notify_kind **nk,
				char *obj, size_t len)
{
	const struct lt_thread *t = lt_snapshot_find(s, w[0]);
	const struct lt_futex *f = &t->futex;
	uint64_t key = f->lock_base ? f->lock_base : f->uaddr;
	size_t apart = 0; /* waiters on other objects than the first's */
	for (size_t q = 1; q < nw; q++) {
		const struct lt_thread *u = lt_snapshot_find(s, w[q]);
		apart += !u || (u->futex.lock_base ? u->futex.lock_base : u->futex.uaddr) != key;
	}
	*nk = notify_wait(t);
	char lb[300], st[160] = "";
	if ((*nk)->state && f->lock_state) {
		int cut = (*nk)->state == 2 && strchr(f->lock_state, ';') ? (int)(strchr(f->lock_state, ';') - f->lock_state)
									     : (int)strlen(f->lock_state);
		/* waiters of one object whose states differ (each its own
		 * call site): none of them is the headline's */
		size_t differ = 0;
		for (size_t q = 1; q < nw; q++) {
			const struct lt_thread *u = lt_snapshot_find(s, w[q]);
			const char *us = u ? u->futex.lock_state : NULL;
			differ += !us || strncmp(us, f->lock_state, (size_t)cut) || (us[cut] && us[cut] != ';');
		}
		if (differ && !apart)
			snprintf(st, sizeof(st), " (called from different places: each thread's below)");
		else
			snprintf(st, sizeof(st), " (%.*s)", cut, f->lock_state);
	}
	if ((*nk)->named && f->lock_name)
		snprintf(lb, sizeof(lb), "%s", f->lock_name);
	else
		lts_lock_label(f, lb, sizeof(lb));
	/* a runtime's object says its kind in its name */
	const char *kind = (*nk)->named && f->lock_name ? "" : f->lock_kind, *sp = kind[0] ? " " : "";
	if (!apart)
		snprintf(obj, len, "%s %s%s%s%s for %s", (*nk)->at, kind, sp, lb, st, (*nk)->for_);
	else
		snprintf(obj, len, "for signals: thread %d (%s) %s %s%s%s%s for %s, %zu on other objects (below)",
			 (int)t->tid, lt_thread_name(t), (*nk)->at, kind, sp, lb, st, (*nk)->for_, apart);
	if (apart)
		*nk = NULL;
}

/* The first eight of the signal waiters W[0..NW), each with its wait. */
static void waiters_evidence(struct lt_verdict *v, const struct lt_snapshot *s, const pid_t *w, size_t nw)
{
	for (size_t q = 0; q < nw && q < 8; q++) {
		const struct lt_thread *u = lt_snapshot_find(s, w[q]);
		char *act = lts_thread_activity(u), dur[32];
		lts_fmt_duration(u->idle_src == LT_IDLE_UNKNOWN ? -1 : u->idle_s, dur, sizeof(dur));
		lt_strlist_add(&v->evidence, "thread %d (%s) %s, for %s [%s%s%s; no owner recorded: any thread of its "
			       "process may end it]", (int)u->tid, lt_thread_name(u), act ? act : "?", dur,
			       u->futex.lock_kind, u->futex.lock_state ? ": " : "",
			       u->futex.lock_state ? u->futex.lock_state : "");
		free(act);
	}
	if (nw > 8)
		lt_strlist_add(&v->evidence, "and %zu more waiters", nw - 8);
}

/* Does a verdict of S name TID already (an unknown one of an earlier
 * pass: no stuck kind, so its waiters come back)? */
static bool named_already(const struct lt_snapshot *s, pid_t tid)
{
	for (size_t i = 0; i < s->n_verdicts; i++)
		if (lts_verdict_names(&s->verdicts[i], tid))
			return true;
	return false;
}

/* Is every thread of process PID but the signal waiters W[0..NW) (KS, N
 * of them) one that is known to send nothing: another such waiter, a
 * runtime's own thread idle on a futex (not one in I/O: a JNI thread in
 * accept() has no Java frames either), the java launcher's join, a join
 * of one of the waiters?  Not a thread in an event or I/O wait that only
 * its own threads seem to end (a wake-up fd: the kernel writes an
 * eventfd for AIO or io_uring, a signal handler a self-pipe, a timer
 * arms the signal): that inference is too weak to call the wake-up lost. */
static bool all_known_unable(const struct lt_snapshot *s, pid_t pid, const pid_t *w, size_t nw,
			     const struct nw_key *ks, size_t n)
{
	for (size_t q = 0; q < n; q++) {
		const struct lt_thread *u = &s->threads[ks[q].idx];
		if (in_sorted(w, nw, u->tid) || notify_wait(u) || lts_java_launcher_join(s, pid, u))
			continue;
		const struct lt_futex *f = &u->futex;
		bool futex = u->wait == LT_WAIT_FUTEX && f->is_wait && asleep(u);
		if (futex && (lts_runtime_idle(u) || lts_jvm_own_thread(u)))
			continue;
		if (futex && !f->timeout_ptr && f->owner > 0 && in_sorted(w, nw, f->owner) &&
		    (f->owner_kind == LT_OWNER_JOIN || f->owner_kind == LT_OWNER_RUNTIME))
			continue; /* joins a waiter (Thread.join(), pthread_join) */
		return false;
	}
	return true;
}

/* Is thread U's futex F2 the same object as F (one semaphore in shared
 * memory, mapped by each process at its own address)? */
static bool same_shared(const struct lt_futex *f, const struct lt_futex *f2)
{
	return f2->shared_obj && f2->obj_ino == f->obj_ino && f2->obj_major == f->obj_major &&
	       f2->obj_minor == f->obj_minor && f2->obj_off == f->obj_off;
}

static bool mp_cond_wait(const struct lt_thread *t)
{
	const struct lt_futex *f = &t->futex;
	return t->wait == LT_WAIT_FUTEX && f->is_wait && asleep(t) && !f->timeout_ptr && f->shared_obj &&
	       f->lock_kind && !strcmp(f->lock_kind, LT_KIND_PY_MP_COND);
}

/* Is T asleep in multiprocessing's Condition.wait() on F's semaphore? */
static bool on_sem(const struct lt_thread *t, const struct lt_futex *f)
{
	return mp_cond_wait(t) && same_shared(f, &t->futex);
}

/* Does thread U wait, asleep, only for processes of PIDS (N of them): each
 * of its wait-for edges leads only into them (a parent's wait4 for the
 * waiting child, a read of a pipe only the waiter writes; ALONE: or into its
 * own process, of which it is the only thread), none ends by itself (a
 * timer)? */
static bool waits_only_on_procs(const struct lt_thread *u, const pid_t *pids, size_t n, bool alone)
{
	if (!asleep(u) || !u->wf || !u->wf->n_edges)
		return false;
	for (size_t k = 0; k < u->wf->n_edges; k++) {
		const struct lt_wf_edge *e = &u->wf->edges[k];
		if (ends_by_itself(e->kind) || !e->n_pids || e->more_pids)
			return false;
		for (size_t q = 0; q < e->n_pids; q++) {
			/* its own process, when it is that process's only
			 * thread (the write end of a Queue it reads, kept) */
			bool in = alone && e->pids[q] == u->wf->pid;
			for (size_t r = 0; r < n && !in; r++)
				in = e->pids[q] == pids[r];
			if (!in)
				return false;
		}
	}
	return true;
}

/* Does U join (pthread_join, Thread.join) a thread asleep on F's semaphore
 * in multiprocessing's Condition.wait()? */
static bool joins_waiter(const struct lt_snapshot *s, const struct lt_thread *u, const struct lt_futex *f)
{
	const struct lt_futex *g = &u->futex;
	if (u->wait != LT_WAIT_FUTEX || !g->is_wait || g->timeout_ptr || g->owner_kind != LT_OWNER_JOIN || g->owner <= 0)
		return false;
	const struct lt_thread *o = lt_snapshot_find(s, g->owner);
	return o && on_sem(o, f);
}

/* multiprocessing's Condition.wait() (Event.wait(), Barrier.wait()) asleep
 * on its semaphore in shared memory, without a timeout: any thread of a
 * process mapping it may post it.  When the processes that map it are all
 * in the view (the snapshot followed them) and every one of their threads
 * but its waiters is stuck, asleep for good, or waits only for the waiters'
 * processes: a deadlock when one of them waits for the waiters (a parent's
 * join of the waiting child) or for a lock a waiter holds (a review's
 * cases), else a chain into one that is stuck; while one of them can
 * (running, on a timer, in a wait nothing stuck ends) nothing is said, nor
 * when a process mapping it is not in the view. */
static void mp_cond_pass(struct lt_snapshot *s, const bool *in_cycle, size_t n_v)
{
	size_t n = s->n_threads;
	bool any = false;
	for (size_t j = 0; j < n && !any; j++)
		any = mp_cond_wait(&s->threads[j]);
	if (!any)
		return;
	size_t *uvi = calloc(n, sizeof(*uvi));
	bool *done = calloc(n, 1);
	if (!uvi || !done)
		goto out;
	stuck_index(s, n_v, uvi);
	for (size_t j = 0; j < n; j++) {
		const struct lt_thread *t = &s->threads[j];
		if (done[j] || !mp_cond_wait(t) || in_cycle[j] || uvi[j] < n_v)
			continue;
		const struct lt_futex *f = &t->futex;
		/* its processes: the waiter's own and those mapping it */
		pid_t procs[LT_FUTEX_MAPPERS + 1];
		size_t np = 0;
		procs[np++] = thread_pid_of(s, j);
		bool known = f->obj_mappers_known && f->obj_mapper_pids && f->obj_mappers <= LT_FUTEX_MAPPERS;
		for (int q = 0; known && q < f->obj_mappers; q++)
			if (f->obj_mapper[q] != procs[0])
				procs[np++] = f->obj_mapper[q];
		/* the waiters (every thread on this semaphore), and the
		 * processes all of whose threads are waiters */
		pid_t wp[LT_FUTEX_MAPPERS + 1];
		size_t nw = 0, nwp = 0, nthr[LT_FUTEX_MAPPERS + 1] = { 0 };
		for (size_t i = 0; i < n; i++) {
			if (on_sem(&s->threads[i], f)) {
				done[i] = true;
				nw++;
			}
			for (size_t q = 0; q < np; q++)
				nthr[q] += thread_pid_of(s, i) == procs[q];
		}
		/* (and those whose other threads cannot post it either: an idle
		 * queue feeder, a join of a waiter: a review's cases) */
		for (size_t q = 0; q < np; q++) {
			bool all = true, some = false, waiter = false;
			for (size_t i = 0; i < n && all; i++)
				if (thread_pid_of(s, i) == procs[q]) {
					some = true;
					bool w = on_sem(&s->threads[i], f);
					waiter |= w;
					all = w || notify_could(s, procs[q], &s->threads[i], uvi[i] < n_v) == NW_CANNOT ||
					      joins_waiter(s, &s->threads[i], f);
				}
			if (some && all && waiter)
				wp[nwp++] = procs[q];
		}
		/* what each other thread of those processes can do */
		size_t can = 0, stuck = 0, first_stuck = n, on_us = n, held = n;
		bool in_view[LT_FUTEX_MAPPERS + 1] = { false };
		for (size_t i = 0; i < n; i++) {
			const struct lt_thread *u = &s->threads[i];
			pid_t p = thread_pid_of(s, i);
			size_t q = 0;
			while (q < np && procs[q] != p)
				q++;
			if (q == np)
				continue;
			in_view[q] = true;
			if (on_sem(u, f))
				continue;
			if (nwp && waits_only_on_procs(u, wp, nwp, nthr[q] == 1)) {
				if (on_us == n)
					on_us = i; /* it waits for the waiters: a cycle */
				continue;
			}
			int c = notify_could(s, p, u, uvi[i] < n_v);
			if (c == NW_CAN)
				can++;
			else if (c == NW_STUCK) {
				if (!stuck++)
					first_stuck = i;
				/* stuck on a lock a waiter holds: a cycle */
				const struct lt_verdict *sv = &s->verdicts[uvi[i]];
				const struct lt_thread *o = sv->owner > 0 ? lt_snapshot_find(s, sv->owner) : NULL;
				if (held == n && o && on_sem(o, f))
					held = i;
			}
		}
		bool all_in = known;
		for (size_t q = 0; q < np; q++)
			all_in &= in_view[q];
		if (can || !all_in || (!stuck && on_us == n) || named_already(s, t->tid))
			continue;
		char pl[160];
		size_t l = 0;
		pl[0] = 0;
		for (size_t q = 0; q < np && l < sizeof(pl) - 16; q++)
			l += (size_t)snprintf(pl + l, sizeof(pl) - l, "%s%d", q ? ", " : "", (int)procs[q]);
		const char *state = f->lock_state ? f->lock_state : "";
		const char *via = strstr(state, "Event.wait()") ? "Event.wait() for a set()"
				  : strstr(state, "Barrier.wait()") ? "Barrier.wait() for the other parties"
				  : "Condition.wait() for a notify()";
		char subj[96];
		if (nw == 1)
			snprintf(subj, sizeof(subj), "thread %d (%s) waits", (int)t->tid, lt_thread_name(t));
		else
			snprintf(subj, sizeof(subj), "%zu threads wait", nw);
		/* a cycle only when nothing else could end it: no other stuck
		 * thread (a sibling stuck elsewhere may yet post: a chain into
		 * it), or the one stuck thread on a lock a waiter holds */
		size_t cyc = on_us < n && !stuck ? on_us : stuck == 1 && held < n ? held : n;
		/* a named semaphore still in /dev/shm (the spawn and forkserver
		 * start methods) may be opened by a process not mapping it yet
		 * (a child still importing its main module: a review's case):
		 * the processes mapping it now are not all that can */
		char lb[200];
		bool named = !strstr(lts_lock_label(f, lb, sizeof(lb)), "(deleted)");
		if (named)
			continue;
		/* a handler of a signal the cycle's other process catches may
		 * still set it (SIGALRM's, a review's case): not known, said */
		char sig[400] = "";
		int h = cyc < n ? lts_handler_clause(&s->threads[cyc], "set", false, sig, sizeof(sig)) : -1;
		struct lt_verdict *v;
		if (cyc < n) {
			const struct lt_thread *who = &s->threads[cyc];
			v = add_verdict(s, h > 0 ? LT_VERDICT_UNKNOWN : LT_VERDICT_DEADLOCK);
			if (!v)
				goto out;
			for (size_t i = 0; i < n; i++)
				if (on_sem(&s->threads[i], f) && !in_cycle[i])
					lts_verdict_add(v, s->threads[i].tid, s->threads[i].futex.uaddr, true);
			lts_verdict_add(v, who->tid, who->wait == LT_WAIT_FUTEX ? who->futex.uaddr : 0, true);
			v->explains = v->n_tids;
			v->longest_s = t->idle_src == LT_IDLE_UNKNOWN ? -1 : t->idle_s;
			char *act = lts_thread_activity(who);
			if (cyc == on_us)
				v->summary = lts_asprintf("%s%s in multiprocessing %s, which only a thread of a "
							  "process mapping its semaphore can send (process%s %s), and none "
							  "can: thread %d (%s) of process %d waits only for %s (%s): they wait "
							  "for each other%s", h > 0 ? "" : "deadlock: ", subj, via,
							  np > 1 ? "es" : "", pl, (int)who->tid,
							  lt_thread_name(who), (int)thread_pid_of(s, cyc),
							  nwp == 1 ? "the waiter's process" : "the waiters' processes",
							  act ? act : "?", h > 0 ? sig : "");
			else
				v->summary = lts_asprintf("%s%s in multiprocessing %s, which only a thread of a "
							  "process mapping its semaphore can send (process%s %s), and none "
							  "can: thread %d (%s) of process %d is itself in %s for a lock "
							  "thread %d holds: they wait for each other%s", h > 0 ? "" : "deadlock: ",
							  subj, via, np > 1 ? "es" : "", pl, (int)who->tid, lt_thread_name(who),
							  (int)thread_pid_of(s, cyc), "a lock wait",
							  (int)s->verdicts[uvi[cyc]].owner, h > 0 ? sig : "");
			free(act);
		} else {
			const struct lt_thread *who = &s->threads[first_stuck];
			const struct lt_verdict *pv = &s->verdicts[uvi[first_stuck]];
			v = chain_into(s, t, &pv);
			if (!v)
				goto out;
			v->cause_tid = who->tid;
			for (size_t i = 0; i < n; i++)
				if (i != j && on_sem(&s->threads[i], f) && !in_cycle[i] &&
				    !lts_verdict_add(v, s->threads[i].tid, 0, false))
					v->explains++;
			v->summary = lts_asprintf("%s in multiprocessing %s, which only a thread of a process mapping its "
						  "semaphore can send (process%s %s), and none can now: %s, thread %d (%s), "
						  "is itself %s: %s (that it would send it once free is inferred)", subj,
						  via, np > 1 ? "es" : "", pl, stuck == 1 ? "the only one not asleep for "
						  "good" : "one of those stuck", (int)who->tid, lt_thread_name(who),
						  stuck_words(pv->kind), pv->summary ? pv->summary : "?");
		}
		lt_strlist_add(&v->evidence, "thread %d (%s) %s", (int)t->tid, lt_thread_name(t),
			       f->lock_state ? f->lock_state : "waits in multiprocessing Condition.wait()");
		lt_strlist_add(&v->evidence, "the processes mapping the semaphore (%s) were all followed: each of "
			       "their other threads is stuck, asleep for good, or waits for the waiters", pl);
	}
out:
	free(uvi);
	free(done);
}

/* Signal waiters W[0..NW) of process PID whose every other thread (KS,
 * N of them, CLS their notify_could) is asleep in a wait that none of them
 * can end (another such waiter, a runtime's own idle thread, the java
 * launcher's join, a wait only these could end), with none stuck: nobody
 * is left to send it, a lost wake-up (a cycle of hand-offs among them, a
 * latch nobody will count down), unless a signal handler posts it (a
 * JVM's shutdown hook on SIGTERM among them). */
static void nobody_left(struct lt_snapshot *s, pid_t pid, const pid_t *w, size_t nw, const struct nw_key *ks, size_t n,
			const unsigned char *cls)
{
	/* a JVM runs shutdown hooks and sun.misc.Signal handlers on SIGTERM,
	 * SIGINT, SIGHUP, whether any is registered is not read: not known
	 * to be lost, said so */
	bool java = java_waiters(s, w, nw);
	const struct lt_thread *t = lt_snapshot_find(s, w[0]);
	char sig[300] = "";
	int h = java || !t ? -1 : lts_handler_clause(t, "send", nw > 1, sig, sizeof(sig));
	struct lt_verdict *v = add_verdict(s, java || h > 0 ? LT_VERDICT_UNKNOWN : LT_VERDICT_LOST_WAKEUP);
	if (!v)
		return;
	v->longest_s = -1;
	for (size_t q = 0; q < nw; q++) {
		const struct lt_thread *u = lt_snapshot_find(s, w[q]);
		if (!u || lts_verdict_add(v, u->tid, u->futex.uaddr, true))
			continue;
		if (u->idle_src != LT_IDLE_UNKNOWN && u->idle_s > v->longest_s)
			v->longest_s = u->idle_s;
	}
	v->explains = v->n_tids;
	const struct notify_kind *nk;
	char obj[400], subj[96];
	notify_object_words(s, w, nw, &nk, obj, sizeof(obj));
	if (nw == 1)
		snprintf(subj, sizeof(subj), "thread %d (%s) waits", (int)t->tid, lt_thread_name(t));
	else
		snprintf(subj, sizeof(subj), "%zu threads wait", nw);
	if (java)
		v->summary = lts_asprintf("no thread of the program is left to wake %s: %s %s, which only another "
					  "thread of process %d can end (%s), and none of the program's can: each other "
					  "thread waits for such a signal too, is the runtime's own and idle, or joins one "
					  "of these; only a signal could still end it (the JVM runs its shutdown hooks "
					  "and signal handlers on SIGTERM, SIGINT, SIGHUP; whether any is registered is "
					  "not read): hung, or waiting for that signal", nw == 1 ? "it" : "them", subj, obj,
					  (int)pid, t->futex.private_ ? "a futex private to it" : "no other live process maps it");
	else
		v->summary = lts_asprintf("%s %s: %s %s, which only another thread of process %d can end (%s), and "
					  "none can: each other thread waits for such a signal too, is the runtime's own "
					  "and idle, or joins one of these%s%s", h > 0 ? "no thread is left to wake"
					  : "nobody is left to wake", nw == 1 ? "it" : "them", subj, obj, (int)pid,
					  t->futex.private_ ? "a futex private to it" : "no other live process maps it",
					  h > 0 ? "" : ": the wake-up cannot come", sig);
	waiters_evidence(v, s, w, nw);
	size_t shown = 0;
	for (size_t q = 0; q < n && shown <= 6; q++) {
		const struct lt_thread *u = &s->threads[ks[q].idx];
		if (in_sorted(w, nw, u->tid))
			continue;
		if (shown++ == 6) {
			lt_strlist_add(&v->evidence, "and %zu more of its threads", n - nw - 6);
			break;
		}
		char *act = lts_thread_activity(u);
		lt_strlist_add(&v->evidence, "its own thread %d (%s) %s: %s", (int)u->tid, lt_thread_name(u),
			       act ? act : "?",
			       lts_runtime_idle(u) ? "a runtime's own thread, idle"
			       : cls[ks[q].idx] == NW_CAN ? "the runtime's own (runs none of the program's code)"
							   : "asleep, with no way to end it now");
		free(act);
	}
}

static void notify_pass(struct lt_snapshot *s, const bool *in_cycle, size_t n_v)
{
	size_t n = s->n_threads;
	bool any = false;
	for (size_t j = 0; j < n && !any; j++)
		any = notify_wait(&s->threads[j]) != NULL;
	if (!any)
		return;
	unsigned char *cls = calloc(n, 1);
	/* the stuck threads' verdicts, by index: adding one may move them */
	size_t *uvi = calloc(n, sizeof(*uvi));
	struct nw_key *k = calloc(n, sizeof(*k));
	pid_t *w = calloc(n, sizeof(*w));         /* a process's signal waiters */
	size_t *st = calloc(n, sizeof(*st));      /* its stuck threads */
	if (!cls || !uvi || !k || !w || !st)
		goto out;
	stuck_index(s, n_v, uvi);
	for (size_t j = 0; j < n; j++) {
		k[j].pid = thread_pid_of(s, j);
		k[j].idx = j;
		cls[j] = (unsigned char)notify_could(s, k[j].pid, &s->threads[j], uvi[j] < n_v);
	}
	qsort(k, n, sizeof(*k), nw_cmp);
	for (size_t pa = 0, pb; pa < n; pa = pb) {
		/* process k[pa].pid: its threads k[pa..pb) */
		bool can = false;
		size_t n_st = 0, nw = 0;
		for (pb = pa; pb < n && k[pb].pid == k[pa].pid; pb++) {
			size_t j = k[pb].idx;
			const struct lt_thread *u = &s->threads[j];
			can |= cls[j] == NW_CAN;
			if (cls[j] == NW_STUCK)
				st[n_st++] = j;
			else if (notify_wait(u) && !in_cycle[j] && uvi[j] >= n_v)
				w[nw++] = u->tid;
		}
		if (can && nw && java_waiters(s, w, nw)) {
			/* only a Java thread of the program unparks one: not
			 * the JVM's own, caught running or on a timer */
			can = false;
			for (size_t q = pa; q < pb && !can; q++)
				can = cls[k[q].idx] == NW_CAN && !lts_jvm_own_thread(&s->threads[k[q].idx]);
		}
		if (can || !nw)
			continue;
		if (!n_st) {
			/* none stuck either: nobody is left to send it, when
			 * that is known for each of the others */
			if (!named_already(s, w[0]) && all_known_unable(s, k[pa].pid, w, nw, k + pa, pb - pa))
				nobody_left(s, k[pa].pid, w, nw, k + pa, pb - pa, cls);
			continue;
		}
		pid_t pid = k[pa].pid;
		/* the stuck thread to name: one whose wait does not come back to
		 * the waiters (else the first, said as a cycle) */
		size_t who_i = st[0];
		int self = NW_SELF_HELD;
		bool behind = true;
		for (size_t q = 0; q < n_st && (self != NW_SELF_NONE || behind); q++) {
			int sh = self_held(&s->threads[st[q]], pid, w, nw);
			bool bh = behind_stuck(s, &s->threads[st[q]], st, n_st);
			if (sh < self || (sh == self && behind && !bh)) {
				self = sh;
				who_i = st[q];
				behind = bh;
			}
		}
		const struct lt_thread *who = &s->threads[who_i];
		const struct lt_verdict *pv = &s->verdicts[uvi[who_i]];
		size_t others = (pb - pa) - nw;
		const struct lt_thread *t = lt_snapshot_find(s, w[0]);
		struct lt_verdict *v = self == NW_SELF_HELD ? add_verdict(s, LT_VERDICT_DEADLOCK) : chain_into(s, t, &pv);
		if (!v)
			goto out;
		pv = &s->verdicts[uvi[who_i]];
		if (self != NW_SELF_HELD)
			v->cause_tid = who->tid; /* said after who's verdict */
		/* the waiters' futex words beside their tids (the JSON's locks);
		 * in a deadlock the stuck thread last, with its lock or 0 */
		if (self != NW_SELF_HELD) {
			uint64_t *nl = malloc(sizeof(*nl));
			if (nl) {
				nl[0] = t->futex.uaddr;
				free(v->locks);
				v->locks = nl;
				v->n_locks = 1;
			}
		}
		for (size_t q = self == NW_SELF_HELD ? 0 : 1; q < nw; q++) {
			const struct lt_thread *u = lt_snapshot_find(s, w[q]);
			if (!u || lts_verdict_add(v, u->tid, u->futex.uaddr, v->n_locks == v->n_tids))
				continue;
			if (q)
				v->explains++;
			if (u->idle_src != LT_IDLE_UNKNOWN && u->idle_s > v->longest_s)
				v->longest_s = u->idle_s;
		}
		if (self == NW_SELF_HELD &&
		    !lts_verdict_add(v, who->tid, who->wait == LT_WAIT_FUTEX ? who->futex.uaddr : 0, v->n_locks == v->n_tids))
			v->explains = v->n_tids;
		const struct notify_kind *nk;
		char obj[400], one[600], subj[96];
		notify_object_words(s, w, nw, &nk, obj, sizeof(obj));
		if (nw == 1)
			snprintf(subj, sizeof(subj), "thread %d (%s) waits", (int)t->tid, lt_thread_name(t));
		else
			snprintf(subj, sizeof(subj), "%zu threads wait", nw);
		if (others == 1) {
			snprintf(one, sizeof(one), "the only one, thread %d (%s), is itself", (int)who->tid,
				 lt_thread_name(who));
		} else if (n_st == 1) {
			snprintf(one, sizeof(one), "one of them, thread %d (%s), is itself", (int)who->tid,
				 lt_thread_name(who));
		} else {
			size_t l = (size_t)snprintf(one, sizeof(one), "%zu of them are stuck (", n_st);
			for (size_t q = 0; q < n_st && q < 4 && l < sizeof(one); q++)
				l += (size_t)snprintf(one + l, sizeof(one) - l, "%s%d", q ? ", " : "",
						      (int)s->threads[st[q]].tid);
			if (l < sizeof(one))
				snprintf(one + l, sizeof(one) - l, "%s; which of them would end it is not known), among "
					 "them thread %d (%s), itself", n_st > 4 ? ", ..." : "", (int)who->tid,
					 lt_thread_name(who));
		}
		const char *priv = t->futex.private_ ? "a futex private to it" : "no other live process maps it";
		const char *does = nk ? nk->does : "end it";
		const char *maybe = self == NW_SELF_MAYBE
					    ? "; that lock's holder is not recorded: if it is one of these waiters, they "
					      "wait for each other"
					    : "";
		if (self == NW_SELF_HELD)
			v->summary = lts_asprintf("probable deadlock (a signaller inferred): %s %s, which only another "
						  "thread of process %d can end (%s), and none can now (%s asleep without "
						  "a timeout); %s %s: %s, which the %s holds: they wait for each other (that "
						  "it would %s once free, and that no signal handler will end the wait, is "
						  "inferred)", subj, obj, (int)pid, priv, others == 1 ? "it is" : "each", one,
						  stuck_words(pv->kind), pv->summary ? pv->summary : "?",
						  nw == 1 ? "waiter's process" : "waiters' process", does);
		else
			v->summary = lts_asprintf("%s %s, which only another thread of process %d can end (%s), and none "
						  "can now (%s asleep without a timeout); %s %s: %s (that it would %s once "
						  "free, and that no signal handler will end the wait, is inferred%s)", subj,
						  obj, (int)pid, priv, others == 1 ? "it is" : "each", one,
						  stuck_words(pv->kind), pv->summary ? pv->summary : "?", does, maybe);
		waiters_evidence(v, s, w, nw);
		/* the stuck threads first, then the others asleep */
		size_t shown = 0;
		for (int pass = 0; pass < 2; pass++)
			for (size_t q = pa; q < pb && shown <= 6; q++) {
				size_t j = k[q].idx;
				const struct lt_thread *u = &s->threads[j];
				if ((cls[j] == NW_STUCK) != (pass == 0) || in_sorted(w, nw, u->tid))
					continue;
				if (shown++ == 6) {
					lt_strlist_add(&v->evidence, "and %zu more of its threads", others - 6);
					break;
				}
				char *act = lts_thread_activity(u);
				lt_strlist_add(&v->evidence, "its own thread %d (%s) %s: %s", (int)u->tid, lt_thread_name(u),
					       act ? act : "?", cls[j] == NW_STUCK ? stuck_words(s->verdicts[uvi[j]].kind)
					       : lts_runtime_idle(u) ? "a runtime's own thread, idle"
								     : "asleep, with no way to end it now");
				free(act);
			}
		waited_by_evidence(v, s, t);
		for (size_t q = 0; q < n_st && q < 4; q++) {
			struct lt_verdict *sv = &s->verdicts[uvi[st[q]]];
			lt_strlist_add(&sv->evidence, "waited for by: %s %s: %s %d (%s) would %s once free (inferred)",
				       subj, obj, n_st == 1 ? "thread" : "perhaps thread", (int)s->threads[st[q]].tid,
				       lt_thread_name(&s->threads[st[q]]), does);
		}
	}
out:
	free(cls);
	free(uvi);
	free(k);
	free(w);
	free(st);
}

/* ---- a party that waits only on the waiter ----
 *
 * A relay (ssh -L, socat, pgbouncer, a sidecar) polls its client's socket
 * and its server's; its client reads the relay's socket and nothing else.
 * The client can send nothing before the relay has woken it: it cannot
 * end the relay's wait, which goes on only through the server.  Such a
 * party is set aside (into_pass) when it is in no stuck verdict and
 * waits_only_on says so, and every other thread of the waiter's process
 * is asleep with no way to wake it (own_threads_cannot_wake: one running,
 * on a timer or in another wait could wake the party, which would then
 * end the wait).  That no signal sent from elsewhere wakes the party
 * first is inferred, and said. */

/* E names process P alone, and only P's progress ends it: a connected
 * socket's peer, a pipe's other end (not a FIFO, which any process may
 * open by its path), a file lock P holds, the exit of P (its child or
 * not; not a signal wait, which any caught signal ends).  Not a timer, a
 * connect (a tcp one times out), an eventfd (the kernel writes it too), a
 * message queue (opened by name), a tracee (any signal stops it), an
 * unknown party, nor an edge with a timeout of the application's own. */
static bool edge_only_on(const struct lt_wf_edge *e, pid_t p)
{
	if (!e->n_pids || e->more_pids || e->timeout_what[0] || caveat_edge(e))
		return false;
	switch (e->kind) {
	case LT_WF_SOCKET:
		if (lt_wf_connecting(e))
			return false;
		break;
	case LT_WF_PIPE_READ:
	case LT_WF_PIPE_WRITE:
		if (!e->what || strncmp(e->what, "pipe", 4))
			return false;
		break;
	case LT_WF_CHILD:
		if (sigchld_wait(e) || lt_wf_pollchild(e))
			return false;
		break;
	case LT_WF_EXIT:
		if (lt_wf_pollchild(e)) /* polled between sleeps */
			return false;
		break;
	case LT_WF_FILE_LOCK:
		break;
	default:
		return false;
	}
	for (size_t k = 0; k < e->n_pids; k++)
		if (e->pids[k] != p)
			return false;
	return true;
}

/* Process Q waits only on process P: it is in the snapshot (followed),
 * and every thread of it is asleep in a blocking call (not stopped, not
 * in a sleep between tries), each of whose edges edge_only_on P, and, in
 * a socket read or write, with no SO_RCVTIMEO/SO_SNDTIMEO (none read, or
 * not a socket call).  Q can end no wait of P's before P wakes it. */
static bool waits_only_on(const struct lt_snapshot *s, pid_t q, pid_t p)
{
	size_t n = 0;
	if (q <= 0 || q == p)
		return false;
	for (size_t i = 0; i < s->n_threads; i++) {
		const struct lt_thread *u = &s->threads[i];
		if (thread_pid_of(s, i) != q)
			continue;
		n++;
		if (!asleep(u) || u->state == 'T' || u->state == 't' || u->wait == LT_WAIT_SLEEP || !u->wf ||
		    !u->wf->n_edges)
			return false;
		if (u->fdw.sock_timeo != LT_SOCK_TIMEO_NOT_READ && u->fdw.sock_timeo != LT_SOCK_TIMEO_NONE)
			return false;
		for (size_t k = 0; k < u->wf->n_edges; k++)
			if (!edge_only_on(&u->wf->edges[k], p))
				return false;
	}
	return n > 0;
}

/* "set aside: thread Q (comm) recvfrom(...) on WHAT <- peer held by P",
 * each thread of process Q (at most 4), set aside as waits_only_on P. */
static void aside_evidence(struct lt_verdict *v, const struct lt_snapshot *s, pid_t q, pid_t p)
{
	size_t shown = 0, n = 0;
	for (size_t i = 0; i < s->n_threads; i++) {
		const struct lt_thread *u = &s->threads[i];
		if (thread_pid_of(s, i) != q || !u->wf || !u->wf->n_edges)
			continue;
		if (shown++ >= 4) {
			n++;
			continue;
		}
		const struct lt_wf_edge *e = &u->wf->edges[0];
		char *act = lts_thread_activity(u);
		char more[96] = "";
		if (u->wf->n_edges > 1)
			snprintf(more, sizeof(more), " (and %zu other edge%s, each naming process %d alone)",
				 u->wf->n_edges - 1, u->wf->n_edges > 2 ? "s" : "", (int)p);
		lt_strlist_add(&v->evidence, "set aside: thread %d (%s) of process %d %s on %s <- %s %d%s, and waits "
			       "on nothing else", (int)u->tid, lt_thread_name(u), (int)q, act ? act : "?",
			       e->what ? e->what : "?", kind_by(e), (int)p, more);
		free(act);
	}
	if (n)
		lt_strlist_add(&v->evidence, "set aside: %zu more thread(s) of process %d, each waiting only on process %d",
			       n, (int)q, (int)p);
}

/* Does another thread of T's process run, or sleep on a timer (it goes
 * on by itself)? */
static bool own_thread_goes_on(const struct lt_snapshot *s, const struct lt_thread *t)
{
	pid_t pid = t->wf->pid;
	double left;
	for (size_t i = 0; i < s->n_threads; i++) {
		const struct lt_thread *u = &s->threads[i];
		if (u != t && thread_pid_of(s, i) == pid &&
		    (!asleep(u) || (u->wait == LT_WAIT_SLEEP && u->sc.nr != 34 /* pause */) ||
		     lts_wait_timed(s, u, &left)))
			return true;
	}
	return false;
}

/* Has T's process another thread? */
static bool own_has_other(const struct lt_snapshot *s, const struct lt_thread *t)
{
	for (size_t i = 0; i < s->n_threads; i++)
		if (&s->threads[i] != t && thread_pid_of(s, i) == t->wf->pid)
			return true;
	return false;
}

/* One pass of lts_wf_into_verdicts: into the first N_V verdicts. */
static void into_pass(struct lt_snapshot *s, const bool *in_cycle, size_t n_v)
{
	for (size_t i = 0; i < s->n_threads; i++) {
		const struct lt_thread *t = &s->threads[i];
		const struct lt_waitfor *w = t->wf;
		if (in_cycle[i] || !w || !w->n_edges || !asleep(t) || stuck_verdict_of(s, n_v, t->tid))
			continue;
		bool into = true;
		const struct lt_verdict *pv = NULL;
		const struct lt_thread *who = NULL;
		size_t pn = 0, pk = 0;
		/* the other parties, in no such verdict (or not snapshotted):
		 * any of them may end the wait */
		char others[320] = "";
		pid_t listed[MAX_SET];
		size_t ol = 0, n_others = 0;
		bool cut = false;
		bool maybe = false; /* a child the wait may be for (its mask unread) */
		bool inf_exit = false; /* an exit polled for, its pid from the command line (tail --pid) */
		int closed = -1; /* own_threads_cannot_wake, once asked */
		size_t n_own = 0;
		/* the parties set aside: each waits only on T's process */
		char aside[160] = "";
		pid_t aside_pids[MAX_SET];
		size_t al = 0, n_aside = 0;
		bool aside_cut = false;
		/* its own process at an end too: with a thread that goes on by
		 * itself (one of the others), or none (said in the tail) */
		bool own_other = false, own_quiet = false;
		int goes_on = -1; /* own_thread_goes_on, once asked */
		for (size_t q = 0; q < w->n_edges && into; q++) {
			const struct lt_wf_edge *e = &w->edges[q];
			if (caveat_edge(e)) /* said in the summary */
				continue;
			if (self_wake(w, e)) { /* said in the summary, when none of its own can write it */
				if (closed < 0)
					closed = own_threads_cannot_wake(s, t);
				if (!closed) {
					into = false;
					break;
				}
				n_own++;
				continue;
			}
			maybe |= lt_wf_maybe_child(e);
			inf_exit |= lt_wf_inferred_exit(e);
			if ((ends_by_itself(e->kind) && !lt_wf_maybe_child(e)) || !e->n_pids || e->more_pids) {
				into = false;
				break;
			}
			bool edge_into = false, edge_aside = false, edge_other = false;
			for (size_t p = 0; p < e->n_pids; p++) {
				size_t n, k;
				const struct lt_verdict *v = NULL;
				const struct lt_thread *u = NULL;
				if (e->pids[p] == w->pid) {
					/* its own process at the other end too (a pipe
					 * or socket end it also holds): another of its
					 * threads that runs or sleeps on a timer may end
					 * the wait by itself, one more party in no such
					 * wait (said in the tail); one asleep in a wait
					 * of its own is judged by what it waits for */
					if (e->kind != LT_WF_PIPE_READ && e->kind != LT_WF_PIPE_WRITE &&
					    e->kind != LT_WF_SOCKET)
						continue;
					if (goes_on < 0)
						goes_on = own_thread_goes_on(s, t);
					if (goes_on) {
						edge_other = true;
						if (!own_other && ol < sizeof(others) - 80) {
							ol += (size_t)snprintf(others + ol, sizeof(others) - ol,
									       "%s%d (this process, another of whose "
									       "threads goes on by itself)",
									       n_others ? ", " : "", (int)w->pid);
							n_others++;
						}
						own_other = true;
					} else {
						own_quiet |= own_has_other(s, t);
					}
					continue;
				}
				party_verdicts(s, n_v, e->pids[p], &n, &k, &v, &u);
				if (!k && waits_only_on(s, e->pids[p], w->pid)) {
					if (closed < 0)
						closed = own_threads_cannot_wake(s, t);
					if (closed) { /* it cannot end the wait before T's process wakes it */
						edge_aside = true;
						if (in_set(aside_pids, n_aside, e->pids[p]))
							continue;
						if (n_aside < MAX_SET && al < sizeof(aside) - 24) {
							aside_pids[n_aside++] = e->pids[p];
							al += (size_t)snprintf(aside + al, sizeof(aside) - al, "%s%d",
									       n_aside > 1 ? ", " : "", (int)e->pids[p]);
						} else if (!aside_cut) {
							aside_cut = true;
							snprintf(aside + al, sizeof(aside) - al, ", ...");
						}
						continue;
					}
				}
				edge_other = true;
				if (k && !pv) {
					pv = v;
					who = u;
					pn = n;
					pk = k;
				} else if (!k && !in_set(listed, n_others < MAX_SET ? n_others : MAX_SET, e->pids[p])) {
					if (n_others < MAX_SET)
						listed[n_others] = e->pids[p];
					if (ol < sizeof(others) - 16)
						ol += (size_t)snprintf(others + ol, sizeof(others) - ol, "%s%d",
								       n_others ? ", " : "", (int)e->pids[p]);
					else
						cut = true;
					n_others++;
				}
				edge_into |= k > 0;
			}
			if (edge_aside && !edge_other) /* its every party set aside */
				continue;
			into &= edge_into;
		}
		if (!into || !pv)
			continue;
		if (cut)
			snprintf(others + ol, sizeof(others) - ol, ", ...");
		struct lt_verdict *v = chain_into(s, t, &pv);
		if (!v)
			return;
		char *ow = n_own ? own_wake_clause(w) : NULL;
		char *act = lts_thread_activity(t), party[160], tail[520] = "";
		if (pk == pn)
			snprintf(party, sizeof(party), "whose thread %d (%s) is itself", (int)who->tid, lt_thread_name(who));
		else
			snprintf(party, sizeof(party), "%zu of whose %zu threads %s, among them %d (%s)", pk, pn,
				 pk == 1 ? "is itself waiting" : "are themselves waiting", (int)who->tid,
				 lt_thread_name(who));
		if (pk < pn && n_others)
			snprintf(tail, sizeof(tail), " (that one of them would answer, not process%s %s, also at the other "
				 "end and in no such wait, is inferred)", n_others > 1 ? "es" : "", others);
		else if (pk < pn)
			snprintf(tail, sizeof(tail), " (that one of them would answer, not another of its threads, is "
				 "inferred)");
		else if (n_others)
			snprintf(tail, sizeof(tail), " (that it would, not process%s %s, also at the other end and in no "
				 "such wait, is inferred)", n_others > 1 ? "es" : "", others);
		else if (own_quiet)
			snprintf(tail, sizeof(tail), " (its own process %d holds that end too, none of whose other "
				 "threads goes on by itself: that none of them will end the wait is inferred)",
				 (int)w->pid);
		char *tq = caveat_clause(w), setaside[400] = "";
		bool many = n_aside > 1 || aside_cut;
		if (n_aside)
			snprintf(setaside, sizeof(setaside), "; process%s %s, also at the other end, wait%s only on "
				 "this process %d (each of %s threads does): %s can end this wait only after process "
				 "%d wakes %s, so %s set aside (that nothing else, a signal say, wakes %s first is "
				 "inferred)", many ? "es" : "", aside, many ? "" : "s", (int)w->pid,
				 many ? "their" : "its", many ? "they" : "it", (int)w->pid, many ? "them" : "it",
				 many ? "they are" : "it is", many ? "them" : "it");
		v->summary = lts_asprintf("thread %d (%s) %s waits%s for process %d, %s %s: %s%s%s%s%s%s%s", (int)t->tid,
					  lt_thread_name(t), act ? act : "?", maybe ? ", perhaps (inferred)," : "",
					  (int)who->wf->pid, party, stuck_words(pv->kind), pv->summary ? pv->summary : "?",
					  tail, setaside, maybe ? " (that its wait is for its child is inferred: the signal "
							"mask of its call could not be read)" : "",
					  inf_exit ? " (that it waits for that process's exit is inferred: it polls for it, "
						     "the pid read from its command line)" : "",
					  tq ? tq : "", ow ? ow : "");
		free(ow);
		free(tq);
		free(act);
		edges_evidence(v, w);
		for (size_t a = 0; a < n_aside; a++)
			aside_evidence(v, s, aside_pids[a], w->pid);
		waited_by_evidence(v, s, t);
	}
}

/* MAX_INTO_PASSES: how far a chain of chains is drawn (script(1) running
 * `sh -c 'flock ...'`: the flock child's lock wait, sh's chain into it,
 * script's into sh's); each pass sees the chains the one before added. */
#define MAX_INTO_PASSES 6

void lts_wf_into_verdicts(struct lt_snapshot *s, const bool *in_cycle)
{
	for (int pass = 0; pass < MAX_INTO_PASSES; pass++) {
		size_t n_v = s->n_verdicts; /* the rules', then the chains added before */
		into_pass(s, in_cycle, n_v);
		join_pass(s, in_cycle, n_v);
		notify_pass(s, in_cycle, n_v);
		mp_cond_pass(s, in_cycle, n_v);
		if (s->n_verdicts == n_v)
			break;
	}
	own_loop_chains(s, in_cycle);
}

void lts_wf_idle_evidence(struct lt_verdict *v, const struct lt_snapshot *s)
{
	size_t shown = 0, total = 0;
	for (size_t i = 0; i < s->n_threads; i++) {
		const struct lt_thread *t = &s->threads[i];
		if (!t->wf || !t->wf->n_edges || !asleep(t))
			continue;
		total++;
		if (shown >= 8)
			continue;
		shown++;
		char why[512];
		size_t wl = 0;
		why[0] = 0;
		for (size_t k = 0; k < t->wf->n_edges && wl < sizeof(why) - 80; k++) {
			const struct lt_wf_edge *e = &t->wf->edges[k];
			char pl[128];
			pid_list(e, pl, sizeof(pl));
			if (e->kind == LT_WF_TIMER && e->n_pids) /* a lock it may poll */
				wl += (size_t)snprintf(why + wl, sizeof(why) - wl, "%s%s; %s; process %s %s: %s",
						       wl ? "; " : "", e->what ? e->what : "a timer",
						       e->evidence ? e->evidence : "", pl, pstate_words(e->pstate),
						       e->doing ? e->doing : "?");
			else if (e->kind == LT_WF_TIMER)
				wl += (size_t)snprintf(why + wl, sizeof(why) - wl, "%s%s", wl ? "; " : "",
						       e->what ? e->what : "a timer");
			else if (e->n_pids)
				wl += (size_t)snprintf(why + wl, sizeof(why) - wl, "%s%s <- %s %s [%s: %s]%s%s%s",
						       wl ? "; " : "", e->what ? e->what : "?",
						       kind_by(e),
						       pl, pstate_words(e->pstate), e->doing ? e->doing : "?",
						       /* the application's own timeout */
						       e->timeout_what[0] ? "; " : "", e->timeout_what,
						       !e->timeout_what[0] ? "" : e->timeout_s > 0 ? " ends it"
						       : " not read: whether it ends it is not known");
			else
				wl += (size_t)snprintf(why + wl, sizeof(why) - wl, "%s%s (%s)", wl ? "; " : "",
						       e->what ? e->what : "?",
						       e->kind == LT_WF_LISTEN ? "an idle listener" :
						       e->kind == LT_WF_REMOTE ? "a remote peer" : "unknown party");
		}
		char *act = lts_thread_activity(t);
		lt_strlist_add(&v->evidence, "thread %d (%s) %s: %s", (int)t->tid, lt_thread_name(t),
			       act ? act : "?", why);
		free(act);
	}
	if (total > shown)
		lt_strlist_add(&v->evidence, "%zu more thread(s) in such waits", total - shown);
}

size_t lts_wf_polled_locks(const struct lt_snapshot *s, pid_t *holders, size_t max, size_t *nh)
{
	size_t n = 0;
	*nh = 0;
	for (size_t i = 0; i < s->n_threads; i++) {
		const struct lt_thread *t = &s->threads[i];
		if (!t->wf || !asleep(t))
			continue;
		bool any = false;
		for (size_t k = 0; k < t->wf->n_edges; k++) {
			const struct lt_wf_edge *e = &t->wf->edges[k];
			if (e->kind != LT_WF_TIMER || !e->n_pids)
				continue;
			any = true;
			for (size_t q = 0; q < e->n_pids; q++) {
				bool dup = false;
				for (size_t h = 0; h < *nh; h++)
					dup |= holders[h] == e->pids[q];
				if (!dup && *nh < max)
					holders[(*nh)++] = e->pids[q];
				else if (!dup && max)
					holders[max - 1] = 0; /* more than MAX: said so */
			}
		}
		n += any;
	}
	return n;
}

char *lts_wf_idle_because(const struct lt_snapshot *s, bool *unsure, bool *some_blocked)
{
	/* counts of edges by what ends them; parties named (up to 3) */
	size_t timer = 0, remote = 0, listen = 0, unknown = 0, fifo = 0, maybe_child = 0;
	size_t by_party[LT_WFP_GONE + 1] = { 0 };
	pid_t named[LT_WFP_GONE + 1][3];
	size_t n_named[LT_WFP_GONE + 1] = { 0 };
	bool any = false;
	for (size_t i = 0; i < s->n_threads; i++) {
		const struct lt_thread *t = &s->threads[i];
		if (!t->wf || !t->wf->n_edges || !asleep(t))
			continue;
		any = true;
		for (size_t k = 0; k < t->wf->n_edges; k++) {
			const struct lt_wf_edge *e = &t->wf->edges[k];
			if (e->kind == LT_WF_TIMER)
				timer++;
			else if (e->kind == LT_WF_REMOTE)
				remote++;
			else if (e->kind == LT_WF_LISTEN)
				listen++;
			else if (lt_wf_fifo_open(e))
				fifo++;
			else if (lt_wf_maybe_child(e))
				maybe_child++;
			else if (!e->n_pids || e->kind == LT_WF_UNKNOWN)
				unknown++;
			else {
				enum lt_wf_pstate ps = e->pstate <= LT_WFP_GONE ? e->pstate : LT_WFP_UNKNOWN;
				by_party[ps]++;
				for (size_t q = 0; q < e->n_pids; q++) {
					bool dup = false;
					for (size_t j = 0; j < n_named[ps]; j++)
						dup |= named[ps][j] == e->pids[q];
					if (!dup && n_named[ps] < 3)
						named[ps][n_named[ps]++] = e->pids[q];
				}
			}
		}
	}
	if (!any)
		return NULL;
	char buf[512];
	size_t l = 0;
	buf[0] = 0;
#define ADD(...) (l += l < sizeof(buf) ? (size_t)snprintf(buf + l, sizeof(buf) - l, __VA_ARGS__) : 0)
	if (timer)
		ADD("%s%zu wait%s on a timer", l ? "; " : "", timer, timer > 1 ? "s" : "");
	if (remote)
		ADD("%s%zu wait%s on a peer outside this host", l ? "; " : "", remote, remote > 1 ? "s" : "");
	if (listen)
		ADD("%s%zu wait%s on an idle listener", l ? "; " : "", listen, listen > 1 ? "s" : "");
	static const enum lt_wf_pstate order[] = { LT_WFP_RUNNING, LT_WFP_TIMED, LT_WFP_EVENTS, LT_WFP_BLOCKED,
						   LT_WFP_GONE, LT_WFP_UNKNOWN };
	for (size_t o = 0; o < sizeof(order) / sizeof(order[0]); o++) {
		enum lt_wf_pstate ps = order[o];
		if (!by_party[ps])
			continue;
		ADD("%s%zu wait%s on process%s ", l ? "; " : "", by_party[ps], by_party[ps] > 1 ? "s" : "",
		    n_named[ps] > 1 ? "es" : "");
		for (size_t j = 0; j < n_named[ps]; j++)
			ADD("%s%d", j ? ", " : "", (int)named[ps][j]);
		/* a blocked party here is one this snapshot followed, whose own
		 * wait ends the chain elsewhere (else this would not be IDLE) */
		bool followed = ps == LT_WFP_BLOCKED;
		for (size_t j = 0; j < n_named[ps]; j++)
			followed &= lt_snapshot_find(s, named[ps][j]) != NULL;
		ADD("%s, %s", by_party[ps] > n_named[ps] && n_named[ps] == 3 ? "..." : "",
		    followed ? "which wait in turn on the others" : pstate_words(ps));
	}
	if (unknown)
		ADD("%s%zu wait%s on an unknown party (an eventfd, a signal, any sender)", l ? "; " : "", unknown,
		    unknown > 1 ? "s" : "");
	if (fifo)
		ADD("%s%zu wait%s for a process to open a FIFO's other end (which one will is not known)",
		    l ? "; " : "", fifo, fifo > 1 ? "s" : "");
	if (maybe_child)
		ADD("%s%zu signal wait%s that may be for a child (inferred: the signal mask of the call could not "
		    "be read)", l ? "; " : "", maybe_child, maybe_child > 1 ? "s" : "");
#undef ADD
	/* what ends some of the waits is not known: none is known to be
	 * stuck, which is less than none being stuck */
	if (unsure)
		*unsure = unknown || fifo || maybe_child || by_party[LT_WFP_UNKNOWN];
	if (some_blocked) /* a party is blocked itself: the threads have other waits that can end */
		*some_blocked = by_party[LT_WFP_BLOCKED] > 0;
	return lts_strdup(buf);
}
