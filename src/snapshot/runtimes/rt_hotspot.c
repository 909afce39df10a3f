/* The reader of HotSpot's exported self-description (see rt_hotspot.h).
 *
 * Cost: one read per 64 table entries and one per 4 KiB page of the
 * strings they point at (type and field names sit together in libjvm's
 * read-only data), so the ~2,000 entries of a JDK 17 cost a few hundred
 * reads, not several thousand. */
#include <errno.h>
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>

#include "budget.h"
#include "rt_hotspot.h"
#include "snapshot_int.h"
#include "u64map.h"
#include "grow.h"

/* Bounds that no real table comes near: beyond them the exported numbers
 * were not read from a HotSpot, or not from this version's. */
#define MAX_STRIDE 512
#define MAX_ENTRIES 65536
#define MAX_NAME 512
#define BATCH 64

/* ---- strings: an arena, and a page cache for reading them ---- */

#define ARENA_BLOCK 65536

struct hs_arena {
	struct hs_arena *next;
	size_t used;
	char buf[ARENA_BLOCK];
};

static const char *arena_dup(struct hs_arena **a, const char *s)
{
	size_t len = strlen(s) + 1;
	if (len > ARENA_BLOCK)
		return NULL;
	if (!*a || (*a)->used + len > ARENA_BLOCK) {
		struct hs_arena *n = malloc(sizeof(*n));
		if (!n)
			return NULL;
		n->next = *a;
		n->used = 0;
		*a = n;
	}
	char *d = (*a)->buf + (*a)->used;
	memcpy(d, s, len);
	(*a)->used += len;
	return d;
}

#define PC_SLOTS 64
#define PAGE 4096u

struct hs_strcache {
	uint64_t page[PC_SLOTS]; /* page number + 1; 0: empty */
	uint8_t data[PC_SLOTS][PAGE];
};

/* The page holding ADDR, from the cache or read whole; NULL if unreadable. */
static const uint8_t *pc_page(const struct lt_lm_env *e, struct hs_strcache *c, uint64_t addr)
{
	uint64_t pg = addr / PAGE;
	size_t slot = (size_t)(pg % PC_SLOTS);
	if (c->page[slot] == pg + 1)
		return c->data[slot];
	if (e->read(e->arg, pg * PAGE, c->data[slot], PAGE)) {
		c->page[slot] = 0;
		return NULL;
	}
	c->page[slot] = pg + 1;
	return c->data[slot];
}

/* A NUL-terminated string of at most LEN-1 bytes at ADDR: 0, or -EFAULT
 * (unreadable, or no NUL within LEN). */
static int pc_str(const struct lt_lm_env *e, struct hs_strcache *c, uint64_t addr, char *buf, size_t len)
{
	for (size_t i = 0; i < len; i++) {
		const uint8_t *p = pc_page(e, c, addr + i);
		if (!p)
			return lt_lm_read_str(e, addr, buf, len) == 0 && strlen(buf) < len - 1 ? 0 : -EFAULT;
		buf[i] = (char)p[(addr + i) % PAGE];
		if (!buf[i])
			return 0;
	}
	return -EFAULT;
}

struct hs_strcache *hs_strcache_new(void)
{
	return calloc(1, sizeof(struct hs_strcache));
}

void hs_strcache_free(struct hs_strcache *c)
{
	free(c);
}

int hs_read_str(const struct lt_lm_env *e, struct hs_strcache *c, uint64_t addr, char *buf, size_t len)
{
	if (!len)
		return -EFAULT;
	return c ? pc_str(e, c, addr, buf, len) : lt_lm_read_str(e, addr, buf, len);
}

/* ---- the exported descriptions of each table ---- */

enum { W_PTR, W_I32, W_U64 };

struct member {
	const char *var; /* the exported variable holding its offset */
	int width;
	uint64_t off;
};

#define MAX_MEMBERS 6

struct table {
	const char *what;     /* "gHotSpotVMStructs"                  */
	const char *stride_var;
	struct member m[MAX_MEMBERS];
	size_t n_members;
	uint64_t array, stride;
};

static int member_width(int w)
{
	return w == W_I32 ? 4 : 8;
}

static int read_var(const struct lt_lm_env *e, const char *name, uint64_t *v)
{
	uint64_t addr, size;
	if (e->lookup(e->arg, name, &addr, &size))
		return -ENOENT;
	return lt_lm_read_u64(e, addr, v);
}

/* The table's array, stride and member offsets, checked against each
 * other: a member must fit in an entry. */
