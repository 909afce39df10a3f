/* Live tests of recording reads and writes of pipes (IO_ENTER flagged
 * LT_F_IO_PIPE, trace format 1.6) on programs we did not write: a shell
 * pipeline of dash and coreutils' head, launched under `locktrace record
 * -- sh -c ...`.  Ground truth: what the pipeline itself is (head reads its
 * stdin, the pipe; the subshell writes "hi\n" to its stdout, the same pipe,
 * after sleeping 1 s, so head is asleep in its read by then) and the bytes
 * it moves (a launched command's forks are followed).  Both recording modes: every call (the syscall tracepoints)
 * and --calls blocking (entries written at the sleep and at the wake-up).
 * Needs root. */
#include <criterion/criterion.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "json_read.h"
#include "locktrace/calls.h"
#include "lt_test.h"

#define SH_BIN "/bin/sh"
#define HEAD_BIN "/usr/bin/head"

static char trace[128];
static struct tl_proc pipeline;

static void cleanup(void)
{
	if (trace[0])
		unlink(trace);
	if (pipeline.pid > 0) {
		tl_kill_tree(pipeline.pid);
		tl_close(&pipeline);
	}
}

TestSuite(piperec_live, .fini = cleanup, .timeout = 60);

/* The tid whose EXEC event names COMM (the pipeline's processes are
 * single-threaded: tid = pid). */
static uint32_t exec_tid(const struct tl_trace *t, const char *comm)
{
	uint32_t tid = 0;
	for (size_t i = 0; i < t->n; i++)
		if (t->ev[i].h.kind == LT_EV_EXEC && !strcmp(t->ev[i].exec.comm, comm)) {
			cr_assert_eq(tid, 0, "two execs of %s", comm);
			tid = t->ev[i].h.tid;
		}
	cr_assert_neq(tid, 0, "no exec of %s in the trace", comm);
	return tid;
}

static void pipe_read_woken_by_its_writer(const char *mode)
{
	if (!tl_is_root())
		cr_skip_test("needs root: loads BPF programs");
	if (access(HEAD_BIN, X_OK) || access(SH_BIN, X_OK))
		cr_skip_test("%s or %s missing (Debian: coreutils, dash)", HEAD_BIN, SH_BIN);
	tl_tmp_path(trace, sizeof(trace), "piperec");
	char *argv[16];
	int n = 0;
	argv[n++] = LT_BIN;
	argv[n++] = "record";
	argv[n++] = "--no-status";
	argv[n++] = "-o";
	argv[n++] = trace;
	if (mode) {
		argv[n++] = "--calls";
		argv[n++] = (char *)mode;
	}
	argv[n++] = "--";
	argv[n++] = SH_BIN;
	argv[n++] = "-c";
	argv[n++] = "(sleep 1; echo hi) | " HEAD_BIN " -c 3 >/dev/null";
	argv[n] = NULL;
	cr_assert_eq(tl_run_to_end(argv, NULL, NULL, NULL, NULL), 0, "locktrace record -- sh -c ...");
	struct tl_trace t;
	tl_load_clean(&t, trace);
	cr_assert_eq(tl_total_lost(&t), 0);
	uint32_t head = exec_tid(&t, "head");

	/* head's read of its stdin: flagged a pipe's, fd 0; its return: the 3
	 * bytes; the thread that woke it inside the read: the writer, whose
	 * write of fd 1 is flagged a pipe's too */
	int reads = 0, exits3 = 0, in_read = 0;
	uint32_t waker = 0;
	for (size_t i = 0; i < t.n; i++) {
		const struct lt_event *e = &t.ev[i];
		if (e->h.kind == LT_EV_IO_ENTER && e->h.tid == head && e->io.nr == 0 && e->io.fd == 0 &&
		    !(e->h.flags & LT_F_AT_WAKE)) {
			cr_assert(e->h.flags & LT_F_IO_PIPE, "head's read of its stdin (a pipe) not flagged as a pipe's");
			reads++;
			in_read = 1;
		} else if (e->h.kind == LT_EV_SYS_EXIT && e->h.tid == head && in_read) {
			cr_assert_eq(e->exit.nr, 0);
			exits3 += e->exit.ret == 3 && !(e->h.flags & LT_F_RET_UNKNOWN);
			exits3 += !!(e->h.flags & LT_F_RET_UNKNOWN); /* --calls blocking: its return not read */
			in_read = 0;
		} else if (e->h.kind == LT_EV_WAKING && e->h.tid == head && in_read && !waker &&
			   !(e->h.flags & (LT_F_WAKER_IRQ | LT_F_WAKER_IDLE))) {
			waker = e->wake.waker_tid;
		} else if (e->h.kind == LT_EV_IO_ENTER && e->h.tid != head) {
			cr_assert(e->h.flags & LT_F_IO_PIPE, "%s of fd %d by %u: the pipeline has no sockets",
				  lt_call_name(e->io.nr), e->io.fd, e->h.tid);
		}
	}
	cr_assert_eq(reads, 1, "head's reads of fd 0 in the trace: %d", reads);
	cr_assert_eq(exits3, 1, "head's read returned the 3 bytes of \"hi\\n\"");
	cr_assert_neq(waker, 0, "nothing woke head inside its read");
	int writes = 0;
	for (size_t i = 0; i < t.n; i++) {
		const struct lt_event *e = &t.ev[i];
		if (e->h.kind == LT_EV_IO_ENTER && e->h.tid == waker && e->io.nr == 1) {
			cr_assert_eq(e->io.fd, 1, "the writer writes its stdout");
			cr_assert_eq(e->io.count, 3, "echo hi writes 3 bytes");
			cr_assert(e->h.flags & LT_F_IO_PIPE);
			writes++;
		}
	}
	cr_assert_geq(writes, 1, "no write by %u, which woke head", waker);

	/* the report: head's time in pipe I/O, the wake-up credited to the
	 * writer's call */
	struct rp_json *j = tl_report_json(trace);
	const struct rp_json *ths = rp_json_get(j, "threads"), *h = NULL;
	for (size_t i = 0; ths && i < ths->n; i++)
		if ((uint32_t)rp_json_num(rp_json_get(&ths->items[i], "tid"), 0) == head)
			h = &ths->items[i];
	cr_assert_not_null(h, "head in the report's threads");
	cr_expect_eq((int)rp_json_num(rp_json_get(rp_json_get(h, "ops"), "pipe_reads"), -1), 1);
	cr_expect_eq((int)rp_json_num(rp_json_get(rp_json_get(h, "ops"), "socket_reads"), -1), 0);
	double piped = rp_json_num(rp_json_get(rp_json_get(h, "time_s"), "pipe_io"), 0);
	cr_expect_gt(piped, 0.5, "head waited ~1 s for the subshell's write: %.3f s in pipe I/O", piped);
	const struct rp_json *edges = rp_json_get(j, "wake_edges");
	int via_io = -1;
	for (size_t i = 0; edges && i < edges->n; i++) {
		const struct rp_json *e = &edges->items[i];
		if ((uint32_t)rp_json_num(rp_json_get(e, "waker"), 0) == waker &&
		    (uint32_t)rp_json_num(rp_json_get(e, "wakee"), 0) == head)
			via_io = (int)rp_json_num(rp_json_get(e, "via_io"), -1);
	}
	cr_expect_eq(via_io, 1, "the wake-up %u -> %u credited to the writer's write", waker, head);
	rp_json_free(j);
	tl_free(&t);
}

