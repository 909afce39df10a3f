// SPDX-License-Identifier: MIT
/*
 * The collector.  Order of work, chosen so nothing is missed and nothing is
 * lost on a bad start:
 *   1. resolve the target (or fork the launch child, held at a gate);
 *   2. create the output file (before attaching: an unwritable path fails
 *      early with nothing attached);
 *   3. load and attach the BPF programs (events now accumulate in the ring);
 *   4. describe the process from /proc (threads at attach and the syscall
 *      each is blocked in) and write the header: a thread created between
 *      3 and 4 is in the header or has a TASK_NEW event, or both;
 *   5. drain the ring every POLL_MS into chunks until a stop condition,
 *      while a helper thread takes the full snapshot at attach (stacks,
 *      lock owners, verdicts: this can take a while on a process with many
 *      threads, and the ring must not overflow meanwhile); its JSON is
 *      written as a SNAPSHOT section as soon as it is ready;
 *   6. detach, drain what is left, write losses, stats and the end marker.
 * This file runs those steps (lt_record) and finishes a recording; the
 * steps live by job in record_setup.c (1-4), record_loop.c (5, 6: the
 * loop, event intake, triggers, drain), record_procs.c (the traced
 * processes and threads), record_snap.c (the stored snapshots) and
 * record_flight.c (the flight recorder's dumps), sharing record_int.h.
 */
#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>
#include "appwatch.h"
#include "locktrace/ocframes.h"
#include "record_int.h"
#include "target.h"
#include "taskrun.h"

