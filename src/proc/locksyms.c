// SPDX-License-Identifier: MIT
/* Lock identity: naming futex addresses while the process is alive, and
 * reading the names back from a trace (src/proc/locksyms.h). */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <zlib.h>
#include "locksyms.h"
#include "symbols.h"
#include "target.h"
#include "locktrace/tracefile.h"
#include "u64map.h"
#include "varint.h"
#include "grow.h"

static char pending_marker;
#define PENDING ((void *)&pending_marker)
#define REOPEN_NS 1000000000ull /* re-read the maps at most once a second */

static uint64_t mono_ns(void)
{
	struct timespec ts;
	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * 1000000000ull + (uint64_t)ts.tv_nsec;
}

int lt_locksyms_init(struct lt_locksyms *ls, pid_t pid)
{
	memset(ls, 0, sizeof(*ls));
	ls->pid = pid;
	ls->trace_pid = pid;
	ls->names = calloc(1, sizeof(*ls->names));
	ls->keys = calloc(1, sizeof(*ls->keys));
	return ls->names && ls->keys ? 0 : -ENOMEM;
}

void lt_symmap_free(struct lt_u64map *map)
{
	for (size_t i = 0; i < map->cap; i++)
		if (map->keys[i] && map->vals[i] != PENDING)
			free(map->vals[i]);
	lt_u64map_free(map);
}

void lt_locksyms_free(struct lt_locksyms *ls)
{
	if (ls->names) {
		lt_symmap_free(ls->names);
		free(ls->names);
	}
	if (ls->keys) {
		for (size_t i = 0; i < ls->keys->cap; i++)
			if (ls->keys->keys[i])
				free(ls->keys->vals[i]);
		lt_u64map_free(ls->keys);
		free(ls->keys);
	}
	free(ls->shared);
	free(ls->pending);
	if (ls->sym)
		lt_sym_close(ls->sym);
	memset(ls, 0, sizeof(*ls));
}

/* (Re)reads the process's mappings: the symbolizer's and the shared ones
 * (whose device the symbolizer does not keep).  0, or -1 if it is gone. */
static int open_sym(struct lt_locksyms *ls)
{
	struct lt_sym *s = lt_sym_open(ls->pid, LT_SYM_NO_LINES, NULL);

	ls->sym_opened_ns = mono_ns();
	if (!s)
		return -1;
	if (ls->sym)
		lt_sym_close(ls->sym);
	ls->sym = s;
	ls->nshared = 0;
	lt_target_shared_maps(ls->pid, &ls->shared, &ls->nshared, &ls->cap_shared);
	return 0;
}

void lt_locksyms_prepare(struct lt_locksyms *ls)
{
	if (!ls->sym)
		open_sym(ls);
}

/* Notes the shared key of a just named address, if it is in a shared
 * mapping; the key of an address stays what it was when it was named. */
static const struct lt_shared_key *note_key(struct lt_locksyms *ls, uint64_t addr)
{
	const struct lt_shared_map *m = lt_shared_map_find(ls->shared, ls->nshared, ls->pid, addr);
	struct lt_shared_key *k = lt_u64map_get(ls->keys, addr);

	if (!m)
		return k;
	if (!k && (!(k = malloc(sizeof(*k))) || lt_u64map_put(ls->keys, addr, k))) {
		free(k);
		return NULL;
	}
	*k = (struct lt_shared_key){ m->dev, m->ino, m->offset + (addr - m->start) };
	return k;
}

void lt_locksyms_see(struct lt_locksyms *ls, uint64_t addr)
{
	if (!addr || ls->full || !ls->names || lt_u64map_get(ls->names, addr))
		return;
	if (ls->names->n >= LT_LOCKSYMS_MAX) {
		ls->full = 1;
		return;
	}
	uint64_t *p = lt_grow(ls->pending, &ls->cap_pending, ls->npending, sizeof(*p), 256);
	if (!p)
		return;
	ls->pending = p;
	if (lt_u64map_put(ls->names, addr, PENDING))
		return;
	ls->pending[ls->npending++] = addr;
}

static void tlv_put(uint8_t **p, uint64_t key, const void *v, size_t n)
{
	*p = lt_put_varint(*p, key);
	*p = lt_put_varint(*p, n);
	memcpy(*p, v, n);
	*p += n;
}

static void tlv_varint(uint8_t **p, uint64_t key, uint64_t v)
{
	uint8_t a[10], *ae = lt_put_varint(a, v);
	tlv_put(p, key, a, (size_t)(ae - a));
}

