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

#include "locktrace/snapshot.h"
#include "snapshot_int.h"

#define FX_WAIT 0
#define FX_WAIT_BITSET 9

void lts_fmt_duration(double s, char *buf, size_t len)
{
	if (s < 0)
		snprintf(buf, len, "?");
	else if (s < 1.0)
		snprintf(buf, len, "%.0f ms", s * 1000.0);
	else if (s < 10.0)
		snprintf(buf, len, "%.1f s", s);
	else
		snprintf(buf, len, "%.0f s", s);
}

/* Asleep in a system call, and confirmed stable if it was re-checked. */
static bool asleep(const struct lt_thread *t)
{
	return t->state != 'R' && t->sc.state == LT_SC_IN_SYSCALL && !t->moved;
}

static bool has_owner(const struct lt_futex *f)
{
	return f->owner_kind == LT_OWNER_MUTEX || f->owner_kind == LT_OWNER_PI ||
	       f->owner_kind == LT_OWNER_ROBUST || f->owner_kind == LT_OWNER_JOIN;
}

static const char *sc_label(const struct lt_thread *t, char *buf, size_t len)
{
	if (t->sc_name)
		return t->sc_name;
	const char *n = lt_syscall_name(t->sc.nr);
	if (n)
		return n;
	snprintf(buf, len, "syscall_%ld", t->sc.nr);
	return buf;
}

static const char *lock_label(const struct lt_futex *f, char *buf, size_t len)
{
	if (f->lock_sym)
		snprintf(buf, len, "%s (0x%" PRIx64 ")", f->lock_sym, f->uaddr);
	else
		snprintf(buf, len, "0x%" PRIx64, f->uaddr);
	return buf;
}

char *lts_thread_activity(const struct lt_thread *t)
{
	char nb[32], lb[160];
	if (t->state == 'R' || t->sc.state == LT_SC_RUNNING)
		return lts_strdup("running");
	if (t->sc.state == LT_SC_UNREADABLE)
		return lts_asprintf("in an unknown state (%c)", t->state ? t->state : '?');
	if (t->sc.state == LT_SC_NOT_IN_SYSCALL)
		return lts_asprintf("blocked outside a system call (state %c)", t->state);
	const char *name = sc_label(t, nb, sizeof(nb));
	switch (t->wait) {
	case LT_WAIT_IO: {
		const struct lt_fd *f = &t->fdw.io;
		return lts_asprintf("%s(fd %d: %s)", name, f->fd,
				    f->kind != LT_FD_UNKNOWN ? lt_fd_kind_name(f->kind) : "?");
	}
	case LT_WAIT_POLL:
		if (t->fdw.epfd >= 0)
			return lts_asprintf("%s(epfd %d, %zu fds)", name, t->fdw.epfd, t->fdw.n_fds);
		return lts_asprintf("%s(%zu fds)", name, t->fdw.n_fds);
	case LT_WAIT_FUTEX:
		return lts_asprintf("%s(%s)", name, lock_label(&t->futex, lb, sizeof(lb)));
	default:
		return lts_asprintf("%s()", name);
	}
}

/* ---- verdict list ---- */

static struct lt_verdict *new_verdict(struct lt_snapshot *s, enum lt_verdict_kind k)
{
	struct lt_verdict *nv = realloc(s->verdicts, (s->n_verdicts + 1) * sizeof(*nv));
	if (!nv)
		return NULL;
	s->verdicts = nv;
	struct lt_verdict *v = &s->verdicts[s->n_verdicts++];
	memset(v, 0, sizeof(*v));
	v->kind = k;
	return v;
}

static int add_tid(struct lt_verdict *v, pid_t tid, uint64_t lock, bool with_lock)
{
	pid_t *nt = realloc(v->tids, (v->n_tids + 1) * sizeof(*nt));
	if (!nt)
		return -ENOMEM;
	v->tids = nt;
	v->tids[v->n_tids++] = tid;
	if (with_lock) {
		uint64_t *nl = realloc(v->locks, (v->n_locks + 1) * sizeof(*nl));
		if (!nl)
			return -ENOMEM;
		v->locks = nl;
		v->locks[v->n_locks++] = lock;
	}
	return 0;
}

static const char *owner_how(enum lt_owner_kind k)
{
	switch (k) {
	case LT_OWNER_MUTEX: return "pthread mutex __owner";
	case LT_OWNER_PI: return "PI futex word";
	case LT_OWNER_ROBUST: return "robust mutex word";
	case LT_OWNER_JOIN: return "pthread_join on its tid";
	default: return "?";
	}
}

