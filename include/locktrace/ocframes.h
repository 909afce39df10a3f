/* SPDX-License-Identifier: MIT */
/* record --stacks, --calls blocking: a waker's OCaml 5 stack, copied by the
 * BPF side at the wake-up (the release site), with its C stack: OCaml 5
 * runs OCaml code on stacks of its own, and the waker runs on from the
 * wake-up, so that stack read later holds the frames of a later moment
 * (src/record/stackrec_ocaml.h for the waiters' side, read while they
 * sleep).  The collector tells the BPF side, per OCaml 5 process, where the
 * runtime's stack-switching entry points are (oc_layouts, key tgid); the
 * BPF side finds in the C stack bytes it copied the innermost return
 * address into one of them, the struct c_stack_link above it { stack, sp,
 * prev } and the stack's struct stack_info { sp, exception_ptr, handler },
 * and copies the OCaml stack from the saved sp to the handler (and its 4
 * words), at most LT_OC_COPY_BYTES.  The copy follows the struct
 * lt_stack_copy in the same ring record (a record without it: no layout
 * for the process). */
#ifndef LOCKTRACE_OCFRAMES_H
#define LOCKTRACE_OCFRAMES_H

#ifndef __bpf__
#include <stdint.h>
#endif

#define LT_OC_ENTRIES 4
#define LT_OC_COPY_BYTES 2048u /* of the OCaml stack, from its sp (a power of two) */
#define LT_OC_LINK_WORDS 32    /* words above the return address tried for the link */
#define LT_OC_STACK_MAX (1ull << 30)

struct lt_oc_layout {
	uint64_t lo[LT_OC_ENTRIES], hi[LT_OC_ENTRIES]; /* a return address in (lo, hi] */
	uint32_t n;
	uint32_t pad;
};

/* Why the copy holds what it holds. */
enum {
	LT_OCC_ALL = 0,        /* the stack to its handler */
	LT_OCC_CUT = 1,        /* its first LT_OC_COPY_BYTES */
	LT_OCC_NO_CALL = 2,    /* no return address into an entry point (or its link) in the C stack copied */
	LT_OCC_UNREADABLE = 3, /* the stack_info or the OCaml stack could not be read */
};

#define LT_OC_COPY_MAGIC 0x4f435743u /* "OCWC" */
struct lt_oc_copy {
	uint32_t magic;
	uint32_t end; /* LT_OCC_* */
	uint32_t len; /* bytes in data, from base (the saved OCaml sp) */
	uint32_t pad;
	uint64_t base;
	uint8_t data[LT_OC_COPY_BYTES];
};

#endif
