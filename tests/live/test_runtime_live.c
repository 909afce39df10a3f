/* Runtime locks end to end, as root, on programs we did not write: Debian's
 * ocaml-nox (an OCaml 4.13 program whose runtime-lock holder sleeps in
 * read()) and Debian's python3 (a GIL holder in read() through ctypes).
 * Each is recorded for real; the report must name the holder the workload
 * prints as read from the runtime's memory, and Perfetto's own importer
 * (trace_processor, when ../shared/tools has it) must show the "lock held"
 * slice on the holder's thread and the lock track named by the model. */
#include <criterion/criterion.h>
#include <inttypes.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "lockmodel.h"
#include "report.h"
#include "snapshot.h"
#include "locktrace/taskregs.h"
#include "lt_test.h"
#include "tp.h"
#include "report_int.h"

#define PYTHON "/usr/bin/python3"

TL_WORKLOAD(64);
static char trace[TL_PATH_MAX], pftrace[TL_PATH_MAX];

static void cleanup(void)
{
	tl_close(&wl);
	tl_unlink_traces(trace, pftrace);
}

static void need_root(void)
{
	tl_skip_unless_root("needs root (BPF programs, other processes' memory): run make test as root");
}

/* The holder's tid from "thread role=holder ... tid=T". */
static pid_t holder_tid(void)
{
	pid_t t = (pid_t)tl_truth_val(truth, ntruth, "thread", "role=holder", "tid");
	cr_assert(t > 0);
	return t;
}

/* Records pid for 2 s (the raw trace and the Perfetto file). */
static void record(pid_t pid, const char *tag)
{
	tl_record_perfetto(pid, tag, trace, pftrace);
}

/* The report's first finding names the holder, read from the runtime. */
static void check_report(pid_t holder, const char *kind)
{
	struct rp_json *j = tl_report_json(trace);
	const struct rp_json *fs = rp_json_get(j, "findings");
	cr_assert(fs && fs->n > 0, "no findings");
	const struct rp_json *f = &fs->items[0];
	const char *summary = rp_json_str(rp_json_get(f, "summary"));
	cr_assert_str_eq(rp_json_str(rp_json_get(f, "kind")), "holder_blocked", "first finding: %s", summary);
	cr_assert_eq(rp_json_num(rp_json_get(f, "holder"), 0), holder, "%s", summary);
	cr_assert_not_null(strstr(summary, kind), "%s", summary);
	int runtime = 0;
	const struct rp_json *ev = rp_json_get(f, "evidence");
	for (size_t i = 0; ev && i < ev->n; i++)
		runtime |= strstr(rp_json_str(&ev->items[i]), "the snapshot read it from the runtime's own state") != NULL;
	cr_assert(runtime, "the holder is not attributed to the runtime's state: %s", summary);
	rp_json_free(j);
}

/* Perfetto's importer reads the file cleanly (no error or data-loss stats,
 * no warning) and shows the "lock held" slice on the holder's thread, the
 * lock track named by the model, and, through the documented query "who
 * held the lock" (docs/perfetto-queries.sql), the holder for the waits
 * that the model's slice overlaps and no traced call ended. */
