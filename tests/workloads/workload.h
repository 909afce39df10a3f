/*
 * workload.h - helpers shared by the bundled workloads (tests/workloads/).
 *
 * Every workload speaks the same line protocol on stdout (see README.md):
 *   pid=PID
 *   lock name=NAME addr=0x... kind=...     (objects the program will use)
 *   ready                                    (then waits for the start gate)
 *   thread role=ROLE idx=I tid=TID           (as each thread starts)
 *   done key=value ...                       (final counts; exit 0)
 *
 * Include this header first: it defines _GNU_SOURCE (for gettid()).
 */
#ifndef LOCKTRACE_WORKLOAD_H
#define LOCKTRACE_WORKLOAD_H

#ifndef _GNU_SOURCE
#define _GNU_SOURCE
#endif

#include <errno.h>
#include <fcntl.h>
#include <getopt.h>
#include <pthread.h>
#include <sched.h>
#include <signal.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/file.h>
#include <sys/prctl.h>
#include <sys/socket.h>
#include <sys/syscall.h>
#include <time.h>
#include <unistd.h>

/* Long option --no-wait, returned by getopt_long as this value. */
#define WL_OPT_NO_WAIT 1000

/* Line-buffer stdout (tests read it through a pipe) and print pid=PID. */
static inline void wl_begin(void)
{
	setvbuf(stdout, NULL, _IOLBF, 0);
	printf("pid=%d\n", (int)getpid());
}

/* "lock name=NAME addr=0x... kind=KIND": ADDR is what the kernel sees. */
static inline void wl_lock(const char *name, const void *addr, const char *kind)
{
	printf("lock name=%s addr=%p kind=%s\n", name, addr, kind);
}

/*
 * Print a pthread_cond_t and its internal futex words.  In glibc 2.36
 * pthread_cond_wait() sleeps in FUTEX_WAIT on &c->__data.__g_signals[g],
 * where g (0 or 1) is the group the waiter joined, so a waiter is blocked on
 * one of NAME.g_signals0 / NAME.g_signals1, never on NAME itself.  (Rarely,
 * glibc also waits on __g_refs[g] or on the internal lock in __g1_orig_size
 * for a few microseconds while switching groups.)
 */
static inline void wl_cond(const char *name, pthread_cond_t *c)
{
	printf("lock name=%s addr=%p kind=cond\n", name, (void *)c);
	printf("lock name=%s.g_signals0 addr=%p kind=cond_futex\n", name,
	       (void *)&c->__data.__g_signals[0]);
	printf("lock name=%s.g_signals1 addr=%p kind=cond_futex\n", name,
	       (void *)&c->__data.__g_signals[1]);
}

/* "thread role=ROLE idx=I tid=TID" for the calling thread; returns its tid. */
static inline pid_t wl_thread(const char *role, int idx)
{
	pid_t tid = gettid();
	printf("thread role=%s idx=%d tid=%d\n", role, idx, (int)tid);
	return tid;
}

/*
 * Print "ready", then unless no_wait read one line from stdin (EOF also
 * starts): the start gate that lets a test attach the tracer first.
 */
static inline void wl_gate(int no_wait)
{
	printf("ready\n");
	if (no_wait)
		return;
	int ch;
	do
		ch = getchar();
	while (ch != EOF && ch != '\n');
}

/* Block the calling thread forever (for programs that hang on purpose). */
static inline __attribute__((noreturn)) void wl_hang(void)
{
	for (;;)
		pause();
}

static inline double wl_now(void)
{
	struct timespec ts;
	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec + ts.tv_nsec / 1e9;
}

static inline void wl_sleep_ms(long ms)
{
	struct timespec ts = { ms / 1000, (ms % 1000) * 1000000L };
	while (nanosleep(&ts, &ts) != 0 && errno == EINTR)
		;
}

static inline __attribute__((noreturn)) void wl_die(const char *fmt, ...)
{
	va_list ap;
	va_start(ap, fmt);
	fprintf(stderr, "%s: ", program_invocation_short_name);
	vfprintf(stderr, fmt, ap);
	va_end(ap);
	fputc('\n', stderr);
	exit(1);
}

/* Usage message on stderr, exit 2. */
static inline __attribute__((noreturn)) void wl_usage(const char *usage)
{
	fprintf(stderr, "usage: %s %s\n", program_invocation_short_name, usage);
	exit(2);
}

/* Parse a decimal integer in [min, max]; on error print usage and exit 2. */
static inline long wl_arg(const char *s, long min, long max, const char *usage)
{
	char *end;
	errno = 0;
	long v = strtol(s, &end, 10);
	if (errno || end == s || *end || v < min || v > max) {
		fprintf(stderr, "%s: bad number '%s' (want %ld..%ld)\n",
			program_invocation_short_name, s, min, max);
		wl_usage(usage);
	}
	return v;
}

