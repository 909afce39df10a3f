/* Traces of several processes, read (issue 12): synthetic two-process
 * traces through the timeline, the report and the Perfetto writer.  The
 * same address in two processes is two locks unless it lies in a shared
 * mapping (the header's shared maps, or a SYMBOLS entry's shared key);
 * threads know their process; a deadlock cycle through two processes over
 * shared mutexes is found; Perfetto gets one process track per process.
 * No root needed. */
#include <criterion/criterion.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include "convert.h"
#include "lockid.h"
#include "report.h"
#include "timeline.h"
#include "locktrace/tracefile.h"
#include "varint.h"
#include "lt_events.h"
#include "lt_test.h"
#include "pf_check.h"

#define P1 100
#define P2 200
#define T1 101 /* of P1 */
#define T2 201 /* of P2 */
#define FUTEX_WAIT 0
#define FUTEX_WAKE 1
#define FUTEX_WAIT_PRIVATE 0x80
/* the objects A and B, at other addresses in each process */
#define A1 0x7f0000001000ull
#define B1 0x7f0000001040ull
#define A2 0x7f0000009000ull
#define B2 0x7f0000009040ull
#define SHM_DEV 5
#define SHM_INO 77

static struct lt_thread_info hthreads[2];
static struct lt_proc_info hprocs[2];
static struct lt_shared_map hshared[2];

/* Two processes traced from the start, one thread each. */
static struct lt_header make_hdr(int shared_maps)
{
	struct lt_header h;
	memset(&h, 0, sizeof(h));
	memset(hthreads, 0, sizeof(hthreads));
	memset(hprocs, 0, sizeof(hprocs));
	h.version_major = LT_VERSION_MAJOR;
	h.version_minor = LT_VERSION_MINOR;
	h.pid = P1;
	h.ppid = 1;
	h.ncpus = 2;
	snprintf(h.comm, sizeof(h.comm), "server");
	snprintf(h.cmdline, sizeof(h.cmdline), "server --workers 1");
	h.clock_boottime = 500;
	h.clock_monotonic = 400;
	h.nthreads = 2;
	h.threads = hthreads;
	hthreads[0] = (struct lt_thread_info){ .tid = T1, .sc_nr = -3, .tgid = P1 };
	snprintf(hthreads[0].comm, LT_COMM_LEN, "srv-main");
	hthreads[1] = (struct lt_thread_info){ .tid = T2, .sc_nr = -3, .tgid = P2 };
	snprintf(hthreads[1].comm, LT_COMM_LEN, "wrk-main");
	h.nprocs = 2;
	h.procs = hprocs;
	hprocs[0] = (struct lt_proc_info){ .tgid = P1, .ppid = 1, .flags = LT_PROC_GIVEN };
	snprintf(hprocs[0].comm, LT_COMM_LEN, "server");
	snprintf(hprocs[0].cmdline, sizeof(hprocs[0].cmdline), "server --workers 1");
	hprocs[1] = (struct lt_proc_info){ .tgid = P2, .ppid = P1, .flags = LT_PROC_GIVEN };
	snprintf(hprocs[1].comm, LT_COMM_LEN, "worker");
	snprintf(hprocs[1].cmdline, sizeof(hprocs[1].cmdline), "worker --id 1");
	if (shared_maps) { /* one page of object (5, 77) at another address in each */
		hshared[0] = (struct lt_shared_map){ P1, A1, A1 + 4096, 0, SHM_DEV, SHM_INO };
		hshared[1] = (struct lt_shared_map){ P2, A2, A2 + 4096, 0, SHM_DEV, SHM_INO };
		h.nshared = 2;
		h.shared = hshared;
	}
	return h;
}

static struct lt_event futex(uint64_t ts, uint32_t tid, uint32_t op, uint64_t uaddr, uint32_t val)
{
	return lt_ev_futex(ts, tid, 0, op, uaddr, val, -1, 0xffffffff);
}

static struct lt_event out_asleep(uint64_t ts, uint32_t tid, uint32_t tgid)
{
	return lt_ev_switch(ts, 0, tid, tgid, 1, 0, 0, "", "swapper/0");
}

