// SPDX-License-Identifier: MIT
/* Application lock managers whose waits look like I/O: the table of known
 * wait functions, the stack matcher, and the verdicts (appwait.h,
 * docs/appwait.md). */
#include <inttypes.h>
#include <limits.h>
#include <unistd.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "appwait.h"
#include "jsonw.h"
#include "waitfor.h"
#include "snapshot.h"
#include "appwait_int.h"
#include "json_read.h"
#include "snapshot_int.h"

/* PostgreSQL (checked on Debian's 15): a heavyweight lock waiter sleeps in
 * ProcSleep (under the static WaitOnLock, under LockAcquireExtended), on
 * its latch (WaitLatch -> WaitEventSetWait -> epoll_wait); the lmgr.c
 * function above says what it locks.  An LWLock waiter sleeps on its
 * semaphore (PGSemaphoreLock: a futex) under LWLockAcquire.  A backend
 * waiting for its client's next command sleeps in WaitEventSetWait under
 * secure_read (pq_getbyte): the wait event ClientRead, its idle state. */
#define PG "PostgreSQL", "postgres"
#define HW(caller, what, kind) { PG, "ProcSleep", 8, caller, 6, LT_APPWAIT_LOCK, what, kind }
static const struct lt_appwait_rule builtin[] = {
	HW("XactLockTableWait", "a row/transaction lock (it waits for another transaction to end)",
	   "row/transaction lock"),
	HW("SpeculativeInsertionWait", "a speculative insertion lock (INSERT ... ON CONFLICT)",
	   "row/transaction lock"),
	HW("LockTuple", "a row (tuple) lock", "row/transaction lock"),
	HW("LockRelationForExtension", "a relation extension lock", "relation extension lock"),
	HW("LockRelationOid", "a table lock", "table lock"),
	HW("LockRelation", "a table lock", "table lock"),
	HW("LockRelationIdForSession", "a table lock", "table lock"),
	HW("LockRelationId", "a table lock", "table lock"),
	HW("LockPage", "a page lock", "page lock"),
	HW("VirtualXactLock", "a virtual transaction lock (it waits for a transaction to end)",
	   "virtual transaction lock"),
	HW("LockDatabaseObject", "an object lock", "object lock"),
	HW("LockSharedObject", "an object lock", "object lock"),
	HW("LockSharedObjectForSession", "an object lock", "object lock"),
	HW("pg_advisory_*", "an advisory lock", "advisory lock"),
	HW(NULL, "a heavyweight lock", "heavyweight lock"),
	{ PG, "PGSemaphoreLock", 6, "LWLockAcquire*", 3, LT_APPWAIT_LOCK,
	  "an LWLock (a lightweight lock of shared memory)", "LWLock" },
	{ PG, "PGSemaphoreLock", 6, "LWLockWaitForVar", 3, LT_APPWAIT_LOCK,
	  "an LWLock (a lightweight lock of shared memory)", "LWLock" },
	{ PG, "PGSemaphoreLock", 6, NULL, 3, LT_APPWAIT_LOCK, "a semaphore of PostgreSQL", "semaphore" },
	{ PG, "secure_read", 4, NULL, 0, LT_APPWAIT_IDLE,
	  "its client's next command (ClientRead): an idle backend", "client read" },
};
#undef HW
#undef PG

const struct lt_appwait_rule *lt_appwait_rules(size_t *n)
{
	*n = sizeof(builtin) / sizeof(builtin[0]);
	return builtin;
}

const char *lt_appwait_class_name(enum lt_appwait_class c)
{
	switch (c) {
	case LT_APPWAIT_LOCK: return "lock";
	case LT_APPWAIT_IDLE: return "idle";
	default: return "none";
	}
}

static bool name_is(const char *func, const char *pat)
{
	if (!func || !pat)
		return false;
	size_t n = strlen(pat);
	if (n && pat[n - 1] == '*')
		return !strncmp(func, pat, n - 1);
	return !strcmp(func, pat);
}

static bool module_is(const struct lt_frame *f, const char *mod)
{
	return !mod || (f->module && !strncmp(f->module, mod, strlen(mod)));
}

