/* Go symbol and function-name lookups (ELF symbol table, pclntab), used by
 * the goroutine reader (rt_go.c) and by the inference of what a goroutine
 * waits for (rt_go_infer.c): apart from both, so neither depends on the
 * other. */
#include <stdint.h>
#include <stdlib.h>

#include "golang.h"
#include "rt_go_int.h"

const char *go_sym_at(const struct go_ctx *c, uint64_t addr, uint64_t *off)
{
	size_t lo = 0, hi = c->nsyms;
	if (!hi)
		return NULL;
	while (hi - lo > 1) {
		size_t mid = lo + (hi - lo) / 2;
		if (c->syms[mid].addr + c->bias <= addr)
			lo = mid;
		else
			hi = mid;
	}
	const struct go_sym *s = &c->syms[lo];
	uint64_t a = s->addr + c->bias;
	if (addr < a || addr >= a + (s->size ? s->size : 1))
		return NULL;
	if (off)
		*off = addr - a;
	return s->name;
}

/* PC's function name, or NULL */
const char *go_func_name(const struct go_ctx *c, uint64_t pc)
{
	if (!c->pcln_ok)
		return NULL;
	uint64_t fn = lt_go_pcln_func(&c->pcln, pc - c->bias, NULL);
	return fn ? lt_go_pcln_name(&c->pcln, fn) : NULL;
}
