// SPDX-License-Identifier: MIT
/* How the report words durations, times, calls and thread names: shared by
 * the findings (report_find.c, report_rules.c) and the printers
 * (report_print.c), which depend on the model, not the other way round. */
#include <inttypes.h>
#include <string.h>
#include "filelock.h"
#include "timeline.h"
#include "report_int.h"
#include "utf8.h"

void rp_fmt_ts(uint64_t ns, char *buf, size_t len)
{
	snprintf(buf, len, "%" PRIu64 ".%06" PRIu64, ns / 1000000000u, ns % 1000000000u / 1000u);
}

void rp_clean_name(const char *in, char *out, size_t len)
{
	lt_text_escape(out, len, in, strlen(in));
}

void rp_fmt_call(const struct lt_report *r, const struct lt_report_call *c, char *buf, size_t len)
{
	char op[64], sym[160], name[4 * 160], to[48] = "";
	if (c->timeout_ns >= 0) {
		char d[32];
		lt_fmt_dur((uint64_t)c->timeout_ns, d, sizeof(d));
		snprintf(to, sizeof(to), ", timeout %s", d);
	}
	switch (c->kind) {
	case LT_EV_FUTEX_ENTER:
		/* the PRIVATE and CLOCK_REALTIME flags do not help a reader */
		lt_futex_op_name(c->op & ~0x180u, c->nr, op, sizeof(op));
		rp_clean_name(lt_report_lock_name(r, c->addr, sym, sizeof(sym)), name, sizeof(name));
		if (c->flags & LT_SPAN_WAIT)
			snprintf(buf, len, "%s %s (val %u%s)", op, name, c->val, to);
		else
			snprintf(buf, len, "%s %s", op, name);
		break;
	case LT_EV_WAIT_ENTER: {
		const char *cn = lt_call_name(c->nr);
		if (cn && !strncmp(cn, "epoll", 5))
			/* epoll_wait's count is maxevents, its fd the epoll
			 * instance: neither is a number of watched fds */
			snprintf(buf, len, "%s(epoll fd %d, maxevents %u%s)", cn, c->fd, c->nfds, to);
		else if (c->fd >= 0 && cn && strstr(cn, "poll"))
			snprintf(buf, len, "%s(%u fd%s watched, the first fd %d%s)", cn, c->nfds,
				 c->nfds == 1 ? "" : "s", c->fd, to);
		else if (c->fd >= 0) /* select: nfds is the highest fd + 1 */
			snprintf(buf, len, "%s(nfds %u, the first fd %d%s)", cn, c->nfds, c->fd, to);
		else
			snprintf(buf, len, "%s(nfds %u%s)", cn, c->nfds, to);
		break;
	}
	case LT_EV_IO_ENTER: {
		const char *what = c->socket ? "socket " : c->pipe ? "pipe " : "";
		if (c->count == LT_IO_COUNT_UNKNOWN)
			snprintf(buf, len, "%s(%sfd %d, bytes n/a)", lt_call_name(c->nr), what, c->fd);
		else if (c->count)
			snprintf(buf, len, "%s(%sfd %d, %" PRIu64 ")", lt_call_name(c->nr), what, c->fd, c->count);
		else
			snprintf(buf, len, "%s(%sfd %d)", lt_call_name(c->nr), what, c->fd);
		break;
	}
	case LT_EV_FLOCK_ENTER:
		lt_flock_call_str(&c->flk, NULL, buf, len);
		break;
	default:
		snprintf(buf, len, "%s", lt_call_name(c->nr));
	}
}
