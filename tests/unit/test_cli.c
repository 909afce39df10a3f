// SPDX-License-Identifier: MIT
/* The option tables (src/cli/cli_opts.c): the getopt_long arrays and the help
 * built from one table, the parse loop's --help/--version/usage errors, the
 * version string and the Error:/warning: helpers. */
#include <criterion/criterion.h>
#include <criterion/redirect.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include "cli_opts.h"
#include "cli.h"
#include "version.h"
#include "lt_test.h"

enum { OPT_FROM = LT_OPT_LONG, OPT_NOX };

static const struct lt_opt opts[] = {
	{ "json", 'j', NULL, "JSON instead of text" },
	{ "last", 'n', "N", "calls kept per thread" },
	{ "from", OPT_FROM, "TRACE", "print the snapshots stored in TRACE instead" },
	LT_OPT_GROUP("Group heading:"),
	{ "no-x", OPT_NOX, NULL,
	  "a long help text that has to be wrapped because it goes on and on past the end of the "
	  "line, more than once, so that the wrapping is seen to keep its indent" },
	{ 0 },
};

static const struct lt_cli cli = {
	.usage = "Usage: t [options] FILE\n",
	.about = "About t.\n",
	.opts = opts,
	.tail = "Examples:\n  t -j x\n",
};

/* What a test wrote to a redirected stream (cr_get_redirected_stdout...). */
static void redirected(FILE *f, FILE *r, char *buf, size_t len)
{
	fflush(f);
	size_t n = fread(buf, 1, len - 1, r);
	buf[n] = 0;
}

static const struct option *find(const struct lt_getopt *g, const char *name)
{
	for (const struct option *o = g->longopts; o->name; o++)
		if (!strcmp(o->name, name))
			return o;
	return NULL;
}

Test(cli, optstring_has_the_letters_only)
{
	struct lt_getopt g;
	cr_assert_eq(lt_getopt_init(&g, &cli), 0);
	/* long-only options have no invented letter; help's is there */
	cr_assert_str_eq(g.optstring, "jn:h");

	struct lt_cli plus = cli;
	plus.optstring0 = "+";
	cr_assert_eq(lt_getopt_init(&g, &plus), 0);
	cr_assert_str_eq(g.optstring, "+jn:h");
}

Test(cli, long_options_from_the_table)
{
	struct lt_getopt g;
	cr_assert_eq(lt_getopt_init(&g, &cli), 0);
	size_t n = 0;
	while (g.longopts[n].name)
		n++;
	cr_assert_eq(n, 6, "4 options, --help and --version: %zu", n);
	const struct option *o = find(&g, "last");
	cr_assert(o && o->has_arg == required_argument && o->val == 'n' && !o->flag);
	o = find(&g, "json");
	cr_assert(o && o->has_arg == no_argument && o->val == 'j');
	o = find(&g, "from");
	cr_assert(o && o->has_arg == required_argument && o->val == OPT_FROM);
	cr_assert_geq(OPT_FROM, 256);
	o = find(&g, "help");
	cr_assert(o && o->val == LT_OPT_HELP);
	o = find(&g, "version");
	cr_assert(o && o->val == LT_OPT_VERSION && o->val >= 256);
}

Test(cli, parse_loop_returns_the_keys)
{
	struct lt_getopt g;
	char *argv[] = { "t", "--from", "tr", "-j", "-n", "3", "--no-x", "file", NULL };
	int argc = 8, c, got[8], n = 0;
	const char *from = NULL, *last = NULL;

	cr_assert_eq(lt_getopt_init(&g, &cli), 0);
	while ((c = lt_getopt_next(&g, argc, argv)) >= 0 && n < 8) {
		got[n++] = c;
		if (c == OPT_FROM)
			from = optarg;
		if (c == 'n')
			last = optarg;
	}
	cr_assert_eq(c, -1);
	cr_assert_eq(n, 4);
	cr_assert(got[0] == OPT_FROM && got[1] == 'j' && got[2] == 'n' && got[3] == OPT_NOX);
	cr_assert_str_eq(from, "tr");
	cr_assert_str_eq(last, "3");
	cr_assert_eq(optind, 7);
	cr_assert_str_eq(argv[optind], "file");
	/* a second parse starts afresh */
	char *again[] = { "t", "-j", "x", NULL };
	cr_assert_eq(lt_getopt_init(&g, &cli), 0);
	cr_assert_eq(lt_getopt_next(&g, 3, again), 'j');
	cr_assert_eq(lt_getopt_next(&g, 3, again), -1);
	cr_assert_eq(optind, 2);
}