/* Appends one entry { 1: addr, [3: tgid], [4 dev, 5 ino, 6 offset], 2:
 * name } to buf (grown as needed); tgid 0: the trace's own process. */
static int add_entry(uint8_t **buf, size_t *len, size_t *cap, uint64_t addr, int32_t tgid,
		     const struct lt_shared_key *key, const char *name)
{
	size_t nl = strlen(name), need = *len + nl + 128;
	uint8_t head[96], *h = head;

	uint8_t *b = lt_grow_to(*buf, cap, need, 1, 4096);
	if (!b)
		return -ENOMEM;
	*buf = b;
	/* the entry's own fields, then the name's key and length */
	tlv_varint(&h, 1, addr);
	if (tgid)
		tlv_varint(&h, 3, (uint64_t)(uint32_t)tgid);
	if (key) {
		tlv_varint(&h, 4, key->dev);
		tlv_varint(&h, 5, key->ino);
		tlv_varint(&h, 6, key->offset);
	}
	h = lt_put_varint(h, 2);
	h = lt_put_varint(h, nl);
	size_t entry = (size_t)(h - head) + nl;
	uint8_t *p = lt_put_varint(*buf + *len, 1);
	p = lt_put_varint(p, entry);
	memcpy(p, head, (size_t)(h - head));
	p += h - head;
	memcpy(p, name, nl);
	*len = (size_t)(p + nl - *buf);
	return 0;
}

/* The tgid an entry of ls carries: none for the trace's own process. */
static int32_t entry_tgid(const struct lt_locksyms *ls)
{
	return ls->pid == ls->trace_pid ? 0 : ls->pid;
}

int lt_locksyms_resolve(struct lt_locksyms *ls, struct lt_writer *w)
{
	uint8_t *buf = NULL;
	size_t len = 0, cap = 0;
	int r = 0;

	if (!ls->npending)
		return 0;
	if (!ls->sym && open_sym(ls))
		return 0; /* gone: the addresses stay unnamed */
	size_t keep = 0;
	for (size_t i = 0; i < ls->npending; i++) {
		uint64_t addr = ls->pending[i];
		char *name = lt_sym_describe(ls->sym, addr);
		if (name && !strcmp(name, "unmapped") && mono_ns() - ls->sym_opened_ns >= REOPEN_NS) {
			/* mapped since the maps were read (dlopen, a new thread's stack) */
			if (open_sym(ls) == 0) {
				free(name);
				name = lt_sym_describe(ls->sym, addr);
			}
		}
		if (!name || !strcmp(name, "unmapped")) {
			free(name);
			ls->pending[keep++] = addr; /* try again next time */
			continue;
		}
		lt_u64map_put(ls->names, addr, name);
		ls->nnamed++;
		const struct lt_shared_key *key = note_key(ls, addr);
		if (w && (r = add_entry(&buf, &len, &cap, addr, entry_tgid(ls), key, name)))
			break;
	}
	if (!r)
		ls->npending = keep;
	if (!r && w && len)
		r = lt_writer_section(w, LT_CHUNK_SYMBOLS, buf, len);
	free(buf);
	return r;
}

int lt_locksyms_write_all(const struct lt_locksyms *ls, struct lt_writer *w)
{
	uint8_t *buf = NULL;
	size_t len = 0, cap = 0;
	int r = 0;

	for (size_t i = 0; ls->names && i < ls->names->cap && !r; i++)
		if (ls->names->keys[i] && ls->names->vals[i] != PENDING)
			r = add_entry(&buf, &len, &cap, ls->names->keys[i], entry_tgid(ls),
				      lt_u64map_get(ls->keys, ls->names->keys[i]), ls->names->vals[i]);
	if (!r && len)
		r = lt_writer_section(w, LT_CHUNK_SYMBOLS, buf, len);
	free(buf);
	return r;
}

/* Calls fn for each entry: has_tgid says whether key 3 was there. */
typedef int (*entry_fn)(void *ctx, int has_tgid, int32_t tgid, uint64_t addr, const char *name,
			const struct lt_shared_key *key);

