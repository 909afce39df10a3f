/* OCaml 5 end to end, as root, on programs built by the real OCaml 5
 * compilers (5.2.0 and the 5.4.0+dev trunk of ../shared/tools; OCaml 5 is
 * not in Debian 12): tests/workloads/ocaml5, built by the Makefile under
 * build/workloads/ocaml-VERSION/.  Each checks the runtime lock's holder
 * (or the deadlock) that locktrace reads against the tids the program
 * prints: the seed's case (the holder blocked in read() on a socket, in
 * `snapshot`, the flight recorder's stall message, `report` and the
 * Perfetto trace as Perfetto's importer reads it), a
 * 64-thread select/read convoy, one lock per domain (Domain.spawn), and
 * Stdlib Mutexes in a deadlock with a Domain.join behind it.  Where the
 * compiler tarball is absent the tests skip, saying so. */
#include <criterion/criterion.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "lockmodel.h"
#include "locktrace/taskregs.h"
#include "snapshot.h"
#include "waitfor.h"
#include "lt_test.h"
#include "tp.h"
#include "report_int.h"


TL_WORKLOAD(256);
static char trace[TL_PATH_MAX], pftrace[TL_PATH_MAX];

static void cleanup(void)
{
	tl_close_started(&wl);
	if (trace[0]) {
		unlink(trace);
		trace[0] = 0;
	}
	if (pftrace[0]) {
		unlink(pftrace);
		pftrace[0] = 0;
	}
}

/* Perfetto's importer reads the trace cleanly and shows the
 * "lock held" slice on the holder's thread and the lock's track, both
 * named by the model. */
static void check_perfetto(pid_t holder)
{
	const char *why = tp_missing();
	if (why) {
		fprintf(stderr, "ocaml5_live: the Perfetto import is not checked: %s\n", why);
		return;
	}
	struct tp_out o;
	int r = tp_run(pftrace,
		       "select name, severity, value from stats where value > 0\n"
		       "  and severity in ('error', 'data_loss');\n"
		       "select thread.tid, s.name from slice s join thread_track tt on s.track_id = tt.id\n"
		       "  join thread using(utid) where tt.name = 'lock held';\n"
		       "select name from track where name like 'OCaml runtime lock domain 0 %';\n",
		       &o);
	cr_assert_eq(r, 0, "trace_processor: exit %d: %s", o.status, o.error);
	cr_assert_eq(o.n, 3);
	cr_assert_eq(o.t[0].nrows, 0, "import problems:\n%s", tp_dump(&o.t[0]));
	cr_assert_eq(o.t[1].nrows, 1, "%s", tp_dump(&o.t[1]));
	cr_assert_eq(tp_int(&o.t[1], 0, "tid", NULL), holder, "%s", tp_dump(&o.t[1]));
	const char *held = tp_get(&o.t[1], 0, "name");
	cr_assert(held && strstr(held, "holds the OCaml runtime lock domain 0"), "%s", tp_dump(&o.t[1]));
	cr_assert_geq(o.t[2].nrows, 1, "no lock track named by the model");
	tp_free(&o);
}

/* The workload built with OCaml VERSION (tl_ocaml5_workload). */
static const char *workload(const char *version)
{
	return tl_ocaml5_workload(version, "ocaml5_locks", "needs root (BPF programs, other processes' memory): run make test as root");
}

static void start(const char *version, const char *mode, const char *n)
{
	char *argv[] = { (char *)workload(version), (char *)mode, n ? "-t" : NULL, (char *)n, NULL };
	tl_start_ready(&wl, argv, truth, &ntruth, 256, 60000);
}

static struct lt_snapshot *snap(void)
{
	struct lt_snapshot *s = NULL;
	int r = lt_snapshot_take(wl.pid, NULL, &s);
	cr_assert_eq(r, 0, "lt_snapshot_take: %s", lt_snapshot_strerror(r));
	return s;
}

/* A snapshot as `locktrace snapshot` takes it as root: with the task
 * iterator's registers (the fs bases among them). */
