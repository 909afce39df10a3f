// SPDX-License-Identifier: MIT
/* See proclive.h. */
#include <dirent.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include "proclive.h"

/* The state letter of /proc/PID/task/TID/stat (0 if unreadable): after
 * the last ')' since comm may hold one. */
static char task_state(pid_t tgid, pid_t tid)
{
	char path[64], buf[1024];
	snprintf(path, sizeof(path), "/proc/%d/task/%d/stat", (int)tgid, (int)tid);
	int fd = open(path, O_RDONLY | O_CLOEXEC);
	if (fd < 0)
		return 0;
	ssize_t n = read(fd, buf, sizeof(buf) - 1);
	close(fd);
	if (n <= 0)
		return 0;
	buf[n] = 0;
	char *p = strrchr(buf, ')');
	return p && p[1] == ' ' ? p[2] : 0;
}

static int dead(char st)
{
	return st == 'Z' || st == 'X';
}

/* The lowest live thread of tgid other than its leader, 0 if none. */
static pid_t live_thread(pid_t tgid)
{
	char path[64];
	snprintf(path, sizeof(path), "/proc/%d/task", (int)tgid);
	DIR *d = opendir(path);
	pid_t best = 0;
	struct dirent *e;
	if (!d)
		return 0;
	while ((e = readdir(d))) {
		char *end;
		long tid = strtol(e->d_name, &end, 10);
		if (*end || tid <= 0 || tid == tgid || (best && tid >= best))
			continue;
		char st = task_state(tgid, (pid_t)tid);
		if (st && !dead(st))
			best = (pid_t)tid;
	}
	closedir(d);
	return best;
}

pid_t lt_proc_reader(pid_t tgid)
{
	if (tgid <= 0 || !dead(task_state(tgid, tgid)))
		return tgid;
	pid_t t = live_thread(tgid);
	return t ? t : tgid;
}

int lt_proc_zombie_leader(pid_t tgid)
{
	return tgid > 0 && dead(task_state(tgid, tgid)) && live_thread(tgid) != 0;
}
