/* The network fd an "IO wait" goroutine waits on (rt_go*.c).
 *
 * The netpoller registers every fd with epoll, the event's data being its
 * runtime.pollDesc; /proc/PID/fdinfo of the epoll fd lists each fd with
 * that data.  A pollDesc starts with link and fd (every version since
 * 1.9), so a data word is taken for a pollDesc only when the fd read at
 * +8 is the fd the kernel lists.  A goroutine parked in the netpoller is
 * stored in the pollDesc's rg or wg word (its g's address), which follow
 * within the next words (+16..+48 for go1.17 to 1.22): the goroutine whose
 * g is one of them waits on that fd.  The fd is described as the snapshot
 * describes any fd (tcp 127.0.0.1:PORT LISTEN, ...). */
#include <dirent.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "rt_go_int.h"
#include "snapshot_int.h"

/* io: the indexes of the goroutines in IO wait, sorted by their g */
struct io_wait {
	uint64_t g;
	size_t i;
};

static int io_cmp(const void *a, const void *b)
{
	const struct io_wait *x = a, *y = b;
	return (x->g > y->g) - (x->g < y->g);
}

static void match_pd(struct go_ctx *c, struct lts_net **net, pid_t pid, int tfd, uint64_t data,
		     const struct io_wait *io, size_t nio)
{
	/* go1.20 and earlier: the pointer itself; 1.21+: a tagged pointer
	 * (its address in the high 48 bits); each is checked by its fd */
	const uint64_t cand[2] = { data, data >> 16 };
	for (int k = 0; k < 2; k++) {
		uint64_t w[7];
		if (!cand[k] || c->e->read(c->e->arg, cand[k], w, sizeof(w)) || w[1] != (uint64_t)tfd)
			continue;
		for (int j = 2; j < 7; j++) {
			struct io_wait key = { w[j], 0 };
			const struct io_wait *hit = w[j] ? bsearch(&key, io, nio, sizeof(*io), io_cmp) : NULL;
			struct lt_go_routine *r = hit ? &c->go->routines[hit->i] : NULL;
			if (!r || r->netfd)
				continue;
			struct lt_fd d = { 0 };
			if (!*net)
				*net = lts_net_new(pid);
			lts_describe_fd(pid, *net, tfd, &d);
			r->netfd = lts_asprintf("fd %d (%s)", tfd, d.desc ? d.desc : d.target ? d.target : "?");
			free(d.desc);
			free(d.target);
		}
		return;
	}
}

void go_netfds(struct go_ctx *c, pid_t pid)
{
	size_t n = 0;
	struct io_wait *io = calloc(c->go->n_routines ? c->go->n_routines : 1, sizeof(*io));
	for (size_t i = 0; io && i < c->go->n_routines; i++)
		if (c->go->routines[i].reason && !strcmp(c->go->routines[i].reason, "IO wait"))
			io[n++] = (struct io_wait){ c->go->routines[i].g, i };
	if (!n) {
		free(io);
		return;
	}
	qsort(io, n, sizeof(*io), io_cmp);
	char path[64], link[64];
	snprintf(path, sizeof(path), "/proc/%d/fd", (int)pid);
	DIR *d = opendir(path);
	if (!d) {
		free(io);
		return;
	}
	struct lts_net *net = NULL;
	struct dirent *de;
	while ((de = readdir(d))) {
		char lp[300];
		snprintf(lp, sizeof(lp), "/proc/%d/fd/%s", (int)pid, de->d_name);
		ssize_t l = readlink(lp, link, sizeof(link) - 1);
		if (l <= 0)
			continue;
		link[l] = 0;
		if (strcmp(link, "anon_inode:[eventpoll]"))
			continue;
		snprintf(lp, sizeof(lp), "/proc/%d/fdinfo/%s", (int)pid, de->d_name);
		FILE *f = fopen(lp, "re");
		if (!f)
			continue;
		char line[256];
		while (fgets(line, sizeof(line), f)) {
			int tfd;
			unsigned ev;
			uint64_t data;
			if (sscanf(line, "tfd: %d events: %x data: %" SCNx64, &tfd, &ev, &data) == 3)
				match_pd(c, &net, pid, tfd, data, io, n);
		}
		fclose(f);
	}
	closedir(d);
	free(io);
	if (net)
		lts_net_free(net);
}
