/* The Go runtime model (include/locktrace/golang.h, docs/runtimes.md):
 *
 *   the executable (/proc/PID/exe): .go.buildinfo, runtime.buildVersion
 *     -> the version; DWARF (libdw) -> the offsets of runtime.g, m, sudog,
 *        semaRoot fields, else a table for the one version checked (1.19);
 *     .gopclntab -> function names, files, lines, frame sizes;
 *     .symtab -> runtime.allgs, allm, semtable, waitReasonStrings, and the
 *        names of package variables (main.muA)
 *   runtime.allm -> each M: procid (its tid), curg, its park note
 *   runtime.allgs -> each goroutine: goid, status, wait reason, waitsince,
 *     its M, sched.pc/sp (parked) or syscallpc/sp (in a syscall): the stack
 *     unwound with the pcsp table, inlined calls expanded with the inline
 *     tree; g.waiting -> sudog -> hchan (channel waits)
 *   runtime.semtable -> treaps of sudogs: elem (the semaphore's address) of
 *     each waiting g (sync.Mutex, RWMutex, WaitGroup)
 *
 * Everything is read with the environment's read (process_vm_readv): no
 * ptrace, no signal. */
#include <dwarf.h>
#include <elfutils/libdw.h>
#include <errno.h>
#include <fcntl.h>
#include <gelf.h>
#include <inttypes.h>
#include <libelf.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "golang.h"
#include "rtthread.h"
#include "rt_go_int.h"
#include "snapshot_int.h"

#define MAX_MS 4096
#define MAX_SUDOGS 200000
#define STACK_READ (256u << 10)

/* ---- offsets ---- */

struct off_name {
	const char *type, *field;
	size_t idx;
};

enum {
	G_STACK_LO, G_STACK_HI, G_M, G_SCHED_SP, G_SCHED_PC, G_SYSCALLSP, G_SYSCALLPC, G_STATUS, G_GOID,
	G_WAITSINCE, G_WAITREASON, G_GOPC, G_STARTPC, G_WAITING,
	M_PROCID, M_CURG, M_ID, M_PARK, M_ALLLINK,
	S_G, S_NEXT, S_PREV, S_ELEM, S_WAITLINK, S_C,
	R_TREAP,
	N_OFF
};

static const struct off_name off_names[N_OFF] = {
	{ "runtime.stack", "lo", G_STACK_LO }, /* + g.stack */
	{ "runtime.stack", "hi", G_STACK_HI },
	{ "runtime.g", "m", G_M },
	{ "runtime.gobuf", "sp", G_SCHED_SP }, /* + g.sched */
	{ "runtime.gobuf", "pc", G_SCHED_PC },
	{ "runtime.g", "syscallsp", G_SYSCALLSP },
	{ "runtime.g", "syscallpc", G_SYSCALLPC },
	{ "runtime.g", "atomicstatus", G_STATUS },
	{ "runtime.g", "goid", G_GOID },
	{ "runtime.g", "waitsince", G_WAITSINCE },
	{ "runtime.g", "waitreason", G_WAITREASON },
	{ "runtime.g", "gopc", G_GOPC },
	{ "runtime.g", "startpc", G_STARTPC },
	{ "runtime.g", "waiting", G_WAITING },
	{ "runtime.m", "procid", M_PROCID },
	{ "runtime.m", "curg", M_CURG },
	{ "runtime.m", "id", M_ID },
	{ "runtime.m", "park", M_PARK },
	{ "runtime.m", "alllink", M_ALLLINK },
	{ "runtime.sudog", "g", S_G },
	{ "runtime.sudog", "next", S_NEXT },
	{ "runtime.sudog", "prev", S_PREV },
	{ "runtime.sudog", "elem", S_ELEM },
	{ "runtime.sudog", "waitlink", S_WAITLINK },
	{ "runtime.sudog", "c", S_C },
	{ "runtime.semaRoot", "treap", R_TREAP },
};

/* Go 1.19 on amd64 (read from the DWARF of Debian's go1.19.8 binaries):
 * used only for a 1.19 binary without DWARF (-ldflags=-w). */
static const int64_t off_119[N_OFF] = {
	[G_STACK_LO] = 0, [G_STACK_HI] = 8, [G_M] = 48, [G_SCHED_SP] = 56, [G_SCHED_PC] = 64,
	[G_SYSCALLSP] = 112, [G_SYSCALLPC] = 120, [G_STATUS] = 144, [G_GOID] = 152,
	[G_WAITSINCE] = 168, [G_WAITREASON] = 176, [G_GOPC] = 296, [G_STARTPC] = 312,
	[G_WAITING] = 328, [M_PROCID] = 72, [M_CURG] = 192, [M_ID] = 232, [M_PARK] = 328,
	[M_ALLLINK] = 336, [S_G] = 0, [S_NEXT] = 8, [S_PREV] = 16, [S_ELEM] = 24,
	[S_WAITLINK] = 64, [S_C] = 80, [R_TREAP] = 8,
};

