// SPDX-License-Identifier: MIT
/* Around a recording (record_after.h): each completed trace converted for
 * Perfetto and its findings printed, the checks before it, the exit status. */
#include <errno.h>
#include <malloc.h>
#include <stdio.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>
#include "cli.h"
#include "convert.h"
#include "outfile.h"
#include "record_after.h"
#include "report.h"
#include "locktrace/tracefile.h"

void lt_after_install(struct lt_record_opts *o, struct lt_after *a)
{
	o->on_trace = lt_after_trace;
	o->on_trace_ctx = a;
	o->check_out = lt_after_check;
}

/* NAME.ltrace -> NAME.perfetto-trace, saying where both are.  0 or 1. */
static int convert_after(const struct lt_record_opts *o, const char *path)
{
	char out[4096];

	if (lt_convert_out_path(path, LT_FORMAT_PERFETTO, out, sizeof(out))) {
		lt_err("path too long to name the Perfetto trace: %s", path);
		return 1;
	}
	int rc = lt_convert_file(path, out, LT_FORMAT_PERFETTO, o->force, 1);
	if (rc == 1 && access(path, F_OK)) {
		lt_err("the raw trace %s is gone (removed while locktrace recorded?): nothing to convert", path);
		return 1;
	}
	if (rc == 1) {
		lt_info("the raw trace %s is complete; convert it later with:", path);
		lt_more("  locktrace convert %s -o OTHER.perfetto-trace", path);
		return 1;
	}
	lt_info("raw trace:      %s", path);
	lt_info("Perfetto trace: %s", out);
	lt_more("           open it at https://ui.perfetto.dev (Open trace file), or query it with");
	lt_more("           trace_processor; docs/perfetto.md says what it shows");
	return 0;
}

int lt_after_check(void *ctx, const char *path, char *err, size_t errlen)
{
	struct lt_after *a = ctx;
	char out[4096];

	if (!a->perfetto)
		return 0;
	if (lt_convert_out_path(path, LT_FORMAT_PERFETTO, out, sizeof(out))) {
		snprintf(err, errlen, "path too long to name the Perfetto trace: %s", path);
		return -ENAMETOOLONG;
	}
	if (a->o->pid_file && lt_out_same(a->o->pid_file, out)) {
		snprintf(err, errlen, "--pid-file names %s, the Perfetto trace of %s; choose another name for "
			 "one of them (or --no-perfetto)", out, path);
		return -EINVAL;
	}
	int r = lt_out_check(out, a->o->force);
	if (r == -EEXIST)
		snprintf(err, errlen, "%s already exists (the Perfetto trace of %s); choose another name "
			 "with -o, pass --force, or --no-perfetto", out, path);
	else if (r)
		snprintf(err, errlen, "cannot write the Perfetto trace %s: %s", out, lt_out_strerror(r));
	return r;
}

/* The report's findings, each with up to three pieces of evidence. */
static void print_findings(const char *path)
{
	char err[768];
	int rc;
	struct lt_report *r = lt_report_load(path, NULL, err, sizeof(err), &rc);

	if (!r)
		return;
	if (r->n_findings) {
		lt_info("findings (all of it: locktrace report %s):", path);
		for (size_t i = 0; i < r->n_findings; i++) {
			const struct lt_report_finding *f = &r->findings[i];
			lt_more("  %zu. %s", i + 1, f->summary);
			for (size_t k = 0; k < f->n_evidence && k < 3; k++)
				lt_more("       - %s", f->evidence[k]);
		}
	}
	lt_report_free(r);
}

void lt_after_trace(void *ctx, const char *path)
{
	struct lt_after *a = ctx;

	if (a->perfetto && convert_after(a->o, path))
		a->failed = 1;
	else if (!a->perfetto && a->o->quiet) /* else the summary names it */
		lt_info("trace: %s", path);
	print_findings(path); /* -q hides progress, never the answer */
	/* converting and analysing allocate a lot for a moment; a recorder that
	 * goes on (--keep-going) should not keep that resident */
	malloc_trim(0);
}

const char *lt_after_raw_name(const char *output, int perfetto, char *raw, size_t len)
{
	static const char sfx[] = ".perfetto-trace";
	size_t ol = output ? strlen(output) : 0, sl = sizeof(sfx) - 1;

	if (!perfetto || ol <= sl || strcmp(output + ol - sl, sfx))
		return output;
	snprintf(raw, len, "%.*s.ltrace", (int)(ol - sl), output);
	return raw;
}

int lt_record_exit_code(const struct lt_record_opts *o, const struct lt_record_result *res, int rc,
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
