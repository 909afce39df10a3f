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

#define USAGE "[--no-wait]"

pthread_mutex_t L1 = PTHREAD_MUTEX_INITIALIZER;
pthread_mutex_t L2 = PTHREAD_MUTEX_INITIALIZER;

WL_SIDE_FN(run)

int main(int argc, char **argv)
{
	static const struct wl_opt opts[] = { { 0 } };
	int no_wait = wl_args(argc, argv, opts, USAGE);
	wl_begin();
	wl_lock("L1", &L1, "mutex");
	wl_lock("L2", &L2, "mutex");
	wl_deadlock(&L1, &L2, 10000, run);
	wl_gate(no_wait);
	wl_hang();
}
