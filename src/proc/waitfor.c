/* Wait-for edges of a live snapshot (include/locktrace/waitfor.h): for
 * each blocked thread, who can end its wait, read from /proc only.
 *
 *   flock/fcntl lock   /proc/locks (the "->" entry of the waiter and the
 *                      lock it is queued on), fdinfo "lock:" lines of the
 *                      processes that have the file open (OFD locks, pid -1)
 *   pipe / FIFO        /proc/ * /fd of every process: who holds the other end
 *                      (fdinfo flags say which end)
 *   unix socket        NETLINK_SOCK_DIAG (UNIX_DIAG_PEER), then who holds
 *                      the peer
 *   tcp / udp          the reverse 4-tuple among the host's sockets
 *                      (inetdiag.c: NETLINK_SOCK_DIAG inet_diag, or the
 *                      target's /proc/net/{tcp,udp}{,6}), then who holds
 *                      that socket; none: outside this host
 *   poll/select/epoll  each watched fd as above, plus the timeout
 *   wait4/waitid       /proc/PID/task/ * /children
 *   rt_sigsuspend,     the same, when SIGCHLD can end the wait (the mask
 *   pause,             from the call's argument in its memory, SigBlk,
 *   rt_sigtimedwait    SigCgt, SigIgn); timers from /proc/PID/timers
 *   signalfd           its "sigmask:" (fdinfo) and SigBlk/SigIgn: SIGCHLD
 *                      queued for it is a child wait as above; its other
 *                      signals an unknown party
 *   pty master/slave   the other end's holders: the slave /dev/pts/N (by
 *                      the master's fdinfo "tty-index:"), by device and
 *                      inode; the masters whose tty-index is N
 * The /proc scan is one pass for all the inodes wanted, bounded in
 * processes and time (said on the edges it cut). */
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <linux/netlink.h>
#include <linux/sock_diag.h>
#include <linux/unix_diag.h>
#include <netinet/in.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <sys/sysmacros.h>
#include <sys/vfs.h>
#include <time.h>
#include <unistd.h>

#include "inetdiag.h"
#include "snapshot.h"
#include "symbols.h"
#include "waitfor.h"
#include "snapshot_int.h"
#include "grow.h"

#define SCAN_MAX_PROCS 20000
#define SCAN_MAX_NS (2000LL * 1000000LL)

struct lt_wf_edge *lt_waitfor_add(struct lt_thread *t, pid_t pid, enum lt_wf_kind kind)
{
	if (!t->wf) {
		t->wf = calloc(1, sizeof(*t->wf));
		if (!t->wf)
			return NULL;
		t->wf->pid = pid;
	}
	struct lt_waitfor *w = t->wf;
	struct lt_wf_edge *ne = realloc(w->edges, (w->n_edges + 1) * sizeof(*ne));
	if (!ne)
		return NULL;
	w->edges = ne;
	struct lt_wf_edge *e = &w->edges[w->n_edges++];
	memset(e, 0, sizeof(*e));
	e->kind = kind;
	e->fd = -1;
	return e;
}

void lt_waitfor_free(struct lt_waitfor *w)
{
	if (!w)
		return;
	for (size_t i = 0; i < w->n_edges; i++) {
		free(w->edges[i].what);
		free(w->edges[i].evidence);
		free(w->edges[i].doing);
	}
	free(w->edges);
	free(w->tracer_doing);
	free(w);
}

static void add_pid(struct lt_wf_edge *e, pid_t p)
{
	for (size_t i = 0; i < e->n_pids; i++)
		if (e->pids[i] == p)
			return;
	if (e->n_pids < LT_WF_MAX_PIDS)
		e->pids[e->n_pids++] = p;
	else
		e->more_pids = true;
}

/* ---- what a party process does ---- */

static bool timed_wait(long nr, const uint64_t *a)
{
	switch (nr) {
	case 35: case 230: return true;                       /* (clock_)nanosleep */
	case 7: return (int)a[2] >= 0;                         /* poll timeout ms */
	case 232: case 281: return (int)a[3] >= 0;             /* epoll_wait */
	case 23: return a[4] != 0;                             /* select timeval */
	case 270: return a[4] != 0;                            /* pselect6 */
	case 271: return a[2] != 0;                            /* ppoll */
	case 441: return a[4] != 0;                            /* epoll_pwait2 */
	case 202: return ((a[1] & 0x7f) == 0 || (a[1] & 0x7f) == 9) && a[3] != 0; /* futex wait */
	case 128: return a[2] != 0;                            /* rt_sigtimedwait */
	/* restart_syscall: a call resumed after a stop (a tracer's attach,
	 * SIGSTOP/SIGCONT) through its restart block: a sleep, a futex wait
	 * with a timeout, or a poll, with or without one (a poll is set aside
	 * first: decoded as itself in a snapshot, restart_poll_of for a party) */
	case 219: return true;
	default: return false;
	}
}

/* Thread TID of process PID, in restart_syscall (SC), resumes a poll with
 * no timeout: its kernel stack read. */
static bool restart_poll_of(pid_t pid, pid_t tid, const struct lt_sc_line *sc)
{
	char path[96], buf[2048];
	snprintf(path, sizeof(path), "/proc/%d/task/%d/stack", (int)pid, (int)tid);
	return lts_read_small(path, buf, sizeof(buf)) > 0 && lt_restart_untimed_poll(sc->nr, sc->args, NULL, buf);
}

static bool event_wait(long nr)
{
	switch (nr) {
	case 7: case 23: case 232: case 270: case 271: case 281: case 441: /* polls */
	case 43: case 288:  /* accept */
	case 34: case 130: case 128: /* pause, sigsuspend, sigtimedwait */
		return true;
	default:
		return false;
	}
}

struct party {
	pid_t pid;
	enum lt_wf_pstate st;
	char *doing;
};

struct cctx {
	struct lt_snapshot *s;
	struct lt_mem *mem;
	struct party *parties;
	size_t n_parties;
	char *locks;            /* /proc/locks, NULL unread */
	bool locks_read;
	char *net[1];           /* target's net/unix */
	bool net_read;
	struct lt_inet_table inet; /* tcp/udp sockets (inetdiag.h) */
	bool inet_read;
	/* the traced threads of the system (TracerPid), read once */
	struct traced {
		pid_t tracer, tgid, tid;
		char state; /* its State: 't' in a ptrace stop */
	} *traced;
	size_t n_traced;
	bool traced_read;
	/* inodes to find holders of */
	struct want {
		unsigned long ino;
		char *path;
		bool by_id;     /* a file (with path: for the evidence) found
				   by its device and inode, stat of
				   /proc/PID/fd/N: a hard link or a bind mount
				   (another mount namespace's path) is the
				   same file */
		dev_t dev;
		size_t ti, ei;
		int mode;
		size_t keep;
		struct lt_plock req; /* a file lock's request (holders by fdinfo) */
		char *key;      /* with path: an fd whose link reads path is one
				   only if its fdinfo has this line (an
				   eventfd's "eventfd-id: 3", a message
				   queue's "ino:\t812"): NULL any */
	} *wants;
	size_t n_wants;
	/* files of the process that another process holds a lock on (for a
	 * thread asleep on a timer: it may be retrying that lock between
	 * sleeps), found once: polled_read */
	struct polled { int fd; char *path; struct lt_plock l; } *polled;
	size_t n_polled;
	bool polled_read;
	/* fds resolved so far: thread ti's edge ei, and its want (-1 none) */
	struct memo { int fd, dir; bool in_poll; size_t ti, ei; long want; } *memo;
	size_t n_memo;
	bool no_memo;           /* the fd's edges are the thread's own (a
				   signalfd: its SigBlk, its children added
				   directly): not shared by fd_edge */
};

static void party_read(struct party *p, int depth);

/* The children of every thread of process PID (/proc/PID/task/TID/children),
 * malloc'd, their count in *N; NULL with *N 0 when none or unreadable. */
/* The children thread TID of process PID created, appended to *OUT (*N of
 * them, room for *CAP). */
static void thread_children(pid_t pid, pid_t tid, pid_t **out, size_t *n, size_t *cap)
{
	char p[96];
	snprintf(p, sizeof(p), "/proc/%d/task/%d/children", (int)pid, (int)tid);
	char *txt = lts_read_all(p, NULL);
	for (char *q = txt; q && *q;) {
		char *end;
		long ch = strtol(q, &end, 10);
		if (end == q)
			break;
		q = end;
		pid_t *v = lt_grow(*out, cap, *n, sizeof(**out), 16);
		if (!v)
			break;
		*out = v;
		(*out)[(*n)++] = (pid_t)ch;
	}
	free(txt);
}

static pid_t *children_list(pid_t pid, size_t *n)
{
	size_t nt = 0, cap = 0;
	pid_t *tids = lts_list_tasks(pid, &nt), *out = NULL;
	*n = 0;
	for (size_t i = 0; i < nt; i++)
		thread_children(pid, tids[i], &out, n, &cap);
	free(tids);
	return out;
}

/* A process blocked in wait4/waitid waits for its children: they decide
 * whether it is stuck.  The least stuck child, and what it does. */
static void children_of(struct party *p, int depth)
{
	size_t nk = 0;
	pid_t *kids = children_list(p->pid, &nk);
	enum lt_wf_pstate best = LT_WFP_UNKNOWN;
	static const int rank[] = { [LT_WFP_UNKNOWN] = 0, [LT_WFP_BLOCKED] = 1, [LT_WFP_GONE] = 2,
				    [LT_WFP_EVENTS] = 3, [LT_WFP_TIMED] = 4, [LT_WFP_RUNNING] = 5 };
	char *bd = NULL;
	for (size_t i = 0; i < nk; i++) {
		struct party c = { .pid = kids[i] };
		party_read(&c, depth + 1);
		if (!bd || rank[c.st] > rank[best]) {
			best = c.st;
			free(bd);
			bd = c.doing;
		} else {
			free(c.doing);
		}
	}
	free(kids);
	if (!bd)
		return;
	char *d = lts_asprintf("%s, waiting for its child %s", p->doing ? p->doing : "?", bd);
	free(bd);
	if (d) {
		free(p->doing);
		p->doing = d;
	}
	p->st = best == LT_WFP_GONE ? LT_WFP_RUNNING /* reaps it now */ : best;
}

/* A party's thread TID of process PID in rt_sigsuspend or pause: 0 a
 * signal wait no child ends (SIGCHLD not caught, or blocked: SigBlk is
 * the mask during either call), 1 a child's SIGCHLD ends it (a child wait,
 * as wait4's), 2 that, and a timer of /proc/PID/timers whose signal the
 * thread does not block may end it too (timeout(1) as a party). */
static int sigchld_wait(pid_t pid, pid_t tid)
{
	char path[96], buf[4096];
	uint64_t cgt, ign, blk;
	snprintf(path, sizeof(path), "/proc/%d/status", (int)pid);
	if (lts_read_small(path, buf, sizeof(buf)) <= 0 || lt_status_sigmask(buf, "SigCgt:", &cgt) ||
	    lt_status_sigmask(buf, "SigIgn:", &ign))
		return 0;
	snprintf(path, sizeof(path), "/proc/%d/task/%d/status", (int)pid, (int)tid);
	if (lts_read_small(path, buf, sizeof(buf)) <= 0 || lt_status_sigmask(buf, "SigBlk:", &blk))
		return 0;
	struct lt_sigwait w = { .nr = 130, .blocked_ok = true, .disp_ok = true, .blocked = blk, .caught = cgt,
				.ignored = ign };
	if (lt_sigwait_ends(&w, 17, NULL, 0) != LT_SIG_END_YES)
		return 0;
	snprintf(path, sizeof(path), "/proc/%d/timers", (int)pid);
	if (lts_read_small(path, buf, sizeof(buf)) > 0) {
		struct lt_ptimer tm[8];
		size_t n = lt_parse_proc_timers(buf, tm, 8);
		for (size_t i = 0; i < n; i++)
			if (tm[i].signal && tm[i].target == (tm[i].to_thread ? tid : pid) &&
			    lt_sigwait_ends(&w, tm[i].signo, NULL, 0) != LT_SIG_END_NO)
				return 2;
	}
	return 1;
}

static void party_read(struct party *p, int depth)
{
	char path[64], buf[1024], comm[64] = "?";
	snprintf(path, sizeof(path), "/proc/%d/stat", (int)p->pid);
	char state = 0;
	if (lts_read_small(path, buf, sizeof(buf)) <= 0 || lt_parse_stat(buf, comm, sizeof(comm), &state)) {
		p->st = LT_WFP_GONE;
		p->doing = lts_asprintf("%d: gone", (int)p->pid);
		return;
	}
	if (state == 'Z' || state == 'X') {
		p->st = LT_WFP_GONE;
		p->doing = lts_asprintf("%d (%s): exited (zombie)", (int)p->pid, comm);
		return;
	}
	size_t nt = 0;
	pid_t *tids = lts_list_tasks(p->pid, &nt);
	int running = 0, timed = 0, events = 0, blocked = 0, unk = 0, waits = 0;
	char list[256];
	size_t ll = 0;
	list[0] = 0;
	for (size_t i = 0; i < nt; i++) {
		char ts = 0, c2[64];
		const char *what = "?";
		char wb[48];
		snprintf(path, sizeof(path), "/proc/%d/task/%d/stat", (int)p->pid, (int)tids[i]);
		if (lts_read_small(path, buf, sizeof(buf)) > 0)
			lt_parse_stat(buf, c2, sizeof(c2), &ts);
		snprintf(path, sizeof(path), "/proc/%d/task/%d/syscall", (int)p->pid, (int)tids[i]);
		struct lt_sc_line sc = { 0 };
		if (lts_read_small(path, buf, sizeof(buf)) > 0)
			lt_parse_syscall_line(buf, &sc);
		if (ts == 'T' || ts == 't') {
			/* stopped by a signal or a tracer: runs again only when
			 * continued, whatever call it is in */
			blocked++;
			what = ts == 'T' ? "stopped by a signal (until SIGCONT)" : "stopped by a tracer";
		} else if (ts == 'R' || sc.state == LT_SC_RUNNING) {
			running++;
			what = "running";
		} else if (sc.state == LT_SC_IN_SYSCALL) {
			const char *n = lt_syscall_name(sc.nr);
			snprintf(wb, sizeof(wb), "%s", n ? n : "syscall");
			what = wb;
			waits += sc.nr == 61 || sc.nr == 247;
			int sw = (sc.nr == 130 || sc.nr == 34) ? sigchld_wait(p->pid, tids[i]) : 0;
			if (sw == 2) { /* a child wait a timer's signal may end too */
				timed++;
				snprintf(wb, sizeof(wb), "%s for a child, or a timer", n ? n : "syscall");
			} else if (sw == 1) { /* a child wait, judged by the children */
				waits++;
				blocked++;
			} else if (sc.nr == 219 && restart_poll_of(p->pid, tids[i], &sc)) {
				events++; /* a poll with no timeout, resumed after a stop */
			} else if (timed_wait(sc.nr, sc.args))
				timed++;
			else if (event_wait(sc.nr))
				events++;
			else
				blocked++;
		} else {
			unk++;
			what = sc.state == LT_SC_NOT_IN_SYSCALL ? "blocked outside a system call" : "unreadable";
		}
		if (i < 6 && ll < sizeof(list) - 64)
			ll += (size_t)snprintf(list + ll, sizeof(list) - ll, "%s%s%s", i ? ", " : "",
					       nt > 1 ? "" : "", what);
	}
	free(tids);
	p->st = running ? LT_WFP_RUNNING : timed ? LT_WFP_TIMED : events ? LT_WFP_EVENTS
	      : blocked ? LT_WFP_BLOCKED : LT_WFP_UNKNOWN;
	if (nt > 1)
		p->doing = lts_asprintf("%d (%s), %zu threads: %s%s", (int)p->pid, comm, nt, list,
					nt > 6 ? ", ..." : "");
	else
		p->doing = lts_asprintf("%d (%s): %s", (int)p->pid, comm, list);
	if (p->st == LT_WFP_BLOCKED && waits && depth < 3)
		children_of(p, depth);
}

/* The snapshot's own process as a party: from the threads it read
 * (a 1,000-thread process is not read twice). */
static void party_self(const struct lt_snapshot *s, struct party *p)
{
	size_t running = 0, timed = 0, events = 0, blocked = 0, service = 0, idle = 0;
	bool jvm = false;
	for (size_t i = 0; i < s->n_threads && !jvm; i++)
		jvm = lts_java_thread(&s->threads[i]);
	for (size_t i = 0; i < s->n_threads; i++) {
		const struct lt_thread *t = &s->threads[i];
		if (t->rt_service && t->state != 'R' && t->sc.state == LT_SC_IN_SYSCALL)
			service++; /* its timer (a tick thread's) ends no wait of the program's */
		else if (jvm && lts_jvm_own_thread(t) && t->tid != s->pid)
			service++; /* a JVM's own, even running: no code of the program */
		else if (t->rt_refq && t->state != 'R' && t->sc.state == LT_SC_IN_SYSCALL)
			idle++; /* its timer re-checks for references nothing running makes */
		else if (t->state == 'T' || t->state == 't')
			blocked++; /* stopped: until continued */
		else if (t->state == 'R' || t->sc.state == LT_SC_RUNNING)
			running++;
		else if (t->sc.state != LT_SC_IN_SYSCALL)
			continue;
		else if (timed_wait(t->sc.nr, t->sc.args)) /* a resumed poll decoded as itself */
			timed++;
		else if (event_wait(t->sc.nr))
			events++;
		else
			blocked++;
	}
	p->st = running ? LT_WFP_RUNNING : timed ? LT_WFP_TIMED : events ? LT_WFP_EVENTS
	      : blocked ? LT_WFP_BLOCKED : LT_WFP_UNKNOWN;
	char svc[160] = "";
	size_t sl = 0;
	if (service)
		sl = (size_t)snprintf(svc, sizeof(svc), ", %zu the runtime's own (running none of its code)", service);
	if (idle)
		snprintf(svc + sl, sizeof(svc) - sl, ", %zu waiting for references a collection found (the "
			 "JDK's reference queues)", idle);
	p->doing = lts_asprintf("%d (%s, this process), %zu threads: %zu running, %zu on timers, %zu in "
				"event waits, %zu blocked%s", (int)p->pid, s->comm, s->n_threads, running, timed,
				events, blocked, svc);
}

static struct party *party_get(struct cctx *c, pid_t pid)
{
	for (size_t i = 0; i < c->n_parties; i++)
		if (c->parties[i].pid == pid)
			return &c->parties[i];
	struct party *np = realloc(c->parties, (c->n_parties + 1) * sizeof(*np));
	if (!np)
		return NULL;
	c->parties = np;
	struct party *p = &np[c->n_parties++];
	memset(p, 0, sizeof(*p));
	p->pid = pid;
	if (pid == c->s->pid)
		party_self(c->s, p);
	else
		party_read(p, 0);
	return p;
}

/* The edge's parties, what they do: the least stuck of them decides. */
static void edge_parties(struct cctx *c, struct lt_wf_edge *e)
{
	static const int rank[] = { [LT_WFP_UNKNOWN] = 0, [LT_WFP_BLOCKED] = 1, [LT_WFP_GONE] = 2,
				    [LT_WFP_EVENTS] = 3, [LT_WFP_TIMED] = 4, [LT_WFP_RUNNING] = 5 };
	char buf[512];
	size_t bl = 0;
	buf[0] = 0;
	for (size_t i = 0; i < e->n_pids; i++) {
		struct party *p = party_get(c, e->pids[i]);
		if (!p)
			continue;
		/* an application lock's holder read blocked from the
		 * application's memory (appwait.h) stays so: its latch's
		 * epoll looks like an event wait */
		bool app_blocked = e->kind == LT_WF_APP_LOCK && e->pstate == LT_WFP_BLOCKED &&
				   p->st == LT_WFP_EVENTS;
		if (rank[p->st] > rank[e->pstate] && !app_blocked)
			e->pstate = p->st;
		if (bl < sizeof(buf) - 64)
			bl += (size_t)snprintf(buf + bl, sizeof(buf) - bl, "%s%s", i ? "; " : "",
					       p->doing ? p->doing : "?");
	}
	if (e->n_pids)
		e->doing = lts_strdup(buf);
}

/* ---- /proc scan: who holds an inode ---- */

