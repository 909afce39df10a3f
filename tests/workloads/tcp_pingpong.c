/*
 * tcp_pingpong - a client and a server thread exchange messages over a
 * loopback TCP connection (127.0.0.1 only).
 *
 *   tcp_pingpong [-n ROUNDS=200] [-s SIZE=96] [--names] [--no-wait]
 *
 * main listens on 127.0.0.1 (an ephemeral port), connects and accepts, so
 * the process holds both ends: `client` (fd C) and `server` (fd S).  Each
 * round the client sends SIZE bytes with send() (the sendto system call)
 * and receives the reply with recv() (recvfrom); the server receives with
 * recvmsg() and replies with sendmsg(), both with two iovecs of SIZE/2 and
 * SIZE - SIZE/2 bytes.  Before every send the sender waits until the peer
 * sleeps in its receive (checked in /proc), so every send wakes the peer:
 * on loopback the receiving side runs in the network softirq that the
 * sender's own send executes, which is what locktrace must credit to the
 * send.  The threads are created after the gate, the client once the server
 * has announced itself: they share no lock of their own, and never print
 * at the same time; the client returns only once the server thread is
 * gone, so that they never meet in glibc's thread exit (which gives the
 * thread's malloc arena back under a lock of glibc's: two threads exiting
 * at once can pass it by a futex wake-up).  So the sends' wake-ups are
 * all the wake-ups between them, but for timers of one that expire while
 * the other runs (an interrupt's wake-up, flagged so).
 *
 * With --names the two threads take names with control bytes and an
 * invalid UTF-8 byte (an escape sequence, a newline, 0xff): the client
 * "cli\e[2J\n\xff", the server "srv\e]0;x\a\n" (printed as hex).
 *
 * Prints:
 *
 *   pid=PID
 *   socket role=client fd=C port=P
 *   socket role=server fd=S port=Q
 *   ready
 *   thread role=server idx=0 tid=TID [name_hex=HEX]
 *   thread role=client idx=0 tid=TID [name_hex=HEX]
 *   done rounds=N size=SIZE sends=2N wakes=2N client_sends=N server_sends=N bytes=2*N*SIZE
 *
 * sends: send calls, each of which woke the peer asleep in its receive
 * (wakes); every call transfers the whole message (checked).
 */
#include "workload.h"
#include <arpa/inet.h>
#include <netinet/in.h>
#include <netinet/tcp.h>
#include <sys/prctl.h>
#include <sys/socket.h>
#include <sys/syscall.h>
#include <sys/uio.h>

#define USAGE "[-n ROUNDS=200] [-s SIZE=96] [--names] [--no-wait]"
#define MAXSIZE 4096

static long rounds = 200, size = 96;
static int cfd, sfd, evil_names;
static volatile pid_t tids[2]; /* client, server */
static const char *const names[2] = { "cli\033[2J\n\xff", "srv\033]0;x\a\n" };

/* Waits (up to 10 s) until thread tid sleeps in system call nr on fd. */
static void wait_peer_asleep(int peer, long nr, int fd)
{
	for (int i = 0; i < 200000; i++) {
		if (tids[peer] && wl_is_blocked(tids[peer], nr, (unsigned long)fd))
			return;
		usleep(50);
	}
	wl_die("thread %d never slept in syscall %ld(fd %d)", (int)tids[peer], nr, fd);
}

static void name_thread(int me, const char *role)
{
	pid_t tid = gettid();
	char hex[64] = "";

	if (evil_names) {
		prctl(PR_SET_NAME, names[me]);
		for (size_t i = 0; names[me][i]; i++)
			sprintf(hex + 2 * i, "%02x", (unsigned char)names[me][i]);
		printf("thread role=%s idx=0 tid=%d name_hex=%s\n", role, (int)tid, hex);
	} else {
		printf("thread role=%s idx=0 tid=%d\n", role, (int)tid);
	}
	tids[me] = tid;
}

