// SPDX-License-Identifier: MIT
/*
 * `locktrace report`: analysis over the timeline model (see report.h and
 * docs/report.md for what each rule claims and where it can be wrong).
 *
 * The report is a timeline sink.  As the model reports calls, wake-ups and
 * scheduler records, it keeps per thread where its time goes and its last
 * few calls, per lock (a futex word, or adjacent words used together such
 * as a condition variable's two g_signals words) its wait-time histogram,
 * queue, hand-offs and the thread that holds it by the event rule below,
 * and per pair of threads how often one woke the other.  At the end the
 * threads still waiting, the snapshot's view of the same moment (owners,
 * futex words, symbols) and those tables are turned into findings.
 *
 * The holder of a lock, from events alone: the thread whose wait on one of
 * the lock's words last returned (0, or EAGAIN: the word had already
 * changed, which for a condition variable means a signal was there to take)
 * and that has neither woken nor waited on the lock's words since.  For a
 * mutex taken after a futex wait glibc always unlocks with a FUTEX_WAKE
 * (the word says "contended"), so its release is seen; a lock taken
 * without waiting is invisible until it is released with a wake.
 *
 * The files: this one, the entry points and the order of the work at the
 * end; report_track.c, the sink (the tables above, the event rule);
 * report_syms.c, lock names; report_end.c, the state at the end and each
 * lock's holder; report_rules.c, the rules, built with report_find.c's
 * helpers; report_fmt.c, the wording of times, durations and calls;
 * report_print.c, the text and JSON output, which reads only the public
 * struct lt_report.  report_model.h declares what they share.
 */
#include <errno.h>
#include <inttypes.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>
#include "locksyms.h"
#include "locktrace/futex.h"
#include "lockid.h"
#include "report_model.h"
#include "utf8.h"

/* -------------------------------------------------------------- public */

struct lt_report *lt_report_new(const struct lt_header *hdr, const struct lt_report_opts *o)
{
	struct lt_report *r = calloc(1, sizeof(*r));
	if (!r)
		return NULL;
	r->priv = calloc(1, sizeof(*r->priv));
	if (!r->priv) {
		free(r);
		return NULL;
	}
	if (o)
		r->opts = *o;
	if (!r->opts.last_n)
		r->opts.last_n = LT_REPORT_LAST_N;
	if (r->opts.last_n > 1000)
		r->opts.last_n = 1000;
	if (r->opts.stall_s <= 0)
		r->opts.stall_s = LT_REPORT_STALL_S;
	if (!r->opts.convoy_min)
		r->opts.convoy_min = LT_REPORT_CONVOY_MIN;
	if (r->opts.incident_ms <= 0)
		r->opts.incident_ms = LT_REPORT_INCIDENT_MS;
	if (!r->opts.rows)
		r->opts.rows = LT_REPORT_ROWS;

	r->pid = hdr->pid;
	snprintf(r->comm, sizeof(r->comm), "%s", hdr->comm);
	snprintf(r->exe, sizeof(r->exe), "%s", hdr->exe);
	snprintf(r->cmdline, sizeof(r->cmdline), "%s", hdr->cmdline);
	snprintf(r->host, sizeof(r->host), "%s", hdr->host);
	snprintf(r->kernel, sizeof(r->kernel), "%s", hdr->kernel);
	r->hdr_flags = hdr->flags;
	r->attach_boottime = hdr->clock_boottime;
	r->attach_realtime = hdr->clock_realtime;
	r->clean_end = 1;

	struct lt_report_priv *p = r->priv;
	p->pid = (uint32_t)hdr->pid;
	p->mono_to_boot = hdr->clock_boottime - hdr->clock_monotonic;
	const char *slash = strrchr(hdr->exe, '/');
	snprintf(p->exe_base, sizeof(p->exe_base), "%s", slash ? slash + 1 : hdr->exe);