static struct lt_event in(uint64_t ts, uint32_t tid, uint32_t tgid)
{
	return lt_ev_switch(ts, 0, 0, 0, 0, tid, tgid, "swapper/0", "");
}

/* T1 takes A after a wait T2 ends, T2 takes B after a wait T1 ends; then
 * each waits for the other's lock: a deadlock through both processes,
 * visible only if A1/A2 and B1/B2 are known to be the same locks. */
static size_t cycle_story(struct lt_event *v)
{
	size_t n = 0;
	v[n++] = futex(1000, T1, FUTEX_WAIT, A1, 2);
	v[n++] = out_asleep(1100, T1, P1);
	v[n++] = futex(2000, T2, FUTEX_WAKE, A2, 1);
	v[n++] = lt_ev_waking(2050, T1, 0, T2, P2, 0, 0, "wrk-main");
	v[n++] = lt_ev_exit(2100, T2, 0, 202, 1);
	v[n++] = in(2200, T1, P1);
	v[n++] = lt_ev_exit(2300, T1, 0, 202, 0);
	v[n++] = futex(3000, T2, FUTEX_WAIT, B2, 2);
	v[n++] = out_asleep(3100, T2, P2);
	v[n++] = futex(4000, T1, FUTEX_WAKE, B1, 1);
	v[n++] = lt_ev_waking(4050, T2, 0, T1, P1, 0, 0, "srv-main");
	v[n++] = lt_ev_exit(4100, T1, 0, 202, 1);
	v[n++] = in(4200, T2, P2);
	v[n++] = lt_ev_exit(4300, T2, 0, 202, 0);
	v[n++] = futex(5000, T1, FUTEX_WAIT, B1, 2);
	v[n++] = out_asleep(5100, T1, P1);
	v[n++] = futex(6000, T2, FUTEX_WAIT, A2, 2);
	v[n++] = out_asleep(6100, T2, P2);
	return n;
}

/* One SYMBOLS entry: 1 addr, 2 name, 3 tgid, and 4-6 the shared key. */
static uint8_t *sym_entry(uint8_t *p, uint32_t tgid, uint64_t addr, const char *name, uint64_t off)
{
	uint8_t ent[128], *e = ent, a[10];
	size_t al = (size_t)(lt_put_varint(a, addr) - a), nl = strlen(name);
	e = lt_put_varint(lt_put_varint(e, 1), al);
	memcpy(e, a, al);
	e += al;
	e = lt_put_varint(lt_put_varint(e, 2), nl);
	memcpy(e, name, nl);
	e += nl;
	const uint64_t kv[][2] = { { 3, tgid }, { 4, SHM_DEV }, { 5, SHM_INO }, { 6, off } };
	for (int k = 0; k < 4; k++) {
		al = (size_t)(lt_put_varint(a, kv[k][1]) - a);
		e = lt_put_varint(lt_put_varint(e, kv[k][0]), al);
		memcpy(e, a, al);
		e += al;
	}
	p = lt_put_varint(lt_put_varint(p, 1), (uint64_t)(e - ent));
	memcpy(p, ent, (size_t)(e - ent));
	return p + (e - ent);
}

/* Written after the events, as the recorder names addresses after it
 * first sees them: the reader must still key the waits by object. */
static void write_shared_symbols(struct lt_writer *w)
{
	uint8_t buf[512], *p = buf;
	p = sym_entry(p, P1, A1, "A", 0);
	p = sym_entry(p, P2, A2, "A", 0);
	p = sym_entry(p, P1, B1, "B", 0x40);
	p = sym_entry(p, P2, B2, "B", 0x40);
	cr_assert_eq(lt_writer_section(w, LT_CHUNK_SYMBOLS, buf, (size_t)(p - buf)), 0);
}