static struct lt_snapshot *snap_regs(void)
{
	struct lt_tid_regs *regs = NULL;
	size_t nregs = 0;
	char err[256];
	cr_assert_eq(lt_taskregs_read(wl.pid, &regs, &nregs, err, sizeof(err)), 0, "task iterator: %s", err);
	struct lt_snapshot_opts o = { .regs = regs, .n_regs = nregs };
	struct lt_snapshot *s = NULL;
	int r = lt_snapshot_take(wl.pid, &o, &s);
	free(regs);
	cr_assert_eq(r, 0, "lt_snapshot_take: %s", lt_snapshot_strerror(r));
	return s;
}

/* The OCaml runtime lock named NAME ("domain 0"); its index + 1 in *IDX. */
static const struct lt_rtlock *ocaml_lock(const struct lt_snapshot *s, const char *name, size_t *idx)
{
	for (size_t i = 0; i < s->n_rtlocks; i++)
		if (!strcmp(s->rtlocks[i].kind, "OCaml runtime lock") && s->rtlocks[i].name &&
		    !strcmp(s->rtlocks[i].name, name)) {
			*idx = i + 1;
			return &s->rtlocks[i];
		}
	cr_assert_fail("no OCaml runtime lock '%s' among %zu runtime locks", name, s->n_rtlocks);
	return NULL;
}

/* Every "thread role=waiter domain=DOM" thread sleeps on lock IDX (1-based),
 * owned by HOLDER; returns how many. */
static int check_waiters(const struct lt_snapshot *s, int dom, size_t idx, pid_t holder)
{
	int n = 0;
	char match[32];
	snprintf(match, sizeof(match), "domain=%d ", dom);
	for (int i = 0; i < ntruth; i++) {
		if (strncmp(truth[i], "thread role=waiter ", 19) || !strstr(truth[i], match))
			continue;
		int ok = 1;
		pid_t tid = (pid_t)tl_val(truth[i], "tid", &ok);
		cr_assert(ok, "%s", truth[i]);
		const struct lt_thread *t = lt_snapshot_find(s, tid);
		cr_assert_not_null(t, "waiter %d missing", (int)tid);
		cr_assert_eq(t->wait, LT_WAIT_FUTEX, "waiter %d is not in a futex wait", (int)tid);
		cr_assert_eq(t->futex.rtlock, idx, "waiter %d: runtime lock %u, expected %zu", (int)tid,
			     t->futex.rtlock, idx);
		cr_assert_eq(t->futex.owner_kind, LT_OWNER_RUNTIME, "waiter %d", (int)tid);
		cr_assert_eq(t->futex.owner, holder, "waiter %d: owner %d, expected %d", (int)tid,
			     (int)t->futex.owner, (int)holder);
		n++;
	}
	return n;
}

/* The holder of domain DOM, as the program printed it. */
static pid_t holder_of(int dom)
{
	char match[32];
	snprintf(match, sizeof(match), "domain=%d ", dom);
	for (int i = 0; i < ntruth; i++)
		if (!strncmp(truth[i], "thread role=holder ", 19) && strstr(truth[i], match)) {
			int ok = 1;
			pid_t t = (pid_t)tl_val(truth[i], "tid", &ok);
			cr_assert(ok);
			return t;
		}
	cr_assert_fail("no holder printed for domain %d", dom);
	return 0;
}

/* Domain 0's lock in S: held by HOLDER, WAITERS by the runtime's count and
 * claimed, the version read; the first verdict names the holder. */
