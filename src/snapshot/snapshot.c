/* lt_snapshot_take: what every thread of a process is blocked in right now.
 *
 * Sources, all readable without stopping the target:
 *   /proc/PID/task/TID/stat     comm, state letter
 *   /proc/PID/task/TID/syscall  syscall number, 6 args, sp, pc ("running")
 *   /proc/PID/task/TID/sched    se.exec_start: when it last ran
 *   /proc/PID/task/TID/stack    kernel stack (root only)
 *   /proc/PID/fd, fdinfo, net   what the fds are
 *   target memory               futex words, mutex owners, pollfd arrays,
 *                               stacks for the unwinder (process_vm_readv)
 * Each file is read once per thread; the symbolizer (one Dwfl) and the
 * /proc/net tables are shared by all threads, so the cost is linear in the
 * number of threads.
 */
#include <dirent.h>
#include <sys/msg.h>
#include <sys/sem.h>
#include <sys/stat.h>
#include <errno.h>
#include <inttypes.h>
#include <limits.h>
#include <sched.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "budget.h"
#include "proclive.h"
#include "locktrace/calls.h"
#include "locktrace/futex.h"
#include "locktrace/taskregs.h"
#include "lockmodel.h"
#include "rtthread.h"
#include "snapshot.h"
#include "symbols.h"
#include "waitfor.h"
#include "appwait.h"
#include "snapshot_int.h"
#include "target.h"
#include "forkorigin.h"
#include "semlock.h"
#include "golang.h"
#include "rt_idle.h"
#include "grow.h"

#define PF_KTHREAD 0x00200000u
#define FUTEX_TID_MASK 0x3fffffffu
#define FUTEX_WAITERS 0x80000000u
#define MAX_POLL_FDS 4096
#define MAX_SELECT_FDS 65536

struct ctx {
	struct lt_snapshot *s;
	const struct lt_snapshot_opts *o;
	struct lt_sym *sym;     /* NULL with LT_SNAP_NO_SYMBOLS|NO_USTACK */
	struct lt_mem mem;      /* used when sym is NULL */
	struct lts_net *net;
	struct lt_tid_regs *regs_sorted;
	size_t n_regs;
	bool compat;            /* 32-bit process: i386 syscall numbers */
	char *maps;             /* /proc/PID/maps, read on the first shared futex */
	bool maps_read;
	/* the other processes mapping the last shared object waited on */
	bool mappers_read;
	uint64_t mappers_ino, mappers_off;
	uint32_t mappers_maj, mappers_min;
	int mappers;
	pid_t mapper[LT_FUTEX_MAPPERS];
	pid_t zombie;
};

/* A 32-bit (i386) process reports i386 syscall numbers and registers: the
 * x86-64 decoding and unwinding must not be applied to it. */
static bool exe_is_32bit(pid_t pid)
{
	char path[64];
	unsigned char ident[5];
	snprintf(path, sizeof(path), "/proc/%d/exe", (int)lt_proc_reader(pid));
	FILE *f = fopen(path, "rb");
	if (!f)
		return false;
	size_t n = fread(ident, 1, sizeof(ident), f);
	fclose(f);
	return n == sizeof(ident) && memcmp(ident, "\177ELF", 4) == 0 && ident[4] == 1;
}

static struct lt_mem *ctx_mem(struct ctx *c)
{
	return c->sym ? lt_sym_mem(c->sym) : &c->mem;
}

static int regs_cmp(const void *a, const void *b)
{
	pid_t x = ((const struct lt_tid_regs *)a)->tid, y = ((const struct lt_tid_regs *)b)->tid;
	return (x > y) - (x < y);
}

/* ---- per-thread /proc reads ---- */

static void parse_kstack(struct lt_thread *t, char *text)
{
	char *save = NULL;
	for (char *line = strtok_r(text, "\n", &save); line; line = strtok_r(NULL, "\n", &save)) {
		/* "[<0>] futex_do_wait+0x46/0x90" */
		char *p = line;
		if (*p == '[') {
			char *q = strchr(p, ']');
			if (q)
				p = q + 1;
		}
		while (*p == ' ')
			p++;
		if (*p)
			lt_strlist_add(&t->kstack, "%s", p);
	}
}

void lt_snapshot_free(struct lt_snapshot *s)
{
	if (!s)
		return;
	for (size_t i = 0; i < s->n_threads; i++)
		lt_thread_clear(&s->threads[i]);
	free(s->threads);
	for (size_t i = 0; i < s->n_verdicts; i++)
		lt_verdict_clear(&s->verdicts[i]);
	free(s->verdicts);
	for (size_t i = 0; i < s->n_rtlocks; i++)
		lt_rtlock_clear(&s->rtlocks[i]);
	free(s->rtlocks);
	lt_strlist_free(&s->notes);
	lt_strlist_free(&s->strings);
	for (size_t i = 0; i < s->n_semlocks; i++)
		free(s->semlocks[i].where);
	free(s->semlocks);
	free(s->sched_offset_ns);
	free(s->thread_pid);
	lt_go_free(s->go);
	free(s->exe);
	free(s);
}

static void calibrate(struct lt_snapshot *s)
{
	long n = sysconf(_SC_NPROCESSORS_CONF);
	if (n <= 0)
		n = 1;
	if (n > 4096)
		n = 4096;
	s->sched_offset_ns = malloc((size_t)n * sizeof(*s->sched_offset_ns));
	if (!s->sched_offset_ns)
		return;
	s->n_cpus = (size_t)n;
	size_t measured = lt_sched_clock_offsets(s->sched_offset_ns, s->n_cpus);
	int64_t off;
	if (!measured && lt_sched_clock_offset(&off) == 0) {
		/* could not pin: one offset for all CPUs */
		for (long i = 0; i < n; i++)
			s->sched_offset_ns[i] = off;
		measured = 1;
		lt_strlist_add(&s->notes, "scheduler clock offset measured on one CPU only");
	}
	if (!measured) {
		lt_strlist_add(&s->notes, "scheduler clock offset unknown (/proc/thread-self/sched "
			       "unreadable): blocked times may be off by the IRQ/steal time");
		return;
	}
	int64_t lo = INT64_MAX, hi = INT64_MIN;
	for (long i = 0; i < n; i++) {
		if (s->sched_offset_ns[i] == INT64_MIN)
			continue;
		if (s->sched_offset_ns[i] < lo)
			lo = s->sched_offset_ns[i];
		if (s->sched_offset_ns[i] > hi)
			hi = s->sched_offset_ns[i];
	}
	if (hi > 50000000) /* worth saying when it is more than 50 ms */
		lt_strlist_add(&s->notes, "se.exec_start lags CLOCK_MONOTONIC by %.3f-%.3f s per CPU "
			       "(IRQ/steal time): blocked times are corrected for it",
			       (double)lo / 1e9, (double)hi / 1e9);
}

static int64_t offset_for(const struct lt_snapshot *s, int cpu)
{
	return lt_sched_offset_of(s->sched_offset_ns, s->n_cpus, cpu);
}

/* Returns -ENOENT if the thread is gone (stat unreadable). */
static int read_thread(struct ctx *c, pid_t pid, struct lt_thread *t)
{
	char path[96], buf[4096];
	unsigned flags = c->o->flags;

	snprintf(path, sizeof(path), "/proc/%d/task/%d/stat", (int)pid, (int)t->tid);
	if (lts_read_small(path, buf, sizeof(buf)) <= 0)
		return -ENOENT;
	if (lt_parse_stat(buf, t->comm, sizeof(t->comm), &t->state))
		return -ENOENT;
	unsigned long long cpu;
	t->cpu = lts_parse_stat_field(buf, 39, &cpu) == 0 && cpu < 1000000 ? (int)cpu : -1;

	snprintf(path, sizeof(path), "/proc/%d/task/%d/syscall", (int)pid, (int)t->tid);
	ssize_t r = lts_read_small(path, buf, sizeof(buf));
	if (r < 0) {
		t->sc.state = LT_SC_UNREADABLE;
		t->sc.nr = -1;
		lt_strlist_add(&t->notes, "syscall unreadable: %s", strerror((int)-r));
		if (r == -ENOENT || r == -ESRCH)
			return -ENOENT;
	} else if (lt_parse_syscall_line(buf, &t->sc)) {
		lt_strlist_add(&t->notes, "syscall file not understood: \"%.60s\"", buf);
	}

	if (t->state == 'R' || t->sc.state == LT_SC_RUNNING) {
		t->idle_s = 0;
		t->idle_src = LT_IDLE_RUNNING;
	} else {
		snprintf(path, sizeof(path), "/proc/%d/task/%d/sched", (int)pid, (int)t->tid);
		int64_t start;
		r = lts_read_small(path, buf, sizeof(buf));
		int64_t now = lts_now_ns(CLOCK_MONOTONIC);
		if (r > 0 && lt_parse_sched_exec_start(buf, &start) == 0) {
			int64_t d = now - start - offset_for(c->s, t->cpu);
			if (d < 0) {
				if (d < -50000000)
					lt_strlist_add(&t->notes, "se.exec_start is %.3f s ahead of "
						       "CLOCK_MONOTONIC after correction", (double)-d / 1e9);
				d = 0;
			}
			t->idle_s = (double)d / 1e9;
			t->idle_src = LT_IDLE_SCHED_EXEC_START;
		} else {
			t->idle_src = LT_IDLE_UNKNOWN;
			lt_strlist_add(&t->notes, "time since last run unknown: %s",
				       r < 0 ? strerror((int)-r) : "no se.exec_start in sched");
		}
	}

	if (!(flags & LT_SNAP_NO_KSTACK)) {
		snprintf(path, sizeof(path), "/proc/%d/task/%d/stack", (int)pid, (int)t->tid);
		r = lts_read_small(path, buf, sizeof(buf));
		if (r >= 0) {
			t->kstack_status = LT_KSTACK_OK;
			parse_kstack(t, buf);
			c->s->kstack_available = true;
		} else {
			t->kstack_status = LT_KSTACK_UNAVAILABLE;
			if (r == -EACCES || r == -EPERM)
				lt_strlist_add(&t->notes, "kernel stack unavailable (needs root)");
			else
				lt_strlist_add(&t->notes, "kernel stack unavailable: %s", strerror((int)-r));
		}
	}
	return 0;
}