static void write_trace(const char *path, const struct lt_header *h, const struct lt_event *v, size_t n,
			int syms)
{
	struct lt_writer *w;
	cr_assert_eq(lt_writer_open(&w, path, 1), 0, "cannot create %s", path);
	cr_assert_eq(lt_writer_header(w, h), 0);
	for (size_t i = 0; i < n; i++)
		cr_assert_eq(lt_writer_event(w, &v[i]), 0);
	cr_assert_eq(lt_writer_flush(w), 0);
	if (syms)
		write_shared_symbols(w);
	struct lt_stats st = { .start_ns = h->clock_boottime, .end_ns = 3000000000ull, .ncpus = 2,
			       .exit_status = -1 };
	cr_assert_eq(lt_writer_stats(w, &st), 0);
	cr_assert_eq(lt_writer_close(w), 0);
}

static void tmp_path(char *buf, size_t n, const char *tag, const char *ext)
{
	snprintf(buf, n, "/tmp/lt-mview-%s-%d%s", tag, (int)getpid(), ext);
}

/* The cycle story as a trace at a new path in buf (syms: with the
 * SYMBOLS shared keys that make A and B one lock each). */
static void cycle_trace(char *buf, size_t n, const char *tag, int syms)
{
	struct lt_event v[32];
	size_t nv = cycle_story(v);
	struct lt_header h = make_hdr(0);
	tmp_path(buf, n, tag, ".ltrace");
	write_trace(buf, &h, v, nv, syms);
}

/* The trace at path converted to format, at a new path in out. */
static void cycle_converted(char *in_path, size_t n, char *out, size_t m, const char *tag, int format)
{
	cycle_trace(in_path, n, tag, 1);
	tmp_path(out, m, tag, format == LT_FORMAT_JSON ? ".json" : ".perfetto-trace");
	cr_assert_eq(lt_convert_file(in_path, out, format, 1, 1), 0);
}

/* ---- timeline ------------------------------------------------------- */

struct locks_seen {
	uint64_t keys[8];
	uint32_t uids[8];
	int n;
	uint32_t tgid_of[2]; /* T1's and T2's, from the thread events */
};

static void on_lock(void *ctx, const struct lt_lock_ev *l)
{
	struct locks_seen *s = ctx;
	if (l->first && s->n < 8) {
		s->keys[s->n] = l->addr;
		s->uids[s->n++] = l->uid;
	}
}

static void on_thread(void *ctx, const struct lt_thread_ev *t)
{
	struct locks_seen *s = ctx;
	if (t->change == LT_THREAD_NEW && (t->tid == T1 || t->tid == T2))
		s->tgid_of[t->tid == T2] = t->tgid;
}

/* Both threads wait on the same address, each in its own process. */
static struct locks_seen same_address(int shared_maps, uint32_t op)
{
	struct lt_header h = make_hdr(shared_maps);
	struct locks_seen s = { 0 };
	struct lt_timeline_sink sink = { .ctx = &s, .lock = on_lock, .thread = on_thread };
	struct lt_timeline *tl = lt_timeline_new(&h, &sink, NULL);
	cr_assert(tl);
	struct lt_event v[] = {
		futex(1000, T1, op, A1 + 8, 0), out_asleep(1100, T1, P1),
		futex(2000, T2, op, A1 + 8, 0), out_asleep(2100, T2, P2),
	};
	for (size_t i = 0; i < sizeof(v) / sizeof(v[0]); i++)
		cr_assert_eq(lt_timeline_event(tl, &v[i]), 0);
	lt_timeline_finish(tl, 9000);
	lt_timeline_free(tl);
	return s;
}

Test(multi_view, same_private_address_in_two_processes_is_two_locks)
{
	struct locks_seen s = same_address(0, FUTEX_WAIT);
	cr_assert_eq(s.tgid_of[0], P1);
	cr_assert_eq(s.tgid_of[1], P2);
	cr_assert_eq(s.n, 2, "%d locks", s.n);
	cr_assert_neq(s.uids[0], s.uids[1]);
	/* the trace's own process keeps the plain address as the key */
	cr_assert_eq(s.keys[0], A1 + 8);
	cr_assert_neq(s.keys[1], A1 + 8);
}

