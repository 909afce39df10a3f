// SPDX-License-Identifier: MIT
/*
 * See crc32.h.  Folding (Gopal et al., "Fast CRC Computation for Generic
 * Polynomials Using PCLMULQDQ Instruction", Intel, 2009): in the bit-
 * reflected domain a 128-bit register X followed by more data has the same
 * CRC as X * x^k mod P followed by that data, for a shift k of 128 or 512
 * bits; X * x^k mod P is computed as the carry-less products of X's two
 * 64-bit halves with the constants x^(k+32) mod P and x^(k-32) mod P (33
 * bits each, reflected and shifted left by one).  What is left, 16 folded
 * bytes and a tail shorter than 16, is finished byte-wise by zlib: no
 * Barrett reduction is needed, the result is zlib's by construction, and
 * tests compare the two on many lengths and alignments.
 */
#include <string.h>
#include <zlib.h>
#include "crc32.h"

uint32_t lt_crc32_update_zlib(uint32_t crc, const void *buf, size_t len)
{
	const uint8_t *p = buf;

	/* zlib takes uInt lengths: feed it at most 1 GiB at a time */
	while (len) {
		size_t n = len > (1u << 30) ? (1u << 30) : len;
		crc = (uint32_t)crc32(crc, p, (uInt)n);
		p += n;
		len -= n;
	}
	return crc;
}

#if defined(__x86_64__) && (defined(__GNUC__) || defined(__clang__))
#include <immintrin.h>

#define FOLD_ATTR __attribute__((target("pclmul,sse4.1")))

/* x^(k+32) mod P (low half) and x^(k-32) mod P (high half), reflected <<1 */
#define K512_LO 0x154442bd4ull
#define K512_HI 0x1c6e41596ull
#define K128_LO 0x1751997d0ull
#define K128_HI 0x0ccaa009eull

FOLD_ATTR static inline __m128i fold(__m128i x, __m128i k)
{
	return _mm_xor_si128(_mm_clmulepi64_si128(x, k, 0x00), _mm_clmulepi64_si128(x, k, 0x11));
}

/* len >= 64 */
FOLD_ATTR static uint32_t crc_fold(uint32_t crc, const uint8_t *p, size_t len)
{
	const __m128i k512 = _mm_set_epi64x((long long)K512_HI, (long long)K512_LO);
	const __m128i k128 = _mm_set_epi64x((long long)K128_HI, (long long)K128_LO);
	__m128i x0 = _mm_loadu_si128((const __m128i *)p);
	__m128i x1 = _mm_loadu_si128((const __m128i *)(p + 16));
	__m128i x2 = _mm_loadu_si128((const __m128i *)(p + 32));
	__m128i x3 = _mm_loadu_si128((const __m128i *)(p + 48));
	uint8_t last[16];

	/* the register starts as ~crc, xored into the first 4 bytes */
	x0 = _mm_xor_si128(x0, _mm_cvtsi32_si128((int)~crc));
	p += 64;
	len -= 64;
	for (; len >= 64; p += 64, len -= 64) {
		x0 = _mm_xor_si128(fold(x0, k512), _mm_loadu_si128((const __m128i *)p));
		x1 = _mm_xor_si128(fold(x1, k512), _mm_loadu_si128((const __m128i *)(p + 16)));
		x2 = _mm_xor_si128(fold(x2, k512), _mm_loadu_si128((const __m128i *)(p + 32)));
		x3 = _mm_xor_si128(fold(x3, k512), _mm_loadu_si128((const __m128i *)(p + 48)));
	}
	x0 = _mm_xor_si128(fold(x0, k128), x1);
	x0 = _mm_xor_si128(fold(x0, k128), x2);
	x0 = _mm_xor_si128(fold(x0, k128), x3);
	for (; len >= 16; p += 16, len -= 16)
		x0 = _mm_xor_si128(fold(x0, k128), _mm_loadu_si128((const __m128i *)p));
	/* the CRC of the folded register then the tail, from a zero register
	 * (zlib's crc32(0xffffffff, ...) starts from ~0xffffffff = 0) */
	_mm_storeu_si128((__m128i *)last, x0);
	crc = (uint32_t)crc32(0xffffffffu, last, sizeof(last));
	return (uint32_t)crc32(crc, p, (uInt)len);
}

static int have_clmul(void)
{
	static int have = -1;

	if (have < 0) {
		__builtin_cpu_init();
		have = __builtin_cpu_supports("pclmul") && __builtin_cpu_supports("sse4.1");
	}
	return have;
}

uint32_t lt_crc32_update(uint32_t crc, const void *buf, size_t len)
{
	const uint8_t *p = buf;

	if (len < 256 || !have_clmul())
		return lt_crc32_update_zlib(crc, buf, len);
	return crc_fold(crc, p, len);
}
#else
uint32_t lt_crc32_update(uint32_t crc, const void *buf, size_t len)
{
	return lt_crc32_update_zlib(crc, buf, len);
}
#endif