static char *via_of(const struct lt_thread *t, size_t from, size_t to)
{
	size_t cap = 32;
	for (size_t k = from; k <= to; k++)
		cap += (t->frames[k].func ? strlen(t->frames[k].func) : 2) + 3;
	char *v = malloc(cap);
	if (!v)
		return NULL;
	size_t l = 0;
	v[0] = 0;
	for (size_t k = from; k <= to; k++)
		l += (size_t)snprintf(v + l, cap - l, "%s%s", k > from ? " < " : "",
				      t->frames[k].func ? t->frames[k].func : "??");
	return v;
}

const struct lt_appwait_rule *lt_appwait_match(const struct lt_thread *t,
					       const struct lt_appwait_rule *rules, size_t n,
					       char **via)
{
	if (via)
		*via = NULL;
	if (!rules)
		rules = lt_appwait_rules(&n);
	for (size_t i = 0; i < n; i++) {
		const struct lt_appwait_rule *r = &rules[i];
		/* the first entry of each (application, sleep) pair decides
		 * where the sleep is; the others only add callers */
		bool seen = false;
		for (size_t j = 0; j < i && !seen; j++)
			seen = !strcmp(rules[j].app, r->app) && !strcmp(rules[j].sleep, r->sleep);
		if (seen)
			continue;
		size_t s;
		for (s = 0; s < t->n_frames && s < (size_t)r->sleep_depth; s++)
			if (name_is(t->frames[s].func, r->sleep) && module_is(&t->frames[s], r->module))
				break;
		if (s >= t->n_frames || s >= (size_t)r->sleep_depth)
			continue;
		/* the nearest caller above the sleep that an entry names */
		const struct lt_appwait_rule *fallback = NULL;
		for (size_t k = s + 1; k < t->n_frames; k++) {
			const char *fn = t->frames[k].func;
			for (size_t j = i; j < n; j++) {
				const struct lt_appwait_rule *c = &rules[j];
				if (strcmp(c->app, r->app) || strcmp(c->sleep, r->sleep) || !c->caller ||
				    k - s > (size_t)c->caller_depth || !name_is(fn, c->caller))
					continue;
				if (via)
					*via = via_of(t, s, k);
				return c;
			}
		}
		for (size_t j = i; j < n && !fallback; j++)
			if (!strcmp(rules[j].app, r->app) && !strcmp(rules[j].sleep, r->sleep) &&
			    !rules[j].caller)
				fallback = &rules[j];
		if (fallback) {
			if (via)
				*via = via_of(t, s, s + 3 < t->n_frames ? s + 3 : t->n_frames - 1);
			return fallback;
		}
	}
	return NULL;
}

bool lt_appwait_may_run(pid_t pid)
{
	char path[64], exe[PATH_MAX];
	snprintf(path, sizeof(path), "/proc/%d/exe", (int)pid);
	ssize_t n = readlink(path, exe, sizeof(exe) - 1);
	if (n <= 0)
		return false;
	exe[n] = 0;
	const char *base = strrchr(exe, '/');
	base = base ? base + 1 : exe;
	size_t nr;
	const struct lt_appwait_rule *r = lt_appwait_rules(&nr);
	for (size_t i = 0; i < nr; i++)
		if (!r[i].module || !strncmp(base, r[i].module, strlen(r[i].module)))
			return true;
	return false;
}

void lt_appwait_title(const char *raw, size_t len, char *buf, size_t buflen)
{
	size_t o = 0;
	for (size_t i = 0; i < len && o + 1 < buflen; i++) {
		unsigned char c = (unsigned char)raw[i];
		buf[o++] = c == 0 || c < 0x20 ? ' ' : (char)c;
	}
	while (o && buf[o - 1] == ' ')
		o--;
	if (buflen)
		buf[o < buflen ? o : buflen - 1] = 0;
}

