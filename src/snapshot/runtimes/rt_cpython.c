/* The CPython thread model (rtthread.h, docs/runtimes.md): every Python
 * thread's name and Python stack, read from the interpreter's memory.
 *
 *   _PyRuntime.interpreters.head -> each PyInterpreterState (next)
 *     -> its thread states (threads.head / tstate_head, next)
 *        -> the thread: native_thread_id (3.11+) or its pthread_t
 *        -> the innermost frame: tstate->frame (PyFrameObject, <= 3.10),
 *           tstate->cframe->current_frame (3.11, 3.12) or
 *           tstate->current_frame (3.13), each _PyInterpreterFrame linked
 *           by `previous`
 *           -> code object: qualified name (3.11+) or name, file name,
 *              line from the line table at the frame's instruction
 *     -> sys.modules["threading"]._active: {pthread_t: Thread}, Thread._name
 *
 * Which interpreter-loop invocation runs each frame (for placing them among
 * the native frames): one per frame up to 3.10; 3.11 marks the first frame
 * of an invocation (is_entry); 3.12+ pushes a frame owned by the C stack
 * below each invocation's frames.
 *
 * A thread waiting on a futex whose innermost Python frame holds a
 * threading.Lock / RLock (a local variable or a value on its evaluation
 * stack) whose semaphore is that futex gets the lock named in t->futex:
 * kind, object, variable name, and for an RLock its owner (RLocks record
 * one; Locks do not).  A thread in concurrent.futures' Future.result()
 * waits for the thread whose _WorkItem.run runs that Future's task (a
 * runtime lock it holds, pushed to s->rtlocks: futures()). */
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "budget.h"
#include "rt_idle.h"
#include "rtthread.h"
#include "pystack.h"
#include "rt_cpython_int.h"
#include "snapshot_int.h"
#include "u64map.h"
#include "grow.h"
#include "locktrace/pyframes.h"

#define MAX_INTERPS 64
#define MAX_TSTATES 4096
#define MAX_FRAMES 256
#define MAX_CODES 1024
#define MAX_LINETABLE (1u << 20)
/* all the line tables of one process, each read once however many code
 * objects share it */
#define MAX_LINETABLES_TOTAL (16u << 20)
#define MAX_SLOTS 128
#define OWNED_BY_GENERATOR 1
#define OWNED_BY_CSTACK 3
#define MD_DICT 0x10
#define LOCK_SEM 0x10       /* lockobject.lock_lock, rlockobject.rlock_lock */
#define RLOCK_OWNER 0x18
#define RLOCK_COUNT 0x20
#define SEMLOCK_HANDLE 16   /* _multiprocessing.SemLock: SEM_HANDLE handle; unsigned long last_tid; */

/* What the frames need of one code object, read once. */
struct code {
	uint64_t addr;
	char *func, *file;
	int first, stacksize, firsttraceable; /* firsttraceable -1: unknown */
	const uint8_t *tab; /* the model's (struct model.tabs), shared */
	size_t ntab;
	const struct lt_py_index *ix; /* its index, shared likewise */
	uint64_t names;     /* tuple of the local variables' names */
	size_t nlocals;
	bool ok;
};

struct model {
	const struct lt_lm_env *e;
	struct lt_snapshot *s;
	struct lt_cpy_id id;
	const struct pyl *l;
	struct pyr r;
	bool dicts_ok;
	struct code *codes;
	size_t ncodes;
	struct lt_u64map code_at; /* code object address -> 1 + index in codes */
	struct lt_u64map tabs;    /* line table object address -> struct tab */
	size_t tab_bytes;         /* their total size */
	bool tabs_cut;            /* MAX_LINETABLES_TOTAL reached */
	uint64_t lock_type, rlock_type, not_lock[16];
	uint64_t meth_type;  /* builtin_function_or_method, once seen */
	size_t n_not_lock;
	struct lt_u64map sem_types; /* type -> its class for the SemLock search */
	size_t sem_cap;             /* of s->semlocks */
	size_t unmatched, threads;
};

/* One thread state, the thread it runs on, and where its Python frames
 * keep their local variables. */
struct ts {
	uint64_t ident;     /* pthread_t */
	struct lt_thread *t;
	uint64_t *locals, *codes; /* per frame of t->rt_frames */
};

/* One thread's walk through its frames. */
struct walk {
	struct model *m;
	struct lt_thread *t;
	unsigned groups[MAX_FRAMES];
	unsigned group;
	bool in_group;
	uint64_t locals[MAX_FRAMES], codes[MAX_FRAMES]; /* per frame pushed */
};

static uint64_t u64(const struct model *m, uint64_t addr)
{
	uint64_t v = 0;
	return addr && m->e->read(m->e->arg, addr, &v, sizeof(v)) == 0 ? v : 0;
}

static int32_t i32_in(const uint8_t *b, uint32_t off)
{
	int32_t v;
	memcpy(&v, b + off, sizeof(v));
	return v;
}

static uint64_t u64_in(const uint8_t *b, uint32_t off)
{
	uint64_t v;
	memcpy(&v, b + off, sizeof(v));
	return v;
}

/* ---- code objects ---- */

static void code_clear(struct code *c)
{
	free(c->func);
	free(c->file);
	memset(c, 0, sizeof(*c));
}

/* A line table (a bytes object), read and indexed once per process
 * however many code objects share it, within MAX_LINETABLES_TOTAL. */
struct tab {
	uint8_t *b;
	size_t n;
	struct lt_py_index ix; /* empty if it could not be built: scanned whole */
};

static enum lt_py_lines lines_fmt(const struct pyl *l)
{
	return l->lines == PYL_LNOTAB ? LT_PY_LNOTAB : l->lines == PYL_LINES_310 ? LT_PY_310 : LT_PY_311;
}

static void line_table(struct model *m, uint64_t obj, struct code *c)
{
	struct tab *t = obj ? lt_u64map_get(&m->tabs, obj) : NULL;
	if (!t && obj && !m->tabs_cut) {
		uint8_t *b;
		size_t n;
		if (pyr_bytes(&m->r, obj, MAX_LINETABLE, &b, &n) < 0)
			return;
		if (m->tab_bytes + n > MAX_LINETABLES_TOTAL) {
			free(b);
			m->tabs_cut = true;
			lt_budget_note("%s: stopped reading line tables after %zu KiB (line numbers of the "
				       "other frames not shown)", m->id.version, m->tab_bytes >> 10);
			return;
		}
		if (!(t = malloc(sizeof(*t))) || lt_u64map_put(&m->tabs, obj, t)) {
			free(t);
			free(b);
			return;
		}
		t->b = b;
		t->n = n;
		if (lt_py_index_build(lines_fmt(m->l), b, n, &t->ix) < 0)
			t->ix = (struct lt_py_index){ NULL, 0 };
		m->tab_bytes += n;
	}
	if (t) {
		c->tab = t->b;
		c->ntab = t->n;
		c->ix = &t->ix;
	}
}

/* Bytes of the code object header that hold every field read. */
static uint32_t code_span(const struct pyl *l)
{
	uint32_t v[] = { l->co_filename, l->co_name, l->co_qualname, l->co_linetable, l->co_names,
			 l->co_firstlineno, l->co_stacksize, l->co_firsttraceable };
	uint32_t hi = 0;
	for (size_t i = 0; i < sizeof(v) / sizeof(v[0]); i++)
		if (v[i] > hi)
			hi = v[i];
	return hi + 8;
}

static bool code_read(struct model *m, uint64_t addr, struct code *c)
{
	const struct pyl *l = m->l;
	uint8_t b[0x100];
	char func[256], file[1024];
	uint32_t span = code_span(l);
	c->addr = addr;
	if (span > sizeof(b) || (m->r.t_code && pyr_type(&m->r, addr) != m->r.t_code) ||
	    m->e->read(m->e->arg, addr, b, span) < 0)
		return false;
	uint64_t name = u64_in(b, l->co_qualname ? l->co_qualname : l->co_name);
	if (pyr_str(&m->r, name, func, sizeof(func)) < 0 ||
	    pyr_str(&m->r, u64_in(b, l->co_filename), file, sizeof(file)) < 0)
		return false;
	line_table(m, u64_in(b, l->co_linetable), c);
	c->func = lts_strdup(func);
	c->file = lts_strdup(file);
	c->first = i32_in(b, l->co_firstlineno);
	c->stacksize = l->co_stacksize ? i32_in(b, l->co_stacksize) : 0;
	c->firsttraceable = l->co_firsttraceable ? i32_in(b, l->co_firsttraceable) : -1;
	c->names = u64_in(b, l->co_names);
	if (pyr_tuple_size(&m->r, c->names, &c->nlocals) < 0)
		c->nlocals = 0;
	return c->func && c->file;
}

/* The code object at ADDR, read once; NULL if it is not one. */
static const struct code *code_get(struct model *m, uint64_t addr)
{
	uintptr_t k = addr ? (uintptr_t)lt_u64map_get(&m->code_at, addr) : 0;
	if (k)
		return m->codes[k - 1].ok ? &m->codes[k - 1] : NULL;
	if (!addr || lt_budget_over())
		return NULL;
	if (!m->codes && !(m->codes = calloc(MAX_CODES, sizeof(*m->codes))))
		return NULL;
	if (m->ncodes == MAX_CODES) { /* full: the last slot is reused */
		lt_u64map_del(&m->code_at, m->codes[m->ncodes - 1].addr);
		code_clear(&m->codes[--m->ncodes]);
	}
	struct code *c = &m->codes[m->ncodes++];
	c->ok = code_read(m, addr, c);
	if (lt_u64map_put(&m->code_at, addr, (void *)(uintptr_t)m->ncodes)) {
		code_clear(&m->codes[--m->ncodes]);
		return NULL;
	}
	return c->ok ? c : NULL;
}

static int line_at(const struct pyl *l, const struct code *c, int addr)
{
	return lt_py_line_at(lines_fmt(l), c->tab, c->ntab, c->ix, c->first, addr);
}

/* ---- frames ---- */

static bool push(struct walk *w, const struct code *c, int line, uint64_t locals)
{
	struct lt_thread *t = w->t;
	if (t->n_rt_frames == MAX_FRAMES)
		return false;
	/* capacity 8, 16, 32, ... */
	struct lt_rtframe *v = lt_grow_pow2_from(t->rt_frames, t->n_rt_frames, sizeof(*v), 8);
	if (!v)
		return false;
	t->rt_frames = v;
	struct lt_rtframe *f = &t->rt_frames[t->n_rt_frames];
	memset(f, 0, sizeof(*f));
	f->bci = -1; /* Python frames have no machine pc, kind or bci */
	f->func = lts_strdup(c->func);
	f->file = lts_strdup(c->file);
	f->line = line > 0 ? line : 0;
	f->native = -1;
	w->locals[t->n_rt_frames] = locals;
	w->codes[t->n_rt_frames] = c->addr;
	w->groups[t->n_rt_frames++] = w->group;
	w->in_group = true;
	return true;
}

static void end_group(struct walk *w)
{
	if (w->in_group)
		w->group++;
	w->in_group = false;
}

/* ---- frames, read in two steps: the raw chain (pyraw_walk: frame, code
 * object and instruction addresses only, cheap enough for `record
 * --stacks` to do while the thread sleeps), then resolved to functions and
 * lines through the code objects (resolve, with the cache above) ---- */

/* The frames a walk visited: a list that loops back is said, not walked
 * round.  Open addressing, at most LT_PYSTK_MAX_RAW frames in twice as many
 * slots. */
struct seen {
	uint64_t slot[2 * LT_PYSTK_MAX_RAW];
};

/* true if F was visited before (else it is now) */
static bool raw_seen(struct seen *v, uint64_t f)
{
	size_t n = sizeof(v->slot) / sizeof(v->slot[0]);
	for (size_t i = (size_t)((f >> 4) * 0x9E3779B97F4A7C15ull >> 54) % n;; i = (i + 1) % n) {
		if (v->slot[i] == f)
			return true;
		if (!v->slot[i]) {
			v->slot[i] = f;
			return false;
		}
	}
}

static void raw_end(struct lt_pyraw_stack *o, int why, uint64_t at)
{
	o->end = why;
	o->end_at = at;
}

