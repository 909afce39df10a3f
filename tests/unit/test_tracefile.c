/* Unit tests of the trace file: codec round trip, truncation at every byte,
 * flipped bits, versions, and the writer's file safety.  No root needed. */
#include <criterion/criterion.h>
#include <errno.h>
#include <fcntl.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>
#include "locktrace/tracefile.h"
#include "codec.h"
#include "lt_events.h"

static uint64_t rng = 88172645463325252ull;
static uint64_t rnd(void)
{
	rng ^= rng << 13;
	rng ^= rng >> 7;
	rng ^= rng << 17;
	return rng;
}

/* values that stress the varint/zigzag paths */
static uint64_t edgy(void)
{
	static const uint64_t v[] = { 0, 1, 127, 128, 0xffffffffull, 0x7fffffffffffffffull,
				      0x8000000000000000ull, ~0ull, 0x7ffd12345678ull };
	return rnd() % 3 ? rnd() >> (rnd() % 64) : v[rnd() % (sizeof(v) / sizeof(v[0]))];
}

static void rnd_comm(char *c)
{
	size_t n = rnd() % LT_COMM_LEN; /* at most 15 bytes, as the kernel's */
	memset(c, 0, LT_COMM_LEN);
	for (size_t i = 0; i < n; i++)
		c[i] = (char)(1 + rnd() % 255);
}

static uint32_t rnd_tid(int32_t pid)
{
	/* mostly threads of the process, sometimes anything */
	return rnd() % 4 ? (uint32_t)(pid + (int)(rnd() % 70)) : (uint32_t)rnd();
}

static void rnd_event(struct lt_event *e, uint64_t *ts, int32_t pid)
{
	memset(e, 0, sizeof(*e));
	e->h.kind = 1 + rnd() % (LT_EV_MAX - 1);
	e->h.flags = rnd() % 4 ? 0 : (uint8_t)(rnd() & (unsigned)~LT_F_RECORDER_ONLY); /* the recorder's own bits are never written */
	/* mostly increasing, sometimes out of order (other cpu) */
	*ts += rnd() % 5 ? rnd() % 100000 : (uint64_t)-(int64_t)(rnd() % 5000);
	e->h.ts = rnd() % 50 ? *ts : edgy();
	e->h.cpu = rnd() % 3 ? rnd() % 2 : (uint16_t)rnd();
	e->h.tid = rnd_tid(pid);
	switch (e->h.kind) {
	case LT_EV_FUTEX_ENTER:
		e->futex.nr = rnd() % 4 ? 202 : 449 + rnd() % 8;
		e->futex.uaddr = rnd() % 4 ? 0x55d0c0a01040ull + (rnd() % 8) * 8 : edgy();
		e->futex.uaddr2 = rnd() % 3 ? 0 : edgy();
		e->futex.timeout = rnd() % 2 ? -1 : (int64_t)edgy();
		e->futex.op = (uint32_t)(rnd() % 4 ? rnd() % 400 : edgy());
		e->futex.val = (uint32_t)edgy();
		e->futex.val3 = rnd() % 2 ? 0xffffffffu : (uint32_t)edgy();
		break;
	case LT_EV_WAIT_ENTER:
		e->wait.nr = 23;
		e->wait.nfds = (uint32_t)edgy();
		e->wait.timeout_ns = rnd() % 2 ? -1 : (int64_t)edgy();
		for (int i = 0; i < LT_WAIT_FDS; i++)
			e->wait.fds[i] = rnd() % 3 ? (i < 2 ? (int32_t)(rnd() % 100) : -1) : (int32_t)rnd();
		break;
	case LT_EV_IO_ENTER:
		e->io.nr = rnd() % 2;
		e->io.fd = (int32_t)rnd();
		e->io.count = edgy();
		break;
	case LT_EV_SYS_EXIT:
		e->exit.nr = (uint16_t)rnd();
		e->exit.ret = (int64_t)edgy();
		break;
	case LT_EV_SWITCH:
		e->sw.prev_tid = rnd() % 8 ? e->h.tid : rnd_tid(pid);
		e->sw.next_tid = rnd_tid(pid);
		e->sw.prev_state = edgy();
		e->sw.prev_prio = (int32_t)rnd();
		e->sw.next_prio = 120;
		e->sw.prev_tgid = rnd() % 2 ? (uint32_t)pid : (uint32_t)rnd();
		e->sw.next_tgid = (uint32_t)rnd();
		/* a tid keeps its name mostly, so the comm cache is exercised */
		if (rnd() % 4) {
			snprintf(e->sw.prev_comm, LT_COMM_LEN, "w%u", e->sw.prev_tid % 7);
			snprintf(e->sw.next_comm, LT_COMM_LEN, "w%u", e->sw.next_tid % 7);
		} else {
			rnd_comm(e->sw.prev_comm);
			rnd_comm(e->sw.next_comm);
		}
		break;
	case LT_EV_WAKING:
		e->wake.waker_tid = rnd_tid(pid);
		e->wake.waker_tgid = (uint32_t)rnd();
		e->wake.prio = (int32_t)rnd();
		e->wake.target_cpu = (uint32_t)rnd();
		if (rnd() % 4)
			snprintf(e->wake.waker_comm, LT_COMM_LEN, "w%u", e->wake.waker_tid % 7);
		else
			rnd_comm(e->wake.waker_comm);
		break;
	case LT_EV_TASK_NEW:
		e->tnew.clone_flags = edgy();
		e->tnew.parent_tid = rnd_tid(pid);
		e->tnew.tgid = (uint32_t)pid;
		rnd_comm(e->tnew.comm);
		break;
	case LT_EV_TASK_EXIT:
		e->texit.exit_code = (int32_t)rnd();
		break;
	case LT_EV_RENAME:
		rnd_comm(e->ren.oldcomm);
		rnd_comm(e->ren.newcomm);
		break;
	case LT_EV_EXEC:
		e->exec.old_tid = rnd_tid(pid);
		rnd_comm(e->exec.comm);
		break;
	case LT_EV_LOST:
		e->lost.lost_kind = (uint32_t)rnd();
		e->lost.count = edgy();
		break;
	case LT_EV_FLOCK_ENTER:
		e->flk.nr = rnd() % 2 ? 72 : 73;
		e->flk.fd = (int32_t)(rnd() % 3 ? rnd() % 1000 : rnd());
		e->flk.cmd = (uint32_t)(rnd() % 3 ? rnd() % 40 : edgy());
		/* as the kernel side writes it: no struct, no range */
		e->flk.type = (int8_t)(rnd() % 3 ? -1 : (int)(rnd() % 128));
		if (e->flk.type >= 0) {
			e->flk.whence = (uint8_t)rnd();
			e->flk.start = (int64_t)edgy();
			e->flk.len = (int64_t)edgy();
		}
		break;
	}
}

