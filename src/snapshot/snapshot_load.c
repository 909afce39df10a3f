// SPDX-License-Identifier: MIT
/* A snapshot stored in a trace (JSON, docs/snapshot.md) read back into
 * struct lt_snapshot, so that `locktrace snapshot --from TRACE` prints it
 * exactly as `locktrace snapshot -p PID` printed it live.  Fields the
 * printers do not use need not come back; unknown ones are ignored. */
#include <errno.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include "lockmodel.h"
#include "snapshot.h"
#include "json_read.h"
#include "snapshot_int.h"
#include "waitfor_int.h"
#include "golang.h"
#include "appwait.h"
#include "appwait_int.h"

#define J(obj, key) rp_json_get(obj, key)

static void strlist_from(struct lt_strlist *l, const struct rp_json *arr)
{
	for (size_t i = 0; arr && arr->type == RPJ_ARR && i < arr->n; i++) {
		const char *v = rp_json_str(&arr->items[i]);
		if (v)
			lt_strlist_add(l, "%s", v);
	}
}

/* The value whose name(v) is str, from lo to hi; dflt if none. */
static int enum_of(const char *str, const char *(*name)(int), int lo, int hi, int dflt)
{
	for (int v = lo; str && v <= hi; v++)
		if (name(v) && !strcmp(name(v), str))
			return v;
	return dflt;
}

static const char *idle_name(int v) { return lt_idle_source_name((enum lt_idle_source)v); }
static const char *sc_name(int v) { return lt_sc_state_name((enum lt_sc_state)v); }
static const char *wait_name(int v) { return lt_wait_kind_name((enum lt_wait_kind)v); }
static const char *owner_name(int v) { return lt_owner_kind_name((enum lt_owner_kind)v); }
static const char *regs_name(int v) { return lt_regs_source_name((enum lt_regs_source)v); }
static const char *fd_name(int v) { return lt_fd_kind_name((enum lt_fd_kind)v); }
static const char *verdict_name(int v) { return lt_verdict_kind_name((enum lt_verdict_kind)v); }

static void syscall_from(struct lt_thread *t, struct lt_snapshot *s, const struct rp_json *sc)
{
	t->sc.state = enum_of(rp_json_str(J(sc, "state")), sc_name, LT_SC_RUNNING, LT_SC_IN_SYSCALL,
			      LT_SC_UNREADABLE);
	t->sc.nr = (long)rp_json_int(J(sc, "nr"), -1);
	t->sc_name = lts_json_own_str(s, J(sc, "name"));
	const struct rp_json *args = J(sc, "args");
	for (size_t i = 0; args && args->type == RPJ_ARR && i < args->n && i < 6; i++)
		t->sc.args[i] = rp_json_addr0(&args->items[i]);
	t->sc.sp = rp_json_addr0(J(sc, "sp"));
	t->sc.pc = rp_json_addr0(J(sc, "pc"));
}

static bool is_true(const struct rp_json *j)
{
	return j && j->type == RPJ_TRUE;
}

/* The timeout and mutex fields as read from memory, when they were. */
static void futex_memory(struct lt_futex *f, const struct rp_json *j)
{
	const struct rp_json *to = J(j, "timeout"), *mf = J(j, "mutex_fields");

	if (to && to->type == RPJ_OBJ) {
		f->timeout_ptr = 1; /* the address is not stored: only that there was one */
		f->timeout_ok = is_true(J(to, "readable"));
		f->timeout_abs = is_true(J(to, "absolute"));
		f->timeout_sec = rp_json_int(J(to, "sec"), 0);
		f->timeout_nsec = rp_json_int(J(to, "nsec"), 0);
	}
	if (mf && mf->type == RPJ_OBJ) {
		f->mutex_ok = true;
		f->mutex_count = (int32_t)rp_json_int(J(mf, "count"), 0);
		f->mutex_owner = (int32_t)rp_json_int(J(mf, "owner"), 0);
		f->mutex_kind = (int32_t)rp_json_int(J(mf, "kind"), 0);
	}
}