Test(piperec_live, every_call_pipe_read_woken_by_its_writer)
{
	pipe_read_woken_by_its_writer(NULL);
}

Test(piperec_live, calls_blocking_pipe_read_woken_by_its_writer)
{
	pipe_read_woken_by_its_writer("blocking");
}

/* The first pid among /proc/PID/task/PID/children of PARENT whose comm is
 * COMM, waiting up to 5 s for it. */
static pid_t child_named(pid_t parent, const char *comm)
{
	for (int i = 0; i < 500; i++) {
		char path[96], kids[512] = "";
		snprintf(path, sizeof(path), "/proc/%d/task/%d/children", (int)parent, (int)parent);
		FILE *f = fopen(path, "r");
		if (f) {
			if (!fgets(kids, sizeof(kids), f))
				kids[0] = 0;
			fclose(f);
		}
		for (char *p = strtok(kids, " \n"); p; p = strtok(NULL, " \n")) {
			char cp[64], c[32] = "";
			snprintf(cp, sizeof(cp), "/proc/%s/comm", p);
			FILE *g = fopen(cp, "r");
			if (g) {
				if (fgets(c, sizeof(c), g))
					c[strcspn(c, "\n")] = 0;
				fclose(g);
			}
			if (!strcmp(c, comm))
				return (pid_t)atoi(p);
		}
		usleep(10000);
	}
	cr_assert_fail("no child %s of %d", comm, (int)parent);
	return 0;
}

/* Attached (-p) to a pipeline already running flat out (dash's yes | head,
 * a read or write every few microseconds): every recorded read and write
 * has its return, from the first on.  Before, the entries' program was
 * attached ~0.25 ms before the returns', and each thread's first calls had
 * entries that never returned (zero-length slices, counted as calls). */
Test(piperec_live, attached_to_a_busy_pipe_every_call_has_its_return)
{
	if (!tl_is_root())
		cr_skip_test("needs root: loads BPF programs");
	if (access(HEAD_BIN, X_OK) || access(SH_BIN, X_OK))
		cr_skip_test("%s or %s missing (Debian: coreutils, dash)", HEAD_BIN, SH_BIN);
	cr_assert_eq(tl_spawn(&pipeline, (char *const[]){ SH_BIN, "-c", "yes | " HEAD_BIN " -c 100000000000 > /dev/null",
							  NULL }), 0);
	pid_t yes = child_named(pipeline.pid, "yes"), head = child_named(pipeline.pid, "head");
	tl_tmp_path(trace, sizeof(trace), "pipeattach");
	char pids[32];
	snprintf(pids, sizeof(pids), "%d,%d", (int)yes, (int)head);
	cr_assert_eq(tl_run_to_end((char *const[]){ LT_BIN, "record", "-p", pids, "-d", "0.5", "--no-status", "-o",
						    trace, NULL }, NULL, NULL, NULL, NULL), 0);
	struct tl_trace t;
	tl_load_clean(&t, trace);
	cr_assert_eq(tl_total_lost(&t), 0);
	int open[2] = { 0, 0 }, calls[2] = { 0, 0 }, unreturned = 0;
	for (size_t i = 0; i < t.n; i++) {
		const struct lt_event *e = &t.ev[i];
		int k = e->h.tid == (uint32_t)yes ? 0 : e->h.tid == (uint32_t)head ? 1 : -1;
		if (k < 0)
			continue;
		if (e->h.kind == LT_EV_IO_ENTER) {
			unreturned += open[k];
			open[k] = 1;
			calls[k]++;
		} else if (e->h.kind == LT_EV_SYS_EXIT) {
			open[k] = 0;
		}
	}
	cr_assert_gt(calls[0], 100, "yes's writes in the trace: %d", calls[0]);
	cr_assert_gt(calls[1], 100, "head's reads in the trace: %d", calls[1]);
	cr_assert_eq(unreturned, 0, "%d reads or writes followed by another call of the thread, not by their return",
		     unreturned);
	tl_free(&t);
}