static void check_domain0(const struct lt_snapshot *s, const char *version, pid_t holder, int waiters)
{
	size_t idx = 0;
	const struct lt_rtlock *l = ocaml_lock(s, "domain 0", &idx);
	char want[96];
	cr_log_info("%s %s held=%d waiters=%d holder=%d: %s", l->name, l->version ? l->version : "-", l->held,
		    l->waiters, (int)l->holder, l->holder_how ? l->holder_how : "-");
	cr_assert_str_eq(l->model, "ocaml5");
	snprintf(want, sizeof(want), "OCaml %s", version);
	cr_assert(l->version && !strncmp(l->version, want, strlen(want)), "version %s, expected %s",
		  l->version ? l->version : "unknown", want);
	cr_assert_eq(l->held, 1);
	cr_assert_eq(l->holder, holder, "holder %d, expected %d: %s", (int)l->holder, (int)holder,
		     l->holder_how ? l->holder_how : "-");
	cr_assert_eq(l->waiters, waiters, "the runtime's own count");
	cr_assert_eq(check_waiters(s, 0, idx, holder), waiters);
	const struct lt_thread *h = lt_snapshot_find(s, holder);
	cr_assert_not_null(h);
	cr_assert_eq(h->wait, LT_WAIT_IO, "holder not in read(): %s", lt_wait_kind_name(h->wait));
	cr_assert_gt(s->n_verdicts, 0);
	const struct lt_verdict *v = &s->verdicts[0];
	snprintf(want, sizeof(want), "%d threads wait for the OCaml runtime lock (domain 0) held by thread %d ",
		 waiters, (int)holder);
	cr_assert(strstr(v->summary, want), "first verdict: %s", v->summary);
	cr_assert(strstr(v->summary, "blocked in read(fd ") && strstr(v->summary, ": socket) for "), "%s",
		  v->summary);
	cr_assert_eq(v->owner, holder);
}

/* The seed's case: 32 threads queue for domain 0's lock while its holder
 * sits in read() on a socket.  The snapshot names the holder; the flight
 * recorder's stall message names it from the runtime (its first reading:
 * the holder has slept longer than the window); the report of the trace
 * it wrote names it in its first finding, read from the runtime. */
static void seed_case(const char *version)
{
	start(version, "hold", "32");
	pid_t holder = holder_of(0);
	struct lt_snapshot *s = snap();
	check_domain0(s, version, holder, 32);
	lt_snapshot_free(s);

	struct tl_proc rec;
	char lines[64][256], want[160];
	int m = 0;
	tl_tmp_path(trace, sizeof(trace), "ocaml5");
	char *extra[] = { "--ring", "16M", "--stall", "1", "--no-perfetto", NULL };
	cr_assert_eq(tl_start_recorder(&rec, wl.pid, trace, extra), 0);
	int found = tl_wait_for(&rec, 1, "locktrace: stall detected", lines, &m, 64, 30000);
	int st = tl_wait(&rec, 30000);
	tl_close(&rec);
	cr_assert(found, "the stall was never caught");
	cr_assert_eq(st, 0, "recorder status 0x%x", st);
	snprintf(want, sizeof(want), "stall detected: 32 threads wait for the OCaml runtime lock (domain 0, OCaml %s",
		 version);
	cr_assert(strstr(lines[m - 1], want), "%s", lines[m - 1]);
	snprintf(want, sizeof(want), ") held by thread %d, which has been in an I/O wait for ", (int)holder);
	cr_assert(strstr(lines[m - 1], want), "%s", lines[m - 1]);

	struct rp_json *j = tl_report_json(trace);
	const struct rp_json *fs = rp_json_get(j, "findings");
	cr_assert(fs && fs->n > 0, "no findings");
	const struct rp_json *f = &fs->items[0];
	const char *summary = rp_json_str(rp_json_get(f, "summary"));
	if (strcmp(rp_json_str(rp_json_get(f, "kind")), "holder_blocked")) {
		/* seen twice on a loaded machine (2026-12-06), not understood:
		 * leave what the stored snapshots said for the next time */
		char cmd[600];
		snprintf(cmd, sizeof(cmd), "build/locktrace snapshot --from %s >&2", trace);
		fprintf(stderr, "first finding not holder_blocked; the trace's snapshots:\n");
		if (system(cmd) != 0)
			fprintf(stderr, "(snapshot --from failed)\n");
	}
	cr_assert_str_eq(rp_json_str(rp_json_get(f, "kind")), "holder_blocked", "first finding: %s", summary);
	cr_assert_eq(rp_json_num(rp_json_get(f, "holder"), 0), holder, "%s", summary);
	cr_assert(strstr(summary, "OCaml runtime lock domain 0"), "%s", summary);
	int runtime = 0;
	const struct rp_json *ev = rp_json_get(f, "evidence");
	for (size_t i = 0; ev && i < ev->n; i++)
		runtime |= strstr(rp_json_str(&ev->items[i]), "the snapshot read it from the runtime's own state") != NULL;
	cr_assert(runtime, "the holder is not attributed to the runtime's state: %s", summary);
	rp_json_free(j);

	/* a plain 2 s recording, in Perfetto's terms */
	unlink(trace);
	tl_record_perfetto(wl.pid, "ocaml5pf", trace, pftrace);
	check_perfetto(holder);
}