/*
 * One option of a workload's command line besides --no-wait: -KEY N, a
 * number in [min, max] into *num, or -KEY VALUE into *str; or, given a long
 * name, --NAME VALUE into *str or the flag --NAME setting *flag to 1.  A
 * table of them ends with { 0 }.
 */
struct wl_opt {
	int key;
	const char *name;
	long *num;
	long min, max;
	const char **str;
	int *flag;
};
#define WL_NUM(key, var, lo, hi) { (key), NULL, (var), (lo), (hi), NULL, NULL }
/* wl_args with the table written in place: WL_ARGS(argc, argv, USAGE,
 * WL_NUM(...), ...); no_wait as wl_args returns it. */
#define WL_ARGS(argc, argv, usage, ...) \
	wl_args((argc), (argv), (const struct wl_opt[]){ __VA_ARGS__, { 0 } }, (usage))

/* Parse the command line by OPTS: no other arguments; on error print usage
 * and exit 2.  Options absent leave their variables as they are.  Returns
 * whether --no-wait was given. */
static inline int wl_args(int argc, char **argv, const struct wl_opt *opts, const char *usage)
{
	struct option lopts[16] = { { "no-wait", no_argument, NULL, WL_OPT_NO_WAIT } };
	char shorts[32] = "";
	int nl = 1, ns = 0, c, no_wait = 0;

	for (const struct wl_opt *o = opts; o->key; o++) {
		if (o->name)
			lopts[nl++] = (struct option){ o->name, o->str ? required_argument : no_argument,
						       NULL, o->key };
		else {
			shorts[ns++] = (char)o->key;
			shorts[ns++] = ':';
		}
	}
	while ((c = getopt_long(argc, argv, shorts, lopts, NULL)) != -1) {
		const struct wl_opt *o = opts;
		while (o->key && o->key != c)
			o++;
		if (c == WL_OPT_NO_WAIT)
			no_wait = 1;
		else if (!o->key)
			wl_usage(usage);
		else if (o->num)
			*o->num = wl_arg(optarg, o->min, o->max, usage);
		else if (o->str)
			*o->str = optarg;
		else
			*o->flag = 1;
	}
	if (optind != argc)
		wl_usage(usage);
	return no_wait;
}

/* The command line of the workloads that take just "[-t N] [--no-wait]":
 * N into *n (left as it is when absent) within [min, max]. */
static inline void wl_args_threads(int argc, char **argv, long *n, long min, long max,
				   int *no_wait, const char *usage)
{
	const struct wl_opt opts[] = { WL_NUM('t', n, min, max), { 0 } };
	*no_wait = wl_args(argc, argv, opts, usage);
}

static inline void *wl_xcalloc(size_t n, size_t size)
{
	void *p = calloc(n, size);
	if (!p)
		wl_die("out of memory");
	return p;
}

/* socketpair(AF_UNIX, TYPE, 0, SV), or exit 1. */
static inline void wl_socketpair(int type, int sv[2])
{
	if (socketpair(AF_UNIX, type, 0, sv) < 0)
		wl_die("socketpair: %s", strerror(errno));
}

static inline void wl_create(pthread_t *t, const pthread_attr_t *attr,
			     void *(*fn)(void *), void *arg)
{
	int err = pthread_create(t, attr, fn, arg);
	if (err)
		wl_die("pthread_create: %s", strerror(err));
}

/* Start N threads running FN, thread i with the argument (void *)i. */
static inline pthread_t *wl_start(long n, const pthread_attr_t *attr, void *(*fn)(void *))
{
	pthread_t *t = wl_xcalloc(n, sizeof *t);
	for (long i = 0; i < n; i++)
		wl_create(&t[i], attr, fn, (void *)i);
	return t;
}

static inline void wl_join(pthread_t *t, long n)
{
	for (long i = 0; i < n; i++)
		pthread_join(t[i], NULL);
}

/* Wait until a thread has published its tid in *P (with release). */
static inline pid_t wl_wait_tid(pid_t *p)
{
	pid_t tid;
	while (!(tid = __atomic_load_n(p, __ATOMIC_ACQUIRE)))
		sched_yield();
	return tid;
}

/*
 * If thread TID of this process is asleep (state S) in a system call, store
 * the call number and first argument in *nr / *arg0 and return 1.  Reads
 * /proc/self/task/TID/syscall ("NR ARG0 ...", what the tests read too) and
 * the state letter in /proc/self/task/TID/stat.
 */
static inline int wl_blocked_in(pid_t tid, long *nr, unsigned long *arg0)
{
	char path[64], buf[512];
	char state = '?';
	FILE *f;

	snprintf(path, sizeof path, "/proc/self/task/%d/syscall", (int)tid);
	if (!(f = fopen(path, "r")))
		return 0;
	int n_ok = fscanf(f, "%ld %lx", nr, arg0);
	fclose(f);
	if (n_ok != 2)
		return 0;

	snprintf(path, sizeof path, "/proc/self/task/%d/stat", (int)tid);
	if (!(f = fopen(path, "r")))
		return 0;
	size_t n = fread(buf, 1, sizeof buf - 1, f);
	fclose(f);
	buf[n] = '\0';
	char *p = strrchr(buf, ')'); /* comm may contain spaces */
	if (p && p[1] == ' ')
		state = p[2];
	return state == 'S';
}

