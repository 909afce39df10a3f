/* Perfetto's own importer on real recordings, as root: the bundled
 * workloads are recorded for real, their Perfetto and JSON files imported
 * by trace_processor (the engine behind ui.perfetto.dev, ../shared/tools
 * beside the repository) and checked with SQL against what each workload
 * prints as its ground truth and what `locktrace report` found in the same
 * raw trace: a clean import (no error or data-loss stats, no importer
 * warning), names and command line, the calls of threads blocked before
 * attach open from the attach to the end, the lock holder asleep in read()
 * for the whole trace, one flow per wake-up from the waking call to the
 * wait it ended, Perfetto's own "woken by" agreeing with each flow, the
 * largest queue on each lock, and the queries of docs/perfetto-queries.sql.
 * Without root, or without the trace processor, each test says why it
 * skips. */
#include <criterion/criterion.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>
#include "report.h"
#include "lt_test.h"
#include "tp.h"
#include "report_int.h"

#define QUERIES "docs/perfetto-queries.sql"

static void need_root_and_tp(void)
{
	tl_skip_unless_root("needs root (BPF programs to record a workload): run make test as root");
	const char *why = tp_missing();
	if (why) {
		fprintf(stderr, "tp_live: skipped: %s\n", why);
		cr_skip_test("%s", why);
	}
}

/* ---- files and processes ------------------------------------------------- */

static struct tl_proc wl;
static char raw[256], pft[300], jsn[300], sqlf[300];

static void cleanup(void)
{
	tl_close(&wl);
	if (raw[0]) {
		unlink(raw);
		unlink(pft);
		unlink(jsn);
		unlink(sqlf);
		raw[0] = 0;
	}
}

/* Skips the test unless root with the trace processor at hand; then the
 * files of this test, named from TAG. */
static void name_files(const char *tag)
{
	need_root_and_tp();
	tl_tmp_path(raw, sizeof(raw), tag);
	int stem = (int)(strlen(raw) - strlen(".ltrace"));
	snprintf(pft, sizeof(pft), "%.*s.perfetto-trace", stem, raw);
	snprintf(jsn, sizeof(jsn), "%.*s.json", stem, raw);
	snprintf(sqlf, sizeof(sqlf), "%.*s.sql", stem, raw);
}

static void convert_json(void)
{
	char *argv[] = { LT_BIN, "convert", raw, "--format", "json", "-o", jsn, "--force", NULL };
	cr_assert_eq(tl_run_to_end(argv, NULL, NULL, NULL, NULL), 0, "locktrace convert --format json failed");
}

/* ---- trace_processor ------------------------------------------------------ */

/* Every batch begins with this: the importer's own account of problems. */
#define SQL_PROBLEMS                                                                           \
	"select name, idx, severity, source, value from stats\n"                               \
	"where value > 0 and severity in ('error', 'data_loss');\n"

/* Runs the batch sql (SQL_PROBLEMS first) on trace; the import must be
 * clean and every statement must answer. */
static void query(const char *trace, const char *sql, size_t ntables, struct tp_out *o)
{
	int r = tp_run(trace, sql, o);
	cr_assert_eq(r, 0, "trace_processor on %s: exit %d: %s", trace, o->status, o->error);
	fprintf(stderr, "tp_live: %s imported and queried in %.2f s\n", trace, o->seconds);
	cr_assert_str_empty(o->warnings, "Perfetto's importer warned about %s:\n%s", trace, o->warnings);
	cr_assert_eq(o->n, ntables, "%zu results for %zu statements", o->n, ntables);
	cr_assert_eq(o->t[0].nrows, 0, "Perfetto's importer counted problems in %s:\n%s", trace,
		     tp_dump(&o->t[0]));
}

static long long num(const struct tp_table *t, size_t row, const char *col)
{
	int ok = 0;
	long long v = tp_int(t, row, col, &ok);
	cr_assert(ok, "row %zu column %s is not a number in:\n%s", row, col, tp_dump(t));
	return v;
}

static const char *str(const struct tp_table *t, size_t row, const char *col)
{
	const char *s = tp_get(t, row, col);
	return s ? s : "(NULL)";
}

/* The row of t whose column col holds the number v (-1 if none). */
static long row_of(const struct tp_table *t, const char *col, long long v)
{
	char buf[32];
	snprintf(buf, sizeof(buf), "%lld", v);
	return tp_find(t, col, buf);
}

/* ---- facts checked on several traces -------------------------------------- */

/* Threads of the process: tid, name, thread instances with that tid
 * (one: slices and scheduler states on the same thread), its states and
 * slices. */
static void sql_threads(char *buf, size_t n, pid_t pid)
{
	snprintf(buf, n,
		 "select t.tid, t.name, (select count(*) from thread x where x.tid = t.tid) as instances,\n"
		 "  (select count(*) from thread_state s where s.utid = t.utid) as states,\n"
		 "  (select count(*) from slice s join thread_track tt on s.track_id = tt.id\n"
		 "   where tt.utid = t.utid) as slices\n"
		 "from thread t join process p using (upid) where p.pid = %d order by t.tid;\n",
		 (int)pid);
}