Test(multi_view, header_shared_maps_join_them)
{
	/* A1 + 8 of P2 is outside its mapping of the object: still P2's own */
	struct locks_seen s = same_address(1, FUTEX_WAIT);
	cr_assert_eq(s.n, 2);

	struct lt_header h = make_hdr(1);
	struct lt_lockid *ids = lt_lockid_new(&h);
	cr_assert(ids);
	uint64_t k1 = lt_lockid_key(ids, P1, A1 + 0x40, 0), k2 = lt_lockid_key(ids, P2, A2 + 0x40, 0);
	cr_assert_eq(k1, k2, "the same word of the object at two addresses");
	struct lt_lock_ident id;
	cr_assert_eq(lt_lockid_decode(ids, k1, &id), 0);
	cr_assert(id.shared);
	cr_assert_eq(id.ino, SHM_INO);
	cr_assert_eq(id.offset, 0x40);
	/* FUTEX_PRIVATE_FLAG: the kernel keys it by the process, shared or not */
	cr_assert_neq(lt_lockid_key(ids, P1, A1 + 0x40, 1), lt_lockid_key(ids, P2, A2 + 0x40, 1));
	/* a forked child inherits its parent's mappings */
	cr_assert_eq(lt_lockid_fork(ids, P2, 300), 0);
	cr_assert_eq(lt_lockid_key(ids, 300, A2 + 0x40, 0), k1);
	char buf[96];
	cr_assert_str_eq(lt_lockid_format(ids, k1, buf, sizeof(buf)), "inode 77 (dev 0:5)+0x40");
	cr_assert_str_eq(lt_lockid_format(ids, lt_lockid_key(ids, P2, 0x1234, 0), buf, sizeof(buf)),
			 "0x1234 in process 200");
	lt_lockid_free(ids);

	/* the waits on A+8 in both processes' mappings: one lock */
	h = make_hdr(1);
	struct locks_seen s2 = { 0 };
	struct lt_timeline_sink sink = { .ctx = &s2, .lock = on_lock };
	struct lt_timeline *tl = lt_timeline_new(&h, &sink, NULL);
	struct lt_event v[] = { futex(1000, T1, FUTEX_WAIT, A1 + 8, 0), futex(2000, T2, FUTEX_WAIT, A2 + 8, 0) };
	for (size_t i = 0; i < 2; i++)
		lt_timeline_event(tl, &v[i]);
	lt_timeline_finish(tl, 9000);
	lt_timeline_free(tl);
	cr_assert_eq(s2.n, 1, "%d locks", s2.n);
}

Test(multi_view, forked_process_known_from_task_new)
{
	struct lt_header h = make_hdr(0);
	h.nthreads = 1; /* only P1 at attach */
	h.nprocs = 0;
	struct locks_seen s = { 0 };
	struct lt_timeline_sink sink = { .ctx = &s, .thread = on_thread, .lock = on_lock };
	struct lt_timeline *tl = lt_timeline_new(&h, &sink, NULL);
	struct lt_event nt = lt_ev(1000, T2, 0, LT_EV_TASK_NEW);
	nt.tnew.parent_tid = T1;
	nt.tnew.tgid = T2; /* a new process: its first thread */
	snprintf(nt.tnew.comm, LT_COMM_LEN, "child");
	struct lt_event v[] = { nt, in(1100, T2, T2), futex(1200, T2, FUTEX_WAIT_PRIVATE, A1, 0),
				out_asleep(1300, T2, T2) };
	for (size_t i = 0; i < 4; i++)
		lt_timeline_event(tl, &v[i]);
	lt_timeline_finish(tl, 9000);
	cr_assert_eq(lt_timeline_tgid(tl, T2), T2);
	lt_timeline_free(tl);
	cr_assert_eq(s.tgid_of[1], T2);
	cr_assert_eq(s.n, 1);
	cr_assert_neq(s.keys[0], A1, "a lock of the child, not of the trace's process");
}

/* ---- report --------------------------------------------------------- */

static const struct lt_report_finding *find_deadlock(const struct lt_report *r)
{
	for (size_t i = 0; i < r->n_findings; i++)
		if (r->findings[i].kind == LT_FIND_DEADLOCK)
			return &r->findings[i];
	return NULL;
}

