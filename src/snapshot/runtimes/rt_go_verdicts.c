/* The Go verdicts and output (include/locktrace/golang.h):
 *
 *  - probable deadlock: a cycle of goroutines each waiting for a
 *    sync.Mutex whose inferred holder waits for the next one;
 *  - goroutines grouped by the mutex they wait for (LOCK WAIT), its holder
 *    named where inferred;
 *  - a probable goroutine leak: several goroutines blocked on one channel.
 * Goroutines parked by the runtime have no thread: the verdicts name
 * goroutines (their ids and functions), not tids. */
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>

#include "golang.h"
#include "jsonw.h"
#include "snapshot_int.h"
#include "waitfor.h"

#define LEAK_MIN 3
#define PEERS_SHOWN_V 4
#define TEXT_MAX_ROUTINES 500

/* The goroutine's own function: its first frame outside the runtime and
 * the sync package. */
/* A function of the program's own code: package main, or a package whose
 * import path's first element has a dot (a module's: github.com/x/y),
 * where the standard library's ("os", "net/http") have none. */
static bool own_go_func(const char *f)
{
	if (!strncmp(f, "main.", 5))
		return true;
	const char *slash = strchr(f, '/'), *dot = strchr(f, '.');
	return slash && dot && dot < slash;
}

static const char *gfunc(const struct lt_go_routine *r)
{
	for (size_t i = 0; i < r->n_frames; i++)
		if (r->frames[i].func && own_go_func(r->frames[i].func))
			return r->frames[i].func;
	for (size_t i = 0; i < r->n_frames; i++) {
		const char *f = r->frames[i].func;
		if (f && strncmp(f, "runtime.", 8) && strncmp(f, "sync.", 5) && strncmp(f, "internal/", 9))
			return f;
	}
	return r->n_frames && r->frames[0].func ? r->frames[0].func : "?";
}

static const char *gwhere(const struct lt_go_routine *r, char *buf, size_t len)
{
	for (size_t i = 0; i < r->n_frames; i++) {
		const struct lt_go_frame *f = &r->frames[i];
		if (f->func && !strcmp(f->func, gfunc(r))) {
			snprintf(buf, len, "%s:%d", f->file ? f->file : "?", f->line);
			return buf;
		}
	}
	snprintf(buf, len, "?");
	return buf;
}

static struct lt_verdict *push(struct lt_snapshot *s, enum lt_verdict_kind k)
{
	/* the one verdict list (verdict_make.c), whose growth assumes its
	 * capacity is the next power of two of its count */
	struct lt_verdict *v = lts_verdict_new(s, k);
	if (v)
		v->longest_s = -1;
	return v;
}

static long mutex_of(const struct lt_go *go, uint64_t addr)
{
	for (size_t k = 0; k < go->n_mutexes; k++)
		if (go->mutexes[k].addr == addr)
			return (long)k;
	return -1;
}

static const char *mname(const struct lt_go_mutex *m, char *buf, size_t len)
{
	if (m->name)
		snprintf(buf, len, "%s", m->name);
	else
		snprintf(buf, len, "%s at 0x%" PRIx64, m->kind, m->addr);
	return buf;
}

/* the mutex goroutine I waits for, -1 */
static long waits_mutex(const struct lt_go *go, size_t i)
{
	const struct lt_go_routine *r = &go->routines[i];
	if (r->wait != LT_GO_WAIT_SEMA || !r->obj_kind)
		return -1;
	return mutex_of(go, r->lock);
}

static void add_frames_for(struct lt_verdict *v, const struct lt_go_routine *r, const char *waits_for)
{
	char w[256];
	char dur[64] = "";
	if (r->waited_s >= 0)
		snprintf(dur, sizeof(dur), ", for at least %.0f s", r->waited_s);
	lt_strlist_add(&v->evidence, "goroutine %" PRId64 " [%s%s]: %s at %s%s%s", r->id,
		       r->reason ? r->reason : r->status_name, dur, gfunc(r), gwhere(r, w, sizeof(w)),
		       waits_for ? "; it waits for " : "", waits_for ? waits_for : "");
}

static void add_frames(struct lt_verdict *v, const struct lt_go_routine *r)
{
	add_frames_for(v, r, NULL);
}

/* The first wait-for edge of thread T that names parties (who can write
 * the pipe it reads, the peer of its socket), as a line; NULL none. */
static char *thread_party(const struct lt_thread *t)
{
	for (size_t i = 0; t && t->wf && i < t->wf->n_edges; i++)
		if (t->wf->edges[i].n_pids)
			return lt_wf_edge_line(&t->wf->edges[i]);
	return NULL;
}

/* The other end of the socket a goroutine in "IO wait" waits on (NETFD:
 * "fd 7 (tcp ...)"), as the snapshot follows it for a thread: the wait-for
 * edge on that fd of a thread of the process (the netpoller's M in
 * epoll_pwait watches every fd the runtime polls), with the peer's
 * processes and what they do; NULL when no thread's wait covers the fd
 * (no M blocked in the netpoller at the time), said so. */
static char *net_party(const struct lt_snapshot *s, const char *netfd)
{
	int fd;
	if (sscanf(netfd, "fd %d", &fd) != 1)
		return NULL;
	for (size_t i = 0; i < s->n_threads; i++) {
		const struct lt_waitfor *w = s->threads[i].wf;
		for (size_t k = 0; w && k < w->n_edges; k++) {
			const struct lt_wf_edge *e = &w->edges[k];
			if (e->fd != fd || (e->kind != LT_WF_SOCKET && e->kind != LT_WF_REMOTE &&
					    e->kind != LT_WF_LISTEN && e->kind != LT_WF_UNKNOWN))
				continue;
			char *line = lt_wf_edge_line(e);
			if (e->kind == LT_WF_LISTEN) /* netfd says it already */
				return line;
			char *r = lts_asprintf("%s (followed from thread %d's poll of it)", line,
					       (int)s->threads[i].tid);
			free(line);
			return r;
		}
	}
	return s->n_threads ? lts_strdup("its peer not followed: no thread of the process waits on the fd "
					 "(no M blocked in the netpoller's epoll_pwait at the time)")
			    : NULL;
}

