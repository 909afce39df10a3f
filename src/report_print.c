// SPDX-License-Identifier: MIT
/* The report's two outputs: text for people (findings first, then the
 * tables, then what every thread was doing at the end) and JSON, schema
 * locktrace.report/1 (docs/report.md). */
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include "locktrace/timeline.h"
#include "locktrace/snapshot.h"
#include "report_int.h"
#include "u64map.h"
#include "utf8.h"

/* ------------------------------------------------------------- helpers */

void rp_fmt_dur(uint64_t ns, char *buf, size_t len)
{
	double s = (double)ns / 1e9;
	if (s >= 100)
		snprintf(buf, len, "%.0f s", s);
	else if (s >= 10)
		snprintf(buf, len, "%.1f s", s);
	else if (s >= 1)
		snprintf(buf, len, "%.2f s", s);
	else if (ns >= 100000000)
		snprintf(buf, len, "%.0f ms", s * 1e3);
	else if (ns >= 1000000)
		snprintf(buf, len, "%.1f ms", s * 1e3);
	else if (ns >= 1000)
		snprintf(buf, len, "%.0f us", s * 1e6);
	else
		snprintf(buf, len, "%" PRIu64 " ns", ns);
}

void rp_fmt_ts(uint64_t ns, char *buf, size_t len)
{
	snprintf(buf, len, "%" PRIu64 ".%06" PRIu64, ns / 1000000000u, ns % 1000000000u / 1000u);
}

void rp_clean_name(const char *in, char *out, size_t len)
{
	lt_text_escape(out, len, in, strlen(in));
}

static const char *errname(int64_t ret, char *buf, size_t len)
{
	const char *n = ret < 0 && ret > -4096 ? strerrorname_np((int)-ret) : NULL;
	if (n)
		snprintf(buf, len, "-%s", n);
	else
		snprintf(buf, len, "%" PRId64, ret);
	return buf;
}

void rp_fmt_call(const struct lt_report *r, const struct lt_report_call *c, char *buf, size_t len)
{
	char op[64], sym[160], name[4 * 160], to[48] = "";
	if (c->timeout_ns >= 0) {
		char d[32];
		rp_fmt_dur((uint64_t)c->timeout_ns, d, sizeof(d));
		snprintf(to, sizeof(to), ", timeout %s", d);
	}
	switch (c->kind) {
	case LT_EV_FUTEX_ENTER:
		/* the PRIVATE and CLOCK_REALTIME flags do not help a reader */
		lt_futex_op_name(c->op & ~0x180u, c->nr, op, sizeof(op));
		rp_clean_name(lt_report_lock_name(r, c->addr, sym, sizeof(sym)), name, sizeof(name));
		if (c->flags & LT_SPAN_WAIT)
			snprintf(buf, len, "%s %s (val %u%s)", op, name, c->val, to);
		else
			snprintf(buf, len, "%s %s", op, name);
		break;
	case LT_EV_WAIT_ENTER:
		if (c->fd >= 0)
			snprintf(buf, len, "%s(%u fd%s, fd %d%s)", lt_call_name(c->nr), c->nfds,
				 c->nfds == 1 ? "" : "s", c->fd, to);
		else
			snprintf(buf, len, "%s(nfds %u%s)", lt_call_name(c->nr), c->nfds, to);
		break;
	case LT_EV_IO_ENTER:
		if (c->count == LT_IO_COUNT_UNKNOWN)
			snprintf(buf, len, "%s(%sfd %d, bytes n/a)", lt_call_name(c->nr),
				 c->socket ? "socket " : "", c->fd);
		else if (c->count)
			snprintf(buf, len, "%s(%sfd %d, %" PRIu64 ")", lt_call_name(c->nr), c->socket ? "socket " : "",
				 c->fd, c->count);
		else
			snprintf(buf, len, "%s(%sfd %d)", lt_call_name(c->nr), c->socket ? "socket " : "", c->fd);
		break;
	default:
		snprintf(buf, len, "%s", lt_call_name(c->nr));
	}
}

