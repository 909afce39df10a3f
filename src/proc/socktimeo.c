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
#include "locktrace/taskregs.h"
#include "socktimeo.skel.h"
#include "grow.h"

static int quiet_print(enum libbpf_print_level l, const char *f, va_list ap)
{
	(void)l; (void)f; (void)ap;
	return 0;
}

int lt_socktimeo_read(pid_t tgid, struct lt_socktimeo_rec **out, size_t *n, char *err, size_t errlen)
{
	struct socktimeo_bpf *skel = NULL;
	struct bpf_link *link = NULL;
	struct lt_socktimeo_rec *v = NULL;
	size_t nv = 0, cap = 0;
	int fd = -1, ret = -1, r;

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
	union bpf_iter_link_info li;
	memset(&li, 0, sizeof(li));
	li.task.pid = (uint32_t)tgid;
	LIBBPF_OPTS(bpf_iter_attach_opts, ao, .link_info = &li, .link_info_len = sizeof(li));
	link = bpf_program__attach_iter(skel->progs.lt_dump_sock_timeo, &ao);
	if (!link)
		link = bpf_program__attach_iter(skel->progs.lt_dump_sock_timeo, NULL);
	if (!link) {
		snprintf(err, errlen, "attaching the task-file iterator: %s", strerror(errno));
		goto out;
	}
	fd = bpf_iter_create(bpf_link__fd(link));
	if (fd < 0) {
		snprintf(err, errlen, "creating the task-file iterator: %s", strerror(errno));
		goto out;
	}
	for (;;) {
		struct lt_socktimeo_rec rec;
		ssize_t got = read(fd, &rec, sizeof(rec));
		if (got < 0 && errno == EINTR)
			continue;
		if (got < 0) {
			snprintf(err, errlen, "reading the task-file iterator: %s", strerror(errno));
			goto out;
		}
		if (got == 0)
			break;
		if (got != (ssize_t)sizeof(rec)) {
			snprintf(err, errlen, "task-file iterator: short record (%zd bytes)", got);
			goto out;
		}
		bool dup = false; /* threads that do not share the fd table list it again */
		for (size_t k = 0; k < nv && !dup; k++)
			dup = v[k].fd == rec.fd && v[k].ino == rec.ino;
		if (dup)
			continue;
		struct lt_socktimeo_rec *nvv = lt_grow(v, &cap, nv, sizeof(*v), 16);
		if (!nvv) {
			snprintf(err, errlen, "out of memory");
			goto out;
		}
		v = nvv;
		v[nv++] = rec;
	}
	*out = v;
	*n = nv;
	v = NULL;
	ret = 0;
out:
	if (fd >= 0)
		close(fd);
	bpf_link__destroy(link);
	socktimeo_bpf__destroy(skel);
	libbpf_set_print(old);
	free(v);
	return ret;
}
