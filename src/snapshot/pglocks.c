// SPDX-License-Identifier: MIT
/* PostgreSQL's heavyweight-lock holders, read from the server's shared
 * memory (appwait.h, docs/appwait.md).
 *
 * A waiting backend's PGPROC (the global MyProc, exported by the postgres
 * executable) says which LOCK it sleeps on (waitLock) and in which mode
 * (waitLockMode).  The LOCK lists one PROCLOCK per backend that holds or
 * wants it (procLocks, a circular list through PROCLOCK.lockLink); a
 * PROCLOCK whose holdMask has a mode that conflicts with the wanted one,
 * of another lock group, is a holder, and its PGPROC says the holder's pid.
 * The shared memory is mapped at the same address in every backend (they
 * are forked from the postmaster), so the waiter's own memory has it all.
 *
 * The layouts are PostgreSQL 15's on x86-64, from its server headers
 * (postgresql-server-dev-15: storage/proc.h, storage/lock.h): the offsets
 * below, which a unit test (test_appwait.c) compiles those headers to
 * check.  Nothing is trusted unread: each read is checked against what it
 * must be (MyProc->pid is the backend's pid, the LOCK is waited on in the
 * waiter's mode, each PROCLOCK points back at that LOCK, a holder's pid is
 * a live child of the waiter's postmaster); on any mismatch the holder is
 * "unknown", with the query that finds it. */
#include <errno.h>
#include <inttypes.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "appwait.h"
#include "snapshot.h"
#include "symbols.h"
#include "waitfor.h"
#include "snapshot_int.h"

const struct lt_pg_layout lt_pg15_layout = {
	.proc_pid = 64, .proc_waitlock = 112, .proc_waitmode = 128, .proc_groupleader = 840, .proc_waitstart = 136,
	.lock_tag = 0, .lock_grantmask = 16, .lock_waitmask = 20, .lock_proclocks = 24,
	.pl_mylock = 0, .pl_myproc = 8, .pl_groupleader = 16, .pl_holdmask = 24, .pl_locklink = 32,
	.shmq_next = 8,
};
#define L lt_pg15_layout
#define PROC_PID L.proc_pid
#define PROC_WAITLOCK L.proc_waitlock
#define PROC_WAITMODE L.proc_waitmode
#define PROC_GROUPLEADER L.proc_groupleader
#define LOCK_TAG L.lock_tag /* 16 bytes: field1..3 (u32), field4 (u16), type, method */
#define LOCK_GRANTMASK L.lock_grantmask
#define LOCK_WAITMASK L.lock_waitmask
#define LOCK_PROCLOCKS L.lock_proclocks /* SHM_QUEUE { prev, next } */
#define PL_MYLOCK L.pl_mylock
#define PL_MYPROC L.pl_myproc
#define PL_GROUPLEADER L.pl_groupleader
#define PL_HOLDMASK L.pl_holdmask
#define PL_LOCKLINK L.pl_locklink
#define SHMQ_NEXT L.shmq_next

#define MAX_PROCLOCKS 256

static const char *const mode_names[] = {
	"NoLock", "AccessShareLock", "RowShareLock", "RowExclusiveLock", "ShareUpdateExclusiveLock",
	"ShareLock", "ShareRowExclusiveLock", "ExclusiveLock", "AccessExclusiveLock",
};

/* The modes each mode conflicts with (the table "Conflicting Lock Modes"
 * of PostgreSQL's documentation), as a mask of 1 << mode. */
static unsigned conflicts(int mode)
{
#define B(m) (1u << (m))
	switch (mode) {
	case 1: return B(8);
	case 2: return B(7) | B(8);
	case 3: return B(5) | B(6) | B(7) | B(8);
	case 4: return B(4) | B(5) | B(6) | B(7) | B(8);
	case 5: return B(3) | B(4) | B(6) | B(7) | B(8);
	case 6: return B(3) | B(4) | B(5) | B(6) | B(7) | B(8);
	case 7: return B(2) | B(3) | B(4) | B(5) | B(6) | B(7) | B(8);
	case 8: return B(1) | B(2) | B(3) | B(4) | B(5) | B(6) | B(7) | B(8);
	default: return 0;
	}
#undef B
}

