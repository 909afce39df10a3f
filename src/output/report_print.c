// SPDX-License-Identifier: MIT
/* The report's two outputs: text for people (findings first, then the
 * tables, then what every thread was doing at the end) and JSON, schema
 * locktrace.report/1 (docs/report.md). */
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include "filelock.h"
#include "jsonw.h"
#include "timeline.h"
#include "snapshot.h"
#include "report_int.h"
#include "u64map.h"
#include "utf8.h"

/* ------------------------------------------------------------- helpers */

static const char *errname(int64_t ret, char *buf, size_t len)
{
	const char *n = ret < 0 && ret > -4096 ? strerrorname_np((int)-ret) : NULL;
	if (n)
		snprintf(buf, len, "-%s", n);
	else
		snprintf(buf, len, "%" PRId64, ret);
	return buf;
}

/* " -> 0 after 16 us, woken by 2107" / " not returned at the end (1.9 s)" */
static void fmt_result(const struct lt_report *r, const struct lt_report_call *c, char *buf, size_t len)
{
	char d[32], e[32], by[48] = "", woke[32] = "";
	lt_fmt_dur(c->end - c->begin + c->blocked_before_ns, d, sizeof(d));
	if (c->woken_by)
		snprintf(by, sizeof(by), ", woken by %u", c->woken_by);
	if (c->nwoke)
		snprintf(woke, sizeof(woke), ", woke %u", c->nwoke);
	if (c->flags & LT_SPAN_UNFINISHED)
		snprintf(buf, len, " not returned at the end (%s)", d);
	else if (c->flags & LT_SPAN_THREAD_EXIT)
		snprintf(buf, len, " ended by the thread's exit after %s", d);
	else if (!(c->flags & LT_SPAN_HAS_RESULT))
		snprintf(buf, len, " left after about %s (return not recorded)%s", d, by);
	else
		snprintf(buf, len, " -> %s after %s%s%s", errname(c->ret, e, sizeof(e)), d, by, woke);
	(void)r;
}

/* ---------------------------------------------------------------- JSON */

static const char *stop_name(uint32_t s)
{
	switch (s) {
	case LT_STOP_SIGNAL: return "signal";
	case LT_STOP_DURATION: return "duration";
	case LT_STOP_EXIT: return "target_exited";
	case LT_STOP_ERROR: return "error";
	case LT_STOP_STALL: return "stall";
	case LT_STOP_USR1: return "sigusr1";
	default: return "unknown";
	}
}

/* The report's strings: a missing one is "", not null. */
static void kstr(struct jw *w, const char *key, const char *s)
{
	jw_kstr(w, key, s ? s : "");
}

/* An address as "0x...", 0 as null. */
static void addr(struct jw *w, uint64_t a)
{
	if (a)
		jw_hex(w, a);
	else
		jw_null(w);
}

static void kaddr(struct jw *w, const char *key, uint64_t a)
{
	if (jw_key_or_null(w, key, a))
		jw_hex(w, a);
}

/* A timestamp, 0 (not recorded) as null. */
static void kts(struct jw *w, const char *key, uint64_t ns)
{
	jw_kuint_or_null(w, key, ns, ns != 0);
}

/* Nanoseconds as seconds. */
static void ksec(struct jw *w, const char *key, uint64_t ns)
{
	jw_kdouble(w, key, (double)ns / 1e9, 6);
}

static void json_call(struct jw *w, const struct lt_report *r, const struct lt_report_call *c)
{
	char name[160], op[64];
	jw_object(w);
	if (c->kind == LT_EV_FUTEX_ENTER)
		kstr(w, "call", lt_futex_op_name(c->op & ~0x180u, c->nr, op, sizeof(op)));
	else
		kstr(w, "call", lt_call_name(c->nr));
	jw_kuint(w, "nr", c->nr);
	kts(w, "begin_ns", c->begin);
	kts(w, "end_ns", c->end);
	ksec(w, "duration_s", c->end - c->begin + c->blocked_before_ns);
	jw_kbool(w, "unfinished", c->flags & LT_SPAN_UNFINISHED);
	jw_kbool(w, "result_recorded", c->flags & LT_SPAN_HAS_RESULT);
	jw_kint_or_null(w, "ret", c->ret, c->flags & LT_SPAN_HAS_RESULT);
	if (c->kind == LT_EV_FUTEX_ENTER) {
		kaddr(w, "futex", c->addr);
		kstr(w, "lock", lt_report_lock_name(r, c->addr, name, sizeof(name)));
		jw_kuint(w, "op", c->op);
		jw_kuint(w, "val", c->val);
	} else {
		jw_kint(w, "fd", c->fd);
		if (c->kind == LT_EV_WAIT_ENTER) {
			jw_kuint(w, "nfds", c->nfds);
		} else if (c->kind == LT_EV_FLOCK_ENTER) {
			char fl[200];
			lt_flock_call_str(&c->flk, NULL, fl, sizeof(fl));
			jw_kstr(w, "file_lock", fl);
			jw_kstr(w, "file_lock_kind", lt_flock_kind(&c->flk));
		} else {
			jw_kuint_or_null(w, "count", c->count, c->count != LT_IO_COUNT_UNKNOWN);
			/* recorded calls are on sockets, pipes and FIFOs; one
			 * begun before the trace may be on any fd: null */
			jw_kstr(w, "fd_kind", c->socket ? "socket" : c->pipe ? "pipe" : NULL);
		}
	}
	jw_kint_or_null(w, "timeout_ns", c->timeout_ns, c->timeout_ns >= 0);
	jw_kuint_or_null(w, "woken_by", c->woken_by, c->woken_by != 0);
	jw_kuint(w, "woke", c->nwoke);
	jw_end(w);
}