void lt_appwait_apply(struct lt_snapshot *s)
{
	char title[256] = "";
	bool read = false;
	pid_t ppid = 0;
	for (size_t i = 0; i < s->n_threads; i++) {
		struct lt_thread *t = &s->threads[i];
		char *via = NULL;
		const struct lt_appwait_rule *r = lt_appwait_match(t, NULL, 0, &via);
		if (!r)
			continue;
		if (!read) {
			char path[64], raw[512];
			read = true;
			snprintf(path, sizeof(path), "/proc/%d/cmdline", (int)s->pid);
			ssize_t n = lts_read_small(path, raw, sizeof(raw));
			if (n > 0)
				lt_appwait_title(raw, (size_t)n, title, sizeof(title));
			snprintf(path, sizeof(path), "/proc/%d/stat", (int)s->pid);
			unsigned long long pp;
			if (lts_read_small(path, raw, sizeof(raw)) > 0 &&
			    lts_parse_stat_field(raw, 4, &pp) == 0)
				ppid = (pid_t)pp;
		}
		free(t->app_via);
		free(t->app_title);
		t->app_class = r->cls;
		t->app = r->app;
		t->app_what = r->what;
		t->app_kind = r->kind;
		t->app_via = via;
		t->app_title = title[0] ? lts_strdup(title) : NULL;
		t->app_pid = s->pid;
		t->app_server = ppid;
	}
}

/* ---- verdicts ---- */

static bool asleep(const struct lt_thread *t)
{
	return t->state != 'R' && t->sc.state == LT_SC_IN_SYSCALL && !t->moved;
}

bool lts_appwait_lock(const struct lt_thread *t)
{
	return t->app_class == LT_APPWAIT_LOCK && asleep(t);
}

/* PostgreSQL's own word for a lock wait: WaitOnLock appends " waiting" to
 * the process title while it sleeps (update_process_title, on by default) */
static bool title_waiting(const struct lt_thread *t)
{
	size_t n = t->app_title ? strlen(t->app_title) : 0;
	return n > 8 && !strcmp(t->app_title + n - 8, " waiting");
}

static bool title_in_xact(const struct lt_thread *t)
{
	return t->app_title && strstr(t->app_title, "in transaction") && !title_waiting(t);
}

/* The holders' edge lt_appwait_holders gave T (pids, or why not), NULL */
static const struct lt_wf_edge *app_edge(const struct lt_thread *t)
{
	for (size_t k = 0; t->wf && k < t->wf->n_edges; k++)
		if (t->wf->edges[k].kind == LT_WF_APP_LOCK)
			return &t->wf->edges[k];
	return NULL;
}

static const struct lt_wf_edge *known_holders(const struct lt_thread *t)
{
	const struct lt_wf_edge *e = app_edge(t);
	return e && e->n_pids ? e : NULL;
}

static bool same_server(const struct lt_thread *a, const struct lt_thread *b)
{
	return a->app && b->app && !strcmp(a->app, b->app) && a->app_server == b->app_server;
}

static int by_server(const void *x, const void *y)
{
	const struct lt_thread *a = *(const struct lt_thread *const *)x;
	const struct lt_thread *b = *(const struct lt_thread *const *)y;
	int c = strcmp(a->app, b->app);
	if (c)
		return c;
	if (a->app_server != b->app_server)
		return a->app_server < b->app_server ? -1 : 1;
	return (a->tid > b->tid) - (a->tid < b->tid);
}

/* "17064, 17065" of the waiters [a, b) of kind K (NULL: all) */
static void tid_list(char *buf, size_t len, const struct lt_thread *const *w, size_t a, size_t b,
		     const char *k)
{
	size_t l = 0;
	buf[0] = 0;
	for (size_t i = a; i < b && l + 16 < len; i++)
		if (!k || !strcmp(w[i]->app_kind, k))
			l += (size_t)snprintf(buf + l, len - l, "%s%d", l ? ", " : "", (int)w[i]->app_pid);
}

static const struct lt_wf_edge *app_edge(const struct lt_thread *t);

/* How long thread T has waited: by the application's own record when its
 * lock model read one (PostgreSQL's PGPROC.waitStart: a backend's latch
 * wakes it for the deadlock check, so the kernel's last run time can be
 * later than the wait's start), else since it last ran; -1 unknown. */
