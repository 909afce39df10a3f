// SPDX-License-Identifier: MIT
/* A trace file's report: read the trace, feed the analysis (report.c),
 * print it.  Errors and warnings are returned in the caller's buffer. */
#include <errno.h>
#include <stdio.h>
#include "locksyms.h"
#include "report.h"
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
	if (rd.nskips)
		lt_report_reader_damage(r, &rd);
	oom |= lt_report_finish(r) != 0;
	if (cut)
		snprintf(err, errlen, "%s is cut short (%s); the report covers it up to its last good chunk",
			 path, rd.stop_reason[0] ? rd.stop_reason : "no end marker");
	else if (rd.nskips)
		snprintf(err, errlen, "%s is damaged; the report covers what could be read", path);
	else if (oom)
		snprintf(err, errlen, "%s: out of memory during the analysis; the report may be incomplete", path);
	lt_trace_damage_append(&rd, err, errlen);
	*rc = cut || rd.nskips ? 3 : 0;
	lt_reader_close(&rd);
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