/* ---- decoding of the blocking syscall ---- */

static const char *skip_blank(const char *p)
{
	while (*p == ' ' || *p == '\t')
		p++;
	return p;
}

static bool is_tid(const struct lt_snapshot *s, uint32_t v)
{
	return v > 0 && v <= (uint32_t)INT_MAX && lt_snapshot_find(s, (pid_t)v) != NULL;
}

static bool read_timespec(struct ctx *c, uint64_t addr, int64_t *sec, int64_t *nsec)
{
	int64_t ts[2];
	if (!addr || lt_mem_read(ctx_mem(c), addr, ts, sizeof(ts)))
		return false;
	*sec = ts[0];
	*nsec = ts[1];
	return true;
}

static int64_t ts_ms(int64_t sec, int64_t nsec)
{
	return sec * 1000 + nsec / 1000000;
}

/* Is PID in our namespace of kind NS ("pid": a tid in its lock words is
 * one /proc names; "ipc": semctl names its semaphore sets)? */
static bool same_ns(pid_t pid, const char *ns)
{
	struct stat a, b;
	char p[64], self[64];
	snprintf(p, sizeof(p), "/proc/%d/ns/%s", (int)pid, ns);
	snprintf(self, sizeof(self), "/proc/self/ns/%s", ns);
	return stat(self, &a) == 0 && stat(p, &b) == 0 && a.st_ino == b.st_ino && a.st_dev == b.st_dev;
}

/* Is tid a live thread of a process other than SELF's (a thread of SELF
 * started after its threads were listed is not), in SELF's pid namespace?
 * Its tgid and name. */
static bool other_process(pid_t self, pid_t tid, pid_t *tgid, char *comm, size_t len)
{
	if (!same_ns(self, "pid"))
		return false;
	char path[64], buf[4096];
	snprintf(path, sizeof(path), "/proc/%d/status", (int)tid);
	if (lts_read_small(path, buf, sizeof(buf)) <= 0)
		return false;
	const char *tg = strstr(buf, "\nTgid:");
	const char *nm = strncmp(buf, "Name:", 5) == 0 ? buf + 5 : NULL;
	const char *st = strstr(buf, "\nState:");
	if (!tg || (st && (strchr(st + 7, 'Z') == skip_blank(st + 7) || strchr(st + 7, 'X') == skip_blank(st + 7))))
		return false;
	*tgid = (pid_t)strtol(tg + 6, NULL, 10);
	if (*tgid == self) {
		*tgid = 0;
		return false;
	}
	size_t n = 0;
	if (nm) {
		nm = skip_blank(nm);
		while (nm[n] && nm[n] != '\n' && n + 1 < len)
			n++;
		memcpy(comm, nm, n);
	}
	comm[n] = 0;
	return *tgid > 0;
}

/* Does TID name no thread at all, the target SELF in our pid namespace
 * (so its lock words' tids are the ones /proc names)?  /proc/TID (which
 * resolves any thread's tid, not only a process's) absent: ENOENT, not
 * another error. */
static bool no_such_tid(pid_t self, pid_t tid)
{
	char p[64];
	struct stat st;
	if (tid <= 0 || !same_ns(self, "pid"))
		return false;
	snprintf(p, sizeof(p), "/proc/%d", (int)tid);
	return stat(p, &st) < 0 && errno == ENOENT;
}

/* The MAP_SHARED mapping of /proc/PID/maps text MAPS holding ADDR: fill
 * F's object identity (device, inode, offset of ADDR in the object). */
static bool shared_object_at(const char *maps, uint64_t addr, struct lt_futex *f)
{
	for (const char *l = maps; l && *l;) {
		unsigned long long lo, hi, off, ino;
		unsigned maj, min;
		char perms[8];
		if (sscanf(l, "%llx-%llx %7s %llx %x:%x %llu", &lo, &hi, perms, &off, &maj, &min, &ino) == 7 &&
		    addr >= lo && addr < hi) {
			if (perms[3] != 's' || ino == 0)
				return false;
			f->shared_obj = true;
			f->obj_major = maj;
			f->obj_minor = min;
			f->obj_ino = ino;
			f->obj_off = off + (addr - lo);
			return true;
		}
		l = strchr(l, '\n');
		l = l ? l + 1 : NULL;
	}
	return false;
}

/* /proc/PID/maps, read once (NULL if unreadable). */
static const char *ctx_maps(struct ctx *c)
{
	if (!c->maps_read) {
		char path[64];
		snprintf(path, sizeof(path), "/proc/%d/maps", (int)lt_proc_reader(c->s->pid));
		c->maps = lts_read_all(path, NULL);
		c->maps_read = true;
	}
	return c->maps;
}

/* The semaphore object each multiprocessing SemLock of the process is
 * over (its sem_t's MAP_SHARED mapping), as a futex waiting on it is keyed;
 * then the holders they name of the process's own waiters (semlock.c). */
static void semlock_objects(struct ctx *c)
{
	struct lt_snapshot *s = c->s;
	for (size_t i = 0; i < s->n_semlocks; i++) {
		struct lt_semlock *l = &s->semlocks[i];
		struct lt_futex f = { 0 };
		if (!shared_object_at(ctx_maps(c), l->handle, &f))
			continue;
		l->shared = true;
		l->obj_major = f.obj_major;
		l->obj_minor = f.obj_minor;
		l->obj_ino = f.obj_ino;
		l->obj_off = f.obj_off;
	}
	lts_semlock_owners(s, &s, 1, true, NULL);
}

static void note_shared_object(struct ctx *c, struct lt_futex *f)
{
	if (f->private_)
		return;
	if (!shared_object_at(ctx_maps(c), f->uaddr, f) || !f->is_wait)
		return;
	/* who else maps it (the last object's count kept: its waiters
	 * come one after another) */
	if (!c->mappers_read || c->mappers_ino != f->obj_ino || c->mappers_maj != f->obj_major ||
	    c->mappers_min != f->obj_minor || c->mappers_off != f->obj_off) {
		pid_t z[1] = { 0 };
		c->mappers_read = true;
		c->mappers_ino = f->obj_ino;
		c->mappers_maj = f->obj_major;
		c->mappers_min = f->obj_minor;
		c->mappers_off = f->obj_off;
		c->mappers = (int)lt_proc_mappers(f->obj_major, f->obj_minor, f->obj_ino, f->obj_off, c->s->pid,
						  c->mapper, LT_FUTEX_MAPPERS);
		c->zombie = 0;
		if (!c->mappers && lt_proc_zombie_children(c->s->pid, z, 1))
			c->zombie = z[0];
	}
	f->obj_mappers_known = true;
	f->obj_mapper_pids = true;
	f->obj_mappers = c->mappers;
	memcpy(f->obj_mapper, c->mapper, sizeof(f->obj_mapper));
	f->obj_zombie_child = c->zombie;
}

static void decode_futex(struct ctx *c, struct lt_thread *t)
{
	struct lt_futex *f = &t->futex;
	struct lt_mem *m = ctx_mem(c);
	if (t->sc.nr == 455)
		lts_futex2_decode_args(f, t->sc.args);
	else
		lt_futex_decode_args(f, t->sc.args);
	/* a thread decoded again (its registers, then /proc) keeps nothing
	 * of the first decoding's owner */
	f->owner_tgid = 0;
	f->owner_comm[0] = 0;
	f->owner_gone = false;
	f->owner_exited = false;
	f->gone_tid = f->gone_parent = 0;
	f->gone_ptr = 0;
	f->gone_comm[0] = 0;
	if (!f->is_wait)
		t->wait = LT_WAIT_OTHER;
	if (c->sym && !(c->o->flags & LT_SNAP_NO_SYMBOLS))
		f->lock_sym = lt_sym_describe(c->sym, f->uaddr);
	note_shared_object(c, f);
	if (f->timeout_ptr) {
		f->timeout_ok = read_timespec(c, f->timeout_ptr, &f->timeout_sec, &f->timeout_nsec);
		if (!f->timeout_ok)
			lt_strlist_add(&t->notes, "futex timeout at 0x%" PRIx64 " unreadable", f->timeout_ptr);
	}
	int r = lt_mem_read(m, f->uaddr, &f->word, sizeof(f->word));
	f->word_ok = r == 0;
	f->owner_kind = LT_OWNER_UNKNOWN;
	f->owner = 0;
	if (!f->word_ok) {
		lt_strlist_add(&t->notes, "futex word at 0x%" PRIx64 " unreadable: %s", f->uaddr,
			       strerror(-r));
		return;
	}
	int32_t mx[5]; /* __lock __count __owner __nusers __kind */
	f->mutex_ok = lt_mem_read(m, f->uaddr, mx, sizeof(mx)) == 0;
	if (f->mutex_ok) {
		f->mutex_count = mx[1];
		f->mutex_owner = mx[2];
		f->mutex_kind = mx[4];
	}
	uint32_t w = f->word;
	if (f->is_pi) {
		/* the kernel keeps the owner tid in the word itself */
		f->owner_kind = (w & FUTEX_TID_MASK) ? LT_OWNER_PI : LT_OWNER_NONE;
		f->owner = (pid_t)(w & FUTEX_TID_MASK);
		if (f->owner && !is_tid(c->s, (uint32_t)f->owner)) {
			/* a process-shared PI mutex: its owner's process is
			 * followed as a pthread mutex __owner's is */
			if (!f->private_ && other_process(c->s->pid, f->owner, &f->owner_tgid, f->owner_comm,
							  sizeof(f->owner_comm))) {
				f->mutex_owner = f->owner;
				lt_strlist_add(&t->notes, "PI futex owner %d is a thread of another process, %d "
					       "(%s): a process-shared lock", (int)f->owner, (int)f->owner_tgid,
					       f->owner_comm);
			} else {
				lt_strlist_add(&t->notes, "PI futex owner %d is not a thread of this process",
					       (int)f->owner);
			}
		}
		return;
	}
	/* robust mutex: word = owner tid | FUTEX_WAITERS */
	if ((w & FUTEX_WAITERS) && is_tid(c->s, w & FUTEX_TID_MASK)) {
		f->owner_kind = LT_OWNER_ROBUST;
		f->owner = (pid_t)(w & FUTEX_TID_MASK);
		return;
	}
	/* glibc pthread_mutex_t: lock word 1 (locked) or 2 (locked, waiters),
	 * __owner a thread of this process, __kind only known bits */
	if (f->mutex_ok && (w == 1 || w == 2) && is_tid(c->s, (uint32_t)f->mutex_owner) &&
	    (f->mutex_kind & ~0x3f3) == 0 && f->mutex_count >= 0) {
		f->owner_kind = LT_OWNER_MUTEX;
		f->owner = f->mutex_owner;
		return;
	}
	if (f->mutex_ok && (w == 1 || w == 2) && f->mutex_owner > 0 && (f->mutex_kind & ~0x3f3) == 0 &&
	    !is_tid(c->s, (uint32_t)f->mutex_owner)) {
		if (f->private_) {
			/* a private lock is no other process's: copied locked
			 * by fork(), or its owner exited (forkorigin.c) */
			f->owner_gone = true;
			f->gone_tid = f->mutex_owner;
			lt_strlist_add(&t->notes, "lock looks like a private pthread mutex whose __owner %d is "
				       "no thread of this process", (int)f->mutex_owner);
		} else if (other_process(c->s->pid, f->mutex_owner, &f->owner_tgid, f->owner_comm,
					 sizeof(f->owner_comm)))
			lt_strlist_add(&t->notes, "lock looks like a pthread mutex whose __owner %d is a thread "
				       "of another process, %d (%s): a process-shared lock",
				       (int)f->mutex_owner, (int)f->owner_tgid, f->owner_comm);
		else if ((f->owner_exited = no_such_tid(c->s->pid, f->mutex_owner)))
			lt_strlist_add(&t->notes, "lock looks like a process-shared pthread mutex whose __owner %d "
				       "is no thread at all (/proc/%d does not exist, in the target's pid namespace): "
				       "its owner exited holding it (inferred)", (int)f->mutex_owner, (int)f->mutex_owner);
		else
			lt_strlist_add(&t->notes, "lock looks like a pthread mutex whose __owner %d is not a "
				       "thread of this process (exited while holding it?)", (int)f->mutex_owner);
	}
	/* pthread_join sleeps on the joined thread's tid field */
	if (w == f->expected && is_tid(c->s, w)) {
		f->owner_kind = LT_OWNER_JOIN;
		f->owner = (pid_t)w;
		const struct lt_map *mp = c->sym ? lt_sym_map_at(c->sym, f->uaddr) : NULL;
		f->join_confirmed = mp && mp->stack_tid == (pid_t)w;
		return;
	}
	f->owner_kind = LT_OWNER_NONE;
}

