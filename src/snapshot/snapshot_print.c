/* Output of a snapshot: text for people, JSON for tools and for the trace
 * file (schema "locktrace.snapshot/1", documented in docs/snapshot.md).
 *
 * Every string from the target (thread names, paths, symbols) is escaped
 * (utf8.h): JSON as JSON, text with \xNN for control bytes, so a thread
 * name cannot forge output lines; bytes that are not UTF-8 as U+FFFD. */
#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "jsonw.h"
#include "lockmodel.h"
#include "rtthread.h"
#include "snapshot.h"
#include "waitfor.h"
#include "waitfor_int.h"
#include "snapshot_int.h"
#include "appwait.h"
#include "appwait_int.h"
#include "utf8.h"
#include "golang.h"
#include "grow.h"

/* ---- escaping ---- */

static void text_str(FILE *f, const char *s)
{
	if (s)
		lt_text_fput(f, s, (size_t)-1);
	else
		fputs("?", f);
}

/* ---- JSON ---- */

/* The list as an array (the value of KEY if not NULL). */
static void json_strlist(struct jw *w, const char *key, const struct lt_strlist *l)
{
	if (key)
		jw_key(w, key);
	jw_array(w);
	for (size_t i = 0; i < l->n; i++)
		jw_str(w, l->v[i]);
	jw_end(w);
}

static void json_fd(struct jw *w, const struct lt_fd *d)
{
	jw_object(w);
	jw_kint(w, "fd", d->fd);
	jw_kstr(w, "kind", lt_fd_kind_name(d->kind));
	jw_kstr(w, "target", d->target);
	jw_kstr(w, "desc", d->desc);
	jw_kuint(w, "events", d->events);
	jw_end(w);
}

/* The lock the futex word belongs to, as the lock models read it. */
static void json_futex_lock(struct jw *w, const struct lt_futex *x)
{
	jw_khex(w, "uaddr", x->uaddr);
	jw_kstr(w, "lock", x->lock_sym);
	jw_kstr(w, "lock_kind", x->lock_kind);
	jw_khex(w, "lock_base", x->lock_base ? x->lock_base : x->uaddr);
	jw_kstr(w, "lock_name", x->lock_name);
	jw_kstr(w, "lock_state", x->lock_state);
	if (x->cond_signal)
		jw_kbool(w, "signal_pending", x->cond_signal == 2);
	jw_kuint_or_null(w, "runtime_lock", x->rtlock - 1, x->rtlock != 0);
	if (jw_kobject_or_null(w, "shared_object", x->shared_obj)) {
		char dev[32];
		snprintf(dev, sizeof(dev), "%u:%u", x->obj_major, x->obj_minor);
		jw_kstr(w, "dev", dev);
		jw_kuint(w, "inode", x->obj_ino);
		jw_kuint(w, "offset", x->obj_off);
		if (x->obj_mappers_known) {
			jw_kuint(w, "other_mappers", (uint64_t)x->obj_mappers);
			/* which they were (the first LT_FUTEX_MAPPERS) */
			jw_karray(w, "mapper_pids");
			for (int i = 0; i < x->obj_mappers && i < LT_FUTEX_MAPPERS; i++)
				jw_int(w, x->obj_mapper[i]);
			jw_end(w);
		}
		if (x->obj_zombie_child > 0)
			jw_kuint(w, "zombie_child", (uint64_t)x->obj_zombie_child);
		jw_end(w);
	}
}

/* The call's operation, expected value and timeout. */
static void json_futex_call(struct jw *w, const struct lt_futex *x)
{
	char op[96];
	if (x->cmd >= 0)
		lt_futex_op_str(x->op, op, sizeof(op));
	else
		snprintf(op, sizeof(op), "FUTEX2_WAIT%s", x->private_ ? "_PRIVATE" : "");
	jw_kuint(w, "op", x->op);
	jw_kstr(w, "op_name", op);
	jw_kint(w, "cmd", x->cmd);
	jw_kbool(w, "private", x->private_);
	jw_kbool(w, "clock_realtime", x->clock_realtime);
	jw_kbool(w, "is_wait", x->is_wait);
	jw_kbool(w, "is_pi", x->is_pi);
	jw_kuint(w, "expected", x->expected);
	jw_kuint(w, "bitset", x->bitset);
	jw_kuint_or_null(w, "word", x->word, x->word_ok);
	if (!jw_kobject_or_null(w, "timeout", x->timeout_ptr))
		return;
	jw_kbool(w, "readable", x->timeout_ok);
	if (x->timeout_ok) {
		jw_kbool(w, "absolute", x->timeout_abs);
		jw_kint(w, "sec", x->timeout_sec);
		jw_kint(w, "nsec", x->timeout_nsec);
	}
	jw_end(w);
}