static char *report_text(const char *path, int json)
{
	char *buf = NULL, err[512];
	size_t len = 0;
	FILE *f = open_memstream(&buf, &len);
	cr_assert(f);
	int rc = lt_report_file_opts(path, f, json, NULL, err, sizeof(err));
	fclose(f);
	cr_assert_eq(rc, 0, "report: %s", err);
	return buf;
}

Test(multi_view, report_finds_the_cycle_through_two_processes)
{
	char path[256];
	cycle_trace(path, sizeof(path), "cycle", 1);
	if (getenv("LT_KEEP"))
		return;

	char err[512];
	int rc;
	struct lt_report *r = lt_report_load(path, NULL, err, sizeof(err), &rc);
	cr_assert(r, "%s", err);
	cr_assert_eq(r->n_locks, 2, "A and B, each one lock in both processes: %zu", r->n_locks);
	const struct lt_report_finding *dl = find_deadlock(r);
	cr_assert(dl, "no deadlock found");
	cr_assert_eq(dl->n_tids, 2);
	cr_assert((dl->tids[0] == T1 && dl->tids[1] == T2) || (dl->tids[0] == T2 && dl->tids[1] == T1));
	cr_assert(strstr(dl->summary, "201 (wrk-main) of process 200"), "%s", dl->summary);
	int named_a = 0, named_b = 0;
	for (size_t i = 0; i < dl->n_evidence; i++) {
		named_a |= strstr(dl->evidence[i], "waits for lock A ") != NULL;
		named_b |= strstr(dl->evidence[i], "waits for lock B ") != NULL;
	}
	cr_assert(named_a && named_b, "%s\n%s", dl->evidence[0], dl->n_evidence > 1 ? dl->evidence[1] : "");
	/* processes */
	cr_assert_eq(r->n_procs, 2);
	cr_assert_eq(r->procs[0].tgid, P1);
	cr_assert_eq(r->procs[1].tgid, P2);
	cr_assert_str_eq(r->procs[1].comm, "worker");
	cr_assert_eq(r->procs[1].n_threads, 1);
	lt_report_free(r);

	char *text = report_text(path, 0);
	cr_assert(strstr(text, "  process 100 (server): 1 thread, parent 1: server --workers 1\n"), "%s", text);
	cr_assert(strstr(text, "  process 200 (worker): 1 thread, parent 100: worker --id 1\n"), "%s", text);
	/* wake-ups across processes say each thread's process */
	cr_assert(strstr(text, "\n  200/201 (wrk-main)       100/101 (srv-main)  "), "%s", text);
	cr_assert(strstr(text, "\n  100/101 (srv-main)       200/201 (wrk-main)  "), "%s", text);
	cr_assert(strstr(text, "pid/tid: a thread of a traced process)"), "%s", text);
	free(text);
	char *json = report_text(path, 1);
	cr_assert(strstr(json, "\"processes\": ["), "%s", json);
	cr_assert(strstr(json, "{\"pid\": 200, \"ppid\": 100, \"comm\": \"worker\""), "%s", json);
	cr_assert(strstr(json, "{\"tid\": 201, \"tgid\": 200, "), "%s", json);
	cr_assert(strstr(json, "\"key\": \"inode 77 (dev 0:5)+0x40\""), "%s", json);
	free(json);
	unlink(path);
}

Test(multi_view, without_shared_keys_no_cycle)
{
	char path[256];
	cycle_trace(path, sizeof(path), "nokeys", 0);
	char err[512];
	int rc;
	struct lt_report *r = lt_report_load(path, NULL, err, sizeof(err), &rc);
	cr_assert(r, "%s", err);
	cr_assert_eq(r->n_locks, 4, "each process's words are its own: %zu", r->n_locks);
	cr_assert_null(find_deadlock(r), "%s", find_deadlock(r) ? find_deadlock(r)->summary : "");
	lt_report_free(r);
	unlink(path);
}

/* ---- Perfetto ------------------------------------------------------- */