static double waited_s(const struct lt_thread *t)
{
	const struct lt_wf_edge *e = app_edge(t);
	if (e && e->wait_s > 0)
		return e->wait_s;
	return t->idle_src == LT_IDLE_UNKNOWN ? -1 : t->idle_s;
}

static void group_verdict(struct lt_snapshot *s, const struct lt_thread *const *w, size_t a, size_t b)
{
	const struct lt_thread *t0 = w[a];
	size_t cnt = b - a;
	struct lt_verdict *v = lts_verdict_new(s, LT_VERDICT_LOCK_WAIT);
	if (!v)
		return;
	v->longest_s = -1;
	bool one_kind = true;
	for (size_t i = a; i < b; i++) {
		lts_verdict_add_tid(v, w[i]->tid, 0);
		if (waited_s(w[i]) > v->longest_s)
			v->longest_s = waited_s(w[i]);
		one_kind &= !strcmp(w[i]->app_kind, t0->app_kind);
	}
	v->explains = cnt;
	bool pg = !strcmp(t0->app, "PostgreSQL"), all_known = true;
	char list[256], dur[32];
	tid_list(list, sizeof(list), w, a, b, NULL);
	lts_fmt_duration(v->longest_s, dur, sizeof(dur));
	bool rows = one_kind && !strcmp(t0->app_kind, "row/transaction lock");
	const struct lt_wf_edge *he = cnt == 1 ? known_holders(t0) : NULL;
	if (he) {
		char hl[128];
		size_t hn = 0;
		hl[0] = 0;
		for (size_t k = 0; k < he->n_pids && hn + 16 < sizeof(hl); k++)
			hn += (size_t)snprintf(hl + hn, sizeof(hl) - hn, "%s%d", k ? ", " : "", (int)he->pids[k]);
		v->owner = he->pids[0];
		v->owner_source = "the server's shared memory";
		v->summary = lts_asprintf("%s lock wait: process %d waits for %s (%s), for %s (a lock wait, not "
					  "I/O), held by %s %s%s (read from the server's shared memory)",
					  t0->app, (int)t0->app_pid, t0->app_what, he->what ? he->what : "?", dur,
					  he->n_pids > 1 ? "processes" : "process", hl, he->more_pids ? ", ..." : "");
	} else if (cnt == 1 && pg)
		v->summary = lts_asprintf("%s lock wait: process %d waits for %s, for %s (a lock wait, "
					  "not I/O); its holder is another backend: SELECT pg_blocking_pids(%d)",
					  t0->app, (int)t0->app_pid, t0->app_what, dur, (int)t0->app_pid);
	else if (cnt == 1)
		v->summary = lts_asprintf("%s lock wait: process %d waits for %s, for %s (a lock wait, not I/O)",
					  t0->app, (int)t0->app_pid, t0->app_what, dur);
	else if (pg && rows)
		v->summary = lts_asprintf("%s lock wait: %zu backends wait on row locks (%s), longest %s; "
					  "PostgreSQL's deadlock detector runs after deadlock_timeout",
					  t0->app, cnt, list, dur);
	else if (one_kind)
		v->summary = lts_asprintf("%s lock wait: %zu processes wait for %ss (%s), longest %s",
					  t0->app, cnt, t0->app_kind, list, dur);
	else
		v->summary = lts_asprintf("%s lock wait: %zu processes wait for locks of %s (%s), longest %s",
					  t0->app, cnt, t0->app, list, dur);
	/* a lone waiter's own timeout (PostgreSQL's lock_timeout or
	 * statement_timeout, pglocks.c), in the headline: the wait ends by it */
	const struct lt_wf_edge *te = cnt == 1 ? app_edge(t0) : NULL;
	if (te && te->timeout_what[0] && v->summary) {
		char tc[160];
		if (te->timeout_s > 0 && te->timeout_left_s >= 0)
			snprintf(tc, sizeof(tc), "; its %s (%.1f s) cancels the statement within %.1f s",
				 te->timeout_what, te->timeout_s, te->timeout_left_s);
		else if (te->timeout_s > 0)
			snprintf(tc, sizeof(tc), "; its %s (%.1f s) cancels the statement (when it began is not known)",
				 te->timeout_what, te->timeout_s);
		else
			snprintf(tc, sizeof(tc), "; whether its %s cancels the statement is not known (not read)",
				 te->timeout_what);
		char *sum = lts_asprintf("%s%s", v->summary, tc);
		if (sum) {
			free(v->summary);
			v->summary = sum;
		}
	}
	for (size_t i = a; i < b; i++) {
		const struct lt_thread *t = w[i];
		lts_fmt_duration(waited_s(t), dur, sizeof(dur));
		char tb[32] = "";
		if (t->tid != t->app_pid)
			snprintf(tb, sizeof(tb), " thread %d", (int)t->tid);
		const struct lt_wf_edge *ae = app_edge(t);
		lt_strlist_add(&v->evidence, "process %d%s waits for %s, for %s%s: it sleeps in %s under %s",
			       (int)t->app_pid, tb, t->app_what, dur,
			       ae && ae->wait_s > 0 ? " (since PGPROC.waitStart)" : "",
			       t->sc_name ? t->sc_name : "a system call", t->app_via ? t->app_via : "?");
		if (t->app_title)
			lt_strlist_add(&v->evidence, "process %d's title: '%s'%s", (int)t->app_pid,
				       t->app_title, title_waiting(t) ? " (PostgreSQL's own mark of a lock wait)" : "");
		const struct lt_wf_edge *e = app_edge(t);
		if (e) {
			char *l = lt_wf_edge_line(e);
			lt_strlist_add(&v->evidence, "process %d: %s", (int)t->app_pid, l ? l : "?");
			free(l);
		}
		all_known &= known_holders(t) != NULL;
	}
	if (pg && !all_known) {
		lt_strlist_add(&v->evidence, "PostgreSQL sleeps on its latch (epoll on a signalfd and the "
			       "postmaster's pipe) or a semaphore: the lock and its holder are in its shared "
			       "memory, which locktrace does not read");
		lt_strlist_add(&v->evidence, "holder: SELECT pid, pg_blocking_pids(pid), wait_event_type, "
			       "wait_event, state, query FROM pg_stat_activity WHERE pid IN (%s)", list);
	}
	/* who else of that server was traced: never named as the holder, at
	 * most as an inference said to be one */
	size_t in_xact = 0, others = 0;
	char cand[256];
	size_t cl = 0;
	cand[0] = 0;
	for (size_t i = 0; i < s->n_threads; i++) {
		const struct lt_thread *o = &s->threads[i];
		if (!same_server(o, t0) || o->app_class == LT_APPWAIT_LOCK)
			continue;
		others++;
		if (title_in_xact(o)) {
			in_xact++;
			if (cl + 16 < sizeof(cand))
				cl += (size_t)snprintf(cand + cl, sizeof(cand) - cl, "%s%d", cl ? ", " : "",
						       (int)o->app_pid);
		}
	}
	if (!pg || all_known)
		return;
	if (in_xact == 1)
		lt_strlist_add(&v->evidence, "inference, not read from the server's lock table: process %s "
			       "is the only other traced backend of this server inside a transaction and not "
			       "waiting (its title says so); it may hold the lock, or an untraced session or a "
			       "prepared transaction may: pg_blocking_pids says which", cand);
	else if (in_xact > 1)
		lt_strlist_add(&v->evidence, "processes %s of this server are inside a transaction and not "
			       "waiting (their titles say so): any of them, an untraced session or a prepared "
			       "transaction may hold the lock", cand);
	else if (others && cnt > 1 && rows)
		lt_strlist_add(&v->evidence, "inference: no other traced backend of this server is inside a "
			       "transaction; if every session is traced and there is no prepared transaction, "
			       "these %zu backends wait for each other (a deadlock PostgreSQL resolves after "
			       "deadlock_timeout)", cnt);
}

