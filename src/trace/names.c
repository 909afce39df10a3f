// SPDX-License-Identifier: MIT
/* Names of event kinds, syscalls and futex operations, and the one-line
 * event format used by `locktrace dump`. */
#include <inttypes.h>
#include <stdio.h>
#include <string.h>
#include "callnorm.h"
#include "filelock.h"
#include "locktrace/futex.h"
#include "locktrace/tracefile.h"
#include "utf8.h"

const char *lt_kind_name(unsigned kind)
{
	static const char *const n[LT_EV_MAX] = {
		[LT_EV_NONE] = "none",           [LT_EV_FUTEX_ENTER] = "futex",
		[LT_EV_WAIT_ENTER] = "wait",     [LT_EV_IO_ENTER] = "io",
		[LT_EV_SYS_EXIT] = "exit",       [LT_EV_SWITCH] = "switch",
		[LT_EV_WAKING] = "waking",       [LT_EV_TASK_NEW] = "task_new",
		[LT_EV_TASK_EXIT] = "task_exit", [LT_EV_RENAME] = "rename",
		[LT_EV_EXEC] = "exec",           [LT_EV_LOST] = "lost",
		[LT_EV_FLOCK_ENTER] = "filelock",
	};
	return kind < LT_EV_MAX && n[kind] ? n[kind] : "unknown";
}

/* The full table lives in src/trace/syscall_names.c (shared with the snapshot). */
const char *lt_syscall_name(long nr);

const char *lt_call_name(unsigned nr)
{
	const char *n = lt_syscall_name(nr);
	return n ? n : "syscall";
}

const char *lt_futex_cmd_name(unsigned cmd)
{
	static const char *const cmds[LT_FUTEX_NCMDS] = {
		[LT_FUTEX_WAIT] = "FUTEX_WAIT",
		[LT_FUTEX_WAKE] = "FUTEX_WAKE",
		[LT_FUTEX_FD] = "FUTEX_FD",
		[LT_FUTEX_REQUEUE] = "FUTEX_REQUEUE",
		[LT_FUTEX_CMP_REQUEUE] = "FUTEX_CMP_REQUEUE",
		[LT_FUTEX_WAKE_OP] = "FUTEX_WAKE_OP",
		[LT_FUTEX_LOCK_PI] = "FUTEX_LOCK_PI",
		[LT_FUTEX_UNLOCK_PI] = "FUTEX_UNLOCK_PI",
		[LT_FUTEX_TRYLOCK_PI] = "FUTEX_TRYLOCK_PI",
		[LT_FUTEX_WAIT_BITSET] = "FUTEX_WAIT_BITSET",
		[LT_FUTEX_WAKE_BITSET] = "FUTEX_WAKE_BITSET",
		[LT_FUTEX_WAIT_REQUEUE_PI] = "FUTEX_WAIT_REQUEUE_PI",
		[LT_FUTEX_CMP_REQUEUE_PI] = "FUTEX_CMP_REQUEUE_PI",
		[LT_FUTEX_LOCK_PI2] = "FUTEX_LOCK_PI2",
	};
	return cmd < LT_FUTEX_NCMDS ? cmds[cmd] : NULL;
}

const char *lt_futex_op_name(uint32_t op, uint16_t nr, char *buf, size_t len)
{
	if (nr != LT_NR_FUTEX) {
		snprintf(buf, len, "%s", lt_call_name(nr));
		return buf;
	}
	const char *name = lt_futex_cmd_name(op & LT_FUTEX_CMD_MASK);
	if (name)
		snprintf(buf, len, "%s", name);
	else
		snprintf(buf, len, "FUTEX_CMD_%u", op & LT_FUTEX_CMD_MASK);
	if (op & LT_FUTEX_PRIVATE)
		strncat(buf, "|PRIVATE", len - strlen(buf) - 1);
	if (op & LT_FUTEX_CLOCK_REALTIME)
		strncat(buf, "|CLOCK_REALTIME", len - strlen(buf) - 1);
	return buf;
}

/* A comm from the kernel (maybe without its NUL), escaped for a line of
 * text: a name cannot break the line or rewrite the terminal. */
#define COMM_BUF (4 * LT_COMM_LEN + 1)
static const char *comm_or(const char *c, char *buf)
{
	if (!c[0])
		return "?";
	lt_text_escape(buf, COMM_BUF, c, LT_COMM_LEN);
	return buf;
}

