/* HotSpot: the VMStructs table reader (src/rt_hotspot.c) and the Java
 * model (src/lock_hotspot.c) on synthetic memory.
 *
 * rt_hotspot_tables: the four exported tables, laid out with strides and
 * member offsets unlike any real JVM's (the reader must take them from the
 * exported variables), broken in the ways a wrong process or a JVM that is
 * still starting can break them.
 *
 * lock_hotspot_fixture: a small synthetic JVM built from those tables with
 * offsets unlike JDK 17's: a Java thread list, java.lang.Thread objects
 * with names (Latin-1 and UTF-16, one a subclass), compressed oops and
 * class pointers, two monitors held crosswise (one owner a JavaThread
 * pointer, one a stack lock), then the same with JDK 24's owner ids and
 * lock stacks.  The model runs through lt_lockmodels_apply and the verdict
 * rules, as in a live snapshot.  No root needed. */
#include <criterion/criterion.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "locktrace/lockmodel.h"
#include "locktrace/snapshot.h"
#include "../src/rt_hotspot.h"

extern const struct lt_lockmodel lt_lm_hotspot;

/* ---- a fake process: one memory region, a bump allocator, symbols ---- */

#define MEM 0x10000000ull
#define MEM_SIZE (4u << 20)
#define STACKS 0x7f0000000000ull

struct fk {
	uint8_t *mem;
	uint64_t top;
	struct {
		const char *name;
		uint64_t addr;
	} sym[64];
	int nsym;
	uint64_t hole_lo, hole_hi; /* reads here fail */
	struct lt_snapshot snap;
	struct lt_thread threads[8];
};

static void fk_init(struct fk *f)
{
	memset(f, 0, sizeof(*f));
	f->mem = calloc(1, MEM_SIZE);
	cr_assert_not_null(f->mem);
	f->top = MEM + 0x1000;
}

static void fk_free(struct fk *f)
{
	free(f->mem);
	for (size_t i = 0; i < f->snap.n_rtlocks; i++)
		lt_rtlock_clear(&f->snap.rtlocks[i]);
	free(f->snap.rtlocks);
	for (size_t i = 0; i < f->snap.n_verdicts; i++)
		lt_verdict_clear(&f->snap.verdicts[i]);
	free(f->snap.verdicts);
	for (size_t i = 0; i < f->snap.n_threads; i++)
		lt_thread_clear(&f->threads[i]);
	lt_strlist_free(&f->snap.notes);
}

static uint64_t fk_alloc(struct fk *f, size_t len)
{
	uint64_t a = (f->top + 15) & ~15ull;
	f->top = a + len;
	cr_assert_leq(f->top, MEM + MEM_SIZE);
	return a;
}

static uint8_t *at(struct fk *f, uint64_t addr)
{
	cr_assert(addr >= MEM && addr < MEM + MEM_SIZE, "0x%llx outside the fake memory",
		  (unsigned long long)addr);
	return f->mem + (addr - MEM);
}

static void w64(struct fk *f, uint64_t a, uint64_t v) { memcpy(at(f, a), &v, 8); }
static void w32(struct fk *f, uint64_t a, uint32_t v) { memcpy(at(f, a), &v, 4); }

static uint64_t fk_str(struct fk *f, const char *s)
{
	if (!s)
		return 0;
	uint64_t a = fk_alloc(f, strlen(s) + 1);
	memcpy(at(f, a), s, strlen(s) + 1);
	return a;
}

static void fk_sym(struct fk *f, const char *name, uint64_t addr)
{
	cr_assert_lt(f->nsym, 64);
	f->sym[f->nsym].name = name;
	f->sym[f->nsym++].addr = addr;
}

/* An exported variable holding V. */
static void fk_var(struct fk *f, const char *name, uint64_t v)
{
	uint64_t a = fk_alloc(f, 8);
	w64(f, a, v);
	fk_sym(f, name, a);
}

static int fk_read(void *arg, uint64_t addr, void *buf, size_t len)
{
	struct fk *f = arg;
	if (addr < MEM || addr + len > MEM + MEM_SIZE || addr + len < addr)
		return -EFAULT;
	if (addr < f->hole_hi && addr + len > f->hole_lo)
		return -EFAULT;
	memcpy(buf, f->mem + (addr - MEM), len);
	return 0;
}

static int fk_lookup(void *arg, const char *name, uint64_t *addr, uint64_t *size)
{
	struct fk *f = arg;
	for (int i = 0; i < f->nsym; i++)
		if (!strcmp(f->sym[i].name, name)) {
			*addr = f->sym[i].addr;
			if (size)
				*size = 8;
			return 0;
		}
	return -ENOENT;
}

