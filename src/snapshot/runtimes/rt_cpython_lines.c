/* CPython line tables: byte offset of an instruction -> source line
 * (rtthread.h).  Pure functions over the bytes of a code object's table,
 * one per format, written from the formats' descriptions
 * (Objects/lnotab_notes.txt of each version, and the 3.11 location table
 * in InternalDocs/locations.md):
 *
 *   3.8-3.9  co_lnotab: byte pairs (address increment, signed line
 *            increment).  A line holds from its address up to the next.
 *   3.10     co_linetable: byte pairs (length in bytes, signed line delta,
 *            -128 = the range has no line).  Ranges follow each other.
 *   3.11+    co_linetable, the location table: each entry starts with a
 *            byte 1CCCCLLL (C: code, L: length in code units - 1) and is
 *            followed by bytes with the top bit clear.  Codes 0-9: same
 *            line (1 column byte); 10-12: line + code - 10 (2 column
 *            bytes); 13: signed varint line delta, no columns; 14: signed
 *            varint line delta then end line, column, end column varints;
 *            15: no location.  Varints are 6-bit groups, little end first,
 *            bit 6 = more; signed: bit 0 is the sign of value >> 1.
 *
 * A lookup scans the table from its start, or, with an index built once
 * per table (lt_py_index_build), from the nearest of the marks it keeps
 * every MARK_EVERY entries: a table shared by many code objects (or read
 * for many frames) is scanned once, not once per frame.  Lines add up in
 * 64 bits: a table whose deltas leave int's range is malformed. */
#include <limits.h>
#include <stdlib.h>

#include "rtthread.h"

#define MARK_EVERY 64

/* Records a mark every MARK_EVERY entries while building an index. */
struct marker {
	struct lt_py_index *ix;
	size_t cap;
	size_t k;
	bool fail;
};

static void mark(struct marker *mk, size_t pos, int64_t at, int64_t line)
{
	if (!mk || mk->fail || mk->k++ % MARK_EVERY)
		return;
	struct lt_py_index *ix = mk->ix;
	if (ix->n == mk->cap) {
		size_t cap = mk->cap ? mk->cap * 2 : 64;
		struct lt_py_mark *v = realloc(ix->v, cap * sizeof(*v));
		if (!v) {
			mk->fail = true;
			return;
		}
		ix->v = v;
		mk->cap = cap;
	}
	ix->v[ix->n++] = (struct lt_py_mark){ pos, at, line };
}

/* Each scan goes from entry POS, whose address is AT, with the line deltas
 * before it adding up to LINE, to ADDR: 1 and *OUT the sum of the deltas
 * up to ADDR's entry, 0 no line, -1 malformed. */
static int scan_lnotab(const uint8_t *tab, size_t n, size_t pos, int64_t at, int64_t line, int64_t addr,
		       struct marker *mk, int64_t *out)
{
	for (size_t i = pos; i + 1 < n; i += 2) {
		mark(mk, i, at, line);
		at += tab[i];
		if (at > addr)
			break;
		line += (int8_t)tab[i + 1];
	}
	*out = line;
	return 1;
}

static int scan_310(const uint8_t *tab, size_t n, size_t pos, int64_t end, int64_t line, int64_t addr,
		    struct marker *mk, int64_t *out)
{
	for (size_t i = pos; i + 1 < n; i += 2) {
		mark(mk, i, end, line);
		int64_t start = end;
		int8_t d = (int8_t)tab[i + 1];
		end += tab[i];
		if (d != -128)
			line += d;
		if (addr >= start && addr < end) {
			*out = line;
			return d == -128 ? 0 : 1;
		}
	}
	return 0;
}

/* An unsigned varint at *pos; false if it runs past the entry. */
static bool varint(const uint8_t *tab, size_t n, size_t *pos, unsigned *out)
{
	unsigned v = 0, shift = 0;
	uint8_t b;
	do {
		if (*pos >= n || shift > 24)
			return false;
		b = tab[(*pos)++];
		if (b & 0x80)
			return false; /* the next entry's header */
		v |= (unsigned)(b & 63) << shift;
		shift += 6;
	} while (b & 64);
	*out = v;
	return true;
}

