/* Generator, compiled once per CPython include directory at build time
 * (Makefile: build/gen/cpython_layouts.h), never linked into locktrace:
 * prints, as one C initializer of struct gen_cpy (tests/lib/gen_layouts.h),
 * the offsetof() and sizeof() of every structure field the CPython models
 * (src/snapshot/runtimes/lock_cpython.c, rt_cpython_layout.c) read, taken
 * from that version's own headers (Py_BUILD_CORE, Include/internal).
 * -1: the field does not exist in that version.  The unit tests compare
 * the models' tables with these facts (tests/unit/test_cpython_layout.c). */
#define Py_BUILD_CORE 1
#include <Python.h>
#include <stddef.h>
#include <stdio.h>

#if PY_MAJOR_VERSION != 3 || PY_MINOR_VERSION < 8 || PY_MINOR_VERSION > 13
/* outside the versions the models claim: no row */
int main(int argc, char **argv)
{
	printf("/* %s: CPython %s, not a version the models claim */\n", argc > 1 ? argv[1] : "?",
	       PY_VERSION);
	return 0;
}
#else
#include <frameobject.h>
#if PY_MINOR_VERSION <= 10
#include <internal/pycore_pystate.h>
#include <internal/pycore_gil.h>
#if __has_include(<internal/pycore_interp.h>) /* 3.9+ */
#include <internal/pycore_interp.h>
#endif
#else
#include <internal/pycore_runtime.h>
#include <internal/pycore_interp.h>
#include <internal/pycore_frame.h>
#include <internal/pycore_dict.h>
#include <internal/pycore_gil.h>
#endif

#define F(name, value) printf(" ." #name " = %ld,", (long)(value))
#define NO(name) printf(" ." #name " = -1,")

int main(int argc, char **argv)
{
	printf("{ .minor = %d, .version = \"%s\", .incdir = \"%s\",", PY_MINOR_VERSION, PY_VERSION,
	       argc > 1 ? argv[1] : "?");
	/* _PyRuntimeState */
#if PY_MINOR_VERSION <= 11
	F(rt_gil, offsetof(_PyRuntimeState, ceval.gil));
#else
	NO(rt_gil);
#endif
	F(rt_head, offsetof(_PyRuntimeState, interpreters.head));
	F(rt_main, offsetof(_PyRuntimeState, interpreters.main));
	/* PyInterpreterState */
	F(is_next, offsetof(PyInterpreterState, next));
	F(is_id, offsetof(PyInterpreterState, id));
#if PY_MINOR_VERSION >= 12
	F(is_gil, offsetof(PyInterpreterState, ceval.gil));
	F(is_modules, offsetof(PyInterpreterState, imports.modules));
#else
	NO(is_gil);
	F(is_modules, offsetof(PyInterpreterState, modules));
#endif
#if PY_MINOR_VERSION >= 11
	F(is_threads, offsetof(PyInterpreterState, threads.head));
#else
	F(is_threads, offsetof(PyInterpreterState, tstate_head));
#endif
	/* PyThreadState */
	F(ts_next, offsetof(PyThreadState, next));
	F(ts_interp, offsetof(PyThreadState, interp));
	F(ts_pthread, offsetof(PyThreadState, thread_id));
#if PY_MINOR_VERSION >= 11
	F(ts_native, offsetof(PyThreadState, native_thread_id));
#else
	NO(ts_native);
#endif
#if PY_MINOR_VERSION <= 10
	F(ts_frame, offsetof(PyThreadState, frame));
	NO(cf_frame);
#elif PY_MINOR_VERSION <= 12
	F(ts_frame, offsetof(PyThreadState, cframe));
	F(cf_frame, offsetof(_PyCFrame, current_frame));
#else
	F(ts_frame, offsetof(PyThreadState, current_frame));
	NO(cf_frame);
#endif
	/* frames */
#if PY_MINOR_VERSION <= 10
	F(f_back, offsetof(PyFrameObject, f_back));
	F(f_code, offsetof(PyFrameObject, f_code));
	F(f_trace, offsetof(PyFrameObject, f_trace));
	F(f_lasti, offsetof(PyFrameObject, f_lasti));
	F(f_lineno, offsetof(PyFrameObject, f_lineno));
	F(f_locals, offsetof(PyFrameObject, f_localsplus));
	NO(if_prev); NO(if_code); NO(if_instr); NO(if_locals); NO(if_owner); NO(if_entry);
#else
	NO(f_back); NO(f_code); NO(f_trace); NO(f_lasti); NO(f_lineno); NO(f_locals);
	F(if_prev, offsetof(_PyInterpreterFrame, previous));
#if PY_MINOR_VERSION >= 13
	F(if_code, offsetof(_PyInterpreterFrame, f_executable));
	F(if_instr, offsetof(_PyInterpreterFrame, instr_ptr));
#else
	F(if_code, offsetof(_PyInterpreterFrame, f_code));
	F(if_instr, offsetof(_PyInterpreterFrame, prev_instr));
#endif
	F(if_locals, offsetof(_PyInterpreterFrame, localsplus));
	F(if_owner, offsetof(_PyInterpreterFrame, owner));
#if PY_MINOR_VERSION == 11
	F(if_entry, offsetof(_PyInterpreterFrame, is_entry));
#else
	NO(if_entry);
#endif
#endif
	/* code objects */
	F(co_filename, offsetof(PyCodeObject, co_filename));
	F(co_name, offsetof(PyCodeObject, co_name));
	F(co_firstlineno, offsetof(PyCodeObject, co_firstlineno));
	F(co_stacksize, offsetof(PyCodeObject, co_stacksize));
#if PY_MINOR_VERSION >= 11
	F(co_qualname, offsetof(PyCodeObject, co_qualname));
	F(co_linetable, offsetof(PyCodeObject, co_linetable));
	F(co_names, offsetof(PyCodeObject, co_localsplusnames));
	F(co_code, offsetof(PyCodeObject, co_code_adaptive));
	F(co_firsttraceable, offsetof(PyCodeObject, _co_firsttraceable));
#else
	NO(co_qualname);
#if PY_MINOR_VERSION == 10
	F(co_linetable, offsetof(PyCodeObject, co_linetable));
#else
	F(co_linetable, offsetof(PyCodeObject, co_lnotab));
#endif
	F(co_names, offsetof(PyCodeObject, co_varnames));
	NO(co_code);
	NO(co_firsttraceable);
#endif
	/* objects */
	F(str_ascii, sizeof(PyASCIIObject));
	F(str_compact, sizeof(PyCompactUnicodeObject));
	F(ht_cached_keys, offsetof(PyHeapTypeObject, ht_cached_keys));
#if PY_MINOR_VERSION >= 11
	F(dv_values, offsetof(PyDictValues, values));
#else
	NO(dv_values);
#endif
	/* struct _gil_runtime_state */
	F(gil_interval, offsetof(struct _gil_runtime_state, interval));
	F(gil_holder, offsetof(struct _gil_runtime_state, last_holder));
	F(gil_locked, offsetof(struct _gil_runtime_state, locked));
	F(gil_switches, offsetof(struct _gil_runtime_state, switch_number));
	F(gil_cond, offsetof(struct _gil_runtime_state, cond));
	F(gil_mutex, offsetof(struct _gil_runtime_state, mutex));
	F(gil_size, sizeof(struct _gil_runtime_state));
	printf(" },\n");
	return 0;
}
#endif
