// SPDX-License-Identifier: MIT
/* `locktrace convert TRACE [-o OUT] [--format perfetto|json]`: the command
 * line of the conversion (src/output/convert.c). */
#include <stdio.h>
#include <string.h>
#include "cli_opts.h"
#include "cli.h"
#include "convert.h"

enum { OPT_FORMAT = LT_OPT_LONG };

static const struct lt_opt opts[] = {
	{ "output", 'o', "OUT", "file to write (default: TRACE with .ltrace replaced)" },
	{ "format", OPT_FORMAT, "FORMAT", "perfetto or json" },
	{ "force", 'f', NULL,
	  "replace OUT if it exists (with a new file: never written through a symlink or into the "
	  "old file)" },
	{ "quiet", 'q', NULL, "no summary" },
	{ 0 },
};

static const struct lt_cli cli = {
	.usage = "Usage: locktrace convert TRACE [-o OUT] [--format perfetto|json] [--force]\n",
	.about = "\n"
		 "Convert a raw locktrace trace for a viewer.\n"
		 "\n"
		 "  perfetto (default)  native Perfetto trace, TRACE.perfetto-trace: open it at\n"
		 "                      https://ui.perfetto.dev (Open trace file) or with\n"
		 "                      trace_processor.  Thread states (Running, Runnable,\n"
		 "                      Sleeping) with who woke whom, one slice per blocking\n"
		 "                      call, flows from each wake to the wait it ended,\n"
		 "                      waiter counts per futex, lost-event markers.\n"
		 "  json                Chrome trace-event JSON, TRACE.json: the same slices,\n"
		 "                      flows and counters, but no scheduler data, so no\n"
		 "                      thread states; for viewers that read only JSON.\n",
	.opts = opts,
	.tail = "Exit status: 0 done; 1 error (nothing written); 3 the trace was cut short\n"
		"(OUT holds everything before the cut) or damaged (OUT holds every chunk that\n"
		"checks out; the warning says what was skipped).\n",
};

const struct lt_cli *lt_convert_cli(void)
{
	return &cli;
}

int lt_cmd_convert(int argc, char **argv)
{
	const char *out = NULL;
	int format = LT_FORMAT_PERFETTO, force = 0, quiet = 0, c;
	struct lt_getopt g;
	char def[4096];

	if (lt_getopt_init(&g, &cli))
		return 2;
	while ((c = lt_getopt_next(&g, argc, argv)) >= 0) {
		switch (c) {
		case 'o': out = optarg; break;
		case OPT_FORMAT:
			if (!strcmp(optarg, "perfetto")) {
				format = LT_FORMAT_PERFETTO;
			} else if (!strcmp(optarg, "json")) {
				format = LT_FORMAT_JSON;
			} else {
				lt_err("unknown format '%s': expected perfetto or json", optarg);
				return 2;
			}
			break;
		case 'f': force = 1; break;
		case 'q': quiet = 1; break;
		}
	}
	if (c == LT_CLI_EXIT)
		return g.status;
	if (lt_cli_one_arg(&cli, argc, argv, "trace"))
		return 2;
	const char *in = argv[optind];
	if (!out) {
		if (lt_convert_out_path(in, format, def, sizeof(def))) {
			lt_err("path too long: %s", in);
			return 2;
		}
		out = def;
	}
	int rc = lt_convert_file(in, out, format, force, quiet);
	if ((rc == 0 || rc == 3) && !quiet && format == LT_FORMAT_PERFETTO)
		lt_info("open it at https://ui.perfetto.dev (Open trace file) or with "
			"trace_processor %s", out);
	return rc;
}
