/*
 * mutex_contention - THREADS workers hammer one pthread mutex.
 *
 *   mutex_contention [-t THREADS=4] [-n ITERS=500] [--no-wait]
 *
 * Workers are created after the start gate.  First, in THREADS rounds,
 * worker k takes `biglock` and holds it until every other worker is asleep
 * in FUTEX_WAIT on it (checked in /proc), so every worker is known to block
 * on the mutex at least THREADS-1 times whatever the scheduling.  Then each
 * takes it ITERS times; every 50th time it sleeps 200 us while holding it
 * (more contention, by chance).  Workers coordinate by spinning on atomics,
 * so biglock is the only futex they use.  Prints:
 *
 *   pid=PID
 *   lock name=biglock addr=0x... kind=mutex
 *   ready
 *   thread role=worker idx=I tid=TID        (one per worker)
 *   done locks=N threads=T iters=I sleeps=S (N = T*I + T*T, S = T*ceil(I/50))
 */
#include "workload.h"

#define USAGE "[-t THREADS=4] [-n ITERS=500] [--no-wait]"

pthread_mutex_t biglock = PTHREAD_MUTEX_INITIALIZER;

static long iters = 500;
static int go;               /* spin gate: no futex other than biglock */
static long locks, sleeps;   /* protected by biglock */
static volatile unsigned long sink;
static long nthreads = 4;
static pid_t *tids;        /* per worker, set before it passes the go gate */
static int held;           /* round k: k+1 once worker k holds biglock */
static int arrived;        /* workers done with rounds so far */

static void spin_until(int *v, int want)
{
	while (__atomic_load_n(v, __ATOMIC_ACQUIRE) < want)
		sched_yield();
}

/* Round k: worker k holds biglock until all others sleep on it. */
static void forced_round(int idx, int k)
{
	if (idx == k) {
		pthread_mutex_lock(&biglock);
		locks++;
		__atomic_store_n(&held, k + 1, __ATOMIC_RELEASE);
		for (long j = 0; j < nthreads; j++)
			if (j != k)
				wl_wait_blocked(tids[j], 202, (unsigned long)&biglock);
		pthread_mutex_unlock(&biglock);
	} else {
		spin_until(&held, k + 1);
		pthread_mutex_lock(&biglock);
		locks++;
		pthread_mutex_unlock(&biglock);
	}
	__atomic_add_fetch(&arrived, 1, __ATOMIC_ACQ_REL);
	spin_until(&arrived, (int)((k + 1) * nthreads));
}

static void *worker(void *arg)
{
	int idx = (int)(long)arg;

	__atomic_store_n(&tids[idx], wl_thread("worker", idx), __ATOMIC_RELEASE);
	while (!__atomic_load_n(&go, __ATOMIC_ACQUIRE))
		sched_yield();
	for (int k = 0; k < nthreads; k++)
		forced_round(idx, k);

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
	int no_wait = WL_ARGS(argc, argv, USAGE, WL_NUM('t', &nthreads, 1, 1000),
					  WL_NUM('n', &iters, 1, 100000000));

	wl_begin();
	wl_lock("biglock", &biglock, "mutex");
	wl_gate(no_wait);

	tids = wl_xcalloc(nthreads, sizeof *tids);
	pthread_t *t = wl_start(nthreads, NULL, worker);
	/* every worker has published its tid once it printed its line */
	for (long i = 0; i < nthreads; i++)
		wl_wait_tid(&tids[i]);
	__atomic_store_n(&go, 1, __ATOMIC_RELEASE);
	wl_join(t, nthreads);

	printf("done locks=%ld threads=%ld iters=%ld sleeps=%ld\n", locks,
	       nthreads, iters, sleeps);
	return 0;
}