const char *lt_pg_mode_name(int mode)
{
	return mode >= 0 && mode <= 8 ? mode_names[mode] : "?";
}

size_t lt_pg_locktag_str(const unsigned char tag[16], char *buf, size_t len)
{
	uint32_t f1, f2, f3;
	uint16_t f4;
	memcpy(&f1, tag, 4);
	memcpy(&f2, tag + 4, 4);
	memcpy(&f3, tag + 8, 4);
	memcpy(&f4, tag + 12, 2);
	switch (tag[14]) {
	case 0: return (size_t)snprintf(buf, len, "relation %u of database %u", f2, f1);
	case 1: return (size_t)snprintf(buf, len, "extension of relation %u of database %u", f2, f1);
	case 3: return (size_t)snprintf(buf, len, "page %u of relation %u of database %u", f3, f2, f1);
	case 4:
		return (size_t)snprintf(buf, len, "tuple (%u,%u) of relation %u of database %u", f3, f4, f2,
					f1);
	case 5: return (size_t)snprintf(buf, len, "transaction %u", f1);
	case 6: return (size_t)snprintf(buf, len, "virtual transaction %u/%u", f1, f2);
	case 7: return (size_t)snprintf(buf, len, "speculative token %u of transaction %u", f2, f1);
	case 8: return (size_t)snprintf(buf, len, "object %u/%u/%u of database %u", f2, f3, f4, f1);
	case 10: return (size_t)snprintf(buf, len, "advisory lock %u/%u/%u", f1, f2, f3);
	default: return (size_t)snprintf(buf, len, "lock of type %u", tag[14]);
	}
}

#define RD(addr, var)                                                                      \
	do {                                                                               \
		if (rd(arg, (addr), &(var), sizeof(var))) {                                \
			snprintf(why, whylen, "could not read the server's memory at 0x%" PRIx64, \
				 (uint64_t)(addr));                                        \
			return -1;                                                         \
		}                                                                          \
	} while (0)

