// SPDX-License-Identifier: MIT
/* The collector loop: signals, the events taken from the ring buffer,
 * the triggers (stall, SIGUSR1), and the drain at the end. */
#include <poll.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>
#include "golang.h"
#include "rtwatch.h"
#include "record_int.h"
#include "fbstream.h"
#include "callnorm_feed.h"
#include "taskrun.h"
#include "writer_int.h"

#define POLL_MS 20
#define FB_POLL_MS 200 /* the flight recorder's slots: nothing to drain */
#define FLUSH_NS 1000000000ull /* at most this much recorded data is only in memory */
#define LOST_CHECK_NS 100000000ull
#define STALL_CHECK_NS 100000000ull
#define NAMES_NS 100000000ull

int rec_fail(struct session *s, const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(s->res->err, sizeof(s->res->err), fmt, ap);
	va_end(ap);
	return -1;
}

void rec_reap_kids(struct kids *k, int block)
{
	for (int i = 0; i < k->n;) {
		if (waitpid(k->pid[i], NULL, block ? 0 : WNOHANG) != 0) {
			k->pid[i] = k->pid[--k->n];
			continue;
		}
		i++;
	}
}

void rec_hand_over(const struct lt_record_opts *o, const char *path, int background,
		   struct kids *k)
{
	if (!o->on_trace)
		return;
	if (background) {
		rec_reap_kids(k, 0);
		if (k->n == (int)(sizeof(k->pid) / sizeof(k->pid[0])))
			rec_reap_kids(k, 1);
		fflush(stderr);
		pid_t c = fork();
		if (c == 0) {
			o->on_trace(o->on_trace_ctx, path);
			fflush(NULL);
			_exit(0);
		}
		if (c > 0) {
			k->pid[k->n++] = c;
			return;
		}
		/* no fork: do it here rather than not at all */
	}
	o->on_trace(o->on_trace_ctx, path);
}

volatile sig_atomic_t rec_stop_requests;
static volatile sig_atomic_t usr1_requests;

static void on_usr1(int sig)
{
	(void)sig;
	usr1_requests++;
}

static void on_signal(int sig)
{
	rec_stop_requests++;
	if (rec_stop_requests >= 3) {
		/* a third one ends us the default way (a finish that hangs),
		 * saying what is left */
		static const char m[] = "locktrace: a third stop request: ending now; the trace keeps its complete "
					"chunks, not its end (locktrace report TRACE says where it stops)\n";
		ssize_t w = write(STDERR_FILENO, m, sizeof(m) - 1);
		(void)w;
		signal(sig, SIG_DFL);
		raise(sig);
	}
}

/* SIGINT, SIGTERM, SIGHUP and SIGUSR1 are blocked from the start: one that arrives
 * while we attach (the default actions would end us, leaving a half-made
 * output behind) waits until the handlers exist. */
void rec_hold_signals(sigset_t *old)
{
	sigset_t set;

	rec_stop_requests = usr1_requests = 0;
	sigemptyset(&set);
	sigaddset(&set, SIGINT);
	sigaddset(&set, SIGTERM);
	sigaddset(&set, SIGHUP);
	sigaddset(&set, SIGUSR1);
	sigprocmask(SIG_BLOCK, &set, old);
}

/* The handlers, then the mask we started with: held signals arrive now. */
static void take_signals(const sigset_t *old)
{
	struct sigaction sa = { .sa_handler = on_signal };
	struct sigaction su = { .sa_handler = on_usr1 };

	sigaction(SIGINT, &sa, NULL);
	sigaction(SIGTERM, &sa, NULL);
	sigaction(SIGHUP, &sa, NULL); /* a closed terminal: stop as Ctrl-C does */
	sigaction(SIGUSR1, &su, NULL);
	sigprocmask(SIG_SETMASK, old, NULL);
}

/* An event to the sink, inline; kind is ev->h.kind, a constant in each
 * of deliver_any's cases, so that the thread set's and the encoder's
 * switches on it fold away in each. */
static inline __attribute__((always_inline)) void deliver_kind(struct collector *c,
							       const struct lt_event *ev, uint8_t kind)
{
	c->events[kind]++;
	c->total++;
	uint32_t tgid = rec_note_event_kind(c, ev, kind);
	/* the stall rule and --stacks: one test when both are off */
	if (__builtin_expect(((uintptr_t)c->stall | (uintptr_t)c->stk) != 0, 0)) {
		if (c->stall)
			lt_stall_event(c->stall, ev);
		if (c->stk)
			lt_stackrec_event(c->stk, ev, tgid);
	}
	if (kind == LT_EV_FUTEX_ENTER && tgid) {
		/* procs[0], the first process, is most events' */
		struct proc *p = c->nprocs && c->procs[0]->tgid == (pid_t)tgid ? c->procs[0]
										: rec_get_proc(c, (pid_t)tgid, 0, 0);
		if (p && p->have_syms)
			lt_locksyms_see(&p->syms, ev->futex.uaddr);
	}
	if (c->werr)
		return; /* keep draining so the kernel side never blocks on us */
	int r = lt_writer_event_kind(c->w, ev, kind);
	if (r)
		c->werr = r;
}

