// SPDX-License-Identifier: MIT
/* The messages every command prints on stderr (log.h). */
#include <stdarg.h>
#include <stdio.h>
#include "log.h"

static void say(const char *prefix, const char *fmt, va_list ap)
{
	/* one write per line where it fits: lines of concurrent writers
	 * (the recorder's status thread) stay whole */
	char line[4096];
	va_list again;
	va_copy(again, ap);
	int n = vsnprintf(line, sizeof(line), fmt, ap);
	if (n >= 0 && (size_t)n < sizeof(line)) {
		fprintf(stderr, "%s%s\n", prefix, line);
	} else {
		fputs(prefix, stderr);
		vfprintf(stderr, fmt, again);
		fputc('\n', stderr);
	}
	va_end(again);
}

void lt_verr(const char *fmt, va_list ap)
{
	say("Error: ", fmt, ap);
}

void lt_err(const char *fmt, ...)
{
	va_list ap;
	va_start(ap, fmt);
	lt_verr(fmt, ap);
	va_end(ap);
}

void lt_warn(const char *fmt, ...)
{
	va_list ap;
	va_start(ap, fmt);
	say("locktrace: warning: ", fmt, ap);
	va_end(ap);
}
