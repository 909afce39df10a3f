// SPDX-License-Identifier: MIT
/*
 * bench-prims OBJ [ROUNDS=7]: what one piece of BPF work costs here, built
 * from scripts/bench-prims.bpf.c and run by scripts/bench-prims.sh.
 *
 * In place: the ns a getppid() takes (the best of 24 batches of 4,000 in a
 * round) with no program attached, with empty programs on sys_enter and on
 * both sys_enter and sys_exit, and with the program on sys_enter running
 * each piece once a call; the configurations rotate from round to round.
 * Printed: the median over rounds, and the median of the difference to the
 * empty sys_enter program within each round (what the piece adds).
 * Hot: the same pieces run 1,000 times in a loop inside one program run,
 * the median over 30 runs of ns a piece, less the loop's own.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>
#include <sys/mman.h>
#include <sys/syscall.h>
#include <bpf/bpf.h>
#include <bpf/libbpf.h>

static const char *const pieces[] = {
	"nothing", "a clock read", "two clock reads", "a 64-byte ring record",
	"a 2,240-byte ring record, header only", "a 2,240-byte ring record with 2 KiB of stack",
	"a hash look-up by tgid", "an array look-up by tid (65,536 slots)",
	"a per-cpu array look-up", "a task-storage get (create)",
	"an 8-byte user read", "a 2 KiB user read (per-cpu scratch)",
};
#define NPIECES (int)(sizeof(pieces) / sizeof(*pieces))

struct ctx {
	struct bpf_object *obj;
	struct bpf_program *enter, *exit, *hot;
	struct bpf_link *le, *lx;
	struct bpf_map *bss;
	struct ring_buffer *ring;
};

/* the object's .bss, as the program sees it (same order as the source) */
struct bss {
	unsigned int piece, tgid;
	unsigned long long ubuf;
	unsigned long long hot_ns, failed, sink;
};

static struct bss *vars;

static int drop(void *c, void *d, size_t n)
{
	(void)c, (void)d, (void)n;
	return 0;
}

static double now_ns(void)
{
	struct timespec t;
	clock_gettime(CLOCK_MONOTONIC, &t);
	return t.tv_sec * 1e9 + t.tv_nsec;
}

static double per_call(struct ctx *c)
{
	double best = 1e18;
	/* 4,000 calls a batch: 9 MB of 2,240-byte records, less than the
	 * 16 MiB ring emptied after each */
	for (int b = 0; b < 24; b++) {
		double t0 = now_ns();
		for (int i = 0; i < 4000; i++)
			syscall(SYS_getppid);
		double v = (now_ns() - t0) / 4000;
		if (v < best)
			best = v;
		ring_buffer__consume(c->ring);
	}
	return best;
}

static int attach(struct ctx *c, int enter, int exit)
{
	if (enter && !c->le && !(c->le = bpf_program__attach(c->enter)))
		return -1;
	if (!enter && c->le) {
		bpf_link__destroy(c->le);
		c->le = NULL;
	}
	if (exit && !c->lx && !(c->lx = bpf_program__attach(c->exit)))
		return -1;
	if (!exit && c->lx) {
		bpf_link__destroy(c->lx);
		c->lx = NULL;
	}
	return 0;
}

static int cmp(const void *a, const void *b)
{
	double x = *(const double *)a, y = *(const double *)b;
	return x < y ? -1 : x > y;
}

static double median(double *v, int n)
{
	qsort(v, n, sizeof(*v), cmp);
	return n % 2 ? v[n / 2] : (v[n / 2 - 1] + v[n / 2]) / 2;
}

static int hot_run(struct ctx *c, int piece, double *ns)
{
	LIBBPF_OPTS(bpf_test_run_opts, o);
	vars->piece = piece;
	if (bpf_prog_test_run_opts(bpf_program__fd(c->hot), &o))
		return -1;
	*ns = vars->hot_ns / 1000.0;
	ring_buffer__consume(c->ring);
	return 0;
}

