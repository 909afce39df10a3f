/*
 * sigfd_child - a parent waits for its child's exit on a signalfd, as
 * util-linux's script(1) and su --pty do, without a pty; the child waits
 * for an flock on FILE that another process (the test's) holds, so the
 * parent's wait is stuck behind the child's lock wait (hangs: the test
 * kills it):
 *
 *   sigfd_child others FILE   read() of a signalfd of SIGCHLD, SIGUSR1 and
 *                             SIGTERM (all blocked)
 *   sigfd_child chld FILE     read() of a signalfd of SIGCHLD alone
 *   sigfd_child poll FILE     poll(POLLIN) of the signalfd of "others"
 *   sigfd_child nochld FILE   read() of a signalfd of SIGUSR1 and SIGTERM
 *                             (SIGCHLD blocked, not in it: no child's exit
 *                             ends the read)
 *
 * The child restores the signal mask before its flock(LOCK_EX).  Prints
 * pid=PID, "child pid=C", "signalfd fd=F mask=0xM" (the sigmask its fdinfo
 * shows), then ready, then waits (no start gate: it is hung at ready).
 */
#include "workload.h"
#include <fcntl.h>
#include <poll.h>
#include <signal.h>
#include <stdint.h>
#include <sys/file.h>
#include <sys/signalfd.h>

int main(int argc, char **argv)
{
	if (argc < 3 || (strcmp(argv[1], "others") && strcmp(argv[1], "chld") && strcmp(argv[1], "poll") &&
			 strcmp(argv[1], "nochld"))) {
		fprintf(stderr, "usage: sigfd_child others|chld|poll|nochld FILE\n");
		return 2;
	}
	const char *mode = argv[1];
	wl_begin();
	sigset_t blk, fdmask, old;
	sigemptyset(&blk);
	sigaddset(&blk, SIGCHLD);
	if (strcmp(mode, "chld")) {
		sigaddset(&blk, SIGUSR1);
		sigaddset(&blk, SIGTERM);
	}
	fdmask = blk;
	if (!strcmp(mode, "nochld"))
		sigdelset(&fdmask, SIGCHLD);
	if (sigprocmask(SIG_BLOCK, &blk, &old)) {
		perror("sigprocmask");
		return 1;
	}
	int sfd = signalfd(-1, &fdmask, SFD_CLOEXEC);
	if (sfd < 0) {
		perror("signalfd");
		return 1;
	}
	pid_t c = fork();
	if (c < 0) {
		perror("fork");
		return 1;
	}
	if (c == 0) {
		sigprocmask(SIG_SETMASK, &old, NULL);
		int fd = open(argv[2], O_RDWR | O_CREAT, 0600);
		if (fd < 0 || flock(fd, LOCK_EX)) {
			perror("flock");
			_exit(1);
		}
		_exit(0);
	}
	uint64_t m = 0;
	for (int s = 1; s <= 64; s++)
		if (sigismember(&fdmask, s) == 1)
			m |= 1ULL << (s - 1);
	printf("child pid=%d\n", (int)c);
	printf("signalfd fd=%d mask=0x%llx\n", sfd, (unsigned long long)m);
	printf("ready\n");
	struct signalfd_siginfo si;
	for (;;) {
		if (!strcmp(mode, "poll")) {
			struct pollfd p = { .fd = sfd, .events = POLLIN };
			if (poll(&p, 1, -1) < 0 && errno != EINTR)
				return 1;
		}
		if (read(sfd, &si, sizeof(si)) == (ssize_t)sizeof(si)) {
			printf("signal signo=%u pid=%u\n", si.ssi_signo, si.ssi_pid);
			if (si.ssi_signo == SIGCHLD)
				return 0;
		}
	}
}
