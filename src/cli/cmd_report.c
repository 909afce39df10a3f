// SPDX-License-Identifier: MIT
/* `locktrace report TRACE`: the analysis a person reads first (see
 * docs/report.md), in text or JSON (src/output/report_file.c).  A cut trace
 * is reported up to its last good chunk, with a warning naming where it
 * stops; a damaged one past the damage, with a warning saying what was
 * skipped. */
#include <errno.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>
#include "outfile.h"
#include "cli_opts.h"
#include "cli.h"
#include "report.h"
#include "report_profile.h"

#define STR_(x) #x
#define STR(x) STR_(x)

static const struct lt_opt opts[] = {
	{ "json", 'j', NULL, "JSON (schema locktrace.report/1) instead of text" },
	{ "last", 'n', "N",
	  "calls kept per thread for \"what led up to it\" (default " STR(LT_REPORT_LAST_N) ")" },
	{ "all", 'a', NULL, "text: every row of every table, the last calls of every thread" },
	{ "stall-time", 's', "S",
	  "a wait this long at the end counts as stuck (default " STR(LT_REPORT_STALL_S) ")" },
	{ "convoy", 'c', "N", "waiters queued at once that make a convoy (default " STR(LT_REPORT_CONVOY_MIN) ")" },
	{ "profile", 'P', NULL,
	  "a contention profile instead: (lock, waiting stack) ranked by total wait time, (lock, "
	  "releasing stack) by the wait it ended (a trace recorded with --stacks)" },
	{ "format", 'F', "FMT",
	  "with --profile: text (default), collapsed (folded stacks for flame graphs, microseconds) "
	  "or pprof (gzipped profile.proto for go tool pprof)" },
	{ "output", 'o', "FILE", "with --profile: write it to FILE instead of standard output" },
	{ "force", 'f', NULL, "with -o: replace FILE if it exists" },
	{ 0 },
};

static const struct lt_cli cli = {
	.usage = "Usage: locktrace report TRACE [--json] [--last N] [--all] [--stall-time S] [--convoy N]\n"
		 "       locktrace report TRACE --profile [--all] [--format text|collapsed|pprof] "
		 "[-o FILE [--force]]\n",
	.about = "What the threads of the traced process waited for, who held and woke what,\n"
		 "and what is wrong: deadlocks, lost wake-ups, lock holders blocked in I/O or\n"
		 "preempted, convoys, stalls (docs/report.md).\n",
	.opts = opts,
	.tail = "Exit status: 0 report printed; 1 the file cannot be read as a trace; 2 usage;\n"
		"3 the trace is cut short (reported up to its last good chunk) or damaged\n"
		"(reported past the damage; the warning and the notes say what was skipped).\n",
};

const struct lt_cli *lt_report_cli(void)
{
	return &cli;
}

/* A number option in [lo, hi] into *out; 0, or -1 after saying what it
 * wants (what: "a number of calls from 1 to 1000"). */
static int number(const char *opt, const char *s, unsigned lo, unsigned hi, const char *what,
		  unsigned *out)
{
	uint64_t v;
	if (lt_parse_uint(s, lo, hi, &v)) {
		lt_err("invalid --%s '%s': give %s", opt, s, what);
		return -1;
	}
	*out = (unsigned)v;
	return 0;
}

/* report --profile into outpath (NULL: standard output, which must not be
 * a terminal for pprof's binary) */
static int profile_out(const char *path, int format, const char *outpath, int force,
		       unsigned rows)
{
	char err[4096];
	FILE *out = stdout;
	if (!outpath && format == LT_PROFILE_PPROF && isatty(STDOUT_FILENO)) {
		lt_err("--format pprof writes a binary file: give -o FILE (or redirect standard "
		       "output)");
		return 2;
	}
	if (outpath && lt_out_same(path, outpath)) {
		lt_err("the output %s is the input trace; choose another name with -o", outpath);
		return 2;
	}
	if (outpath) {
		int fd = lt_out_create(outpath, force);
		if (fd < 0) {
			lt_err("cannot create %s: %s%s", outpath, lt_out_strerror(fd),
			       fd == -EEXIST ? " (--force replaces it)" : "");
			return 1;
		}
		out = fdopen(fd, "w");
		if (!out) {
			close(fd);
			lt_err("cannot write %s: out of memory", outpath);
			return 1;
		}
	}
	int rc = lt_report_profile_fmt(path, out, rows, format, err, sizeof(err));
	if (out != stdout && fclose(out) && rc != 1) {
		snprintf(err, sizeof(err), "writing %s failed: %s", outpath, strerror(errno));
		rc = 1;
	}
	if (rc == 1)
		lt_err("%s", err);
	else if (err[0])
		lt_warn("%s", err);
	if (rc == 1 && out != stdout)
		unlink(outpath);
	return rc;
}

int lt_cmd_report(int argc, char **argv)
{
	struct lt_report_opts o = { 0 };
	struct lt_getopt g;
	int json = 0, profile = 0, c, format = -1, force = 0;
	const char *outpath = NULL;

	if (lt_getopt_init(&g, &cli))
		return 2;
	while ((c = lt_getopt_next(&g, argc, argv)) >= 0) {
		switch (c) {
		case 'j':
			json = 1;
			break;
		case 'n':
			if (number("last", optarg, 1, 1000, "a number of calls from 1 to 1000", &o.last_n))
				return 2;
			break;
		case 'a':
			o.rows = UINT32_MAX;
			break;
		case 's':
			if (lt_parse_seconds(optarg, &o.stall_s)) {
				lt_err("invalid --stall-time '%s': give %s", optarg, LT_SECONDS_HINT);
				return 2;
			}
			break;
		case 'P':
			profile = 1;
			break;
		case 'F':
			if (!strcmp(optarg, "text"))
				format = LT_PROFILE_TEXT;
			else if (!strcmp(optarg, "collapsed"))
				format = LT_PROFILE_COLLAPSED;
			else if (!strcmp(optarg, "pprof"))
				format = LT_PROFILE_PPROF;
			else if (!strcmp(optarg, "json")) {
				lt_err("--format is for --profile (text, collapsed or pprof); the report in "
				       "JSON is --json");
				return 2;
			} else {
				lt_err("invalid --format '%s': give text, collapsed or pprof (with --profile); "
				       "the report in JSON is --json", optarg);
				return 2;
			}
			break;
		case 'o':
			outpath = optarg;
			break;
		case 'f':
			force = 1;
			break;
		case 'c':
			if (number("convoy", optarg, 2, 100000, "a number of waiters, at least 2", &o.convoy_min))
				return 2;
			break;
		}
	}
	if (c == LT_CLI_EXIT)
		return g.status;
	if (lt_cli_one_arg(&cli, argc, argv, "trace file"))
		return 2;
	char err[4096];
	if (profile && json) {
		lt_err("--profile is text only; leave out --json");
		return 2;
	}
	if (!profile && (format >= 0 || outpath || force)) {
		lt_err("--format, -o and --force go with --profile (locktrace report TRACE --profile "
		       "--format pprof -o FILE)");
		return 2;
	}
	if (force && !outpath) {
		lt_err("--force replaces the file of -o FILE; give -o FILE");
		return 2;
	}
	if (profile)
		return profile_out(argv[optind], format < 0 ? LT_PROFILE_TEXT : format, outpath,
				   force, o.rows);
	int rc = lt_report_file_opts(argv[optind], stdout, json, &o, err, sizeof(err));
	if (rc == 1)
		lt_err("%s", err);
	else if (err[0])
		lt_warn("%s", err);
	return rc;
}
