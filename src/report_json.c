// SPDX-License-Identifier: MIT
/*
 * A small JSON reader for the trace's SNAPSHOT sections (docs/snapshot.md),
 * and the extraction of the few facts the report uses from them.
 *
 * The snapshot is our own output, but a trace may come from another version
 * of locktrace or be damaged inside a CRC-valid chunk only by a bug, so the
 * reader is strict about syntax (an error is reported, never guessed
 * around) and tolerant about content: unknown fields are ignored, absent or
 * mistyped ones read as unknown.  Nesting is limited so a hostile file
 * cannot exhaust the stack.
 */
#include <errno.h>
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>
#include "locktrace/rtthread.h"
#include "report_int.h"
#include "u64map.h"

#define MAX_DEPTH 64

struct parser {
	const char *p, *end, *start;
	char *err;
	size_t errlen;
	int failed;
};

static void fail(struct parser *ps, const char *what)
{
	if (ps->failed)
		return;
	ps->failed = 1;
	snprintf(ps->err, ps->errlen, "%s at byte %zu", what, (size_t)(ps->p - ps->start));
}

static void skip_ws(struct parser *ps)
{
	while (ps->p < ps->end && (*ps->p == ' ' || *ps->p == '\t' || *ps->p == '\n' || *ps->p == '\r'))
		ps->p++;
}

static int hexval(char c)
{
	if (c >= '0' && c <= '9')
		return c - '0';
	if (c >= 'a' && c <= 'f')
		return c - 'a' + 10;
	if (c >= 'A' && c <= 'F')
		return c - 'A' + 10;
	return -1;
}

/* Appends code point cp: below 0x100 as one byte (the snapshot writes bytes
 * that are not UTF-8 as \u00XX, so this gives the original bytes back),
 * otherwise as UTF-8. */
static size_t put_cp(char *o, unsigned cp)
{
	if (cp < 0x100) {
		o[0] = (char)cp;
		return 1;
	}
	if (cp < 0x800) {
		o[0] = (char)(0xc0 | cp >> 6);
		o[1] = (char)(0x80 | (cp & 0x3f));
		return 2;
	}
	if (cp < 0x10000) {
		o[0] = (char)(0xe0 | cp >> 12);
		o[1] = (char)(0x80 | ((cp >> 6) & 0x3f));
		o[2] = (char)(0x80 | (cp & 0x3f));
		return 3;
	}
	o[0] = (char)(0xf0 | cp >> 18);
	o[1] = (char)(0x80 | ((cp >> 12) & 0x3f));
	o[2] = (char)(0x80 | ((cp >> 6) & 0x3f));
	o[3] = (char)(0x80 | (cp & 0x3f));
	return 4;
}

static char *parse_string(struct parser *ps)
{
	/* the decoded form is never longer than the encoded one */
	const char *q = ++ps->p; /* past the quote */
	while (q < ps->end && *q != '"') {
		if (*q == '\\')
			q++;
		q++;
	}
	if (q >= ps->end) {
		fail(ps, "unterminated string");
		return NULL;
	}
	char *out = malloc((size_t)(q - ps->p) + 1), *o = out;
	if (!out) {
		fail(ps, "out of memory");
		return NULL;
	}
	while (ps->p < q) {
		char c = *ps->p++;
		if ((unsigned char)c < 0x20) {
			fail(ps, "control character in a string");
			free(out);
			return NULL;
		}
		if (c != '\\') {
			*o++ = c;
			continue;
		}
		c = *ps->p++;
		switch (c) {
		case '"': *o++ = '"'; break;
		case '\\': *o++ = '\\'; break;
		case '/': *o++ = '/'; break;
		case 'b': *o++ = '\b'; break;
		case 'f': *o++ = '\f'; break;
		case 'n': *o++ = '\n'; break;
		case 'r': *o++ = '\r'; break;
		case 't': *o++ = '\t'; break;
		case 'u': {
			unsigned cp = 0;
			for (int i = 0; i < 4; i++) {
				int h = ps->p < q ? hexval(*ps->p) : -1;
				if (h < 0) {
					fail(ps, "bad \\u escape");
					free(out);
					return NULL;
				}
				cp = cp << 4 | (unsigned)h;
				ps->p++;
			}
			/* a surrogate pair is 12 input bytes for 4 output bytes */
			if (cp >= 0xd800 && cp < 0xdc00 && q - ps->p >= 6 && ps->p[0] == '\\' &&
			    ps->p[1] == 'u') {
				unsigned lo = 0;
				int ok = 1;
				for (int i = 0; i < 4; i++) {
					int h = hexval(ps->p[2 + i]);
					ok &= h >= 0;
					lo = lo << 4 | (unsigned)(h < 0 ? 0 : h);
				}
				if (ok && lo >= 0xdc00 && lo < 0xe000) {
					cp = 0x10000 + ((cp - 0xd800) << 10) + (lo - 0xdc00);
					ps->p += 6;
				}
			}
			o += put_cp(o, cp);
			break;
		}
		default:
			fail(ps, "bad escape");
			free(out);
			return NULL;
		}
	}
	*o = 0;
	ps->p = q + 1;
	return out;
}

