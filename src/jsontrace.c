// SPDX-License-Identifier: MIT
/*
 * The Chrome trace-event JSON writer (include/locktrace/jsontrace.h).
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
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>
#include "locktrace/jsontrace.h"
#include "u64map.h"
#include "utf8.h"

struct lt_jsontrace {
	FILE *f;
	uint32_t pid;
	/* a trace of several processes: tid -> tgid of the threads of another
	 * process than pid, and the processes named so far */
	struct lt_u64map tgids, procs;
	struct lt_proc_info *hprocs; /* the header's processes (names) */
	uint32_t nhprocs;
	int first; /* no event written yet (no comma before it) */
	int err;
	int (*lock_name)(void *ctx, uint64_t addr, char *buf, size_t len);
	void *lock_name_ctx;
	int (*thread_name)(void *ctx, uint32_t tid, char *buf, size_t len);
	void *thread_name_ctx;
};

/* ---- output ------------------------------------------------------------ */

static void put(struct lt_jsontrace *j, const char *fmt, ...)
{
	va_list ap;
	va_start(ap, fmt);
	if (vfprintf(j->f, fmt, ap) < 0 && !j->err)
		j->err = -(errno ? errno : EIO);
	va_end(ap);
}

/* A quoted, escaped string. */
static void put_str(struct lt_jsontrace *j, const char *s, size_t len)
{
	char small[6 * 64 + 1], *buf = small;
	size_t cap = sizeof(small);

	if (len > 64) {
		cap = 6 * len + 1;
		if (!(buf = malloc(cap))) {
			j->err = -ENOMEM;
			return;
		}
	}
	lt_json_escape(buf, cap, s, len);
	put(j, "\"%s\"", buf);
	if (buf != small)
		free(buf);
}

static void put_cstr(struct lt_jsontrace *j, const char *s)
{
	put_str(j, s, strlen(s));
}

static void put_ts(struct lt_jsontrace *j, const char *key, uint64_t ns)
{
	put(j, ",\"%s\":%" PRIu64 ".%03u", key, ns / 1000, (unsigned)(ns % 1000));
}

/* Starts an event object: the separator, phase, pid, tid. */
static void ev_begin_pid(struct lt_jsontrace *j, char ph, uint32_t pid, uint32_t tid)
{
	put(j, "%s\n{\"ph\":\"%c\",\"pid\":%u,\"tid\":%u", j->first ? "" : ",", ph, pid, tid);
	j->first = 0;
}

/* The same with the process of thread tid (the trace's pid unless the
 * thread belongs to another traced process). */
static void ev_begin(struct lt_jsontrace *j, char ph, uint32_t tid)
{
	uint32_t tgid = (uint32_t)(uintptr_t)lt_u64map_get(&j->tgids, tid);
	ev_begin_pid(j, ph, tgid ? tgid : j->pid, tid);
}

static void meta_name_pid(struct lt_jsontrace *j, const char *what, uint32_t pid, uint32_t tid,
			  const char *name, size_t max)
{
	ev_begin_pid(j, 'M', pid, tid);
	put(j, ",\"name\":\"%s\",\"args\":{\"name\":", what);
	put_str(j, name, strnlen(name, max));
	put(j, "}}");
}

static void meta_name(struct lt_jsontrace *j, const char *what, uint32_t tid, const char *name,
		      size_t max)
{
	ev_begin(j, 'M', tid);
	put(j, ",\"name\":\"%s\",\"args\":{\"name\":", what);
	put_str(j, name, strnlen(name, max));
	put(j, "}}");
}

/* ---- callbacks ----------------------------------------------------------- */

static void on_thread(void *ctx, const struct lt_thread_ev *t)
{
	struct lt_jsontrace *j = ctx;
	char rn[256];
	if (t->change == LT_THREAD_NEW && t->tgid && t->tgid != j->pid) {
		/* a thread of another traced process: under its own process,
		 * named by its first thread seen (a fork's main thread) */
		if (lt_u64map_put(&j->tgids, t->tid, (void *)(uintptr_t)t->tgid) && !j->err)
			j->err = -ENOMEM;
		if (!lt_u64map_get(&j->procs, t->tgid)) {
			if (lt_u64map_put(&j->procs, t->tgid, (void *)1) && !j->err)
				j->err = -ENOMEM;
			const char *name = t->name;
			for (uint32_t i = 0; i < j->nhprocs; i++)
				if ((uint32_t)j->hprocs[i].tgid == t->tgid && j->hprocs[i].comm[0])
					name = j->hprocs[i].comm;
			meta_name_pid(j, "process_name", t->tgid, t->tgid, name, LT_COMM_LEN);
		}
	}
	if ((t->change == LT_THREAD_NEW || t->change == LT_THREAD_RENAME) && j->thread_name &&
	    j->thread_name(j->thread_name_ctx, t->tid, rn, sizeof(rn)) > 0)
		meta_name(j, "thread_name", t->tid, rn, sizeof(rn)); /* the runtime's name */
	else if (t->change == LT_THREAD_NEW || t->change == LT_THREAD_RENAME)
		meta_name(j, "thread_name", t->tid, t->name, LT_COMM_LEN);
	else if (t->change == LT_THREAD_EXEC)
		meta_name_pid(j, "process_name", t->tgid ? t->tgid : j->pid, t->tgid ? t->tgid : j->pid, t->name,
			      LT_COMM_LEN);
}

