// SPDX-License-Identifier: MIT
/* locktrace snapshot -p PID[,PID...] [--json] [--threshold SECONDS]
 * locktrace snapshot --from TRACE [--json]
 * (-p with --children, or --cgroup PATH: those processes, together)
 *
 * The command line of src/cli/snapshot_show.c.  With several processes, each
 * is snapshotted alone, then all are diagnosed together (lt_multi_build):
 * shared locks, owners and cycles across them.
 *
 * Called by main.c with argv[0] = "snapshot".  Exit codes: 0 snapshot
 * printed, 1 the snapshot could not be taken (or TRACE holds none), 2 usage
 * error, 3 TRACE is cut short (what it holds is printed). */
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>
#include "cli_opts.h"
#include "cli.h"
#include "snapshot.h"
#include "target.h"

enum { OPT_CONVOY = LT_OPT_LONG, OPT_MAXF, OPT_NOU, OPT_NOK, OPT_NOL, OPT_FROM, OPT_CHILDREN, OPT_CGROUP };

static const struct lt_opt opts[] = {
	{ "pid", 'p', "PID[,PID...]", "processes to inspect (-p may repeat)" },
	{ "children", OPT_CHILDREN, NULL, "also the descendants of the -p processes, diagnosed together" },
	{ "cgroup", OPT_CGROUP, "PATH",
	  "every process of a cgroup v2 and of the cgroups below it, diagnosed together; PATH absolute "
	  "or relative to the cgroup2 mount" },
	{ "from", OPT_FROM, "TRACE", "print the snapshots stored in TRACE instead" },
	{ "json", 'j', NULL,
	  "JSON output (schema in docs/snapshot.md; with --from, locktrace.stored-snapshots/1: each "
	  "with its occasion)" },
	{ "threshold", 't', "SECS", "lost wake-up: minimum sleep time (default 1)" },
	{ "convoy", OPT_CONVOY, "N", "convoy: minimum waiters on one lock (default 4)" },
	{ "max-frames", OPT_MAXF, "N", "user stack depth limit (default 64)" },
	{ "no-ustack", OPT_NOU, NULL, "skip user stacks" },
	{ "no-kstack", OPT_NOK, NULL, "skip kernel stacks" },
	{ "no-lines", OPT_NOL, NULL, "skip file:line lookups" },
	{ 0 },
};

static const struct lt_cli cli = {
	.usage = "Usage: locktrace snapshot -p PID[,PID...] [options]\n"
		 "       locktrace snapshot --from TRACE [--json]\n",
	.about = "Show what every thread of PID is blocked in right now, without stopping it;\n"
		 "or print the snapshots a recording stored in TRACE (at the start and at the\n"
		 "end, or at a flight dump), each labelled with when it was taken.\n"
		 "With several processes, diagnose them together: a lock in a shared mapping\n"
		 "is one lock, an owner in another given process is that thread, and\n"
		 "deadlock cycles span processes.\n",
	.opts = opts,
	.tail = "Exit status: 0 printed; 1 no snapshot could be taken (or TRACE holds none);\n"
		"2 usage error; 3 TRACE is cut short or damaged (the snapshots it holds are\n"
		"printed).\n",
};

const struct lt_cli *lt_snapshot_cli(void)
{
	return &cli;
}

static int parse_int(const char *s, long min, long max, long *out)
{
	uint64_t v;
	if (lt_parse_uint(s, (uint64_t)min, (uint64_t)max, &v))
		return -1;
	*out = (long)v;
	return 0;
}

/* The options into o, *pids, *json, *from; -1 to go on, or the exit
 * status (--help, --version, a usage error). */
