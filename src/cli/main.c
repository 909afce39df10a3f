// SPDX-License-Identifier: MIT
/* locktrace: dispatch to a subcommand; `locktrace -p PID` and
 * `locktrace -- CMD` record like `locktrace record ...` and also write the
 * Perfetto trace. */
#include <stdio.h>
#include <string.h>
#include "cli_opts.h"
#include "cli.h"

static const struct lt_cmd cmds[] = {
	{ "record", lt_cmd_record, "record a process into a trace file" },
	{ "dump", lt_cmd_dump, "print a trace file, one line per event" },
	{ "convert", lt_cmd_convert, "convert a trace for Perfetto (or Chrome JSON)" },
	{ "snapshot", lt_cmd_snapshot, "what every thread is blocked in right now" },
	{ "report", lt_cmd_report, "what the threads waited for, and what is wrong" },
};

static void usage(FILE *f)
{
	fprintf(f, "Usage: locktrace [record] -p PID [options]\n"
		   "       locktrace [record] [options] -- COMMAND [ARGS...]\n"
		   "       locktrace COMMAND [ARGS...]\n\nCommands:\n");
	for (size_t i = 0; i < sizeof(cmds) / sizeof(cmds[0]); i++)
		fprintf(f, "  %-10s %s\n", cmds[i].name, cmds[i].help);
	fprintf(f, "\n`locktrace COMMAND --help` describes each; `locktrace --version` prints the\n"
		   "version.\n");
}

int main(int argc, char **argv)
{
	if (argc < 2) {
		usage(stderr);
		return 2;
	}
	if (!strcmp(argv[1], "-h") || !strcmp(argv[1], "--help")) {
		usage(stdout);
		return 0;
	}
	/* hidden: what `make install` writes (src/cli/cli_gen.c) */
	if (!strcmp(argv[1], "--man") || !strcmp(argv[1], "--completion"))
		return lt_cli_gen(argc - 1, argv + 1, cmds, sizeof(cmds) / sizeof(cmds[0]));
	if (!strcmp(argv[1], "--version")) {
		printf("%s\n", lt_version_string());
		return 0;
	}
	for (size_t i = 0; i < sizeof(cmds) / sizeof(cmds[0]); i++)
		if (!strcmp(argv[1], cmds[i].name))
			return cmds[i].fn(argc - 1, argv + 1);
	if (argv[1][0] == '-') {
		argv[0] = "locktrace";
		return lt_cmd_trace(argc, argv);
	}
	lt_err("unknown command '%s'", argv[1]);
	usage(stderr);
	return 2;
}
