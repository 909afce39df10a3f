/* The glibc lock model (src/snapshot/runtimes/lock_glibc.c).
 *
 * lock_glibc_names: frame-name folding, both spellings (internal names from
 *   libc6-dbg's .symtab, exported versioned names from .dynsym).
 * lock_glibc_unit: lt_glibc_classify on synthetic threads and a fake
 *   memory image, one test per primitive and layout; the rwlock and the
 *   installed glibc's condition variable layout are laid out with the
 *   offsets of the installed headers (build/gen/glibc_layouts.h, from
 *   tests/gen/glibc_layout.c), the other condvar layout from the sources.
 * lock_glibc_live: tests/workloads/glibc_locks in every mode; each waiter's
 *   classification is compared with the workload's ground truth (needs
 *   root, like the other live snapshot tests). */
#include <criterion/criterion.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "lockmodel.h"
#include "snapshot.h"
#include "lt_fakeproc.h"
#include "lt_test.h"
#include "gen_layouts.h"

/* ---- names ---- */

static void name_is(const char *func, const char *want)
{
	const char *got = lt_glibc_acquire_name(func);
	if (!want)
		cr_assert_null(got, "%s -> %s, want NULL", func ? func : "(null)", got);
	else
		cr_assert(got && !strcmp(got, want), "%s -> %s, want %s", func, got ? got : "NULL",
			  want);
}

Test(lock_glibc_names, mutex_spellings)
{
	name_is("___pthread_mutex_lock", "pthread_mutex_lock");
	name_is("__pthread_mutex_lock@GLIBC_2.2.5", "pthread_mutex_lock");
	name_is("pthread_mutex_lock@@GLIBC_2.2.5", "pthread_mutex_lock");
	name_is("__GI___pthread_mutex_lock", "pthread_mutex_lock");
	name_is("__pthread_mutex_lock_full", "pthread_mutex_lock");
	name_is("__pthread_mutex_cond_lock", "pthread_mutex_lock");
	name_is("___pthread_mutex_timedlock64", "pthread_mutex_timedlock");
	name_is("pthread_mutex_timedlock@@GLIBC_2.34", "pthread_mutex_timedlock");
	name_is("__pthread_mutex_clocklock_common", "pthread_mutex_clocklock");
	name_is("pthread_mutex_clocklock@GLIBC_2.30", "pthread_mutex_clocklock");
	name_is("__lll_lock_wait", "__lll_lock_wait");
	name_is("__GI___lll_lock_wait", "__lll_lock_wait");
	name_is("__lll_lock_wait_private", "__lll_lock_wait_private");
	name_is("__lll_lock_wait_private@@GLIBC_PRIVATE", "__lll_lock_wait_private");
}

Test(lock_glibc_names, rwlock_sem_spellings)
{
	name_is("___pthread_rwlock_rdlock", "pthread_rwlock_rdlock");
	name_is("pthread_rwlock_rdlock@GLIBC_2.2.5", "pthread_rwlock_rdlock");
	name_is("__pthread_rwlock_wrlock@GLIBC_2.2.5", "pthread_rwlock_wrlock");
	name_is("pthread_rwlock_wrlock@@GLIBC_2.34", "pthread_rwlock_wrlock");
	name_is("__pthread_rwlock_wrlock_full64", "pthread_rwlock_wrlock");
	name_is("___pthread_rwlock_timedrdlock64", "pthread_rwlock_timedrdlock");
	name_is("___pthread_rwlock_clockwrlock64", "pthread_rwlock_clockwrlock");
	name_is("__new_sem_wait_slow64.constprop.0", "sem_wait");
	name_is("__new_sem_wait_slow64", "sem_wait");
	name_is("__new_sem_wait", "sem_wait");
	name_is("sem_wait@@GLIBC_2.34", "sem_wait");
	name_is("__old_sem_wait", "sem_wait");
	name_is("___sem_timedwait64", "sem_timedwait");
	name_is("sem_timedwait@GLIBC_2.2.5", "sem_timedwait");
	name_is("___sem_clockwait", "sem_clockwait");
}

Test(lock_glibc_names, event_wait_spellings)
{
	name_is("__pthread_cond_wait_common", "pthread_cond_wait");
	name_is("___pthread_cond_wait", "pthread_cond_wait");
	name_is("pthread_cond_wait@@GLIBC_2.3.2", "pthread_cond_wait");
	name_is("pthread_cond_wait@GLIBC_2.2.5", "pthread_cond_wait");
	name_is("__pthread_cond_wait_2_0", "pthread_cond_wait");
	name_is("___pthread_cond_timedwait64", "pthread_cond_timedwait");
	name_is("pthread_cond_clockwait@@GLIBC_2.34", "pthread_cond_clockwait");
	name_is("__pthread_clockjoin_ex", "pthread_join");
	name_is("___pthread_join", "pthread_join");
	name_is("pthread_join@@GLIBC_2.34", "pthread_join");
	name_is("___pthread_timedjoin_np64", "pthread_timedjoin_np");
	name_is("pthread_clockjoin_np@GLIBC_2.31", "pthread_clockjoin_np");
	name_is("___pthread_barrier_wait", "pthread_barrier_wait");
	name_is("pthread_barrier_wait@@GLIBC_2.34", "pthread_barrier_wait");
}

Test(lock_glibc_names, not_acquires)
{
	name_is(NULL, NULL);
	name_is("", NULL);
	name_is("@@GLIBC_2.2.5", NULL);
	name_is("main", NULL);
	name_is("pthread_mutex_unlock", NULL);
	name_is("pthread_mutex_trylock", NULL);
	name_is("__pthread_cond_signal", NULL);
	name_is("sem_post@@GLIBC_2.34", NULL);
	name_is("__futex_abstimed_wait_common", NULL);
	name_is("__futex_abstimed_wait_cancelable64", NULL);
	name_is("start_thread", NULL);
	name_is("rt_acquire", NULL);
}

/* ---- a fake process (tests/lib/lt_fakeproc.h): one memory window, a struct
 * pthread, a thread table ---- */

#define MEM_BASE 0x10000ull
#define MEM_SIZE 256
#define THR_BASE 0x20000ull /* a struct pthread */
#define TDB_SYM 0x30000ull  /* _thread_db_pthread_tid */

static struct fakeproc fk; /* threads 100 (waiter), 101 (holder), 102 */
static struct lt_lm_env env;

