/* Pure decoders for the wait-for edges (include/locktrace/waitfor.h):
 * /proc/locks and fdinfo "lock:" lines, flock/fcntl arguments, a
 * sock_diag reply for a unix socket's peer, the reverse 4-tuple in
 * /proc/net/tcp.  No /proc access here: tests feed them fixtures. */
#include <errno.h>
#include <inttypes.h>
#include <linux/netlink.h>
#include <linux/rtnetlink.h>
#include <linux/sock_diag.h>
#include <linux/unix_diag.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "waitfor.h"

const char *lt_wf_kind_name(enum lt_wf_kind k)
{
	switch (k) {
	case LT_WF_NONE: return "none";
	case LT_WF_FILE_LOCK: return "file_lock";
	case LT_WF_PIPE_READ: return "pipe_read";
	case LT_WF_PIPE_WRITE: return "pipe_write";
	case LT_WF_SOCKET: return "socket";
	case LT_WF_REMOTE: return "remote";
	case LT_WF_LISTEN: return "listen";
	case LT_WF_CHILD: return "child";
	case LT_WF_TIMER: return "timer";
	case LT_WF_APP_LOCK: return "app_lock";
	case LT_WF_UNKNOWN: return "unknown";
	}
	return "unknown";
}

const char *lt_wf_pstate_name(enum lt_wf_pstate s)
{
	switch (s) {
	case LT_WFP_RUNNING: return "running";
	case LT_WFP_TIMED: return "timed";
	case LT_WFP_EVENTS: return "event_wait";
	case LT_WFP_BLOCKED: return "blocked";
	case LT_WFP_GONE: return "gone";
	case LT_WFP_UNKNOWN: break;
	}
	return "unknown";
}

int lt_parse_plock(const char *line, struct lt_plock *out)
{
	memset(out, 0, sizeof(*out));
	const char *p = line;
	char *end;
	while (*p == ' ' || *p == '\t')
		p++;
	long id = strtol(p, &end, 10);
	if (end == p || *end != ':')
		return -1;
	out->id = (int)id;
	p = end + 1;
	while (*p == ' ')
		p++;
	if (p[0] == '-' && p[1] == '>') {
		out->blocked = true;
		p += 2;
	}
	char mand[16], start[32], stop[32];
	int pid;
	unsigned long long ino;
	if (sscanf(p, "%7s %15s %7s %d %x:%x:%llu %31s %31s", out->cls, mand, out->type, &pid,
		   &out->major, &out->minor, &ino, start, stop) != 9)
		return -1;
	out->mandatory = !strcmp(mand, "MANDATORY");
	out->pid = pid;
	out->ino = ino;
	out->start = strtoull(start, NULL, 10);
	out->end = !strcmp(stop, "EOF") ? UINT64_MAX : strtoull(stop, NULL, 10);
	return 0;
}

size_t lt_parse_fdinfo_locks(const char *text, struct lt_plock *out, size_t max)
{
	size_t n = 0;
	for (const char *p = text; p && *p && n < max;) {
		if (!strncmp(p, "lock:", 5)) {
			char line[256];
			const char *eol = strchr(p, '\n');
			size_t l = eol ? (size_t)(eol - p - 5) : strlen(p + 5);
			if (l >= sizeof(line))
				l = sizeof(line) - 1;
			memcpy(line, p + 5, l);
			line[l] = 0;
			if (lt_parse_plock(line, &out[n]) == 0)
				n++;
		}
		p = strchr(p, '\n');
		if (p)
			p++;
	}
	return n;
}

bool lt_plock_conflicts(const struct lt_plock *held, const struct lt_plock *want)
{
	if (held->major != want->major || held->minor != want->minor || held->ino != want->ino)
		return false;
	if (!strcmp(held->type, "READ") && !strcmp(want->type, "READ"))
		return false;
	/* flock locks and record locks do not conflict with each other */
	bool hf = !strcmp(held->cls, "FLOCK"), wf = !strcmp(want->cls, "FLOCK");
	if (hf != wf)
		return false;
	if (hf)
		return true;
	return held->start <= want->end && want->start <= held->end;
}

