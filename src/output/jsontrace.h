/* SPDX-License-Identifier: MIT */
/*
 * The Chrome trace-event JSON writer: a timeline sink, the weaker
 * alternative to the native Perfetto output for viewers that read only
 * JSON (Perfetto imports it too).  It holds the process and thread names,
 * one complete ("X") event per blocking call with its arguments, flow
 * events from each waking call to the wait it ended, a counter per futex
 * with waiters, and an instant wherever events were lost.  It has no
 * scheduler data: no thread states, no "woken by", no critical path.
 *
 * Every string is escaped: quotes, backslashes, control characters,
 * U+2028/U+2029, and bytes that are not valid UTF-8 (as U+FFFD), so a
 * thread named anything still gives a valid document.
 */
#ifndef LOCKTRACE_JSONTRACE_H
#define LOCKTRACE_JSONTRACE_H

#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include "timeline.h"
#include "locktrace/tracefile.h"

struct lt_jsontrace;

/* Starts the document on f (which stays the caller's).  NULL on ENOMEM. */
struct lt_jsontrace *lt_jsontrace_new(FILE *f, const struct lt_header *hdr);
void lt_jsontrace_sink(struct lt_jsontrace *j, struct lt_timeline_sink *sink);
/* Counters are named "futex 0xADDR", or "NAME (futex 0xADDR)" when the
 * lock namer names addr; their value is the argument "waiters".
 * thread_name metadata carry the thread namer's name for a tid (a
 * runtime's thread name), else the comm. */
void lt_jsontrace_set_namers(struct lt_jsontrace *j, const struct lt_namers *names);
/* Ends the document and flushes.  0 or a negative errno. */
int lt_jsontrace_finish(struct lt_jsontrace *j);
void lt_jsontrace_free(struct lt_jsontrace *j);

/* Writes s (len bytes) into out as the body of a JSON string (no quotes),
 * escaped as above, NUL-terminated.  Stops before an escape that would not
 * fit; 6 * len + 1 bytes always suffice.  Returns the bytes written. */
size_t lt_json_escape(char *out, size_t cap, const char *s, size_t len);

#endif