static void want(struct cctx *c, size_t ti, size_t ei, unsigned long ino, const char *path, int mode)
{
	struct want *nw = realloc(c->wants, (c->n_wants + 1) * sizeof(*nw));
	if (!nw)
		return;
	c->wants = nw;
	/* keep: the parties already named (an OFD filter keeps them) */
	c->wants[c->n_wants++] = (struct want){ ino, path ? lts_strdup(path) : NULL, false, 0, ti, ei, mode,
						c->s->threads[ti].wf->edges[ei].n_pids, { 0 }, NULL };
}

/* A want of the fds open on the file DEV:INO (PATH: the waiter's name for
 * it, or NULL), whatever path they were opened by. */
static struct want *want_file(struct cctx *c, size_t ti, size_t ei, dev_t dev, unsigned long ino, const char *path,
			      int mode)
{
	size_t n = c->n_wants;
	want(c, ti, ei, ino, path ? path : "?", mode);
	if (c->n_wants == n)
		return NULL;
	c->wants[n].by_id = true;
	c->wants[n].dev = dev;
	return &c->wants[n];
}

/* A want by path whose fds must also have KEY as a line of their fdinfo. */
static void want_key(struct cctx *c, size_t ti, size_t ei, const char *path, const char *key, int mode)
{
	size_t n = c->n_wants;
	want(c, ti, ei, 0, path, mode);
	if (c->n_wants > n)
		c->wants[n].key = lts_strdup(key);
}

/* Does the fdinfo text have KEY as a whole line? */
static bool fdinfo_has_line(const char *text, const char *key)
{
	size_t kl = strlen(key);
	for (const char *p = text; p && *p; p = strchr(p, '\n'), p = p ? p + 1 : NULL)
		if (!strncmp(p, key, kl) && (p[kl] == '\n' || !p[kl]))
			return true;
	return false;
}

/* mode of an fd from its fdinfo flags: 1 write-only, 2 read-only, 3 both */
static int fd_mode(pid_t pid, const char *fdname)
{
	char path[300], buf[512];
	snprintf(path, sizeof(path), "/proc/%d/fdinfo/%s", (int)pid, fdname);
	if (lts_read_small(path, buf, sizeof(buf)) < 0)
		return 3;
	const char *p = strstr(buf, "flags:");
	if (!p)
		return 3;
	unsigned fl = (unsigned)strtoul(p + 6, NULL, 8);
	return (fl & O_ACCMODE) == O_WRONLY ? 1 : (fl & O_ACCMODE) == O_RDONLY ? 2 : 3;
}

/* Every pipe and socket fd on the host, by inode: one /proc scan shared
 * by the snapshots taken within SCAN_REUSE_NS of it (a recording of many
 * processes takes one after the other), as long as every inode a snapshot
 * wants is in it (an inode missing may be newer than the scan: scanned
 * again).  Guarded: snapshots may run on several threads. */
#define SCAN_REUSE_NS (1000LL * 1000000LL)

struct fdent {
	unsigned long ino;
	pid_t pid;
	int fd;
};

static struct {
	pthread_mutex_t mu;
	int64_t at;             /* CLOCK_MONOTONIC of the scan, 0 none */
	bool cut;               /* the scan stopped at its bounds */
	struct fdent *v;
	size_t n, cap;
} fdscan = { .mu = PTHREAD_MUTEX_INITIALIZER };

static int fdent_cmp(const void *a, const void *b)
{
	const struct fdent *x = a, *y = b;
	if (x->ino != y->ino)
		return x->ino < y->ino ? -1 : 1;
	return (x->pid > y->pid) - (x->pid < y->pid);
}

/* Calls fn(arg, pid, fdname, target) for every fd of every process,
 * within the bounds; true if it stopped at them. */
static bool walk_fds(void (*fn)(void *, long, const char *, const char *), void *arg)
{
	int64_t t0 = lts_now_ns(CLOCK_MONOTONIC);
	DIR *d = opendir("/proc");
	if (!d)
		return true;
	size_t procs = 0;
	bool cut = false;
	struct dirent *de;
	while ((de = readdir(d))) {
		char *end;
		long pid = strtol(de->d_name, &end, 10);
		if (*end || pid <= 0)
			continue;
		if (++procs > SCAN_MAX_PROCS || lts_now_ns(CLOCK_MONOTONIC) - t0 > SCAN_MAX_NS) {
			cut = true;
			break;
		}
		char path[64];
		snprintf(path, sizeof(path), "/proc/%ld/fd", pid);
		DIR *fd = opendir(path);
		if (!fd)
			continue;
		struct dirent *fe;
		while ((fe = readdir(fd))) {
			if (fe->d_name[0] == '.')
				continue;
			char lp[300], tgt[512];
			snprintf(lp, sizeof(lp), "/proc/%ld/fd/%s", pid, fe->d_name);
			ssize_t n = readlink(lp, tgt, sizeof(tgt) - 1);
			if (n <= 0)
				continue;
			tgt[n] = 0;
			fn(arg, pid, fe->d_name, tgt);
		}
		closedir(fd);
	}
	closedir(d);
	return cut;
}

static void index_fd(void *arg, long pid, const char *fdname, const char *tgt)
{
	(void)arg;
	unsigned long ino;
	if (sscanf(tgt, "pipe:[%lu]", &ino) != 1 && sscanf(tgt, "socket:[%lu]", &ino) != 1)
		return;
	struct fdent *nv = lt_grow(fdscan.v, &fdscan.cap, fdscan.n, sizeof(*nv), 4096);
	if (!nv)
		return;
	fdscan.v = nv;
	fdscan.v[fdscan.n++] = (struct fdent){ ino, (pid_t)pid, atoi(fdname) };
}

static const struct fdent *first_of(unsigned long ino)
{
	size_t lo = 0, hi = fdscan.n;
	while (lo < hi) {
		size_t mid = (lo + hi) / 2;
		if (fdscan.v[mid].ino < ino)
			lo = mid + 1;
		else
			hi = mid;
	}
	return lo < fdscan.n && fdscan.v[lo].ino == ino ? &fdscan.v[lo] : NULL;
}

static bool scan_covers(const struct cctx *c)
{
	if (!fdscan.at || lts_now_ns(CLOCK_MONOTONIC) - fdscan.at > SCAN_REUSE_NS)
		return false;
	for (size_t w = 0; w < c->n_wants; w++)
		if (!c->wants[w].path && !first_of(c->wants[w].ino))
			return false;
	return true;
}

static void scan_inodes(struct cctx *c)
{
	pthread_mutex_lock(&fdscan.mu);
	if (!scan_covers(c)) {
		fdscan.n = 0;
		fdscan.cut = walk_fds(index_fd, NULL);
		qsort(fdscan.v, fdscan.n, sizeof(*fdscan.v), fdent_cmp);
		fdscan.at = lts_now_ns(CLOCK_MONOTONIC);
	}
	for (size_t w = 0; w < c->n_wants; w++) {
		struct want *x = &c->wants[w];
		if (x->path)
			continue;
		struct lt_wf_edge *e = &c->s->threads[x->ti].wf->edges[x->ei];
		for (const struct fdent *f = first_of(x->ino); f && f < fdscan.v + fdscan.n && f->ino == x->ino; f++) {
			if (x->mode) {
				char fdn[16];
				snprintf(fdn, sizeof(fdn), "%d", f->fd);
				if (!(fd_mode(f->pid, fdn) & x->mode))
					continue;
			}
			add_pid(e, f->pid);
		}
		if (fdscan.cut)
			e->more_pids = true;
	}
	pthread_mutex_unlock(&fdscan.mu);
}

/* Wants by path (an eventfd, a message queue) or by file identity (a
 * FIFO, a locked file): not indexed, scanned. */
struct path_scan {
	struct cctx *c;
	bool ids;       /* some want is by file identity */
};

static void match_path(void *arg, long pid, const char *fdname, const char *tgt)
{
	struct path_scan *ps = arg;
	struct cctx *c = ps->c;
	int mode = -1;
	/* stat of the fd (the file it is open on, in any mount namespace),
	 * once, for a path-named fd only (not a pipe, socket or anon inode) */
	int got_st = ps->ids && tgt[0] == '/' ? 0 : -1;
	struct stat st;
	for (size_t w = 0; w < c->n_wants; w++) {
		struct want *x = &c->wants[w];
		if (!x->path)
			continue;
		if (x->by_id) {
			if (got_st == 0) {
				char lp[300];
				snprintf(lp, sizeof(lp), "/proc/%ld/fd/%s", pid, fdname);
				got_st = stat(lp, &st) == 0 ? 1 : -1;
			}
			if (got_st != 1 || st.st_dev != x->dev || st.st_ino != x->ino)
				continue;
		} else if (strcmp(x->path, tgt)) {
			continue;
		}
		if (x->key) {
			char ip[300], info[1024];
			snprintf(ip, sizeof(ip), "/proc/%ld/fdinfo/%s", pid, fdname);
			if (lts_read_small(ip, info, sizeof(info)) < 0 || !fdinfo_has_line(info, x->key))
				continue;
		}
		if (x->mode) {
			if (mode < 0)
				mode = fd_mode((pid_t)pid, fdname);
			if (!(mode & x->mode))
				continue;
		}
		add_pid(&c->s->threads[x->ti].wf->edges[x->ei], (pid_t)pid);
	}
}

static void scan_proc(struct cctx *c)
{
	bool paths = false, inodes = false;
	for (size_t w = 0; w < c->n_wants; w++) {
		paths |= c->wants[w].path != NULL;
		inodes |= c->wants[w].path == NULL;
	}
	if (inodes)
		scan_inodes(c);
	if (paths) {
		struct path_scan ps = { c, false };
		for (size_t w = 0; w < c->n_wants; w++)
			ps.ids |= c->wants[w].by_id;
		if (walk_fds(match_path, &ps))
			for (size_t w = 0; w < c->n_wants; w++)
				if (c->wants[w].path)
					c->s->threads[c->wants[w].ti].wf->edges[c->wants[w].ei].more_pids = true;
	}
}

/* ---- file locks ---- */

static void read_locks(struct cctx *c)
{
	if (!c->locks_read) {
		c->locks = lts_read_all("/proc/locks", NULL);
		c->locks_read = true;
	}
}

/* The line of /proc/locks text at *P, copied into LINE (cut to LEN - 1)
 * and parsed into *L (*OK: it parsed); *P moved past it.  False at the
 * end. */
static bool plock_next(char **p, struct lt_plock *l, char *line, size_t len, bool *ok)
{
	if (!*p || !**p)
		return false;
	char *eol = strchr(*p, '\n');
	size_t n = eol ? (size_t)(eol - *p) : strlen(*p);
	snprintf(line, len, "%.*s", (int)(n < len - 1 ? n : len - 1), *p);
	*ok = lt_parse_plock(line, l) == 0;
	*p = eol ? eol + 1 : NULL;
	return true;
}

static char *fd_path(pid_t pid, int fd);
static void range_str(const struct lt_plock *l, char *buf, size_t len);

/* The process's fds on files that /proc/locks says another process holds a
 * lock on (not a waiter's "->" entry), at most 8: what a thread asleep on a
 * timer may be retrying between its sleeps (a lock taken with F_SETLK or
 * LOCK_NB, as SQLite's busy handler does).  Read once. */
static void polled_read(struct cctx *c)
{
	if (c->polled_read)
		return;
	c->polled_read = true;
	read_locks(c);
	/* the granted locks of other processes, parsed once (an OFD lock,
	 * pid -1, may be this process's own); none: no fd to look at */
	struct lt_plock *others = NULL, l;
	size_t no = 0;
	char line[256];
	bool ok;
	for (char *q = c->locks; plock_next(&q, &l, line, sizeof(line), &ok);) {
		if (!ok || l.blocked || l.pid <= 0 || l.pid == c->s->pid)
			continue;
		struct lt_plock *v = realloc(others, (no + 1) * sizeof(*v));
		if (!v)
			break;
		others = v;
		others[no++] = l;
	}
	char dir[64];
	snprintf(dir, sizeof(dir), "/proc/%d/fd", (int)c->s->pid);
	DIR *d = no ? opendir(dir) : NULL;
	struct dirent *de;
	while (d && (de = readdir(d)) && c->n_polled < 8) {
		char *end;
		long fd = strtol(de->d_name, &end, 10);
		struct stat st;
		char fp[320];
		snprintf(fp, sizeof(fp), "%s/%s", dir, de->d_name);
		if (*end || de->d_name[0] == '.' || stat(fp, &st) || !S_ISREG(st.st_mode))
			continue;
		for (size_t k = 0; k < no; k++) {
			const struct lt_plock *o = &others[k];
			if (o->ino != (uint64_t)st.st_ino || o->major != major(st.st_dev) ||
			    o->minor != minor(st.st_dev))
				continue;
			struct polled *v = realloc(c->polled, (c->n_polled + 1) * sizeof(*v));
			if (!v)
				break;
			c->polled = v;
			v[c->n_polled++] = (struct polled){ (int)fd, fd_path(c->s->pid, (int)fd), *o };
			break;
		}
	}
	if (d)
		closedir(d);
	free(others);
}

/* Thread T asleep on a timer (edge E): the files others hold locked that it
 * may be polling, said on the edge, their holders its parties (an
 * inference: one snapshot cannot tell a retry loop from a plain sleep). */
/* "FILE (fd N) is locked by process P (POSIX WRITE bytes ...); ..." for
 * every file the process has open that another holds locked (polled_read)
 * into buf, each holder a party of e. */
static void polled_list(struct cctx *c, struct lt_wf_edge *e, char *buf, size_t len)
{
	size_t l = 0;
	buf[0] = 0;
	for (size_t i = 0; i < c->n_polled && l + 128 < len; i++) {
		const struct polled *p = &c->polled[i];
		char rg[48];
		range_str(&p->l, rg, sizeof(rg));
		l += (size_t)snprintf(buf + l, len - l, "%s%s (fd %d) is locked by process %d (%s %s %s)",
				      i ? "; " : "", p->path ? p->path : "?", p->fd, (int)p->l.pid, p->l.cls,
				      p->l.type, rg);
		add_pid(e, p->l.pid);
	}
}

static void polled_edge(struct cctx *c, struct lt_wf_edge *e)
{
	polled_read(c);
	if (!c->n_polled)
		return;
	char buf[512];
	polled_list(c, e, buf, sizeof(buf));
	e->evidence = lts_asprintf("meanwhile %s [/proc/locks]: if it retries that lock between sleeps (a "
				   "lock taken with F_SETLK or LOCK_NB, as SQLite's busy handler does), that "
				   "process is what it waits for (inferred: one snapshot cannot tell)", buf);
}

/* SQLite's lock bytes (its os_unix.c: PENDING_BYTE 0x40000000, then the
 * RESERVED byte and the 510 SHARED bytes): a POSIX or OFD lock starting
 * there is a database lock.  In WAL mode every connection keeps a SHARED
 * lock on the database, and a writer holds the WAL write lock instead,
 * byte 120 of the -shm file (WALINDEX_LOCK_OFFSET, its first lock). */
#define SQLITE_LOCK_FIRST 0x40000000ull
#define SQLITE_LOCK_LAST (SQLITE_LOCK_FIRST + 511)
#define SQLITE_WAL_WRITE_LOCK 120

/* What a busy SQLite connection of the process most probably waits for,
 * best first: another process's WAL write lock; another process's
 * PENDING, RESERVED or EXCLUSIVE lock (a writer); other processes' SHARED
 * locks when its own process holds a write lock on that database (its
 * commit waits for the readers); a lock of its own process (a connection
 * of another of its threads); other processes' SHARED locks alone (they
 * block only an EXCLUSIVE request: not known to be it).  Not in WAL mode's
 * database files (every connection keeps SHARED there). */
enum sq_rank { SQ_NONE = 0, SQ_OTHER_READ, SQ_OWN, SQ_READERS, SQ_OTHER_WRITE, SQ_WAL_WRITE };

struct sq_file {
	int fd;
	char *path;          /* its /proc/PID/fd link */
	dev_t dev;
	ino_t ino;
	bool shm, wal;       /* a -shm file; a database with one open beside */
	bool own_write, other_write, own_any, other_read, wal_other, wal_own;
	pid_t pids[8];
	size_t n_pids;
	struct lt_plock l;   /* the lock said */
};

static void sq_pid(struct sq_file *f, pid_t p)
{
	for (size_t i = 0; i < f->n_pids; i++)
		if (f->pids[i] == p)
			return;
	if (f->n_pids < 8)
		f->pids[f->n_pids++] = p;
}

/* L, a /proc/locks line, is a granted POSIX or OFD lock on F's file. */
static bool sq_lock_on(const struct lt_plock *l, const struct sq_file *f)
{
	return !l->blocked && (!strcmp(l->cls, "POSIX") || !strcmp(l->cls, "OFDLCK")) && l->ino == (uint64_t)f->ino &&
	       l->major == major(f->dev) && l->minor == minor(f->dev);
}

/* ... in SQLite's lock bytes of a database, or on the WAL write lock of a
 * -shm file. */
static bool sq_lock_bytes(const struct lt_plock *l, const struct sq_file *f)
{
	return f->shm ? l->start == SQLITE_WAL_WRITE_LOCK : l->start >= SQLITE_LOCK_FIRST && l->start <= SQLITE_LOCK_LAST;
}

static enum sq_rank sq_rank_of(const struct sq_file *f)
{
	if (f->shm)
		return f->wal_other ? SQ_WAL_WRITE : f->wal_own ? SQ_OWN : SQ_NONE;
	if (f->wal)
		return SQ_NONE;
	return f->other_write ? SQ_OTHER_WRITE : f->own_write && f->other_read ? SQ_READERS
	       : f->own_any ? SQ_OWN : f->other_read ? SQ_OTHER_READ : SQ_NONE;
}

/* The process's files with SQLite locks (at most 16), ranked; the best
 * into *P (path, fd, lock, its holders as *PIDS), *RANK, and how many
 * files share that rank (*TIES: more than one, which one it waits for is
 * not known).  False if none. */
static bool sqlite_locked(struct cctx *c, struct polled *p, pid_t *pids, size_t *n_pids, enum sq_rank *rank,
			  size_t *ties)
{
	read_locks(c);
	char dir[64];
	snprintf(dir, sizeof(dir), "/proc/%d/fd", (int)c->s->pid);
	DIR *d = c->locks ? opendir(dir) : NULL;
	struct dirent *de;
	struct sq_file f[16];
	size_t n = 0;
	pid_t self = c->s->pid;
	while (d && (de = readdir(d)) && n < 16) {
		char *end, fp[320];
		long fd = strtol(de->d_name, &end, 10);
		struct stat st;
		snprintf(fp, sizeof(fp), "%s/%s", dir, de->d_name);
		if (*end || de->d_name[0] == '.' || stat(fp, &st) || !S_ISREG(st.st_mode))
			continue;
		char *path = fd_path(self, (int)fd);
		size_t pl = path ? strlen(path) : 0;
		f[n] = (struct sq_file){ .fd = (int)fd, .path = path, .dev = st.st_dev, .ino = st.st_ino,
					 .shm = pl > 4 && !strcmp(path + pl - 4, "-shm") };
		char line[256];
		struct lt_plock l;
		bool ok, any = false;
		for (char *q = c->locks; plock_next(&q, &l, line, sizeof(line), &ok);) {
			if (!ok || !sq_lock_on(&l, &f[n]) || !sq_lock_bytes(&l, &f[n]))
				continue;
			bool mine = l.pid == self || l.pid <= 0; /* an OFD lock names no process: its own */
			bool write = !strcmp(l.type, "WRITE");
			if (f[n].shm) {
				if (!write)
					continue;
				if (mine)
					f[n].wal_own = true;
				else
					f[n].wal_other = true;
			} else {
				f[n].own_write |= mine && write;
				f[n].own_any |= mine;
				f[n].other_write |= !mine && write;
				f[n].other_read |= !mine && !write;
			}
			any = true;
		}
		if (any)
			n++;
		else
			free(path);
	}
	if (d)
		closedir(d);
	/* a database with its -shm open beside: WAL mode (by path) */
	for (size_t i = 0; i < n; i++) {
		const char *sp = f[i].shm ? f[i].path : NULL;
		for (size_t k = 0; sp && k < n; k++) {
			const char *dp = f[k].shm ? NULL : f[k].path;
			size_t dl = dp ? strlen(dp) : 0;
			if (dp && !strncmp(sp, dp, dl) && !strcmp(sp + dl, "-shm"))
				f[k].wal = true;
		}
	}
	enum sq_rank best = SQ_NONE;
	size_t bi = 0, nb = 0;
	for (size_t i = 0; i < n; i++) {
		enum sq_rank r = sq_rank_of(&f[i]);
		if (r > best) {
			best = r;
			bi = i;
			nb = 1;
		} else if (r == best && r != SQ_NONE) {
			nb++;
		}
	}
	/* the holders of what it waits for, in the best file */
	struct sq_file *b = best == SQ_NONE ? NULL : &f[bi];
	char line[256];
	struct lt_plock l;
	bool ok, said = false;
	for (char *q = b ? c->locks : NULL; plock_next(&q, &l, line, sizeof(line), &ok);) {
		if (!ok || !sq_lock_on(&l, b) || !sq_lock_bytes(&l, b))
			continue;
		bool mine = l.pid == self || l.pid <= 0, write = !strcmp(l.type, "WRITE");
		bool take = best == SQ_WAL_WRITE || best == SQ_OTHER_WRITE ? !mine && write
			    : best == SQ_READERS || best == SQ_OTHER_READ ? !mine && !write
			    : mine && (write || !b->shm);
		if (!take)
			continue;
		sq_pid(b, mine ? self : l.pid);
		if (!said) {
			b->l = l;
			said = true;
		}
	}
	if (said)
		*p = (struct polled){ b->fd, lts_strdup(b->path), b->l };
	for (size_t i = 0; i < n; i++)
		free(f[i].path);
	if (!said)
		return false;
	if (p->l.pid <= 0)
		p->l.pid = self;
	*n_pids = b->n_pids;
	memcpy(pids, b->pids, b->n_pids * sizeof(*pids));
	*rank = best;
	*ties = nb;
	return true;
}

