/* glibc lock model: what a futex word a thread sleeps on belongs to (pthread
 * mutex, rwlock, semaphore, condition variable, barrier, pthread_join), the
 * object's address, its decoded state and, where glibc records one, its
 * holder.  See docs/locks.md.
 *
 * The waiting thread's innermost frames say which primitive it is in; the
 * memory around the futex word says where the object starts and what state
 * it is in.  Frame names come in two spellings: internal ones
 * (___pthread_mutex_lock, __new_sem_wait_slow64.constprop.0) when libc's
 * .symtab is available (libc6-dbg), exported ones
 * (pthread_cond_wait@@GLIBC_2.3.2) otherwise; both fold to one name.
 *
 * Layouts are those of x86-64 glibc 2.28 and later (checked against the
 * sources up to 2.42): mutex, rwlock, semaphore and barrier did not change;
 * the condition variable lost __g_refs in 2.41 (and in the 2.38-2.40 stable
 * branches), which moved __g_signals from offset 40 to 32. */
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "lockmodel.h"
#include "snapshot_int.h"

#define MAX_FRAMES 12
#define TID_MASK 0x3fffffffu
#define WAITERS_BIT 0x80000000u

/* ---- frame names ---- */

enum family { F_NONE, F_MUTEX, F_LLL, F_RWLOCK, F_SEM, F_COND, F_JOIN, F_BARRIER };

struct entry {
	const char *folded; /* the name once folded (see fold)         */
	const char *canon;  /* the glibc entry it stands for (static)  */
	enum family fam;
};

static const struct entry entries[] = {
	{ "pthread_mutex_lock", "pthread_mutex_lock", F_MUTEX },
	/* the mutex re-lock at the end of a condvar wait */
	{ "pthread_mutex_cond_lock", "pthread_mutex_lock", F_MUTEX },
	{ "mtx_lock", "pthread_mutex_lock", F_MUTEX },
	{ "pthread_mutex_timedlock", "pthread_mutex_timedlock", F_MUTEX },
	{ "mtx_timedlock", "pthread_mutex_timedlock", F_MUTEX },
	{ "pthread_mutex_clocklock", "pthread_mutex_clocklock", F_MUTEX },
	{ "lll_lock_wait", "__lll_lock_wait", F_LLL },
	{ "lll_lock_wait_private", "__lll_lock_wait_private", F_LLL },
	{ "pthread_rwlock_rdlock", "pthread_rwlock_rdlock", F_RWLOCK },
	{ "pthread_rwlock_wrlock", "pthread_rwlock_wrlock", F_RWLOCK },
	{ "pthread_rwlock_timedrdlock", "pthread_rwlock_timedrdlock", F_RWLOCK },
	{ "pthread_rwlock_timedwrlock", "pthread_rwlock_timedwrlock", F_RWLOCK },
	{ "pthread_rwlock_clockrdlock", "pthread_rwlock_clockrdlock", F_RWLOCK },
	{ "pthread_rwlock_clockwrlock", "pthread_rwlock_clockwrlock", F_RWLOCK },
	{ "sem_wait", "sem_wait", F_SEM },
	{ "sem_timedwait", "sem_timedwait", F_SEM },
	{ "sem_clockwait", "sem_clockwait", F_SEM },
	{ "pthread_cond_wait", "pthread_cond_wait", F_COND },
	{ "cnd_wait", "pthread_cond_wait", F_COND },
	{ "pthread_cond_timedwait", "pthread_cond_timedwait", F_COND },
	{ "cnd_timedwait", "pthread_cond_timedwait", F_COND },
	{ "pthread_cond_clockwait", "pthread_cond_clockwait", F_COND },
	{ "pthread_join", "pthread_join", F_JOIN },
	/* __pthread_clockjoin_ex: the common body of every join */
	{ "pthread_clockjoin", "pthread_join", F_JOIN },
	{ "thrd_join", "pthread_join", F_JOIN },
	{ "pthread_timedjoin_np", "pthread_timedjoin_np", F_JOIN },
	{ "pthread_clockjoin_np", "pthread_clockjoin_np", F_JOIN },
	{ "pthread_barrier_wait", "pthread_barrier_wait", F_BARRIER },
};

