/* CPython thread model: the structure layouts per minor version
 * (rt_cpython_int.h).
 *
 * Facts taken with offsetof() on each version's headers (Py_BUILD_CORE,
 * Include/internal) of the builds installed here: pyenv 3.8.18, 3.9.18,
 * 3.10.13, 3.11.7, 3.12.1, 3.13.0, and Debian's 3.11.2
 * (/usr/include/python3.11: identical to 3.11.7).  Two layouts are not in
 * any installed header and were read from live objects: the dict keys
 * object of 3.8-3.10 (dk_size at 8, dk_nentries at 0x20, dk_indices at
 * 0x28) and a module's md_dict (0x10) before 3.10.  x86-64, default
 * (GIL, non-debug) builds only.
 *
 * 3.13 publishes most of these in _Py_DebugOffsets; those values are used,
 * and the rest (dict internals, _co_firsttraceable, tp_basicsize, ...) come
 * from the 3.13 row only when every published value agrees with it: a build
 * whose published offsets differ has other unpublished ones too. */
#include <string.h>

#include "rt_cpython_int.h"
#include "snapshot_int.h"

#define OLD_FRAMES .frames = PYL_FRAME_OBJECT, .if_entry = 0
#define STR_311 .str_ascii = 0x30, .str_compact = 0x48
#define STR_312 .str_ascii = 0x28, .str_compact = 0x38

