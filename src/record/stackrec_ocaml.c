// SPDX-License-Identifier: MIT
/* OCaml 5 stacks of recorded waits (stackrec_ocaml.h). */
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include "stackrec_ocaml.h"
#include "locktrace/ocframes.h"

/* amd64/amd64.S: each saves the OCaml sp in the C stack's link, switches
 * to the C stack and calls C code from there */
static const char *const entries[LT_OCSTK_ENTRIES] = {
	"caml_c_call", "caml_c_call_stack_args", "caml_call_gc", "caml_call_realloc_stack",
};

/* The link is just above the return address (caml_c_call), or above the
 * arguments copied to the C stack (caml_c_call_stack_args): words tried. */
#define LINK_SEARCH 32
/* A saved OCaml sp this far below its stack's end at most (1 GiB: the
 * default limit of OCaml 5 stacks) */
#define STACK_MAX (1ull << 30)

struct lt_ocstk *lt_ocstk_open(const struct lt_lm_env *e)
{
	uint64_t a, sz;
	if (!e || !e->lookup || e->lookup(e->arg, "caml_runstack", &a, &sz))
		return NULL;
	struct lt_ocstk *o = calloc(1, sizeof(*o));
	if (!o)
		return NULL;
	for (size_t i = 0; i < LT_OCSTK_ENTRIES; i++)
		if (!e->lookup(e->arg, entries[i], &a, &sz) && a && sz) {
			o->entry[o->nentry].lo = a;
			o->entry[o->nentry].hi = a + sz;
			o->nentry++;
		}
	if (!o->nentry) {
		free(o);
		return NULL;
	}
	return o;
}

void lt_ocstk_free(struct lt_ocstk *o)
{
	free(o);
}

int lt_ocstk_bpf_layout(const struct lt_ocstk *o, struct lt_oc_layout *l)
{
	memset(l, 0, sizeof(*l));
	if (!o || !o->nentry)
		return -1;
	for (size_t i = 0; i < o->nentry && i < LT_OC_ENTRIES; i++) {
		l->lo[i] = o->entry[i].lo;
		l->hi[i] = o->entry[i].hi;
	}
	l->n = (uint32_t)(o->nentry < LT_OC_ENTRIES ? o->nentry : LT_OC_ENTRIES);
	return 0;
}

static int is_entry(const struct lt_ocstk *o, uint64_t ra)
{
	for (size_t i = 0; i < o->nentry; i++)
		if (ra > o->entry[i].lo && ra <= o->entry[i].hi)
			return 1;
	return 0;
}

static uint64_t word_at(const uint8_t *copy, size_t off)
{
	uint64_t v;
	memcpy(&v, copy + off, sizeof(v));
	return v;
}

int lt_ocstk_copy(const struct lt_ocstk *o, const struct lt_lm_env *e, const uint8_t *copy,
		  size_t len, uint64_t base, uint8_t **out, uint64_t *out_base, size_t *out_len)
{
	*out = NULL;
	*out_base = 0;
	*out_len = 0;
	if (!o || !e || !e->read || !copy || (base & 7))
		return 0;
	/* the innermost return address into an entry point */
	size_t at = len;
	for (size_t off = 0; off + 8 <= len; off += 8)
		if (is_entry(o, word_at(copy, off))) {
			at = off;
			break;
		}
	if (at == len)
		return 0;
	/* its link: { stack, sp, prev }, the stack's stack_info { sp,
	 * exception_ptr, handler } with the saved sp between the two */
	int unreadable = 0;
	for (size_t k = 1; k <= LINK_SEARCH && at + 8 * k + 24 <= len; k++) {
		size_t l = at + 8 * k;
		uint64_t stack = word_at(copy, l), sp = word_at(copy, l + 8);
		if (!stack || (stack & 7) || (sp & 7) || sp <= stack || sp - stack > STACK_MAX)
			continue;
		uint64_t info[3];
		if (e->read(e->arg, stack, info, sizeof(info))) {
			unreadable = 1;
			continue;
		}
		uint64_t handler = info[2];
		if (handler <= sp || handler - sp > STACK_MAX)
			continue;
		/* to the stack's end, and its handler (4 words: the parent
		 * stack of a fiber) */
		uint64_t n = handler - sp + 32;
		if (n > LT_OCSTK_COPY_BYTES)
			n = LT_OCSTK_COPY_BYTES;
		uint8_t *buf = malloc((size_t)n);
		if (!buf)
			return -1;
		if (e->read(e->arg, sp, buf, (size_t)n)) {
			free(buf);
			return -1;
		}
		*out = buf;
		*out_base = sp;
		*out_len = (size_t)n;
		return 1;
	}
	return unreadable ? -1 : 0;
}
