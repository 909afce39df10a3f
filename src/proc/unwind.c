/* User stack unwinding of a live, running process with libdwfl's DWARF CFI
 * engine, without ptrace: our own Dwfl_Thread_Callbacks give libdwfl the
 * initial registers (from the caller: a BPF task iterator, or sp/pc from
 * /proc/PID/task/TID/syscall) and read stack memory with process_vm_readv.
 *
 * The target keeps running, but a thread asleep in a system call does not
 * touch its own stack, so its frames are stable while we read them. */
#include <elfutils/libdwfl.h>
#include <errno.h>
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>

#include "symbols.h"
#include "snapshot_int.h"

#define PAGE 4096u
#define NPAGES 8

struct page {
	uint64_t base;
	bool used, bad;
	unsigned char data[PAGE];
};

struct lt_unwinder {
	struct lt_sym *sym;
	Dwfl *dwfl;
	pid_t cur_tid;
	const struct lt_unwind_regs *cur_regs;
	struct page pages[NPAGES];
	unsigned next_page;
	uint64_t bad_addr;   /* last unreadable address, for the end marker */
	bool had_bad_read;
	bool no_inlines;     /* lt_unwinder_no_inlines: machine frames only */
	/* lt_unwind_thread_copy: a copy of the stack from ov_base, and the
	 * mapping it is in (whose other bytes have changed since) */
	const unsigned char *ov;
	uint64_t ov_base, ov_len, ov_start, ov_end;
	uint64_t *ov_read;   /* lt_unwind_track_reads: the copy's words read */
	bool *ov_outside;
	uint64_t *ov_beyond;
	/* lt_unwind_thread_segs: more copies (a runtime's own stacks) */
	const struct lt_stack_seg *segs;
	size_t nsegs;
	/* lt_unwind_copies_only: writable memory outside the copies is not
	 * read (it has changed since they were taken); why, for the end */
	const char *only_why;
	bool refused; /* this unwind wanted such memory */
};

void lt_unwind_copies_only(struct lt_unwinder *u, const char *why)
{
	u->only_why = why;
}

void lt_unwind_track_reads(struct lt_unwinder *u, uint64_t *read, bool *outside, uint64_t *beyond)
{
	u->ov_read = read;
	u->ov_outside = outside;
	u->ov_beyond = beyond;
}

static struct page *get_page(struct lt_unwinder *u, uint64_t base)
{
	for (unsigned i = 0; i < NPAGES; i++)
		if (u->pages[i].used && u->pages[i].base == base)
			return &u->pages[i];
	struct page *p = &u->pages[u->next_page];
	u->next_page = (u->next_page + 1) % NPAGES;
	p->used = true;
	p->base = base;
	p->bad = lt_mem_read(lt_sym_mem(u->sym), base, p->data, PAGE) != 0;
	return p;
}

static bool read_bytes(struct lt_unwinder *u, uint64_t addr, void *out, size_t len)
{
	unsigned char *o = out;
	for (size_t i = 0; i < u->nsegs; i++) {
		const struct lt_stack_seg *g = &u->segs[i];
		if (addr >= g->base && addr - g->base <= g->len && len <= g->len - (addr - g->base)) {
			memcpy(out, (const unsigned char *)g->data + (addr - g->base), len);
			return true;
		}
	}
	if (u->ov && addr >= u->ov_base && addr - u->ov_base <= u->ov_len &&
	    len <= u->ov_len - (addr - u->ov_base)) {
		memcpy(out, u->ov + (addr - u->ov_base), len);
		if (u->ov_read && len)
			for (uint64_t w = (addr - u->ov_base) / 8; w <= (addr - u->ov_base + len - 1) / 8; w++)
				u->ov_read[w / 64] |= 1ull << (w % 64);
		return true;
	}
	if (u->ov && addr < u->ov_end && addr + len > u->ov_start) {
		if (u->ov_beyond && addr + len - u->ov_base > *u->ov_beyond)
			*u->ov_beyond = addr + len - u->ov_base;
		u->bad_addr = addr; /* the stack beyond the copy: changed since */
		u->had_bad_read = true;
		return false;
	}
	if (u->only_why) {
		/* another stack (a runtime's own, not copied with this one):
		 * what it holds now is not what it held at the copy */
		const struct lt_map *m = lt_sym_map_at(u->sym, addr);
		if (!m || m->perms[1] != '-') {
			u->bad_addr = addr;
			u->had_bad_read = true;
			u->refused = true;
			return false;
		}
	}
	if (u->ov_outside) {
		/* a read-only mapping (code: libdwfl may look at instructions)
		 * reads the same for every copy; anything else may not */
		const struct lt_map *m = lt_sym_map_at(u->sym, addr);
		if (!m || m->perms[1] != '-')
			*u->ov_outside = true;
	}
	while (len) {
		uint64_t base = addr & ~(uint64_t)(PAGE - 1);
		size_t off = (size_t)(addr - base);
		size_t chunk = PAGE - off < len ? PAGE - off : len;
		struct page *p = get_page(u, base);
		if (p->bad) {
			u->bad_addr = addr;
			u->had_bad_read = true;
			return false;
		}
		memcpy(o, p->data + off, chunk);
		o += chunk;
		addr += chunk;
		len -= chunk;
	}
	return true;
}

