// SPDX-License-Identifier: MIT
/* `locktrace record`: the CLI of the collector (src/record.c).  The bare
 * form `locktrace -p PID` / `locktrace -- CMD` records the same way and then
 * converts the trace for Perfetto beside it. */
#include <errno.h>
#include <getopt.h>
#include <malloc.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include "locktrace/cli.h"
#include "locktrace/convert.h"
#include "locktrace/outfile.h"
#include "locktrace/record.h"
#include "locktrace/report.h"
#include "locktrace/stall.h"
#include "locktrace/tracefile.h"

static void usage(FILE *f, int perfetto)
{
	fprintf(f, perfetto ?
		"Usage: locktrace -p PID[,PID...] [options]\n"
		"       locktrace --cgroup PATH [options]\n"
		"       locktrace [options] -- COMMAND [ARGS...]\n"
		"\n"
		"Record why the threads of a process block, then write NAME.perfetto-trace\n"
		"beside the raw trace NAME.ltrace: open it at https://ui.perfetto.dev (Open\n"
		"trace file).  `locktrace record` takes the same options and keeps only the raw\n"
		"trace unless given --perfetto.\n"
		:
		"Usage: locktrace record -p PID[,PID...] [options]\n"
		"       locktrace record --cgroup PATH [options]\n"
		"       locktrace record [options] -- COMMAND [ARGS...]\n"
		"\n"
		"Record why the threads of a process block into a raw trace (`locktrace -p PID`\n"
		"also converts it for Perfetto; so does --perfetto).\n");
	fprintf(f,
		"\n"
		"What is recorded: futex operations, select/poll/epoll waits, socket reads and\n"
		"writes, scheduler switches and wake-ups, thread creation, renames and exits.\n"
		"A process given with -p is never stopped, ptraced or signalled.  A COMMAND\n"
		"launched after -- is traced from its first instruction until it exits; if\n"
		"recording ends first (-d, Ctrl-C, SIGTERM, a stall), it gets SIGTERM, as with\n"
		"timeout(1), and locktrace waits for it and exits with its status.\n"
		"\n"
		"Options:\n"
		"  -p, --pid PID[,PID...]  trace these running processes (a thread id traces its\n"
		"                       process); -p can be repeated; one trace file for all\n"
		"      --children       also the descendants of the -p processes: those running\n"
		"                       now and those they fork while recording\n"
		"      --cgroup PATH    every process of a cgroup v2 (a container, a systemd\n"
		"                       service) and of the cgroups below it, filtered in the\n"
		"                       kernel; PATH absolute or relative to the cgroup2 mount\n"
		"                       (e.g. system.slice/nginx.service)\n"
		"      --no-follow-forks  with -- COMMAND: only the command's own process (by\n"
		"                       default the processes it forks are traced too)\n"
		"  -o, --output FILE    trace file to write (default: locktrace-COMM-PID.ltrace);\n"
		"                       the Perfetto trace is FILE with .ltrace replaced by\n"
		"                       .perfetto-trace\n"
		"  -f, --force          replace FILE (and the Perfetto trace) if they exist, with\n"
		"                       new files (never written through a symlink or into the\n"
		"                       old file); without it an existing name is refused\n"
		"      --perfetto / --no-perfetto  also write the Perfetto trace (default: yes for\n"
		"                       `locktrace -p`, no for `locktrace record`)\n"
		"  -d, --duration SECS  stop after SECS seconds, decimal, at most a year (default:\n"
		"                       Ctrl-C, SIGTERM or exit); a launched COMMAND still\n"
		"                       running then gets SIGTERM\n"
		"  -b, --buffer SIZE    BPF ring buffer size, e.g. 64M (default 16M)\n"
		"  -q, --quiet          no progress and no summary: only the findings and the\n"
		"                       files written (and errors)\n"
		"      --pid-file FILE  write locktrace's own pid to FILE (for kill -USR1); it is\n"
		"                       also in the first line locktrace prints\n"
		"      --no-snapshot    do not store the state of every thread at attach\n"
		"      --calls MODE     all: every traced call, entry and return (the default\n"
		"                       without --ring); blocking: only the calls a thread\n"
		"                       sleeps in or wakes another from, taken from the\n"
		"                       scheduler (no syscall tracepoints: a fraction of the\n"
		"                       overhead; returns are when the thread runs again,\n"
		"                       return values unknown; the default with --ring)\n"
		"\n"
		"Flight recorder (sit on a process for hours, keep only the recent past):\n"
		"      --ring SIZE      keep the newest SIZE of events in memory (e.g. 256M) and\n"
		"                       write a trace only on a trigger: --stall, SIGUSR1 (which\n"
		"                       never stops recording), the end; records --calls\n"
		"                       blocking unless told --calls all\n"
		"      --stall SECS     trigger when the process has stalled for SECS (see\n"
		"                       docs/flight-recorder.md); without --ring: stop recording\n"
		"      --stall-rule R   locks (default: futex waiters and no lock hand-off) or\n"
		"                       progress (no blocking call returned successfully)\n"
		"      --keep-going     re-arm after a trigger instead of stopping\n"
		"      --status / --no-status  live status line (default: when stderr is a tty)\n"
		"  -v, --verbose        show libbpf's messages\n"
		"  -h, --help           this help\n"
		"\n"
		"Examples:\n"
		"  locktrace record -p 1234                 # until Ctrl-C\n"
		"  locktrace record -p 1234 -d 10 -o hang.ltrace\n"
		"  locktrace record -p 1234,1240 -d 10      # two processes, one trace\n"
		"  locktrace record -p 1234 --children      # a prefork server: master and workers\n"
		"  locktrace record --cgroup system.slice/postgresql.service -d 10\n"
		"  locktrace record -- ./server --port 8080 # launch, trace from its first instruction,\n"
		"                                           # and the processes it forks (as strace -f)\n"
		"  locktrace record -p 1234 --ring 256M --stall 5\n"
		"                                           # wait for the hang, cheaply\n"
		"  kill -USR1 PID                           # dump the ring now (PID: locktrace's,\n"
		"                                           # printed first, or --pid-file)\n"
		"  locktrace dump hang.ltrace | grep FUTEX_WAIT\n"
		"  locktrace convert hang.ltrace            # -> hang.perfetto-trace\n"
		"\n"
		"Exit status: 0 trace written; 1 nothing could be recorded, or the trace or its\n"
		"conversion could not be completed (the message says which); 2 usage error.\n"
		"With -- COMMAND, the command's own status (128+N when signal N ended it), as\n"
		"strace and time report it, and for locktrace's own failures: 125 nothing was\n"
		"recorded and the command never ran, 126 the command cannot be run, 127 it was\n"
		"not found.\n");
}

