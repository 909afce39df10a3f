/* Process-shared futexes that record no holder, against
 * tests/workloads/shared_waits (its truth lines; README.md there), through
 * `locktrace snapshot`: a sem_t in MAP_SHARED memory lists as possible
 * holders the threads of the processes mapping it, not the flock holder
 * the snapshot followed through the poster's file lock wait; a pshared
 * mutex whose owner exited (reaped: no such tid) is said held by that
 * thread for ever.  The workload is killed at the end of every test (its
 * children die with it).  Needs root. */
#include <criterion/criterion.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "lt_test.h"

#define NEED_ROOT() \
	tl_skip_unless_root("needs root: other processes' /proc files; run make test as root")

TL_WORKLOAD(32);

static void cleanup(void)
{
	tl_close_started(&wl);
}

static void start(const char *mode)
{
	char path[] = WL("shared_waits");
	if (access(path, X_OK) != 0)
		cr_skip_test("%s not built: run make all first", path);
	char *argv[] = { path, "--mode", (char *)mode, NULL };
	tl_start_ready(&wl, argv, truth, &ntruth, 32, 30000);
}

static uint64_t tv(const char *type, const char *match, const char *key)
{
	return tl_truth_val(truth, ntruth, type, match, key);
}

/* `locktrace snapshot -p PID` text into out */
static void snapshot(pid_t pid, char *out, size_t len)
{
	char cmd[256];
	snprintf(cmd, sizeof(cmd), LT_BIN " snapshot -p %d --no-lines --no-ustack 2>&1", (int)pid);
	FILE *p = popen(cmd, "r");
	cr_assert_not_null(p);
	size_t n = fread(out, 1, len - 1, p);
	out[n] = 0;
	cr_assert_eq(pclose(p), 0, "%s failed:\n%s", cmd, out);
}

/* The verdict (its headline and "    - " lines) whose headline has KEY,
 * copied into buf */
static const char *verdict_with(const char *out, const char *key, char *buf, size_t len)
{
	for (const char *l = out; l && *l; l = strchr(l, '\n') ? strchr(l, '\n') + 1 : NULL) {
		const char *e = strchr(l, '\n');
		size_t ll = e ? (size_t)(e - l) : strlen(l);
		if (strncmp(l, "    - ", 6) == 0 || !memmem(l, ll, key, strlen(key)))
			continue;
		const char *end = e;
		while (end && strncmp(end + 1, "    - ", 6) == 0)
			end = strchr(end + 1, '\n');
		size_t n = end ? (size_t)(end - l) : strlen(l);
		if (n >= len)
			n = len - 1;
		memcpy(buf, l, n);
		buf[n] = 0;
		return buf;
	}
	cr_assert_fail("no verdict with %s in:\n%s", key, out);
	return NULL;
}

Test(shared_waits_live, sem_candidates_are_the_processes_mapping_it, .fini = cleanup, .timeout = 60)
{
	NEED_ROOT();
	start("sem");
	pid_t holder = (pid_t)tv("flock_holder", NULL, "pid");
	pid_t child = (pid_t)tv("child", NULL, "pid");
	pid_t waiter = (pid_t)tv("thread", "role=waiter", "tid");
	uint64_t addr = tv("lock", "name=sem", "addr");
	cr_assert(holder > 0 && child > 0 && waiter > 0 && addr);
	static char out[1 << 17];
	char want[256], v[1 << 14];
	/* candidates are listed for a lock quiet for at least a second
	 * (verdicts.c, LT_QUIET_S): nobody has woken the waiter since */
	usleep(1500 * 1000);
	snapshot(wl.pid, out, sizeof(out));
	/* the holder is in the view (followed through the poster's flock
	 * wait): the candidates could have named it */
	snprintf(want, sizeof(want), "=== process %d ===", (int)holder);
	cr_assert_not_null(strstr(out, want), "%s missing:\n%s", want, out);
	snprintf(want, sizeof(want), "0x%" PRIx64 ", shared object", addr);
	verdict_with(out, want, v, sizeof(v));
	snprintf(want, sizeof(want), "waiters (1, longest");
	cr_assert_not_null(strstr(v, want), "%s", v);
	snprintf(want, sizeof(want), "): %d\n", (int)waiter);
	cr_assert_not_null(strstr(v, want), "the waiter %d:\n%s", (int)waiter, v);
	snprintf(want, sizeof(want), "thread %d (shared_waits), which has been blocked in flock", (int)child);
	cr_assert_not_null(strstr(v, want), "the poster %d is a candidate:\n%s", (int)child, v);
	snprintf(want, sizeof(want), "a thread of another process that maps its object may hold it instead "
		 "(process %d)", (int)child);
	cr_assert_not_null(strstr(v, want), "%s", v);
	snprintf(want, sizeof(want), "- thread %d (", (int)holder);
	cr_assert_null(strstr(v, want), "the flock holder %d maps nothing of the semaphore:\n%s", (int)holder, v);
	/* "the threads of process(es) A, B are left out: ...", the holder
	 * among them (the test's own processes, followed through the
	 * workload's stdin pipe, may be too) */
	const char *lo = strstr(v, "the threads of process");
	const char *le = lo ? strstr(lo, " are left out: they did not map the lock's object") : NULL;
	cr_assert(lo && le, "no process left out:\n%s", v);
	char list[256];
	snprintf(list, sizeof(list), "%.*s,", (int)(le - lo), lo);
	snprintf(want, sizeof(want), " %d,", (int)holder);
	cr_assert_not_null(strstr(list, want), "the flock holder %d not said left out:\n%s", (int)holder, v);
}

Test(shared_waits_live, dead_owner_is_said_exited, .fini = cleanup, .timeout = 60)
{
	NEED_ROOT();
	start("dead");
	pid_t owner = (pid_t)tv("owner", NULL, "tid");
	pid_t waiter = (pid_t)tv("thread", "role=waiter", "tid");
	uint64_t addr = tv("lock", "name=M", "addr");
	cr_assert(owner > 0 && waiter > 0 && addr);
	char path[64];
	snprintf(path, sizeof(path), "/proc/%d", (int)owner);
	cr_assert_neq(access(path, F_OK), 0, "the owner %d exists again (tid reused)", (int)owner);
	static char out[1 << 16];
	char want[256], v[1 << 13];
	snapshot(wl.pid, out, sizeof(out));
	snprintf(want, sizeof(want), "0x%" PRIx64 ", shared object", addr);
	verdict_with(out, want, v, sizeof(v));
	snprintf(want, sizeof(want), "held by thread %d, which has exited (no such thread): it will never be "
		 "released (unless robust: EOWNERDEAD)", (int)owner);
	cr_assert_not_null(strstr(v, want), "%s missing:\n%s", want, v);
	cr_assert_null(strstr(v, "not recorded"), "%s", v);
	snprintf(want, sizeof(want), "): %d\n", (int)waiter);
	cr_assert_not_null(strstr(v, want), "the waiter %d:\n%s", (int)waiter, v);
	snprintf(want, sizeof(want), "/proc/%d did not exist when the snapshot read the lock", (int)owner);
	cr_assert_not_null(strstr(v, want), "%s", v);
	cr_assert_not_null(strstr(v, "inferred: its owner exited while holding the lock"), "%s", v);
}
