/*
 * tcp_peer - a server thread holds a mutex while blocked in recv() on a
 * loopback TCP connection whose other end is in another process (issue 23):
 *
 *   tcp_peer [--cycle] [--no-wait]                          (hangs)
 *
 * main listens on 127.0.0.1 (an ephemeral port) and forks the peer, which
 * connects and never writes.  In the server, thread "holder" takes mutex M
 * and blocks in recv() on the accepted connection.
 *
 * Default: the peer's only thread sleeps in pause(); the server's thread
 * "waiter" blocks on M.  The waiter waits for the holder, which waits for a
 * peer that is idle (not stuck itself): the peer process is what can end it.
 *
 * --cycle: M is a process-shared mutex in shared memory; the peer's only
 * thread blocks on M (held by the server's holder): the holder waits for
 * the peer to write, the peer for the holder to unlock M.  A deadlock
 * across two processes through a socket and a mutex.  No waiter thread.
 *
 * Before `ready`, main checks in /proc that each thread is asleep where it
 * should be (holder in recvfrom, waiter/peer in futex or pause).  Prints:
 *
 *   pid=SERVER
 *   peer pid=PEER
 *   thread role=holder idx=0 tid=TH
 *   thread role=waiter idx=0 tid=TW          (default only)
 *   thread role=peer idx=0 tid=PEER          (the peer's main thread)
 *   lock name=M addr=0x... kind=mutex
 *   socket role=server fd=S port=P peer_port=Q
 *   ready
 *
 * The peer dies with the server (PR_SET_PDEATHSIG).
 */
#include "workload.h"

#include <arpa/inet.h>
#include <netinet/in.h>
#include <signal.h>
#include <sys/mman.h>
#include <sys/prctl.h>
#include <sys/socket.h>
#include <sys/wait.h>

#define USAGE "[--cycle] [--no-wait]"

static pthread_mutex_t private_m = PTHREAD_MUTEX_INITIALIZER;
static pthread_mutex_t *M = &private_m;
static volatile int *holder_has_m;
static int conn;
static volatile pid_t holder_tid, waiter_tid;

static void *holder(void *arg)
{
	(void)arg;
	pthread_mutex_lock(M);
	holder_tid = wl_thread("holder", 0);
	*holder_has_m = 1;
	char b;
	ssize_t n = recv(conn, &b, 1, 0); /* the peer never writes */
	(void)n;
	pthread_mutex_unlock(M);
	return NULL;
}

static void *waiter(void *arg)
{
	(void)arg;
	waiter_tid = wl_thread("waiter", 0);
	pthread_mutex_lock(M);
	pthread_mutex_unlock(M);
	return NULL;
}

/* thread TID of process PID asleep in syscall NR (/proc) */
static int asleep_in(pid_t pid, pid_t tid, long nr)
{
	char path[96], buf[512];
	snprintf(path, sizeof(path), "/proc/%d/task/%d/syscall", (int)pid, (int)tid);
	FILE *f = fopen(path, "r");
	if (!f)
		return 0;
	int ok = fgets(buf, sizeof(buf), f) && strtol(buf, NULL, 10) == nr;
	fclose(f);
	snprintf(path, sizeof(path), "/proc/%d/task/%d/stat", (int)pid, (int)tid);
	if (!ok || !(f = fopen(path, "r")))
		return 0;
	size_t n = fread(buf, 1, sizeof(buf) - 1, f);
	fclose(f);
	buf[n] = 0;
	char *p = strrchr(buf, ')');
	return p && p[1] == ' ' && p[2] == 'S';
}

static void wait_asleep(pid_t pid, pid_t tid, long nr)
{
	for (int i = 0; i < 10000; i++) {
		if (asleep_in(pid, tid, nr))
			return;
		wl_sleep_ms(1);
	}
	wl_die("thread %d of %d did not block in syscall %ld", (int)tid, (int)pid, nr);
}