/* What is done with each trace file the recorder completes (the final
 * trace, or every flight-recorder dump): with --perfetto, NAME.ltrace ->
 * NAME.perfetto-trace beside it; then the report's findings, in short. */
struct after_ctx {
	const struct lt_record_opts *o;
	int perfetto;
	int failed;
};

static int convert_after(const struct lt_record_opts *o, const char *path)
{
	char out[4096];

	if (lt_convert_out_path(path, LT_FORMAT_PERFETTO, out, sizeof(out))) {
		fprintf(stderr, "Error: path too long to name the Perfetto trace: %s\n", path);
		return 1;
	}
	int rc = lt_convert_file(path, out, LT_FORMAT_PERFETTO, o->force, 1);
	if (rc == 1) {
		fprintf(stderr, "locktrace: the raw trace %s is complete; convert it later with:\n"
				"  locktrace convert %s -o OTHER.perfetto-trace\n", path, path);
		return 1;
	}
	fprintf(stderr, "locktrace: raw trace:      %s\n"
			"locktrace: Perfetto trace: %s\n"
			"           open it at https://ui.perfetto.dev (Open trace file), or query it with\n"
			"           trace_processor; docs/perfetto.md says what it shows\n",
		path, out);
	return 0;
}

/* Before attaching and before each flight dump: the Perfetto trace that
 * after_trace will write beside path can be written. */
static int check_after(void *ctx, const char *path, char *err, size_t errlen)
{
	struct after_ctx *a = ctx;
	char out[4096];

	if (!a->perfetto)
		return 0;
	if (lt_convert_out_path(path, LT_FORMAT_PERFETTO, out, sizeof(out))) {
		snprintf(err, errlen, "path too long to name the Perfetto trace: %s", path);
		return -ENAMETOOLONG;
	}
	int r = lt_out_check(out, a->o->force);
	if (r == -EEXIST)
		snprintf(err, errlen, "%s already exists (the Perfetto trace of %s); choose another name "
			 "with -o, pass --force, or --no-perfetto", out, path);
	else if (r)
		snprintf(err, errlen, "cannot write the Perfetto trace %s: %s", out, lt_out_strerror(r));
	return r;
}

