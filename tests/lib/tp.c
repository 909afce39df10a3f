/* Perfetto's trace processor for the tests (see tp.h); no tests here. */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>
#include "tp.h"

const char *tp_missing(void)
{
	static char why[256];
	if (access(TP_SHELL, X_OK) == 0)
		return NULL;
	snprintf(why, sizeof(why), "%s: %s (Perfetto's trace processor; CI has it beside the clone)",
		 TP_SHELL, strerror(errno));
	return why;
}

/* The whole file at path, NUL-terminated (NULL if unreadable). */
static char *slurp(const char *path)
{
	FILE *f = fopen(path, "rb");
	if (!f)
		return NULL;
	char *buf = NULL;
	size_t len = 0, cap = 0, n;
	do {
		if (len + 4096 + 1 > cap) {
			cap = cap ? cap * 2 : 65536;
			char *v = realloc(buf, cap);
			if (!v)
				break;
			buf = v;
		}
		n = fread(buf + len, 1, cap - len - 1, f);
		len += n;
	} while (n > 0);
	fclose(f);
	if (buf)
		buf[len] = 0;
	return buf;
}

/* ---- CSV: the shell prints each result as a header line, rows, a blank
 * line.  Strings are quoted without escaping (a quote inside one stays as
 * it is): a quoted field ends at a quote followed by a comma or the end of
 * the line.  NULL prints as "[NULL]", the same as that string. */

/* One field from *p; *more: a comma followed it. */
static char *csv_field(char **p, int *more)
{
	char *s = *p, *f = s, *end;
	if (*s == '"') {
		f = ++s;
		for (end = s; *end && !(*end == '"' && (end[1] == ',' || !end[1])); end++)
			;
		s = *end ? end + 1 : end;
	} else {
		end = s + strcspn(s, ",");
		s = end;
	}
	*more = *s == ',';
	*p = s + *more;
	*end = 0;
	return strcmp(f, "[NULL]") ? f : NULL;
}

static int table_add_row(struct tp_table *t, char *line)
{
	char *f[256];
	size_t n = 0;
	int more = 1;
	for (char *p = line; more && n < 256;)
		f[n++] = csv_field(&p, &more);
	if (!t->ncols)
		t->ncols = n;
	else if (n != t->ncols)
		return -1;
	size_t row = t->cell ? t->nrows + 1 : 0;
	char **v = realloc(t->cell, (row + 1) * t->ncols * sizeof(*v));
	if (!v)
		return -1;
	t->cell = v;
	for (size_t c = 0; c < n; c++)
		v[row * n + c] = f[c] ? strdup(f[c]) : NULL;
	if (row)
		t->nrows++;
	return 0;
}

static void parse_tables(struct tp_out *o, char *text)
{
	struct tp_table *t = NULL;
	for (char *line = text, *next; line; line = next) {
		next = strchr(line, '\n');
		if (next)
			*next++ = 0;
		if (!*line) {
			t = NULL;
			continue;
		}
		if (!t) {
			if (o->n == TP_MAX_TABLES)
				return;
			t = &o->t[o->n++];
		}
		if (table_add_row(t, line))
			snprintf(o->error, sizeof(o->error), "unreadable result line: %.200s", line);
	}
}

/* stderr: progress lines ("\rLoading trace: 0.03 MB", rewritten in place),
 * the importer's log lines, two timing lines, and a failed statement's
 * traceback.  Keeps the log lines as warnings, the traceback as the error. */
static void parse_stderr(struct tp_out *o, const char *text)
{
	size_t w = 0;
	char line[1024];
	for (const char *p = text; *p;) {
		size_t n = strcspn(p, "\r\n");
		snprintf(line, sizeof(line), "%.*s", (int)(n < sizeof(line) - 1 ? n : sizeof(line) - 1), p);
		p += n + (p[n] != 0);
		if (!line[0] || !strncmp(line, "Loading trace:", 14) || strstr(line, "Trace loaded:") ||
		    strstr(line, "Query execution time:"))
			continue;
		if (!strncmp(line, "Traceback", 9) || o->error[0]) {
			size_t e = strlen(o->error);
			snprintf(o->error + e, sizeof(o->error) - e, "%s%s", e ? " | " : "", line);
			continue;
		}
		if (w < sizeof(o->warnings) - 1)
			w += (size_t)snprintf(o->warnings + w, sizeof(o->warnings) - w, "%s%s", w ? "\n" : "", line);
	}
}

static double now_s(void)
{
	struct timespec ts;
	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec + (double)ts.tv_nsec / 1e9;
}

