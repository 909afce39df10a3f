/* SPDX-License-Identifier: MIT */
/* The process to trace: resolving a PID, describing it, launching a command. */
#ifndef LOCKTRACE_TARGET_H
#define LOCKTRACE_TARGET_H

#include <limits.h>
#include <signal.h>
#include <sys/types.h>
#include "locktrace/tracefile.h"

/* Checks that PID names a user process.  A thread id is resolved to its
 * process (*tgid differs from pid then).  Returns 0, or -1 with a message
 * ("no process 1234", "1234 is a kernel thread (kthreadd)") in err. */
int lt_target_resolve(pid_t pid, pid_t *tgid, char *err, size_t errlen);

/* Fills h with what is known of process tgid now: comm, exe, cmdline, host,
 * kernel, clocks, cpus, and every thread with its name and the syscall it
 * is in.  Threads that vanish meanwhile are skipped. 0 or -errno. */
int lt_target_describe(pid_t tgid, struct lt_header *h);

/* The same with each thread's name only: no syscall (LT_SC_NR_UNKNOWN),
 * state or blocked time, so no syscall reads and no CPU clock
 * measurement (a flight dump's header: /proc says only what is now, which
 * its snapshot section records). 0 or -errno. */
int lt_target_describe_names(pid_t tgid, struct lt_header *h);

/* Reads /proc/PID/task/TID/syscall: nr (-1 not in a syscall, -3 running),
 * args. 0 or -1 if unreadable. */
int lt_read_syscall(pid_t pid, pid_t tid, int64_t *nr, uint64_t args[6]);

/* Finds the program execvp would run for FILE (searching PATH when FILE
 * has no '/'), as an absolute path in out.  0, -ENOENT (not found) or
 * -EACCES (found, not executable), so that a command that cannot run is
 * refused before anything is created. */
int lt_launch_resolve(const char *file, char *out, size_t len);

/* Forks a child that waits until lt_launch_go before exec'ing argv, so
 * tracing starts before its first instruction.  Returns the child's pid or
 * -errno. */
struct lt_launch {
	pid_t pid;
	int gate_fd;   /* write end: closing it lets the child exec */
	int status_fd; /* read end: receives errno if exec fails */
	const sigset_t *sigmask; /* the child's signal mask at exec (NULL: as is) */
};
int lt_launch_prepare(struct lt_launch *l, char *const argv[]);
/* Lets the child exec.  0, or -errno of a failed exec (child reaped). */
int lt_launch_go(struct lt_launch *l);
/* Kills and reaps a child that was never let go. */
void lt_launch_abort(struct lt_launch *l);

uint64_t lt_now_ns(int clock_id);

/* One line of /proc/PID/maps: 1 and *out filled (tgid left alone) when it
 * is a shared mapping of an object ('s' in its permissions and an inode:
 * a MAP_SHARED file, memfd, POSIX or SysV shm, shared anonymous memory),
 * whose futexes the kernel keys by (object, offset); 0 for any other
 * mapping; -1 for a line that is not a maps line.  The device is st_dev as
 * stat(2) gives it for the object (makedev of the line's major:minor). */
int lt_maps_line_shared(const char *line, struct lt_shared_map *out);
/* Appends the shared mappings of process tgid now to *v (*n entries,
 * *cap allocated; realloc'd).  0, or -errno (no such process, ENOMEM). */
int lt_target_shared_maps(pid_t tgid, struct lt_shared_map **v, size_t *n, size_t *cap);
/* The mapping of addr among v[0..n) for process tgid, or NULL. */
const struct lt_shared_map *lt_shared_map_find(const struct lt_shared_map *v, size_t n, int32_t tgid,
					       uint64_t addr);

/* --children: the descendants of roots[0..n) now, from the parent pids in
 * /proc/PID/stat (children of children too), not counting the roots;
 * appended to *out (*nout entries, realloc'd).  0 or -ENOMEM. */
int lt_proc_descendants(const pid_t *roots, size_t n, pid_t **out, size_t *nout);

/* pid is still there and not a zombie (a program that has exited and was
 * not reaped yet): 1, else 0. */
int lt_proc_alive(pid_t pid);
/* The processes (other than SKIP) that map offset OFF of the file
 * MAJOR:MINOR INO (a process-shared lock's object: a POSIX semaphore in
 * /dev/shm, a MAP_SHARED|MAP_ANONYMOUS area), from every /proc/PID/maps: at
 * most MAX into OUT; how many were found (may exceed MAX). */
size_t lt_proc_mappers(uint32_t major, uint32_t minor, uint64_t ino, uint64_t off, pid_t skip, pid_t *out,
		       size_t max);
/* pid is a zombie: its parent's pid (which has not reaped it), else 0. */
pid_t lt_proc_zombie_of(pid_t pid);
/* pid is a zombie none of whose threads lives on (a leader that exited
 * before its threads is a zombie too, its process alive): its parent's
 * pid, else 0. */
pid_t lt_proc_dead_zombie_of(pid_t pid);
/* The children of PID that have exited and are not reaped (zombies), up
 * to MAX into OUT (the children of its every thread); how many. */
size_t lt_proc_zombie_children(pid_t pid, pid_t *out, size_t max);

/* --cgroup: a cgroup v2 directory, its descendants and their processes. */
struct lt_cgroup {
	char path[PATH_MAX]; /* the directory, absolute */
	char rel[PATH_MAX];  /* its path in the hierarchy, as /proc/PID/cgroup
			      * says it ("/system.slice/x.service"; "/" the root) */
	uint64_t *ids;       /* cgroup ids (directory inode numbers): it and
			      * the cgroups below it */
	size_t nids;
	pid_t *tgids;        /* the processes in them */
	size_t ntgids;
};
/* The mount point of the cgroup v2 hierarchy (/sys/fs/cgroup, or
 * /sys/fs/cgroup/unified on a hybrid system) into out.  0 or -ENOENT. */
int lt_cgroup_mount(char *out, size_t len);
/* ARG as a cgroup v2 directory: an absolute path on the cgroup2 mount, or
 * a path relative to the mount (also with a leading '/', as in
 * /proc/PID/cgroup).  mount: the cgroup2 mount point, "" if none.  0 and
 * out/rel, or -1 with err ("not a cgroup v2 directory", ...). */
int lt_cgroup_path(const char *arg, const char *mount, char *out, size_t outlen, char *rel,
		   size_t rellen, char *err, size_t errlen);
/* Resolves ARG (lt_cgroup_path) and lists its cgroups and processes.  0,
 * or -1 with err (also "empty cgroup": no process in it or below). */
int lt_cgroup_open(const char *arg, struct lt_cgroup *cg, char *err, size_t errlen);
void lt_cgroup_free(struct lt_cgroup *cg);
/* 1 if process tgid is in cg or below it now, 0 if not (or gone). */
int lt_cgroup_contains(const struct lt_cgroup *cg, pid_t tgid);
/* 1 while a process is in cg or below (cgroup.events "populated"), 0 when
 * empty, -1 unknown. */
int lt_cgroup_populated(const struct lt_cgroup *cg);

#endif