static pid_t cb_next_thread(Dwfl *dwfl, void *arg, void **thread_argp)
{
	(void)dwfl;
	struct lt_unwinder *u = arg;
	if (*thread_argp)
		return 0;
	*thread_argp = u;
	return u->cur_tid;
}

static bool cb_get_thread(Dwfl *dwfl, pid_t tid, void *arg, void **thread_argp)
{
	(void)dwfl;
	struct lt_unwinder *u = arg;
	*thread_argp = u;
	return tid == u->cur_tid && u->cur_regs;
}

static bool cb_memory_read(Dwfl *dwfl, Dwarf_Addr addr, Dwarf_Word *result, void *arg)
{
	(void)dwfl;
	struct lt_unwinder *u = arg;
	uint64_t v;
	if (!read_bytes(u, addr, &v, sizeof(v)))
		return false;
	*result = v;
	return true;
}

static bool cb_set_initial_registers(Dwfl_Thread *thread, void *arg)
{
	struct lt_unwinder *u = arg;
	const struct lt_regs *r = &u->cur_regs->r;
	if (u->cur_regs->full) {
		/* x86-64 DWARF numbering: rax rdx rcx rbx rsi rdi rbp rsp
		 * r8..r15 rip */
		Dwarf_Word regs[17] = {
			r->ax, r->dx, r->cx, r->bx, r->si, r->di, r->bp, r->sp,
			r->r8, r->r9, r->r10, r->r11, r->r12, r->r13, r->r14, r->r15,
			r->ip,
		};
		if (!dwfl_thread_state_registers(thread, 0, 17, regs))
			return false;
	} else {
		/* only sp and pc known: everything else stays undefined, which
		 * is enough where the CFA is rsp-based (libc syscall wrappers) */
		Dwarf_Word sp = r->sp, ip = r->ip;
		if (!dwfl_thread_state_registers(thread, 7, 1, &sp) ||
		    !dwfl_thread_state_registers(thread, 16, 1, &ip))
			return false;
	}
	dwfl_thread_state_register_pc(thread, r->ip);
	return true;
}

static const Dwfl_Thread_Callbacks callbacks = {
	.next_thread = cb_next_thread,
	.get_thread = cb_get_thread,
	.memory_read = cb_memory_read,
	.set_initial_registers = cb_set_initial_registers,
	.detach = NULL,
	.thread_detach = NULL,
};

struct lt_unwinder *lt_unwinder_new(struct lt_sym *s, char **err)
{
	if (err)
		*err = NULL;
	Dwfl *dwfl = s ? lt_sym_dwfl(s) : NULL;
	if (!dwfl) {
		if (err)
			*err = lts_strdup("no modules (libdwfl unavailable)");
		return NULL;
	}
	struct lt_unwinder *u = calloc(1, sizeof(*u));
	if (!u) {
		if (err)
			*err = lts_strdup("out of memory");
		return NULL;
	}
	u->sym = s;
	u->dwfl = dwfl;
	/* NULL elf: libdwfl takes the architecture from the reported modules */
	if (!dwfl_attach_state(dwfl, NULL, lt_sym_pid(s), &callbacks, u)) {
		if (err)
			*err = lts_asprintf("dwfl_attach_state: %s", dwfl_errmsg(-1));
		free(u);
		return NULL;
	}
	return u;
}