static void sample_header(struct lt_header *h, int32_t pid)
{
	static struct lt_thread_info th[3];
	memset(h, 0, sizeof(*h));
	h->pid = pid;
	h->ncpus = 2;
	h->flags = LT_HDR_LAUNCHED;
	snprintf(h->host, sizeof(h->host), "testhost");
	snprintf(h->kernel, sizeof(h->kernel), "6.18.0-test");
	snprintf(h->comm, sizeof(h->comm), "demo");
	snprintf(h->exe, sizeof(h->exe), "/usr/bin/demo");
	snprintf(h->cmdline, sizeof(h->cmdline), "demo -t 64 \"quoted\" \\");
	snprintf(h->machine, sizeof(h->machine), "x86_64");
	snprintf(h->kversion, sizeof(h->kversion), "#1 SMP PREEMPT_DYNAMIC Debian 6.18.0-1");
	h->ppid = 1;
	h->clock_boottime = 123456789;
	h->clock_monotonic = 123456000;
	h->clock_realtime = 1796000000000000000ull;
	for (int i = 0; i < 3; i++) {
		memset(&th[i], 0, sizeof(th[i]));
		th[i].tid = pid + i;
		snprintf(th[i].comm, LT_COMM_LEN, "worker-%d", i);
		th[i].sc_nr = i == 0 ? -3 : 202;
		th[i].sc_args[0] = 0x55d0c0a01040ull;
		th[i].sc_args[1] = 128;
		th[i].sc_args[5] = ~0ull;
		th[i].blocked_ns = 2170000000ull * (uint64_t)i;
		th[i].state = i == 0 ? 'R' : 'S';
	}
	h->nthreads = 3;
	h->threads = th;
}

static char tmpdir[64];

static void make_tmpdir(void)
{
	snprintf(tmpdir, sizeof(tmpdir), "/tmp/lt-unit-XXXXXX");
	cr_assert_not_null(mkdtemp(tmpdir));
}

