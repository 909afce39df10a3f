/* The OCaml runtime lock model (src/snapshot/runtimes/lock_ocaml.c).
 *
 * lock_ocaml_fixture: synthetic memory images laid out as the runtime's
 * sources say (4.13, 5.2's static thread_table, 5.3's heap thread_table),
 * read through a fake process (tests/lib/lt_fakeproc.h); no process, no root.
 * lock_ocaml_live: the ocaml_holder workload (tests/workloads/ocaml), whose
 * main thread keeps the runtime lock while it sleeps in read(); needs root
 * and ocamlopt at build time. */
#include <criterion/criterion.h>
#include <limits.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "lockmodel.h"
#include "rtthread.h"
#include "rtwatch.h"
#include "stall.h"
#include "snapshot.h"
#include "lt_fakeproc.h"
#include "lt_test.h"
#include "gen_layouts.h"

extern const struct lt_lockmodel lt_lm_ocaml;

/* ---- images, on a fake process (tests/lib/lt_fakeproc.h) ---- */

/* Stdlib__Sys's data as ocamlopt emits it: a few unrelated blocks, then
 * Sys.ocaml_version as an OCaml string block (header: wosize, black,
 * String_tag 252; bytes; NULs; last byte = padding count). */
#define SYS_DATA 0x100000
static void ml_version_unit(struct fakeproc *f, const char *version, const char *unit)
{
	size_t len = strlen(version), wosize = len / 8 + 1, bytes = wosize * 8;
	size_t total = 8 * 8 + 8 + bytes + 16;
	fp_region(f, SYS_DATA, total);
	fp_put64(f, SYS_DATA, (2ull << 10) | (3 << 8) | 0); /* a tuple */
	fp_put64(f, SYS_DATA + 8, 0x55d000001234ull);
	fp_put64(f, SYS_DATA + 24, (1ull << 10) | (3 << 8) | 252); /* "Unix" */
	memcpy(fp_at(f, SYS_DATA + 32, 4), "Unix", 4);
	fp_at(f, SYS_DATA + 39, 1)[0] = 3;
	uint64_t s = SYS_DATA + 8 * 8;
	fp_put64(f, s, ((uint64_t)wosize << 10) | (3 << 8) | 252);
	memcpy(fp_at(f, s + 8, len), version, len);
	fp_at(f, s + 8 + bytes - 1, 1)[0] = (uint8_t)(bytes - 1 - len);
	static char names[2][64];
	/* 4.x: camlStdlib__Sys__data_begin; 5.x: camlStdlib__Sys.data_begin */
	const char *sep = version[0] == '4' ? "__" : ".";
	snprintf(names[0], sizeof(names[0]), "caml%s%sdata_begin", unit, sep);
	snprintf(names[1], sizeof(names[1]), "caml%s%sdata_end", unit, sep);
	fp_sym(f, names[0], SYS_DATA, 0);
	fp_sym(f, names[1], SYS_DATA + total, 0);
}

/* The unit is Stdlib__Sys from 4.13 on, Stdlib__sys before. */
static void ml_version(struct fakeproc *f, const char *version)
{
	int major = 0, minor = 0;
	sscanf(version, "%d.%d", &major, &minor);
	ml_version_unit(f, version, major == 4 && minor < 13 ? "Stdlib__sys" : "Stdlib__Sys");
}

struct found {
	struct lt_rtlock *v;
	size_t n;
	struct lt_strlist notes;
};

static void run_model(struct fakeproc *f, struct found *out)
{
	struct lt_lm_env e;
	fp_env(f, &e);
	memset(out, 0, sizeof(*out));
	cr_assert_eq(lt_lm_ocaml.find(&e, &out->v, &out->n, &out->notes), 0);
	for (size_t i = 0; i < out->n; i++) {
		cr_log_info("rtlock %s %s held=%d waiters=%d holder=%d: %s", out->v[i].model, out->v[i].name,
			    out->v[i].held, out->v[i].waiters, (int)out->v[i].holder,
			    out->v[i].holder_how ? out->v[i].holder_how : "-");
		for (size_t k = 0; k < out->v[i].facts.n; k++)
			cr_log_info("  %s", out->v[i].facts.v[k]);
	}
	for (size_t k = 0; k < out->notes.n; k++)
		cr_log_info("note: %s", out->notes.v[k]);
}

static void found_free(struct found *x)
{
	for (size_t i = 0; i < x->n; i++)
		lt_rtlock_clear(&x->v[i]);
	free(x->v);
	lt_strlist_free(&x->notes);
}

/* The fixture's end: what the model found, then the process. */
static void done(struct fakeproc *f, struct found *x)
{
	found_free(x);
	fp_free(f);
}

/* L's holder_how says NEEDLE. */
static void how_has(const struct lt_rtlock *l, const char *needle)
{
	cr_assert(l->holder_how && strstr(l->holder_how, needle), "%s", l->holder_how ? l->holder_how : "-");
}

#define ANY INT_MIN /* one_lock: a count not checked */

/* The one lock the model finds in F (into X), with HELD, WAITERS (or ANY)
 * and HOLDER as given. */
static const struct lt_rtlock *one_lock(struct fakeproc *f, struct found *x, int held, int waiters,
					pid_t holder)
{
	run_model(f, x);
	cr_assert_eq(x->n, 1);
	const struct lt_rtlock *l = &x->v[0];
	cr_assert_eq(l->held, held);
	if (waiters != ANY)
		cr_assert_eq(l->waiters, waiters);
	cr_assert_eq(l->holder, holder, "%s", l->holder_how);
	return l;
}

/* ---- OCaml 4.13 ---- */

#define ML4_LOCK 0x5000
#define ML4_GLOBALS 0x6000 /* Caml_state at +0, curr_thread at +8 */
#define ML4_STATE 0x7000
#define ML4_THREAD 0x8000
#define STACK_A 0x7ffc0000ull /* thread 100's stack: [A, A+0x10000) */
#define STACK_B 0x7ffd0000ull /* thread 101's stack */

/* busy, waiters; Caml_state's bottom_of_stack in stack BOTTOM_IN; its
 * top_of_stack and curr_thread's top_of_stack and bottom_of_stack in stack
 * TH_IN. */
/* Caml_state's top_of_stack and bottom_of_stack: 4.12-4.14's as their
 * sources give them, unless ml413 sets them from the installed 4.13's own
 * headers (build/gen/ocaml4_layouts.h, tests/gen/ocaml4_layout.c). */
static uint64_t ml4_top = 0xc8, ml4_bottom = 0xd0;

