// SPDX-License-Identifier: MIT
/* The flight recorder's dumps: the ring written out as a normal trace file. */
#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>
#include "fbdump.h"
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
		lt_info("wrote %s: no events (none recorded so far), only the header and the "
			"snapshot", path);
		return;
	}
	struct lt_msg m = { .len = 0 };
	lt_msg_add(&m, "wrote %s: %llu event%s spanning %.1f s", path,
		   (unsigned long long)fl->events, fl->events == 1 ? "" : "s",
		   (double)(newest - lt_flight_oldest_ts(fl)) / 1e9);
	if (now > newest && now - newest >= 1000000000ull)
		lt_msg_add(&m, ", the newest %.1f s before the dump", (double)(now - newest) / 1e9);
	lt_msg_add(&m, " (%.1f MB)", (double)fl->bytes / 1e6);
	lt_info("%s", m.text);
}

/* What a dump from the kernel-side slots held. */
struct fb_out {
	struct collector *c;
	struct lt_writer *w;
	uint64_t events[LT_EV_MAX], total, first_ts, last_ts;
	uint64_t at; /* when the dump began (BOOTTIME ns) */
	int werr;
};

static void fb_deliver(void *ctx, const struct lt_event *ev)
{
	struct fb_out *o = ctx;

	o->events[ev->h.kind]++;
	if (!o->total++)
		o->first_ts = ev->h.ts;
	if (ev->h.ts > o->last_ts)
		o->last_ts = ev->h.ts;
	uint32_t tgid = rec_note_event(o->c, ev);
	if (ev->h.kind == LT_EV_FUTEX_ENTER && tgid) {
		struct proc *p = rec_get_proc(o->c, (pid_t)tgid, 0, 0);
		if (p && p->have_syms)
			lt_locksyms_see(&p->syms, ev->futex.uaddr);
	}
	if (!o->werr)
		o->werr = lt_writer_event(o->w, ev);
}

/* The units' records, merged by time, as events into w (through a
 * pairing of calls of its own with --calls blocking: the dump begins
 * where the units do).  0 or -errno. */
static int fb_write_events(struct session *s, struct lt_writer *w, struct fb_out *out,
			   struct lt_fb_dump *d)
{
	struct lt_bpf *b = &s->bpf;
	struct lt_callnorm norm, *n = NULL;
	uint64_t *heads = calloc((size_t)b->ncpus * 2, sizeof(*heads));
	int r;

	memset(out, 0, sizeof(*out));
	out->at = lt_now_ns(CLOCK_BOOTTIME);
	out->c = &s->c;
	out->w = w;
	if (!heads)
		return -ENOMEM;
	r = lt_bpf_fb_heads(b, heads, heads + b->ncpus);
	if (!r)
		/* (not lt_fb_collect_live with the heads read again: what the
		 * writers overwrite while a slow copy reads the oldest units
		 * then cuts the dump, below 10,000 events of a 2 MiB ring in 1
		 * of 6 runs of flight_live::sigusr1_dumps_on_demand_* on a
		 * loaded machine; a hole that leaves stays as before, counted
		 * as overwritten) */
		r = lt_fb_collect(d, b->fb_units, (unsigned)b->ncpus, b->fb_nunits, heads,
				  heads + b->ncpus);
	free(heads);
	if (r)
		return r;
	if (s->c.norm) {
		if (lt_callnorm_init(&norm, s->norm.tgid))
			return -ENOMEM;
		norm.is_traced = s->norm.is_traced;
		norm.traced_ctx = s->norm.traced_ctx;
		n = &norm;
	}
	/* the names of threads gone before the dump: from attach, then from
	 * the dump's own events in time order (the last one counts) */
	struct lt_fb_comms comms = { 0 };
	int cr = 0;
	for (uint32_t i = 0; i < s->hdr.nthreads && !cr; i++)
		cr = lt_fb_comms_know(&comms, (uint32_t)s->hdr.threads[i].tid, s->hdr.threads[i].comm);
	for (size_t i = 0; i < d->n && !cr; i++) {
		const uint8_t *p = lt_fb_data(d, i);
		size_t size = d->ent[i].len, k;
		struct lt_event ev;
		for (; !cr && (k = lt_fb_event_size(p, size)); p += k, size -= k) {
			uint8_t kind = p[offsetof(struct lt_ev_hdr, kind)];
			if (kind != LT_EV_TASK_NEW && kind != LT_EV_RENAME && kind != LT_EV_EXEC)
				continue;
			memset(&ev, 0, sizeof(ev));
			memcpy(&ev, p, k);
			cr = lt_fb_comms_know(&comms, ev.h.tid, kind == LT_EV_TASK_NEW ? ev.tnew.comm
							     : kind == LT_EV_RENAME ? ev.ren.newcomm
										 : ev.exec.comm);
		}
	}
	if (cr && !out->werr)
		out->werr = cr;
	for (size_t i = 0; i < d->n; i++) {
		const uint8_t *p = lt_fb_data(d, i);
		size_t size = d->ent[i].len;
		struct lt_event ev;
		while (size >= sizeof(struct lt_ev_hdr)) {
			size_t k = lt_fb_event_size(p, size);
			if (!k)
				break;
			if (lt_fb_event(&ev, p, k, &comms) && !out->werr)
				out->werr = -ENOMEM;
			if (n)
				lt_callnorm_feed(n, &ev, fb_deliver, out);
			else
				fb_deliver(out, &ev);
			p += k;
			size -= k;
		}
	}
	lt_fb_comms_free(&comms);
	if (n) {
		lt_callnorm_flush(n, fb_deliver, out);
		lt_callnorm_free(n);
	}
	return out->werr;
}

