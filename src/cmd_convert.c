// SPDX-License-Identifier: MIT
/* `locktrace convert TRACE [-o OUT] [--format perfetto|json]`, and the
 * conversion the recorder runs when it stops. */
#include <errno.h>
#include <fcntl.h>
#include <getopt.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>
#include "locktrace/cli.h"
#include "locktrace/convert.h"
#include "locktrace/jsontrace.h"
#include "locktrace/lockid.h"
#include "locktrace/locksyms.h"
#include "locktrace/outfile.h"
#include "locktrace/perfetto.h"
#include "locktrace/timeline.h"
#include "locktrace/tracefile.h"
#include "report_int.h"
#include "u64map.h"

static const char *suffix_of(int format)
{
	return format == LT_FORMAT_JSON ? ".json" : ".perfetto-trace";
}

int lt_convert_out_path(const char *in, int format, char *out, size_t n)
{
	size_t len = strlen(in);
	const char *ext = ".ltrace";
	size_t el = strlen(ext);
	if (len > el && !strcmp(in + len - el, ext))
		len -= el;
	int w = snprintf(out, n, "%.*s%s", (int)len, in, suffix_of(format));
	return w < 0 || (size_t)w >= n ? -1 : 0;
}

/* Lock names the recorder stored (SYMBOLS sections): addr -> name. */
static int lock_namer(void *ctx, uint64_t addr, char *buf, size_t len)
{
	const char *n = lt_u64map_get(ctx, addr);
	if (!n || !n[0])
		return 0;
	snprintf(buf, len, "%s", n);
	return 1;
}

/* Thread names the snapshots read from the runtime (tid -> name). */
static int thread_namer(void *ctx, uint32_t tid, char *buf, size_t len)
{
	const char *n = tid ? lt_u64map_get(ctx, tid) : NULL;
	if (!n || !n[0])
		return 0;
	snprintf(buf, len, "%s", n);
	return 1;
}

/* The names of a SYMBOLS entry of another process or in a shared mapping,
 * under the lock key the timeline uses (include/locktrace/lockid.h). */
struct sym_ctx {
	struct lt_lockid *ids;
	struct lt_u64map *names;
};

static void sym_entry(void *ctx, int32_t tgid, uint64_t addr, const char *name,
		      const struct lt_shared_key *key)
{
	struct sym_ctx *c = ctx;
	uint64_t k = lt_lockid_symbol(c->ids, (uint32_t)tgid, addr, key != NULL, key ? key->dev : 0,
				      key ? key->ino : 0, key ? key->offset : 0);
	char *n = k && name[0] ? strdup(name) : NULL;
	if (!n)
		return;
	char *old = lt_u64map_get(c->names, k);
	if (lt_u64map_put(c->names, k, n))
		free(n);
	else
		free(old);
}

/* The writer behind the timeline, whichever format. */
struct writer {
	int format;
	struct lt_perfetto *pf;
	struct lt_jsontrace *js;
};

static int writer_open(struct writer *w, FILE *f, const struct lt_header *hdr,
		       struct lt_timeline_sink *sink, struct lt_u64map *names, struct lt_u64map *tnames)
{
	if (w->format == LT_FORMAT_JSON) {
		if (!(w->js = lt_jsontrace_new(f, hdr)))
			return -ENOMEM;
		lt_jsontrace_set_lock_namer(w->js, lock_namer, names);
		lt_jsontrace_set_thread_namer(w->js, thread_namer, tnames);
		lt_jsontrace_sink(w->js, sink);
	} else {
		if (!(w->pf = lt_perfetto_new(f, hdr)))
			return -ENOMEM;
		lt_perfetto_set_lock_namer(w->pf, lock_namer, names);
		lt_perfetto_set_thread_namer(w->pf, thread_namer, tnames);
		lt_perfetto_sink(w->pf, sink);
	}
	return 0;
}

static int writer_finish(struct writer *w)
{
	return w->format == LT_FORMAT_JSON ? lt_jsontrace_finish(w->js) : lt_perfetto_finish(w->pf);
}

static void writer_free(struct writer *w)
{
	lt_jsontrace_free(w->js);
	lt_perfetto_free(w->pf);
}

static int same_file(const char *a, const char *b)
{
	struct stat sa, sb;
	return !stat(a, &sa) && !stat(b, &sb) && sa.st_dev == sb.st_dev && sa.st_ino == sb.st_ino;
}

