/*
 * many_threads - THREADS threads all asleep before the gate (snapshot bench).
 *
 *   many_threads [-t THREADS=1000] [--no-wait]
 *
 * Thread idx I blocks, by I % 4, in:
 *   0 cond:  pthread_cond_wait(&mt_cond, &mt_mutex)  (futex on a g_signals word)
 *   1 futex: FUTEX_WAIT_PRIVATE(&gate_word, 0)
 *   2 read:  read() on a blocking socketpair end that gets no data
 *   3 sleep: nanosleep(1 h)                          (clock_nanosleep syscall)
 * Threads have 64 KiB stacks.  Main checks via /proc that every thread is
 * asleep in its call before printing `ready`; after the gate it wakes them
 * all (broadcast, FUTEX_WAKE, shutdown() of the peer, SIGUSR1), joins them
 * and exits.  Prints:
 *
 *   pid=PID
 *   lock name=mt_mutex addr=0x... kind=mutex
 *   lock name=mt_cond addr=0x... kind=cond   (+ .g_signals0/.g_signals1 lines)
 *   lock name=gate_word addr=0x... kind=futex
 *   socket role=read fd=F
 *   thread role=ROLE idx=I tid=TID   (THREADS lines, any order; ROLE as above)
 *   blocked threads=T cond=A futex=B read=C sleep=D
 *   ready
 *   done threads=T
 */
#include "workload.h"
#include <limits.h>
#include <linux/futex.h>
#include <signal.h>
#include <sys/syscall.h>

#define USAGE "[-t THREADS=1000] [--no-wait]"

enum { COND, FUTEX, READ, SLEEP, NKINDS };
static const char *const kind_name[NKINDS] = { "cond", "futex", "read", "sleep" };

pthread_mutex_t mt_mutex = PTHREAD_MUTEX_INITIALIZER;
pthread_cond_t mt_cond = PTHREAD_COND_INITIALIZER;
int gate_word;

static int released;  /* set once, after the gate */
static int read_fd, peer_fd;
static pid_t *tids;

static void on_sigusr1(int sig) { (void)sig; }

static void *sleeper(void *arg)
{
	int idx = (int)(long)arg;
	char byte;

	__atomic_store_n(&tids[idx], wl_thread(kind_name[idx % NKINDS], idx),
			 __ATOMIC_RELEASE);
	switch (idx % NKINDS) {
	case COND:
		pthread_mutex_lock(&mt_mutex);
		while (!released)
			pthread_cond_wait(&mt_cond, &mt_mutex);
		pthread_mutex_unlock(&mt_mutex);
		break;
	case FUTEX:
		while (!__atomic_load_n(&gate_word, __ATOMIC_ACQUIRE))
			syscall(SYS_futex, &gate_word, FUTEX_WAIT_PRIVATE, 0, NULL,
				NULL, 0);
		break;
	case READ:
		while (read(read_fd, &byte, 1) != 0) /* until EOF */
			if (errno != EINTR)
				wl_die("read: %s", strerror(errno));
		break;
	case SLEEP:
		while (!__atomic_load_n(&released, __ATOMIC_ACQUIRE)) {
			struct timespec ts = { 3600, 0 };
			nanosleep(&ts, NULL); /* SIGUSR1 interrupts it */
		}
		break;
	}
	return NULL;
}

/* Is thread idx asleep in the call its kind is meant to block in? */
static int in_place(int idx)
{
	long nr;
	unsigned long a0;

	if (!wl_blocked_in(tids[idx], &nr, &a0))
		return 0;
	switch (idx % NKINDS) {
	case COND:
		return nr == SYS_futex &&
		       (a0 == (unsigned long)&mt_cond.__data.__g_signals[0] ||
			a0 == (unsigned long)&mt_cond.__data.__g_signals[1]);
	case FUTEX:
		return nr == SYS_futex && a0 == (unsigned long)&gate_word;
	case READ:
		return nr == SYS_read && a0 == (unsigned long)read_fd;
	default:
		return nr == SYS_clock_nanosleep;
	}
}

int main(int argc, char **argv)
{
	long nthreads = 1000;
	int no_wait = 0, sv[2];

	wl_args_threads(argc, argv, &nthreads, 1, 20000, &no_wait, USAGE);

	wl_socketpair(SOCK_STREAM, sv);
	read_fd = sv[0];
	peer_fd = sv[1];
	struct sigaction sa = { .sa_handler = on_sigusr1 }; /* no SA_RESTART */
	sigaction(SIGUSR1, &sa, NULL);

	wl_begin();
	wl_lock("mt_mutex", &mt_mutex, "mutex");
	wl_cond("mt_cond", &mt_cond);
	wl_lock("gate_word", &gate_word, "futex");
	printf("socket role=read fd=%d\n", read_fd);

	pthread_attr_t attr;
	pthread_attr_init(&attr);
	pthread_attr_setstacksize(&attr, 64 * 1024);
	tids = wl_xcalloc(nthreads, sizeof *tids);
	pthread_t *t = wl_start(nthreads, &attr, sleeper);

	long count[NKINDS] = { 0 };
	for (long i = 0; i < nthreads; i++) {
		wl_wait_tid(&tids[i]);
		for (int tries = 0; !in_place(i); tries++) {
			if (tries == 10000)
				wl_die("thread %d did not block", (int)tids[i]);
			wl_sleep_ms(1);
		}
		count[i % NKINDS]++;
	}
	printf("blocked threads=%ld cond=%ld futex=%ld read=%ld sleep=%ld\n",
	       nthreads, count[COND], count[FUTEX], count[READ], count[SLEEP]);
	wl_gate(no_wait);

	pthread_mutex_lock(&mt_mutex);
	__atomic_store_n(&released, 1, __ATOMIC_RELEASE);
	pthread_cond_broadcast(&mt_cond);
	pthread_mutex_unlock(&mt_mutex);
	__atomic_store_n(&gate_word, 1, __ATOMIC_RELEASE);
	syscall(SYS_futex, &gate_word, FUTEX_WAKE_PRIVATE, INT_MAX, NULL, NULL, 0);
	shutdown(peer_fd, SHUT_WR); /* readers see EOF */
	for (long i = SLEEP; i < nthreads; i += NKINDS)
		pthread_kill(t[i], SIGUSR1);
	wl_join(t, nthreads);

	printf("done threads=%ld\n", nthreads);
	return 0;
}
