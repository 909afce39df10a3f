/* The reading side of several processes against a live recording: a
 * launched `locktrace record -- shared_locks --mode deadlock` (the parent
 * and its forked child deadlock on two process-shared mutexes in one memfd,
 * mapped at another address in each process) is reported with the cycle
 * through both processes, and its Perfetto conversion, imported by
 * trace_processor, has both processes with their threads.  The workload's
 * ground truth lines name the threads, processes and locks.  Needs root. */
#include <criterion/criterion.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "locksyms.h"
#include "report.h"
#include "convert.h"
#include "lt_test.h"
#include "tp.h"

static char truth[64][256];
static int ntruth;
static char trace[128];

struct shared_count {
	int32_t tgid;
	int n;
};

/* SYMBOLS entries of process c->tgid that carry a shared key */
static void count_shared(void *ctx, int32_t tgid, uint64_t addr, const char *name,
			 const struct lt_shared_key *key)
{
	struct shared_count *c = ctx;
	(void)addr;
	(void)name;
	c->n += key && tgid == c->tgid;
}

/* Records the deadlocked workload, launched, for 4 s: long enough for it
 * to print "ready" (both threads asleep on the other's lock). */
static void record_deadlock(void)
{
	if (!tl_is_root())
		cr_skip_test("needs root: recording attaches BPF programs; run make test as root");
	if (access(WL("shared_locks"), X_OK) != 0)
		cr_skip_test("shared_locks not built: run make all first");
	tl_tmp_path(trace, sizeof(trace), "mreport");
	char *argv[] = { LT_BIN, "record", "--no-status", "-d", "4", "-o", trace, "--",
			 WL("shared_locks"), "--mode", "deadlock", NULL };
	struct tl_proc p;
	cr_assert_eq(tl_spawn(&p, argv), 0);
	ntruth = 0;
	cr_assert(tl_wait_for(&p, 0, "ready", truth, &ntruth, 64, 30000), "the workload did not deadlock");
	/* the recorder stops at -d and ends the workload (SIGTERM) */
	int st = tl_wait(&p, 30000);
	tl_close(&p);
	cr_assert_neq(st, -1, "the recorder did not stop");
	/* the child's lock words must be named with their shared key: the
	 * recorder's part (SYMBOLS keys 3-6 for every traced process) */
	struct shared_count sc = { .tgid = (int32_t)tl_truth_val(truth, ntruth, "child", NULL, "pid") };
	lt_trace_symbols_procs(trace, count_shared, &sc);
	if (!sc.n)
		unlink(trace);
	/* a product failure, not something the machine lacks: it fails */
	cr_assert_gt(sc.n, 0,
		     "the recorder wrote no shared keys for the child's addresses (SYMBOLS keys 3-6 of "
		     "every traced process): nothing ties the child's address of lock A to the parent's");
}

static uint64_t tv(const char *type, const char *match, const char *key)
{
	return tl_truth_val(truth, ntruth, type, match, key);
}

/* The workload's processes and threads, from its ground truth. */
struct who {
	uint32_t parent, child, tp, tc;
	char pids[64]; /* "PARENT,CHILD" */
};

static struct who who(void)
{
	struct who w = { (uint32_t)tv("pid", NULL, "pid"), (uint32_t)tv("child", NULL, "pid"),
			 (uint32_t)tv("thread", "role=parent", "tid"), (uint32_t)tv("thread", "role=child", "tid"),
			 "" };
	snprintf(w.pids, sizeof(w.pids), "%u,%u", w.parent, w.child);
	return w;
}

/* Starts the workload on its own, deadlocked (both threads asleep). */
static struct who start_deadlocked(struct tl_proc *wl)
{
	if (!tl_is_root())
		cr_skip_test("needs root: other processes' /proc files and BPF; run make test as root");
	if (access(WL("shared_locks"), X_OK) != 0)
		cr_skip_test("shared_locks not built: run make all first");
	char *wargv[] = { WL("shared_locks"), "--mode", "deadlock", NULL };
	ntruth = 0;
	tl_start_ready(wl, wargv, truth, &ntruth, 64, 30000);
	return who();
}

static const struct lt_report_finding *find_deadlock(const struct lt_report *r)
{
	for (size_t i = 0; i < r->n_findings; i++)
		if (r->findings[i].kind == LT_FIND_DEADLOCK)
			return &r->findings[i];
	return NULL;
}

