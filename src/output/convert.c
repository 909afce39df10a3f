// SPDX-License-Identifier: MIT
/* Converting a raw trace for a viewer (src/output/convert.h): the
 * reader feeds the timeline model, whose sink is the chosen writer.  Says
 * nothing itself: errors and the damaged-input warning are returned. */
#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>
#include "convert.h"
#include "stacks.h"
#include "jsontrace.h"
#include "lockid.h"
#include "locksyms.h"
#include "snapfacts.h"
#include "outfile.h"
#include "perfetto.h"
#include "perfetto_go.h"
#include "timeline.h"
#include "locktrace/tracefile.h"
#include "report_int.h"
#include "u64map.h"
#include "utf8.h"

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

/* The file a thread waited to lock on fd, as a snapshot saw it. */
static int file_namer(void *ctx, uint32_t tid, int fd, char *buf, size_t len)
{
	const char *n = fd >= 0 ? lt_u64map_get(ctx, RP_FILE_KEY(tid, fd)) : NULL;
	if (!n || !n[0])
		return 0;
	lt_text_escape(buf, len, n, strlen(n));
	return 1;
}

/* The names of a SYMBOLS entry of another process or in a shared mapping,
 * under the lock key the timeline uses (src/trace/lockid.h). */
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
	const struct lt_namers nm = { lock_namer, names, thread_namer, tnames, file_namer, tnames };
	if (w->format == LT_FORMAT_JSON) {
		if (!(w->js = lt_jsontrace_new(f, hdr)))
			return -ENOMEM;
		lt_jsontrace_set_namers(w->js, &nm);
		lt_jsontrace_sink(w->js, sink);
	} else {
		if (!(w->pf = lt_perfetto_new(f, hdr)))
			return -ENOMEM;
		lt_perfetto_set_namers(w->pf, &nm);
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


int lt_convert(const char *in, const char *out, int format, int force, struct lt_convert_result *res,
	       char *err, size_t errlen)
{
	struct lt_reader r;
	struct lt_item it;
	struct writer w = { .format = format };
	struct lt_timeline_sink sink;
	struct lt_timeline *tl = NULL;
	struct lt_lockid *ids = NULL;
	struct lt_u64map names = { 0 }, tnames = { 0 };
	struct lt_stacktab stacks = { 0 }; /* record --stacks: the waits' stacks */
	char tmp[4096];
	char *snap = NULL; /* the last stored snapshot's JSON (its goroutines) */
	size_t snap_len = 0;
	uint64_t n = 0;
	int rc = 1, werr;
	FILE *f = NULL;

	memset(res, 0, sizeof(*res));
	err[0] = 0;
	if (lt_reader_open(&r, in, err, errlen))
		return 1;
	if (lt_out_same(in, out)) {
		snprintf(err, errlen, "the output %s is the input trace; choose another name with -o", out);
		goto out;
	}
	int fd = lt_out_check(out, force);
	if (fd == -EEXIST) {
		snprintf(err, errlen, "%s already exists; choose another name with -o or pass --force", out);
		goto out;
	}
	/* private like the raw trace (both hold command lines and addresses),
	 * written beside it and renamed into place (src/base/outfile.h) */
	if (fd == 0)
		fd = lt_out_tmp(out, tmp, sizeof(tmp));
	if (fd < 0 || !(f = fdopen(fd, "wb"))) {
		if (fd >= 0)
			close(fd);
		snprintf(err, errlen, "cannot create %s: %s (choose a writable path with -o)", out,
			 lt_out_strerror(fd < 0 ? fd : -errno));
		goto out;
	}
	setvbuf(f, NULL, _IOFBF, 1 << 20);
	/* lock names come in sections anywhere in the file: read them first
	 * (a pass that seeks over the events), so a lock's track is named
	 * when it first appears */
	lt_trace_names(in, &names, &tnames, rp_snapshot_names);
	/* several processes: their names, and the shared keys the timeline
	 * needs before the events (the same word of a shared mapping is one
	 * lock in every process) */
	struct sym_ctx sc = { .ids = ids = lt_lockid_new(&r.hdr), .names = &names };
	struct lt_timeline_opts to = { .lockid = ids };
	if (ids && r.hdr.version_minor >= 3)
		lt_trace_symbols_procs(in, sym_entry, &sc);
	if (!ids || writer_open(&w, f, &r.hdr, &sink, &names, &tnames) ||
	    !(tl = lt_timeline_new(&r.hdr, &sink, &to))) {
		snprintf(err, errlen, "out of memory converting %s", in);
		goto fail;
	}
	if (w.pf)
		lt_perfetto_set_lockid(w.pf, ids);
	if (w.pf && r.hdr.version_minor >= 5) {
		/* a first pass, as for the names: a wait's stack may be
		 * written after the wait's events */
		lt_trace_stacks(in, &stacks);
		if (stacks.nstacks)
			lt_perfetto_set_stacks(w.pf, &stacks);
	}
	struct rp_holder held[8];
	size_t nheld = 0;
	uint64_t last_ts = 0;
	while (lt_reader_next(&r, &it) > 0) {
		if (it.type == LT_ITEM_SECTION && it.sec_type == LT_CHUNK_SNAPSHOT) {
			/* the last snapshot's runtime lock holders */
			nheld = rp_snapshot_holders((const char *)it.data, it.len, held, 8);
			free(snap);
			snap_len = 0;
			if ((snap = malloc(it.len ? it.len : 1))) {
				memcpy(snap, it.data, it.len);
				snap_len = it.len;
			}
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
	if (w.pf && snap)
		lt_perfetto_go_snapshot(w.pf, snap, snap_len, r.hdr.clock_boottime - r.hdr.clock_monotonic, end_ts);
	werr = writer_finish(&w);
	if (fclose(f) && !werr)
		werr = -(errno ? errno : EIO);
	f = NULL;
	if (werr) {
		snprintf(err, errlen, "writing %s: %s", out, strerror(-werr));
		goto fail;
	}
	if ((werr = lt_out_commit(tmp, out, force))) {
		snprintf(err, errlen, "cannot rename %s to %s: %s%s", tmp, out, lt_out_strerror(werr),
			 werr == -EEXIST ? " (created meanwhile; pass --force to replace it)" : "");
		goto fail;
	}
	rc = 0;
	if (!r.clean_end || r.stop_reason[0]) {
		snprintf(err, errlen, "%s: %s; converted the %" PRIu64 " events before it", in,
			 r.stop_reason[0] ? r.stop_reason : "no end marker", n);
		rc = 3;
	} else if (r.nskips) {
		snprintf(err, errlen, "%s is damaged; converted the %" PRIu64 " events that could be read", in, n);
	}
	if (r.nskips) {
		lt_trace_damage_append(&r, err, errlen);
		rc = 3;
	}
	const struct lt_timeline_stats *st = lt_timeline_stats(tl);
	struct stat sb;
	*res = (struct lt_convert_result){
		.events = n, .spans = st->spans, .flows = st->flows, .lost = st->lost,
		.unseen_switches = st->unseen_switches,
		.bytes = stat(out, &sb) ? 0 : (uint64_t)sb.st_size,
	};
	goto out;
fail:
	if (f)
		fclose(f);
	unlink(tmp);
out:
	free(snap);
	lt_timeline_free(tl);
	lt_lockid_free(ids);
	writer_free(&w);
	lt_stacktab_free(&stacks);
	lt_symmap_free(&names);
	lt_symmap_free(&tnames);
	lt_reader_close(&r);
	return rc;
}
