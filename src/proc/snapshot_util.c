/* Small helpers of the snapshot library: file reading, strings, string lists,
 * enum names and the destructors of the snapshot structures. */
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <sched.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "snapshot.h"
#include "symbols.h"
#include "json_read.h"
#include "snapshot_int.h"
#include "grow.h"

ssize_t lts_read_small(const char *path, char *buf, size_t len)
{
	int fd = open(path, O_RDONLY | O_CLOEXEC);
	if (fd < 0)
		return -errno;
	size_t got = 0;
	while (got + 1 < len) {
		ssize_t r = read(fd, buf + got, len - 1 - got);
		if (r < 0) {
			if (errno == EINTR)
				continue;
			int e = errno;
			close(fd);
			buf[got] = 0;
			return -e;
		}
		if (r == 0)
			break;
		got += (size_t)r;
	}
	buf[got] = 0;
	close(fd);
	return (ssize_t)got;
}

char *lts_read_all(const char *path, size_t *len_out)
{
	int fd = open(path, O_RDONLY | O_CLOEXEC);
	if (fd < 0)
		return NULL;
	size_t cap = 8192, got = 0;
	char *buf = malloc(cap);
	if (!buf) {
		close(fd);
		errno = ENOMEM;
		return NULL;
	}
	for (;;) {
		char *nb = lt_grow_to(buf, &cap, got + 4096, 1, 8192);
		if (!nb) {
			free(buf);
			close(fd);
			errno = ENOMEM;
			return NULL;
		}
		buf = nb;
		ssize_t r = read(fd, buf + got, cap - got - 1);
		if (r < 0) {
			if (errno == EINTR)
				continue;
			int e = errno;
			free(buf);
			close(fd);
			errno = e;
			return NULL;
		}
		if (r == 0)
			break;
		got += (size_t)r;
	}
	close(fd);
	buf[got] = 0;
	if (len_out)
		*len_out = got;
	return buf;
}

char *lts_strdup(const char *s)
{
	return s ? strdup(s) : NULL;
}

char *lts_vasprintf(const char *fmt, va_list ap)
{
	char *p = NULL;
	if (vasprintf(&p, fmt, ap) < 0)
		return NULL;
	return p;
}

char *lts_asprintf(const char *fmt, ...)
{
	va_list ap;
	va_start(ap, fmt);
	char *p = lts_vasprintf(fmt, ap);
	va_end(ap);
	return p;
}

int64_t lts_now_ns(int clock)
{
	struct timespec ts;
	clock_gettime(clock, &ts);
	return (int64_t)ts.tv_sec * 1000000000LL + ts.tv_nsec;
}

/* ---- scheduler clock vs CLOCK_MONOTONIC ---- */

/* se.exec_start of the calling thread right after a sched_yield (which
 * updates it), against CLOCK_MONOTONIC read just before: the offset of
 * this CPU's scheduler task clock.  Staleness only makes it larger, so the
 * smallest of a few reads is kept. */
int lt_sched_clock_offset(int64_t *off)
{
	char buf[4096];
	bool ok = false;
	for (int i = 0; i < 3; i++) {
		sched_yield();
		int64_t t0 = lts_now_ns(CLOCK_MONOTONIC);
		int64_t es;
		if (lts_read_small("/proc/thread-self/sched", buf, sizeof(buf)) <= 0 ||
		    lt_parse_sched_exec_start(buf, &es))
			continue;
		if (!ok || t0 - es < *off)
			*off = t0 - es;
		ok = true;
	}
	return ok ? 0 : -1;
}

size_t lt_sched_clock_offsets(int64_t *off, size_t n)
{
	for (size_t i = 0; i < n; i++)
		off[i] = INT64_MIN;
	cpu_set_t saved, one;
	if (sched_getaffinity(0, sizeof(saved), &saved))
		return 0;
	size_t measured = 0;
	/* every CPU, not only those of the calling thread's affinity (taskset
	 * -c 0 locktrace ...): a target's threads may have slept on any; a CPU
	 * the thread may not run on (cpusets, offline) fails to pin */
	for (size_t c = 0; c < n && c < CPU_SETSIZE; c++) {
		CPU_ZERO(&one);
		CPU_SET(c, &one);
		int64_t o;
		if (sched_setaffinity(0, sizeof(one), &one) == 0 && sched_getcpu() == (int)c &&
		    lt_sched_clock_offset(&o) == 0) {
			off[c] = o;
			measured++;
		}
	}
	sched_setaffinity(0, sizeof(saved), &saved);
	return measured;
}

