/*
 * ipc_waits - waits on kernel objects other than futexes, pipes and
 * sockets, each stuck for good (the tests kill it):
 *
 *   ipc_waits sysv            semop(-1) on a System V semaphore of value 0
 *                             that nobody posts (a private set, removed
 *                             on SIGTERM and by the test)
 *   ipc_waits sysv-msg        msgrcv() of any type on a private System V
 *                             message queue nobody sends to (removed on
 *                             SIGTERM and by the test)
 *   ipc_waits sysv-msg-full   msgsnd() of 64 bytes into such a queue,
 *                             filled first (its msg_qbytes cut to 256)
 *   ipc_waits mq              mq_receive() on a POSIX message queue only
 *                             this process holds (its name unlinked at
 *                             once: nothing can open it)
 *   ipc_waits eventfd-flock   the parent takes an flock on FILE and
 *                             forks; the child, which holds the eventfd
 *                             too, waits for that flock before it would
 *                             write the eventfd the parent reads: a
 *                             deadlock through an eventfd and a file lock
 *
 *   ipc_waits vfork-pipe      vfork(); the child, before it would exec, reads a
 *                             pipe whose write end only it and its parent
 *                             (asleep in vfork until the child execs or
 *                             exits) hold: a deadlock of the two.  The
 *                             child prints "child pid=C" and ready.
 *   ipc_waits spawn-fifo FILE posix_spawn (glibc: clone3 with CLONE_VFORK)
 *                             of /bin/true whose file action opens FIFO
 *                             FILE (made here) for reading, which nobody
 *                             writes: the child waits in open() before it
 *                             execs, its parent in clone3.  Prints ready
 *                             first (the parent cannot after).
 *   ipc_waits spawn-fifo2 FILE  the same from two threads at once: each
 *                             waits in clone3 for its own child
 *   ipc_waits posix-sem       sem_wait() on a named POSIX semaphore
 *                             (/lt-ipc-waits-PID, value 0, unlinked on
 *                             SIGTERM and by the test)
 *   ipc_waits pi-shared       the parent locks a process-shared PI mutex and
 *                             sleeps in pause(); its child waits for it in
 *                             FUTEX_LOCK_PI (the owner, in the lock word,
 *                             is a thread of another process)
 *
 * Prints pid=PID, then "sysv semid=N", "sysv msqid=N", "mq", or "child
 * pid=C", then ready.
 */
#include "workload.h"
#include <fcntl.h>
#include <mqueue.h>
#include <stdbool.h>
#include <signal.h>
#include <stdint.h>
#include <semaphore.h>
#include <spawn.h>
#include <sys/stat.h>
#include <sys/eventfd.h>
#include <sys/file.h>
#include <sys/mman.h>
#include <sys/msg.h>
#include <sys/sem.h>
#include <sys/wait.h>

static int semid = -1, msqid = -1;

static void on_term(int sig)
{
	(void)sig;
	if (semid >= 0)
		semctl(semid, 0, IPC_RMID);
	if (msqid >= 0)
		msgctl(msqid, IPC_RMID, NULL);
	_exit(0);
}

/* posix_spawn of /bin/true whose file action opens FIFO for reading */
static const char *fifo;
static void *spawn_fifo(void *arg)
{
	(void)arg;
	posix_spawn_file_actions_t fa;
	posix_spawn_file_actions_init(&fa);
	posix_spawn_file_actions_addopen(&fa, 0, fifo, O_RDONLY, 0);
	char *cargv[] = { "true", NULL }, *cenv[] = { NULL };
	pid_t c;
	if (posix_spawn(&c, "/bin/true", &fa, NULL, cargv, cenv) == 0)
		waitpid(c, NULL, 0);
	return NULL;
}