static void setup(void)
{
	fp_init(&fk, 3);
	fp_region(&fk, MEM_BASE, MEM_SIZE);
	fp_region(&fk, THR_BASE, 0x400);
	fp_env(&fk, &env);
}

/* Frees what waiter() gave the threads; the memory stays as it is. */
static void clear_threads(void)
{
	for (int i = 0; i < 3; i++) {
		free(fk.threads[i].frames);
		fk.threads[i].frames = NULL;
		free(fk.threads[i].futex.lock_state);
		fk.threads[i].futex.lock_state = NULL;
	}
}

static void teardown(void)
{
	clear_threads();
	fp_free(&fk);
}

/* The waiter (tid 100): FUNCS innermost first; names without '!' are in
 * libc.so.6, "!name" is an application frame.  NULL ends the list. */
static struct lt_thread *waiter(uint64_t uaddr, uint32_t word, bool private_, const char *const *funcs)
{
	struct lt_thread *t = &fk.threads[0];
	size_t n = 0;
	free(t->futex.lock_state);
	t->futex = (struct lt_futex){ .is_wait = true, .uaddr = uaddr, .word = word, .expected = word,
				      .word_ok = true, .private_ = private_, .owner_kind = LT_OWNER_NONE };
	t->acquire = NULL;
	while (funcs && funcs[n])
		n++;
	t->frames = n ? calloc(n, sizeof(*t->frames)) : NULL;
	for (size_t i = 0; i < n; i++) {
		bool app = funcs[i][0] == '!';
		t->frames[i].func = (char *)funcs[i] + app;
		t->frames[i].module = app ? "workload" : "libc.so.6";
	}
	t->n_frames = n;
	t->wait = LT_WAIT_FUTEX;
	t->sc.state = LT_SC_IN_SYSCALL;
	return t;
}

/* What src/snapshot/snapshot.c reads of a pthread_mutex_t at uaddr. */
static void as_mutex(struct lt_thread *t, int32_t count, int32_t owner, int32_t kind,
		     enum lt_owner_kind ok)
{
	struct lt_futex *f = &t->futex;
	f->mutex_ok = true;
	f->mutex_count = count;
	f->mutex_owner = owner;
	f->mutex_kind = kind;
	f->owner_kind = ok;
	f->owner = ok == LT_OWNER_NONE ? 0 : owner;
}

static void state_has(const struct lt_thread *t, const char *sub)
{
	const char *s = t->futex.lock_state;
	cr_assert(s && strstr(s, sub), "lock_state '%s' lacks '%s'", s ? s : "(null)", sub);
}

static void kind_is(const struct lt_thread *t, const char *kind)
{
	const char *k = t->futex.lock_kind;
	if (!kind)
		cr_assert_null(k, "lock_kind %s, want NULL", k);
	else
		cr_assert(k && !strcmp(k, kind), "lock_kind %s, want %s", k ? k : "NULL", kind);
}

static void acquire_is(const struct lt_thread *t, const char *want)
{
	if (!want)
		cr_assert_null(t->acquire, "acquire %s, want NULL", t->acquire);
	else
		cr_assert(t->acquire && !strcmp(t->acquire, want), "acquire %s, want %s",
			  t->acquire ? t->acquire : "NULL", want);
}

/* Classifies T: a KIND lock at BASE, taken through ACQUIRE. */
static void classified_as(struct lt_thread *t, const char *kind, uint64_t base, const char *acquire)
{
	lt_glibc_classify(&env, t);
	kind_is(t, kind);
	cr_assert_eq(t->futex.lock_base, base);
	acquire_is(t, acquire);
}

/* T, a waiter on a mutex (as_mutex: COUNT, OWNER, KIND bits, OKIND),
 * classified. */
static struct lt_thread *classified_mutex(struct lt_thread *t, int32_t count, int32_t owner, int32_t kind,
					  enum lt_owner_kind okind)
{
	as_mutex(t, count, owner, kind, okind);
	lt_glibc_classify(&env, t);
	return t;
}

static void owner_is(const struct lt_thread *t, enum lt_owner_kind kind, pid_t owner)
{
	cr_assert_eq(t->futex.owner_kind, kind);
	cr_assert_eq(t->futex.owner, owner);
}

TestSuite(lock_glibc_unit, .init = setup, .fini = teardown);

/* ---- mutex ---- */

Test(lock_glibc_unit, mutex_debug_names)
{
	static const char *const fr[] = { "__GI___lll_lock_wait", "___pthread_mutex_lock", "!worker",
					  "start_thread", NULL };
	struct lt_thread *t = waiter(MEM_BASE, 2, true, fr);
	as_mutex(t, 0, 101, 0, LT_OWNER_MUTEX);
	classified_as(t, "pthread mutex", MEM_BASE, "pthread_mutex_lock");
	owner_is(t, LT_OWNER_MUTEX, 101);
	state_has(t, "locked, waiters, owner 101, kind normal");
}

Test(lock_glibc_unit, mutex_dynsym_names_errorcheck)
{
	static const char *const fr[] = { "__lll_lock_wait", "pthread_mutex_lock@@GLIBC_2.2.5",
					  "!worker", NULL };
	struct lt_thread *t = classified_mutex(waiter(MEM_BASE, 1, true, fr),
					       0, 101, 2, LT_OWNER_MUTEX);
	kind_is(t, "pthread mutex");
	acquire_is(t, "pthread_mutex_lock");
	state_has(t, "locked, owner 101, kind errorcheck");
	cr_assert_null(strstr(t->futex.lock_state, "waiters"));
}

Test(lock_glibc_unit, mutex_timedlock_recursive_pshared)
{
	static const char *const fr[] = { "__lll_clocklock_wait", "__pthread_mutex_clocklock_common",
					  "___pthread_mutex_timedlock64", "!worker", NULL };
	struct lt_thread *t = classified_mutex(waiter(MEM_BASE, 2, false, fr),
					       3, 101, 1 | 128, LT_OWNER_MUTEX);
	acquire_is(t, "pthread_mutex_timedlock");
	state_has(t, "owner 101, count 3, kind recursive, pshared");
}