static void decode_poll(struct ctx *c, struct lt_thread *t)
{
	struct lt_fdwait *w = &t->fdw;
	struct lt_mem *m = ctx_mem(c);
	const uint64_t *a = t->sc.args;
	pid_t pid = c->s->pid;
	long nr = t->sc.nr;
	w->epfd = -1;
	w->io.fd = -1;
	w->has_timeout = false;
	if (nr == LT_NR_POLL || nr == LT_NR_PPOLL) { /* (fds, nfds, ms) / (fds, nfds, ts*, ...) */
		w->nfds = (int)a[1];
		if (nr == LT_NR_POLL) {
			w->has_timeout = (int)a[2] >= 0;
			w->timeout_ms = (int)a[2];
		} else if (a[2]) {
			int64_t sec, nsec;
			w->has_timeout = true;
			w->timeout_ms = read_timespec(c, a[2], &sec, &nsec) ? ts_ms(sec, nsec) : -1;
		}
		size_t n = a[1] > MAX_POLL_FDS ? MAX_POLL_FDS : (size_t)a[1];
		if (n == 0) {
			w->fds_ok = true;
			return;
		}
		struct { int32_t fd; int16_t events, revents; } *pf = calloc(n, 8);
		if (!pf)
			return;
		int r = lt_mem_read(m, a[0], pf, n * 8);
		if (r) {
			lt_strlist_add(&t->notes, "pollfd array at 0x%" PRIx64 " unreadable: %s", a[0],
				       strerror(-r));
			free(pf);
			return;
		}
		w->fds = calloc(n, sizeof(*w->fds));
		if (w->fds) {
			for (size_t i = 0; i < n; i++) {
				if (pf[i].fd < 0)
					continue;
				struct lt_fd *fd = &w->fds[w->n_fds++];
				lts_describe_fd(pid, c->net, pf[i].fd, fd);
				fd->events = (uint16_t)pf[i].events;
			}
			w->fds_ok = true;
		}
		if (a[1] > MAX_POLL_FDS)
			lt_strlist_add(&t->notes, "only the first %d of %" PRIu64 " pollfds shown",
				       MAX_POLL_FDS, a[1]);
		free(pf);
		return;
	}
	if (nr == LT_NR_SELECT || nr == LT_NR_PSELECT6) { /* (nfds, r, w, e, timeout) */
		w->nfds = (int)a[0];
		if (a[4]) {
			int64_t sec, sub;
			w->has_timeout = true;
			/* timeval (select) and timespec (pselect6) are both two longs */
			if (read_timespec(c, a[4], &sec, &sub))
				w->timeout_ms = sec * 1000 + (nr == LT_NR_SELECT ? sub / 1000 : sub / 1000000);
			else
				w->timeout_ms = -1;
		}
		int nfds = (int)a[0];
		if (nfds < 0)
			nfds = 0;
		if (nfds > MAX_SELECT_FDS)
			nfds = MAX_SELECT_FDS;
		size_t words = ((size_t)nfds + 63) / 64;
		uint64_t *sets[3] = { NULL, NULL, NULL };
		bool ok = true;
		for (int k = 0; k < 3 && words; k++) {
			if (!a[1 + k])
				continue;
			sets[k] = calloc(words, 8);
			if (!sets[k] || lt_mem_read(m, a[1 + k], sets[k], words * 8)) {
				ok = false;
				lt_strlist_add(&t->notes, "fd_set at 0x%" PRIx64 " unreadable", a[1 + k]);
				free(sets[k]);
				sets[k] = NULL;
			}
		}
		size_t count = 0;
		for (int fd = 0; fd < nfds; fd++)
			for (int k = 0; k < 3; k++)
				if (sets[k] && (sets[k][fd / 64] >> (fd % 64) & 1)) {
					count++;
					break;
				}
		w->fds = count ? calloc(count, sizeof(*w->fds)) : NULL;
		if (w->fds || !count) {
			for (int fd = 0; fd < nfds && w->fds; fd++) {
				unsigned ev = 0;
				for (int k = 0; k < 3; k++)
					if (sets[k] && (sets[k][fd / 64] >> (fd % 64) & 1))
						ev |= 1u << k;
				if (!ev)
					continue;
				struct lt_fd *d = &w->fds[w->n_fds++];
				lts_describe_fd(pid, c->net, fd, d);
				d->events = ev;
			}
			w->fds_ok = ok;
		}
		for (int k = 0; k < 3; k++)
			free(sets[k]);
		return;
	}
	/* epoll_wait / epoll_pwait (epfd, events, maxevents, ms) and
	 * epoll_pwait2 (epfd, events, maxevents, timespec*) */
	w->epfd = (int)a[0];
	w->nfds = (int)a[2];
	if (nr == LT_NR_EPOLL_PWAIT2) {
		if (a[3]) {
			int64_t sec, nsec;
			w->has_timeout = true;
			w->timeout_ms = read_timespec(c, a[3], &sec, &nsec) ? ts_ms(sec, nsec) : -1;
		}
	} else {
		w->has_timeout = (int)a[3] >= 0;
		w->timeout_ms = (int)a[3];
	}
	int r = lts_epoll_fds(pid, c->net, w->epfd, w);
	w->fds_ok = r == 0;
	if (r)
		lt_strlist_add(&t->notes, "epoll interest list of fd %d unreadable: %s", w->epfd,
			       strerror(-r));
}

#define CLONE_VFORK_FLAG 0x4000ull

/* A vfork parent: in vfork, or in clone or clone3 with CLONE_VFORK (glibc's
 * posix_spawn and system() use clone3 so; its flags are the first field
 * of the struct clone_args it was given), asleep until its child execs or
 * exits: a wait for a child. */
static bool vfork_call(struct ctx *c, const struct lt_thread *t)
{
	uint64_t flags = 0;
	if (t->sc.nr == 58)
		return true;
	if (t->sc.nr == 56)
		return (t->sc.args[0] & CLONE_VFORK_FLAG) != 0;
	return t->sc.nr == 435 && !lt_mem_read(ctx_mem(c), t->sc.args[0], &flags, sizeof(flags)) &&
	       (flags & CLONE_VFORK_FLAG);
}

static void decode(struct ctx *c, struct lt_thread *t)
{
	t->fdw.io.fd = -1;
	t->fdw.epfd = -1;
	if (t->sc.state != LT_SC_IN_SYSCALL) {
		t->wait = LT_WAIT_NONE;
		return;
	}
	if (c->compat) {
		t->wait = LT_WAIT_OTHER;
		return;
	}
	if (t->sc.nr == 219 && lt_kstack_has(t, "do_restart_poll")) {
		t->sc.nr = 7; /* the poll it resumes */
		t->sc_resumed = true;
	}
	t->sc_name = lt_syscall_name(t->sc.nr);
	t->wait = lt_syscall_wait_kind(t->sc.nr);
	if (t->wait == LT_WAIT_OTHER && vfork_call(c, t))
		t->wait = LT_WAIT_CHILD;
	switch (t->wait) {
	case LT_WAIT_FUTEX:
		decode_futex(c, t);
		break;
	case LT_WAIT_POLL:
		decode_poll(c, t);
		break;
	case LT_WAIT_IO: {
		int dir;
		lts_describe_fd(c->s->pid, c->net, lt_io_wait_fd(t, &dir), &t->fdw.io);
		break;
	}
	default:
		break;
	}
}

/* ---- human one-liner of the syscall ---- */

static char *fd_phrase(const struct lt_fd *f)
{
	if (f->desc && f->target && strcmp(f->desc, f->target) != 0)
		return lts_asprintf("fd %d: %s, %s", f->fd, f->target, f->desc);
	return lts_asprintf("fd %d: %s", f->fd, f->desc ? f->desc : f->target ? f->target : "?");
}