static void ml4(struct fakeproc *f, const char *version, uint32_t busy, uint32_t waiters, uint64_t bottom_in,
		uint64_t th_in)
{
	fp_init(f, 0);
	ml_version(f, version);
	fp_region(f, ML4_LOCK, 96);
	fp_sym(f, "caml_master_lock", ML4_LOCK, 96);
	fp_put32(f, ML4_LOCK + 40, busy);
	fp_put32(f, ML4_LOCK + 44, waiters);
	fp_region(f, ML4_GLOBALS, 16);
	fp_sym(f, "Caml_state", ML4_GLOBALS, 8);
	fp_sym(f, "curr_thread", ML4_GLOBALS + 8, 8);
	fp_put64(f, ML4_GLOBALS, ML4_STATE);
	fp_put64(f, ML4_GLOBALS + 8, ML4_THREAD);
	fp_region(f, ML4_STATE, 0x200);
	fp_put64(f, ML4_STATE + ml4_top, th_in + 0xff00);       /* top_of_stack */
	fp_put64(f, ML4_STATE + ml4_bottom, bottom_in + 0xfa00); /* bottom_of_stack */
	fp_region(f, ML4_THREAD, 0x80);
	fp_put64(f, ML4_THREAD + 24, th_in + 0xff00);
	fp_put64(f, ML4_THREAD + 32, th_in + 0xf000);
	fp_stack(f, STACK_A, STACK_A + 0x10000, 100);
	fp_stack(f, STACK_B, STACK_B + 0x10000, 101);
}

/* 4.13, its Caml_state laid out by the installed 4.13's headers (Debian's
 * ocaml-nox); a skip where no OCaml 4.13 is installed. */
static void ml413(struct fakeproc *f, uint32_t busy, uint32_t waiters, uint64_t bottom_in, uint64_t th_in)
{
	const struct gen_ml4 *g = NULL;
	for (size_t i = 0; gen_ml4_rows[i].version && !g; i++)
		if (!strncmp(gen_ml4_rows[i].version, "4.13.", 5))
			g = &gen_ml4_rows[i];
	if (!g)
		cr_skip_test("no OCaml 4.13 headers here (`ocamlc -where`/caml, Debian: ocaml-nox): "
			     "Caml_state's layout is not known from them");
	ml4_top = (uint64_t)g->top_of_stack;
	ml4_bottom = (uint64_t)g->bottom_of_stack;
	ml4(f, g->version, busy, waiters, bottom_in, th_in);
	ml4_top = 0xc8, ml4_bottom = 0xd0;
}

Test(lock_ocaml_fixture, ocaml413_holder_from_caml_state_and_curr_thread)
{
	struct fakeproc f;
	struct found x;
	ml413(&f, 1, 20, STACK_A, STACK_A);
	const struct lt_rtlock *l = one_lock(&f, &x, 1, 20, 100);
	cr_assert_str_eq(l->model, "ocaml4");
	cr_assert_str_eq(l->kind, "OCaml runtime lock");
	cr_assert_str_eq(l->name, "caml_master_lock");
	cr_assert_str_eq(l->version, "OCaml 4.13.1");
	cr_assert_eq(l->base, ML4_LOCK);
	cr_assert_eq(l->size, 96);
	how_has(l, "Caml_state's bottom_of_stack 0x7ffcfa00");
	how_has(l, "in the stack of thread 100");
	cr_assert_eq(x.notes.n, 0);
	done(&f, &x);
}

Test(lock_ocaml_fixture, ocaml410_caml_state_offsets_and_lowercase_sys_unit)
{
	/* 4.10-4.11: Caml_state's top/bottom_of_stack at 0xc0/0xc8 (no
	 * mark_stack yet), and the unit is Stdlib__sys */
	struct fakeproc f;
	struct found x;
	ml4(&f, "4.10.2", 1, 5, STACK_A, STACK_A);
	fp_put64(&f, ML4_STATE + 0xc8, STACK_A + 0xfa00);
	fp_put64(&f, ML4_STATE + 0xd0, STACK_B + 0xfa00); /* not read in 4.10 */
	fp_put64(&f, ML4_STATE + 0xc0, STACK_A + 0xff00);
	const struct lt_rtlock *l = one_lock(&f, &x, 1, 5, 100);
	cr_assert_str_eq(l->version, "OCaml 4.10.2");
	how_has(l, "Caml_state's bottom_of_stack 0x7ffcfa00");
	done(&f, &x);
}

Test(lock_ocaml_fixture, ocaml413_two_threads_named_is_no_holder)
{
	struct fakeproc f;
	struct found x;
	ml413(&f, 1, 3, STACK_A, STACK_B);
	const struct lt_rtlock *l = one_lock(&f, &x, 1, 3, 0);
	how_has(l, "two threads, 100 and 101");
	done(&f, &x);
}

Test(lock_ocaml_fixture, ocaml413_free_lock_has_no_holder)
{
	struct fakeproc f;
	struct found x;
	ml413(&f, 0, 0, STACK_A, STACK_A);
	cr_assert_str_eq(one_lock(&f, &x, 0, 0, 0)->holder_how, "the lock is free (busy=0)");
	done(&f, &x);
}

Test(lock_ocaml_fixture, ocaml413_insane_busy_is_not_decoded)
{
	struct fakeproc f;
	struct found x;
	ml413(&f, 0x7f3a, 20, STACK_A, STACK_A);
	one_lock(&f, &x, -1, -1, 0);
	cr_assert(tl_strlist_has(&x.notes, "layout mismatch"));
	done(&f, &x);
}

Test(lock_ocaml_fixture, unknown_version_is_said_not_guessed)
{
	/* no Stdlib__Sys data at all (bytecode, stripped) */
	struct fakeproc f;
	struct found x;
	ml413(&f, 1, 20, STACK_A, STACK_A);
	f.nsym = 0; /* drop every symbol, then give back only the lock's */
	fp_sym(&f, "caml_master_lock", ML4_LOCK, 96);
	const struct lt_rtlock *l = one_lock(&f, &x, -1, -1, 0);
	cr_assert_str_eq(l->model, "ocaml4");
	cr_assert_eq(l->base, ML4_LOCK);
	cr_assert_eq(l->size, 96, "the symbol's size still bounds the lock");
	cr_assert_null(l->version);
	how_has(l, "version unknown");
	cr_assert(tl_strlist_has(&x.notes, "not decoded"));
	done(&f, &x);
}

Test(lock_ocaml_fixture, versions_outside_the_table_are_not_guessed)
{
	static const char *const versions[] = { "4.07.1", "5.4.0+dev0-2024-08-25", "6.0.0" };
	for (size_t i = 0; i < sizeof(versions) / sizeof(versions[0]); i++) {
		struct fakeproc f;
		struct found x;
		ml4(&f, versions[i], 1, 20, STACK_A, STACK_A);
		run_model(&f, &x);
		cr_assert_eq(x.n, 1, "%s", versions[i]);
		cr_assert_eq(x.v[0].held, -1, "%s", versions[i]);
		cr_assert_eq(x.v[0].holder, 0, "%s", versions[i]);
		cr_assert(strstr(x.v[0].holder_how, "layout not known"), "%s: %s", versions[i],
			  x.v[0].holder_how);
		cr_assert_eq(x.notes.n, 1);
		done(&f, &x);
	}
}

/* ---- OCaml 5.x ---- */

#define ML5_TABLE 0x20000 /* static array (5.2) or the pointer (5.3) */
#define ML5_HEAP 0x40000  /* 5.3's calloc'd table */
#define ML5_TH0 0x9000
#define ML5_TH1 0x9100

/* The layout the images are laid out with: the one the real compiler's
 * runtime has (build/gen/ocaml5_layouts.h, from the DWARF of the program
 * it built: tests/gen/ocaml5_layout.sh), not the model's constants.  5.2
 * images take 5.2.0's, 5.4 images the 5.4.0+dev compiler's; no 5.3
 * compiler is here, so 5.3's images keep the layout read from its sources
 * (st_pthreads.h, st_stubs.c at the 5.3.0 tag), as the model documents. */