Test(ocaml5_live, ocaml520_seed_holder_in_socket_read, .fini = cleanup, .timeout = 120)
{
	seed_case("5.2.0");
}

Test(ocaml5_live, ocaml54dev_seed_holder_in_socket_read, .fini = cleanup, .timeout = 120)
{
	seed_case("5.4.0+dev");
}

/* The holder keeps domain 0's lock while it computes: it runs, so no stack
 * pointer of it is read, yet the runtime's pointer into its stack names it
 * (the mapping holds its thread descriptor); never "may have exited".  The
 * main thread, in Thread.join of the holder, which runs, is in no verdict
 * (it was a LOCK WAIT "to exit, which is running"). */
static void spin_case(const char *version)
{
	start(version, "spin", "4");
	pid_t holder = holder_of(0);
	struct lt_snapshot *s = snap_regs();
	size_t idx = 0;
	const struct lt_rtlock *l = ocaml_lock(s, "domain 0", &idx);
	cr_log_info("%s held=%d holder=%d: %s", l->name, l->held, (int)l->holder, l->holder_how ? l->holder_how : "-");
	cr_assert_eq(l->held, 1);
	cr_assert_eq(l->holder, holder, "holder %d, expected %d: %s", (int)l->holder, (int)holder,
		     l->holder_how ? l->holder_how : "-");
	cr_assert(l->holder_how && !strstr(l->holder_how, "exited"), "%s", l->holder_how);
	cr_assert_eq(check_waiters(s, 0, idx, holder), 4);
	const struct lt_thread *h = lt_snapshot_find(s, holder);
	cr_assert(h && h->state == 'R', "the holder does not run");
	char want[128];
	snprintf(want, sizeof(want), "4 threads wait for the OCaml runtime lock (domain 0) held by thread %d ",
		 (int)holder);
	cr_assert_gt(s->n_verdicts, 0);
	cr_assert(strstr(s->verdicts[0].summary, want) && strstr(s->verdicts[0].summary, "running"), "%s",
		  s->verdicts[0].summary);
	const struct lt_thread *j = lt_snapshot_find(s, wl.pid);
	cr_assert(j && j->futex.lock_kind && !strcmp(j->futex.lock_kind, LT_KIND_OCAML_THREAD_JOIN) &&
		  j->futex.owner == holder, "the main thread %d joins the holder %d", (int)wl.pid, (int)holder);
	for (size_t i = 0; i < s->n_verdicts; i++)
		for (size_t k = 0; k < s->verdicts[i].n_tids; k++)
			cr_assert_neq(s->verdicts[i].tids[k], wl.pid, "the joiner %d in: %s", (int)wl.pid,
				      s->verdicts[i].summary);
	lt_snapshot_free(s);
}

/* The same holder, which never released the lock: the runtime keeps no
 * pointer into its stack, and the holder is unknown, said so; the thread
 * joining it is not taken for the holder (it ran the waiters' code, but a
 * running thread whose code is not known may be the holder too). */
