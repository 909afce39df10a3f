/* Tests for the protobuf encoder (pb.h) and reader (pbread.h). */
#include <criterion/criterion.h>

#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#include "pb.h"
#include "pbread.h"

/* ---- helpers ------------------------------------------------------------ */

static void hex(char *out, size_t cap, const uint8_t *p, size_t n)
{
	size_t o = 0;

	out[0] = '\0';
	for (size_t i = 0; i < n && o + 4 < cap; i++)
		o += (size_t)snprintf(out + o, cap - o, "%02x ", p[i]);
	if (n && o + 4 >= cap)
		snprintf(out + cap - 5, 5, "...");
}

static void expect_bytes(const struct pb_buf *b, const uint8_t *exp,
			 size_t n, const char *what)
{
	char got[256], want[256];

	hex(got, sizeof(got), pb_buf_data(b), pb_buf_len(b));
	hex(want, sizeof(want), exp, n);
	cr_assert_eq(pb_buf_error(b), 0, "%s: error %d", what,
		     pb_buf_error(b));
	cr_assert(pb_buf_len(b) == n && memcmp(pb_buf_data(b), exp, n) == 0,
		  "%s:\n  got  %s\n  want %s", what, got, want);
}

#define EXPECT(b, what, ...)                                                \
	expect_bytes((b), (const uint8_t[]){__VA_ARGS__},                  \
		     sizeof((const uint8_t[]){__VA_ARGS__}), (what))