static int describe(const struct lt_lm_env *e, struct table *t, struct lt_strlist *notes)
{
	if (read_var(e, t->what, &t->array) || read_var(e, t->stride_var, &t->stride)) {
		lt_strlist_add(notes, "hotspot: %s or %s is missing or unreadable", t->what, t->stride_var);
		return -EIO;
	}
	if (!t->array || t->stride < 8 || t->stride > MAX_STRIDE) {
		lt_strlist_add(notes, "hotspot: %s at 0x%" PRIx64 " with stride %" PRIu64
			       " is not a table (not initialised yet?)", t->what, t->array, t->stride);
		return -EIO;
	}
	for (size_t i = 0; i < t->n_members; i++) {
		struct member *m = &t->m[i];
		if (read_var(e, m->var, &m->off)) {
			lt_strlist_add(notes, "hotspot: %s is missing or unreadable", m->var);
			return -EIO;
		}
		if (m->off + (uint64_t)member_width(m->width) > t->stride) {
			lt_strlist_add(notes, "hotspot: %s = %" PRIu64 " does not fit an entry of %" PRIu64
				       " bytes", m->var, m->off, t->stride);
			return -EIO;
		}
	}
	return 0;
}

static uint64_t get_member(const struct table *t, const uint8_t *entry, size_t i)
{
	const struct member *m = &t->m[i];
	if (m->width == W_I32) {
		int32_t v;
		memcpy(&v, entry + m->off, 4);
		return (uint64_t)(int64_t)v;
	}
	uint64_t v;
	memcpy(&v, entry + m->off, 8);
	return v;
}

/* One decoded entry is handed to a table's own function with the reader's
 * state; it returns 0, 1 (skip the entry) or -ENOMEM. */
struct reader {
	const struct lt_lm_env *e;
	struct hs_vm *vm;
	struct hs_strcache *pc;
	size_t bad_strings;
	struct lt_u64map strs; /* string address -> its copy: each copied once */
};

typedef int (*entry_fn)(struct reader *r, const struct table *t, const uint8_t *entry);

/* A string member of an entry, copied into the arena; NULL pointer stays
 * NULL.  *ok is cleared when a non-NULL pointer cannot be read. */
static const char *entry_str(struct reader *r, uint64_t p, bool *ok)
{
	char buf[MAX_NAME];
	if (!p)
		return NULL;
	const char *s = lt_u64map_get(&r->strs, p);
	if (s)
		return s;
	if (pc_str(r->e, r->pc, p, buf, sizeof(buf))) {
		*ok = false;
		r->bad_strings++;
		return NULL;
	}
	s = arena_dup(&r->vm->arena, buf);
	if (!s || lt_u64map_put(&r->strs, p, (void *)s))
		*ok = false;
	return s;
}

/* Reads entries until the one whose first member (the name) is NULL. */
static int walk(struct reader *r, const struct table *t, entry_fn fn, struct lt_strlist *notes)
{
	uint8_t *buf = malloc(BATCH * t->stride);
	if (!buf)
		return -ENOMEM;
	int rc = 0;
	for (size_t i = 0; i < MAX_ENTRIES; i += BATCH) {
		size_t n = BATCH;
		if (lt_budget_over()) {
			lt_strlist_add(notes, "hotspot: stopped reading %s after %zu entries: the "
				       "snapshot's time ran out", t->what, i);
			rc = -EIO;
			goto out;
		}
		uint64_t at = t->array + i * t->stride;
		/* the last batch may run past the mapping: one entry at a time */
		while (n && r->e->read(r->e->arg, at, buf, n * t->stride))
			n = n > 1 ? 1 : 0;
		if (!n) {
			lt_strlist_add(notes, "hotspot: %s entry %zu at 0x%" PRIx64 " is unreadable",
				       t->what, i, at);
			rc = -EIO;
			goto out;
		}
		for (size_t k = 0; k < n; k++) {
			const uint8_t *entry = buf + k * t->stride;
			if (!get_member(t, entry, 0))
				goto out;
			rc = fn(r, t, entry);
			if (rc < 0)
				goto out;
		}
		if (n < BATCH)
			i -= BATCH - n; /* continue right after the entries read */
	}
	lt_strlist_add(notes, "hotspot: %s has no end within %d entries", t->what, MAX_ENTRIES);
	rc = -EIO;
out:
	free(buf);
	return rc < 0 ? rc : 0;
}

/* ---- the four tables ---- */

static void *grow(void *v, size_t n, size_t size)
{
	/* room for 64, then doubled at each power of two: the tables hold a
	 * few thousand entries */
	return lt_grow_pow2_from(v, n, size, 64);
}