Test(lock_glibc_unit, mutex_robust_and_pi)
{
	static const char *const fr[] = { "__pthread_mutex_lock_full", "!worker", NULL };
	struct lt_thread *t = classified_mutex(waiter(MEM_BASE, 101u | 0x80000000u, true, fr),
					       0, 101, 16, LT_OWNER_ROBUST);
	kind_is(t, "pthread mutex");
	cr_assert_eq(t->futex.owner_kind, LT_OWNER_ROBUST);
	state_has(t, "locked, waiters, owner 101, kind normal, robust");

	teardown();
	setup();
	t = waiter(MEM_BASE, 101u | 0x80000000u, true, fr);
	t->futex.is_pi = true;
	as_mutex(t, 0, 101, 32, LT_OWNER_PI);
	lt_glibc_classify(&env, t);
	owner_is(t, LT_OWNER_PI, 101);
	state_has(t, "locked, waiters, owner 101, kind normal, pi");
}

/* glibc's endless wait after a refused PI mutex: a wait for 0 on a zero
 * word just above the stack pointer, under pthread_mutex_lock's code (or
 * unnamed glibc frames); the same wait under syscall() is a program's own
 * and not parked. */
Test(lock_glibc_unit, parked_after_a_refused_pi_mutex_and_not_under_syscall)
{
	static const char *const fr[] = { "__futex_abstimed_wait_common", "__pthread_mutex_lock_full", "!worker",
					  NULL };
	struct lt_thread *t = waiter(THR_BASE + 0x100, 0, true, fr);
	t->sc.sp = THR_BASE + 0x80;
	lt_glibc_classify(&env, t);
	cr_assert(t->futex.parked);
	kind_is(t, "glibc's endless wait");
	acquire_is(t, "pthread_mutex_lock");
	state_has(t, "EDEADLK");
	clear_threads();

	t = waiter(THR_BASE + 0x100, 0, true, (const char *const[]){ "x", "y", "!worker", NULL });
	t->frames[0].func = t->frames[1].func = NULL; /* no libc6-dbg */
	t->sc.sp = THR_BASE + 0x80;
	lt_glibc_classify(&env, t);
	cr_assert(t->futex.parked, "unnamed glibc frames");
	clear_threads();

	static const char *const sys[] = { "syscall", "!wait_done", "!worker", NULL };
	t = waiter(THR_BASE + 0x100, 0, true, sys);
	t->sc.sp = THR_BASE + 0x80;
	lt_glibc_classify(&env, t);
	cr_assert(!t->futex.parked, "a program's own wait through syscall()");
	clear_threads();

	/* far above the stack pointer: another frame's word */
	t = waiter(THR_BASE + 0x300, 0, true, fr);
	t->sc.sp = THR_BASE;
	lt_glibc_classify(&env, t);
	cr_assert(!t->futex.parked, "a word 0x300 above sp");
}

/* pthread_cond_wait re-locking its mutex: the thread waits for the mutex */
Test(lock_glibc_unit, mutex_relock_inside_cond_wait)
{
	static const char *const fr[] = { "__lll_lock_wait", "__pthread_mutex_cond_lock",
					  "__pthread_cond_wait_common", "pthread_cond_wait@@GLIBC_2.3.2",
					  "!rt_acquire", NULL };
	struct lt_thread *t = classified_mutex(waiter(MEM_BASE, 2, true, fr),
					       0, 101, 0, LT_OWNER_MUTEX);
	kind_is(t, "pthread mutex");
	acquire_is(t, "pthread_mutex_lock");
}

Test(lock_glibc_unit, internal_lock)
{
	static const char *const fr[] = { "__lll_lock_wait_private", "_IO_fwrite", "!main", NULL };
	struct lt_thread *t = waiter(MEM_BASE, 2, true, fr);
	lt_glibc_classify(&env, t);
	kind_is(t, NULL);
	acquire_is(t, "__lll_lock_wait_private");
	state_has(t, "glibc internal lock, word 2 (waiters)");
}

/* ---- rwlock: readers 0, writers 4, wrphase_futex 8, writers_futex 12,
 * cur_writer 24, shared 28, flags 48: laid out where the installed glibc's
 * headers put them (build/gen/glibc_layouts.h, tests/gen/glibc_layout.c),
 * not where the model expects them ---- */

static void rwlock_mem(uint32_t readers, uint32_t wrphase, uint32_t writers_futex, int32_t cur_writer)
{
	const struct gen_glibc *g = &gen_glibc_row;
	fp_put32(&fk, MEM_BASE + (uint64_t)g->rw_readers, readers);
	fp_put32(&fk, MEM_BASE + (uint64_t)g->rw_wrphase_futex, wrphase);
	fp_put32(&fk, MEM_BASE + (uint64_t)g->rw_writers_futex, writers_futex);
	fp_put32(&fk, MEM_BASE + (uint64_t)g->rw_cur_writer, (uint32_t)cur_writer);
}

Test(lock_glibc_unit, rwlock_reader_waits_for_writer)
{
	static const char *const fr[] = { "__futex_abstimed_wait_common",
					  "pthread_rwlock_rdlock@GLIBC_2.2.5", "!worker", NULL };
	rwlock_mem(3 | 3 << 3, 3, 3, 101);
	struct lt_thread *t = waiter(MEM_BASE + 8, 3, true, fr);
	classified_as(t, "rwlock", MEM_BASE, "pthread_rwlock_rdlock");
	owner_is(t, LT_OWNER_RWLOCK, 101);
	state_has(t, "writer 101, 3 readers waiting");
	state_has(t, "waiting writers");
}

Test(lock_glibc_unit, rwlock_writer_waits_on_writers_futex)
{
	static const char *const fr[] = { "__futex_abstimed_wait_common",
					  "___pthread_rwlock_wrlock", "!worker", NULL };
	rwlock_mem(3, 3, 3, 101);
	struct lt_thread *t = waiter(MEM_BASE + 12, 3, true, fr);
	lt_glibc_classify(&env, t);
	cr_assert_eq(t->futex.lock_base, MEM_BASE);
	acquire_is(t, "pthread_rwlock_wrlock");
	cr_assert_eq(t->futex.owner, 101);
	state_has(t, "writer 101");
}

Test(lock_glibc_unit, rwlock_held_by_readers)
{
	static const char *const fr[] = { "__futex_abstimed_wait_common",
					  "pthread_rwlock_wrlock@@GLIBC_2.34", "!worker", NULL };
	rwlock_mem(2 | 3 << 3, 1, 0, 0); /* state #4: readers, a writer waits */
	struct lt_thread *t = waiter(MEM_BASE + 8, 1, true, fr);
	lt_glibc_classify(&env, t);
	cr_assert_eq(t->futex.lock_base, MEM_BASE);
	cr_assert_eq(t->futex.owner_kind, LT_OWNER_NONE);
	state_has(t, "3 readers, waiting writers");
}

