// SPDX-License-Identifier: MIT
/* Argument parsing shared by the subcommands.  Numbers are plain decimal
 * and bounded: no sign, no blanks, no hex or octal, no exponent, no "inf";
 * strtod and strtoul would take all of those ("0x10" as 16, "1e300" as a
 * duration that never ends). */
#include <ctype.h>
#include <errno.h>
#include <inttypes.h>
#include <limits.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include "cli.h"
#include "convert.h"
#include "timeline.h"

/* Digits at s: their count; *v their value, or UINT64_MAX on overflow
 * (which every parser refuses). */
static size_t digits(const char *s, uint64_t *v)
{
	size_t n = 0;

	*v = 0;
	for (; isdigit((unsigned char)s[n]); n++) {
		unsigned d = (unsigned)(s[n] - '0');
		*v = *v > (UINT64_MAX - d) / 10 ? UINT64_MAX : *v * 10 + d;
	}
	return n;
}

int lt_parse_uint(const char *s, uint64_t lo, uint64_t hi, uint64_t *out)
{
	uint64_t v;
	size_t n = digits(s, &v);

	if (!n || s[n] || v == UINT64_MAX || v < lo || v > hi)
		return -1;
	*out = v;
	return 0;
}

int lt_parse_size(const char *s, uint64_t *out)
{
	uint64_t v;
	size_t n = digits(s, &v);
	const char *end = s + n;

	if (!n || v == UINT64_MAX)
		return -1;
	unsigned shift = 0;
	switch (*end) {
	case 'k': case 'K': shift = 10; end++; break;
	case 'm': case 'M': shift = 20; end++; break;
	case 'g': case 'G': shift = 30; end++; break;
	case 0: break;
	default: return -1;
	}
	if (shift && *end == 'i')
		end++;
	if (*end == 'B')
		end++;
	if (*end || (shift && v > (UINT64_MAX >> shift)))
		return -1;
	*out = v << shift;
	return 0;
}

int lt_parse_seconds(const char *s, double *out)
{
	uint64_t whole, frac;
	size_t n = digits(s, &whole), f = 0;

	if (s[n] == '.')
		f = digits(s + n + 1, &frac);
	if ((!n && !f) || s[n + (s[n] == '.') + f])
		return -1;
	if (whole > LT_MAX_SECONDS)
		return -1;
	char *end;
	double v = strtod(s, &end); /* exact enough now that the form is known */
	if (*end || !(v > 0) || v > LT_MAX_SECONDS)
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

int lt_convert_file(const char *in, const char *out, int format, int force, int quiet)
{
	struct lt_convert_result res;
	char err[8704];
	int rc = lt_convert(in, out, format, force, &res, err, sizeof(err));

	if (rc == 1) {
		lt_err("%s", err);
		return rc;
	}
	if (err[0])
		lt_warn("%s", err);
	if (!quiet) {
		lt_info("wrote %s: %" PRIu64 " events, %" PRIu64 " blocking calls, %" PRIu64
			" wake-ups traced to the waking call, %" PRIu64 " bytes (%.1f bytes/event)",
			out, res.events, res.spans, res.flows, res.bytes,
			res.events ? (double)res.bytes / (double)res.events : 0.0);
		if (res.lost)
			lt_note("the trace lost %" PRIu64 " events (marked \"lost events\" in the "
				"timeline)", res.lost);
		if (res.unseen_switches)
			lt_note(LT_UNSEEN_SWITCHES_FMT,
				LT_UNSEEN_SWITCHES_ARGS(res.unseen_switches, res.lost));
	}
	return rc;
}
