/* locktrace snapshot -p PID[,PID...] [--json] [--threshold SECONDS]
 * locktrace snapshot --from TRACE [--json]
 *
 * With several processes, each is snapshotted alone, then all are
 * diagnosed together (lt_multi_build): shared locks, owners and cycles
 * across them.
 *
 * Called by main.c with argv[0] = "snapshot".  Exit codes: 0 snapshot
 * printed, 1 the snapshot could not be taken (or TRACE holds none), 2 usage
 * error, 3 TRACE is cut short (what it holds is printed). */
#include <errno.h>
#include <fcntl.h>
#include <getopt.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "locktrace/cli.h"
#include "locktrace/jsonw.h"
#include "locktrace/snapshot.h"
#include "locktrace/target.h"
#include "locktrace/taskregs.h"
#include "locktrace/tracefile.h"

static void usage(FILE *f)
{
	fputs("Usage: locktrace snapshot -p PID[,PID...] [options]\n"
	      "       locktrace snapshot --from TRACE [--json]\n"
	      "Show what every thread of PID is blocked in right now, without stopping it;\n"
	      "or print the snapshots a recording stored in TRACE (at the start and at the\n"
	      "end, or at a flight dump), each labelled with when it was taken.\n"
	      "With several processes, diagnose them together: a lock in a shared mapping\n"
	      "is one lock, an owner in another given process is that thread, and\n"
	      "deadlock cycles span processes.\n"
	      "\n"
	      "  -p, --pid PID[,PID...] processes to inspect (-p may repeat)\n"
	      "      --from TRACE       print the snapshots stored in TRACE instead\n"
	      "  -j, --json             JSON output (schema in docs/snapshot.md; with --from,\n"
	      "                         locktrace.stored-snapshots/1: each with its occasion)\n"
	      "  -t, --threshold SECS   lost wake-up: minimum sleep time (default 1)\n"
	      "      --convoy N         convoy: minimum waiters on one lock (default 4)\n"
	      "      --max-frames N     user stack depth limit (default 64)\n"
	      "      --no-ustack        skip user stacks\n"
	      "      --no-kstack        skip kernel stacks\n"
	      "      --no-lines         skip file:line lookups\n"
	      "  -h, --help             this help\n"
	      "\n"
	      "Exit status: 0 printed; 1 no snapshot could be taken (or TRACE holds none);\n"
	      "2 usage error; 3 TRACE is cut short (the snapshots it holds are printed).\n", f);
}

/* ---- --from TRACE ---- */

struct stored {
	char *json;
	size_t len;
	char occasion[16]; /* as stored, "" if not */
};

struct stored_set {
	struct stored *v;
	size_t n;
	struct lt_header hdr;
	int cut;
};

/* The "occasion" of a stored snapshot, cheaply (the text is large). */
static void occasion_of(struct stored *st)
{
	const char key[] = "\"occasion\":\"";
	size_t head = st->len < 512 ? st->len : 512;
	const char *p = memmem(st->json, head, key, sizeof(key) - 1);
	if (p)
		sscanf(p + sizeof(key) - 1, "%15[a-z0-9]", st->occasion);
}

static int read_stored(const char *path, struct stored_set *set)
{
	struct lt_reader rd;
	struct lt_item it;
	char err[512];

	memset(set, 0, sizeof(*set));
	if (lt_reader_open(&rd, path, err, sizeof(err))) {
		fprintf(stderr, "Error: %s\n", err);
		return -1;
	}
	while (lt_reader_next(&rd, &it) > 0) {
		if (it.type != LT_ITEM_SECTION || it.sec_type != LT_CHUNK_SNAPSHOT)
			continue;
		struct stored *nv = realloc(set->v, (set->n + 1) * sizeof(*nv));
		char *copy = malloc(it.len + 1);
		if (nv)
			set->v = nv;
		if (!nv || !copy) {
			free(copy);
			fprintf(stderr, "Error: out of memory reading %s\n", path);
			break;
		}
		memcpy(copy, it.data, it.len);
		copy[it.len] = 0;
		set->v[set->n] = (struct stored){ copy, it.len, "" };
		occasion_of(&set->v[set->n++]);
	}
	set->cut = !rd.clean_end || rd.stop_reason[0];
	if (set->cut)
		fprintf(stderr, "locktrace: warning: %s is cut short (%s); its snapshots before that are "
			"printed\n", path, rd.stop_reason[0] ? rd.stop_reason : "no end marker");
	set->hdr = rd.hdr;
	rd.hdr.threads = NULL;
	rd.hdr.nthreads = 0;
	lt_reader_close(&rd);
	return 0;
}