/* Who owns the lock. */
static void json_futex_owner(struct jw *w, const struct lt_futex *x)
{
	if (jw_kobject_or_null(w, "mutex_fields", x->mutex_ok)) {
		jw_kint(w, "count", x->mutex_count);
		jw_kint(w, "owner", x->mutex_owner);
		jw_kint(w, "kind", x->mutex_kind);
		jw_end(w);
	}
	jw_kstr(w, "owner_kind", lt_owner_kind_name(x->owner_kind));
	jw_kint_or_null(w, "owner", (int)x->owner, x->owner_kind >= LT_OWNER_MUTEX);
	/* not recorded by the lock, or a multiprocessing lock's holder read
	 * from its SemLock (semlock.c) */
	if (x->owner_kind == LT_OWNER_INFERRED || x->owner_how)
		jw_kstr(w, "owner_how", x->owner_how ? x->owner_how : "");
	if (jw_kobject_or_null(w, "owner_process", x->owner_tgid > 0)) {
		jw_kint(w, "tid", (int)x->mutex_owner);
		jw_kint(w, "pid", (int)x->owner_tgid);
		jw_kstr(w, "comm", x->owner_comm);
		jw_end(w);
	}
	if (x->owner_exited)
		jw_kbool(w, "owner_exited", true);
	if (jw_kobject_or_null(w, "owner_gone", x->owner_gone)) {
		/* a private lock's owner that is no thread of this process */
		jw_kint_or_null(w, "tid", (int)x->gone_tid, x->gone_tid > 0);
		if (x->gone_ptr)
			jw_khex(w, "pthread", x->gone_ptr);
		jw_kint_or_null(w, "forked_from", (int)x->gone_parent, x->gone_parent > 0);
		jw_kstr(w, "comm", x->gone_comm);
		jw_end(w);
	}
	jw_kbool(w, "join_confirmed", x->join_confirmed);
	if (x->parked)
		jw_kbool(w, "parked_for_ever", true);
}

static void json_futex(struct jw *w, const struct lt_futex *x)
{
	jw_object(w);
	json_futex_lock(w, x);
	json_futex_call(w, x);
	json_futex_owner(w, x);
	jw_end(w);
}

static void json_fdwait(struct jw *w, const struct lt_fdwait *d)
{
	jw_object(w);
	jw_kint(w, "nfds", d->nfds);
	jw_kint_or_null(w, "epfd", d->epfd, d->epfd >= 0);
	jw_kint_or_null(w, "timeout_ms", d->timeout_ms, d->has_timeout && d->timeout_ms >= 0);
	jw_kbool(w, "infinite", !d->has_timeout);
	jw_kbool(w, "fds_ok", d->fds_ok);
	jw_karray(w, "fds");
	for (size_t i = 0; i < d->n_fds; i++)
		json_fd(w, &d->fds[i]);
	jw_end(w);
	jw_end(w);
}

/* Modules seen in frames, by name, with their build-id: listed once at the
 * top instead of in every frame (13% of a large snapshot). */
struct modtab {
	const char **name, **build_id;
	size_t n;
};

static const char *modtab_get(const struct modtab *m, const char *name)
{
	for (size_t i = 0; i < m->n; i++)
		if (strcmp(m->name[i], name) == 0)
			return m->build_id[i] ? m->build_id[i] : "";
	return NULL;
}

static void modtab_build(struct modtab *m, const struct lt_snapshot *s)
{
	memset(m, 0, sizeof(*m));
	size_t cap = 0;
	for (size_t i = 0; i < s->n_threads; i++) {
		const struct lt_thread *t = &s->threads[i];
		for (size_t k = 0; k < t->n_frames; k++) {
			const struct lt_frame *fr = &t->frames[k];
			if (!fr->module || modtab_get(m, fr->module))
				continue;
			if (m->n == cap) {
				/* name and build_id share the capacity */
				size_t nc = lt_grow_cap(cap, m->n + 1, sizeof(*m->name), 16);
				const char **nn = nc ? realloc(m->name, nc * sizeof(*nn)) : NULL;
				if (!nn)
					return;
				m->name = nn;
				const char **nb = realloc(m->build_id, nc * sizeof(*nb));
				if (!nb)
					return;
				m->build_id = nb;
				cap = nc;
			}
			m->name[m->n] = fr->module;
			m->build_id[m->n] = fr->build_id;
			m->n++;
		}
	}
}


