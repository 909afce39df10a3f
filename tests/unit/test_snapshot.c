/* Unit tests of the snapshot library's pure parts: /proc text parsers,
 * futex op decoding, syscall classification, fd-table formats and the JSON
 * writer's escaping.  No root, no live process. */
#include <criterion/criterion.h>
#include <errno.h>
#include <inttypes.h>
#include <pthread.h>
#include <sched.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/syscall.h>
#include <unistd.h>

#include "lockmodel.h"
#include "lt_test.h"
#include "snapshot.h"
#include "snapshot_int.h"
#include "target.h"

Test(snapshot_parse, syscall_line_futex)
{
	struct lt_sc_line l;
	cr_assert_eq(lt_parse_syscall_line("202 0x5603800a90a0 0x80 0x2 0x0 0x0 0x0 0x7f9bf6645ea8 0x7f9bf66d012b\n", &l), 0);
	cr_assert_eq(l.state, LT_SC_IN_SYSCALL);
	cr_assert_eq(l.nr, 202);
	cr_assert_eq(l.args[0], 0x5603800a90a0ull);
	cr_assert_eq(l.args[1], 0x80);
	cr_assert_eq(l.args[2], 2);
	cr_assert_eq(l.args[5], 0);
	cr_assert_eq(l.sp, 0x7f9bf6645ea8ull);
	cr_assert_eq(l.pc, 0x7f9bf66d012bull);
}

Test(snapshot_parse, syscall_line_running_and_not_in_syscall)
{
	struct lt_sc_line l;
	cr_assert_eq(lt_parse_syscall_line("running\n", &l), 0);
	cr_assert_eq(l.state, LT_SC_RUNNING);
	cr_assert_eq(l.nr, -1);
	cr_assert_eq(lt_parse_syscall_line("-1 0x7ffd1234 0x401000\n", &l), 0);
	cr_assert_eq(l.state, LT_SC_NOT_IN_SYSCALL);
	cr_assert_eq(l.sp, 0x7ffd1234);
	cr_assert_eq(l.pc, 0x401000);
}

Test(snapshot_parse, syscall_line_garbage)
{
	struct lt_sc_line l;
	cr_assert_eq(lt_parse_syscall_line("", &l), -EINVAL);
	cr_assert_eq(lt_parse_syscall_line("hello", &l), -EINVAL);
	cr_assert_eq(lt_parse_syscall_line("202 0x1 0x2", &l), -EINVAL); /* truncated */
	cr_assert_eq(lt_parse_syscall_line("-1 0x1", &l), -EINVAL);
	cr_assert_eq(lt_parse_syscall_line("-5 0x1 0x2", &l), -EINVAL);
	cr_assert_eq(lt_parse_syscall_line(NULL, &l), -EINVAL);
	cr_assert_eq(l.state, LT_SC_UNREADABLE);
}

Test(snapshot_parse, stat_comm_with_parens_and_spaces)
{
	char comm[64], st;
	unsigned long long flags;
	const char *line = "812 (evil) (S x) R 1 812 812 0 -1 4194560 100 0 0 0 1 2 0 0 20 0 3 0\n";
	cr_assert_eq(lt_parse_stat(line, comm, sizeof(comm), &st), 0);
	cr_assert_str_eq(comm, "evil) (S x");
	cr_assert_eq(st, 'R');
	cr_assert_eq(lts_parse_stat_field(line, 4, &flags), 0);
	cr_assert_eq(flags, 1);
	cr_assert_eq(lts_parse_stat_field(line, 9, &flags), 0);
	cr_assert_eq(flags, 4194560);
	cr_assert_eq(lt_parse_stat("garbage", comm, sizeof(comm), &st), -EINVAL);
	/* a comm longer than the buffer is cut, not overflowed */
	char small[4];
	cr_assert_eq(lt_parse_stat("1 (abcdefgh) S 0", small, sizeof(small), &st), 0);
	cr_assert_str_eq(small, "abc");
}

Test(snapshot_parse, sched_exec_start)
{
	const char *sched =
		"dl (3397, #threads: 3)\n"
		"-------------------------------------------------------------------\n"
		"se.exec_start                                :        360357.586529\n"
		"se.vruntime                                  :           135.769613\n";
	int64_t ns = 0;
	cr_assert_eq(lt_parse_sched_exec_start(sched, &ns), 0);
	cr_assert_eq(ns, 360357586529LL);
	cr_assert_eq(lt_parse_sched_exec_start("se.vruntime : 1.0\n", &ns), -ENOENT);
	cr_assert_eq(lt_parse_sched_exec_start("se.exec_start : 12\n", &ns), 0);
	cr_assert_eq(ns, 12000000LL);
}

Test(snapshot_futex, op_names)
{
	static const struct {
		uint32_t op;
		const char *name;
	} cases[] = {
		{ 0x80, "FUTEX_WAIT_PRIVATE" },
		{ 0, "FUTEX_WAIT" },
		{ 0x189, "FUTEX_WAIT_BITSET_PRIVATE|FUTEX_CLOCK_REALTIME" },
		{ 0x109, "FUTEX_WAIT_BITSET|FUTEX_CLOCK_REALTIME" },
		{ 6 | 128, "FUTEX_LOCK_PI_PRIVATE" },
		{ 13, "FUTEX_LOCK_PI2" },
		{ 11 | 128, "FUTEX_WAIT_REQUEUE_PI_PRIVATE" },
		{ 0x7e, "FUTEX_0x7e" },
	};
	char b[96];
	for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		lt_futex_op_str(cases[i].op, b, sizeof(b));
		cr_assert_str_eq(b, cases[i].name, "op %#x", cases[i].op);
	}
}

