/* Unit tests of the wait-for edges (include/locktrace/waitfor.h): the
 * decoders on fixtures (/proc/locks and fdinfo text as this kernel prints
 * them, a sock_diag reply, /proc/net/tcp) and the verdicts on synthetic
 * thread tables (a cycle through a pipe, a mutex and a socket; a file-lock
 * wait; IDLE saying why). */
#include <criterion/criterion.h>
#include <arpa/inet.h>
#include <errno.h>
#include <linux/inet_diag.h>
#include <netinet/in.h>
#include <linux/netlink.h>
#include <linux/rtnetlink.h>
#include <linux/sock_diag.h>
#include <linux/unix_diag.h>
#include <stdlib.h>
#include <sys/socket.h>
#include <string.h>
#include <time.h>
#include <unistd.h>
#include <zlib.h>

#include "inetdiag.h"
#include "snapshot.h"
#include "waitfor.h"
#include "lt_test.h"
#include "locktrace/taskregs.h"

Test(waitfor_parse, proc_locks_lines)
{
	struct lt_plock l;
	cr_assert_eq(lt_parse_plock("1: FLOCK  ADVISORY  WRITE 28677 fe:00:10953290 0 EOF", &l), 0);
	cr_expect_eq(l.id, 1);
	cr_expect(!l.blocked);
	cr_expect_str_eq(l.cls, "FLOCK");
	cr_expect_str_eq(l.type, "WRITE");
	cr_expect_eq(l.pid, 28677);
	cr_expect_eq(l.major, 0xfe);
	cr_expect_eq(l.minor, 0);
	cr_expect_eq(l.ino, 10953290);
	cr_expect_eq(l.start, 0);
	cr_expect_eq(l.end, UINT64_MAX);

	cr_assert_eq(lt_parse_plock("1: -> FLOCK  ADVISORY  WRITE 28695 fe:00:10953290 0 EOF", &l), 0);
	cr_expect(l.blocked);
	cr_expect_eq(l.id, 1);
	cr_expect_eq(l.pid, 28695);

	cr_assert_eq(lt_parse_plock("2: POSIX  ADVISORY  READ 16107 08:01:1234 100 104", &l), 0);
	cr_expect_str_eq(l.cls, "POSIX");
	cr_expect_str_eq(l.type, "READ");
	cr_expect_eq(l.major, 8);
	cr_expect_eq(l.minor, 1);
	cr_expect_eq(l.start, 100);
	cr_expect_eq(l.end, 104);

	cr_assert_eq(lt_parse_plock("3: OFDLCK ADVISORY  WRITE -1 fe:00:10953122 10 14", &l), 0);
	cr_expect_str_eq(l.cls, "OFDLCK");
	cr_expect_eq(l.pid, -1);

	cr_expect_eq(lt_parse_plock("", &l), -1);
	cr_expect_eq(lt_parse_plock("garbage", &l), -1);
	cr_expect_eq(lt_parse_plock("4: LEASE", &l), -1);
}

Test(waitfor_parse, fdinfo_lock_lines)
{
	const char *txt = "pos:\t0\nflags:\t0100002\nmnt_id:\t26\nino:\t10953122\n"
			  "lock:\t1: OFDLCK ADVISORY  WRITE -1 fe:00:10953122 10 14\n"
			  "lock:\t2: POSIX  ADVISORY  WRITE 16107 fe:00:10953122 100 104\n";
	struct lt_plock l[4];
	cr_assert_eq(lt_parse_fdinfo_locks(txt, l, 4), 2);
	cr_expect_str_eq(l[0].cls, "OFDLCK");
	cr_expect_eq(l[0].pid, -1);
	cr_expect_eq(l[0].start, 10);
	cr_expect_eq(l[0].end, 14);
	cr_expect_str_eq(l[1].cls, "POSIX");
	cr_expect_eq(l[1].pid, 16107);
	cr_expect_eq(lt_parse_fdinfo_locks(txt, l, 1), 1);
	cr_expect_eq(lt_parse_fdinfo_locks("pos:\t0\n", l, 4), 0);
}

Test(waitfor_parse, lock_conflicts)
{
	struct lt_plock h, w;
	lt_parse_plock("1: POSIX  ADVISORY  WRITE 10 fe:00:5 5 14", &h);
	lt_parse_plock("1: -> POSIX  ADVISORY  WRITE 11 fe:00:5 10 12", &w);
	cr_expect(lt_plock_conflicts(&h, &w));
	lt_parse_plock("1: -> POSIX  ADVISORY  WRITE 11 fe:00:5 15 EOF", &w);
	cr_expect(!lt_plock_conflicts(&h, &w), "disjoint ranges");
	lt_parse_plock("1: -> POSIX  ADVISORY  READ 11 fe:00:6 0 EOF", &w);
	cr_expect(!lt_plock_conflicts(&h, &w), "another inode");
	lt_parse_plock("1: POSIX  ADVISORY  READ 10 fe:00:6 0 EOF", &h);
	cr_expect(!lt_plock_conflicts(&h, &w), "two readers");
	lt_parse_plock("1: FLOCK  ADVISORY  WRITE 10 fe:00:6 0 EOF", &h);
	lt_parse_plock("1: -> POSIX  ADVISORY  WRITE 11 fe:00:6 0 EOF", &w);
	cr_expect(!lt_plock_conflicts(&h, &w), "flock and record locks are independent");
	lt_parse_plock("1: -> FLOCK  ADVISORY  READ 11 fe:00:6 0 EOF", &w);
	cr_expect(lt_plock_conflicts(&h, &w));
}

/* The fdinfo of one open file: its lock lines name the locked file by
 * maj:min:ino, whichever path the fd was opened by (a hard link, a bind
 * mount): only a granted OFD or flock lock on the wanted file that
 * conflicts counts. */
Test(waitfor_parse, fdinfo_holds_a_lock_on_the_file_by_its_inode)
{
	struct lt_plock w;
	lt_parse_plock("1: -> FLOCK  ADVISORY  WRITE 31170 fe:00:10953122 0 EOF", &w);
	cr_expect(lt_fdinfo_holds_lock("pos:\t0\nflags:\t02100001\nmnt_id:\t26\nino:\t10953122\n"
				       "lock:\t1: FLOCK  ADVISORY  WRITE 31166 fe:00:10953122 0 EOF\n", &w),
		  "the flock of the open file, taken by a process since gone");
	cr_expect(!lt_fdinfo_holds_lock("lock:\t1: FLOCK  ADVISORY  WRITE 31166 fe:00:10953123 0 EOF\n", &w),
		  "another inode");
	cr_expect(!lt_fdinfo_holds_lock("lock:\t1: FLOCK  ADVISORY  WRITE 31166 fe:01:10953122 0 EOF\n", &w),
		  "another device");
	cr_expect(!lt_fdinfo_holds_lock("lock:\t1: -> FLOCK  ADVISORY  WRITE 31166 fe:00:10953122 0 EOF\n", &w),
		  "a waiter, not a holder");
	cr_expect(!lt_fdinfo_holds_lock("lock:\t1: POSIX  ADVISORY  WRITE 31166 fe:00:10953122 0 EOF\n", &w),
		  "a record lock is the process's, and no flock conflict");
	cr_expect(!lt_fdinfo_holds_lock("pos:\t0\n", &w), "no lock lines");
	cr_expect(!lt_fdinfo_holds_lock(NULL, &w), "unreadable");
	lt_parse_plock("1: -> OFDLCK ADVISORY  WRITE -1 fe:00:10953122 0 99", &w);
	cr_expect(lt_fdinfo_holds_lock("lock:\t1: OFDLCK ADVISORY  WRITE -1 fe:00:10953122 50 EOF\n", &w));
	cr_expect(!lt_fdinfo_holds_lock("lock:\t1: OFDLCK ADVISORY  WRITE -1 fe:00:10953122 100 EOF\n", &w),
		  "disjoint range");
	lt_parse_plock("1: -> OFDLCK ADVISORY  READ -1 fe:00:10953122 0 99", &w);
	cr_expect(!lt_fdinfo_holds_lock("lock:\t1: OFDLCK ADVISORY  READ -1 fe:00:10953122 0 EOF\n", &w),
		  "two readers");
}

Test(waitfor_parse, call_decoding)
{
	char b[128];
	lt_flock_op_str(2, b, sizeof(b));
	cr_expect_str_eq(b, "LOCK_EX");
	lt_flock_op_str(1 | 4, b, sizeof(b));
	cr_expect_str_eq(b, "LOCK_SH|LOCK_NB");
	lt_flock_op_str(8, b, sizeof(b));
	cr_expect_str_eq(b, "LOCK_UN");
	cr_expect_str_eq(lt_fcntl_lock_cmd(7), "F_SETLKW");
	cr_expect_str_eq(lt_fcntl_lock_cmd(6), "F_SETLK");
	cr_expect_str_eq(lt_fcntl_lock_cmd(38), "F_OFD_SETLKW");
	cr_expect_str_eq(lt_fcntl_lock_cmd(37), "F_OFD_SETLK");
	cr_expect_null(lt_fcntl_lock_cmd(1));
	/* struct flock on x86-64: short type, short whence, pad, off_t start, off_t len, pid */
	unsigned char raw[32] = { 0 };
	int16_t type = 1, whence = 0;
	int64_t start = 10, len = 3;
	memcpy(raw, &type, 2);
	memcpy(raw + 2, &whence, 2);
	memcpy(raw + 8, &start, 8);
	memcpy(raw + 16, &len, 8);
	lt_flock_struct_str(raw, b, sizeof(b));
	cr_expect_str_eq(b, "{F_WRLCK, SEEK_SET, start 10, len 3}");
	type = 0;
	len = 0;
	memcpy(raw, &type, 2);
	memcpy(raw + 16, &len, 8);
	lt_flock_struct_str(raw, b, sizeof(b));
	cr_expect_str_eq(b, "{F_RDLCK, SEEK_SET, start 10, len 0 (to EOF)}");
}

/* A reply as the kernel builds it: nlmsghdr, unix_diag_msg, then the
 * attributes (a name first, then the peer). */
Test(waitfor_parse, unix_diag_reply)
{
	unsigned char buf[256] = { 0 };
	struct nlmsghdr *h = (struct nlmsghdr *)buf;
	struct unix_diag_msg *m = NLMSG_DATA(h);
	m->udiag_family = AF_UNIX;
	m->udiag_type = SOCK_STREAM;
	m->udiag_state = 1;
	m->udiag_ino = 127649;
	struct rtattr *a = (struct rtattr *)(m + 1);
	a->rta_type = UNIX_DIAG_NAME;
	a->rta_len = RTA_LENGTH(6);
	memcpy(RTA_DATA(a), "/x/y\0\0", 6);
	struct rtattr *b = (struct rtattr *)((char *)a + RTA_ALIGN(a->rta_len));
	b->rta_type = UNIX_DIAG_PEER;
	b->rta_len = RTA_LENGTH(4);
	uint32_t peer = 127648;
	memcpy(RTA_DATA(b), &peer, 4);
	h->nlmsg_type = SOCK_DIAG_BY_FAMILY;
	h->nlmsg_len = NLMSG_LENGTH(sizeof(*m)) + RTA_ALIGN(a->rta_len) + b->rta_len;
	uint32_t ino = 0, got = 0;
	cr_assert_eq(lt_parse_unix_diag(buf, h->nlmsg_len, &ino, &got), 0);
	cr_expect_eq(ino, 127649);
	cr_expect_eq(got, 127648);
	/* no peer attribute: found, peer 0 */
	h->nlmsg_len = NLMSG_LENGTH(sizeof(*m)) + RTA_ALIGN(a->rta_len);
	cr_assert_eq(lt_parse_unix_diag(buf, h->nlmsg_len, &ino, &got), 0);
	cr_expect_eq(got, 0);
	/* an error reply */
	h->nlmsg_type = NLMSG_ERROR;
	cr_expect_eq(lt_parse_unix_diag(buf, h->nlmsg_len, &ino, &got), -1);
	cr_expect_eq(lt_parse_unix_diag(buf, 4, &ino, &got), -1, "short");
}

/* /proc/net/tcp and tcp6 texts: the reverse 4-tuple, across families
 * (a v6 socket connected to a v4 one through ::ffff:127.0.0.1) */
Test(waitfor_parse, tcp_reverse_tuple)
{
	const char *tcp =
		"  sl  local_address rem_address   st tx_queue rx_queue tr tm->when retrnsmt   uid  timeout inode\n"
		"   0: 0100007F:1F90 00000000:0000 0A 00000000:00000000 00:00000000 00000000     0        0 1001 1 0 100 0 0 10 0\n"
		"   1: 0100007F:1F90 0100007F:A2B4 01 00000000:00000000 00:00000000 00000000     0        0 1002 1 0 20 4 30 10 -1\n"
		"   2: 0100007F:A2B4 0100007F:1F90 01 00000000:00000000 00:00000000 00000000     0        0 1003 1 0 20 4 30 10 -1\n"
		"   3: 0F02000A:A000 0100000A:0050 01 00000000:00000000 00:00000000 00000000     0        0 1004 1 0 20 4 30 10 -1\n"
		"   4: 0100007F:1F91 0100007F:B000 01 00000000:00000000 00:00000000 00000000     0        0 1006 1 0 20 4 30 10 -1\n";
	const char *tcp6 =
		"  sl  local_address                         remote_address                        st tx_queue rx_queue tr tm->when retrnsmt   uid  timeout inode\n"
		"   0: 0000000000000000FFFF00000100007F:B000 0000000000000000FFFF00000100007F:1F91 01 00000000:00000000 00:00000000 00000000     0        0 1005 1 0 20 4 30 10 -1\n"
		"   1: 00000000000000000000000001000000:0016 00000000000000000000000000000000:0000 0A 00000000:00000000 00:00000000 00000000     0        0 1007 1 0 100 0 0 10 0\n";
	struct lt_inet_table t = { 0 };
	lt_inet_proc_parse(tcp, IPPROTO_TCP, &t);
	lt_inet_proc_parse(tcp6, IPPROTO_TCP, &t);
	cr_assert_eq(t.n, 7);
	const struct lt_inet_sock *s = lt_inet_find(&t, 1003), *p;
	cr_assert_not_null(s);
	char b[64];
	lt_inet_addr_str(s, false, b, sizeof(b));
	cr_expect_str_eq(b, "127.0.0.1:41652");
	lt_inet_addr_str(s, true, b, sizeof(b));
	cr_expect_str_eq(b, "127.0.0.1:8080");
	cr_expect(lt_inet_loopback(s->dst));
	cr_assert_not_null(p = lt_inet_peer(&t, s));
	cr_expect_eq(p->ino, 1002);
	cr_expect_eq(lt_inet_peer(&t, p)->ino, 1003);
	cr_expect_null(lt_inet_peer(&t, lt_inet_find(&t, 1004)), "a remote peer");
	cr_expect(!lt_inet_loopback(lt_inet_find(&t, 1004)->dst));
	lt_inet_addr_str(lt_inet_find(&t, 1004), true, b, sizeof(b));
	cr_expect_str_eq(b, "10.0.0.1:80");
	cr_expect_null(lt_inet_peer(&t, lt_inet_find(&t, 1001)), "a listener has no peer");
	cr_expect_eq(lt_inet_find(&t, 1001)->state, 10);
	/* v4-mapped v6 <-> v4 */
	cr_assert_not_null(p = lt_inet_peer(&t, lt_inet_find(&t, 1006)));
	cr_expect_eq(p->ino, 1005);
	lt_inet_addr_str(lt_inet_find(&t, 1007), false, b, sizeof(b));
	cr_expect_str_eq(b, "[::1]:22");
	cr_expect(lt_inet_loopback(lt_inet_find(&t, 1007)->src));
	lt_inet_free(&t);

	/* udp: a connected socket's peer bound but not connected (a server
	 * answering anyone), on its address or a wildcard; an unconnected
	 * socket has no peer */
	const char *udp =
		"   sl  local_address rem_address   st tx_queue rx_queue tr tm->when retrnsmt   uid  timeout inode ref pointer drops\n"
		"  1: 0100007F:C000 0100007F:1389 01 00000000:00000000 00:00000000 00000000     0        0 3001 2 0000000000000000 0\n"
		"  2: 0100007F:1389 00000000:0000 07 00000000:00000000 00:00000000 00000000     0        0 3002 2 0000000000000000 0\n"
		"  3: 0100007F:C001 0100007F:138A 01 00000000:00000000 00:00000000 00000000     0        0 3003 2 0000000000000000 0\n"
		"  4: 00000000:138A 00000000:0000 07 00000000:00000000 00:00000000 00000000     0        0 3004 2 0000000000000000 0\n";
	memset(&t, 0, sizeof(t));
	lt_inet_proc_parse(udp, IPPROTO_UDP, &t);
	cr_assert_eq(t.n, 4);
	cr_assert_not_null(p = lt_inet_peer(&t, lt_inet_find(&t, 3001)));
	cr_expect_eq(p->ino, 3002);
	cr_assert_not_null(p = lt_inet_peer(&t, lt_inet_find(&t, 3003)));
	cr_expect_eq(p->ino, 3004, "a wildcard-bound server");
	cr_expect_null(lt_inet_peer(&t, lt_inet_find(&t, 3002)), "unconnected: any sender");
	lt_inet_free(&t);
}

/* A tcp connect() not yet accepted (SYN_SENT, its SYN dropped by a full
 * backlog) has no socket with its reverse 4-tuple: its other end is the
 * listener on its remote port, bound to that address or a wildcard (the
 * address first); none: a remote server. */
Test(waitfor_parse, tcp_syn_sent_waits_for_the_listener)
{
	const char *tcp =
		"  sl  local_address rem_address   st tx_queue rx_queue tr tm->when retrnsmt   uid  timeout inode\n"
		"   0: 0100007F:4695 00000000:0000 0A 00000000:00000000 00:00000000 00000000     0        0 2001 1 0 100 0 0 10 0\n"
		"   1: 0100007F:A000 0100007F:4695 02 00000000:00000000 00:00000000 00000000     0        0 2002 1 0 20 4 30 10 -1\n"
		"   2: 00000000:4696 00000000:0000 0A 00000000:00000000 00:00000000 00000000     0        0 2003 1 0 100 0 0 10 0\n"
		"   3: 0100007F:A001 0100007F:4696 02 00000000:00000000 00:00000000 00000000     0        0 2004 1 0 20 4 30 10 -1\n"
		"   4: 0100007F:A002 0100000A:4695 02 00000000:00000000 00:00000000 00000000     0        0 2005 1 0 20 4 30 10 -1\n"
		"   5: 0100007F:4697 00000000:0000 0A 00000000:00000000 00:00000000 00000000     0        0 2006 1 0 100 0 0 10 0\n"
		"   6: 0100007F:A003 0100007F:4697 02 00000000:00000000 00:00000000 00000000     0        0 2007 1 0 20 4 30 10 -1\n";
	const char *tcp6 =
		"  sl  local_address                         remote_address                        st tx_queue rx_queue tr tm->when retrnsmt   uid  timeout inode\n"
		"   0: 00000000000000000000000000000000:4697 00000000000000000000000000000000:0000 0A 00000000:00000000 00:00000000 00000000     0        0 2008 1 0 100 0 0 10 0\n";
	struct lt_inet_table t = { 0 };
	lt_inet_proc_parse(tcp, IPPROTO_TCP, &t);
	lt_inet_proc_parse(tcp6, IPPROTO_TCP, &t);
	const struct lt_inet_sock *s = lt_inet_find(&t, 2002), *l;
	cr_assert_not_null(s);
	cr_expect_eq(s->state, 2);
	cr_expect_null(lt_inet_peer(&t, s), "no reverse 4-tuple: not accepted");
	cr_assert_not_null(l = lt_inet_listener(&t, s));
	cr_expect_eq(l->ino, 2001);
	cr_assert_not_null(l = lt_inet_listener(&t, lt_inet_find(&t, 2004)));
	cr_expect_eq(l->ino, 2003, "0.0.0.0 takes 127.0.0.1");
	cr_expect_null(lt_inet_listener(&t, lt_inet_find(&t, 2005)), "10.0.0.1 is not a local listener's");
	cr_assert_not_null(l = lt_inet_listener(&t, lt_inet_find(&t, 2007)));
	cr_expect_eq(l->ino, 2006, "the listener on the address before the :: wildcard");
	cr_expect_null(lt_inet_listener(&t, lt_inet_find(&t, 2001)), "a listener waits for no listener");
	lt_inet_free(&t);
}

/* A unix_diag dump asked with UDIAG_SHOW_VFS: the listener bound to a
 * socket file is the message whose UNIX_DIAG_VFS is that file's device (the
 * kernel's encoding) and inode; the dump ends with NLMSG_DONE. */
Test(waitfor_parse, unix_diag_dump_finds_the_listener_by_its_file)
{
	unsigned char buf[512] __attribute__((aligned(8))) = { 0 };
	size_t off = 0;
	const uint32_t vino[2] = { 11059300, 11059301 }, sino[2] = { 8546688, 8546690 };
	for (int i = 0; i < 2; i++) {
		struct nlmsghdr *h = (struct nlmsghdr *)(buf + off);
		struct unix_diag_msg *m = NLMSG_DATA(h);
		m->udiag_family = AF_UNIX;
		m->udiag_type = SOCK_STREAM;
		m->udiag_state = 10;
		m->udiag_ino = sino[i];
		struct rtattr *a = (struct rtattr *)(m + 1);
		a->rta_type = UNIX_DIAG_VFS;
		a->rta_len = RTA_LENGTH(sizeof(struct unix_diag_vfs));
		struct unix_diag_vfs v = { .udiag_vfs_ino = vino[i], .udiag_vfs_dev = 254u << 20 };
		memcpy(RTA_DATA(a), &v, sizeof(v));
		h->nlmsg_type = SOCK_DIAG_BY_FAMILY;
		h->nlmsg_flags = NLM_F_MULTI;
		h->nlmsg_len = NLMSG_LENGTH(sizeof(*m)) + a->rta_len;
		off += NLMSG_ALIGN(h->nlmsg_len);
	}
	size_t two = off;
	struct nlmsghdr *d = (struct nlmsghdr *)(buf + off);
	d->nlmsg_type = NLMSG_DONE;
	d->nlmsg_len = NLMSG_LENGTH(4);
	off += NLMSG_ALIGN(d->nlmsg_len);
	uint32_t ino = 0;
	cr_expect_eq(lt_unix_diag_find_vfs(buf, off, 254u << 20, 11059301, 0, &ino), 1);
	cr_expect_eq(ino, 8546690);
	ino = 0;
	cr_expect_eq(lt_unix_diag_find_vfs(buf, off, 254u << 20, 11059301, SOCK_STREAM, &ino), 1);
	cr_expect_eq(ino, 8546690);
	cr_expect_eq(lt_unix_diag_find_vfs(buf, off, 254u << 20, 11059301, SOCK_DGRAM, &ino), 2,
		     "a stream socket's file, asked for a datagram socket: none");
	cr_expect_eq(lt_unix_diag_find_vfs(buf, off, 254u << 20 | 1, 11059301, 0, &ino), 2, "another device: done");
	cr_expect_eq(lt_unix_diag_find_vfs(buf, two, 254u << 20, 5, 0, &ino), 0, "not in this buffer: more may come");
	d->nlmsg_type = NLMSG_ERROR;
	cr_expect_eq(lt_unix_diag_find_vfs(buf, off, 254u << 20, 5, 0, &ino), -1);
}

/* one inet_diag message as the kernel lays it out */
static size_t diag_msg(unsigned char *at, int family, uint8_t state, const void *src, const void *dst,
		       uint16_t sport, uint16_t dport, uint32_t ino)
{
	struct nlmsghdr *h = (struct nlmsghdr *)at;
	memset(h, 0, NLMSG_SPACE(sizeof(struct inet_diag_msg)));
	h->nlmsg_len = NLMSG_LENGTH(sizeof(struct inet_diag_msg));
	h->nlmsg_type = SOCK_DIAG_BY_FAMILY;
	h->nlmsg_flags = NLM_F_MULTI;
	struct inet_diag_msg *m = NLMSG_DATA(h);
	m->idiag_family = (uint8_t)family;
	m->idiag_state = state;
	m->id.idiag_sport = htons(sport);
	m->id.idiag_dport = htons(dport);
	memcpy(m->id.idiag_src, src, family == AF_INET ? 4 : 16);
	memcpy(m->id.idiag_dst, dst, family == AF_INET ? 4 : 16);
	m->idiag_inode = ino;
	return NLMSG_SPACE(sizeof(struct inet_diag_msg));
}

/* a canned inet_diag dump: two ends of a loopback connection, a v6
 * listener, then NLMSG_DONE; and an NLMSG_ERROR (netlink refused) */