/* The common kinds each with its own copy of the path. */
static inline __attribute__((always_inline)) void deliver_any(struct collector *c,
							      const struct lt_event *ev)
{
	switch (ev->h.kind) {
	case LT_EV_SYS_EXIT:
		deliver_kind(c, ev, LT_EV_SYS_EXIT);
		break;
	case LT_EV_FUTEX_ENTER:
		deliver_kind(c, ev, LT_EV_FUTEX_ENTER);
		break;
	case LT_EV_SWITCH:
		deliver_kind(c, ev, LT_EV_SWITCH);
		break;
	case LT_EV_WAKING:
		deliver_kind(c, ev, LT_EV_WAKING);
		break;
	default:
		deliver_kind(c, ev, ev->h.kind);
		break;
	}
}

/* call normalisation's callback */
static void deliver(void *ctx, const struct lt_event *ev)
{
	deliver_any(ctx, ev);
}

/* call normalisation's callback for the returns it adds (SYS_EXIT) */
static void deliver_ret(void *ctx, const struct lt_event *ev)
{
	deliver_kind(ctx, ev, LT_EV_SYS_EXIT);
}

/* call normalisation's callback for the events fed, inline at its one
 * call in lt_callnorm_feed_kind */
static inline __attribute__((always_inline)) void deliver_fed(void *ctx, const struct lt_event *ev,
							      uint8_t kind)
{
	deliver_kind(ctx, ev, kind);
}

/* ev = the record of n bytes at p, zeros after it.  The common sizes are
 * copied with constant lengths (inline moves, no library call). */
#define COPY_FIXED(N)                                                   \
	do {                                                            \
		memcpy(ev, p, (N));                                     \
		memset((char *)ev + (N), 0, sizeof(*ev) - (N));         \
	} while (0)
static inline void copy_record(struct lt_event *ev, const uint8_t *p, size_t n)
{
	if (n == LT_REC_SIZE(lt_sys_exit))
		COPY_FIXED(LT_REC_SIZE(lt_sys_exit));
	else if (n == LT_REC_SIZE(lt_futex_enter))
		COPY_FIXED(LT_REC_SIZE(lt_futex_enter));
	else if (n == LT_REC_SIZE(lt_switch))
		COPY_FIXED(LT_REC_SIZE(lt_switch));
	else if (n == LT_REC_SIZE(lt_waking))
		COPY_FIXED(LT_REC_SIZE(lt_waking));
	else {
		memset(ev, 0, sizeof(*ev));
		memcpy(ev, p, n);
	}
}
#undef COPY_FIXED

/* Every call, streamed: the returns paired with their entries here.  The
 * BPF side writes the return of every futex, wait and file-lock call of a
 * traced thread (and of a read or write whose entry it wrote), whatever
 * happened to its entry: marking each call in the thread's task storage
 * at sys_enter cost ~55 ns a call (BENCHMARKS.md, 2026-12-05).  So a
 * return is kept when the thread's entry of that call came before it; is
 * the return of a call begun before tracing (LT_F_BEGAN_BEFORE) when it
 * is the thread's first call event; and is dropped otherwise (its entry
 * lost): what the BPF side's mark decided before.  c->calls: tid ->
 * PAIR_SEEN | (the open call's nr + 1) << 1, PAIR_SEEN alone when none is
 * open.  A thread's entry and return are in the ring in their order (one
 * ring, reserved in time order).  The kernel-side units (--ring) still
 * pair in the kernel; --calls blocking has no syscall programs. */
#define PAIR_SEEN ((uintptr_t)1)
#define PAIR_DROP 0
#define PAIR_KEEP 1
#define PAIR_BEFORE 2

static inline void pair_set(struct collector *c, uint32_t tid, uintptr_t v)
{
	void **r = lt_u64map_ref(&c->calls, tid);

	if (r)
		*r = (void *)v;
	else
		lt_u64map_put(&c->calls, tid, (void *)v);
}

/* What to do with ev, of kind kind (a constant where the caller knows it):
 * PAIR_KEEP, PAIR_DROP, or PAIR_BEFORE (a SYS_EXIT to deliver flagged). */
