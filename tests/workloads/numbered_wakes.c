/*
 * numbered_wakes - a known sequence of system calls for the flight
 * recorder's tests: one thread, pinned to cpu CPU, calls
 * futex(FUTEX_WAKE_PRIVATE) on a word nobody waits on CALLS times, passing
 * the call's number 1..CALLS as val3 (which FUTEX_WAKE ignores), so that
 * a trace shows which calls it holds; then the process lingers (asleep)
 * for LINGER seconds, or until killed, so that a dump can be taken.
 *
 *   numbered_wakes [-n CALLS=100000] [-c CPU=0] [-l LINGER=60] [--no-wait]
 *
 * Prints:
 *   pid=PID
 *   lock name=word addr=0x... kind=futex
 *   ready
 *   thread role=gen idx=0 tid=TID
 *   done calls=CALLS cpu=CPU
 */
#include "workload.h"
#include <linux/futex.h>
#include <sched.h>
#include <sys/syscall.h>

#define USAGE "[-n CALLS=100000] [-c CPU=0] [-l LINGER=60] [--no-wait]"

static int word;
static long ncalls = 100000, cpu;

static void *gen(void *arg)
{
	cpu_set_t set;

	(void)arg;
	CPU_ZERO(&set);
	CPU_SET((int)cpu, &set);
	if (sched_setaffinity(0, sizeof(set), &set))
		wl_die("sched_setaffinity(cpu %ld): %s", cpu, strerror(errno));
	wl_thread("gen", 0);
	fflush(stdout);
	for (long i = 1; i <= ncalls; i++)
		syscall(SYS_futex, &word, FUTEX_WAKE_PRIVATE, 1, NULL, NULL, (int)i);
	return NULL;
}

int main(int argc, char **argv)
{
	long linger = 60;
	int no_wait = WL_ARGS(argc, argv, USAGE, WL_NUM('n', &ncalls, 1, 100000000),
					  WL_NUM('c', &cpu, 0, 4095), WL_NUM('l', &linger, 0, 86400));

	wl_begin();
	wl_lock("word", &word, "futex");
	wl_gate(no_wait);
	wl_join(wl_start(1, NULL, gen), 1);
	printf("done calls=%ld cpu=%ld\n", ncalls, cpu);
	fflush(stdout);
	wl_sleep_ms(linger * 1000);
	return 0;
}
