/*
 * select_reader - a writer and a reader thread on a nonblocking socketpair.
 *
 *   select_reader [-n CHUNKS=200] [--no-wait]
 *
 * socketpair(AF_UNIX, SOCK_STREAM|SOCK_NONBLOCK): the writer writes CHUNKS
 * chunks of 8 KiB into its end, waiting with select() for writability on
 * EAGAIN; the reader waits with select() for readability, then read()s 8 KiB
 * at a time until EAGAIN, until it has all CHUNKS*8 KiB.  Threads are
 * created after the gate; the reader only once the writer has filled the
 * socket buffer and sleeps in select() (or has written all: CHUNKS <= ~24),
 * so with the default 1.6 MB the writer always blocks at least once; later
 * blocking on either side depends on scheduling.  Note glibc's select() is the pselect6 system call.  Prints:
 *
 *   pid=PID
 *   socket role=writer fd=N
 *   socket role=reader fd=M
 *   ready
 *   thread role=writer idx=0 tid=TID
 *   thread role=reader idx=0 tid=TID
 *   done bytes_written=B bytes_read=B reads=R writes=W rselects=X wselects=Y
 *
 * reads/writes count successful read()/write() calls, r/wselects select()
 * calls by reader/writer; these vary from run to run (partial reads and
 * writes, scheduling), the byte counts do not.
 */
#include "workload.h"
#include <sys/select.h>
#include <sys/syscall.h>

#define USAGE "[-n CHUNKS=200] [--no-wait]"
#define CHUNK 8192

static int wfd, rfd;
static long total;
static long bytes_written, bytes_read, nwrites, nreads, wselects, rselects;
static pid_t writer_tid;
static int writer_done;

/* select() until fd is readable (want_write=0) or writable (want_write=1). */
static void wait_fd(int fd, int want_write)
{
	fd_set set;
	int n;

	do {
		FD_ZERO(&set);
		FD_SET(fd, &set);
		n = want_write ? select(fd + 1, NULL, &set, NULL, NULL)
			       : select(fd + 1, &set, NULL, NULL, NULL);
	} while (n < 0 && errno == EINTR);
	if (n < 0)
		wl_die("select: %s", strerror(errno));
}

static void *writer(void *arg)
{
	static char buf[CHUNK];
	(void)arg;

	__atomic_store_n(&writer_tid, wl_thread("writer", 0), __ATOMIC_RELEASE);
	memset(buf, 'x', sizeof buf);
	while (bytes_written < total) {
		size_t len = CHUNK - bytes_written % CHUNK; /* finish a chunk */
		ssize_t n = write(wfd, buf, len);
		if (n > 0) {
			bytes_written += n;
			nwrites++;
		} else if (n < 0 && errno == EAGAIN) {
			wselects++;
			wait_fd(wfd, 1);
		} else if (n < 0 && errno != EINTR) {
			wl_die("write: %s", strerror(errno));
		}
	}
	__atomic_store_n(&writer_done, 1, __ATOMIC_RELEASE);
	return NULL;
}

static void *reader(void *arg)
{
	static char buf[CHUNK];
	(void)arg;

	wl_thread("reader", 0);
	while (bytes_read < total) {
		rselects++;
		wait_fd(rfd, 0);
		for (;;) { /* drain what is there */
			ssize_t n = read(rfd, buf, sizeof buf);
			if (n > 0) {
				bytes_read += n;
				nreads++;
			} else if (n == 0) {
				wl_die("read: unexpected EOF");
			} else if (errno == EAGAIN) {
				break;
			} else if (errno != EINTR) {
				wl_die("read: %s", strerror(errno));
			}
		}
	}
	return NULL;
}

int main(int argc, char **argv)
{
	long chunks = 200;
	int sv[2], no_wait = WL_ARGS(argc, argv, USAGE, WL_NUM('n', &chunks, 1, 10000000));
	total = chunks * CHUNK;

	wl_socketpair(SOCK_STREAM | SOCK_NONBLOCK, sv);
	wfd = sv[0];
	rfd = sv[1];

	wl_begin();
	printf("socket role=writer fd=%d\n", wfd);
	printf("socket role=reader fd=%d\n", rfd);
	wl_gate(no_wait);

	pthread_t w, r;
	wl_create(&w, NULL, writer, NULL);
	/* Start the reader once the writer sleeps in select (buffer full) or
	 * has written everything (small CHUNKS). */
	pid_t tid;
	while (!(tid = __atomic_load_n(&writer_tid, __ATOMIC_ACQUIRE)))
		sched_yield();
	while (!__atomic_load_n(&writer_done, __ATOMIC_ACQUIRE) &&
	       !wl_is_blocked(tid, SYS_pselect6, wfd + 1))
		wl_sleep_ms(1);
	wl_create(&r, NULL, reader, NULL);
	pthread_join(w, NULL);
	pthread_join(r, NULL);

	printf("done bytes_written=%ld bytes_read=%ld reads=%ld writes=%ld "
	       "rselects=%ld wselects=%ld\n", bytes_written, bytes_read, nreads,
	       nwrites, rselects, wselects);
	return 0;
}
