/* Internal to the CPython thread model (rt_cpython*.c): the layout of one
 * minor version's structures, and a reader of Python objects in another
 * process's memory.  Non-static names have the pyl_/pyr_ prefix. */
#ifndef LOCKTRACE_RT_CPYTHON_INT_H
#define LOCKTRACE_RT_CPYTHON_INT_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "cpython_int.h"
#include "lockmodel.h"

enum pyl_frames { PYL_FRAME_OBJECT, PYL_INTERP_FRAME };  /* <= 3.10, 3.11+ */
enum pyl_lines { PYL_LNOTAB, PYL_LINES_310, PYL_LINES_311 };
enum pyl_dict { PYL_DICT_38, PYL_DICT_311 };              /* keys object   */
/* Where a class instance keeps its attributes. */
enum pyl_inst {
	PYL_INST_DICTOFFSET, /* tp_dictoffset                                */
	PYL_INST_311,        /* values at obj-32, dict at obj-24             */
	PYL_INST_312,        /* one word at obj-24: values+1 (odd) or dict   */
	PYL_INST_313,        /* values inline after the object, dict obj-24  */
};

/* Offsets of one minor version, x86-64, default build; 0 where a field
 * does not exist (then the feature that needs it is off). */
struct pyl {
	unsigned minor;
	/* runtime, interpreters, thread states */
	uint32_t rt_head, is_next, is_threads, is_modules;
	uint32_t ts_next, ts_frame, ts_pthread, ts_native;
	int32_t cf_frame;      /* _PyCFrame.current_frame; -1: ts_frame is it */
	/* frames */
	enum pyl_frames frames;
	uint32_t f_back, f_code, f_trace, f_lasti, f_lineno, f_locals;   /* <= 3.10 */
	uint32_t if_prev, if_code, if_instr, if_locals, if_owner, if_entry; /* 3.11+ */
	/* code objects */
	enum pyl_lines lines;
	uint32_t co_filename, co_name, co_qualname, co_firstlineno, co_linetable;
	uint32_t co_names;     /* co_varnames (<= 3.10), co_localsplusnames  */
	uint32_t co_stacksize, co_code, co_firsttraceable;
	/* objects */
	uint32_t str_ascii, str_compact; /* sizeof PyASCIIObject, PyCompactUnicodeObject */
	bool long_tag;         /* 3.12+: lv_tag instead of ob_size           */
	enum pyl_dict dict;
	uint32_t dv_values;    /* offsetof(PyDictValues, values)             */
	uint32_t ht_cached_keys;
	enum pyl_inst inst;
};

/* The layout for ID: the built-in table, with 3.13's _Py_DebugOffsets
 * where published.  NULL, with a note, when the version is not known or
 * the published offsets contradict the table on fields that are not
 * published (then nothing is read).  *DICTS_OK is false when only the
 * frame offsets could be trusted (thread names are then not read). */
const struct pyl *pyl_for(const struct lt_cpy_id *id, struct pyl *buf, bool *dicts_ok,
			  struct lt_strlist *notes);

/* A reader of one process's Python objects. */
struct pyr {
	const struct lt_lm_env *e;
	const struct pyl *l;
	/* type objects, 0 when the symbol is not found (then not checked) */
	uint64_t t_code, t_str, t_bytes, t_long, t_dict, t_tuple;
};
void pyr_init(struct pyr *r, const struct lt_lm_env *e, const struct pyl *l);

uint64_t pyr_type(const struct pyr *r, uint64_t obj);
/* The type's tp_name ("_thread.lock"); 0 or -1. */
int pyr_type_name(const struct pyr *r, uint64_t type, char *buf, size_t len);
/* A str as UTF-8, cut to LEN - 1 bytes; 0 or -1 (not a str, not compact,
 * unreadable). */
int pyr_str(const struct pyr *r, uint64_t obj, char *buf, size_t len);
/* A str equal to S (compared without reading more than needed). */
bool pyr_str_eq(const struct pyr *r, uint64_t obj, const char *s);
/* The bytes of a bytes object, malloc'd, at most MAX; 0 or -1. */
int pyr_bytes(const struct pyr *r, uint64_t obj, size_t max, uint8_t **out, size_t *n);
/* A non-negative int that fits in 64 bits; 0 or -1. */
int pyr_long(const struct pyr *r, uint64_t obj, uint64_t *v);
/* An int (non-negative, 64 bits) or a float, as a double; 0 or -1. */
int pyr_number(const struct pyr *r, uint64_t obj, double *v);
/* Item I of a tuple, and its size. */
int pyr_tuple_size(const struct pyr *r, uint64_t obj, size_t *n);
int pyr_tuple_item(const struct pyr *r, uint64_t obj, size_t i, uint64_t *item);

/* Calls FN for each (key, value) of a dict until it returns false.  0, or
 * -1 when the dict cannot be read. */
typedef bool (*pyr_each_fn)(void *arg, uint64_t key, uint64_t value);
int pyr_dict_each(const struct pyr *r, uint64_t dict, pyr_each_fn fn, void *arg);
/* The value of the str key KEY; 0 found, -1 not. */
int pyr_dict_get(const struct pyr *r, uint64_t dict, const char *key, uint64_t *value);
/* The instance attribute NAME of OBJ (its __dict__ or inline values); 0
 * found, -1 not. */
int pyr_attr(const struct pyr *r, uint64_t obj, const char *name, uint64_t *value);
/* Calls FN for each instance attribute (name, value) of OBJ until it
 * returns false; 0, or -1 when OBJ keeps none that can be read. */
int pyr_attr_each(const struct pyr *r, uint64_t obj, pyr_each_fn fn, void *arg);

#endif