Test(waitfor_parse, inet_diag_reply)
{
	static unsigned char buf[4096] __attribute__((aligned(8)));
	size_t n = 0;
	uint8_t lo[4] = { 127, 0, 0, 1 }, any6[16] = { 0 }, lo6[16] = { [15] = 1 };
	n += diag_msg(buf + n, AF_INET, 1, lo, lo, 41652, 8080, 2002);
	n += diag_msg(buf + n, AF_INET, 1, lo, lo, 8080, 41652, 2003);
	struct lt_inet_table t = { 0 };
	cr_expect_eq(lt_inet_diag_parse(buf, n, IPPROTO_TCP, &t), 0, "more may come");
	size_t m = 0;
	m += diag_msg(buf + m, AF_INET6, 10, lo6, any6, 5432, 0, 2004);
	struct nlmsghdr *d = (struct nlmsghdr *)(buf + m);
	memset(d, 0, NLMSG_SPACE(sizeof(int)));
	d->nlmsg_len = NLMSG_LENGTH(sizeof(int));
	d->nlmsg_type = NLMSG_DONE;
	m += NLMSG_SPACE(sizeof(int));
	cr_expect_eq(lt_inet_diag_parse(buf, m, IPPROTO_TCP, &t), 1, "NLMSG_DONE ends the dump");
	cr_assert_eq(t.n, 3);
	const struct lt_inet_sock *s = lt_inet_find(&t, 2002);
	cr_assert_not_null(s);
	cr_expect_eq(s->sport, 41652);
	cr_expect_eq(s->dport, 8080);
	cr_expect_eq(lt_inet_peer(&t, s)->ino, 2003);
	char b[64];
	lt_inet_addr_str(lt_inet_find(&t, 2004), false, b, sizeof(b));
	cr_expect_str_eq(b, "[::1]:5432");
	cr_expect_eq(lt_inet_find(&t, 2004)->state, 10);
	cr_expect_null(lt_inet_peer(&t, lt_inet_find(&t, 2004)));

	struct nlmsghdr *e = (struct nlmsghdr *)buf;
	memset(buf, 0, 64);
	e->nlmsg_len = NLMSG_LENGTH(sizeof(struct nlmsgerr));
	e->nlmsg_type = NLMSG_ERROR;
	((struct nlmsgerr *)NLMSG_DATA(e))->error = -EPERM;
	cr_expect_eq(lt_inet_diag_parse(buf, e->nlmsg_len, IPPROTO_TCP, &t), -EPERM);
	/* truncated message: refused, not read past */
	n = diag_msg(buf, AF_INET, 1, lo, lo, 1, 2, 9);
	((struct nlmsghdr *)buf)->nlmsg_len = NLMSG_LENGTH(8);
	cr_expect_eq(lt_inet_diag_parse(buf, n, IPPROTO_TCP, &t), -EINVAL);
	lt_inet_free(&t);
}

/* ---- verdicts on synthetic tables ---- */

static void blocked(struct lt_thread *t, pid_t tid, long nr, enum lt_wait_kind k)
{
	memset(t, 0, sizeof(*t));
	t->tid = tid;
	snprintf(t->comm, sizeof(t->comm), "t%d", (int)tid);
	t->state = 'S';
	t->sc.state = LT_SC_IN_SYSCALL;
	t->sc.nr = nr;
	t->wait = k;
	t->idle_src = LT_IDLE_CALLER;
	t->idle_s = 5;
	t->fdw.io.fd = -1;
	t->fdw.epfd = -1;
}

static struct lt_wf_edge *edge(struct lt_thread *t, pid_t pid, enum lt_wf_kind k, pid_t party,
			       enum lt_wf_pstate ps)
{
	struct lt_wf_edge *e = lt_waitfor_add(t, pid, k);
	cr_assert_not_null(e);
	e->what = strdup("pipe:[9]");
	if (party) {
		e->pids[0] = party;
		e->n_pids = 1;
	}
	e->pstate = ps;
	return e;
}

static void mutex_wait(struct lt_thread *t, pid_t pid, pid_t owner)
{
	t->futex.uaddr = 0x1000;
	t->futex.is_wait = true;
	t->futex.word_ok = true;
	t->futex.word = 2;
	t->futex.expected = 2;
	t->futex.owner_kind = LT_OWNER_MUTEX;
	t->futex.owner = owner;
	t->wf = calloc(1, sizeof(*t->wf));
	t->wf->pid = pid;
}

static void free_snap(struct lt_snapshot *s)
{
	for (size_t i = 0; i < s->n_threads; i++)
		lt_thread_clear(&s->threads[i]);
	for (size_t i = 0; i < s->n_verdicts; i++)
		lt_verdict_clear(&s->verdicts[i]);
	free(s->verdicts);
}

/* parent 100 read(pipe) <- process 200; 200 waits for mutex held by 201;
 * 201 read(unix socket) <- process 100: one deadlock of three threads. */
Test(waitfor_verdicts, cycle_through_pipe_mutex_socket)
{
	struct lt_thread th[3];
	blocked(&th[0], 100, 0, LT_WAIT_IO);
	edge(&th[0], 100, LT_WF_PIPE_READ, 200, LT_WFP_BLOCKED);
	blocked(&th[1], 200, 202, LT_WAIT_FUTEX);
	mutex_wait(&th[1], 200, 201);
	blocked(&th[2], 201, 0, LT_WAIT_IO);
	edge(&th[2], 200, LT_WF_SOCKET, 100, LT_WFP_BLOCKED);
	struct lt_snapshot s = { .pid = 100, .threads = th, .n_threads = 3 };
	cr_assert_eq(lt_snapshot_diagnose(&s, NULL), 0);
	cr_assert_eq(s.verdicts[0].kind, LT_VERDICT_DEADLOCK, "%s", s.verdicts[0].summary);
	cr_assert_eq(s.verdicts[0].n_tids, 3);
	pid_t want[] = { 100, 200, 201 };
	for (int i = 0; i < 3; i++) {
		bool in = false;
		for (size_t k = 0; k < 3; k++)
			in |= s.verdicts[0].tids[k] == want[i];
		cr_expect(in, "thread %d in the cycle", (int)want[i]);
	}
	bool says_pipe = false;
	for (size_t i = 0; i < s.verdicts[0].evidence.n; i++)
		says_pipe |= strstr(s.verdicts[0].evidence.v[i], "written only by process 200") != NULL;
	cr_expect(says_pipe, "the pipe edge is explained");
	free_snap(&s);
}

/* The same, but process 200 has a third thread that is running: it could
 * write the pipe, so no deadlock is claimed. */
Test(waitfor_verdicts, cycle_not_claimed_when_the_process_can_run)
{
	struct lt_thread th[4];
	blocked(&th[0], 100, 0, LT_WAIT_IO);
	edge(&th[0], 100, LT_WF_PIPE_READ, 200, LT_WFP_RUNNING);
	blocked(&th[1], 200, 202, LT_WAIT_FUTEX);
	mutex_wait(&th[1], 200, 201);
	blocked(&th[2], 201, 0, LT_WAIT_IO);
	edge(&th[2], 200, LT_WF_SOCKET, 100, LT_WFP_BLOCKED);
	blocked(&th[3], 202, -1, LT_WAIT_NONE);
	th[3].state = 'R';
	th[3].sc.state = LT_SC_RUNNING;
	th[3].wf = calloc(1, sizeof(*th[3].wf));
	th[3].wf->pid = 200;
	struct lt_snapshot s = { .pid = 100, .threads = th, .n_threads = 4 };
	cr_assert_eq(lt_snapshot_diagnose(&s, NULL), 0);
	for (size_t i = 0; i < s.n_verdicts; i++)
		cr_expect_neq(s.verdicts[i].kind, LT_VERDICT_DEADLOCK, "%s", s.verdicts[i].summary);
	free_snap(&s);
}

Test(waitfor_verdicts, file_lock_wait_is_a_lock_wait)
{
	struct lt_thread th[1];
	blocked(&th[0], 300, 73, LT_WAIT_IO);
	struct lt_wf_edge *e = edge(&th[0], 300, LT_WF_FILE_LOCK, 299, LT_WFP_TIMED);
	free(e->what);
	e->what = strdup("FLOCK WRITE lock on /tmp/l");
	e->doing = strdup("299 (flock): wait4");
	struct lt_snapshot s = { .pid = 300, .threads = th, .n_threads = 1 };
	cr_assert_eq(lt_snapshot_diagnose(&s, NULL), 0);
	cr_assert_eq(s.verdicts[0].kind, LT_VERDICT_LOCK_WAIT, "%s", s.verdicts[0].summary);
	cr_expect_eq(s.verdicts[0].owner, 299);
	cr_expect(strstr(s.verdicts[0].summary, "file lock") && strstr(s.verdicts[0].summary, "299"),
		  "%s", s.verdicts[0].summary);
	free_snap(&s);
}

/* SQLite's busy handler sleeps a few ms between tries of its lock: the
 * snapshot often sees it moved (woken, retried, asleep again) by the time
 * it re-reads it.  Its file-lock edge (from its stack) keeps it a lock
 * wait all the same, never "nothing suspicious" (seen under ASan). */
Test(waitfor_verdicts, a_polling_file_lock_wait_that_moved_is_still_a_lock_wait)
{
	struct lt_thread th[1];
	blocked(&th[0], 310, 230, LT_WAIT_SLEEP);
	th[0].moved = 1;
	struct lt_wf_edge *e = edge(&th[0], 310, LT_WF_FILE_LOCK, 309, LT_WFP_EVENTS);
	free(e->what);
	e->what = strdup("a lock on /tmp/db (fd 3), tried again between sleeps");
	struct lt_snapshot s = { .pid = 310, .threads = th, .n_threads = 1 };
	cr_assert_eq(lt_snapshot_diagnose(&s, NULL), 0);
	cr_assert_eq(s.verdicts[0].kind, LT_VERDICT_LOCK_WAIT, "%s", s.verdicts[0].summary);
	cr_expect_eq(s.verdicts[0].owner, 309);
	free_snap(&s);
}

Test(waitfor_verdicts, idle_says_why)
{
	struct lt_thread th[1];
	blocked(&th[0], 400, 7, LT_WAIT_POLL);
	edge(&th[0], 400, LT_WF_PIPE_READ, 401, LT_WFP_TIMED)->doing = strdup("401 (sleep): clock_nanosleep");
	struct lt_snapshot s = { .pid = 400, .threads = th, .n_threads = 1 };
	cr_assert_eq(lt_snapshot_diagnose(&s, NULL), 0);
	cr_assert_eq(s.verdicts[0].kind, LT_VERDICT_IDLE, "%s", s.verdicts[0].summary);
	bool why = false;
	for (size_t i = 0; i < s.verdicts[0].evidence.n; i++)
		why |= strstr(s.verdicts[0].evidence.v[i], "written by 401") &&
		       strstr(s.verdicts[0].evidence.v[i], "asleep on a timer");
	cr_expect(why, "IDLE names the writer and why it is not stuck");
	free_snap(&s);
}

/* A client in connect() to a listener that stopped accepting: its edge's
 * parties hold the listener (not a peer, said so), blocked themselves: a
 * wait chain into the server, never IDLE. */
Test(waitfor_verdicts, a_client_in_connect_waits_for_the_listeners_process)
{
	struct lt_thread th[1];
	blocked(&th[0], 500, 0, LT_WAIT_IO);
	struct lt_wf_edge *e = edge(&th[0], 500, LT_WF_SOCKET, 501, LT_WFP_BLOCKED);
	e->doing = strdup("501 (srv), 3 threads: futex, futex, futex");
	free(e->what);
	e->what = strdup("unix socket socket:[8546820] (fd 4), connecting to /run/app.sock: listener socket:[8546688]");
	cr_expect(lt_wf_connecting(e));
	char *line = lt_wf_edge_line(e);
	cr_expect(strstr(line, "listener held by process 501"), "%s", line);
	free(line);
	struct lt_snapshot s = { .pid = 500, .threads = th, .n_threads = 1 };
	cr_assert_eq(lt_snapshot_diagnose(&s, NULL), 0);
	cr_assert_eq(s.verdicts[0].kind, LT_VERDICT_WAIT_CHAIN, "%s", s.verdicts[0].summary);
	cr_expect(strstr(s.verdicts[0].summary, "501"), "%s", s.verdicts[0].summary);
	free_snap(&s);
}

Test(waitfor_verdicts, blocked_peer_is_a_wait_chain)
{
	struct lt_thread th[1];
	blocked(&th[0], 500, 0, LT_WAIT_IO);
	edge(&th[0], 500, LT_WF_SOCKET, 501, LT_WFP_BLOCKED)->doing = strdup("501 (db): futex");
	struct lt_snapshot s = { .pid = 500, .threads = th, .n_threads = 1 };
	cr_assert_eq(lt_snapshot_diagnose(&s, NULL), 0);
	cr_assert_eq(s.verdicts[0].kind, LT_VERDICT_WAIT_CHAIN, "%s", s.verdicts[0].summary);
	cr_expect(strstr(s.verdicts[0].summary, "501"), "%s", s.verdicts[0].summary);
	free_snap(&s);
}

static void flock_child(struct lt_thread *t, pid_t holder, enum lt_wf_pstate ps);

/* Thread 500 in call NR (wait WK) with one edge of KIND to process 501,
 * blocked itself (WHAT, DOING): its edge line has LINE_HAS, and its first
 * verdict is a wait chain whose summary has SUMMARY_HAS. */
static void one_edge_chain(long nr, enum lt_wait_kind wk, enum lt_wf_kind kind, const char *name, const char *what,
			   const char *doing, const char *line_has, const char *summary_has)
{
	struct lt_thread th[1];
	blocked(&th[0], 500, nr, wk);
	struct lt_wf_edge *e = edge(&th[0], 500, kind, 501, LT_WFP_BLOCKED);
	e->doing = strdup(doing);
	free(e->what);
	e->what = strdup(what);
	cr_expect_str_eq(lt_wf_kind_name(e->kind), name);
	char *line = lt_wf_edge_line(e);
	cr_expect(strstr(line, line_has), "%s", line);
	free(line);
	struct lt_snapshot s = { .pid = 500, .threads = th, .n_threads = 1 };
	cr_assert_eq(lt_snapshot_diagnose(&s, NULL), 0);
	cr_assert_eq(s.verdicts[0].kind, LT_VERDICT_WAIT_CHAIN, "%s", s.verdicts[0].summary);
	cr_expect(strstr(s.verdicts[0].summary, summary_has), "%s", s.verdicts[0].summary);
	free_snap(&s);
}

/* pidwait(1) (500) in epoll_wait on a pidfd of 501, not its child, which
 * is blocked: a wait chain into 501 whose end is that process's exit,
 * said as such (not "child", not the other end of a pipe). */
Test(waitfor_verdicts, a_pidfd_of_a_blocked_process_is_a_wait_chain_into_its_exit)
{
	one_edge_chain(232, LT_WAIT_POLL, LT_WF_EXIT, "exit", "the exit of process 501 (pidfd fd 4)", "501 (cat): read",
		       "ended by the exit of process 501, blocked", "only by progress: that process's exit");
}

/* tail -f --pid=501 (500) in a poll of its inotify fd, 501 blocked: a
 * wait chain into that process's exit, said inferred (the pid is read
 * from tail's command line); seen to have moved (it wakes every second
 * to check), it keeps that wait. */
Test(waitfor_verdicts, tail_pid_polling_a_blocked_process_is_an_inferred_wait_chain_into_its_exit)
{
	const char *what = LT_WF_POLLCHILD "the exit of process 501 (tail --pid=501, inferred from its command line)";
	one_edge_chain(7, LT_WAIT_POLL, LT_WF_EXIT, "exit", what, "501 (flock): flock",
		       "ended by the exit of process 501, blocked", "only by progress: that process's exit (inferred: it "
		       "polls for that process's exit, the pid read from its command line)");
	struct lt_thread th[1];
	blocked(&th[0], 500, 7, LT_WAIT_POLL);
	struct lt_wf_edge *e = edge(&th[0], 500, LT_WF_EXIT, 501, LT_WFP_BLOCKED);
	free(e->what);
	e->what = strdup(what);
	cr_expect(lt_wf_pollchild(e));
	th[0].moved = true;
	struct lt_snapshot s = { .pid = 500, .threads = th, .n_threads = 1 };
	cr_assert_eq(lt_snapshot_diagnose(&s, NULL), 0);
	cr_expect_eq(s.verdicts[0].kind, LT_VERDICT_WAIT_CHAIN, "seen moving: %s", s.verdicts[0].summary);
	free_snap(&s);
}

/* strace -p (500) in wait4(-1) for its tracee 501, no child of its, which
 * is blocked: a wait chain into the tracee, said as one. */
Test(waitfor_verdicts, a_tracer_waiting_for_a_blocked_tracee_is_a_wait_chain)
{
	one_edge_chain(61, LT_WAIT_CHILD, LT_WF_TRACEE, "tracee",
		       "its tracees: the next stop of any (a system call, a signal, an exit)", "501 (flock): flock",
		       "tracee process 501, blocked", "only by progress: its tracee");
}

/* A lock holder waiting for the exit of the process that waits for its
 * lock (`flock L -c 'pidwait -F pidfile'` and `flock L CMD`): 100 in
 * epoll_wait on a pidfd of 200, 200 in flock() on a lock only 100 holds:
 * a deadlock of the two, the exit edge said in the evidence. */
Test(waitfor_verdicts, a_lock_holder_waiting_for_its_waiters_exit_is_a_deadlock)
{
	struct lt_thread th[2];
	blocked(&th[0], 100, 232, LT_WAIT_POLL);
	struct lt_wf_edge *e = edge(&th[0], 100, LT_WF_EXIT, 200, LT_WFP_BLOCKED);
	free(e->what);
	e->what = strdup("the exit of process 200 (pidfd fd 5)");
	e->doing = strdup("200 (flock): flock");
	flock_child(&th[1], 100, LT_WFP_BLOCKED);
	struct lt_snapshot s = { .pid = 100, .threads = th, .n_threads = 2 };
	cr_assert_eq(lt_snapshot_diagnose(&s, NULL), 0);
	cr_assert_eq(s.verdicts[0].kind, LT_VERDICT_DEADLOCK, "%s", s.verdicts[0].summary);
	cr_assert_eq(s.verdicts[0].n_tids, 2);
	bool says_exit = false;
	for (size_t i = 0; i < s.verdicts[0].evidence.n; i++)
		says_exit |= strstr(s.verdicts[0].evidence.v[i], "<- ended only by the exit of process 200") != NULL;
	cr_expect(says_exit, "the exit edge is explained");
	free_snap(&s);
}

/* client 100 reads a socket of proxy 200, one of whose threads (201)
 * reads a socket of backend 300, whose threads 300 and 301 are in an ABBA
 * deadlock; the proxy's other thread (200) waits for events.  201 is
 * behind the cycle, and the client, the process asked about, gets a wait
 * chain into it (it got no verdict at all). */
Test(waitfor_verdicts, a_client_of_a_proxy_behind_a_deadlock_is_a_wait_chain)
{
	struct lt_thread th[5];
	blocked(&th[0], 100, 0, LT_WAIT_IO);
	edge(&th[0], 100, LT_WF_SOCKET, 200, LT_WFP_EVENTS);
	blocked(&th[1], 200, 232, LT_WAIT_POLL);
	th[1].wf = calloc(1, sizeof(*th[1].wf));
	th[1].wf->pid = 200;
	blocked(&th[2], 201, 0, LT_WAIT_IO);
	edge(&th[2], 200, LT_WF_SOCKET, 300, LT_WFP_BLOCKED);
	blocked(&th[3], 300, 202, LT_WAIT_FUTEX);
	mutex_wait(&th[3], 300, 301);
	blocked(&th[4], 301, 202, LT_WAIT_FUTEX);
	mutex_wait(&th[4], 300, 300);
	th[4].futex.uaddr = 0x2000;
	struct lt_snapshot s = { .pid = 100, .threads = th, .n_threads = 5 };
	cr_assert_eq(lt_snapshot_diagnose(&s, NULL), 0);
	cr_assert_eq(s.verdicts[0].kind, LT_VERDICT_DEADLOCK, "%s", s.verdicts[0].summary);
	bool behind = false;
	for (size_t k = 0; k < s.verdicts[0].n_behind; k++)
		behind |= s.verdicts[0].behind[k] == 201;
	cr_expect(behind, "201 is behind the cycle");
	bool chain = false;
	for (size_t i = 0; i < s.n_verdicts; i++) {
		const struct lt_verdict *v = &s.verdicts[i];
		if (v->kind == LT_VERDICT_WAIT_CHAIN && v->n_tids && v->tids[0] == 100)
			chain = strstr(v->summary, "waits for process 200") && strstr(v->summary, "in a deadlock");
	}
	cr_expect(chain, "no wait chain of the client 100 into the deadlock");
	free_snap(&s);
}

/* An epoll server: one connection's peer is blocked reading from it (each
 * end waits for the other), its listener is idle.  IDLE (the listener can
 * end the wait), but never "none for anything stuck". */
Test(waitfor_verdicts, idle_with_a_blocked_party_does_not_say_nothing_is_stuck)
{
	struct lt_thread th[1];
	blocked(&th[0], 700, 232, LT_WAIT_POLL);
	edge(&th[0], 700, LT_WF_SOCKET, 701, LT_WFP_BLOCKED)->doing = strdup("701 (python3): recvfrom");
	struct lt_wf_edge *l = lt_waitfor_add(&th[0], 700, LT_WF_LISTEN);
	l->what = strdup("listening tcp socket 127.0.0.1:7400 (fd 3)");
	struct lt_snapshot s = { .pid = 700, .threads = th, .n_threads = 1 };
	cr_assert_eq(lt_snapshot_diagnose(&s, NULL), 0);
	cr_assert_eq(s.verdicts[0].kind, LT_VERDICT_IDLE, "%s", s.verdicts[0].summary);
	cr_expect(!strstr(s.verdicts[0].summary, "none for anything stuck"), "%s", s.verdicts[0].summary);
	cr_expect(strstr(s.verdicts[0].summary, "though some of what they wait on is blocked"), "%s",
		  s.verdicts[0].summary);
	free_snap(&s);
}

/* Process 100: 101 holds mutex M and reads a socket of process 200; 102
 * waits for M (it would write to 200 once it has it); main 100 joins 101.
 * 200 reads a socket of process 100 (any of its threads).  The cycle goes
 * through 102 and its mutex, the thread that would answer, not through
 * main's pthread_join, which is behind it. */
Test(waitfor_verdicts, a_cycle_into_a_process_goes_through_the_lock_not_the_join)
{
	struct lt_thread th[4];
	blocked(&th[0], 100, 202, LT_WAIT_FUTEX);
	mutex_wait(&th[0], 100, 101);
	th[0].futex.owner_kind = LT_OWNER_JOIN;
	th[0].futex.uaddr = 0x3000;
	blocked(&th[1], 101, 0, LT_WAIT_IO);
	edge(&th[1], 100, LT_WF_SOCKET, 200, LT_WFP_BLOCKED);
	blocked(&th[2], 102, 202, LT_WAIT_FUTEX);
	mutex_wait(&th[2], 100, 101);
	blocked(&th[3], 200, 0, LT_WAIT_IO);
	edge(&th[3], 200, LT_WF_SOCKET, 100, LT_WFP_BLOCKED);
	struct lt_snapshot s = { .pid = 100, .threads = th, .n_threads = 4 };
	cr_assert_eq(lt_snapshot_diagnose(&s, NULL), 0);
	const struct lt_verdict *v = &s.verdicts[0];
	cr_assert_eq(v->kind, LT_VERDICT_DEADLOCK, "%s", v->summary);
	bool has[4] = { false };
	for (size_t k = 0; k < v->n_tids; k++)
		for (int q = 0; q < 4; q++)
			has[q] |= v->tids[k] == th[q].tid;
	cr_expect(has[1] && has[2] && has[3] && !has[0], "%s", v->summary);
	cr_expect(v->n_behind == 1 && v->behind[0] == 100, "main is behind the cycle");
	free_snap(&s);
}

Test(waitfor_verdicts, leaked_write_end)
{
	struct lt_thread th[1];
	blocked(&th[0], 600, 0, LT_WAIT_IO);
	edge(&th[0], 600, LT_WF_PIPE_READ, 600, LT_WFP_BLOCKED);
	struct lt_snapshot s = { .pid = 600, .threads = th, .n_threads = 1 };
	cr_assert_eq(lt_snapshot_diagnose(&s, NULL), 0);
	cr_assert_eq(s.verdicts[0].kind, LT_VERDICT_WAIT_CHAIN, "%s", s.verdicts[0].summary);
	cr_expect(strstr(s.verdicts[0].summary, "leaked"), "%s", s.verdicts[0].summary);
	free_snap(&s);
}

/* A JVM's reader of a pipe only its process holds, every program thread
 * asleep: a thread of the JVM's own caught running (its VM thread, a
 * housekeeping Java thread) writes no pipe of the program's, a program's
 * Java thread might */
Test(waitfor_verdicts, leaked_write_end_in_a_jvm_whatever_its_own_threads_do)
{
	for (int c = 0; c < 3; c++) {
		struct lt_thread th[2];
		blocked(&th[0], 600, 0, LT_WAIT_IO);
		edge(&th[0], 600, LT_WF_PIPE_READ, 600, LT_WFP_BLOCKED);
		th[0].rt_lang = "java";
		blocked(&th[1], 601, 0, LT_WAIT_NONE);
		th[1].state = 'R';
		th[1].sc.state = LT_SC_RUNNING;
		th[1].wf = calloc(1, sizeof(*th[1].wf));
		th[1].wf->pid = 600;
		th[1].rt_lang = c == 0 ? NULL : "java";
		th[1].rt_name = strdup(c == 1 ? "Monitor Deflation Thread" : "worker");
		struct lt_snapshot s = { .pid = 600, .threads = th, .n_threads = 2 };
		cr_assert_eq(lt_snapshot_diagnose(&s, NULL), 0);
		bool leak = false;
		for (size_t i = 0; i < s.n_verdicts; i++)
			leak |= strstr(s.verdicts[i].summary, "keeps the pipe from its end-of-file") != NULL;
		cr_expect_eq(leak, c < 2, "case %d: %s", c, s.n_verdicts ? s.verdicts[0].summary : "-");
		free_snap(&s);
	}
}

/* An eventfd held by the reader's own process and by process 701, which
 * waits for a file lock the reader's process holds: the own process (its
 * one thread, the reader) is set aside and the cycle closes through 701. */
Test(waitfor_verdicts, eventfd_held_by_the_reader_too_closes_a_cycle_through_the_other_holder)
{
	struct lt_thread th[2];
	blocked(&th[0], 700, 0, LT_WAIT_IO);
	struct lt_wf_edge *e = edge(&th[0], 700, LT_WF_PIPE_READ, 700, LT_WFP_BLOCKED);
	free(e->what);
	e->what = strdup("eventfd (eventfd-id 1, fd 3)");
	e->pids[1] = 701;
	e->n_pids = 2;
	blocked(&th[1], 701, 73, LT_WAIT_IO);
	edge(&th[1], 701, LT_WF_FILE_LOCK, 700, LT_WFP_BLOCKED);
	struct lt_snapshot s = { .pid = 700, .threads = th, .n_threads = 2 };
	cr_assert_eq(lt_snapshot_diagnose(&s, NULL), 0);
	cr_assert_eq(s.verdicts[0].kind, LT_VERDICT_DEADLOCK, "%s", s.verdicts[0].summary);
	cr_assert_eq(s.verdicts[0].n_tids, 2);
	cr_expect(tl_strlist_has(&s.verdicts[0].evidence, "written by process 701"), "%s",
		  s.verdicts[0].evidence.n ? s.verdicts[0].evidence.v[0] : "");
	cr_expect(tl_strlist_has(&s.verdicts[0].evidence, "its own process, all asleep, holds it too"));
	free_snap(&s);
}

