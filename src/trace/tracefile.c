// SPDX-License-Identifier: MIT
/*
 * Trace file writer and reader (format: docs/trace-format.md).
 *
 * Preamble (16 bytes): magic "\x7fLTRACE\n", u16 major, u16 minor, u32 0.
 * Chunk: "LTCK", u32 type, u32 payload length, u32 CRC-32 of
 * (type, length, payload), then the payload; all little-endian.
 *
 * The writer only ever appends whole chunks with one write() each, so a
 * crash leaves at worst one partial chunk at the end, which the reader
 * detects (short read or CRC) and reports with its offset.  Damage in the
 * middle (a disk error, an overwrite) is skipped: the reader scans on for
 * the next chunk that checks out and keeps what it skipped (resync).
 */
#include <errno.h>
#include <fcntl.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>
#include <zlib.h>
#include "outfile.h"
#include "locktrace/tracefile.h"
#include "codec_enc.h"
#include "writer_int.h"
#include "crc32.h"
#include "grow.h"
#include "varint.h"

#define CHUNK_MAGIC 0x4b43544cu /* "LTCK" little-endian */

uint32_t lt_crc32(const void *data, size_t len)
{
	return lt_crc32_update(0, data, len);
}

/* ---------------------------------------------------------------- TLV */

struct tlv {
	uint8_t *buf;
	size_t len, cap;
	int err;
};

static void tlv_room(struct tlv *t, size_t n)
{
	if (t->err || t->len + n <= t->cap)
		return;
	uint8_t *b = lt_grow_to(t->buf, &t->cap, t->len + n, 1, 256);
	if (!b) {
		t->err = 1;
		return;
	}
	t->buf = b;
}

static void tlv_varint(struct tlv *t, uint64_t key, uint64_t v)
{
	tlv_room(t, 30);
	if (t->err)
		return;
	uint8_t tmp[10], *e = lt_put_varint(tmp, v);
	uint8_t *p = lt_put_varint(t->buf + t->len, key);
	p = lt_put_varint(p, (size_t)(e - tmp));
	memcpy(p, tmp, (size_t)(e - tmp));
	t->len = (size_t)(p + (e - tmp) - t->buf);
}

static void tlv_bytes(struct tlv *t, uint64_t key, const void *data, size_t n)
{
	tlv_room(t, n + 20);
	if (t->err)
		return;
	uint8_t *p = lt_put_varint(t->buf + t->len, key);
	p = lt_put_varint(p, n);
	memcpy(p, data, n);
	t->len = (size_t)(p + n - t->buf);
}

static void tlv_str(struct tlv *t, uint64_t key, const char *s, size_t max)
{
	tlv_bytes(t, key, s, strnlen(s, max));
}

/* Reads one field: key and value slice.  0 ok, 1 end, -1 malformed. */
static int tlv_next(struct lt_cur *c, uint64_t *key, struct lt_cur *val)
{
	if (c->p >= c->end)
		return 1;
	*key = lt_get_varint(c);
	uint64_t n = lt_get_varint(c);
	const uint8_t *v = c->err ? NULL : lt_get_bytes(c, n);
	if (!v)
		return -1;
	val->p = v;
	val->end = v + n;
	val->err = 0;
	return 0;
}

static void tlv_get_str(struct lt_cur *v, char *dst, size_t cap)
{
	size_t n = (size_t)(v->end - v->p);
	if (n >= cap)
		n = cap - 1;
	memcpy(dst, v->p, n);
	dst[n] = 0;
}

enum {
	H_PID = 2, H_FLAGS, H_NCPUS, H_HOST, H_KERNEL, H_COMM, H_EXE, H_CMDLINE,
	H_CLK_BOOT, H_CLK_MONO, H_CLK_REAL, H_THREAD, H_MACHINE, H_KVERSION, H_PPID,
	H_PROC, H_SHMAP,
};
enum { T_TID = 1, T_COMM, T_SC_NR, T_SC_ARG, T_BLOCKED, T_STATE, T_TGID };
enum { P_TGID = 1, P_PPID, P_FLAGS, P_COMM, P_EXE, P_CMDLINE };
enum { M_TGID = 1, M_START, M_END, M_OFFSET, M_DEV, M_INO };

/* Appends a nested TLV as field key of t (or marks t failed). */
static void tlv_nested(struct tlv *t, uint64_t key, struct tlv *sub)
{
	if (sub->err)
		t->err = 1;
	else
		tlv_bytes(t, key, sub->buf, sub->len);
	free(sub->buf);
}

static void encode_thread(struct tlv *t, const struct lt_thread_info *ti)
{
	struct tlv sub = { 0 };

	tlv_varint(&sub, T_TID, (uint32_t)ti->tid);
	tlv_str(&sub, T_COMM, ti->comm, sizeof(ti->comm));
	tlv_varint(&sub, T_SC_NR, lt_zz(ti->sc_nr));
	for (int a = 0; a < 6; a++)
		tlv_varint(&sub, T_SC_ARG, ti->sc_args[a]);
	tlv_varint(&sub, T_BLOCKED, ti->blocked_ns);
	if (ti->state)
		tlv_varint(&sub, T_STATE, (uint8_t)ti->state);
	if (ti->tgid > 0)
		tlv_varint(&sub, T_TGID, (uint32_t)ti->tgid);
	tlv_nested(t, H_THREAD, &sub);
}

static void encode_proc(struct tlv *t, const struct lt_proc_info *p)
{
	struct tlv sub = { 0 };

	tlv_varint(&sub, P_TGID, (uint32_t)p->tgid);
	tlv_varint(&sub, P_PPID, (uint32_t)p->ppid);
	tlv_varint(&sub, P_FLAGS, p->flags);
	tlv_str(&sub, P_COMM, p->comm, sizeof(p->comm));
	tlv_str(&sub, P_EXE, p->exe, sizeof(p->exe));
	tlv_str(&sub, P_CMDLINE, p->cmdline, sizeof(p->cmdline));
	tlv_nested(t, H_PROC, &sub);
}