/* Functions that sleep between tries of a file lock taken without waiting
 * (F_SETLK, LOCK_NB), and what they are, for the evidence. */
static const char *const retry_funcs[][2] = {
	{ "sqlite3InvokeBusyHandler", "SQLite's busy handler" },
	{ "sqliteDefaultBusyCallback", "SQLite's busy handler" },
};

/* A sleep whose stack is in a function that retries a file lock between
 * sleeps (retry_funcs), beside a file another process holds locked
 * (polled_read): a file-lock wait by polling, said from its stack, the
 * holders from /proc/locks. */
static void retry_edge(struct cctx *c, struct lt_thread *t)
{
	const char *fn = NULL, *what = NULL;
	for (size_t i = 0; i < t->n_frames && !fn; i++)
		for (size_t k = 0; t->frames[i].func && k < sizeof(retry_funcs) / sizeof(retry_funcs[0]); k++)
			if (!strcmp(t->frames[i].func, retry_funcs[k][0])) {
				fn = retry_funcs[k][0];
				what = retry_funcs[k][1];
			}
	if (!fn)
		return;
	/* SQLite's: the database it retries is the file locked in SQLite's
	 * lock bytes, perhaps by a connection of its own process; not any
	 * file another process locks (a file lock another of its threads
	 * waits for, say) */
	struct polled db = { -1, NULL, { 0 } };
	pid_t hp[8];
	size_t nh = 0, ties = 0;
	enum sq_rank rank = SQ_NONE;
	if (sqlite_locked(c, &db, hp, &nh, &rank, &ties)) {
		struct lt_wf_edge *e = lt_waitfor_add(t, c->s->pid, LT_WF_FILE_LOCK);
		if (e) {
			char rg[48], by[400];
			range_str(&db.l, rg, sizeof(rg));
			e->fd = db.fd;
			e->what = lts_asprintf("a lock on %s (fd %d), tried again between sleeps", db.path ? db.path : "?",
					       db.fd);
			for (size_t i = 0; i < nh; i++)
				add_pid(e, hp[i]);
			if (rank == SQ_OWN) {
				snprintf(by, sizeof(by), "by its own process (a connection of another of its threads, "
					 "which one is not recorded)");
			} else {
				size_t bl = (size_t)snprintf(by, sizeof(by), "by process%s", nh > 1 ? "es" : "");
				for (size_t i = 0; i < nh && bl < sizeof(by) - 16; i++)
					bl += (size_t)snprintf(by + bl, sizeof(by) - bl, "%s %d", i ? "," : "", (int)hp[i]);
			}
			static const char *const why[] = {
				[SQ_WAL_WRITE] = "the WAL write lock, byte 120 of the -shm file: a writer",
				[SQ_OTHER_WRITE] = "a write lock in SQLite's lock bytes: a writer",
				[SQ_READERS] = "SHARED locks in SQLite's lock bytes while its own process holds a write "
					       "lock there: the readers its commit waits for",
				[SQ_OWN] = "SQLite's lock bytes",
				[SQ_OTHER_READ] = "SHARED locks in SQLite's lock bytes, which hold back only a "
						  "connection that commits: that it is one is inferred",
			};
			e->evidence = lts_asprintf("its stack is in %s (%s), which sleeps and tries the lock again; "
						   "%s (fd %d) is locked %s (%s %s %s: %s) [/proc/locks]%s",
						   fn, what, db.path ? db.path : "?", db.fd, by, db.l.cls, db.l.type, rg,
						   why[rank], ties > 1 ? "; other databases it has open are locked as much: "
									 "which one it waits for is not known" : "");
		}
		free(db.path);
		return;
	}
	polled_read(c);
	if (!c->n_polled)
		return;
	const struct polled *p = &c->polled[0];
	struct lt_wf_edge *e = lt_waitfor_add(t, c->s->pid, LT_WF_FILE_LOCK);
	if (!e)
		return;
	e->fd = p->fd;
	e->what = lts_asprintf("a lock on %s (fd %d), tried again between sleeps", p->path ? p->path : "?", p->fd);
	char buf[512];
	polled_list(c, e, buf, sizeof(buf));
	e->evidence = lts_asprintf("its stack is in %s (%s), which sleeps and tries the lock again; %s "
				   "[/proc/locks]", fn, what, buf);
}

static char *fd_path(pid_t pid, int fd)
{
	char lp[64], tgt[4096];
	snprintf(lp, sizeof(lp), "/proc/%d/fd/%d", (int)pid, fd);
	ssize_t n = readlink(lp, tgt, sizeof(tgt) - 1);
	if (n <= 0)
		return NULL;
	tgt[n] = 0;
	return lts_strdup(tgt);
}

static void range_str(const struct lt_plock *l, char *buf, size_t len)
{
	if (!strcmp(l->cls, "FLOCK"))
		snprintf(buf, len, "whole file");
	else if (l->end == UINT64_MAX)
		snprintf(buf, len, "bytes %" PRIu64 " to EOF", l->start);
	else
		snprintf(buf, len, "bytes %" PRIu64 "-%" PRIu64, l->start, l->end);
}

/* The file offset of pid's fd (its fdinfo "pos:"), true if read. */
static bool fd_pos(pid_t pid, int fd, int64_t *pos)
{
	char path[64], buf[256];
	snprintf(path, sizeof(path), "/proc/%d/fdinfo/%d", (int)pid, fd);
	FILE *f = fopen(path, "re");
	bool ok = false;
	long long v;
	while (f && !ok && fgets(buf, sizeof(buf), f))
		ok = sscanf(buf, "pos: %lld", &v) == 1;
	if (f)
		fclose(f);
	if (ok)
		*pos = v;
	return ok;
}

/* The lock request of a blocked flock/fcntl, and the detail line. */
static bool file_lock_request(struct cctx *c, struct lt_thread *t, struct lt_plock *req)
{
	const uint64_t *a = t->sc.args;
	pid_t pid = c->s->pid;
	int fd = (int)a[0];
	char path[64];
	struct stat st;
	snprintf(path, sizeof(path), "/proc/%d/fd/%d", (int)pid, fd);
	memset(req, 0, sizeof(*req));
	req->pid = pid;
	req->end = UINT64_MAX;
	bool have_ino = stat(path, &st) == 0;
	if (have_ino) {
		req->major = major(st.st_dev);
		req->minor = minor(st.st_dev);
		req->ino = st.st_ino;
	}
	char *fp = fd_path(pid, fd);
	char *detail = NULL;
	bool blocking = false;
	if (t->sc.nr == 73) {
		unsigned op = (unsigned)a[1];
		char ob[32];
		lt_flock_op_str(op, ob, sizeof(ob));
		snprintf(req->cls, sizeof(req->cls), "FLOCK");
		snprintf(req->type, sizeof(req->type), "%s", (op & 2) ? "WRITE" : "READ");
		blocking = !(op & 4) && (op & 3);
		detail = lts_asprintf("flock(fd %d: %s, %s)", fd, fp ? fp : "?", ob);
	} else {
		const char *cmd = lt_fcntl_lock_cmd((unsigned)a[1]);
		if (!cmd) {
			free(fp);
			return false;
		}
		unsigned char raw[32];
		bool ok = c->mem && lt_mem_read(c->mem, a[2], raw, sizeof(raw)) == 0;
		char fb[128] = "struct flock unreadable";
		bool ofd = a[1] >= 36;
		snprintf(req->cls, sizeof(req->cls), "%s", ofd ? "OFDLCK" : "POSIX");
		if (ofd)
			req->pid = -1;
		if (ok) {
			lt_flock_struct_str(raw, fb, sizeof(fb));
			int16_t type, whence;
			int64_t start, len;
			memcpy(&type, raw, 2);
			memcpy(&whence, raw + 2, 2);
			memcpy(&start, raw + 8, 8);
			memcpy(&len, raw + 16, 8);
			snprintf(req->type, sizeof(req->type), "%s", type == 1 ? "WRITE" : "READ");
			/* SEEK_CUR and SEEK_END: from the fd's offset (fdinfo
			 * pos) and the file's size, as the kernel takes them */
			int64_t from = 0;
			bool known = whence == 0 || (whence == 1 && fd_pos(pid, fd, &from)) ||
				     (whence == 2 && have_ino && S_ISREG(st.st_mode) && ((from = st.st_size), true));
			if (known && whence != 0 && !__builtin_add_overflow(start, from, &start))
				whence = 0;
			if (whence == 0 && start >= 0) {
				req->start = (uint64_t)start;
				req->end = len > 0 ? (uint64_t)(start + len - 1) : len == 0 ? UINT64_MAX : (uint64_t)start;
				if (len < 0) {
					req->start = start + len >= 0 ? (uint64_t)(start + len) : 0;
					req->end = start > 0 ? (uint64_t)start - 1 : 0;
				}
			}
		} else {
			snprintf(req->type, sizeof(req->type), "WRITE");
		}
		blocking = a[1] == 7 || a[1] == 38;
		detail = lts_asprintf("fcntl(fd %d: %s, %s, %s)", fd, fp ? fp : "?", cmd, fb);
	}
	if (detail) {
		free(t->detail);
		t->detail = detail;
	}
	free(fp);
	return blocking && have_ino;
}

/* Process PID's signal dispositions (SigCgt, SigIgn of its status) and
 * the signals its thread TID blocks (SigBlk) into W, each with whether it
 * could be read. */
static void read_sig_state(pid_t pid, pid_t tid, struct lt_sigwait *w)
{
	char path[96], buf[4096];
	snprintf(path, sizeof(path), "/proc/%d/status", (int)pid);
	if (lts_read_small(path, buf, sizeof(buf)) > 0)
		w->disp_ok = !lt_status_sigmask(buf, "SigCgt:", &w->caught) &&
			     !lt_status_sigmask(buf, "SigIgn:", &w->ignored);
	snprintf(path, sizeof(path), "/proc/%d/task/%d/status", (int)pid, (int)tid);
	if (lts_read_small(path, buf, sizeof(buf)) > 0)
		w->blocked_ok = !lt_status_sigmask(buf, "SigBlk:", &w->blocked);
}

static bool sig_timer_edges(struct cctx *c, struct lt_thread *t, const struct lt_sigwait *w, bool signalfd,
			    uint64_t *sigs);

/* The timers whose signal can end T's wait (W, lt_sigwait_ends): each
 * POSIX timer of /proc/PID/timers that so signals it (sig_timer_edges),
 * and, with none for SIGALRM, SIGALRM caught and not blocked: an alarm()
 * or setitimer(ITIMER_REAL) timer may be armed, which /proc does not
 * show.  A timer edge each. */
static void timer_edges(struct cctx *c, struct lt_thread *t, const struct lt_sigwait *w)
{
	if (sig_timer_edges(c, t, w, false, NULL) || !w->disp_ok || !(w->caught & (1ULL << 13)) ||
	    lt_sigwait_ends(w, 14, NULL, 0) != LT_SIG_END_YES)
		return;
	struct lt_wf_edge *te = lt_waitfor_add(t, c->s->pid, LT_WF_TIMER);
	if (!te)
		return;
	te->what = lts_strdup(LT_WF_SIGTIMER "an alarm() or setitimer(ITIMER_REAL) timer (SIGALRM), if one is armed");
	te->evidence = lts_strdup("SIGALRM is caught (SigCgt) and not blocked (SigBlk); /proc does not show whether "
				  "such a timer is armed nor when it fires (the itrealvalue of /proc/PID/stat is "
				  "always 0): not known");
}

/* A file-lock wait (flock, F_SETLKW, F_OFD_SETLKW) sleeps
 * interruptibly: a caught signal the thread does not block ends the call
 * with EINTR unless its handler was installed with SA_RESTART (then the
 * call goes on), and one whose default action ends the process ends it
 * too.  A POSIX timer of /proc/PID/timers whose signal so ends it
 * (util-linux flock -w's SIGALRM timer) is a timer edge (sig_timer_edges);
 * SIGALRM caught and not blocked with no such timer: an alarm() or
 * setitimer(ITIMER_REAL) timer may be armed, which /proc does not show:
 * a timer edge that says so.  Whether a timer is armed, when it fires, and
 * whether the program then gives up or tries again, are not known. */
static void lock_timer_edges(struct cctx *c, struct lt_thread *t)
{
	pid_t pid = c->s->pid;
	struct lt_sigwait w = { .nr = t->sc.nr };
	char path[96];
	read_sig_state(pid, t->tid, &w);
	size_t n0 = t->wf ? t->wf->n_edges : 0;
	timer_edges(c, t, &w);
	/* util-linux flock(1) -w N (its executable named flock, its command
	 * line one it reads: lt_flock1_wait) arms its SIGALRM timer just
	 * before its flock() and exits when it fires (no SA_RESTART): while it
	 * waits in flock() the timer is armed, and fires at most N s after the
	 * thread last ran (it armed it before it slept): kept on that timer's
	 * edge as the application's own timeout, inferred, said so */
	const char *exe = c->s->exe, *base = exe ? strrchr(exe, '/') : NULL;
	struct lt_wf_edge *fe = NULL;
	size_t n_alrm = 0;
	for (size_t i = n0; t->wf && i < t->wf->n_edges; i++)
		if (strstr(t->wf->edges[i].what ? t->wf->edges[i].what : "", "POSIX timer") &&
		    strstr(t->wf->edges[i].what, "SIGALRM)")) {
			fe = &t->wf->edges[i];
			n_alrm++;
		}
	double fw = -1;
	if (n_alrm == 1 && t->sc.nr == 73 && base && !strcmp(base + 1, "flock")) {
		size_t len = 0;
		snprintf(path, sizeof(path), "/proc/%d/cmdline", (int)pid);
		char *cl = lts_read_all(path, &len);
		fw = cl ? lt_flock1_wait(cl, len) : -1;
		free(cl);
	}
	if (fw > 0) {
		snprintf(fe->timeout_what, sizeof(fe->timeout_what), "flock(1) -w");
		fe->timeout_s = fw;
		fe->timeout_left_s = t->idle_src == LT_IDLE_UNKNOWN ? -1 : fw > t->idle_s ? fw - t->idle_s : 0;
		/* its words: armed, not "if it is armed" */
		char *cut = fe->evidence ? strstr(fe->evidence, "; /proc/PID/timers lists") : NULL;
		if (cut)
			*cut = 0;
		char *ev = lts_asprintf("%s; /proc/PID/timers does not say whether it is armed nor when it fires: "
					"inferred from util-linux flock(1)'s way (its executable flock, its command line "
					"-w %g), which arms this timer before its flock() and exits when it fires (its "
					"handler without SA_RESTART): armed while flock(1) waits, it fires at most %g s "
					"after the thread last ran", fe->evidence ? fe->evidence : "", fw, fw);
		size_t wl = fe->what ? strlen(fe->what) : 0;
		const char *ifa = ", if it is armed";
		if (wl > strlen(ifa) && !strcmp(fe->what + wl - strlen(ifa), ifa))
			fe->what[wl - strlen(ifa)] = 0;
		char *wh = lts_asprintf("%s, armed by flock(1) -w %g (inferred)", fe->what ? fe->what : "?", fw);
		if (ev) {
			free(fe->evidence);
			fe->evidence = ev;
		}
		if (wh) {
			free(fe->what);
			fe->what = wh;
		}
	}
	for (size_t i = n0; t->wf && i < t->wf->n_edges; i++) {
		struct lt_wf_edge *te = &t->wf->edges[i];
		if (te == fe && fw > 0)
			continue;
		char *ev = lts_asprintf("%s; a caught signal interrupts the lock call (EINTR) unless its handler "
					"was installed with SA_RESTART, which /proc does not show, and the program may "
					"try again%s", te->evidence ? te->evidence : "",
					c->s->n_threads > 1 ? "; another thread that does not block the signal may "
							      "take it instead" : "");
		if (ev) {
			free(te->evidence);
			te->evidence = ev;
		}
	}
}

static void file_lock_edge(struct cctx *c, size_t ti, struct lt_thread *t)
{
	struct lt_plock req;
	if (!file_lock_request(c, t, &req))
		return;
	struct lt_wf_edge *e = lt_waitfor_add(t, c->s->pid, LT_WF_FILE_LOCK);
	if (!e)
		return;
	e->fd = (int)t->sc.args[0];
	char *fp = fd_path(c->s->pid, e->fd);
	char rb[64];
	range_str(&req, rb, sizeof(rb));
	e->what = lts_asprintf("%s %s lock on %s (%s, inode %02x:%02x:%" PRIu64 ")", req.cls, req.type,
			       fp ? fp : "?", rb, req.major, req.minor, req.ino);
	read_locks(c);
	if (!c->locks) {
		e->evidence = lts_asprintf("/proc/locks unreadable: %s", strerror(errno));
		free(fp);
		lock_timer_edges(c, t);
		return;
	}
	/* the waiter's own "->" entry names the lock it is queued behind */
	int blocker = -1;
	char bline[256] = "";
	struct lt_plock l;
	char line[256];
	bool ok;
	/* an OFD waiter's pid is -1 as every other's: its range and type
	 * tell it from another process's wait on the same file */
	bool ofd = !strcmp(req.cls, "OFDLCK");
	for (char *p = c->locks; plock_next(&p, &l, line, sizeof(line), &ok);)
		if (ok && l.blocked && l.ino == req.ino && l.major == req.major && l.minor == req.minor &&
		    l.pid == req.pid && !strcmp(l.cls, req.cls) &&
		    (!ofd || (l.start == req.start && l.end == req.end && !strcmp(l.type, req.type)))) {
			blocker = l.id;
			snprintf(bline, sizeof(bline), "%s", line);
			break;
		}
	char ev[1024];
	size_t el = 0;
	ev[0] = 0;
	if (blocker >= 0)
		el += (size_t)snprintf(ev, sizeof(ev), "/proc/locks: waiter \"%s\"", bline);
	else
		el += (size_t)snprintf(ev, sizeof(ev), "/proc/locks has no blocked entry of this process "
				       "for the inode (just granted?)");
	bool ofd_holder = false, flock_holder = false;
	for (char *p = c->locks; plock_next(&p, &l, line, sizeof(line), &ok);) {
		if (ok && !l.blocked && (l.id == blocker || lt_plock_conflicts(&l, &req))) {
			if (l.pid > 0)
				add_pid(e, l.pid);
			else
				ofd_holder = true;
			flock_holder |= !strcmp(l.cls, "FLOCK");
			char hr[64];
			range_str(&l, hr, sizeof(hr));
			if (el < sizeof(ev) - 100)
				el += (size_t)snprintf(ev + el, sizeof(ev) - el, "; holder \"%s\" (%s)", line, hr);
		}
	}
	/* An OFD lock has no pid; a flock lock's pid is the process that took
	 * it, but the lock belongs to the open file description, which every
	 * process that inherited the fd shares (flock(1)'s command; the locker
	 * may have exited): who has the file open and shows the lock in the
	 * fdinfo of that fd. */
	if (ofd_holder || flock_holder) {
		/* by the file's device and inode, not its path: the holder
		 * may have opened it through a hard link or a bind mount */
		struct want *x = want_file(c, ti, (size_t)(e - t->wf->edges), makedev(req.major, req.minor),
					   (unsigned long)req.ino, fp, 0);
		if (x)
			x->req = req;
	}
	e->evidence = lts_strdup(ev);
	free(fp);
	lock_timer_edges(c, t); /* e moves */
}

