/*
 * join_waits - the main thread pthread_join()s a thread that blocks (hangs:
 * the test kills it and its child):
 *
 *   join_waits flock FILE   the joined thread waits in flock(FILE, LOCK_EX)
 *                           for a lock a forked child holds (the child
 *                           pause()s, and dies with the workload)
 *   join_waits pipe         the joined thread read()s a pipe whose write end
 *                           only this process holds, and nobody writes
 *   join_waits sleep        the joined thread sleeps (nanosleep, an hour)
 *
 * Prints pid=PID; flock: "holder pid=C" once C holds the lock; "thread
 * role=joiner idx=0 tid=PID" (main); the joined thread prints "thread
 * role=joined idx=0 tid=T", waits until main sleeps in futex() (its join),
 * then prints "blocked tid=PID on=join", "blocked tid=T on=flock|pipe|sleep"
 * and ready, and blocks: the test waits until /proc shows it in flock(),
 * read() or clock_nanosleep().  Two threads, no start gate.
 */
#include "workload.h"
#include <fcntl.h>
#include <signal.h>
#include <sys/file.h>
#include <sys/prctl.h>
#include <sys/syscall.h>

static const char *mode, *file;
static pid_t main_tid;
static int pfd[2];

static void *joined(void *arg)
{
	(void)arg;
	pid_t tid = wl_thread("joined", 0);
	long nr = -1;
	unsigned long a0;
	for (int i = 0; i < 10000 && !(wl_blocked_in(main_tid, &nr, &a0) && nr == SYS_futex); i++)
		wl_sleep_ms(1);
	if (nr != SYS_futex)
		wl_die("main did not block in pthread_join");
	printf("blocked tid=%d on=join\n", (int)main_tid);
	printf("blocked tid=%d on=%s\n", (int)tid, mode);
	printf("ready\n");
	if (!strcmp(mode, "flock")) {
		int fd = open(file, O_RDWR);
		if (fd < 0 || flock(fd, LOCK_EX))
			wl_die("flock %s: %s", file, strerror(errno));
	} else if (!strcmp(mode, "pipe")) {
		char c;
		if (read(pfd[0], &c, 1) >= 0)
			wl_die("the pipe was written");
	} else {
		sleep(3600);
	}
	return NULL;
}

int main(int argc, char **argv)
{
	const char *usage = "usage: join_waits flock FILE | pipe | sleep";
	if (argc < 2 || (strcmp(argv[1], "flock") && strcmp(argv[1], "pipe") && strcmp(argv[1], "sleep")) ||
	    (!strcmp(argv[1], "flock") && argc < 3))
		wl_usage(usage);
	mode = argv[1];
	file = argc > 2 ? argv[2] : NULL;
	wl_begin();
	if (pipe(pfd))
		wl_die("pipe: %s", strerror(errno));
	if (!strcmp(mode, "flock"))
		wl_flock_holder(file);
	main_tid = gettid();
	wl_thread("joiner", 0);
	pthread_t t;
	wl_create(&t, NULL, joined, NULL);
	pthread_join(t, NULL);
	wl_die("pthread_join returned");
}