/* Parsing argv with cli stops the command with status. */
static void assert_exits(int argc, char **argv, int status)
{
	struct lt_getopt g;
	int c;

	cr_assert_eq(lt_getopt_init(&g, &cli), 0);
	while ((c = lt_getopt_next(&g, argc, argv)) >= 0)
		;
	cr_assert_eq(c, LT_CLI_EXIT, "%s %s", argv[1], argc > 2 ? argv[2] : "");
	cr_assert_eq(g.status, status, "%s", argv[1]);
}

Test(cli, unknown_option_is_a_usage_error, .init = cr_redirect_stderr)
{
	char *unknown[] = { "t", "--nope", NULL };
	char *missing[] = { "t", "-n", NULL };
	char buf[8192];

	assert_exits(2, unknown, 2);
	assert_exits(2, missing, 2);
	redirected(stderr, cr_get_redirected_stderr(), buf, sizeof(buf));
	cr_assert(strstr(buf, "Usage: t [options] FILE"), "the usage on stderr: %s", buf);
}

Test(cli, help_and_version_exit_0, .init = cr_redirect_stdout)
{
	char *help[] = { "t", "-j", "--help", NULL };
	char *version[] = { "t", "--version", NULL };
	char buf[8192], want[128];

	assert_exits(3, help, 0);
	assert_exits(2, version, 0);
	redirected(stdout, cr_get_redirected_stdout(), buf, sizeof(buf));
	cr_assert(strstr(buf, "Usage: t [options] FILE"), "%s", buf);
	snprintf(want, sizeof(want), "\n%s\n", lt_version_string());
	cr_assert(strstr(buf, want), "the version after the help: %s", buf);
}

/* The help of cli, as lines. */
static size_t usage_lines(char lines[][128], size_t max)
{
	char *text = NULL;
	size_t len = 0, n = 0;
	FILE *f = open_memstream(&text, &len);
	cr_assert(f);
	lt_cli_usage(f, &cli);
	fclose(f);
	for (char *save, *l = strtok_r(text, "\n", &save); l && n < max; l = strtok_r(NULL, "\n", &save)) {
		cr_assert_lt(strlen(l), 80, "a help line of 80 columns or more: '%s'", l);
		snprintf(lines[n++], 128, "%s", l);
	}
	free(text);
	return n;
}

static int line_at(char lines[][128], size_t n, const char *prefix)
{
	for (size_t i = 0; i < n; i++)
		if (!strncmp(lines[i], prefix, strlen(prefix)))
			return (int)i;
	return -1;
}

Test(cli, usage_from_the_table)
{
	char l[64][128];
	size_t n = usage_lines(l, 64);

	cr_assert_str_eq(l[0], "Usage: t [options] FILE");
	cr_assert_str_eq(l[1], "About t.");
	cr_assert_str_eq(l[2], "Options:");
	/* one column for the help, after the longest "-x, --name ARG" */
	cr_assert_str_eq(l[3], "  -j, --json        JSON instead of text");
	cr_assert_str_eq(l[4], "  -n, --last N      calls kept per thread");
	cr_assert_str_eq(l[5], "      --from TRACE  print the snapshots stored in TRACE instead");
	cr_assert_str_eq(l[6], "Group heading:");
	int x = line_at(l, n, "      --no-x");
	cr_assert_eq(x, 7);
	/* wrapped, continued at the same column, no word lost */
	cr_assert(!strncmp(l[8], "                    ", 20) && l[8][20] != ' ', "'%s'", l[8]);
	char joined[512] = "";
	for (int i = x; i < x + 3; i++)
		strcat(joined, l[i] + 20), strcat(joined, " ");
	cr_assert(strstr(joined, "a long help text that has to be wrapped because it goes on and on past "
				 "the end of the line, more than once, so that the wrapping is seen to "
				 "keep its indent"), "%s", joined);
	cr_assert_geq(line_at(l, n, "  -h, --help        this help"), 0);
	cr_assert_geq(line_at(l, n, "      --version     print"), 0);
	int ex = line_at(l, n, "Examples:");
	cr_assert(ex > 0 && !strcmp(l[ex + 1], "  t -j x"));
}

Test(cli, version_string)
{
	const char *v = lt_version_string();
	cr_assert(!strncmp(v, "locktrace " LT_VERSION, strlen("locktrace " LT_VERSION)), "%s", v);
	/* "0.1.0" or "0.1.0 (git ...)" */
	const char *rest = v + strlen("locktrace " LT_VERSION);
	cr_assert(!*rest || !strncmp(rest, " (git ", 6), "%s", v);
}