static void arg_sep(struct lt_jsontrace *j, int *n)
{
	put(j, *n ? "," : "");
	(*n)++;
}

static void call_args(struct lt_jsontrace *j, const struct lt_span *s)
{
	const struct lt_event *e = &s->enter;
	char buf[96];
	int n = 0;

	put(j, ",\"args\":{");
	if (e->h.kind == LT_EV_FUTEX_ENTER) {
		const struct lt_futex_enter *f = &e->futex;
		arg_sep(j, &n);
		put(j, "\"addr\":\"0x%" PRIx64 "\"", f->uaddr);
		arg_sep(j, &n);
		put(j, "\"op\":");
		put_cstr(j, lt_futex_op_name(f->op, f->nr, buf, sizeof(buf)));
		if (s->flags & LT_SPAN_WAIT) {
			arg_sep(j, &n);
			put(j, "\"expected\":%u", f->val);
			if (f->timeout >= 0) {
				arg_sep(j, &n);
				put(j, "\"timeout_ns\":%" PRId64, f->timeout);
			}
		} else if (s->flags & LT_SPAN_WAKER) {
			arg_sep(j, &n);
			put(j, "\"nr_wake\":%u", f->val);
		}
	} else if (e->h.kind == LT_EV_WAIT_ENTER) {
		if (e->wait.fds[0] >= 0) {
			arg_sep(j, &n);
			put(j, "\"fd\":%d", e->wait.fds[0]);
		}
		arg_sep(j, &n);
		put(j, "\"nfds\":%u", e->wait.nfds);
		if (e->wait.timeout_ns >= 0) {
			arg_sep(j, &n);
			put(j, "\"timeout_ns\":%" PRId64, e->wait.timeout_ns);
		}
	} else if (e->h.kind == LT_EV_IO_ENTER) {
		arg_sep(j, &n);
		put(j, "\"fd\":%d", e->io.fd);
		if (e->io.count != LT_IO_COUNT_UNKNOWN)
			put(j, ",\"bytes\":%" PRIu64, e->io.count);
	}
	if (s->flags & LT_SPAN_HAS_RESULT) {
		const char *en = s->ret < 0 && s->ret >= -4095 ? strerrorname_np((int)-s->ret) : NULL;
		arg_sep(j, &n);
		if (en) {
			put(j, "\"errno\":");
			put_cstr(j, en);
		} else {
			put(j, "\"result\":%" PRId64, s->ret);
		}
	}
	if (s->flags & LT_SPAN_AT_START) {
		arg_sep(j, &n);
		put(j, "\"blocked_at_start\":true,\"blocked_before_ns\":%" PRIu64, s->blocked_before_ns);
	}
	if (s->flags & LT_SPAN_UNFINISHED) {
		arg_sep(j, &n);
		put(j, "\"unfinished\":true");
	}
	if (s->flags & (LT_SPAN_END_INFERRED | LT_SPAN_THREAD_EXIT)) {
		arg_sep(j, &n);
		put(j, "\"note\":\"%s\"", s->flags & LT_SPAN_THREAD_EXIT ? "ended by the thread's exit"
					  : "return not recorded; ends when the thread next ran");
	}
	for (uint32_t i = 0; i < s->nwoken_by; i++) {
		const struct lt_wake_edge *w = &s->woken_by[i];
		if (w->waker_span)
			continue;
		arg_sep(j, &n);
		put(j, "\"woken_by\":");
		if (w->flags & LT_WAKE_IDLE) {
			put_cstr(j, "interrupt (idle cpu)");
		} else if (w->flags & LT_WAKE_IRQ) {
			put_cstr(j, "interrupt");
			put(j, ",\"interrupted_tid\":%u", w->waker_tid);
		} else {
			put_str(j, w->waker_comm, strnlen(w->waker_comm, LT_COMM_LEN));
			put(j, ",\"waker_tid\":%u", w->waker_tid);
		}
		break;
	}
	put(j, "}");
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
	ev_begin(j, 'X', s->tid);
	put(j, ",\"name\":\"woken\",\"cat\":\"wake\"");
	put_ts(j, "ts", first);
	put_ts(j, "dur", s->end_ts - first);
	put(j, "}");
}

