// SPDX-License-Identifier: MIT
/* Lock identity: naming futex addresses while the process is alive, and
 * reading the names back from a trace (include/locktrace/locksyms.h). */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <zlib.h>
#include "locktrace/locksyms.h"
#include "locktrace/symbols.h"
#include "locktrace/tracefile.h"
#include "report_int.h"
#include "u64map.h"
#include "varint.h"

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
	ls->names = calloc(1, sizeof(*ls->names));
	return ls->names ? 0 : -ENOMEM;
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
	free(ls->pending);
	if (ls->sym)
		lt_sym_close(ls->sym);
	memset(ls, 0, sizeof(*ls));
}

void lt_locksyms_prepare(struct lt_locksyms *ls)
{
	if (!ls->sym) {
		ls->sym = lt_sym_open(ls->pid, LT_SYM_NO_LINES, NULL);
		ls->sym_opened_ns = mono_ns();
	}
}

void lt_locksyms_see(struct lt_locksyms *ls, uint64_t addr)
{
	if (!addr || ls->full || !ls->names || lt_u64map_get(ls->names, addr))
		return;
	if (ls->names->n >= LT_LOCKSYMS_MAX) {
		ls->full = 1;
		return;
	}
	if (ls->npending == ls->cap_pending) {
		size_t cap = ls->cap_pending ? ls->cap_pending * 2 : 256;
		uint64_t *p = realloc(ls->pending, cap * sizeof(*p));
		if (!p)
			return;
		ls->pending = p;
		ls->cap_pending = cap;
	}
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

/* Appends one entry { 1: addr, 2: name } to buf (grown as needed). */
static int add_entry(uint8_t **buf, size_t *len, size_t *cap, uint64_t addr, const char *name)
{
	size_t nl = strlen(name), need = *len + nl + 48;
	uint8_t a[10], *ae = lt_put_varint(a, addr);
	uint8_t head[32], *h = head;

	if (need > *cap) {
		size_t c = *cap ? *cap * 2 : 4096;
		while (c < need)
			c *= 2;
		uint8_t *b = realloc(*buf, c);
		if (!b)
			return -ENOMEM;
		*buf = b;
		*cap = c;
	}
	/* the entry's own fields: addr, then the name's key and length */
	tlv_put(&h, 1, a, (size_t)(ae - a));
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

int lt_locksyms_resolve(struct lt_locksyms *ls, struct lt_writer *w)
{
	uint8_t *buf = NULL;
	size_t len = 0, cap = 0;
	int r = 0;

	if (!ls->npending)
		return 0;
	if (!ls->sym) {
		ls->sym = lt_sym_open(ls->pid, LT_SYM_NO_LINES, NULL);
		ls->sym_opened_ns = mono_ns();
		if (!ls->sym)
			return 0; /* gone: the addresses stay unnamed */
	}
	size_t keep = 0;
	for (size_t i = 0; i < ls->npending; i++) {
		uint64_t addr = ls->pending[i];
		char *name = lt_sym_describe(ls->sym, addr);
		if (name && !strcmp(name, "unmapped") && mono_ns() - ls->sym_opened_ns >= REOPEN_NS) {
			/* mapped since the maps were read (dlopen, a new thread's stack) */
			struct lt_sym *s = lt_sym_open(ls->pid, LT_SYM_NO_LINES, NULL);
			if (s) {
				lt_sym_close(ls->sym);
				ls->sym = s;
				ls->sym_opened_ns = mono_ns();
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
		if (w && (r = add_entry(&buf, &len, &cap, addr, name)))
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
			r = add_entry(&buf, &len, &cap, ls->names->keys[i], ls->names->vals[i]);
	if (!r && len)
		r = lt_writer_section(w, LT_CHUNK_SYMBOLS, buf, len);
	free(buf);
	return r;
}

int lt_locksyms_parse(const uint8_t *data, size_t len, struct lt_u64map *map)
{
	struct lt_cur c = { data, data + len, 0 };

	while (c.p < c.end) {
		uint64_t key = lt_get_varint(&c), n = lt_get_varint(&c);
		const uint8_t *v = c.err ? NULL : lt_get_bytes(&c, n);
		if (!v)
			return -EINVAL;
		if (key != 1)
			continue;
		struct lt_cur e = { v, v + n, 0 };
		uint64_t addr = 0;
		char *name = NULL;
		while (e.p < e.end && !e.err) {
			uint64_t k = lt_get_varint(&e), m = lt_get_varint(&e);
			const uint8_t *f = e.err ? NULL : lt_get_bytes(&e, m);
			if (!f)
				break;
			if (k == 1) {
				struct lt_cur a = { f, f + m, 0 };
				addr = lt_get_varint(&a);
			} else if (k == 2 && !name) {
				name = malloc(m + 1);
				if (name) {
					memcpy(name, f, m);
					name[m] = 0;
				}
			}
		}
		if (e.err) {
			free(name);
			return -EINVAL;
		}
		if (!addr || !name) {
			free(name);
			continue;
		}
		char *old = lt_u64map_get(map, addr);
		if (lt_u64map_put(map, addr, name)) {
			free(name);
			return -ENOMEM;
		}
		if (old && old != PENDING)
			free(old);
	}
	return 0;
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

static int scan_trace(const char *path, struct lt_u64map *map, struct lt_u64map *tnames);

int lt_trace_symbols(const char *path, struct lt_u64map *map)
{
	return scan_trace(path, map, NULL);
}

int lt_trace_names(const char *path, struct lt_u64map *map, struct lt_u64map *tnames)
{
	return scan_trace(path, map, tnames);
}

static int scan_trace(const char *path, struct lt_u64map *map, struct lt_u64map *tnames)
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
	while (fread(hdr, 1, sizeof(hdr), f) == sizeof(hdr)) {
		uint32_t type = lt_get_le32(hdr + 4), len = lt_get_le32(hdr + 8);
		if (lt_get_le32(hdr) != 0x4b43544cu || len > LT_CHUNK_MAX)
			break; /* damaged: the reader reports it; keep what we have */
		if (type != LT_CHUNK_SYMBOLS && type != LT_CHUNK_SNAPSHOT && type != LT_CHUNK_CONT) {
			have = 0;
			if (fseek(f, len, SEEK_CUR))
				break;
			continue;
		}
		/* a large section: CONT parts, then its last chunk (tracefile.h) */
		if (have + len > LT_SECTION_MAX)
			break;
		uint8_t *b = realloc(buf, have + len + 1);
		if (!b)
			break;
		buf = b;
		if (fread(buf + have, 1, len, f) != len)
			break;
		uint32_t crc = (uint32_t)crc32(0L, hdr + 4, 8);
		crc = (uint32_t)crc32(crc, buf + have, len);
		if (crc != lt_get_le32(hdr + 12))
			break;
		size_t all = have + len;
		have = type == LT_CHUNK_CONT ? all : 0;
		if (type == LT_CHUNK_SYMBOLS)
			lt_locksyms_parse(buf, all, map);
		else if (type == LT_CHUNK_SNAPSHOT &&
			 rp_snapshot_lock_names((const char *)buf, all, &models) == 0 && tnames)
			rp_snapshot_thread_names((const char *)buf, all, tnames);
	}
	ret = 0;
out:
	merge_model_names(map, &models);
	free(buf);
	fclose(f);
	return ret;
}
