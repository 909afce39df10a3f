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

#include "locktrace/lockmodel.h"
#include "locktrace/rtthread.h"
#include "locktrace/snapshot.h"
#include "snapshot_int.h"
#include "utf8.h"

/* ---- escaping ---- */

static void json_str(FILE *f, const char *s)
{
	if (s)
		lt_json_fput(f, s);
	else
		fputs("null", f);
}

static void text_str(FILE *f, const char *s)
{
	if (s)
		lt_text_fput(f, s, (size_t)-1);
	else
		fputs("?", f);
}

static void json_hex(FILE *f, uint64_t v)
{
	fprintf(f, "\"0x%" PRIx64 "\"", v);
}

static void json_strlist(FILE *f, const struct lt_strlist *l)
{
	fputc('[', f);
	for (size_t i = 0; i < l->n; i++) {
		if (i)
			fputc(',', f);
		json_str(f, l->v[i]);
	}
	fputc(']', f);
}

/* ---- JSON ---- */

static void json_fd(FILE *f, const struct lt_fd *d)
{
	fprintf(f, "{\"fd\":%d,\"kind\":\"%s\",\"target\":", d->fd, lt_fd_kind_name(d->kind));
	json_str(f, d->target);
	fputs(",\"desc\":", f);
	json_str(f, d->desc);
	fprintf(f, ",\"events\":%u}", d->events);
}

static void json_futex(FILE *f, const struct lt_futex *x)
{
	char op[96];
	if (x->cmd >= 0)
		lt_futex_op_str(x->op, op, sizeof(op));
	else
		snprintf(op, sizeof(op), "FUTEX2_WAIT%s", x->private_ ? "_PRIVATE" : "");
	fputs("{\"uaddr\":", f);
	json_hex(f, x->uaddr);
	fputs(",\"lock\":", f);
	json_str(f, x->lock_sym);
	fputs(",\"lock_kind\":", f);
	json_str(f, x->lock_kind);
	fputs(",\"lock_base\":", f);
	json_hex(f, x->lock_base ? x->lock_base : x->uaddr);
	fputs(",\"lock_name\":", f);
	json_str(f, x->lock_name);
	fputs(",\"lock_state\":", f);
	json_str(f, x->lock_state);
	if (x->rtlock)
		fprintf(f, ",\"runtime_lock\":%u", x->rtlock - 1);
	else
		fputs(",\"runtime_lock\":null", f);
	if (x->shared_obj)
		fprintf(f, ",\"shared_object\":{\"dev\":\"%u:%u\",\"inode\":%" PRIu64 ",\"offset\":%" PRIu64 "}",
			x->obj_major, x->obj_minor, x->obj_ino, x->obj_off);
	else
		fputs(",\"shared_object\":null", f);
	fprintf(f, ",\"op\":%u,\"op_name\":\"%s\",\"cmd\":%d,\"private\":%s,\"clock_realtime\":%s,"
		   "\"is_wait\":%s,\"is_pi\":%s,\"expected\":%u,\"bitset\":%u,",
		x->op, op, x->cmd, x->private_ ? "true" : "false", x->clock_realtime ? "true" : "false",
		x->is_wait ? "true" : "false", x->is_pi ? "true" : "false", x->expected, x->bitset);
	if (x->word_ok)
		fprintf(f, "\"word\":%u,", x->word);
	else
		fputs("\"word\":null,", f);
	if (!x->timeout_ptr)
		fputs("\"timeout\":null,", f);
	else if (!x->timeout_ok)
		fputs("\"timeout\":{\"readable\":false},", f);
	else
		fprintf(f, "\"timeout\":{\"readable\":true,\"absolute\":%s,\"sec\":%" PRId64 ",\"nsec\":%" PRId64 "},",
			x->timeout_abs ? "true" : "false", x->timeout_sec, x->timeout_nsec);
	if (x->mutex_ok)
		fprintf(f, "\"mutex_fields\":{\"count\":%d,\"owner\":%d,\"kind\":%d},",
			x->mutex_count, x->mutex_owner, x->mutex_kind);
	else
		fputs("\"mutex_fields\":null,", f);
	fprintf(f, "\"owner_kind\":\"%s\",", lt_owner_kind_name(x->owner_kind));
	if (x->owner_kind >= LT_OWNER_MUTEX)
		fprintf(f, "\"owner\":%d,", (int)x->owner);
	else
		fputs("\"owner\":null,", f);
	if (x->owner_tgid > 0) {
		fprintf(f, "\"owner_process\":{\"tid\":%d,\"pid\":%d,\"comm\":", (int)x->mutex_owner,
			(int)x->owner_tgid);
		json_str(f, x->owner_comm);
		fputs("},", f);
	} else {
		fputs("\"owner_process\":null,", f);
	}
	fprintf(f, "\"join_confirmed\":%s}", x->join_confirmed ? "true" : "false");
}

