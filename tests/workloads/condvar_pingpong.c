/*
 * condvar_pingpong - two threads hand a turn back and forth with a condvar.
 *
 *   condvar_pingpong [-n ROUNDS=200] [--no-wait]
 *
 * `ping` and `pong` share mutex `pp_mutex`, condvar `pp_cond` and `turn`
 * (0: ping's turn, 1: pong's).  Each waits on the condvar until it is its
 * turn, flips `turn` and signals; a round is one ping turn plus one pong
 * turn, so they alternate strictly.  The threads are created after the gate.
 * A thread waiting for its turn sleeps in FUTEX_WAIT on pp_cond.g_signals0
 * or pp_cond.g_signals1 (glibc 2.36, see wl_cond() in workload.h).  Prints:
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

#define USAGE "[-n ROUNDS=200] [--no-wait]"

pthread_mutex_t pp_mutex = PTHREAD_MUTEX_INITIALIZER;
pthread_cond_t pp_cond = PTHREAD_COND_INITIALIZER;

static long rounds = 200;
static int turn;    /* whose turn: 0 ping, 1 pong; protected by pp_mutex */
static long turns;  /* turns taken by both threads; protected by pp_mutex */

static void *player(void *arg)
{
	int me = (int)(long)arg;

	wl_thread(me == 0 ? "ping" : "pong", 0);
	for (long i = 0; i < rounds; i++) {
		pthread_mutex_lock(&pp_mutex);
		while (turn != me)
			pthread_cond_wait(&pp_cond, &pp_mutex);
		turn = !me;
		turns++;
		pthread_cond_signal(&pp_cond);
		pthread_mutex_unlock(&pp_mutex);
	}
	return NULL;
}

int main(int argc, char **argv)
{
	static const struct option opts[] = {
		{ "no-wait", no_argument, NULL, WL_OPT_NO_WAIT }, { 0 }
	};
	int no_wait = 0, c;

	while ((c = getopt_long(argc, argv, "n:", opts, NULL)) != -1) {
		switch (c) {
		case 'n': rounds = wl_arg(optarg, 1, 100000000, USAGE); break;
		case WL_OPT_NO_WAIT: no_wait = 1; break;
		default: wl_usage(USAGE);
		}
	}
	if (optind != argc)
		wl_usage(USAGE);

	wl_begin();
	wl_lock("pp_mutex", &pp_mutex, "mutex");
	wl_cond("pp_cond", &pp_cond);
	wl_gate(no_wait);

	pthread_t ping, pong;
	wl_create(&ping, NULL, player, (void *)0L);
	wl_create(&pong, NULL, player, (void *)1L);
	pthread_join(ping, NULL);
	pthread_join(pong, NULL);

	printf("done rounds=%ld turns=%ld\n", turns / 2, turns);
	return 0;
}
