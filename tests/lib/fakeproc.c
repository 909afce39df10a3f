/* The fake target process of the lock-model unit tests (see lt_fakeproc.h);
 * no tests here. */
#include <criterion/criterion.h>
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "lt_fakeproc.h"

void fp_init(struct fakeproc *f, size_t nthreads)
{
	cr_assert_leq(nthreads, FP_MAX_THREADS);
	memset(f, 0, sizeof(*f));
	for (size_t i = 0; i < nthreads; i++)
		f->threads[i].tid = FP_FIRST_TID + (pid_t)i;
	f->snap.pid = FP_FIRST_TID;
	f->snap.threads = f->threads;
	f->snap.n_threads = nthreads;
}

void fp_free(struct fakeproc *f)
{
	for (size_t i = 0; i < f->nreg; i++)
		free(f->reg[i].buf);
	memset(f, 0, sizeof(*f));
}

uint8_t *fp_region(struct fakeproc *f, uint64_t addr, size_t len)
{
	cr_assert_lt(f->nreg, FP_MAX_REGIONS);
	uint8_t *b = calloc(1, len);
	cr_assert_not_null(b);
	f->reg[f->nreg].addr = addr;
	f->reg[f->nreg].buf = b;
	f->reg[f->nreg++].len = len;
	return b;
}

static uint8_t *find(struct fakeproc *f, uint64_t addr, size_t len)
{
	for (size_t i = 0; i < f->nreg; i++)
		if (addr >= f->reg[i].addr && addr + len <= f->reg[i].addr + f->reg[i].len)
			return f->reg[i].buf + (addr - f->reg[i].addr);
	return NULL;
}

uint8_t *fp_at(struct fakeproc *f, uint64_t addr, size_t len)
{
	uint8_t *p = find(f, addr, len);
	if (!p)
		cr_assert_fail("fixture writes outside its regions at 0x%llx", (unsigned long long)addr);
	return p;
}

void fp_put32(struct fakeproc *f, uint64_t addr, uint32_t v)
{
	memcpy(fp_at(f, addr, 4), &v, 4);
}

void fp_put64(struct fakeproc *f, uint64_t addr, uint64_t v)
{
	memcpy(fp_at(f, addr, 8), &v, 8);
}

void fp_sym(struct fakeproc *f, const char *name, uint64_t addr, uint64_t size)
{
	cr_assert_lt(f->nsym, FP_MAX_SYMS);
	f->sym[f->nsym].name = name;
	f->sym[f->nsym].addr = addr;
	f->sym[f->nsym++].size = size;
}

void fp_stack(struct fakeproc *f, uint64_t lo, uint64_t hi, pid_t tid)
{
	cr_assert_lt(f->nstack, FP_MAX_STACKS);
	f->stack[f->nstack].lo = lo;
	f->stack[f->nstack].hi = hi;
	f->stack[f->nstack++].tid = tid;
}

void fp_fsbase(struct fakeproc *f, pid_t tid, uint64_t fsbase)
{
	cr_assert_lt(f->nfs, FP_MAX_FSBASES);
	f->fs[f->nfs].tid = tid;
	f->fs[f->nfs++].fsbase = fsbase;
}

static int fp_read(void *arg, uint64_t addr, void *buf, size_t len)
{
	struct fakeproc *f = arg;
	const uint8_t *p = f->unreadable ? NULL : find(f, addr, len);
	if (!p)
		return -EFAULT;
	memcpy(buf, p, len);
	return 0;
}

static int fp_lookup(void *arg, const char *name, uint64_t *addr, uint64_t *size)
{
	struct fakeproc *f = arg;
	for (size_t i = 0; i < f->nsym; i++)
		if (strcmp(f->sym[i].name, name) == 0) {
			*addr = f->sym[i].addr;
			if (size)
				*size = f->sym[i].size;
			return 0;
		}
	return -ENOENT;
}

static pid_t fp_stack_tid(void *arg, uint64_t addr)
{
	struct fakeproc *f = arg;
	for (size_t i = 0; i < f->nstack; i++)
		if (addr >= f->stack[i].lo && addr < f->stack[i].hi)
			return f->stack[i].tid;
	return 0;
}

