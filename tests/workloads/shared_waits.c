/*
 * shared_waits - process-shared futexes whose holder the lock does not
 * record (hangs; the forked processes die with it: PR_SET_PDEATHSIG).
 *
 *   --mode sem:  a third process, forked FIRST (so it maps nothing of the
 *                semaphore), holds flock(LOCK_EX) on a temporary file and
 *                pause()s; then a sem_t (pshared, value 0) in
 *                MAP_SHARED|MAP_ANONYMOUS memory; a child (the poster)
 *                blocks in flock() on that file before its sem_post(); the
 *                main thread blocks in sem_wait().  The flock holder is no
 *                possible holder of the semaphore; the poster is.
 *   --mode dead: a PTHREAD_PROCESS_SHARED mutex (not robust) in
 *                MAP_SHARED|MAP_ANONYMOUS memory; a child locks it and
 *                exits holding it, and is reaped (its tid exists nowhere);
 *                then a thread blocks in pthread_mutex_lock() on it.
 *
 * Lines (tests/workloads/README.md): sem: pid; flock_holder pid=H path=P;
 * lock name=sem addr=… kind=sem; child pid=C; thread role=waiter idx=0
 * tid=T; blocked tid=C pid=C on=flock; blocked tid=T on=sem addr=…; ready.
 * dead: pid; lock name=M addr=… kind=mutex; owner tid=C exited=1;
 * thread role=waiter idx=0 tid=T; blocked tid=T on=M addr=…; ready.
 */
#include "workload.h"

#include <fcntl.h>
#include <semaphore.h>
#include <signal.h>
#include <sys/file.h>
#include <sys/mman.h>
#include <sys/prctl.h>
#include <sys/wait.h>

static const char usage[] = "usage: shared_waits --mode sem|dead [--no-wait]";

/* Thread TID of process PID asleep (state S) in system call NR? */
static int asleep_in(pid_t pid, pid_t tid, long nr)
{
	char path[96], buf[512];
	long got = -2;
	FILE *f;
	snprintf(path, sizeof path, "/proc/%d/task/%d/syscall", (int)pid, (int)tid);
	if (!(f = fopen(path, "r")))
		return 0;
	int ok = fscanf(f, "%ld", &got);
	fclose(f);
	if (ok != 1 || got != nr)
		return 0;
	snprintf(path, sizeof path, "/proc/%d/task/%d/stat", (int)pid, (int)tid);
	if (!(f = fopen(path, "r")))
		return 0;
	size_t n = fread(buf, 1, sizeof buf - 1, f);
	fclose(f);
	buf[n] = 0;
	char *p = strrchr(buf, ')');
	return p && p[1] == ' ' && p[2] == 'S';
}

static void wait_asleep(pid_t pid, pid_t tid, long nr, const char *what)
{
	for (int i = 0; i < 5000; i++) {
		if (asleep_in(pid, tid, nr))
			return;
		wl_sleep_ms(2);
	}
	wl_die("%d never slept in %s", (int)tid, what);
}

static pid_t fork_child(void)
{
	pid_t parent = getpid();
	pid_t c = fork();
	if (c < 0)
		wl_die("fork: %s", strerror(errno));
	if (c == 0) {
		prctl(PR_SET_PDEATHSIG, SIGKILL);
		if (getppid() != parent)
			_exit(0);
	}
	return c;
}

static void *shared_page(void)
{
	void *p = mmap(NULL, 4096, PROT_READ | PROT_WRITE, MAP_SHARED | MAP_ANONYMOUS, -1, 0);
	if (p == MAP_FAILED)
		wl_die("mmap: %s", strerror(errno));
	return p;
}

static pid_t waiter_tid;

static void *sem_waiter(void *a)
{
	__atomic_store_n(&waiter_tid, wl_thread("waiter", 0), __ATOMIC_RELEASE);
	while (sem_wait(a) != 0)
		;
	return NULL;
}

