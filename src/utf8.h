/* SPDX-License-Identifier: MIT */
/* UTF-8 checks for the writers: thread names and command lines are bytes
 * from the kernel, while Perfetto's strings and JSON must be UTF-8. */
#ifndef LOCKTRACE_UTF8_H
#define LOCKTRACE_UTF8_H

#include <stddef.h>

/* Length (1..4) of the valid UTF-8 sequence at s (n bytes available), or 0
 * if s does not start one (stray continuation byte, overlong form,
 * surrogate, beyond U+10FFFF, or cut short). */
size_t lt_utf8_seq(const unsigned char *s, size_t n);

/* Copies s (len bytes, stopping at a NUL) into out with every byte that is
 * not part of a valid sequence replaced by U+FFFD; NUL-terminated, whole
 * characters only.  Returns the bytes written. */
size_t lt_utf8_sanitize(char *out, size_t cap, const char *s, size_t len);

#endif