Test(snapshot_futex, decode_args)
{
	struct lt_futex f = { 0 };
	uint64_t wait[6] = { 0x1000, 0x80, 2, 0, 0, 0 };
	lt_futex_decode_args(&f, wait);
	cr_assert_eq(f.uaddr, 0x1000);
	cr_assert_eq(f.cmd, 0);
	cr_assert(f.private_ && !f.clock_realtime && f.is_wait && !f.is_pi && !f.timeout_abs);
	cr_assert_eq(f.expected, 2);

	uint64_t bitset[6] = { 0x2000, 0x189, 7, 0x7ffc0000, 0, 0xffffffff };
	lt_futex_decode_args(&f, bitset);
	cr_assert_eq(f.cmd, 9);
	cr_assert(f.clock_realtime && f.is_wait && f.timeout_abs);
	cr_assert_eq(f.bitset, 0xffffffffu);
	cr_assert_eq(f.timeout_ptr, 0x7ffc0000);

	uint64_t pi[6] = { 0x3000, 6 | 128, 0, 0, 0, 0 };
	lt_futex_decode_args(&f, pi);
	cr_assert(f.is_pi && f.is_wait);

	uint64_t wake[6] = { 0x3000, 1 | 128, 1, 0, 0, 0 };
	lt_futex_decode_args(&f, wake);
	cr_assert(!f.is_wait && !f.is_pi);

	uint64_t f2[6] = { 0x4000, 5, 0xffffffff, 2 | 128, 0, 1 };
	lts_futex2_decode_args(&f, f2);
	cr_assert_eq(f.cmd, -1);
	cr_assert(f.is_wait && f.private_ && !f.clock_realtime);
	cr_assert_eq(f.expected, 5);
}

Test(snapshot_parse, syscall_names_and_kinds)
{
	cr_assert_str_eq(lt_syscall_name(202), "futex");
	cr_assert_str_eq(lt_syscall_name(0), "read");
	cr_assert_str_eq(lt_syscall_name(455), "futex_wait");
	cr_assert_str_eq(lt_syscall_name(281), "epoll_pwait");
	cr_assert_null(lt_syscall_name(-1));
	cr_assert_null(lt_syscall_name(100000));
	static const struct {
		long nr;
		enum lt_wait_kind kind;
	} kinds[] = {
		{ 202, LT_WAIT_FUTEX },
		{ 7, LT_WAIT_POLL },
		{ 23, LT_WAIT_POLL },
		{ 270, LT_WAIT_POLL },
		{ 232, LT_WAIT_POLL },
		{ 0, LT_WAIT_IO },
		{ 45, LT_WAIT_IO },
		{ 47, LT_WAIT_IO },
		{ 19, LT_WAIT_IO },
		{ 230, LT_WAIT_SLEEP },
		{ 61, LT_WAIT_CHILD },
		{ 39, LT_WAIT_OTHER },
		{ -1, LT_WAIT_NONE },
	};
	for (size_t i = 0; i < sizeof(kinds) / sizeof(kinds[0]); i++)
		cr_assert_eq(lt_syscall_wait_kind(kinds[i].nr), kinds[i].kind, "syscall %ld", kinds[i].nr);
}

/* splice and tee have an input and an output fd; which one they sleep on
 * the kernel stack says (as the kernel 6.x names it); vmsplice's one pipe
 * is written when it waits for space. */
Test(snapshot_fd, io_wait_fd_of_splice_tee_vmsplice)
{
	static const struct {
		long nr;
		uint64_t a0, a1, a2;
		const char *top;
		int fd, dir;
	} c[] = {
		{ 275, 3, 0, 6, "pipe_wait_readable+0x11e/0x140", 3, 1 },
		{ 275, 3, 0, 6, "pipe_wait_writable+0xf7/0x160", 6, 2 },
		{ 275, 3, 0, 6, "wait_for_space+0x3b/0xc0", 6, 2 },
		{ 275, 3, 0, 6, "sk_wait_data+0x11/0x20", 3, 1 },
		{ 276, 3, 6, 4096, "pipe_wait_readable+0x11e/0x140", 3, 1 },
		{ 276, 3, 6, 4096, "pipe_wait_writable+0xf7/0x160", 6, 2 },
		{ 278, 6, 0, 1, "pipe_wait_writable+0xf7/0x160", 6, 2 },
		{ 278, 6, 0, 1, "pipe_wait_readable+0x11e/0x140", 6, 3 },
		{ 0, 7, 0, 1, "pipe_wait_writable+0xf7/0x160", 7, 3 }, /* read: arg 0, io_dir's */
	};
	for (size_t i = 0; i < sizeof(c) / sizeof(c[0]); i++) {
		struct lt_thread t = { 0 };
		t.sc.nr = c[i].nr;
		t.sc.args[0] = c[i].a0;
		t.sc.args[1] = c[i].a1;
		t.sc.args[2] = c[i].a2;
		lt_strlist_add(&t.kstack, "%s", c[i].top);
		int dir = 0;
		cr_assert_eq(lt_io_wait_fd(&t, &dir), c[i].fd, "case %zu", i);
		cr_assert_eq(dir, c[i].dir, "case %zu", i);
		lt_thread_clear(&t);
	}
	cr_assert_eq(lt_syscall_wait_kind(278), LT_WAIT_IO, "vmsplice");
}