Test(multi_report_live, report_names_the_cycle_through_both_processes, .timeout = 90)
{
	record_deadlock();
	struct who w = who();
	uint32_t parent = w.parent, child = w.child, tp = w.tp, tc = w.tc;
	uint64_t off_a = tv("lock", "name=A", "offset"), off_b = tv("lock", "name=B", "offset");

	char err[768];
	int rc;
	struct lt_report *r = lt_report_load(trace, NULL, err, sizeof(err), &rc);
	cr_assert(r, "%s", err);
	cr_assert_eq(rc, 0, "%s", err);
	const struct lt_report_finding *dl = find_deadlock(r);
	/* the report's notes say what the snapshot at the end could not read
	 * (a thread left out when its time budget ran out on a loaded
	 * machine): with the failure, so that it says why */
	char notes[1024] = "";
	for (size_t i = 0; i < r->n_notes; i++)
		snprintf(notes + strlen(notes), sizeof(notes) - strlen(notes), "; %s", r->notes[i]);
	cr_assert(dl, "no deadlock in the report of %s (%zu findings; first: %s; notes%s)", trace, r->n_findings,
		  r->n_findings ? r->findings[0].summary : "-", notes[0] ? notes : ": none");
	cr_assert_eq(dl->n_tids, 2);
	cr_assert((dl->tids[0] == tp && dl->tids[1] == tc) || (dl->tids[0] == tc && dl->tids[1] == tp),
		  "cycle %u %u, expected %u %u", dl->tids[0], dl->tids[1], tp, tc);
	/* the threads' processes */
	const struct lt_report_proc *pp = lt_report_proc_of(r, tp), *pc = lt_report_proc_of(r, tc);
	cr_assert(pp && pc);
	cr_assert_eq((uint32_t)pp->tgid, parent);
	cr_assert_eq((uint32_t)pc->tgid, child);
	char who[96];
	snprintf(who, sizeof(who), "%u (shared_locks) of process %u", tc, child);
	cr_assert(strstr(dl->summary, who), "%s (expected %s)", dl->summary, who);
	/* two locks, A and B, each one lock of both processes: named by the
	 * object and the offset the workload printed */
	cr_assert_eq(dl->n_locks, 2);
	cr_assert_neq(dl->locks[0], dl->locks[1]);
	char want_a[32], want_b[32];
	snprintf(want_a, sizeof(want_a), "+0x%llx", (unsigned long long)off_a);
	snprintf(want_b, sizeof(want_b), "+0x%llx", (unsigned long long)off_b);
	int seen_a = 0, seen_b = 0;
	for (size_t i = 0; i < r->n_locks; i++) {
		const struct lt_report_lock *l = &r->locks[i];
		if (l->addr != dl->locks[0] && l->addr != dl->locks[1])
			continue;
		/* the key's text names the object and the offset in it */
		cr_assert(strstr(l->key, "inode "), "lock %s is not keyed by its object", l->key);
		seen_a |= strstr(l->key, want_a) != NULL;
		seen_b |= strstr(l->key, want_b) != NULL;
		cr_assert_geq(l->n_waiters, 1);
	}
	cr_assert(seen_a && seen_b, "locks A (%s) and B (%s) not both in the cycle", want_a, want_b);
	lt_report_free(r);
	unlink(trace);
}

Test(multi_report_live, perfetto_has_both_processes_with_their_threads, .timeout = 120)
{
	const char *why = tp_missing();
	if (why)
		cr_skip_test("%s", why);
	record_deadlock();
	struct who w = who();
	uint32_t parent = w.parent, child = w.child, tp = w.tp, tc = w.tc;
	char out[160];
	snprintf(out, sizeof(out), "%s.perfetto-trace", trace);
	cr_assert_eq(lt_convert_file(trace, out, LT_FORMAT_PERFETTO, 1, 1), 0);
	char sql[512];
	snprintf(sql, sizeof(sql),
		 "select pid, count(*) as n from process where pid in (%u, %u) group by pid order by pid;\n"
		 "select t.tid, p.pid from thread t join process p using (upid) where t.tid in (%u, %u, %u, %u) "
		 "order by t.tid;\n",
		 parent, child, parent, child, tp, tc);
	struct tp_out o;
	cr_assert_eq(tp_run(out, sql, &o), 0, "trace_processor: %s", o.error);
	const struct tp_table *procs = &o.t[0], *threads = &o.t[1];
	cr_assert_eq(procs->nrows, 2, "%s", tp_dump(procs));
	for (size_t i = 0; i < 2; i++)
		cr_assert_eq(tp_int(procs, i, "n", NULL), 1, "one process per pid: %s", tp_dump(procs));
	const uint32_t want[][2] = { { parent, parent }, { tp, parent }, { child, child }, { tc, child } };
	for (size_t k = 0; k < 4; k++) {
		char tid[16];
		snprintf(tid, sizeof(tid), "%u", want[k][0]);
		long row = tp_find(threads, "tid", tid);
		cr_assert_geq(row, 0, "thread %s not imported: %s", tid, tp_dump(threads));
		cr_assert_eq(tp_int(threads, (size_t)row, "pid", NULL), (long long)want[k][1],
			     "thread %s in the wrong process: %s", tid, tp_dump(threads));
	}
	tp_free(&o);
	unlink(out);
	unlink(trace);
}

