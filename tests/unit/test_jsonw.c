/* Unit tests of the JSON writer (src/base/jsonw.h): nesting and
 * commas, the two layouts, escaping through utf8.c, numbers, raw values,
 * the optional members, and errors: a failed write and a misuse are
 * remembered and returned by jw_finish.  No root needed. */
#include <criterion/criterion.h>
#include <errno.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include "jsonw.h"
#include "report_int.h"
#include "utf8.h"

/* A writer on a memory stream; done() finishes it and returns the text. */
struct mem {
	struct jw w;
	FILE *f;
	char *buf;
	size_t len;
	int rc;
};

static struct jw *start(struct mem *m, enum jw_style style)
{
	memset(m, 0, sizeof(*m));
	m->f = open_memstream(&m->buf, &m->len);
	cr_assert(m->f);
	jw_init(&m->w, m->f, style);
	return &m->w;
}

static const char *done(struct mem *m)
{
	m->rc = jw_finish(&m->w);
	cr_assert_eq(fclose(m->f), 0);
	return m->buf;
}

/* Finishes the writer: no error, and the text is want. */
static void expect(struct mem *m, const char *want)
{
	cr_assert_str_eq(done(m), want);
	cr_assert_eq(m->rc, 0);
	free(m->buf);
}

Test(jsonw, nesting_and_commas_compact)
{
	struct mem m;
	struct jw *w = start(&m, JW_COMPACT);
	jw_object(w);
	jw_kint(w, "a", 1);
	jw_karray(w, "b");
	for (int i = 1; i <= 3; i++)
		jw_int(w, i);
	jw_end(w);
	jw_kobject(w, "c");
	jw_end(w);
	jw_karray(w, "d");
	jw_end(w);
	jw_kobject(w, "e");
	jw_knull(w, "f");
	jw_karray(w, "g");
	jw_object(w);
	jw_end(w);
	jw_array(w);
	jw_end(w);
	jw_end(w);
	jw_end(w);
	jw_kbool(w, "h", true);
	jw_kbool(w, "i", false);
	jw_end(w);
	expect(&m, "{\"a\":1,\"b\":[1,2,3],\"c\":{},\"d\":[],\"e\":{\"f\":null,\"g\":[{},[]]},"
	           "\"h\":true,\"i\":false}\n");
}

/* The report's layout: members a line each at 2, a list's items at 4 and
 * its end at 2, breaks inside an object, a list whose end stays on the
 * line of its last item. */
Test(jsonw, spaced_layout_lines_and_breaks)
{
	struct mem m;
	struct jw *w = start(&m, JW_SPACED);
	jw_object(w);
	jw_lines(w, 2, 0);
	jw_kstr(w, "schema", "x/1");
	jw_kobject(w, "t");
	jw_kint(w, "a", 1);
	jw_kint(w, "b", 2);
	jw_break(w, 4);
	jw_kint(w, "c", 3);
	jw_end(w);
	jw_karray(w, "list");
	jw_lines(w, 4, 2);
	for (int i = 0; i < 2; i++) {
		jw_object(w);
		jw_kint(w, "i", i);
		jw_karray(w, "ev");
		jw_lines(w, 6, -1);
		jw_str(w, "p");
		jw_str(w, "q");
		jw_end(w);
		jw_end(w);
	}
	jw_end(w);
	jw_karray(w, "empty");
	jw_lines(w, 4, 2);
	jw_end(w);
	jw_karray(w, "closed");
	jw_break(w, 0);
	jw_end(w);
	jw_end(w);
	expect(&m, "{\n"
	           "  \"schema\": \"x/1\",\n"
	           "  \"t\": {\"a\": 1, \"b\": 2,\n"
	           "    \"c\": 3},\n"
	           "  \"list\": [\n"
	           "    {\"i\": 0, \"ev\": [\n"
	           "      \"p\",\n"
	           "      \"q\"]},\n"
	           "    {\"i\": 1, \"ev\": [\n"
	           "      \"p\",\n"
	           "      \"q\"]}\n"
	           "  ],\n"
	           "  \"empty\": [],\n"
	           "  \"closed\": [\n"
	           "]\n"
	           "}\n");
}