#define DOING_DEPTH 4

/* What goroutine H, a lock's holder, is itself blocked in, followed where
 * the snapshot can: another mutex (to its inferred holder and what that
 * one does, at most DOING_DEPTH steps), a channel, a system call (its
 * thread's wait, and who can end it, as the snapshot follows threads'
 * waits), network I/O, or its wait reason.  ", which waits for sync.Mutex
 * main.muB, held by goroutine 21 (main.lockBA, inferred), which is in a
 * system call on thread 812: read(fd 3: pipe) for 2.1 s [...]". */
static char *go_doing(const struct lt_snapshot *s, size_t h, int depth)
{
	const struct lt_go *go = s->go;
	const struct lt_go_routine *r = &go->routines[h];
	char nb[128];
	long m = waits_mutex(go, h);
	if (m >= 0) {
		const struct lt_go_mutex *mx = &go->mutexes[m];
		mname(mx, nb, sizeof(nb));
		if (mx->holder < 0 || (size_t)mx->holder == h)
			return lts_asprintf("which waits for %s %s (holder unknown)", mx->kind, nb);
		const struct lt_go_routine *o = &go->routines[mx->holder];
		char *more = depth + 1 < DOING_DEPTH ? go_doing(s, (size_t)mx->holder, depth + 1) : NULL;
		char *r2 = lts_asprintf("which waits for %s %s, held by goroutine %" PRId64 " (%s, inferred)%s%s",
					mx->kind, nb, o->id, gfunc(o), more ? ", " : "", more ? more : "");
		free(more);
		return r2;
	}
	if (r->wait == LT_GO_WAIT_CHAN && r->obj && r->dir && strcmp(r->dir, "select"))
		return lts_asprintf("which is blocked in chan %s on channel %s (0x%" PRIx64 ")%s%s%s", r->dir,
				    r->obj_name ? r->obj_name : "(heap)", r->obj,
				    r->notify_sigs ? ", registered with signal.Notify" : "",
				    r->notify_sigs && *r->notify_sigs ? " for " : "", r->notify_sigs ? r->notify_sigs : "");
	if (r->wait == LT_GO_WAIT_CHAN)
		return lts_strdup("which is blocked in a select on several channels");
	if (r->wait == LT_GO_WAIT_SEMA)
		return lts_asprintf("which waits for %s %s", r->obj_kind ? r->obj_kind : "a semaphore",
				    r->obj_name ? r->obj_name : "(heap)");
	if (r->status_name && !strcmp(r->status_name, "syscall") && r->tid) {
		const struct lt_thread *t = lt_snapshot_find(s, r->tid);
		if (!t)
			return lts_asprintf("which is in a system call on thread %d (not in the snapshot)", (int)r->tid);
		char *act = lts_thread_activity(t), dur[32];
		char *party = thread_party(t);
		lts_fmt_duration(t->idle_src == LT_IDLE_UNKNOWN ? -1 : t->idle_s, dur, sizeof(dur));
		char *r2 = lts_asprintf("which is in a system call on thread %d: %s, for %s%s%s", (int)t->tid,
					act ? act : "?", dur, party ? "; " : "", party ? party : "");
		free(act);
		free(party);
		return r2;
	}
	if (r->netfd) {
		/* the socket's other end, as a thread's wait on it is followed:
		 * the netpoller's thread in epoll_pwait watches the fd */
		char *peer = net_party(s, r->netfd);
		char *r2 = lts_asprintf("which waits for network I/O on %s%s%s", r->netfd, peer ? "; " : "",
					peer ? peer : "");
		free(peer);
		return r2;
	}
	if (r->status_name && !strcmp(r->status_name, "running"))
		return lts_asprintf("which is running%s", r->tid ? "" : " (no thread recorded)");
	return lts_asprintf("which is [%s]", r->reason ? r->reason : r->status_name ? r->status_name : "?");
}

/* The goroutine that goroutine I waits for, -1 none: a mutex's inferred
 * holder, or the one goroutine whose code can do the other operation on
 * the channel I is blocked on (chan_peers, rt_go_infer.c).  *VIA_CHAN
 * says which. */
static long waits_for(const struct lt_go *go, size_t i, bool *via_chan)
{
	long m = waits_mutex(go, i);
	*via_chan = false;
	if (m >= 0)
		return go->mutexes[m].holder;
	const struct lt_go_routine *r = &go->routines[i];
	if (r->wait == LT_GO_WAIT_CHAN && r->chan_peer && r->chan_peers_how && !r->notify_sigs) {
		*via_chan = true;
		return (long)r->chan_peer - 1;
	}
	return -1;
}

