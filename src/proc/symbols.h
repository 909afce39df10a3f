/* locktrace symbols: addresses of a live process -> names, and user stack
 * unwinding, with elfutils (libdwfl) and without ptrace.
 *
 * One struct lt_sym per target process: /proc/PID/maps is parsed once, the
 * modules are reported to one Dwfl once, and symbol/line lookups are cached
 * by address, so symbolizing 1,000 threads costs little more than one.
 */
#ifndef LOCKTRACE_SYMBOLS_H
#define LOCKTRACE_SYMBOLS_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>

#include "snapshot.h"

#ifdef __cplusplus
extern "C" {
#endif

struct Dwfl;

/* ---- target memory (procmem.c) ---------------------------------------- */

/* Reads memory of a live process: process_vm_readv, falling back to
 * pread(/proc/PID/mem) when the former is refused or unavailable. */
struct lt_mem {
	pid_t pid;
	int mem_fd;       /* /proc/PID/mem, opened on first fallback; -1 */
	bool no_vm_readv; /* process_vm_readv failed with ENOSYS/EPERM    */
};
void lt_mem_init(struct lt_mem *m, pid_t pid);
void lt_mem_close(struct lt_mem *m);
/* Read exactly LEN bytes at ADDR.  Returns 0 or -errno (-EFAULT for a short
 * read or an unmapped address). */
int lt_mem_read(struct lt_mem *m, uint64_t addr, void *buf, size_t len);

/* ---- mappings and symbolization (symbols.c) ---------------------------- */

struct lt_map {
	uint64_t start, end, offset, inode;
	char perms[5];
	char *path;        /* NULL for anonymous; "[heap]", "[stack]", ...  */
	pid_t stack_tid;   /* a thread whose sp is inside, 0 if none        */
};

struct lt_sym;

enum {
	LT_SYM_NO_DWFL = 1u << 0,  /* maps only: no ELF symbols, no unwinding */
	LT_SYM_NO_LINES = 1u << 1, /* skip file:line (no DWARF loading)       */
};

/* Open the symbolizer for PID.  Never fails for a live process unless out
 * of memory: problems (no maps, no modules) are appended to NOTES (may be
 * NULL).  Returns NULL if /proc/PID/maps cannot be read at all. */
struct lt_sym *lt_sym_open(pid_t pid, unsigned flags, struct lt_strlist *notes);
void lt_sym_close(struct lt_sym *s);

struct lt_mem *lt_sym_mem(struct lt_sym *s);
struct Dwfl *lt_sym_dwfl(struct lt_sym *s);  /* NULL with LT_SYM_NO_DWFL */
pid_t lt_sym_pid(const struct lt_sym *s);

/* Mappings sorted by address; lookup is a binary search. */
const struct lt_map *lt_sym_map_at(const struct lt_sym *s, uint64_t addr);
/* Reads /proc/PID/maps again (the stacks of threads started since, a
 * module mapped since is not reported to the unwinder by this): 0 or
 * -errno (the old table kept).  Pointers from lt_sym_map_at are invalid
 * after it. */
int lt_sym_reread_maps(struct lt_sym *s);
/* Record that thread TID's stack pointer is SP: its mapping becomes
 * "[stack of thread TID]".  The main "[stack]" belongs to the pid. */
void lt_sym_note_stack(struct lt_sym *s, pid_t tid, uint64_t sp);
/* The bounds of the mapping holding ADDR if it looks like a thread's stack
 * (an anonymous writable mapping above a guard) and no noted stack pointer
 * claimed it (a running thread's: its registers are not read); false
 * otherwise. */
bool lt_sym_stack_unclaimed(const struct lt_sym *s, uint64_t addr, uint64_t *start, uint64_t *end);

/* Identity of a data address, malloc'd: "rtlock", "rtlock+0x28" (global in
 * the executable), "libc.so.6:sym+0x10", "libfoo.so+0x1234", "[heap]+0x2a0",
 * "[stack of thread 812]+0x1f40", "[anon 0x7f12a000000]+0x40", "unmapped". */
char *lt_sym_describe(struct lt_sym *s, uint64_t addr);

/* Symbolize a code address into OUT (fields malloc'd; pc/activation set).
 * ACTIVATION false means PC is a return address: pc-1 is looked up. */
void lt_sym_frame(struct lt_sym *s, uint64_t pc, bool activation, struct lt_frame *out);
/* Expands *FRAMES (*N of them, innermost first, as lt_sym_frame made them)
 * with the calls the compiler inlined at each pc, as addr2line -i does:
 * each pc's DWARF inlined subroutines (dwarf_getscopes), innermost first,
 * become frames of their own (inlined set: the function's name, and the
 * file and line where pc is in it) before the frame of the function they
 * are in, whose line becomes that of the outermost inlined call.  Cached
 * per pc; not for Go's code (its pclntab expands it, stackrec_go.h) nor
 * with LT_SYM_NO_LINES.  At most MAX frames in all: a frame whose inlined
 * calls would pass it keeps its own line, unexpanded, as do the rest.
 * Out of memory: left as they were. */
void lt_sym_expand_inlined(struct lt_sym *s, struct lt_frame **frames, size_t *n, size_t max);
/* Whether MODULE (a basename) is one of glibc's (libc.so.6, ld-linux...). */
bool lt_sym_is_glibc(const char *module);
/* The glibc module some frame of which lt_sym_frame left unnamed for want
 * of its debug symbols (Debian: libc6-dbg), or NULL; and the note that says
 * so, appended to NOTES.  The separate debug files are looked for in
 * $LOCKTRACE_DEBUGINFO_PATH (libdwfl's syntax) if set, else in libdwfl's
 * default places (/usr/lib/debug). */
const char *lt_sym_unnamed_glibc(const struct lt_sym *s);
void lt_sym_debug_notes(const struct lt_sym *s, struct lt_strlist *notes);
/* Address (and size, if SIZE) of the symbol NAME: the executable's
 * .symtab/.dynsym first, then the dynamic symbols (.dynsym) of every
 * other module: what a library exports, read without its debug file.
 * 0 or -ENOENT. */
int lt_sym_lookup(struct lt_sym *s, const char *name, uint64_t *addr, uint64_t *size);
/* How many modules had their symbol table (symtabs) or their debug
 * information (debuginfo, for file:line) loaded so far: none for what the
 * cache between runs (src/proc/symcache.h) already knew. */
void lt_sym_loads(const struct lt_sym *s, unsigned *symtabs, unsigned *debuginfo);
/* True if ADDR lies in an executable mapping. */
bool lt_sym_is_code(const struct lt_sym *s, uint64_t addr);

/* ---- unwinding (unwind.c) ----------------------------------------------- */

/* Initial registers for one thread.  FULL false: only sp and ip are known
 * (the /proc fallback); the others are left undefined for the CFI engine. */
struct lt_unwind_regs {
	struct lt_regs r;
	bool full;
};

/* One unwinder per lt_sym (libdwfl allows one attached state per Dwfl):
 * it attaches the symbolizer's Dwfl with our own Dwfl_Thread_Callbacks
 * (memory via process_vm_readv, registers from the caller; no ptrace).
 * Free it before lt_sym_close.  Returns NULL (and *ERR malloc'd, if ERR is
 * not NULL) when the process has no modules to unwind with. */
struct lt_unwinder;
struct lt_unwinder *lt_unwinder_new(struct lt_sym *s, char **err);
/* Machine frames only from now on: no frames for the calls the compiler
 * inlined (lt_sym_expand_inlined), as the snapshot's rules, which look
 * for functions among a stack's first few frames, read them. */
void lt_unwinder_no_inlines(struct lt_unwinder *u);
void lt_unwinder_free(struct lt_unwinder *u);

/* Unwind thread TID from REGS.  Frames (at most MAX) are stored innermost
 * first in *FRAMES (malloc'd; clear each with lt_frame_clear).  *END gets a
 * malloc'd marker saying why the unwind stopped ("[unwind stopped: no CFI
 * for 0x... in libfoo.so]"), NULL only when the outermost frame is a
 * thread's start (_start, clone3, runtime.goexit, ...).  Returns the
 * number of frames, or -errno if nothing could be done. */
int lt_unwind_thread(struct lt_unwinder *u, pid_t tid, const struct lt_unwind_regs *regs,
		     int max, struct lt_frame **frames, size_t *n, char **end);

/* The same from a copy of the thread's stack taken earlier (LEN bytes from
 * BASE, its sp then): reads there come from COPY; the rest of the stack's
 * mapping has changed since and is not read (the unwind stops there). */
int lt_unwind_thread_copy(struct lt_unwinder *u, pid_t tid, const struct lt_unwind_regs *regs,
			  uint64_t base, const void *copy, size_t len, int max,
			  struct lt_frame **frames, size_t *n, char **end);
/* From now on (until called with NULLs), lt_unwind_thread_copy also sets in
 * READ (a bitmap of the copy's 8-byte words, LEN / 8 bits, zeroed by the
 * caller) every word it read: given the same registers, another copy with
 * the same values in those words unwinds the same.  *OUTSIDE is set when
 * it read memory outside the stack's mapping that is not read-only
 * (code); *BEYOND (0 by the caller) to the end, from the copy's start, of
 * the furthest read in the mapping beyond the copy (those fail). */
void lt_unwind_track_reads(struct lt_unwinder *u, uint64_t *read, bool *outside, uint64_t *beyond);

/* From now on (until called with NULL), the unwinds of copies read no
 * writable (or unmapped) memory outside the copies: a copy taken at a
 * moment the thread has run on from (a waker's, at its wake-up) whose CFI
 * leads to another stack (OCaml 5's, Go's) would get that stack's frames
 * of a later moment.  The unwind stops there, its end saying WHY. */
void lt_unwind_copies_only(struct lt_unwinder *u, const char *why);

/* The same with more copies taken with the stack (SEGS: LEN bytes of
 * memory from BASE each), which reads inside them use: a runtime's own
 * stacks the native frames' CFI leads to (OCaml 5 runs OCaml code on a
 * stack of its own, record/stackrec_ocaml.h). */
struct lt_stack_seg {
	uint64_t base;
	const void *data;
	size_t len;
};
int lt_unwind_thread_segs(struct lt_unwinder *u, pid_t tid, const struct lt_unwind_regs *regs,
			  uint64_t base, const void *copy, size_t len, const struct lt_stack_seg *segs,
			  size_t nsegs, int max, struct lt_frame **frames, size_t *n, char **end);

void lt_frame_clear(struct lt_frame *f);

#ifdef __cplusplus
}
#endif
#endif