int lt_pg_holders(lt_pg_read_fn rd, void *arg, uint64_t myproc, pid_t pid, struct lt_pg_wait *out, char *why,
		  size_t whylen)
{
	memset(out, 0, sizeof(*out));
	int32_t ppid = 0, mode = 0;
	uint64_t lock = 0, leader = 0;
	if (!myproc) {
		snprintf(why, whylen, "MyProc is NULL in process %d", (int)pid);
		return -1;
	}
	RD(myproc + PROC_PID, ppid);
	if (ppid != pid) {
		snprintf(why, whylen, "the layout does not match: MyProc->pid reads %d, not %d", (int)ppid,
			 (int)pid);
		return -1;
	}
	RD(myproc + PROC_WAITLOCK, lock);
	RD(myproc + PROC_WAITMODE, mode);
	RD(myproc + PROC_GROUPLEADER, leader);
	if (!lock) {
		snprintf(why, whylen, "MyProc->waitLock is NULL: process %d no longer waits", (int)pid);
		return -1;
	}
	if (mode < 1 || mode > 8) {
		snprintf(why, whylen, "the layout does not match: waitLockMode reads %d", (int)mode);
		return -1;
	}
	unsigned char tag[16];
	uint32_t grant = 0, wmask = 0;
	RD(lock + LOCK_TAG, tag);
	RD(lock + LOCK_GRANTMASK, grant);
	RD(lock + LOCK_WAITMASK, wmask);
	if (!(wmask & (1u << mode)) || (tag[15] != 1 && tag[15] != 2) || tag[14] > 10) {
		snprintf(why, whylen, "the layout does not match: the LOCK at 0x%" PRIx64 " has waitMask 0x%x "
			 "(mode %d not in it), lock method %u, type %u", lock, wmask, (int)mode, tag[15], tag[14]);
		return -1;
	}
	out->lock = lock;
	out->mode = mode;
	/* when the wait began, by the server's clock (an atomic 64-bit value) */
	int64_t ws = 0;
	if (!rd(arg, myproc + L.proc_waitstart, &ws, sizeof(ws)) && ws > 0)
		out->wait_start = ws;
	out->grant_mask = grant;
	lt_pg_locktag_str(tag, out->tag, sizeof(out->tag));
	uint64_t head = lock + LOCK_PROCLOCKS, q = 0;
	RD(head + SHMQ_NEXT, q);
	unsigned want = conflicts(mode);
	size_t n = 0;
	for (; q && q != head; n++) {
		if (n >= MAX_PROCLOCKS) {
			snprintf(why, whylen, "more than %d PROCLOCKs on one lock, or a broken list",
				 MAX_PROCLOCKS);
			return -1;
		}
		uint64_t pl = q - PL_LOCKLINK, mylock = 0, proc = 0, gl = 0;
		uint32_t hold = 0;
		RD(pl + PL_MYLOCK, mylock);
		if (mylock != lock) {
			snprintf(why, whylen, "the layout does not match: a PROCLOCK of the lock's list points at "
				 "0x%" PRIx64 ", not the lock 0x%" PRIx64, mylock, lock);
			return -1;
		}
		RD(pl + PL_MYPROC, proc);
		RD(pl + PL_GROUPLEADER, gl);
		RD(pl + PL_HOLDMASK, hold);
		RD(q + SHMQ_NEXT, q);
		if (proc == myproc || (leader && gl == leader) || !(hold & want))
			continue;
		int32_t hp = 0;
		uint64_t hw = 0;
		RD(proc + PROC_PID, hp);
		RD(proc + PROC_WAITLOCK, hw);
		if (hp <= 0) {
			snprintf(why, whylen, "a holder's PGPROC has pid %d (a prepared transaction?): SELECT * "
				 "FROM pg_prepared_xacts", (int)hp);
			return -1;
		}
		if (out->n_holders < LT_PG_MAX_HOLDERS) {
			out->holder_waits[out->n_holders] = hw != 0;
			out->holders[out->n_holders] = hp;
			out->hold_masks[out->n_holders] = hold;
			out->n_holders++;
		} else {
			out->more = true;
		}
	}
	if (!q) {
		snprintf(why, whylen, "the LOCK's list of PROCLOCKs is broken (a NULL link)");
		return -1;
	}
	if (!(grant & want)) {
		snprintf(why, whylen, "no mode granted on %s conflicts with %s: the wait is ending (or queued "
			 "behind an earlier waiter)", out->tag, lt_pg_mode_name(mode));
		return -1;
	}
	if (!out->n_holders) {
		snprintf(why, whylen, "%s is granted in a conflicting mode, but no PROCLOCK says to whom "
			 "(a fast-path lock?)", out->tag);
		return -1;
	}
	return 0;
}
#undef RD

static int mem_rd(void *arg, uint64_t addr, void *buf, size_t len)
{
	return lt_mem_read(arg, addr, buf, len);
}

/* The major version of the server from its executable's path
 * (/usr/lib/postgresql/15/bin/postgres), 0 if not said. */
static int pg_major(pid_t pid)
{
	char p[64], exe[PATH_MAX];
	snprintf(p, sizeof(p), "/proc/%d/exe", (int)pid);
	ssize_t n = readlink(p, exe, sizeof(exe) - 1);
	if (n <= 0)
		return 0;
	exe[n] = 0;
	const char *v = strstr(exe, "/postgresql/");
	return v ? atoi(v + 12) : 0;
}

static pid_t parent_of(pid_t pid)
{
	char p[64], raw[512];
	unsigned long long pp;
	snprintf(p, sizeof(p), "/proc/%d/stat", (int)pid);
	if (pid <= 0 || lts_read_small(p, raw, sizeof(raw)) <= 0 || lts_parse_stat_field(raw, 4, &pp))
		return 0;
	return (pid_t)pp;
}

