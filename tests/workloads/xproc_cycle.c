/*
 * xproc_cycle - a deadlock across two processes through a pipe, a mutex
 * and a unix socket (issue 23):
 *
 *   xproc_cycle [--no-wait]
 *
 * The parent makes a pipe (the child holds the only write end) and a unix
 * socket pair (the parent holds the only other end), then forks.  In the
 * child, thread "reader" takes mutex M and blocks in read() on its socket;
 * the child's main thread then blocks in pthread_mutex_lock(M).  The
 * parent blocks in read() on the pipe.  Nobody can go on:
 *
 *   parent read(pipe) <- written only by the child; child main waits for M
 *   held by reader; reader read(unix socket) <- peer held only by the parent
 *
 * Before `ready` the parent waits until /proc shows the child's main
 * thread asleep in futex(); its own read() starts after the gate (the test
 * waits for it).  Prints:
 *
 *   pid=PARENT
 *   child pid=CHILD
 *   thread role=reader idx=0 tid=TR      (the child's)
 *   thread role=childmain idx=0 tid=CHILD
 *   lock name=M addr=0x... kind=mutex    (in the child)
 *   pipe ino=N
 *   socket parent_ino=A child_ino=B
 *   ready
 *
 * Killing the parent (SIGKILL)
 * closes the socket: the child's reader gets EOF and the child exits.
 */
#include "workload.h"

#include <signal.h>
#include <sys/prctl.h>
#include <sys/stat.h>
#include <sys/wait.h>

#define USAGE "[--no-wait]"

static pthread_mutex_t M = PTHREAD_MUTEX_INITIALIZER;
static int child_sock;
static volatile int reader_has_m;

static void *reader(void *arg)
{
	(void)arg;
	pthread_mutex_lock(&M);
	wl_thread("reader", 0);
	fflush(stdout);
	reader_has_m = 1;
	char b;
	ssize_t n = read(child_sock, &b, 1); /* the parent never writes */
	(void)n;
	pthread_mutex_unlock(&M);
	_exit(0); /* peer gone: the parent died */
}

static unsigned long ino_of(int fd)
{
	struct stat st;
	return fstat(fd, &st) == 0 ? (unsigned long)st.st_ino : 0;
}

/* "S" sleeping in syscall NR, from /proc/PID/task/TID/syscall. */
static int in_syscall(pid_t pid, pid_t tid, long nr)
{
	char path[96], buf[256];
	snprintf(path, sizeof(path), "/proc/%d/task/%d/syscall", (int)pid, (int)tid);
	FILE *f = fopen(path, "r");
	if (!f)
		return 0;
	int ok = fgets(buf, sizeof(buf), f) && strtol(buf, NULL, 10) == nr;
	fclose(f);
	return ok;
}

int main(int argc, char **argv)
{
	static const struct wl_opt opts[] = { { 0 } };
	int no_wait = wl_args(argc, argv, opts, USAGE);
	wl_begin();
	int p[2], sv[2];
	if (pipe(p) || socketpair(AF_UNIX, SOCK_STREAM, 0, sv))
		wl_die("pipe/socketpair: %s", strerror(errno));
	int info[2]; /* the child tells the parent its reader's tid */
	if (pipe(info))
		wl_die("pipe: %s", strerror(errno));
	pid_t ch = fork();
	if (ch < 0)
		wl_die("fork: %s", strerror(errno));
	if (ch == 0) {
		prctl(PR_SET_PDEATHSIG, SIGKILL);
		close(p[0]);
		close(sv[0]);
		close(info[0]);
		child_sock = sv[1];
		setvbuf(stdout, NULL, _IOLBF, 0);
		pthread_t th;
		if (pthread_create(&th, NULL, reader, NULL))
			wl_die("pthread_create");
		while (!reader_has_m)
			wl_sleep_ms(1);
		wl_thread("childmain", 0);
		printf("lock name=M addr=%p kind=mutex\n", (void *)&M);
		fflush(stdout);
		close(info[1]); /* says: printed */
		pthread_mutex_lock(&M); /* held by reader forever */
		char c = 1;
		ssize_t n = write(p[1], &c, 1);
		(void)n;
		_exit(0);
	}
	unsigned long child_ino = ino_of(sv[1]);
	close(p[1]);
	close(sv[1]);
	close(info[1]);
	printf("child pid=%d\n", (int)ch);
	char b;
	while (read(info[0], &b, 1) > 0) /* EOF once the child printed */
		;
	close(info[0]);
	printf("pipe ino=%lu\n", ino_of(p[0]));
	printf("socket parent_ino=%lu child_ino=%lu\n", ino_of(sv[0]), child_ino);
	/* the child's main thread in futex (202), its reader in read (0) */
	for (int i = 0; i < 5000 && !in_syscall(ch, ch, 202); i++)
		wl_sleep_ms(2);
	wl_gate(no_wait);
	fflush(stdout);
	ssize_t n = read(p[0], &b, 1); /* the child never writes */
	(void)n;
	kill(ch, SIGKILL);
	waitpid(ch, NULL, 0);
	return 0;
}
