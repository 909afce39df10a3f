// SPDX-License-Identifier: MIT
/* Building the report's findings: text and evidence lines, and the phrases
 * the rules share (a lock's and a thread's name, what a thread is doing at
 * the end, how its holder is known). */
#include <inttypes.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>
#include "lockid.h"
#include "report_model.h"
#include "utf8.h"

/* ------------------------------------------------------------ findings */

/* Appends a formatted line to a vector of malloc'd strings (notes,
 * evidence); on out of memory the line is dropped. */
/* Findings and notes are text for people, built from names, symbols and
 * paths of the target: formatted, then escaped as a whole (utf8.h; names
 * already escaped stay as they are), so that no output of them, text or
 * JSON, carries a control byte. */
static char *vtext(const char *fmt, va_list ap)
{
	char *s = NULL;
	if (vasprintf(&s, fmt, ap) < 0)
		return NULL;
	size_t n = strlen(s);
	char *t = malloc(4 * n + 1);
	if (t)
		lt_text_escape(t, 4 * n + 1, s, n);
	free(s);
	return t;
}

void rp_vec_addv(char ***v, size_t *n, const char *fmt, va_list ap)
{
	char *s = vtext(fmt, ap);
	if (!s)
		return;
	char **nv = realloc(*v, (*n + 1) * sizeof(*nv));
	if (!nv) {
		free(s);
		return;
	}
	*v = nv;
	nv[(*n)++] = s;
}

struct lt_report_finding *rp_finding_new(struct lt_report *r, enum lt_finding_kind kind,
					 const char *rule)
{
	struct lt_report_finding *v = lt_grow_pow2(r->findings, r->n_findings, sizeof(*v));
	if (!v) {
		P(r)->oom = 1;
		return NULL;
	}
	r->findings = v;
	struct lt_report_finding *f = &r->findings[r->n_findings++];
	memset(f, 0, sizeof(*f));
	f->kind = kind;
	f->rule = rule;
	f->fd = -1;
	return f;
}

