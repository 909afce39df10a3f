/* Tests of the Perfetto and JSON outputs on synthetic traces: the file
 * decodes against the part of Perfetto's schema locktrace uses, its
 * structure holds (tests/lib/pf_check.h), the known waits, wakes and flows are
 * there, protoc accepts it; bad input is handled; memory stays bounded;
 * JSON escapes everything.  No root needed. */
#include <criterion/criterion.h>
#include <errno.h>
#include <fcntl.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>
#include "convert.h"
#include "jsontrace.h"
#include "perfetto.h"
#include "timeline.h"
#include "locktrace/calls.h"
#include "locktrace/tracefile.h"
#include "lt_test.h"
#include "lt_events.h"
#include "pf_check.h"

#define PID 100
#define ADDR_A 0x5600000010a0ull
#define ADDR_B 0x5600000010c8ull
#define FUTEX_WAIT_PRIVATE 0x80
#define FUTEX_WAKE_PRIVATE 0x81

/* ---- building raw traces --------------------------------------------- */

static struct lt_thread_info hthreads[4];

static struct lt_header make_hdr(void)
{
	struct lt_header h;
	memset(&h, 0, sizeof(h));
	memset(hthreads, 0, sizeof(hthreads));
	h.version_major = LT_VERSION_MAJOR;
	h.pid = PID;
	h.ncpus = 2;
	snprintf(h.host, sizeof(h.host), "testhost");
	snprintf(h.kernel, sizeof(h.kernel), "6.18.44-test");
	snprintf(h.comm, sizeof(h.comm), "app");
	snprintf(h.exe, sizeof(h.exe), "/usr/bin/app");
	snprintf(h.cmdline, sizeof(h.cmdline), "app --serve \"x\"");
	h.clock_boottime = 500;
	h.clock_monotonic = 400;
	h.clock_realtime = 1700000000000000000ull;
	h.nthreads = 2;
	h.threads = hthreads;
	hthreads[0].tid = 101;
	snprintf(hthreads[0].comm, LT_COMM_LEN, "main");
	hthreads[0].sc_nr = -3;
	hthreads[1].tid = 102;
	snprintf(hthreads[1].comm, LT_COMM_LEN, "worker");
	hthreads[1].sc_nr = -3;
	return h;
}

#define ev(...) lt_ev(__VA_ARGS__)
#define sys_exit(...) lt_ev_exit(__VA_ARGS__)
#define io(...) lt_ev_io(__VA_ARGS__)

static struct lt_event futex(uint64_t ts, uint32_t tid, uint16_t cpu, uint32_t op, uint64_t uaddr,
			     uint32_t val, int64_t timeout)
{
	return lt_ev_futex(ts, tid, cpu, op, uaddr, val, timeout, 0xffffffff);
}

static struct lt_event sw(uint64_t ts, uint16_t cpu, uint32_t prev, uint32_t prev_tgid, uint64_t state,
			  uint32_t next, uint32_t next_tgid, const char *pc, const char *nc)
{
	return lt_ev_switch(ts, cpu, prev, prev_tgid, state, next, next_tgid, pc, nc);
}

static struct lt_event waking(uint64_t ts, uint32_t wakee, uint16_t cpu, uint32_t waker,
			      uint32_t waker_tgid, uint8_t flags)
{
	return lt_ev_waking(ts, wakee, cpu, waker, waker_tgid, flags, 0, waker ? "worker" : "swapper/1");
}

static size_t put_varint(uint8_t *p, uint64_t v)
{
	size_t n = 0;
	while (v >= 0x80) {
		p[n++] = (uint8_t)(v | 0x80);
		v >>= 7;
	}
	p[n++] = (uint8_t)v;
	return n;
}

/* A SYMBOLS section naming ADDR_A (docs/trace-format.md: TLV, key 1 per
 * name holding key 1 = address, key 2 = name). */
static void write_symbols(struct lt_writer *w)
{
	uint8_t inner[64], outer[80], a[10];
	size_t al = put_varint(a, ADDR_A), n = 0, m = 0;
	inner[n++] = 1;
	inner[n++] = (uint8_t)al;
	memcpy(inner + n, a, al);
	n += al;
	inner[n++] = 2;
	inner[n++] = 7;
	memcpy(inner + n, "biglock", 7);
	n += 7;
	outer[m++] = 1;
	outer[m++] = (uint8_t)n;
	memcpy(outer + m, inner, n);
	m += n;
	cr_assert_eq(lt_writer_section(w, LT_CHUNK_SYMBOLS, outer, m), 0);
}

static int with_symbols, with_snapshot;
static const char *snapshot_json;

/* A snapshot section whose CPython thread model named thread 102 (the
 * recorder stores one at attach and one at the end). */
static void write_snapshot(struct lt_writer *w)
{
	static const char j[] =
		"{\"schema\":\"locktrace.snapshot/1\",\"pid\":100,\"threads\":["
		"{\"tid\":101,\"comm\":\"main\",\"runtime\":null},"
		"{\"tid\":102,\"comm\":\"worker\",\"runtime\":{\"lang\":\"python\","
		"\"name\":\"pool-\xc3\xa9 (run)\",\"frames\":[]}}]}";
	cr_assert_eq(lt_writer_section(w, LT_CHUNK_SNAPSHOT, j, sizeof(j) - 1), 0);
}

static void write_trace(const char *path, const struct lt_header *h, const struct lt_event *v,
			size_t n, uint64_t end_ns)
{
	struct lt_writer *w;
	cr_assert_eq(lt_writer_open(&w, path, 1), 0, "cannot create %s", path);
	cr_assert_eq(lt_writer_header(w, h), 0);
	for (size_t i = 0; i < n; i++)
		cr_assert_eq(lt_writer_event(w, &v[i]), 0);
	if (with_symbols) /* the recorder writes them as it names new addresses */
		write_symbols(w);
	if (with_snapshot)
		write_snapshot(w);
	if (snapshot_json) /* a test's own snapshot */
		cr_assert_eq(lt_writer_section(w, LT_CHUNK_SNAPSHOT, snapshot_json, strlen(snapshot_json)), 0);
	if (end_ns) {
		struct lt_stats st = { .start_ns = h->clock_boottime, .end_ns = end_ns, .ncpus = 2,
				       .exit_status = -1 };
		cr_assert_eq(lt_writer_stats(w, &st), 0);
	}
	cr_assert_eq(lt_writer_close(w), 0);
}

static void tmp_path(char *buf, size_t n, const char *tag, const char *ext)
{
	static int seq;
	snprintf(buf, n, "/tmp/lt-test-pf-%d-%s-%d%s", getpid(), tag, seq++, ext);
	unlink(buf);
}

/* The story the main test tells, on two cpus:
 *  - 101 waits on A; 102 wakes it with FUTEX_WAKE (a flow);
 *  - 101 waits on A with a timeout; an interrupt wakes it; ETIMEDOUT;
 *  - 101 starts thread 103, which is renamed to a name with bad bytes;
 *  - 103 reads a socket; 102's write to the peer wakes it (a flow);
 *  - the ring buffer drops 5 switch records on cpu 1;
 *  - 103 waits on B until the end. */
