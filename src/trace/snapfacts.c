// SPDX-License-Identifier: MIT
/*
 * The facts the report and the timeline writers take from the snapshots a
 * trace stores (docs/snapshot.md), read with json_read.c: each thread's
 * wait, lock and owner, where in its code it is, the verdicts, the lock
 * and thread names of the lock models and runtimes.  Content is taken as
 * it comes: unknown fields are ignored, absent or mistyped ones read as
 * unknown.
 */
#include <stdlib.h>
#include <string.h>
#include "demangle.h"
#include "snapfacts.h"
#include "u64map.h"

/* The innermost frame in the program's own module: where in its code the
 * thread is ("worker (tests/workloads/demo.c:215)"). */
static char *own_frame(const struct rp_json *th, const char *exe_base)
{
	const struct rp_json *frames = rp_json_get(rp_json_get(th, "user_stack"), "frames");
	if (!frames || frames->type != RPJ_ARR || !exe_base || !*exe_base)
		return NULL;
	for (size_t i = 0; i < frames->n; i++) {
		const struct rp_json *f = &frames->items[i];
		const char *mod = rp_json_str(rp_json_get(f, "module"));
		const char *func = rp_json_str(rp_json_get(f, "func"));
		if (!mod || strcmp(mod, exe_base) || !func)
			continue;
		const char *file = rp_json_str(rp_json_get(f, "file"));
		double line = rp_json_num(rp_json_get(f, "line"), -1);
		char buf[512], dm[256];
		func = lt_func_display(func, dm, sizeof(dm)); /* OCaml names readable */
		if (file && line > 0)
			snprintf(buf, sizeof(buf), "%s (%s:%.0f)", func, file, line);
		else
			snprintf(buf, sizeof(buf), "%s", func);
		return strdup(buf);
	}
	return NULL;
}

/* The innermost frame of the thread's runtime stack (docs/runtimes.md):
 * "side (/app/worker.py:107)". */
static char *runtime_frame(const struct rp_json *th)
{
	const struct rp_json *fr = rp_json_get(rp_json_get(th, "runtime"), "frames");
	if (!fr || fr->type != RPJ_ARR || !fr->n)
		return NULL;
	const char *func = rp_json_str(rp_json_get(&fr->items[0], "func"));
	const char *file = rp_json_str(rp_json_get(&fr->items[0], "file"));
	double line = rp_json_num(rp_json_get(&fr->items[0], "line"), -1);
	char buf[512];
	if (line > 0)
		snprintf(buf, sizeof(buf), "%s (%s:%.0f)", func ? func : "?", file ? file : "?", line);
	else
		snprintf(buf, sizeof(buf), "%s (%s)", func ? func : "?", file ? file : "?");
	return strdup(buf);
}

#define MAX_FUNCS 24

/* Every function of the program's own module on the stack, once: what code
 * the thread is running, to compare threads by. */