static int parse_entries(const uint8_t *data, size_t len, entry_fn fn, void *ctx)
{
	struct lt_cur c = lt_cur_over(data, len);

	while (c.p < c.end) {
		uint64_t key = lt_get_varint(&c), n = lt_get_varint(&c);
		const uint8_t *v = c.err ? NULL : lt_get_bytes(&c, n);
		if (!v)
			return -EINVAL;
		if (key != 1)
			continue;
		struct lt_cur e = { v, v + n, 0 };
		uint64_t addr = 0, num[7] = { 0 };
		unsigned have = 0; /* bit k: key k seen */
		char *name = NULL;
		while (e.p < e.end && !e.err) {
			uint64_t k = lt_get_varint(&e), m = lt_get_varint(&e);
			const uint8_t *f = e.err ? NULL : lt_get_bytes(&e, m);
			if (!f)
				break;
			if (k == 2 && !name) {
				if (!(name = malloc(m + 1)))
					return -ENOMEM;
				memcpy(name, f, m);
				name[m] = 0;
			} else if (k == 1 || (k >= 3 && k <= 6)) {
				struct lt_cur a = { f, f + m, 0 };
				num[k] = lt_get_varint(&a);
				have |= 1u << k;
			}
		}
		addr = num[1];
		if (e.err || !addr || !name) {
			free(name);
			if (e.err)
				return -EINVAL;
			continue;
		}
		struct lt_shared_key sk = { num[4], num[5], num[6] };
		int shared = (have & 0x70) == 0x70;
		int r = fn(ctx, !!(have & 8), (int32_t)num[3], addr, name, shared ? &sk : NULL);
		free(name);
		if (r)
			return r;
	}
	return 0;
}

/* lt_locksyms_parse: the header process's names into a map. */
static int put_own(void *ctx, int has_tgid, int32_t tgid, uint64_t addr, const char *name,
		   const struct lt_shared_key *key)
{
	struct lt_u64map *map = ctx;
	(void)tgid;
	(void)key;
	if (has_tgid)
		return 0;
	char *copy = strdup(name);
	if (!copy)
		return -ENOMEM;
	char *old = lt_u64map_get(map, addr);
	if (lt_u64map_put(map, addr, copy)) {
		free(copy);
		return -ENOMEM;
	}
	if (old && old != PENDING)
		free(old);
	return 0;
}

int lt_locksyms_parse(const uint8_t *data, size_t len, struct lt_u64map *map)
{
	return parse_entries(data, len, put_own, map);
}

struct procs_ctx {
	lt_locksym_fn fn;
	void *ctx;
	int32_t pid;
};

static int call_proc(void *ctx, int has_tgid, int32_t tgid, uint64_t addr, const char *name,
		     const struct lt_shared_key *key)
{
	struct procs_ctx *p = ctx;
	p->fn(p->ctx, has_tgid ? tgid : p->pid, addr, name, key);
	return 0;
}

int lt_locksyms_parse_procs(const uint8_t *data, size_t len, int32_t pid, lt_locksym_fn fn, void *ctx)
{
	struct procs_ctx p = { fn, ctx, pid };
	return parse_entries(data, len, call_proc, &p);
}

/* Names from the snapshots' lock models win over plain symbols: they say
 * what the word is ("OCaml runtime lock caml_master_lock (...+0x58)"). */
static void merge_model_names(struct lt_u64map *map, struct lt_u64map *models)
{
	for (size_t i = 0; i < models->cap; i++) {
		if (!models->keys[i])
			continue;
		char *old = lt_u64map_get(map, models->keys[i]);
		if (lt_u64map_put(map, models->keys[i], models->vals[i])) {
			free(models->vals[i]);
			continue;
		}
		if (old && old != PENDING)
			free(old);
	}
	lt_u64map_free(models);
}

static int scan_trace(const char *path, struct lt_u64map *map, struct lt_u64map *tnames,
		      struct procs_ctx *procs, lt_snapnames_fn names);

int lt_trace_symbols(const char *path, struct lt_u64map *map, lt_snapnames_fn names)
{
	return scan_trace(path, map, NULL, NULL, names);
}

int lt_trace_names(const char *path, struct lt_u64map *map, struct lt_u64map *tnames, lt_snapnames_fn names)
{
	return scan_trace(path, map, tnames, NULL, names);
}

int lt_trace_symbols_procs(const char *path, lt_locksym_fn fn, void *ctx)
{
	struct procs_ctx p = { fn, ctx, 0 };
	return scan_trace(path, NULL, NULL, &p, NULL);
}

