/* SPDX-License-Identifier: MIT */
#ifndef LOCKTRACE_LOG_H
#define LOCKTRACE_LOG_H

#include <stdarg.h>
#include <stddef.h>

/* Every message a command prints on stderr (progress lines that redraw
 * themselves are output, not messages) goes through here: one line each,
 * the newline added, its prefix chosen by its kind:
 *
 *   lt_err        "Error: ..."               what stops the command
 *   lt_warn       "locktrace: warning: ..."  what it goes on despite
 *   lt_note       "locktrace: note: ..."     what limits the result
 *   lt_info       "locktrace: ..."           what the command did or does
 *   lt_info_self  "locktrace (pid N): ..."   the same, naming our own pid
 *                                            (for whoever wants to signal us)
 *   lt_more       "..."                      a further line of the message
 *                                            just said, indented by the caller
 *
 * Whether to say it at all (-q) is the caller's choice. */
void lt_err(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
void lt_warn(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
void lt_note(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
void lt_info(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
void lt_info_self(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
void lt_more(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
void lt_verr(const char *fmt, va_list ap) __attribute__((format(printf, 1, 0)));
/* A library's own message (libbpf's, with -v), as it comes: it brings its
 * own newlines and prefix.  What vfprintf returns. */
int lt_vlib(const char *fmt, va_list ap) __attribute__((format(printf, 1, 0)));

/* A message said in parts: lt_msg_add() appends to text (cut short, ending
 * in "...", past its size), then lt_info("%s", m.text) or the like says it
 * as one line. */
struct lt_msg {
	char text[8192];
	size_t len;
};
void lt_msg_add(struct lt_msg *m, const char *fmt, ...) __attribute__((format(printf, 2, 3)));

#endif