static void check_thread(const struct tp_table *t, pid_t tid, const char *name)
{
	long r = row_of(t, "tid", tid);
	cr_assert_geq(r, 0, "no thread %d in the process:\n%s", (int)tid, tp_dump(t));
	cr_assert_str_eq(str(t, (size_t)r, "name"), name, "thread %d is named '%s', expected '%s':\n%s", (int)tid,
			 str(t, (size_t)r, "name"), name, tp_dump(t));
	cr_assert_eq(num(t, (size_t)r, "instances"), 1, "thread %d is %lld threads in Perfetto:\n%s", (int)tid,
		     num(t, (size_t)r, "instances"), tp_dump(t));
}

/* Every thread of the process is one thread in Perfetto. */
static void check_instances(const struct tp_table *t)
{
	for (size_t r = 0; r < t->nrows; r++)
		cr_assert_eq(num(t, r, "instances"), 1, "thread %s is %lld threads in Perfetto:\n%s", str(t, r, "tid"),
			     num(t, r, "instances"), tp_dump(t));
}

/* Flows per waker and wakee, with how many start on a waking call, end
 * on the "woken" slice at the very end of a wait, and join a wake and a
 * wait on the same futex word. */
static const char SQL_FLOWS[] =
	"select tout.tid as waker, tin.tid as wakee, count(*) as flows,\n"
	"  sum(so.name glob '*WAKE*' or so.name glob 'FUTEX_UNLOCK_PI*' or so.name glob 'send*'\n"
	"      or so.name glob 'write*') as from_waking_call,\n"
	"  sum(si.name = 'woken' and si.ts + si.dur = p.ts + p.dur) as at_wait_end,\n"
	"  sum(coalesce(extract_arg(so.arg_set_id, 'debug.addr'), extract_arg(so.arg_set_id, 'args.addr'))\n"
	"      = coalesce(extract_arg(p.arg_set_id, 'debug.addr'), extract_arg(p.arg_set_id, 'args.addr')))\n"
	"      as same_word\n"
	"from flow f join slice so on so.id = f.slice_out join slice si on si.id = f.slice_in\n"
	"join slice p on p.id = si.parent_id\n"
	"join thread_track tto on so.track_id = tto.id join thread tout on tout.utid = tto.utid\n"
	"join thread_track tti on si.track_id = tti.id join thread tin on tin.utid = tti.utid\n"
	"group by 1, 2 order by 1, 2;\n";

/* Every wake-up the report traced to a waking call (via_futex, via_io) is
 * one flow, and nothing else is: in these workloads every thread such a
 * call wakes sleeps in a traced wait, whose end the flow then marks. */
static void check_flows(const struct tp_table *t, const struct rp_json *rep, const char *what)
{
	const struct rp_json *edges = rp_json_get(rep, "wake_edges");
	long long want = 0, got = 0;
	for (size_t i = 0; edges && i < edges->n; i++) {
		const struct rp_json *e = &edges->items[i];
		long long n = (long long)(rp_json_num(rp_json_get(e, "via_futex"), 0) +
					  rp_json_num(rp_json_get(e, "via_io"), 0));
		if (!n)
			continue;
		long long waker = (long long)rp_json_num(rp_json_get(e, "waker"), 0);
		long long wakee = (long long)rp_json_num(rp_json_get(e, "wakee"), 0);
		long r = -1;
		for (size_t k = 0; k < t->nrows && r < 0; k++)
			if (num(t, k, "waker") == waker && num(t, k, "wakee") == wakee)
				r = (long)k;
		cr_assert_geq(r, 0, "%s: no flow from %lld to %lld; the report has %lld:\n%s", what, waker, wakee, n,
			      tp_dump(t));
		cr_assert_eq(num(t, (size_t)r, "flows"), n, "%s: %lld flows from %lld to %lld, the report %lld", what,
			     num(t, (size_t)r, "flows"), waker, wakee, n);
		want += n;
	}
	for (size_t k = 0; k < t->nrows; k++) {
		long long n = num(t, k, "flows");
		got += n;
		cr_assert_eq(num(t, k, "from_waking_call"), n, "%s: flows not from a waking call:\n%s", what,
			     tp_dump(t));
		cr_assert_eq(num(t, k, "at_wait_end"), n, "%s: flows not ending where a wait ended:\n%s", what,
			     tp_dump(t));
		cr_assert_eq(num(t, k, "same_word"), n, "%s: a wake on one word ended a wait on another:\n%s",
			     what, tp_dump(t));
	}
	cr_assert_eq(got, want, "%s: %lld flows, the report %lld wake-ups from waking calls", what, got, want);
	fprintf(stderr, "tp_live: %s: %lld flows, as the report's wake edges\n", what, got);
}

/* The largest queue on each lock counter track. */
static const char SQL_QUEUES[] =
	"select ct.name, max(c.value) as most, min(c.value) as least\n"
	"from counter_track ct join counter c on c.track_id = ct.id group by ct.id order by ct.name;\n";