static void free_stored(struct stored_set *set)
{
	for (size_t i = 0; i < set->n; i++)
		free(set->v[i].json);
	free(set->v);
	lt_header_free(&set->hdr);
}

static const char *occasion_words(const char *o)
{
	if (!strcmp(o, "start"))
		return "at the start of the recording";
	if (!strcmp(o, "end"))
		return "at the end of the recording";
	if (!strcmp(o, "stall"))
		return "when the stall was detected";
	if (!strcmp(o, "sigusr1"))
		return "on SIGUSR1";
	if (!strcmp(o, "dump"))
		return "at the flight dump";
	return "at a trigger";
}

static const char *occasion_at(const struct stored_set *set, size_t i)
{
	return lt_snapshot_occasion(set->v[i].occasion[0] ? set->v[i].occasion : NULL, i, set->n,
				    !!(set->hdr.flags & LT_HDR_FLIGHT));
}

static int print_stored_text(const char *path, const struct stored_set *set)
{
	int bad = 0;

	for (size_t i = 0; i < set->n; i++) {
		struct lt_snapshot *s;
		char err[200];
		const char *o = occasion_at(set, i);
		printf("%s== stored snapshot %zu of %zu in %s: %s", i ? "\n" : "", i + 1, set->n, path,
		       occasion_words(o));
		if (lt_snapshot_from_json(set->v[i].json, set->v[i].len, &s, err, sizeof(err))) {
			printf(" ==\n");
			fprintf(stderr, "Error: stored snapshot %zu of %s cannot be read: %s\n", i + 1, path,
				err);
			bad = 1;
			continue;
		}
		if (!(set->hdr.flags & LT_HDR_FLIGHT) && s->taken_monotonic_ns > 0)
			printf(", %.1f s after it began",
			       (double)((int64_t)s->taken_monotonic_ns - (int64_t)set->hdr.clock_monotonic) / 1e9);
		printf(" ==\n");
		lt_snapshot_print_text(stdout, s);
		lt_snapshot_free(s);
	}
	return bad;
}

/* The stored snapshots as they are in the trace, each with its occasion;
 * 0 or a write error (a negative errno). */
static int print_stored_json(const char *path, const struct stored_set *set)
{
	struct jw w;
	jw_init(&w, stdout, JW_COMPACT);
	jw_object(&w);
	jw_kstr(&w, "schema", "locktrace.stored-snapshots/1");
	jw_kstr(&w, "trace", path);
	jw_karray(&w, "snapshots");
	jw_lines(&w, 0, 0);
	for (size_t i = 0; i < set->n; i++) {
		jw_object(&w);
		jw_kstr(&w, "occasion", occasion_at(set, i));
		jw_key(&w, "snapshot");
		jw_raw(&w, set->v[i].json, set->v[i].len);
		jw_end(&w);
	}
	jw_end(&w);
	jw_end(&w);
	return jw_finish(&w);
}