static size_t story(struct lt_event *v)
{
	size_t n = 0;
	v[n++] = futex(1000, 101, 0, FUTEX_WAIT_PRIVATE, ADDR_A, 2, -1);
	v[n++] = sw(1100, 0, 101, PID, 0x2001 /* TASK_FREEZABLE|TASK_INTERRUPTIBLE */, 0, 0, "main",
		    "swapper/0");
	v[n++] = futex(2000, 102, 1, FUTEX_WAKE_PRIVATE, ADDR_A, 1, 0);
	v[n++] = waking(2100, 101, 1, 102, PID, 0);
	v[n++] = sys_exit(2200, 102, 1, 202, 1);
	v[n++] = sw(2300, 0, 0, 0, 0, 101, PID, "swapper/0", "main");
	v[n++] = sys_exit(2400, 101, 0, 202, 0);

	v[n++] = futex(2500, 101, 0, FUTEX_WAIT_PRIVATE, ADDR_A, 2, 1000000);
	v[n++] = sw(2600, 0, 101, PID, 0x1, 0, 0, "main", "swapper/0");
	v[n++] = waking(3600, 101, 0, 0, 0, LT_F_WAKER_IDLE);
	v[n++] = sw(3700, 0, 0, 0, 0, 101, PID, "swapper/0", "main");
	v[n++] = sys_exit(3800, 101, 0, 202, -110);

	struct lt_event tn = ev(4000, 103, 0, LT_EV_TASK_NEW);
	tn.tnew.parent_tid = 101;
	tn.tnew.tgid = PID;
	tn.tnew.clone_flags = 0x3d0f00;
	snprintf(tn.tnew.comm, LT_COMM_LEN, "main");
	v[n++] = tn;
	v[n++] = sw(4050, 0, 101, PID, 0x1, 103, PID, "main", "main");
	struct lt_event rn = ev(4100, 103, 0, LT_EV_RENAME);
	snprintf(rn.ren.oldcomm, LT_COMM_LEN, "main");
	memcpy(rn.ren.newcomm, "net\x01\xff", 5);
	v[n++] = rn;

	v[n++] = io(4200, 103, 0, 45 /* recvfrom */, 7, 4096);
	v[n++] = sw(4250, 0, 103, PID, 0x1, 0, 0, "net\x01\xff", "swapper/0");
	v[n++] = io(4300, 102, 1, 44 /* sendto */, 8, 100);
	v[n++] = waking(4350, 103, 1, 102, PID, 0);
	v[n++] = sys_exit(4400, 102, 1, 44, 100);
	v[n++] = sw(4450, 0, 0, 0, 0, 103, PID, "swapper/0", "net\x01\xff");
	v[n++] = sys_exit(4500, 103, 0, 45, 100);

	struct lt_event lost = ev(5000, 0, 1, LT_EV_LOST);
	lost.lost.count = 5;
	lost.lost.lost_kind = LT_EV_SWITCH;
	v[n++] = lost;

	v[n++] = futex(5100, 103, 0, FUTEX_WAIT_PRIVATE, ADDR_B, 0, -1);
	v[n++] = sw(5200, 0, 103, PID, 0x1, 4242, 4200, "net\x01\xff", "other");
	/* a switch on cpu 0 from a thread the last recorded switch did not put
	 * there: what ran between is unknown */
	v[n++] = sw(6000, 0, 4343, 4300, 0, 101, PID, "stranger", "main");
	return n;
}

static void convert_ok(const char *in, const char *out)
{
	cr_assert_eq(lt_convert_file(in, out, LT_FORMAT_PERFETTO, 1, 1), 0);
}

static void load_ok(struct pfc *c, const char *path)
{
	if (pfc_load(c, path)) {
		pfc_print_errors(c);
		cr_assert_fail("%s: %d problems in the Perfetto trace", path, c->nerr);
	}
}

/* The story's events in a trace at IN (header make_hdr, end at 9000). */
static void write_story(const char *in)
{
	struct lt_event v[64];
	size_t n = story(v);
	struct lt_header h = make_hdr();
	write_trace(in, &h, v, n, 9000);
}

/* Fresh paths (256 bytes each) for a raw trace and its Perfetto file. */
static void trace_paths(char *in, char *out, const char *tag)
{
	tmp_path(in, 256, tag, ".ltrace");
	tmp_path(out, 256, tag, ".perfetto-trace");
}

/* IN converted to the JSON trace JS, read into buf (n bytes at most, with
 * the NUL). */
static void json_converted(const char *in, const char *js, char *buf, size_t n)
{
	cr_assert_eq(lt_convert_file(in, js, LT_FORMAT_JSON, 1, 1), 0);
	FILE *f = fopen(js, "r");
	cr_assert(f, "cannot read %s", js);
	size_t len = fread(buf, 1, n - 1, f);
	fclose(f);
	buf[len] = 0;
}

/* IN converted to OUT, which the checker loads into C. */
static void convert_load(const char *in, const char *out, struct pfc *c)
{
	convert_ok(in, out);
	load_ok(c, out);
}