/* semop(semid, sops, nsops) / semtimedop(..., timeout): the set, the
 * first operation, and the semaphore's value and last changer (semctl, in
 * the target's IPC namespace only): who will post it is not recorded
 * anywhere, the last pid to change it is a lead, no more. */
static char *semop_detail(struct ctx *c, const struct lt_thread *t, const char *name)
{
	const uint64_t *a = t->sc.args;
	int semid = (int)a[0];
	struct { uint16_t num; int16_t op, flg; } sb;
	char op[64] = "operations unreadable", tmo[48] = "", st[160] = "";
	bool have = a[1] && !lt_mem_read(ctx_mem(c), a[1], &sb, sizeof(sb));
	if (have)
		snprintf(op, sizeof(op), "sem %u %s%d%s", sb.num, sb.op > 0 ? "+" : "", sb.op,
			 a[2] > 1 ? ", ..." : "");
	if (t->sc.nr == 220) {
		int64_t sec, nsec;
		if (!a[3])
			snprintf(tmo, sizeof(tmo), ", no timeout");
		else if (read_timespec(c, a[3], &sec, &nsec))
			snprintf(tmo, sizeof(tmo), ", timeout %" PRId64 ".%03" PRId64 " s", sec, nsec / 1000000);
	}
	if (have && same_ns(c->s->pid, "ipc")) {
		int val = semctl(semid, sb.num, GETVAL);
		int lastpid = semctl(semid, sb.num, GETPID);
		int ncnt = semctl(semid, sb.num, sb.op ? GETNCNT : GETZCNT);
		if (val >= 0 && lastpid > 0)
			snprintf(st, sizeof(st), ": System V semaphore value %d, %d waiting for it to %s, last "
				 "changed by process %d", val, ncnt, sb.op ? "rise" : "be 0", lastpid);
		else if (val >= 0)
			snprintf(st, sizeof(st), ": System V semaphore value %d, %d waiting for it to %s, never "
				 "changed by a semop", val, ncnt, sb.op ? "rise" : "be 0");
	}
	return lts_asprintf("%s(semid %d, %s, %" PRIu64 " op%s%s)%s", name, semid, op, a[2], a[2] == 1 ? "" : "s",
			    tmo, st);
}

/* msgrcv(msqid, msgp, msgsz, msgtyp, msgflg) / msgsnd(msqid, msgp, msgsz,
 * msgflg): what it waits for and the queue's state (msgctl, in the target's
 * IPC namespace only): a receiver waits for a message of its type, a
 * sender for room.  Who will send or receive is recorded nowhere; the last
 * process to have done so is a lead, no more. */
#define MSG_EXCEPT_FLAG 020000 /* MSG_EXCEPT: any type but msgtyp */

static char *msg_detail(struct ctx *c, const struct lt_thread *t, const char *name)
{
	const uint64_t *a = t->sc.args;
	int id = (int)a[0];
	bool rcv = t->sc.nr == 70;
	char what[96], st[200] = "";
	int64_t typ = (int64_t)a[3];
	if (!rcv)
		snprintf(what, sizeof(what), "msqid %d, %" PRIu64 " bytes", id, a[2]);
	else if (typ == 0)
		snprintf(what, sizeof(what), "msqid %d, any type, up to %" PRIu64 " bytes", id, a[2]);
	else if (typ > 0 && (a[4] & MSG_EXCEPT_FLAG))
		snprintf(what, sizeof(what), "msqid %d, any type but %" PRId64 ", up to %" PRIu64 " bytes", id, typ, a[2]);
	else if (typ > 0)
		snprintf(what, sizeof(what), "msqid %d, type %" PRId64 ", up to %" PRIu64 " bytes", id, typ, a[2]);
	else
		snprintf(what, sizeof(what), "msqid %d, type <= %" PRId64 ", up to %" PRIu64 " bytes", id,
			 typ == INT64_MIN ? INT64_MAX : -typ, a[2]);
	struct msqid_ds ds;
	if (same_ns(c->s->pid, "ipc") && msgctl(id, IPC_STAT, &ds) == 0) {
		pid_t last = rcv ? ds.msg_lspid : ds.msg_lrpid;
		char lead[64] = "";
		if (last > 0)
			snprintf(lead, sizeof(lead), "last %s by process %d", rcv ? "sent to" : "received from",
				 (int)last);
		else
			snprintf(lead, sizeof(lead), "never %s", rcv ? "sent to" : "received from");
		if (rcv)
			snprintf(st, sizeof(st), ": System V message queue of %lu message%s (%lu bytes)%s, %s",
				 (unsigned long)ds.msg_qnum, ds.msg_qnum == 1 ? "" : "s",
				 (unsigned long)ds.__msg_cbytes, ds.msg_qnum ? ", none of its type" : "", lead);
		else /* full for it: its message does not fit (read after it slept: it may have room now) */
			snprintf(st, sizeof(st), ": System V message queue %s: %lu of %lu bytes in %lu message%s, %s",
				 ds.__msg_cbytes + a[2] > ds.msg_qbytes ? "full for it" : "with room for it now",
				 (unsigned long)ds.__msg_cbytes, (unsigned long)ds.msg_qbytes,
				 (unsigned long)ds.msg_qnum, ds.msg_qnum == 1 ? "" : "s", lead);
	}
	return lts_asprintf("%s(%s)%s", name, what, st);
}

/* A read (1) or a write (2) of one fd that a socket's timeout ends:
 * read, readv, recvfrom, recvmsg, recvmmsg; write, writev, sendto,
 * sendmsg, sendmmsg; 0 other calls. */
static int sock_io_dir(long nr)
{
	switch (nr) {
	case 0: case 19: case 45: case 47: case 299: return 1;
	case 1: case 20: case 44: case 46: case 307: return 2;
	default: return 0;
	}
}

/* The direction (sock_io_dir) of T's blocking read or write of a
 * socket, 0 when it is in no such call. */
static int sock_wait_dir(const struct lt_thread *t)
{
	if (t->sc.state != LT_SC_IN_SYSCALL || t->wait != LT_WAIT_IO || t->fdw.io.kind != LT_FD_SOCKET)
		return 0;
	return sock_io_dir(t->sc.nr);
}

/* The SO_RCVTIMEO / SO_SNDTIMEO of the socket each thread blocks in a
 * read or write of: one BPF task-file iterator over the process's fds,
 * only when a thread waits so, from the object the caller loaded for the
 * registers (o->iter), else loaded here.  Unreadable: said, and each such
 * wait's timeout is unknown (never taken for none). */
static void sock_timeouts(struct lt_snapshot *s, const struct lt_snapshot_opts *o)
{
	bool any = false;
	for (size_t i = 0; i < s->n_threads && !any; i++)
		any = sock_wait_dir(&s->threads[i]) != 0;
	if (!any)
		return;
	struct lt_socktimeo_rec *v = NULL;
	size_t n = 0;
	unsigned hz = 0;
	char err[256] = "";
	struct lt_taskiter *it = o->iter && lt_taskiter_tgid(o->iter) == s->pid ? o->iter : NULL, *own = NULL;
	if (!it && geteuid() != 0)
		snprintf(err, sizeof(err), "not root: the BPF task-file iterator needs it");
	else if (!it && lt_taskiter_open(s->pid, &own, err, sizeof(err)) == 0)
		it = own;
	bool ok = it && lt_taskiter_socktimeo(it, &v, &n, &hz, err, sizeof(err)) == 0;
	lt_taskiter_close(own);
	if (!ok)
		lt_strlist_add(&s->notes, "socket timeouts (SO_RCVTIMEO, SO_SNDTIMEO) not read: %s; a blocking "
			       "socket read or write may time out", err);
	for (size_t i = 0; i < s->n_threads; i++) {
		struct lt_thread *t = &s->threads[i];
		int dir = sock_wait_dir(t);
		if (!dir)
			continue;
		t->fdw.sock_timeo = LT_SOCK_TIMEO_UNKNOWN;
		for (size_t k = 0; ok && k < n; k++) {
			if ((int)v[k].fd != t->fdw.io.fd)
				continue;
			int64_t j = dir == 1 ? v[k].rcvtimeo : v[k].sndtimeo;
			if (j == INT64_MAX || j <= 0) {
				t->fdw.sock_timeo = LT_SOCK_TIMEO_NONE;
			} else {
				t->fdw.sock_timeo = LT_SOCK_TIMEO_SET;
				t->fdw.sock_timeo_ms = hz ? j * 1000 / (int64_t)hz : -1;
			}
		}
	}
	free(v);
}


