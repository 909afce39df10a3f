// SPDX-License-Identifier: MIT
/* Setting up a recording: the target (attached to or launched), the output
 * file, the pid file, the sinks, attaching the BPF programs, the header. */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <unistd.h>
#include "locktrace/flightbuf.h"
#include "outfile.h"
#include "record_int.h"
#include "utf8.h"

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

/* The output file (-o, or a default name that moves on to the next free
 * one), res->path its name.  0 or -errno (said in res->err). */
int rec_open_output(struct session *s)
{
	const struct lt_record_opts *o = s->o;
	char *path = s->res->path, err[PATH_MAX + 128];
	size_t plen = sizeof(s->res->path);
	int r;

	if (o->output) {
		snprintf(path, plen, "%s", o->output);
		if (o->check_out && (r = o->check_out(o->on_trace_ctx, path, err, sizeof(err)))) {
			rec_fail(s, "%s", err);
			return r;
		}
		if (o->pid_file && lt_out_same(o->pid_file, path)) {
			rec_fail(s, "--pid-file and -o both name %s; choose another name for one of them", path);
			return -EINVAL;
		}
		struct stat sb;
		if (o->force && !lstat(path, &sb) && (S_ISREG(sb.st_mode) || S_ISLNK(sb.st_mode))) {
			/* what is there stays until this recording has begun */
			int fd = lt_out_tmp(path, s->out_tmp, sizeof(s->out_tmp));
			r = fd < 0 ? fd : lt_writer_fd_open(&s->file_w, fd);
			if (r && fd >= 0) {
				close(fd);
				unlink(s->out_tmp);
			}
			if (r)
				s->out_tmp[0] = 0;
		} else {
			r = lt_writer_open(&s->file_w, path, o->force);
			if (!r)
				rec_out_note(s);
		}
		if (r == -EEXIST)
			rec_fail(s, "%s already exists; choose another name with -o or pass --force", path);
		else if (r)
			rec_fail(s, "cannot create trace file %s: %s", path, lt_out_strerror(r));
		return r;
	}
	/* our own default name: never clobber, pick the next free suffix */
	for (int i = 0; i < 1000; i++) {
		if (i == 0)
			snprintf(path, plen, "locktrace-%s-%d.ltrace", s->comm, s->tgid);
		else
			snprintf(path, plen, "locktrace-%s-%d-%d.ltrace", s->comm, s->tgid, i);
		r = o->check_out ? o->check_out(o->on_trace_ctx, path, err, sizeof(err)) : 0;
		if (!r)
			r = lt_writer_open(&s->file_w, path, 0);
		if (r != -EEXIST)
			break;
	}
	if (r)
		rec_fail(s, "cannot create trace file %s in the current directory: %s "
			 "(choose a writable path with -o)", path, lt_out_strerror(r));
	return r;
}

void rec_out_note(struct session *s)
{
	struct stat sb;
	if (!stat(s->res->path, &sb)) {
		s->out_dev = sb.st_dev;
		s->out_ino = sb.st_ino;
	}
}

int rec_out_commit(struct session *s)
{
	const char *to = s->ring ? s->flight.base : s->res->path;
	if (!s->out_tmp[0])
		return 0;
	int r = lt_out_commit(s->out_tmp, to, 1);
	if (r) {
		lt_err("cannot rename %s to %s: %s; the trace is %s", s->out_tmp, to, lt_out_strerror(r),
		       s->out_tmp);
		snprintf(s->res->path, sizeof(s->res->path), "%s", s->out_tmp);
		if (s->ring)
			snprintf(s->flight.base, sizeof(s->flight.base), "%s", s->out_tmp);
	}
	s->out_tmp[0] = 0;
	if (!s->ring)
		rec_out_note(s);
	return r ? -1 : 0;
}

void rec_out_discard(struct session *s, const char *path)
{
	unlink(s->out_tmp[0] ? s->out_tmp : path);
	s->out_tmp[0] = 0;
}

/* Forks the command to launch, held at its gate; refuses one that execvp
 * would not find or could not run before anything is created.  0 or -1. */
