// SPDX-License-Identifier: MIT
/*
 * The facts the report and the timeline writers take from the snapshots a
 * trace stores (docs/snapshot.md): each thread's wait, lock and owner,
 * where in its code it is, the verdicts, the lock and thread names of the
 * lock models and runtimes.  The JSON is read by the one reader of that
 * schema, lt_snapshot_from_json (snapshot_load.c); this file only picks
 * from its struct lt_snapshot.
 */
#include <stdlib.h>
#include <string.h>
#include "demangle.h"
#include "lockmodel.h"
#include "rt_idle.h"
#include "snapfacts.h"
#include "snapshot.h"
#include "snapshot_int.h"
#include "u64map.h"
#include "waitfor.h"

/* The innermost frame in the program's own module: where in its code the
 * thread is ("worker (tests/workloads/demo.c:215)"). */
static char *own_frame(const struct lt_thread *th, const char *exe_base)
{
	for (size_t i = 0; i < th->n_frames; i++) {
		const struct lt_frame *f = &th->frames[i];
		if (!lt_frame_own(f, exe_base))
			continue;
		char buf[512], dm[256];
		const char *func = lt_func_display(f->func, dm, sizeof(dm)); /* OCaml names readable */
		if (f->file && f->line > 0)
			snprintf(buf, sizeof(buf), "%s (%s:%d)", func, f->file, f->line);
		else
			snprintf(buf, sizeof(buf), "%s", func);
		return strdup(buf);
	}
	return NULL;
}

/* The innermost frame of the thread's runtime stack (docs/runtimes.md):
 * "side (/app/worker.py:107)". */
static char *runtime_frame(const struct lt_thread *th)
{
	if (!th->n_rt_frames)
		return NULL;
	const struct lt_rtframe *r = &th->rt_frames[0];
	char buf[512];
	if (r->line > 0)
		snprintf(buf, sizeof(buf), "%s (%s:%d)", r->func ? r->func : "?", r->file ? r->file : "?", r->line);
	else
		snprintf(buf, sizeof(buf), "%s (%s)", r->func ? r->func : "?", r->file ? r->file : "?");
	return strdup(buf);
}

/* A Java thread in Thread.sleep(): its innermost Java frame is one of the
 * JDK's sleeps (lt_rt_java_sleep_func).  Where it sleeps: the first frame
 * outside java.lang.Thread, "J1.sleep (J1.java:9)", or "" if none; NULL
 * when it is not in Thread.sleep(). */
static char *java_sleep_at(const struct lt_thread *th)
{
	if (!th->rt_lang || strcmp(th->rt_lang, "java") || !th->n_rt_frames ||
	    !lt_rt_java_sleep_func(th->rt_frames[0].func))
		return NULL;
	for (size_t i = 1; i < th->n_rt_frames; i++) {
		const struct lt_rtframe *r = &th->rt_frames[i];
		if (!r->func || !strncmp(r->func, "java.lang.Thread.", 17))
			continue;
		char buf[512];
		if (r->line > 0)
			snprintf(buf, sizeof(buf), "%s (%s:%d)", r->func, r->file ? r->file : "?", r->line);
		else
			snprintf(buf, sizeof(buf), "%s", r->func);
		return strdup(buf);
	}
	return strdup("");
}

#define MAX_FUNCS 24

/* Every function of the program's own code on the stack (lt_own_func),
 * once: what code the thread is running, to compare threads by. */
static void own_funcs(const struct lt_thread *th, const char *exe_base, struct rp_snap_thread *t)
{
	for (size_t i = 0; i < lt_own_places(th) && t->n_funcs < MAX_FUNCS; i++) {
		const char *func = lt_own_func(th, i, exe_base);
		if (!func)
			continue;
		int dup = 0;
		for (size_t k = 0; k < t->n_funcs; k++)
			dup |= !strcmp(t->funcs[k], func);
		if (dup)
			continue;
		if (!t->funcs && !(t->funcs = calloc(MAX_FUNCS, sizeof(*t->funcs))))
			return;
		if ((t->funcs[t->n_funcs] = strdup(func)))
			t->n_funcs++;
	}
}

static char *dup0(const char *s)
{
	return s ? strdup(s) : NULL;
}

/* The futex call the thread is in, and the runtime lock (of S) it belongs
 * to. */
