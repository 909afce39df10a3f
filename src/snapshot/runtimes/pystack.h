/* Python frames of recorded stacks (`record --stacks`, docs/runtimes.md):
 * the CPython thread model's frame reader (rt_cpython.c) in two steps, so
 * that a recorder can read a sleeping thread's frame chain while it still
 * sleeps, cheaply (frame, code object and instruction addresses: one read
 * per frame), and resolve it to functions, files and lines later, in
 * another thread, through a cache of code objects.  The snapshot reads its
 * threads' frames through the same two steps. */
#ifndef LOCKTRACE_PYSTACK_H
#define LOCKTRACE_PYSTACK_H

#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>

#include "lockmodel.h"
#include "snapshot.h"

/* One frame of the chain as read, innermost first. */
enum {
	LT_PYRAW_ENTRY = 1,    /* the last frame its call of the loop runs */
	LT_PYRAW_BOUNDARY = 2, /* 3.12+: a frame owned by the C stack (no code) */
	LT_PYRAW_GEN = 4,      /* owned by a generator */
};
struct lt_pyraw {
	uint64_t frame, code, locals;
	int64_t addr;   /* byte offset of its instruction in the code */
	int32_t lineno; /* the line the frame keeps itself (<= 3.10), 0 none */
	uint8_t flags;
};
/* Why a chain ends early. */
enum { LT_PYRAW_OK, LT_PYRAW_UNREADABLE, LT_PYRAW_LOOP, LT_PYRAW_DEEP,
       LT_PYRAW_CUT /* a waker's copy: its innermost frames only */ };
struct lt_pyraw_stack {
	struct lt_pyraw *f; /* MAX entries, the caller's */
	size_t n, max;
	int end;            /* LT_PYRAW_*, at frame END_AT */
	uint64_t end_at;
};
#define LT_PYSTK_MAX_RAW 512 /* entries a chain needs at most (256 frames) */

/* A CPython process being recorded: its runtime, layout and code objects. */
struct lt_pystk;
/* The process's CPython runtime, identified through E (which must outlive
 * the result: code objects are read through it later); NULL when the
 * process runs no CPython of a known version and layout (NOTES says why
 * for a CPython it cannot read). */
struct lt_pystk *lt_pystk_open(const struct lt_lm_env *e, struct lt_strlist *notes);
void lt_pystk_free(struct lt_pystk *p);
/* The language and version ("CPython 3.11.2"). */
const char *lt_pystk_version(const struct lt_pystk *p);
/* Reads thread TID's raw chain into O through E (any thread: only P's
 * immutable layout is used).  *TS caches TID's thread state between calls
 * (0: not known; checked against TID before use).  1 read (O->n may be 0:
 * no Python frame), 0 TID has no thread state, -1 unreadable. */
int lt_pystk_read(const struct lt_pystk *p, const struct lt_lm_env *e, pid_t tid, uint64_t *ts,
		  struct lt_pyraw_stack *o);
/* Thread TID's thread state, 0 none. */
uint64_t lt_pystk_find_ts(const struct lt_pystk *p, const struct lt_lm_env *e, pid_t tid);
/* Calls FN with each thread state whose thread is known (its tid); how
 * many. */
size_t lt_pystk_each_ts(const struct lt_pystk *p, const struct lt_lm_env *e,
			void (*fn)(void *arg, pid_t tid, uint64_t ts), void *arg);

/* Wakers' Python frames copied by the BPF side (include/locktrace/
 * pyframes.h): the layout it reads them with (0, or -1 when this
 * version's offsets do not fit it: then wakers keep native frames only),
 * and a copy as the chain lt_pystk_read gives (O->max >= LT_PY_COPY_FRAMES
 * entries). */
struct lt_py_layout;
struct lt_py_copy;
int lt_pystk_bpf_layout(const struct lt_pystk *p, struct lt_py_layout *o);
void lt_pystk_from_copy(const struct lt_pystk *p, const struct lt_py_copy *c,
			struct lt_pyraw_stack *o);

/* Resolves O into t->rt_frames (and t->rt_end), placed among t->frames
 * (the thread's native stack) as the snapshot places them.  Code objects
 * are read once per P (an address whose object was freed and reused reads
 * as the first one). */
void lt_pystk_resolve(struct lt_pystk *p, const struct lt_pyraw_stack *o, struct lt_thread *t);

#endif
