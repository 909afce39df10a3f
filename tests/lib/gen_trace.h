/* SPDX-License-Identifier: MIT */
#ifndef LT_GEN_TRACE_H
#define LT_GEN_TRACE_H
/* Writes PATH (replacing it): n threads each waiting on its own futex at
 * the end, after one wait each that the main thread woke.  0 or an error. */
int lt_gen_own_futex_trace(const char *path, unsigned n);
/* The same, woken: 0 -- each thread's only wait is the one at the end. */
int lt_gen_futex_trace(const char *path, unsigned n, int woken);
/* And syms: a SYMBOLS section naming the word after each futex. */
int lt_gen_futex_trace_syms(const char *path, unsigned n, int woken, int syms);
#endif