/* The pid (key 2) of a HEADER payload, 0 if it has none. */
static int32_t header_pid(const uint8_t *data, size_t len)
{
	struct lt_cur c = lt_cur_over(data, len);

	while (c.p < c.end && !c.err) {
		uint64_t k = lt_get_varint(&c), n = lt_get_varint(&c);
		const uint8_t *v = c.err ? NULL : lt_get_bytes(&c, n);
		if (!v)
			break;
		if (k == 2) {
			struct lt_cur a = { v, v + n, 0 };
			return (int32_t)lt_get_varint(&a);
		}
	}
	return 0;
}

/* Reads the SYMBOLS sections (and, for the maps, the snapshots' names;
 * for procs, the header's pid) of a trace. */
static int scan_trace(const char *path, struct lt_u64map *map, struct lt_u64map *tnames,
		      struct procs_ctx *procs, lt_snapnames_fn names)
{
	uint8_t pre[LT_PREAMBLE_LEN], hdr[LT_CHUNK_HDR_LEN], *buf = NULL;
	FILE *f = fopen(path, "rb");
	struct lt_u64map models = { 0 };
	size_t have = 0; /* bytes of CONT parts in buf */
	int ret = -1;

	if (!f)
		return -1;
	if (fread(pre, 1, sizeof(pre), f) != sizeof(pre) || memcmp(pre, LT_MAGIC, 8))
		goto out;
	/* off: this chunk's offset; from: where a scan past damage starts (a
	 * chunk sought over had its length unchecked: if that was wrong, the
	 * next good chunk lies after its start) */
	uint64_t off = LT_PREAMBLE_LEN, from = off;
	int drop = 0;   /* the parts of a section that damage took a part of */
	int after = 0;  /* just past damage: CONT parts there may lack their first */
	uint64_t budget = lt_trace_scan_budget(f);
	for (;;) {
		size_t got = fread(hdr, 1, sizeof(hdr), f);
		if (got == 0 && feof(f))
			break;
		uint32_t type = lt_get_le32(hdr + 4), len = lt_get_le32(hdr + 8);
		if (got != sizeof(hdr) || lt_get_le32(hdr) != 0x4b43544cu || len > LT_CHUNK_MAX) {
		damaged: /* the reader says what; go on as it does */
			off = lt_trace_find_chunk(f, from, &budget);
			if (off == UINT64_MAX || fseeko(f, (off_t)off, SEEK_SET))
				break;
			from = off;
			drop = have > 0 || drop;
			after = 1;
			have = 0;
			continue;
		}
		if (after && type == LT_CHUNK_CONT)
			drop = 1;
		after = 0;
		int wanted = type == LT_CHUNK_SYMBOLS || type == LT_CHUNK_CONT ||
			     (procs ? type == LT_CHUNK_HEADER : names && type == LT_CHUNK_SNAPSHOT);
		if (drop && (type == LT_CHUNK_CONT || wanted)) {
			drop = type == LT_CHUNK_CONT;
			wanted = 0;
		} else {
			drop = 0;
		}
		if (!wanted) {
			have = 0;
			if (fseek(f, len, SEEK_CUR))
				break;
			from = off + 1;
			off += LT_CHUNK_HDR_LEN + len;
			continue;
		}
		/* a large section: CONT parts, then its last chunk (tracefile.h) */
		if (have + len > LT_SECTION_MAX)
			break;
		uint8_t *b = realloc(buf, have + len + 1);
		if (!b)
			break;
		buf = b;
		from = off + 1;
		if (fread(buf + have, 1, len, f) != len)
			goto damaged;
		uint32_t crc = (uint32_t)crc32(0L, hdr + 4, 8);
		crc = (uint32_t)crc32(crc, buf + have, len);
		if (crc != lt_get_le32(hdr + 12))
			goto damaged;
		off += LT_CHUNK_HDR_LEN + len;
		from = off;
		size_t all = have + len;
		have = type == LT_CHUNK_CONT ? all : 0;
		if (procs && type == LT_CHUNK_HEADER)
			procs->pid = header_pid(buf, all);
		else if (procs && type == LT_CHUNK_SYMBOLS)
			parse_entries(buf, all, call_proc, procs);
		else if (type == LT_CHUNK_SYMBOLS)
			lt_locksyms_parse(buf, all, map);
		else if (type == LT_CHUNK_SNAPSHOT)
			names((const char *)buf, all, &models, tnames);
	}
	ret = 0;
out:
	if (map)
		merge_model_names(map, &models);
	free(buf);
	fclose(f);
	return ret;
}