static void encode_shmap(struct tlv *t, const struct lt_shared_map *m)
{
	struct tlv sub = { 0 };

	tlv_varint(&sub, M_TGID, (uint32_t)m->tgid);
	tlv_varint(&sub, M_START, m->start);
	tlv_varint(&sub, M_END, m->end);
	tlv_varint(&sub, M_OFFSET, m->offset);
	tlv_varint(&sub, M_DEV, m->dev);
	tlv_varint(&sub, M_INO, m->ino);
	tlv_nested(t, H_SHMAP, &sub);
}
enum { S_START = 1, S_END, S_EVENTS, S_NCPUS, S_LOST, S_EXIT, S_STOP, S_FB_WRITTEN, S_FB_OVER };

static void encode_header(struct tlv *t, const struct lt_header *h)
{
	tlv_varint(t, H_PID, (uint32_t)h->pid);
	tlv_varint(t, H_FLAGS, h->flags);
	tlv_varint(t, H_NCPUS, h->ncpus);
	tlv_str(t, H_HOST, h->host, sizeof(h->host));
	tlv_str(t, H_KERNEL, h->kernel, sizeof(h->kernel));
	tlv_str(t, H_COMM, h->comm, sizeof(h->comm));
	tlv_str(t, H_EXE, h->exe, sizeof(h->exe));
	tlv_str(t, H_CMDLINE, h->cmdline, sizeof(h->cmdline));
	tlv_varint(t, H_CLK_BOOT, h->clock_boottime);
	tlv_varint(t, H_CLK_MONO, h->clock_monotonic);
	tlv_varint(t, H_CLK_REAL, h->clock_realtime);
	tlv_str(t, H_MACHINE, h->machine, sizeof(h->machine));
	tlv_str(t, H_KVERSION, h->kversion, sizeof(h->kversion));
	if (h->ppid > 0)
		tlv_varint(t, H_PPID, (uint32_t)h->ppid);
	for (uint32_t i = 0; i < h->nthreads; i++)
		encode_thread(t, &h->threads[i]);
	for (uint32_t i = 0; i < h->nprocs; i++)
		encode_proc(t, &h->procs[i]);
	for (uint32_t i = 0; i < h->nshared; i++)
		encode_shmap(t, &h->shared[i]);
}

static int decode_thread(struct lt_cur *c, struct lt_thread_info *ti)
{
	uint64_t key;
	struct lt_cur v;
	int r, nargs = 0;

	memset(ti, 0, sizeof(*ti));
	ti->sc_nr = LT_SC_NR_UNKNOWN;
	while ((r = tlv_next(c, &key, &v)) == 0) {
		switch (key) {
		case T_TID: ti->tid = (int32_t)lt_get_varint(&v); break;
		case T_COMM: tlv_get_str(&v, ti->comm, sizeof(ti->comm)); break;
		case T_SC_NR: ti->sc_nr = lt_get_zz(&v); break;
		case T_SC_ARG:
			if (nargs < 6)
				ti->sc_args[nargs++] = lt_get_varint(&v);
			break;
		case T_BLOCKED: ti->blocked_ns = lt_get_varint(&v); break;
		case T_STATE: ti->state = (char)lt_get_varint(&v); break;
		case T_TGID: ti->tgid = (int32_t)lt_get_varint(&v); break;
		}
		if (v.err)
			return -1;
	}
	return r < 0 ? -1 : 0;
}

static int decode_proc(struct lt_cur *c, struct lt_proc_info *p)
{
	uint64_t key;
	struct lt_cur v;
	int r;

	memset(p, 0, sizeof(*p));
	while ((r = tlv_next(c, &key, &v)) == 0) {
		switch (key) {
		case P_TGID: p->tgid = (int32_t)lt_get_varint(&v); break;
		case P_PPID: p->ppid = (int32_t)lt_get_varint(&v); break;
		case P_FLAGS: p->flags = (uint32_t)lt_get_varint(&v); break;
		case P_COMM: tlv_get_str(&v, p->comm, sizeof(p->comm)); break;
		case P_EXE: tlv_get_str(&v, p->exe, sizeof(p->exe)); break;
		case P_CMDLINE: tlv_get_str(&v, p->cmdline, sizeof(p->cmdline)); break;
		}
		if (v.err)
			return -1;
	}
	return r < 0 ? -1 : 0;
}

static int decode_shmap(struct lt_cur *c, struct lt_shared_map *m)
{
	uint64_t key;
	struct lt_cur v;
	int r;

	memset(m, 0, sizeof(*m));
	while ((r = tlv_next(c, &key, &v)) == 0) {
		switch (key) {
		case M_TGID: m->tgid = (int32_t)lt_get_varint(&v); break;
		case M_START: m->start = lt_get_varint(&v); break;
		case M_END: m->end = lt_get_varint(&v); break;
		case M_OFFSET: m->offset = lt_get_varint(&v); break;
		case M_DEV: m->dev = lt_get_varint(&v); break;
		case M_INO: m->ino = lt_get_varint(&v); break;
		}
		if (v.err)
			return -1;
	}
	return r < 0 || m->end < m->start ? -1 : 0;
}

/* Room for element n of *arr: 0 or -1. */
static int room_for(void **arr, uint32_t n, size_t sz)
{
	void *p = lt_grow_pow2(*arr, n, sz);
	if (!p)
		return -1;
	*arr = p;
	return 0;
}

