/*
 * shared_locks - process-shared pthread mutexes in one shared mapping (a
 * memfd), used by several processes.
 *
 *   shared_locks [--mode deadlock|contend|futex] [-P PROCS=2] [-n ITERS=200] [--prefork]
 *                [--hold US=200] [--no-wait]
 *
 * deadlock (hangs): the parent's thread takes A then B, the child's thread
 * takes B then A, with a process-shared barrier between the two
 * acquisitions, so it deadlocks every time.  The child maps the memfd again
 * at another address (and unmaps the inherited mapping), so the same lock
 * has a different address in each process: only the mapped object and the
 * offset in it (what the kernel keys a shared futex by) are the same.
 * Before printing `ready`, the parent waits until /proc shows both threads
 * asleep in futex() on the lock they want.  The child dies with the parent
 * (PR_SET_PDEATHSIG): kill the parent.  Prints:
 *
 *   pid=PARENT
 *   child pid=CHILD
 *   lock name=A offset=0x0 parent_addr=0x... child_addr=0x... kind=mutex
 *   lock name=B offset=0x40 parent_addr=0x... child_addr=0x... kind=mutex
 *   thread role=parent pid=PARENT tid=TP
 *   thread role=child pid=CHILD tid=TC
 *   blocked tid=TP pid=PARENT on=B addr=0x... holds=A
 *   blocked tid=TC pid=CHILD on=A addr=0x... holds=B
 *   deadlocked
 *   ready
 *
 * contend: after the gate, the parent forks PROCS-1 children; every process
 * (the parent too) takes lock A ITERS times, holding it 200 us (--hold), then
 * the children exit and the parent reaps them.  Prints `pid=`, `lock name=A
 * offset=0x0 parent_addr=... kind=mutex`, `ready`, one `child idx=I pid=C`
 * per child, and `done locks=PROCS*ITERS procs=PROCS iters=ITERS
 * seconds=S` (from the gate until every process is done: the bench's
 * throughput).  With
 * --prefork the children are forked before `ready` (a prefork server: they
 * exist when a recorder attaches) and start with the parent, after the gate.
 *
 * futex (exact counts, no lock): after the gate, the parent forks PROCS-1
 * children; every process makes exactly ITERS FUTEX_WAKE calls (private,
 * nobody waits) on its own word W, then the children exit, the parent
 * reaps them, prints `done wakes=ITERS procs=PROCS` and sleeps until
 * killed.  Prints `pid=`, `lock name=W addr=0x... kind=futex` (the same
 * address in the children: they are forks), `ready`, `child idx=I pid=C`.
 */
#include "workload.h"
#include <linux/futex.h>
#include <sys/mman.h>
#include <sys/prctl.h>
#include <sys/syscall.h>
#include <sys/wait.h>

#define USAGE "[--mode deadlock|contend|futex] [-P PROCS] [-n ITERS] [--prefork] [--hold US] [--no-wait]"
#define OFF_GO 0x118    /* contend --prefork: the children may start */
#define MAP_LEN 4096
#define OFF_A 0x0
#define OFF_B 0x40
#define OFF_BAR 0x80
#define OFF_TID 0x100  /* the child's locking thread's tid */
#define OFF_COUNT 0x108 /* contend: lock acquisitions, under A */
#define OFF_BASE 0x110  /* the child's address of the mapping */

struct shm {
	char *base;
	pthread_mutex_t *a, *b;
	pthread_barrier_t *bar;
	volatile pid_t *child_tid;
	volatile long *count;
};

static void shm_at(struct shm *m, char *base)
{
	m->base = base;
	m->a = (pthread_mutex_t *)(base + OFF_A);
	m->b = (pthread_mutex_t *)(base + OFF_B);
	m->bar = (pthread_barrier_t *)(base + OFF_BAR);
	m->child_tid = (volatile pid_t *)(base + OFF_TID);
	m->count = (volatile long *)(base + OFF_COUNT);
}

static char *map_fd(int fd)
{
	void *p = mmap(NULL, MAP_LEN, PROT_READ | PROT_WRITE, MAP_SHARED, fd, 0);
	if (p == MAP_FAILED)
		wl_die("mmap: %s", strerror(errno));
	return p;
}

static void shm_init(struct shm *m, int fd)
{
	if (ftruncate(fd, MAP_LEN) != 0)
		wl_die("ftruncate: %s", strerror(errno));
	shm_at(m, map_fd(fd));
	pthread_mutexattr_t ma;
	pthread_mutexattr_init(&ma);
	pthread_mutexattr_setpshared(&ma, PTHREAD_PROCESS_SHARED);
	pthread_mutex_init(m->a, &ma);
	pthread_mutex_init(m->b, &ma);
	pthread_barrierattr_t ba;
	pthread_barrierattr_init(&ba);
	pthread_barrierattr_setpshared(&ba, PTHREAD_PROCESS_SHARED);
	pthread_barrier_init(m->bar, &ba, 2);
}

