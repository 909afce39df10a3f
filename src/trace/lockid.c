// SPDX-License-Identifier: MIT
/*
 * Lock identity across processes (src/trace/lockid.h): a table of
 * processes and of shared objects, each given a small index that goes into
 * the lock key's high bits.
 */
#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/sysmacros.h>
#include "lockid.h"
#include "grow.h"
#include "u64map.h"

struct lid_proc {
	uint32_t tgid;
	struct lt_shared_map *maps; /* its shared mappings, by start (sorted
				     * before the first look-up) */
	size_t n, cap;
	int sorted;
};

struct lid_obj {
	uint64_t dev, ino;
};

struct lt_lockid {
	uint32_t pid;
	struct lid_proc *procs; /* index - 1 */
	size_t nprocs, cap_procs;
	struct lt_u64map pmap;  /* tgid -> index */
	struct lid_obj *objs;   /* index - 1 */
	size_t nobjs, cap_objs;
	struct lt_u64map omap;  /* hash of (dev, ino), probed on -> index */
	struct lt_u64map known; /* process key of a word -> its shared key */
};

/* Room for element n of *v (*cap elements): 0 or -ENOMEM. */
static int grow(void **v, size_t *cap, size_t n, size_t size)
{
	void *nv = lt_grow(*v, cap, n, size, 8);
	if (!nv)
		return -ENOMEM;
	*v = nv;
	return 0;
}

/* The index of process tgid, added if new (create); 0 if none or full. */
static uint32_t proc_index(struct lt_lockid *ids, uint32_t tgid, int create)
{
	uint32_t i = (uint32_t)(uintptr_t)lt_u64map_get(&ids->pmap, tgid);
	if (i || !create || !tgid || ids->nprocs >= LT_LOCKKEY_MAX_INDEX)
		return i;
	if (grow((void **)&ids->procs, &ids->cap_procs, ids->nprocs, sizeof(*ids->procs)))
		return 0;
	i = (uint32_t)ids->nprocs + 1;
	if (lt_u64map_put(&ids->pmap, tgid, (void *)(uintptr_t)i))
		return 0;
	memset(&ids->procs[i - 1], 0, sizeof(ids->procs[0]));
	ids->procs[i - 1].tgid = tgid;
	ids->nprocs++;
	return i;
}

struct obj_query {
	const struct lt_lockid *ids;
	uint64_t dev, ino;
};

static int same_obj(const void *val, const void *ctx)
{
	const struct obj_query *q = ctx;
	size_t i = (size_t)(uintptr_t)val;
	return q->ids->objs[i - 1].dev == q->dev && q->ids->objs[i - 1].ino == q->ino;
}

static uint32_t obj_index(struct lt_lockid *ids, uint64_t dev, uint64_t ino)
{
	struct obj_query q = { ids, dev, ino };
	uint64_t h;
	/* objects whose hashes collide take the next free key */
	uint32_t i = (uint32_t)(uintptr_t)lt_u64map_find(&ids->omap,
							  (dev * 0x9E3779B97F4A7C15ull) ^ ino,
							  same_obj, &q, &h);
	if (i)
		return i;
	if (ids->nobjs >= LT_LOCKKEY_MAX_INDEX ||
	    grow((void **)&ids->objs, &ids->cap_objs, ids->nobjs, sizeof(*ids->objs)))
		return 0;
	i = (uint32_t)ids->nobjs + 1;
	if (lt_u64map_put(&ids->omap, h, (void *)(uintptr_t)i))
		return 0;
	ids->objs[i - 1].dev = dev;
	ids->objs[i - 1].ino = ino;
	ids->nobjs++;
	return i;
}

static int add_map(struct lid_proc *p, const struct lt_shared_map *m)
{
	if (grow((void **)&p->maps, &p->cap, p->n, sizeof(*p->maps)))
		return -ENOMEM;
	p->maps[p->n++] = *m;
	p->sorted = 0;
	return 0;
}

static int by_start(const void *a, const void *b)
{
	const struct lt_shared_map *x = a, *y = b;
	return (x->start > y->start) - (x->start < y->start);
}

/* The shared mapping of p holding addr, or NULL: a binary search (a
 * process may map thousands of objects; a futex is looked up per call). */
static const struct lt_shared_map *map_of(struct lid_proc *p, uint64_t addr)
{
	if (!p->n)
		return NULL;
	if (!p->sorted) {
		qsort(p->maps, p->n, sizeof(*p->maps), by_start);
		p->sorted = 1;
	}
	size_t lo = 0, hi = p->n; /* the first map starting above addr */
	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;
		if (p->maps[mid].start <= addr)
			lo = mid + 1;
		else
			hi = mid;
	}
	return lo && addr < p->maps[lo - 1].end ? &p->maps[lo - 1] : NULL;
}

struct lt_lockid *lt_lockid_new(const struct lt_header *hdr)
{
	struct lt_lockid *ids = calloc(1, sizeof(*ids));
	if (!ids)
		return NULL;
	ids->pid = (uint32_t)hdr->pid;
	proc_index(ids, ids->pid, 1);
	for (uint32_t i = 0; i < hdr->nshared; i++) {
		const struct lt_shared_map *m = &hdr->shared[i];
		uint32_t k = proc_index(ids, (uint32_t)m->tgid, 1);
		if (k && m->end > m->start && add_map(&ids->procs[k - 1], m)) {
			lt_lockid_free(ids);
			return NULL;
		}
	}
	return ids;
}