static void spin_fresh_case(const char *version)
{
	start(version, "spin-fresh", "4");
	/* the waiters asleep for over a second: a lock "not handed on", whose
	 * holder the verdicts would infer from the threads' code */
	usleep(1500 * 1000);
	struct lt_snapshot *s = snap_regs();
	size_t idx = 0;
	const struct lt_rtlock *l = ocaml_lock(s, "domain 0", &idx);
	cr_assert_eq(l->held, 1);
	cr_assert_eq(l->holder, 0, "holder %d: %s", (int)l->holder, l->holder_how ? l->holder_how : "-");
	cr_assert(l->holder_how && strstr(l->holder_how, "keeps no pointer into the holder's stack") &&
		  !strstr(l->holder_how, "exited"), "%s", l->holder_how ? l->holder_how : "-");
	cr_assert_gt(s->n_verdicts, 0);
	const struct lt_verdict *v = &s->verdicts[0];
	cr_assert(strstr(v->summary, "4 threads wait for the OCaml runtime lock (domain 0)"), "%s", v->summary);
	cr_assert_eq(v->owner, 0, "a holder named: %s", v->summary);
	cr_assert(strstr(v->summary, "holder is unknown"), "%s", v->summary);
	lt_snapshot_free(s);
}

Test(ocaml5_live, ocaml520_holder_that_never_released_is_unknown, .fini = cleanup, .timeout = 120)
{
	spin_fresh_case("5.2.0");
}

Test(ocaml5_live, ocaml520_running_holder_is_named, .fini = cleanup, .timeout = 120)
{
	spin_case("5.2.0");
}

Test(ocaml5_live, ocaml54dev_running_holder_is_named, .fini = cleanup, .timeout = 120)
{
	spin_case("5.4.0+dev");
}

/* 64 server threads woke from select() and read their byte, and now queue
 * to take the runtime lock back from the holder. */
static void convoy_case(const char *version)
{
	start(version, "convoy", "64");
	pid_t holder = holder_of(0);
	struct lt_snapshot *s = snap();
	check_domain0(s, version, holder, 64);
	cr_assert_eq(s->verdicts[0].kind, LT_VERDICT_CONVOY, "%s", s->verdicts[0].summary);
	lt_snapshot_free(s);
}

Test(ocaml5_live, ocaml520_select_read_convoy_of_64, .fini = cleanup, .timeout = 120)
{
	convoy_case("5.2.0");
}

Test(ocaml5_live, ocaml54dev_select_read_convoy_of_64, .fini = cleanup, .timeout = 120)
{
	convoy_case("5.4.0+dev");
}

/* Three domains, each with its own runtime lock kept by its main thread in
 * read() and three threads queued on it: each lock is named by its domain
 * and has its own holder and waiters.  (The program prints Domain.self,
 * which equals the domain's slot in a program whose domains never end.) */
static void domains_case(const char *version)
{
	char *argv[] = { (char *)workload(version), "domains", "-d", "3", "-t", "3", NULL };
	tl_start_ready(&wl, argv, truth, &ntruth, 256, 60000);
	struct lt_snapshot *s = snap();
	for (int d = 0; d < 3; d++) {
		char name[32];
		size_t idx = 0;
		snprintf(name, sizeof(name), "domain %d", d);
		pid_t holder = holder_of(d);
		const struct lt_rtlock *l = ocaml_lock(s, name, &idx);
		cr_assert_eq(l->held, 1, "%s", name);
		cr_assert_eq(l->holder, holder, "%s: holder %d, expected %d: %s", name, (int)l->holder, (int)holder,
			     l->holder_how ? l->holder_how : "-");
		cr_assert_eq(l->waiters, 3, "%s", name);
		int nw = check_waiters(s, d, idx, holder);
		if (nw != 3)
			for (int i = 0; i < ntruth; i++)
				cr_log_error("truth: %s", truth[i]);
		cr_assert_eq(nw, 3, "%s: %d waiters printed", name, nw);
		char want[96];
		snprintf(want, sizeof(want), "3 threads wait for the OCaml runtime lock (domain %d) held by thread %d ",
			 d, (int)holder);
		int said = 0;
		for (size_t i = 0; i < s->n_verdicts; i++)
			said |= strstr(s->verdicts[i].summary, want) != NULL;
		cr_assert(said, "no verdict says '%s'", want);
	}
	lt_snapshot_free(s);
}