/* The dump's message for the kernel-side slots. */
static void say_fb_dumped(const struct fb_out *o, const struct lt_fb_dump *d, const char *path)
{
	uint64_t now = o->at; /* writing a large dump takes a while */

	if (!o->total) {
		lt_info("wrote %s: no events (none recorded so far), only the header and the "
			"snapshot", path);
		return;
	}
	struct lt_msg m = { .len = 0 };
	lt_msg_add(&m, "wrote %s: %" PRIu64 " event%s spanning %.1f s", path, o->total,
		   o->total == 1 ? "" : "s", (double)(o->last_ts - o->first_ts) / 1e9);
	if (now > o->last_ts && now - o->last_ts >= 1000000000ull)
		lt_msg_add(&m, ", the newest %.1f s before the dump",
			   (double)(now - o->last_ts) / 1e9);
	lt_msg_add(&m, "; %" PRIu64 " of %" PRIu64 " records written since the start were "
		   "overwritten (the oldest)", d->overwritten, d->written);
	if (d->before_start)
		lt_msg_add(&m, ", %" PRIu64 " older ones of the less busy cpus left out (the dump "
			   "begins where the records every cpu kept meet)", d->before_start);
	lt_info("%s", m.text);
}

void rec_fb_poll_stall(struct session *s)
{
	uint32_t *tids = NULL;
	struct lt_fb_thread *t = NULL;
	size_t n = 0;
	uint64_t lp = 0, llp = 0, pe = 0;

	if (!s->have_stall || lt_bpf_fb_threads(&s->bpf, &tids, &t, &n) ||
	    lt_bpf_fb_progress(&s->bpf, &lp, &llp, &pe)) {
		free(tids);
		free(t);
		return;
	}
	for (size_t i = 0; i < n; i++) {
		/* a process joined (a fork followed, the cgroup's): known now */
		if (t[i].tgid && s->c.multi)
			rec_note_thread(&s->c, tids[i], t[i].tgid);
		/* a join on a thread that never blocked is still a join */
		if (t[i].state == LT_FB_TS_FUTEX_WAIT && t[i].val &&
		    !lt_stall_thread_of(&s->stall, t[i].val)) {
			char path[64];
			snprintf(path, sizeof(path), "/proc/%u/task/%u", t[i].tgid, t[i].val);
			if (t[i].tgid && !access(path, F_OK))
				lt_stall_seed(&s->stall, t[i].val, -1, NULL, 0);
		}
	}
	lt_stall_load(&s->stall, tids, t, n, lp, llp, pe);
	free(tids);
	free(t);
}