static uint64_t fp_fsbase_of(void *arg, pid_t tid)
{
	struct fakeproc *f = arg;
	for (size_t i = 0; i < f->nfs; i++)
		if (f->fs[i].tid == tid)
			return f->fs[i].fsbase;
	return 0;
}

void fp_env(struct fakeproc *f, struct lt_lm_env *e)
{
	*e = (struct lt_lm_env){ .arg = f, .read = fp_read, .lookup = fp_lookup,
				 .stack_tid = fp_stack_tid, .fsbase = f->nfs ? fp_fsbase_of : NULL,
				 .s = &f->snap };
}

void fi_init(struct fp_image *m, uint64_t base, size_t size, size_t reserved)
{
	memset(m, 0, sizeof(*m));
	m->mem = calloc(1, size);
	cr_assert_not_null(m->mem);
	m->base = base;
	m->size = size;
	m->used = reserved;
}

void fi_free(struct fp_image *m)
{
	free(m->mem);
	m->mem = NULL;
}

uint64_t fi_alloc(struct fp_image *m, size_t len)
{
	size_t at = (m->used + 15) & ~(size_t)15;
	cr_assert_leq(at + len, m->size, "the fixture's image is full (%zu bytes)", m->size);
	m->used = at + len;
	return m->base + at;
}

uint8_t *fi_at(struct fp_image *m, uint64_t addr, size_t len)
{
	cr_assert(addr >= m->base && addr - m->base <= m->size && len <= m->size - (addr - m->base),
		  "fixture writes outside its image at 0x%llx", (unsigned long long)addr);
	return m->mem + (addr - m->base);
}

void fi_put8(struct fp_image *m, uint64_t addr, uint8_t v)
{
	*fi_at(m, addr, 1) = v;
}

void fi_put16(struct fp_image *m, uint64_t addr, uint16_t v)
{
	memcpy(fi_at(m, addr, 2), &v, 2);
}

void fi_put32(struct fp_image *m, uint64_t addr, uint32_t v)
{
	memcpy(fi_at(m, addr, 4), &v, 4);
}

void fi_put64(struct fp_image *m, uint64_t addr, uint64_t v)
{
	memcpy(fi_at(m, addr, 8), &v, 8);
}

uint64_t fi_get64(struct fp_image *m, uint64_t addr)
{
	uint64_t v;
	memcpy(&v, fi_at(m, addr, 8), 8);
	return v;
}

void fi_write(struct fp_image *m, uint64_t addr, const void *src, size_t len)
{
	memcpy(fi_at(m, addr, len), src, len);
}

uint64_t fi_str(struct fp_image *m, const char *s)
{
	if (!s)
		return 0;
	uint64_t a = fi_alloc(m, strlen(s) + 1);
	fi_write(m, a, s, strlen(s) + 1);
	return a;
}

void fi_sym(struct fp_image *m, const char *name, uint64_t addr)
{
	cr_assert_lt(m->nsym, FI_MAX_SYMS);
	m->sym[m->nsym].name = name;
	m->sym[m->nsym++].addr = addr;
}

int fi_read(void *arg, uint64_t addr, void *buf, size_t len)
{
	const struct fp_image *m = arg;
	if (addr < m->base || addr + len > m->base + m->size || addr + len < addr)
		return -EFAULT;
	memcpy(buf, m->mem + (addr - m->base), len);
	return 0;
}

int fi_lookup(void *arg, const char *name, uint64_t *addr, uint64_t *size)
{
	const struct fp_image *m = arg;
	for (int i = 0; i < m->nsym; i++)
		if (!strcmp(m->sym[i].name, name)) {
			*addr = m->sym[i].addr;
			if (size)
				*size = m->sym_size;
			return 0;
		}
	return -ENOENT;
}

pid_t fp_no_stack_tid(void *arg, uint64_t addr)
{
	(void)arg, (void)addr;
	return 0;
}