static struct gen_ml5 L;
static const struct gen_ml5 ml53_sources = {
	.version = "5.3.0", .binary = "(none: from the 5.3.0 sources)", .table_size = 8,
	.stride = 144, .lock_off = 8, .lock_size = 112, .init = 0, .init_size = 4, .busy = 48,
	.busy_size = 8, .waiters = 56, .th_domain = 24, .th_c_stack = 40,
};

static void ml5_layout(const char *version)
{
	if (!strncmp(version, "5.3", 3)) {
		L = ml53_sources;
		return;
	}
	const char *real = !strncmp(version, "5.4", 3) ? "5.4.0+dev" : "5.2.0";
	const struct gen_ml5 *g = gen_ml5_row(real);
	if (!g)
		cr_skip_test("no program built by the real OCaml %s compiler (ocaml-%s-min.tar.xz in "
			     "../shared/tools, unpacked by the Makefile): its layout is not known here",
			     real, real);
	L = *g;
}

/* A caml_thread_struct of domain DOM whose c_stack is C_STACK. */
static void ml5_thread(struct fakeproc *f, uint64_t at, uint32_t dom, uint64_t c_stack)
{
	fp_put32(f, at + (uint64_t)L.th_domain, dom);
	fp_put64(f, at + (uint64_t)L.th_c_stack, c_stack);
}

/* thread_table[d] at ENTRY: active_thread, then thread_lock {init, mutex,
 * busy, waiters, cond}. */
static void ml5_entry(struct fakeproc *f, uint64_t entry, uint64_t active, uint64_t busy, uint64_t waiters)
{
	uint64_t lock = entry + (uint64_t)L.lock_off;
	fp_put64(f, entry, active);
	if (L.init_size == 1)
		fp_at(f, lock + (uint64_t)L.init, 1)[0] = 1;
	else
		fp_put32(f, lock + (uint64_t)L.init, 1);
	if (L.busy_size == 1)
		fp_at(f, lock + (uint64_t)L.busy, 1)[0] = (uint8_t)busy;
	else
		fp_put64(f, lock + (uint64_t)L.busy, busy);
	fp_put64(f, lock + (uint64_t)L.waiters, waiters);
}

static void ml5_common(struct fakeproc *f, const char *version)
{
	ml5_layout(version);
	fp_init(f, 0);
	ml_version(f, version);
	fp_sym(f, "caml_thread_initialize", 0x1000, 64);
	fp_region(f, ML5_TH0, 0x200);
	ml5_thread(f, ML5_TH0, 0, STACK_A + 0xe000);
	ml5_thread(f, ML5_TH1, 1, STACK_B + 0xe000);
	fp_stack(f, STACK_A, STACK_A + 0x10000, 200);
	fp_stack(f, STACK_B, STACK_B + 0x10000, 201);
}

/* 5.3's layout: thread_table a pointer to a calloc'd table of N entries
 * (144 bytes each), all unused. */
static void ml5_heap_table(struct fakeproc *f, const char *version, size_t n)
{
	ml5_common(f, version);
	fp_region(f, ML5_TABLE, 8);
	fp_sym(f, "thread_table", ML5_TABLE, 8);
	fp_put64(f, ML5_TABLE, ML5_HEAP);
	fp_region(f, ML5_HEAP, (uint64_t)L.stride * n);
}

Test(lock_ocaml_fixture, ocaml52_static_thread_table)
{
	struct fakeproc f;
	struct found x;
	ml5_common(&f, "5.2.0");
	fp_region(&f, ML5_TABLE, (uint64_t)L.table_size);
	fp_sym(&f, "thread_table", ML5_TABLE, (uint64_t)L.table_size);
	ml5_entry(&f, ML5_TABLE, ML5_TH0, 1, 3);
	ml5_entry(&f, ML5_TABLE + (uint64_t)L.stride, ML5_TH1, 0, 0);
	run_model(&f, &x);
	cr_assert_eq(x.n, 2);
	cr_assert_str_eq(x.v[0].model, "ocaml5");
	cr_assert_str_eq(x.v[0].kind, "OCaml runtime lock");
	cr_assert_str_eq(x.v[0].name, "domain 0");
	cr_assert_str_eq(x.v[0].version, "OCaml 5.2.0");
	cr_assert_eq(x.v[0].base, ML5_TABLE + (uint64_t)L.lock_off);
	cr_assert_eq(x.v[0].size, (uint64_t)L.lock_size);
	cr_assert_eq(x.v[0].held, 1);
	cr_assert_eq(x.v[0].waiters, 3);
	cr_assert_eq(x.v[0].holder, 200);
	cr_assert(strstr(x.v[0].holder_how, "active_thread's c_stack"), "%s", x.v[0].holder_how);
	cr_assert_str_eq(x.v[1].name, "domain 1");
	cr_assert_eq(x.v[1].base, ML5_TABLE + (uint64_t)L.stride + (uint64_t)L.lock_off);
	cr_assert_eq(x.v[1].held, 0);
	cr_assert_eq(x.v[1].holder, 0);
	cr_assert_eq(x.notes.n, 0);
	done(&f, &x);
}

Test(lock_ocaml_fixture, ocaml53_thread_table_on_the_heap)
{
	struct fakeproc f;
	struct found x;
	ml5_heap_table(&f, "5.3.0", 4); /* OCAMLRUNPARAM=d=4 */
	ml5_entry(&f, ML5_HEAP, ML5_TH0, 0, 0);
	ml5_entry(&f, ML5_HEAP + (uint64_t)L.stride, ML5_TH1, 1, 7);
	run_model(&f, &x);
	cr_assert_eq(x.n, 2);
	cr_assert_eq(x.v[0].base, ML5_HEAP + (uint64_t)L.lock_off);
	cr_assert_eq(x.v[0].held, 0);
	cr_assert_str_eq(x.v[1].name, "domain 1");
	cr_assert_eq(x.v[1].base, ML5_HEAP + (uint64_t)L.stride + (uint64_t)L.lock_off);
	cr_assert_eq(x.v[1].size, (uint64_t)L.lock_size);
	cr_assert_eq(x.v[1].held, 1);
	cr_assert_eq(x.v[1].waiters, 7);
	cr_assert_eq(x.v[1].holder, 201);
	cr_assert_eq(x.notes.n, 0, "reading stopped at the first unused entry");
	done(&f, &x);
}

/* 5.2's static table, as the real 5.2.0 runtime lays it out, with domain
 * 0's lock held by thread 200 and 3 waiters. */
static void ml52_sized(struct fakeproc *f, const char *version, uint64_t sym_size)
{
	ml5_common(f, version);
	fp_region(f, ML5_TABLE, (uint64_t)L.table_size);
	fp_sym(f, "thread_table", ML5_TABLE, sym_size);
	ml5_entry(f, ML5_TABLE, ML5_TH0, 1, 3);
}