static bool ends_with(const char *s, size_t n, const char *suf)
{
	size_t k = strlen(suf);
	return n > k && memcmp(s + n - k, suf, k) == 0;
}

/* Fold FUNC into BUF: drop __GI_ and leading underscores, the symbol
 * version (@@GLIBC_2.3.2), compiler clones (.constprop.0, .isra.0, .cold),
 * the time64 suffix and the names of internal helpers (_full, _common,
 * _slow, _ex, _2_0 compat), and new_/old_ of the semaphore versions. */
static bool fold(const char *func, char *buf, size_t len)
{
	static const char *const sufs[] = { "64", "_time", "_full", "_common", "_slow", "_ex", "_2_0" };
	if (!func)
		return false;
	if (!strncmp(func, "__GI_", 5))
		func += 5;
	while (*func == '_')
		func++;
	size_t n = strcspn(func, "@.");
	if (!n || n >= len)
		return false;
	memcpy(buf, func, n);
	for (bool again = true; again;) {
		again = false;
		for (size_t i = 0; i < sizeof(sufs) / sizeof(sufs[0]); i++)
			if (ends_with(buf, n, sufs[i])) {
				n -= strlen(sufs[i]);
				again = true;
			}
	}
	buf[n] = 0;
	if (!strncmp(buf, "new_", 4) || !strncmp(buf, "old_", 4))
		memmove(buf, buf + 4, n - 3);
	return true;
}

static const struct entry *lookup_entry(const char *func)
{
	char buf[96];
	if (!fold(func, buf, sizeof(buf)))
		return NULL;
	for (size_t i = 0; i < sizeof(entries) / sizeof(entries[0]); i++)
		if (!strcmp(buf, entries[i].folded))
			return &entries[i];
	return NULL;
}

const char *lt_glibc_acquire_name(const char *func)
{
	const struct entry *e = lookup_entry(func);
	return e ? e->canon : NULL;
}

/* ---- where on the stack ---- */

static bool libc_module(const char *m)
{
	return !strncmp(m, "libc.so", 7) || !strncmp(m, "libc-", 5) ||
	       !strncmp(m, "libpthread", 10);
}

/* Is FR inside glibc?  By module when known; by name otherwise (a static
 * executable, or a frame the symbolizer could not place). */
static bool glibc_frame(const struct lt_frame *fr)
{
	static const char *const internal[] = { "__futex", "futex_", "__lll_", "__condvar_",
						"do_futex_wait", "__GI_", "syscall" };
	if (fr->module && libc_module(fr->module))
		return true;
	if (!fr->func)
		return false;
	for (size_t i = 0; i < sizeof(internal) / sizeof(internal[0]); i++)
		if (!strncmp(fr->func, internal[i], strlen(internal[i])))
			return true;
	return false;
}

struct site {
	const struct entry *e; /* the primitive the thread is in, NULL */
	int hit;               /* index of its frame                   */
	int caller;            /* first frame outside glibc above, -1  */
	bool in_glibc;         /* the innermost frame is glibc's (or no
	                          frames): not an application's own futex */
};

/* Walk the innermost frames: the innermost known entry names the primitive;
 * outer frames of the same primitive name the entry point more exactly
 * (sem_timedwait around __new_sem_wait_slow64), and an internal lock wait
 * inside pthread_mutex_lock is that mutex.  A different primitive further
 * out (the mutex re-lock inside pthread_cond_wait) does not change what the
 * thread sleeps on. */
static void find_site(const struct lt_thread *t, struct site *st)
{
	size_t n = t->n_frames < MAX_FRAMES ? t->n_frames : MAX_FRAMES;
	st->e = NULL;
	st->hit = st->caller = -1;
	st->in_glibc = !n || glibc_frame(&t->frames[0]);
	for (size_t i = 0; i < n; i++) {
		const struct lt_frame *fr = &t->frames[i];
		const struct entry *e = lookup_entry(fr->func);
		if (e) {
			if (st->e && e->fam != st->e->fam &&
			    !(st->e->fam == F_LLL && e->fam == F_MUTEX))
				return;
			st->e = e;
			st->hit = (int)i;
			continue;
		}
		if (glibc_frame(fr))
			continue;
		st->caller = (int)i;
		return;
	}
}

/* ---- helpers ---- */