/* 3.8-3.10: PyFrameObjects, each run by its own call of the loop. */
static void raw_objects(const struct lt_lm_env *e, const struct pyl *l, uint64_t f,
			struct lt_pyraw_stack *o, struct seen *v)
{
	uint8_t b[0x80];
	for (; f && o->n < o->max; ) {
		if (raw_seen(v, f)) {
			raw_end(o, LT_PYRAW_LOOP, f);
			return;
		}
		if (e->read(e->arg, f, b, l->f_lineno + 4) < 0)
			break;
		int lasti = i32_in(b, l->f_lasti), lineno = i32_in(b, l->f_lineno);
		struct lt_pyraw *r = &o->f[o->n++];
		*r = (struct lt_pyraw){ .frame = f, .code = u64_in(b, l->f_code), .flags = LT_PYRAW_ENTRY,
					.locals = f + l->f_locals };
		if (l->lines == PYL_LNOTAB) { /* f_lineno is kept only while tracing */
			r->addr = lasti;
			r->lineno = u64_in(b, l->f_trace) ? lineno : 0;
		} else { /* 3.10: f_lasti counts code units; f_lineno valid if set */
			r->addr = (int64_t)lasti * 2;
			r->lineno = lineno;
		}
		f = u64_in(b, l->f_back);
	}
	if (f && o->n == o->max)
		raw_end(o, LT_PYRAW_DEEP, f);
	else if (f)
		raw_end(o, LT_PYRAW_UNREADABLE, f);
}

/* 3.11+: _PyInterpreterFrames. */
static void raw_interp(const struct lt_lm_env *e, const struct pyl *l, unsigned minor, uint64_t f,
		       struct lt_pyraw_stack *o, struct seen *v)
{
	uint8_t b[0x100]; /* pyl_for: every field lies below if_locals <= 0x100 */
	while (f && o->n < o->max) {
		if (raw_seen(v, f)) {
			raw_end(o, LT_PYRAW_LOOP, f);
			return;
		}
		if (e->read(e->arg, f, b, l->if_locals) < 0) {
			raw_end(o, LT_PYRAW_UNREADABLE, f);
			return;
		}
		uint64_t code = u64_in(b, l->if_code);
		uint8_t owner = b[l->if_owner];
		struct lt_pyraw *r = &o->f[o->n++];
		*r = (struct lt_pyraw){ .frame = f, .code = code, .locals = f + l->if_locals,
					.addr = (int64_t)(u64_in(b, l->if_instr) - (code + l->co_code)) };
		if (owner == OWNED_BY_CSTACK && minor >= 12)
			r->flags |= LT_PYRAW_BOUNDARY; /* below it: an outer call of the loop */
		if (owner == OWNED_BY_GENERATOR)
			r->flags |= LT_PYRAW_GEN;
		if (l->if_entry && b[l->if_entry])
			r->flags |= LT_PYRAW_ENTRY;
		f = u64_in(b, l->if_prev);
	}
	if (f)
		raw_end(o, LT_PYRAW_DEEP, f);
}

static uint64_t first_frame_e(const struct lt_lm_env *e, const struct pyl *l, uint64_t ts)
{
	uint64_t p = 0;
	if (e->read(e->arg, ts + l->ts_frame, &p, 8) < 0)
		return 0;
	if (l->cf_frame < 0 || !p)
		return p;
	uint64_t f = 0;
	return e->read(e->arg, p + (uint32_t)l->cf_frame, &f, 8) < 0 ? 0 : f;
}

/* The raw frame chain of thread state TS, innermost first. */
static void pyraw_walk(const struct lt_lm_env *e, const struct pyl *l, unsigned minor, uint64_t ts,
		       struct lt_pyraw_stack *o)
{
	uint64_t f = first_frame_e(e, l, ts);
	struct seen *v = calloc(1, sizeof(*v));
	o->n = 0;
	o->end = 0;
	if (o->max > LT_PYSTK_MAX_RAW)
		o->max = LT_PYSTK_MAX_RAW;
	if (!v) {
		raw_end(o, LT_PYRAW_UNREADABLE, f);
		return;
	}
	if (l->frames == PYL_FRAME_OBJECT)
		raw_objects(e, l, f, o, v);
	else
		raw_interp(e, l, minor, f, o, v);
	free(v);
}

/* The raw chain as functions and lines, pushed onto w->t. */
static void resolve(struct walk *w, const struct lt_pyraw_stack *o)
{
	const struct pyl *l = w->m->l;
	size_t i = 0;
	for (; i < o->n && !lt_budget_over(); i++) {
		const struct lt_pyraw *r = &o->f[i];
		if (r->flags & LT_PYRAW_BOUNDARY) {
			end_group(w);
			continue;
		}
		const struct code *c = code_get(w->m, r->code);
		if (!c) {
			/* 3.13's f_executable may be something else than code (None):
			 * such a frame runs no Python code; from 3.11 to 3.12 it is
			 * always a code object */
			if (w->m->id.minor >= 13 && r->code && w->m->r.t_code &&
			    pyr_type(&w->m->r, r->code) != w->m->r.t_code)
				continue;
			w->t->rt_end = lts_asprintf("frame 0x%" PRIx64 ": no readable code object", r->frame);
			return;
		}
		int line;
		if (l->frames == PYL_FRAME_OBJECT) {
			line = r->lineno ? r->lineno : line_at(l, c, (int)r->addr);
		} else {
			/* a frame still in its prologue (not yet at RESUME) is not shown */
			if (!(r->flags & LT_PYRAW_GEN) && c->firsttraceable >= 0 &&
			    r->addr < (int64_t)c->firsttraceable * 2) {
				if (r->flags & LT_PYRAW_ENTRY)
					end_group(w);
				continue;
			}
			line = r->addr < INT32_MAX && r->addr > -0x1000000 ? line_at(l, c, (int)r->addr) : 0;
		}
		if (!push(w, c, line, r->locals)) {
			if (!w->t->rt_end)
				w->t->rt_end = lts_asprintf("deeper than %d Python frames: the outer ones "
							    "are not read", MAX_FRAMES);
			return;
		}
		if (r->flags & LT_PYRAW_ENTRY)
			end_group(w);
	}
	if (w->t->rt_end || lt_budget_over())
		return;
	if (o->end == LT_PYRAW_LOOP)
		w->t->rt_end = lts_asprintf("the frame list loops back to frame 0x%" PRIx64
					    " (a cycle in the process's memory): not read further", o->end_at);
	else if (o->end == LT_PYRAW_DEEP)
		w->t->rt_end = lts_asprintf("deeper than %d Python frames: the outer ones are not read",
					    MAX_FRAMES);
	else if (o->end == LT_PYRAW_CUT)
		w->t->rt_end = lts_asprintf("the copy at the wake-up holds the %zu innermost Python "
					    "frames: the outer ones are not read", o->n);
	else if (o->end == LT_PYRAW_UNREADABLE)
		w->t->rt_end = lts_asprintf("frame 0x%" PRIx64 " unreadable", o->end_at);
}

static void walk_frames(struct walk *w, uint64_t ts)
{
	struct lt_pyraw_stack o = { .f = calloc(2 * MAX_FRAMES, sizeof(struct lt_pyraw)),
				    .max = 2 * MAX_FRAMES };
	if (!o.f)
		return;
	if (w->m->l->frames == PYL_FRAME_OBJECT)
		o.max = MAX_FRAMES;
	pyraw_walk(w->m->e, w->m->l, w->m->id.minor, ts, &o);
	resolve(w, &o);
	free(o.f);
}

static bool is_eval_loop(const char *func)
{
	static const char loop[] = "_PyEval_EvalFrameDefault";
	size_t n = sizeof(loop) - 1;
	return strncmp(func, loop, n) == 0 && (!func[n] || func[n] == '.' || func[n] == '@');
}

/* ---- threading.Lock and RLock a thread waits on ---- */

/* 1 Lock, 2 RLock, 0 anything else, by its type's tp_name (cached). */
static int lock_kind(struct model *m, uint64_t obj)
{
	uint64_t type = pyr_type(&m->r, obj);
	char name[32] = "";
	if (!type)
		return 0;
	if (type == m->lock_type)
		return 1;
	if (type == m->rlock_type)
		return 2;
	for (size_t i = 0; i < m->n_not_lock && i < 16; i++)
		if (m->not_lock[i] == type)
			return 0;
	if (pyr_type_name(&m->r, type, name, sizeof(name)) == 0 && !strcmp(name, "_thread.lock")) {
		m->lock_type = type;
		return 1;
	}
	if (!strcmp(name, "_thread.RLock")) {
		m->rlock_type = type;
		return 2;
	}
	m->not_lock[m->n_not_lock++ % 16] = type;
	return 0;
}

/* An RLock records its owner's pthread_t (*IDENT, 0: none) and its
 * recursion count (*COUNT): the owner's tid, 0 if none or no thread of
 * this process. */
static pid_t rlock_read(struct model *m, uint64_t obj, uint64_t *ident, uint64_t *count)
{
	*ident = u64(m, obj + RLOCK_OWNER);
	*count = u64(m, obj + RLOCK_COUNT);
	return *ident ? lt_cpy_tid_of_pthread(m->e, *ident, NULL) : 0;
}

static void rlock_owner(struct model *m, struct lt_thread *t, uint64_t obj, char *state, size_t len)
{
	uint64_t ident, count;
	pid_t tid = rlock_read(m, obj, &ident, &count);
	size_t o = strlen(state);
	if (!ident)
		snprintf(state + o, len - o, "; no owner recorded");
	else if (!tid) {
		snprintf(state + o, len - o, "; owner pthread 0x%" PRIx64 " is no thread of this process",
			 ident);
		/* an RLock is this process's object: copied locked by fork(),
		 * or its owner exited (forkorigin.c names the first) */
		t->futex.owner_gone = true;
		t->futex.gone_ptr = ident;
		t->futex.gone_tid = lt_cpy_pthread_tid(m->e, ident);
	}
	else
		snprintf(state + o, len - o, "; owner thread %d, count %" PRIu64, (int)tid, count);
	if (tid && tid != t->tid) {
		t->futex.owner = tid;
		t->futex.owner_kind = LT_OWNER_RUNTIME;
	}
}

static void name_lock(struct model *m, struct lt_thread *t, uint64_t obj, int kind,
		      const char *var)
{
	struct lt_futex *f = &t->futex;
	char state[256];
	snprintf(state, sizeof(state), "its %s: %s", f->lock_kind ? f->lock_kind : "futex",
		 f->lock_state ? f->lock_state : "state unknown");
	if (kind == 2)
		rlock_owner(m, t, obj, state, sizeof(state));
	free(f->lock_state);
	f->lock_state = lts_strdup(state);
	f->lock_kind = kind == 1 ? "threading.Lock" : "threading.RLock";
	f->lock_base = obj;
	free(f->lock_name);
	f->lock_name = var && var[0] ? lts_strdup(var) : NULL;
}

/* threading.Condition.wait() blocks on a fresh lock of its own ('waiter')
 * until notify() releases it: an event, not a lock (Event.wait, Queue.get
 * and most pools park there). */
static bool condition_wait(const struct lt_thread *t, const char *var)
{
	const struct lt_rtframe *r = &t->rt_frames[0];
	const char *base = r->file ? strrchr(r->file, '/') : NULL;
	return var && !strcmp(var, "waiter") && r->func && base && !strcmp(base, "/threading.py") &&
	       (!strcmp(r->func, "Condition.wait") || !strcmp(r->func, "wait"));
}

/* A Condition's lock (its '_lock': an RLock unless the program gave it
 * another): notify() raises unless its caller holds it, so while a thread
 * holds it no notify() can come but from that thread.  An RLock records its
 * owner: that thread becomes the waiter's other end (LT_OWNER_COND); a Lock
 * records none, said so. */