/* Encode one field into a fresh buffer and compare. */
#define ENCODES_TO(call, ...)                                               \
	do {                                                                \
		struct pb_buf b_;                                           \
		pb_buf_init(&b_);                                           \
		struct pb_buf *b = &b_;                                     \
		call;                                                       \
		EXPECT(b, #call, __VA_ARGS__);                              \
		pb_buf_free(&b_);                                           \
	} while (0)

/* The padded 4-byte length pb_end() writes. */
static void padded_len(uint8_t out[4], uint32_t n)
{
	out[0] = (uint8_t)(n | 0x80);
	out[1] = (uint8_t)(n >> 7 | 0x80);
	out[2] = (uint8_t)(n >> 14 | 0x80);
	out[3] = (uint8_t)(n >> 21);
}

/* xorshift64*: deterministic, so failures reproduce. */
static uint64_t rng_state;

static uint64_t rng(void)
{
	rng_state ^= rng_state >> 12;
	rng_state ^= rng_state << 25;
	rng_state ^= rng_state >> 27;
	return rng_state * UINT64_C(2685821657736338717);
}

static uint64_t rng_below(uint64_t n)
{
	return n ? rng() % n : 0;
}

/* Values spread over all varint lengths, not just the 10-byte ones. */
static uint64_t rng_varied(void)
{
	return rng() >> rng_below(64);
}

/* ---- known encodings: scalars ------------------------------------------ */

Test(pb_encode, varint_known_bytes)
{
	ENCODES_TO(pb_uint64(b, 1, 0), 0x08, 0x00);
	ENCODES_TO(pb_uint64(b, 1, 1), 0x08, 0x01);
	ENCODES_TO(pb_uint64(b, 1, 127), 0x08, 0x7f);
	ENCODES_TO(pb_uint64(b, 1, 128), 0x08, 0x80, 0x01);
	ENCODES_TO(pb_uint64(b, 1, 300), 0x08, 0xac, 0x02);
	ENCODES_TO(pb_uint64(b, 1, UINT64_C(1) << 63), 0x08, 0x80, 0x80,
		   0x80, 0x80, 0x80, 0x80, 0x80, 0x80, 0x80, 0x01);
	ENCODES_TO(pb_uint64(b, 1, UINT64_MAX), 0x08, 0xff, 0xff, 0xff, 0xff,
		   0xff, 0xff, 0xff, 0xff, 0xff, 0x01);
	ENCODES_TO(pb_uint32(b, 2, UINT32_MAX), 0x10, 0xff, 0xff, 0xff, 0xff,
		   0x0f);
	ENCODES_TO(pb_bool(b, 3, true), 0x18, 0x01);
	ENCODES_TO(pb_bool(b, 3, false), 0x18, 0x00);
}

Test(pb_encode, tags_of_large_field_numbers)
{
	ENCODES_TO(pb_uint64(b, 15, 1), 0x78, 0x01);
	ENCODES_TO(pb_uint64(b, 16, 1), 0x80, 0x01, 0x01);
	/* TracePacket.first_packet_on_sequence = 87 */
	ENCODES_TO(pb_bool(b, 87, true), 0xb8, 0x05, 0x01);
	ENCODES_TO(pb_bytes(b, PB_MAX_FIELD, "", 0), 0xfa, 0xff, 0xff, 0xff,
		   0x0f, 0x00);
}

Test(pb_encode, negative_ints_are_ten_bytes)
{
	ENCODES_TO(pb_int32(b, 1, -1), 0x08, 0xff, 0xff, 0xff, 0xff, 0xff,
		   0xff, 0xff, 0xff, 0xff, 0x01);
	ENCODES_TO(pb_int64(b, 1, -1), 0x08, 0xff, 0xff, 0xff, 0xff, 0xff,
		   0xff, 0xff, 0xff, 0xff, 0x01);
	ENCODES_TO(pb_int64(b, 1, -2), 0x08, 0xfe, 0xff, 0xff, 0xff, 0xff,
		   0xff, 0xff, 0xff, 0xff, 0x01);
	ENCODES_TO(pb_int32(b, 1, INT32_MIN), 0x08, 0x80, 0x80, 0x80, 0x80,
		   0xf8, 0xff, 0xff, 0xff, 0xff, 0x01);
	ENCODES_TO(pb_int64(b, 1, INT64_MIN), 0x08, 0x80, 0x80, 0x80, 0x80,
		   0x80, 0x80, 0x80, 0x80, 0x80, 0x01);
	ENCODES_TO(pb_int32(b, 1, 150), 0x08, 0x96, 0x01);
	ENCODES_TO(pb_int32(b, 1, INT32_MAX), 0x08, 0xff, 0xff, 0xff, 0xff,
		   0x07);
}

Test(pb_encode, zigzag)
{
	ENCODES_TO(pb_sint64(b, 1, 0), 0x08, 0x00);
	ENCODES_TO(pb_sint64(b, 1, -1), 0x08, 0x01);
	ENCODES_TO(pb_sint64(b, 1, 1), 0x08, 0x02);
	ENCODES_TO(pb_sint64(b, 1, -2), 0x08, 0x03);
	ENCODES_TO(pb_sint32(b, 1, -64), 0x08, 0x7f);
	ENCODES_TO(pb_sint32(b, 1, INT32_MIN), 0x08, 0xff, 0xff, 0xff, 0xff,
		   0x0f);
	ENCODES_TO(pb_sint64(b, 1, INT64_MAX), 0x08, 0xfe, 0xff, 0xff, 0xff,
		   0xff, 0xff, 0xff, 0xff, 0xff, 0x01);
	ENCODES_TO(pb_sint64(b, 1, INT64_MIN), 0x08, 0xff, 0xff, 0xff, 0xff,
		   0xff, 0xff, 0xff, 0xff, 0xff, 0x01);
	cr_assert_eq(pb_unzigzag64(pb_zigzag64(INT64_MIN)), INT64_MIN);
	cr_assert_eq(pb_unzigzag64(pb_zigzag64(-12345)), -12345);
}

Test(pb_encode, fixed_and_double)
{
	/* TrackEvent.flow_ids = 47: tag (47 << 3 | 1) = 377. */
	ENCODES_TO(pb_fixed64(b, 47, UINT64_C(0x0102030405060708)), 0xf9,
		   0x02, 0x08, 0x07, 0x06, 0x05, 0x04, 0x03, 0x02, 0x01);
	ENCODES_TO(pb_fixed64(b, 1, UINT64_MAX), 0x09, 0xff, 0xff, 0xff, 0xff,
		   0xff, 0xff, 0xff, 0xff);
	ENCODES_TO(pb_fixed32(b, 1, 0x01020304), 0x0d, 0x04, 0x03, 0x02,
		   0x01);
	ENCODES_TO(pb_double(b, 1, 1.0), 0x09, 0x00, 0x00, 0x00, 0x00, 0x00,
		   0x00, 0xf0, 0x3f);
	ENCODES_TO(pb_double(b, 5, -2.5), 0x29, 0x00, 0x00, 0x00, 0x00, 0x00,
		   0x00, 0x04, 0xc0);
}

Test(pb_encode, strings_and_bytes)
{
	ENCODES_TO(pb_string(b, 2, "hi"), 0x12, 0x02, 'h', 'i');
	ENCODES_TO(pb_string(b, 2, ""), 0x12, 0x00);
	ENCODES_TO(pb_bytes(b, 2, NULL, 0), 0x12, 0x00);
	ENCODES_TO(pb_bytes(b, 1, "\0\xff", 2), 0x0a, 0x02, 0x00, 0xff);

	/* A 300-byte string: 2-byte length, then the bytes verbatim. */
	struct pb_buf b;
	char s[301];

	memset(s, 'a', 300);
	s[300] = '\0';
	pb_buf_init(&b);
	pb_string(&b, 23, s);
	cr_assert_eq(pb_buf_len(&b), 2 + 2 + 300);
	cr_assert_eq(memcmp(pb_buf_data(&b), "\xba\x01\xac\x02", 4), 0);
	cr_assert_eq(memcmp(pb_buf_data(&b) + 4, s, 300), 0);
	pb_buf_free(&b);
}

Test(pb_encode, raw_and_packed)
{
	ENCODES_TO(pb_raw(b, "\x08\x01", 2), 0x08, 0x01);
	ENCODES_TO(({
			   pb_raw(b, NULL, 0);
			   pb_uint64(b, 1, 1);
		   }),
		   0x08, 0x01);
	/* packed repeated uint64 {1, 300} as field 3 */
	ENCODES_TO(({
			   pb_tok t = pb_begin(b, 3);
			   pb_raw_varint(b, 1);
			   pb_raw_varint(b, 300);
			   pb_end(b, t);
		   }),
		   0x1a, 0x83, 0x80, 0x80, 0x00, 0x01, 0xac, 0x02);
}

/* ---- nested messages ------------------------------------------------------ */

Test(pb_nested, small_and_empty)
{
	ENCODES_TO(({
			   pb_tok t = pb_begin(b, 1);
			   pb_end(b, t);
		   }),
		   0x0a, 0x80, 0x80, 0x80, 0x00);
	ENCODES_TO(({
			   pb_tok t = pb_begin(b, 3);
			   pb_uint64(b, 1, 150);
			   pb_end(b, t);
		   }),
		   0x1a, 0x83, 0x80, 0x80, 0x00, 0x08, 0x96, 0x01);
}

Test(pb_nested, nested_inside_nested)
{
	ENCODES_TO(({
			   pb_tok a = pb_begin(b, 1);
			   pb_uint64(b, 1, 1);
			   pb_tok c = pb_begin(b, 2);
			   pb_tok d = pb_begin(b, 3);
			   pb_string(b, 1, "x");
			   pb_end(b, d);
			   pb_end(b, c);
			   pb_uint64(b, 4, 2);
			   pb_end(b, a);
		   }),
		   /* a: 2 + (5 + (5 + 3)) + 2 = 17 */
		   0x0a, 0x91, 0x80, 0x80, 0x00,
		   0x08, 0x01,
		   0x12, 0x88, 0x80, 0x80, 0x00,
		   0x1a, 0x83, 0x80, 0x80, 0x00,
		   0x0a, 0x01, 'x',
		   0x20, 0x02);
}

/* The typical hot-path packet: TracePacket{timestamp, sequence id,
 * TrackEvent{type, track_uuid, name_iid, flow_id}}. */
static void typical_packet(struct pb_buf *b, uint64_t ts, uint64_t flow)
{
	pb_tok pk = pb_packet_begin(b);
	pb_uint64(b, 8, ts);
	pb_uint32(b, 10, 1);
	pb_tok te = pb_begin(b, 11);
	pb_uint64(b, 9, 1);
	pb_uint64(b, 11, 1234);
	pb_uint64(b, 10, 2);
	pb_fixed64(b, 47, flow);
	pb_end(b, te);
	pb_packet_end(b, pk);
}

Test(pb_nested, typical_track_event_packet)
{
	ENCODES_TO(typical_packet(b, 1000, 7),
		   0x0a, 0x9b, 0x80, 0x80, 0x00,
		   0x40, 0xe8, 0x07,
		   0x50, 0x01,
		   0x5a, 0x91, 0x80, 0x80, 0x00,
		   0x48, 0x01,
		   0x58, 0xd2, 0x09,
		   0x50, 0x02,
		   0xf9, 0x02, 0x07, 0, 0, 0, 0, 0, 0, 0);
}

/* Encode outer{inner{payload of n bytes}} and check both lengths, the
 * bytes, and that the reader finds the payload intact. */
static void check_nested_size(uint32_t n)
{
	struct pb_buf b;
	uint8_t *payload = malloc(n ? n : 1);
	uint8_t want[4];

	cr_assert_not_null(payload);
	for (uint32_t i = 0; i < n; i++)
		payload[i] = (uint8_t)(i * 7 + 1);

	pb_buf_init(&b);
	pb_tok outer = pb_begin(&b, 1);
	pb_tok inner = pb_begin(&b, 2);
	pb_raw(&b, payload, n);
	cr_assert_eq(pb_end(&b, inner), 0);
	cr_assert_eq(pb_end(&b, outer), 0);
	cr_assert_eq(b.depth, 0);

	const uint8_t *d = pb_buf_data(&b);
	cr_assert_eq(pb_buf_len(&b), 10 + (size_t)n, "n=%u", n);
	cr_assert_eq(d[0], 0x0a);
	padded_len(want, n + 5);
	cr_assert_eq(memcmp(d + 1, want, 4), 0, "outer length, n=%u", n);
	cr_assert_eq(d[5], 0x12);
	padded_len(want, n);
	cr_assert_eq(memcmp(d + 6, want, 4), 0, "inner length, n=%u", n);

	struct pb_field f, g;
	cr_assert_eq(pb_find_first(d, pb_buf_len(&b), 1, &f), 1);
	cr_assert_eq(f.len, (size_t)n + 5);
	cr_assert_eq(pb_find_first(f.data, f.len, 2, &g), 1);
	cr_assert_eq(g.wire, PB_WT_LEN);
	cr_assert_eq(g.len, n);
	cr_assert_eq(memcmp(g.data, payload, n), 0);
	pb_buf_free(&b);
	free(payload);
}

Test(pb_nested, length_boundaries)
{
	static const uint32_t sizes[] = {
		0, 1, 126, 127, 128, 129, 300, 16382, 16383, 16384, 16385,
		(1u << 21) - 1, 1u << 21, (1u << 21) + 1,
	};

	for (size_t i = 0; i < sizeof(sizes) / sizeof(sizes[0]); i++)
		check_nested_size(sizes[i]);
}

/* Beyond 2^28-1 the 4 reserved bytes cannot hold the length: pb_end() moves
 * the payload to make room for a 5-byte varint (outer and inner both). */
Test(pb_nested, length_beyond_padding, .timeout = 60)
{
	const size_t n = (size_t)PB_LEN_PAD_MAX + 1;	/* 2^28 */
	struct pb_buf b;

	pb_buf_init(&b);
	pb_tok outer = pb_begin(&b, 1);
	pb_uint64(&b, 1, 42);
	pb_tok inner = pb_begin(&b, 2);
	cr_assert_eq(pb_buf_reserve(&b, n), 0);
	uint8_t *p = (uint8_t *)pb_buf_data(&b) + pb_buf_len(&b);
	memset(p, 0x5a, n);
	p[0] = 0x11;
	p[n - 1] = 0x22;
	b.p += n;	/* filled in place: a 256 MiB pb_raw copy is slow */
	cr_assert_eq(pb_end(&b, inner), 0);
	pb_uint64(&b, 3, 7);
	cr_assert_eq(pb_end(&b, outer), 0);

	const uint8_t *d = pb_buf_data(&b);
	size_t inner_total = 1 + 5 + n;
	size_t outer_payload = 2 + inner_total + 2;
	cr_assert_eq(pb_buf_len(&b), 1 + 5 + outer_payload);

	struct pb_reader r;
	struct pb_field f;
	pb_reader_init(&r, d, pb_buf_len(&b));
	cr_assert_eq(pb_read_field(&r, &f), 1);
	cr_assert_eq(f.num, 1);
	cr_assert_eq(f.len, outer_payload);
	cr_assert_eq(pb_read_field(&r, &f), 0);

	struct pb_reader s;
	pb_reader_init(&s, d + 6, outer_payload);
	cr_assert_eq(pb_read_field(&s, &f), 1);
	cr_assert(f.num == 1 && f.val == 42);
	cr_assert_eq(pb_read_field(&s, &f), 1);
	cr_assert(f.num == 2 && f.len == n);
	cr_assert(f.data[0] == 0x11 && f.data[n - 1] == 0x22 &&
		  f.data[1] == 0x5a);
	/* 2^28 as a minimal 5-byte varint */
	cr_assert_eq(memcmp(f.data - 5, "\x80\x80\x80\x80\x01", 5), 0);
	cr_assert_eq(pb_read_field(&s, &f), 1);
	cr_assert(f.num == 3 && f.val == 7);
	cr_assert_eq(pb_read_field(&s, &f), 0);
	pb_buf_free(&b);
}

/* ---- errors ------------------------------------------------------------- */

static int count_sink(void *ctx, const uint8_t *data, size_t len)
{
	(*(size_t *)ctx)++;
	return 0;
}

Test(pb_errors, limit_makes_errors_sticky)
{
	struct pb_buf b;
	size_t calls = 0;
	char big[200] = {0};

	pb_buf_init(&b);
	pb_buf_set_limit(&b, 100);
	pb_buf_set_sink(&b, count_sink, &calls, 0);
	pb_tok pk = pb_packet_begin(&b);
	pb_uint64(&b, 1, 5);
	size_t before = pb_buf_len(&b);
	pb_bytes(&b, 2, big, sizeof(big));
	cr_assert_eq(pb_buf_error(&b), -ENOBUFS);
	cr_assert_eq(pb_buf_len(&b), before);

	/* Everything after the error is a no-op that reports it. */
	pb_uint64(&b, 3, 1);
	pb_fixed64(&b, 4, 1);
	pb_raw(&b, "x", 1);
	cr_assert_eq(pb_buf_len(&b), before);
	cr_assert_eq(pb_begin(&b, 5), PB_TOK_NONE);
	cr_assert_eq(pb_end(&b, PB_TOK_NONE), -ENOBUFS);
	cr_assert_eq(pb_packet_end(&b, pk), -ENOBUFS);
	cr_assert_eq(pb_flush(&b), -ENOBUFS);
	cr_assert_eq(calls, 0, "nothing reaches the sink after an error");

	/* Reset clears the error; the limit still applies. */
	pb_buf_reset(&b);
	cr_assert_eq(pb_buf_error(&b), 0);
	cr_assert_eq(pb_buf_len(&b), 0);
	pk = pb_packet_begin(&b);
	pb_uint64(&b, 1, 5);
	cr_assert_eq(pb_packet_end(&b, pk), 0);
	cr_assert_eq(calls, 1);
	pb_bytes(&b, 2, big, sizeof(big));
	cr_assert_eq(pb_buf_error(&b), -ENOBUFS);
	pb_buf_free(&b);
}

Test(pb_errors, huge_lengths_fail_cleanly)
{
	struct pb_buf b;

	pb_buf_init(&b);
	pb_uint64(&b, 1, 1);
	/* Never dereferenced: the size check fails first. */
	pb_bytes(&b, 2, "", SIZE_MAX - 3);
	cr_assert_eq(pb_buf_error(&b), -ENOMEM);
	cr_assert_eq(pb_buf_len(&b), 2);
	pb_buf_reset(&b);
	pb_raw(&b, "", SIZE_MAX);
	cr_assert_eq(pb_buf_error(&b), -ENOMEM);
	pb_buf_free(&b);
}

Test(pb_errors, misuse_is_reported)
{
	struct pb_buf b;
	size_t calls = 0;

	pb_buf_init(&b);
	pb_uint64(&b, 1, 1);
	cr_assert_eq(pb_end(&b, 12345), -EINVAL, "token past the end");
	pb_buf_reset(&b);

	cr_assert_eq(pb_flush(&b), -EINVAL, "flush without a sink");
	pb_buf_reset(&b);

	pb_buf_set_sink(&b, count_sink, &calls, 1 << 20);
	pb_tok t = pb_begin(&b, 1);
	cr_assert_eq(pb_flush(&b), -EINVAL, "flush with a message open");
	(void)t;
	cr_assert_eq(calls, 0);
	pb_buf_free(&b);
}

static int failing_sink(void *ctx, const uint8_t *data, size_t len)
{
	return -EIO;
}

Test(pb_errors, sink_failure)
{
	struct pb_buf b;

	pb_buf_init(&b);
	pb_buf_set_sink(&b, failing_sink, NULL, 0);
	typical_packet(&b, 1, 2);
	cr_assert_eq(pb_buf_error(&b), -EIO);
	pb_tok pk = pb_packet_begin(&b);
	cr_assert_eq(pb_packet_end(&b, pk), -EIO);
	pb_buf_free(&b);
}

/* ---- streaming ------------------------------------------------------------ */

struct mem_sink {
	uint8_t *data;
	size_t len, calls;
};

static int mem_sink(void *ctx, const uint8_t *data, size_t len)
{
	struct mem_sink *m = ctx;
	uint8_t *nd = realloc(m->data, m->len + len);

	if (!nd)
		return -ENOMEM;
	memcpy(nd + m->len, data, len);
	m->data = nd;
	m->len += len;
	m->calls++;
	return 0;
}

/* A stream of typical packets must read back as a Trace: only field 1,
 * each a TracePacket whose fields match what was written. */
static void check_trace(const uint8_t *d, size_t len, unsigned npackets)
{
	struct pb_reader r;
	struct pb_field f, g;
	unsigned i = 0;
	int rc;

	pb_reader_init(&r, d, len);
	while ((rc = pb_read_field(&r, &f)) > 0) {
		cr_assert(f.num == 1 && f.wire == PB_WT_LEN);
		cr_assert_eq(pb_find_first(f.data, f.len, 8, &g), 1);
		cr_assert_eq(g.val, 1000 + i);
		cr_assert_eq(pb_find_first(f.data, f.len, 11, &g), 1);
		struct pb_field h;
		cr_assert_eq(pb_find_first(g.data, g.len, 47, &h), 1);
		cr_assert(h.wire == PB_WT_I64 && h.val == i);
		i++;
	}
	cr_assert_eq(rc, 0);
	cr_assert_eq(i, npackets);
}

/* B streams into M, flushing at THRESHOLD bytes. */
static void mem_stream(struct pb_buf *b, struct mem_sink *m, size_t threshold)
{
	memset(m, 0, sizeof(*m));
	pb_buf_init(b);
	pb_buf_set_sink(b, mem_sink, m, threshold);
}

static void mem_stream_free(struct pb_buf *b, struct mem_sink *m)
{
	pb_buf_free(b);
	free(m->data);
}

/* N typical packets into B, which holds at most MOST bytes after each. */
static void write_packets(struct pb_buf *b, unsigned n, size_t most)
{
	for (unsigned i = 0; i < n; i++) {
		typical_packet(b, 1000 + i, i);
		cr_assert_leq(pb_buf_len(b), most, "after packet %u", i);
	}
}

Test(pb_stream, flushes_batches)
{
	struct pb_buf b;
	struct mem_sink m;

	mem_stream(&b, &m, 4096);
	write_packets(&b, 1000, 4096 + 63);
	cr_assert_eq(pb_flush(&b), 0);
	cr_assert_eq(pb_buf_len(&b), 0);
	cr_assert_eq(m.len, 1000 * 32);
	cr_assert(m.calls > 1 && m.calls < 20, "calls=%zu", m.calls);
	check_trace(m.data, m.len, 1000);
	mem_stream_free(&b, &m);
}

Test(pb_stream, flush_every_packet)
{
	struct pb_buf b;
	struct mem_sink m;

	mem_stream(&b, &m, 0);
	write_packets(&b, 10, 0);
	cr_assert_eq(m.calls, 10);
	check_trace(m.data, m.len, 10);
	mem_stream_free(&b, &m);
}

Test(pb_stream, file_sink)
{
	struct pb_buf b;
	FILE *f = tmpfile();

	cr_assert_not_null(f);
	pb_buf_init(&b);
	pb_buf_set_sink(&b, pb_sink_file, f, 1000);
	for (unsigned i = 0; i < 100; i++)
		typical_packet(&b, 1000 + i, i);
	cr_assert_eq(pb_flush(&b), 0);
	cr_assert_eq(fflush(f), 0);

	long size = ftell(f);
	cr_assert_eq(size, 100 * 32);
	uint8_t *d = malloc((size_t)size);
	rewind(f);
	cr_assert_eq(fread(d, 1, (size_t)size, f), (size_t)size);
	check_trace(d, (size_t)size, 100);
	fclose(f);
	free(d);
	pb_buf_free(&b);
}

/* ---- reader: malformed input ---------------------------------------------- */

struct bad_case {
	const char *what;
	const char *bytes;
	size_t len;
};

#define BAD(w, s) { w, s, sizeof(s) - 1 }

Test(pb_read, rejects_malformed)
{
	static const struct bad_case cases[] = {
		BAD("tag without value", "\x08"),
		BAD("truncated varint value", "\x08\x80"),
		BAD("truncated tag", "\x80"),
		BAD("length past end", "\x0a\x05" "ab"),
		BAD("truncated length", "\x0a\x80"),
		BAD("length 2^63", "\x0a\x80\x80\x80\x80\x80\x80\x80\x80\x80\x01"),
		BAD("truncated fixed64", "\x09\x01\x02\x03\x04\x05\x06\x07"),
		BAD("truncated fixed32", "\x0d\x01\x02\x03"),
		BAD("wire type 3", "\x0b\x08\x01\x0c"),
		BAD("wire type 4", "\x0c"),
		BAD("wire type 6", "\x0e\x00"),
		BAD("wire type 7", "\x0f\x00"),
		BAD("field 0", "\x00\x00"),
		BAD("field 0, len", "\x02\x00"),
		BAD("11-byte varint",
		    "\x08\xff\xff\xff\xff\xff\xff\xff\xff\xff\xff\x01"),
		BAD("varint above 2^64-1",
		    "\x08\xff\xff\xff\xff\xff\xff\xff\xff\xff\x02"),
		BAD("field number 2^29", "\x80\x80\x80\x80\x10\x00"),
		BAD("tag above 2^32", "\x80\x80\x80\x80\x80\x01\x00"),
		BAD("good field then garbage", "\x08\x01\x0f"),
	};

	for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		const struct bad_case *c = &cases[i];
		/* Exact-size copy so that any over-read is caught by ASan or
		 * valgrind. */
		uint8_t *buf = malloc(c->len);
		struct pb_reader r;
		struct pb_field f;
		int rc;

		memcpy(buf, c->bytes, c->len);
		pb_reader_init(&r, buf, c->len);
		while ((rc = pb_read_field(&r, &f)) > 0)
			;
		cr_assert_eq(rc, -EBADMSG, "%s: rc=%d", c->what, rc);
		cr_assert_eq(pb_read_field(&r, &f), -EBADMSG,
			     "%s: error is sticky", c->what);
		cr_assert_eq(pb_count(buf, c->len, 1), -EBADMSG, "%s",
			     c->what);
		free(buf);
	}
}

