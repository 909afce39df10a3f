/* A process whose main thread has exited (a zombie leader) while other
 * threads live on is a live process for every command: snapshot, record -p
 * and report see its threads, its memory (lock names, owners) and its
 * deadlock (issue 26).  Workload: zombie_leader (the AB/BA deadlock, then
 * pthread_exit in main). */
#include <criterion/criterion.h>
#include <signal.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>
#include "lt_test.h"

/* The state letter of /proc/PID/stat, 0 if unreadable. */
static char proc_state(pid_t pid)
{
	char path[64], buf[512];
	snprintf(path, sizeof(path), "/proc/%d/stat", (int)pid);
	FILE *f = fopen(path, "r");
	if (!f)
		return 0;
	size_t n = fread(buf, 1, sizeof(buf) - 1, f);
	fclose(f);
	buf[n] = 0;
	char *p = strrchr(buf, ')');
	return p && p[1] == ' ' ? p[2] : 0;
}

static int has_line(char lines[][256], int n, const char *a, const char *b)
{
	for (int i = 0; i < n; i++)
		if (strstr(lines[i], a) && (!b || strstr(lines[i], b)))
			return 1;
	return 0;
}

Test(zombie_live, snapshot_record_report_see_the_deadlock, .timeout = 120)
{
	tl_skip_unless_root("a snapshot and a recording of another process");
	char *wargv[] = { WL("zombie_leader"), NULL };
	char truth[32][256], pid[16], out[64][256], err[64][256], trace[128], a[16], b[16];
	int n = 0, no = 0, ne = 0;
	struct tl_proc wl;

	tl_start_pid(&wl, wargv, truth, &n, pid);
	pid_t ta = (pid_t)tl_truth_val(truth, n, "blocked", "on=L2", "tid");
	pid_t tb = (pid_t)tl_truth_val(truth, n, "blocked", "on=L1", "tid");
	tl_go(&wl);
	cr_assert(tl_wait_for(&wl, 0, "leader_exit", NULL, NULL, 0, 10000));
	for (int i = 0; i < 500 && proc_state(wl.pid) != 'Z'; i++)
		usleep(10000);
	cr_assert_eq(proc_state(wl.pid), 'Z', "the leader of %d did not exit", wl.pid);
	snprintf(a, sizeof(a), "%d", (int)ta);
	snprintf(b, sizeof(b), "%d", (int)tb);

	char *snap[] = { LT_BIN, "snapshot", "-p", pid, NULL };
	int rc = tl_run_to_end(snap, out, &no, err, &ne);
	cr_assert_eq(rc, 0, "snapshot of a zombie leader failed: %s", ne ? err[0] : "");
	cr_assert(has_line(out, no, "has exited", NULL), "no note about the exited main thread");
	cr_assert(has_line(out, no, "DEADLOCK", "2 threads") || has_line(out, no, "deadlock", "2 threads"),
		  "no deadlock in the snapshot");
	/* its memory was read through a live thread: names and owners */
	cr_assert(has_line(out, no, "waits for pthread mutex L2", "held by thread") &&
		  has_line(out, no, a, "waits for pthread mutex L2"), "no owner of L2 read from memory");
	cr_assert(has_line(out, no, b, "waits for pthread mutex L1"), "no owner of L1 read from memory");

	tl_tmp_path(trace, sizeof(trace), "zombie");
	char *rec[] = { LT_BIN, "record", "-p", pid, "-d", "0.5", "-q", "-o", trace, "--force", NULL };
	rc = tl_run_to_end(rec, out, &no, err, &ne);
	cr_assert_eq(rc, 0, "record -p of a zombie leader failed: %s", ne ? err[0] : "");
	char *rep[] = { LT_BIN, "report", trace, NULL };
	rc = tl_run_to_end(rep, out, &no, err, &ne);
	cr_assert_eq(rc, 0, "report failed: %s", ne ? err[0] : "");
	cr_assert(has_line(out, no, "deadlock: 2 threads wait for each other", NULL),
		  "no deadlock in the report");
	cr_assert(has_line(out, no, "deadlock: 2 threads", a) && has_line(out, no, "deadlock: 2 threads", b));
	cr_assert(has_line(out, no, "waits for lock L2", "held by thread"));
	unlink(trace);
	tl_kill(&wl);
	tl_close(&wl);
}