/* 1.19 runtime2.go's waitReason strings, when the binary has no
 * runtime.waitReasonStrings to read them from */
static const char *const reasons_119[] = {
	"", "GC assist marking", "IO wait", "chan receive (nil chan)", "chan send (nil chan)",
	"dumping heap", "garbage collection", "garbage collection scan", "panicwait", "select",
	"select (no cases)", "GC assist wait", "GC sweep wait", "GC scavenge wait", "chan receive",
	"chan send", "finalizer wait", "force gc (idle)", "semacquire", "sleep", "sync.Cond.Wait",
	"timer goroutine (idle)", "trace reader (blocked)", "wait for GC cycle", "GC worker (idle)",
	"preempted", "debug call",
};

/* g.stack and g.sched are structs inside runtime.g: their own offsets */
static int64_t dw_member(Dwarf_Die *st, const char *field)
{
	Dwarf_Die c;
	if (dwarf_child(st, &c) != 0)
		return -1;
	do {
		if (dwarf_tag(&c) != DW_TAG_member)
			continue;
		const char *n = dwarf_diename(&c);
		if (!n || strcmp(n, field))
			continue;
		Dwarf_Attribute a;
		Dwarf_Word w;
		if (dwarf_attr(&c, DW_AT_data_member_location, &a) && dwarf_formudata(&a, &w) == 0)
			return (int64_t)w;
		return -1;
	} while (dwarf_siblingof(&c, &c) == 0);
	return -1;
}

static bool offsets_dwarf(Elf *elf, int64_t *off)
{
	Dwarf *dw = dwarf_begin_elf(elf, DWARF_C_READ, NULL);
	if (!dw)
		return false;
	static const char *const types[] = { "runtime.g", "runtime.m", "runtime.gobuf", "runtime.stack",
					     "runtime.sudog", "runtime.semaRoot" };
	Dwarf_Die found[6];
	bool have[6] = { false };
	size_t nhave = 0;
	Dwarf_Off o = 0, next;
	size_t hsize;
	while (nhave < 6 && dwarf_nextcu(dw, o, &next, &hsize, NULL, NULL, NULL) == 0) {
		Dwarf_Die cu, c;
		if (dwarf_offdie(dw, o + hsize, &cu) && dwarf_child(&cu, &c) == 0) {
			do {
				if (dwarf_tag(&c) != DW_TAG_structure_type)
					continue;
				const char *n = dwarf_diename(&c);
				if (!n || strncmp(n, "runtime.", 8))
					continue;
				for (size_t k = 0; k < 6; k++)
					if (!have[k] && !strcmp(n, types[k])) {
						found[k] = c;
						have[k] = true;
						nhave++;
					}
			} while (nhave < 6 && dwarf_siblingof(&c, &c) == 0);
		}
		o = next;
	}
	bool ok = nhave == 6;
	if (ok) {
		int64_t gstack = dw_member(&found[0], "stack"), gsched = dw_member(&found[0], "sched");
		for (size_t i = 0; i < N_OFF && ok; i++) {
			const struct off_name *on = &off_names[i];
			size_t k = 0;
			while (k < 6 && strcmp(types[k], on->type))
				k++;
			int64_t v = dw_member(&found[k], on->field);
			if (k == 3)
				v = gstack < 0 || v < 0 ? -1 : gstack + v;
			else if (k == 2)
				v = gsched < 0 || v < 0 ? -1 : gsched + v;
			/* sudog.c appeared in 1.16; waitsince may go: both optional */
			if (v < 0 && on->idx != S_C && on->idx != G_WAITSINCE)
				ok = false;
			off[on->idx] = v;
		}
	}
	dwarf_end(dw);
	return ok;
}

/* ---- the executable ---- */

static int sym_cmp(const void *a, const void *b)
{
	const struct go_sym *x = a, *y = b;
	return (x->addr > y->addr) - (x->addr < y->addr);
}

/* .symtab's data objects (sorted), the .gopclntab and .go.buildinfo
 * sections; false when the file is no Go executable */
