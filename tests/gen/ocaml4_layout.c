/* Generator, compiled at build time against the installed OCaml 4
 * runtime's headers (`ocamlc -where`/caml, Debian: ocaml-nox; Makefile:
 * build/gen/ocaml4_layouts.h), never linked into locktrace: prints, as one
 * C initializer of struct gen_ml4 (tests/lib/gen_layouts.h), where
 * Caml_state keeps the running thread's stack pointers, which the OCaml 4
 * model reads (src/snapshot/runtimes/lock_ocaml.c).  OCaml 5 prints no row
 * (its layout comes from DWARF: ocaml5_layout.sh). */
#define CAML_INTERNALS 1
#include <caml/version.h>
#include <stddef.h>
#include <stdio.h>

#if OCAML_VERSION_MAJOR == 4 && OCAML_VERSION_MINOR >= 10
#include <caml/mlvalues.h>
#include <caml/domain_state.h>
#endif

int main(int argc, char **argv)
{
#if OCAML_VERSION_MAJOR == 4 && OCAML_VERSION_MINOR >= 10
	printf("{ .version = \"%s\", .incdir = \"%s\", .top_of_stack = %ld, .bottom_of_stack = %ld },\n",
	       OCAML_VERSION_STRING, argc > 1 ? argv[1] : "?",
	       (long)offsetof(caml_domain_state, _top_of_stack),
	       (long)offsetof(caml_domain_state, _bottom_of_stack));
#else
	printf("/* %s: OCaml %s: no Caml_state stack pointers to check */\n", argc > 1 ? argv[1] : "?",
	       OCAML_VERSION_STRING);
#endif
	return 0;
}