static bool heavyweight(const struct lt_thread *t)
{
	return t->app_class == LT_APPWAIT_LOCK && t->app && !strcmp(t->app, "PostgreSQL") && t->app_via &&
	       !strncmp(t->app_via, "ProcSleep", 9);
}

static int read_setting(struct lt_sym *sym, struct lt_mem *mem, const char *symbol, const char **why);

void lt_appwait_holders(struct lt_snapshot *s, struct lt_sym *sym, struct lt_mem *mem)
{
	for (size_t i = 0; i < s->n_threads; i++) {
		struct lt_thread *t = &s->threads[i];
		if (!heavyweight(t) || t->tid != s->pid)
			continue;
		char why[256] = "";
		struct lt_pg_wait w;
		uint64_t at = 0, myproc = 0;
		int major = pg_major(s->pid);
		int r = -1;
		if (major != 15 && major)
			snprintf(why, sizeof(why), "the shared-memory layout of PostgreSQL %d is not known to "
				 "locktrace (15 only)", major);
		else if (major != 15)
			snprintf(why, sizeof(why), "the server's version is not known (its executable is not "
				 "/usr/lib/postgresql/N/bin/postgres): its shared memory is not read");
		else if (!sym || !mem || lt_sym_lookup(sym, "MyProc", &at, NULL))
			snprintf(why, sizeof(why), "the symbol MyProc was not found in the server's executable");
		else if (lt_mem_read(mem, at, &myproc, sizeof(myproc)))
			snprintf(why, sizeof(why), "could not read MyProc at 0x%" PRIx64, at);
		else
			r = lt_pg_holders(mem_rd, mem, myproc, s->pid, &w, why, sizeof(why));
		for (size_t k = 0; !r && k < w.n_holders; k++) {
			pid_t pp = parent_of(w.holders[k]);
			if (!t->app_server || pp != t->app_server) {
				snprintf(why, sizeof(why), "the holder read, pid %d, is not a process of this server "
					 "(its parent is %d, the waiter's %d): another pid namespace, or the layout "
					 "does not match", (int)w.holders[k], (int)pp, (int)t->app_server);
				r = -1;
			}
		}
		struct lt_wf_edge *e = lt_waitfor_add(t, s->pid, LT_WF_APP_LOCK);
		if (!e)
			return;
		if (r) {
			e->what = lts_asprintf("a PostgreSQL lock");
			e->evidence = lts_asprintf("holder unknown: %s; find it with SELECT pg_blocking_pids(%d), "
						   "or SELECT * FROM pg_locks WHERE NOT granted", why, (int)s->pid);
			continue;
		}
		e->what = lts_asprintf("PostgreSQL %s, %s wanted", w.tag, lt_pg_mode_name(w.mode));
		if (w.wait_start > 0) { /* PostgreSQL's epoch: 2000-01-01 00:00 UTC */
			struct timespec now;
			clock_gettime(CLOCK_REALTIME, &now);
			int64_t us = (int64_t)now.tv_sec * 1000000 + now.tv_nsec / 1000 -
				     (w.wait_start + 946684800LL * 1000000);
			if (us >= 0 && us < 100LL * 365 * 86400 * 1000000)
				e->wait_s = (double)us / 1e6;
		}
		char held[160];
		size_t l = 0;
		held[0] = 0;
		for (size_t k = 0; k < w.n_holders; k++) {
			if (e->n_pids < LT_WF_MAX_PIDS)
				e->pids[e->n_pids++] = w.holders[k];
			else
				e->more_pids = true;
			unsigned m = w.hold_masks[k];
			int top = 0;
			for (int b = 8; b >= 1 && !top; b--)
				if (m & (1u << b) & conflicts(w.mode))
					top = b;
			if (l + 48 < sizeof(held))
				l += (size_t)snprintf(held + l, sizeof(held) - l, "%s%d holds %s", k ? ", " : "",
						      (int)w.holders[k], lt_pg_mode_name(top));
		}
		e->more_pids |= w.more;
		if (w.n_holders == 1)
			e->holder_tid = w.holders[0]; /* a backend is one thread */
		/* a holder that waits for a lock itself sleeps on its latch like
		 * an idle backend: its PGPROC says it is blocked (waitfor.c keeps
		 * this state) */
		bool all_wait = true;
		for (size_t k = 0; k < w.n_holders; k++)
			all_wait &= w.holder_waits[k];
		if (all_wait && !w.more)
			e->pstate = LT_WFP_BLOCKED;
		e->evidence = lts_asprintf("read from the server's shared memory: MyProc->waitLock of %d, the "
					   "LOCK's PROCLOCKs (%s); PostgreSQL 15 layout, checked (MyProc->pid, "
					   "waitMask, each PROCLOCK's lock)%s", (int)s->pid, held,
					   all_wait && !w.more ? "; the holder waits for a PostgreSQL lock itself "
					   "(its PGPROC's waitLock is set)" : "");
		/* the settings that cancel the waiting statement */
		const char *lwhy = NULL, *swhy = NULL;
		int lock_ms = read_setting(sym, mem, "LockTimeout", &lwhy);
		int stmt_ms = read_setting(sym, mem, "StatementTimeout", &swhy);
		lt_pg_lock_timeouts(e, lock_ms, stmt_ms, t->idle_src != LT_IDLE_UNKNOWN ? t->idle_s : -1,
				    lwhy ? lwhy : swhy);
	}
}

