/* SPDX-License-Identifier: MIT */
#ifndef LOCKTRACE_LOG_H
#define LOCKTRACE_LOG_H

#include <stdarg.h>

/* The messages every command prints on stderr, one line each (the newline
 * is added): "Error: ..." for what stops it, "locktrace: warning: ..." for
 * what it goes on despite. */
void lt_err(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
void lt_warn(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
void lt_verr(const char *fmt, va_list ap) __attribute__((format(printf, 1, 0)));

#endif