Test(pb_read, accepts_valid_edge_cases)
{
	struct pb_field f;

	/* Padded varints, as pb_end() writes them. */
	cr_assert_eq(pb_find_first("\x08\x81\x80\x80\x00", 5, 1, &f), 1);
	cr_assert_eq(f.val, 1);
	cr_assert_eq(pb_find_first("\x08\x80\x80\x80\x80\x80\x80\x80\x80\x00",
				   10, 1, &f), 1);
	cr_assert_eq(f.val, 0);
	cr_assert_eq(pb_find_first(
			     "\x08\xff\xff\xff\xff\xff\xff\xff\xff\xff\x01",
			     11, 1, &f), 1);
	cr_assert_eq(f.val, UINT64_MAX);
	/* Largest field number, fixed32, empty message. */
	cr_assert_eq(pb_find_first("\xfd\xff\xff\xff\x0f\x01\x02\x03\x04", 9,
				   PB_MAX_FIELD, &f), 1);
	cr_assert(f.wire == PB_WT_I32 && f.val == 0x04030201);
	cr_assert_eq(pb_find_first(NULL, 0, 1, &f), 0);
	cr_assert_eq(pb_count("\x08\x01\x08\x02\x10\x03", 6, 1), 2);
	cr_assert_eq(pb_find_last("\x08\x01\x08\x02\x10\x03", 6, 1, &f), 1);
	cr_assert_eq(f.val, 2);

	struct pb_reader r;
	f.wire = PB_WT_VARINT;
	pb_reader_init_sub(&r, &f);
	cr_assert_eq(pb_read_field(&r, &f), -EBADMSG, "sub of a non-LEN");
}