static void check_perfetto(pid_t holder, const char *kind)
{
	struct tp_out o;
	int r = tp_run(pftrace,
		       "select name, severity, value from stats where value > 0\n"
		       "  and severity in ('error', 'data_loss');\n"
		       "select thread.tid, s.name from slice s join thread_track tt on s.track_id = tt.id\n"
		       "  join thread using(utid) where tt.name = 'lock held';\n"
		       "select name from track where name like '%futex 0x%';\n",
		       &o);
	cr_assert_eq(r, 0, "trace_processor: exit %d: %s", o.status, o.error);
	cr_assert_str_empty(o.warnings, "Perfetto's importer warned: %s", o.warnings);
	cr_assert_eq(o.n, 3);
	cr_assert_eq(o.t[0].nrows, 0, "import problems:\n%s", tp_dump(&o.t[0]));
	cr_assert_eq(o.t[1].nrows, 1, "%s", tp_dump(&o.t[1]));
	cr_assert_eq(tp_int(&o.t[1], 0, "tid", NULL), holder, "%s", tp_dump(&o.t[1]));
	const char *held_name = tp_get(&o.t[1], 0, "name");
	cr_assert(held_name && !strncmp(held_name, "holds the ", 10) && strstr(held_name, kind), "%s",
		  tp_dump(&o.t[1]));
	int named = 0;
	for (size_t i = 0; i < o.t[2].nrows; i++)
		named |= strstr(tp_get(&o.t[2], i, "name"), kind) != NULL;
	cr_assert(named, "no lock track named by the model:\n%s", tp_dump(&o.t[2]));
	tp_free(&o);

	r = tp_run_file(pftrace, "docs/perfetto-queries.sql", &o);
	cr_assert_eq(r, 0, "docs/perfetto-queries.sql: exit %d: %s", o.status, o.error);
	const struct tp_table *held = &o.t[0];
	size_t by_model = 0;
	for (size_t i = 0; i < held->nrows; i++) {
		const char *how = tp_get(held, i, "how_known");
		if (!how || strncmp(how, "holds the ", 10))
			continue;
		cr_assert_eq(tp_int(held, i, "holder", NULL), holder, "wait %zu: %s", i, how);
		by_model++;
	}
	fprintf(stderr, "runtime_live: %zu of %zu waits held by %d as the lock model read it\n", by_model,
		held->nrows, (int)holder);
	cr_assert_gt(by_model, 0, "no wait shows the holder the lock model read");
	tp_free(&o);
}

/* Starts the workload ARGV, whose holder thread holds the runtime lock
 * and sits in read() (waited for when WAIT_READ), records it (TAG) and
 * checks that the report names the holder of LOCK, and with PERFETTO that
 * Perfetto's importer shows it (skipped, saying why, without the tool:
 * never a pass that checked nothing). */
static void holder_in_read(char *const argv[], bool wait_read, const char *tag, const char *lock,
			   bool perfetto)
{
	const char *why = perfetto ? tp_missing() : NULL;
	if (why)
		cr_skip_test("the Perfetto import is not checked: %s", why);
	tl_start_ready(&wl, argv, truth, &ntruth, 64, 30000);
	pid_t holder = holder_tid();
	if (wait_read)
		tl_wait_in_read(wl.pid, holder, 10000);
	record(wl.pid, tag);
	check_report(holder, lock);
	if (perfetto)
		check_perfetto(holder, lock);
}

static void ocaml_holder(bool perfetto)
{
	need_root();
	if (access(WL("ocaml_holder"), X_OK) != 0)
		cr_skip_test("%s not built: ocamlopt (Debian's ocaml-nox) is missing; make deps installs it",
			     WL("ocaml_holder"));
	char *argv[] = { WL("ocaml_holder"), "--no-wait", NULL };
	holder_in_read(argv, false, "ocaml", "OCaml runtime lock caml_master_lock", perfetto);
}

static void python_holder(bool perfetto)
{
	need_root();
	if (access(PYTHON, X_OK) != 0)
		cr_skip_test("%s missing: Debian's python3 is needed (make deps installs it)", PYTHON);
	char *argv[] = { PYTHON, "tests/workloads/gil_holder.py", NULL };
	holder_in_read(argv, true, "gil", "GIL _PyRuntime.ceval.gil", perfetto);
}

Test(runtime_live, ocaml_runtime_lock_holder_in_read, .fini = cleanup, .timeout = 120)
{
	ocaml_holder(false);
}

Test(runtime_live, ocaml_runtime_lock_holder_in_perfetto, .fini = cleanup, .timeout = 120)
{
	ocaml_holder(true);
}

Test(runtime_live, python_gil_holder_in_read, .fini = cleanup, .timeout = 120)
{
	python_holder(false);
}

Test(runtime_live, python_gil_holder_in_perfetto, .fini = cleanup, .timeout = 120)
{
	python_holder(true);
}

