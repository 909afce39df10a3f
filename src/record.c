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
 */
#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <signal.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>
#include <malloc.h>
#include <pthread.h>
#include "locktrace/callnorm.h"
#include "locktrace/loader.h"
#include "locktrace/locksyms.h"
#include "locktrace/flight.h"
#include "locktrace/snapshot.h"
#include "locktrace/stall.h"
#include "locktrace/taskregs.h"
#include "locktrace/outfile.h"
#include "locktrace/record.h"
#include "locktrace/target.h"
#include "locktrace/tracefile.h"
#include "u64map.h"
#include "utf8.h"

#define POLL_MS 20
#define FLUSH_NS 1000000000ull /* at most this much recorded data is only in memory */
#define LOST_CHECK_NS 100000000ull
#define STALL_CHECK_NS 100000000ull
#define NAMES_NS 100000000ull

static volatile sig_atomic_t stop_requests;
static volatile sig_atomic_t usr1_requests;

static void on_usr1(int sig)
{
	(void)sig;
	usr1_requests++;
}

static void on_signal(int sig)
{
	(void)sig;
	stop_requests++;
	if (stop_requests >= 2) {
		/* a third one kills us the default way */
		signal(SIGINT, SIG_DFL);
		signal(SIGTERM, SIG_DFL);
	}
}

/* SIGINT, SIGTERM and SIGUSR1 are blocked from the start: one that arrives
 * while we attach (the default actions would end us, leaving a half-made
 * output behind) waits until the handlers exist. */
static void hold_signals(sigset_t *old)
{
	sigset_t set;

	stop_requests = usr1_requests = 0;
	sigemptyset(&set);
	sigaddset(&set, SIGINT);
	sigaddset(&set, SIGTERM);
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
	sigaction(SIGUSR1, &su, NULL);
	sigprocmask(SIG_SETMASK, old, NULL);
}

struct tidset {
	uint32_t *v;
	size_t cap, n;
};

static void tidset_add(struct tidset *s, uint32_t tid)
{
	if (!tid)
		return;
	if ((s->n + 1) * 2 > s->cap) {
		size_t cap = s->cap ? s->cap * 2 : 256;
		uint32_t *v = calloc(cap, sizeof(*v));
		if (!v)
			return;
		for (size_t i = 0; i < s->cap; i++) {
			if (!s->v[i])
				continue;
			size_t j = s->v[i] * 2654435761u % cap;
			while (v[j])
				j = (j + 1) % cap;
			v[j] = s->v[i];
		}
		free(s->v);
		s->v = v;
		s->cap = cap;
	}
	size_t j = tid * 2654435761u % s->cap;
	while (s->v[j]) {
		if (s->v[j] == tid)
			return;
		j = (j + 1) % s->cap;
	}
	s->v[j] = tid;
	s->n++;
}

/* A traced process: at attach, or joined later (a fork followed, a process
 * of the cgroup seen for the first time). */
struct proc {
	pid_t tgid;
	uint32_t flags;   /* LT_PROC_* */
	int pidfd;        /* to see it end (-1: not watched, or gone) */
	uint64_t threads; /* distinct threads seen */
	int have_syms;
	struct lt_locksyms syms; /* its futex addresses to name */
};

struct collector {
	struct lt_writer *w;
	uint32_t tgid;
	uint64_t events[LT_EV_MAX];
	uint64_t total;
	int werr;
	struct tidset tids;
	struct lt_stall *stall; /* NULL unless --stall */
	struct lt_callnorm *norm; /* --calls blocking: returns from switches */
	/* the processes (procs[0] is tgid); multi: several may be traced */
	int multi;
	struct proc **procs;
	size_t nprocs, cap_procs;
	struct lt_u64map proc_of;  /* tgid -> struct proc * */
	struct lt_u64map tid_tgid; /* tid -> tgid (multi) */
	struct lt_u64map untraced; /* tgids seen in switches, not traced (--cgroup) */
	const struct lt_cgroup *cg; /* --cgroup: its processes join when seen */
	int want_syms, want_pidfd;
};

/* The process tgid, added (flags: how it came to be traced) if create and
 * not known yet; NULL if unknown or out of memory. */
static struct proc *get_proc(struct collector *c, pid_t tgid, uint32_t flags, int create)
{
	struct proc *p = tgid > 0 ? lt_u64map_get(&c->proc_of, (uint64_t)tgid) : NULL;

	if (p || !create || tgid <= 0)
		return p;
	if (c->nprocs == c->cap_procs) {
		size_t cap = c->cap_procs ? c->cap_procs * 2 : 8;
		struct proc **v = realloc(c->procs, cap * sizeof(*v));
		if (!v)
			return NULL;
		c->procs = v;
		c->cap_procs = cap;
	}
	if (!(p = calloc(1, sizeof(*p))) || lt_u64map_put(&c->proc_of, (uint64_t)tgid, p)) {
		free(p);
		return NULL;
	}
	p->tgid = tgid;
	p->flags = flags;
	p->pidfd = c->want_pidfd ? (int)syscall(SYS_pidfd_open, tgid, 0) : -1;
	if (c->want_syms && lt_locksyms_init(&p->syms, tgid) == 0) {
		p->syms.trace_pid = (pid_t)c->tgid;
		p->have_syms = 1;
	}
	c->procs[c->nprocs++] = p;
	return p;
}

static void free_procs(struct collector *c)
{
	for (size_t i = 0; i < c->nprocs; i++) {
		struct proc *p = c->procs[i];
		if (p->have_syms)
			lt_locksyms_free(&p->syms);
		if (p->pidfd >= 0)
			close(p->pidfd);
		free(p);
	}
	free(c->procs);
	c->procs = NULL;
	c->nprocs = c->cap_procs = 0;
	lt_u64map_free(&c->proc_of);
	lt_u64map_free(&c->tid_tgid);
	lt_u64map_free(&c->untraced);
}

/* Is tgid a traced process?  Processes that join a recording by -p,
 * --children or a followed fork are known (TASK_NEW); with --cgroup, a
 * process seen for the first time is looked up in /proc once. */
static int tgid_traced(struct collector *c, uint32_t tgid)
{
	if (tgid == c->tgid)
		return 1;
	if (!c->multi || !tgid)
		return 0;
	if (lt_u64map_get(&c->proc_of, tgid))
		return 1;
	if (!c->cg || lt_u64map_get(&c->untraced, tgid))
		return 0;
	if (lt_cgroup_contains(c->cg, (pid_t)tgid) && get_proc(c, (pid_t)tgid, LT_PROC_CGROUP, 1))
		return 1;
	lt_u64map_put(&c->untraced, tgid, c);
	return 0;
}

static int is_traced_cb(void *ctx, uint32_t tgid)
{
	return tgid_traced(ctx, tgid);
}

/* A thread of a traced process, counted once. */
static void note_thread(struct collector *c, uint32_t tid, uint32_t tgid)
{
	size_t before = c->tids.n;

	if (!tid)
		return;
	tidset_add(&c->tids, tid);
	if (c->tids.n == before)
		return;
	struct proc *p = get_proc(c, (pid_t)tgid, LT_PROC_CHILD, 0);
	if (p)
		p->threads++;
	if (c->multi)
		lt_u64map_put(&c->tid_tgid, tid, (void *)(uintptr_t)tgid);
}

