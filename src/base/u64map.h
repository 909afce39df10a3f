/* SPDX-License-Identifier: MIT */
/* A hash map from non-zero 64-bit keys (thread ids, futex addresses) to
 * pointers, for the timeline model and the writers.  Open addressing with
 * linear probing and backward-shift deletion: no tombstones, so a map that
 * sees heavy churn (threads come and go) stays as small as its content. */
#ifndef LOCKTRACE_U64MAP_H
#define LOCKTRACE_U64MAP_H

#include <stddef.h>
#include <stdint.h>

struct lt_u64map {
	uint64_t *keys; /* 0 = empty slot */
	void **vals;
	size_t cap, n;  /* cap: 0 or a power of two */
};

static inline size_t lt_u64map_slot(const struct lt_u64map *m, uint64_t key)
{
	return (size_t)((key * 0x9E3779B97F4A7C15ull) >> 32) & (m->cap - 1);
}

/* The value stored for key (non-zero), or NULL. */
static inline void *lt_u64map_get(const struct lt_u64map *m, uint64_t key)
{
	/* at most cap probes: a map is never full (put grows it at 3/4), but
	 * a corrupted one must not hang its reader */
	for (size_t i = m->cap ? lt_u64map_slot(m, key) : 0, n = 0; n < m->cap;
	     i = (i + 1) & (m->cap - 1), n++) {
		if (m->keys[i] == key)
			return m->vals[i];
		if (!m->keys[i])
			return NULL;
	}
	return NULL;
}

/* Where the value of key (non-zero) is stored, to replace it without a
 * second lookup (valid until the next put or del), or NULL if absent. */
static inline void **lt_u64map_ref(const struct lt_u64map *m, uint64_t key)
{
	for (size_t i = m->cap ? lt_u64map_slot(m, key) : 0, n = 0; n < m->cap;
	     i = (i + 1) & (m->cap - 1), n++) {
		if (m->keys[i] == key)
			return &m->vals[i];
		if (!m->keys[i])
			return NULL;
	}
	return NULL;
}

/* For a map whose keys are hashes of larger keys (a string, a stack, a
 * file's dev and inode), each entry stored under its hash or, when that is
 * taken by another, the next free key after it: the value stored from hash
 * h for which same(value, ctx) holds, or NULL; *free_key then the key to
 * store a new one under (lt_u64map_put).  h 0 counts as 1. */
void *lt_u64map_find(const struct lt_u64map *m, uint64_t h,
		     int (*same)(const void *val, const void *ctx), const void *ctx,
		     uint64_t *free_key);

/* Stores or replaces; key must be non-zero.  0 or -ENOMEM. */
int lt_u64map_put(struct lt_u64map *m, uint64_t key, void *val);
void lt_u64map_del(struct lt_u64map *m, uint64_t key);
/* Frees the map's arrays (not the values). */
void lt_u64map_free(struct lt_u64map *m);

#endif
