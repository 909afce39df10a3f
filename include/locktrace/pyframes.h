/* SPDX-License-Identifier: MIT */
/* record --stacks, --calls blocking: a waker's Python frames, read by the
 * BPF side at the wake-up (the release site), in the waker's own context:
 * by the time the collector sees the copy, the waker runs on and its
 * frames are gone.  The collector tells the BPF side, per CPython process,
 * where the frame chain's fields are (py_layouts, key tgid), and per
 * thread its thread state's address (py_tstates, key tid), which it reads
 * from the process (src/snapshot/runtimes/rt_cpython.c); the BPF side
 * copies up to LT_PY_COPY_FRAMES frames, innermost first, as raw words
 * the collector interprets with the same layout.  The copy follows the
 * struct lt_stack_copy in the same ring record (a record without it: no
 * layout for the process, native frames only). */
#ifndef LOCKTRACE_PYFRAMES_H
#define LOCKTRACE_PYFRAMES_H

#ifndef __bpf__
#include <stdint.h> /* for BPF, vmlinux.h typedefs the same names */
#endif

#define LT_PY_COPY_FRAMES 32
#define LT_PY_BLOCK 0x80 /* bytes of a frame read at most (one read per frame) */

/* Where the frames are, for one process (every offset a multiple of 8,
 * below block, which is at most LT_PY_BLOCK). */
struct lt_py_layout {
	uint32_t ts_frame;  /* thread state -> its frame (or, cf_frame >= 0, its cframe) */
	int32_t cf_frame;   /* the cframe's current frame; -1: none (ts_frame is it) */
	uint32_t ts_native; /* the thread state's native thread id (0: not checked) */
	uint32_t block;     /* bytes of a frame read */
	uint32_t off_prev;  /* the next (outer) frame */
	uint32_t off_code;  /* its code object */
	uint32_t off_a;     /* 3.11+: the instruction pointer; <= 3.10: f_lasti, f_lineno */
	uint32_t off_b;     /* 3.11+: the word holding owner (and is_entry); <= 3.10: f_trace */
	uint32_t deep;      /* waiters' copies take LT_STACK_COPY_DEEP more bytes of
			     * stack (<= 3.10: a C frame of the loop per Python call) */
	uint32_t pad;
};

struct lt_py_rawframe {
	uint64_t frame, code, a, b; /* a, b: the words at off_a, off_b */
};

/* Why the copied chain ends. */
enum {
	LT_PYC_ALL = 0,        /* the whole chain (n may be 0: no Python frame) */
	LT_PYC_UNREADABLE = 1, /* frame end_at could not be read */
	LT_PYC_CUT = 2,        /* LT_PY_COPY_FRAMES copied, frame end_at is the next */
	LT_PYC_NO_TSTATE = 3,  /* the thread's thread state is not known (or is
				* another thread's): nothing copied */
};

#define LT_PY_COPY_MAGIC 0x50595743u /* "PYWC" */
struct lt_py_copy {
	uint32_t magic;
	uint32_t n;   /* frames copied */
	uint32_t end; /* LT_PYC_* */
	uint32_t pad;
	uint64_t end_at;
	uint64_t tstate; /* the thread state it was read from */
	struct lt_py_rawframe f[LT_PY_COPY_FRAMES];
};

/* A waiter's copy of a process whose layout says deep: the stack goes on
 * past the struct lt_stack_copy's LT_STACK_COPY_BYTES into
 * LT_STACK_COPY_DEEP more bytes right after it (len counts both; the
 * copy's pad has LT_COPY_F_DEEP), then the struct lt_py_copy. */
#define LT_STACK_COPY_DEEP (14u * 1024u)
#define LT_COPY_F_DEEP 1

#endif
