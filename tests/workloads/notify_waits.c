/*
 * notify_waits - threads wait for a signal that only another thread of
 * the process can send, and that thread is stuck or asleep (hangs: the
 * test kills it and its child):
 *
 *   notify_waits cond FILE     main waits on a condition variable (cv)
 *                              that thread "signaller" would signal after
 *                              it takes flock(FILE, LOCK_EX), which a
 *                              forked child holds (the child pause()s and
 *                              dies with the workload)
 *   notify_waits barrier FILE  main and thread "arrived" wait at a barrier
 *                              of 3 (bar); thread "signaller" would arrive
 *                              after its flock(FILE), which the child holds
 *   notify_waits sleep         main waits on cv; "signaller" sleeps an hour
 *
 * Prints pid=PID; cond, barrier: "holder pid=C" once C holds the lock;
 * "lock name=cv|bar addr=0x..." (the object main waits on); "thread
 * role=waiter idx=0 tid=PID" (main); barrier: "thread role=arrived idx=0
 * tid=A"; "thread role=signaller idx=0 tid=S"; once main (and A) sleep in
 * futex() "blocked tid=PID on=cv|bar" (and A's), "blocked tid=S
 * on=flock|sleep", "ready", then S blocks (in flock or clock_nanosleep:
 * wait for it in /proc).  No start gate.
 */
#include "workload.h"
#include <fcntl.h>
#include <stdbool.h>
#include <signal.h>
#include <sys/file.h>
#include <sys/prctl.h>
#include <sys/syscall.h>

static const char *mode, *file;
static pid_t main_tid, arrived_tid; /* arrived_tid: atomic loads and stores */
static pthread_mutex_t mu = PTHREAD_MUTEX_INITIALIZER;
static pthread_cond_t cv = PTHREAD_COND_INITIALIZER;
static pthread_barrier_t bar;
static int done;

static bool in_futex(pid_t tid)
{
	long nr = -1;
	unsigned long a0;
	return wl_blocked_in(tid, &nr, &a0) && nr == SYS_futex;
}

static void *arrived(void *arg)
{
	(void)arg;
	__atomic_store_n(&arrived_tid, wl_thread("arrived", 0), __ATOMIC_RELEASE);
	pthread_barrier_wait(&bar);
	wl_die("the barrier opened");
}

static void *signaller(void *arg)
{
	(void)arg;
	pid_t tid = wl_thread("signaller", 0);
	bool barrier = !strcmp(mode, "barrier");
	pid_t a = 0;
	for (int i = 0; i < 10000; i++) {
		a = __atomic_load_n(&arrived_tid, __ATOMIC_ACQUIRE);
		if (in_futex(main_tid) && (!barrier || (a && in_futex(a))))
			break;
		wl_sleep_ms(1);
	}
	if (!in_futex(main_tid))
		wl_die("main did not block in its wait");
	printf("blocked tid=%d on=%s\n", (int)main_tid, barrier ? "bar" : "cv");
	if (barrier)
		printf("blocked tid=%d on=bar\n", (int)a);
	printf("blocked tid=%d on=%s\n", (int)tid, file ? "flock" : "sleep");
	printf("ready\n");
	if (file) {
		int fd = open(file, O_RDWR);
		if (fd < 0 || flock(fd, LOCK_EX))
			wl_die("flock %s: %s", file, strerror(errno));
	} else {
		sleep(3600);
	}
	if (barrier) {
		pthread_barrier_wait(&bar);
	} else {
		pthread_mutex_lock(&mu);
		done = 1;
		pthread_cond_signal(&cv);
		pthread_mutex_unlock(&mu);
	}
	return NULL;
}

int main(int argc, char **argv)
{
	const char *usage = "usage: notify_waits cond FILE | barrier FILE | sleep";
	if (argc < 2 || (strcmp(argv[1], "cond") && strcmp(argv[1], "barrier") && strcmp(argv[1], "sleep")) ||
	    (strcmp(argv[1], "sleep") && argc < 3))
		wl_usage(usage);
	mode = argv[1];
	file = strcmp(mode, "sleep") ? argv[2] : NULL;
	wl_begin();
	if (file)
		wl_flock_holder(file);
	bool barrier = !strcmp(mode, "barrier");
	if (barrier && pthread_barrier_init(&bar, NULL, 3))
		wl_die("pthread_barrier_init");
	printf("lock name=%s addr=%p\n", barrier ? "bar" : "cv", barrier ? (void *)&bar : (void *)&cv);
	main_tid = gettid();
	wl_thread("waiter", 0);
	pthread_t t;
	if (barrier)
		wl_create(&t, NULL, arrived, NULL);
	wl_create(&t, NULL, signaller, NULL);
	if (barrier) {
		pthread_barrier_wait(&bar);
	} else {
		pthread_mutex_lock(&mu);
		while (!done)
			pthread_cond_wait(&cv, &mu);
		pthread_mutex_unlock(&mu);
	}
	wl_die("the wait ended");
}