static void rm_tmpdir(void)
{
	char cmd[128];
	snprintf(cmd, sizeof(cmd), "rm -rf %s", tmpdir);
	cr_assert_eq(system(cmd), 0);
}

TestSuite(tracefile, .init = make_tmpdir, .fini = rm_tmpdir);

/* Writes nev random events, flushing a chunk every `every` events; the
 * events and the file offset where each chunk ends are returned. */
struct sample {
	struct lt_event *ev;
	size_t n;
	uint64_t chunk_end[512]; /* offset just past chunk k */
	size_t chunk_events[512]; /* events complete once chunk k is read */
	size_t nchunks;
	uint64_t size;
	uint64_t header_end; /* offset just past the header chunk */
};

static void write_sample(const char *path, size_t nev, size_t every, struct sample *s)
{
	struct lt_writer *w;
	struct lt_header h;
	uint64_t ts = 1000000000ull;
	int32_t pid = 4242;

	memset(s, 0, sizeof(*s));
	s->ev = calloc(nev, sizeof(*s->ev));
	s->n = nev;
	sample_header(&h, pid);
	cr_assert_eq(lt_writer_open(&w, path, 0), 0);
	cr_assert_eq(lt_writer_header(w, &h), 0);
	s->header_end = lt_writer_bytes(w);
	for (size_t i = 0; i < nev; i++) {
		rnd_event(&s->ev[i], &ts, pid);
		cr_assert_eq(lt_writer_event(w, &s->ev[i]), 0, "event %zu kind %u", i, s->ev[i].h.kind);
		if ((i + 1) % every == 0 || i + 1 == nev) {
			cr_assert_eq(lt_writer_flush(w), 0);
			s->chunk_end[s->nchunks] = lt_writer_bytes(w);
			s->chunk_events[s->nchunks++] = i + 1;
		}
	}
	struct lt_stats st = { .start_ns = 1, .end_ns = 2, .ncpus = 2, .exit_status = 0 };
	uint64_t lost[2 * LT_EV_MAX] = { 0 };
	lost[LT_EV_MAX + LT_EV_SWITCH] = 7;
	st.lost = lost;
	st.events[LT_EV_FUTEX_ENTER] = 99;
	cr_assert_eq(lt_writer_stats(w, &st), 0);
	cr_assert_eq(lt_writer_close(w), 0);
	struct stat sb;
	cr_assert_eq(stat(path, &sb), 0);
	s->size = (uint64_t)sb.st_size;
}

/* Is event i the first of a chunk of s? */
static int chunk_start(const struct sample *s, size_t i)
{
	if (i == 0)
		return 1;
	for (size_t k = 0; k < s->nchunks; k++)
		if (s->chunk_events[k] == i)
			return 1;
	return 0;
}

/* Reads path; returns the number of events that matched s->ev in order
 * (asserting every event read is the right one: the events written, in
 * order, where damage skipped over may leave out whole chunks and nothing
 * else). */
static size_t read_back(const char *path, const struct sample *s, struct lt_reader *r, int *opened)
{
	struct lt_item it;
	char err[256];
	size_t n = 0, at = 0; /* read; next index into s->ev */

	*opened = lt_reader_open(r, path, err, sizeof(err)) == 0;
	if (!*opened)
		return 0;
	while (lt_reader_next(r, &it) > 0) {
		if (it.type != LT_ITEM_EVENT)
			continue;
		cr_assert_lt(at, s->n, "more events than written");
		if (memcmp(&it.ev, &s->ev[at], sizeof(it.ev))) {
			/* a skipped chunk: this must be the first event of a
			 * later one, and the events before it a chunk's end */
			cr_assert(chunk_start(s, at), "event %zu (kind %u) differs after the round trip", at,
				  s->ev[at].h.kind);
			size_t j = at + 1;
			while (j < s->n && !(chunk_start(s, j) && !memcmp(&it.ev, &s->ev[j], sizeof(it.ev))))
				j++;
			cr_assert_lt(j, s->n, "event %zu (kind %u) differs after the round trip", at, s->ev[at].h.kind);
			cr_assert(r->nskips, "events %zu..%zu left out without a damage said", at, j - 1);
			at = j;
		}
		n++;
		at++;
	}
	return n;
}