static void condition_lock(struct model *m, struct lt_thread *t, uint64_t cond)
{
	struct lt_futex *f = &t->futex;
	uint64_t lk = 0;
	if (!cond || !m->dicts_ok || pyr_attr(&m->r, cond, "_lock", &lk) < 0 || !lk)
		return;
	int kind = lock_kind(m, lk);
	char *st = NULL;
	if (kind == 1) {
		st = lts_asprintf("%s; its lock, a threading.Lock at 0x%" PRIx64 ", records no owner",
				  f->lock_state, lk);
	} else if (kind == 2) {
		uint64_t ident, count;
		pid_t tid = rlock_read(m, lk, &ident, &count);
		const struct lt_thread *o = tid ? lt_snapshot_find(m->s, tid) : NULL;
		/* the holder is the wait's other end only if it keeps the lock
		 * (lt_rt_keeps: asleep in a call for a while, not waiting for
		 * the GIL), and the owner read again the same */
		bool keeps = lt_rt_keeps(o) && u64(m, lk + RLOCK_OWNER) == ident;
		if (!ident)
			st = lts_asprintf("%s; its lock, an RLock at 0x%" PRIx64 ", is free: a notify() "
					  "can come from any thread", f->lock_state, lk);
		else if (!tid)
			st = lts_asprintf("%s; its lock, an RLock at 0x%" PRIx64 ", is held by pthread "
					  "0x%" PRIx64 ", no thread of this process: no notify() can come",
					  f->lock_state, lk, ident);
		else if (tid == t->tid)
			st = lts_asprintf("%s; its lock, an RLock at 0x%" PRIx64 ", is held by this thread "
					  "itself (count %" PRIu64 ")", f->lock_state, lk, count);
		else if (!keeps)
			st = lts_asprintf("%s; its lock, an RLock at 0x%" PRIx64 ", was held by thread %d "
					  "(count %" PRIu64 ") when read, a thread not asleep in a call for "
					  "%.1f s or more (running, waiting for the GIL, or just asleep): perhaps "
					  "for a moment (to notify), not taken as the wait's other end",
					  f->lock_state, lk, (int)tid, count, LT_RT_KEEPS_S);
		else {
			st = lts_asprintf("%s; its lock, an RLock at 0x%" PRIx64 ", is held by thread %d "
					  "(count %" PRIu64 "), asleep in a call: no notify() can come but "
					  "from that thread, or after it releases the lock", f->lock_state, lk,
					  (int)tid, count);
			f->owner = tid;
			f->owner_kind = LT_OWNER_COND;
		}
	}
	if (st) {
		free(f->lock_state);
		f->lock_state = st;
	}
}

/* The wait is for the Condition (the frame's 'self'), the thread acquires
 * nothing: the verdicts count it with condition variables, or, when the
 * Condition's lock is held (condition_lock), as waiting on its holder. */
static void name_condition(struct model *m, const struct ts *x)
{
	struct lt_thread *t = x->t;
	struct lt_futex *f = &t->futex;
	uint64_t self = 0;
	char *st = lts_asprintf("waits in Condition.wait() for a notify(), on its own waiter lock (%s)",
				f->lock_state ? f->lock_state : "?");
	if (m->e->read(m->e->arg, x->locals[0], &self, 8) < 0)
		self = 0;
	f->lock_kind = "threading.Condition";
	f->lock_base = self ? self : f->lock_base;
	free(f->lock_name);
	f->lock_name = NULL;
	free(f->lock_state);
	f->lock_state = st;
	t->acquire = NULL;
	condition_lock(m, t, self);
}

/* The object a bound builtin method __exit__ is bound to (m_self), 0 if
 * OBJ is no such method: what `with x:` leaves on the evaluation stack
 * for the whole block (and while x.__enter__() runs). */
static uint64_t exit_self(struct model *m, uint64_t obj)
{
	uint64_t type = obj ? pyr_type(&m->r, obj) : 0;
	char tn[40] = "", mn[16] = "";
	if (!type)
		return 0;
	if (type != m->meth_type) {
		if (m->meth_type || pyr_type_name(&m->r, type, tn, sizeof(tn)) < 0 ||
		    strcmp(tn, "builtin_function_or_method"))
			return 0;
		m->meth_type = type;
	}
	uint64_t ml = u64(m, obj + 16); /* PyCFunctionObject.m_ml, m_self */
	if (!ml || lt_lm_read_str(m->e, u64(m, ml), mn, sizeof(mn)) < 0 || strcmp(mn, "__exit__"))
		return 0;
	return u64(m, obj + 24);
}

/* Thread.join() up to 3.12 acquires the joined thread's _tstate_lock,
 * which that thread holds until it exits: a join, not a lock wait. */
static bool join_wait(const struct lt_thread *t, const char *var)
{
	const struct lt_rtframe *r = &t->rt_frames[0];
	const char *base = r->file ? strrchr(r->file, '/') : NULL;
	return var && !strcmp(var, "lock") && r->func && base && !strcmp(base, "/threading.py") &&
	       (!strcmp(r->func, "Thread._wait_for_tstate_lock") || !strcmp(r->func, "_wait_for_tstate_lock"));
}

/* The joined thread: the frame's 'self', a Thread, and its _native_id
 * (3.8+, Linux). */
static void name_join(struct model *m, const struct ts *x)
{
	struct lt_thread *t = x->t;
	struct lt_futex *f = &t->futex;
	uint64_t self = 0, nid = 0, id = 0;
	if (m->e->read(m->e->arg, x->locals[0], &self, 8) < 0)
		self = 0;
	pid_t tid = 0;
	if (self && m->dicts_ok && pyr_attr(&m->r, self, "_native_id", &nid) == 0 && pyr_long(&m->r, nid, &id) == 0 &&
	    lt_cpy_is_thread(m->e, (pid_t)id))
		tid = (pid_t)id;
	f->lock_kind = LT_KIND_PY_JOIN;
	f->owner_kind = LT_OWNER_JOIN;
	f->owner = tid;
	char who[16] = "?";
	if (tid)
		snprintf(who, sizeof(who), "%d", (int)tid);
	char *st = lts_asprintf("waits in Thread.join() for thread %s to exit (its wait: %s)",
				who, f->lock_state ? f->lock_state : "?");
	free(f->lock_state);
	f->lock_state = st;
	t->acquire = NULL;
}

/* Frame K of T is FUNC ("Condition.wait", or "wait" before 3.11's
 * qualified names) of multiprocessing/synchronize.py? */
static bool mp_frame(const struct lt_thread *t, size_t k, const char *cls, const char *func)
{
	if (k >= t->n_rt_frames)
		return false;
	const struct lt_rtframe *r = &t->rt_frames[k];
	size_t fl = r->file ? strlen(r->file) : 0, cl = strlen(cls), nl = strlen(func);
	static const char sync[] = "/multiprocessing/synchronize.py";
	if (!r->func || fl < sizeof(sync) - 1 || strcmp(r->file + fl - (sizeof(sync) - 1), sync))
		return false;
	return !strcmp(r->func, func) ||
	       (strlen(r->func) == cl + 1 + nl && !strncmp(r->func, cls, cl) && r->func[cl] == '.' &&
		!strcmp(r->func + cl + 1, func));
}

/* multiprocessing's Condition.wait() asleep on its _wait_semaphore (a
 * SemLock in shared memory): a wait for a notify() (Event.set(), the last
 * party of a Barrier) from any thread of a process mapping it, not a lock
 * (before: a lock wait "whose holder is not recorded", also in healthy
 * programs whose setter slept on a timer).  Only that semaphore: the same
 * frame re-takes the Condition's lock once notified (its `finally`), a lock
 * wait like any (a review).  SELF is the frame's self, read. */
static bool mp_condition(struct model *m, struct lt_thread *t, uint64_t self)
{
	struct lt_futex *f = &t->futex;
	if (!f->lock_kind || strcmp(f->lock_kind, "semaphore") || !mp_frame(t, 0, "Condition", "wait"))
		return false;
	uint64_t ws = 0, sl = 0, handle = 0;
	if (!self || !m->dicts_ok || pyr_attr(&m->r, self, "_wait_semaphore", &ws) < 0 || !ws ||
	    pyr_attr(&m->r, ws, "_semlock", &sl) < 0 || !sl ||
	    m->e->read(m->e->arg, sl + SEMLOCK_HANDLE, &handle, 8) < 0 ||
	    (handle != f->uaddr && handle != f->lock_base))
		return false;
	/* Barrier.wait() waits in Condition.wait_for() under Barrier._wait()
	 * (threading.py: a Barrier made with multiprocessing's Condition) */
	bool barrier = false;
	for (size_t k = 1; k < t->n_rt_frames && k < 5 && !barrier; k++) {
		const struct lt_rtframe *r = &t->rt_frames[k];
		const char *base = r->file ? strrchr(r->file, '/') : NULL;
		barrier = r->func && base && !strcmp(base, "/threading.py") &&
			  (!strcmp(r->func, "Barrier._wait") || !strcmp(r->func, "_wait"));
	}
	const char *via = mp_frame(t, 1, "Event", "wait") ? "Event.wait() for a set()"
			  : barrier ? "Barrier.wait() for the other parties" : "Condition.wait() for a notify()";
	char *st = lts_asprintf("waits in multiprocessing %s, on the Condition's semaphore in shared memory, which "
				"a thread of any process mapping it may post (%s)", via,
				f->lock_state ? f->lock_state : "?");
	f->lock_kind = LT_KIND_PY_MP_COND;
	free(f->lock_state);
	f->lock_state = st;
	t->acquire = NULL;
	return true;
}

/* The Lock whose semaphore X's thread sleeps on, among its innermost
 * frame's local variables and evaluation stack. */
static void find_lock(struct model *m, const struct ts *x)
{
	struct lt_thread *t = x->t;
	const struct lt_futex *f = &t->futex;
	const struct code *c = t->n_rt_frames ? code_get(m, x->codes[0]) : NULL;
	uint64_t slots[MAX_SLOTS];
	if (!c || t->wait != LT_WAIT_FUTEX || !f->is_wait || f->rtlock)
		return;
	uint64_t self0 = 0;
	if (mp_frame(t, 0, "Condition", "wait") && m->e->read(m->e->arg, x->locals[0], &self0, 8) < 0)
		self0 = 0;
	if (mp_condition(m, t, self0))
		return;
	uint64_t sem = f->lock_base ? f->lock_base : f->uaddr;
	size_t n = c->nlocals + (size_t)(c->stacksize > 0 ? c->stacksize : 0) + 8;
	if (n > MAX_SLOTS)
		n = MAX_SLOTS;
	while (n && m->e->read(m->e->arg, x->locals[0], slots, n * 8) < 0)
		n /= 2;
	for (size_t i = 0; i < n; i++) {
		int kind = slots[i] ? lock_kind(m, slots[i]) : 0;
		if (!kind && i >= c->nlocals && slots[i]) {
			/* `with lock:` waits in lock.__enter__() with the lock's
			 * __exit__ on the stack (the lock itself is popped) */
			uint64_t self = exit_self(m, slots[i]);
			kind = self ? lock_kind(m, self) : 0;
			if (kind && u64(m, self + LOCK_SEM) == sem) {
				name_lock(m, t, self, kind, NULL);
				return;
			}
			continue;
		}
		if (!kind || u64(m, slots[i] + LOCK_SEM) != sem)
			continue;
		char var[128] = "";
		uint64_t name;
		if (i < c->nlocals && pyr_tuple_item(&m->r, c->names, i, &name) == 0)
			pyr_str(&m->r, name, var, sizeof(var));
		name_lock(m, t, slots[i], kind, var);
		if (kind == 1 && condition_wait(t, var))
			name_condition(m, x);
		else if (kind == 1 && join_wait(t, var))
			name_join(m, x);
		return;
	}
	/* 3.13+: Thread.join() waits in _ThreadHandle.join(), parked in C
	 * on a semaphore of its own, no Lock in sight */
	const struct lt_rtframe *r = &t->rt_frames[0];
	const char *base = r->file ? strrchr(r->file, '/') : NULL;
	if ((!f->lock_kind || !strcmp(f->lock_kind, "semaphore")) && r->func && base &&
	    !strcmp(base, "/threading.py") && !strcmp(r->func, "Thread.join"))
		name_join(m, x);
}

static bool our_lock(const struct lt_futex *f)
{
	return f->lock_kind && (!strcmp(f->lock_kind, "threading.Lock") ||
				!strcmp(f->lock_kind, "threading.RLock"));
}

/* A lock threads wait for, and the other threads keeping it. */
struct want {
	uint64_t obj;
	char refs[1024];
	size_t len, found;
	const struct ts *last;   /* the thread named last: once per thread */
	/* who holds it, inferred (a Lock records no holder): the threads
	 * inside a `with` block on it (its __exit__ on a frame's evaluation
	 * stack), else those keeping it in a local variable */
	const struct ts *with_ts, *local_ts;
	size_t with_n, local_n;
	char with_how[256], local_how[256];
};

#define MAX_WANTS 16
#define MAX_REFS 4
#define REF_FRAMES 8192      /* frames whose locals the scan reads, at most */