static void futex_from(struct lt_futex *f, struct lt_snapshot *s, const struct rp_json *j)
{
	if (!j || j->type != RPJ_OBJ)
		return;
	f->uaddr = rp_json_addr0(J(j, "uaddr"));
	f->lock_sym = rp_json_strdup(J(j, "lock"));
	f->op = (uint32_t)rp_json_int(J(j, "op"), 0);
	f->cmd = (int)rp_json_int(J(j, "cmd"), -1);
	f->private_ = is_true(J(j, "private"));
	f->clock_realtime = is_true(J(j, "clock_realtime"));
	f->is_wait = is_true(J(j, "is_wait"));
	f->is_pi = is_true(J(j, "is_pi"));
	f->expected = (uint32_t)rp_json_int(J(j, "expected"), 0);
	f->bitset = (uint32_t)rp_json_int(J(j, "bitset"), 0);
	f->join_confirmed = is_true(J(j, "join_confirmed"));
	f->parked = is_true(J(j, "parked_for_ever"));
	futex_memory(f, j);
	const struct rp_json *so = J(j, "shared_object");
	if (so && so->type == RPJ_OBJ) {
		unsigned maj = 0, min = 0;
		const char *dev = rp_json_str(J(so, "dev"));
		f->shared_obj = true;
		if (dev && sscanf(dev, "%u:%u", &maj, &min) == 2) {
			f->obj_major = maj;
			f->obj_minor = min;
		}
		f->obj_ino = (uint64_t)rp_json_int(J(so, "inode"), 0);
		f->obj_off = (uint64_t)rp_json_int(J(so, "offset"), 0);
		f->obj_mappers_known = rp_json_is_num(J(so, "other_mappers"));
		f->obj_mappers = (int)rp_json_int(J(so, "other_mappers"), 0);
		const struct rp_json *mp = J(so, "mapper_pids");
		/* which they were: written since mapper_pids was; without it
		 * they are not known (obj_mapper_pids false) */
		f->obj_mapper_pids = mp && mp->type == RPJ_ARR && f->obj_mappers_known;
		for (size_t i = 0; f->obj_mapper_pids && i < mp->n && i < LT_FUTEX_MAPPERS; i++)
			f->obj_mapper[i] = (pid_t)rp_json_int(&mp->items[i], 0);
		f->obj_zombie_child = (pid_t)rp_json_int(J(so, "zombie_child"), 0);
	}
	f->word_ok = rp_json_is_num(J(j, "word"));
	f->word = (uint32_t)rp_json_int(J(j, "word"), 0);
	f->owner_kind = enum_of(rp_json_str(J(j, "owner_kind")), owner_name, LT_OWNER_NONE,
				LT_OWNER_COND, LT_OWNER_UNKNOWN);
	f->owner_how = rp_json_strdup(J(j, "owner_how"));
	f->owner = (pid_t)rp_json_int(J(j, "owner"), 0);
	f->owner_exited = is_true(J(j, "owner_exited"));
	const struct rp_json *op = J(j, "owner_process");
	if (op && op->type == RPJ_OBJ) { /* a thread of another process */
		const char *oc = rp_json_str(J(op, "comm"));
		f->owner_tgid = (pid_t)rp_json_int(J(op, "pid"), 0);
		if (!f->mutex_ok) /* the owner the word names */
			f->mutex_owner = (int32_t)rp_json_int(J(op, "tid"), 0);
		snprintf(f->owner_comm, sizeof(f->owner_comm), "%s", oc ? oc : "");
	}
	const struct rp_json *og = J(j, "owner_gone");
	if (og && og->type == RPJ_OBJ) {
		const char *gc = rp_json_str(J(og, "comm"));
		f->owner_gone = true;
		f->gone_tid = (pid_t)rp_json_int(J(og, "tid"), 0);
		f->gone_ptr = rp_json_addr0(J(og, "pthread"));
		f->gone_parent = (pid_t)rp_json_int(J(og, "forked_from"), 0);
		snprintf(f->gone_comm, sizeof(f->gone_comm), "%s", gc ? gc : "");
	}
	f->lock_kind = lts_json_own_str(s, J(j, "lock_kind"));
	f->lock_base = rp_json_addr0(J(j, "lock_base"));
	f->lock_name = rp_json_strdup(J(j, "lock_name"));
	f->lock_state = rp_json_strdup(J(j, "lock_state"));
	const struct rp_json *sp = J(j, "signal_pending");
	if (sp && (sp->type == RPJ_TRUE || sp->type == RPJ_FALSE))
		f->cond_signal = sp->type == RPJ_TRUE ? 2 : 1;
	if (rp_json_is_num(J(j, "runtime_lock")))
		f->rtlock = (unsigned)rp_json_int(J(j, "runtime_lock"), 0) + 1;
}

