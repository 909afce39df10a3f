// SPDX-License-Identifier: MIT
/* The process to trace: /proc look-ups and the launch gate. */
#include <ctype.h>
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/statfs.h>
#include <sys/sysmacros.h>
#include <sys/utsname.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>
#include "proclive.h"
#include "snapshot.h"
#include "snapshot_int.h"
#include "target.h"
#include "grow.h"
#include "utf8.h"

#define PF_KTHREAD 0x00200000

uint64_t lt_now_ns(int clock_id)
{
	struct timespec ts;
	clock_gettime(clock_id, &ts);
	return (uint64_t)ts.tv_sec * 1000000000ull + (uint64_t)ts.tv_nsec;
}

static ssize_t read_file(const char *path, char *buf, size_t cap)
{
	int fd = open(path, O_RDONLY | O_CLOEXEC);
	ssize_t n, tot = 0;

	if (fd < 0)
		return -1;
	while ((size_t)tot < cap - 1 && (n = read(fd, buf + tot, cap - 1 - (size_t)tot)) > 0)
		tot += n;
	close(fd);
	buf[tot] = 0;
	return tot;
}

static void chomp(char *s)
{
	size_t n = strlen(s);
	while (n && (s[n - 1] == '\n' || s[n - 1] == ' '))
		s[--n] = 0;
}

int lt_target_resolve(pid_t pid, pid_t *tgid, char *err, size_t errlen)
{
	char path[64], buf[4096], comm[64] = "?";
	unsigned long flags = 0;

	if (pid <= 0) {
		snprintf(err, errlen, "invalid pid %d", pid);
		return -1;
	}
	snprintf(path, sizeof(path), "/proc/%d/status", pid);
	if (read_file(path, buf, sizeof(buf)) < 0) {
		snprintf(err, errlen, "no process %d", pid);
		return -1;
	}
	char *t = strstr(buf, "\nTgid:");
	*tgid = t ? (pid_t)atoi(t + 6) : pid;
	char *n = strstr(buf, "Name:");
	if (n) {
		sscanf(n + 5, " %63[^\n]", comm);
	}
	/* field 9 of stat is flags; comm (field 2) may hold spaces: skip past ')' */
	snprintf(path, sizeof(path), "/proc/%d/stat", pid);
	if (read_file(path, buf, sizeof(buf)) > 0) {
		char *p = strrchr(buf, ')');
		if (p && sscanf(p + 1, " %*c %*d %*d %*d %*d %*d %lu", &flags) == 1 &&
		    (flags & PF_KTHREAD)) {
			char esc[4 * sizeof(comm)];
			lt_text_escape(esc, sizeof(esc), comm, strlen(comm));
			snprintf(err, errlen, "%d is a kernel thread (%s): locktrace traces user processes",
				 pid, esc);
			return -1;
		}
	}
	if (*tgid == getpid()) {
		/* its own ring-buffer reads and file writes would feed the trace */
		snprintf(err, errlen, "%d is this locktrace process itself; give the pid of the process "
			 "to trace", pid);
		return -1;
	}
	return 0;
}

int lt_read_syscall(pid_t pid, pid_t tid, int64_t *nr, uint64_t args[6])
{
	char path[96], buf[512];

	snprintf(path, sizeof(path), "/proc/%d/task/%d/syscall", pid, tid);
	memset(args, 0, 6 * sizeof(uint64_t));
	if (read_file(path, buf, sizeof(buf)) <= 0)
		return -1;
	if (!strncmp(buf, "running", 7)) {
		*nr = LT_SC_NR_RUNNING;
		return 0;
	}
	long long n = -2;
	unsigned long long a[6] = { 0 };
	int got = sscanf(buf, "%lld %llx %llx %llx %llx %llx %llx", &n, &a[0], &a[1], &a[2], &a[3],
			 &a[4], &a[5]);
	if (got < 1)
		return -1;
	*nr = n;
	for (int i = 0; i < 6; i++)
		args[i] = a[i];
	return 0;
}

/* How long the thread has not run: CLOCK_MONOTONIC minus se.exec_start
 * (scheduler clock) from /proc/.../sched, minus how far the scheduler
 * clock of CPU, the one it last ran on, lags CLOCK_MONOTONIC (OFF, per
 * CPU: seconds on a long-running VM, and different per CPU: see
 * docs/snapshot.md); 0 if unknown. */