static void json_frame(struct jw *w, const struct lt_frame *fr, const struct modtab *m)
{
	jw_object(w);
	jw_khex(w, "pc", fr->pc);
	jw_kstr(w, "func", fr->func);
	jw_kuint(w, "offset", fr->func_off);
	if (fr->inlined)
		jw_kbool(w, "inlined", true);
	jw_kstr(w, "module", fr->module);
	/* the build-id is in "modules" unless two modules share this name */
	const char *known = fr->module ? modtab_get(m, fr->module) : NULL;
	if (fr->build_id && (!known || strcmp(known, fr->build_id) != 0))
		jw_kstr(w, "build_id", fr->build_id);
	char dm[256];
	if (fr->func && lt_demangle_ocaml(fr->func, dm, sizeof(dm)))
		jw_kstr(w, "demangled", dm);
	jw_kstr(w, "file", fr->file);
	jw_kint_or_null(w, "line", fr->line, fr->file != NULL);
	jw_kbool(w, "activation", fr->activation);
	jw_end(w);
}

static void json_rtframe(struct jw *w, const struct lt_rtframe *r)
{
	jw_object(w);
	jw_kstr(w, "func", r->func);
	jw_kstr(w, "file", r->file);
	jw_kint_or_null(w, "line", r->line, r->line > 0);
	jw_kint_or_null(w, "native_frame", r->native, r->native >= 0);
	if (jw_key_or_null(w, "pc", r->pc))
		jw_hex(w, r->pc);
	jw_kstr(w, "kind", r->kind);
	jw_kint_or_null(w, "bci", r->bci, r->bci >= 0);
	jw_end(w);
}

/* The thread as its runtime knows it (rtthread.h), or null. */
static void json_runtime(struct jw *w, const struct lt_thread *t)
{
	if (!jw_kobject_or_null(w, "runtime", t->rt_lang))
		return;
	jw_kstr(w, "lang", t->rt_lang);
	jw_kstr(w, "name", t->rt_name);
	jw_karray(w, "frames");
	for (size_t i = 0; i < t->n_rt_frames; i++)
		json_rtframe(w, &t->rt_frames[i]);
	jw_end(w);
	jw_kstr(w, "end", t->rt_end);
	jw_end(w);
}

static void json_syscall(struct jw *w, const struct lt_thread *t)
{
	jw_kobject(w, "syscall");
	jw_kstr(w, "state", lt_sc_state_name(t->sc.state));
	if (t->sc.state == LT_SC_IN_SYSCALL) {
		jw_kint(w, "nr", t->sc.nr);
		jw_kstr(w, "name", t->sc_name);
		jw_karray(w, "args");
		for (int i = 0; i < 6; i++)
			jw_hex(w, t->sc.args[i]);
		jw_end(w);
	} else {
		jw_knull(w, "nr");
		jw_knull(w, "name");
		jw_knull(w, "args");
	}
	if (t->sc.state == LT_SC_IN_SYSCALL || t->sc.state == LT_SC_NOT_IN_SYSCALL) {
		jw_khex(w, "sp", t->sc.sp);
		jw_khex(w, "pc", t->sc.pc);
	} else {
		jw_knull(w, "sp");
		jw_knull(w, "pc");
	}
	jw_end(w);
}

/* What the thread waits for: the futex, the poll or the fd, or nulls. */
static void json_wait(struct jw *w, const struct lt_thread *t)
{
	jw_kstr(w, "wait", lt_wait_kind_name(t->wait));
	jw_kstr(w, "detail", t->detail);
	if (jw_key_or_null(w, "futex", t->wait == LT_WAIT_FUTEX ||
					   (t->sc_name && (t->sc.nr == 202 || t->sc.nr == 455))))
		json_futex(w, &t->futex);
	if (jw_key_or_null(w, "poll", t->wait == LT_WAIT_POLL))
		json_fdwait(w, &t->fdw);
	if (jw_key_or_null(w, "io_fd", t->wait == LT_WAIT_IO))
		json_fd(w, &t->fdw.io);
	const struct lt_fdwait *d = &t->fdw;
	if (t->wait == LT_WAIT_IO && d->sock_timeo) { /* a socket read's SO_RCVTIMEO, a write's SO_SNDTIMEO */
		jw_kstr(w, "socket_timeout", d->sock_timeo == LT_SOCK_TIMEO_NONE ? "none"
					     : d->sock_timeo == LT_SOCK_TIMEO_SET ? "set" : "unknown");
		jw_kint_or_null(w, "socket_timeout_ms", d->sock_timeo_ms,
				d->sock_timeo == LT_SOCK_TIMEO_SET && d->sock_timeo_ms >= 0);
	}
}

