/*
 * sock_timeo - two processes each blocked reading the other's end of a tcp
 * connection over loopback, one of them with SO_RCVTIMEO (the user
 * trial's tcp_timeo): a cycle that ends by itself when that read times
 * out.
 *
 *   sock_timeo SECONDS
 *
 * The server (this process) accepts one connection and blocks in recv()
 * for the client's request; the client (its child) sets SO_RCVTIMEO to
 * SECONDS on its socket and blocks in recv() waiting for a banner that
 * never comes.  When its read times out it sends the request anyway, the
 * server answers and both exit.
 *
 * Prints:
 *   pid=SERVER
 *   child role=client pid=C
 *   socket server_port=P client_port=Q
 *   ready
 */
#include "workload.h"

#include <arpa/inet.h>
#include <netinet/in.h>
#include <signal.h>
#include <sys/prctl.h>
#include <sys/time.h>
#include <sys/wait.h>

#define USAGE "SECONDS"

int main(int argc, char **argv)
{
	if (argc != 2)
		wl_usage(USAGE);
	long secs = wl_arg(argv[1], 1, 3600, USAGE);
	wl_begin();
	int s = socket(AF_INET, SOCK_STREAM, 0), one = 1;
	struct sockaddr_in a = { .sin_family = AF_INET, .sin_addr.s_addr = htonl(INADDR_LOOPBACK) };
	socklen_t l = sizeof(a);
	if (s < 0 || setsockopt(s, SOL_SOCKET, SO_REUSEADDR, &one, sizeof(one)) || bind(s, (void *)&a, sizeof(a)) ||
	    listen(s, 1) || getsockname(s, (void *)&a, &l))
		wl_die("listen: %s", strerror(errno));
	pid_t c = fork();
	if (c == 0) {
		prctl(PR_SET_PDEATHSIG, SIGKILL);
		close(s);
		int fd = socket(AF_INET, SOCK_STREAM, 0);
		struct timeval tv = { secs, 0 };
		if (fd < 0 || connect(fd, (void *)&a, sizeof(a)) ||
		    setsockopt(fd, SOL_SOCKET, SO_RCVTIMEO, &tv, sizeof(tv)))
			_exit(1);
		char buf[100];
		(void)!recv(fd, buf, sizeof(buf), 0); /* the banner: none comes */
		(void)!send(fd, "GET\n", 4, 0);
		(void)!recv(fd, buf, sizeof(buf), 0);
		_exit(0);
	}
	int cfd = accept(s, NULL, NULL);
	struct sockaddr_in p;
	socklen_t pl = sizeof(p);
	if (cfd < 0 || getpeername(cfd, (void *)&p, &pl))
		wl_die("accept: %s", strerror(errno));
	printf("child role=client pid=%d\n", (int)c);
	printf("socket server_port=%d client_port=%d\n", ntohs(a.sin_port), ntohs(p.sin_port));
	wl_gate(1);
	char buf[100];
	if (recv(cfd, buf, sizeof(buf), 0) > 0)
		(void)!send(cfd, "OK\n", 3, 0);
	waitpid(c, NULL, 0);
	return 0;
}