static void futex_facts(const struct lt_snapshot *s, const struct lt_futex *f, struct rp_snap_thread *t)
{
	char op[96];
	t->has_futex = 1;
	t->uaddr = f->uaddr;
	t->is_wait = f->is_wait;
	t->is_pi = f->is_pi;
	t->lock = dup0(f->lock_sym);
	if (f->cmd >= 0) /* as the snapshot printed it (op_name) */
		lt_futex_op_str(f->op, op, sizeof(op));
	else
		snprintf(op, sizeof(op), "FUTEX2_WAIT%s", f->private_ ? "_PRIVATE" : "");
	t->op_name = strdup(op);
	t->op = f->op;
	t->expected_ok = 1;
	t->expected = f->expected;
	t->word_ok = f->word_ok;
	t->word = f->word;
	t->owner_kind = dup0(lt_owner_kind_name(f->owner_kind));
	t->owner = f->owner;
	/* a process-shared mutex held by a thread of another process: a
	 * report of a trace of both resolves that thread */
	if (f->owner_tgid > 0 && !t->owner) {
		t->owner = f->mutex_owner;
		t->owner_pid = f->owner_tgid;
	}
	t->owner_gone = f->owner_gone;
	t->gone_tid = f->gone_tid;
	t->gone_parent = f->gone_parent;
	t->lock_kind = dup0(f->lock_kind);
	t->lock_base = f->lock_base;
	t->lock_name = dup0(f->lock_name);
	t->lock_state = dup0(f->lock_state);
	t->cond_signal = f->cond_signal;
	if (f->rtlock && f->rtlock <= s->n_rtlocks) {
		t->runtime = 1;
		t->rt_how = dup0(s->rtlocks[f->rtlock - 1].holder_how);
	}
}

/* The fd the thread reads or writes. */
static void io_facts(const struct lt_fd *io, struct rp_snap_thread *t)
{
	t->io_fd = io->fd;
	t->io_socket = io->kind == LT_FD_SOCKET;
	t->io_pipe = io->kind == LT_FD_PIPE;
	t->io_fifo = io->kind == LT_FD_FIFO;
}

/* The file_lock edge of a thread's wait-for edges, whose "what" reads
 * "FLOCK WRITE lock on PATH (RANGE, inode ...)". */
static void file_lock_facts(const struct lt_waitfor *wf, struct rp_snap_thread *t)
{
	t->fl_fd = -1;
	for (size_t i = 0; wf && i < wf->n_edges; i++) {
		const struct lt_wf_edge *e = &wf->edges[i];
		if (e->kind == LT_WF_TIMER && e->n_pids && !t->poll_holder) {
			t->poll_holder = e->pids[0];
			t->poll_what = dup0(e->evidence);
		}
		if (e->kind != LT_WF_FILE_LOCK)
			continue;
		t->fl_fd = e->fd;
		t->fl_what = dup0(e->what);
		if (e->n_pids)
			t->fl_holder = e->pids[0];
		const char *on = t->fl_what ? strstr(t->fl_what, " lock on ") : NULL;
		const char *end = on ? strrchr(on, '(') : NULL;
		if (on && end && end > on + 10 && strncmp(on + 9, "? (", 3))
			t->fl_path = strndup(on + 9, (size_t)(end - 1 - (on + 9)));
		return;
	}
}

static void thread_facts(const struct lt_snapshot *s, size_t i, const char *exe_base, struct rp_snap_thread *t)
{
	const struct lt_thread *th = &s->threads[i];
	memset(t, 0, sizeof(*t));
	t->tid = th->tid;
	t->pid = s->thread_pid ? s->thread_pid[i] : s->pid;
	snprintf(t->comm, sizeof(t->comm), "%.*s", (int)sizeof(t->comm) - 1, th->comm); /* as written, cut */
	t->state = th->state ? th->state : '?';
	t->blocked_s = th->idle_s;
	t->nr = th->sc.nr;
	t->args[0] = th->sc.args[0];
	t->args[1] = th->sc.args[1];
	t->sc_name = dup0(th->sc_name);
	t->detail = dup0(th->detail);
	t->moved = th->moved;
	/* a lock-acquire function on its stack (lock_glibc.c: a lock built on a
	 * condition variable): the snapshot counts the wait as a lock wait */
	t->acquire = th->acquire != NULL;
	if (th->futex.uaddr)
		futex_facts(s, &th->futex, t);
	io_facts(&th->fdw.io, t);
	t->where = runtime_frame(th);
	if (!t->where)
		t->where = own_frame(th, exe_base);
	own_funcs(th, exe_base, t);
	t->rt_name = dup0(th->rt_name);
	t->java_sleep = java_sleep_at(th);
	t->timed = lts_wait_timed(s, th, &t->timed_left_s);
	file_lock_facts(th->wf, t);
}

static void thread_clear(struct rp_snap_thread *t)
{
	char *owned[] = { t->sc_name, t->detail, t->lock, t->op_name, t->owner_kind, t->lock_kind,
			  t->lock_name, t->lock_state, t->rt_how, t->where, t->rt_name, t->fl_path, t->fl_what,
			  t->poll_what, t->java_sleep };
	for (size_t i = 0; i < sizeof(owned) / sizeof(owned[0]); i++)
		free(owned[i]);
	for (size_t i = 0; i < t->n_funcs; i++)
		free(t->funcs[i]);
	free(t->funcs);
}