int64_t lt_sched_offset_of(const int64_t *off, size_t n, int cpu)
{
	if (!off)
		return 0;
	if (cpu >= 0 && (size_t)cpu < n && off[cpu] != INT64_MIN)
		return off[cpu];
	/* unknown CPU: the largest measured offset, which can only shorten
	 * a time since the last run (now - exec_start - offset) */
	int64_t hi = INT64_MIN;
	for (size_t i = 0; i < n; i++)
		if (off[i] > hi)
			hi = off[i];
	return hi == INT64_MIN ? 0 : hi;
}

int lt_strlist_add(struct lt_strlist *l, const char *fmt, ...)
{
	va_list ap;
	va_start(ap, fmt);
	char *s = lts_vasprintf(fmt, ap);
	va_end(ap);
	if (!s)
		return -ENOMEM;
	/* capacity is implied by n: 4, then doubled whenever n reaches a
	 * power of two >= 4 */
	char **nv = lt_grow_pow2_from(l->v, l->n, sizeof(*nv), 4);
	if (!nv) {
		free(s);
		return -ENOMEM;
	}
	l->v = nv;
	l->v[l->n++] = s;
	return 0;
}

void lt_strlist_free(struct lt_strlist *l)
{
	for (size_t i = 0; i < l->n; i++)
		free(l->v[i]);
	free(l->v);
	l->v = NULL;
	l->n = 0;
}

static int tid_cmp(const void *key, const void *elem)
{
	pid_t k = *(const pid_t *)key;
	pid_t t = ((const struct lt_thread *)elem)->tid;
	return (k > t) - (k < t);
}

struct lt_thread *lt_snapshot_find(const struct lt_snapshot *s, pid_t tid)
{
	if (!s || !s->threads)
		return NULL;
	return bsearch(&tid, s->threads, s->n_threads, sizeof(*s->threads), tid_cmp);
}

const char *lt_thread_name(const struct lt_thread *t)
{
	return t->rt_name && t->rt_name[0] ? t->rt_name : t->comm;
}

/* ---- enum names ---- */

const char *lt_idle_source_name(enum lt_idle_source s)
{
	switch (s) {
	case LT_IDLE_RUNNING: return "running";
	case LT_IDLE_SCHED_EXEC_START: return "sched_exec_start";
	case LT_IDLE_CALLER: return "caller";
	case LT_IDLE_UNKNOWN: break;
	}
	return "unknown";
}

const char *lt_sc_state_name(enum lt_sc_state s)
{
	switch (s) {
	case LT_SC_RUNNING: return "running";
	case LT_SC_NOT_IN_SYSCALL: return "not_in_syscall";
	case LT_SC_IN_SYSCALL: return "in_syscall";
	case LT_SC_UNREADABLE: break;
	}
	return "unreadable";
}

const char *lt_wait_kind_name(enum lt_wait_kind k)
{
	switch (k) {
	case LT_WAIT_NONE: return "none";
	case LT_WAIT_FUTEX: return "futex";
	case LT_WAIT_POLL: return "poll";
	case LT_WAIT_IO: return "io";
	case LT_WAIT_SLEEP: return "sleep";
	case LT_WAIT_CHILD: return "child";
	case LT_WAIT_SIGNAL: return "signal";
	case LT_WAIT_OTHER: return "other";
	}
	return "none";
}

const char *lt_owner_kind_name(enum lt_owner_kind k)
{
	switch (k) {
	case LT_OWNER_NONE: return "none";
	case LT_OWNER_MUTEX: return "mutex";
	case LT_OWNER_PI: return "pi";
	case LT_OWNER_ROBUST: return "robust";
	case LT_OWNER_JOIN: return "join";
	case LT_OWNER_RUNTIME: return "runtime";
	case LT_OWNER_RWLOCK: return "rwlock_writer";
	case LT_OWNER_INFERRED: return "inferred";
	case LT_OWNER_COND: return "condition_lock";
	case LT_OWNER_UNKNOWN: break;
	}
	return "unknown";
}

