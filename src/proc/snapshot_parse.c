/* Pure parsers and decoders of the snapshot library: /proc text formats,
 * futex(2) operations, syscall classification.  No I/O here, so all of it
 * is unit-tested on fixed strings. */
#include <ctype.h>
#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "locktrace/futex.h"
#include "snapshot.h"
#include "locktrace/tracefile.h"
#include "snapshot_int.h"

/* futex(2) ABI constants (linux/futex.h). */
/* all but the flag bits: an unknown command keeps its own number */
#define FX_CMD_MASK (~(uint32_t)(LT_FUTEX_PRIVATE | LT_FUTEX_CLOCK_REALTIME))

static const char *skip_ws(const char *p)
{
	while (*p == ' ' || *p == '\t')
		p++;
	return p;
}

/* Parse one unsigned number (decimal or 0x-hex) and advance *pp. */
static int parse_u64(const char **pp, uint64_t *v)
{
	const char *p = skip_ws(*pp);
	if (!isxdigit((unsigned char)*p))
		return -EINVAL;
	char *end;
	errno = 0;
	unsigned long long x = strtoull(p, &end, 0);
	if (end == p || errno)
		return -EINVAL;
	*v = x;
	*pp = end;
	return 0;
}

int lt_parse_syscall_line(const char *line, struct lt_sc_line *out)
{
	memset(out, 0, sizeof(*out));
	out->state = LT_SC_UNREADABLE;
	out->nr = -1;
	if (!line)
		return -EINVAL;
	const char *p = skip_ws(line);
	if (strncmp(p, "running", 7) == 0) {
		out->state = LT_SC_RUNNING;
		return 0;
	}
	char *end;
	errno = 0;
	long nr = strtol(p, &end, 10);
	if (end == p || errno)
		return -EINVAL;
	p = end;
	if (nr == -1) {
		/* "-1 sp pc": blocked, but not in a system call */
		if (parse_u64(&p, &out->sp) || parse_u64(&p, &out->pc))
			return -EINVAL;
		out->state = LT_SC_NOT_IN_SYSCALL;
		return 0;
	}
	if (nr < 0)
		return -EINVAL;
	for (int i = 0; i < 6; i++)
		if (parse_u64(&p, &out->args[i]))
			return -EINVAL;
	if (parse_u64(&p, &out->sp) || parse_u64(&p, &out->pc))
		return -EINVAL;
	out->nr = nr;
	out->state = LT_SC_IN_SYSCALL;
	return 0;
}

int lt_parse_stat(const char *buf, char *comm, size_t comm_len, char *state)
{
	/* "pid (comm) S ...": comm may hold ')' and spaces, so take the last ')' */
	const char *open = buf ? strchr(buf, '(') : NULL;
	const char *close = buf ? strrchr(buf, ')') : NULL;
	if (!open || !close || close < open || close[1] != ' ' || !close[2])
		return -EINVAL;
	size_t n = (size_t)(close - open - 1);
	if (comm && comm_len) {
		if (n >= comm_len)
			n = comm_len - 1;
		memcpy(comm, open + 1, n);
		comm[n] = 0;
	}
	if (state)
		*state = close[2];
	return 0;
}

int lts_parse_stat_field(const char *buf, int field, unsigned long long *val)
{
	/* field numbers as in proc(5): 3 = state, 4 = ppid, 9 = flags, ... */
	const char *p = buf ? strrchr(buf, ')') : NULL;
	if (!p || field < 3)
		return -EINVAL;
	p++;
	for (int f = 3; f <= field; f++) {
		p = skip_ws(p);
		if (!*p)
			return -EINVAL;
		if (f == field) {
			char *end;
			errno = 0;
			*val = strtoull(p, &end, 10);
			return (end == p || errno) ? -EINVAL : 0;
		}
		while (*p && *p != ' ')
			p++;
	}
	return -EINVAL;
}