int lt_convert_file(const char *in, const char *out, int format, int force, int quiet)
{
	struct lt_reader r;
	struct lt_item it;
	struct writer w = { .format = format };
	struct lt_timeline_sink sink;
	struct lt_timeline *tl = NULL;
	struct lt_lockid *ids = NULL;
	struct lt_u64map names = { 0 }, tnames = { 0 };
	char err[512], tmp[4096];
	uint64_t n = 0;
	int rc = 1, werr;
	FILE *f = NULL;

	if (lt_reader_open(&r, in, err, sizeof(err))) {
		fprintf(stderr, "Error: %s\n", err);
		return 1;
	}
	if (same_file(in, out)) {
		fprintf(stderr, "Error: the output %s is the input trace; choose another name with -o\n", out);
		goto out;
	}
	int fd = lt_out_check(out, force);
	if (fd == -EEXIST) {
		fprintf(stderr, "Error: %s already exists; choose another name with -o or pass --force\n", out);
		goto out;
	}
	/* private like the raw trace (both hold command lines and addresses),
	 * written beside it and renamed into place (include/locktrace/outfile.h) */
	if (fd == 0)
		fd = lt_out_tmp(out, tmp, sizeof(tmp));
	if (fd < 0 || !(f = fdopen(fd, "wb"))) {
		if (fd >= 0)
			close(fd);
		fprintf(stderr, "Error: cannot create %s: %s (choose a writable path with -o)\n", out,
			lt_out_strerror(fd < 0 ? fd : -errno));
		goto out;
	}
	setvbuf(f, NULL, _IOFBF, 1 << 20);
	/* lock names come in sections anywhere in the file: read them first
	 * (a pass that seeks over the events), so a lock's track is named
	 * when it first appears */
	lt_trace_names(in, &names, &tnames);
	/* several processes: their names, and the shared keys the timeline
	 * needs before the events (the same word of a shared mapping is one
	 * lock in every process) */
	struct sym_ctx sc = { .ids = ids = lt_lockid_new(&r.hdr), .names = &names };
	struct lt_timeline_opts to = { .lockid = ids };
	if (ids && r.hdr.version_minor >= 3)
		lt_trace_symbols_procs(in, sym_entry, &sc);
	if (!ids || writer_open(&w, f, &r.hdr, &sink, &names, &tnames) ||
	    !(tl = lt_timeline_new(&r.hdr, &sink, &to))) {
		fprintf(stderr, "Error: out of memory converting %s\n", in);
		goto fail;
	}
	if (w.pf)
		lt_perfetto_set_lockid(w.pf, ids);
	struct rp_holder held[8];
	size_t nheld = 0;
	uint64_t last_ts = 0;
	while (lt_reader_next(&r, &it) > 0) {
		if (it.type == LT_ITEM_SECTION && it.sec_type == LT_CHUNK_SNAPSHOT) {
			/* the last snapshot's runtime lock holders */
			nheld = rp_snapshot_holders((const char *)it.data, it.len, held, 8);
			continue;
		}
		if (it.type != LT_ITEM_EVENT)
			continue;
		lt_timeline_event(tl, &it.ev);
		if (it.ev.h.ts > last_ts)
			last_ts = it.ev.h.ts;
		n++;
	}
	/* a holder read from memory holds the lock at least since the call it
	 * is still blocked in began */
	struct { uint32_t uid; uint64_t begin; } hs[8];
	for (size_t i = 0; i < nheld; i++) {
		const struct lt_span *sp = lt_timeline_open_span(tl, held[i].tid);
		hs[i].uid = sp ? sp->thread_uid : 0;
		hs[i].begin = sp ? sp->begin_ts : 0;
	}
	/* the recorder's own end time, when it wrote one, also covers a quiet
	 * stretch after the last event */
	uint64_t end_ts = r.have_stats && r.stats.end_ns > last_ts ? r.stats.end_ns : last_ts;
	lt_timeline_finish(tl, r.have_stats ? r.stats.end_ns : 0);
	for (size_t i = 0; i < nheld && w.pf; i++) {
		if (!hs[i].uid || hs[i].begin >= end_ts)
			continue;
		char name[256];
		snprintf(name, sizeof(name), "holds the %s (read from the runtime's memory)", held[i].what);
		lt_perfetto_held(w.pf, hs[i].uid, hs[i].begin, end_ts, name);
	}
	werr = writer_finish(&w);
	if (fclose(f) && !werr)
		werr = -(errno ? errno : EIO);
	f = NULL;
	if (werr) {
		fprintf(stderr, "Error: writing %s: %s\n", out, strerror(-werr));
		goto fail;
	}
	if ((werr = lt_out_commit(tmp, out, force))) {
		fprintf(stderr, "Error: cannot rename %s to %s: %s%s\n", tmp, out, lt_out_strerror(werr),
			werr == -EEXIST ? " (created meanwhile; pass --force to replace it)" : "");
		goto fail;
	}
	rc = 0;
	if (!r.clean_end || r.stop_reason[0]) {
		fprintf(stderr, "locktrace: warning: %s: %s; converted the %" PRIu64 " events before it\n", in,
			r.stop_reason[0] ? r.stop_reason : "no end marker", n);
		rc = 3;
	}
	if (!quiet) {
		const struct lt_timeline_stats *st = lt_timeline_stats(tl);
		struct stat sb;
		uint64_t bytes = stat(out, &sb) ? 0 : (uint64_t)sb.st_size;
		fprintf(stderr,
			"locktrace: wrote %s: %" PRIu64 " events, %" PRIu64 " blocking calls, %" PRIu64
			" wake-ups traced to the waking call, %" PRIu64 " bytes (%.1f bytes/event)\n",
			out, n, st->spans, st->flows, bytes, n ? (double)bytes / (double)n : 0.0);
		if (st->lost)
			fprintf(stderr, "locktrace: note: the trace lost %" PRIu64
				" events (marked \"lost events\" in the timeline)\n", st->lost);
	}
	goto out;
fail:
	if (f)
		fclose(f);
	unlink(tmp);
out:
	lt_timeline_free(tl);
	lt_lockid_free(ids);
	writer_free(&w);
	lt_symmap_free(&names);
	lt_symmap_free(&tnames);
	lt_reader_close(&r);
	return rc;
}