static uint64_t blocked_ns(pid_t pid, pid_t tid, uint64_t now_mono, const int64_t *off, size_t ncpu, int cpu)
{
	char path[96], buf[8192];
	int64_t start;

	snprintf(path, sizeof(path), "/proc/%d/task/%d/sched", pid, tid);
	if (read_file(path, buf, sizeof(buf)) <= 0 || lt_parse_sched_exec_start(buf, &start))
		return 0;
	int64_t d = (int64_t)now_mono - start - lt_sched_offset_of(off, ncpu, cpu);
	return d > 0 ? (uint64_t)d : 0;
}

/* The state letter and the parent pid in /proc/PATH/stat ("S", "D", ...);
 * comm (field 2) may hold spaces and parentheses: read past the last ')'. */
static int read_stat(const char *path, char *state, int *ppid)
{
	char buf[1024];
	if (read_file(path, buf, sizeof(buf)) <= 0)
		return -1;
	char *p = strrchr(buf, ')');
	return p && sscanf(p + 1, " %c %d", state, ppid) == 2 ? 0 : -1;
}

int lt_proc_alive(pid_t pid)
{
	char path[64], st;
	int ppid;
	snprintf(path, sizeof(path), "/proc/%d/stat", (int)pid);
	return read_stat(path, &st, &ppid) == 0 && st != 'Z' && st != 'X';
}

pid_t lt_proc_zombie_of(pid_t pid)
{
	char path[64], st;
	int ppid;
	snprintf(path, sizeof(path), "/proc/%d/stat", (int)pid);
	return read_stat(path, &st, &ppid) == 0 && st == 'Z' && ppid > 0 ? (pid_t)ppid : 0;
}

size_t lt_proc_zombie_children(pid_t pid, pid_t *out, size_t max)
{
	char path[96];
	snprintf(path, sizeof(path), "/proc/%d/task", (int)pid);
	DIR *d = opendir(path);
	struct dirent *e;
	size_t n = 0;
	while (d && (e = readdir(d))) {
		if (e->d_name[0] < '1' || e->d_name[0] > '9')
			continue;
		char cp[320], buf[4096], *sv = NULL;
		snprintf(cp, sizeof(cp), "/proc/%d/task/%s/children", (int)pid, e->d_name);
		FILE *f = fopen(cp, "re");
		if (!f)
			continue;
		size_t len = fread(buf, 1, sizeof(buf) - 1, f);
		fclose(f);
		buf[len] = 0;
		for (char *tok = strtok_r(buf, " \n", &sv); tok; tok = strtok_r(NULL, " \n", &sv)) {
			pid_t c = (pid_t)atoi(tok);
			if (c > 0 && lt_proc_dead_zombie_of(c) == pid) {
				if (n < max)
					out[n] = c;
				n++;
			}
		}
	}
	if (d)
		closedir(d);
	return n;
}

size_t lt_proc_mappers(uint32_t major, uint32_t minor, uint64_t ino, uint64_t off, pid_t skip, pid_t *out,
		       size_t max)
{
	DIR *d = opendir("/proc");
	struct dirent *e;
	size_t n = 0;
	while (d && (e = readdir(d))) {
		if (e->d_name[0] < '1' || e->d_name[0] > '9')
			continue;
		pid_t pid = (pid_t)atoi(e->d_name);
		if (pid == skip)
			continue;
		char path[300], line[1024];
		snprintf(path, sizeof(path), "/proc/%s/maps", e->d_name);
		FILE *f = fopen(path, "re");
		bool found = false;
		/* "start-end perms offset MAJ:MIN INODE path", the device in
		 * hex: a mapping of that object whose range covers off (a
		 * process mapping another part of the file maps not the word) */
		while (f && !found && fgets(line, sizeof(line), f)) {
			unsigned long long lo, hi, mo, mi;
			unsigned ma, mn;
			found = sscanf(line, "%llx-%llx %*s %llx %x:%x %llu", &lo, &hi, &mo, &ma, &mn, &mi) == 6 &&
				ma == major && mn == minor && mi == ino && off >= mo && off - mo < hi - lo;
		}
		if (f)
			fclose(f);
		if (found) {
			if (n < max)
				out[n] = pid;
			n++;
		}
	}
	if (d)
		closedir(d);
	return n;
}