/* Does process P have the file DEV:INO open (by any path) with a granted
 * OFD or flock lock, shown in the fdinfo of that fd, that conflicts with
 * REQ? */
static bool fdinfo_holds(pid_t p, dev_t dev, unsigned long ino, const struct lt_plock *req)
{
	char dp[64];
	snprintf(dp, sizeof(dp), "/proc/%d/fd", (int)p);
	DIR *d = opendir(dp);
	bool holds = false;
	struct dirent *de;
	while (d && !holds && (de = readdir(d))) {
		if (de->d_name[0] == '.')
			continue;
		char lp[300], ip[300];
		struct stat st;
		snprintf(lp, sizeof(lp), "/proc/%d/fd/%s", (int)p, de->d_name);
		if (stat(lp, &st) || st.st_dev != dev || st.st_ino != ino)
			continue;
		snprintf(ip, sizeof(ip), "/proc/%d/fdinfo/%s", (int)p, de->d_name);
		char *txt = lts_read_all(ip, NULL);
		holds = lt_fdinfo_holds_lock(txt, req);
		free(txt);
	}
	if (d)
		closedir(d);
	return holds;
}

/* Holders of a lock on an open file description (OFD, flock): of the
 * processes that have the file open (the scan added each), those whose
 * fdinfo of that file shows a granted OFD or flock lock that conflicts with
 * REQ.  The first NAMED parties are those /proc/locks named: a record
 * lock's holder is kept (its locks are the process's); a flock's locker
 * only if it still holds the lock (it may have exited, or closed the file
 * after a fork, leaving the lock to the processes that share its open
 * file).  A locker left out is said; if nobody else is found it stays. */
static void ofd_filter(struct lt_wf_edge *e, const struct want *x)
{
	const char *path = x->path;
	const struct lt_plock *req = &x->req;
	size_t named = x->keep;
	pid_t keep[LT_WF_MAX_PIDS], left[4];
	size_t nk = 0, nl = 0;
	bool flock_ = !strcmp(req->cls, "FLOCK");
	for (size_t i = 0; i < e->n_pids; i++) {
		pid_t p = e->pids[i];
		bool dup = false;
		for (size_t k = 0; k < nk; k++)
			dup |= keep[k] == p;
		if (dup)
			continue;
		if (i < named && !flock_) {
			keep[nk++] = p;
			continue;
		}
		if (fdinfo_holds(p, x->dev, x->ino, req)) /* its own process too: such locks conflict between open files */
			keep[nk++] = p;
		else if (i < named && nl < 4)
			left[nl++] = p;
	}
	char gl[96] = "";
	size_t gll = 0;
	for (size_t k = 0; k < nl && gll < sizeof(gl) - 16; k++)
		gll += (size_t)snprintf(gl + gll, sizeof(gl) - gll, "%s%d", k ? ", " : "", (int)left[k]);
	bool others = nk > 0;
	if (!others) /* nobody else found (permissions?): the locker is all there is to say */
		for (size_t k = 0; k < nl; k++)
			keep[nk++] = left[k];
	memcpy(e->pids, keep, nk * sizeof(*keep));
	e->n_pids = nk;
	char *ev = lts_asprintf("%s; holders of the lock on the open file from /proc/PID/fdinfo \"lock:\" lines "
				"of the processes that have %s open (by any path: its device and inode)%s%s%s",
				e->evidence ? e->evidence : "", path,
				nl ? "; the locker /proc/locks names (" : "", gl,
				!nl ? "" : others ? ") has exited or closed the file: the processes that share "
						    "its open file keep the lock"
						  : ") does not show the lock in its fdinfo (exited? permissions?)");
	free(e->evidence);
	e->evidence = ev;
}

/* ---- fds ---- */

static void read_net(struct cctx *c)
{
	if (c->net_read)
		return;
	c->net_read = true;
	static const char *const f[] = { "unix" };
	for (int i = 0; i < 1; i++) {
		char p[64];
		snprintf(p, sizeof(p), "/proc/%d/net/%s", (int)c->s->pid, f[i]);
		c->net[i] = lts_read_all(p, NULL);
	}
}

/* The line of INO in a /proc/net text, copied; false if absent. */
static bool net_line(const char *text, unsigned long ino, bool unix_, char *out, size_t len)
{
	if (!text)
		return false;
	for (const char *p = strchr(text, '\n'); p && *++p;) {
		unsigned long i = 0;
		const char *eol = strchr(p, '\n');
		if (unix_)
			sscanf(p, "%*s %*x %*x %*x %*x %*x %lu", &i);
		else
			sscanf(p, " %*s %*s %*s %*x %*s %*s %*s %*u %*u %lu", &i);
		if (i == ino) {
			size_t n = eol ? (size_t)(eol - p) : strlen(p);
			snprintf(out, len, "%.*s", (int)(n < len ? n : len - 1), p);
			return true;
		}
		p = eol;
	}
	return false;
}

/* A NETLINK_SOCK_DIAG socket that sent a unix_diag request (FLAGS:
 * NLM_F_DUMP or not; STATES, INO, SHOW as unix_diag_req has them), its
 * replies to be read within a second: the socket, or -errno. */
static int unix_diag_ask(uint16_t flags, uint32_t states, uint32_t ino, uint32_t show)
{
	int s = socket(AF_NETLINK, SOCK_DGRAM | SOCK_CLOEXEC, NETLINK_SOCK_DIAG);
	if (s < 0)
		return -errno;
	struct {
		struct nlmsghdr h;
		struct unix_diag_req r;
	} req = { 0 };
	req.h.nlmsg_len = sizeof(req);
	req.h.nlmsg_type = SOCK_DIAG_BY_FAMILY;
	req.h.nlmsg_flags = NLM_F_REQUEST | flags;
	req.r.sdiag_family = AF_UNIX;
	req.r.udiag_states = states;
	req.r.udiag_ino = ino;
	req.r.udiag_show = show;
	if (!(flags & NLM_F_DUMP))
		req.r.udiag_cookie[0] = req.r.udiag_cookie[1] = ~0u;
	struct timeval tv = { 1, 0 };
	setsockopt(s, SOL_SOCKET, SO_RCVTIMEO, &tv, sizeof(tv));
	if (send(s, &req, sizeof(req), 0) < 0) {
		int e = errno;
		close(s);
		return -e;
	}
	return s;
}

static int unix_peer(unsigned long ino, uint32_t *peer)
{
	int s = unix_diag_ask(0, ~0u, (uint32_t)ino, UDIAG_SHOW_PEER);
	if (s < 0)
		return s;
	long buf[1024];
	ssize_t n = recv(s, buf, sizeof(buf), 0);
	int e = errno;
	close(s);
	if (n < 0)
		return -e;
	uint32_t got;
	if (lt_parse_unix_diag(buf, (size_t)n, &got, peer) || got != ino)
		return -ENOENT;
	return 0;
}

/* The unix socket bound to the file DEV:INO (a socket file's identity):
 * a listener (LISTENING), else a datagram socket; a NETLINK_SOCK_DIAG dump
 * with their VFS inode.  0 and *OUT, or -errno (-ENOENT none). */
static int unix_bound_by_vfs(dev_t dev, ino_t ino, bool listening, uint32_t *out)
{
	int s = unix_diag_ask(NLM_F_DUMP, listening ? 1u << 10 /* TCP_LISTEN */ : ~0u, 0, UDIAG_SHOW_VFS);
	if (s < 0)
		return s;
	/* the kernel's dev_t: major << 20 | minor */
	uint32_t kdev = (uint32_t)(major(dev) << 20 | (minor(dev) & 0xfffff));
	int r = -ENOENT;
	for (int rounds = 0; rounds < 10000; rounds++) {
		long buf[2048];
		ssize_t n = recv(s, buf, sizeof(buf), 0);
		if (n <= 0) {
			r = n < 0 ? -errno : -ENOENT;
			break;
		}
		int got = lt_unix_diag_find_vfs(buf, (size_t)n, kdev, (uint64_t)ino, listening ? 0 : SOCK_DGRAM, out);
		if (got == 1)
			r = 0;
		if (got != 0)
			break;
	}
	close(s);
	return r;
}

/* A socket of /proc/PID/net/unix text whose path column is NAME ("@name"
 * abstract), listening (LISTENING) or else of the datagram type: its
 * inode, 0 none. */
static unsigned long unix_bound_by_name(const char *text, const char *name, bool listening)
{
	for (const char *p = text ? strchr(text, '\n') : NULL; p && *++p; p = strchr(p, '\n')) {
		unsigned flags = 0, type = 0;
		unsigned long ino = 0;
		int off = 0;
		if (sscanf(p, "%*s %*x %*x %x %x %*x %lu %n", &flags, &type, &ino, &off) < 3 || !off ||
		    (listening ? !(flags & 0x10000) : type != SOCK_DGRAM))
			continue;
		const char *eol = strchr(p + off, '\n');
		size_t l = eol ? (size_t)(eol - (p + off)) : strlen(p + off);
		if (l == strlen(name) && !memcmp(p + off, name, l))
			return ino;
	}
	return 0;
}

/* The unix socket bound to the address a call of thread T names, ALEN
 * bytes at ADDR of its memory: the listener a connect() waits for
 * (LISTENING), else the datagram socket a send is addressed to.  It is the
 * socket bound to that path's file (its device and inode, resolved in the
 * thread's root and cwd; sock_diag), else the one /proc/PID/net/unix lists
 * under that name.  Its inode, 0 none; NAME the address as /proc/net/unix
 * shows it ('@' abstract), "" when unreadable or not AF_UNIX (*HOW says
 * which); *HOW how the socket was found. */
static uint32_t unix_bound_at(struct cctx *c, const struct lt_thread *t, uint64_t addr, size_t alen, bool listening,
			      char name[110], bool *abstract, const char **how)
{
	unsigned char sa[110]; /* struct sockaddr_un */
	if (alen > sizeof(sa))
		alen = sizeof(sa);
	memset(sa, 0, sizeof(sa));
	uint16_t fam = 0;
	bool ok = c->mem && addr && alen > 2 && lt_mem_read(c->mem, addr, sa, alen) == 0;
	if (ok)
		memcpy(&fam, sa, 2);
	name[0] = 0;
	*abstract = false;
	if (!ok || fam != AF_UNIX) {
		*how = !ok ? "could not be read from the process's memory" : "is not AF_UNIX";
		return 0;
	}
	*abstract = sa[2] == 0;
	size_t nl = 0;
	if (*abstract) { /* as /proc/net/unix shows it: '@', NULs as '@' */
		name[nl++] = '@';
		for (size_t i = 3; i < alen && nl < 109; i++)
			name[nl++] = sa[i] ? (char)sa[i] : '@';
	} else {
		for (size_t i = 2; i < alen && sa[i] && nl < 109; i++)
			name[nl++] = (char)sa[i];
	}
	name[nl] = 0;
	uint32_t ino = 0;
	*how = NULL;
	if (!*abstract) {
		char rp[4096];
		struct stat st;
		snprintf(rp, sizeof(rp), "/proc/%d/task/%d/%s/%s", (int)c->s->pid, (int)t->tid,
			 name[0] == '/' ? "root" : "cwd", name[0] == '/' ? name + 1 : name);
		if (stat(rp, &st) == 0 && S_ISSOCK(st.st_mode) && unix_bound_by_vfs(st.st_dev, st.st_ino, listening, &ino) == 0)
			*how = listening ? "the listening socket bound to that file (its device and inode) from "
					   "NETLINK_SOCK_DIAG UDIAG_SHOW_VFS"
					 : "the datagram socket bound to that file (its device and inode) from "
					   "NETLINK_SOCK_DIAG UDIAG_SHOW_VFS";
	}
	if (!ino) {
		read_net(c);
		ino = (uint32_t)unix_bound_by_name(c->net[0], name, listening);
		if (ino)
			*how = listening ? "the socket listening on that name in the process's /proc/PID/net/unix"
					 : "the datagram socket bound to that name in the process's /proc/PID/net/unix";
	}
	return ino;
}

/* Thread T in connect() on unix socket FD (TGT its link), not connected:
 * it waits for the listener to accept (a full backlog).  The address is
 * read from its memory (unix_bound_at); the listener's holders end the
 * wait as a peer's would. */
static void unix_connect_edge(struct cctx *c, size_t ti, struct lt_thread *t, int fd, const char *tgt)
{
	pid_t pid = c->s->pid;
	struct lt_wf_edge *e = lt_waitfor_add(t, pid, LT_WF_UNKNOWN);
	if (!e)
		return;
	e->fd = fd;
	char name[110];
	bool abstract;
	const char *how;
	uint32_t lino = unix_bound_at(c, t, t->sc.args[1], (size_t)t->sc.args[2], true, name, &abstract, &how);
	if (!name[0]) {
		e->what = lts_asprintf("unix socket %s (fd %d), connecting", tgt, fd);
		e->evidence = lts_asprintf("connect() waits for a listener to accept; its address %s", how);
		return;
	}
	e->what = lts_asprintf("unix socket %s (fd %d), connecting to %s%s", tgt, fd, name,
			       abstract ? " (abstract)" : "");
	if (!lino) {
		e->evidence = lts_asprintf("connect() waits for a listener to accept, but no socket listening on "
					   "%s was found (another network namespace? it may yet listen)", name);
		return;
	}
	e->kind = LT_WF_SOCKET;
	free(e->what);
	e->what = lts_asprintf("unix socket %s (fd %d), connecting to %s%s: listener socket:[%u]", tgt, fd, name,
			       abstract ? " (abstract)" : "", lino);
	e->evidence = lts_asprintf("connect() waits until the listener accepts (its backlog is full): %s; its "
				   "holders from /proc/*/fd", how);
	want(c, ti, t->wf->n_edges - 1, lino, NULL, 0);
}

/* The destination address of thread T's sendto (its 5th and 6th
 * arguments) or sendmsg (its struct msghdr's msg_name and msg_namelen, read
 * from its memory) into *ADDR and *LEN; false for none or another call. */
static bool send_dest(struct cctx *c, const struct lt_thread *t, uint64_t *addr, size_t *len)
{
	const uint64_t *a = t->sc.args;
	if (t->sc.nr == 44) {
		*addr = a[4];
		*len = (size_t)(uint32_t)a[5];
	} else if (t->sc.nr == 46) {
		unsigned char mh[12]; /* struct msghdr: void *msg_name; socklen_t msg_namelen */
		if (!c->mem || !a[1] || lt_mem_read(c->mem, a[1], mh, sizeof(mh)))
			return false;
		uint32_t l;
		memcpy(addr, mh, 8);
		memcpy(&l, mh + 8, 4);
		*len = l;
	} else {
		return false;
	}
	return *addr && *len > 2;
}

/* Thread T in sendto or sendmsg on a unix datagram socket FD (TGT its
 * link) with a destination (DEST, LEN): asleep in unix_wait_for_peer, it
 * waits for room in the receiving socket's queue (sd_notify's, a
 * logger's): an edge to that socket, bound to the address; its holders
 * end the wait by reading, as a peer's would.  Asleep for its own send
 * buffer (sock_alloc_send_pskb), which datagrams it sent before and still
 * queued at any receiver hold: a party not known.  False, nothing added,
 * when the address is not a unix socket's that could be read. */
static bool unix_send_edge(struct cctx *c, size_t ti, struct lt_thread *t, int fd, const char *tgt, uint64_t dest,
			   size_t len)
{
	char name[110];
	bool abstract;
	const char *how;
	uint32_t ino = unix_bound_at(c, t, dest, len, false, name, &abstract, &how);
	if (!name[0])
		return false;
	struct lt_wf_edge *e = lt_waitfor_add(t, c->s->pid, ino ? LT_WF_SOCKET : LT_WF_UNKNOWN);
	if (!e)
		return false;
	e->fd = fd;
	if (!ino) {
		e->what = lts_asprintf("unix datagram socket %s (fd %d), sending to %s%s", tgt, fd, name,
				       abstract ? " (abstract)" : "");
		e->evidence = lts_asprintf("a datagram send waits for room in the receiver's queue, but no "
					   "datagram socket bound to %s was found (another network namespace?)", name);
		return true;
	}
	bool peer_full = lt_kstack_has(t, "unix_wait_for_peer"), own_full = lt_kstack_has(t, "sock_alloc_send_pskb");
	if (own_full || (t->kstack_status == LT_KSTACK_OK && !peer_full)) {
		e->kind = LT_WF_UNKNOWN;
		e->what = lts_asprintf("unix datagram socket %s (fd %d), sending to %s%s: %s", tgt, fd, name,
				       abstract ? " (abstract)" : "", own_full ? "its own send buffer full" : "asleep");
		e->evidence = lts_strdup(own_full ? "asleep in sock_alloc_send_pskb: the datagrams it sent before, still "
						    "queued at whichever sockets they went to, hold its send buffer; a "
						    "read of any of them ends it (not followed)"
						  : "its kernel stack shows no wait for the receiver's queue "
						    "(unix_wait_for_peer): why it sleeps is not known");
		return true;
	}
	e->what = lts_asprintf("unix datagram socket %s (fd %d), sending to %s%s: socket:[%u]", tgt, fd, name,
			       abstract ? " (abstract)" : "", ino);
	e->evidence = lts_asprintf("a datagram send waits for room in the receiving socket's queue%s: %s (the "
				   "address from the call's arguments); its holders from /proc/*/fd",
				   peer_full ? " (unix_wait_for_peer)" : ", inferred (its kernel stack not read)", how);
	want(c, ti, t->wf->n_edges - 1, ino, NULL, 0);
	return true;
}

/* DIR: 1 the thread waits to read (the other end must write), 2 to write
 * (the other end must read), 3 either. */
static void fd_edge_new(struct cctx *c, size_t ti, struct lt_thread *t, int fd, int dir, bool in_poll);

/* Threads waiting on one fd (a pool reading one socket) share its
 * resolution: copied from the first, with its own want. */
static void fd_edge(struct cctx *c, size_t ti, struct lt_thread *t, int fd, int dir, bool in_poll)
{
	pid_t pid = c->s->pid;
	for (size_t m = 0; m < c->n_memo; m++) {
		const struct memo *x = &c->memo[m];
		if (x->fd != fd || x->dir != dir || x->in_poll != in_poll)
			continue;
		const struct lt_wf_edge *src = &c->s->threads[x->ti].wf->edges[x->ei];
		enum lt_wf_kind kind = src->kind;
		char *what = lts_strdup(src->what), *ev = lts_strdup(src->evidence);
		enum lt_wf_pstate ps = src->pstate;
		struct lt_wf_edge *e = lt_waitfor_add(t, pid, kind); /* may move src */
		if (!e) {
			free(what);
			free(ev);
			return;
		}
		e->fd = fd;
		e->what = what;
		e->evidence = ev;
		e->pstate = ps;
		if (x->want >= 0) {
			unsigned long ino = c->wants[x->want].ino;
			char *path = lts_strdup(c->wants[x->want].path);
			int mode = c->wants[x->want].mode;
			char *key = lts_strdup(c->wants[x->want].key);
			bool by_id = c->wants[x->want].by_id;
			dev_t dev = c->wants[x->want].dev;
			if (key)
				want_key(c, ti, t->wf->n_edges - 1, path, key, mode);
			else if (by_id)
				want_file(c, ti, t->wf->n_edges - 1, dev, ino, path, mode);
			else
				want(c, ti, t->wf->n_edges - 1, ino, path, mode);
			free(path);
			free(key);
		}
		return;
	}
	size_t ne0 = t->wf ? t->wf->n_edges : 0, nw0 = c->n_wants;
	c->no_memo = false;
	fd_edge_new(c, ti, t, fd, dir, in_poll);
	if (!t->wf || t->wf->n_edges == ne0 || c->no_memo)
		return;
	struct memo *nm = realloc(c->memo, (c->n_memo + 1) * sizeof(*nm));
	if (!nm)
		return;
	c->memo = nm;
	c->memo[c->n_memo++] = (struct memo){ fd, dir, in_poll, ti, ne0, c->n_wants > nw0 ? (long)nw0 : -1 };
}

