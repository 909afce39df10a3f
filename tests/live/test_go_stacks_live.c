/* record --stacks on Go, end to end as root: two Go functions block in a
 * read on a socket at known lines for known times
 * (tests/workloads/go/gosites.go: syscall.Read, inlined into them, so the
 * goroutine's thread sleeps in read() on the goroutine's stack).  Checked:
 *   - every read wait on the socket has a stack through syscall.read,
 *     the inlined syscall.Read (a frame of its own, as the snapshot's Go
 *     model expands inlined calls) and the site's function (main.siteAlpha
 *     or main.siteBeta) at its read's line in gosites.go, from the
 *     program's pclntab (Go's DWARF gives libdw no lines), to the
 *     goroutine's start (runtime.goexit);
 *   - `report --profile` names them with file and line, alpha (the longer
 *     hold) first, each adding up to the reads in the trace whose stacks
 *     go through it (the program's own measure of its wait, in the
 *     messages, also holds the time the goroutine's thread ran or sat
 *     runnable outside the read, and reads shorter than 1 ms not sampled).
 * The recorder runs without its symbol cache, as on a fresh machine. */
#include <criterion/criterion.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include "lt_test.h"
#include "stacks.h"

#define NEED_ROOT() tl_skip_unless_root("needs root: loads BPF programs to record a workload")
#define BIN WL("go/gosites")
#define ROUNDS 4

struct truth {
	int fd;
	long line_a, line_b;
	double wait_a_us, wait_b_us;
	/* from the trace: the reads whose stacks go through each site (ms) */
	double through_ms[2];
};

static void record(const char *raw, struct truth *t)
{
	char out[64][256], err[64][256];
	int nout, nerr;
	if (access(BIN, X_OK) != 0)
		cr_skip_test("%s not built: go was missing at build time (Debian's golang-go)", BIN);
	char *rec[] = { LT_BIN, "record", "-o", (char *)raw, "--no-status", "--stacks", "--calls", "all",
			"--", BIN, "--no-wait", "-r", "4", "-a", "60", "-b", "30", NULL };
	setenv("LOCKTRACE_CACHE_DIR", "off", 1);
	int rc = tl_run_to_end(rec, out, &nout, err, &nerr);
	unsetenv("LOCKTRACE_CACHE_DIR");
	cr_assert_eq(rc, 0, "locktrace record --stacks failed (%d): %s", rc, nerr ? err[0] : "");
	t->fd = (int)tl_truth_val(out, nout, "socket", "role=reader", "fd");
	t->line_a = (long)tl_truth_val(out, nout, "site", "name=alpha", "line");
	t->line_b = (long)tl_truth_val(out, nout, "site", "name=beta", "line");
	t->wait_a_us = (double)tl_truth_val(out, nout, "done", "rounds=", "alpha_wait_us");
	t->wait_b_us = (double)tl_truth_val(out, nout, "done", "rounds=", "beta_wait_us");
}