static void set_state(struct lt_futex *f, const char *s)
{
	free(f->lock_state);
	f->lock_state = lts_strdup(s);
}

static void no_owner(struct lt_futex *f)
{
	if (f->word_ok) {
		f->owner_kind = LT_OWNER_NONE;
		f->owner = 0;
	}
}

/* Append to a fixed buffer, truncating silently. */
static void add(char *buf, size_t len, const char *fmt, ...) __attribute__((format(printf, 3, 4)));

static void add(char *buf, size_t len, const char *fmt, ...)
{
	size_t n = strlen(buf);
	if (n + 1 >= len)
		return;
	va_list ap;
	va_start(ap, fmt);
	vsnprintf(buf + n, len - n, fmt, ap);
	va_end(ap);
}

static bool is_thread(const struct lt_lm_env *e, int32_t tid)
{
	return tid > 0 && e->s && lt_snapshot_find(e->s, tid) != NULL;
}

/* ---- pthread_mutex_t: __lock __count __owner __nusers __kind ---- */

static const char *mutex_type(int32_t kind)
{
	static const char *const types[] = { "normal", "recursive", "errorcheck", "adaptive" };
	return types[kind & 3];
}

static void mutex_state(const struct lt_futex *f, char *buf, size_t len)
{
	int32_t k = f->mutex_ok ? f->mutex_kind : 0;
	/* robust and PI mutexes keep the owner's tid in the lock word */
	bool tidword = (k & 48) || f->is_pi || f->owner_kind == LT_OWNER_ROBUST;
	uint32_t w = f->word;
	bool locked = tidword ? (w & TID_MASK) != 0 : w != 0;
	bool waiters = tidword ? (w & WAITERS_BIT) != 0 : w >= 2;
	add(buf, len, "%s%s", locked ? "locked" : "unlocked", waiters ? ", waiters" : "");
	bool known = f->owner_kind == LT_OWNER_MUTEX || f->owner_kind == LT_OWNER_PI ||
		     f->owner_kind == LT_OWNER_ROBUST;
	pid_t owner = known ? f->owner : f->mutex_ok ? f->mutex_owner : 0;
	if (locked && owner > 0)
		add(buf, len, ", owner %d", (int)owner);
	if (!f->mutex_ok)
		return;
	if ((k & 3) == 1 && f->mutex_count > 0)
		add(buf, len, ", count %d", (int)f->mutex_count);
	add(buf, len, ", kind %s", mutex_type(k));
	if (k & 16)
		add(buf, len, ", robust");
	if (k & 32)
		add(buf, len, ", pi");
	if (k & 64)
		add(buf, len, ", pp");
	if ((k & 128) || !f->private_)
		add(buf, len, ", pshared");
}

static void classify_mutex(struct lt_thread *t, const char *acquire)
{
	struct lt_futex *f = &t->futex;
	char buf[200] = "";
	f->lock_kind = "pthread mutex";
	f->lock_base = f->uaddr; /* __lock is the first field */
	if (f->owner_kind == LT_OWNER_JOIN)
		no_owner(f); /* a lock word that happens to equal a tid */
	if (f->word_ok) {
		mutex_state(f, buf, sizeof(buf));
		set_state(f, buf);
	}
	t->acquire = acquire;
}

/* An internal lll lock (stdio, malloc arenas, the loader): no object. */
static void classify_lll(struct lt_thread *t, const char *acquire)
{
	struct lt_futex *f = &t->futex;
	char buf[96] = "glibc internal lock";
	if (f->word_ok)
		add(buf, sizeof(buf), ", word %u%s", f->word, f->word >= 2 ? " (waiters)" : "");
	f->lock_base = f->uaddr;
	set_state(f, buf);
	if (f->owner_kind == LT_OWNER_JOIN)
		no_owner(f);
	t->acquire = acquire;
}

/* ---- rwlock: __pthread_rwlock_arch_t ---- */

#define RW_WRPHASE 1u
#define RW_WRLOCKED 2u
#define RW_RWAITING 4u
#define RW_READER_SHIFT 3

struct rwlock {
	uint32_t readers, writers, wrphase_futex, writers_futex, pad3, pad4;
	int32_t cur_writer, shared;
};