/* ---- random round trips ---------------------------------------------------- */

enum kind {
	K_U64, K_I64, K_I32, K_S64, K_S32, K_BOOL, K_F64, K_F32, K_DBL,
	K_BYTES, K_MSG, K_NKINDS,
};

struct mmsg;

struct mfield {
	enum kind kind;
	uint32_t num;
	uint64_t u;		/* scalar value, as its wire bits */
	uint8_t *bytes;
	size_t len;
	struct mmsg *sub;
};

struct mmsg {
	size_t n;
	struct mfield *f;
};

struct gen_opts {
	unsigned max_fields, max_depth;
	size_t max_bytes;
};

static struct mmsg *gen_msg(const struct gen_opts *o, unsigned depth)
{
	struct mmsg *m = calloc(1, sizeof(*m));

	m->n = rng_below(o->max_fields + 1);
	m->f = calloc(m->n ? m->n : 1, sizeof(*m->f));
	for (size_t i = 0; i < m->n; i++) {
		struct mfield *f = &m->f[i];

		f->kind = (enum kind)rng_below(depth < o->max_depth ?
						       K_NKINDS : K_MSG);
		f->num = rng_below(8) ? 1 + rng_below(100)
				      : 1 + rng_below(PB_MAX_FIELD);
		f->u = rng_varied();
		switch (f->kind) {
		case K_I32:
		case K_S32:
			f->u = (uint64_t)(int64_t)(int32_t)f->u;
			break;
		case K_BOOL:
			f->u &= 1;
			break;
		case K_F32:
			f->u = (uint32_t)f->u;
			break;
		case K_BYTES:
			f->len = rng_below(8) ? rng_below(40)
					      : rng_below(o->max_bytes + 1);
			f->bytes = malloc(f->len ? f->len : 1);
			for (size_t j = 0; j < f->len; j++)
				f->bytes[j] = (uint8_t)rng();
			break;
		case K_MSG:
			f->sub = gen_msg(o, depth + 1);
			break;
		default:
			break;
		}
	}
	return m;
}