static void json_fdwait(FILE *f, const struct lt_fdwait *w)
{
	fprintf(f, "{\"nfds\":%d,\"epfd\":", w->nfds);
	if (w->epfd >= 0)
		fprintf(f, "%d", w->epfd);
	else
		fputs("null", f);
	fputs(",\"timeout_ms\":", f);
	if (w->has_timeout && w->timeout_ms >= 0)
		fprintf(f, "%" PRId64, w->timeout_ms);
	else
		fputs("null", f);
	fprintf(f, ",\"infinite\":%s,\"fds_ok\":%s,\"fds\":[", w->has_timeout ? "false" : "true",
		w->fds_ok ? "true" : "false");
	for (size_t i = 0; i < w->n_fds; i++) {
		if (i)
			fputc(',', f);
		json_fd(f, &w->fds[i]);
	}
	fputs("]}", f);
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
				size_t nc = cap ? cap * 2 : 16;
				const char **nn = realloc(m->name, nc * sizeof(*nn));
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

static void json_frame(FILE *f, const struct lt_frame *fr, const struct modtab *m)
{
	fputs("{\"pc\":", f);
	json_hex(f, fr->pc);
	fputs(",\"func\":", f);
	json_str(f, fr->func);
	fprintf(f, ",\"offset\":%" PRIu64 ",\"module\":", fr->func_off);
	json_str(f, fr->module);
	/* the build-id is in "modules" unless two modules share this name */
	const char *known = fr->module ? modtab_get(m, fr->module) : NULL;
	if (fr->build_id && (!known || strcmp(known, fr->build_id) != 0)) {
		fputs(",\"build_id\":", f);
		json_str(f, fr->build_id);
	}
	char dm[256];
	if (fr->func && lt_demangle_ocaml(fr->func, dm, sizeof(dm))) {
		fputs(",\"demangled\":", f);
		json_str(f, dm);
	}
	fputs(",\"file\":", f);
	json_str(f, fr->file);
	if (fr->file)
		fprintf(f, ",\"line\":%d", fr->line);
	else
		fputs(",\"line\":null", f);
	fprintf(f, ",\"activation\":%s}", fr->activation ? "true" : "false");
}

/* The thread as its runtime knows it (rtthread.h), or null. */
static void json_runtime(FILE *f, const struct lt_thread *t)
{
	if (!t->rt_lang) {
		fputs("null", f);
		return;
	}
	fputs("{\"lang\":", f);
	json_str(f, t->rt_lang);
	fputs(",\"name\":", f);
	json_str(f, t->rt_name);
	fputs(",\"frames\":[", f);
	for (size_t i = 0; i < t->n_rt_frames; i++) {
		const struct lt_rtframe *r = &t->rt_frames[i];
		fputs(i ? ",{\"func\":" : "{\"func\":", f);
		json_str(f, r->func);
		fputs(",\"file\":", f);
		json_str(f, r->file);
		if (r->line > 0)
			fprintf(f, ",\"line\":%d", r->line);
		else
			fputs(",\"line\":null", f);
		if (r->native >= 0)
			fprintf(f, ",\"native_frame\":%d", r->native);
		else
			fputs(",\"native_frame\":null", f);
		if (r->pc)
			fprintf(f, ",\"pc\":\"0x%" PRIx64 "\"", r->pc);
		else
			fputs(",\"pc\":null", f);
		fputs(",\"kind\":", f);
		json_str(f, r->kind);
		if (r->bci >= 0)
			fprintf(f, ",\"bci\":%d}", r->bci);
		else
			fputs(",\"bci\":null}", f);
	}
	fputs("],\"end\":", f);
	json_str(f, t->rt_end);
	fputc('}', f);
}

static void json_thread(FILE *f, const struct lt_thread *t, const struct modtab *m)
{
	fprintf(f, "{\"tid\":%d,\"comm\":", (int)t->tid);
	json_str(f, t->comm);
	fprintf(f, ",\"state\":\"%c\",\"cpu\":%d,", t->state ? t->state : '?', t->cpu);
	if (t->idle_src == LT_IDLE_UNKNOWN)
		fputs("\"blocked_s\":null,", f);
	else
		fprintf(f, "\"blocked_s\":%.6f,", t->idle_s);
	fprintf(f, "\"blocked_source\":\"%s\",", lt_idle_source_name(t->idle_src));
	fprintf(f, "\"syscall\":{\"state\":\"%s\"", lt_sc_state_name(t->sc.state));
	if (t->sc.state == LT_SC_IN_SYSCALL) {
		fprintf(f, ",\"nr\":%ld,\"name\":", t->sc.nr);
		json_str(f, t->sc_name);
		fputs(",\"args\":[", f);
		for (int i = 0; i < 6; i++) {
			if (i)
				fputc(',', f);
			json_hex(f, t->sc.args[i]);
		}
		fputc(']', f);
	} else {
		fputs(",\"nr\":null,\"name\":null,\"args\":null", f);
	}
	if (t->sc.state == LT_SC_IN_SYSCALL || t->sc.state == LT_SC_NOT_IN_SYSCALL) {
		fputs(",\"sp\":", f);
		json_hex(f, t->sc.sp);
		fputs(",\"pc\":", f);
		json_hex(f, t->sc.pc);
	} else {
		fputs(",\"sp\":null,\"pc\":null", f);
	}
	fprintf(f, "},\"wait\":\"%s\",\"detail\":", lt_wait_kind_name(t->wait));
	json_str(f, t->detail);
	fputs(",\"futex\":", f);
	if (t->wait == LT_WAIT_FUTEX || (t->sc_name && (t->sc.nr == 202 || t->sc.nr == 455)))
		json_futex(f, &t->futex);
	else
		fputs("null", f);
	fputs(",\"poll\":", f);
	if (t->wait == LT_WAIT_POLL)
		json_fdwait(f, &t->fdw);
	else
		fputs("null", f);
	fputs(",\"io_fd\":", f);
	if (t->wait == LT_WAIT_IO)
		json_fd(f, &t->fdw.io);
	else
		fputs("null", f);
	fputs(",\"kernel_stack\":", f);
	if (t->kstack_status == LT_KSTACK_OK)
		json_strlist(f, &t->kstack);
	else
		fputs("null", f);
	fprintf(f, ",\"kernel_stack_status\":\"%s\"",
		t->kstack_status == LT_KSTACK_OK ? "ok" :
		t->kstack_status == LT_KSTACK_UNAVAILABLE ? "unavailable" : "not_read");
	fprintf(f, ",\"user_stack\":{\"regs_source\":\"%s\",\"frames\":[", lt_regs_source_name(t->regs_src));
	for (size_t i = 0; i < t->n_frames; i++) {
		if (i)
			fputc(',', f);
		json_frame(f, &t->frames[i], m);
	}
	fputs("],\"end\":", f);
	json_str(f, t->ustack_end);
	fputs("},\"runtime\":", f);
	json_runtime(f, t);
	fputs(",\"acquire\":", f);
	json_str(f, t->acquire);
	fputs(",\"notes\":", f);
	json_strlist(f, &t->notes);
	fprintf(f, ",\"moved\":%s}", t->moved ? "true" : "false");
}

/* M, for a verdict of a multi-process view: "pids" parallel to "tids". */
static void json_verdict(FILE *f, const struct lt_verdict *v, const struct lt_multi_snapshot *m)
{
	fprintf(f, "{\"kind\":\"%s\",\"summary\":", lt_verdict_kind_name(v->kind));
	json_str(f, v->summary);
	fputs(",\"tids\":[", f);
	for (size_t i = 0; i < v->n_tids; i++)
		fprintf(f, "%s%d", i ? "," : "", (int)v->tids[i]);
	if (m) {
		fputs("],\"pids\":[", f);
		for (size_t i = 0; i < v->n_tids; i++)
			fprintf(f, "%s%d", i ? "," : "", (int)lt_multi_pid_of(m, v->tids[i]));
	}
	fputs("],\"locks\":[", f);
	for (size_t i = 0; i < v->n_locks; i++) {
		if (i)
			fputc(',', f);
		json_hex(f, v->locks[i]);
	}
	fputs("],\"owner\":", f);
	if (v->owner)
		fprintf(f, "%d", (int)v->owner);
	else
		fputs("null", f);
	fputs(",\"owner_source\":", f);
	json_str(f, v->owner_source);
	fprintf(f, ",\"explains\":%zu,\"longest_s\":", v->explains);
	if (v->longest_s >= 0)
		fprintf(f, "%.3f", v->longest_s);
	else
		fputs("null", f);
	fputs(",\"evidence\":", f);
	json_strlist(f, &v->evidence);
	fputc('}', f);
}

static void json_rtlock(FILE *f, const struct lt_rtlock *l)
{
	fputs("{\"model\":", f);
	json_str(f, l->model);
	fputs(",\"kind\":", f);
	json_str(f, l->kind);
	fputs(",\"name\":", f);
	json_str(f, l->name);
	fputs(",\"version\":", f);
	json_str(f, l->version);
	fputs(",\"base\":", f);
	json_hex(f, l->base);
	fprintf(f, ",\"size\":%" PRIu64 ",\"held\":%s,\"waiters\":", l->size,
		l->held == 1 ? "true" : l->held == 0 ? "false" : "null");
	if (l->waiters >= 0)
		fprintf(f, "%d", l->waiters);
	else
		fputs("null", f);
	fputs(",\"holder\":", f);
	if (l->holder > 0)
		fprintf(f, "%d", (int)l->holder);
	else
		fputs("null", f);
	fputs(",\"holder_how\":", f);
	json_str(f, l->holder_how);
	fputs(",\"facts\":", f);
	json_strlist(f, &l->facts);
	fputc('}', f);
}

void lt_snapshot_print_json(FILE *f, const struct lt_snapshot *s)
{
	fprintf(f, "{\"schema\":\"locktrace.snapshot/1\",\"pid\":%d,\"comm\":", (int)s->pid);
	json_str(f, s->comm);
	if (s->occasion) {
		fputs(",\"occasion\":", f);
		json_str(f, s->occasion);
	}
	fputs(",\"exe\":", f);
	json_str(f, s->exe);
	fprintf(f, ",\"taken_realtime_ns\":%" PRId64 ",\"taken_monotonic_ns\":%" PRId64
		   ",\"duration_ns\":%" PRId64 ",\"kernel_stacks\":%s,\"n_threads\":%zu",
		s->taken_realtime_ns, s->taken_monotonic_ns, s->duration_ns,
		s->kstack_available ? "true" : "false", s->n_threads);
	fprintf(f, ",\"options\":{\"lost_wakeup_threshold_s\":%.3f,\"convoy_min_waiters\":%d}",
		s->vopts.lost_wakeup_threshold_s, s->vopts.convoy_min_waiters);
	fputs(",\"sched_clock_offset_ns\":[", f);
	for (size_t i = 0; i < s->n_cpus; i++) {
		if (i)
			fputc(',', f);
		if (s->sched_offset_ns[i] == INT64_MIN)
			fputs("null", f);
		else
			fprintf(f, "%" PRId64, s->sched_offset_ns[i]);
	}
	fputs("],\"notes\":", f);
	json_strlist(f, &s->notes);
	fputs(",\"verdicts\":[", f);
	for (size_t i = 0; i < s->n_verdicts; i++) {
		if (i)
			fputc(',', f);
		json_verdict(f, &s->verdicts[i], NULL);
	}
	fputs("],\"runtime_locks\":[", f);
	for (size_t i = 0; i < s->n_rtlocks; i++) {
		if (i)
			fputc(',', f);
		json_rtlock(f, &s->rtlocks[i]);
	}
	struct modtab m;
	modtab_build(&m, s);
	fputs("],\"modules\":[", f);
	for (size_t i = 0; i < m.n; i++) {
		fputs(i ? ",{\"name\":" : "{\"name\":", f);
		json_str(f, m.name[i]);
		fputs(",\"build_id\":", f);
		json_str(f, m.build_id[i]);
		fputc('}', f);
	}
	fputs("],\"threads\":[", f);
	for (size_t i = 0; i < s->n_threads; i++) {
		fputs(i ? ",\n" : "\n", f);
		json_thread(f, &s->threads[i], &m);
	}
	fputs("\n]}\n", f);
	free(m.name);
	free(m.build_id);
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
	lt_snapshot_print_json(f, s);
	if (fclose(f) != 0 || !b) {
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
	};
	const char *t = (v->kind >= LT_VERDICT_DEADLOCK && v->kind <= LT_VERDICT_LOCK_WAIT) ? tag[v->kind] : "?";
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
	fprintf(f, " at 0x%" PRIx64, l->base);
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
	if (t->acquire && !t->futex.rtlock) {
		fputs("  waits in a lock acquire: ", f);
		text_str(f, t->acquire);
		fputc('\n', f);
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

static void text_body(FILE *f, const struct lt_snapshot *s)
{
	for (size_t i = 0; i < s->n_rtlocks; i++)
		text_rtlock(f, s, &s->rtlocks[i]);
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

void lt_multi_print_json(FILE *f, const struct lt_multi_snapshot *m)
{
	fputs("{\"schema\":\"locktrace.snapshot-multi/1\",\"pids\":[", f);
	for (size_t i = 0; i < m->n_procs; i++)
		fprintf(f, "%s%d", i ? "," : "", (int)m->procs[i]->pid);
	fputs("],\"notes\":", f);
	json_strlist(f, &m->view.notes);
	fputs(",\"verdicts\":[", f);
	for (size_t i = 0; i < m->view.n_verdicts; i++) {
		if (i)
			fputc(',', f);
		json_verdict(f, &m->view.verdicts[i], m);
	}
	fputs("],\"processes\":[\n", f);
	for (size_t i = 0; i < m->n_procs; i++) {
		if (i)
			fputs(",\n", f);
		lt_snapshot_print_json(f, m->procs[i]);
	}
	fputs("]}\n", f);
}
