/* TCP and UDP sockets and their peers on this host (inetdiag.h). */
#include <arpa/inet.h>
#include <errno.h>
#include <linux/inet_diag.h>
#include <linux/netlink.h>
#include <linux/sock_diag.h>
#include <netinet/in.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/time.h>
#include <unistd.h>

#include "inetdiag.h"
#include "snapshot_int.h"
#include "grow.h"

static struct lt_inet_sock *slot(struct lt_inet_table *t)
{
	struct lt_inet_sock *nv = lt_grow(t->v, &t->cap, t->n, sizeof(*nv), 64);
	if (!nv)
		return NULL;
	t->v = nv;
	struct lt_inet_sock *s = &t->v[t->n++];
	memset(s, 0, sizeof(*s));
	return s;
}

/* 4 network-order bytes of IPv4 as ::ffff:a.b.c.d */
static void v4_mapped(uint8_t out[16], const void *v4)
{
	memset(out, 0, 10);
	out[10] = out[11] = 0xff;
	memcpy(out + 12, v4, 4);
}

int lt_inet_diag_parse(const void *buf, size_t len, int proto, struct lt_inet_table *t)
{
	const struct nlmsghdr *h = buf;
	size_t left = len;
	for (; NLMSG_OK(h, left); h = NLMSG_NEXT(h, left)) {
		if (h->nlmsg_type == NLMSG_DONE)
			return 1;
		if (h->nlmsg_type == NLMSG_ERROR) {
			if (h->nlmsg_len < NLMSG_LENGTH(sizeof(struct nlmsgerr)))
				return -EINVAL;
			const struct nlmsgerr *e = NLMSG_DATA(h);
			return e->error ? e->error : -EINVAL;
		}
		if (h->nlmsg_type != SOCK_DIAG_BY_FAMILY)
			continue;
		if (h->nlmsg_len < NLMSG_LENGTH(sizeof(struct inet_diag_msg)))
			return -EINVAL;
		const struct inet_diag_msg *m = NLMSG_DATA(h);
		if (m->idiag_family != AF_INET && m->idiag_family != AF_INET6)
			continue;
		struct lt_inet_sock *s = slot(t);
		if (!s)
			return -ENOMEM;
		s->proto = (uint8_t)proto;
		s->state = m->idiag_state;
		s->sport = ntohs(m->id.idiag_sport);
		s->dport = ntohs(m->id.idiag_dport);
		s->ino = m->idiag_inode;
		if (m->idiag_family == AF_INET) {
			v4_mapped(s->src, m->id.idiag_src);
			v4_mapped(s->dst, m->id.idiag_dst);
		} else {
			memcpy(s->src, m->id.idiag_src, 16);
			memcpy(s->dst, m->id.idiag_dst, 16);
		}
	}
	return 0;
}

/* "0100007F:1F90" or 32 hex digits ":" port: each 32-bit group is the
 * network-order word printed as a host (little-endian) integer. */
static int proc_addr(const char *hex, uint8_t out[16], uint16_t *port)
{
	const char *colon = strchr(hex, ':');
	if (!colon)
		return -1;
	size_t hl = (size_t)(colon - hex);
	if (hl != 8 && hl != 32)
		return -1;
	uint8_t raw[16];
	for (size_t g = 0; g < hl / 8; g++) {
		char w[9];
		memcpy(w, hex + 8 * g, 8);
		w[8] = 0;
		uint32_t v = (uint32_t)strtoul(w, NULL, 16);
		memcpy(raw + 4 * g, &v, 4); /* x86-64: little-endian, as the kernel printed it */
	}
	if (hl == 8)
		v4_mapped(out, raw);
	else
		memcpy(out, raw, 16);
	*port = (uint16_t)strtoul(colon + 1, NULL, 16);
	return 0;
}