/* "cut": where a trace that did not end cleanly stops, or null. */
static void json_cut(struct jw *w, const struct lt_report *r)
{
	if (!jw_kobject_or_null(w, "cut", !r->clean_end))
		return;
	jw_kuint(w, "at_ns", r->end_ts);
	jw_kuint(w, "offset", r->stop_offset);
	kstr(w, "why", r->stop_why);
	jw_end(w);
}

static void json_trace(struct jw *w, const struct lt_report *r)
{
	jw_kobject(w, "trace");
	jw_kint(w, "pid", r->pid);
	kstr(w, "comm", r->comm);
	kstr(w, "exe", r->exe);
	kstr(w, "cmdline", r->cmdline);
	kstr(w, "host", r->host);
	kstr(w, "kernel", r->kernel);
	jw_break(w, 4);
	jw_kbool(w, "flight_dump", r->hdr_flags & LT_HDR_FLIGHT);
	jw_kbool(w, "launched", r->hdr_flags & LT_HDR_LAUNCHED);
	jw_kstr(w, "calls", r->hdr_flags & LT_HDR_CALLS_BLOCKING ? "blocking" : "all");
	jw_kuint(w, "start_ns", r->start_ts);
	jw_kuint(w, "end_ns", r->end_ts);
	ksec(w, "duration_s", r->end_ts - r->start_ts);
	static const char *const nk[] = { "boottime_at_attach_ns", "realtime_at_attach_ns", "events", "threads",
					  "locks" };
	const uint64_t n[] = { r->attach_boottime, r->attach_realtime, r->events, r->n_threads, r->n_locks };
	jw_break(w, 4);
	jw_kuints(w, nk, n, 5);
	jw_kstr(w, "stop_reason", r->have_stats ? stop_name(r->stop_reason) : NULL);
	jw_kbool(w, "clean_end", r->clean_end);
	jw_kuint(w, "damaged_bytes", r->damaged_bytes);
	json_cut(w, r);
	kts(w, "snapshot_ns", r->snapshot_ts);
	jw_kuint(w, "snapshots", r->n_snapshots);
	jw_end(w);
}

/* A top-level list: its items on lines of their own. */
static void list_begin(struct jw *w, const char *key)
{
	jw_karray(w, key);
	jw_lines(w, 4, 2);
}

/* "processes": the trace's processes, in a trace of several */
static void json_procs(struct jw *w, const struct lt_report *r)
{
	list_begin(w, "processes");
	for (size_t i = 0; i < r->n_procs; i++) {
		const struct lt_report_proc *p = &r->procs[i];
		jw_object(w);
		jw_kint(w, "pid", p->tgid);
		jw_kint(w, "ppid", p->ppid);
		kstr(w, "comm", p->comm);
		kstr(w, "cmdline", p->cmdline);
		jw_kuint(w, "threads", p->n_threads);
		jw_end(w);
	}
	jw_end(w);
}

static void json_finding(struct jw *w, const struct lt_report_finding *x)
{
	jw_object(w);
	jw_kstr(w, "kind", lt_finding_kind_name(x->kind));
	kstr(w, "rule", x->rule);
	kstr(w, "summary", x->summary);
	kts(w, "since_ns", x->since);
	ksec(w, "duration_s", x->duration_ns);
	jw_kuint_or_null(w, "holder", x->holder, x->holder != 0);
	jw_kint_or_null(w, "fd", x->fd, x->fd >= 0);
	jw_break(w, 5);
	jw_karray(w, "tids");
	for (size_t k = 0; k < x->n_tids; k++)
		jw_uint(w, x->tids[k]);
	jw_end(w);
	jw_karray(w, "locks");
	for (size_t k = 0; k < x->n_locks; k++)
		addr(w, x->locks[k]);
	jw_end(w);
	jw_break(w, 5);
	jw_karray(w, "evidence");
	jw_lines(w, 7, -1);
	for (size_t k = 0; k < x->n_evidence; k++)
		jw_str(w, x->evidence[k] ? x->evidence[k] : "");
	jw_end(w);
	jw_end(w);
}

/* The lock's last wake-up and its holder at the end, or nulls. */
static void json_lock_end(struct jw *w, const struct lt_report_lock *l)
{
	if (jw_kobject_or_null(w, "last_wake", l->last_wake_ts)) {
		jw_kuint(w, "ns", l->last_wake_ts);
		jw_kuint(w, "waker", l->last_waker);
		jw_kuint(w, "wakee", l->last_wakee);
		jw_end(w);
	}
	if (jw_kobject_or_null(w, "holder", l->holder)) {
		jw_kuint(w, "tid", l->holder);
		jw_kuint(w, "since_ns", l->holder_since);
		jw_end(w);
	}
	jw_kuint(w, "holder_offcpu", l->offcpu_count);
	ksec(w, "holder_offcpu_max_s", l->offcpu_max_ns);
}