static void check_trace(const char *raw, struct truth *t)
{
	struct tl_trace tr;
	struct lt_stacktab st = { 0 };
	tl_load_clean(&tr, raw);
	cr_assert_eq(lt_trace_stacks(raw, &st), 0);
	cr_assert(!st.damaged);
	uint64_t latest = tl_latest_waiter_copy(&st);
	int seen[3] = { 0 }, nlong = 0, restarted = 0;
	for (size_t i = 0; i < tr.n; i++) {
		const struct lt_event *e = &tr.ev[i];
		if (e->h.kind != LT_EV_IO_ENTER || e->io.fd != t->fd || e->io.nr != 0 /* read */)
			continue;
		/* a read that found its byte there (the goroutine got back to
		 * its read only after main's write: Go gives a goroutine back
		 * its P after a blocking call when it can) did not wait: short
		 * waits are only sampled.  Every read of 1 ms or more has one. */
		size_t x = i + 1;
		while (x < tr.n && !(tr.ev[x].h.kind == LT_EV_SYS_EXIT && tr.ev[x].h.tid == e->h.tid))
			x++;
		cr_assert_lt(x, tr.n, "the read at %llu has no return", (unsigned long long)e->h.ts);
		const struct lt_stack *s = lt_stacktab_find(&st, (int32_t)e->h.tid, e->h.ts, LT_STACK_WAITER);
		/* what the profile adds up: every read with a stack through a
		 * site, the short ones sampled too */
		for (int k = 0; s && k < 2; k++)
			if (tl_frame_named(s, k ? "main.siteBeta" : "main.siteAlpha") >= 0)
				t->through_ms[k] += (double)(tr.ev[x].h.ts - e->h.ts) / 1e6;
		if (tr.ev[x].h.ts - e->h.ts < 1000000)
			continue;
		nlong++;
		/* the copy is made from user space while the thread sleeps:
		 * say how late the collector was with the others */
		cr_assert(s, "the read at %llu has no stack (the other waits' stacks were copied up "
			  "to %.1f ms after they began)", (unsigned long long)e->h.ts, (double)latest / 1e6);
		int a = tl_frame_named(s, "main.siteAlpha"), b = tl_frame_named(s, "main.siteBeta");
		cr_assert((a >= 0) != (b >= 0), "the read's stack at %llu names %s site (end: %s)",
			  (unsigned long long)e->h.ts, a >= 0 ? "both" : "neither", s->end ? s->end : "none");
		int site = a >= 0 ? 1 : 2, k = a >= 0 ? a : b;
		const struct lt_sframe *f = &s->frames[k];
		cr_assert(f->file && strstr(f->file, "gosites.go"), "%s in file %s", f->func,
			  f->file ? f->file : "(none)");
		long want = site == 1 ? t->line_a : t->line_b;
		cr_assert_eq((long)f->line, want, "%s at line %u, not %ld", f->func, f->line, want);
		/* syscall.Read, inlined into the site, just inside it, and
		 * syscall.read (a call of its own) inside that */
		cr_assert(k >= 2 && s->frames[k - 1].func && !strcmp(s->frames[k - 1].func, "syscall.Read"),
			  "no inlined syscall.Read just inside %s", f->func);
		cr_assert(s->frames[k - 1].file && strstr(s->frames[k - 1].file, "syscall_unix.go"));
		cr_assert_eq(s->frames[k - 1].pc, f->pc, "an inlined call's frame has its caller's pc");
		cr_assert_geq(tl_frame_named(s, "syscall.read"), 0);
		cr_assert_lt(tl_frame_named(s, "syscall.read"), k - 1);
		cr_assert_null(s->end, "the unwind stopped early: %s", s->end);
		/* a read a signal broke (Go's runtime signals its threads:
		 * -ERESTARTSYS, seen in CI after 1.2 ms) is restarted by the
		 * kernel as a call of its own: the round's byte comes with the
		 * read that returns it */
		if (tr.ev[x].exit.ret >= 0)
			seen[site]++;
		else
			restarted++;
	}
	/* each site waited in most of its rounds */
	cr_assert_eq(seen[1] + seen[2] + restarted, nlong);
	cr_assert(seen[1] >= 1 && seen[1] <= ROUNDS, "reads with main.siteAlpha's stack: %d", seen[1]);
	cr_assert(seen[2] >= 1 && seen[2] <= ROUNDS, "reads with main.siteBeta's stack: %d", seen[2]);
	lt_stacktab_free(&st);
	tl_free(&tr);
}

static void check_profile(const char *raw, const struct truth *t)
{
	char call[32], where[2][48];
	int nout;
	tl_line *out = tl_profile_lines(raw, &nout);
	snprintf(call, sizeof(call), "read on fd %d,", t->fd);
	snprintf(where[0], sizeof(where[0]), "(gosites.go:%ld)", t->line_a);
	snprintf(where[1], sizeof(where[1]), "(gosites.go:%ld)", t->line_b);
	const char *const func[2] = { "main.siteAlpha", "main.siteBeta" };
	const char *const at[2] = { where[0], where[1] };
	const double want[2] = { t->wait_a_us, t->wait_b_us };
	const int nent[2] = { 1, 1 }; /* tl_profile_sites: one each */
	int rank[2];
	double ms[2], slack[2];
	tl_profile_sites(out, nout, call, func, at, rank, ms, slack);
	tl_check_site_trace(rank, ms, nent, slack, t->through_ms, want, func);
	free(out);
}

Test(go_stacks_live, socket_reads_name_their_go_sites, .timeout = 120)
{
	NEED_ROOT();
	char raw[TL_PATH_MAX];
	struct truth t = { 0 };
	tl_tmp_path(raw, sizeof(raw), "go-stacks");
	record(raw, &t);
	check_trace(raw, &t);
	check_profile(raw, &t);
	unlink(raw);
}