/* The same with a second thread of the reader's process running: it could
 * write the eventfd, so no deadlock. */
Test(waitfor_verdicts, eventfd_held_by_the_reader_too_is_no_cycle_while_its_process_runs)
{
	struct lt_thread th[3];
	blocked(&th[0], 700, 0, LT_WAIT_IO);
	struct lt_wf_edge *e = edge(&th[0], 700, LT_WF_PIPE_READ, 700, LT_WFP_BLOCKED);
	e->pids[1] = 701;
	e->n_pids = 2;
	blocked(&th[1], 701, 73, LT_WAIT_IO);
	edge(&th[1], 701, LT_WF_FILE_LOCK, 700, LT_WFP_BLOCKED);
	blocked(&th[2], 702, -1, LT_WAIT_NONE);
	th[2].state = 'R';
	th[2].sc.state = LT_SC_RUNNING;
	th[2].wf = calloc(1, sizeof(*th[2].wf));
	th[2].wf->pid = 700;
	struct lt_snapshot s = { .pid = 700, .threads = th, .n_threads = 3 };
	cr_assert_eq(lt_snapshot_diagnose(&s, NULL), 0);
	for (size_t i = 0; i < s.n_verdicts; i++)
		cr_expect_neq(s.verdicts[i].kind, LT_VERDICT_DEADLOCK, "%s", s.verdicts[i].summary);
	free_snap(&s);
}

/* An eventfd only the reader's own (blocked) process holds is no leaked
 * write end: the kernel (io_uring, aio) writes eventfds too (waitfor.c
 * makes it an unknown party; as a pipe-like edge it is no leak either). */
Test(waitfor_verdicts, eventfd_only_its_blocked_process_holds_is_no_leak)
{
	struct lt_thread th[1];
	blocked(&th[0], 600, 0, LT_WAIT_IO);
	struct lt_wf_edge *e = edge(&th[0], 600, LT_WF_PIPE_READ, 600, LT_WFP_BLOCKED);
	free(e->what);
	e->what = strdup("eventfd (eventfd-id 1, fd 3)");
	struct lt_snapshot s = { .pid = 600, .threads = th, .n_threads = 1 };
	cr_assert_eq(lt_snapshot_diagnose(&s, NULL), 0);
	for (size_t i = 0; i < s.n_verdicts; i++)
		cr_expect(!strstr(s.verdicts[i].summary, "leaked") && !strstr(s.verdicts[i].summary, "write end"),
			  "%s", s.verdicts[i].summary);
	char *line = lt_wf_edge_line(e);
	cr_expect(strstr(line, "can be written by process 600"), "%s", line);
	free(line);
	free_snap(&s);
}

/* A wait whose party is not known (an eventfd in a poll set, a signal):
 * IDLE says none is known to be stuck, not that none is. */
Test(waitfor_verdicts, idle_with_an_unknown_party_says_none_known_to_be_stuck)
{
	struct lt_thread th[1];
	blocked(&th[0], 800, 34, LT_WAIT_SLEEP); /* pause */
	struct lt_wf_edge *e = edge(&th[0], 800, LT_WF_UNKNOWN, 0, LT_WFP_UNKNOWN);
	free(e->what);
	e->what = strdup("a signal (pause)");
	struct lt_snapshot s = { .pid = 800, .threads = th, .n_threads = 1 };
	cr_assert_eq(lt_snapshot_diagnose(&s, NULL), 0);
	cr_assert_eq(s.verdicts[0].kind, LT_VERDICT_IDLE, "%s", s.verdicts[0].summary);
	cr_expect(strstr(s.verdicts[0].summary, "none known to be stuck") &&
		  !strstr(s.verdicts[0].summary, "none for anything stuck"), "%s", s.verdicts[0].summary);
	free_snap(&s);
}

/* A one-thread process waiting for a flock it holds through another open
 * file: a deadlock of one thread.  With a second thread asleep on a timer
 * (it might release it), none is claimed. */
Test(waitfor_verdicts, file_lock_held_by_the_waiters_own_process_is_a_deadlock_of_one)
{
	struct lt_thread th[2];
	blocked(&th[0], 900, 73, LT_WAIT_IO);
	struct lt_wf_edge *e = edge(&th[0], 900, LT_WF_FILE_LOCK, 900, LT_WFP_BLOCKED);
	free(e->what);
	e->what = strdup("FLOCK WRITE lock on /tmp/l");
	struct lt_snapshot s = { .pid = 900, .threads = th, .n_threads = 1 };
	cr_assert_eq(lt_snapshot_diagnose(&s, NULL), 0);
	cr_assert_eq(s.verdicts[0].kind, LT_VERDICT_DEADLOCK, "%s", s.verdicts[0].summary);
	cr_expect_eq(s.verdicts[0].n_tids, 1);
	cr_expect(strstr(s.verdicts[0].summary, "waits for a file lock its own process holds"), "%s",
		  s.verdicts[0].summary);
	free_snap(&s);

	blocked(&th[0], 900, 73, LT_WAIT_IO);
	e = edge(&th[0], 900, LT_WF_FILE_LOCK, 900, LT_WFP_TIMED);
	blocked(&th[1], 901, 35, LT_WAIT_SLEEP);
	edge(&th[1], 900, LT_WF_TIMER, 0, LT_WFP_UNKNOWN);
	struct lt_snapshot s2 = { .pid = 900, .threads = th, .n_threads = 2 };
	cr_assert_eq(lt_snapshot_diagnose(&s2, NULL), 0);
	for (size_t i = 0; i < s2.n_verdicts; i++)
		cr_expect_neq(s2.verdicts[i].kind, LT_VERDICT_DEADLOCK, "%s", s2.verdicts[i].summary);
	free_snap(&s2);
}

/* The reader's own process holds the write end but one of its threads is
 * asleep on a timer: it may write when it wakes; no leak is claimed. */
Test(waitfor_verdicts, own_write_end_with_a_thread_on_a_timer_is_no_leak)
{
	struct lt_thread th[2];
	blocked(&th[0], 610, 0, LT_WAIT_IO);
	edge(&th[0], 610, LT_WF_PIPE_READ, 610, LT_WFP_TIMED);
	blocked(&th[1], 611, 230, LT_WAIT_NONE);
	th[1].wf = calloc(1, sizeof(*th[1].wf));
	th[1].wf->pid = 610;
	struct lt_snapshot s = { .pid = 610, .threads = th, .n_threads = 2 };
	cr_assert_eq(lt_snapshot_diagnose(&s, NULL), 0);
	for (size_t i = 0; i < s.n_verdicts; i++) {
		cr_expect_neq(s.verdicts[i].kind, LT_VERDICT_WAIT_CHAIN, "%s", s.verdicts[i].summary);
		cr_expect_null(strstr(s.verdicts[i].summary, "leaked"), "%s", s.verdicts[i].summary);
	}
	free_snap(&s);
}

/* A deadlock through a pipe in one process: 620 holds a mutex and reads a
 * pipe only its process can write; 621 waits for that mutex (a writer that
 * would write after taking it); every thread of the process is blocked.
 * The cycle 620 -> 621 -> 620, probable (which thread would write is
 * inferred), rather than a leaked write end. */
Test(waitfor_verdicts, own_pipe_reader_waited_for_by_the_process_is_a_probable_deadlock)
{
	struct lt_thread th[3];
	blocked(&th[0], 620, 0, LT_WAIT_IO);
	edge(&th[0], 620, LT_WF_PIPE_READ, 620, LT_WFP_BLOCKED);
	blocked(&th[1], 621, 202, LT_WAIT_FUTEX);
	mutex_wait(&th[1], 620, 620);
	blocked(&th[2], 622, 202, LT_WAIT_FUTEX); /* a main thread joining: no owner */
	th[2].futex.uaddr = 0x2000;
	th[2].futex.is_wait = true;
	th[2].futex.private_ = true; /* only a thread of its process wakes it */
	th[2].wf = calloc(1, sizeof(*th[2].wf));
	th[2].wf->pid = 620;
	struct lt_snapshot s = { .pid = 620, .threads = th, .n_threads = 3 };
	cr_assert_eq(lt_snapshot_diagnose(&s, NULL), 0);
	cr_assert(s.n_verdicts > 0);
	const struct lt_verdict *v = &s.verdicts[0];
	cr_assert_eq(v->kind, LT_VERDICT_DEADLOCK, "%s", v->summary);
	cr_expect_eq(v->n_tids, 2);
	cr_expect(strstr(v->summary, "probable deadlock through a pipe: thread 620 (t620)") &&
		  strstr(v->summary, "620 (t620) -> 621 (t621) -> 620") &&
		  strstr(v->summary, "that 621 (t621) would write the pipe is inferred"), "%s", v->summary);
	for (size_t i = 0; i < s.n_verdicts; i++)
		cr_expect_null(strstr(s.verdicts[i].summary, "leaked"), "%s", s.verdicts[i].summary);
	free_snap(&s);
}

/* The same, but the main thread reads a pipe another process writes (a
 * test's stdin, a command channel): it can go on, and write the pipe
 * next.  Not a deadlock (the process counts as blocked all the same:
 * its other threads are in no wait a timer or an event ends), nor is
 * the runtime's own service thread (OCaml's tick thread) what decides. */
Test(waitfor_verdicts, own_pipe_reader_is_no_deadlock_while_another_thread_can_be_woken_from_outside)
{
	struct lt_thread th[4];
	blocked(&th[0], 620, 0, LT_WAIT_IO);
	edge(&th[0], 620, LT_WF_PIPE_READ, 620, LT_WFP_BLOCKED);
	blocked(&th[1], 621, 202, LT_WAIT_FUTEX);
	mutex_wait(&th[1], 620, 620);
	blocked(&th[2], 622, 0, LT_WAIT_IO); /* reads what process 700 writes */
	edge(&th[2], 620, LT_WF_PIPE_READ, 700, LT_WFP_EVENTS);
	blocked(&th[3], 623, 270, LT_WAIT_POLL); /* the tick thread */
	th[3].rt_service = true;
	th[3].wf = calloc(1, sizeof(*th[3].wf));
	th[3].wf->pid = 620;
	struct lt_snapshot s = { .pid = 620, .threads = th, .n_threads = 4 };
	cr_assert_eq(lt_snapshot_diagnose(&s, NULL), 0);
	for (size_t i = 0; i < s.n_verdicts; i++)
		cr_expect_neq(s.verdicts[i].kind, LT_VERDICT_DEADLOCK, "%s", s.verdicts[i].summary);
	free_snap(&s);
	/* with that thread the runtime's own too, the cycle is claimed */
	blocked(&th[0], 620, 0, LT_WAIT_IO);
	edge(&th[0], 620, LT_WF_PIPE_READ, 620, LT_WFP_BLOCKED);
	blocked(&th[1], 621, 202, LT_WAIT_FUTEX);
	mutex_wait(&th[1], 620, 620);
	blocked(&th[2], 622, 270, LT_WAIT_POLL);
	th[2].rt_service = true;
	th[2].wf = calloc(1, sizeof(*th[2].wf));
	th[2].wf->pid = 620;
	s = (struct lt_snapshot){ .pid = 620, .threads = th, .n_threads = 3 };
	cr_assert_eq(lt_snapshot_diagnose(&s, NULL), 0);
	cr_assert(s.n_verdicts > 0);
	cr_assert_eq(s.verdicts[0].kind, LT_VERDICT_DEADLOCK, "%s", s.verdicts[0].summary);
	free_snap(&s);
}

/* Item 9: the IDLE headline itself says what each wait ends by: a timer,
 * a remote peer, a listener, and the parties by what they do. */
Test(waitfor_verdicts, idle_headline_says_what_ends_the_waits)
{
	struct lt_thread th[3];
	blocked(&th[0], 700, 7, LT_WAIT_POLL);
	edge(&th[0], 700, LT_WF_PIPE_READ, 701, LT_WFP_TIMED);
	edge(&th[0], 700, LT_WF_PIPE_READ, 701, LT_WFP_TIMED);
	edge(&th[0], 700, LT_WF_TIMER, 0, LT_WFP_UNKNOWN);
	blocked(&th[1], 702, 45, LT_WAIT_IO);
	edge(&th[1], 700, LT_WF_REMOTE, 0, LT_WFP_UNKNOWN);
	blocked(&th[2], 703, 43, LT_WAIT_IO);
	edge(&th[2], 700, LT_WF_SOCKET, 704, LT_WFP_EVENTS);
	struct lt_snapshot s = { .pid = 700, .threads = th, .n_threads = 3 };
	cr_assert_eq(lt_snapshot_diagnose(&s, NULL), 0);
	const char *sum = s.verdicts[0].summary;
	cr_assert_eq(s.verdicts[0].kind, LT_VERDICT_IDLE, "%s", sum);
	cr_expect(strstr(sum, "none for anything stuck"), "%s", sum);
	cr_expect(strstr(sum, "1 wait on a timer"), "%s", sum);
	cr_expect(strstr(sum, "1 wait on a peer outside this host"), "%s", sum);
	cr_expect(strstr(sum, "2 waits on process 701, asleep on a timer"), "%s", sum);
	cr_expect(strstr(sum, "1 wait on process 704, in an event wait (idle)"), "%s", sum);
	free_snap(&s);
}

/* Item 7: process 800 waits (wait4) for its child 801, which waits for a
 * file lock held by 802 (asleep on a timer).  The lock wait is the
 * finding, and it names the parent that waits for it. */
Test(waitfor_verdicts, lock_wait_names_who_waits_for_it)
{
	struct lt_thread th[2];
	blocked(&th[0], 800, 61, LT_WAIT_CHILD);
	edge(&th[0], 800, LT_WF_CHILD, 801, LT_WFP_BLOCKED);
	blocked(&th[1], 801, 73, LT_WAIT_IO);
	edge(&th[1], 801, LT_WF_FILE_LOCK, 802, LT_WFP_TIMED);
	struct lt_snapshot s = { .pid = 800, .threads = th, .n_threads = 2 };
	cr_assert_eq(lt_snapshot_diagnose(&s, NULL), 0);
	cr_assert_eq(s.verdicts[0].kind, LT_VERDICT_LOCK_WAIT, "%s", s.verdicts[0].summary);
	cr_expect_eq(s.verdicts[0].owner, 802);
	bool by = false;
	for (size_t i = 0; i < s.verdicts[0].evidence.n; i++)
		by |= strstr(s.verdicts[0].evidence.v[i], "waited for by: thread 800 (t800) of process 800") &&
		      strstr(s.verdicts[0].evidence.v[i], "<- child 801");
	cr_expect(by, "the parent in wait4 is named before the child's lock wait");
	free_snap(&s);
}

/* ---- following the edges: the bounds, and saying where it stopped ---- */

/* A chain of processes 1000 -> 1001 -> ... -> 1000+CHAIN_LEN-1, each
 * blocked in read() on a pipe written only by the next. */
#define CHAIN_LEN 12
static int takes;

static struct lt_snapshot *chain_proc(pid_t pid)
{
	struct lt_snapshot *s = tl_snapshot_one(pid, "chain");
	struct lt_thread *t = &s->threads[0];
	t->sc.state = LT_SC_IN_SYSCALL;
	t->wait = LT_WAIT_IO;
	if (pid < 1000 + CHAIN_LEN - 1) {
		struct lt_wf_edge *e = lt_waitfor_add(t, pid, LT_WF_PIPE_READ);
		cr_assert_not_null(e);
		e->pids[0] = pid + 1;
		e->n_pids = 1;
		e->pstate = LT_WFP_BLOCKED;
	}
	return s;
}

static int chain_take(pid_t pid, void *arg, struct lt_snapshot **out)
{
	(void)arg;
	takes++;
	*out = chain_proc(pid);
	return 0;
}

static void follow_chain(const struct lt_follow_limits *lim, size_t want_n, const char *why)
{
	struct lt_snapshot **v = NULL;
	size_t n = 0;
	struct lt_strlist notes = { 0 };
	takes = 0;
	cr_assert_eq(lt_snapshot_follow(chain_proc(1000), lim, chain_take, NULL, &v, &n, &notes), 0);
	cr_expect_eq(n, want_n, "followed %zu processes", n);
	cr_expect_eq((size_t)takes, want_n - 1, "one snapshot per process followed");
	for (size_t i = 0; i < n; i++)
		cr_expect_eq(v[i]->pid, 1000 + (pid_t)i, "in order along the chain");
	char stop[96];
	snprintf(stop, sizeof(stop), "stopped following wait-for edges at process %d (%s)",
		 1000 + (int)want_n, why);
	cr_expect(tl_strlist_has(&notes, stop), "the note says where it stopped: %s", stop);
	cr_expect(tl_strlist_has(&notes, "followed the wait-for edges of process 1000 into: 1000, 1001"));
	/* the edge into the process left unfollowed: its state not known
	 * (blocked in a call whose own wait was not read), never "blocked
	 * itself", which made every stage of a long pipeline a chain; the
	 * edges between followed ones keep theirs */
	for (size_t i = 0; i < n; i++) {
		const struct lt_wf_edge *e = &v[i]->threads[0].wf->edges[0];
		bool last = i == n - 1;
		cr_expect_eq(e->pstate, last ? LT_WFP_UNKNOWN : LT_WFP_BLOCKED, "process %d", (int)v[i]->pid);
		if (last)
			cr_expect(e->doing && strstr(e->doing, "(blocked in a call whose own wait was not followed: "
						     "the follow's limits)"), "%s", e->doing ? e->doing : "-");
	}
	for (size_t i = 0; i < n; i++)
		lt_snapshot_free(v[i]);
	free(v);
	lt_strlist_free(&notes);
}

/* by default 8 processes, 7 edges deep: a PostgreSQL backend idle in
 * transaction, its psql, sh, flock(1), flock's holder and its child psql,
 * the waiting backend (test_pgwait_live.c) are 7 */
Test(waitfor_follow, default_bounds_stop_at_eight_processes_and_say_so)
{
	follow_chain(NULL, 8, "process limit");
}

Test(waitfor_follow, depth_limit_stops_and_says_so)
{
	struct lt_follow_limits lim = { .max_procs = 64, .max_depth = 4 };
	follow_chain(&lim, 5, "depth limit"); /* the first + 4 edges deep */
}

Test(waitfor_follow, process_limit_stops_and_says_so)
{
	struct lt_follow_limits lim = { .max_procs = 3, .max_depth = 100 };
	follow_chain(&lim, 3, "process limit");
}

Test(waitfor_follow, a_shorter_chain_is_followed_to_its_end_without_a_stop_note)
{
	struct lt_follow_limits lim = { .max_procs = 64, .max_depth = 64 };
	struct lt_snapshot **v = NULL;
	size_t n = 0;
	struct lt_strlist notes = { 0 };
	cr_assert_eq(lt_snapshot_follow(chain_proc(1000), &lim, chain_take, NULL, &v, &n, &notes), 0);
	cr_expect_eq(n, CHAIN_LEN);
	cr_expect(!tl_strlist_has(&notes, "stopped following"));
	for (size_t i = 0; i < n; i++)
		lt_snapshot_free(v[i]);
	free(v);
	lt_strlist_free(&notes);
}

static int slow_take(pid_t pid, void *arg, struct lt_snapshot **out)
{
	(void)arg;
	usleep(30000); /* 11 takes: 330 ms at least, past the 50 ms budget */
	*out = chain_proc(pid);
	return 0;
}

Test(waitfor_follow, time_limit_stops_and_says_so)
{
	struct lt_follow_limits lim = { .max_procs = 100, .max_depth = 100, .max_s = 0.05 };
	struct lt_snapshot **v = NULL;
	size_t n = 0;
	struct lt_strlist notes = { 0 };
	cr_assert_eq(lt_snapshot_follow(chain_proc(1000), &lim, slow_take, NULL, &v, &n, &notes), 0);
	cr_expect_lt(n, CHAIN_LEN, "stopped before the end of the chain");
	cr_expect(tl_strlist_has(&notes, "(time limit): limits 100 processes, depth 100, 0.05 s"),
		  "the note says the time limit stopped it");
	for (size_t i = 0; i < n; i++)
		lt_snapshot_free(v[i]);
	free(v);
	lt_strlist_free(&notes);
}

/* sleep | cat 901 | cat 902, followed: 902's writer 901 is blocked, but in
 * this snapshot and waiting on a timer's process: IDLE, and the headline
 * says 901 waits in turn, not that it is stuck. */
Test(waitfor_verdicts, idle_headline_of_a_followed_chain)
{
	struct lt_thread th[2];
	blocked(&th[0], 901, 0, LT_WAIT_IO);
	edge(&th[0], 901, LT_WF_PIPE_READ, 900, LT_WFP_TIMED);
	blocked(&th[1], 902, 0, LT_WAIT_IO);
	edge(&th[1], 902, LT_WF_PIPE_READ, 901, LT_WFP_BLOCKED);
	struct lt_snapshot s = { .pid = 902, .threads = th, .n_threads = 2 };
	cr_assert_eq(lt_snapshot_diagnose(&s, NULL), 0);
	const char *sum = s.verdicts[0].summary;
	cr_assert_eq(s.verdicts[0].kind, LT_VERDICT_IDLE, "%s", sum);
	cr_expect(strstr(sum, "1 wait on process 900, asleep on a timer"), "%s", sum);
	cr_expect(strstr(sum, "1 wait on process 901, which wait in turn on the others"), "%s", sum);
	free_snap(&s);
}

/* A lock's holder idle in an event wait is followed (a backend idle in
 * transaction holding a row lock, flock(1)'s child polling its server);
 * more than three, or one running or on a timer, are not. */
Test(waitfor_follow, an_idle_lock_holder_is_followed)
{
	struct lt_wf_edge e = { .kind = LT_WF_APP_LOCK, .pids = { 30 }, .n_pids = 1, .pstate = LT_WFP_EVENTS };
	cr_expect(lt_wf_follow_edge(&e), "app_lock holder in an event wait");
	e.kind = LT_WF_FILE_LOCK;
	e.pids[1] = 31;
	e.n_pids = 2;
	cr_expect(lt_wf_follow_edge(&e), "file_lock holders in event waits");
	e.pstate = LT_WFP_RUNNING;
	cr_expect(!lt_wf_follow_edge(&e), "a running holder");
	e.pstate = LT_WFP_TIMED;
	cr_expect(!lt_wf_follow_edge(&e), "holders on a timer (flock -c 'sleep 600'): its wait ends by itself");
	e.pstate = LT_WFP_EVENTS;
	e.n_pids = 4;
	cr_expect(!lt_wf_follow_edge(&e), "four holders");
}

/* The trial's cycle (test_pgwait_live.c builds it on a real server):
 * psql 10 (child of flock(1) 60, which holds deploy.lock) polls backend
 * 20, which waits for a row lock held by backend 30, idle in transaction,
 * reading from its client psql 40, which waits for sh 45, which waits for
 * flock 50, which waits for deploy.lock held by 60 and 10.  The holders
 * are in event waits (60 waits for its child 10, 10 polls): the lock's
 * parties all the same, a DEADLOCK of 10 20 30 40 45 50. */
static void pg_flock_cycle(struct lt_thread *th, enum lt_wf_pstate holders)
{
	blocked(&th[0], 10, 7, LT_WAIT_POLL);
	edge(&th[0], 10, LT_WF_SOCKET, 20, LT_WFP_EVENTS);
	blocked(&th[1], 20, 232, LT_WAIT_POLL);
	edge(&th[1], 20, LT_WF_APP_LOCK, 30, LT_WFP_EVENTS)->holder_tid = 30;
	blocked(&th[2], 30, 232, LT_WAIT_POLL);
	edge(&th[2], 30, LT_WF_SOCKET, 40, LT_WFP_BLOCKED);
	blocked(&th[3], 40, 61, LT_WAIT_CHILD);
	edge(&th[3], 40, LT_WF_CHILD, 45, LT_WFP_BLOCKED);
	blocked(&th[4], 45, 61, LT_WAIT_CHILD);
	edge(&th[4], 45, LT_WF_CHILD, 50, LT_WFP_BLOCKED);
	blocked(&th[5], 50, 73, LT_WAIT_IO);
	struct lt_wf_edge *e = edge(&th[5], 50, LT_WF_FILE_LOCK, 60, holders);
	e->pids[e->n_pids++] = 10;
	blocked(&th[6], 60, 61, LT_WAIT_CHILD);
	edge(&th[6], 60, LT_WF_CHILD, 10, LT_WFP_EVENTS);
}

Test(waitfor_verdicts, a_file_lock_held_by_flock_and_its_polling_child_closes_a_cycle)
{
	struct lt_thread th[7];
	pg_flock_cycle(th, LT_WFP_EVENTS);
	struct lt_snapshot s = { .pid = 10, .threads = th, .n_threads = 7 };
	cr_assert_eq(lt_snapshot_diagnose(&s, NULL), 0);
	const struct lt_verdict *v = &s.verdicts[0];
	cr_assert_eq(v->kind, LT_VERDICT_DEADLOCK, "%s", v->summary);
	cr_assert_str_eq(v->summary, "deadlock: 6 threads in 6 processes wait for each other: 10 (t10) -> 20 (t20) "
			 "-> 30 (t30) -> 40 (t40) -> 45 (t45) -> 50 (t50) -> 10");
	cr_expect(tl_strlist_has(&v->evidence, "<- held by processes 60, 10, all asleep (blocked, or in event "
				 "waits the snapshot followed); it goes on through process 10 (t10)"));
	cr_expect(tl_strlist_has(&v->evidence, "1 more thread(s) blocked behind the cycle: 60"));
	free_snap(&s);
	/* flock(1) running: it may yet release the lock */
	pg_flock_cycle(th, LT_WFP_EVENTS);
	th[6].state = 'R';
	th[6].sc.state = LT_SC_RUNNING;
	s = (struct lt_snapshot){ .pid = 10, .threads = th, .n_threads = 7 };
	cr_assert_eq(lt_snapshot_diagnose(&s, NULL), 0);
	for (size_t i = 0; i < s.n_verdicts; i++)
		cr_expect_neq(s.verdicts[i].kind, LT_VERDICT_DEADLOCK, "%s", s.verdicts[i].summary);
	free_snap(&s);
}

