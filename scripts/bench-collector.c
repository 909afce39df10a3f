// SPDX-License-Identifier: MIT
/*
 * The collector's user-space path, replayed: the events of a recorded trace
 * are turned back into the ring records the BPF side wrote and fed through
 * rec_on_sample() (as the ring callback does: the record copied out, call
 * normalisation with --calls blocking, the thread set, encoding, the CRC and
 * the writes of full chunks to /dev/null), without BPF, so that the cost per
 * event can be measured deterministically (valgrind --tool=callgrind
 * --toggle-collect=replay counts instructions) or timed (the best of
 * ROUNDS).  Built by `make build/bench-collector`; BENCHMARKS.md says how it
 * is used.
 *
 *   bench-collector [-p] [-m] [-r ROUNDS] [-o OUT] TRACE
 *
 * The collector is set up as for `locktrace record -- COMMAND` (forks
 * followed: several processes may be traced), or with -p as for
 * `locktrace record -p PID` (one process).  -m: the chunks go to memory, as
 * the flight recorder's (--ring) do, of LT_FLIGHT_CHUNK bytes, dropped.
 *
 * A trace of --calls blocking (its returns flagged LT_F_RET_UNKNOWN, which
 * the collector itself adds) is replayed through call normalisation, those
 * returns left out; LOST records (the collector's too) are left out.
 * Not replayed: the stall rule, --stacks, lock symbols (they need the live
 * process).  -o writes the replayed trace's events (the first round) to OUT,
 * to compare the encodings of two builds byte for byte.
 */
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>
#include "callnorm.h"
#include "record_int.h"
#include "locktrace/tracefile.h"

struct recs {
	uint8_t *buf;
	size_t len, cap;
	size_t *off; /* record i is buf[off[i], off[i+1]) */
	size_t n, cap_off;
	uint64_t events;
};

static void add(struct recs *r, const struct lt_event *ev, int join)
{
	size_t sz = lt_record_size(ev->h.kind);

	if (!sz)
		return;
	if (r->len + sz > r->cap) {
		r->cap = (r->cap + sz) * 2;
		r->buf = realloc(r->buf, r->cap);
	}
	if (!join) {
		if (r->n + 2 > r->cap_off) {
			r->cap_off = (r->cap_off + 2) * 2;
			r->off = realloc(r->off, r->cap_off * sizeof(*r->off));
		}
		if (!r->buf || !r->off) {
			fprintf(stderr, "bench-collector: out of memory\n");
			exit(1);
		}
		r->off[r->n++] = r->len;
	}
	memcpy(r->buf + r->len, ev, sz);
	r->len += sz;
	r->off[r->n] = r->len;
	r->events++;
}

static double now_s(void)
{
	struct timespec t;
	clock_gettime(CLOCK_THREAD_CPUTIME_ID, &t); /* CPU time: others share the machine */
	return t.tv_sec + t.tv_nsec / 1e9;
}

static int drop_chunk(void *ctx, uint32_t type, const uint8_t *data, size_t len,
		      const struct lt_chunk_info *info)
{
	(void)ctx, (void)type, (void)data, (void)len, (void)info;
	return 0;
}

/* The measured part (callgrind --toggle-collect=replay). */
__attribute__((noinline)) static uint64_t replay(struct recs *r, struct lt_header *h, int blocking,
						 int multi, int mem, int fd)
{
	struct collector c;
	struct lt_callnorm norm;
	struct lt_writer *w;

	memset(&c, 0, sizeof(c));
	if (mem ? lt_writer_mem_open(&w, h->pid, LT_FLIGHT_CHUNK, drop_chunk, NULL)
		: lt_writer_fd_open(&w, fd) || lt_writer_header(w, h)) {
		fprintf(stderr, "bench-collector: cannot open the writer\n");
		exit(1);
	}
	c.w = w;
	c.tgid = (uint32_t)h->pid;
	c.multi = multi;
	rec_get_proc(&c, (pid_t)h->pid, 0, 1);
	if (blocking) {
		if (lt_callnorm_init(&norm, c.tgid)) {
			fprintf(stderr, "bench-collector: out of memory\n");
			exit(1);
		}
		c.norm = &norm;
	}
	for (size_t i = 0; i < r->n; i++)
		rec_on_sample(&c, r->buf + r->off[i], r->off[i + 1] - r->off[i]);
	uint64_t total = c.total;
	lt_writer_flush(w);
	if (mem)
		lt_writer_close(w);
	else
		lt_writer_release_fd(w);
	if (c.norm)
		lt_callnorm_free(c.norm);
	free(c.tids.v);
	free(c.tids.tg);
	rec_free_procs(&c);
	return total;
}

int main(int argc, char **argv)
{
	int rounds = 5, opt, multi = 1, mem = 0;
	const char *out = NULL;
	struct lt_reader rd;
	struct lt_item it;
	struct recs r = { 0 };
	char err[512];

	while ((opt = getopt(argc, argv, "pmr:o:")) != -1) {
		if (opt == 'p')
			multi = 0;
		else if (opt == 'm')
			mem = 1;
		else if (opt == 'r')
			rounds = atoi(optarg);
		else if (opt == 'o')
			out = optarg;
		else
			return 2;
	}
	if (optind != argc - 1 || rounds < 1) {
		fprintf(stderr, "usage: bench-collector [-p] [-m] [-r ROUNDS] [-o OUT] TRACE\n");
		return 2;
	}
	if (lt_reader_open(&rd, argv[optind], err, sizeof(err))) {
		fprintf(stderr, "bench-collector: %s\n", err);
		return 1;
	}
	int blocking = 0, pending_entry = 0;
	while (lt_reader_next(&rd, &it) == 1) {
		if (it.type != LT_ITEM_EVENT)
			continue;
		const struct lt_event *ev = &it.ev;
		if (ev->h.kind == LT_EV_LOST)
			continue;
		if (ev->h.kind == LT_EV_SYS_EXIT && (ev->h.flags & LT_F_RET_UNKNOWN)) {
			blocking = 1;
			continue;
		}
		/* an entry written at a sleep shares its ring record with the
		 * switch that follows it */
		add(&r, ev, pending_entry && ev->h.kind == LT_EV_SWITCH);
		pending_entry = lt_entry_nr(ev) != 0xffff && (ev->h.flags & LT_F_AT_SLEEP);
	}
	struct lt_header h = rd.hdr;
	rd.hdr.threads = NULL;
	rd.hdr.procs = NULL;
	rd.hdr.shared = NULL;
	rd.hdr.nthreads = rd.hdr.nprocs = rd.hdr.nshared = 0;
	lt_reader_close(&rd);

	double best = 0;
	uint64_t total = 0;
	for (int i = 0; i < rounds; i++) {
		int fd = open(i == 0 && out ? out : "/dev/null",
			      i == 0 && out ? O_WRONLY | O_CREAT | O_TRUNC : O_WRONLY, 0644);
		if (fd < 0) {
			perror("bench-collector: open");
			return 1;
		}
		double t0 = now_s();
		total = replay(&r, &h, blocking, multi, mem, fd);
		double t = now_s() - t0;
		close(fd);
		if (i == 0 || t < best)
			best = t;
	}
	printf("mode %s%s%s records %zu events in %llu out %llu best %.4f s %.1f ns per event out "
	       "%.3f CPU-s per million events\n",
	       blocking ? "blocking" : "every-call", multi ? "" : " -p", mem ? " memory" : "", r.n, (unsigned long long)r.events,
	       (unsigned long long)total, best, best * 1e9 / (double)total,
	       best * 1e6 / (double)total);
	return 0;
}