Test(snapshot_fd, epoll_fdinfo)
{
	const char *text = "pos:\t0\nflags:\t02\nmnt_id:\t15\nino:\t1057\n"
			   "tfd:        4 events:       19 data:                4  pos:0 ino:6a6b sdev:8\n"
			   "tfd:        5 events:        1 data:                5  pos:0 ino:6a6c sdev:e\n";
	int fds[4];
	unsigned ev[4];
	cr_assert_eq(lts_parse_epoll_fdinfo(text, fds, ev, 4), 2);
	cr_assert_eq(fds[0], 4);
	cr_assert_eq(ev[0], 0x19);
	cr_assert_eq(fds[1], 5);
	cr_assert_eq(ev[1], 1);
	cr_assert_eq(lts_parse_epoll_fdinfo(text, fds, ev, 1), 1);
}

Test(snapshot_fd, inet_addresses)
{
	char b[80];
	cr_assert_eq(lts_format_inet("0100007F:1F90", b, sizeof(b)), 0);
	cr_assert_str_eq(b, "127.0.0.1:8080");
	cr_assert_eq(lts_format_inet("00000000000000000000000001000000:0050", b, sizeof(b)), 0);
	cr_assert_str_eq(b, "[::1]:80");
	cr_assert_eq(lts_format_inet("0000000000000000FFFF00000100007F:0016", b, sizeof(b)), 0);
	cr_assert_str_eq(b, "[::ffff:127.0.0.1]:22");
	cr_assert_eq(lts_format_inet("00000000000000000000000000000000:0000", b, sizeof(b)), 0);
	cr_assert_str_eq(b, "[::]:0");
	cr_assert_eq(lts_format_inet("B80D0120000000000000000001000000:01BB", b, sizeof(b)), 0);
	cr_assert_str_eq(b, "[2001:db8::1]:443");
	cr_assert_eq(lts_format_inet("zzz", b, sizeof(b)), -EINVAL);
}

Test(snapshot_util, strlist_grows)
{
	struct lt_strlist l = { 0 };
	for (int i = 0; i < 100; i++)
		cr_assert_eq(lt_strlist_add(&l, "item %d", i), 0);
	cr_assert_eq(l.n, 100);
	cr_assert_str_eq(l.v[0], "item 0");
	cr_assert_str_eq(l.v[99], "item 99");
	lt_strlist_free(&l);
	cr_assert_eq(l.n, 0);
}

Test(snapshot_util, duration_format)
{
	char b[32];
	lts_fmt_duration(14.2, b, sizeof(b));
	cr_assert_str_eq(b, "14 s");
	lts_fmt_duration(2.34, b, sizeof(b));
	cr_assert_str_eq(b, "2.3 s");
	lts_fmt_duration(0.12, b, sizeof(b));
	cr_assert_str_eq(b, "120 ms");
}

/* The JSON document of a one-thread synthetic snapshot. */
static char *json_of(struct lt_snapshot *s)
{
	char *buf;
	size_t len;
	cr_assert_eq(lt_snapshot_to_json_buf(s, &buf, &len), 0);
	cr_assert_eq(strlen(buf), len);
	return buf;
}

Test(snapshot_json, escapes_thread_names)
{
	struct lt_snapshot *s = calloc(1, sizeof(*s));
	s->pid = 5;
	snprintf(s->comm, sizeof(s->comm), "prog");
	s->threads = calloc(1, sizeof(*s->threads));
	s->n_threads = 1;
	struct lt_thread *t = &s->threads[0];
	t->tid = 5;
	t->state = 'S';
	/* quote, backslash, newline, control byte, invalid UTF-8 (U+FFFD, as
	 * in every output), valid UTF-8 */
	snprintf(t->comm, sizeof(t->comm), "a\"b\\c\nd\x01\xff\xc3\xa9");
	char *j = json_of(s);
	cr_assert_not_null(strstr(j, "\"comm\":\"a\\\"b\\\\c\\nd\\u0001\\ufffd\xc3\xa9\""), "%s", j);
	/* nothing raw below 0x20 except the newlines between threads */
	for (const char *p = j; *p; p++)
		cr_assert((unsigned char)*p >= 0x20 || *p == '\n');
	free(j);
	lt_snapshot_free(s);
}

