/* SPDX-License-Identifier: MIT */
/*
 * The one JSON writer of every JSON output (report, snapshot, Chrome trace,
 * stored snapshots): a streaming writer to a FILE that owns the commas, the
 * nesting (a stack of open objects and arrays), the keys and the escaping
 * of strings (utf8.h: control bytes escaped, bytes that are not UTF-8 as
 * U+FFFD), and that remembers the first write error for the end.
 *
 *   struct jw w;
 *   jw_init(&w, f, JW_SPACED);
 *   jw_object(&w);
 *   jw_kstr(&w, "name", name);        "name": "..."
 *   jw_karray(&w, "tids");             "tids": [
 *   jw_uint(&w, 12);                   12
 *   jw_end(&w);                        ]
 *   jw_end(&w);
 *   return jw_finish(&w);              a newline; 0 or a negative errno
 *
 * Layout: JW_COMPACT writes "," and ":", JW_SPACED ", " and ": ", all on
 * one line unless told: jw_lines() puts each item of the container just
 * opened on its own line, jw_break() the next item (or the end) only.
 * Keys and values are written as they come: the writer checks nesting, not
 * that an object's members have keys.  Output is buffered in struct jw (a
 * stdio call per token would double the time of a large trace): write
 * nothing else to f before jw_finish, which hands all of it to f.
 */
#ifndef LOCKTRACE_JSONW_H
#define LOCKTRACE_JSONW_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#define JW_MAX_DEPTH 16
#define JW_BUF 4096

enum jw_style { JW_COMPACT, JW_SPACED };

/* The state; its fields are the writer's own. */
struct jw {
	FILE *f;
	int err;	/* the first error, a negative errno; nothing is written after it */
	int spaced;
	int depth;
	int after_key;	/* a key was written: the value follows it without a separator */
	int brk;	/* indent of a new line before the next item or end, -1: none */
	struct jw_level {
		char close;
		char has_items;
		short item;  /* indent of each item's new line, -1: none */
		short end;   /* indent of the end's new line when there are items, -1: none */
	} lv[JW_MAX_DEPTH];
	size_t n;	/* bytes in buf not yet handed to f */
	char buf[JW_BUF];
};

void jw_init(struct jw *w, FILE *f, enum jw_style style);
/* Ends the document with a newline and flushes: 0, or the first error as a
 * negative errno (-EINVAL for a container left open or closed twice). */
int jw_finish(struct jw *w);
/* The error so far (0 if none). */
int jw_error(const struct jw *w);

void jw_object(struct jw *w);
void jw_array(struct jw *w);
void jw_end(struct jw *w);
/* Each item of the innermost open container on a new line indented by item
 * spaces, its end (if it has items) on one indented by end spaces; -1 for
 * neither. */
void jw_lines(struct jw *w, int item, int end);
/* The next item, or the end if no item comes, on a new line indented by
 * indent spaces. */
void jw_break(struct jw *w, int indent);

void jw_key(struct jw *w, const char *key);

/* Values.  jw_str: NULL is null; jw_strn: len bytes, NULs included. */
void jw_str(struct jw *w, const char *s);
void jw_strn(struct jw *w, const char *s, size_t len);
void jw_int(struct jw *w, int64_t v);
void jw_uint(struct jw *w, uint64_t v);
/* v with prec decimals ("%.*f"); null if v is not finite (JSON has no NaN). */
void jw_double(struct jw *w, double v, int prec);
void jw_bool(struct jw *w, bool v);
void jw_null(struct jw *w);
/* The string "0x..." (lower-case hex): addresses, which a double cannot hold. */
void jw_hex(struct jw *w, uint64_t v);
/* v / 10^decimals with exactly that many decimals (1234567, 3: 1234.567):
 * a fixed-point number no double rounds. */
void jw_fixed(struct jw *w, uint64_t v, unsigned decimals);
/* len bytes of JSON written elsewhere (a stored snapshot), as they are. */
void jw_raw(struct jw *w, const char *json, size_t len);

/* Members: the key, then the value as above. */
void jw_kobject(struct jw *w, const char *key);
void jw_karray(struct jw *w, const char *key);
void jw_kstr(struct jw *w, const char *key, const char *s);
void jw_kint(struct jw *w, const char *key, int64_t v);
void jw_kuint(struct jw *w, const char *key, uint64_t v);
void jw_kdouble(struct jw *w, const char *key, double v, int prec);
void jw_kbool(struct jw *w, const char *key, bool v);
void jw_knull(struct jw *w, const char *key);
void jw_khex(struct jw *w, const char *key, uint64_t v);
/* n counters: keys[i] with v[i]. */
void jw_kuints(struct jw *w, const char *const *keys, const uint64_t *v, size_t n);
/* Optional members: the key, then null unless have.  jw_key_or_null
 * returns have: true, the caller writes the value; jw_kobject_or_null
 * opens the object (the caller ends it) when have. */
bool jw_key_or_null(struct jw *w, const char *key, bool have);
bool jw_kobject_or_null(struct jw *w, const char *key, bool have);
void jw_kint_or_null(struct jw *w, const char *key, int64_t v, bool have);
void jw_kuint_or_null(struct jw *w, const char *key, uint64_t v, bool have);

#endif