/* Which word of the rwlock UADDR is: __writers_futex (offset 12) is the
 * only one at 4 mod 8 (the object is 8-byte aligned); __readers (0) is a
 * futex word only while RWAITING is set, so its value has bits above 3,
 * while __wrphase_futex (8) only holds 0..3. */
static uint64_t rwlock_base(const struct lt_futex *f)
{
	if (f->uaddr % 8 == 4)
		return f->uaddr - 12;
	if (f->word_ok && (f->word & ~3u))
		return f->uaddr;
	return f->uaddr - 8;
}

static void rwlock_state(const struct rwlock *r, bool pshared, char *buf, size_t len)
{
	uint32_t nr = r->readers >> RW_READER_SHIFT;
	bool wp = r->readers & RW_WRPHASE, wl = r->readers & RW_WRLOCKED;
	if (wp && wl && r->cur_writer > 0)
		add(buf, len, "writer %d", (int)r->cur_writer);
	else if (wp && wl)
		add(buf, len, "writer (tid not recorded)");
	else if (!wp && nr)
		add(buf, len, "%u reader%s", nr, nr == 1 ? "" : "s");
	else
		add(buf, len, "free");
	if (wp && nr)
		add(buf, len, ", %u reader%s waiting", nr, nr == 1 ? "" : "s");
	if ((r->readers & RW_RWAITING) || (wp && nr))
		add(buf, len, ", waiting readers");
	if ((!wp && wl) || (r->writers_futex & 2) || (r->writers & 0x7fffffffu))
		add(buf, len, ", waiting writers");
	if (pshared)
		add(buf, len, ", pshared");
}

static void classify_rwlock(const struct lt_lm_env *e, struct lt_thread *t, const char *acquire)
{
	struct lt_futex *f = &t->futex;
	struct rwlock r;
	f->lock_kind = "rwlock";
	f->lock_base = rwlock_base(f);
	t->acquire = acquire;
	no_owner(f);
	if (e->read(e->arg, f->lock_base, &r, sizeof(r))) {
		set_state(f, "unreadable");
		return;
	}
	char buf[200] = "";
	rwlock_state(&r, r.shared || !f->private_, buf, sizeof(buf));
	set_state(f, buf);
	bool written = (r.readers & (RW_WRPHASE | RW_WRLOCKED)) == (RW_WRPHASE | RW_WRLOCKED);
	if (written && r.cur_writer != t->tid && is_thread(e, r.cur_writer)) {
		f->owner_kind = LT_OWNER_RWLOCK;
		f->owner = r.cur_writer;
	}
}

/* ---- semaphore: struct new_sem { uint64_t data; int private; int pad; } ---- */

static void classify_sem(const struct lt_lm_env *e, struct lt_thread *t, const char *acquire)
{
	struct lt_futex *f = &t->futex;
	uint64_t data;
	f->lock_kind = "semaphore";
	f->lock_base = f->uaddr; /* the value is the low half of data */
	t->acquire = acquire;
	no_owner(f);
	if (lt_lm_read_u64(e, f->uaddr, &data)) {
		set_state(f, "unreadable");
		return;
	}
	uint32_t nw = (uint32_t)(data >> 32);
	char buf[96] = "";
	add(buf, sizeof(buf), "value %u, %u waiter%s%s", (uint32_t)data, nw, nw == 1 ? "" : "s",
	    f->private_ ? "" : ", pshared");
	set_state(f, buf);
}

/* ---- condition variable: struct __pthread_cond_s ---- */

struct cond {
	uint64_t wseq, g1_start;
	uint32_t g_refs[2]; /* not in the 2.41 layout */
	uint32_t g_size[2], g1_orig_size, wrefs, g_signals[2];
	uint32_t tail[2];   /* 2.41 layout: __unused_initialized_1/2 (zero) */
	bool old;           /* the layout with __g_refs (glibc <= 2.40)     */
};

/* Read the condvar at BASE in the old (with __g_refs, 48 bytes) or new
 * (2.41: without, __g_signals at 32) layout. */