int lt_parse_sched_exec_start(const char *buf, int64_t *ns)
{
	const char *p = buf;
	while (p && *p) {
		if (strncmp(p, "se.exec_start", 13) == 0 && (p[13] == ' ' || p[13] == ':'))
			break;
		p = strchr(p, '\n');
		if (p)
			p++;
	}
	if (!p || !*p)
		return -ENOENT;
	p = strchr(p, ':');
	if (!p)
		return -EINVAL;
	p = skip_ws(p + 1);
	/* "%Ld.%06ld" milliseconds: parse exactly, no floating point */
	char *end;
	errno = 0;
	long long ms = strtoll(p, &end, 10);
	if (end == p || errno)
		return -EINVAL;
	long long frac = 0;
	int digits = 0;
	if (*end == '.') {
		for (end++; isdigit((unsigned char)*end); end++) {
			if (digits < 6) {
				frac = frac * 10 + (*end - '0');
				digits++;
			}
		}
		while (digits < 6) {
			frac *= 10;
			digits++;
		}
	}
	*ns = ms * 1000000LL + (ms < 0 ? -frac : frac);
	return 0;
}


size_t lt_futex_op_str(uint32_t op, char *buf, size_t len)
{
	/* strace's spelling: FUTEX_WAIT_BITSET_PRIVATE|FUTEX_CLOCK_REALTIME */
	uint32_t cmd = op & (uint32_t)FX_CMD_MASK;
	char base[48];
	const char *name = lt_futex_cmd_name(cmd);
	if (name)
		snprintf(base, sizeof(base), "%s%s", name,
			 (op & LT_FUTEX_PRIVATE) ? "_PRIVATE" : "");
	else
		snprintf(base, sizeof(base), "FUTEX_%#x%s", cmd,
			 (op & LT_FUTEX_PRIVATE) ? "|FUTEX_PRIVATE_FLAG" : "");
	int n = snprintf(buf, len, "%s%s", base,
			 (op & LT_FUTEX_CLOCK_REALTIME) ? "|FUTEX_CLOCK_REALTIME" : "");
	return n < 0 ? 0 : (size_t)n;
}

void lt_futex_decode_args(struct lt_futex *f, const uint64_t args[6])
{
	f->uaddr = args[0];
	f->op = (uint32_t)args[1];
	f->cmd = (int)(f->op & (uint32_t)FX_CMD_MASK);
	f->private_ = (f->op & LT_FUTEX_PRIVATE) != 0;
	f->clock_realtime = (f->op & LT_FUTEX_CLOCK_REALTIME) != 0;
	f->expected = (uint32_t)args[2];
	f->bitset = 0;
	f->timeout_ptr = 0;
	f->timeout_abs = false;
	f->is_wait = false;
	f->is_pi = false;
	switch (f->cmd) {
	case LT_FUTEX_WAIT:
		f->is_wait = true;
		f->timeout_ptr = args[3];
		break;
	case LT_FUTEX_WAIT_BITSET:
		f->is_wait = true;
		f->timeout_ptr = args[3];
		f->timeout_abs = true;
		f->bitset = (uint32_t)args[5];
		break;
	case LT_FUTEX_LOCK_PI:
	case LT_FUTEX_LOCK_PI2:
		f->is_wait = true;
		f->is_pi = true;
		f->timeout_ptr = args[3];
		f->timeout_abs = true;
		break;
	case LT_FUTEX_WAIT_REQUEUE_PI:
		/* waits on a plain futex (the condvar), requeued to the PI
		 * futex at uaddr2 = args[4] */
		f->is_wait = true;
		f->timeout_ptr = args[3];
		f->timeout_abs = true;
		f->bitset = 0xffffffffu;
		break;
	case LT_FUTEX_TRYLOCK_PI:
	case LT_FUTEX_UNLOCK_PI:
		f->is_pi = true;
		break;
	default:
		break;
	}
}

