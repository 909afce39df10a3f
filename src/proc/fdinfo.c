/* What an fd of the target refers to: readlink(/proc/PID/fd/N), and for
 * sockets a lookup of the inode in the target's own network namespace tables
 * (/proc/PID/net/{unix,tcp,tcp6,udp,udp6}), read once per snapshot. */
#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "snapshot.h"
#include "snapshot_int.h"
#include "grow.h"

struct net_entry {
	unsigned long inode;
	char *desc;
};

struct lts_net {
	pid_t pid;
	bool loaded;
	struct net_entry *v;
	size_t n, cap;
};

struct lts_net *lts_net_new(pid_t pid)
{
	struct lts_net *n = calloc(1, sizeof(*n));
	if (n)
		n->pid = pid;
	return n;
}

void lts_net_free(struct lts_net *n)
{
	if (!n)
		return;
	for (size_t i = 0; i < n->n; i++)
		free(n->v[i].desc);
	free(n->v);
	free(n);
}

static void net_add(struct lts_net *n, unsigned long inode, char *desc)
{
	if (!desc)
		return;
	struct net_entry *nv = inode ? lt_grow(n->v, &n->cap, n->n, sizeof(*nv), 64) : NULL;
	if (!nv) {
		free(desc);
		return;
	}
	n->v = nv;
	n->v[n->n].inode = inode;
	n->v[n->n].desc = desc;
	n->n++;
}

static const char *unix_type(unsigned t)
{
	switch (t) {
	case 1: return "stream";
	case 2: return "dgram";
	case 5: return "seqpacket";
	default: return "?";
	}
}

static const char *unix_state(unsigned flags, unsigned st)
{
	if (flags & 0x10000) /* __SO_ACCEPTCON */
		return "listening";
	switch (st) {
	case 1: return "unconnected";
	case 2: return "connecting";
	case 3: return "connected";
	case 4: return "disconnecting";
	default: return "?";
	}
}

static void load_unix(struct lts_net *n, const char *path)
{
	char *text = lts_read_all(path, NULL);
	if (!text)
		return;
	char *save = NULL;
	char *line = strtok_r(text, "\n", &save); /* header */
	while ((line = strtok_r(NULL, "\n", &save))) {
		unsigned flags, type, st;
		unsigned long inode;
		int off = 0;
		/* Num RefCount Protocol Flags Type St Inode [Path] */
		if (sscanf(line, "%*s %*x %*x %x %x %x %lu%n", &flags, &type, &st, &inode, &off) < 4)
			continue;
		const char *p = line + off;
		while (*p == ' ')
			p++;
		char *d;
		if (*p)
			d = lts_asprintf("unix %s %s %s%s", unix_type(type), unix_state(flags, st),
					 *p == '@' ? "abstract " : "", p);
		else
			d = lts_asprintf("unix %s %s", unix_type(type), unix_state(flags, st));
		net_add(n, inode, d);
	}
	free(text);
}

static const char *tcp_state(unsigned st)
{
	static const char *const names[] = {
		"?", "ESTABLISHED", "SYN_SENT", "SYN_RECV", "FIN_WAIT1", "FIN_WAIT2",
		"TIME_WAIT", "CLOSE", "CLOSE_WAIT", "LAST_ACK", "LISTEN", "CLOSING",
		"NEW_SYN_RECV",
	};
	return st < sizeof(names) / sizeof(names[0]) ? names[st] : "?";
}

