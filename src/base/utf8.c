// SPDX-License-Identifier: MIT
/* See utf8.h. */
#include <stdio.h>
#include <string.h>
#include "utf8.h"

static const char hex[] = "0123456789abcdef";

int lt_hex_value(char c)
{
	if (c >= '0' && c <= '9')
		return c - '0';
	if (c >= 'a' && c <= 'f')
		return c - 'a' + 10;
	if (c >= 'A' && c <= 'F')
		return c - 'A' + 10;
	return -1;
}

size_t lt_utf8_seq(const unsigned char *s, size_t n)
{
	unsigned char c = s[0], lo = 0x80, hi = 0xbf;
	size_t len;

	if (c < 0x80)
		return 1;
	if (c >= 0xc2 && c <= 0xdf)
		len = 2;
	else if (c >= 0xe0 && c <= 0xef)
		len = 3;
	else if (c >= 0xf0 && c <= 0xf4)
		len = 4;
	else
		return 0;
	if (n < len)
		return 0;
	/* the second byte's range is what excludes overlong forms,
	 * surrogates (U+D800..DFFF) and code points above U+10FFFF */
	if (c == 0xe0)
		lo = 0xa0;
	else if (c == 0xed)
		hi = 0x9f;
	else if (c == 0xf0)
		lo = 0x90;
	else if (c == 0xf4)
		hi = 0x8f;
	if (s[1] < lo || s[1] > hi)
		return 0;
	for (size_t i = 2; i < len; i++)
		if (s[i] < 0x80 || s[i] > 0xbf)
			return 0;
	return len;
}

/* Appends the piece (plen bytes) at *o if it fits with the final NUL: 1,
 * else 0 (the escapers write whole pieces only). */
static int put_piece(char *out, size_t cap, size_t *o, const char *piece, size_t plen)
{
	if (*o + plen + 1 > cap)
		return 0;
	memcpy(out + *o, piece, plen);
	*o += plen;
	return 1;
}

size_t lt_utf8_put(char *out, size_t cap, size_t at, uint32_t c)
{
	char b[4];
	size_t n = c < 0x80 ? 1 : c < 0x800 ? 2 : c < 0x10000 ? 3 : 4;
	static const unsigned char lead[5] = { 0, 0, 0xc0, 0xe0, 0xf0 };

	if (n == 1) {
		b[0] = (char)c;
	} else {
		for (size_t k = n - 1; k > 0; k--, c >>= 6)
			b[k] = (char)(0x80 | (c & 0x3f));
		b[0] = (char)(lead[n] | (c & (0x7fu >> n)));
	}
	put_piece(out, cap, &at, b, n);
	return at;
}

size_t lt_utf8_sanitize(char *out, size_t cap, const char *str, size_t len)
{
	const unsigned char *s = (const unsigned char *)str;
	size_t o = 0;

	if (!cap)
		return 0;
	for (size_t i = 0; i < len && s[i];) {
		size_t q = lt_utf8_seq(s + i, len - i);
		const char *piece = q ? (const char *)s + i : "\xef\xbf\xbd";
		size_t plen = q ? q : 3;
		if (q && memchr(piece, 0, q))
			break;
		if (!put_piece(out, cap, &o, piece, plen))
			break;
		i += q ? q : 1;
	}
	out[o] = 0;
	return o;
}

/* ---- JSON -------------------------------------------------------------- */

size_t lt_json_escape(char *out, size_t cap, const char *str, size_t len)
{
	const unsigned char *s = (const unsigned char *)str;
	size_t o = 0;

	if (!cap)
		return 0;
	for (size_t i = 0; i < len;) {
		char esc[8];
		const char *piece = esc;
		size_t plen, adv = 1;
		unsigned char c = s[i];

		if (c == '"' || c == '\\') {
			esc[0] = '\\';
			esc[1] = (char)c;
			plen = 2;
		} else if (c < 0x20 || c == 0x7f) {
			const char *short_esc = c == '\n' ? "\\n" : c == '\t' ? "\\t" : c == '\r' ? "\\r"
					      : c == '\b' ? "\\b" : c == '\f' ? "\\f" : NULL;
			if (short_esc) {
				piece = short_esc;
				plen = 2;
			} else {
				memcpy(esc, "\\u00", 4);
				esc[4] = hex[c >> 4];
				esc[5] = hex[c & 15];
				plen = 6;
			}
		} else {
			size_t q = lt_utf8_seq(s + i, len - i);
			if (!q) { /* not UTF-8: the replacement character */
				piece = "\\ufffd";
				plen = 6;
			} else if (q == 3 && s[i] == 0xe2 && s[i + 1] == 0x80 &&
				   (s[i + 2] == 0xa8 || s[i + 2] == 0xa9)) {
				/* valid JSON, but not valid JavaScript before ES2019 */
				piece = s[i + 2] == 0xa8 ? "\\u2028" : "\\u2029";
				plen = 6;
				adv = 3;
			} else {
				piece = (const char *)s + i;
				plen = adv = q;
			}
		}
		if (!put_piece(out, cap, &o, piece, plen))
			break;
		i += adv;
	}
	out[o] = 0;
	return o;
}

