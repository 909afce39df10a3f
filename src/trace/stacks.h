/* SPDX-License-Identifier: MIT */
/* Call stacks of waits (`record --stacks`): the STACKS sections of a trace
 * (docs/trace-format.md, since 1.5).  A section holds interned stacks
 * (id -> frames) and references (a wait, named by its thread and the
 * timestamp of the event that began it, -> a stack id).  Stack ids are
 * unique in a trace; later sections may refer to stacks of earlier ones.
 *
 * Encoder: lt_stacks_put_stack / lt_stacks_put_ref into a struct
 * lt_stackbuf, whose bytes are the section's payload.  Decoder:
 * lt_stacktab_add (a section) then lt_stacktab_find (a wait's stack). */
#ifndef LT_STACKS_H
#define LT_STACKS_H

#include <stddef.h>
#include <stdint.h>
#include "strtab.h"
#include "u64map.h"

enum lt_sframe_lang {
	LT_SFRAME_NATIVE = 0,
	LT_SFRAME_PYTHON = 1, /* a Python function: func, file, line; no pc */
	LT_SFRAME_JAVA = 2,   /* a Java method: "Class.method", file, line; no pc */
};

struct lt_sframe {
	uint64_t pc;      /* return address (the innermost: the pc itself); 0
	                     for a runtime's own frame (lang) */
	char *func;       /* NULL unknown */
	uint64_t func_off;
	char *module;     /* basename, NULL unknown */
	char *file;       /* source file (DWARF), NULL unknown */
	uint32_t line;    /* 0 unknown */
	uint32_t lang;    /* enum lt_sframe_lang: a runtime's frame, placed
	                     above the native frame that runs it */
	uint32_t inlined; /* a native call inlined into the next frame (same
	                     pc; its DWARF's inlined subroutine), 0 not */
};

struct lt_stack {
	uint32_t id;     /* > 0 */
	int32_t tgid;    /* its process */
	uint32_t nframes;
	struct lt_sframe *frames; /* innermost first */
	char *end;       /* why the unwind stopped, NULL: at a thread's start */
};

enum lt_stack_role {
	LT_STACK_WAITER = 1, /* the waiting thread's stack as it slept */
	LT_STACK_WAKER = 2,  /* the waker's, at the wake-up (release site) */
};

struct lt_stack_ref {
	int32_t tid;
	uint64_t ts;       /* the event that began the wait (BOOTTIME ns) */
	uint32_t stack_id;
	uint32_t role;     /* enum lt_stack_role */
	uint64_t delay_ns; /* how long after ts the stack was read (0 unknown) */
	/* the runtime lock the wait is for, in the runtime's terms, where the
	 * futex does not name it (a JVM thread parks on a futex of its own:
	 * "Java monitor Mon@0x71a3b2e40"), read with the stack: its object's
	 * address and name (NULL none; the table's or the recorder's own) */
	uint64_t rtlock;
	const char *rtlock_name;
};

/* ---- encoding ---- */
struct lt_stackbuf {
	uint8_t *p;
	size_t len, cap;
	int oom;
};
void lt_stacks_put_stack(struct lt_stackbuf *b, const struct lt_stack *s);
void lt_stacks_put_ref(struct lt_stackbuf *b, const struct lt_stack_ref *r);
/* Key 3: the recording was made with --stacks, sampling 1 in sample_every
 * shorter waits (0 none); written once, in the first section. */
void lt_stacks_put_recording(struct lt_stackbuf *b, int sample_every);
void lt_stackbuf_free(struct lt_stackbuf *b);

/* ---- decoding ---- */
struct lt_stacktab {
	struct lt_u64map ids;   /* stack id -> struct lt_stack * */
	struct lt_u64map refs;  /* hash of (tid, ts, role) -> struct ref_node * chain */
	struct lt_stack **stacks; /* in the order read */
	size_t nstacks, cap_stacks;
	size_t nrefs;
	struct lt_strtab names;    /* the references' rtlock_name, one copy each */
	int damaged;            /* a section could not be read whole */
	/* a section said the trace was recorded with --stacks (key 3: 1.6
	 * recorders write it in their first section, stacks or none), and
	 * with which --stack-sample (0 none) */
	int recorded;
	uint32_t sample_every;
};
/* Adds a section's stacks and references.  0, or -1 when it is malformed
 * (what came before the damage is kept; damaged set). */
int lt_stacktab_add(struct lt_stacktab *t, const uint8_t *data, size_t len);
/* The stack of role for the wait tid began at ts, or NULL. */
const struct lt_stack *lt_stacktab_find(const struct lt_stacktab *t, int32_t tid, uint64_t ts,
					uint32_t role);
/* The reference of role for the wait tid began at ts (its stack id and
 * runtime lock), or NULL. */
const struct lt_stack_ref *lt_stacktab_find_ref(const struct lt_stacktab *t, int32_t tid, uint64_t ts,
						uint32_t role);
const struct lt_stack *lt_stacktab_get(const struct lt_stacktab *t, uint32_t id);
void lt_stacktab_free(struct lt_stacktab *t);
/* Calls fn for every reference (in no particular order). */
void lt_stacktab_each_ref(const struct lt_stacktab *t,
			  void (*fn)(void *ctx, const struct lt_stack_ref *r), void *ctx);
/* Every STACKS section of the trace at path into t (a pass over the file).
 * 0 (even with none), -1 when the file cannot be read. */
int lt_trace_stacks(const char *path, struct lt_stacktab *t);

void lt_stack_free(struct lt_stack *s);
/* The name to show for a frame's function: a native frame of OCaml code
 * in OCaml's terms ("camlSites5.site_alpha_279" -> "Sites5.site_alpha",
 * src/base/demangle.h), as the snapshot prints it; else its func (NULL:
 * unknown).  Returns BUF or f->func. */
const char *lt_sframe_func(const struct lt_sframe *f, char *buf, size_t len);
/* "func+0x12 (file.c:40) [module]" for one frame (func as lt_sframe_func), into buf; a Python
 * frame: "func (file.py:12) [python]" */
const char *lt_sframe_text(const struct lt_sframe *f, char *buf, size_t len);

#endif
