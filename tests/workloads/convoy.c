/*
 * convoy - many threads queued on a mutex whose owner is stuck in I/O.
 *
 *   convoy [-t WAITERS=16] [--no-wait]
 *
 * The owner thread takes `convoy_lock`, then blocks in read() on a
 * (blocking) socketpair end that never receives data.  WAITERS threads then
 * block in pthread_mutex_lock(&convoy_lock).  Main checks via /proc that the
 * owner sleeps in read(fd) and every waiter in futex(&convoy_lock) before
 * printing `ready`; after the gate it hangs until killed.  Prints:
 *
 *   pid=PID
 *   lock name=convoy_lock addr=0x... kind=mutex
 *   thread role=owner idx=0 tid=T
 *   owner tid=T fd=F
 *   thread role=waiter idx=I tid=TID        (WAITERS lines, any order)
 *   blocked tid=TID on=convoy_lock addr=0x... (WAITERS lines, idx order)
 *   ready
 */
#include "workload.h"
#include <sys/syscall.h>

#define USAGE "[-t WAITERS=16] [--no-wait]"

pthread_mutex_t convoy_lock = PTHREAD_MUTEX_INITIALIZER;

static int stuck_fd; /* our end of a socketpair nobody writes to */

static void *owner(void *arg)
{
	pid_t *tid = arg;
	char byte;

	__atomic_store_n(tid, wl_thread("owner", 0), __ATOMIC_RELEASE);
	pthread_mutex_lock(&convoy_lock);
	for (;;) /* never gets data */
		if (read(stuck_fd, &byte, 1) >= 0)
			wl_die("read: unexpected data/EOF");
	return NULL;
}

struct waiter {
	int idx;
	pid_t tid;
};

static void *waiter(void *arg)
{
	struct waiter *w = arg;

	__atomic_store_n(&w->tid, wl_thread("waiter", w->idx), __ATOMIC_RELEASE);
	pthread_mutex_lock(&convoy_lock); /* never returns */
	return NULL;
}

int main(int argc, char **argv)
{
	long nwaiters = 16;
	int no_wait = 0, sv[2];

	wl_args_threads(argc, argv, &nwaiters, 0, 10000, &no_wait, USAGE);

	wl_socketpair(SOCK_STREAM, sv);
	stuck_fd = sv[0]; /* sv[1] stays open and silent */

	wl_begin();
	wl_lock("convoy_lock", &convoy_lock, "mutex");

	static pid_t owner_tid;
	pthread_t t;
	wl_create(&t, NULL, owner, &owner_tid);
	wl_wait_blocked(wl_wait_tid(&owner_tid), SYS_read, stuck_fd);
	printf("owner tid=%d fd=%d\n", (int)owner_tid, stuck_fd);

	struct waiter *w = wl_xcalloc(nwaiters, sizeof *w);
	for (long i = 0; i < nwaiters; i++) {
		w[i].idx = (int)i;
		wl_create(&t, NULL, waiter, &w[i]);
	}
	for (long i = 0; i < nwaiters; i++) {
		wl_wait_blocked(wl_wait_tid(&w[i].tid), SYS_futex,
				(unsigned long)&convoy_lock);
		printf("blocked tid=%d on=convoy_lock addr=%p\n", (int)w[i].tid,
		       (void *)&convoy_lock);
	}

	wl_gate(no_wait);
	wl_hang();
}