static const struct pyl table[] = {
	{ .minor = 8, .rt_head = 0x20, .is_next = 0x0, .is_threads = 0x8, .is_modules = 0x38,
	  .ts_next = 0x8, .ts_frame = 0x18, .ts_pthread = 0xb0, .cf_frame = -1, OLD_FRAMES,
	  .f_back = 0x18, .f_code = 0x20, .f_trace = 0x50, .f_lasti = 0x68, .f_lineno = 0x6c,
	  .f_locals = 0x168, .lines = PYL_LNOTAB, .co_filename = 0x68, .co_name = 0x70,
	  .co_firstlineno = 0x28, .co_linetable = 0x78, .co_names = 0x48, .co_stacksize = 0x20,
	  STR_311, .dict = PYL_DICT_38, .ht_cached_keys = 0x368, .inst = PYL_INST_DICTOFFSET },
	{ .minor = 9, .rt_head = 0x20, .is_next = 0x0, .is_threads = 0x8, .is_modules = 0x358,
	  .ts_next = 0x8, .ts_frame = 0x18, .ts_pthread = 0xb0, .cf_frame = -1, OLD_FRAMES,
	  .f_back = 0x18, .f_code = 0x20, .f_trace = 0x50, .f_lasti = 0x68, .f_lineno = 0x6c,
	  .f_locals = 0x168, .lines = PYL_LNOTAB, .co_filename = 0x68, .co_name = 0x70,
	  .co_firstlineno = 0x28, .co_linetable = 0x78, .co_names = 0x48, .co_stacksize = 0x20,
	  STR_311, .dict = PYL_DICT_38, .ht_cached_keys = 0x360, .inst = PYL_INST_DICTOFFSET },
	{ .minor = 10, .rt_head = 0x20, .is_next = 0x0, .is_threads = 0x8, .is_modules = 0x358,
	  .ts_next = 0x8, .ts_frame = 0x18, .ts_pthread = 0xb0, .cf_frame = -1, OLD_FRAMES,
	  .f_back = 0x18, .f_code = 0x20, .f_trace = 0x48, .f_lasti = 0x60, .f_lineno = 0x64,
	  .f_locals = 0x160, .lines = PYL_LINES_310, .co_filename = 0x68, .co_name = 0x70,
	  .co_firstlineno = 0x28, .co_linetable = 0x78, .co_names = 0x48, .co_stacksize = 0x20,
	  STR_311, .dict = PYL_DICT_38, .ht_cached_keys = 0x368, .inst = PYL_INST_DICTOFFSET },
	{ .minor = 11, .rt_head = 0x28, .is_next = 0x0, .is_threads = 0x10, .is_modules = 0x378,
	  .ts_next = 0x8, .ts_frame = 0x38, .ts_pthread = 0x98, .ts_native = 0xa0, .cf_frame = 0x8,
	  .frames = PYL_INTERP_FRAME, .if_prev = 0x30, .if_code = 0x20, .if_instr = 0x38,
	  .if_locals = 0x48, .if_owner = 0x45, .if_entry = 0x44, .lines = PYL_LINES_311,
	  .co_filename = 0x70, .co_name = 0x78, .co_qualname = 0x80, .co_firstlineno = 0x48,
	  .co_linetable = 0x88, .co_names = 0x60, .co_stacksize = 0x44, .co_code = 0xb8,
	  .co_firsttraceable = 0xa8, STR_311, .dict = PYL_DICT_311, .dv_values = 0,
	  .ht_cached_keys = 0x368, .inst = PYL_INST_311 },
	{ .minor = 12, .rt_head = 0x28, .is_next = 0x0, .is_threads = 0x48, .is_modules = 0x3b0,
	  .ts_next = 0x8, .ts_frame = 0x38, .ts_pthread = 0x88, .ts_native = 0x90, .cf_frame = 0x0,
	  .frames = PYL_INTERP_FRAME, .if_prev = 0x8, .if_code = 0x0, .if_instr = 0x38,
	  .if_locals = 0x48, .if_owner = 0x46, .lines = PYL_LINES_311, .co_filename = 0x70,
	  .co_name = 0x78, .co_qualname = 0x80, .co_firstlineno = 0x44, .co_linetable = 0x88,
	  .co_names = 0x60, .co_stacksize = 0x40, .co_code = 0xc0, .co_firsttraceable = 0xb0,
	  STR_312, .long_tag = true, .dict = PYL_DICT_311, .dv_values = 0, .ht_cached_keys = 0x370,
	  .inst = PYL_INST_312 },
	{ .minor = 13, .rt_head = 0x278, .is_next = 0x1c60, .is_threads = 0x1cb0,
	  .is_modules = 0x1de8, .ts_next = 0x8, .ts_frame = 0x48, .ts_pthread = 0x98,
	  .ts_native = 0xa0, .cf_frame = -1, .frames = PYL_INTERP_FRAME, .if_prev = 0x8,
	  .if_code = 0x0, .if_instr = 0x38, .if_locals = 0x48, .if_owner = 0x46,
	  .lines = PYL_LINES_311, .co_filename = 0x70, .co_name = 0x78, .co_qualname = 0x80,
	  .co_firstlineno = 0x44, .co_linetable = 0x88, .co_names = 0x60, .co_stacksize = 0x40,
	  .co_code = 0xc8, .co_firsttraceable = 0xb8, STR_312, .long_tag = true,
	  .dict = PYL_DICT_311, .dv_values = 8, .ht_cached_keys = 0x370, .inst = PYL_INST_313 },
};

/* A published offset and the table field it must match. */
struct pub {
	unsigned at;       /* position in _Py_DebugOffsets */
	size_t field;      /* offsetof(struct pyl, ...)     */
};

#define PUB(a, f) { a, offsetof(struct pyl, f) }
static const struct pub published[] = {
	PUB(LT_DO_RT_HEAD, rt_head), PUB(LT_DO_IS_NEXT, is_next),
	PUB(LT_DO_IS_THREADS, is_threads), PUB(LT_DO_IS_MODULES, is_modules),
	PUB(LT_DO_TS_NEXT, ts_next), PUB(LT_DO_TS_FRAME, ts_frame),
	PUB(LT_DO_TS_THREAD_ID, ts_pthread), PUB(LT_DO_TS_NATIVE, ts_native),
	PUB(LT_DO_IF_PREVIOUS, if_prev), PUB(LT_DO_IF_EXECUTABLE, if_code),
	PUB(LT_DO_IF_INSTR, if_instr), PUB(LT_DO_IF_LOCALSPLUS, if_locals),
	PUB(LT_DO_IF_OWNER, if_owner), PUB(LT_DO_CO_FILENAME, co_filename),
	PUB(LT_DO_CO_NAME, co_name), PUB(LT_DO_CO_QUALNAME, co_qualname),
	PUB(LT_DO_CO_LINETABLE, co_linetable), PUB(LT_DO_CO_FIRSTLINENO, co_firstlineno),
	PUB(LT_DO_CO_LOCALSPLUSNAMES, co_names), PUB(LT_DO_CO_CODE, co_code),
	PUB(LT_DO_STR_ASCII_SIZE, str_ascii),
};