pid_t lt_proc_dead_zombie_of(pid_t pid)
{
	pid_t parent = lt_proc_zombie_of(pid);
	char path[64], st;
	int ppid;
	if (!parent)
		return 0;
	snprintf(path, sizeof(path), "/proc/%d/task", (int)pid);
	DIR *d = opendir(path);
	struct dirent *e;
	while (d && (e = readdir(d))) {
		char tp[300];
		if (e->d_name[0] < '1' || e->d_name[0] > '9')
			continue;
		snprintf(tp, sizeof(tp), "/proc/%d/task/%s/stat", (int)pid, e->d_name);
		if (read_stat(tp, &st, &ppid) == 0 && st != 'Z' && st != 'X') {
			parent = 0; /* a thread lives on */
			break;
		}
	}
	if (d)
		closedir(d);
	return parent;
}

static int32_t stat_ppid(pid_t pid)
{
	char path[64], st;
	int ppid;
	snprintf(path, sizeof(path), "/proc/%d/stat", pid);
	return read_stat(path, &st, &ppid) ? 0 : ppid;
}

static int cmp_tid(const void *a, const void *b)
{
	const struct lt_thread_info *x = a, *y = b;
	return (x->tid > y->tid) - (x->tid < y->tid);
}

/* names_only: each thread's name, no syscall, state or blocked time (and
 * so no per-CPU clock measurement, which pins the caller to each CPU) */
static int describe(pid_t pid, struct lt_header *h, bool names_only)
{
	char path[96], buf[4096];
	struct utsname u;
	ssize_t n;

	h->pid = pid;
	h->version_major = LT_VERSION_MAJOR;
	h->version_minor = LT_VERSION_MINOR;
	long ncpu = sysconf(_SC_NPROCESSORS_CONF);
	h->ncpus = ncpu > 0 ? (uint32_t)ncpu : 1;
	if (uname(&u) == 0) {
		snprintf(h->host, sizeof(h->host), "%s", u.nodename);
		snprintf(h->kernel, sizeof(h->kernel), "%s", u.release);
		snprintf(h->kversion, sizeof(h->kversion), "%s", u.version);
		snprintf(h->machine, sizeof(h->machine), "%.63s", u.machine);
	}
	h->ppid = stat_ppid(pid);
	snprintf(path, sizeof(path), "/proc/%d/comm", pid);
	if (read_file(path, buf, sizeof(buf)) > 0) {
		chomp(buf);
		snprintf(h->comm, sizeof(h->comm), "%s", buf);
	}
	snprintf(path, sizeof(path), "/proc/%d/exe", (int)lt_proc_reader(pid));
	n = readlink(path, h->exe, sizeof(h->exe) - 1);
	h->exe[n > 0 ? n : 0] = 0;
	snprintf(path, sizeof(path), "/proc/%d/cmdline", (int)lt_proc_reader(pid));
	n = read_file(path, buf, sizeof(buf));
	for (ssize_t i = 0; i + 1 < n; i++)
		if (!buf[i])
			buf[i] = ' ';
	snprintf(h->cmdline, sizeof(h->cmdline), "%s", n > 0 ? buf : "");

	h->clock_boottime = lt_now_ns(CLOCK_BOOTTIME);
	h->clock_monotonic = lt_now_ns(CLOCK_MONOTONIC);
	h->clock_realtime = lt_now_ns(CLOCK_REALTIME);

	/* each CPU's scheduler clock lag, measured on it (one CPU's for all
	 * when the caller cannot pin itself), once a thread's blocked time
	 * needs it: it pins the caller to each CPU in turn */
	size_t noff = h->ncpus > 4096 ? 4096 : h->ncpus;
	int64_t *off = NULL;
	bool measured = false;
	snprintf(path, sizeof(path), "/proc/%d/task", pid);
	DIR *d = opendir(path);
	if (!d) {
		int e = errno;
		free(off);
		return -e;
	}
	struct dirent *de;
	while ((de = readdir(d))) {
		if (!isdigit((unsigned char)de->d_name[0]))
			continue;
		struct lt_thread_info ti = { .tid = atoi(de->d_name) };
		snprintf(path, sizeof(path), "/proc/%d/task/%d/comm", pid, ti.tid);
		if (read_file(path, buf, sizeof(buf)) < 0)
			continue; /* exited meanwhile */
		chomp(buf);
		snprintf(ti.comm, sizeof(ti.comm), "%s", buf);
		if (names_only)
			ti.sc_nr = LT_SC_NR_UNKNOWN;
		else if (lt_read_syscall(pid, ti.tid, &ti.sc_nr, ti.sc_args))
			ti.sc_nr = LT_SC_NR_UNKNOWN;
		/* its state and the CPU it last ran on, from one read of its stat
		 * (comm, field 2, may hold spaces and parentheses) */
		int cpu = -1;
		snprintf(path, sizeof(path), "/proc/%d/task/%d/stat", pid, ti.tid);
		if (!names_only && read_file(path, buf, sizeof(buf)) > 0) {
			char *rp = strrchr(buf, ')');
			unsigned long long c;
			if (!rp || sscanf(rp + 1, " %c", &ti.state) != 1)
				ti.state = 0;
			if (lts_parse_stat_field(buf, 39, &c) == 0 && c < 1000000)
				cpu = (int)c;
		}
		if (!names_only && ti.sc_nr != LT_SC_NR_RUNNING) {
			if (!measured) {
				int64_t one;
				measured = true;
				off = malloc(noff * sizeof(*off));
				if (off && !lt_sched_clock_offsets(off, noff) && lt_sched_clock_offset(&one) == 0)
					for (size_t i = 0; i < noff; i++)
						off[i] = one;
			}
			ti.blocked_ns = blocked_ns(pid, ti.tid, h->clock_monotonic, off, off ? noff : 0, cpu);
		}
		/* doubling: 10,000 threads */
		struct lt_thread_info *v = lt_grow_pow2(h->threads, h->nthreads, sizeof(*v));
		if (!v) {
			closedir(d);
			free(off);
			return -ENOMEM;
		}
		h->threads = v;
		h->threads[h->nthreads++] = ti;
	}
	closedir(d);
	free(off);
	qsort(h->threads, h->nthreads, sizeof(*h->threads), cmp_tid);
	return 0;
}