Test(ocaml5_live, ocaml520_one_lock_per_domain, .fini = cleanup, .timeout = 120)
{
	domains_case("5.2.0");
}

Test(ocaml5_live, ocaml54dev_one_lock_per_domain, .fini = cleanup, .timeout = 120)
{
	domains_case("5.4.0+dev");
}

static pid_t locker(const char *name)
{
	char match[16];
	snprintf(match, sizeof(match), "name=%s ", name);
	return (pid_t)tl_truth_val(truth, ntruth, "thread", match, "tid");
}

/* Threads a and b hold one Stdlib Mutex each and want the other's; c (in
 * another domain) wants b's; the main thread waits in Domain.join.  The
 * deadlock is a and b, c is behind it, and the waits are named in OCaml's
 * terms: Mutex.lock on a Stdlib Mutex, Domain.join. */
static void deadlock_case(const char *version)
{
	start(version, "deadlock", NULL);
	pid_t a = locker("a"), b = locker("b"), c = locker("c");
	pid_t joiner = (pid_t)tl_truth_val(truth, ntruth, "thread", "role=joiner", "tid");
	struct lt_snapshot *s = snap();
	cr_assert_gt(s->n_verdicts, 0);
	const struct lt_verdict *v = &s->verdicts[0];
	cr_assert_eq(v->kind, LT_VERDICT_DEADLOCK, "first verdict: %s", v->summary);
	cr_assert_eq(v->n_tids, 2, "%s", v->summary);
	cr_assert(TL_HAS(v->tids, v->n_tids, a) && TL_HAS(v->tids, v->n_tids, b), "%s", v->summary);
	const pid_t lockers[] = { a, b, c };
	const pid_t owners[] = { b, a, b }; /* m1 is a's, m2 b's */
	for (int i = 0; i < 3; i++) {
		const struct lt_thread *t = lt_snapshot_find(s, lockers[i]);
		cr_assert_not_null(t);
		cr_assert_eq(t->wait, LT_WAIT_FUTEX, "thread %d", (int)lockers[i]);
		cr_assert_eq(t->futex.owner, owners[i], "thread %d: owner %d", (int)lockers[i], (int)t->futex.owner);
		cr_assert_str_eq(t->futex.lock_kind, "Stdlib Mutex", "thread %d", (int)lockers[i]);
	}
	/* the joiner waits for c's domain to end: c's thread is the other end */
	const struct lt_thread *j = lt_snapshot_find(s, joiner);
	cr_assert_not_null(j);
	cr_assert_eq(j->wait, LT_WAIT_FUTEX);
	cr_assert_str_eq(j->futex.lock_kind, LT_KIND_OCAML_DOMAIN_JOIN, "the joiner's wait");
	cr_assert_eq(j->futex.owner, c, "the joiner waits for %d, want c %d", (int)j->futex.owner, (int)c);
	cr_assert_eq(j->futex.owner_kind, LT_OWNER_RUNTIME);
	lt_snapshot_free(s);
}

Test(ocaml5_live, ocaml520_mutex_deadlock_in_ocaml_terms, .fini = cleanup, .timeout = 120)
{
	deadlock_case("5.2.0");
}

Test(ocaml5_live, ocaml54dev_mutex_deadlock_in_ocaml_terms, .fini = cleanup, .timeout = 120)
{
	deadlock_case("5.4.0+dev");
}

/* The main thread holds a Stdlib Mutex and joins a domain (Domain.join) or
 * a thread (Thread.join) whose thread c waits for that Mutex: a deadlock of
 * the two, through the join, not a lock holder "blocked in futex".  The
 * join's other end is c, read from the runtime (the domain's term_sync on
 * c's stack; the thread's termination event in its descriptor). */
