/* SPDX-License-Identifier: MIT */
/* `locktrace report --profile`: a contention profile of a trace recorded
 * with --stacks: (lock, waiting stack) ranked by total wait time, and
 * (lock, releasing stack) ranked by the wait it caused; in text, or the
 * waiting stacks as folded stacks (flame graph tools) or as a gzipped
 * pprof profile.proto (docs/report.md). */
#ifndef LT_REPORT_PROFILE_H
#define LT_REPORT_PROFILE_H

#include <stddef.h>
#include <stdio.h>

enum lt_profile_format {
	LT_PROFILE_TEXT = 0,
	LT_PROFILE_COLLAPSED = 1, /* "lock;root;...;leaf MICROSECONDS" lines */
	LT_PROFILE_PPROF = 2,     /* gzipped perftools.profiles.Profile */
};

/* Prints the profile of the trace at path to out in format, at most rows
 * entries per ranking in text (0: 10; the other formats hold every
 * entry).  0 written; 1 the file cannot be read as a trace, or the output
 * could not be written (err says why); 3 it is cut short (written up to
 * its last good chunk, err says so). */
int lt_report_profile_fmt(const char *path, FILE *out, unsigned rows, int format, char *err,
			  size_t errlen);
/* The text profile. */
int lt_report_profile(const char *path, FILE *out, unsigned rows, char *err, size_t errlen);

#endif