/* ---- deadlock ---- */

static long idx_of(const struct lt_snapshot *s, pid_t tid)
{
	const struct lt_thread *t = lt_snapshot_find(s, tid);
	return t ? (long)(t - s->threads) : -1;
}

static void edge_evidence(struct lt_verdict *v, const struct lt_snapshot *s, const struct lt_thread *t)
{
	const struct lt_futex *f = &t->futex;
	const struct lt_thread *o = lt_snapshot_find(s, f->owner);
	char lb[160], op[96], dur[32];
	lt_futex_op_str(f->op, op, sizeof(op));
	if (f->cmd < 0)
		snprintf(op, sizeof(op), "futex_wait");
	lts_fmt_duration(t->idle_src == LT_IDLE_UNKNOWN ? -1 : t->idle_s, dur, sizeof(dur));
	if (f->owner_kind == LT_OWNER_JOIN)
		lt_strlist_add(&v->evidence,
			       "thread %d (%s) is joining thread %d (%s): sleeps on its tid field %s, for %s",
			       (int)t->tid, t->comm, (int)f->owner, o ? o->comm : "?",
			       lock_label(f, lb, sizeof(lb)), dur);
	else
		lt_strlist_add(&v->evidence,
			       "thread %d (%s) waits for lock %s [%s, word=%u] held by thread %d (%s) [%s], for %s",
			       (int)t->tid, t->comm, lock_label(f, lb, sizeof(lb)), op, f->word,
			       (int)f->owner, o ? o->comm : "?", owner_how(f->owner_kind), dur);
}