static void join_case(const char *version, const char *on)
{
	char mode[32];
	snprintf(mode, sizeof(mode), "join-%s", on);
	start(version, mode, NULL);
	pid_t c = locker("c");
	pid_t joiner = (pid_t)tl_truth_val(truth, ntruth, "thread", "role=joiner", "tid");
	cr_assert_gt(joiner, 0);
	struct lt_snapshot *s = snap();
	const struct lt_thread *j = lt_snapshot_find(s, joiner), *t = lt_snapshot_find(s, c);
	cr_assert(j && t);
	cr_assert_str_eq(j->futex.lock_kind ? j->futex.lock_kind : "-",
			 !strcmp(on, "domain") ? LT_KIND_OCAML_DOMAIN_JOIN : LT_KIND_OCAML_THREAD_JOIN);
	cr_assert_eq(j->futex.owner, c, "the joiner waits for %d, want c %d", (int)j->futex.owner, (int)c);
	cr_assert_eq(t->futex.owner, joiner, "c waits for %d, want the joiner %d", (int)t->futex.owner, (int)joiner);
	cr_assert_gt(s->n_verdicts, 0);
	const struct lt_verdict *v = &s->verdicts[0];
	cr_assert_eq(v->kind, LT_VERDICT_DEADLOCK, "first verdict: %s", v->summary);
	cr_assert(!strncmp(v->summary, "deadlock: 2 threads wait for each other", 39), "%s", v->summary);
	cr_assert_eq(v->n_tids, 2, "%s", v->summary);
	cr_assert(TL_HAS(v->tids, v->n_tids, joiner) && TL_HAS(v->tids, v->n_tids, c), "%s", v->summary);
	/* a thread's join ends at its exit; a domain's when its function
	 * returns (its thread may stay to join the domain's others) */
	bool dom = !strcmp(on, "domain");
	char want[160];
	if (dom)
		snprintf(want, sizeof(want), "waits in Domain.join for a domain (its term_sync at 0x");
	else
		snprintf(want, sizeof(want), "waits in Thread.join for thread %d (", (int)c);
	char runby[64];
	snprintf(runby, sizeof(runby), dom ? ", run by thread %d (" : "for thread %d (", (int)c);
	bool said = false;
	for (size_t k = 0; k < v->evidence.n; k++)
		said |= strstr(v->evidence.v[k], want) && strstr(v->evidence.v[k], runby);
	cr_assert(said, "no evidence line says '%s' and '%s'", want, runby);
	lt_snapshot_free(s);

	/* a recording's report says the cycle alike, from its snapshot */
	struct tl_proc rec;
	tl_tmp_path(trace, sizeof(trace), "ocaml5join");
	char *extra[] = { "-d", "2", "--no-perfetto", NULL };
	cr_assert_eq(tl_start_recorder(&rec, wl.pid, trace, extra), 0);
	int st = tl_wait(&rec, 30000);
	tl_close(&rec);
	cr_assert_eq(st, 0, "recorder status 0x%x", st);
	struct rp_json *rj = tl_report_json(trace);
	const char *sum = NULL;
	const struct rp_json *f = tl_two_thread_deadlock(rj, joiner, c, &sum);
	const struct rp_json *ev = rp_json_get(f, "evidence");
	char tn[64];
	snprintf(tn, sizeof(tn), "thread %d (", (int)joiner);
	said = false;
	for (size_t i = 0; ev && i < ev->n; i++) {
		const char *line = rp_json_str(&ev->items[i]);
		said |= !strncmp(line, tn, strlen(tn)) && strstr(line, want + 6 /* "in X.join for ..." */) &&
			strstr(line, runby) && strstr(line, dom ? "), since " : ") to exit since ");
	}
	cr_assert(said, "the report says no '%s' ... '%s' of %d: %s", want + 6, runby, (int)joiner, sum);
	rp_json_free(rj);
}

Test(ocaml5_live, ocaml520_domain_join_of_a_mutex_waiter_is_a_deadlock, .fini = cleanup, .timeout = 120)
{
	join_case("5.2.0", "domain");
}

Test(ocaml5_live, ocaml54dev_domain_join_of_a_mutex_waiter_is_a_deadlock, .fini = cleanup, .timeout = 120)
{
	join_case("5.4.0+dev", "domain");
}