/* The process of a traced thread (0 unknown: it has gone). */
static uint32_t tgid_of(struct collector *c, uint32_t tid)
{
	char err[160];
	pid_t tgid;

	if (!c->multi)
		return c->tgid;
	uintptr_t t = (uintptr_t)lt_u64map_get(&c->tid_tgid, tid);
	if (t)
		return (uint32_t)t;
	/* a thread first seen in an event of its own: once per thread */
	if (lt_target_resolve((pid_t)tid, &tgid, err, sizeof(err)) || !tgid_traced(c, (uint32_t)tgid))
		return 0;
	note_thread(c, tid, (uint32_t)tgid);
	return (uint32_t)tgid;
}

/* Which traced threads and processes an event shows. */
static uint32_t note_event(struct collector *c, const struct lt_event *ev)
{
	switch (ev->h.kind) {
	case LT_EV_SWITCH:
		if (tgid_traced(c, ev->sw.prev_tgid))
			note_thread(c, ev->sw.prev_tid, ev->sw.prev_tgid);
		if (tgid_traced(c, ev->sw.next_tgid))
			note_thread(c, ev->sw.next_tid, ev->sw.next_tgid);
		return 0;
	case LT_EV_TASK_NEW:
		if (ev->tnew.tgid != c->tgid)
			get_proc(c, (pid_t)ev->tnew.tgid, c->cg ? LT_PROC_CGROUP : LT_PROC_CHILD, c->multi);
		note_thread(c, ev->h.tid, ev->tnew.tgid);
		return ev->tnew.tgid;
	case LT_EV_WAKING:
		if (tgid_traced(c, ev->wake.waker_tgid))
			note_thread(c, ev->wake.waker_tid, ev->wake.waker_tgid);
		break;
	case LT_EV_LOST:
		return 0;
	default:
		break;
	}
	uint32_t tgid = tgid_of(c, ev->h.tid); /* the event's own thread is traced */
	if (tgid)
		note_thread(c, ev->h.tid, tgid);
	return tgid;
}

static void deliver(void *ctx, const struct lt_event *ev)
{
	struct collector *c = ctx;

	c->events[ev->h.kind]++;
	c->total++;
	uint32_t tgid = note_event(c, ev);
	if (c->stall)
		lt_stall_event(c->stall, ev);
	if (ev->h.kind == LT_EV_FUTEX_ENTER && tgid) {
		struct proc *p = get_proc(c, (pid_t)tgid, 0, 0);
		if (p && p->have_syms)
			lt_locksyms_see(&p->syms, ev->futex.uaddr);
	}
	if (c->werr)
		return; /* keep draining so the kernel side never blocks on us */
	int r = lt_writer_event(c->w, ev);
	if (r)
		c->werr = r;
}


/* One ring record holds one event, or (--calls blocking) a call's entry
 * followed by the switch or wake-up it was written with. */
static int on_sample(void *ctx, void *data, size_t size)
{
	struct collector *c = ctx;
	const uint8_t *p = data;
	struct lt_event ev;

	while (size >= sizeof(struct lt_ev_hdr)) {
		size_t n = lt_record_size(p[offsetof(struct lt_ev_hdr, kind)]);
		if (!n || n > size)
			return 0;
		memset(&ev, 0, sizeof(ev));
		memcpy(&ev, p, n);
		if (c->norm)
			lt_callnorm_feed(c->norm, &ev, deliver, c);
		else
			deliver(c, &ev);
		p += n;
		size -= n;
	}
	return 0;
}

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

/* The snapshot at attach, taken off the collector thread. */
struct snap_job {
	pthread_t th;
	pid_t *tgids; /* the processes at attach (the job's own copy) */
	size_t n;
	int started;
	volatile int done; /* set by the job, read by the loop */
	char *json;
	size_t len;
	char err[256];
};

/* A snapshot of tgid now: registers from the task iterator make DWARF
 * unwinding work past libc's syscall wrappers; without them the snapshot
 * falls back to /proc's sp and pc.  NULL with err on failure. */
static struct lt_snapshot *snapshot_now(pid_t tgid, const char *occasion, char *err, size_t errlen)
{
	struct lt_snapshot_opts so = { 0 };
	struct lt_tid_regs *regs = NULL;
	size_t nregs = 0;
	struct lt_snapshot *snap = NULL;
	char rerr[256];

	if (lt_taskregs_read(tgid, &regs, &nregs, rerr, sizeof(rerr)) == 0) {
		so.regs = regs;
		so.n_regs = nregs;
	}
	int r = lt_snapshot_take(tgid, &so, &snap);
	if (r)
		snprintf(err, errlen, "%s", lt_snapshot_strerror(r));
	else
		snap->occasion = occasion;
	free(regs);
	return snap;
}

/* Appends to *buf (a JSON object ending in '}') the member
 * "processes":[{"pid":P,"comm":C,"tids":[...]}...] saying which process
 * each thread of a combined snapshot belongs to.  0 or -ENOMEM. */
static int add_processes(const struct lt_multi_snapshot *m, char **buf, size_t *len)
{
	char *mb = NULL;
	size_t ml = 0;
	FILE *f = open_memstream(&mb, &ml);

	if (!f)
		return -ENOMEM;
	fputs(",\"processes\":[", f);
	for (size_t i = 0; i < m->n_procs; i++) {
		const struct lt_snapshot *p = m->procs[i];
		fprintf(f, "%s{\"pid\":%d,\"comm\":", i ? "," : "", (int)p->pid);
		lt_json_fput(f, p->comm);
		fputs(",\"tids\":[", f);
		for (size_t k = 0; k < p->n_threads; k++)
			fprintf(f, "%s%d", k ? "," : "", (int)p->threads[k].tid);
		fputs("]}", f);
	}
	fputs("]}\n", f);
	if (fclose(f))
		return -ENOMEM;
	char *end = *len ? memrchr(*buf, '}', *len) : NULL;
	char *nb = end ? realloc(*buf, (size_t)(end - *buf) + ml + 1) : NULL;
	if (!nb) {
		free(mb);
		return -ENOMEM;
	}
	size_t at = (size_t)(end - *buf);
	memcpy(nb + at, mb, ml + 1);
	*buf = nb;
	*len = at + ml;
	free(mb);
	return 0;
}

/* The snapshot of the processes tgids[0..n) now as one JSON document:
 * for one process the snapshot itself; for several the combined view
 * (snapshot_multi.c: cross-process owners, shared locks, cycles that span
 * processes) as a locktrace.snapshot/1 document of all their threads,
 * with "processes" mapping threads to processes (docs/snapshot.md).
 * Processes that have gone are left out.  0, or -1 with err. */