Test(multi_view, perfetto_process_tracks_and_cross_process_flows)
{
	char in_path[256], out[256];
	cycle_converted(in_path, sizeof(in_path), out, sizeof(out), "pf", LT_FORMAT_PERFETTO);
	struct pfc c;
	if (pfc_load(&c, out)) {
		pfc_print_errors(&c);
		cr_assert_fail("%d problems in the Perfetto trace", c.nerr);
	}
	int p1 = 0, p2 = 0, lock_tracks = 0;
	for (size_t i = 0; i < c.ntracks; i++) {
		const struct pfc_track *t = &c.tracks[i];
		if (t->kind == 'p') {
			p1 += t->pid == P1;
			p2 += t->pid == P2 && !strcmp(t->name, "worker");
		}
		if (t->kind == 'c' && strstr(t->name, "futex"))
			lock_tracks++;
	}
	cr_assert(p1 >= 1 && p2 == 1, "process tracks: %d %d", p1, p2);
	cr_assert_eq(pfc_thread_track(&c, T1)->pid, P1);
	cr_assert_eq(pfc_thread_track(&c, T2)->pid, P2);
	cr_assert_eq(lock_tracks, 2, "A and B, each named once: %d", lock_tracks);
	/* T2's FUTEX_WAKE in P2 ended T1's wait in P1 */
	const struct pfc_slice *wake = pfc_slice(&c, T2, "FUTEX_WAKE", 0);
	const struct pfc_slice *wait = pfc_slice(&c, T1, "FUTEX_WAIT", 0);
	cr_assert(wake && wait);
	cr_assert(pfc_flow(&c, wake, wait), "no flow across the processes");
	pfc_free(&c);
	unlink(in_path);
	unlink(out);
}

Test(multi_view, json_trace_puts_threads_under_their_process)
{
	char in_path[256], out[256];
	cycle_converted(in_path, sizeof(in_path), out, sizeof(out), "js", LT_FORMAT_JSON);
	FILE *f = fopen(out, "r");
	cr_assert(f);
	char buf[1 << 16];
	size_t len = fread(buf, 1, sizeof(buf) - 1, f);
	fclose(f);
	buf[len] = 0;
	cr_assert(strstr(buf, "{\"ph\":\"M\",\"pid\":200,\"tid\":200,\"name\":\"process_name\",\"args\":{\"name\":\"worker\"}}"),
		  "%s", buf);
	cr_assert(strstr(buf, "{\"ph\":\"X\",\"pid\":200,\"tid\":201") || strstr(buf, "{\"ph\":\"B\",\"pid\":200,\"tid\":201"),
		  "no slice of thread 201 under process 200: %s", buf);
	cr_assert_null(strstr(buf, "\"pid\":100,\"tid\":201"));
	unlink(in_path);
	unlink(out);
}

/* ---- snapshots of several processes ---------------------------------- */

/* Both threads asleep at attach on the other's lock (the header's
 * syscalls), the shared object mapped in both (the header's maps). */
static struct lt_report *blocked_at_attach_report(void)
{
	struct lt_header h = make_hdr(1);
	hthreads[0].sc_nr = 202;
	hthreads[0].sc_args[0] = B1;
	hthreads[0].sc_args[2] = 2;
	hthreads[0].state = 'S';
	hthreads[1].sc_nr = 202;
	hthreads[1].sc_args[0] = A2;
	hthreads[1].sc_args[2] = 2;
	hthreads[1].state = 'S';
	hthreads[0].blocked_ns = hthreads[1].blocked_ns = 500000000ull; /* asleep 0.5 s at attach */
	h.clock_boottime = 1000000000ull;
	h.clock_monotonic = 900000000ull;
	struct lt_report *r = lt_report_new(&h, NULL);
	cr_assert(r);
	return r;
}

