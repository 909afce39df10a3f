/* Go's pclntab (the runtime's function table: names, files, lines, frame
 * sizes), the format of Go 1.18 and later (include/locktrace/golang.h).
 * Pure: works on the bytes of the .gopclntab section.
 *
 * Layout (learnt from runtime/symtab.go): a header (magic 0xfffffff0 for
 * 1.18/1.19, 0xfffffff1 for 1.20+; pc quantum, pointer size, number of
 * functions, textStart and the offsets of the name, CU, file, pc-value and
 * function tables), then the function table: pairs (entry offset from
 * textStart, offset of the _func) sorted by entry.  A _func holds offsets
 * of its name and of its pc-value tables (pcsp, pcfile, pcln), then its
 * pcdata and funcdata slots.  A pc-value table is a run of (value delta,
 * pc delta) varint pairs, the value starting at -1. */
#include <errno.h>
#include <string.h>

#include "golang.h"

static uint64_t ld(const uint8_t *d, size_t n, uint64_t off, unsigned size)
{
	uint64_t v = 0;
	if (off > n || size > n - off)
		return 0;
	for (unsigned i = 0; i < size; i++)
		v |= (uint64_t)d[off + i] << (8 * i);
	return v;
}

int lt_go_pcln_init(struct lt_go_pcln *p, const uint8_t *d, size_t n)
{
	memset(p, 0, sizeof(*p));
	if (n < 72)
		return -EINVAL;
	uint32_t magic = (uint32_t)ld(d, n, 0, 4);
	if (magic == 0xfffffff0u)
		p->ver = 118;
	else if (magic == 0xfffffff1u)
		p->ver = 120;
	else
		return -EINVAL;
	p->d = d;
	p->n = n;
	p->quantum = d[6];
	p->ptrsize = d[7];
	if (p->ptrsize != 8 || !p->quantum)
		return -EINVAL;
	p->nfunc = ld(d, n, 8, 8);
	p->text = ld(d, n, 24, 8);
	p->funcname = ld(d, n, 32, 8);
	p->cu = ld(d, n, 40, 8);
	p->filetab = ld(d, n, 48, 8);
	p->pctab = ld(d, n, 56, 8);
	p->pcln = ld(d, n, 64, 8);
	if (p->pcln >= n || p->nfunc > (n - p->pcln) / 8)
		return -EINVAL;
	return 0;
}

uint64_t lt_go_pcln_func(const struct lt_go_pcln *p, uint64_t pc, uint64_t *entry)
{
	if (!p->d || pc < p->text || !p->nfunc)
		return 0;
	uint64_t off = pc - p->text;
	if (off > UINT32_MAX)
		return 0;
	/* entries 0..nfunc-1, entry nfunc is the end of the text */
	uint64_t end = ld(p->d, p->n, p->pcln + p->nfunc * 8, 4);
	if (off >= end)
		return 0;
	uint64_t lo = 0, hi = p->nfunc;
	while (hi - lo > 1) {
		uint64_t mid = lo + (hi - lo) / 2;
		if (ld(p->d, p->n, p->pcln + mid * 8, 4) <= off)
			lo = mid;
		else
			hi = mid;
	}
	uint64_t e = ld(p->d, p->n, p->pcln + lo * 8, 4);
	if (e > off)
		return 0;
	uint64_t fn = p->pcln + ld(p->d, p->n, p->pcln + lo * 8 + 4, 4);
	if (fn + 44 > p->n)
		return 0;
	if (entry)
		*entry = p->text + ld(p->d, p->n, fn, 4);
	return fn;
}

uint64_t lt_go_pcln_func_end(const struct lt_go_pcln *p, uint64_t pc)
{
	uint64_t entry = 0;
	if (!lt_go_pcln_func(p, pc, &entry))
		return 0;
	/* the next entry of the table (entry nfunc: the end of the text) */
	uint64_t off = pc - p->text, lo = 0, hi = p->nfunc;
	while (hi - lo > 1) {
		uint64_t mid = lo + (hi - lo) / 2;
		if (ld(p->d, p->n, p->pcln + mid * 8, 4) <= off)
			lo = mid;
		else
			hi = mid;
	}
	uint64_t end = ld(p->d, p->n, p->pcln + (lo + 1) * 8, 4);
	return end > off ? p->text + end : 0;
}