void rec_fb_seed_stall(struct session *s)
{
	for (uint32_t i = 0; i < s->hdr.nthreads; i++) {
		const struct lt_thread_info *ti = &s->hdr.threads[i];
		const struct lt_stall_thread *st = lt_stall_thread_of(&s->stall, (uint32_t)ti->tid);
		if (!st || st->state == LT_TS_NONE)
			continue;
		struct lt_fb_thread f = { 0 };
		f.since = st->since;
		f.uaddr = st->uaddr;
		f.timeout = st->timeout;
		f.futex_op = st->futex_op;
		f.tgid = ti->tgid ? (uint32_t)ti->tgid : (uint32_t)s->tgid;
		f.state = st->state;
		f.at_sleep = 1; /* its first run ends the call */
		lt_bpf_fb_seed(&s->bpf, (uint32_t)ti->tid, &f);
	}
}

/* The header of a dump: the processes now, their threads' names only. */
static void dump_header(struct lt_header *h, const struct collector *c, int blocking,
			const struct lt_header *launch)
{
	/* the header's syscalls would say what each thread was in when the
	 * events *begin*; /proc can only tell us about now, which the
	 * snapshot section records, so the header keeps just the names (and
	 * reads nothing else: no syscalls, no CPU clocks) */
	lt_target_describe_names((pid_t)c->tgid, h);
	fill_launched(h, launch);
	rec_describe_procs(h, c, 1, 1);
	h->flags |= LT_HDR_FLIGHT;
	if (blocking)
		h->flags |= LT_HDR_CALLS_BLOCKING;
}

/* The dump's contents into w: header (the processes now), the ring's
 * chunks, the lock names, a fresh snapshot, stats.  0 or -errno. */
static int write_dump(struct session *s, struct lt_writer *w, int reason, struct fb_out *fo,
		      struct lt_fb_dump *d)
{
	struct collector *c = &s->c;
	struct flight *f = &s->flight;
	struct lt_header h = { 0 };

	dump_header(&h, c, c->norm != NULL, s->launched ? &s->hdr : NULL);
	int r = lt_writer_header(w, &h);
	lt_header_free(&h);
	if (!r)
		r = lt_flight_dump(&f->fl, w); /* streamed; with the slots: losses only */
	if (!r && s->fb)
		r = fb_write_events(s, w, fo, d);
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
	if (s->fb) {
		/* the events of this dump; the records written and overwritten */
		memcpy(st.events, fo->events, sizeof(st.events));
		st.start_ns = fo->total ? fo->first_ts : st.end_ns;
		st.fb_written = d->written ? d->written : 0;
		st.fb_overwritten = d->overwritten;
	}
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
	struct fb_out fo = { 0 };
	struct lt_fb_dump d = { 0 };
	if ((r = lt_writer_fd_open(&w, fd))) {
		close(fd);
	} else {
		r = write_dump(s, w, reason, &fo, &d);
		uint64_t bytes = lt_writer_bytes(w);
		int cr = lt_writer_close(w);
		if (!r && !cr)
			f->last_dump_bytes = bytes;
		if (!r)
			r = cr;
	}
	/* the first dump, into the file --force replaces: it takes the name
	 * (kept under its temporary one if it cannot) */
	if ((!r || final) && s->out_tmp[0] && rec_out_commit(s))
		snprintf(path, plen, "%s", s->res->path);
	if (!r) {
		f->ndumps++;
		s->res->dumps++;
		snprintf(s->res->path, sizeof(s->res->path), "%s", path);
		if (s->fb) {
			say_fb_dumped(&fo, &d, path);
			/* nothing is counted between dumps: the summary says
			 * what the last one held */
			memcpy(s->c.events, fo.events, sizeof(s->c.events));
			s->c.total = fo.total;
		}
		else
			say_dumped(&f->fl, path);
	} else if (final) {
		lt_err("writing %s: %s; the trace is readable up to its last complete chunk%s", path,
		       strerror(-r), r == -ENOSPC || r == -EDQUOT ? " (free space on its file system, or give "
								  "-o a path on another, for the next recording)" : "");
	} else {
		rec_out_discard(s, path);
		lt_err("writing %s: %s; removed it, the ring is kept and the next trigger retries",
		       path, strerror(-r));
	}
	lt_fb_dump_free(&d);
	return r;
}
