// SPDX-License-Identifier: MIT
/* The snapshot's BPF iterators over one process, bpf/taskregs.bpf.c, one
 * object: every thread's saved user registers (iter/task) and the receive
 * and send timeouts of its sockets (iter/task_file: SO_RCVTIMEO is in no
 * /proc file and no sock_diag attribute).  Loaded once per snapshot (the
 * vmlinux BTF is parsed once); the task-file iterator is run only when a
 * thread blocks in socket I/O.  A kernel that refuses the task-file
 * iterator gets the object loaded again without it: the registers still
 * come, the socket timeouts are not known. */
#include <errno.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/utsname.h>
#include <unistd.h>
#include <zlib.h>
#include <bpf/bpf.h>
#include <bpf/libbpf.h>
#include "bpfiter.h"
#include "snapshot.h"
#include "locktrace/taskregs.h"
#include "taskregs.skel.h"
#include "grow.h"

static int quiet_print(enum libbpf_print_level l, const char *f, va_list ap)
{
	(void)l; (void)f; (void)ap;
	return 0;
}

struct lt_taskiter {
	struct taskregs_bpf *skel;
	pid_t tgid;
	bool socks;            /* the task-file iterator is loaded */
	char sock_err[320];    /* why it is not */
};

struct regrecs {
	struct lt_tid_regs *v;
	size_t n, cap;
};

static int add_regs(const void *r, void *ctx, char *err, size_t errlen)
{
	struct regrecs *rr = ctx;
	struct lt_taskregs_rec rec;
	memcpy(&rec, r, sizeof(rec));
	struct lt_tid_regs *nv = lt_grow(rr->v, &rr->cap, rr->n, sizeof(*nv), 64);
	if (!nv) {
		snprintf(err, errlen, "out of memory");
		return -1;
	}
	rr->v = nv;
	struct lt_tid_regs *t = &rr->v[rr->n++];
	memset(t, 0, sizeof(*t));
	t->tid = (pid_t)rec.tid;
	t->regs = (struct lt_regs){
		.ip = rec.ip, .sp = rec.sp, .bp = rec.bp, .bx = rec.bx, .r12 = rec.r12,
		.r13 = rec.r13, .r14 = rec.r14, .r15 = rec.r15, .ax = rec.ax, .cx = rec.cx,
		.dx = rec.dx, .si = rec.si, .di = rec.di, .r8 = rec.r8, .r9 = rec.r9,
		.r10 = rec.r10, .r11 = rec.r11, .orig_ax = rec.orig_ax, .fsbase = rec.fsbase,
	};
	t->stale = rec.state == 0; /* running: only the fs base holds */
	return 0;
}

struct sockrecs {
	struct lt_socktimeo_rec *v;
	size_t n, cap;
};

static int add_sock(const void *r, void *ctx, char *err, size_t errlen)
{
	struct sockrecs *sr = ctx;
	struct lt_socktimeo_rec rec;
	memcpy(&rec, r, sizeof(rec));
	/* threads that do not share the fd table list it again */
	for (size_t k = 0; k < sr->n; k++)
		if (sr->v[k].fd == rec.fd && sr->v[k].ino == rec.ino)
			return 0;
	struct lt_socktimeo_rec *nv = lt_grow(sr->v, &sr->cap, sr->n, sizeof(*nv), 16);
	if (!nv) {
		snprintf(err, errlen, "out of memory");
		return -1;
	}
	sr->v = nv;
	sr->v[sr->n++] = rec;
	return 0;
}

/* Opens and loads the skeleton for tgid, the task-file iterator with it
 * when SOCKS; a skeleton that failed to load cannot be loaded again.  NULL
 * with err (and -errno in *rp) on failure. */
static struct taskregs_bpf *load(pid_t tgid, bool socks, int *rp, char *err, size_t errlen)
{
	struct taskregs_bpf *skel = taskregs_bpf__open();
	*rp = -errno;
	if (!skel) {
		snprintf(err, errlen, "opening the task iterator: %s", strerror(errno));
		return NULL;
	}
	skel->rodata->targ_tgid = (uint32_t)tgid;
	if (!socks)
		bpf_program__set_autoload(skel->progs.lt_dump_sock_timeo, false);
	else if (getenv("LOCKTRACE_NO_SOCKTIMEO")) /* tests: the kernel refuses it, as an old one would */
		bpf_program__set_type(skel->progs.lt_dump_sock_timeo, BPF_PROG_TYPE_SOCKET_FILTER);
	*rp = taskregs_bpf__load(skel);
	if (*rp) {
		snprintf(err, errlen, "%s", strerror(-*rp));
		taskregs_bpf__destroy(skel);
		return NULL;
	}
	return skel;
}