/* readers block on __readers itself while RWAITING is set */
Test(lock_glibc_unit, rwlock_reader_on_readers_word)
{
	static const char *const fr[] = { "___pthread_rwlock_rdlock", "!worker", NULL };
	uint32_t r = 3 | 4 | 1 << 3;
	rwlock_mem(r, 3, 3, 101);
	struct lt_thread *t = waiter(MEM_BASE, r, true, fr);
	lt_glibc_classify(&env, t);
	cr_assert_eq(t->futex.lock_base, MEM_BASE);
	state_has(t, "waiting readers");
}

/* __cur_writer is no thread of this process (pshared, other process) */
Test(lock_glibc_unit, rwlock_writer_elsewhere)
{
	static const char *const fr[] = { "___pthread_rwlock_rdlock", "!worker", NULL };
	rwlock_mem(3 | 1 << 3, 3, 3, 4242);
	fp_put32(&fk, MEM_BASE + 28, 1);
	struct lt_thread *t = waiter(MEM_BASE + 8, 3, false, fr);
	t->futex.owner_kind = LT_OWNER_JOIN; /* whatever the word looked like */
	lt_glibc_classify(&env, t);
	cr_assert_eq(t->futex.owner_kind, LT_OWNER_NONE);
	state_has(t, "writer 4242");
	state_has(t, "pshared");
}

/* ---- semaphore ---- */

Test(lock_glibc_unit, sem_value_and_waiters)
{
	static const char *const fr[] = { "__futex_abstimed_wait_common",
					  "__new_sem_wait_slow64.constprop.0", "!worker", NULL };
	fp_put64(&fk, MEM_BASE, 3ull << 32);
	struct lt_thread *t = waiter(MEM_BASE, 0, true, fr);
	classified_as(t, "semaphore", MEM_BASE, "sem_wait");
	cr_assert_eq(t->futex.owner_kind, LT_OWNER_NONE);
	state_has(t, "value 0, 3 waiters");
}

Test(lock_glibc_unit, sem_timedwait_outer_frame_wins)
{
	static const char *const fr[] = { "__futex_abstimed_wait_common", "__new_sem_wait_slow64",
					  "sem_timedwait@@GLIBC_2.2.5", "!worker", NULL };
	fp_put64(&fk, MEM_BASE, 1ull << 32);
	struct lt_thread *t = waiter(MEM_BASE, 0, false, fr);
	lt_glibc_classify(&env, t);
	acquire_is(t, "sem_timedwait");
	state_has(t, "value 0, 1 waiter, pshared");
}

/* ---- condition variable ---- */

/* Old layout (<= 2.40): wseq 0, g1_start 8, g_refs 16/20, g_size 24/28,
 * g1_orig_size 32, wrefs 36, g_signals 40/44.  New (2.41): no g_refs,
 * everything from g_size moves 8 down.  The layout the installed glibc has
 * (Debian 12's 2.36: the old one) is laid out from its headers
 * (build/gen/glibc_layouts.h); the other one, which no header here has,
 * from the sources as written above. */
struct cond_lay {
	long wseq, g1_start, g_refs, wrefs, g_signals;
};

static struct cond_lay cond_layout(bool old)
{
	const struct gen_glibc *h = &gen_glibc_row;
	if ((h->cond_g_refs >= 0) == old)
		return (struct cond_lay){ h->cond_wseq, h->cond_g1_start, h->cond_g_refs, h->cond_wrefs,
					  h->cond_g_signals };
	return old ? (struct cond_lay){ 0, 8, 16, 36, 40 } : (struct cond_lay){ 0, 8, -1, 28, 32 };
}

static uint64_t cond_mem(bool old, uint64_t base, int g, uint32_t waiters)
{
	struct cond_lay l = cond_layout(old);
	fp_put64(&fk, base + (uint64_t)l.wseq, 2 * waiters + (uint64_t)g); /* G2 = g */
	fp_put64(&fk, base + (uint64_t)l.g1_start, (uint64_t)g);
	if (old)
		fp_put32(&fk, base + (uint64_t)l.g_refs + 4 * (uint64_t)g, 2 * waiters);
	fp_put32(&fk, base + (uint64_t)l.wrefs, waiters << 3);
	return base + (uint64_t)l.g_signals + 4 * (uint64_t)g;
}

static void cond_case(bool old, int g)
{
	static const char *const fr[] = { "__futex_abstimed_wait_common",
					  "pthread_cond_wait@@GLIBC_2.3.2", "!worker", NULL };
	uint64_t base = MEM_BASE + 16;
	fp_put64(&fk, MEM_BASE + 8, 0x41); /* a malloc chunk header in front */
	uint64_t uaddr = cond_mem(old, base, g, 3);
	struct lt_thread *t = waiter(uaddr, 0, true, fr);
	lt_glibc_classify(&env, t);
	kind_is(t, "condition variable");
	cr_assert_eq(t->futex.lock_base, base, "%s layout g=%d: base 0x%lx, want 0x%lx",
		     old ? "old" : "new", g, (unsigned long)t->futex.lock_base, (unsigned long)base);
	acquire_is(t, NULL);
	cr_assert_eq(t->futex.owner_kind, LT_OWNER_NONE);
	char want[32];
	snprintf(want, sizeof(want), "group %d (G2), 3 waiters", g);
	state_has(t, want);
	state_has(t, !old ? "2.41 layout" : g ? "0/3 waiters per group" : "3/0 waiters per group");
}

Test(lock_glibc_unit, cond_old_layout_group0) { cond_case(true, 0); }
Test(lock_glibc_unit, cond_old_layout_group1) { cond_case(true, 1); }
Test(lock_glibc_unit, cond_new_layout_group0) { cond_case(false, 0); }
Test(lock_glibc_unit, cond_new_layout_group1) { cond_case(false, 1); }

/* Whether a wake-up is on its way: __g_signals of the waiters' group,
 * decoded for both layouts (the report's "idle pool" hint needs none). */
