/*
 * sem_signal - the only thread of a process in sem_wait() on a private
 * semaphore (sem_init's pshared 0), which no thread of it can post.
 *
 *   sem_signal [--handler | --handler-blocked]
 *
 * With --handler, a SIGTERM handler posts the semaphore (sem_post is
 * async-signal-safe: a common way to wait for shutdown): SIGTERM ends the
 * wait, and the program prints "posted" and exits 0.  Without, nothing can
 * (SIGTERM kills it).  --handler-blocked installs the handler but blocks
 * SIGTERM (sigprocmask): a SIGTERM stays pending, nothing runs it.  Prints "sem addr=0x..." and "ready" before it waits.
 */
#include <errno.h>
#include <semaphore.h>
#include <signal.h>
#include <stdio.h>
#include <string.h>

static sem_t the_sem;

static void on_term(int sig)
{
	(void)sig;
	sem_post(&the_sem);
}

int main(int argc, char **argv)
{
	int handler = argc > 1 && !strncmp(argv[1], "--handler", 9);
	int blocked = argc > 1 && !strcmp(argv[1], "--handler-blocked");
	if (sem_init(&the_sem, 0, 0)) {
		perror("sem_init");
		return 1;
	}
	if (handler) {
		struct sigaction sa = { .sa_handler = on_term };
		sigemptyset(&sa.sa_mask);
		if (sigaction(SIGTERM, &sa, NULL)) {
			perror("sigaction");
			return 1;
		}
	}
	if (blocked) {
		sigset_t set;
		sigemptyset(&set);
		sigaddset(&set, SIGTERM);
		if (sigprocmask(SIG_BLOCK, &set, NULL)) {
			perror("sigprocmask");
			return 1;
		}
	}
	printf("sem addr=%p\nready\n", (void *)&the_sem);
	fflush(stdout);
	while (sem_wait(&the_sem))
		if (errno != EINTR) {
			perror("sem_wait");
			return 1;
		}
	printf("posted\n");
	return 0;
}