const char *lt_fd_kind_name(enum lt_fd_kind k)
{
	switch (k) {
	case LT_FD_FILE: return "file";
	case LT_FD_SOCKET: return "socket";
	case LT_FD_PIPE: return "pipe";
	case LT_FD_ANON: return "anon";
	case LT_FD_OTHER: return "other";
	case LT_FD_FIFO: return "fifo";
	case LT_FD_UNKNOWN: break;
	}
	return "unknown";
}

const char *lt_regs_source_name(enum lt_regs_source s)
{
	switch (s) {
	case LT_REGS_PROC: return "proc";
	case LT_REGS_CALLER: return "caller";
	case LT_REGS_NONE: break;
	}
	return "none";
}

const char *lt_verdict_kind_name(enum lt_verdict_kind k)
{
	switch (k) {
	case LT_VERDICT_DEADLOCK: return "deadlock";
	case LT_VERDICT_LOST_WAKEUP: return "lost_wakeup";
	case LT_VERDICT_CONVOY: return "convoy";
	case LT_VERDICT_IDLE: return "idle";
	case LT_VERDICT_OK: return "ok";
	case LT_VERDICT_UNKNOWN: return "unknown";
	case LT_VERDICT_LOCK_WAIT: return "lock_wait";
	case LT_VERDICT_WAIT_CHAIN: return "wait_chain";
	case LT_VERDICT_STOPPED: return "stopped";
	}
	return "unknown";
}

bool lt_verdict_kind_stuck(enum lt_verdict_kind k)
{
	return k == LT_VERDICT_DEADLOCK || k == LT_VERDICT_LOST_WAKEUP || k == LT_VERDICT_CONVOY ||
	       k == LT_VERDICT_LOCK_WAIT || k == LT_VERDICT_WAIT_CHAIN || k == LT_VERDICT_STOPPED;
}

bool lt_verdict_kind_name_stuck(const char *name)
{
	for (int k = LT_VERDICT_DEADLOCK; name && k <= LT_VERDICT_STOPPED; k++)
		if (lt_verdict_kind_stuck((enum lt_verdict_kind)k) && !strcmp(name, lt_verdict_kind_name(k)))
			return true;
	return false;
}

const char *lt_snapshot_strerror(int err)
{
	switch (err) {
	case LT_SNAP_ENOPROC: return "no such process";
	case LT_SNAP_EKTHREAD: return "is a kernel thread";
	default: break;
	}
	return err < 0 ? strerror(-err) : "success";
}

static int task_pid_cmp(const void *a, const void *b)
{
	pid_t x = *(const pid_t *)a, y = *(const pid_t *)b;
	return (x > y) - (x < y);
}

/* The thread ids of PID (/proc/PID/task), sorted; NULL (and *n = 0) when
 * the process is gone.  In proc/: the wait-for graph reads it too. */
pid_t *lts_list_tasks(pid_t pid, size_t *n)
{
	char path[64];
	snprintf(path, sizeof(path), "/proc/%d/task", (int)pid);
	DIR *d = opendir(path);
	*n = 0;
	if (!d)
		return NULL;
	size_t cap = 64;
	pid_t *v = malloc(cap * sizeof(*v));
	struct dirent *e;
	while (v && (e = readdir(d))) {
		char *end;
		long tid = strtol(e->d_name, &end, 10);
		if (*end || tid <= 0)
			continue;
		pid_t *nv = lt_grow(v, &cap, *n, sizeof(*nv), 64);
		if (!nv)
			break;
		v = nv;
		v[(*n)++] = (pid_t)tid;
	}
	closedir(d);
	if (v)
		qsort(v, *n, sizeof(*v), task_pid_cmp);
	return v;
}

const char *lts_json_own_str(struct lt_snapshot *s, const struct rp_json *j)
{
	const char *v = rp_json_str(j);
	if (!v || lt_strlist_add(&s->strings, "%s", v))
		return NULL;
	return s->strings.v[s->strings.n - 1];
}
