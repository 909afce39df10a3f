// SPDX-License-Identifier: MIT
/* Unit tests for what hardens locktrace against hostile input (issue 15):
 * strict numbers, string fields of a crafted trace, escaping.  No root. */
#include <criterion/criterion.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>
#include "cli.h"
#include "locktrace/event.h"
#include "report.h"
#include "codec.h"
#include "report_int.h"
#include "gen_trace.h"

Test(sec, seconds_decimal_and_bounded)
{
	static const char *const bad[] = {
		"1e300", "1e3", "0x10", "0X10", "inf", "nan", "-1", "+5", " 5", "5 ", "0", "0.0", ".",
		"", "31536001", "99999999999999999999999", "1,5", "010x",
	};
	double d;

	for (size_t i = 0; i < sizeof(bad) / sizeof(bad[0]); i++)
		cr_expect_eq(lt_parse_seconds(bad[i], &d), -1, "'%s' accepted as %g", bad[i], d);
	cr_assert_eq(lt_parse_seconds("10", &d), 0);
	cr_expect_eq(d, 10.0);
	cr_assert_eq(lt_parse_seconds("0.5", &d), 0);
	cr_expect_eq(d, 0.5);
	cr_assert_eq(lt_parse_seconds(".25", &d), 0);
	cr_expect_eq(d, 0.25);
	cr_assert_eq(lt_parse_seconds("010", &d), 0, "leading zeros are still decimal");
	cr_expect_eq(d, 10.0);
	cr_assert_eq(lt_parse_seconds("31536000", &d), 0, "a year is the limit");
}

Test(sec, integers_and_sizes_decimal)
{
	uint64_t v;

	cr_expect_eq(lt_parse_uint("0x10", 0, 100, &v), -1);
	cr_expect_eq(lt_parse_uint("+1", 0, 100, &v), -1);
	cr_expect_eq(lt_parse_uint(" 1", 0, 100, &v), -1);
	cr_expect_eq(lt_parse_uint("101", 0, 100, &v), -1);
	cr_expect_eq(lt_parse_uint("18446744073709551616", 0, UINT64_MAX, &v), -1);
	cr_assert_eq(lt_parse_uint("017", 0, 100, &v), 0);
	cr_expect_eq(v, 17, "not octal");
	cr_expect_eq(lt_parse_size("0x10", &v), -1);
	cr_expect_eq(lt_parse_size(" -5M", &v), -1);
	cr_expect_eq(lt_parse_size("+5M", &v), -1);
	cr_expect_eq(lt_parse_size("20000000000G", &v), -1);
	cr_assert_eq(lt_parse_size("16M", &v), 0);
	cr_expect_eq(v, 16u << 20);
	cr_assert_eq(lt_parse_size("4KiB", &v), 0);
	cr_expect_eq(v, 4096);
}

/* A rename whose new comm is 16 bytes: the encoding of a 15-byte name with
 * its length and one more byte spliced in.  The decoder refuses it: a
 * 16-byte comm has no terminator and ran into the next field. */
Test(sec, comm_without_terminator_refused)
{
	struct lt_codec c;
	struct lt_event ev = { 0 }, out;
	uint8_t buf[256], bad[260];

	ev.h.kind = LT_EV_RENAME;
	ev.h.tid = 100;
	ev.h.ts = 1000;
	strcpy(ev.ren.oldcomm, "old");
	strcpy(ev.ren.newcomm, "abcdefghijklmno");
	lt_codec_reset(&c, 100, 0);
	size_t n = lt_codec_encode(&c, buf, &ev);
	cr_assert_gt(n, 0);
	uint8_t *at = memmem(buf, n, "\x0f" "abcdefghijklmno", 16);
	cr_assert(at, "15-byte comm not found in the encoding");
	size_t k = (size_t)(at - buf);
	memcpy(bad, buf, k);
	bad[k] = 16;
	memcpy(bad + k + 1, "abcdefghijklmnop", 16);
	memcpy(bad + k + 17, buf + k + 16, n - k - 16);

	const uint8_t *p = buf;
	lt_codec_reset(&c, 100, 0);
	cr_assert_eq(lt_codec_decode(&c, &p, buf + n, &out), 0, "the honest encoding decodes");
	cr_assert_str_eq(out.ren.newcomm, "abcdefghijklmno");
	p = bad;
	lt_codec_reset(&c, 100, 0);
	cr_assert_neq(lt_codec_decode(&c, &p, bad + n + 1, &out), 0, "a 16-byte comm was accepted");
}

static double now_s(void)
{
	struct timespec ts;
	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec + (double)ts.tv_nsec / 1e9;
}

