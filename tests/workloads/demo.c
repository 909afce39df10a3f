/*
 * demo - a language-runtime-style "runtime lock" workload, optionally stalling.
 *
 *   demo [-t THREADS=64] [-d SECONDS=3 | -n ITERS] [--stall io|lost-wakeup]
 *        [--early] [--window MS] [--pace MS] [--no-wait]
 *
 * Like OCaml's master lock or Python's GIL, the global `rtlock` lets one
 * worker at a time "run"; workers give it up around each blocking call.
 * Each worker owns a nonblocking socketpair and loops, holding rtlock:
 *   a little work; then, each call wrapped in release/acquire:
 *   select(writable), write 8 KiB, select(readable), read 8 KiB.
 * rtlock is fair: a thread arriving while others queue waits its turn (no
 * barging), so every handoff is a pthread_cond_signal/cond_wait pair.
 * The run ends after SECONDS, or after exactly ITERS iterations with -n.
 *
 * --early creates the workers before `ready`; they wait at the start gate
 * (on a mutex/condvar of their own, not rtlock) and begin together when it
 * opens.  A tool that attaches by pid to a running process only sees the
 * threads that exist (perf trace -p does not follow new ones), so the
 * benchmark attaches every tool to a process whose workers already exist.
 *
 * --window MS prints, from the gate on, a line every MS milliseconds with the
 * wall-clock time (CLOCK_REALTIME, the clock of bash's $EPOCHREALTIME) and
 * the iterations completed so far, from a thread of its own that never
 * touches rtlock: a throughput time series of one long run, which
 * scripts/bench-onoff.sh compares with and without a tracer attached.
 *
 * --pace MS: each worker sleeps MS milliseconds after each iteration, the
 * runtime lock released (a blocking call like the others): fewer events a
 * second, for a test whose ring must hold a few seconds of the run on a
 * fast host as on a slow one (the unpaced rate is bound by the hand-offs:
 * 16-21k iterations a second on the hosts seen).
 *
 * --stall MODE hangs the way runtime-lock bugs do, 1-2 s after the gate
 * (the delay is derived from the pid and printed as stall_plan), and then
 * never finishes (-d/-n are ignored; the test kills it):
 *   io           one worker, holding rtlock, calls read() on a socket that
 *                never gets data (a blocking call not wrapped in a release);
 *                everyone else queues in pthread_cond_wait with busy=1.
 *   lost-wakeup  release peeks at `waiters` without holding rtlock.m, before
 *                clearing busy, and skips the signal if it saw 0.  At the
 *                same moment load drops: each round a worker first waits
 *                IDLE = 2 + THREADS/2 ms for a request that does not come,
 *                so the queue empties; a releaser that sees no waiters then
 *                does IDLE+5 ms of "housekeeping" before clearing busy (the
 *                race window), long enough for another worker to queue.
 *                That worker is never signalled, and since arrivals queue
 *                behind it, all workers end up in pthread_cond_wait with
 *                busy=0 and nobody to wake them (typically within 0.1 s of
 *                arming).  Needs THREADS >= 2.
 * In both modes a watchdog thread (which never touches rtlock) reports the
 * stall once there has been no progress for 1 s.
 *
 * Prints:
 *   pid=PID
 *   lock name=rtlock addr=0x... kind=runtime_lock
 *   lock name=rtlock.m addr=0x... kind=mutex            (same address)
 *   lock name=rtlock.c addr=0x... kind=cond  (+ rtlock.c.g_signals0/1 lines)
 *   socket role=worker idx=I wfd=W rfd=R                (THREADS lines)
 *   socket role=stall fd=F                              (--stall io)
 *   stall_plan mode=MODE after_ms=MS                    (--stall)
 *   thread role=worker idx=I tid=TID                    (THREADS lines, --early)
 *   ready
 *   thread role=worker idx=I tid=TID                    (THREADS lines, otherwise)
 *   thread role=watchdog idx=0 tid=TID                  (--stall)
 *   stall mode=io holder_tid=T fd=F                     (--stall io)
 *   stall mode=lost-wakeup releaser_tid=T waiters=W     (--stall lost-wakeup)
 *   stalled iterations=N waiters=W busy=B               (--stall, 1 s later)
 *   tick t=SECONDS iterations=N        (--window, every MS ms; N cumulative)
 *   done iterations=N threads=T seconds=S               (no --stall)
 */
#include "workload.h"
#include <sys/select.h>

