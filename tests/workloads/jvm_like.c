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

#define USAGE "[-s SPINNERS=3] [-w TIMED=3] [-e SELECTS=1] [-p PERIOD_MS=50] [--no-wait]"

static pthread_mutex_t L1 = PTHREAD_MUTEX_INITIALIZER, L2 = PTHREAD_MUTEX_INITIALIZER;
static long period_ms = 50;
static int quiet_fd = -1; /* a socket nobody writes to */

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

WL_SIDE_FN(deadlocker)

int main(int argc, char **argv)
{
	long spinners = 3, timers = 3, selects = 1;
	int sv[2], no_wait = WL_ARGS(argc, argv, USAGE, WL_NUM('s', &spinners, 0, 64),
						 WL_NUM('w', &timers, 0, 64),
						 WL_NUM('e', &selects, 0, 64),
						 WL_NUM('p', &period_ms, 1, 10000));
	wl_socketpair(SOCK_STREAM, sv);
	quiet_fd = sv[0];

	wl_begin();
	wl_lock("L1", &L1, "mutex");
	wl_lock("L2", &L2, "mutex");
	wl_gate(no_wait);
	/* never joined: they run (spin, wait, select) until killed */
	wl_start(spinners, NULL, spin);
	wl_start(timers, NULL, timed);
	wl_start(selects, NULL, selecter);
	/* the spinners may starve the deadlockers for long: wait for ever */
	wl_deadlock(&L1, &L2, 0, deadlocker);
	wl_hang();
}
