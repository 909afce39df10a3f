/* The CPython runtime lock model: the GIL (see lockmodel.h and
 * docs/locks.md).
 *
 * Everything is read from the target's memory through struct lt_lm_env:
 *   1. `_PyRuntime` (exported by the executable or by libpython3.x.so);
 *   2. the version: the _Py_DebugOffsets header at the start of _PyRuntime
 *      (3.13+), else `Py_Version` (3.11+), else the version string that
 *      Py_GetVersion's code refers to (3.8-3.10, which export no number);
 *   3. the GIL: `_PyRuntime.ceval.gil` (3.8-3.11), or each interpreter's
 *      `ceval.gil` pointer (3.12+, one GIL per interpreter at most);
 *   4. the holder: gil->last_holder (a PyThreadState) -> native_thread_id
 *      (3.11+) or its pthread_t thread_id (3.8-3.10), checked against the
 *      snapshot's thread table.
 * Offsets are x86-64 facts per minor version (table below).  A version not
 * in the table is reported in a note and nothing is decoded: a wrong layout
 * would name a wrong holder, which is worse than naming none. */
#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "locktrace/lockmodel.h"
#include "snapshot_int.h"

/* Layout facts for one minor version, x86-64, default (GIL) build.  Taken
 * with offsetof() on the internal headers (Py_BUILD_CORE) of 3.8.18,
 * 3.9.18, 3.10.13, 3.11.7 (and Debian's 3.11.2: identical), 3.12.1 and
 * 3.13.0; 3.13 values are only a cross-check, the process's own
 * _Py_DebugOffsets are used when present.  0 = the field does not exist. */
struct cpy_layout {
	unsigned minor;
	uint32_t rt_gil;      /* offsetof(_PyRuntimeState, ceval.gil), <= 3.11  */
	uint32_t rt_head;     /* offsetof(_PyRuntimeState, interpreters.head)   */
	uint32_t rt_main;     /* offsetof(_PyRuntimeState, interpreters.main)   */
	uint32_t is_next;     /* offsetof(PyInterpreterState, next)             */
	uint32_t is_id;       /* offsetof(PyInterpreterState, id)               */
	uint32_t is_gil;      /* offsetof(PyInterpreterState, ceval.gil), 3.12+ */
	uint32_t ts_interp;   /* offsetof(PyThreadState, interp)                */
	uint32_t ts_pthread;  /* offsetof(PyThreadState, thread_id): pthread_t  */
	uint32_t ts_native;   /* offsetof(PyThreadState, native_thread_id)      */
	/* struct _gil_runtime_state (same in every row without Py_GIL_DISABLED):
	 * interval @0, last_holder @8, locked @0x10, switch_number @0x18,
	 * cond @0x20, mutex @0x50, switch_cond @0x78, switch_mutex @0xa8 */
	uint32_t gil_interval, gil_holder, gil_locked, gil_switches, gil_size;
};

#define GIL_STD 0x00, 0x08, 0x10, 0x18, 0xd0

static const struct cpy_layout layouts[] = {
	{ 8, 0x480, 0x20, 0x28, 0x0, 0x10, 0, 0x10, 0xb0, 0, GIL_STD },
	{ 9, 0x160, 0x20, 0x28, 0x0, 0x18, 0, 0x10, 0xb0, 0, GIL_STD },
	{ 10, 0x160, 0x20, 0x28, 0x0, 0x18, 0, 0x10, 0xb0, 0, GIL_STD },
	{ 11, 0x168, 0x28, 0x30, 0x0, 0x30, 0, 0x10, 0x98, 0xa0, GIL_STD },
	{ 12, 0, 0x28, 0x30, 0x0, 0x08, 0x180, 0x10, 0x88, 0x90, GIL_STD },
	{ 13, 0, 0x278, 0x280, 0x1c60, 0x1c68, 0x10, 0x10, 0x98, 0xa0, GIL_STD },
};

#define MAX_INTERPS 64

/* What was learnt about the runtime before decoding any GIL. */
struct cpy {
	const struct lt_lm_env *e;
	struct lt_strlist *notes;
	uint64_t runtime;
	uint32_t hexver;     /* PY_VERSION_HEX, 0 if unknown                 */
	char version[48];    /* "CPython 3.11.2"                            */
	const char *source;  /* where the layout came from                  */
	struct cpy_layout l;
};