static void json_stacks(struct jw *w, const struct lt_thread *t, const struct modtab *m)
{
	if (jw_key_or_null(w, "kernel_stack", t->kstack_status == LT_KSTACK_OK))
		json_strlist(w, NULL, &t->kstack);
	jw_kstr(w, "kernel_stack_status", t->kstack_status == LT_KSTACK_OK ? "ok" :
		t->kstack_status == LT_KSTACK_UNAVAILABLE ? "unavailable" : "not_read");
	jw_kobject(w, "user_stack");
	jw_kstr(w, "regs_source", lt_regs_source_name(t->regs_src));
	jw_karray(w, "frames");
	for (size_t i = 0; i < t->n_frames; i++)
		json_frame(w, &t->frames[i], m);
	jw_end(w);
	jw_kstr(w, "end", t->ustack_end);
	jw_end(w);
}

static void json_thread(struct jw *w, const struct lt_thread *t, const struct modtab *m)
{
	char state[2] = { t->state ? t->state : '?', 0 };
	jw_object(w);
	jw_kint(w, "tid", (int)t->tid);
	jw_kstr(w, "comm", t->comm);
	jw_kstr(w, "state", state);
	jw_kint(w, "cpu", t->cpu);
	if (jw_key_or_null(w, "blocked_s", t->idle_src != LT_IDLE_UNKNOWN))
		jw_double(w, t->idle_s, 6);
	jw_kstr(w, "blocked_source", lt_idle_source_name(t->idle_src));
	json_syscall(w, t);
	json_wait(w, t);
	lts_wf_json(w, t);
	json_stacks(w, t, m);
	json_runtime(w, t);
	jw_kstr(w, "acquire", t->acquire);
	lts_appwait_json(w, t);
	json_strlist(w, "notes", &t->notes);
	jw_kbool(w, "moved", t->moved);
	jw_end(w);
}

/* M, for a verdict of a multi-process view: "pids" parallel to "tids". */
static void json_verdict(struct jw *w, const struct lt_verdict *v, const struct lt_multi_snapshot *m)
{
	jw_object(w);
	jw_kstr(w, "kind", lt_verdict_kind_name(v->kind));
	jw_kstr(w, "summary", v->summary);
	jw_karray(w, "tids");
	for (size_t i = 0; i < v->n_tids; i++)
		jw_int(w, (int)v->tids[i]);
	jw_end(w);
	if (m) {
		jw_karray(w, "pids");
		for (size_t i = 0; i < v->n_tids; i++)
			jw_int(w, (int)lt_multi_pid_of(m, v->tids[i]));
		jw_end(w);
	}
	jw_karray(w, "locks");
	for (size_t i = 0; i < v->n_locks; i++)
		jw_hex(w, v->locks[i]);
	jw_end(w);
	if (v->n_behind) { /* a deadlock's threads whose waits lead into its cycle */
		jw_karray(w, "behind");
		for (size_t i = 0; i < v->n_behind; i++)
			jw_int(w, (int)v->behind[i]);
		jw_end(w);
	}
	jw_kint_or_null(w, "owner", (int)v->owner, v->owner != 0);
	if (m) /* several processes: the owner's */
		jw_kint_or_null(w, "owner_pid", (int)lt_multi_pid_of(m, v->owner),
				v->owner && lt_multi_pid_of(m, v->owner));
	jw_kstr(w, "owner_source", v->owner_source);
	jw_kuint(w, "explains", v->explains);
	if (jw_key_or_null(w, "longest_s", v->longest_s >= 0))
		jw_double(w, v->longest_s, 3);
	json_strlist(w, "evidence", &v->evidence);
	jw_end(w);
}

static void json_verdicts(struct jw *w, const struct lt_verdict *v, size_t n, const struct lt_multi_snapshot *m)
{
	jw_karray(w, "verdicts");
	for (size_t i = 0; i < n; i++)
		json_verdict(w, &v[i], m);
	jw_end(w);
}

static void json_rtlock(struct jw *w, const struct lt_rtlock *l)
{
	jw_object(w);
	jw_kstr(w, "model", l->model);
	jw_kstr(w, "kind", l->kind);
	jw_kstr(w, "name", l->name);
	jw_kstr(w, "version", l->version);
	jw_khex(w, "base", l->base);
	jw_kuint(w, "size", l->size);
	if (jw_key_or_null(w, "held", l->held == 1 || l->held == 0))
		jw_bool(w, l->held);
	jw_kint_or_null(w, "waiters", l->waiters, l->waiters >= 0);
	jw_kint_or_null(w, "holder", (int)l->holder, l->holder > 0);
	jw_kstr(w, "holder_how", l->holder_how);
	json_strlist(w, "facts", &l->facts);
	jw_karray(w, "seen_waiting");
	for (size_t i = 0; i < l->n_seen; i++)
		jw_int(w, l->seen[i]);
	jw_end(w);
	jw_kint(w, "seen_samples", l->seen_samples);
	jw_kdouble(w, "seen_span_ms", l->seen_span_ms, 1);
	jw_end(w);
}