static void deadlocks(struct lt_snapshot *s, bool *in_cycle)
{
	struct lt_go *go = s->go;
	size_t n = go->n_routines;
	int *stamp = calloc(n ? n : 1, sizeof(*stamp));
	if (!stamp)
		return;
	for (size_t start = 0; start < n; start++) {
		if (stamp[start])
			continue;
		/* follow waits-for -> holder (or the channel's one peer) */
		size_t cur = start;
		long nx;
		bool via;
		while (!stamp[cur] && (nx = waits_for(go, cur, &via)) >= 0) {
			stamp[cur] = (int)start + 1;
			cur = (size_t)nx;
		}
		if (stamp[cur] != (int)start + 1 || in_cycle[cur])
			continue;
		/* a cycle through cur */
		bool chan = false;
		size_t k = cur, len = 0;
		do {
			k = (size_t)waits_for(go, k, &via);
			chan |= via;
		} while (k != cur && ++len < n);
		struct lt_verdict *v = push(s, LT_VERDICT_DEADLOCK);
		if (!v)
			break;
		bool mutex = false;
		k = cur;
		do {
			k = (size_t)waits_for(go, k, &via);
			mutex |= !via;
		} while (k != cur && ++len < 2 * n);
		len = 0;
		char *sum = lts_strdup(!mutex ? "probable deadlock (a channel's other end inferred): "
				       : chan ? "probable deadlock (holders and a channel's other end inferred): "
					      : "probable deadlock (holders inferred): ");
		k = cur;
		len = 0;
		do {
			const struct lt_go_routine *r = &go->routines[k];
			size_t nk = (size_t)waits_for(go, k, &via);
			const struct lt_go_routine *o = &go->routines[nk];
			char nb[128];
			char who[160] = "";
			if (!len)
				snprintf(who, sizeof(who), "goroutine %" PRId64 " (%s) ", r->id, gfunc(r));
			char *next;
			if (via) {
				char at[256];
				next = lts_asprintf("%s%s%sat %s is blocked in chan %s on channel %s (0x%" PRIx64
						    "), which only goroutine %" PRId64 " (%s) %s", sum,
						    len ? ", which " : "", who, gwhere(r, at, sizeof(at)), r->dir,
						    r->obj_name ? r->obj_name : "(heap)", r->obj, o->id, gfunc(o),
						    strcmp(r->dir, "send") ? "may send on" : "may receive from");
				add_frames(v, r);
				lt_strlist_add(&v->evidence, "channel %s: %s", r->obj_name ? r->obj_name : "?",
					       r->chan_peers_how);
			} else {
				const struct lt_go_mutex *mx = &go->mutexes[waits_mutex(go, k)];
				next = lts_asprintf("%s%s%swaits for %s, held by goroutine %" PRId64 " (%s)", sum,
						    len ? ", which " : "", who, mname(mx, nb, sizeof(nb)), o->id, gfunc(o));
				add_frames(v, r);
				lt_strlist_add(&v->evidence, "%s: %s", nb, mx->holder_how ? mx->holder_how : "?");
			}
			free(sum);
			sum = next;
			in_cycle[k] = true;
			v->explains++;
			if (r->waited_s > v->longest_s)
				v->longest_s = r->waited_s;
			len++;
			k = nk;
		} while (k != cur && len < n);
		v->summary = sum;
		if (mutex)
			lt_strlist_add(&v->evidence, "sync.Mutex records no owner: each holder is inferred from the "
				       "code of its goroutine's frames (docs/runtimes.md, Go)");
		if (chan)
			lt_strlist_add(&v->evidence, "a channel records no goroutine that will use it: its other "
				       "end is the one goroutine whose code, after where it is stopped, does the "
				       "other operation on it (or that holds the channel), and that goroutine is "
				       "blocked too");
	}
	free(stamp);
}

/* A goroutine blocked in a chan send or receive whose possible other
 * ends were looked for (chan_peers, rt_go_infer.c). */
static bool chan_waiter(const struct lt_go_routine *r)
{
	return r->wait == LT_GO_WAIT_CHAN && !r->system && r->obj && r->dir && r->chan_peers_how && !r->notify_sigs &&
	       r->n_chan_peers >= 0 && (!strcmp(r->dir, "send") || !strcmp(r->dir, "receive")) &&
	       (r->n_chan_peers == 0 || r->chan_peer_list || r->chan_peer);
}

/* the Kth possible other end of chan waiter R */
static size_t chan_peer_at(const struct lt_go_routine *r, long k)
{
	return r->chan_peer_list ? r->chan_peer_list[k] : r->chan_peer - 1;
}

/* Notify waits said one by one in an idle verdict, at most */
#define NOTIFY_SHOWN 4

static void chan_what(char *buf, size_t len, const struct lt_go_routine *r)
{
	snprintf(buf, len, "chan %s on channel %s (0x%" PRIx64 ")", r->dir, r->obj_name ? r->obj_name : "(heap)",
		 r->obj);
}

/* Goroutines blocked for ever through channels (and mutexes): the largest
 * set of blocked goroutines each of which can be ended only by goroutines
 * of the set -- a goroutine blocked in a chan send or receive by any of
 * the goroutines that could do the other operation (chan_peers), at least
 * one of them; one waiting for a sync.Mutex by its inferred holder; one
 * in a cycle found above by none.  A goroutine that something outside the
 * set could end (one in network I/O, asleep, running, in a select, in a
 * wait whose other end is unknown) leaves it, and so do those that only it
 * could end.  Each group of the set not all in a cycle above is a
 * probable deadlock: every goroutine that could end each wait is itself
 * blocked in it.  IN_SET says who is in one. */