	struct lt_timeline_sink sink = rp_track_sink(r);
	p->tl = lt_timeline_new(hdr, &sink, NULL);
	if (!p->tl || p->oom || rp_procs_init(r, hdr)) {
		lt_report_free(r);
		return NULL;
	}
	return r;
}

int lt_report_event(struct lt_report *r, const struct lt_event *ev)
{
	if (P(r)->finished)
		return 0;
	r->events++;
	int ret = lt_timeline_event(P(r)->tl, ev);
	return ret ? ret : P(r)->oom ? -ENOMEM : 0;
}

static void add_note(struct lt_report *r, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
static void add_note(struct lt_report *r, const char *fmt, ...)
{
	va_list ap;
	va_start(ap, fmt);
	rp_vec_addv(&r->notes, &r->n_notes, fmt, ap);
	va_end(ap);
}

void lt_report_symbol_entry(void *ctx, int32_t tgid, uint64_t addr, const char *name,
			    const struct lt_shared_key *key)
{
	struct lt_report *r = ctx;
	uint64_t k = lt_lockid_symbol(lt_timeline_lockid(P(r)->tl), (uint32_t)tgid, addr, key != NULL,
				      key ? key->dev : 0, key ? key->ino : 0, key ? key->offset : 0);
	if (k)
		rp_add_sym(P(r), k, name);
}

int lt_report_symbols(struct lt_report *r, const void *data, size_t len)
{
	struct lt_u64map m = { 0 };
	int rc = lt_locksyms_parse(data, len, &m);
	if (!rc)
		rc = lt_locksyms_parse_procs(data, len, r->pid, lt_report_symbol_entry, r);
	for (size_t i = 0; i < m.cap; i++)
		if (m.keys[i] && m.vals[i])
			rp_add_sym(P(r), m.keys[i], m.vals[i]);
	lt_symmap_free(&m);
	if (rc) {
		add_note(r, "a SYMBOLS section is damaged; lock names read before the damage are used");
		return -1;
	}
	return 0;
}

/* The text as stored, for the JSON report, which embeds it as it is: the
 * parser took it as JSON (no control bytes in its strings), and bytes that
 * are not UTF-8 become U+FFFD here, as in every JSON locktrace writes. */
static void keep_stored(struct lt_report *r, const char *json, size_t len, const char *occasion)
{
	struct lt_report_stored *nv = realloc(r->stored, (r->n_stored + 1) * sizeof(*nv));
	char *copy = malloc(3 * len + 1);
	if (nv)
		r->stored = nv;
	if (!nv || !copy) {
		free(copy);
		P(r)->oom = 1;
		return;
	}
	size_t n = lt_utf8_sanitize(copy, 3 * len + 1, json, len);
	nv[r->n_stored] = (struct lt_report_stored){ copy, n, "" };
	snprintf(nv[r->n_stored++].occasion, sizeof(nv->occasion), "%s", occasion ? occasion : "");
}

/* A runtime's name for a thread, from any snapshot: a thread that exited
 * before the last one keeps the name an earlier one read. */
static void add_rtname(struct lt_report_priv *p, int32_t tid, const char *name)
{
	if (tid <= 0 || !name || !name[0])
		return;
	char *v = strdup(name), *old = lt_u64map_get(&p->rtnames, (uint64_t)tid);
	if (!v || lt_u64map_put(&p->rtnames, (uint64_t)tid, v)) {
		free(v);
		return;
	}
	free(old);
}

int lt_report_snapshot(struct lt_report *r, const char *json, size_t len)
{
	struct lt_report_priv *p = P(r);
	char err[200];
	struct rp_snapshot s;
	int bad = rp_snapshot_from_json(json, len, p->exe_base, &s, err, sizeof(err));
	if (bad == -2) {
		add_note(r, "a snapshot section is not a locktrace.snapshot/1 document; ignored");
		return -1;
	}
	if (bad) {
		add_note(r, "a snapshot section could not be read (%s); the report goes on without it",
			 strncmp(err, "not JSON: ", 10) ? err : err + 10);
		return -1;
	}
	keep_stored(r, json, len, s.occasion);
	/* what it could not read weakens what it says: said with the report */
	for (size_t i = 0; i < s.incomplete.n; i++)
		add_note(r, "the snapshot taken at %.6f%s%s%s is incomplete: %s",
			 (double)((uint64_t)s.taken_monotonic_ns + p->mono_to_boot) / 1e9,
			 s.occasion ? ", at the " : "", s.occasion ? s.occasion : "", s.occasion ? "," : "",
			 s.incomplete.v[i]);
	struct lt_lockid *ids = lt_timeline_lockid(p->tl);
	for (size_t i = 0; i < s.n_threads; i++) {
		if (s.threads[i].has_futex)
			rp_add_sym(p, lt_lockid_key(ids, (uint32_t)s.threads[i].pid, s.threads[i].uaddr,
						    lt_futex_private((uint16_t)s.threads[i].nr, s.threads[i].op)),
				   s.threads[i].lock);
		add_rtname(p, s.threads[i].tid, s.threads[i].rt_name);
	}
	/* the latest snapshot describes the end best; earlier ones still
	 * name the locks */
	if (p->have_snap)
		rp_snapshot_clear(&p->snap);
	p->snap = s;
	p->have_snap = 1;
	r->n_snapshots++;
	r->snapshot_ts = (uint64_t)s.taken_monotonic_ns + p->mono_to_boot;
	return 0;
}

void lt_report_stats(struct lt_report *r, const struct lt_stats *s)
{
	r->have_stats = 1;
	r->stop_reason = s->stop_reason;
	P(r)->stats_end = s->end_ns;
	uint64_t lost = 0;
	for (uint64_t i = 0; s->lost && i < (uint64_t)s->ncpus * LT_EV_MAX; i++)
		lost += s->lost[i];
	r->lost_total = lost;
	/* the stats have the losses per cpu and kind even when the LOST
	 * records themselves were cut off */
	for (uint32_t c = 0; s->lost && c < s->ncpus; c++)
		for (unsigned k = 0; k < LT_EV_MAX; k++) {
			uint64_t n = s->lost[(uint64_t)c * LT_EV_MAX + k];
			int known = 0;
			for (size_t i = 0; i < P(r)->nloss; i++)
				known |= P(r)->loss[i].cpu == c && P(r)->loss[i].kind == k;
			if (!n || known)
				continue;
			struct lt_event ev = { .h = { .cpu = (uint16_t)c, .kind = LT_EV_LOST } };
			ev.lost.count = n;
			ev.lost.lost_kind = k;
			rp_on_lost(r, &ev);
		}
}

void lt_report_reader_end(struct lt_report *r, int clean, const char *why, uint64_t offset)
{
	r->clean_end = clean;
	snprintf(r->stop_why, sizeof(r->stop_why), "%s", why ? why : "");
	r->stop_offset = offset;
}

void lt_report_reader_damage(struct lt_report *r, const struct lt_reader *rd)
{
	char line[512];

	r->damaged_bytes = rd->skipped_bytes;
	for (unsigned k = 0; lt_reader_damage_line(rd, k, line, sizeof(line)); k++)
		add_note(r, "%s", line);
}

/* ---------------------------------------------------------------- finish */

/* The first of three comparisons (each -1, 0 or 1) that tells a and b apart. */
static int cmp3(int first, int second, int third)
{
	return first ? first : second ? second : third;
}

/* locks before a runtime's own sleeps, most waited first, then most
 * woken, then by address */
static int cmp_lock(const void *a, const void *b)
{
	const struct lt_report_lock *x = a, *y = b;
	if (x->not_lock != y->not_lock)
		return x->not_lock - y->not_lock;
	return cmp3(RP_CMP(y->total_ns, x->total_ns), RP_CMP(y->wake_calls, x->wake_calls),
		    RP_CMP(x->addr, y->addr));
}

static int cmp_thread(const void *a, const void *b)
{
	const struct lt_report_thread *x = a, *y = b;
	return cmp3(RP_CMP(x->tid, y->tid), RP_CMP(x->first_ts, y->first_ts), 0);
}

/* most frequent first */
static int cmp_edge(const void *a, const void *b)
{
	const struct lt_report_edge *x = a, *y = b;
	return cmp3(RP_CMP(y->count, x->count), RP_CMP(x->waker, y->waker), RP_CMP(x->wakee, y->wakee));
}

/* A deadlock the stored snapshot found (a Go goroutine cycle, which no
 * thread's events show) ranks with the deadlocks: ahead of the stall its
 * parked threads make, which is its consequence, not its cause. */
static unsigned finding_rank(const struct lt_report_finding *f)
{
	if (f->kind == LT_FIND_SNAPSHOT && f->rule && !strcmp(f->rule, "deadlock"))
		return LT_FIND_DEADLOCK;
	/* a thread stuck on a file lock at the end is why the rest stalls;
	 * a wait that ended ranks with the incidents during the trace */
	if (f->kind == LT_FIND_FILE_LOCK)
		return f->rule && !strcmp(f->rule, "blocked") ? LT_FIND_HOLDER_BLOCKED : LT_FIND_CONVOY;
	return f->kind;
}

/* By rank, then the oldest first; two findings that began together (two
 * locks whose one holder is stuck: a GIL and a Thread.join on the thread
 * holding it) put the one through fewer locks to the holder first (a
 * join of a thread that waits for the stuck holder's lock comes after
 * that lock's finding, its cause), then the one that stops more threads,
 * then the lower lock, then the lower thread: never qsort's whim. */
static int cmp_finding(const void *a, const void *b)
{
	const struct lt_report_finding *x = a, *y = b;
	int c = cmp3(RP_CMP(finding_rank(x), finding_rank(y)), RP_CMP(x->since, y->since),
		     cmp3(RP_CMP(x->via, y->via), RP_CMP(y->n_tids, x->n_tids), 0));
	if (c)
		return c;
	return cmp3(RP_CMP(x->n_locks ? x->locks[0] : 0, y->n_locks ? y->locks[0] : 0),
		    RP_CMP(x->n_tids ? x->tids[0] : 0, y->n_tids ? y->tids[0] : 0), 0);
}

/* The threads' records, sorted, with their last calls oldest first; the
 * strings the model's copies own move to them.  0 or -ENOMEM. */
static int public_threads(struct lt_report *r)
{
	struct lt_report_priv *p = P(r);
	for (size_t i = 0; i < p->nth; i++) {
		struct rthread *t = p->th[i];
		struct lt_report_thread *x = &r->threads[i];
		*x = t->pub;
		t->pub.snap_detail = t->pub.snap_where = t->pub.rt_name = NULL; /* moved */
		x->n_last = t->ring_n;
		x->last = calloc(t->ring_n ? t->ring_n : 1, sizeof(*x->last));
		if (!x->last)
			return -ENOMEM;
		for (unsigned k = 0; k < t->ring_n; k++)
			x->last[k] = *rp_ring_call(r, t, k);
	}
	r->n_threads = p->nth;
	qsort(r->threads, r->n_threads, sizeof(*r->threads), cmp_thread);
	if (rp_procs_finish(r))
		p->oom = 1;
	return 0;
}

/* Who woke whom, most often first, with both threads' names. */
static void public_edges(struct lt_report *r)
{
	struct lt_report_priv *p = P(r);
	for (size_t i = 0; i < p->ned; i++) {
		r->edges[i] = p->ed[i].pub;
		struct rthread *w = rp_thread_of(r, r->edges[i].waker);
		struct rthread *e = rp_thread_of(r, r->edges[i].wakee);
		if (w)
			memcpy(r->edges[i].waker_name, w->pub.name, LT_COMM_LEN);
		if (e)
			memcpy(r->edges[i].wakee_name, e->pub.name, LT_COMM_LEN);
	}
	r->n_edges = p->ned;
	qsort(r->edges, r->n_edges, sizeof(*r->edges), cmp_edge);
}

/* The public tables of locks, threads, wake-ups and losses.  0 or -ENOMEM. */
static int public_tables(struct lt_report *r)
{
	struct lt_report_priv *p = P(r);
	r->locks = calloc(p->ngr ? p->ngr : 1, sizeof(*r->locks));
	r->threads = calloc(p->nth ? p->nth : 1, sizeof(*r->threads));
	r->edges = calloc(p->ned ? p->ned : 1, sizeof(*r->edges));
	if (!r->locks || !r->threads || !r->edges)
		return -ENOMEM;
	for (size_t i = 0; i < p->ngr; i++)
		r->locks[i] = p->gr[i]->pub;
	r->n_locks = p->ngr;
	qsort(r->locks, r->n_locks, sizeof(*r->locks), cmp_lock);
	if (public_threads(r))
		return -ENOMEM;
	public_edges(r);
	r->losses = p->loss;
	r->n_losses = p->nloss;
	p->loss = NULL;
	if (!r->lost_total)
		for (size_t i = 0; i < r->n_losses; i++)
			r->lost_total += r->losses[i].count;
	return 0;
}

/* What the reader must know about the trace as a whole. */
static void end_notes(struct lt_report *r)
{
	if (!r->clean_end) {
		char at[32];
		rp_fmt_ts(r->end_ts, at, sizeof(at));
		add_note(r, "the trace is cut at %s (%s): what happened after %s is missing, losses included; "
			 "this report covers it up to there, its last good chunk, and \"at the end\" means at the cut",
			 at, r->stop_why[0] ? r->stop_why : "no end marker", at);
	}
	if (r->unseen_switches)
		add_note(r, LT_UNSEEN_SWITCHES_FMT,
			 LT_UNSEEN_SWITCHES_ARGS(r->unseen_switches, r->lost_total));
	if (r->late_events)
		add_note(r, "%" PRIu64 " events arrived later than the sorting window allows; their order may be approximate",
			 r->late_events);
	if (r->hdr_flags & LT_HDR_FLIGHT)
		add_note(r, "a flight-recorder dump: it holds the last stretch of time before the dump, so calls and waits that began earlier are missing or start at the ring's beginning");
	if (!P(r)->have_snap)
		add_note(r, "no snapshot in the trace (a launched target has none at attach, a cut trace may have lost it): lock owners and the stacks of threads asleep before the events began are unknown");
}

int lt_report_finish(struct lt_report *r)
{
	struct lt_report_priv *p = P(r);
	if (p->finished)
		return 0;
	p->finished = 1;
	const struct lt_timeline_stats *st = lt_timeline_stats(p->tl);
	/* the last events are still in the timeline's sorting window: its
	 * last time is known once they are interpreted */
	lt_timeline_finish(p->tl, p->stats_end);
	uint64_t end = st->last_ts;
	if (p->stats_end > end)
		end = p->stats_end;
	r->start_ts = lt_timeline_start(p->tl);
	r->end_ts = end > r->start_ts ? end : r->start_ts;
	r->inferred_ends = st->inferred_ends;
	r->orphan_exits = st->orphan_exits;
	r->late_events = st->late;
	r->unseen_switches = st->unseen_switches;

	if (rp_end_of_trace(r))
		return -ENOMEM;
	rp_run_rules(r);
	if (r->n_findings)
		qsort(r->findings, r->n_findings, sizeof(*r->findings), cmp_finding);

	if (public_tables(r))
		return -ENOMEM;
	end_notes(r);
	return p->oom ? -ENOMEM : 0;
}

const char *lt_report_thread_name(const struct lt_report *r, uint32_t tid, const char *comm)
{
	size_t lo = 0, hi = r->n_threads;
	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;
		const struct lt_report_thread *t = &r->threads[mid];
		if (t->tid == tid)
			return t->rt_name ? t->rt_name : comm ? comm : t->name;
		if (t->tid < tid)
			lo = mid + 1;
		else
			hi = mid;
	}
	return comm ? comm : "";
}