static void cond_signal_case(bool old, int g, uint32_t signals, int want)
{
	static const char *const fr[] = { "__futex_abstimed_wait_common",
					  "pthread_cond_wait@@GLIBC_2.3.2", "!worker", NULL };
	uint64_t uaddr = cond_mem(old, MEM_BASE + 16, g, 2);
	fp_put32(&fk, uaddr, signals);
	struct lt_thread *t = waiter(uaddr, 0, true, fr);
	lt_glibc_classify(&env, t);
	kind_is(t, "condition variable");
	cr_assert_eq(t->futex.cond_signal, want, "%s layout g=%d signals %u: %d, want %d",
		     old ? "old" : "new", g, signals, t->futex.cond_signal, want);
	clear_threads();
}

Test(lock_glibc_unit, cond_signal_pending_or_not)
{
	for (int g = 0; g < 2; g++) {
		cond_signal_case(true, g, 0, 1);
		cond_signal_case(true, g, 2, 2); /* one signal (count << 1) */
		cond_signal_case(true, g, 1, 2); /* the group closed */
		cond_signal_case(false, g, 0, 1);
		cond_signal_case(false, g, 1, 2);
	}
}

Test(lock_glibc_unit, cond_under_lock_acquire)
{
	static const char *const fr[] = { "__futex_abstimed_wait_common", "__pthread_cond_wait_common",
					  "___pthread_cond_wait", "!st_masterlock_acquire",
					  "!caml_thread_leave_blocking_section", NULL };
	uint64_t uaddr = cond_mem(true, MEM_BASE + 16, 0, 2);
	struct lt_thread *t = waiter(uaddr, 0, true, fr);
	lt_glibc_classify(&env, t);
	kind_is(t, "condition variable");
	cr_assert_eq(t->acquire, t->frames[3].func, "acquire must be the caller's name");
	state_has(t, "under st_masterlock_acquire");
}

Test(lock_glibc_unit, cond_caller_names)
{
	static const char *const names[] = { "take_gil", "rt_acquire", "EnterCriticalThing",
					     "caml_thread_leave_blocking_section" };
	for (size_t i = 0; i < 4; i++) {
		const char *fr[] = { "pthread_cond_wait@@GLIBC_2.3.2", names[i], NULL };
		char app[64];
		snprintf(app, sizeof(app), "!%s", names[i]);
		fr[1] = app;
		uint64_t uaddr = cond_mem(true, MEM_BASE + 16, 0, 1);
		struct lt_thread *t = waiter(uaddr, 0, true, fr);
		lt_glibc_classify(&env, t);
		cr_assert(t->acquire && !strcmp(t->acquire, names[i]), "caller %s", names[i]);
		clear_threads();
	}
	static const char *const plain[] = { "pthread_cond_wait@@GLIBC_2.3.2", "!worker_main", NULL };
	struct lt_thread *t = waiter(cond_mem(true, MEM_BASE + 16, 0, 1), 0, true, plain);
	lt_glibc_classify(&env, t);
	acquire_is(t, NULL);
}

Test(lock_glibc_unit, cond_without_waiters_counted)
{
	static const char *const fr[] = { "pthread_cond_wait@@GLIBC_2.3.2", "!worker", NULL };
	struct lt_thread *t = waiter(MEM_BASE + 40, 0, true, fr);
	lt_glibc_classify(&env, t);
	kind_is(t, "condition variable");
	state_has(t, "not recognised");
}

/* ---- barrier, join ---- */

Test(lock_glibc_unit, barrier)
{
	static const char *const fr[] = { "___pthread_barrier_wait", "!worker", NULL };
	fp_put32(&fk, MEM_BASE + 0, 3); /* in */
	fp_put32(&fk, MEM_BASE + 4, 0); /* current_round */
	fp_put32(&fk, MEM_BASE + 8, 4); /* count */
	struct lt_thread *t = waiter(MEM_BASE + 4, 0, true, fr);
	lt_glibc_classify(&env, t);
	kind_is(t, "barrier");
	cr_assert_eq(t->futex.lock_base, MEM_BASE);
	acquire_is(t, NULL);
	state_has(t, "3 of 4 arrived");
}

Test(lock_glibc_unit, join_with_thread_db_offset)
{
	static const char *const fr[] = { "__futex_abstimed_wait_common", "__pthread_clockjoin_ex",
					  "!main", NULL };
	/* libc's descriptor for libthread_db: {bits, count, offset} */
	fp_region(&fk, TDB_SYM, 12);
	fp_sym(&fk, "_thread_db_pthread_tid", TDB_SYM, 12);
	fp_put32(&fk, TDB_SYM, 32);
	fp_put32(&fk, TDB_SYM + 4, 1);
	fp_put32(&fk, TDB_SYM + 8, 0x2d0);
	struct lt_thread *t = waiter(THR_BASE + 0x2d0, 101, false, fr);
	t->futex.owner_kind = LT_OWNER_JOIN;
	t->futex.owner = 101;
	lt_glibc_classify(&env, t);
	kind_is(t, "thread exit (pthread_join)");
	cr_assert_eq(t->futex.lock_base, THR_BASE);
	owner_is(t, LT_OWNER_JOIN, 101);
	acquire_is(t, NULL);
	state_has(t, "thread 101 has not exited");
}

Test(lock_glibc_unit, join_without_symbols)
{
	static const char *const fr[] = { "pthread_join@@GLIBC_2.34", "!main", NULL };
	struct lt_thread *t = waiter(THR_BASE + 0x2d0, 101, false, fr);
	t->futex.owner_kind = LT_OWNER_JOIN;
	t->futex.owner = 101;
	lt_glibc_classify(&env, t);
	kind_is(t, "thread exit (pthread_join)");
	cr_assert_eq(t->futex.lock_base, THR_BASE + 0x2d0);
}

/* ---- no frames, unreadable memory, not glibc ---- */

Test(lock_glibc_unit, no_frames_mutex_from_memory)
{
	struct lt_thread *t = classified_mutex(waiter(MEM_BASE, 2, true, NULL),
					       0, 101, 0, LT_OWNER_MUTEX);
	kind_is(t, "pthread mutex");
	acquire_is(t, "pthread_mutex_lock");
	state_has(t, "owner 101");
}