static char *make_detail(struct ctx *c, const struct lt_thread *t)
{
	const struct lt_snapshot *s = c->s;
	const uint64_t *a = t->sc.args;
	char name[32];
	if (t->sc_name)
		snprintf(name, sizeof(name), "%s", t->sc_name);
	else
		snprintf(name, sizeof(name), "%s_%ld", c->compat ? "i386_syscall" : "syscall", t->sc.nr);
	if (t->wait == LT_WAIT_FUTEX || (t->sc_name && (t->sc.nr == 202 || t->sc.nr == 455))) {
		const struct lt_futex *f = &t->futex;
		char op[96];
		if (f->cmd >= 0)
			lt_futex_op_str(f->op, op, sizeof(op));
		else
			snprintf(op, sizeof(op), "FUTEX2%s", f->private_ ? "_PRIVATE" : "");
		char word[48] = "word unreadable";
		if (f->word_ok && f->word > 0xffff)
			snprintf(word, sizeof(word), "word=0x%x", f->word);
		else if (f->word_ok)
			snprintf(word, sizeof(word), "word=%u", f->word);
		char own[200] = "", what[160] = "";
		if (f->lock_kind)
			snprintf(what, sizeof(what), ", %s%s%s", f->lock_kind, f->lock_name ? " " : "",
				 f->lock_name ? f->lock_name : "");
		if (f->owner_kind >= LT_OWNER_MUTEX) {
			const struct lt_thread *o = lt_snapshot_find(s, f->owner);
			const char *how = f->owner_kind == LT_OWNER_JOIN ? "joining thread" :
					  f->owner_kind == LT_OWNER_INFERRED ? "probably held by thread" :
					  f->owner_kind == LT_OWNER_COND ? "its lock held by thread" : "held by thread";
			snprintf(own, sizeof(own), ", %s %d (%s)%s", how, (int)f->owner,
				 o ? lt_thread_name(o) : "not in this process",
				 f->owner_kind == LT_OWNER_MUTEX ? " [pthread mutex __owner]" :
				 f->owner_kind == LT_OWNER_PI ? " [PI futex word]" :
				 f->owner_kind == LT_OWNER_ROBUST ? " [robust mutex word]" :
				 f->owner_kind == LT_OWNER_RWLOCK ? " [rwlock __cur_writer]" :
				 f->owner_kind == LT_OWNER_INFERRED ? " [inferred from its frames]" :
				 f->owner_kind == LT_OWNER_COND ? " [its RLock's recorded owner]" :
				 f->owner_kind == LT_OWNER_RUNTIME ? " [read from the runtime]" : "");
		} else if (f->is_wait && f->owner_gone && f->gone_parent) {
			/* copied locked by fork(): the owner is the parent's */
			snprintf(own, sizeof(own), ", held by thread %d of process %d when this process was "
				 "forked from it: no thread of this process", (int)f->gone_tid, (int)f->gone_parent);
		} else if (f->is_wait && f->owner_gone) {
			snprintf(own, sizeof(own), ", recorded owner %d is no thread of this process",
				 (int)f->gone_tid);
		} else if (f->is_wait && f->owner_tgid > 0) {
			/* a process-shared mutex held by a thread of another
			 * process (snapshot -p A,B resolves it in its verdicts) */
			snprintf(own, sizeof(own), ", held by thread %d of process %d (%s) [pthread mutex __owner]",
				 (int)f->mutex_owner, (int)f->owner_tgid, f->owner_comm[0] ? f->owner_comm : "?");
		} else if (f->is_wait && f->parked) {
			snprintf(own, sizeof(own), ", which nothing wakes");
		} else if (f->is_wait && (t->acquire || f->rtlock)) {
			snprintf(own, sizeof(own), ", holder not recorded");
		} else if (f->owner_kind == LT_OWNER_NONE && f->is_wait) {
			snprintf(own, sizeof(own), ", no owner recorded");
		}
		return lts_asprintf("%s(0x%" PRIx64 " <%s>, %s, %u) %s%s%s", name, f->uaddr,
				    f->lock_sym ? f->lock_sym : "?", op, f->expected, word, what, own);
	}
	if (t->wait == LT_WAIT_IO) {
		char *fp = fd_phrase(&t->fdw.io), tmo[96] = "";
		const char *opt = sock_io_dir(t->sc.nr) == 2 ? "SO_SNDTIMEO" : "SO_RCVTIMEO";
		if (t->fdw.sock_timeo == LT_SOCK_TIMEO_SET && t->fdw.sock_timeo_ms >= 0)
			snprintf(tmo, sizeof(tmo), " %s %" PRId64 " ms", opt, t->fdw.sock_timeo_ms);
		else if (t->fdw.sock_timeo == LT_SOCK_TIMEO_SET)
			snprintf(tmo, sizeof(tmo), " %s set (its length unknown)", opt);
		else if (t->fdw.sock_timeo == LT_SOCK_TIMEO_NONE)
			snprintf(tmo, sizeof(tmo), " no %s", opt);
		else if (t->fdw.sock_timeo == LT_SOCK_TIMEO_UNKNOWN)
			snprintf(tmo, sizeof(tmo), " %s not known", opt);
		char *d;
		int dir;
		(void)lt_io_wait_fd(t, &dir);
		if (t->sc.nr == 275 || t->sc.nr == 276) /* the two fds, the one it sleeps on described */
			d = lts_asprintf("%s(fd %d -> fd %d, %" PRIu64 " bytes): waits to %s %s", name, (int)a[0],
					 (int)(t->sc.nr == 275 ? a[2] : a[1]), t->sc.nr == 275 ? a[4] : a[2],
					 dir == 2 ? "write" : "read", fp ? fp : "?");
		else
			d = lts_asprintf("%s(%s, 0x%" PRIx64 ", %" PRIu64 ")%s", name, fp ? fp : "?", a[1], a[2], tmo);
		free(fp);
		return d;
	}
	if (t->wait == LT_WAIT_POLL) {
		const struct lt_fdwait *w = &t->fdw;
		char tmo[48];
		if (!w->has_timeout)
			snprintf(tmo, sizeof(tmo), "no timeout");
		else if (w->timeout_ms < 0)
			snprintf(tmo, sizeof(tmo), "timeout unreadable");
		else
			snprintf(tmo, sizeof(tmo), "timeout %" PRId64 " ms", w->timeout_ms);
		size_t cap = 256, len = 0;
		char *fds = malloc(cap);
		if (!fds)
			return NULL;
		fds[0] = 0;
		for (size_t i = 0; i < w->n_fds && i < 16; i++) {
			char *fp = fd_phrase(&w->fds[i]);
			if (!fp)
				break;
			size_t need = len + strlen(fp) + 8;
			char *nf = lt_grow_to(fds, &cap, need, 1, 256);
			if (!nf) {
				free(fp);
				break;
			}
			fds = nf;
			len += (size_t)sprintf(fds + len, "%s%s", i ? "; " : "", fp);
			free(fp);
		}
		char more[32] = "";
		if (w->n_fds > 16)
			snprintf(more, sizeof(more), "; +%zu more", w->n_fds - 16);
		char *d;
		if (w->epfd >= 0)
			d = lts_asprintf("%s(epfd %d, maxevents %d, %s) watching [%s%s]", name, w->epfd,
					 w->nfds, tmo, fds, more);
		else
			d = lts_asprintf("%s(nfds %d, %s) on [%s%s]", name, w->nfds, tmo, fds, more);
		free(fds);
		return d;
	}
	if (t->wait == LT_WAIT_SLEEP && (t->sc.nr == 35 || t->sc.nr == 230)) {
		/* nanosleep(req, rem) / clock_nanosleep(clock, flags, req, rem) */
		bool abs = t->sc.nr == 230 && (a[1] & 1); /* TIMER_ABSTIME */
		uint64_t req = t->sc.nr == 35 ? a[0] : a[2];
		int64_t sec, nsec;
		char what[64] = "request unreadable";
		if (read_timespec(c, req, &sec, &nsec))
			snprintf(what, sizeof(what), "%s %" PRId64 ".%03" PRId64 " s",
				 abs ? "until" : "for", sec, nsec / 1000000);
		if (t->sc.nr == 35)
			return lts_asprintf("%s(%s)", name, what);
		static const char *const clocks[] = { "CLOCK_REALTIME", "CLOCK_MONOTONIC",
						      "CLOCK_PROCESS_CPUTIME_ID", "CLOCK_THREAD_CPUTIME_ID",
						      "CLOCK_MONOTONIC_RAW", "CLOCK_REALTIME_COARSE",
						      "CLOCK_MONOTONIC_COARSE", "CLOCK_BOOTTIME" };
		if (a[0] < sizeof(clocks) / sizeof(clocks[0]))
			return lts_asprintf("%s(%s, %s)", name, clocks[a[0]], what);
		return lts_asprintf("%s(clock %" PRIu64 ", %s)", name, a[0], what);
	}
	if (t->sc.nr == 65 || t->sc.nr == 220)
		return semop_detail(c, t, name);
	if (t->sc.nr == 69 || t->sc.nr == 70)
		return msg_detail(c, t, name);
	if (t->sc.nr == 34)
		return lts_asprintf("%s()", name); /* pause: no arguments */
	if (t->sc.nr == 219 && t->acquire)
		return lts_asprintf("%s(): %s resumed after a stop, a lock wait whose lock the restarted call "
				    "no longer names", name, t->acquire);
	if (t->sc.nr == 219)
		return lts_asprintf("%s(): a timed call (a sleep, or a poll or futex wait with a timeout) resumed "
				    "after a stop", name);
	if (t->wait == LT_WAIT_CHILD && t->sc.nr == 61)
		return lts_asprintf("%s(pid %d)", name, (int)(int32_t)a[0]);
	if (lt_vfork_wait(t))
		return lts_asprintf("%s(%s): a vfork, asleep until its child execs or exits", name,
				    t->sc.nr == 58 ? "" : "CLONE_VFORK");
	if (t->sc.nr == LT_NR_FLOCK || (t->sc.nr == LT_NR_FCNTL && lt_fcntl_lock_cmd((unsigned)a[1]))) {
		/* the file-lock calls as the recording prints them (the
		 * wait-for edges replace this with the file's path) */
		struct lt_flock_enter fe = { .nr = (uint16_t)t->sc.nr, .fd = (int32_t)a[0],
					     .cmd = (uint32_t)a[1], .type = -1 };
		struct { int16_t type, whence; uint32_t pad; int64_t start, len; } fl;
		char call[200];
		if (t->sc.nr == LT_NR_FCNTL && a[2] && !lt_mem_read(ctx_mem(c), a[2], &fl, sizeof(fl)) &&
		    fl.type >= 0 && fl.type <= 127 && fl.whence >= 0 && fl.whence <= 255) {
			fe.type = (int8_t)fl.type;
			fe.whence = (uint8_t)fl.whence;
			fe.start = fl.start;
			fe.len = fl.len;
		}
		lt_flock_call_str(&fe, NULL, call, sizeof(call));
		return lts_strdup(call);
	}
	return lts_asprintf("%s(0x%" PRIx64 ", 0x%" PRIx64 ", 0x%" PRIx64 ", 0x%" PRIx64 ", 0x%" PRIx64
			    ", 0x%" PRIx64 ")", name, a[0], a[1], a[2], a[3], a[4], a[5]);
}

/* ---- user stacks ---- */

static bool caller_regs(struct ctx *c, pid_t tid, struct lt_regs *out)
{
	if (c->o->get_regs && c->o->get_regs(c->o->get_regs_arg, tid, out) == 0)
		return true;
	if (c->regs_sorted) {
		struct lt_tid_regs key = { .tid = tid };
		struct lt_tid_regs *r = bsearch(&key, c->regs_sorted, c->n_regs, sizeof(key), regs_cmp);
		if (r && !r->stale) {
			*out = r->regs;
			return true;
		}
	}
	return false;
}