int lt_target_describe(pid_t pid, struct lt_header *h)
{
	return describe(pid, h, false);
}

int lt_target_describe_names(pid_t pid, struct lt_header *h)
{
	return describe(pid, h, true);
}

/* An executable regular file: 0, or -errno as execve would say it. */
static int runnable(const char *path)
{
	struct stat st;
	if (stat(path, &st))
		return -errno;
	if (!S_ISREG(st.st_mode) || access(path, X_OK))
		return -EACCES;
	return 0;
}

static int absolute(const char *path, char *out, size_t len)
{
	char *rp = realpath(path, NULL);
	if (!rp)
		return -errno;
	int fits = strlen(rp) < len;
	if (fits)
		strcpy(out, rp);
	free(rp);
	return fits ? 0 : -ENAMETOOLONG;
}

int lt_launch_resolve(const char *file, char *out, size_t len)
{
	char cand[PATH_MAX];
	int err = -ENOENT;

	if (!*file)
		return -ENOENT;
	if (strchr(file, '/')) {
		int r = runnable(file);
		return r ? r : absolute(file, out, len);
	}
	const char *path = getenv("PATH");
	if (!path)
		path = "/bin:/usr/bin"; /* execvp's default */
	for (const char *p = path;; p++) {
		const char *e = strchrnul(p, ':');
		int n = snprintf(cand, sizeof(cand), "%.*s%s%s", (int)(e - p), p, e > p ? "/" : "", file);
		if (n > 0 && (size_t)n < sizeof(cand)) {
			int r = runnable(cand);
			if (!r)
				return absolute(cand, out, len);
			if (r == -EACCES)
				err = r; /* keep looking, as execvp does */
		}
		if (!*e)
			break;
		p = e;
	}
	return err;
}