bool lt_fdinfo_holds_lock(const char *text, const struct lt_plock *req)
{
	struct lt_plock l[16];
	size_t n = text ? lt_parse_fdinfo_locks(text, l, 16) : 0;
	for (size_t k = 0; k < n; k++)
		if ((!strcmp(l[k].cls, "OFDLCK") || !strcmp(l[k].cls, "FLOCK")) && !l[k].blocked &&
		    lt_plock_conflicts(&l[k], req))
			return true;
	return false;
}

size_t lt_flock_struct_str(const unsigned char raw[32], char *buf, size_t len)
{
	int16_t type, whence;
	int64_t start, l;
	memcpy(&type, raw, 2);
	memcpy(&whence, raw + 2, 2);
	memcpy(&start, raw + 8, 8);
	memcpy(&l, raw + 16, 8);
	static const char *const types[] = { "F_RDLCK", "F_WRLCK", "F_UNLCK" };
	static const char *const wh[] = { "SEEK_SET", "SEEK_CUR", "SEEK_END" };
	char tb[16], wb[16], lb[48];
	if (type >= 0 && type <= 2)
		snprintf(tb, sizeof(tb), "%s", types[type]);
	else
		snprintf(tb, sizeof(tb), "type %d", type);
	if (whence >= 0 && whence <= 2)
		snprintf(wb, sizeof(wb), "%s", wh[whence]);
	else
		snprintf(wb, sizeof(wb), "whence %d", whence);
	if (l == 0)
		snprintf(lb, sizeof(lb), "len 0 (to EOF)");
	else
		snprintf(lb, sizeof(lb), "len %" PRId64, l);
	return (size_t)snprintf(buf, len, "{%s, %s, start %" PRId64 ", %s}", tb, wb, start, lb);
}

int lt_parse_unix_diag(const void *buf, size_t len, uint32_t *ino, uint32_t *peer)
{
	const struct nlmsghdr *h = buf;
	size_t left = len;
	for (; NLMSG_OK(h, left); h = NLMSG_NEXT(h, left)) {
		if (h->nlmsg_type == NLMSG_DONE || h->nlmsg_type == NLMSG_ERROR)
			return -1;
		if (h->nlmsg_type != SOCK_DIAG_BY_FAMILY ||
		    h->nlmsg_len < NLMSG_LENGTH(sizeof(struct unix_diag_msg)))
			continue;
		const struct unix_diag_msg *m = NLMSG_DATA(h);
		*ino = m->udiag_ino;
		*peer = 0;
		size_t alen = h->nlmsg_len - NLMSG_LENGTH(sizeof(*m));
		const struct rtattr *a = (const struct rtattr *)(m + 1);
		for (; RTA_OK(a, alen); a = RTA_NEXT(a, alen))
			if (a->rta_type == UNIX_DIAG_PEER && RTA_PAYLOAD(a) >= 4)
				memcpy(peer, RTA_DATA(a), 4);
		return 0;
	}
	return -1;
}

int lt_unix_diag_find_vfs(const void *buf, size_t len, uint32_t vfs_dev, uint64_t vfs_ino, uint32_t *ino)
{
	const struct nlmsghdr *h = buf;
	size_t left = len;
	for (; NLMSG_OK(h, left); h = NLMSG_NEXT(h, left)) {
		if (h->nlmsg_type == NLMSG_DONE)
			return 2;
		if (h->nlmsg_type == NLMSG_ERROR)
			return -1;
		if (h->nlmsg_type != SOCK_DIAG_BY_FAMILY ||
		    h->nlmsg_len < NLMSG_LENGTH(sizeof(struct unix_diag_msg)))
			continue;
		const struct unix_diag_msg *m = NLMSG_DATA(h);
		const struct rtattr *a = (const struct rtattr *)(m + 1);
		size_t al = h->nlmsg_len - NLMSG_LENGTH(sizeof(*m));
		for (; RTA_OK(a, al); a = RTA_NEXT(a, al)) {
			if (a->rta_type != UNIX_DIAG_VFS || RTA_PAYLOAD(a) < sizeof(struct unix_diag_vfs))
				continue;
			struct unix_diag_vfs v;
			memcpy(&v, RTA_DATA(a), sizeof(v));
			if (v.udiag_vfs_ino == vfs_ino && v.udiag_vfs_dev == vfs_dev) {
				*ino = m->udiag_ino;
				return 1;
			}
		}
	}
	return 0;
}