/* ---- a backend reading from its client ---- */

/* Drops edge K of W (freeing its strings). */
static void drop_edge(struct lt_waitfor *w, size_t k)
{
	free(w->edges[k].what);
	free(w->edges[k].evidence);
	free(w->edges[k].doing);
	memmove(&w->edges[k], &w->edges[k + 1], (w->n_edges - k - 1) * sizeof(*w->edges));
	w->n_edges--;
}

bool lt_pg_client_reader(const struct lt_thread *t)
{
	return t->app_class == LT_APPWAIT_IDLE && t->app && !strcmp(t->app, "PostgreSQL") && t->app_via &&
	       !strncmp(t->app_via, "secure_read", 11) && t->wf;
}

const char *lt_pg_client_timeout_guc(const char *title)
{
	size_t n = title ? strlen(title) : 0;
	if (title && strstr(title, "idle in transaction"))
		return "idle_in_transaction_session_timeout";
	if (n >= 5 && !strcmp(title + n - 5, " idle"))
		return "idle_session_timeout";
	return "statement_timeout"; /* a statement that reads from its client: COPY FROM STDIN */
}

/* Sets E's timeout: the setting GUC of MS milliseconds (< 0: not read),
 * at most LEFT_S s from the snapshot (>= 0; < 0 not known). */
static void set_timeout(struct lt_wf_edge *e, const char *guc, int ms, double left_s)
{
	snprintf(e->timeout_what, sizeof(e->timeout_what), "%s", guc);
	e->timeout_s = ms < 0 ? -1 : (double)ms / 1e3;
	e->timeout_left_s = ms < 0 ? -1 : left_s;
}