static bool read_exe(struct go_ctx *c, Elf *elf)
{
	size_t shstrndx;
	if (elf_getshdrstrndx(elf, &shstrndx) != 0)
		return false;
	GElf_Ehdr eh;
	if (!gelf_getehdr(elf, &eh))
		return false;
	c->pie = eh.e_type == ET_DYN;
	bool go = false;
	for (Elf_Scn *scn = NULL; (scn = elf_nextscn(elf, scn));) {
		GElf_Shdr sh;
		if (!gelf_getshdr(scn, &sh))
			continue;
		const char *name = elf_strptr(elf, shstrndx, sh.sh_name);
		if (!name)
			continue;
		if (!strcmp(name, ".gopclntab") || !strcmp(name, ".go.buildinfo")) {
			Elf_Data *d = elf_getdata(scn, NULL);
			if (!d || !d->d_buf || !d->d_size)
				continue;
			uint8_t *copy = malloc(d->d_size);
			if (!copy)
				continue;
			memcpy(copy, d->d_buf, d->d_size);
			if (name[3] == 'p') {
				c->pcln_buf = copy;
				c->pcln_len = d->d_size;
			} else {
				c->binfo = copy;
				c->binfo_len = d->d_size;
			}
			go = true;
		} else if (sh.sh_type == SHT_SYMTAB) {
			Elf_Data *d = elf_getdata(scn, NULL);
			size_t n = sh.sh_entsize ? sh.sh_size / sh.sh_entsize : 0;
			c->syms = calloc(n ? n : 1, sizeof(*c->syms));
			for (size_t i = 0; d && c->syms && i < n; i++) {
				GElf_Sym sym;
				if (!gelf_getsym(d, (int)i, &sym) || GELF_ST_TYPE(sym.st_info) != STT_OBJECT)
					continue;
				const char *sn = elf_strptr(elf, sh.sh_link, sym.st_name);
				if (!sn || !*sn)
					continue;
				if (!strcmp(sn, "runtime.buildVersion"))
					go = true;
				c->syms[c->nsyms++] = (struct go_sym){ sym.st_value, sym.st_size, lts_strdup(sn) };
			}
		}
	}
	if (c->syms)
		qsort(c->syms, c->nsyms, sizeof(*c->syms), sym_cmp);
	return go;
}

/* "\xff Go buildinf:", pointer size, flags; 1.18+ (flags & 2): the
 * version inline as a varint-prefixed string at 32 */
static char *buildinfo_version(const struct go_ctx *c)
{
	const uint8_t *d = c->binfo;
	if (!d || c->binfo_len < 33 || memcmp(d, "\xff Go buildinf:", 14) || !(d[15] & 2))
		return NULL;
	size_t len = d[32];
	if (len & 0x80 || 33 + len > c->binfo_len)
		return NULL;
	char *v = malloc(len + 1);
	if (v) {
		memcpy(v, d + 33, len);
		v[len] = 0;
	}
	return v;
}

static char *read_gostring(const struct lt_lm_env *e, uint64_t hdr, size_t max)
{
	uint64_t p, n;
	if (lt_lm_read_u64(e, hdr, &p) || lt_lm_read_u64(e, hdr + 8, &n) || n > max)
		return NULL;
	char *s = malloc(n + 1);
	if (!s)
		return NULL;
	if (n && e->read(e->arg, p, s, n)) {
		free(s);
		return NULL;
	}
	s[n] = 0;
	return s;
}

/* ---- pclntab lookups ---- */

static char *sdup_or_null(const char *s)
{
	return s && *s ? lts_strdup(s) : NULL;
}

static bool push_frame(struct lt_go_routine *r, const char *func, const char *file, int line, uint64_t pc,
		       bool inlined)
{
	if (r->n_frames >= LT_GO_MAX_FRAMES)
		return false;
	if (!r->frames) {
		r->frames = calloc(LT_GO_MAX_FRAMES, sizeof(*r->frames));
		if (!r->frames)
			return false;
	}
	struct lt_go_frame *f = &r->frames[r->n_frames++];
	f->func = sdup_or_null(func);
	f->file = sdup_or_null(file);
	f->line = line > 0 ? line : 0;
	f->pc = pc;
	f->inlined = inlined;
	return true;
}

/* The frames of the function FN at PC (a lookup pc: the return address
 * minus one but for the innermost frame), its inlined calls first:
 * pcfile/pcln give the innermost inlined position, the inline tree
 * (pcdata 2, funcdata 3) the chain of calls. */
