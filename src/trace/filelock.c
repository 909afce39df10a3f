// SPDX-License-Identifier: MIT
/* File-lock calls in words (filelock.h). */
#include <inttypes.h>
#include <stdio.h>
#include "filelock.h"
#include "locktrace/calls.h"

size_t lt_flock_op_str(unsigned op, char *buf, size_t len)
{
	const char *base = (op & LT_LOCK_UN) ? "LOCK_UN" : (op & LT_LOCK_EX) ? "LOCK_EX"
			   : (op & LT_LOCK_SH) ? "LOCK_SH" : "0";
	return (size_t)snprintf(buf, len, "%s%s", base, (op & LT_LOCK_NB) ? "|LOCK_NB" : "");
}

const char *lt_fcntl_lock_cmd(unsigned cmd)
{
	switch (cmd) {
	case 5: return "F_GETLK";
	case LT_F_SETLK: return "F_SETLK";
	case LT_F_SETLKW: return "F_SETLKW";
	case 36: return "F_OFD_GETLK";
	case LT_F_OFD_SETLK: return "F_OFD_SETLK";
	case LT_F_OFD_SETLKW: return "F_OFD_SETLKW";
	default: return NULL;
	}
}

size_t lt_flock_range_str(int type, unsigned whence, int64_t start, int64_t len, char *buf,
			  size_t len_buf)
{
	static const char *const types[] = { "read lock", "write lock", "unlock" };
	static const char *const from[] = { "", " from the current offset", " from the end" };
	char tb[24], fb[40], rb[64];

	if (type == LT_FLOCK_TYPE_NOT_READ)
		return (size_t)snprintf(buf, len_buf, "range not recorded (the call began before tracing)");
	if (type < 0)
		return (size_t)snprintf(buf, len_buf, "struct flock unreadable");
	if (type <= 2)
		snprintf(tb, sizeof(tb), "%s", types[type]);
	else
		snprintf(tb, sizeof(tb), "lock type %d", type);
	if (whence <= 2)
		snprintf(fb, sizeof(fb), "%s", from[whence]);
	else
		snprintf(fb, sizeof(fb), " from whence %u", whence);
	if (len == 0)
		snprintf(rb, sizeof(rb), "%" PRId64 "..EOF", start);
	else if (len > 0 && start <= INT64_MAX - len)
		snprintf(rb, sizeof(rb), "%" PRId64 "..%" PRId64, start, start + len - 1);
	else if (len < 0 && len != INT64_MIN && start >= INT64_MIN - len)
		snprintf(rb, sizeof(rb), "%" PRId64 "..%" PRId64, start + len, start - 1);
	else
		snprintf(rb, sizeof(rb), "start %" PRId64 " len %" PRId64, start, len);
	return (size_t)snprintf(buf, len_buf, "%s %s%s", tb, rb, fb);
}

size_t lt_flock_call_str(const struct lt_flock_enter *f, const char *fdtext, char *buf, size_t len)
{
	char fdb[24], what[112];
	const char *cmd;

	if (!fdtext) {
		snprintf(fdb, sizeof(fdb), "fd %d", f->fd);
		fdtext = fdb;
	}
	if (f->nr == LT_NR_FLOCK) {
		lt_flock_op_str(f->cmd, what, sizeof(what));
		return (size_t)snprintf(buf, len, "flock(%s, %s)", fdtext, what);
	}
	lt_flock_range_str(f->type, f->whence, f->start, f->len, what, sizeof(what));
	cmd = lt_fcntl_lock_cmd(f->cmd);
	if (cmd)
		return (size_t)snprintf(buf, len, "fcntl(%s, %s, %s)", fdtext, cmd, what);
	return (size_t)snprintf(buf, len, "fcntl(%s, cmd %u, %s)", fdtext, f->cmd, what);
}

const char *lt_flock_kind(const struct lt_flock_enter *f)
{
	if (f->nr == LT_NR_FLOCK)
		return "flock lock";
	return f->cmd == LT_F_OFD_SETLK || f->cmd == LT_F_OFD_SETLKW ? "OFD lock" : "record lock";
}