enum { F_TYPE, F_NAME, F_TSTRING, F_STATIC, F_OFFSET, F_ADDRESS };

static int field_entry(struct reader *r, const struct table *t, const uint8_t *entry)
{
	struct hs_vm *vm = r->vm;
	bool ok = true;
	struct hs_field f = { 0 };
	f.type = entry_str(r, get_member(t, entry, F_TYPE), &ok);
	f.name = entry_str(r, get_member(t, entry, F_NAME), &ok);
	f.tstring = entry_str(r, get_member(t, entry, F_TSTRING), &ok);
	if (!ok || !f.type || !f.name)
		return 1;
	f.is_static = get_member(t, entry, F_STATIC) != 0;
	f.value = get_member(t, entry, f.is_static ? F_ADDRESS : F_OFFSET);
	struct hs_field *nv = grow(vm->fields, vm->n_fields, sizeof(*nv));
	if (!nv)
		return -ENOMEM;
	vm->fields = nv;
	vm->fields[vm->n_fields++] = f;
	return 0;
}

enum { T_NAME, T_SUPER, T_OOP, T_INT, T_UNSIGNED, T_SIZE };

static int type_entry(struct reader *r, const struct table *t, const uint8_t *entry)
{
	struct hs_vm *vm = r->vm;
	bool ok = true;
	struct hs_type y = { 0 };
	y.name = entry_str(r, get_member(t, entry, T_NAME), &ok);
	y.super = entry_str(r, get_member(t, entry, T_SUPER), &ok);
	if (!ok || !y.name)
		return 1;
	y.is_oop = get_member(t, entry, T_OOP) != 0;
	y.is_int = get_member(t, entry, T_INT) != 0;
	y.is_unsigned = get_member(t, entry, T_UNSIGNED) != 0;
	y.size = get_member(t, entry, T_SIZE);
	struct hs_type *nv = grow(vm->types, vm->n_types, sizeof(*nv));
	if (!nv)
		return -ENOMEM;
	vm->types = nv;
	vm->types[vm->n_types++] = y;
	return 0;
}

enum { C_NAME, C_VALUE };

static int const_entry(struct reader *r, const struct table *t, const uint8_t *entry, bool is_long)
{
	struct hs_vm *vm = r->vm;
	bool ok = true;
	struct hs_const c = { 0 };
	c.name = entry_str(r, get_member(t, entry, C_NAME), &ok);
	if (!ok || !c.name)
		return 1;
	c.value = (int64_t)get_member(t, entry, C_VALUE);
	struct hs_const **v = is_long ? &vm->longs : &vm->ints;
	size_t *n = is_long ? &vm->n_longs : &vm->n_ints;
	struct hs_const *nv = grow(*v, *n, sizeof(*nv));
	if (!nv)
		return -ENOMEM;
	*v = nv;
	(*v)[(*n)++] = c;
	return 0;
}

static int int_entry(struct reader *r, const struct table *t, const uint8_t *entry)
{
	return const_entry(r, t, entry, false);
}

static int long_entry(struct reader *r, const struct table *t, const uint8_t *entry)
{
	return const_entry(r, t, entry, true);
}

#define M(v, w) { "gHotSpotVM" v "Offset", w, 0 }

static const struct table tables[4] = {
	{ "gHotSpotVMStructs", "gHotSpotVMStructEntryArrayStride",
	  { M("StructEntryTypeName", W_PTR), M("StructEntryFieldName", W_PTR),
	    M("StructEntryTypeString", W_PTR), M("StructEntryIsStatic", W_I32),
	    M("StructEntryOffset", W_U64), M("StructEntryAddress", W_PTR) }, 6, 0, 0 },
	{ "gHotSpotVMTypes", "gHotSpotVMTypeEntryArrayStride",
	  { M("TypeEntryTypeName", W_PTR), M("TypeEntrySuperclassName", W_PTR),
	    M("TypeEntryIsOopType", W_I32), M("TypeEntryIsIntegerType", W_I32),
	    M("TypeEntryIsUnsigned", W_I32), M("TypeEntrySize", W_U64) }, 6, 0, 0 },
	{ "gHotSpotVMIntConstants", "gHotSpotVMIntConstantEntryArrayStride",
	  { M("IntConstantEntryName", W_PTR), M("IntConstantEntryValue", W_I32) }, 2, 0, 0 },
	{ "gHotSpotVMLongConstants", "gHotSpotVMLongConstantEntryArrayStride",
	  { M("LongConstantEntryName", W_PTR), M("LongConstantEntryValue", W_U64) }, 2, 0, 0 },
};

