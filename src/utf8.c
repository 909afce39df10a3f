// SPDX-License-Identifier: MIT
/* See utf8.h. */
#include <string.h>
#include "utf8.h"

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
		if (o + plen + 1 > cap)
			break;
		memcpy(out + o, piece, plen);
		o += plen;
		i += q ? q : 1;
	}
	out[o] = 0;
	return o;
}