int main(int argc, char **argv)
{
	if (argc < 2) {
		fprintf(stderr, "usage: ipc_waits sysv|mq|eventfd-flock [FILE]\n");
		return 2;
	}
	wl_begin();
	signal(SIGTERM, on_term);
	if (!strcmp(argv[1], "sysv")) {
		semid = semget(IPC_PRIVATE, 1, 0600 | IPC_CREAT);
		if (semid < 0 || semctl(semid, 0, SETVAL, 0) < 0) {
			perror("semget");
			return 1;
		}
		printf("sysv semid=%d\nready\n", semid);
		struct sembuf b = { 0, -1, 0 };
		semop(semid, &b, 1);
		return 0;
	}
	if (!strcmp(argv[1], "sysv-msg") || !strcmp(argv[1], "sysv-msg-full")) {
		struct {
			long type;
			char text[64];
		} m = { 1, "x" };
		struct msqid_ds ds;
		msqid = msgget(IPC_PRIVATE, 0600 | IPC_CREAT);
		if (msqid < 0 || msgctl(msqid, IPC_STAT, &ds) < 0) {
			perror("msgget");
			return 1;
		}
		bool full = !strcmp(argv[1], "sysv-msg-full");
		ds.msg_qbytes = 256;
		if (full && msgctl(msqid, IPC_SET, &ds) < 0) {
			perror("msgctl");
			return 1;
		}
		int n = 0;
		while (full && msgsnd(msqid, &m, sizeof(m.text), IPC_NOWAIT) == 0)
			n++;
		printf("sysv msqid=%d queued=%d\nready\n", msqid, n);
		fflush(stdout);
		if (full)
			msgsnd(msqid, &m, sizeof(m.text), 0);
		else
			msgrcv(msqid, &m, sizeof(m.text), 0, 0);
		return 0;
	}
	if (!strcmp(argv[1], "mq")) {
		char name[64];
		snprintf(name, sizeof(name), "/lt-ipc-waits-%d", (int)getpid());
		struct mq_attr a = { .mq_maxmsg = 4, .mq_msgsize = 32 };
		mqd_t q = mq_open(name, O_CREAT | O_RDWR, 0600, &a);
		if (q == (mqd_t)-1) {
			perror("mq_open");
			return 1;
		}
		mq_unlink(name);
		printf("mq\nready\n");
		char buf[32];
		mq_receive(q, buf, sizeof(buf), NULL);
		return 0;
	}
	if (!strcmp(argv[1], "eventfd-flock") && argc > 2) {
		int e = eventfd(0, 0), fd = open(argv[2], O_CREAT | O_RDWR, 0600);
		if (e < 0 || fd < 0 || flock(fd, LOCK_EX)) {
			perror("eventfd-flock");
			return 1;
		}
		pid_t c = fork();
		if (c == 0) {
			close(fd);
			int f = open(argv[2], O_RDWR);
			flock(f, LOCK_EX); /* held by the parent, which waits for us */
			uint64_t one = 1;
			if (write(e, &one, sizeof(one)) < 0)
				_exit(1);
			_exit(0);
		}
		printf("child pid=%d\nready\n", (int)c);
		uint64_t v;
		if (read(e, &v, sizeof(v)) < 0)
			return 1;
		waitpid(c, NULL, 0);
		return 0;
	}
	if (!strcmp(argv[1], "vfork-pipe")) {
		int p[2];
		if (pipe(p) < 0) {
			perror("pipe");
			return 1;
		}
		fflush(stdout);
		pid_t c = vfork();
		if (c == 0) {
			/* only async-signal-safe calls in a vfork child */
			char line[64], b;
			int n = snprintf(line, sizeof(line), "child pid=%d\nready\n", (int)getpid());
			if (write(1, line, (size_t)n) != n || read(p[0], &b, 1) < 0)
				_exit(1);
			execl("/bin/true", "true", (char *)NULL);
			_exit(1);
		}
		waitpid(c, NULL, 0);
		return 0;
	}
	if ((!strcmp(argv[1], "spawn-fifo") || !strcmp(argv[1], "spawn-fifo2")) && argc > 2) {
		unlink(argv[2]);
		if (mkfifo(argv[2], 0600) < 0) {
			perror("mkfifo");
			return 1;
		}
		fifo = argv[2];
		printf("ready\n");
		fflush(stdout);
		pthread_t th;
		if (!strcmp(argv[1], "spawn-fifo2") && pthread_create(&th, NULL, spawn_fifo, NULL) != 0)
			return 1;
		spawn_fifo(NULL);
		return 0;
	}
	if (!strcmp(argv[1], "posix-sem")) {
		char name[64];
		snprintf(name, sizeof(name), "/lt-ipc-waits-%d", (int)getpid());
		sem_unlink(name);
		sem_t *sm = sem_open(name, O_CREAT, 0600, 0);
		if (sm == SEM_FAILED) {
			perror("sem_open");
			return 1;
		}
		printf("sem name=%s\nready\n", name);
		sem_wait(sm);
		return 0;
	}
	if (!strcmp(argv[1], "pi-shared")) {
		pthread_mutex_t *m = mmap(NULL, 4096, PROT_READ | PROT_WRITE, MAP_SHARED | MAP_ANONYMOUS, -1, 0);
		pthread_mutexattr_t at;
		pthread_mutexattr_init(&at);
		pthread_mutexattr_setpshared(&at, PTHREAD_PROCESS_SHARED);
		pthread_mutexattr_setprotocol(&at, PTHREAD_PRIO_INHERIT);
		if (m == MAP_FAILED || pthread_mutex_init(m, &at) || pthread_mutex_lock(m)) {
			perror("pi-shared");
			return 1;
		}
		pid_t c = fork();
		if (c == 0) {
			pthread_mutex_lock(m); /* held by the parent for ever */
			_exit(0);
		}
		printf("child pid=%d\nready\n", (int)c);
		pause();
		return 0;
	}
	fprintf(stderr, "ipc_waits: unknown mode %s\n", argv[1]);
	return 2;
}