static void print_findings(const char *path)
{
	char err[768];
	int rc;
	struct lt_report *r = lt_report_load(path, NULL, err, sizeof(err), &rc);

	if (!r)
		return;
	if (r->n_findings) {
		fprintf(stderr, "locktrace: findings (all of it: locktrace report %s):\n", path);
		for (size_t i = 0; i < r->n_findings; i++) {
			const struct lt_report_finding *f = &r->findings[i];
			fprintf(stderr, "  %zu. %s\n", i + 1, f->summary);
			for (size_t k = 0; k < f->n_evidence && k < 3; k++)
				fprintf(stderr, "       - %s\n", f->evidence[k]);
		}
	}
	lt_report_free(r);
}

static void after_trace(void *ctx, const char *path)
{
	struct after_ctx *a = ctx;

	if (a->perfetto && convert_after(a->o, path))
		a->failed = 1;
	else if (!a->perfetto && a->o->quiet) /* else the summary names it */
		fprintf(stderr, "locktrace: trace: %s\n", path);
	print_findings(path); /* -q hides progress, never the answer */
	/* converting and analysing allocate a lot for a moment; a recorder that
	 * goes on (--keep-going) should not keep that resident */
	malloc_trim(0);
}

/* Ours (0 / 1), or with -- COMMAND the command's, as strace and time
 * report it; 125-127 when it never ran (as timeout(1) says them). */
static int exit_code(const struct lt_record_opts *o, const struct lt_record_result *res, int rc,
		     int failed)
{
	if (!o->argv)
		return rc || res->stop_reason == LT_STOP_ERROR || failed ? 1 : 0;
	if (res->exec_errno)
		return res->exec_errno == ENOENT ? 127 : 126;
	int st = res->exit_status;
	if (rc || st < 0)
		return 125;
	if (WIFEXITED(st))
		return WEXITSTATUS(st);
	return WIFSIGNALED(st) ? 128 + WTERMSIG(st) : 125;
}

