/* End to end, as root: record a workload with a known wait and wake, convert
 * it, and find the waker's FUTEX_WAKE and the wakee's wait on the right
 * threads, joined by a flow.  Without root each test says why it skips. */
#include <criterion/criterion.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>
#include "lt_test.h"
#include "pf_check.h"

#define NEED_ROOT() tl_skip_unless_root("needs root: loads BPF programs to record a workload")

static void load_ok(struct pfc *c, const char *path)
{
	if (pfc_load(c, path)) {
		pfc_print_errors(c);
		cr_assert_fail("%s: %d problems in the Perfetto trace", path, c->nerr);
	}
}

/* Flows from a FUTEX_WAKE of `from` to a wait of `to` on `addr` (one of the
 * condvar's futex words). */
static int flows_between(const struct pfc *c, int32_t from, int32_t to, uint64_t g0, uint64_t g1)
{
	int n = 0;
	for (int i = 0;; i++) {
		const struct pfc_slice *w = pfc_slice(c, from, "FUTEX_WAKE", i);
		if (!w)
			break;
		for (int k = 0;; k++) {
			const struct pfc_slice *s = pfc_slice(c, to, NULL, k);
			if (!s)
				break;
			if (s->instant || !pfc_flow(c, w, s))
				continue;
			const struct pfc_ann *a = pfc_ann(s, "addr"), *wa = pfc_ann(w, "addr");
			cr_assert(a && wa);
			/* the flow joins a wake and a wait on the same word */
			cr_assert_eq(a->u, wa->u, "flow from a wake on %#llx to a wait on %#llx",
				     (unsigned long long)wa->u, (unsigned long long)a->u);
			cr_assert(strstr(s->name, "FUTEX_WAIT"), "flow ends on %s", s->name);
			cr_assert_geq(s->end, w->begin);
			if (a->u == g0 || a->u == g1)
				n++;
		}
	}
	return n;
}

Test(perfetto_live, condvar_wake_flows_to_the_wait_it_ended)
{
	NEED_ROOT();
	char raw[TL_PATH_MAX], pt[TL_PATH_MAX], out[64][256], err[64][256];
	int nout, nerr;

	tl_tmp_paths(raw, pt, "pflive");
	/* -s 4: after every 4th turn a player waits until the other sleeps
	 * in its condvar wait (ping after turns 0, 4, ..., 48; pong after 2,
	 * 6, ..., 46), so its next signal must wake the other */
	char *rec[] = { LT_BIN, "record", "-o", raw, "--no-status", "--",
			WL("condvar_pingpong"), "--no-wait", "-n", "50", "-s", "4", NULL };
	cr_assert_eq(tl_run_to_end(rec, out, &nout, err, &nerr), 0);
	cr_assert_neq(access(pt, F_OK), 0, "`locktrace record` wrote a Perfetto trace uninvited");
	uint32_t ping = (uint32_t)tl_truth_val(out, nout, "thread", "role=ping", "tid");
	uint32_t pong = (uint32_t)tl_truth_val(out, nout, "thread", "role=pong", "tid");
	uint64_t g0 = tl_truth_val(out, nout, "lock", "name=pp_cond.g_signals0", "addr");
	uint64_t g1 = tl_truth_val(out, nout, "lock", "name=pp_cond.g_signals1", "addr");

	char *conv[] = { LT_BIN, "convert", raw, "-o", pt, NULL };
	cr_assert_eq(tl_run_to_end(conv, out, &nout, err, &nerr), 0);

	struct pfc c;
	load_ok(&c, pt);
	cr_assert_str_eq(pfc_thread_track(&c, (int32_t)ping)->name, "condvar_pingpon");
	cr_assert(pfc_thread_track(&c, (int32_t)pong));
	/* each player waited for the other to sleep 13 (ping) and 12 (pong)
	 * times; its next signal then woke the sleeper */
	int pp = flows_between(&c, (int32_t)ping, (int32_t)pong, g0, g1);
	int qp = flows_between(&c, (int32_t)pong, (int32_t)ping, g0, g1);
	cr_assert_geq(pp, 13, "%d flows from ping's FUTEX_WAKE to pong's wait", pp);
	cr_assert_geq(qp, 12, "%d flows from pong's FUTEX_WAKE to ping's wait", qp);
	/* and the scheduler knows who woke whom */
	int wakings = 0;
	for (size_t i = 0; i < c.nsched; i++)
		if (c.sched[i].kind == 'w' && c.sched[i].pid == ping && c.sched[i].wakee == (int32_t)pong)
			wakings++;
	cr_assert_geq(wakings, 13);
	pfc_free(&c);
	unlink(raw);
	unlink(pt);
}

Test(perfetto_live, bare_form_writes_both_and_says_where)
{
	NEED_ROOT();
	char raw[TL_PATH_MAX], pt[TL_PATH_MAX], out[64][256], err[64][256];
	int nout, nerr;

	tl_tmp_paths(raw, pt, "pfbare");
	char *argv[] = { LT_BIN, "-o", raw, "--no-status", "--", WL("condvar_pingpong"), "--no-wait",
			 "-n", "20", "-s", "4", NULL };
	cr_assert_eq(tl_run_to_end(argv, out, &nout, err, &nerr), 0);
	int said_raw = 0, said_pt = 0, said_open = 0;
	for (int i = 0; i < nerr; i++) {
		said_raw |= strstr(err[i], "raw trace:") && strstr(err[i], raw);
		said_pt |= strstr(err[i], "Perfetto trace:") && strstr(err[i], pt);
		said_open |= !!strstr(err[i], "ui.perfetto.dev");
	}
	cr_assert(said_raw && said_pt && said_open, "locktrace did not say where both traces are");
	struct stat sb;
	cr_assert_eq(stat(pt, &sb), 0);
	cr_assert_eq(sb.st_mode & 0777, 0600);
	struct pfc c;
	load_ok(&c, pt);
	uint32_t ping = (uint32_t)tl_truth_val(out, nout, "thread", "role=ping", "tid");
	cr_assert(pfc_slice(&c, (int32_t)ping, "FUTEX_WAKE", 0));
	pfc_free(&c);

	/* again with the same name: both exist, so it refuses before tracing */
	cr_assert_neq(tl_run_to_end(argv, out, &nout, err, &nerr), 0);
	unlink(raw);
	unlink(pt);
}