static bool func_frames(struct go_ctx *c, struct lt_go_routine *r, uint64_t fn, uint64_t lpc, uint64_t pc)
{
	const struct lt_go_pcln *p = &c->pcln;
	const char *file = lt_go_pcln_file(p, fn, lt_go_pcln_value(p, fn, 1, lpc));
	int line = lt_go_pcln_value(p, fn, 2, lpc);
	int32_t ix = lt_go_pcln_pcdata(p, fn, 2, lpc);
	uint32_t tree = lt_go_pcln_funcdata(p, fn, 3);
	char nbuf[512];
	for (int depth = 0; ix >= 0 && tree != UINT32_MAX && c->gofunc && depth < 32; depth++) {
		if (p->ver < 120) {
			/* 1.19: parent int16, funcID, pad, file int32, line int32,
			 * nameOff int32, parentPc int32 */
			uint8_t ic[20];
			if (c->e->read(c->e->arg, c->gofunc + tree + (uint64_t)ix * 20, ic, sizeof(ic)))
				break;
			int16_t parent;
			int32_t ifile, iline, name;
			memcpy(&parent, ic, 2);
			memcpy(&ifile, ic + 4, 4);
			memcpy(&iline, ic + 8, 4);
			memcpy(&name, ic + 12, 4);
			const char *nm = name >= 0 && p->funcname + (uint64_t)name < p->n ?
						 (const char *)p->d + p->funcname + name : "?";
			snprintf(nbuf, sizeof(nbuf), "%s", nm);
			if (!push_frame(r, nbuf, file, line, pc, true))
				return false;
			file = lt_go_pcln_file(p, fn, ifile);
			line = iline;
			ix = parent;
		} else {
			/* 1.20+: funcID, pad[3], nameOff int32, parentPc int32,
			 * startLine int32 */
			uint8_t ic[16];
			if (c->e->read(c->e->arg, c->gofunc + tree + (uint64_t)ix * 16, ic, sizeof(ic)))
				break;
			int32_t name, ppc;
			memcpy(&name, ic + 4, 4);
			memcpy(&ppc, ic + 8, 4);
			const char *nm = name >= 0 && p->funcname + (uint64_t)name < p->n ?
						 (const char *)p->d + p->funcname + name : "?";
			snprintf(nbuf, sizeof(nbuf), "%s", nm);
			if (!push_frame(r, nbuf, file, line, pc, true))
				return false;
			uint64_t entry;
			lt_go_pcln_func(p, lpc, &entry);
			uint64_t q = entry + (uint64_t)ppc;
			file = lt_go_pcln_file(p, fn, lt_go_pcln_value(p, fn, 1, q));
			line = lt_go_pcln_value(p, fn, 2, q);
			ix = lt_go_pcln_pcdata(p, fn, 2, q);
		}
	}
	return push_frame(r, lt_go_pcln_name(p, fn), file, line, pc, false);
}

/* Unwinds a goroutine from PC, SP within [lo, hi) with the pcsp table:
 * the caller's pc is at sp + spdelta, its sp just above. */
static void unwind(struct go_ctx *c, struct lt_go_routine *r, uint64_t pc, uint64_t sp, uint64_t lo, uint64_t hi)
{
	if (!c->pcln_ok) {
		r->end = lts_strdup("no .gopclntab: frames unknown");
		return;
	}
	if (sp < lo || sp >= hi || hi - lo > (1ull << 30)) {
		r->end = lts_asprintf("saved sp 0x%" PRIx64 " outside the goroutine's stack", sp);
		return;
	}
	size_t len = hi - sp < STACK_READ ? hi - sp : STACK_READ;
	uint8_t *stk = malloc(len);
	if (!stk || c->e->read(c->e->arg, sp, stk, len)) {
		free(stk);
		r->end = lts_asprintf("stack at 0x%" PRIx64 " unreadable", sp);
		return;
	}
	uint64_t base = sp;
	for (int i = 0; i < LT_GO_MAX_FRAMES; i++) {
		uint64_t entry;
		uint64_t fpc = pc - c->bias;
		uint64_t fn = lt_go_pcln_func(&c->pcln, fpc, &entry);
		if (!fn) {
			r->end = lts_asprintf("pc 0x%" PRIx64 " is in no Go function", pc);
			break;
		}
		const char *name = lt_go_pcln_name(&c->pcln, fn);
		if (!strcmp(name, "runtime.goexit") || !strcmp(name, "runtime.mstart") ||
		    !strcmp(name, "runtime.rt0_go"))
			break;
		uint64_t lpc = fpc > entry ? fpc - 1 : fpc;
		if (!func_frames(c, r, fn, lpc, pc)) {
			r->end = lts_asprintf("more than %d frames", LT_GO_MAX_FRAMES);
			break;
		}
		int32_t d = lt_go_pcln_value(&c->pcln, fn, 0, fpc);
		if (d < 0) {
			r->end = lts_asprintf("no frame size for %s", name);
			break;
		}
		uint64_t ra = sp + (uint64_t)d;
		if (ra < base || ra + 8 > base + len) {
			r->end = lts_asprintf("the stack goes on past what was read (%zu bytes)", len);
			break;
		}
		memcpy(&pc, stk + (ra - base), 8);
		sp = ra + 8;
		if (!pc)
			break;
	}
	free(stk);
}

/* ---- goroutines ---- */

static const char *status_name(uint32_t st)
{
	static const char *const n[] = { "idle", "runnable", "running", "syscall", "waiting",
					 "moribund", "dead", "enqueue", "copystack", "preempted" };
	return st < sizeof(n) / sizeof(*n) ? n[st] : "?";
}