/* `locktrace ARGS` with stdout read: its first line, and the exit status. */
static int run_line(const char *args, char *line, size_t len)
{
	char cmd[256];
	snprintf(cmd, sizeof(cmd), "%s %s 2>/dev/null", LT_BIN, args);
	FILE *p = popen(cmd, "r");
	cr_assert(p);
	line[0] = 0;
	if (fgets(line, (int)len, p))
		line[strcspn(line, "\n")] = 0;
	char rest[4096];
	while (fread(rest, 1, sizeof(rest), p) > 0)
		;
	int st = pclose(p);
	return WIFEXITED(st) ? WEXITSTATUS(st) : -1;
}

Test(cli, version_of_every_command)
{
	if (access(LT_BIN, X_OK))
		cr_skip_test("%s is not built (make all)", LT_BIN);
	static const char *const cmds[] = { "--version",	  "record --version", "-p 1 --version",
					    "report --version",	  "convert --version",
					    "snapshot --version", "dump --version" };
	for (size_t i = 0; i < sizeof(cmds) / sizeof(cmds[0]); i++) {
		char line[256];
		cr_assert_eq(run_line(cmds[i], line, sizeof(line)), 0, "locktrace %s", cmds[i]);
		/* the binary and this test link the same version.o */
		cr_assert_str_eq(line, lt_version_string(), "locktrace %s", cmds[i]);
	}
}

Test(cli, every_command_has_help)
{
	if (access(LT_BIN, X_OK))
		cr_skip_test("%s is not built (make all)", LT_BIN);
	static const char *const cmds[] = { "record", "report", "convert", "snapshot", "dump" };
	for (size_t i = 0; i < sizeof(cmds) / sizeof(cmds[0]); i++) {
		char args[64], line[256], want[64];
		snprintf(args, sizeof(args), "%s --help", cmds[i]);
		snprintf(want, sizeof(want), "Usage: locktrace %s ", cmds[i]);
		cr_assert_eq(run_line(args, line, sizeof(line)), 0, "%s", args);
		cr_assert(!strncmp(line, want, strlen(want)), "%s: %s", args, line);
	}
}

Test(cli, error_and_warning_wording, .init = cr_redirect_stderr)
{
	lt_err("no process %d", 12);
	lt_warn("%s is cut short", "x.ltrace");
	/* a line longer than any buffer is written whole */
	char big[6000];
	memset(big, 'a', sizeof(big) - 1);
	big[sizeof(big) - 1] = 0;
	lt_err("%s", big);
	fflush(stderr);
	char want[6200];
	snprintf(want, sizeof(want), "Error: no process 12\nlocktrace: warning: x.ltrace is cut short\n"
		 "Error: %s\n", big);
	cr_assert_stderr_eq_str(want);
}

/* Every kind of message with its prefix, and a message said in parts. */
Test(cli, message_kinds_and_parts, .init = cr_redirect_stderr)
{
	lt_note("the trace lost %d events", 3);
	lt_info("wrote %s", "t.ltrace");
	lt_more("  events: %s", "futex 2");
	lt_info_self("recording %s", "x");
	struct lt_msg m = { .len = 0 };
	lt_msg_add(&m, "wrote %s: %d event%s", "d.ltrace", 2, "s");
	lt_msg_add(&m, " (%.1f MB)", 0.5);
	lt_info("%s", m.text);
	/* past its size, a message is cut short and says so */
	struct lt_msg big = { .len = 0 };
	for (int i = 0; i < 1000; i++)
		lt_msg_add(&big, "%s", "0123456789");
	cr_assert_eq(big.len, sizeof(big.text) - 1);
	cr_assert_eq(strlen(big.text), sizeof(big.text) - 1);
	cr_assert_str_eq(big.text + big.len - 3, "...");
	fflush(stderr);
	char want[256];
	snprintf(want, sizeof(want),
		 "locktrace: note: the trace lost 3 events\nlocktrace: wrote t.ltrace\n"
		 "  events: futex 2\nlocktrace (pid %d): recording x\n"
		 "locktrace: wrote d.ltrace: 2 events (0.5 MB)\n", (int)getpid());
	cr_assert_stderr_eq_str(want);
}

/* The record command's table (src/cli/cmd_record.c): the help of both forms. */
static char *record_help(int perfetto)
{
	char *text = NULL;
	size_t len = 0;
	FILE *f = open_memstream(&text, &len);
	cr_assert(f);
	lt_cli_usage(f, lt_record_cli(perfetto));
	fclose(f);
	return text;
}