static int decode_header(const uint8_t *p, size_t n, struct lt_header *h)
{
	struct lt_cur c = lt_cur_over(p, n), v;
	uint64_t key;
	int r;

	while ((r = tlv_next(&c, &key, &v)) == 0) {
		switch (key) {
		case H_PID: h->pid = (int32_t)lt_get_varint(&v); break;
		case H_FLAGS: h->flags = lt_get_varint(&v); break;
		case H_NCPUS: h->ncpus = lt_get_varint(&v); break;
		case H_HOST: tlv_get_str(&v, h->host, sizeof(h->host)); break;
		case H_KERNEL: tlv_get_str(&v, h->kernel, sizeof(h->kernel)); break;
		case H_COMM: tlv_get_str(&v, h->comm, sizeof(h->comm)); break;
		case H_EXE: tlv_get_str(&v, h->exe, sizeof(h->exe)); break;
		case H_CMDLINE: tlv_get_str(&v, h->cmdline, sizeof(h->cmdline)); break;
		case H_CLK_BOOT: h->clock_boottime = lt_get_varint(&v); break;
		case H_CLK_MONO: h->clock_monotonic = lt_get_varint(&v); break;
		case H_CLK_REAL: h->clock_realtime = lt_get_varint(&v); break;
		case H_MACHINE: tlv_get_str(&v, h->machine, sizeof(h->machine)); break;
		case H_KVERSION: tlv_get_str(&v, h->kversion, sizeof(h->kversion)); break;
		case H_PPID: h->ppid = (int32_t)lt_get_varint(&v); break;
		case H_THREAD:
			if (room_for((void **)&h->threads, h->nthreads, sizeof(*h->threads)) ||
			    decode_thread(&v, &h->threads[h->nthreads]))
				return -1;
			h->nthreads++;
			break;
		case H_PROC:
			if (room_for((void **)&h->procs, h->nprocs, sizeof(*h->procs)) ||
			    decode_proc(&v, &h->procs[h->nprocs]))
				return -1;
			h->nprocs++;
			break;
		case H_SHMAP:
			if (room_for((void **)&h->shared, h->nshared, sizeof(*h->shared)) ||
			    decode_shmap(&v, &h->shared[h->nshared]))
				return -1;
			h->nshared++;
			break;
		}
		if (v.err)
			return -1;
	}
	if (r < 0)
		return -1;
	/* before 1.3 every thread was of the one process */
	for (uint32_t k = 0; k < h->nthreads; k++)
		if (h->threads[k].tgid <= 0)
			h->threads[k].tgid = h->pid;
	return 0;
}

static void encode_stats(struct tlv *t, const struct lt_stats *s)
{
	tlv_varint(t, S_START, s->start_ns);
	tlv_varint(t, S_END, s->end_ns);
	tlv_varint(t, S_NCPUS, s->ncpus);
	tlv_varint(t, S_EXIT, lt_zz(s->exit_status));
	tlv_varint(t, S_STOP, s->stop_reason);
	if (s->fb_written) {
		tlv_varint(t, S_FB_WRITTEN, s->fb_written);
		tlv_varint(t, S_FB_OVER, s->fb_overwritten);
	}
	for (unsigned k = 0; k < LT_EV_MAX; k++) {
		uint8_t b[20], *e = lt_put_varint(lt_put_varint(b, k), s->events[k]);
		tlv_bytes(t, S_EVENTS, b, (size_t)(e - b));
	}
	for (uint32_t cpu = 0; s->lost && cpu < s->ncpus; cpu++) {
		for (unsigned k = 0; k < LT_EV_MAX; k++) {
			uint64_t n = s->lost[cpu * LT_EV_MAX + k];
			if (!n)
				continue;
			uint8_t b[30], *e = lt_put_varint(lt_put_varint(lt_put_varint(b, cpu), k), n);
			tlv_bytes(t, S_LOST, b, (size_t)(e - b));
		}
	}
}

static int decode_stats(const uint8_t *p, size_t n, struct lt_stats *s)
{
	struct lt_cur c = lt_cur_over(p, n), v;
	uint64_t key;
	int r;

	memset(s, 0, sizeof(*s));
	s->exit_status = -1;
	while ((r = tlv_next(&c, &key, &v)) == 0) {
		switch (key) {
		case S_START: s->start_ns = lt_get_varint(&v); break;
		case S_END: s->end_ns = lt_get_varint(&v); break;
		case S_NCPUS:
			s->ncpus = lt_get_varint(&v);
			if (s->ncpus > 65536)
				return -1;
			free(s->lost);
			s->lost = calloc((size_t)s->ncpus * LT_EV_MAX + 1, sizeof(uint64_t));
			if (!s->lost)
				return -1;
			break;
		case S_EXIT: s->exit_status = (int32_t)lt_get_zz(&v); break;
		case S_STOP: s->stop_reason = lt_get_varint(&v); break;
		case S_FB_WRITTEN: s->fb_written = lt_get_varint(&v); break;
		case S_FB_OVER: s->fb_overwritten = lt_get_varint(&v); break;
		case S_EVENTS: {
			uint64_t k = lt_get_varint(&v), cnt = lt_get_varint(&v);
			if (k < LT_EV_MAX)
				s->events[k] = cnt;
			break;
		}
		case S_LOST: {
			uint64_t cpu = lt_get_varint(&v), k = lt_get_varint(&v), cnt = lt_get_varint(&v);
			if (s->lost && cpu < s->ncpus && k < LT_EV_MAX)
				s->lost[cpu * LT_EV_MAX + k] = cnt;
			break;
		}
		}
		if (v.err)
			return -1;
	}
	return r < 0 ? -1 : 0;
}

void lt_header_free(struct lt_header *h)
{
	free(h->threads);
	h->threads = NULL;
	h->nthreads = 0;
	free(h->procs);
	h->procs = NULL;
	h->nprocs = 0;
	free(h->shared);
	h->shared = NULL;
	h->nshared = 0;
}

void lt_stats_free(struct lt_stats *s)
{
	free(s->lost);
	s->lost = NULL;
}

/* ------------------------------------------------------------- writer */

static int write_all(int fd, const void *data, size_t n)
{
	const uint8_t *p = data;
	while (n) {
		ssize_t w = write(fd, p, n);
		if (w < 0) {
			if (errno == EINTR)
				continue;
			return -errno;
		}
		p += w;
		n -= (size_t)w;
	}
	return 0;
}

/* Writes the chunk whose payload is at buf + LT_CHUNK_HDR_LEN. */
static int write_chunk_inplace(struct lt_writer *w, uint8_t *buf, uint32_t type, size_t len,
			       const struct lt_chunk_info *info)
{
	lt_put_le32(buf, CHUNK_MAGIC);
	lt_put_le32(buf + 4, type);
	lt_put_le32(buf + 8, (uint32_t)len);
	uint32_t crc = (uint32_t)crc32(0L, buf + 4, 8);
	crc = lt_crc32_update(crc, buf + LT_CHUNK_HDR_LEN, len);
	lt_put_le32(buf + 12, crc);
	if (w->err)
		return w->err;
	int r = w->emit ? w->emit(w->emit_ctx, type, buf + LT_CHUNK_HDR_LEN, len, info)
			: write_all(w->fd, buf, LT_CHUNK_HDR_LEN + len);
	if (r) {
		w->err = r;
		return r;
	}
	w->bytes += LT_CHUNK_HDR_LEN + len;
	return 0;
}

