// SPDX-License-Identifier: MIT
/*
 * bench-floor OBJ: loads the BPF object built from scripts/bench-floor.bpf.c,
 * attaches every program in it, says "attached" on stdout and holds them
 * until SIGINT or SIGTERM.  scripts/bench.sh builds and runs it as the
 * "attached, nothing recorded" configuration.
 */
#include <signal.h>
#include <stdio.h>
#include <string.h>
#include <errno.h>
#include <bpf/libbpf.h>

#define MAX_LINKS 32

int main(int argc, char **argv)
{
	struct bpf_link *links[MAX_LINKS];
	struct bpf_program *prog;
	struct bpf_object *obj;
	int n = 0, sig, ret = 1;
	sigset_t set;

	if (argc != 2) {
		fprintf(stderr, "usage: bench-floor OBJECT\n");
		return 2;
	}
	/* the signals are taken synchronously below, so block them first */
	sigemptyset(&set);
	sigaddset(&set, SIGINT);
	sigaddset(&set, SIGTERM);
	sigprocmask(SIG_BLOCK, &set, NULL);

	obj = bpf_object__open_file(argv[1], NULL);
	if (!obj) {
		fprintf(stderr, "bench-floor: cannot open %s: %s\n", argv[1], strerror(errno));
		return 1;
	}
	if (bpf_object__load(obj)) {
		fprintf(stderr, "bench-floor: cannot load %s: %s\n", argv[1], strerror(errno));
		goto out;
	}
	bpf_object__for_each_program(prog, obj) {
		if (n == MAX_LINKS)
			break;
		links[n] = bpf_program__attach(prog);
		if (!links[n]) {
			fprintf(stderr, "bench-floor: cannot attach %s: %s\n", bpf_program__name(prog),
				strerror(errno));
			goto out;
		}
		n++;
	}
	printf("attached %d programs\n", n);
	fflush(stdout);
	sigwait(&set, &sig);
	ret = 0;
out:
	while (n > 0)
		bpf_link__destroy(links[--n]);
	bpf_object__close(obj);
	return ret;
}