static int launch_target(struct session *s)
{
	const struct lt_record_opts *o = s->o;
	int r = lt_launch_resolve(o->argv[0], s->exe, sizeof(s->exe));

	if (r) {
		s->res->exec_errno = -r;
		return rec_fail(s, "cannot run %s: %s", o->argv[0],
			r == -ENOENT && !strchr(o->argv[0], '/') ? "not found in PATH" : strerror(-r));
	}
	s->launch.sigmask = &s->oldmask;
	r = lt_launch_prepare(&s->launch, o->argv);
	if (r < 0)
		return rec_fail(s, "cannot start %s: %s", o->argv[0], strerror(-r));
	s->tgid = s->launch.pid;
	s->c.tgid = (uint32_t)s->tgid;
	s->launched = 1;
	if (!rec_get_proc(&s->c, s->tgid, LT_PROC_GIVEN, 1))
		return rec_fail(s, "out of memory");
	const char *base = strrchr(o->argv[0], '/');
	snprintf(s->comm, sizeof(s->comm), "%.15s", base ? base + 1 : o->argv[0]);
	return 0;
}

/* A process to trace, the first one also s->tgid.  0 or -1. */
static int add_proc(struct session *s, pid_t tgid, uint32_t flags)
{
	if (!s->tgid)
		s->tgid = tgid;
	if (!s->c.tgid)
		s->c.tgid = (uint32_t)tgid;
	struct proc *p = rec_get_proc(&s->c, tgid, flags, 1);
	if (!p)
		return rec_fail(s, "out of memory");
	p->flags |= flags;
	return 0;
}

/* The processes given with -p (a thread stands for its process).  0 or -1. */
static int add_given(struct session *s, const pid_t *pids, size_t npids)
{
	char err[512];

	for (size_t i = 0; i < npids; i++) {
		pid_t tgid;
		if (lt_target_resolve(pids[i], &tgid, err, sizeof(err)))
			return rec_fail(s, "%s", err);
		if (tgid != pids[i] && !s->note[0])
			snprintf(s->note, sizeof(s->note), "%d is a thread of process %d; tracing the "
				 "whole process", pids[i], tgid);
		if (add_proc(s, tgid, LT_PROC_GIVEN))
			return -1;
	}
	return 0;
}

/* --cgroup: the cgroup, and its user processes now.  0 or -1. */
static int add_cgroup(struct session *s)
{
	char err[512];

	if (lt_cgroup_open(s->o->cgroup, &s->cg, err, sizeof(err)))
		return rec_fail(s, "%s", err);
	s->have_cg = 1;
	s->c.cg = &s->cg;
	for (size_t i = 0; i < s->cg.ntgids; i++) {
		pid_t tgid;
		if (lt_target_resolve(s->cg.tgids[i], &tgid, err, sizeof(err)))
			continue; /* gone, or a kernel thread */
		if (add_proc(s, tgid, LT_PROC_CGROUP))
			return -1;
	}
	if (!s->tgid)
		return rec_fail(s, "%s: no user process in it to trace", s->cg.path);
	return 0;
}

/* The comm of the first process (unchanged if it cannot be read). */
static void read_comm(struct session *s)
{
	char path[64];

	snprintf(path, sizeof(path), "/proc/%d/comm", s->tgid);
	FILE *f = fopen(path, "r");
	if (!f)
		return;
	if (fgets(s->comm, sizeof(s->comm), f))
		s->comm[strcspn(s->comm, "\n")] = 0;
	fclose(f);
}

int rec_find_target(struct session *s)
{
	const struct lt_record_opts *o = s->o;
	struct collector *c = &s->c;

	c->want_syms = 1;
	if (o->argv) {
		if (launch_target(s))
			return -1;
		c->multi = !o->no_follow_forks;
	} else {
		if (add_given(s, o->npids ? o->pids : &o->pid, o->npids ? o->npids : o->pid ? 1 : 0) ||
		    (o->cgroup && add_cgroup(s)))
			return -1;
		c->multi = c->nprocs > 1 || o->children || o->cgroup;
		read_comm(s);
	}
	sanitize_comm(s->comm, sizeof(s->comm));
	s->res->tgid = s->tgid;
	return 0;
}