static pid_t fk_stack_tid(void *arg, uint64_t addr)
{
	(void)arg, (void)addr;
	return 0;
}

static void fk_env(struct fk *f, struct lt_lm_env *e)
{
	memset(e, 0, sizeof(*e));
	e->arg = f;
	e->read = fk_read;
	e->lookup = fk_lookup;
	e->stack_tid = fk_stack_tid;
	e->s = &f->snap;
}

/* ---- the four tables ---- */

struct tfield {
	const char *type, *name, *tstring;
	int is_static;
	uint64_t value;
};

struct ttype {
	const char *name, *super;
	uint64_t size;
};

struct tconst {
	const char *name;
	int64_t value;
};

/* Entry layouts: stride and the member offsets, in the order the reader
 * names them.  ODD_* are unlike any real JVM's (48/0,8,16,24,32,40). */
struct tlay {
	uint64_t stride;
	uint64_t off[6];
};

static const struct tlay ODD_STRUCT = { 72, { 40, 0, 16, 60, 24, 8 } };
static const struct tlay ODD_TYPE = { 56, { 8, 32, 4, 0, 24, 40 } };
static const struct tlay ODD_CONST = { 24, { 16, 4 } };

static void put_member(struct fk *f, uint64_t e, uint64_t off, int width, uint64_t v)
{
	if (width == 4)
		w32(f, e + off, (uint32_t)v);
	else
		w64(f, e + off, v);
}

static const char *const STRUCT_VARS[6] = {
	"gHotSpotVMStructEntryTypeNameOffset", "gHotSpotVMStructEntryFieldNameOffset",
	"gHotSpotVMStructEntryTypeStringOffset", "gHotSpotVMStructEntryIsStaticOffset",
	"gHotSpotVMStructEntryOffsetOffset", "gHotSpotVMStructEntryAddressOffset",
};
static const char *const TYPE_VARS[6] = {
	"gHotSpotVMTypeEntryTypeNameOffset", "gHotSpotVMTypeEntrySuperclassNameOffset",
	"gHotSpotVMTypeEntryIsOopTypeOffset", "gHotSpotVMTypeEntryIsIntegerTypeOffset",
	"gHotSpotVMTypeEntryIsUnsignedOffset", "gHotSpotVMTypeEntrySizeOffset",
};

/* Fields and types tables; N+1 entries, the last all zero. */
static void put_structs(struct fk *f, const struct tfield *v, size_t n, const struct tlay *l)
{
	uint64_t arr = fk_alloc(f, (n + 1) * l->stride);
	static const int width[6] = { 8, 8, 8, 4, 8, 8 };
	for (size_t i = 0; i < n; i++) {
		uint64_t e = arr + i * l->stride;
		uint64_t m[6] = { fk_str(f, v[i].type), fk_str(f, v[i].name), fk_str(f, v[i].tstring),
				  (uint64_t)v[i].is_static, v[i].is_static ? 0 : v[i].value,
				  v[i].is_static ? v[i].value : 0 };
		for (int k = 0; k < 6; k++)
			put_member(f, e, l->off[k], width[k], m[k]);
	}
	fk_var(f, "gHotSpotVMStructs", arr);
	fk_var(f, "gHotSpotVMStructEntryArrayStride", l->stride);
	for (int k = 0; k < 6; k++)
		fk_var(f, STRUCT_VARS[k], l->off[k]);
}

static void put_types(struct fk *f, const struct ttype *v, size_t n, const struct tlay *l)
{
	uint64_t arr = fk_alloc(f, (n + 1) * l->stride);
	static const int width[6] = { 8, 8, 4, 4, 4, 8 };
	for (size_t i = 0; i < n; i++) {
		uint64_t e = arr + i * l->stride;
		uint64_t m[6] = { fk_str(f, v[i].name), fk_str(f, v[i].super), 0, 1, 0, v[i].size };
		for (int k = 0; k < 6; k++)
			put_member(f, e, l->off[k], width[k], m[k]);
	}
	fk_var(f, "gHotSpotVMTypes", arr);
	fk_var(f, "gHotSpotVMTypeEntryArrayStride", l->stride);
	for (int k = 0; k < 6; k++)
		fk_var(f, TYPE_VARS[k], l->off[k]);
}