static int read_cond(const struct lt_lm_env *e, uint64_t base, bool old, struct cond *c)
{
	uint32_t w[12];
	/* defined even when unreadable: the caller picks one of two */
	memset(c, 0, sizeof(*c));
	c->old = old;
	if (e->read(e->arg, base, w, sizeof(w)))
		return -1;
	c->wseq = w[0] | (uint64_t)w[1] << 32;
	c->g1_start = w[2] | (uint64_t)w[3] << 32;
	const uint32_t *p = w + 4;
	if (old) {
		c->g_refs[0] = *p++;
		c->g_refs[1] = *p++;
	}
	c->g_size[0] = p[0];
	c->g_size[1] = p[1];
	c->g1_orig_size = p[2];
	c->wrefs = p[3];
	c->g_signals[0] = p[4];
	c->g_signals[1] = p[5];
	if (!old) {
		c->tail[0] = p[6];
		c->tail[1] = p[7];
	}
	return 0;
}

/* How well the fields fit a condvar that thread(s) of group G sleep on.
 * Below 0: not a condvar with waiters.  The two layouts share every field
 * from __g_size on, relative to __g_signals; they differ in where __wseq
 * and __g1_start are and in __g_refs, which a sleeping waiter of the old
 * layout always holds (2 per waiter). */
static int cond_score(const struct cond *c, int g)
{
	int s = 0;
	if (c->wrefs >> 3 == 0)
		return -10;
	if (c->wseq >> 1 >= c->g1_start >> 1 && (c->wseq >> 1) - (c->g1_start >> 1) < (1u << 30))
		s++;
	else
		s--;
	if (c->old)
		s += c->g_refs[g] >= 2 ? 2 : -2;
	else
		s += c->tail[0] == 0 && c->tail[1] == 0 ? 1 : -1;
	return s;
}

static void cond_state(const struct cond *c, int g, char *buf, size_t len)
{
	uint32_t n = c->wrefs >> 3;
	add(buf, len, "group %d (%s), %u waiter%s", g, (int)(c->wseq & 1) == g ? "G2" : "G1", n,
	    n == 1 ? "" : "s");
	if (c->old)
		add(buf, len, ", %u/%u waiters per group, %u/%u pending signals", c->g_refs[0] >> 1,
		    c->g_refs[1] >> 1, c->g_signals[0] >> 1, c->g_signals[1] >> 1);
	else
		add(buf, len, ", g_signals %u/%u (glibc 2.41 layout)", c->g_signals[0], c->g_signals[1]);
	add(buf, len, ", g_size %u/%u", c->g_size[0], c->g_size[1]);
	if (c->wrefs & 2)
		add(buf, len, ", monotonic clock");
	if (c->wrefs & 1)
		add(buf, len, ", pshared");
}

/* Does the caller's name suggest it acquires a lock built on this condvar
 * (OCaml's master lock, CPython's GIL, an application's own)? */
static bool lockish(const char *func)
{
	static const char *const words[] = { "acquire", "lock", "take", "enter" };
	if (!func)
		return false;
	for (size_t i = 0; i < sizeof(words) / sizeof(words[0]); i++)
		if (strcasestr(func, words[i]))
			return true;
	return false;
}

static void classify_cond(const struct lt_lm_env *e, struct lt_thread *t, const struct site *st)
{
	struct lt_futex *f = &t->futex;
	/* __g_signals[g]: the struct is 8-byte aligned, so g is the word's
	 * position mod 8, whatever the layout */
	int g = f->uaddr % 8 == 4;
	uint64_t sig0 = f->uaddr - 4 * (uint64_t)g;
	struct cond old, neu;
	int so = read_cond(e, sig0 - 40, true, &old) ? -10 : cond_score(&old, g);
	int sn = read_cond(e, sig0 - 32, false, &neu) ? -10 : cond_score(&neu, g);
	const struct cond *c = so >= sn ? &old : &neu;
	char buf[256] = "";
	f->lock_kind = "condition variable";
	f->lock_base = sig0 - (c->old ? 40 : 32);
	no_owner(f);
	if (so < 0 && sn < 0) {
		add(buf, sizeof(buf), "fields not recognised (no waiter counted in __wrefs)");
	} else {
		cond_state(c, g, buf, sizeof(buf));
		/* signals to consume (both layouts), or the closed bit
		 * (before 2.41): zero only when no wake-up is on its way */
		f->cond_signal = c->g_signals[g] ? 2 : 1;
	}
	const char *caller = st->caller >= 0 ? t->frames[st->caller].func : NULL;
	if (lockish(caller)) {
		add(buf, sizeof(buf), ", under %s", caller);
		t->acquire = caller;
	}
	set_state(f, buf);
}