/* `snapshot -p A,B`: the per-process detail of a waiter names the owner in
 * the other process, as the combined verdict does (it said "holder not
 * recorded"). */
Test(multi_report_live, snapshot_detail_names_the_owner_in_the_other_process, .timeout = 60)
{
	struct tl_proc wl;
	struct who w = start_deadlocked(&wl);
	uint32_t parent = w.parent, child = w.child, tp = w.tp, tc = w.tc;
	char *argv[] = { LT_BIN, "snapshot", "-p", w.pids, NULL };
	struct tl_proc s;
	cr_assert_eq(tl_spawn(&s, argv), 0);
	char want_p[96], want_c[96], line[1024];
	snprintf(want_p, sizeof(want_p), "held by thread %u of process %u (shared_locks)", tc, child);
	snprintf(want_c, sizeof(want_c), "held by thread %u of process %u (shared_locks)", tp, parent);
	int seen_p = 0, seen_c = 0;
	while (tl_readline(&s, 0, line, sizeof(line), 30000) == 1) {
		cr_assert_null(strstr(line, "holder not recorded"), "%s", line);
		if (strstr(line, "futex(")) {
			seen_p |= strstr(line, want_p) != NULL;
			seen_c |= strstr(line, want_c) != NULL;
		}
	}
	tl_wait(&s, 30000);
	tl_close(&s);
	tl_kill(&wl);
	tl_close(&wl);
	cr_assert(seen_p && seen_c, "the detail lines do not name the owners (%s; %s)", want_p, want_c);
}

/* The same deadlock, attached to with `record -p PARENT,CHILD`: no event
 * happens (both threads stay asleep), so the header's threads, their
 * processes and shared mappings, and the stored snapshots say it all. */
Test(multi_report_live, report_of_a_pid_list_recording_names_the_cycle, .timeout = 90)
{
	struct tl_proc wl;
	struct who w = start_deadlocked(&wl);
	uint32_t parent = w.parent, child = w.child, tp = w.tp, tc = w.tc;
	tl_tmp_path(trace, sizeof(trace), "mreport-p");
	char *argv[] = { LT_BIN, "record", "--no-status", "-d", "2", "-p", w.pids, "-o", trace, NULL };
	struct tl_proc rec;
	cr_assert_eq(tl_spawn(&rec, argv), 0);
	cr_assert_eq(tl_wait(&rec, 30000), 0, "the recorder failed");
	tl_close(&rec);
	tl_kill(&wl);
	tl_close(&wl);

	char err[768];
	int rc;
	struct lt_report *r = lt_report_load(trace, NULL, err, sizeof(err), &rc);
	cr_assert(r, "%s", err);
	const struct lt_report_finding *dl = find_deadlock(r);
	cr_assert(dl, "no deadlock in the report of %s", trace);
	cr_assert_eq(dl->n_tids, 2);
	cr_assert((dl->tids[0] == tp && dl->tids[1] == tc) || (dl->tids[0] == tc && dl->tids[1] == tp));
	cr_assert_eq(r->n_procs, 2);
	cr_assert_eq((uint32_t)lt_report_proc_of(r, tc)->tgid, child);
	cr_assert_eq((uint32_t)lt_report_proc_of(r, tp)->tgid, parent);
	cr_assert_eq(r->n_locks, 2, "A and B, each one lock of both processes: %zu", r->n_locks);
	lt_report_free(r);
	unlink(trace);
}