static uint32_t *field(struct pyl *l, size_t off)
{
	return (uint32_t *)((char *)l + off);
}

/* Takes the published offsets; false when one is implausible.  *SAME:
 * every one equals the table's. */
static bool from_debug_offsets(const struct lt_cpy_id *id, struct pyl *l, bool *same)
{
	*same = true;
	for (size_t i = 0; i < sizeof(published) / sizeof(published[0]); i++) {
		uint64_t v = lt_cpy_do(id, published[i].at);
		if (v >= 0x100000)
			return false;
		uint32_t *f = field(l, published[i].field);
		*same &= *f == (uint32_t)v;
		*f = (uint32_t)v;
	}
	/* the frame is read in one piece of if_locals <= 0x100 bytes */
	if (l->if_locals > 0x100 || l->if_prev + 8 > l->if_locals || l->if_code + 8 > l->if_locals ||
	    l->if_instr + 8 > l->if_locals || l->if_owner >= l->if_locals)
		return false;
	/* the object header fields every version shares must be the usual ones */
	return lt_cpy_do(id, LT_DO_OB_TYPE) == 8 && lt_cpy_do(id, LT_DO_TP_NAME) == 0x18 &&
	       lt_cpy_do(id, LT_DO_STR_STATE) == 0x20 && lt_cpy_do(id, LT_DO_STR_LENGTH) == 0x10 &&
	       lt_cpy_do(id, LT_DO_BYTES_SVAL) == 0x20 && lt_cpy_do(id, LT_DO_TUPLE_ITEM) == 0x18 &&
	       lt_cpy_do(id, LT_DO_DICT_KEYS) == 0x20 && lt_cpy_do(id, LT_DO_DICT_VALUES) == 0x28 &&
	       lt_cpy_do(id, LT_DO_LONG_TAG) == 0x10 && lt_cpy_do(id, LT_DO_LONG_DIGIT) == 0x18;
}

const struct pyl *pyl_for(const struct lt_cpy_id *id, struct pyl *buf, bool *dicts_ok,
			  struct lt_strlist *notes)
{
	const struct pyl *t = NULL;
	for (size_t i = 0; i < sizeof(table) / sizeof(table[0]); i++)
		if (table[i].minor == id->minor)
			t = &table[i];
	*dicts_ok = true;
	if (!t || (id->minor == 13 && !id->have_do)) {
		/* 3.13 without its debug offsets would be a patched build */
		lt_strlist_add(notes, "%s: layout of this version is not known: Python stacks and "
			       "thread names not read", id->version);
		return NULL;
	}
	*buf = *t;
	if (!id->have_do)
		return buf;
	bool same;
	if (lt_cpy_do(id, LT_DO_FREE_THREADED) || !from_debug_offsets(id, buf, &same)) {
		lt_strlist_add(notes, "%s: %s: Python stacks and thread names not read", id->version,
			       lt_cpy_do(id, LT_DO_FREE_THREADED) ? "free-threaded build"
								   : "_Py_DebugOffsets implausible");
		return NULL;
	}
	if (!same) {
		/* the frames need only published offsets, except these */
		buf->co_firsttraceable = 0;
		buf->co_stacksize = 0;
		buf->str_compact = buf->str_ascii + 16;
		*dicts_ok = false;
		lt_strlist_add(notes, "%s: _Py_DebugOffsets differ from 3.13.0's: Python stacks read "
			       "with them, thread names (which need unpublished offsets) not read",
			       id->version);
	}
	return buf;
}