/* Two threading.Locks taken in opposite orders: memory cannot prove the
 * cycle (a Python lock is a semaphore, which records no holder), but the
 * snapshot must say that both threads wait for a lock, on the addresses
 * the workload prints, and never call the process OK or idle. */
Test(runtime_live, python_lock_deadlock_is_never_ok, .fini = cleanup, .timeout = 60)
{
	need_root();
	if (access(PYTHON, X_OK) != 0)
		cr_skip_test("%s missing: Debian's python3 is needed", PYTHON);
	char *argv[] = { PYTHON, "tests/workloads/gil_holder.py", "--lock-deadlock", NULL };
	tl_start_ready(&wl, argv, truth, &ntruth, 64, 30000);
	struct lt_snapshot *s = NULL;
	cr_assert_eq(lt_snapshot_take(wl.pid, NULL, &s), 0);
	for (size_t i = 0; i < s->n_verdicts; i++)
		cr_assert(s->verdicts[i].kind != LT_VERDICT_OK && s->verdicts[i].kind != LT_VERDICT_IDLE,
			  "verdict %zu: %s", i, s->verdicts[i].summary);
	int found = 0;
	for (int k = 0; k < ntruth; k++) {
		if (strncmp(truth[k], "blocked ", 8))
			continue;
		int ok = 1;
		pid_t tid = (pid_t)tl_val(truth[k], "tid", &ok);
		uint64_t addr = tl_val(truth[k], "addr", &ok);
		cr_assert(ok);
		const struct lt_thread *t = lt_snapshot_find(s, tid);
		cr_assert_not_null(t);
		/* the CPython thread model names the Lock whose semaphore it is
		 * (docs/runtimes.md); the semaphore stays the futex word */
		cr_assert_str_eq(t->futex.lock_kind, "threading.Lock", "thread %d", (int)tid);
		cr_assert_eq(t->futex.uaddr, addr);
		cr_assert(t->futex.lock_state && !strncmp(t->futex.lock_state, "its semaphore: ", 15));
		cr_assert_not_null(t->acquire);
		int in_verdict = 0;
		for (size_t i = 0; i < s->n_verdicts; i++)
			for (size_t j = 0; j < s->verdicts[i].n_tids; j++)
				in_verdict |= s->verdicts[i].kind == LT_VERDICT_LOCK_WAIT && s->verdicts[i].tids[j] == tid &&
					      strstr(s->verdicts[i].summary, "whose holder is not recorded") != NULL;
		cr_assert(in_verdict, "thread %d is in no lock_wait verdict", (int)tid);
		found++;
	}
	cr_assert_eq(found, 2);
	lt_snapshot_free(s);
}

/* A thread's pthread_t is its fs base: the task iterator reads it for
 * every thread (running ones too), so the lock models can map the
 * pthread_t a runtime stores (CPython 3.8-3.10's thread states) to a tid. */
static pthread_t sleeper_self;
static pid_t sleeper_tid;
static int sleeper_pipe[2];

static void *sleeper(void *arg)
{
	(void)arg;
	sleeper_self = pthread_self();
	__atomic_store_n(&sleeper_tid, gettid(), __ATOMIC_RELEASE);
	char c;
	return read(sleeper_pipe[0], &c, 1) < 0 ? NULL : NULL;
}