/* A thread's pthread_t, from the task iterator's fs base; 0 unknown. */
static uint64_t ctx_fsbase(void *arg, pid_t tid)
{
	struct ctx *c = arg;
	struct lt_regs r;
	if (c->o->get_regs && c->o->get_regs(c->o->get_regs_arg, tid, &r) == 0 && r.fsbase)
		return r.fsbase;
	if (!c->regs_sorted)
		return 0;
	struct lt_tid_regs key = { .tid = tid };
	struct lt_tid_regs *e = bsearch(&key, c->regs_sorted, c->n_regs, sizeof(key), regs_cmp);
	return e ? e->regs.fsbase : 0;
}

static void unwind_one(struct ctx *c, struct lt_unwinder *u, struct lt_thread *t)
{
	struct lt_unwind_regs ur = { 0 };
	if (t->sc.state == LT_SC_RUNNING || t->sc.state == LT_SC_UNREADABLE) {
		t->regs_src = LT_REGS_NONE;
		t->ustack_end = lts_strdup(t->sc.state == LT_SC_RUNNING
					   ? "[no user stack: thread is running, registers not saved]"
					   : "[no user stack: /proc syscall file unreadable]");
		return;
	}
	if (caller_regs(c, t->tid, &ur.r)) {
		ur.full = true;
		t->regs_src = LT_REGS_CALLER;
		/* the caller's registers were saved earlier: if the thread has
		 * moved since, /proc's fresh sp/pc win */
		if (ur.r.sp != t->sc.sp || ur.r.ip != t->sc.pc) {
			lt_strlist_add(&t->notes, "caller registers stale (ip 0x%" PRIx64 " sp 0x%" PRIx64
				       " vs /proc 0x%" PRIx64 " 0x%" PRIx64 "): using /proc sp/pc",
				       ur.r.ip, ur.r.sp, t->sc.pc, t->sc.sp);
			memset(&ur, 0, sizeof(ur));
		}
	}
	if (!ur.full) {
		ur.r.sp = t->sc.sp;
		ur.r.ip = t->sc.pc;
		t->regs_src = LT_REGS_PROC;
	}
	int max = c->o->max_frames > 0 ? c->o->max_frames : 64;
	int r = lt_unwind_thread(u, t->tid, &ur, max, &t->frames, &t->n_frames, &t->ustack_end);
	if (r < 0)
		lt_strlist_add(&t->notes, "unwind failed: %s", strerror(-r));
	/* a thread that stayed in the same system call (same sp, pc, args)
	 * from the first read until now did not touch its stack: the frames
	 * are consistent.  Otherwise they may mix two moments. */
	char path[96], buf[512];
	struct lt_sc_line now;
	snprintf(path, sizeof(path), "/proc/%d/task/%d/syscall", (int)c->s->pid, (int)t->tid);
	if (lts_read_small(path, buf, sizeof(buf)) < 0 || lt_parse_syscall_line(buf, &now) ||
	    memcmp(&now, &t->sc, sizeof(now)) != 0) {
		t->moved = true;
		lt_strlist_add(&t->notes, "the thread ran while the snapshot was taken: its user stack "
			       "may mix two moments and it is left out of the verdicts");
	}
}

/* ---- confirmation of verdicts ---- */

/* Re-read what a verdict rests on for one thread.  True if it changed. */
static bool recheck(struct ctx *c, struct lt_thread *t)
{
	char path[96], buf[512];
	struct lt_sc_line now;
	snprintf(path, sizeof(path), "/proc/%d/task/%d/syscall", (int)c->s->pid, (int)t->tid);
	if (lts_read_small(path, buf, sizeof(buf)) < 0 || lt_parse_syscall_line(buf, &now)) {
		lt_strlist_add(&t->notes, "gone or unreadable on re-check");
		return true;
	}
	if (memcmp(&now, &t->sc, sizeof(now)) != 0) {
		lt_strlist_add(&t->notes, "left %s during the snapshot (re-check)",
			       t->sc_name ? t->sc_name : "its system call");
		return true;
	}
	if (t->wait != LT_WAIT_FUTEX || !t->futex.word_ok)
		return false;
	int32_t mx[5];
	if (lt_mem_read(ctx_mem(c), t->futex.uaddr, mx, sizeof(mx)) &&
	    lt_mem_read(ctx_mem(c), t->futex.uaddr, mx, sizeof(mx[0])))
		return false; /* unreadable now: nothing to compare */
	if ((uint32_t)mx[0] != t->futex.word) {
		lt_strlist_add(&t->notes, "futex word changed from %u to %u during the snapshot",
			       t->futex.word, (uint32_t)mx[0]);
		return true;
	}
	if (t->futex.owner_kind == LT_OWNER_MUTEX && mx[2] != t->futex.mutex_owner) {
		lt_strlist_add(&t->notes, "mutex owner changed from %d to %d during the snapshot",
			       (int)t->futex.mutex_owner, (int)mx[2]);
		return true;
	}
	return false;
}

/* The snapshot is not atomic: the /proc files of 1,000 threads and their
 * futex words are read over tens of milliseconds.  In a busy process that
 * can assemble a deadlock or convoy that never existed.  Before reporting,
 * re-read every thread a verdict rests on, at least 10 ms after the first
 * read; threads that changed are marked moved and the rules run again
 * without them (a real hang is stable).  Only verdict threads are re-read. */
static void confirm_verdicts(struct ctx *c, int64_t t_read_end)
{
	struct lt_snapshot *s = c->s;
	bool *checked = calloc(s->n_threads ? s->n_threads : 1, sizeof(*checked));
	if (!checked)
		return;
	for (int round = 0; round < 3; round++) {
		bool any_new = false, any_moved = false;
		for (size_t vi = 0; vi < s->n_verdicts; vi++) {
			struct lt_verdict *v = &s->verdicts[vi];
			if (v->kind != LT_VERDICT_DEADLOCK && v->kind != LT_VERDICT_LOST_WAKEUP &&
			    v->kind != LT_VERDICT_CONVOY)
				continue;
			for (size_t k = 0; k <= v->n_tids; k++) {
				pid_t tid = k < v->n_tids ? v->tids[k] : v->owner;
				struct lt_thread *t = tid ? lt_snapshot_find(s, tid) : NULL;
				if (!t || checked[t - s->threads])
					continue;
				if (!any_new) {
					int64_t wait = t_read_end + 10000000 - lts_now_ns(CLOCK_MONOTONIC);
					if (wait > 0) {
						struct timespec ts = { 0, (long)wait };
						nanosleep(&ts, NULL);
					}
				}
				any_new = true;
				checked[t - s->threads] = true;
				if (recheck(c, t)) {
					t->moved = true;
					any_moved = true;
				}
			}
		}
		if (!any_moved)
			break;
		lt_snapshot_diagnose(s, &s->vopts);
	}
	size_t moved = 0;
	for (size_t i = 0; i < s->n_threads; i++)
		moved += s->threads[i].moved;
	if (moved)
		lt_strlist_add(&s->notes, "%zu thread(s) changed state while the snapshot was taken and "
			       "were left out of the verdicts (busy, not stuck)", moved);
	free(checked);
}

/* ---- waiters of a runtime lock that retry in timed slices ---- */

/* A runtime lock's holder asleep in a system call that is not a wait for
 * the lock itself (CPython: a read() called with the GIL held). */
static bool rt_holder_blocked(const struct lt_snapshot *s, size_t li)
{
	const struct lt_rtlock *l = &s->rtlocks[li];
	const struct lt_thread *o = l->held == 1 && l->holder > 0 ? lt_snapshot_find(s, l->holder) : NULL;
	return o && o->state != 'R' && o->sc.state == LT_SC_IN_SYSCALL && !o->moved &&
	       !(o->wait == LT_WAIT_FUTEX && o->futex.rtlock == li + 1);
}

static bool on_words(const struct lt_sc_line *sc, const struct lt_rtlock *l)
{
	return sc->state == LT_SC_IN_SYSCALL && sc->nr >= 0 && sc->nr < 65536 &&
	       lt_futex_waits((uint16_t)sc->nr, (uint32_t)sc->args[1]) && sc->args[0] >= l->base &&
	       sc->args[0] < l->base + l->size;
}

static void seen_add(struct lt_rtlock *l, pid_t tid, size_t cap)
{
	for (size_t k = 0; k < l->n_seen; k++)
		if (l->seen[k] == tid)
			return;
	if (l->n_seen < cap)
		l->seen[l->n_seen++] = tid;
}

/* A runtime lock held by a thread blocked in a system call, with fewer
 * than the convoy threshold of threads asleep on its words: its waiters
 * may retry in timed slices (CPython's GIL: 5 ms condvar waits) and be
 * runnable between two of them, for tens of ms on a loaded machine, so a
 * single read misses them.  Re-read the system call of every other thread
 * up to RESAMPLE_ROUNDS times, RESAMPLE_GAP_NS apart, while the holder
 * stays in its call; a thread seen in a futex wait on the lock's words, or
 * found runnable inside one by the first read, goes to l->seen.  Only for
 * held runtime locks with a blocked holder: nothing else pays for it.  The
 * rounds are shared by every such lock (a round reads each thread's call
 * once), so a runtime with many of them (an OCaml 5 domain's lock each)
 * costs the rounds of one: at most RESAMPLE_ROUNDS * RESAMPLE_GAP_NS. */
#define RESAMPLE_ROUNDS 12
#define RESAMPLE_GAP_NS 5000000L

struct resample {
	size_t li;
	size_t asleep, cap;
	struct lt_sc_line hsc; /* the holder's call at the first read */
	bool active;
};

static void resample_done(struct lt_rtlock *l, struct resample *r, int rounds, int64_t t0)
{
	r->active = false;
	l->seen_samples = rounds;
	l->seen_span_ms = (double)(lts_now_ns(CLOCK_MONOTONIC) - t0) / 1e6;
}