int tp_run_file(const char *trace, const char *sql_path, struct tp_out *o)
{
	char out[64], err[64];
	memset(o, 0, sizeof(*o));
	o->status = -1;
	snprintf(out, sizeof(out), "/tmp/lt-tp-%d-out", (int)getpid());
	snprintf(err, sizeof(err), "/tmp/lt-tp-%d-err", (int)getpid());
	double t0 = now_s();
	pid_t pid = fork();
	if (pid < 0)
		return -1;
	if (pid == 0) {
		int fo = open(out, O_WRONLY | O_CREAT | O_TRUNC, 0600);
		int fe = open(err, O_WRONLY | O_CREAT | O_TRUNC, 0600);
		if (fo < 0 || fe < 0 || dup2(fo, 1) < 0 || dup2(fe, 2) < 0)
			_exit(126);
		execl(TP_SHELL, TP_SHELL, "-q", sql_path, trace, (char *)NULL);
		_exit(127);
	}
	int st;
	while (waitpid(pid, &st, 0) < 0 && errno == EINTR)
		;
	o->seconds = now_s() - t0;
	o->status = WIFEXITED(st) ? WEXITSTATUS(st) : 128 + WTERMSIG(st);
	char *so = slurp(out), *se = slurp(err);
	unlink(out);
	unlink(err);
	if (se)
		parse_stderr(o, se);
	if (so)
		parse_tables(o, so);
	free(so);
	free(se);
	return o->status == 0 && !o->error[0] ? 0 : -1;
}

int tp_run(const char *trace, const char *sql, struct tp_out *o)
{
	char path[64];
	snprintf(path, sizeof(path), "/tmp/lt-tp-%d-query.sql", (int)getpid());
	FILE *f = fopen(path, "w");
	if (!f || fputs(sql, f) < 0) {
		if (f)
			fclose(f);
		memset(o, 0, sizeof(*o));
		o->status = -1;
		return -1;
	}
	fclose(f);
	int r = tp_run_file(trace, path, o);
	unlink(path);
	return r;
}

void tp_free(struct tp_out *o)
{
	for (size_t i = 0; i < o->n; i++) {
		struct tp_table *t = &o->t[i];
		for (size_t k = 0; t->cell && k < (t->nrows + 1) * t->ncols; k++)
			free(t->cell[k]);
		free(t->cell);
	}
	o->n = 0;
}

static long col_of(const struct tp_table *t, const char *col)
{
	for (size_t c = 0; t->cell && c < t->ncols; c++)
		if (t->cell[c] && !strcmp(t->cell[c], col))
			return (long)c;
	return -1;
}

const char *tp_get(const struct tp_table *t, size_t row, const char *col)
{
	long c = col_of(t, col);
	if (c < 0 || row >= t->nrows)
		return NULL;
	return t->cell[(row + 1) * t->ncols + (size_t)c];
}

long long tp_int(const struct tp_table *t, size_t row, const char *col, int *ok)
{
	const char *s = tp_get(t, row, col);
	char *end;
	if (!s || !*s) {
		if (ok)
			*ok = 0;
		return 0;
	}
	long long v = strtoll(s, &end, 0);
	if (*end) {
		double d = strtod(s, &end);
		v = (long long)d;
	}
	if (ok)
		*ok = !*end;
	return *end ? 0 : v;
}

long tp_find(const struct tp_table *t, const char *col, const char *val)
{
	for (size_t r = 0; r < t->nrows; r++) {
		const char *s = tp_get(t, r, col);
		if (s && !strcmp(s, val))
			return (long)r;
	}
	return -1;
}

int tp_chain_has(const struct tp_table *cs, const char *id, const char *func)
{
	for (int depth = 0; id && depth < 256; depth++) {
		long r = tp_find(cs, "id", id);
		if (r < 0)
			return 0;
		const char *name = tp_get(cs, (size_t)r, "name");
		if (name && !strcmp(name, func))
			return 1;
		id = tp_get(cs, (size_t)r, "parent_id");
	}
	return 0;
}

const char *tp_dump(const struct tp_table *t)
{
	static char buf[4096];
	size_t w = 0;
	buf[0] = 0;
	for (size_t r = 0; t->cell && r <= t->nrows && w < sizeof(buf); r++)
		for (size_t c = 0; c < t->ncols && w < sizeof(buf); c++) {
			const char *s = t->cell[r * t->ncols + c];
			w += (size_t)snprintf(buf + w, sizeof(buf) - w, "%s%s", s ? s : "NULL",
					      c + 1 < t->ncols ? "," : "\n");
		}
	return buf;
}