Test(tracefile, round_trip_every_kind)
{
	char path[128];
	struct sample s;
	struct lt_reader r;
	int opened;

	snprintf(path, sizeof(path), "%s/rt.ltrace", tmpdir);
	write_sample(path, 20000, 3000, &s);
	size_t n = read_back(path, &s, &r, &opened);
	cr_assert(opened);
	cr_assert_eq(n, s.n);
	cr_assert(r.clean_end);
	cr_assert_str_empty(r.stop_reason);
	cr_assert_eq(r.hdr.pid, 4242);
	cr_assert_str_eq(r.hdr.comm, "demo");
	cr_assert_str_eq(r.hdr.cmdline, "demo -t 64 \"quoted\" \\");
	cr_assert_eq(r.hdr.clock_realtime, 1796000000000000000ull);
	cr_assert_eq(r.hdr.nthreads, 3);
	cr_assert_str_eq(r.hdr.threads[2].comm, "worker-2");
	cr_assert_eq(r.hdr.threads[0].sc_nr, -3);
	cr_assert_eq(r.hdr.threads[1].sc_args[5], ~0ull);
	cr_assert_eq(r.hdr.threads[2].blocked_ns, 4340000000ull);
	cr_assert_eq(r.hdr.threads[0].state, 'R');
	cr_assert_eq(r.hdr.threads[2].state, 'S');
	/* format 1.1: the machine, the kernel's version string, the parent */
	cr_assert_eq(r.hdr.version_minor, LT_VERSION_MINOR);
	cr_assert_str_eq(r.hdr.machine, "x86_64");
	cr_assert_str_eq(r.hdr.kversion, "#1 SMP PREEMPT_DYNAMIC Debian 6.18.0-1");
	cr_assert_eq(r.hdr.ppid, 1);
	cr_assert(r.have_stats);
	cr_assert_eq(r.stats.lost[LT_EV_MAX + LT_EV_SWITCH], 7);
	cr_assert_eq(r.stats.events[LT_EV_FUTEX_ENTER], 99);
	lt_reader_close(&r);
	free(s.ev);
}

/* format 1.3: several processes, each thread's process, shared mappings;
 * a thread written without a process reads back as the header's pid */
Test(tracefile, round_trip_processes)
{
	char path[128];
	struct lt_writer *w;
	struct lt_header h;
	struct lt_reader r;
	struct lt_proc_info procs[2] = {
		{ .tgid = 5000, .ppid = 1, .flags = LT_PROC_GIVEN, .comm = "parent",
		  .exe = "/usr/bin/demo", .cmdline = "demo --fork" },
		{ .tgid = 5100, .ppid = 5000, .flags = LT_PROC_CHILD, .comm = "child",
		  .exe = "/usr/bin/demo", .cmdline = "demo --fork" },
	};
	struct lt_shared_map maps[2] = {
		{ .tgid = 5000, .start = 0x7f0000001000ull, .end = 0x7f0000003000ull,
		  .offset = 0x2000, .dev = 0x801, .ino = 131090 },
		{ .tgid = 5100, .start = 0x7f1000000000ull, .end = 0x7f1000002000ull,
		  .offset = 0x2000, .dev = 0x801, .ino = 131090 },
	};

	sample_header(&h, 5000);
	h.threads[1].tgid = 5000;
	h.threads[2].tgid = 5100;
	h.nprocs = 2;
	h.procs = procs;
	h.nshared = 2;
	h.shared = maps;
	snprintf(path, sizeof(path), "%s/procs.ltrace", tmpdir);
	cr_assert_eq(lt_writer_open(&w, path, 0), 0);
	cr_assert_eq(lt_writer_header(w, &h), 0);
	cr_assert_eq(lt_writer_close(w), 0);

	char err[256];
	cr_assert_eq(lt_reader_open(&r, path, err, sizeof(err)), 0, "%s", err);
	cr_assert_eq(r.hdr.nthreads, 3);
	cr_assert_eq(r.hdr.threads[0].tgid, 5000, "a thread without a process is of the header's pid");
	cr_assert_eq(r.hdr.threads[1].tgid, 5000);
	cr_assert_eq(r.hdr.threads[2].tgid, 5100);
	cr_assert_eq(r.hdr.nprocs, 2);
	cr_assert_eq(r.hdr.procs[1].tgid, 5100);
	cr_assert_eq(r.hdr.procs[1].ppid, 5000);
	cr_assert_eq(r.hdr.procs[1].flags, LT_PROC_CHILD);
	cr_assert_str_eq(r.hdr.procs[1].comm, "child");
	cr_assert_str_eq(r.hdr.procs[0].exe, "/usr/bin/demo");
	cr_assert_str_eq(r.hdr.procs[0].cmdline, "demo --fork");
	cr_assert_eq(r.hdr.nshared, 2);
	cr_assert_eq(r.hdr.shared[1].tgid, 5100);
	cr_assert_eq(r.hdr.shared[1].start, 0x7f1000000000ull);
	cr_assert_eq(r.hdr.shared[1].end, 0x7f1000002000ull);
	cr_assert_eq(r.hdr.shared[1].offset, 0x2000);
	cr_assert_eq(r.hdr.shared[1].dev, 0x801);
	cr_assert_eq(r.hdr.shared[1].ino, 131090);
	lt_reader_close(&r);
}