static int snapshot_json(const pid_t *tgids, size_t n, const char *occasion, char **json,
			 size_t *len, char *err, size_t errlen)
{
	struct lt_snapshot **v = calloc(n ? n : 1, sizeof(*v));
	size_t k = 0;
	int r = -1;

	*json = NULL;
	if (!v) {
		snprintf(err, errlen, "out of memory");
		return -1;
	}
	for (size_t i = 0; i < n; i++)
		if ((v[k] = snapshot_now(tgids[i], occasion, err, errlen)))
			k++;
	if (k == 1) {
		if (lt_snapshot_to_json_buf(v[0], json, len) == 0)
			r = 0;
		else
			snprintf(err, errlen, "cannot serialize the snapshot");
	} else if (k > 1) {
		struct lt_multi_snapshot *m = NULL;
		if (lt_multi_build(v, k, NULL, &m) == 0) {
			v = NULL; /* the view owns them */
			lt_multi_confirm(m);
			m->view.occasion = occasion;
			if (lt_snapshot_to_json_buf(&m->view, json, len) == 0 &&
			    add_processes(m, json, len) == 0)
				r = 0;
			lt_multi_free(m);
		}
		if (r) {
			free(*json);
			*json = NULL;
			snprintf(err, errlen, "cannot build the snapshot of %zu processes: out of memory", k);
		}
	}
	for (size_t i = 0; v && i < k; i++)
		lt_snapshot_free(v[i]);
	free(v);
	return r;
}

static void *snap_main(void *arg)
{
	struct snap_job *j = arg;

	snapshot_json(j->tgids, j->n, "start", &j->json, &j->len, j->err, sizeof(j->err));
	__atomic_store_n(&j->done, 1, __ATOMIC_RELEASE);
	return NULL;
}

/* Still there and not a zombie (a launched program may have exited). */
static bool process_alive(pid_t pid)
{
	char path[64], buf[512];
	snprintf(path, sizeof(path), "/proc/%d/stat", (int)pid);
	FILE *f = fopen(path, "r");
	if (!f)
		return false;
	size_t n = fread(buf, 1, sizeof(buf) - 1, f);
	fclose(f);
	buf[n] = 0;
	const char *p = strrchr(buf, ')');
	return p && p[1] == ' ' && p[2] != 'Z' && p[2] != 'X';
}

/* The traced processes still alive, in a malloc'd array (*n of them). */
static pid_t *live_procs(const struct collector *c, size_t *n)
{
	pid_t *v = calloc(c->nprocs ? c->nprocs : 1, sizeof(*v));

	*n = 0;
	for (size_t i = 0; v && i < c->nprocs; i++)
		if (process_alive(c->procs[i]->tgid))
			v[(*n)++] = c->procs[i]->tgid;
	return v;
}

/* Takes a snapshot of the traced processes now and writes it as a
 * SNAPSHOT section into w, with why it was taken (occasion: "end",
 * "stall", "sigusr1").  0 or -errno (a write error). */
static int snapshot_into(struct lt_writer *w, const struct collector *c, int quiet,
			 const char *occasion)
{
	char err[256] = "no process left";
	char *json = NULL;
	size_t len = 0, n;
	int r = 0;
	pid_t *tgids = live_procs(c, &n);

	if (!tgids || snapshot_json(tgids, n, occasion, &json, &len, err, sizeof(err))) {
		if (!quiet)
			fprintf(stderr, "locktrace: note: no snapshot of process %d now: %s\n", (int)c->tgid,
				err);
		free(tgids);
		return 0;
	}
	/* its verdicts reach people through the report's findings */
	r = lt_writer_section(w, LT_CHUNK_SNAPSHOT, json, len);
	free(json);
	free(tgids);
	/* the snapshot's debug information is large and short-lived: give it
	 * back, so a long flight recording stays at its ring size */
	malloc_trim(0);
	return r;
}

/* Writes the snapshot section once the job is done (wait: block for it). */
static void snap_collect(struct snap_job *j, struct collector *c, int wait, int quiet)
{
	if (!j->started || (!wait && !__atomic_load_n(&j->done, __ATOMIC_ACQUIRE)))
		return;
	pthread_join(j->th, NULL);
	j->started = 0;
	if (j->json && !c->werr) {
		int r = lt_writer_section(c->w, LT_CHUNK_SNAPSHOT, j->json, j->len);
		if (r)
			c->werr = r;
	} else if (!j->json && !quiet) {
		fprintf(stderr, "locktrace: warning: no snapshot at attach: %s\n", j->err);
	}
	free(j->json);
	j->json = NULL;
	free(j->tgids);
	j->tgids = NULL;
}

static int open_output(const struct lt_record_opts *o, const char *comm, pid_t pid,
		       struct lt_writer **w, char *path, size_t plen)
{
	char err[PATH_MAX + 128];
	int r;

	if (o->output) {
		snprintf(path, plen, "%s", o->output);
		if (o->check_out && (r = o->check_out(o->on_trace_ctx, path, err, sizeof(err)))) {
			fprintf(stderr, "Error: %s\n", err);
			return r;
		}
		r = lt_writer_open(w, path, o->force);
		if (r == -EEXIST)
			fprintf(stderr, "Error: %s already exists; choose another name with -o or pass --force\n",
				path);
		else if (r)
			fprintf(stderr, "Error: cannot create trace file %s: %s\n", path, lt_out_strerror(r));
		return r;
	}
	/* our own default name: never clobber, pick the next free suffix */
	for (int i = 0; i < 1000; i++) {
		if (i == 0)
			snprintf(path, plen, "locktrace-%s-%d.ltrace", comm, pid);
		else
			snprintf(path, plen, "locktrace-%s-%d-%d.ltrace", comm, pid, i);
		r = o->check_out ? o->check_out(o->on_trace_ctx, path, err, sizeof(err)) : 0;
		if (!r)
			r = lt_writer_open(w, path, 0);
		if (r != -EEXIST)
			break;
	}
	if (r)
		fprintf(stderr, "Error: cannot create trace file %s in the current directory: %s "
			"(choose a writable path with -o)\n", path, lt_out_strerror(r));
	return r;
}

/* Hands a completed trace to the caller (conversion, analysis).  While the
 * recorder goes on (a flight dump with --keep-going), that work runs in a
 * child process: it allocates a lot for a moment, and the collector's own
 * memory must stay at its ring size.  Children are reaped as they end. */
struct kids {
	pid_t pid[16];
	int n;
};

static void reap_kids(struct kids *k, int block)
{
	for (int i = 0; i < k->n;) {
		if (waitpid(k->pid[i], NULL, block ? 0 : WNOHANG) != 0) {
			k->pid[i] = k->pid[--k->n];
			continue;
		}
		i++;
	}
}