static void print_summary(const struct lt_record_result *res, const struct collector *c,
			  const char *comm)
{
	static const char *const why[] = { "stopped", "interrupted", "duration reached",
					   "target exited", "stopped on an error", "stall detected",
					   "dump requested" };
	struct lt_msg m = { .len = 0 };
	lt_msg_add(&m, "%s after %.2f s: ", why[res->stop_reason <= LT_STOP_USR1 ?
						res->stop_reason : 0], res->seconds);
	if (c->nprocs > 1)
		lt_msg_add(&m, "%zu processes (the first %d, %s)", c->nprocs, res->tgid, comm);
	else
		lt_msg_add(&m, "process %d (%s)", res->tgid, comm);
	lt_msg_add(&m, ", %llu events, %llu lost, %llu threads, %llu bytes (%.1f bytes/event)",
		   (unsigned long long)res->events, (unsigned long long)res->lost,
		   (unsigned long long)res->threads, (unsigned long long)res->bytes,
		   res->events ? (double)res->bytes / (double)res->events : 0.0);
	lt_info("%s", m.text);
	if (c->nprocs > 1) {
		m = (struct lt_msg){ .len = 0 };
		lt_msg_add(&m, "  threads per process:");
		for (size_t i = 0; i < c->nprocs; i++)
			lt_msg_add(&m, " %d:%llu", (int)c->procs[i]->tgid,
				   (unsigned long long)c->procs[i]->threads);
		lt_more("%s", m.text);
	}
	m = (struct lt_msg){ .len = 0 };
	lt_msg_add(&m, "  events:");
	for (unsigned k = 1; k < LT_EV_MAX; k++)
		if (c->events[k])
			lt_msg_add(&m, " %s %llu", lt_kind_name(k), (unsigned long long)c->events[k]);
	lt_more("%s", m.text);
	if (c->norm && c->norm->unseen_runs)
		lt_more("  %llu calls end at their thread's next event: the switch that ran it again "
			"is not in the trace (%s)", (unsigned long long)c->norm->unseen_runs,
			LT_UNSEEN_CAUSE(res->lost));
	if (c->stk) {
		const struct lt_stackrec_stats *k = lt_stackrec_stats(c->stk);
		lt_more("  stacks: %llu waits, %llu stacks copied (%llu kept, %llu woke during "
			"the copy, %llu not readable), %llu distinct, %.1f ms copying, %.1f ms "
			"unwinding, %llu bytes",
			(unsigned long long)k->waits, (unsigned long long)k->reads,
			(unsigned long long)k->kept, (unsigned long long)k->late,
			(unsigned long long)k->failed, (unsigned long long)k->stacks,
			(double)k->read_ns / 1e6, (double)k->unwind_ns / 1e6,
			(unsigned long long)k->bytes);
		if (k->attach_waits)
			lt_more("  stacks: %llu waits under way at the attach, read where they slept: %llu "
				"with a stack%s", (unsigned long long)k->attach_waits,
				(unsigned long long)k->attach_kept,
				k->attach_kept < k->attach_waits ? " (the others ran again before the copy "
				"ended, or could not be read)" : "");
		if (k->unread)
			lt_more("  stacks: %llu waits of 1 ms or more were over before the collector "
				"came to read them (it was behind: a busy machine), without a stack",
				(unsigned long long)k->unread);
		if (k->left_to_bpf)
			lt_more("  stacks: %llu untimed waits on private futexes left to the BPF side's "
				"copy at their wake-up (only a thread of their process can end them)",
				(unsigned long long)k->left_to_bpf);
		if (k->bpf_served)
			lt_more("  stacks: %llu waits' stacks left to the BPF side's copy at their thread's "
				"return to user space (if 1 ms or longer, or one of the %llu sampled), "
				"not read while they slept",
				(unsigned long long)k->bpf_served, (unsigned long long)k->bpf_sampled);
		if (k->maps_reread)
			lt_more("  stacks: a process's mappings read again %llu times (a stack copied from "
				"a thread started after they were read)", (unsigned long long)k->maps_reread);
		if (k->late_reads)
			lt_more("  stacks: %llu of the reads were of waits left to the BPF side's copy, "
				"still asleep %llu ms on", (unsigned long long)k->late_reads,
				(unsigned long long)(LT_STACK_LATE_NS / 1000000));
		if (k->sampled_left)
			lt_more("  stacks: %llu sampled waits of those kinds not read: 1 ms old already "
				"when the collector saw them (left to the BPF side's copy)",
				(unsigned long long)k->sampled_left);
		if (k->note_reads || k->note_gone)
			lt_more("  stacks: %llu of the reads from where the BPF side noted the sleep "
				"(no /proc read), %llu not made: the wait was over or its stack "
				"copied already", (unsigned long long)k->note_reads,
				(unsigned long long)k->note_gone);
		if (k->py_procs)
			fprintf(stderr, "  python frames: %llu chains read with the copies (%.1f ms of "
				"the copying), resolved in %.1f ms of the unwinding\n",
				(unsigned long long)k->py_reads, (double)k->py_read_ns / 1e6,
				(double)k->py_resolve_ns / 1e6);
		if (k->py_procs && k->wakers)
			fprintf(stderr, "  python frames of wakers: %llu copied at the wake-up, %llu "
				"copies without them (the thread's state not known yet)\n",
				(unsigned long long)k->py_wakers,
				(unsigned long long)k->py_wakers_unknown);
		if (k->oc_procs)
			lt_more("  ocaml frames: %llu OCaml 5 stacks copied with the C stacks (%llu bytes, "
				"%.2f ms of the copying)", (unsigned long long)k->oc_reads,
				(unsigned long long)k->oc_bytes, (double)k->oc_read_ns / 1e6);
		if (k->oc_procs && k->wakers)
			lt_more("  ocaml frames of wakers: %llu OCaml 5 stacks copied at the wake-up "
				"(%llu of them cut at %u bytes), %llu copies without one (no call from "
				"OCaml code in the C stack copied, or not readable)",
				(unsigned long long)k->oc_wakers, (unsigned long long)k->oc_wakers_cut,
				LT_OC_COPY_BYTES, (unsigned long long)k->oc_wakers_none);
		if (k->java_procs)
			lt_more("  java frames: %llu Java stacks read with the copies (%llu frames, "
				"%.2f ms of the copying, the longest read %.1f us), placed in %.2f ms of "
				"the unwinding; the Java lock waited for named with %llu of them",
				(unsigned long long)k->java_reads,
				(unsigned long long)k->java_frames, (double)k->java_read_ns / 1e6,
				(double)k->java_read_max_ns / 1e3, (double)k->java_place_ns / 1e6,
				(unsigned long long)k->java_locks);
		if (k->behind)
			lt_more("  stacks: %llu copies dropped: the unwinder fell %u MiB behind",
				(unsigned long long)k->behind, LT_STACKREC_QUEUE_MIB);
		if (k->bpf_waiters || k->wcopy[LT_WCOPY_LEFT] || k->wcopy[LT_WCOPY_FULL] ||
		    k->wcopy[LT_WCOPY_GONE])
			lt_more("  waiters' stacks copied at the wake-up of a wait of 1 ms or more: "
				"%llu (%llu at the wake-up, %llu when the thread ran again, %llu at "
				"the call's return; and %llu sampled shorter waits at their return), %llu "
				"unwound and kept, %llu also read from /proc; %llu woken from "
				"elsewhere (left to the read%s), %llu not copied: ring full, %llu not "
				"copied: the thread had left the call before its copy was due",
				(unsigned long long)k->bpf_waiters,
				(unsigned long long)k->wcopy[LT_WCOPY_AT_WAKE],
				(unsigned long long)k->wcopy[LT_WCOPY_AT_SWITCH],
				(unsigned long long)k->wcopy[LT_WCOPY_AT_EXIT],
				(unsigned long long)k->wcopy[LT_WCOPY_SAMPLED],
				(unsigned long long)k->bpf_kept, (unsigned long long)k->bpf_dup,
				(unsigned long long)k->wcopy[LT_WCOPY_LEFT],
				c->norm ? "" : " or the return",
				(unsigned long long)k->wcopy[LT_WCOPY_FULL],
				(unsigned long long)k->wcopy[LT_WCOPY_GONE]);
		if (k->wcopy[LT_WCOPY_SPILLED])
			lt_more("  waiters' stacks: %llu sleeps noted apart (the slot of the sleep notes' "
				"array their thread maps to held another thread's note)",
				(unsigned long long)k->wcopy[LT_WCOPY_SPILLED]);
		if (k->wcopy[LT_WCOPY_UNSEEN])
			lt_more("  waiters' stacks: %llu of those copied at their return were copied at "
				"the first return to user space after the sleep: the switch that ran the "
				"thread again was not seen (README, \"stacks\")",
				(unsigned long long)k->wcopy[LT_WCOPY_UNSEEN]);
		if (k->unwinds_cached)
			lt_more("  stacks: %llu copies (BPF copies and reads) not unwound: a copy of the same call path was "
				"(same return addresses and frame links)",
				(unsigned long long)k->unwinds_cached);
		if (k->exec_kept)
			lt_more("  stacks: %llu processes' modules read after their exec (for a copy that came "
				"before the exec's event) kept: the process had exited before they could be read "
				"again", (unsigned long long)k->exec_kept);
		if (k->cached_here)
			lt_more("  stacks: %llu of them found in the unwind cache by the collector's thread "
				"(no job for the unwinder)",
				(unsigned long long)k->cached_here);
		if (k->bpf_py)
			lt_more("  waiters' stacks: %llu copies of CPython threads with their Python frames",
				(unsigned long long)k->bpf_py);
		if (k->bpf_py_left)
			lt_more("  waiters' stacks: %llu copies of OCaml 5 or JVM threads, or of CPython "
				"threads whose thread state was not known yet, left for the reads from "
				"/proc, which have their OCaml stacks, Java or Python frames",
				(unsigned long long)k->bpf_py_left);
		if (k->wcopy[LT_WCOPY_RT_READ])
			lt_more("  waiters' stacks: %llu long waits of OCaml 5 or JVM threads not copied "
				"by the BPF side: read where they sleep, with their OCaml stacks or Java "
				"frames", (unsigned long long)k->wcopy[LT_WCOPY_RT_READ]);
		if (k->bpf_again)
			lt_more("  waiters' stacks: %llu copies of a wait that had its stack already "
				"(copied or read) dropped", (unsigned long long)k->bpf_again);
		if (k->wakers)
			lt_more("  wakers' stacks: %llu copied at a wake-up, %llu unwound and kept, "
				"%llu left for want of time", (unsigned long long)k->wakers,
				(unsigned long long)k->wakers_kept, (unsigned long long)k->wakers_busy);
		if (k->wcopy[LT_WCOPY_WAKER_LEFT])
			lt_more("  wakers' stacks: %llu not copied: the copies' ring was half full "
				"(the waits' own stacks first)",
				(unsigned long long)k->wcopy[LT_WCOPY_WAKER_LEFT]);
	}
	lt_more("  trace: %s", res->path);
}

