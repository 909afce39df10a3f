/* SPDX-License-Identifier: MIT */
/* Go frames of recorded stacks (`record --stacks`, docs/runtimes.md).
 *
 * A goroutine in a blocking system call (a read on a blocking fd, flock,
 * a cgo-less raw syscall) sleeps on its own stack, which the recorder
 * copies and unwinds like any native stack (Go emits CFI in .debug_frame,
 * and .symtab names its functions: main.worker).  Go's DWARF has no
 * .debug_aranges, which libdw needs to find a pc's line, so these frames
 * came without file and line: here they get them from the executable's
 * .gopclntab, as the snapshot's Go model names goroutine frames
 * (src/snapshot/runtimes/rt_go_pcln.c), inlined calls expanded with the
 * inline tree (funcdata 3 in go:func.*, read from the file). */
#ifndef LT_STACKREC_GO_H
#define LT_STACKREC_GO_H

#include <stddef.h>
#include <sys/types.h>
#include "lockmodel.h"
#include "symbols.h"

struct lt_gostk;
/* Process PID's executable's pclntab (E: the process's symbols, for the
 * load bias of a position-independent one); NULL when it is no Go 1.18+
 * program. */
struct lt_gostk *lt_gostk_open(pid_t pid, const struct lt_lm_env *e);
void lt_gostk_free(struct lt_gostk *g);
/* The frames of F[0..N), those in the Go executable's text given their
 * file and line from the pclntab (the innermost's own pc, the others'
 * return address - 1; their function's name if they had none), and a frame
 * running inlined calls preceded by one frame per call, innermost first
 * (the pc of the frame that runs them).  *OUT: a new array of *OUT_N
 * frames (strings of their own: F stays the caller's); 0, or -1 (out of
 * memory, or no G). */
int lt_gostk_frames(const struct lt_gostk *g, struct lt_frame *f, size_t n, struct lt_frame **out,
		    size_t *out_n);

#endif