static bool has_line(const struct lt_verdict *v, const char *a, const char *b);

/* The same cycle, backend 30 (idle in transaction) with its
 * idle_in_transaction_session_timeout on its client's edge
 * (lt_pg_client_wait): K 0, 60 s, 55 s left (it has not run for 5 s): a
 * deadlock until a timeout, within 55 s; 1, 60 s, when it went idle not
 * known: the value alone, said so; 2, not read: a probable deadlock that
 * says the timeout is not known, never a certain one, never IDLE. */
Test(waitfor_verdicts, a_postgres_backends_idle_in_transaction_timeout_in_a_cycle_lasts_until_it)
{
	static const char *const chain = "6 threads in 6 processes wait for each other: 10 (t10) -> 20 (t20) -> 30 "
					 "(t30) -> 40 (t40) -> 45 (t45) -> 50 (t50) -> 10";
	static const char *const tail[3] = {
		"; thread 30 (t30) waits with a timeout (idle_in_transaction_session_timeout 60.0 s: the server ends "
		"the session within 55.0 s)",
		"; thread 30 (t30) waits with a timeout (idle_in_transaction_session_timeout 60.0 s: the server ends "
		"the session within 60.0 s at most (the timeout's value: when it began is not known))",
		"; whether thread 30 (t30) has a timeout (idle_in_transaction_session_timeout) is not known (not read: "
		"see the evidence): it may end by itself",
	};
	for (int k = 0; k < 3; k++) {
		struct lt_thread th[7];
		pg_flock_cycle(th, LT_WFP_EVENTS);
		struct lt_wf_edge *e = &th[2].wf->edges[0];
		snprintf(e->timeout_what, sizeof(e->timeout_what), "idle_in_transaction_session_timeout");
		e->timeout_s = k == 2 ? -1 : 60;
		e->timeout_left_s = k == 0 ? 55 : -1;
		struct lt_snapshot s = { .pid = 10, .threads = th, .n_threads = 7 };
		cr_assert_eq(lt_snapshot_diagnose(&s, NULL), 0);
		const struct lt_verdict *v = &s.verdicts[0];
		cr_assert_eq(v->kind, LT_VERDICT_DEADLOCK, "case %d: %s", k, v->summary);
		char want[600];
		snprintf(want, sizeof(want), "%s: %s%s", k == 2 ? "probable deadlock" : "deadlock until a timeout", chain,
			 tail[k]);
		cr_expect_str_eq(v->summary, want, "case %d", k);
		if (k == 0)
			cr_expect(has_line(v, "thread 30 (t30) waits with a timeout (idle_in_transaction_session_timeout "
					   "60.0 s: the server ends the session within 55.0 s)", "the cycle lasts until then"));
		for (size_t i = 0; i < s.n_verdicts; i++)
			cr_expect_neq(s.verdicts[i].kind, LT_VERDICT_IDLE, "case %d: %s", k, s.verdicts[i].summary);
		free_snap(&s);
	}
}

/* ---- cycles that close through an inferred link ---- */

static void condvar_wait(struct lt_thread *t, pid_t tid, pid_t pid, uint64_t addr)
{
	blocked(t, tid, 202, LT_WAIT_FUTEX);
	t->futex.uaddr = addr + 0x28;
	t->futex.lock_base = addr;
	t->futex.is_wait = true;
	t->futex.private_ = true;
	t->futex.word_ok = true;
	t->futex.lock_kind = "condition variable";
	t->wf = calloc(1, sizeof(*t->wf));
	t->wf->pid = pid;
}

static bool has_line(const struct lt_verdict *v, const char *a, const char *b)
{
	for (size_t i = 0; i < v->evidence.n; i++)
		if (strstr(v->evidence.v[i], a) && (!b || strstr(v->evidence.v[i], b)))
			return true;
	return false;
}

/* The trial's usock: client 100 holds a flock and reads a unix socket of
 * server 200; the server's handler 202 waits on a condition variable for
 * worker 201, which writes a full pipe to logger 300, which waits for the
 * client's flock; the server's main thread 200 is in accept().  Which
 * thread of 200 answers, and who signals the condition variable, are
 * inferred: a probable deadlock naming both, never a plain one.  K: 0 as
 * said; 1 the accept thread has a timeout (it may yet answer); 2 the
 * server's main thread runs. */
static void usock_table(struct lt_thread *th, int k)
{
	blocked(&th[0], 100, 0, LT_WAIT_IO);
	struct lt_wf_edge *e = edge(&th[0], 100, LT_WF_SOCKET, 200, LT_WFP_BLOCKED);
	free(e->what);
	e->what = strdup("unix socket socket:[5001] (fd 4), peer socket:[5002]");
	blocked(&th[1], 200, 43, LT_WAIT_IO);
	th[1].fdw.io.fd = 5;
	th[1].fdw.io.kind = LT_FD_SOCKET;
	struct lt_wf_edge *l = lt_waitfor_add(&th[1], 200, LT_WF_LISTEN);
	l->what = strdup("listening unix socket socket:[5000] (fd 5)");
	if (k == 1) {
		struct lt_wf_edge *tm = lt_waitfor_add(&th[1], 200, LT_WF_TIMER);
		tm->what = strdup("timeout 1000 ms");
	} else if (k == 2) {
		th[1].state = 'R';
		th[1].sc.state = LT_SC_RUNNING;
	}
	blocked(&th[2], 201, 1, LT_WAIT_IO);
	e = edge(&th[2], 200, LT_WF_PIPE_WRITE, 300, LT_WFP_BLOCKED);
	free(e->what);
	e->what = strdup("pipe pipe:[6000] (fd 4)");
	condvar_wait(&th[3], 202, 200, 0x4180);
	blocked(&th[4], 300, 73, LT_WAIT_IO);
	e = edge(&th[4], 300, LT_WF_FILE_LOCK, 100, LT_WFP_BLOCKED);
	free(e->what);
	e->what = strdup("FLOCK WRITE lock on /tmp/session.lock (whole file, inode fe:00:77)");
}

Test(waitfor_verdicts, a_cycle_through_a_condvar_and_a_socket_is_a_probable_deadlock)
{
	struct lt_thread th[5];
	usock_table(th, 0);
	struct lt_snapshot s = { .pid = 200, .threads = th, .n_threads = 5 };
	cr_assert_eq(lt_snapshot_diagnose(&s, NULL), 0);
	const struct lt_verdict *v = &s.verdicts[0];
	cr_assert_eq(v->kind, LT_VERDICT_DEADLOCK, "%s", v->summary);
	cr_expect_str_eq(v->summary, "probable deadlock (which thread of a process answers and a condition "
			 "variable's signaller inferred): 4 threads in 3 processes wait for each other: 100 (t100) "
			 "-> 202 (t202) -> 201 (t201) -> 300 (t300) -> 100");
	cr_expect(has_line(v, "inferred: of the 3 threads of process 200 (t200), which holds the other end of unix "
			   "socket socket:[5001] (fd 4), peer socket:[5002]", "thread 202 (t202) is taken to be the "
			   "one to answer thread 100: its own chain leads back to it (through 201)"));
	cr_expect(has_line(v, "its other thread waits for what no thread of the cycle gives, none running or on "
			   "a timer: 200 (t200) accept(fd 5: socket)", NULL));
	cr_expect(has_line(v, "thread 202 (t202) of process 200 waits on condition variable", "which records no "
			   "thread to signal it <- probably thread 201 (t201) (inferred)"));
	cr_expect(has_line(v, "records no thread to signal it; of the other threads of process 200 (t200), thread "
			   "201 (t201) is taken to be the one to, once it goes on: its own chain leads back to "
			   "thread 202", NULL));
	cr_expect(has_line(v, "thread 300 (t300)", "FLOCK WRITE lock on /tmp/session.lock (whole file, inode "
			   "fe:00:77) <- held only by process 100"));
	cr_expect(has_line(v, "thread 201 (t201)", "pipe pipe:[6000] (fd 4) <- read only by process 300"));
	free_snap(&s);
	for (int k = 1; k <= 2; k++) {
		usock_table(th, k);
		struct lt_snapshot s2 = { .pid = 200, .threads = th, .n_threads = 5 };
		cr_assert_eq(lt_snapshot_diagnose(&s2, NULL), 0);
		for (size_t i = 0; i < s2.n_verdicts; i++)
			cr_expect_neq(s2.verdicts[i].kind, LT_VERDICT_DEADLOCK, "case %d: %s", k, s2.verdicts[i].summary);
		free_snap(&s2);
	}
}

/* A cycle of read links only stays a plain DEADLOCK: nothing inferred. */
Test(waitfor_verdicts, a_proven_cycle_says_nothing_is_inferred)
{
	struct lt_thread th[3];
	blocked(&th[0], 100, 0, LT_WAIT_IO);
	edge(&th[0], 100, LT_WF_PIPE_READ, 200, LT_WFP_BLOCKED);
	blocked(&th[1], 200, 202, LT_WAIT_FUTEX);
	mutex_wait(&th[1], 200, 201);
	blocked(&th[2], 201, 0, LT_WAIT_IO);
	edge(&th[2], 200, LT_WF_SOCKET, 100, LT_WFP_BLOCKED);
	struct lt_snapshot s = { .pid = 100, .threads = th, .n_threads = 3 };
	cr_assert_eq(lt_snapshot_diagnose(&s, NULL), 0);
	cr_assert_eq(s.verdicts[0].kind, LT_VERDICT_DEADLOCK);
	cr_expect(!strncmp(s.verdicts[0].summary, "deadlock: 3 threads in 2 processes", 34), "%s",
		  s.verdicts[0].summary);
	cr_expect(!has_line(&s.verdicts[0], "inferred", NULL));
	free_snap(&s);
}

/* Reads only: a client 100 reading its connection to server 200, whose
 * thread 201 reads the same connection and whose thread 202 waits on a
 * condition variable (a publisher that writes to clients when a message
 * comes): how an idle long-poll looks.  No lock, no full buffer: no
 * evidence of a deadlock, nothing claimed. */
Test(waitfor_verdicts, a_cycle_of_reads_and_inferences_only_is_not_claimed)
{
	struct lt_thread th[4];
	blocked(&th[0], 100, 0, LT_WAIT_IO);
	edge(&th[0], 100, LT_WF_SOCKET, 200, LT_WFP_BLOCKED);
	blocked(&th[1], 200, 43, LT_WAIT_IO);
	lt_waitfor_add(&th[1], 200, LT_WF_LISTEN)->what = strdup("listening tcp socket 127.0.0.1:80 (fd 3)");
	blocked(&th[2], 201, 0, LT_WAIT_IO);
	edge(&th[2], 200, LT_WF_SOCKET, 100, LT_WFP_BLOCKED);
	condvar_wait(&th[3], 202, 200, 0x4180);
	struct lt_snapshot s = { .pid = 100, .threads = th, .n_threads = 4 };
	cr_assert_eq(lt_snapshot_diagnose(&s, NULL), 0);
	for (size_t i = 0; i < s.n_verdicts; i++)
		cr_expect_neq(s.verdicts[i].kind, LT_VERDICT_DEADLOCK, "%s", s.verdicts[i].summary);
	free_snap(&s);
}

/* ---- socket timeouts (SO_RCVTIMEO, read by BPF) ---- */

/* Two processes each reading the other's end of a tcp connection (the
 * trial's tcp_timeo): 200 reads with SO_RCVTIMEO 20 s.  K: 0 its timeout
 * read: a deadlock until a timeout, "within" the timeout as the read's
 * start is not known; 1 it could not be read: a probable deadlock that
 * says the timeout is not known; 2 neither socket has one: a deadlock. */
static void sock_pair(struct lt_thread *th, int k)
{
	for (int i = 0; i < 2; i++) {
		pid_t me = i ? 200 : 100, peer = i ? 100 : 200;
		blocked(&th[i], me, 45, LT_WAIT_IO); /* recvfrom */
		th[i].fdw.io.fd = 4;
		th[i].fdw.io.kind = LT_FD_SOCKET;
		th[i].fdw.sock_timeo = LT_SOCK_TIMEO_NONE;
		struct lt_wf_edge *e = edge(&th[i], me, LT_WF_SOCKET, peer, LT_WFP_BLOCKED);
		free(e->what);
		e->what = strdup(i ? "tcp 127.0.0.1:5001 -> 127.0.0.1:5000 (fd 4)" : "tcp 127.0.0.1:5000 -> 127.0.0.1:5001 (fd 4)");
	}
	if (k == 0) {
		th[1].fdw.sock_timeo = LT_SOCK_TIMEO_SET;
		th[1].fdw.sock_timeo_ms = 20000;
	} else if (k == 1) {
		th[1].fdw.sock_timeo = LT_SOCK_TIMEO_UNKNOWN;
	}
}

/* The kernel's HZ, which turns a socket's timeout in jiffies into time,
 * from its configuration file as the kernel installs it: plain
 * (/boot/config-RELEASE) or gzip'd (/proc/config.gz); 0 when it says
 * none or cannot be read (the timeout's length is then said unknown). */
Test(socktimeo, kernel_hz_from_its_configuration)
{
	static const char cfg[] = "# Linux/x86 6.1.0 Kernel Configuration\nCONFIG_HZ_PERIODIC=y\n"
				  "# CONFIG_HZ_100 is not set\nCONFIG_HZ_250=y\nCONFIG_HZ=250\nCONFIG_HZ_FULL=n\n";
	char plain[200], gz[200];
	tl_tmp_path(plain, sizeof(plain), "kconfig");
	tl_tmp_path(gz, sizeof(gz), "kconfig-gz");
	FILE *f = fopen(plain, "w");
	cr_assert_not_null(f);
	fputs(cfg, f);
	fclose(f);
	gzFile g = gzopen(gz, "wb");
	cr_assert_not_null(g);
	static const char gzcfg[] = "CONFIG_HZ_1000=y\nCONFIG_HZ=1000\n";
	cr_assert_eq(gzputs(g, gzcfg), (int)strlen(gzcfg));
	gzclose(g);
	cr_expect_eq(lt_kconfig_hz(plain), 250);
	cr_expect_eq(lt_kconfig_hz(gz), 1000);
	f = fopen(plain, "w");
	fputs("CONFIG_HZ_250=y\n# CONFIG_HZ is not set\n", f);
	fclose(f);
	cr_expect_eq(lt_kconfig_hz(plain), 0, "no CONFIG_HZ line");
	unlink(plain);
	unlink(gz);
	cr_expect_eq(lt_kconfig_hz(plain), 0, "no file");
}

Test(waitfor_verdicts, a_socket_read_with_so_rcvtimeo_in_a_cycle_lasts_until_its_timeout)
{
	static const char *const want[3] = {
		"deadlock until a timeout: 2 threads in 2 processes wait for each other: 100 (t100) -> 200 (t200) -> "
		"100; thread 200 (t200) waits with a timeout (SO_RCVTIMEO 20.0 s on its socket: within 20.0 s, about "
		"15.0 s from now if the call began when the thread last ran)",
		"probable deadlock: 2 threads in 2 processes wait for each other: 100 (t100) -> 200 (t200) -> 100; "
		"whether the socket read or write of thread 200 (t200) has a timeout (SO_RCVTIMEO, SO_SNDTIMEO) is not "
		"known (not read: see the notes): it may end by itself",
		"deadlock: 2 threads in 2 processes wait for each other: 100 (t100) -> 200 (t200) -> 100",
	};
	for (int k = 0; k < 3; k++) {
		struct lt_thread th[2];
		sock_pair(th, k);
		struct lt_snapshot s = { .pid = 100, .threads = th, .n_threads = 2 };
		cr_assert_eq(lt_snapshot_diagnose(&s, NULL), 0);
		cr_assert_eq(s.verdicts[0].kind, LT_VERDICT_DEADLOCK, "case %d: %s", k, s.verdicts[0].summary);
		cr_expect_str_eq(s.verdicts[0].summary, want[k], "case %d", k);
		if (k == 0)
			cr_expect(has_line(&s.verdicts[0], "thread 200 (t200) waits with a timeout (SO_RCVTIMEO 20.0 s on "
					   "its socket: within 20.0 s", "the cycle lasts until then"));
		free_snap(&s);
	}
}

/* ---- signal waits that a child's SIGCHLD can end ---- */

#define SIGBIT(n) (1ULL << ((n) - 1))

/* The rule of lt_sigwait_ends, case by case: what ends rt_sigsuspend,
 * pause and rt_sigtimedwait, and what leaves it unknown. */
Test(waitfor_parse, which_signals_end_a_signal_wait)
{
	char why[200];
	/* timeout(1) as this kernel shows it: SigCgt 0x16007 (HUP INT QUIT
	 * ALRM TERM CHLD), SigIgn 0x300000 (TTIN TTOU), mask 0 */
	struct lt_sigwait w = { .nr = 130, .blocked_ok = true, .disp_ok = true, .blocked = 0,
				.caught = 0x16007, .ignored = 0x300000 };
	cr_expect_eq(lt_sigwait_ends(&w, 17, why, sizeof(why)), LT_SIG_END_YES, "%s", why);
	cr_expect(strstr(why, "SIGCHLD is caught"), "%s", why);
	cr_expect_eq(lt_sigwait_ends(&w, 14, why, sizeof(why)), LT_SIG_END_YES, "SIGALRM caught: %s", why);
	cr_expect_eq(lt_sigwait_ends(&w, 22, why, sizeof(why)), LT_SIG_END_NO, "SIGTTOU ignored: %s", why);
	/* SIGCHLD blocked by the mask the call passed */
	w.blocked = SIGBIT(17);
	cr_expect_eq(lt_sigwait_ends(&w, 17, why, sizeof(why)), LT_SIG_END_NO, "%s", why);
	cr_expect(strstr(why, "blocked during rt_sigsuspend"), "%s", why);
	/* SIGCHLD at its default action: discarded, it ends no sigsuspend */
	w.blocked = 0;
	w.caught = 0;
	cr_expect_eq(lt_sigwait_ends(&w, 17, why, sizeof(why)), LT_SIG_END_NO, "%s", why);
	cr_expect(strstr(why, "discards"), "%s", why);
	/* but SIGALRM's default kills the process: the wait ends */
	cr_expect_eq(lt_sigwait_ends(&w, 14, why, sizeof(why)), LT_SIG_END_YES, "%s", why);
	/* and a stop signal stops it: the wait goes on */
	cr_expect_eq(lt_sigwait_ends(&w, 20, why, sizeof(why)), LT_SIG_END_NO, "%s", why);
	/* SIGCHLD ignored: the kernel sends none */
	w.caught = SIGBIT(17);
	w.ignored = SIGBIT(17);
	cr_expect_eq(lt_sigwait_ends(&w, 17, why, sizeof(why)), LT_SIG_END_NO, "%s", why);
	/* the mask unread: not known, never yes or no */
	w.ignored = 0;
	w.blocked_ok = false;
	cr_expect_eq(lt_sigwait_ends(&w, 17, why, sizeof(why)), LT_SIG_END_MAYBE, "%s", why);
	cr_expect(strstr(why, "could not be read"), "%s", why);
	w.blocked_ok = true;
	w.disp_ok = false;
	cr_expect_eq(lt_sigwait_ends(&w, 17, why, sizeof(why)), LT_SIG_END_MAYBE, "%s", why);

	/* pause: what the thread blocks (SigBlk) */
	struct lt_sigwait p = { .nr = 34, .blocked_ok = true, .disp_ok = true, .caught = SIGBIT(17) };
	cr_expect_eq(lt_sigwait_ends(&p, 17, why, sizeof(why)), LT_SIG_END_YES, "%s", why);
	p.blocked = SIGBIT(17);
	cr_expect_eq(lt_sigwait_ends(&p, 17, why, sizeof(why)), LT_SIG_END_NO, "%s", why);

	/* sigwaitinfo / rt_sigtimedwait: SIGCHLD in its set (blocked before
	 * the call, as it must be: SigBlk then shows it taken out), caught or not */
	struct lt_sigwait t = { .nr = 128, .set_ok = true, .set = SIGBIT(17), .blocked_ok = true,
				.blocked = SIGBIT(10), .disp_ok = true };
	cr_expect_eq(lt_sigwait_ends(&t, 17, why, sizeof(why)), LT_SIG_END_YES, "%s", why);
	cr_expect(strstr(why, "in the set rt_sigtimedwait waits for"), "%s", why);
	/* not in the set: blocked (SigBlk) ends nothing */
	t.set = SIGBIT(10);
	t.blocked = SIGBIT(17);
	cr_expect_eq(lt_sigwait_ends(&t, 17, why, sizeof(why)), LT_SIG_END_NO, "%s", why);
	/* the set unread */
	t.set_ok = false;
	cr_expect_eq(lt_sigwait_ends(&t, 17, why, sizeof(why)), LT_SIG_END_MAYBE, "%s", why);
}

Test(waitfor_parse, proc_timers_and_status_masks)
{
	/* /proc/PID/timers of timeout(1) on this kernel, and a glibc
	 * SIGEV_THREAD timer (its helper thread gets SIGRTMIN) */
	const char *txt = "ID: 0\nsignal: 14/0000000000000000\nnotify: signal/pid.14693\nClockID: 0\n"
			  "ID: 1\nsignal: 32/00007f0000001000\nnotify: signal/tid.14700\nClockID: 1\n"
			  "ID: 2\nsignal: 0/0000000000000000\nnotify: none/pid.14693\nClockID: 1\n";
	struct lt_ptimer tm[4];
	cr_assert_eq(lt_parse_proc_timers(txt, tm, 4), 3);
	cr_expect_eq(tm[0].id, 0);
	cr_expect_eq(tm[0].signo, 14);
	cr_expect(tm[0].signal && !tm[0].to_thread);
	cr_expect_eq(tm[0].target, 14693);
	cr_expect_eq(tm[0].clock, 0);
	cr_expect_eq(tm[1].signo, 32);
	cr_expect(tm[1].signal && tm[1].to_thread);
	cr_expect_eq(tm[1].target, 14700);
	cr_expect_eq(tm[1].clock, 1);
	cr_expect(!tm[2].signal, "notify none: no signal");
	cr_expect_eq(lt_parse_proc_timers(txt, tm, 1), 1, "bounded by max");

	const char *st = "Name:\ttimeout\nSigQ:\t1/96367\nSigPnd:\t0000000000000000\nShdPnd:\t0000000000000000\n"
			 "SigBlk:\t0000000000010000\nSigIgn:\t0000000000300000\nSigCgt:\t0000000000016007\n";
	uint64_t v = 0;
	cr_expect_eq(lt_status_sigmask(st, "SigBlk:", &v), 0);
	cr_expect_eq(v, 0x10000);
	cr_expect_eq(lt_status_sigmask(st, "SigCgt:", &v), 0);
	cr_expect_eq(v, 0x16007);
	cr_expect_eq(lt_status_sigmask(st, "SigIgn:", &v), 0);
	cr_expect_eq(v, 0x300000);
	cr_expect_eq(lt_status_sigmask("Name:\tx\n", "SigBlk:", &v), -1);
	char nb[24];
	cr_expect_str_eq(lt_signal_name(17, nb, sizeof(nb)), "SIGCHLD");
	cr_expect_str_eq(lt_signal_name(34, nb, sizeof(nb)), "SIGRTMIN+2");
}

/* timeout(1) (100) in rt_sigsuspend, its SIGCHLD edge into its child
 * flock(1) (200), which waits for a file lock held by 300 (asleep on a
 * timer): the child's lock wait, and a wait chain of 100 into it; with
 * the timer whose signal can end 100's wait, said as such. */
static void sigsuspend_parent(struct lt_thread *t, pid_t child, enum lt_wf_pstate ps, bool timer, bool maybe)
{
	blocked(t, 100, 130, LT_WAIT_SIGNAL);
	struct lt_wf_edge *e = edge(t, 100, maybe ? LT_WF_UNKNOWN : LT_WF_CHILD, child, ps);
	free(e->what);
	e->what = strdup(maybe ? LT_WF_MAYBE_CHILD "any child (rt_sigsuspend)" : LT_WF_SIGCHLD "any child (rt_sigsuspend)");
	e->doing = strdup("200 (flock): flock");
	if (timer) {
		struct lt_wf_edge *te = lt_waitfor_add(t, 100, LT_WF_TIMER);
		te->what = strdup(LT_WF_SIGTIMER "POSIX timer 0 (timer_create, CLOCK_REALTIME, SIGALRM), if it is armed");
	}
}

static void flock_child(struct lt_thread *t, pid_t holder, enum lt_wf_pstate ps)
{
	blocked(t, 200, 73, LT_WAIT_IO);
	struct lt_wf_edge *e = edge(t, 200, LT_WF_FILE_LOCK, holder, ps);
	free(e->what);
	e->what = strdup("FLOCK WRITE lock on /tmp/l");
	e->doing = strdup(holder == 100 ? "100 (timeout): rt_sigsuspend" : "300 (flock): wait4");
}

static const struct lt_verdict *verdict_of(const struct lt_snapshot *s, enum lt_verdict_kind k, pid_t tid)
{
	for (size_t i = 0; i < s->n_verdicts; i++)
		for (size_t j = 0; s->verdicts[i].kind == k && j < s->verdicts[i].n_tids; j++)
			if (s->verdicts[i].tids[j] == tid)
				return &s->verdicts[i];
	return NULL;
}

/* A chain into a chain: process 100 waits for its child 150 (a shell),
 * which waits for its child 200, in a lock wait whose holder 300 sleeps on
 * a timer (none of them stuck for ever: no chain by the rules).  200's
 * LOCK WAIT; 150 a wait chain into it; 100 a wait chain into 150's (it had
 * none: script(1) running `sh -c 'flock ...'`). */