static void own_funcs(const struct rp_json *th, const char *exe_base, struct rp_snap_thread *t)
{
	const struct rp_json *frames = rp_json_get(rp_json_get(th, "user_stack"), "frames");
	if (!frames || frames->type != RPJ_ARR || !exe_base || !*exe_base)
		return;
	for (size_t i = 0; i < frames->n && t->n_funcs < MAX_FUNCS; i++) {
		const char *mod = rp_json_str(rp_json_get(&frames->items[i], "module"));
		const char *func = rp_json_str(rp_json_get(&frames->items[i], "func"));
		if (!mod || strcmp(mod, exe_base) || !func)
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

static int is_true(const struct rp_json *j)
{
	return j && j->type == RPJ_TRUE;
}

/* The futex call the thread is in (its "futex" object), and the runtime
 * lock (of RT, "runtime_locks") it belongs to. */
static void futex_from_json(const struct rp_json *fx, const struct rp_json *rt, struct rp_snap_thread *t)
{
	t->has_futex = 1;
	t->is_wait = is_true(rp_json_get(fx, "is_wait"));
	t->is_pi = is_true(rp_json_get(fx, "is_pi"));
	t->lock = rp_json_strdup(rp_json_get(fx, "lock"));
	t->op_name = rp_json_strdup(rp_json_get(fx, "op_name"));
	t->op = (uint32_t)rp_json_int(rp_json_get(fx, "op"), 0);
	if (rp_json_is_num(rp_json_get(fx, "expected"))) {
		t->expected_ok = 1;
		t->expected = (uint32_t)rp_json_int(rp_json_get(fx, "expected"), 0);
	}
	if (rp_json_is_num(rp_json_get(fx, "word"))) {
		t->word_ok = 1;
		t->word = (uint32_t)rp_json_int(rp_json_get(fx, "word"), 0);
	}
	t->owner_kind = rp_json_strdup(rp_json_get(fx, "owner_kind"));
	t->owner = (int32_t)rp_json_int(rp_json_get(fx, "owner"), 0);
	/* a process-shared mutex held by a thread of another process: a
	 * report of a trace of both resolves that thread */
	const struct rp_json *op = rp_json_get(fx, "owner_process");
	if (!t->owner && op && op->type == RPJ_OBJ) {
		t->owner = (int32_t)rp_json_int(rp_json_get(op, "tid"), 0);
		t->owner_pid = (int32_t)rp_json_int(rp_json_get(op, "pid"), 0);
	}
	const struct rp_json *og = rp_json_get(fx, "owner_gone");
	if (og && og->type == RPJ_OBJ) {
		t->owner_gone = 1;
		t->gone_tid = (int32_t)rp_json_int(rp_json_get(og, "tid"), 0);
		t->gone_parent = (int32_t)rp_json_int(rp_json_get(og, "forked_from"), 0);
	}
	t->lock_kind = rp_json_strdup(rp_json_get(fx, "lock_kind"));
	t->lock_name = rp_json_strdup(rp_json_get(fx, "lock_name"));
	t->lock_state = rp_json_strdup(rp_json_get(fx, "lock_state"));
	const struct rp_json *sp = rp_json_get(fx, "signal_pending");
	if (sp && (sp->type == RPJ_TRUE || sp->type == RPJ_FALSE))
		t->cond_signal = sp->type == RPJ_TRUE ? 2 : 1;
	const struct rp_json *rl = rp_json_get(fx, "runtime_lock");
	if (rp_json_is_num(rl) && rt && rt->type == RPJ_ARR) {
		double k = rp_json_num(rl, -1);
		if (k >= 0 && k < (double)rt->n) {
			t->runtime = 1;
			t->rt_how = rp_json_strdup(rp_json_get(&rt->items[(size_t)k], "holder_how"));
		}
	}
}

/* The fd the thread reads or writes (its "io_fd" object). */
static void io_from_json(const struct rp_json *io, struct rp_snap_thread *t)
{
	t->io_fd = (int)rp_json_int(rp_json_get(io, "fd"), -1);
	const char *desc = rp_json_str(rp_json_get(io, "desc"));
	const char *kind = rp_json_str(rp_json_get(io, "kind"));
	const char *target = rp_json_str(rp_json_get(io, "target"));
	char buf[512];
	snprintf(buf, sizeof(buf), "%s%s%s", desc ? desc : kind ? kind : "?", target ? " " : "",
		 target ? target : "");
	t->io_desc = strdup(buf);
	t->io_socket = kind && !strcmp(kind, "socket");
	t->io_pipe = kind && !strcmp(kind, "pipe");
	t->io_fifo = kind && !strcmp(kind, "fifo");
}

/* The file_lock edge of a thread's "wait_for", whose "what" reads
 * "FLOCK WRITE lock on PATH (RANGE, inode ...)". */
static void file_lock_from_json(const struct rp_json *wf, struct rp_snap_thread *t)
{
	const struct rp_json *edges = rp_json_get(wf, "edges");
	t->fl_fd = -1;
	for (size_t i = 0; edges && edges->type == RPJ_ARR && i < edges->n; i++) {
		const struct rp_json *e = &edges->items[i];
		const char *k = rp_json_str(rp_json_get(e, "kind"));
		if (!k || strcmp(k, "file_lock"))
			continue;
		t->fl_fd = (int)rp_json_int(rp_json_get(e, "fd"), -1);
		t->fl_what = rp_json_strdup(rp_json_get(e, "what"));
		const struct rp_json *p = rp_json_get(e, "pids");
		if (p && p->type == RPJ_ARR && p->n)
			t->fl_holder = (int32_t)rp_json_int(&p->items[0], 0);
		const char *on = t->fl_what ? strstr(t->fl_what, " lock on ") : NULL;
		const char *end = on ? strrchr(on, '(') : NULL;
		if (on && end && end > on + 10 && strncmp(on + 9, "? (", 3))
			t->fl_path = strndup(on + 9, (size_t)(end - 1 - (on + 9)));
		return;
	}
}

static void thread_from_json(const struct rp_json *th, const char *exe_base, const struct rp_json *rt,
			     struct rp_snap_thread *t)
{
	memset(t, 0, sizeof(*t));
	t->tid = (int32_t)rp_json_int(rp_json_get(th, "tid"), 0);
	const char *comm = rp_json_str(rp_json_get(th, "comm"));
	snprintf(t->comm, sizeof(t->comm), "%s", comm ? comm : "");
	const char *st = rp_json_str(rp_json_get(th, "state"));
	t->state = st && st[0] ? st[0] : '?';
	t->blocked_s = rp_json_num(rp_json_get(th, "blocked_s"), -1);
	const struct rp_json *sc = rp_json_get(th, "syscall");
	t->nr = (long)rp_json_int(rp_json_get(sc, "nr"), -1);
	const struct rp_json *args = rp_json_get(sc, "args");
	for (size_t i = 0; args && args->type == RPJ_ARR && i < 2 && i < args->n; i++)
		t->args[i] = rp_json_addr0(&args->items[i]);
	t->sc_name = rp_json_strdup(rp_json_get(sc, "name"));
	t->wait = rp_json_strdup(rp_json_get(th, "wait"));
	t->detail = rp_json_strdup(rp_json_get(th, "detail"));
	t->moved = is_true(rp_json_get(th, "moved"));
	/* a lock-acquire function on its stack (lock_glibc.c: a lock built on a
	 * condition variable): the snapshot counts the wait as a lock wait */
	t->acquire = rp_json_str(rp_json_get(th, "acquire")) != NULL;

	const struct rp_json *fx = rp_json_get(th, "futex");
	if (fx && fx->type == RPJ_OBJ && rp_json_addr(rp_json_get(fx, "uaddr"), &t->uaddr))
		futex_from_json(fx, rt, t);
	t->io_fd = -1;
	const struct rp_json *io = rp_json_get(th, "io_fd");
	if (io && io->type == RPJ_OBJ)
		io_from_json(io, t);
	t->where = runtime_frame(th);
	if (!t->where)
		t->where = own_frame(th, exe_base);
	own_funcs(th, exe_base, t);
	t->rt_name = rp_json_strdup(rp_json_get(rp_json_get(th, "runtime"), "name"));
	file_lock_from_json(rp_json_get(th, "wait_for"), t);
}

static void thread_clear(struct rp_snap_thread *t)
{
	char *owned[] = { t->sc_name, t->wait, t->detail, t->lock, t->op_name, t->owner_kind, t->lock_kind,
			  t->lock_name, t->lock_state, t->rt_how, t->io_desc, t->where, t->rt_name,
			  t->fl_path, t->fl_what };
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

/* The array KEY of v if it has items, else NULL. */
static const struct rp_json *array_of(const struct rp_json *v, const char *key)
{
	const struct rp_json *a = rp_json_get(v, key);
	return a && a->type == RPJ_ARR && a->n ? a : NULL;
}

static int verdict_from_json(const struct rp_json *v, struct rp_snap_verdict *o)
{
	memset(o, 0, sizeof(*o));
	o->kind = rp_json_strdup(rp_json_get(v, "kind"));
	o->summary = rp_json_strdup(rp_json_get(v, "summary"));
	o->owner = (int32_t)rp_json_int(rp_json_get(v, "owner"), 0);
	const struct rp_json *ev = array_of(v, "evidence"), *tids = array_of(v, "tids"),
			     *locks = array_of(v, "locks");
	if ((ev && !(o->evidence = calloc(ev->n, sizeof(*o->evidence)))) ||
	    (tids && !(o->tids = calloc(tids->n, sizeof(*o->tids)))) ||
	    (locks && !(o->locks = calloc(locks->n, sizeof(*o->locks)))))
		return -1;
	for (size_t i = 0; ev && i < ev->n; i++)
		if ((o->evidence[o->n_evidence] = rp_json_strdup(&ev->items[i])))
			o->n_evidence++;
	for (size_t i = 0; tids && i < tids->n; i++)
		if (rp_json_is_num(&tids->items[i]))
			o->tids[o->n_tids++] = (int32_t)rp_json_int(&tids->items[i], 0);
	for (size_t i = 0; locks && i < locks->n; i++)
		if (rp_json_addr(&locks->items[i], &o->locks[o->n_locks]))
			o->n_locks++;
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
	memset(s, 0, sizeof(*s));
}

int rp_snapshot_from_json(const struct rp_json *doc, const char *exe_base, struct rp_snapshot *out)
{
	memset(out, 0, sizeof(*out));
	const char *schema = rp_json_str(rp_json_get(doc, "schema"));
	const struct rp_json *threads = rp_json_get(doc, "threads");
	/* another major version of the schema may mean other things */
	if (!schema || strncmp(schema, "locktrace.snapshot/1", 20) || !threads ||
	    threads->type != RPJ_ARR)
		return -1;
	out->taken_monotonic_ns = (int64_t)rp_json_int(rp_json_get(doc, "taken_monotonic_ns"), 0);
	out->pid = (int32_t)rp_json_int(rp_json_get(doc, "pid"), 0);
	if (threads->n) {
		out->threads = calloc(threads->n, sizeof(*out->threads));
		if (!out->threads)
			return -1;
	}
	for (size_t i = 0; i < threads->n; i++) {
		if (threads->items[i].type != RPJ_OBJ)
			continue;
		thread_from_json(&threads->items[i], exe_base, rp_json_get(doc, "runtime_locks"),
				 &out->threads[out->n_threads]);
		if (out->threads[out->n_threads].tid > 0)
			out->n_threads++;
		else
			thread_clear(&out->threads[out->n_threads]);
	}
	if (out->n_threads)
		qsort(out->threads, out->n_threads, sizeof(*out->threads), cmp_thread);
	rp_snapshot_procs(doc, out);
	const struct rp_json *rl = rp_json_get(doc, "runtime_locks");
	if (rl && rl->type == RPJ_ARR && rl->n) {
		out->rtranges = calloc(rl->n, sizeof(*out->rtranges));
		if (!out->rtranges) {
			rp_snapshot_clear(out);
			return -1;
		}
		for (size_t i = 0; i < rl->n; i++) {
			struct rp_snap_rtrange *x = &out->rtranges[out->n_rtranges];
			double sz = rp_json_num(rp_json_get(&rl->items[i], "size"), 0);
			if (rp_json_addr(rp_json_get(&rl->items[i], "base"), &x->base) && x->base && sz > 0 &&
			    sz < 65536) {
				x->size = (uint64_t)sz;
				out->n_rtranges++;
			}
		}
	}
	const struct rp_json *vs = rp_json_get(doc, "verdicts");
	if (vs && vs->type == RPJ_ARR && vs->n) {
		out->verdicts = calloc(vs->n, sizeof(*out->verdicts));
		if (!out->verdicts) {
			rp_snapshot_clear(out);
			return -1;
		}
		for (size_t i = 0; i < vs->n; i++) {
			int r = verdict_from_json(&vs->items[i], &out->verdicts[out->n_verdicts]);
			out->n_verdicts++;
			if (r) {
				rp_snapshot_clear(out);
				return -1;
			}
		}
	}
	return 0;
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

/* Calls fn with each item of the array KEY of the snapshot JSON until it
 * returns non-zero.  -1 if the JSON does not parse, else 0. */
static int each_item(const char *json, size_t len, const char *key,
		     int (*fn)(const struct rp_json *item, void *ctx), void *ctx)
{
	char err[128];
	struct rp_json *doc = rp_json_parse(json, len, err, sizeof(err));
	if (!doc)
		return -1;
	const struct rp_json *a = rp_json_get(doc, key);
	for (size_t i = 0; a && a->type == RPJ_ARR && i < a->n; i++)
		if (fn(&a->items[i], ctx))
			break;
	rp_json_free(doc);
	return 0;
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

static int lock_name_of(const struct rp_json *th, void *map)
{
	const struct rp_json *fx = rp_json_get(th, "futex");
	uint64_t uaddr;
	if (!fx || fx->type != RPJ_OBJ || !rp_json_addr(rp_json_get(fx, "uaddr"), &uaddr) || !uaddr ||
	    lt_u64map_get(map, uaddr))
		return 0;
	const char *kind = rp_json_str(rp_json_get(fx, "lock_kind"));
	const char *name = rp_json_str(rp_json_get(fx, "lock_name"));
	const char *sym = rp_json_str(rp_json_get(fx, "lock"));
	if (!kind)
		return 0;
	char buf[256];
	if (name)
		snprintf(buf, sizeof(buf), "%s %s (%s)", kind, name, sym ? sym : "?");
	else
		snprintf(buf, sizeof(buf), "%s %s", kind, sym ? sym : "?");
	return put_copy(map, uaddr, buf);
}

/* Lock names the snapshot's lock models give (docs/locks.md), for the
 * timeline writers: futex word -> "OCaml runtime lock caml_master_lock
 * (caml_master_lock+0x58)".  Values are malloc'd; an address already in
 * MAP keeps its first name (one snapshot is enough). */
int rp_snapshot_lock_names(const char *json, size_t len, struct lt_u64map *map)
{
	return each_item(json, len, "threads", lock_name_of, map);
}

struct holders {
	struct rp_holder *out;
	size_t max, n;
};

static int holder_of(const struct rp_json *l, void *ctx)
{
	struct holders *h = ctx;
	if (h->n >= h->max)
		return 1;
	double tid = rp_json_num(rp_json_get(l, "holder"), 0);
	const char *kind = rp_json_str(rp_json_get(l, "kind"));
	const char *name = rp_json_str(rp_json_get(l, "name"));
	if (tid <= 0 || tid > 4194304 || !kind)
		return 0;
	struct rp_holder *o = &h->out[h->n++];
	o->tid = (uint32_t)tid;
	snprintf(o->what, sizeof(o->what), "%s%s%s", kind, name ? " " : "", name ? name : "");
	return 0;
}

/* The runtime locks' holders a snapshot read (docs/locks.md), for the
 * timeline writers: at most MAX, "OCaml runtime lock caml_master_lock". */
size_t rp_snapshot_holders(const char *json, size_t len, struct rp_holder *out, size_t max)
{
	struct holders h = { out, max, 0 };
	each_item(json, len, "runtime_locks", holder_of, &h);
	return h.n;
}

static int thread_name_of(const struct rp_json *th, void *map)
{
	double tid = rp_json_num(rp_json_get(th, "tid"), 0);
	const char *name = rp_json_str(rp_json_get(rp_json_get(th, "runtime"), "name"));
	struct rp_snap_thread ft = { .fl_fd = -1 };
	file_lock_from_json(rp_json_get(th, "wait_for"), &ft);
	if (tid > 0 && tid <= 4194304 && ft.fl_path && ft.fl_fd >= 0 &&
	    put_copy(map, RP_FILE_KEY((uint32_t)tid, ft.fl_fd), ft.fl_path)) {
		free(ft.fl_path);
		free(ft.fl_what);
		return -1;
	}
	free(ft.fl_path);
	free(ft.fl_what);
	if (tid <= 0 || tid > 4194304 || !name || !name[0])
		return 0;
	return put_copy(map, (uint64_t)tid, name);
}

int rp_snapshot_thread_names(const char *json, size_t len, struct lt_u64map *map)
{
	return each_item(json, len, "threads", thread_name_of, map);
}

/* Which process each thread of a multi-process snapshot belongs to (its
 * "processes" table); the snapshot's pid for all of a one-process one. */
void rp_snapshot_procs(const struct rp_json *doc, struct rp_snapshot *s)
{
	for (size_t i = 0; i < s->n_threads; i++)
		s->threads[i].pid = s->pid;
	const struct rp_json *procs = rp_json_get(doc, "processes");
	if (!procs || procs->type != RPJ_ARR)
		return;
	for (size_t i = 0; i < procs->n; i++) {
		int32_t pid = (int32_t)rp_json_int(rp_json_get(&procs->items[i], "pid"), 0);
		const struct rp_json *tids = rp_json_get(&procs->items[i], "tids");
		for (size_t k = 0; pid > 0 && tids && tids->type == RPJ_ARR && k < tids->n; k++) {
			/* the threads are sorted by tid: rp_snapshot_find's */
			const struct rp_snap_thread *t =
				rp_snapshot_find(s, (int32_t)rp_json_int(&tids->items[k], 0));
			if (t)
				s->threads[t - s->threads].pid = pid;
		}
	}
}