Test(tracefile, compact_on_typical_events)
{
	/* a futex wait/wake loop of 4 threads: the common case must stay small */
	char path[128];
	struct lt_writer *w;
	struct lt_header h;
	struct stat sb;
	sample_header(&h, 5000);
	snprintf(path, sizeof(path), "%s/small.ltrace", tmpdir);
	cr_assert_eq(lt_writer_open(&w, path, 0), 0);
	cr_assert_eq(lt_writer_header(w, &h), 0);
	uint64_t ts = 1e9;
	for (int i = 0; i < 100000; i++) {
		struct lt_event e = { 0 };
		ts += 1500;
		e.h.ts = ts;
		e.h.cpu = i & 1;
		e.h.tid = 5001 + i % 4;
		if (i % 2 == 0) {
			e.h.kind = LT_EV_FUTEX_ENTER;
			e.futex.nr = 202;
			e.futex.op = 128;
			e.futex.uaddr = 0x55d0c0a01040ull;
			e.futex.val = 2;
			e.futex.timeout = -1;
			e.futex.val3 = 0xffffffff;
		} else {
			e.h.kind = LT_EV_SYS_EXIT;
			e.exit.nr = 202;
		}
		cr_assert_eq(lt_writer_event(w, &e), 0);
	}
	uint64_t before = lt_writer_bytes(w);
	cr_assert_eq(lt_writer_close(w), 0);
	cr_assert_eq(stat(path, &sb), 0);
	cr_assert_lt((double)before / 100000, 12.0, "%.2f bytes per futex event",
		     (double)before / 100000);
}

/* A sample trace (write_sample, into full.ltrace) read back whole. */
static uint8_t *sample_bytes(size_t nev, size_t every, struct sample *s)
{
	char path[128];
	snprintf(path, sizeof(path), "%s/full.ltrace", tmpdir);
	write_sample(path, nev, every, s);
	FILE *f = fopen(path, "rb");
	cr_assert_not_null(f);
	uint8_t *data = malloc(s->size);
	cr_assert_not_null(data);
	cr_assert_eq(fread(data, 1, s->size, f), s->size);
	fclose(f);
	return data;
}

/* The file PATH holds the LEN bytes of DATA. */
static void put_bytes(const char *path, const uint8_t *data, size_t len)
{
	FILE *o = fopen(path, "wb");
	cr_assert_not_null(o);
	cr_assert_eq(fwrite(data, 1, len, o), len);
	cr_assert_eq(fclose(o), 0);
}

Test(tracefile, truncated_at_every_byte)
{
	char cut[128];
	struct sample s;

	snprintf(cut, sizeof(cut), "%s/cut.ltrace", tmpdir);
	uint8_t *data = sample_bytes(300, 40, &s);

	uint64_t header_end = s.chunk_end[0]; /* lower bound; real end found below */
	for (uint64_t len = 0; len <= s.size; len++) {
		put_bytes(cut, data, len);
		struct lt_reader r;
		int opened;
		size_t n = read_back(cut, &s, &r, &opened);
		if (!opened) {
			/* only a file cut inside the preamble or the header chunk */
			cr_assert_lt(len, header_end, "cut at %llu not opened", (unsigned long long)len);
			continue;
		}
		/* exactly the events of the complete chunks */
		size_t want = 0;
		for (size_t k = 0; k < s.nchunks; k++)
			if (s.chunk_end[k] <= len)
				want = s.chunk_events[k];
		cr_assert_eq(n, want, "cut at %llu: %zu events read, %zu complete",
			     (unsigned long long)len, n, want);
		if (len < s.size) {
			cr_assert(!r.clean_end, "cut at %llu reads as complete", (unsigned long long)len);
			cr_assert_str_not_empty(r.stop_reason);
			cr_assert_leq(r.stop_offset, len);
		} else {
			cr_assert(r.clean_end);
		}
		lt_reader_close(&r);
	}
	free(data);
	free(s.ev);
}