Test(waitfor_verdicts, a_wait_for_a_process_in_a_wait_chain_is_a_wait_chain_too)
{
	struct lt_thread th[3];
	blocked(&th[0], 100, 61, LT_WAIT_CHILD);
	struct lt_wf_edge *e = edge(&th[0], 100, LT_WF_CHILD, 150, LT_WFP_BLOCKED);
	free(e->what);
	e->what = strdup("child 150");
	blocked(&th[1], 150, 61, LT_WAIT_CHILD);
	e = edge(&th[1], 150, LT_WF_CHILD, 200, LT_WFP_BLOCKED);
	free(e->what);
	e->what = strdup("child 200");
	flock_child(&th[2], 300, LT_WFP_TIMED);
	struct lt_snapshot s = { .pid = 100, .threads = th, .n_threads = 3 };
	cr_assert_eq(lt_snapshot_diagnose(&s, NULL), 0);
	cr_assert_not_null(verdict_of(&s, LT_VERDICT_LOCK_WAIT, 200), "first: %s", s.verdicts[0].summary);
	const struct lt_verdict *c150 = verdict_of(&s, LT_VERDICT_WAIT_CHAIN, 150);
	cr_assert_not_null(c150, "the shell's chain (first: %s)", s.verdicts[0].summary);
	cr_expect(strstr(c150->summary, "waits for process 200, whose thread 200 (t200) is itself in a lock wait"), "%s",
		  c150->summary);
	const struct lt_verdict *c100 = verdict_of(&s, LT_VERDICT_WAIT_CHAIN, 100);
	cr_assert_not_null(c100, "no chain of 100 into the shell's chain");
	cr_expect(strstr(c100->summary, "waits for process 150, whose thread 150 (t150) is itself in a wait chain: thread "
				       "150 (t150)"), "%s", c100->summary);
	for (size_t i = 0; i < s.n_verdicts; i++)
		cr_expect(s.verdicts[i].kind != LT_VERDICT_DEADLOCK, "%s", s.verdicts[i].summary);
	free_snap(&s);
}

Test(waitfor_verdicts, a_signal_wait_for_a_child_in_a_lock_wait_is_a_wait_chain_with_its_timer_said)
{
	struct lt_thread th[2];
	sigsuspend_parent(&th[0], 200, LT_WFP_BLOCKED, true, false);
	flock_child(&th[1], 300, LT_WFP_TIMED);
	struct lt_snapshot s = { .pid = 100, .threads = th, .n_threads = 2 };
	cr_assert_eq(lt_snapshot_diagnose(&s, NULL), 0);
	const struct lt_verdict *lw = verdict_of(&s, LT_VERDICT_LOCK_WAIT, 200);
	cr_assert_not_null(lw, "the child's lock wait");
	cr_expect_eq(lw->owner, 300);
	const struct lt_verdict *ch = verdict_of(&s, LT_VERDICT_WAIT_CHAIN, 100);
	cr_assert_not_null(ch, "a wait chain of the parent in rt_sigsuspend (first: %s)", s.verdicts[0].summary);
	cr_expect(strstr(ch->summary, "waits for process 200") && strstr(ch->summary, "in a lock wait"), "%s",
		  ch->summary);
	cr_expect(strstr(ch->summary, "or by a timer: the signal of POSIX timer 0") &&
		  strstr(ch->summary, "when it fires, is not known"), "%s", ch->summary);
	cr_expect(!strstr(ch->summary, "inferred"), "nothing inferred: %s", ch->summary);
	cr_expect(!verdict_of(&s, LT_VERDICT_IDLE, 100), "not IDLE");
	free_snap(&s);
}

/* The mask unread: the same chain, said as an inference. */
Test(waitfor_verdicts, a_signal_wait_whose_mask_is_unread_is_a_chain_said_as_inferred)
{
	struct lt_thread th[2];
	sigsuspend_parent(&th[0], 200, LT_WFP_BLOCKED, false, true);
	flock_child(&th[1], 300, LT_WFP_TIMED);
	struct lt_snapshot s = { .pid = 100, .threads = th, .n_threads = 2 };
	cr_assert_eq(lt_snapshot_diagnose(&s, NULL), 0);
	const struct lt_verdict *ch = verdict_of(&s, LT_VERDICT_WAIT_CHAIN, 100);
	cr_assert_not_null(ch, "a wait chain (first: %s)", s.verdicts[0].summary);
	cr_expect(strstr(ch->summary, "perhaps (inferred)") &&
		  strstr(ch->summary, "that its wait is for its child is inferred"), "%s", ch->summary);
	free_snap(&s);

	/* its child asleep on a timer: IDLE, but never "none for anything
	 * stuck": the wait may be for the child (inferred) */
	struct lt_thread t1[1];
	sigsuspend_parent(&t1[0], 201, LT_WFP_TIMED, false, true);
	struct lt_snapshot s1 = { .pid = 100, .threads = t1, .n_threads = 1 };
	cr_assert_eq(lt_snapshot_diagnose(&s1, NULL), 0);
	cr_assert_eq(s1.verdicts[0].kind, LT_VERDICT_IDLE, "%s", s1.verdicts[0].summary);
	cr_expect(strstr(s1.verdicts[0].summary, "none known to be stuck") &&
		  strstr(s1.verdicts[0].summary, "1 signal wait that may be for a child (inferred"), "%s",
		  s1.verdicts[0].summary);
	free_snap(&s1);
}

/* The child waits for a lock its parent holds (the parent in
 * rt_sigsuspend for it): a deadlock when no timer can end the parent's
 * wait, never one when a timer can (it says so instead). */
Test(waitfor_verdicts, a_signal_wait_in_a_cycle_is_a_deadlock_only_without_a_timer)
{
	struct lt_thread th[2];
	sigsuspend_parent(&th[0], 200, LT_WFP_BLOCKED, false, false);
	flock_child(&th[1], 100, LT_WFP_BLOCKED);
	struct lt_snapshot s = { .pid = 100, .threads = th, .n_threads = 2 };
	cr_assert_eq(lt_snapshot_diagnose(&s, NULL), 0);
	cr_expect_eq(s.verdicts[0].kind, LT_VERDICT_DEADLOCK, "%s", s.verdicts[0].summary);
	free_snap(&s);

	struct lt_thread t2[2];
	sigsuspend_parent(&t2[0], 200, LT_WFP_BLOCKED, true, false);
	flock_child(&t2[1], 100, LT_WFP_BLOCKED);
	struct lt_snapshot s2 = { .pid = 100, .threads = t2, .n_threads = 2 };
	cr_assert_eq(lt_snapshot_diagnose(&s2, NULL), 0);
	for (size_t i = 0; i < s2.n_verdicts; i++)
		cr_expect(s2.verdicts[i].kind != LT_VERDICT_DEADLOCK, "no deadlock with a timer: %s",
			  s2.verdicts[i].summary);
	const struct lt_verdict *ch = verdict_of(&s2, LT_VERDICT_WAIT_CHAIN, 100);
	cr_assert_not_null(ch, "the parent's chain (first: %s)", s2.verdicts[0].summary);
	cr_expect(strstr(ch->summary, "or by a timer") && strstr(ch->summary, "no deadlock is claimed"), "%s",
		  ch->summary);
	free_snap(&s2);
}

/* util-linux flock -w: thread TID of process TID in flock() for a lock
 * held by HOLDER (PS), with (TIMER 1) the SIGALRM POSIX timer flock(1)
 * arms, as waitfor.c's lock_timer_edges reads it, or (TIMER 2) SIGALRM
 * caught with no POSIX timer: an alarm possibly armed. */
static void flock_w(struct lt_thread *t, pid_t tid, pid_t holder, enum lt_wf_pstate ps, int timer)
{
	blocked(t, tid, 73, LT_WAIT_IO);
	struct lt_wf_edge *e = edge(t, tid, LT_WF_FILE_LOCK, holder, ps);
	free(e->what);
	e->what = strdup(holder == 100 ? "FLOCK WRITE lock on /tmp/a" : "FLOCK WRITE lock on /tmp/b");
	e->doing = strdup("flock");
	if (!timer)
		return;
	struct lt_wf_edge *te = lt_waitfor_add(t, tid, LT_WF_TIMER);
	te->what = strdup(timer == 1 ? LT_WF_SIGTIMER "POSIX timer 0 (timer_create, CLOCK_MONOTONIC, SIGALRM), if it is armed"
				     : LT_WF_SIGTIMER "an alarm() or setitimer(ITIMER_REAL) timer (SIGALRM), if one is armed");
	te->evidence = strdup("not known");
}

/* Two flock -w (100, 200) each waiting for the lock the other holds: the
 * cycle is found through their timers, a deadlock that lasts until a
 * timer ends it, said with the timers, never a plain deadlock nor IDLE;
 * with no timer, a plain deadlock. */
Test(waitfor_verdicts, a_file_lock_cycle_whose_waits_a_timer_may_interrupt_is_a_deadlock_unless_it_fires)
{
	struct lt_thread th[2];
	flock_w(&th[0], 100, 200, LT_WFP_BLOCKED, 1);
	flock_w(&th[1], 200, 100, LT_WFP_BLOCKED, 1);
	struct lt_snapshot s = { .pid = 100, .threads = th, .n_threads = 2 };
	cr_assert_eq(lt_snapshot_diagnose(&s, NULL), 0);
	cr_assert_gt(s.n_verdicts, 0);
	const struct lt_verdict *v = &s.verdicts[0];
	cr_assert_eq(v->kind, LT_VERDICT_DEADLOCK, "%s", v->summary);
	cr_expect_eq(v->n_tids, 2);
	static const char pre[] = "deadlock unless a timer ends it: 2 threads in 2 processes wait for each other: "
				  "100 (t100) -> 200 (t200) -> 100; ";
	cr_expect(!strncmp(v->summary, pre, sizeof(pre) - 1), "%s", v->summary);
	cr_expect(strstr(v->summary, "; a timer may end the wait of thread 100 (t100) first: the signal of POSIX timer 0 "
				     "(timer_create, CLOCK_MONOTONIC, SIGALRM), if it is armed, would interrupt its "
				     "flock() (whether it is armed, when it fires, and whether the program then gives up, "
				     "are not known); a timer may end that of thread 200 (t200) too"), "%s", v->summary);
	size_t lines = 0;
	for (size_t i = 0; i < v->evidence.n; i++)
		lines += strstr(v->evidence.v[i], "may be let go by a timer, its lock call interrupted: timer: the "
						       "signal of POSIX timer 0") != NULL;
	cr_expect_eq(lines, 2, "an evidence line for each thread's timer");
	for (size_t i = 0; i < s.n_verdicts; i++)
		cr_expect(s.verdicts[i].kind != LT_VERDICT_IDLE, "never IDLE: %s", s.verdicts[i].summary);
	free_snap(&s);

	/* one of them with an alarm possibly armed only, the other none */
	struct lt_thread t1[2];
	flock_w(&t1[0], 100, 200, LT_WFP_BLOCKED, 0);
	flock_w(&t1[1], 200, 100, LT_WFP_BLOCKED, 2);
	struct lt_snapshot s1 = { .pid = 100, .threads = t1, .n_threads = 2 };
	cr_assert_eq(lt_snapshot_diagnose(&s1, NULL), 0);
	v = &s1.verdicts[0];
	cr_assert_eq(v->kind, LT_VERDICT_DEADLOCK, "%s", v->summary);
	cr_expect(!strncmp(v->summary, "deadlock unless a timer ends it: ", sizeof("deadlock unless a timer ends it: ") - 1),
		  "%s", v->summary);
	cr_expect(strstr(v->summary, "; a timer may end the wait of thread 200 (t200) first: the signal of an alarm() or "
				     "setitimer(ITIMER_REAL) timer (SIGALRM), if one is armed, would interrupt its flock() "
				     "(whether one is armed,") && !strstr(v->summary, "too"), "%s", v->summary);
	free_snap(&s1);

	/* no timer: a plain deadlock */
	struct lt_thread t2[2];
	flock_w(&t2[0], 100, 200, LT_WFP_BLOCKED, 0);
	flock_w(&t2[1], 200, 100, LT_WFP_BLOCKED, 0);
	struct lt_snapshot s2 = { .pid = 100, .threads = t2, .n_threads = 2 };
	cr_assert_eq(lt_snapshot_diagnose(&s2, NULL), 0);
	cr_assert_eq(s2.verdicts[0].kind, LT_VERDICT_DEADLOCK, "%s", s2.verdicts[0].summary);
	cr_expect(!strncmp(s2.verdicts[0].summary, "deadlock: 2 threads", sizeof("deadlock: 2 threads") - 1) &&
		  !strstr(s2.verdicts[0].summary, "timer"), "%s", s2.verdicts[0].summary);
	free_snap(&s2);
}

/* A lone flock -w whose holder 300 is blocked elsewhere: a lock wait held
 * by 300 that its timer may end first (said), not IDLE; without the timer
 * the same lock wait says no timer. */
Test(waitfor_verdicts, a_file_lock_wait_a_timer_may_interrupt_is_a_lock_wait_that_says_so)
{
	struct lt_thread th[1];
	flock_w(&th[0], 100, 300, LT_WFP_BLOCKED, 1);
	struct lt_snapshot s = { .pid = 100, .threads = th, .n_threads = 1 };
	cr_assert_eq(lt_snapshot_diagnose(&s, NULL), 0);
	const struct lt_verdict *lw = verdict_of(&s, LT_VERDICT_LOCK_WAIT, 100);
	cr_assert_not_null(lw, "a lock wait (first: %s)", s.verdicts[0].summary);
	cr_expect_eq(lw->owner, 300);
	cr_expect(strstr(lw->summary, "thread 100 (t100) waits for a file lock: FLOCK WRITE lock on /tmp/b, held by "
				      "process 300") &&
		  strstr(lw->summary, "; a timer may end the wait first: the signal of POSIX timer 0 (timer_create, "
				      "CLOCK_MONOTONIC, SIGALRM), if it is armed, would interrupt its flock() (whether it "
				      "is armed, when it fires, and whether the program then gives up, are not known)"),
		  "%s", lw->summary);
	bool line = false;
	for (size_t i = 0; i < lw->evidence.n; i++)
		line |= strstr(lw->evidence.v[i], "timer: the signal of POSIX timer 0") != NULL;
	cr_expect(line, "the timer's edge in the evidence");
	for (size_t i = 0; i < s.n_verdicts; i++)
		cr_expect(s.verdicts[i].kind != LT_VERDICT_IDLE && s.verdicts[i].kind != LT_VERDICT_DEADLOCK, "%s",
			  s.verdicts[i].summary);
	free_snap(&s);

	/* the holder asleep on a timer: a lock wait still, never IDLE */
	struct lt_thread t1[1];
	flock_w(&t1[0], 100, 300, LT_WFP_TIMED, 2);
	struct lt_snapshot s1 = { .pid = 100, .threads = t1, .n_threads = 1 };
	cr_assert_eq(lt_snapshot_diagnose(&s1, NULL), 0);
	lw = verdict_of(&s1, LT_VERDICT_LOCK_WAIT, 100);
	cr_assert_not_null(lw, "a lock wait (first: %s)", s1.verdicts[0].summary);
	cr_expect(strstr(lw->summary, "; a timer may end the wait first: the signal of an alarm()"), "%s", lw->summary);
	cr_expect(!verdict_of(&s1, LT_VERDICT_IDLE, 100), "not IDLE");
	free_snap(&s1);

	struct lt_thread t2[1];
	flock_w(&t2[0], 100, 300, LT_WFP_BLOCKED, 0);
	struct lt_snapshot s2 = { .pid = 100, .threads = t2, .n_threads = 1 };
	cr_assert_eq(lt_snapshot_diagnose(&s2, NULL), 0);
	lw = verdict_of(&s2, LT_VERDICT_LOCK_WAIT, 100);
	cr_assert_not_null(lw);
	cr_expect(!strstr(lw->summary, "timer"), "%s", lw->summary);
	free_snap(&s2);
}

/* flock(1) -w 300 as lock_timer_edges reads it: its SIGALRM timer armed
 * (inferred from its way), 290 s left at most: a cycle of two is a
 * "deadlock until a timeout" within 290 s (no "may end" of a timer whose
 * end is known); a lone one a lock wait whose timer ends it within 290 s. */
static void flock1_known(struct lt_thread *t, pid_t tid, pid_t holder)
{
	flock_w(t, tid, holder, LT_WFP_BLOCKED, 1);
	struct lt_wf_edge *te = &t->wf->edges[1];
	free(te->what);
	te->what = strdup(LT_WF_SIGTIMER "POSIX timer 0 (timer_create, CLOCK_MONOTONIC, SIGALRM), armed by flock(1) -w 300 "
					 "(inferred)");
	snprintf(te->timeout_what, sizeof(te->timeout_what), "flock(1) -w");
	te->timeout_s = 300;
	te->timeout_left_s = tid == 100 ? 290 : 295;
}

Test(waitfor_verdicts, flock1_w_in_a_cycle_is_a_deadlock_until_its_timeout)
{
	struct lt_thread th[2];
	flock1_known(&th[0], 100, 200);
	flock1_known(&th[1], 200, 100);
	struct lt_snapshot s = { .pid = 100, .threads = th, .n_threads = 2 };
	cr_assert_eq(lt_snapshot_diagnose(&s, NULL), 0);
	const struct lt_verdict *v = &s.verdicts[0];
	cr_assert_eq(v->kind, LT_VERDICT_DEADLOCK, "%s", v->summary);
	static const char pre[] = "deadlock until a timeout: 2 threads in 2 processes wait for each other: ";
	cr_expect(!strncmp(v->summary, pre, sizeof(pre) - 1), "%s", v->summary);
	cr_expect(strstr(v->summary, "; thread 100 (t100) waits with a timeout (flock(1) -w 300.0 s: its timer interrupts "
				     "flock(1)'s flock(), which then gives up within 290.0 s)") &&
		  !strstr(v->summary, "a timer may end"), "%s", v->summary);
	cr_expect(tl_strlist_has(&v->evidence, "thread 200 (t200) is let go by a timer, its lock call interrupted: timer: "
					       "the signal of POSIX timer 0 (timer_create, CLOCK_MONOTONIC, SIGALRM), armed "
					       "by flock(1) -w 300 (inferred)"), "the timer's evidence");
	free_snap(&s);

	struct lt_thread t1[1];
	flock1_known(&t1[0], 100, 300);
	struct lt_snapshot s1 = { .pid = 100, .threads = t1, .n_threads = 1 };
	cr_assert_eq(lt_snapshot_diagnose(&s1, NULL), 0);
	const struct lt_verdict *lw = verdict_of(&s1, LT_VERDICT_LOCK_WAIT, 100);
	cr_assert_not_null(lw, "a lock wait (first: %s)", s1.verdicts[0].summary);
	cr_expect(strstr(lw->summary, "; its timer (flock(1) -w 300.0 s) ends the wait within 290.0 s (inferred: see the "
				      "evidence)") && !strstr(lw->summary, "a timer may end"), "%s", lw->summary);
	free_snap(&s1);
}

/* util-linux flock(1)'s -w from its command line. */
Test(waitfor_parse, flock1_wait_from_its_command_line)
{
#define CL(lit) lt_flock1_wait(lit, sizeof(lit) - 1)
	cr_expect_float_eq(CL("flock\0" "-w\0" "300\0" "/tmp/a\0" "true\0"), 300.0, 1e-9);
	cr_expect_float_eq(CL("flock\0" "-w300\0" "/tmp/a\0" "true\0"), 300.0, 1e-9);
	cr_expect_float_eq(CL("flock\0" "-xw\0" "2.5\0" "9\0"), 2.5, 1e-9);
	cr_expect_float_eq(CL("flock\0" "-E\0" "3\0" "--wait=10\0" "/tmp/a\0" "-c\0" "x\0"), 10.0, 1e-9);
	cr_expect_float_eq(CL("flock\0" "--timeout\0" "7\0" "--verbose\0" "/tmp/a\0" "x\0"), 7.0, 1e-9);
	cr_expect_float_eq(CL("flock\0" "-s\0" "--\0" "-w\0" "5\0"), -1, 1e-9);      /* after --: its file */
	cr_expect_float_eq(CL("flock\0" "/tmp/a\0" "-w\0" "5\0" "x\0"), -1, 1e-9);  /* the command's -w */
	cr_expect_float_eq(CL("flock\0" "-w\0" "0\0" "/tmp/a\0" "x\0"), 0.0, 1e-9); /* does not wait */
	cr_expect_lt(CL("flock\0" "/tmp/a\0" "true\0"), 0);                         /* no -w */
	cr_expect_lt(CL("flock\0" "-w\0" "1m\0" "/tmp/a\0" "x\0"), 0);            /* not its syntax */
	cr_expect_lt(CL("flock\0" "--wai\0" "5\0" "/tmp/a\0" "x\0"), 0);          /* abbreviated: not read */
	cr_expect_lt(CL("flock\0" "-q\0" "-w\0" "5\0" "/tmp/a\0"), 0);             /* an option not known */
	cr_expect_lt(CL("flock\0" "-w\0"), 0);                                       /* no value */
	cr_expect_lt(CL("flock\0" "-w\0" "30"), 0);                                  /* cut */
#undef CL
}

/* coreutils tail(1)'s --pid from its command line: only when it follows
 * (-f, -F, --follow), with its sleep interval. */
Test(waitfor_parse, tail1_pid_from_its_command_line)
{
	double iv = -1;
#define CL(lit) lt_tail1_pid(lit, sizeof(lit) - 1, &iv)
	cr_expect_eq(CL("tail\0" "-f\0" "--pid=812\0" "/tmp/f\0"), 812);
	cr_expect_float_eq(iv, 1.0, 1e-9); /* its default */
	cr_expect_eq(CL("tail\0" "--pid\0" "812\0" "-s\0" "0.5\0" "-f\0" "/tmp/f\0"), 812);
	cr_expect_float_eq(iv, 0.5, 1e-9);
	cr_expect_eq(CL("tail\0" "/tmp/f\0" "-fn5\0" "--pi=77\0"), 77);    /* after a file; abbreviated */
	cr_expect_eq(CL("tail\0" "-F\0" "-s5\0" "--pid=9\0" "--pid=10\0" "x\0"), 10); /* the last one */
	cr_expect_float_eq(iv, 5.0, 1e-9);
	cr_expect_eq(CL("tail\0" "--follow=name\0" "--sleep-interval=2\0" "--pid=3\0" "x\0"), 3);
	cr_expect_float_eq(iv, 2.0, 1e-9);
	cr_expect_eq(CL("tail\0" "-n\0" "-f\0" "--pid=3\0" "x\0"), 0);      /* -n's value, not -f */
	cr_expect_eq(CL("tail\0" "--pid=3\0" "x\0"), 0);                       /* not following: no wait */
	cr_expect_eq(CL("tail\0" "-f\0" "x\0"), 0);                            /* no --pid */
	cr_expect_eq(CL("tail\0" "-f\0" "--\0" "--pid=3\0"), 0);            /* after --: a file */
	cr_expect_lt(CL("tail\0" "-f\0" "--pid=x3\0" "y\0"), 0);             /* not a pid */
	cr_expect_lt(CL("tail\0" "-f\0" "--frob\0" "--pid=3\0"), 0);        /* an option not known */
	cr_expect_lt(CL("tail\0" "-fk\0" "--pid=3\0"), 0);
	cr_expect_lt(CL("tail\0" "-f\0" "--pid=3"), 0);                        /* cut */
#undef CL
}

/* What ends a file-lock wait: a caught signal not blocked (the call is
 * interrupted), said for flock and fcntl. */
Test(waitfor_parse, a_caught_signal_interrupts_a_file_lock_wait)
{
	char why[200];
	struct lt_sigwait w = { .nr = 73, .blocked_ok = true, .disp_ok = true, .caught = 1ULL << 13 };
	cr_expect_eq(lt_sigwait_ends(&w, 14, why, sizeof(why)), LT_SIG_END_YES, "%s", why);
	cr_expect_str_eq(why, "SIGALRM is caught (SigCgt) and not blocked during flock");
	w.nr = 72;
	w.blocked = 1ULL << 13;
	cr_expect_eq(lt_sigwait_ends(&w, 14, why, sizeof(why)), LT_SIG_END_NO, "%s", why);
	cr_expect_str_eq(why, "SIGALRM is blocked during fcntl (SigBlk)");
}

/* coreutils' timeout(1): its DURATION after its options, with the
 * suffixes it takes; -1 for what it would not run as. */
Test(waitfor_parse, timeout1_duration_from_its_command_line)
{
#define CL(lit) lt_timeout1_duration(lit, sizeof(lit) - 1)
	cr_expect_float_eq(CL("timeout\0" "100\0" "flock\0" "/tmp/l\0" "true\0"), 100.0, 1e-9);
	cr_expect_float_eq(CL("timeout\0" "1.5m\0" "sleep\0" "9\0"), 90.0, 1e-9);
	cr_expect_float_eq(CL("timeout\0" "2h\0" "x\0"), 7200.0, 1e-9);
	cr_expect_float_eq(CL("timeout\0" "1d\0" "x\0"), 86400.0, 1e-9);
	cr_expect_float_eq(CL("timeout\0" "-s\0" "KILL\0" "30s\0" "x\0"), 30.0, 1e-9);
	cr_expect_float_eq(CL("timeout\0" "-sKILL\0" "30\0" "x\0"), 30.0, 1e-9);
	cr_expect_float_eq(CL("timeout\0" "-k\0" "5\0" "--foreground\0" "12\0" "x\0"), 12.0, 1e-9);
	cr_expect_float_eq(CL("timeout\0" "-vk5\0" "12\0" "x\0"), 12.0, 1e-9);
	cr_expect_float_eq(CL("timeout\0" "--signal=TERM\0" "--kill-after=1m\0" "7\0" "x\0"), 7.0, 1e-9);
	cr_expect_float_eq(CL("timeout\0" "--signal\0" "TERM\0" "7\0" "x\0"), 7.0, 1e-9);
	cr_expect_float_eq(CL("timeout\0" "--\0" "7\0" "x\0"), 7.0, 1e-9);
	cr_expect_float_eq(CL("timeout\0" "0\0" "x\0"), 0.0, 1e-9);   /* no timeout */
	cr_expect_lt(CL("timeout\0" "100\0"), 0);                      /* no command */
	cr_expect_lt(CL("timeout\0" "10x\0" "y\0"), 0);               /* not a duration */
	cr_expect_lt(CL("timeout\0" "--frobnicate\0" "10\0" "y\0"), 0); /* an option not known */
	cr_expect_lt(CL("timeout\0" "-z\0" "10\0" "y\0"), 0);
	cr_expect_lt(CL("timeout\0" "100\0" "cut"), 0);               /* the last argument cut */
	cr_expect_lt(lt_timeout1_duration("", 0), 0);
#undef CL
}