/* One chunk of type holding data.  0 or -errno. */
static int write_one(struct lt_writer *w, uint32_t type, const uint8_t *data, size_t len)
{
	uint8_t *buf = malloc(LT_CHUNK_HDR_LEN + len);
	if (!buf)
		return -ENOMEM;
	if (len)
		memcpy(buf + LT_CHUNK_HDR_LEN, data, len);
	int r = write_chunk_inplace(w, buf, type, len, NULL);
	free(buf);
	return r;
}

/* A section larger than a chunk goes out as CONT chunks of LT_CHUNK_MAX
 * bytes and a last chunk of its own type (a memory writer, the flight
 * ring, keeps only events: it gets no CONT parts).  Any failure is sticky:
 * the writer then ends the file with a FAILED chunk, never END. */
int lt_writer_section(struct lt_writer *w, uint32_t type, const void *data, size_t len)
{
	const uint8_t *p = data;
	int r = lt_writer_flush(w);

	if (!r && len > LT_SECTION_MAX)
		r = -EFBIG;
	for (; !r && len > LT_CHUNK_MAX; p += LT_CHUNK_MAX, len -= LT_CHUNK_MAX)
		if (w->fd >= 0)
			r = write_one(w, LT_CHUNK_CONT, p, LT_CHUNK_MAX);
	if (!r)
		r = write_one(w, type, p, len);
	if (r && !w->err)
		w->err = r;
	return r;
}

int lt_writer_fd_open(struct lt_writer **out, int fd)
{
	struct lt_writer *w = calloc(1, sizeof(*w));
	uint8_t pre[LT_PREAMBLE_LEN] = { 0 };
	int r;

	if (!w)
		return -ENOMEM;
	w->fd = fd;
	w->chunk_target = LT_EVENTS_CHUNK_TARGET;
	w->cap = LT_EVENTS_CHUNK_TARGET + LT_EVENT_MAX_ENCODED + 16;
	w->buf = malloc(LT_CHUNK_HDR_LEN + w->cap);
	if (!w->buf) {
		free(w);
		return -ENOMEM;
	}
	memcpy(pre, LT_MAGIC, 8);
	pre[8] = LT_VERSION_MAJOR & 0xff;
	pre[9] = LT_VERSION_MAJOR >> 8;
	pre[10] = LT_VERSION_MINOR & 0xff;
	pre[11] = LT_VERSION_MINOR >> 8;
	r = write_all(fd, pre, sizeof(pre));
	if (r) {
		free(w->buf);
		free(w);
		return r;
	}
	w->bytes = sizeof(pre);
	*out = w;
	return 0;
}

int lt_writer_mem_open(struct lt_writer **out, int32_t pid, size_t chunk_target, lt_chunk_fn fn,
		       void *ctx)
{
	struct lt_writer *w = calloc(1, sizeof(*w));
	if (!w)
		return -ENOMEM;
	w->fd = -1;
	w->pid = pid;
	w->emit = fn;
	w->emit_ctx = ctx;
	w->chunk_target = chunk_target;
	w->cap = chunk_target + LT_EVENT_MAX_ENCODED + 16;
	w->buf = malloc(LT_CHUNK_HDR_LEN + w->cap);
	if (!w->buf) {
		free(w);
		return -ENOMEM;
	}
	*out = w;
	return 0;
}

int lt_writer_open(struct lt_writer **out, const char *path, int force)
{
	int fd = lt_out_create(path, force); /* new and private, never through a symlink */
	if (fd < 0)
		return fd;
	int r = lt_writer_fd_open(out, fd);
	if (r)
		close(fd);
	return r;
}

int lt_writer_header(struct lt_writer *w, const struct lt_header *h)
{
	struct tlv t = { 0 };
	int r;

	w->pid = h->pid;
	encode_header(&t, h);
	r = t.err ? -ENOMEM : lt_writer_section(w, LT_CHUNK_HEADER, t.buf, t.len);
	free(t.buf);
	return r;
}

void lt_writer_chunk_start(struct lt_writer *w, uint64_t ts)
{
	uint8_t *payload = w->buf + LT_CHUNK_HDR_LEN;

	/* chunk start: base timestamp, fresh codec state */
	lt_codec_reset(&w->codec, w->pid, ts);
	w->len = (size_t)(lt_put_varint(payload, ts) - payload);
	w->info = (struct lt_chunk_info){ 0, ts, ts };
}

int lt_writer_event(struct lt_writer *w, const struct lt_event *ev)
{
	return lt_writer_event_inline(w, ev);
}

int lt_writer_flush(struct lt_writer *w)
{
	if (!w->len)
		return w->err;
	size_t len = w->len;
	w->len = 0;
	return write_chunk_inplace(w, w->buf, LT_CHUNK_EVENTS, len, &w->info);
}

int lt_writer_stats(struct lt_writer *w, const struct lt_stats *s)
{
	struct tlv t = { 0 };
	encode_stats(&t, s);
	int r = t.err ? -ENOMEM : lt_writer_section(w, LT_CHUNK_STATS, t.buf, t.len);
	free(t.buf);
	return r;
}

int lt_writer_release_fd(struct lt_writer *w)
{
	int fd = w->fd;
	free(w->buf);
	free(w);
	return fd;
}

/* After a failure: the file cut back to its last complete chunk (a full
 * disk leaves part of one, and cutting it frees the room), then a FAILED
 * chunk saying what failed, so that a reader does not take the file for a
 * complete recording. */
static void write_failed(struct lt_writer *w)
{
	char msg[160];
	int n = snprintf(msg, sizeof(msg), "the recorder stopped writing this file: %s", strerror(-w->err));
	int err = w->err;

	if (ftruncate(w->fd, (off_t)w->bytes) || lseek(w->fd, (off_t)w->bytes, SEEK_SET) < 0)
		return; /* not a regular file: leave it as it is */
	w->len = 0; /* events not written yet stay unwritten */
	w->err = 0;
	write_one(w, LT_CHUNK_FAILED, (const uint8_t *)msg, (size_t)n);
	w->err = err;
}

int lt_writer_close(struct lt_writer *w)
{
	if (!w)
		return 0;
	int r;
	if (w->fd >= 0 && w->err) {
		r = w->err;
		write_failed(w);
	} else {
		r = w->fd >= 0 ? lt_writer_section(w, LT_CHUNK_END, NULL, 0) : lt_writer_flush(w);
	}
	if (w->fd >= 0 && close(w->fd) && !r)
		r = -errno;
	free(w->buf);
	free(w);
	return r;
}