/* What the snapshot is of: the process, when, how. */
static void json_header(struct jw *w, const struct lt_snapshot *s)
{
	jw_kstr(w, "schema", "locktrace.snapshot/1");
	jw_kint(w, "pid", (int)s->pid);
	jw_kstr(w, "comm", s->comm);
	if (s->occasion)
		jw_kstr(w, "occasion", s->occasion);
	jw_kstr(w, "exe", s->exe);
	jw_kint(w, "taken_realtime_ns", s->taken_realtime_ns);
	jw_kint(w, "taken_monotonic_ns", s->taken_monotonic_ns);
	jw_kint(w, "duration_ns", s->duration_ns);
	jw_kbool(w, "kernel_stacks", s->kstack_available);
	if (s->ustack_skipped)
		jw_kbool(w, "user_stacks_skipped", true);
	if (s->sig_caught_ok) /* SigCgt: bit sig-1 */
		jw_khex(w, "signals_caught", s->sig_caught);
	jw_kuint(w, "n_threads", s->n_threads);
	jw_kobject(w, "options");
	jw_kdouble(w, "lost_wakeup_threshold_s", s->vopts.lost_wakeup_threshold_s, 3);
	jw_kint(w, "convoy_min_waiters", s->vopts.convoy_min_waiters);
	jw_end(w);
	jw_karray(w, "sched_clock_offset_ns");
	for (size_t i = 0; i < s->n_cpus; i++)
		if (s->sched_offset_ns[i] == INT64_MIN)
			jw_null(w);
		else
			jw_int(w, s->sched_offset_ns[i]);
	jw_end(w);
	json_strlist(w, "notes", &s->notes);
}

/* The snapshot as a value of W: one thread a line. */
static void json_snapshot(struct jw *w, const struct lt_snapshot *s)
{
	jw_object(w);
	json_header(w, s);
	json_verdicts(w, s->verdicts, s->n_verdicts, NULL);
	jw_karray(w, "runtime_locks");
	for (size_t i = 0; i < s->n_rtlocks; i++)
		json_rtlock(w, &s->rtlocks[i]);
	jw_end(w);
	lt_go_print_json(w, s);
	struct modtab m;
	modtab_build(&m, s);
	jw_karray(w, "modules");
	for (size_t i = 0; i < m.n; i++) {
		jw_object(w);
		jw_kstr(w, "name", m.name[i]);
		jw_kstr(w, "build_id", m.build_id[i]);
		jw_end(w);
	}
	jw_end(w);
	jw_karray(w, "threads");
	jw_lines(w, 0, -1);
	for (size_t i = 0; i < s->n_threads; i++)
		json_thread(w, &s->threads[i], &m);
	jw_break(w, 0);
	jw_end(w);
	jw_end(w);
	free(m.name);
	free(m.build_id);
}

int lt_snapshot_print_json(FILE *f, const struct lt_snapshot *s)
{
	struct jw w;
	jw_init(&w, f, JW_COMPACT);
	json_snapshot(&w, s);
	return jw_finish(&w);
}

int lt_snapshot_to_json_buf(const struct lt_snapshot *s, char **buf, size_t *len)
{
	*buf = NULL;
	*len = 0;
	char *b = NULL;
	size_t l = 0;
	FILE *f = open_memstream(&b, &l);
	if (!f)
		return -ENOMEM;
	int err = lt_snapshot_print_json(f, s);
	if (fclose(f) != 0 || err || !b) {
		free(b);
		return -ENOMEM;
	}
	*buf = b;
	*len = l;
	return 0;
}

/* ---- text ---- */

static void text_verdict(FILE *f, const struct lt_verdict *v)
{
	static const char *const tag[] = {
		[LT_VERDICT_DEADLOCK] = "DEADLOCK",
		[LT_VERDICT_LOST_WAKEUP] = "LOST WAKE-UP",
		[LT_VERDICT_CONVOY] = "CONVOY",
		[LT_VERDICT_IDLE] = "IDLE",
		[LT_VERDICT_OK] = "OK",
		[LT_VERDICT_UNKNOWN] = "UNKNOWN",
		[LT_VERDICT_LOCK_WAIT] = "LOCK WAIT",
		[LT_VERDICT_WAIT_CHAIN] = "WAIT CHAIN",
		[LT_VERDICT_STOPPED] = "STOPPED",
	};
	const char *t = (v->kind >= LT_VERDICT_DEADLOCK && v->kind <= LT_VERDICT_STOPPED) ? tag[v->kind] : "?";
	fprintf(f, "%s: ", t);
	text_str(f, v->summary);
	fputc('\n', f);
	for (size_t i = 0; i < v->evidence.n; i++) {
		fputs("    - ", f);
		text_str(f, v->evidence.v[i]);
		fputc('\n', f);
	}
}

