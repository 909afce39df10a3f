#!/usr/bin/env bash
# Generator, run at build time (Makefile: build/gen/ocaml5_layouts.h): for
# each OCaml 5 program built with a real OCaml 5 compiler (the workloads of
# ../shared/tools' compilers, build/workloads/ocaml-VERSION/ocaml5_locks),
# prints as one C initializer of struct gen_ml5 (tests/lib/gen_layouts.h)
# the layout of the systhreads structures the OCaml 5 model reads, taken
# from the DWARF of the runtime compiled into that program (gdb): they are
# not in any installed header (st_pthreads.h, st_stubs.c are private).
# Usage: ocaml5_layout.sh BINARY...
set -euo pipefail
command -v gdb >/dev/null || { echo "ocaml5_layout.sh: gdb not found (Debian: gdb)" >&2; exit 1; }
for bin in "$@"; do
	ver=$(basename "$(dirname "$bin")"); ver=${ver#ocaml-}
	out=$(gdb -nx -batch \
		-ex 'print sizeof(thread_table)' \
		-ex 'print sizeof(struct caml_thread_table)' \
		-ex 'print (long)&((struct caml_thread_table *)0)->thread_lock' \
		-ex 'print sizeof(((struct caml_thread_table *)0)->thread_lock)' \
		-ex 'print (long)&((st_masterlock *)0)->init' \
		-ex 'print sizeof(((st_masterlock *)0)->init)' \
		-ex 'print (long)&((st_masterlock *)0)->busy' \
		-ex 'print sizeof(((st_masterlock *)0)->busy)' \
		-ex 'print (long)&((st_masterlock *)0)->waiters' \
		-ex 'print (long)&((struct caml_thread_struct *)0)->domain_id' \
		-ex 'print (long)&((struct caml_thread_struct *)0)->c_stack' \
		"$bin" 2>&1 | sed -n 's/^\$[0-9]* = //p')
	if [ "$(echo "$out" | wc -l)" -ne 11 ]; then
		echo "ocaml5_layout.sh: $bin: the DWARF lacks a systhreads structure: $out" >&2
		exit 1
	fi
	read -r tsz stride loff lsz init isz busy bsz wait dom cst <<<"$(echo $out)"
	printf '{ .version = "%s", .binary = "%s", .table_size = %s, .stride = %s, .lock_off = %s, .lock_size = %s, .init = %s, .init_size = %s, .busy = %s, .busy_size = %s, .waiters = %s, .th_domain = %s, .th_c_stack = %s },\n' \
		"$ver" "$bin" $tsz $stride $loff $lsz $init $isz $busy $bsz $wait $dom $cst
done