Test(lock_glibc_unit, no_frames_join_and_unknown)
{
	struct lt_thread *t = waiter(THR_BASE + 0x2d0, 101, false, NULL);
	t->futex.owner_kind = LT_OWNER_JOIN;
	t->futex.owner = 101;
	t->futex.join_confirmed = true;
	lt_glibc_classify(&env, t);
	kind_is(t, "thread exit (pthread_join)");
	clear_threads();

	t = waiter(MEM_BASE + 40, 0, true, NULL); /* a condvar word, say */
	lt_glibc_classify(&env, t);
	kind_is(t, NULL);
	acquire_is(t, NULL);
	cr_assert_null(t->futex.lock_state);
}

/* Without libc6-dbg the static helpers have no name at all ("??" frames
 * inside libc.so.6): sem_wait tail-calls __new_sem_wait_slow64, so nothing
 * names the semaphore; its memory does. */
static struct lt_thread *nameless_waiter(uint64_t uaddr, uint32_t word, bool private_, const char *app)
{
	static const char *fr[4];
	fr[0] = "?", fr[1] = "?", fr[2] = app, fr[3] = NULL;
	struct lt_thread *t = waiter(uaddr, word, private_, fr);
	t->frames[0].func = t->frames[1].func = NULL; /* in libc, no symbol */
	t->futex.cmd = 9;                              /* FUTEX_WAIT_BITSET */
	return t;
}

Test(lock_glibc_unit, sem_from_memory_without_symbols)
{
	fp_put64(&fk, MEM_BASE, 2ull << 32);
	fp_put32(&fk, MEM_BASE + 8, 0); /* private: glibc's FUTEX_PRIVATE */
	struct lt_thread *t = nameless_waiter(MEM_BASE, 0, true, "!do_op");
	lt_glibc_classify(&env, t);
	kind_is(t, "semaphore");
	acquire_is(t, "sem_wait");
	state_has(t, "value 0, 2 waiters");
	state_has(t, "from memory");
	clear_threads();

	/* pshared semaphore seen with a private op: not a semaphore */
	fp_put32(&fk, MEM_BASE + 8, 128);
	t = nameless_waiter(MEM_BASE, 0, true, "!do_op");
	lt_glibc_classify(&env, t);
	kind_is(t, NULL);
	clear_threads();

	/* the same memory under an application's own futex call */
	fp_put32(&fk, MEM_BASE + 8, 0);
	static const char *const app[] = { "!my_futex_wait", "!do_op", NULL };
	t = waiter(MEM_BASE, 0, true, app);
	t->futex.cmd = 9;
	lt_glibc_classify(&env, t);
	kind_is(t, NULL);
	acquire_is(t, NULL);
}

Test(lock_glibc_unit, cond_from_memory_without_symbols)
{
	for (int old = 0; old < 2; old++) {
		memset(fp_at(&fk, MEM_BASE, MEM_SIZE), 0, MEM_SIZE);
		uint64_t uaddr = cond_mem(old, MEM_BASE + 16, 1, 2);
		struct lt_thread *t = nameless_waiter(uaddr, 0, true, "!rt_acquire");
		lt_glibc_classify(&env, t);
		kind_is(t, "condition variable");
		cr_assert_eq(t->futex.lock_base, MEM_BASE + 16, "%s layout", old ? "old" : "new");
		acquire_is(t, "rt_acquire");
		state_has(t, "group 1 (G2), 2 waiters");
		clear_threads();
	}
}

Test(lock_glibc_unit, raw_futex_in_application)
{
	/* the application's own lock, called through syscall(2): even with
	 * pthread_mutex_lock further out, the futex is not the mutex */
	static const char *const fr[] = { "syscall", "!my_lock", "pthread_mutex_lock@@GLIBC_2.2.5",
					  NULL };
	struct lt_thread *t = waiter(MEM_BASE, 1, true, fr);
	lt_glibc_classify(&env, t);
	kind_is(t, NULL);
	acquire_is(t, NULL);
}

Test(lock_glibc_unit, unreadable_memory)
{
	static const char *const rw[] = { "___pthread_rwlock_rdlock", "!w", NULL };
	static const char *const sem[] = { "__new_sem_wait_slow64", "!w", NULL };
	static const char *const cv[] = { "___pthread_cond_wait", "!w", NULL };
	static const char *const bar[] = { "___pthread_barrier_wait", "!w", NULL };
	const char *const *cases[] = { rw, sem, cv, bar };
	const char *kinds[] = { "rwlock", "semaphore", "condition variable", "barrier" };
	for (int i = 0; i < 4; i++) {
		fk.unreadable = true;
		struct lt_thread *t = waiter(MEM_BASE + 8, 0, true, cases[i]);
		t->futex.word_ok = false;
		t->futex.owner_kind = LT_OWNER_UNKNOWN;
		lt_glibc_classify(&env, t);
		kind_is(t, kinds[i]);
		cr_assert_eq(t->futex.owner_kind, LT_OWNER_UNKNOWN);
		cr_assert_not_null(t->futex.lock_state);
		clear_threads();
	}
}

/* ---- live: tests/workloads/glibc_locks ---- */

TL_WORKLOAD(64);

static void live_cleanup(void)
{
	tl_close(&wl);
}

static void start(const char *mode)
{
	tl_skip_unless_root("needs root: other processes' memory and /proc files; run as root");
	if (access(WL("glibc_locks"), X_OK) != 0)
		cr_skip_test("%s not built: run make all first", WL("glibc_locks"));
	char *argv[] = { WL("glibc_locks"), "--mode", (char *)mode, "--no-wait", NULL };
	tl_start_ready(&wl, argv, truth, &ntruth, 64, 30000);
}

static uint64_t truth_val(const char *type, const char *match, const char *key)
{
	return tl_truth_val(truth, ntruth, type, match, key);
}

struct expect {
	const char *kind;
	uint64_t base;
	enum lt_owner_kind owner_kind;
	pid_t owner;
	const char *acquire;        /* NULL: must be NULL                       */
	const char *acquire_rdlock; /* rwlock-writer: what op=rdlock waiters do */
	const char *state[3];
};

static void describe(const struct lt_thread *t, char *buf, size_t len)
{
	const struct lt_futex *f = &t->futex;
	size_t n = (size_t)snprintf(buf, len, "tid %d: kind %s base 0x%lx owner %s/%d acquire %s state '%s' frames:",
				    (int)t->tid, f->lock_kind ? f->lock_kind : "NULL",
				    (unsigned long)f->lock_base, lt_owner_kind_name(f->owner_kind),
				    (int)f->owner, t->acquire ? t->acquire : "NULL",
				    f->lock_state ? f->lock_state : "NULL");
	for (size_t i = 0; i < t->n_frames && i < 6 && n < len; i++)
		n += (size_t)snprintf(buf + n, len - n, " %s", t->frames[i].func ? t->frames[i].func : "?");
}