/* A cycle the wait-for graph proved (the holders read from shared
 * memory) already says it. */
static bool in_deadlock(const struct lt_snapshot *s, pid_t tid)
{
	for (size_t i = 0; i < s->n_verdicts; i++)
		if (s->verdicts[i].kind == LT_VERDICT_DEADLOCK)
			for (size_t k = 0; k < s->verdicts[i].n_tids; k++)
				if (s->verdicts[i].tids[k] == tid)
					return true;
	return false;
}

void lts_appwait_diagnose(struct lt_snapshot *s)
{
	size_t m = 0;
	const struct lt_thread **w = malloc((s->n_threads ? s->n_threads : 1) * sizeof(*w));
	if (!w)
		return;
	for (size_t i = 0; i < s->n_threads; i++)
		if (lts_appwait_lock(&s->threads[i]) && !in_deadlock(s, s->threads[i].tid))
			w[m++] = &s->threads[i];
	qsort(w, m, sizeof(*w), by_server);
	for (size_t a = 0; a < m;) {
		size_t b = a + 1;
		while (b < m && same_server(w[b], w[a]))
			b++;
		group_verdict(s, w, a, b);
		a = b;
	}
	free(w);
}

void lts_appwait_idle_notes(struct lt_snapshot *s)
{
	struct lt_verdict *v = NULL;
	for (size_t i = 0; i < s->n_verdicts && !v; i++)
		if (s->verdicts[i].kind == LT_VERDICT_IDLE)
			v = &s->verdicts[i];
	if (!v)
		return;
	for (size_t i = 0; i < s->n_threads; i++) {
		const struct lt_thread *t = &s->threads[i];
		if (t->app_class != LT_APPWAIT_IDLE || !asleep(t))
			continue;
		lt_strlist_add(&v->evidence, "process %d (%s) waits for %s%s%s%s", (int)t->app_pid, t->app,
			       t->app_what, t->app_title ? "; title '" : "", t->app_title ? t->app_title : "",
			       t->app_title ? "'" : "");
		if (title_in_xact(t))
			lt_strlist_add(&v->evidence, "process %d is idle inside a transaction: it keeps the "
				       "transaction's locks until its client ends it, and other sessions may "
				       "wait for them", (int)t->app_pid);
	}
}

