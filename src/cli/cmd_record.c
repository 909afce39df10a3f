// SPDX-License-Identifier: MIT
/* `locktrace record`: the command line of the recorder (src/record/record.c).  The
 * bare form `locktrace -p PID` / `locktrace -- CMD` takes the same options,
 * records the same way and then converts the trace for Perfetto beside it
 * (src/cli/record_after.c does what follows each trace). */
#include <errno.h>
#include <malloc.h>
#include <stdlib.h>
#include <string.h>
#include "cli_opts.h"
#include "cli.h"
#include "record.h"
#include "record_after.h"
#include "stall.h"

enum {
	OPT_CHILDREN = LT_OPT_LONG,
	OPT_CGROUP,
	OPT_NO_FOLLOW_FORKS,
	OPT_PERFETTO,
	OPT_NO_PERFETTO,
	OPT_PID_FILE,
	OPT_NO_SNAPSHOT,
	OPT_CALLS,
	OPT_STACKS,
	OPT_STACK_SAMPLE,
	OPT_RING,
	OPT_RING_STREAM,
	OPT_STALL,
	OPT_STALL_RULE,
	OPT_KEEP_GOING,
	OPT_STATUS,
	OPT_NO_STATUS,
};

static const struct lt_opt opts[] = {
	{ "pid", 'p', "PID[,PID...]",
	  "trace these running processes (a thread id traces its process); -p can be repeated; one "
	  "trace file for all" },
	{ "children", OPT_CHILDREN, NULL,
	  "also the descendants of the -p processes: those running now and those they fork while "
	  "recording" },
	{ "cgroup", OPT_CGROUP, "PATH",
	  "every process of a cgroup v2 (a container, a systemd service) and of the cgroups below it, "
	  "filtered in the kernel; PATH absolute or relative to the cgroup2 mount (e.g. "
	  "system.slice/nginx.service)" },
	{ "no-follow-forks", OPT_NO_FOLLOW_FORKS, NULL,
	  "with -- COMMAND: only the command's own process (by default the processes it forks are "
	  "traced too)" },
	{ "output", 'o', "FILE",
	  "trace file to write (default: locktrace-COMM-PID.ltrace); the Perfetto trace is FILE with "
	  ".ltrace replaced by .perfetto-trace" },
	{ "force", 'f', NULL,
	  "replace FILE (and the Perfetto trace) if they exist, with new files (never written through "
	  "a symlink or into the old file); without it an existing name is refused" },
	{ "perfetto", OPT_PERFETTO, NULL,
	  "also write the Perfetto trace (the default of `locktrace -p`)" },
	{ "no-perfetto", OPT_NO_PERFETTO, NULL,
	  "only the raw trace (the default of `locktrace record`)" },
	{ "duration", 'd', "SECS",
	  "stop after SECS seconds, decimal, at most a year (default: Ctrl-C, SIGTERM or exit); a "
	  "launched COMMAND still running then gets SIGTERM" },
	{ "buffer", 'b', "SIZE",
	  "the kernel's buffer for the events, all cpus together, e.g. 64M (default 16M): per-cpu "
	  "units the collector reads as they come, a power of two of 64-byte units a cpu, at "
	  "least 256 KiB a cpu" },
	{ "quiet", 'q', NULL,
	  "no progress and no summary: only the findings and the files written (and errors)" },
	{ "pid-file", OPT_PID_FILE, "FILE",
	  "write locktrace's own pid to FILE (for kill -USR1); it is also in the first line locktrace "
	  "prints" },
	{ "no-snapshot", OPT_NO_SNAPSHOT, NULL, "do not store the state of every thread at attach" },
	{ "calls", OPT_CALLS, "MODE",
	  "all: every traced call, entry and return (the default without --ring); blocking: only the "
	  "calls a thread sleeps in or wakes another from, taken from the scheduler (no syscall "
	  "tracepoints: a fraction of the overhead; returns are when the thread runs again, return "
	  "values unknown; the default with --ring)" },
	{ "stacks", OPT_STACKS, NULL,
	  "also the user call stack of each wait (futex, runtime lock, poll/select/epoll, socket or "
	  "pipe read) of 1 ms or more, read from the sleeping thread and unwound with DWARF CFI; off by "
	  "default: it costs the collector CPU (see BENCHMARKS.md)" },
	{ "stack-sample", OPT_STACK_SAMPLE, "N",
	  "with --stacks: also read the stack of 1 in N shorter waits, as soon as the collector sees "
	  "them (default 16; 0: none); a wait that has ended by then keeps none" },
	LT_OPT_GROUP("Flight recorder (sit on a process for hours, keep only the recent past):"),
	{ "ring", OPT_RING, "SIZE",
	  "keep the newest events in SIZE bytes of per-cpu kernel memory, read only at a dump (e.g. "
	  "64M: ~60 bytes an event), and write a trace only on a trigger: --stall, SIGUSR1 (which "
	  "never stops recording), the end; records --calls blocking unless told --calls all" },
	{ "ring-stream", OPT_RING_STREAM, NULL,
	  "with --ring: stream every event to locktrace, which keeps them encoded in the SIZE bytes "
	  "(~13 bytes an event: about 4.5 times the history, for a collector draining every event "
	  "on another cpu; what --stacks does anyway)" },
	{ "stall", OPT_STALL, "SECS",
	  "trigger when the process has stalled for SECS (see docs/flight-recorder.md); without "
	  "--ring: stop recording" },
	{ "stall-rule", OPT_STALL_RULE, "R",
	  "locks (default: futex waiters and no lock hand-off) or progress (no blocking call returned "
	  "successfully)" },
	{ "keep-going", OPT_KEEP_GOING, NULL, "re-arm after a trigger instead of stopping" },
	LT_OPT_GROUP("Other:"),
	{ "status", OPT_STATUS, NULL, "live status line (default: when stderr is a tty)" },
	{ "no-status", OPT_NO_STATUS, NULL, "no live status line" },
	{ "verbose", 'v', NULL, "show libbpf's messages" },
	{ 0 },
};

