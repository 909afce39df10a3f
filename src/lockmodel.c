/* Lock models: the framework (see include/locktrace/lockmodel.h).
 *
 * lt_lockmodels_apply runs on a snapshot's thread table once stacks are
 * unwound: the glibc model classifies every futex wait, then each runtime
 * model finds its own lock objects and claims the waits whose futex words
 * lie inside them, naming the holder the runtime records.  It is the first
 * step that reads the runtimes, so it starts each thread's runtime view
 * (rt_*) afresh; a scan fills it for the threads it knows, and the runtime
 * thread models (rtthread.c), run after, leave those alone. */
#include <errno.h>
#include <malloc.h>
#include <stdlib.h>
#include <string.h>

#include "locktrace/lockmodel.h"
#include "locktrace/rtthread.h"
#include "locktrace/symbols.h"
#include "snapshot_int.h"

extern const struct lt_lockmodel lt_lm_ocaml;
extern const struct lt_lockmodel lt_lm_cpython;
extern const struct lt_lockmodel lt_lm_hotspot;

const struct lt_lockmodel *const lt_lockmodels[] = {
	&lt_lm_ocaml,
	&lt_lm_cpython,
	&lt_lm_hotspot,
	NULL,
};

int lt_lm_read_u32(const struct lt_lm_env *e, uint64_t addr, uint32_t *v)
{
	return e->read(e->arg, addr, v, sizeof(*v));
}

int lt_lm_read_u64(const struct lt_lm_env *e, uint64_t addr, uint64_t *v)
{
	return e->read(e->arg, addr, v, sizeof(*v));
}

int lt_lm_read_str(const struct lt_lm_env *e, uint64_t addr, char *buf, size_t len)
{
	if (!len)
		return -EINVAL;
	/* byte by byte would be slow across process_vm_readv; read in small
	 * blocks and stop at the NUL (a block may cross into an unmapped page:
	 * then fall back to shorter reads) */
	size_t got = 0;
	while (got < len - 1) {
		size_t want = len - 1 - got;
		if (want > 64)
			want = 64;
		while (want && e->read(e->arg, addr + got, buf + got, want))
			want /= 2;
		if (!want)
			break;
		void *z = memchr(buf + got, 0, want);
		if (z)
			return 0;
		got += want;
	}
	buf[got] = 0;
	return got ? 0 : -EFAULT;
}

void lt_rtlock_clear(struct lt_rtlock *l)
{
	free(l->name);
	free(l->version);
	free(l->holder_how);
	lt_strlist_free(&l->facts);
	memset(l, 0, sizeof(*l));
}

void lt_rtthread_clear(struct lt_rtthread *t)
{
	free(t->name);
	for (size_t i = 0; i < t->n_frames; i++) {
		free(t->frames[i].func);
		free(t->frames[i].file);
	}
	free(t->frames);
	free(t->group);
	free(t->end);
	memset(t, 0, sizeof(*t));
}

struct lt_rtlock *lt_rtlock_push(struct lt_rtlock **v, size_t *n)
{
	/* doubling: 100,000 monitors must not cost 100,000 copies of the
	 * array; the room left is asked of malloc, whoever allocated it */
	struct lt_rtlock *nv = *v;
	if (!nv || malloc_usable_size(nv) < (*n + 1) * sizeof(*nv)) {
		nv = realloc(*v, (*n < 8 ? 8 : *n * 2) * sizeof(*nv));
		if (!nv)
			return NULL;
	}
	*v = nv;
	struct lt_rtlock *l = &nv[(*n)++];
	memset(l, 0, sizeof(*l));
	l->held = -1;
	l->waiters = -1;
	return l;
}

/* ---- the live environment ---- */

static struct lt_sym *live_sym(void *arg);

static int live_read(void *arg, uint64_t addr, void *buf, size_t len)
{
	return lt_mem_read(lt_sym_mem(live_sym(arg)), addr, buf, len);
}

static int live_lookup(void *arg, const char *name, uint64_t *addr, uint64_t *size)
{
	return lt_sym_lookup(live_sym(arg), name, addr, size);
}

static pid_t live_stack_tid(void *arg, uint64_t addr)
{
	const struct lt_map *m = lt_sym_map_at(live_sym(arg), addr);
	if (!m)
		return 0;
	if (m->stack_tid)
		return m->stack_tid;
	if (m->path && strcmp(m->path, "[stack]") == 0)
		return lt_sym_pid(live_sym(arg));
	return 0;
}

static int dead_read(void *arg, uint64_t addr, void *buf, size_t len)
{
	(void)arg, (void)addr, (void)buf, (void)len;
	return -EFAULT;
}

static int dead_lookup(void *arg, const char *name, uint64_t *addr, uint64_t *size)
{
	(void)arg, (void)name, (void)addr, (void)size;
	return -ENOENT;
}

static pid_t dead_stack_tid(void *arg, uint64_t addr)
{
	(void)arg, (void)addr;
	return 0;
}

/* One argument for every callback: the symbolizer and the fs base source. */
static struct lt_sym *live_sym(void *arg)
{
	return ((struct lt_lm_live *)arg)->sym;
}

static uint64_t live_fsbase(void *arg, pid_t tid)
{
	struct lt_lm_live *l = arg;
	return l->fsbase ? l->fsbase(l->fsbase_arg, tid) : 0;
}

