/*
 * condvar_pingpong - two threads hand a turn back and forth with a condvar.
 *
 *   condvar_pingpong [-n ROUNDS=200] [-s EVERY=0] [--no-wait]
 *
 * `ping` and `pong` share mutex `pp_mutex`, condvar `pp_cond` and `turn`
 * (0: ping's turn, 1: pong's).  Each waits on the condvar until it is its
 * turn, flips `turn` and signals; a round is one ping turn plus one pong
 * turn, so they alternate strictly.  The threads are created after the gate.
 * A thread waiting for its turn sleeps in FUTEX_WAIT on pp_cond.g_signals0
 * or pp_cond.g_signals1 (glibc 2.36, see wl_cond() in workload.h).
 *
 * On two cpus most hand-offs need no sleep at all (the other thread has
 * not reached its wait yet).  With -s EVERY, after every EVERY-th turn it
 * hands over, a thread waits until the other is asleep in its condvar wait
 * (checked in /proc), so its next hand-off needs a real futex wake of the
 * other thread: about ROUNDS/EVERY such wakes each way (EVERY >= 4; the
 * last period may have none).  Prints:
 *
 *   pid=PID
 *   lock name=pp_mutex addr=0x... kind=mutex
 *   lock name=pp_cond addr=0x... kind=cond
 *   lock name=pp_cond.g_signals0 addr=0x... kind=cond_futex
 *   lock name=pp_cond.g_signals1 addr=0x... kind=cond_futex
 *   ready
 *   thread role=ping idx=0 tid=TID
 *   thread role=pong idx=0 tid=TID
 *   done rounds=N turns=2N
 */
#include "workload.h"

#define USAGE "[-n ROUNDS=200] [-s EVERY=0, or at least 4] [--no-wait]"

pthread_mutex_t pp_mutex = PTHREAD_MUTEX_INITIALIZER;
pthread_cond_t pp_cond = PTHREAD_COND_INITIALIZER;

static long rounds = 200;
static long sleep_every; /* 0: never */
static volatile pid_t tids[2];
static int turn;    /* whose turn: 0 ping, 1 pong; protected by pp_mutex */
static long turns;  /* turns taken by both threads; protected by pp_mutex */

static void *player(void *arg)
{
	int me = (int)(long)arg;

	tids[me] = wl_thread(me == 0 ? "ping" : "pong", 0);
	for (long i = 0; i < rounds; i++) {
		pthread_mutex_lock(&pp_mutex);
		while (turn != me)
			pthread_cond_wait(&pp_cond, &pp_mutex);
		turn = !me;
		turns++;
		pthread_cond_signal(&pp_cond);
		pthread_mutex_unlock(&pp_mutex);
		/* ping waits after turns 0, EVERY, ...; pong half a period
		 * later, so the two never wait for each other at once */
		/* and only while the other has a wait left: after ping's turn
		 * i pong waits in its turn i+1, after pong's turn i ping in i+2 */
		if (sleep_every && (i + (me ? sleep_every / 2 : 0)) % sleep_every == 0 &&
		    i + 1 + me < rounds) {
			/* the other takes its turn, hands back, then sleeps in
			 * pthread_cond_wait: wait for that (not on the mutex) */
			long nr;
			unsigned long a0;
			int k;
			for (k = 0; k < 100000; k++) {
				if (tids[!me] && wl_blocked_in(tids[!me], &nr, &a0) && nr == 202 &&
				    a0 != (unsigned long)&pp_mutex)
					break;
				usleep(100);
			}
			if (k == 100000) /* 10 s */
				wl_die("the other thread never slept in its condvar wait");
		}
	}
	return NULL;
}

int main(int argc, char **argv)
{
	int no_wait = WL_ARGS(argc, argv, USAGE, WL_NUM('n', &rounds, 1, 100000000),
					  WL_NUM('s', &sleep_every, 0, 100000000));
	/* the two sides' waits must be two turns apart, or each waits for
	 * the other to sleep while spinning itself */
	if (sleep_every > 0 && sleep_every < 4)
		wl_usage(USAGE);

	wl_begin();
	wl_lock("pp_mutex", &pp_mutex, "mutex");
	wl_cond("pp_cond", &pp_cond);
	wl_gate(no_wait);

	wl_join(wl_start(2, NULL, player), 2); /* ping, pong */

	printf("done rounds=%ld turns=%ld\n", turns / 2, turns);
	return 0;
}