void lt_inet_proc_parse(const char *text, int proto, struct lt_inet_table *t)
{
	if (!text)
		return;
	for (const char *p = strchr(text, '\n'); p && *++p; p = strchr(p, '\n')) {
		char loc[80], rem[80];
		unsigned st = 0;
		unsigned long ino = 0;
		if (sscanf(p, " %*s %79s %79s %x %*s %*s %*s %*u %*u %lu", loc, rem, &st, &ino) != 4)
			continue;
		struct lt_inet_sock s = { .proto = (uint8_t)proto, .state = (uint8_t)st, .ino = (uint32_t)ino };
		if (proc_addr(loc, s.src, &s.sport) || proc_addr(rem, s.dst, &s.dport))
			continue;
		struct lt_inet_sock *d = slot(t);
		if (!d)
			return;
		*d = s;
	}
}

static int dump(int family, int proto, struct lt_inet_table *t)
{
	int fd = socket(AF_NETLINK, SOCK_DGRAM | SOCK_CLOEXEC, NETLINK_SOCK_DIAG);
	if (fd < 0)
		return -errno;
	struct {
		struct nlmsghdr h;
		struct inet_diag_req_v2 r;
	} req;
	memset(&req, 0, sizeof(req));
	req.h.nlmsg_len = sizeof(req);
	req.h.nlmsg_type = SOCK_DIAG_BY_FAMILY;
	req.h.nlmsg_flags = NLM_F_REQUEST | NLM_F_DUMP;
	req.r.sdiag_family = (uint8_t)family;
	req.r.sdiag_protocol = (uint8_t)proto;
	req.r.idiag_states = ~0u;
	struct timeval tv = { 1, 0 };
	setsockopt(fd, SOL_SOCKET, SO_RCVTIMEO, &tv, sizeof(tv));
	int r = 0;
	if (send(fd, &req, sizeof(req), 0) < 0)
		r = -errno;
	long buf[4096];
	for (int rounds = 0; !r; rounds++) {
		if (rounds > 100000) {
			r = -E2BIG;
			break;
		}
		ssize_t n = recv(fd, buf, sizeof(buf), 0);
		if (n < 0) {
			r = -errno;
			break;
		}
		if (n == 0) {
			r = -EIO;
			break;
		}
		r = lt_inet_diag_parse(buf, (size_t)n, proto, t);
	}
	close(fd);
	return r == 1 ? 0 : r;
}

static bool same_netns(pid_t pid)
{
	char p[64];
	struct stat a, b;
	snprintf(p, sizeof(p), "/proc/%d/ns/net", (int)pid);
	return stat(p, &a) == 0 && stat("/proc/self/ns/net", &b) == 0 && a.st_ino == b.st_ino &&
	       a.st_dev == b.st_dev;
}

int lt_inet_load(pid_t pid, struct lt_inet_table *t)
{
	memset(t, 0, sizeof(*t));
	const char *off = getenv("LOCKTRACE_NO_SOCK_DIAG");
	if (off && *off && strcmp(off, "0"))
		snprintf(t->why, sizeof(t->why), "LOCKTRACE_NO_SOCK_DIAG is set");
	else if (!same_netns(pid))
		snprintf(t->why, sizeof(t->why), "the target is in another network namespace");
	else {
		static const struct { int fam, proto; } q[] = {
			{ AF_INET, IPPROTO_TCP }, { AF_INET6, IPPROTO_TCP },
			{ AF_INET, IPPROTO_UDP }, { AF_INET6, IPPROTO_UDP },
		};
		int r = 0;
		for (size_t i = 0; i < 4 && !r; i++)
			r = dump(q[i].fam, q[i].proto, t);
		if (!r) {
			t->source = "NETLINK_SOCK_DIAG inet_diag";
			return 0;
		}
		snprintf(t->why, sizeof(t->why), "NETLINK_SOCK_DIAG inet_diag refused: %s", strerror(-r));
		t->n = 0;
	}
	static const struct { const char *f; int proto; } f[] = {
		{ "tcp", IPPROTO_TCP }, { "tcp6", IPPROTO_TCP }, { "udp", IPPROTO_UDP }, { "udp6", IPPROTO_UDP },
	};
	bool any = false;
	for (size_t i = 0; i < 4; i++) {
		char p[64];
		snprintf(p, sizeof(p), "/proc/%d/net/%s", (int)pid, f[i].f);
		char *text = lts_read_all(p, NULL);
		any |= text != NULL;
		lt_inet_proc_parse(text, f[i].proto, t);
		free(text);
	}
	t->source = "/proc/PID/net/{tcp,tcp6,udp,udp6}";
	return any ? 0 : -ENOENT;
}

