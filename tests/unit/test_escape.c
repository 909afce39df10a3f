/* Unit tests of the escaping every output uses (src/base/utf8.h): one for text,
 * one for JSON, U+FFFD for bytes that are not UTF-8, and of its use by
 * dump, the text report and the snapshot, fed names with control bytes (an
 * escape sequence, a newline, a C1 CSI, a bidirectional override).  No
 * root needed. */
#include <criterion/criterion.h>
#include <stdlib.h>
#include <string.h>
#include "report.h"
#include "lt_test.h"
#include "snapshot.h"
#include "locktrace/tracefile.h"
#include "lt_events.h"
#include "report_int.h"
#include "utf8.h"

/* 15 bytes, a comm's most: ESC [ 2 J, a newline, a byte that is not
 * UTF-8 */
#define EVIL "a\033[2J\nb\xff"

static const char *text(const char *s)
{
	static char buf[512];
	lt_text_escape(buf, sizeof(buf), s, strlen(s));
	return buf;
}

/* No C0 control but the newlines that end lines, no DEL, no C1 (as raw
 * bytes or UTF-8), no bidirectional override, nothing that is not UTF-8. */
static void assert_clean_text(const char *s, size_t len)
{
	for (size_t i = 0; i < len; i++) {
		unsigned char c = (unsigned char)s[i];
		cr_assert(c >= 0x20 || c == '\n', "control byte 0x%02x at %zu in:\n%s", c, i, s);
		cr_assert_neq(c, 0x7f, "DEL at %zu in:\n%s", i, s);
		if (c >= 0x80) {
			size_t q = lt_utf8_seq((const unsigned char *)s + i, len - i);
			cr_assert_gt(q, 0, "not UTF-8 at %zu in:\n%s", i, s);
			cr_assert(!(q == 2 && c == 0xc2 && (unsigned char)s[i + 1] < 0xa0), "C1 at %zu", i);
			cr_assert(!(q == 3 && !memcmp(s + i, "\xe2\x80\xae", 3)), "bidi override at %zu", i);
			i += q - 1;
		}
	}
}

Test(escape, text_shows_controls_as_hex_and_keeps_utf8)
{
	cr_assert_str_eq(text("plain name"), "plain name");
	cr_assert_str_eq(text(EVIL), "a\\x1b[2J\\x0ab\xef\xbf\xbd");
	cr_assert_str_eq(text("tab\there\x7f"), "tab\\x09here\\x7f");
	/* UTF-8 stays; C1 (0x9b is an 8-bit CSI) and a right-to-left
	 * override are escaped byte by byte */
	cr_assert_str_eq(text("caf\xc3\xa9 \xe2\x82\xac"), "caf\xc3\xa9 \xe2\x82\xac");
	cr_assert_str_eq(text("x\xc2\x9b" "2J"), "x\\xc2\\x9b2J");
	cr_assert_str_eq(text("ab\xe2\x80\xae" "cd"), "ab\\xe2\\x80\\xaecd");
	/* overlong, surrogate, cut short: not UTF-8 */
	cr_assert_str_eq(text("\xc0\xaf|\xed\xa0\x80|\xe2\x82"), "\xef\xbf\xbd\xef\xbf\xbd|"
		"\xef\xbf\xbd\xef\xbf\xbd\xef\xbf\xbd|\xef\xbf\xbd\xef\xbf\xbd");
}

Test(escape, text_is_idempotent_so_escaped_names_can_be_composed)
{
	const char *once = text(EVIL "\\x41");
	char again[512];
	lt_text_escape(again, sizeof(again), once, strlen(once));
	cr_assert_str_eq(again, once);
	/* whole escapes only; never more than 4 bytes out per byte in */
	char small[6];
	cr_assert_eq(lt_text_escape(small, sizeof(small), "a\033b", 3), 5);
	cr_assert_str_eq(small, "a\\x1b");
	cr_assert_eq(lt_text_escape(small, 5, "a\033b", 3), 1);
}

Test(escape, json_escapes_controls_and_replaces_what_is_not_utf8)
{
	char *buf = TL_PRINTED(NULL, lt_json_fput, EVIL "\"\\");
	cr_assert_str_eq(buf, "\"a\\u001b[2J\\nb\\ufffd\\\"\\\\\"");
	free(buf);
	char out[64];
	lt_json_escape(out, sizeof(out), "\xc2\x9b", 2);
	cr_assert_str_eq(out, "\xc2\x9b", "C1 is valid JSON as it is");
}

Test(escape, dump_lines_escape_thread_names)
{
	char line[512];
	struct lt_event e = lt_ev_switch(1000000000, 0, 7, 100, 1, 8, 100, EVIL, "ok");
	lt_format_event(&e, line, sizeof(line));
	assert_clean_text(line, strlen(line));
	cr_assert(strstr(line, "prev=7(a\\x1b[2J\\x0ab\xef\xbf\xbd)"), "%s", line);
	e = lt_ev_waking(1000000000, 8, 0, 7, 100, 0, 0, EVIL);
	lt_format_event(&e, line, sizeof(line));
	cr_assert(strstr(line, "by=7(a\\x1b[2J\\x0ab\xef\xbf\xbd)"), "%s", line);
	/* a comm of 16 bytes without its NUL is read no further */
	memset(e.wake.waker_comm, 'x', LT_COMM_LEN);
	lt_format_event(&e, line, sizeof(line));
	cr_assert(strstr(line, "by=7(xxxxxxxxxxxxxxxx) "), "%s", line);
}

