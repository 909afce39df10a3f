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

/* The value of key= in the RESULT line of tool, copied into val. */
static int result_field(const char *out, const char *tool, const char *key, char *val, size_t n)
{
	char head[64], k[32];
	snprintf(head, sizeof(head), "RESULT tool=%s ", tool);
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
	free(out);
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
