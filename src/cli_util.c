// SPDX-License-Identifier: MIT
/* Argument parsing shared by the subcommands. */
#include <errno.h>
#include <ctype.h>
#include <limits.h>
#include <math.h>
#include <stdbool.h>
#include <stdlib.h>
#include "locktrace/cli.h"

int lt_parse_size(const char *s, uint64_t *out)
{
	char *end;
	errno = 0;
	unsigned long long v = strtoull(s, &end, 10);
	if (errno || end == s || *s == '-')
		return -1;
	unsigned shift = 0;
	switch (*end) {
	case 'k': case 'K': shift = 10; end++; break;
	case 'm': case 'M': shift = 20; end++; break;
	case 'g': case 'G': shift = 30; end++; break;
	case 0: break;
	default: return -1;
	}
	if (*end == 'i' || *end == 'B')
		end += *end == 'i' ? 1 : 0;
	if (*end == 'B')
		end++;
	if (*end || (shift && v > (UINT64_MAX >> shift)))
		return -1;
	*out = (uint64_t)v << shift;
	return 0;
}

int lt_parse_seconds(const char *s, double *out)
{
	char *end;
	errno = 0;
	double v = strtod(s, &end);
	if (errno || end == s || *end || !isfinite(v) || v <= 0)
		return -1;
	*out = v;
	return 0;
}

int lt_parse_pid_list(const char *s, pid_t **pids, size_t *n, const char **bad)
{
	const char *p = s;
	for (;;) {
		char *end;
		errno = 0;
		long v = strtol(p, &end, 10);
		if (errno || end == p || (*end && *end != ',') || v < 1 || v > INT_MAX || !isdigit((unsigned char)*p)) {
			*bad = p;
			return -1;
		}
		bool dup = false;
		for (size_t i = 0; i < *n; i++)
			dup |= (*pids)[i] == (pid_t)v;
		if (!dup) {
			pid_t *np = realloc(*pids, (*n + 1) * sizeof(*np));
			if (!np) {
				*bad = p;
				return -1;
			}
			*pids = np;
			(*pids)[(*n)++] = (pid_t)v;
		}
		if (!*end)
			return 0;
		p = end + 1;
	}
}
