// SPDX-License-Identifier: MIT
/* OCaml frames of recorded stacks: the outputs name native OCaml frames in
 * OCaml's terms (lt_sframe_func, src/trace/stacks.c), and the recorder
 * finds and copies the OCaml 5 stack under a waiter's C stack copy
 * (src/record/stackrec_ocaml.c) in a synthetic memory image: the link
 * above the innermost return address into caml_c_call, checked against its
 * stack_info, the stack copied from the saved sp to its handler (capped),
 * and what must be refused. */
#include <criterion/criterion.h>
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include "stacks.h"
#include "stackrec_ocaml.h"
#include "locktrace/ocframes.h"

Test(stacks_ocaml, frames_are_named_in_ocaml_terms)
{
	char buf[256], dm[256];
	struct lt_sframe f5 = { .pc = 0x55550000a0de, .func = "camlSites5.site_alpha_279", .func_off = 0x3e,
				.module = "ocaml5_sites", .file = "/src/sites5.ml", .line = 48 };
	struct lt_sframe f4 = { .pc = 0x401000, .func = "camlRepro__worker_123", .func_off = 0x10,
				.module = "repro" };
	struct lt_sframe c = { .pc = 0x401100, .func = "caml_c_call", .func_off = 0x1b, .module = "repro" };
	struct lt_sframe py = { .lang = LT_SFRAME_PYTHON, .func = "camlLike.name_1", .file = "x.py",
				.line = 3 };
	struct lt_sframe none = { .pc = 0x1234 };
	cr_assert_str_eq(lt_sframe_func(&f5, dm, sizeof(dm)), "Sites5.site_alpha");
	cr_assert_str_eq(lt_sframe_text(&f5, buf, sizeof(buf)),
			 "Sites5.site_alpha+0x3e (sites5.ml:48) [ocaml5_sites]");
	cr_assert_str_eq(lt_sframe_text(&f4, buf, sizeof(buf)), "Repro.worker+0x10 [repro]");
	/* the runtime's C functions and other runtimes' frames stay as they are */
	cr_assert_str_eq(lt_sframe_text(&c, buf, sizeof(buf)), "caml_c_call+0x1b [repro]");
	cr_assert_str_eq(lt_sframe_func(&py, dm, sizeof(dm)), "camlLike.name_1");
	cr_assert_null(lt_sframe_func(&none, dm, sizeof(dm)));
	/* the symbol itself is what the trace keeps */
	cr_assert_str_eq(f5.func, "camlSites5.site_alpha_279");
}

/* ---- a process image: a few regions of memory, and symbols ---- */

#define CALL_LO 0x555500001000ull /* caml_c_call */
#define CALL_HI 0x555500001040ull
#define ARGS_LO 0x555500001080ull /* caml_c_call_stack_args */
#define ARGS_HI 0x5555000010e0ull
#define INFO 0x555560000000ull    /* the OCaml stack's stack_info */
#define CSTACK 0x7ffd00000000ull  /* the C stack copy's base (the sp) */

struct region {
	uint64_t base;
	uint8_t *data;
	size_t len;
};
struct image {
	struct region r[4];
	size_t n;
	int runstack; /* caml_runstack in the symbols */
};

static int img_read(void *arg, uint64_t addr, void *buf, size_t len)
{
	struct image *im = arg;
	for (size_t i = 0; i < im->n; i++)
		if (addr >= im->r[i].base && addr + len <= im->r[i].base + im->r[i].len) {
			memcpy(buf, im->r[i].data + (addr - im->r[i].base), len);
			return 0;
		}
	return -EFAULT;
}