static void find_deadlocks(struct lt_snapshot *s)
{
	size_t n = s->n_threads;
	long *next = malloc(n * sizeof(*next));
	long *stamp = calloc(n, sizeof(*stamp));  /* walk id + 1 that visited it */
	long *cycle = malloc(n * sizeof(*cycle)); /* cycle id for nodes on a cycle, else -1 */
	if (!next || !stamp || !cycle)
		goto out;
	for (size_t i = 0; i < n; i++) {
		const struct lt_thread *t = &s->threads[i];
		next[i] = -1;
		cycle[i] = -1;
		if (t->wait == LT_WAIT_FUTEX && t->futex.is_wait && asleep(t) && has_owner(&t->futex))
			next[i] = idx_of(s, t->futex.owner);
	}
	size_t first_verdict = s->n_verdicts;
	for (size_t i = 0; i < n; i++) {
		if (stamp[i])
			continue;
		long j = (long)i;
		while (j >= 0 && !stamp[j]) {
			stamp[j] = (long)i + 1;
			j = next[j];
		}
		if (j < 0 || stamp[j] != (long)i + 1)
			continue; /* chain ended, or joined an earlier walk */
		/* j is on a new cycle */
		struct lt_verdict *v = new_verdict(s, LT_VERDICT_DEADLOCK);
		if (!v)
			goto out;
		long k = j;
		do {
			cycle[k] = (long)(v - s->verdicts);
			add_tid(v, s->threads[k].tid, s->threads[k].futex.uaddr, true);
			k = next[k];
		} while (k != j);
		char chain[512];
		size_t cl = 0;
		chain[0] = 0;
		for (size_t m = 0; m < v->n_tids && cl < sizeof(chain) - 64; m++) {
			const struct lt_thread *t = lt_snapshot_find(s, v->tids[m]);
			cl += (size_t)snprintf(chain + cl, sizeof(chain) - cl, "%d (%s) -> ",
					       (int)v->tids[m], t ? t->comm : "?");
		}
		snprintf(chain + cl, sizeof(chain) - cl, "%d", (int)v->tids[0]);
		if (v->n_tids == 1)
			v->summary = lts_asprintf("deadlock: thread %s waits for a lock it holds itself", chain);
		else
			v->summary = lts_asprintf("deadlock: %zu threads wait for each other: %s",
						  v->n_tids, chain);
		for (size_t m = 0; m < v->n_tids; m++)
			edge_evidence(v, s, lt_snapshot_find(s, v->tids[m]));
	}
	/* threads blocked behind a cycle (their chain leads into it):
	 * reach[i] = the cycle's verdict index, or -1; memoized so a long
	 * chain is walked once (O(n)) */
	if (s->n_verdicts > first_verdict) {
		long *reach = malloc(n * sizeof(*reach));
		long *path = malloc(n * sizeof(*path));
		if (!reach || !path) {
			free(reach);
			free(path);
			goto out;
		}
		for (size_t i = 0; i < n; i++)
			reach[i] = cycle[i] >= 0 ? cycle[i] : -2; /* -2: not computed */
		for (size_t i = 0; i < n; i++) {
			size_t np = 0;
			long j = (long)i;
			while (j >= 0 && reach[j] == -2) {
				path[np++] = j;
				reach[j] = -3; /* on the current path */
				j = next[j];
			}
			long r = (j >= 0 && reach[j] >= 0) ? reach[j] : -1;
			while (np)
				reach[path[--np]] = r;
		}
		for (size_t vi = first_verdict; vi < s->n_verdicts; vi++) {
			struct lt_verdict *v = &s->verdicts[vi];
			size_t behind = 0;
			char list[256];
			size_t ll = 0;
			list[0] = 0;
			for (size_t i = 0; i < n; i++) {
				if (cycle[i] >= 0 || reach[i] != (long)vi)
					continue;
				behind++;
				if (ll < sizeof(list) - 16)
					ll += (size_t)snprintf(list + ll, sizeof(list) - ll, "%s%d",
							       behind > 1 ? ", " : "", (int)s->threads[i].tid);
			}
			if (behind)
				lt_strlist_add(&v->evidence, "%zu more thread(s) blocked behind the cycle: %s%s",
					       behind, list, ll >= sizeof(list) - 16 ? ", ..." : "");
		}
		free(reach);
		free(path);
	}
out:
	free(next);
	free(stamp);
	free(cycle);
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

struct waiter {
	uint64_t uaddr;
	size_t idx;
};

static int waiter_cmp(const void *a, const void *b)
{
	const struct waiter *x = a, *y = b;
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
			w[m++] = (struct waiter){ s->threads[i].futex.uaddr, i };
	qsort(w, m, sizeof(*w), waiter_cmp);
	for (size_t a = 0; a < m;) {
		size_t b = a;
		while (b < m && w[b].uaddr == w[a].uaddr)
			b++;
		struct lt_verdict *v = new_verdict(s, LT_VERDICT_LOST_WAKEUP);
		if (!v)
			break;
		const struct lt_thread *t0 = &s->threads[w[a].idx];
		char lb[160], dur[32], op[96];
		lock_label(&t0->futex, lb, sizeof(lb));
		for (size_t k = a; k < b; k++) {
			const struct lt_thread *t = &s->threads[w[k].idx];
			add_tid(v, t->tid, t->futex.uaddr, true);
			lts_fmt_duration(t->idle_s, dur, sizeof(dur));
			if (t->futex.cmd >= 0)
				lt_futex_op_str(t->futex.op, op, sizeof(op));
			else
				snprintf(op, sizeof(op), "futex_wait");
			lt_strlist_add(&v->evidence,
				       "thread %d (%s) has slept %s in %s on %s expecting %u; the word is now %u",
				       (int)t->tid, t->comm, dur, op, lb, t->futex.expected, t->futex.word);
		}
		lt_strlist_add(&v->evidence,
			       "whoever changed the word did not FUTEX_WAKE the sleeper "
			       "(sleep time from %s, threshold %.1f s)",
			       lt_idle_source_name(t0->idle_src), threshold);
		lts_fmt_duration(t0->idle_s, dur, sizeof(dur));
		if (b - a == 1)
			v->summary = lts_asprintf("lost wake-up: thread %d (%s) sleeps on %s expecting %u, "
						  "but the word is %u (for %s)", (int)t0->tid, t0->comm, lb,
						  t0->futex.expected, t0->futex.word, dur);
		else
			v->summary = lts_asprintf("lost wake-up: %zu threads sleep on %s although its word "
						  "changed (e.g. thread %d expects %u, word is %u)", b - a, lb,
						  (int)t0->tid, t0->futex.expected, t0->futex.word);
		a = b;
	}
	free(w);
}

/* ---- convoy ---- */

static void find_convoys(struct lt_snapshot *s, int min_waiters)
{
	size_t n = s->n_threads, m = 0;
	struct waiter *w = malloc((n ? n : 1) * sizeof(*w));
	if (!w)
		return;
	for (size_t i = 0; i < n; i++) {
		const struct lt_thread *t = &s->threads[i];
		if (t->wait == LT_WAIT_FUTEX && t->futex.is_wait && asleep(t) &&
		    t->futex.owner_kind != LT_OWNER_JOIN)
			w[m++] = (struct waiter){ t->futex.uaddr, i };
	}
	qsort(w, m, sizeof(*w), waiter_cmp);
	for (size_t a = 0; a < m;) {
		size_t b = a;
		while (b < m && w[b].uaddr == w[a].uaddr)
			b++;
		size_t cnt = b - a;
		if (cnt < (size_t)min_waiters) {
			a = b;
			continue;
		}
		/* the owner most waiters agree on (they read it at different
		 * moments): majority vote (Boyer-Moore), then count it */
		pid_t owner = 0, cand = 0;
		enum lt_owner_kind how = LT_OWNER_NONE;
		size_t best = 0, run = 0;
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
		for (size_t k = a; k < b && cand; k++) {
			const struct lt_futex *f = &s->threads[w[k].idx].futex;
			if (has_owner(f) && f->owner == cand) {
				best++;
				how = f->owner_kind;
			}
		}
		if (best)
			owner = cand;
		const struct lt_thread *t0 = &s->threads[w[a].idx];
		bool locklike = t0->futex.is_pi || owner != 0 ||
				(t0->futex.word_ok && (t0->futex.word == 1 || t0->futex.word == 2));
		if (!locklike) {
			a = b; /* e.g. idle workers on a condition variable */
			continue;
		}
		struct lt_verdict *v = new_verdict(s, LT_VERDICT_CONVOY);
		if (!v)
			break;
		char lb[160], dur[32];
		lock_label(&t0->futex, lb, sizeof(lb));
		double longest = 0;
		for (size_t k = a; k < b; k++) {
			const struct lt_thread *t = &s->threads[w[k].idx];
			add_tid(v, t->tid, t->futex.uaddr, true);
			if (t->idle_src != LT_IDLE_UNKNOWN && t->idle_s > longest)
				longest = t->idle_s;
		}
		v->owner = owner;
		char *owner_phrase;
		const struct lt_thread *o = owner ? lt_snapshot_find(s, owner) : NULL;
		bool dead_owner = !owner && t0->futex.mutex_ok && t0->futex.mutex_owner > 0 &&
				  (t0->futex.word == 1 || t0->futex.word == 2) &&
				  (t0->futex.mutex_kind & ~0x3f3) == 0 &&
				  !lt_snapshot_find(s, t0->futex.mutex_owner);
		if (dead_owner) {
			owner_phrase = lts_asprintf("its recorded owner %d is no longer a thread of this process",
						    (int)t0->futex.mutex_owner);
		} else if (!owner) {
			owner_phrase = lts_strdup("no owner recorded");
		} else if (!o) {
			owner_phrase = lts_asprintf("owner %d is not a thread of this process", (int)owner);
		} else {
			char *act = lts_thread_activity(o);
			if (o->state == 'R' || o->sc.state == LT_SC_RUNNING) {
				owner_phrase = lts_asprintf("owner %d (%s) is running", (int)owner, o->comm);
			} else if (o->moved) {
				owner_phrase = lts_asprintf("owner %d (%s) is busy (its state changed during "
							    "the snapshot)", (int)owner, o->comm);
			} else if (o->idle_src == LT_IDLE_UNKNOWN) {
				owner_phrase = lts_asprintf("owner %d (%s) is in %s", (int)owner, o->comm,
							    act ? act : "?");
			} else {
				lts_fmt_duration(o->idle_s, dur, sizeof(dur));
				owner_phrase = lts_asprintf("owner %d (%s) has been in %s for %s", (int)owner,
							    o->comm, act ? act : "?", dur);
			}
			free(act);
		}
		lts_fmt_duration(longest, dur, sizeof(dur));
		v->summary = lts_asprintf("convoy: %zu threads wait on %s; %s", cnt, lb,
					  owner_phrase ? owner_phrase : "?");
		char list[400];
		size_t ll = 0;
		list[0] = 0;
		for (size_t k = 0; k < v->n_tids && ll < sizeof(list) - 16; k++)
			ll += (size_t)snprintf(list + ll, sizeof(list) - ll, "%s%d", k ? ", " : "",
					       (int)v->tids[k]);
		lt_strlist_add(&v->evidence, "waiters (%zu, longest %s): %s%s", cnt, dur, list,
			       ll >= sizeof(list) - 16 ? ", ..." : "");
		if (owner) {
			lt_strlist_add(&v->evidence, "owner %d from the %s (%zu of %zu waiters agree)",
				       (int)owner, owner_how(how), best, cnt);
			if (o && o->detail)
				lt_strlist_add(&v->evidence, "owner %d: %s", (int)owner, o->detail);
			if (o) {
				for (size_t f = 0; f < o->n_frames && f < 6; f++)
					if (o->frames[f].func)
						lt_strlist_add(&v->evidence, "owner %d frame #%zu: %s (%s)",
							       (int)owner, f, o->frames[f].func,
							       o->frames[f].module ? o->frames[f].module : "?");
			}
		} else if (dead_owner) {
			lt_strlist_add(&v->evidence, "the pthread mutex __owner field holds tid %d, which is not "
				       "a thread of this process: the owner probably exited while holding the lock",
				       (int)t0->futex.mutex_owner);
		} else {
			lt_strlist_add(&v->evidence, "lock word %u looks like a lock held with waiters, "
				       "but no owner tid is stored with it", t0->futex.word);
		}
		free(owner_phrase);
		a = b;
	}
	free(w);
}

/* ---- idle / ok ---- */

static void classify_rest(struct lt_snapshot *s)
{
	size_t running = 0, io = 0, condvar = 0, joins = 0, locks = 0, other = 0, unreadable = 0;
	size_t by_kind[LT_WAIT_OTHER + 1] = { 0 };
	for (size_t i = 0; i < s->n_threads; i++) {
		const struct lt_thread *t = &s->threads[i];
		if (t->state == 'R' || t->sc.state == LT_SC_RUNNING || t->moved) {
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
			break;
		case LT_WAIT_FUTEX:
			if (t->futex.is_wait && t->futex.owner_kind == LT_OWNER_NONE && t->futex.word_ok &&
			    t->futex.word == t->futex.expected)
				condvar++;
			else if (t->futex.is_wait && t->futex.owner_kind == LT_OWNER_JOIN)
				joins++; /* waits for a thread to exit, not for a lock */
			else if (t->futex.is_wait)
				locks++;
			else
				other++;
			break;
		default:
			other++;
			break;
		}
	}
	char kinds[256];
	snprintf(kinds, sizeof(kinds), "%zu poll/select/epoll, %zu fd I/O, %zu sleep, %zu child wait, %zu signal wait",
		 by_kind[LT_WAIT_POLL], by_kind[LT_WAIT_IO], by_kind[LT_WAIT_SLEEP],
		 by_kind[LT_WAIT_CHILD], by_kind[LT_WAIT_SIGNAL]);
	struct lt_verdict *v;
	if (running == 0 && locks == 0 && other == 0 && io > 0) {
		v = new_verdict(s, LT_VERDICT_IDLE);
		if (!v)
			return;
		v->summary = lts_asprintf("idle: all %zu threads wait for I/O, timers or events; no lock involved",
					  s->n_threads);
		lt_strlist_add(&v->evidence, "%zu in I/O waits: %s", io, kinds);
		if (condvar)
			lt_strlist_add(&v->evidence, "%zu wait on futexes with no owner whose word is "
				       "unchanged (condition variables, semaphores)", condvar);
		if (joins)
			lt_strlist_add(&v->evidence, "%zu wait in pthread_join for another thread", joins);
		return;
	}
	if (s->n_threads && unreadable == s->n_threads) {
		v = new_verdict(s, LT_VERDICT_UNKNOWN);
		if (!v)
			return;
		v->summary = lts_asprintf("no verdict: the system call of none of the %zu threads could "
					  "be read (permission denied? run as root or as the owner)",
					  s->n_threads);
		return;
	}
	v = new_verdict(s, LT_VERDICT_OK);
	if (!v)
		return;
	if (unreadable)
		lt_strlist_add(&v->evidence, "%zu of %zu threads could not be read: the verdict ignores them",
			       unreadable, s->n_threads);
	v->summary = lts_asprintf("nothing suspicious: no lock cycle, no lost wake-up, no convoy");
	lt_strlist_add(&v->evidence, "%zu running or busy, %zu in I/O waits (%s), %zu on futexes without owner, "
		       "%zu joining, %zu on owned locks, %zu other", running, io, kinds, condvar, joins,
		       locks, other);
	if (running == 0 && io == 0 && locks == 0 && other == 0 && condvar > 0)
		lt_strlist_add(&v->evidence, "no thread is running or doing I/O: every thread waits on a "
			       "futex only another thread (or a timeout) can end");
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
	find_deadlocks(s);
	find_lost_wakeups(s, s->vopts.lost_wakeup_threshold_s);
	find_convoys(s, s->vopts.convoy_min_waiters);
	if (s->n_verdicts == 0)
		classify_rest(s);
	return s->n_verdicts ? 0 : -ENOMEM;
}