static int snapshot_from_trace(const char *path, bool json)
{
	struct stored_set set;

	if (read_stored(path, &set))
		return 1;
	if (!set.n) {
		fprintf(stderr, "Error: %s holds no snapshot (recorded with --no-snapshot, or cut short "
			"before the first): nothing to print\n", path);
		free_stored(&set);
		return 1;
	}
	int bad = 0;
	int werr = json ? print_stored_json(path, &set) : 0;
	if (werr) {
		fprintf(stderr, "Error: writing output: %s\n", strerror(-werr));
		bad = 1;
	} else if (!json)
		bad = print_stored_text(path, &set);
	int rc = bad ? 1 : set.cut ? 3 : 0;
	free_stored(&set);
	if (fflush(stdout) != 0) {
		fprintf(stderr, "Error: writing output: %s\n", strerror(errno));
		return 1;
	}
	return rc;
}

/* ---- -p PID ---- */

/* The uid that owns process pid (from /proc/PID/status), -1 unknown. */
static long owner_uid(pid_t pid)
{
	char path[64], line[256];
	long uid = -1;
	snprintf(path, sizeof(path), "/proc/%d/status", (int)pid);
	FILE *f = fopen(path, "r");
	if (!f)
		return -1;
	while (fgets(line, sizeof(line), f))
		if (!strncmp(line, "Uid:", 4))
			uid = strtol(line + 4, NULL, 10);
	fclose(f);
	return uid;
}

/* Before anything is printed: may we read what pid's threads do?  Its
 * syscall file needs the right to trace it.  0, or 1 with the message
 * printed (nothing else is). */
static int denied(pid_t pid)
{
	char path[64], buf[64];
	snprintf(path, sizeof(path), "/proc/%d/syscall", (int)pid);
	int fd = open(path, O_RDONLY | O_CLOEXEC);
	ssize_t n = fd < 0 ? -1 : read(fd, buf, sizeof(buf));
	int e = errno;
	if (fd >= 0)
		close(fd);
	if (n >= 0 || (e != EACCES && e != EPERM))
		return 0; /* readable, or gone: lt_snapshot_take says which */
	fprintf(stderr, "Error: not allowed to inspect process %d (owned by uid %ld; locktrace runs as "
		"uid %ld): run it as root, or as the process's owner\n", (int)pid, owner_uid(pid),
		(long)geteuid());
	return 1;
}

/* lt_snapshot_take's failures, said plainly.  0 if it took one. */
static int take(pid_t pid, const struct lt_snapshot_opts *o, struct lt_snapshot **s)
{
	int r = lt_snapshot_take(pid, o, s);
	switch (r) {
	case 0:
		return 0;
	case LT_SNAP_ENOPROC:
		fprintf(stderr, "Error: no process %d\n", (int)pid);
		return 1;
	case LT_SNAP_EKTHREAD:
		fprintf(stderr, "Error: %d is a kernel thread\n", (int)pid);
		return 1;
	case -EACCES:
	case -EPERM:
		fprintf(stderr, "Error: not allowed to inspect process %d (%s): run as root or as its owner\n",
			(int)pid, strerror(-r));
		return 1;
	default:
		fprintf(stderr, "Error: cannot snapshot process %d: %s\n", (int)pid, lt_snapshot_strerror(r));
		return 1;
	}
}

/* A snapshot of pid, with the task iterator's registers as root: they
 * unwind past libc's wrappers and their fs bases map pthread_t handles to
 * threads; without them the snapshot falls back to /proc (said in its
 * notes).  0, or 1 after saying why not. */
static int take_live(pid_t pid, struct lt_snapshot_opts o, struct lt_snapshot **s)
{
	struct lt_tid_regs *regs = NULL;
	size_t nregs = 0;
	pid_t tgid;
	char rerr[256];

	int found = lt_target_resolve(pid, &tgid, rerr, sizeof(rerr)) == 0;
	if (found && denied(tgid))
		return 1;
	if (geteuid() == 0 && found && lt_taskregs_read(tgid, &regs, &nregs, rerr, sizeof(rerr)) == 0) {
		o.regs = regs;
		o.n_regs = nregs;
	}
	int r = take(pid, &o, s);
	free(regs);
	return r;
}

