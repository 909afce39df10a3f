/*
 * idle - an idle server: threads sit in select() on sockets with no traffic.
 *
 *   idle [-t THREADS=8] [-d SECONDS=10] [--no-wait] [--until-stdin]
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
 *
 * --until-stdin (with --no-wait: the test attaches while the threads
 * sleep): -d is ignored; each thread's first select() has no timeout and
 * ends only when main, after reading a line or EOF on stdin (the test's
 * tl_go), writes one byte to the other end of its socket: that select()
 * returns 1.  The thread reads the byte, then makes one more select() with
 * a 100 ms timeout, which returns 0, and ends.  N is then THREADS.
 */
#include "workload.h"
#include <sys/select.h>

#define USAGE "[-t THREADS=8] [-d SECONDS=10] [--no-wait] [--until-stdin]"

static double deadline;
static long timeouts;
static int *fds;

/* --until-stdin: one select() without timeout that main's byte ends,
 * then one of 100 ms that times out. */
static void *released(void *arg)
{
	int idx = (int)(long)arg, fd = fds[idx];
	fd_set set;
	char byte;

	wl_thread("idle", idx);
	FD_ZERO(&set);
	FD_SET(fd, &set);
	int n;
	while ((n = select(fd + 1, &set, NULL, NULL, NULL)) < 0 && errno == EINTR)
		FD_SET(fd, &set);
	if (n != 1)
		wl_die("select without timeout returned %d: %s", n, strerror(errno));
	if (read(fd, &byte, 1) != 1)
		wl_die("read of the release byte: %s", strerror(errno));
	struct timeval tv = { 0, 100000 };
	FD_ZERO(&set);
	FD_SET(fd, &set);
	n = select(fd + 1, &set, NULL, NULL, &tv);
	if (n != 0)
		wl_die("select of 100 ms returned %d, not a timeout", n);
	__atomic_add_fetch(&timeouts, 1, __ATOMIC_RELAXED);
	return NULL;
}

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
	int until_stdin = 0;
	int no_wait = WL_ARGS(argc, argv, USAGE, WL_NUM('t', &nthreads, 1, 500),
					  WL_NUM('d', &seconds, 0, 86400),
					  { 1001, "until-stdin", NULL, 0, 0, NULL, &until_stdin });

	wl_begin();
	fds = wl_xcalloc(nthreads, sizeof *fds);
	int *peers = wl_xcalloc(nthreads, sizeof *peers);
	for (long i = 0; i < nthreads; i++) {
		int sv[2];
		wl_socketpair(SOCK_STREAM, sv);
		fds[i] = sv[0]; /* sv[1] stays open and silent */
		peers[i] = sv[1];
		printf("socket role=idle idx=%ld fd=%d\n", i, fds[i]);
	}
	wl_gate(no_wait);

	double start = wl_now();
	deadline = start + seconds;
	if (until_stdin) {
		pthread_t *t = wl_start(nthreads, NULL, released);
		int ch;
		do
			ch = getchar();
		while (ch != EOF && ch != '\n');
		for (long i = 0; i < nthreads; i++)
			if (write(peers[i], "g", 1) != 1)
				wl_die("write to socket %d: %s", peers[i], strerror(errno));
		wl_join(t, nthreads);
	} else {
		wl_join(wl_start(nthreads, NULL, idler), nthreads);
	}

	printf("done seconds=%.3f threads=%ld timeouts=%ld\n", wl_now() - start,
	       nthreads, timeouts);
	return 0;
}