static int parse_value(struct parser *ps, struct rp_json *v, int depth);

static int push_item(struct parser *ps, struct rp_json *v, size_t *cap, char *key)
{
	if (v->n == *cap) {
		size_t nc = *cap ? *cap * 2 : 8;
		struct rp_json *it = realloc(v->items, nc * sizeof(*it));
		if (!it) {
			fail(ps, "out of memory");
			return -1;
		}
		v->items = it;
		if (v->type == RPJ_OBJ) {
			char **k = realloc(v->keys, nc * sizeof(*k));
			if (!k) {
				fail(ps, "out of memory");
				return -1;
			}
			v->keys = k;
		}
		*cap = nc;
	}
	memset(&v->items[v->n], 0, sizeof(v->items[0]));
	if (v->type == RPJ_OBJ)
		v->keys[v->n] = key;
	v->n++;
	return 0;
}

static int parse_container(struct parser *ps, struct rp_json *v, int depth)
{
	char close = *ps->p == '{' ? '}' : ']';
	size_t cap = 0;

	v->type = close == '}' ? RPJ_OBJ : RPJ_ARR;
	if (depth >= MAX_DEPTH) {
		fail(ps, "nesting too deep");
		return -1;
	}
	ps->p++;
	skip_ws(ps);
	if (ps->p < ps->end && *ps->p == close) {
		ps->p++;
		return 0;
	}
	for (;;) {
		char *key = NULL;
		skip_ws(ps);
		if (v->type == RPJ_OBJ) {
			if (ps->p >= ps->end || *ps->p != '"') {
				fail(ps, "expected a member name");
				return -1;
			}
			key = parse_string(ps);
			if (!key)
				return -1;
			skip_ws(ps);
			if (ps->p >= ps->end || *ps->p != ':') {
				free(key);
				fail(ps, "expected ':'");
				return -1;
			}
			ps->p++;
		}
		if (push_item(ps, v, &cap, key)) {
			free(key);
			return -1;
		}
		if (parse_value(ps, &v->items[v->n - 1], depth + 1))
			return -1;
		skip_ws(ps);
		if (ps->p < ps->end && *ps->p == ',') {
			ps->p++;
			continue;
		}
		if (ps->p < ps->end && *ps->p == close) {
			ps->p++;
			return 0;
		}
		fail(ps, close == '}' ? "expected ',' or '}'" : "expected ',' or ']'");
		return -1;
	}
}

static int parse_value(struct parser *ps, struct rp_json *v, int depth)
{
	skip_ws(ps);
	if (ps->p >= ps->end) {
		fail(ps, "unexpected end");
		return -1;
	}
	switch (*ps->p) {
	case '{':
	case '[':
		return parse_container(ps, v, depth);
	case '"':
		v->type = RPJ_STR;
		v->str = parse_string(ps);
		return v->str ? 0 : -1;
	case 't':
	case 'f':
	case 'n': {
		static const char *const words[] = { "true", "false", "null" };
		static const enum rp_jtype types[] = { RPJ_TRUE, RPJ_FALSE, RPJ_NULL };
		for (int i = 0; i < 3; i++) {
			size_t l = strlen(words[i]);
			if ((size_t)(ps->end - ps->p) >= l && !memcmp(ps->p, words[i], l)) {
				v->type = types[i];
				ps->p += l;
				return 0;
			}
		}
		fail(ps, "unknown literal");
		return -1;
	}
	default: {
		/* strtod needs a terminated string: copy the number's bytes */
		char num[64];
		size_t l = 0;
		while (ps->p + l < ps->end && l < sizeof(num) - 1 &&
		       strchr("+-0123456789.eE", ps->p[l]) && ps->p[l])
			l++;
		if (!l) {
			fail(ps, "unexpected character");
			return -1;
		}
		memcpy(num, ps->p, l);
		num[l] = 0;
		char *e;
		v->type = RPJ_NUM;
		v->num = strtod(num, &e);
		if (*e) {
			fail(ps, "bad number");
			return -1;
		}
		if (!strpbrk(num, ".eE")) {
			errno = 0;
			long long i = strtoll(num, &e, 10);
			v->is_int = !errno && !*e;
			v->inum = i;
		}
		ps->p += l;
		return 0;
	}
	}
}

