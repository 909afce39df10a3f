/*
 * mutex_contention - THREADS workers hammer one pthread mutex.
 *
 *   mutex_contention [-t THREADS=4] [-n ITERS=500] [--no-wait]
 *
 * Workers are created after the start gate.  Each takes `biglock` ITERS
 * times; every 50th time it sleeps 200 us while holding it, so the others
 * really block in FUTEX_WAIT on the mutex address.  Prints:
 *
 *   pid=PID
 *   lock name=biglock addr=0x... kind=mutex
 *   ready
 *   thread role=worker idx=I tid=TID        (one per worker)
 *   done locks=N threads=T iters=I sleeps=S (N = T*I, S = T*ceil(I/50))
 */
#include "workload.h"

#define USAGE "[-t THREADS=4] [-n ITERS=500] [--no-wait]"

pthread_mutex_t biglock = PTHREAD_MUTEX_INITIALIZER;

static long iters = 500;
static int go;               /* spin gate: no futex other than biglock */
static long locks, sleeps;   /* protected by biglock */
static volatile unsigned long sink;

static void *worker(void *arg)
{
	int idx = (int)(long)arg;

	wl_thread("worker", idx);
	while (!__atomic_load_n(&go, __ATOMIC_ACQUIRE))
		sched_yield();

	for (long i = 0; i < iters; i++) {
		pthread_mutex_lock(&biglock);
		locks++;
		for (int k = 0; k < 100; k++) /* a tiny bit of work */
			sink = sink * 31 + k;
		if (i % 50 == 0) {
			sleeps++;
			usleep(200); /* hold the lock: force contention */
		}
		pthread_mutex_unlock(&biglock);
	}
	return NULL;
}

int main(int argc, char **argv)
{
	static const struct option opts[] = {
		{ "no-wait", no_argument, NULL, WL_OPT_NO_WAIT }, { 0 }
	};
	long nthreads = 4;
	int no_wait = 0, c;

	while ((c = getopt_long(argc, argv, "t:n:", opts, NULL)) != -1) {
		switch (c) {
		case 't': nthreads = wl_arg(optarg, 1, 1000, USAGE); break;
		case 'n': iters = wl_arg(optarg, 1, 100000000, USAGE); break;
		case WL_OPT_NO_WAIT: no_wait = 1; break;
		default: wl_usage(USAGE);
		}
	}
	if (optind != argc)
		wl_usage(USAGE);

	wl_begin();
	wl_lock("biglock", &biglock, "mutex");
	wl_gate(no_wait);

	pthread_t *t = wl_xcalloc(nthreads, sizeof *t);
	for (long i = 0; i < nthreads; i++)
		wl_create(&t[i], NULL, worker, (void *)i);
	__atomic_store_n(&go, 1, __ATOMIC_RELEASE);
	for (long i = 0; i < nthreads; i++)
		pthread_join(t[i], NULL);

	printf("done locks=%ld threads=%ld iters=%ld sleeps=%ld\n", locks,
	       nthreads, iters, sleeps);
	return 0;
}