static void free_msg(struct mmsg *m)
{
	for (size_t i = 0; i < m->n; i++) {
		free(m->f[i].bytes);
		if (m->f[i].sub)
			free_msg(m->f[i].sub);
	}
	free(m->f);
	free(m);
}

static void encode_field(struct pb_buf *b, const struct mfield *f);

static void encode_msg(struct pb_buf *b, const struct mmsg *m)
{
	for (size_t i = 0; i < m->n; i++)
		encode_field(b, &m->f[i]);
}

static void encode_field(struct pb_buf *b, const struct mfield *f)
{
	double d;

	switch (f->kind) {
	case K_U64: pb_uint64(b, f->num, f->u); break;
	case K_I64: pb_int64(b, f->num, (int64_t)f->u); break;
	case K_I32: pb_int32(b, f->num, (int32_t)f->u); break;
	case K_S64: pb_sint64(b, f->num, (int64_t)f->u); break;
	case K_S32: pb_sint32(b, f->num, (int32_t)f->u); break;
	case K_BOOL: pb_bool(b, f->num, f->u); break;
	case K_F64: pb_fixed64(b, f->num, f->u); break;
	case K_F32: pb_fixed32(b, f->num, (uint32_t)f->u); break;
	case K_DBL:
		memcpy(&d, &f->u, sizeof(d));
		pb_double(b, f->num, d);
		break;
	case K_BYTES: pb_bytes(b, f->num, f->bytes, f->len); break;
	case K_MSG: {
		pb_tok t = pb_begin(b, f->num);
		encode_msg(b, f->sub);
		pb_end(b, t);
		break;
	}
	default: cr_assert_fail("bad kind");
	}
}

