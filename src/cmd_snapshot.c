/* locktrace snapshot -p PID[,PID...] [--json] [--threshold SECONDS]
 *
 * With several processes, each is snapshotted alone, then all are
 * diagnosed together (lt_multi_build): shared locks, owners and cycles
 * across them.
 * Called by main.c with argv[0] = "snapshot".  Exit codes: 0 snapshot
 * printed, 1 the snapshot could not be taken, 2 usage error. */
#include <errno.h>
#include <getopt.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "locktrace/cli.h"
#include "locktrace/snapshot.h"
#include "locktrace/target.h"
#include "locktrace/taskregs.h"

static void usage(FILE *f)
{
	fputs("Usage: locktrace snapshot -p PID[,PID...] [options]\n"
	      "Show what every thread of PID is blocked in right now, without stopping it.\n"
	      "With several processes, diagnose them together: a lock in a shared mapping\n"
	      "is one lock, an owner in another given process is that thread, and\n"
	      "deadlock cycles span processes.\n"
	      "\n"
	      "  -p, --pid PID[,PID...] processes to inspect (required; -p may repeat)\n"
	      "  -j, --json             JSON output (schema in docs/snapshot.md)\n"
	      "  -t, --threshold SECS   lost wake-up: minimum sleep time (default 1)\n"
	      "      --convoy N         convoy: minimum waiters on one lock (default 4)\n"
	      "      --max-frames N     user stack depth limit (default 64)\n"
	      "      --no-ustack        skip user stacks\n"
	      "      --no-kstack        skip kernel stacks\n"
	      "      --no-lines         skip file:line lookups\n"
	      "  -h, --help             this help\n", f);
}

static int parse_int(const char *s, long min, long max, long *out)
{
	char *end;
	errno = 0;
	long v = strtol(s, &end, 10);
	if (errno || end == s || *end || v < min || v > max)
		return -1;
	*out = v;
	return 0;
}

/* Snapshot PID into *out; 0, or 1 after saying why not. */
static int take_one(long pid, struct lt_snapshot_opts o, struct lt_snapshot **out)
{
	/* as root, the task iterator's registers unwind past libc's wrappers
	 * and its fs bases map pthread_t handles to threads; without them the
	 * snapshot falls back to /proc (said in its notes) */
	struct lt_tid_regs *regs = NULL;
	size_t nregs = 0;
	pid_t tgid;
	char rerr[256];
	if (geteuid() == 0 && lt_target_resolve((pid_t)pid, &tgid, rerr, sizeof(rerr)) == 0 &&
	    lt_taskregs_read(tgid, &regs, &nregs, rerr, sizeof(rerr)) == 0) {
		o.regs = regs;
		o.n_regs = nregs;
	}
	int r = lt_snapshot_take((pid_t)pid, &o, out);
	free(regs);
	switch (r) {
	case 0:
		return 0;
	case LT_SNAP_ENOPROC:
		fprintf(stderr, "Error: no process %ld\n", pid);
		return 1;
	case LT_SNAP_EKTHREAD:
		fprintf(stderr, "Error: %ld is a kernel thread\n", pid);
		return 1;
	case -EACCES:
	case -EPERM:
		fprintf(stderr, "Error: not allowed to inspect process %ld (%s): run as root or as its owner\n",
			pid, strerror(-r));
		return 1;
	default:
		fprintf(stderr, "Error: cannot snapshot process %ld: %s\n", pid, lt_snapshot_strerror(r));
		return 1;
	}
}

static bool blind(const struct lt_snapshot *s)
{
	return s->n_verdicts == 1 && s->verdicts[0].kind == LT_VERDICT_UNKNOWN;
}

static int snapshot_one(long pid, const struct lt_snapshot_opts *o, bool json)
{
	struct lt_snapshot *s = NULL;
	if (take_one(pid, *o, &s))
		return 1;
	if (json)
		lt_snapshot_print_json(stdout, s);
	else
		lt_snapshot_print_text(stdout, s);
	/* a snapshot without a single readable thread is no answer */
	bool none = blind(s);
	lt_snapshot_free(s);
	if (none) {
		fflush(stdout);
		fprintf(stderr, "Error: cannot read the system calls of process %ld's threads: "
			"run as root or as its owner\n", pid);
		return 1;
	}
	return 0;
}