/* ---- barrier: struct pthread_barrier { in, current_round, count, shared, out } ---- */

static void classify_barrier(const struct lt_lm_env *e, struct lt_thread *t)
{
	struct lt_futex *f = &t->futex;
	uint32_t b[5];
	f->lock_kind = "barrier";
	/* waits on in (offset 0) or current_round (4); 8-byte aligned */
	f->lock_base = f->uaddr - (f->uaddr % 8 == 4 ? 4 : 0);
	no_owner(f);
	if (e->read(e->arg, f->lock_base, b, sizeof(b))) {
		set_state(f, "unreadable");
		return;
	}
	char buf[96] = "";
	add(buf, sizeof(buf), "%u of %u arrived%s", b[0] - b[1], b[2], f->private_ ? "" : ", pshared");
	set_state(f, buf);
}

/* ---- pthread_join: the word is the joined thread's tid in its struct pthread ---- */

/* pthread_t of the thread whose tid word is at UADDR: libc exports the
 * offset for libthread_db (_thread_db_pthread_tid = {bits, count, offset}). */
static uint64_t join_base(const struct lt_lm_env *e, const struct lt_futex *f)
{
	uint64_t a, sz;
	uint32_t desc[3];
	if (e->lookup && !e->lookup(e->arg, "_thread_db_pthread_tid", &a, &sz) &&
	    !e->read(e->arg, a, desc, sizeof(desc)) && desc[0] == 32 && desc[2] < 0x10000 &&
	    f->uaddr >= desc[2])
		return f->uaddr - desc[2];
	if (e->fsbase && f->owner_kind == LT_OWNER_JOIN) {
		uint64_t fs = e->fsbase(e->arg, f->owner);
		if (fs && f->uaddr >= fs && f->uaddr < fs + 0x1000)
			return fs;
	}
	return f->uaddr;
}

static void classify_join(const struct lt_lm_env *e, struct lt_thread *t)
{
	struct lt_futex *f = &t->futex;
	char buf[96];
	f->lock_kind = LT_KIND_PTHREAD_JOIN;
	f->lock_base = join_base(e, f);
	if (f->word_ok && f->word == 0)
		snprintf(buf, sizeof(buf), "thread has exited");
	else if (f->word_ok)
		snprintf(buf, sizeof(buf), "thread %u has not exited%s", f->word,
			 is_thread(e, (int32_t)f->word) ? "" : " (not in this process)");
	else
		snprintf(buf, sizeof(buf), "unreadable");
	set_state(f, buf);
}

/* ---- no usable frames: what memory alone shows ---- */

#define FUTEX_WAIT_BITSET_CMD 9

/* Without libc's .symtab the static helpers that sleep (sem_wait tail-calls
 * __new_sem_wait_slow64) have no name at all.  A semaphore waiter sleeps in
 * FUTEX_WAIT_BITSET for value 0 on the 8-aligned low half of data, whose
 * high half counts it among the waiters, and the next int (private) is
 * glibc's FUTEX_PRIVATE (0) or FUTEX_SHARED (128) matching the op. */
static bool looks_like_sem(const struct lt_lm_env *e, const struct lt_futex *f)
{
	uint32_t w[3];
	if (f->cmd != FUTEX_WAIT_BITSET_CMD || f->expected != 0 || f->uaddr % 8 ||
	    e->read(e->arg, f->uaddr, w, sizeof(w)))
		return false;
	return w[0] == 0 && w[1] >= 1 && w[1] < (1u << 20) && w[2] == (f->private_ ? 0u : 128u);
}

/* A condvar whose fields fit strictly (see cond_score). */
static bool looks_like_cond(const struct lt_lm_env *e, const struct lt_futex *f)
{
	int g = f->uaddr % 8 == 4;
	uint64_t sig0 = f->uaddr - 4 * (uint64_t)g;
	struct cond c;
	if (f->cmd != FUTEX_WAIT_BITSET_CMD)
		return false;
	if (!read_cond(e, sig0 - 40, true, &c) && cond_score(&c, g) >= 3)
		return true;
	return !read_cond(e, sig0 - 32, false, &c) && cond_score(&c, g) >= 2;
}

