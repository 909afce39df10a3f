/* SPDX-License-Identifier: MIT */
/* One option table per command: the getopt_long arrays and the --help text
 * are both built from it, so an option cannot be parsed and not described
 * (or described and not parsed).
 *
 *   static const struct lt_opt opts[] = {
 *       { "json", 'j', NULL, "JSON instead of text" },
 *       { "from", OPT_FROM, "TRACE", "print the snapshots stored in TRACE" },
 *       { 0 },
 *   };
 *   static const struct lt_cli cli = { "Usage: ...\n", "About...\n", opts, "Exit status: ...\n" };
 *   struct lt_getopt g;
 *   lt_getopt_init(&g, &cli);
 *   while ((c = lt_getopt_next(&g, argc, argv)) >= 0) switch (c) { ... }
 *   if (c == LT_CLI_EXIT) return g.status;
 *
 * Every command also gets -h/--help and --version from the builder. */
#ifndef LOCKTRACE_CLI_OPTS_H
#define LOCKTRACE_CLI_OPTS_H

#include <getopt.h>
#include <stdio.h>

/* Keys of options without a short letter start here (getopt_long returns
 * them as they are; no letter has to be invented). */
#define LT_OPT_LONG 256

/* A row of a table: an option, or (name NULL) a group heading printed
 * before the options that follow it, written LT_OPT_GROUP("Heading:").  A
 * row of zeros ({ 0 }) ends the table. */
struct lt_opt {
	const char *name; /* long name without "--" */
	int key;          /* the short letter, or a value >= LT_OPT_LONG for none */
	const char *arg;  /* the argument's name in the help ("SECS"), NULL for a flag */
	const char *help; /* wrapped to the terminal width; "\n" breaks a line */
};
#define LT_OPT_GROUP(heading) { .help = (heading) }

struct lt_cli {
	const char *usage;      /* the "Usage: ..." line(s) */
	const char *about;      /* what the command does (NULL for nothing) */
	const struct lt_opt *opts;
	const char *tail;       /* after the options: examples, exit status (NULL) */
	const char *optstring0; /* prefix of the optstring, e.g. "+" (NULL for none) */
};

/* Most options of a command, with --help and --version. */
#define LT_OPTS_MAX 48

struct lt_getopt {
	const struct lt_cli *cli;
	struct option longopts[LT_OPTS_MAX + 1];
	char optstring[3 * LT_OPTS_MAX + 4];
	int status; /* the exit status when lt_getopt_next returned LT_CLI_EXIT */
};

/* Keys the builder adds, and what lt_getopt_next returns when the command
 * should stop and return g->status (--help: 0; --version: 0; an unknown
 * option or a missing argument: 2, after the usage on stderr). */
#define LT_OPT_HELP 'h'
#define LT_OPT_VERSION 0x7f00
#define LT_CLI_EXIT (-2)

/* Builds g's getopt_long arrays from cli.  0, or -1 if the table does not
 * fit (too many options): a bug of the table, said on stderr. */
int lt_getopt_init(struct lt_getopt *g, const struct lt_cli *cli);
/* Resets getopt's state (optind = 0: a full re-initialisation), then
 * returns each option's key as getopt_long does, -1 at the end, or
 * LT_CLI_EXIT after handling --help, --version or a usage error. */
int lt_getopt_next(struct lt_getopt *g, int argc, char **argv);

/* The options every command gets (--help, --version), a table as above. */
const struct lt_opt *lt_cli_builtin_opts(void);

/* The whole help: usage, about, the options (long only where there is no
 * letter), the tail. */
void lt_cli_usage(FILE *f, const struct lt_cli *cli);

/* "Error: ..." then the usage on stderr; returns 2, the exit status of a
 * usage error. */
int lt_cli_usage_error(const struct lt_cli *cli, const char *fmt, ...)
	__attribute__((format(printf, 2, 3)));
/* After the options: exactly one operand (what: "trace file") at
 * argv[optind]?  0, or lt_cli_usage_error's 2 ("no trace file given",
 * "give one trace file"). */
int lt_cli_one_arg(const struct lt_cli *cli, int argc, char **argv, const char *what);

/* "locktrace 0.1.0" (with the git revision it was built from, when the
 * build knew it): what --version prints. */
const char *lt_version_string(void);

#endif
