/*
 * stack_sites - two functions lock the same mutex at known lines, while a
 * holder keeps it for known times: the call sites `record --stacks` must
 * find in the waits' stacks.
 *
 *   stack_sites [-r ROUNDS=4] [-a HOLD_A_MS=30] [-b HOLD_B_MS=12] [--no-wait]
 *
 * In each round the holder thread takes `sitelock`; the waiter thread calls
 * site_alpha(), which locks it at a known line and sleeps in FUTEX_WAIT
 * (checked in /proc); the holder keeps it HOLD_A_MS more, then unlocks.
 * The same for site_beta() with HOLD_B_MS.  Both functions are never
 * inlined, so each is a frame of its own.  Prints:
 *
 *   pid=PID
 *   lock name=sitelock addr=0x... kind=mutex
 *   ready
 *   thread role=waiter idx=0 tid=TID
 *   thread role=holder idx=0 tid=TID
 *   site name=alpha func=site_alpha line=N file=stack_sites.c   (the lock call's line)
 *   site name=beta func=site_beta line=N file=stack_sites.c
 *   site name=release func=hold_for line=N file=stack_sites.c   (the holder's unlock)
 *   done rounds=R alpha_waits=R beta_waits=R alpha_wait_us=U beta_wait_us=U
 *        (U: the waiter's own measure of its total wait in each function)
 */
#include "workload.h"

#define USAGE "[-r ROUNDS=4] [-a HOLD_A_MS=30] [-b HOLD_B_MS=12] [--no-wait]"

static pthread_mutex_t sitelock = PTHREAD_MUTEX_INITIALIZER;
static long rounds = 4, hold_a = 30, hold_b = 12;
static pid_t waiter_tid;
static int phase;          /* holder and waiter step through it: spin, no futex */
static double wait_a, wait_b;
static int line_alpha, line_beta, line_unlock;

static void spin_until(int *v, int want)
{
	while (__atomic_load_n(v, __ATOMIC_ACQUIRE) < want)
		sched_yield();
}

__attribute__((noinline)) static void site_alpha(void)
{
	double t0 = wl_now();
	line_alpha = __LINE__ + 1;
	pthread_mutex_lock(&sitelock);
	wait_a += wl_now() - t0;
	pthread_mutex_unlock(&sitelock);
	__asm__ volatile("" ::: "memory");
}

__attribute__((noinline)) static void site_beta(void)
{
	double t0 = wl_now();
	line_beta = __LINE__ + 1;
	pthread_mutex_lock(&sitelock);
	wait_b += wl_now() - t0;
	pthread_mutex_unlock(&sitelock);
	__asm__ volatile("" ::: "memory");
}

/* Holder's part of one wait: lock, let the waiter in, see it asleep on
 * the mutex, hold ms more, unlock. */
__attribute__((noinline)) static void hold_for(int step, long ms)
{
	pthread_mutex_lock(&sitelock);
	__atomic_store_n(&phase, step, __ATOMIC_RELEASE);
	wl_wait_blocked(__atomic_load_n(&waiter_tid, __ATOMIC_ACQUIRE), 202,
			(unsigned long)&sitelock);
	wl_sleep_ms(ms);
	line_unlock = __LINE__ + 1;
	pthread_mutex_unlock(&sitelock);
	spin_until(&phase, step + 1); /* the waiter got it and let it go */
}

static void *holder(void *arg)
{
	(void)arg;
	wl_thread("holder", 0);
	int step = 1;
	for (long r = 0; r < rounds; r++) {
		hold_for(step, hold_a);
		step += 2;
		hold_for(step, hold_b);
		step += 2;
	}
	return NULL;
}

static void *waiter(void *arg)
{
	(void)arg;
	__atomic_store_n(&waiter_tid, wl_thread("waiter", 0), __ATOMIC_RELEASE);
	int step = 1;
	for (long r = 0; r < rounds; r++) {
		spin_until(&phase, step);
		site_alpha();
		__atomic_store_n(&phase, step + 1, __ATOMIC_RELEASE);
		step += 2;
		spin_until(&phase, step);
		site_beta();
		__atomic_store_n(&phase, step + 1, __ATOMIC_RELEASE);
		step += 2;
	}
	return NULL;
}

int main(int argc, char **argv)
{
	static const struct option lo[] = { { "no-wait", no_argument, NULL, WL_OPT_NO_WAIT },
					    { 0 } };
	int no_wait = 0, c;
	while ((c = getopt_long(argc, argv, "r:a:b:", lo, NULL)) != -1) {
		switch (c) {
		case 'r': rounds = wl_arg(optarg, 1, 1000, USAGE); break;
		case 'a': hold_a = wl_arg(optarg, 1, 10000, USAGE); break;
		case 'b': hold_b = wl_arg(optarg, 1, 10000, USAGE); break;
		case WL_OPT_NO_WAIT: no_wait = 1; break;
		default: wl_usage(USAGE);
		}
	}
	wl_begin();
	wl_lock("sitelock", &sitelock, "mutex");
	wl_gate(no_wait);
	pthread_t th, tw;
	if (pthread_create(&tw, NULL, waiter, NULL))
		wl_die("pthread_create");
	while (!__atomic_load_n(&waiter_tid, __ATOMIC_ACQUIRE))
		sched_yield();
	if (pthread_create(&th, NULL, holder, NULL))
		wl_die("pthread_create");
	pthread_join(th, NULL);
	pthread_join(tw, NULL);
	/* __LINE__ of each lock call, set by the functions themselves */
	printf("site name=alpha func=site_alpha line=%d file=stack_sites.c\n", line_alpha);
	printf("site name=beta func=site_beta line=%d file=stack_sites.c\n", line_beta);
	printf("site name=release func=hold_for line=%d file=stack_sites.c\n", line_unlock);
	printf("done rounds=%ld alpha_waits=%ld beta_waits=%ld alpha_wait_us=%.0f beta_wait_us=%.0f\n",
	       rounds, rounds, rounds, wait_a * 1e6, wait_b * 1e6);
	return 0;
}
