// SPDX-License-Identifier: MIT
/*
 * The Chrome trace-event JSON writer (src/output/jsontrace.h).
 *
 * Timestamps are microseconds with three decimals, so nanoseconds survive.
 * A flow is a pair of v1 flow events at the moment of the wake-up: "s" on
 * the waker's thread (inside its waking call) and "f" with "bp":"e" on the
 * wakee's thread one nanosecond later, inside a slice "woken" nested in the
 * wait, from the wake-up to the wait's end: viewers bind each to the slice
 * enclosing it.  Binding the "f" to the wait itself would reverse the
 * arrow in Perfetto, whose importer points a v1 flow from the slice that
 * began first (the wait) to the other.
 */
#include <errno.h>
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>
#include "filelock.h"
#include "jsonw.h"
#include "jsontrace.h"
#include "u64map.h"

struct lt_jsontrace {
	struct jw w; /* inside "traceEvents" between events */
	uint32_t pid;
	struct lt_namers names;
	/* a trace of several processes: tid -> tgid of the threads of another
	 * process than pid, and the processes named so far */
	struct lt_u64map tgids, procs;
	struct lt_proc_info *hprocs; /* the header's processes (names) */
	uint32_t nhprocs;
	int oom;
};

/* ---- output ------------------------------------------------------------ */

/* A string of at most max bytes (stopping at a NUL). */
static void kstrn(struct jw *w, const char *key, const char *s, size_t max)
{
	jw_key(w, key);
	jw_strn(w, s, strnlen(s, max));
}

/* Nanoseconds as microseconds with three decimals, exactly. */
static void kts(struct jw *w, const char *key, uint64_t ns)
{
	jw_key(w, key);
	jw_fixed(w, ns, 3);
}

/* Starts an event object: phase, pid, tid. */
static struct jw *ev_begin_pid(struct lt_jsontrace *j, char ph, uint32_t pid, uint32_t tid)
{
	char p[2] = { ph, 0 };
	jw_object(&j->w);
	jw_kstr(&j->w, "ph", p);
	jw_kuint(&j->w, "pid", pid);
	jw_kuint(&j->w, "tid", tid);
	return &j->w;
}

/* The same with the process of thread tid (the trace's pid unless the
 * thread belongs to another traced process). */
static struct jw *ev_begin(struct lt_jsontrace *j, char ph, uint32_t tid)
{
	uint32_t tgid = (uint32_t)(uintptr_t)lt_u64map_get(&j->tgids, tid);
	return ev_begin_pid(j, ph, tgid ? tgid : j->pid, tid);
}

static void meta_name_pid(struct lt_jsontrace *j, const char *what, uint32_t pid, uint32_t tid,
			  const char *name, size_t max)
{
	struct jw *w = ev_begin_pid(j, 'M', pid, tid);
	jw_kstr(w, "name", what);
	jw_kobject(w, "args");
	kstrn(w, "name", name, max);
	jw_end(w);
	jw_end(w);
}

static void meta_name(struct lt_jsontrace *j, const char *what, uint32_t tid, const char *name,
		      size_t max)
{
	uint32_t tgid = (uint32_t)(uintptr_t)lt_u64map_get(&j->tgids, tid);
	meta_name_pid(j, what, tgid ? tgid : j->pid, tid, name, max);
}

/* A thread of another traced process: under its own process, named by its
 * first thread seen (a fork's main thread) or the header's process list. */
static void other_process_thread(struct lt_jsontrace *j, const struct lt_thread_ev *t)
{
	if (lt_u64map_put(&j->tgids, t->tid, (void *)(uintptr_t)t->tgid))
		j->oom = 1;
	if (lt_u64map_get(&j->procs, t->tgid))
		return;
	if (lt_u64map_put(&j->procs, t->tgid, (void *)1))
		j->oom = 1;
	const char *name = t->name;
	for (uint32_t i = 0; i < j->nhprocs; i++)
		if ((uint32_t)j->hprocs[i].tgid == t->tgid && j->hprocs[i].comm[0])
			name = j->hprocs[i].comm;
	meta_name_pid(j, "process_name", t->tgid, t->tgid, name, LT_COMM_LEN);
}

/* ---- callbacks ----------------------------------------------------------- */

static void on_thread(void *ctx, const struct lt_thread_ev *t)
{
	struct lt_jsontrace *j = ctx;
	char rn[256];
	if (t->change == LT_THREAD_NEW && t->tgid && t->tgid != j->pid)
		other_process_thread(j, t);
	if ((t->change == LT_THREAD_NEW || t->change == LT_THREAD_RENAME) &&
	    lt_namers_thread(&j->names, t->tid, rn, sizeof(rn)))
		meta_name(j, "thread_name", t->tid, rn, sizeof(rn)); /* the runtime's name */
	else if (t->change == LT_THREAD_NEW || t->change == LT_THREAD_RENAME)
		meta_name(j, "thread_name", t->tid, t->name, LT_COMM_LEN);
	else if (t->change == LT_THREAD_EXEC)
		meta_name_pid(j, "process_name", t->tgid ? t->tgid : j->pid, t->tgid ? t->tgid : j->pid,
			      t->name, LT_COMM_LEN);
}