/* Is thread TID of process PID asleep in futex(addr)? */
static int blocked_on(pid_t pid, pid_t tid, unsigned long addr)
{
	char path[96];
	long nr = -1;
	unsigned long a0 = 0;
	char st = '?';
	snprintf(path, sizeof path, "/proc/%d/task/%d/syscall", (int)pid, (int)tid);
	FILE *f = fopen(path, "r");
	if (!f)
		return 0;
	int ok = fscanf(f, "%ld %lx", &nr, &a0) == 2;
	fclose(f);
	snprintf(path, sizeof path, "/proc/%d/task/%d/stat", (int)pid, (int)tid);
	if (!(f = fopen(path, "r")))
		return 0;
	char buf[512];
	size_t n = fread(buf, 1, sizeof buf - 1, f);
	fclose(f);
	buf[n] = 0;
	char *p = strrchr(buf, ')');
	if (p && p[1] == ' ')
		st = p[2];
	return ok && nr == SYS_futex && a0 == addr && st == 'S';
}

static void wait_blocked(pid_t pid, pid_t tid, unsigned long addr)
{
	for (int i = 0; i < 10000; i++) {
		if (blocked_on(pid, tid, addr))
			return;
		wl_sleep_ms(1);
	}
	wl_die("thread %d of process %d did not block in futex(%#lx)", (int)tid, (int)pid, addr);
}

struct locker {
	struct shm *m;
	pthread_mutex_t *first, *second;
	volatile pid_t tid;
};

static void *lock_two(void *arg)
{
	struct locker *l = arg;
	__atomic_store_n(&l->tid, gettid(), __ATOMIC_RELEASE);
	pthread_mutex_lock(l->first);
	pthread_barrier_wait(l->m->bar);
	pthread_mutex_lock(l->second); /* never returns */
	return NULL;
}

static pid_t start_locker(struct locker *l, pthread_t *t)
{
	wl_create(t, NULL, lock_two, l);
	while (!__atomic_load_n(&l->tid, __ATOMIC_ACQUIRE))
		sched_yield();
	return l->tid;
}

/* The child: the same memfd at another address (published at OFF_BASE
 * through the inherited mapping, which is then unmapped), B then A. */
