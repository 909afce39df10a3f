/* locktrace runtime thread models: every thread as its language runtime
 * knows it, its name and its stack in the language's own terms, read from
 * the runtime's memory through struct lt_lm_env (lockmodel.h): never by
 * ptrace, a signal or code run in the target.  See docs/runtimes.md.
 *
 * A model fills the rt_* fields of struct lt_thread (snapshot.h):
 * rt_lang, rt_name, rt_frames (each placed among the native frames where
 * the runtime's interpreter loop runs it) and rt_end.  A runtime whose lock
 * model already reads its threads (HotSpot, lt_lockmodel.scan in
 * lockmodel.h) fills the same fields from there; where the runtime's
 * own lock objects explain a futex wait, it names them in t->futex
 * (lock_kind, lock_base, lock_name).  Problems are notes; an unknown
 * runtime version or layout is said, never guessed.
 */
#ifndef LOCKTRACE_RTTHREAD_H
#define LOCKTRACE_RTTHREAD_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "lockmodel.h"
#include "snapshot.h"

#ifdef __cplusplus
extern "C" {
#endif

/* A runtime thread model: sets the rt_* fields of the threads of S that
 * the runtime knows, adds problems to s->notes (process) or t->notes. */
struct lt_rtmodel {
	const char *name;
	void (*apply)(const struct lt_lm_env *e, struct lt_snapshot *s);
};

/* The models, NULL-terminated. */
extern const struct lt_rtmodel *const lt_rtmodels[];

/* Runs every model on S.  Pure given E: tests pass a synthetic
 * environment.  Runs after the user stacks are unwound (placement needs
 * them) and after lt_lockmodels_apply, which starts every thread's rt_*
 * afresh and may fill them for the threads a lock model's scan knows
 * (HotSpot's Java threads): a model skips a thread whose rt_lang is set.
 * Before the verdicts. */
void lt_rtthreads_apply(struct lt_snapshot *s, const struct lt_lm_env *e);

/* Places t->rt_frames among t->frames.  GROUP[i] says which invocation of
 * the interpreter loop runs runtime frame i, 0 being the innermost; IS_LOOP
 * says whether a native function name is that loop.  Invocation k is the
 * k-th native loop frame from the innermost: rt_frames[i].native is set to
 * its index, or -1 when the native stack has fewer loop frames (then that
 * frame and every outer one stays unplaced and t->notes says why). */
void lt_rt_place(struct lt_thread *t, const unsigned *group, bool (*is_loop)(const char *func));

/* Places t->rt_frames among t->frames for a runtime whose frames are
 * machine frames the unwinder walked too (Java's interpreter and compiled
 * frames, `??` to the unwinder): the frames of group k (GROUP[i], as
 * above: one machine frame, e.g. a compiled method and the methods inlined
 * into it) all have that frame's pc, and go to the first native frame with
 * that pc outer than the previous group's.  Without CODE, a group whose pc
 * no native frame has stays unplaced (.native -1; the unwinder lost its
 * way in JIT code, or --max-frames cut it) and t->notes says how many.
 * With CODE, only the native frames from the first one in the runtime's
 * code up to the frame that entered it (code->entry) or the first one
 * outside it are candidates, and a group no frame has goes with the next
 * group placed or, the outermost ones, with that entry frame, so the
 * runtime's frames always keep their order among the native ones (the
 * unwinder skips compiled frames, which keep no frame pointer); t->notes
 * says how many were placed so, and only frames past a native stack that
 * stopped inside the code stay unplaced.  Returns how many were placed by
 * that rule. */
size_t lt_rt_place_pc(struct lt_thread *t, const unsigned *group, const struct lt_rt_code *code);

/* ---- CPython line tables (pure; rt_cpython_lines.c) -------------------- */

/* The source line of the instruction at byte offset ADDR of a code object
 * whose first line is FIRST, from its line table TAB (N bytes):
 *   _lnotab: co_lnotab of 3.8 and 3.9 (pairs: address increment, signed
 *            line increment);
 *   _310:    co_linetable of 3.10 (pairs: address range length, signed line
 *            delta, -128 = no line);
 *   _311:    co_linetable of 3.11-3.13, the location table (entries of one
 *            header byte, 0x80 | code << 3 | (units - 1), then varints).
 * Returns the line, 0 when the instruction has no line (or ADDR is past
 * the table), -1 when the table is malformed.  ADDR < 0 gives FIRST. */
int lt_py_line_lnotab(const uint8_t *tab, size_t n, int first, int addr);
int lt_py_line_310(const uint8_t *tab, size_t n, int first, int addr);
int lt_py_line_311(const uint8_t *tab, size_t n, int first, int addr);

/* The same with an index of TAB built once (lt_py_index_build, then
 * lt_py_line_at with it; IX NULL: scan from the start): a lookup scans at
 * most 64 entries past the nearest mark, so a table read for many frames
 * is not scanned whole for each.  Build: 0, or -1 (no memory). */
enum lt_py_lines { LT_PY_LNOTAB, LT_PY_310, LT_PY_311 };
struct lt_py_mark {
	size_t pos;   /* byte offset of an entry                 */
	int64_t at;   /* its address (lnotab: before its increment) */
	int64_t line; /* the line deltas before it, added up     */
};
struct lt_py_index {
	struct lt_py_mark *v;
	size_t n;
};
int lt_py_index_build(enum lt_py_lines fmt, const uint8_t *tab, size_t n, struct lt_py_index *ix);
void lt_py_index_free(struct lt_py_index *ix);
int lt_py_line_at(enum lt_py_lines fmt, const uint8_t *tab, size_t n, const struct lt_py_index *ix,
		  int first, int addr);

/* ---- names of frames (demangle.c) -------------------------------------- */

#include "demangle.h"  /* lt_demangle_ocaml, lt_func_display */

#ifdef __cplusplus
}
#endif
#endif