void rp_f_summary(struct lt_report_finding *f, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
void rp_f_summary(struct lt_report_finding *f, const char *fmt, ...)
{
	va_list ap;
	va_start(ap, fmt);
	free(f->summary);
	f->summary = vtext(fmt, ap);
	va_end(ap);
}

void rp_f_ev(struct lt_report_finding *f, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
void rp_f_ev(struct lt_report_finding *f, const char *fmt, ...)
{
	va_list ap;
	va_start(ap, fmt);
	rp_vec_addv(&f->evidence, &f->n_evidence, fmt, ap);
	va_end(ap);
}

/* Appends the size bytes at x to the array v of *n such values (unless
 * dedup and they are there already): the array, grown if need be, or NULL
 * when out of memory (v is left as it was, the value dropped). */
static void *append(void *v, size_t *n, const void *x, size_t size, int dedup)
{
	for (size_t i = 0; dedup && i < *n; i++)
		if (!memcmp((const char *)v + i * size, x, size))
			return v;
	char *nv = lt_grow_pow2(v, *n, size);
	if (nv)
		memcpy(nv + (*n)++ * size, x, size);
	return nv;
}

void rp_f_tid(struct lt_report_finding *f, uint32_t tid)
{
	uint32_t *v = append(f->tids, &f->n_tids, &tid, sizeof(tid), 1);
	if (v)
		f->tids = v;
}

/* Unlike tids, locks may repeat (deadlock: parallel to tids). */
void rp_f_lock(struct lt_report_finding *f, uint64_t addr, int dedup)
{
	uint64_t *v = append(f->locks, &f->n_locks, &addr, sizeof(addr), dedup);
	if (v)
		f->locks = v;
}

void rp_f_group(struct lt_report_finding *f, const struct rgroup *g)
{
	for (unsigned i = 0; i < g->pub.n_words; i++)
		rp_f_lock(f, g->pub.words[i], 1);
}

/* A lock's kind (group_kind) as the findings word it. */
static const char *kind_text(const char *k)
{
	static const char *const words[][2] = {
		{ "condvar", "condition variable" },
		{ "cond/sem", "condition variable or semaphore" },
		{ "pi_mutex", "PI mutex" },
		{ "join", "a thread's tid, pthread_join" },
	};
	if (!k)
		return "futex";
	for (size_t i = 0; i < sizeof(words) / sizeof(words[0]); i++)
		if (!strcmp(k, words[i][0]))
			return words[i][1];
	return k;
}

/* "rtlock+0x50/+0x54 (0x5587e9e021b0, condition variable)" */
const char *rp_gname(const struct rgroup *g, char *buf, size_t len)
{
	const char *k = kind_text(g->pub.kind ? g->pub.kind : rp_group_kind(g));
	/* what the snapshot's lock models said it is wins over how its waits
	 * look: one name for a lock everywhere */
	for (size_t i = 0; !g->rt_kind[0] && i < g->n_mem; i++)
		if (g->mem[i]->snap && g->mem[i]->snap->lock_kind) {
			k = g->mem[i]->snap->lock_kind;
			break;
		}
	const char *a = g->keytext; /* "0x...", or what a key of another process stands for */
	/* a name or symbol the runtime and the symbols do not give is left
	 * out, never "?" */
	bool named = g->rt_name[0] && strcmp(g->rt_name, "?");
	int n;
	if (g->rt_kind[0] && g->pub.symbol[0])
		n = snprintf(buf, len, "the %s%s%s (%s, %s)", g->rt_kind, named ? " " : "", named ? g->rt_name : "",
			     g->pub.symbol, a);
	else if (g->rt_kind[0])
		n = snprintf(buf, len, "the %s%s%s (%s)", g->rt_kind, named ? " " : "", named ? g->rt_name : "", a);
	else if (g->pub.symbol[0])
		n = snprintf(buf, len, "%s (%s, %s)", g->pub.symbol, a, k);
	else if (g->pub.n_words > 1)
		n = snprintf(buf, len, "%s and the next %u words (%s)", a, g->pub.n_words - 1, k);
	else
		n = snprintf(buf, len, "%s (%s)", a, k);
	if (n > 0 && (size_t)n >= len) /* never a name cut mid-word unsaid */
		rp_ellipsis(buf, len);
	return buf;
}

void rp_ellipsis(char *buf, size_t len)
{
	if (len < 4)
		return;
	size_t end = len - 4;
	while (end > 0 && ((unsigned char)buf[end] & 0xC0) == 0x80)
		end--;
	memcpy(buf + end, "...", 4);
}

/* The symbol a group's words are in ("rtlock" for "rtlock+0x50/+0x54"). */
static int sym_base(struct lt_report *r, const struct rgroup *g, char *buf, size_t len)
{
	char s[128];
	uint64_t off;
	snprintf(s, sizeof(s), "%s", g->pub.symbol);
	char *slash = strchr(s, '/');
	if (slash)
		*slash = 0;
	return s[0] && rp_parse_sym(P(r), s, buf, len, &off);
}

/* The address space a lock key is in: 0 the trace's own process, 1 + its
 * index for another process, -1 a shared object (lockid.h). */
static int64_t key_space(uint64_t k)
{
	if (!(k & LT_LOCKKEY_ENC))
		return 0;
	return (k & LT_LOCKKEY_SHARED) ? -1 : 1 + (int64_t)((k >> LT_LOCKKEY_ADDR_BITS) & LT_LOCKKEY_MAX_INDEX);
}

/* Other locks whose words the snapshot names with the same symbol: parts of
 * one object (a runtime lock's mutex and condition variable). */
void rp_related_ev(struct lt_report *r, struct lt_report_finding *f, const struct rgroup *g)
{
	char base[128], b2[128], gn[RP_GNAME_LEN];
	int named = sym_base(r, g, base, sizeof(base));
	for (size_t i = 0; i < P(r)->ngr; i++) {
		const struct rgroup *o = P(r)->gr[i];
		if (o == g)
			continue;
		if (o->folded_into == g) { /* report_fold.c */
			char tot[32];
			lt_fmt_dur(o->pub.total_ns, tot, sizeof(tot));
			rp_f_ev(f, "an internal word of the %s: %s, %" PRIu64 " waits (%s in all), %" PRIu64
				   " wake calls, %u waiting at the end",
				g->rt_kind, rp_gname(o, gn, sizeof(gn)), o->pub.waits, tot, o->pub.wake_calls, o->n_end);
			continue;
		}
		if (!named || !sym_base(r, o, b2, sizeof(b2)) || strcmp(base, b2))
			continue;
		int64_t sg = key_space(g->pub.addr), so = key_space(o->pub.addr);
		if (sg >= 0 && so >= 0 && sg != so)
			continue; /* private memory of two processes: two objects */
		char tot[32];
		lt_fmt_dur(o->pub.total_ns, tot, sizeof(tot));
		rp_f_ev(f, "part of the same object %s: %s, %" PRIu64 " waits (%s in all), %" PRIu64 " wake calls, %u waiting at the end",
			base, rp_gname(o, gn, sizeof(gn)), o->pub.waits, tot, o->pub.wake_calls, o->n_end);
	}
}

const char *rp_tname(const struct rthread *t, char *buf, size_t len)
{
	char n[LT_COMM_LEN * 4];
	rp_clean_name(t->pub.rt_name ? t->pub.rt_name : t->pub.name, n, sizeof(n));
	if (t->other_proc)
		snprintf(buf, len, "%u (%s) of process %u", t->pub.tid, n, t->pub.tgid);
	else
		snprintf(buf, len, "%u (%s)", t->pub.tid, n);
	return buf;
}

uint64_t rp_end_since(const struct rthread *t)
{
	return t->pub.end_since;
}

uint64_t rp_dur_to_end(const struct lt_report *r, uint64_t since)
{
	return since && r->end_ts > since ? r->end_ts - since : 0;
}

/* What a thread is doing at the end, as a phrase: "blocked in read(fd 132,
 * 8192) since 2108.348769 (1.93 s)". */
void rp_doing(struct lt_report *r, const struct rthread *t, char *buf, size_t len)
{
	char call[256], ts[32], d[32];
	const struct lt_report_thread *p = &t->pub;
	rp_fmt_ts(p->end_since, ts, sizeof(ts));
	lt_fmt_dur(rp_dur_to_end(r, p->end_since), d, sizeof(d));
	switch (p->end_state) {
	case LT_RTS_IN_CALL:
		if (t->java_sleep) {
			/* its futex word is its own thread's, no lock's */
			const char *at = t->snap && t->snap->java_sleep ? t->snap->java_sleep : "";
			snprintf(buf, len, "asleep in Thread.sleep()%s%s since %s (%s): a timed sleep, not a lock",
				 at[0] ? " at " : "", at, p->end_since ? ts : "before the trace", d);
			break;
		}
		rp_fmt_call(r, &p->end_call, call, sizeof(call));
		snprintf(buf, len, "%s %s since %s (%s)", t->pub.asleep ? "blocked in" : "in", call,
			 p->end_since ? ts : "before the trace", d);
		break;
	case LT_RTS_RUNNING:
		snprintf(buf, len, "running since %s (%s)", ts, d);
		break;
	case LT_RTS_RUNNABLE:
		snprintf(buf, len, "runnable but not running (preempted or waiting for a cpu) since %s (%s)",
			 ts, d);
		break;
	case LT_RTS_SLEEPING:
		if (t->snap && t->snap->sc_name)
			snprintf(buf, len, "asleep in %s (not traced) since %s (%s)", t->snap->sc_name, ts, d);
		else
			snprintf(buf, len, "asleep outside the traced calls since %s (%s)", ts, d);
		break;
	case LT_RTS_EXITED:
		snprintf(buf, len, "exited at %s", ts);
		break;
	default:
		snprintf(buf, len, "in an unknown state");
	}
}

int rp_is_lock_waiter(const struct rthread *t)
{
	return t->pub.end_state == LT_RTS_IN_CALL && t->end_group && !t->join_wait && !t->rt_note &&
	       !t->idle_cond && !t->java_sleep;
}

/* A holder known from memory or from the events, not guessed. */
int rp_holder_evidenced(const struct rgroup *g)
{
	return g->end_holder && (g->end_holder_src == 1 || g->end_holder_src == 2);
}

/* A threading.Lock or RLock the CPython thread model named (rtthread.h). */
int rp_python_lock(const struct rp_snap_thread *t)
{
	return t->lock_kind &&
	       (!strcmp(t->lock_kind, "threading.Lock") || !strcmp(t->lock_kind, "threading.RLock"));
}


const char *rp_holder_how(struct lt_report *r, const struct rgroup *g, char *buf, size_t len)
{
	struct rthread *h = P(r)->th[g->end_holder - 1];
	char ts[32], ws[64] = "";
	if (g->end_holder_src == 1) {
		char dis[96] = "";
		/* where the event rule disagrees, say so */
		if (g->holder && g->holder != g->end_holder)
			snprintf(dis, sizeof(dis), "; the event rule would name %u", P(r)->th[g->holder - 1]->pub.tid);
		else if (!g->holder)
			snprintf(dis, sizeof(dis), "; the event rule names nobody (the holder's acquire was not "
				 "seen as a wait)");
		for (size_t i = 0; i < g->n_mem; i++) {
			struct rthread *t = g->mem[i];
			if (!t->snap || t->snap->owner != (int32_t)h->pub.tid)
				continue;
			if (t->snap->runtime)
				snprintf(buf, len, "the snapshot read it from the runtime's own state (%s%s%s)%s",
					 t->snap->lock_kind ? t->snap->lock_kind : "runtime lock",
					 t->snap->rt_how ? ": " : "", t->snap->rt_how ? t->snap->rt_how : "", dis);
			else if (t->snap->owner_pid)
				snprintf(buf, len, "the snapshot read its owner (the process-shared mutex's "
					 "__owner, a thread of process %d)%s", t->snap->owner_pid, dis);
			else if (t->snap->owner_kind && !strcmp(t->snap->owner_kind, "condition_lock"))
				snprintf(buf, len, "the snapshot read the owner of the Condition's lock (its RLock's "
					 "recorded owner); notify() raises unless its caller holds that lock%s", dis);
			else
				snprintf(buf, len, "the snapshot read its owner (%s)%s", t->snap->owner_kind, dis);
			return buf;
		}
		snprintf(buf, len, "the snapshot read its owner%s", dis);
		return buf;
	}
	char undo[320] = "";
	if (g->undo_tid) {
		char t1[32];
		rp_fmt_ts(g->undo_ret_ts, t1, sizeof(t1));
		snprintf(undo, sizeof(undo), "; %s %u's wait on it returned at %s, but it waited on it again "
			 "%.0f us after with no traced call between but futex calls%s: read as a waiter that "
			 "found it taken, not a holder", g->end_holder_src == 3 ? "the events' last take was undone:" : "later,",
			 g->undo_tid, t1, (double)(g->undo_rewait_ts - g->undo_ret_ts) / 1e3,
			 (r->hdr_flags & LT_HDR_CALLS_BLOCKING) ? " (recorded with --calls blocking: calls that did not sleep are not in the trace)" : "");
	}
	if (g->end_holder_src == 3) {
		snprintf(buf, len, "inferred from the snapshot, which records no owner for this lock: of the threads "
				   "not waiting on it, only this one runs the waiters' code (%s) and is blocked in a call%s",
			 g->infer_func, undo);
		return buf;
	}
	rp_fmt_ts(g->acq_ts, ts, sizeof(ts));
	if (g->acq_waker)
		snprintf(ws, sizeof(ws), ", woken by %u", g->acq_waker);
	snprintf(buf, len, "its wait on the lock returned at %s%s; it has neither woken nor waited on it since%s",
		 ts, ws, undo);
	return buf;
}

/* up to max tids, "2047, 2048, ... (63)" */
void rp_tid_list(struct lt_report *r, struct rgroup *g, char *buf, size_t len, unsigned max)
{
	size_t n = 0;
	unsigned k = 0;
	buf[0] = 0;
	for (size_t i = 0; i < g->n_mem; i++) {
		struct rthread *t = g->mem[i];
		if (!rp_is_lock_waiter(t))
			continue;
		if (k < max && n < len)
			n += (size_t)snprintf(buf + n, len - n, "%s%u", k ? ", " : "", t->pub.tid);
		k++;
	}
	if (k > max && n < len)
		snprintf(buf + n, len - n, ", ... (%u threads)", k);
}

void rp_last_calls_ev(struct lt_report *r, struct lt_report_finding *f, const struct rthread *t,
		      uint64_t after, const char *label)
{
	char line[1024], c[256], ts[32];
	size_t n = (size_t)snprintf(line, sizeof(line), "%s", label);
	int any = 0;
	for (unsigned k = 0; k < t->ring_n; k++) {
		const struct lt_report_call *x = rp_ring_call(r, t, k);
		if (x->begin < after)
			continue;
		rp_fmt_call(r, x, c, sizeof(c));
		rp_fmt_ts(x->begin, ts, sizeof(ts));
		if (n < sizeof(line))
			n += (size_t)snprintf(line + n, sizeof(line) - n, "%s%s %s", any ? "; " : " ", ts, c);
		any = 1;
	}
	if (any)
		rp_f_ev(f, "%s", line);
}

void rp_snap_ev(struct lt_report *r, struct lt_report_finding *f, const struct rthread *t)
{
	char ts[32], tn[96];
	if (!t->snap)
		return;
	rp_fmt_ts(r->snapshot_ts, ts, sizeof(ts));
	if (t->snap->detail)
		rp_f_ev(f, "snapshot at %s: %s %s%s%s", ts, rp_tname(t, tn, sizeof(tn)), t->snap->detail,
			t->snap->where ? "; at " : "", t->snap->where ? t->snap->where : "");
}

/* What the snapshot read of a Python lock: its semaphore, and the threads
 * whose frames keep it (where its holder probably is). */
void rp_python_lock_ev(struct lt_report *r, struct lt_report_finding *f, const struct rgroup *g)
{
	struct lt_report_priv *p = P(r);
	for (size_t i = 0; i < p->nth; i++) {
		const struct rthread *t = p->th[i];
		if (t->end_group == g->idx + 1 && t->snap && rp_python_lock(t->snap) && t->snap->lock_state) {
			rp_f_ev(f, "the snapshot read the %s: %s", t->snap->lock_kind, t->snap->lock_state);
			return;
		}
	}
}

/* With no holder known, what every thread not waiting on the lock is
 * doing usually shows who keeps it (the one blocked in a read) or that
 * nobody does. */
void rp_others_ev(struct lt_report *r, struct lt_report_finding *f, const struct rgroup *g)
{
	char line[2048], what[512], tn[96];
	size_t n = 0;
	unsigned k = 0, more = 0;
	/* the first 8 in thread order and a count of the rest: the walk
	 * stops there, past at most the group's own threads */
	uint32_t others = P(r)->n_alive - g->n_mem_alive;
	/* an object's other waiters, on words of their own (rp_fold_conditions),
	 * are its waiters too */
	for (size_t i = 0; i < P(r)->ngr; i++)
		if (P(r)->gr[i]->cond_into == g)
			others -= P(r)->gr[i]->n_mem_alive < others ? P(r)->gr[i]->n_mem_alive : others;
	for (size_t i = 0; i < P(r)->nth && k < 8; i++) {
		const struct rthread *t = P(r)->th[i];
		if (t->end_group == g->idx + 1 || t->pub.end_state == LT_RTS_EXITED ||
		    (t->end_group && P(r)->gr[t->end_group - 1]->cond_into == g))
			continue;
		k++;
		rp_doing(r, t, what, sizeof(what));
		if (n < sizeof(line))
			n += (size_t)snprintf(line + n, sizeof(line) - n, "%s%s %s", k > 1 ? "; " : "",
					      rp_tname(t, tn, sizeof(tn)), what);
	}
	if (!k)
		return;
	more = others > k ? others - k : 0;
	if (more && n < sizeof(line))
		snprintf(line + n, sizeof(line) - n, "; and %u more", more);
	rp_f_ev(f, "the threads not waiting on it: %s", line);
}