static void check_msg(const uint8_t *d, size_t len, const struct mmsg *m);

static void check_field(const struct pb_field *g, const struct mfield *f)
{
	static const uint8_t wire[K_NKINDS] = {
		[K_U64] = PB_WT_VARINT, [K_I64] = PB_WT_VARINT,
		[K_I32] = PB_WT_VARINT, [K_S64] = PB_WT_VARINT,
		[K_S32] = PB_WT_VARINT, [K_BOOL] = PB_WT_VARINT,
		[K_F64] = PB_WT_I64, [K_F32] = PB_WT_I32, [K_DBL] = PB_WT_I64,
		[K_BYTES] = PB_WT_LEN, [K_MSG] = PB_WT_LEN,
	};

	cr_assert_eq(g->num, f->num);
	cr_assert_eq(g->wire, wire[f->kind], "kind %d", f->kind);
	switch (f->kind) {
	case K_I64:
	case K_I32:
		cr_assert_eq(pb_field_int64(g), (int64_t)f->u);
		cr_assert_eq(pb_field_int32(g), (int32_t)f->u);
		break;
	case K_S64:
	case K_S32:
		cr_assert_eq(pb_field_sint64(g), (int64_t)f->u);
		break;
	case K_DBL: {
		double want;
		memcpy(&want, &f->u, sizeof(want));
		double got = pb_field_double(g);
		cr_assert_eq(memcmp(&got, &want, sizeof(got)), 0);
		break;
	}
	case K_BYTES:
		cr_assert_eq(g->len, f->len);
		cr_assert(f->len == 0 || memcmp(g->data, f->bytes, f->len) == 0);
		break;
	case K_MSG:
		check_msg(g->data, g->len, f->sub);
		break;
	default:
		cr_assert_eq(g->val, f->u, "kind %d: %" PRIx64 " != %" PRIx64,
			     f->kind, g->val, f->u);
	}
}