static void put_consts(struct fk *f, const struct tconst *v, size_t n, const struct tlay *l, bool is_long)
{
	uint64_t arr = fk_alloc(f, (n + 1) * l->stride);
	for (size_t i = 0; i < n; i++) {
		uint64_t e = arr + i * l->stride;
		w64(f, e + l->off[0], fk_str(f, v[i].name));
		put_member(f, e, l->off[1], is_long ? 8 : 4, (uint64_t)v[i].value);
	}
	fk_var(f, is_long ? "gHotSpotVMLongConstants" : "gHotSpotVMIntConstants", arr);
	fk_var(f, is_long ? "gHotSpotVMLongConstantEntryArrayStride" : "gHotSpotVMIntConstantEntryArrayStride",
	       l->stride);
	fk_var(f, is_long ? "gHotSpotVMLongConstantEntryNameOffset" : "gHotSpotVMIntConstantEntryNameOffset",
	       l->off[0]);
	fk_var(f, is_long ? "gHotSpotVMLongConstantEntryValueOffset" : "gHotSpotVMIntConstantEntryValueOffset",
	       l->off[1]);
}

static bool has_note(const struct lt_strlist *n, const char *needle)
{
	for (size_t i = 0; i < n->n; i++)
		if (strstr(n->v[i], needle))
			return true;
	return false;
}

static void dump_notes(const struct lt_strlist *n)
{
	for (size_t i = 0; i < n->n; i++)
		fprintf(stderr, "note: %s\n", n->v[i]);
}

/* ---- rt_hotspot_tables ---- */

static const struct tfield SMALL_FIELDS[] = {
	{ "Thread", "_osthread", "OSThread*", 0, 0x48 },
	{ "JavaThread", "_threadObj", "OopHandle", 0, 0x280 },
	{ "JavaThread", "_osthread", "OSThread*", 0, 0x230 },
	{ "Universe", "_collectedHeap", "CollectedHeap*", 1, 0x7f0000001234ull },
	{ "ObjectMonitor", "_object", NULL, 0, 8 },
};
static const struct ttype SMALL_TYPES[] = {
	{ "Thread", "ThreadShadow", 0x1c0 },
	{ "JavaThread", "Thread", 0x4d0 },
	{ "CompilerThread", "JavaThread", 0x510 },
	{ "ThreadShadow", NULL, 0x18 },
};
static const struct tconst SMALL_INTS[] = { { "_thread_blocked", 10 }, { "oopSize", 8 }, { "neg", -5 } };
static const struct tconst SMALL_LONGS[] = { { "markWord::monitor_value", 2 },
					     { "big", (int64_t)0x8000000000000001ull } };

#define N(a) (sizeof(a) / sizeof((a)[0]))

static void small_tables(struct fk *f)
{
	fk_init(f);
	put_structs(f, SMALL_FIELDS, N(SMALL_FIELDS), &ODD_STRUCT);
	put_types(f, SMALL_TYPES, N(SMALL_TYPES), &ODD_TYPE);
	put_consts(f, SMALL_INTS, N(SMALL_INTS), &ODD_CONST, false);
	put_consts(f, SMALL_LONGS, N(SMALL_LONGS), &ODD_CONST, true);
}

Test(rt_hotspot_tables, odd_layouts_are_read_from_the_exported_offsets)
{
	struct fk f;
	struct lt_lm_env e;
	struct hs_vm vm;
	struct lt_strlist notes = { 0 };
	small_tables(&f);
	fk_env(&f, &e);
	cr_assert_eq(hs_vm_read(&e, &vm, &notes), 0);
	dump_notes(&notes);
	cr_assert_eq(notes.n, 0);
	cr_assert_eq(vm.n_fields, N(SMALL_FIELDS));
	cr_assert_eq(vm.n_types, N(SMALL_TYPES));
	const struct hs_field *x = hs_vm_field(&vm, "JavaThread", "_osthread");
	cr_assert(x && !x->is_static && x->value == 0x230);
	cr_assert_str_eq(x->tstring, "OSThread*");
	/* a field the class inherits: found in its superclass */
	x = hs_vm_field(&vm, "CompilerThread", "_threadObj");
	cr_assert(x && x->value == 0x280 && !strcmp(x->type, "JavaThread"));
	x = hs_vm_field(&vm, "CompilerThread", "_osthread");
	cr_assert(x && x->value == 0x230, "the nearest declaration wins");
	x = hs_vm_field(&vm, "Universe", "_collectedHeap");
	cr_assert(x && x->is_static && x->value == 0x7f0000001234ull);
	x = hs_vm_field(&vm, "ObjectMonitor", "_object");
	cr_assert(x && !x->tstring && x->value == 8);
	cr_assert_null(hs_vm_field(&vm, "JavaThread", "_nonexistent"));
	cr_assert_null(hs_vm_field(&vm, "NoSuchType", "_osthread"));
	const struct hs_type *t = hs_vm_type(&vm, "JavaThread");
	cr_assert(t && t->size == 0x4d0 && !strcmp(t->super, "Thread") && t->is_int);
	cr_assert_null(hs_vm_type(&vm, "ThreadShadow")->super);
	int64_t v;
	cr_assert(hs_vm_int(&vm, "_thread_blocked", &v) && v == 10);
	cr_assert(hs_vm_int(&vm, "neg", &v) && v == -5, "int constants are signed");
	cr_assert(hs_vm_long(&vm, "big", &v) && (uint64_t)v == 0x8000000000000001ull);
	cr_assert(!hs_vm_int(&vm, "markWord::monitor_value", &v), "the tables are separate");
	hs_vm_free(&vm);
	fk_free(&f);
}

