/* SPDX-License-Identifier: MIT */
/* `locktrace report --profile`: a contention profile of a trace recorded
 * with --stacks: (lock, waiting stack) ranked by total wait time. */
#ifndef LT_REPORT_PROFILE_H
#define LT_REPORT_PROFILE_H

#include <stddef.h>
#include <stdio.h>

/* Prints the profile of the trace at path to out, at most rows entries
 * (0: 10).  0 printed; 1 the file cannot be read as a trace (err says
 * why); 3 it is cut short (printed up to its last good chunk, err says
 * so). */
int lt_report_profile(const char *path, FILE *out, unsigned rows, char *err, size_t errlen);

#endif
