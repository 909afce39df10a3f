// SPDX-License-Identifier: MIT
/* STACKS sections: call stacks of waits (stacks.h, docs/trace-format.md). */
#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "stacks.h"
#include "demangle.h"
#include "grow.h"
#include "varint.h"
#include "locktrace/tracefile.h"

/* ---- encoding ---------------------------------------------------------- */

static int room(struct lt_stackbuf *b, size_t n)
{
	if (b->oom)
		return 0;
	if (b->len + n <= b->cap)
		return 1;
	uint8_t *p = lt_grow_to(b->p, &b->cap, b->len + n, 1, 4096);
	if (!p) {
		b->oom = 1;
		return 0;
	}
	b->p = p;
	return 1;
}

static void put_varint(struct lt_stackbuf *b, uint64_t v)
{
	if (room(b, 10))
		b->len = (size_t)(lt_put_varint(b->p + b->len, v) - b->p);
}

static void put_bytes(struct lt_stackbuf *b, const void *d, size_t n)
{
	if (room(b, n)) {
		memcpy(b->p + b->len, d, n);
		b->len += n;
	}
}

/* A field whose value is a nested TLV: written into a scratch buffer, then
 * copied with its length. */
static void put_nested(struct lt_stackbuf *b, uint64_t key, struct lt_stackbuf *in)
{
	if (in->oom)
		b->oom = 1;
	put_varint(b, key);
	put_varint(b, in->len);
	put_bytes(b, in->p, in->len);
	in->len = 0;
}

static void put_uint(struct lt_stackbuf *b, uint64_t key, uint64_t v)
{
	uint8_t tmp[10];
	size_t n = (size_t)(lt_put_varint(tmp, v) - tmp);
	put_varint(b, key);
	put_varint(b, n);
	put_bytes(b, tmp, n);
}

static void put_str(struct lt_stackbuf *b, uint64_t key, const char *s)
{
	if (!s)
		return;
	size_t n = strlen(s);
	put_varint(b, key);
	put_varint(b, n);
	put_bytes(b, s, n);
}

void lt_stacks_put_stack(struct lt_stackbuf *b, const struct lt_stack *s)
{
	struct lt_stackbuf st = { 0 }, fr = { 0 };
	put_uint(&st, 1, s->id);
	put_uint(&st, 2, lt_zz(s->tgid));
	for (uint32_t i = 0; i < s->nframes; i++) {
		const struct lt_sframe *f = &s->frames[i];
		put_uint(&fr, 1, f->pc);
		put_str(&fr, 2, f->func);
		if (f->func_off)
			put_uint(&fr, 3, f->func_off);
		put_str(&fr, 4, f->module);
		put_str(&fr, 5, f->file);
		if (f->line)
			put_uint(&fr, 6, f->line);
		if (f->lang)
			put_uint(&fr, 7, f->lang);
		if (f->inlined)
			put_uint(&fr, 8, 1);
		put_nested(&st, 3, &fr);
	}
	put_str(&st, 4, s->end);
	put_nested(b, 1, &st);
	lt_stackbuf_free(&st);
	lt_stackbuf_free(&fr);
}

void lt_stacks_put_ref(struct lt_stackbuf *b, const struct lt_stack_ref *r)
{
	struct lt_stackbuf rf = { 0 };
	put_uint(&rf, 1, lt_zz(r->tid));
	put_uint(&rf, 2, r->ts);
	put_uint(&rf, 3, r->stack_id);
	put_uint(&rf, 4, r->role);
	if (r->delay_ns)
		put_uint(&rf, 5, r->delay_ns);
	if (r->rtlock_name) {
		put_uint(&rf, 6, r->rtlock);
		put_str(&rf, 7, r->rtlock_name);
	}
	put_nested(b, 2, &rf);
	lt_stackbuf_free(&rf);
}

void lt_stacks_put_recording(struct lt_stackbuf *b, int sample_every)
{
	struct lt_stackbuf rc = { 0 };
	put_uint(&rc, 1, (uint64_t)(sample_every > 0 ? sample_every : 0));
	put_nested(b, 3, &rc);
	lt_stackbuf_free(&rc);
}