static inline __attribute__((always_inline)) int pair_event(struct collector *c,
							    const struct lt_event *ev,
							    uint8_t kind)
{
	uint32_t tid = ev->h.tid;

	switch (kind) {
	case LT_EV_FUTEX_ENTER:
	case LT_EV_WAIT_ENTER:
	case LT_EV_IO_ENTER:
	case LT_EV_FLOCK_ENTER:
		if (tid)
			pair_set(c, tid, PAIR_SEEN | ((uintptr_t)lt_entry_nr(ev) + 1) << 1);
		return PAIR_KEEP;
	case LT_EV_SYS_EXIT: {
		void **r = tid ? lt_u64map_ref(&c->calls, tid) : NULL;
		if (!r) {
			if (tid)
				lt_u64map_put(&c->calls, tid, (void *)PAIR_SEEN);
			return PAIR_BEFORE;
		}
		uintptr_t v = (uintptr_t)*r;
		*r = (void *)PAIR_SEEN;
		return v >> 1 == (uintptr_t)ev->exit.nr + 1 ? PAIR_KEEP : PAIR_DROP;
	}
	case LT_EV_TASK_NEW: /* no call of its own began before tracing */
		if (tid)
			pair_set(c, tid, PAIR_SEEN);
		return PAIR_KEEP;
	case LT_EV_TASK_EXIT: /* its tid may be another thread's later */
		if (tid)
			lt_u64map_del(&c->calls, tid);
		return PAIR_KEEP;
	}
	return PAIR_KEEP;
}

/* deliver_kind after pair_event */
static inline __attribute__((always_inline)) void deliver_paired(struct collector *c,
								 const struct lt_event *ev,
								 uint8_t kind)
{
	int how = pair_event(c, ev, kind);

	if (__builtin_expect(how == PAIR_KEEP, 1)) {
		deliver_kind(c, ev, kind);
	} else if (how == PAIR_BEFORE) {
		struct lt_event x;
		memcpy(&x, ev, LT_REC_SIZE(lt_sys_exit));
		x.h.flags |= LT_F_BEGAN_BEFORE;
		deliver_kind(c, &x, LT_EV_SYS_EXIT);
	}
}

/* rec_on_sample for a record that is not 8-byte aligned (none should be):
 * its events copied out first. */
static __attribute__((noinline)) int on_sample_copied(struct collector *c, const uint8_t *p,
						      size_t size)
{
	struct lt_event copy;

	while (size >= sizeof(struct lt_ev_hdr)) {
		size_t n = lt_record_size(p[offsetof(struct lt_ev_hdr, kind)]);
		if (!n || n > size)
			return 0;
		copy_record(&copy, p, n);
		if (c->norm)
			lt_callnorm_feed(c->norm, &copy, deliver, c);
		else
			deliver_paired(c, &copy, copy.h.kind);
		p += n;
		size -= n;
	}
	return 0;
}

/* rec_on_sample's loop with call normalisation (--calls blocking): the
 * test of c->norm once per record, not per event.  Each event aligned
 * (rec_on_sample). */
static inline __attribute__((always_inline)) int on_sample_norm(struct collector *c,
								const uint8_t *p, size_t size)
{
	while (size >= sizeof(struct lt_ev_hdr)) {
		const struct lt_event *ev = (const struct lt_event *)p;
		size_t n = lt_record_size(ev->h.kind);
		if (!n || n > size)
			return 0;
		switch (ev->h.kind) {
		case LT_EV_FUTEX_ENTER:
			lt_callnorm_feed_kind(c->norm, ev, LT_EV_FUTEX_ENTER, deliver_fed, deliver_ret, c);
			break;
		case LT_EV_SWITCH:
			lt_callnorm_feed_kind(c->norm, ev, LT_EV_SWITCH, deliver_fed, deliver_ret, c);
			break;
		case LT_EV_WAKING:
			lt_callnorm_feed_kind(c->norm, ev, LT_EV_WAKING, deliver_fed, deliver_ret, c);
			break;
		default:
			lt_callnorm_feed_kind(c->norm, ev, ev->h.kind, deliver_fed, deliver_ret, c);
			break;
		}
		p += n;
		size -= n;
	}
	return 0;
}

/* One ring record holds one event, or (--calls blocking) a call's entry
 * followed by the switch or wake-up it was written with.
 *
 * The events are read where they lie in the ring, not copied out: an
 * event of n bytes holds all of its kind's fields (n is its kind's record
 * size), and what handles an event (call normalisation, the thread set,
 * the stall rule, --stacks, the encoder) reads only its kind's fields, so
 * never the bytes after it.  The ring's records are 8-byte aligned, and
 * every record size is a multiple of 8, so each event in one is too.
 *
 * Without call normalisation, one switch on the kind gives both the size
 * and the kind's own copy of deliver. */
#define ONE_KIND(K, PAYLOAD)                                            \
	case K:                                                         \
		if ((n = LT_REC_SIZE(PAYLOAD)) > size)                  \
			return 0;                                       \
		deliver_paired(c, ev, K);                               \
		break
/* rec_on_sample once the programs are being detached: the record's
 * events after the trace's end are dropped (each record is one event, or
 * a call's entry and the switch or wake-up written at the same moment). */
