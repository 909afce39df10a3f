// SPDX-License-Identifier: MIT
/* The JSON writer (include/locktrace/jsonw.h). */
#include <errno.h>
#include <inttypes.h>
#include <math.h>
#include <stdarg.h>
#include <string.h>
#include "locktrace/jsonw.h"
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

/* ---- output: nothing more after the first error ---- */

static void failed(struct jw *w, int err)
{
	if (!w->err)
		w->err = err;
}

static void io_failed(struct jw *w)
{
	failed(w, -(errno ? errno : EIO));
}

static void out(struct jw *w, const char *s)
{
	if (!w->err && fputs(s, w->f) == EOF)
		io_failed(w);
}

static void vout(struct jw *w, const char *fmt, va_list ap)
{
	if (!w->err && vfprintf(w->f, fmt, ap) < 0)
		io_failed(w);
}

static void outf(struct jw *w, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
static void outf(struct jw *w, const char *fmt, ...)
{
	va_list ap;
	va_start(ap, fmt);
	vout(w, fmt, ap);
	va_end(ap);
}

static void newline(struct jw *w, int indent)
{
	outf(w, "\n%*s", indent, "");
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
	outf(w, "%c", open);
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
	outf(w, "%c", l->close);
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
	if (!w->err && lt_json_fputn(w->f, key, strlen(key)))
		io_failed(w);
	out(w, w->spaced ? ": " : ":");
	w->after_key = 1;
}

int jw_finish(struct jw *w)
{
	if (w->depth || w->after_key)
		failed(w, -EINVAL);
	out(w, "\n");
	if (fflush(w->f))
		io_failed(w);
	return w->err;
}

/* ---- values ---- */

void jw_strn(struct jw *w, const char *s, size_t len)
{
	item(w);
	if (!w->err && lt_json_fputn(w->f, s, len))
		io_failed(w);
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
	outf(w, "%" PRId64, v);
}

void jw_uint(struct jw *w, uint64_t v)
{
	item(w);
	outf(w, "%" PRIu64, v);
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

void jw_fmt(struct jw *w, const char *fmt, ...)
{
	va_list ap;
	item(w);
	va_start(ap, fmt);
	vout(w, fmt, ap);
	va_end(ap);
}

void jw_raw(struct jw *w, const char *json, size_t len)
{
	item(w);
	if (!w->err && len && fwrite(json, 1, len, w->f) != len)
		io_failed(w);
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

void jw_kint_or_null(struct jw *w, const char *key, int64_t v, int have)
{
	jw_key(w, key);
	if (have)
		jw_int(w, v);
	else
		jw_null(w);
}

void jw_kuint_or_null(struct jw *w, const char *key, uint64_t v, int have)
{
	jw_key(w, key);
	if (have)
		jw_uint(w, v);
	else
		jw_null(w);
}