static void *mutex_waiter(void *a)
{
	__atomic_store_n(&waiter_tid, wl_thread("waiter", 0), __ATOMIC_RELEASE);
	pthread_mutex_lock(a);
	return NULL;
}

static void mode_sem(void)
{
	char path[64];
	snprintf(path, sizeof path, "/tmp/lt-shared-waits-%d.lock", (int)getpid());
	int fd = open(path, O_RDWR | O_CREAT | O_CLOEXEC, 0600);
	if (fd < 0)
		wl_die("%s: %s", path, strerror(errno));
	int pipefd[2];
	if (pipe(pipefd) < 0)
		wl_die("pipe: %s", strerror(errno));
	/* the file lock's holder: forked before the semaphore is mapped */
	pid_t h = fork_child();
	if (h == 0) {
		int hfd = open(path, O_RDWR | O_CLOEXEC);
		if (hfd < 0 || flock(hfd, LOCK_EX) < 0 || write(pipefd[1], "x", 1) != 1)
			_exit(1);
		for (;;)
			pause();
	}
	char b;
	if (read(pipefd[0], &b, 1) != 1)
		wl_die("the flock holder failed");
	printf("flock_holder pid=%d path=%s\n", (int)h, path);
	unlink(path); /* the holder and the poster have it open: removed with them */
	sem_t *s = shared_page();
	if (sem_init(s, 1, 0) < 0)
		wl_die("sem_init: %s", strerror(errno));
	wl_lock("sem", s, "sem");
	pid_t c = fork_child();
	if (c == 0) {
		if (flock(fd, LOCK_EX) == 0) /* another open than the holder's: it blocks */
			sem_post(s);
		_exit(0);
	}
	close(fd); /* the poster's only */
	printf("child pid=%d\n", (int)c);
	pthread_t t;
	wl_create(&t, NULL, sem_waiter, s);
	pid_t tid = wl_wait_tid(&waiter_tid);
	wait_asleep(c, c, SYS_flock, "flock");
	printf("blocked tid=%d pid=%d on=flock\n", (int)c, (int)c);
	wait_asleep(getpid(), tid, SYS_futex, "sem_wait");
	printf("blocked tid=%d on=sem addr=%p\n", (int)tid, (void *)s);
}

static void mode_dead(void)
{
	pthread_mutex_t *m = shared_page();
	pthread_mutexattr_t a;
	pthread_mutexattr_init(&a);
	pthread_mutexattr_setpshared(&a, PTHREAD_PROCESS_SHARED);
	pthread_mutex_init(m, &a);
	wl_lock("M", m, "mutex");
	int pipefd[2];
	if (pipe(pipefd) < 0)
		wl_die("pipe: %s", strerror(errno));
	pid_t c = fork_child();
	if (c == 0) {
		pthread_mutex_lock(m);
		_exit(write(pipefd[1], "x", 1) == 1 ? 0 : 1); /* exits holding it */
	}
	char b;
	if (read(pipefd[0], &b, 1) != 1 || waitpid(c, NULL, 0) != c)
		wl_die("the owner child failed");
	printf("owner tid=%d exited=1\n", (int)c);
	pthread_t t;
	wl_create(&t, NULL, mutex_waiter, m);
	pid_t tid = wl_wait_tid(&waiter_tid);
	wait_asleep(getpid(), tid, SYS_futex, "pthread_mutex_lock");
	printf("blocked tid=%d on=M addr=%p\n", (int)tid, (void *)m);
}

int main(int argc, char **argv)
{
	const char *mode = NULL;
	int no_wait = WL_ARGS(argc, argv, usage, { 'm', "mode", NULL, 0, 0, &mode, NULL });
	wl_begin();
	if (mode && !strcmp(mode, "sem"))
		mode_sem();
	else if (mode && !strcmp(mode, "dead"))
		mode_dead();
	else
		wl_usage(usage);
	wl_gate(no_wait);
	wl_hang();
}