/* A report whose process, command line, threads and a finding carry
 * control bytes: the text has none, the JSON parses and keeps the names. */
Test(escape, text_report_and_its_json_with_hostile_names)
{
	struct lt_thread_info ti[2];
	struct lt_header h;
	memset(&h, 0, sizeof(h));
	memset(ti, 0, sizeof(ti));
	h.pid = 100;
	snprintf(h.comm, sizeof(h.comm), "%s", EVIL);
	snprintf(h.cmdline, sizeof(h.cmdline), "./srv --name '\033]0;pwned\a'");
	h.clock_boottime = h.clock_monotonic = 1000000000;
	h.nthreads = 2;
	h.threads = ti;
	for (int i = 0; i < 2; i++) {
		ti[i].tid = 100 + i;
		snprintf(ti[i].comm, sizeof(ti[i].comm), "%s", EVIL);
		ti[i].sc_nr = -1;
	}
	struct lt_report *r = lt_report_new(&h, NULL);
	cr_assert_not_null(r);
	/* 101 sleeps on a futex at the end */
	struct lt_event e = lt_ev_futex(1100000000, 101, 0, 0x80, 0x1000, 2, -1, 0);
	lt_report_event(r, &e);
	e = lt_ev_switch(1100001000, 0, 101, 100, 1, 0, 0, EVIL, "swapper/0");
	lt_report_event(r, &e);
	e = lt_ev_waking(1200000000, 100, 0, 101, 100, 0, 0, EVIL);
	lt_report_event(r, &e);
	e = lt_ev_switch(3200000000, 0, 0, 0, 0, 100, 100, "swapper/0", EVIL);
	lt_report_event(r, &e);
	/* notes and findings are built from such strings too */
	lt_report_reader_end(r, 0, "bad chunk in /tmp/\033[2J\n.ltrace", 4096);
	cr_assert_eq(lt_report_finish(r), 0);
	size_t len;
	char *buf = TL_PRINTED(&len, lt_report_print_text, r);
	assert_clean_text(buf, len);
	cr_assert(strstr(buf, "process 100 (a\\x1b[2J\\x0ab\xef\xbf\xbd): ./srv --name '\\x1b]0;pwned\\x07'"),
		  "%s", buf);
	cr_assert(strstr(buf, "/tmp/\\x1b[2J\\x0a.ltrace"), "%s", buf);
	free(buf);
	buf = TL_PRINTED(&len, lt_report_print_json, r);
	struct rp_json *j = tl_json_of(buf, len);
	cr_assert_str_eq(rp_json_str(rp_json_get(rp_json_get(j, "trace"), "comm")), "a\033[2J\nb\xef\xbf\xbd");
	for (size_t i = 0; i < len; i++)
		cr_assert((unsigned char)buf[i] >= 0x20 || buf[i] == '\n', "raw control in the JSON");
	rp_json_free(j);
	free(buf);
	lt_report_free(r);
}

Test(escape, snapshot_text_and_json)
{
	struct lt_snapshot *s = tl_snapshot_one(5, EVIL);
	size_t len;
	char *buf = TL_PRINTED(&len, lt_snapshot_print_text, s);
	assert_clean_text(buf, len);
	cr_assert(strstr(buf, "thread 5 (a\\x1b[2J\\x0ab\xef\xbf\xbd)"), "%s", buf);
	free(buf);
	buf = TL_PRINTED(&len, lt_snapshot_print_json, s);
	cr_assert(strstr(buf, "\"a\\u001b[2J\\nb\\ufffd\""), "%s", buf);
	free(buf);
	lt_snapshot_free(s);
}

/* one UTF-8 encoder for the runtimes' strings (Java LATIN1/UTF-16, CPython
 * UCS-1/2/4): each length, and nothing written past room for the NUL */
Test(escape, utf8_put_each_length)
{
	char out[16];
	size_t at = 0;
	const uint32_t cps[] = { 0x41, 0xe9, 0x20ac, 0x1f600 };
	for (size_t i = 0; i < 4; i++)
		at = lt_utf8_put(out, sizeof(out), at, cps[i]);
	out[at] = 0;
	cr_assert_eq(at, 10);
	cr_assert_str_eq(out, "A\xc3\xa9\xe2\x82\xac\xf0\x9f\x98\x80");
	char small[4];
	cr_assert_eq(lt_utf8_put(small, sizeof(small), 0, 0x20ac), 3, "3 bytes and a NUL fit in 4");
	cr_assert_eq(lt_utf8_put(small, sizeof(small), 1, 0x20ac), 1, "no room: position unchanged");
	cr_assert_eq(lt_utf8_put(small, sizeof(small), 1, 0xe9), 3);
}