uint64_t lt_writer_bytes(const struct lt_writer *w)
{
	return w->bytes + (w->len ? LT_CHUNK_HDR_LEN + w->len : 0);
}

/* ------------------------------------------------------------- reader */

static void stop(struct lt_reader *r, uint64_t off, const char *why)
{
	snprintf(r->stop_reason, sizeof(r->stop_reason), "%s at offset %llu", why,
		 (unsigned long long)off);
	r->stop_offset = off;
	r->done = 1;
}

static const char *chunk_type_name(uint32_t t)
{
	switch (t) {
	case LT_CHUNK_HEADER: return "HEADER";
	case LT_CHUNK_EVENTS: return "EVENTS";
	case LT_CHUNK_SNAPSHOT: return "SNAPSHOT";
	case LT_CHUNK_STATS: return "STATS";
	case LT_CHUNK_END: return "END";
	case LT_CHUNK_SYMBOLS: return "SYMBOLS";
	case LT_CHUNK_STACKS: return "STACKS";
	case LT_CHUNK_CONT: return "CONT";
	case LT_CHUNK_FAILED: return "FAILED";
	}
	return NULL;
}

/* Notes the damaged range [from, to) as skipped. */
static void add_skip(struct lt_reader *r, uint64_t from, uint64_t to, uint32_t type, const char *why)
{
	if (r->nskips < LT_READER_SKIPS) {
		struct lt_skip *k = &r->skips[r->nskips];
		memset(k, 0, sizeof(*k));
		k->from = from;
		k->to = to;
		k->chunk_type = type;
		k->have_before = (uint32_t)r->have_last;
		k->ts_before = r->last_ts;
		snprintf(k->why, sizeof(k->why), "%s", why);
		r->after_pending = 1;
	}
	r->nskips++;
	r->skipped_bytes += to - from;
}

/* Does a chunk that checks out (magic, length within the file, CRC) start
 * at off?  Its payload is read into *buf, and taken from *budget. */
static int chunk_at(FILE *f, uint64_t off, uint64_t fsize, uint8_t **buf, size_t *cap, uint64_t *budget)
{
	uint8_t hdr[LT_CHUNK_HDR_LEN];

	if (off + LT_CHUNK_HDR_LEN > fsize || fseeko(f, (off_t)off, SEEK_SET) ||
	    fread(hdr, 1, sizeof(hdr), f) != sizeof(hdr) || lt_get_le32(hdr) != CHUNK_MAGIC)
		return 0;
	uint32_t len = lt_get_le32(hdr + 8);
	if (len > LT_CHUNK_MAX || off + LT_CHUNK_HDR_LEN + len > fsize)
		return 0;
	*budget = *budget > len ? *budget - len : 0;
	if (len > *cap) {
		uint8_t *b = realloc(*buf, len);
		if (!b)
			return 0;
		*buf = b;
		*cap = len;
	}
	if (len && fread(*buf, 1, len, f) != len)
		return 0;
	uint32_t crc = (uint32_t)crc32(0L, hdr + 4, 8);
	return lt_crc32_update(crc, *buf, len) == lt_get_le32(hdr + 12);
}

/* A scan for the magic, each candidate's length and CRC checked (a random
 * match passes the CRC once in 2^32); scratch for the payloads.  The bytes
 * the candidates' CRCs read are taken from *budget: a file of made-up
 * chunk headers, each claiming megabytes, would otherwise take time
 * quadratic in its size. */
static uint64_t find_chunk(FILE *f, uint64_t from, uint8_t **scratch, size_t *cap, uint64_t *budget)
{
	struct stat sb;
	uint8_t buf[1 << 16];

	if (fstat(fileno(f), &sb) || sb.st_size < 0)
		return UINT64_MAX;
	uint64_t fsize = (uint64_t)sb.st_size;
	for (uint64_t pos = from; pos + LT_CHUNK_HDR_LEN <= fsize;) {
		if (fseeko(f, (off_t)pos, SEEK_SET))
			return UINT64_MAX;
		size_t n = fread(buf, 1, sizeof(buf), f);
		if (n < 4)
			return UINT64_MAX;
		for (size_t i = 0; i + 4 <= n; i++) {
			if (buf[i] != 'L' || lt_get_le32(buf + i) != CHUNK_MAGIC)
				continue;
			if (!*budget)
				return UINT64_MAX;
			if (chunk_at(f, pos + i, fsize, scratch, cap, budget))
				return pos + i;
		}
		pos += n - 3; /* a magic across the boundary is seen next time */
	}
	return UINT64_MAX;
}

uint64_t lt_trace_find_chunk(FILE *f, uint64_t from, uint64_t *budget)
{
	uint8_t *scratch = NULL;
	size_t cap = 0;
	uint64_t at = find_chunk(f, from, &scratch, &cap, budget);
	free(scratch);
	return at;
}

uint64_t lt_trace_scan_budget(FILE *f)
{
	struct stat sb;
	uint64_t size = fstat(fileno(f), &sb) || sb.st_size < 0 ? 0 : (uint64_t)sb.st_size;
	return 16 * size + (64u << 20);
}

static uint64_t find_next_chunk(struct lt_reader *r, uint64_t from)
{
	if (!r->scan_budget_set) {
		r->scan_budget = lt_trace_scan_budget(r->f);
		r->scan_budget_set = 1;
	}
	return find_chunk(r->f, from, &r->chunk, &r->chunk_cap, &r->scan_budget);
}

/* The chunk at r->offset is damaged (why).  Goes on at the next chunk that
 * checks out (1), noting what was skipped, or stops there (0): damage at
 * the end of the file is a file cut short. */
static int resync(struct lt_reader *r, const uint8_t *hdr, size_t nhdr, const char *why)
{
	uint64_t at = r->offset;
	uint64_t next = find_next_chunk(r, at + 1);
	uint32_t type = 0;

	if (next == UINT64_MAX || fseeko(r->f, (off_t)next, SEEK_SET)) {
		char w[128];
		snprintf(w, sizeof(w), "%s%s", why,
			 r->scan_budget_set && !r->scan_budget
				 ? "; too much damage to look further for a good chunk"
				 : "");
		stop(r, at, w);
		return 0;
	}
	if (nhdr >= 8 && lt_get_le32(hdr) == CHUNK_MAGIC && chunk_type_name(lt_get_le32(hdr + 4)))
		type = lt_get_le32(hdr + 4);
	add_skip(r, at, next, type, why);
	r->offset = next;
	return 1;
}

