/*
 * glibc_locks - one glibc primitive, held (or never released), and threads
 * waiting for it: the ground truth for the glibc lock model.
 *
 *   glibc_locks --mode MODE [--no-wait]
 *
 * MODE (hangs in every mode: kill it):
 *   mutex, errorcheck, recursive, robust, pi
 *                   a holder locks gl_mutex of that type (recursive: twice)
 *                   and blocks in read() on a pipe nobody writes; 3 waiters
 *                   block in pthread_mutex_lock
 *   rwlock-writer   a writer holds gl_rwlock and blocks in read(); 3 readers,
 *                   then 1 writer, wait
 *   rwlock-readers  3 readers hold gl_rwlock, each blocked in read(); 1
 *                   writer waits
 *   sem             gl_sem has value 0 and no holder; 3 threads in sem_wait
 *   cond            3 threads in pthread_cond_wait(gl_cond, gl_mutex); the
 *                   mutex is free
 *   cond-acquire    a GIL-style lock (mutex, condvar, busy flag): the holder
 *                   took it in rt_acquire() and blocks in read(); 3 threads
 *                   wait in pthread_cond_wait called from rt_acquire()
 *   barrier         3 threads in pthread_barrier_wait on a barrier of 4
 *   join            main joins a thread that sleeps forever; a checker
 *                   thread prints the ground truth
 *   pi-abba         two threads take PI mutexes gl_pi_a, gl_pi_b in opposite
 *                   orders: the kernel refuses the second one's request
 *                   (EDEADLK) and glibc parks it for ever on a word of its
 *                   own stack; the first waits in FUTEX_LOCK_PI.  Prints
 *                   "thread role=first|second idx=0 tid=T" and, once both
 *                   sleep, "blocked tid=T ..." for the first
 *
 * Every thread is created only after the previous one is verified (in
 * /proc/self/task/T/syscall) to sleep where it should, so the lock's state
 * at `ready` is fixed.  Prints, in order:
 *
 *   pid=PID
 *   lock name=OBJ addr=0x... kind=mutex|rwlock|sem|cond|barrier|thread [type=T]
 *   lock name=OBJ.FIELD addr=0x... kind=K_futex      (each futex word)
 *   thread role=holder idx=I tid=T                    (holders)
 *   holder tid=T fd=F                                 (verified in read(F))
 *   thread role=waiter idx=I tid=T op=OP              (as each starts)
 *   blocked tid=T on=OBJ.FIELD addr=0x...             (verified in futex)
 *   ready
 */
#include "workload.h"
#include <semaphore.h>
#include <stdint.h>
#include <sys/syscall.h>

#define USAGE "--mode mutex|errorcheck|recursive|robust|pi|rwlock-writer|" \
	      "rwlock-readers|sem|cond|cond-acquire|barrier|join|pi-abba [--no-wait]"
#define NWAIT 3

static pthread_mutex_t gl_mutex;
static pthread_rwlock_t gl_rwlock = PTHREAD_RWLOCK_INITIALIZER;
static pthread_cond_t gl_cond = PTHREAD_COND_INITIALIZER;
static pthread_barrier_t gl_barrier;
static sem_t gl_sem;

/* A GIL-style lock built on a condvar, as language runtimes do. */
static struct {
	pthread_mutex_t m;
	pthread_cond_t c;
	int busy;
} gl_rtlock = { PTHREAD_MUTEX_INITIALIZER, PTHREAD_COND_INITIALIZER, 0 };

static __attribute__((noinline)) void rt_acquire(void)
{
	pthread_mutex_lock(&gl_rtlock.m);
	while (gl_rtlock.busy)
		pthread_cond_wait(&gl_rtlock.c, &gl_rtlock.m);
	gl_rtlock.busy = 1;
	pthread_mutex_unlock(&gl_rtlock.m);
}

static int pipe_rd; /* read end of a pipe whose write end stays silent */
static const char *mutex_type = "";

/* The futex words of the object under test, for the `blocked` lines. */
struct word {
	const char *name;
	const void *addr;
};
static struct word words[4];
static int nwords;
static const char *obj_name;
static const void *obj_addr;
static size_t obj_size;

static void object(const char *name, const void *addr, size_t size, const char *kind,
		   const char *type)
{
	obj_name = name;
	obj_addr = addr;
	obj_size = size;
	printf("lock name=%s addr=%p kind=%s%s%s\n", name, addr, kind, type ? " type=" : "",
	       type ? type : "");
}

static void word(const char *field, const void *addr, const char *kind)
{
	static char names[4][48];
	snprintf(names[nwords], sizeof names[0], "%s.%s", obj_name, field);
	words[nwords].name = names[nwords];
	words[nwords].addr = addr;
	printf("lock name=%s addr=%p kind=%s\n", names[nwords], addr, kind);
	nwords++;
}