static void ml52(struct fakeproc *f, const char *version)
{
	ml5_common(f, version);
	fp_region(f, ML5_TABLE, (uint64_t)L.table_size);
	fp_sym(f, "thread_table", ML5_TABLE, (uint64_t)L.table_size);
	ml5_entry(f, ML5_TABLE, ML5_TH0, 1, 3);
}

/* Symbol names of 5.x data: camlStdlib__Sys.data_begin (the 4.x spelling
 * camlStdlib__Sys__data_begin is gone) */
Test(lock_ocaml_fixture, ocaml5_version_from_dotted_data_symbols)
{
	struct fakeproc f;
	struct found x;
	ml52(&f, "5.2.0");
	uint64_t a, sz;
	struct lt_lm_env e;
	fp_env(&f, &e);
	cr_assert_neq(e.lookup(e.arg, "camlStdlib__Sys__data_begin", &a, &sz), 0);
	cr_assert_eq(e.lookup(e.arg, "camlStdlib__Sys.data_begin", &a, &sz), 0);
	const struct lt_rtlock *l = one_lock(&f, &x, 1, 3, 200);
	cr_assert_str_eq(l->version, "OCaml 5.2.0");
	cr_assert(tl_strlist_has(&l->facts, "version=5.2.0 (layout of 5.0-5.2)"));
	done(&f, &x);
}

/* Without Stdlib__Sys's data the version is unknown: a 17408-byte table
 * (128 entries of 136 bytes) is 5.0-5.2's, confirmed by its first entry;
 * the holder is named, as an inference. */
Test(lock_ocaml_fixture, ocaml5_unknown_version_static_table_recognised)
{
	struct fakeproc f;
	struct found x;
	ml52(&f, "5.2.0");
	f.nsym = 0;
	fp_sym(&f, "caml_thread_initialize", 0x1000, 64);
	fp_sym(&f, "thread_table", ML5_TABLE, (uint64_t)L.table_size);
	const struct lt_rtlock *l = one_lock(&f, &x, 1, 3, 200);
	cr_assert_null(l->version);
	cr_assert_str_eq(l->name, "domain 0");
	how_has(l, "an inference: OCaml version unknown");
	how_has(l, "5.0-5.2 recognised from thread_table's symbol size (17408 bytes)");
	cr_assert_eq(x.notes.n, 0);
	done(&f, &x);
}

/* 5.3 and trunk: a pointer; trunk's bool init/busy leave padding after
 * their byte, which must not read as a layout mismatch. */
Test(lock_ocaml_fixture, ocaml5_unknown_version_heap_table_with_bool_fields)
{
	struct fakeproc f;
	struct found x;
	ml5_heap_table(&f, "5.4.0+dev0-2024-08-25", 3);
	ml5_entry(&f, ML5_HEAP, ML5_TH0, 1, 2);
	fp_put64(&f, ML5_HEAP + (uint64_t)(L.lock_off + L.busy), 0xdead00000001ull); /* bool busy + padding */
	fp_put32(&f, ML5_HEAP + (uint64_t)(L.lock_off + L.init), 0xab000001u);          /* bool init + padding */
	const struct lt_rtlock *l = one_lock(&f, &x, 1, 2, 200);
	cr_assert_str_eq(l->version, "OCaml 5.4.0+dev0-2024-08-25");
	done(&f, &x);
	/* the same memory, version unknown */
	ml5_heap_table(&f, "5.4.0+dev0-2024-08-25", 3);
	ml5_entry(&f, ML5_HEAP, ML5_TH0, 1, 2);
	f.nsym = 0;
	fp_sym(&f, "caml_thread_initialize", 0x1000, 64);
	fp_sym(&f, "thread_table", ML5_TABLE, 8);
	l = one_lock(&f, &x, 1, 2, 200);
	cr_assert_null(l->version);
	how_has(l, "5.3 or later (trunk) recognised");
	done(&f, &x);
}

/* A released 5.4 (or any version whose layout no source here confirms)
 * is said, not guessed; so is a table of no known size. */
Test(lock_ocaml_fixture, ocaml5_unconfirmed_layouts_are_not_guessed)
{
	struct fakeproc f;
	struct found x;
	ml5_heap_table(&f, "5.4.0", 3);
	ml5_entry(&f, ML5_HEAP, ML5_TH0, 1, 2);
	const struct lt_rtlock *l = one_lock(&f, &x, -1, ANY, 0);
	how_has(l, "OCaml 5.4.0: ocaml5 layout not known");
	done(&f, &x);

	ml52(&f, "5.2.0");
	f.nsym = 0;
	fp_sym(&f, "caml_thread_initialize", 0x1000, 64);
	fp_sym(&f, "thread_table", ML5_TABLE, (uint64_t)L.stride * 64);
	l = one_lock(&f, &x, -1, ANY, 0);
	how_has(l, "the size of no known layout");
	done(&f, &x);

	/* the right size, but entry 0 does not read as one (busy=7) */
	ml52(&f, "5.2.0");
	fp_put64(&f, ML5_TABLE + (uint64_t)(L.lock_off + L.busy), 7);
	f.nsym = 0;
	fp_sym(&f, "caml_thread_initialize", 0x1000, 64);
	fp_sym(&f, "thread_table", ML5_TABLE, (uint64_t)L.table_size);
	l = one_lock(&f, &x, -1, ANY, 0);
	how_has(l, "does not read as one");
	done(&f, &x);
}

/* A static table whose symbol claims far more than Max_domains entries is
 * read for 128 of them, and the note says so. */
Test(lock_ocaml_fixture, ocaml5_huge_symbol_size_is_capped)
{
	struct fakeproc f;
	struct found x;
	ml52_sized(&f, "5.2.0", 64ull << 20);
	one_lock(&f, &x, 1, 3, 200);
	cr_assert(tl_strlist_has(&x.notes, "read 128, the runtime's Max_domains"));
	cr_assert_eq(x.notes.n, 1, "nothing past the 128th entry was read");
	done(&f, &x);
}

Test(lock_ocaml_fixture, ocaml5_layout_disagreeing_with_symbol_is_not_decoded)
{
	/* says 5.2 (static array) but thread_table is a pointer */
	struct fakeproc f;
	struct found x;
	ml5_heap_table(&f, "5.2.1", 2);
	ml5_entry(&f, ML5_HEAP, ML5_TH0, 1, 1);
	const struct lt_rtlock *l = one_lock(&f, &x, -1, ANY, 0);
	cr_assert_str_eq(l->name, "thread_table");
	cr_assert_eq(l->size, 0, "a pointer claims no futex word");
	how_has(l, "layout mismatch");
	cr_assert_eq(x.notes.n, 1);
	done(&f, &x);
}

Test(lock_ocaml_fixture, other_programs_thread_table_is_not_ocaml)
{
	struct fakeproc f;
	struct found x;
	fp_init(&f, 0);
	fp_region(&f, ML5_TABLE, 4096);
	fp_sym(&f, "thread_table", ML5_TABLE, 4096);
	run_model(&f, &x);
	cr_assert_eq(x.n, 0);
	cr_assert_eq(x.notes.n, 0);
	done(&f, &x);
}

/* ---- live: the ocaml_holder workload ---- */

TL_WORKLOAD(256);

static void cleanup(void)
{
	tl_close(&wl);
}

