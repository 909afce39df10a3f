/* SPDX-License-Identifier: MIT */
/* Converting a raw locktrace trace into a viewer's format: the reader feeds
 * the timeline model, whose sink is the chosen writer. */
#ifndef LOCKTRACE_CONVERT_H
#define LOCKTRACE_CONVERT_H

#include <stddef.h>

enum lt_format {
	LT_FORMAT_PERFETTO = 0, /* native Perfetto protobuf (.perfetto-trace) */
	LT_FORMAT_JSON = 1,     /* Chrome trace-event JSON (.json) */
};

/* Converts the raw trace in to out.  Refuses an existing out unless force.
 * Writes to a temporary file beside out and renames it into place, so out
 * is never left half-written.  Messages go to stderr (errors, and the
 * warning for a damaged input); a summary too unless quiet.  Returns 0, 1
 * on failure (nothing written), or 3 when the input was damaged or cut
 * short: out then holds everything before the damage. */
int lt_convert_file(const char *in, const char *out, int format, int force, int quiet);

/* The default output name: in with its ".ltrace" suffix replaced by
 * ".perfetto-trace" (or ".json"), or the suffix appended.  0, or -1 if it
 * does not fit in n bytes. */
int lt_convert_out_path(const char *in, int format, char *out, size_t n);

#endif
