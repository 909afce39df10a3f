// SPDX-License-Identifier: MIT
/* Go frames of recorded stacks: files and lines from the pclntab
 * (stackrec_go.h). */
#include <fcntl.h>
#include <gelf.h>
#include <libelf.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include "golang.h"
#include "stackrec_go.h"

struct lt_gostk {
	uint8_t *buf; /* the .gopclntab section's bytes */
	size_t len;
	struct lt_go_pcln pcln;
	uint64_t bias;       /* run-time address - link-time address */
	uint64_t text_lo, text_hi; /* run-time extent of the functions */
	/* the section holding go:func.* (the inline trees), a copy */
	uint8_t *fdata;
	uint64_t fdata_addr, fdata_len; /* link-time address */
	uint64_t gofunc;                /* go:func.*'s link-time address, 0 none */
};

/* A copy of section SCN's data (its size into *len), NULL if it has none
 * or, with SIZE not 0, not that size. */
static uint8_t *dup_section(Elf_Scn *scn, uint64_t size, uint64_t *len)
{
	Elf_Data *d = elf_getdata(scn, NULL);
	if (!d || !d->d_buf || !d->d_size || (size && d->d_size != size))
		return NULL;
	uint8_t *copy = malloc(d->d_size);
	if (copy) {
		memcpy(copy, d->d_buf, d->d_size);
		*len = d->d_size;
	}
	return copy;
}

/* The .gopclntab section of ELF (a copy), and whether it is a PIE. */
static uint8_t *read_pclntab(Elf *elf, size_t *len, int *pie)
{
	size_t shstrndx;
	GElf_Ehdr eh;
	if (elf_getshdrstrndx(elf, &shstrndx) != 0 || !gelf_getehdr(elf, &eh))
		return NULL;
	*pie = eh.e_type == ET_DYN;
	for (Elf_Scn *scn = NULL; (scn = elf_nextscn(elf, scn));) {
		GElf_Shdr sh;
		const char *name;
		if (!gelf_getshdr(scn, &sh) || !(name = elf_strptr(elf, shstrndx, sh.sh_name)) ||
		    strcmp(name, ".gopclntab"))
			continue;
		uint64_t n = 0;
		uint8_t *copy = dup_section(scn, 0, &n);
		*len = (size_t)n;
		return copy;
	}
	return NULL;
}

/* A copy of the allocated section of ELF holding link-time address A. */
static uint8_t *read_section_at(Elf *elf, uint64_t a, uint64_t *addr, uint64_t *len)
{
	for (Elf_Scn *scn = NULL; (scn = elf_nextscn(elf, scn));) {
		GElf_Shdr sh;
		if (!gelf_getshdr(scn, &sh) || !(sh.sh_flags & SHF_ALLOC) || sh.sh_type == SHT_NOBITS ||
		    a < sh.sh_addr || a >= sh.sh_addr + sh.sh_size)
			continue;
		uint8_t *copy = dup_section(scn, sh.sh_size, len);
		if (copy)
			*addr = sh.sh_addr;
		return copy;
	}
	return NULL;
}

struct lt_gostk *lt_gostk_open(pid_t pid, const struct lt_lm_env *e)
{
	char path[64];
	snprintf(path, sizeof(path), "/proc/%d/exe", (int)pid);
	elf_version(EV_CURRENT);
	int fd = open(path, O_RDONLY | O_CLOEXEC);
	if (fd < 0)
		return NULL;
	Elf *elf = elf_begin(fd, ELF_C_READ, NULL);
	size_t len = 0;
	int pie = 0;
	uint8_t *buf = elf ? read_pclntab(elf, &len, &pie) : NULL;
	struct lt_gostk *g = buf ? calloc(1, sizeof(*g)) : NULL;
	if (!g || lt_go_pcln_init(&g->pcln, buf, len) != 0) {
		free(buf);
		free(g);
		if (elf)
			elf_end(elf);
		close(fd);
		return NULL;
	}
	g->buf = buf;
	g->len = len;
	/* a position-independent executable: the pclntab's addresses are
	 * the link's; runtime.text is where its text begins at run time */
	uint64_t a, sz;
	if (pie && e && e->lookup && e->lookup(e->arg, "runtime.text", &a, &sz) == 0 && a >= g->pcln.text)
		g->bias = a - g->pcln.text;
	/* the inline trees: funcdata offsets from go:func.* (go.func.* up
	 * to 1.19), in the file */
	if (e && e->lookup && (e->lookup(e->arg, "go:func.*", &a, &sz) == 0 ||
			       e->lookup(e->arg, "go.func.*", &a, &sz) == 0) && a >= g->bias) {
		g->gofunc = a - g->bias;
		g->fdata = read_section_at(elf, g->gofunc, &g->fdata_addr, &g->fdata_len);
		if (!g->fdata)
			g->gofunc = 0;
	}
	elf_end(elf);
	close(fd);
	g->text_lo = g->pcln.text + g->bias;
	if (e && e->lookup && e->lookup(e->arg, "runtime.etext", &a, &sz) == 0 && a > g->text_lo)
		g->text_hi = a;
	else
		g->text_hi = UINT64_MAX;
	return g;
}

void lt_gostk_free(struct lt_gostk *g)
{
	if (g) {
		free(g->fdata);
		free(g->buf);
		free(g);
	}
}

/* N bytes of the inline tree at OFF from go:func.*, 0 or -1. */
static int tree_read(const struct lt_gostk *g, uint64_t off, void *buf, size_t n)
{
	uint64_t a = g->gofunc + off;
	if (!g->fdata || a < g->fdata_addr || a - g->fdata_addr > g->fdata_len ||
	    n > g->fdata_len - (a - g->fdata_addr))
		return -1;
	memcpy(buf, g->fdata + (a - g->fdata_addr), n);
	return 0;
}