void lt_pg_client_wait(struct lt_thread *t, pid_t server, int timeout_ms, const char *why_unread)
{
	struct lt_waitfor *w = t->wf;
	if (!lt_pg_client_reader(t))
		return;
	size_t sock = w->n_edges, n_sock = 0;
	for (size_t k = 0; k < w->n_edges; k++)
		if (w->edges[k].kind == LT_WF_SOCKET && !lt_wf_connecting(&w->edges[k])) {
			sock = sock < w->n_edges ? sock : k;
			n_sock++;
		}
	if (n_sock != 1)
		return; /* its client's socket is not the one socket it polls: left as read */
	const char *guc = lt_pg_client_timeout_guc(t->app_title);
	/* what is set aside: the latch's signalfd (an interrupt is handled
	 * and the read goes on), the postmaster-death pipe (only the server's
	 * death writes it: its write end is the postmaster's); the timeout,
	 * which sets the latch too, is said on the socket's edge (read or
	 * not known) */
	bool latch = false, pm = false;
	for (size_t k = w->n_edges; k-- > 0;) {
		const struct lt_wf_edge *e = &w->edges[k];
		if (e->kind == LT_WF_UNKNOWN && e->what && strstr(e->what, "[signalfd]"))
			latch = true;
		else if (e->kind == LT_WF_PIPE_READ && lt_wf_edge_obj(e) == LT_WF_OBJ_PIPE && e->n_pids == 1 &&
			 !e->more_pids && server > 0 && e->pids[0] == server)
			pm = true;
		else
			continue;
		drop_edge(w, k);
		if (k < sock)
			sock--;
	}
	struct lt_wf_edge *e = &w->edges[sock];
	bool in_xact = t->app_title && strstr(t->app_title, "in transaction");
	char *what = lts_asprintf("its client's connection (PostgreSQL backend %s, its title says: it waits for "
				  "the client's next command), %s", in_xact ? "idle in transaction" : "reading from "
				  "its client", e->what ? e->what : "socket");
	free(e->what);
	e->what = what;
	/* the server arms the timeout's timer (SIGALRM) when the backend goes
	 * idle, before the read: at or before the time it last ran, so the
	 * timeout less the time it has not run is at most what is left */
	const char *ends = strcmp(guc, "statement_timeout") ? "the server ends the session" : "the server cancels "
			   "the statement";
	char said[320];
	double idle = t->idle_src != LT_IDLE_UNKNOWN ? t->idle_s : -1;
	if (timeout_ms < 0)
		snprintf(said, sizeof(said), "%s could not be read (%s): whether a timeout ends the wait is not "
			 "known", guc, why_unread ? why_unread : "?");
	else if (timeout_ms == 0)
		snprintf(said, sizeof(said), "%s = 0 (read from the backend's memory): no timeout ends it", guc);
	else if (idle >= 0)
		snprintf(said, sizeof(said), "%s = %d (read from the backend's memory): %s when it expires, within "
			 "%.1f s (the timeout less the %.1f s the backend has not run: it armed the timer when it went "
			 "idle)", guc, timeout_ms, ends, (double)timeout_ms / 1e3 - idle > 0
			 ? (double)timeout_ms / 1e3 - idle : 0, idle);
	else
		snprintf(said, sizeof(said), "%s = %d (read from the backend's memory): %s when it expires, within "
			 "%.1f s at most (the timeout's value: when the backend went idle is not known)", guc, timeout_ms,
			 ends, (double)timeout_ms / 1e3);
	char *ev = lts_asprintf("%s; %s%s%s set aside: they do not end a read from the client (an interrupt is "
				"handled and the read goes on; only the server's death writes that pipe); %s",
				e->evidence ? e->evidence : "", latch ? "its latch (signalfd)" : "",
				latch && pm ? " and " : "", pm ? "the postmaster-death pipe" : "", said);
	free(e->evidence);
	e->evidence = ev;
	if (timeout_ms != 0)
		set_timeout(e, guc, timeout_ms, idle < 0 ? -1 : (double)timeout_ms / 1e3 > idle
				? (double)timeout_ms / 1e3 - idle : 0);
}

