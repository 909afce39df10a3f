/* Protobuf encoder: the out-of-line parts (growth, rare paths, sinks).
 * The per-field fast paths live inline in pb.h. */
#include "pb.h"
#include "grow.h"

#include <errno.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>

/* Large enough that a typical packet never reallocates after the first. */
#define PB_MIN_ALLOC 4096

/* A 5-byte varint holds lengths below 2^35; longer nested messages would
 * need more shifting than they are worth and exceed any parser's limits. */
#define PB_LEN5_MAX ((UINT64_C(1) << 35) - 1)

/* Record the first error and clamp the write limit so that every later
 * write takes the slow path and becomes a no-op. */
static int pb_fail(struct pb_buf *b, int err)
{
	if (!b->err)
		b->err = err;
	b->end = b->p;
	return b->err;
}

void pb_buf_init(struct pb_buf *b)
{
	memset(b, 0, sizeof(*b));
}

void pb_buf_free(struct pb_buf *b)
{
	free(b->base);
	pb_buf_init(b);
}

void pb_buf_reset(struct pb_buf *b)
{
	b->p = b->base;
	/* base is NULL before the first growth; NULL + 0 is undefined. */
	b->end = b->alloc ? b->base + b->alloc : b->base;
	b->err = 0;
	b->depth = 0;
}

void pb_buf_set_limit(struct pb_buf *b, size_t max_bytes)
{
	b->limit = max_bytes;
}

void pb_buf_set_sink(struct pb_buf *b, pb_sink_fn fn, void *ctx,
		     size_t flush_at)
{
	b->sink = fn;
	b->sink_ctx = ctx;
	b->flush_at = flush_at;
}

int pb__grow(struct pb_buf *b, size_t n)
{
	if (b->err)
		return b->err;

	size_t len = pb_buf_len(b);
	/* No object may exceed PTRDIFF_MAX: the write pointers subtract. */
	if (n > (size_t)PTRDIFF_MAX - len)
		return pb_fail(b, -ENOMEM);
	size_t need = len + n;
	if (b->limit && need > b->limit)
		return pb_fail(b, -ENOBUFS);
	if (need <= b->alloc)
		return 0;

	size_t cap = lt_grow_cap(b->alloc, need, 1, PB_MIN_ALLOC);
	if (cap > (size_t)PTRDIFF_MAX)
		cap = need;
	if (b->limit && cap > b->limit)
		cap = b->limit;

	uint8_t *nb = realloc(b->base, cap);
	if (!nb)
		return pb_fail(b, -ENOMEM);
	b->base = nb;
	b->p = nb + len;
	b->end = nb + cap;
	b->alloc = cap;
	return 0;
}

int pb_buf_reserve(struct pb_buf *b, size_t n)
{
	return pb__room(b, n) ? 0 : b->err;
}

int pb__end_slow(struct pb_buf *b, pb_tok t)
{
	size_t off = pb_buf_len(b);

	if (t == PB_TOK_NONE)
		return b->err ? b->err : pb_fail(b, -EINVAL);
	if (off < PB_LEN_PAD || t > off - PB_LEN_PAD || b->depth == 0)
		return pb_fail(b, -EINVAL);

	/* Only a length beyond what PB_LEN_PAD bytes can hold gets here. */
	uint64_t n = off - t - PB_LEN_PAD;
	b->depth--;
	if (b->err)
		return b->err;
	if (n > PB_LEN5_MAX)
		return pb_fail(b, -EMSGSIZE);
	if (!pb__room(b, 1))
		return b->err;

	/* Shift the payload by one byte so that a 5-byte varint fits.  Only
	 * this message's closed children live after t, and their tokens are
	 * dead, so nothing else needs fixing. */
	uint8_t *q = b->base + t;
	memmove(q + PB_LEN_PAD + 1, q + PB_LEN_PAD, n);
	pb__put_varint(q, n);
	b->p++;
	return 0;
}

void pb_raw(struct pb_buf *b, const void *data, size_t len)
{
	if (!len || !pb__room(b, len))
		return;
	memcpy(b->p, data, len);
	b->p += len;
}

int pb_flush(struct pb_buf *b)
{
	if (b->err)
		return b->err;
	if (!b->sink || b->depth)
		return pb_fail(b, -EINVAL);

	size_t len = pb_buf_len(b);
	if (len) {
		int rc = b->sink(b->sink_ctx, b->base, len);
		if (rc)
			return pb_fail(b, rc < 0 ? rc : -EIO);
	}
	b->p = b->base;
	return 0;
}

int pb_packet_end(struct pb_buf *b, pb_tok t)
{
	int err = pb_end(b, t);

	if (err)
		return err;
	if (b->sink && !b->depth && pb_buf_len(b) >= b->flush_at)
		return pb_flush(b);
	return 0;
}

int pb_sink_file(void *ctx, const uint8_t *data, size_t len)
{
	FILE *f = ctx;

	errno = 0;
	if (fwrite(data, 1, len, f) == len)
		return 0;
	return errno ? -errno : -EIO;
}