/* ---- the version ---- */

static void version_from_hex(struct cpy *c, uint32_t h)
{
	static const char level[16] = { [0xa] = 'a', [0xb] = 'b', [0xc] = 'c' };
	unsigned maj = h >> 24, min = (h >> 16) & 0xff, mic = (h >> 8) & 0xff;
	unsigned lv = (h >> 4) & 0xf, serial = h & 0xf;
	c->hexver = h;
	if (lv == 0xf)
		snprintf(c->version, sizeof(c->version), "CPython %u.%u.%u", maj, min, mic);
	else
		snprintf(c->version, sizeof(c->version), "CPython %u.%u.%u%s%u", maj, min, mic,
			 level[lv] == 'c' ? "rc" : level[lv] == 'a' ? "a" : "b", serial);
}

/* "3.9.18..." -> PY_VERSION_HEX of a final release; 0 if S is no version. */
static uint32_t parse_version_str(const char *s)
{
	unsigned maj, min, mic;
	int end = 0;
	if (sscanf(s, "%u.%u.%u%n", &maj, &min, &mic, &end) != 3 || maj != 3 || min > 99 ||
	    mic > 99)
		return 0;
	char next = s[end];
	if (next && next != ' ' && next != '+' && next != '\n')
		return 0; /* alpha/beta builds: not decoded from text */
	return (uint32_t)maj << 24 | min << 16 | mic << 8 | 0xf0;
}

/* A string the code refers to: does it start with a version number? */
static uint32_t try_version_at(const struct lt_lm_env *e, uint64_t addr)
{
	char buf[24];
	if (lt_lm_read_str(e, addr, buf, sizeof(buf)) < 0)
		return 0;
	return parse_version_str(buf);
}

/* 3.8-3.10 export no version number.  Py_GetVersion formats PY_VERSION
 * (a string literal) into a static buffer that start-up already filled
 * for sys.version; its code refers to both by address: a RIP-relative
 * `lea` (PIC builds) or a `mov $imm32, %r32` (non-PIE executables).  Scan
 * its first bytes for such operands and take the first that points at
 * "3.N.M". */
static uint32_t version_from_code(const struct lt_lm_env *e)
{
	uint64_t fn, fsize;
	uint8_t code[160];
	if (e->lookup(e->arg, "Py_GetVersion", &fn, &fsize) < 0)
		return 0;
	size_t len = fsize && fsize < sizeof(code) ? fsize : sizeof(code);
	while (len >= 16 && e->read(e->arg, fn, code, len) < 0)
		len /= 2;
	if (len < 16)
		return 0;
	for (size_t i = 0; i + 7 <= len; i++) {
		uint64_t target = 0;
		if ((code[i] & 0xfb) == 0x48 && code[i + 1] == 0x8d && (code[i + 2] & 0xc7) == 0x05) {
			int32_t d;
			memcpy(&d, code + i + 3, 4);
			target = fn + i + 7 + (int64_t)d;
		} else if (code[i] >= 0xb8 && code[i] <= 0xbf) {
			uint32_t imm;
			memcpy(&imm, code + i + 1, 4);
			target = imm;
		}
		uint32_t h = target >= 0x1000 ? try_version_at(e, target) : 0;
		if (h)
			return h;
	}
	return 0;
}

/* _Py_DebugOffsets (3.13): the interpreter publishes its own offsets at
 * the start of _PyRuntime for out-of-process readers.  Field positions
 * below are those of the 3.13 struct (cookie, version, free_threaded,
 * runtime_state{size, finalizing, interpreters_head},
 * interpreter_state{size, id, next, threads_head, gc, imports_modules,
 * sysdict, builtins, ceval_gil, gil_runtime_state, .._enabled, .._locked,
 * .._holder}, thread_state{size, prev, next, interp, current_frame,
 * thread_id, native_thread_id, ...}) as in 3.13.0.  3.14 inserts fields
 * (interpreter_state.threads_main) and 3.13 alphas lacked some, so only
 * 3.13 release candidates and releases are read this way. */