static void chan_deadlocks(struct lt_snapshot *s, const bool *in_cycle, bool *in_set)
{
	struct lt_go *go = s->go;
	size_t n = go->n_routines;
	for (size_t i = 0; i < n; i++) {
		const struct lt_go_routine *r = &go->routines[i];
		long m = waits_mutex(go, i);
		in_set[i] = in_cycle[i] || (chan_waiter(r) && r->n_chan_peers > 0) ||
			    (m >= 0 && go->mutexes[m].holder >= 0 && (size_t)go->mutexes[m].holder != i);
	}
	for (bool changed = true; changed;) {
		changed = false;
		for (size_t i = 0; i < n; i++) {
			if (!in_set[i] || in_cycle[i])
				continue;
			const struct lt_go_routine *r = &go->routines[i];
			bool ok = true;
			long m = waits_mutex(go, i);
			if (m >= 0)
				ok = in_set[go->mutexes[m].holder];
			else
				for (long k = 0; k < r->n_chan_peers && ok; k++)
					ok = in_set[chan_peer_at(r, k)];
			if (!ok) {
				in_set[i] = false;
				changed = true;
			}
		}
	}
	/* the groups: goroutines joined by who can end whose wait */
	size_t *grp = malloc((n ? n : 1) * sizeof(*grp));
	if (!grp)
		return;
	for (size_t i = 0; i < n; i++)
		grp[i] = i;
	for (bool changed = true; changed;) {
		changed = false;
		for (size_t i = 0; i < n; i++) {
			if (!in_set[i] || in_cycle[i])
				continue;
			const struct lt_go_routine *r = &go->routines[i];
			long m = waits_mutex(go, i);
			long np = m >= 0 ? 1 : r->n_chan_peers;
			for (long k = 0; k < np; k++) {
				size_t o = m >= 0 ? (size_t)go->mutexes[m].holder : chan_peer_at(r, k);
				if (in_cycle[o])
					continue;
				size_t g = grp[i] < grp[o] ? grp[i] : grp[o];
				if (grp[i] != g || grp[o] != g) {
					grp[i] = grp[o] = g;
					changed = true;
				}
			}
		}
	}
	for (size_t g = 0; g < n; g++) {
		size_t nm = 0;
		bool chan = false, mutex = false;
		for (size_t i = 0; i < n; i++)
			if (in_set[i] && !in_cycle[i] && grp[i] == g) {
				nm++;
				if (waits_mutex(go, i) >= 0)
					mutex = true;
				else
					chan = true;
			}
		if (nm && !chan) {
			/* mutexes only: waiters on a cycle above (LOCK WAIT) */
			for (size_t i = 0; i < n; i++)
				if (grp[i] == g && !in_cycle[i])
					in_set[i] = false;
			continue;
		}
		if (!nm)
			continue;
		struct lt_verdict *v = push(s, LT_VERDICT_DEADLOCK);
		if (!v)
			break;
		char *sum = lts_strdup(mutex ? "probable deadlock (holders and a channel's other end inferred): "
					     : "probable deadlock (a channel's other end inferred): ");
		size_t shown = 0;
		for (size_t i = 0; i < n; i++) {
			if (!in_set[i] || in_cycle[i] || grp[i] != g)
				continue;
			const struct lt_go_routine *r = &go->routines[i];
			char w[256], what[256], ends[400] = "";
			size_t el = 0;
			long m = waits_mutex(go, i);
			long np = m >= 0 ? 1 : r->n_chan_peers;
			for (long k = 0; k < np && k < PEERS_SHOWN_V && el < sizeof(ends) - 100; k++) {
				size_t o = m >= 0 ? (size_t)go->mutexes[m].holder : chan_peer_at(r, k);
				el += (size_t)snprintf(ends + el, sizeof(ends) - el, "%sgoroutine %" PRId64 " (%s)%s",
						       k ? (k + 1 == np ? " or " : ", ") : "", go->routines[o].id,
						       gfunc(&go->routines[o]), in_cycle[o] ? ", in a deadlock above" : "");
			}
			if (np > PEERS_SHOWN_V)
				snprintf(ends + el, sizeof(ends) - el, " and %ld more", np - PEERS_SHOWN_V);
			char *next;
			if (m >= 0) {
				char nb[128];
				mname(&go->mutexes[m], nb, sizeof(nb));
				next = lts_asprintf("%s%sgoroutine %" PRId64 " (%s) at %s waits for %s, held by %s",
						    sum, shown ? "; " : "", r->id, gfunc(r), gwhere(r, w, sizeof(w)), nb,
						    ends);
				lt_strlist_add(&v->evidence, "%s: %s", nb,
					       go->mutexes[m].holder_how ? go->mutexes[m].holder_how : "?");
			} else {
				chan_what(what, sizeof(what), r);
				next = lts_asprintf("%s%sgoroutine %" PRId64 " (%s) at %s is blocked in %s, which %s%s "
						    "may %s", sum, shown ? "; " : "", r->id, gfunc(r),
						    gwhere(r, w, sizeof(w)), what, np == 1 ? "only " : "", ends,
						    strcmp(r->dir, "send") ? "send on" : "receive from");
				lt_strlist_add(&v->evidence, "channel %s (0x%" PRIx64 "): %s",
					       r->obj_name ? r->obj_name : "(heap)", r->obj, r->chan_peers_how);
			}
			add_frames(v, r);
			free(sum);
			sum = next;
			shown++;
			v->explains++;
			if (r->waited_s > v->longest_s)
				v->longest_s = r->waited_s;
		}
		v->summary = sum;
		lt_strlist_add(&v->evidence, "a channel records no goroutine that will use it: the goroutines that "
			       "could end each wait are inferred (from their code where a variable holds the "
			       "channel, from references on their stacks where none does), and every one of "
			       "them is blocked here too");
	}
	free(grp);
}

/* Goroutines blocked in a chan send or receive in no deadlock and no
 * leak: nothing seen could end the wait (a verdict: unknown whether it
 * ever ends, but nothing says it will), or what could end it is named in
 * an IDLE verdict's evidence (lt_go_idle_notes). */