/* What the call was called with. */
static void call_params(struct jw *w, const struct lt_span *s)
{
	const struct lt_event *e = &s->enter;
	char buf[96];

	if (e->h.kind == LT_EV_FUTEX_ENTER) {
		const struct lt_futex_enter *f = &e->futex;
		jw_khex(w, "addr", f->uaddr);
		jw_kstr(w, "op", lt_futex_op_name(f->op, f->nr, buf, sizeof(buf)));
		if (s->flags & LT_SPAN_WAIT) {
			jw_kuint(w, "expected", f->val);
			if (f->timeout >= 0)
				jw_kint(w, "timeout_ns", f->timeout);
		} else if (s->flags & LT_SPAN_WAKER) {
			jw_kuint(w, "nr_wake", f->val);
		}
	} else if (e->h.kind == LT_EV_WAIT_ENTER) {
		if (e->wait.fds[0] >= 0)
			jw_kint(w, "fd", e->wait.fds[0]);
		jw_kuint(w, "nfds", e->wait.nfds);
		if (e->wait.timeout_ns >= 0)
			jw_kint(w, "timeout_ns", e->wait.timeout_ns);
	} else if (e->h.kind == LT_EV_IO_ENTER) {
		jw_kint(w, "fd", e->io.fd);
		if (e->io.count != LT_IO_COUNT_UNKNOWN)
			jw_kuint(w, "bytes", e->io.count);
		if (lt_span_fd_kind(s))
			jw_kstr(w, "fd_kind", lt_span_fd_kind(s));
	} else if (e->h.kind == LT_EV_FLOCK_ENTER) {
		char call[200];
		jw_kint(w, "fd", e->flk.fd);
		lt_flock_call_str(&e->flk, NULL, call, sizeof(call));
		jw_kstr(w, "call", call);
	}
}

/* Who woke the call, when no traced call did (the flows show those). */
static void call_waker(struct jw *w, const struct lt_span *s)
{
	for (uint32_t i = 0; i < s->nwoken_by; i++) {
		const struct lt_wake_edge *e = &s->woken_by[i];
		if (e->waker_span)
			continue;
		if (e->flags & LT_WAKE_IDLE) {
			jw_kstr(w, "woken_by", "interrupt (idle cpu)");
		} else if (e->flags & LT_WAKE_IRQ) {
			jw_kstr(w, "woken_by", "interrupt");
			jw_kuint(w, "interrupted_tid", e->waker_tid);
		} else {
			kstrn(w, "woken_by", e->waker_comm, LT_COMM_LEN);
			jw_kuint(w, "waker_tid", e->waker_tid);
		}
		break;
	}
}

static void call_args(struct jw *w, const struct lt_span *s)
{
	jw_kobject(w, "args");
	call_params(w, s);
	if (s->flags & LT_SPAN_HAS_RESULT) {
		const char *en = s->ret < 0 && s->ret >= -4095 ? strerrorname_np((int)-s->ret) : NULL;
		if (en)
			jw_kstr(w, "errno", en);
		else
			jw_kint(w, "result", s->ret);
	}
	if (s->flags & LT_SPAN_AT_START) {
		jw_kbool(w, "blocked_at_start", true);
		jw_kuint(w, "blocked_before_ns", s->blocked_before_ns);
	}
	if (s->flags & LT_SPAN_UNFINISHED)
		jw_kbool(w, "unfinished", true);
	if (s->flags & (LT_SPAN_END_INFERRED | LT_SPAN_THREAD_EXIT))
		jw_kstr(w, "note", s->flags & LT_SPAN_THREAD_EXIT ? "ended by the thread's exit"
				   : "return not recorded; ends when the thread next ran");
	call_waker(w, s);
	jw_end(w);
}

/* A flow event ("s" or "f") of wake-up ID at TS. */
static void flow(struct lt_jsontrace *j, char ph, uint32_t tid, uint64_t id, uint64_t ts)
{
	struct jw *w = ev_begin(j, ph, tid);
	if (ph == 'f')
		jw_kstr(w, "bp", "e");
	jw_kstr(w, "name", "wake");
	jw_kstr(w, "cat", "wake");
	jw_kuint(w, "id", id);
	kts(w, "ts", ts);
	jw_end(w);
}

/* The slice "woken" in a wait that a traced call ended: from the first
 * wake-up to the end of the wait; the flows end in it. */
static void woken_slice(struct lt_jsontrace *j, const struct lt_span *s)
{
	uint64_t first = 0;
	for (uint32_t i = 0; i < s->nwoken_by; i++) {
		const struct lt_wake_edge *w = &s->woken_by[i];
		if (w->waker_span && (!first || w->ts < first))
			first = w->ts;
	}
	if (!first)
		return;
	if (first < s->begin_ts || first > s->end_ts)
		first = s->end_ts;
	struct jw *w = ev_begin(j, 'X', s->tid);
	jw_kstr(w, "name", "woken");
	jw_kstr(w, "cat", "wake");
	kts(w, "ts", first);
	kts(w, "dur", s->end_ts - first);
	jw_end(w);
}