void lt_format_event(const struct lt_event *ev, char *buf, size_t len)
{
	const struct lt_ev_hdr *h = &ev->h;
	char op[64], c1[COMM_BUF], c2[COMM_BUF];
	int n = snprintf(buf, len, "%" PRIu64 ".%09" PRIu64 " cpu%-2u %-7u %-9s ",
			 h->ts / 1000000000u, h->ts % 1000000000u, h->cpu, h->tid,
			 lt_kind_name(h->kind));
	if (n < 0 || (size_t)n >= len)
		return;
	buf += n;
	len -= (size_t)n;

	switch (h->kind) {
	case LT_EV_FUTEX_ENTER:
		snprintf(buf, len, "%s uaddr=0x%" PRIx64 " val=%u timeout=%" PRId64 " uaddr2=0x%" PRIx64
			 " val3=0x%x",
			 lt_futex_op_name(ev->futex.op, ev->futex.nr, op, sizeof(op)), ev->futex.uaddr,
			 ev->futex.val, ev->futex.timeout, ev->futex.uaddr2, ev->futex.val3);
		break;
	case LT_EV_WAIT_ENTER:
		snprintf(buf, len, "%s nfds=%u fds=%d,%d,%d,%d timeout_ns=%" PRId64,
			 lt_call_name(ev->wait.nr), ev->wait.nfds, ev->wait.fds[0], ev->wait.fds[1],
			 ev->wait.fds[2], ev->wait.fds[3], ev->wait.timeout_ns);
		break;
	case LT_EV_IO_ENTER:
		if (ev->io.count == LT_IO_COUNT_UNKNOWN)
			snprintf(buf, len, "%s fd=%d count=n/a%s", lt_call_name(ev->io.nr), ev->io.fd,
				 h->flags & LT_F_IO_PIPE ? " pipe" : "");
		else
			snprintf(buf, len, "%s fd=%d count=%" PRIu64 "%s", lt_call_name(ev->io.nr), ev->io.fd,
				 ev->io.count, h->flags & LT_F_IO_PIPE ? " pipe" : "");
		break;
	case LT_EV_SYS_EXIT:
		if (h->flags & LT_F_RET_UNKNOWN) { /* --calls blocking */
			snprintf(buf, len, "%s ret=? (ran again)%s",
				 ev->exit.nr == LT_NR_UNKNOWN ? "call" : lt_call_name(ev->exit.nr),
				 h->flags & LT_F_BEGAN_BEFORE ? " (began before tracing)" : "");
			break;
		}
		snprintf(buf, len, "%s ret=%" PRId64 "%s", lt_call_name(ev->exit.nr), ev->exit.ret,
			 h->flags & LT_F_BEGAN_BEFORE ? " (began before tracing)" : "");
		break;
	case LT_EV_SWITCH:
		snprintf(buf, len, "prev=%u(%s) state=0x%" PRIx64 " -> next=%u(%s)%s", ev->sw.prev_tid,
			 comm_or(ev->sw.prev_comm, c1), ev->sw.prev_state, ev->sw.next_tid,
			 comm_or(ev->sw.next_comm, c2), h->flags & LT_F_PREEMPT ? " preempt" : "");
		break;
	case LT_EV_WAKING:
		snprintf(buf, len, "by=%u(%s) tgid=%u target_cpu=%u%s%s%s%s", ev->wake.waker_tid,
			 comm_or(ev->wake.waker_comm, c1), ev->wake.waker_tgid, ev->wake.target_cpu,
			 h->flags & LT_F_WAKEUP_NEW ? " new" : "",
			 h->flags & LT_F_WAKER_IDLE ? " from-idle" : "",
			 h->flags & LT_F_WAKER_IRQ ? " in-interrupt" : "",
			 h->flags & LT_F_WAKER_SOFTIRQ ? " softirq-in-call" : "");
		break;
	case LT_EV_TASK_NEW:
		snprintf(buf, len, "comm=%s parent=%u clone_flags=0x%" PRIx64, comm_or(ev->tnew.comm, c1),
			 ev->tnew.parent_tid, ev->tnew.clone_flags);
		break;
	case LT_EV_TASK_EXIT:
		snprintf(buf, len, "code=%d%s", ev->texit.exit_code,
			 h->flags & LT_F_GROUP_DEAD ? " process-exit" : "");
		break;
	case LT_EV_RENAME:
		snprintf(buf, len, "%s -> %s", comm_or(ev->ren.oldcomm, c1), comm_or(ev->ren.newcomm, c2));
		break;
	case LT_EV_EXEC:
		snprintf(buf, len, "comm=%s old_tid=%u", comm_or(ev->exec.comm, c1), ev->exec.old_tid);
		break;
	case LT_EV_LOST:
		snprintf(buf, len, "%" PRIu64 " %s events lost", ev->lost.count,
			 lt_kind_name(ev->lost.lost_kind));
		break;
	case LT_EV_FLOCK_ENTER:
		lt_flock_call_str(&ev->flk, NULL, buf, len);
		break;
	default:
		snprintf(buf, len, "?");
	}
	if (h->kind == LT_EV_FUTEX_ENTER || h->kind == LT_EV_WAIT_ENTER || h->kind == LT_EV_IO_ENTER) {
		size_t used = strlen(buf);
		/* --calls blocking: written when the thread slept in the call, or
		 * woke another thread from it (ts: that moment, not the entry) */
		if (h->flags & LT_F_AT_SLEEP)
			snprintf(buf + used, len - used, " (at sleep)");
		else if (h->flags & LT_F_AT_WAKE)
			snprintf(buf + used, len - used, " (at wake)");
	}
}