void lt_unwinder_free(struct lt_unwinder *u)
{
	/* detach callbacks are NULL: libdwfl never calls back into U after
	 * the last lt_unwind_thread, so U can go before the Dwfl does */
	free(u);
}

struct walk {
	struct lt_unwinder *u;
	struct lt_frame *frames;
	size_t n, max;
	char *end;
	bool zero_ra; /* stopped at a return address 0 */
	bool last_ok;
	uint64_t last_pc;
	bool last_act;
	uint64_t *sp; /* each frame's stack pointer (0: unknown), for loops */
};

/* Go's functions that switch a thread to its scheduler stack (g0) and call
 * a function there: the outermost frame of what runs on g0. */
static bool go_stack_switch(const char *func)
{
	return func && (!strcmp(func, "runtime.mcall") || !strcmp(func, "runtime.mcall.abi0") ||
			!strcmp(func, "runtime.morestack") || !strcmp(func, "runtime.morestack.abi0"));
}

static int frame_cb(Dwfl_Frame *state, void *arg)
{
	struct walk *w = arg;
	Dwarf_Addr pc;
	bool act = false;
	if (!dwfl_frame_pc(state, &pc, &act)) {
		w->end = lts_asprintf("[unwind stopped: no pc: %s]", dwfl_errmsg(-1));
		return DWARF_CB_ABORT;
	}
	if (pc == 0 && w->n > 0) {
		w->zero_ra = true; /* ends the chain: fine only after a start */
		return DWARF_CB_ABORT;
	}
	if (w->n >= w->max) {
		w->end = lts_asprintf("[unwind stopped: depth limit %zu]", w->max);
		return DWARF_CB_ABORT;
	}
	/* A caller frame with the pc and stack pointer of a frame already
	 * walked: the chain (saved frame pointers, return addresses) loops,
	 * and would repeat that frame up to the depth limit.  Recursion never
	 * repeats a stack pointer. */
	Dwarf_Word sp = 0;
	if (w->sp && dwfl_frame_reg(state, 7, &sp) == 0 && sp) {
		for (size_t i = 0; i < w->n; i++)
			if (w->sp[i] == sp && w->frames[i].pc == pc) {
				w->end = lts_asprintf("[unwind stopped: the frame chain loops: frame #%zu would "
						      "repeat frame #%zu (pc 0x%" PRIx64 ", sp 0x%" PRIx64 "): "
						      "a saved frame pointer or return address points back "
						      "into the stack already walked]",
						      w->n, i, (uint64_t)pc, (uint64_t)sp);
				return DWARF_CB_ABORT;
			}
	}
	uint64_t lookup = act ? pc : pc - 1;
	if (!lt_sym_is_code(w->u->sym, lookup)) {
		w->end = lts_asprintf("[unwind stopped: 0x%" PRIx64 " is not in an executable mapping]",
				      (uint64_t)pc);
		return DWARF_CB_ABORT;
	}
	if (w->sp)
		w->sp[w->n] = sp;
	lt_sym_frame(w->u->sym, pc, act, &w->frames[w->n++]);
	w->last_pc = pc;
	w->last_act = act;
	/* Go's scheduler stack (g0) begins where runtime.mcall or
	 * runtime.morestack switched to it: the word above is what an earlier
	 * use of the stack left there (on the main thread, rt0_go's call of
	 * runtime.newproc), not a caller */
	if (go_stack_switch(w->frames[w->n - 1].func))
		return DWARF_CB_ABORT;
	return DWARF_CB_OK;
}

/* Did the unwind of a copied stack fail reading the stack past the copy
 * (the bytes there changed since: not read live)? */
static bool past_copy(const struct lt_unwinder *u)
{
	return u->ov && u->had_bad_read && u->bad_addr >= u->ov_base + u->ov_len &&
	       u->bad_addr < u->ov_end;
}

/* The unwind wanted memory outside the copies that is not read
 * (lt_unwind_copies_only): no address in the text, which depends on the
 * copy's words only (an unwind cached for the next copies says the same). */