/* Every `blocked` thread of the ground truth is classified as E says. */
static void check_waiters(const struct expect *e, int want)
{
	struct lt_snapshot *s = NULL;
	pid_t pid = (pid_t)truth_val("pid", NULL, "pid");
	int r = lt_snapshot_take(pid, NULL, &s);
	cr_assert_eq(r, 0, "lt_snapshot_take(%d): %s", (int)pid, lt_snapshot_strerror(r));
	int seen = 0;
	for (int i = 0; i < ntruth; i++) {
		if (strncmp(truth[i], "blocked ", 8))
			continue;
		int ok;
		pid_t tid = (pid_t)tl_val(truth[i], "tid", &ok);
		const struct lt_thread *t = lt_snapshot_find(s, tid);
		cr_assert_not_null(t, "blocked thread %d not in the snapshot", (int)tid);
		char d[1024];
		describe(t, d, sizeof(d));
		const struct lt_futex *f = &t->futex;
		cr_assert(f->lock_kind && !strcmp(f->lock_kind, e->kind), "want kind %s; %s", e->kind, d);
		cr_assert_eq(f->lock_base, e->base, "want base 0x%lx; %s", (unsigned long)e->base, d);
		cr_assert_eq(f->owner_kind, e->owner_kind, "want owner kind %s; %s",
			     lt_owner_kind_name(e->owner_kind), d);
		cr_assert_eq(f->owner, e->owner, "want owner %d; %s", (int)e->owner, d);
		char match[48];
		snprintf(match, sizeof(match), "tid=%d op=rdlock", (int)tid);
		const char *acq = e->acquire_rdlock && tl_find(truth, ntruth, "thread", match)
					  ? e->acquire_rdlock
					  : e->acquire;
		if (acq)
			cr_assert(t->acquire && !strcmp(t->acquire, acq), "want acquire %s; %s", acq, d);
		else
			cr_assert_null(t->acquire, "want no acquire; %s", d);
		for (int k = 0; k < 3 && e->state[k]; k++)
			cr_assert(f->lock_state && strstr(f->lock_state, e->state[k]),
				  "want state with '%s'; %s", e->state[k], d);
		seen++;
	}
	cr_assert_eq(seen, want, "%d blocked threads in the ground truth, want %d", seen, want);
	lt_snapshot_free(s);
}

static void live_mutex(const char *mode, enum lt_owner_kind ok, const char *kind_text,
		       const char *extra)
{
	start(mode);
	pid_t h = (pid_t)truth_val("holder", NULL, "tid");
	char owner[32];
	snprintf(owner, sizeof(owner), "locked, waiters, owner %d", (int)h);
	struct expect e = { "pthread mutex", truth_val("lock", "name=gl_mutex ", "addr"), ok, h,
			    "pthread_mutex_lock", NULL, { owner, kind_text, extra } };
	check_waiters(&e, 3);
}

TestSuite(lock_glibc_live, .fini = live_cleanup, .timeout = 60);

Test(lock_glibc_live, mutex) { live_mutex("mutex", LT_OWNER_MUTEX, "kind normal", NULL); }
Test(lock_glibc_live, errorcheck) { live_mutex("errorcheck", LT_OWNER_MUTEX, "kind errorcheck", NULL); }
Test(lock_glibc_live, recursive) { live_mutex("recursive", LT_OWNER_MUTEX, "count 2, kind recursive", NULL); }
Test(lock_glibc_live, robust) { live_mutex("robust", LT_OWNER_ROBUST, "kind normal", "robust"); }
Test(lock_glibc_live, pi) { live_mutex("pi", LT_OWNER_PI, "kind normal", "pi"); }

Test(lock_glibc_live, rwlock_writer)
{
	start("rwlock-writer");
	pid_t h = (pid_t)truth_val("holder", NULL, "tid");
	char w[32];
	snprintf(w, sizeof(w), "writer %d", (int)h);
	struct expect e = { "rwlock", truth_val("lock", "name=gl_rwlock ", "addr"), LT_OWNER_RWLOCK, h,
			    "pthread_rwlock_wrlock", "pthread_rwlock_rdlock",
			    { w, "3 readers waiting", "waiting writers" } };
	check_waiters(&e, 4);
}

Test(lock_glibc_live, rwlock_readers)
{
	start("rwlock-readers");
	struct expect e = { "rwlock", truth_val("lock", "name=gl_rwlock ", "addr"), LT_OWNER_NONE, 0,
			    "pthread_rwlock_wrlock", NULL, { "3 readers", "waiting writers", NULL } };
	check_waiters(&e, 1);
}

Test(lock_glibc_live, sem)
{
	start("sem");
	struct expect e = { "semaphore", truth_val("lock", "name=gl_sem ", "addr"), LT_OWNER_NONE, 0,
			    "sem_wait", NULL, { "value 0, 3 waiters", NULL, NULL } };
	check_waiters(&e, 3);
}

Test(lock_glibc_live, cond)
{
	start("cond");
	struct expect e = { "condition variable", truth_val("lock", "name=gl_cond ", "addr"),
			    LT_OWNER_NONE, 0, NULL, NULL, { "3 waiters", NULL, NULL } };
	check_waiters(&e, 3);
}

Test(lock_glibc_live, cond_under_rt_acquire)
{
	start("cond-acquire");
	struct expect e = { "condition variable", truth_val("lock", "name=gl_rtlock.c ", "addr"),
			    LT_OWNER_NONE, 0, "rt_acquire", NULL,
			    { "3 waiters", "under rt_acquire", NULL } };
	check_waiters(&e, 3);
}

Test(lock_glibc_live, barrier)
{
	start("barrier");
	struct expect e = { "barrier", truth_val("lock", "name=gl_barrier ", "addr"), LT_OWNER_NONE, 0,
			    NULL, NULL, { "3 of 4 arrived", NULL, NULL } };
	check_waiters(&e, 3);
}