Test(perfetto, story_structure_and_content)
{
	char in[256], out[256];
	struct pfc c;

	trace_paths(in, out, "story");
	with_symbols = 1;
	write_story(in);
	with_symbols = 0;
	convert_load(in, out, &c);

	cr_assert_str_eq(c.kernel, "6.18.44-test");
	cr_assert_eq(c.pid, PID);
	/* tracks: the process, each thread with its latest name */
	const struct pfc_track *t = NULL;
	for (size_t i = 0; i < c.ntracks; i++)
		if (c.tracks[i].kind == 'p')
			t = &c.tracks[i];
	cr_assert(t);
	cr_assert_str_eq(t->name, "app");
	cr_assert_str_eq(pfc_thread_track(&c, 101)->name, "main");
	cr_assert_str_eq(pfc_thread_track(&c, 102)->name, "worker");
	cr_assert_str_eq(pfc_thread_track(&c, 103)->name, "net\x01\xef\xbf\xbd"); /* U+FFFD */

	/* the wait and the wake that ended it, joined by a flow */
	const struct pfc_slice *wake = pfc_slice(&c, 102, "FUTEX_WAKE", 0);
	const struct pfc_slice *wait = pfc_slice(&c, 101, "FUTEX_WAIT", 0);
	cr_assert(wake && wait);
	cr_assert_eq(wake->begin, 2000);
	cr_assert_eq(wake->end, 2200);
	cr_assert_eq(wait->begin, 1000);
	cr_assert_eq(wait->end, 2400);
	cr_assert(pfc_flow(&c, wake, wait));
	/* it ends on an instant "woken" nested at the very end of the wait,
	 * so the UI's arrow lands where the wait ended */
	const struct pfc_slice *woken = pfc_slice(&c, 101, "woken", 0);
	cr_assert(woken && woken->instant);
	cr_assert_eq(woken->begin, wait->end);
	cr_assert_geq(woken->parent, 0);
	cr_assert_eq(&c.slices[woken->parent], wait);
	cr_assert_eq(wait->nin, 0);
	cr_assert_eq(woken->nin, 1);
	cr_assert_eq(woken->flows_in[0], wake->flows_out[0]);
	cr_assert_eq(pfc_ann(wait, "addr")->type, PFC_ANN_PTR);
	cr_assert_eq(pfc_ann(wait, "addr")->u, ADDR_A);
	cr_assert_str_eq(pfc_ann(wait, "op")->s, "FUTEX_WAIT|PRIVATE");
	cr_assert_eq(pfc_ann(wait, "expected")->u, 2);
	cr_assert_eq(pfc_ann(wait, "result")->type, PFC_ANN_INT);
	cr_assert_eq(pfc_ann(wait, "result")->u, 0);
	cr_assert_null(pfc_ann(wait, "timeout_ns"));
	cr_assert_eq(pfc_ann(wake, "nr_wake")->u, 1);
	cr_assert_eq(pfc_ann(wake, "result")->u, 1);
	cr_assert_str_eq(pfc_ann(wake, "op")->s, "FUTEX_WAKE|PRIVATE");

	/* the timed wait: errno by name, woken by an interrupt, no flow */
	const struct pfc_slice *tw = pfc_slice(&c, 101, "FUTEX_WAIT", 1);
	cr_assert(tw);
	cr_assert_str_eq(pfc_ann(tw, "errno")->s, "ETIMEDOUT");
	cr_assert_eq(pfc_ann(tw, "timeout_ns")->u, 1000000);
	cr_assert_str_eq(pfc_ann(tw, "woken_by")->s, "interrupt (idle cpu)");
	cr_assert_eq(tw->nin, 0);

	/* the socket: read woken by the peer's write */
	const struct pfc_slice *rd = pfc_slice(&c, 103, "recvfrom", 0);
	const struct pfc_slice *wr = pfc_slice(&c, 102, "sendto", 0);
	cr_assert(rd && wr);
	cr_assert_eq(pfc_ann(rd, "fd")->u, 7);
	cr_assert_eq(pfc_ann(rd, "bytes")->u, 4096);
	cr_assert_eq(pfc_ann(rd, "result")->u, 100);
	cr_assert(pfc_flow(&c, wr, rd));
	cr_assert_eq(c.nflows, 2);

	/* the wait open at the end runs to the end and says so */
	const struct pfc_slice *open = pfc_slice(&c, 103, "FUTEX_WAIT", 0);
	cr_assert(open);
	cr_assert_eq(open->begin, 5100);
	cr_assert_eq(open->end, 9000);
	cr_assert_eq(pfc_ann(open, "unfinished")->u, 1);
	cr_assert(strstr(pfc_ann(open, "note")->s, "still blocked"));

	/* waiters on A: 1 while 101 waited, 0 after, on a counter track */
	cr_assert(wait->counter_track);
	cr_assert_eq(wait->counter_begin, 1);
	cr_assert_eq(wait->counter_end, 0);
	const struct pfc_track *ct = pfc_track(&c, wait->counter_track);
	cr_assert_eq(ct->kind, 'c');
	/* named from the trace's SYMBOLS section, written after the events */
	cr_assert_str_eq(ct->name, "biglock (futex 0x5600000010a0)");
	cr_assert_neq(open->counter_track, wait->counter_track);
	cr_assert_str_eq(pfc_track(&c, open->counter_track)->name, "futex 0x5600000010c8");

	/* lost data: an instant with the count, and the cpu's bundle flagged */
	const struct pfc_slice *lost = NULL;
	for (size_t i = 0; i < c.nslices; i++)
		if (c.slices[i].instant && !strcmp(c.slices[i].name, "lost events"))
			lost = &c.slices[i];
	cr_assert(lost);
	cr_assert_eq(lost->begin, 5000);
	cr_assert_eq(pfc_ann(lost, "count")->u, 5);
	cr_assert_str_eq(pfc_ann(lost, "kind")->s, "switch");
	cr_assert_eq(pfc_track(&c, lost->track)->kind, 'p');
	cr_assert_eq(c.lost_bundles, 1);

	/* scheduler events, on their cpu, with the emitting pid */
	int switches = 0, wakings = 0, newtask = 0, synthetic = 0, real_6000 = 0;
	for (size_t i = 0; i < c.nsched; i++) {
		const struct pfc_sched *e = &c.sched[i];
		if (e->kind == 's') {
			switches++;
			cr_assert_eq(e->pid, (uint32_t)e->prev_pid);
			if (e->ts == 1100) {
				cr_assert_eq(e->cpu, 0);
				cr_assert_eq(e->prev_pid, 101);
				cr_assert_eq(e->prev_state, 1); /* S: TASK_FREEZABLE dropped */
				cr_assert(e->has_prev_comm && e->has_next_comm);
			}
			if (e->ts == 2600) /* main's comm was written already */
				cr_assert_not(e->has_prev_comm);
			if (e->ts == 6000 && e->prev_pid == 4242) {
				/* the one locktrace adds: 4242 leaves for 4343 */
				synthetic++;
				cr_assert_eq(e->next_pid, 4343);
				cr_assert_eq(e->prev_state, 1);
				cr_assert_eq(e->cpu, 0);
				cr_assert_eq(real_6000, 0, "the added switch must come first");
			}
			if (e->ts == 6000 && e->prev_pid == 4343)
				real_6000++;
		} else if (e->kind == 'w') {
			wakings++;
			if (e->ts == 2100) {
				cr_assert_eq(e->cpu, 1);
				cr_assert_eq(e->pid, 102); /* the waker */
				cr_assert_eq(e->wakee, 101);
			}
		} else if (e->kind == 'n') {
			newtask++;
			cr_assert_eq(e->pid, 101);
			cr_assert_eq(e->wakee, 103);
		}
	}
	/* 9 recorded, plus one closing the unknown stretch on cpu 0: 4242
	 * (put there at 5200) did not switch to the stranger at 6000 in the
	 * record */
	cr_assert_eq(switches, 10);
	cr_assert_eq(synthetic, 1);
	cr_assert_eq(real_6000, 1);
	cr_assert_eq(wakings, 3);
	cr_assert_eq(newtask, 1);
	pfc_free(&c);
	unlink(in);
	unlink(out);
}