/* --pid-file: our pid, written before attaching so that a bad path fails
 * early; a signal sent as soon as it exists is held until we can take it.
 * 0 or -1. */
int rec_write_pid_file(struct session *s)
{
	const char *path = s->o->pid_file;

	if (!path)
		return 0;
	/* a new file, as every output (outfile.h): an existing file is
	 * refused unless --force, which replaces it (never writes into it: its
	 * owner could change the pid a root `kill -USR1 $(cat FILE)` signals);
	 * readable by all, as pid files are */
	struct stat sb;
	int fd = lt_out_create(path, s->o->force), r = -1;
	if (fd < 0)
		errno = -fd;
	else if (fchmod(fd, 0644) == 0 && fstat(fd, &sb) == 0)
		r = dprintf(fd, "%d\n", (int)getpid());
	if (fd >= 0 && close(fd))
		r = -1;
	if (r < 0) {
		int e = errno;
		rec_fail(s, "cannot write the pid file %s: %s (choose another path with "
			"--pid-file%s)", path, lt_out_strerror(-e),
			e == EEXIST ? ", or add --force to replace it" : "");
		if (fd >= 0)
			unlink(path);
		return -1;
	}
	s->pid_file_written = 1;
	s->pid_file_dev = sb.st_dev;
	s->pid_file_ino = sb.st_ino;
	return 0;
}

/* Removes the pid file if it is still the file we created (same inode)
 * and still holds our pid: whatever replaced it since is not ours. */
void rec_remove_pid_file(struct session *s)
{
	char buf[32] = "";
	struct stat sb;

	if (!s->pid_file_written)
		return;
	s->pid_file_written = 0;
	int fd = open(s->o->pid_file, O_RDONLY | O_NOFOLLOW | O_CLOEXEC);
	if (fd < 0)
		return;
	ssize_t n = read(fd, buf, sizeof(buf) - 1);
	int same = fstat(fd, &sb) == 0 && sb.st_dev == s->pid_file_dev && sb.st_ino == s->pid_file_ino;
	close(fd);
	if (same && n > 0 && atoi(buf) == (int)getpid())
		unlink(s->o->pid_file);
}

/* Where events go once the output file exists: the file, or the flight
 * recorder's ring (the file then stays empty until a dump).  0 or -1. */
int rec_open_sinks(struct session *s)
{
	const struct lt_record_opts *o = s->o;

	s->c.w = s->file_w;
	s->c.tgid = (uint32_t)s->tgid;
	if (o->calls_blocking) {
		if (lt_callnorm_init(&s->norm, (uint32_t)s->tgid))
			return rec_fail(s, "out of memory");
		if (s->c.multi) {
			s->norm.is_traced = rec_is_traced_cb;
			s->norm.traced_ctx = &s->c;
		}
		s->c.norm = &s->norm;
	}
	if (o->stacks && !(s->c.stk = lt_stackrec_new(o->stack_sample)))
		return rec_fail(s, "out of memory");
	/* attached: the processes' modules and runtimes are read before
	 * recording begins, so that the first stacks have their Python
	 * frames (at most 5 s: after that they come as they are read) */
	for (size_t i = 0; s->c.stk && !o->argv && i < s->c.nprocs; i++)
		lt_stackrec_open(s->c.stk, (uint32_t)s->c.procs[i]->tgid);
	if (s->c.stk && !o->argv && s->c.nprocs)
		lt_stackrec_settle(s->c.stk, 5000);
	if (!s->ring)
		return 0;
	/* the named file exists (so an unwritable path failed already) */
	snprintf(s->flight.base, sizeof(s->flight.base), "%s", s->res->path);
	s->flight.o = o;
	s->flight.first_fd = lt_writer_release_fd(s->file_w);
	s->file_w = NULL;
	s->c.w = NULL;
	if (ftruncate(s->flight.first_fd, 0) || lseek(s->flight.first_fd, 0, SEEK_SET))
		return rec_fail(s, "cannot use %s: %s", s->res->path, strerror(errno));
	/* the kernel-side slots hold the events: the chunk ring only takes
	 * the (rare) loss records */
	int r = lt_flight_init(&s->flight.fl, s->fb ? 4 * LT_FLIGHT_CHUNK : (size_t)o->ring_mem);
	if (!r)
		r = lt_writer_mem_open(&s->c.w, s->tgid, LT_FLIGHT_CHUNK, lt_flight_push, &s->flight.fl);
	if (r) {
		rec_fail(s, "cannot allocate a %llu-byte ring: %s",
			(unsigned long long)o->ring_mem, strerror(-r));
		s->c.w = NULL;
		return -1;
	}
	return 0;
}