static int parse(int argc, char **argv, struct lt_snapshot_opts *o, pid_t **pids, size_t *npids,
		 bool *json, const char **from, bool *children, const char **cgroup)
{
	struct lt_getopt g;
	bool live_opts = false;
	long v;
	int c;

	if (lt_getopt_init(&g, &cli))
		return 2;
	while ((c = lt_getopt_next(&g, argc, argv)) >= 0) {
		switch (c) {
		case 'p': {
			const char *bad;
			if (lt_parse_pid_list(optarg, pids, npids, &bad)) {
				lt_err("invalid pid '%s' in -p %s (PID[,PID...])", bad, optarg);
				return 2;
			}
			break;
		}
		case 'j':
			*json = true;
			break;
		case OPT_FROM:
			*from = optarg;
			break;
		case OPT_CHILDREN:
			*children = true;
			break;
		case OPT_CGROUP:
			*cgroup = optarg;
			break;
		case 't': {
			double d;
			if (lt_parse_seconds(optarg, &d)) {
				lt_err("invalid threshold '%s': expected %s", optarg, LT_SECONDS_HINT);
				return 2;
			}
			o->verdict.lost_wakeup_threshold_s = d;
			break;
		}
		case OPT_CONVOY:
			if (parse_int(optarg, 2, 1000000, &v)) {
				lt_err("invalid --convoy '%s' (2 or more)", optarg);
				return 2;
			}
			o->verdict.convoy_min_waiters = (int)v;
			break;
		case OPT_MAXF:
			if (parse_int(optarg, 1, 4096, &v)) {
				lt_err("invalid --max-frames '%s' (1-4096)", optarg);
				return 2;
			}
			o->max_frames = (int)v;
			break;
		case OPT_NOU:
			o->flags |= LT_SNAP_NO_USTACK;
			break;
		case OPT_NOK:
			o->flags |= LT_SNAP_NO_KSTACK;
			break;
		case OPT_NOL:
			o->flags |= LT_SNAP_NO_LINES;
			break;
		}
		live_opts |= c != 'j' && c != OPT_FROM && c != 'p' && c != OPT_CGROUP;
	}
	if (c == LT_CLI_EXIT)
		return g.status;
	if (optind < argc)
		return lt_cli_usage_error(&cli, "unexpected argument '%s'", argv[optind]);
	if (*from && (*npids || live_opts || *cgroup)) {
		lt_err("--from TRACE prints what was stored: only --json goes with it");
		return 2;
	}
	if (!*from && !*npids && !*cgroup)
		return lt_cli_usage_error(&cli, "give -p PID, --cgroup PATH, or --from TRACE");
	if (*children && !*npids) {
		lt_err("--children needs -p PID (--cgroup takes every process of the cgroup)");
		return 2;
	}
	return -1;
}

int lt_cmd_snapshot(int argc, char **argv)
{
	struct lt_snapshot_opts o = { 0 };
	pid_t *pids = NULL;
	size_t npids = 0;
	bool json = false;
	const char *from = NULL;

	bool children = false;
	const char *cgroup = NULL;

	int rc = parse(argc, argv, &o, &pids, &npids, &json, &from, &children, &cgroup);
	if (rc < 0 && children) {
		/* the roots are read while the list grows: a copy of them */
		pid_t *roots = malloc(npids * sizeof(*roots));
		if (roots)
			memcpy(roots, pids, npids * sizeof(*roots));
		if (!roots || lt_proc_descendants(roots, npids, &pids, &npids)) {
			lt_err("out of memory listing the descendants");
			rc = 1;
		}
		free(roots);
	}
	if (rc < 0 && cgroup) {
		struct lt_cgroup cg;
		char err[256];
		if (lt_cgroup_open(cgroup, &cg, err, sizeof(err))) {
			lt_err("--cgroup %s: %s", cgroup, err);
			rc = 1;
		} else {
			pid_t *nv = realloc(pids, (npids + cg.ntgids) * sizeof(*nv));
			if (nv) {
				memcpy(nv + npids, cg.tgids, cg.ntgids * sizeof(*nv));
				pids = nv;
				npids += cg.ntgids;
			} else {
				lt_err("out of memory listing the cgroup's processes");
				rc = 1;
			}
			lt_cgroup_free(&cg);
		}
	}
	if (rc < 0)
		rc = from ? lt_snapshot_show_stored(from, json) : lt_snapshot_show(pids, npids, &o, json);
	free(pids);
	return rc;
}