Test(perfetto, blocked_at_start_and_nothing_else)
{
	char in[256], out[256];
	struct lt_header h = make_hdr();
	struct pfc c;

	hthreads[0].sc_nr = 202;
	hthreads[0].sc_args[0] = ADDR_A;
	hthreads[0].sc_args[1] = FUTEX_WAIT_PRIVATE;
	hthreads[0].sc_args[2] = 2;
	hthreads[0].blocked_ns = 3000000000ull;
	trace_paths(in, out, "start");
	write_trace(in, &h, NULL, 0, 8000);
	convert_load(in, out, &c);
	const struct pfc_slice *s = pfc_slice(&c, 101, "FUTEX_WAIT", 0);
	cr_assert(s);
	cr_assert_eq(s->begin, 500);
	cr_assert_eq(s->end, 8000);
	cr_assert_eq(pfc_ann(s, "blocked_at_start")->u, 1);
	cr_assert_eq(pfc_ann(s, "blocked_before_ns")->u, 3000000000ull);
	cr_assert_eq(pfc_ann(s, "unfinished")->u, 1);
	cr_assert(strstr(pfc_ann(s, "note")->s, "before the trace began"));
	cr_assert_eq(pfc_ann(s, "addr")->u, ADDR_A);
	cr_assert_null(pfc_slice(&c, 102, NULL, 0));
	pfc_free(&c);
	unlink(in);
	unlink(out);
}

/* The kernel reports no switch whose previous task is a thread of PID 1 (a
 * Firecracker VM's agent, here tid 75): main is switched in by one with no
 * record of it.  It runs from its first own event, from what the cpu ran
 * last, and an instant on the process's track says the switch is not in
 * the trace (its own track holds its calls only). */
Test(perfetto, a_switch_in_not_in_the_trace_is_placed_and_marked)
{
	char in[256], out[256];
	struct lt_header h = make_hdr();
	struct pfc c;
	struct lt_event v[] = {
		sw(1000, 0, 101, PID, 1, 75, 1, "main", "tokio-rt-worker"),
		waking(1500, 101, 1, 102, PID, 0),
		/* 75 -> 101 at about 1800, not reported */
		futex(2000, 101, 0, FUTEX_WAKE_PRIVATE, ADDR_A, 1, 0),
		sys_exit(2100, 101, 0, 202, 0),
		sw(2500, 0, 101, PID, 1, 0, 0, "main", "swapper/0"),
	};
	trace_paths(in, out, "unseen");
	write_trace(in, &h, v, sizeof(v) / sizeof(v[0]), 3000);
	/* the conversion counts it */
	struct lt_convert_result res;
	char err[256];
	cr_assert_eq(lt_convert(in, out, LT_FORMAT_PERFETTO, 1, &res, err, sizeof(err)), 0, "%s", err);
	cr_assert_eq(res.unseen_switches, 1);
	load_ok(&c, out);
	int switches = 0, placed = 0;
	for (size_t i = 0; i < c.nsched; i++) {
		const struct pfc_sched *e = &c.sched[i];
		if (e->kind != 's')
			continue;
		switches++;
		cr_assert_eq(e->cpu, 0);
		if (e->ts == 2000) {
			placed++;
			cr_assert_eq(e->prev_pid, 75, "from what the cpu ran last");
			cr_assert_eq(e->next_pid, 101);
			cr_assert_eq(e->pid, 75);
		}
	}
	cr_assert_eq(placed, 1);
	cr_assert_eq(switches, 3, "recorded 2, placed 1, and no other repair");
	const struct pfc_slice *m = NULL;
	int marks = 0;
	for (size_t i = 0; i < c.nslices; i++)
		if (!strcmp(c.slices[i].name, "switch-in not in the trace")) {
			m = &c.slices[i];
			marks++;
		}
	cr_assert_eq(marks, 1);
	cr_assert(m->instant);
	cr_assert_eq(pfc_track(&c, m->track)->kind, 'p');
	cr_assert_eq(m->begin, 2000);
	cr_assert_eq(pfc_ann(m, "tid")->u, 101);
	cr_assert_eq(pfc_ann(m, "cpu")->u, 0);
	cr_assert(strstr(pfc_ann(m, "note")->s, "not reported by the kernel"));
	/* main's track: its call only */
	cr_assert(pfc_slice(&c, 101, "FUTEX_WAKE", 0));
	cr_assert_null(pfc_slice(&c, 101, NULL, 1));
	pfc_free(&c);
	unlink(in);
	unlink(out);
}

/* What Perfetto's importer needs beyond the schema: the machine (its
 * syscall table), the command line in a ProcessTree (the only place it
 * reads one from), and the state of the threads asleep at attach (they emit
 * no scheduler event until they wake). */
static void convert_hdr(struct pfc *c, const char *tag, const struct lt_header *h)
{
	char in[256], out[256];
	trace_paths(in, out, tag);
	write_trace(in, h, NULL, 0, 8000);
	convert_load(in, out, c);
	unlink(in);
	unlink(out);
}

Test(perfetto, machine_cmdline_and_states_at_attach)
{
	struct lt_header h = make_hdr();
	static struct lt_thread_info th[4];
	struct pfc c;

	memcpy(th, hthreads, 2 * sizeof(th[0]));
	h.threads = th;
	h.nthreads = 4;
	th[0].state = 'R';                  /* 101 running: no state */
	th[1].sc_nr = 202;                  /* 102 asleep in a futex wait */
	th[1].sc_args[1] = FUTEX_WAIT_PRIVATE;
	th[1].state = 'S';
	th[2] = (struct lt_thread_info){ .tid = 104, .comm = "disk", .sc_nr = 0, .state = 'D' };
	th[3] = (struct lt_thread_info){ .tid = 105, .comm = "?", .sc_nr = -2, .state = 'S' };
	snprintf(h.machine, sizeof(h.machine), "x86_64");
	snprintf(h.kversion, sizeof(h.kversion), "#1 SMP PREEMPT_DYNAMIC Debian 6.1.0");
	h.ppid = 77;
	convert_hdr(&c, "attach", &h);
	cr_assert_str_eq(c.machine, "x86_64");
	cr_assert_str_eq(c.cmdline, "app --serve \"x\"");
	cr_assert_eq(c.ntask_states, 2);
	cr_assert_eq(c.task_states[0].tid, 102);
	cr_assert_eq(c.task_states[0].state, 4); /* TASK_STATE_INTERRUPTIBLE_SLEEP */
	cr_assert_eq(c.task_states[0].ts, h.clock_boottime);
	cr_assert_eq(c.task_states[1].tid, 104);
	cr_assert_eq(c.task_states[1].state, 5); /* TASK_STATE_UNINTERRUPTIBLE_SLEEP */
	pfc_free(&c);

	/* a trace from before format 1.1 has no machine: it was recorded on
	 * x86-64 all the same; a flight dump's header describes the end, so
	 * it says nothing about how the threads were when the events begin */
	h.machine[0] = 0;
	h.flags |= LT_HDR_FLIGHT;
	convert_hdr(&c, "flight", &h);
	cr_assert_str_eq(c.machine, "x86_64");
	cr_assert_eq(c.ntask_states, 0);
	pfc_free(&c);
}

/* The recorder attaches its probes before it reads the clock for the
 * header, so a busy thread's events may come before it: the trace then
 * begins at its first event.  A thread the header saw asleep is asleep
 * from there, in its call and in its state, in both outputs. */
