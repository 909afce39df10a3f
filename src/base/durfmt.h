// SPDX-License-Identifier: MIT
#ifndef LOCKTRACE_DURFMT_H
#define LOCKTRACE_DURFMT_H
#include <stddef.h>
#include <stdint.h>

/* ns as a person reads a duration: "2.35 s", "12.5 ms", "40 us", "900 ns"
 * (three significant digits at most; never "0.0 s" for a short one) */
void lt_fmt_dur(uint64_t ns, char *buf, size_t len);

#endif
