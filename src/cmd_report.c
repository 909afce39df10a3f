// SPDX-License-Identifier: MIT
/* `locktrace report TRACE`: the analysis a person reads first (see
 * docs/report.md), in text or JSON.  A damaged or cut trace is reported up
 * to its last good chunk, with a warning naming where it stops. */
#include <errno.h>
#include <getopt.h>
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>
#include "locktrace/cli.h"
#include "locktrace/locksyms.h"
#include "locktrace/report.h"
#include "locktrace/tracefile.h"

struct lt_report *lt_report_load(const char *path, const struct lt_report_opts *o, char *err,
				 size_t errlen, int *rc)
{
	struct lt_reader rd;
	struct lt_item it;
	char e[512];

	err[0] = 0;
	*rc = 1;
	if (lt_reader_open(&rd, path, e, sizeof(e))) {
		snprintf(err, errlen, "%s", e);
		return NULL;
	}
	struct lt_report *r = lt_report_new(&rd.hdr, o);
	if (!r) {
		lt_reader_close(&rd);
		snprintf(err, errlen, "%s: out of memory starting the report", path);
		return NULL;
	}
	/* a word in a shared mapping is one lock in every process: its key
	 * must be known before the events (the recorder names it later) */
	if (rd.hdr.version_minor >= 3)
		lt_trace_symbols_procs(path, lt_report_symbol_entry, r);
	int oom = 0;
	while (lt_reader_next(&rd, &it) > 0) {
		if (it.type == LT_ITEM_EVENT) {
			oom |= lt_report_event(r, &it.ev) == -ENOMEM;
		} else if (it.sec_type == LT_CHUNK_SNAPSHOT) {
			lt_report_snapshot(r, (const char *)it.data, it.len);
		} else if (it.sec_type == LT_CHUNK_SYMBOLS) {
			lt_report_symbols(r, it.data, it.len);
		} else if (it.sec_type == LT_CHUNK_STATS && rd.have_stats) {
			lt_report_stats(r, &rd.stats);
		}
	}
	int cut = !rd.clean_end || rd.stop_reason[0];
	lt_report_reader_end(r, !cut, rd.stop_reason, rd.stop_offset);
	oom |= lt_report_finish(r) != 0;
	if (cut)
		snprintf(err, errlen, "%s is cut short (%s); the report covers it up to its last good chunk",
			 path, rd.stop_reason[0] ? rd.stop_reason : "no end marker");
	else if (oom)
		snprintf(err, errlen, "%s: out of memory during the analysis; the report may be incomplete", path);
	lt_reader_close(&rd);
	*rc = cut ? 3 : 0;
	return r;
}

int lt_report_file_opts(const char *path, FILE *out, int json, const struct lt_report_opts *o,
			char *err, size_t errlen)
{
	int rc;
	struct lt_report *r = lt_report_load(path, o, err, errlen, &rc);

	if (!r)
		return rc;
	if (json)
		lt_report_print_json(out, r);
	else
		lt_report_print_text(out, r);
	fflush(out);
	lt_report_free(r);
	return rc;
}

int lt_report_file(const char *path, FILE *out, int json)
{
	char err[768];
	int rc = lt_report_file_opts(path, out, json, NULL, err, sizeof(err));
	if (err[0])
		fprintf(stderr, "locktrace: %s: %s\n", rc == 1 ? "error" : "warning", err);
	return rc;
}

static void usage(FILE *f)
{
	fprintf(f, "Usage: locktrace report TRACE [--json] [--last N] [--all] [--stall-time S] [--convoy N]\n"
		   "What the threads of the traced process waited for, who held and woke what,\n"
		   "and what is wrong: deadlocks, lost wake-ups, lock holders blocked in I/O or\n"
		   "preempted, convoys, stalls (docs/report.md).\n\n"
		   "  -j, --json          JSON (schema locktrace.report/1) instead of text\n"
		   "  -n, --last N        calls kept per thread for \"what led up to it\" (default %u)\n"
		   "  -a, --all           text: every row of every table, the last calls of every thread\n"
		   "  -s, --stall-time S  a wait this long at the end counts as stuck (default %.1f)\n"
		   "  -c, --convoy N      waiters queued at once that make a convoy (default %u)\n\n"
		   "Exit status: 0 report printed; 1 the file cannot be read as a trace; 2 usage;\n"
		   "3 the trace is cut short (reported up to its last good chunk).\n",
		LT_REPORT_LAST_N, LT_REPORT_STALL_S, LT_REPORT_CONVOY_MIN);
}

static int parse_uint(const char *s, unsigned lo, unsigned hi, unsigned *out)
{
	uint64_t v;
	if (lt_parse_uint(s, lo, hi, &v))
		return -1;
	*out = (unsigned)v;
	return 0;
}

int lt_cmd_report(int argc, char **argv)
{
	static const struct option opts[] = {
		{ "json", no_argument, NULL, 'j' },	    { "last", required_argument, NULL, 'n' },
		{ "all", no_argument, NULL, 'a' },	    { "stall-time", required_argument, NULL, 's' },
		{ "convoy", required_argument, NULL, 'c' }, { "help", no_argument, NULL, 'h' },
		{ 0 }
	};
	struct lt_report_opts o = { 0 };
	int json = 0, c;

	optind = 1;
	while ((c = getopt_long(argc, argv, "jn:as:c:h", opts, NULL)) != -1) {
		switch (c) {
		case 'j':
			json = 1;
			break;
		case 'n':
			if (parse_uint(optarg, 1, 1000, &o.last_n)) {
				fprintf(stderr, "Error: invalid --last '%s': give a number of calls from 1 to 1000\n",
					optarg);
				return 2;
			}
			break;
		case 'a':
			o.rows = UINT32_MAX;
			break;
		case 's':
			if (lt_parse_seconds(optarg, &o.stall_s)) {
				fprintf(stderr, "Error: invalid --stall-time '%s': give %s\n", optarg, LT_SECONDS_HINT);
				return 2;
			}
			break;
		case 'c':
			if (parse_uint(optarg, 2, 100000, &o.convoy_min)) {
				fprintf(stderr, "Error: invalid --convoy '%s': give a number of waiters, at least 2\n",
					optarg);
				return 2;
			}
			break;
		case 'h':
			usage(stdout);
			return 0;
		default:
			usage(stderr);
			return 2;
		}
	}
	if (optind != argc - 1) {
		fprintf(stderr, "Error: %s\n", optind >= argc ? "no trace file given" : "give one trace file");
		usage(stderr);
		return 2;
	}
	char err[768];
	int rc = lt_report_file_opts(argv[optind], stdout, json, &o, err, sizeof(err));
	if (rc == 1)
		fprintf(stderr, "Error: %s\n", err);
	else if (err[0])
		fprintf(stderr, "locktrace: warning: %s\n", err);
	return rc;
}