enum {
	DO_VERSION = 8, DO_FREE_THREADED = 16, DO_RT_HEAD = 40,
	DO_IS_ID = 56, DO_IS_NEXT = 64, DO_IS_CEVAL_GIL = 112, DO_IS_GIL = 120,
	DO_IS_GIL_ENABLED = 128, DO_IS_GIL_LOCKED = 136, DO_IS_GIL_HOLDER = 144,
	DO_TS_INTERP = 176, DO_TS_THREAD_ID = 192, DO_TS_NATIVE = 200,
	DO_END = 208,
};

static uint64_t do_field(const uint8_t *d, size_t off)
{
	uint64_t v;
	memcpy(&v, d + off, sizeof(v));
	return v;
}

static bool layout_from_debug_offsets(struct cpy *c, const uint8_t *d)
{
	const struct cpy_layout *t = &layouts[sizeof(layouts) / sizeof(layouts[0]) - 1];
	if (do_field(d, DO_FREE_THREADED)) {
		lt_strlist_add(c->notes, "%s: free-threaded build: its GIL is not decoded",
			       c->version);
		return false;
	}
	uint64_t gil = do_field(d, DO_IS_GIL);
	uint64_t locked = do_field(d, DO_IS_GIL_LOCKED), holder = do_field(d, DO_IS_GIL_HOLDER);
	if (locked <= gil || holder <= gil || locked - gil >= 0x100 || holder - gil >= 0x100) {
		lt_strlist_add(c->notes, "%s: _Py_DebugOffsets GIL fields out of range", c->version);
		return false;
	}
	c->l = *t;
	c->l.rt_head = (uint32_t)do_field(d, DO_RT_HEAD);
	c->l.rt_main = 0; /* not published: the main interpreter is the one with id 0 */
	c->l.is_id = (uint32_t)do_field(d, DO_IS_ID);
	c->l.is_next = (uint32_t)do_field(d, DO_IS_NEXT);
	c->l.is_gil = (uint32_t)do_field(d, DO_IS_CEVAL_GIL);
	c->l.ts_interp = (uint32_t)do_field(d, DO_TS_INTERP);
	c->l.ts_pthread = (uint32_t)do_field(d, DO_TS_THREAD_ID);
	c->l.ts_native = (uint32_t)do_field(d, DO_TS_NATIVE);
	c->l.gil_locked = (uint32_t)(locked - gil);
	c->l.gil_holder = (uint32_t)(holder - gil);
	/* interval precedes last_holder, switch_number follows locked */
	c->l.gil_interval = c->l.gil_holder - 8;
	c->l.gil_switches = c->l.gil_locked + 8;
	c->source = "_Py_DebugOffsets";
	return true;
}

static const struct cpy_layout *layout_for(unsigned minor)
{
	for (size_t i = 0; i < sizeof(layouts) / sizeof(layouts[0]); i++)
		if (layouts[i].minor == minor)
			return &layouts[i];
	return NULL;
}

/* Fills c->version and c->l; false (with a note) when the layout is not
 * known. */
static bool identify(struct cpy *c)
{
	const struct lt_lm_env *e = c->e;
	uint8_t d[DO_END];
	bool have_do = e->read(e->arg, c->runtime, d, sizeof(d)) == 0 &&
		       memcmp(d, "xdebugpy", 8) == 0;
	uint64_t addr;
	uint32_t hv = 0;
	if (have_do)
		hv = (uint32_t)do_field(d, DO_VERSION);
	else if (e->lookup(e->arg, "Py_Version", &addr, NULL) == 0)
		lt_lm_read_u32(e, addr, &hv);
	else
		hv = version_from_code(e);
	if (!hv || hv >> 24 != 3) {
		lt_strlist_add(c->notes, "CPython: _PyRuntime at 0x%" PRIx64 " but no version "
			       "found (no _Py_DebugOffsets, Py_Version or version string): GIL not decoded",
			       c->runtime);
		return false;
	}
	version_from_hex(c, hv);
	unsigned minor = (hv >> 16) & 0xff;
	unsigned level = (hv >> 4) & 0xf;
	if (have_do && minor == 13 && (level == 0xc || level == 0xf))
		return layout_from_debug_offsets(c, d);
	const struct cpy_layout *t = layout_for(minor);
	if (!t || minor >= 13) {
		/* 3.13 without its debug offsets would be a patched build;
		 * 3.14+ changed _Py_DebugOffsets: neither is guessed */
		lt_strlist_add(c->notes, "%s: layout of this version is not known: GIL not decoded",
			       c->version);
		return false;
	}
	c->l = *t;
	c->source = "built-in table";
	return true;
}