void lt_pg_lock_timeouts(struct lt_wf_edge *e, int lock_ms, int stmt_ms, double idle_s, const char *why_unread)
{
	if (lock_ms < 0 || stmt_ms < 0) {
		set_timeout(e, "lock_timeout, statement_timeout", -1, -1);
		char *ev = lts_asprintf("%s; lock_timeout and statement_timeout could not be read (%s): whether a "
					"timeout ends the wait is not known", e->evidence ? e->evidence : "",
					why_unread ? why_unread : "?");
		free(e->evidence);
		e->evidence = ev;
		return;
	}
	/* lock_timeout's timer is armed with the wait (PGPROC.waitStart is
	 * its start time); statement_timeout's when the statement began,
	 * before the wait: the time waited, or not run, is at most its age */
	double since = e->wait_s > 0 ? e->wait_s : idle_s;
	double lock_left = lock_ms > 0 && since >= 0 ? (double)lock_ms / 1e3 - since : -1;
	double stmt_left = stmt_ms > 0 && since >= 0 ? (double)stmt_ms / 1e3 - since : -1;
	if (since >= 0) { /* expired: it ends it now */
		lock_left = lock_left > 0 ? lock_left : 0;
		stmt_left = stmt_left > 0 ? stmt_left : 0;
	}
	bool lock_first = lock_ms > 0 && (!stmt_ms || (since >= 0 ? lock_left <= stmt_left : lock_ms <= stmt_ms));
	const char *from = e->wait_s > 0 ? "since PGPROC.waitStart" : "the backend has not run";
	char said[320];
	if (!lock_ms && !stmt_ms)
		snprintf(said, sizeof(said), "lock_timeout = 0, statement_timeout = 0 (read from the backend's "
			 "memory): no timeout ends the wait");
	else if (since >= 0)
		snprintf(said, sizeof(said), "lock_timeout = %d, statement_timeout = %d (read from the backend's "
			 "memory): %s cancels the statement within %.1f s (the timeout less the %.1f s %s)", lock_ms,
			 stmt_ms, lock_first ? "lock_timeout" : "statement_timeout",
			 lock_first ? (lock_left > 0 ? lock_left : 0) : (stmt_left > 0 ? stmt_left : 0), since, from);
	else
		snprintf(said, sizeof(said), "lock_timeout = %d, statement_timeout = %d (read from the backend's "
			 "memory): %s cancels the statement within %.1f s at most (the timeout's value: when the wait "
			 "began is not known)", lock_ms, stmt_ms, lock_first ? "lock_timeout" : "statement_timeout",
			 (double)(lock_first ? lock_ms : stmt_ms) / 1e3);
	char *ev = lts_asprintf("%s; %s", e->evidence ? e->evidence : "", said);
	free(e->evidence);
	e->evidence = ev;
	if (lock_ms || stmt_ms)
		set_timeout(e, lock_first ? "lock_timeout" : "statement_timeout", lock_first ? lock_ms : stmt_ms,
			    lock_first ? lock_left : stmt_left);
}

/* SYMBOL, an int setting (milliseconds) of the server, from its memory:
 * >= 0, or -1 with why. */
static int read_setting(struct lt_sym *sym, struct lt_mem *mem, const char *symbol, const char **why)
{
	uint64_t at = 0;
	int32_t ms = -1;
	if (getenv("LOCKTRACE_NO_PG_SETTINGS")) /* tests: as where the settings cannot be read */
		*why = "LOCKTRACE_NO_PG_SETTINGS is set";
	else if (!sym || !mem || lt_sym_lookup(sym, symbol, &at, NULL))
		*why = "its symbol was not found in the server's executable";
	else if (lt_mem_read(mem, at, &ms, sizeof(ms)) || ms < 0)
		*why = "it could not be read";
	else
		return ms;
	return -1;
}

void lt_appwait_clients(struct lt_snapshot *s, struct lt_sym *sym, struct lt_mem *mem)
{
	for (size_t i = 0; i < s->n_threads; i++) {
		struct lt_thread *t = &s->threads[i];
		if (!lt_pg_client_reader(t) || t->tid != s->pid)
			continue;
		const char *guc = lt_pg_client_timeout_guc(t->app_title);
		const char *var = !strcmp(guc, "idle_in_transaction_session_timeout")
				  ? "IdleInTransactionSessionTimeout"
				  : !strcmp(guc, "idle_session_timeout") ? "IdleSessionTimeout" : "StatementTimeout";
		const char *why = NULL;
		int ms = read_setting(sym, mem, var, &why);
		lt_pg_client_wait(t, t->app_server, ms, why);
	}
}