Test(lock_glibc_live, join)
{
	start("join");
	pid_t h = (pid_t)truth_val("holder", NULL, "tid");
	char st[48];
	snprintf(st, sizeof(st), "thread %d has not exited", (int)h);
	struct expect e = { "thread exit (pthread_join)", truth_val("lock", "name=gl_thread ", "addr"),
			    LT_OWNER_JOIN, h, NULL, NULL, { st, NULL, NULL } };
	check_waiters(&e, 1);
}

/* The same acquire paths recognised without libc's debug symbols: the
 * debug-info path points at a directory with none (the symbol cache off),
 * so libc's frames are named from .dynsym alone (versioned exported names)
 * or not at all, as on a machine without libc6-dbg; the snapshot says what
 * to install for the rest. */
static void no_debug_symbols(void)
{
	setenv("LOCKTRACE_DEBUGINFO_PATH", "/nonexistent-locktrace-test", 1);
	setenv("LOCKTRACE_CACHE_DIR", "off", 1);
	unsetenv("DEBUGINFOD_URLS");
}

static void notes_say_install_libc6_dbg(void)
{
	struct lt_snapshot *s = NULL;
	pid_t pid = (pid_t)truth_val("pid", NULL, "pid");
	cr_assert_eq(lt_snapshot_take(pid, NULL, &s), 0);
	cr_assert(tl_strlist_has(&s->notes, "install libc6-dbg for glibc frame names"),
		  "no note says glibc frames are unnamed for want of libc6-dbg");
	lt_snapshot_free(s);
}

Test(lock_glibc_live, mutex_without_libc_debug_symbols)
{
	no_debug_symbols();
	live_mutex("mutex", LT_OWNER_MUTEX, "kind normal", NULL);
	notes_say_install_libc6_dbg();
}

Test(lock_glibc_live, rwlock_writer_without_libc_debug_symbols)
{
	no_debug_symbols();
	start("rwlock-writer");
	pid_t h = (pid_t)truth_val("holder", NULL, "tid");
	char w[32];
	snprintf(w, sizeof(w), "writer %d", (int)h);
	struct expect e = { "rwlock", truth_val("lock", "name=gl_rwlock ", "addr"), LT_OWNER_RWLOCK, h,
			    "pthread_rwlock_wrlock", "pthread_rwlock_rdlock",
			    { w, "3 readers waiting", "waiting writers" } };
	check_waiters(&e, 4);
}

Test(lock_glibc_live, sem_without_libc_debug_symbols)
{
	no_debug_symbols();
	start("sem");
	struct expect e = { "semaphore", truth_val("lock", "name=gl_sem ", "addr"), LT_OWNER_NONE, 0,
			    "sem_wait", NULL, { "value 0, 3 waiters", NULL, NULL } };
	check_waiters(&e, 3);
}

Test(lock_glibc_live, cond_under_rt_acquire_without_libc_debug_symbols)
{
	no_debug_symbols();
	start("cond-acquire");
	struct expect e = { "condition variable", truth_val("lock", "name=gl_rtlock.c ", "addr"),
			    LT_OWNER_NONE, 0, "rt_acquire", NULL,
			    { "3 waiters", "under rt_acquire", NULL } };
	check_waiters(&e, 3);
}

/* With libc's debug symbols where make deps puts them (libc6-dbg: the
 * default debug-info path), the glibc frames are named and no note asks
 * for them. */
Test(lock_glibc_live, with_libc_debug_symbols_no_note_asks_for_them)
{
	setenv("LOCKTRACE_CACHE_DIR", "off", 1);
	unsetenv("LOCKTRACE_DEBUGINFO_PATH");
	start("mutex");
	struct lt_snapshot *s = NULL;
	pid_t pid = (pid_t)truth_val("pid", NULL, "pid");
	cr_assert_eq(lt_snapshot_take(pid, NULL, &s), 0);
	cr_assert_not(tl_strlist_has(&s->notes, "install libc6-dbg"),
		      "a note asks for libc6-dbg although make deps installs it (dpkg -s libc6-dbg)");
	lt_snapshot_free(s);
}

/* Two PI mutexes taken in opposite orders: the kernel refuses the second
 * thread's FUTEX_LOCK_PI (EDEADLK) and glibc parks it for ever on a zero
 * int of its own frame; the first waits in FUTEX_LOCK_PI for a mutex the
 * parked one holds.  One lock wait of both that says neither can go on
 * (not a DEADLOCK: which mutex was refused is not recorded), never "a lock
 * whose holder is not recorded" on the parked thread's stack word. */
static void pi_abba_is_a_probable_deadlock(void)
{
	start("pi-abba");
	pid_t first = (pid_t)truth_val("thread", "role=first", "tid");
	pid_t second = (pid_t)truth_val("thread", "role=second", "tid");
	uint64_t parked_at = truth_val("parked", NULL, "addr");
	pid_t pid = (pid_t)truth_val("pid", NULL, "pid");
	struct lt_snapshot *s = NULL;
	cr_assert_eq(lt_snapshot_take(pid, NULL, &s), 0);
	const struct lt_thread *p = lt_snapshot_find(s, second);
	cr_assert_not_null(p);
	cr_expect(p->futex.parked, "thread %d not seen parked: %s", (int)second, p->detail ? p->detail : "?");
	cr_expect_eq(p->futex.uaddr, parked_at);
	cr_assert_geq(s->n_verdicts, 1);
	const struct lt_verdict *v = &s->verdicts[0];
	cr_expect_eq(v->kind, LT_VERDICT_LOCK_WAIT, "%s", v->summary);
	cr_expect(strstr(v->summary, "sleeps for ever") && strstr(v->summary, "none of them can go on"), "%s",
		  v->summary);
	bool f = false, sc = false;
	for (size_t i = 0; i < v->n_tids; i++) {
		f |= v->tids[i] == first;
		sc |= v->tids[i] == second;
	}
	cr_expect(f && sc, "%s", v->summary);
	for (size_t i = 1; i < s->n_verdicts; i++)
		cr_expect(!strstr(s->verdicts[i].summary, "glibc's endless wait"), "%s", s->verdicts[i].summary);
	lt_snapshot_free(s);
}

Test(lock_glibc_live, pi_abba_parked_thread_is_a_probable_deadlock)
{
	pi_abba_is_a_probable_deadlock();
}

Test(lock_glibc_live, pi_abba_without_libc_debug_symbols)
{
	no_debug_symbols();
	pi_abba_is_a_probable_deadlock();
}