#define ABOUT_RECORDED                                                                          \
	"\n"                                                                                     \
	"What is recorded: futex operations, select/poll/epoll waits, reads and writes\n"        \
	"of sockets, pipes and FIFOs, file-lock calls (flock, fcntl F_SETLK[W]),\n"              \
	"scheduler switches and wake-ups, thread creation, renames and exits.\n"                 \
	"A process given with -p is never stopped, ptraced or signalled.  A COMMAND\n"            \
	"launched after -- is traced from its first instruction until it exits; if\n"             \
	"recording ends first (-d, Ctrl-C, SIGTERM, a stall), it and its descendants\n"           \
	"get SIGTERM, as with timeout(1), and locktrace waits for it and exits with its\n"        \
	"status.\n"

static const char tail[] =
	"Examples:\n"
	"  locktrace record -p 1234               # until Ctrl-C\n"
	"  locktrace record -p 1234 -d 10 -o hang.ltrace\n"
	"  locktrace record -p 1234,1240 -d 10    # two processes, one trace\n"
	"  locktrace record -p 1234 --children    # a prefork server: master and workers\n"
	"  locktrace record --cgroup system.slice/postgresql.service -d 10\n"
	"  locktrace record -- ./server --port 8080\n"
	"                                         # launch, trace from its first\n"
	"                                         # instruction, and the processes it\n"
	"                                         # forks (as strace -f)\n"
	"  locktrace record -p 1234 --ring 256M --stall 5\n"
	"                                         # wait for the hang, cheaply\n"
	"  kill -USR1 PID                         # dump the ring now (PID: locktrace's,\n"
	"                                         # printed first, or --pid-file)\n"
	"  locktrace dump hang.ltrace | grep FUTEX_WAIT\n"
	"  locktrace convert hang.ltrace          # -> hang.perfetto-trace\n"
	"\n"
	"Exit status: 0 trace written; 1 nothing could be recorded, or the trace or its\n"
	"conversion could not be completed (the message says which); 2 usage error.\n"
	"With -- COMMAND, the command's own status (128+N when signal N ended it), as\n"
	"strace and time report it, and for locktrace's own failures: 125 nothing was\n"
	"recorded and the command never ran, 126 the command cannot be run, 127 it was\n"
	"not found.\n";

/* `locktrace record ...` and `locktrace -p ...`: one table, two headers. */
static const struct lt_cli clis[2] = {
	{
		.usage = "Usage: locktrace record -p PID[,PID...] [options]\n"
			 "       locktrace record --cgroup PATH [options]\n"
			 "       locktrace record [options] -- COMMAND [ARGS...]\n",
		.about = "\n"
			 "Record why the threads of a process block into a raw trace (`locktrace -p PID`\n"
			 "also converts it for Perfetto; so does --perfetto).\n" ABOUT_RECORDED,
		.opts = opts,
		.tail = tail,
		.optstring0 = "+",
	},
	{
		.usage = "Usage: locktrace -p PID[,PID...] [options]\n"
			 "       locktrace --cgroup PATH [options]\n"
			 "       locktrace [options] -- COMMAND [ARGS...]\n",
		.about = "\n"
			 "Record why the threads of a process block, then write NAME.perfetto-trace\n"
			 "beside the raw trace NAME.ltrace: open it at https://ui.perfetto.dev (Open\n"
			 "trace file).  `locktrace record` takes the same options and keeps only the raw\n"
			 "trace unless given --perfetto.\n" ABOUT_RECORDED,
		.opts = opts,
		.tail = tail,
		.optstring0 = "+",
	},
};

