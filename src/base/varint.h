/* SPDX-License-Identifier: MIT */
/* LEB128 varints and zigzag, shared by the trace file codec.  Private to src/. */
#ifndef LT_VARINT_H
#define LT_VARINT_H

#include <stddef.h>
#include <stdint.h>
#include <string.h>

static inline uint64_t lt_zz(int64_t v)
{
	return ((uint64_t)v << 1) ^ (uint64_t)(v >> 63);
}

static inline int64_t lt_unzz(uint64_t v)
{
	return (int64_t)(v >> 1) ^ -(int64_t)(v & 1);
}

/* Writes v at p (needs up to 10 bytes); returns the new end. */
static inline uint8_t *lt_put_varint(uint8_t *p, uint64_t v)
{
	while (v >= 0x80) {
		*p++ = (uint8_t)v | 0x80;
		v >>= 7;
	}
	*p++ = (uint8_t)v;
	return p;
}

/* A bounded cursor for decoding: any overrun sets err and yields zeros, so
 * decoders check err once at the end of a record instead of at every field. */
struct lt_cur {
	const uint8_t *p, *end;
	int err;
};

/* A cursor over the N bytes at P; an empty one when P is NULL (a reader's
 * buffer for an empty chunk is never allocated: NULL + 0 is undefined). */
static inline struct lt_cur lt_cur_over(const void *p, size_t n)
{
	const uint8_t *b = p;
	struct lt_cur c = { b, b ? b + n : b, 0 };
	return c;
}

static inline uint64_t lt_get_varint(struct lt_cur *c)
{
	uint64_t v = 0;
	unsigned shift = 0;

	while (c->p < c->end) {
		uint8_t b = *c->p++;
		if (shift == 63 && b > 1)
			break; /* more than 64 bits */
		v |= (uint64_t)(b & 0x7f) << shift;
		if (!(b & 0x80))
			return v;
		shift += 7;
		if (shift > 63)
			break;
	}
	c->err = 1;
	return 0;
}

static inline int64_t lt_get_zz(struct lt_cur *c)
{
	return lt_unzz(lt_get_varint(c));
}

static inline const uint8_t *lt_get_bytes(struct lt_cur *c, size_t n)
{
	const uint8_t *s = c->p;
	if ((size_t)(c->end - c->p) < n) {
		c->err = 1;
		c->p = c->end;
		return NULL;
	}
	c->p += n;
	return s;
}

static inline void lt_put_le32(uint8_t *p, uint32_t v)
{
	p[0] = v;
	p[1] = v >> 8;
	p[2] = v >> 16;
	p[3] = v >> 24;
}

static inline uint32_t lt_get_le32(const uint8_t *p)
{
	return p[0] | (uint32_t)p[1] << 8 | (uint32_t)p[2] << 16 | (uint32_t)p[3] << 24;
}

#endif