/* The last flight dump (unless a stall just wrote one), then the ring is
 * given up.  The completed file's path in done, or "". */
static void finish_ring(struct session *s, char *done, size_t dlen)
{
	struct lt_record_result *res = s->res;
	struct collector *c = &s->c;

	if (res->stop_reason != LT_STOP_STALL) {
		if (rec_dump_flight(s, res->stop_reason, 1, done, dlen)) {
			done[0] = 0;
			res->stop_reason = LT_STOP_ERROR;
		}
	}
	/* what the ring holds; the kernel-side units' events are only ever
	 * encoded in a dump: the last one's size */
	res->bytes = s->fb ? s->flight.last_dump_bytes : s->flight.fl.bytes;
	lt_writer_close(c->w); /* the memory writer */
	c->w = NULL;
	if (s->flight.first_fd >= 0) { /* never dumped: do not leave an empty file */
		close(s->flight.first_fd);
		s->flight.first_fd = -1;
		rec_out_discard(s, s->flight.base);
	}
}

/* The trace file's names, stats and end marker.  Its path in done, or ""
 * when it could not be completed (said why). */
static void finish_file(struct session *s, const struct lt_stats *base, char *done, size_t dlen)
{
	struct lt_record_result *res = s->res;
	struct collector *c = &s->c;
	struct lt_stats stats = *base;

	done[0] = 0;
	for (size_t i = 0; i < c->nprocs && !c->werr; i++)
		if (c->procs[i]->have_syms)
			c->werr = lt_locksyms_resolve(&c->procs[i]->syms, c->w);
	memcpy(stats.events, c->events, sizeof(stats.events));
	stats.ncpus = (uint32_t)s->bpf.ncpus;
	stats.lost = s->lost_seen;
	stats.exit_status = res->exit_status;
	stats.stop_reason = (uint32_t)res->stop_reason;
	if (!c->werr)
		c->werr = lt_writer_stats(c->w, &stats);
	res->bytes = lt_writer_bytes(c->w);
	int cr = lt_writer_close(c->w);
	c->w = NULL;
	if (c->werr || cr) {
		/* said now, before the summary: what the file holds is still
		 * handed over and summed up */
		int e = c->werr ? c->werr : cr;
		lt_err("writing %s: %s; the trace is readable up to its last complete "
			"chunk (locktrace dump says where it stops)", res->path, strerror(-e));
		res->stop_reason = LT_STOP_ERROR;
		return;
	}
	struct stat sb;
	int gone = s->out_ino && stat(res->path, &sb);
	if (s->out_ino && (gone || sb.st_dev != s->out_dev || sb.st_ino != s->out_ino)) {
		lt_err("%s was %s while locktrace wrote it (another program, such as a second locktrace with "
		       "--force, %s): this recording's trace is lost", res->path, gone ? "removed" : "replaced",
		       gone ? "removed it" : "renamed a file over it");
		res->stop_reason = LT_STOP_ERROR;
		return;
	}
	snprintf(done, dlen, "%s", res->path);
}

