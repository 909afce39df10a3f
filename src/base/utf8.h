/* SPDX-License-Identifier: MIT */
/* UTF-8 checks and the escaping of every output: thread names, command
 * lines, paths and symbols are bytes from the kernel or the target, while
 * Perfetto's strings and JSON must be UTF-8 and text for people must not
 * carry control bytes (an escape sequence rewrites the terminal, a newline
 * forges a line).  One escaping for text, one for JSON; both replace bytes
 * that are not UTF-8 with U+FFFD. */
#ifndef LOCKTRACE_UTF8_H
#define LOCKTRACE_UTF8_H

#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

/* Length (1..4) of the valid UTF-8 sequence at s (n bytes available), or 0
 * if s does not start one (stray continuation byte, overlong form,
 * surrogate, beyond U+10FFFF, or cut short). */
size_t lt_utf8_seq(const unsigned char *s, size_t n);

/* Copies s (len bytes, stopping at a NUL) into out with every byte that is
 * not part of a valid sequence replaced by U+FFFD; NUL-terminated, whole
 * characters only.  Returns the bytes written. */
/* Appends code point c as UTF-8 at out + at if it fits with a NUL after it
 * in cap bytes: the new position, or at when it does not fit. */
size_t lt_utf8_put(char *out, size_t cap, size_t at, uint32_t c);
size_t lt_utf8_sanitize(char *out, size_t cap, const char *s, size_t len);

/* JSON: s (len bytes) into out as the body of a JSON string (no quotes):
 * \" \\ \n \t \r \b \f, other controls as \u00XX, U+2028/9 as \u2028/9,
 * bytes that are not UTF-8 as \ufffd; NUL-terminated, whole escapes only
 * (6 * len + 1 bytes always suffice).  Returns the bytes written.  (Also
 * declared in locktrace/jsontrace.h.) */
size_t lt_json_escape(char *out, size_t cap, const char *s, size_t len);
/* s (n bytes, NULs included) as a quoted, escaped JSON string: 0, or EOF
 * if a write failed. */
int lt_json_fputn(FILE *f, const char *s, size_t n);
/* The NUL-terminated s as a quoted, escaped JSON string. */
void lt_json_fput(FILE *f, const char *s);

/* The value of the hex digit c (either case), -1 if it is not one. */
int lt_hex_value(char c);

/* Text for people: s (len bytes, stopping at a NUL) into out, printable
 * ASCII and valid UTF-8 as they are; controls (C0, DEL, C1), the line
 * separators and the bidirectional overrides as \xNN per byte; bytes that
 * are not UTF-8 as U+FFFD.  A backslash is kept, so escaping is idempotent:
 * text built from escaped names can be escaped again as a whole, unchanged.
 * NUL-terminated, whole escapes only (4 * len + 1 bytes always suffice).
 * Returns the bytes written. */
size_t lt_text_escape(char *out, size_t cap, const char *s, size_t len);
/* At most max bytes of s, escaped as lt_text_escape, to f. */
void lt_text_fput(FILE *f, const char *s, size_t max);
/* Escaped text s cut or padded with spaces to cols characters (a table
 * column: printf's "%-15.15s" counts bytes and would cut a UTF-8 sequence
 * in two).  Returns out. */
const char *lt_text_fit(char *out, size_t cap, const char *s, size_t cols);

#endif