void lt_lockid_free(struct lt_lockid *ids)
{
	if (!ids)
		return;
	for (size_t i = 0; i < ids->nprocs; i++)
		free(ids->procs[i].maps);
	free(ids->procs);
	free(ids->objs);
	lt_u64map_free(&ids->pmap);
	lt_u64map_free(&ids->omap);
	lt_u64map_free(&ids->known);
	free(ids);
}

uint32_t lt_lockid_pid(const struct lt_lockid *ids)
{
	return ids->pid;
}

size_t lt_lockid_nprocs(const struct lt_lockid *ids)
{
	return ids->nprocs;
}

int lt_lockid_fork(struct lt_lockid *ids, uint32_t parent_tgid, uint32_t child_tgid)
{
	uint32_t pi = proc_index(ids, parent_tgid, 0);
	uint32_t ci = proc_index(ids, child_tgid, 1);
	if (!ci)
		return -ENOMEM;
	if (!pi || pi == ci || ids->procs[ci - 1].n)
		return 0;
	for (size_t i = 0; i < ids->procs[pi - 1].n; i++) {
		struct lt_shared_map m = ids->procs[pi - 1].maps[i];
		m.tgid = (int32_t)child_tgid;
		if (add_map(&ids->procs[ci - 1], &m))
			return -ENOMEM;
	}
	return 0;
}

uint64_t lt_lockid_proc_key(struct lt_lockid *ids, uint32_t tgid, uint64_t addr)
{
	if (!tgid || tgid == ids->pid || !addr || addr > LT_LOCKKEY_ADDR_MASK)
		return addr;
	uint32_t i = proc_index(ids, tgid, 1);
	return i ? LT_LOCKKEY_ENC | (uint64_t)i << LT_LOCKKEY_ADDR_BITS | addr : addr;
}

static uint64_t shared_key(struct lt_lockid *ids, uint64_t dev, uint64_t ino, uint64_t offset)
{
	uint32_t o = offset <= LT_LOCKKEY_ADDR_MASK ? obj_index(ids, dev, ino) : 0;
	return o ? LT_LOCKKEY_ENC | LT_LOCKKEY_SHARED | (uint64_t)o << LT_LOCKKEY_ADDR_BITS | offset : 0;
}

int lt_lockid_add_shared(struct lt_lockid *ids, uint32_t tgid, uint64_t addr, uint64_t dev,
			 uint64_t ino, uint64_t offset)
{
	uint64_t pk = lt_lockid_proc_key(ids, tgid, addr);
	uint64_t sk = shared_key(ids, dev, ino, offset);
	if (!pk || !sk)
		return 0;
	return lt_u64map_put(&ids->known, pk, (void *)(uintptr_t)sk) ? -ENOMEM : 0;
}

uint64_t lt_lockid_key(struct lt_lockid *ids, uint32_t tgid, uint64_t addr, int private)
{
	uint64_t pk = lt_lockid_proc_key(ids, tgid, addr);
	if (private || !pk)
		return pk;
	uint64_t sk = (uint64_t)(uintptr_t)lt_u64map_get(&ids->known, pk);
	if (sk)
		return sk;
	uint32_t i = proc_index(ids, tgid ? tgid : ids->pid, 0);
	if (!i)
		return pk;
	const struct lt_shared_map *m = map_of(&ids->procs[i - 1], addr);
	if (!m)
		return pk;
	sk = shared_key(ids, m->dev, m->ino, m->offset + (addr - m->start));
	return sk ? sk : pk;
}

int lt_lockid_decode(const struct lt_lockid *ids, uint64_t key, struct lt_lock_ident *out)
{
	memset(out, 0, sizeof(*out));
	if (!(key & LT_LOCKKEY_ENC)) {
		out->tgid = ids->pid;
		out->addr = key;
		return 0;
	}
	size_t i = (size_t)((key & ~(LT_LOCKKEY_ENC | LT_LOCKKEY_SHARED)) >> LT_LOCKKEY_ADDR_BITS);
	uint64_t low = key & LT_LOCKKEY_ADDR_MASK;
	if (key & LT_LOCKKEY_SHARED) {
		if (!i || i > ids->nobjs)
			return -1;
		out->shared = 1;
		out->dev = ids->objs[i - 1].dev;
		out->ino = ids->objs[i - 1].ino;
		out->offset = low;
		return 0;
	}
	if (!i || i > ids->nprocs)
		return -1;
	out->tgid = ids->procs[i - 1].tgid;
	out->addr = low;
	return 0;
}

const char *lt_lockid_format(const struct lt_lockid *ids, uint64_t key, char *buf, size_t len)
{
	struct lt_lock_ident id;
	if (!ids || lt_lockid_decode(ids, key, &id))
		snprintf(buf, len, "0x%" PRIx64, key);
	else if (id.shared)
		snprintf(buf, len, "inode %" PRIu64 " (dev %u:%u)+0x%" PRIx64, id.ino, major(id.dev),
			 minor(id.dev), id.offset);
	else if (id.tgid != ids->pid)
		snprintf(buf, len, "0x%" PRIx64 " in process %u", id.addr, id.tgid);
	else
		snprintf(buf, len, "0x%" PRIx64, id.addr);
	return buf;
}

uint64_t lt_lockid_symbol(struct lt_lockid *ids, uint32_t tgid, uint64_t addr, int shared,
			  uint64_t dev, uint64_t ino, uint64_t offset)
{
	if (shared) { /* every process's name of the word names the one lock */
		if (lt_lockid_add_shared(ids, tgid, addr, dev, ino, offset))
			return 0;
		return lt_lockid_key(ids, tgid, addr, 0);
	}
	return tgid && tgid != ids->pid ? lt_lockid_proc_key(ids, tgid, addr) : 0;
}