Test(tracefile, flipped_bits_are_detected)
{
	char bad[128];
	struct sample s;

	snprintf(bad, sizeof(bad), "%s/bad.ltrace", tmpdir);
	uint8_t *data = sample_bytes(200, 50, &s);

	for (uint64_t off = 0; off < s.size; off++) {
		data[off] ^= (uint8_t)(1u << (off % 8));
		put_bytes(bad, data, s.size);
		data[off] ^= (uint8_t)(1u << (off % 8));

		struct lt_reader r;
		int opened;
		size_t n = read_back(bad, &s, &r, &opened); /* asserts a correct prefix */
		if (off < LT_PREAMBLE_LEN) {
			/* magic and major version refuse the file; the minor
			 * version and reserved bytes are not checked */
			if (opened)
				cr_assert(off >= 10, "flip at %llu in the preamble went unnoticed",
					  (unsigned long long)off);
		} else if (opened) {
			cr_assert(r.stop_reason[0] || r.nskips, "flip at %llu went unnoticed",
				  (unsigned long long)off);
			cr_assert(!r.clean_end || n == s.n || r.nskips);
			/* a flip in an events chunk costs that chunk alone:
			 * reading goes on at the next chunk, to the END */
			for (size_t k = 0; k < s.nchunks; k++) {
				uint64_t from = k ? s.chunk_end[k - 1] : s.header_end;
				size_t had = k ? s.chunk_events[k - 1] : 0;
				if (off < from || off >= s.chunk_end[k])
					continue;
				cr_assert(r.clean_end, "flip at %llu in chunk %zu: %s", (unsigned long long)off, k,
					  r.stop_reason);
				cr_assert_eq(n, s.n - (s.chunk_events[k] - had), "flip at %llu in chunk %zu",
					     (unsigned long long)off, k);
				cr_assert_eq(r.nskips, 1);
				cr_assert_eq(r.skips[0].from, from);
				cr_assert_eq(r.skips[0].to, s.chunk_end[k], "flip at %llu", (unsigned long long)off);
			}
		}
		if (opened)
			lt_reader_close(&r);
	}
	free(data);
	free(s.ev);
}

Test(tracefile, unknown_version_refused)
{
	char path[128], err[256];
	struct sample s;
	struct lt_reader r;

	snprintf(path, sizeof(path), "%s/v.ltrace", tmpdir);
	write_sample(path, 10, 10, &s);
	int fd = open(path, O_WRONLY);
	uint8_t v2[4] = { 2, 0, 0, 0 }; /* major 2, minor 0 */
	cr_assert_eq(pwrite(fd, v2, 4, 8), 4);
	close(fd);
	cr_assert_eq(lt_reader_open(&r, path, err, sizeof(err)), -1);
	cr_assert(strstr(err, "version 2.0"), "message: %s", err);
	cr_assert(strstr(err, "reads version 1"), "message: %s", err);
	free(s.ev);
}

Test(tracefile, not_a_trace_refused)
{
	char path[128], err[256];
	struct lt_reader r;

	snprintf(path, sizeof(path), "%s/text.txt", tmpdir);
	FILE *f = fopen(path, "w");
	fputs("hello, this is not a trace\n", f);
	fclose(f);
	cr_assert_eq(lt_reader_open(&r, path, err, sizeof(err)), -1);
	cr_assert(strstr(err, "not a locktrace trace"), "message: %s", err);
	cr_assert_eq(lt_reader_open(&r, "/nonexistent/x.ltrace", err, sizeof(err)), -1);
	cr_assert(strstr(err, "No such file"), "message: %s", err);
	cr_assert_eq(lt_reader_open(&r, "/tmp", err, sizeof(err)), -1);
	cr_assert(strstr(err, "/tmp is a directory, not a trace file"), "message: %s", err);
}