/* A read (dir 1) or write (dir 2) edge on fd, whose parties are the fds
 * linking to TGT whose fdinfo has the line KEY, open in MODE (0 any). */
static void holders_edge(struct cctx *c, size_t ti, struct lt_thread *t, int fd, int dir, const char *tgt,
			 const char *key, int mode, char *what, char *evidence)
{
	struct lt_wf_edge *e = lt_waitfor_add(t, c->s->pid, dir == 2 ? LT_WF_PIPE_WRITE : LT_WF_PIPE_READ);
	if (!e) {
		free(what);
		free(evidence);
		return;
	}
	e->fd = fd;
	e->what = what;
	e->evidence = evidence;
	want_key(c, ti, t->wf->n_edges - 1, tgt, key, mode);
}

/* An fd that is neither a pipe nor a socket (TGT its link).  Read (dir 1)
 * or written (dir 2) outside a poll, or polled for reading: an eventfd,
 * whose holders can write it (found by the eventfd-id of their fdinfo, as
 * every eventfd links to the same anonymous inode; an event loop's own
 * wake-up when only its process holds it); a POSIX message queue, whose
 * holders open for writing (reading) can end a receive (send).  Read or
 * polled: a timerfd, its timer; another anonymous inode (signalfd,
 * inotify, an eventfd polled for writing, ...) or, polled, another kind
 * of fd, a party not known.
 * Nothing for a file or a device read: the disk ends it. */
static bool signalfd_edges(struct cctx *c, struct lt_thread *t, int fd, const char *info);
static bool pidfd_edge(struct cctx *c, struct lt_thread *t, int fd);

static void objfd_edge(struct cctx *c, size_t ti, struct lt_thread *t, int fd, int dir, const char *tgt,
		       bool in_poll)
{
	pid_t pid = c->s->pid;
	bool anon = !strncmp(tgt, "anon_inode:", 11);
	char ip[64], info[1024];
	snprintf(ip, sizeof(ip), "/proc/%d/fdinfo/%d", (int)pid, fd);
	const char *id;
	if ((in_poll ? dir == 1 : dir != 3) && !strcmp(tgt, "anon_inode:[eventfd]") &&
	    lts_read_small(ip, info, sizeof(info)) >= 0 && (id = strstr(info, "eventfd-id:"))) {
		char key[64];
		snprintf(key, sizeof(key), "eventfd-id: %ld", strtol(id + 11, NULL, 10));
		holders_edge(c, ti, t, fd, dir, tgt, key, 0, lts_asprintf("eventfd (eventfd-id %s, fd %d)", key + 12, fd),
			     lts_asprintf("the processes that hold it (any can %s it) from /proc/*/fd and the "
					  "eventfd-id of their fdinfo", dir == 2 ? "read" : "write"));
		return;
	}
	/* a signalfd read, or polled for reading: its children, when their
	 * SIGCHLD is in its mask; its other signals, anyone */
	if ((in_poll ? (dir & 1) : dir != 2) && !strcmp(tgt, "anon_inode:[signalfd]") &&
	    lts_read_small(ip, info, sizeof(info)) >= 0 && signalfd_edges(c, t, fd, info))
		return;
	/* a pidfd polled for reading: readable once its process exits; of a
	 * child (asyncio's loop since 3.12 polls its subprocess's), a child
	 * edge followed as a wait4's */
	if (in_poll && (dir & 1) && (!strcmp(tgt, "anon_inode:[pidfd]") || !strncmp(tgt, "pidfd:", 6)) &&
	    pidfd_edge(c, t, fd))
		return;
	if (anon || (in_poll && tgt[0] != '/')) {
		bool timer = anon && strstr(tgt, "timerfd");
		struct lt_wf_edge *e = lt_waitfor_add(t, pid, timer ? LT_WF_TIMER : LT_WF_UNKNOWN);
		if (!e)
			return;
		e->fd = fd;
		e->what = lts_asprintf("%s (fd %d)", tgt, fd);
		if (!timer)
			e->evidence = lts_strdup(strstr(tgt, "signalfd") ? "a signal sent to the process"
						 : strstr(tgt, "inotify") ? "a change to a watched file"
						 : "whoever writes or signals it (not followed)");
		return;
	}
	struct statfs sf;
	char lp[64];
	const char *ino;
	snprintf(lp, sizeof(lp), "/proc/%d/fd/%d", (int)pid, fd);
	if (!in_poll && dir != 3 && tgt[0] == '/' && statfs(lp, &sf) == 0 &&
	    sf.f_type == 0x19800202 /* MQUEUE_MAGIC */ && lts_read_small(ip, info, sizeof(info)) >= 0 &&
	    (ino = strstr(info, "ino:\t"))) {
		char key[64];
		snprintf(key, sizeof(key), "ino:\t%lu", strtoul(ino + 5, NULL, 10));
		holders_edge(c, ti, t, fd, dir, tgt, key, dir == 2 ? 2 : 1,
			     lts_asprintf("message queue %s (fd %d)", tgt, fd),
			     lts_asprintf("the processes that have it open for %s from /proc/*/fd and fdinfo "
					  "(a process may yet open it by name)", dir == 2 ? "reading" : "writing"));
	}
}

/* A pseudo-terminal's end, read or written (or polled so): its other end's
 * holders can end the wait, as a pipe's.  A master (/dev/ptmx, whose
 * fdinfo names its slave by "tty-index:"): the processes that hold the
 * slave /dev/pts/N open for writing (reading), found by the slave's device
 * and inode as the target's root sees /dev/pts/N (another mount's path to
 * it too); the line discipline also echoes into the master what is
 * written to it, which only the master's holders write.  A slave
 * /dev/pts/N: the processes that hold a /dev/ptmx whose tty-index is N
 * (matched by the index: a master of another devpts instance with that
 * index would be taken for it).  /dev/tty and a real terminal: none (no
 * process writes a real terminal's input).  True when it added the edge. */
static bool pty_edge(struct cctx *c, size_t ti, struct lt_thread *t, int fd, int dir, const char *tgt, bool in_poll)
{
	pid_t pid = c->s->pid;
	if (!in_poll && dir == 3)
		return false;
	bool wr = dir == 2; /* the thread writes: the other end must read */
	int mode = wr ? 2 : 1, idx = -1;
	char ip[64], info[1024], slave[64];
	if (!strcmp(tgt, "/dev/ptmx") || !strcmp(tgt, "/dev/pts/ptmx")) {
		snprintf(ip, sizeof(ip), "/proc/%d/fdinfo/%d", (int)pid, fd);
		if (lts_read_small(ip, info, sizeof(info)) < 0 || lt_fdinfo_tty_index(info, &idx))
			return false;
		snprintf(slave, sizeof(slave), "/dev/pts/%d", idx);
		struct lt_wf_edge *e = lt_waitfor_add(t, pid, wr ? LT_WF_PIPE_WRITE : LT_WF_PIPE_READ);
		if (!e)
			return true;
		e->fd = fd;
		e->what = lts_asprintf("pty master %s (fd %d) of %s", tgt, fd, slave);
		e->evidence = lts_asprintf("the processes that hold its slave %s open for %s (tty-index %d of its "
					   "fdinfo; the slave by device and inode from /proc/*/fd)%s", slave,
					   wr ? "reading" : "writing", idx,
					   wr ? "" : "; the line discipline also echoes into it input written to the "
						     "master, which only the master's holders write");
		char rp[96];
		struct stat st;
		snprintf(rp, sizeof(rp), "/proc/%d/root/dev/pts/%d", (int)pid, idx);
		if (stat(rp, &st) == 0 && S_ISCHR(st.st_mode))
			want_file(c, ti, t->wf->n_edges - 1, st.st_dev, st.st_ino, slave, mode);
		else
			want(c, ti, t->wf->n_edges - 1, 0, slave, mode);
		return true;
	}
	char lp[64], rest;
	struct stat st;
	snprintf(lp, sizeof(lp), "/proc/%d/fd/%d", (int)pid, fd);
	/* a Unix98 pty slave: major 136-143 */
	if (sscanf(tgt, "/dev/pts/%d%c", &idx, &rest) != 1 || stat(lp, &st) || !S_ISCHR(st.st_mode) ||
	    major(st.st_rdev) < 136 || major(st.st_rdev) > 143)
		return false;
	char key[32];
	snprintf(key, sizeof(key), "tty-index:\t%d", idx);
	holders_edge(c, ti, t, fd, dir == 2 ? 2 : 1, "/dev/ptmx", key, mode,
		     lts_asprintf("pty slave %s (fd %d)", tgt, fd),
		     lts_asprintf("the processes that hold its master /dev/ptmx open for %s (tty-index %d in "
				  "the master's fdinfo, from /proc/*/fd; matched by index)", wr ? "reading" : "writing",
				  idx));
	return true;
}

static void fd_edge_new(struct cctx *c, size_t ti, struct lt_thread *t, int fd, int dir, bool in_poll)
{
	pid_t pid = c->s->pid;
	char lp[64], tgt[4096];
	snprintf(lp, sizeof(lp), "/proc/%d/fd/%d", (int)pid, fd);
	ssize_t n = readlink(lp, tgt, sizeof(tgt) - 1);
	if (n <= 0)
		return;
	tgt[n] = 0;
	unsigned long ino;
	struct stat st;
	if (sscanf(tgt, "pipe:[%lu]", &ino) == 1 ||
	    (tgt[0] == '/' && stat(lp, &st) == 0 && S_ISFIFO(st.st_mode))) {
		bool fifo = tgt[0] == '/';
		int ends = dir == 2 ? 2 : 1; /* a reader needs writers: mode bit 1 */
		struct lt_wf_edge *e = lt_waitfor_add(t, pid, dir == 2 ? LT_WF_PIPE_WRITE : LT_WF_PIPE_READ);
		if (!e)
			return;
		e->fd = fd;
		e->what = lts_asprintf("%s %s (fd %d)", fifo ? "FIFO" : "pipe", tgt, fd);
		e->evidence = lts_asprintf("holders of its %s end from /proc/*/fd and fdinfo flags",
					   ends == 1 ? "write" : "read");
		if (fifo) /* by identity: opened through another link or mount too */
			want_file(c, ti, t->wf->n_edges - 1, st.st_dev, st.st_ino, tgt, ends);
		else
			want(c, ti, t->wf->n_edges - 1, ino, NULL, ends);
		return;
	}
	if (sscanf(tgt, "socket:[%lu]", &ino) == 1) {
		read_net(c);
		char line[512];
		if (net_line(c->net[0], ino, true, line, sizeof(line))) {
			unsigned flags = 0;
			sscanf(line, "%*s %*x %*x %x", &flags);
			if (flags & 0x10000) {
				struct lt_wf_edge *e = lt_waitfor_add(t, pid, LT_WF_LISTEN);
				if (e) {
					e->fd = fd;
					e->what = lts_asprintf("listening unix socket %s (fd %d)", tgt, fd);
					e->pstate = LT_WFP_EVENTS;
				}
				return;
			}
			if (t->sc.nr == 42 && !in_poll) { /* connect() */
				unix_connect_edge(c, ti, t, fd, tgt);
				return;
			}
			unsigned type = 0;
			sscanf(line, "%*s %*x %*x %*x %x", &type);
			uint32_t peer = 0;
			/* a datagram send that names its destination goes there,
			 * connected or not */
			uint64_t dest;
			size_t dlen;
			if (type == SOCK_DGRAM && !in_poll && send_dest(c, t, &dest, &dlen) &&
			    unix_send_edge(c, ti, t, fd, tgt, dest, dlen))
				return;
			int r = unix_peer(ino, &peer);
			struct lt_wf_edge *e = lt_waitfor_add(t, pid, peer ? LT_WF_SOCKET : LT_WF_UNKNOWN);
			if (!e)
				return;
			e->fd = fd;
			if (r == 0 && peer) {
				e->what = lts_asprintf("unix socket %s (fd %d), peer socket:[%u]", tgt, fd, peer);
				e->evidence = lts_asprintf("peer from NETLINK_SOCK_DIAG UNIX_DIAG_PEER; its "
							   "holders from /proc/*/fd");
				want(c, ti, t->wf->n_edges - 1, peer, NULL, 0);
			} else {
				e->what = lts_asprintf("unix socket %s (fd %d)", tgt, fd);
				e->evidence = r ? lts_asprintf("sock_diag could not find it (%s): another network "
							       "namespace?", strerror(-r))
						: type == 2 ? lts_strdup("no peer (unconnected datagram socket: any sender)")
						: lts_asprintf("no peer (a %s socket not connected: whoever "
							       "connects to it, if it listens, or nothing)",
							       type == 5 ? "seqpacket" : "stream");
			}
			return;
		}
		if (!c->inet_read) {
			c->inet_read = true;
			lt_inet_load(pid, &c->inet); /* empty if unreadable: said on the edge */
		}
		const struct lt_inet_sock *me = lt_inet_find(&c->inet, (uint32_t)ino);
		if (!me) {
			if (!in_poll) {
				struct lt_wf_edge *e = lt_waitfor_add(t, pid, LT_WF_UNKNOWN);
				if (e) {
					e->fd = fd;
					e->what = lts_asprintf("%s (fd %d)", tgt, fd);
					e->evidence = lts_asprintf("not a unix, tcp or udp socket of the target's "
								   "network namespace (netlink, raw, ...; looked "
								   "up in %s): any sender", c->inet.source ?
								   c->inet.source : "?");
				}
			}
			return;
		}
		bool udp = me->proto == IPPROTO_UDP;
		const char *proto = udp ? "udp" : "tcp";
		char lb[80], rb[80];
		lt_inet_addr_str(me, false, lb, sizeof(lb));
		lt_inet_addr_str(me, true, rb, sizeof(rb));
		char src[256];
		snprintf(src, sizeof(src), "%s%s%s%s", c->inet.source, c->inet.why[0] ? " (" : "", c->inet.why,
			 c->inet.why[0] ? ")" : "");
		if (!udp && me->state == 10) {
			struct lt_wf_edge *e = lt_waitfor_add(t, pid, LT_WF_LISTEN);
			if (e) {
				e->fd = fd;
				e->what = lts_asprintf("listening tcp socket %s (fd %d)", lb, fd);
				e->evidence = lts_asprintf("nothing to accept: idle until a client connects "
							   "(state LISTEN in %s)", src);
				e->pstate = LT_WFP_EVENTS;
			}
			return;
		}
		if (udp && !me->dport) {
			struct lt_wf_edge *e = lt_waitfor_add(t, pid, LT_WF_UNKNOWN);
			if (e) {
				e->fd = fd;
				e->what = lts_asprintf("udp socket %s, unconnected (fd %d)", lb, fd);
				e->evidence = lts_strdup("no peer (unconnected datagram socket: any sender)");
			}
			return;
		}
		/* a connect() not yet accepted (SYN_SENT: the listener's backlog
		 * is full, or its SYN went unanswered): the listener's
		 * processes end it, as a peer's would */
		const struct lt_inet_sock *lis = !udp && me->state == 2 ? lt_inet_listener(&c->inet, me) : NULL;
		if (lis) {
			char ab[80];
			lt_inet_addr_str(lis, false, ab, sizeof(ab));
			struct lt_wf_edge *e = lt_waitfor_add(t, pid, LT_WF_SOCKET);
			if (!e)
				return;
			e->fd = fd;
			e->what = lts_asprintf("tcp %s -> %s (fd %d), connecting (SYN_SENT): listener socket:[%u] on %s",
					       lb, rb, fd, lis->ino, ab);
			e->evidence = lts_asprintf("connect() not yet accepted (its listener's backlog is full?): the "
						   "socket listening on %s from %s; its holders from /proc/*/fd", ab, src);
			want(c, ti, t->wf->n_edges - 1, lis->ino, NULL, 0);
			return;
		}
		const struct lt_inet_sock *peer = lt_inet_peer(&c->inet, me);
		struct lt_wf_edge *e = lt_waitfor_add(t, pid, peer ? LT_WF_SOCKET : LT_WF_REMOTE);
		if (!e)
			return;
		e->fd = fd;
		e->what = lts_asprintf("%s %s -> %s (fd %d)", proto, lb, rb, fd);
		if (peer) {
			e->evidence = lts_asprintf("peer socket:[%u] from the reverse 4-tuple in %s; its holders "
						   "from /proc/*/fd", peer->ino, src);
			want(c, ti, t->wf->n_edges - 1, peer->ino, NULL, 0);
		} else {
			e->evidence = lts_asprintf("no socket with the reverse 4-tuple in %s: the peer %s is outside "
						   "this host%s", src, rb, lt_inet_loopback(me->dst) ?
						   " (a loopback address: another network namespace?)" :
						   " (or in another network namespace)");
		}
		return;
	}
	if (pty_edge(c, ti, t, fd, dir, tgt, in_poll))
		return;
	/* else an eventfd, a queue, another anonymous inode; a file or a
	 * device read: the disk ends it */
	objfd_edge(c, ti, t, fd, dir, tgt, in_poll);
}

static int io_dir(long nr)
{
	switch (nr) {
	case 0: case 17: case 19: case 45: case 47: case 295: case 299: case 327:
	case 43: case 288:
		return 1;
	case 1: case 18: case 20: case 44: case 46: case 296: case 307: case 328: case 40:
		return 2;
	default:
		return 3;
	}
}

/* ---- children ---- */

/* The process group of process PID from /proc/PID/stat (the field after
 * the state and the parent), or -1. */
static pid_t pgrp_of(pid_t pid)
{
	char path[64], buf[512];
	snprintf(path, sizeof(path), "/proc/%d/stat", (int)pid);
	if (lts_read_small(path, buf, sizeof(buf)) < 0)
		return -1;
	const char *p = strrchr(buf, ')'); /* comm may hold spaces and parens */
	char st;
	int ppid, pgrp;
	if (!p || sscanf(p + 1, " %c %d %d", &st, &ppid, &pgrp) != 3)
		return -1;
	return (pid_t)pgrp;
}

/* The pid a pidfd of process PID refers to ("Pid:" in its fdinfo), or 0. */
static pid_t pidfd_pid(pid_t pid, int fd)
{
	char path[96], buf[1024];
	snprintf(path, sizeof(path), "/proc/%d/fdinfo/%d", (int)pid, fd);
	if (lts_read_small(path, buf, sizeof(buf)) < 0)
		return 0;
	const char *p = strstr(buf, "\nPid:");
	long v = p ? strtol(p + 5, NULL, 10) : 0;
	return v > 0 ? (pid_t)v : 0;
}

/* A pidfd (FD) polled for reading: readable once its process exits.  Of
 * one of the process's children, a child edge to it, followed as a
 * wait4's; of another process (pidwait(1), a supervisor), an exit edge to
 * it: only its exit ends the wait.  False, nothing added, for a pidfd of
 * none (its fdinfo's "Pid:" -1: it has exited): the caller says it is not
 * known. */
static bool pidfd_edge(struct cctx *c, struct lt_thread *t, int fd)
{
	pid_t pid = c->s->pid, want = pidfd_pid(pid, fd);
	if (want <= 0)
		return false;
	size_t nk = 0;
	bool child = false;
	pid_t *kids = children_list(pid, &nk);
	for (size_t i = 0; i < nk && !child; i++)
		child = kids[i] == want;
	free(kids);
	struct lt_wf_edge *e = lt_waitfor_add(t, pid, child ? LT_WF_CHILD : LT_WF_EXIT);
	if (!e)
		return false;
	e->fd = fd;
	add_pid(e, want);
	e->what = child ? lts_asprintf("child %d (pidfd fd %d)", (int)want, fd)
			: lts_asprintf("the exit of process %d (pidfd fd %d)", (int)want, fd);
	e->evidence = lts_asprintf("a pidfd polls readable when its process exits; its pid from the \"Pid:\" line of "
				   "its fdinfo, %s", child ? "a child of this process in /proc/PID/task/TID/children"
							   : "not a child of this process");
	return true;
}