/* 4,000 threads, each waiting at the end on its own futex after one wait
 * that was woken: the text report took 142 s (nested loops over threads and
 * a scan of the locks per thread), JSON 0.2 s; both now take about 0.1 s.
 * How fast is the benchmark's to say (BENCHMARKS.md, "Report of 10,000
 * threads each on its own futex"); here each report must complete and the
 * suite's timeout catches a return of the quadratic version (142 s for one
 * report); the time is logged. */
Test(sec, report_of_4000_threads_each_on_its_own_futex_is_fast, .timeout = 120)
{
	char path[] = "/tmp/lt-sec-report-XXXXXX";
	int fd = mkstemp(path);
	cr_assert_geq(fd, 0);
	close(fd);
	/* then with a SYMBOLS section naming the word after each futex: every
	 * lock is named by a look-up inside the named objects (a scan of every
	 * symbol per lock before) */
	for (int syms = 0; syms < 2; syms++) {
		cr_assert_eq(lt_gen_futex_trace_syms(path, 4000, 1, syms), 0);
		for (int json = 0; json < 2; json++) {
			FILE *out = fopen("/dev/null", "w");
			char err[512];
			double t0 = now_s();
			int rc = lt_report_file_opts(path, out, json, NULL, err, sizeof(err));
			double dt = now_s() - t0;
			fclose(out);
			cr_assert_eq(rc, 0, "%s", err);
			cr_log_info("the %s report of 4,000 threads%s took %.2f s", json ? "JSON" : "text",
				    syms ? " with symbols" : "", dt);
		}
	}
	unlink(path);
}

/* Numbers in a snapshot's JSON that no integer holds (found by
 * fuzz_snapjson: a tid of 1e13 cast to int) are taken as absent. */
Test(sec, json_numbers_out_of_range_are_absent)
{
	static const char doc[] = "[1e300, -1e300, 1e13, 42, 4.5, -7]";
	char err[128];
	struct rp_json *j = rp_json_parse(doc, sizeof(doc) - 1, err, sizeof(err));
	cr_assert(j, "%s", err);
	cr_expect_eq(rp_json_int(&j->items[0], 7), 7);
	cr_expect_eq(rp_json_int(&j->items[1], 7), 7);
	cr_expect_eq(rp_json_int(&j->items[2], 7), 10000000000000ll);
	cr_expect_eq(rp_json_int(&j->items[3], 7), 42);
	cr_expect_eq(rp_json_int(&j->items[4], 7), 4);
	cr_expect_eq(rp_json_int(&j->items[5], 7), -7);
	uint64_t a;
	cr_expect_eq(rp_json_addr(&j->items[0], &a), 0, "1e300 is no address");
	rp_json_free(j);
}

/* The JSON report embeds the trace's stored snapshots: a byte that is not
 * UTF-8 in one (a crafted trace; the recorder writes U+FFFD) comes out as
 * U+FFFD, as in every JSON locktrace writes. */
Test(sec, stored_snapshot_in_the_json_report_is_utf8)
{
	char path[] = "/tmp/lt-sec-snap-XXXXXX";
	int fd = mkstemp(path);
	cr_assert_geq(fd, 0);
	close(fd);
	static const char snap[] = "{\"schema\": \"locktrace.snapshot/1\", \"pid\": 7, \"threads\": "
				   "[{\"tid\": 7, \"comm\": \"a\xff\xfe" "b\"}]}";
	struct lt_writer *w;
	struct lt_header h = { .pid = 7, .ncpus = 1 };
	cr_assert_eq(lt_writer_open(&w, path, 1), 0);
	cr_assert_eq(lt_writer_header(w, &h), 0);
	cr_assert_eq(lt_writer_section(w, LT_CHUNK_SNAPSHOT, snap, sizeof(snap) - 1), 0);
	cr_assert_eq(lt_writer_close(w), 0);
	char *buf = NULL, err[512];
	size_t len = 0;
	FILE *out = open_memstream(&buf, &len);
	cr_assert_eq(lt_report_file_opts(path, out, 1, NULL, err, sizeof(err)), 0, "%s", err);
	fclose(out);
	unlink(path);
	cr_assert(strstr(buf, "\"stored_snapshots\""), "no stored snapshot in the report");
	cr_assert(strstr(buf, "a\xef\xbf\xbd\xef\xbf\xbd" "b"), "the name is not a\\ufffd\\ufffdb");
	for (size_t i = 0; i < len; i++)
		cr_assert(buf[i] != '\xff' && buf[i] != '\xfe', "a byte that is not UTF-8 at %zu", i);
	free(buf);
}