static void check_msg(const uint8_t *d, size_t len, const struct mmsg *m)
{
	struct pb_reader r;
	struct pb_field g;

	pb_reader_init(&r, d, len);
	for (size_t i = 0; i < m->n; i++) {
		cr_assert_eq(pb_read_field(&r, &g), 1, "field %zu at %zu", i,
			     pb_reader_offset(&r));
		check_field(&g, &m->f[i]);
	}
	cr_assert_eq(pb_read_field(&r, &g), 0, "trailing data");
}

/* A random message (gen_msg) from the generator state STATE, and B emptied
 * for it. */
static struct mmsg *gen_seeded(const struct gen_opts *o, uint64_t state, struct pb_buf *b)
{
	rng_state = state;
	struct mmsg *m = gen_msg(o, 0);
	pb_buf_reset(b);
	return m;
}

/* The same, encoded into B. */
static struct mmsg *gen_encoded(const struct gen_opts *o, uint64_t state, struct pb_buf *b)
{
	struct mmsg *m = gen_seeded(o, state, b);
	encode_msg(b, m);
	return m;
}

Test(pb_roundtrip, random_messages, .timeout = 60)
{
	const struct gen_opts o = { .max_fields = 12, .max_depth = 4, .max_bytes = 20000 };
	struct pb_buf b;

	pb_buf_init(&b);
	for (uint64_t seed = 1; seed <= 2000; seed++) {
		struct mmsg *m = gen_encoded(&o, seed * UINT64_C(0x9e3779b97f4a7c15), &b);
		cr_assert_eq(pb_buf_error(&b), 0, "seed %" PRIu64, seed);
		cr_assert_eq(b.depth, 0);
		check_msg(pb_buf_data(&b), pb_buf_len(&b), m);
		free_msg(m);
	}
	pb_buf_free(&b);
}

/* Every prefix of a valid message parses as exactly the fields that end
 * within it, then reports a clean end (prefix ends on a field boundary) or
 * -EBADMSG (it cuts a field).  Each prefix sits in an exact-size heap
 * block, so an over-read shows under ASan or valgrind. */
Test(pb_roundtrip, every_truncation, .timeout = 120)
{
	const struct gen_opts o = { .max_fields = 12, .max_depth = 3, .max_bytes = 300 };
	struct pb_buf b;
	size_t bounds[64];

	pb_buf_init(&b);
	for (uint64_t seed = 1; seed <= 1000; seed++) {
		struct mmsg *m = gen_seeded(&o, seed * UINT64_C(0x2545f4914f6cdd1d), &b);
		bounds[0] = 0;
		for (size_t i = 0; i < m->n; i++) {
			encode_field(&b, &m->f[i]);
			bounds[i + 1] = pb_buf_len(&b);
		}
		cr_assert_eq(pb_buf_error(&b), 0);

		size_t len = pb_buf_len(&b);
		for (size_t k = 0; k <= len; k++) {
			uint8_t *buf = k ? malloc(k) : NULL;
			struct pb_reader r;
			struct pb_field g;
			size_t j = 0;
			int rc;

			if (k)
				memcpy(buf, pb_buf_data(&b), k);
			pb_reader_init(&r, buf, k);
			while ((rc = pb_read_field(&r, &g)) > 0) {
				cr_assert_lt(j, m->n);
				check_field(&g, &m->f[j]);
				j++;
			}
			cr_assert_leq(bounds[j], k);
			if (k == bounds[j])
				cr_assert_eq(rc, 0, "seed %" PRIu64 " k=%zu",
					     seed, k);
			else
				cr_assert(rc == -EBADMSG && k < bounds[j + 1],
					  "seed %" PRIu64 " k=%zu rc=%d", seed,
					  k, rc);
			free(buf);
		}
		free_msg(m);
	}
	pb_buf_free(&b);
}

