// SPDX-License-Identifier: MIT
/* A crafted trace for the report's scaling (issue 15): N threads, each of
 * which waits once on its own futex, is woken by the main thread, and then
 * waits on it again until the end.  Used by the report regression test
 * (tests/unit/test_sec.c) and by scripts/bench.sh, built there with
 * -DLT_GEN_MAIN as `gen_trace PATH N`. */
#include <linux/futex.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/syscall.h>
#include "locktrace/tracefile.h"
#include "varint.h"
#include "gen_trace.h"

#define PID 1000
#define BASE 0x7f0000000000ull

static int put(struct lt_writer *w, struct lt_event *e, uint8_t kind, uint32_t tid, uint64_t ts)
{
	e->h.kind = kind;
	e->h.tid = tid;
	e->h.ts = ts;
	return lt_writer_event(w, e);
}

static int wait_on(struct lt_writer *w, uint32_t tid, uint64_t addr, uint64_t ts)
{
	struct lt_event e = { 0 };
	e.futex.uaddr = addr;
	e.futex.op = FUTEX_WAIT_PRIVATE;
	e.futex.timeout = -1;
	e.futex.nr = SYS_futex;
	int r = put(w, &e, LT_EV_FUTEX_ENTER, tid, ts);
	memset(&e, 0, sizeof(e));
	e.sw.prev_tid = tid;
	e.sw.next_tid = 0;
	e.sw.prev_state = 1; /* TASK_INTERRUPTIBLE */
	e.sw.prev_tgid = PID;
	snprintf(e.sw.prev_comm, LT_COMM_LEN, "w%u", tid - PID);
	snprintf(e.sw.next_comm, LT_COMM_LEN, "swapper/0");
	return r ? r : put(w, &e, LT_EV_SWITCH, tid, ts + 1000);
}

/* The main thread wakes tid from addr; tid runs and returns. */
static int wake(struct lt_writer *w, uint32_t tid, uint64_t addr, uint64_t ts)
{
	struct lt_event e = { 0 };
	e.futex.uaddr = addr;
	e.futex.op = FUTEX_WAKE_PRIVATE;
	e.futex.val = 1;
	e.futex.nr = SYS_futex;
	int r = put(w, &e, LT_EV_FUTEX_ENTER, PID, ts);
	memset(&e, 0, sizeof(e));
	e.wake.waker_tid = PID;
	e.wake.waker_tgid = PID;
	snprintf(e.wake.waker_comm, LT_COMM_LEN, "main");
	r = r ? r : put(w, &e, LT_EV_WAKING, tid, ts + 100);
	memset(&e, 0, sizeof(e));
	e.exit.ret = 1;
	e.exit.nr = SYS_futex;
	r = r ? r : put(w, &e, LT_EV_SYS_EXIT, PID, ts + 200);
	memset(&e, 0, sizeof(e));
	e.sw.prev_tid = 0;
	e.sw.next_tid = tid;
	e.sw.next_tgid = PID;
	snprintf(e.sw.prev_comm, LT_COMM_LEN, "swapper/0");
	snprintf(e.sw.next_comm, LT_COMM_LEN, "w%u", tid - PID);
	r = r ? r : put(w, &e, LT_EV_SWITCH, 0, ts + 300);
	memset(&e, 0, sizeof(e));
	e.exit.nr = SYS_futex;
	return r ? r : put(w, &e, LT_EV_SYS_EXIT, tid, ts + 400);
}

int lt_gen_own_futex_trace(const char *path, unsigned n)
{
	return lt_gen_futex_trace(path, n, 1);
}

/* A SYMBOLS section naming the word 8 bytes after each thread's futex
 * "obj_I+0x8": no futex has a name of its own, so the report looks each
 * one up inside the named objects. */
static int symbols(struct lt_writer *w, unsigned n)
{
	uint8_t *buf = malloc((size_t)n * 48 + 16), *p = buf;
	if (!buf)
		return -1;
	for (unsigned i = 1; i <= n; i++) {
		uint8_t ent[48], *e = ent;
		char name[24];
		int nl = snprintf(name, sizeof(name), "obj_%u+0x8", i);
		uint8_t a[10], *ae = lt_put_varint(a, BASE + 64ull * i + 8);
		e = lt_put_varint(lt_put_varint(e, 1), (uint64_t)(ae - a));
		memcpy(e, a, (size_t)(ae - a));
		e += ae - a;
		e = lt_put_varint(lt_put_varint(e, 2), (uint64_t)nl);
		memcpy(e, name, (size_t)nl);
		e += nl;
		p = lt_put_varint(lt_put_varint(p, 1), (uint64_t)(e - ent));
		memcpy(p, ent, (size_t)(e - ent));
		p += e - ent;
	}
	int r = lt_writer_section(w, LT_CHUNK_SYMBOLS, buf, (size_t)(p - buf));
	free(buf);
	return r;
}

int lt_gen_futex_trace(const char *path, unsigned n, int woken)
{
	return lt_gen_futex_trace_syms(path, n, woken, 0);
}