static __attribute__((noinline)) int on_sample_at_end(struct collector *c, const uint8_t *p, size_t size)
{
	uint64_t ts = 0;
	if (size >= sizeof(struct lt_ev_hdr))
		memcpy(&ts, p + offsetof(struct lt_ev_hdr, ts), sizeof(ts)); /* aligned or not */
	if (size >= sizeof(struct lt_ev_hdr) && ts > c->end_ns) {
		c->after_end++;
		return 0;
	}
	uint64_t end = c->end_ns;
	c->end_ns = 0;
	int r = rec_on_sample(c, (void *)p, size);
	c->end_ns = end;
	return r;
}

int rec_on_sample(void *ctx, void *data, size_t size)
{
	struct collector *c = ctx;
	const uint8_t *p = data;

	if (__builtin_expect(c->end_ns != 0, 0))
		return on_sample_at_end(c, p, size);
	if ((uintptr_t)p % _Alignof(struct lt_event))
		return on_sample_copied(c, p, size);
	if (c->norm)
		return on_sample_norm(c, p, size);
	while (size >= sizeof(struct lt_ev_hdr)) {
		const struct lt_event *ev = (const struct lt_event *)p;
		size_t n;
		switch (ev->h.kind) {
		ONE_KIND(LT_EV_SYS_EXIT, lt_sys_exit);
		ONE_KIND(LT_EV_FUTEX_ENTER, lt_futex_enter);
		ONE_KIND(LT_EV_SWITCH, lt_switch);
		ONE_KIND(LT_EV_WAKING, lt_waking);
		default:
			n = lt_record_size(ev->h.kind);
			if (!n || n > size)
				return 0;
			deliver_paired(c, ev, ev->h.kind);
			break;
		}
		p += n;
		size -= n;
	}
	return 0;
}
#undef ONE_KIND

/* Emits a LOST record for every (cpu, kind) whose drop count grew. */
static void account_lost(struct lt_bpf *b, struct collector *c, uint64_t *seen, uint64_t *now,
			 size_t n)
{
	memset(now, 0, n * sizeof(*now));
	if (lt_bpf_read_lost(b, now))
		return;
	for (size_t i = 0; i < n; i++) {
		if (now[i] <= seen[i])
			continue;
		struct lt_event ev = { 0 };
		ev.h.ts = lt_now_ns(CLOCK_BOOTTIME);
		ev.h.kind = LT_EV_LOST;
		ev.h.cpu = (uint16_t)(i / LT_EV_MAX);
		ev.lost.lost_kind = (uint32_t)(i % LT_EV_MAX);
		ev.lost.count = now[i] - seen[i];
		seen[i] = now[i];
		if (!c->werr) {
			int r = lt_writer_event(c->w, &ev);
			if (r)
				c->werr = r;
		}
	}
}

/* The first line: what is recorded, where, and our own pid (to signal). */
static void say_recording(const struct session *s)
{
	const struct lt_record_opts *o = s->o;
	int me = (int)getpid();

	if (o->quiet)
		return;
	struct lt_msg m = { .len = 0 };
	lt_msg_add(&m, "recording ");
	if (s->launched)
		lt_msg_add(&m, "%s (pid %d)", s->comm, s->tgid);
	else if (s->c.nprocs > 1)
		lt_msg_add(&m, "%zu processes (the first %d, %s; %u threads)", s->c.nprocs, s->tgid,
			   s->comm, s->hdr.nthreads);
	else
		lt_msg_add(&m, "process %d (%s, %u threads)", s->tgid, s->comm, s->hdr.nthreads);
	if (s->have_cg)
		lt_msg_add(&m, " of cgroup %s", s->cg.rel);
	if (s->ring)
		lt_msg_add(&m, " in memory, dumps to %s; kill -USR1 %d dumps now, Ctrl-C stops",
			   s->res->path, me);
	else
		lt_msg_add(&m, " into %s; Ctrl-C to stop", s->res->path);
	lt_info_self("%s", m.text);
	if (s->note[0])
		lt_info("%s", s->note);
}

/* The stall rule, with the threads at attach and what they were in. */
static void start_stall_rule(struct session *s)
{
	const struct lt_record_opts *o = s->o;
	uint64_t boot = lt_now_ns(CLOCK_BOOTTIME);

	if (lt_stall_init(&s->stall, o->stall_rule, (uint64_t)(o->stall_s * 1e9), boot))
		return;
	s->have_stall = 1;
	/* all threads first, so a join on any of them is recognized */
	for (uint32_t i = 0; i < s->hdr.nthreads; i++)
		lt_stall_seed(&s->stall, (uint32_t)s->hdr.threads[i].tid, -1, s->hdr.threads[i].sc_args, 0);
	for (uint32_t i = 0; i < s->hdr.nthreads; i++) {
		const struct lt_thread_info *ti = &s->hdr.threads[i];
		uint64_t since = ti->blocked_ns < boot ? boot - ti->blocked_ns : 0;
		lt_stall_seed(&s->stall, (uint32_t)ti->tid, ti->sc_nr, ti->sc_args, since);
	}
	s->c.stall = &s->stall;
	s->rtw_window = (uint64_t)(o->stall_s * 1e9);
	if (s->fb)
		rec_fb_seed_stall(s);
}