static void read_reasons(struct go_ctx *c)
{
	uint64_t a, sz;
	if (c->e->lookup(c->e->arg, "runtime.waitReasonStrings", &a, &sz) == 0 && sz % 16 == 0 && sz / 16 <= 256) {
		c->nreasons = sz / 16;
		for (size_t i = 0; i < c->nreasons; i++)
			c->reasons[i] = read_gostring(c->e, a + 16 * i, 128);
		return;
	}
	if (c->go->version && !strncmp(c->go->version, "go1.19", 6) &&
	    (c->go->version[6] == 0 || c->go->version[6] == '.')) {
		c->nreasons = sizeof(reasons_119) / sizeof(*reasons_119);
		for (size_t i = 0; i < c->nreasons; i++)
			c->reasons[i] = lts_strdup(reasons_119[i]);
	}
}

static void read_ms(struct go_ctx *c)
{
	uint64_t a, sz, m;
	if (c->e->lookup(c->e->arg, "runtime.allm", &a, &sz) || lt_lm_read_u64(c->e, a, &m))
		return;
	for (size_t i = 0; m && i < MAX_MS; i++) {
		struct go_m *x = realloc(c->ms, (c->nms + 1) * sizeof(*x));
		if (!x)
			return;
		c->ms = x;
		struct go_m *gm = &c->ms[c->nms++];
		memset(gm, 0, sizeof(*gm));
		gm->addr = m;
		uint64_t v;
		if (!lt_lm_read_u64(c->e, m + c->off[M_PROCID], &v))
			gm->tid = (pid_t)v;
		lt_lm_read_u64(c->e, m + c->off[M_CURG], &gm->curg);
		if (!lt_lm_read_u64(c->e, m + c->off[M_ID], &v))
			gm->id = (int64_t)v;
		if (lt_lm_read_u64(c->e, m + c->off[M_ALLLINK], &m))
			break;
	}
}

static pid_t tid_of_m(const struct go_ctx *c, uint64_t m)
{
	for (size_t i = 0; i < c->nms; i++)
		if (c->ms[i].addr == m)
			return c->ms[i].tid;
	return 0;
}

static int64_t now_mono_ns(void)
{
	struct timespec ts;
	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (int64_t)ts.tv_sec * 1000000000 + ts.tv_nsec;
}

static void read_routine(struct go_ctx *c, uint64_t g, const uint8_t *gb, size_t glen)
{
	const int64_t *o = c->off;
#define F64(i) (o[i] >= 0 && (size_t)o[i] + 8 <= glen ? ({ uint64_t _v; memcpy(&_v, gb + o[i], 8); _v; }) : 0)
	uint32_t st = 0;
	memcpy(&st, gb + o[G_STATUS], 4);
	st &= ~0x1000u; /* _Gscan */
	if (st == 6 || st == 0) { /* dead, idle: in the free list */
		c->go->n_dead++;
		return;
	}
	struct lt_go_routine *r = &c->go->routines[c->go->n_routines++];
	memset(r, 0, sizeof(*r));
	r->g = g;
	r->id = (int64_t)F64(G_GOID);
	r->status = st;
	r->status_name = status_name(st);
	r->waited_s = -1;
	uint8_t wr = gb[o[G_WAITREASON]];
	if ((st == 4 || st == 3) && wr && wr < c->nreasons && c->reasons[wr])
		r->reason = lts_strdup(c->reasons[wr]);
	else if (st == 4 && wr)
		r->reason = lts_asprintf("wait reason %u", wr);
	int64_t since = o[G_WAITSINCE] >= 0 ? (int64_t)F64(G_WAITSINCE) : 0;
	if (since > 0 && (st == 4 || st == 3)) {
		int64_t d = now_mono_ns() - since;
		if (d >= 0)
			r->waited_s = (double)d / 1e9;
	}
	uint64_t m = F64(G_M);
	if (m && (st == 2 || st == 3))
		r->tid = tid_of_m(c, m);
	const char *start = go_func_name(c, F64(G_STARTPC));
	r->system = start && !strncmp(start, "runtime.", 8) && strcmp(start, "runtime.main");
	const char *creator = go_func_name(c, F64(G_GOPC));
	/* the main goroutine: rt0_go's runtime.newproc, which Go's own
	 * traceback does not print */
	r->created_by = r->id == 1 ? NULL : sdup_or_null(creator);
	uint64_t lo = F64(G_STACK_LO), hi = F64(G_STACK_HI);
	r->sp = st == 3 ? F64(G_SYSCALLSP) : st == 2 ? 0 : F64(G_SCHED_SP);
	r->stack_hi = r->sp && r->sp >= lo && r->sp < hi ? hi : 0;
	if (!r->stack_hi)
		r->sp = 0;
	if (st == 3)
		unwind(c, r, F64(G_SYSCALLPC), F64(G_SYSCALLSP), lo, hi);
	else if (st == 2)
		r->end = lts_strdup("running: its stack is its thread's");
	else
		unwind(c, r, F64(G_SCHED_PC), F64(G_SCHED_SP), lo, hi);
	/* a channel wait: g.waiting -> sudog (select: a list by waitlink) */
	uint64_t sg = F64(G_WAITING);
	if (sg && st == 4 && o[S_C] >= 0 && r->reason && strstr(r->reason, "chan") == r->reason) {
		uint64_t ch;
		if (!lt_lm_read_u64(c->e, sg + o[S_C], &ch) && ch) {
			r->wait = LT_GO_WAIT_CHAN;
			r->obj = ch;
			r->obj_kind = "channel";
			r->dir = strstr(r->reason, "send") ? "send" : "receive";
		}
	} else if (sg && st == 4 && o[S_C] >= 0 && r->reason && !strcmp(r->reason, "select")) {
		uint64_t ch;
		if (!lt_lm_read_u64(c->e, sg + o[S_C], &ch) && ch) {
			uint64_t next = 0;
			lt_lm_read_u64(c->e, sg + o[S_WAITLINK], &next);
			r->wait = LT_GO_WAIT_CHAN;
			r->obj = next ? 0 : ch; /* several channels: none in particular */
			r->obj_kind = "channel";
			r->dir = "select";
		}
	}
#undef F64
}