/* Slot I of frame K of X holds a lock some thread waits for: name X. */
static void ref_one(struct model *m, struct want *w, const struct ts *x, size_t k,
		    const struct code *c, size_t i)
{
	char var[128] = "";
	uint64_t name;
	bool waits = our_lock(&x->t->futex) && x->t->futex.lock_base == w->obj;
	if (waits || w->last == x || w->found == MAX_REFS || w->len >= sizeof(w->refs))
		return; /* its waiters keep it too, and hold it no more for that */
	if (pyr_tuple_item(&m->r, c->names, i, &name) < 0 || pyr_str(&m->r, name, var, sizeof(var)) < 0)
		return;
	const struct lt_rtframe *r = &x->t->rt_frames[k];
	w->len += (size_t)snprintf(w->refs + w->len, sizeof(w->refs) - w->len,
				   "%sthread %d (%s) has it in '%s' of %s (%s:%d)", w->found ? ", " : "",
				   (int)x->t->tid, lt_thread_name(x->t), var, r->func, r->file, r->line);
	w->found++;
	w->last = x;
}

/* Frame K of X keeps W's lock: in a `with` block on it (WITH), or in
 * local variable I.  Waiters on it are no candidates. */
static void holder_one(struct model *m, struct want *w, const struct ts *x, size_t k,
		       const struct code *c, size_t i, bool with)
{
	if (our_lock(&x->t->futex) && x->t->futex.lock_base == w->obj)
		return;
	const struct ts **who = with ? &w->with_ts : &w->local_ts;
	size_t *cnt = with ? &w->with_n : &w->local_n;
	char *how = with ? w->with_how : w->local_how;
	if (*who == x)
		return; /* one thread, counted once */
	*who = x;
	if ((*cnt)++)
		return; /* two threads: nobody is named */
	char var[128] = "";
	uint64_t name;
	if (i < c->nlocals && (pyr_tuple_item(&m->r, c->names, i, &name) < 0 ||
			       pyr_str(&m->r, name, var, sizeof(var)) < 0))
		var[0] = 0;
	const struct lt_rtframe *r = &x->t->rt_frames[k];
	if (with)
		snprintf(how, 256, "is inside a `with` block on it (its __exit__ is on the evaluation stack "
			 "of %s (%s:%d))", r->func ? r->func : "?", r->file ? r->file : "?", r->line);
	else
		snprintf(how, 256, "keeps it in local variable '%s' of %s (%s:%d), outside any wait on it",
			 var, r->func ? r->func : "?", r->file ? r->file : "?", r->line);
}

/* Is OBJ a bound builtin method __exit__ of a lock waited for in W?  What
 * `with lock:` leaves on the evaluation stack for the whole block. */
static struct want *exit_of(struct model *m, uint64_t obj, struct want *w, size_t nw)
{
	uint64_t self = obj ? u64(m, obj + 24) : 0; /* PyCFunctionObject.m_self */
	struct want *hit = NULL;
	for (size_t q = 0; self && q < nw && !hit; q++)
		if (w[q].obj == self)
			hit = &w[q];
	return hit && exit_self(m, obj) == self ? hit : NULL;
}

/* Every frame's local variables and evaluation stack, read once, against
 * the locks waited for; false when the budget ran out first. */
static bool scan_refs(struct model *m, const struct ts *v, size_t n, struct want *w, size_t nw)
{
	uint64_t slots[MAX_SLOTS];
	size_t budget = REF_FRAMES;
	for (size_t j = 0; j < n; j++)
		for (size_t k = 0; v[j].locals && k < v[j].t->n_rt_frames && budget; k++, budget--) {
			const struct code *c = code_get(m, v[j].codes[k]);
			size_t nl = c && c->nlocals < MAX_SLOTS ? c->nlocals : c ? MAX_SLOTS : 0;
			size_t ns = c ? nl + (size_t)(c->stacksize > 0 ? c->stacksize : 0) : 0;
			if (ns > MAX_SLOTS)
				ns = MAX_SLOTS;
			while (ns > nl && m->e->read(m->e->arg, v[j].locals[k], slots, ns * 8) < 0)
				ns = nl + (ns - nl) / 2;
			if (!ns || m->e->read(m->e->arg, v[j].locals[k], slots, ns * 8) < 0)
				continue;
			for (size_t i = 0; i < nl; i++)
				for (size_t q = 0; q < nw; q++)
					if (slots[i] == w[q].obj) {
						ref_one(m, &w[q], &v[j], k, c, i);
						holder_one(m, &w[q], &v[j], k, c, i, false);
					}
			/* the value stack: slots above its top may be stale, but
			 * a stale __exit__ of this very lock, still a bound
			 * method, in a thread not waiting on it, is the with
			 * block it has not left (the inference says so) */
			for (size_t i = nl; i < ns; i++) {
				struct want *hit = slots[i] ? exit_of(m, slots[i], w, nw) : NULL;
				if (hit)
					holder_one(m, hit, &v[j], k, c, i, true);
			}
		}
	return budget > 0;
}

/* The holder of each waited-for threading.Lock, inferred: the one thread
 * in a `with` block on it, else the one keeping it in a local variable. */
static void infer_holders(const struct ts *v, size_t n, const struct want *w, size_t nw)
{
	for (size_t q = 0; q < nw; q++) {
		const struct ts *h = w[q].with_n == 1 ? w[q].with_ts :
				     w[q].with_n == 0 && w[q].local_n == 1 ? w[q].local_ts : NULL;
		const char *how = w[q].with_n == 1 ? w[q].with_how : w[q].local_how;
		for (size_t i = 0; h && i < n; i++) {
			struct lt_futex *f = &v[i].t->futex;
			if (f->lock_base != w[q].obj || !f->lock_kind || strcmp(f->lock_kind, "threading.Lock") ||
			    f->owner_kind >= LT_OWNER_MUTEX || v[i].t == h->t)
				continue;
			f->owner_kind = LT_OWNER_INFERRED;
			f->owner = h->t->tid;
			free(f->owner_how);
			f->owner_how = lts_strdup(how);
		}
	}
}

/* Other threads whose frames keep the locks threads wait for in a local
 * variable: not proof of holding them (a Lock records no holder), but
 * where to look.  Appended to each lock's state. */
static void lock_refs(struct model *m, const struct ts *v, size_t n)
{
	struct want *w = calloc(MAX_WANTS, sizeof(*w));
	size_t nw = 0;
	if (!w)
		return;
	for (size_t i = 0; i < n && nw < MAX_WANTS; i++) {
		const struct lt_futex *f = &v[i].t->futex;
		bool seen = false;
		for (size_t q = 0; q < nw; q++)
			seen |= w[q].obj == f->lock_base;
		if (v[i].locals && our_lock(f) && !seen)
			w[nw++].obj = f->lock_base;
	}
	if (nw && !scan_refs(m, v, n, w, nw))
		lt_strlist_add(&m->s->notes, "%s: the threads keeping the Python locks waited for were "
			       "looked for in the first %d frames only", m->id.version, REF_FRAMES);
	infer_holders(v, n, w, nw);
	for (size_t i = 0; i < n; i++) {
		struct lt_futex *f = &v[i].t->futex;
		for (size_t q = 0; q < nw && our_lock(f); q++) {
			char *st = w[q].obj == f->lock_base && w[q].found
				   ? lts_asprintf("%s; %s", f->lock_state ? f->lock_state : "", w[q].refs) : NULL;
			if (st) {
				free(f->lock_state);
				f->lock_state = st;
			}
		}
	}
	free(w);
}

/* ---- threads ---- */

static struct lt_thread *thread_of(struct model *m, uint64_t ts, uint64_t *ident)
{
	const struct pyl *l = m->l;
	*ident = u64(m, ts + l->ts_pthread);
	pid_t tid = l->ts_native ? (pid_t)u64(m, ts + l->ts_native) : 0;
	if (!lt_cpy_is_thread(m->e, tid))
		tid = lt_cpy_tid_of_pthread(m->e, *ident, NULL);
	return tid ? lt_snapshot_find(m->s, tid) : NULL;
}

static void read_thread(struct model *m, uint64_t ts, struct ts *x)
{
	struct lt_thread *t = x->t;
	struct walk *w = calloc(1, sizeof(*w));
	if (!w)
		return;
	w->m = m;
	w->t = t;
	t->rt_lang = "python";
	walk_frames(w, ts);
	lt_rt_place(t, w->groups, is_eval_loop);
	size_t n = t->n_rt_frames;
	x->locals = malloc((n ? n : 1) * sizeof(*x->locals));
	x->codes = malloc((n ? n : 1) * sizeof(*x->codes));
	if (x->locals && x->codes) {
		memcpy(x->locals, w->locals, n * sizeof(*x->locals));
		memcpy(x->codes, w->codes, n * sizeof(*x->codes));
	} else {
		t->n_rt_frames = 0; /* no memory: nothing half-done */
	}
	free(w);
}

/* The threading locks the threads of V wait for, and who else keeps them. */
static void python_locks(struct model *m, struct ts *v, size_t n)
{
	if (m->id.minor > 13)
		return; /* lockobject's layout is known up to 3.13 */
	for (size_t i = 0; i < n; i++)
		if (v[i].locals)
			find_lock(m, &v[i]);
	lock_refs(m, v, n);
}

/* ---- a child polled for: subprocess's Popen._wait ---- */

/* The value of local variable NAME of frame K of X; 0, or -1 (not found,
 * unset, unreadable). */
static int local_named(struct model *m, const struct ts *x, size_t k, const char *name, uint64_t *val)
{
	const struct code *c = code_get(m, x->codes[k]);
	if (!c || !x->locals[k])
		return -1;
	for (size_t i = 0; i < c->nlocals && i < MAX_SLOTS; i++) {
		uint64_t nm;
		if (pyr_tuple_item(&m->r, c->names, i, &nm) < 0 || !pyr_str_eq(&m->r, nm, name))
			continue;
		*val = u64(m, x->locals[k] + 8 * i);
		return *val ? 0 : -1;
	}
	return -1;
}

/* Popen.wait(timeout) polls waitpid(WNOHANG) between sleeps in
 * Popen._wait (waitfor.c says the wait is for the child): the Popen's pid
 * (self.pid), the timeout it was given and its deadline (endtime, in
 * time.monotonic()'s seconds), read from that frame's locals. */
static void popen_poll(struct model *m, const struct ts *x)
{
	struct lt_thread *t = x->t;
	/* Popen.communicate(timeout=...) polls the child's pipes (a
	 * selector's poll, under Popen._communicate) with what is left of
	 * its timeout: endtime and orig_timeout in that frame's locals */
	bool pipes = t->wait == LT_WAIT_POLL && t->fdw.n_fds && t->fdw.has_timeout;
	if (t->wait != LT_WAIT_SLEEP && !(t->wait == LT_WAIT_POLL && !t->fdw.n_fds) && !pipes)
		return;
	for (size_t k = 0; k < t->n_rt_frames && k < (pipes ? 3u : 2u); k++) {
		const struct lt_rtframe *r = &t->rt_frames[k];
		const char *base = r->file ? strrchr(r->file, '/') : NULL;
		if (!r->func || !base || strcmp(base, "/subprocess.py"))
			continue;
		if (pipes ? strcmp(r->func, "Popen._communicate") && strcmp(r->func, "_communicate")
			  : strcmp(r->func, "Popen._wait") && strcmp(r->func, "_wait"))
			continue;
		t->poll_wait = true;
		t->poll_pipes = pipes;
		t->poll_frame = (unsigned char)k;
		uint64_t self, pid, v, n;
		double d;
		if (!local_named(m, x, k, "self", &self) && !pyr_attr(&m->r, self, "pid", &pid) &&
		    !pyr_long(&m->r, pid, &n) && n > 0 && n < INT32_MAX)
			t->poll_child = (pid_t)n;
		if (!local_named(m, x, k, pipes ? "orig_timeout" : "timeout", &v) && !pyr_number(&m->r, v, &d) &&
		    d > 0)
			t->poll_timeout_s = d;
		if (!local_named(m, x, k, "endtime", &v) && !pyr_number(&m->r, v, &d) && d > 0)
			t->poll_deadline_s = d;
		return;
	}
}