int main(int argc, char **argv)
{
	static char ubuf[8192] __attribute__((aligned(4096)));
	struct ctx c = { 0 };
	int rounds = argc > 2 ? atoi(argv[2]) : 7;
	size_t sz;

	if (argc < 2 || rounds < 1) {
		fprintf(stderr, "usage: bench-prims OBJECT [ROUNDS]\n");
		return 2;
	}
	memset(ubuf, 1, sizeof(ubuf));
	c.obj = bpf_object__open_file(argv[1], NULL);
	if (!c.obj || bpf_object__load(c.obj)) {
		fprintf(stderr, "bench-prims: cannot load %s: %s (run as root)\n", argv[1], strerror(errno));
		return 1;
	}
	c.enter = bpf_object__find_program_by_name(c.obj, "prim_enter");
	c.exit = bpf_object__find_program_by_name(c.obj, "prim_exit");
	c.hot = bpf_object__find_program_by_name(c.obj, "hot");
	for (struct bpf_map *m = bpf_object__next_map(c.obj, NULL); m; m = bpf_object__next_map(c.obj, m))
			if (strstr(bpf_map__name(m), ".bss"))
				c.bss = m;
	/* the map itself (libbpf 1.1 maps it only for a skeleton) */
	sz = c.bss ? bpf_map__value_size(c.bss) : 0;
	vars = sz >= sizeof(*vars) ? mmap(NULL, sz, PROT_READ | PROT_WRITE, MAP_SHARED, bpf_map__fd(c.bss), 0)
				   : MAP_FAILED;
	if (vars == MAP_FAILED)
		vars = NULL;
	c.ring = ring_buffer__new(bpf_map__fd(bpf_object__find_map_by_name(c.obj, "ring")), drop, NULL, NULL);
	if (!c.enter || !c.exit || !c.hot || !vars || !c.ring) {
		fprintf(stderr, "bench-prims: %s is not the object built from scripts/bench-prims.bpf.c\n", argv[1]);
		return 1;
	}
	unsigned int me = getpid();
	unsigned long long zero = 0;
	bpf_map_update_elem(bpf_map__fd(bpf_object__find_map_by_name(c.obj, "by_tgid")), &me, &zero, BPF_ANY);
	vars->tgid = me;
	vars->ubuf = (unsigned long long)(unsigned long)ubuf;

	/* every page of the ring written once first: a page's first write
	 * here costs microseconds (BENCHMARKS.md), a recording's only once */
	double ns;
	for (int i = 0; i < 20; i++)
		if (hot_run(&c, 4, &ns)) {
			fprintf(stderr, "bench-prims: BPF_PROG_TEST_RUN: %s\n", strerror(errno));
			return 1;
		}

	/* in place: configuration 0 none, 1 empty enter and exit, 2.. enter
	 * running piece k - 2 (2: nothing) */
	int nconf = NPIECES + 2;
	double (*v)[64] = calloc(nconf, sizeof(*v));
	if (rounds > 64)
		rounds = 64;
	for (int r = 0; r < rounds; r++)
		for (int k = 0; k < nconf; k++) {
			int i = (k + r) % nconf;
			int ok = i == 0 ? attach(&c, 0, 0) : i == 1 ? attach(&c, 1, 1) : attach(&c, 1, 0);
			if (ok) {
				fprintf(stderr, "bench-prims: attaching: %s\n", strerror(errno));
				return 1;
			}
			vars->piece = i >= 2 ? i - 2 : 0;
			v[i][r] = per_call(&c);
		}
	attach(&c, 0, 0);
	printf("in place: ns a getppid(), median of %d rounds [min-max]; + what the piece adds to an empty sys_enter program, median of the rounds' differences\n",
	       rounds);
	for (int i = 0; i < nconf; i++) {
		double d[64], s[64];
		for (int r = 0; r < rounds; r++) {
			d[r] = v[i][r] - v[2][r];
			s[r] = v[i][r];
		}
		double lo = s[0], hi = s[0];
		for (int r = 1; r < rounds; r++) {
			lo = s[r] < lo ? s[r] : lo;
			hi = s[r] > hi ? s[r] : hi;
		}
		const char *name = i == 0 ? "no program attached" :
				   i == 1 ? "empty programs on sys_enter and sys_exit" : NULL;
		if (name)
			printf("  %-52s %6.0f [%.0f-%.0f]\n", name, median(s, rounds), lo, hi);
		else
			printf("  sys_enter: %-41s %6.0f [%.0f-%.0f]  %+5.0f\n", pieces[i - 2], median(s, rounds), lo,
			       hi, median(d, rounds));
	}

	printf("hot (a loop in one program run, BPF_PROG_TEST_RUN): ns a piece, median of 30 runs, less the empty loop's\n");
	double base[30];
	for (int r = 0; r < 30; r++)
		if (hot_run(&c, 0, &base[r]))
			return 1;
	double b = median(base, 30);
	for (int p = 1; p < NPIECES; p++) {
		double h[30];
		for (int r = 0; r < 30; r++)
			if (hot_run(&c, p, &h[r]))
				return 1;
		printf("  %-52s %6.1f\n", pieces[p], median(h, 30) - b);
	}
	if (vars->failed)
		printf("(%llu ring records not reserved, the ring full: the ring rows are too low)\n", vars->failed);
	return 0;
}