const struct lt_cli *lt_record_cli(int perfetto)
{
	return &clis[perfetto ? 1 : 0];
}

/* SECS for what ("duration", "stall time") into *out.  0, or -1 said. */
static int seconds_arg(const char *what, const char *arg, double *out)
{
	if (!lt_parse_seconds(arg, out))
		return 0;
	lt_err("invalid %s '%s': expected %s", what, arg, LT_SECONDS_HINT);
	return -1;
}

/* A size in [lo, hi] into *out: 0, or -1 (the caller says what is wrong). */
static int size_arg(const char *arg, uint64_t lo, uint64_t hi, uint64_t *out)
{
	return lt_parse_size(arg, out) || *out < lo || *out > hi ? -1 : 0;
}

/* One option (key c, argument optarg) into o and *perfetto.  0, or -1
 * when its argument is invalid (said). */
static int take_opt(int c, struct lt_record_opts *o, pid_t **pids, size_t *npids, int *perfetto,
		    int *calls_given)
{
	const char *bad = NULL;

	switch (c) {
	case 'p':
		if (!lt_parse_pid_list(optarg, pids, npids, &bad))
			return 0;
		lt_err("invalid pid '%s' in '%s': expected positive process ids in decimal, separated "
		       "by commas", bad, optarg);
		return -1;
	case OPT_CHILDREN: o->children = 1; return 0;
	case OPT_CGROUP: o->cgroup = optarg; return 0;
	case OPT_NO_FOLLOW_FORKS: o->no_follow_forks = 1; return 0;
	case 'o':
		if (!*optarg) {
			lt_err("-o needs a file name (an empty one was given)");
			return -1;
		}
		o->output = optarg;
		return 0;
	case 'f': o->force = 1; return 0;
	case OPT_PERFETTO: *perfetto = 1; return 0;
	case OPT_NO_PERFETTO: *perfetto = 0; return 0;
	case 'd': return seconds_arg("duration", optarg, &o->duration_s);
	case 'b':
		if (!size_arg(optarg, 4096, 1ull << 30, &o->ring_bytes))
			return 0;
		lt_err("invalid buffer size '%s': expected 4K to 1G, e.g. 64M", optarg);
		return -1;
	case 'q': o->quiet = 1; return 0;
	case 'v': o->verbose = 1; return 0;
	case OPT_PID_FILE: o->pid_file = optarg; return 0;
	case OPT_NO_SNAPSHOT: o->no_snapshot = 1; return 0;
	case OPT_CALLS:
		*calls_given = 1;
		o->calls_blocking = !strcmp(optarg, "blocking");
		if (o->calls_blocking || !strcmp(optarg, "all"))
			return 0;
		lt_err("unknown --calls mode '%s': expected all or blocking", optarg);
		return -1;
	case OPT_STACKS: o->stacks = 1; return 0;
	case OPT_STACK_SAMPLE: {
		char *end;
		errno = 0;
		unsigned long v = strtoul(optarg, &end, 10);
		if (!errno && end != optarg && !*end && v <= 1000000 && optarg[0] != '-') {
			o->stack_sample = (int)v;
			return 0;
		}
		lt_err("invalid --stack-sample '%s': expected a count from 0 (no short wait) to "
		       "1000000", optarg);
		return -1;
	}
	case OPT_RING:
		if (!size_arg(optarg, LT_FLIGHT_MIN, 64ull << 30, &o->ring_mem))
			return 0;
		lt_err("invalid ring size '%s': expected a size from 1M (at least a few %uK chunks) to "
		       "64G, e.g. 256M", optarg, LT_FLIGHT_CHUNK >> 10);
		return -1;
	case OPT_RING_STREAM: o->ring_stream = 1; return 0;
	case OPT_STALL: return seconds_arg("stall time", optarg, &o->stall_s);
	case OPT_STALL_RULE:
		o->stall_rule = lt_stall_rule_parse(optarg);
		if (o->stall_rule >= 0)
			return 0;
		lt_err("unknown stall rule '%s': expected locks or progress", optarg);
		return -1;
	case OPT_KEEP_GOING: o->keep_going = 1; return 0;
	case OPT_STATUS: o->status_line = 1; return 0;
	case OPT_NO_STATUS: o->status_line = 0; return 0;
	}
	return 0;
}