int lt_launch_prepare(struct lt_launch *l, char *const argv[])
{
	int gate[2], st[2];

	if (pipe2(gate, O_CLOEXEC))
		return -errno;
	if (pipe2(st, O_CLOEXEC)) {
		int e = errno;
		close(gate[0]);
		close(gate[1]);
		return -e;
	}
	pid_t pid = fork();
	if (pid < 0) {
		int e = errno;
		close(gate[0]);
		close(gate[1]);
		close(st[0]);
		close(st[1]);
		return -e;
	}
	if (pid == 0) {
		char c;
		close(gate[1]);
		close(st[0]);
		/* wait until the tracer is attached; EOF means go */
		while (read(gate[0], &c, 1) < 0 && errno == EINTR)
			;
		if (l->sigmask)
			sigprocmask(SIG_SETMASK, l->sigmask, NULL);
		execvp(argv[0], argv);
		int e = errno;
		ssize_t w = write(st[1], &e, sizeof(e));
		_exit(w < 0 ? 126 : 127);
	}
	close(gate[0]);
	close(st[1]);
	l->pid = pid;
	l->gate_fd = gate[1];
	l->status_fd = st[0];
	return pid;
}

int lt_launch_go(struct lt_launch *l)
{
	int e = 0;
	ssize_t n;

	close(l->gate_fd);
	l->gate_fd = -1;
	/* the status pipe closes on a successful exec (O_CLOEXEC) */
	while ((n = read(l->status_fd, &e, sizeof(e))) < 0 && errno == EINTR)
		;
	close(l->status_fd);
	l->status_fd = -1;
	if (n == (ssize_t)sizeof(e)) {
		waitpid(l->pid, NULL, 0);
		return -e;
	}
	return 0;
}

void lt_launch_abort(struct lt_launch *l)
{
	if (l->gate_fd >= 0)
		close(l->gate_fd);
	if (l->status_fd >= 0)
		close(l->status_fd);
	kill(l->pid, SIGKILL);
	waitpid(l->pid, NULL, 0);
}

int lt_maps_line_shared(const char *line, struct lt_shared_map *out)
{
	unsigned long long start, end, off, ino;
	unsigned maj, min;
	char perms[8];

	if (sscanf(line, "%llx-%llx %7s %llx %x:%x %llu", &start, &end, perms, &off, &maj, &min,
		   &ino) != 7 || strlen(perms) != 4 || end <= start)
		return -1;
	if (perms[3] != 's' || !ino)
		return 0;
	out->start = start;
	out->end = end;
	out->offset = off;
	out->dev = (uint64_t)makedev(maj, min);
	out->ino = ino;
	return 1;
}

int lt_target_shared_maps(pid_t tgid, struct lt_shared_map **v, size_t *n, size_t *cap)
{
	char path[64], line[4096 + 256];
	int r = 0;

	snprintf(path, sizeof(path), "/proc/%d/maps", (int)lt_proc_reader(tgid));
	FILE *f = fopen(path, "re");
	if (!f)
		return -errno;
	while (fgets(line, sizeof(line), f)) {
		size_t l = strlen(line);
		struct lt_shared_map m = { .tgid = tgid };
		int shared = lt_maps_line_shared(line, &m);
		/* a path longer than the buffer: skip the rest of the line */
		while (l && line[l - 1] != '\n' && fgets(line, sizeof(line), f))
			l = strlen(line);
		if (shared != 1)
			continue;
		struct lt_shared_map *nv = lt_grow(*v, cap, *n, sizeof(*nv), 16);
		if (!nv) {
			r = -ENOMEM;
			break;
		}
		*v = nv;
		(*v)[(*n)++] = m;
	}
	fclose(f);
	return r;
}

const struct lt_shared_map *lt_shared_map_find(const struct lt_shared_map *v, size_t n, int32_t tgid,
					       uint64_t addr)
{
	for (size_t i = 0; i < n; i++)
		if (v[i].tgid == tgid && addr >= v[i].start && addr < v[i].end)
			return &v[i];
	return NULL;
}

static int push_pid(pid_t **v, size_t *n, pid_t p)
{
	for (size_t i = 0; i < *n; i++)
		if ((*v)[i] == p)
			return 0;
	pid_t *nv = realloc(*v, (*n + 1) * sizeof(*nv));
	if (!nv)
		return -ENOMEM;
	*v = nv;
	nv[(*n)++] = p;
	return 0;
}