static void text_rtlock(FILE *f, const struct lt_snapshot *s, const struct lt_rtlock *l)
{
	const struct lt_thread *h = l->holder > 0 ? lt_snapshot_find(s, l->holder) : NULL;
	fputs("\nruntime lock: ", f);
	text_str(f, l->kind);
	fputs(" ", f);
	text_str(f, l->name ? l->name : "?");
	/* a name that is an object's, with its address (Java's
	 * "FutureTask@0x69ec..", "concurrent.futures.Future at 0x7f.."), is not
	 * followed by the same address again */
	char hex[24];
	snprintf(hex, sizeof(hex), "0x%" PRIx64, l->base);
	if (!l->name || !strstr(l->name, hex))
		fprintf(f, " at %s", hex);
	if (l->version) {
		fputs(" (", f);
		text_str(f, l->version);
		fputc(')', f);
	}
	if (l->held == 1 && l->holder > 0) {
		fprintf(f, ": held by thread %d", (int)l->holder);
		if (h) {
			fputs(" (", f);
			text_str(f, lt_thread_name(h));
			fputc(')', f);
		}
	}
	else if (l->held == 1)
		fputs(": held, holder unknown", f);
	else if (l->held == 0)
		fputs(": free", f);
	else
		fputs(": state unknown", f);
	if (l->waiters >= 0)
		fprintf(f, ", %d waiting (runtime's count)", l->waiters);
	fputc('\n', f);
	if (l->holder_how) {
		fputs("    holder: ", f);
		text_str(f, l->holder_how);
		fputc('\n', f);
	}
	for (size_t i = 0; i < l->facts.n; i++) {
		fputs("    ", f);
		text_str(f, l->facts.v[i]);
		fputc('\n', f);
	}
}

static void text_frame(FILE *f, size_t i, const struct lt_frame *fr)
{
	char dm[256];
	fprintf(f, "    #%-2zu 0x%016" PRIx64 " ", i, fr->pc);
	if (fr->func) {
		text_str(f, lt_func_display(fr->func, dm, sizeof(dm)));
		if (fr->inlined) /* no symbol of its own: no offset */
			fputs(" (inlined)", f);
		else
			fprintf(f, "+0x%" PRIx64, fr->func_off);
	} else {
		fputs("??", f);
	}
	if (fr->module) {
		fputs(" (", f);
		text_str(f, fr->module);
		fputc(')', f);
	}
	if (fr->file) {
		fputc(' ', f);
		const char *b = strrchr(fr->file, '/');
		text_str(f, b ? b + 1 : fr->file);
		fprintf(f, ":%d", fr->line);
	}
	fputc('\n', f);
}

/* "    py  side (/path/gil_holder.py:97)",
 * "    java JavaLocks.crosswise (JavaLocks.java:151) [interpreted, bci 29]" */
static void text_rtframe(FILE *f, const struct lt_thread *t, const struct lt_rtframe *r)
{
	const char *tag = !strcmp(t->rt_lang, "python") ? "py" : !strcmp(t->rt_lang, "java") ? "java" : "rt";
	fprintf(f, "    %-3s ", tag);
	text_str(f, r->func ? r->func : "?");
	fputs(" (", f);
	text_str(f, r->file ? r->file : "?");
	if (r->line > 0)
		fprintf(f, ":%d", r->line);
	fputc(')', f);
	if (r->kind) {
		fputs(" [", f);
		text_str(f, r->kind);
		if (r->bci >= 0)
			fprintf(f, ", bci %d", r->bci);
		fputc(']', f);
	}
	fputc('\n', f);
}

/* The runtime's frames that native frame I runs (the interpreter loop),
 * printed just above it: the loop calls what is below them. */
static void text_rtframes_at(FILE *f, const struct lt_thread *t, int i)
{
	for (size_t k = 0; k < t->n_rt_frames; k++)
		if (t->rt_frames[k].native == i)
			text_rtframe(f, t, &t->rt_frames[k]);
}