static const entry_fn table_fns[4] = { field_entry, type_entry, int_entry, long_entry };

/* ---- sorting and lookups ---- */

static int field_cmp(const void *a, const void *b)
{
	const struct hs_field *x = a, *y = b;
	int c = strcmp(x->type, y->type);
	return c ? c : strcmp(x->name, y->name);
}

static int type_cmp(const void *a, const void *b)
{
	return strcmp(((const struct hs_type *)a)->name, ((const struct hs_type *)b)->name);
}

static int const_cmp(const void *a, const void *b)
{
	return strcmp(((const struct hs_const *)a)->name, ((const struct hs_const *)b)->name);
}

const struct hs_type *hs_vm_type(const struct hs_vm *vm, const char *name)
{
	struct hs_type key = { .name = name };
	if (!vm->n_types)
		return NULL;
	return bsearch(&key, vm->types, vm->n_types, sizeof(key), type_cmp);
}

/* Superclass chains are short; the bound only stops a cycle in bad data. */
#define MAX_DEPTH 32

const struct hs_field *hs_vm_field(const struct hs_vm *vm, const char *type, const char *name)
{
	for (int depth = 0; type && depth < MAX_DEPTH; depth++) {
		struct hs_field key = { .type = type, .name = name };
		const struct hs_field *f = vm->n_fields ? bsearch(&key, vm->fields, vm->n_fields,
								  sizeof(key), field_cmp) : NULL;
		if (f)
			return f;
		const struct hs_type *t = hs_vm_type(vm, type);
		type = t ? t->super : NULL;
	}
	return NULL;
}

static bool find_const(const struct hs_const *v, size_t n, const char *name, int64_t *out)
{
	struct hs_const key = { .name = name };
	const struct hs_const *c = n ? bsearch(&key, v, n, sizeof(key), const_cmp) : NULL;
	if (c)
		*out = c->value;
	return c != NULL;
}

bool hs_vm_int(const struct hs_vm *vm, const char *name, int64_t *v)
{
	return find_const(vm->ints, vm->n_ints, name, v);
}

bool hs_vm_long(const struct hs_vm *vm, const char *name, int64_t *v)
{
	return find_const(vm->longs, vm->n_longs, name, v);
}

/* ---- entry point ---- */

void hs_vm_free(struct hs_vm *vm)
{
	free(vm->fields);
	free(vm->types);
	free(vm->ints);
	free(vm->longs);
	while (vm->arena) {
		struct hs_arena *n = vm->arena->next;
		free(vm->arena);
		vm->arena = n;
	}
	memset(vm, 0, sizeof(*vm));
}

int hs_vm_read(const struct lt_lm_env *e, struct hs_vm *vm, struct lt_strlist *notes)
{
	uint64_t a, size;
	memset(vm, 0, sizeof(*vm));
	if (e->lookup(e->arg, "gHotSpotVMStructs", &a, &size))
		return -ENOENT;
	struct hs_strcache *pc = hs_strcache_new();
	if (!pc)
		return -ENOMEM;
	struct reader r = { e, vm, pc, 0, { 0 } };
	int rc = 0;
	for (size_t i = 0; i < 4 && !rc; i++) {
		struct table t = tables[i];
		rc = describe(e, &t, notes);
		if (!rc)
			rc = walk(&r, &t, table_fns[i], notes);
	}
	hs_strcache_free(pc);
	lt_u64map_free(&r.strs);
	if (!rc && (!vm->n_fields || !vm->n_types)) {
		lt_strlist_add(notes, "hotspot: the VMStructs tables are empty (JVM not initialised yet?)");
		rc = -EIO;
	}
	if (!rc && r.bad_strings)
		lt_strlist_add(notes, "hotspot: %zu names in the VMStructs tables were unreadable; "
			       "their entries are left out", r.bad_strings);
	if (rc) {
		hs_vm_free(vm);
		return rc;
	}
	/* qsort of an empty (NULL) table is undefined: only sort what is there */
	if (vm->n_fields)
		qsort(vm->fields, vm->n_fields, sizeof(*vm->fields), field_cmp);
	if (vm->n_types)
		qsort(vm->types, vm->n_types, sizeof(*vm->types), type_cmp);
	if (vm->n_ints)
		qsort(vm->ints, vm->n_ints, sizeof(*vm->ints), const_cmp);
	if (vm->n_longs)
		qsort(vm->longs, vm->n_longs, sizeof(*vm->longs), const_cmp);
	return 0;
}