Test(snapshot_json, carries_syscall_args_and_blocked_time)
{
	struct lt_snapshot *s = calloc(1, sizeof(*s));
	s->pid = 7;
	s->threads = calloc(1, sizeof(*s->threads));
	s->n_threads = 1;
	struct lt_thread *t = &s->threads[0];
	t->tid = 8;
	t->state = 'S';
	cr_assert_eq(lt_parse_syscall_line("202 0x1000 0x80 0x2 0x0 0x0 0x0 0x7ff0 0x7ff8", &t->sc), 0);
	t->wait = LT_WAIT_FUTEX;
	lt_futex_decode_args(&t->futex, t->sc.args);
	t->futex.word_ok = true;
	t->futex.word = 2;
	t->idle_s = 2.5;
	t->idle_src = LT_IDLE_SCHED_EXEC_START;
	lt_snapshot_diagnose(s, NULL);
	char *j = json_of(s);
	cr_assert_not_null(strstr(j, "\"tid\":8"), "%s", j);
	cr_assert_not_null(strstr(j, "\"nr\":202"));
	cr_assert_not_null(strstr(j, "\"args\":[\"0x1000\",\"0x80\",\"0x2\",\"0x0\",\"0x0\",\"0x0\"]"), "%s", j);
	cr_assert_not_null(strstr(j, "\"blocked_s\":2.500000"));
	cr_assert_not_null(strstr(j, "\"blocked_source\":\"sched_exec_start\""));
	cr_assert_not_null(strstr(j, "\"op_name\":\"FUTEX_WAIT_PRIVATE\""));
	cr_assert_not_null(strstr(j, "\"schema\":\"locktrace.snapshot/1\""));
	free(j);
	lt_snapshot_free(s);
}

Test(snapshot_text, escapes_control_bytes)
{
	struct lt_snapshot *s = tl_snapshot_one(5, "x\nthread 1 (fake)");
	char *buf = TL_PRINTED(NULL, lt_snapshot_print_text, s);
	cr_assert_not_null(strstr(buf, "thread 5 (x\\x0athread 1 (fake))"), "%s", buf);
	free(buf);
	lt_snapshot_free(s);
}

static char *text_of(const struct lt_snapshot *s)
{
	char *buf = TL_PRINTED(NULL, lt_snapshot_print_text, s);
	return buf;
}

/* A two-thread snapshot with every part the text shows: notes, verdicts
 * with evidence, a runtime lock, kernel and user stacks, a lock state, an
 * acquire path, names that need escaping. */
static struct lt_snapshot *rich_snapshot(void)
{
	struct lt_snapshot *s = calloc(1, sizeof(*s));
	s->pid = 40;
	snprintf(s->comm, sizeof(s->comm), "srv\"x");
	s->exe = strdup("/usr/bin/srv");
	s->occasion = "end";
	s->taken_realtime_ns = 1796010933750034878LL; /* beyond a double's 53 bits */
	s->taken_monotonic_ns = 1779874069159LL;
	s->duration_ns = 79075126;
	s->kstack_available = true;
	lt_strlist_add(&s->notes, "se.exec_start lags by %d s", 3);
	s->sched_offset_ns = calloc(2, sizeof(*s->sched_offset_ns));
	s->n_cpus = 2;
	s->sched_offset_ns[0] = 3898652614;
	s->sched_offset_ns[1] = INT64_MIN;
	s->threads = calloc(2, sizeof(*s->threads));
	s->n_threads = 2;
	struct lt_thread *t = &s->threads[0];
	t->tid = 41;
	snprintf(t->comm, sizeof(t->comm), "w\n1");
	t->state = 'S';
	t->cpu = 1;
	t->idle_s = 2.5;
	t->idle_src = LT_IDLE_SCHED_EXEC_START;
	cr_assert_eq(lt_parse_syscall_line("202 0x1000 0x80 0x2 0x0 0x0 0x0 0x7ff0 0x7ff8", &t->sc), 0);
	t->sc_name = "futex";
	t->wait = LT_WAIT_FUTEX;
	lt_futex_decode_args(&t->futex, t->sc.args);
	t->futex.lock_state = strdup("value 0, 2 waiters");
	t->futex.timeout_ptr = 0x7ff100;
	t->futex.timeout_ok = true;
	t->futex.timeout_sec = 12;
	t->futex.timeout_nsec = 5000;
	t->futex.mutex_ok = true;
	t->futex.mutex_owner = 42;
	t->futex.owner_kind = LT_OWNER_MUTEX;
	t->futex.owner = 42;
	t->futex.rtlock = 1;
	t->detail = strdup("futex(0x1000 <L>, FUTEX_WAIT_PRIVATE, 2) word=2");
	t->acquire = "pthread_mutex_lock";
	t->kstack_status = LT_KSTACK_OK;
	lt_strlist_add(&t->kstack, "futex_do_wait+0x46/0x90");
	lt_strlist_add(&t->kstack, "do_syscall_64+0x71/0x290");
	t->regs_src = LT_REGS_CALLER;
	t->frames = calloc(2, sizeof(*t->frames));
	t->n_frames = 2;
	t->frames[0] = (struct lt_frame){ .pc = 0x7f0012, .activation = true, .func = strdup("__lll_lock_wait"),
					  .func_off = 43, .module = strdup("libc.so.6"),
					  .file = strdup("../nptl/lowlevellock.c"), .line = 49 };
	t->frames[1] = (struct lt_frame){ .pc = 0x5500aa, .func = NULL, .module = strdup("srv") };
	t->ustack_end = strdup("[unwind stopped: no CFI in srv]");
	lt_strlist_add(&t->notes, "moved during the snapshot");
	t = &s->threads[1];
	t->tid = 42;
	snprintf(t->comm, sizeof(t->comm), "main");
	t->state = 'R';
	t->idle_src = LT_IDLE_RUNNING;
	t->sc.state = LT_SC_RUNNING;
	t->kstack_status = LT_KSTACK_UNAVAILABLE;
	s->verdicts = calloc(1, sizeof(*s->verdicts));
	s->n_verdicts = 1;
	s->verdicts[0].kind = LT_VERDICT_CONVOY;
	s->verdicts[0].summary = strdup("CONVOY on L: 1 waiter");
	lt_strlist_add(&s->verdicts[0].evidence, "thread 41 waits");
	s->rtlocks = calloc(1, sizeof(*s->rtlocks));
	s->n_rtlocks = 1;
	s->rtlocks[0] = (struct lt_rtlock){ .model = "cpython", .kind = "GIL", .name = strdup("_PyRuntime.gil"),
					    .version = strdup("CPython 3.11.2"), .base = 0x1000, .held = 1,
					    .waiters = 2, .holder = 42, .holder_how = strdup("last_holder") };
	lt_strlist_add(&s->rtlocks[0].facts, "locked=1");
	return s;
}