static void json_clear(struct rp_json *j)
{
	for (size_t i = 0; i < j->n; i++) {
		json_clear(&j->items[i]);
		if (j->keys)
			free(j->keys[i]);
	}
	free(j->items);
	free(j->keys);
	free(j->str);
}

void rp_json_free(struct rp_json *j)
{
	if (!j)
		return;
	json_clear(j);
	free(j);
}

struct rp_json *rp_json_parse(const char *text, size_t len, char *err, size_t errlen)
{
	struct parser ps = { text, text + len, text, err, errlen, 0 };
	struct rp_json *j = calloc(1, sizeof(*j));
	if (!j) {
		snprintf(err, errlen, "out of memory");
		return NULL;
	}
	if (parse_value(&ps, j, 0) == 0) {
		skip_ws(&ps);
		/* a trailing NUL is how a C writer may have ended the text */
		while (ps.p < ps.end && *ps.p == 0)
			ps.p++;
		if (ps.p != ps.end)
			fail(&ps, "trailing bytes after the document");
	}
	if (ps.failed) {
		rp_json_free(j);
		return NULL;
	}
	return j;
}

const struct rp_json *rp_json_get(const struct rp_json *j, const char *key)
{
	if (!j || j->type != RPJ_OBJ)
		return NULL;
	for (size_t i = 0; i < j->n; i++)
		if (!strcmp(j->keys[i], key))
			return &j->items[i];
	return NULL;
}

int rp_json_is_num(const struct rp_json *j)
{
	return j && j->type == RPJ_NUM;
}

double rp_json_num(const struct rp_json *j, double dflt)
{
	return rp_json_is_num(j) ? j->num : dflt;
}

int64_t rp_json_int(const struct rp_json *j, int64_t dflt)
{
	if (!rp_json_is_num(j))
		return dflt;
	if (j->is_int)
		return j->inum;
	/* a number no int64_t holds (1e300, NaN) is as good as absent: a cast
	 * of it would be undefined */
	return j->num > -9.2e18 && j->num < 9.2e18 ? (int64_t)j->num : dflt;
}

const char *rp_json_str(const struct rp_json *j)
{
	return j && j->type == RPJ_STR ? j->str : NULL;
}

int rp_json_addr(const struct rp_json *j, uint64_t *out)
{
	if (rp_json_is_num(j) && j->num >= 0) {
		if (!(j->num < 18446744073709551616.0))
			return 0; /* no address */
		*out = (uint64_t)j->num;
		return 1;
	}
	const char *s = rp_json_str(j);
	if (!s || !*s)
		return 0;
	char *e;
	errno = 0;
	unsigned long long v = strtoull(s, &e, 0);
	if (errno || *e)
		return 0;
	*out = v;
	return 1;
}

/* ---- snapshot facts ------------------------------------------------------ */

