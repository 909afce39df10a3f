/* Node's runtime-internal idle threads (issue 25, item 4) on Debian's
 * node: an idle HTTP server started with --inspect has an inspector thread
 * that waits for work on libuv's uv_sem_wait (a semaphore of its own,
 * node::inspector's start_io_thread_semaphore).  Nobody holds such a
 * semaphore: the thread is in no snapshot verdict and no report finding,
 * and never a holder.  Ground truth: the thread whose futex word is that
 * symbol (from node's ELF symbols, not from the idle rule).  Needs root;
 * skips, saying why, where node is missing. */
#include <criterion/criterion.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

#include "snapshot.h"
#include "lt_test.h"
#include "report_int.h"

#define NODE "/usr/bin/node"
#define SEM "start_io_thread_semaphore"

TL_WORKLOAD(32);
static char trace[TL_PATH_MAX], pftrace[TL_PATH_MAX];

static void cleanup(void)
{
	tl_close_started(&wl);
	tl_unlink_traces(trace, pftrace);
}

/* The inspector thread of S: the one asleep in futex on SEM; 0 if none. */
static pid_t inspector_of(const struct lt_snapshot *s)
{
	pid_t found = 0;
	for (size_t i = 0; i < s->n_threads; i++) {
		const struct lt_thread *t = &s->threads[i];
		if (t->wait == LT_WAIT_FUTEX && t->futex.lock_sym && strstr(t->futex.lock_sym, SEM)) {
			cr_assert_eq(found, 0, "two threads wait on %s", SEM);
			found = t->tid;
		}
	}
	return found;
}

Test(node_live, inspector_thread_is_never_a_lock_waiter_nor_a_holder, .fini = cleanup, .timeout = 120)
{
	tl_skip_unless_root("needs root: another process's memory, BPF");
	if (access(NODE, X_OK) != 0)
		cr_skip_test("%s missing: Debian's nodejs is needed", NODE);
	char *argv[] = { NODE, "--inspect=127.0.0.1:0", "-e",
			 "const s = require('http').createServer(() => {});"
			 "s.listen(0, '127.0.0.1', () => {"
			 " console.log('pid=' + process.pid); console.log('ready'); });",
			 NULL };
	ntruth = 0;
	cr_assert_eq(tl_spawn(&wl, argv), 0);
	cr_assert(tl_wait_for(&wl, 0, "ready", truth, &ntruth, 32, 60000), "node never got ready");

	struct lt_snapshot *s = NULL;
	pid_t insp = 0;
	for (int i = 0; i < 100 && !insp; i++) {
		lt_snapshot_free(s);
		s = NULL;
		cr_assert_eq(lt_snapshot_take(wl.pid, NULL, &s), 0);
		insp = inspector_of(s);
		if (!insp)
			usleep(100000);
	}
	cr_assert_gt(insp, 0, "no thread of node waits on %s (node's symbols missing?)", SEM);
	for (size_t i = 0; i < s->n_verdicts; i++) {
		const struct lt_verdict *v = &s->verdicts[i];
		cr_assert(!TL_HAS(v->tids, v->n_tids, insp) && v->owner != insp,
			  "the inspector thread %d in a verdict: %s", (int)insp, v->summary);
		cr_assert(v->kind != LT_VERDICT_LOCK_WAIT && v->kind != LT_VERDICT_CONVOY &&
				  v->kind != LT_VERDICT_DEADLOCK,
			  "a lock verdict on an idle server: %s", v->summary);
	}
	lt_snapshot_free(s);

	tl_record_perfetto(wl.pid, "nodeidle", trace, pftrace);
	struct rp_json *j = tl_report_json(trace);
	const struct rp_json *fs = rp_json_get(j, "findings");
	for (size_t i = 0; fs && i < fs->n; i++) {
		const struct rp_json *f = &fs->items[i];
		const char *summary = rp_json_str(rp_json_get(f, "summary"));
		cr_assert(!strstr(summary, SEM), "a finding on the inspector's semaphore: %s", summary);
		cr_assert_neq(rp_json_num(rp_json_get(f, "holder"), 0), insp, "the inspector thread a holder: %s",
			      summary);
		const struct rp_json *ts = rp_json_get(f, "tids");
		for (size_t k = 0; ts && k < ts->n; k++)
			cr_assert_neq(rp_json_num(&ts->items[k], 0), insp, "the inspector thread %d in: %s", (int)insp,
				      summary);
	}
	rp_json_free(j);
}
