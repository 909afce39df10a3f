// SPDX-License-Identifier: MIT
/* Reading the receive and send timeouts of a process's sockets through the
 * iter/task_file program in bpf/socktimeo.bpf.c (SO_RCVTIMEO is in no
 * /proc file and no sock_diag attribute). */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <bpf/bpf.h>
#include <bpf/libbpf.h>
#include "bpfiter.h"
#include "locktrace/taskregs.h"
#include "socktimeo.skel.h"
#include "grow.h"

static int quiet_print(enum libbpf_print_level l, const char *f, va_list ap)
{
	(void)l; (void)f; (void)ap;
	return 0;
}

struct sockrecs {
	struct lt_socktimeo_rec *v;
	size_t n, cap;
};

static int add_rec(const void *r, void *ctx, char *err, size_t errlen)
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

int lt_socktimeo_read(pid_t tgid, struct lt_socktimeo_rec **out, size_t *n, char *err, size_t errlen)
{
	struct socktimeo_bpf *skel = NULL;
	struct sockrecs sr = { 0 };
	int ret = -1, r;

	*out = NULL;
	*n = 0;
	if (getenv("LOCKTRACE_NO_SOCKTIMEO")) { /* tests: as where BPF is unavailable */
		snprintf(err, errlen, "LOCKTRACE_NO_SOCKTIMEO is set");
		return -1;
	}
	libbpf_print_fn_t old = libbpf_set_print(quiet_print);
	skel = socktimeo_bpf__open();
	if (!skel) {
		snprintf(err, errlen, "opening the task-file iterator: %s", strerror(errno));
		goto out;
	}
	skel->rodata->targ_tgid = (uint32_t)tgid;
	r = socktimeo_bpf__load(skel);
	if (r) {
		snprintf(err, errlen, "loading the task-file iterator: %s%s", strerror(-r),
			 r == -EPERM ? ": needs root or CAP_BPF+CAP_PERFMON" : "");
		goto out;
	}
	/* only the process's own tasks (kernels since 6.1; older ones
	 * refuse the parameter: all tasks, the program keeps tgid's) */
	if (lt_bpf_iter_records(skel->progs.lt_dump_sock_timeo, tgid, sizeof(struct lt_socktimeo_rec), add_rec, &sr,
				"task-file iterator", err, errlen))
		goto out;
	*out = sr.v;
	*n = sr.n;
	sr.v = NULL;
	ret = 0;
out:
	socktimeo_bpf__destroy(skel);
	libbpf_set_print(old);
	free(sr.v);
	return ret;
}
