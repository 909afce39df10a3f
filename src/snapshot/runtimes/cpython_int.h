/* Internal to the CPython models: lock_cpython.c (the GIL) and
 * rt_cpython*.c (thread names and Python stacks).  Finding the runtime,
 * its version, and the offsets it publishes for out-of-process readers.
 * Not part of the public API; non-static names have the lt_cpy_ prefix. */
#ifndef LOCKTRACE_CPYTHON_INT_H
#define LOCKTRACE_CPYTHON_INT_H

#include <stdbool.h>
#include <stdint.h>
#include <sys/types.h>

#include "lockmodel.h"

/* Bytes of 3.13's _Py_DebugOffsets that are read (the whole struct of
 * 3.13.0: cookie ... gc.collecting). */
#define LT_CPY_DO_SIZE 584

/* Field positions inside 3.13's _Py_DebugOffsets (offsetof() on the 3.13.0
 * headers); the values stored there are the process's own offsets. */
enum {
	LT_DO_VERSION = 8, LT_DO_FREE_THREADED = 16,
	LT_DO_RT_HEAD = 40,
	LT_DO_IS_ID = 56, LT_DO_IS_NEXT = 64, LT_DO_IS_THREADS = 72, LT_DO_IS_MODULES = 88,
	LT_DO_IS_CEVAL_GIL = 112, LT_DO_IS_GIL = 120, LT_DO_IS_GIL_LOCKED = 136,
	LT_DO_IS_GIL_HOLDER = 144,
	LT_DO_TS_NEXT = 168, LT_DO_TS_INTERP = 176, LT_DO_TS_FRAME = 184,
	LT_DO_TS_THREAD_ID = 192, LT_DO_TS_NATIVE = 200,
	LT_DO_IF_PREVIOUS = 232, LT_DO_IF_EXECUTABLE = 240, LT_DO_IF_INSTR = 248,
	LT_DO_IF_LOCALSPLUS = 256, LT_DO_IF_OWNER = 264,
	LT_DO_CO_FILENAME = 280, LT_DO_CO_NAME = 288, LT_DO_CO_QUALNAME = 296,
	LT_DO_CO_LINETABLE = 304, LT_DO_CO_FIRSTLINENO = 312, LT_DO_CO_LOCALSPLUSNAMES = 328,
	LT_DO_CO_CODE = 344,
	LT_DO_OB_TYPE = 360, LT_DO_TP_NAME = 376, LT_DO_TP_FLAGS = 392,
	LT_DO_TUPLE_ITEM = 408, LT_DO_DICT_KEYS = 456, LT_DO_DICT_VALUES = 464,
	LT_DO_LONG_TAG = 496, LT_DO_LONG_DIGIT = 504,
	LT_DO_BYTES_SIZE = 520, LT_DO_BYTES_SVAL = 528,
	LT_DO_STR_STATE = 544, LT_DO_STR_LENGTH = 552, LT_DO_STR_ASCII_SIZE = 560,
};

/* What identifies one CPython runtime. */
struct lt_cpy_id {
	uint64_t runtime;          /* &_PyRuntime                              */
	uint32_t hexver;           /* PY_VERSION_HEX                           */
	unsigned minor;            /* 3.MINOR                                  */
	char version[48];          /* "CPython 3.11.2"                         */
	bool have_do;              /* d holds the _Py_DebugOffsets of a 3.13
	                              release (candidate): use them            */
	uint8_t d[LT_CPY_DO_SIZE];
};

/* 1: a CPython runtime whose version is known (ID filled); 0: no CPython in
 * the process; -1: CPython, but no version could be read (a note says so,
 * ending with WHAT: "GIL not decoded"). */
int lt_cpy_identify(const struct lt_lm_env *e, struct lt_cpy_id *id, const char *what,
		    struct lt_strlist *notes);
/* The 64-bit value at position OFF of the debug offsets. */
uint64_t lt_cpy_do(const struct lt_cpy_id *id, unsigned off);
/* A thread's pthread_t -> its tid, checked against the snapshot's threads:
 * by fs base, by libc's libthread_db description of struct pthread
 * (_thread_db_pthread_tid), then by the stack mapping it lies in.  0 if
 * none of them names a thread of the snapshot.  HOW (may be NULL) gets
 * which one matched: "is that thread's fs base", "... in that thread's
 * stack" (static). */
pid_t lt_cpy_tid_of_pthread(const struct lt_lm_env *e, uint64_t pt, const char **how);
/* The tid struct pthread PT records (libc's _thread_db_pthread_tid), a
 * thread of this process or not (a copy made by fork()); 0 if unknown. */
pid_t lt_cpy_pthread_tid(const struct lt_lm_env *e, uint64_t pt);
/* TID is a thread of the snapshot. */
bool lt_cpy_is_thread(const struct lt_lm_env *e, pid_t tid);

#endif