static void json_lock(struct jw *w, const struct lt_report *r, const struct lt_report_lock *l)
{
	jw_object(w);
	kaddr(w, "addr", l->addr);
	if (r->n_procs > 1) /* a lock key: what it stands for */
		kstr(w, "key", l->key);
	jw_karray(w, "words");
	for (unsigned k = 0; k < l->n_words; k++)
		addr(w, l->words[k]);
	jw_end(w);
	jw_kstr(w, "kind", l->kind ? l->kind : "futex");
	if (l->not_lock) /* a runtime's own sleep (a Go M's park note) */
		jw_kbool(w, "not_a_lock", 1);
	jw_kstr(w, "symbol", l->symbol[0] ? l->symbol : NULL);
	static const char *const wk[] = { "waits", "eagain", "timeouts", "open_at_end" };
	const uint64_t wv[] = { l->waits, l->eagain, l->timeouts, l->open_at_end };
	jw_kuints(w, wk, wv, 4);
	jw_break(w, 5);
	ksec(w, "wait_total_s", l->total_ns);
	ksec(w, "wait_median_s", l->median_ns);
	ksec(w, "wait_p99_s", l->p99_ns);
	ksec(w, "wait_max_s", l->max_ns);
	jw_kuint(w, "max_waiters", l->max_waiters);
	kts(w, "max_waiters_ns", l->max_waiters_ts);
	jw_kuint(w, "max_queued_at_handoff", l->max_moving);
	jw_kuint(w, "waiters", l->n_waiters);
	jw_kuint(w, "wakers", l->n_wakers);
	static const char *const hk[] = { "wake_calls", "woken", "handoffs" };
	const uint64_t hv[] = { l->wake_calls, l->woken, l->handoffs };
	jw_kuints(w, hk, hv, 3);
	jw_break(w, 5);
	jw_kuint(w, "longest_chain", l->longest_chain);
	kts(w, "chain_begin_ns", l->chain_begin);
	kts(w, "chain_end_ns", l->chain_end);
	json_lock_end(w, l);
	jw_end(w);
}

/* A thread's time in each state and its counts. */
static void json_thread_counts(struct jw *w, const struct lt_report_thread *t)
{
	const uint64_t v[] = { t->running_ns, t->runnable_ns, t->futex_ns, t->poll_ns, t->io_ns,
			       t->pipe_ns, t->filelock_ns, t->other_ns, t->unknown_ns };
	const char *k[] = { "running", "runnable", "futex", "select_poll", "socket_io", "pipe_io", "file_lock",
			    "other", "unknown" };
	const uint64_t n[] = { t->futex_waits, t->futex_wakes, t->futex_other, t->polls, t->io_reads,
			       t->io_writes, t->pipe_reads, t->pipe_writes, t->filelock_calls, t->wakeups,
			       t->switches, t->preempted };
	static const char *const nk[] = { "futex_waits", "futex_wakes", "futex_other", "select_poll",
					  "socket_reads", "socket_writes", "pipe_reads", "pipe_writes",
					  "file_lock_calls", "woken", "switches", "preempted" };

	jw_break(w, 5);
	jw_kobject(w, "time_s");
	for (int j = 0; j < 9; j++)
		ksec(w, k[j], v[j]);
	jw_end(w);
	jw_break(w, 5);
	jw_kobject(w, "ops");
	jw_kuints(w, nk, n, 12);
	jw_end(w);
}

/* What the thread was in at the end. */
static void json_thread_end(struct jw *w, const struct lt_report *r, const struct lt_report_thread *t)
{
	jw_break(w, 5);
	jw_kobject(w, "end");
	jw_kstr(w, "state", lt_report_tstate_name(t->end_state));
	kts(w, "since_ns", t->end_since);
	jw_kbool(w, "asleep", t->asleep);
	if (jw_key_or_null(w, "call", t->has_end_call && t->end_state == LT_RTS_IN_CALL))
		json_call(w, r, &t->end_call);
	jw_kstr(w, "snapshot", t->snap_detail);
	jw_kstr(w, "where", t->snap_where);
	jw_end(w);
}

static void json_thread(struct jw *w, const struct lt_report *r, const struct lt_report_thread *t)
{
	jw_object(w);
	jw_kuint(w, "tid", t->tid);
	if (r->n_procs > 1) /* a trace of several processes */
		jw_kuint(w, "tgid", t->tgid);
	kstr(w, "name", t->name);
	jw_kstr(w, "runtime_name", t->rt_name);
	jw_kbool(w, "exited", t->exited);
	jw_kuint(w, "first_ns", t->first_ts);
	jw_kuint(w, "last_ns", t->last_ts);
	json_thread_counts(w, t);
	json_thread_end(w, r, t);
	jw_break(w, 5);
	jw_karray(w, "last_calls");
	jw_lines(w, 7, -1);
	for (size_t j = 0; j < t->n_last; j++)
		json_call(w, r, &t->last[j]);
	jw_end(w);
	jw_end(w);
}

static void json_edge(struct jw *w, const struct lt_report_edge *e)
{
	jw_object(w);
	jw_kuint(w, "waker", e->waker);
	kstr(w, "waker_name", e->waker_name);
	jw_kuint(w, "wakee", e->wakee);
	kstr(w, "wakee_name", e->wakee_name);
	static const char *const ck[] = { "count", "via_futex", "via_io", "other" };
	const uint64_t cv[] = { e->count, e->via_futex, e->via_io, e->other };
	jw_kuints(w, ck, cv, 4);
	jw_kbool(w, "from_interrupt", e->flags & (LT_WAKE_IDLE | LT_WAKE_IRQ));
	jw_kbool(w, "other_process", e->flags & LT_WAKE_OTHER);
	jw_kuint(w, "first_ns", e->first_ts);
	jw_kuint(w, "last_ns", e->last_ts);
	kaddr(w, "lock", e->lock);
	jw_end(w);
}