static int img_lookup(void *arg, const char *name, uint64_t *addr, uint64_t *size)
{
	struct image *im = arg;
	if (!strcmp(name, "caml_runstack") && im->runstack) {
		*addr = 0x555500002000ull;
		*size = 0x80;
		return 0;
	}
	if (!strcmp(name, "caml_c_call")) {
		*addr = CALL_LO;
		*size = CALL_HI - CALL_LO;
		return 0;
	}
	if (!strcmp(name, "caml_c_call_stack_args")) {
		*addr = ARGS_LO;
		*size = ARGS_HI - ARGS_LO;
		return 0;
	}
	return -ENOENT;
}

static void add(struct image *im, uint64_t base, size_t len)
{
	uint8_t *d = malloc(len);
	cr_assert(d);
	for (size_t i = 0; i < len; i++)
		d[i] = (uint8_t)(i * 7 + 1);
	im->r[im->n++] = (struct region){ base, d, len };
}

static void put64(uint8_t *p, size_t off, uint64_t v)
{
	memcpy(p + off, &v, sizeof(v));
}

static void image_free(struct image *im)
{
	for (size_t i = 0; i < im->n; i++)
		free(im->r[i].data);
}

/* An OCaml stack: its stack_info at INFO (sp, exception_ptr, handler), the
 * stack's words after it, its handler SIZE bytes above SP. */
static uint64_t ocaml_stack(struct image *im, uint64_t sp_off, uint64_t size)
{
	uint64_t sp = INFO + sp_off, handler = sp + size;
	add(im, INFO, (size_t)(handler + 32 - INFO));
	put64(im->r[im->n - 1].data, 16, handler);
	return sp;
}

static struct lt_lm_env env_of(struct image *im)
{
	struct lt_lm_env e;
	memset(&e, 0, sizeof(e));
	e.arg = im;
	e.read = img_read;
	e.lookup = img_lookup;
	return e;
}

Test(stacks_ocaml, only_an_ocaml_5_runtime_is_opened)
{
	struct image im = { .runstack = 0 };
	struct lt_lm_env e = env_of(&im);
	cr_assert_null(lt_ocstk_open(&e), "OCaml 4 (no caml_runstack): its caml_c_call switches no stack");
	im.runstack = 1;
	struct lt_ocstk *o = lt_ocstk_open(&e);
	cr_assert(o);
	cr_assert_eq(o->nentry, 2); /* caml_c_call, caml_c_call_stack_args */
	lt_ocstk_free(o);
}

/* The BPF side's copy of a waker's OCaml stack gets the same entry points
 * (locktrace/ocframes.h): a return address in (lo, hi]. */
Test(stacks_ocaml, the_entry_points_go_to_the_bpf_side)
{
	struct image im = { .runstack = 1 };
	struct lt_lm_env e = env_of(&im);
	struct lt_ocstk *o = lt_ocstk_open(&e);
	cr_assert(o);
	struct lt_oc_layout l;
	cr_assert_eq(lt_ocstk_bpf_layout(o, &l), 0);
	cr_assert_eq(l.n, o->nentry);
	for (uint32_t i = 0; i < l.n; i++) {
		cr_assert_eq(l.lo[i], o->entry[i].lo);
		cr_assert_eq(l.hi[i], o->entry[i].hi);
	}
	cr_assert_eq(l.lo[0], CALL_LO, "caml_c_call first");
	cr_assert_eq(lt_ocstk_bpf_layout(NULL, &l), -1);
	cr_assert_eq(l.n, 0);
	lt_ocstk_free(o);
}