static long long queue_max(const struct tp_table *t, uint64_t addr)
{
	char want[40];
	snprintf(want, sizeof(want), "futex 0x%llx", (unsigned long long)addr);
	for (size_t r = 0; r < t->nrows; r++) {
		const char *n = tp_get(t, r, "name");
		if (n && strstr(n, want)) {
			cr_assert_eq(num(t, r, "least"), 0, "%s never had 0 waiters", n);
			return num(t, r, "most");
		}
	}
	cr_assert_fail("no counter track for %s:\n%s", want, tp_dump(t));
	return -1;
}

/* docs/perfetto-queries.sql with its parameter wait_id set (0: as is). */
static const char *queries_file(long long wait_id)
{
	if (!wait_id)
		return QUERIES;
	FILE *in = fopen(QUERIES, "r"), *out = fopen(sqlf, "w");
	cr_assert(in && out, "cannot read %s", QUERIES);
	char line[512];
	int set = 0;
	while (fgets(line, sizeof(line), in)) {
		char *p = strstr(line, "select null as wait_id");
		if (p) {
			fprintf(out, "%.*sselect %lld as wait_id%s", (int)(p - line), line, wait_id,
				p + strlen("select null as wait_id"));
			set = 1;
		} else {
			fputs(line, out);
		}
	}
	fclose(in);
	fclose(out);
	cr_assert(set, "%s has no 'select null as wait_id'", QUERIES);
	return sqlf;
}

/* Runs docs/perfetto-queries.sql: three results, a clean import. */
static void docs_queries(const char *trace, long long wait_id, struct tp_out *o)
{
	int r = tp_run_file(trace, queries_file(wait_id), o);
	cr_assert_eq(r, 0, "%s on %s: exit %d: %s", QUERIES, trace, o->status, o->error);
	cr_assert_str_empty(o->warnings, "%s", o->warnings);
	cr_assert_eq(o->n, 3, "%s printed %zu results", QUERIES, o->n);
}

/* ---- the demo: a lock holder asleep in read(), its waiters before attach -- */

static pid_t demo_start(char lines[][256], int *n)
{
	char *argv[] = { WL("demo"), "-t", "4", "--stall", "io", "--no-wait", NULL };
	cr_assert_eq(tl_spawn(&wl, argv), 0);
	cr_assert(tl_wait_for(&wl, 0, "stalled", lines, n, 64, 15000), "the demo never stalled");
	return wl.pid;
}

/* Waits until /proc says thread tid of pid sleeps in system call nr. */
static void wait_asleep_in(pid_t pid, pid_t tid, int nr)
{
	char path[96], buf[256] = "", want[16];
	snprintf(path, sizeof(path), "/proc/%d/task/%d/syscall", (int)pid, (int)tid);
	snprintf(want, sizeof(want), "%d ", nr);
	for (int i = 0; i < 100; i++) {
		FILE *f = fopen(path, "r");
		size_t n = f ? fread(buf, 1, sizeof(buf) - 1, f) : 0;
		if (f)
			fclose(f);
		buf[n] = 0;
		if (!strncmp(buf, want, strlen(want)))
			return;
		usleep(50000);
	}
	cr_assert_fail("thread %d never slept in system call %d: %s", (int)tid, nr, buf);
}

static void record_for_a_second(pid_t pid)
{
	struct tl_proc rec;
	char *extra[] = { "-d", "1", "--perfetto", NULL };
	cr_assert_eq(tl_start_recorder(&rec, pid, raw, extra), 0);
	cr_assert_eq(tl_wait(&rec, 30000), 0, "the recorder failed");
	tl_close(&rec);
	convert_json();
}

/* The threads the header saw asleep on word at attach. */
static int waiting_on(const struct tl_trace *tr, uint64_t word)
{
	int n = 0;
	for (uint32_t i = 0; i < tr->hdr.nthreads; i++)
		n += tr->hdr.threads[i].sc_nr == 202 && tr->hdr.threads[i].sc_args[0] == word;
	return n;
}

struct demo_truth {
	pid_t pid, holder, tids[8];
	int ntids;
	uint64_t g[2];
	int waiters;
	uint64_t attach;
};

static void demo_truth(char lines[][256], int n, struct demo_truth *d)
{
	memset(d, 0, sizeof(*d));
	d->pid = (pid_t)tl_truth_val(lines, n, "pid", NULL, "pid");
	d->holder = (pid_t)tl_truth_val(lines, n, "stall", "mode=io", "holder_tid");
	d->g[0] = tl_truth_val(lines, n, "lock", "name=rtlock.c.g_signals0", "addr");
	d->g[1] = tl_truth_val(lines, n, "lock", "name=rtlock.c.g_signals1", "addr");
	d->waiters = (int)tl_truth_val(lines, n, "stalled", NULL, "waiters");
	d->tids[d->ntids++] = d->pid;
	for (int i = 0; i < n && d->ntids < 8; i++)
		if (!strncmp(lines[i], "thread ", 7))
			d->tids[d->ntids++] = (pid_t)tl_val(lines[i], "tid", NULL);
	cr_assert_eq(d->ntids, 6, "main, 4 workers and the watchdog");
	cr_assert_eq(d->waiters, 3);
	/* the holder in read(), the other workers in their condvar wait */
	for (int i = 0; i < n; i++) {
		if (strncmp(lines[i], "thread role=worker ", 19))
			continue;
		pid_t tid = (pid_t)tl_val(lines[i], "tid", NULL);
		wait_asleep_in(d->pid, tid, tid == d->holder ? 0 : 202);
	}
}