/* multiprocessing: a Process's join() (Popen.wait) with the forkserver
 * start method (Python 3.14's default on Linux) waits in
 * multiprocessing.connection.wait() for the Popen's sentinel to become
 * readable: popen_forkserver.Popen.poll (or popen_fork.Popen.wait with a
 * timeout) calls it, with self.pid the Process's pid and self.sentinel
 * the fd of a pipe whose write end the forkserver keeps, and writes the
 * Process's exit status to when it has reaped it.  Read here: which
 * process's exit ends the wait (waitfor.c makes the sentinel's edge so). */
static void mp_sentinel_wait(struct model *m, const struct ts *x)
{
	struct lt_thread *t = x->t;
	if (t->wait != LT_WAIT_POLL || !t->fdw.n_fds)
		return;
	for (size_t k = 0; k < t->n_rt_frames && k < 5; k++) {
		const struct lt_rtframe *r = &t->rt_frames[k];
		const char *base = r->file ? strrchr(r->file, '/') : NULL;
		const char *dot = r->func ? strrchr(r->func, '.') : NULL;
		const char *fn = dot ? dot + 1 : r->func;
		if (!fn || !base ||
		    !((!strcmp(base, "/popen_forkserver.py") && !strcmp(fn, "poll")) ||
		      (!strcmp(base, "/popen_fork.py") && !strcmp(fn, "wait"))))
			continue;
		uint64_t self, pid, fd, n, s;
		if (local_named(m, x, k, "self", &self) || pyr_attr(&m->r, self, "pid", &pid) ||
		    pyr_long(&m->r, pid, &n) || n == 0 || n >= INT32_MAX ||
		    pyr_attr(&m->r, self, "sentinel", &fd) || pyr_long(&m->r, fd, &s) || s >= 1u << 20)
			return;
		t->mp_child = (pid_t)n;
		t->mp_sentinel = (int)s;
		t->mp_frame = (unsigned char)k;
		return;
	}
}

/* ---- concurrent.futures: a thread in Future.result() ----
 *
 * Future.result() and Future.exception() (concurrent/futures/_base.py)
 * wait in self._condition.wait() until the Future's state is FINISHED or
 * CANCELLED.  A ThreadPoolExecutor runs each task in _WorkItem.run
 * (concurrent/futures/thread.py) on one of its _worker threads, the
 * _WorkItem's `future` being the task's Future; that thread's
 * set_result() or set_exception() at the task's end wakes the waiters.  So
 * while the Future is RUNNING, the thread whose _WorkItem.run frame has it
 * as self.future is the wait's other end (a runtime lock held by it, the
 * way Java's FutureTask.get() is modelled: inferred, since a set_result()
 * may come from any thread); while it is PENDING and every worker thread
 * of the process runs a task and is blocked, the task is probably starved
 * (inferred: which executor's queue holds it is not read). */

#define FUT_KIND LT_KIND_PY_FUTURE
#define FUT_NAMED 4 /* worker threads named in a starvation */

static bool py_frame(const struct lt_rtframe *r, const char *file, const char *qual, const char *name)
{
	size_t fl = strlen(file), n = r->file ? strlen(r->file) : 0;
	return r->func && n >= fl && !strcmp(r->file + n - fl, file) && (!strcmp(r->func, qual) || !strcmp(r->func, name));
}

/* What one thread does for a ThreadPoolExecutor: the Future of the task it
 * runs (its _WorkItem.run frame's self.future), where, and whether it is a
 * worker at all, idle in its work queue's get(). */
struct fut_th {
	uint64_t future;
	size_t run_k;
	bool worker, idle;
	bool keeps; /* lt_rt_keeps, read before any wait here is claimed
		       (a claimed one would not keep) */
};

static void fut_thread(struct model *m, const struct ts *x, struct fut_th *o)
{
	const struct lt_thread *t = x->t;
	*o = (struct fut_th){ 0 };
	for (size_t k = 0; k < t->n_rt_frames; k++) {
		const struct lt_rtframe *r = &t->rt_frames[k];
		uint64_t wi = 0, fu = 0;
		if (py_frame(r, "/concurrent/futures/thread.py", "_worker", "_worker")) {
			o->worker = true;
			o->idle = k == 0; /* in work_queue.get(), a C call */
			return;
		}
		if (!o->future && py_frame(r, "/concurrent/futures/thread.py", "_WorkItem.run", "run") &&
		    !local_named(m, x, k, "self", &wi) && !pyr_attr(&m->r, wi, "future", &fu) && fu) {
			o->future = fu;
			o->run_k = k;
		}
	}
}

static int fut_state(struct model *m, uint64_t fut, char *buf, size_t len)
{
	uint64_t st = 0;
	buf[0] = 0;
	return pyr_attr(&m->r, fut, "_state", &st) < 0 || !st ? -1 : pyr_str(&m->r, st, buf, len);
}

/* The lock of KIND (a done-wait's) at BASE (a Future, a _Waiter), named
 * NAME (NULL: the Future's), for the waits held by HOLDER (0: none; then
 * holderless), made once; HOW and NAME are taken.  1 + its index, 0 when
 * out of memory. */
static size_t done_lock_of(struct model *m, const char *kind, uint64_t base, char *name, pid_t holder,
			   const char *wait_call, char *how)
{
	struct lt_snapshot *s = m->s;
	for (size_t k = 0; k < s->n_rtlocks; k++)
		if (s->rtlocks[k].kind && !strcmp(s->rtlocks[k].kind, kind) && s->rtlocks[k].base == base &&
		    s->rtlocks[k].holder == holder) {
			free(how);
			free(name);
			return k + 1;
		}
	struct lt_rtlock *l = lt_rtlock_push(&s->rtlocks, &s->n_rtlocks);
	if (!l) {
		free(how);
		free(name);
		return 0;
	}
	l->model = "cpython";
	l->kind = kind;
	l->name = name ? name : lts_asprintf("concurrent.futures.Future at 0x%" PRIx64, base);
	l->version = lts_strdup(m->id.version);
	l->base = base;
	l->size = 0; /* the waiters sleep on waiter locks of their own */
	l->waiters = -1;
	l->waiters_named = true; /* by their frames */
	l->wait_call = wait_call;
	l->holder_how = how;
	if (holder) {
		l->held = 1;
		l->holder = holder;
	} else {
		l->held = -1;
		l->holderless = true;
	}
	return s->n_rtlocks;
}

/* X's wait becomes a wait for runtime lock LI (1-based), as a lock
 * model's claim does (models.c). */
static void fut_claim(struct model *m, const struct ts *x, size_t li)
{
	struct lt_futex *f = &x->t->futex;
	const struct lt_rtlock *l = &m->s->rtlocks[li - 1];
	char *st = lts_asprintf("its %s: %s", f->lock_kind, f->lock_state ? f->lock_state : "?");
	free(f->lock_state);
	f->lock_state = st;
	f->lock_kind = l->kind;
	f->lock_base = l->base;
	free(f->lock_name);
	f->lock_name = lts_strdup(l->name);
	f->rtlock = (unsigned)li;
	f->owner = l->holder;
	f->owner_kind = l->holder ? LT_OWNER_RUNTIME : LT_OWNER_NONE;
	x->t->acquire = l->kind;
}

static void fut_note(struct lt_futex *f, const char *what)
{
	char *st = lts_asprintf("%s; %s", f->lock_state ? f->lock_state : "", what);
	free(f->lock_state);
	f->lock_state = st;
}

/* A PENDING task: which workers there are, and whether all are blocked. */
static void fut_pending(struct model *m, const struct ts *v, size_t n, const struct fut_th *ft, size_t i,
			uint64_t fut, const char *wait_call)
{
	static const char BASE[] = "no thread runs the task and its state is PENDING: the task has not started: "
				   "it waits for a thread of its executor to take it";
	char list[400] = "";
	size_t len = 0, nw = 0, nb = 0, idle = 0;
	for (size_t j = 0; j < n; j++) {
		if (!ft[j].worker)
			continue;
		nw++;
		idle += ft[j].idle;
		nb += !ft[j].idle && ft[j].future && (j == i || ft[j].keeps);
		if (nw <= FUT_NAMED && len < sizeof(list))
			len += (size_t)snprintf(list + len, sizeof(list) - len, "%s%d (%s)", len ? ", " : "",
						(int)v[j].t->tid, lt_thread_name(v[j].t));
	}
	char more[32] = "";
	if (nw > FUT_NAMED)
		snprintf(more, sizeof(more), " and %zu more", nw - FUT_NAMED);
	struct lt_futex *f = &v[i].t->futex;
	if (!nw) {
		char *w = lts_asprintf("%s; no ThreadPoolExecutor worker thread was found in this process (another "
				       "kind of executor, or none of its threads has started): its pool is not named",
				       BASE);
		fut_note(f, w);
		free(w);
		return;
	}
	if (nb < nw || !ft[i].worker) {
		/* an idle or running worker may yet take it; and a waiter
		 * outside the pools waits for them: queued, no claim */
		char *w = lts_asprintf("%s; the process's ThreadPoolExecutor worker thread%s (%s%s): %zu idle in its "
				       "work queue's get(), %zu running a task and blocked: it is queued, waiting for "
				       "a worker", BASE, nw == 1 ? "" : "s", list, more, idle, nb);
		fut_note(f, w);
		free(w);
		return;
	}
	char *how = lts_asprintf("%s; every ThreadPoolExecutor worker thread of the process (%zu: %s%s) runs a task "
				 "and %s blocked, this one in this %s: probably a thread-starvation deadlock "
				 "(inferred: no worker thread is free to take the task, nor will one be unless a "
				 "blocked one goes on, or a later submit() starts a thread (a pool with fewer than "
				 "max_workers); which executor's work queue holds the task is not read)",
				 BASE, nw, list, more, nw == 1 ? "is" : "all are", wait_call);
	size_t li = done_lock_of(m, FUT_KIND, fut, NULL, 0, wait_call, how);
	if (li)
		fut_claim(m, &v[i], li);
}

/* ---- concurrent.futures.wait() and as_completed() ----
 *
 * Both install one _Waiter object (its class by return_when) in the
 * _waiters list of every future not yet done, then sleep in
 * waiter.event.wait(): threading's Condition.wait under Event.wait under
 * `wait` or `as_completed` (concurrent/futures/_base.py, 3.8-3.13 alike).
 * A future's end (set_result(), set_exception(), a cancel() its worker
 * then sees) calls the waiter's add_*(), which sets the Event when the
 * wait is over: for ALL_COMPLETED (and FIRST_EXCEPTION while no exception
 * came) when every future has ended, for FIRST_COMPLETED and as_completed
 * when any one has.  The futures waited for are the frame's `not_done`
 * (wait()) or `pending` (as_completed()) set, those of them not yet
 * FINISHED whose _waiters holds the waiter; each one's runner is the
 * thread whose _WorkItem.run has it as self.future (as for result()). */

#define FW_MAX 64         /* futures read of one waiter */
#define FW_NAMED 4        /* futures named in a lock's name */
#define PYSET_USED 0x18   /* PySetObject: fill, used, mask, table (3.8-3.13) */
#define PYSET_MASK 0x20
#define PYSET_TABLE 0x28
#define PYLIST_SIZE 0x10  /* PyListObject: ob_size, ob_item */
#define PYLIST_ITEM 0x18

static bool py_type_is(struct model *m, uint64_t obj, const char *name)
{
	char b[64];
	uint64_t t = obj ? pyr_type(&m->r, obj) : 0;
	return t && pyr_type_name(&m->r, t, b, sizeof(b)) >= 0 && !strcmp(b, name);
}

/* The keys of a set object (its table's entries: {key, hash}; the
 * dummy of a removed key is left out by the caller, which reads each
 * key's attributes), up to MAX; -1 if not a set or unreadable. */
static long py_set_keys(struct model *m, uint64_t set, uint64_t *out, size_t max)
{
	if (!py_type_is(m, set, "set"))
		return -1;
	uint64_t used = u64(m, set + PYSET_USED), mask = u64(m, set + PYSET_MASK), tab = u64(m, set + PYSET_TABLE);
	if (!tab || mask > 0xffff || ((mask + 1) & mask) || used > mask + 1)
		return -1;
	size_t n = 0;
	for (uint64_t k = 0; k <= mask && n < max; k++) {
		uint64_t key = u64(m, tab + 16 * k);
		if (key)
			out[n++] = key;
	}
	return (long)n;
}

static bool py_list_has(struct model *m, uint64_t list, uint64_t item)
{
	if (!py_type_is(m, list, "list"))
		return false;
	uint64_t n = u64(m, list + PYLIST_SIZE), items = u64(m, list + PYLIST_ITEM);
	for (uint64_t k = 0; items && k < n && k < 4096; k++)
		if (u64(m, items + 8 * k) == item)
			return true;
	return false;
}

