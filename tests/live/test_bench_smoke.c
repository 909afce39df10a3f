/* `make bench` is not a test, but it must keep working: these run its short
 * smoke mode (one pair, about a second per tool) and check that it finishes,
 * reports every tool, and reports a missing tool as missing. */
#include <criterion/criterion.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include "lt_test.h"

#define NEED_ROOT() \
	tl_skip_unless_root("needs root: the bench loads BPF programs and traces other processes; run make test as root")

/* Runs cmd through the shell; returns its exit status (or -1) and its
 * output (stdout and stderr), NUL-terminated, in *out (caller frees). */
static int run_capture(const char *cmd, char **out)
{
	size_t cap = 1 << 16, len = 0;
	char *buf = malloc(cap);
	FILE *f = popen(cmd, "r");
	int st;

	cr_assert_not_null(buf);
	cr_assert_not_null(f, "cannot run %s", cmd);
	for (;;) {
		if (len + 4096 + 1 > cap) {
			cap *= 2;
			buf = realloc(buf, cap);
			cr_assert_not_null(buf);
		}
		size_t n = fread(buf + len, 1, 4096, f);
		if (n == 0)
			break;
		len += n;
	}
	buf[len] = 0;
	st = pclose(f);
	*out = buf;
	return st >= 0 && WIFEXITED(st) ? WEXITSTATUS(st) : -1;
}

/* The value of key= in the line "KIND tool=TOOL ..." (KIND: RESULT from
 * bench.sh's overhead part, ONOFF from bench-onoff.sh), copied into val. */
static int line_field(const char *out, const char *kind, const char *tool, const char *key,
		      char *val, size_t n)
{
	char head[64], k[32];
	snprintf(head, sizeof(head), "%s tool=%s ", kind, tool);
	snprintf(k, sizeof(k), " %s=", key);
	const char *l = strstr(out, head);
	if (!l)
		return -1;
	const char *eol = strchr(l, '\n');
	const char *v = strstr(l, k);
	if (!v || (eol && v > eol))
		return -1;
	v += strlen(k);
	size_t i = 0;
	while (v[i] && v[i] != ' ' && v[i] != '\n' && i + 1 < n) {
		val[i] = v[i];
		i++;
	}
	val[i] = 0;
	return 0;
}

static int result_field(const char *out, const char *tool, const char *key, char *val, size_t n)
{
	return line_field(out, "RESULT", tool, key, val, n);
}

/* The timeouts catch a hang, not a slow machine: the whole smoke run took
 * 305 s here at a load average of 30-37 on 2 cores (2026-12-03, seven
 * other test suites beside it), where the 180 s it had timed out. */
Test(bench_smoke, every_tool_reported_and_locktrace_ratio_printed, .timeout = 900)
{
	NEED_ROOT();
	char *out, v[64];
	int st = run_capture("bash scripts/bench.sh --smoke 2>&1", &out);

	cr_assert_eq(st, 0, "bench.sh --smoke exited %d:\n%s", st, out);
	cr_assert_eq(result_field(out, "locktrace", "status", v, sizeof(v)), 0,
		     "no locktrace RESULT line:\n%s", out);
	cr_assert_str_eq(v, "ok", "locktrace status %s:\n%s", v, out);
	cr_assert_eq(result_field(out, "locktrace", "ratio", v, sizeof(v)), 0);
	/* a ratio was measured; how high it is is the benchmark's finding
	 * (BENCHMARKS.md), not something a loaded machine can pass or fail */
	double ratio = strtod(v, NULL);
	cr_assert(ratio > 0, "locktrace ratio %s", v);
	/* the other tools are reported whatever became of them */
	const char *tools[] = { "bpftrace", "perf", "strace" };
	for (size_t i = 0; i < sizeof(tools) / sizeof(tools[0]); i++)
		cr_assert_eq(result_field(out, tools[i], "status", v, sizeof(v)), 0,
			     "%s not reported:\n%s", tools[i], out);
	/* and the other figures are there */
	cr_assert_not_null(strstr(out, "Highest rate with zero loss:"), "%s", out);
	cr_assert_not_null(strstr(out, "| text | 1/1 |"), "no snapshot timing:\n%s", out);
	cr_assert_not_null(strstr(out, "### Conversion to Perfetto"), "%s", out);
	/* the on/off part: the noise row and locktrace attached and detached
	 * once inside one run of the demo, with ratios (their size is again
	 * the benchmark's finding) */
	const char *onoff[] = { "untraced", "locktrace" };
	for (size_t i = 0; i < sizeof(onoff) / sizeof(onoff[0]); i++) {
		cr_assert_eq(line_field(out, "ONOFF", onoff[i], "status", v, sizeof(v)), 0,
			     "no ONOFF line for %s:\n%s", onoff[i], out);
		cr_assert_str_eq(v, "ok", "on/off %s: %s\n%s", onoff[i], v, out);
		cr_assert_eq(line_field(out, "ONOFF", onoff[i], "ratio", v, sizeof(v)), 0);
		cr_assert(strtod(v, NULL) > 0, "on/off %s ratio %s", onoff[i], v);
	}
	cr_assert_not_null(strstr(out, "#### On/off: the recorder attached and detached"),
			   "no on/off section in the report:\n%s", out);
	free(out);
}