static void load_inet(struct lts_net *n, const char *path, const char *proto, bool tcp)
{
	char *text = lts_read_all(path, NULL);
	if (!text)
		return;
	char *save = NULL;
	char *line = strtok_r(text, "\n", &save); /* header */
	while ((line = strtok_r(NULL, "\n", &save))) {
		char loc[80], rem[80];
		unsigned st;
		unsigned long inode;
		/* sl local rem st tx:rx tr:when retrnsmt uid timeout inode */
		if (sscanf(line, " %*s %79s %79s %x %*s %*s %*s %*u %*u %lu", loc, rem, &st, &inode) != 4)
			continue;
		char l[80], r[80];
		if (lts_format_inet(loc, l, sizeof(l)) || lts_format_inet(rem, r, sizeof(r)))
			continue;
		char *d;
		if (tcp && st == 10)
			d = lts_asprintf("%s listening %s", proto, l);
		else if (tcp)
			d = lts_asprintf("%s %s -> %s %s", proto, l, r, tcp_state(st));
		else if (strspn(rem, "0:") == strlen(rem))
			d = lts_asprintf("%s %s", proto, l);
		else
			d = lts_asprintf("%s %s -> %s", proto, l, r);
		net_add(n, inode, d);
	}
	free(text);
}

static int entry_cmp(const void *a, const void *b)
{
	unsigned long x = ((const struct net_entry *)a)->inode;
	unsigned long y = ((const struct net_entry *)b)->inode;
	return (x > y) - (x < y);
}

static void net_load(struct lts_net *n)
{
	char path[64];
	n->loaded = true;
	snprintf(path, sizeof(path), "/proc/%d/net/unix", (int)n->pid);
	load_unix(n, path);
	static const struct { const char *file, *proto; bool tcp; } inet[] = {
		{ "tcp", "tcp", true }, { "tcp6", "tcp6", true },
		{ "udp", "udp", false }, { "udp6", "udp6", false },
	};
	for (size_t i = 0; i < sizeof(inet) / sizeof(inet[0]); i++) {
		snprintf(path, sizeof(path), "/proc/%d/net/%s", (int)n->pid, inet[i].file);
		load_inet(n, path, inet[i].proto, inet[i].tcp);
	}
	if (n->n)
		qsort(n->v, n->n, sizeof(*n->v), entry_cmp);
}

const char *lts_net_lookup(struct lts_net *n, unsigned long inode)
{
	if (!n)
		return NULL;
	if (!n->loaded)
		net_load(n);
	struct net_entry key = { .inode = inode };
	struct net_entry *e = bsearch(&key, n->v, n->n, sizeof(*n->v), entry_cmp);
	return e ? e->desc : NULL;
}

/* "flags:\t02004002" from /proc/PID/fdinfo/N: the open flags, octal. */
static int fd_flags(pid_t pid, int fd, unsigned *flags)
{
	char path[64], buf[512];
	snprintf(path, sizeof(path), "/proc/%d/fdinfo/%d", (int)pid, fd);
	if (lts_read_small(path, buf, sizeof(buf)) < 0)
		return -1;
	const char *p = strstr(buf, "flags:");
	if (!p)
		return -1;
	*flags = (unsigned)strtoul(p + 6, NULL, 8);
	return 0;
}

void lts_describe_fd(pid_t pid, struct lts_net *net, int fd, struct lt_fd *out)
{
	char path[64], target[4096];
	out->fd = fd;
	out->kind = LT_FD_UNKNOWN;
	out->target = NULL;
	out->desc = NULL;
	if (fd < 0) {
		out->desc = lts_strdup("invalid fd");
		return;
	}
	snprintf(path, sizeof(path), "/proc/%d/fd/%d", (int)pid, fd);
	ssize_t n = readlink(path, target, sizeof(target) - 1);
	if (n < 0) {
		int e = errno;
		out->desc = lts_asprintf("%s", e == ENOENT ? "not open (closed?)" : strerror(e));
		return;
	}
	target[n] = 0;
	out->target = lts_strdup(target);
	unsigned long inode;
	if (sscanf(target, "socket:[%lu]", &inode) == 1) {
		out->kind = LT_FD_SOCKET;
		const char *d = lts_net_lookup(net, inode);
		out->desc = d ? lts_strdup(d) : lts_strdup("socket (not in /proc/net unix/tcp/udp)");
	} else if (sscanf(target, "pipe:[%lu]", &inode) == 1) {
		unsigned fl;
		out->kind = LT_FD_PIPE;
		if (fd_flags(pid, fd, &fl) == 0)
			out->desc = lts_strdup((fl & O_ACCMODE) == O_WRONLY ? "pipe write end" : "pipe read end");
		else
			out->desc = lts_strdup("pipe");
	} else if (strncmp(target, "anon_inode:", 11) == 0) {
		out->kind = LT_FD_ANON;
		out->desc = lts_strdup(target + 11);
	} else if (target[0] == '/') {
		/* a FIFO is opened by its path: only the inode tells */
		struct stat st;
		bool fifo = stat(path, &st) == 0 && S_ISFIFO(st.st_mode);
		out->kind = fifo ? LT_FD_FIFO : LT_FD_FILE;
		out->desc = fifo ? lts_asprintf("FIFO %s", target) : lts_strdup(target);
	} else {
		out->kind = LT_FD_OTHER;
		out->desc = lts_strdup(target);
	}
}