static void on_span_end(void *ctx, const struct lt_span *s)
{
	struct lt_jsontrace *j = ctx;
	struct jw *w = ev_begin(j, 'X', s->tid);

	char nbuf[320];
	jw_kstr(w, "name", lt_namers_span(&j->names, s, nbuf, sizeof(nbuf)));
	jw_kstr(w, "cat", s->enter.h.kind == LT_EV_FUTEX_ENTER ? "futex"
			  : s->enter.h.kind == LT_EV_WAIT_ENTER ? "wait"
			  : s->enter.h.kind == LT_EV_FLOCK_ENTER ? "file_lock" : "io");
	kts(w, "ts", s->begin_ts);
	kts(w, "dur", s->end_ts - s->begin_ts);
	call_args(w, s);
	jw_end(w);

	for (uint32_t i = 0; i < s->nwoke; i++)
		flow(j, 's', s->tid, s->woke[i].id, s->woke[i].ts);
	woken_slice(j, s);
	for (uint32_t i = 0; i < s->nwoken_by; i++) {
		const struct lt_wake_edge *e = &s->woken_by[i];
		if (e->waker_span)
			flow(j, 'f', s->tid, e->id, e->ts + 1 < s->end_ts ? e->ts + 1 : s->end_ts);
	}
}

static void on_lock(void *ctx, const struct lt_lock_ev *l)
{
	struct lt_jsontrace *j = ctx;
	char name[200];
	struct jw *w = ev_begin(j, 'C', j->pid);
	/* viewers name a counter track "NAME ARGKEY": "futex 0x... waiters" */
	jw_kstr(w, "name", lt_namers_lock_track(&j->names, l->addr, name, sizeof(name)));
	kts(w, "ts", l->ts);
	jw_kobject(w, "args");
	jw_kuint(w, "waiters", l->waiters);
	jw_end(w);
	jw_end(w);
}

static void on_lost(void *ctx, const struct lt_event *ev)
{
	struct lt_jsontrace *j = ctx;
	struct jw *w = ev_begin(j, 'i', j->pid);
	jw_kstr(w, "s", "p");
	jw_kstr(w, "name", "lost events");
	kts(w, "ts", ev->h.ts);
	jw_kobject(w, "args");
	jw_kuint(w, "count", ev->lost.count);
	jw_kstr(w, "kind", lt_kind_name(ev->lost.lost_kind));
	jw_kuint(w, "cpu", ev->h.cpu);
	jw_end(w);
	jw_end(w);
}

/* ---- public -------------------------------------------------------------- */

struct lt_jsontrace *lt_jsontrace_new(FILE *f, const struct lt_header *hdr)
{
	struct lt_jsontrace *j = calloc(1, sizeof(*j));
	if (!j)
		return NULL;
	struct jw *w = &j->w;
	jw_init(w, f, JW_COMPACT);
	j->pid = (uint32_t)hdr->pid;
	if (hdr->nprocs && (j->hprocs = calloc(hdr->nprocs, sizeof(*j->hprocs)))) {
		memcpy(j->hprocs, hdr->procs, hdr->nprocs * sizeof(*j->hprocs));
		j->nhprocs = hdr->nprocs;
	}
	jw_object(w);
	jw_kstr(w, "displayTimeUnit", "ns");
	jw_kobject(w, "otherData");
	jw_kstr(w, "producer", "locktrace");
	kstrn(w, "kernel", hdr->kernel, sizeof(hdr->kernel));
	kstrn(w, "cmdline", hdr->cmdline, sizeof(hdr->cmdline));
	jw_end(w);
	jw_karray(w, "traceEvents");
	jw_lines(w, 0, 0);
	meta_name(j, "process_name", j->pid, hdr->comm, LT_COMM_LEN);
	return j;
}

void lt_jsontrace_sink(struct lt_jsontrace *j, struct lt_timeline_sink *sink)
{
	*sink = (struct lt_timeline_sink){ .ctx = j, .thread = on_thread, .span_end = on_span_end,
					   .lock = on_lock, .lost = on_lost };
}

void lt_jsontrace_set_namers(struct lt_jsontrace *j, const struct lt_namers *names)
{
	j->names = *names;
}

int lt_jsontrace_finish(struct lt_jsontrace *j)
{
	jw_end(&j->w);
	jw_end(&j->w);
	int r = jw_finish(&j->w);
	return r ? r : j->oom ? -ENOMEM : 0;
}

void lt_jsontrace_free(struct lt_jsontrace *j)
{
	if (!j)
		return;
	lt_u64map_free(&j->tgids);
	lt_u64map_free(&j->procs);
	free(j->hprocs);
	free(j);
}