/* The fd of a single-fd wait ("io_fd"). */
static void io_from(struct lt_fd *d, const struct rp_json *j)
{
	if (!j || j->type != RPJ_OBJ)
		return;
	d->fd = (int)rp_json_int(J(j, "fd"), -1);
	d->kind = enum_of(rp_json_str(J(j, "kind")), fd_name, LT_FD_UNKNOWN, LT_FD_FIFO, LT_FD_UNKNOWN);
	d->target = rp_json_strdup(J(j, "target"));
	d->desc = rp_json_strdup(J(j, "desc"));
	d->events = (unsigned)rp_json_int(J(j, "events"), 0);
}

/* A blocking socket read's SO_RCVTIMEO or write's SO_SNDTIMEO
 * ("socket_timeout", "socket_timeout_ms"), when it was read. */
static void sock_timeo_from(struct lt_fdwait *d, const struct rp_json *thread)
{
	const char *v = rp_json_str(J(thread, "socket_timeout"));
	if (!v)
		return;
	d->sock_timeo = !strcmp(v, "none") ? LT_SOCK_TIMEO_NONE :
			!strcmp(v, "set") ? LT_SOCK_TIMEO_SET :
			!strcmp(v, "unknown") ? LT_SOCK_TIMEO_UNKNOWN : LT_SOCK_TIMEO_NOT_READ;
	if (d->sock_timeo == LT_SOCK_TIMEO_SET) /* null: its length not known (HZ) */
		d->sock_timeo_ms = rp_json_int(J(thread, "socket_timeout_ms"), -1);
}

/* The thread as its runtime knows it ("runtime"), or nothing. */
static void runtime_from(struct lt_thread *t, struct lt_snapshot *s, const struct rp_json *rt)
{
	const struct rp_json *fr = J(rt, "frames");
	if (!rt || rt->type != RPJ_OBJ)
		return;
	t->rt_lang = lts_json_own_str(s, J(rt, "lang"));
	t->rt_name = rp_json_strdup(J(rt, "name"));
	t->rt_end = rp_json_strdup(J(rt, "end"));
	if (!fr || fr->type != RPJ_ARR || !fr->n || !(t->rt_frames = calloc(fr->n, sizeof(*t->rt_frames))))
		return;
	for (size_t i = 0; i < fr->n; i++) {
		const struct rp_json *f = &fr->items[i];
		struct lt_rtframe *o = &t->rt_frames[t->n_rt_frames++];
		o->func = rp_json_strdup(J(f, "func"));
		o->file = rp_json_strdup(J(f, "file"));
		o->line = (int)rp_json_int(J(f, "line"), 0);
		o->native = (int)rp_json_int(J(f, "native_frame"), -1);
		o->pc = rp_json_addr0(J(f, "pc"));
		o->kind = lts_json_own_str(s, J(f, "kind"));
		o->bci = (int)rp_json_int(J(f, "bci"), -1);
	}
}