static void json_losses(struct jw *w, const struct lt_report *r)
{
	static const char *const tk[] = { "total", "calls_without_return", "returns_without_call", "late_events" };
	const uint64_t tv[] = { r->lost_total, r->inferred_ends, r->orphan_exits, r->late_events };
	jw_kobject(w, "losses");
	jw_kuints(w, tk, tv, 4);
	if (r->unseen_switches) /* (absent when 0, as reports before it) */
		jw_kuint(w, "switches_not_in_trace", r->unseen_switches);
	jw_karray(w, "by_cpu_kind");
	for (size_t i = 0; i < r->n_losses; i++) {
		const struct lt_report_loss *l = &r->losses[i];
		jw_object(w);
		jw_kuint(w, "cpu", l->cpu);
		jw_kstr(w, "kind", lt_kind_name(l->kind));
		jw_kuint(w, "count", l->count);
		kts(w, "first_ns", l->first_ts);
		kts(w, "last_ns", l->last_ts);
		jw_end(w);
	}
	jw_end(w);
	jw_end(w);
}

/* The snapshots the trace stored, as they are in it. */
static void json_stored(struct jw *w, const struct lt_report *r)
{
	list_begin(w, "stored_snapshots");
	for (size_t i = 0; i < r->n_stored; i++) {
		const struct lt_report_stored *st = &r->stored[i];
		jw_object(w);
		jw_kstr(w, "occasion", lt_snapshot_occasion(st->occasion[0] ? st->occasion : NULL, i, r->n_stored,
							    !!(r->hdr_flags & LT_HDR_FLIGHT)));
		jw_key(w, "snapshot");
		jw_raw(w, st->json, st->len);
		jw_end(w);
	}
	jw_end(w);
}

int lt_report_print_json(FILE *f, const struct lt_report *r)
{
	struct jw w;
	jw_init(&w, f, JW_SPACED);
	jw_object(&w);
	jw_lines(&w, 2, 0);
	jw_kstr(&w, "schema", "locktrace.report/1");
	json_trace(&w, r);
	list_begin(&w, "findings");
	for (size_t i = 0; i < r->n_findings; i++)
		json_finding(&w, &r->findings[i]);
	jw_end(&w);
	list_begin(&w, "locks");
	for (size_t i = 0; i < r->n_locks; i++)
		json_lock(&w, r, &r->locks[i]);
	jw_end(&w);
	list_begin(&w, "threads");
	for (size_t i = 0; i < r->n_threads; i++)
		json_thread(&w, r, &r->threads[i]);
	jw_end(&w);
	if (r->n_procs > 1)
		json_procs(&w, r);
	list_begin(&w, "wake_edges");
	for (size_t i = 0; i < r->n_edges; i++)
		json_edge(&w, &r->edges[i]);
	jw_end(&w);
	jw_kuint(&w, "wake_edges_dropped", r->edges_dropped);
	json_losses(&w, r);
	jw_karray(&w, "notes");
	for (size_t i = 0; i < r->n_notes; i++)
		jw_str(&w, r->notes[i] ? r->notes[i] : "");
	jw_end(&w);
	json_stored(&w, r);
	jw_end(&w);
	return jw_finish(&w);
}

/* ---------------------------------------------------------------- text */

static void wall_clock(const struct lt_report *r, uint64_t ts, char *buf, size_t len)
{
	int64_t rt = (int64_t)r->attach_realtime + ((int64_t)ts - (int64_t)r->attach_boottime);
	time_t sec = (time_t)(rt / 1000000000);
	struct tm tm;
	if (!r->attach_realtime || !localtime_r(&sec, &tm)) {
		snprintf(buf, len, "?");
		return;
	}
	char b[32];
	strftime(b, sizeof(b), "%Y-%m-%d %H:%M:%S", &tm);
	char z[16];
	strftime(z, sizeof(z), "%z", &tm);
	snprintf(buf, len, "%s.%03d %s", b, (int)(rt % 1000000000 / 1000000), z);
}

static const char *rows_note(const struct lt_report *r, size_t n, char *buf, size_t len)
{
	if (n > r->opts.rows)
		snprintf(buf, len, "; %u of %zu shown, --all for every row", r->opts.rows, n);
	else
		buf[0] = 0;
	return buf;
}

static void ms(uint64_t ns, char *buf, size_t len)
{
	if (!ns)
		snprintf(buf, len, "-");
	else if (ns < 10000000)
		snprintf(buf, len, "%.2f", (double)ns / 1e6);
	else
		snprintf(buf, len, "%.0f", (double)ns / 1e6);
}

/* What the text printer looks up for every thread, built once so that the
 * report stays linear in threads and locks: each futex word's lock, the
 * threads a finding names, each thread's end phrase. */
struct tctx {
	const struct lt_report *r;
	struct lt_u64map word_lock; /* futex word -> its lock */
	struct lt_u64map named;     /* tid + 1 -> non-NULL: a finding names it */
	struct lt_u64map tgid_of;   /* several processes: tid + 1 -> its tgid */
	char (*phrase)[300];        /* per thread index; NULL: out of memory */
};

/* "tid (name)", or "pid/tid (name)" in a trace of several processes */
static void who(const struct tctx *x, uint32_t tid, const char *name, char *buf, size_t len)
{
	uintptr_t tg = x->r->n_procs > 1 ? (uintptr_t)lt_u64map_get(&x->tgid_of, (uint64_t)tid + 1) : 0;

	if (tg)
		snprintf(buf, len, "%u/%u (%s)", (unsigned)tg, tid, name);
	else
		snprintf(buf, len, "%u (%s)", tid, name);
}

static int involved(const struct tctx *x, uint32_t tid)
{
	return lt_u64map_get(&x->named, (uint64_t)tid + 1) != NULL;
}

static void name_tids(struct tctx *x)
{
	const struct lt_report *r = x->r;
	for (size_t i = 0; i < r->n_findings; i++) {
		const struct lt_report_finding *f = &r->findings[i];
		if (f->holder)
			lt_u64map_put(&x->named, (uint64_t)f->holder + 1, (void *)1);
		size_t n = f->kind == LT_FIND_DEADLOCK ? f->n_tids : f->kind == LT_FIND_LOST_WAKEUP ? 2 : 0;
		for (size_t k = 0; k < n && k < f->n_tids; k++)
			lt_u64map_put(&x->named, (uint64_t)f->tids[k] + 1, (void *)1);
	}
}