static void *client(void *arg)
{
	static char out[MAXSIZE], in[MAXSIZE];
	(void)arg;

	name_thread(0, "client");
	for (long i = 0; i < rounds; i++) {
		memset(out, (int)('a' + i % 26), (size_t)size);
		wait_peer_asleep(1, SYS_recvmsg, sfd);
		if (send(cfd, out, (size_t)size, 0) != size)
			wl_die("send: %s", strerror(errno));
		if (recv(cfd, in, (size_t)size, MSG_WAITALL) != size)
			wl_die("recv: short or failed");
		if (memcmp(in, out, (size_t)size))
			wl_die("reply differs in round %ld", i);
	}
	/* not into glibc's thread exit together with the server (see above):
	 * its task is gone from /proc once its exit is done */
	char path[64];
	snprintf(path, sizeof(path), "/proc/self/task/%d", (int)tids[1]);
	for (int i = 0; access(path, F_OK) == 0; i++) {
		if (i == 200000)
			wl_die("the server thread %d never exited", (int)tids[1]);
		usleep(50);
	}
	return NULL;
}

static void *server(void *arg)
{
	static char buf[MAXSIZE];
	size_t half = (size_t)size / 2;
	struct iovec iov[2] = { { buf, half }, { buf + half, (size_t)size - half } };
	struct msghdr m = { .msg_iov = iov, .msg_iovlen = 2 };
	(void)arg;

	name_thread(1, "server");
	for (long i = 0; i < rounds; i++) {
		if (recvmsg(sfd, &m, MSG_WAITALL) != size)
			wl_die("recvmsg: short or failed");
		wait_peer_asleep(0, SYS_recvfrom, cfd);
		if (sendmsg(sfd, &m, 0) != size)
			wl_die("sendmsg: %s", strerror(errno));
	}
	return NULL;
}

static int port_of(int fd)
{
	struct sockaddr_in a;
	socklen_t len = sizeof(a);
	if (getsockname(fd, (struct sockaddr *)&a, &len))
		wl_die("getsockname: %s", strerror(errno));
	return ntohs(a.sin_port);
}

static void connect_pair(void)
{
	struct sockaddr_in a = { .sin_family = AF_INET, .sin_addr.s_addr = htonl(INADDR_LOOPBACK) };
	socklen_t len = sizeof(a);
	int one = 1, lfd = socket(AF_INET, SOCK_STREAM, 0);

	if (lfd < 0 || bind(lfd, (struct sockaddr *)&a, sizeof(a)) || listen(lfd, 1) ||
	    getsockname(lfd, (struct sockaddr *)&a, &len))
		wl_die("listen on 127.0.0.1: %s", strerror(errno));
	cfd = socket(AF_INET, SOCK_STREAM, 0);
	if (cfd < 0 || connect(cfd, (struct sockaddr *)&a, sizeof(a)))
		wl_die("connect: %s", strerror(errno));
	sfd = accept(lfd, NULL, NULL);
	if (sfd < 0)
		wl_die("accept: %s", strerror(errno));
	close(lfd);
	/* every message goes out at once, as one segment */
	setsockopt(cfd, IPPROTO_TCP, TCP_NODELAY, &one, sizeof(one));
	setsockopt(sfd, IPPROTO_TCP, TCP_NODELAY, &one, sizeof(one));
}

int main(int argc, char **argv)
{
	pthread_t t[2];
	int no_wait = WL_ARGS(argc, argv, USAGE, WL_NUM('n', &rounds, 1, 1000000),
					  WL_NUM('s', &size, 2, MAXSIZE),
					  { 'N', "names", .flag = &evil_names });

	wl_begin();
	connect_pair();
	printf("socket role=client fd=%d port=%d\n", cfd, port_of(cfd));
	printf("socket role=server fd=%d port=%d\n", sfd, port_of(sfd));
	wl_gate(no_wait);
	/* one at a time: two threads printing at once contend for stdout's
	 * lock (a write to the pipe that wakes its reader gets the writer
	 * preempted while it holds it), and its hand-off would be a wake-up
	 * between them that is not a send's */
	wl_create(&t[1], NULL, server, NULL);
	for (int i = 0; !tids[1] && i < 200000; i++)
		usleep(50);
	if (!tids[1])
		wl_die("the server thread never started");
	wl_create(&t[0], NULL, client, NULL);
	pthread_join(t[0], NULL);
	pthread_join(t[1], NULL);
	printf("done rounds=%ld size=%ld sends=%ld wakes=%ld client_sends=%ld server_sends=%ld "
	       "bytes=%ld\n", rounds, size, 2 * rounds, 2 * rounds, rounds, rounds, 2 * rounds * size);
	return 0;
}