int lt_proc_descendants(const pid_t *roots, size_t n, pid_t **out, size_t *nout)
{
	struct pp { pid_t pid, ppid; } *all = NULL;
	size_t nall = 0, cap = 0;
	DIR *d = opendir("/proc");
	struct dirent *de;
	char path[64];
	int r = 0;

	if (!d)
		return -errno;
	while ((de = readdir(d))) {
		if (!isdigit((unsigned char)de->d_name[0]))
			continue;
		pid_t pid = atoi(de->d_name);
		int ppid;
		char st;
		snprintf(path, sizeof(path), "/proc/%d/stat", (int)pid);
		if (read_stat(path, &st, &ppid))
			continue;
		struct pp *na = lt_grow(all, &cap, nall, sizeof(*na), 512);
		if (!na) {
			r = -ENOMEM;
			break;
		}
		all = na;
		all[nall++] = (struct pp){ pid, ppid };
	}
	closedir(d);
	/* breadth first: the roots' children, then theirs */
	size_t first = *nout;
	for (size_t i = 0; !r && i < n; i++)
		for (size_t k = 0; !r && k < nall; k++)
			if (all[k].ppid == roots[i] && all[k].pid != roots[i])
				r = push_pid(out, nout, all[k].pid);
	for (size_t q = first; !r && q < *nout; q++)
		for (size_t k = 0; !r && k < nall; k++)
			if (all[k].ppid == (*out)[q])
				r = push_pid(out, nout, all[k].pid);
	/* a root that is also a descendant of another root is a root */
	for (size_t q = first; q < *nout;) {
		int root = 0;
		for (size_t i = 0; i < n; i++)
			root |= (*out)[q] == roots[i];
		if (root)
			(*out)[q] = (*out)[--*nout];
		else
			q++;
	}
	free(all);
	return r;
}

#ifndef CGROUP2_SUPER_MAGIC
#define CGROUP2_SUPER_MAGIC 0x63677270
#endif

int lt_cgroup_mount(char *out, size_t len)
{
	struct statfs sf;
	char line[4096];

	if (statfs("/sys/fs/cgroup", &sf) == 0 && sf.f_type == CGROUP2_SUPER_MAGIC) {
		snprintf(out, len, "/sys/fs/cgroup");
		return 0;
	}
	FILE *f = fopen("/proc/self/mountinfo", "re");
	if (!f)
		return -ENOENT;
	int r = -ENOENT;
	while (r && fgets(line, sizeof(line), f)) {
		/* ID PARENT MAJ:MIN ROOT MOUNTPOINT OPTS... - FSTYPE SOURCE SUPER */
		char mnt[4096], *sep = strstr(line, " - ");
		if (!sep || strncmp(sep + 3, "cgroup2 ", 8) ||
		    sscanf(line, "%*s %*s %*s %*s %4095s", mnt) != 1)
			continue;
		if (statfs(mnt, &sf) == 0 && sf.f_type == CGROUP2_SUPER_MAGIC) {
			snprintf(out, len, "%s", mnt);
			r = 0;
		}
	}
	fclose(f);
	return r;
}

/* A directory on a cgroup2 file system. */
static int is_cgroup2_dir(const char *path)
{
	struct statfs sf;
	struct stat st;
	return statfs(path, &sf) == 0 && sf.f_type == CGROUP2_SUPER_MAGIC && stat(path, &st) == 0 &&
	       S_ISDIR(st.st_mode);
}

int lt_cgroup_path(const char *arg, const char *mount, char *out, size_t outlen, char *rel,
		   size_t rellen, char *err, size_t errlen)
{
	char cand[PATH_MAX], real[PATH_MAX];
	size_t ml = strlen(mount);

	if (!arg[0]) {
		snprintf(err, errlen, "empty cgroup path");
		return -1;
	}
	/* an absolute path as it is, else (or if that is not a cgroup) below
	 * the mount: "system.slice/x.service" and "/system.slice/x.service" */
	int found = 0;
	if (arg[0] == '/' && realpath(arg, real) && is_cgroup2_dir(real))
		found = 1;
	if (!found && ml) {
		if ((size_t)snprintf(cand, sizeof(cand), "%s/%s", mount, arg + (arg[0] == '/')) <
			    sizeof(cand) &&
		    realpath(cand, real) && is_cgroup2_dir(real))
			found = 1;
	}
	if (!found) {
		if (!ml)
			snprintf(err, errlen, "%s: cgroup v2 is not mounted on this system (--cgroup needs "
				 "the unified hierarchy)", arg);
		else
			snprintf(err, errlen, "%s: not a cgroup v2 directory (give a directory under %s, "
				 "absolute or relative to it)", arg, mount);
		return -1;
	}
	/* its path in the hierarchy: below the mount it is on */
	if (ml && !strncmp(real, mount, ml) && (real[ml] == '/' || !real[ml]))
		snprintf(rel, rellen, "%s", real[ml] ? real + ml : "/");
	else
		snprintf(rel, rellen, "/"); /* another cgroup2 mount: its root */
	snprintf(out, outlen, "%s", real);
	return 0;
}

