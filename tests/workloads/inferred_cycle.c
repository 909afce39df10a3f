/*
 * inferred_cycle - a deadlock across three processes one of whose links is
 * inferred, not read: a condition variable, a pipe, a unix socket and a
 * file lock (the user trial's usock):
 *
 *   inferred_cycle LOCKFILE SOCKPATH
 *
 * The server (this process, its main thread named "srv") listens on
 * SOCKPATH and forks two children:
 *   - "client" takes flock(LOCKFILE, LOCK_EX), connects, sends a request
 *     and blocks reading the reply;
 *   - "logger" waits for flock(LOCKFILE) (held by the client), then would
 *     read the server's log pipe.
 * The server's thread "handler" reads the request, hands a job to thread
 * "worker" and waits on condition variable done_cv for it; the worker
 * writes 160 KiB to the log pipe (more than it holds) before it would
 * signal done_cv.  The main thread goes back to accept().  Nobody can go
 * on:
 *
 *   client read(socket) <- the server's end (which thread answers: inferred)
 *   handler waits on done_cv (who signals it: inferred) <- worker
 *   worker write(pipe) <- read only by the logger
 *   logger flock(LOCKFILE) <- held by the client
 *
 * Prints (then "ready" once every thread is started):
 *   pid=SERVER
 *   child role=client pid=C
 *   child role=logger pid=L
 *   lock name=done_cv addr=0x... kind=cond (and its g_signals words)
 *   pipe ino=N
 *   thread role=worker idx=0 tid=W
 *   thread role=handler idx=0 tid=H
 *   ready
 *
 * Killing the server's process group ends it (the children die with the
 * server: PR_SET_PDEATHSIG).
 */
#include "workload.h"

#include <fcntl.h>
#include <signal.h>
#include <sys/file.h>
#include <sys/prctl.h>
#include <sys/stat.h>
#include <sys/un.h>

#define USAGE "LOCKFILE SOCKPATH"

static pthread_mutex_t mu = PTHREAD_MUTEX_INITIALIZER;
static pthread_cond_t job_cv = PTHREAD_COND_INITIALIZER, done_cv = PTHREAD_COND_INITIALIZER;
static int job, done, logfd;

static pthread_mutex_t tid_mu = PTHREAD_MUTEX_INITIALIZER;
static pthread_cond_t tid_cv = PTHREAD_COND_INITIALIZER;
static int started;

static void mark_started(void)
{
	pthread_mutex_lock(&tid_mu);
	started++;
	pthread_cond_broadcast(&tid_cv);
	pthread_mutex_unlock(&tid_mu);
}

static void *worker(void *a)
{
	(void)a;
	prctl(PR_SET_NAME, "worker");
	wl_thread("worker", 0);
	mark_started();
	pthread_mutex_lock(&mu);
	while (!job)
		pthread_cond_wait(&job_cv, &mu);
	pthread_mutex_unlock(&mu);
	static char line[4096];
	memset(line, 'x', sizeof(line));
	for (int i = 0; i < 40; i++) /* 160 KiB: more than a pipe holds */
		if (write(logfd, line, sizeof(line)) < 0)
			break;
	pthread_mutex_lock(&mu);
	done = 1;
	pthread_cond_signal(&done_cv);
	pthread_mutex_unlock(&mu);
	return NULL;
}

static void *handler(void *a)
{
	int c = (int)(long)a;
	char b[64];
	prctl(PR_SET_NAME, "handler");
	if (read(c, b, sizeof(b)) <= 0)
		return NULL;
	wl_thread("handler", 0);
	pthread_mutex_lock(&mu);
	job = 1;
	pthread_cond_signal(&job_cv);
	mark_started();
	while (!done)
		pthread_cond_wait(&done_cv, &mu);
	pthread_mutex_unlock(&mu);
	if (write(c, "reply\n", 6) < 0)
		return NULL;
	return NULL;
}

static int lock_file(const char *path)
{
	int fd = open(path, O_CREAT | O_RDWR, 0644);
	if (fd < 0 || flock(fd, LOCK_EX))
		wl_die("%s: %s", path, strerror(errno));
	return fd;
}

int main(int argc, char **argv)
{
	if (argc != 3)
		wl_usage(USAGE);
	const char *lockfile = argv[1], *path = argv[2];
	wl_begin();
	prctl(PR_SET_NAME, "srv");
	struct sockaddr_un sa = { .sun_family = AF_UNIX };
	if (strlen(path) >= sizeof(sa.sun_path))
		wl_usage(USAGE);
	strcpy(sa.sun_path, path);
	unlink(path);
	int p[2], ls = socket(AF_UNIX, SOCK_STREAM, 0);
	if (pipe(p) || ls < 0 || bind(ls, (void *)&sa, sizeof(sa)) || listen(ls, 4))
		wl_die("setup: %s", strerror(errno));
	/* the client: holds the file lock while it waits for the reply */
	int gate[2];
	if (pipe(gate))
		wl_die("pipe: %s", strerror(errno));
	pid_t client = fork();
	if (client == 0) {
		prctl(PR_SET_PDEATHSIG, SIGKILL);
		prctl(PR_SET_NAME, "client");
		close(p[0]);
		close(p[1]);
		close(ls);
		close(gate[0]);
		lock_file(lockfile);
		close(gate[1]); /* the lock is held */
		int s = socket(AF_UNIX, SOCK_STREAM, 0);
		if (s < 0 || connect(s, (void *)&sa, sizeof(sa)) || write(s, "GET\n", 4) != 4)
			_exit(1);
		char b[64];
		(void)!read(s, b, sizeof(b));
		_exit(0);
	}
	close(gate[1]);
	char ch;
	(void)!read(gate[0], &ch, 1); /* EOF: the client holds the lock */
	close(gate[0]);
	/* the logger: reads the log pipe, but takes the file lock first */
	pid_t logger = fork();
	if (logger == 0) {
		prctl(PR_SET_PDEATHSIG, SIGKILL);
		prctl(PR_SET_NAME, "logger");
		close(p[1]);
		close(ls);
		lock_file(lockfile);
		char b[4096];
		while (read(p[0], b, sizeof(b)) > 0)
			;
		_exit(0);
	}
	close(p[0]);
	logfd = p[1];
	printf("child role=client pid=%d\n", (int)client);
	printf("child role=logger pid=%d\n", (int)logger);
	wl_cond("done_cv", &done_cv);
	struct stat st;
	if (!fstat(logfd, &st))
		printf("pipe ino=%lu\n", (unsigned long)st.st_ino);
	pthread_t w, h;
	pthread_create(&w, NULL, worker, NULL);
	int c = accept(ls, NULL, NULL);
	if (c < 0)
		wl_die("accept: %s", strerror(errno));
	pthread_create(&h, NULL, handler, (void *)(long)c);
	pthread_mutex_lock(&tid_mu);
	while (started < 2)
		pthread_cond_wait(&tid_cv, &tid_mu);
	pthread_mutex_unlock(&tid_mu);
	wl_gate(1);
	for (;;) {
		int more = accept(ls, NULL, NULL);
		if (more >= 0)
			close(more);
	}
}