static const char *word_name(unsigned long addr)
{
	for (int i = 0; i < nwords; i++)
		if ((unsigned long)words[i].addr == addr)
			return words[i].name;
	return obj_name;
}

/* ---- threads ---- */

struct role {
	int idx;
	const char *op; /* what it calls */
	pid_t tid;
};

static void block_in_read(void)
{
	char byte;
	for (;;)
		if (read(pipe_rd, &byte, 1) >= 0)
			wl_die("read: unexpected data/EOF");
}

/* Named so that it suggests no lock acquire (the model looks at the
 * caller of pthread_cond_wait): only rt_acquire does. */
static void do_op(const char *op)
{
	if (!strcmp(op, "mutex_lock"))
		pthread_mutex_lock(&gl_mutex);
	else if (!strcmp(op, "rdlock"))
		pthread_rwlock_rdlock(&gl_rwlock);
	else if (!strcmp(op, "wrlock"))
		pthread_rwlock_wrlock(&gl_rwlock);
	else if (!strcmp(op, "sem_wait"))
		while (sem_wait(&gl_sem) != 0)
			;
	else if (!strcmp(op, "cond_wait")) {
		pthread_mutex_lock(&gl_mutex);
		for (;;) /* nobody signals */
			pthread_cond_wait(&gl_cond, &gl_mutex);
	} else if (!strcmp(op, "rt_acquire"))
		rt_acquire();
	else if (!strcmp(op, "barrier_wait"))
		pthread_barrier_wait(&gl_barrier);
}

static void *holder(void *arg)
{
	struct role *r = arg;
	pid_t tid = wl_thread("holder", r->idx);
	do_op(r->op);
	if (!strcmp(r->op, "mutex_lock") && !strcmp(mutex_type, "recursive"))
		pthread_mutex_lock(&gl_mutex); /* count 2 */
	__atomic_store_n(&r->tid, tid, __ATOMIC_RELEASE);
	block_in_read();
	return NULL;
}

static void *waiter(void *arg)
{
	struct role *r = arg;
	pid_t tid = gettid();
	printf("thread role=waiter idx=%d tid=%d op=%s\n", r->idx, (int)tid, r->op);
	__atomic_store_n(&r->tid, tid, __ATOMIC_RELEASE);
	do_op(r->op);
	wl_die("waiter %d got past %s", (int)tid, r->op);
	return NULL;
}

static pid_t wait_tid(pid_t *p)
{
	pid_t tid;
	while (!(tid = __atomic_load_n(p, __ATOMIC_ACQUIRE)))
		wl_sleep_ms(1);
	return tid;
}

/* Wait (10 s at most) until TID sleeps in futex() on a word of the object,
 * and print the `blocked` line. */
static void wait_futex(pid_t tid)
{
	long nr;
	unsigned long a0;
	uintptr_t lo = (uintptr_t)obj_addr;
	for (int i = 0; i < 10000; i++) {
		if (wl_blocked_in(tid, &nr, &a0) && nr == SYS_futex && a0 >= lo &&
		    a0 < lo + obj_size) {
			printf("blocked tid=%d on=%s addr=%#lx\n", (int)tid, word_name(a0), a0);
			return;
		}
		wl_sleep_ms(1);
	}
	wl_die("thread %d did not block in futex on %s", (int)tid, obj_name);
}

static void start_holder(int idx, const char *op)
{
	static struct role r[NWAIT];
	pthread_t t;
	r[idx].idx = idx;
	r[idx].op = op;
	wl_create(&t, NULL, holder, &r[idx]);
	pid_t tid = wait_tid(&r[idx].tid);
	wl_wait_blocked(tid, SYS_read, (unsigned long)pipe_rd);
	printf("holder tid=%d fd=%d\n", (int)tid, pipe_rd);
}

static void start_waiter(int idx, const char *op)
{
	static struct role r[NWAIT + 1];
	pthread_t t;
	r[idx].idx = idx;
	r[idx].op = op;
	wl_create(&t, NULL, waiter, &r[idx]);
	wait_futex(wait_tid(&r[idx].tid));
}

/* ---- modes ---- */

static void mode_mutex(const char *type)
{
	pthread_mutexattr_t a;
	pthread_mutexattr_init(&a);
	if (!strcmp(type, "errorcheck"))
		pthread_mutexattr_settype(&a, PTHREAD_MUTEX_ERRORCHECK);
	else if (!strcmp(type, "recursive"))
		pthread_mutexattr_settype(&a, PTHREAD_MUTEX_RECURSIVE);
	else if (!strcmp(type, "robust"))
		pthread_mutexattr_setrobust(&a, PTHREAD_MUTEX_ROBUST);
	else if (!strcmp(type, "pi"))
		pthread_mutexattr_setprotocol(&a, PTHREAD_PRIO_INHERIT);
	int err = pthread_mutex_init(&gl_mutex, &a);
	if (err)
		wl_die("pthread_mutex_init(%s): %s", type, strerror(err));
	mutex_type = type;
	object("gl_mutex", &gl_mutex, sizeof gl_mutex, "mutex", type);
	word("lock", &gl_mutex.__data.__lock, "mutex_futex");
	start_holder(0, "mutex_lock");
	for (int i = 0; i < NWAIT; i++)
		start_waiter(i, "mutex_lock");
}