static void chan_orphans(struct lt_snapshot *s, const bool *in_cycle, const bool *in_set)
{
	struct lt_go *go = s->go;
	for (size_t i = 0; i < go->n_routines; i++) {
		const struct lt_go_routine *r = &go->routines[i];
		if (in_cycle[i] || in_set[i] || !chan_waiter(r) || r->n_chan_peers)
			continue;
		size_t same = 0;
		for (size_t k = 0; k < go->n_routines; k++)
			same += go->routines[k].wait == LT_GO_WAIT_CHAN && go->routines[k].obj == r->obj &&
				go->routines[k].dir && !strcmp(go->routines[k].dir, r->dir);
		if (same >= LEAK_MIN)
			continue; /* a leak, said by leaks() */
		struct lt_verdict *v = push(s, LT_VERDICT_LOCK_WAIT);
		if (!v)
			return;
		char w[256], what[256];
		chan_what(what, sizeof(what), r);
		v->summary = lts_asprintf("goroutine %" PRId64 " (%s) at %s is blocked in %s, and no other "
					  "goroutine is seen that could %s it: probably blocked for ever (unknown: "
					  "a goroutine not yet started, or code not on any stack, may)", r->id,
					  gfunc(r), gwhere(r, w, sizeof(w)), what,
					  strcmp(r->dir, "send") ? "send on" : "receive from");
		v->explains = 1;
		v->longest_s = r->waited_s;
		add_frames(v, r);
		lt_strlist_add(&v->evidence, "channel %s (0x%" PRIx64 "): %s", r->obj_name ? r->obj_name : "(heap)",
			       r->obj, r->chan_peers_how);
	}
}

static void mutex_groups(struct lt_snapshot *s, const bool *in_cycle)
{
	struct lt_go *go = s->go;
	for (size_t k = 0; k < go->n_mutexes; k++) {
		const struct lt_go_mutex *mx = &go->mutexes[k];
		/* a WaitGroup or another semaphore waits for an event, not a
		 * lock: a main goroutine in wg.Wait() for the life of a server
		 * is no finding */
		if (strcmp(mx->kind, "sync.Mutex") && strcmp(mx->kind, "sync.RWMutex"))
			continue;
		size_t nw = 0, first = 0;
		for (size_t i = 0; i < go->n_routines; i++)
			if (waits_mutex(go, i) == (long)k && !in_cycle[i]) {
				if (!nw)
					first = i;
				nw++;
			}
		if (!nw)
			continue;
		struct lt_verdict *v = push(s, LT_VERDICT_LOCK_WAIT);
		if (!v)
			return;
		char nb[128], hb[256] = "";
		mname(mx, nb, sizeof(nb));
		char *doing = NULL;
		if (mx->holder >= 0) {
			const struct lt_go_routine *h = &go->routines[mx->holder];
			snprintf(hb, sizeof(hb), ", held by goroutine %" PRId64 " (%s, inferred)%s", h->id, gfunc(h),
				 in_cycle[mx->holder] ? ", which is in a deadlock" : "");
			if (!in_cycle[mx->holder])
				doing = go_doing(s, (size_t)mx->holder, 0);
		} else {
			snprintf(hb, sizeof(hb), ", holder unknown");
		}
		if (strcmp(mx->kind, "sync.Mutex"))
			snprintf(hb, sizeof(hb), "%s%s", mx->facts ? ": " : "", mx->facts ? mx->facts : "");
		const char *what = go->routines[first].obj_kind;
		bool same = true;
		for (size_t i = 0; i < go->n_routines; i++)
			if (waits_mutex(go, i) == (long)k && !in_cycle[i] && strcmp(go->routines[i].obj_kind, what))
				same = false;
		v->summary = lts_asprintf("%zu goroutine%s (%s%s) wait%s for %s %s%s%s%s", nw, nw == 1 ? "" : "s",
					  gfunc(&go->routines[first]), nw > 1 ? ", ..." : "", nw == 1 ? "s" : "",
					  same ? what : mx->kind, nb, hb, doing ? ", " : "", doing ? doing : "");
		free(doing);
		for (size_t i = 0; i < go->n_routines; i++)
			if (waits_mutex(go, i) == (long)k && !in_cycle[i]) {
				add_frames_for(v, &go->routines[i], go->routines[i].obj_kind);
				v->explains++;
			}
		if (mx->holder_how)
			lt_strlist_add(&v->evidence, "%s: %s", nb, mx->holder_how);
	}
}

static void leaks(struct lt_snapshot *s)
{
	struct lt_go *go = s->go;
	bool *done = calloc(go->n_routines ? go->n_routines : 1, 1);
	if (!done)
		return;
	for (size_t i = 0; i < go->n_routines; i++) {
		const struct lt_go_routine *r = &go->routines[i];
		if (done[i] || r->wait != LT_GO_WAIT_CHAN || !r->obj || r->system)
			continue;
		size_t nw = 0;
		for (size_t k = i; k < go->n_routines; k++)
			if (go->routines[k].wait == LT_GO_WAIT_CHAN && go->routines[k].obj == r->obj &&
			    !strcmp(go->routines[k].dir, r->dir)) {
				done[k] = true;
				nw++;
			}
		if (nw < LEAK_MIN)
			continue;
		struct lt_verdict *v = push(s, LT_VERDICT_LOCK_WAIT);
		if (!v)
			break;
		char nb[160];
		if (r->obj_name)
			snprintf(nb, sizeof(nb), "%s (0x%" PRIx64 ")", r->obj_name, r->obj);
		else
			snprintf(nb, sizeof(nb), "0x%" PRIx64, r->obj);
		v->summary = lts_asprintf("probable goroutine leak: %zu goroutines (%s) blocked in chan %s on "
					  "channel %s", nw, gfunc(r), r->dir, nb);
		v->explains = nw;
		size_t shown = 0;
		for (size_t k = i; k < go->n_routines && shown < 5; k++)
			if (go->routines[k].wait == LT_GO_WAIT_CHAN && go->routines[k].obj == r->obj) {
				add_frames(v, &go->routines[k]);
				shown++;
			}
		if (nw > shown)
			lt_strlist_add(&v->evidence, "... and %zu more on the same channel", nw - shown);
		if (r->notify_sigs) /* a signal wakes one receiver, not N */
			lt_strlist_add(&v->evidence, "signal.Notify registered the channel%s%s: each signal sent to "
				       "the process wakes one of them at most", *r->notify_sigs ? " for " : "",
				       r->notify_sigs);
		lt_strlist_add(&v->evidence, "nothing %s this channel while they wait: if nothing ever will, "
			       "they never end", strcmp(r->dir, "send") ? "sends on" : "receives from");
		/* which goroutines could: those waiting neither on a channel
		 * nor on a lock (in I/O, asleep, running); which of them
		 * would is in their code, not in the snapshot */
		char may[400] = "";
		size_t ml = 0, nm = 0;
		for (size_t k = 0; k < go->n_routines; k++) {
			const struct lt_go_routine *o = &go->routines[k];
			if (o->system || o->wait == LT_GO_WAIT_CHAN || o->wait == LT_GO_WAIT_SEMA)
				continue;
			if (nm++ < 4 && ml < sizeof(may) - 80)
				ml += (size_t)snprintf(may + ml, sizeof(may) - ml, "%sgoroutine %" PRId64 " (%s) [%s]",
						       ml ? ", " : "", o->id, gfunc(o),
						       o->reason ? o->reason : o->status_name ? o->status_name : "?");
		}
		if (nm)
			lt_strlist_add(&v->evidence, "goroutines waiting on neither a channel nor a lock, which may "
				       "yet %s it: %s%s (whether one will is not in the snapshot)",
				       strcmp(r->dir, "send") ? "send on" : "receive from", may, nm > 4 ? ", ..." : "");
		else
			lt_strlist_add(&v->evidence, "every other goroutine of the program waits on a channel or a "
				       "lock too: none is left to %s it", strcmp(r->dir, "send") ? "send on" : "receive from");
	}
	free(done);
}