void lts_futex2_decode_args(struct lt_futex *f, const uint64_t args[6])
{
	/* futex_wait(void *uaddr, unsigned long val, unsigned long mask,
	 *            unsigned int flags, struct timespec *timeout, clockid_t) */
	f->uaddr = args[0];
	f->op = (uint32_t)args[3];
	f->cmd = -1;
	f->private_ = (f->op & 128) != 0;              /* FUTEX2_PRIVATE */
	f->clock_realtime = args[5] == 0;              /* CLOCK_REALTIME */
	f->expected = (uint32_t)args[1];
	f->bitset = (uint32_t)args[2];
	f->timeout_ptr = args[4];
	f->timeout_abs = true;
	f->is_wait = true;
	f->is_pi = false;
}

enum lt_wait_kind lt_syscall_wait_kind(long nr)
{
	switch (nr) {
	case 202: /* futex */
	case 455: /* futex_wait */
		return LT_WAIT_FUTEX;
	case 7:   /* poll */
	case 23:  /* select */
	case 232: /* epoll_wait */
	case 270: /* pselect6 */
	case 271: /* ppoll */
	case 281: /* epoll_pwait */
	case 441: /* epoll_pwait2 */
		return LT_WAIT_POLL;
	case 0: case 1: case 16: case 17: case 18: case 19: case 20:
	case 40: case 42: case 43: case 44: case 45: case 46: case 47:
	case 72: case 73: case 74: case 75: case 275: case 276: case 278:
	case 288: case 295: case 296: case 299: case 307: case 327: case 328:
		return LT_WAIT_IO; /* read write ioctl pread pwrite readv writev
				      sendfile connect accept sendto recvfrom
				      sendmsg recvmsg fcntl flock fsync fdatasync
				      splice tee vmsplice accept4 preadv pwritev
				      recvmmsg sendmmsg preadv2 pwritev2: fd in
				      arg 0 (splice, tee: lt_io_wait_fd) */
	case 34:  /* pause */
	case 35:  /* nanosleep */
	case 230: /* clock_nanosleep */
	case 219: /* restart_syscall: a timed call (a sleep, a poll or a futex
		     wait with a timeout) resumed after a stop or a tracer */
		return LT_WAIT_SLEEP;
	case 61:  /* wait4 */
	case 247: /* waitid */
		return LT_WAIT_CHILD;
	case 128: /* rt_sigtimedwait */
	case 130: /* rt_sigsuspend */
		return LT_WAIT_SIGNAL;
	default:
		return nr < 0 ? LT_WAIT_NONE : LT_WAIT_OTHER;
	}
}

static bool kstack_waits_for_space(const struct lt_thread *t)
{
	static const char *const fns[] = { "pipe_wait_writable+", "wait_for_space+", "opipe_prep" };
	for (size_t i = 0; i < t->kstack.n; i++)
		for (size_t k = 0; k < sizeof(fns) / sizeof(fns[0]); k++)
			if (!strncmp(t->kstack.v[i], fns[k], strlen(fns[k])))
				return true;
	return false;
}

bool lt_restart_untimed_poll(long nr, const uint64_t *a, const struct lt_strlist *ks, const char *text)
{
	if (nr != 219 || (int)a[2] >= 0)
		return false;
	if (text)
		return strstr(text, "do_restart_poll") != NULL;
	for (size_t k = 0; ks && k < ks->n; k++)
		if (strstr(ks->v[k], "do_restart_poll"))
			return true;
	return false;
}

bool lt_kstack_has(const struct lt_thread *t, const char *fn)
{
	size_t l = strlen(fn);
	for (size_t k = 0; k < t->kstack.n; k++)
		if (!strncmp(t->kstack.v[k], fn, l) && t->kstack.v[k][l] == '+')
			return true;
	return false;
}

bool lt_vfork_wait(const struct lt_thread *t)
{
	return t->wait == LT_WAIT_CHILD && (t->sc.nr == 58 || t->sc.nr == 56 || t->sc.nr == 435);
}

