// SPDX-License-Identifier: MIT
/* `report --profile` (src/output/report_profile.c) on a synthetic trace
 * with STACKS sections and known answers: two threads wait on one futex
 * three times, each wait ended by a holder's FUTEX_WAKE whose stack was
 * copied at the wake-up (as `--calls blocking --stacks` records it).  The
 * text ranks (lock, waiting stack) and (lock, releasing stack); the
 * collapsed lines and the pprof profile (decoded with src/base/pbread.h)
 * carry exact values, names and lines. */
#include <criterion/criterion.h>
#include <linux/futex.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <zlib.h>
#include "lt_events.h"
#include "lt_test.h"
#include "pbread.h"
#include "report_profile.h"
#include "stacks.h"
#include "locktrace/tracefile.h"

#define PID 1000
#define WA 1001 /* waits with stack 1 */
#define WB 1002 /* waits with stack 2 */
#define HOLDER 1003
#define LOCK 0x7f0000000100ull
#define T0 1000000000ull

/* waiting stacks 1 (site_alpha) and 2 (site_beta), release stacks 3 and 4 */
static struct lt_sframe st1[] = {
	{ .pc = 0x7f0000001234, .func = "__lll_lock_wait", .func_off = 0x2b, .module = "libc.so.6",
	  .file = "futex-internal.h", .line = 146 },
	{ .pc = 0x555500001100, .func = "site_alpha", .func_off = 0x59, .module = "app",
	  .file = "app.c", .line = 45 },
	{ .pc = 0x555500001300, .func = "waiter", .func_off = 0x5a, .module = "app",
	  .file = "app.c", .line = 97 },
	{ .pc = 0x7f0000005555, .module = "libc.so.6" }, /* no symbol */
};
static struct lt_sframe st2[] = {
	{ .pc = 0x7f0000001234, .func = "__lll_lock_wait", .func_off = 0x2b, .module = "libc.so.6",
	  .file = "futex-internal.h", .line = 146 },
	{ .pc = 0x555500001200, .func = "site_beta", .func_off = 0x59, .module = "app",
	  .file = "app.c", .line = 56 },
	{ .pc = 0x555500001400, .func = "odd;name", .module = "app" },
};
static struct lt_sframe st3[] = {
	{ .pc = 0x7f0000002222, .func = "__lll_lock_wake", .module = "libc.so.6",
	  .file = "lowlevellock.c", .line = 65 },
	{ .pc = 0x555500001500, .func = "hold_for", .module = "app", .file = "app.c", .line = 72 },
	{ .pc = 0x555500001600, .func = "holder", .module = "app", .file = "app.c", .line = 82 },
};
static struct lt_sframe st4[] = {
	{ .pc = 0x7f0000002222, .func = "__lll_lock_wake", .module = "libc.so.6",
	  .file = "lowlevellock.c", .line = 65 },
	{ .pc = 0x555500001500, .func = "hold_for", .module = "app", .file = "app.c", .line = 72 },
	{ .pc = 0x555500001700, .func = "holder", .module = "app", .file = "app.c", .line = 84 },
};

static void put(struct lt_writer *w, struct lt_event e)
{
	cr_assert_eq(lt_writer_event(w, &e), 0);
}

/* tid waits on LOCK from t; the holder wakes it at t + wait_ns (its
 * FUTEX_ENTER written at the wake-up); the wait lasts wait_ns + 400. */
static void wait_woken(struct lt_writer *w, struct lt_stackbuf *sb, uint32_t tid, uint64_t t,
		       uint64_t wait_ns, uint32_t stack, uint32_t release_stack)
{
	put(w, lt_ev_futex(t, tid, 0, FUTEX_WAIT_PRIVATE, LOCK, 2, -1, 0));
	put(w, lt_ev_switch(t + 1000, 0, tid, PID, 1, 0, 0, "w", "swapper/0"));
	uint64_t tw = t + wait_ns;
	struct lt_event wk = lt_ev_futex(tw, HOLDER, 1, FUTEX_WAKE_PRIVATE, LOCK, 1, -1, 0);
	wk.h.flags |= LT_F_AT_WAKE;
	put(w, wk);
	put(w, lt_ev_waking(tw + 100, tid, 1, HOLDER, PID, 0, 0, "holder"));
	put(w, lt_ev_exit(tw + 200, HOLDER, 1, 202, 1));
	put(w, lt_ev_switch(tw + 300, 0, 0, 0, 0, tid, PID, "swapper/0", "w"));
	put(w, lt_ev_exit(tw + 400, tid, 0, 202, 0));
	struct lt_stack_ref r = { .tid = (int32_t)tid, .ts = t, .stack_id = stack,
				  .role = LT_STACK_WAITER, .delay_ns = 1000 };
	lt_stacks_put_ref(sb, &r);
	struct lt_stack_ref rw = { .tid = HOLDER, .ts = tw, .stack_id = release_stack,
				   .role = LT_STACK_WAKER };
	lt_stacks_put_ref(sb, &rw);
}