void lt_go_verdicts(struct lt_snapshot *s)
{
	if (!s->go || !s->go->n_routines)
		return;
	bool *in_cycle = calloc(s->go->n_routines, 1);
	if (!in_cycle)
		return;
	bool *in_set = calloc(s->go->n_routines, 1);
	if (!in_set) {
		free(in_cycle);
		return;
	}
	deadlocks(s, in_cycle);
	chan_deadlocks(s, in_cycle, in_set);
	for (size_t i = 0; i < s->go->n_routines; i++)
		in_set[i] |= in_cycle[i];
	mutex_groups(s, in_set);
	leaks(s);
	chan_orphans(s, in_cycle, in_set);
	free(in_set);
	free(in_cycle);
}

void lt_go_idle_notes(struct lt_snapshot *s)
{
	/* the IDLE verdict, or the one of nothing suspicious (a thread
	 * running at the time): the channel waits' notes go in either */
	struct lt_verdict *v = NULL;
	for (size_t i = 0; i < s->n_verdicts && !v; i++)
		if (s->verdicts[i].kind == LT_VERDICT_IDLE)
			v = &s->verdicts[i];
	for (size_t i = 0; i < s->n_verdicts && !v; i++)
		if (s->verdicts[i].kind == LT_VERDICT_OK)
			v = &s->verdicts[i];
	if (!v || !s->go)
		return;
	bool idle = v->kind == LT_VERDICT_IDLE;
	struct lt_go *go = s->go;
	size_t n = 0;
	for (size_t k = 0; idle && k < go->n_mutexes; k++) {
		const struct lt_go_mutex *m = &go->mutexes[k];
		int count = 0;
		if (strcmp(m->kind, "sync.WaitGroup") || !m->facts || sscanf(m->facts, "counter %d", &count) != 1 ||
		    count <= 0)
			continue;
		char nb[128];
		mname(m, nb, sizeof(nb));
		for (size_t i = 0; i < go->n_routines; i++)
			if (waits_mutex(go, i) == (long)k) {
				lt_strlist_add(&v->evidence, "goroutine %" PRId64 " (%s) waits in sync.WaitGroup %s's "
					       "Wait() for %d more Done() call%s; which goroutines are to make "
					       "them is not recorded (a server's main goroutine waits so for its "
					       "life; a Done() that is never called leaves it there for ever)",
					       go->routines[i].id, gfunc(&go->routines[i]), nb, count,
					       count == 1 ? "" : "s");
				n++;
			}
	}
	/* goroutines blocked on a channel that goroutines not blocked for
	 * ever could end (an IDLE verdict has no deadlock): what could */
	size_t nc = 0;
	for (size_t i = 0; i < go->n_routines; i++) {
		const struct lt_go_routine *r = &go->routines[i];
		if (!chan_waiter(r) || r->n_chan_peers <= 0)
			continue;
		char what[256], ends[2400] = "";
		size_t el = 0;
		chan_what(what, sizeof(what), r);
		for (long k = 0; k < r->n_chan_peers && k < PEERS_SHOWN_V && el < sizeof(ends) - 600; k++) {
			const struct lt_go_routine *o = &go->routines[chan_peer_at(r, k)];
			char od[560];
			char *d = go_doing(s, chan_peer_at(r, k), 0);
			snprintf(od, sizeof(od), "%s", d ? d : "?");
			free(d);
			el += (size_t)snprintf(ends + el, sizeof(ends) - el, "%sgoroutine %" PRId64 " (%s, %s)",
					       k ? ", " : "", o->id, gfunc(o), od);
		}
		lt_strlist_add(&v->evidence, "goroutine %" PRId64 " (%s) is blocked in %s, which %s may %s: not "
			       "stuck for as long as %s may run (%s)", r->id, gfunc(r), what, ends,
			       strcmp(r->dir, "send") ? "send on" : "receive from",
			       r->n_chan_peers == 1 ? "it" : "they", r->chan_peers_how);
		nc++;
	}
	(void)nc;
	/* goroutines receiving on a channel signal.Notify registered: a
	 * signal ends the wait (a server's main goroutine waits so for its
	 * life); a goroutine that may send on it too is said; more than
	 * NOTIFY_SHOWN of them in one line */
	size_t ns = 0, first_ns = 0;
	for (size_t i = 0; i < go->n_routines; i++) {
		const struct lt_go_routine *r = &go->routines[i];
		if (r->wait != LT_GO_WAIT_CHAN || r->system || !r->notify_sigs)
			continue;
		if (!ns++)
			first_ns = i;
	}
	for (size_t i = 0; ns && ns <= NOTIFY_SHOWN && i < go->n_routines; i++) {
		const struct lt_go_routine *r = &go->routines[i];
		if (r->wait != LT_GO_WAIT_CHAN || r->system || !r->notify_sigs)
			continue;
		char what[256], w[256], also[700] = "";
		chan_what(what, sizeof(what), r);
		if (r->n_chan_peers > 0 && r->chan_peers_how) {
			const struct lt_go_routine *o = &go->routines[chan_peer_at(r, 0)];
			char *d = go_doing(s, chan_peer_at(r, 0), 0);
			snprintf(also, sizeof(also), ", or goroutine %" PRId64 " (%s, %s)%s, which may send on it (%s)",
				 o->id, gfunc(o), d ? d : "?", r->n_chan_peers > 1 ? " and others" : "",
				 r->chan_peers_how);
			free(d);
		}
		lt_strlist_add(&v->evidence, "goroutine %" PRId64 " (%s) at %s is blocked in %s, which "
			       "signal.Notify registered%s%s: a signal sent to the process ends the wait "
			       "(kill(2), the terminal, the kernel)%s%s", r->id, gfunc(r), gwhere(r, w, sizeof(w)),
			       what, *r->notify_sigs ? " for " : "", r->notify_sigs, also,
			       also[0] ? "" : ", no goroutine of the program is its other end; the program waits for one");
	}
	if (ns > NOTIFY_SHOWN)
		lt_strlist_add(&v->evidence, "%zu goroutines (%s, ...) are blocked in chan receives on channels "
			       "signal.Notify registered: a signal sent to the process ends each such wait (one "
			       "receiver a signal and channel)", ns, gfunc(&go->routines[first_ns]));
	/* goroutines blocked on a channel whose other ends were not
	 * inferred (too many to look for): unknown, not idle */
	size_t nu = 0, first = 0;
	for (size_t i = 0; i < go->n_routines; i++) {
		const struct lt_go_routine *r = &go->routines[i];
		if (r->wait == LT_GO_WAIT_CHAN && !r->system && r->dir && strcmp(r->dir, "select") &&
		    r->n_chan_peers < 0 && r->chan_peers_how && !r->notify_sigs && !nu++)
			first = i;
	}
	if (nu)
		lt_strlist_add(&v->evidence, "%zu goroutine%s (%s%s) %s blocked in a chan send or receive whose "
			       "other ends were not looked for (%s): whether anything can end %s wait%s is "
			       "unknown", nu, nu == 1 ? "" : "s", gfunc(&go->routines[first]), nu > 1 ? ", ..." : "",
			       nu == 1 ? "is" : "are", go->routines[first].chan_peers_how, nu == 1 ? "its" : "their",
			       nu == 1 ? "" : "s");
	if ((!n && !nu) || !v->summary || !idle)
		return;
	char more[300] = "";
	if (n)
		snprintf(more, sizeof(more), "; %zu goroutine%s wait%s in sync.WaitGroup.Wait() for Done() calls "
			 "nobody is recorded to make", n, n == 1 ? "" : "s", n == 1 ? "s" : "");
	if (nu)
		snprintf(more + strlen(more), sizeof(more) - strlen(more), "; %zu goroutine%s blocked on channels "
			 "whose other ends were not inferred", nu, nu == 1 ? "" : "s");
	const char *claim = "none for anything stuck";
	char *at = strstr(v->summary, claim);
	char *sum = at ? lts_asprintf("%.*snone known to be stuck%s%s", (int)(at - v->summary), v->summary,
				      at + strlen(claim), more)
		       : lts_asprintf("%s%s", v->summary, more);
	if (sum) {
		free(v->summary);
		v->summary = sum;
	}
}