/* ---- the holder ---- */

/* pthread_t -> tid: by fs base when the environment knows it, else by the
 * stack mapping glibc puts struct pthread in (not for the main thread, whose
 * struct pthread is in static TLS). */
static pid_t tid_of_pthread(const struct lt_lm_env *e, uint64_t pt, const char **how)
{
	if (e->fsbase && e->s)
		for (size_t i = 0; i < e->s->n_threads; i++)
			if (e->fsbase(e->arg, e->s->threads[i].tid) == pt) {
				*how = "gil->last_holder->thread_id (pthread_t) is that thread's fs base";
				return e->s->threads[i].tid;
			}
	*how = "gil->last_holder->thread_id (pthread_t) in that thread's stack";
	return e->stack_tid ? e->stack_tid(e->arg, pt) : 0;
}

static bool is_thread(const struct lt_lm_env *e, pid_t tid)
{
	return tid > 0 && e->s && lt_snapshot_find(e->s, tid);
}

/* Names l->holder from the PyThreadState TS that last_holder points at. */
static void find_holder(const struct cpy *c, struct lt_rtlock *l, uint64_t ts)
{
	const struct lt_lm_env *e = c->e;
	uint64_t id = 0;
	if (!ts) {
		l->holder_how = lts_strdup("locked, but last_holder is NULL");
		return;
	}
	if (c->l.ts_native) {
		if (lt_lm_read_u64(e, ts + c->l.ts_native, &id) < 0) {
			l->holder_how = lts_asprintf("PyThreadState 0x%" PRIx64 " unreadable", ts);
			return;
		}
		lt_strlist_add(&l->facts, "holder native_thread_id=%" PRIu64, id);
		if (!is_thread(e, (pid_t)id)) {
			l->holder_how = lts_asprintf("last_holder's native_thread_id %" PRIu64
						     " is not a thread of this process", id);
			return;
		}
		l->holder = (pid_t)id;
		l->holder_how = lts_strdup("gil->last_holder->native_thread_id");
		return;
	}
	if (lt_lm_read_u64(e, ts + c->l.ts_pthread, &id) < 0) {
		l->holder_how = lts_asprintf("PyThreadState 0x%" PRIx64 " unreadable", ts);
		return;
	}
	lt_strlist_add(&l->facts, "holder thread_id (pthread_t)=0x%" PRIx64, id);
	const char *how = NULL;
	pid_t tid = tid_of_pthread(e, id, &how);
	if (!is_thread(e, tid)) {
		l->holder_how = lts_asprintf("last_holder's pthread_t 0x%" PRIx64 " is in no thread's "
					     "stack (the main thread's is not) and no fs base matched it",
					     id);
		return;
	}
	l->holder = tid;
	l->holder_how = lts_strdup(how);
}

/* ---- one GIL ---- */

struct gil_state {
	uint64_t interval, last_holder, switches;
	int32_t locked;
};

static bool read_gil(const struct cpy *c, uint64_t gil, struct gil_state *g)
{
	const struct lt_lm_env *e = c->e;
	uint32_t locked;
	if (lt_lm_read_u64(e, gil + c->l.gil_interval, &g->interval) < 0 ||
	    lt_lm_read_u64(e, gil + c->l.gil_holder, &g->last_holder) < 0 ||
	    lt_lm_read_u32(e, gil + c->l.gil_locked, &locked) < 0 ||
	    lt_lm_read_u64(e, gil + c->l.gil_switches, &g->switches) < 0) {
		lt_strlist_add(c->notes, "%s: GIL at 0x%" PRIx64 " unreadable", c->version, gil);
		return false;
	}
	g->locked = (int32_t)locked;
	/* the default switch interval is 5000 us; sys.setswitchinterval takes
	 * seconds, so anything beyond an hour means we read the wrong place */
	if (g->locked < -1 || g->locked > 1 || g->interval == 0 || g->interval > 3600000000u) {
		lt_strlist_add(c->notes, "%s: GIL at 0x%" PRIx64 " fails sanity checks (locked=%d, "
			       "interval=%" PRIu64 "): layout mismatch, not decoded",
			       c->version, gil, g->locked, g->interval);
		return false;
	}
	return true;
}