/* The runtime's own account of its locks, for every traced process (those
 * that joined later too).  A watch's first reading loads the process's
 * symbols, on this thread, which drains the ring: one new process a round. */
/* NOW: every process's runtime read at once (the events' rule is about to
 * stop recording), else one more opened a round and each read at its
 * cadence. */
static int runtime_stall(struct session *s, uint64_t boot, char *why, size_t len, bool now)
{
	int opened = 0;

	for (size_t i = 0; i < s->c.nprocs; i++) {
		struct proc *p = s->c.procs[i];
		if (!p->rtw) {
			if (opened++ && !now)
				continue;
			if (!(p->rtw = lt_rtwatch_new(p->tgid, s->rtw_window)))
				continue;
		}
		if (now ? lt_rtwatch_check_now(p->rtw, &s->stall, boot, why, len)
			: lt_rtwatch_check(p->rtw, &s->stall, boot, why, len))
			return 1;
	}
	return 0;
}

static void rearm_runtime_watches(struct session *s, uint64_t boot)
{
	for (size_t i = 0; i < s->c.nprocs; i++) {
		lt_rtwatch_rearm(s->c.procs[i]->rtw, boot);
		lt_go_watch_rearm(s->c.procs[i]->gow, boot);
	}
}

/* Go programs (golang.h, rt_go_watch.c): their goroutines decide.  1 a
 * goroutine-level stall (why says it); 0 every traced process is a Go
 * program and none is stuck: their threads' futex waits on the runtime's
 * own notes are no stall; -1 the events-only rule decides. */
static int go_stall(struct session *s, uint64_t boot, char *why, size_t len)
{
	bool others = s->c.nprocs == 0;
	for (size_t i = 0; i < s->c.nprocs; i++) {
		struct proc *p = s->c.procs[i];
		if (!p->gow && !(p->gow = lt_go_watch_new(p->tgid))) {
			others = true;
			continue;
		}
		int r = lt_go_watch_check(p->gow, boot, s->rtw_window, why, len);
		if (r == 1)
			return 1;
		others |= r < 0;
	}
	return others ? -1 : 0;
}

/* Takes the held signals; lets a launched command run; the stall rule and
 * the snapshot at attach.  -1 when recording must not begin: asked to stop
 * while attaching (said), or the command could not be run (res->err). */
int rec_go(struct session *s)
{
	const struct lt_record_opts *o = s->o;
	/* the header is complete; nothing has been let go or told yet */
	uint64_t hdr_done = lt_now_ns(CLOCK_BOOTTIME);

	take_signals(&s->oldmask);
	s->holding = 0;
	if (rec_stop_requests) {
		lt_info("asked to stop while attaching; nothing was recorded");
		return -1;
	}
	if (s->launched) {
		int r = lt_launch_go(&s->launch);
		if (r) {
			s->res->exec_errno = -r;
			s->reaped = 1; /* lt_launch_go waited for it */
			return rec_fail(s, "cannot run %s: %s", o->argv[0], strerror(-r));
		}
	}
	say_recording(s);
	if (o->stall_s > 0)
		start_stall_rule(s);
	for (uint32_t i = 0; i < s->hdr.nthreads; i++) {
		const struct lt_thread_info *ti = &s->hdr.threads[i];
		rec_note_thread(&s->c, (uint32_t)ti->tid, ti->tgid ? (uint32_t)ti->tgid : (uint32_t)s->tgid);
		/* asleep in a call (taskrun.h), so its first run ends that call */
		if (s->c.norm && lt_run_attach_call(&s->hdr, ti) >= 0 &&
		    lt_callnorm_asleep_at_attach(s->c.norm, (uint32_t)ti->tid, hdr_done))
			s->c.norm->oom = 1;
		/* its stack, read where it sleeps, keyed as the timeline keys
		 * the call (trace-format.md, STACKS) */
		if (s->c.stk && lt_run_attach_call(&s->hdr, ti) >= 0)
			lt_stackrec_attached(s->c.stk, ti->tid, ti->tgid ? (uint32_t)ti->tgid : (uint32_t)s->tgid,
					     (long)ti->sc_nr, ti->sc_args, s->hdr.clock_boottime);
	}
	/* an attached process may finish before its first lock is named:
	 * read its mappings now (a launched one has not exec'd yet) */
	for (size_t i = 0; !s->launched && i < s->c.nprocs; i++)
		if (s->c.procs[i]->have_syms)
			lt_locksyms_prepare(&s->c.procs[i]->syms);
	if (!o->no_snapshot && !s->launched && !s->ring) {
		s->snap.tgids = calloc(s->c.nprocs, sizeof(*s->snap.tgids));
		for (size_t i = 0; s->snap.tgids && i < s->c.nprocs; i++)
			s->snap.tgids[s->snap.n++] = s->c.procs[i]->tgid;
		s->snap.started = s->snap.tgids &&
				  pthread_create(&s->snap.th, NULL, rec_snap_main, &s->snap) == 0;
	}
	return 0;
}