/* ---- output ---- */

static const char *wait_text(const struct lt_go_routine *r, char *buf, size_t len)
{
	if (r->wait == LT_GO_WAIT_SEMA)
		snprintf(buf, len, " waits for %s %s (0x%" PRIx64 ")", r->obj_kind, r->obj_name ? r->obj_name : "(heap)",
			 r->lock);
	else if (r->wait == LT_GO_WAIT_CHAN && r->obj)
		snprintf(buf, len, " %s on channel %s (0x%" PRIx64 ")%s%s%s", r->dir, r->obj_name ? r->obj_name : "(heap)",
			 r->obj, r->notify_sigs ? ", registered with signal.Notify" : "",
			 r->notify_sigs && *r->notify_sigs ? " for " : "", r->notify_sigs ? r->notify_sigs : "");
	else if (r->wait == LT_GO_WAIT_CHAN)
		snprintf(buf, len, " select on several channels");
	else if (r->netfd)
		snprintf(buf, len, " on %s", r->netfd);
	else
		buf[0] = 0;
	return buf;
}

void lt_go_print_text(FILE *f, const struct lt_snapshot *s)
{
	const struct lt_go *go = s->go;
	if (!go)
		return;
	size_t user = 0;
	for (size_t i = 0; i < go->n_routines; i++)
		user += !go->routines[i].system;
	fprintf(f, "\nGo %s (offsets: %s): %zu goroutines (%zu user, %zu runtime)%s\n",
		go->version ? go->version : "(unknown version)", go->layout ? go->layout : "none", go->n_routines,
		user, go->n_routines - user, go->truncated ? ", more not read" : "");
	for (size_t i = 0; i < go->notes.n; i++)
		fprintf(f, "  note: %s\n", go->notes.v[i]);
	for (size_t k = 0; k < go->n_mutexes; k++) {
		char nb[128];
		const struct lt_go_mutex *m = &go->mutexes[k];
		fprintf(f, "  %s %s (0x%" PRIx64 ") state 0x%x: %s%s%s\n", m->kind, mname(m, nb, sizeof(nb)), m->addr,
			m->state, m->facts ? m->facts : "", m->facts && m->holder_how ? "; " : "",
			m->holder_how ? m->holder_how : "");
	}
	size_t shown = 0;
	for (size_t i = 0; i < go->n_routines; i++) {
		const struct lt_go_routine *r = &go->routines[i];
		if (r->system)
			continue;
		if (shown++ == TEXT_MAX_ROUTINES) {
			fprintf(f, "  ... %zu more goroutines (all are in the JSON)\n", user - TEXT_MAX_ROUTINES);
			break;
		}
		char wb[256], dur[48] = "";
		if (r->waited_s >= 0)
			snprintf(dur, sizeof(dur), ", >= %.0f s", r->waited_s);
		fprintf(f, "  goroutine %" PRId64 " [%s%s]", r->id, r->reason ? r->reason : r->status_name, dur);
		if (r->tid)
			fprintf(f, " on thread %d", (int)r->tid);
		fprintf(f, "%s\n", wait_text(r, wb, sizeof(wb)));
		for (size_t k = 0; k < r->n_frames; k++)
			fprintf(f, "      %s%s  %s:%d\n", r->frames[k].func ? r->frames[k].func : "?",
				r->frames[k].inlined ? " (inlined)" : "", r->frames[k].file ? r->frames[k].file : "?",
				r->frames[k].line);
		if (r->end)
			fprintf(f, "      (%s)\n", r->end);
		if (r->created_by)
			fprintf(f, "      created by %s\n", r->created_by);
	}
}