Test(tracefile, existing_file_not_clobbered_and_private)
{
	char path[128];
	struct lt_writer *w;
	struct stat sb;

	snprintf(path, sizeof(path), "%s/keep.ltrace", tmpdir);
	FILE *f = fopen(path, "w");
	fputs("precious", f);
	fclose(f);
	cr_assert_eq(lt_writer_open(&w, path, 0), -EEXIST);
	cr_assert_eq(stat(path, &sb), 0);
	cr_assert_eq(sb.st_size, 8);

	snprintf(path, sizeof(path), "%s/new.ltrace", tmpdir);
	mode_t old = umask(0);
	cr_assert_eq(lt_writer_open(&w, path, 0), 0);
	umask(old);
	cr_assert_eq(lt_writer_close(w), 0);
	cr_assert_eq(stat(path, &sb), 0);
	cr_assert_eq(sb.st_mode & 0777, 0600);
}

/* A header of 100,000 threads and a 10 MiB snapshot: larger than one chunk
 * (LT_CHUNK_MAX), written as CONT parts and read back whole. */
Test(tracefile, sections_larger_than_a_chunk_round_trip)
{
	char path[128];
	struct lt_writer *w;
	struct lt_header h;
	struct lt_reader r;
	struct lt_item it;
	char err[256];
	const uint32_t nth = 100000;
	const size_t big = 10u << 20;

	snprintf(path, sizeof(path), "%s/big.ltrace", tmpdir);
	sample_header(&h, 7);
	h.threads = calloc(nth, sizeof(*h.threads));
	h.nthreads = nth;
	for (uint32_t i = 0; i < nth; i++) {
		h.threads[i].tid = (int32_t)(7 + i);
		snprintf(h.threads[i].comm, LT_COMM_LEN, "worker-%u", i);
		for (int a = 0; a < 6; a++)
			h.threads[i].sc_args[a] = 0x7ffd00000000ull + i;
		h.threads[i].sc_nr = 202;
	}
	char *snap = malloc(big);
	for (size_t i = 0; i < big; i++)
		snap[i] = (char)('a' + i % 26);
	cr_assert_eq(lt_writer_open(&w, path, 0), 0);
	cr_assert_eq(lt_writer_header(w, &h), 0);
	cr_assert_eq(lt_writer_section(w, LT_CHUNK_SNAPSHOT, snap, big), 0);
	cr_assert_eq(lt_writer_close(w), 0);
	free(h.threads);

	cr_assert_eq(lt_reader_open(&r, path, err, sizeof(err)), 0, "%s", err);
	cr_assert_eq(r.hdr.nthreads, nth);
	cr_assert_eq(r.hdr.threads[nth - 1].tid, (int32_t)(7 + nth - 1));
	cr_assert_str_eq(r.hdr.threads[nth - 1].comm, "worker-99999");
	int snaps = 0;
	while (lt_reader_next(&r, &it) > 0) {
		if (it.type != LT_ITEM_SECTION || it.sec_type != LT_CHUNK_SNAPSHOT)
			continue;
		snaps++;
		cr_assert_eq(it.len, big);
		cr_assert(memcmp(it.data, snap, big) == 0, "the joined snapshot differs");
	}
	cr_assert_eq(snaps, 1);
	cr_assert(r.clean_end, "%s", r.stop_reason);
	lt_reader_close(&r);

	/* cut inside the snapshot's parts: read up to there, said where */
	struct stat sb;
	cr_assert_eq(stat(path, &sb), 0);
	cr_assert_eq(truncate(path, sb.st_size - (off_t)big / 2), 0);
	cr_assert_eq(lt_reader_open(&r, path, err, sizeof(err)), 0, "%s", err);
	while (lt_reader_next(&r, &it) > 0)
		cr_assert(it.type != LT_ITEM_SECTION || it.sec_type != LT_CHUNK_SNAPSHOT,
			  "half a snapshot was returned");
	cr_assert(!r.clean_end);
	cr_assert(r.stop_reason[0]);
	lt_reader_close(&r);
	free(snap);
}

/* A section the writer cannot write leaves a file that says the recording
 * failed, not one that reads as complete and empty. */