/* A thread's end state without its time: what threads are grouped by. */
static void end_phrase(const struct tctx *tx, const struct lt_report_thread *t, char *buf, size_t len)
{
	const struct lt_report *r = tx->r;
	char c[256];
	switch (t->end_state) {
	case LT_RTS_IN_CALL: {
		struct lt_report_call x = t->end_call;
		if (x.kind == LT_EV_FUTEX_ENTER) {
			/* name the lock, not the word: both g_signals words of a
			 * condition variable are one line */
			char op[64];
			const struct lt_report_lock *l = x.addr ? lt_u64map_get(&tx->word_lock, x.addr) : NULL;
			lt_futex_op_name(x.op & ~0x180u, x.nr, op, sizeof(op));
			char sym[4 * sizeof(l->symbol)];
			if (l && l->symbol[0]) {
				rp_clean_name(l->symbol, sym, sizeof(sym));
				snprintf(c, sizeof(c), "%s %.180s", op, sym);
			} else if (l)
				snprintf(c, sizeof(c), "%s %s", op, l->key);
			else
				rp_fmt_call(r, &x, c, sizeof(c));
		} else {
			rp_fmt_call(r, &x, c, sizeof(c));
		}
		snprintf(buf, len, "%s %s", t->asleep ? "blocked in" : "in", c);
		break;
	}
	case LT_RTS_SLEEPING:
		if (t->end_syscall[0])
			snprintf(buf, len, "asleep in %s (not traced)", t->end_syscall);
		else
			snprintf(buf, len, "asleep outside the traced calls");
		break;
	case LT_RTS_RUNNABLE:
		snprintf(buf, len, "runnable, not running");
		break;
	default:
		snprintf(buf, len, "%s", lt_report_tstate_name(t->end_state));
	}
}

/* The phrase of thread index i (computed once). */
static const char *phrase_of(const struct tctx *x, size_t i, char *buf, size_t len)
{
	if (x->phrase)
		return x->phrase[i];
	end_phrase(x, &x->r->threads[i], buf, len);
	return buf;
}

static void tctx_init(struct tctx *x, const struct lt_report *r)
{
	memset(x, 0, sizeof(*x));
	x->r = r;
	for (size_t i = 0; i < r->n_locks; i++)
		for (unsigned k = 0; k < r->locks[i].n_words; k++)
			if (r->locks[i].words[k] && !lt_u64map_get(&x->word_lock, r->locks[i].words[k]))
				lt_u64map_put(&x->word_lock, r->locks[i].words[k], (void *)&r->locks[i]);
	name_tids(x);
	for (size_t i = 0; r->n_procs > 1 && i < r->n_threads; i++)
		if (r->threads[i].tgid)
			lt_u64map_put(&x->tgid_of, (uint64_t)r->threads[i].tid + 1,
				      (void *)(uintptr_t)r->threads[i].tgid);
	x->phrase = malloc((r->n_threads ? r->n_threads : 1) * sizeof(*x->phrase));
	for (size_t i = 0; x->phrase && i < r->n_threads; i++)
		end_phrase(x, &r->threads[i], x->phrase[i], sizeof(x->phrase[i]));
}

static void tctx_free(struct tctx *x)
{
	lt_u64map_free(&x->word_lock);
	lt_u64map_free(&x->named);
	lt_u64map_free(&x->tgid_of);
	free(x->phrase);
}

static void print_last_calls(FILE *f, const struct lt_report *r, const struct lt_report_thread *t)
{
	char ts[32], c[256], res[160];
	for (size_t k = 0; k < t->n_last; k++) {
		const struct lt_report_call *x = &t->last[k];
		rp_fmt_call(r, x, c, sizeof(c));
		fmt_result(r, x, res, sizeof(res));
		rp_fmt_ts(x->begin, ts, sizeof(ts));
		fprintf(f, "      %s %s%s\n", x->begin ? ts : "(before)", c, res);
	}
}

static void print_thread_end(FILE *f, const struct tctx *x, size_t i)
{
	const struct lt_report *r = x->r;
	const struct lt_report_thread *t = &r->threads[i];
	char n[LT_COMM_LEN * 4], buf[300], ts[32], d[32];
	rp_clean_name(t->rt_name ? t->rt_name : t->name, n, sizeof(n));
	const char *ph = phrase_of(x, i, buf, sizeof(buf));
	rp_fmt_ts(t->end_since, ts, sizeof(ts));
	lt_fmt_dur(t->end_since && r->end_ts > t->end_since ? r->end_ts - t->end_since : 0, d, sizeof(d));
	fprintf(f, "  %u (%s): %s", t->tid, n, ph);
	if (t->end_state != LT_RTS_UNKNOWN)
		fprintf(f, " since %s (%s)", t->end_since ? ts : "before the trace", d);
	fputc('\n', f);
	if (t->snap_detail) {
		fputs("      snapshot: ", f);
		lt_text_fput(f, t->snap_detail, (size_t)-1);
		if (t->snap_where) {
			fputs("; at ", f);
			lt_text_fput(f, t->snap_where, (size_t)-1);
		}
		fputc('\n', f);
	}
	print_last_calls(f, r, t);
}