static char *dup_str(const struct rp_json *j)
{
	const char *s = rp_json_str(j);
	return s ? strdup(s) : NULL;
}

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
	t->sc_name = dup_str(rp_json_get(sc, "name"));
	t->wait = dup_str(rp_json_get(th, "wait"));
	t->detail = dup_str(rp_json_get(th, "detail"));
	t->moved = rp_json_get(th, "moved") && rp_json_get(th, "moved")->type == RPJ_TRUE;

	const struct rp_json *fx = rp_json_get(th, "futex");
	if (fx && fx->type == RPJ_OBJ && rp_json_addr(rp_json_get(fx, "uaddr"), &t->uaddr)) {
		t->has_futex = 1;
		t->is_wait = rp_json_get(fx, "is_wait") && rp_json_get(fx, "is_wait")->type == RPJ_TRUE;
		t->is_pi = rp_json_get(fx, "is_pi") && rp_json_get(fx, "is_pi")->type == RPJ_TRUE;
		t->lock = dup_str(rp_json_get(fx, "lock"));
		t->op_name = dup_str(rp_json_get(fx, "op_name"));
		t->op = (uint32_t)rp_json_int(rp_json_get(fx, "op"), 0);
		if (rp_json_is_num(rp_json_get(fx, "expected"))) {
			t->expected_ok = 1;
			t->expected = (uint32_t)rp_json_int(rp_json_get(fx, "expected"), 0);
		}
		if (rp_json_is_num(rp_json_get(fx, "word"))) {
			t->word_ok = 1;
			t->word = (uint32_t)rp_json_int(rp_json_get(fx, "word"), 0);
		}
		t->owner_kind = dup_str(rp_json_get(fx, "owner_kind"));
		t->owner = (int32_t)rp_json_int(rp_json_get(fx, "owner"), 0);
		/* a process-shared mutex held by a thread of another process: a
		 * report of a trace of both resolves that thread */
		const struct rp_json *op = rp_json_get(fx, "owner_process");
		if (!t->owner && op && op->type == RPJ_OBJ) {
			t->owner = (int32_t)rp_json_int(rp_json_get(op, "tid"), 0);
			t->owner_pid = (int32_t)rp_json_int(rp_json_get(op, "pid"), 0);
		}
		t->lock_kind = dup_str(rp_json_get(fx, "lock_kind"));
		t->lock_name = dup_str(rp_json_get(fx, "lock_name"));
		t->lock_state = dup_str(rp_json_get(fx, "lock_state"));
		const struct rp_json *rl = rp_json_get(fx, "runtime_lock");
		if (rp_json_is_num(rl) && rt && rt->type == RPJ_ARR) {
			double k = rp_json_num(rl, -1);
			if (k >= 0 && k < (double)rt->n) {
				t->runtime = 1;
				t->rt_how = dup_str(rp_json_get(&rt->items[(size_t)k], "holder_how"));
			}
		}
	}
	t->io_fd = -1;
	const struct rp_json *io = rp_json_get(th, "io_fd");
	if (io && io->type == RPJ_OBJ) {
		t->io_fd = (int)rp_json_int(rp_json_get(io, "fd"), -1);
		const char *desc = rp_json_str(rp_json_get(io, "desc"));
		const char *kind = rp_json_str(rp_json_get(io, "kind"));
		const char *target = rp_json_str(rp_json_get(io, "target"));
		char buf[512];
		snprintf(buf, sizeof(buf), "%s%s%s", desc ? desc : kind ? kind : "?",
			 target ? " " : "", target ? target : "");
		t->io_desc = strdup(buf);
		t->io_socket = kind && !strcmp(kind, "socket");
	}
	t->where = runtime_frame(th);
	if (!t->where)
		t->where = own_frame(th, exe_base);
	own_funcs(th, exe_base, t);
	t->rt_name = dup_str(rp_json_get(rp_json_get(th, "runtime"), "name"));
}

static void thread_clear(struct rp_snap_thread *t)
{
	free(t->sc_name);
	free(t->wait);
	free(t->detail);
	free(t->lock);
	free(t->op_name);
	free(t->owner_kind);
	free(t->lock_kind);
	free(t->lock_name);
	free(t->lock_state);
	free(t->rt_how);
	free(t->io_desc);
	free(t->where);
	free(t->rt_name);
	for (size_t i = 0; i < t->n_funcs; i++)
		free(t->funcs[i]);
	free(t->funcs);
}

static int cmp_thread(const void *a, const void *b)
{
	const struct rp_snap_thread *x = a, *y = b;
	return (x->tid > y->tid) - (x->tid < y->tid);
}