/* The cgroup at path and those below: ids and processes. */
static int cgroup_walk(struct lt_cgroup *cg, const char *path, int depth)
{
	struct stat st;
	char buf[PATH_MAX + 32];

	if (depth > 64 || stat(path, &st))
		return 0;
	uint64_t *ni = realloc(cg->ids, (cg->nids + 1) * sizeof(*ni));
	if (!ni)
		return -ENOMEM;
	cg->ids = ni;
	cg->ids[cg->nids++] = (uint64_t)st.st_ino;
	snprintf(buf, sizeof(buf), "%s/cgroup.procs", path);
	FILE *f = fopen(buf, "re");
	if (f) {
		int pid;
		while (fscanf(f, "%d", &pid) == 1)
			if (pid > 0 && push_pid(&cg->tgids, &cg->ntgids, pid)) {
				fclose(f);
				return -ENOMEM;
			}
		fclose(f);
	}
	DIR *d = opendir(path);
	if (!d)
		return 0;
	struct dirent *de;
	int r = 0;
	while (!r && (de = readdir(d))) {
		if (de->d_name[0] == '.' || de->d_type != DT_DIR)
			continue;
		snprintf(buf, sizeof(buf), "%s/%s", path, de->d_name);
		r = cgroup_walk(cg, buf, depth + 1);
	}
	closedir(d);
	return r;
}

int lt_cgroup_open(const char *arg, struct lt_cgroup *cg, char *err, size_t errlen)
{
	char mount[PATH_MAX] = "";

	memset(cg, 0, sizeof(*cg));
	if (lt_cgroup_mount(mount, sizeof(mount)))
		mount[0] = 0;
	if (lt_cgroup_path(arg, mount, cg->path, sizeof(cg->path), cg->rel, sizeof(cg->rel), err,
			   errlen))
		return -1;
	if (cgroup_walk(cg, cg->path, 0)) {
		snprintf(err, errlen, "out of memory listing cgroup %s", cg->path);
		lt_cgroup_free(cg);
		return -1;
	}
	if (!cg->ntgids) {
		snprintf(err, errlen, "%s: empty cgroup (no process in it or below it to trace)", cg->path);
		lt_cgroup_free(cg);
		return -1;
	}
	return 0;
}

void lt_cgroup_free(struct lt_cgroup *cg)
{
	free(cg->ids);
	free(cg->tgids);
	cg->ids = NULL;
	cg->tgids = NULL;
	cg->nids = cg->ntgids = 0;
}

int lt_cgroup_contains(const struct lt_cgroup *cg, pid_t tgid)
{
	char path[64], line[PATH_MAX + 16];
	int in = 0;

	snprintf(path, sizeof(path), "/proc/%d/cgroup", (int)tgid);
	FILE *f = fopen(path, "re");
	if (!f)
		return 0;
	size_t rl = strlen(cg->rel);
	while (fgets(line, sizeof(line), f)) {
		if (strncmp(line, "0::", 3))
			continue;
		char *p = line + 3;
		p[strcspn(p, "\n")] = 0;
		in = !strcmp(cg->rel, "/") ||
		     (!strncmp(p, cg->rel, rl) && (p[rl] == '/' || !p[rl]));
	}
	fclose(f);
	return in;
}

int lt_cgroup_populated(const struct lt_cgroup *cg)
{
	char path[PATH_MAX + 32], line[128];
	int r = -1;

	snprintf(path, sizeof(path), "%s/cgroup.events", cg->path);
	FILE *f = fopen(path, "re");
	if (!f)
		return -1;
	while (fgets(line, sizeof(line), f))
		if (!strncmp(line, "populated ", 10))
			r = atoi(line + 10) != 0;
	fclose(f);
	return r;
}