/* Orders thread indices by end phrase, then index. */
static int by_phrase(const void *a, const void *b, void *ctx)
{
	const struct tctx *x = ctx;
	size_t i = *(const size_t *)a, j = *(const size_t *)b;
	int c = strcmp(x->phrase[i], x->phrase[j]);
	return c ? c : (i > j) - (i < j);
}

/* Orders groups (their first index in idx) by that thread's index. */
static int by_first(const void *a, const void *b, void *ctx)
{
	const size_t *idx = ctx;
	size_t i = idx[*(const size_t *)a], j = idx[*(const size_t *)b];
	return (i > j) - (i < j);
}

/* One line per end phrase: the threads of idx[from, to), in index order. */
static void print_group(FILE *f, const struct tctx *x, const size_t *idx, size_t from, size_t to)
{
	const struct lt_report *r = x->r;
	const struct lt_report_thread *t = &r->threads[idx[from]];
	uint64_t lo = t->end_since, hi = t->end_since;
	char ts[32], ts2[32];
	size_t cnt = to - from;

	for (size_t k = from; k < to; k++) {
		uint64_t s = r->threads[idx[k]].end_since;
		if (s && (!lo || s < lo))
			lo = s;
		if (s > hi)
			hi = s;
	}
	fprintf(f, "  %zu thread%s %s", cnt, cnt == 1 ? "" : "s", x->phrase[idx[from]]);
	if (t->end_state != LT_RTS_UNKNOWN && t->end_state != LT_RTS_EXITED && lo) {
		rp_fmt_ts(lo, ts, sizeof(ts));
		rp_fmt_ts(hi, ts2, sizeof(ts2));
		if (lo == hi)
			fprintf(f, " since %s", ts);
		else
			fprintf(f, " since %s .. %s", ts, ts2);
	}
	fprintf(f, ":");
	size_t col = 80;
	for (size_t k = from; k < to; k++) {
		if (col > 90) {
			fprintf(f, "\n     ");
			col = 5;
		}
		col += (size_t)fprintf(f, " %u", r->threads[idx[k]].tid);
	}
	fputc('\n', f);
}

/* The threads no finding names, grouped by end phrase: sorted once, so
 * thousands of threads each in its own wait take n log n, not n^2.  Groups
 * come in the order of their first thread, as they always did. */
static void print_groups(FILE *f, const struct tctx *x, const char *done)
{
	size_t n = x->r->n_threads, m = 0, ng = 0;
	size_t *idx = malloc((n ? n : 1) * sizeof(*idx)), *grp = malloc((n + 1) * sizeof(*grp));

	if (!idx || !grp || !x->phrase) {
		fprintf(f, "  (out of memory grouping the threads)\n");
		goto out;
	}
	for (size_t i = 0; i < n; i++)
		if (!done[i])
			idx[m++] = i;
	qsort_r(idx, m, sizeof(*idx), by_phrase, (void *)x);
	for (size_t k = 0; k < m; k++)
		if (!k || strcmp(x->phrase[idx[k]], x->phrase[idx[k - 1]]))
			grp[ng++] = k;
	qsort_r(grp, ng, sizeof(*grp), by_first, idx);
	for (size_t g = 0; g < ng; g++) {
		size_t end = grp[g] + 1;
		while (end < m && !strcmp(x->phrase[idx[end]], x->phrase[idx[grp[g]]]))
			end++;
		print_group(f, x, idx, grp[g], end);
	}
out:
	free(idx);
	free(grp);
}

static void print_threads_at_end(FILE *f, const struct tctx *x, int all)
{
	const struct lt_report *r = x->r;
	size_t n = r->n_threads;
	char *done = calloc(n ? n : 1, 1);
	if (!done)
		return;
	fprintf(f, "\nTHREADS AT THE END (the last %u calls of each thread a finding names%s)\n", r->opts.last_n,
		all ? " and of every other" : "; the others grouped by what they are in, --all for theirs");
	for (size_t i = 0; i < n; i++)
		if (all || involved(x, r->threads[i].tid)) {
			print_thread_end(f, x, i);
			done[i] = 1;
		}
	print_groups(f, x, done);
	free(done);
}

/* "process 1234 (comm): 3 threads" above its threads in the tables */
static void print_proc_heading(FILE *f, const struct lt_report_proc *p)
{
	char cm[LT_COMM_LEN * 4];
	rp_clean_name(p->comm, cm, sizeof(cm));
	fprintf(f, "  process %d (%s): %u thread%s", p->tgid, cm, p->n_threads, p->n_threads == 1 ? "" : "s");
	if (p->ppid > 0)
		fprintf(f, ", parent %d", p->ppid);
	if (p->cmdline[0]) {
		fputs(": ", f);
		lt_text_fput(f, p->cmdline, sizeof(p->cmdline));
	}
	fputc('\n', f);
}

/* One row of the THREADS table: thread i's time in each state, its counts,
 * and what it was in at the end. */
static void print_thread_row(FILE *f, const struct tctx *tx, size_t i)
{
	const struct lt_report_thread *t = &tx->r->threads[i];
	char n[LT_COMM_LEN * 4], v[7][16], buf[300];
	rp_clean_name(t->rt_name ? t->rt_name : t->name, n, sizeof(n));
	/* file-lock waits go under "other" here (JSON: time_s.file_lock) */
	const uint64_t x[] = { t->running_ns, t->runnable_ns, t->futex_ns, t->poll_ns, t->io_ns + t->pipe_ns,
			       t->other_ns + t->filelock_ns };
	for (int k = 0; k < 6; k++)
		ms(x[k], v[k], sizeof(v[k]));
	const char *ph = phrase_of(tx, i, buf, sizeof(buf));
	char col[4 * 15 + 1];
	fprintf(f, "  %-7u %s %8s %8s %8s %8s %8s %8s | %6" PRIu64 " %6" PRIu64 " %6" PRIu64
		   " %6" PRIu64 " %6" PRIu64 " %6" PRIu64 "  %s\n",
		t->tid, lt_text_fit(col, sizeof(col), n, 15), v[0], v[1], v[2], v[3], v[4], v[5], t->futex_waits,
		t->futex_wakes, t->polls, t->io_reads + t->io_writes + t->pipe_reads + t->pipe_writes, t->wakeups,
		t->preempted, ph);
}

