/* Integration tests of `locktrace report` as root: real traces of the demo
 * workload's two stalling modes caught by the flight recorder, and of the
 * deadlock workload, reported; the findings must name the threads and
 * locks the workloads print as their ground truth. */
#include <criterion/criterion.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>
#include "lt_test.h"
#include "report.h"
#include "report_int.h"

#define NEED_ROOT() tl_skip_unless_root("needs root (BPF programs): run make test as root")

static void print_findings(const struct rp_json *j)
{
	const struct rp_json *fs = rp_json_get(j, "findings");
	for (size_t i = 0; fs && i < fs->n; i++)
		fprintf(stderr, "finding: %s\n", rp_json_str(rp_json_get(&fs->items[i], "summary")));
}

static const struct rp_json *finding(const struct rp_json *j, const char *kind)
{
	const struct rp_json *fs = rp_json_get(j, "findings");
	for (size_t i = 0; fs && i < fs->n; i++)
		if (!strcmp(rp_json_str(rp_json_get(&fs->items[i], "kind")), kind))
			return &fs->items[i];
	return NULL;
}

/* The finding of KIND, which must be there (the findings shown if not). */
static const struct rp_json *must_find(const struct rp_json *j, const char *kind)
{
	const struct rp_json *f = finding(j, kind);
	if (!f)
		print_findings(j);
	cr_assert_not_null(f, "no %s finding", kind);
	return f;
}

/* The addresses of the demo's condition variable's two futex words. */
static void condvar_words(char truth[][256], int n, uint64_t *g0, uint64_t *g1)
{
	*g0 = tl_truth_val(truth, n, "lock", "name=rtlock.c.g_signals0", "addr");
	*g1 = tl_truth_val(truth, n, "lock", "name=rtlock.c.g_signals1", "addr");
}

static int has_num(const struct rp_json *arr, double v)
{
	for (size_t i = 0; arr && i < arr->n; i++)
		if (rp_json_num(&arr->items[i], -1) == v)
			return 1;
	return 0;
}

static int has_addr(const struct rp_json *arr, uint64_t a)
{
	for (size_t i = 0; arr && i < arr->n; i++) {
		uint64_t x;
		if (rp_json_addr(&arr->items[i], &x) && x == a)
			return 1;
	}
	return 0;
}

/* demo -t 64 --stall MODE under --ring 64M --stall 2: the ground truth up
 * to the line starting with until, the flight dump in path. */
static void demo_stall_calls(const char *mode, const char *until, char truth[][256], int *n,
			     char *path, size_t plen, const char *calls)
{
	char *wargv[] = { WL("demo"), "-t", "64", "-d", "60", "--stall", (char *)mode, NULL };
	struct tl_proc wl, rec;

	tl_tmp_path(path, plen, "report");
	tl_start_ready(&wl, wargv, truth, n, 256, 10000);
	char *extra[] = { "--ring", "64M", "--stall", "2", calls ? "--calls" : NULL, (char *)calls,
			  NULL };
	cr_assert_eq(tl_start_recorder(&rec, wl.pid, path, extra), 0);
	tl_go(&wl);
	cr_assert(tl_wait_for(&wl, 0, until, truth, n, 256, 20000), "demo never stalled");
	cr_assert_eq(tl_wait(&rec, 30000), 0, "recorder did not stop on the stall");
	tl_close(&rec);
	tl_close(&wl);
}

/* --calls all, which --ring no longer records by default */
static void demo_stall(const char *mode, const char *until, char truth[][256], int *n, char *path,
		       size_t plen)
{
	demo_stall_calls(mode, until, truth, n, path, plen, "all");
}

/* The holder_blocked finding of an io stall names the holder, its fd, the
 * condition variable's words and all 64 threads. */
