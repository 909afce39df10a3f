/* TCP and UDP sockets of this host and their peers: NETLINK_SOCK_DIAG
 * inet_diag dumps (SOCK_DIAG_BY_FAMILY, AF_INET and AF_INET6), or the
 * /proc/PID/net/{tcp,tcp6,udp,udp6} texts when netlink is refused or the
 * target is in another network namespace.  The peer of a connected socket
 * is the socket whose local address is its remote one and remote its
 * local one (waitfor.c).  Addresses are kept as IPv6 (IPv4 as
 * ::ffff:a.b.c.d), so a v6 socket's v4 peer is found too. */
#ifndef LOCKTRACE_INETDIAG_H
#define LOCKTRACE_INETDIAG_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>

struct lt_inet_sock {
	uint8_t proto;          /* IPPROTO_TCP, IPPROTO_UDP                    */
	uint8_t state;          /* TCP_ESTABLISHED (1), TCP_LISTEN (10), ...    */
	uint8_t src[16], dst[16]; /* IPv6 form                                 */
	uint16_t sport, dport;  /* host order                                  */
	uint32_t ino;
};

struct lt_inet_table {
	struct lt_inet_sock *v;
	size_t n, cap;
	const char *source;     /* "NETLINK_SOCK_DIAG inet_diag" or "/proc/PID/net/..." */
	char why[128];          /* why netlink was not used, "" if it was      */
};

/* Append the sockets of a NETLINK_SOCK_DIAG inet_diag reply (one recv's
 * messages) for PROTO to T.  Returns 1 at NLMSG_DONE, 0 if more may come,
 * -errno for an NLMSG_ERROR (or -EINVAL for a malformed message). */
int lt_inet_diag_parse(const void *buf, size_t len, int proto, struct lt_inet_table *t);
/* Append the sockets of a /proc/net/{tcp,tcp6,udp,udp6} text. */
void lt_inet_proc_parse(const char *text, int proto, struct lt_inet_table *t);
/* Every tcp and udp socket of the target PID's network: netlink when it
 * shares locktrace's network namespace (and LOCKTRACE_NO_SOCK_DIAG is not
 * set), else, or when netlink is refused, /proc/PID/net.  0 or -errno. */
int lt_inet_load(pid_t pid, struct lt_inet_table *t);
void lt_inet_free(struct lt_inet_table *t);

const struct lt_inet_sock *lt_inet_find(const struct lt_inet_table *t, uint32_t ino);
/* The other end of S on this host (same protocol, reversed 4-tuple; for
 * udp also a socket bound, not connected, to S's remote address or a
 * wildcard on its port), NULL. */
const struct lt_inet_sock *lt_inet_peer(const struct lt_inet_table *t, const struct lt_inet_sock *s);
/* The listening tcp socket on this host a connecting S (SYN_SENT: a
 * connect() not yet accepted into the listener's backlog) waits for: state
 * LISTEN on S's remote port, bound to S's remote address or a wildcard (the
 * address first), NULL. */
const struct lt_inet_sock *lt_inet_listener(const struct lt_inet_table *t, const struct lt_inet_sock *s);
/* "127.0.0.1:8080" or "[::1]:80" of S's local (REMOTE false) or remote end. */
size_t lt_inet_addr_str(const struct lt_inet_sock *s, bool remote, char *buf, size_t len);
/* A loopback address (127/8, ::1, ::ffff:127/104). */
bool lt_inet_loopback(const uint8_t a[16]);

#endif