const char *lt_go_pcln_name(const struct lt_go_pcln *p, uint64_t fn)
{
	int32_t off = (int32_t)ld(p->d, p->n, fn + 4, 4);
	uint64_t at = p->funcname + (uint64_t)(int64_t)off;
	if (off < 0 || at >= p->n || !memchr(p->d + at, 0, p->n - at))
		return "";
	return (const char *)p->d + at;
}

static bool uvarint(const struct lt_go_pcln *p, uint64_t *at, uint32_t *v)
{
	uint32_t r = 0;
	for (unsigned shift = 0; shift < 35; shift += 7) {
		if (*at >= p->n)
			return false;
		uint8_t b = p->d[(*at)++];
		r |= (uint32_t)(b & 0x7f) << shift;
		if (!(b & 0x80)) {
			*v = r;
			return true;
		}
	}
	return false;
}

static int32_t pcvalue(const struct lt_go_pcln *p, uint64_t fn, uint32_t tabo, uint64_t pc)
{
	if (!tabo)
		return INT32_MIN;
	uint64_t at = p->pctab + tabo;
	uint64_t cur = p->text + ld(p->d, p->n, fn, 4);
	int32_t val = -1;
	for (bool first = true;; first = false) {
		uint32_t uv, pcd;
		if (!uvarint(p, &at, &uv))
			return INT32_MIN;
		if (uv == 0 && !first)
			return INT32_MIN;
		int32_t delta = (uv & 1) ? (int32_t)~(uv >> 1) : (int32_t)(uv >> 1);
		val += delta;
		if (!uvarint(p, &at, &pcd))
			return INT32_MIN;
		cur += (uint64_t)pcd * p->quantum;
		if (pc < cur)
			return val;
	}
}

int32_t lt_go_pcln_value(const struct lt_go_pcln *p, uint64_t fn, int tab, uint64_t pc)
{
	if (tab < 0 || tab > 2)
		return INT32_MIN;
	return pcvalue(p, fn, (uint32_t)ld(p->d, p->n, fn + 16 + 4 * (unsigned)tab, 4), pc);
}

const char *lt_go_pcln_file(const struct lt_go_pcln *p, uint64_t fn, int32_t fileno)
{
	if (fileno < 0)
		return NULL;
	uint64_t cuoff = ld(p->d, p->n, fn + 32, 4);
	uint64_t at = p->cu + (cuoff + (uint64_t)fileno) * 4;
	if (at + 4 > p->n)
		return NULL;
	uint32_t fo = (uint32_t)ld(p->d, p->n, at, 4);
	if (fo == UINT32_MAX)
		return NULL;
	at = p->filetab + fo;
	if (at >= p->n || !memchr(p->d + at, 0, p->n - at))
		return NULL;
	return (const char *)p->d + at;
}

/* offset of the pcdata slots and the number of pcdata/funcdata */
static uint64_t slots(const struct lt_go_pcln *p, uint64_t fn, uint32_t *npcdata, uint32_t *nfuncdata)
{
	uint64_t fixed = p->ver >= 120 ? 44 : 40;
	*npcdata = (uint32_t)ld(p->d, p->n, fn + 28, 4);
	*nfuncdata = (uint32_t)ld(p->d, p->n, fn + fixed - 1, 1);
	return fn + fixed;
}

int32_t lt_go_pcln_pcdata(const struct lt_go_pcln *p, uint64_t fn, unsigned i, uint64_t pc)
{
	uint32_t np, nf;
	uint64_t at = slots(p, fn, &np, &nf);
	if (i >= np)
		return INT32_MIN;
	return pcvalue(p, fn, (uint32_t)ld(p->d, p->n, at + 4 * i, 4), pc);
}

uint32_t lt_go_pcln_funcdata(const struct lt_go_pcln *p, uint64_t fn, unsigned i)
{
	uint32_t np, nf;
	uint64_t at = slots(p, fn, &np, &nf);
	if (i >= nf)
		return UINT32_MAX;
	return (uint32_t)ld(p->d, p->n, at + 4 * np + 4 * i, 4);
}