/* semtable: 251 roots (a treap of sudogs by address, each with the list of
 * its waiters by waitlink) -> which goroutine waits on which address */
static void read_semtable(struct go_ctx *c)
{
	uint64_t a, sz;
	if (c->e->lookup(c->e->arg, "runtime.semtable", &a, &sz) || sz < 251 || sz % 251)
		return;
	uint64_t esz = sz / 251;
	uint64_t *stack = malloc(4096 * sizeof(*stack));
	if (!stack)
		return;
	size_t budget = MAX_SUDOGS;
	for (uint64_t i = 0; i < 251; i++) {
		uint64_t root;
		if (lt_lm_read_u64(c->e, a + i * esz + c->off[R_TREAP], &root) || !root)
			continue;
		size_t ns = 0;
		stack[ns++] = root;
		while (ns && budget) {
			uint64_t s = stack[--ns];
			budget--;
			uint64_t kids[2] = { 0, 0 };
			lt_lm_read_u64(c->e, s + c->off[S_PREV], &kids[0]);
			lt_lm_read_u64(c->e, s + c->off[S_NEXT], &kids[1]);
			for (int k = 0; k < 2; k++)
				if (kids[k] && ns < 4096)
					stack[ns++] = kids[k];
			/* the node and the waiters queued behind it */
			for (uint64_t w = s; w && budget; budget--) {
				uint64_t g = 0, elem = 0;
				lt_lm_read_u64(c->e, w + c->off[S_G], &g);
				lt_lm_read_u64(c->e, w + c->off[S_ELEM], &elem);
				if (g && elem) {
					struct go_semw *x = realloc(c->semw, (c->nsemw + 1) * sizeof(*x));
					if (!x)
						break;
					c->semw = x;
					c->semw[c->nsemw++] = (struct go_semw){ g, elem };
				}
				if (lt_lm_read_u64(c->e, w + c->off[S_WAITLINK], &w))
					break;
			}
		}
	}
	free(stack);
}

static int routine_by_g(const void *a, const void *b)
{
	const struct lt_go_routine *x = a, *y = b;
	return (x->g > y->g) - (x->g < y->g);
}

static int routine_by_id(const void *a, const void *b)
{
	const struct lt_go_routine *x = a, *y = b;
	return (x->id > y->id) - (x->id < y->id);
}

static void read_routines(struct go_ctx *c)
{
	uint64_t a, sz, arr, len;
	if (c->e->lookup(c->e->arg, "runtime.allgs", &a, &sz) || lt_lm_read_u64(c->e, a, &arr) ||
	    lt_lm_read_u64(c->e, a + 8, &len)) {
		lt_strlist_add(&c->go->notes, "runtime.allgs unreadable: goroutines not shown");
		return;
	}
	c->go->n_all = len;
	if (len > LT_GO_MAX_ROUTINES) {
		c->go->truncated = true;
		len = LT_GO_MAX_ROUTINES;
	}
	uint64_t *gs = malloc((len ? len : 1) * 8);
	c->go->routines = calloc(len ? len : 1, sizeof(*c->go->routines));
	if (!gs || !c->go->routines || (len && c->e->read(c->e->arg, arr, gs, len * 8))) {
		lt_strlist_add(&c->go->notes, "runtime.allgs (%" PRIu64 " goroutines) unreadable", len);
		free(gs);
		return;
	}
	size_t glen = 0;
	for (size_t i = 0; i < N_OFF; i++)
		if (c->off[i] + 8 > (int64_t)glen && off_names[i].type[8] != 'm' && off_names[i].type[8] != 's')
			glen = (size_t)c->off[i] + 8;
	uint8_t gb[1024];
	if (glen > sizeof(gb))
		glen = sizeof(gb);
	for (size_t i = 0; i < len; i++) {
		if (!gs[i] || c->e->read(c->e->arg, gs[i], gb, glen))
			continue;
		read_routine(c, gs[i], gb, glen);
	}
	free(gs);
	/* the semaphore each goroutine waits on */
	read_semtable(c);
	qsort(c->go->routines, c->go->n_routines, sizeof(*c->go->routines), routine_by_g);
	for (size_t i = 0; i < c->nsemw; i++) {
		struct lt_go_routine key = { .g = c->semw[i].g };
		struct lt_go_routine *r = bsearch(&key, c->go->routines, c->go->n_routines,
						  sizeof(*r), routine_by_g);
		if (!r || r->status != 4)
			continue;
		r->wait = LT_GO_WAIT_SEMA;
		r->obj = c->semw[i].elem;
	}
	qsort(c->go->routines, c->go->n_routines, sizeof(*c->go->routines), routine_by_id);
}

