/* Unit tests of what `locktrace report` claims, on synthetic traces: who
 * woke whom when an interrupt did, how a call whose byte count is not known
 * reads, holder chains that loop, a trace cut short.  No root needed. */
#include <criterion/criterion.h>
#include <stdlib.h>
#include <string.h>
#include "locktrace/calls.h"
#include "lt_events.h"
#include "lt_test.h"
#include "report.h"
#include "timeline.h"
#include "report_int.h"

#define PID 600
#define OTHER_PID 900
#define BASE 200000000000ull
#define US 1000ull
#define MS 1000000ull
#define SEC 1000000000ull

static struct lt_header H;
static struct lt_thread_info TI[8];
static struct lt_report *R;

static void start(int n, const uint32_t *tids)
{
	tl_header(&H, TI, sizeof(TI) / sizeof(TI[0]), PID, BASE, n, tids);
	R = lt_report_new(&H, NULL);
	cr_assert_not_null(R);
}

static struct lt_event mk(uint8_t kind, uint64_t ts, uint32_t tid)
{
	return lt_ev(ts, tid, 0, kind);
}

static void feed(struct lt_event e)
{
	cr_assert_eq(lt_report_event(R, &e), 0);
}

static void io(uint64_t ts, uint32_t tid, uint16_t nr, int fd, uint64_t count)
{
	struct lt_event e = mk(LT_EV_IO_ENTER, ts, tid);
	e.io.nr = nr;
	e.io.fd = fd;
	e.io.count = count;
	feed(e);
}

static void ret(uint64_t ts, uint32_t tid, uint16_t nr, int64_t v)
{
	struct lt_event e = mk(LT_EV_SYS_EXIT, ts, tid);
	e.exit.nr = nr;
	e.exit.ret = v;
	feed(e);
}

static void sleep_(uint64_t ts, uint32_t tid)
{
	struct lt_event e = mk(LT_EV_SWITCH, ts, tid);
	e.sw.prev_tid = tid;
	e.sw.prev_tgid = PID;
	e.sw.prev_state = 1;
	feed(e);
}

/* wakee woken by waker (of process tgid, named comm) with flags */
static void waking(uint64_t ts, uint32_t wakee, uint32_t waker, uint32_t tgid, const char *comm,
		   uint8_t flags)
{
	struct lt_event e = mk(LT_EV_WAKING, ts, wakee);
	e.h.flags = flags;
	e.wake.waker_tid = waker;
	e.wake.waker_tgid = tgid;
	snprintf(e.wake.waker_comm, sizeof(e.wake.waker_comm), "%s", comm);
	feed(e);
}

static void finish(uint64_t end, int clean)
{
	struct lt_stats s;
	memset(&s, 0, sizeof(s));
	s.start_ns = BASE;
	s.end_ns = end;
	s.stop_reason = LT_STOP_SIGNAL;
	if (clean)
		lt_report_stats(R, &s);
	lt_report_reader_end(R, clean, clean ? "" : "chunk 3: CRC mismatch", clean ? 0 : 4096);
	cr_assert_eq(lt_report_finish(R), 0);
}

static char *text(void)
{
	char *buf = TL_PRINTED(NULL, lt_report_print_text, R);
	return buf;
}

static struct rp_json *json(void)
{
	size_t len;
	char *buf = TL_PRINTED(&len, lt_report_print_json, R);
	struct rp_json *j = tl_json_of(buf, len);
	free(buf);
	return j;
}

static void done(void)
{
	lt_report_free(R);
	R = NULL;
}

static const struct lt_report_edge *edge(uint32_t waker, uint32_t wakee)
{
	for (size_t i = 0; i < R->n_edges; i++)
		if (R->edges[i].waker == waker && R->edges[i].wakee == wakee)
			return &R->edges[i];
	return NULL;
}

static const struct rp_json *jedge(const struct rp_json *j, uint32_t waker, uint32_t wakee)
{
	const struct rp_json *es = rp_json_get(j, "wake_edges");
	for (size_t i = 0; es && i < es->n; i++)
		if (rp_json_num(rp_json_get(&es->items[i], "waker"), -1) == waker &&
		    rp_json_num(rp_json_get(&es->items[i], "wakee"), -1) == wakee)
			return &es->items[i];
	return NULL;
}

/* ---- who woke whom -------------------------------------------------- */

/* 601 waits in a socket read three times: a timer interrupt wakes it while
 * cc1 (another process) runs, a device interrupt while our own 602 runs,
 * and 700 of another process wakes it from a task.  The interrupts are
 * the interrupt's, not cc1's or 602's; 700 is another process's. */
