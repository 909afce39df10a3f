/*
 * jvm_like - the shape of a hung JVM: two threads deadlocked on a pair of
 * mutexes while others spin on a cpu and others wake up from timed waits
 * every PERIOD, as a JVM's compiler, GC and periodic-task threads do.
 *
 *   jvm_like [-s SPINNERS=3] [-w TIMED=3] [-e SELECTS=1] [-p PERIOD_MS=50]
 *            [--no-wait]  (hangs)
 *
 * After the gate: SPINNERS threads loop in user space (no system call);
 * TIMED threads loop on pthread_cond_timedwait(), each on a condvar and
 * mutex of its own that nobody else touches (each wait ends by its timer:
 * FUTEX_WAIT_BITSET returning -ETIMEDOUT, and no lock is handed over);
 * SELECTS threads loop on select() with a PERIOD timeout on a
 * socket nobody writes to; threads A and B take L1 and L2, meet at a
 * barrier and then each wants the other's lock.  Main checks in /proc that
 * both sleep on the other's mutex, prints `deadlocked`, and waits forever.
 * A stall detector must see no progress from then on: the timed waits end
 * by their timers, the spinners make no call.  Prints:
 *
 *   pid=PID
 *   lock name=L1 addr=0x... kind=mutex
 *   lock name=L2 addr=0x... kind=mutex
 *   ready
 *   thread role=spin|timed|select|A|B idx=I tid=TID   (as each starts)
 *   blocked tid=A on=L2 addr=0x... holds=L1
 *   blocked tid=B on=L1 addr=0x... holds=L2
 *   deadlocked
 */
#include "workload.h"
#include <sys/select.h>
#include <sys/socket.h>
#include <sys/syscall.h>

#define USAGE "[-s SPINNERS=3] [-w TIMED=3] [-e SELECTS=1] [-p PERIOD_MS=50] [--no-wait]"

static pthread_mutex_t L1 = PTHREAD_MUTEX_INITIALIZER, L2 = PTHREAD_MUTEX_INITIALIZER;
static pthread_barrier_t both_hold;
static long period_ms = 50;
static int quiet_fd = -1; /* a socket nobody writes to */

struct side {
	const char *role;
	pthread_mutex_t *first, *second;
	pid_t tid;
};

static void *spin(void *arg)
{
	volatile unsigned long x = 0;

	wl_thread("spin", (int)(long)arg);
	for (;;)
		x++;
	return NULL;
}

static void *timed(void *arg)
{
	pthread_mutex_t m = PTHREAD_MUTEX_INITIALIZER;
	pthread_condattr_t ca;
	pthread_cond_t cv;
	struct timespec until;

	pthread_condattr_init(&ca);
	pthread_condattr_setclock(&ca, CLOCK_MONOTONIC);
	pthread_cond_init(&cv, &ca);
	wl_thread("timed", (int)(long)arg);
	pthread_mutex_lock(&m);
	for (;;) {
		clock_gettime(CLOCK_MONOTONIC, &until);
		until.tv_nsec += period_ms * 1000000L;
		until.tv_sec += until.tv_nsec / 1000000000L;
		until.tv_nsec %= 1000000000L;
		pthread_cond_timedwait(&cv, &m, &until);
	}
	return NULL;
}

static void *selecter(void *arg)
{
	wl_thread("select", (int)(long)arg);
	for (;;) {
		fd_set set;
		struct timeval tv = { period_ms / 1000, (period_ms % 1000) * 1000 };
		FD_ZERO(&set);
		FD_SET(quiet_fd, &set);
		select(quiet_fd + 1, &set, NULL, NULL, &tv);
	}
	return NULL;
}

static void *deadlocker(void *arg)
{
	struct side *s = arg;

	__atomic_store_n(&s->tid, wl_thread(s->role, 0), __ATOMIC_RELEASE);
	pthread_mutex_lock(s->first);
	pthread_barrier_wait(&both_hold);
	pthread_mutex_lock(s->second); /* never returns */
	return NULL;
}

static void start(void *(*fn)(void *), long n)
{
	for (long i = 0; i < n; i++) {
		pthread_t t;
		wl_create(&t, NULL, fn, (void *)i);
	}
}

static void wait_blocked(pid_t tid, pthread_mutex_t *on)
{
	long nr;
	unsigned long a0;
	while (!wl_blocked_in(tid, &nr, &a0) || nr != SYS_futex || a0 != (unsigned long)on)
		wl_sleep_ms(1);
}

int main(int argc, char **argv)
{
	static const struct option opts[] = {
		{ "no-wait", no_argument, NULL, WL_OPT_NO_WAIT }, { 0 }
	};
	static struct side a = { "A", &L1, &L2, 0 }, b = { "B", &L2, &L1, 0 };
	long spinners = 3, timers = 3, selects = 1;
	int no_wait = 0, c, sv[2];

	while ((c = getopt_long(argc, argv, "s:w:e:p:", opts, NULL)) != -1) {
		switch (c) {
		case 's': spinners = wl_arg(optarg, 0, 64, USAGE); break;
		case 'w': timers = wl_arg(optarg, 0, 64, USAGE); break;
		case 'e': selects = wl_arg(optarg, 0, 64, USAGE); break;
		case 'p': period_ms = wl_arg(optarg, 1, 10000, USAGE); break;
		case WL_OPT_NO_WAIT: no_wait = 1; break;
		default: wl_usage(USAGE);
		}
	}
	if (optind != argc)
		wl_usage(USAGE);
	if (socketpair(AF_UNIX, SOCK_STREAM, 0, sv))
		wl_die("socketpair: %s", strerror(errno));
	quiet_fd = sv[0];
	pthread_barrier_init(&both_hold, NULL, 2);

	wl_begin();
	wl_lock("L1", &L1, "mutex");
	wl_lock("L2", &L2, "mutex");
	wl_gate(no_wait);
	start(spin, spinners);
	start(timed, timers);
	start(selecter, selects);
	pthread_t ta, tb;
	wl_create(&ta, NULL, deadlocker, &a);
	wl_create(&tb, NULL, deadlocker, &b);
	while (!__atomic_load_n(&a.tid, __ATOMIC_ACQUIRE) || !__atomic_load_n(&b.tid, __ATOMIC_ACQUIRE))
		sched_yield();
	wait_blocked(a.tid, &L2);
	wait_blocked(b.tid, &L1);
	printf("blocked tid=%d on=L2 addr=%p holds=L1\n", (int)a.tid, (void *)&L2);
	printf("blocked tid=%d on=L1 addr=%p holds=L2\n", (int)b.tid, (void *)&L1);
	printf("deadlocked\n");
	wl_hang();
}