static void check_io_stall(char truth[][256], int n, const char *path)
{
	const char *st = truth[n - 1];
	int ok1, ok2;
	uint32_t holder = (uint32_t)tl_val(st, "holder_tid", &ok1);
	int fd = (int)tl_val(st, "fd", &ok2);
	cr_assert(ok1 && ok2, "%s", st);
	uint64_t g0, g1;
	condvar_words(truth, n, &g0, &g1);

	struct rp_json *j = tl_report_json(path);
	const struct rp_json *f = must_find(j, "holder_blocked");
	cr_assert_str_eq(rp_json_str(rp_json_get(f, "rule")), "io");
	cr_assert_eq(rp_json_num(rp_json_get(f, "holder"), 0), holder, "holder: %s",
		     rp_json_str(rp_json_get(f, "summary")));
	cr_assert_eq(rp_json_num(rp_json_get(f, "fd"), -1), fd);
	cr_assert(has_addr(rp_json_get(f, "locks"), g0) && has_addr(rp_json_get(f, "locks"), g1),
		  "the condition variable's words: %s", rp_json_str(rp_json_get(f, "summary")));
	/* 63 waiters plus the holder */
	cr_assert_eq(rp_json_get(f, "tids")->n, 64);
	cr_assert(has_num(rp_json_get(f, "tids"), holder));
	/* the lock is named from the live process */
	const char *sum = rp_json_str(rp_json_get(f, "summary"));
	cr_assert(strstr(sum, "rtlock+0x50/+0x54") && strstr(sum, "condition variable"), "%s", sum);
	cr_assert(finding(j, "stall"), "the stall is reported");
	rp_json_free(j);
}

Test(report_live, demo_io_stall_names_the_holder_in_read_and_the_condvar, .timeout = 90)
{
	NEED_ROOT();
	char truth[256][256], path[128];
	int n = 0;
	demo_stall("io", "stall mode=io", truth, &n, path, sizeof(path));
	check_io_stall(truth, n, path);
	const char *st = truth[n - 1];
	uint32_t holder = (uint32_t)tl_val(st, "holder_tid", NULL);

	/* the command line, text */
	char *rargv[] = { LT_BIN, "report", path, NULL };
	struct tl_proc rp;
	char lines[8][256], want[64];
	int k = 0;
	cr_assert_eq(tl_spawn(&rp, rargv), 0);
	cr_assert(tl_wait_for(&rp, 0, " 1. lock holder blocked in I/O", lines, &k, 8, 20000), "text report");
	snprintf(want, sizeof(want), "its holder %u (", holder);
	cr_assert(strstr(lines[k - 1], want), "%s", lines[k - 1]);
	cr_assert_eq(tl_wait(&rp, 20000), 0);
	tl_close(&rp);
	unlink(path);
}

/* The same with --calls blocking (no syscall tracepoints): the holder's
 * read and the waiters' futex waits come from the switch away. */
Test(report_live, demo_io_stall_with_calls_blocking_names_the_holder, .timeout = 90)
{
	NEED_ROOT();
	char truth[256][256], path[128];
	int n = 0;
	demo_stall_calls("io", "stall mode=io", truth, &n, path, sizeof(path), "blocking");
	struct tl_trace t;
	cr_assert_eq(tl_load(&t, path), 0);
	cr_assert(t.hdr.flags & LT_HDR_CALLS_BLOCKING, "header flags 0x%x", t.hdr.flags);
	tl_free(&t);
	check_io_stall(truth, n, path);
	unlink(path);
}

/* A lost_wakeup finding on the condition variable's words, with every
 * worker waiting and no holder_blocked finding. */