static void on_span_end(void *ctx, const struct lt_span *s)
{
	struct lt_jsontrace *j = ctx;

	ev_begin(j, 'X', s->tid);
	put(j, ",\"name\":");
	put_cstr(j, lt_span_name(s));
	put(j, ",\"cat\":\"%s\"", s->enter.h.kind == LT_EV_FUTEX_ENTER ? "futex"
				 : s->enter.h.kind == LT_EV_WAIT_ENTER ? "wait" : "io");
	put_ts(j, "ts", s->begin_ts);
	put_ts(j, "dur", s->end_ts - s->begin_ts);
	call_args(j, s);
	put(j, "}");

	for (uint32_t i = 0; i < s->nwoke; i++) {
		ev_begin(j, 's', s->tid);
		put(j, ",\"name\":\"wake\",\"cat\":\"wake\",\"id\":%" PRIu64, s->woke[i].id);
		put_ts(j, "ts", s->woke[i].ts);
		put(j, "}");
	}
	woken_slice(j, s);
	for (uint32_t i = 0; i < s->nwoken_by; i++) {
		const struct lt_wake_edge *w = &s->woken_by[i];
		if (!w->waker_span)
			continue;
		uint64_t ts = w->ts + 1 < s->end_ts ? w->ts + 1 : s->end_ts;
		ev_begin(j, 'f', s->tid);
		put(j, ",\"bp\":\"e\",\"name\":\"wake\",\"cat\":\"wake\",\"id\":%" PRIu64, w->id);
		put_ts(j, "ts", ts);
		put(j, "}");
	}
}

static void on_lock(void *ctx, const struct lt_lock_ev *l)
{
	struct lt_jsontrace *j = ctx;
	char sym[128], name[200];
	ev_begin(j, 'C', j->pid);
	/* viewers name a counter track "NAME ARGKEY": "futex 0x... waiters" */
	if (j->lock_name && j->lock_name(j->lock_name_ctx, l->addr, sym, sizeof(sym)) > 0)
		snprintf(name, sizeof(name), "%.127s (futex 0x%" PRIx64 ")", sym, l->addr);
	else
		snprintf(name, sizeof(name), "futex 0x%" PRIx64, l->addr);
	put(j, ",\"name\":");
	put_cstr(j, name);
	put_ts(j, "ts", l->ts);
	put(j, ",\"args\":{\"waiters\":%u}}", l->waiters);
}

static void on_lost(void *ctx, const struct lt_event *ev)
{
	struct lt_jsontrace *j = ctx;
	ev_begin(j, 'i', j->pid);
	put(j, ",\"s\":\"p\",\"name\":\"lost events\"");
	put_ts(j, "ts", ev->h.ts);
	put(j, ",\"args\":{\"count\":%" PRIu64 ",\"kind\":\"%s\",\"cpu\":%u}}", ev->lost.count,
	    lt_kind_name(ev->lost.lost_kind), ev->h.cpu);
}

/* ---- public -------------------------------------------------------------- */

struct lt_jsontrace *lt_jsontrace_new(FILE *f, const struct lt_header *hdr)
{
	struct lt_jsontrace *j = calloc(1, sizeof(*j));
	if (!j)
		return NULL;
	j->f = f;
	j->pid = (uint32_t)hdr->pid;
	if (hdr->nprocs && (j->hprocs = calloc(hdr->nprocs, sizeof(*j->hprocs)))) {
		memcpy(j->hprocs, hdr->procs, hdr->nprocs * sizeof(*j->hprocs));
		j->nhprocs = hdr->nprocs;
	}
	j->first = 1;
	put(j, "{\"displayTimeUnit\":\"ns\",\"otherData\":{\"producer\":\"locktrace\",\"kernel\":");
	put_str(j, hdr->kernel, strnlen(hdr->kernel, sizeof(hdr->kernel)));
	put(j, ",\"cmdline\":");
	put_str(j, hdr->cmdline, strnlen(hdr->cmdline, sizeof(hdr->cmdline)));
	put(j, "},\"traceEvents\":[");
	meta_name(j, "process_name", j->pid, hdr->comm, LT_COMM_LEN);
	return j;
}

void lt_jsontrace_sink(struct lt_jsontrace *j, struct lt_timeline_sink *sink)
{
	memset(sink, 0, sizeof(*sink));
	sink->ctx = j;
	sink->thread = on_thread;
	sink->span_end = on_span_end;
	sink->lock = on_lock;
	sink->lost = on_lost;
}

void lt_jsontrace_set_thread_namer(struct lt_jsontrace *j,
				   int (*fn)(void *ctx, uint32_t tid, char *buf, size_t len), void *ctx)
{
	j->thread_name = fn;
	j->thread_name_ctx = ctx;
}

void lt_jsontrace_set_lock_namer(struct lt_jsontrace *j,
				 int (*fn)(void *ctx, uint64_t addr, char *buf, size_t len), void *ctx)
{
	j->lock_name = fn;
	j->lock_name_ctx = ctx;
}

int lt_jsontrace_finish(struct lt_jsontrace *j)
{
	put(j, "\n]}\n");
	if (fflush(j->f) && !j->err)
		j->err = -(errno ? errno : EIO);
	return j->err;
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
