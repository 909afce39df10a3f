// SPDX-License-Identifier: MIT
/* `locktrace dump FILE`: the command line of src/output/dump.c.  Ends with where
 * and why reading stopped if the file is cut, and what was skipped if it is
 * damaged. */
#include "cli_opts.h"
#include "cli.h"
#include "dump.h"

static const struct lt_cli cli = {
	.usage = "Usage: locktrace dump FILE\n",
	.about = "Print the header and one line per event of a trace file.\n",
	.tail = "Exit status: 0 printed; 1 the file cannot be read as a trace; 2 usage error;\n"
		"3 the trace is cut short (everything before the cut is printed) or damaged\n"
		"(the chunks that check out are printed; # DAMAGED lines say what was skipped).\n",
};

const struct lt_cli *lt_dump_cli(void)
{
	return &cli;
}

int lt_cmd_dump(int argc, char **argv)
{
	struct lt_getopt g;
	char err[8192];
	int c;

	if (lt_getopt_init(&g, &cli))
		return 2;
	while ((c = lt_getopt_next(&g, argc, argv)) >= 0)
		;
	if (c == LT_CLI_EXIT)
		return g.status;
	if (lt_cli_one_arg(&cli, argc, argv, "trace file"))
		return 2;
	int rc = lt_dump(argv[optind], err, sizeof(err));
	if (rc == 1)
		lt_err("%s", err);
	else if (err[0])
		lt_warn("%s", err);
	return rc;
}