/* ---- vfork ---- */

#define VF_KCMP_VM 1 /* kcmp's KCMP_VM */

/* A vfork parent (the snapshot's decode: a wait for a child in vfork, or
 * in clone or clone3 with CLONE_VFORK)'s child: of the children this
 * thread created, the one that shares its address space (kcmp KCMP_VM: a
 * read-mode check, no attach) -- a vfork child until it execs or exits.
 * An edge to it; with none found (kcmp refused, or the child just went),
 * or several (a CLONE_VM child of its that has not exec'd beside it), an
 * edge that says so. */
static void vfork_edge(struct cctx *c, struct lt_thread *t)
{
	pid_t pid = c->s->pid, child = 0, *kids = NULL;
	size_t nk = 0, cap = 0, nvm = 0;
	int err = 0;
	thread_children(pid, t->tid, &kids, &nk, &cap);
	for (size_t i = 0; i < nk; i++) {
		long r = syscall(SYS_kcmp, (long)pid, (long)kids[i], VF_KCMP_VM, 0L, 0L);
		if (r == 0 && !nvm++)
			child = kids[i];
		else if (r < 0)
			err = errno;
	}
	free(kids);
	if (nvm > 1)
		child = 0;
	struct lt_wf_edge *e = lt_waitfor_add(t, pid, LT_WF_CHILD);
	if (!e)
		return;
	if (child) {
		add_pid(e, child);
		e->what = lts_asprintf("vfork child %d, until it execs or exits", (int)child);
		e->evidence = lts_strdup("a vfork parent sleeps until its child calls execve or exits; the child: of "
					 "the thread's /proc/PID/task/TID/children, the one that shares its address space "
					 "(kcmp KCMP_VM)");
	} else {
		e->what = lts_strdup("its vfork child, until it execs or exits");
		e->evidence = nvm > 1 ? lts_asprintf("which child is not known: %zu of the thread's children share "
						     "its address space (kcmp KCMP_VM)", nvm)
			      : err ? lts_asprintf("which child is not known: kcmp(KCMP_VM) failed: %s", strerror(err))
				  : lts_strdup("no child of /proc/PID/task/TID/children shares its address space "
					       "(kcmp KCMP_VM): the child has just exec'd or exited?");
	}
}

/* The children of every thread of process PID (a child's SIGCHLD goes to
 * the process) into OUT (at most MAX; *MORE if there were more). */
static size_t all_children(pid_t pid, pid_t *out, size_t max, bool *more)
{
	size_t n = 0;
	pid_t *v = children_list(pid, &n);
	*more = n > max;
	if (n > max)
		n = max;
	if (n)
		memcpy(out, v, n * sizeof(*out));
	free(v);
	return n;
}

/* The tracer of thread TID of process PID (the TracerPid of its status,
 * read into BUF of LEN bytes): its thread id, 0 none or unreadable. */
static pid_t task_tracer(pid_t pid, pid_t tid, char *buf, size_t len)
{
	char path[96];
	snprintf(path, sizeof(path), "/proc/%d/task/%d/status", (int)pid, (int)tid);
	const char *tp = lts_read_small(path, buf, len) > 0 ? strstr(buf, "\nTracerPid:") : NULL;
	long tr = tp ? strtol(tp + 11, NULL, 10) : 0;
	return tr > 0 ? (pid_t)tr : 0;
}

/* Every traced thread of the system: its TracerPid (the tracer's thread
 * id) from /proc/P/task/T/status, read once a snapshot. */
static void read_traced(struct cctx *c)
{
	if (c->traced_read)
		return;
	c->traced_read = true;
	size_t cap = 0;
	DIR *d = opendir("/proc");
	struct dirent *de;
	while (d && (de = readdir(d))) {
		long p = strtol(de->d_name, NULL, 10);
		if (p <= 0)
			continue;
		size_t npt = 0;
		pid_t *tasks = lts_list_tasks((pid_t)p, &npt);
		for (size_t i = 0; i < npt; i++) {
			char buf[2048];
			pid_t tr = task_tracer((pid_t)p, tasks[i], buf, sizeof(buf));
			if (tr <= 0)
				continue;
			struct traced *nv = lt_grow(c->traced, &cap, c->n_traced, sizeof(*nv), 16);
			if (!nv)
				break;
			c->traced = nv;
			const char *st = strstr(buf, "\nState:");
			char state = 0;
			if (st)
				sscanf(st + 7, " %c", &state);
			c->traced[c->n_traced++] = (struct traced){ (pid_t)tr, (pid_t)p, tasks[i], state };
		}
		free(tasks);
	}
	if (d)
		closedir(d);
}

/* The processes with a thread that a thread of process PID traces and,
 * for WANT > 0, that is WANT or in process WANT: into OUT (at most MAX,
 * *MORE if there were more).  A tracer's wait4 or waitid reports its
 * tracees' stops as its children's (any thread of it waits for those of
 * all), and each stop sends it SIGCHLD.  *AWAKE (if AWAKE): the one
 * thread of them not in a ptrace stop (the one whose stop it waits for,
 * as a debugger attaching waits for each thread's), 0 none or several. */
static size_t tracees_of(struct cctx *c, pid_t pid, long want, pid_t *out, size_t max, bool *more, pid_t *awake)
{
	*more = false;
	if (awake)
		*awake = 0;
	size_t n_awake = 0;
	read_traced(c);
	if (!c->n_traced)
		return 0;
	size_t nt = 0, n = 0;
	pid_t *mine = lts_list_tasks(pid, &nt);
	for (size_t i = 0; i < c->n_traced; i++) {
		const struct traced *x = &c->traced[i];
		bool hit = x->tgid != pid && (want <= 0 || want == x->tgid || want == x->tid);
		bool by_me = false;
		for (size_t k = 0; hit && k < nt && !by_me; k++)
			by_me = mine[k] == x->tracer;
		bool seen = false;
		for (size_t k = 0; k < n && !seen; k++)
			seen = out[k] == x->tgid;
		if (!hit || !by_me)
			continue;
		if (x->state != 't' && awake && !n_awake++)
			*awake = x->tid;
		if (seen)
			continue;
		if (n < max)
			out[n++] = x->tgid;
		else
			*more = true;
	}
	free(mine);
	if (awake && n_awake != 1)
		*awake = 0;
	return n;
}

static struct lt_wf_edge *sigchld_edge(struct cctx *c, struct lt_thread *t, enum lt_sig_end end, const char *call,
				       const pid_t *kids, size_t nk, bool more);

/* E (NULL: none, returned as such) made a tracee edge whose parties are
 * the N processes TR (tracees_of; MORE if there were more), AWAKE the
 * one tracee thread not in a ptrace stop. */
static struct lt_wf_edge *tracee_parties(struct lt_wf_edge *e, const pid_t *tr, size_t n, bool more, pid_t awake)
{
	if (!e)
		return NULL;
	e->kind = LT_WF_TRACEE;
	for (size_t i = 0; i < n; i++)
		add_pid(e, tr[i]);
	e->more_pids |= more;
	e->holder_tid = awake;
	return e;
}

/* The signals thread T blocks during its poll, select or epoll wait into
 * *MASK: the mask the call passed (pselect6, ppoll, epoll_pwait,
 * epoll_pwait2), read from its memory, else its SigBlk (in W).  Where it
 * was read from, or NULL when it could not be. */
static const char *poll_sigmask(struct cctx *c, const struct lt_thread *t, const struct lt_sigwait *w,
				uint64_t *mask)
{
	const uint64_t *a = t->sc.args;
	uint64_t mptr = 0, mlen = 0;
	switch (t->sc.nr) {
	case 270: /* pselect6: its 6th argument -> { const sigset_t *ss; size_t ss_len; } */
		if (a[5]) {
			uint64_t pair[2];
			if (!c->mem || lt_mem_read(c->mem, a[5], pair, sizeof(pair)))
				return NULL;
			mptr = pair[0];
			mlen = pair[1];
		}
		break;
	case 271: /* ppoll */
		mptr = a[3];
		mlen = a[4];
		break;
	case 281: case 441: /* epoll_pwait, epoll_pwait2 */
		mptr = a[4];
		mlen = a[5];
		break;
	}
	if (mptr)
		return mlen == 8 && c->mem && !lt_mem_read(c->mem, mptr, mask, sizeof(*mask))
		       ? "the mask the call passed, read from its memory" : NULL;
	*mask = w->blocked;
	return w->blocked_ok ? "SigBlk of /proc/PID/task/TID/status" : NULL;
}

/* A poll, select or epoll wait is interrupted by a signal its thread
 * catches and does not block during the call (such calls are never
 * restarted, SA_RESTART or not): then a child's exit, which sends SIGCHLD,
 * ends it (make -j's pselect6 for a job token, whose mask lets SIGCHLD
 * in; an event loop with a SIGCHLD handler, libuv's) and so does a ptrace
 * stop of a tracee's.  Its children are parties, as a signal wait's
 * (sigchld_edge), and its tracees; the mask not read, they may be
 * (inferred).  With SIGCHLD blocked in this thread, a handler may still
 * wake it through a pipe of its own (gdb's event pipe): a tracer's tracees
 * then, inferred. */
static void sigchld_poll_edges(struct cctx *c, struct lt_thread *t)
{
	pid_t pid = c->s->pid;
	uint64_t mask = 0;
	const uint64_t chld = 1ULL << 16; /* SIGCHLD: bit sig - 1 */
	struct lt_sigwait w = { .nr = t->sc.nr };
	read_sig_state(pid, t->tid, &w);
	if (!w.disp_ok || !(w.caught & chld) || (w.ignored & chld))
		return;
	const char *src = poll_sigmask(c, t, &w, &mask);
	bool blocked = src && (mask & chld);
	enum lt_sig_end end = !src ? LT_SIG_END_MAYBE : LT_SIG_END_YES;
	const char *call = lt_syscall_name(t->sc.nr);
	call = call ? call : "poll";
	const char *other = c->s->n_threads > 1 ? "; another thread that does not block SIGCHLD may take it instead" : "";
	if (!blocked) {
		pid_t kids[LT_WF_MAX_PIDS];
		bool more = false;
		size_t nk = all_children(pid, kids, LT_WF_MAX_PIDS, &more);
		struct lt_wf_edge *e = nk ? sigchld_edge(c, t, end, call, kids, nk, more) : NULL;
		if (e)
			e->evidence = src ? lts_asprintf("SIGCHLD is caught (SigCgt of /proc/PID/status) and not blocked "
							 "during %s (%s): a child's exit interrupts it; children from "
							 "/proc/PID/task/TID/children%s", call, src, other)
					  : lts_asprintf("inferred: SIGCHLD is caught (SigCgt of /proc/PID/status), and "
							 "whether %s blocks it could not be read; it has children "
							 "(/proc/PID/task/TID/children)", call);
	}
	pid_t tr[LT_WF_MAX_PIDS], awake;
	bool more = false;
	size_t n = tracees_of(c, pid, -1, tr, LT_WF_MAX_PIDS, &more, &awake);
	if (!n)
		return;
	struct lt_wf_edge *e = tracee_parties(lt_waitfor_add(t, pid, LT_WF_TRACEE), tr, n, more, awake);
	if (!e)
		return;
	if (end == LT_SIG_END_YES && !blocked) {
		e->what = lts_asprintf("its tracees' next ptrace stops (SIGCHLD, %s)", call);
		e->evidence = lts_asprintf("SIGCHLD is caught and not blocked during %s (%s), and each ptrace stop of a "
					   "tracee sends it%s; tracees: the processes with a thread whose TracerPid "
					   "(/proc/PID/task/TID/status) is a thread of this process", call, src, other);
	} else {
		e->what = lts_strdup(LT_WF_MAYBE_TRACEE "its tracees' next ptrace stops");
		e->evidence = lts_strdup("inferred: it traces them (their TracerPid, /proc/PID/task/TID/status) and "
					 "catches SIGCHLD (SigCgt of /proc/PID/status), which each of their stops sends "
					 "it; that its handler wakes this wait (a pipe of its own, as gdb's) is not read");
	}
}

/* wait4(pid, ...): pid > 0 that child, -1 any, 0 any of the caller's
 * process group, < -1 any of group -pid.  waitid(idtype, id, ...): P_ALL
 * (0) any, P_PID (1) id, P_PGID (2) group id (0: the caller's), P_PIDFD (3)
 * the process of pidfd id. */
static void child_edge(struct cctx *c, struct lt_thread *t)
{
	const uint64_t *a = t->sc.args;
	pid_t pid = c->s->pid;
	struct lt_wf_edge *e = lt_waitfor_add(t, pid, LT_WF_CHILD);
	if (!e)
		return;
	long want_pid = -1;  /* > 0: that child */
	long want_pgrp = -1; /* >= 0: children of that group (0: ours) */
	bool pidfd_unknown = false;
	if (t->sc.nr == 61) {
		long w = (int)(int32_t)a[0];
		if (w > 0)
			want_pid = w;
		else if (w == 0)
			want_pgrp = 0;
		else if (w < -1)
			want_pgrp = -w;
	} else if (a[0] == 1) {
		want_pid = (long)(int32_t)a[1];
	} else if (a[0] == 2) {
		want_pgrp = (long)(int32_t)a[1];
	} else if (a[0] == 3) {
		want_pid = pidfd_pid(pid, (int)(int32_t)a[1]);
		pidfd_unknown = want_pid <= 0;
	}
	if (want_pgrp == 0)
		want_pgrp = pgrp_of(pid);
	size_t nk = 0;
	pid_t *kids = pidfd_unknown ? NULL : children_list(pid, &nk);
	for (size_t i = 0; i < nk; i++) {
		if (want_pid > 0 && kids[i] != want_pid)
			continue;
		if (want_pid <= 0 && want_pgrp > 0 && pgrp_of(kids[i]) != want_pgrp)
			continue;
		add_pid(e, kids[i]);
	}
	free(kids);
	if (pidfd_unknown)
		e->what = lts_asprintf("the child of pidfd %d", (int)(int32_t)a[1]);
	else if (want_pid > 0)
		e->what = lts_asprintf("child %ld", want_pid);
	else if (want_pgrp > 0)
		e->what = lts_asprintf("any child of process group %ld", want_pgrp);
	else
		e->what = lts_strdup("any child");
	if (pidfd_unknown)
		e->evidence = lts_strdup("the pidfd's fdinfo names no pid (the child has exited?)");
	else if (e->n_pids)
		e->evidence = lts_strdup(want_pgrp > 0 ? "children from /proc/PID/task/TID/children, their "
							 "process group from /proc/CHILD/stat"
						       : "children from /proc/PID/task/TID/children");
	else
		e->evidence = lts_strdup("no such child found in /proc/PID/task/TID/children");
	/* a tracer (strace -p, a debugger) waits so for its tracees too: any
	 * of them (-1, P_ALL), or the one it names when that is no child */
	if (pidfd_unknown || want_pgrp >= 0 || (want_pid > 0 && e->n_pids))
		return;
	pid_t tr[LT_WF_MAX_PIDS], awake;
	bool more = false;
	size_t ntr = tracees_of(c, pid, want_pid, tr, LT_WF_MAX_PIDS, &more, &awake);
	if (!ntr)
		return;
	if (e->n_pids) { /* children and tracees: an edge of its own */
		e = lt_waitfor_add(t, pid, LT_WF_TRACEE);
		if (!e)
			return;
	} else { /* no child: the tracees are all it waits for */
		free(e->what);
		free(e->evidence);
	}
	tracee_parties(e, tr, ntr, more, awake);
	e->what = want_pid > 0 ? lts_asprintf("tracee %ld: its next stop (a system call, a signal, its exit)", want_pid)
			       : lts_strdup("its tracees: the next stop of any (a system call, a signal, an exit)");
	e->evidence = lts_strdup("a tracer's wait reports its tracees' ptrace stops; tracees: the processes with a "
				 "thread whose TracerPid (/proc/PID/task/TID/status) is a thread of this process");
}

/* ---- signal waits ---- */

static const char *clock_name(int clk)
{
	static const char *const clocks[] = { "CLOCK_REALTIME", "CLOCK_MONOTONIC", "CLOCK_PROCESS_CPUTIME_ID",
					      "CLOCK_THREAD_CPUTIME_ID", "CLOCK_MONOTONIC_RAW",
					      "CLOCK_REALTIME_COARSE", "CLOCK_MONOTONIC_COARSE", "CLOCK_BOOTTIME",
					      "CLOCK_REALTIME_ALARM", "CLOCK_BOOTTIME_ALARM" };
	return clk >= 0 && clk < (int)(sizeof(clocks) / sizeof(clocks[0])) ? clocks[clk] : "a CPU-time clock";
}

/* Process PID's start, in seconds of CLOCK_BOOTTIME (/proc/PID/stat's
 * starttime); -1 unknown. */
static double start_boottime_s(pid_t pid)
{
	char path[64], buf[1024];
	snprintf(path, sizeof(path), "/proc/%d/stat", (int)pid);
	if (lts_read_small(path, buf, sizeof(buf)) <= 0)
		return -1;
	const char *p = strrchr(buf, ')');
	/* after the comm: state is field 3, starttime field 22 */
	for (int f = 2; p && f < 22; f++)
		p = strchr(p + 1, ' ');
	long hz = sysconf(_SC_CLK_TCK);
	if (!p || hz <= 0)
		return -1;
	return (double)strtoull(p + 1, NULL, 10) / (double)hz;
}

/* A signal wait of coreutils' timeout(1) (its executable named timeout,
 * its command line one it reads: lt_timeout1_duration) for its child E:
 * the timer it armed at its start is the wait's own timeout, kept on the
 * edge as an application's (timeout_s, and what is left from its start);
 * true when so (its timer then said, not as an unknown signal timer). */
static bool timeout1_edge(struct cctx *c, struct lt_wf_edge *e)
{
	const char *exe = c->s->exe, *base = exe ? strrchr(exe, '/') : NULL;
	if (!base || strcmp(base + 1, "timeout"))
		return false;
	char path[64];
	size_t len = 0;
	snprintf(path, sizeof(path), "/proc/%d/cmdline", (int)c->s->pid);
	char *cl = lts_read_all(path, &len);
	double dur = cl ? lt_timeout1_duration(cl, len) : -1;
	free(cl);
	if (dur <= 0)
		return false; /* not read, or 0: no timer */
	snprintf(e->timeout_what, sizeof(e->timeout_what), "timeout(1) duration");
	e->timeout_s = dur;
	e->timeout_left_s = -1;
	double start = start_boottime_s(c->s->pid);
	struct timespec now;
	if (start >= 0 && !clock_gettime(CLOCK_BOOTTIME, &now)) {
		double left = start + dur - ((double)now.tv_sec + (double)now.tv_nsec / 1e9);
		e->timeout_left_s = left > 0 ? left : 0;
	}
	char *ev = lts_asprintf("%s; its timer: the DURATION %.1f s of its command line, armed when it started "
				"(/proc/PID/stat starttime), after which it signals its child (inferred: timeout(1)'s "
				"way)", e->evidence ? e->evidence : "", dur);
	if (ev) {
		free(e->evidence);
		e->evidence = ev;
	}
	return true;
}

/* The one way a signal a child's exit sends is followed (a signal wait's
 * and a signalfd's alike): a child edge to every child of the process
 * (END yes; maybe: an unknown edge naming them, LT_WF_MAYBE_CHILD), "what"
 * LT_WF_SIGCHLD "any child (CALL)", followed as a wait4's.  NULL on OOM. */
static struct lt_wf_edge *sigchld_edge(struct cctx *c, struct lt_thread *t, enum lt_sig_end end, const char *call,
				       const pid_t *kids, size_t nk, bool more)
{
	struct lt_wf_edge *e = lt_waitfor_add(t, c->s->pid, end == LT_SIG_END_YES ? LT_WF_CHILD : LT_WF_UNKNOWN);
	if (!e)
		return NULL;
	for (size_t i = 0; i < nk; i++)
		add_pid(e, kids[i]);
	e->more_pids |= more;
	e->what = lts_asprintf("%sany child (%s)", end == LT_SIG_END_YES ? LT_WF_SIGCHLD : LT_WF_MAYBE_CHILD, call);
	return e;
}

