// SPDX-License-Identifier: MIT
/* See src/base/outfile.h. */
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>
#include "outfile.h"

/* 0 if nothing is at path or only something --force may replace (a
 * regular file or a symlink, which is itself replaced, never followed);
 * -EEXIST without force; -EINVAL for anything else. */
static int replaceable(const char *path, int force)
{
	struct stat sb;

	if (lstat(path, &sb))
		return errno == ENOENT ? 0 : -errno;
	if (!force)
		return -EEXIST;
	return S_ISREG(sb.st_mode) || S_ISLNK(sb.st_mode) ? 0 : -EINVAL;
}

/* The directory part of path ("." for a bare name) into dir. */
static int dir_of(const char *path, char *dir, size_t n)
{
	const char *slash = strrchr(path, '/');
	int w = slash ? snprintf(dir, n, "%.*s", (int)(slash == path ? 1 : slash - path), path)
		      : snprintf(dir, n, ".");
	return w < 0 || (size_t)w >= n ? -ENAMETOOLONG : 0;
}

int lt_out_tmp(const char *path, char *tmp, size_t tlen)
{
	const char *slash = strrchr(path, '/');
	const char *base = slash ? slash + 1 : path;
	int w = snprintf(tmp, tlen, "%.*s.%s.XXXXXX", (int)(base - path), path, base);

	if (!*base)
		return -EISDIR;
	if (w < 0 || (size_t)w >= tlen)
		return -ENAMETOOLONG;
	/* mkostemp: O_CREAT|O_EXCL (never through a symlink), mode 0600 */
	int fd = mkostemp(tmp, O_CLOEXEC);
	return fd < 0 ? -errno : fd;
}

int lt_out_commit(const char *tmp, const char *path, int force)
{
	int r = replaceable(path, force);

	if (r)
		return r;
	if (force)
		return rename(tmp, path) ? -errno : 0;
	if (renameat2(AT_FDCWD, tmp, AT_FDCWD, path, RENAME_NOREPLACE) == 0)
		return 0;
	if (errno != EINVAL && errno != ENOSYS)
		return -errno;
	/* a file system without RENAME_NOREPLACE: link() never replaces */
	if (link(tmp, path))
		return -errno;
	unlink(tmp);
	return 0;
}

int lt_out_create(const char *path, int force)
{
	char tmp[4096];
	int fd;

	if (!force) {
		fd = open(path, O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC, 0600);
		return fd < 0 ? -errno : fd;
	}
	int r = replaceable(path, 1);
	if (r)
		return r;
	if ((fd = lt_out_tmp(path, tmp, sizeof(tmp))) < 0)
		return fd;
	if ((r = lt_out_commit(tmp, path, 1))) {
		unlink(tmp);
		close(fd);
		return r;
	}
	return fd;
}

/* dir's real path and path's last component into out */
static int canon(const char *path, char *out, size_t n)
{
	char dir[4096], real[PATH_MAX];
	const char *slash = strrchr(path, '/');
	if (dir_of(path, dir, sizeof(dir)) || !realpath(dir, real))
		return -1;
	int w = snprintf(out, n, "%s/%s", real, slash ? slash + 1 : path);
	return w < 0 || (size_t)w >= n ? -1 : 0;
}

int lt_out_same(const char *a, const char *b)
{
	struct stat sa, sb;
	char ca[4096 + PATH_MAX], cb[4096 + PATH_MAX];
	if (!a || !b)
		return 0;
	if (!stat(a, &sa) && !stat(b, &sb))
		return sa.st_dev == sb.st_dev && sa.st_ino == sb.st_ino;
	if (canon(a, ca, sizeof(ca)) || canon(b, cb, sizeof(cb)))
		return !strcmp(a, b);
	return !strcmp(ca, cb);
}

int lt_out_check(const char *path, int force)
{
	char dir[4096];
	int r = replaceable(path, force);

	if (r)
		return r;
	if ((r = dir_of(path, dir, sizeof(dir))))
		return r;
	return access(dir, W_OK | X_OK) ? -errno : 0;
}

const char *lt_out_strerror(int r)
{
	if (r == -EINVAL)
		return "it is not a regular file (only a file or a symlink is replaced, never followed)";
	if (r == -EEXIST)
		return "it already exists";
	return strerror(-r);
}