void lt_lm_env_live(struct lt_lm_env *e, struct lt_sym *sym, const struct lt_snapshot *s,
		    uint64_t (*fsbase)(void *arg, pid_t tid), void *fsbase_arg)
{
	memset(e, 0, sizeof(*e));
	e->s = s;
	e->live = (struct lt_lm_live){ sym, fsbase, fsbase_arg };
	e->arg = &e->live;
	e->read = sym ? live_read : dead_read;
	e->lookup = sym ? live_lookup : dead_lookup;
	e->stack_tid = sym ? live_stack_tid : dead_stack_tid;
	e->fsbase = fsbase ? live_fsbase : NULL;
}

/* ---- applying the models ---- */

static bool futex_wait(const struct lt_thread *t)
{
	return t->wait == LT_WAIT_FUTEX && t->futex.is_wait && t->sc.state == LT_SC_IN_SYSCALL;
}

static void claim(struct lt_snapshot *s, struct lt_thread *t, size_t li)
{
	const struct lt_rtlock *l = &s->rtlocks[li];
	struct lt_futex *f = &t->futex;
	char *state = NULL;
	if (f->lock_kind)
		state = lts_asprintf("its %s%s%s", f->lock_kind, f->lock_state ? ": " : "",
				     f->lock_state ? f->lock_state : "");
	free(f->lock_state);
	f->lock_state = state;
	f->lock_kind = l->kind;
	f->lock_base = l->base;
	free(f->lock_name);
	f->lock_name = lts_strdup(l->name);
	f->rtlock = (unsigned)li + 1;
	if (l->held == 1 && l->holder > 0 && l->holder != t->tid && !lt_snapshot_find(s, l->holder)) {
		/* checked against the kernel: the runtime's memory names a
		 * thread this process does not have (read torn, or forged) */
		char *st = lts_asprintf("%s%sthe runtime names thread %d as its holder, but the process "
					"has no such thread: the holder is not named",
					f->lock_state ? f->lock_state : "", f->lock_state ? "; " : "", (int)l->holder);
		free(f->lock_state);
		f->lock_state = st;
		f->owner_kind = LT_OWNER_UNKNOWN;
		f->owner = 0;
	} else if (l->held == 1 && l->holder > 0 && l->holder != t->tid) {
		f->owner_kind = LT_OWNER_RUNTIME;
		f->owner = l->holder;
	} else if (f->owner_kind != LT_OWNER_UNKNOWN) {
		/* the runtime lock's inner mutex may record an owner that only
		 * holds it for a moment; the runtime's holder is what counts */
		f->owner_kind = LT_OWNER_NONE;
		f->owner = 0;
	}
	if (!t->acquire)
		t->acquire = l->kind;
}

/* The runtime's view of its threads: names, and the waits it claims by
 * tid (lockmodel.h, lt_lockmodel.scan).  FIRST is the index in s->rtlocks
 * of the scan's first lock. */
static void apply_rtthreads(struct lt_snapshot *s, size_t first, struct lt_rtthread *th, size_t nth)
{
	for (size_t k = 0; k < nth; k++) {
		struct lt_thread *t = lt_snapshot_find(s, th[k].tid);
		if (!t || (t->rt_lang && th[k].lang && strcmp(t->rt_lang, th[k].lang)))
			continue; /* another runtime's thread (two in one process) */
		if (th[k].lang)
			t->rt_lang = th[k].lang;
		if (th[k].name && !t->rt_name) {
			t->rt_name = th[k].name;
			th[k].name = NULL;
		}
		if (th[k].n_frames && !t->n_rt_frames) {
			/* the runtime's frames beside the native ones, at the
			 * frames that run them: the same view as a Python stack */
			t->rt_frames = th[k].frames;
			t->n_rt_frames = th[k].n_frames;
			th[k].frames = NULL;
			th[k].n_frames = 0;
			lt_rt_place_pc(t, th[k].group);
		}
		if (th[k].end && !t->rt_end) {
			t->rt_end = th[k].end;
			th[k].end = NULL;
		}
		if (th[k].waits && first + th[k].waits - 1 < s->n_rtlocks && futex_wait(t))
			claim(s, t, first + th[k].waits - 1);
	}
}

static int run_model(const struct lt_lockmodel *m, struct lt_snapshot *s, const struct lt_lm_env *e)
{
	if (!m->scan)
		return m->find(e, &s->rtlocks, &s->n_rtlocks, &s->notes);
	struct lt_rtthread *th = NULL;
	size_t nth = 0, first = s->n_rtlocks;
	int rc = m->scan(e, &s->rtlocks, &s->n_rtlocks, &th, &nth, &s->notes);
	apply_rtthreads(s, first, th, nth);
	for (size_t k = 0; k < nth; k++)
		lt_rtthread_clear(&th[k]);
	free(th);
	return rc;
}

void lt_lockmodels_apply(struct lt_snapshot *s, const struct lt_lm_env *e)
{
	for (size_t i = 0; i < s->n_threads; i++) {
		struct lt_thread *t = &s->threads[i];
		t->acquire = NULL;
		lt_thread_clear_rt(t);
		if (futex_wait(t))
			lt_glibc_classify(e, t);
	}
	for (size_t m = 0; lt_lockmodels[m]; m++) {
		size_t before = s->n_rtlocks;
		if (run_model(lt_lockmodels[m], s, e) < 0)
			lt_strlist_add(&s->notes, "lock model %s failed", lt_lockmodels[m]->name);
		for (size_t li = before; li < s->n_rtlocks; li++) {
			const struct lt_rtlock *l = &s->rtlocks[li];
			for (size_t i = 0; i < s->n_threads; i++) {
				struct lt_thread *t = &s->threads[i];
				if (futex_wait(t) && t->futex.uaddr >= l->base &&
				    t->futex.uaddr < l->base + l->size && t->futex.rtlock != li + 1)
					claim(s, t, li);
			}
		}
	}
}