/* A trigger fired (SIGUSR1 or the stall rule): dump the ring, or add a
 * snapshot to the trace.  1 if recording stops now: only a stall does that
 * (unless --keep-going); SIGUSR1 never stops a recording. */
static int on_trigger(struct session *s, int trig, const char *why)
{
	const struct lt_record_opts *o = s->o;
	int goes_on = trig == LT_STOP_USR1 || o->keep_going, failed = 0;

	s->res->triggers++;
	if (s->show_status)
		fprintf(stderr, "\r\033[K");
	lt_info("%s: %s", trig == LT_STOP_STALL ? "stall detected" : "dump requested", why);
	if (s->ring) {
		char dpath[PATH_MAX];
		failed = rec_dump_flight(s, trig, 0, dpath, sizeof(dpath)) != 0;
		if (!failed)
			rec_hand_over(o, dpath, goes_on, &s->kids);
	} else {
		int sr = rec_snapshot_into(s->c.w, &s->c, o->quiet,
					   trig == LT_STOP_STALL ? "stall" : "sigusr1");
		if (sr && !s->c.werr)
			s->c.werr = sr;
	}
	/* a failed dump keeps the ring for the next trigger */
	if (goes_on || failed) {
		if (s->have_stall) {
			lt_stall_rearm(&s->stall, lt_now_ns(CLOCK_BOOTTIME));
			rearm_runtime_watches(s, lt_now_ns(CLOCK_BOOTTIME));
		}
		return 0;
	}
	s->res->stop_reason = trig;
	return 1;
}

/* When the loop last did each of its periodic jobs (CLOCK_MONOTONIC). */
struct loop_clock {
	uint64_t t0, flush, lost, status, stall, names, cg;
	uint64_t status_total; /* events at the last status line */
	double status_secs;
	sig_atomic_t usr1_seen; /* SIGUSR1s handled (one held while attaching dumps now) */
};

/* Has what is traced ended?  A launched command: when it exits.  A cgroup:
 * when no process is left in it.  Processes given with -p (with their
 * children, and the forks followed): when every one of them has exited. */
static int all_ended(struct session *s, uint64_t now, uint64_t *last_cg)
{
	struct collector *c = &s->c;

	if (s->have_cg) {
		if (now - *last_cg < LOST_CHECK_NS)
			return 0;
		*last_cg = now;
		return lt_cgroup_populated(&s->cg) == 0;
	}
	if (!c->want_pidfd) {
		struct pollfd p = { .fd = s->pidfd, .events = POLLIN };
		return s->pidfd >= 0 && poll(&p, 1, 0) > 0;
	}
	for (size_t i = 0; i < c->nprocs; i++) {
		struct proc *p = c->procs[i];
		if (p->pidfd < 0)
			continue;
		struct pollfd pf = { .fd = p->pidfd, .events = POLLIN };
		if (poll(&pf, 1, 0) <= 0)
			return 0;
		close(p->pidfd);
		p->pidfd = -1;
	}
	return 1;
}

/* The snapshot at attach once ready, losses, lock names, the flush: what
 * the loop does between drains, each at its own pace. */
static void periodic(struct session *s, struct loop_clock *k, uint64_t now)
{
	struct collector *c = &s->c;

	rec_snap_collect(&s->snap, c, 0, s->o->quiet);
	if (now - k->lost >= LOST_CHECK_NS) {
		account_lost(&s->bpf, c, s->lost_seen, s->lost_now, s->nlost);
		k->lost = now;
	}
	if (now - k->names >= NAMES_NS) {
		/* name new locks soon, while the process is alive to be
		 * asked (a flight dump writes all names it knows) */
		for (size_t i = 0; i < c->nprocs; i++) {
			struct proc *p = c->procs[i];
			if (!p->have_syms || !p->syms.npending)
				continue;
			int nr = lt_locksyms_resolve(&p->syms, s->ring ? NULL : c->w);
			if (nr && !c->werr)
				c->werr = nr;
		}
		k->names = now;
	}
	if (now - k->flush >= FLUSH_NS) {
		if (c->stk && !s->ring && !c->werr) {
			int sr = lt_stackrec_write(c->stk, c->w, 0, 0);
			if (sr)
				c->werr = sr;
		}
		int fr = lt_writer_flush(c->w);
		if (fr && !c->werr)
			c->werr = fr;
		k->flush = now;
	}
}

