/* SPDX-License-Identifier: MIT */
/* OCaml 5 frames of recorded stacks (`record --stacks`, docs/runtimes.md).
 *
 * OCaml 5 runs OCaml code on stacks of its own (fibers: malloc'd, not the
 * thread's stack).  A call into C (Mutex.lock -> caml_ml_mutex_lock)
 * goes through one of the runtime's entry points (caml_c_call, ...), which
 * saves the OCaml stack pointer in a struct c_stack_link at the top of
 * the C stack and switches to the C stack; the entry point's DWARF CFI
 * leads an unwinder back from the C stack to the OCaml one through that
 * link.  A waiter's stack copied from its sp holds only the C stack: the
 * OCaml frames above are on the other stack, which has changed once the
 * unwinder reads it (the wait over, the process perhaps gone).  So the
 * recorder copies that stack too, while the thread sleeps:
 *   in the C stack copy, the innermost return address into an entry
 *   point; the c_stack_link just above it (its stack_info, whose handler
 *   ends the stack, and the saved OCaml sp between the two); the OCaml
 *   stack from that sp, at most LT_OCSTK_COPY_BYTES.
 * The unwinder then reads the OCaml frames from that copy (their names
 * and lines from the program's symbols and DWARF, as any native frame,
 * printed in OCaml's terms: src/base/demangle.h).  Layout: struct
 * c_stack_link { stack, sp, prev } and struct stack_info { sp,
 * exception_ptr, handler, ... } (runtime/caml/fiber.h, 5.0 to 5.4, amd64:
 * no reserved words). */
#ifndef LT_STACKREC_OCAML_H
#define LT_STACKREC_OCAML_H

#include <stddef.h>
#include <stdint.h>
#include "lockmodel.h"

#define LT_OCSTK_COPY_BYTES (16u * 1024u) /* of the OCaml stack, from its sp */
#define LT_OCSTK_ENTRIES 4

/* A process's OCaml 5 runtime: where its stack-switching entry points are. */
struct lt_ocstk {
	struct {
		uint64_t lo, hi;
	} entry[LT_OCSTK_ENTRIES];
	size_t nentry;
};

/* The OCaml 5 runtime of the process E looks up (caml_c_call and the other
 * entry points; caml_runstack tells 5.x from 4.x, whose caml_c_call does
 * not switch stacks); NULL when it runs none. */
struct lt_ocstk *lt_ocstk_open(const struct lt_lm_env *e);
void lt_ocstk_free(struct lt_ocstk *o);

/* O's entry points for the BPF side, which copies a waker's OCaml stack at
 * the wake-up the same way (locktrace/ocframes.h): 0, or -1 none. */
struct lt_oc_layout;
int lt_ocstk_bpf_layout(const struct lt_ocstk *o, struct lt_oc_layout *l);

/* The OCaml stack under a waiter's C stack copy (LEN bytes from BASE, its
 * sp then), read through E while the thread still sleeps: 1 (*OUT
 * malloc'd, *OUT_LEN bytes from *OUT_BASE), 0 the copy holds no call from
 * OCaml code (a C thread, or its link is not in the copy), -1 the link or
 * the OCaml stack could not be read. */
int lt_ocstk_copy(const struct lt_ocstk *o, const struct lt_lm_env *e, const uint8_t *copy,
		  size_t len, uint64_t base, uint8_t **out, uint64_t *out_base, size_t *out_len);

#endif