Test(stacks_ocaml, the_ocaml_stack_above_caml_c_call_is_copied)
{
	struct image im = { .runstack = 1 };
	struct lt_lm_env e = env_of(&im);
	struct lt_ocstk *o = lt_ocstk_open(&e);
	cr_assert(o);
	uint64_t sp = ocaml_stack(&im, 0x1000, 0x300);
	uint8_t copy[256] = { 0 };
	/* a stale word that is no return address, then the live frames:
	 * caml_ml_mutex_lock's return address into caml_c_call at 0x40, its
	 * link { stack, sp, prev } right above */
	put64(copy, 0x08, CALL_LO); /* the function's start: no return address */
	put64(copy, 0x40, CALL_LO + 0x1b);
	put64(copy, 0x48, INFO);
	put64(copy, 0x50, sp);
	put64(copy, 0x58, 0);
	uint8_t *out;
	uint64_t base;
	size_t len;
	cr_assert_eq(lt_ocstk_copy(o, &e, copy, sizeof(copy), CSTACK, &out, &base, &len), 1);
	cr_assert_eq(base, sp);
	cr_assert_eq(len, 0x300 + 32, "to the handler and its 4 words: %zu", len);
	cr_assert_eq(memcmp(out, im.r[0].data + (sp - INFO), len), 0);
	free(out);
	lt_ocstk_free(o);
	image_free(&im);
}

Test(stacks_ocaml, the_link_above_stack_arguments_is_found)
{
	struct image im = { .runstack = 1 };
	struct lt_lm_env e = env_of(&im);
	struct lt_ocstk *o = lt_ocstk_open(&e);
	uint64_t sp = ocaml_stack(&im, 0x800, 0x40000); /* a deep stack: the copy is capped */
	uint8_t copy[256] = { 0 };
	put64(copy, 0x20, ARGS_LO + 0x30);
	put64(copy, 0x28, 7);     /* two arguments copied to the C stack */
	put64(copy, 0x30, 0x41);
	put64(copy, 0x38, INFO);
	put64(copy, 0x40, sp);
	uint8_t *out;
	uint64_t base;
	size_t len;
	cr_assert_eq(lt_ocstk_copy(o, &e, copy, sizeof(copy), CSTACK, &out, &base, &len), 1);
	cr_assert_eq(base, sp);
	cr_assert_eq(len, LT_OCSTK_COPY_BYTES);
	free(out);
	lt_ocstk_free(o);
	image_free(&im);
}

Test(stacks_ocaml, what_is_not_an_ocaml_call_is_refused)
{
	struct image im = { .runstack = 1 };
	struct lt_lm_env e = env_of(&im);
	struct lt_ocstk *o = lt_ocstk_open(&e);
	uint64_t sp = ocaml_stack(&im, 0x1000, 0x300);
	uint8_t copy[256] = { 0 };
	uint8_t *out = (uint8_t *)1;
	uint64_t base;
	size_t len;
	/* no return address into an entry point: a C thread */
	cr_assert_eq(lt_ocstk_copy(o, &e, copy, sizeof(copy), CSTACK, &out, &base, &len), 0);
	cr_assert_null(out);
	/* a saved sp beyond its stack's handler */
	put64(copy, 0x40, CALL_LO + 0x1b);
	put64(copy, 0x48, INFO);
	put64(copy, 0x50, sp + 0x400);
	cr_assert_eq(lt_ocstk_copy(o, &e, copy, sizeof(copy), CSTACK, &out, &base, &len), 0);
	/* below its stack_info */
	put64(copy, 0x50, INFO - 8);
	cr_assert_eq(lt_ocstk_copy(o, &e, copy, sizeof(copy), CSTACK, &out, &base, &len), 0);
	/* a stack_info that cannot be read: -1, nothing copied */
	put64(copy, 0x48, 0x10000);
	put64(copy, 0x50, 0x10100);
	cr_assert_eq(lt_ocstk_copy(o, &e, copy, sizeof(copy), CSTACK, &out, &base, &len), -1);
	cr_assert_null(out);
	/* the link cut off by the copy's end */
	put64(copy, 0x48, INFO);
	put64(copy, 0x50, sp);
	cr_assert_eq(lt_ocstk_copy(o, &e, copy, 0x50, CSTACK, &out, &base, &len), 0);
	/* no runtime: nothing */
	cr_assert_eq(lt_ocstk_copy(NULL, &e, copy, sizeof(copy), CSTACK, &out, &base, &len), 0);
	lt_ocstk_free(o);
	image_free(&im);
}