/* Several processes: every snapshot, then one diagnosis of them all. */
static int snapshot_many(const pid_t *pids, size_t n, const struct lt_snapshot_opts *o, bool json)
{
	struct lt_snapshot **snaps = calloc(n, sizeof(*snaps));
	size_t got = 0;
	if (!snaps) {
		fprintf(stderr, "Error: out of memory\n");
		return 1;
	}
	for (size_t i = 0; i < n; i++) {
		if (take_one(pids[i], *o, &snaps[got])) {
			for (size_t k = 0; k < got; k++)
				lt_snapshot_free(snaps[k]);
			free(snaps);
			return 1;
		}
		bool dup = false; /* a tid given for its process, or twice */
		for (size_t k = 0; k < got; k++)
			dup |= snaps[k]->pid == snaps[got]->pid;
		if (dup)
			lt_snapshot_free(snaps[got]);
		else
			got++;
	}
	struct lt_multi_snapshot *m = NULL;
	if (lt_multi_build(snaps, got, &o->verdict, &m) < 0 || lt_multi_confirm(m) < 0) {
		fprintf(stderr, "Error: out of memory diagnosing %zu processes\n", got);
		if (!m) {
			for (size_t k = 0; k < got; k++)
				lt_snapshot_free(snaps[k]);
			free(snaps);
		}
		lt_multi_free(m);
		return 1;
	}
	if (json)
		lt_multi_print_json(stdout, m);
	else
		lt_multi_print_text(stdout, m);
	bool none = blind(&m->view);
	lt_multi_free(m);
	if (none) {
		fflush(stdout);
		fprintf(stderr, "Error: cannot read the system calls of these processes' threads: "
			"run as root or as their owner\n");
		return 1;
	}
	return 0;
}

int lt_cmd_snapshot(int argc, char **argv)
{
	enum { OPT_CONVOY = 256, OPT_MAXF, OPT_NOU, OPT_NOK, OPT_NOL };
	static const struct option longopts[] = {
		{ "pid", required_argument, NULL, 'p' },
		{ "json", no_argument, NULL, 'j' },
		{ "threshold", required_argument, NULL, 't' },
		{ "convoy", required_argument, NULL, OPT_CONVOY },
		{ "max-frames", required_argument, NULL, OPT_MAXF },
		{ "no-ustack", no_argument, NULL, OPT_NOU },
		{ "no-kstack", no_argument, NULL, OPT_NOK },
		{ "no-lines", no_argument, NULL, OPT_NOL },
		{ "help", no_argument, NULL, 'h' },
		{ NULL, 0, NULL, 0 },
	};
	struct lt_snapshot_opts o = { 0 };
	pid_t *pids = NULL;
	size_t npids = 0;
	long v;
	bool json = false;
	int c;
	optind = 0; /* full re-initialisation: main may have run getopt */
	while ((c = getopt_long(argc, argv, "p:jt:h", longopts, NULL)) != -1) {
		switch (c) {
		case 'p': {
			const char *bad;
			if (lt_parse_pid_list(optarg, &pids, &npids, &bad)) {
				fprintf(stderr, "Error: invalid pid '%s' in -p %s (PID[,PID...])\n", bad, optarg);
				free(pids);
				return 2;
			}
			break;
		}
		case 'j':
			json = true;
			break;
		case 't': {
			char *end;
			errno = 0;
			double d = strtod(optarg, &end);
			if (errno || end == optarg || *end || !(d > 0) || d > 1e9) {
				fprintf(stderr, "Error: invalid threshold '%s' (seconds, > 0)\n", optarg);
				return 2;
			}
			o.verdict.lost_wakeup_threshold_s = d;
			break;
		}
		case OPT_CONVOY:
			if (parse_int(optarg, 2, 1000000, &v)) {
				fprintf(stderr, "Error: invalid --convoy '%s' (2 or more)\n", optarg);
				return 2;
			}
			o.verdict.convoy_min_waiters = (int)v;
			break;
		case OPT_MAXF:
			if (parse_int(optarg, 1, 4096, &v)) {
				fprintf(stderr, "Error: invalid --max-frames '%s' (1-4096)\n", optarg);
				return 2;
			}
			o.max_frames = (int)v;
			break;
		case OPT_NOU:
			o.flags |= LT_SNAP_NO_USTACK;
			break;
		case OPT_NOK:
			o.flags |= LT_SNAP_NO_KSTACK;
			break;
		case OPT_NOL:
			o.flags |= LT_SNAP_NO_LINES;
			break;
		case 'h':
			usage(stdout);
			return 0;
		default:
			usage(stderr);
			return 2;
		}
	}
	if (optind < argc) {
		fprintf(stderr, "Error: unexpected argument '%s'\n", argv[optind]);
		usage(stderr);
		return 2;
	}
	if (!npids) {
		fprintf(stderr, "Error: -p PID is required\n");
		usage(stderr);
		return 2;
	}
	long pid = pids[0];
	int rc = 0;
	if (npids > 1) {
		rc = snapshot_many(pids, npids, &o, json);
		free(pids);
	} else {
		free(pids);
		rc = snapshot_one(pid, &o, json);
	}
	if (rc)
		return rc;
	if (fflush(stdout) != 0) {
		fprintf(stderr, "Error: writing output: %s\n", strerror(errno));
		return 1;
	}
	return 0;
}
