// SPDX-License-Identifier: MIT
/* The JSON writer (src/base/jsonw.h). */
#include <errno.h>
#include <inttypes.h>
#include <math.h>
#include <stdarg.h>
#include <string.h>
#include "jsonw.h"
#include "utf8.h"

void jw_init(struct jw *w, FILE *f, enum jw_style style)
{
	memset(w, 0, sizeof(*w));
	w->f = f;
	w->spaced = style == JW_SPACED;
	w->brk = -1;
}

int jw_error(const struct jw *w)
{
	return w->err;
}

/* ---- output: buffered, nothing more after the first error ---- */

static void failed(struct jw *w, int err)
{
	if (!w->err)
		w->err = err;
}

static void io_failed(struct jw *w)
{
	failed(w, -(errno ? errno : EIO));
}

/* Hands the buffer to f. */
static void drain(struct jw *w)
{
	if (w->n && !w->err && fwrite(w->buf, 1, w->n, w->f) != w->n)
		io_failed(w);
	w->n = 0;
}

/* Room for len more bytes in the buffer (len <= JW_BUF). */
static char *room(struct jw *w, size_t len)
{
	if (w->n + len > sizeof(w->buf))
		drain(w);
	return w->buf + w->n;
}

static void outn(struct jw *w, const char *s, size_t len)
{
	if (w->err)
		return;
	if (len > sizeof(w->buf) / 2) {
		drain(w);
		if (!w->err && fwrite(s, 1, len, w->f) != len)
			io_failed(w);
		return;
	}
	memcpy(room(w, len), s, len);
	w->n += len;
}

static void out(struct jw *w, const char *s)
{
	outn(w, s, strlen(s));
}