/* --children: the descendants of the given processes (set) there now;
 * those forked from now on are followed in the kernel (one forked
 * meanwhile is in both, which is harmless). */
static void add_children(struct session *s, const pid_t *set, size_t nset)
{
	pid_t *kids = NULL;
	size_t nkids = 0;

	lt_proc_descendants(set, nset, &kids, &nkids);
	for (size_t i = 0; i < nkids; i++) {
		if (rec_get_proc(&s->c, kids[i], 0, 0))
			continue;
		int r = lt_bpf_add_tgid(&s->bpf, kids[i]);
		if (r) {
			lt_warn("cannot trace process %d, a child: %s", (int)kids[i], strerror(-r));
			continue;
		}
		rec_get_proc(&s->c, kids[i], LT_PROC_CHILD, 1);
	}
	free(kids);
}

/* The BPF programs, filtering on the kernel's tgid set: the given
 * processes (the cgroup's are matched by their cgroup).  0 or -1. */
/* Says at start when the kernel-side units started take other than the
 * size asked (--ring's, or -b's for a streamed recording): a power of two
 * of units a cpu, rounded down; a streamed recording's floor. */
static void units_note(const struct session *s, uint64_t ring_bytes)
{
	const struct lt_record_opts *o = s->o;
	uint64_t used = (uint64_t)s->bpf.fb_nunits * (uint64_t)s->bpf.ncpus * LT_FB_UNIT;

	if (s->fb) {
		if (used < o->ring_mem)
			lt_note("the kernel-side units take %.0f MiB of the %.0f MiB asked: a power of "
				"two of 64-byte units a cpu, at most %u MiB a cpu, %d cpus "
				"(--ring-stream keeps SIZE bytes of encoded events)",
				(double)used / 1048576.0, (double)o->ring_mem / 1048576.0,
				(unsigned)((uint64_t)LT_FB_MAX_NUNITS * LT_FB_UNIT >> 20), (int)s->bpf.ncpus);
		return;
	}
	if (!s->bpf.fb_stream)
		return;
	/* in KiB below 4 MiB, so that a small size is not "0 MiB" */
	int kib = ring_bytes < (4ull << 20);
	double div = kib ? 1024.0 : 1048576.0;
	const char *unit = kib ? "KiB" : "MiB";
	char asked[64];
	if (o->ring_bytes)
		snprintf(asked, sizeof(asked), "-b %.0f %s", (double)ring_bytes / div, unit);
	else
		snprintf(asked, sizeof(asked), "the default buffer (%.0f %s)", (double)ring_bytes / div, unit);
	if (used > ring_bytes)
		lt_note("%s is below the fewest units the events stream through: %u 64-byte units a "
			"cpu, %.0f KiB on %d possible cpus (fewer lose the events of a busy cpu before "
			"the collector can read them)", asked, s->bpf.fb_nunits, (double)used / 1024.0,
			(int)s->bpf.ncpus);
	else if (used < ring_bytes && o->ring_bytes)
		lt_note("the kernel-side units take %.0f %s of the %.0f %s asked: a power of two of "
			"64-byte units a cpu, %d possible cpus", (double)used / div, unit,
			(double)ring_bytes / div, unit, (int)s->bpf.ncpus);
}