/* A snapshot stored in a trace prints, read back, as it printed live. */
Test(snapshot_json, read_back_prints_as_it_printed_live)
{
	struct lt_snapshot *s = rich_snapshot(), *back = NULL;
	char *j = json_of(s), err[200];
	cr_assert_eq(lt_snapshot_from_json(j, strlen(j), &back, err, sizeof(err)), 0, "%s", err);
	cr_assert_eq(back->taken_realtime_ns, s->taken_realtime_ns);
	cr_assert_str_eq(back->occasion, "end");
	char *a = text_of(s), *b = text_of(back);
	cr_assert_str_eq(b, a);
	/* and its JSON again is the same document */
	char *j2 = json_of(back);
	cr_assert_str_eq(j2, j);
	free(a);
	free(b);
	free(j);
	free(j2);
	lt_snapshot_free(s);
	lt_snapshot_free(back);
}

/* The signals the process catches (SigCgt) are kept read back, on the
 * snapshot and each of its threads (the verdicts read them from a thread);
 * absent when not read, and then not read back either. */
Test(snapshot_json, read_back_keeps_the_signals_caught)
{
	struct lt_snapshot *s = rich_snapshot(), *back = NULL;
	s->sig_caught = (1ull << 14) | (1ull << 1);
	s->sig_caught_ok = true;
	char *j = json_of(s), err[200];
	cr_assert(strstr(j, "\"signals_caught\":\"0x4002\""), "%s", j);
	cr_assert_eq(lt_snapshot_from_json(j, strlen(j), &back, err, sizeof(err)), 0, "%s", err);
	cr_expect(back->sig_caught_ok && back->sig_caught == s->sig_caught);
	for (size_t i = 0; i < back->n_threads; i++)
		cr_expect(back->threads[i].sig_caught_ok && back->threads[i].sig_caught == s->sig_caught);
	free(j);
	lt_snapshot_free(s);
	lt_snapshot_free(back);
	s = rich_snapshot();
	j = json_of(s);
	cr_assert_null(strstr(j, "signals_caught"), "absent when not read");
	cr_assert_eq(lt_snapshot_from_json(j, strlen(j), &back, err, sizeof(err)), 0, "%s", err);
	cr_expect(!back->sig_caught_ok && !back->threads[0].sig_caught_ok);
	free(j);
	lt_snapshot_free(s);
	lt_snapshot_free(back);
}

/* A snapshot taken without user stacks keeps saying so read back: a
 * stored one diagnosed again must not claim "no lock involved". */
Test(snapshot_json, read_back_keeps_that_user_stacks_were_not_read)
{
	struct lt_snapshot *s = rich_snapshot(), *back = NULL;
	s->ustack_skipped = true;
	char *j = json_of(s), err[200];
	cr_assert(strstr(j, "\"user_stacks_skipped\":true"), "%s", j);
	cr_assert_eq(lt_snapshot_from_json(j, strlen(j), &back, err, sizeof(err)), 0, "%s", err);
	cr_assert(back->ustack_skipped);
	free(j);
	lt_snapshot_free(s);
	lt_snapshot_free(back);
	s = rich_snapshot();
	j = json_of(s);
	cr_assert_null(strstr(j, "user_stacks_skipped"), "absent when they were read");
	free(j);
	lt_snapshot_free(s);
}

/* The socket timeouts of blocking socket reads (SO_RCVTIMEO, read by
 * BPF) come back from a stored snapshot: set (its length, or null when the
 * kernel's HZ was unread), none, unknown (not read); a wait that is no
 * socket I/O has none to come back. */