static const char *futex_thread(char *buf, size_t n, uint32_t tid, uint64_t uaddr, const char *lock,
				const char *owner)
{
	snprintf(buf, n,
		 "{\"tid\": %u, \"comm\": \"t%u\", \"state\": \"S\", \"blocked_s\": 2, \"syscall\": {\"nr\": 202},"
		 " \"futex\": {\"uaddr\": \"0x%llx\", \"lock\": \"%s\", \"is_wait\": true, \"expected\": 2,"
		 " \"word\": 2, %s}}",
		 tid, tid, (unsigned long long)uaddr, lock, owner);
	return buf;
}

static void end_report(struct lt_report *r, const char *threads, const char *extra)
{
	char *doc;
	cr_assert_geq(asprintf(&doc,
			       "{\"schema\": \"locktrace.snapshot/1\", \"pid\": %d, \"occasion\": \"end\","
			       " \"taken_monotonic_ns\": 2900000000, \"verdicts\": [], \"threads\": [%s]%s}",
			       P1, threads, extra), 0);
	cr_assert_eq(lt_report_snapshot(r, doc, strlen(doc)), 0);
	free(doc);
	struct lt_stats st = { .start_ns = 1000000000ull, .end_ns = 3000000000ull, .ncpus = 2, .exit_status = -1 };
	lt_report_stats(r, &st);
	cr_assert_eq(lt_report_finish(r), 0);
}

Test(multi_view, combined_end_snapshot_closes_the_cycle)
{
	struct lt_report *r = blocked_at_attach_report();
	char a[512], b[512], threads[1100];
	snprintf(threads, sizeof(threads), "%s,%s",
		 futex_thread(a, sizeof(a), T1, B1, "B", "\"owner_kind\": \"mutex\", \"owner\": 201"),
		 futex_thread(b, sizeof(b), T2, A2, "A", "\"owner_kind\": \"mutex\", \"owner\": 101"));
	end_report(r, threads, ", \"processes\": [{\"pid\": 100, \"comm\": \"server\", \"tids\": [101]},"
			       " {\"pid\": 200, \"comm\": \"worker\", \"tids\": [201]}]");
	const struct lt_report_finding *dl = find_deadlock(r);
	cr_assert(dl, "no deadlock (%zu findings)", r->n_findings);
	cr_assert_eq(dl->n_tids, 2);
	cr_assert_eq(r->n_locks, 2, "each of A and B one lock: %zu", r->n_locks);
	/* the snapshot's names belong to the words' shared keys */
	char buf[128];
	for (size_t i = 0; i < r->n_locks; i++)
		cr_assert(!strcmp(lt_report_lock_name(r, r->locks[i].addr, buf, sizeof(buf)), "A") ||
			  !strcmp(buf, "B"), "%s", buf);
	lt_report_free(r);
}

Test(multi_view, owner_in_another_process_from_one_process_snapshot)
{
	/* the snapshot of P1 alone: its waiter's mutex __owner is a thread of P2 */
	struct lt_report *r = blocked_at_attach_report();
	char a[512];
	end_report(r,
		   futex_thread(a, sizeof(a), T1, B1, "B",
				"\"owner_kind\": \"none\", \"owner\": null,"
				" \"owner_process\": {\"tid\": 201, \"pid\": 200, \"comm\": \"worker\"}"),
		   "");
	const struct lt_report_finding *f = NULL;
	for (size_t i = 0; i < r->n_findings; i++)
		if (r->findings[i].holder == T2)
			f = &r->findings[i];
	if (!f) {
		for (size_t i = 0; i < r->n_findings; i++) {
			fprintf(stderr, "%s\n", r->findings[i].summary);
			for (size_t k = 0; k < r->findings[i].n_evidence; k++)
				fprintf(stderr, "   %s\n", r->findings[i].evidence[k]);
		}
	}
	cr_assert(f, "no finding names 201 as the holder");
	int said = 0;
	for (size_t i = 0; i < f->n_evidence; i++)
		said |= strstr(f->evidence[i], "holder: 201 (wrk-main) of process 200: the snapshot read its owner "
					       "(the process-shared mutex's __owner, a thread of process 200)") != NULL;
	cr_assert(said, "%s", f->n_evidence ? f->evidence[0] : f->summary);
	lt_report_free(r);
}