/* Each blocked thread's call, from the attach to the end of the trace. */
static void check_open_calls(const struct tp_table *t, const struct demo_truth *d, const char *what)
{
	int futex = 0;
	for (size_t r = 0; r < t->nrows; r++) {
		pid_t tid = (pid_t)num(t, r, "tid");
		const char *name = str(t, r, "name");
		cr_assert_eq(num(t, r, "ts"), (long long)d->attach, "%s: %d's %s does not begin at the attach", what,
			     (int)tid, name);
		cr_assert_eq(num(t, r, "to_end"), 1, "%s: %d's %s does not run to the end:\n%s", what, (int)tid, name,
			     tp_dump(t));
		cr_assert_eq(num(t, r, "unfinished"), 1, "%s: %d's %s", what, (int)tid, name);
		cr_assert_eq(num(t, r, "at_start"), 1, "%s: %d's %s", what, (int)tid, name);
		if (tid == d->holder) {
			cr_assert_str_eq(name, "read", "%s: the holder", what);
		} else {
			cr_assert_str_eq(name, "FUTEX_WAIT_BITSET", "%s: thread %d", what, (int)tid);
			uint64_t a = strtoull(str(t, r, "addr"), NULL, 0);
			cr_assert(a == d->g[0] || a == d->g[1], "%s: %d waits on %s", what, (int)tid, str(t, r, "addr"));
			futex++;
		}
	}
	cr_assert_eq(futex, d->waiters, "%s: %d waits open, the demo has %d waiters:\n%s", what, futex, d->waiters,
		     tp_dump(t));
	cr_assert_eq(t->nrows, (size_t)d->waiters + 1, "%s: calls other than the stuck ones:\n%s", what, tp_dump(t));
}

/* The demo's seven queries on FILE: problems, the process, its threads,
 * the outermost calls (their arguments under ARGS, the address as ADDR),
 * STATES, the queues and the flows. */
static void demo_query(const char *file, const struct demo_truth *d, const char *args, const char *addr,
		       const char *states, struct tp_out *o)
{
	char sql[4096], threads[1024];
	sql_threads(threads, sizeof(threads), d->pid);
	snprintf(sql, sizeof(sql),
		 SQL_PROBLEMS
		 "select pid, name, cmdline from process where pid = %d;\n"
		 "%s"
		 "select t.tid, s.name, s.ts, s.ts + s.dur = trace_end() as to_end,\n"
		 "  extract_arg(s.arg_set_id, '%s.unfinished') as unfinished,\n"
		 "  extract_arg(s.arg_set_id, '%s.blocked_at_start') as at_start,\n"
		 "  %s as addr\n"
		 "from slice s join thread_track tt on s.track_id = tt.id join thread t using (utid)\n"
		 "where s.depth = 0 order by t.tid;\n"
		 "%s%s%s",
		 (int)d->pid, threads, args, args, addr, states, SQL_QUEUES, SQL_FLOWS);
	query(file, sql, 7, o);
}

static void demo_perfetto(const struct demo_truth *d, const struct tl_trace *tr, const char *cmdline,
			  const struct rp_json *rep)
{
	struct tp_out o;
	demo_query(pft, d, "debug", "printf('0x%x', extract_arg(s.arg_set_id, 'debug.addr'))",
		   "select t.tid, s.state, s.ts, s.dur from thread_state s join thread t using (utid)\n"
		   "where t.tid in (select tid from thread_track tt join slice x on x.track_id = tt.id\n"
		   "                join thread using (utid)) order by t.tid, s.ts;\n",
		   &o);

	/* the process: named by argv[0] as Perfetto's own scraper does */
	const struct tp_table *p = &o.t[1];
	cr_assert_eq(p->nrows, 1, "%s", tp_dump(p));
	cr_assert_str_eq(str(p, 0, "cmdline"), cmdline);
	cr_assert_str_eq(str(p, 0, "name"), WL("demo"));
	for (int i = 0; i < d->ntids; i++)
		check_thread(&o.t[2], d->tids[i], "demo");
	check_instances(&o.t[2]);
	cr_assert_eq(o.t[2].nrows, (size_t)d->ntids, "%s", tp_dump(&o.t[2]));
	check_open_calls(&o.t[3], d, "perfetto");

	/* asleep for the whole trace, the holder in read() as its waiters: one
	 * state each, Sleeping since the attach, still open at the end */
	const struct tp_table *st = &o.t[4];
	cr_assert_eq(st->nrows, (size_t)d->waiters + 1, "states:\n%s", tp_dump(st));
	for (size_t r = 0; r < st->nrows; r++) {
		cr_assert_str_eq(str(st, r, "state"), "S", "thread %s:\n%s", str(st, r, "tid"), tp_dump(st));
		cr_assert_eq(num(st, r, "ts"), (long long)d->attach,
			     "thread %s sleeps from %lld, the trace begins at %llu (header clock %llu, "
			     "first event in the file %llu of %zu):\n%s", str(st, r, "tid"), num(st, r, "ts"),
			     (unsigned long long)d->attach, (unsigned long long)tr->hdr.clock_boottime,
			     (unsigned long long)(tr->n ? tr->ev[0].h.ts : 0), tr->n, tp_dump(st));
		cr_assert_eq(num(st, r, "dur"), -1);
	}
	cr_assert_geq(row_of(st, "tid", d->holder), 0, "no state for the holder:\n%s", tp_dump(st));

	/* the waiters per condvar word, as the header saw them at attach */
	int q0 = waiting_on(tr, d->g[0]), q1 = waiting_on(tr, d->g[1]);
	cr_assert_eq(q0 + q1, d->waiters);
	if (q0)
		cr_assert_eq(queue_max(&o.t[5], d->g[0]), q0);
	if (q1)
		cr_assert_eq(queue_max(&o.t[5], d->g[1]), q1);
	for (size_t r = 0; r < o.t[5].nrows; r++)
		cr_assert(strstr(str(&o.t[5], r, "name"), "rtlock+0x5"), "lock not named by the live process: %s",
			  str(&o.t[5], r, "name"));
	check_flows(&o.t[6], rep, "demo, perfetto");
	tp_free(&o);
}