Test(report_claims, wakeups_from_interrupts_are_the_interrupts)
{
	const uint32_t tids[] = { PID, 601, 602 };
	start(3, tids);
	uint64_t t = BASE + 10 * MS;
	const struct { uint32_t waker, tgid; const char *comm; uint8_t flags; } w[] = {
		{ 4242, OTHER_PID, "cc1", LT_F_WAKER_IRQ },
		{ 602, PID, "t602", LT_F_WAKER_IRQ },
		{ 700, OTHER_PID, "client", 0 },
	};
	for (int i = 0; i < 3; i++, t += 10 * MS) {
		io(t, 601, LT_NR_RECVFROM, 5, 64);
		sleep_(t + 1 * US, 601);
		waking(t + 5 * MS, 601, w[i].waker, w[i].tgid, w[i].comm, w[i].flags);
		ret(t + 5 * MS + 10 * US, 601, LT_NR_RECVFROM, 64);
	}
	finish(t, 1);
	cr_assert_null(edge(4242, 601), "cc1 was only interrupted");
	cr_assert_null(edge(602, 601), "602 was only interrupted");
	const struct lt_report_edge *irq = edge(0, 601);
	cr_assert_not_null(irq);
	cr_assert_eq(irq->count, 2);
	cr_assert_eq(irq->other, 2);
	cr_assert_not_null(edge(700, 601));

	struct rp_json *j = json();
	const struct rp_json *ji = jedge(j, 0, 601), *jo = jedge(j, 700, 601);
	cr_assert(ji && jo);
	cr_assert_eq(rp_json_get(ji, "from_interrupt")->type, RPJ_TRUE);
	cr_assert_eq(rp_json_get(ji, "other_process")->type, RPJ_FALSE);
	cr_assert_str_eq(rp_json_str(rp_json_get(ji, "waker_name")), "interrupt");
	cr_assert_eq(rp_json_get(jo, "from_interrupt")->type, RPJ_FALSE);
	cr_assert_eq(rp_json_get(jo, "other_process")->type, RPJ_TRUE);
	rp_json_free(j);

	char *s = text();
	cr_assert(strstr(s, "timer/interrupt"), "%s", s);
	cr_assert_null(strstr(s, "cc1"), "%s", s);
	cr_assert(strstr(s, "700 (client)*"), "%s", s);
	free(s);
	done();
}

/* An interrupt on an idle cpu (the idle task ran) is the same row. */
Test(report_claims, idle_and_busy_cpu_interrupts_are_one_row)
{
	const uint32_t tids[] = { PID, 601 };
	start(2, tids);
	uint64_t t = BASE + 10 * MS;
	for (int i = 0; i < 2; i++, t += 10 * MS) {
		io(t, 601, LT_NR_READ, 5, 64);
		sleep_(t + 1 * US, 601);
		waking(t + 5 * MS, 601, i ? 4242 : 0, i ? OTHER_PID : 0, i ? "cc1" : "swapper/1",
		       i ? LT_F_WAKER_IRQ : LT_F_WAKER_IDLE);
		ret(t + 5 * MS + 10 * US, 601, LT_NR_READ, 64);
	}
	finish(t, 1);
	cr_assert_eq(R->n_edges, 1);
	cr_assert_eq(R->edges[0].waker, 0);
	cr_assert_eq(R->edges[0].count, 2);
	done();
}

/* A loopback send's wake-up, run in the sender's own softirq, is the
 * sender's and its call's. */
Test(report_claims, softirq_in_the_senders_call_is_via_io)
{
	const uint32_t tids[] = { PID, 601, 602 };
	start(3, tids);
	uint64_t t = BASE + 10 * MS;
	io(t, 601, LT_NR_RECVFROM, 5, 64);
	sleep_(t + 1 * US, 601);
	io(t + 2 * MS, 602, LT_NR_SENDTO, 6, 64);
	waking(t + 2 * MS + 5 * US, 601, 602, PID, "t602", LT_F_WAKER_SOFTIRQ);
	ret(t + 2 * MS + 9 * US, 602, LT_NR_SENDTO, 64);
	ret(t + 2 * MS + 20 * US, 601, LT_NR_RECVFROM, 64);
	finish(t + 10 * MS, 1);
	const struct lt_report_edge *e = edge(602, 601);
	cr_assert_not_null(e);
	cr_assert_eq(e->via_io, 1);
	done();
}

