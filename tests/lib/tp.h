/* Perfetto's trace processor for the tests: runs SQL on a trace the way the
 * UI's importer reads it (../shared/tools/trace_processor_shell, from the
 * repository's root) and hands back each statement's result as a table.
 * No tests here (tests/lib/tp.c). */
#ifndef TP_H
#define TP_H

#include <stddef.h>

#define TP_SHELL "../shared/tools/trace_processor_shell"
#define TP_MAX_TABLES 16

struct tp_table {
	size_t ncols, nrows;
	char **cell; /* (nrows + 1) * ncols, row 0 the column names; NULL for SQL NULL */
};

struct tp_out {
	struct tp_table t[TP_MAX_TABLES];
	size_t n;            /* statements that printed a result */
	char warnings[2048]; /* the importer's messages on stderr, "" if none */
	char error[1024];    /* a failed statement's message, "" if none */
	int status;          /* the shell's exit status, -1 if it did not run */
	double seconds;      /* wall time of the run */
};

/* NULL when the shell is there to run, else why not (for a skip message). */
const char *tp_missing(void);
/* Runs the statements in sql (or in the file sql_path) against trace.
 * 0 when the shell ran and every statement succeeded, else -1 (o->error
 * or o->status says why).  tp_free() in any case. */
int tp_run(const char *trace, const char *sql, struct tp_out *o);
int tp_run_file(const char *trace, const char *sql_path, struct tp_out *o);
void tp_free(struct tp_out *o);

/* Column col of row (0-based, after the names) of t: its text, or NULL when
 * SQL NULL, the row or the column does not exist. */
const char *tp_get(const struct tp_table *t, size_t row, const char *col);
/* The same as a number; 0 (and *ok = 0) when it is not one. */
long long tp_int(const struct tp_table *t, size_t row, const char *col, int *ok);
/* The first row whose column col reads val, or -1. */
long tp_find(const struct tp_table *t, const char *col, const char *val);
/* Whether the callsite chain of callsite ID in CS (rows id, parent_id,
 * name: stack_profile_callsite joined with its frames) passes through a
 * frame named FUNC; at most 256 callsites deep. */
int tp_chain_has(const struct tp_table *cs, const char *id, const char *func);
/* t as text, for a failing assertion's message (a static buffer). */
const char *tp_dump(const struct tp_table *t);

#endif