/* 1 when pid has ended (*st its wait status, -1 if someone else reaped
 * it), 0 while it runs. */
static int has_ended(pid_t pid, int *st)
{
	pid_t r;
	while ((r = waitpid(pid, st, WNOHANG)) < 0 && errno == EINTR)
		;
	if (r < 0)
		*st = -1;
	return r != 0;
}

/* SIG to the launched program ROOT and the processes it started that are
 * still its descendants (a shell's pipeline: `sh -c 'yes | cat'`), which
 * would otherwise outlive it, re-parented, as timeout(1) reaches them by
 * sending to its process group.  The descendants are listed first, the
 * program signalled first: signalled after its children, a shell could see
 * `cat` end at `yes`'s end of file and exit 0 before its own SIGTERM came
 * (a loaded machine's CI did), and the status said would not be the
 * signal's.  Then THEN (0: none) to the same processes: once the program
 * has ended, its children are another's.  A process already re-parented (a
 * daemon) is not reached. */
static void signal_tree(pid_t root, int sig, int then)
{
	pid_t *d = NULL;
	size_t n = 0;
	bool listed = lt_proc_descendants(&root, 1, &d, &n) == 0;
	for (int k = 0; k < 2; k++) {
		int g = k ? then : sig;
		if (!g)
			break;
		kill(root, g);
		for (size_t i = 0; listed && i < n; i++)
			kill(d[i], g);
	}
	free(d);
}

