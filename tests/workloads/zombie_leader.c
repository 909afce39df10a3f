/*
 * zombie_leader - the AB/BA deadlock of `deadlock`, then the main thread
 * (the thread-group leader) exits with pthread_exit(): the process lives
 * on with a zombie leader and two deadlocked threads.
 *
 *   zombie_leader [--no-wait]
 *
 * Prints what `deadlock` prints (pid, L1, L2, threads A and B, their
 * `blocked` lines, `deadlocked`, `ready`), then after the gate
 * `leader_exit` just before main calls pthread_exit().  The process hangs
 * until killed; /proc/PID/stat then says Z for the leader.
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
	printf("leader_exit\n");
	fflush(stdout);
	pthread_exit(NULL);
}