Test(snapshot_json, read_back_keeps_socket_timeouts)
{
	static const struct {
		uint8_t timeo;
		int64_t ms;
	} want[4] = {
		{ LT_SOCK_TIMEO_SET, 20000 },
		{ LT_SOCK_TIMEO_SET, -1 },
		{ LT_SOCK_TIMEO_NONE, 0 },
		{ LT_SOCK_TIMEO_UNKNOWN, 0 },
	};
	struct lt_snapshot *s = rich_snapshot(), *back = NULL;
	struct lt_thread *nt = realloc(s->threads, 6 * sizeof(*nt));
	cr_assert_not_null(nt);
	s->threads = nt;
	for (int i = 0; i < 4; i++) {
		struct lt_thread *t = &s->threads[2 + i];
		memset(t, 0, sizeof(*t));
		t->tid = 50 + i;
		snprintf(t->comm, sizeof(t->comm), "rd%d", i);
		t->state = 'S';
		t->idle_src = LT_IDLE_UNKNOWN;
		t->idle_s = -1;
		cr_assert_eq(lt_parse_syscall_line("45 0x3 0x7ffc00 0x64 0x0 0x0 0x0 0x7ff0 0x7ff8", &t->sc), 0);
		t->sc_name = "recvfrom";
		t->wait = LT_WAIT_IO;
		t->fdw.epfd = -1;
		t->fdw.io = (struct lt_fd){ .fd = 3, .kind = LT_FD_SOCKET, .target = strdup("socket:[77]"),
					    .desc = strdup("tcp 127.0.0.1:5000 -> 127.0.0.1:5001") };
		t->fdw.sock_timeo = want[i].timeo;
		t->fdw.sock_timeo_ms = want[i].ms;
		t->detail = strdup("recvfrom(fd 3: socket:[77])");
		t->kstack_status = LT_KSTACK_UNAVAILABLE;
	}
	s->n_threads = 6;
	char *j = json_of(s), err[200];
	cr_assert(strstr(j, "\"socket_timeout\":\"set\",\"socket_timeout_ms\":20000"), "%s", j);
	cr_assert_eq(lt_snapshot_from_json(j, strlen(j), &back, err, sizeof(err)), 0, "%s", err);
	cr_assert_eq(back->n_threads, 6);
	for (int i = 0; i < 4; i++) {
		const struct lt_thread *t = &back->threads[2 + i];
		cr_expect_eq(t->fdw.sock_timeo, want[i].timeo, "thread %d: %d", (int)t->tid, t->fdw.sock_timeo);
		cr_expect_eq(t->fdw.sock_timeo_ms, want[i].ms, "thread %d: %" PRId64, (int)t->tid, t->fdw.sock_timeo_ms);
	}
	cr_expect_eq(back->threads[0].fdw.sock_timeo, LT_SOCK_TIMEO_NOT_READ, "a futex wait has none");
	/* and its JSON again is the same document */
	char *j2 = json_of(back);
	cr_assert_str_eq(j2, j);
	free(j);
	free(j2);
	lt_snapshot_free(s);
	lt_snapshot_free(back);
}

Test(snapshot_json, read_back_refuses_what_is_not_a_snapshot)
{
	struct lt_snapshot *back = (struct lt_snapshot *)1;
	char err[200];
	cr_assert_eq(lt_snapshot_from_json("{\"schema\":\"x/1\"}", 16, &back, err, sizeof(err)), -2);
	cr_assert_null(back);
	cr_assert(strstr(err, "not a locktrace.snapshot/1 document (schema x/1)"), "%s", err);
	const char *nothreads = "{\"schema\":\"locktrace.snapshot/1\",\"threads\":{}}";
	cr_assert_eq(lt_snapshot_from_json(nothreads, strlen(nothreads), &back, err, sizeof(err)), -2);
	cr_assert(strstr(err, "(no threads array)"), "%s", err);
	cr_assert_eq(lt_snapshot_from_json("{\"a\":", 5, &back, err, sizeof(err)), -1);
	cr_assert(strstr(err, "not JSON"), "%s", err);
}

/* Traces written before snapshots carried their occasion: the order says. */
Test(snapshot_json, occasion_of_an_unlabelled_stored_snapshot)
{
	cr_assert_str_eq(lt_snapshot_occasion("stall", 0, 1, 0), "stall");
	cr_assert_str_eq(lt_snapshot_occasion(NULL, 0, 2, 0), "start");
	cr_assert_str_eq(lt_snapshot_occasion(NULL, 1, 2, 0), "end");
	cr_assert_str_eq(lt_snapshot_occasion(NULL, 1, 3, 0), "trigger");
	cr_assert_str_eq(lt_snapshot_occasion(NULL, 0, 1, 1), "dump");
}

/* A thread's time since it last ran takes the scheduler clock offset of
 * the CPU it last ran on: the CPUs' clocks lag by different amounts (0.7 s
 * apart seen on this VM, which put a recorder's "had waited" 0.7 s off
 * when it used its own CPU's for every thread).  A CPU not measured or
 * not known: the largest measured, which never lengthens the time. */