/* The JSON: names, the open calls and the queues; no command line (the
 * format has no place for one that the importer reads) and no thread
 * states (no scheduler data). */
static void demo_json(const struct demo_truth *d, const struct tl_trace *tr, const struct rp_json *rep)
{
	struct tp_out o;
	demo_query(jsn, d, "args", "extract_arg(s.arg_set_id, 'args.addr')",
		   "select count(*) as n from thread_state;\n", &o);
	cr_assert_str_eq(str(&o.t[1], 0, "name"), "demo");
	cr_assert_null(tp_get(&o.t[1], 0, "cmdline"));
	for (int i = 0; i < d->ntids; i++)
		check_thread(&o.t[2], d->tids[i], "demo");
	check_instances(&o.t[2]);
	check_open_calls(&o.t[3], d, "json");
	cr_assert_eq(num(&o.t[4], 0, "n"), 0);
	int q0 = waiting_on(tr, d->g[0]), q1 = waiting_on(tr, d->g[1]);
	if (q0)
		cr_assert_eq(queue_max(&o.t[5], d->g[0]), q0);
	if (q1)
		cr_assert_eq(queue_max(&o.t[5], d->g[1]), q1);
	check_flows(&o.t[6], rep, "demo, json");
	tp_free(&o);
}

/* Nothing woke the waiters: the documented queries say the holder is not
 * known, and rank the three waits (still open) on the condvar's words. */
static void demo_docs(const struct demo_truth *d, const char *trace)
{
	struct tp_out o;
	docs_queries(trace, 0, &o);
	const struct tp_table *held = &o.t[0], *longest = &o.t[1], *chain = &o.t[2];
	cr_assert_eq(held->nrows, (size_t)d->waiters, "%s", tp_dump(held));
	for (size_t r = 0; r < held->nrows; r++) {
		cr_assert_null(tp_get(held, r, "holder"), "%s", tp_dump(held));
		cr_assert(strstr(str(held, r, "how_known"), "not known"), "%s", tp_dump(held));
		cr_assert(strstr(str(held, r, "lock"), "rtlock+0x5"), "%s", tp_dump(held));
	}
	cr_assert_eq(longest->nrows, (size_t)d->waiters, "%s", tp_dump(longest));
	for (size_t r = 0; r < longest->nrows; r++)
		cr_assert_eq(num(longest, r, "unfinished"), 1, "%s", tp_dump(longest));
	cr_assert_eq(chain->nrows, 0, "a wake chain where nothing woke:\n%s", tp_dump(chain));
	tp_free(&o);
}

Test(tp_live, demo_holder_asleep_in_read_waiters_blocked_before_attach, .fini = cleanup, .timeout = 60)
{
	char lines[64][256];
	int n = 0;
	struct demo_truth d;
	struct tl_trace tr;

	name_files("tpdemo");
	demo_start(lines, &n);
	demo_truth(lines, n, &d);
	record_for_a_second(d.pid);
	cr_assert_eq(tl_load(&tr, raw), 0);
	/* the trace begins at the attach, or at an event the probes caught
	 * before the header's clock was read (the demo's watchdog wakes every
	 * 100 ms): threads blocked before the trace are blocked from then */
	d.attach = tr.hdr.clock_boottime;
	for (size_t i = 0; i < tr.n; i++)
		if (tr.ev[i].h.ts < d.attach)
			d.attach = tr.ev[i].h.ts;
	cr_assert_str_eq(tr.hdr.cmdline, WL("demo") " -t 4 --stall io --no-wait");
	struct rp_json *rep = tl_report_json(raw);
	demo_perfetto(&d, &tr, tr.hdr.cmdline, rep);
	demo_json(&d, &tr, rep);
	rp_json_free(rep);
	demo_docs(&d, pft);
	demo_docs(&d, jsn);
	tl_free(&tr);
}

