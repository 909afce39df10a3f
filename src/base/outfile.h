/* SPDX-License-Identifier: MIT */
/* Creating output files as root in directories other users write to (/tmp):
 * every output is a new file, mode 0600, owned by whoever runs locktrace.
 * A path is never opened through a symlink and an existing file is never
 * written into: --force replaces it with a new file (a temporary file in the
 * same directory, renamed over it), so a symlink planted there, or a file
 * someone else owns and can still write, is only unlinked from that name. */
#ifndef LOCKTRACE_OUTFILE_H
#define LOCKTRACE_OUTFILE_H

#include <stddef.h>

/* Creates path for writing: new (O_EXCL, O_NOFOLLOW), or with force a new
 * file renamed over whatever regular file or symlink is there.  The fd, or
 * -errno: -EEXIST (exists, no force), -EINVAL (exists and is a directory,
 * device, fifo or socket: never replaced). */
int lt_out_create(const char *path, int force);

/* Whether path could be created now, without creating it: 0, -EEXIST or
 * -EINVAL as lt_out_create, or -errno when its directory cannot be
 * written.  For the checks before attaching. */
int lt_out_check(const char *path, int force);

/* A new private temporary file beside path (".NAME.XXXXXX" in its
 * directory), its name in tmp.  The fd, or -errno. */
int lt_out_tmp(const char *path, char *tmp, size_t tlen);

/* Renames tmp (from lt_out_tmp) to path: without force only if path does
 * not exist (-EEXIST otherwise, atomically); with force over a regular file
 * or symlink (never a directory or device: -EINVAL).  0 or -errno; tmp is
 * left in place on failure. */
int lt_out_commit(const char *tmp, const char *path, int force);

/* Do paths a and b name the same file?  Both existing: the same inode
 * (a hard link, a symlink to it); otherwise the same directory (by its
 * real path) and name.  1 or 0. */
int lt_out_same(const char *a, const char *b);

/* What a negative return above means, for a message. */
const char *lt_out_strerror(int r);

#endif
