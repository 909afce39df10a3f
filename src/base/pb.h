/* Minimal protobuf encoder for locktrace's Perfetto output.
 *
 * Design:
 *  - One growable buffer (struct pb_buf) receives fields in wire order.
 *  - Nested messages are written in place: pb_begin() writes the tag and
 *    reserves PB_LEN_PAD bytes for the length, pb_end() patches them with a
 *    padded (non-minimal) varint.  Every protobuf parser, including
 *    Perfetto's protozero (which writes its own nested lengths the same way),
 *    accepts padded varints; this avoids sub-buffers and copies.  Measured
 *    on a typical packet (TracePacket{timestamp, sequence id, TrackEvent{4
 *    fields}}): 13-21 ns padded vs 31-37 ns when pb_end() moves the payload
 *    down to use a minimal length, at the cost of 3 bytes per nested
 *    message (36 vs 30 bytes per packet).  Speed wins.
 *  - Errors are sticky: once a write fails (out of memory, size limit, sink
 *    failure) every later write is a no-op and pb_buf_error() reports the
 *    first error.  Callers may therefore check once per packet.
 *  - The per-field fast path is inline; only buffer growth is out of line.
 *    A field never allocates unless the buffer must grow.
 *
 * Field numbers must be in 1..PB_MAX_FIELD; they are not checked on the fast
 * path because callers pass schema constants.
 */
#ifndef LOCKTRACE_PB_H
#define LOCKTRACE_PB_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>