/* waits: WA 3 ms (release stack 3), WB 5 ms (4), WA 4 ms (4) */
static void make_trace(const char *path)
{
	struct lt_writer *w;
	struct lt_header h = { .pid = PID, .ncpus = 2 };
	struct lt_thread_info th[3] = { { .tid = WA, .comm = "wa", .sc_nr = -2 },
					{ .tid = WB, .comm = "wb", .sc_nr = -2 },
					{ .tid = HOLDER, .comm = "holder", .sc_nr = -2 } };
	cr_assert_eq(lt_writer_open(&w, path, 1), 0);
	snprintf(h.comm, sizeof(h.comm), "app");
	h.threads = malloc(sizeof(th));
	memcpy(h.threads, th, sizeof(th));
	h.nthreads = 3;
	cr_assert_eq(lt_writer_header(w, &h), 0);
	free(h.threads);
	struct lt_stackbuf sb = { 0 };
	struct lt_stack s1 = { .id = 1, .tgid = PID, .nframes = 4, .frames = st1 };
	struct lt_stack s2 = { .id = 2, .tgid = PID, .nframes = 3, .frames = st2 };
	struct lt_stack s3 = { .id = 3, .tgid = PID, .nframes = 3, .frames = st3 };
	struct lt_stack s4 = { .id = 4, .tgid = PID, .nframes = 3, .frames = st4 };
	lt_stacks_put_stack(&sb, &s1);
	lt_stacks_put_stack(&sb, &s2);
	lt_stacks_put_stack(&sb, &s3);
	lt_stacks_put_stack(&sb, &s4);
	wait_woken(w, &sb, WA, T0 + 10000, 3000000, 1, 3);
	wait_woken(w, &sb, WB, T0 + 10000000, 5000000, 2, 4);
	wait_woken(w, &sb, WA, T0 + 30000000, 4000000, 1, 4);
	cr_assert(!sb.oom);
	cr_assert_eq(lt_writer_section(w, LT_CHUNK_STACKS, sb.p, sb.len), 0);
	lt_stackbuf_free(&sb);
	struct lt_stats st = { .start_ns = T0, .end_ns = T0 + 100000000, .ncpus = 2,
			       .exit_status = -1 };
	cr_assert_eq(lt_writer_stats(w, &st), 0);
	cr_assert_eq(lt_writer_close(w), 0);
}

/* The profile of the synthetic trace in format, into a malloc'd buffer */
static char *profile(int format, size_t *len)
{
	char path[TL_PATH_MAX], err[512];
	tl_tmp_path(path, sizeof(path), "profile");
	make_trace(path);
	FILE *f = tmpfile();
	cr_assert(f);
	int rc = lt_report_profile_fmt(path, f, 0, format, err, sizeof(err));
	cr_assert_eq(rc, 0, "profile: %s", err);
	long n = ftell(f);
	cr_assert_gt(n, 0);
	char *buf = malloc((size_t)n + 1);
	rewind(f);
	cr_assert_eq(fread(buf, 1, (size_t)n, f), (size_t)n);
	buf[n] = 0;
	*len = (size_t)n;
	fclose(f);
	cr_assert_str_empty(err);
	unlink(path);
	return buf;
}

Test(stacks, profile_text_ranks_waiting_and_releasing_stacks)
{
	size_t len;
	char *out = profile(LT_PROFILE_TEXT, &len);
	/* waiting: stack 1 (3 + 4 ms), then stack 2 (5 ms) */
	const char *w1 = strstr(out, "#1  7.0 ms in 2 waits (average 3.50 ms, longest 4.00 ms)  "
				"futex 0x7f0000000100, process 1000\n"
				"      __lll_lock_wait+0x2b (futex-internal.h:146) [libc.so.6]\n"
				"      site_alpha+0x59 (app.c:45) [app]\n");
	cr_assert(w1, "%s", out);
	const char *w2 = strstr(out, "#2  5.0 ms in 1 wait (average 5.00 ms, longest 5.00 ms)  "
				"futex 0x7f0000000100, process 1000\n"
				"      __lll_lock_wait+0x2b (futex-internal.h:146) [libc.so.6]\n"
				"      site_beta+0x59 (app.c:56) [app]\n");
	cr_assert(w2 && w2 > w1, "%s", out);
	/* releasing: stack 4 ended the 5 and 4 ms waits, stack 3 the 3 ms */
	const char *rel = strstr(out, "\nWhere the lock was held:");
	cr_assert(rel && rel > w2, "%s", out);
	cr_assert(strstr(rel, "  3 of 3 futex waits ended by a wake-up from a call have the "
			 "waker's stack: 12.0 of 12.0 ms of waiting\n"), "%s", rel);
	const char *r1 = strstr(rel, "#1  9.0 ms of waiting ended by 2 releases (average 4.50 ms, "
				"longest 5.00 ms)  futex 0x7f0000000100, process 1000\n"
				"      __lll_lock_wake+0x0 (lowlevellock.c:65) [libc.so.6]\n"
				"      hold_for+0x0 (app.c:72) [app]\n"
				"      holder+0x0 (app.c:84) [app]\n");
	cr_assert(r1, "%s", rel);
	const char *r2 = strstr(rel, "#2  3.0 ms of waiting ended by 1 release (average 3.00 ms, "
				"longest 3.00 ms)  futex 0x7f0000000100, process 1000\n"
				"      __lll_lock_wake+0x0 (lowlevellock.c:65) [libc.so.6]\n"
				"      hold_for+0x0 (app.c:72) [app]\n"
				"      holder+0x0 (app.c:82) [app]\n");
	cr_assert(r2 && r2 > r1, "%s", rel);
	cr_assert_null(strstr(rel, "#3"), "%s", rel);
	free(out);
}
