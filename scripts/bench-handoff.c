/*
 * bench-handoff: two threads pinned on one cpu hand a turn back and forth
 * through a futex (each hand-off: a FUTEX_WAKE that wakes the other, and a
 * FUTEX_WAIT that sleeps), the path every lock hand-off of the demo takes.
 * Prints, every window, the nanoseconds per hand-off in that window, of
 * wall time and of the process's CPU time (the BPF programs of the switch
 * and the wake-up run in the threads' own context and count in the
 * second; on a machine shared with other work the CPU time is the steadier
 * measure: another task taking the cpu stretches only the wall time).
 * With -t N (N > 2) the turn goes round a ring of N threads, each waiting
 * on a futex word of its own for the N - 1 hand-offs of the others: with a
 * few hundred threads every wait lasts a millisecond or more, the waits
 * whose stacks `record --stacks` copies (issue 28).
 * Built and run by scripts/bench-handoff.sh (issue 29, BENCHMARKS.md):
 *   bench-handoff [-c CPU=0] [-d SECONDS=3] [-w WINDOW_MS=100] [-t THREADS=2]
 *   window ns_per_handoff=N cpu_ns_per_handoff=N
 *   done handoffs=N seconds=S
 */
#define _GNU_SOURCE
#include <linux/futex.h>
#include <pthread.h>
#include <sched.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <sys/syscall.h>
#include <time.h>
#include <unistd.h>

static _Atomic int turn;
static _Atomic long handoffs;
static _Atomic int stop;
static int cpu;

static void fwait(_Atomic int *w, int v)
{
	syscall(SYS_futex, w, FUTEX_WAIT_PRIVATE, v, NULL, NULL, 0);
}
static void fwake(_Atomic int *w)
{
	syscall(SYS_futex, w, FUTEX_WAKE_PRIVATE, 1, NULL, NULL, 0);
}

static void *player(void *arg)
{
	int me = (int)(long)arg;
	cpu_set_t s;
	CPU_ZERO(&s);
	CPU_SET(cpu, &s);
	pthread_setaffinity_np(pthread_self(), sizeof(s), &s);
	while (!atomic_load(&stop)) {
		while (atomic_load(&turn) != me && !atomic_load(&stop))
			fwait(&turn, !me);
		atomic_store(&turn, !me);
		atomic_fetch_add(&handoffs, 1);
		fwake(&turn);
	}
	fwake(&turn);
	return NULL;
}

/* -t N: the ring; each thread's word is 1 when it is its turn */
static int nring;
static _Atomic int *ring;

static void *ring_player(void *arg)
{
	int me = (int)(long)arg, next = (me + 1) % nring;
	cpu_set_t s;
	CPU_ZERO(&s);
	CPU_SET(cpu, &s);
	pthread_setaffinity_np(pthread_self(), sizeof(s), &s);
	while (!atomic_load(&stop)) {
		while (!atomic_load(&ring[me]) && !atomic_load(&stop))
			fwait(&ring[me], 0);
		if (atomic_load(&stop))
			break;
		atomic_store(&ring[me], 0);
		atomic_fetch_add(&handoffs, 1);
		atomic_store(&ring[next], 1);
		fwake(&ring[next]);
	}
	return NULL;
}

static double cpu_now(void)
{
	struct timespec t;
	clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &t);
	return t.tv_sec + t.tv_nsec / 1e9;
}

static double now(void)
{
	struct timespec t;
	clock_gettime(CLOCK_MONOTONIC, &t);
	return t.tv_sec + t.tv_nsec / 1e9;
}

int main(int argc, char **argv)
{
	double secs = 3, win = 0.1;
	int o, n = 2;
	while ((o = getopt(argc, argv, "c:d:w:t:")) != -1) {
		if (o == 'c') cpu = atoi(optarg);
		else if (o == 'd') secs = atof(optarg);
		else if (o == 'w') win = atof(optarg) / 1000;
		else if (o == 't') n = atoi(optarg);
		else { fprintf(stderr, "usage: bench-handoff [-c CPU] [-d SECONDS] [-w WINDOW_MS] [-t THREADS]\n"); return 2; }
	}
	if (n < 2 || n > 4096) {
		fprintf(stderr, "bench-handoff: -t %d: expected 2 to 4096 threads\n", n);
		return 2;
	}
	pthread_t *t = calloc((size_t)n, sizeof(*t));
	if (n > 2) {
		nring = n;
		ring = calloc((size_t)n, sizeof(*ring));
		if (!t || !ring)
			return 1;
		ring[0] = 1;
		for (long i = 0; i < n; i++)
			if (pthread_create(&t[i], NULL, ring_player, (void *)i)) {
				fprintf(stderr, "bench-handoff: cannot create thread %ld of %d\n", i, n);
				return 1;
			}
	} else {
		if (!t)
			return 1;
		for (long i = 0; i < 2; i++)
			pthread_create(&t[i], NULL, player, (void *)i);
	}
	double t0 = now(), last = t0, lastc = cpu_now();
	long prev = 0;
	while (now() - t0 < secs) {
		usleep((useconds_t)(win * 1e6));
		double n = now(), c = cpu_now();
		long h = atomic_load(&handoffs);
		if (h > prev)
			printf("window ns_per_handoff=%.0f cpu_ns_per_handoff=%.0f\n",
			       (n - last) * 1e9 / (double)(h - prev), (c - lastc) * 1e9 / (double)(h - prev));
		prev = h;
		last = n;
		lastc = c;
	}
	atomic_store(&stop, 1);
	atomic_store(&turn, 2);
	fwake(&turn); fwake(&turn);
	for (int i = 0; i < nring; i++) {
		atomic_store(&ring[i], 1);
		fwake(&ring[i]);
	}
	for (int i = 0; i < n; i++)
		pthread_join(t[i], NULL);
	printf("done handoffs=%ld seconds=%.3f\n", atomic_load(&handoffs), now() - t0);
	return 0;
}