static int cmp_thread(const void *a, const void *b)
{
	const struct rp_snap_thread *x = a, *y = b;
	return (x->tid > y->tid) - (x->tid < y->tid);
}

static int verdict_facts(const struct lt_verdict *v, struct rp_snap_verdict *o)
{
	memset(o, 0, sizeof(*o));
	o->kind = dup0(lt_verdict_kind_name(v->kind));
	o->summary = dup0(v->summary);
	o->owner = v->owner;
	if ((v->evidence.n && !(o->evidence = calloc(v->evidence.n, sizeof(*o->evidence)))) ||
	    (v->n_tids && !(o->tids = calloc(v->n_tids, sizeof(*o->tids)))) ||
	    (v->n_locks && !(o->locks = calloc(v->n_locks, sizeof(*o->locks)))))
		return -1;
	for (size_t i = 0; i < v->evidence.n; i++)
		if ((o->evidence[o->n_evidence] = dup0(v->evidence.v[i])))
			o->n_evidence++;
	for (size_t i = 0; i < v->n_tids; i++)
		o->tids[o->n_tids++] = v->tids[i];
	for (size_t i = 0; i < v->n_locks; i++)
		o->locks[o->n_locks++] = v->locks[i];
	return 0;
}

static void verdict_clear(struct rp_snap_verdict *v)
{
	free(v->kind);
	free(v->summary);
	for (size_t i = 0; i < v->n_evidence; i++)
		free(v->evidence[i]);
	free(v->evidence);
	free(v->tids);
	free(v->locks);
}

void rp_snapshot_clear(struct rp_snapshot *s)
{
	for (size_t i = 0; i < s->n_threads; i++)
		thread_clear(&s->threads[i]);
	free(s->threads);
	for (size_t i = 0; i < s->n_verdicts; i++)
		verdict_clear(&s->verdicts[i]);
	free(s->verdicts);
	free(s->rtranges);
	free(s->occasion);
	lt_strlist_free(&s->incomplete);
	memset(s, 0, sizeof(*s));
}

static int facts_of(const struct lt_snapshot *ls, const char *exe_base, struct rp_snapshot *out)
{
	out->taken_monotonic_ns = ls->taken_monotonic_ns;
	out->pid = ls->pid;
	if (ls->occasion && !(out->occasion = strdup(ls->occasion)))
		return -1;
	if (ls->n_threads && !(out->threads = calloc(ls->n_threads, sizeof(*out->threads))))
		return -1;
	for (size_t i = 0; i < ls->n_threads; i++) {
		if (ls->threads[i].tid <= 0)
			continue;
		thread_facts(ls, i, exe_base, &out->threads[out->n_threads++]);
	}
	if (out->n_threads)
		qsort(out->threads, out->n_threads, sizeof(*out->threads), cmp_thread);
	if (ls->n_rtlocks && !(out->rtranges = calloc(ls->n_rtlocks, sizeof(*out->rtranges))))
		return -1;
	for (size_t i = 0; i < ls->n_rtlocks; i++) {
		const struct lt_rtlock *l = &ls->rtlocks[i];
		if (l->base && l->size > 0 && l->size < 65536)
			out->rtranges[out->n_rtranges++] = (struct rp_snap_rtrange){ l->base, l->size };
	}
	if (ls->n_verdicts && !(out->verdicts = calloc(ls->n_verdicts, sizeof(*out->verdicts))))
		return -1;
	for (size_t i = 0; i < ls->n_verdicts; i++)
		if (verdict_facts(&ls->verdicts[i], &out->verdicts[out->n_verdicts++]))
			return -1;
	static const char inc[] = "the snapshot is incomplete: ";
	for (size_t i = 0; i < ls->notes.n; i++) {
		const char *n = ls->notes.v[i], *at = strstr(n, inc);
		if (at && lt_strlist_add(&out->incomplete, "%.*s%s", (int)(at - n), n, at + sizeof(inc) - 1))
			return -1;
	}
	return 0;
}

int rp_snapshot_from_json(const char *json, size_t len, const char *exe_base, struct rp_snapshot *out,
			  char *err, size_t errlen)
{
	struct lt_snapshot *ls;
	memset(out, 0, sizeof(*out));
	int r = lt_snapshot_from_json(json, len, &ls, err, errlen);
	if (r)
		return r;
	if (facts_of(ls, exe_base, out)) {
		rp_snapshot_clear(out);
		snprintf(err, errlen, "out of memory");
		r = -1;
	}
	lt_snapshot_free(ls);
	return r;
}