static char *refused_end(const struct walk *w, const char *module)
{
	const struct lt_frame *f = &w->frames[w->n - 1];
	return lts_asprintf("[unwind stopped: after %s in %s: its caller's frame is in memory "
			    "outside the stack copied, not read: %s]",
			    f->func ? f->func : "?", module ? module : "?", w->u->only_why);
}

/* Why libdwfl could not go past the last frame we got. */
static char *why_stopped(struct walk *w, int err)
{
	if (w->n == 0)
		return lts_asprintf("[unwind stopped: %s]", dwfl_errmsg(err));
	uint64_t lookup = w->last_act ? w->last_pc : w->last_pc - 1;
	Dwfl_Module *mod = dwfl_addrmodule(w->u->dwfl, lookup);
	if (!mod)
		return lts_asprintf("[unwind stopped: 0x%" PRIx64 " not in any module]", w->last_pc);
	const char *name = dwfl_module_info(mod, NULL, NULL, NULL, NULL, NULL, NULL, NULL);
	const char *base = name ? strrchr(name, '/') : NULL;
	base = base ? base + 1 : (name ? name : "?");
	Dwarf_Addr bias;
	if (!dwfl_module_eh_cfi(mod, &bias) && !dwfl_module_dwarf_cfi(mod, &bias))
		return lts_asprintf("[unwind stopped: no CFI in %s]", base);
	if (w->u->refused)
		return refused_end(w, base);
	if (past_copy(w->u))
		return lts_asprintf("[unwind stopped: after %s in %s: the next frame lies past the "
				    "%" PRIu64 " bytes of stack copied]",
				    w->n && w->frames[w->n - 1].func ? w->frames[w->n - 1].func : "?", base,
				    w->u->ov_len);
	if (w->u->had_bad_read)
		return lts_asprintf("[unwind stopped: cannot read memory at 0x%" PRIx64 "]",
				    w->u->bad_addr);
	const char *msg = dwfl_errmsg(err);
	if (msg && strstr(msg, "CFI"))
		return lts_asprintf("[unwind stopped: no CFI for 0x%" PRIx64 " in %s]", w->last_pc, base);
	return lts_asprintf("[unwind stopped: %s at 0x%" PRIx64 " in %s]",
			    msg ? msg : "unknown error", w->last_pc, base);
}

/* Functions a thread's stack begins with: the main thread's _start (and
 * __libc_start_main where _start has no symbol), glibc's and musl's clone
 * wrappers a new thread returns from (and start_thread, the first C frame
 * above them), Go's outermost frames of goroutines and threads, and of
 * what runs on a Go thread's scheduler stack (go_stack_switch). */
static bool thread_start(const char *func)
{
	static const char *const starts[] = {
		"_start", "__libc_start_main", "__libc_start_call_main", "clone", "clone3", "__clone",
		"__clone3", "__clone_internal", "start_thread", "start", "start_c11",
		"runtime.goexit", "runtime.goexit.abi0", "runtime.rt0_go", "runtime.mstart", "runtime.mstart0",
		"runtime.clone", "runtime.clone.abi0",
	};
	for (size_t i = 0; func && i < sizeof(starts) / sizeof(*starts); i++)
		if (!strcmp(func, starts[i]))
			return true;
	return go_stack_switch(func);
}

/* The unwind ended without an error: the outermost frame's CFI marks its
 * return address undefined, or the next one is 0.  That is a clean end
 * only at a thread's start; anywhere else (hand-written assembly, a JIT,
 * a stack switched by a runtime) the caller is not known, and the marker
 * says where it stopped. */