Test(perfetto, states_at_attach_begin_with_the_trace)
{
	char in[256], out[256], js[256];
	struct lt_header h = make_hdr();
	struct pfc c;

	hthreads[0].state = 'R';          /* 101 busy: a timed wait each tick */
	hthreads[1].sc_nr = 202;          /* 102 asleep in a futex wait */
	hthreads[1].sc_args[0] = ADDR_A;
	hthreads[1].sc_args[1] = FUTEX_WAIT_PRIVATE;
	hthreads[1].state = 'S';
	const struct lt_event v[] = {
		futex(300, 101, 0, FUTEX_WAIT_PRIVATE, ADDR_B, 0, 100), /* before the header's 500 */
		sys_exit(420, 101, 0, 202, -110),
		futex(700, 101, 0, FUTEX_WAIT_PRIVATE, ADDR_B, 0, 100),
		sys_exit(820, 101, 0, 202, -110),
	};
	trace_paths(in, out, "early");
	tmp_path(js, sizeof(js), "early", ".json");
	write_trace(in, &h, v, sizeof(v) / sizeof(v[0]), 8000);
	convert_load(in, out, &c);
	const struct pfc_slice *s = pfc_slice(&c, 102, "FUTEX_WAIT", 0);
	cr_assert(s);
	cr_assert_eq(s->begin, 300);
	cr_assert_eq(c.ntask_states, 1);
	cr_assert_eq(c.task_states[0].tid, 102);
	cr_assert_eq(c.task_states[0].ts, s->begin, "asleep from %llu, its call from %llu",
		     (unsigned long long)c.task_states[0].ts, (unsigned long long)s->begin);
	pfc_free(&c);

	/* the JSON trace has no states; its call begins at the same time */
	char buf[1 << 16];
	json_converted(in, js, buf, sizeof(buf));
	cr_assert(strstr(buf, "{\"ph\":\"X\",\"pid\":100,\"tid\":102,\"name\":\"FUTEX_WAIT\",\"cat\":\"futex\","
			      "\"ts\":0.300,"), "%.2000s", buf);
	unlink(in);
	unlink(out);
	unlink(js);
}

/* trace_processor starts a new thread instance at a task_newtask and binds
 * a thread's track to the instance its descriptor finds: the descriptor
 * must come after it, or slices and scheduler states sit on two threads. */
Test(perfetto, new_thread_described_after_its_task_newtask)
{
	char in[256], out[256];
	struct pfc c;

	trace_paths(in, out, "newtask");
	write_story(in);
	convert_load(in, out, &c);
	const struct pfc_track *t = pfc_thread_track(&c, 103);
	cr_assert(t && t->has_ts);
	uint64_t newtask_ts = 0;
	for (size_t i = 0; i < c.nsched; i++)
		if (c.sched[i].kind == 'n' && c.sched[i].wakee == 103)
			newtask_ts = c.sched[i].ts;
	cr_assert_eq(newtask_ts, 4000);
	cr_assert_eq(t->ts, newtask_ts + 1);
	/* threads of the header are described without a time */
	cr_assert_not(pfc_thread_track(&c, 101)->has_ts);
	pfc_free(&c);
	unlink(in);
	unlink(out);
}

Test(perfetto, prev_state_as_the_kernel_reports_it)
{
	/* 4.14+: one bit of TASK_REPORT, TASK_REPORT_IDLE, TASK_REPORT_MAX */
	cr_assert_eq(lt_report_prev_state(0x0, 0, "6.1.0-18-amd64"), 0x0);
	cr_assert_eq(lt_report_prev_state(0x1, 0, "6.1.0"), 0x1);
	cr_assert_eq(lt_report_prev_state(0x2001, 0, "6.18.44"), 0x1);   /* FREEZABLE|S */
	cr_assert_eq(lt_report_prev_state(0x102, 0, "6.18.44"), 0x2);    /* KILLABLE */
	cr_assert_eq(lt_report_prev_state(0x402, 0, "5.15.0"), 0x80);    /* TASK_IDLE */
	cr_assert_eq(lt_report_prev_state(0x1000, 0, "6.6"), 0x2);       /* RTLOCK_WAIT */
	cr_assert_eq(lt_report_prev_state(0x104, 0, "6.6"), 0x4);        /* TASK_STOPPED */
	cr_assert_eq(lt_report_prev_state(0x40, 0, "6.6"), 0x40);        /* PARKED */
	cr_assert_eq(lt_report_prev_state(0x80, 0, "6.6"), 0x10);        /* DEAD -> X */
	cr_assert_eq(lt_report_prev_state(0x1, 1, "6.6"), 0x100);        /* preempted */
	cr_assert_eq(lt_report_prev_state(0x1, 1, "garbage"), 0x100);
	/* older kernels report the raw state with TASK_STATE_MAX for preemption */
	cr_assert_eq(lt_report_prev_state(0x1, 1, "4.9.0"), 0x1000);
	cr_assert_eq(lt_report_prev_state(0x1, 1, "4.4.0"), 0x800);
	cr_assert_eq(lt_report_prev_state(0x402, 0, "4.9.0"), 0x402);
}

static int have_protoc(void)
{
	return system("protoc --version >/dev/null 2>&1") == 0;
}

Test(perfetto, protoc_accepts_it)
{
	char in[256], out[256], cmd[1024], dec[256];

	if (!have_protoc()) {
		printf("perfetto::protoc_accepts_it: skipped: protoc is not installed "
		       "(apt-get install protobuf-compiler)\n");
		cr_skip_test("protoc is not installed (apt-get install protobuf-compiler)");
	}
	trace_paths(in, out, "protoc");
	tmp_path(dec, sizeof(dec), "protoc", ".txt");
	write_story(in);
	convert_ok(in, out);

	snprintf(cmd, sizeof(cmd), "protoc --decode_raw < %s > /dev/null", out);
	cr_assert_eq(system(cmd), 0, "protoc --decode_raw rejected %s", out);

	/* Against the schema: Perfetto's field numbers and types for every
	 * message locktrace writes (tests/perfetto_subset.proto).  A field
	 * whose number or wire type is wrong decodes as an unknown field,
	 * which protoc prints by number. */
	snprintf(cmd, sizeof(cmd),
		 "protoc -Itests --decode=perfetto.protos.Trace tests/perfetto_subset.proto < %s > %s",
		 out, dec);
	cr_assert_eq(system(cmd), 0, "protoc --decode rejected %s", out);
	FILE *f = fopen(dec, "r");
	cr_assert(f);
	char line[512];
	int unknown = 0, packets = 0, slices = 0;
	while (fgets(line, sizeof(line), f)) {
		const char *p = line + strspn(line, " ");
		if (*p >= '0' && *p <= '9') {
			fprintf(stderr, "unknown field: %s", line);
			unknown++;
		}
		packets += !strncmp(p, "packet {", 8);
		slices += !strncmp(p, "type: TYPE_SLICE_BEGIN", 22);
	}
	fclose(f);
	cr_assert_eq(unknown, 0);
	cr_assert_gt(packets, 10);
	cr_assert_eq(slices, 6);
	unlink(in);
	unlink(out);
	unlink(dec);
}