/* The live status line, once a second (--status). */
static void show_progress(struct session *s, struct loop_clock *k, uint64_t now)
{
	const struct collector *c = &s->c;
	uint64_t lost = 0;

	if (!s->show_status || now - k->status < 1000000000ull)
		return;
	for (size_t i = 0; i < s->nlost; i++)
		lost += s->lost_seen[i];
	double secs = (double)(now - k->t0) / 1e9, dt = secs - k->status_secs;
	if (s->fb) {
		/* nothing reaches us between dumps: what the cpus wrote */
		int nc = s->bpf.ncpus;
		uint64_t *heads = calloc((size_t)nc * 2, sizeof(*heads)), w = 0, kept = 0;
		if (heads && !lt_bpf_fb_heads((struct lt_bpf *)&s->bpf, heads, heads + nc))
			for (int i = 0; i < nc; i++) {
				/* records in the buffers: all, or a share of the
				 * units' worth as many as they were written */
				uint64_t u = heads[i], r = heads[nc + i], n = s->bpf.fb_nunits;
				w += r;
				kept += u <= n ? r : (uint64_t)((double)r * n / u);
			}
		free(heads);
		double rate = dt > 0 ? (double)(w - k->status_total) / dt : 0;
		fprintf(stderr, "\r\033[K[locktrace] %6.1f s  %9.0f records/s  %llu written, %llu in the "
			"kernel's buffers", secs, rate, (unsigned long long)w, (unsigned long long)kept);
		k->status_total = w;
		k->status_secs = secs;
		k->status = now;
		return;
	}
	double rate = dt > 0 ? (double)(c->total - k->status_total) / dt : 0;
	uint64_t bytes = s->ring ? s->flight.fl.bytes : lt_writer_bytes(c->w);
	fprintf(stderr, "\r\033[K[locktrace] %6.1f s  %9.0f ev/s  %llu events  lost %llu  %.1f MB",
		secs, rate, (unsigned long long)c->total, (unsigned long long)lost, bytes / 1e6);
	if (s->ring && s->flight.fl.count)
		fprintf(stderr, " in ring, %.1f s of history",
			(double)(lt_now_ns(CLOCK_BOOTTIME) - lt_flight_oldest_ts(&s->flight.fl)) / 1e9);
	k->status_total = c->total;
	k->status_secs = secs;
	k->status = now;
}

/* A trigger due now: SIGUSR1 (queued: each one is handled), or the stall
 * rule (the runtime's own account first: it names the lock).  Its
 * LT_STOP_* with why, or 0. */
static int trigger_due(struct session *s, struct loop_clock *k, uint64_t now, char *why,
		       size_t len)
{
	if (usr1_requests != k->usr1_seen) {
		k->usr1_seen++;
		snprintf(why, len, "SIGUSR1");
		return LT_STOP_USR1;
	}
	if (!s->have_stall || now - k->stall < STALL_CHECK_NS)
		return 0;
	k->stall = now;
	if (s->fb)
		rec_fb_poll_stall(s);
	uint64_t boot = lt_now_ns(CLOCK_BOOTTIME);
	int go = go_stall(s, boot, why, len);
	if (go == 1 || runtime_stall(s, boot, why, len, false))
		return LT_STOP_STALL;
	if (go < 0 && lt_stall_check(&s->stall, boot, why, len) &&
	    (!rec_idle_judge(s, boot) || lt_stall_check(&s->stall, boot, why, len))) {
		/* before the events' verdict, each runtime's own account read
		 * now rather than at its next reading (up to half a second on,
		 * or not yet opened): a runtime lock held through the stall is
		 * named, with its holder, as that reading would have (why is
		 * written only when it says so) */
		runtime_stall(s, boot, why, len, true);
		return LT_STOP_STALL;
	}
	if (rec_app_stall(s, boot, why, len))
		return LT_STOP_STALL;
	return 0;
}

/* Does recording stop after this round?  1 with res->stop_reason set
 * (by on_trigger for a trigger that stops), or 0 to go on. */
static int stop_due(struct session *s, struct loop_clock *k, uint64_t now)
{
	int *why_stop = &s->res->stop_reason;
	char why[320] = "";

	if (s->c.werr) {
		*why_stop = LT_STOP_ERROR;
		return 1;
	}
	show_progress(s, k, now);
	int trig = trigger_due(s, k, now, why, sizeof(why));
	if (trig && on_trigger(s, trig, why))
		return 1;
	if (s->o->duration_s > 0 && (double)(now - k->t0) / 1e9 >= s->o->duration_s)
		*why_stop = LT_STOP_DURATION;
	else if (all_ended(s, now, &k->cg))
		*why_stop = LT_STOP_EXIT;
	else
		return 0;
	return 1;
}

