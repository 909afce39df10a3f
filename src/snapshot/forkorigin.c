/* Locks copied by fork() while held.
 *
 * fork() copies the parent's memory, locks included, but only the calling
 * thread: a private lock (FUTEX_PRIVATE, a Python RLock, ...) that another
 * thread of the parent held at that moment stays locked in the child with
 * an owner that does not exist there.  A private lock cannot be held by a
 * thread of another process, so when its recorded owner is a live thread
 * of an ancestor process, the lock was copied locked when this process was
 * forked from it.  Otherwise the owner is simply no thread of this process
 * (it exited while holding the lock, or its process is gone).
 */
#include <dirent.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "forkorigin.h"
#include "snapshot_int.h"

/* "PPid:" (or "Tgid:") of /proc/PATH/status, 0 if unreadable. */
static pid_t status_field(const char *path, const char *key)
{
	char buf[4096];
	if (lts_read_small(path, buf, sizeof(buf)) <= 0)
		return 0;
	const char *p = strstr(buf, key);
	return p ? (pid_t)strtol(p + strlen(key), NULL, 10) : 0;
}

pid_t lts_parent_of(pid_t pid)
{
	char path[64];
	snprintf(path, sizeof(path), "/proc/%d/status", (int)pid);
	return status_field(path, "\nPPid:");
}

bool lts_fork_origin(pid_t pid, pid_t tid, pid_t *parent, char *comm, size_t len)
{
	*parent = 0;
	if (len)
		comm[0] = 0;
	if (tid <= 0)
		return false;
	pid_t a = lts_parent_of(pid);
	for (int depth = 0; a > 1 && depth < 16; depth++) {
		char path[96];
		snprintf(path, sizeof(path), "/proc/%d/task/%d/status", (int)a, (int)tid);
		if (status_field(path, "\nTgid:") == a) {
			*parent = a;
			snprintf(path, sizeof(path), "/proc/%d/task/%d/comm", (int)a, (int)tid);
			if (len) {
				ssize_t n = lts_read_small(path, comm, len);
				if (n <= 0)
					comm[0] = 0;
				else
					comm[strcspn(comm, "\n")] = 0;
			}
			return true;
		}
		a = lts_parent_of(a);
	}
	return false;
}

/* The mapping of /proc/PID/maps holding ADDR. */
static bool mapping_of(pid_t pid, uint64_t addr, uint64_t *lo, uint64_t *hi)
{
	char path[64];
	snprintf(path, sizeof(path), "/proc/%d/maps", (int)pid);
	char *maps = lts_read_all(path, NULL);
	bool found = false;
	for (const char *l = maps; l && *l && !found;) {
		unsigned long long a, b;
		if (sscanf(l, "%llx-%llx", &a, &b) == 2 && addr >= a && addr < b) {
			*lo = a;
			*hi = b;
			found = true;
		}
		l = strchr(l, '\n');
		l = l ? l + 1 : NULL;
	}
	free(maps);
	return found;
}

/* The thread of process A whose stack pointer (it sleeps in a system
 * call) is in [LO, HI), 0 if none. */
static pid_t thread_on_stack(pid_t a, uint64_t lo, uint64_t hi)
{
	char path[96], buf[512];
	snprintf(path, sizeof(path), "/proc/%d/task", (int)a);
	DIR *d = opendir(path);
	pid_t found = 0;
	for (struct dirent *de; d && !found && (de = readdir(d));) {
		pid_t tid = (pid_t)strtol(de->d_name, NULL, 10);
		struct lt_sc_line sc;
		if (tid <= 0)
			continue;
		snprintf(path, sizeof(path), "/proc/%d/task/%d/syscall", (int)a, (int)tid);
		if (lts_read_small(path, buf, sizeof(buf)) > 0 && lt_parse_syscall_line(buf, &sc) == 0 &&
		    sc.state == LT_SC_IN_SYSCALL && sc.sp >= lo && sc.sp < hi)
			found = tid;
	}
	if (d)
		closedir(d);
	return found;
}

bool lts_fork_origin_stack(pid_t pid, uint64_t ptr, pid_t *tid, pid_t *parent, char *comm, size_t len)
{
	uint64_t lo, hi;
	*tid = 0;
	*parent = 0;
	if (!ptr || !mapping_of(pid, ptr, &lo, &hi))
		return false;
	pid_t a = lts_parent_of(pid);
	for (int depth = 0; a > 1 && depth < 16; depth++) {
		pid_t t = thread_on_stack(a, lo, hi);
		if (t)
			return lts_fork_origin(pid, t, parent, comm, len) && (*tid = t);
		a = lts_parent_of(a);
	}
	return false;
}

void lts_fork_origins(struct lt_snapshot *s)
{
	for (size_t i = 0; i < s->n_threads; i++) {
		struct lt_futex *f = &s->threads[i].futex;
		/* the models may have found that the word is no mutex's */
		if (f->owner_gone && !f->sem_owner && f->lock_kind && strcmp(f->lock_kind, "pthread mutex") &&
		    strcmp(f->lock_kind, "threading.RLock") && strcmp(f->lock_kind, "rwlock"))
			f->owner_gone = false;
		if (!f->owner_gone || f->gone_parent || f->sem_owner)
			continue; /* (a SemLock's record: semlock.c) */
		if (f->gone_tid)
			lts_fork_origin(s->pid, f->gone_tid, &f->gone_parent, f->gone_comm,
					sizeof(f->gone_comm));
		else if (f->gone_ptr)
			/* glibc clears the other threads' tids in a fork child:
			 * the struct pthread is at the top of its thread's stack,
			 * where that thread sleeps in the parent */
			lts_fork_origin_stack(s->pid, f->gone_ptr, &f->gone_tid, &f->gone_parent,
					      f->gone_comm, sizeof(f->gone_comm));
	}
}