static void resample_rtlocks(struct ctx *c, int min_waiters)
{
	struct lt_snapshot *s = c->s;
	if (c->compat || !s->n_rtlocks)
		return; /* i386 syscall numbers */
	struct resample *rs = calloc(s->n_rtlocks, sizeof(*rs));
	if (!rs)
		return;
	size_t n = 0, active = 0;
	int64_t t0 = lts_now_ns(CLOCK_MONOTONIC);
	for (size_t li = 0; li < s->n_rtlocks; li++) {
		struct lt_rtlock *l = &s->rtlocks[li];
		/* a wait for another thread's work (a join) is no lock whose
		 * waiters retry in timed slices */
		if (!rt_holder_blocked(s, li) || l->waiters_named || lt_done_kind_of(l->kind))
			continue;
		struct resample *r = &rs[n++];
		*r = (struct resample){ .li = li, .cap = s->n_threads, .active = true };
		free(l->seen);
		l->n_seen = 0;
		if (!(l->seen = calloc(r->cap ? r->cap : 1, sizeof(*l->seen)))) {
			n--;
			break;
		}
		for (size_t i = 0; i < s->n_threads; i++) {
			const struct lt_thread *t = &s->threads[i];
			if (t->tid == l->holder || !on_words(&t->sc, l))
				continue;
			if (t->state == 'R')
				seen_add(l, t->tid, r->cap); /* woken from it, not yet back */
			else
				r->asleep++;
		}
		r->hsc = lt_snapshot_find(s, l->holder)->sc;
		if (r->asleep + l->n_seen >= (size_t)min_waiters)
			resample_done(l, r, 0, t0);
		else
			active++;
	}
	char path[96], buf[512];
	int rounds = 0;
	while (active && rounds < RESAMPLE_ROUNDS && !lt_budget_over()) {
		if (rounds) {
			struct timespec ts = { 0, RESAMPLE_GAP_NS };
			nanosleep(&ts, NULL);
		}
		rounds++;
		/* each holder must still be in the same call: else the lock
		 * may have changed hands and nothing stands */
		for (size_t k = 0; k < n; k++) {
			struct resample *r = &rs[k];
			struct lt_rtlock *l = &s->rtlocks[r->li];
			struct lt_sc_line now;
			if (!r->active)
				continue;
			snprintf(path, sizeof(path), "/proc/%d/task/%d/syscall", (int)s->pid, (int)l->holder);
			if (lts_read_small(path, buf, sizeof(buf)) < 0 || lt_parse_syscall_line(buf, &now) ||
			    memcmp(&now, &r->hsc, sizeof(now)) != 0) {
				l->n_seen = 0;
				resample_done(l, r, rounds, t0);
				active--;
			}
		}
		for (size_t i = 0; active && i < s->n_threads; i++) {
			const struct lt_thread *t = &s->threads[i];
			struct lt_sc_line now;
			bool read = false, ok = false;
			for (size_t k = 0; k < n; k++) {
				struct resample *r = &rs[k];
				struct lt_rtlock *l = &s->rtlocks[r->li];
				if (!r->active || t->tid == l->holder || (t->state != 'R' && on_words(&t->sc, l)))
					continue; /* the holder, or counted asleep already */
				if (!read) { /* once a round, for every lock */
					read = true;
					snprintf(path, sizeof(path), "/proc/%d/task/%d/syscall", (int)s->pid,
						 (int)t->tid);
					ok = lts_read_small(path, buf, sizeof(buf)) >= 0 &&
					     !lt_parse_syscall_line(buf, &now);
				}
				if (ok && on_words(&now, l))
					seen_add(l, t->tid, r->cap);
			}
		}
		for (size_t k = 0; k < n; k++) {
			struct resample *r = &rs[k];
			struct lt_rtlock *l = &s->rtlocks[r->li];
			if (r->active && r->asleep + l->n_seen >= (size_t)min_waiters) {
				resample_done(l, r, rounds, t0);
				active--;
			}
		}
	}
	for (size_t k = 0; k < n; k++)
		if (rs[k].active)
			resample_done(&s->rtlocks[rs[k].li], &rs[k], rounds, t0);
	free(rs);
}

/* ---- process level ---- */

static int check_process(pid_t pid, pid_t *tgid, char *comm, size_t comm_len)
{
	char path[64], buf[4096];
	snprintf(path, sizeof(path), "/proc/%d/stat", (int)pid);
	ssize_t r = lts_read_small(path, buf, sizeof(buf));
	if (r == -ENOENT || r == -ESRCH)
		return LT_SNAP_ENOPROC;
	if (r < 0)
		return (int)r;
	char state;
	unsigned long long flags = 0;
	if (lt_parse_stat(buf, comm, comm_len, &state) || lts_parse_stat_field(buf, 9, &flags))
		return -EINVAL;
	if (flags & PF_KTHREAD)
		return LT_SNAP_EKTHREAD;
	/* a zombie leader whose threads live on is a live process */
	if ((state == 'Z' || state == 'X') && !lt_proc_zombie_leader(pid))
		return LT_SNAP_ENOPROC;
	*tgid = pid;
	snprintf(path, sizeof(path), "/proc/%d/status", (int)pid);
	if (lts_read_small(path, buf, sizeof(buf)) > 0) {
		const char *p = strstr(buf, "\nTgid:");
		if (p)
			*tgid = (pid_t)strtol(p + 6, NULL, 10);
	}
	return 0;
}