/* ---- bad input, through the command ---------------------------------- */

static int run_convert(char *const argv[], char lines[][256], int *n)
{
	struct tl_proc p;
	char line[256];
	*n = 0;
	cr_assert_eq(tl_spawn(&p, argv), 0);
	tl_go(&p);
	while (*n < 16 && tl_readline(&p, 1, line, sizeof(line), 20000) == 1)
		snprintf(lines[(*n)++], 256, "%s", line);
	int st = tl_wait(&p, 20000);
	tl_close(&p);
	cr_assert(WIFEXITED(st), "locktrace convert did not exit");
	return WEXITSTATUS(st);
}

static const char *find_line(char lines[][256], int n, const char *needle)
{
	for (int i = 0; i < n; i++)
		if (strstr(lines[i], needle))
			return lines[i];
	return NULL;
}

Test(perfetto, damaged_input)
{
	char in[256], out[256], lines[16][256];
	int n;
	struct lt_header h = make_hdr();

	if (access(LT_BIN, X_OK))
		cr_skip_test("%s is not built (make all)", LT_BIN);
	/* enough events for several chunks */
	size_t nev = 60000;
	struct lt_event *v = calloc(nev, sizeof(*v));
	for (size_t i = 0; i < nev; i += 2) {
		v[i] = futex(1000 + i * 100, 101 + (i / 2) % 2, 0, FUTEX_WAKE_PRIVATE, ADDR_A, 1, 0);
		v[i + 1] = sys_exit(1050 + i * 100, 101 + (i / 2) % 2, 0, 202, 0);
	}
	trace_paths(in, out, "cut");
	write_trace(in, &h, v, nev, 0);
	free(v);
	struct stat sb;
	cr_assert_eq(stat(in, &sb), 0);
	off_t cut = sb.st_size * 2 / 3;
	cr_assert_eq(truncate(in, cut), 0);

	char *argv[] = { LT_BIN, "convert", in, "-o", out, NULL };
	int rc = run_convert(argv, lines, &n);
	cr_assert_eq(rc, 3, "exit status %d for a cut trace", rc);
	const char *w = find_line(lines, n, "warning");
	cr_assert(w, "no warning for a cut trace");
	cr_assert(strstr(w, "at offset "), "the warning names no offset: %s", w);
	cr_assert(strstr(w, "truncated"), "%s", w);
	struct pfc c;
	load_ok(&c, out);
	cr_assert_gt(c.nslices, 1000); /* everything up to the cut */
	pfc_free(&c);

	/* refuses to overwrite */
	rc = run_convert(argv, lines, &n);
	cr_assert_eq(rc, 1);
	cr_assert(find_line(lines, n, "already exists"));
	cr_assert(find_line(lines, n, "--force"));

	/* a file that is not a trace */
	unlink(out);
	FILE *f = fopen(in, "w");
	fputs("{\"traceEvents\":[]}\n", f);
	fclose(f);
	rc = run_convert(argv, lines, &n);
	cr_assert_eq(rc, 1);
	cr_assert(find_line(lines, n, "not a locktrace trace"), "%s", n ? lines[0] : "(nothing)");
	cr_assert_neq(access(out, F_OK), 0, "an output was left behind");
	unlink(in);
}

Test(perfetto, default_output_name)
{
	char out[256];
	cr_assert_eq(lt_convert_out_path("/a/b/hang.ltrace", LT_FORMAT_PERFETTO, out, sizeof(out)), 0);
	cr_assert_str_eq(out, "/a/b/hang.perfetto-trace");
	cr_assert_eq(lt_convert_out_path("hang", LT_FORMAT_PERFETTO, out, sizeof(out)), 0);
	cr_assert_str_eq(out, "hang.perfetto-trace");
	cr_assert_eq(lt_convert_out_path("x.ltrace", LT_FORMAT_JSON, out, sizeof(out)), 0);
	cr_assert_str_eq(out, "x.json");
	cr_assert_eq(lt_convert_out_path("x.ltrace", LT_FORMAT_JSON, out, 6), -1);
}

/* ---- streaming: memory does not grow with the trace ------------------- */

/* Feeds n events of a two-thread hand-off through timeline and writer in
 * a child; returns the child's peak RSS in KiB. */
static long rss_after(size_t n)
{
	int fds[2];
	cr_assert_eq(pipe(fds), 0);
	pid_t pid = fork();
	if (pid == 0) {
		struct lt_header h = make_hdr();
		FILE *f = fopen("/dev/null", "w");
		struct lt_perfetto *p = lt_perfetto_new(f, &h);
		struct lt_timeline_sink sink;
		lt_perfetto_sink(p, &sink);
		struct lt_timeline *tl = lt_timeline_new(&h, &sink, NULL);
		uint64_t ts = 1000;
		for (size_t i = 0; i < n; i += 7) {
			uint32_t a = 101 + (i / 7) % 2, b = a == 101 ? 102 : 101;
			struct lt_event e[7] = {
				futex(ts, a, 0, FUTEX_WAKE_PRIVATE, ADDR_A, 1, 0),
				waking(ts + 1000, b, 0, a, PID, 0),
				sys_exit(ts + 2000, a, 0, 202, 1),
				futex(ts + 3000, a, 0, FUTEX_WAIT_PRIVATE, ADDR_A, 0, -1),
				sw(ts + 4000, 0, a, PID, 1, b, PID, "", ""),
				sys_exit(ts + 5000, b, 0, 202, 0),
				sw(ts + 6000, 1, 0, 0, 0, 0, 0, "swapper/1", "swapper/1"),
			};
			for (int k = 0; k < 7; k++)
				lt_timeline_event(tl, &e[k]);
			ts += 7000;
		}
		lt_timeline_finish(tl, 0);
		lt_perfetto_finish(p);
		struct rusage ru;
		getrusage(RUSAGE_SELF, &ru);
		long kb = ru.ru_maxrss;
		ssize_t w = write(fds[1], &kb, sizeof(kb));
		_exit(w == sizeof(kb) ? 0 : 1);
	}
	close(fds[1]);
	long kb = 0;
	cr_assert_eq(read(fds[0], &kb, sizeof(kb)), (ssize_t)sizeof(kb));
	close(fds[0]);
	int st;
	waitpid(pid, &st, 0);
	cr_assert(WIFEXITED(st) && WEXITSTATUS(st) == 0);
	return kb;
}

Test(perfetto, memory_bounded_by_threads_not_length)
{
	/* 1 us per event: the 250 ms sort window holds ~250k events (20 MB)
	 * once the trace is longer than that, whatever its length */
	long small = rss_after(700000), big = rss_after(3500000);
	cr_assert_lt(big - small, 8 * 1024, "peak RSS %ld KiB for 3.5M events vs %ld KiB for 0.7M",
		     big, small);
}

/* ---- JSON ----------------------------------------------------------------- */