/* Loads the next chunk into r->chunk, past damage.  1 loaded, 0 end/stop. */
static int load_chunk(struct lt_reader *r)
{
	uint8_t hdr[LT_CHUNK_HDR_LEN];
	size_t n;

	for (;;) {
		if (r->done)
			return 0;
		n = fread(hdr, 1, sizeof(hdr), r->f);
		if (n == 0 && feof(r->f)) {
			if (!r->clean_end)
				stop(r, r->offset, "trace ends without an end marker (recording was interrupted)");
			r->done = 1;
			return 0;
		}
		if (n < sizeof(hdr)) {
			if (resync(r, hdr, n, "truncated chunk header"))
				continue;
			return 0;
		}
		if (lt_get_le32(hdr) != CHUNK_MAGIC) {
			if (resync(r, hdr, n, "damaged chunk (bad magic)"))
				continue;
			return 0;
		}
		uint32_t type = lt_get_le32(hdr + 4), len = lt_get_le32(hdr + 8);
		if (len > LT_CHUNK_MAX) {
			if (resync(r, hdr, n, "damaged chunk (impossible length)"))
				continue;
			return 0;
		}
		if (len > r->chunk_cap) {
			uint8_t *b = realloc(r->chunk, len);
			if (!b) {
				stop(r, r->offset, "out of memory reading chunk");
				return 0;
			}
			r->chunk = b;
			r->chunk_cap = len;
		}
		if (fread(r->chunk, 1, len, r->f) != len) {
			if (resync(r, hdr, n, "truncated chunk"))
				continue;
			return 0;
		}
		uint32_t crc = (uint32_t)crc32(0L, hdr + 4, 8);
		crc = lt_crc32_update(crc, r->chunk, len);
		if (crc != lt_get_le32(hdr + 12)) {
			if (resync(r, hdr, n, "damaged chunk (checksum mismatch)"))
				continue;
			return 0;
		}
		r->cur_offset = r->offset;
		r->offset += LT_CHUNK_HDR_LEN + len;
		r->cur_type = type;
		r->chunk_len = len;
		r->pos = 0;
		return 1;
	}
}

/* Appends the loaded chunk to r->join.  0, or -1: too large (r->join
 * emptied) or out of memory (stopped). */
static int join_append(struct lt_reader *r, uint64_t first)
{
	if (r->join_len + r->chunk_len > LT_SECTION_MAX) {
		r->join_len = 0;
		return -1;
	}
	if (!r->chunk_len) /* an empty part adds nothing (and join may be NULL) */
		return 0;
	uint8_t *b = lt_grow_to(r->join, &r->join_cap, r->join_len + r->chunk_len, 1, LT_CHUNK_MAX);
	if (!b) {
		stop(r, first, "out of memory reading a large section");
		return -1;
	}
	r->join = b;
	memcpy(r->join + r->join_len, r->chunk, r->chunk_len);
	r->join_len += r->chunk_len;
	return 0;
}

/* The text of a FAILED chunk, printable ASCII only, into the stop reason. */
static void stop_failed(struct lt_reader *r)
{
	char msg[160];
	size_t n = 0;

	for (size_t i = 0; i < r->chunk_len && n + 1 < sizeof(msg); i++) {
		unsigned char c = r->chunk[i];
		msg[n++] = c >= 0x20 && c < 0x7f ? (char)c : '?';
	}
	msg[n] = 0;
	snprintf(r->stop_reason, sizeof(r->stop_reason), "the recording failed (%s) at offset %llu", msg,
		 (unsigned long long)r->cur_offset);
	r->stop_offset = r->cur_offset;
	r->done = 1;
}

/* Loads the next section: one chunk, or CONT parts joined with the chunk
 * after them (cur_offset: the first part's).  1 loaded, 0 end/stop.
 *
 * A section that damage may have taken a part of is dropped whole, its
 * good parts with it, and said (a skip): parts, then damage; CONT parts
 * right after damage (their first parts may be in it); a section's last
 * chunk after damage that could hold a whole CONT part; CONT parts
 * followed by EVENTS or END (their last chunk is missing); a section
 * larger than any writer makes. */
