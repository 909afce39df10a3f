/* SPDX-License-Identifier: MIT */
/* Converting a raw locktrace trace into a viewer's format: the reader feeds
 * the timeline model, whose sink is the chosen writer. */
#ifndef LOCKTRACE_CONVERT_H
#define LOCKTRACE_CONVERT_H

#include <stddef.h>
#include <stdint.h>

enum lt_format {
	LT_FORMAT_PERFETTO = 0, /* native Perfetto protobuf (.perfetto-trace) */
	LT_FORMAT_JSON = 1,     /* Chrome trace-event JSON (.json) */
};

/* What a conversion wrote. */
struct lt_convert_result {
	uint64_t events; /* read from the raw trace */
	uint64_t spans;  /* blocking calls */
	uint64_t flows;  /* wake-ups traced to the waking call */
	uint64_t lost;   /* events the trace lost */
	uint64_t unseen_switches; /* switch-ins not in the trace, placed (timeline.h) */
	uint64_t bytes;  /* the size of out */
};

/* Converts the raw trace in to out.  Refuses an existing out unless force.
 * Writes to a temporary file beside out and renames it into place, so out
 * is never left half-written.  Prints nothing.  Returns 0 (*res filled), 1
 * on failure (nothing written; the message in err), or 3 when the input
 * was damaged or cut short: out then holds everything before the damage
 * (*res filled, the warning in err).  err is "" when 0 is returned. */
int lt_convert(const char *in, const char *out, int format, int force, struct lt_convert_result *res,
	       char *err, size_t errlen);

/* lt_convert as the commands say it (src/cli/cli_util.c): errors and the
 * damaged-input warning on stderr, and a summary unless quiet.  The same
 * return values. */
int lt_convert_file(const char *in, const char *out, int format, int force, int quiet);

/* The default output name: in with its ".ltrace" suffix replaced by
 * ".perfetto-trace" (or ".json"), or the suffix appended.  0, or -1 if it
 * does not fit in n bytes. */
int lt_convert_out_path(const char *in, int format, char *out, size_t n);

#endif
