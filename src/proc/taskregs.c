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

struct regrecs {
	struct lt_tid_regs *v;
	size_t n, cap;
};

static int add_rec(const void *r, void *ctx, char *err, size_t errlen)
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

int lt_taskregs_read(pid_t tgid, struct lt_tid_regs **out, size_t *n, char *err, size_t errlen)
{
	struct taskregs_bpf *skel = NULL;
	struct regrecs rr = { 0 };
	int ret = -1, r;

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
	if (lt_bpf_iter_records(skel->progs.lt_dump_task_regs, 0, sizeof(struct lt_taskregs_rec), add_rec, &rr,
				"task iterator", err, errlen))
		goto out;
	*out = rr.v;
	*n = rr.n;
	rr.v = NULL;
	ret = 0;
out:
	taskregs_bpf__destroy(skel);
	libbpf_set_print(old);
	free(rr.v);
	return ret;
}