/* The POSIX timers of /proc/PID/timers that signal the process (or T)
 * with a signal that can end T's wait (W, by lt_signalfd_ends for a
 * signalfd, else lt_sigwait_ends): a timer edge each, whose end is not
 * known.  Their signals into *SIGS (if given); whether one is SIGALRM. */
static bool sig_timer_edges(struct cctx *c, struct lt_thread *t, const struct lt_sigwait *w, bool signalfd,
			    uint64_t *sigs)
{
	pid_t pid = c->s->pid;
	char path[96], buf[4096];
	bool alrm_timer = false;
	snprintf(path, sizeof(path), "/proc/%d/timers", (int)pid);
	if (lts_read_small(path, buf, sizeof(buf)) <= 0)
		return false;
	struct lt_ptimer tm[8];
	size_t n = lt_parse_proc_timers(buf, tm, 8);
	for (size_t i = 0; i < n; i++) {
		if (!tm[i].signal || (tm[i].to_thread ? tm[i].target != t->tid : tm[i].target != pid))
			continue;
		char tw[200], sn[24];
		enum lt_sig_end te = signalfd ? lt_signalfd_ends(w, tm[i].signo, tw, sizeof(tw))
					      : lt_sigwait_ends(w, tm[i].signo, tw, sizeof(tw));
		if (te == LT_SIG_END_NO)
			continue;
		alrm_timer |= tm[i].signo == 14;
		if (sigs && tm[i].signo >= 1 && tm[i].signo <= 64)
			*sigs |= 1ULL << (tm[i].signo - 1);
		struct lt_wf_edge *te_e = lt_waitfor_add(t, pid, LT_WF_TIMER);
		if (!te_e)
			break;
		te_e->what = lts_asprintf(LT_WF_SIGTIMER "POSIX timer %d (timer_create, %s, %s), if it is armed",
					  tm[i].id, clock_name(tm[i].clock), lt_signal_name(tm[i].signo, sn, sizeof(sn)));
		te_e->evidence = lts_asprintf("%s%s; /proc/PID/timers lists the timer, not whether it is "
					      "armed nor when it fires: its remaining time is not known",
					      te == LT_SIG_END_MAYBE ? "whether its signal ends the wait is not "
								       "known: " : "", tw);
	}
	return alrm_timer;
}

/* A signalfd read, or polled for reading (INFO its fdinfo): a signal of
 * its mask that is queued for it ends the wait (lt_signalfd_ends: blocked
 * by the thread, SIGCHLD not ignored).  SIGCHLD so, with children: the
 * child edge of a signal wait (sigchld_edge), followed as a wait4's: a
 * child's exit ends it (util-linux's script(1) and su --pty poll one for
 * their command's exit).  A POSIX timer whose signal is in it: a timer
 * edge.  Its other signals: an unknown edge (LT_WF_SIGOTHER beside the
 * child edge), whoever sends them; an alarm() that would send SIGALRM
 * shows nowhere.  False (the caller makes it a plain unknown edge) when
 * the mask cannot be read. */
static bool signalfd_edges(struct cctx *c, struct lt_thread *t, int fd, const char *info)
{
	pid_t pid = c->s->pid;
	uint64_t mask;
	if (lt_status_sigmask(info, "sigmask:", &mask))
		return false;
	c->no_memo = true;
	struct lt_sigwait w = { .set = mask, .set_ok = true };
	read_sig_state(pid, t->tid, &w);
	const uint64_t chld = 1ULL << 16;
	char why[200] = "", call[48];
	enum lt_sig_end end = lt_signalfd_ends(&w, 17, why, sizeof(why));
	pid_t kids[LT_WF_MAX_PIDS];
	bool more = false;
	size_t nk = (mask & chld) ? all_children(pid, kids, LT_WF_MAX_PIDS, &more) : 0;
	snprintf(call, sizeof(call), "signalfd fd %d", fd);
	uint64_t other = mask;
	bool child = nk && end != LT_SIG_END_NO;
	if (child) {
		struct lt_wf_edge *e = sigchld_edge(c, t, end, call, kids, nk, more);
		if (!e)
			return true;
		e->fd = fd;
		e->evidence = end == LT_SIG_END_YES
			? lts_asprintf("%s (sigmask %016" PRIx64 " of /proc/PID/fdinfo/%d, SigBlk of "
				       "/proc/PID/task/TID/status, SigIgn of /proc/PID/status): a child's exit ends it; "
				       "children from /proc/PID/task/TID/children%s", why, mask, fd,
				       c->s->n_threads > 1 ? "; another thread that does not block SIGCHLD may take "
							     "it instead" : "")
			: lts_asprintf("inferred: %s, so whether a child's SIGCHLD can end it is not known; it has "
				       "children (/proc/PID/task/TID/children), whose exit it may be waiting for", why);
		other &= ~chld;
	}
	/* a POSIX timer whose signal is queued for it */
	uint64_t timed = 0;
	sig_timer_edges(c, t, &w, true, &timed);
	other &= ~timed;
	if (!other)
		return true;
	char names[160];
	lt_sigset_str(other, names, sizeof(names));
	struct lt_wf_edge *e = lt_waitfor_add(t, pid, LT_WF_UNKNOWN);
	if (!e)
		return true;
	e->fd = fd;
	/* "[signalfd]" kept in a plain one: appwait (pglocks.c) finds a
	 * PostgreSQL latch's so */
	e->what = child ? lts_asprintf(LT_WF_SIGOTHER "signalfd (fd %d): %s", fd, names)
			: lts_asprintf("anon_inode:[signalfd] (fd %d: %s)", fd, names);
	char chl[240] = "";
	if ((mask & chld) && !child)
		snprintf(chl, sizeof(chl), "; SIGCHLD: %s", nk ? why : "it has no child");
	e->evidence = lts_asprintf("a signal another process sends (sigmask %016" PRIx64 " of /proc/PID/fdinfo/%d): "
				   "any process may, not followed%s%s", mask, fd,
				   (other & (1ULL << 13)) ? "; SIGALRM: an alarm() or setitimer(ITIMER_REAL) timer "
							    "of its own, if one is armed, shows nowhere in /proc "
							    "(not known)" : "", chl);
	return true;
}

/* rt_sigsuspend, pause, rt_sigtimedwait: a child's SIGCHLD ends the wait
 * when the process catches it and the call does not block it (or waits
 * for it: rt_sigtimedwait's set), read from the call's argument in the
 * target's memory, SigBlk of the thread and SigCgt/SigIgn of the process
 * (lt_sigwait_ends).  Then its children are the other end, as a wait4's:
 * a child edge; and a timer whose signal can end it too is a timer edge
 * (/proc/PID/timers lists POSIX timers but not whether they are armed;
 * an alarm() shows nowhere).  The mask not read: an unknown edge naming
 * the children (may be for them: inferred).  Returns whether it added a
 * child or maybe-child edge.  LOCKTRACE_NO_SIGMASK (tests) reads as if the
 * mask and SigBlk could not be read. */
static bool signal_edges(struct cctx *c, struct lt_thread *t)
{
	pid_t pid = c->s->pid;
	const uint64_t *a = t->sc.args;
	long nr = t->sc.nr;
	const char *call = nr == 130 ? "rt_sigsuspend" : nr == 128 ? "rt_sigtimedwait" : "pause";
	struct lt_sigwait w = { .nr = nr };
	char path[96], buf[4096];
	bool nomask = getenv("LOCKTRACE_NO_SIGMASK") != NULL;
	snprintf(path, sizeof(path), "/proc/%d/status", (int)pid);
	if (lts_read_small(path, buf, sizeof(buf)) > 0)
		w.disp_ok = !lt_status_sigmask(buf, "SigCgt:", &w.caught) &&
			    !lt_status_sigmask(buf, "SigIgn:", &w.ignored);
	uint64_t sigblk = 0, m = 0;
	bool blk_ok = false;
	snprintf(path, sizeof(path), "/proc/%d/task/%d/status", (int)pid, (int)t->tid);
	if (!nomask && lts_read_small(path, buf, sizeof(buf)) > 0)
		blk_ok = !lt_status_sigmask(buf, "SigBlk:", &sigblk);
	const char *src = "not read";
	if (nr == 130) {
		if (!nomask && a[1] == 8 && c->mem && !lt_mem_read(c->mem, a[0], &m, sizeof(m))) {
			w.blocked = m;
			w.blocked_ok = true;
			src = "the mask rt_sigsuspend passed, read from its memory";
		} else if (blk_ok) {
			/* the kernel installs the mask as the thread's blocked set
			 * for the call (sigsuspend): SigBlk shows it */
			w.blocked = sigblk;
			w.blocked_ok = true;
			src = "the mask rt_sigsuspend installed, SigBlk of /proc/PID/task/TID/status (its argument "
			      "could not be read)";
		}
	} else {
		if (nr == 128 && !nomask && a[3] == 8 && c->mem && !lt_mem_read(c->mem, a[0], &m, sizeof(m))) {
			w.set = m;
			w.set_ok = true;
		}
		w.blocked = sigblk;
		w.blocked_ok = blk_ok;
		if (blk_ok)
			src = nr == 128 ? "its set read from its memory, the signals it blocks from SigBlk of "
					  "/proc/PID/task/TID/status"
					: "the signals it blocks, SigBlk of /proc/PID/task/TID/status";
	}
	char why[200];
	enum lt_sig_end end = lt_sigwait_ends(&w, 17, why, sizeof(why));
	pid_t kids[LT_WF_MAX_PIDS];
	bool more = false;
	size_t nk = all_children(pid, kids, LT_WF_MAX_PIDS, &more);
	char shown[64] = "";
	if (nr == 130 && w.blocked_ok)
		snprintf(shown, sizeof(shown), "mask 0x%" PRIx64, w.blocked);
	else if (nr == 128 && w.set_ok)
		snprintf(shown, sizeof(shown), "set 0x%" PRIx64 ", %s", w.set, a[2] ? "with a timeout" : "no timeout");
	else if (nr == 128)
		snprintf(shown, sizeof(shown), "set unread, %s", a[2] ? "with a timeout" : "no timeout");
	/* a tracer (gdb waiting for a thread it attached to stop) gets
	 * SIGCHLD at each ptrace stop of its tracees too */
	pid_t tr[LT_WF_MAX_PIDS], awake;
	bool tmore = false;
	size_t ntr = end == LT_SIG_END_YES ? tracees_of(c, pid, -1, tr, LT_WF_MAX_PIDS, &tmore, &awake) : 0;
	char *d = lts_asprintf("%s(%s): %s%s%s", call, shown, why,
			       ntr ? "; a stop of a process it traces ends it" : "",
			       !nk ? "; it has no child"
			       : end == LT_SIG_END_YES ? ": a child's exit ends it"
			       : end == LT_SIG_END_MAYBE ? ": whether a child's exit ends it is not known"
							 : ": its children's exits do not end it");
	if (d) {
		free(t->detail);
		t->detail = d;
	}
	if (ntr) {
		struct lt_wf_edge *te = tracee_parties(lt_waitfor_add(t, pid, LT_WF_TRACEE), tr, ntr, tmore, awake);
		if (te) {
			te->what = lts_asprintf("its tracees' next ptrace stops (SIGCHLD, %s)", call);
			te->evidence = lts_asprintf("%s (from %s; SigCgt, SigIgn of /proc/PID/status), and each ptrace stop "
						    "of a tracee sends it; tracees: the processes with a thread whose "
						    "TracerPid (/proc/PID/task/TID/status) is a thread of this process", why,
						    src);
		}
	}
	if (!nk || end == LT_SIG_END_NO)
		return ntr > 0;
	struct lt_wf_edge *e = sigchld_edge(c, t, end, call, kids, nk, more);
	if (!e)
		return false;
	e->evidence = end == LT_SIG_END_YES
		? lts_asprintf("%s (from %s; SigCgt, SigIgn of /proc/PID/status); children from "
			       "/proc/PID/task/TID/children%s; a signal another process sends can end it too "
			       "(not followed)", why, src,
			       c->s->n_threads > 1 ? "; another thread that does not block SIGCHLD may take it "
						     "instead" : "")
		: lts_asprintf("inferred: %s, so whether a child's SIGCHLD can end it is not known; it has "
			       "children (/proc/PID/task/TID/children), whose exit it may be waiting for", why);
	/* coreutils' timeout(1): its timer fires DURATION after it started
	 * (then it signals its child, whose exit ends this wait): its length
	 * from its command line, what is left from its start time */
	if (end == LT_SIG_END_YES && timeout1_edge(c, e))
		return true;
	/* a timer whose signal can end it: timeout(1)'s own */
	timer_edges(c, t, &w);
	if (nr == 128 && a[2]) {
		struct lt_wf_edge *te_e = lt_waitfor_add(t, pid, LT_WF_TIMER);
		if (te_e)
			te_e->what = lts_strdup("its timeout (rt_sigtimedwait)");
	}
	return true;
}

/* ---- a child polled for between sleeps ---- */

/* Python's subprocess: Popen.wait(timeout) (and run(), call(),
 * communicate() with a timeout) polls waitpid(WNOHANG) between sleeps of
 * at most 50 ms until its child exits or the timeout passes (without a
 * timeout it blocks in waitpid: a child wait of its own).  A thread asleep
 * under Popen._wait (found by the CPython model, rt_cpython.c, with the
 * Popen's pid and timeout where they could be read) is therefore waiting
 * for its child: a child edge (not ended by the sleep), and the timeout it
 * was given on it, or as a timer whose end is not read. */
static bool popen_poll_edges(struct cctx *c, struct lt_thread *t)
{
	size_t i = t->poll_frame;
	if (!t->poll_wait || i >= t->n_rt_frames)
		return false;
	pid_t kids[LT_WF_MAX_PIDS];
	bool more = false;
	size_t nk = all_children(c->s->pid, kids, LT_WF_MAX_PIDS, &more);
	/* the Popen's own child (self.pid, read by rt_cpython.c), if it is
	 * one of them */
	bool own = false;
	for (size_t k = 0; k < nk && t->poll_child > 0; k++)
		own |= kids[k] == t->poll_child;
	if (!nk)
		return false;
	struct lt_wf_edge *e = lt_waitfor_add(t, c->s->pid, LT_WF_CHILD);
	if (!e)
		return false;
	if (own) {
		add_pid(e, t->poll_child);
	} else {
		for (size_t k = 0; k < nk; k++)
			add_pid(e, kids[k]);
		e->more_pids |= more;
	}
	bool one = own || (nk == 1 && !more);
	e->what = lts_asprintf(LT_WF_POLLCHILD "%s (Popen.wait with a timeout, between sleeps)",
			       one ? "its child" : "one of its children");
	e->evidence = lts_asprintf("its Python frame %s (%s:%d) polls waitpid(WNOHANG) between sleeps until its "
				   "child exits or its timeout passes; %s",
				   t->rt_frames[i].func, t->rt_frames[i].file ? t->rt_frames[i].file : "?",
				   t->rt_frames[i].line,
				   own ? "the child from the Popen's pid (self.pid), one of /proc/PID/task/TID/children"
				   : nk == 1 && !more ? "the child from /proc/PID/task/TID/children (the Popen's pid not read)"
				   : "children from /proc/PID/task/TID/children (which of them the Popen is for is not "
				     "read: any is taken to end it)");
	if (t->poll_timeout_s > 0) {
		/* the timeout it was given, read: the wait lasts until it */
		snprintf(e->timeout_what, sizeof(e->timeout_what), "Popen.wait timeout");
		e->timeout_s = t->poll_timeout_s;
		e->timeout_left_s = -1;
		if (t->poll_deadline_s > 0 && c->s->taken_monotonic_ns > 0) {
			double left = t->poll_deadline_s - (double)c->s->taken_monotonic_ns / 1e9;
			e->timeout_left_s = left > 0 ? left : 0;
		}
	} else {
		struct lt_wf_edge *te = lt_waitfor_add(t, c->s->pid, LT_WF_TIMER);
		if (te) {
			te->what = lts_strdup(LT_WF_APPTIMER "Popen.wait(timeout=...)");
			te->evidence = lts_strdup("a timeout was given (without one it would block in waitpid); its "
						  "value, in the Python frame's locals, could not be read: not known");
		}
	}
	char *d = lts_asprintf("%s: sleeps between polls for its child (Popen.wait with a timeout)",
			       t->detail ? t->detail : lt_syscall_name(t->sc.nr) ? lt_syscall_name(t->sc.nr) : "sleep");
	if (d) {
		free(t->detail);
		t->detail = d;
	}
	return true;
}

/* Python's Popen.communicate(timeout=...) (and run() with a timeout and
 * its output captured) polls the child's pipes with what is left of its
 * timeout, and raises TimeoutExpired once it passes (run() then kills the
 * child): the poll's timeout is the application's own, kept on the
 * pipes' edges (from N0 on), read from Popen._communicate's locals
 * (orig_timeout, endtime: rt_cpython.c); what is left, when endtime
 * could not be read, from the poll's own timeout (what was left when it
 * began) less the time the thread has not run.  Its timeout not read: a
 * timer edge whose end is not known.  False when no edge took it. */
static bool popen_pipes_timeout(struct cctx *c, struct lt_thread *t, size_t n0)
{
	size_t i = t->poll_frame;
	if (!t->wf || t->wf->n_edges <= n0 || i >= t->n_rt_frames)
		return false;
	double left = -1;
	if (t->poll_deadline_s > 0 && c->s->taken_monotonic_ns > 0)
		left = t->poll_deadline_s - (double)c->s->taken_monotonic_ns / 1e9;
	else if (t->fdw.timeout_ms >= 0 && t->idle_src != LT_IDLE_UNKNOWN)
		left = (double)t->fdw.timeout_ms / 1e3 - t->idle_s;
	if (left < 0 && left != -1)
		left = 0;
	const char *src = t->poll_deadline_s > 0 ? "its deadline (endtime) read from that frame"
			  : left >= 0 ? "what was left when the poll began (its timeout argument), less the time the "
					"thread has not run (inferred: the poll began when it last ran)"
				      : "not known";
	for (size_t k = n0; k < t->wf->n_edges; k++) {
		struct lt_wf_edge *e = &t->wf->edges[k];
		if (e->kind == LT_WF_TIMER)
			continue;
		if (t->poll_timeout_s > 0) {
			snprintf(e->timeout_what, sizeof(e->timeout_what), "Popen.communicate timeout");
			e->timeout_s = t->poll_timeout_s;
			e->timeout_left_s = left;
		}
		char *ev = lts_asprintf("%s; its Python frame %s (%s:%d) polls the child's pipes with what is left of "
					"the timeout communicate() was given (%s), and raises TimeoutExpired once it "
					"passes; what is left: %s", e->evidence ? e->evidence : "",
					t->rt_frames[i].func, t->rt_frames[i].file ? t->rt_frames[i].file : "?",
					t->rt_frames[i].line,
					t->poll_timeout_s > 0 ? "orig_timeout, read from that frame" : "not read", src);
		if (ev) {
			free(e->evidence);
			e->evidence = ev;
		}
	}
	if (t->poll_timeout_s <= 0) {
		struct lt_wf_edge *te = lt_waitfor_add(t, c->s->pid, LT_WF_TIMER);
		if (te) {
			te->what = lts_strdup(LT_WF_APPTIMER "Popen.communicate(timeout=...)");
			te->evidence = lts_asprintf("the poll's timeout, %" PRId64 " ms when it began, is what was "
						    "left of it; its value, in the Python frame's locals, could not "
						    "be read: not known", t->fdw.timeout_ms);
		}
	}
	return true;
}

/* coreutils' tail -f --pid=P (its executable named tail, its command
 * line one it reads: lt_tail1_pid) waits for P's exit by polling: between
 * waits of its sleep interval (a poll of its inotify fd with that timeout,
 * or a nanosleep without inotify) it checks with kill(P, 0) whether P
 * still exists, and exits once it does not.  The file's changes wake it
 * to print them and wait again: they do not end it.  So it waits for P's
 * exit, an exit edge (LT_WF_POLLCHILD "the exit of ..."), inferred from
 * the command line (nothing in the kernel links the two), said so; the
 * poll's own edges (its inotify fd, its timeout) are said in the
 * evidence.  False, nothing added, when it is not so (P gone: it exits
 * within one interval, its wait is the poll's). */
