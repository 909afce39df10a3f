// SPDX-License-Identifier: MIT
/* The messages every command prints on stderr (log.h). */
#include <stdarg.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>
#include "log.h"

/* Where every message goes. */
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

#define SAY_WITH(prefix)                                                                           \
	do {                                                                                       \
		va_list ap;                                                                        \
		va_start(ap, fmt);                                                                 \
		say(prefix, fmt, ap);                                                              \
		va_end(ap);                                                                        \
	} while (0)

void lt_warn(const char *fmt, ...)
{
	SAY_WITH("locktrace: warning: ");
}

void lt_note(const char *fmt, ...)
{
	SAY_WITH("locktrace: note: ");
}

void lt_info(const char *fmt, ...)
{
	SAY_WITH("locktrace: ");
}

void lt_info_self(const char *fmt, ...)
{
	char prefix[48];
	snprintf(prefix, sizeof(prefix), "locktrace (pid %d): ", (int)getpid());
	SAY_WITH(prefix);
}

void lt_more(const char *fmt, ...)
{
	SAY_WITH("");
}

int lt_vlib(const char *fmt, va_list ap)
{
	return vfprintf(stderr, fmt, ap);
}

void lt_msg_add(struct lt_msg *m, const char *fmt, ...)
{
	size_t room = sizeof(m->text) - m->len;
	if (room <= 1)
		return;
	va_list ap;
	va_start(ap, fmt);
	int n = vsnprintf(m->text + m->len, room, fmt, ap);
	va_end(ap);
	if (n < 0)
		return;
	if ((size_t)n < room) {
		m->len += (size_t)n;
		return;
	}
	m->len = sizeof(m->text) - 1;
	memcpy(m->text + m->len - 3, "...", 3);
}