/* An event loop (thread 100) waits on a socket whose peer process 200 is
 * stuck, and on its own wake-up fds: a pipe and an eventfd only its own
 * process holds (libuv's signal pipe and async eventfd: Node's execSync
 * on a stuck child).  Its other thread 101 sleeps in a futex wait with no
 * timeout, so none of its own can write them: a wait chain, the own fds
 * said and the inference marked.  With 101 on a timer (it could write
 * them) or with no stuck party (an idle loop) there is no chain. */
static void event_loop(struct lt_thread th[3], bool timed_other, bool stuck_peer, bool peer_shared)
{
	blocked(&th[0], 100, 232, LT_WAIT_POLL);
	struct lt_wf_edge *e = edge(&th[0], 100, LT_WF_UNKNOWN, 0, LT_WFP_UNKNOWN);
	free(e->what);
	e->what = strdup("eventfd (eventfd-id 4, fd 21)");
	edge(&th[0], 100, LT_WF_PIPE_READ, 100, LT_WFP_EVENTS);
	if (stuck_peer)
		edge(&th[0], 100, LT_WF_SOCKET, 200, LT_WFP_BLOCKED);
	blocked(&th[1], 101, 202, LT_WAIT_FUTEX);
	th[1].futex.is_wait = true;
	th[1].futex.timeout_ptr = timed_other ? 0x7ff000 : 0;
	/* the peer's one thread asleep for good on a futex of its own (a
	 * private one); on a shared one another process may wake it */
	blocked(&th[2], 200, 202, LT_WAIT_FUTEX);
	th[2].futex.is_wait = true;
	th[2].futex.private_ = !peer_shared;
	th[2].wf = calloc(1, sizeof(*th[2].wf));
	th[2].wf->pid = 200;
}

static const struct lt_verdict *chain_of(const struct lt_snapshot *s, pid_t tid)
{
	for (size_t i = 0; i < s->n_verdicts; i++)
		if (s->verdicts[i].kind == LT_VERDICT_WAIT_CHAIN && s->verdicts[i].n_tids &&
		    s->verdicts[i].tids[0] == tid)
			return &s->verdicts[i];
	return NULL;
}

Test(waitfor_verdicts, event_loop_on_a_stuck_peer_and_its_own_wake_fds_is_a_chain)
{
	struct lt_thread th[3];
	event_loop(th, false, true, false);
	struct lt_snapshot s = { .pid = 100, .threads = th, .n_threads = 3 };
	cr_assert_eq(lt_snapshot_diagnose(&s, NULL), 0);
	const struct lt_verdict *v = chain_of(&s, 100);
	cr_assert_not_null(v, "no wait chain of the event loop: %s", s.n_verdicts ? s.verdicts[0].summary : "");
	cr_expect(strstr(v->summary, "waits for process 200") && strstr(v->summary, "can end it only by progress"),
		  "%s", v->summary);
	cr_expect(strstr(v->summary, "its other fds, a pipe and an eventfd only its own process 100 holds (an event "
				     "loop's wake-up), none of its threads can write now") &&
		  strstr(v->summary, "is inferred"), "%s", v->summary);
	free_snap(&s);
}

Test(waitfor_verdicts, event_loop_whose_other_thread_is_on_a_timer_is_no_chain)
{
	struct lt_thread th[3];
	event_loop(th, true, true, false);
	struct lt_snapshot s = { .pid = 100, .threads = th, .n_threads = 3 };
	cr_assert_eq(lt_snapshot_diagnose(&s, NULL), 0);
	const struct lt_verdict *v = chain_of(&s, 100);
	cr_expect_null(v, "%s", v ? v->summary : "");
	free_snap(&s);
}

/* The peer process's one thread asleep on a futex of a shared mapping
 * (its mappers not known: another process may wake it): the peer is not
 * known to be stuck, so neither is the loop (before: every futex wait
 * with no timeout counted as stuck). */
Test(waitfor_verdicts, event_loop_on_a_peer_asleep_on_a_shared_futex_is_no_chain)
{
	struct lt_thread th[3];
	event_loop(th, false, true, true);
	struct lt_snapshot s = { .pid = 100, .threads = th, .n_threads = 3 };
	cr_assert_eq(lt_snapshot_diagnose(&s, NULL), 0);
	const struct lt_verdict *v = chain_of(&s, 100);
	cr_expect_null(v, "another process may wake the peer: %s", v ? v->summary : "");
	free_snap(&s);

	/* its mappers known: none but its own process; stuck again */
	struct lt_thread th2[3];
	event_loop(th2, false, true, true);
	th2[2].futex.shared_obj = true;
	th2[2].futex.obj_mappers_known = true;
	struct lt_snapshot s2 = { .pid = 100, .threads = th2, .n_threads = 3 };
	cr_assert_eq(lt_snapshot_diagnose(&s2, NULL), 0);
	cr_expect_not_null(chain_of(&s2, 100), "a futex no other process maps: %s",
			   s2.n_verdicts ? s2.verdicts[0].summary : "");
	free_snap(&s2);
}

Test(waitfor_verdicts, idle_event_loop_on_its_own_wake_fds_is_no_chain)
{
	struct lt_thread th[3];
	event_loop(th, false, false, false);
	struct lt_snapshot s = { .pid = 100, .threads = th, .n_threads = 3 };
	cr_assert_eq(lt_snapshot_diagnose(&s, NULL), 0);
	const struct lt_verdict *v = chain_of(&s, 100);
	cr_expect_null(v, "%s", v ? v->summary : "");
	free_snap(&s);
}

/* asyncio's event loop (thread 100) waits in epoll on nothing but its
 * self-pipe, a unix socket pair only its own process holds; its child
 * watcher thread 101 is in wait4 on child 200, stuck in a futex wait with
 * no timeout.  The watcher would write the socket pair once its child
 * exits: the loop is a wait chain into the watcher's own chain.  With
 * another thread of it running (it could write), or with the watcher an
 * idle futex waiter (an idle loop: nothing stuck), there is no chain. */
enum own_loop_case { OWN_LOOP_STUCK, OWN_LOOP_OTHER_RUNS, OWN_LOOP_IDLE, OWN_LOOP_LOCK, OWN_LOOP_TIMED_LOCK,
		     OWN_LOOP_OTHER_SHARED };
static size_t own_loop(struct lt_thread th[4], enum own_loop_case c)
{
	blocked(&th[0], 100, 232, LT_WAIT_POLL);
	struct lt_wf_edge *e = edge(&th[0], 100, LT_WF_SOCKET, 100, LT_WFP_EVENTS);
	free(e->what);
	e->what = strdup("unix socket socket:[7] (fd 4), peer socket:[8]");
	if (c == OWN_LOOP_IDLE) {
		blocked(&th[1], 101, 202, LT_WAIT_FUTEX);
		th[1].futex.is_wait = true;
	} else if (c == OWN_LOOP_LOCK || c == OWN_LOOP_TIMED_LOCK) {
		/* 101 waits for a mutex 200 holds (a process-shared one) */
		blocked(&th[1], 101, 202, LT_WAIT_FUTEX);
		mutex_wait(&th[1], 100, 200);
		th[1].futex.timeout_ptr = c == OWN_LOOP_TIMED_LOCK ? 0x7ff000 : 0;
	} else {
		blocked(&th[1], 101, 61, LT_WAIT_CHILD);
		edge(&th[1], 100, LT_WF_CHILD, 200, LT_WFP_BLOCKED);
	}
	blocked(&th[2], 200, 202, LT_WAIT_FUTEX);
	th[2].futex.is_wait = true;
	th[2].futex.private_ = true; /* stuck: only its own process could wake it */
	th[2].wf = calloc(1, sizeof(*th[2].wf));
	th[2].wf->pid = 200;
	if (c == OWN_LOOP_OTHER_SHARED) {
		/* asleep on a futex of a shared mapping another process maps:
		 * woken from there, it could write the socket pair */
		blocked(&th[3], 102, 202, LT_WAIT_FUTEX);
		th[3].futex.is_wait = true;
		th[3].futex.shared_obj = true;
		th[3].futex.obj_mappers_known = true;
		th[3].futex.obj_mappers = 1;
		th[3].wf = calloc(1, sizeof(*th[3].wf));
		th[3].wf->pid = 100;
		return 4;
	}
	if (c != OWN_LOOP_OTHER_RUNS)
		return 3;
	blocked(&th[3], 102, 0, LT_WAIT_NONE);
	th[3].state = 'R';
	th[3].sc.state = LT_SC_RUNNING;
	th[3].wf = calloc(1, sizeof(*th[3].wf));
	th[3].wf->pid = 100;
	return 4;
}

Test(waitfor_verdicts, event_loop_on_its_own_socket_pair_whose_writer_is_stuck_is_a_chain)
{
	struct lt_thread th[4];
	struct lt_snapshot s = { .pid = 100, .threads = th, .n_threads = own_loop(th, OWN_LOOP_STUCK) };
	cr_assert_eq(lt_snapshot_diagnose(&s, NULL), 0);
	cr_assert_not_null(chain_of(&s, 101), "the watcher's own chain (first: %s)",
			   s.n_verdicts ? s.verdicts[0].summary : "");
	const struct lt_verdict *v = chain_of(&s, 100);
	cr_assert_not_null(v, "no wait chain of the event loop: %s", s.n_verdicts ? s.verdicts[0].summary : "");
	cr_expect(strstr(v->summary, "waits only for its own wake-up fd, a unix socket pair only its own process "
				     "100 holds (an event loop's wake-up)"), "%s", v->summary);
	cr_expect(strstr(v->summary, "one of them, thread 101 (t101), is itself in a wait chain: thread 101") &&
		  strstr(v->summary, "is inferred"), "%s", v->summary);
	free_snap(&s);
}

Test(waitfor_verdicts, event_loop_on_its_own_socket_pair_with_a_thread_running_is_no_chain)
{
	struct lt_thread th[4];
	struct lt_snapshot s = { .pid = 100, .threads = th, .n_threads = own_loop(th, OWN_LOOP_OTHER_RUNS) };
	cr_assert_eq(lt_snapshot_diagnose(&s, NULL), 0);
	const struct lt_verdict *v = chain_of(&s, 100);
	cr_expect_null(v, "%s", v ? v->summary : "");
	free_snap(&s);
}

Test(waitfor_verdicts, event_loop_on_its_own_socket_pair_with_a_thread_on_a_shared_futex_is_no_chain)
{
	struct lt_thread th[4];
	struct lt_snapshot s = { .pid = 100, .threads = th, .n_threads = own_loop(th, OWN_LOOP_OTHER_SHARED) };
	cr_assert_eq(lt_snapshot_diagnose(&s, NULL), 0);
	const struct lt_verdict *v = chain_of(&s, 100);
	cr_expect_null(v, "another process may wake thread 102, which could write: %s", v ? v->summary : "");
	free_snap(&s);
}

/* Its other thread in a lock wait: a chain, unless that wait has a
 * timeout (it may return and write the socket pair: "each asleep without a
 * timeout" would not hold). */
Test(waitfor_verdicts, event_loop_on_its_own_socket_pair_whose_writer_waits_for_a_lock)
{
	struct lt_thread th[4];
	struct lt_snapshot s = { .pid = 100, .threads = th, .n_threads = own_loop(th, OWN_LOOP_LOCK) };
	cr_assert_eq(lt_snapshot_diagnose(&s, NULL), 0);
	const struct lt_verdict *v = chain_of(&s, 100);
	cr_assert_not_null(v, "no wait chain of the event loop: %s", s.n_verdicts ? s.verdicts[0].summary : "");
	cr_expect(strstr(v->summary, "one of them, thread 101 (t101), is itself in a lock wait"), "%s", v->summary);
	free_snap(&s);

	struct lt_thread th2[4];
	struct lt_snapshot s2 = { .pid = 100, .threads = th2, .n_threads = own_loop(th2, OWN_LOOP_TIMED_LOCK) };
	cr_assert_eq(lt_snapshot_diagnose(&s2, NULL), 0);
	v = chain_of(&s2, 100);
	cr_expect_null(v, "a timed waiter could write: %s", v ? v->summary : "");
	free_snap(&s2);
}

Test(waitfor_verdicts, idle_event_loop_on_its_own_socket_pair_is_no_chain)
{
	struct lt_thread th[4];
	struct lt_snapshot s = { .pid = 100, .threads = th, .n_threads = own_loop(th, OWN_LOOP_IDLE) };
	cr_assert_eq(lt_snapshot_diagnose(&s, NULL), 0);
	const struct lt_verdict *v = chain_of(&s, 100);
	cr_expect_null(v, "%s", v ? v->summary : "");
	free_snap(&s);
}

/* ---- a signal only another thread of the process can send ----
 *
 * Process 100: thread 100 waits on a private condition variable (no owner,
 * no signal pending, its word unchanged); thread 101 waits for a file lock
 * process 200 holds (200 blocked itself).  Only a thread of 100 can signal
 * the condition variable, and the only other one is stuck: a chain into
 * 101's lock wait, the inference said.  Not when another thread of 100
 * runs, sleeps on a timer or waits for events (it could signal), when a
 * signal is pending for the waiter, or when the stuck thread waits for a
 * mutex the waiter holds (a cycle). */
enum notify_case { NOTIFY_STUCK, NOTIFY_OTHER_RUNS, NOTIFY_OTHER_TIMED, NOTIFY_OTHER_IDLE, NOTIFY_PENDING,
		   NOTIFY_HOLDS, NOTIFY_BARRIER, NOTIFY_OTHER_SHARED, NOTIFY_OWN_FLOCK, NOTIFY_TWO_STUCK, NOTIFY_BEHIND,
		   NOTIFY_PHASER, NOTIFY_PHASER_VM_RUNS, NOTIFY_PHASER_JAVA_RUNS,
		   NOTIFY_PHASER_JVM_JAVA_RUNS, NOTIFY_JAVA_QUEUE };
static void notify_waiter(struct lt_thread *t, pid_t tid, const char *kind)
{
	blocked(t, tid, 202, LT_WAIT_FUTEX);
	t->futex.uaddr = 0x5000;
	t->futex.is_wait = true;
	t->futex.private_ = true;
	t->futex.word_ok = true;
	t->futex.word = t->futex.expected = 0;
	t->futex.owner_kind = LT_OWNER_NONE;
	t->futex.lock_kind = kind;
	t->futex.lock_sym = strdup("c");
}
/* A Java thread parked in a Phaser's advance, on a Parker of its own at
 * UADDR: the lock model names its wait (models.c, name_signal_wait) */
static void java_party(struct lt_thread *t, pid_t tid, uint64_t uaddr)
{
	t->futex.uaddr = uaddr;
	t->futex.lock_kind = LT_KIND_JAVA_PHASER;
	t->futex.lock_base = 0x69ec1d538;
	t->futex.lock_name = strdup("java.util.concurrent.Phaser@0x69ec1d538");
	t->futex.lock_state = strdup("phase 0, 1 of its 3 registered parties not arrived; its condition variable: "
				     "group 0 (G2), 1 waiter");
	t->rt_lang = "java";
	(void)tid;
}

static size_t notify_proc(struct lt_thread th[6], enum notify_case c)
{
	size_t n = 0;
	notify_waiter(&th[n++], 100, c == NOTIFY_BARRIER ? "barrier" : "condition variable");
	if (c == NOTIFY_PENDING)
		th[0].futex.cond_signal = 2;
	if (c == NOTIFY_BARRIER)
		th[0].futex.lock_state = strdup("2 of 3 arrived");
	bool phaser = c == NOTIFY_PHASER || c == NOTIFY_PHASER_VM_RUNS || c == NOTIFY_PHASER_JAVA_RUNS ||
		      c == NOTIFY_PHASER_JVM_JAVA_RUNS;
	if (phaser)
		java_party(&th[0], 100, 0x5000);
	if (c == NOTIFY_JAVA_QUEUE) {
		/* a LinkedBlockingQueue.take() of an empty queue, named by the
		 * model (lock_hotspot_juc.c, parked_wait) */
		th[0].futex.lock_kind = LT_KIND_JAVA_SIGNAL;
		th[0].futex.lock_base = 0x69ec3c830;
		th[0].futex.lock_name = strdup("java.util.concurrent.locks.AbstractQueuedSynchronizer$ConditionObject@"
					       "0x69ec3c830");
		th[0].futex.lock_state = strdup("in LinkedBlockingQueue.take(), called by Q.take1 (Q.java:17); its "
						"condition variable: group 0 (G2), 1 waiter");
		th[0].rt_lang = "java";
	}
	if (c == NOTIFY_BEHIND) {
		/* 101 waits for a mutex 102 holds, 102 for a file lock: 101 is
		 * behind it */
		blocked(&th[n], 101, 202, LT_WAIT_FUTEX);
		mutex_wait(&th[n++], 100, 102);
	} else if (c == NOTIFY_HOLDS) {
		/* 101 waits for a mutex 100 holds: a cycle, not a chain */
		blocked(&th[n], 101, 202, LT_WAIT_FUTEX);
		mutex_wait(&th[n], 100, 100);
		n++;
	} else {
		blocked(&th[n], 101, 73, LT_WAIT_OTHER);
		/* NOTIFY_OWN_FLOCK: a lock its own process holds */
		struct lt_wf_edge *e = edge(&th[n], 100, LT_WF_FILE_LOCK, c == NOTIFY_OWN_FLOCK ? 100 : 200,
					    LT_WFP_BLOCKED);
		free(e->what);
		e->what = strdup("FLOCK WRITE lock on /tmp/l");
		n++;
	}
	if (phaser) {
		notify_waiter(&th[n], 102, "condition variable");
		java_party(&th[n++], 102, 0x5100);
	}
	if (c == NOTIFY_PHASER_VM_RUNS || c == NOTIFY_PHASER_JAVA_RUNS || c == NOTIFY_PHASER_JVM_JAVA_RUNS) {
		/* a thread caught running: the JVM's own (no Java thread), or
		 * a Java thread of the program */
		blocked(&th[n], 103, 0, LT_WAIT_NONE);
		th[n].state = 'R';
		th[n].sc.state = LT_SC_RUNNING;
		th[n].rt_lang = c == NOTIFY_PHASER_JAVA_RUNS || c == NOTIFY_PHASER_JVM_JAVA_RUNS ? "java" : NULL;
		if (c == NOTIFY_PHASER_JVM_JAVA_RUNS)
			th[n].rt_name = strdup("Monitor Deflation Thread");
		n++;
	}
	if (c == NOTIFY_TWO_STUCK || c == NOTIFY_BEHIND) {
		blocked(&th[n], 102, 73, LT_WAIT_OTHER);
		struct lt_wf_edge *e = edge(&th[n++], 100, LT_WF_FILE_LOCK, 200, LT_WFP_BLOCKED);
		free(e->what);
		e->what = strdup("FLOCK WRITE lock on /tmp/m");
	}
	if (c == NOTIFY_OTHER_SHARED) {
		/* asleep on a futex of a shared mapping another process maps:
		 * that process may wake it, and it then signals */
		blocked(&th[n], 103, 202, LT_WAIT_FUTEX);
		th[n].futex.is_wait = true;
		th[n].futex.shared_obj = true;
		th[n].futex.obj_mappers_known = true;
		th[n++].futex.obj_mappers = 1;
	}
	if (c == NOTIFY_BARRIER) { /* the threads in tid order, as a snapshot's */
		notify_waiter(&th[n], 102, "barrier");
		th[n++].futex.lock_state = strdup("2 of 3 arrived");
	}
	if (c == NOTIFY_OTHER_RUNS) {
		blocked(&th[n], 103, 0, LT_WAIT_NONE);
		th[n].state = 'R';
		th[n++].sc.state = LT_SC_RUNNING;
	} else if (c == NOTIFY_OTHER_TIMED) {
		blocked(&th[n], 103, 230, LT_WAIT_SLEEP);
		edge(&th[n++], 100, LT_WF_TIMER, 0, LT_WFP_UNKNOWN);
	} else if (c == NOTIFY_OTHER_IDLE) {
		blocked(&th[n], 103, 232, LT_WAIT_POLL);
		struct lt_wf_edge *e = edge(&th[n++], 100, LT_WF_LISTEN, 0, LT_WFP_UNKNOWN);
		free(e->what);
		e->what = strdup("listening socket socket:[5]");
	}
	blocked(&th[n], 200, 202, LT_WAIT_FUTEX);
	th[n].futex.is_wait = true;
	th[n].wf = calloc(1, sizeof(*th[n].wf));
	th[n].wf->pid = 200;
	for (size_t i = 0; i < n; i++)
		if (!th[i].wf) {
			th[i].wf = calloc(1, sizeof(*th[i].wf));
			th[i].wf->pid = 100;
		}
	return n + 1;
}

Test(waitfor_verdicts, condvar_whose_only_signaller_is_stuck_is_a_chain)
{
	struct lt_thread th[6];
	struct lt_snapshot s = { .pid = 100, .threads = th, .n_threads = notify_proc(th, NOTIFY_STUCK) };
	cr_assert_eq(lt_snapshot_diagnose(&s, NULL), 0);
	const struct lt_verdict *v = chain_of(&s, 100);
	cr_assert_not_null(v, "no chain of the condition variable's waiter: %s", s.n_verdicts ? s.verdicts[0].summary : "");
	cr_expect_eq(v->n_tids, 1);
	cr_expect(v->n_locks == 1 && v->locks[0] == 0x5000, "the waiter's futex word among the verdict's locks");
	cr_expect(strstr(v->summary, "thread 100 (t100) waits on condition variable c (0x5000) for a signal") &&
		  strstr(v->summary, "which only another thread of process 100 can end (a futex private to it), "
				     "and none can now (it is asleep without a timeout); the only one, thread 101 "
				     "(t101), is itself in a lock wait: thread 101") &&
		  strstr(v->summary, "(that it would send it once free, and that no signal handler will end the "
				     "wait, is inferred)"), "%s", v->summary);
	bool by = false;
	for (size_t i = 0; i < s.n_verdicts; i++)
		if (s.verdicts[i].kind == LT_VERDICT_LOCK_WAIT)
			for (size_t k = 0; k < s.verdicts[i].evidence.n; k++)
				by |= strstr(s.verdicts[i].evidence.v[k], "waited for by: thread 100 (t100) waits on "
					     "condition variable c (0x5000)") != NULL;
	cr_expect(by, "the lock wait does not say the condition variable's waiter waits for it");
	free_snap(&s);
}

Test(waitfor_verdicts, barrier_whose_missing_thread_is_stuck_is_one_chain_of_its_waiters)
{
	struct lt_thread th[6];
	struct lt_snapshot s = { .pid = 100, .threads = th, .n_threads = notify_proc(th, NOTIFY_BARRIER) };
	cr_assert_eq(lt_snapshot_diagnose(&s, NULL), 0);
	const struct lt_verdict *v = chain_of(&s, 100);
	cr_assert_not_null(v, "no chain of the barrier's waiters: %s", s.n_verdicts ? s.verdicts[0].summary : "");
	cr_expect_eq(v->n_tids, 2);
	cr_expect(v->n_tids == 2 && v->tids[1] == 102);
	cr_expect(v->n_locks == 2 && v->locks[0] == 0x5000 && v->locks[1] == 0x5000, "the waiters' futex words");
	/* the cause first: the lock wait of 101, then the chain of two behind it */
	cr_expect(s.verdicts[0].kind == LT_VERDICT_LOCK_WAIT && s.verdicts[0].tids[0] == 101 && v == &s.verdicts[1],
		  "first: %s", s.verdicts[0].summary);
	cr_expect_null(chain_of(&s, 102), "one verdict for the barrier's waiters");
	cr_expect(strstr(v->summary, "2 threads wait at barrier c (0x5000) (2 of 3 arrived) for the other threads to "
				     "arrive") &&
		  strstr(v->summary, "the only one, thread 101 (t101), is itself in a lock wait") &&
		  strstr(v->summary, "(that it would arrive once free"), "%s", v->summary);
	free_snap(&s);
}

/* N threads of one process, each on a condition variable of its own, and
 * one waiting for a file lock process 200 holds: one chain of N - 1.  The CPU
 * the diagnosis takes grows as n log n, not n^2 (measured as growth: a
 * loaded machine does not decide it). */
static double notify_diagnose_cpu_s(size_t n)
{
	struct lt_thread *th = calloc(n + 1, sizeof(*th));
	cr_assert_not_null(th);
	for (size_t i = 0; i + 1 < n; i++) {
		notify_waiter(&th[i], (pid_t)(1000 + i), "condition variable");
		th[i].futex.uaddr = 0x100000 + 64 * i;
		th[i].wf = calloc(1, sizeof(*th[i].wf));
		th[i].wf->pid = 1000;
	}
	blocked(&th[n - 1], (pid_t)(1000 + n - 1), 73, LT_WAIT_OTHER);
	edge(&th[n - 1], 1000, LT_WF_FILE_LOCK, 200, LT_WFP_BLOCKED);
	blocked(&th[n], 200000, 202, LT_WAIT_FUTEX);
	th[n].futex.is_wait = true;
	th[n].wf = calloc(1, sizeof(*th[n].wf));
	th[n].wf->pid = 200;
	struct lt_snapshot s = { .pid = 1000, .threads = th, .n_threads = n + 1 };
	struct timespec a, b;
	clock_gettime(CLOCK_THREAD_CPUTIME_ID, &a);
	cr_assert_eq(lt_snapshot_diagnose(&s, NULL), 0);
	clock_gettime(CLOCK_THREAD_CPUTIME_ID, &b);
	size_t chains = 0;
	for (size_t i = 0; i < s.n_verdicts; i++)
		chains += s.verdicts[i].kind == LT_VERDICT_WAIT_CHAIN;
	/* one verdict for the process's signal waiters, whatever their objects */
	cr_assert_eq(chains, 1, "%zu threads: %zu chains", n, chains);
	cr_assert_eq(chain_of(&s, 1000)->n_tids, n - 1);
	/* the cause first: the lock wait, though the chain explains more */
	cr_assert(s.verdicts[0].kind == LT_VERDICT_LOCK_WAIT && s.verdicts[1].kind == LT_VERDICT_WAIT_CHAIN,
		  "first: %s", s.verdicts[0].summary);
	free_snap(&s);
	free(th);
	return (double)(b.tv_sec - a.tv_sec) + (double)(b.tv_nsec - a.tv_nsec) / 1e9;
}