/* A runner whose task cannot go on by itself: asleep in a call for a
 * while (read before any claim) and with no timeout (a sleep, a timed
 * poll or futex wait ends by itself). */
static bool fw_blocked(struct model *m, const struct ts *x, const struct fut_th *o)
{
	const struct lt_thread *t = x->t;
	double left;
	if (!o->keeps || (t->wait == LT_WAIT_SLEEP && t->sc.nr != 34 /* pause */))
		return false;
	return !lts_wait_timed(m->s, t, &left);
}

struct fw_fut {
	uint64_t fut;
	char state[32];
	size_t runner; /* index in V, n: none found */
	bool blocked;
};

static void fw_wait(struct model *m, const struct ts *v, size_t n, const struct fut_th *ft, size_t i, bool as_comp)
{
	const struct ts *x = &v[i];
	struct lt_futex *f = &x->t->futex;
	uint64_t w = 0, ev = 0, cond = 0, set = 0, rw = 0;
	char when[32] = "as_completed";
	if (local_named(m, x, 2, "waiter", &w) || pyr_attr(&m->r, w, "event", &ev) ||
	    pyr_attr(&m->r, ev, "_cond", &cond) || cond != f->lock_base)
		return; /* not the Event it waits on: not read */
	if (local_named(m, x, 2, as_comp ? "pending" : "not_done", &set))
		return;
	if (!as_comp && (local_named(m, x, 2, "return_when", &rw) || pyr_str(&m->r, rw, when, sizeof(when)) < 0))
		return;
	/* FIRST_EXCEPTION ends at every one's end or at any one's exception:
	 * like FIRST_COMPLETED, only stuck when every runner is */
	bool all = !as_comp && !strcmp(when, "ALL_COMPLETED"), first_exc = !as_comp && !strcmp(when, "FIRST_EXCEPTION");
	if (!as_comp && !all && !first_exc && strcmp(when, "FIRST_COMPLETED"))
		return;
	const char *any_ends = first_exc ? "any one's exception (or every one's end) ends the wait"
					 : "any one's end ends the wait";
	const char *any_would = first_exc ? "any one's exception (or every one's end) would end the wait"
					  : "any one's end would end the wait";
	const char *call = as_comp ? "concurrent.futures.as_completed()" :
			   !strcmp(when, "ALL_COMPLETED") ? "concurrent.futures.wait() (ALL_COMPLETED)" :
			   !strcmp(when, "FIRST_EXCEPTION") ? "concurrent.futures.wait() (FIRST_EXCEPTION)" :
			   "concurrent.futures.wait() (FIRST_COMPLETED)";
	uint64_t keys[FW_MAX];
	long nk = py_set_keys(m, set, keys, FW_MAX);
	if (nk < 0)
		return;
	struct fw_fut fs[FW_MAX];
	size_t nf = 0, nrun = 0, nblk = 0, nq = 0, nunk = 0;
	for (long k = 0; k < nk; k++) {
		struct fw_fut *o = &fs[nf];
		uint64_t wl = 0;
		if (fut_state(m, keys[k], o->state, sizeof(o->state)) < 0 || !strcmp(o->state, "FINISHED") ||
		    !strcmp(o->state, "CANCELLED_AND_NOTIFIED") || pyr_attr(&m->r, keys[k], "_waiters", &wl) ||
		    !py_list_has(m, wl, w))
			continue; /* done (a moment before its wake-up), or not this waiter's */
		o->fut = keys[k];
		o->runner = n;
		o->blocked = false;
		for (size_t j = 0; j < n && o->runner == n; j++)
			if (j != i && ft[j].future == o->fut)
				o->runner = j;
		if (o->runner < n) {
			nrun++;
			o->blocked = fw_blocked(m, &v[o->runner], &ft[o->runner]);
			nblk += o->blocked;
		} else if (!strcmp(o->state, "RUNNING")) {
			nunk++;
		} else {
			nq++; /* PENDING, or CANCELLED and not yet seen by a worker */
		}
		nf++;
	}
	if (!nf)
		return;
	/* each future, what its runner does */
	char list[1200];
	size_t len = 0, k = 0;
	for (; k < nf && len < sizeof(list) - 200; k++) {
		const struct fw_fut *o = &fs[k];
		char doing[200];
		if (o->runner < n) {
			const struct lt_thread *rt = v[o->runner].t;
			char *act = lts_thread_activity(rt);
			snprintf(doing, sizeof(doing), "run by thread %d (%s), %s in %s", (int)rt->tid, lt_thread_name(rt),
				 o->blocked ? "blocked" : ft[o->runner].keeps ? "on a timer" : "not blocked",
				 act ? act : "?");
			free(act);
		} else if (!strcmp(o->state, "RUNNING")) {
			snprintf(doing, sizeof(doing), "no thread of this process runs it in a ThreadPoolExecutor's "
				 "_WorkItem.run: its runner is not known");
		} else {
			snprintf(doing, sizeof(doing), "no thread runs it: queued, waiting for a worker");
		}
		int w2 = snprintf(list + len, sizeof(list) - len, "%sconcurrent.futures.Future at 0x%" PRIx64 " (%s): %s",
				  k ? "; " : "", o->fut, o->state, doing);
		if (w2 < 0 || (size_t)w2 >= sizeof(list) - len) { /* cut: the list is full */
			len = sizeof(list) - 1;
			k++;
			break;
		}
		len += (size_t)w2;
	}
	if (k < nf && len < sizeof(list) - 1)
		snprintf(list + len, sizeof(list) - len, "; and %zu more", nf - k);
	char head[300];
	snprintf(head, sizeof(head), "its _Waiter at 0x%" PRIx64 " is in the _waiters of %zu future%s not done%s", w,
		 nf, nf == 1 ? "" : "s", nk == FW_MAX ? " (of the first 64 of its set, read)" : "");
	/* the holder: ALL: a blocked runner keeps the wait, any runner is
	 * one it waits for; ANY: the one future's runner, or, when every
	 * future's runner is blocked, none (holderless) */
	size_t hold = n;
	bool holderless = false;
	if (all && nf > 1) {
		/* a blocked runner that waits for a lock the waiter holds
		 * first (a cycle through it), then any blocked one, then any */
		for (size_t k = 0; k < nf && hold == n; k++)
			if (fs[k].blocked && v[fs[k].runner].t->futex.owner == x->t->tid)
				hold = fs[k].runner;
		for (size_t k = 0; k < nf && hold == n; k++)
			if (fs[k].blocked)
				hold = fs[k].runner;
		for (size_t k = 0; k < nf && hold == n; k++)
			hold = fs[k].runner;
	} else if (nf == 1) {
		hold = fs[0].runner;
	} else {
		/* with only the first FW_MAX of its set read, the others'
		 * runners are not known: not said to be stuck */
		holderless = nblk == nf && nk < FW_MAX;
	}
	/* read again: each runner still runs its future */
	for (size_t k = 0; k < nf && (holderless || hold < n); k++) {
		uint64_t wi = 0, fu2 = 0;
		char st2[32];
		size_t r = fs[k].runner;
		if (r == n || (!holderless && r != hold))
			continue;
		if (fut_state(m, fs[k].fut, st2, sizeof(st2)) < 0 || strcmp(st2, "RUNNING") ||
		    local_named(m, &v[r], ft[r].run_k, "self", &wi) || pyr_attr(&m->r, wi, "future", &fu2) ||
		    fu2 != fs[k].fut)
			return; /* it moved: no claim */
	}
	if (hold == n && !holderless) {
		char *st;
		if (nrun && nblk == nf)
			st = lts_asprintf("%s: %s; %s, and every one read is run by a blocked thread, but only the "
					  "first %d of its set were read: not said to be stuck", head, list, any_ends,
					  FW_MAX);
		else if (!nrun)
			st = lts_asprintf("%s: %s; no thread of this process runs any of them (%zu queued, %zu whose "
					  "runner is not known): not said to be stuck", head, list, nq, nunk);
		else
			st = lts_asprintf("%s: %s; %s, and not every one of them is run by a blocked thread (%zu by "
					  "a thread not blocked or on a timer, %zu queued, %zu whose runner is not known%s): "
					  "not said to be stuck", head, list, any_ends, nrun - nblk, nq, nunk,
					  nk == FW_MAX ? ", the rest of its set not read" : "");
		fut_note(f, st);
		free(st);
		return;
	}
	char names[400];
	size_t nl = (size_t)snprintf(names, sizeof(names), "%zu future%s (concurrent.futures.Future at ", nf,
				     nf == 1 ? "" : "s");
	for (size_t k = 0; k < nf && k < FW_NAMED; k++)
		nl += (size_t)snprintf(names + nl, sizeof(names) - nl, "%s0x%" PRIx64, k ? ", " : "", fs[k].fut);
	snprintf(names + nl, sizeof(names) - nl, "%s)", nf > FW_NAMED ? ", ..." : "");
	const char *kind = all && nf > 1 ? LT_KIND_PY_WAIT_ALL : LT_KIND_PY_WAIT_ANY;
	char *how;
	if (holderless)
		how = lts_asprintf("%s: %s; every one of them is run by a thread that is blocked, in a call with no "
				   "timeout, and %s: stuck until one of those threads "
				   "goes on (inferred: a set_result(), set_exception() or cancel() on one of them from "
				   "another thread, or a timed wait's timeout, would end it too)", head, list, any_would);
	else {
		const struct lt_thread *o = v[hold].t;
		const struct lt_rtframe *rf = &o->rt_frames[ft[hold].run_k];
		how = lts_asprintf("%s: %s; %s; thread %d (%s) runs one of them (its _WorkItem.run frame (%s:%d) has "
				   "it as self.future): its set_result() or set_exception() at the task's end is "
				   "needed to end the wait; one from any other thread, or a timed wait's timeout, "
				   "would end it too", head, list,
				   nf > 1 ? "the wait ends only when every one of them has ended"
					  : "the wait ends when it ends",
				   (int)o->tid, lt_thread_name(o), rf->file ? rf->file : "?", rf->line);
	}
	size_t li = done_lock_of(m, kind, w /* the _Waiter: one per wait() call */, lts_strdup(names),
				 holderless ? 0 : v[hold].t->tid, call, how);
	if (li)
		fut_claim(m, x, li);
}