/* What the escaper (utf8.c) gives for s, quoted. */
static char *quoted(const char *s, size_t len)
{
	char *out = malloc(6 * len + 3);
	out[0] = '"';
	size_t n = lt_json_escape(out + 1, 6 * len + 1, s, len);
	out[n + 1] = '"';
	out[n + 2] = 0;
	return out;
}

Test(jsonw, strings_and_keys_are_escaped_as_utf8_c_does)
{
	struct mem m;
	struct jw *w = start(&m, JW_COMPACT);
	jw_object(w);
	jw_kstr(w, "k\"\n", "a\033[2J\nb\xff\"\\ \xe2\x80\xa8 caf\xc3\xa9");
	jw_key(w, "nul");
	jw_strn(w, "a\0b", 3);
	jw_kstr(w, "none", NULL);
	jw_end(w);
	cr_assert_str_eq(done(&m), "{\"k\\\"\\n\":\"a\\u001b[2J\\nb\\ufffd\\\"\\\\ \\u2028 caf\xc3\xa9\","
	           "\"nul\":\"a\\u0000b\",\"none\":null}\n");
	free(m.buf);

	/* longer than one piece of the escaper and than the writer's buffer,
	 * with a UTF-8 sequence at every possible cut */
	size_t len = 3 * JW_BUF + 7;
	char *s = malloc(len);
	for (size_t i = 0; i < len; i++)
		s[i] = i % 5 == 4 ? '\n' : i % 5 == 0 ? '\xe2' : i % 5 == 1 ? '\x82' : i % 5 == 2 ? '\xac' : 'x';
	for (size_t n = 250; n < len; n += 1777) {
		w = start(&m, JW_COMPACT);
		jw_strn(w, s, n);
		char *want = quoted(s, n);
		const char *got = done(&m);
		cr_assert_eq(strlen(got), strlen(want) + 1, "length %zu", n);
		cr_assert_eq(memcmp(got, want, strlen(want)), 0, "length %zu", n);
		free(want);
		free(m.buf);
	}
	free(s);
}

Test(jsonw, every_byte_reads_back_as_utf8)
{
	char s[256];
	for (int i = 0; i < 256; i++)
		s[i] = (char)(i ? i : ' ');
	struct mem m;
	struct jw *w = start(&m, JW_SPACED);
	jw_array(w);
	jw_strn(w, s, sizeof(s));
	jw_strn(w, "\xf0\x9f\x98\x80", 4);
	jw_end(w);
	done(&m);
	char err[128];
	struct rp_json *j = rp_json_parse(m.buf, m.len, err, sizeof(err));
	cr_assert(j, "%s\n%s", err, m.buf);
	const char *back = rp_json_str(&j->items[0]);
	cr_assert_eq(lt_utf8_sanitize((char[1024]){ 0 }, 1024, back, strlen(back)), strlen(back),
		     "not UTF-8 after a round trip");
	cr_assert_eq(memcmp(back, s, 128), 0, "ASCII kept");
	cr_assert_str_eq(rp_json_str(&j->items[1]), "\xf0\x9f\x98\x80");
	rp_json_free(j);
	free(m.buf);
}

