/* SPDX-License-Identifier: MIT */
/* `locktrace dump`: a trace file as text on stdout, the header then one line
 * per event, for people and for grep. */
#ifndef LOCKTRACE_DUMP_H
#define LOCKTRACE_DUMP_H

#include <stddef.h>

/* Prints the trace at path on stdout.  Returns 0, 1 if it cannot be read
 * as a trace (the message in err), or 3 when it is cut short (everything
 * before is printed).  A warning, when reading stopped early, is in err
 * (with 0 too: an end marker after damage); err is "" when all was read. */
int lt_dump(const char *path, char *err, size_t errlen);

#endif