static int port_of(int fd, int peer)
{
	struct sockaddr_in a;
	socklen_t l = sizeof(a);
	if ((peer ? getpeername(fd, (struct sockaddr *)&a, &l) : getsockname(fd, (struct sockaddr *)&a, &l)))
		wl_die("getsockname: %s", strerror(errno));
	return ntohs(a.sin_port);
}

int main(int argc, char **argv)
{
	int cycle = 0, no_wait = 0;
	for (int i = 1; i < argc; i++) {
		if (!strcmp(argv[i], "--cycle"))
			cycle = 1;
		else if (!strcmp(argv[i], "--no-wait"))
			no_wait = 1;
		else
			wl_usage(USAGE);
	}
	wl_begin();
	void *shm = mmap(NULL, 4096, PROT_READ | PROT_WRITE, MAP_SHARED | MAP_ANONYMOUS, -1, 0);
	if (shm == MAP_FAILED)
		wl_die("mmap: %s", strerror(errno));
	holder_has_m = (volatile int *)shm;
	if (cycle) {
		pthread_mutexattr_t ma;
		M = (pthread_mutex_t *)((char *)shm + 64);
		pthread_mutexattr_init(&ma);
		pthread_mutexattr_setpshared(&ma, PTHREAD_PROCESS_SHARED);
		if (pthread_mutex_init(M, &ma))
			wl_die("pthread_mutex_init");
	}
	int ls = socket(AF_INET, SOCK_STREAM, 0);
	struct sockaddr_in a = { .sin_family = AF_INET, .sin_addr.s_addr = htonl(INADDR_LOOPBACK) };
	if (ls < 0 || bind(ls, (struct sockaddr *)&a, sizeof(a)) || listen(ls, 1))
		wl_die("listen: %s", strerror(errno));
	int port = port_of(ls, 0);
	pid_t server = getpid();
	pid_t peer = fork();
	if (peer < 0)
		wl_die("fork: %s", strerror(errno));
	if (peer == 0) {
		prctl(PR_SET_PDEATHSIG, SIGKILL);
		if (getppid() != server)
			_exit(1);
		close(ls);
		int c = socket(AF_INET, SOCK_STREAM, 0);
		a.sin_port = htons((uint16_t)port);
		if (c < 0 || connect(c, (struct sockaddr *)&a, sizeof(a)))
			wl_die("connect: %s", strerror(errno));
		if (!cycle)
			wl_hang(); /* pause(): never writes */
		while (!*holder_has_m)
			wl_sleep_ms(1);
		pthread_mutex_lock(M); /* held by the server's holder */
		_exit(0);
	}
	conn = accept(ls, NULL, NULL);
	if (conn < 0)
		wl_die("accept: %s", strerror(errno));
	close(ls);
	printf("peer pid=%d\n", (int)peer);
	pthread_t th, tw;
	if (pthread_create(&th, NULL, holder, NULL))
		wl_die("pthread_create");
	while (!*holder_has_m)
		wl_sleep_ms(1);
	if (!cycle && pthread_create(&tw, NULL, waiter, NULL))
		wl_die("pthread_create");
	fflush(stdout);
	while (!holder_tid || (!cycle && !waiter_tid))
		wl_sleep_ms(1);
	wait_asleep(server, holder_tid, 45); /* recv: recvfrom */
	if (!cycle)
		wait_asleep(server, waiter_tid, 202);
	wait_asleep(peer, peer, cycle ? 202 : 34);
	printf("thread role=peer idx=0 tid=%d\n", (int)peer);
	wl_lock("M", (void *)M, "mutex");
	printf("socket role=server fd=%d port=%d peer_port=%d\n", conn, port_of(conn, 0), port_of(conn, 1));
	wl_gate(no_wait);
	fflush(stdout);
	pthread_join(th, NULL); /* never: the peer never writes */
	kill(peer, SIGKILL);
	waitpid(peer, NULL, 0);
	return 0;
}