/* A snapshot without a single readable thread is no answer. */
static bool blind(const struct lt_snapshot *s)
{
	return s->n_verdicts == 1 && s->verdicts[0].kind == LT_VERDICT_UNKNOWN;
}

static int flush_out(void)
{
	if (fflush(stdout) != 0) {
		fprintf(stderr, "Error: writing output: %s\n", strerror(errno));
		return 1;
	}
	return 0;
}

static int snapshot_live(pid_t pid, const struct lt_snapshot_opts *o, bool json)
{
	struct lt_snapshot *s = NULL;
	if (take_live(pid, *o, &s))
		return 1;
	/* said first and alone */
	if (blind(s)) {
		lt_snapshot_free(s);
		fprintf(stderr, "Error: cannot read the system calls of process %d's threads: "
			"run as root or as its owner\n", (int)pid);
		return 1;
	}
	if (json)
		lt_snapshot_print_json(stdout, s);
	else
		lt_snapshot_print_text(stdout, s);
	lt_snapshot_free(s);
	return flush_out();
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
		if (take_live(pids[i], *o, &snaps[got])) {
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
	if (blind(&m->view)) {
		lt_multi_free(m);
		fprintf(stderr, "Error: cannot read the system calls of these processes' threads: "
			"run as root or as their owner\n");
		return 1;
	}
	if (json)
		lt_multi_print_json(stdout, m);
	else
		lt_multi_print_text(stdout, m);
	lt_multi_free(m);
	return flush_out();
}

static int parse_int(const char *s, long min, long max, long *out)
{
	uint64_t v;
	if (lt_parse_uint(s, (uint64_t)min, (uint64_t)max, &v))
		return -1;
	*out = (long)v;
	return 0;
}

int lt_cmd_snapshot(int argc, char **argv)
{
	enum { OPT_CONVOY = 256, OPT_MAXF, OPT_NOU, OPT_NOK, OPT_NOL, OPT_FROM };
	static const struct option longopts[] = {
		{ "pid", required_argument, NULL, 'p' },
		{ "json", no_argument, NULL, 'j' },
		{ "threshold", required_argument, NULL, 't' },
		{ "convoy", required_argument, NULL, OPT_CONVOY },
		{ "max-frames", required_argument, NULL, OPT_MAXF },
		{ "no-ustack", no_argument, NULL, OPT_NOU },
		{ "no-kstack", no_argument, NULL, OPT_NOK },
		{ "no-lines", no_argument, NULL, OPT_NOL },
		{ "from", required_argument, NULL, OPT_FROM },
		{ "help", no_argument, NULL, 'h' },
		{ NULL, 0, NULL, 0 },
	};
	struct lt_snapshot_opts o = { 0 };
	pid_t *pids = NULL;
	size_t npids = 0;
	long v;
	bool json = false, live_opts = false;
	const char *from = NULL;
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
		case OPT_FROM:
			from = optarg;
			break;
		case 't': {
			double d;
			if (lt_parse_seconds(optarg, &d)) {
				fprintf(stderr, "Error: invalid threshold '%s': expected %s\n", optarg,
					LT_SECONDS_HINT);
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
		live_opts |= c != 'j' && c != OPT_FROM && c != 'p';
	}
	if (optind < argc) {
		fprintf(stderr, "Error: unexpected argument '%s'\n", argv[optind]);
		usage(stderr);
		free(pids);
		return 2;
	}
	if (from) {
		free(pids);
		if (npids || live_opts) {
			fprintf(stderr, "Error: --from TRACE prints what was stored: only --json goes with it\n");
			return 2;
		}
		return snapshot_from_trace(from, json);
	}
	if (!npids) {
		fprintf(stderr, "Error: give -p PID, or --from TRACE\n");
		usage(stderr);
		return 2;
	}
	int rc = npids > 1 ? snapshot_many(pids, npids, &o, json) : snapshot_live(pids[0], &o, json);
	free(pids);
	return rc;
}