static void classify_memory(const struct lt_lm_env *e, struct lt_thread *t, const struct site *st)
{
	struct lt_futex *f = &t->futex;
	bool mutex = f->owner_kind == LT_OWNER_MUTEX ||
		     ((f->owner_kind == LT_OWNER_ROBUST || f->owner_kind == LT_OWNER_PI) &&
		      f->mutex_ok && f->mutex_owner == f->owner);
	if (mutex) {
		classify_mutex(t, "pthread_mutex_lock");
	} else if (f->owner_kind == LT_OWNER_JOIN && f->join_confirmed) {
		classify_join(e, t);
	} else if (st->in_glibc && looks_like_cond(e, f)) {
		classify_cond(e, t, st);
	} else if (st->in_glibc && looks_like_sem(e, f)) {
		classify_sem(e, t, f->timeout_ptr ? "sem_timedwait" : "sem_wait");
		char *s = lts_asprintf("%s (from memory: no symbol for the wait)",
				       f->lock_state ? f->lock_state : "");
		if (s) {
			free(f->lock_state);
			f->lock_state = s;
		}
	}
}

/* glibc's answer to a PI or robust mutex the kernel refuses (EDEADLK from
 * FUTEX_LOCK_PI: taking it would close a cycle of PI mutexes; ESRCH: its
 * owner died) for a mutex type that must not return the error: it sleeps
 * for ever in FUTEX_WAIT on a zero int of its own frame, which no one else
 * knows the address of.  Seen as: a wait for 0 without timeout on a zero
 * word a few hundred bytes above the thread's stack pointer, from glibc's
 * code (a mutex acquire by name where libc's symbols are there). */
static bool glibc_parked(const struct lt_thread *t, const struct site *st)
{
	const struct lt_futex *f = &t->futex;
	if (!f->is_wait || f->is_pi || (f->cmd != 0 && f->cmd != FUTEX_WAIT_BITSET_CMD) || f->expected != 0 ||
	    !f->word_ok || f->word != 0 || f->timeout_ptr || !t->sc.sp)
		return false;
	if (f->uaddr < t->sc.sp || f->uaddr >= t->sc.sp + 512 || !st->in_glibc)
		return false;
	if (st->e)
		return st->e->fam == F_MUTEX;
	/* no entry named: only when glibc's frames have no names at all (no
	 * libc6-dbg: its static helpers are unnamed), not under an exported
	 * one such as syscall(), through which a program may wait on a word
	 * of its own frame that another thread will set */
	size_t k = 0;
	for (; k < t->n_frames && t->frames[k].module && !strcmp(t->frames[k].module, "libc.so.6"); k++)
		if (t->frames[k].func)
			return false;
	return k > 0 && k < t->n_frames;
}

void lt_glibc_classify(const struct lt_lm_env *e, struct lt_thread *t)
{
	struct site st;
	find_site(t, &st);
	if (glibc_parked(t, &st)) {
		struct lt_futex *f = &t->futex;
		f->parked = true;
		f->lock_kind = "glibc's endless wait";
		f->lock_base = f->uaddr;
		f->owner_kind = LT_OWNER_NONE;
		f->owner = 0;
		set_state(f, "a zero word of its own stack that nothing wakes: glibc sleeps here for ever when "
			  "the kernel refuses a PI or robust mutex (EDEADLK: taking it would close a cycle of "
			  "PI mutexes; ESRCH: its owner died)");
		t->acquire = "pthread_mutex_lock";
		return;
	}
	switch (st.e ? st.e->fam : F_NONE) {
	case F_MUTEX:
		classify_mutex(t, st.e->canon);
		break;
	case F_LLL:
		classify_lll(t, st.e->canon);
		break;
	case F_RWLOCK:
		classify_rwlock(e, t, st.e->canon);
		break;
	case F_SEM:
		classify_sem(e, t, st.e->canon);
		break;
	case F_COND:
		classify_cond(e, t, &st);
		break;
	case F_BARRIER:
		classify_barrier(e, t);
		break;
	case F_JOIN:
		classify_join(e, t);
		break;
	default:
		classify_memory(e, t, &st);
		break;
	}
}
