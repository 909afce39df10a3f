/* Lock models: the library the models use (see lockmodel.h): reading the
 * target's memory through an lt_lm_env, the runtime-lock and runtime-thread
 * records.  Which models run, and how their findings are applied to a
 * snapshot, is src/snapshot/models.c (a layer above the models). */
#include <errno.h>
#include <malloc.h>
#include <stdlib.h>
#include <string.h>

#include "lockmodel.h"
#include "rtthread.h"
#include "symbols.h"
#include "snapshot_int.h"

bool lt_lm_futex_waiter(const struct lt_thread *t)
{
	return t->wait == LT_WAIT_FUTEX && t->futex.is_wait && t->sc.state == LT_SC_IN_SYSCALL;
}

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
	free(l->seen);
	free(l->held_what);
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
	free(t->sig_name);
	free(t->sig_state);
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

/* The thread whose stack pointer was seen in ADDR's mapping; else, for a
 * thread stack no stack pointer claimed (a running thread's: its registers
 * are not read while it runs), the thread whose descriptor (glibc's struct
 * pthread, its fs base) lies in that mapping: glibc puts it at the top of
 * the stack it allocates. */
static pid_t live_stack_tid(void *arg, uint64_t addr)
{
	const struct lt_lm_live *l = arg;
	const struct lt_map *m = lt_sym_map_at(l->sym, addr);
	if (!m)
		return 0;
	if (m->stack_tid)
		return m->stack_tid;
	if (m->path && strcmp(m->path, "[stack]") == 0)
		return lt_sym_pid(l->sym);
	uint64_t lo, hi;
	if (!l->s || !l->fsbase || !lt_sym_stack_unclaimed(l->sym, addr, &lo, &hi))
		return 0;
	for (size_t i = 0; i < l->s->n_threads; i++) {
		uint64_t fs = l->fsbase(l->fsbase_arg, l->s->threads[i].tid);
		if (fs >= lo && fs < hi)
			return l->s->threads[i].tid;
	}
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
	e->live = (struct lt_lm_live){ sym, s, fsbase, fsbase_arg };
	e->arg = &e->live;
	e->read = sym ? live_read : dead_read;
	e->lookup = sym ? live_lookup : dead_lookup;
	e->stack_tid = sym ? live_stack_tid : dead_stack_tid;
	e->fsbase = fsbase ? live_fsbase : NULL;
}