static void frames_from(struct lt_thread *t, const struct rp_json *us)
{
	const struct rp_json *fr = J(us, "frames");
	t->regs_src = enum_of(rp_json_str(J(us, "regs_source")), regs_name, LT_REGS_PROC, LT_REGS_CALLER,
			      LT_REGS_NONE);
	t->ustack_end = rp_json_strdup(J(us, "end"));
	if (!fr || fr->type != RPJ_ARR || !fr->n || !(t->frames = calloc(fr->n, sizeof(*t->frames))))
		return;
	for (size_t i = 0; i < fr->n; i++) {
		const struct rp_json *f = &fr->items[i];
		struct lt_frame *o = &t->frames[t->n_frames++];
		o->pc = rp_json_addr0(J(f, "pc"));
		o->activation = is_true(J(f, "activation"));
		o->func = rp_json_strdup(J(f, "func"));
		o->func_off = (uint64_t)rp_json_int(J(f, "offset"), 0);
		o->module = rp_json_strdup(J(f, "module"));
		o->build_id = rp_json_strdup(J(f, "build_id"));
		o->file = rp_json_strdup(J(f, "file"));
		o->line = (int)rp_json_int(J(f, "line"), 0);
		o->inlined = is_true(J(f, "inlined"));
	}
}

static void thread_from(struct lt_thread *t, struct lt_snapshot *s, const struct rp_json *j)
{
	t->tid = (pid_t)rp_json_int(J(j, "tid"), 0);
	snprintf(t->comm, sizeof(t->comm), "%s", rp_json_str(J(j, "comm")) ? rp_json_str(J(j, "comm")) : "");
	const char *st = rp_json_str(J(j, "state"));
	t->state = st && st[0] != '?' ? st[0] : 0;
	t->cpu = (int)rp_json_int(J(j, "cpu"), -1);
	t->idle_src = enum_of(rp_json_str(J(j, "blocked_source")), idle_name, LT_IDLE_RUNNING,
			      LT_IDLE_CALLER, LT_IDLE_UNKNOWN);
	t->idle_s = rp_json_num(J(j, "blocked_s"), -1); /* null: not known */
	syscall_from(t, s, J(j, "syscall"));
	t->wait = enum_of(rp_json_str(J(j, "wait")), wait_name, LT_WAIT_NONE, LT_WAIT_OTHER, LT_WAIT_NONE);
	t->detail = rp_json_strdup(J(j, "detail"));
	t->fdw.io.fd = -1;
	t->fdw.epfd = -1;
	futex_from(&t->futex, s, J(j, "futex"));
	io_from(&t->fdw.io, J(j, "io_fd"));
	sock_timeo_from(&t->fdw, j);
	const char *ks = rp_json_str(J(j, "kernel_stack_status"));
	t->kstack_status = ks && !strcmp(ks, "ok") ? LT_KSTACK_OK :
			   ks && !strcmp(ks, "unavailable") ? LT_KSTACK_UNAVAILABLE : LT_KSTACK_NOT_READ;
	strlist_from(&t->kstack, J(j, "kernel_stack"));
	frames_from(t, J(j, "user_stack"));
	runtime_from(t, s, J(j, "runtime"));
	t->acquire = lts_json_own_str(s, J(j, "acquire"));
	lts_appwait_from_json(t, s, J(j, "app_wait"));
	strlist_from(&t->notes, J(j, "notes"));
	t->moved = is_true(J(j, "moved"));
	lts_wf_from_json(t, J(j, "wait_for"));
}

static void verdict_from(struct lt_verdict *v, struct lt_snapshot *s, const struct rp_json *j)
{
	const struct rp_json *tids = J(j, "tids"), *locks = J(j, "locks");

	v->kind = enum_of(rp_json_str(J(j, "kind")), verdict_name, LT_VERDICT_DEADLOCK,
			  LT_VERDICT_STOPPED, LT_VERDICT_UNKNOWN);
	v->summary = rp_json_strdup(J(j, "summary"));
	strlist_from(&v->evidence, J(j, "evidence"));
	if (tids && tids->type == RPJ_ARR && tids->n && (v->tids = calloc(tids->n, sizeof(*v->tids))))
		for (size_t i = 0; i < tids->n; i++)
			v->tids[v->n_tids++] = (pid_t)rp_json_int(&tids->items[i], 0);
	if (locks && locks->type == RPJ_ARR && locks->n && (v->locks = calloc(locks->n, sizeof(*v->locks))))
		for (size_t i = 0; i < locks->n; i++)
			v->locks[v->n_locks++] = rp_json_addr0(&locks->items[i]);
	v->owner = (pid_t)rp_json_int(J(j, "owner"), 0);
	v->owner_source = lts_json_own_str(s, J(j, "owner_source"));
	v->explains = (size_t)rp_json_int(J(j, "explains"), 0);
	v->longest_s = rp_json_num(J(j, "longest_s"), -1);
}