static void rwlock_words(void)
{
	object("gl_rwlock", &gl_rwlock, sizeof gl_rwlock, "rwlock", NULL);
	word("readers", &gl_rwlock.__data.__readers, "rwlock_futex");
	word("wrphase_futex", &gl_rwlock.__data.__wrphase_futex, "rwlock_futex");
	word("writers_futex", &gl_rwlock.__data.__writers_futex, "rwlock_futex");
}

static void mode_rwlock_writer(void)
{
	rwlock_words();
	start_holder(0, "wrlock");
	for (int i = 0; i < NWAIT; i++)
		start_waiter(i, "rdlock");
	start_waiter(NWAIT, "wrlock");
}

static void mode_rwlock_readers(void)
{
	rwlock_words();
	for (int i = 0; i < NWAIT; i++)
		start_holder(i, "rdlock");
	start_waiter(0, "wrlock");
}

static void mode_sem(void)
{
	if (sem_init(&gl_sem, 0, 0))
		wl_die("sem_init: %s", strerror(errno));
	object("gl_sem", &gl_sem, sizeof gl_sem, "sem", NULL);
	word("value", &gl_sem, "sem_futex");
	for (int i = 0; i < NWAIT; i++)
		start_waiter(i, "sem_wait");
}

static void mode_cond(void)
{
	pthread_mutex_init(&gl_mutex, NULL);
	wl_lock("gl_mutex", &gl_mutex, "mutex");
	object("gl_cond", &gl_cond, sizeof gl_cond, "cond", NULL);
	word("g_signals0", &gl_cond.__data.__g_signals[0], "cond_futex");
	word("g_signals1", &gl_cond.__data.__g_signals[1], "cond_futex");
	for (int i = 0; i < NWAIT; i++)
		start_waiter(i, "cond_wait");
}

static void mode_cond_acquire(void)
{
	wl_lock("gl_rtlock", &gl_rtlock, "runtime_lock");
	object("gl_rtlock.c", &gl_rtlock.c, sizeof gl_rtlock.c, "cond", NULL);
	word("g_signals0", &gl_rtlock.c.__data.__g_signals[0], "cond_futex");
	word("g_signals1", &gl_rtlock.c.__data.__g_signals[1], "cond_futex");
	start_holder(0, "rt_acquire");
	for (int i = 0; i < NWAIT; i++)
		start_waiter(i, "rt_acquire");
}

static void mode_barrier(void)
{
	pthread_barrier_init(&gl_barrier, NULL, NWAIT + 1);
	object("gl_barrier", &gl_barrier, sizeof gl_barrier, "barrier", NULL);
	/* glibc's struct pthread_barrier: in, current_round, count, shared, out */
	word("in", (const char *)&gl_barrier, "barrier_futex");
	word("current_round", (const char *)&gl_barrier + 4, "barrier_futex");
	for (int i = 0; i < NWAIT; i++)
		start_waiter(i, "barrier_wait");
}

/* join: main sleeps in pthread_join; this checker verifies that and prints
 * the ground truth.  The joined thread's tid word lies inside its struct
 * pthread (pthread_t is its address). */
static pthread_t joined;
static pid_t main_tid, joined_tid;
static int no_wait;

static void *sleeper(void *arg)
{
	(void)arg;
	__atomic_store_n(&joined_tid, wl_thread("holder", 0), __ATOMIC_RELEASE);
	block_in_read();
	return NULL;
}

static void *checker(void *arg)
{
	(void)arg;
	object("gl_thread", (const void *)joined, 4096, "thread", NULL);
	long nr;
	unsigned long a0;
	for (int i = 0; i < 10000; i++) {
		if (wl_blocked_in(main_tid, &nr, &a0) && nr == SYS_futex &&
		    a0 >= (unsigned long)joined && a0 < (unsigned long)joined + 4096) {
			word("tid", (const void *)a0, "join_futex");
			printf("blocked tid=%d on=gl_thread.tid addr=%#lx\n", (int)main_tid, a0);
			wl_gate(no_wait);
			wl_hang();
		}
		wl_sleep_ms(1);
	}
	wl_die("main did not block in pthread_join");
}