#ifdef __cplusplus
extern "C" {
#endif

/* Wire types (shared with pbread.h). */
enum pb_wire_type {
	PB_WT_VARINT = 0,
	PB_WT_I64 = 1,
	PB_WT_LEN = 2,
	PB_WT_I32 = 5,
};

#define PB_MAX_FIELD ((1u << 29) - 1)
/* Bytes reserved for a nested message's length: 4 varint bytes hold up to
 * 2^28-1, which is also the largest field Perfetto's decoder keeps. */
#define PB_LEN_PAD 4
#define PB_LEN_PAD_MAX ((1u << (7 * PB_LEN_PAD)) - 1)
#define PB_VARINT_MAX 10
#define PB_TAG_MAX 5

/* Receives encoded bytes on pb_flush(); returns 0 or a negative errno. */
typedef int (*pb_sink_fn)(void *ctx, const uint8_t *data, size_t len);

struct pb_buf {
	uint8_t *base;	/* start of the allocation */
	uint8_t *p;	/* next byte to write */
	uint8_t *end;	/* write limit: base + alloc, or p after an error */
	size_t alloc;	/* bytes allocated at base */
	size_t limit;	/* max bytes the buffer may hold, 0 = unlimited */
	int err;	/* first error (negative errno), 0 if none */
	unsigned depth;	/* nested messages currently open */
	pb_sink_fn sink;
	void *sink_ctx;
	size_t flush_at;	/* pb_packet_end() flushes once len >= this */
};

/* Token returned by pb_begin(): the offset of the reserved length bytes. */
typedef size_t pb_tok;
#define PB_TOK_NONE ((pb_tok)-1)

/* ---- buffer management ---------------------------------------------- */

/* Initialise an empty buffer; allocates nothing. */
void pb_buf_init(struct pb_buf *b);

/* Release the allocation and return to the pb_buf_init() state (the sink
 * and limit are forgotten too). */
void pb_buf_free(struct pb_buf *b);

/* Drop the contents and clear the error and nesting; keeps the allocation,
 * sink and limit so the buffer can be reused without reallocating. */
void pb_buf_reset(struct pb_buf *b);

/* Make room for at least `n` more bytes up front.  Returns 0 or the
 * (sticky) error. */
int pb_buf_reserve(struct pb_buf *b, size_t n);

/* Cap the buffer's size (0 = no cap).  Growing past it fails with -ENOBUFS,
 * which bounds memory and makes the error path testable. */
void pb_buf_set_limit(struct pb_buf *b, size_t max_bytes);

/* Route flushed bytes to `fn(ctx, ...)`.  pb_packet_end() flushes
 * automatically when no message is open and at least `flush_at` bytes are
 * buffered (0 = after every packet); pb_flush() flushes explicitly. */
void pb_buf_set_sink(struct pb_buf *b, pb_sink_fn fn, void *ctx,
		     size_t flush_at);

/* A sink writing to a stdio stream: pass the FILE * as ctx. */
int pb_sink_file(void *ctx, const uint8_t *data, size_t len);

/* Hand all buffered bytes to the sink and empty the buffer.  Must not be
 * called with a message open (-EINVAL).  Without a sink, returns -EINVAL.
 * Returns 0 or the (sticky) error; nothing is flushed after an error. */
int pb_flush(struct pb_buf *b);

/* Bytes currently buffered, their address, and the sticky error. */
static inline size_t pb_buf_len(const struct pb_buf *b)
{
	return (size_t)(b->p - b->base);
}

static inline const uint8_t *pb_buf_data(const struct pb_buf *b)
{
	return b->base;
}

static inline int pb_buf_error(const struct pb_buf *b)
{
	return b->err;
}

/* ---- internals used by the inline writers ---------------------------- */

/* Slow path of pb__room(): grow so that `n` more bytes fit.  Returns 0 or
 * the sticky error. */
int pb__grow(struct pb_buf *b, size_t n);

/* Slow path of pb_end(): lengths >= 2^28, bad tokens, errors. */
int pb__end_slow(struct pb_buf *b, pb_tok t);

static inline bool pb__room(struct pb_buf *b, size_t n)
{
	if (__builtin_expect((size_t)(b->end - b->p) >= n, 1))
		return true;
	return pb__grow(b, n) == 0;
}

static inline uint8_t *pb__put_varint(uint8_t *p, uint64_t v)
{
	while (v >= 0x80) {
		*p++ = (uint8_t)v | 0x80;
		v >>= 7;
	}
	*p++ = (uint8_t)v;
	return p;
}

static inline uint8_t *pb__put_tag(uint8_t *p, uint32_t field,
				   enum pb_wire_type wt)
{
	return pb__put_varint(p, (uint64_t)field << 3 | wt);
}

static inline uint8_t *pb__put_le64(uint8_t *p, uint64_t v)
{
#if defined(__BYTE_ORDER__) && __BYTE_ORDER__ == __ORDER_LITTLE_ENDIAN__
	memcpy(p, &v, 8);
#else
	for (int i = 0; i < 8; i++)
		p[i] = (uint8_t)(v >> (8 * i));
#endif
	return p + 8;
}

static inline uint8_t *pb__put_le32(uint8_t *p, uint32_t v)
{
#if defined(__BYTE_ORDER__) && __BYTE_ORDER__ == __ORDER_LITTLE_ENDIAN__
	memcpy(p, &v, 4);
#else
	for (int i = 0; i < 4; i++)
		p[i] = (uint8_t)(v >> (8 * i));
#endif
	return p + 4;
}

/* ---- scalar fields ---------------------------------------------------- */

/* uint32, uint64, enum: plain varint. */
static inline void pb_uint64(struct pb_buf *b, uint32_t field, uint64_t v)
{
	if (!pb__room(b, PB_TAG_MAX + PB_VARINT_MAX))
		return;
	b->p = pb__put_varint(pb__put_tag(b->p, field, PB_WT_VARINT), v);
}

static inline void pb_uint32(struct pb_buf *b, uint32_t field, uint32_t v)
{
	pb_uint64(b, field, v);
}

/* int32, int64: negative values are sign-extended to 64 bits, hence always
 * 10 bytes on the wire (this is what the int32/int64 schema types mean; use
 * pb_sint* for zigzag). */
static inline void pb_int64(struct pb_buf *b, uint32_t field, int64_t v)
{
	pb_uint64(b, field, (uint64_t)v);
}

static inline void pb_int32(struct pb_buf *b, uint32_t field, int32_t v)
{
	pb_uint64(b, field, (uint64_t)(int64_t)v);
}

/* Zigzag mapping used by sint32/sint64: small magnitudes stay short. */
static inline uint64_t pb_zigzag64(int64_t v)
{
	return ((uint64_t)v << 1) ^ (uint64_t)(v >> 63);
}

static inline void pb_sint64(struct pb_buf *b, uint32_t field, int64_t v)
{
	pb_uint64(b, field, pb_zigzag64(v));
}

static inline void pb_sint32(struct pb_buf *b, uint32_t field, int32_t v)
{
	/* sint32 zigzags in 32 bits; for int32 inputs that equals the 64-bit
	 * mapping, so parsers reading either width agree. */
	pb_uint64(b, field, pb_zigzag64(v));
}

static inline void pb_bool(struct pb_buf *b, uint32_t field, bool v)
{
	pb_uint64(b, field, v ? 1 : 0);
}

/* fixed64, sfixed64 (cast), and Perfetto's flow ids. */
static inline void pb_fixed64(struct pb_buf *b, uint32_t field, uint64_t v)
{
	if (!pb__room(b, PB_TAG_MAX + 8))
		return;
	b->p = pb__put_le64(pb__put_tag(b->p, field, PB_WT_I64), v);
}

static inline void pb_fixed32(struct pb_buf *b, uint32_t field, uint32_t v)
{
	if (!pb__room(b, PB_TAG_MAX + 4))
		return;
	b->p = pb__put_le32(pb__put_tag(b->p, field, PB_WT_I32), v);
}

static inline void pb_double(struct pb_buf *b, uint32_t field, double v)
{
	uint64_t bits;

	memcpy(&bits, &v, sizeof(bits));
	pb_fixed64(b, field, bits);
}

/* ---- length-delimited fields ----------------------------------------- */

/* bytes / string with explicit length. */
static inline void pb_bytes(struct pb_buf *b, uint32_t field,
			    const void *data, size_t len)
{
	/* Written as two checks so that a huge len cannot overflow the sum. */
	if (len > SIZE_MAX - PB_TAG_MAX - PB_VARINT_MAX) {
		pb__grow(b, SIZE_MAX);
		return;
	}
	if (!pb__room(b, PB_TAG_MAX + PB_VARINT_MAX + len))
		return;
	uint8_t *p = pb__put_varint(pb__put_tag(b->p, field, PB_WT_LEN), len);
	if (len)
		memcpy(p, data, len);
	b->p = p + len;
}

/* NUL-terminated string (the NUL is not written). */
static inline void pb_string(struct pb_buf *b, uint32_t field, const char *s)
{
	pb_bytes(b, field, s, strlen(s));
}

/* ---- nested messages --------------------------------------------------- */

/* Open a nested message field.  Write its fields, then close it with
 * pb_end(token); messages must be closed in LIFO order.  Returns
 * PB_TOK_NONE if the buffer is in error (pb_end() then just reports it). */
static inline pb_tok pb_begin(struct pb_buf *b, uint32_t field)
{
	if (!pb__room(b, PB_TAG_MAX + PB_LEN_PAD))
		return PB_TOK_NONE;
	b->p = pb__put_tag(b->p, field, PB_WT_LEN);
	pb_tok t = (pb_tok)(b->p - b->base);
	b->p += PB_LEN_PAD;
	b->depth++;
	return t;
}

/* Close the message opened by pb_begin(): patch its length.  Returns 0 or
 * the sticky error. */
static inline int pb_end(struct pb_buf *b, pb_tok t)
{
	size_t off = pb_buf_len(b);

	/* The fast path covers valid tokens of messages below 2^28 bytes;
	 * PB_TOK_NONE fails the first test. */
	if (__builtin_expect(off >= PB_LEN_PAD && t <= off - PB_LEN_PAD &&
			     off - t - PB_LEN_PAD <= PB_LEN_PAD_MAX, 1)) {
		size_t n = off - t - PB_LEN_PAD;
		uint8_t *q = b->base + t;

		q[0] = (uint8_t)(n | 0x80);
		q[1] = (uint8_t)(n >> 7 | 0x80);
		q[2] = (uint8_t)(n >> 14 | 0x80);
		q[3] = (uint8_t)(n >> 21);
		b->depth--;
		return b->err;
	}
	return pb__end_slow(b, t);
}

/* ---- raw output ------------------------------------------------------- */

/* Append pre-encoded bytes (e.g. a cached message) verbatim. */
void pb_raw(struct pb_buf *b, const void *data, size_t len);

/* Append a bare varint without tag: the elements of a packed repeated field
 * opened with pb_begin(). */
static inline void pb_raw_varint(struct pb_buf *b, uint64_t v)
{
	if (!pb__room(b, PB_VARINT_MAX))
		return;
	b->p = pb__put_varint(b->p, v);
}

/* ---- trace packets ---------------------------------------------------- */

/* A Perfetto trace is `repeated TracePacket packet = 1`, so a file is just
 * a sequence of field-1 messages and packets can be streamed one by one.
 * pb_packet_begin() opens one at top level; fill it with the TracePacket's
 * fields, then pb_packet_end() closes it and, if a sink is set, flushes once
 * flush_at bytes are buffered.  Remember a final pb_flush(). */
#define PB_TRACE_PACKET_FIELD 1

static inline pb_tok pb_packet_begin(struct pb_buf *b)
{
	return pb_begin(b, PB_TRACE_PACKET_FIELD);
}

/* Returns 0 or the sticky error (including a sink failure). */
int pb_packet_end(struct pb_buf *b, pb_tok t);

#ifdef __cplusplus
}
#endif

#endif /* LOCKTRACE_PB_H */