/* ---- hand-offs: each unlock's flow to the wait it ended ------------------- */

/* Records argv launched by locktrace (`record -- CMD`); its lines into out. */
static void record_launched(char *const cmd[], char out[][256], int *n)
{
	char *argv[32] = { LT_BIN, "record", "-o", raw, "--no-status", "--perfetto", "--" };
	int k = 7;
	for (int i = 0; cmd[i] && k < 31; i++)
		argv[k++] = cmd[i];
	argv[k] = NULL;
	cr_assert_eq(tl_run_to_end(argv, out, n, NULL, NULL), 0, "locktrace record -- %s failed", cmd[0]);
	convert_json();
}

/* Perfetto's "woken by" (the Runnable state a sched_waking opened, with
 * its waker) agrees with every flow: the wakee was woken by the flow's
 * waker while the waking call ran. */
static const char SQL_WOKEN_BY[] =
	"select count(*) as flows, sum(exists(select 1 from thread_state s\n"
	"  where s.utid = tti.utid and s.state = 'R' and s.waker_utid = tto.utid\n"
	"    and s.ts between so.ts and so.ts + so.dur)) as woken_by\n"
	"from flow f join slice so on so.id = f.slice_out join thread_track tto on so.track_id = tto.id\n"
	"join slice si on si.id = f.slice_in join thread_track tti on si.track_id = tti.id;\n";

/* The flows Perfetto's woken-by does not confirm: waker and wakee tids and
 * the waking call's span. */
#define SQL_UNCONFIRMED_FLOWS \
	"select a.tid as waker, b.tid as wakee, so.ts as call_ts, so.ts + so.dur as call_end\n" \
	"from flow f join slice so on so.id = f.slice_out join thread_track tto on so.track_id = tto.id\n" \
	"join slice si on si.id = f.slice_in join thread_track tti on si.track_id = tti.id\n" \
	"join thread a on a.utid = tto.utid join thread b on b.utid = tti.utid\n" \
	"where not exists(select 1 from thread_state s where s.utid = tti.utid and s.state = 'R'\n" \
	"  and s.waker_utid = tto.utid and s.ts between so.ts and so.ts + so.dur);\n"

/* Perfetto opens a Runnable state with its waker only for a thread it
 * last saw blocked (a waking of a running or runnable thread goes to its
 * spurious_sched_wakeup table: ThreadStateTracker::PushWakingEvent in
 * Perfetto's trace processor, "Only blocked events can be waken up").
 * The kernel's try_to_wake_up() emits sched_waking as soon as the task's
 * state matches (ttwu_state_match), before it looks whether the task is
 * still on its runqueue (p->on_rq && ttwu_runnable()): a futex waiter has
 * set TASK_INTERRUPTIBLE and queued itself before it calls schedule(), so
 * a waker that finds it in the queue in that window writes a waking of a
 * thread that never switched out.  The kernel emits sched_waking for a thread
 * whose state says it sleeps even when it has not left its cpu yet, or was
 * preempted on its way to sleep: then no waker can show.  Which was the
 * case is in the raw trace, in the order the kernel wrote it: the wakee's
 * last switch before its waking by waker within [from, to].  1 if it was
 * on a cpu or preempted (runnable), 0 if asleep or not found; why says. */
static int woken_while_not_asleep(const struct tl_trace *t, uint32_t waker, uint32_t wakee, uint64_t from,
				  uint64_t to, char *why, size_t len)
{
	int st = -1; /* -1 unknown, 0 asleep, 1 on a cpu, 2 runnable */
	for (size_t i = 0; i < t->n; i++) {
		const struct lt_event *e = &t->ev[i];
		if (e->h.kind == LT_EV_SWITCH && e->sw.next_tid == wakee)
			st = 1;
		else if (e->h.kind == LT_EV_SWITCH && e->sw.prev_tid == wakee)
			st = (e->h.flags & LT_F_PREEMPT) || !e->sw.prev_state ? 2 : 0;
		else if (e->h.kind == LT_EV_WAKING && e->h.tid == wakee && e->wake.waker_tid == waker &&
			 e->h.ts >= from && e->h.ts <= to) {
			snprintf(why, len, "%u woke %u at %llu when its last switch said it was %s", waker, wakee,
				 (unsigned long long)e->h.ts,
				 st == 1 ? "on a cpu" : st == 2 ? "runnable" : st == 0 ? "asleep" : "unknown");
			return st == 1 || st == 2;
		}
	}
	snprintf(why, len, "no waking of %u by %u in [%llu, %llu] in the raw trace", wakee, waker,
		 (unsigned long long)from, (unsigned long long)to);
	return 0;
}

/* Every flow Perfetto's woken-by does not confirm is one the raw trace
 * says it cannot: each is printed. */