static void rtlock_from(struct lt_rtlock *l, struct lt_snapshot *s, const struct rp_json *j)
{
	const struct rp_json *held = J(j, "held");

	l->model = lts_json_own_str(s, J(j, "model"));
	l->kind = lts_json_own_str(s, J(j, "kind"));
	l->name = rp_json_strdup(J(j, "name"));
	l->version = rp_json_strdup(J(j, "version"));
	l->base = rp_json_addr0(J(j, "base"));
	l->size = (uint64_t)rp_json_int(J(j, "size"), 0);
	l->held = !held || held->type == RPJ_NULL ? -1 : held->type == RPJ_TRUE;
	l->waiters = (int)rp_json_int(J(j, "waiters"), -1);
	l->holder = (pid_t)rp_json_int(J(j, "holder"), 0);
	l->holder_how = rp_json_strdup(J(j, "holder_how"));
	strlist_from(&l->facts, J(j, "facts"));
	const struct rp_json *seen = J(j, "seen_waiting");
	if (seen && seen->type == RPJ_ARR && seen->n &&
	    (l->seen = calloc(seen->n, sizeof(*l->seen))))
		for (size_t i = 0; i < seen->n; i++)
			l->seen[l->n_seen++] = (pid_t)rp_json_int(&seen->items[i], 0);
	l->seen_samples = (int)rp_json_int(J(j, "seen_samples"), 0);
	l->seen_span_ms = rp_json_num(J(j, "seen_span_ms"), 0);
}

/* Which process each thread of a combined snapshot belongs to (its
 * "processes" table: pid and tids), into s->thread_pid; none for a
 * snapshot of one process. */
static void procs_from(struct lt_snapshot *s, const struct rp_json *procs)
{
	if (!procs || procs->type != RPJ_ARR || !s->n_threads ||
	    !(s->thread_pid = calloc(s->n_threads, sizeof(*s->thread_pid))))
		return;
	for (size_t i = 0; i < s->n_threads; i++)
		s->thread_pid[i] = s->pid;
	for (size_t i = 0; i < procs->n; i++) {
		pid_t pid = (pid_t)rp_json_int(J(&procs->items[i], "pid"), 0);
		const struct rp_json *tids = J(&procs->items[i], "tids");
		for (size_t k = 0; pid > 0 && tids && tids->type == RPJ_ARR && k < tids->n; k++) {
			pid_t tid = (pid_t)rp_json_int(&tids->items[k], 0);
			for (size_t t = 0; t < s->n_threads; t++)
				if (s->threads[t].tid == tid && tid > 0)
					s->thread_pid[t] = pid;
		}
	}
}

/* calloc'd array of the n items of arr, or NULL (n 0). */
static void *items(const struct rp_json *arr, size_t size, size_t *n)
{
	void *v;
	*n = 0;
	if (!arr || arr->type != RPJ_ARR || !arr->n || !(v = calloc(arr->n, size)))
		return NULL;
	*n = arr->n;
	return v;
}