static pid_t truth_tid(int i)
{
	int ok = 0;
	pid_t tid = (pid_t)tl_val(truth[i], "tid", &ok);
	cr_assert(ok, "no tid= in '%s'", truth[i]);
	return tid;
}

Test(lock_ocaml_live, holder_in_read_named_by_the_runtime, .fini = cleanup, .timeout = 90)
{
	tl_skip_unless_root("needs root: the same view of /proc and memory as the recorder");
	if (access(WL("ocaml_holder"), X_OK) != 0)
		cr_skip_test(WL("ocaml_holder") " not built: needs ocamlopt (Debian ocaml-nox), then make all");
	char *argv[] = { WL("ocaml_holder"), NULL };
	tl_start_ready(&wl, argv, truth, &ntruth, 256, 60000);

	pid_t holder = (pid_t)tl_truth_val(truth, ntruth, "thread", "role=holder", "tid");
	cr_assert(holder > 0);

	struct lt_snapshot *s = NULL;
	int r = lt_snapshot_take(wl.pid, NULL, &s);
	cr_assert_eq(r, 0, "lt_snapshot_take: %s", lt_snapshot_strerror(r));

	size_t n_ocaml = 0, li = 0;
	for (size_t i = 0; i < s->n_rtlocks; i++)
		if (strcmp(s->rtlocks[i].kind, "OCaml runtime lock") == 0)
			n_ocaml++, li = i;
	cr_assert_eq(n_ocaml, 1, "%zu OCaml runtime locks", n_ocaml);
	const struct lt_rtlock *l = &s->rtlocks[li];
	cr_log_info("%s %s held=%d waiters=%d holder=%d: %s", l->name, l->version ? l->version : "-", l->held,
		    l->waiters, (int)l->holder, l->holder_how ? l->holder_how : "-");
	cr_assert_str_eq(l->model, "ocaml4"); /* Debian 12's OCaml is 4.13.1 */
	cr_assert_eq(l->held, 1);
	cr_assert_eq(l->holder, holder, "holder %d, expected %d: %s", (int)l->holder, (int)holder,
		     l->holder_how ? l->holder_how : "-");

	int waiters = 0;
	for (int i = 0; i < ntruth; i++) {
		if (strncmp(truth[i], "thread ", 7) || !strstr(truth[i], "role=waiter"))
			continue;
		pid_t tid = truth_tid(i);
		const struct lt_thread *t = lt_snapshot_find(s, tid);
		cr_assert_not_null(t, "waiter %d missing", (int)tid);
		/* nothing wakes them: every waiter is still in its futex wait */
		cr_assert_eq(t->wait, LT_WAIT_FUTEX, "waiter %d not in a futex wait", (int)tid);
		cr_assert_eq(t->futex.rtlock, li + 1, "waiter %d: rtlock %u", (int)tid, t->futex.rtlock);
		cr_assert_eq(t->futex.owner_kind, LT_OWNER_RUNTIME, "waiter %d", (int)tid);
		cr_assert_eq(t->futex.owner, holder, "waiter %d: owner %d", (int)tid, (int)t->futex.owner);
		waiters++;
	}
	cr_assert_eq(waiters, 20);
	cr_assert_eq(l->waiters, 20, "the runtime's own count");

	const struct lt_thread *h = lt_snapshot_find(s, holder);
	cr_assert_not_null(h);
	cr_assert_eq(h->wait, LT_WAIT_IO, "holder not in read(): %s", lt_wait_kind_name(h->wait));

	cr_assert_gt(s->n_verdicts, 0);
	cr_assert_eq(s->verdicts[0].owner, holder, "verdict %s names owner %d",
		     lt_verdict_kind_name(s->verdicts[0].kind), (int)s->verdicts[0].owner);
	lt_snapshot_free(s);
}

/* The main thread holds a Mutex and joins a thread that waits for it
 * (Debian's OCaml 4.13): the join's other end is that thread, read from its
 * descriptor's termination event in the runtime's ring of threads, and the
 * two are a deadlock. */
Test(lock_ocaml_live, thread_join_of_a_mutex_waiter_is_a_deadlock, .fini = cleanup, .timeout = 90)
{
	tl_skip_unless_root("needs root: the same view of /proc and memory as the recorder");
	if (access(WL("ocaml_holder"), X_OK) != 0)
		cr_skip_test(WL("ocaml_holder") " not built: needs ocamlopt (Debian ocaml-nox), then make all");
	char *argv[] = { WL("ocaml_holder"), "--join", NULL };
	tl_start_ready(&wl, argv, truth, &ntruth, 256, 60000);
	pid_t c = (pid_t)tl_truth_val(truth, ntruth, "thread", "role=locker", "tid");
	pid_t j = (pid_t)tl_truth_val(truth, ntruth, "thread", "role=joiner", "tid");
	cr_assert(c > 0 && j > 0);
	struct lt_snapshot *s = NULL;
	int r = lt_snapshot_take(wl.pid, NULL, &s);
	cr_assert_eq(r, 0, "lt_snapshot_take: %s", lt_snapshot_strerror(r));
	const struct lt_thread *tj = lt_snapshot_find(s, j);
	cr_assert_not_null(tj);
	cr_assert_str_eq(tj->futex.lock_kind ? tj->futex.lock_kind : "-", LT_KIND_OCAML_THREAD_JOIN);
	cr_assert_eq(tj->futex.owner, c, "the joiner waits for %d, want %d", (int)tj->futex.owner, (int)c);
	const struct lt_rtlock *l = &s->rtlocks[tj->futex.rtlock - 1];
	cr_assert_str_eq(l->model, "ocaml4");
	cr_assert_str_eq(l->name, "Thread 1");
	cr_assert_gt(s->n_verdicts, 0);
	const struct lt_verdict *v = &s->verdicts[0];
	cr_assert_eq(v->kind, LT_VERDICT_DEADLOCK, "%s", v->summary);
	cr_assert_eq(v->n_tids, 2, "%s", v->summary);
	cr_assert((v->tids[0] == j && v->tids[1] == c) || (v->tids[0] == c && v->tids[1] == j), "%s", v->summary);
	lt_snapshot_free(s);
}

/* ---- the flight recorder's witness (rtwatch.h) on an OCaml lock ---- */

/* No hand-off count: a holder asleep in read() for the window while a
 * thread waits on the lock is the evidence; a holder that is not asleep
 * in a call (running OCaml code, which hands the lock on at each tick) is
 * never judged. */
