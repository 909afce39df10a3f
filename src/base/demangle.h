/* SPDX-License-Identifier: MIT */
/* Readable names of native frames' symbols (demangle.c). */
#ifndef LOCKTRACE_DEMANGLE_H
#define LOCKTRACE_DEMANGLE_H

#include <stdbool.h>
#include <stddef.h>

/* The OCaml name of a native-code symbol: "camlRepro.worker_399" (OCaml 5)
 * and "camlRepro__worker_123" (OCaml 4) -> "Repro.worker",
 * "camlStdlib__$40_197" -> "Stdlib.@"; anonymous functions keep their stamp
 * ("camlStdlib__List__fun_530" -> "Stdlib.List.fun_530").  Only symbols of
 * the form caml + capital letter are OCaml's (caml_alloc is not).  Returns
 * true and writes OUT (NUL-terminated, cut to LEN) for an OCaml symbol,
 * false otherwise (OUT untouched). */
bool lt_demangle_ocaml(const char *sym, char *out, size_t len);

/* The name to print for a native frame's symbol: demangled when a scheme
 * applies, else SYM.  Returns BUF or SYM. */
const char *lt_func_display(const char *sym, char *buf, size_t len);

#endif