/* A launched program ends with the recording: one that has exited is
 * reaped (wait: 0 only looks); one still running when the trace is done
 * gets SIGTERM, as timeout(1) sends it, and so do its descendants; we
 * wait for it to end (a stop request while waiting sends SIGKILL to them
 * all).  Its status in res->exit_status. */
static void end_launched(struct session *s, int wait)
{
	int st, said = 0, killed = 0;
	sig_atomic_t s0 = rec_stop_requests;

	if (!s->launched || s->reaped)
		return;
	if (has_ended(s->tgid, &st))
		goto reaped;
	if (!wait)
		return;
	if (!s->o->quiet)
		lt_info("%s (pid %d) is still running: sending it and its descendants SIGTERM", s->comm, s->tgid);
	/* and SIGCONT, as timeout(1): a stopped one would never see it */
	signal_tree(s->tgid, SIGTERM, SIGCONT);
	for (int ms = 0; !has_ended(s->tgid, &st); ms += 20) {
		if (ms == 5000 && !said++)
			lt_info("%s (pid %d) has not ended 5 s after SIGTERM; waiting for it (Ctrl-C "
				"sends it SIGKILL)", s->comm, s->tgid);
		if (rec_stop_requests != s0 && !killed++) {
			signal_tree(s->tgid, SIGKILL, 0);
		}
		usleep(20000);
	}
reaped:
	s->reaped = 1;
	s->res->exit_status = st;
}

/* Completes the trace (the last flight dump, or the file's names and
 * stats), ends a launched program, hands the trace over, and sums up. */
static void finish(struct session *s)
{
	const struct lt_record_opts *o = s->o;
	struct lt_record_result *res = s->res;
	struct collector *c = &s->c;
	struct lt_stats stats = { 0 };
	char done[PATH_MAX] = "";

	rec_drain(s);
	end_launched(s, 0); /* its status goes into the trace if it has ended */
	stats.start_ns = s->hdr.clock_boottime;
	/* the events end at the detach, before the end snapshot: a later end
	 * would count its time as observed (waits open at the end, runnable
	 * time) */
	stats.end_ns = s->detach_ns ? s->detach_ns : lt_now_ns(CLOCK_BOOTTIME);
	if (s->ring)
		finish_ring(s, done, sizeof(done));
	else
		finish_file(s, &stats, done, sizeof(done));
	end_launched(s, 1);
	if (done[0])
		rec_hand_over(o, done, 0, &s->kids);
	res->seconds = (double)(stats.end_ns - stats.start_ns) / 1e9;
	res->events = c->total;
	for (size_t i = 0; i < s->nlost; i++)
		res->lost += s->lost_seen[i];
	res->threads = c->tids.n;
	res->processes = c->nprocs;
	if (!o->quiet)
		print_summary(res, c, s->comm);
}