int lt_io_wait_fd(const struct lt_thread *t, int *dir)
{
	const uint64_t *a = t->sc.args;
	bool out = (t->sc.nr == 275 || t->sc.nr == 276 || t->sc.nr == 278) && kstack_waits_for_space(t);
	*dir = 3;
	switch (t->sc.nr) {
	case 275: /* splice(fd_in, off_in, fd_out, ...) */
		*dir = out ? 2 : 1;
		return (int)(out ? a[2] : a[0]);
	case 276: /* tee(fd_in, fd_out, ...) */
		*dir = out ? 2 : 1;
		return (int)(out ? a[1] : a[0]);
	case 278: /* vmsplice(fd, ...) */
		*dir = out ? 2 : 3;
		return (int)a[0];
	default:
		return (int)a[0];
	}
}

size_t lts_parse_epoll_fdinfo(const char *text, int *fds, unsigned *events, size_t max)
{
	/* lines: "tfd:        5 events:       19 data: ... pos:0 ino:... sdev:..." */
	size_t n = 0;
	for (const char *p = text; p && *p && n < max;) {
		if (strncmp(p, "tfd:", 4) == 0) {
			char *end;
			long fd = strtol(p + 4, &end, 10);
			const char *ev = strstr(end, "events:");
			const char *eol = strchr(p, '\n');
			if (end != p + 4 && ev && (!eol || ev < eol)) {
				fds[n] = (int)fd;
				events[n] = (unsigned)strtoul(ev + 7, NULL, 16);
				n++;
			}
		}
		p = strchr(p, '\n');
		if (p)
			p++;
	}
	return n;
}

int lts_format_inet(const char *hex, char *buf, size_t len)
{
	/* "0100007F:1F90" (IPv4) or 32 hex digits ":" port (IPv6); each 32-bit
	 * group is the raw network-order word printed as a host integer */
	const char *colon = strchr(hex, ':');
	if (!colon)
		return -EINVAL;
	size_t hl = (size_t)(colon - hex);
	unsigned port = (unsigned)strtoul(colon + 1, NULL, 16);
	unsigned char b[16];
	if (hl != 8 && hl != 32)
		return -EINVAL;
	for (size_t w = 0; w < hl / 8; w++) {
		char tmp[9];
		memcpy(tmp, hex + w * 8, 8);
		tmp[8] = 0;
		uint32_t v = (uint32_t)strtoul(tmp, NULL, 16);
		/* little-endian host: lowest byte first in memory */
		b[w * 4 + 0] = (unsigned char)(v & 0xff);
		b[w * 4 + 1] = (unsigned char)((v >> 8) & 0xff);
		b[w * 4 + 2] = (unsigned char)((v >> 16) & 0xff);
		b[w * 4 + 3] = (unsigned char)(v >> 24);
	}
	if (hl == 8) {
		snprintf(buf, len, "%u.%u.%u.%u:%u", b[0], b[1], b[2], b[3], port);
		return 0;
	}
	/* IPv4-mapped ::ffff:a.b.c.d */
	static const unsigned char mapped[12] = {0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0xff, 0xff};
	if (memcmp(b, mapped, 12) == 0) {
		snprintf(buf, len, "[::ffff:%u.%u.%u.%u]:%u", b[12], b[13], b[14], b[15], port);
		return 0;
	}
	/* plain groups, with the longest zero run compressed */
	int best = -1, bestlen = 0;
	for (int i = 0; i < 8;) {
		if (b[2 * i] == 0 && b[2 * i + 1] == 0) {
			int j = i;
			while (j < 8 && b[2 * j] == 0 && b[2 * j + 1] == 0)
				j++;
			if (j - i > bestlen && j - i > 1) {
				best = i;
				bestlen = j - i;
			}
			i = j;
		} else {
			i++;
		}
	}
	char out[64];
	size_t o = 0;
	out[o++] = '[';
	for (int i = 0; i < 8; i++) {
		if (i == best) {
			o += (size_t)snprintf(out + o, sizeof(out) - o, "::");
			i += bestlen - 1;
			continue;
		}
		if (o > 1 && out[o - 1] != ':')
			out[o++] = ':';
		o += (size_t)snprintf(out + o, sizeof(out) - o, "%x", (unsigned)(b[2 * i] << 8 | b[2 * i + 1]));
	}
	out[o] = 0;
	snprintf(buf, len, "%s]:%u", out, port);
	return 0;
}