void lt_stackbuf_free(struct lt_stackbuf *b)
{
	free(b->p);
	memset(b, 0, sizeof(*b));
}

/* ---- decoding ---------------------------------------------------------- */

struct ref_node {
	struct ref_node *next;
	struct lt_stack_ref r;
};

static uint64_t ref_key(int32_t tid, uint64_t ts, uint32_t role)
{
	uint64_t k = (ts * 0x9E3779B97F4A7C15ull) ^ ((uint64_t)(uint32_t)tid << 1) ^ role;
	return k ? k : 1;
}

void lt_stack_free(struct lt_stack *s)
{
	if (!s)
		return;
	for (uint32_t i = 0; i < s->nframes; i++) {
		free(s->frames[i].func);
		free(s->frames[i].module);
		free(s->frames[i].file);
	}
	free(s->frames);
	free(s->end);
	free(s);
}

static uint64_t val_uint(const uint8_t *v, size_t n, int *err)
{
	struct lt_cur c = { v, v + n, 0 };
	uint64_t x = lt_get_varint(&c);
	if (c.err || c.p != c.end)
		*err = 1;
	return x;
}

static char *val_str(const uint8_t *v, size_t n, int *err)
{
	if (n > 4096) {
		*err = 1;
		return NULL;
	}
	char *s = malloc(n + 1);
	if (!s) {
		*err = 1;
		return NULL;
	}
	memcpy(s, v, n);
	s[n] = 0;
	if (strlen(s) != n) { /* an embedded NUL: damage */
		free(s);
		*err = 1;
		return NULL;
	}
	return s;
}

static int parse_frame(const uint8_t *d, size_t len, struct lt_sframe *f)
{
	struct lt_cur c = lt_cur_over(d, len);
	int err = 0;
	while (c.p < c.end && !c.err && !err) {
		uint64_t k = lt_get_varint(&c), n = lt_get_varint(&c);
		const uint8_t *v = c.err ? NULL : lt_get_bytes(&c, n);
		if (!v)
			break;
		switch (k) {
		case 1: f->pc = val_uint(v, n, &err); break;
		case 2: free(f->func); f->func = val_str(v, n, &err); break;
		case 3: f->func_off = val_uint(v, n, &err); break;
		case 4: free(f->module); f->module = val_str(v, n, &err); break;
		case 5: free(f->file); f->file = val_str(v, n, &err); break;
		case 6: f->line = (uint32_t)val_uint(v, n, &err); break;
		case 7: f->lang = (uint32_t)val_uint(v, n, &err); break;
		case 8: f->inlined = val_uint(v, n, &err) != 0; break;
		default: break; /* unknown keys are skipped */
		}
	}
	return c.err || err ? -1 : 0;
}

#define MAX_FRAMES 1024

static struct lt_stack *parse_stack(const uint8_t *d, size_t len)
{
	struct lt_stack *s = calloc(1, sizeof(*s));
	struct lt_cur c = lt_cur_over(d, len);
	int err = !s;
	size_t cap = 0;
	while (!err && c.p < c.end && !c.err) {
		uint64_t k = lt_get_varint(&c), n = lt_get_varint(&c);
		const uint8_t *v = c.err ? NULL : lt_get_bytes(&c, n);
		if (!v)
			break;
		if (k == 1) {
			uint64_t id = val_uint(v, n, &err);
			if (!id || id > UINT32_MAX)
				err = 1;
			s->id = (uint32_t)id;
		} else if (k == 2) {
			s->tgid = (int32_t)lt_unzz(val_uint(v, n, &err));
		} else if (k == 3) {
			if (s->nframes >= MAX_FRAMES) {
				err = 1;
				break;
			}
			struct lt_sframe *nf = lt_grow(s->frames, &cap, s->nframes, sizeof(*nf), 16);
			if (!nf) {
				err = 1;
				break;
			}
			s->frames = nf;
			struct lt_sframe *f = &s->frames[s->nframes++];
			memset(f, 0, sizeof(*f));
			if (parse_frame(v, n, f))
				err = 1;
		} else if (k == 4) {
			free(s->end);
			s->end = val_str(v, n, &err);
		}
	}
	if (err || c.err || (s && !s->id)) {
		lt_stack_free(s);
		return NULL;
	}
	return s;
}