static void check_lost_wakeup(char truth[][256], int n, const char *path)
{
	uint64_t g0, g1;
	condvar_words(truth, n, &g0, &g1);
	uint32_t releaser = (uint32_t)tl_val(truth[n - 1], "releaser_tid", NULL);

	struct rp_json *j = tl_report_json(path);
	const struct rp_json *f = must_find(j, "lost_wakeup");
	cr_assert(has_addr(rp_json_get(f, "locks"), g0) && has_addr(rp_json_get(f, "locks"), g1));
	/* every worker waits on it, and none holds it */
	cr_assert_geq(rp_json_get(f, "tids")->n, 64);
	cr_assert_null(finding(j, "holder_blocked"));
	/* which thread the event rule names depends on whether the releaser
	 * took the lock by waiting for it (visible) or not: say which */
	fprintf(stderr, "report_live: lost wake-up rule %s names %g; the workload's releaser is %u\n",
		rp_json_str(rp_json_get(f, "rule")), rp_json_num(rp_json_get(f, "holder"), 0), releaser);
	rp_json_free(j);
}

/* The demo's lost wake-up recorded with --calls CALLS, then checked. */
static void lost_wakeup_with_calls(const char *calls)
{
	NEED_ROOT();
	char truth[256][256], path[128];
	int n = 0;
	demo_stall_calls("lost-wakeup", "stall mode=lost-wakeup", truth, &n, path, sizeof(path), calls);
	check_lost_wakeup(truth, n, path);
	unlink(path);
}

Test(report_live, demo_lost_wakeup_is_found_on_the_condvar, .timeout = 90)
{
	lost_wakeup_with_calls("all");
}

Test(report_live, demo_lost_wakeup_with_calls_blocking, .timeout = 90)
{
	lost_wakeup_with_calls("blocking");
}

Test(report_live, deadlock_cycle_with_tids_and_addresses, .timeout = 60)
{
	NEED_ROOT();
	char *wargv[] = { WL("deadlock"), NULL };
	char truth[64][256], path[128];
	int n = 0;
	struct tl_proc wl, rec;

	tl_tmp_path(path, sizeof(path), "deadlock");
	tl_start_ready(&wl, wargv, truth, &n, 64, 10000);
	char *extra[] = { "-d", "1", NULL };
	cr_assert_eq(tl_start_recorder(&rec, wl.pid, path, extra), 0);
	cr_assert_eq(tl_wait(&rec, 30000), 0);
	tl_close(&rec);
	tl_close(&wl);

	const char *a = tl_find(truth, n, "thread", "role=A");
	const char *b = tl_find(truth, n, "thread", "role=B");
	const char *l1 = tl_find(truth, n, "lock", "name=L1");
	const char *l2 = tl_find(truth, n, "lock", "name=L2");
	cr_assert(a && b && l1 && l2);
	uint32_t ta = (uint32_t)tl_val(a, "tid", NULL), tb = (uint32_t)tl_val(b, "tid", NULL);
	uint64_t al1 = tl_val(l1, "addr", NULL), al2 = tl_val(l2, "addr", NULL);

	struct rp_json *j = tl_report_json(path);
	const struct rp_json *f = must_find(j, "deadlock");
	const struct rp_json *tids = rp_json_get(f, "tids"), *locks = rp_json_get(f, "locks");
	cr_assert_eq(tids->n, 2);
	cr_assert_eq(locks->n, 2);
	/* A waits on L2 (held by B), B on L1 (held by A): parallel arrays */
	for (size_t i = 0; i < 2; i++) {
		uint32_t t = (uint32_t)rp_json_num(&tids->items[i], 0);
		uint64_t l = 0;
		cr_assert(rp_json_addr(&locks->items[i], &l));
		cr_assert(t == ta || t == tb);
		cr_assert_eq(l, t == ta ? al2 : al1, "thread %u waits on 0x%lx", t, (unsigned long)l);
	}
	/* the locks are named: the evidence says "waits for lock L2 (0x...)" */
	const struct rp_json *ev = rp_json_get(f, "evidence");
	char want[64];
	snprintf(want, sizeof(want), "lock L2 (0x%lx", (unsigned long)al2);
	int named = 0;
	for (size_t i = 0; ev && i < ev->n; i++)
		named |= strstr(rp_json_str(&ev->items[i]), want) != NULL;
	cr_assert(named, "no evidence line with %s", want);
	rp_json_free(j);
	unlink(path);
}