static void check_unconfirmed_flows(const char *trace, long long unconfirmed)
{
	struct tp_out d;
	struct tl_trace t;
	char why[200];

	query(trace, SQL_PROBLEMS SQL_UNCONFIRMED_FLOWS, 2, &d);
	cr_assert_eq(d.t[1].nrows, (size_t)unconfirmed, "%s", tp_dump(&d.t[1]));
	cr_assert_eq(tl_load(&t, raw), 0);
	for (size_t r = 0; r < d.t[1].nrows; r++) {
		int ok = woken_while_not_asleep(&t, (uint32_t)num(&d.t[1], r, "waker"), (uint32_t)num(&d.t[1], r, "wakee"),
						(uint64_t)num(&d.t[1], r, "call_ts"),
						(uint64_t)num(&d.t[1], r, "call_end"), why, sizeof(why));
		fprintf(stderr, "tp_live: a flow Perfetto shows no waker for: %s\n", why);
		cr_assert(ok, "Perfetto's woken-by disagrees with a flow: %s", why);
	}
	tl_free(&t);
	tp_free(&d);
}

struct mutex_truth {
	pid_t pid, workers[4];
	uint64_t biglock;
};

/* Names, one thread instance each with its states and slices, flows as
 * the report's wake edges, and biglock's queue. */
static void mutex_check(const char *trace, const struct mutex_truth *m, const struct rp_json *rep, int proto)
{
	char sql[4096], threads[1024];
	struct tp_out o;
	sql_threads(threads, sizeof(threads), m->pid);
	snprintf(sql, sizeof(sql), SQL_PROBLEMS "select pid, name, cmdline from process where pid = %d;\n%s%s%s%s",
		 (int)m->pid, threads, SQL_FLOWS, SQL_QUEUES, proto ? SQL_WOKEN_BY : "");
	query(trace, sql, proto ? 6 : 5, &o);
	/* launched: the name is the command's after its exec (a rename of
	 * the main thread, which Perfetto gives the process) */
	cr_assert_str_eq(str(&o.t[1], 0, "name"), "mutex_contentio");
	if (proto)
		cr_assert_str_eq(str(&o.t[1], 0, "cmdline"), WL("mutex_contention") " --no-wait -t 3 -n 100");
	else
		cr_assert_null(tp_get(&o.t[1], 0, "cmdline"));
	for (int i = 0; i < 3; i++) {
		check_thread(&o.t[2], m->workers[i], "mutex_contentio");
		long r = row_of(&o.t[2], "tid", m->workers[i]);
		cr_assert_gt(num(&o.t[2], (size_t)r, "slices"), 0, "worker %d has no calls", (int)m->workers[i]);
		if (proto)
			cr_assert_gt(num(&o.t[2], (size_t)r, "states"), 0, "worker %d has no states on its calls' thread",
				     (int)m->workers[i]);
	}
	check_instances(&o.t[2]);
	check_flows(&o.t[3], rep, proto ? "mutex, perfetto" : "mutex, json");
	/* the forced rounds: one worker holds biglock until both others sleep on it */
	cr_assert_eq(queue_max(&o.t[4], m->biglock), 2, "biglock's longest queue:\n%s", tp_dump(&o.t[4]));
	if (proto) {
		long long flows = num(&o.t[5], 0, "flows");
		cr_assert_gt(flows, 0);
		/* (the raw trace is that of the Perfetto trace) */
		if (num(&o.t[5], 0, "woken_by") != flows)
			check_unconfirmed_flows(trace, flows - num(&o.t[5], 0, "woken_by"));
	}
	tp_free(&o);
}

/* Who held biglock while a worker waited: the worker whose unlock ended
 * the wait, never the waiter itself; every flow into a biglock wait. */
static void mutex_docs(const char *trace, const struct mutex_truth *m)
{
	char sql[1024], lock[40];
	struct tp_out o, f;
	snprintf(lock, sizeof(lock), "futex 0x%llx", (unsigned long long)m->biglock);
	snprintf(sql, sizeof(sql),
		 SQL_PROBLEMS
		 "select count(*) as n from flow f join slice k on k.id = f.slice_in join slice p on p.id = k.parent_id\n"
		 "where case when extract_arg(p.arg_set_id, 'debug.addr') is not null\n"
		 "  then printf('0x%%x', extract_arg(p.arg_set_id, 'debug.addr'))\n"
		 "  else extract_arg(p.arg_set_id, 'args.addr') end = '0x%llx';\n",
		 (unsigned long long)m->biglock);
	query(trace, sql, 2, &f);
	long long into = num(&f.t[1], 0, "n");
	tp_free(&f);
	docs_queries(trace, 0, &o);
	const struct tp_table *held = &o.t[0];
	long long released = 0;
	for (size_t r = 0; r < held->nrows; r++) {
		if (!strstr(str(held, r, "lock"), lock) || !tp_get(held, r, "holder"))
			continue;
		long long h = num(held, r, "holder"), w = num(held, r, "waiter");
		cr_assert_neq(h, w, "%s", tp_dump(held));
		cr_assert(h == m->workers[0] || h == m->workers[1] || h == m->workers[2], "holder %lld", h);
		cr_assert(strstr(str(held, r, "how_known"), "released it: FUTEX_WAKE"), "%s", tp_dump(held));
		released++;
	}
	cr_assert_gt(released, 0);
	cr_assert_eq(released, into, "%lld biglock waits with a holder, %lld flows into them", released, into);
	tp_free(&o);
}

