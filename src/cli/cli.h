/* SPDX-License-Identifier: MIT */
/* Subcommands of the locktrace CLI.  Each takes (argc, argv) with argv[0] the
 * subcommand name and returns the process exit code. */
#ifndef LOCKTRACE_CLI_H
#define LOCKTRACE_CLI_H

#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>

int lt_cmd_record(int argc, char **argv);
/* `locktrace -p PID` / `locktrace -- CMD`: record, then convert for Perfetto */
int lt_cmd_trace(int argc, char **argv);
/* The option table and help of both (src/cli/cli_opts.h): perfetto 0 for
 * `locktrace record`, 1 for the bare form. */
struct lt_cli;
const struct lt_cli *lt_record_cli(int perfetto);
int lt_cmd_dump(int argc, char **argv);
int lt_cmd_snapshot(int argc, char **argv);
int lt_cmd_convert(int argc, char **argv);
int lt_cmd_report(int argc, char **argv);
/* The option tables of the other commands, for the man pages and the
 * completion (src/cli/cli_gen.c): the same tables their --help prints. */
const struct lt_cli *lt_snapshot_cli(void);
const struct lt_cli *lt_report_cli(void);
const struct lt_cli *lt_dump_cli(void);
const struct lt_cli *lt_convert_cli(void);

/* A command of `locktrace COMMAND` (main.c's table). */
struct lt_cmd {
	const char *name;
	int (*fn)(int, char **);
	const char *help;
};
/* The hidden `locktrace --man [COMMAND]` (the man page locktrace(8), or
 * locktrace-COMMAND(8), in troff on stdout) and `locktrace --completion
 * bash` (the bash completion script), both written from the option tables
 * that --help prints and from cmds, main's table.  argv[0] is "--man" or
 * "--completion".  The exit status: 0, or 2 for an unknown command. */
int lt_cli_gen(int argc, char **argv, const struct lt_cmd *cmds, size_t ncmds);

#include "log.h"  /* lt_err, lt_warn, lt_note, lt_info, lt_more */

/* The longest duration any option takes: a year. */
#define LT_MAX_SECONDS (365u * 24 * 3600)
#define LT_SECONDS_HINT "seconds in decimal, more than 0 and at most a year (31536000), e.g. 10 or 0.5"

/* "16M" -> 16777216; accepts K, M, G (powers of 1024), optionally followed
 * by "iB" or "B".  Plain decimal digits first.  0 or -1. */
int lt_parse_size(const char *s, uint64_t *out);
/* "PID[,PID...]" (one -p argument): append each pid to *pids (a malloc'd
 * array of *n), skipping repeats.  0, or -1 with *bad pointing at the
 * word that is not a pid (the array keeps what was parsed). */
int lt_parse_pid_list(const char *s, pid_t **pids, size_t *n, const char **bad);
/* Seconds: decimal digits with an optional fraction ("10", "0.5", ".5"),
 * more than 0 and at most LT_MAX_SECONDS; no sign, exponent, hex, inf or
 * nan.  0 or -1. */
int lt_parse_seconds(const char *s, double *out);
/* A decimal integer in [lo, hi], digits only.  0 or -1. */
int lt_parse_uint(const char *s, uint64_t lo, uint64_t hi, uint64_t *out);

#endif