/* ---- bytes asked ---------------------------------------------------- */

Test(report_claims, a_message_call_without_its_byte_count_says_n_a)
{
	const uint32_t tids[] = { PID };
	start(1, tids);
	io(BASE + 10 * MS, PID, LT_NR_RECVMSG, 5, LT_IO_COUNT_UNKNOWN);
	sleep_(BASE + 10 * MS + 1 * US, PID);
	finish(BASE + 3 * SEC, 1);
	struct lt_report_call c = R->threads[0].last[0];
	char buf[256];
	rp_fmt_call(R, &c, buf, sizeof(buf));
	cr_assert_str_eq(buf, "recvmsg(socket fd 5, bytes n/a)");
	struct rp_json *j = json();
	const struct rp_json *lc = rp_json_get(&rp_json_get(j, "threads")->items[0], "last_calls");
	cr_assert(lc && lc->n == 1);
	cr_assert_eq(rp_json_get(&lc->items[0], "count")->type, RPJ_NULL);
	rp_json_free(j);
	done();
}

/* The JSON of a call says what it was on: a recorded read or write is on
 * a socket or (flagged) a pipe or FIFO, and a file-lock call carries its
 * arguments, as the text's lines do. */
Test(report_claims, json_calls_say_the_fd_kind_and_the_file_lock)
{
	const uint32_t tids[] = { PID };
	start(1, tids);
	uint64_t t = BASE + 10 * MS;
	io(t, PID, LT_NR_RECVFROM, 5, 64);
	ret(t + 5 * US, PID, LT_NR_RECVFROM, 64);
	struct lt_event e = mk(LT_EV_IO_ENTER, t + 10 * US, PID);
	e.h.flags = LT_F_IO_PIPE;
	e.io.nr = LT_NR_WRITE;
	e.io.fd = 4;
	e.io.count = 1;
	feed(e);
	ret(t + 15 * US, PID, LT_NR_WRITE, 1);
	e = mk(LT_EV_FLOCK_ENTER, t + 20 * US, PID);
	e.flk.nr = LT_NR_FLOCK;
	e.flk.fd = 3;
	e.flk.cmd = 2; /* LOCK_EX */
	e.flk.type = -1;
	feed(e);
	sleep_(t + 21 * US, PID);
	finish(t + 3 * SEC, 1);
	struct rp_json *j = json();
	const struct rp_json *lc = rp_json_get(&rp_json_get(j, "threads")->items[0], "last_calls");
	cr_assert(lc && lc->n == 3, "%zu calls", lc ? lc->n : 0);
	cr_assert_str_eq(rp_json_str(rp_json_get(&lc->items[0], "fd_kind")), "socket");
	cr_assert_str_eq(rp_json_str(rp_json_get(&lc->items[1], "fd_kind")), "pipe");
	cr_assert_eq(rp_json_int(rp_json_get(&lc->items[2], "fd"), -9), 3);
	cr_assert_str_eq(rp_json_str(rp_json_get(&lc->items[2], "file_lock")), "flock(fd 3, LOCK_EX)");
	cr_assert_str_eq(rp_json_str(rp_json_get(&lc->items[2], "file_lock_kind")), "flock lock");
	const struct rp_json *end = rp_json_get(rp_json_get(&rp_json_get(j, "threads")->items[0], "end"), "call");
	cr_assert_str_eq(rp_json_str(rp_json_get(end, "file_lock")), "flock(fd 3, LOCK_EX)");
	rp_json_free(j);
	done();
}

/* ---- a trace cut short ---------------------------------------------- */

/* The file ends at a damaged chunk: the events up to 200.030 were read,
 * the stats were not.  The report must not say that nothing was lost: it
 * says where the trace is cut and that what came after is missing. */
Test(report_claims, a_cut_trace_says_where_it_is_cut)
{
	const uint32_t tids[] = { PID, 601 };
	start(2, tids);
	io(BASE + 10 * MS, 601, LT_NR_READ, 5, 64);
	sleep_(BASE + 30 * MS, 601);
	finish(0, 0);
	cr_assert_eq(R->end_ts, BASE + 30 * MS, "end %llu", (unsigned long long)R->end_ts);
	char *s = text();
	cr_assert_null(strstr(s, "no events lost"), "%s", s);
	cr_assert_null(strstr(s, "no events were lost"), "%s", s);
	cr_assert(strstr(s, "CUT at 200.030000: what came after it is missing"), "%s", s);
	cr_assert(strstr(s, "the trace is cut at 200.030000 (chunk 3: CRC mismatch): what happened after "
			    "200.030000 is missing"), "%s", s);
	free(s);
	struct rp_json *j = json();
	const struct rp_json *cut = rp_json_get(rp_json_get(j, "trace"), "cut");
	cr_assert_eq(rp_json_num(rp_json_get(cut, "at_ns"), 0), (double)(BASE + 30 * MS));
	cr_assert_eq(rp_json_num(rp_json_get(cut, "offset"), 0), 4096);
	rp_json_free(j);
	done();
}