static void snapshot_from(struct lt_snapshot *s, const struct rp_json *doc)
{
	const struct rp_json *th = J(doc, "threads"), *vd = J(doc, "verdicts"), *rt = J(doc, "runtime_locks");
	const char *comm = rp_json_str(J(doc, "comm"));

	s->pid = (pid_t)rp_json_int(J(doc, "pid"), 0);
	snprintf(s->comm, sizeof(s->comm), "%s", comm ? comm : "");
	s->occasion = lts_json_own_str(s, J(doc, "occasion"));
	s->exe = rp_json_strdup(J(doc, "exe"));
	s->taken_realtime_ns = rp_json_int(J(doc, "taken_realtime_ns"), 0);
	s->taken_monotonic_ns = rp_json_int(J(doc, "taken_monotonic_ns"), 0);
	s->duration_ns = rp_json_int(J(doc, "duration_ns"), 0);
	s->kstack_available = is_true(J(doc, "kernel_stacks"));
	s->ustack_skipped = is_true(J(doc, "user_stacks_skipped"));
	s->sig_caught_ok = rp_json_addr(J(doc, "signals_caught"), &s->sig_caught) == 1;
	s->vopts.lost_wakeup_threshold_s = rp_json_num(J(J(doc, "options"), "lost_wakeup_threshold_s"), 0);
	s->vopts.convoy_min_waiters = (int)rp_json_int(J(J(doc, "options"), "convoy_min_waiters"), 0);
	strlist_from(&s->notes, J(doc, "notes"));
	const struct rp_json *off = J(doc, "sched_clock_offset_ns");
	if ((s->sched_offset_ns = items(off, sizeof(*s->sched_offset_ns), &s->n_cpus)))
		for (size_t i = 0; i < s->n_cpus; i++)
			s->sched_offset_ns[i] = rp_json_int(&off->items[i], INT64_MIN);
	if ((s->threads = items(th, sizeof(*s->threads), &s->n_threads)))
		for (size_t i = 0; i < s->n_threads; i++)
			thread_from(&s->threads[i], s, &th->items[i]);
	if ((s->verdicts = items(vd, sizeof(*s->verdicts), &s->n_verdicts)))
		for (size_t i = 0; i < s->n_verdicts; i++)
			verdict_from(&s->verdicts[i], s, &vd->items[i]);
	if ((s->rtlocks = items(rt, sizeof(*s->rtlocks), &s->n_rtlocks)))
		for (size_t i = 0; i < s->n_rtlocks; i++)
			rtlock_from(&s->rtlocks[i], s, &rt->items[i]);
	lt_go_from_json(s, J(doc, "go")); /* goroutines (rt_go_load.c) */
	lts_copy_sig_caught(s);
	procs_from(s, J(doc, "processes"));
}

int lt_snapshot_from_json(const char *json, size_t len, struct lt_snapshot **out, char *err,
			  size_t errlen)
{
	char e[160];
	struct rp_json *doc = rp_json_parse(json, len, e, sizeof(e));

	*out = NULL;
	if (!doc) {
		snprintf(err, errlen, "not JSON: %s", e);
		return -1;
	}
	const char *schema = rp_json_str(J(doc, "schema"));
	const struct rp_json *threads = J(doc, "threads");
	/* another major version of the schema may mean other things */
	if (!schema || strncmp(schema, "locktrace.snapshot/1", 20) || !threads || threads->type != RPJ_ARR) {
		if (schema && !strncmp(schema, "locktrace.snapshot/1", 20))
			snprintf(err, errlen, "not a locktrace.snapshot/1 document (no threads array)");
		else
			snprintf(err, errlen, "not a locktrace.snapshot/1 document (schema %s)",
				 schema ? schema : "missing");
		rp_json_free(doc);
		return -2;
	}
	struct lt_snapshot *s = calloc(1, sizeof(*s));
	if (!s) {
		snprintf(err, errlen, "out of memory");
		rp_json_free(doc);
		return -1;
	}
	snapshot_from(s, doc);
	rp_json_free(doc);
	*out = s;
	return 0;
}

const char *lt_snapshot_occasion(const char *occasion, size_t i, size_t n, int flight)
{
	if (occasion)
		return occasion;
	if (flight)
		return "dump";
	return i == 0 ? "start" : i + 1 == n ? "end" : "trigger";
}
