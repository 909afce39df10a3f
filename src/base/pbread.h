/* Minimal protobuf reader, for tests and tools that inspect our output.
 *
 * It iterates the fields of one message buffer without a schema: field
 * number, wire type and raw value (varint, fixed64/fixed32, or a slice for
 * length-delimited fields).  A nested message is read by starting a new
 * reader on the slice.  Every read is bounds-checked: malformed input
 * (truncated varint or fixed value, length past the end, field number 0 or
 * above 2^29-1, varints longer than 10 bytes or overflowing 64 bits, wire
 * types 3/4/6/7) yields an error, never an out-of-bounds access.
 * Non-minimal (padded) varints are accepted, as protobuf requires.
 */
#ifndef LOCKTRACE_PBREAD_H
#define LOCKTRACE_PBREAD_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "pb.h"	/* enum pb_wire_type */

#ifdef __cplusplus
extern "C" {
#endif

struct pb_field {
	uint32_t num;		/* field number, >= 1 */
	uint8_t wire;		/* enum pb_wire_type */
	uint64_t val;		/* varint, fixed64 or fixed32 value; the
				   length for PB_WT_LEN */
	const uint8_t *data;	/* PB_WT_LEN: payload (NULL otherwise) */
	size_t len;		/* PB_WT_LEN: payload length */
};

struct pb_reader {
	const uint8_t *start;
	const uint8_t *p;
	const uint8_t *end;
	int err;		/* sticky: 0 or -EBADMSG */
};

/* Start reading the message in [data, data + len). */
void pb_reader_init(struct pb_reader *r, const void *data, size_t len);

/* Start reading the nested message carried by a PB_WT_LEN field.  A field
 * of another wire type gives a reader that fails with -EBADMSG. */
void pb_reader_init_sub(struct pb_reader *r, const struct pb_field *f);

/* Read the next field into *f.  Returns 1 if a field was read, 0 at the
 * clean end of the message, -EBADMSG on malformed input (sticky: later
 * calls return it again without reading). */
int pb_read_field(struct pb_reader *r, struct pb_field *f);

/* Offset of the next unread byte (for error messages). */
static inline size_t pb_reader_offset(const struct pb_reader *r)
{
	return (size_t)(r->p - r->start);
}

/* Decode one varint from [*p, end); advances *p on success.  Returns 0 or
 * -EBADMSG (truncated, longer than 10 bytes, or above 2^64-1). */
int pb_read_varint(const uint8_t **p, const uint8_t *end, uint64_t *out);

/* Find the first / last field numbered `num` in a message.  Returns 1 if
 * found, 0 if absent, -EBADMSG if the message is malformed before (first)
 * or anywhere (last). */
int pb_find_first(const void *msg, size_t len, uint32_t num,
		  struct pb_field *out);
int pb_find_last(const void *msg, size_t len, uint32_t num,
		 struct pb_field *out);

/* Count the fields numbered `num`, or -EBADMSG if malformed. */
long pb_count(const void *msg, size_t len, uint32_t num);

/* Value conversions matching the encoder's types. */
static inline int64_t pb_field_int64(const struct pb_field *f)
{
	return (int64_t)f->val;
}

/* int32 fields are sign-extended on the wire; the low 32 bits are the
 * value. */
static inline int32_t pb_field_int32(const struct pb_field *f)
{
	return (int32_t)(uint32_t)f->val;
}

static inline int64_t pb_unzigzag64(uint64_t v)
{
	return (int64_t)(v >> 1) ^ -(int64_t)(v & 1);
}

static inline int64_t pb_field_sint64(const struct pb_field *f)
{
	return pb_unzigzag64(f->val);
}

static inline double pb_field_double(const struct pb_field *f)
{
	double d;

	memcpy(&d, &f->val, sizeof(d));
	return d;
}

#ifdef __cplusplus
}
#endif

#endif /* LOCKTRACE_PBREAD_H */
