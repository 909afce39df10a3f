/* The CPython runtime lock model: the GIL (see lockmodel.h and
 * docs/locks.md).
 *
 * Everything is read from the target's memory through struct lt_lm_env:
 *   1. `_PyRuntime` (exported by the executable or by libpython3.x.so);
 *   2. the version (cpython_version.c: _Py_DebugOffsets, Py_Version, or
 *      the version string Py_GetVersion's code refers to);
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

#include "cpython_int.h"
#include "lockmodel.h"
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
	const char *version; /* "CPython 3.11.2" (id.version)               */
	const char *source;  /* where the layout came from                  */
	struct cpy_layout l;
	struct lt_cpy_id id;
};

/* _Py_DebugOffsets (3.13, cpython_int.h): the interpreter publishes its
 * own offsets at the start of _PyRuntime for out-of-process readers.
 * 3.14 inserts fields (interpreter_state.threads_main) and 3.13 alphas
 * lacked some, so only 3.13 release candidates and releases are read this
 * way (lt_cpy_identify's have_do). */
static bool layout_from_debug_offsets(struct cpy *c)
{
	const struct cpy_layout *t = &layouts[sizeof(layouts) / sizeof(layouts[0]) - 1];
	const struct lt_cpy_id *d = &c->id;
	if (lt_cpy_do(d, LT_DO_FREE_THREADED)) {
		lt_strlist_add(c->notes, "%s: free-threaded build: its GIL is not decoded",
			       c->version);
		return false;
	}
	uint64_t gil = lt_cpy_do(d, LT_DO_IS_GIL);
	uint64_t locked = lt_cpy_do(d, LT_DO_IS_GIL_LOCKED), holder = lt_cpy_do(d, LT_DO_IS_GIL_HOLDER);
	if (locked <= gil || holder <= gil || locked - gil >= 0x100 || holder - gil >= 0x100) {
		lt_strlist_add(c->notes, "%s: _Py_DebugOffsets GIL fields out of range", c->version);
		return false;
	}
	c->l = *t;
	c->l.rt_head = (uint32_t)lt_cpy_do(d, LT_DO_RT_HEAD);
	c->l.rt_main = 0; /* not published: the main interpreter is the one with id 0 */
	c->l.is_id = (uint32_t)lt_cpy_do(d, LT_DO_IS_ID);
	c->l.is_next = (uint32_t)lt_cpy_do(d, LT_DO_IS_NEXT);
	c->l.is_gil = (uint32_t)lt_cpy_do(d, LT_DO_IS_CEVAL_GIL);
	c->l.ts_interp = (uint32_t)lt_cpy_do(d, LT_DO_TS_INTERP);
	c->l.ts_pthread = (uint32_t)lt_cpy_do(d, LT_DO_TS_THREAD_ID);
	c->l.ts_native = (uint32_t)lt_cpy_do(d, LT_DO_TS_NATIVE);
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
	if (lt_cpy_identify(c->e, &c->id, "GIL not decoded", c->notes) <= 0)
		return false;
	c->runtime = c->id.runtime;
	c->version = c->id.version;
	if (c->id.have_do)
		return layout_from_debug_offsets(c);
	const struct cpy_layout *t = layout_for(c->id.minor);
	if (!t || c->id.minor >= 13) {
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
		if (!lt_cpy_is_thread(e, (pid_t)id)) {
			l->holder_how = lts_asprintf("last_holder's native_thread_id %" PRIu64
						     " is no longer a thread of this process", id);
			if (id > 0 && id <= INT32_MAX)
				l->holder_gone = (pid_t)id;
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
	pid_t tid = lt_cpy_tid_of_pthread(e, id, &how);
	if (!tid) {
		l->holder_how = lts_asprintf("last_holder's pthread_t 0x%" PRIx64 " is in no thread's "
					     "stack (the main thread's is not), no fs base matched it "
					     "and libc's struct pthread layout is not known", id);
		return;
	}
	l->holder = tid;
	l->holder_how = lts_asprintf("gil->last_holder->thread_id (pthread_t) %s", how);
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
	l->handoffs = g.switches;
	l->has_handoffs = true;
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
	if (!identify(&c))
		return 0;
	if (c.l.rt_gil)
		return push_gil(&c, c.runtime + c.l.rt_gil, "_PyRuntime.ceval.gil", v, n);
	return push_interp_gils(&c, v, n);
}

const struct lt_lockmodel lt_lm_cpython = { .name = "cpython", .find = find };
