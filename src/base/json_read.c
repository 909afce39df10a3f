// SPDX-License-Identifier: MIT
/*
 * A small JSON reader (report_int.h, rp_json_*) for the trace's SNAPSHOT
 * sections (docs/snapshot.md); what the report takes from them is in
 * report_snapfacts.c.
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
#include "json_read.h"
#include "utf8.h"
#include "grow.h"

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

/* The four hex digits at p (before end) as a number, -1 if they are not. */
static long hex4(const char *p, const char *end)
{
	long v = 0;
	for (int i = 0; i < 4; i++) {
		int h = p + i < end ? lt_hex_value(p[i]) : -1;
		if (h < 0)
			return -1;
		v = v << 4 | h;
	}
	return v;
}

/* The code point of the \u escape at ps->p (past the 'u'; the string ends
 * at q), a surrogate pair joined; -1 if it is not one. */
static long u_escape(struct parser *ps, const char *q)
{
	long cp = hex4(ps->p, q);
	if (cp < 0)
		return -1;
	ps->p += 4;
	/* a surrogate pair is 12 input bytes for 4 output bytes */
	if (cp >= 0xd800 && cp < 0xdc00 && q - ps->p >= 6 && ps->p[0] == '\\' && ps->p[1] == 'u') {
		long lo = hex4(ps->p + 2, q);
		if (lo >= 0xdc00 && lo < 0xe000) {
			cp = 0x10000 + ((cp - 0xd800) << 10) + (lo - 0xdc00);
			ps->p += 6;
		}
	}
	return cp;
}

/* Decodes the string body from ps->p to q into out; NULL with the error
 * noted (and out freed) if it is not valid. */
static char *decode_string(struct parser *ps, const char *q, char *out)
{
	static const char from[] = "\"\\/bfnrt", to[] = "\"\\/\b\f\n\r\t";
	char *o = out;
	const char *why = NULL;

	while (ps->p < q && !why) {
		char c = *ps->p++;
		const char *e;
		long cp;
		if ((unsigned char)c < 0x20)
			why = "control character in a string";
		else if (c != '\\')
			*o++ = c;
		else if ((c = *ps->p++) == 'u' && (cp = u_escape(ps, q)) >= 0)
			o += put_cp(o, (unsigned)cp);
		else if (c == 'u')
			why = "bad \\u escape";
		else if (c && (e = strchr(from, c)))
			*o++ = to[e - from];
		else
			why = "bad escape";
	}
	if (why) {
		fail(ps, why);
		free(out);
		return NULL;
	}
	*o = 0;
	return out;
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
	char *out = malloc((size_t)(q - ps->p) + 1);
	if (!out) {
		fail(ps, "out of memory");
		return NULL;
	}
	if (!decode_string(ps, q, out))
		return NULL;
	ps->p = q + 1;
	return out;
}

static int parse_value(struct parser *ps, struct rp_json *v, int depth);

static int push_item(struct parser *ps, struct rp_json *v, size_t *cap, char *key)
{
	if (v->n == *cap) {
		/* items and keys share the capacity (items are the larger) */
		size_t nc = lt_grow_cap(*cap, v->n + 1, sizeof(*v->items), 8);
		struct rp_json *it = nc ? realloc(v->items, nc * sizeof(*it)) : NULL;
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

static int parse_literal(struct parser *ps, struct rp_json *v)
{
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

static int parse_number(struct parser *ps, struct rp_json *v)
{
	/* strtod needs a terminated string: copy the number's bytes */
	char num[64];
	size_t l = 0;
	while (ps->p + l < ps->end && l < sizeof(num) - 1 && strchr("+-0123456789.eE", ps->p[l]) && ps->p[l])
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
	case 'n':
		return parse_literal(ps, v);
	default:
		return parse_number(ps, v);
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

uint64_t rp_json_addr0(const struct rp_json *j)
{
	uint64_t a = 0;
	return rp_json_addr(j, &a) ? a : 0;
}

char *rp_json_strdup(const struct rp_json *j)
{
	const char *s = rp_json_str(j);
	return s ? strdup(s) : NULL;
}