static bool svarint(const uint8_t *tab, size_t n, size_t *pos, int *out)
{
	unsigned v;
	if (!varint(tab, n, pos, &v))
		return false;
	*out = v & 1 ? -(int)(v >> 1) : (int)(v >> 1);
	return true;
}

/* The line delta of the entry whose header is CODE, read after it; false
 * if malformed.  *none for code 15. */
static bool entry_delta(const uint8_t *tab, size_t n, size_t *pos, unsigned code, int *delta,
			bool *none)
{
	*none = false;
	*delta = 0;
	if (code == 15)
		*none = true;
	else if (code == 13 || code == 14)
		return svarint(tab, n, pos, delta);
	else if (code >= 10)
		*delta = (int)code - 10;
	return true;
}

static int scan_311(const uint8_t *tab, size_t n, size_t pos, int64_t start, int64_t line, int64_t addr,
		    struct marker *mk, int64_t *out)
{
	while (pos < n) {
		mark(mk, pos, start, line);
		uint8_t h = tab[pos++];
		if (!(h & 0x80))
			return -1;
		unsigned code = (h >> 3) & 15;
		int64_t end = start + ((h & 7) + 1) * 2;
		int delta;
		bool none;
		if (!entry_delta(tab, n, &pos, code, &delta, &none))
			return -1;
		line += delta;
		if (addr >= start && addr < end) {
			*out = line;
			return none ? 0 : 1;
		}
		while (pos < n && !(tab[pos] & 0x80))
			pos++; /* the columns: not needed */
		start = end;
	}
	return 0;
}

static int scan(enum lt_py_lines fmt, const uint8_t *tab, size_t n, const struct lt_py_mark *from,
		int64_t addr, struct marker *mk, int64_t *out)
{
	struct lt_py_mark z = { 0, 0, 0 };
	if (!from)
		from = &z;
	switch (fmt) {
	case LT_PY_LNOTAB:
		return scan_lnotab(tab, n, from->pos, from->at, from->line, addr, mk, out);
	case LT_PY_310:
		return scan_310(tab, n, from->pos, from->at, from->line, addr, mk, out);
	default:
		return scan_311(tab, n, from->pos, from->at, from->line, addr, mk, out);
	}
}

int lt_py_index_build(enum lt_py_lines fmt, const uint8_t *tab, size_t n, struct lt_py_index *ix)
{
	struct marker mk = { ix, 0, 0, false };
	int64_t out;
	ix->v = NULL;
	ix->n = 0;
	scan(fmt, tab, n, NULL, INT64_MAX, &mk, &out);
	if (mk.fail) {
		lt_py_index_free(ix);
		return -1;
	}
	return 0;
}

void lt_py_index_free(struct lt_py_index *ix)
{
	free(ix->v);
	ix->v = NULL;
	ix->n = 0;
}

int lt_py_line_at(enum lt_py_lines fmt, const uint8_t *tab, size_t n, const struct lt_py_index *ix,
		  int first, int addr)
{
	if (addr < 0)
		return first;
	const struct lt_py_mark *from = NULL;
	if (ix && ix->n && ix->v[0].at <= addr) { /* the last mark at or before ADDR */
		size_t lo = 0, hi = ix->n;
		while (hi - lo > 1) {
			size_t mid = lo + (hi - lo) / 2;
			if (ix->v[mid].at <= addr)
				lo = mid;
			else
				hi = mid;
		}
		from = &ix->v[lo];
	}
	int64_t d = 0;
	int st = scan(fmt, tab, n, from, addr, NULL, &d);
	if (st <= 0)
		return st;
	int64_t line = (int64_t)first + d;
	return line < INT_MIN || line > INT_MAX ? -1 : (int)line;
}

int lt_py_line_lnotab(const uint8_t *tab, size_t n, int first, int addr)
{
	return lt_py_line_at(LT_PY_LNOTAB, tab, n, NULL, first, addr);
}

int lt_py_line_310(const uint8_t *tab, size_t n, int first, int addr)
{
	return lt_py_line_at(LT_PY_310, tab, n, NULL, first, addr);
}

int lt_py_line_311(const uint8_t *tab, size_t n, int first, int addr)
{
	return lt_py_line_at(LT_PY_311, tab, n, NULL, first, addr);
}