Test(waitfor_verdicts, condvar_chains_of_many_threads_take_n_log_n)
{
	double small = notify_diagnose_cpu_s(5000), big = notify_diagnose_cpu_s(20000);
	fprintf(stderr, "waitfor_verdicts: condition-variable chains of 5,000 threads %.3f s, 20,000 threads %.3f s "
		"(CPU)\n", small, big);
	cr_assert_lt(big, 8 * (small > 0.005 ? small : 0.005), "4x the threads took %.1fx the CPU (%.3f s, %.3f s)",
		     big / small, small, big);
}

/* The java launcher's thread 100 joins the Java main thread 101, which
 * waits on a condition variable (Object.wait): the joiner sends it nothing
 * before it exits, so it is not taken for its signaller (no probable
 * deadlock of the two); nobody else is left to signal it: a lost wake-up,
 * into which the join is a chain. */
Test(waitfor_verdicts, a_joiner_of_a_condvar_waiter_is_not_its_signaller)
{
	struct lt_thread th[2];
	blocked(&th[0], 100, 202, LT_WAIT_FUTEX);
	th[0].futex.uaddr = 0x7000;
	th[0].futex.is_wait = true;
	th[0].futex.private_ = true;
	th[0].futex.word_ok = true;
	th[0].futex.owner_kind = LT_OWNER_JOIN;
	th[0].futex.owner = 101;
	th[0].futex.lock_kind = "thread exit (pthread_join)";
	notify_waiter(&th[1], 101, "condition variable");
	struct lt_snapshot s = { .pid = 100, .threads = th, .n_threads = 2 };
	cr_assert_eq(lt_snapshot_diagnose(&s, NULL), 0);
	for (size_t i = 0; i < s.n_verdicts; i++)
		cr_expect(s.verdicts[i].kind != LT_VERDICT_DEADLOCK &&
			  (s.verdicts[i].kind != LT_VERDICT_WAIT_CHAIN || strstr(s.verdicts[i].summary, "in a lost wake-up")),
			  "%s", s.verdicts[i].summary);
	const struct lt_verdict *lw = NULL;
	for (size_t i = 0; i < s.n_verdicts; i++)
		if (s.verdicts[i].kind == LT_VERDICT_LOST_WAKEUP)
			lw = &s.verdicts[i];
	cr_assert_not_null(lw, "no lost wake-up");
	cr_expect(lw->n_tids == 1 && lw->tids[0] == 101, "%s", lw->summary);
	cr_expect(!strncmp(lw->summary, "nobody is left to wake it: thread 101 (t101) waits on condition variable", 72),
		  "%s", lw->summary);
	free_snap(&s);
}

/* The only thread that could signal waits for a file lock its own process
 * holds (the waiter may have taken it): they wait for each other, a
 * probable deadlock of the two, not a chain. */
Test(waitfor_verdicts, condvar_whose_signaller_waits_for_its_own_process_file_lock_is_a_probable_deadlock)
{
	struct lt_thread th[6];
	struct lt_snapshot s = { .pid = 100, .threads = th, .n_threads = notify_proc(th, NOTIFY_OWN_FLOCK) };
	cr_assert_eq(lt_snapshot_diagnose(&s, NULL), 0);
	cr_expect_null(chain_of(&s, 100), "%s", chain_of(&s, 100) ? chain_of(&s, 100)->summary : "");
	const struct lt_verdict *d = NULL;
	for (size_t i = 0; i < s.n_verdicts && !d; i++)
		if (s.verdicts[i].kind == LT_VERDICT_DEADLOCK)
			d = &s.verdicts[i];
	cr_assert_not_null(d, "no deadlock: %s", s.n_verdicts ? s.verdicts[0].summary : "");
	cr_expect(d->n_tids == 2 && d->tids[0] == 100 && d->tids[1] == 101, "%s", d->summary);
	cr_expect(strstr(d->summary, "probable deadlock (a signaller inferred): thread 100 (t100) waits on condition "
				     "variable c (0x5000)") &&
		  strstr(d->summary, "which the waiter's process holds: they wait for each other"), "%s", d->summary);
	free_snap(&s);
}

/* Two stuck threads could signal: which would is not said as known. */
Test(waitfor_verdicts, condvar_with_two_stuck_signallers_names_both)
{
	struct lt_thread th[6];
	struct lt_snapshot s = { .pid = 100, .threads = th, .n_threads = notify_proc(th, NOTIFY_TWO_STUCK) };
	cr_assert_eq(lt_snapshot_diagnose(&s, NULL), 0);
	const struct lt_verdict *v = chain_of(&s, 100);
	cr_assert_not_null(v, "no chain: %s", s.n_verdicts ? s.verdicts[0].summary : "");
	cr_expect(strstr(v->summary, "2 of them are stuck (101, 102; which of them would end it is not known), among "
				     "them thread 101 (t101), itself in a lock wait"), "%s", v->summary);
	free_snap(&s);
}

/* Of two stuck threads, the one the other waits for (its mutex) is named */
Test(waitfor_verdicts, condvar_with_a_stuck_signaller_behind_another_names_the_other)
{
	struct lt_thread th[6];
	struct lt_snapshot s = { .pid = 100, .threads = th, .n_threads = notify_proc(th, NOTIFY_BEHIND) };
	cr_assert_eq(lt_snapshot_diagnose(&s, NULL), 0);
	const struct lt_verdict *v = chain_of(&s, 100);
	cr_assert_not_null(v, "no chain: %s", s.n_verdicts ? s.verdicts[0].summary : "");
	cr_expect(strstr(v->summary, "2 of them are stuck (101, 102; which of them would end it is not known), among "
				     "them thread 102 (t102), itself in a lock wait: thread 102"), "%s", v->summary);
	cr_expect_eq(v->cause_tid, 102);
	free_snap(&s);
}

/* Two Java threads parked in a Phaser's advance, each on its own Parker,
 * one object: one chain, said in Java's terms (the Phaser, its phase and
 * parties), not as two condition variables */
Test(waitfor_verdicts, java_phaser_parties_are_one_wait_on_the_phaser)
{
	struct lt_thread th[6];
	struct lt_snapshot s = { .pid = 100, .threads = th, .n_threads = notify_proc(th, NOTIFY_PHASER) };
	cr_assert_eq(lt_snapshot_diagnose(&s, NULL), 0);
	const struct lt_verdict *v = chain_of(&s, 100);
	cr_assert_not_null(v, "no chain: %s", s.n_verdicts ? s.verdicts[0].summary : "");
	cr_expect_eq(v->n_tids, 2);
	cr_expect(!strncmp(v->summary, "2 threads wait at java.util.concurrent.Phaser@0x69ec1d538 (phase 0, 1 of its 3 "
				       "registered parties not arrived) for the other parties to arrive, which only "
				       "another thread of process 100 can end", 140) &&
		  strstr(v->summary, "the only one, thread 101 (t101), is itself in a lock wait") &&
		  strstr(v->summary, "(that it would arrive once free"), "%s", v->summary);
	free_snap(&s);
}

/* A Java thread in LinkedBlockingQueue.take(), its producer stuck: said
 * in Java's terms (the Condition, the API called and where, a signal()),
 * not as a condition variable of an anonymous mapping */
Test(waitfor_verdicts, java_queue_take_is_said_in_javas_terms)
{
	struct lt_thread th[6];
	struct lt_snapshot s = { .pid = 100, .threads = th, .n_threads = notify_proc(th, NOTIFY_JAVA_QUEUE) };
	cr_assert_eq(lt_snapshot_diagnose(&s, NULL), 0);
	const struct lt_verdict *v = chain_of(&s, 100);
	cr_assert_not_null(v, "no chain: %s", s.n_verdicts ? s.verdicts[0].summary : "");
	static const char want[] = "thread 100 (t100) waits in Condition.await() on "
				   "java.util.concurrent.locks.AbstractQueuedSynchronizer$ConditionObject@0x69ec3c830 "
				   "(in LinkedBlockingQueue.take(), called by Q.take1 (Q.java:17)) for a signal(), "
				   "which only another thread of process 100 can end";
	cr_expect(!strncmp(v->summary, want, strlen(want)), "%s\nwant: %s", v->summary, want);
	cr_expect(strstr(v->summary, "(that it would signal it once free"), "%s", v->summary);
	cr_expect_eq(v->cause_tid, 101);
	free_snap(&s);
}

/* Beside the Phaser's parties, a thread caught running: a native thread of
 * the JVM (its VM thread, a GC worker) or one of its housekeeping Java
 * threads cannot unpark them, a Java thread of the program could */
Test(waitfor_verdicts, java_parties_are_a_chain_whatever_the_jvms_own_threads_do)
{
	struct lt_thread th[6];
	struct lt_snapshot s = { .pid = 100, .threads = th, .n_threads = notify_proc(th, NOTIFY_PHASER_VM_RUNS) };
	cr_assert_eq(lt_snapshot_diagnose(&s, NULL), 0);
	const struct lt_verdict *v = chain_of(&s, 100);
	cr_assert_not_null(v, "no chain: %s", s.n_verdicts ? s.verdicts[0].summary : "");
	cr_expect(strstr(v->summary, "one of them, thread 101 (t101), is itself in a lock wait"), "%s", v->summary);
	free_snap(&s);
	struct lt_thread th2[6];
	struct lt_snapshot s2 = { .pid = 100, .threads = th2, .n_threads = notify_proc(th2, NOTIFY_PHASER_JVM_JAVA_RUNS) };
	cr_assert_eq(lt_snapshot_diagnose(&s2, NULL), 0);
	cr_expect_not_null(chain_of(&s2, 100), "the JVM's housekeeping thread taken for a signaller: %s",
			   s2.n_verdicts ? s2.verdicts[0].summary : "");
	free_snap(&s2);
	struct lt_thread tj[6];
	struct lt_snapshot sj = { .pid = 100, .threads = tj, .n_threads = notify_proc(tj, NOTIFY_PHASER_JAVA_RUNS) };
	cr_assert_eq(lt_snapshot_diagnose(&sj, NULL), 0);
	cr_expect_null(chain_of(&sj, 100), "%s", chain_of(&sj, 100) ? chain_of(&sj, 100)->summary : "");
	free_snap(&sj);
}

/* The java launcher 100 joins the Java main thread 101, which joins 102,
 * whose condition wait is a Process.waitFor() on child 200 (the model read
 * its other end: a child edge), 200 blocked.  102 is no signal wait to
 * guess a sender for: no probable deadlock 100 -> 101 -> 102 -> 100 (a
 * review saw one), but chains into the child. */
Test(waitfor_verdicts, a_condvar_waiter_whose_other_end_is_read_is_no_guess_of_a_cycle)
{
	struct lt_thread th[4];
	for (int i = 0; i < 2; i++) {
		blocked(&th[i], 100 + i, 202, LT_WAIT_FUTEX);
		th[i].futex.uaddr = 0x7000 + 0x100 * (uint64_t)i;
		th[i].futex.is_wait = true;
		th[i].futex.private_ = true;
		th[i].futex.word_ok = true;
		th[i].futex.owner_kind = LT_OWNER_JOIN;
		th[i].futex.owner = 101 + i;
		th[i].futex.lock_kind = "thread exit (pthread_join)";
	}
	notify_waiter(&th[2], 102, "condition variable");
	struct lt_wf_edge *e = edge(&th[2], 100, LT_WF_CHILD, 200, LT_WFP_BLOCKED);
	free(e->what);
	e->what = strdup("child 200 (Process.waitFor)");
	blocked(&th[3], 200, 73, LT_WAIT_OTHER);
	e = edge(&th[3], 200, LT_WF_FILE_LOCK, 300, LT_WFP_BLOCKED);
	free(e->what);
	e->what = strdup("FLOCK WRITE lock on /tmp/l");
	struct lt_snapshot s = { .pid = 100, .threads = th, .n_threads = 4 };
	cr_assert_eq(lt_snapshot_diagnose(&s, NULL), 0);
	for (size_t i = 0; i < s.n_verdicts; i++)
		cr_expect(s.verdicts[i].kind != LT_VERDICT_DEADLOCK, "%s", s.verdicts[i].summary);
	free_snap(&s);
}

Test(waitfor_verdicts, condvar_with_a_thread_that_could_signal_is_no_chain)
{
	static const enum notify_case cases[] = { NOTIFY_OTHER_RUNS, NOTIFY_OTHER_TIMED, NOTIFY_OTHER_IDLE,
						  NOTIFY_PENDING, NOTIFY_HOLDS, NOTIFY_OTHER_SHARED };
	static const char *const names[] = { "another runs", "another sleeps on a timer", "another waits for events",
					     "a signal is pending", "the stuck thread waits for the waiter's mutex",
					     "another waits on a futex another process may wake" };
	for (size_t k = 0; k < sizeof(cases) / sizeof(cases[0]); k++) {
		struct lt_thread th[6];
		struct lt_snapshot s = { .pid = 100, .threads = th, .n_threads = notify_proc(th, cases[k]) };
		cr_assert_eq(lt_snapshot_diagnose(&s, NULL), 0);
		const struct lt_verdict *v = chain_of(&s, 100);
		cr_expect_null(v, "%s: %s", names[k], v ? v->summary : "");
		if (cases[k] == NOTIFY_HOLDS) /* the inferred cycle's rules say it */
			cr_expect(s.verdicts[0].kind == LT_VERDICT_DEADLOCK &&
				  strstr(s.verdicts[0].summary, "100 (t100) -> 101 (t101) -> 100"), "%s",
				  s.verdicts[0].summary);
		free_snap(&s);
	}
}

/* ---- a signalfd for a child's exit, a pty master (script(1), su --pty) ---- */

/* The fdinfo of util-linux script(1)'s signalfd and pty master as this
 * kernel prints them: the signalfd's "sigmask:" (hex, bit sig-1), the
 * master's "tty-index:" (its slave /dev/pts/N). */
Test(waitfor_parse, signalfd_sigmask_and_pty_master_tty_index_from_fdinfo)
{
	const char *sfd = "pos:\t0\nflags:\t02000002\nmnt_id:\t17\nino:\t1038\nsigmask:\t0000000008016206\n";
	uint64_t m = 0;
	cr_assert_eq(lt_status_sigmask(sfd, "sigmask:", &m), 0);
	cr_expect_eq(m, 0x8016206ULL);
	char names[160];
	size_t n = lt_sigset_str(m, names, sizeof(names));
	cr_expect_str_eq(names, "SIGINT SIGQUIT SIGUSR1 SIGALRM SIGTERM SIGCHLD SIGWINCH");
	cr_expect_eq(n, strlen(names));
	lt_sigset_str(m & ~SIGBIT(17), names, sizeof(names));
	cr_expect_str_eq(names, "SIGINT SIGQUIT SIGUSR1 SIGALRM SIGTERM SIGWINCH");
	lt_sigset_str(SIGBIT(35) | SIGBIT(64), names, sizeof(names));
	cr_expect_str_eq(names, "SIGRTMIN+3 SIGRTMIN+32");
	/* cut where it does not fit, said with "..." */
	char small[20];
	lt_sigset_str(m, small, sizeof(small));
	cr_expect_str_eq(small, "SIGINT SIGQUIT ...");
	lt_sigset_str(0, names, sizeof(names));
	cr_expect_str_eq(names, "");
	cr_expect_eq(lt_status_sigmask("pos:\t0\nflags:\t02\n", "sigmask:", &m), -1, "no sigmask line");

	const char *ptmx = "pos:\t0\nflags:\t0104002\nmnt_id:\t24\nino:\t90\ntty-index:\t12\n";
	int idx = -1;
	cr_assert_eq(lt_fdinfo_tty_index(ptmx, &idx), 0);
	cr_expect_eq(idx, 12);
	cr_expect_eq(lt_fdinfo_tty_index("pos:\t0\nflags:\t02\nmnt_id:\t29\nino:\t3\n", &idx), -1,
		     "a slave's fdinfo has no tty-index");
	cr_expect_eq(lt_fdinfo_tty_index("tty-index:\tx\n", &idx), -1);
}

/* What a signalfd's read waits for: a signal of its mask that the kernel
 * queues for it (blocked; SIGCHLD not ignored), case by case. */
Test(waitfor_parse, which_signals_end_a_signalfd_read)
{
	char why[200];
	/* script(1): SIGCHLD and others in the mask, all blocked, SIGINT
	 * SIGQUIT ignored, nothing caught */
	struct lt_sigwait w = { .set = 0x8016206, .set_ok = true, .blocked = 0xfffffffe7ffbfeffULL, .blocked_ok = true,
				.ignored = 0x6, .disp_ok = true };
	cr_expect_eq(lt_signalfd_ends(&w, 17, why, sizeof(why)), LT_SIG_END_YES, "%s", why);
	cr_expect(strstr(why, "SIGCHLD is in the signalfd's mask and blocked"), "%s", why);
	cr_expect_eq(lt_signalfd_ends(&w, 15, why, sizeof(why)), LT_SIG_END_YES, "SIGTERM: %s", why);
	/* ignored but blocked: queued all the same (the kernel never
	 * ignores a blocked signal) */
	cr_expect_eq(lt_signalfd_ends(&w, 2, why, sizeof(why)), LT_SIG_END_YES, "SIGINT: %s", why);
	/* not in its mask */
	cr_expect_eq(lt_signalfd_ends(&w, 12, why, sizeof(why)), LT_SIG_END_NO, "SIGUSR2: %s", why);
	cr_expect(strstr(why, "not in the signalfd's mask"), "%s", why);
	/* SIGCHLD ignored: no SIGCHLD is sent at a child's exit, blocked or not */
	w.ignored = SIGBIT(17);
	cr_expect_eq(lt_signalfd_ends(&w, 17, why, sizeof(why)), LT_SIG_END_NO, "%s", why);
	cr_expect(strstr(why, "sends none"), "%s", why);
	/* SIGCHLD not blocked, at its default action: discarded before the
	 * signalfd sees it */
	w.ignored = 0;
	w.blocked = 0;
	cr_expect_eq(lt_signalfd_ends(&w, 17, why, sizeof(why)), LT_SIG_END_NO, "%s", why);
	cr_expect(strstr(why, "discards"), "%s", why);
	/* not blocked and caught: its handler takes it (may end a poll): not known */
	w.caught = SIGBIT(17);
	cr_expect_eq(lt_signalfd_ends(&w, 17, why, sizeof(why)), LT_SIG_END_MAYBE, "%s", why);
	/* SIGTERM not blocked at its default: the process ends */
	cr_expect_eq(lt_signalfd_ends(&w, 15, why, sizeof(why)), LT_SIG_END_YES, "%s", why);
	/* what decides it unread: not known, never yes or no */
	w.blocked_ok = false;
	cr_expect_eq(lt_signalfd_ends(&w, 17, why, sizeof(why)), LT_SIG_END_MAYBE, "%s", why);
	w.blocked_ok = true;
	w.disp_ok = false;
	cr_expect_eq(lt_signalfd_ends(&w, 17, why, sizeof(why)), LT_SIG_END_MAYBE, "%s", why);
	w.disp_ok = true;
	w.set_ok = false;
	cr_expect_eq(lt_signalfd_ends(&w, 17, why, sizeof(why)), LT_SIG_END_MAYBE, "%s", why);
}

/* script(1) (100) polls its signalfd and its pty master; its command
 * flock(1) (200) waits for a lock 300 holds.  The signalfd's SIGCHLD is a
 * child edge to 200, its other signals an unknown edge (LT_WF_SIGOTHER),
 * the master's writers are the slave's holders, 100 itself and 200.
 * OTHERS: whether the signalfd has other signals; HOLDER: who holds 200's
 * lock (100: a cycle). */
static void script_parent(struct lt_thread th[2], bool others, pid_t holder)
{
	blocked(&th[0], 100, 7, LT_WAIT_POLL);
	struct lt_wf_edge *e = edge(&th[0], 100, LT_WF_CHILD, 200, LT_WFP_BLOCKED);
	free(e->what);
	e->what = strdup(LT_WF_SIGCHLD "any child (signalfd fd 5)");
	e->doing = strdup("200 (flock): flock");
	if (others) {
		e = edge(&th[0], 100, LT_WF_UNKNOWN, 0, LT_WFP_UNKNOWN);
		free(e->what);
		e->what = strdup(LT_WF_SIGOTHER "signalfd (fd 5): SIGINT SIGQUIT SIGALRM SIGTERM SIGWINCH");
	}
	e = edge(&th[0], 100, LT_WF_PIPE_READ, 100, LT_WFP_EVENTS);
	free(e->what);
	e->what = strdup("pty master /dev/ptmx (fd 3) of /dev/pts/0");
	e->pids[1] = 200;
	e->n_pids = 2;
	flock_child(&th[1], holder, holder == 100 ? LT_WFP_EVENTS : LT_WFP_TIMED);
}

Test(waitfor_verdicts, a_signalfd_wait_for_a_child_in_a_lock_wait_is_a_chain_its_other_signals_said)
{
	struct lt_thread th[2];
	script_parent(th, true, 300);
	struct lt_snapshot s = { .pid = 100, .threads = th, .n_threads = 2 };
	cr_assert_eq(lt_snapshot_diagnose(&s, NULL), 0);
	cr_expect_eq(s.verdicts[0].kind, LT_VERDICT_LOCK_WAIT, "the child's lock wait first: %s", s.verdicts[0].summary);
	const struct lt_verdict *lw = verdict_of(&s, LT_VERDICT_LOCK_WAIT, 200);
	cr_assert_not_null(lw);
	cr_expect_eq(lw->owner, 300);
	const struct lt_verdict *ch = verdict_of(&s, LT_VERDICT_WAIT_CHAIN, 100);
	cr_assert_not_null(ch, "a wait chain of script into its child (first: %s)", s.verdicts[0].summary);
	cr_expect(strstr(ch->summary, "waits for process 200, whose thread 200 (t200) is itself in a lock wait"),
		  "%s", ch->summary);
	cr_expect(strstr(ch->summary, "; or by a signal another process may send: the other signals of signalfd "
				      "(fd 5): SIGINT SIGQUIT SIGALRM SIGTERM SIGWINCH (not followed: no deadlock is "
				      "claimed)"), "%s", ch->summary);
	cr_expect(!strstr(ch->summary, "inferred"), "nothing inferred: %s", ch->summary);
	cr_expect(!verdict_of(&s, LT_VERDICT_IDLE, 100), "not IDLE");
	free_snap(&s);
}

/* The child waits for a lock script itself holds: with its signalfd's
 * other signals (any process may send one) no deadlock is claimed, a
 * chain says why; a signalfd of SIGCHLD alone is as a signal wait for
 * SIGCHLD (rt_sigsuspend): a link of the cycle. */
Test(waitfor_verdicts, a_signalfd_wait_with_other_signals_is_never_a_deadlock_link)
{
	struct lt_thread th[2];
	script_parent(th, true, 100);
	struct lt_snapshot s = { .pid = 100, .threads = th, .n_threads = 2 };
	cr_assert_eq(lt_snapshot_diagnose(&s, NULL), 0);
	for (size_t i = 0; i < s.n_verdicts; i++)
		cr_expect(s.verdicts[i].kind != LT_VERDICT_DEADLOCK, "no deadlock: %s", s.verdicts[i].summary);
	const struct lt_verdict *ch = verdict_of(&s, LT_VERDICT_WAIT_CHAIN, 100);
	cr_assert_not_null(ch, "script's chain (first: %s)", s.verdicts[0].summary);
	cr_expect(strstr(ch->summary, "no deadlock is claimed"), "%s", ch->summary);
	free_snap(&s);

	struct lt_thread t2[2];
	script_parent(t2, false, 100);
	struct lt_snapshot s2 = { .pid = 100, .threads = t2, .n_threads = 2 };
	cr_assert_eq(lt_snapshot_diagnose(&s2, NULL), 0);
	cr_expect_eq(s2.verdicts[0].kind, LT_VERDICT_DEADLOCK, "%s", s2.verdicts[0].summary);
	free_snap(&s2);
}

/* ---- joins followed into the joined thread's verdict ---- */

/* Thread TID of process PID in a join of JOINED (no timeout), as the
 * glibc model (KIND LT_KIND_PTHREAD_JOIN) or CPython's (LT_KIND_PY_JOIN)
 * names it; KIND NULL: a word that equals a tid, no model's join. */
static void join_wait(struct lt_thread *t, pid_t tid, pid_t pid, pid_t joined, const char *kind)
{
	blocked(t, tid, 202, LT_WAIT_FUTEX);
	t->futex.uaddr = 0x7000 + (uint64_t)tid;
	t->futex.is_wait = true;
	t->futex.private_ = kind && !strcmp(kind, LT_KIND_PY_JOIN); /* glibc joins on a shared word */
	t->futex.word_ok = true;
	t->futex.word = t->futex.expected = (uint32_t)joined;
	t->futex.owner_kind = LT_OWNER_JOIN;
	t->futex.owner = joined;
	t->futex.lock_kind = kind;
	t->wf = calloc(1, sizeof(*t->wf));
	t->wf->pid = pid;
}

/* Thread TID of process 100 waiting in flock() for a lock process 300
 * holds, itself waiting for its child (flock(1)). */