static void text_rtframes_unplaced(FILE *f, const struct lt_thread *t)
{
	size_t n = 0;
	for (size_t k = 0; k < t->n_rt_frames; k++)
		n += t->rt_frames[k].native < 0;
	if (n || t->rt_end) {
		fprintf(f, "  %s%s:\n", t->rt_lang,
			!n ? "" : n == t->n_rt_frames ? " (not placed among native frames)"
						      : " (outer frames, not placed)");
		for (size_t k = 0; k < t->n_rt_frames; k++)
			if (t->rt_frames[k].native < 0)
				text_rtframe(f, t, &t->rt_frames[k]);
	}
	if (t->rt_end) {
		fputs("    ", f);
		text_str(f, t->rt_end);
		fputc('\n', f);
	}
}

static void text_thread(FILE *f, const struct lt_thread *t)
{
	char dur[32];
	fprintf(f, "thread %d (", (int)t->tid);
	text_str(f, t->comm);
	fputc(')', f);
	if (t->rt_name) {
		fprintf(f, " %s thread \"", t->rt_lang ? t->rt_lang : "runtime");
		text_str(f, t->rt_name);
		fputc('"', f);
	}
	fprintf(f, " state %c", t->state ? t->state : '?');
	if (t->idle_src == LT_IDLE_RUNNING) {
		fputs(", running\n", f);
	} else if (t->idle_src == LT_IDLE_UNKNOWN) {
		fputs(", not run for: unknown\n", f);
	} else {
		lts_fmt_duration(t->idle_s, dur, sizeof(dur));
		fprintf(f, ", not run for %s [%s]\n", dur, lt_idle_source_name(t->idle_src));
	}
	if (t->detail) {
		fputs("  ", f);
		text_str(f, t->detail);
		fputc('\n', f);
	}
	for (size_t i = 0; t->wf && i < t->wf->n_edges; i++) {
		char *l = lt_wf_edge_line(&t->wf->edges[i]);
		fputs("  waits for: ", f);
		text_str(f, l ? l : "?");
		fputc('\n', f);
		free(l);
	}
	if (t->wf && t->wf->tracer) {
		fprintf(f, "  stopped by tracer: process %d, %s: ", (int)t->wf->tracer,
			lt_wf_pstate_words(t->wf->tracer_st));
		text_str(f, t->wf->tracer_doing ? t->wf->tracer_doing : "?");
		fputc('\n', f);
	}
	if (t->acquire && !t->futex.rtlock) {
		fputs("  waits in a lock acquire: ", f);
		text_str(f, t->acquire);
		fputc('\n', f);
	}
	if (t->app_class) {
		fprintf(f, "  %s %s: ", t->app ? t->app : "?",
			t->app_class == LT_APPWAIT_LOCK ? "lock wait, for" : "idle wait, for");
		text_str(f, t->app_what);
		fputs(" [", f);
		text_str(f, t->app_via ? t->app_via : "?");
		fputs("]\n", f);
		if (t->app_title) {
			fputs("  process title: ", f);
			text_str(f, t->app_title);
			fputc('\n', f);
		}
	}
	if (t->futex.lock_state) {
		fputs("  lock state: ", f);
		text_str(f, t->futex.lock_state);
		fputc('\n', f);
	}
	if (t->kstack_status == LT_KSTACK_OK && t->kstack.n) {
		fputs("  kernel:", f);
		for (size_t i = 0; i < t->kstack.n; i++) {
			fputs(i ? " < " : " ", f);
			text_str(f, t->kstack.v[i]);
		}
		fputc('\n', f);
	} else if (t->kstack_status == LT_KSTACK_UNAVAILABLE) {
		fputs("  kernel: unavailable\n", f);
	}
	if (t->n_frames || t->ustack_end) {
		fprintf(f, "  user (registers: %s):\n", lt_regs_source_name(t->regs_src));
		for (size_t i = 0; i < t->n_frames; i++) {
			text_rtframes_at(f, t, (int)i);
			text_frame(f, i, &t->frames[i]);
		}
		if (t->ustack_end) {
			fputs("    ", f);
			text_str(f, t->ustack_end);
			fputc('\n', f);
		}
	}
	text_rtframes_unplaced(f, t);
	for (size_t i = 0; i < t->notes.n; i++) {
		fputs("  note: ", f);
		text_str(f, t->notes.v[i]);
		fputc('\n', f);
	}
}

static void text_header(FILE *f, const struct lt_snapshot *s)
{
	char when[64] = "?";
	time_t sec = (time_t)(s->taken_realtime_ns / 1000000000LL);
	struct tm tm;
	if (localtime_r(&sec, &tm))
		strftime(when, sizeof(when), "%Y-%m-%d %H:%M:%S", &tm);
	fprintf(f, "snapshot of pid %d (", (int)s->pid);
	text_str(f, s->comm);
	fputs(") ", f);
	text_str(f, s->exe ? s->exe : "?");
	fprintf(f, ": %zu thread%s at %s, took %.1f ms\n", s->n_threads, s->n_threads == 1 ? "" : "s",
		when, (double)s->duration_ns / 1e6);
	for (size_t i = 0; i < s->notes.n; i++) {
		fputs("note: ", f);
		text_str(f, s->notes.v[i]);
		fputc('\n', f);
	}
}