/* ---- threads ---- */

static bool native_has(const struct lt_thread *t, const char *func)
{
	for (size_t i = 0; i < t->n_frames; i++)
		if (t->frames[i].func && !strcmp(t->frames[i].func, func))
			return true;
	return false;
}

/* Each M's thread: named by the goroutine it runs.  Go parks goroutines,
 * never threads, on user locks: a thread's futex wait is the runtime's own,
 * on a note (an idle M on m.park, sysmon on its note: sleeps, waiting for
 * work, "Go runtime note") or a runtime.mutex (runtime.lock2: a lock of the
 * runtime itself, kept a lock).  A note is named so and never taken for a
 * lock's wait, nor its neighbours for its holder. */
static void mark_threads(struct go_ctx *c, struct lt_snapshot *s)
{
	for (size_t i = 0; i < c->nms; i++) {
		const struct go_m *gm = &c->ms[i];
		struct lt_thread *t = gm->tid ? lt_snapshot_find(s, gm->tid) : NULL;
		if (!t || t->rt_lang)
			continue;
		t->rt_lang = "go";
		const struct lt_go_routine *r = NULL;
		for (size_t k = 0; gm->curg && k < c->go->n_routines; k++)
			if (c->go->routines[k].g == gm->curg)
				r = &c->go->routines[k];
		if (r)
			t->rt_name = lts_asprintf("M%" PRId64 " goroutine %" PRId64, gm->id, r->id);
		else
			t->rt_name = lts_asprintf("M%" PRId64, gm->id);
		uint64_t note = gm->addr + (uint64_t)c->off[M_PARK];
		if (t->wait != LT_WAIT_FUTEX)
			continue;
		char *name = NULL;
		if (native_has(t, "runtime.lock2")) {
			t->futex.lock_kind = "Go runtime lock (runtime.mutex)";
			continue;
		} else if (t->futex.uaddr == note) {
			t->futex.lock_kind = "Go runtime note (idle M)";
			name = lts_asprintf("M%" PRId64 ".park", gm->id);
		} else if (native_has(t, "runtime.sysmon")) {
			t->futex.lock_kind = "Go runtime note (sysmon)";
		} else if (native_has(t, "runtime.notesleep") || native_has(t, "runtime.notetsleep_internal")) {
			t->futex.lock_kind = "Go runtime note";
		} else {
			continue;
		}
		t->futex.lock_base = t->futex.uaddr;
		t->futex.owner_kind = LT_OWNER_NONE;
		t->futex.owner = 0;
		t->acquire = NULL;
		if (name) {
			free(t->futex.lock_name);
			t->futex.lock_name = name;
		}
	}
}

/* ---- the model ---- */

static void ctx_free(struct go_ctx *c)
{
	for (size_t i = 0; i < c->nsyms; i++)
		free(c->syms[i].name);
	free(c->syms);
	free(c->pcln_buf);
	free(c->binfo);
	free(c->ms);
	free(c->semw);
	for (size_t i = 0; i < c->nreasons; i++)
		free(c->reasons[i]);
}

