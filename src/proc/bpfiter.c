// SPDX-License-Identifier: MIT
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <bpf/bpf.h>
#include <bpf/libbpf.h>
#include "bpfiter.h"

int lt_bpf_iter_records(struct bpf_program *prog, pid_t tgid, size_t rec_size,
			int (*each)(const void *rec, void *ctx, char *err, size_t errlen), void *ctx,
			const char *what, char *err, size_t errlen)
{
	struct bpf_link *link = NULL;
	int fd = -1, ret = -1;
	unsigned char *rec = malloc(rec_size);
	if (!rec) {
		snprintf(err, errlen, "out of memory");
		return -1;
	}
	if (tgid > 0) {
		union bpf_iter_link_info li;
		memset(&li, 0, sizeof(li));
		li.task.pid = (uint32_t)tgid;
		LIBBPF_OPTS(bpf_iter_attach_opts, ao, .link_info = &li, .link_info_len = sizeof(li));
		link = bpf_program__attach_iter(prog, &ao);
	}
	if (!link)
		link = bpf_program__attach_iter(prog, NULL);
	if (!link) {
		snprintf(err, errlen, "attaching the %s: %s", what, strerror(errno));
		goto out;
	}
	fd = bpf_iter_create(bpf_link__fd(link));
	if (fd < 0) {
		snprintf(err, errlen, "creating the %s: %s", what, strerror(errno));
		goto out;
	}
	for (;;) {
		ssize_t got = read(fd, rec, rec_size);
		if (got < 0 && errno == EINTR)
			continue;
		if (got < 0) {
			snprintf(err, errlen, "reading the %s: %s", what, strerror(errno));
			goto out;
		}
		if (got == 0)
			break;
		if (got != (ssize_t)rec_size) {
			snprintf(err, errlen, "%s: short record (%zd bytes)", what, got);
			goto out;
		}
		if (each(rec, ctx, err, errlen))
			goto out;
	}
	ret = 0;
out:
	if (fd >= 0)
		close(fd);
	bpf_link__destroy(link);
	free(rec);
	return ret;
}