Test(report_claims, a_whole_trace_without_losses_says_so)
{
	const uint32_t tids[] = { PID };
	start(1, tids);
	io(BASE + 10 * MS, PID, LT_NR_READ, 5, 64);
	finish(BASE + 30 * MS, 1);
	char *s = text();
	cr_assert(strstr(s, "no events lost") && strstr(s, "no events were lost"), "%s", s);
	cr_assert_null(strstr(s, "CUT"), "%s", s);
	free(s);
	done();
}

/* ---- holder chains -------------------------------------------------- */

static const char *go_stack(void)
{
	return "\"user_stack\": {\"frames\": ["
	       "{\"func\": \"runtime.futex\", \"module\": \"goapp\"},"
	       " {\"func\": \"runtime.futexsleep\", \"module\": \"goapp\"},"
	       " {\"func\": \"runtime.notesleep\", \"module\": \"goapp\"},"
	       " {\"func\": \"runtime.stopm\", \"module\": \"goapp\"}]}";
}

/* A thread of a Go program parked on its own futex word (an M's note),
 * blocked since before the trace. */
static void go_m(char *buf, size_t len, uint32_t tid, uint64_t word)
{
	snprintf(buf, len,
		 "{\"tid\": %u, \"state\": \"S\", \"blocked_s\": 4.0, \"syscall\": {\"nr\": 202, \"name\": \"futex\"},"
		 " \"futex\": {\"uaddr\": \"0x%llx\", \"op\": 128, \"is_wait\": true, \"expected\": 0, \"word\": 0,"
		 " \"owner_kind\": \"none\", \"owner\": null}, %s}",
		 tid, (unsigned long long)word, go_stack());
}

/* Two Go threads, each parked on its own word, run the same runtime code:
 * each is the only other thread that "runs the waiters' code", so each
 * was guessed as the other's holder, and the holder chain went round the
 * two up to its bound ("through 16 more locks").  A thread that itself
 * sleeps on a lock nobody is known to hold is one more waiter, not
 * evidence of a holder: no holder is named. */
Test(report_claims, parked_threads_are_not_each_others_holders)
{
	const uint32_t tids[] = { PID, 601 };
	start(2, tids);
	lt_report_free(R);
	snprintf(H.exe, sizeof(H.exe), "/usr/bin/goapp");
	H.flags = LT_HDR_FLIGHT;
	for (int i = 0; i < 2; i++) {
		TI[i].sc_nr = 202;
		TI[i].sc_args[1] = 0x80;
		TI[i].blocked_ns = 4 * SEC;
	}
	TI[0].sc_args[0] = 0xc000100148;
	TI[1].sc_args[0] = 0xc000180148;
	R = lt_report_new(&H, NULL);
	char t0[1024], t1[1024], *snap;
	go_m(t0, sizeof(t0), PID, 0xc000100148);
	go_m(t1, sizeof(t1), 601, 0xc000180148);
	cr_assert_geq(asprintf(&snap, "{\"schema\": \"locktrace.snapshot/1\", \"pid\": %d, \"comm\": \"goapp\","
			       " \"taken_monotonic_ns\": %llu, \"verdicts\": [], \"threads\": [%s, %s]}",
			       PID, BASE, t0, t1), 0);
	cr_assert_eq(lt_report_snapshot(R, snap, strlen(snap)), 0);
	free(snap);
	struct lt_event e = mk(LT_EV_SWITCH, BASE + 3 * SEC, 0);
	e.sw.next_tid = 999;
	feed(e);
	finish(BASE + 3 * SEC, 1);
	for (size_t i = 0; i < R->n_findings; i++) {
		const struct lt_report_finding *f = &R->findings[i];
		cr_assert_null(strstr(f->summary, "more lock"), "%s", f->summary);
		cr_assert_null(strstr(f->summary, "probable holder"), "%s", f->summary);
		cr_assert_eq(f->holder, 0, "%s", f->summary);
	}
	done();
}