Test(snapshot, sched_offset_is_the_threads_cpus)
{
	const int64_t off[3] = { 9182000000LL, INT64_MIN, 9895000000LL };
	cr_assert_eq(lt_sched_offset_of(off, 3, 0), 9182000000LL);
	cr_assert_eq(lt_sched_offset_of(off, 3, 2), 9895000000LL);
	cr_assert_eq(lt_sched_offset_of(off, 3, 1), 9895000000LL, "not measured: the largest");
	cr_assert_eq(lt_sched_offset_of(off, 3, -1), 9895000000LL, "unknown CPU: the largest");
	cr_assert_eq(lt_sched_offset_of(off, 3, 7), 9895000000LL, "beyond the table: the largest");
	const int64_t none[2] = { INT64_MIN, INT64_MIN };
	cr_assert_eq(lt_sched_offset_of(none, 2, 0), 0);
	cr_assert_eq(lt_sched_offset_of(NULL, 0, 0), 0);
}

/* Measured on this machine, every CPU the test may run on has its own
 * offset, even when the caller's affinity is one CPU (taskset -c 0
 * locktrace ...), and the caller's affinity is as it was. */
Test(snapshot, sched_offsets_measured_on_every_cpu)
{
	long n = sysconf(_SC_NPROCESSORS_ONLN);
	if (n < 2)
		cr_skip_test("one CPU online: nothing to pin to");
	cpu_set_t saved, one, after;
	cr_assert_eq(sched_getaffinity(0, sizeof(saved), &saved), 0);
	CPU_ZERO(&one);
	CPU_SET(0, &one);
	cr_assert_eq(sched_setaffinity(0, sizeof(one), &one), 0);
	int64_t off[64];
	size_t m = lt_sched_clock_offsets(off, n < 64 ? (size_t)n : 64);
	cr_assert_eq(sched_getaffinity(0, sizeof(after), &after), 0);
	sched_setaffinity(0, sizeof(saved), &saved);
	cr_assert(CPU_EQUAL(&after, &one), "the caller's affinity was not restored");
	size_t want = 0;
	for (long c = 0; c < n && c < 64; c++)
		if (CPU_ISSET(c, &saved)) {
			want++;
			cr_assert_neq(off[c], INT64_MIN, "CPU %ld (the test's own) not measured", c);
		}
	cr_assert_geq(m, want);
}

static void *read_pipe_thread(void *arg)
{
	char c;
	return (void *)(intptr_t)read(*(int *)arg, &c, 1);
}

/* A flight dump's header keeps the threads' names only: the names-only
 * description reads no syscall (nor state, nor blocked time, whose CPU
 * clock measurement pins the caller to each CPU), while the full one of
 * the same process finds the thread asleep in read() of the pipe. */
Test(snapshot, describe_names_reads_no_syscall)
{
	int fds[2];
	pthread_t t;
	cr_assert_eq(pipe(fds), 0);
	cr_assert_eq(pthread_create(&t, NULL, read_pipe_thread, &fds[0]), 0);
	pthread_setname_np(t, "lt-names-rd");
	pid_t tid = 0;
	struct lt_header full = { 0 }, names = { 0 };
	/* until the reader is asleep in read(): at most 5 s */
	for (int i = 0; i < 500 && !tid; i++) {
		lt_header_free(&full);
		memset(&full, 0, sizeof(full));
		cr_assert_eq(lt_target_describe(getpid(), &full), 0);
		for (uint32_t k = 0; k < full.nthreads; k++)
			if (!strcmp(full.threads[k].comm, "lt-names-rd") && full.threads[k].sc_nr == SYS_read &&
			    full.threads[k].sc_args[0] == (uint64_t)fds[0])
				tid = full.threads[k].tid;
		if (!tid)
			usleep(10000);
	}
	cr_assert_neq(tid, 0, "the reader thread was never seen in read(fd %d)", fds[0]);
	cr_assert_eq(lt_target_describe_names(getpid(), &names), 0);
	cr_assert_eq(names.pid, getpid());
	cr_assert_eq(names.nthreads, full.nthreads);
	bool seen = false;
	for (uint32_t k = 0; k < names.nthreads; k++) {
		const struct lt_thread_info *ti = &names.threads[k];
		cr_assert_eq(ti->sc_nr, LT_SC_NR_UNKNOWN, "thread %d: syscall %" PRId64 " read", ti->tid, ti->sc_nr);
		cr_assert_eq(ti->blocked_ns, 0);
		cr_assert_eq(ti->state, 0);
		cr_assert_neq(ti->comm[0], 0, "thread %d has no name", ti->tid);
		if (ti->tid == tid) {
			seen = true;
			cr_assert_str_eq(ti->comm, "lt-names-rd");
		}
	}
	cr_assert(seen, "thread %d missing from the names-only description", tid);
	cr_assert_str_eq(names.comm, full.comm);
	cr_assert_str_eq(names.exe, full.exe);
	lt_header_free(&full);
	lt_header_free(&names);
	cr_assert_eq(write(fds[1], "x", 1), 1);
	pthread_join(t, NULL);
	close(fds[0]);
	close(fds[1]);
}

/* A runtime lock named by its object with the address in the name (a
 * Python Future, a Java FutureTask@0x..) is not followed by that address
 * again; a lock named otherwise gets its address after the name. */