void lt_inet_free(struct lt_inet_table *t)
{
	free(t->v);
	memset(t, 0, sizeof(*t));
}

const struct lt_inet_sock *lt_inet_find(const struct lt_inet_table *t, uint32_t ino)
{
	for (size_t i = 0; i < t->n; i++)
		if (t->v[i].ino == ino)
			return &t->v[i];
	return NULL;
}

const struct lt_inet_sock *lt_inet_peer(const struct lt_inet_table *t, const struct lt_inet_sock *s)
{
	static const uint8_t any[16];
	if (!s->dport)
		return NULL; /* not connected (or listening) */
	for (size_t i = 0; i < t->n; i++) {
		const struct lt_inet_sock *o = &t->v[i];
		if (o != s && o->proto == s->proto && o->sport == s->dport && o->dport == s->sport &&
		    !memcmp(o->src, s->dst, 16) && !memcmp(o->dst, s->src, 16) && o->ino)
			return o;
	}
	if (s->proto != IPPROTO_UDP)
		return NULL;
	/* udp: the peer may be bound but not connected (a server answering
	 * anyone): its local address is our remote one, or a wildcard, on
	 * our remote port */
	static const uint8_t any4[16] = { [10] = 0xff, [11] = 0xff };
	for (size_t i = 0; i < t->n; i++) {
		const struct lt_inet_sock *o = &t->v[i];
		if (o != s && o->proto == IPPROTO_UDP && o->sport == s->dport && !o->dport && o->ino &&
		    (!memcmp(o->src, s->dst, 16) || !memcmp(o->src, any, 16) || !memcmp(o->src, any4, 16)))
			return o;
	}
	return NULL;
}

static bool mapped(const uint8_t a[16])
{
	static const uint8_t pre[12] = { 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0xff, 0xff };
	return !memcmp(a, pre, 12);
}

const struct lt_inet_sock *lt_inet_listener(const struct lt_inet_table *t, const struct lt_inet_sock *s)
{
	static const uint8_t any[16], any4[16] = { [10] = 0xff, [11] = 0xff };
	if (s->proto != IPPROTO_TCP || !s->dport)
		return NULL;
	const struct lt_inet_sock *wild = NULL;
	for (size_t i = 0; i < t->n; i++) {
		const struct lt_inet_sock *o = &t->v[i];
		if (o == s || o->proto != IPPROTO_TCP || o->state != 10 || o->sport != s->dport || !o->ino)
			continue;
		if (!memcmp(o->src, s->dst, 16))
			return o; /* bound to the very address */
		/* a wildcard: 0.0.0.0 takes IPv4, :: both (unless v6only,
		 * which the tables do not say) */
		if (!wild && (!memcmp(o->src, any, 16) || (!memcmp(o->src, any4, 16) && mapped(s->dst))))
			wild = o;
	}
	return wild;
}

size_t lt_inet_addr_str(const struct lt_inet_sock *s, bool remote, char *buf, size_t len)
{
	const uint8_t *a = remote ? s->dst : s->src;
	unsigned port = remote ? s->dport : s->sport;
	char ip[INET6_ADDRSTRLEN];
	if (mapped(a)) {
		inet_ntop(AF_INET, a + 12, ip, sizeof(ip));
		return (size_t)snprintf(buf, len, "%s:%u", ip, port);
	}
	inet_ntop(AF_INET6, a, ip, sizeof(ip));
	return (size_t)snprintf(buf, len, "[%s]:%u", ip, port);
}

bool lt_inet_loopback(const uint8_t a[16])
{
	static const uint8_t lo6[16] = { [15] = 1 };
	return !memcmp(a, lo6, 16) || (mapped(a) && a[12] == 127);
}
