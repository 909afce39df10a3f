/*
 * fork_locked - a private mutex copied locked by fork().
 *
 *   fork_locked [--parent-waits] [--no-wait]
 *
 * Thread "holder" locks the private (default) mutex M and sleeps forever
 * holding it; main then forks.  The child has only the forking thread: its
 * copy of M stays locked by a tid that is no thread of the child, and the
 * child blocks on it for ever (nothing can unlock it).  With --parent-waits
 * a parent thread "waiter" also blocks on the parent's own M (held by
 * "holder": an ordinary lock wait in the parent, at the same address as the
 * child's wait).  The child dies with the parent (PR_SET_PDEATHSIG).
 * Prints:
 *
 *   pid=PID
 *   lock name=M addr=0x... kind=mutex
 *   thread role=holder idx=0 tid=TH
 *   [thread role=waiter idx=0 tid=TW]
 *   child pid=CPID
 *   blocked pid=CPID tid=CPID on=M addr=0x...
 *   [blocked pid=PID tid=TW on=M addr=0x...]
 *   ready
 */
#include "workload.h"

#include <signal.h>
#include <sys/prctl.h>

#define USAGE "[--parent-waits] [--no-wait]"

static pthread_mutex_t M = PTHREAD_MUTEX_INITIALIZER;
static pid_t holder_tid, waiter_tid;

static void *holder(void *arg)
{
	(void)arg;
	pthread_mutex_lock(&M);
	__atomic_store_n(&holder_tid, wl_thread("holder", 0), __ATOMIC_RELEASE);
	wl_hang();
}

static void *waiter(void *arg)
{
	(void)arg;
	__atomic_store_n(&waiter_tid, wl_thread("waiter", 0), __ATOMIC_RELEASE);
	pthread_mutex_lock(&M); /* held by holder for ever */
	return NULL;
}

/* Is thread TID of process PID asleep in futex(ADDR, ...)? */
static int blocked_on(pid_t pid, pid_t tid, const void *addr)
{
	char path[96];
	long nr = -1;
	unsigned long a0 = 0;
	snprintf(path, sizeof(path), "/proc/%d/task/%d/syscall", (int)pid, (int)tid);
	FILE *f = fopen(path, "r");
	if (!f)
		return 0;
	int ok = fscanf(f, "%ld %lx", &nr, &a0) == 2;
	fclose(f);
	return ok && nr == SYS_futex && a0 == (unsigned long)addr;
}

static void wait_blocked(pid_t pid, pid_t tid)
{
	for (int i = 0; i < 10000; i++) {
		if (blocked_on(pid, tid, &M))
			return;
		wl_sleep_ms(1);
	}
	wl_die("thread %d of %d did not block on M", (int)tid, (int)pid);
}

int main(int argc, char **argv)
{
	int parent_waits = 0;
	const struct wl_opt opts[] = { { 1001, "parent-waits", NULL, 0, 0, NULL, &parent_waits }, { 0 } };
	int no_wait = wl_args(argc, argv, opts, USAGE);
	wl_begin();
	wl_lock("M", &M, "mutex");
	pthread_t th, tw;
	if (pthread_create(&th, NULL, holder, NULL))
		wl_die("pthread_create failed");
	wl_wait_tid(&holder_tid);
	fflush(stdout);
	pid_t parent = getpid();
	pid_t child = fork();
	if (child < 0)
		wl_die("fork: %s", strerror(errno));
	if (child == 0) {
		prctl(PR_SET_PDEATHSIG, SIGKILL);
		if (getppid() != parent)
			_exit(1);
		pthread_mutex_lock(&M); /* its owner is the parent's holder: for ever */
		_exit(2);
	}
	printf("child pid=%d\n", (int)child);
	if (parent_waits) {
		if (pthread_create(&tw, NULL, waiter, NULL))
			wl_die("pthread_create failed");
		wl_wait_tid(&waiter_tid);
	}
	wait_blocked(child, child);
	printf("blocked pid=%d tid=%d on=M addr=%p\n", (int)child, (int)child, (void *)&M);
	if (parent_waits) {
		wait_blocked(parent, waiter_tid);
		printf("blocked pid=%d tid=%d on=M addr=%p\n", (int)parent, (int)waiter_tid, (void *)&M);
	}
	wl_gate(no_wait);
	wl_hang();
}
