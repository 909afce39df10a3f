/* SPDX-License-Identifier: MIT */
#ifndef LT_GEN_TRACE_H
#define LT_GEN_TRACE_H
#include <stdint.h>
/* Writes PATH (replacing it): n threads each waiting on its own futex at
 * the end, after one wait each that the main thread woke.  0 or an error. */
int lt_gen_own_futex_trace(const char *path, unsigned n);
/* The same, woken: 0 -- each thread's only wait is the one at the end. */
int lt_gen_futex_trace(const char *path, unsigned n, int woken);
/* And syms: a SYMBOLS section naming the word after each futex. */
int lt_gen_futex_trace_syms(const char *path, unsigned n, int woken, int syms);

/* Where the parts of lt_gen_chunked_trace's file are: [start, end) of
 * each, in file order. */
enum { LT_GEN_SYMS_A, LT_GEN_WAITS, LT_GEN_SYMS_B, LT_GEN_WAKES, LT_GEN_SYMS_C, LT_GEN_FINAL,
       LT_GEN_STATS, LT_GEN_END, LT_GEN_PARTS };
struct lt_gen_layout {
	uint64_t start[LT_GEN_PARTS], end[LT_GEN_PARTS];
	uint64_t header_end;
	unsigned events[LT_GEN_PARTS]; /* in each events chunk */
	uint64_t first_ts[LT_GEN_PARTS], last_ts[LT_GEN_PARTS];
};
/* As lt_gen_futex_trace(path, 3, woken=1), each phase its own events
 * chunk (the first waits, the wakes, the waits at the end), with a
 * SYMBOLS section before each naming one thread's futex word ("lock_1"
 * before the first waits, "lock_2" before the wakes, "lock_3" before the
 * last waits), and a STATS trailer counting every event by kind. */
int lt_gen_chunked_trace(const char *path, struct lt_gen_layout *lay);
#endif