#define USAGE "[-t THREADS=64] [-d SECONDS=3 | -n ITERS] " \
	      "[--stall io|lost-wakeup] [--early] [--window MS] [--pace MS] [--no-wait]"
#define CHUNK 8192

struct runtime_lock {
	pthread_mutex_t m;
	pthread_cond_t c;
	int busy;    /* a worker holds the runtime lock */
	int waiters; /* workers queued in pthread_cond_wait */
};
struct runtime_lock rtlock = { PTHREAD_MUTEX_INITIALIZER,
			       PTHREAD_COND_INITIALIZER, 0, 0 };

enum { STALL_NONE, STALL_IO, STALL_LOST };
static int stall;
static double arm_at;   /* when the stall mode kicks in */
static int armed;       /* set once arm_at has passed (stall modes) */
static int stall_taken; /* the one-shot stall happened */
static int stall_fd;    /* --stall io: socket that never gets data */
static long idle_ms;    /* --stall lost-wakeup: per-round wait once armed */

static long max_iters;  /* -n; 0 = run for SECONDS */

/* --early: workers exist before the gate and wait here until it opens */
static int early;
static pthread_mutex_t start_m = PTHREAD_MUTEX_INITIALIZER;
static pthread_cond_t start_c = PTHREAD_COND_INITIALIZER;
static int start_arrived, start_go;
static int stop;        /* SECONDS are over */
static long started;    /* iterations begun; protected by rtlock */
static long iterations; /* iterations completed; atomic */

/*
 * Fair acquire: a thread arriving while others queue waits its turn.  (This
 * is also what makes one lost wake-up fatal in --stall lost-wakeup: with
 * barging, the next arrival would take the free lock and its release would
 * signal the forgotten waiter.)
 */
static void rt_acquire(void)
{
	pthread_mutex_lock(&rtlock.m);
	if (rtlock.busy || rtlock.waiters) { /* queue behind earlier waiters */
		rtlock.waiters++;
		do
			pthread_cond_wait(&rtlock.c, &rtlock.m);
		while (rtlock.busy);
		rtlock.waiters--;
	}
	rtlock.busy = 1;
	pthread_mutex_unlock(&rtlock.m);
}

/* --stall lost-wakeup's release: racy on purpose. */
static void rt_release_racy(void)
{
	/* BUG: reads waiters without rtlock.m, before busy is cleared. */
	int saw = __atomic_load_n(&rtlock.waiters, __ATOMIC_RELAXED);
	if (!saw) /* "housekeeping while idle": the race window */
		wl_sleep_ms(idle_ms + 5);
	pthread_mutex_lock(&rtlock.m);
	rtlock.busy = 0;
	if (saw)
		pthread_cond_signal(&rtlock.c);
	else if (rtlock.waiters && !__atomic_exchange_n(&stall_taken, 1,
							__ATOMIC_RELAXED))
		printf("stall mode=lost-wakeup releaser_tid=%d waiters=%d\n",
		       (int)gettid(), rtlock.waiters);
	pthread_mutex_unlock(&rtlock.m);
}

static void rt_release(void)
{
	if (stall == STALL_LOST && __atomic_load_n(&armed, __ATOMIC_RELAXED)) {
		rt_release_racy();
		return;
	}
	pthread_mutex_lock(&rtlock.m);
	rtlock.busy = 0;
	if (rtlock.waiters)
		pthread_cond_signal(&rtlock.c);
	pthread_mutex_unlock(&rtlock.m);
}

/* Run a blocking call with the runtime lock released, as runtimes do. */
#define BLOCKING(call) do { rt_release(); call; rt_acquire(); } while (0)

/* select() until fd is writable/readable or timeout_ms passes (-1: never). */
static void wait_fd(int fd, int for_write, long timeout_ms)
{
	fd_set set;
	struct timeval tv = { timeout_ms / 1000, timeout_ms % 1000 * 1000 };
	int n;

	do {
		FD_ZERO(&set);
		FD_SET(fd, &set);
		n = select(fd + 1, for_write ? NULL : &set,
			   for_write ? &set : NULL, NULL,
			   timeout_ms < 0 ? NULL : &tv);
	} while (n < 0 && errno == EINTR);
	if (n < 0)
		wl_die("select: %s", strerror(errno));
}

/* Move one 8 KiB chunk in or out of fd: select, then read/write, until
 * done; the runtime lock is released around each of these calls. */