static int parse_ref(struct lt_stacktab *t, const uint8_t *d, size_t len, struct lt_stack_ref *r)
{
	struct lt_cur c = lt_cur_over(d, len);
	int err = 0;
	memset(r, 0, sizeof(*r));
	while (!err && c.p < c.end && !c.err) {
		uint64_t k = lt_get_varint(&c), n = lt_get_varint(&c);
		const uint8_t *v = c.err ? NULL : lt_get_bytes(&c, n);
		if (!v)
			break;
		switch (k) {
		case 1: r->tid = (int32_t)lt_unzz(val_uint(v, n, &err)); break;
		case 2: r->ts = val_uint(v, n, &err); break;
		case 3: r->stack_id = (uint32_t)val_uint(v, n, &err); break;
		case 4: r->role = (uint32_t)val_uint(v, n, &err); break;
		case 5: r->delay_ns = val_uint(v, n, &err); break;
		case 6: r->rtlock = val_uint(v, n, &err); break;
		case 7:
			if (n && !memchr(v, 0, n)) {
				size_t ix = lt_strtab_intern(&t->names, (const char *)v, n, NULL);
				if (ix == (size_t)-1)
					err = 1;
				else
					r->rtlock_name = t->names.s[ix];
			}
			break;
		default: break;
		}
	}
	return err || c.err || !r->stack_id || !r->role ? -1 : 0;
}

static int add_ref(struct lt_stacktab *t, const struct lt_stack_ref *r)
{
	uint64_t k = ref_key(r->tid, r->ts, r->role);
	struct ref_node *head = lt_u64map_get(&t->refs, k);
	for (struct ref_node *n = head; n; n = n->next)
		if (n->r.tid == r->tid && n->r.ts == r->ts && n->r.role == r->role) {
			n->r = *r; /* a later reference wins */
			return 0;
		}
	struct ref_node *n = malloc(sizeof(*n));
	if (!n)
		return -1;
	n->r = *r;
	n->next = head;
	if (lt_u64map_put(&t->refs, k, n)) {
		free(n);
		return -1;
	}
	t->nrefs++;
	return 0;
}

static int add_stack(struct lt_stacktab *t, struct lt_stack *s)
{
	struct lt_stack *old = lt_u64map_get(&t->ids, s->id);
	if (old) { /* the same id again (a flight dump repeats what it holds) */
		lt_stack_free(s);
		return 0;
	}
	struct lt_stack **v = lt_grow(t->stacks, &t->cap_stacks, t->nstacks, sizeof(*v), 64);
	if (!v)
		goto oom;
	t->stacks = v;
	if (lt_u64map_put(&t->ids, s->id, s))
		goto oom;
	t->stacks[t->nstacks++] = s;
	return 0;
oom:
	lt_stack_free(s);
	return -1;
}

int lt_stacktab_add(struct lt_stacktab *t, const uint8_t *data, size_t len)
{
	struct lt_cur c = lt_cur_over(data, len);
	while (c.p < c.end && !c.err) {
		uint64_t k = lt_get_varint(&c), n = lt_get_varint(&c);
		const uint8_t *v = c.err ? NULL : lt_get_bytes(&c, n);
		if (!v)
			break;
		if (k == 1) {
			struct lt_stack *s = parse_stack(v, n);
			if (!s || add_stack(t, s))
				goto bad;
		} else if (k == 2) {
			struct lt_stack_ref r;
			if (parse_ref(t, v, n, &r) || add_ref(t, &r))
				goto bad;
		} else if (k == 3) {
			/* the recording was made with --stacks */
			struct lt_cur rc = lt_cur_over(v, n);
			int err = 0;
			t->recorded = 1;
			while (!err && rc.p < rc.end && !rc.err) {
				uint64_t rk = lt_get_varint(&rc), rn = lt_get_varint(&rc);
				const uint8_t *rv = rc.err ? NULL : lt_get_bytes(&rc, rn);
				if (!rv)
					break;
				if (rk == 1)
					t->sample_every = (uint32_t)val_uint(rv, rn, &err);
			}
			if (err || rc.err)
				goto bad;
		}
	}
	if (!c.err)
		return 0;
bad:
	t->damaged = 1;
	return -1;
}