/* Drains the ring buffer every POLL_MS until a stop condition. */
void rec_run(struct session *s)
{
	struct lt_record_result *res = s->res;
	uint64_t t0 = lt_now_ns(CLOCK_MONOTONIC);
	struct loop_clock k = { .t0 = t0, .flush = t0, .lost = t0, .status = t0, .stall = t0,
				.cg = t0 };

	res->stop_reason = LT_STOP_UNKNOWN;
	while (!rec_stop_requests) {
		int n = 0;
		if (s->fb) {
			poll(NULL, 0, FB_POLL_MS); /* a signal ends it early */
		} else {
			int wait = POLL_MS;
			if (s->c.stk) {
				/* a wait the collector reads gets its stack 1 ms
				 * after it began: drain (and read) that soon */
				int due = lt_stackrec_poll_ms(s->c.stk, lt_now_ns(CLOCK_BOOTTIME));
				if (due >= 0 && due < wait)
					wait = due;
			}
			n = lt_bpf_poll(&s->bpf, wait);
		}
		if (n < 0) {
			/* said now, after the status line: what was recorded is
			 * still completed and written */
			if (s->show_status)
				fputs("\r\033[K", stderr);
			lt_err("reading the ring buffer: %s", strerror(-n));
			res->stop_reason = LT_STOP_ERROR;
			break;
		}
		if (s->c.stk)
			lt_stackrec_read(s->c.stk, lt_now_ns(CLOCK_BOOTTIME));
		uint64_t now = lt_now_ns(CLOCK_MONOTONIC);
		periodic(s, &k, now);
		if (stop_due(s, &k, now))
			break;
	}
	if (rec_stop_requests && res->stop_reason == LT_STOP_UNKNOWN)
		res->stop_reason = LT_STOP_SIGNAL;
	if (s->show_status)
		fprintf(stderr, "\r\033[K");
}

/* Detaches and drains what the ring buffer still holds (unless a second
 * interrupt asks to hurry); the snapshots that belong in the trace. */
void rec_drain(struct session *s)
{
	const struct lt_record_opts *o = s->o;
	struct collector *c = &s->c;

	/* detach first so the drain below terminates; the trace ends here:
	 * what follows (the stacks' last unwinds, the end snapshot, which
	 * with --children may follow many processes) records no events */
	s->detach_ns = lt_now_ns(CLOCK_BOOTTIME);
	c->end_ns = s->detach_ns;
	lt_bpf_detach(&s->bpf);
	sig_atomic_t s0 = rec_stop_requests;
	while (rec_stop_requests == s0 && lt_bpf_poll(&s->bpf, -1) > 0)
		if (c->stk)
			lt_stackrec_kick(c->stk); /* the copies drained meanwhile */
	if (rec_stop_requests != s0)
		lt_info("interrupted again: finishing the file without draining the rest of the "
			"ring buffer");
	if (c->after_end && o->verbose)
		lt_info("%llu records written after the trace's end, while the programs were being "
			"detached one by one, left out", (unsigned long long)c->after_end);
	const struct lt_fbs *fbs = s->bpf.fbs;
	if (fbs && fbs->late)
		lt_info("%llu records of the per-cpu units written to the trace after a later one "
			"(an interrupt's record and the one it interrupted, or a cpu held up more "
			"than %.2f ms in the program writing it)",
			(unsigned long long)fbs->late, LT_FBS_MARGIN_NS / 1e6);
	if (fbs && fbs->remnants)
		lt_info("%llu units of the per-cpu units skipped: a record written over by the one it "
			"had interrupted (that record lost)", (unsigned long long)fbs->remnants);
	if (fbs && fbs->oom)
		lt_warn("out of memory while putting the per-cpu units' events in time order: some "
			"were written out of order");
	if (c->norm) {
		lt_callnorm_flush(c->norm, deliver, c);
		if (c->norm->oom)
			lt_warn("out of memory while pairing calls with their "
				"returns: some returns are missing from the trace");
	}
	account_lost(&s->bpf, c, s->lost_seen, s->lost_now, s->nlost);
	if (c->stk) {
		uint64_t wc[LT_WCOPY_MAX];
		if (s->wcopies && !lt_bpf_read_wcopy(&s->bpf, wc))
			lt_stackrec_note_wcopy(c->stk, wc);
		/* the waits still asleep keep the stack read */
		lt_stackrec_finish(c->stk);
		if (!s->ring && c->w && !c->werr) {
			int sr = lt_stackrec_write(c->stk, c->w, 0, 0);
			if (sr)
				c->werr = sr;
		}
	}
	rec_snap_collect(&s->snap, c, 1, o->quiet);
	/* a second snapshot at the end: the report reads lock holders from the
	 * moment that matters (a hang is still there when tracing stops) */
	size_t nlive = 0;
	free(rec_live_procs(c, &nlive));
	if (!s->ring && !o->no_snapshot && c->w && !c->werr && nlive) {
		int sr = rec_snapshot_into(c->w, c, 1, "end");
		if (sr)
			c->werr = sr;
	}
}