Test(ocaml5_live, ocaml520_thread_join_of_a_mutex_waiter_is_a_deadlock, .fini = cleanup, .timeout = 120)
{
	join_case("5.2.0", "thread");
}

Test(ocaml5_live, ocaml54dev_thread_join_of_a_mutex_waiter_is_a_deadlock, .fini = cleanup, .timeout = 120)
{
	join_case("5.4.0+dev", "thread");
}

/* Thread r holds a Stdlib Mutex and reads a pipe only its own process can
 * write; c (another domain) waits for the Mutex; the main thread joins c's
 * domain.  The other threads are the runtime's own: the tick thread (a
 * select with a 50 ms timeout, for ever) and the domains' backup threads.
 * Those run none of the program's code, so the process is blocked, not
 * "asleep on a timer" (which made the read a wait that may end): a probable
 * deadlock through the pipe, its writer inferred. */
static void pipe_case(const char *version)
{
	start(version, "pipe", NULL);
	pid_t r = (pid_t)tl_truth_val(truth, ntruth, "thread", "role=reader", "tid");
	pid_t c = locker("c");
	cr_assert_gt(r, 0);
	struct lt_snapshot *s = snap();
	cr_assert_gt(s->n_verdicts, 0);
	const struct lt_verdict *v = &s->verdicts[0];
	cr_assert_eq(v->kind, LT_VERDICT_DEADLOCK, "first verdict: %s", v->summary);
	cr_assert(strstr(v->summary, "through a pipe"), "%s", v->summary);
	cr_assert(strstr(v->summary, "inferred"), "%s", v->summary);
	cr_assert(TL_HAS(v->tids, v->n_tids, r) && TL_HAS(v->tids, v->n_tids, c), "%s", v->summary);
	const struct lt_thread *t = lt_snapshot_find(s, r);
	cr_assert_not_null(t);
	cr_assert_not_null(t->wf, "the reader's wait was followed");
	cr_assert_gt(t->wf->n_edges, 0);
	cr_assert_eq(t->wf->edges[0].pstate, LT_WFP_BLOCKED, "the writer's process: %s",
		     t->wf->edges[0].doing ? t->wf->edges[0].doing : "?");
	cr_assert(strstr(t->wf->edges[0].doing, "3 the runtime's own"), "%s", t->wf->edges[0].doing);
	lt_snapshot_free(s);
}

Test(ocaml5_live, ocaml520_pipe_read_by_a_holder_nothing_can_write, .fini = cleanup, .timeout = 120)
{
	pipe_case("5.2.0");
}

Test(ocaml5_live, ocaml54dev_pipe_read_by_a_holder_nothing_can_write, .fini = cleanup, .timeout = 120)
{
	pipe_case("5.4.0+dev");
}

/* Nine threads that compute and yield hand the runtime lock on all the
 * time: the holder is never asleep in a call for the window, and the
 * flight recorder never calls it a stall. */
Test(ocaml5_live, ocaml520_busy_runtime_lock_never_triggers, .fini = cleanup, .timeout = 120)
{
	start("5.2.0", "busy", "8");
	struct tl_proc rec;
	char lines[64][256];
	int m = 0;
	tl_tmp_path(trace, sizeof(trace), "ocaml5busy");
	char *extra[] = { "--ring", "16M", "--stall", "2", "-d", "5", "--no-perfetto", NULL };
	cr_assert_eq(tl_start_recorder(&rec, wl.pid, trace, extra), 0);
	int fired = tl_wait_for(&rec, 1, "locktrace: stall detected", lines, &m, 64, 30000);
	int st = tl_wait(&rec, 30000);
	tl_close(&rec);
	cr_assert(!fired, "a busy process was called stuck: %s", lines[m - 1]);
	cr_assert_eq(st, 0, "recorder status 0x%x", st);
	int ran = 0;
	for (int i = 0; i < m; i++)
		ran |= strstr(lines[i], "duration reached") != NULL;
	cr_assert(ran, "the recording did not run its 5 s");
}