/* ---- JSON ---- */

void lts_appwait_json(struct jw *w, const struct lt_thread *t)
{
	if (!jw_kobject_or_null(w, "app_wait", t->app_class != LT_APPWAIT_NONE))
		return;
	jw_kstr(w, "app", t->app);
	jw_kstr(w, "class", lt_appwait_class_name((enum lt_appwait_class)t->app_class));
	jw_kstr(w, "what", t->app_what);
	jw_kstr(w, "kind", t->app_kind);
	jw_kstr(w, "via", t->app_via);
	jw_kstr(w, "title", t->app_title);
	jw_kint(w, "pid", t->app_pid);
	jw_kint(w, "server", t->app_server);
	jw_end(w);
}

void lts_appwait_from_json(struct lt_thread *t, struct lt_snapshot *s, const struct rp_json *j)
{
	const char *cls = rp_json_str(rp_json_get(j, "class"));
	if (!cls)
		return;
	t->app_class = !strcmp(cls, "lock") ? LT_APPWAIT_LOCK : !strcmp(cls, "idle") ? LT_APPWAIT_IDLE
										       : LT_APPWAIT_NONE;
	if (!t->app_class)
		return;
	t->app = lts_json_own_str(s, rp_json_get(j, "app"));
	t->app_what = lts_json_own_str(s, rp_json_get(j, "what"));
	t->app_kind = lts_json_own_str(s, rp_json_get(j, "kind"));
	if (!t->app || !t->app_what || !t->app_kind) {
		t->app_class = LT_APPWAIT_NONE; /* unusable: as if absent */
		return;
	}
	const char *via = rp_json_str(rp_json_get(j, "via"));
	const char *title = rp_json_str(rp_json_get(j, "title"));
	t->app_via = via ? lts_strdup(via) : NULL;
	t->app_title = title ? lts_strdup(title) : NULL;
	t->app_pid = (pid_t)rp_json_int(rp_json_get(j, "pid"), 0);
	t->app_server = (pid_t)rp_json_int(rp_json_get(j, "server"), 0);
}