const struct lt_stack *lt_stacktab_get(const struct lt_stacktab *t, uint32_t id)
{
	return id ? lt_u64map_get(&t->ids, id) : NULL;
}

const struct lt_stack_ref *lt_stacktab_find_ref(const struct lt_stacktab *t, int32_t tid, uint64_t ts,
						uint32_t role)
{
	if (!t || !t->nrefs)
		return NULL;
	for (struct ref_node *n = lt_u64map_get(&t->refs, ref_key(tid, ts, role)); n; n = n->next)
		if (n->r.tid == tid && n->r.ts == ts && n->r.role == role)
			return &n->r;
	return NULL;
}

const struct lt_stack *lt_stacktab_find(const struct lt_stacktab *t, int32_t tid, uint64_t ts,
					uint32_t role)
{
	const struct lt_stack_ref *r = lt_stacktab_find_ref(t, tid, ts, role);
	return r ? lt_stacktab_get(t, r->stack_id) : NULL;
}

void lt_stacktab_each_ref(const struct lt_stacktab *t,
			  void (*fn)(void *ctx, const struct lt_stack_ref *r), void *ctx)
{
	for (size_t i = 0; i < t->refs.cap; i++)
		if (t->refs.keys[i])
			for (const struct ref_node *n = t->refs.vals[i]; n; n = n->next)
				fn(ctx, &n->r);
}

void lt_stacktab_free(struct lt_stacktab *t)
{
	for (size_t i = 0; i < t->nstacks; i++)
		lt_stack_free(t->stacks[i]);
	free(t->stacks);
	for (size_t i = 0; i < t->refs.cap; i++) {
		if (!t->refs.keys[i])
			continue;
		struct ref_node *n = t->refs.vals[i];
		while (n) {
			struct ref_node *nx = n->next;
			free(n);
			n = nx;
		}
	}
	lt_u64map_free(&t->refs);
	lt_u64map_free(&t->ids);
	lt_strtab_free(&t->names);
	memset(t, 0, sizeof(*t));
}

int lt_trace_stacks(const char *path, struct lt_stacktab *t)
{
	struct lt_reader r;
	struct lt_item it;
	char err[256];
	if (lt_reader_open(&r, path, err, sizeof(err)))
		return -1;
	if (r.hdr.version_minor >= 5 || r.hdr.version_major > 1)
		while (lt_reader_next(&r, &it) > 0)
			if (it.type == LT_ITEM_SECTION && it.sec_type == LT_CHUNK_STACKS)
				lt_stacktab_add(t, it.data, it.len);
	lt_reader_close(&r);
	return 0;
}

const char *lt_sframe_func(const struct lt_sframe *f, char *buf, size_t len)
{
	if (f->lang == LT_SFRAME_NATIVE && f->func)
		return lt_func_display(f->func, buf, len);
	return f->func;
}

const char *lt_sframe_text(const struct lt_sframe *f, char *buf, size_t len)
{
	char where[160] = "", dm[256];
	const char *func = lt_sframe_func(f, dm, sizeof(dm));
	if (f->file && f->line) {
		const char *base = strrchr(f->file, '/');
		snprintf(where, sizeof(where), " (%s:%u)", base ? base + 1 : f->file, f->line);
	}
	if (f->lang == LT_SFRAME_PYTHON || f->lang == LT_SFRAME_JAVA)
		snprintf(buf, len, "%s%s [%s]", f->func ? f->func : "?", where,
			 f->lang == LT_SFRAME_JAVA ? "java" : "python");
	else if (func && f->inlined) /* no symbol of its own: no offset */
		snprintf(buf, len, "%s (inlined)%s [%s]", func, where, f->module ? f->module : "?");
	else if (func)
		snprintf(buf, len, "%s+0x%" PRIx64 "%s [%s]", func, f->func_off, where,
			 f->module ? f->module : "?");
	else
		snprintf(buf, len, "0x%" PRIx64 "%s [%s]", f->pc, where, f->module ? f->module : "?");
	return buf;
}