Test(tracefile, write_failure_says_so_in_the_file)
{
	char path[128], err[256];
	struct lt_writer *w;
	struct lt_header h;
	struct lt_reader r;
	struct lt_item it;
	static const char small[16];

	snprintf(path, sizeof(path), "%s/failed.ltrace", tmpdir);
	sample_header(&h, 7);
	cr_assert_eq(lt_writer_open(&w, path, 0), 0);
	cr_assert_eq(lt_writer_header(w, &h), 0);
	/* larger than any section: refused before a byte is read */
	cr_assert_eq(lt_writer_section(w, LT_CHUNK_SNAPSHOT, small, (size_t)LT_SECTION_MAX + 1), -EFBIG);
	struct lt_stats st = { .start_ns = 1, .end_ns = 2 };
	cr_assert_eq(lt_writer_stats(w, &st), -EFBIG, "writes after a failure must fail too");
	cr_assert_eq(lt_writer_close(w), -EFBIG);

	cr_assert_eq(lt_reader_open(&r, path, err, sizeof(err)), 0, "%s", err);
	while (lt_reader_next(&r, &it) > 0)
		;
	cr_assert(!r.clean_end, "a failed recording reads as complete");
	cr_assert(!r.have_stats);
	cr_assert(strstr(r.stop_reason, "the recording failed"), "%s", r.stop_reason);
	cr_assert(strstr(r.stop_reason, "File too large"), "%s", r.stop_reason);
	lt_reader_close(&r);
}

/* 1.4's file-lock entry: every field back as written, in a few bytes; a
 * type below -1 or a whence past a byte is a malformed event. */
Test(tracefile, flock_enter_round_trip)
{
	const struct lt_event in[] = {
		lt_ev_flock(1000, 501, 73, 3, 2, -1, 0, 0),             /* flock(3, LOCK_EX) */
		lt_ev_flock(2000, 502, 72, 7, 7, 1, 10, 3),             /* F_SETLKW write 10..12 */
		lt_ev_flock(3000, 502, 72, 7, 38, 0, -5, -INT64_MAX),   /* F_OFD_SETLKW, odd range */
	};
	uint8_t buf[3 * LT_EVENT_MAX_ENCODED], *p = buf;
	struct lt_codec c;
	lt_codec_reset(&c, 500, 0);
	for (size_t i = 0; i < 3; i++) {
		size_t n = lt_codec_encode(&c, p, &in[i]);
		cr_assert_gt(n, 0);
		cr_assert_leq(n, LT_EVENT_MAX_ENCODED);
		p += n;
	}
	cr_expect_leq((size_t)(p - buf), 3 * 24, "%zu bytes for 3 events", (size_t)(p - buf));
	const uint8_t *q = buf;
	lt_codec_reset(&c, 500, 0);
	for (size_t i = 0; i < 3; i++) {
		struct lt_event out;
		cr_assert_eq(lt_codec_decode(&c, &q, p, &out), 0, "event %zu", i);
		cr_assert_eq(memcmp(&out, &in[i], sizeof(out)), 0, "event %zu differs", i);
	}
	cr_assert_eq(q, p);

	/* hand-made: kind 12, flags 0, dts 0, cpu 0, tid 0, nr 72, fd 0, cmd 7, type zz(-2) */
	const uint8_t bad[] = { 12, 0, 0, 0, 0, 72, 0, 7, 3 };
	q = bad;
	struct lt_event out;
	lt_codec_reset(&c, 500, 0);
	cr_expect_neq(lt_codec_decode(&c, &q, bad + sizeof(bad), &out), 0, "type -2 accepted");
	/* type 1 then whence 300 (varint ac 02), start 0, len 0 */
	const uint8_t bad2[] = { 12, 0, 0, 0, 0, 72, 0, 7, 2, 0xac, 0x02, 0, 0 };
	q = bad2;
	lt_codec_reset(&c, 500, 0);
	cr_expect_neq(lt_codec_decode(&c, &q, bad2 + sizeof(bad2), &out), 0, "whence 300 accepted");
}

/* The flags the BPF side sets for the collector alone (LT_F_BPF_COPY,
 * LT_F_BPF_SAMPLED) are not written: the entry comes back with its
 * trace flags (LT_F_AT_SLEEP) only. */
Test(tracefile, recorder_only_flags_are_not_written)
{
	struct lt_event in = lt_ev_flock(1000, 501, 73, 3, 2, -1, 0, 0);
	in.h.flags = LT_F_AT_SLEEP | LT_F_BPF_COPY | LT_F_BPF_SAMPLED;
	uint8_t buf[LT_EVENT_MAX_ENCODED];
	struct lt_codec c;
	lt_codec_reset(&c, 500, 0);
	size_t n = lt_codec_encode(&c, buf, &in);
	cr_assert_gt(n, 0);
	const uint8_t *q = buf;
	struct lt_event out;
	lt_codec_reset(&c, 500, 0);
	cr_assert_eq(lt_codec_decode(&c, &q, buf + n, &out), 0);
	cr_assert_eq(out.h.flags, LT_F_AT_SLEEP, "flags 0x%x written", out.h.flags);
}