static int take(pid_t pid, const struct lt_snapshot_opts *opts, struct lt_snapshot **out)
{
	static const struct lt_snapshot_opts defaults;
	const struct lt_snapshot_opts *o = opts ? opts : &defaults;
	*out = NULL;
	if (pid <= 0)
		return LT_SNAP_ENOPROC;

	int64_t t0 = lts_now_ns(CLOCK_MONOTONIC);
	char comm[64];
	pid_t tgid = pid;
	int err = check_process(pid, &tgid, comm, sizeof(comm));
	if (err)
		return err;

	struct lt_snapshot *s = calloc(1, sizeof(*s));
	if (!s)
		return -ENOMEM;
	if (tgid != pid && tgid > 0) {
		lt_strlist_add(&s->notes, "%d is a thread of process %d: snapshotting %d",
			       (int)pid, (int)tgid, (int)tgid);
		pid = tgid;
		char sp[64], sb[4096];
		snprintf(sp, sizeof(sp), "/proc/%d/stat", (int)pid);
		if (lts_read_small(sp, sb, sizeof(sb)) > 0)
			lt_parse_stat(sb, comm, sizeof(comm), NULL);
	}
	s->pid = pid;
	snprintf(s->comm, sizeof(s->comm), "%s", comm);
	s->taken_realtime_ns = lts_now_ns(CLOCK_REALTIME);
	s->taken_monotonic_ns = t0;
	{
		char path[64], exe[4096];
		snprintf(path, sizeof(path), "/proc/%d/exe", (int)lt_proc_reader(pid));
		ssize_t n = readlink(path, exe, sizeof(exe) - 1);
		if (n > 0) {
			exe[n] = 0;
			s->exe = lts_strdup(exe);
		} else {
			lt_strlist_add(&s->notes, "executable unknown: %s", strerror(errno));
		}
	}

	calibrate(s);
	int64_t t_cal = lts_now_ns(CLOCK_MONOTONIC);
	struct ctx c = { .s = s, .o = o, .compat = exe_is_32bit(pid) };
	if (c.compat)
		lt_strlist_add(&s->notes, "32-bit process: system calls are shown as i386 numbers, "
			       "not decoded");
	lt_mem_init(&c.mem, pid);

	int zleader = lt_proc_zombie_leader(pid);
	if (zleader)
		lt_strlist_add(&s->notes, "the main thread (%d) has exited; the process lives on in "
			       "its other threads", (int)pid);
	size_t ntids = 0;
	pid_t *tids = lts_list_tasks(pid, &ntids);
	int64_t t_list = lts_now_ns(CLOCK_MONOTONIC);
	if (!tids || ntids == 0) {
		free(tids);
		lt_snapshot_free(s);
		return LT_SNAP_ENOPROC;
	}
	s->threads = calloc(ntids, sizeof(*s->threads));
	if (!s->threads) {
		free(tids);
		lt_snapshot_free(s);
		return -ENOMEM;
	}
	for (size_t i = 0; i < ntids; i++) {
		struct lt_thread *t = &s->threads[s->n_threads];
		/* at least one thread: a process past its budget is not "no process" */
		if (s->n_threads && lt_budget_over()) {
			/* where the time went, so that a cut on a loaded machine
			 * says which step was slow */
			int64_t now = lts_now_ns(CLOCK_MONOTONIC);
			lt_budget_note("%zu of the %zu threads were not read (the budget ran out %.0f ms "
				       "after the process's read began: %.0f ms measuring the clocks on "
				       "each CPU, %.0f ms reading %zu thread%s)",
				       ntids - i, ntids, (double)(now - t0) / 1e6, (double)(t_cal - t0) / 1e6,
				       (double)(now - t_list) / 1e6, s->n_threads, s->n_threads == 1 ? "" : "s");
			break;
		}
		t->tid = tids[i];
		if (zleader && tids[i] == pid)
			continue; /* the exited leader: nothing to read */
		if (read_thread(&c, pid, t) < 0) {
			lt_thread_clear(t);
			lt_strlist_add(&s->notes, "thread %d exited during the snapshot", (int)tids[i]);
			continue;
		}
		s->n_threads++;
	}
	free(tids);
	int64_t t_read_end = lts_now_ns(CLOCK_MONOTONIC);
	if (s->n_threads == 0) {
		lt_snapshot_free(s);
		return LT_SNAP_ENOPROC;
	}
	{
		/* the signals it catches: whether a handler could still end a
		 * wait no thread of its own can (verdicts.c) */
		char path[96], buf[4096];
		snprintf(path, sizeof(path), "/proc/%d/status", (int)pid);
		s->sig_caught_ok = lts_read_small(path, buf, sizeof(buf)) > 0 &&
				   !lt_status_sigmask(buf, "SigCgt:", &s->sig_caught);
		/* less those every thread blocks (SigBlk): no handler of
		 * them runs while all keep them blocked; read until one
		 * thread blocks none of the caught ones (the first, mostly) */
		uint64_t all = s->sig_caught;
		for (size_t i = 0; s->sig_caught_ok && all && i < s->n_threads; i++) {
			uint64_t blk = 0;
			snprintf(path, sizeof(path), "/proc/%d/task/%d/status", (int)pid, (int)s->threads[i].tid);
			if (lts_read_small(path, buf, sizeof(buf)) <= 0 || lt_status_sigmask(buf, "SigBlk:", &blk))
				blk = 0; /* gone, or unread: may not block them */
			all &= blk;
		}
		if (s->sig_caught_ok)
			s->sig_caught &= ~all;
		lts_copy_sig_caught(s);
	}
	if (!(o->flags & LT_SNAP_NO_KSTACK) && !s->kstack_available)
		lt_strlist_add(&s->notes, "kernel stacks unavailable: /proc/PID/task/TID/stack needs root");

	/* symbolizer: maps once, modules once */
	bool want_sym = !(o->flags & LT_SNAP_NO_SYMBOLS) || !(o->flags & LT_SNAP_NO_USTACK);
	if (want_sym) {
		unsigned sf = 0;
		if ((o->flags & LT_SNAP_NO_USTACK) && (o->flags & LT_SNAP_NO_SYMBOLS))
			sf |= LT_SYM_NO_DWFL;
		if (o->flags & LT_SNAP_NO_LINES)
			sf |= LT_SYM_NO_LINES;
		c.sym = lt_sym_open(pid, sf, &s->notes);
	}
	if (o->n_regs && o->regs) {
		c.regs_sorted = malloc(o->n_regs * sizeof(*c.regs_sorted));
		if (c.regs_sorted) {
			memcpy(c.regs_sorted, o->regs, o->n_regs * sizeof(*c.regs_sorted));
			c.n_regs = o->n_regs;
			qsort(c.regs_sorted, c.n_regs, sizeof(*c.regs_sorted), regs_cmp);
		}
	}
	if (c.sym) {
		for (size_t i = 0; i < s->n_threads; i++) {
			struct lt_thread *t = &s->threads[i];
			struct lt_regs r;
			uint64_t sp = t->sc.sp;
			if (!sp && caller_regs(&c, t->tid, &r))
				sp = r.sp;
			lt_sym_note_stack(c.sym, t->tid, sp);
		}
	}
	c.net = lts_net_new(pid);
	for (size_t i = 0; i < s->n_threads; i++)
		decode(&c, &s->threads[i]);

	s->ustack_skipped = (o->flags & LT_SNAP_NO_USTACK) || c.compat;
	if (!(o->flags & LT_SNAP_NO_USTACK) && c.compat) {
		lt_strlist_add(&s->notes, "user stacks not unwound: 32-bit process");
	} else if (!(o->flags & LT_SNAP_NO_USTACK)) {
		char *uerr = NULL;
		struct lt_unwinder *u = c.sym ? lt_unwinder_new(c.sym, &uerr) : NULL;
		/* the models and verdicts look for functions among a stack's
		 * first frames (rt_idle.c, appwait.c, verdicts.c): machine frames */
		lt_unwinder_no_inlines(u);
		if (u) {
			for (size_t i = 0; i < s->n_threads && !lt_budget_over(); i++)
				unwind_one(&c, u, &s->threads[i]);
			lt_unwinder_free(u);
		} else {
			lt_strlist_add(&s->notes, "user stacks unavailable: %s",
				       uerr ? uerr : "no symbolizer");
			s->ustack_skipped = true;
		}
		free(uerr);
	}

	/* what each futex belongs to and who holds it (glibc, runtimes) */
	struct lt_lm_env env;
	lt_lm_env_live(&env, c.sym, s, ctx_fsbase, &c);
	lt_lockmodels_apply(s, &env);
	/* each thread as its language runtime knows it (rtthread.h); the
	 * layouts are x86-64 ones: not for a 32-bit process */
	if (!c.compat) {
		lt_rtthreads_apply(s, &env);
		semlock_objects(&c); /* multiprocessing locks' holders */
	}
	lts_fork_origins(s); /* owners of private locks that are not here */
	lt_rt_idle_apply(s); /* runtime threads waiting for work: no locks */
	lt_appwait_apply(s); /* application lock managers (appwait.h) */
	if (!c.compat)
		lt_appwait_holders(s, c.sym, ctx_mem(&c)); /* their holders, from shared memory */
	/* a timed lock acquire (pthread_mutex_timedlock, a timed rwlock or
	 * semaphore wait) resumed after a stop is restart_syscall: no timer
	 * alone, but a lock wait whose lock the call no longer names */
	for (size_t i = 0; i < s->n_threads; i++) {
		struct lt_thread *t = &s->threads[i];
		for (size_t k = 0; t->sc.state == LT_SC_IN_SYSCALL && t->sc.nr == 219 && k < t->n_frames; k++) {
			const char *a = lt_glibc_acquire_name(t->frames[k].func);
			if (a && (!strncmp(a, "pthread_mutex", 13) || !strncmp(a, "pthread_rwlock", 14) ||
				  !strncmp(a, "sem_", 4))) {
				t->wait = LT_WAIT_OTHER;
				t->acquire = a;
				break;
			}
		}
	}

	sock_timeouts(s, o);
	for (size_t i = 0; i < s->n_threads; i++) {
		struct lt_thread *t = &s->threads[i];
		if (t->sc.state == LT_SC_IN_SYSCALL)
			t->detail = make_detail(&c, t);
		if (t->sc_resumed && t->detail) {
			char *d = lts_asprintf("%s, resumed after a stop (restart_syscall: the call as first made)",
					       t->detail);
			if (d) {
				free(t->detail);
				t->detail = d;
			}
		}
		else if (t->sc.state == LT_SC_RUNNING)
			t->detail = lts_strdup("running");
		else if (t->sc.state == LT_SC_NOT_IN_SYSCALL)
			t->detail = lts_asprintf("not in a system call (pc 0x%" PRIx64 ")", t->sc.pc);
	}

	/* who can end each wait: file locks, pipes, sockets, children */
	if (!c.compat) {
		lt_waitfor_collect(s, ctx_mem(&c));
		/* a backend reading from its client waits for that client */
		lt_appwait_clients(s, c.sym, ctx_mem(&c));
	}
	resample_rtlocks(&c, o->verdict.convoy_min_waiters > 0 ? o->verdict.convoy_min_waiters : 4);
	lt_snapshot_diagnose(s, &o->verdict);
	confirm_verdicts(&c, t_read_end);

	lts_net_free(c.net);
	free(c.maps);
	free(c.regs_sorted);
	lt_sym_debug_notes(c.sym, &s->notes);
	lt_sym_close(c.sym);
	lt_mem_close(&c.mem);
	s->duration_ns = lts_now_ns(CLOCK_MONOTONIC) - t0;
	*out = s;
	return 0;
}

/* A runtime's memory may describe any number of locks: those no thread of
 * the process waits on are kept up to KEEP_IDLE_RTLOCKS (the first ones),
 * the rest dropped and counted; the threads' indexes follow. */
#define KEEP_IDLE_RTLOCKS 256

static void drop_idle_rtlocks(struct lt_snapshot *s)
{
	if (s->n_rtlocks <= KEEP_IDLE_RTLOCKS)
		return;
	unsigned char *claimed = calloc(s->n_rtlocks, 1);
	unsigned *to = calloc(s->n_rtlocks, sizeof(*to));
	if (!claimed || !to) {
		free(claimed);
		free(to);
		return;
	}
	for (size_t i = 0; i < s->n_threads; i++) {
		unsigned k = s->threads[i].futex.rtlock;
		if (k && k <= s->n_rtlocks)
			claimed[k - 1] = 1;
	}
	size_t kept = 0, idle = 0;
	for (size_t i = 0; i < s->n_rtlocks; i++) {
		if (claimed[i] || idle++ < KEEP_IDLE_RTLOCKS) {
			if (kept != i)
				s->rtlocks[kept] = s->rtlocks[i];
			to[i] = (unsigned)++kept;
		} else {
			lt_rtlock_clear(&s->rtlocks[i]);
		}
	}
	for (size_t i = 0; i < s->n_threads; i++) {
		unsigned *k = &s->threads[i].futex.rtlock;
		if (*k && *k <= s->n_rtlocks)
			*k = to[*k - 1];
	}
	lt_strlist_add(&s->notes, "%zu runtime locks that no thread of this process waits on were left out "
		       "(the first %d are kept)", s->n_rtlocks - kept, KEEP_IDLE_RTLOCKS);
	s->n_rtlocks = kept;
	free(claimed);
	free(to);
}

/* take() within the snapshot's budget (budget.h); what the budget cut is
 * said in the notes and in the evidence of every verdict. */
int lt_snapshot_take(pid_t pid, const struct lt_snapshot_opts *opts, struct lt_snapshot **out)
{
	int64_t deadline = opts ? opts->deadline_ns : 0;
	if (!deadline)
		deadline = lt_budget_deadline((int)pid, LT_SNAP_BUDGET_MS, LT_SNAP_BUDGET_MAX_MS);
	lt_budget_begin(deadline, opts ? opts->stop : NULL);
	int r = take(pid, opts, out);
	/* a Java thread blocked entering a monitor that was running when read
	 * (between two of its timed parks: every 1 ms to 1 s): its wait is in
	 * no futex call to claim, and a cycle through it would be missed.
	 * Taken once more, a few milliseconds on, when it is back asleep. */
	pid_t ran = 0;
	for (size_t i = 0; !r && !ran && i < (*out)->n_threads; i++)
		if ((*out)->threads[i].rt_wait_ran)
			ran = (*out)->threads[i].tid;
	if (ran && !lt_budget_over()) {
		struct lt_snapshot *again = NULL;
		struct timespec gap = { 0, 3000000 };
		nanosleep(&gap, NULL);
		if (take(pid, opts, &again) == 0) {
			lt_snapshot_free(*out);
			*out = again;
			lt_strlist_add(&again->notes, "taken twice: thread %d, which the JVM says is blocked "
				       "entering a monitor, was running between two of its timed waits at the "
				       "first read", (int)ran);
		}
	}
	size_t n = 0;
	const char *const *why = lt_budget_notes(&n);
	struct lt_snapshot *s = r ? NULL : *out;
	if (s)
		drop_idle_rtlocks(s);
	for (size_t i = 0; s && i < n; i++) {
		lt_strlist_add(&s->notes, "the snapshot is incomplete: %s", why[i]);
		for (size_t k = 0; k < s->n_verdicts; k++)
			lt_strlist_add(&s->verdicts[k].evidence, "evidence incomplete: %s", why[i]);
	}
	lt_budget_end();
	return r;
}
