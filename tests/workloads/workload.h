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
#include <getopt.h>
#include <pthread.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
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

/* The command line of the workloads that take just "[-t N] [--no-wait]":
 * N into *n (left as it is when absent) within [min, max]. */
static inline void wl_args_threads(int argc, char **argv, long *n, long min, long max,
				   int *no_wait, const char *usage)
{
	static const struct option opts[] = {
		{ "no-wait", no_argument, NULL, WL_OPT_NO_WAIT }, { 0 }
	};
	int c;

	while ((c = getopt_long(argc, argv, "t:", opts, NULL)) != -1) {
		switch (c) {
		case 't': *n = wl_arg(optarg, min, max, usage); break;
		case WL_OPT_NO_WAIT: *no_wait = 1; break;
		default: wl_usage(usage);
		}
	}
	if (optind != argc)
		wl_usage(usage);
}

static inline void *wl_xcalloc(size_t n, size_t size)
{
	void *p = calloc(n, size);
	if (!p)
		wl_die("out of memory");
	return p;
}

static inline void wl_create(pthread_t *t, const pthread_attr_t *attr,
			     void *(*fn)(void *), void *arg)
{
	int err = pthread_create(t, attr, fn, arg);
	if (err)
		wl_die("pthread_create: %s", strerror(err));
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

/* Wait (up to 10 s, then exit 1) until wl_is_blocked(tid, nr, arg0). */
static inline void wl_wait_blocked(pid_t tid, long nr, unsigned long arg0)
{
	for (int i = 0; i < 10000; i++) {
		if (wl_is_blocked(tid, nr, arg0))
			return;
		wl_sleep_ms(1);
	}
	wl_die("thread %d did not block in syscall %ld(%#lx, ...)", (int)tid,
	       nr, arg0);
}

#endif