static void futures(struct model *m, const struct ts *v, size_t n)
{
	struct fut_th *ft = NULL;
	for (size_t i = 0; i < n && !lt_budget_over(); i++) {
		const struct ts *x = &v[i];
		const struct lt_thread *t = x->t;
		struct lt_futex *f = &x->t->futex;
		uint64_t fut = 0, cond = 0;
		char st[32], st2[32];
		if (!x->locals || !f->lock_kind || strcmp(f->lock_kind, "threading.Condition") || t->n_rt_frames < 2 ||
		    f->owner_kind == LT_OWNER_COND || t->moved)
			continue; /* a waiter that moved while read may have woken */
		bool res = py_frame(&t->rt_frames[1], "/concurrent/futures/_base.py", "Future.result", "result");
		bool exc = !res && py_frame(&t->rt_frames[1], "/concurrent/futures/_base.py", "Future.exception",
					    "exception");
		bool evw = !res && !exc && t->n_rt_frames >= 3 &&
			   py_frame(&t->rt_frames[1], "/threading.py", "Event.wait", "wait");
		bool fw = evw && py_frame(&t->rt_frames[2], "/concurrent/futures/_base.py", "wait", "wait");
		bool ac = evw && !fw && py_frame(&t->rt_frames[2], "/concurrent/futures/_base.py", "as_completed",
						 "as_completed");
		if (!res && !exc && !fw && !ac)
			continue;
		if (!ft) { /* each thread's part in the pools, read once */
			if (!(ft = calloc(n, sizeof(*ft))))
				return;
			for (size_t j = 0; j < n; j++)
				if (v[j].locals) {
					fut_thread(m, &v[j], &ft[j]);
					ft[j].keeps = lt_rt_keeps(v[j].t);
				}
		}
		if (fw || ac) {
			fw_wait(m, v, n, ft, i, ac);
			continue;
		}
		const char *call = res ? "Future.result()" : "Future.exception()";
		if (local_named(m, x, 1, "self", &fut) || pyr_attr(&m->r, fut, "_condition", &cond) ||
		    cond != f->lock_base || fut_state(m, fut, st, sizeof(st)) < 0)
			continue; /* not the Condition it waits on: not read */
		char what[200];
		if (!strcmp(st, "PENDING")) {
			fut_pending(m, v, n, ft, i, fut, call);
			continue;
		}
		if (strcmp(st, "RUNNING")) {
			snprintf(what, sizeof(what), "its concurrent.futures.Future at 0x%" PRIx64 " is %s: a moment "
				 "before the wake-up", fut, st);
			fut_note(f, what);
			continue;
		}
		size_t r = n;
		for (size_t j = 0; j < n && r == n; j++)
			if (j != i && ft[j].future == fut)
				r = j;
		uint64_t wi = 0, fu2 = 0;
		if (r == n) {
			snprintf(what, sizeof(what), "its concurrent.futures.Future at 0x%" PRIx64 " is RUNNING, and no "
				 "thread of this process runs it in a ThreadPoolExecutor's _WorkItem.run: its runner "
				 "is not named", fut);
			fut_note(f, what);
			continue;
		}
		/* read again: the task still runs there */
		if (fut_state(m, fut, st2, sizeof(st2)) < 0 || strcmp(st2, "RUNNING") ||
		    local_named(m, &v[r], ft[r].run_k, "self", &wi) || pyr_attr(&m->r, wi, "future", &fu2) || fu2 != fut)
			continue;
		const struct lt_thread *o = v[r].t;
		const struct lt_rtframe *rf = &o->rt_frames[ft[r].run_k];
		char *how = lts_asprintf("the Future's state is RUNNING and thread %d (%s) runs its task: its "
					 "_WorkItem.run frame (%s:%d) has the Future as self.future: its set_result() "
					 "or set_exception() at the task's end ends the wait; one from any other thread, "
					 "or a timed result()'s timeout, would end it too", (int)o->tid,
					 lt_thread_name(o), rf->file ? rf->file : "?", rf->line);
		size_t li = done_lock_of(m, FUT_KIND, fut, NULL, o->tid, call, how);
		if (li)
			fut_claim(m, x, li);
	}
	free(ft);
}

/* ---- multiprocessing's SemLocks (Modules/_multiprocessing/semaphore.c) ----
 *
 * A multiprocessing.Lock, RLock or Semaphore is a POSIX semaphore in a
 * shared /dev/shm mapping, which records no holder; but each process's
 * _multiprocessing.SemLock object over it keeps `count`, the acquisitions
 * through it not yet released, and `last_tid`, PyThread_get_thread_ident()
 * (pthread_self) of its last acquirer.  The SemLocks the frames keep in a
 * local variable, or in an attribute of one, or of one of its attributes
 * (`self._rlock._semlock` in SimpleQueue.get) with a count other than 0
 * are listed in s->semlocks; semlock.c names a semaphore's holder from
 * them. */

#define SEMLOCK_FIELDS 28     /* ... int count, maxvalue, kind              */
#define SEM_MAX_OBJS 4096     /* objects looked at, per process             */
#define SEM_DEPTH 2           /* attributes of attributes of a local        */

enum { SEM_T_SEMLOCK = 1, SEM_T_LOOK, SEM_T_SKIP, SEM_T_METHOD, SEM_T_CELL };

struct semscan {
	struct model *m;
	const struct ts *v;
	size_t n;
	struct lt_u64map seen;  /* object -> 1 + the least depth it was looked at */
	size_t budget;
	const struct ts *x;     /* where the local is: its thread and frame, */
	size_t k;
	const struct code *co;  /* the frame's code, and the local's index */
	size_t slot;
	int depth;
	uint64_t keys[SEM_DEPTH]; /* the attributes' names down to the object */
};

/* What TYPE is to the search, by its tp_name (cached). */
static int sem_class(struct model *m, uint64_t type)
{
	static const char *const skip[] = { "module", "type", "dict", "list", "tuple", "str", "int", "float",
					    "bytes", "bool", "NoneType", "function", "code", "frame", "set",
					    "frozenset", "bytearray", "generator", "coroutine" };
	void *c = lt_u64map_get(&m->sem_types, type);
	if (c)
		return (int)(uintptr_t)c;
	char name[40] = "";
	int k = SEM_T_LOOK;
	if (pyr_type_name(&m->r, type, name, sizeof(name)) < 0)
		k = SEM_T_SKIP;
	else if (!strcmp(name, "_multiprocessing.SemLock"))
		k = SEM_T_SEMLOCK;
	else if (!strcmp(name, "method") || !strcmp(name, "builtin_function_or_method"))
		k = SEM_T_METHOD;
	else if (!strcmp(name, "cell"))
		k = SEM_T_CELL;
	for (size_t i = 0; k == SEM_T_LOOK && i < sizeof(skip) / sizeof(*skip); i++)
		if (!strcmp(name, skip[i]))
			k = SEM_T_SKIP;
	lt_u64map_put(&m->sem_types, type, (void *)(uintptr_t)k);
	return k;
}

/* The thread of this process whose pthread_t is IDENT, 0 if none. */
static pid_t sem_thread(struct semscan *c, uint64_t ident)
{
	for (size_t i = 0; ident && i < c->n; i++)
		if (c->v[i].ident == ident)
			return c->v[i].t->tid;
	return ident ? lt_cpy_tid_of_pthread(c->m->e, ident, NULL) : 0;
}

static void sem_found(struct semscan *c, uint64_t obj)
{
	struct model *m = c->m;
	struct lt_snapshot *s = m->s;
	uint8_t b[SEMLOCK_FIELDS];
	if (m->e->read(m->e->arg, obj + SEMLOCK_HANDLE, b, sizeof(b)) < 0)
		return;
	uint64_t handle = u64_in(b, 0), last = u64_in(b, 8);
	int32_t count = i32_in(b, 16), maxvalue = i32_in(b, 20), kind = i32_in(b, 24);
	if (!count || !handle || maxvalue < 1 || (kind != 0 && kind != 1))
		return; /* released (or never taken) through it, or no SemLock */
	struct lt_semlock *nv = lt_grow(s->semlocks, &m->sem_cap, s->n_semlocks, sizeof(*nv), 8);
	if (!nv)
		return;
	s->semlocks = nv;
	const struct lt_rtframe *r = &c->x->t->rt_frames[c->k];
	char path[200] = "'?'";
	uint64_t name;
	if (pyr_tuple_item(&m->r, c->co->names, c->slot, &name) == 0 &&
	    pyr_str(&m->r, name, path + 1, sizeof(path) - 64) == 0)
		snprintf(path + strlen(path), 3, "'");
	for (int d = 0; d < c->depth && d < SEM_DEPTH; d++) {
		size_t pl = strlen(path);
		path[pl] = '.';
		if (pl + 2 >= sizeof(path) || pyr_str(&m->r, c->keys[d], path + pl + 1, sizeof(path) - pl - 1) < 0)
			snprintf(path + pl, sizeof(path) - pl, ".?");
	}
	s->semlocks[s->n_semlocks++] = (struct lt_semlock){
		.obj = obj, .handle = handle, .last_tid = last, .count = count, .maxvalue = maxvalue,
		.kind = kind, .tid = sem_thread(c, last),
		.where = lts_asprintf("%s of %s (%s:%d) in thread %d", path, r->func ? r->func : "?",
				      r->file ? r->file : "?", r->line, (int)c->x->t->tid),
	};
}

static void sem_visit(struct semscan *c, uint64_t obj);

static bool sem_attr(void *arg, uint64_t key, uint64_t value)
{
	struct semscan *c = arg;
	if (!c->budget || c->depth >= SEM_DEPTH)
		return false;
	c->keys[c->depth++] = key;
	sem_visit(c, value);
	c->depth--;
	return c->budget > 0;
}

static void sem_visit(struct semscan *c, uint64_t obj)
{
	struct model *m = c->m;
	uint64_t type = obj ? pyr_type(&m->r, obj) : 0;
	if (!type || !c->budget)
		return;
	uintptr_t was = (uintptr_t)lt_u64map_get(&c->seen, obj);
	if (was && was <= (uintptr_t)c->depth + 1)
		return; /* looked at already, as deep or deeper */
	c->budget--;
	lt_u64map_put(&c->seen, obj, (void *)(uintptr_t)(c->depth + 1));
	switch (sem_class(m, type)) {
	case SEM_T_SEMLOCK:
		if (!was)
			sem_found(c, obj);
		return;
	case SEM_T_METHOD: /* a bound method's self (PyMethodObject.im_self,
			      PyCFunctionObject.m_self): `acquire = lock.acquire` */
		sem_visit(c, u64(m, obj + 24));
		return;
	case SEM_T_CELL: /* a local a closure shares: its cell's content */
		sem_visit(c, u64(m, obj + 16));
		return;
	case SEM_T_LOOK:
		if (c->depth < SEM_DEPTH)
			pyr_attr_each(&m->r, obj, sem_attr, c);
		return;
	default:
		return;
	}
}

/* Every frame's local variables of the threads V of interpreter INTERP,
 * when it imported _multiprocessing. */
static void semlocks(struct model *m, uint64_t interp, const struct ts *v, size_t n)
{
	uint64_t modules = u64(m, interp + m->l->is_modules), mod;
	if (!n || !m->dicts_ok || !modules || pyr_dict_get(&m->r, modules, "_multiprocessing", &mod) < 0)
		return;
	struct semscan c = { .m = m, .v = v, .n = n, .budget = SEM_MAX_OBJS };
	size_t frames = REF_FRAMES;
	uint64_t slots[MAX_SLOTS];
	for (size_t j = 0; j < n && c.budget; j++)
		for (size_t k = 0; v[j].locals && k < v[j].t->n_rt_frames && c.budget && frames; k++, frames--) {
			const struct code *co = code_get(m, v[j].codes[k]);
			size_t nl = co ? (co->nlocals < MAX_SLOTS ? co->nlocals : MAX_SLOTS) : 0;
			if (!nl || m->e->read(m->e->arg, v[j].locals[k], slots, nl * 8) < 0)
				continue;
			c.x = &v[j];
			c.k = k;
			c.co = co;
			for (size_t i = 0; i < nl && c.budget; i++) {
				c.slot = i;
				c.depth = 0;
				sem_visit(&c, slots[i]);
			}
		}
	if (!c.budget || !frames)
		lt_strlist_add(&m->s->notes, "%s: multiprocessing's SemLocks were looked for among the first "
			       "%d objects and %d frames only", m->id.version, SEM_MAX_OBJS, REF_FRAMES);
	lt_u64map_free(&c.seen);
}

/* ---- names: threading._active ---- */

struct names {
	struct model *m;
	struct ts *v;
	size_t n;
};

static bool name_one(void *arg, uint64_t key, uint64_t value)
{
	struct names *nm = arg;
	uint64_t ident, name;
	char buf[256];
	if (pyr_long(&nm->m->r, key, &ident) < 0)
		return true;
	for (size_t i = 0; i < nm->n; i++) {
		struct lt_thread *t = nm->v[i].t;
		if (nm->v[i].ident != ident || t->rt_name)
			continue;
		if (pyr_attr(&nm->m->r, value, "_name", &name) == 0 &&
		    pyr_str(&nm->m->r, name, buf, sizeof(buf)) == 0)
			t->rt_name = lts_strdup(buf);
	}
	return true;
}

static void thread_names(struct model *m, uint64_t interp, struct ts *v, size_t n)
{
	uint64_t modules = u64(m, interp + m->l->is_modules), threading, active;
	struct names nm = { m, v, n };
	if (!n || !modules)
		return;
	if (pyr_dict_get(&m->r, modules, "threading", &threading) < 0)
		return; /* never imported: Python has no names for its threads */
	if (pyr_dict_get(&m->r, u64(m, threading + MD_DICT), "_active", &active) < 0 ||
	    pyr_dict_each(&m->r, active, name_one, &nm) < 0)
		lt_strlist_add(&m->s->notes, "%s: threading._active unreadable: thread names not read",
			       m->id.version);
}

