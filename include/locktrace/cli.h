/* SPDX-License-Identifier: MIT */
/* Subcommands of the locktrace CLI.  Each takes (argc, argv) with argv[0] the
 * subcommand name and returns the process exit code. */
#ifndef LOCKTRACE_CLI_H
#define LOCKTRACE_CLI_H

#include <stdint.h>

int lt_cmd_record(int argc, char **argv);
/* `locktrace -p PID` / `locktrace -- CMD`: record, then convert for Perfetto */
int lt_cmd_trace(int argc, char **argv);
int lt_cmd_dump(int argc, char **argv);
int lt_cmd_snapshot(int argc, char **argv);
int lt_cmd_convert(int argc, char **argv);

/* "16M" -> 16777216; accepts K, M, G (powers of 1024).  0 or -1. */
int lt_parse_size(const char *s, uint64_t *out);
/* a positive number of seconds, fractions allowed.  0 or -1. */
int lt_parse_seconds(const char *s, double *out);

#endif