/* The length of the next piece of at most 256 bytes of S (N left) that
 * the escapers take at a time: whole UTF-8 sequences, a cut one backed off
 * (a run of continuation bytes longer than a piece is taken as it is). */
static size_t piece_len(const char *s, size_t n)
{
	size_t take = n < 256 ? n : 256;
	while (take < n && take > 0 && ((unsigned char)s[take] & 0xc0) == 0x80)
		take--;
	return take ? take : (n < 256 ? n : 256);
}

int lt_json_fputn(FILE *f, const char *s, size_t n)
{
	char buf[6 * 256 + 1];
	int rc = fputc('"', f) == EOF;

	while (n) {
		size_t take = piece_len(s, n);
		lt_json_escape(buf, sizeof(buf), s, take);
		rc |= fputs(buf, f) == EOF;
		s += take;
		n -= take;
	}
	rc |= fputc('"', f) == EOF;
	return rc ? EOF : 0;
}

void lt_json_fput(FILE *f, const char *s)
{
	lt_json_fputn(f, s, strlen(s));
}

/* ---- text -------------------------------------------------------------- */

/* A valid UTF-8 character that must not reach a terminal as it is: the C1
 * controls (U+0080..U+009F, 0x9b is a CSI), the line and paragraph
 * separators and the bidirectional overrides and isolates (U+202A..U+202E,
 * U+2066..U+2069), which reorder what follows them on the line. */
static int unsafe_char(const unsigned char *s, size_t q)
{
	if (q == 2)
		return s[0] == 0xc2 && s[1] < 0xa0;
	if (q != 3 || s[0] != 0xe2)
		return 0;
	if (s[1] == 0x80)
		return s[2] == 0xa8 || s[2] == 0xa9 || (s[2] >= 0xaa && s[2] <= 0xae);
	return s[1] == 0x81 && s[2] >= 0xa6 && s[2] <= 0xa9;
}

static size_t put_hex(char *out, const unsigned char *s, size_t q)
{
	for (size_t k = 0; k < q; k++) {
		out[4 * k] = '\\';
		out[4 * k + 1] = 'x';
		out[4 * k + 2] = hex[s[k] >> 4];
		out[4 * k + 3] = hex[s[k] & 15];
	}
	return 4 * q;
}

size_t lt_text_escape(char *out, size_t cap, const char *str, size_t len)
{
	const unsigned char *s = (const unsigned char *)str;
	size_t o = 0;

	if (!cap)
		return 0;
	for (size_t i = 0; i < len && s[i];) {
		char esc[12];
		size_t q = s[i] < 0x80 ? 1 : lt_utf8_seq(s + i, len - i), plen, adv = q ? q : 1;
		if (q == 1 && s[i] >= 0x20 && s[i] < 0x7f) {
			esc[0] = (char)s[i];
			plen = 1;
		} else if (q == 1 || (q && unsafe_char(s + i, q))) {
			plen = put_hex(esc, s + i, q);
		} else if (!q) {
			memcpy(esc, "\xef\xbf\xbd", 3); /* not UTF-8: U+FFFD */
			plen = 3;
		} else {
			memcpy(esc, s + i, q);
			plen = q;
		}
		if (!put_piece(out, cap, &o, esc, plen))
			break;
		i += adv;
	}
	out[o] = 0;
	return o;
}

void lt_text_fput(FILE *f, const char *s, size_t max)
{
	char buf[4 * 256 + 1];
	size_t n = strnlen(s, max);

	while (n) {
		size_t take = piece_len(s, n);
		lt_text_escape(buf, sizeof(buf), s, take);
		fputs(buf, f);
		s += take;
		n -= take;
	}
}

const char *lt_text_fit(char *out, size_t cap, const char *s, size_t cols)
{
	const unsigned char *p = (const unsigned char *)s;
	size_t o = 0, n = 0, len = strlen(s);

	if (!cap)
		return out;
	for (size_t i = 0; i < len && n < cols;) {
		size_t q = lt_utf8_seq(p + i, len - i);
		if (!q)
			q = 1; /* not escaped text: count the byte as one column */
		if (o + q + 1 > cap)
			break;
		memcpy(out + o, s + i, q);
		o += q;
		i += q;
		n++;
	}
	for (; n < cols && o + 1 < cap; n++)
		out[o++] = ' ';
	out[o] = 0;
	return out;
}