static void apply(const struct lt_lm_env *e, struct lt_snapshot *s)
{
	if (s->go) {
		lt_go_free(s->go);
		s->go = NULL;
	}
	/* most processes are not Go: asked by their section names only,
	 * before anything is copied */
	if (!s->pid || !go_exe_is_go(s->pid))
		return;
	char path[64];
	snprintf(path, sizeof(path), "/proc/%d/exe", (int)s->pid);
	int fd = open(path, O_RDONLY | O_CLOEXEC);
	if (fd < 0)
		return;
	elf_version(EV_CURRENT);
	Elf *elf = elf_begin(fd, ELF_C_READ_MMAP, NULL);
	struct go_ctx c = { .e = e };
	if (!elf || !read_exe(&c, elf)) {
		if (elf)
			elf_end(elf);
		close(fd);
		ctx_free(&c);
		return;
	}
	struct lt_go *go = calloc(1, sizeof(*go));
	if (!go) {
		elf_end(elf);
		close(fd);
		ctx_free(&c);
		return;
	}
	c.go = go;
	s->go = go;
	go->stripped = c.nsyms == 0;
	uint64_t a, sz;
	if (!go->stripped && e->lookup(e->arg, "runtime.buildVersion", &a, &sz) == 0)
		go->version = read_gostring(e, a, 64);
	if (!go->version)
		go->version = buildinfo_version(&c);
	if (c.pie) {
		/* a position-independent executable: symbols are file addresses */
		uint64_t ta, ts;
		for (size_t i = 0; i < c.nsyms; i++)
			if (!strcmp(c.syms[i].name, "runtime.buildVersion") &&
			    e->lookup(e->arg, "runtime.buildVersion", &ta, &ts) == 0)
				c.bias = ta - c.syms[i].addr;
	}
	if (c.pcln_buf && lt_go_pcln_init(&c.pcln, c.pcln_buf, c.pcln_len) == 0) {
		c.pcln_ok = true; /* its addresses are the file's: pc - bias */
	} else {
		lt_strlist_add(&go->notes, "%s: no pclntab of Go 1.18 or later: goroutine stacks not read",
			       c.pcln_buf ? "unknown pclntab format" : "no .gopclntab section");
	}
	if (e->lookup(e->arg, "go.func.*", &a, &sz) == 0 || e->lookup(e->arg, "go:func.*", &a, &sz) == 0)
		c.gofunc = a;
	for (size_t i = 0; i < N_OFF; i++)
		c.off[i] = -1;
	if (offsets_dwarf(elf, c.off)) {
		go->layout = "DWARF";
	} else if (go->version && !strncmp(go->version, "go1.19", 6) &&
		   (go->version[6] == 0 || go->version[6] == '.')) {
		memcpy(c.off, off_119, sizeof(off_119));
		go->layout = "table for go1.19";
	}
	elf_end(elf);
	close(fd);
	if (go->stripped) {
		lt_strlist_add(&go->notes, "stripped executable (no symbol table): runtime.allgs, allm and "
			       "the semaphore table cannot be found, so goroutines, their waits and the "
			       "names of variables are lost; the version%s remain%s",
			       c.pcln_ok ? " and Go function names (pclntab)" : "", c.pcln_ok ? "" : "s");
		ctx_free(&c);
		return;
	}
	if (!go->layout) {
		lt_strlist_add(&go->notes, "%s without DWARF (-ldflags=-w) and no built-in layout for it: "
			       "goroutines not read (known: go1.19)", go->version ? go->version : "unknown Go version");
		ctx_free(&c);
		return;
	}
	read_reasons(&c);
	read_ms(&c);
	read_routines(&c);
	go_infer(&c);
	go_netfds(&c, s->pid);
	mark_threads(&c, s);
	ctx_free(&c);
}

const struct lt_rtmodel lt_rt_go = { "go", apply };

bool go_exe_is_go(pid_t pid)
{
	char path[64];
	snprintf(path, sizeof(path), "/proc/%d/exe", (int)pid);
	int fd = open(path, O_RDONLY | O_CLOEXEC);
	if (fd < 0)
		return false;
	elf_version(EV_CURRENT);
	Elf *elf = elf_begin(fd, ELF_C_READ_MMAP, NULL);
	bool go = false;
	size_t shstrndx;
	if (elf && elf_getshdrstrndx(elf, &shstrndx) == 0)
		for (Elf_Scn *scn = NULL; !go && (scn = elf_nextscn(elf, scn));) {
			GElf_Shdr sh;
			const char *name = gelf_getshdr(scn, &sh) ? elf_strptr(elf, shstrndx, sh.sh_name) : NULL;
			go = name && (!strcmp(name, ".go.buildinfo") || !strcmp(name, ".gopclntab"));
		}
	if (elf)
		elf_end(elf);
	close(fd);
	return go;
}

void lt_go_free(struct lt_go *g)
{
	if (!g)
		return;
	free(g->version);
	for (size_t i = 0; i < g->n_routines; i++) {
		struct lt_go_routine *r = &g->routines[i];
		for (size_t k = 0; k < r->n_frames; k++) {
			free(r->frames[k].func);
			free(r->frames[k].file);
		}
		free(r->frames);
		free(r->end);
		free(r->reason);
		free(r->created_by);
		free(r->obj_name);
		free(r->netfd);
		free(r->chan_peers_how);
		free(r->chan_peer_list);
		free(r->notify_sigs);
	}
	free(g->routines);
	for (size_t i = 0; i < g->n_mutexes; i++) {
		free(g->mutexes[i].name);
		free(g->mutexes[i].holder_how);
		free(g->mutexes[i].facts);
	}
	free(g->mutexes);
	lt_strlist_free(&g->notes);
	free(g);
}