static int record_main(int argc, char **argv, int perfetto)
{
	static const struct option opts[] = {
		{ "pid", required_argument, 0, 'p' },   { "output", required_argument, 0, 'o' },
		{ "force", no_argument, 0, 'f' },       { "duration", required_argument, 0, 'd' },
		{ "buffer", required_argument, 0, 'b' }, { "quiet", no_argument, 0, 'q' },
		{ "verbose", no_argument, 0, 'v' },     { "help", no_argument, 0, 'h' },
		{ "status", no_argument, 0, 'S' },      { "no-status", no_argument, 0, 'N' },
		{ "no-snapshot", no_argument, 0, 'X' }, { "calls", required_argument, 0, 'C' },
		{ "ring", required_argument, 0, 'R' },  { "stall", required_argument, 0, 'T' },
		{ "stall-rule", required_argument, 0, 'U' }, { "keep-going", no_argument, 0, 'K' },
		{ "perfetto", no_argument, 0, 'P' },    { "no-perfetto", no_argument, 0, 'Q' },
		{ "pid-file", required_argument, 0, 'F' },
		{ "children", no_argument, 0, 'D' },    { "cgroup", required_argument, 0, 'G' },
		{ "no-follow-forks", no_argument, 0, 'W' },
		{ 0, 0, 0, 0 },
	};
	struct lt_record_opts o = { .status_line = -1 };
	struct lt_record_result res;
	int c, calls_given = 0;
	pid_t *pids = NULL;
	size_t npids = 0;
	int rc = 2;

	optind = 1;
	while ((c = getopt_long(argc, argv, "+p:o:fd:b:qvh", opts, NULL)) != -1) {
		switch (c) {
		case 'p': {
			const char *bad = NULL;
			if (lt_parse_pid_list(optarg, &pids, &npids, &bad)) {
				fprintf(stderr, "Error: invalid pid '%s' in '%s': expected positive process ids "
					"in decimal, separated by commas\n", bad, optarg);
				goto out;
			}
			break;
		}
		case 'D': o.children = 1; break;
		case 'G': o.cgroup = optarg; break;
		case 'W': o.no_follow_forks = 1; break;
		case 'o': o.output = optarg; break;
		case 'f': o.force = 1; break;
		case 'd':
			if (lt_parse_seconds(optarg, &o.duration_s)) {
				fprintf(stderr, "Error: invalid duration '%s': expected %s\n", optarg,
					LT_SECONDS_HINT);
				goto out;
			}
			break;
		case 'b':
			if (lt_parse_size(optarg, &o.ring_bytes) || o.ring_bytes < 4096 ||
			    o.ring_bytes > (1ull << 30)) {
				fprintf(stderr, "Error: invalid buffer size '%s': expected 4K to 1G, e.g. 64M\n",
					optarg);
				goto out;
			}
			break;
		case 'q': o.quiet = 1; break;
		case 'v': o.verbose = 1; break;
		case 'S': o.status_line = 1; break;
		case 'N': o.status_line = 0; break;
		case 'X': o.no_snapshot = 1; break;
		case 'C':
			calls_given = 1;
			if (!strcmp(optarg, "all")) {
				o.calls_blocking = 0;
			} else if (!strcmp(optarg, "blocking")) {
				o.calls_blocking = 1;
			} else {
				fprintf(stderr, "Error: unknown --calls mode '%s': expected all or blocking\n",
					optarg);
				goto out;
			}
			break;
		case 'R':
			if (lt_parse_size(optarg, &o.ring_mem) || o.ring_mem < LT_FLIGHT_MIN ||
			    o.ring_mem > (64ull << 30)) {
				fprintf(stderr, "Error: invalid ring size '%s': expected a size from 1M (at least "
					"a few %uK chunks) to 64G, e.g. 256M\n", optarg, LT_FLIGHT_CHUNK >> 10);
				goto out;
			}
			break;
		case 'T':
			if (lt_parse_seconds(optarg, &o.stall_s)) {
				fprintf(stderr, "Error: invalid stall time '%s': expected %s\n", optarg,
					LT_SECONDS_HINT);
				goto out;
			}
			break;
		case 'U':
			o.stall_rule = lt_stall_rule_parse(optarg);
			if (o.stall_rule < 0) {
				fprintf(stderr, "Error: unknown stall rule '%s': expected locks or progress\n",
					optarg);
				goto out;
			}
			break;
		case 'K': o.keep_going = 1; break;
		case 'F': o.pid_file = optarg; break;
		case 'P': perfetto = 1; break;
		case 'Q': perfetto = 0; break;
		case 'h': usage(stdout, perfetto); rc = 0; goto out;
		default: usage(stderr, perfetto); goto out;
		}
	}
	if (optind < argc)
		o.argv = argv + optind;
	/* left on for hours, the flight recorder keeps the target's speed:
	 * it catches the same stalls that way (BENCHMARKS.md) */
	if (o.ring_mem && !calls_given)
		o.calls_blocking = 1;
	o.pids = pids;
	o.npids = npids;
	if ((npids || o.cgroup) && o.argv) {
		fprintf(stderr, "Error: give either -p PID / --cgroup PATH or a command after --, not both\n");
		usage(stderr, perfetto);
		goto out;
	}
	if (!npids && !o.cgroup && !o.argv) {
		fprintf(stderr, "Error: nothing to trace: give -p PID, --cgroup PATH or -- COMMAND\n");
		usage(stderr, perfetto);
		goto out;
	}
	if (o.children && !npids) {
		fprintf(stderr, "Error: --children needs -p PID (a launched COMMAND's forks are followed "
			"anyway; --cgroup takes every process of the cgroup)\n");
		goto out;
	}
	if (o.no_follow_forks && !o.argv) {
		fprintf(stderr, "Error: --no-follow-forks is for -- COMMAND (with -p, forks are followed "
			"only with --children)\n");
		goto out;
	}
	if (npids == 1)
		o.pid = pids[0];
	/* -o NAME.perfetto-trace names the pair: the raw trace is NAME.ltrace */
	char raw[4096];
	size_t ol = o.output ? strlen(o.output) : 0, sl = strlen(".perfetto-trace");
	if (perfetto && ol > sl && !strcmp(o.output + ol - sl, ".perfetto-trace")) {
		snprintf(raw, sizeof(raw), "%.*s.ltrace", (int)(ol - sl), o.output);
		o.output = raw;
	}
	struct after_ctx after = { .o = &o, .perfetto = perfetto };
	o.on_trace = after_trace;
	o.on_trace_ctx = &after;
	o.check_out = check_after;
	rc = exit_code(&o, &res, lt_record(&o, &res), after.failed);
out:
	free(pids);
	return rc;
}

int lt_cmd_record(int argc, char **argv)
{
	return record_main(argc, argv, 0);
}

int lt_cmd_trace(int argc, char **argv)
{
	return record_main(argc, argv, 1);
}