/* " -> 0 after 16 us, woken by 2107" / " not returned at the end (1.9 s)" */
static void fmt_result(const struct lt_report *r, const struct lt_report_call *c, char *buf, size_t len)
{
	char d[32], e[32], by[48] = "", woke[32] = "";
	rp_fmt_dur(c->end - c->begin + c->blocked_before_ns, d, sizeof(d));
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

void rp_json_string(FILE *f, const char *s)
{
	lt_json_fput(f, s ? s : "");
}

static void jaddr(FILE *f, uint64_t a)
{
	if (a)
		fprintf(f, "\"0x%" PRIx64 "\"", a);
	else
		fputs("null", f);
}

static void jts(FILE *f, uint64_t ns)
{
	if (ns)
		fprintf(f, "%" PRIu64, ns);
	else
		fputs("null", f);
}

static void jsec(FILE *f, uint64_t ns)
{
	fprintf(f, "%.6f", (double)ns / 1e9);
}

static void jcall(FILE *f, const struct lt_report *r, const struct lt_report_call *c)
{
	char name[160], op[64];
	fprintf(f, "{\"call\": ");
	if (c->kind == LT_EV_FUTEX_ENTER)
		rp_json_string(f, lt_futex_op_name(c->op & ~0x180u, c->nr, op, sizeof(op)));
	else
		rp_json_string(f, lt_call_name(c->nr));
	fprintf(f, ", \"nr\": %u, \"begin_ns\": ", c->nr);
	jts(f, c->begin);
	fprintf(f, ", \"end_ns\": ");
	jts(f, c->end);
	fprintf(f, ", \"duration_s\": ");
	jsec(f, c->end - c->begin + c->blocked_before_ns);
	fprintf(f, ", \"unfinished\": %s, \"result_recorded\": %s, \"ret\": ",
		c->flags & LT_SPAN_UNFINISHED ? "true" : "false",
		c->flags & LT_SPAN_HAS_RESULT ? "true" : "false");
	if (c->flags & LT_SPAN_HAS_RESULT)
		fprintf(f, "%" PRId64, c->ret);
	else
		fputs("null", f);
	if (c->kind == LT_EV_FUTEX_ENTER) {
		fprintf(f, ", \"futex\": ");
		jaddr(f, c->addr);
		fprintf(f, ", \"lock\": ");
		rp_json_string(f, lt_report_lock_name(r, c->addr, name, sizeof(name)));
		fprintf(f, ", \"op\": %u, \"val\": %u", c->op, c->val);
	} else {
		fprintf(f, ", \"fd\": %d", c->fd);
		if (c->kind == LT_EV_WAIT_ENTER)
			fprintf(f, ", \"nfds\": %u", c->nfds);
		else if (c->count == LT_IO_COUNT_UNKNOWN)
			fprintf(f, ", \"count\": null");
		else
			fprintf(f, ", \"count\": %" PRIu64, c->count);
	}
	fprintf(f, ", \"timeout_ns\": ");
	if (c->timeout_ns >= 0)
		fprintf(f, "%" PRId64, c->timeout_ns);
	else
		fputs("null", f);
	fprintf(f, ", \"woken_by\": ");
	if (c->woken_by)
		fprintf(f, "%u", c->woken_by);
	else
		fputs("null", f);
	fprintf(f, ", \"woke\": %u}", c->nwoke);
}

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

/* "processes": the trace's processes, in a trace of several */
static void print_procs_json(FILE *f, const struct lt_report *r)
{
	fprintf(f, "  \"processes\": [");
	for (size_t i = 0; i < r->n_procs; i++) {
		const struct lt_report_proc *p = &r->procs[i];
		fprintf(f, "%s\n    {\"pid\": %d, \"ppid\": %d, \"comm\": ", i ? "," : "", p->tgid, p->ppid);
		rp_json_string(f, p->comm);
		fputs(", \"cmdline\": ", f);
		rp_json_string(f, p->cmdline);
		fprintf(f, ", \"threads\": %u}", p->n_threads);
	}
	fprintf(f, "\n  ],\n");
}

void lt_report_print_json(FILE *f, const struct lt_report *r)
{
	fprintf(f, "{\n  \"schema\": \"locktrace.report/1\",\n  \"trace\": {\"pid\": %d, \"comm\": ", r->pid);
	rp_json_string(f, r->comm);
	fprintf(f, ", \"exe\": ");
	rp_json_string(f, r->exe);
	fprintf(f, ", \"cmdline\": ");
	rp_json_string(f, r->cmdline);
	fprintf(f, ", \"host\": ");
	rp_json_string(f, r->host);
	fprintf(f, ", \"kernel\": ");
	rp_json_string(f, r->kernel);
	fprintf(f, ",\n    \"flight_dump\": %s, \"launched\": %s, \"calls\": \"%s\", \"start_ns\": %" PRIu64
		   ", \"end_ns\": %" PRIu64 ", \"duration_s\": ",
		r->hdr_flags & LT_HDR_FLIGHT ? "true" : "false", r->hdr_flags & LT_HDR_LAUNCHED ? "true" : "false",
		r->hdr_flags & LT_HDR_CALLS_BLOCKING ? "blocking" : "all",
		r->start_ts, r->end_ts);
	jsec(f, r->end_ts - r->start_ts);
	fprintf(f, ",\n    \"boottime_at_attach_ns\": %" PRIu64 ", \"realtime_at_attach_ns\": %" PRIu64,
		r->attach_boottime, r->attach_realtime);
	fprintf(f, ", \"events\": %" PRIu64 ", \"threads\": %zu, \"locks\": %zu, \"stop_reason\": ", r->events,
		r->n_threads, r->n_locks);
	if (r->have_stats)
		rp_json_string(f, stop_name(r->stop_reason));
	else
		fputs("null", f);
	fprintf(f, ", \"clean_end\": %s, \"cut\": ", r->clean_end ? "true" : "false");
	if (r->clean_end) {
		fputs("null", f);
	} else {
		fprintf(f, "{\"at_ns\": %" PRIu64 ", \"offset\": %" PRIu64 ", \"why\": ", r->end_ts,
			r->stop_offset);
		rp_json_string(f, r->stop_why);
		fputc('}', f);
	}
	fprintf(f, ", \"snapshot_ns\": ");
	jts(f, r->snapshot_ts);
	fprintf(f, ", \"snapshots\": %u},\n", r->n_snapshots);

	fprintf(f, "  \"findings\": [");
	for (size_t i = 0; i < r->n_findings; i++) {
		const struct lt_report_finding *x = &r->findings[i];
		fprintf(f, "%s\n    {\"kind\": \"%s\", \"rule\": ", i ? "," : "", lt_finding_kind_name(x->kind));
		rp_json_string(f, x->rule);
		fprintf(f, ", \"summary\": ");
		rp_json_string(f, x->summary);
		fprintf(f, ", \"since_ns\": ");
		jts(f, x->since);
		fprintf(f, ", \"duration_s\": ");
		jsec(f, x->duration_ns);
		fprintf(f, ", \"holder\": ");
		if (x->holder)
			fprintf(f, "%u", x->holder);
		else
			fputs("null", f);
		fprintf(f, ", \"fd\": ");
		if (x->fd >= 0)
			fprintf(f, "%d", x->fd);
		else
			fputs("null", f);
		fprintf(f, ",\n     \"tids\": [");
		for (size_t k = 0; k < x->n_tids; k++)
			fprintf(f, "%s%u", k ? ", " : "", x->tids[k]);
		fprintf(f, "], \"locks\": [");
		for (size_t k = 0; k < x->n_locks; k++) {
			fputs(k ? ", " : "", f);
			jaddr(f, x->locks[k]);
		}
		fprintf(f, "],\n     \"evidence\": [");
		for (size_t k = 0; k < x->n_evidence; k++) {
			fputs(k ? ",\n       " : "\n       ", f);
			rp_json_string(f, x->evidence[k]);
		}
		fprintf(f, "]}");
	}
	fprintf(f, "%s],\n", r->n_findings ? "\n  " : "");

	fprintf(f, "  \"locks\": [");
	for (size_t i = 0; i < r->n_locks; i++) {
		const struct lt_report_lock *l = &r->locks[i];
		fprintf(f, "%s\n    {\"addr\": ", i ? "," : "");
		jaddr(f, l->addr);
		if (r->n_procs > 1) { /* a lock key: what it stands for */
			fputs(", \"key\": ", f);
			rp_json_string(f, l->key);
		}
		fprintf(f, ", \"words\": [");
		for (unsigned k = 0; k < l->n_words; k++) {
			fputs(k ? ", " : "", f);
			jaddr(f, l->words[k]);
		}
		fprintf(f, "], \"kind\": \"%s\", \"symbol\": ", l->kind ? l->kind : "futex");
		if (l->symbol[0])
			rp_json_string(f, l->symbol);
		else
			fputs("null", f);
		fprintf(f, ", \"waits\": %" PRIu64 ", \"eagain\": %" PRIu64 ", \"timeouts\": %" PRIu64
			   ", \"open_at_end\": %" PRIu64 ",\n     \"wait_total_s\": ",
			l->waits, l->eagain, l->timeouts, l->open_at_end);
		jsec(f, l->total_ns);
		fprintf(f, ", \"wait_median_s\": ");
		jsec(f, l->median_ns);
		fprintf(f, ", \"wait_p99_s\": ");
		jsec(f, l->p99_ns);
		fprintf(f, ", \"wait_max_s\": ");
		jsec(f, l->max_ns);
		fprintf(f, ", \"max_waiters\": %u, \"max_waiters_ns\": ", l->max_waiters);
		jts(f, l->max_waiters_ts);
		fprintf(f, ", \"max_queued_at_handoff\": %u, \"waiters\": %u, \"wakers\": %u, \"wake_calls\": %" PRIu64
			   ", \"woken\": %" PRIu64 ", \"handoffs\": %" PRIu64 ",\n     \"longest_chain\": %u, \"chain_begin_ns\": ",
			l->max_moving, l->n_waiters, l->n_wakers, l->wake_calls, l->woken, l->handoffs,
			l->longest_chain);
		jts(f, l->chain_begin);
		fprintf(f, ", \"chain_end_ns\": ");
		jts(f, l->chain_end);
		fprintf(f, ", \"last_wake\": ");
		if (l->last_wake_ts)
			fprintf(f, "{\"ns\": %" PRIu64 ", \"waker\": %u, \"wakee\": %u}", l->last_wake_ts,
				l->last_waker, l->last_wakee);
		else
			fputs("null", f);
		fprintf(f, ", \"holder\": ");
		if (l->holder)
			fprintf(f, "{\"tid\": %u, \"since_ns\": %" PRIu64 "}", l->holder, l->holder_since);
		else
			fputs("null", f);
		fprintf(f, ", \"holder_offcpu\": %" PRIu64 ", \"holder_offcpu_max_s\": ", l->offcpu_count);
		jsec(f, l->offcpu_max_ns);
		fputc('}', f);
	}
	fprintf(f, "%s],\n", r->n_locks ? "\n  " : "");

	fprintf(f, "  \"threads\": [");
	for (size_t i = 0; i < r->n_threads; i++) {
		const struct lt_report_thread *t = &r->threads[i];
		fprintf(f, "%s\n    {\"tid\": %u, ", i ? "," : "", t->tid);
		if (r->n_procs > 1) /* a trace of several processes */
			fprintf(f, "\"tgid\": %u, ", t->tgid);
		fputs("\"name\": ", f);
		rp_json_string(f, t->name);
		fputs(", \"runtime_name\": ", f);
		if (t->rt_name)
			rp_json_string(f, t->rt_name);
		else
			fputs("null", f);
		fprintf(f, ", \"exited\": %s, \"first_ns\": %" PRIu64 ", \"last_ns\": %" PRIu64 ",\n     \"time_s\": {",
			t->exited ? "true" : "false", t->first_ts, t->last_ts);
		const uint64_t v[] = { t->running_ns, t->runnable_ns, t->futex_ns, t->poll_ns, t->io_ns,
				       t->other_ns, t->unknown_ns };
		const char *k[] = { "running", "runnable", "futex", "select_poll", "socket_io", "other", "unknown" };
		for (int j = 0; j < 7; j++) {
			fprintf(f, "%s\"%s\": ", j ? ", " : "", k[j]);
			jsec(f, v[j]);
		}
		fprintf(f, "},\n     \"ops\": {\"futex_waits\": %" PRIu64 ", \"futex_wakes\": %" PRIu64
			   ", \"futex_other\": %" PRIu64 ", \"select_poll\": %" PRIu64 ", \"socket_reads\": %" PRIu64
			   ", \"socket_writes\": %" PRIu64 ", \"woken\": %" PRIu64 ", \"switches\": %" PRIu64
			   ", \"preempted\": %" PRIu64 "},\n     \"end\": {\"state\": \"%s\", \"since_ns\": ",
			t->futex_waits, t->futex_wakes, t->futex_other, t->polls, t->io_reads, t->io_writes,
			t->wakeups, t->switches, t->preempted, lt_report_tstate_name(t->end_state));
		jts(f, t->end_since);
		fprintf(f, ", \"asleep\": %s, \"call\": ", t->asleep ? "true" : "false");
		if (t->has_end_call && t->end_state == LT_RTS_IN_CALL)
			jcall(f, r, &t->end_call);
		else
			fputs("null", f);
		fprintf(f, ", \"snapshot\": ");
		if (t->snap_detail)
			rp_json_string(f, t->snap_detail);
		else
			fputs("null", f);
		fprintf(f, ", \"where\": ");
		if (t->snap_where)
			rp_json_string(f, t->snap_where);
		else
			fputs("null", f);
		fprintf(f, "},\n     \"last_calls\": [");
		for (size_t j = 0; j < t->n_last; j++) {
			fputs(j ? ",\n       " : "\n       ", f);
			jcall(f, r, &t->last[j]);
		}
		fprintf(f, "]}");
	}
	fprintf(f, "%s],\n", r->n_threads ? "\n  " : "");
	if (r->n_procs > 1)
		print_procs_json(f, r);

	fprintf(f, "  \"wake_edges\": [");
	for (size_t i = 0; i < r->n_edges; i++) {
		const struct lt_report_edge *e = &r->edges[i];
		fprintf(f, "%s\n    {\"waker\": %u, \"waker_name\": ", i ? "," : "", e->waker);
		rp_json_string(f, e->waker_name);
		fprintf(f, ", \"wakee\": %u, \"wakee_name\": ", e->wakee);
		rp_json_string(f, e->wakee_name);
		fprintf(f, ", \"count\": %" PRIu64 ", \"via_futex\": %" PRIu64 ", \"via_io\": %" PRIu64
			   ", \"other\": %" PRIu64 ", \"from_interrupt\": %s, \"other_process\": %s, \"first_ns\": %" PRIu64
			   ", \"last_ns\": %" PRIu64 ", \"lock\": ",
			e->count, e->via_futex, e->via_io, e->other,
			e->flags & (LT_WAKE_IDLE | LT_WAKE_IRQ) ? "true" : "false",
			e->flags & LT_WAKE_OTHER ? "true" : "false", e->first_ts, e->last_ts);
		jaddr(f, e->lock);
		fputc('}', f);
	}
	fprintf(f, "%s],\n", r->n_edges ? "\n  " : "");
	fprintf(f, "  \"wake_edges_dropped\": %" PRIu64 ",\n", r->edges_dropped);

	fprintf(f, "  \"losses\": {\"total\": %" PRIu64 ", \"calls_without_return\": %" PRIu64
		   ", \"returns_without_call\": %" PRIu64 ", \"late_events\": %" PRIu64 ", \"by_cpu_kind\": [",
		r->lost_total, r->inferred_ends, r->orphan_exits, r->late_events);
	for (size_t i = 0; i < r->n_losses; i++) {
		const struct lt_report_loss *l = &r->losses[i];
		fprintf(f, "%s{\"cpu\": %u, \"kind\": \"%s\", \"count\": %" PRIu64 ", \"first_ns\": ", i ? ", " : "",
			l->cpu, lt_kind_name(l->kind), l->count);
		jts(f, l->first_ts);
		fprintf(f, ", \"last_ns\": ");
		jts(f, l->last_ts);
		fputc('}', f);
	}
	fprintf(f, "]},\n  \"notes\": [");
	for (size_t i = 0; i < r->n_notes; i++) {
		fputs(i ? ", " : "", f);
		rp_json_string(f, r->notes[i]);
	}
	fprintf(f, "],\n  \"stored_snapshots\": [");
	for (size_t i = 0; i < r->n_stored; i++) {
		const struct lt_report_stored *st = &r->stored[i];
		const char *o = lt_snapshot_occasion(st->occasion[0] ? st->occasion : NULL, i, r->n_stored,
						     !!(r->hdr_flags & LT_HDR_FLIGHT));
		fprintf(f, "%s\n    {\"occasion\": \"%s\", \"snapshot\": ", i ? "," : "", o);
		fwrite(st->json, 1, st->len, f);
		fputc('}', f);
	}
	fprintf(f, "%s]\n}\n", r->n_stored ? "\n  " : "");
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
	char (*phrase)[300];        /* per thread index; NULL: out of memory */
};

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
	x->phrase = malloc((r->n_threads ? r->n_threads : 1) * sizeof(*x->phrase));
	for (size_t i = 0; x->phrase && i < r->n_threads; i++)
		end_phrase(x, &r->threads[i], x->phrase[i], sizeof(x->phrase[i]));
}