static int load_section(struct lt_reader *r)
{
	uint64_t first = r->offset;
	int dropping = 0; /* the parts since first are of a damaged section */
	const char *drop_why = NULL;

	r->join_len = 0;
	for (;;) {
		uint32_t skips = r->nskips;
		uint64_t skipped = r->skipped_bytes, at = r->offset;
		if (!load_chunk(r))
			break;
		int damage = r->nskips != skips;
		int section_type = r->cur_type != LT_CHUNK_EVENTS && r->cur_type != LT_CHUNK_END &&
				   r->cur_type != LT_CHUNK_FAILED;
		if (damage && (r->join_len || dropping)) {
			/* the parts before the damage are of a section that
			 * lost a part: they go, and so do the parts after it */
			if (at > first) {
				add_skip(r, first, at, 0, "a large section's parts before damage to it");
				/* listed in file order: before the damage's own */
				uint32_t last = r->nskips - 1;
				if (last < LT_READER_SKIPS && skips < last) {
					struct lt_skip k = r->skips[last];
					memmove(&r->skips[skips + 1], &r->skips[skips],
						(last - skips) * sizeof(k));
					r->skips[skips] = k;
				}
			}
			r->join_len = 0;
			dropping = 1;
			first = r->cur_offset;
			drop_why = "a large section's parts after damage to it";
		} else if (damage && (r->cur_type == LT_CHUNK_CONT ||
				      (section_type && r->skipped_bytes - skipped >=
							       (uint64_t)LT_CHUNK_HDR_LEN + LT_CHUNK_MAX))) {
			dropping = 1;
			first = r->cur_offset;
			drop_why = r->cur_type == LT_CHUNK_CONT
					   ? "a large section's parts after damage (its first parts may be in it)"
					   : "a section's last chunk after damage that may hold its first parts";
		} else if (damage) {
			first = r->cur_offset;
		}
		if (r->cur_type == LT_CHUNK_FAILED) {
			if ((dropping || r->join_len) && r->cur_offset > first)
				add_skip(r, first, r->cur_offset, 0, "a large section's parts before the failure");
			stop_failed(r);
			return 0;
		}
		if (!section_type && (dropping || r->join_len)) {
			/* EVENTS or END after parts: the parts' last chunk is gone */
			if (r->cur_offset > first)
				add_skip(r, first, r->cur_offset, 0,
					 dropping ? drop_why : "damaged section (parts without their last chunk)");
			r->join_len = 0;
			dropping = 0;
		}
		if (r->cur_type != LT_CHUNK_CONT && !r->join_len && !dropping)
			return 1;
		if (!dropping && join_append(r, first)) {
			if (r->done)
				return 0;
			dropping = 1;
			drop_why = "damaged section (larger than any writer makes)";
		}
		if (r->cur_type == LT_CHUNK_CONT)
			continue;
		if (dropping) {
			char why[96];
			snprintf(why, sizeof(why), "%s (a %s section)", drop_why,
				 chunk_type_name(r->cur_type) ? chunk_type_name(r->cur_type) : "unknown");
			add_skip(r, first, r->offset, r->cur_type, why);
			dropping = 0;
			r->join_len = 0;
			first = r->offset;
			continue;
		}
		uint8_t *b = r->chunk;
		size_t cap = r->chunk_cap;
		r->chunk = r->join;
		r->chunk_cap = r->join_cap;
		r->chunk_len = r->join_len;
		r->join = b;
		r->join_cap = cap;
		r->join_len = 0;
		r->cur_offset = first;
		return 1;
	}
	if ((r->join_len || dropping) && !r->stop_reason[0])
		stop(r, first, "trace ends inside a section");
	return 0;
}

int lt_reader_open(struct lt_reader *r, const char *path, char *err, size_t errlen)
{
	return lt_reader_open_flags(r, path, 0, err, errlen);
}

int lt_reader_open_flags(struct lt_reader *r, const char *path, unsigned flags, char *err, size_t errlen)
{
	uint8_t pre[LT_PREAMBLE_LEN];

	memset(r, 0, sizeof(*r));
	r->f = fopen(path, "rb");
	if (!r->f) {
		snprintf(err, errlen, "cannot open %s: %s", path, strerror(errno));
		return -1;
	}
	struct stat sb;
	if (!fstat(fileno(r->f), &sb) && S_ISDIR(sb.st_mode)) {
		snprintf(err, errlen, "%s is a directory, not a trace file", path);
		goto fail;
	}
	if (fread(pre, 1, sizeof(pre), r->f) != sizeof(pre) || memcmp(pre, LT_MAGIC, 8)) {
		snprintf(err, errlen, "%s is not a locktrace trace (no locktrace magic at its start)", path);
		goto fail;
	}
	r->hdr.version_major = pre[8] | pre[9] << 8;
	r->hdr.version_minor = pre[10] | pre[11] << 8;
	if (r->hdr.version_major != LT_VERSION_MAJOR) {
		snprintf(err, errlen, "%s has trace format version %u.%u; this locktrace reads version %u.x",
			 path, r->hdr.version_major, r->hdr.version_minor, LT_VERSION_MAJOR);
		goto fail;
	}
	r->offset = LT_PREAMBLE_LEN;
	r->dec = calloc(1, sizeof(struct lt_codec));
	if (!r->dec) {
		snprintf(err, errlen, "out of memory");
		goto fail;
	}
	if (!load_section(r) || r->cur_type != LT_CHUNK_HEADER) {
		/* the events' thread ids are stored relative to the header's
		 * pid, and it says what was traced: no events without it */
		if (r->nskips && !r->stop_reason[0] && (flags & LT_READ_SECTIONS_IF_NO_HEADER)) {
			/* the sections are whole without it: from the one loaded */
			r->headerless = 1;
			r->offset = r->cur_offset;
			if (fseeko(r->f, (off_t)r->offset, SEEK_SET)) {
				snprintf(err, errlen, "%s: cannot seek: %s", path, strerror(errno));
				goto fail;
			}
			r->cur_type = 0;
			r->chunk_len = r->pos = 0;
			return 0;
		}
		if (r->nskips && !r->stop_reason[0])
			snprintf(err, errlen,
				 "%s: its header chunk is damaged (%s at offset %llu): without it the events "
				 "cannot be decoded (their thread ids are stored relative to the header's pid)",
				 path, r->skips[0].why, (unsigned long long)r->skips[0].from);
		else
			snprintf(err, errlen, "%s: no readable header chunk (%s)", path,
				 r->stop_reason[0] ? r->stop_reason : "first chunk is not a header");
		goto fail;
	}
	if (decode_header(r->chunk, r->chunk_len, &r->hdr)) {
		snprintf(err, errlen, "%s: malformed header chunk", path);
		goto fail;
	}
	r->pos = r->chunk_len; /* consumed */
	return 0;
fail:
	lt_reader_close(r);
	return -1;
}