static void print_tables(FILE *f, const struct tctx *tx)
{
	const struct lt_report *r = tx->r;
	char note[96], a[32], b[32], c[32], d[32], ts[32];
	size_t rows = r->opts.rows;

	fprintf(f, "\nLOCKS (futex words, adjacent words of one object together; by total wait time%s)\n",
		rows_note(r, r->n_locks, note, sizeof(note)));
	if (!r->n_locks)
		fprintf(f, "  no futex calls were recorded\n");
	else
		fprintf(f, "  %-34s %7s %9s %9s %9s %9s %5s %5s %5s %4s %4s %8s %5s\n", "lock", "waits",
			"total", "median", "p99", "max", "queue", "moved", "chain", "wtrs", "wkrs", "wakes", "open");
	for (size_t i = 0; i < r->n_locks && i < rows; i++) {
		const struct lt_report_lock *l = &r->locks[i];
		char name[4 * sizeof(l->symbol)];
		if (l->symbol[0])
			rp_clean_name(l->symbol, name, sizeof(name));
		else
			snprintf(name, sizeof(name), "%s", l->key);
		lt_fmt_dur(l->total_ns, a, sizeof(a));
		lt_fmt_dur(l->median_ns, b, sizeof(b));
		lt_fmt_dur(l->p99_ns, c, sizeof(c));
		lt_fmt_dur(l->max_ns, d, sizeof(d));
		char col[4 * 34 + 1];
		fprintf(f, "  %s %7" PRIu64 " %9s %9s %9s %9s %5u %5u %5u %4u %4u %8" PRIu64 " %5" PRIu64 "\n",
			lt_text_fit(col, sizeof(col), name, 34), l->waits, l->waits ? a : "-", l->waits ? b : "-", l->waits ? c : "-",
			l->waits ? d : "-", l->max_waiters, l->max_moving, l->longest_chain, l->n_waiters,
			l->n_wakers, l->wake_calls, l->open_at_end);
		fprintf(f, "  %-34s", "");
		for (unsigned k = 0; k < l->n_words; k++)
			fprintf(f, " %s", lt_report_key_text(r, l->words[k], name, sizeof(name)));
		fprintf(f, "  %s\n", l->kind ? l->kind : "futex");
	}
	if (r->n_locks)
		fprintf(f, "  (queue: most waiters at once; moved: most queued when it was handed on; chain: most\n"
			   "   hand-offs in a row, each thread woken on it waking the next; wtrs/wkrs: distinct\n"
			   "   waiting/waking threads; wakes: wake calls; open: waits not returned at the end)\n");

	fprintf(f, "\nTHREADS (milliseconds in each state%s)\n", rows_note(r, r->n_threads, note, sizeof(note)));
	fprintf(f, "  %-7s %-15s %8s %8s %8s %8s %8s %8s | %6s %6s %6s %6s %6s %6s  %s\n", "tid", "name", "running",
		"runnable", "futex", "sel/poll", "fd-io", "other", "fwaits", "fwakes", "polls", "io", "woken", "preemp",
		"at the end");
	/* the threads a finding names first, then by tid; in a trace of
	 * several processes, under a heading per process */
	size_t nproc = r->n_procs > 1 ? r->n_procs : 1, shown = 0;
	for (size_t pi = 0; pi < nproc && shown < rows; pi++) {
		const struct lt_report_proc *pr = r->n_procs > 1 ? &r->procs[pi] : NULL;
		if (pr)
			print_proc_heading(f, pr);
		for (int pass = 0; pass < 2; pass++)
			for (size_t i = 0; i < r->n_threads && shown < rows; i++) {
				const struct lt_report_thread *t = &r->threads[i];
				if (involved(tx, t->tid) == !pass && (!pr || (int32_t)t->tgid == pr->tgid)) {
					print_thread_row(f, tx, i);
					shown++;
				}
			}
	}

	fprintf(f, "\nWAKE-UPS (who woke whom, by count%s)\n", rows_note(r, r->n_edges, note, sizeof(note)));
	if (!r->n_edges)
		fprintf(f, "  none recorded\n");
	else
		fprintf(f, "  %-24s %-24s %8s %8s %6s %6s  %-14s %s\n", "waker", "wakee", "count", "futex", "io",
			"other", "last", "lock");
	for (size_t i = 0; i < r->n_edges && i < rows; i++) {
		const struct lt_report_edge *e = &r->edges[i];
		char w[112], x[96], n1[LT_COMM_LEN * 4], n2[LT_COMM_LEN * 4], sym[160], lk[4 * 160] = "";
		rp_clean_name(lt_report_thread_name(r, e->waker, e->waker_name), n1, sizeof(n1));
		rp_clean_name(lt_report_thread_name(r, e->wakee, e->wakee_name), n2, sizeof(n2));
		if (!e->waker)
			snprintf(w, sizeof(w), "timer/interrupt");
		else {
			who(tx, e->waker, n1, x, sizeof(x));
			snprintf(w, sizeof(w), "%s%s", x, e->flags & LT_WAKE_OTHER ? "*" : "");
		}
		who(tx, e->wakee, n2, x, sizeof(x));
		if (e->lock)
			rp_clean_name(lt_report_lock_name(r, e->lock, sym, sizeof(sym)), lk, sizeof(lk));
		rp_fmt_ts(e->last_ts, ts, sizeof(ts));
		char c1[4 * 24 + 1], c2[4 * 24 + 1];
		fprintf(f, "  %s %s %8" PRIu64 " %8" PRIu64 " %6" PRIu64 " %6" PRIu64 "  %-14s %s\n",
			lt_text_fit(c1, sizeof(c1), w, 24), lt_text_fit(c2, sizeof(c2), x, 24), e->count, e->via_futex, e->via_io, e->other, ts, lk);
	}
	if (r->n_edges)
		fprintf(f, "  (futex/io: woken from inside the waker's futex wake or socket/pipe call; other: otherwise,\n"
			   "   e.g. a signal; timer/interrupt: issued from interrupt context, whichever task ran then;\n"
			   "   * another process%s)\n", r->n_procs > 1 ? "; pid/tid: a thread of a traced process" : "");
	if (r->edges_dropped)
		fprintf(f, "  %" PRIu64 " wake-ups between further pairs are not in the table (bounded at %d pairs)\n",
			r->edges_dropped, 65536);
}