static void flock_waiter(struct lt_thread *t, pid_t tid)
{
	blocked(t, tid, 73, LT_WAIT_IO);
	struct lt_wf_edge *e = edge(t, 100, LT_WF_FILE_LOCK, 300, LT_WFP_EVENTS);
	free(e->what);
	e->what = strdup("FLOCK WRITE lock on /tmp/l");
	e->doing = strdup("300 (flock): wait4");
}

/* Whether V's evidence has a line with A and B. */
static bool evidence_has(const struct lt_verdict *v, const char *a, const char *b)
{
	for (size_t k = 0; v && k < v->evidence.n; k++)
		if (strstr(v->evidence.v[k], a) && (!b || strstr(v->evidence.v[k], b)))
			return true;
	return false;
}

/* main 100 joins 101, which waits for a file lock (tests/workloads/
 * join_waits.c flock, Python's Thread.join of a thread in fcntl.flock):
 * 101's LOCK WAIT says who waits for its exit, and 100's join is a wait
 * chain into it, in the join's words (lt_done_kind_of), ranked after it. */
static void join_into_lock_wait(const char *kind, const char *call, const char *orelse)
{
	struct lt_thread th[2];
	join_wait(&th[0], 100, 100, 101, kind);
	flock_waiter(&th[1], 101);
	struct lt_snapshot s = { .pid = 100, .threads = th, .n_threads = 2 };
	cr_assert_eq(lt_snapshot_diagnose(&s, NULL), 0);
	cr_assert_eq(s.n_verdicts, 2, "%s", s.verdicts[0].summary);
	const struct lt_verdict *lw = &s.verdicts[0], *ch = &s.verdicts[1];
	cr_assert_eq(lw->kind, LT_VERDICT_LOCK_WAIT, "%s", lw->summary);
	cr_assert(lw->n_tids == 1 && lw->tids[0] == 101, "%s", lw->summary);
	char want[200];
	snprintf(want, sizeof(want), "waited for by: thread 100 (t100) in %s, for thread 101 (t101) to exit", call);
	cr_expect(evidence_has(lw, want, NULL), "no '%s' in the lock wait's evidence", want);
	cr_assert_eq(ch->kind, LT_VERDICT_WAIT_CHAIN, "%s", ch->summary);
	cr_assert(ch->n_tids == 1 && ch->tids[0] == 100, "%s", ch->summary);
	snprintf(want, sizeof(want), "thread 100 (t100) waits in %s for thread 101 (t101) to exit, which is itself in "
		 "a lock wait: thread 101 (t101) waits for a file lock: FLOCK WRITE lock on /tmp/l", call);
	cr_expect(!strncmp(ch->summary, want, strlen(want)), "%s\nwant: %s", ch->summary, want);
	char tail[200];
	snprintf(tail, sizeof(tail), "; the wait ends when it exits (or on %s)", orelse);
	size_t sl = strlen(ch->summary), tl = strlen(tail);
	cr_expect(sl > tl && !strcmp(ch->summary + sl - tl, tail), "%s\nwant at its end: %s", ch->summary, tail);
	cr_expect(evidence_has(ch, "joined thread 101 (t101) flock(", ": in a lock wait"), "the joined thread's line");
	cr_expect(evidence_has(ch, "thread 100 (t100) waits in ", kind), "the join's line names its kind");
	free_snap(&s);
}

Test(waitfor_verdicts, a_pthread_join_of_a_thread_in_a_lock_wait_is_a_chain_into_it)
{
	join_into_lock_wait(LT_KIND_PTHREAD_JOIN, "pthread_join()", "a pthread_cancel() of the joining thread");
}

Test(waitfor_verdicts, a_python_thread_join_of_a_thread_in_a_lock_wait_is_a_chain_into_it)
{
	join_into_lock_wait(LT_KIND_PY_JOIN, "Thread.join()",
			    "a signal whose Python handler raises in the main thread, as Ctrl-C's KeyboardInterrupt");
}

/* A join is followed only as far as what it shows: a timed join ends by
 * itself; a word that equals a tid but that no model named a join; a
 * joined thread asleep on a timer is stuck in nothing.  None is a chain,
 * and the joined thread's verdict names no waiter. */
Test(waitfor_verdicts, a_timed_unnamed_or_idle_join_is_no_chain)
{
	for (int c = 0; c < 3; c++) {
		struct lt_thread th[2];
		join_wait(&th[0], 100, 100, 101, c == 1 ? NULL : LT_KIND_PTHREAD_JOIN);
		if (c == 0)
			th[0].futex.timeout_ptr = 0x7ffd000;
		if (c == 2) {
			blocked(&th[1], 101, 230, LT_WAIT_SLEEP); /* clock_nanosleep */
			th[1].wf = calloc(1, sizeof(*th[1].wf));
			th[1].wf->pid = 100;
			struct lt_wf_edge *e = lt_waitfor_add(&th[1], 100, LT_WF_TIMER);
			e->what = strdup("the end of the sleep");
		} else {
			flock_waiter(&th[1], 101);
		}
		struct lt_snapshot s = { .pid = 100, .threads = th, .n_threads = 2 };
		cr_assert_eq(lt_snapshot_diagnose(&s, NULL), 0);
		for (size_t i = 0; i < s.n_verdicts; i++) {
			cr_expect_neq(s.verdicts[i].kind, LT_VERDICT_WAIT_CHAIN, "case %d: %s", c, s.verdicts[i].summary);
			cr_expect(!evidence_has(&s.verdicts[i], "waited for by: thread 100", NULL), "case %d: %s", c,
				  s.verdicts[i].summary);
		}
		if (c == 2)
			cr_expect(s.n_verdicts == 1 && s.verdicts[0].kind == LT_VERDICT_IDLE, "case %d: %s", c,
				  s.verdicts[0].summary);
		else
			cr_expect_eq(s.verdicts[0].kind, LT_VERDICT_LOCK_WAIT, "case %d: %s", c, s.verdicts[0].summary);
		free_snap(&s);
	}
}

/* main 100 joins 101, which joins 102, in a lock wait: 101's chain into
 * 102's verdict, 100's into 101's chain. */
Test(waitfor_verdicts, a_join_of_a_joiner_is_a_chain_into_its_chain)
{
	struct lt_thread th[3];
	join_wait(&th[0], 100, 100, 101, LT_KIND_PTHREAD_JOIN);
	join_wait(&th[1], 101, 100, 102, LT_KIND_PTHREAD_JOIN);
	flock_waiter(&th[2], 102);
	struct lt_snapshot s = { .pid = 100, .threads = th, .n_threads = 3 };
	cr_assert_eq(lt_snapshot_diagnose(&s, NULL), 0);
	const struct lt_verdict *c1 = chain_of(&s, 101), *c0 = chain_of(&s, 100);
	cr_assert(c1 && c0, "chains of 101 and 100: %s", s.verdicts[0].summary);
	cr_expect(strstr(c1->summary, "for thread 102 (t102) to exit, which is itself in a lock wait: "), "%s",
		  c1->summary);
	cr_expect(strstr(c0->summary, "for thread 101 (t101) to exit, which is itself in a wait chain: thread 101 "
				      "(t101) waits in pthread_join() for thread 102"), "%s", c0->summary);
	cr_expect(evidence_has(c1, "waited for by: thread 100 (t100) in pthread_join()", NULL), "%s", c1->summary);
	free_snap(&s);
}

/* main 620 joins 621, which reads a pipe only its process can write: the
 * probable deadlock through the pipe (the joiner is the only other thread,
 * which would write it), not a chain. */
Test(waitfor_verdicts, a_join_of_a_reader_of_its_own_pipe_is_a_probable_deadlock_not_a_chain)
{
	struct lt_thread th[2];
	join_wait(&th[0], 620, 620, 621, LT_KIND_PTHREAD_JOIN);
	blocked(&th[1], 621, 0, LT_WAIT_IO);
	edge(&th[1], 620, LT_WF_PIPE_READ, 620, LT_WFP_BLOCKED);
	struct lt_snapshot s = { .pid = 620, .threads = th, .n_threads = 2 };
	cr_assert_eq(lt_snapshot_diagnose(&s, NULL), 0);
	cr_assert_eq(s.n_verdicts, 1, "%s", s.verdicts[0].summary);
	const struct lt_verdict *v = &s.verdicts[0];
	cr_assert_eq(v->kind, LT_VERDICT_DEADLOCK, "%s", v->summary);
	cr_expect(strstr(v->summary, "probable deadlock through a pipe: thread 621 (t621)") &&
		  strstr(v->summary, "620 (t620) -> 621 (t621) -> 620"), "%s", v->summary);
	cr_expect(evidence_has(v, "thread 620 (t620) is joining thread 621 (t621)", NULL), "%s", v->summary);
	free_snap(&s);
}

/* ---- a relay whose client waits only on it ----
 *
 * Client 100 reads the socket of relay 200 (python3 relay.py, ssh -L,
 * socat), which polls both that socket and its socket to server 300,
 * whose handler waits for a file lock held by 400 (not followed, asleep
 * on a timer: the server's LOCK WAIT).  The client can end the relay's
 * wait only after the relay has woken it: it is set aside, and the relay
 * is a chain into the server's lock wait, the client a chain into the
 * relay's.  Each case below gives the client, or the relay, another way
 * out: then the relay's wait is not stuck on the server, and no chain. */
enum relay_case {
	RELAY_STUCK,          /* as above */
	RELAY_CLIENT_RUNS,    /* the client's thread is running */
	RELAY_CLIENT_TIMER,   /* the client's poll has a timeout */
	RELAY_CLIENT_OTHER,   /* the client also reads a pipe process 500 writes */
	RELAY_CLIENT_THREAD,  /* the client has a second thread, on a timer */
	RELAY_CLIENT_RCVTIMEO, /* the client's recv has an SO_RCVTIMEO */
	RELAY_RELAY_THREAD,   /* the relay has a second thread, running: it could wake the client */
	RELAY_SERVER_READS,   /* the server reads the relay's socket: all three wait to receive */
};

static size_t relay(struct lt_thread th[5], enum relay_case c)
{
	size_t n = 3;
	blocked(&th[0], 100, c == RELAY_CLIENT_TIMER || c == RELAY_CLIENT_OTHER ? 7 : 45,
		c == RELAY_CLIENT_TIMER || c == RELAY_CLIENT_OTHER ? LT_WAIT_POLL : LT_WAIT_IO);
	struct lt_wf_edge *e = edge(&th[0], 100, LT_WF_SOCKET, 200, LT_WFP_EVENTS);
	free(e->what);
	e->what = strdup("tcp 127.0.0.1:40000 -> 127.0.0.1:47312 (fd 3)");
	e->doing = strdup("200 (python3): select");
	if (c == RELAY_CLIENT_RUNS) {
		th[0].state = 'R';
		th[0].sc.state = LT_SC_RUNNING;
	}
	if (c == RELAY_CLIENT_TIMER) {
		e = lt_waitfor_add(&th[0], 100, LT_WF_TIMER);
		e->what = strdup("poll timeout 5000 ms");
	}
	if (c == RELAY_CLIENT_OTHER)
		edge(&th[0], 100, LT_WF_PIPE_READ, 500, LT_WFP_TIMED)->doing = strdup("500 (sleep): clock_nanosleep");
	if (c == RELAY_CLIENT_RCVTIMEO) {
		th[0].fdw.sock_timeo = LT_SOCK_TIMEO_SET;
		th[0].fdw.sock_timeo_ms = 20000;
	}
	blocked(&th[1], 200, 23, LT_WAIT_POLL);
	e = edge(&th[1], 200, LT_WF_SOCKET, 100, LT_WFP_BLOCKED);
	free(e->what);
	e->what = strdup("tcp 127.0.0.1:47312 -> 127.0.0.1:40000 (fd 4)");
	e->doing = strdup("100 (python3): recvfrom");
	e = edge(&th[1], 200, LT_WF_SOCKET, 300, LT_WFP_BLOCKED);
	free(e->what);
	e->what = strdup("tcp 127.0.0.1:40002 -> 127.0.0.1:47311 (fd 5)");
	e->doing = strdup(c == RELAY_SERVER_READS ? "300 (python3): recvfrom" : "300 (python3): flock");
	if (c == RELAY_SERVER_READS) {
		blocked(&th[2], 300, 45, LT_WAIT_IO);
		e = edge(&th[2], 300, LT_WF_SOCKET, 200, LT_WFP_EVENTS);
		free(e->what);
		e->what = strdup("tcp 127.0.0.1:47311 -> 127.0.0.1:40002 (fd 4)");
	} else {
		blocked(&th[2], 300, 73, LT_WAIT_IO);
		e = edge(&th[2], 300, LT_WF_FILE_LOCK, 400, LT_WFP_TIMED);
		free(e->what);
		e->what = strdup("FLOCK WRITE lock on /tmp/sw31/l");
		e->doing = strdup("400 (sleep): clock_nanosleep");
	}
	if (c == RELAY_CLIENT_THREAD) {
		blocked(&th[n], 101, 230, LT_WAIT_SLEEP);
		e = lt_waitfor_add(&th[n], 100, LT_WF_TIMER);
		e->what = strdup("clock_nanosleep 1 s");
		n++;
	}
	if (c == RELAY_RELAY_THREAD) {
		blocked(&th[n], 201, -1, LT_WAIT_NONE);
		th[n].state = 'R';
		th[n].sc.state = LT_SC_RUNNING;
		th[n].wf = calloc(1, sizeof(*th[n].wf));
		th[n].wf->pid = 200;
		n++;
	}
	return n;
}

static void no_deadlock(const struct lt_snapshot *s)
{
	for (size_t i = 0; i < s->n_verdicts; i++)
		cr_expect_neq(s->verdicts[i].kind, LT_VERDICT_DEADLOCK, "%s", s->verdicts[i].summary);
}

Test(waitfor_verdicts, a_relays_client_waiting_only_on_it_is_set_aside_client_relay_server_chain)
{
	struct lt_thread th[5];
	size_t n = relay(th, RELAY_STUCK);
	struct lt_snapshot s = { .pid = 100, .threads = th, .n_threads = n };
	cr_assert_eq(lt_snapshot_diagnose(&s, NULL), 0);
	no_deadlock(&s);
	cr_assert_not_null(verdict_of(&s, LT_VERDICT_LOCK_WAIT, 300), "the server's lock wait (first: %s)",
			   s.verdicts[0].summary);
	const struct lt_verdict *r = chain_of(&s, 200);
	cr_assert_not_null(r, "no chain of the relay (first: %s)", s.verdicts[0].summary);
	cr_expect_eq(r->n_tids, 1);
	cr_expect(strstr(r->summary, "thread 200 (t200) ") &&
		  strstr(r->summary, "waits for process 300, whose thread 300 (t300) is itself in a lock wait: thread "
			 "300 (t300) waits for a file lock: FLOCK WRITE lock on /tmp/sw31/l, held by process 400"),
		  "%s", r->summary);
	cr_expect(strstr(r->summary, "; process 100, also at the other end, waits only on this process 200 (each of "
				     "its threads does): it can end this wait only after process 200 wakes it, so it is "
				     "set aside (that nothing else, a signal say, wakes it first is inferred)"),
		  "%s", r->summary);
	cr_expect(!strstr(r->summary, "not process 100"), "the client is no other party: %s", r->summary);
	cr_expect(evidence_has(r, "set aside: thread 100 (t100) of process 100",
			       "on tcp 127.0.0.1:40000 -> 127.0.0.1:47312 (fd 3) <- peer held by 200, and waits on "
			       "nothing else"), "%s", r->summary);
	cr_expect(evidence_has(r, "waited for by: thread 100 (t100) of process 100", NULL), "%s", r->summary);
	const struct lt_verdict *c = chain_of(&s, 100);
	cr_assert_not_null(c, "no chain of the client");
	cr_expect_eq(c->n_tids, 1);
	cr_expect(strstr(c->summary, "thread 100 (t100) ") &&
		  strstr(c->summary, "waits for process 200, whose thread 200 (t200) is itself in a wait chain: thread "
			 "200 (t200)") && strstr(c->summary, "is itself in a lock wait"), "%s", c->summary);
	/* the chains in order: lock wait, relay, client */
	cr_expect(verdict_of(&s, LT_VERDICT_WAIT_CHAIN, 300) == NULL, "the server's wait is a lock wait only");
	free_snap(&s);
}

/* The relay's wait is not set aside past a client with a way out of its
 * own, nor past a client its own running thread could wake. */
static void relay_no_chain(enum relay_case c)
{
	struct lt_thread th[5];
	size_t n = relay(th, c);
	struct lt_snapshot s = { .pid = 100, .threads = th, .n_threads = n };
	cr_assert_eq(lt_snapshot_diagnose(&s, NULL), 0);
	no_deadlock(&s);
	cr_expect_not_null(verdict_of(&s, LT_VERDICT_LOCK_WAIT, 300), "the server's lock wait (first: %s)",
			   s.verdicts[0].summary);
	const struct lt_verdict *r = chain_of(&s, 200);
	cr_expect_null(r, "case %d: a chain of the relay: %s", (int)c, r ? r->summary : "");
	const struct lt_verdict *cl = chain_of(&s, 100);
	cr_expect_null(cl, "case %d: a chain of the client: %s", (int)c, cl ? cl->summary : "");
	free_snap(&s);
}

Test(waitfor_verdicts, a_relays_client_that_runs_is_not_set_aside)
{
	relay_no_chain(RELAY_CLIENT_RUNS);
}

Test(waitfor_verdicts, a_relays_client_on_a_timer_is_not_set_aside)
{
	relay_no_chain(RELAY_CLIENT_TIMER);
}

Test(waitfor_verdicts, a_relays_client_with_another_edge_is_not_set_aside)
{
	relay_no_chain(RELAY_CLIENT_OTHER);
}

Test(waitfor_verdicts, a_relays_client_with_another_thread_on_a_timer_is_not_set_aside)
{
	relay_no_chain(RELAY_CLIENT_THREAD);
}

Test(waitfor_verdicts, a_relays_client_whose_recv_has_a_timeout_is_not_set_aside)
{
	relay_no_chain(RELAY_CLIENT_RCVTIMEO);
}

Test(waitfor_verdicts, a_relay_with_a_running_thread_does_not_set_its_client_aside)
{
	relay_no_chain(RELAY_RELAY_THREAD);
}

static bool has_tid_of(const struct lt_verdict *v, pid_t tid)
{
	for (size_t k = 0; k < v->n_tids; k++)
		if (v->tids[k] == tid)
			return true;
	return false;
}

/* Client and server both read the relay's socket, the relay polls both:
 * nobody will send, a deadlock (client and relay, the server behind it), as before (the set-aside
 * rule draws no chain where the cycle search finds one).  And a relay
 * waiting only on its client (its server running) is no cycle with it. */
Test(waitfor_verdicts, a_relay_whose_client_and_server_both_wait_on_it_is_a_deadlock_not_a_chain)
{
	struct lt_thread th[5];
	size_t n = relay(th, RELAY_SERVER_READS);
	struct lt_snapshot s = { .pid = 100, .threads = th, .n_threads = n };
	cr_assert_eq(lt_snapshot_diagnose(&s, NULL), 0);
	const struct lt_verdict *v = &s.verdicts[0];
	cr_assert_eq(v->kind, LT_VERDICT_DEADLOCK, "%s", v->summary);
	cr_expect(v->n_tids == 2 && has_tid_of(v, 100) && has_tid_of(v, 200), "%s", v->summary);
	cr_expect(v->n_behind == 1 && v->behind[0] == 300, "the server's wait leads into it: %s", v->summary);
	cr_expect(chain_of(&s, 200) == NULL && chain_of(&s, 100) == NULL, "%s", v->summary);
	free_snap(&s);

	n = relay(th, RELAY_STUCK);
	th[2].state = 'R'; /* the server runs: the relay's wait may end */
	th[2].sc.state = LT_SC_RUNNING;
	struct lt_snapshot s2 = { .pid = 100, .threads = th, .n_threads = n };
	cr_assert_eq(lt_snapshot_diagnose(&s2, NULL), 0);
	no_deadlock(&s2);
	cr_expect(chain_of(&s2, 200) == NULL && chain_of(&s2, 100) == NULL, "%s", s2.verdicts[0].summary);
	free_snap(&s2);
}

/* Thread 100 holds a file lock (here a mutex) and reads a pipe whose
 * write end process 200 holds, which waits for that lock (it would write
 * once it has it), and process 300, on a timer, also holds: a circle that
 * 300 may yet end.  One snapshot cannot tell 300 from a helper that only
 * inherited the pipe: a chain into 200, the inference said (a review took
 * away such chains for a while, with multiprocessing's idle queue readers
 * in mind, which rt_idle.c now knows as idle: the circle went unsaid). */
Test(waitfor_verdicts, a_pipe_read_behind_a_party_waiting_for_the_readers_lock_is_a_hedged_chain)
{
	struct lt_thread th[3];
	blocked(&th[0], 100, 0, LT_WAIT_IO);
	struct lt_wf_edge *e = edge(&th[0], 100, LT_WF_PIPE_READ, 200, LT_WFP_BLOCKED);
	e->pids[1] = 300;
	e->n_pids = 2;
	blocked(&th[1], 200, 202, LT_WAIT_FUTEX);
	mutex_wait(&th[1], 200, 100);
	blocked(&th[2], 300, 230, LT_WAIT_SLEEP);
	lt_waitfor_add(&th[2], 300, LT_WF_TIMER)->what = strdup("clock_nanosleep 600 s");
	struct lt_snapshot s = { .pid = 100, .threads = th, .n_threads = 3 };
	cr_assert_eq(lt_snapshot_diagnose(&s, NULL), 0);
	cr_assert_not_null(verdict_of(&s, LT_VERDICT_LOCK_WAIT, 200), "200's own lock wait stays (first: %s)",
			   s.n_verdicts ? s.verdicts[0].summary : "");
	const struct lt_verdict *c = chain_of(&s, 100);
	cr_assert_not_null(c, "the circle through 200 (first: %s)", s.n_verdicts ? s.verdicts[0].summary : "");
	cr_expect(strstr(c->summary, "waits for process 200, whose thread 200 (t200) is itself in a lock wait") &&
		  strstr(c->summary, "(that it would, not process 300, also at the other end and in no such wait, is "
				     "inferred)"), "%s", c->summary);
	no_deadlock(&s);
	free_snap(&s);
}

/* Thread 100 reads a pipe its own process writes too (its thread 101
 * sleeps on a timer, then writes), and process 200, which inherited the
 * write end, waits for a file lock a blocked process holds: a chain into
 * 200, its own process said as a party that may end the wait (before: its
 * own process was left out of the parties unasked); with 101 asleep for
 * good, a chain whose parties name its own process. */
Test(waitfor_verdicts, a_pipe_its_own_process_may_write_is_a_chain_that_says_so)
{
	struct lt_thread th[4];
	blocked(&th[0], 100, 0, LT_WAIT_IO);
	/* the parties' state: the best of them, its own thread's timer */
	struct lt_wf_edge *e = edge(&th[0], 100, LT_WF_PIPE_READ, 100, LT_WFP_TIMED);
	e->pids[1] = 200;
	e->n_pids = 2;
	blocked(&th[1], 101, 230, LT_WAIT_SLEEP);
	lt_waitfor_add(&th[1], 100, LT_WF_TIMER)->what = strdup("clock_nanosleep 600 s");
	blocked(&th[2], 200, 73, LT_WAIT_IO);
	e = edge(&th[2], 200, LT_WF_FILE_LOCK, 300, LT_WFP_BLOCKED);
	free(e->what);
	e->what = strdup("FLOCK WRITE lock on /tmp/l");
	blocked(&th[3], 300, 0, LT_WAIT_IO);
	edge(&th[3], 300, LT_WF_PIPE_READ, 400, LT_WFP_BLOCKED);
	struct lt_snapshot s = { .pid = 100, .threads = th, .n_threads = 4 };
	cr_assert_eq(lt_snapshot_diagnose(&s, NULL), 0);
	cr_assert_not_null(verdict_of(&s, LT_VERDICT_LOCK_WAIT, 200), "200's own lock wait (first: %s)",
			   s.n_verdicts ? s.verdicts[0].summary : "");
	const struct lt_verdict *c = chain_of(&s, 100);
	cr_assert_not_null(c, "the chain into 200 (first: %s)", s.n_verdicts ? s.verdicts[0].summary : "");
	cr_expect(strstr(c->summary, "(that it would, not process 100 (this process, another of whose threads goes on "
				     "by itself), also at the other end and in no such wait, is inferred)"), "%s", c->summary);
	free_snap(&s);

	/* 101 asleep for good: none of its own can write; the chain stands */
	struct lt_thread th2[4];
	blocked(&th2[0], 100, 0, LT_WAIT_IO);
	e = edge(&th2[0], 100, LT_WF_PIPE_READ, 100, LT_WFP_BLOCKED);
	e->pids[1] = 200;
	e->n_pids = 2;
	blocked(&th2[1], 101, 202, LT_WAIT_FUTEX);
	th2[1].futex.is_wait = true;
	th2[1].futex.private_ = true;
	blocked(&th2[2], 200, 73, LT_WAIT_IO);
	e = edge(&th2[2], 200, LT_WF_FILE_LOCK, 300, LT_WFP_BLOCKED);
	free(e->what);
	e->what = strdup("FLOCK WRITE lock on /tmp/l");
	blocked(&th2[3], 300, 0, LT_WAIT_IO);
	edge(&th2[3], 300, LT_WF_PIPE_READ, 400, LT_WFP_BLOCKED);
	struct lt_snapshot s2 = { .pid = 100, .threads = th2, .n_threads = 4 };
	cr_assert_eq(lt_snapshot_diagnose(&s2, NULL), 0);
	c = chain_of(&s2, 100);
	cr_assert_not_null(c, "none of its own can write: a chain into 200 (first: %s)",
			   s2.n_verdicts ? s2.verdicts[0].summary : "");
	cr_expect(strstr(c->summary, "waits for processes 100, 200"), "its own process among the parties: %s", c->summary);
	free_snap(&s2);
}