Test(json, escaping)
{
	char out[256];
	size_t n;

	n = lt_json_escape(out, sizeof(out), "plain", 5);
	cr_assert_str_eq(out, "plain");
	cr_assert_eq(n, 5);
	lt_json_escape(out, sizeof(out), "a\"b\\c", 5);
	cr_assert_str_eq(out, "a\\\"b\\\\c");
	lt_json_escape(out, sizeof(out), "\n\t\r\b\f\x01\x1f\x7f", 8);
	cr_assert_str_eq(out, "\\n\\t\\r\\b\\f\\u0001\\u001f\\u007f");
	/* valid UTF-8 passes; invalid bytes become U+FFFD, one per byte */
	lt_json_escape(out, sizeof(out), "\xc3\xa9\xe2\x82\xac\xf0\x9f\x98\x80", 9);
	cr_assert_str_eq(out, "\xc3\xa9\xe2\x82\xac\xf0\x9f\x98\x80");
	lt_json_escape(out, sizeof(out), "a\xff" "b\xc3", 4);
	cr_assert_str_eq(out, "a\\ufffdb\\ufffd");
	lt_json_escape(out, sizeof(out), "\xc0\xaf", 2); /* overlong '/' */
	cr_assert_str_eq(out, "\\ufffd\\ufffd");
	lt_json_escape(out, sizeof(out), "\xed\xa0\x80", 3); /* a surrogate */
	cr_assert_str_eq(out, "\\ufffd\\ufffd\\ufffd");
	lt_json_escape(out, sizeof(out), "\xe2\x80\xa8", 3); /* U+2028 */
	cr_assert_str_eq(out, "\\u2028");
	/* an embedded NUL is a control character too */
	lt_json_escape(out, sizeof(out), "a\0b", 3);
	cr_assert_str_eq(out, "a\\u0000b");
	/* never a cut escape */
	n = lt_json_escape(out, 4, "\"\"\"", 3);
	cr_assert_str_eq(out, "\\\"");
	cr_assert_eq(n, 2);
}

/* A strict JSON checker: one value, strings with valid escapes, no raw
 * control characters, valid UTF-8. */
struct jp {
	const unsigned char *p, *end;
	int err;
};

static void jp_ws(struct jp *j)
{
	while (j->p < j->end && (*j->p == ' ' || *j->p == '\n' || *j->p == '\r' || *j->p == '\t'))
		j->p++;
}

static int jp_utf8(const unsigned char *s, const unsigned char *end)
{
	int len = *s >= 0xf0 ? 4 : *s >= 0xe0 ? 3 : *s >= 0xc0 ? 2 : 0;
	if (*s < 0xc2 || *s > 0xf4 || end - s < len)
		return 0;
	uint32_t cp = *s & (0x7f >> len);
	for (int i = 1; i < len; i++) {
		if ((s[i] & 0xc0) != 0x80)
			return 0;
		cp = cp << 6 | (s[i] & 0x3f);
	}
	if ((len == 3 && cp < 0x800) || (len == 4 && (cp < 0x10000 || cp > 0x10ffff)) ||
	    (cp >= 0xd800 && cp <= 0xdfff))
		return 0;
	return len;
}

static void jp_value(struct jp *j);

static void jp_string(struct jp *j)
{
	j->p++;
	while (j->p < j->end && *j->p != '"') {
		if (*j->p < 0x20) {
			j->err = 1;
			return;
		}
		if (*j->p == '\\') {
			j->p++;
			if (j->p >= j->end || !strchr("\"\\/bfnrtu", *j->p)) {
				j->err = 1;
				return;
			}
			if (*j->p == 'u') {
				for (int i = 1; i <= 4; i++)
					if (j->p + i >= j->end || !strchr("0123456789abcdefABCDEF", j->p[i])) {
						j->err = 1;
						return;
					}
				j->p += 4;
			}
			j->p++;
		} else if (*j->p >= 0x80) {
			int l = jp_utf8(j->p, j->end);
			if (!l) {
				j->err = 1;
				return;
			}
			j->p += l;
		} else {
			j->p++;
		}
	}
	if (j->p >= j->end)
		j->err = 1;
	else
		j->p++;
}

static void jp_value(struct jp *j)
{
	jp_ws(j);
	if (j->err || j->p >= j->end) {
		j->err = 1;
		return;
	}
	unsigned char c = *j->p;
	if (c == '{' || c == '[') {
		unsigned char close = c == '{' ? '}' : ']';
		j->p++;
		jp_ws(j);
		if (j->p < j->end && *j->p == close) {
			j->p++;
			return;
		}
		for (;;) {
			if (c == '{') {
				jp_ws(j);
				if (j->p >= j->end || *j->p != '"') {
					j->err = 1;
					return;
				}
				jp_string(j);
				jp_ws(j);
				if (j->err || j->p >= j->end || *j->p != ':') {
					j->err = 1;
					return;
				}
				j->p++;
			}
			jp_value(j);
			jp_ws(j);
			if (j->err || j->p >= j->end) {
				j->err = 1;
				return;
			}
			if (*j->p == ',') {
				j->p++;
				continue;
			}
			if (*j->p == close) {
				j->p++;
				return;
			}
			j->err = 1;
			return;
		}
	}
	if (c == '"') {
		jp_string(j);
		return;
	}
	if (!strncmp((const char *)j->p, "true", 4) && j->end - j->p >= 4) {
		j->p += 4;
		return;
	}
	if (!strncmp((const char *)j->p, "false", 5) && j->end - j->p >= 5) {
		j->p += 5;
		return;
	}
	if (c == '-' || (c >= '0' && c <= '9')) {
		char *e;
		strtod((const char *)j->p, &e);
		if ((const unsigned char *)e == j->p)
			j->err = 1;
		j->p = (const unsigned char *)e;
		return;
	}
	j->err = 1;
}

static int json_valid(const char *s, size_t n)
{
	struct jp j = { (const unsigned char *)s, (const unsigned char *)s + n, 0 };
	jp_value(&j);
	jp_ws(&j);
	return !j.err && j.p == j.end;
}