static void mode_join(void)
{
	pthread_t t;
	wl_create(&joined, NULL, sleeper, NULL);
	wl_wait_blocked(wait_tid(&joined_tid), SYS_read, (unsigned long)pipe_rd);
	printf("holder tid=%d fd=%d\n", (int)joined_tid, pipe_rd);
	main_tid = gettid();
	printf("thread role=waiter idx=0 tid=%d op=join\n", (int)main_tid);
	wl_create(&t, NULL, checker, NULL);
	pthread_join(joined, NULL);
	wl_die("pthread_join returned");
}

static pthread_mutex_t gl_pi_a, gl_pi_b;
static pid_t pi_first, pi_second;

static void *pi_first_run(void *arg)
{
	(void)arg;
	pi_first = gettid();
	pthread_mutex_lock(&gl_pi_a);
	while (!pi_second) /* the second holds gl_pi_b */
		wl_sleep_ms(1);
	wl_sleep_ms(50);
	pthread_mutex_lock(&gl_pi_b); /* FUTEX_LOCK_PI: waits for the second */
	return NULL;
}

static void *pi_second_run(void *arg)
{
	(void)arg;
	pthread_mutex_lock(&gl_pi_b);
	pi_second = gettid();
	long nr;
	unsigned long a0;
	while (!wl_blocked_in(pi_first, &nr, &a0) || nr != SYS_futex || a0 != (unsigned long)&gl_pi_b)
		wl_sleep_ms(1);
	pthread_mutex_lock(&gl_pi_a); /* EDEADLK from the kernel: parked for ever */
	return NULL;
}

static void mode_pi_abba(void)
{
	pthread_mutexattr_t a;
	pthread_mutexattr_init(&a);
	pthread_mutexattr_setprotocol(&a, PTHREAD_PRIO_INHERIT);
	if (pthread_mutex_init(&gl_pi_a, &a) || pthread_mutex_init(&gl_pi_b, &a))
		wl_die("pthread_mutex_init(pi)");
	object("gl_pi_a", &gl_pi_a, sizeof gl_pi_a, "mutex", "pi");
	object("gl_pi_b", &gl_pi_b, sizeof gl_pi_b, "mutex", "pi");
	pthread_t t1, t2;
	wl_create(&t1, NULL, pi_first_run, NULL);
	wl_create(&t2, NULL, pi_second_run, NULL);
	pid_t f = wl_wait_tid(&pi_first), sc = wl_wait_tid(&pi_second);
	printf("thread role=first idx=0 tid=%d\nthread role=second idx=0 tid=%d\n", (int)f, (int)sc);
	wl_wait_blocked(f, SYS_futex, (unsigned long)&gl_pi_b);
	long nr;
	unsigned long a0;
	for (int i = 0; i < 10000; i++, wl_sleep_ms(1))
		if (wl_blocked_in(sc, &nr, &a0) && nr == SYS_futex && a0 != (unsigned long)&gl_pi_a) {
			printf("blocked tid=%d on=gl_pi_b addr=%p\nparked tid=%d addr=%#lx\n", (int)f,
			       (void *)&gl_pi_b, (int)sc, a0);
			return;
		}
	wl_die("the second thread was not parked");
}

int main(int argc, char **argv)
{
	const char *mode = NULL;
	int p[2];

	no_wait = WL_ARGS(argc, argv, USAGE, { 'm', "mode", .str = &mode }, { 'm', .str = &mode });
	if (!mode)
		wl_usage(USAGE);
	if (pipe(p) < 0)
		wl_die("pipe: %s", strerror(errno));
	pipe_rd = p[0]; /* p[1] stays open and silent */

	wl_begin();
	static const char *const mutex_modes[] = { "errorcheck", "recursive", "robust", "pi" };
	static const struct {
		const char *name;
		void (*run)(void);
	} modes[] = {
		{ "rwlock-writer", mode_rwlock_writer }, { "rwlock-readers", mode_rwlock_readers },
		{ "sem", mode_sem }, { "cond", mode_cond }, { "cond-acquire", mode_cond_acquire },
		{ "barrier", mode_barrier }, { "join", mode_join }, { "pi-abba", mode_pi_abba },
	};
	const char *mtype = !strcmp(mode, "mutex") ? "normal" : NULL;
	for (size_t i = 0; i < sizeof(mutex_modes) / sizeof(mutex_modes[0]); i++)
		if (!strcmp(mode, mutex_modes[i]))
			mtype = mode;
	size_t i = 0;
	while (i < sizeof(modes) / sizeof(modes[0]) && strcmp(mode, modes[i].name))
		i++;
	if (mtype)
		mode_mutex(mtype);
	else if (i < sizeof(modes) / sizeof(modes[0]))
		modes[i].run();
	else
		wl_usage(USAGE);
	wl_gate(no_wait);
	wl_hang();
}