static void usage(FILE *f)
{
	fprintf(f,
		"Usage: locktrace convert TRACE [-o OUT] [--format perfetto|json] [--force]\n"
		"\n"
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
		"                      thread states; for viewers that read only JSON.\n"
		"\n"
		"Options:\n"
		"  -o, --output OUT     file to write (default: TRACE with .ltrace replaced)\n"
		"      --format FORMAT  perfetto or json\n"
		"  -f, --force          replace OUT if it exists (with a new file: never written\n"
		"                       through a symlink or into the old file)\n"
		"  -q, --quiet          no summary\n"
		"  -h, --help           this help\n"
		"\n"
		"Exit status: 0 done; 1 error (nothing written); 3 the trace was damaged or cut\n"
		"short: OUT holds everything before the damage.\n");
}

int lt_cmd_convert(int argc, char **argv)
{
	static const struct option opts[] = {
		{ "output", required_argument, 0, 'o' }, { "format", required_argument, 0, 'F' },
		{ "force", no_argument, 0, 'f' },        { "quiet", no_argument, 0, 'q' },
		{ "help", no_argument, 0, 'h' },         { 0, 0, 0, 0 },
	};
	const char *out = NULL;
	int format = LT_FORMAT_PERFETTO, force = 0, quiet = 0, c;
	char def[4096];

	optind = 1;
	while ((c = getopt_long(argc, argv, "o:fqh", opts, NULL)) != -1) {
		switch (c) {
		case 'o': out = optarg; break;
		case 'F':
			if (!strcmp(optarg, "perfetto")) {
				format = LT_FORMAT_PERFETTO;
			} else if (!strcmp(optarg, "json")) {
				format = LT_FORMAT_JSON;
			} else {
				fprintf(stderr, "Error: unknown format '%s': expected perfetto or json\n", optarg);
				return 2;
			}
			break;
		case 'f': force = 1; break;
		case 'q': quiet = 1; break;
		case 'h': usage(stdout); return 0;
		default: usage(stderr); return 2;
		}
	}
	if (optind != argc - 1) {
		fprintf(stderr, "Error: %s\n", optind >= argc ? "no trace given" : "give one trace");
		usage(stderr);
		return 2;
	}
	const char *in = argv[optind];
	if (!out) {
		if (lt_convert_out_path(in, format, def, sizeof(def))) {
			fprintf(stderr, "Error: path too long: %s\n", in);
			return 2;
		}
		out = def;
	}
	int rc = lt_convert_file(in, out, format, force, quiet);
	if ((rc == 0 || rc == 3) && !quiet && format == LT_FORMAT_PERFETTO)
		fprintf(stderr, "locktrace: open it at https://ui.perfetto.dev (Open trace file) "
				"or with trace_processor %s\n", out);
	return rc;
}