Test(lock_ocaml_fixture, stall_witness_is_the_holders_sleep)
{
	struct lt_stall s;
	char why[320];
	const uint64_t lock = 0x5000;
	uint64_t rd[6] = { 3, 0x7ffd0000, 1, 0, 0, 0 }, fw[6] = { lock + 0x6c, 0x89, 0, 0, 0, 0 };
	struct lt_rtlock l = { .model = "ocaml5", .kind = "OCaml runtime lock", .name = "domain 0",
			       .version = "OCaml 5.2.0", .base = lock, .size = 112, .held = 1, .holder = 900,
			       .kept_while_asleep = true };
	const uint64_t S1 = 1000000000ull;
	cr_assert_eq(lt_stall_init(&s, LT_STALL_LOCKS, 2 * S1, 10 * S1), 0);
	lt_stall_seed(&s, 900, -1, rd, 0);
	lt_stall_seed(&s, 901, -1, fw, 0);
	lt_stall_seed(&s, 901, 202, fw, 10 * S1); /* FUTEX_WAIT_BITSET on the lock's condvar */
	struct lt_rtwatch *w = lt_rtwatch_new(900, 2 * S1);
	/* the holder runs: no evidence */
	cr_assert_eq(lt_rtwatch_feed(w, &l, 1, &s, 10 * S1 + 1, why, sizeof(why)), 0);
	lt_stall_seed(&s, 900, 0, rd, 9 * S1); /* read() since 9 s */
	cr_assert_eq(lt_rtwatch_feed(w, &l, 1, &s, 10 * S1 + 2, why, sizeof(why)), 0, "1 s: not yet");
	cr_assert_eq(lt_rtwatch_feed(w, &l, 1, &s, 11 * S1, why, sizeof(why)), 1);
	cr_assert_str_eq(why, "1 thread waits for the OCaml runtime lock (domain 0, OCaml 5.2.0) held by "
			      "thread 900, which has been in an I/O wait for 2.0 s");
	lt_rtwatch_free(w);
	lt_stall_free(&s);
}

/* ---- the OCaml thread model (src/rt_ocaml.c): waits in OCaml's terms ---- */

extern const struct lt_rtmodel lt_rt_ocaml;

/* A thread in a futex wait whose stack is FUNCS (innermost first), the
 * glibc model's KIND and STATE on it. */
static void waiting(struct lt_thread *t, pid_t tid, const char *kind, const char *state,
		    const char *const *funcs)
{
	t->tid = tid;
	t->wait = LT_WAIT_FUTEX;
	t->futex.is_wait = true;
	t->futex.lock_kind = kind;
	t->futex.lock_state = strdup(state);
	t->acquire = !strcmp(kind, "pthread mutex") ? "pthread_mutex_lock" : NULL;
	size_t n = 0;
	while (funcs[n])
		n++;
	t->frames = calloc(n, sizeof(*t->frames));
	t->n_frames = n;
	for (size_t i = 0; i < n; i++)
		t->frames[i].func = strdup(funcs[i]);
}

Test(lock_ocaml_fixture, thread_model_names_mutex_condition_and_joins)
{
	static const char *const mutex5[] = { "__GI___lll_lock_wait", "__pthread_mutex_lock@GLIBC_2.2.5",
					      "caml_ml_mutex_lock", "caml_c_call", "camlHold.worker_723", NULL };
	static const char *const mutex4[] = { "__lll_lock_wait", "pthread_mutex_lock", "caml_mutex_lock",
					      "caml_c_call", "camlHold__worker_123", NULL };
	static const char *const djoin[] = { "__futex_abstimed_wait_common", "pthread_cond_wait@@GLIBC_2.3.2",
					     "caml_ml_condition_wait", "caml_c_call", "camlStdlib__Domain.loop_512",
					     "camlStdlib__Mutex.protect_301", "camlStdlib__Domain.join_600",
					     "camlMain.entry", NULL };
	static const char *const cond[] = { "__futex_abstimed_wait_common", "pthread_cond_wait@@GLIBC_2.3.2",
					    "caml_ml_condition_wait", "caml_c_call", "camlQueue.take_88", NULL };
	static const char *const tjoin[] = { "__futex_abstimed_wait_common", "pthread_cond_wait@@GLIBC_2.3.2",
					     "st_event_wait", "caml_thread_join", "caml_c_call", NULL };
	static const char *const plain[] = { "__GI___lll_lock_wait", "pthread_mutex_lock", "my_c_code", NULL };
	struct lt_snapshot s = { 0 };
	s.threads = calloc(6, sizeof(*s.threads));
	s.n_threads = 6;
	waiting(&s.threads[0], 10, "pthread mutex", "locked, owner 12", mutex5);
	waiting(&s.threads[1], 11, "pthread mutex", "locked, owner 12", mutex4);
	waiting(&s.threads[2], 12, "condition variable", "group 0", djoin);
	waiting(&s.threads[3], 13, "condition variable", "group 0", cond);
	waiting(&s.threads[4], 14, "condition variable", "group 0", tjoin);
	waiting(&s.threads[5], 15, "pthread mutex", "locked, owner 10", plain);
	lt_rt_ocaml.apply(NULL, &s);
	const struct lt_thread *t = s.threads;
	cr_assert_str_eq(t[0].futex.lock_kind, "Stdlib Mutex");
	cr_assert_str_eq(t[0].acquire, "Mutex.lock");
	cr_assert_str_eq(t[0].futex.lock_state,
			 "Mutex.lock on a Stdlib Mutex (a pthread mutex); its pthread mutex: locked, owner 12");
	cr_assert_str_eq(t[1].futex.lock_kind, "Stdlib Mutex", "4.x's entry point");
	cr_assert_str_eq(t[2].futex.lock_kind, "Domain.join");
	cr_assert_null(t[2].acquire, "a join acquires nothing");
	cr_assert_str_eq(t[3].futex.lock_kind, "Stdlib Condition");
	cr_assert_str_eq(t[4].futex.lock_kind, "Thread.join");
	cr_assert_str_eq(t[5].futex.lock_kind, "pthread mutex", "no OCaml entry point: left alone");
	cr_assert_str_eq(t[5].futex.lock_state, "locked, owner 10");
	for (size_t i = 0; i < s.n_threads; i++)
		lt_thread_clear(&s.threads[i]);
	free(s.threads);
}

/* ---- joins: Thread.join's termination event, Domain.join's term_sync ---- */

#define J_HEAP 0x60000 /* descriptors, custom blocks, events, ml_values */
#define STACK_C 0x7ffe0000ull

/* The block header of WOSIZE words with TAG, before the block at V. */
static void j_block(struct fakeproc *f, uint64_t v, uint64_t wosize, unsigned tag)
{
	fp_put64(f, v - 8, (wosize << 10) | tag);
}

/* A custom block at V whose data (after its ops pointer) is P. */
static void j_custom(struct fakeproc *f, uint64_t v, uint64_t p)
{
	j_block(f, v, 2, 255);
	fp_put64(f, v, 0x1234000); /* ops */
	fp_put64(f, v + 8, p);
}

/* Thread TID asleep in a futex wait on UADDR, its stack FUNCS (innermost
 * first), its stack pointer SP. */
static void j_sleeps(struct fakeproc *f, pid_t tid, uint64_t uaddr, uint64_t sp, const char *const *funcs)
{
	struct lt_thread *t = &f->threads[tid - FP_FIRST_TID];
	t->wait = LT_WAIT_FUTEX;
	t->futex.is_wait = true;
	t->futex.uaddr = uaddr;
	t->sc.state = LT_SC_IN_SYSCALL;
	t->sc.sp = sp;
	size_t n = 0;
	while (funcs[n])
		n++;
	t->frames = calloc(n, sizeof(*t->frames));
	t->n_frames = n;
	for (size_t i = 0; i < n; i++)
		t->frames[i].func = strdup(funcs[i]);
}

