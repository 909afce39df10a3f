/* The CPython models' layout tables against the facts of CPython's own
 * headers: build/gen/cpython_layouts.h, generated at build time by
 * tests/gen/cpython_layout.c (offsetof/sizeof with Py_BUILD_CORE) from
 * each include directory on the machine (Debian's libpython3.11-dev, the
 * pyenv builds).  A wrong offset in src/snapshot/runtimes/rt_cpython_layout.c
 * or lock_cpython.c fails here; a version whose headers are absent skips,
 * saying which headers were looked for.
 *
 * rt_cpython's table is read through pyl_for() (3.13: with the process's
 * _Py_DebugOffsets holding the headers' own offsets, so the unpublished
 * fields come from the table and must agree too).  lock_cpython's table is
 * static: it is checked by running the model on a memory image laid out
 * with the generated offsets (tests/unit/test_lock_cpython.c,
 * lock_cpython_fixture). */
#include <criterion/criterion.h>
#include <stdio.h>
#include <string.h>

#include "rt_cpython_int.h"
#include "gen_layouts.h"

/* A model field MODEL against the headers' GEN: equal, or, where the
 * version lacks the field (-1), 0 (the model's "does not exist"). */
#define SAME(g, l, f) \
	cr_expect_eq((long)(l)->f, (g)->f < 0 ? 0 : (g)->f, "%s (%s): " #f ": model 0x%lx, headers 0x%lx", \
		     (g)->version, (g)->incdir, (long)(l)->f, (g)->f)

static void put64(struct lt_cpy_id *id, unsigned at, uint64_t v)
{
	memcpy(id->d + at, &v, 8);
}

/* 3.13's _Py_DebugOffsets as that version publishes them: the offsets of
 * its headers. */
static void debug_offsets(struct lt_cpy_id *id, const struct gen_cpy *g)
{
	memcpy(id->d, "xdebugpy", 8);
	put64(id, LT_DO_VERSION, 0x030D00F0);
	put64(id, LT_DO_RT_HEAD, g->rt_head);
	put64(id, LT_DO_IS_ID, g->is_id);
	put64(id, LT_DO_IS_NEXT, g->is_next);
	put64(id, LT_DO_IS_THREADS, g->is_threads);
	put64(id, LT_DO_IS_MODULES, g->is_modules);
	put64(id, LT_DO_TS_NEXT, g->ts_next);
	put64(id, LT_DO_TS_INTERP, g->ts_interp);
	put64(id, LT_DO_TS_FRAME, g->ts_frame);
	put64(id, LT_DO_TS_THREAD_ID, g->ts_pthread);
	put64(id, LT_DO_TS_NATIVE, g->ts_native);
	put64(id, LT_DO_IF_PREVIOUS, g->if_prev);
	put64(id, LT_DO_IF_EXECUTABLE, g->if_code);
	put64(id, LT_DO_IF_INSTR, g->if_instr);
	put64(id, LT_DO_IF_LOCALSPLUS, g->if_locals);
	put64(id, LT_DO_IF_OWNER, g->if_owner);
	put64(id, LT_DO_CO_FILENAME, g->co_filename);
	put64(id, LT_DO_CO_NAME, g->co_name);
	put64(id, LT_DO_CO_QUALNAME, g->co_qualname);
	put64(id, LT_DO_CO_LINETABLE, g->co_linetable);
	put64(id, LT_DO_CO_FIRSTLINENO, g->co_firstlineno);
	put64(id, LT_DO_CO_LOCALSPLUSNAMES, g->co_names);
	put64(id, LT_DO_CO_CODE, g->co_code);
	put64(id, LT_DO_STR_ASCII_SIZE, g->str_ascii);
	/* object headers: the same in every version (PyObject, PyVarObject) */
	put64(id, LT_DO_OB_TYPE, 8);
	put64(id, LT_DO_TP_NAME, 0x18);
	put64(id, LT_DO_STR_STATE, 0x20);
	put64(id, LT_DO_STR_LENGTH, 0x10);
	put64(id, LT_DO_BYTES_SVAL, 0x20);
	put64(id, LT_DO_TUPLE_ITEM, 0x18);
	put64(id, LT_DO_DICT_KEYS, 0x20);
	put64(id, LT_DO_DICT_VALUES, 0x28);
	put64(id, LT_DO_LONG_TAG, 0x10);
	put64(id, LT_DO_LONG_DIGIT, 0x18);
}

static void rt_table_is_the_headers(int minor)
{
	size_t i = 0, rows = 0;
	for (const struct gen_cpy *g; (g = gen_cpy_next(minor, &i)); rows++) {
		struct lt_cpy_id id = { .minor = (unsigned)minor };
		snprintf(id.version, sizeof(id.version), "CPython %s", g->version);
		if (minor == 13) {
			id.have_do = true;
			debug_offsets(&id, g);
		}
		struct pyl buf;
		bool dicts_ok = false;
		struct lt_strlist notes = { 0 };
		const struct pyl *l = pyl_for(&id, &buf, &dicts_ok, &notes);
		cr_assert_not_null(l, "%s: no layout: %s", g->version, notes.n ? notes.v[0] : "-");
		cr_expect(dicts_ok, "%s: the table's unpublished offsets were not trusted: %s", g->version,
			  notes.n ? notes.v[0] : "-");
		lt_strlist_free(&notes);
		fprintf(stderr, "cpython_layout: %s: rt_cpython table checked against %s\n", g->version,
			g->incdir);
		SAME(g, l, rt_head); SAME(g, l, is_next); SAME(g, l, is_threads); SAME(g, l, is_modules);
		SAME(g, l, ts_next); SAME(g, l, ts_frame); SAME(g, l, ts_pthread); SAME(g, l, ts_native);
		/* cf_frame: -1 in both where the thread state points at the frame */
		cr_expect_eq((long)l->cf_frame, g->cf_frame, "%s: cf_frame: model %d, headers %ld",
			     g->version, l->cf_frame, g->cf_frame);
		cr_expect_eq(l->frames, minor <= 10 ? PYL_FRAME_OBJECT : PYL_INTERP_FRAME);
		SAME(g, l, f_back); SAME(g, l, f_code); SAME(g, l, f_trace); SAME(g, l, f_lasti);
		SAME(g, l, f_lineno); SAME(g, l, f_locals);
		SAME(g, l, if_prev); SAME(g, l, if_code); SAME(g, l, if_instr); SAME(g, l, if_locals);
		SAME(g, l, if_owner); SAME(g, l, if_entry);
		SAME(g, l, co_filename); SAME(g, l, co_name); SAME(g, l, co_qualname);
		SAME(g, l, co_firstlineno); SAME(g, l, co_linetable); SAME(g, l, co_names);
		SAME(g, l, co_stacksize); SAME(g, l, co_code); SAME(g, l, co_firsttraceable);
		SAME(g, l, str_ascii); SAME(g, l, str_compact); SAME(g, l, ht_cached_keys);
		SAME(g, l, dv_values);
	}
	if (!rows)
		cr_skip_test("no CPython 3.%d headers here (" GEN_CPY_WHERE "): its table is not checked",
			     minor);
}

#define VERSION(minor) \
	Test(cpython_layout, rt_table_is_the_headers_3_##minor) { rt_table_is_the_headers(minor); }
VERSION(8) VERSION(9) VERSION(10) VERSION(11) VERSION(12) VERSION(13)