Test(json, whole_document_is_valid_whatever_the_names)
{
	char in[256], out[256];
	struct lt_event v[64];
	size_t n = story(v);
	struct lt_header h = make_hdr();

	/* names with every kind of trouble */
	memcpy(hthreads[0].comm, "q\"\\\n\x01\xff\xc3", 7);
	memcpy(h.comm, "\x7f\xe2\x80\xa8z", 5);
	memcpy(h.cmdline, "a\tb\"c\\\xfe", 8);
	v[n] = waking(8000, 101, 1, 4242, 4200, 0);
	memcpy(v[n].wake.waker_comm, "bad\"\xff\x02", 6);
	n++;

	tmp_path(in, sizeof(in), "json", ".ltrace");
	tmp_path(out, sizeof(out), "json", ".json");
	write_trace(in, &h, v, n, 9000);
	cr_assert_eq(lt_convert_file(in, out, LT_FORMAT_JSON, 1, 1), 0);

	FILE *f = fopen(out, "rb");
	cr_assert(f);
	static char buf[1 << 20];
	size_t len = fread(buf, 1, sizeof(buf), f);
	fclose(f);
	cr_assert(json_valid(buf, len), "the JSON output does not parse:\n%.*s", (int)len, buf);
	cr_assert(strstr(buf, "\"name\":\"q\\\"\\\\\\n\\u0001\\ufffd\\ufffd\""), "%s", buf);
	cr_assert(strstr(buf, "\"ph\":\"X\""));
	cr_assert(strstr(buf, "\"ph\":\"s\""));
	cr_assert(strstr(buf, "\"ph\":\"f\",\"pid\":100,\"tid\":101,\"bp\":\"e\""));
	cr_assert(strstr(buf, "\"name\":\"FUTEX_WAIT\""));
	cr_assert(strstr(buf, "\"errno\":\"ETIMEDOUT\""));
	cr_assert(strstr(buf, "\"name\":\"lost events\""));
	cr_assert(strstr(buf, "\"name\":\"futex 0x5600000010a0\",\"ts\":1.000,\"args\":{\"waiters\":1}"));
	cr_assert(strstr(buf, "\"dur\":1.400"), "the first wait lasts 1400 ns");
	/* the flow into it ends in "woken", from the wake-up (2100) to the
	 * wait's end (2400): a slice that begins after the waking call, so
	 * Perfetto's importer points the flow from the waker */
	cr_assert(strstr(buf, "\"tid\":101,\"name\":\"woken\",\"cat\":\"wake\",\"ts\":2.100,\"dur\":0.300}"),
		  "%s", buf);
	cr_assert(strstr(buf, "\"tid\":101,\"bp\":\"e\",\"name\":\"wake\",\"cat\":\"wake\",\"id\":"));
	unlink(in);
	unlink(out);
}

/* Thread tracks carry the runtime's thread name a snapshot read (after
 * the events: the convert reads snapshots before it writes), in Perfetto
 * and in the JSON trace; threads it did not name keep their comm. */
Test(perfetto, runtime_thread_names_from_the_snapshot)
{
	char in[256], out[256], js[256];
	struct pfc c;

	trace_paths(in, out, "rtnames");
	tmp_path(js, sizeof(js), "rtnames", ".json");
	with_snapshot = 1;
	write_story(in);
	with_snapshot = 0;
	convert_load(in, out, &c);
	cr_assert_str_eq(pfc_thread_track(&c, 101)->name, "main");
	cr_assert_str_eq(pfc_thread_track(&c, 102)->name, "pool-\xc3\xa9 (run)");
	pfc_free(&c);
	char buf[1 << 16];
	json_converted(in, js, buf, sizeof(buf));
	cr_assert(strstr(buf, "\"tid\":102,\"name\":\"thread_name\",\"args\":{\"name\":\"pool-\xc3\xa9 (run)\"}"),
		  "%.2000s", buf);
	unlink(in);
	unlink(out);
	unlink(js);
}

/* A recorded read says what its fd was: a pipe or FIFO when flagged so, a
 * socket otherwise (the recorder records fd I/O on nothing else). */
Test(perfetto, fd_io_slices_say_socket_or_pipe)
{
	char in[256], out[256];
	struct lt_header h = make_hdr();
	struct pfc c;
	struct lt_event v[] = {
		lt_ev_io(1000, 101, 0, LT_NR_READ, 5, 4096),
		lt_ev_exit(2000, 101, 0, LT_NR_READ, 10),
		lt_ev_io(3000, 101, 0, LT_NR_READ, 6, 4096),
		lt_ev_exit(4000, 101, 0, LT_NR_READ, 10),
	};
	v[2].h.flags = LT_F_IO_PIPE;
	trace_paths(in, out, "fdkind");
	write_trace(in, &h, v, 4, 8000);
	convert_load(in, out, &c);
	const struct pfc_slice *so = pfc_slice(&c, 101, "read", 0);
	const struct pfc_slice *pi = pfc_slice(&c, 101, "read", 1);
	cr_assert(so && pi, "no read slices");
	cr_expect_eq(pfc_ann(so, "fd")->u, 5);
	cr_expect_str_eq(pfc_ann(so, "fd_kind")->s, "socket");
	cr_expect_eq(pfc_ann(pi, "fd")->u, 6);
	cr_expect_str_eq(pfc_ann(pi, "fd_kind")->s, "pipe");
	pfc_free(&c);
	char js[256], buf[1 << 14];
	tmp_path(js, sizeof(js), "fdkind", ".json");
	json_converted(in, js, buf, sizeof(buf));
	cr_expect(strstr(buf, "\"fd\":5,\"bytes\":4096,\"fd_kind\":\"socket\""), "%s", buf);
	cr_expect(strstr(buf, "\"fd\":6,\"bytes\":4096,\"fd_kind\":\"pipe\""), "%s", buf);
	unlink(in);
	unlink(out);
	unlink(js);
}

/* A recorded fcntl(F_SETLKW) wait is a slice named for the file lock, with
 * its fd and the decoded call, ended by its return. */
Test(perfetto, file_lock_wait_is_a_named_slice)
{
	char in[256], out[256];
	struct lt_header h = make_hdr();
	struct pfc c;
	const struct lt_event v[] = {
		lt_ev_flock(1000, 101, LT_NR_FCNTL, 5, LT_F_SETLKW, 1, 10, 3),
		lt_ev_exit(4000, 101, 0, LT_NR_FCNTL, 0),
	};
	trace_paths(in, out, "flock");
	write_trace(in, &h, v, 2, 8000);
	convert_load(in, out, &c);
	const struct pfc_slice *s = pfc_slice(&c, 101, "file lock (fcntl F_SETLKW)", 0);
	cr_assert(s, "no file-lock slice");
	cr_expect_eq(s->begin, 1000);
	cr_expect_eq(s->end, 4000);
	cr_expect_eq(pfc_ann(s, "fd")->u, 5);
	cr_expect_str_eq(pfc_ann(s, "call")->s, "fcntl(fd 5, F_SETLKW, write lock 10..12)");
	pfc_free(&c);
	unlink(in);
	unlink(out);

	/* a snapshot that saw it wait on fd 5 names the file */
	snapshot_json = "{\"schema\":\"locktrace.snapshot/1\",\"pid\":100,\"threads\":["
			"{\"tid\":101,\"comm\":\"main\",\"wait_for\":{\"pid\":100,\"edges\":["
			"{\"kind\":\"file_lock\",\"fd\":5,\"what\":\"POSIX WRITE lock on /tmp/q.lock "
			"(bytes 10-12, inode fe:00:7)\",\"pids\":[77]}]}}]}";
	trace_paths(in, out, "flock2");
	write_trace(in, &h, v, 2, 8000);
	snapshot_json = NULL;
	convert_load(in, out, &c);
	cr_assert(pfc_slice(&c, 101, "file lock on /tmp/q.lock (fcntl F_SETLKW)", 0), "not named for its file");
	pfc_free(&c);
	unlink(in);
	unlink(out);
}