/* The kernel nests epoll sets at most this deep (EP_MAX_NESTS). */
#define EPOLL_MAX_NESTS 4

/* The interest list of epoll fd EPFD of PID appended to *V (*N of *CAP).
 * An epoll fd in it (a nested set: an event loop embedding another, as
 * sd-event's fd is meant to be) is ready when its own list is: it is
 * replaced by that list, each of its fds said to be in it, DEPTH levels
 * down at most (an empty one is kept as it is). */
static int epoll_list(pid_t pid, struct lts_net *net, int epfd, int depth, struct lt_fd **v, size_t *n,
		      size_t *cap)
{
	char path[64];
	snprintf(path, sizeof(path), "/proc/%d/fdinfo/%d", (int)pid, epfd);
	char *text = lts_read_all(path, NULL);
	if (!text)
		return -errno;
	enum { MAX = 1024 };
	int *fds = malloc(MAX * sizeof(*fds));
	unsigned *ev = malloc(MAX * sizeof(*ev));
	size_t k = fds && ev ? lts_parse_epoll_fdinfo(text, fds, ev, MAX) : 0;
	free(text);
	int r = fds && ev ? 0 : -ENOMEM;
	for (size_t i = 0; i < k && !r; i++) {
		struct lt_fd f = { 0 };
		lts_describe_fd(pid, net, fds[i], &f);
		f.events = ev[i];
		if (depth > 1 && f.target && !strcmp(f.target, "anon_inode:[eventpoll]") && (ev[i] & 1) &&
		    fds[i] != epfd) {
			size_t from = *n;
			/* an empty inner set stays itself: only an epoll_ctl
			 * of this process's can fill it */
			if (!epoll_list(pid, net, fds[i], depth - 1, v, n, cap) && *n > from) {
				for (size_t j = from; j < *n; j++) {
					char *d = lts_asprintf("%s (in epoll fd %d)", (*v)[j].desc ? (*v)[j].desc
									: (*v)[j].target ? (*v)[j].target : "?", fds[i]);
					if (d) {
						free((*v)[j].desc);
						(*v)[j].desc = d;
					}
				}
				free(f.target);
				free(f.desc);
				continue;
			}
		}
		struct lt_fd *nv = lt_grow(*v, cap, *n, sizeof(**v), 8);
		if (!nv) {
			free(f.target);
			free(f.desc);
			r = -ENOMEM;
			break;
		}
		*v = nv;
		(*v)[(*n)++] = f;
	}
	free(fds);
	free(ev);
	return r;
}

int lts_epoll_fds(pid_t pid, struct lts_net *net, int epfd, struct lt_fdwait *w)
{
	struct lt_fd *v = NULL;
	size_t n = 0, cap = 0;
	int r = epoll_list(pid, net, epfd, EPOLL_MAX_NESTS + 1, &v, &n, &cap);
	if (r) {
		for (size_t i = 0; i < n; i++) {
			free(v[i].target);
			free(v[i].desc);
		}
		free(v);
		return r;
	}
	w->fds = v;
	w->n_fds = n;
	return 0;
}
