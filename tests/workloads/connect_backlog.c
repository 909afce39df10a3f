/*
 * connect_backlog - a server that stopped accepting: its accept loop waits
 * for a mutex held by one of two threads deadlocked with each other, and
 * its clients hang in connect() once the listener's backlog is full:
 *
 *   connect_backlog unix|tcp                              (hangs)
 *
 * The listener (unix: a socket file /tmp/lt-connect-backlog-PID.sock;
 * tcp: 127.0.0.1, an ephemeral port) listens with a backlog of 0.  Thread
 * "t1" takes mutex REG then A and wants B; thread "t2" takes B and wants A:
 * a deadlock.  main then forks three clients, each connecting once and
 * then pausing: the first connect() is queued, the others wait (a unix
 * connect() sleeps in the kernel; a tcp one stays SYN_SENT, its SYN
 * dropped), and main blocks on REG before it would accept.  Prints:
 *
 *   pid=SERVER
 *   thread role=t1 idx=0 tid=T1
 *   thread role=t2 idx=0 tid=T2
 *   socket role=listen path=PATH | port=P
 *   client pid=C                              (three times)
 *   ready
 *
 * The clients die with the server (PR_SET_PDEATHSIG); a unix server
 * unlinks its socket file at SIGTERM.
 */
#include "workload.h"

#include <arpa/inet.h>
#include <netinet/in.h>
#include <signal.h>
#include <stdbool.h>
#include <sys/prctl.h>
#include <sys/un.h>

static pthread_mutex_t reg = PTHREAD_MUTEX_INITIALIZER, A = PTHREAD_MUTEX_INITIALIZER,
		       B = PTHREAD_MUTEX_INITIALIZER;
static volatile int have_a, have_b;
static char sock_path[108];

static void *t1(void *arg)
{
	(void)arg;
	pthread_mutex_lock(&reg);
	pthread_mutex_lock(&A);
	wl_thread("t1", 0);
	have_a = 1;
	while (!have_b)
		usleep(1000);
	pthread_mutex_lock(&B);
	return NULL;
}

static void *t2(void *arg)
{
	(void)arg;
	pthread_mutex_lock(&B);
	wl_thread("t2", 0);
	have_b = 1;
	while (!have_a)
		usleep(1000);
	pthread_mutex_lock(&A);
	return NULL;
}

static void on_term(int sig)
{
	if (sock_path[0])
		unlink(sock_path);
	signal(sig, SIG_DFL);
	raise(sig);
}

int main(int argc, char **argv)
{
	if (argc != 2 || (strcmp(argv[1], "unix") && strcmp(argv[1], "tcp"))) {
		fprintf(stderr, "usage: %s unix|tcp\n", argv[0]);
		return 2;
	}
	bool unix_ = !strcmp(argv[1], "unix");
	wl_begin();
	struct sockaddr_un su = { .sun_family = AF_UNIX };
	struct sockaddr_in si = { .sin_family = AF_INET, .sin_addr.s_addr = htonl(INADDR_LOOPBACK) };
	socklen_t sl = unix_ ? sizeof(su) : sizeof(si);
	struct sockaddr *sa = unix_ ? (struct sockaddr *)&su : (struct sockaddr *)&si;
	int ls = socket(unix_ ? AF_UNIX : AF_INET, SOCK_STREAM, 0);
	if (unix_) {
		snprintf(sock_path, sizeof(sock_path), "/tmp/lt-connect-backlog-%d.sock", (int)getpid());
		snprintf(su.sun_path, sizeof(su.sun_path), "%s", sock_path);
		unlink(sock_path);
		signal(SIGTERM, on_term);
		signal(SIGINT, on_term);
	}
	if (ls < 0 || bind(ls, sa, sl) || listen(ls, 0) || getsockname(ls, sa, &sl)) {
		perror("listener");
		return 1;
	}
	if (unix_)
		printf("socket role=listen path=%s\n", sock_path);
	else
		printf("socket role=listen port=%d\n", ntohs(si.sin_port));
	pthread_t a, b;
	pthread_create(&a, NULL, t1, NULL);
	pthread_create(&b, NULL, t2, NULL);
	while (!have_a || !have_b)
		usleep(1000);
	usleep(50000);
	pid_t parent = getpid();
	for (int i = 0; i < 3; i++) {
		pid_t c = fork();
		if (c == 0) {
			prctl(PR_SET_PDEATHSIG, SIGKILL);
			if (getppid() != parent)
				_exit(0);
			sock_path[0] = 0; /* the server's to unlink */
			close(ls);        /* a client, not another acceptor */
			int s = socket(unix_ ? AF_UNIX : AF_INET, SOCK_STREAM, 0);
			if (connect(s, sa, sl))
				perror("connect");
			for (;;)
				pause();
		}
		printf("client pid=%d\n", (int)c);
		usleep(20000); /* in order: the first queued, the others wait */
	}
	printf("ready\n");
	fflush(stdout);
	for (;;) {
		pthread_mutex_lock(&reg); /* held by t1, deadlocked: never */
		int c = accept(ls, NULL, NULL);
		pthread_mutex_unlock(&reg);
		if (c >= 0)
			close(c);
	}
}