static bool tail_pid_edges(struct cctx *c, struct lt_thread *t)
{
	const char *exe = c->s->exe, *base = exe ? strrchr(exe, '/') : NULL;
	if (!base || strcmp(base + 1, "tail"))
		return false;
	/* in a poll of inotify fds (and its stdout, watched for errors) */
	const char *watched = NULL;
	bool out = false;
	for (size_t i = 0; t->wait == LT_WAIT_POLL && i < t->fdw.n_fds; i++) {
		const struct lt_fd *f = &t->fdw.fds[i];
		if (f->target && strstr(f->target, "inotify"))
			watched = f->target;
		else if (f->fd == 1 && !f->events)
			out = true;
		else
			return false;
	}
	if (t->wait == LT_WAIT_POLL && !watched)
		return false;
	char path[64];
	size_t len = 0;
	snprintf(path, sizeof(path), "/proc/%d/cmdline", (int)c->s->pid);
	char *cl = lts_read_all(path, &len);
	double iv = 1.0;
	pid_t p = cl ? lt_tail1_pid(cl, len, &iv) : -1;
	free(cl);
	struct stat st;
	snprintf(path, sizeof(path), "/proc/%d", (int)p);
	if (p <= 0 || p == c->s->pid || stat(path, &st))
		return false;
	/* a zombie answers kill(P, 0) until its parent reaps it: the wait
	 * is then its parent's to end */
	pid_t reaper = 0;
	char *stt = NULL;
	snprintf(path, sizeof(path), "/proc/%d/stat", (int)p);
	if ((stt = lts_read_all(path, &len))) {
		const char *rp = strrchr(stt, ')');
		char state = 0;
		int ppid = 0;
		if (rp && sscanf(rp + 1, " %c %d", &state, &ppid) == 2 && state == 'Z' && ppid > 1 &&
		    ppid != c->s->pid)
			reaper = ppid;
		free(stt);
	}
	struct lt_wf_edge *e = lt_waitfor_add(t, c->s->pid, LT_WF_EXIT);
	if (!e)
		return false;
	add_pid(e, reaper ? reaper : p);
	if (reaper)
		e->what = lts_asprintf(LT_WF_POLLCHILD "the exit of process %d (tail --pid=%d, inferred from its "
				       "command line), a zombie until its parent %d reaps it", (int)p, (int)p,
				       (int)reaper);
	else
		e->what = lts_asprintf(LT_WF_POLLCHILD "the exit of process %d (tail --pid=%d, inferred from its "
				       "command line)", (int)p, (int)p);
	e->evidence = lts_asprintf("coreutils tail -f --pid=%d checks with kill(%d, 0) between waits of %g s (its "
				   "sleep interval) whether process %d exists, and exits once it does not; the pid "
				   "is read from its command line (/proc/PID/cmdline): inferred from tail's way, "
				   "nothing in the kernel links the two; %s%s",
				   (int)p, (int)p, iv, (int)p,
				   t->wait == LT_WAIT_POLL ? "a change to the file it follows (its inotify fd) wakes it "
							     "to print what was written, then it waits again: the "
							     "file's writers do not end the wait"
							   : "it sleeps between checks (no inotify): what is written to "
							     "the file is printed after each sleep, which does not end "
							     "the wait",
				   out ? "; its output's reader closing the pipe would end it too" : "");
	char *d = lts_asprintf("%s: tail --pid=%d polls for the exit of process %d (kill(%d, 0) every %g s)",
			       t->detail ? t->detail : lt_syscall_name(t->sc.nr) ? lt_syscall_name(t->sc.nr) : "poll",
			       (int)p, (int)p, (int)p, iv);
	if (d) {
		free(t->detail);
		t->detail = d;
	}
	return true;
}

/* Java's Process.waitFor(): the JDK's "process reaper" thread waits for
 * the child in waitpid and notifies the Process object, on which the
 * caller waits in Object.wait (ProcessImpl.waitFor): a child wait by way
 * of another thread, said as one (a child edge to its children; with a
 * timeout, waitFor(long, TimeUnit), a timer whose end is not read). */
#define JAVA_WAITFOR_DEPTH 4

static bool java_waitfor_edges(struct cctx *c, struct lt_thread *t)
{
	size_t i;
	for (i = 0; i < t->n_rt_frames && i < JAVA_WAITFOR_DEPTH; i++)
		if (t->rt_frames[i].func && !strcmp(t->rt_frames[i].func, "java.lang.ProcessImpl.waitFor"))
			break;
	if (i == t->n_rt_frames || i == JAVA_WAITFOR_DEPTH)
		return false;
	pid_t kids[LT_WF_MAX_PIDS];
	bool more = false;
	size_t nk = all_children(c->s->pid, kids, LT_WF_MAX_PIDS, &more);
	if (!nk)
		return false;
	struct lt_wf_edge *e = lt_waitfor_add(t, c->s->pid, LT_WF_CHILD);
	if (!e)
		return false;
	for (size_t k = 0; k < nk; k++)
		add_pid(e, kids[k]);
	e->more_pids |= more;
	e->what = lts_asprintf("%s (Process.waitFor: the JDK's process reaper thread waits for it and "
			       "notifies)", nk == 1 && !more ? "its child" : "one of its children");
	e->evidence = lts_asprintf("its Java frame java.lang.ProcessImpl.waitFor (line %d) waits on the Process "
				   "for its exit; children from /proc/PID/task/TID/children%s",
				   t->rt_frames[i].line,
				   nk == 1 && !more ? "" : " (which of them the Process is for is not read: any is "
							   "taken to end it)");
	if (t->futex.timeout_ptr) {
		struct lt_wf_edge *te = lt_waitfor_add(t, c->s->pid, LT_WF_TIMER);
		if (te) {
			te->what = lts_strdup(LT_WF_APPTIMER "Process.waitFor(timeout, unit)");
			te->evidence = lts_strdup("its Object.wait is timed; when the waitFor's timeout ends is not "
						  "read: not known");
		}
	}
	return true;
}

/* ---- per thread ---- */

/* open()/openat()/openat2() asleep opening a FIFO: the open waits for a
 * process to open its other end (fifo_open).  The path is read from the
 * target's memory and resolved against its cwd or dirfd; a FIFO there
 * makes an edge of unknown party: no process has that end open (else the
 * open would not wait), and which one will is not known. */
static void fifo_open_edge(struct cctx *c, struct lt_thread *t)
{
	const uint64_t *a = t->sc.args;
	long nr = t->sc.nr;
	uint64_t pathp = nr == 2 ? a[0] : a[1];
	int64_t dirfd = nr == 2 ? -100 : (int64_t)(int32_t)a[0];
	uint64_t flags = nr == 2 ? a[1] : a[2];
	if (nr == 437 && (!c->mem || lt_mem_read(c->mem, a[2], &flags, sizeof(flags))))
		return; /* openat2: struct open_how, flags first */
	char path[256];
	if (!c->mem || lt_mem_read(c->mem, pathp, path, sizeof(path)))
		return;
	path[sizeof(path) - 1] = 0;
	if (!path[0])
		return;
	char full[600];
	if (path[0] == '/')
		snprintf(full, sizeof(full), "/proc/%d/root%s", (int)c->s->pid, path);
	else if (dirfd == -100)
		snprintf(full, sizeof(full), "/proc/%d/cwd/%s", (int)c->s->pid, path);
	else
		snprintf(full, sizeof(full), "/proc/%d/fd/%d/%s", (int)c->s->pid, (int)dirfd, path);
	struct stat st;
	if (stat(full, &st) || !S_ISFIFO(st.st_mode))
		return;
	int acc = (int)(flags & 3);
	const char *other = acc == 0 ? "writing" : "reading";
	struct lt_wf_edge *e = lt_waitfor_add(t, c->s->pid, LT_WF_UNKNOWN);
	if (!e)
		return;
	e->what = lts_asprintf(LT_WF_FIFO_OPEN "%s for %s", path, other);
	e->evidence = lts_asprintf("no process has it open for %s, or the open would not wait (the kernel "
				   "pairs a FIFO's opens); which one will is not known", other);
	char *d = lts_asprintf("%s(%s\"%s\", %s): waits for a process to open the FIFO for %s",
			       lt_syscall_name(nr) ? lt_syscall_name(nr) : "open",
			       nr == 2 || dirfd != -100 ? "" : "AT_FDCWD, ", path,
			       acc == 0 ? "O_RDONLY" : acc == 1 ? "O_WRONLY" : "O_RDWR", other);
	if (d) {
		free(t->detail);
		t->detail = d;
	}
}

/* multiprocessing's forkserver: a Process's join() polls the Popen's
 * sentinel, a pipe whose only write end the forkserver (the Process's
 * parent) keeps and writes the Process's exit status to once it has
 * reaped it (rt_cpython.c read the Process's pid and the sentinel's fd
 * from the frame): the Process's exit ends the wait, the forkserver only
 * passes it on, so the sentinel's edge becomes that exit's.  Left as the
 * pipe's when the Process holds a write end itself (the fork method: the
 * pipe says it), is gone or a zombie (the forkserver's to report), or
 * its parent is not the pipe's only writer.  After the scan of /proc that
 * found the pipe's writers. */
static void mp_sentinel_edge(struct lt_thread *t)
{
	if (t->mp_child <= 0 || !t->wf)
		return;
	for (size_t i = 0; i < t->wf->n_edges; i++) {
		struct lt_wf_edge *e = &t->wf->edges[i];
		if (e->fd != t->mp_sentinel || e->kind != LT_WF_PIPE_READ || e->n_pids == 0 || e->more_pids)
			continue;
		char path[64], state = 0;
		int ppid = 0;
		size_t len = 0;
		snprintf(path, sizeof(path), "/proc/%d/stat", (int)t->mp_child);
		char *st = lts_read_all(path, &len);
		const char *rp = st ? strrchr(st, ')') : NULL;
		if (!rp || sscanf(rp + 1, " %c %d", &state, &ppid) != 2 || state == 'Z' || state == 'X' || ppid <= 1) {
			free(st);
			return;
		}
		free(st);
		for (size_t k = 0; k < e->n_pids; k++)
			if (e->pids[k] != ppid)
				return; /* the Process's own write end, or another writer */
		const struct lt_rtframe *f = t->mp_frame < t->n_rt_frames ? &t->rt_frames[t->mp_frame] : NULL;
		char *what = lts_asprintf("the exit of process %d, a multiprocessing Process that its forkserver %d "
					  "started, which writes its exit status to this pipe (the sentinel, fd %d)",
					  (int)t->mp_child, ppid, t->mp_sentinel);
		char *ev = lts_asprintf("its Python frame %s (%s:%d) waits for the Popen's sentinel (self.sentinel, "
					"fd %d) to become readable, the Popen's pid (self.pid) process %d, whose parent "
					"%d holds the pipe's only write end (/proc/*/fd): multiprocessing's forkserver "
					"writes a Process's exit status there once it has reaped it",
					f && f->func ? f->func : "?", f && f->file ? f->file : "?", f ? f->line : 0,
					t->mp_sentinel, (int)t->mp_child, ppid);
		if (!what || !ev) {
			free(what);
			free(ev);
			return;
		}
		free(e->what);
		free(e->evidence);
		e->what = what;
		e->evidence = ev;
		e->kind = LT_WF_EXIT;
		e->pids[0] = t->mp_child;
		e->n_pids = 1;
		return;
	}
}

static bool poll_timeout(const struct lt_thread *t)
{
	return t->fdw.has_timeout;
}

static void thread_edges(struct cctx *c, size_t ti, struct lt_thread *t)
{
	pid_t pid = c->s->pid;
	switch (t->wait) {
	case LT_WAIT_IO:
		if (t->sc.nr == 72 || t->sc.nr == 73) {
			file_lock_edge(c, ti, t);
		} else {
			int dir, fd = lt_io_wait_fd(t, &dir);
			fd_edge(c, ti, t, fd, dir == 3 ? io_dir(t->sc.nr) : dir, false);
		}
		break;
	case LT_WAIT_POLL: {
		/* a sleep as select() with no fds (Python before 3.11's
		 * time.sleep): a child polled for between such sleeps */
		if (!t->fdw.n_fds && popen_poll_edges(c, t))
			break;
		/* tail -f --pid: a process's exit polled for between waits */
		if (tail_pid_edges(c, t))
			break;
		bool sel = t->sc.nr == 23 || t->sc.nr == 270;
		size_t n0 = t->wf ? t->wf->n_edges : 0;
		for (size_t i = 0; i < t->fdw.n_fds; i++) {
			unsigned ev = t->fdw.fds[i].events;
			int dir = sel ? ((ev & 1) ? 1 : 0) | ((ev & 2) ? 2 : 0) : ((ev & 1) ? 1 : 0) | ((ev & 4) ? 2 : 0);
			fd_edge(c, ti, t, t->fdw.fds[i].fd, dir ? dir : 3, true);
		}
		/* Popen.communicate(timeout=...): the timeout is its own */
		if (poll_timeout(t) && t->poll_wait && t->poll_pipes && popen_pipes_timeout(c, t, n0))
			;
		else if (poll_timeout(t)) {
			struct lt_wf_edge *e = lt_waitfor_add(t, pid, LT_WF_TIMER);
			if (e)
				e->what = lts_asprintf("timeout %" PRId64 " ms", t->fdw.timeout_ms);
		}
		sigchld_poll_edges(c, t);
		break;
	}
	case LT_WAIT_SLEEP: {
		/* pause(): its children, when their SIGCHLD can end it */
		if (t->sc.nr == 34 && signal_edges(c, t))
			break;
		/* a child polled for between sleeps (Python's subprocess) */
		if (t->sc.nr != 34 && popen_poll_edges(c, t))
			break;
		if (t->sc.nr != 34 && t->sc.nr != 219 && tail_pid_edges(c, t))
			break;
		struct lt_wf_edge *e = lt_waitfor_add(t, pid, t->sc.nr == 34 ? LT_WF_UNKNOWN : LT_WF_TIMER);
		if (e) {
			e->what = lts_strdup(t->sc.nr == 34 ? "a signal (pause)"
					     : t->sc.nr == 219 ? "the timeout of a timed call resumed after a stop "
								 "(restart_syscall: a sleep, or a poll or futex "
								 "wait with a timeout)"
					     : "the end of the sleep");
			if (t->sc.nr == 34)
				e->evidence = lts_strdup("any process that signals it");
			else
				polled_edge(c, e);
		}
		if (t->sc.nr != 34)
			retry_edge(c, t);
		break;
	}
	case LT_WAIT_CHILD:
		if (lt_vfork_wait(t))
			vfork_edge(c, t);
		else
			child_edge(c, t);
		break;
	case LT_WAIT_FUTEX:
		java_waitfor_edges(c, t);
		break;
	case LT_WAIT_SIGNAL:
		signal_edges(c, t);
		break;
	default:
		if (t->sc.nr == 2 || t->sc.nr == 257 || t->sc.nr == 437)
			fifo_open_edge(c, t);
		else if (t->sc.nr == 243 || t->sc.nr == 242) { /* mq_timedreceive, mq_timedsend */
			fd_edge(c, ti, t, (int)t->sc.args[0], t->sc.nr == 243 ? 1 : 2, false);
			struct lt_wf_edge *e = t->sc.args[4] ? lt_waitfor_add(t, pid, LT_WF_TIMER) : NULL;
			if (e)
				e->what = lts_strdup("its timeout");
		}
		break;
	}
}

/* Each thread stopped by a tracer (state t): its tracer, the TracerPid of
 * its /proc/PID/task/TID/status, and what that process does (a debugger
 * at its prompt, one in a wait of its own, a tracer gone: the thread then
 * stays stopped until it is continued or killed). */
static void tracers(struct cctx *c)
{
	for (size_t i = 0; i < c->s->n_threads; i++) {
		struct lt_thread *t = &c->s->threads[i];
		if (t->state != 't' || !t->wf)
			continue;
		char buf[2048];
		pid_t pid = task_tracer(t->wf->pid, t->tid, buf, sizeof(buf));
		if (pid <= 0)
			continue;
		t->wf->tracer = (pid_t)pid;
		struct party *p = party_get(c, (pid_t)pid);
		if (p) {
			t->wf->tracer_st = p->st;
			t->wf->tracer_doing = p->doing ? lts_strdup(p->doing) : NULL;
		}
	}
}

void lt_waitfor_collect(struct lt_snapshot *s, struct lt_mem *mem)
{
	struct cctx c = { .s = s, .mem = mem };
	for (size_t i = 0; i < s->n_threads; i++) {
		struct lt_thread *t = &s->threads[i];
		if (!t->wf) {
			t->wf = calloc(1, sizeof(*t->wf));
			if (!t->wf)
				continue;
			t->wf->pid = s->pid;
		}
		/* an application lock whose holders were read (appwait.h):
		 * its latch's fds are not what ends the wait */
		bool app = false;
		for (size_t k = 0; k < t->wf->n_edges; k++)
			app |= t->wf->edges[k].kind == LT_WF_APP_LOCK && t->wf->edges[k].n_pids;
		if (!app && t->sc.state == LT_SC_IN_SYSCALL && t->state != 'R')
			thread_edges(&c, i, t);
	}
	scan_proc(&c);
	for (size_t w = 0; w < c.n_wants; w++) {
		struct lt_thread *t = &s->threads[c.wants[w].ti];
		struct lt_wf_edge *e = &t->wf->edges[c.wants[w].ei];
		if (e->kind == LT_WF_FILE_LOCK)
			ofd_filter(e, &c.wants[w]);
		else if (!e->n_pids && !e->more_pids) {
			char *ev = lts_asprintf("%s: none found (permissions, or another pid namespace?)",
						e->evidence ? e->evidence : "holders");
			free(e->evidence);
			e->evidence = ev;
		}
	}
	for (size_t i = 0; i < s->n_threads; i++) {
		struct lt_waitfor *w = s->threads[i].wf;
		mp_sentinel_edge(&s->threads[i]);
		for (size_t k = 0; w && k < w->n_edges; k++) {
			struct lt_wf_edge *e = &w->edges[k];
			/* an eventfd or a message queue no other process holds:
			 * the kernel writes eventfds (io_uring and aio
			 * completions, irqfds), a signal handler may, and any
			 * process may open a queue by name: not "nobody" */
			enum lt_wf_obj obj = lt_wf_edge_obj(e);
			if ((obj == LT_WF_OBJ_EVENTFD || obj == LT_WF_OBJ_MQUEUE) && e->n_pids == 1 && !e->more_pids &&
			    e->pids[0] == w->pid) {
				e->kind = LT_WF_UNKNOWN;
				e->n_pids = 0;
				char *ev = lts_asprintf("no other process holds it: %s",
							obj == LT_WF_OBJ_EVENTFD
							? "the kernel (an io_uring or aio completion), or a signal "
							  "handler of its own, may write it"
							: "a process may yet open the queue by name");
				free(e->evidence);
				e->evidence = ev;
			}
			/* a FIFO only its own process holds (opened read-write,
			 * as `exec 3<>fifo` does, to wait for whoever opens it):
			 * any process may open it by its path; not a leak */
			if (obj == LT_WF_OBJ_PIPE && !strncmp(e->what, "FIFO", 4) && e->n_pids == 1 &&
			    !e->more_pids && e->pids[0] == w->pid &&
			    (e->kind == LT_WF_PIPE_READ || e->kind == LT_WF_PIPE_WRITE)) {
				e->more_pids = true;
				char *ev = lts_asprintf("%s; only its own process holds it, and any process may open the "
							"FIFO by its path (not known which will)",
							e->evidence ? e->evidence : "holders");
				free(e->evidence);
				e->evidence = ev;
			}
			if (e->n_pids)
				edge_parties(&c, e);
		}
	}
	tracers(&c);
	for (size_t w = 0; w < c.n_wants; w++) {
		free(c.wants[w].path);
		free(c.wants[w].key);
	}
	free(c.wants);
	free(c.memo);
	for (size_t i = 0; i < c.n_parties; i++)
		free(c.parties[i].doing);
	free(c.parties);
	for (size_t i = 0; i < c.n_polled; i++)
		free(c.polled[i].path);
	free(c.polled);
	free(c.locks);
	free(c.net[0]);
	free(c.traced);
	lt_inet_free(&c.inet);
}