static int start_bpf(struct session *s)
{
	const struct lt_record_opts *o = s->o;
	struct collector *c = &s->c;
	char err[512];

	/* a launched command is followed into the processes it forks, as
	 * strace -f does: they are added to the kernel's filter at fork; so
	 * are those of the -p processes with --children */
	unsigned bflags = o->calls_blocking ? LT_BPF_CALLS_BLOCKING : 0;
	if (c->stk) {
		/* the wakers' stacks at the wake-up (--calls blocking): copied
		 * by the BPF side; so are the waiters' of the long waits their
		 * wakers can read (LT_BPF_COPY_WAITERS, either mode), the
		 * others read from /proc */
		bflags |= LT_BPF_COPY_STACKS;
		s->bpf.copy_fn = lt_stackrec_copy_cb;
		s->bpf.copy_ctx = c->stk;
		/* the wakers' stacks: those of the wake-ups that end a long
		 * wait, and as many of the others as of the short waits */
		s->bpf.waker_sample = (uint32_t)lt_stackrec_sample_every(c->stk);
		/* LOCKTRACE_WAITER_STACKS (tests, measurements): "bpf" only
		 * the BPF side's copies, "proc" only the reads from /proc */
		const char *how = getenv("LOCKTRACE_WAITER_STACKS");
		if (how && *how && strcmp(how, "bpf") && strcmp(how, "proc") && strcmp(how, "both"))
			return rec_fail(s, "invalid LOCKTRACE_WAITER_STACKS '%s': expected bpf, proc "
					"or both (the default)", how);
		/* LOCKTRACE_WAITER_COPY (tests, measurements): where the BPF
		 * side copies a long wait's stack with --calls blocking */
		const char *wc = getenv("LOCKTRACE_WAITER_COPY");
		if (wc && *wc && strcmp(wc, "wake") && strcmp(wc, "return"))
			return rec_fail(s, "invalid LOCKTRACE_WAITER_COPY '%s': expected return (the "
					"default: at the waiter's return to user space) or wake (at "
					"its wake-up)", wc);
		if (wc && !strcmp(wc, "wake"))
			bflags |= LT_BPF_COPY_AT_WAKE;
		/* LOCKTRACE_SLEEP_SLOTS (tests): the sleep notes' slots, a power
		 * of two up to LT_SLEEP_SLOTS; fewer make notes share them */
		const char *ss = getenv("LOCKTRACE_SLEEP_SLOTS");
		if (ss && *ss) {
			char *end;
			unsigned long v = strtoul(ss, &end, 10);
			if (*end || !v || v > LT_SLEEP_SLOTS || (v & (v - 1)))
				return rec_fail(s, "invalid LOCKTRACE_SLEEP_SLOTS '%s': expected a power of "
						"two from 1 to %d", ss, LT_SLEEP_SLOTS);
			s->bpf.sleep_slots = (uint32_t)v;
		}
		if (!how || strcmp(how, "proc")) {
			bflags |= LT_BPF_COPY_WAITERS;
			s->wcopies = 1;
			lt_stackrec_bpf_waiters(c->stk);
		}
		if (how && !strcmp(how, "bpf"))
			lt_stackrec_no_reads(c->stk);
	}
	if (c->multi)
		bflags |= LT_BPF_MULTI;
	if ((s->launched && !o->no_follow_forks) || o->children)
		bflags |= LT_BPF_FOLLOW_FORKS;
	uint64_t ring_bytes = o->ring_bytes ? o->ring_bytes : LT_DEFAULT_RING_BYTES;
	if (s->fb) {
		bflags |= LT_BPF_FLIGHTBUF | (o->stall_s > 0 ? LT_BPF_FB_STALL : 0);
		ring_bytes = o->ring_mem;
	} else {
		/* streamed: the events through per-cpu units read as they come,
		 * not a ring buffer whose every reservation takes a lock with
		 * interrupts off (BENCHMARKS.md); LOCKTRACE_EVENTS_RING=1 keeps
		 * the ring buffer (measurements) */
		const char *er = getenv("LOCKTRACE_EVENTS_RING");
		if (er && *er && strcmp(er, "0") && strcmp(er, "1"))
			return rec_fail(s, "invalid LOCKTRACE_EVENTS_RING '%s': expected 1 (the events "
					"through the ring buffer) or 0 (the default: per-cpu units)", er);
		if (!er || strcmp(er, "1"))
			bflags |= LT_BPF_FB_STREAM;
	}
	pid_t *set = calloc(c->nprocs ? c->nprocs : 1, sizeof(*set));
	size_t nset = 0;
	for (size_t i = 0; set && i < c->nprocs; i++)
		if (i == 0 || (c->procs[i]->flags & LT_PROC_GIVEN))
			set[nset++] = c->procs[i]->tgid;
	if (!set)
		return rec_fail(s, "out of memory");
	int br = lt_bpf_start_cg(&s->bpf, set, nset, s->have_cg ? s->cg.ids : NULL,
				 s->have_cg ? s->cg.nids : 0,
				 ring_bytes, bflags,
				 rec_on_sample, c, o->verbose, err, sizeof(err));
	if (!br)
		units_note(s, ring_bytes);
	if (!br) {
		s->bpf_started = 1;
		/* the waits the BPF side's copies serve come flagged, the
		 * others wake the collector: no drain every 1 ms */
		if ((bflags & LT_BPF_COPY_STACKS) && s->bpf.waits_flagged)
			lt_stackrec_lazy(c->stk);
		if (bflags & LT_BPF_COPY_STACKS) /* wakers' Python frames */
			lt_stackrec_set_bpf(c->stk, &s->bpf);
		if (o->children)
			add_children(s, set, nset);
	}
	free(set);
	return br ? rec_fail(s, "%s", err) : 0;
}