static void tctx_free(struct tctx *x)
{
	lt_u64map_free(&x->word_lock);
	lt_u64map_free(&x->named);
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
	rp_fmt_dur(t->end_since && r->end_ts > t->end_since ? r->end_ts - t->end_since : 0, d, sizeof(d));
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
		rp_fmt_dur(l->total_ns, a, sizeof(a));
		rp_fmt_dur(l->median_ns, b, sizeof(b));
		rp_fmt_dur(l->p99_ns, c, sizeof(c));
		rp_fmt_dur(l->max_ns, d, sizeof(d));
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
		"runnable", "futex", "sel/poll", "sock-io", "other", "fwaits", "fwakes", "polls", "io", "woken", "preemp",
		"at the end");
	/* the threads a finding names first, then by tid; in a trace of
	 * several processes, under a heading per process */
	size_t nproc = r->n_procs > 1 ? r->n_procs : 1;
	for (size_t pi = 0, shown = 0; pi < nproc && shown < rows; pi++) {
	const struct lt_report_proc *pr = r->n_procs > 1 ? &r->procs[pi] : NULL;
	if (pr)
		print_proc_heading(f, pr);
	for (int pass = 0; pass < 2; pass++)
		for (size_t i = 0; i < r->n_threads && shown < rows; i++) {
			const struct lt_report_thread *t = &r->threads[i];
			if (involved(tx, t->tid) != !pass || (pr && (int32_t)t->tgid != pr->tgid))
				continue;
			shown++;
			char n[LT_COMM_LEN * 4], v[7][16], buf[300];
			rp_clean_name(t->rt_name ? t->rt_name : t->name, n, sizeof(n));
			const uint64_t x[] = { t->running_ns, t->runnable_ns, t->futex_ns, t->poll_ns, t->io_ns,
					       t->other_ns };
			for (int k = 0; k < 6; k++)
				ms(x[k], v[k], sizeof(v[k]));
			const char *ph = phrase_of(tx, i, buf, sizeof(buf));
			char col[4 * 15 + 1];
			fprintf(f, "  %-7u %s %8s %8s %8s %8s %8s %8s | %6" PRIu64 " %6" PRIu64 " %6" PRIu64
				   " %6" PRIu64 " %6" PRIu64 " %6" PRIu64 "  %s\n",
				t->tid, lt_text_fit(col, sizeof(col), n, 15), v[0], v[1], v[2], v[3], v[4], v[5], t->futex_waits, t->futex_wakes,
				t->polls, t->io_reads + t->io_writes, t->wakeups, t->preempted, ph);
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
		char w[96], x[96], n1[LT_COMM_LEN * 4], n2[LT_COMM_LEN * 4], sym[160], lk[4 * 160] = "";
		rp_clean_name(lt_report_thread_name(r, e->waker, e->waker_name), n1, sizeof(n1));
		rp_clean_name(lt_report_thread_name(r, e->wakee, e->wakee_name), n2, sizeof(n2));
		if (!e->waker)
			snprintf(w, sizeof(w), "timer/interrupt");
		else
			snprintf(w, sizeof(w), "%u (%s)%s", e->waker, n1, e->flags & LT_WAKE_OTHER ? "*" : "");
		snprintf(x, sizeof(x), "%u (%s)", e->wakee, n2);
		if (e->lock)
			rp_clean_name(lt_report_lock_name(r, e->lock, sym, sizeof(sym)), lk, sizeof(lk));
		rp_fmt_ts(e->last_ts, ts, sizeof(ts));
		char c1[4 * 24 + 1], c2[4 * 24 + 1];
		fprintf(f, "  %s %s %8" PRIu64 " %8" PRIu64 " %6" PRIu64 " %6" PRIu64 "  %-14s %s\n",
			lt_text_fit(c1, sizeof(c1), w, 24), lt_text_fit(c2, sizeof(c2), x, 24), e->count, e->via_futex, e->via_io, e->other, ts, lk);
	}
	if (r->n_edges)
		fprintf(f, "  (futex/io: woken from inside the waker's futex wake or socket call; other: otherwise,\n"
			   "   e.g. a signal; timer/interrupt: issued from interrupt context, whichever task ran then;\n"
			   "   * another process)\n");
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
	rp_fmt_dur(r->end_ts - r->start_ts, c, sizeof(c));
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
	if (!r->clean_end) {
		rp_fmt_ts(r->end_ts, a, sizeof(a));
		fprintf(f, ", CUT at %s: what came after it is missing", a);
	} else if (!r->lost_total) {
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
	} else if (r->clean_end) {
		fprintf(f, "  - no events were lost\n");
	}
	for (size_t i = 0; i < r->n_notes; i++)
		fprintf(f, "  - %s\n", r->notes[i]);
}