/* Is thread TID asleep in system call NR with first argument ARG0? */
static inline int wl_is_blocked(pid_t tid, long nr, unsigned long arg0)
{
	long got_nr;
	unsigned long got_arg0;
	return wl_blocked_in(tid, &got_nr, &got_arg0) && got_nr == nr &&
	       got_arg0 == arg0;
}

/* Wait (TRIES ms at most, then exit 1; 0: for ever) until
 * wl_is_blocked(tid, nr, arg0). */
static inline void wl_wait_blocked_for(pid_t tid, long nr, unsigned long arg0, long tries)
{
	for (long i = 0; !tries || i < tries; i++) {
		if (wl_is_blocked(tid, nr, arg0))
			return;
		wl_sleep_ms(1);
	}
	wl_die("thread %d did not block in syscall %ld(%#lx, ...)", (int)tid,
	       nr, arg0);
}

/* Wait (up to 10 s, then exit 1) until wl_is_blocked(tid, nr, arg0). */
static inline void wl_wait_blocked(pid_t tid, long nr, unsigned long arg0)
{
	wl_wait_blocked_for(tid, nr, arg0, 10000);
}

/* One side of the textbook deadlock. */
struct wl_side {
	const char *role;
	pthread_mutex_t *first, *second;
	pthread_barrier_t *both_hold;
	pid_t tid;
};

/* Defines NAME, the thread function of a side (a struct wl_side *): takes
 * FIRST, waits for the other side to hold its own, then takes SECOND (never
 * returns).  A macro, not a shared function: the tests find the workload's
 * own function (NAME) in the blocked thread's stack. */
#define WL_SIDE_FN(name)                                                            \
	static void *name(void *arg)                                                \
	{                                                                           \
		struct wl_side *s = arg;                                            \
		__atomic_store_n(&s->tid, wl_thread(s->role, 0), __ATOMIC_RELEASE); \
		pthread_mutex_lock(s->first);                                       \
		pthread_barrier_wait(s->both_hold);                                 \
		pthread_mutex_lock(s->second); /* never returns */                  \
		return NULL;                                                        \
	}

/* Thread A takes L1 then L2, thread B L2 then L1, each running SIDE (a
 * WL_SIDE_FN).  Starts both, waits until each sleeps in futex() on its
 * second mutex (TRIES as wl_wait_blocked_for), then says so: "blocked
 * tid=A on=L2 addr=... holds=L1", the same for B, and "deadlocked". */
static inline void wl_deadlock(pthread_mutex_t *l1, pthread_mutex_t *l2, long tries,
			       void *(*side)(void *))
{
	static pthread_barrier_t both_hold;
	static struct wl_side a, b;
	pthread_t ta, tb;

	a = (struct wl_side){ "A", l1, l2, &both_hold, 0 };
	b = (struct wl_side){ "B", l2, l1, &both_hold, 0 };
	pthread_barrier_init(&both_hold, NULL, 2);
	wl_create(&ta, NULL, side, &a);
	wl_create(&tb, NULL, side, &b);
	wl_wait_tid(&a.tid);
	wl_wait_tid(&b.tid);
	wl_wait_blocked_for(a.tid, SYS_futex, (unsigned long)l2, tries);
	wl_wait_blocked_for(b.tid, SYS_futex, (unsigned long)l1, tries);
	printf("blocked tid=%d on=L2 addr=%p holds=L1\n", (int)a.tid, (void *)l2);
	printf("blocked tid=%d on=L1 addr=%p holds=L2\n", (int)b.tid, (void *)l1);
	printf("deadlocked\n");
}

/* A forked child that takes flock(FILE, LOCK_EX) and pause()s, dying with
 * this process (PR_SET_PDEATHSIG); returns once it holds the lock, and
 * prints "holder pid=C". */
static inline pid_t wl_flock_holder(const char *file)
{
	int pfd[2];
	if (pipe(pfd))
		wl_die("pipe: %s", strerror(errno));
	pid_t c = fork();
	if (c < 0)
		wl_die("fork: %s", strerror(errno));
	if (c == 0) {
		prctl(PR_SET_PDEATHSIG, SIGKILL);
		close(pfd[0]);
		int fd = open(file, O_RDWR | O_CREAT, 0600);
		if (fd < 0 || flock(fd, LOCK_EX))
			_exit(1);
		if (write(pfd[1], "h", 1) != 1)
			_exit(1);
		close(pfd[1]);
		for (;;)
			pause();
	}
	close(pfd[1]);
	char h;
	if (read(pfd[0], &h, 1) != 1)
		wl_die("the holder did not take %s", file);
	close(pfd[0]);
	printf("holder pid=%d\n", (int)c);
	return c;
}

#endif
