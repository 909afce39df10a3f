// SPDX-License-Identifier: MIT
/* A lock call inside a static function the compiler inlines into its
 * caller (always_inline: at the workloads' -O1 as at -O2), for the
 * symbolizer's expansion of inlined calls (DWARF inlined subroutines).
 * A holder takes the mutex and holds it HOLD_MS, ROUNDS times; the waiter
 * waits for it each time in locked_bump(), inlined into waiter_loop().
 * Prints the lines of the lock call and of the inlined call. */
#include "workload.h"

#define USAGE "[-r ROUNDS=4] [-h HOLD_MS=20] [--no-wait]"

static pthread_mutex_t lk = PTHREAD_MUTEX_INITIALIZER;
static volatile long bumps;
static long rounds = 4, hold_ms = 20;
static int line_lock, line_call;
static pthread_barrier_t go;

static inline __attribute__((always_inline)) void locked_bump(void)
{
	line_lock = __LINE__ + 1;
	pthread_mutex_lock(&lk);
	bumps++;
	pthread_mutex_unlock(&lk);
}

static __attribute__((noinline)) void *waiter_loop(void *a)
{
	wl_thread("waiter", 0);
	for (long i = 0; i < rounds; i++) {
		pthread_barrier_wait(&go); /* the holder has the lock */
		wl_sleep_ms(2);
		line_call = __LINE__ + 1;
		locked_bump();
		pthread_barrier_wait(&go);
	}
	return a;
}

int main(int argc, char **argv)
{
	int no_wait = WL_ARGS(argc, argv, USAGE, WL_NUM('r', &rounds, 1, 1000), WL_NUM('h', &hold_ms, 1, 10000));
	wl_begin();
	wl_lock("inlinelock", &lk, "mutex");
	wl_thread("holder", 0);
	wl_gate(no_wait);
	pthread_barrier_init(&go, NULL, 2);
	pthread_t t;
	wl_create(&t, NULL, waiter_loop, NULL);
	for (long i = 0; i < rounds; i++) {
		pthread_mutex_lock(&lk);
		pthread_barrier_wait(&go);
		wl_sleep_ms(hold_ms);
		pthread_mutex_unlock(&lk);
		pthread_barrier_wait(&go);
	}
	pthread_join(t, NULL);
	printf("site name=lock func=locked_bump line=%d file=inline_lock.c\n", line_lock);
	printf("site name=call func=waiter_loop line=%d file=inline_lock.c\n", line_call);
	printf("done rounds=%ld bumps=%ld\n", rounds, bumps);
	return 0;
}
