/* SPDX-License-Identifier: MIT */
/*
 * File-lock calls in words: flock(2)'s operation, fcntl(2)'s lock commands
 * and the struct flock they pass.  The one decoder every output uses (dump,
 * report, JSON, Perfetto, the snapshot's call lines), so a call reads the
 * same everywhere:
 *
 *   flock(fd 3, LOCK_EX)
 *   fcntl(fd 3, F_SETLKW, write lock 0..EOF)
 *   fcntl(fd 4, F_OFD_SETLK, read lock 100..149 from the end)
 */
#ifndef LOCKTRACE_FILELOCK_H
#define LOCKTRACE_FILELOCK_H

#include <stddef.h>
#include <stdint.h>
#include "locktrace/event.h"

/* lt_flock_enter.type of an entry built from a snapshot's registers (a
 * call begun before tracing): the struct flock was never read.  Only in
 * memory, never in a trace file. */
#define LT_FLOCK_TYPE_NOT_READ (-2)

/* The flock(2) operation, "LOCK_EX|LOCK_NB". */
size_t lt_flock_op_str(unsigned op, char *buf, size_t len);
/* The fcntl(2) command name ("F_SETLKW", "F_OFD_SETLKW", the GETLK ones
 * too), NULL if not a lock command. */
const char *lt_fcntl_lock_cmd(unsigned cmd);
/* A struct flock's lock: "write lock 0..EOF", "read lock 100..149",
 * "unlock 10..EOF from the current offset"; type -1: "struct flock
 * unreadable", LT_FLOCK_TYPE_NOT_READ: "range not recorded".  len < 0 locks the -len bytes before start. */
size_t lt_flock_range_str(int type, unsigned whence, int64_t start, int64_t len, char *buf,
			  size_t len_buf);
/* The call: "flock(fd 3, LOCK_EX)", "fcntl(fd 3, F_SETLKW, write lock
 * 0..EOF)".  fdtext, if not NULL, replaces "fd N" ("fd 3: /tmp/x"). */
size_t lt_flock_call_str(const struct lt_flock_enter *f, const char *fdtext, char *buf,
			 size_t len);
/* The file lock kind the call asks for: "flock lock" for flock(2),
 * "record lock" for F_SETLK[W], "OFD lock" for the F_OFD commands. */
const char *lt_flock_kind(const struct lt_flock_enter *f);

#endif