static int push_gil(const struct cpy *c, uint64_t gil, const char *name, struct lt_rtlock **v,
		    size_t *n)
{
	struct gil_state g;
	if (!read_gil(c, gil, &g))
		return 0;
	struct lt_rtlock *l = lt_rtlock_push(v, n);
	if (!l)
		return -ENOMEM;
	l->model = "cpython";
	l->kind = "GIL";
	l->name = lts_strdup(name);
	l->version = lts_strdup(c->version);
	l->base = gil;
	l->size = c->l.gil_size;
	l->held = g.locked == -1 ? -1 : g.locked;
	lt_strlist_add(&l->facts, "locked=%d", g.locked);
	lt_strlist_add(&l->facts, "switch_number=%" PRIu64, g.switches);
	lt_strlist_add(&l->facts, "interval=%" PRIu64 "us", g.interval);
	lt_strlist_add(&l->facts, "last_holder=0x%" PRIx64 " (PyThreadState)", g.last_holder);
	lt_strlist_add(&l->facts, "layout: %s", c->source);
	if (g.locked == 1)
		find_holder(c, l, g.last_holder);
	else
		l->holder_how = lts_strdup(g.locked ? "GIL not initialised (locked=-1)"
						    : "GIL free (locked=0)");
	return 0;
}

/* 3.12+: one GIL per interpreter that owns one; interpreters sharing the
 * main GIL point to the same struct, which is reported once. */
static int push_interp_gils(const struct cpy *c, struct lt_rtlock **v, size_t *n)
{
	const struct lt_lm_env *e = c->e;
	uint64_t interp, seen[MAX_INTERPS], main_is = 0;
	size_t nseen = 0;
	if (c->l.rt_main)
		lt_lm_read_u64(e, c->runtime + c->l.rt_main, &main_is);
	if (lt_lm_read_u64(e, c->runtime + c->l.rt_head, &interp) < 0) {
		lt_strlist_add(c->notes, "%s: _PyRuntime.interpreters unreadable", c->version);
		return 0;
	}
	for (int i = 0; interp && i < MAX_INTERPS; i++) {
		uint64_t gil = 0, id = 0, next = 0;
		if (lt_lm_read_u64(e, interp + c->l.is_gil, &gil) < 0 ||
		    lt_lm_read_u64(e, interp + c->l.is_id, &id) < 0 ||
		    lt_lm_read_u64(e, interp + c->l.is_next, &next) < 0) {
			lt_strlist_add(c->notes, "%s: interpreter at 0x%" PRIx64 " unreadable",
				       c->version, interp);
			break;
		}
		bool dup = false;
		for (size_t k = 0; k < nseen; k++)
			dup |= seen[k] == gil;
		if (gil && !dup) {
			seen[nseen++] = gil;
			bool is_main = main_is ? interp == main_is : id == 0;
			char name[64];
			if (is_main)
				snprintf(name, sizeof(name), "main interpreter GIL");
			else
				snprintf(name, sizeof(name), "interpreter %" PRId64 " GIL", (int64_t)id);
			if (push_gil(c, gil, name, v, n) < 0)
				return -ENOMEM;
		}
		interp = next;
	}
	return 0;
}

static int find(const struct lt_lm_env *e, struct lt_rtlock **v, size_t *n, struct lt_strlist *notes)
{
	struct cpy c = { .e = e, .notes = notes };
	uint64_t size;
	if (e->lookup(e->arg, "_PyRuntime", &c.runtime, &size) < 0)
		return 0; /* no CPython in this process */
	if (!identify(&c))
		return 0;
	if (c.l.rt_gil)
		return push_gil(&c, c.runtime + c.l.rt_gil, "_PyRuntime.ceval.gil", v, n);
	return push_interp_gils(&c, v, n);
}

const struct lt_lockmodel lt_lm_cpython = { .name = "cpython", .find = find };