Test(runtime_live, task_iterator_reads_each_threads_pthread_t, .timeout = 30)
{
	need_root();
	pthread_t th;
	cr_assert_eq(pipe(sleeper_pipe), 0);
	cr_assert_eq(pthread_create(&th, NULL, sleeper, NULL), 0);
	while (!__atomic_load_n(&sleeper_tid, __ATOMIC_ACQUIRE))
		usleep(1000);
	usleep(50000);
	struct lt_tid_regs *regs = NULL;
	size_t n = 0;
	char err[256];
	int rc = lt_taskregs_read(getpid(), &regs, &n, err, sizeof(err));
	cr_assert_eq(rc, 0, "%s", err);
	int seen_self = 0, seen_sleeper = 0;
	for (size_t i = 0; i < n; i++) {
		if (regs[i].tid == gettid()) {
			seen_self = 1;
			cr_assert_eq(regs[i].regs.fsbase, (uint64_t)pthread_self());
		} else if (regs[i].tid == sleeper_tid) {
			seen_sleeper = 1;
			cr_assert_eq(regs[i].regs.fsbase, (uint64_t)sleeper_self);
			cr_assert(!regs[i].stale, "the sleeping thread was read as running");
		}
	}
	free(regs);
	cr_assert(seen_self && seen_sleeper);
	close(sleeper_pipe[1]);
	pthread_join(th, NULL);
	close(sleeper_pipe[0]);
}

/* The GIL is a struct with a mutex and condition variables of its own:
 * every hand-off passes its mutex, whose short waits once made a convoy
 * finding (and a snapshot lock wait) of their own beside the GIL's.
 * Exactly one report finding and one snapshot verdict are about words
 * inside the GIL (its extent as the lock model read it), the GIL's. */
static size_t findings_inside(const struct rp_json *fs, uint64_t base, uint64_t size, const char **which)
{
	size_t n = 0;
	for (size_t i = 0; fs && i < fs->n; i++) {
		const struct rp_json *ls = rp_json_get(&fs->items[i], "locks");
		int in = 0;
		for (size_t k = 0; ls && k < ls->n; k++) {
			uint64_t a = 0;
			in |= rp_json_addr(&ls->items[k], &a) && a >= base && a - base < size;
		}
		if (in) {
			n++;
			fprintf(stderr, "runtime_live: GIL finding: %s\n", rp_json_str(rp_json_get(&fs->items[i], "summary")));
			*which = rp_json_str(rp_json_get(&fs->items[i], "kind"));
		}
	}
	return n;
}

Test(runtime_live, python_gil_internal_words_are_the_gil, .fini = cleanup, .timeout = 120)
{
	need_root();
	if (access(PYTHON, X_OK) != 0)
		cr_skip_test("%s missing: Debian's python3 is needed (make deps installs it)", PYTHON);
	char *argv[] = { PYTHON, "tests/workloads/gil_holder.py", NULL };
	tl_start_ready(&wl, argv, truth, &ntruth, 64, 30000);
	pid_t holder = holder_tid();
	tl_wait_in_read(wl.pid, holder, 10000);
	struct lt_snapshot *s = NULL;
	cr_assert_eq(lt_snapshot_take(wl.pid, NULL, &s), 0);
	uint64_t base = 0, size = 0;
	for (size_t i = 0; i < s->n_rtlocks; i++)
		if (!strcmp(s->rtlocks[i].kind, "GIL")) {
			base = s->rtlocks[i].base;
			size = s->rtlocks[i].size;
		}
	cr_assert(base && size, "the lock model found no GIL");
	size_t nv = 0;
	for (size_t i = 0; i < s->n_verdicts; i++) {
		int in = 0;
		for (size_t k = 0; k < s->verdicts[i].n_locks; k++)
			in |= s->verdicts[i].locks[k] >= base && s->verdicts[i].locks[k] - base < size;
		nv += in;
		if (in)
			cr_assert_eq(s->verdicts[i].owner, holder, "%s", s->verdicts[i].summary);
	}
	lt_snapshot_free(s);
	cr_assert_eq(nv, 1, "%zu snapshot verdicts are about the GIL's words", nv);

	record(wl.pid, "gilwords");
	struct rp_json *j = tl_report_json(trace);
	const char *kind = NULL;
	size_t nf = findings_inside(rp_json_get(j, "findings"), base, size, &kind);
	cr_assert_eq(nf, 1, "%zu report findings are about the GIL's words (its extent 0x%" PRIx64 "+%" PRIu64 ")",
		     nf, base, size);
	cr_assert_str_eq(kind, "holder_blocked");
	rp_json_free(j);
}