/* Nothing was recorded after the output was created: remove it. */
static void discard_output(struct session *s)
{
	if (s->c.w && s->c.w != s->file_w)
		lt_writer_close(s->c.w);
	lt_writer_close(s->file_w);
	s->c.w = NULL;
	s->file_w = NULL;
	if (s->flight.first_fd >= 0)
		close(s->flight.first_fd);
	s->flight.first_fd = -1;
	rec_out_discard(s, s->res->path); /* we created it and it holds nothing */
}

static void release(struct session *s, int failed)
{
	if (s->launched && !s->reaped && (failed || s->launch.gate_fd >= 0))
		lt_launch_abort(&s->launch);
	rec_remove_pid_file(s);
	if (s->c.stk)
		lt_stackrec_set_bpf(s->c.stk, NULL);
	if (s->bpf_started)
		lt_bpf_destroy(&s->bpf);
	if (s->pidfd >= 0)
		close(s->pidfd);
	free(s->lost_seen);
	free(s->lost_now);
	free(s->c.tids.v);
	free(s->c.tids.tg);
	lt_header_free(&s->hdr);
	if (s->have_stall)
		lt_stall_free(&s->stall);
	lt_appwatch_free(s->appw);
	rec_free_procs(&s->c);
	if (s->have_cg)
		lt_cgroup_free(&s->cg);
	free(s->snap.tgids);
	if (s->c.norm)
		lt_callnorm_free(s->c.norm);
	lt_stackrec_free(s->c.stk);
	rec_reap_kids(&s->kids, 1); /* their output belongs before ours ends */
	lt_flight_free(&s->flight.fl);
	signal(SIGUSR1, SIG_DFL);
	signal(SIGINT, SIG_DFL);
	signal(SIGTERM, SIG_DFL);
	signal(SIGHUP, SIG_DFL);
	if (s->holding)
		sigprocmask(SIG_SETMASK, &s->oldmask, NULL);
	s->holding = 0;
}

int lt_record(const struct lt_record_opts *o, struct lt_record_result *res)
{
	struct session s;
	char err[512];

	memset(&s, 0, sizeof(s));
	s.o = o;
	s.res = res;
	s.launch = (struct lt_launch){ .pid = 0, .gate_fd = -1, .status_fd = -1 };
	s.pidfd = -1;
	s.flight.first_fd = -1;
	s.ring = o->ring_mem > 0;
	/* the flight recorder keeps its events in per-cpu kernel units read
	 * only at a dump: no work per event in the collector
	 * (docs/flight-recorder.md).  --ring-stream streams them to the
	 * collector's ring instead (4.5 times the history per byte); so does
	 * --stacks, which needs the collector to see each wait. */
	s.fb = s.ring && !o->ring_stream && !o->stacks;
	snprintf(s.comm, sizeof(s.comm), "process");
	memset(res, 0, sizeof(*res));
	res->exit_status = -1;

	rec_hold_signals(&s.oldmask);
	s.holding = 1;
	if (lt_bpf_check_kernel(err, sizeof(err))) {
		release(&s, 1);
		return rec_fail(&s, "%s", err);
	}
	if (rec_find_target(&s) || rec_open_output(&s)) {
		release(&s, 1);
		return -1;
	}
	s.show_status = o->status_line < 0 ? isatty(STDERR_FILENO) : o->status_line;
	if (rec_write_pid_file(&s) || rec_open_sinks(&s) || rec_attach(&s) || rec_write_header(&s) ||
	    rec_go(&s)) {
		discard_output(&s);
		release(&s, 1);
		return -1;
	}
	if (!s.ring) /* recording: the file --force replaces goes now */
		rec_out_commit(&s);
	rec_run(&s);
	finish(&s);
	release(&s, 0);
	return 0;
}
