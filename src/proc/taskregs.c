// SPDX-License-Identifier: MIT
/* Reading every thread's saved user registers through the iter/task
 * program in bpf/taskregs.bpf.c. */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <bpf/bpf.h>
#include <bpf/libbpf.h>
#include "snapshot.h"
#include "locktrace/taskregs.h"
#include "taskregs.skel.h"
#include "grow.h"

static int quiet_print(enum libbpf_print_level l, const char *f, va_list ap)
{
	(void)l; (void)f; (void)ap;
	return 0;
}

int lt_taskregs_read(pid_t tgid, struct lt_tid_regs **out, size_t *n, char *err, size_t errlen)
{
	struct taskregs_bpf *skel = NULL;
	struct bpf_link *link = NULL;
	struct lt_tid_regs *v = NULL;
	size_t nv = 0, cap = 0;
	int fd = -1, ret = -1, r;

	*out = NULL;
	*n = 0;
	libbpf_print_fn_t old = libbpf_set_print(quiet_print);
	skel = taskregs_bpf__open();
	if (!skel) {
		snprintf(err, errlen, "opening the task iterator: %s", strerror(errno));
		goto out;
	}
	skel->rodata->targ_tgid = (uint32_t)tgid;
	r = taskregs_bpf__load(skel);
	if (r) {
		snprintf(err, errlen, "loading the task iterator: %s%s", strerror(-r),
			 r == -EPERM ? ": needs root or CAP_BPF+CAP_PERFMON" : "");
		goto out;
	}
	link = bpf_program__attach_iter(skel->progs.lt_dump_task_regs, NULL);
	if (!link) {
		snprintf(err, errlen, "attaching the task iterator: %s", strerror(errno));
		goto out;
	}
	fd = bpf_iter_create(bpf_link__fd(link));
	if (fd < 0) {
		snprintf(err, errlen, "creating the task iterator: %s", strerror(errno));
		goto out;
	}
	for (;;) {
		struct lt_taskregs_rec rec;
		ssize_t got = read(fd, &rec, sizeof(rec));
		if (got < 0 && errno == EINTR)
			continue;
		if (got < 0) {
			snprintf(err, errlen, "reading the task iterator: %s", strerror(errno));
			goto out;
		}
		if (got == 0)
			break;
		if (got != (ssize_t)sizeof(rec)) {
			snprintf(err, errlen, "task iterator: short record (%zd bytes)", got);
			goto out;
		}
		struct lt_tid_regs *nvv = lt_grow(v, &cap, nv, sizeof(*v), 64);
		if (!nvv) {
			snprintf(err, errlen, "out of memory");
			goto out;
		}
		v = nvv;
		struct lt_tid_regs *t = &v[nv++];
		memset(t, 0, sizeof(*t));
		t->tid = (pid_t)rec.tid;
		t->regs = (struct lt_regs){
			.ip = rec.ip, .sp = rec.sp, .bp = rec.bp, .bx = rec.bx, .r12 = rec.r12,
			.r13 = rec.r13, .r14 = rec.r14, .r15 = rec.r15, .ax = rec.ax, .cx = rec.cx,
			.dx = rec.dx, .si = rec.si, .di = rec.di, .r8 = rec.r8, .r9 = rec.r9,
			.r10 = rec.r10, .r11 = rec.r11, .orig_ax = rec.orig_ax, .fsbase = rec.fsbase,
		};
		t->stale = rec.state == 0; /* running: only the fs base holds */
	}
	*out = v;
	*n = nv;
	v = NULL;
	ret = 0;
out:
	if (fd >= 0)
		close(fd);
	bpf_link__destroy(link);
	taskregs_bpf__destroy(skel);
	libbpf_set_print(old);
	free(v);
	return ret;
}
