/* Bounds-checked protobuf field reader (see pbread.h). */
#include "pbread.h"

#include <errno.h>

void pb_reader_init(struct pb_reader *r, const void *data, size_t len)
{
	r->start = data;
	r->p = data;
	/* An empty message may come with a NULL pointer; avoid NULL + 0. */
	r->end = len ? r->start + len : r->start;
	r->err = 0;
}

void pb_reader_init_sub(struct pb_reader *r, const struct pb_field *f)
{
	if (f->wire == PB_WT_LEN) {
		pb_reader_init(r, f->data, f->len);
		return;
	}
	pb_reader_init(r, NULL, 0);
	r->err = -EBADMSG;
}

int pb_read_varint(const uint8_t **pp, const uint8_t *end, uint64_t *out)
{
	const uint8_t *p = *pp;
	uint64_t v = 0;

	for (unsigned i = 0; i < PB_VARINT_MAX; i++) {
		if (p >= end)
			return -EBADMSG;
		uint8_t c = *p++;
		/* The 10th byte carries only bit 63: anything more would be an
		 * 11th byte or a value above 2^64-1. */
		if (i == PB_VARINT_MAX - 1 && c > 1)
			return -EBADMSG;
		v |= (uint64_t)(c & 0x7f) << (7 * i);
		if (!(c & 0x80)) {
			*out = v;
			*pp = p;
			return 0;
		}
	}
	return -EBADMSG;	/* not reached: the 10th byte check ends it */
}

static uint64_t load_le(const uint8_t *p, unsigned n)
{
	uint64_t v = 0;

	for (unsigned i = 0; i < n; i++)
		v |= (uint64_t)p[i] << (8 * i);
	return v;
}

/* Decode the value part of a field of wire type f->wire at *pp. */
static int read_value(const uint8_t **pp, const uint8_t *end,
		      struct pb_field *f)
{
	const uint8_t *p = *pp;
	size_t avail = (size_t)(end - p);

	f->data = NULL;
	f->len = 0;
	switch (f->wire) {
	case PB_WT_VARINT:
		return pb_read_varint(pp, end, &f->val);
	case PB_WT_I64:
		if (avail < 8)
			return -EBADMSG;
		f->val = load_le(p, 8);
		*pp = p + 8;
		return 0;
	case PB_WT_I32:
		if (avail < 4)
			return -EBADMSG;
		f->val = load_le(p, 4);
		*pp = p + 4;
		return 0;
	case PB_WT_LEN:
		if (pb_read_varint(&p, end, &f->val))
			return -EBADMSG;
		if (f->val > (uint64_t)(end - p))
			return -EBADMSG;
		f->data = p;
		f->len = (size_t)f->val;
		*pp = p + f->len;
		return 0;
	default:	/* 3, 4: groups (unsupported, unused); 6, 7: invalid */
		return -EBADMSG;
	}
}

int pb_read_field(struct pb_reader *r, struct pb_field *f)
{
	const uint8_t *p = r->p;
	uint64_t tag;

	if (r->err)
		return r->err;
	if (p == r->end)
		return 0;

	if (pb_read_varint(&p, r->end, &tag) || tag >> 3 == 0 ||
	    tag >> 3 > PB_MAX_FIELD)
		goto bad;
	f->num = (uint32_t)(tag >> 3);
	f->wire = (uint8_t)(tag & 7);
	if (read_value(&p, r->end, f))
		goto bad;
	r->p = p;
	return 1;
bad:
	r->err = -EBADMSG;
	return r->err;
}

int pb_find_first(const void *msg, size_t len, uint32_t num,
		  struct pb_field *out)
{
	struct pb_reader r;
	struct pb_field f;
	int rc;

	pb_reader_init(&r, msg, len);
	while ((rc = pb_read_field(&r, &f)) > 0) {
		if (f.num == num) {
			*out = f;
			return 1;
		}
	}
	return rc;
}

int pb_find_last(const void *msg, size_t len, uint32_t num,
		 struct pb_field *out)
{
	struct pb_reader r;
	struct pb_field f;
	int rc, found = 0;

	pb_reader_init(&r, msg, len);
	while ((rc = pb_read_field(&r, &f)) > 0) {
		if (f.num == num) {
			*out = f;
			found = 1;
		}
	}
	return rc < 0 ? rc : found;
}

long pb_count(const void *msg, size_t len, uint32_t num)
{
	struct pb_reader r;
	struct pb_field f;
	long n = 0;
	int rc;

	pb_reader_init(&r, msg, len);
	while ((rc = pb_read_field(&r, &f)) > 0)
		n += f.num == num;
	return rc < 0 ? rc : n;
}