Test(jsonw, numbers)
{
	struct mem m;
	struct jw *w = start(&m, JW_COMPACT);
	jw_array(w);
	jw_int(w, 0);
	jw_int(w, -1);
	jw_int(w, INT64_MIN);
	jw_int(w, INT64_MAX);
	jw_uint(w, UINT64_MAX);
	jw_double(w, 1.5, 6);
	jw_double(w, 2.0 / 3, 3);
	jw_double(w, NAN, 6);
	jw_double(w, -INFINITY, 3);
	jw_fixed(w, 0, 3);
	jw_fixed(w, 999, 3);
	jw_fixed(w, 1234567, 3);
	jw_fixed(w, 42, 0);
	jw_hex(w, 0);
	jw_hex(w, 0xdeadbeefcafeULL);
	jw_end(w);
	expect(&m, "[0,-1,-9223372036854775808,9223372036854775807,18446744073709551615,"
	           "1.500000,0.667,null,null,0.000,0.999,1234.567,42,\"0x0\",\"0xdeadbeefcafe\"]\n");
}

Test(jsonw, raw_values_and_optional_members)
{
	static const char *const keys[] = { "a", "b", "c" };
	const uint64_t v[] = { 1, 2, 3 };
	struct mem m;
	struct jw *w = start(&m, JW_SPACED);
	jw_object(w);
	jw_key(w, "stored");
	jw_raw(w, "{\"x\":1}\n", 8);
	jw_kuints(w, keys, v, 3);
	if (jw_kobject_or_null(w, "yes", true)) {
		jw_kint(w, "z", 9);
		jw_end(w);
	}
	cr_assert_not(jw_kobject_or_null(w, "no", false));
	if (jw_key_or_null(w, "pc", true))
		jw_hex(w, 16);
	jw_kint_or_null(w, "i", -5, true);
	jw_kuint_or_null(w, "u", 5, false);
	jw_end(w);
	expect(&m, "{\"stored\": {\"x\":1}\n, \"a\": 1, \"b\": 2, \"c\": 3, \"yes\": {\"z\": 9}, "
	           "\"no\": null, \"pc\": \"0x10\", \"i\": -5, \"u\": null}\n");
}

/* Finishes the writer: the error is err. */
static void expect_error(struct mem *m, int err, const char *what)
{
	done(m);
	cr_assert_eq(m->rc, err, "%s: %d", what, m->rc);
	free(m->buf);
}

Test(jsonw, misuse_is_an_error_at_the_end)
{
	struct mem m;
	jw_object(start(&m, JW_COMPACT));
	expect_error(&m, -EINVAL, "an object left open");

	struct jw *w = start(&m, JW_COMPACT);
	jw_array(w);
	jw_end(w);
	jw_end(w);
	expect_error(&m, -EINVAL, "closed twice");

	w = start(&m, JW_COMPACT);
	jw_object(w);
	jw_key(w, "k");
	jw_end(w);
	expect_error(&m, -EINVAL, "a key without its value");

	w = start(&m, JW_COMPACT);
	for (int i = 0; i <= JW_MAX_DEPTH; i++)
		jw_array(w);
	cr_assert_eq(jw_error(w), -EINVAL, "nested too deep");
	expect_error(&m, -EINVAL, "nested too deep");
}

/* A write error (a full disk) is remembered, stops the writing and comes
 * back from jw_finish, whether it happens inside the document or at the
 * final flush. */
Test(jsonw, write_error_is_returned_at_the_end)
{
	FILE *f = fopen("/dev/full", "w");
	if (!f)
		cr_skip_test("no /dev/full here: the write error cannot be made");
	struct jw w;
	jw_init(&w, f, JW_COMPACT);
	jw_array(&w);
	for (int i = 0; i < 100000; i++)
		jw_str(&w, "a string that fills the buffer again and again");
	cr_assert_eq(jw_error(&w), -ENOSPC, "the error is known before the end");
	jw_end(&w);
	cr_assert_eq(jw_finish(&w), -ENOSPC);
	fclose(f);

	f = fopen("/dev/full", "w");
	jw_init(&w, f, JW_COMPACT);
	jw_array(&w);
	jw_end(&w);
	cr_assert_eq(jw_error(&w), 0, "still in the buffer");
	cr_assert_eq(jw_finish(&w), -ENOSPC, "the flush at the end fails");
	fclose(f);
}