/* What a thread's record owns: the model's copy owns its strings until
 * lt_report_finish moves them to the public one, which also owns last. */
static void thread_clear(struct lt_report_thread *x)
{
	free(x->last);
	free(x->snap_detail);
	free(x->snap_where);
	free(x->rt_name);
}

static void priv_free(struct lt_report_priv *p)
{
	lt_timeline_free(p->tl);
	for (size_t i = 0; i < p->nth; i++) {
		free(p->th[i]->ring);
		thread_clear(&p->th[i]->pub);
		free(p->th[i]);
	}
	free(p->th);
	for (size_t i = 0; i < p->ngr; i++) {
		free(p->gr[i]->hist);
		free(p->gr[i]->mem);
		free(p->gr[i]);
	}
	free(p->gr);
	free(p->fidx);
	lt_u64map_free(&p->tmap);
	lt_u64map_free(&p->amap);
	lt_u64map_free(&p->seen);
	lt_u64map_free(&p->emap);
	lt_u64map_free(&p->stuck_tids);
	free(p->ed);
	free(p->loss);
	if (p->have_snap)
		rp_snapshot_clear(&p->snap);
	lt_symmap_free(&p->rtnames);
	rp_syms_free(p);
	free(p);
}

void lt_report_free(struct lt_report *r)
{
	if (!r)
		return;
	if (r->priv)
		priv_free(r->priv);
	for (size_t i = 0; i < r->n_findings; i++) {
		struct lt_report_finding *f = &r->findings[i];
		free(f->summary);
		rp_strv_free(f->evidence, f->n_evidence);
		free(f->tids);
		free(f->locks);
	}
	free(r->findings);
	free(r->locks);
	for (size_t i = 0; i < r->n_stored; i++)
		free(r->stored[i].json);
	free(r->stored);
	for (size_t i = 0; i < r->n_threads; i++)
		thread_clear(&r->threads[i]);
	free(r->threads);
	free(r->procs);
	free(r->edges);
	free(r->losses);
	rp_strv_free(r->notes, r->n_notes);
	free(r);
}

