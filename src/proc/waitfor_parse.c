/* Pure decoders for the wait-for edges (include/locktrace/waitfor.h):
 * /proc/locks and fdinfo "lock:" lines, flock/fcntl arguments, a
 * sock_diag reply for a unix socket's peer, the reverse 4-tuple in
 * /proc/net/tcp.  No /proc access here: tests feed them fixtures. */
#include <errno.h>
#include <inttypes.h>
#include <limits.h>
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
	case LT_WF_EXIT: return "exit";
	case LT_WF_TRACEE: return "tracee";
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

const char *lt_wf_pstate_words(enum lt_wf_pstate s)
{
	switch (s) {
	case LT_WFP_RUNNING: return "running";
	case LT_WFP_TIMED: return "asleep on a timer";
	case LT_WFP_EVENTS: return "in an event wait (idle)";
	case LT_WFP_BLOCKED: return "blocked itself";
	case LT_WFP_GONE: return "gone";
	case LT_WFP_UNKNOWN: break;
	}
	return "state unknown";
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

int lt_unix_diag_find_vfs(const void *buf, size_t len, uint32_t vfs_dev, uint64_t vfs_ino, int type, uint32_t *ino)
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
		if (type && m->udiag_type != type)
			continue;
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

/* ---- signal waits ---- */

const char *lt_signal_name(int sig, char *buf, size_t len)
{
	static const char *const names[] = {
		NULL, "SIGHUP", "SIGINT", "SIGQUIT", "SIGILL", "SIGTRAP", "SIGABRT", "SIGBUS", "SIGFPE",
		"SIGKILL", "SIGUSR1", "SIGSEGV", "SIGUSR2", "SIGPIPE", "SIGALRM", "SIGTERM", "SIGSTKFLT",
		"SIGCHLD", "SIGCONT", "SIGSTOP", "SIGTSTP", "SIGTTIN", "SIGTTOU", "SIGURG", "SIGXCPU",
		"SIGXFSZ", "SIGVTALRM", "SIGPROF", "SIGWINCH", "SIGIO", "SIGPWR", "SIGSYS",
	};
	if (sig > 0 && sig < (int)(sizeof(names) / sizeof(names[0])))
		snprintf(buf, len, "%s", names[sig]);
	else if (sig >= 32 && sig <= 64)
		snprintf(buf, len, "SIGRTMIN+%d", sig - 32); /* the kernel's numbering (glibc keeps 32, 33) */
	else
		snprintf(buf, len, "signal %d", sig);
	return buf;
}

/* What follows FIELD on the first line of TEXT that begins with it (a
 * /proc status or fdinfo file), else NULL. */
static const char *line_value(const char *text, const char *field)
{
	size_t fl = strlen(field);
	for (const char *p = text; p && *p;) {
		if (!strncmp(p, field, fl))
			return p + fl;
		p = strchr(p, '\n');
		if (p)
			p++;
	}
	return NULL;
}

int lt_status_sigmask(const char *status, const char *field, uint64_t *out)
{
	const char *v = line_value(status, field);
	char *end;
	unsigned long long x = v ? strtoull(v, &end, 16) : 0;
	if (!v || end == v)
		return -1;
	*out = (uint64_t)x;
	return 0;
}

/* The default action of SIG: 0 it ends the process, 1 it is discarded, 2
 * it stops the process (and the wait goes on once continued). */
static int default_action(int sig)
{
	switch (sig) {
	case 17: case 18: case 23: case 28: /* SIGCHLD SIGCONT SIGURG SIGWINCH */
		return 1;
	case 19: case 20: case 21: case 22: /* SIGSTOP SIGTSTP SIGTTIN SIGTTOU */
		return 2;
	default:
		return 0;
	}
}

#define WHY(...) (why ? (void)snprintf(why, len, __VA_ARGS__) : (void)0)

enum lt_sig_end lt_sigwait_ends(const struct lt_sigwait *w, int sig, char *why, size_t len)
{
	char nm[24];
	lt_signal_name(sig, nm, sizeof(nm));
	uint64_t bit = sig >= 1 && sig <= 64 ? 1ULL << (sig - 1) : 0;
	const char *call = w->nr == 130 ? "rt_sigsuspend" : w->nr == 128 ? "rt_sigtimedwait"
			   : w->nr == 73 ? "flock" : w->nr == 72 ? "fcntl" : "pause";
	if (!bit || sig == 9 || sig == 19) {
		WHY("%s cannot be caught, blocked or waited for", nm);
		return sig == 9 ? LT_SIG_END_YES : LT_SIG_END_NO;
	}
	if (!w->disp_ok) {
		WHY("the process's signal dispositions (SigCgt, SigIgn) could not be read");
		return LT_SIG_END_MAYBE;
	}
	if (w->ignored & bit) {
		WHY("%s is ignored (SigIgn)%s", nm, sig == 17 ? ": the kernel sends none when a child exits" : "");
		return LT_SIG_END_NO;
	}
	if (w->nr == 128) {
		if (!w->set_ok) {
			WHY("the set rt_sigtimedwait waits for could not be read");
			return LT_SIG_END_MAYBE;
		}
		if (w->set & bit) {
			WHY("%s is in the set rt_sigtimedwait waits for", nm);
			return LT_SIG_END_YES;
		}
	}
	if (!w->blocked_ok) {
		WHY(w->nr == 130 ? "the mask rt_sigsuspend installed could not be read"
			: "the signals it blocks (SigBlk) could not be read");
		return LT_SIG_END_MAYBE;
	}
	if (w->blocked & bit) {
		WHY("%s is blocked during %s%s", nm, call, w->nr == 130 ? " (in the mask it passed)" : " (SigBlk)");
		return LT_SIG_END_NO;
	}
	if (w->caught & bit) {
		WHY("%s is caught (SigCgt) and not blocked during %s", nm, call);
		return LT_SIG_END_YES;
	}
	int d = default_action(sig);
	if (d == 1) {
		WHY("%s is at its default action, which discards it: it does not end %s", nm, call);
		return LT_SIG_END_NO;
	}
	if (d == 2) {
		WHY("%s stops the process, which then waits on in %s", nm, call);
		return LT_SIG_END_NO;
	}
	WHY("%s is not blocked during %s, and its default action ends the process", nm, call);
	return LT_SIG_END_YES;
}

/* A signalfd's read (or a poll for its reading) ends when a signal of
 * its mask is pending for the thread or the process.  The kernel queues a
 * signal only while it is blocked (else it is delivered: to its handler,
 * or discarded at a default action that discards it), never an ignored
 * one unless blocked, and no SIGCHLD at all when SIGCHLD is ignored (the
 * child is reaped at once).  W: set the signalfd's mask, blocked the
 * reading thread's SigBlk, caught / ignored the process's SigCgt / SigIgn. */
enum lt_sig_end lt_signalfd_ends(const struct lt_sigwait *w, int sig, char *why, size_t len)
{
	char nm[24];
	lt_signal_name(sig, nm, sizeof(nm));
	uint64_t bit = sig >= 1 && sig <= 64 ? 1ULL << (sig - 1) : 0;
	if (!w->set_ok) {
		WHY("the signalfd's mask (sigmask: of its fdinfo) could not be read");
		return LT_SIG_END_MAYBE;
	}
	if (!bit || !(w->set & bit)) {
		WHY("%s is not in the signalfd's mask", nm);
		return LT_SIG_END_NO;
	}
	if (!w->disp_ok) {
		WHY("the process's signal dispositions (SigCgt, SigIgn) could not be read");
		return LT_SIG_END_MAYBE;
	}
	if (sig == 17 && (w->ignored & bit)) {
		WHY("SIGCHLD is ignored (SigIgn): the kernel sends none when a child exits");
		return LT_SIG_END_NO;
	}
	if (!w->blocked_ok) {
		WHY("the signals the thread blocks (SigBlk) could not be read");
		return LT_SIG_END_MAYBE;
	}
	if (w->blocked & bit) {
		WHY("%s is in the signalfd's mask and blocked (SigBlk): it stays pending for the signalfd", nm);
		return LT_SIG_END_YES;
	}
	if (w->ignored & bit) {
		WHY("%s is ignored (SigIgn) and not blocked: the kernel discards it", nm);
		return LT_SIG_END_NO;
	}
	if (w->caught & bit) {
		/* its handler takes it; a poll it interrupts returns EINTR,
		 * a read of the signalfd may be restarted (SA_RESTART) */
		WHY("%s is caught (SigCgt) and not blocked: its handler takes it, which may or may not end the wait", nm);
		return LT_SIG_END_MAYBE;
	}
	int d = default_action(sig);
	if (d == 1) {
		WHY("%s is not blocked and at its default action, which discards it before the signalfd sees it", nm);
		return LT_SIG_END_NO;
	}
	if (d == 2) {
		WHY("%s is not blocked and stops the process, which then waits on", nm);
		return LT_SIG_END_NO;
	}
	WHY("%s is not blocked, and its default action ends the process", nm);
	return LT_SIG_END_YES;
}

#undef WHY

size_t lt_sigset_str(uint64_t mask, char *buf, size_t len)
{
	size_t l = 0;
	if (!len)
		return 0;
	buf[0] = 0;
	for (int sig = 1; sig <= 64; sig++) {
		if (!(mask & (1ULL << (sig - 1))))
			continue;
		char nm[24];
		lt_signal_name(sig, nm, sizeof(nm));
		size_t need = (l ? 1 : 0) + strlen(nm);
		if (l + need + 4 >= len) { /* room kept for " ..." */
			if (l + 5 <= len)
				l += (size_t)snprintf(buf + l, len - l, "%s...", l ? " " : "");
			return l;
		}
		l += (size_t)snprintf(buf + l, len - l, "%s%s", l ? " " : "", nm);
	}
	return l;
}

int lt_fdinfo_tty_index(const char *fdinfo, int *out)
{
	const char *v = line_value(fdinfo, "tty-index:");
	char *end;
	long x = v ? strtol(v, &end, 10) : 0;
	if (!v || end == v || x < 0 || x > INT_MAX)
		return -1;
	*out = (int)x;
	return 0;
}

/* A duration as timeout(1) takes it: a non-negative number, optionally
 * with a suffix s, m, h or d; -1 if not one. */
static double timeout1_dur(const char *a)
{
	char *end;
	double d = strtod(a, &end);
	if (end == a || d < 0 || d != d)
		return -1;
	if (!*end)
		return d;
	if (end[1])
		return -1;
	switch (*end) {
	case 's': return d;
	case 'm': return d * 60;
	case 'h': return d * 3600;
	case 'd': return d * 86400;
	default: return -1;
	}
}

/* The arguments of CMDLINE (LEN bytes of /proc/PID/cmdline, each ending
 * with a NUL) into ARGV (at most MAX): how many; 0 when it is empty or cut
 * (not every argument ends). */
static size_t cmdline_argv(const char *cmdline, size_t len, const char **argv, size_t max)
{
	size_t argc = 0;
	for (size_t i = 0; i < len && argc < max; i += strlen(cmdline + i) + 1)
		argv[argc++] = cmdline + i;
	return !len || cmdline[len - 1] ? 0 : argc;
}

double lt_timeout1_duration(const char *cmdline, size_t len)
{
	const char *argv[32];
	size_t argc = cmdline_argv(cmdline, len, argv, 32);
	if (!argc)
		return -1;
	size_t i = 1;
	for (; i < argc; i++) {
		const char *a = argv[i];
		if (!strcmp(a, "--")) {
			i++;
			break;
		}
		if (a[0] != '-' || !a[1])
			break;
		if (!strcmp(a, "--foreground") || !strcmp(a, "--preserve-status") || !strcmp(a, "--verbose") ||
		    !strncmp(a, "--signal=", 9) || !strncmp(a, "--kill-after=", 13))
			continue;
		if (!strcmp(a, "--signal") || !strcmp(a, "--kill-after")) {
			i++;
			continue;
		}
		if (a[1] == '-')
			return -1; /* a long option not known */
		/* short options, grouped: -f -p -v, then -s SIG or -k DUR (the
		 * rest of the word, else the next word) */
		for (const char *o = a + 1; *o; o++) {
			if (*o == 'f' || *o == 'p' || *o == 'v')
				continue;
			if (*o == 's' || *o == 'k') {
				if (!o[1])
					i++;
				break;
			}
			return -1;
		}
	}
	if (i >= argc || i + 1 >= argc)
		return -1; /* no duration, or no command after it */
	return timeout1_dur(argv[i]);
}

/* A decimal number of seconds, all of S (strtotimeval's syntax: digits,
 * one point); -1 otherwise. */
static double flock1_secs(const char *s)
{
	bool digit = false, point = false;
	for (const char *p = s; *p; p++) {
		if (*p >= '0' && *p <= '9')
			digit = true;
		else if (*p == '.' && !point)
			point = true;
		else
			return -1;
	}
	return digit ? strtod(s, NULL) : -1;
}

double lt_flock1_wait(const char *cmdline, size_t len)
{
	const char *argv[32];
	size_t argc = cmdline_argv(cmdline, len, argv, 32);
	if (!argc)
		return -1;
	double w = -1;
	for (size_t i = 1; i < argc; i++) {
		const char *a = argv[i];
		if (!strcmp(a, "--") || a[0] != '-' || !a[1])
			break; /* its options end ("+" in its getopt string) */
		if (!strcmp(a, "--shared") || !strcmp(a, "--exclusive") || !strcmp(a, "--nonblock") ||
		    !strcmp(a, "--nb") || !strcmp(a, "--close") || !strcmp(a, "--unlock") || !strcmp(a, "--no-fork") ||
		    !strcmp(a, "--verbose") || !strncmp(a, "--conflict-exit-code=", 21))
			continue;
		if (!strcmp(a, "--conflict-exit-code")) {
			i++;
			continue;
		}
		if (!strncmp(a, "--wait=", 7) || !strncmp(a, "--timeout=", 10)) {
			w = flock1_secs(strchr(a, '=') + 1);
			if (w < 0)
				return -1;
			continue;
		}
		if (!strcmp(a, "--wait") || !strcmp(a, "--timeout")) {
			if (i + 1 >= argc || (w = flock1_secs(argv[++i])) < 0)
				return -1;
			continue;
		}
		if (a[1] == '-')
			return -1; /* a long option not known (or abbreviated) */
		/* short options, grouped: -s -e -x -n -o -u -F, then -w SECS or
		 * -E CODE (the rest of the word, else the next word) */
		for (const char *o = a + 1; *o; o++) {
			if (strchr("sexnouF", *o))
				continue;
			if (*o == 'w' || *o == 'E') {
				const char *v = o[1] ? o + 1 : i + 1 < argc ? argv[++i] : NULL;
				if (!v)
					return -1;
				if (*o == 'w' && (w = flock1_secs(v)) < 0)
					return -1;
				break;
			}
			return -1;
		}
	}
	return w;
}

size_t lt_parse_proc_timers(const char *text, struct lt_ptimer *out, size_t max)
{
	/* ID: 0 / signal: 14/0000000000000000 / notify: signal/pid.812 /
	 * ClockID: 0, one block per timer */
	size_t n = 0;
	struct lt_ptimer *cur = NULL;
	for (const char *p = text; p && *p;) {
		if (!strncmp(p, "ID:", 3)) {
			cur = n < max ? &out[n++] : NULL;
			if (cur) {
				memset(cur, 0, sizeof(*cur));
				cur->id = (int)strtol(p + 3, NULL, 10);
			}
		} else if (cur && !strncmp(p, "signal:", 7)) {
			cur->signo = (int)strtol(p + 7, NULL, 10);
		} else if (cur && !strncmp(p, "notify:", 7)) {
			const char *q = p + 7;
			while (*q == ' ' || *q == '\t')
				q++;
			cur->signal = !strncmp(q, "signal/", 7);
			const char *slash = strchr(q, '/');
			const char *eol = strchr(q, '\n');
			if (slash && (!eol || slash < eol)) {
				cur->to_thread = !strncmp(slash + 1, "tid.", 4);
				const char *dot = strchr(slash, '.');
				if (dot && (!eol || dot < eol))
					cur->target = (pid_t)strtol(dot + 1, NULL, 10);
			}
		} else if (cur && !strncmp(p, "ClockID:", 8)) {
			cur->clock = (int)strtol(p + 8, NULL, 10);
		}
		p = strchr(p, '\n');
		if (p)
			p++;
	}
	return n;
}

/* A process id, all of S in decimal, > 0; 0 otherwise. */
static pid_t tail1_pidval(const char *s)
{
	char *end;
	if (!s || *s < '0' || *s > '9')
		return 0;
	long v = strtol(s, &end, 10);
	return !*end && v > 0 && v <= 0x3fffffff ? (pid_t)v : 0;
}

/* Is A an abbreviation (getopt_long's: at least MIN characters) of the
 * long option NAME, "--name" or "--name=..."?  Its value (after '=')
 * into *VAL, NULL when none. */
static bool tail1_long(const char *a, const char *name, size_t min, const char **val)
{
	if (strncmp(a, "--", 2))
		return false;
	a += 2;
	const char *eq = strchr(a, '=');
	size_t n = eq ? (size_t)(eq - a) : strlen(a);
	if (n < min || n > strlen(name) || strncmp(a, name, n))
		return false;
	*val = eq ? eq + 1 : NULL;
	return true;
}

pid_t lt_tail1_pid(const char *cmdline, size_t len, double *sleep_s)
{
	const char *argv[64];
	size_t argc = cmdline_argv(cmdline, len, argv, 64);
	if (sleep_s)
		*sleep_s = 1.0; /* tail's default sleep interval */
	if (!argc)
		return -1;
	bool follow = false;
	pid_t pid = 0;
	for (size_t i = 1; i < argc; i++) {
		const char *a = argv[i], *v = NULL;
		if (!strcmp(a, "--"))
			break; /* the rest are files */
		if (a[0] != '-' || !a[1])
			continue; /* a file (GNU getopt permutes: options may follow) */
		if (a[1] == '-') {
			/* its long options, abbreviated as getopt_long takes
			 * them where they are unambiguous */
			if (tail1_long(a, "follow", 3, &v)) {
				follow = true;
			} else if (tail1_long(a, "pid", 2, &v)) {
				if (!v && i + 1 < argc)
					v = argv[++i];
				if (!(pid = tail1_pidval(v)))
					return -1;
			} else if (tail1_long(a, "sleep-interval", 3, &v)) {
				if (!v && i + 1 < argc)
					v = argv[++i];
				char *end;
				double d = v ? strtod(v, &end) : -1;
				if (!v || *end || d < 0)
					return -1;
				if (sleep_s)
					*sleep_s = d;
			} else if (tail1_long(a, "bytes", 2, &v) || tail1_long(a, "lines", 2, &v) ||
				   tail1_long(a, "max-unchanged-stats", 2, &v)) {
				if (!v)
					i++;
			} else if (!tail1_long(a, "retry", 3, &v) && !tail1_long(a, "quiet", 2, &v) &&
				   !tail1_long(a, "silent", 3, &v) && !tail1_long(a, "verbose", 2, &v) &&
				   !tail1_long(a, "zero-terminated", 2, &v) && strcmp(a, "---disable-inotify") &&
				   strcmp(a, "---presume-input-pipe")) {
				return -1; /* a long option not known */
			}
			continue;
		}
		/* short options, grouped: -f -F -q -v -z and digits (the
		 * obsolete -5 form), then -c N, -n N or -s N (the rest of the
		 * word, else the next word) */
		for (const char *o = a + 1; *o; o++) {
			if (*o == 'f' || *o == 'F') {
				follow = true;
				continue;
			}
			if (strchr("qvz0123456789", *o))
				continue;
			if (*o == 'c' || *o == 'n' || *o == 's') {
				v = o[1] ? o + 1 : i + 1 < argc ? argv[++i] : NULL;
				if (!v)
					return -1;
				if (*o == 's') {
					char *end;
					double d = strtod(v, &end);
					if (*end || d < 0)
						return -1;
					if (sleep_s)
						*sleep_s = d;
				}
				break;
			}
			return -1;
		}
	}
	return follow ? pid : 0;
}
