/* SPDX-License-Identifier: MIT */
/* What `locktrace record` (and the bare `locktrace -p PID`) does around the
 * recorder (record.h): with each trace file it completes (the final trace,
 * or every flight-recorder dump), the Perfetto trace beside it and the
 * report's findings in short; the checks that those outputs can be
 * written; the exit status of a recording. */
#ifndef LOCKTRACE_RECORD_AFTER_H
#define LOCKTRACE_RECORD_AFTER_H

#include <stddef.h>
#include "record.h"

/* The context of lt_after_trace and lt_after_check (opts' on_trace_ctx). */
struct lt_after {
	const struct lt_record_opts *o; /* force, quiet */
	int perfetto;                   /* write NAME.perfetto-trace beside NAME.ltrace */
	int failed;                     /* set when a conversion failed */
};

/* Makes o call a (on_trace, check_out). */
void lt_after_install(struct lt_record_opts *o, struct lt_after *a);

/* on_trace: with perfetto, NAME.ltrace -> NAME.perfetto-trace beside it
 * (a->failed set when that fails, said on stderr); then the findings of
 * the report, in short, on stderr (-q hides progress, never them). */
void lt_after_trace(void *ctx, const char *path);

/* check_out: the Perfetto trace lt_after_trace will write beside path can
 * be written (always 0 without perfetto).  0 or -errno with err. */
int lt_after_check(void *ctx, const char *path, char *err, size_t errlen);

/* `-o NAME.perfetto-trace` names the pair: with perfetto, the raw trace is
 * then NAME.ltrace, written into raw (of len bytes) and returned; else
 * output itself (NULL stays NULL). */
const char *lt_after_raw_name(const char *output, int perfetto, char *raw, size_t len);

/* The exit status of a recording (rc: lt_record's, failed: a conversion
 * failed): 0 / 1, or with -- COMMAND the command's own, as strace and time
 * report it (128+N for signal N), 125-127 when it never ran (as timeout(1)
 * says them). */
int lt_record_exit_code(const struct lt_record_opts *o, const struct lt_record_result *res, int rc,
			int failed);

#endif