Test(rt_hotspot_tables, no_jvm_is_silent)
{
	struct fk f;
	struct lt_lm_env e;
	struct hs_vm vm;
	struct lt_strlist notes = { 0 };
	fk_init(&f);
	fk_env(&f, &e);
	cr_assert_eq(hs_vm_read(&e, &vm, &notes), -ENOENT);
	cr_assert_eq(notes.n, 0);
	fk_free(&f);
}

Test(rt_hotspot_tables, member_outside_the_stride_is_refused)
{
	struct fk f;
	struct lt_lm_env e;
	struct hs_vm vm;
	struct lt_strlist notes = { 0 };
	small_tables(&f);
	/* the IsStatic member said to lie past the end of an entry */
	for (int i = 0; i < f.nsym; i++)
		if (!strcmp(f.sym[i].name, "gHotSpotVMStructEntryIsStaticOffset"))
			w64(&f, f.sym[i].addr, 70);
	fk_env(&f, &e);
	cr_assert_eq(hs_vm_read(&e, &vm, &notes), -EIO);
	cr_assert(has_note(&notes, "does not fit an entry of 72 bytes"));
	cr_assert_eq(vm.n_fields, 0);
	lt_strlist_free(&notes);
	fk_free(&f);
}

Test(rt_hotspot_tables, unterminated_table_is_refused)
{
	struct fk f;
	struct lt_lm_env e;
	struct hs_vm vm;
	struct lt_strlist notes = { 0 };
	small_tables(&f);
	/* the types table moved to the end of memory, without its last
	 * (all-zero) entry: it runs into unreadable memory */
	uint64_t arr = 0, var = 0;
	for (int i = 0; i < f.nsym; i++)
		if (!strcmp(f.sym[i].name, "gHotSpotVMTypes"))
			var = f.sym[i].addr;
	memcpy(&arr, at(&f, var), 8);
	size_t len = N(SMALL_TYPES) * ODD_TYPE.stride;
	uint64_t moved = MEM + MEM_SIZE - len;
	memcpy(at(&f, moved), at(&f, arr), len);
	w64(&f, var, moved);
	fk_env(&f, &e);
	cr_assert_eq(hs_vm_read(&e, &vm, &notes), -EIO);
	cr_assert(has_note(&notes, "gHotSpotVMTypes entry 4"), "notes: %s", notes.n ? notes.v[0] : "-");
	lt_strlist_free(&notes);
	fk_free(&f);
}

Test(rt_hotspot_tables, unreadable_name_drops_its_entry)
{
	struct fk f;
	struct lt_lm_env e;
	struct hs_vm vm;
	struct lt_strlist notes = { 0 };
	small_tables(&f);
	uint64_t arr = 0;
	for (int i = 0; i < f.nsym; i++)
		if (!strcmp(f.sym[i].name, "gHotSpotVMStructs"))
			memcpy(&arr, at(&f, f.sym[i].addr), 8);
	/* entry 3's field name points nowhere */
	w64(&f, arr + 3 * ODD_STRUCT.stride + ODD_STRUCT.off[1], 0x5000);
	fk_env(&f, &e);
	cr_assert_eq(hs_vm_read(&e, &vm, &notes), 0);
	cr_assert_eq(vm.n_fields, N(SMALL_FIELDS) - 1);
	cr_assert_null(hs_vm_field(&vm, "Universe", "_collectedHeap"));
	cr_assert(has_note(&notes, "1 names in the VMStructs tables were unreadable"));
	hs_vm_free(&vm);
	lt_strlist_free(&notes);
	fk_free(&f);
}

Test(rt_hotspot_tables, uninitialised_tables_are_said)
{
	struct fk f;
	struct lt_lm_env e;
	struct hs_vm vm;
	struct lt_strlist notes = { 0 };
	small_tables(&f);
	for (int i = 0; i < f.nsym; i++)
		if (!strcmp(f.sym[i].name, "gHotSpotVMStructEntryArrayStride"))
			w64(&f, f.sym[i].addr, 0); /* not yet set by the JVM */
	fk_env(&f, &e);
	cr_assert_eq(hs_vm_read(&e, &vm, &notes), -EIO);
	cr_assert(has_note(&notes, "is not a table"));
	lt_strlist_free(&notes);
	fk_free(&f);
}