/* scripts/bench-onoff.sh alone, with the floor (which it builds itself when
 * not given bench.sh's binaries) as the traced configuration. */
Test(bench_smoke, onoff_alone_with_the_floor, .timeout = 600)
{
	NEED_ROOT();
	char *out, v[64];
	int st = run_capture("bash scripts/bench-onoff.sh --smoke --tools untraced,floorsched 2>&1", &out);

	cr_assert_eq(st, 0, "bench-onoff.sh --smoke exited %d:\n%s", st, out);
	cr_assert_eq(line_field(out, "ONOFF", "floorsched", "status", v, sizeof(v)), 0,
		     "no ONOFF line for floorsched:\n%s", out);
	cr_assert_str_eq(v, "ok", "%s", out);
	cr_assert_eq(line_field(out, "ONOFF", "untraced", "status", v, sizeof(v)), 0, "%s", out);
	cr_assert_str_eq(v, "ok", "%s", out);
	cr_assert_not_null(strstr(out, "| floorsched | 1/1 |"), "no floorsched row:\n%s", out);
	free(out);
}

Test(bench_smoke, onoff_refuses_bad_arguments)
{
	char *out;
	const char *bad[] = { "--cycles 0", "--on x", "--window 0", "--tools untraced,bpftrace", "--bogus" };
	for (size_t i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
		char cmd[128];
		snprintf(cmd, sizeof(cmd), "bash scripts/bench-onoff.sh %s 2>&1", bad[i]);
		int st = run_capture(cmd, &out);
		cr_assert_eq(st, 2, "%s: exit %d, want 2:\n%s", bad[i], st, out);
		cr_assert_not_null(strstr(out, "bench-onoff: "), "%s: no message:\n%s", bad[i], out);
		free(out);
	}
}

Test(bench_smoke, a_missing_tool_is_reported_missing, .timeout = 600)
{
	NEED_ROOT();
	char *out, v[64];
	int st = run_capture("LT_BENCH_PERF=/nonexistent/perf bash scripts/bench.sh --smoke "
			     "--tools untraced,locktrace,perf --parts overhead 2>&1",
			     &out);

	cr_assert_eq(st, 0, "bench.sh exited %d:\n%s", st, out);
	cr_assert_eq(result_field(out, "perf", "status", v, sizeof(v)), 0, "perf not reported:\n%s", out);
	cr_assert_str_eq(v, "missing", "%s", out);
	cr_assert_not_null(strstr(out, "| perf | 0/1 | missing"), "no missing row:\n%s", out);
	cr_assert_eq(result_field(out, "locktrace", "status", v, sizeof(v)), 0);
	cr_assert_str_eq(v, "ok", "%s", out);
	free(out);
}