/* names[i], or "unknown" past the table's end or in a gap. */
static const char *table_name(const char *const *names, size_t n, unsigned i)
{
	return i < n && names[i] ? names[i] : "unknown";
}

const char *lt_finding_kind_name(enum lt_finding_kind k)
{
	static const char *const names[] = {
		[LT_FIND_DEADLOCK] = "deadlock", [LT_FIND_LOST_WAKEUP] = "lost_wakeup",
		[LT_FIND_HOLDER_BLOCKED] = "holder_blocked", [LT_FIND_STALL] = "stall",
		[LT_FIND_HOLDER_OFFCPU] = "holder_offcpu", [LT_FIND_CONVOY] = "convoy",
		[LT_FIND_STALLED_WAITERS] = "stalled_waiters", [LT_FIND_SNAPSHOT] = "snapshot",
		[LT_FIND_FILE_LOCK] = "file_lock",
	};
	return table_name(names, sizeof(names) / sizeof(names[0]), k);
}

const char *lt_report_tstate_name(enum lt_report_tstate s)
{
	static const char *const names[] = {
		[LT_RTS_RUNNING] = "running", [LT_RTS_RUNNABLE] = "runnable", [LT_RTS_IN_CALL] = "in_call",
		[LT_RTS_SLEEPING] = "sleeping", [LT_RTS_EXITED] = "exited",
	};
	return table_name(names, sizeof(names) / sizeof(names[0]), s);
}