/* A number printf writes (a double, a hex address). */
static void outf(struct jw *w, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
static void outf(struct jw *w, const char *fmt, ...)
{
	char tmp[384];
	va_list ap;
	va_start(ap, fmt);
	int len = vsnprintf(tmp, sizeof(tmp), fmt, ap);
	va_end(ap);
	if (len < 0 || (size_t)len >= sizeof(tmp))
		failed(w, -EOVERFLOW);
	else
		outn(w, tmp, (size_t)len);
}

static void newline(struct jw *w, int indent)
{
	if (indent < 0 || indent >= (int)sizeof(w->buf) / 2)
		indent = 0;
	char *o = room(w, (size_t)indent + 1);
	o[0] = '\n';
	memset(o + 1, ' ', (size_t)indent);
	w->n += (size_t)indent + 1;
}

/* Decimal digits of v, with a minus sign if neg. */
static void out_dec(struct jw *w, uint64_t v, int neg)
{
	char tmp[24], *p = tmp + sizeof(tmp);
	do
		*--p = (char)('0' + v % 10);
	while (v /= 10);
	if (neg)
		*--p = '-';
	outn(w, p, (size_t)(tmp + sizeof(tmp) - p));
}

/* s (len bytes) quoted and escaped (utf8.h); a long one straight to f. */
static void out_str(struct jw *w, const char *s, size_t len)
{
	if (w->err)
		return;
	if (len > 256) {
		drain(w);
		if (!w->err && lt_json_fputn(w->f, s, len))
			io_failed(w);
		return;
	}
	size_t plain = 0; /* most strings need no escape: copied */
	while (plain < len && s[plain] >= 0x20 && s[plain] < 0x7f && s[plain] != '"' && s[plain] != '\\')
		plain++;
	char *o = room(w, plain == len ? len + 2 : 6 * len + 3);
	o[0] = '"';
	size_t e = len;
	if (plain == len)
		memcpy(o + 1, s, len);
	else
		e = lt_json_escape(o + 1, 6 * len + 1, s, len);
	o[1 + e] = '"';
	w->n += e + 2;
}

/* ---- structure ---- */

/* What goes before an item: the comma, a new line if asked for. */
static void item(struct jw *w)
{
	if (w->after_key) {
		w->after_key = 0;
		return;
	}
	if (!w->depth)
		return;
	struct jw_level *l = &w->lv[w->depth - 1];
	if (l->has_items)
		out(w, ",");
	if (l->item >= 0)
		newline(w, l->item);
	else if (w->brk >= 0)
		newline(w, w->brk);
	else if (l->has_items && w->spaced)
		out(w, " ");
	l->has_items = 1;
	w->brk = -1;
}

static void begin(struct jw *w, char open, char close)
{
	item(w);
	if (w->depth == JW_MAX_DEPTH) {
		failed(w, -EINVAL);
		return;
	}
	w->lv[w->depth++] = (struct jw_level){ .close = close, .item = -1, .end = -1 };
	outn(w, &open, 1);
}

void jw_object(struct jw *w)
{
	begin(w, '{', '}');
}

void jw_array(struct jw *w)
{
	begin(w, '[', ']');
}

void jw_end(struct jw *w)
{
	if (!w->depth || w->after_key) {
		failed(w, -EINVAL);
		return;
	}
	const struct jw_level *l = &w->lv[--w->depth];
	if (w->brk >= 0)
		newline(w, w->brk);
	else if (l->has_items && l->end >= 0)
		newline(w, l->end);
	w->brk = -1;
	outn(w, &l->close, 1);
}

void jw_lines(struct jw *w, int item_indent, int end_indent)
{
	if (w->depth) {
		w->lv[w->depth - 1].item = (short)item_indent;
		w->lv[w->depth - 1].end = (short)end_indent;
	}
}

void jw_break(struct jw *w, int indent)
{
	w->brk = indent;
}

void jw_key(struct jw *w, const char *key)
{
	item(w);
	out_str(w, key, strlen(key));
	out(w, w->spaced ? ": " : ":");
	w->after_key = 1;
}

int jw_finish(struct jw *w)
{
	out(w, "\n");
	drain(w);
	if (!w->err && fflush(w->f))
		io_failed(w);
	if (w->depth || w->after_key)
		failed(w, -EINVAL);
	return w->err;
}

/* ---- values ---- */

void jw_strn(struct jw *w, const char *s, size_t len)
{
	item(w);
	out_str(w, s, len);
}

void jw_str(struct jw *w, const char *s)
{
	if (s)
		jw_strn(w, s, strlen(s));
	else
		jw_null(w);
}

void jw_int(struct jw *w, int64_t v)
{
	item(w);
	out_dec(w, v < 0 ? -(uint64_t)v : (uint64_t)v, v < 0);
}

void jw_uint(struct jw *w, uint64_t v)
{
	item(w);
	out_dec(w, v, 0);
}

void jw_double(struct jw *w, double v, int prec)
{
	item(w);
	if (isfinite(v))
		outf(w, "%.*f", prec, v);
	else
		out(w, "null");
}

void jw_bool(struct jw *w, bool v)
{
	item(w);
	out(w, v ? "true" : "false");
}

void jw_null(struct jw *w)
{
	item(w);
	out(w, "null");
}

void jw_hex(struct jw *w, uint64_t v)
{
	item(w);
	outf(w, "\"0x%" PRIx64 "\"", v);
}

void jw_fixed(struct jw *w, uint64_t v, unsigned decimals)
{
	uint64_t scale = 1;
	for (unsigned i = 0; i < decimals && i < 19; i++)
		scale *= 10;
	item(w);
	out_dec(w, v / scale, 0);
	if (scale == 1)
		return;
	char frac[24];
	uint64_t r = v % scale;
	for (unsigned i = decimals < 19 ? decimals : 19; i > 0; i--, r /= 10)
		frac[i] = (char)('0' + r % 10);
	frac[0] = '.';
	outn(w, frac, (decimals < 19 ? decimals : 19) + 1);
}

void jw_raw(struct jw *w, const char *json, size_t len)
{
	item(w);
	outn(w, json, len);
}

/* ---- members ---- */

void jw_kobject(struct jw *w, const char *key)
{
	jw_key(w, key);
	jw_object(w);
}

void jw_karray(struct jw *w, const char *key)
{
	jw_key(w, key);
	jw_array(w);
}

void jw_kstr(struct jw *w, const char *key, const char *s)
{
	jw_key(w, key);
	jw_str(w, s);
}

void jw_kint(struct jw *w, const char *key, int64_t v)
{
	jw_key(w, key);
	jw_int(w, v);
}

void jw_kuint(struct jw *w, const char *key, uint64_t v)
{
	jw_key(w, key);
	jw_uint(w, v);
}

void jw_kdouble(struct jw *w, const char *key, double v, int prec)
{
	jw_key(w, key);
	jw_double(w, v, prec);
}

void jw_kbool(struct jw *w, const char *key, bool v)
{
	jw_key(w, key);
	jw_bool(w, v);
}

void jw_knull(struct jw *w, const char *key)
{
	jw_key(w, key);
	jw_null(w);
}

void jw_khex(struct jw *w, const char *key, uint64_t v)
{
	jw_key(w, key);
	jw_hex(w, v);
}

void jw_kuints(struct jw *w, const char *const *keys, const uint64_t *v, size_t n)
{
	for (size_t i = 0; i < n; i++)
		jw_kuint(w, keys[i], v[i]);
}

bool jw_key_or_null(struct jw *w, const char *key, bool have)
{
	jw_key(w, key);
	if (!have)
		jw_null(w);
	return have;
}

bool jw_kobject_or_null(struct jw *w, const char *key, bool have)
{
	if (jw_key_or_null(w, key, have))
		jw_object(w);
	return have;
}

void jw_kint_or_null(struct jw *w, const char *key, int64_t v, bool have)
{
	if (jw_key_or_null(w, key, have))
		jw_int(w, v);
}

void jw_kuint_or_null(struct jw *w, const char *key, uint64_t v, bool have)
{
	if (jw_key_or_null(w, key, have))
		jw_uint(w, v);
}