static const char *name_at(const struct lt_go_pcln *p, int32_t off)
{
	return off >= 0 && p->funcname + (uint64_t)off < p->n ? (const char *)p->d + p->funcname + off : NULL;
}

struct fvec {
	struct lt_frame *v;
	size_t n, cap;
	int oom;
};

static struct lt_frame *push(struct fvec *o)
{
	if (o->n == o->cap) {
		size_t nc = o->cap ? o->cap * 2 : 32;
		struct lt_frame *v = realloc(o->v, nc * sizeof(*v));
		if (!v) {
			o->oom = 1;
			return NULL;
		}
		o->v = v;
		o->cap = nc;
	}
	struct lt_frame *f = &o->v[o->n++];
	memset(f, 0, sizeof(*f));
	return f;
}

static char *sdup(const char *s)
{
	return s ? strdup(s) : NULL;
}

/* The calls inlined at lookup pc LPC of function FN, innermost first, as
 * frames at PC in MODULE; *FILE and *LINE become the position in FN
 * itself. */
static void inlined(const struct lt_gostk *g, struct fvec *o, uint64_t fn, uint64_t lpc, uint64_t pc,
		    const char *module, const char **file, int32_t *line)
{
	const struct lt_go_pcln *p = &g->pcln;
	int32_t ix = lt_go_pcln_pcdata(p, fn, 2, lpc);
	uint32_t tree = lt_go_pcln_funcdata(p, fn, 3);
	for (int depth = 0; ix >= 0 && tree != UINT32_MAX && g->gofunc && depth < 32; depth++) {
		const char *name;
		const char *nfile;
		int32_t nline;
		int32_t next;
		if (p->ver < 120) {
			/* 1.18, 1.19: parent int16, funcID, pad, file int32,
			 * line int32, nameOff int32, parentPc int32 */
			uint8_t ic[20];
			int16_t parent;
			int32_t ifile, iline, nm;
			if (tree_read(g, tree + (uint64_t)ix * 20, ic, sizeof(ic)))
				break;
			memcpy(&parent, ic, 2);
			memcpy(&ifile, ic + 4, 4);
			memcpy(&iline, ic + 8, 4);
			memcpy(&nm, ic + 12, 4);
			name = name_at(p, nm);
			nfile = lt_go_pcln_file(p, fn, ifile);
			nline = iline;
			next = parent;
		} else {
			/* 1.20+: funcID, pad[3], nameOff int32, parentPc int32,
			 * startLine int32: the caller's position is at parentPc */
			uint8_t ic[16];
			int32_t nm, ppc;
			uint64_t entry;
			if (tree_read(g, tree + (uint64_t)ix * 16, ic, sizeof(ic)))
				break;
			memcpy(&nm, ic + 4, 4);
			memcpy(&ppc, ic + 8, 4);
			name = name_at(p, nm);
			lt_go_pcln_func(p, lpc, &entry);
			uint64_t q = entry + (uint64_t)ppc;
			nfile = lt_go_pcln_file(p, fn, lt_go_pcln_value(p, fn, 1, q));
			nline = lt_go_pcln_value(p, fn, 2, q);
			next = lt_go_pcln_pcdata(p, fn, 2, q);
		}
		struct lt_frame *f = push(o);
		if (!f)
			return;
		f->pc = pc;
		f->func = sdup(name);
		f->module = sdup(module);
		f->file = sdup(*file);
		f->line = *line > 0 ? *line : 0;
		*file = nfile;
		*line = nline;
		ix = next;
	}
}

int lt_gostk_frames(const struct lt_gostk *g, struct lt_frame *f, size_t n, struct lt_frame **out,
		    size_t *out_n)
{
	struct fvec o = { 0 };
	for (size_t i = 0; g && i < n && !o.oom; i++) {
		int in_go = !f[i].file && f[i].pc >= g->text_lo && f[i].pc < g->text_hi;
		/* a return address is after its call: the call's line */
		int ret = i && !f[i].activation;
		uint64_t pc = f[i].pc - g->bias - (uint64_t)ret, entry = 0;
		uint64_t fn = in_go ? lt_go_pcln_func(&g->pcln, pc, &entry) : 0;
		const char *file = NULL;
		int32_t line = 0;
		if (fn) {
			file = lt_go_pcln_file(&g->pcln, fn, lt_go_pcln_value(&g->pcln, fn, 1, pc));
			line = lt_go_pcln_value(&g->pcln, fn, 2, pc);
			inlined(g, &o, fn, pc, f[i].pc, f[i].module, &file, &line);
		}
		struct lt_frame *d = push(&o);
		if (!d)
			break;
		/* a copy of its own: F stays the caller's */
		d->pc = f[i].pc;
		d->activation = f[i].activation;
		d->func_off = f[i].func_off;
		d->line = f[i].line;
		d->func = sdup(f[i].func);
		d->module = sdup(f[i].module);
		d->build_id = sdup(f[i].build_id);
		d->file = sdup(f[i].file);
		if ((f[i].func && !d->func) || (f[i].module && !d->module) ||
		    (f[i].build_id && !d->build_id) || (f[i].file && !d->file))
			o.oom = 1;
		if (fn && file && line > 0 && !d->file) {
			d->file = sdup(file);
			d->line = line;
			if (!d->func) {
				d->func = sdup(lt_go_pcln_name(&g->pcln, fn));
				d->func_off = pc + (uint64_t)ret - entry;
			}
		}
	}
	if (o.oom || !g) {
		for (size_t k = 0; k < o.n; k++)
			lt_frame_clear(&o.v[k]);
		free(o.v);
		return -1;
	}
	*out = o.v;
	*out_n = o.n;
	return 0;
}