int lt_gen_futex_trace_syms(const char *path, unsigned n, int woken, int syms)
{
	struct lt_writer *w;
	struct lt_header h = { .pid = PID, .ncpus = 2 };
	uint64_t ts = 1000000000ull;
	int r = lt_writer_open(&w, path, 1);

	if (r)
		return r;
	snprintf(h.comm, sizeof(h.comm), "main");
	h.threads = calloc(n + 1, sizeof(*h.threads));
	if (!h.threads)
		return -1;
	h.nthreads = n + 1;
	for (unsigned i = 0; i <= n; i++) {
		h.threads[i].tid = (int32_t)(PID + i);
		h.threads[i].sc_nr = -2;
		snprintf(h.threads[i].comm, LT_COMM_LEN, i ? "w%u" : "main", i);
	}
	r = lt_writer_header(w, &h);
	free(h.threads);
	if (!r && syms)
		r = symbols(w, n);
	for (unsigned i = 1; !r && i <= n; i++)
		r = wait_on(w, PID + i, BASE + 64ull * i, ts += 10000);
	for (unsigned i = 1; woken && !r && i <= n; i++)
		r = wake(w, PID + i, BASE + 64ull * i, ts += 10000);
	for (unsigned i = 1; woken && !r && i <= n; i++)
		r = wait_on(w, PID + i, BASE + 64ull * i, ts += 10000);
	struct lt_stats st = { .start_ns = 1000000000ull, .end_ns = ts + 1000000000ull, .ncpus = 2 };
	st.exit_status = -1;
	if (!r)
		r = lt_writer_stats(w, &st);
	int cr = lt_writer_close(w);
	return r ? r : cr;
}

/* A SYMBOLS section naming the futex word of thread PID + i "lock_I". */
static int symbol_of(struct lt_writer *w, unsigned i)
{
	uint8_t ent[48], *e = ent, buf[64], *p = buf;
	char name[24];
	int nl = snprintf(name, sizeof(name), "lock_%u", i);
	uint8_t a[10], *ae = lt_put_varint(a, BASE + 64ull * i);

	e = lt_put_varint(lt_put_varint(e, 1), (uint64_t)(ae - a));
	memcpy(e, a, (size_t)(ae - a));
	e += ae - a;
	e = lt_put_varint(lt_put_varint(e, 2), (uint64_t)nl);
	memcpy(e, name, (size_t)nl);
	e += nl;
	p = lt_put_varint(lt_put_varint(p, 1), (uint64_t)(e - ent));
	memcpy(p, ent, (size_t)(e - ent));
	p += e - ent;
	return lt_writer_section(w, LT_CHUNK_SYMBOLS, buf, (size_t)(p - buf));
}

int lt_gen_chunked_trace(const char *path, struct lt_gen_layout *lay)
{
	enum { N = 3 };
	struct lt_writer *w;
	struct lt_header h = { .pid = PID, .ncpus = 2 };
	struct lt_thread_info th[N + 1];
	uint64_t ts = 1000000000ull;
	int r = lt_writer_open(&w, path, 1);

	if (r)
		return r;
	memset(lay, 0, sizeof(*lay));
	memset(th, 0, sizeof(th));
	snprintf(h.comm, sizeof(h.comm), "main");
	h.threads = th;
	h.nthreads = N + 1;
	for (unsigned i = 0; i <= N; i++) {
		th[i].tid = (int32_t)(PID + i);
		th[i].sc_nr = -2;
		snprintf(th[i].comm, LT_COMM_LEN, i ? "w%u" : "main", i);
	}
	r = lt_writer_header(w, &h);
	lay->header_end = lt_writer_bytes(w);
	for (int part = LT_GEN_SYMS_A; !r && part <= LT_GEN_FINAL; part++) {
		lay->start[part] = lt_writer_bytes(w);
		if (part == LT_GEN_SYMS_A || part == LT_GEN_SYMS_B || part == LT_GEN_SYMS_C) {
			r = symbol_of(w, (unsigned)(part / 2 + 1));
		} else {
			lay->first_ts[part] = ts + 10000;
			for (unsigned i = 1; !r && i <= N; i++)
				r = part == LT_GEN_WAKES ? wake(w, PID + i, BASE + 64ull * i, ts += 10000)
							 : wait_on(w, PID + i, BASE + 64ull * i, ts += 10000);
			lay->events[part] = part == LT_GEN_WAKES ? 5 * N : 2 * N;
			/* the last event: a wake's return at +400, a wait's switch at +1000 */
			lay->last_ts[part] = ts + (part == LT_GEN_WAKES ? 400 : 1000);
			r = r ? r : lt_writer_flush(w);
		}
		lay->end[part] = lt_writer_bytes(w);
	}
	struct lt_stats st = { .start_ns = 1000000000ull, .end_ns = ts + 1000000000ull, .ncpus = 2 };
	st.exit_status = -1;
	st.events[LT_EV_FUTEX_ENTER] = 3 * N;
	st.events[LT_EV_SWITCH] = 3 * N;
	st.events[LT_EV_WAKING] = N;
	st.events[LT_EV_SYS_EXIT] = 2 * N;
	lay->start[LT_GEN_STATS] = lt_writer_bytes(w);
	if (!r)
		r = lt_writer_stats(w, &st);
	lay->end[LT_GEN_STATS] = lay->start[LT_GEN_END] = lt_writer_bytes(w);
	int cr = lt_writer_close(w);
	lay->end[LT_GEN_END] = lay->start[LT_GEN_END] + LT_CHUNK_HDR_LEN;
	return r ? r : cr;
}

#ifdef LT_GEN_MAIN
int main(int argc, char **argv)
{
	if (argc < 3 || argc > 5) {
		fprintf(stderr, "usage: gen_trace PATH THREADS [woken|never-woken [symbols]]\n");
		return 2;
	}
	int woken = argc < 4 || !strcmp(argv[3], "woken");
	int r = lt_gen_futex_trace_syms(argv[1], (unsigned)atoi(argv[2]), woken, argc == 5);
	if (r)
		fprintf(stderr, "gen_trace: writing %s failed (%d)\n", argv[1], r);
	return r ? 1 : 0;
}
#endif