static int verdict_from_json(const struct rp_json *v, struct rp_snap_verdict *o)
{
	memset(o, 0, sizeof(*o));
	o->kind = dup_str(rp_json_get(v, "kind"));
	o->summary = dup_str(rp_json_get(v, "summary"));
	o->owner = (int32_t)rp_json_int(rp_json_get(v, "owner"), 0);
	const struct rp_json *ev = rp_json_get(v, "evidence");
	if (ev && ev->type == RPJ_ARR && ev->n) {
		o->evidence = calloc(ev->n, sizeof(*o->evidence));
		if (!o->evidence)
			return -1;
		for (size_t i = 0; i < ev->n; i++)
			if ((o->evidence[o->n_evidence] = dup_str(&ev->items[i])))
				o->n_evidence++;
	}
	const struct rp_json *tids = rp_json_get(v, "tids");
	if (tids && tids->type == RPJ_ARR && tids->n) {
		o->tids = calloc(tids->n, sizeof(*o->tids));
		if (!o->tids)
			return -1;
		for (size_t i = 0; i < tids->n; i++)
			if (rp_json_is_num(&tids->items[i]))
				o->tids[o->n_tids++] = (int32_t)rp_json_int(&tids->items[i], 0);
	}
	const struct rp_json *locks = rp_json_get(v, "locks");
	if (locks && locks->type == RPJ_ARR && locks->n) {
		o->locks = calloc(locks->n, sizeof(*o->locks));
		if (!o->locks)
			return -1;
		for (size_t i = 0; i < locks->n; i++)
			if (rp_json_addr(&locks->items[i], &o->locks[o->n_locks]))
				o->n_locks++;
	}
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

/* Lock names the snapshot's lock models give (docs/locks.md), for the
 * timeline writers: futex word -> "OCaml runtime lock caml_master_lock
 * (caml_master_lock+0x58)".  Values are malloc'd; an address already in
 * MAP keeps its first name (one snapshot is enough). */
int rp_snapshot_lock_names(const char *json, size_t len, struct lt_u64map *map)
{
	char err[128];
	struct rp_json *doc = rp_json_parse(json, len, err, sizeof(err));
	if (!doc)
		return -1;
	const struct rp_json *threads = rp_json_get(doc, "threads");
	for (size_t i = 0; threads && threads->type == RPJ_ARR && i < threads->n; i++) {
		const struct rp_json *fx = rp_json_get(&threads->items[i], "futex");
		uint64_t uaddr;
		if (!fx || fx->type != RPJ_OBJ || !rp_json_addr(rp_json_get(fx, "uaddr"), &uaddr) || !uaddr ||
		    lt_u64map_get(map, uaddr))
			continue;
		const char *kind = rp_json_str(rp_json_get(fx, "lock_kind"));
		const char *name = rp_json_str(rp_json_get(fx, "lock_name"));
		const char *sym = rp_json_str(rp_json_get(fx, "lock"));
		if (!kind)
			continue;
		char buf[256];
		if (name)
			snprintf(buf, sizeof(buf), "%s %s (%s)", kind, name, sym ? sym : "?");
		else
			snprintf(buf, sizeof(buf), "%s %s", kind, sym ? sym : "?");
		char *v = strdup(buf);
		if (!v || lt_u64map_put(map, uaddr, v)) {
			free(v);
			break;
		}
	}
	rp_json_free(doc);
	return 0;
}

/* The runtime locks' holders a snapshot read (docs/locks.md), for the
 * timeline writers: at most MAX, "OCaml runtime lock caml_master_lock". */
size_t rp_snapshot_holders(const char *json, size_t len, struct rp_holder *out, size_t max)
{
	char err[128];
	struct rp_json *doc = rp_json_parse(json, len, err, sizeof(err));
	if (!doc)
		return 0;
	size_t n = 0;
	const struct rp_json *rl = rp_json_get(doc, "runtime_locks");
	for (size_t i = 0; rl && rl->type == RPJ_ARR && i < rl->n && n < max; i++) {
		const struct rp_json *l = &rl->items[i];
		double tid = rp_json_num(rp_json_get(l, "holder"), 0);
		const char *kind = rp_json_str(rp_json_get(l, "kind"));
		const char *name = rp_json_str(rp_json_get(l, "name"));
		if (tid <= 0 || tid > 4194304 || !kind)
			continue;
		out[n].tid = (uint32_t)tid;
		snprintf(out[n].what, sizeof(out[n].what), "%s%s%s", kind, name ? " " : "", name ? name : "");
		n++;
	}
	rp_json_free(doc);
	return n;
}

int rp_snapshot_thread_names(const char *json, size_t len, struct lt_u64map *map)
{
	char err[128];
	struct rp_json *doc = rp_json_parse(json, len, err, sizeof(err));
	if (!doc)
		return -1;
	const struct rp_json *threads = rp_json_get(doc, "threads");
	for (size_t i = 0; threads && threads->type == RPJ_ARR && i < threads->n; i++) {
		const struct rp_json *th = &threads->items[i];
		double tid = rp_json_num(rp_json_get(th, "tid"), 0);
		const char *name = rp_json_str(rp_json_get(rp_json_get(th, "runtime"), "name"));
		if (tid <= 0 || tid > 4194304 || !name || !name[0])
			continue;
		char *v = strdup(name), *old = lt_u64map_get(map, (uint64_t)tid);
		if (!v || lt_u64map_put(map, (uint64_t)tid, v)) {
			free(v);
			break;
		}
		free(old);
	}
	rp_json_free(doc);
	return 0;
}
