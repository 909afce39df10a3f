/* Facts generated at build time from the runtimes' own headers
 * (tests/gen/, Makefile "generated layouts"): what the models' tables
 * are compared with.  Each row names the headers it was taken from. */
#ifndef LT_GEN_LAYOUTS_H
#define LT_GEN_LAYOUTS_H

#include <stddef.h>

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

/* Where the header directories were looked for (the skip messages). */
#define GEN_CPY_WHERE "/usr/include/python3.N (Debian's libpython3.N-dev) or $PYENV_ROOT/versions/3.N.*/include"

#endif