static __attribute__((noreturn)) void child_deadlock(int fd, char *inherited)
{
	prctl(PR_SET_PDEATHSIG, SIGKILL); /* killing the parent ends the test */
	void *spacer = mmap(NULL, 3 * MAP_LEN, PROT_NONE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	(void)spacer;
	struct shm m;
	shm_at(&m, map_fd(fd));
	if (m.base == inherited)
		wl_die("the child mapped the memfd at the parent's address");
	*(char *volatile *)(m.base + OFF_BASE) = m.base;
	munmap(inherited, MAP_LEN);
	static struct locker l;
	l = (struct locker){ &m, m.b, m.a, 0 };
	pthread_t t;
	__atomic_store_n(m.child_tid, start_locker(&l, &t), __ATOMIC_RELEASE);
	wl_hang();
}

static int mode_deadlock(int fd, int no_wait)
{
	struct shm m;
	shm_init(&m, fd);
	char *volatile *child_base = (char *volatile *)(m.base + OFF_BASE);
	pid_t child = fork();
	if (child < 0)
		wl_die("fork: %s", strerror(errno));
	if (child == 0)
		child_deadlock(fd, m.base);
	printf("child pid=%d\n", (int)child);
	while (!*child_base)
		wl_sleep_ms(1);
	static struct locker l;
	l = (struct locker){ &m, m.a, m.b, 0 };
	pthread_t t;
	pid_t tp = start_locker(&l, &t);
	pid_t tc;
	while (!(tc = __atomic_load_n(m.child_tid, __ATOMIC_ACQUIRE)))
		wl_sleep_ms(1);
	char *cb = *child_base;
	printf("lock name=A offset=0x%x parent_addr=%p child_addr=%p kind=mutex\n", OFF_A,
	       (void *)m.a, (void *)(cb + OFF_A));
	printf("lock name=B offset=0x%x parent_addr=%p child_addr=%p kind=mutex\n", OFF_B,
	       (void *)m.b, (void *)(cb + OFF_B));
	printf("thread role=parent pid=%d tid=%d\n", (int)getpid(), (int)tp);
	printf("thread role=child pid=%d tid=%d\n", (int)child, (int)tc);
	wait_blocked(getpid(), tp, (unsigned long)m.b);
	wait_blocked(child, tc, (unsigned long)(cb + OFF_A));
	printf("blocked tid=%d pid=%d on=B addr=%p holds=A\n", (int)tp, (int)getpid(), (void *)m.b);
	printf("blocked tid=%d pid=%d on=A addr=%p holds=B\n", (int)tc, (int)child, (void *)(cb + OFF_A));
	printf("deadlocked\n");
	wl_gate(no_wait);
	wl_hang();
}

static long hold_us = 200;

struct work {
	struct shm *m; /* contend: the mapping; futex: NULL */
	long iters;
};

static int futex_word;

/* What every process does: take lock A, or make FUTEX_WAKE calls on W. */
static void work(const struct work *w)
{
	for (long i = 0; i < w->iters; i++) {
		if (!w->m) {
			syscall(SYS_futex, &futex_word, FUTEX_WAKE_PRIVATE, 1, NULL, NULL, 0);
			continue;
		}
		pthread_mutex_lock(w->m->a);
		(*w->m->count)++;
		struct timespec ts = { 0, hold_us * 1000 };
		if (hold_us)
			nanosleep(&ts, NULL);
		pthread_mutex_unlock(w->m->a);
		sched_yield();
	}
}

/* Forks PROCS-1 children that do w (after *go is set, if go is not NULL)
 * and exit; prints `child idx=I pid=C` for each. */
static pid_t *fork_workers(long procs, const struct work *w, volatile int *go)
{
	pid_t *kids = wl_xcalloc((size_t)procs, sizeof(*kids));
	for (long i = 1; i < procs; i++) {
		kids[i] = fork();
		if (kids[i] < 0)
			wl_die("fork: %s", strerror(errno));
		if (kids[i] == 0) {
			prctl(PR_SET_PDEATHSIG, SIGKILL);
			while (go && !__atomic_load_n(go, __ATOMIC_ACQUIRE))
				wl_sleep_ms(1);
			work(w);
			_exit(0);
		}
		printf("child idx=%ld pid=%d\n", i, (int)kids[i]);
	}
	return kids;
}

static void reap_workers(pid_t *kids, long procs)
{
	for (long i = 1; i < procs; i++) {
		int st;
		if (waitpid(kids[i], &st, 0) < 0 || !WIFEXITED(st) || WEXITSTATUS(st))
			wl_die("child %d failed", (int)kids[i]);
	}
	free(kids);
}

static int mode_contend(int fd, long procs, long iters, int prefork, int no_wait)
{
	struct shm m;
	shm_init(&m, fd);
	volatile int *go = (volatile int *)(m.base + OFF_GO);
	struct work w = { &m, iters };
	printf("lock name=A offset=0x%x parent_addr=%p kind=mutex\n", OFF_A, (void *)m.a);
	struct timespec t0, t1;
	if (!prefork) {
		wl_gate(no_wait);
		clock_gettime(CLOCK_MONOTONIC, &t0);
	}
	pid_t *kids = fork_workers(procs, &w, prefork ? go : NULL);
	if (prefork) {
		wl_gate(no_wait);
		clock_gettime(CLOCK_MONOTONIC, &t0);
		__atomic_store_n(go, 1, __ATOMIC_RELEASE);
	}
	work(&w);
	reap_workers(kids, procs);
	clock_gettime(CLOCK_MONOTONIC, &t1);
	if (*m.count != procs * iters)
		wl_die("count %ld, expected %ld", *m.count, procs * iters);
	printf("done locks=%ld procs=%ld iters=%ld seconds=%.6f\n", procs * iters, procs, iters,
	       (double)(t1.tv_sec - t0.tv_sec) + (double)(t1.tv_nsec - t0.tv_nsec) / 1e9);
	return 0;
}

static int mode_futex(long procs, long iters, int no_wait)
{
	struct work w = { NULL, iters };
	printf("lock name=W addr=%p kind=futex\n", (void *)&futex_word);
	wl_gate(no_wait);
	pid_t *kids = fork_workers(procs, &w, NULL);
	work(&w);
	reap_workers(kids, procs);
	printf("done wakes=%ld procs=%ld\n", iters, procs);
	wl_hang();
}

int main(int argc, char **argv)
{
	const char *mode = "deadlock", *hold = NULL;
	long procs = 2, iters = 200;
	int prefork = 0;
	int no_wait = WL_ARGS(argc, argv, USAGE, { 'm', "mode", .str = &mode },
			      { 'F', "prefork", .flag = &prefork }, { 'H', "hold", .str = &hold },
			      WL_NUM('P', &procs, 1, 64), WL_NUM('n', &iters, 1, 1000000));
	int contend_mode = !strcmp(mode, "contend") ? 1 : !strcmp(mode, "futex") ? 2 : 0;
	if (hold)
		hold_us = wl_arg(hold, 0, 1000000, USAGE);
	if (!contend_mode && strcmp(mode, "deadlock"))
		wl_usage(USAGE);
	wl_begin();
	if (contend_mode == 2)
		return mode_futex(procs, iters, no_wait);
	int fd = memfd_create("shared_locks", 0);
	if (fd < 0)
		wl_die("memfd_create: %s", strerror(errno));
	return contend_mode ? mode_contend(fd, procs, iters, prefork, no_wait) : mode_deadlock(fd, no_wait);
}