static void j_done(struct fakeproc *f, struct found *x)
{
	for (size_t i = 0; i < f->snap.n_threads; i++)
		lt_thread_clear(&f->threads[i]);
	done(f, x);
}

/* OCaml 5.2, three threads: 100 and 101 in domain 0 (its ring: TH0, TH1),
 * each with its stack; 102's stack too; a heap. */
static void j_ml52(struct fakeproc *f)
{
	ml5_layout("5.2.0");
	fp_init(f, 3);
	ml_version(f, "5.2.0");
	fp_sym(f, "caml_thread_initialize", 0x1000, 64);
	fp_region(f, ML5_TABLE, (uint64_t)L.table_size);
	fp_sym(f, "thread_table", ML5_TABLE, (uint64_t)L.table_size);
	ml5_entry(f, ML5_TABLE, ML5_TH0, 0, 0);
	fp_region(f, ML5_TH0, 0x200);
	ml5_thread(f, ML5_TH0, 0, STACK_A + 0xe000);
	ml5_thread(f, ML5_TH1, 0, STACK_B + 0xe000);
	fp_put64(f, ML5_TH0 + 8, ML5_TH1); /* next */
	fp_put64(f, ML5_TH1 + 8, ML5_TH0);
	fp_stack(f, STACK_A, STACK_A + 0x10000, 100);
	fp_stack(f, STACK_B, STACK_B + 0x10000, 101);
	fp_stack(f, STACK_C, STACK_C + 0x10000, 102);
	fp_region(f, J_HEAP, 0x1000);
}

static const char *const j_tjoin[] = { "__futex_abstimed_wait_common", "pthread_cond_wait@@GLIBC_2.3.2",
				       "caml_thread_join", "caml_c_call", "camlMain.entry", NULL };
static const char *const j_djoin[] = { "__futex_abstimed_wait_common", "pthread_cond_wait@@GLIBC_2.3.2",
				       "caml_ml_condition_wait", "caml_c_call", "camlStdlib.Domain.loop_512",
				       "camlStdlib.Mutex.protect_301", "camlStdlib.Domain.join_600", NULL };
static const char *const j_domain[] = { "__GI___lll_lock_wait", "caml_ml_mutex_lock", "caml_c_call",
					"camlMain.fun_829", "caml_start_program", "caml_callback_exn",
					"domain_thread_func", "start_thread", NULL };

/* Thread descriptors {ident, start_closure, terminated} of Thread 0 (TH0)
 * and Thread 1 (TH1); Thread 1's termination event at EV, its status. */
#define J_EV (J_HEAP + 0x400)
static void j_threads(struct fakeproc *f, uint32_t status)
{
	uint64_t d0 = J_HEAP + 0x10, d1 = J_HEAP + 0x40;
	j_block(f, d0, 3, 0);
	fp_put64(f, d0, 1); /* Val_int(0) */
	fp_put64(f, d0 + 16, J_HEAP + 0x100);
	j_custom(f, J_HEAP + 0x100, J_HEAP + 0x300);
	j_block(f, d1, 3, 0);
	fp_put64(f, d1, 3); /* Val_int(1) */
	fp_put64(f, d1 + 16, J_HEAP + 0x140);
	j_custom(f, J_HEAP + 0x140, J_EV);
	fp_put32(f, J_EV + 40, status);
	fp_put64(f, ML5_TH0, d0);
	fp_put64(f, ML5_TH1, d1);
}

/* Thread 100 joins Thread 1, whose caml_thread_struct's c_stack is in
 * thread 101's stack: a lock on the event's condition variable, held by
 * 101, whose exit alone ends the wait. */
Test(lock_ocaml_fixture, ocaml52_thread_join_held_by_the_joined_thread)
{
	struct fakeproc f;
	struct found x;
	j_ml52(&f);
	j_threads(&f, 0);
	/* trunk's bool status: the bytes after it are padding, left as
	 * malloc gave them */
	fp_at(&f, J_EV + 41, 3)[1] = 0xa5;
	j_sleeps(&f, 100, J_EV + 48 + 40, STACK_A + 0xd000, j_tjoin);
	run_model(&f, &x);
	cr_assert_eq(x.n, 2, "the domain's runtime lock and the join");
	const struct lt_rtlock *l = &x.v[1];
	cr_assert_str_eq(l->kind, LT_KIND_OCAML_THREAD_JOIN);
	cr_assert_str_eq(l->name, "Thread 1");
	cr_assert_str_eq(l->wait_call, "Thread.join");
	cr_assert_eq(l->base, J_EV + 48);
	cr_assert_eq(l->size, 48);
	cr_assert_eq(l->held, 1);
	cr_assert_eq(l->holder, 101, "%s", l->holder_how);
	how_has(l, "is in the stack of thread 101: only its exit triggers the event");
	const struct lt_done_kind *dk = lt_done_kind_of(l->kind);
	cr_assert(dk && dk->exit && !dk->inferred && !dk->els);
	j_done(&f, &x);
}

/* A triggered event (the thread has ended; the joiner is about to wake),
 * no sleeper on it, or a thread whose stack is not known: no join lock. */
Test(lock_ocaml_fixture, ocaml52_thread_join_not_claimed_without_evidence)
{
	for (int c = 0; c < 3; c++) {
		struct fakeproc f;
		struct found x;
		j_ml52(&f);
		j_threads(&f, c == 0 ? 1 : 0);
		j_sleeps(&f, 100, c == 1 ? J_EV + 48 + 48 : J_EV + 48 + 40, STACK_A + 0xd000, j_tjoin);
		if (c == 2)
			fp_put64(&f, ML5_TH1 + (uint64_t)L.th_c_stack, 0x12340000);
		run_model(&f, &x);
		cr_assert_eq(x.n, 1, "case %d: only the runtime lock", c);
		j_done(&f, &x);
	}
}

/* A ring the target wrote need not close (TH1's next is itself): the walk
 * ends, and the join is made once. */
Test(lock_ocaml_fixture, ocaml52_thread_join_ring_that_does_not_close)
{
	struct fakeproc f;
	struct found x;
	j_ml52(&f);
	j_threads(&f, 0);
	fp_put64(&f, ML5_TH1 + 8, ML5_TH1);
	j_sleeps(&f, 100, J_EV + 48 + 40, STACK_A + 0xd000, j_tjoin);
	run_model(&f, &x);
	cr_assert_eq(x.n, 2, "the domain's runtime lock and one join");
	cr_assert_eq(x.v[1].holder, 101);
	j_done(&f, &x);
}

/* Domain.join: thread 100 sleeps on term_sync.cond; thread 102 runs the
 * domain (domain_thread_func) and keeps its ml_values {Val_unit, term_sync}
 * on its stack. */
#define J_COND (J_HEAP + 0x800)
#define J_MV (J_HEAP + 0x600)
#define J_TS (J_HEAP + 0x700)
static void j_domain_join(struct fakeproc *f, uint64_t state)
{
	j_ml52(f);
	j_threads(f, 0);
	fp_put64(f, J_MV, 1);
	fp_put64(f, J_MV + 8, J_TS);
	j_block(f, J_TS, 3, 0);
	fp_put64(f, J_TS, state);
	fp_put64(f, J_TS + 8, J_HEAP + 0x740); /* mut */
	fp_put64(f, J_TS + 16, J_HEAP + 0x780);
	j_custom(f, J_HEAP + 0x780, J_COND);
	j_sleeps(f, 100, J_COND + 40, STACK_A + 0xd000, j_djoin);
	fp_region(f, STACK_C + 0xf000, 0x1000);
	fp_put64(f, STACK_C + 0xf000, 0x55550000123ull); /* a return address */
	fp_put64(f, STACK_C + 0xf128, J_MV);
	j_sleeps(f, 102, 0x7777000, STACK_C + 0xf000, j_domain);
}