const struct rp_snap_thread *rp_snapshot_find(const struct rp_snapshot *s, int32_t tid)
{
	size_t lo = 0, hi = s->n_threads;
	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;
		if (s->threads[mid].tid == tid)
			return &s->threads[mid];
		if (s->threads[mid].tid < tid)
			lo = mid + 1;
		else
			hi = mid;
	}
	return NULL;
}

/* A copy of s for key in map, in place of (and freeing) the one there: 0,
 * or -1 out of memory. */
static int put_copy(struct lt_u64map *map, uint64_t key, const char *s)
{
	char *v = strdup(s), *old = lt_u64map_get(map, key);
	if (!v || lt_u64map_put(map, key, v)) {
		free(v);
		return -1;
	}
	free(old);
	return 0;
}

/* The lock models' name of the futex word th waits on, into map unless
 * it has one: "OCaml runtime lock caml_master_lock (caml_master_lock+0x58)". */
static int lock_name_of(const struct lt_thread *th, struct lt_u64map *map)
{
	const struct lt_futex *f = &th->futex;
	if (!f->uaddr || lt_u64map_get(map, f->uaddr) || !f->lock_kind)
		return 0;
	char buf[256];
	if (f->lock_name)
		snprintf(buf, sizeof(buf), "%s %s (%s)", f->lock_kind, f->lock_name, f->lock_sym ? f->lock_sym : "?");
	else
		snprintf(buf, sizeof(buf), "%s %s", f->lock_kind, f->lock_sym ? f->lock_sym : "?");
	return put_copy(map, f->uaddr, buf);
}

/* The runtime's name of th, and the file it waits to lock. */
static int thread_name_of(const struct lt_thread *th, struct lt_u64map *map)
{
	struct rp_snap_thread ft = { .fl_fd = -1 };
	int r = 0;
	file_lock_facts(th->wf, &ft);
	if (th->tid > 0 && th->tid <= 4194304 && ft.fl_path && ft.fl_fd >= 0)
		r = put_copy(map, RP_FILE_KEY((uint32_t)th->tid, ft.fl_fd), ft.fl_path);
	free(ft.fl_path);
	free(ft.fl_what);
	if (r || th->tid <= 0 || th->tid > 4194304 || !th->rt_name || !th->rt_name[0])
		return r;
	return put_copy(map, (uint64_t)th->tid, th->rt_name);
}

int rp_snapshot_names(const char *json, size_t len, struct lt_u64map *locks, struct lt_u64map *threads)
{
	struct lt_snapshot *s;
	char err[160];
	if (lt_snapshot_from_json(json, len, &s, err, sizeof(err)))
		return -1;
	int r = 0;
	for (size_t i = 0; !r && i < s->n_threads; i++)
		r = (locks ? lock_name_of(&s->threads[i], locks) : 0) ||
		    (threads ? thread_name_of(&s->threads[i], threads) : 0);
	lt_snapshot_free(s);
	return r ? -1 : 0;
}

size_t rp_snapshot_extents(const char *json, size_t len, const char *kind, struct rp_extent *out,
			   size_t max)
{
	struct lt_snapshot *s;
	char err[160];
	size_t n = 0;
	if (lt_snapshot_from_json(json, len, &s, err, sizeof(err)))
		return 0;
	for (size_t i = 0; i < s->n_rtlocks && n < max; i++) {
		const struct lt_rtlock *l = &s->rtlocks[i];
		if (!l->kind || strcmp(l->kind, kind) || !l->size)
			continue;
		struct rp_extent *o = &out[n++];
		o->pid = s->pid;
		o->base = l->base;
		o->size = l->size;
		snprintf(o->what, sizeof(o->what), "%s %s%s%s%s", l->kind, l->name ? l->name : "?",
			 l->version ? " (" : "", l->version ? l->version : "", l->version ? ")" : "");
	}
	lt_snapshot_free(s);
	return n;
}

size_t rp_snapshot_holders(const char *json, size_t len, struct rp_holder *out, size_t max)
{
	struct lt_snapshot *s;
	char err[160];
	size_t n = 0;
	if (lt_snapshot_from_json(json, len, &s, err, sizeof(err)))
		return 0;
	for (size_t i = 0; i < s->n_rtlocks && n < max; i++) {
		const struct lt_rtlock *l = &s->rtlocks[i];
		if (l->holder <= 0 || l->holder > 4194304 || !l->kind)
			continue;
		struct rp_holder *o = &out[n++];
		o->tid = (uint32_t)l->holder;
		snprintf(o->what, sizeof(o->what), "%s%s%s", l->kind, l->name ? " " : "", l->name ? l->name : "");
	}
	lt_snapshot_free(s);
	return n;
}