static char *why_ended(const struct walk *w)
{
	const struct lt_frame *f = &w->frames[w->n - 1];
	if (thread_start(f->func))
		return NULL;
	char where[256];
	if (f->func)
		snprintf(where, sizeof(where), "%s in %s", f->func, f->module ? f->module : "?");
	else
		snprintf(where, sizeof(where), "0x%" PRIx64 " in %s", f->pc, f->module ? f->module : "?");
	/* an unnamed glibc frame may well be clone3 or start_thread: without
	 * libc's debug symbols it cannot be told */
	if (!f->func && lt_sym_is_glibc(f->module))
		return lts_asprintf("[unwind stopped: no caller of %s (glibc's frames are unnamed without "
				    "its debug symbols: install libc6-dbg for glibc frame names)]", where);
	if (w->zero_ra)
		return lts_asprintf("[unwind stopped: return address 0 after %s, not a thread start]", where);
	/* libdwfl ends the chain as if the CFI had no caller when a read of
	 * the caller's frame failed: past the bytes of a copied stack (its
	 * end, not an address: an unwind cached for the next copies says
	 * the same) */
	const struct lt_unwinder *u = w->u;
	if (u->refused)
		return refused_end(w, f->module);
	if (past_copy(u))
		return lts_asprintf("[unwind stopped: no caller of %s: its caller's frame lies past the "
				    "%" PRIu64 " bytes of stack copied]", where, u->ov_len);
	return lts_asprintf("[unwind stopped: no caller of %s (its CFI marks the return address "
			    "undefined), not a thread start]", where);
}

int lt_unwind_thread_copy(struct lt_unwinder *u, pid_t tid, const struct lt_unwind_regs *regs,
			  uint64_t base, const void *copy, size_t len, int max,
			  struct lt_frame **frames, size_t *n, char **end)
{
	if (!u)
		return -EINVAL;
	const struct lt_map *m = lt_sym_map_at(u->sym, base);
	u->ov = copy;
	u->ov_base = base;
	u->ov_len = len;
	u->ov_start = m ? m->start : base;
	u->ov_end = m ? m->end : base + len;
	int r = lt_unwind_thread(u, tid, regs, max, frames, n, end);
	u->ov = NULL;
	return r;
}

int lt_unwind_thread_segs(struct lt_unwinder *u, pid_t tid, const struct lt_unwind_regs *regs,
			  uint64_t base, const void *copy, size_t len, const struct lt_stack_seg *segs,
			  size_t nsegs, int max, struct lt_frame **frames, size_t *n, char **end)
{
	if (!u)
		return -EINVAL;
	u->segs = segs;
	u->nsegs = segs ? nsegs : 0;
	int r = lt_unwind_thread_copy(u, tid, regs, base, copy, len, max, frames, n, end);
	u->segs = NULL;
	u->nsegs = 0;
	return r;
}

int lt_unwind_thread(struct lt_unwinder *u, pid_t tid, const struct lt_unwind_regs *regs,
		     int max, struct lt_frame **frames, size_t *n, char **end)
{
	*frames = NULL;
	*n = 0;
	*end = NULL;
	if (!u || !regs)
		return -EINVAL;
	if (max <= 0)
		max = 64;
	struct walk w = { .u = u, .max = (size_t)max };
	w.frames = calloc((size_t)max, sizeof(*w.frames));
	if (!w.frames)
		return -ENOMEM;
	w.sp = calloc((size_t)max, sizeof(*w.sp)); /* without it: no loop check */
	/* a fresh page cache per thread: stacks differ, code pages rarely
	 * matter (CFI comes from the ELF files, not from memory) */
	for (unsigned i = 0; i < NPAGES; i++)
		u->pages[i].used = false;
	u->had_bad_read = false;
	u->refused = false;
	u->cur_tid = tid;
	u->cur_regs = regs;
	int r = dwfl_getthread_frames(u->dwfl, tid, frame_cb, &w);
	int err = r < 0 ? dwfl_errno() : 0;
	u->cur_regs = NULL;
	free(w.sp);
	if (r < 0 && !w.end)
		w.end = why_stopped(&w, err);
	else if (!w.end && w.n)
		w.end = why_ended(&w);
	else if (!w.end)
		w.end = lts_strdup("[unwind stopped: not even one frame]");
	if (w.n == 0) {
		free(w.frames);
		w.frames = NULL;
	}
	/* the calls inlined at each pc, frames of their own */
	if (!u->no_inlines)
		lt_sym_expand_inlined(u->sym, &w.frames, &w.n, w.max);
	*frames = w.frames;
	*n = w.n;
	*end = w.end;
	return (int)w.n;
}

void lt_unwinder_no_inlines(struct lt_unwinder *u)
{
	if (u)
		u->no_inlines = true;
}
