// SPDX-License-Identifier: MIT
/* The flight recorder's dumps: the ring written out as a normal trace file. */
#include <errno.h>
#include <stdio.h>
#include <string.h>
#include <time.h>
#include <unistd.h>
#include "outfile.h"
#include "record_int.h"

static int create_dump_file(struct flight *f, char *path, size_t plen)
{
	const struct lt_record_opts *o = f->o;
	char err[PATH_MAX + 128];

	if (f->first_fd >= 0) {
		int fd = f->first_fd;
		f->first_fd = -1;
		snprintf(path, plen, "%s", f->base);
		return fd;
	}
	if (!f->ndumps) { /* the first dump failed and was removed: its name again */
		snprintf(path, plen, "%s", f->base);
		int fd = lt_out_create(path, 0);
		if (fd != -EEXIST)
			return fd;
	}
	size_t bl = strlen(f->base);
	int ext = bl > 7 && !strcmp(f->base + bl - 7, ".ltrace");
	for (int n = f->ndumps + 1; n < f->ndumps + 1000; n++) {
		snprintf(path, plen, "%.*s-%d%s", (int)(ext ? bl - 7 : bl), f->base, n, ext ? ".ltrace" : "");
		/* a name taken, by anything (a symlink too) or its Perfetto file:
		 * the next one */
		if (o->check_out && o->check_out(o->on_trace_ctx, path, err, sizeof(err)))
			continue;
		int fd = lt_out_create(path, 0);
		if (fd != -EEXIST)
			return fd;
	}
	return -EEXIST;
}

/* A launched program that has exited (a zombie) has no exe or cmdline in
 * /proc: the header keeps what was launched. */
static void fill_launched(struct lt_header *h, const struct lt_header *launch)
{
	if (!launch)
		return;
	if (!h->exe[0])
		snprintf(h->exe, sizeof(h->exe), "%s", launch->exe);
	if (!h->cmdline[0])
		snprintf(h->cmdline, sizeof(h->cmdline), "%s", launch->cmdline);
	if (!h->comm[0])
		snprintf(h->comm, sizeof(h->comm), "%s", launch->comm);
	h->flags |= LT_HDR_LAUNCHED;
}

/* What a dump holds, with where it went: the events and their span. */
static void say_dumped(const struct lt_flight *fl, const char *path)
{
	uint64_t now = lt_now_ns(CLOCK_BOOTTIME), newest = lt_flight_newest_ts(fl);

	if (!fl->events) {
		fprintf(stderr, "locktrace: wrote %s: no events (none recorded so far), only the "
			"header and the snapshot\n", path);
		return;
	}
	fprintf(stderr, "locktrace: wrote %s: %llu event%s spanning %.1f s", path,
		(unsigned long long)fl->events, fl->events == 1 ? "" : "s",
		(double)(newest - lt_flight_oldest_ts(fl)) / 1e9);
	if (now > newest && now - newest >= 1000000000ull)
		fprintf(stderr, ", the newest %.1f s before the dump", (double)(now - newest) / 1e9);
	fprintf(stderr, " (%.1f MB)\n", (double)fl->bytes / 1e6);
}

/* The header of a dump: the processes now, their threads' names only. */
static void dump_header(struct lt_header *h, const struct collector *c, int blocking,
			const struct lt_header *launch)
{
	lt_target_describe((pid_t)c->tgid, h);
	fill_launched(h, launch);
	rec_describe_procs(h, c, 1);
	h->flags |= LT_HDR_FLIGHT;
	if (blocking)
		h->flags |= LT_HDR_CALLS_BLOCKING;
	/* the header's syscalls would say what each thread was in when the
	 * events *begin*; /proc can only tell us about now, which the
	 * snapshot section records, so the header keeps just the names */
	for (uint32_t i = 0; i < h->nthreads; i++) {
		h->threads[i].sc_nr = LT_SC_NR_UNKNOWN;
		h->threads[i].blocked_ns = 0;
		h->threads[i].state = 0;
	}
}

/* The dump's contents into w: header (the processes now), the ring's
 * chunks, the lock names, a fresh snapshot, stats.  0 or -errno. */
static int write_dump(struct session *s, struct lt_writer *w, int reason)
{
	struct collector *c = &s->c;
	struct flight *f = &s->flight;
	struct lt_header h = { 0 };

	dump_header(&h, c, c->norm != NULL, s->launched ? &s->hdr : NULL);
	int r = lt_writer_header(w, &h);
	lt_header_free(&h);
	if (!r)
		r = lt_flight_dump(&f->fl, w);
	for (size_t i = 0; !r && i < c->nprocs; i++) {
		struct proc *p = c->procs[i];
		if (!p->have_syms)
			continue;
		lt_locksyms_resolve(&p->syms, NULL);
		r = lt_locksyms_write_all(&p->syms, w);
	}
	if (!r && c->stk)
		r = lt_stackrec_write(c->stk, w, 1, f->fl.count ? lt_flight_oldest_ts(&f->fl) : 0);
	if (!r)
		r = rec_snapshot_into(w, c, s->o->quiet, reason == LT_STOP_STALL ? "stall" :
							 reason == LT_STOP_USR1 ? "sigusr1" : "end");
	if (r)
		return r;
	struct lt_stats st = { 0 };
	st.end_ns = lt_now_ns(CLOCK_BOOTTIME);
	st.start_ns = f->fl.count ? lt_flight_oldest_ts(&f->fl) : st.end_ns;
	memcpy(st.events, c->events, sizeof(st.events));
	st.ncpus = (uint32_t)s->bpf.ncpus;
	st.lost = s->lost_seen;
	st.exit_status = -1;
	st.stop_reason = (uint32_t)reason;
	return lt_writer_stats(w, &st);
}

/* Writes what the ring holds as a normal trace (write_dump) into a new
 * file, its path in path and res->path.  0, or -errno with the ring kept.
 * A dump that fails (disk full) is removed so that its space is there for
 * the retry at the next trigger, unless it is the last (final): then what
 * it holds is all there will be.  A failure is said now (lt_err), not
 * returned for later: the recording goes on, and the next trigger
 * retries. */
int rec_dump_flight(struct session *s, int reason, int final, char *path, size_t plen)
{
	struct flight *f = &s->flight;
	struct lt_writer *w;
	int r;

	if ((r = lt_writer_flush(s->c.w))) /* the partial chunk joins the ring */
		return r;
	int fd = create_dump_file(f, path, plen);
	if (fd < 0) {
		lt_err("cannot create %s: %s; the ring is kept for the next trigger", path,
		       strerror(-fd));
		return fd;
	}
	if ((r = lt_writer_fd_open(&w, fd))) {
		close(fd);
	} else {
		r = write_dump(s, w, reason);
		int cr = lt_writer_close(w);
		if (!r)
			r = cr;
	}
	if (!r) {
		f->ndumps++;
		s->res->dumps++;
		snprintf(s->res->path, sizeof(s->res->path), "%s", path);
		say_dumped(&f->fl, path);
	} else if (final) {
		lt_err("writing %s: %s; the trace is readable up to its last complete chunk", path,
		       strerror(-r));
	} else {
		unlink(path);
		lt_err("writing %s: %s; removed it, the ring is kept and the next trigger retries",
		       path, strerror(-r));
	}
	return r;
}