Test(cli, record_help_from_the_table)
{
	static const char *const heads[] = { "Usage: locktrace record -p PID[,PID...] [options]\n",
					     "Usage: locktrace -p PID[,PID...] [options]\n" };
	for (int perfetto = 0; perfetto < 2; perfetto++) {
		char *text = record_help(perfetto);
		cr_assert(!strncmp(text, heads[perfetto], strlen(heads[perfetto])), "%s", text);
		/* every option of the table is described, each on a line of its own */
		for (const struct lt_opt *o = lt_record_cli(perfetto)->opts; o->name || o->help; o++) {
			char want[64];
			if (!o->name)
				continue;
			snprintf(want, sizeof(want), "--%s%s%s", o->name, o->arg ? " " : "",
				 o->arg ? o->arg : "");
			cr_assert(strstr(text, want), "%s is not in the help", want);
			cr_assert(o->key < 128 || o->key >= LT_OPT_LONG, "--%s", o->name);
		}
		for (char *save, *l = strtok_r(text, "\n", &save); l; l = strtok_r(NULL, "\n", &save))
			cr_assert_lt(strlen(l), 80, "a help line of 80 columns or more: '%s'", l);
		free(text);
	}
	char *text = record_help(0);
	cr_assert(strstr(text, "\nFlight recorder (sit on a process for hours"), "%s", text);
	cr_assert(strstr(text, "      --no-follow-forks   with -- COMMAND"), "%s", text);
	cr_assert(strstr(text, "\nExamples:\n  locktrace record -p 1234   "), "%s", text);
	cr_assert(strstr(text, "\nExit status: 0 trace written;"), "%s", text);
	free(text);
}

Test(cli, record_letters_are_the_short_options_only)
{
	struct lt_getopt g;
	cr_assert_eq(lt_getopt_init(&g, lt_record_cli(0)), 0);
	/* "+": options end at the command after them; no invented letters */
	cr_assert_str_eq(g.optstring, "+p:o:fd:b:qvh");
}

/* lt_cmd_record / lt_cmd_trace with args: its exit status. */
static int record_cmd(int perfetto, char **args)
{
	int argc = 0;
	while (args[argc])
		argc++;
	return perfetto ? lt_cmd_trace(argc, args) : lt_cmd_record(argc, args);
}

static void redirect_both(void)
{
	cr_redirect_stdout();
	cr_redirect_stderr();
}

Test(cli, record_version_and_usage_errors, .init = redirect_both)
{
	char *version[] = { "record", "--version", NULL };
	char *unknown[] = { "record", "-p", "1", "--nope", NULL };
	char *nothing[] = { "locktrace", "-q", NULL };
	char *both[] = { "record", "-p", "1", "--", "true", NULL };
	char *children[] = { "record", "--children", "--", "true", NULL };
	char *bad_pid[] = { "record", "-p", "1,x", NULL };
	char *empty_o[] = { "record", "-p", "1", "-o", "", NULL };
	char *extra[] = { "record", "-p", "1", "-d", "1", "extra", NULL };
	char *keep[] = { "record", "-p", "1", "--keep-going", NULL };
	char buf[65536];

	cr_assert_eq(record_cmd(0, version), 0);
	cr_assert_eq(record_cmd(1, version), 0);
	cr_assert_eq(record_cmd(0, unknown), 2);
	cr_assert_eq(record_cmd(1, nothing), 2);
	cr_assert_eq(record_cmd(0, both), 2);
	cr_assert_eq(record_cmd(0, children), 2);
	cr_assert_eq(record_cmd(0, bad_pid), 2);
	cr_assert_eq(record_cmd(0, empty_o), 2);
	cr_assert_eq(record_cmd(0, extra), 2);
	cr_assert_eq(record_cmd(0, keep), 2);
	redirected(stderr, cr_get_redirected_stderr(), buf, sizeof(buf));
	cr_assert(strstr(buf, "Error: -o needs a file name"), "%s", buf);
	cr_assert(strstr(buf, "Error: unexpected argument 'extra' (a command to launch goes after --"), "%s", buf);
	cr_assert(strstr(buf, "Error: --keep-going needs --stall SECS or --ring SIZE"), "%s", buf);
	cr_assert(strstr(buf, "Usage: locktrace record -p PID"), "%s", buf);
	cr_assert(strstr(buf, "Error: nothing to trace: give -p PID, --cgroup PATH or -- COMMAND\n"
			      "Usage: locktrace -p PID"), "%s", buf);
	cr_assert(strstr(buf, "Error: give either -p PID / --cgroup PATH or a command after --, not "
			      "both\n"), "%s", buf);
	cr_assert(strstr(buf, "Error: --children needs -p PID"), "%s", buf);
	cr_assert(strstr(buf, "Error: invalid pid 'x' in '1,x'"), "%s", buf);
	char want[128];
	snprintf(want, sizeof(want), "%s\n%s\n", lt_version_string(), lt_version_string());
	redirected(stdout, cr_get_redirected_stdout(), buf, sizeof(buf));
	cr_assert_str_eq(buf, want);
}