void lt_report_print_text(FILE *f, const struct lt_report *r)
{
	char a[32], b[32], c[32], w[128], cm[LT_COMM_LEN * 4];
	int all = r->opts.rows == UINT32_MAX;

	rp_clean_name(r->comm, cm, sizeof(cm));
	fprintf(f, "locktrace report: process %d (%s)%s", r->pid, cm, r->cmdline[0] ? ": " : "");
	lt_text_fput(f, r->cmdline, sizeof(r->cmdline));
	fputc('\n', f);
	rp_fmt_ts(r->start_ts, a, sizeof(a));
	rp_fmt_ts(r->end_ts, b, sizeof(b));
	lt_fmt_dur(r->end_ts - r->start_ts, c, sizeof(c));
	wall_clock(r, r->start_ts, w, sizeof(w));
	fprintf(f, "trace: %s to %s (%s)%s%s%s\n", a, b, c,
		r->hdr_flags & LT_HDR_FLIGHT ? ", flight-recorder dump" : "",
		r->have_stats ? ", stopped by: " : "", r->have_stats ? stop_name(r->stop_reason) : "");
	fprintf(f, "       times are CLOCK_BOOTTIME seconds as in `locktrace dump`; %s is %s\n", a, w);
	if (r->hdr_flags & LT_HDR_CALLS_BLOCKING)
		fprintf(f, "       recorded with --calls blocking: only the calls threads slept in (no return\n"
			   "       values; calls that did not sleep or wake a thread are not in the trace)\n");
	fprintf(f, "       %" PRIu64 " events, %zu threads, %zu locks", r->events, r->n_threads, r->n_locks);
	if (r->n_procs > 1)
		fprintf(f, ", %zu processes", r->n_procs);
	if (r->lost_total)
		fprintf(f, ", %" PRIu64 " EVENTS LOST (see notes)", r->lost_total);
	if (r->damaged_bytes)
		fprintf(f, ", DAMAGED: %" PRIu64 " bytes skipped (see notes)", r->damaged_bytes);
	if (!r->clean_end) {
		rp_fmt_ts(r->end_ts, a, sizeof(a));
		fprintf(f, ", CUT at %s: what came after it is missing", a);
	} else if (!r->lost_total && !r->damaged_bytes) {
		fprintf(f, ", no events lost");
	}
	if (r->snapshot_ts) {
		rp_fmt_ts(r->snapshot_ts, a, sizeof(a));
		fprintf(f, "; snapshot at %s", a);
	}
	fputc('\n', f);

	fprintf(f, "\nFINDINGS\n");
	if (!r->n_findings)
		fprintf(f, "  none: no thread was stuck on a lock at the end, and no lock was contended enough to report\n");
	for (size_t i = 0; i < r->n_findings; i++) {
		const struct lt_report_finding *x = &r->findings[i];
		fprintf(f, "%2zu. %s\n", i + 1, x->summary ? x->summary : lt_finding_kind_name(x->kind));
		for (size_t k = 0; k < x->n_evidence; k++)
			fprintf(f, "      - %s\n", x->evidence[k]);
	}

	struct tctx tx;
	tctx_init(&tx, r);
	print_tables(f, &tx);
	print_threads_at_end(f, &tx, all);
	tctx_free(&tx);

	fprintf(f, "\nNOTES\n");
	if (r->lost_total) {
		fprintf(f, "  - the trace lost %" PRIu64 " events (the ring buffer was full); calls near these times may\n"
			   "    be missing or have inferred ends (%" PRIu64 " calls without a recorded return):\n",
			r->lost_total, r->inferred_ends);
		for (size_t i = 0; i < r->n_losses; i++) {
			const struct lt_report_loss *l = &r->losses[i];
			rp_fmt_ts(l->first_ts, a, sizeof(a));
			rp_fmt_ts(l->last_ts, b, sizeof(b));
			if (l->first_ts)
				fprintf(f, "      cpu %u: %" PRIu64 " %s events, between %s and %s\n", l->cpu, l->count,
					lt_kind_name(l->kind), a, b);
			else
				fprintf(f, "      cpu %u: %" PRIu64 " %s events (when: not recorded)\n", l->cpu,
					l->count, lt_kind_name(l->kind));
		}
	} else if (r->clean_end && !r->damaged_bytes) {
		fprintf(f, "  - no events were lost\n");
	}
	for (size_t i = 0; i < r->n_notes; i++)
		fprintf(f, "  - %s\n", r->notes[i]);
}