static void interp_threads(struct model *m, uint64_t interp)
{
	struct ts *v = NULL;
	size_t n = 0, cap = 0;
	uint64_t ts = u64(m, interp + m->l->is_threads);
	struct lt_u64map seen = { 0 };
	size_t k = 0;
	for (; ts && k < MAX_TSTATES && !lt_budget_over(); k++, ts = u64(m, ts + m->l->ts_next)) {
		uint64_t ident;
		if (lt_u64map_get(&seen, ts)) {
			lt_budget_note("%s: the thread-state list of interpreter 0x%" PRIx64 " loops back "
				       "to 0x%" PRIx64 " after %zu (a cycle in the process's memory)",
				       m->id.version, interp, ts, k);
			break;
		}
		if (lt_u64map_put(&seen, ts, (void *)1))
			break;
		struct lt_thread *t = thread_of(m, ts, &ident);
		if (!t || t->rt_lang) {
			m->unmatched += !t;
			continue;
		}
		struct ts *nv = lt_grow(v, &cap, n, sizeof(*nv), 16);
		if (!nv)
			break;
		v = nv;
		v[n] = (struct ts){ ident, t, NULL, NULL };
		read_thread(m, ts, &v[n++]);
		m->threads++;
	}
	if (ts && k == MAX_TSTATES)
		lt_budget_note("%s: stopped reading the thread states of interpreter 0x%" PRIx64
			       " after %d", m->id.version, interp, MAX_TSTATES);
	lt_u64map_free(&seen);
	if (m->dicts_ok)
		thread_names(m, interp, v, n);
	python_locks(m, v, n);
	if (m->dicts_ok && m->id.minor <= 13)
		futures(m, v, n);
	semlocks(m, interp, v, n);
	for (size_t i = 0; i < n; i++)
		if (v[i].locals) {
			popen_poll(m, &v[i]);
			mp_sentinel_wait(m, &v[i]);
		}
	for (size_t i = 0; i < n; i++) {
		free(v[i].locals);
		free(v[i].codes);
	}
	free(v);
}

static void model_clear(struct model *m)
{
	for (size_t k = 0; k < m->ncodes; k++)
		code_clear(&m->codes[k]);
	free(m->codes);
	lt_u64map_free(&m->code_at);
	for (size_t k = 0; k < m->tabs.cap; k++)
		if (m->tabs.keys[k]) {
			struct tab *t = m->tabs.vals[k];
			lt_py_index_free(&t->ix);
			free(t->b);
			free(t);
		}
	lt_u64map_free(&m->tabs);
	lt_u64map_free(&m->sem_types);
}

static void apply(const struct lt_lm_env *e, struct lt_snapshot *s)
{
	struct model m = { .e = e, .s = s };
	struct pyl lbuf;
	if (lt_cpy_identify(e, &m.id, "Python stacks and thread names not read", &s->notes) <= 0)
		return;
	if (!(m.l = pyl_for(&m.id, &lbuf, &m.dicts_ok, &s->notes)))
		return;
	pyr_init(&m.r, e, m.l);
	uint64_t interp = u64(&m, m.id.runtime + m.l->rt_head);
	uint64_t seen[MAX_INTERPS];
	int i = 0;
	for (; interp && i < MAX_INTERPS && !lt_budget_over(); i++) {
		for (int k = 0; k < i; k++)
			if (seen[k] == interp) {
				lt_budget_note("%s: the interpreter list loops back to 0x%" PRIx64 " after %d "
					       "(a cycle in the process's memory)", m.id.version, interp, i);
				interp = 0;
				break;
			}
		if (!interp)
			break;
		seen[i] = interp;
		interp_threads(&m, interp);
		interp = u64(&m, interp + m.l->is_next);
	}
	if (interp && i == MAX_INTERPS)
		lt_budget_note("%s: stopped reading interpreters after %d", m.id.version, MAX_INTERPS);
	if (m.unmatched)
		lt_strlist_add(&s->notes, "%s: %zu Python thread state(s) name no thread of this "
			       "snapshot (exited, or not yet started)", m.id.version, m.unmatched);
	model_clear(&m);
}

const struct lt_rtmodel lt_rt_cpython = { "cpython", apply };

/* ---- recorded stacks (pystack.h) ---- */

struct lt_pystk {
	struct model m;
	struct pyl lbuf;
	int32_t pt_tid_off; /* struct pthread's tid (libthread_db), -1 unknown */
};

struct lt_pystk *lt_pystk_open(const struct lt_lm_env *e, struct lt_strlist *notes)
{
	struct lt_pystk *p = calloc(1, sizeof(*p));
	if (!p)
		return NULL;
	p->m.e = e;
	if (lt_cpy_identify(e, &p->m.id, "Python frames not recorded", notes) <= 0 ||
	    !(p->m.l = pyl_for(&p->m.id, &p->lbuf, &p->m.dicts_ok, notes))) {
		free(p);
		return NULL;
	}
	pyr_init(&p->m.r, e, p->m.l);
	uint64_t a, sz;
	uint32_t desc[3];
	p->pt_tid_off = -1;
	if (e->lookup(e->arg, "_thread_db_pthread_tid", &a, &sz) == 0 &&
	    e->read(e->arg, a, desc, sizeof(desc)) == 0 && desc[0] == 32 && desc[2] < 0x10000)
		p->pt_tid_off = (int32_t)desc[2];
	return p;
}

void lt_pystk_free(struct lt_pystk *p)
{
	if (p) {
		model_clear(&p->m);
		free(p);
	}
}

const char *lt_pystk_version(const struct lt_pystk *p)
{
	return p->m.id.version;
}

static uint64_t e_u64(const struct lt_lm_env *e, uint64_t addr)
{
	uint64_t v = 0;
	return addr && e->read(e->arg, addr, &v, sizeof(v)) == 0 ? v : 0;
}

/* The thread a thread state runs on: native_thread_id (3.11+), else the
 * tid libc keeps in its struct pthread; 0 unknown. */
static pid_t ts_tid(const struct lt_pystk *p, const struct lt_lm_env *e, uint64_t ts)
{
	const struct pyl *l = p->m.l;
	if (l->ts_native)
		return (pid_t)e_u64(e, ts + l->ts_native);
	uint64_t pt = e_u64(e, ts + l->ts_pthread);
	int32_t tid = 0;
	if (!pt || p->pt_tid_off < 0 || e->read(e->arg, pt + (uint32_t)p->pt_tid_off, &tid, 4) < 0)
		return 0;
	return tid;
}

static uint64_t find_ts(const struct lt_pystk *p, const struct lt_lm_env *e, pid_t tid)
{
	const struct pyl *l = p->m.l;
	uint64_t interp = e_u64(e, p->m.id.runtime + l->rt_head);
	size_t budget = MAX_TSTATES; /* thread states read in all: lists that loop end */
	for (int i = 0; interp && i < MAX_INTERPS && budget; i++, interp = e_u64(e, interp + l->is_next))
		for (uint64_t ts = e_u64(e, interp + l->is_threads); ts && budget;
		     budget--, ts = e_u64(e, ts + l->ts_next))
			if (ts_tid(p, e, ts) == tid)
				return ts;
	return 0;
}

uint64_t lt_pystk_find_ts(const struct lt_pystk *p, const struct lt_lm_env *e, pid_t tid)
{
	return find_ts(p, e, tid);
}

size_t lt_pystk_each_ts(const struct lt_pystk *p, const struct lt_lm_env *e,
			void (*fn)(void *arg, pid_t tid, uint64_t ts), void *arg)
{
	const struct pyl *l = p->m.l;
	uint64_t interp = e_u64(e, p->m.id.runtime + l->rt_head);
	size_t budget = MAX_TSTATES, n = 0;
	for (int i = 0; interp && i < MAX_INTERPS && budget; i++, interp = e_u64(e, interp + l->is_next))
		for (uint64_t ts = e_u64(e, interp + l->is_threads); ts && budget;
		     budget--, ts = e_u64(e, ts + l->ts_next)) {
			pid_t tid = ts_tid(p, e, ts);
			if (tid > 0) {
				fn(arg, tid, ts);
				n++;
			}
		}
	return n;
}

/* ---- the BPF side's copies of a waker's frames (pyframes.h): the same
 * fields raw_objects and raw_interp read, as raw words ---- */

static bool word_at(uint32_t off, uint32_t *block)
{
	if (off % 8 || off + 8 > LT_PY_BLOCK)
		return false;
	if (off + 8 > *block)
		*block = off + 8;
	return true;
}

int lt_pystk_bpf_layout(const struct lt_pystk *p, struct lt_py_layout *o)
{
	const struct pyl *l = p->m.l;
	memset(o, 0, sizeof(*o));
	o->ts_frame = l->ts_frame;
	o->cf_frame = l->cf_frame;
	o->ts_native = l->ts_native;
	if (l->frames == PYL_FRAME_OBJECT) {
		/* f_lasti and f_lineno: one word */
		if (l->f_lineno != l->f_lasti + 4)
			return -1;
		o->off_prev = l->f_back;
		o->off_code = l->f_code;
		o->off_a = l->f_lasti;
		o->off_b = l->f_trace;
	} else {
		o->off_prev = l->if_prev;
		o->off_code = l->if_code;
		o->off_a = l->if_instr;
		o->off_b = l->if_owner & ~7u;
		if (l->if_entry && (l->if_entry & ~7u) != o->off_b)
			return -1;
	}
	return word_at(o->off_prev, &o->block) && word_at(o->off_code, &o->block) &&
	       word_at(o->off_a, &o->block) && word_at(o->off_b, &o->block) ? 0 : -1;
}

static uint8_t byte_of(uint64_t word, uint32_t off)
{
	return (uint8_t)(word >> (8 * (off % 8)));
}

void lt_pystk_from_copy(const struct lt_pystk *p, const struct lt_py_copy *c,
			struct lt_pyraw_stack *o)
{
	const struct pyl *l = p->m.l;
	o->n = 0;
	o->end = 0;
	o->end_at = 0;
	size_t n = c->n < LT_PY_COPY_FRAMES ? c->n : LT_PY_COPY_FRAMES;
	for (size_t i = 0; i < n && o->n < o->max; i++) {
		const struct lt_py_rawframe *f = &c->f[i];
		for (size_t k = 0; k < o->n; k++)
			if (o->f[k].frame == f->frame) {
				raw_end(o, LT_PYRAW_LOOP, f->frame);
				return;
			}
		struct lt_pyraw *r = &o->f[o->n++];
		if (l->frames == PYL_FRAME_OBJECT) {
			int32_t lasti = (int32_t)(uint32_t)f->a, lineno = (int32_t)(f->a >> 32);
			*r = (struct lt_pyraw){ .frame = f->frame, .code = f->code, .flags = LT_PYRAW_ENTRY,
						.locals = f->frame + l->f_locals };
			if (l->lines == PYL_LNOTAB) {
				r->addr = lasti;
				r->lineno = f->b ? lineno : 0;
			} else {
				r->addr = (int64_t)lasti * 2;
				r->lineno = lineno;
			}
			continue;
		}
		uint8_t owner = byte_of(f->b, l->if_owner);
		*r = (struct lt_pyraw){ .frame = f->frame, .code = f->code,
					.locals = f->frame + l->if_locals,
					.addr = (int64_t)(f->a - (f->code + l->co_code)) };
		if (owner == OWNED_BY_CSTACK && p->m.id.minor >= 12)
			r->flags |= LT_PYRAW_BOUNDARY;
		if (owner == OWNED_BY_GENERATOR)
			r->flags |= LT_PYRAW_GEN;
		if (l->if_entry && byte_of(f->b, l->if_entry))
			r->flags |= LT_PYRAW_ENTRY;
	}
	if (c->end == LT_PYC_UNREADABLE)
		raw_end(o, LT_PYRAW_UNREADABLE, c->end_at);
	else if (c->end == LT_PYC_CUT || n < c->n)
		raw_end(o, LT_PYRAW_CUT, c->end_at);
}

int lt_pystk_read(const struct lt_pystk *p, const struct lt_lm_env *e, pid_t tid, uint64_t *ts,
		  struct lt_pyraw_stack *o)
{
	o->n = 0;
	o->end = 0;
	if (!*ts || ts_tid(p, e, *ts) != tid)
		*ts = find_ts(p, e, tid);
	if (!*ts)
		return 0;
	pyraw_walk(e, p->m.l, p->m.id.minor, *ts, o);
	return 1;
}

void lt_pystk_resolve(struct lt_pystk *p, const struct lt_pyraw_stack *o, struct lt_thread *t)
{
	struct walk *w = calloc(1, sizeof(*w));
	if (!w)
		return;
	w->m = &p->m;
	w->t = t;
	t->rt_lang = "python";
	resolve(w, o);
	lt_rt_place(t, w->groups, is_eval_loop);
	free(w);
}