void lt_go_print_json(struct jw *w, const struct lt_snapshot *s)
{
	const struct lt_go *go = s->go;
	if (!go)
		return;
	jw_kobject(w, "go");
	jw_kstr(w, "version", go->version);
	jw_kstr(w, "offsets", go->layout);
	jw_kbool(w, "stripped", go->stripped);
	jw_kuint(w, "allglen", go->n_all);
	jw_kbool(w, "truncated", go->truncated);
	jw_karray(w, "notes");
	for (size_t i = 0; i < go->notes.n; i++)
		jw_str(w, go->notes.v[i]);
	jw_end(w);
	jw_karray(w, "mutexes");
	for (size_t k = 0; k < go->n_mutexes; k++) {
		const struct lt_go_mutex *m = &go->mutexes[k];
		jw_object(w);
		jw_khex(w, "addr", m->addr);
		jw_kstr(w, "kind", m->kind);
		jw_kstr(w, "name", m->name);
		jw_kstr(w, "facts", m->facts);
		jw_kint_or_null(w, "state", m->state, m->state_ok);
		jw_kint_or_null(w, "holder_goroutine", m->holder >= 0 ? go->routines[m->holder].id : 0, m->holder >= 0);
		jw_kbool(w, "holder_inferred", m->holder >= 0);
		jw_kstr(w, "holder_how", m->holder_how);
		jw_end(w);
	}
	jw_end(w);
	jw_karray(w, "goroutines");
	jw_lines(w, 0, -1);
	for (size_t i = 0; i < go->n_routines; i++) {
		const struct lt_go_routine *r = &go->routines[i];
		jw_object(w);
		jw_kint(w, "id", r->id);
		jw_kstr(w, "status", r->status_name);
		jw_kstr(w, "wait_reason", r->reason);
		jw_kdouble(w, "waited_s", r->waited_s, 3);
		jw_kint_or_null(w, "tid", r->tid, r->tid != 0);
		jw_kbool(w, "system", r->system);
		if (r->netfd)
			jw_kstr(w, "netfd", r->netfd);
		if (r->wait != LT_GO_WAIT_NONE) {
			jw_kobject(w, "waits_for");
			jw_kstr(w, "kind", r->obj_kind);
			jw_kstr(w, "dir", r->dir);
			jw_khex(w, "addr", r->wait == LT_GO_WAIT_SEMA ? r->lock : r->obj);
			jw_kstr(w, "name", r->obj_name);
			if (r->chan_peers_how) { /* the channel's other end, inferred */
				jw_kint(w, "other_ends", r->n_chan_peers);
				jw_kint_or_null(w, "other_end_goroutine",
						r->chan_peer ? go->routines[r->chan_peer - 1].id : 0, r->chan_peer != 0);
				jw_kstr(w, "other_ends_how", r->chan_peers_how);
			}
			if (r->notify_sigs) /* the signals signal.Notify sends it */
				jw_kstr(w, "signal_notify", r->notify_sigs);
			jw_end(w);
		}
		jw_karray(w, "frames");
		for (size_t k = 0; k < r->n_frames; k++) {
			jw_object(w);
			jw_kstr(w, "func", r->frames[k].func);
			jw_kstr(w, "file", r->frames[k].file);
			jw_kint(w, "line", r->frames[k].line);
			jw_khex(w, "pc", r->frames[k].pc);
			if (r->frames[k].inlined)
				jw_kbool(w, "inlined", true);
			jw_end(w);
		}
		jw_end(w);
		jw_kstr(w, "end", r->end);
		jw_kstr(w, "created_by", r->created_by);
		jw_end(w);
	}
	jw_break(w, 0);
	jw_end(w);
	jw_end(w);
}