int lt_reader_next(struct lt_reader *r, struct lt_item *it)
{
	struct lt_codec *dec = r->dec;

	for (;;) {
		if (r->cur_type == LT_CHUNK_EVENTS && r->pos < r->chunk_len) {
			const uint8_t *p = r->chunk + r->pos, *end = r->chunk + r->chunk_len;
			if (r->pos == 0) {
				struct lt_cur c = { p, end, 0 };
				uint64_t base = lt_get_varint(&c);
				if (c.err) {
					add_skip(r, r->cur_offset, r->offset, LT_CHUNK_EVENTS,
						 "malformed events chunk");
					r->pos = r->chunk_len;
					continue;
				}
				lt_codec_reset(dec, r->hdr.pid, base);
				p = c.p;
			}
			if (lt_codec_decode(dec, &p, end, &it->ev)) {
				/* each chunk decodes on its own: only its rest is lost */
				uint64_t from = r->cur_offset + LT_CHUNK_HDR_LEN + (uint64_t)(p - r->chunk);
				add_skip(r, from, r->offset, LT_CHUNK_EVENTS,
					 "malformed event in an events chunk (the chunk's rest)");
				r->pos = r->chunk_len;
				continue;
			}
			r->pos = (size_t)(p - r->chunk);
			if (it->ev.h.kind < LT_EV_MAX)
				r->events_read[it->ev.h.kind]++;
			if (r->after_pending) {
				for (uint32_t k = 0; k < r->nskips && k < LT_READER_SKIPS; k++)
					if (!r->skips[k].have_after) {
						r->skips[k].have_after = 1;
						r->skips[k].ts_after = it->ev.h.ts;
					}
				r->after_pending = 0;
			}
			r->last_ts = it->ev.h.ts;
			r->have_last = 1;
			it->type = LT_ITEM_EVENT;
			it->offset = r->cur_offset;
			return 1;
		}
		if (!load_section(r))
			return 0;
		switch (r->cur_type) {
		case LT_CHUNK_EVENTS:
			if (r->headerless) { /* not decodable without the header's pid */
				r->undecoded_chunks++;
				r->undecoded_bytes += LT_CHUNK_HDR_LEN + r->chunk_len;
				r->pos = r->chunk_len;
			}
			continue;
		case LT_CHUNK_END:
			r->clean_end = 1;
			continue;
		case LT_CHUNK_STATS:
			lt_stats_free(&r->stats);
			if (decode_stats(r->chunk, r->chunk_len, &r->stats) == 0)
				r->have_stats = 1;
			break;
		default:
			break;
		}
		it->type = LT_ITEM_SECTION;
		it->sec_type = r->cur_type;
		it->data = r->chunk;
		it->len = r->chunk_len;
		it->offset = r->cur_offset;
		r->pos = r->chunk_len;
		return 1;
	}
}

void lt_reader_close(struct lt_reader *r)
{
	if (r->f)
		fclose(r->f);
	r->f = NULL;
	free(r->chunk);
	r->chunk = NULL;
	free(r->join);
	r->join = NULL;
	free(r->dec);
	r->dec = NULL;
	lt_header_free(&r->hdr);
	lt_stats_free(&r->stats);
}

static void fmt_ts(uint64_t ns, char *buf, size_t len)
{
	snprintf(buf, len, "%llu.%06llu", (unsigned long long)(ns / 1000000000u),
		 (unsigned long long)(ns % 1000000000u / 1000u));
}

/* The events of the damaged places, from the STATS trailer's counts (the
 * events the recorder received, each of which it wrote) against those
 * read: 1 with a line, 0 when it cannot be told. */
static int missing_by_kind(const struct lt_reader *r, char *buf, size_t len)
{
	if (!r->have_stats || (r->hdr.flags & LT_HDR_FLIGHT)) {
		snprintf(buf, len, "which events and how many were in the damaged bytes is unknown (%s)",
			 r->have_stats ? "a flight dump's trailer counts more than its file holds"
				       : "the trace has no STATS trailer to count them against");
		return 1;
	}
	size_t n = (size_t)snprintf(buf, len, "the STATS trailer counts events that are in no readable chunk "
					      "(lost to the damage):");
	uint64_t total = 0;
	for (unsigned k = 0; k < LT_EV_MAX; k++) {
		if (k == LT_EV_LOST || r->stats.events[k] <= r->events_read[k])
			continue;
		uint64_t miss = r->stats.events[k] - r->events_read[k];
		total += miss;
		if (n < len)
			n += (size_t)snprintf(buf + n, len - n, " %s %llu", lt_kind_name(k), (unsigned long long)miss);
	}
	if (!total)
		snprintf(buf, len, "the STATS trailer's counts of events are all read: the damaged bytes held "
				   "no events the trailer counts");
	return 1;
}

int lt_reader_damage_line(const struct lt_reader *r, unsigned k, char *buf, size_t len)
{
	char a[32], b[32], type[48] = "";

	if (!r->nskips)
		return 0;
	if (k == 0) {
		snprintf(buf, len, "damaged: %llu bytes skipped in %u place%s; reading went on at the next "
				   "chunk that checks out",
			 (unsigned long long)r->skipped_bytes, r->nskips, r->nskips == 1 ? "" : "s");
		return 1;
	}
	k--;
	uint32_t kept = r->nskips < LT_READER_SKIPS ? r->nskips : LT_READER_SKIPS;
	if (k < kept) {
		const struct lt_skip *s = &r->skips[k];
		if (s->chunk_type && chunk_type_name(s->chunk_type))
			snprintf(type, sizeof(type), ", chunk type %s by its header", chunk_type_name(s->chunk_type));
		fmt_ts(s->ts_before, a, sizeof(a));
		fmt_ts(s->ts_after, b, sizeof(b));
		char when[96];
		if (s->have_before && s->have_after)
			snprintf(when, sizeof(when), "between the events at %s and %s", a, b);
		else if (s->have_after)
			snprintf(when, sizeof(when), "before the first event read (at %s)", b);
		else if (s->have_before)
			snprintf(when, sizeof(when), "after the last event read (at %s)", a);
		else
			snprintf(when, sizeof(when), "with no event read around it");
		snprintf(buf, len, "bytes %llu..%llu (%llu bytes) skipped: %s%s; %s", (unsigned long long)s->from,
			 (unsigned long long)s->to, (unsigned long long)(s->to - s->from), s->why, type, when);
		return 1;
	}
	k -= kept;
	if (r->nskips > kept) {
		if (k == 0) {
			snprintf(buf, len, "and %u more damaged places (not listed)", r->nskips - kept);
			return 1;
		}
		k--;
	}
	if (k == 0 && r->headerless) {
		snprintf(buf, len, "the header chunk is damaged: %llu events chunks (%llu bytes) are not decoded "
				   "(their thread ids are stored relative to its pid); the other sections are read",
			 (unsigned long long)r->undecoded_chunks, (unsigned long long)r->undecoded_bytes);
		return 1;
	}
	if (k == 0)
		return missing_by_kind(r, buf, len);
	return 0;
}

void lt_trace_damage_append(const struct lt_reader *r, char *buf, size_t len)
{
	char line[512];
	size_t n = strnlen(buf, len);

	for (unsigned k = 0; n + 1 < len && lt_reader_damage_line(r, k, line, sizeof(line)); k++) {
		n += (size_t)snprintf(buf + n, len - n, "%s%s", n ? "\n  " : "", line);
		if (n >= len)
			n = len - 1;
	}
}