Test(lock_ocaml_fixture, ocaml52_domain_join_held_by_the_domains_thread)
{
	struct fakeproc f;
	struct found x;
	j_domain_join(&f, 1 /* Running */);
	run_model(&f, &x);
	cr_assert_eq(x.n, 2, "the domain's runtime lock and the join");
	const struct lt_rtlock *l = &x.v[1];
	cr_assert_str_eq(l->kind, LT_KIND_OCAML_DOMAIN_JOIN);
	cr_assert_str_eq(l->wait_call, "Domain.join");
	cr_assert_eq(l->base, J_COND);
	cr_assert_eq(l->size, 48);
	cr_assert_eq(l->holder, 102, "%s", l->holder_how);
	char name[64];
	snprintf(name, sizeof(name), "a domain (its term_sync at 0x%llx)", (unsigned long long)J_TS);
	cr_assert_str_eq(l->name, name);
	char want[160];
	snprintf(want, sizeof(want), "ml_values 0x%llx thread 102 keeps on its stack (at 0x%llx, under "
		 "domain_thread_func)", (unsigned long long)J_MV, (unsigned long long)(STACK_C + 0xf128));
	how_has(l, want);
	j_done(&f, &x);
}

/* A domain whose term_sync says Finished (the joiner is about to wake),
 * or a second thread of the domain's kind holding the same pointer (a stale
 * copy in one of them): no holder named. */
Test(lock_ocaml_fixture, ocaml52_domain_join_not_named_without_evidence)
{
	struct fakeproc f;
	struct found x;
	j_domain_join(&f, J_HEAP + 0x900 /* Finished res: a block */);
	run_model(&f, &x);
	cr_assert_eq(x.n, 1, "a finished domain: only the runtime lock");
	j_done(&f, &x);

	j_domain_join(&f, 1);
	fp_region(&f, STACK_B + 0xf000, 0x1000);
	fp_put64(&f, STACK_B + 0xf010, J_MV);
	j_sleeps(&f, 101, 0x7777100, STACK_B + 0xf000, j_domain);
	run_model(&f, &x);
	cr_assert_eq(x.n, 2);
	const struct lt_rtlock *l = &x.v[1];
	cr_assert_str_eq(l->kind, LT_KIND_OCAML_DOMAIN_JOIN);
	cr_assert_eq(l->holder, 0, "%s", l->holder_how);
	cr_assert_eq(l->held, -1);
	how_has(l, "which thread runs the domain is not known");
	j_done(&f, &x);
}

/* A domain's thread that spawned the joined domain may keep a stale copy
 * of its ml_values beside its own: the thread whose stack holds the joined
 * domain's alone is its holder; with only the stale copy seen, none. */
Test(lock_ocaml_fixture, ocaml52_domain_join_stale_copy_beside_its_own)
{
	for (int c = 0; c < 2; c++) {
		struct fakeproc f;
		struct found x;
		j_domain_join(&f, 1);
		/* thread 101: a domain's thread with its own ml_values (J_MV2,
		 * whose term_sync's cond nobody sleeps on) and a stale J_MV */
		uint64_t mv2 = J_HEAP + 0xa00, ts2 = J_HEAP + 0xa40;
		fp_put64(&f, mv2, 1);
		fp_put64(&f, mv2 + 8, ts2);
		j_block(&f, ts2, 3, 0);
		fp_put64(&f, ts2, 1);
		fp_put64(&f, ts2 + 16, J_HEAP + 0xa80);
		j_custom(&f, J_HEAP + 0xa80, J_HEAP + 0xb00);
		fp_region(&f, STACK_B + 0xf000, 0x1000);
		fp_put64(&f, STACK_B + 0xf010, J_MV);
		fp_put64(&f, STACK_B + 0xf088, mv2);
		j_sleeps(&f, 101, 0x7777100, STACK_B + 0xf000, j_domain);
		if (c == 1) { /* thread 102's stack not unwound to domain_thread_func */
			free(f.threads[2].frames[6].func);
			f.threads[2].frames[6].func = strdup("??");
		}
		run_model(&f, &x);
		cr_assert_eq(x.n, 2);
		const struct lt_rtlock *l = &x.v[1];
		cr_assert_str_eq(l->kind, LT_KIND_OCAML_DOMAIN_JOIN);
		if (c == 0) {
			cr_assert_eq(l->holder, 102, "%s", l->holder_how);
			how_has(l, "another thread's stack holds a stale copy");
		} else {
			cr_assert_eq(l->holder, 0, "%s", l->holder_how);
			cr_assert_eq(l->held, -1);
			how_has(l, "each beside another domain's");
		}
		j_done(&f, &x);
	}
}

/* OCaml 4.13: the ring from curr_thread; a thread named by its
 * top_of_stack. */
Test(lock_ocaml_fixture, ocaml413_thread_join_held_by_the_joined_thread)
{
	struct fakeproc f;
	struct found x;
	ml413(&f, 0, 0, STACK_A, STACK_A);
	f.snap.threads = f.threads;
	f.snap.n_threads = 2;
	f.threads[0].tid = 100;
	f.threads[1].tid = 101;
	fp_region(&f, J_HEAP, 0x1000);
	uint64_t th1 = J_HEAP + 0x900, d1 = J_HEAP + 0x40;
	fp_put64(&f, ML4_THREAD, J_HEAP + 0x10); /* descr of the running thread */
	fp_put64(&f, ML4_THREAD + 8, th1);
	fp_put64(&f, th1, d1);
	fp_put64(&f, th1 + 8, ML4_THREAD);
	fp_put64(&f, th1 + 24, STACK_B + 0xff00); /* top_of_stack */
	j_block(&f, J_HEAP + 0x10, 3, 0);
	fp_put64(&f, J_HEAP + 0x10 + 16, 0); /* no event: skipped */
	j_block(&f, d1, 3, 0);
	fp_put64(&f, d1, 5); /* Thread 2 */
	fp_put64(&f, d1 + 16, J_HEAP + 0x140);
	j_custom(&f, J_HEAP + 0x140, J_EV);
	j_sleeps(&f, 100, J_EV + 48 + 44, STACK_A + 0xd000, j_tjoin);
	run_model(&f, &x);
	cr_assert_eq(x.n, 2, "caml_master_lock and the join");
	const struct lt_rtlock *l = &x.v[1];
	cr_assert_str_eq(l->model, "ocaml4");
	cr_assert_str_eq(l->kind, LT_KIND_OCAML_THREAD_JOIN);
	cr_assert_str_eq(l->name, "Thread 2");
	cr_assert_eq(l->holder, 101, "%s", l->holder_how);
	how_has(l, "top_of_stack");
	j_done(&f, &x);
}