/* Walk garbage as if every length-delimited field were a message: every
 * slice returned must lie inside the buffer. */
static void walk(const uint8_t *lo, const uint8_t *hi, const uint8_t *d,
		 size_t len, unsigned depth)
{
	struct pb_reader r;
	struct pb_field g;

	pb_reader_init(&r, d, len);
	while (pb_read_field(&r, &g) > 0) {
		cr_assert(g.num >= 1 && g.num <= PB_MAX_FIELD);
		if (g.wire != PB_WT_LEN)
			continue;
		cr_assert(g.data >= lo && g.len <= (size_t)(hi - g.data));
		if (depth < 8)
			walk(lo, hi, g.data, g.len, depth + 1);
	}
}

Test(pb_roundtrip, mutated_input_never_escapes, .timeout = 60)
{
	const struct gen_opts o = { .max_fields = 10, .max_depth = 4, .max_bytes = 200 };
	struct pb_buf b;

	pb_buf_init(&b);
	for (uint64_t seed = 1; seed <= 3000; seed++) {
		struct mmsg *m = gen_encoded(&o, seed * UINT64_C(0xd1342543de82ef95), &b);
		size_t len = pb_buf_len(&b);
		if (len) {
			uint8_t *buf = malloc(len);
			memcpy(buf, pb_buf_data(&b), len);
			for (unsigned i = 0, n = 1 + rng_below(4); i < n; i++)
				buf[rng_below(len)] = (uint8_t)rng();
			size_t cut = len - rng_below(len / 4 + 1);
			walk(buf, buf + cut, buf, cut, 0);
			free(buf);
		}
		free_msg(m);
	}
	pb_buf_free(&b);
}

/* ---- cross-check with protoc ---------------------------------------------- */

static bool have_protoc(void)
{
	return system("command -v protoc >/dev/null 2>&1") == 0;
}

Test(pb_protoc, decode_raw_accepts_our_trace)
{
	if (!have_protoc())
		cr_skip_test("protoc not installed (apt-get install "
			     "protobuf-compiler)");

	char path[] = "/tmp/pbtest-XXXXXX";
	int fd = mkstemp(path);
	cr_assert_geq(fd, 0);
	FILE *f = fdopen(fd, "wb");
	struct pb_buf b;
	static char big[20000];

	memset(big, 'q', sizeof(big) - 1);
	pb_buf_init(&b);
	pb_buf_set_sink(&b, pb_sink_file, f, 0);
	typical_packet(&b, 1000, 7);

	pb_tok pk = pb_packet_begin(&b);
	pb_uint64(&b, 8, 2000);
	pb_tok pd = pb_begin(&b, 3);	/* ProcessDescriptor-like */
	pb_int32(&b, 1, -5);
	pb_string(&b, 6, "locktrace");
	pb_end(&b, pd);
	pb_tok te = pb_begin(&b, 11);
	pb_tok da = pb_begin(&b, 4);	/* DebugAnnotation */
	pb_uint64(&b, 1, 3);
	pb_double(&b, 5, 0.5);
	pb_end(&b, da);
	pb_string(&b, 23, big);		/* > 16383: 3-byte length needed */
	pb_end(&b, te);
	cr_assert_eq(pb_packet_end(&b, pk), 0);
	cr_assert_eq(fclose(f), 0);

	char cmd[128], out[8192];
	snprintf(cmd, sizeof(cmd), "protoc --decode_raw < %s 2>&1", path);
	FILE *p = popen(cmd, "r");
	cr_assert_not_null(p);
	/* Drain everything: closing early would kill protoc with SIGPIPE. */
	size_t n = 0, got;
	char chunk[4096];
	while ((got = fread(chunk, 1, sizeof(chunk), p)) > 0) {
		size_t take = got < sizeof(out) - 1 - n ? got : sizeof(out) - 1 - n;
		memcpy(out + n, chunk, take);
		n += take;
	}
	out[n] = '\0';
	int st = pclose(p);
	unlink(path);
	cr_assert(WIFEXITED(st) && WEXITSTATUS(st) == 0,
		  "protoc rejected the trace: %s", out);

	static const char *const want[] = {
		("1 {\n  8: 1000\n  10: 1\n  11 {\n    9: 1\n    11: 1234\n"
		 "    10: 2\n    47: 0x0000000000000007\n  }\n}\n"),
		"  8: 2000\n",
		"    1: 18446744073709551611\n",	/* -5 as 10-byte varint */
		"    6: \"locktrace\"\n",
		"      5: 0x3fe0000000000000\n",
		"    23: \"qqqq",
	};
	for (size_t i = 0; i < sizeof(want) / sizeof(want[0]); i++)
		cr_assert_not_null(strstr(out, want[i]), "missing %s in:\n%.600s",
				   want[i], out);
	pb_buf_free(&b);
}