static void xfer(int fd, int for_write, char *buf)
{
	for (size_t done = 0; done < CHUNK;) {
		ssize_t n;
		int err;
		BLOCKING(wait_fd(fd, for_write, -1));
		BLOCKING((n = for_write ? write(fd, buf + done, CHUNK - done)
					: read(fd, buf + done, CHUNK - done),
			  err = errno));
		if (n > 0)
			done += n;
		else if (n == 0)
			wl_die("read: unexpected EOF");
		else if (err != EAGAIN && err != EINTR)
			wl_die("%s: %s", for_write ? "write" : "read",
			       strerror(err));
	}
}

static volatile unsigned long sink;

static void work(void)
{
	for (int i = 0; i < 500; i++)
		sink = sink * 31 + i;
}

/* Called holding rtlock at the top of each iteration. */
static int finished(void)
{
	if (stall == STALL_NONE) {
		if (max_iters ? started >= max_iters
			      : __atomic_load_n(&stop, __ATOMIC_RELAXED))
			return 1;
	} else if (!__atomic_load_n(&armed, __ATOMIC_RELAXED) &&
		   wl_now() >= arm_at) {
		__atomic_store_n(&armed, 1, __ATOMIC_RELAXED);
	}
	started++;
	return 0;
}

struct worker {
	int idx, wfd, rfd;
};

static long pace_ms;

static void *worker(void *arg)
{
	struct worker *w = arg;
	char buf[CHUNK] = { 0 };

	wl_thread("worker", w->idx);
	if (early) {
		pthread_mutex_lock(&start_m);
		start_arrived++;
		pthread_cond_broadcast(&start_c);
		while (!start_go)
			pthread_cond_wait(&start_c, &start_m);
		pthread_mutex_unlock(&start_m);
	}
	rt_acquire();
	while (!finished()) {
		if (stall == STALL_IO && __atomic_load_n(&armed, __ATOMIC_RELAXED) &&
		    !__atomic_exchange_n(&stall_taken, 1, __ATOMIC_RELAXED)) {
			printf("stall mode=io holder_tid=%d fd=%d\n", (int)gettid(),
			       stall_fd);
			for (;;) /* BUG: blocks holding the runtime lock */
				if (read(stall_fd, buf, CHUNK) >= 0)
					wl_die("read: unexpected data/EOF");
		}
		work();
		if (stall == STALL_LOST && __atomic_load_n(&armed, __ATOMIC_RELAXED))
			BLOCKING(wait_fd(w->rfd, 0, idle_ms)); /* no request */
		xfer(w->wfd, 1, buf);
		xfer(w->rfd, 0, buf);
		__atomic_add_fetch(&iterations, 1, __ATOMIC_RELAXED);
		if (pace_ms)
			BLOCKING(wl_sleep_ms(pace_ms));
	}
	rt_release();
	return NULL;
}

/* Stall modes only: report once when iterations stop for 1 s. */
static void *watchdog(void *arg)
{
	long last = -1;
	int still = 0;
	(void)arg;

	wl_thread("watchdog", 0);
	for (;;) {
		wl_sleep_ms(100);
		long now = __atomic_load_n(&iterations, __ATOMIC_RELAXED);
		still = now == last ? still + 1 : 0;
		last = now;
		if (still == 10) /* no lock: the watchdog must not disturb it */
			printf("stalled iterations=%ld waiters=%d busy=%d\n", now,
			       __atomic_load_n(&rtlock.waiters, __ATOMIC_RELAXED),
			       __atomic_load_n(&rtlock.busy, __ATOMIC_RELAXED));
	}
	return NULL;
}

/* --window: the iteration count every window_ms, on a fixed grid (absolute
 * sleeps, so that a late wake-up does not shift the windows after it). */
static long window_ms;

static void *ticker(void *arg)
{
	struct timespec next, wall;
	(void)arg;

	clock_gettime(CLOCK_MONOTONIC, &next);
	for (;;) {
		clock_gettime(CLOCK_REALTIME, &wall);
		printf("tick t=%ld.%06ld iterations=%ld\n", (long)wall.tv_sec,
		       wall.tv_nsec / 1000,
		       __atomic_load_n(&iterations, __ATOMIC_RELAXED));
		next.tv_nsec += window_ms % 1000 * 1000000L;
		next.tv_sec += window_ms / 1000 + next.tv_nsec / 1000000000L;
		next.tv_nsec %= 1000000000L;
		while (clock_nanosleep(CLOCK_MONOTONIC, TIMER_ABSTIME, &next, NULL) == EINTR)
			;
	}
	return NULL;
}

