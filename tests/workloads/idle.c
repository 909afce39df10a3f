/*
 * idle - an idle server: threads sit in select() on sockets with no traffic.
 *
 *   idle [-t THREADS=8] [-d SECONDS=10] [--no-wait]
 *
 * Each thread owns a socketpair nobody writes to and loops on select() for
 * readability with a 5 s timeout (shorter for the last wait, so the program
 * ends after SECONDS) until SECONDS have passed.  This is what "blocked but
 * healthy" looks like: it must not be reported as a stall.  Threads are
 * created after the gate.  Prints:
 *
 *   pid=PID
 *   socket role=idle idx=I fd=F              (THREADS lines)
 *   ready
 *   thread role=idle idx=I tid=TID           (THREADS lines, any order)
 *   done seconds=S threads=T timeouts=N
 *
 * N counts select() calls that timed out: THREADS*ceil(SECONDS/5).
 */
#include "workload.h"
#include <sys/select.h>

#define USAGE "[-t THREADS=8] [-d SECONDS=10] [--no-wait]"

static double deadline;
static long timeouts;
static int *fds;

static void *idler(void *arg)
{
	int idx = (int)(long)arg, fd = fds[idx];
	fd_set set;

	wl_thread("idle", idx);
	for (;;) {
		double left = deadline - wl_now();
		if (left <= 0)
			break;
		if (left > 5)
			left = 5;
		long us = (long)(left * 1e6) + 1; /* round up: end past deadline */
		struct timeval tv = { us / 1000000, us % 1000000 };
		FD_ZERO(&set);
		FD_SET(fd, &set);
		int n = select(fd + 1, &set, NULL, NULL, &tv);
		if (n == 0)
			__atomic_add_fetch(&timeouts, 1, __ATOMIC_RELAXED);
		else if (n > 0)
			wl_die("select: fd %d unexpectedly readable", fd);
		else if (errno != EINTR)
			wl_die("select: %s", strerror(errno));
	}
	return NULL;
}

int main(int argc, char **argv)
{
	long nthreads = 8, seconds = 10;
	int no_wait = WL_ARGS(argc, argv, USAGE, WL_NUM('t', &nthreads, 1, 500),
					  WL_NUM('d', &seconds, 0, 86400));

	wl_begin();
	fds = wl_xcalloc(nthreads, sizeof *fds);
	for (long i = 0; i < nthreads; i++) {
		int sv[2];
		wl_socketpair(SOCK_STREAM, sv);
		fds[i] = sv[0]; /* sv[1] stays open and silent */
		printf("socket role=idle idx=%ld fd=%d\n", i, fds[i]);
	}
	wl_gate(no_wait);

	double start = wl_now();
	deadline = start + seconds;
	wl_join(wl_start(nthreads, NULL, idler), nthreads);

	printf("done seconds=%.3f threads=%ld timeouts=%ld\n", wl_now() - start,
	       nthreads, timeouts);
	return 0;
}