Test(tp_live, mutex_unlocks_flow_to_the_waits_they_ended, .fini = cleanup, .timeout = 60)
{
	char out[64][256];
	int n = 0;
	struct mutex_truth m;

	name_files("tpmutex");
	char *cmd[] = { WL("mutex_contention"), "--no-wait", "-t", "3", "-n", "100", NULL };
	record_launched(cmd, out, &n);
	m.pid = (pid_t)tl_truth_val(out, n, "pid", NULL, "pid");
	m.biglock = tl_truth_val(out, n, "lock", "name=biglock", "addr");
	for (int i = 0; i < 3; i++) {
		char idx[16];
		snprintf(idx, sizeof(idx), "idx=%d", i);
		m.workers[i] = (pid_t)tl_truth_val(out, n, "thread", idx, "tid");
	}
	struct rp_json *rep = tl_report_json(raw);
	mutex_check(pft, &m, rep, 1);
	mutex_check(jsn, &m, rep, 0);
	rp_json_free(rep);
	mutex_docs(pft, &m);
	mutex_docs(jsn, &m);
}

/* ---- the wake chain: ping and pong wake each other in turn ---------------- */

/* The wait that ended last by a traced wake-up: the chain's start. */
static long long last_woken_wait(const char *trace)
{
	struct tp_out o;
	query(trace,
	      SQL_PROBLEMS "select p.id from slice p join slice k on k.parent_id = p.id and k.name = 'woken'\n"
			   "join flow f on f.slice_in = k.id order by p.ts + p.dur desc limit 1;\n",
	      2, &o);
	cr_assert_eq(o.t[1].nrows, 1, "no wait ended by a flow");
	long long id = num(&o.t[1], 0, "id");
	tp_free(&o);
	return id;
}

/* Back from the last hand-off: each wait was woken by the other player,
 * whose own previous wait the chain follows next, back in time. */
static void check_chain(const char *trace, pid_t ping, pid_t pong)
{
	struct tp_out o;
	long long wait = last_woken_wait(trace);
	docs_queries(trace, wait, &o);
	const struct tp_table *c = &o.t[2];
	cr_assert_geq(c->nrows, 3, "a chain of %zu steps:\n%s", c->nrows, tp_dump(c));
	cr_assert_eq(num(c, 0, "wait_id"), wait);
	for (size_t r = 0; r < c->nrows; r++) {
		long long w = num(c, r, "waiter");
		cr_assert_eq(num(c, r, "step"), (long long)r);
		cr_assert(w == ping || w == pong, "%s", tp_dump(c));
		if (r + 1 < c->nrows) {
			long long by = num(c, r, "woken_by");
			cr_assert_eq(by, w == ping ? pong : ping, "step %zu:\n%s", r, tp_dump(c));
			cr_assert_eq(num(c, r + 1, "waiter"), by, "step %zu:\n%s", r, tp_dump(c));
			cr_assert_lt(num(c, r + 1, "ts") + num(c, r + 1, "dur"), num(c, r, "waking_call_ts") + 1,
				     "step %zu: the waker's wait ended after its waking call:\n%s", r, tp_dump(c));
			cr_assert_lt(num(c, r, "waking_call_ts"), num(c, r, "ts") + num(c, r, "dur"));
		}
	}
	fprintf(stderr, "tp_live: %s: a wake chain of %zu steps\n", trace, c->nrows);
	/* the longest waits: three at most per word, longest first */
	const struct tp_table *l = &o.t[1];
	cr_assert_gt(l->nrows, 0);
	for (size_t r = 1; r < l->nrows; r++)
		if (!strcmp(str(l, r, "lock"), str(l, r - 1, "lock"))) {
			cr_assert_eq(num(l, r, "rank"), num(l, r - 1, "rank") + 1, "%s", tp_dump(l));
			cr_assert_leq(num(l, r, "dur"), num(l, r - 1, "dur"), "%s", tp_dump(l));
		}
	tp_free(&o);
}

Test(tp_live, condvar_wake_chain_alternates_between_the_players, .fini = cleanup, .timeout = 60)
{
	char out[64][256];
	int n = 0;

	name_files("tpcond");
	char *cmd[] = { WL("condvar_pingpong"), "--no-wait", "-n", "50", "-s", "4", NULL };
	record_launched(cmd, out, &n);
	pid_t ping = (pid_t)tl_truth_val(out, n, "thread", "role=ping", "tid");
	pid_t pong = (pid_t)tl_truth_val(out, n, "thread", "role=pong", "tid");
	struct rp_json *rep = tl_report_json(raw);
	struct tp_out o;
	const char *traces[] = { pft, jsn };
	for (int i = 0; i < 2; i++) {
		char sql[2048];
		snprintf(sql, sizeof(sql), SQL_PROBLEMS "%s", SQL_FLOWS);
		query(traces[i], sql, 2, &o);
		check_flows(&o.t[1], rep, i ? "condvar, json" : "condvar, perfetto");
		tp_free(&o);
		check_chain(traces[i], ping, pong);
	}
	rp_json_free(rep);
}