int main(int argc, char **argv)
{
	static const struct option opts[] = {
		{ "no-wait", no_argument, NULL, WL_OPT_NO_WAIT },
		{ "stall", required_argument, NULL, 's' },
		{ "early", no_argument, NULL, 'e' },
		{ "window", required_argument, NULL, 'w' },
		{ "pace", required_argument, NULL, 'p' }, { 0 }
	};
	long nthreads = 64, seconds = 3;
	int no_wait = 0, have_d = 0, c;

	while ((c = getopt_long(argc, argv, "t:d:n:", opts, NULL)) != -1) {
		switch (c) {
		case 't': nthreads = wl_arg(optarg, 1, 500, USAGE); break;
		case 'd': seconds = wl_arg(optarg, 0, 86400, USAGE); have_d = 1; break;
		case 'n': max_iters = wl_arg(optarg, 1, 1000000000, USAGE); break;
		case 's':
			if (!strcmp(optarg, "io"))
				stall = STALL_IO;
			else if (!strcmp(optarg, "lost-wakeup"))
				stall = STALL_LOST;
			else
				wl_usage(USAGE);
			break;
		case 'e': early = 1; break;
		case 'w': window_ms = wl_arg(optarg, 1, 60000, USAGE); break;
		case 'p': pace_ms = wl_arg(optarg, 1, 10000, USAGE); break;
		case WL_OPT_NO_WAIT: no_wait = 1; break;
		default: wl_usage(USAGE);
		}
	}
	if (optind != argc || (have_d && max_iters) ||
	    (stall == STALL_LOST && nthreads < 2))
		wl_usage(USAGE);
	idle_ms = 2 + nthreads / 2;

	wl_begin();
	wl_lock("rtlock", &rtlock, "runtime_lock");
	wl_lock("rtlock.m", &rtlock.m, "mutex");
	wl_cond("rtlock.c", &rtlock.c);

	struct worker *w = wl_xcalloc(nthreads, sizeof *w);
	for (long i = 0; i < nthreads; i++) {
		int sv[2];
		wl_socketpair(SOCK_STREAM | SOCK_NONBLOCK, sv);
		w[i] = (struct worker){ (int)i, sv[0], sv[1] };
		printf("socket role=worker idx=%ld wfd=%d rfd=%d\n", i, sv[0], sv[1]);
	}
	long after_ms = 1000 + (unsigned)getpid() * 2654435761u % 1000;
	if (stall == STALL_IO) {
		int sv[2];
		wl_socketpair(SOCK_STREAM, sv); /* blocking */
		stall_fd = sv[0]; /* sv[1] stays open and silent */
		printf("socket role=stall fd=%d\n", stall_fd);
	}
	if (stall)
		printf("stall_plan mode=%s after_ms=%ld\n",
		       stall == STALL_IO ? "io" : "lost-wakeup", after_ms);
	pthread_t *t = wl_xcalloc(nthreads, sizeof *t), wd;
	if (early) {
		/* every thread line is printed before ready */
		for (long i = 0; i < nthreads; i++)
			wl_create(&t[i], NULL, worker, &w[i]);
		pthread_mutex_lock(&start_m);
		while (start_arrived < nthreads)
			pthread_cond_wait(&start_c, &start_m);
		pthread_mutex_unlock(&start_m);
	}
	wl_gate(no_wait);

	double start = wl_now();
	arm_at = start + after_ms / 1000.0;
	if (window_ms) {
		pthread_t tk;
		wl_create(&tk, NULL, ticker, NULL);
		pthread_detach(tk);
	}
	if (early) {
		pthread_mutex_lock(&start_m);
		start_go = 1;
		pthread_cond_broadcast(&start_c);
		pthread_mutex_unlock(&start_m);
	} else {
		for (long i = 0; i < nthreads; i++)
			wl_create(&t[i], NULL, worker, &w[i]);
	}
	if (stall) {
		wl_create(&wd, NULL, watchdog, NULL);
		wl_hang();
	}
	if (!max_iters) {
		wl_sleep_ms(seconds * 1000);
		__atomic_store_n(&stop, 1, __ATOMIC_RELAXED);
	}
	for (long i = 0; i < nthreads; i++)
		pthread_join(t[i], NULL);

	printf("done iterations=%ld threads=%ld seconds=%.3f\n", iterations,
	       nthreads, wl_now() - start);
	return 0;
}