static void hand_over(const struct lt_record_opts *o, const char *path, int background,
		      struct kids *k)
{
	if (!o->on_trace)
		return;
	if (background) {
		reap_kids(k, 0);
		if (k->n == (int)(sizeof(k->pid) / sizeof(k->pid[0])))
			reap_kids(k, 1);
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

/* Flight recorder state: the ring of chunks and where dumps go. */
struct flight {
	struct lt_flight fl;
	int first_fd;         /* the output named at start, created empty; -1 once used */
	char base[PATH_MAX];  /* its path; later dumps get -2, -3, ... before .ltrace */
	int ndumps;
	const struct lt_record_opts *o; /* check_out for the dump names */
};

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

static int cmp_thread_tid(const void *a, const void *b)
{
	const struct lt_thread_info *x = a, *y = b;
	return (x->tid > y->tid) - (x->tid < y->tid);
}

/* The other traced processes into h (already describing the first, c's
 * tgid): their threads (each with its tgid), the process list and the
 * shared mappings (shared: read them; not for a launched program, which
 * has not exec'd yet).  Processes that have gone are skipped. */
static void describe_procs(struct lt_header *h, const struct collector *c, int shared)
{
	size_t cap = h->nthreads;

	if (!c->multi)
		return;
	h->procs = calloc(c->nprocs ? c->nprocs : 1, sizeof(*h->procs));
	for (size_t i = 0; h->procs && i < c->nprocs; i++) {
		const struct proc *p = c->procs[i];
		struct lt_header o = { 0 };
		const struct lt_header *d = h;
		if (p->tgid != h->pid) {
			if (lt_target_describe(p->tgid, &o)) {
				lt_header_free(&o);
				continue;
			}
			d = &o;
			struct lt_thread_info *t = realloc(h->threads, (cap + o.nthreads + 1) * sizeof(*t));
			if (t) {
				h->threads = t;
				for (uint32_t k = 0; k < o.nthreads; k++) {
					t[h->nthreads] = o.threads[k];
					t[h->nthreads++].tgid = p->tgid;
				}
				cap = h->nthreads;
			}
		}
		struct lt_proc_info *pi = &h->procs[h->nprocs++];
		pi->tgid = p->tgid;
		pi->ppid = d->ppid;
		pi->flags = p->flags;
		snprintf(pi->comm, sizeof(pi->comm), "%s", d->comm);
		snprintf(pi->exe, sizeof(pi->exe), "%s", d->exe);
		snprintf(pi->cmdline, sizeof(pi->cmdline), "%s", d->cmdline);
		lt_header_free(&o);
		if (shared) {
			size_t n = h->nshared, scap = h->nshared;
			if (lt_target_shared_maps(p->tgid, &h->shared, &n, &scap) == 0 || n > h->nshared)
				h->nshared = (uint32_t)n;
		}
	}
	qsort(h->threads, h->nthreads, sizeof(*h->threads), cmp_thread_tid);
}

/* The header of a dump: the processes now, their threads' names only. */
static void dump_header(struct lt_header *h, const struct collector *c, int blocking,
			const struct lt_header *launch)
{
	lt_target_describe((pid_t)c->tgid, h);
	fill_launched(h, launch);
	describe_procs(h, c, 1);
	h->flags |= LT_HDR_FLIGHT;
	if (blocking)
		h->flags |= LT_HDR_CALLS_BLOCKING;
	/* the header's syscalls would say what each thread was in when the
	 * events *begin*; /proc can only tell us about now, which the
	 * snapshot section records, so the header keeps just the names */
	for (uint32_t i = 0; i < h->nthreads; i++) {
		h->threads[i].sc_nr = -2;
		h->threads[i].blocked_ns = 0;
		h->threads[i].state = 0;
	}
}

/* Writes what the ring holds as a normal trace: header (the process now),
 * the chunks, a fresh snapshot, stats.  0, or -errno with the ring kept.
 * A dump that fails (disk full) is removed so that its space is there for
 * the retry at the next trigger, unless it is the last (final): then what
 * it holds is all there will be.  launch: the header written at launch,
 * NULL unless locktrace started the program. */
static int dump_flight(struct flight *f, struct collector *c, const uint64_t *lost,
		       uint32_t ncpus, int reason, int quiet, int final, const struct lt_header *launch,
		       char *path, size_t plen)
{
	struct lt_writer *w;
	struct lt_header h = { 0 };
	int r;

	if ((r = lt_writer_flush(c->w))) /* the partial chunk joins the ring */
		return r;
	int fd = create_dump_file(f, path, plen);
	if (fd < 0) {
		fprintf(stderr, "Error: cannot create %s: %s; the ring is kept for the next trigger\n",
			path, strerror(-fd));
		return fd;
	}
	if ((r = lt_writer_fd_open(&w, fd))) {
		close(fd);
		goto failed;
	}
	dump_header(&h, c, c->norm != NULL, launch);
	r = lt_writer_header(w, &h);
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
	if (!r)
		r = snapshot_into(w, c, quiet, reason == LT_STOP_STALL ? "stall" :
						  reason == LT_STOP_USR1 ? "sigusr1" : "end");
	if (!r) {
		struct lt_stats st = { 0 };
		st.end_ns = lt_now_ns(CLOCK_BOOTTIME);
		st.start_ns = f->fl.count ? lt_flight_oldest_ts(&f->fl) : st.end_ns;
		memcpy(st.events, c->events, sizeof(st.events));
		st.ncpus = ncpus;
		st.lost = (uint64_t *)lost;
		st.exit_status = -1;
		st.stop_reason = (uint32_t)reason;
		r = lt_writer_stats(w, &st);
	}
	int cr = lt_writer_close(w);
	if (!r)
		r = cr;
	if (r)
		goto failed;
	f->ndumps++;
	say_dumped(&f->fl, path);
	return 0;

failed:
	if (final) {
		fprintf(stderr, "Error: writing %s: %s; the trace is readable up to its last complete "
			"chunk\n", path, strerror(-r));
		return r;
	}
	unlink(path);
	fprintf(stderr, "Error: writing %s: %s; removed it, the ring is kept and the next trigger "
		"retries\n", path, strerror(-r));
	return r;
}

/* The comm as the default file name and the messages show it: escaped as
 * all text (controls as \xNN, bytes that are not UTF-8 as U+FFFD), then
 * '/', ' ' and '\\' as '_'; cut to cap at a character's end. */
static void sanitize_comm(char *s, size_t cap)
{
	char e[4 * (LT_COMM_LEN + 8) + 1];

	lt_text_escape(e, sizeof(e), s, strlen(s));
	for (char *p = e; *p; p++)
		if (*p == '/' || *p == ' ' || *p == '\\')
			*p = '_';
	lt_utf8_sanitize(s, cap, e, strlen(e));
}

static void status_line(const struct collector *c, uint64_t lost, double secs, uint64_t bytes,
			uint64_t *last_total, double *last_secs)
{
	double dt = secs - *last_secs;
	double rate = dt > 0 ? (double)(c->total - *last_total) / dt : 0;
	fprintf(stderr, "\r\033[K[locktrace] %6.1f s  %9.0f ev/s  %llu events  lost %llu  %.1f MB",
		secs, rate, (unsigned long long)c->total, (unsigned long long)lost, bytes / 1e6);
	*last_total = c->total;
	*last_secs = secs;
}

static void print_summary(const struct lt_record_result *res, const struct collector *c,
			  const char *comm)
{
	static const char *const why[] = { "stopped", "interrupted", "duration reached",
					   "target exited", "stopped on an error", "stall detected",
					   "dump requested" };
	fprintf(stderr, "locktrace: %s after %.2f s: ", why[res->stop_reason <= LT_STOP_USR1 ?
							   res->stop_reason : 0], res->seconds);
	if (c->nprocs > 1)
		fprintf(stderr, "%zu processes (the first %d, %s)", c->nprocs, res->tgid, comm);
	else
		fprintf(stderr, "process %d (%s)", res->tgid, comm);
	fprintf(stderr, ", %llu events, %llu lost, %llu threads, %llu bytes (%.1f bytes/event)\n",
		(unsigned long long)res->events, (unsigned long long)res->lost,
		(unsigned long long)res->threads, (unsigned long long)res->bytes,
		res->events ? (double)res->bytes / (double)res->events : 0.0);
	if (c->nprocs > 1) {
		fprintf(stderr, "  threads per process:");
		for (size_t i = 0; i < c->nprocs; i++)
			fprintf(stderr, " %d:%llu", (int)c->procs[i]->tgid,
				(unsigned long long)c->procs[i]->threads);
		fputc('\n', stderr);
	}
	fprintf(stderr, "  events:");
	for (unsigned k = 1; k < LT_EV_MAX; k++)
		if (c->events[k])
			fprintf(stderr, " %s %llu", lt_kind_name(k), (unsigned long long)c->events[k]);
	fprintf(stderr, "\n  trace: %s\n", res->path);
}

/* One recording, from attach to the summary: lt_record's state, shared by
 * the steps below. */
struct session {
	const struct lt_record_opts *o;
	struct lt_record_result *res;
	struct collector c;
	struct lt_callnorm norm;
	struct lt_bpf bpf;
	struct lt_header hdr;
	struct lt_launch launch;
	uint64_t *lost_seen, *lost_now; /* per (cpu, kind) */
	size_t nlost;
	pid_t tgid;
	int pidfd, launched, bpf_started;
	char comm[LT_COMM_LEN + 8];
	struct snap_job snap;
	struct flight flight;
	struct lt_stall stall;
	int have_stall;
	int ring;                /* flight recorder: events go to memory */
	struct lt_writer *file_w; /* the output in normal mode */
	struct lt_cgroup cg;     /* --cgroup */
	int have_cg;
	struct kids kids;
	int show_status;
	sigset_t oldmask;        /* the mask to restore (signals held until go) */
	int holding;             /* signals are still held */
	int reaped;              /* the launched program was waited for */
	int pid_file_written;
	char exe[PATH_MAX];      /* the launched program, as execvp finds it */
	char note[160];          /* said after the first line */
};

/* Forks the command to launch, held at its gate; refuses one that execvp
 * would not find or could not run before anything is created.  0 or -1. */
static int launch_target(struct session *s)
{
	const struct lt_record_opts *o = s->o;
	int r = lt_launch_resolve(o->argv[0], s->exe, sizeof(s->exe));

	if (r) {
		s->res->exec_errno = -r;
		fprintf(stderr, "Error: cannot run %s: %s\n", o->argv[0],
			r == -ENOENT && !strchr(o->argv[0], '/') ? "not found in PATH" : strerror(-r));
		return -1;
	}
	s->launch.sigmask = &s->oldmask;
	r = lt_launch_prepare(&s->launch, o->argv);
	if (r < 0) {
		fprintf(stderr, "Error: cannot start %s: %s\n", o->argv[0], strerror(-r));
		return -1;
	}
	s->tgid = s->launch.pid;
	s->c.tgid = (uint32_t)s->tgid;
	s->launched = 1;
	if (!get_proc(&s->c, s->tgid, LT_PROC_GIVEN, 1)) {
		fprintf(stderr, "Error: out of memory\n");
		return -1;
	}
	const char *base = strrchr(o->argv[0], '/');
	snprintf(s->comm, sizeof(s->comm), "%.15s", base ? base + 1 : o->argv[0]);
	return 0;
}

/* The processes to trace (launched, given with -p, the cgroup's) and the
 * first one's comm.  0 or -1. */
static int find_target(struct session *s)
{
	const struct lt_record_opts *o = s->o;
	struct collector *c = &s->c;
	const pid_t *pids = o->npids ? o->pids : &o->pid;
	size_t npids = o->npids ? o->npids : o->pid ? 1 : 0;
	char err[512];

	c->want_syms = 1;
	if (o->argv) {
		if (launch_target(s))
			return -1;
		c->multi = !o->no_follow_forks;
	} else {
		for (size_t i = 0; i < npids; i++) {
			pid_t tgid;
			if (lt_target_resolve(pids[i], &tgid, err, sizeof(err))) {
				fprintf(stderr, "Error: %s\n", err);
				return -1;
			}
			if (tgid != pids[i] && !s->note[0])
				snprintf(s->note, sizeof(s->note), "locktrace: %d is a thread of process %d; "
					 "tracing the whole process\n", pids[i], tgid);
			if (!s->tgid)
				s->tgid = tgid;
			if (!c->tgid)
				c->tgid = (uint32_t)tgid;
			if (!get_proc(c, tgid, LT_PROC_GIVEN, 1))
				goto oom;
		}
		if (o->cgroup) {
			if (lt_cgroup_open(o->cgroup, &s->cg, err, sizeof(err))) {
				fprintf(stderr, "Error: %s\n", err);
				return -1;
			}
			s->have_cg = 1;
			c->cg = &s->cg;
			for (size_t i = 0; i < s->cg.ntgids; i++) {
				pid_t tgid;
				if (lt_target_resolve(s->cg.tgids[i], &tgid, err, sizeof(err)))
					continue; /* gone, or a kernel thread */
				if (!s->tgid)
					s->tgid = tgid;
				if (!c->tgid)
					c->tgid = (uint32_t)tgid;
				struct proc *p = get_proc(c, tgid, LT_PROC_CGROUP, 1);
				if (!p)
					goto oom;
				p->flags |= LT_PROC_CGROUP;
			}
			if (!s->tgid) {
				fprintf(stderr, "Error: %s: no user process in it to trace\n", s->cg.path);
				return -1;
			}
		}
		c->multi = c->nprocs > 1 || o->children || o->cgroup;
		char path[64];
		snprintf(path, sizeof(path), "/proc/%d/comm", s->tgid);
		FILE *f = fopen(path, "r");
		if (f) {
			if (fgets(s->comm, sizeof(s->comm), f))
				s->comm[strcspn(s->comm, "\n")] = 0;
			fclose(f);
		}
	}
	sanitize_comm(s->comm, sizeof(s->comm));
	s->res->tgid = s->tgid;
	return 0;
oom:
	fprintf(stderr, "Error: out of memory\n");
	return -1;
}

/* --pid-file: our pid, written before attaching so that a bad path fails
 * early; a signal sent as soon as it exists is held until we can take it.
 * 0 or -1. */
static int write_pid_file(struct session *s)
{
	const char *path = s->o->pid_file;

	if (!path)
		return 0;
	/* a new file, as every output (outfile.h): a stale pid file is
	 * replaced, never written into (its owner could change the pid a
	 * root `kill -USR1 $(cat FILE)` signals); readable by all, as pid
	 * files are */
	int fd = lt_out_create(path, 1), r = -1;
	if (fd < 0)
		errno = -fd;
	else if (fchmod(fd, 0644) == 0)
		r = dprintf(fd, "%d\n", (int)getpid());
	if (fd >= 0 && close(fd))
		r = -1;
	if (r < 0) {
		fprintf(stderr, "Error: cannot write the pid file %s: %s (choose another path with "
			"--pid-file)\n", path, lt_out_strerror(-errno));
		if (fd >= 0)
			unlink(path);
		return -1;
	}
	s->pid_file_written = 1;
	return 0;
}

/* Removes the pid file if it still holds our pid. */
static void remove_pid_file(struct session *s)
{
	char buf[32] = "";

	if (!s->pid_file_written)
		return;
	s->pid_file_written = 0;
	int fd = open(s->o->pid_file, O_RDONLY | O_NOFOLLOW | O_CLOEXEC);
	if (fd < 0)
		return;
	ssize_t n = read(fd, buf, sizeof(buf) - 1);
	close(fd);
	if (n > 0 && atoi(buf) == (int)getpid())
		unlink(s->o->pid_file);
}

/* Where events go once the output file exists: the file, or the flight
 * recorder's ring (the file then stays empty until a dump).  0 or -1. */
static int open_sinks(struct session *s)
{
	const struct lt_record_opts *o = s->o;

	s->c.w = s->file_w;
	s->c.tgid = (uint32_t)s->tgid;
	if (o->calls_blocking) {
		if (lt_callnorm_init(&s->norm, (uint32_t)s->tgid)) {
			fprintf(stderr, "Error: out of memory\n");
			return -1;
		}
		if (s->c.multi) {
			s->norm.is_traced = is_traced_cb;
			s->norm.traced_ctx = &s->c;
		}
		s->c.norm = &s->norm;
	}
	if (!s->ring)
		return 0;
	/* the named file exists (so an unwritable path failed already) */
	snprintf(s->flight.base, sizeof(s->flight.base), "%s", s->res->path);
	s->flight.o = o;
	s->flight.first_fd = lt_writer_release_fd(s->file_w);
	s->file_w = NULL;
	s->c.w = NULL;
	if (ftruncate(s->flight.first_fd, 0) || lseek(s->flight.first_fd, 0, SEEK_SET)) {
		fprintf(stderr, "Error: cannot use %s: %s\n", s->res->path, strerror(errno));
		return -1;
	}
	int r = lt_flight_init(&s->flight.fl, (size_t)o->ring_mem);
	if (!r)
		r = lt_writer_mem_open(&s->c.w, s->tgid, LT_FLIGHT_CHUNK, lt_flight_push, &s->flight.fl);
	if (r) {
		fprintf(stderr, "Error: cannot allocate a %llu-byte ring: %s\n",
			(unsigned long long)o->ring_mem, strerror(-r));
		s->c.w = NULL;
		return -1;
	}
	return 0;
}

/* A pidfd to see the process end, the BPF programs, lock naming, loss
 * counters.  0 or -1. */
static int attach(struct session *s)
{
	const struct lt_record_opts *o = s->o;
	char err[512];

	struct collector *c = &s->c;

	/* a pidfd tells us when the process is gone without signals or ptrace */
	s->pidfd = (int)syscall(SYS_pidfd_open, s->tgid, 0);
	if (s->pidfd < 0 && !s->launched) {
		fprintf(stderr, "Error: no process %d (it exited during attach)\n", s->tgid);
		return -1;
	}
	/* a launched command is followed into the processes it forks, as
	 * strace -f does: they are added to the kernel's filter at fork; so
	 * are those of the -p processes with --children */
	unsigned bflags = o->calls_blocking ? LT_BPF_CALLS_BLOCKING : 0;
	if (c->multi)
		bflags |= LT_BPF_MULTI;
	if ((s->launched && !o->no_follow_forks) || o->children)
		bflags |= LT_BPF_FOLLOW_FORKS;
	/* the kernel's tgid set: the given processes (the cgroup's are
	 * matched by their cgroup) */
	pid_t *set = calloc(c->nprocs ? c->nprocs : 1, sizeof(*set));
	size_t nset = 0;
	for (size_t i = 0; set && i < c->nprocs; i++)
		if (i == 0 || (c->procs[i]->flags & LT_PROC_GIVEN))
			set[nset++] = c->procs[i]->tgid;
	if (!set) {
		fprintf(stderr, "Error: out of memory\n");
		return -1;
	}
	int br = lt_bpf_start_cg(&s->bpf, set, nset, s->have_cg ? s->cg.ids : NULL,
				 s->have_cg ? s->cg.nids : 0,
				 o->ring_bytes ? o->ring_bytes : LT_DEFAULT_RING_BYTES, bflags, on_sample, c,
				 o->verbose, err, sizeof(err));
	if (br) {
		free(set);
		fprintf(stderr, "Error: %s\n", err);
		return -1;
	}
	s->bpf_started = 1;
	/* --children: those there now (forks from now on are followed in the
	 * kernel; one forked meanwhile is in both, which is harmless) */
	if (o->children) {
		pid_t *kids = NULL;
		size_t nkids = 0;
		lt_proc_descendants(set, nset, &kids, &nkids);
		for (size_t i = 0; i < nkids; i++) {
			if (get_proc(c, kids[i], 0, 0))
				continue;
			int r = lt_bpf_add_tgid(&s->bpf, kids[i]);
			if (r) {
				fprintf(stderr, "locktrace: warning: cannot trace process %d, a child: %s\n",
					(int)kids[i], strerror(-r));
				continue;
			}
			get_proc(c, kids[i], LT_PROC_CHILD, 1);
		}
		free(kids);
	}
	free(set);
	/* processes that join later are watched too (multi): recording ends
	 * when all have ended */
	c->want_pidfd = c->multi && !s->launched && !s->have_cg;
	for (size_t i = 0; c->want_pidfd && i < c->nprocs; i++)
		if (c->procs[i]->pidfd < 0)
			c->procs[i]->pidfd = (int)syscall(SYS_pidfd_open, c->procs[i]->tgid, 0);
	s->nlost = (size_t)s->bpf.ncpus * LT_EV_MAX;
	s->lost_seen = calloc(s->nlost, sizeof(uint64_t));
	s->lost_now = calloc(s->nlost, sizeof(uint64_t));
	if (!s->lost_seen || !s->lost_now) {
		fprintf(stderr, "Error: out of memory\n");
		return -1;
	}
	signal(SIGPIPE, SIG_IGN);
	return 0;
}

/* The header: the process and its threads at attach.  0 or -1. */
static int write_header(struct session *s)
{
	const struct lt_record_opts *o = s->o;
	struct lt_header *hdr = &s->hdr;

	if (s->launched) {
		/* described before exec, the child is still locktrace: the
		 * header names the program being started */
		lt_target_describe(s->tgid, hdr);
		hdr->flags |= LT_HDR_LAUNCHED;
		snprintf(hdr->comm, sizeof(hdr->comm), "%.15s", s->comm);
		snprintf(hdr->exe, sizeof(hdr->exe), "%.*s", (int)sizeof(hdr->exe) - 1, s->exe);
		size_t off = 0;
		hdr->cmdline[0] = 0;
		for (int i = 0; o->argv[i] && off < sizeof(hdr->cmdline); i++)
			off += (size_t)snprintf(hdr->cmdline + off, sizeof(hdr->cmdline) - off, "%s%s",
						i ? " " : "", o->argv[i]);
	} else {
		int r = lt_target_describe(s->tgid, hdr);
		if (r == -ENOENT || r == -ESRCH) {
			fprintf(stderr, "Error: process %d exited during attach\n", s->tgid);
			return -1;
		}
	}
	/* several processes: theirs too, and their shared mappings */
	describe_procs(hdr, &s->c, !s->launched);
	if (o->calls_blocking)
		hdr->flags |= LT_HDR_CALLS_BLOCKING;
	int r = s->ring ? 0 : lt_writer_header(s->c.w, hdr);
	if (r) {
		fprintf(stderr, "Error: writing %s: %s\n", s->res->path, strerror(-r));
		return -1;
	}
	return 0;
}

/* The first line: what is recorded, where, and our own pid (to signal). */
static void say_recording(const struct session *s)
{
	const struct lt_record_opts *o = s->o;
	int me = (int)getpid();

	if (o->quiet)
		return;
	fprintf(stderr, "locktrace (pid %d): recording ", me);
	if (s->launched)
		fprintf(stderr, "%s (pid %d)", s->comm, s->tgid);
	else if (s->c.nprocs > 1)
		fprintf(stderr, "%zu processes (the first %d, %s; %u threads)", s->c.nprocs, s->tgid,
			s->comm, s->hdr.nthreads);
	else
		fprintf(stderr, "process %d (%s, %u threads)", s->tgid, s->comm, s->hdr.nthreads);
	if (s->have_cg)
		fprintf(stderr, " of cgroup %s", s->cg.rel);
	if (s->ring)
		fprintf(stderr, " in memory, dumps to %s; kill -USR1 %d dumps now, Ctrl-C stops\n",
			s->res->path, me);
	else
		fprintf(stderr, " into %s; Ctrl-C to stop\n", s->res->path);
	fputs(s->note, stderr);
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
}

/* Takes the held signals; lets a launched command run; the stall rule and
 * the snapshot at attach.  -1 when recording must not begin: asked to stop
 * while attaching, or the command could not be run (message printed). */
static int go(struct session *s)
{
	const struct lt_record_opts *o = s->o;

	take_signals(&s->oldmask);
	s->holding = 0;
	if (stop_requests) {
		fprintf(stderr, "locktrace: asked to stop while attaching; nothing was recorded\n");
		return -1;
	}
	if (s->launched) {
		int r = lt_launch_go(&s->launch);
		if (r) {
			fprintf(stderr, "Error: cannot run %s: %s\n", o->argv[0], strerror(-r));
			s->res->exec_errno = -r;
			s->reaped = 1; /* lt_launch_go waited for it */
			return -1;
		}
	}
	say_recording(s);
	if (o->stall_s > 0)
		start_stall_rule(s);
	for (uint32_t i = 0; i < s->hdr.nthreads; i++) {
		const struct lt_thread_info *ti = &s->hdr.threads[i];
		note_thread(&s->c, (uint32_t)ti->tid, ti->tgid ? (uint32_t)ti->tgid : (uint32_t)s->tgid);
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
				  pthread_create(&s->snap.th, NULL, snap_main, &s->snap) == 0;
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
	fprintf(stderr, "locktrace: %s: %s\n", trig == LT_STOP_STALL ? "stall detected" : "dump requested",
		why);
	if (s->ring) {
		char dpath[PATH_MAX];
		failed = dump_flight(&s->flight, &s->c, s->lost_seen, (uint32_t)s->bpf.ncpus,
				     trig, o->quiet, 0, s->launched ? &s->hdr : NULL, dpath,
				     sizeof(dpath)) != 0;
		if (!failed) {
			s->res->dumps++;
			snprintf(s->res->path, sizeof(s->res->path), "%s", dpath);
			hand_over(o, dpath, goes_on, &s->kids);
		}
	} else {
		int sr = snapshot_into(s->c.w, &s->c, o->quiet,
				       trig == LT_STOP_STALL ? "stall" : "sigusr1");
		if (sr && !s->c.werr)
			s->c.werr = sr;
	}
	/* a failed dump keeps the ring for the next trigger */
	if (goes_on || failed) {
		if (s->have_stall)
			lt_stall_rearm(&s->stall, lt_now_ns(CLOCK_BOOTTIME));
		return 0;
	}
	s->res->stop_reason = trig;
	return 1;
}

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

/* Drains the ring buffer every POLL_MS until a stop condition. */
static void run(struct session *s)
{
	const struct lt_record_opts *o = s->o;
	struct lt_record_result *res = s->res;
	struct collector *c = &s->c;
	uint64_t t0 = lt_now_ns(CLOCK_MONOTONIC), last_flush = t0, last_lost = t0, last_status = t0;
	uint64_t status_total = 0, last_stall = t0, last_names = 0, last_cg = t0;
	double status_secs = 0;
	sig_atomic_t usr1_seen = 0; /* one held while attaching dumps now */

	res->stop_reason = LT_STOP_UNKNOWN;
	while (!stop_requests) {
		int n = lt_bpf_poll(&s->bpf, POLL_MS);
		if (n < 0) {
			fprintf(stderr, "\nError: reading the ring buffer: %s\n", strerror(-n));
			res->stop_reason = LT_STOP_ERROR;
			break;
		}
		uint64_t now = lt_now_ns(CLOCK_MONOTONIC);
		snap_collect(&s->snap, c, 0, o->quiet);
		if (now - last_lost >= LOST_CHECK_NS) {
			account_lost(&s->bpf, c, s->lost_seen, s->lost_now, s->nlost);
			last_lost = now;
		}
		if (now - last_names >= NAMES_NS) {
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
			last_names = now;
		}
		if (now - last_flush >= FLUSH_NS) {
			int fr = lt_writer_flush(c->w);
			if (fr && !c->werr)
				c->werr = fr;
			last_flush = now;
		}
		if (c->werr) {
			res->stop_reason = LT_STOP_ERROR;
			break;
		}
		if (s->show_status && now - last_status >= 1000000000ull) {
			uint64_t lsum = 0;
			for (size_t i = 0; i < s->nlost; i++)
				lsum += s->lost_seen[i];
			status_line(c, lsum, (double)(now - t0) / 1e9,
				    s->ring ? s->flight.fl.bytes : lt_writer_bytes(c->w), &status_total,
				    &status_secs);
			if (s->ring && s->flight.fl.count)
				fprintf(stderr, " in ring, %.1f s of history",
					(double)(lt_now_ns(CLOCK_BOOTTIME) - lt_flight_oldest_ts(&s->flight.fl)) /
						1e9);
			last_status = now;
		}
		/* triggers: SIGUSR1 (queued: each one is handled), the stall rule */
		int trig = 0;
		char why[320] = "";
		if (usr1_requests != usr1_seen) {
			usr1_seen++;
			trig = LT_STOP_USR1;
			snprintf(why, sizeof(why), "SIGUSR1");
		} else if (s->have_stall && now - last_stall >= STALL_CHECK_NS) {
			last_stall = now;
			if (lt_stall_check(&s->stall, lt_now_ns(CLOCK_BOOTTIME), why, sizeof(why)))
				trig = LT_STOP_STALL;
		}
		if (trig && on_trigger(s, trig, why))
			break;
		if (o->duration_s > 0 && (double)(now - t0) / 1e9 >= o->duration_s) {
			res->stop_reason = LT_STOP_DURATION;
			break;
		}
		if (all_ended(s, now, &last_cg)) {
			res->stop_reason = LT_STOP_EXIT;
			break;
		}
	}
	if (stop_requests && res->stop_reason == LT_STOP_UNKNOWN)
		res->stop_reason = LT_STOP_SIGNAL;
	if (s->show_status)
		fprintf(stderr, "\r\033[K");
}

/* Detaches and drains what the ring buffer still holds (unless a second
 * interrupt asks to hurry); the snapshots that belong in the trace. */
static void drain(struct session *s)
{
	const struct lt_record_opts *o = s->o;
	struct collector *c = &s->c;

	/* detach first so the drain below terminates */
	lt_bpf_detach(&s->bpf);
	sig_atomic_t s0 = stop_requests;
	while (stop_requests == s0 && lt_bpf_poll(&s->bpf, -1) > 0)
		;
	if (stop_requests != s0)
		fprintf(stderr, "locktrace: interrupted again: finishing the file without draining "
			"the rest of the ring buffer\n");
	if (c->norm) {
		lt_callnorm_flush(c->norm, deliver, c);
		if (c->norm->oom)
			fprintf(stderr, "locktrace: warning: out of memory while pairing calls with their "
				"returns: some returns are missing from the trace\n");
	}
	account_lost(&s->bpf, c, s->lost_seen, s->lost_now, s->nlost);
	snap_collect(&s->snap, c, 1, o->quiet);
	/* a second snapshot at the end: the report reads lock holders from the
	 * moment that matters (a hang is still there when tracing stops) */
	size_t nlive = 0;
	free(live_procs(c, &nlive));
	if (!s->ring && !o->no_snapshot && c->w && !c->werr && nlive) {
		int sr = snapshot_into(c->w, c, 1, "end");
		if (sr)
			c->werr = sr;
	}
}

/* The last flight dump (unless a stall just wrote one), then the ring is
 * given up.  The completed file's path in done, or "". */
static void finish_ring(struct session *s, char *done, size_t dlen)
{
	struct lt_record_result *res = s->res;
	struct collector *c = &s->c;

	if (res->stop_reason != LT_STOP_STALL) {
		if (dump_flight(&s->flight, c, s->lost_seen, (uint32_t)s->bpf.ncpus,
				res->stop_reason, s->o->quiet, 1, s->launched ? &s->hdr : NULL, done,
				dlen) == 0) {
			res->dumps++;
			snprintf(res->path, sizeof(res->path), "%s", done);
		} else {
			done[0] = 0;
			res->stop_reason = LT_STOP_ERROR;
		}
	}
	res->bytes = s->flight.fl.bytes;
	lt_writer_close(c->w); /* the memory writer */
	c->w = NULL;
	if (s->flight.first_fd >= 0) { /* never dumped: do not leave an empty file */
		close(s->flight.first_fd);
		s->flight.first_fd = -1;
		unlink(s->flight.base);
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
		int e = c->werr ? c->werr : cr;
		fprintf(stderr, "Error: writing %s: %s; the trace is readable up to its last complete "
			"chunk (locktrace dump says where it stops)\n", res->path, strerror(-e));
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

/* A launched program ends with the recording: one that has exited is
 * reaped (wait: 0 only looks); one still running when the trace is done
 * gets SIGTERM, as timeout(1) sends it, and we wait for it to end (a stop
 * request while waiting sends SIGKILL).  Its status in res->exit_status. */
static void end_launched(struct session *s, int wait)
{
	int st, said = 0, killed = 0;
	sig_atomic_t s0 = stop_requests;

	if (!s->launched || s->reaped)
		return;
	if (has_ended(s->tgid, &st))
		goto reaped;
	if (!wait)
		return;
	if (!s->o->quiet)
		fprintf(stderr, "locktrace: %s (pid %d) is still running: sending it SIGTERM\n", s->comm,
			s->tgid);
	kill(s->tgid, SIGTERM);
	for (int ms = 0; !has_ended(s->tgid, &st); ms += 20) {
		if (ms == 5000 && !said++)
			fprintf(stderr, "locktrace: %s (pid %d) has not ended 5 s after SIGTERM; waiting "
				"for it (Ctrl-C sends it SIGKILL)\n", s->comm, s->tgid);
		if (stop_requests != s0 && !killed++)
			kill(s->tgid, SIGKILL);
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

	drain(s);
	end_launched(s, 0); /* its status goes into the trace if it has ended */
	stats.start_ns = s->hdr.clock_boottime;
	stats.end_ns = lt_now_ns(CLOCK_BOOTTIME);
	if (s->ring)
		finish_ring(s, done, sizeof(done));
	else
		finish_file(s, &stats, done, sizeof(done));
	end_launched(s, 1);
	if (done[0])
		hand_over(o, done, 0, &s->kids);
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
	unlink(s->res->path); /* we created it and it holds nothing */
}

static void release(struct session *s, int failed)
{
	if (s->launched && !s->reaped && (failed || s->launch.gate_fd >= 0))
		lt_launch_abort(&s->launch);
	remove_pid_file(s);
	if (s->bpf_started)
		lt_bpf_destroy(&s->bpf);
	if (s->pidfd >= 0)
		close(s->pidfd);
	free(s->lost_seen);
	free(s->lost_now);
	free(s->c.tids.v);
	lt_header_free(&s->hdr);
	if (s->have_stall)
		lt_stall_free(&s->stall);
	free_procs(&s->c);
	if (s->have_cg)
		lt_cgroup_free(&s->cg);
	free(s->snap.tgids);
	if (s->c.norm)
		lt_callnorm_free(s->c.norm);
	reap_kids(&s->kids, 1); /* their output belongs before ours ends */
	lt_flight_free(&s->flight.fl);
	signal(SIGUSR1, SIG_DFL);
	signal(SIGINT, SIG_DFL);
	signal(SIGTERM, SIG_DFL);
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
	snprintf(s.comm, sizeof(s.comm), "process");
	memset(res, 0, sizeof(*res));
	res->exit_status = -1;

	hold_signals(&s.oldmask);
	s.holding = 1;
	if (lt_bpf_check_kernel(err, sizeof(err))) {
		fprintf(stderr, "Error: %s\n", err);
		release(&s, 1);
		return -1;
	}
	if (find_target(&s)) {
		release(&s, 1);
		return -1;
	}
	if (open_output(o, s.comm, s.tgid, &s.file_w, res->path, sizeof(res->path))) {
		release(&s, 1);
		return -1;
	}
	s.show_status = o->status_line < 0 ? isatty(STDERR_FILENO) : o->status_line;
	if (write_pid_file(&s) || open_sinks(&s) || attach(&s) || write_header(&s) || go(&s)) {
		discard_output(&s);
		release(&s, 1);
		return -1;
	}
	run(&s);
	finish(&s);
	release(&s, 0);
	return 0;
}