static int open_iter(pid_t tgid, bool socks, struct lt_taskiter **out, char *err, size_t errlen)
{
	struct lt_taskiter *it = calloc(1, sizeof(*it));
	char why[200];
	int r;

	*out = NULL;
	if (!it) {
		snprintf(err, errlen, "out of memory");
		return -1;
	}
	it->tgid = tgid;
	snprintf(it->sock_err, sizeof(it->sock_err), "the task-file iterator was not loaded");
	libbpf_print_fn_t old = libbpf_set_print(quiet_print);
	it->skel = load(tgid, socks, &r, why, sizeof(why));
	if (it->skel) {
		it->socks = socks;
	} else if (socks && r != -EPERM) {
		/* the task-file iterator alone may be what the kernel refuses:
		 * the registers without it */
		snprintf(it->sock_err, sizeof(it->sock_err), "loading the task-file iterator: %s%s", why,
			 getenv("LOCKTRACE_NO_SOCKTIMEO") ? " (LOCKTRACE_NO_SOCKTIMEO is set)" : "");
		it->skel = load(tgid, false, &r, why, sizeof(why));
	}
	libbpf_set_print(old);
	if (!it->skel) {
		snprintf(err, errlen, "loading the task iterator: %s%s", why,
			 r == -EPERM ? ": needs root or CAP_BPF+CAP_PERFMON" : "");
		free(it);
		return -1;
	}
	*out = it;
	return 0;
}

int lt_taskiter_open(pid_t tgid, struct lt_taskiter **out, char *err, size_t errlen)
{
	return open_iter(tgid, true, out, err, errlen);
}

void lt_taskiter_close(struct lt_taskiter *it)
{
	if (!it)
		return;
	taskregs_bpf__destroy(it->skel);
	free(it);
}

pid_t lt_taskiter_tgid(const struct lt_taskiter *it)
{
	return it->tgid;
}

int lt_taskiter_regs(struct lt_taskiter *it, struct lt_tid_regs **out, size_t *n, char *err, size_t errlen)
{
	struct regrecs rr = { 0 };

	*out = NULL;
	*n = 0;
	if (lt_bpf_iter_records(it->skel->progs.lt_dump_task_regs, 0, sizeof(struct lt_taskregs_rec), add_regs,
				&rr, "task iterator", err, errlen)) {
		free(rr.v);
		return -1;
	}
	*out = rr.v;
	*n = rr.n;
	return 0;
}

/* The kernel's HZ, read once per process: what libbpf would read for a
 * __kconfig extern (/boot/config-RELEASE, else /proc/config.gz). */
static unsigned kernel_hz_v;
static void kernel_hz_once(void)
{
	struct utsname u;
	char path[300];
	if (uname(&u) == 0) {
		snprintf(path, sizeof(path), "/boot/config-%s", u.release);
		kernel_hz_v = lt_kconfig_hz(path);
	}
	if (!kernel_hz_v)
		kernel_hz_v = lt_kconfig_hz("/proc/config.gz");
}

unsigned lt_kconfig_hz(const char *path)
{
	gzFile f = gzopen(path, "r"); /* reads a plain file too */
	char line[256];
	unsigned hz = 0;
	if (!f)
		return 0;
	while (!hz && gzgets(f, line, sizeof(line)))
		if (!strncmp(line, "CONFIG_HZ=", 10))
			hz = (unsigned)strtoul(line + 10, NULL, 10);
	gzclose(f);
	return hz;
}

int lt_taskiter_socktimeo(struct lt_taskiter *it, struct lt_socktimeo_rec **out, size_t *n, unsigned *hz,
			  char *err, size_t errlen)
{
	static pthread_once_t once = PTHREAD_ONCE_INIT;
	struct sockrecs sr = { 0 };

	*out = NULL;
	*n = 0;
	*hz = 0;
	if (!it->socks) {
		snprintf(err, errlen, "%s", it->sock_err);
		return -1;
	}
	/* only the process's own tasks (kernels since 6.1; older ones
	 * refuse the parameter: all tasks, the program keeps tgid's) */
	if (lt_bpf_iter_records(it->skel->progs.lt_dump_sock_timeo, it->tgid, sizeof(struct lt_socktimeo_rec),
				add_sock, &sr, "task-file iterator", err, errlen)) {
		free(sr.v);
		return -1;
	}
	pthread_once(&once, kernel_hz_once);
	*out = sr.v;
	*n = sr.n;
	*hz = kernel_hz_v;
	return 0;
}

int lt_taskregs_read(pid_t tgid, struct lt_tid_regs **out, size_t *n, char *err, size_t errlen)
{
	struct lt_taskiter *it;

	*out = NULL;
	*n = 0;
	if (open_iter(tgid, false, &it, err, errlen))
		return -1;
	int r = lt_taskiter_regs(it, out, n, err, errlen);
	lt_taskiter_close(it);
	return r;
}