/* A pidfd to see the process end, the BPF programs, lock naming, loss
 * counters.  0 or -1. */
int rec_attach(struct session *s)
{
	struct collector *c = &s->c;

	/* a pidfd tells us when the process is gone without signals or ptrace */
	s->pidfd = (int)syscall(SYS_pidfd_open, s->tgid, 0);
	pid_t dead = s->launched ? 0 : lt_proc_dead_zombie_of(s->tgid);
	if (dead) { /* a pidfd opens on a zombie too: nothing to record */
		close(s->pidfd);
		s->pidfd = -1;
		return rec_fail(s, "process %d has exited: a zombie its parent %d has not reaped (wait4); record "
				"the parent: locktrace record -p %d", s->tgid, (int)dead, (int)dead);
	}
	if (s->pidfd < 0 && !s->launched) {
		pid_t parent = lt_proc_zombie_of(s->tgid);
		return parent ? rec_fail(s, "process %d has exited: a zombie its parent %d has not reaped "
					 "(wait4); record the parent: locktrace record -p %d", s->tgid,
					 (int)parent, (int)parent)
			      : rec_fail(s, "no process %d (it exited during attach)", s->tgid);
	}
	if (start_bpf(s))
		return -1;
	/* processes that join later are watched too (multi): recording ends
	 * when all have ended */
	c->want_pidfd = c->multi && !s->launched && !s->have_cg;
	for (size_t i = 0; c->want_pidfd && i < c->nprocs; i++)
		if (c->procs[i]->pidfd < 0)
			c->procs[i]->pidfd = (int)syscall(SYS_pidfd_open, c->procs[i]->tgid, 0);
	s->nlost = (size_t)s->bpf.ncpus * LT_EV_MAX;
	s->lost_seen = calloc(s->nlost, sizeof(uint64_t));
	s->lost_now = calloc(s->nlost, sizeof(uint64_t));
	if (!s->lost_seen || !s->lost_now)
		return rec_fail(s, "out of memory");
	signal(SIGPIPE, SIG_IGN);
	return 0;
}

/* The header: the process and its threads at attach.  0 or -1. */
int rec_write_header(struct session *s)
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
		if (r == -ENOENT || r == -ESRCH)
			return rec_fail(s, "process %d exited during attach", s->tgid);
	}
	/* several processes: theirs too, and their shared mappings */
	rec_describe_procs(hdr, &s->c, !s->launched, 0);
	if (o->calls_blocking)
		hdr->flags |= LT_HDR_CALLS_BLOCKING;
	int r = s->ring ? 0 : lt_writer_header(s->c.w, hdr);
	if (r)
		return rec_fail(s, "writing %s: %s", s->res->path, strerror(-r));
	return 0;
}
