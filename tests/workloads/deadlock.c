/*
 * deadlock - a textbook AB/BA deadlock that exists before a tool attaches.
 *
 *   deadlock [--no-wait]
 *
 * Thread A takes L1 then L2, thread B takes L2 then L1, with a barrier
 * between the two acquisitions, so it deadlocks every time.  Before printing
 * `ready`, main waits until /proc shows both threads asleep in futex() on the
 * mutex they want.  After the gate nothing changes: the program hangs until
 * killed (main sleeps in pause()).  Prints:
 *
 *   pid=PID
 *   lock name=L1 addr=0x... kind=mutex
 *   lock name=L2 addr=0x... kind=mutex
 *   thread role=A idx=0 tid=TA
 *   thread role=B idx=0 tid=TB
 *   blocked tid=TA on=L2 addr=0x... holds=L1
 *   blocked tid=TB on=L1 addr=0x... holds=L2
 *   deadlocked
 *   ready
 */
#include "workload.h"
#include <sys/syscall.h>

#define USAGE "[--no-wait]"

pthread_mutex_t L1 = PTHREAD_MUTEX_INITIALIZER;
pthread_mutex_t L2 = PTHREAD_MUTEX_INITIALIZER;

static pthread_barrier_t both_hold;

struct side {
	const char *role;
	pthread_mutex_t *first, *second;
	pid_t tid;
};

static void *run(void *arg)
{
	struct side *s = arg;

	__atomic_store_n(&s->tid, wl_thread(s->role, 0), __ATOMIC_RELEASE);
	pthread_mutex_lock(s->first);
	pthread_barrier_wait(&both_hold);
	pthread_mutex_lock(s->second); /* never returns */
	return NULL;
}

int main(int argc, char **argv)
{
	static const struct option opts[] = {
		{ "no-wait", no_argument, NULL, WL_OPT_NO_WAIT }, { 0 }
	};
	static struct side a = { "A", &L1, &L2, 0 }, b = { "B", &L2, &L1, 0 };
	int no_wait = 0, c;

	while ((c = getopt_long(argc, argv, "", opts, NULL)) != -1) {
		switch (c) {
		case WL_OPT_NO_WAIT: no_wait = 1; break;
		default: wl_usage(USAGE);
		}
	}
	if (optind != argc)
		wl_usage(USAGE);

	wl_begin();
	wl_lock("L1", &L1, "mutex");
	wl_lock("L2", &L2, "mutex");

	pthread_barrier_init(&both_hold, NULL, 2);
	pthread_t ta, tb;
	wl_create(&ta, NULL, run, &a);
	wl_create(&tb, NULL, run, &b);

	/* wait until both threads have published their tid */
	while (!__atomic_load_n(&a.tid, __ATOMIC_ACQUIRE) ||
	       !__atomic_load_n(&b.tid, __ATOMIC_ACQUIRE))
		sched_yield();
	wl_wait_blocked(a.tid, SYS_futex, (unsigned long)&L2);
	wl_wait_blocked(b.tid, SYS_futex, (unsigned long)&L1);
	printf("blocked tid=%d on=L2 addr=%p holds=L1\n", (int)a.tid, (void *)&L2);
	printf("blocked tid=%d on=L1 addr=%p holds=L2\n", (int)b.tid, (void *)&L1);
	printf("deadlocked\n");

	wl_gate(no_wait);
	wl_hang();
}
