/*
 * gen_events - drive the tracer's futex tracepoints as fast as possible.
 *
 *   gen_events [-t THREADS=2] [-d SECONDS=2] [--no-wait]
 *
 * Each thread calls FUTEX_WAKE_PRIVATE on its own int (`wakeword` slot I,
 * on its own cache line) that nobody waits on, in a tight loop, for SECONDS;
 * every call is a cheap but real futex system call.  Threads are created
 * after the gate.  Prints:
 *
 *   pid=PID
 *   lock name=wakeword idx=I addr=0x... kind=futex   (THREADS lines)
 *   ready
 *   thread role=gen idx=I tid=TID                    (THREADS lines)
 *   done syscalls=N seconds=S threads=T
 *
 * N counts the generator's FUTEX_WAKE calls (a multiple of 256 per thread;
 * glibc adds a few futex calls of its own, e.g. in pthread_join).
 */
#include "workload.h"
#include <linux/futex.h>
#include <sys/syscall.h>

#define USAGE "[-t THREADS=2] [-d SECONDS=2] [--no-wait]"

struct slot {
	int word;
	long calls;
} __attribute__((aligned(64)));

struct slot *wakeword;
static double deadline;

static void *gen(void *arg)
{
	struct slot *s = &wakeword[(long)arg];
	long calls = 0;

	wl_thread("gen", (int)(long)arg);
	do {
		for (int i = 0; i < 256; i++) /* check the clock now and then */
			syscall(SYS_futex, &s->word, FUTEX_WAKE_PRIVATE, 1, NULL,
				NULL, 0);
		calls += 256;
	} while (wl_now() < deadline);
	s->calls = calls;
	return NULL;
}

int main(int argc, char **argv)
{
	long nthreads = 2, seconds = 2;
	int no_wait = WL_ARGS(argc, argv, USAGE, WL_NUM('t', &nthreads, 1, 1000),
					  WL_NUM('d', &seconds, 0, 86400));

	if (posix_memalign((void **)&wakeword, 64, nthreads * sizeof *wakeword))
		wl_die("out of memory");
	memset(wakeword, 0, nthreads * sizeof *wakeword);

	wl_begin();
	for (long i = 0; i < nthreads; i++)
		printf("lock name=wakeword idx=%ld addr=%p kind=futex\n", i,
		       (void *)&wakeword[i].word);
	wl_gate(no_wait);

	double start = wl_now();
	deadline = start + seconds;
	wl_join(wl_start(nthreads, NULL, gen), nthreads);
	long total = 0;
	for (long i = 0; i < nthreads; i++)
		total += wakeword[i].calls;

	printf("done syscalls=%ld seconds=%.3f threads=%ld\n", total,
	       wl_now() - start, nthreads);
	return 0;
}
