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
 *            bit 6 = more; signed: bit 0 is the sign of value >> 1. */
#include "rtthread.h"

int lt_py_line_lnotab(const uint8_t *tab, size_t n, int first, int addr)
{
	int line = first, at = 0;
	if (addr < 0)
		return first;
	for (size_t i = 0; i + 1 < n; i += 2) {
		at += tab[i];
		if (at > addr)
			break;
		line += (int8_t)tab[i + 1];
	}
	return line;
}

int lt_py_line_310(const uint8_t *tab, size_t n, int first, int addr)
{
	int line = first, end = 0;
	if (addr < 0)
		return first;
	for (size_t i = 0; i + 1 < n; i += 2) {
		int start = end;
		int8_t d = (int8_t)tab[i + 1];
		end += tab[i];
		if (d != -128)
			line += d;
		if (addr >= start && addr < end)
			return d == -128 ? 0 : line;
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

int lt_py_line_311(const uint8_t *tab, size_t n, int first, int addr)
{
	int line = first, start = 0;
	if (addr < 0)
		return first;
	size_t pos = 0;
	while (pos < n) {
		uint8_t h = tab[pos++];
		if (!(h & 0x80))
			return -1;
		unsigned code = (h >> 3) & 15;
		int end = start + ((h & 7) + 1) * 2, delta;
		bool none;
		if (!entry_delta(tab, n, &pos, code, &delta, &none))
			return -1;
		line += delta;
		if (addr >= start && addr < end)
			return none ? 0 : line;
		while (pos < n && !(tab[pos] & 0x80))
			pos++; /* the columns: not needed */
		start = end;
	}
	return 0;
}