Test(snapshot, runtime_lock_line_says_its_address_once)
{
	struct lt_snapshot *s = tl_snapshot_one(5, "py");
	struct lt_rtlock *l = lt_rtlock_push(&s->rtlocks, &s->n_rtlocks);
	cr_assert_not_null(l);
	l->kind = "concurrent.futures.Future (result)";
	l->name = strdup("concurrent.futures.Future at 0x7f00a0");
	l->base = 0x7f00a0;
	l = lt_rtlock_push(&s->rtlocks, &s->n_rtlocks);
	cr_assert_not_null(l);
	l->kind = "OCaml runtime lock";
	l->name = strdup("domain 0");
	l->base = 0x5000;
	size_t len;
	char *buf = TL_PRINTED(&len, lt_snapshot_print_text, s);
	cr_assert(strstr(buf, "runtime lock: concurrent.futures.Future (result) concurrent.futures.Future at 0x7f00a0"),
		  "%s", buf);
	cr_assert_null(strstr(buf, "0x7f00a0 at 0x7f00a0"), "%s", buf);
	cr_assert(strstr(buf, "runtime lock: OCaml runtime lock domain 0 at 0x5000"), "%s", buf);
	free(buf);
	lt_snapshot_free(s);
}

/* The waits for another thread to finish, by the lock kind a snapshot
 * gives them (and the report reads back): each runtime's call and what
 * else ends it; any other kind is none. */
Test(snapshot, done_kinds_by_their_lock_kind)
{
	const struct lt_done_kind *k = lt_done_kind_of(LT_KIND_PY_FUTURE);
	cr_assert(k && !strcmp(k->wait_call, "Future.result()") && !k->exit && !strcmp(k->other, "task runner"));
	k = lt_done_kind_of("java.util.concurrent FutureTask (get)");
	cr_assert(k && !strcmp(k->wait_call, "FutureTask.get()") && strstr(k->els, "cancel()"));
	k = lt_done_kind_of(LT_KIND_JAVA_JOIN);
	cr_assert(k && k->exit && !strcmp(k->other, "joined thread"));
	cr_assert_null(lt_done_kind_of("threading.Condition"));
	cr_assert_null(lt_done_kind_of(NULL));
}

/* restart_syscall resumes a sleep, a futex wait with a timeout or a poll
 * (with or without one): only a poll whose timeout argument, left in the
 * registers, is negative, and whose kernel stack is in do_restart_poll,
 * has no timer. */
Test(snapshot_parse, a_restarted_poll_with_no_timeout_is_untimed)
{
	uint64_t a[6] = { 0x7f0000001000, 1, 0xffffffff, 1, 0, 0 };
	const char *poll = "[<0>] poll_schedule_timeout.constprop.0+0x37/0x90\n[<0>] do_sys_poll+0x437/0x5c0\n"
			   "[<0>] do_restart_poll+0x54/0xa0\n";
	cr_expect(lt_restart_untimed_poll(219, a, NULL, poll));
	struct lt_strlist ks = { 0 };
	lt_strlist_add(&ks, "do_restart_poll+0x54/0xa0");
	cr_expect(lt_restart_untimed_poll(219, a, &ks, NULL), "from the parsed frames too");
	cr_expect(!lt_restart_untimed_poll(7, a, &ks, NULL), "not restart_syscall");
	a[2] = 5000;
	cr_expect(!lt_restart_untimed_poll(219, a, &ks, NULL), "a poll with a timeout is timed");
	a[2] = 0xffffffff;
	cr_expect(!lt_restart_untimed_poll(219, a, NULL, "[<0>] hrtimer_nanosleep_restart+0x10/0x20\n"),
		  "a sleep, its argument whatever");
	lt_strlist_free(&ks);
}

/* Which verdict kinds say their threads are stuck: one predicate for the
 * enum and for a stored snapshot's kind names, which the report, the
 * flight recorder and the wait-for verdicts all ask. */
Test(snapshot_json, stuck_verdict_kinds_by_enum_and_by_name)
{
	static const enum lt_verdict_kind stuck[] = { LT_VERDICT_DEADLOCK, LT_VERDICT_LOST_WAKEUP, LT_VERDICT_CONVOY,
						       LT_VERDICT_LOCK_WAIT, LT_VERDICT_WAIT_CHAIN, LT_VERDICT_STOPPED };
	static const enum lt_verdict_kind not_stuck[] = { LT_VERDICT_IDLE, LT_VERDICT_OK, LT_VERDICT_UNKNOWN };
	for (size_t i = 0; i < sizeof(stuck) / sizeof(stuck[0]); i++) {
		cr_expect(lt_verdict_kind_stuck(stuck[i]), "%s", lt_verdict_kind_name(stuck[i]));
		cr_expect(lt_verdict_kind_name_stuck(lt_verdict_kind_name(stuck[i])), "%s", lt_verdict_kind_name(stuck[i]));
	}
	for (size_t i = 0; i < sizeof(not_stuck) / sizeof(not_stuck[0]); i++) {
		cr_expect(!lt_verdict_kind_stuck(not_stuck[i]), "%s", lt_verdict_kind_name(not_stuck[i]));
		cr_expect(!lt_verdict_kind_name_stuck(lt_verdict_kind_name(not_stuck[i])));
	}
	cr_expect(!lt_verdict_kind_name_stuck(NULL));
	cr_expect(!lt_verdict_kind_name_stuck("lock"));
}
