/* Facts generated at build time from the runtimes' own headers
 * (tests/gen/, Makefile "generated layouts"): what the models' tables
 * are compared with.  Each row names the headers it was taken from. */
#ifndef LT_GEN_LAYOUTS_H
#define LT_GEN_LAYOUTS_H

#include <stddef.h>
#include <string.h>

/* One CPython include directory: offsetof()/sizeof() of the fields the
 * models read (tests/gen/cpython_layout.c); -1 where the field does not
 * exist in that version. */
struct gen_cpy {
	int minor;
	const char *version, *incdir;
	long rt_gil, rt_head, rt_main, is_next, is_id, is_gil, is_modules, is_threads;
	long ts_next, ts_interp, ts_pthread, ts_native, ts_frame, cf_frame;
	long f_back, f_code, f_trace, f_lasti, f_lineno, f_locals;
	long if_prev, if_code, if_instr, if_locals, if_owner, if_entry;
	long co_filename, co_name, co_firstlineno, co_stacksize, co_qualname, co_linetable, co_names,
	     co_code, co_firsttraceable;
	long str_ascii, str_compact, ht_cached_keys, dv_values;
	long gil_interval, gil_holder, gil_locked, gil_switches, gil_cond, gil_mutex, gil_size;
};

static const struct gen_cpy gen_cpy_rows[] = {
#include "gen/cpython_layouts.h"
	{ .minor = -1 }
};

/* The rows of CPython 3.MINOR, from *I on; NULL when no more (the
 * machine has no headers of that version). */
static inline const struct gen_cpy *gen_cpy_next(int minor, size_t *i)
{
	for (; gen_cpy_rows[*i].minor >= 0; (*i)++)
		if (gen_cpy_rows[*i].minor == minor)
			return &gen_cpy_rows[(*i)++];
	return NULL;
}

/* The installed glibc's headers: rwlock and condition variable fields
 * (tests/gen/glibc_layout.c); cond_g_refs -1 in the 2.41 layout. */
struct gen_glibc {
	const char *version;
	long rw_readers, rw_wrphase_futex, rw_writers_futex, rw_cur_writer;
	long cond_wseq, cond_g1_start, cond_g_refs, cond_g_size, cond_g1_orig_size, cond_wrefs,
	     cond_g_signals, cond_size;
};

static const struct gen_glibc gen_glibc_rows[] = {
#include "gen/glibc_layouts.h"
};
#define gen_glibc_row (gen_glibc_rows[0])

/* The installed OCaml 4 (4.10+) runtime's headers: where Caml_state keeps
 * the running thread's stack pointers (tests/gen/ocaml4_layout.c). */
struct gen_ml4 {
	const char *version, *incdir;
	long top_of_stack, bottom_of_stack;
};

static const struct gen_ml4 gen_ml4_rows[] = {
#include "gen/ocaml4_layouts.h"
	{ .version = NULL }
};

/* One OCaml 5 program built by a real OCaml 5 compiler: the systhreads
 * layout from the DWARF of its runtime (tests/gen/ocaml5_layout.sh). */
struct gen_ml5 {
	const char *version, *binary;
	long table_size;       /* sizeof(thread_table): the array, or a pointer */
	long stride;           /* sizeof(struct caml_thread_table)               */
	long lock_off, lock_size;          /* its thread_lock (st_masterlock)    */
	long init, init_size, busy, busy_size, waiters; /* in st_masterlock      */
	long th_domain, th_c_stack;        /* in struct caml_thread_struct       */
};

static const struct gen_ml5 gen_ml5_rows[] = {
#include "gen/ocaml5_layouts.h"
	{ .version = NULL }
};

/* The row of OCaml VERSION ("5.2.0"), NULL when that compiler was not
 * here to build its program. */
static inline const struct gen_ml5 *gen_ml5_row(const char *version)
{
	for (size_t i = 0; gen_ml5_rows[i].version; i++)
		if (!strcmp(gen_ml5_rows[i].version, version))
			return &gen_ml5_rows[i];
	return NULL;
}

/* Where the header directories were looked for (the skip messages). */
#define GEN_CPY_WHERE "/usr/include/python3.N (Debian's libpython3.N-dev) or $PYENV_ROOT/versions/3.N.*/include"

#endif