/* At most this many runtime locks that no thread of the snapshot waits on
 * are printed (a runtime's memory may describe any number of them); the
 * JSON has them all. */
#define TEXT_IDLE_RTLOCKS 32

static void text_body(FILE *f, const struct lt_snapshot *s)
{
	unsigned char *claimed = calloc(s->n_rtlocks ? s->n_rtlocks : 1, 1);
	size_t idle = 0;
	for (size_t i = 0; claimed && i < s->n_threads; i++) {
		unsigned k = s->threads[i].futex.rtlock;
		if (k && k <= s->n_rtlocks)
			claimed[k - 1] = 1;
	}
	for (size_t i = 0; i < s->n_rtlocks; i++)
		if (!claimed || claimed[i] || idle++ < TEXT_IDLE_RTLOCKS)
			text_rtlock(f, s, &s->rtlocks[i]);
	if (idle > TEXT_IDLE_RTLOCKS)
		fprintf(f, "\n(%zu more runtime locks that no thread of this process waits on: all of them "
			"in --json)\n", idle - TEXT_IDLE_RTLOCKS);
	free(claimed);
	lt_go_print_text(f, s);
	for (size_t i = 0; i < s->n_threads; i++) {
		fputc('\n', f);
		text_thread(f, &s->threads[i]);
	}
}

void lt_snapshot_print_text(FILE *f, const struct lt_snapshot *s)
{
	text_header(f, s);
	fputc('\n', f);
	for (size_t i = 0; i < s->n_verdicts; i++)
		text_verdict(f, &s->verdicts[i]);
	text_body(f, s);
}

/* ---- several processes ---- */

/* "thread 12 of process 10 (server), thread 15 of process 11 (worker)" */
static void text_processes_of(FILE *f, const struct lt_multi_snapshot *m, const struct lt_verdict *v)
{
	fputs("    - processes:", f);
	for (size_t i = 0; i < v->n_tids; i++) {
		pid_t pid = lt_multi_pid_of(m, v->tids[i]);
		const char *comm = "?";
		for (size_t k = 0; k < m->n_procs; k++)
			if (m->procs[k]->pid == pid)
				comm = m->procs[k]->comm;
		fprintf(f, "%s thread %d of process %d (", i ? "," : "", (int)v->tids[i], (int)pid);
		text_str(f, comm);
		fputc(')', f);
	}
	fputc('\n', f);
}

void lt_multi_print_text(FILE *f, const struct lt_multi_snapshot *m)
{
	fprintf(f, "snapshot of %zu processes, diagnosed together:", m->n_procs);
	for (size_t i = 0; i < m->n_procs; i++) {
		fprintf(f, "%s pid %d (", i ? "," : "", (int)m->procs[i]->pid);
		text_str(f, m->procs[i]->comm);
		fputc(')', f);
	}
	fputc('\n', f);
	for (size_t i = 0; i < m->view.notes.n; i++) {
		fputs("note: ", f);
		text_str(f, m->view.notes.v[i]);
		fputc('\n', f);
	}
	fputc('\n', f);
	for (size_t i = 0; i < m->view.n_verdicts; i++) {
		text_verdict(f, &m->view.verdicts[i]);
		if (m->view.verdicts[i].n_tids)
			text_processes_of(f, m, &m->view.verdicts[i]);
	}
	for (size_t i = 0; i < m->n_procs; i++) {
		fprintf(f, "\n=== process %d ===\n", (int)m->procs[i]->pid);
		text_header(f, m->procs[i]);
		text_body(f, m->procs[i]);
	}
}

int lt_multi_print_json(FILE *f, const struct lt_multi_snapshot *m)
{
	struct jw w;
	jw_init(&w, f, JW_COMPACT);
	jw_object(&w);
	jw_kstr(&w, "schema", "locktrace.snapshot-multi/1");
	jw_karray(&w, "pids");
	for (size_t i = 0; i < m->n_procs; i++)
		jw_int(&w, (int)m->procs[i]->pid);
	jw_end(&w);
	json_strlist(&w, "notes", &m->view.notes);
	json_verdicts(&w, m->view.verdicts, m->view.n_verdicts, m);
	jw_karray(&w, "processes");
	jw_lines(&w, 0, 0);
	for (size_t i = 0; i < m->n_procs; i++)
		json_snapshot(&w, m->procs[i]);
	jw_end(&w);
	jw_end(&w);
	return jw_finish(&w);
}