/* What to trace, given together as it may be?  0, or the exit status. */
static int check_targets(const struct lt_cli *cli, const struct lt_record_opts *o)
{
	if ((o->npids || o->cgroup) && o->argv)
		return lt_cli_usage_error(cli, "give either -p PID / --cgroup PATH or a command after "
					  "--, not both");
	if (!o->npids && !o->cgroup && !o->argv)
		return lt_cli_usage_error(cli, "nothing to trace: give -p PID, --cgroup PATH or -- "
					  "COMMAND");
	if (o->children && !o->npids) {
		lt_err("--children needs -p PID (a launched COMMAND's forks are followed anyway; "
		       "--cgroup takes every process of the cgroup)");
		return 2;
	}
	if (o->no_follow_forks && !o->argv) {
		lt_err("--no-follow-forks is for -- COMMAND (with -p, forks are followed only with "
		       "--children)");
		return 2;
	}
	return 0;
}

/* The command line into o (its pids into *pids) and *perfetto.  -1 to go
 * on, or the exit status (--help, --version, a usage error). */
static int parse(int argc, char **argv, struct lt_record_opts *o, pid_t **pids, int *perfetto)
{
	const struct lt_cli *cli = lt_record_cli(*perfetto);
	struct lt_getopt g;
	int c, calls_given = 0;
	size_t npids = 0;

	if (lt_getopt_init(&g, cli))
		return 2;
	while ((c = lt_getopt_next(&g, argc, argv)) >= 0)
		if (take_opt(c, o, pids, &npids, perfetto, &calls_given))
			return 2;
	if (c == LT_CLI_EXIT)
		return g.status;
	if (optind < argc && (*pids || o->cgroup) && strcmp(argv[optind - 1], "--")) {
		lt_err("unexpected argument '%s' (a command to launch goes after --, and not with -p or "
		       "--cgroup)", argv[optind]);
		return 2;
	}
	if (optind < argc)
		o->argv = argv + optind;
	/* left on for hours, the flight recorder keeps the target's speed:
	 * it catches the same stalls that way (BENCHMARKS.md) */
	if (o->ring_mem && !calls_given)
		o->calls_blocking = 1;
	if (o->ring_stream && !o->ring_mem) {
		lt_err("--ring-stream needs --ring SIZE (it says how the flight recorder keeps its "
		       "events)");
		return 2;
	}
	if (o->keep_going && !o->stall_s && !o->ring_mem) {
		lt_err("--keep-going needs --stall SECS or --ring SIZE (it re-arms their trigger)");
		return 2;
	}
	if (o->stack_sample >= 0 && !o->stacks) {
		lt_err("--stack-sample needs --stacks (it says which short waits get a stack)");
		return 2;
	}
	o->pids = *pids;
	o->npids = npids;
	if (npids == 1)
		o->pid = (*pids)[0];
	int rc = check_targets(cli, o);
	return rc ? rc : -1;
}

static int record_main(int argc, char **argv, int perfetto)
{
	struct lt_record_opts o = { .status_line = -1, .stack_sample = -1 };
	struct lt_record_result res;
	pid_t *pids = NULL;
	char raw[4096];

	/* A recorder may run for days with --ring: the large blocks a dump
	 * or a snapshot takes (MiBs) are to go back to the system when freed.
	 * glibc's threshold for mapping a block on its own grows to the size
	 * of the largest mapped block freed, so from the second dump on they
	 * came from the heap and stayed (measured: 3.3 MiB of anonymous
	 * memory after a dump instead of 0.85, and 0.5-1.1 MiB more after the
	 * next; flight_live::sigusr1_dumps_on_demand...).  Fixed at glibc's
	 * default, which also fixes the trim threshold. */
	mallopt(M_MMAP_THRESHOLD, 128 * 1024);

	int rc = parse(argc, argv, &o, &pids, &perfetto);
	if (rc < 0) {
		struct lt_after after = { .o = &o, .perfetto = perfetto };
		o.output = lt_after_raw_name(o.output, perfetto, raw, sizeof(raw));
		lt_after_install(&o, &after);
		rc = lt_record(&o, &res);
		if (rc && res.err[0])
			lt_err("%s", res.err);
		rc = lt_record_exit_code(&o, &res, rc, after.failed);
	}
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
