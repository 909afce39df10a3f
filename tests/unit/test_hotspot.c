/* HotSpot: the VMStructs table reader (src/snapshot/runtimes/rt_hotspot.c) and the Java
 * model (src/snapshot/runtimes/lock_hotspot.c) on synthetic memory.
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
#include <inttypes.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <time.h>

#include "lockmodel.h"
#include "lt_fakeproc.h"
#include "lt_test.h"
#include "rtthread.h"
#include "snapshot.h"
#include "rt_hotspot.h"
#include "budget.h"
#include "hs_stack.h"

extern const struct lt_lockmodel lt_lm_hotspot;

/* ---- a fake process: one memory image (lt_fakeproc.h), symbols ---- */

#define MEM 0x10000000ull
#define MEM_SIZE (192u << 20) /* room for the hostile JVM's 100,000 threads (zero pages until used) */
#define STACKS 0x7f0000000000ull

struct fk {
	struct fp_image img;
	uint64_t hole_lo, hole_hi; /* reads here fail */
	/* the JVM running on: from the second read covering flip_addr on,
	 * its 8 bytes read as flip_val */
	uint64_t flip_addr, flip_val;
	int flip_reads;
	struct lt_snapshot snap;
	struct lt_thread threads[8];
};

static void fk_init(struct fk *f)
{
	memset(f, 0, sizeof(*f));
	fi_init(&f->img, MEM, MEM_SIZE, 0x1000);
	f->img.sym_size = 8;
}

static void fk_free(struct fk *f)
{
	fi_free(&f->img);
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

/* An exported variable holding V. */
static void fk_var(struct fk *f, const char *name, uint64_t v)
{
	uint64_t a = fi_alloc(&f->img, 8);
	fi_put64(&f->img, a, v);
	fi_sym(&f->img, name, a);
}

static int fk_read(void *arg, uint64_t addr, void *buf, size_t len)
{
	struct fk *f = arg;
	if (addr < f->hole_hi && addr + len > f->hole_lo)
		return -EFAULT;
	int r = fi_read(&f->img, addr, buf, len);
	if (r)
		return r;
	/* any read of the object (at most 1 KiB before the word) that covers
	 * the flipped word: the reader may read a whole object at once */
	if (f->flip_addr && addr <= f->flip_addr && addr + 0x400 > f->flip_addr && addr + len >= f->flip_addr + 8 &&
	    f->flip_reads++ > 0)
		memcpy((uint8_t *)buf + (f->flip_addr - addr), &f->flip_val, 8);
	return 0;
}

static int fk_lookup(void *arg, const char *name, uint64_t *addr, uint64_t *size)
{
	struct fk *f = arg;
	return fi_lookup(&f->img, name, addr, size);
}

static void fk_env(struct fk *f, struct lt_lm_env *e)
{
	*e = (struct lt_lm_env){ .arg = f, .read = fk_read, .lookup = fk_lookup, .stack_tid = fp_no_stack_tid,
				 .s = &f->snap };
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
		fi_put32(&f->img, e + off, (uint32_t)v);
	else
		fi_put64(&f->img, e + off, v);
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
	uint64_t arr = fi_alloc(&f->img, (n + 1) * l->stride);
	static const int width[6] = { 8, 8, 8, 4, 8, 8 };
	for (size_t i = 0; i < n; i++) {
		uint64_t e = arr + i * l->stride;
		uint64_t m[6] = { fi_str(&f->img, v[i].type), fi_str(&f->img, v[i].name), fi_str(&f->img, v[i].tstring),
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
	uint64_t arr = fi_alloc(&f->img, (n + 1) * l->stride);
	static const int width[6] = { 8, 8, 4, 4, 4, 8 };
	for (size_t i = 0; i < n; i++) {
		uint64_t e = arr + i * l->stride;
		uint64_t m[6] = { fi_str(&f->img, v[i].name), fi_str(&f->img, v[i].super), 0, 1, 0, v[i].size };
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
	uint64_t arr = fi_alloc(&f->img, (n + 1) * l->stride);
	for (size_t i = 0; i < n; i++) {
		uint64_t e = arr + i * l->stride;
		fi_put64(&f->img, e + l->off[0], fi_str(&f->img, v[i].name));
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

/* The address of the exported variable NAME. */
static uint64_t sym_addr(struct fk *f, const char *name)
{
	uint64_t a = 0;
	cr_assert_eq(fi_lookup(&f->img, name, &a, NULL), 0, "no symbol %s in the fixture", name);
	return a;
}

/* The tables tests: a process, the tables read from it, the notes. */
struct tabfix {
	struct fk f;
	struct hs_vm vm;
	struct lt_strlist notes;
};

static int read_vm(struct tabfix *t)
{
	struct lt_lm_env e;
	fk_env(&t->f, &e);
	return hs_vm_read(&e, &t->vm, &t->notes);
}

Test(rt_hotspot_tables, odd_layouts_are_read_from_the_exported_offsets)
{
	struct tabfix t = { .notes = { 0 } };
	small_tables(&t.f);
	cr_assert_eq(read_vm(&t), 0);
	dump_notes(&t.notes);
	cr_assert_eq(t.notes.n, 0);
	cr_assert_eq(t.vm.n_fields, N(SMALL_FIELDS));
	cr_assert_eq(t.vm.n_types, N(SMALL_TYPES));
	const struct hs_field *x = hs_vm_field(&t.vm, "JavaThread", "_osthread");
	cr_assert(x && !x->is_static && x->value == 0x230);
	cr_assert_str_eq(x->tstring, "OSThread*");
	/* a field the class inherits: found in its superclass */
	x = hs_vm_field(&t.vm, "CompilerThread", "_threadObj");
	cr_assert(x && x->value == 0x280 && !strcmp(x->type, "JavaThread"));
	x = hs_vm_field(&t.vm, "CompilerThread", "_osthread");
	cr_assert(x && x->value == 0x230, "the nearest declaration wins");
	x = hs_vm_field(&t.vm, "Universe", "_collectedHeap");
	cr_assert(x && x->is_static && x->value == 0x7f0000001234ull);
	x = hs_vm_field(&t.vm, "ObjectMonitor", "_object");
	cr_assert(x && !x->tstring && x->value == 8);
	cr_assert_null(hs_vm_field(&t.vm, "JavaThread", "_nonexistent"));
	cr_assert_null(hs_vm_field(&t.vm, "NoSuchType", "_osthread"));
	const struct hs_type *ty = hs_vm_type(&t.vm, "JavaThread");
	cr_assert(ty && ty->size == 0x4d0 && !strcmp(ty->super, "Thread") && ty->is_int);
	cr_assert_null(hs_vm_type(&t.vm, "ThreadShadow")->super);
	int64_t v;
	cr_assert(hs_vm_int(&t.vm, "_thread_blocked", &v) && v == 10);
	cr_assert(hs_vm_int(&t.vm, "neg", &v) && v == -5, "int constants are signed");
	cr_assert(hs_vm_long(&t.vm, "big", &v) && (uint64_t)v == 0x8000000000000001ull);
	cr_assert(!hs_vm_int(&t.vm, "markWord::monitor_value", &v), "the tables are separate");
	hs_vm_free(&t.vm);
	fk_free(&t.f);
}

Test(rt_hotspot_tables, no_jvm_is_silent)
{
	struct tabfix t = { .notes = { 0 } };
	fk_init(&t.f);
	cr_assert_eq(read_vm(&t), -ENOENT);
	cr_assert_eq(t.notes.n, 0);
	fk_free(&t.f);
}

Test(rt_hotspot_tables, member_outside_the_stride_is_refused)
{
	struct tabfix t = { .notes = { 0 } };
	small_tables(&t.f);
	/* the IsStatic member said to lie past the end of an entry */
	fi_put64(&t.f.img, sym_addr(&t.f, "gHotSpotVMStructEntryIsStaticOffset"), 70);
	cr_assert_eq(read_vm(&t), -EIO);
	cr_assert(tl_strlist_has(&t.notes, "does not fit an entry of 72 bytes"));
	cr_assert_eq(t.vm.n_fields, 0);
	lt_strlist_free(&t.notes);
	fk_free(&t.f);
}

Test(rt_hotspot_tables, unterminated_table_is_refused)
{
	struct tabfix t = { .notes = { 0 } };
	small_tables(&t.f);
	/* the types table moved to the end of memory, without its last
	 * (all-zero) entry: it runs into unreadable memory */
	uint64_t arr = 0, var = 0;
	var = sym_addr(&t.f, "gHotSpotVMTypes");
	arr = fi_get64(&t.f.img, var);
	size_t len = N(SMALL_TYPES) * ODD_TYPE.stride;
	uint64_t moved = MEM + MEM_SIZE - len;
	fi_write(&t.f.img, moved, fi_at(&t.f.img, arr, len), len);
	fi_put64(&t.f.img, var, moved);
	cr_assert_eq(read_vm(&t), -EIO);
	cr_assert(tl_strlist_has(&t.notes, "gHotSpotVMTypes entry 4"), "notes: %s", t.notes.n ? t.notes.v[0] : "-");
	lt_strlist_free(&t.notes);
	fk_free(&t.f);
}

Test(rt_hotspot_tables, unreadable_name_drops_its_entry)
{
	struct tabfix t = { .notes = { 0 } };
	small_tables(&t.f);
	uint64_t arr = 0;
	arr = fi_get64(&t.f.img, sym_addr(&t.f, "gHotSpotVMStructs"));
	/* entry 3's field name points nowhere */
	fi_put64(&t.f.img, arr + 3 * ODD_STRUCT.stride + ODD_STRUCT.off[1], 0x5000);
	cr_assert_eq(read_vm(&t), 0);
	cr_assert_eq(t.vm.n_fields, N(SMALL_FIELDS) - 1);
	cr_assert_null(hs_vm_field(&t.vm, "Universe", "_collectedHeap"));
	cr_assert(tl_strlist_has(&t.notes, "1 names in the VMStructs tables were unreadable"));
	hs_vm_free(&t.vm);
	lt_strlist_free(&t.notes);
	fk_free(&t.f);
}

Test(rt_hotspot_tables, uninitialised_tables_are_said)
{
	struct tabfix t = { .notes = { 0 } };
	small_tables(&t.f);
	fi_put64(&t.f.img, sym_addr(&t.f, "gHotSpotVMStructEntryArrayStride"), 0); /* not yet set by the JVM */
	cr_assert_eq(read_vm(&t), -EIO);
	cr_assert(tl_strlist_has(&t.notes, "is not a table"));
	lt_strlist_free(&t.notes);
	fk_free(&t.f);
}

/* ---- lock_hotspot_fixture: a synthetic JVM ---- */

/* Offsets unlike JDK 17's. */
enum {
	T_OSTHREAD = 0x48, JT_THREADOBJ = 0x300, JT_STATE = 0x310, JT_PENDING = 0x318,
	JT_STACK_BASE = 0x330, JT_STACK_SIZE = 0x338, JT_OWNER_ID = 0x340, JT_LOCK_STACK = 0x380,
	LS_TOP = 0, LS_BASE = 0x10, JT_SIZE = 0x400,
	OS_TID = 0x2c, OS_SIZE = 0x40,
	OM_OBJECT = 0x18, OM_OWNER = 0x50, OM_RECURSIONS = 0x58, OM_CONTENTIONS = 0x70, OM_SIZE = 0xc0,
	K_NAME = 0x20, K_SUPER = 0x80, IK_CONSTANTS = 0xf0, IK_JFC = 0x13a, IK_FIELDS = 0x1d0, IK_SIZE = 0x200,
	CP_SIZE = 0x50, SYM_LENGTH = 4, SYM_BODY = 6, U2_DATA = 4,
	JF_ADDR = 0, JF_NAME = 8, JF_SIZE = 24,
	/* FieldInfo slots, in an order of our own */
	FI_NAME = 0, FI_SIG = 1, FI_ACCESS = 2, FI_INIT = 3, FI_HIGH = 4, FI_LOW = 5, FI_SLOTS = 6,
	ACC_INTERNAL = 0x400, BLOCKED = 10, IN_JAVA = 8, IN_NATIVE = 4,
	/* Java fields */
	THREAD_TID = 0x10, THREAD_NAME = 0x1c, WORKER_JOB = 0x24, THREAD_BLOCKER = 0x18, THREAD_TARGET = 0x20,
	STRING_VALUE = 0xc, STRING_CODER = 0x10, STRING_HASH = 0x14,
};

/* Java frames: offsets of our own, too */
enum {
	JT_ANCHOR = 0x3c0, FA_SP = 0, FA_PC = 8, FA_FP = 0x10,
	M_CONST = 8, M_ACCESS = 0x28, M_SIZE = 0x30,
	CM_CONSTANTS = 8, CM_FLAGS = 0x1c, CM_CODE_SIZE = 0x20, CM_NAME = 0x22, CM_SIG = 0x24, CM_SIZE = 0x30,
	CP_HOLDER = 0x18, CP_SOURCE = 0x36,
	LNT_BIT = 1, LNT_BIT21 = 4,
	CC_SIZE = 0x10000, INTERP = 0x1000, INTERP_SIZE = 0x2000, CALL_STUB = 0x5000,
};

struct jcfg {
	bool owner_ids;    /* JDK 24+: _owner is an owner id; lock stacks  */
	bool field_stream; /* JDK 21+: a FieldInfo stream, not slots       */
	bool no_ff_consts; /* ... without its FieldFlags constants         */
	bool no_pending;   /* the tables lack _current_pending_monitor     */
	int frames_major;  /* describe frames, as JDK N; 0: not            */
};

/* FieldFlags bit positions, unlike JDK 21-25's (0, 1, 2, 4) */
enum { FF_INJECTED = 0, FF_GENERIC = 1, FF_CONTENDED = 2, FF_INIT = 3 };

static void frame_tables(const struct jcfg *c, const uint64_t vars[16], struct tfield *fl, size_t *n);

static void jvm_tables(struct fk *f, const struct jcfg *c, uint64_t vars[16])
{
	struct tfield fl[128];
	size_t n = 0;
#define F(t, nm, ts, st, v) fl[n++] = (struct tfield){ t, nm, ts, st, v }
	F("ThreadsSMRSupport", "_java_thread_list", "ThreadsList*", 1, vars[0]);
	F("ThreadsList", "_length", "const uint", 0, 4);
	F("ThreadsList", "_threads", "JavaThread *const *const", 0, 16);
	F("Thread", "_osthread", "OSThread*", 0, T_OSTHREAD);
	F("JavaThread", "_threadObj", "OopHandle", 0, JT_THREADOBJ);
	F("JavaThread", "_thread_state", "JavaThreadState", 0, JT_STATE);
	if (!c->no_pending)
		F("JavaThread", "_current_pending_monitor", "ObjectMonitor*", 0, JT_PENDING);
	F("JavaThread", "_stack_base", "address", 0, JT_STACK_BASE);
	F("JavaThread", "_stack_size", "size_t", 0, JT_STACK_SIZE);
	F("OSThread", "_thread_id", "pid_t", 0, OS_TID);
	F("OopHandle", "_obj", "oop*", 0, 0);
	F("ObjectMonitor", "_object", NULL, 0, OM_OBJECT);
	F("ObjectMonitor", "_owner", c->owner_ids ? "int64_t" : NULL, 0, OM_OWNER);
	F("ObjectMonitor", "_recursions", "intx", 0, OM_RECURSIONS);
	F("ObjectMonitor", "_contentions", "jint", 0, OM_CONTENTIONS);
	if (c->owner_ids) {
		F("JavaThread", "_monitor_owner_id", "int64_t", 0, JT_OWNER_ID);
		F("JavaThread", "_lock_stack", "LockStack", 0, JT_LOCK_STACK);
		F("LockStack", "_top", "uint32_t", 0, LS_TOP);
		F("LockStack", "_base[0]", "oop", 0, LS_BASE);
	}
	F("JVMFlag", "flags", "JVMFlag*", 1, vars[1]);
	F("JVMFlag", "numFlags", "size_t", 1, vars[2]);
	F("JVMFlag", "_addr", NULL, 0, JF_ADDR);
	F("JVMFlag", "_name", "const char*", 0, JF_NAME);
	F("CompressedOops", "_narrow_oop._base", "address", 1, vars[3]);
	F("CompressedOops", "_narrow_oop._shift", "int", 1, vars[4]);
	F("CompressedKlassPointers", "_narrow_klass._base", "address", 1, vars[5]);
	F("CompressedKlassPointers", "_narrow_klass._shift", "int", 1, vars[6]);
	F("oopDesc", "_metadata._compressed_klass", "narrowKlass", 0, 8);
	F("oopDesc", "_metadata._klass", "Klass*", 0, 8);
	F("Klass", "_name", "Symbol*", 0, K_NAME);
	F("Klass", "_super", "Klass*", 0, K_SUPER);
	F("Symbol", "_length", "u2", 0, SYM_LENGTH);
	F("Symbol", "_body", NULL, 0, SYM_BODY);
	F("InstanceKlass", "_constants", "ConstantPool*", 0, IK_CONSTANTS);
	if (c->field_stream) {
		F("InstanceKlass", "_fieldinfo_stream", "Array<u1>*", 0, IK_FIELDS);
		F("Array<u1>", "_data", NULL, 0, U2_DATA);
	} else {
		F("InstanceKlass", "_java_fields_count", "u2", 0, IK_JFC);
		F("InstanceKlass", "_fields", "Array<u2>*", 0, IK_FIELDS);
		F("Array<u2>", "_data", NULL, 0, U2_DATA);
	}
	F("Abstract_VM_Version", "_s_vm_release", "const char*", 1, vars[7]);
#undef F
	if (c->frames_major)
		frame_tables(c, vars, fl, &n);
	put_structs(f, fl, n, &ODD_STRUCT);
	static const struct ttype types[] = {
		{ "Thread", NULL, 0x200 }, { "JavaThread", "Thread", JT_SIZE }, { "OSThread", NULL, OS_SIZE },
		{ "ObjectMonitor", NULL, OM_SIZE }, { "JVMFlag", NULL, JF_SIZE }, { "ConstantPool", "Metadata", CP_SIZE },
		{ "Klass", "Metadata", 0x100 }, { "InstanceKlass", "Klass", IK_SIZE }, { "Metadata", NULL, 8 },
		{ "HeapBlock", NULL, 16 }, { "ConstMethod", "MetaspaceObj", CM_SIZE },
		{ "nmethod", "CompiledMethod", 0x160 }, { "CompiledMethod", "CodeBlob", 0x100 },
		{ "CodeBlob", NULL, 0x80 },
	};
	put_types(f, types, N(types), &ODD_TYPE);
	const struct tconst ints[] = {
		{ "_thread_blocked", BLOCKED }, { "_thread_in_Java", IN_JAVA },
		{ "FieldInfo::access_flags_offset", FI_ACCESS }, { "FieldInfo::name_index_offset", FI_NAME },
		{ "FieldInfo::signature_index_offset", FI_SIG }, { "FieldInfo::initval_index_offset", FI_INIT },
		{ "FieldInfo::low_packed_offset", FI_LOW }, { "FieldInfo::high_packed_offset", FI_HIGH },
		{ "FieldInfo::field_slots", FI_SLOTS }, { "FIELDINFO_TAG_SIZE", 2 }, { "FIELDINFO_TAG_OFFSET", 1 },
		{ "JVM_ACC_FIELD_INTERNAL", ACC_INTERNAL }, { "_thread_in_native", IN_NATIVE },
	};
	const struct tconst ints21[] = {
		{ "_thread_blocked", BLOCKED }, { "_thread_in_Java", IN_JAVA },
		{ "FieldInfo::FieldFlags::_ff_initialized", FF_INIT },
		{ "FieldInfo::FieldFlags::_ff_injected", FF_INJECTED },
		{ "FieldInfo::FieldFlags::_ff_generic", FF_GENERIC },
		{ "FieldInfo::FieldFlags::_ff_contended", FF_CONTENDED }, { "_thread_in_native", IN_NATIVE },
	};
	struct tconst all[32];
	size_t na = 0;
	const struct tconst *base = c->field_stream ? ints21 : ints;
	size_t nb = c->field_stream ? (c->no_ff_consts ? 2 : N(ints21)) : N(ints);
	for (size_t i = 0; i < nb; i++)
		all[na++] = base[i];
	if (c->frames_major) {
		all[na++] = (struct tconst){ "frame::interpreter_frame_sender_sp_offset", -1 };
		all[na++] = (struct tconst){ "frame::interpreter_frame_last_sp_offset", -2 };
		all[na++] = c->frames_major >= 21
			    ? (struct tconst){ "ConstMethodFlags::_misc_has_linenumber_table", LNT_BIT21 }
			    : (struct tconst){ "ConstMethod::_has_linenumber_table", LNT_BIT };
	}
	put_consts(f, all, na, &ODD_CONST, false);
	const struct tconst longs[] = { { "ObjectMonitor::NO_OWNER", 0 }, { "ObjectMonitor::ANONYMOUS_OWNER", 1 } };
	put_consts(f, longs, c->owner_ids ? N(longs) : 0, &ODD_CONST, true);
}

static uint64_t symbol_new(struct fk *f, const char *s)
{
	uint64_t a = fi_alloc(&f->img, SYM_BODY + strlen(s));
	fi_put16(&f->img, a + SYM_LENGTH, (uint16_t)strlen(s));
	fi_write(&f->img, a + SYM_BODY, s, strlen(s));
	return a;
}

struct jfield {
	const char *name, *sig;
	uint16_t access;
	uint32_t offset;
	bool injected, initialized, generic; /* JDK 21+ FieldFlags */
};

/* FieldInfo slots (JDK <= 20): ACC_INTERNAL marks an injected field. */
static uint64_t field_slots(struct fk *f, const struct jfield *fl, size_t n)
{
	uint64_t arr = fi_alloc(&f->img, U2_DATA + n * FI_SLOTS * 2);
	fi_put32(&f->img, arr, (uint32_t)(n * FI_SLOTS));
	for (size_t i = 0; i < n; i++) {
		uint64_t fi = arr + U2_DATA + i * FI_SLOTS * 2;
		uint32_t packed = fl[i].offset << 2 | 1;
		fi_put16(&f->img, fi + FI_NAME * 2, (uint16_t)(1 + 2 * i));
		fi_put16(&f->img, fi + FI_SIG * 2, (uint16_t)(2 + 2 * i));
		fi_put16(&f->img, fi + FI_ACCESS * 2, (uint16_t)(fl[i].access | (fl[i].injected ? ACC_INTERNAL : 0)));
		fi_put16(&f->img, fi + FI_LOW * 2, (uint16_t)packed);
		fi_put16(&f->img, fi + FI_HIGH * 2, (uint16_t)(packed >> 16));
	}
	return arr;
}

/* UNSIGNED5, as utilities/unsigned5.hpp defines it: 191 one-byte values
 * (bytes 1-191), then high bytes (192-255) carrying 6 bits each. */
static size_t u5_put(uint8_t *b, uint32_t v)
{
	size_t i = 0;
	for (; v >= 191 && i < 4; i++) {
		v -= 191;
		b[i] = (uint8_t)(1 + 191 + v % 64);
		v /= 64;
	}
	b[i] = (uint8_t)(1 + v);
	return i + 1;
}

/* A FieldInfo stream (JDK 21+): java and injected counts, then per field
 * name sig offset access flags [initval] [generic sig]. */
static uint64_t field_stream(struct fk *f, const struct jfield *fl, size_t n)
{
	uint8_t b[1024];
	size_t len = 0, java = 0;
	for (size_t i = 0; i < n; i++)
		java += !fl[i].injected;
	len += u5_put(b + len, (uint32_t)java);
	len += u5_put(b + len, (uint32_t)(n - java));
	for (size_t i = 0; i < n; i++) {
		uint32_t flags = (uint32_t)fl[i].injected << FF_INJECTED | (uint32_t)fl[i].initialized << FF_INIT |
				 (uint32_t)fl[i].generic << FF_GENERIC;
		uint32_t v[5] = { (uint32_t)(1 + 2 * i), (uint32_t)(2 + 2 * i), fl[i].offset, fl[i].access, flags };
		for (int k = 0; k < 5; k++)
			len += u5_put(b + len, v[k]);
		if (fl[i].initialized)
			len += u5_put(b + len, 300); /* a two-byte value */
		if (fl[i].generic)
			len += u5_put(b + len, 70000); /* three bytes */
	}
	b[len++] = 0;
	uint64_t arr = fi_alloc(&f->img, U2_DATA + len);
	fi_put32(&f->img, arr, (uint32_t)len);
	fi_write(&f->img, arr + U2_DATA, b, len);
	return arr;
}

static bool g_stream; /* build JDK 21+ classes */

/* An InstanceKlass with its constant pool (two symbols per field) and its
 * field table. */
static uint64_t klass_new(struct fk *f, const char *name, uint64_t super, const struct jfield *fl, size_t n)
{
	uint64_t k = fi_alloc(&f->img, IK_SIZE);
	fi_put64(&f->img, k + K_NAME, symbol_new(f, name));
	fi_put64(&f->img, k + K_SUPER, super);
	uint64_t cp = fi_alloc(&f->img, CP_SIZE + (1 + 2 * n) * 8);
	for (size_t i = 0; i < n; i++) {
		fi_put64(&f->img, cp + CP_SIZE + (1 + 2 * i) * 8, symbol_new(f, fl[i].name));
		fi_put64(&f->img, cp + CP_SIZE + (2 + 2 * i) * 8, symbol_new(f, fl[i].sig));
	}
	fi_put64(&f->img, k + IK_CONSTANTS, cp);
	fi_put64(&f->img, k + IK_FIELDS, g_stream ? field_stream(f, fl, n) : field_slots(f, fl, n));
	size_t java = 0;
	for (size_t i = 0; i < n; i++)
		java += !fl[i].injected;
	fi_put16(&f->img, k + IK_JFC, (uint16_t)java);
	return k;
}

/* Compressed class pointers: base MEM, shift 0; compressed oops: base 0,
 * shift 3. */
static uint64_t object_new(struct fk *f, uint64_t klass, size_t size)
{
	uint64_t o = fi_alloc(&f->img, size);
	fi_put64(&f->img, o, 1);
	fi_put32(&f->img, o + 8, (uint32_t)(klass - MEM));
	return o;
}

static uint32_t narrow(uint64_t oop)
{
	return (uint32_t)(oop >> 3);
}

struct jvm_img {
	uint64_t thread_k, worker_k, string_k, lock_a_k, lock_b_k;
	uint64_t list_var;
	uint64_t jt[4];
	size_t njt;
};

static uint64_t string_new(struct fk *f, struct jvm_img *j, const char *s, bool utf16)
{
	size_t n = strlen(s);
	uint8_t bytes[128];
	size_t nb = 0;
	if (!utf16) {
		memcpy(bytes, s, n);
		nb = n;
	} else { /* the test's strings are Latin-1 in UTF-8 */
		for (size_t i = 0; i < n; i++) {
			unsigned c = (unsigned char)s[i];
			if (c == 0xc3)
				c = 0xc0 | ((unsigned char)s[++i] & 0x3f);
			bytes[nb++] = (uint8_t)c;
			bytes[nb++] = 0;
		}
	}
	uint64_t arr = fi_alloc(&f->img, 16 + nb);
	fi_put32(&f->img, arr + 8, 0);
	fi_put32(&f->img, arr + 12, (uint32_t)nb);
	fi_write(&f->img, arr + 16, bytes, nb);
	uint64_t str = object_new(f, j->string_k, 0x18);
	fi_put32(&f->img, str + STRING_VALUE, narrow(arr));
	fi_put8(&f->img, str + STRING_CODER, utf16);
	return str;
}

static void classes(struct fk *f, struct jvm_img *j)
{
	/* injected fields come last in both formats */
	static const struct jfield thread_f[] = {
		{ "threadSeqNumber", "J", 0x8 | 0x2, 0x70, false, true, false }, /* static */
		{ "tid", "J", 0x2, THREAD_TID, false, false, false },
		{ "name", "Ljava/lang/String;", 0x42, THREAD_NAME, false, false, false },
		{ "parkBlocker", "Ljava/lang/Object;", 0x42, THREAD_BLOCKER, false, false, false },
		{ "target", "Ljava/lang/Runnable;", 0x2, THREAD_TARGET, false, false, false },
		{ "eetop", "J", 0x2, 0x30, true, false, false },
	};
	static const struct jfield worker_f[] = {
		{ "job", "Ljava/lang/Object;", 0x2, WORKER_JOB, false, false, true },
		{ "name", "Ljava/lang/String;", 0x2, 0x28, true, false, false }, /* injected: not Thread.name */
	};
	static const struct jfield string_f[] = {
		{ "hash", "I", 0x2, STRING_HASH, false, false, false },
		{ "value", "[B", 0x12, STRING_VALUE, false, false, false },
		{ "coder", "B", 0x12, STRING_CODER, false, false, false },
	};
	j->thread_k = klass_new(f, "java/lang/Thread", 0, thread_f, N(thread_f));
	j->worker_k = klass_new(f, "Worker", j->thread_k, worker_f, N(worker_f));
	j->string_k = klass_new(f, "java/lang/String", 0, string_f, N(string_f));
	j->lock_a_k = klass_new(f, "LockA", 0, NULL, 0);
	j->lock_b_k = klass_new(f, "app/LockB", 0, NULL, 0);
}

static void flags(struct fk *f, uint64_t vars[16])
{
	uint64_t arr = fi_alloc(&f->img, 3 * JF_SIZE);
	const char *names[3] = { "UseLargePages", "UseCompressedClassPointers", "UseCompressedOops" };
	for (int i = 0; i < 3; i++) {
		uint64_t val = fi_alloc(&f->img, 8);
		fi_put8(&f->img, val, i > 0);
		fi_put64(&f->img, arr + i * JF_SIZE + JF_ADDR, val);
		fi_put64(&f->img, arr + i * JF_SIZE + JF_NAME, fi_str(&f->img, names[i]));
	}
	fi_put64(&f->img, vars[1], arr);
	fi_put64(&f->img, vars[2], 3);
	fi_put64(&f->img, vars[3], 0);
	fi_put32(&f->img, vars[4], 3);
	fi_put64(&f->img, vars[5], MEM);
	fi_put32(&f->img, vars[6], 0);
	fi_put64(&f->img, vars[7], fi_str(&f->img, "17.0.99+1-fixture"));
}

static uint64_t java_thread(struct fk *f, struct jvm_img *j, pid_t tid, uint64_t klass, const char *name,
			    bool utf16)
{
	uint64_t jt = fi_alloc(&f->img, JT_SIZE), os = fi_alloc(&f->img, OS_SIZE), slot = fi_alloc(&f->img, 8);
	fi_put64(&f->img, jt + T_OSTHREAD, os);
	fi_put32(&f->img, os + OS_TID, (uint32_t)tid);
	uint64_t obj = object_new(f, klass, 0x30);
	fi_put32(&f->img, obj + THREAD_NAME, narrow(string_new(f, j, name, utf16)));
	fi_put64(&f->img, obj + THREAD_TID, (uint64_t)tid + 1000);
	fi_put64(&f->img, slot, obj);
	fi_put64(&f->img, jt + JT_THREADOBJ, slot);
	fi_put32(&f->img, jt + JT_STATE, IN_JAVA);
	fi_put64(&f->img, jt + JT_STACK_BASE, STACKS + (uint64_t)tid * 0x100000);
	fi_put64(&f->img, jt + JT_STACK_SIZE, 0x80000);
	fi_put64(&f->img, jt + JT_OWNER_ID, (uint64_t)tid + 1000);
	fi_put32(&f->img, jt + JT_LOCK_STACK + LS_TOP, JT_LOCK_STACK + LS_BASE);
	j->jt[j->njt++] = jt;
	return jt;
}

static uint64_t monitor_new(struct fk *f, uint64_t obj, uint64_t owner)
{
	uint64_t om = fi_alloc(&f->img, OM_SIZE), slot = fi_alloc(&f->img, 8);
	fi_put64(&f->img, slot, obj);
	fi_put64(&f->img, om + OM_OBJECT, slot);
	fi_put64(&f->img, om + OM_OWNER, owner);
	fi_put32(&f->img, om + OM_CONTENTIONS, 1);
	return om;
}

static void blocked_on(struct fk *f, uint64_t jt, uint64_t om)
{
	fi_put64(&f->img, jt + JT_PENDING, om);
	fi_put32(&f->img, jt + JT_STATE, BLOCKED);
}

static void push_lock_stack(struct fk *f, uint64_t jt, uint64_t obj)
{
	uint32_t top;
	memcpy(&top, fi_at(&f->img, jt + JT_LOCK_STACK + LS_TOP, 4), 4);
	fi_put64(&f->img, jt + top, obj);
	fi_put32(&f->img, jt + JT_LOCK_STACK + LS_TOP, top + 8);
}

/* Snapshot threads: 100 (not a Java thread) and 101-103; 101 and 102
 * asleep in futex waits on words of their own. */
static void snap_threads(struct fk *f)
{
	static const char *const comm[4] = { "java", "worker-AB-holds", "w\xc3\xb6rker-BA-h\xc3\xb6", "main" };
	for (int i = 0; i < 4; i++) {
		struct lt_thread *t = &f->threads[i];
		t->tid = 100 + i;
		snprintf(t->comm, sizeof(t->comm), "%s", comm[i]);
		t->state = 'S';
		t->idle_s = 5;
		t->idle_src = LT_IDLE_SCHED_EXEC_START;
		t->fdw.epfd = t->fdw.io.fd = -1;
		t->sc.state = LT_SC_IN_SYSCALL;
		t->sc.nr = i == 1 || i == 2 ? 202 : 0;
		t->sc_name = i == 1 || i == 2 ? "futex" : "read";
		t->wait = i == 1 || i == 2 ? LT_WAIT_FUTEX : LT_WAIT_IO;
		if (t->wait == LT_WAIT_FUTEX) {
			t->sc.args[0] = fi_alloc(&f->img, 8);
			t->sc.args[1] = 0x89;
			lt_futex_decode_args(&t->futex, t->sc.args);
			t->futex.word_ok = true;
		}
	}
	f->snap.pid = 100;
	f->snap.threads = f->threads;
	f->snap.n_threads = 4;
}

/* ---- Java frames ---- */

static void frame_tables(const struct jcfg *c, const uint64_t vars[16], struct tfield *fl, size_t *n)
{
#define F(t, nm, ts, st, v) fl[(*n)++] = (struct tfield){ t, nm, ts, st, v }
	F("JavaThread", "_anchor", "JavaFrameAnchor", 0, JT_ANCHOR);
	F("JavaFrameAnchor", "_last_Java_sp", "intptr_t*", 0, FA_SP);
	F("JavaFrameAnchor", "_last_Java_pc", "address", 0, FA_PC);
	F("JavaFrameAnchor", "_last_Java_fp", "intptr_t*", 0, FA_FP);
	F("CodeCache", "_low_bound", "address", 1, vars[8]);
	F("CodeCache", "_high_bound", "address", 1, vars[9]);
	F("CodeCache", "_heaps", "GrowableArray<CodeHeap*>*", 1, vars[10]);
	F("GrowableArrayBase", "_len", "int", 0, 0);
	F("GrowableArray<int>", "_data", "int*", 0, 8);
	F("CodeHeap", "_memory", "VirtualSpace", 0, 8);
	F("CodeHeap", "_segmap", "VirtualSpace", 0, 0x80);
	F("CodeHeap", "_log2_segment_size", "int", 0, 0x100);
	F("VirtualSpace", "_low", "char*", 0, 0x10);
	F("VirtualSpace", "_high", "char*", 0, 0x18);
	F("HeapBlock::Header", "_used", "bool", 0, 8);
	F("CodeBlob", "_name", "const char*", 0, 0x60);
	F("CodeBlob", "_frame_size", "int", 0, 0x1c);
	F("CompiledMethod", "_method", "Method*", 0, 0x70);
	F("StubRoutines", "_call_stub_return_address", "address", 1, vars[11]);
	F("AbstractInterpreter", "_code", "StubQueue*", 1, vars[12]);
	F("StubQueue", "_stub_buffer", "address", 0, 8);
	F("StubQueue", "_buffer_limit", "int", 0, 0x14);
	F("Method", "_constMethod", "ConstMethod*", 0, M_CONST);
	F("Method", "_access_flags", "AccessFlags", 0, M_ACCESS);
	F("ConstMethod", "_constants", "ConstantPool*", 0, CM_CONSTANTS);
	F("ConstMethod", c->frames_major >= 21 ? "_flags._flags" : "_flags", c->frames_major >= 21 ? "u4" : "u2", 0,
	  CM_FLAGS);
	F("ConstMethod", "_code_size", "u2", 0, CM_CODE_SIZE);
	F("ConstMethod", "_name_index", "u2", 0, CM_NAME);
	F("ConstMethod", "_signature_index", "u2", 0, CM_SIG);
	F("ConstantPool", "_pool_holder", "InstanceKlass*", 0, CP_HOLDER);
	F("ConstantPool", "_source_file_name_index", "u2", 0, CP_SOURCE);
	F("Abstract_VM_Version", "_vm_major_version", "int", 1, vars[13]);
#undef F
}

/* CompressedStream integers: JDK <= 19's coding (no excluded byte, 192
 * low codes), or UNSIGNED5 (JDK 20+). */
static size_t cs_put(uint8_t *b, uint32_t v, bool u5)
{
	if (u5)
		return u5_put(b, v);
	size_t i = 0;
	for (; v >= 192 && i < 4; i++) {
		v -= 192;
		b[i] = (uint8_t)(192 + v % 64);
		v /= 64;
	}
	b[i] = (uint8_t)v;
	return i + 1;
}

static size_t cs_signed(uint8_t *b, int32_t v, bool u5)
{
	return cs_put(b, (uint32_t)v << 1 ^ (uint32_t)(v >> 31), u5);
}

/* A method of class K (constant pool CP), NAME and SIG its CP indexes. */
static uint64_t method_new(struct fk *f, const struct jcfg *c, uint64_t cp, uint16_t name, uint16_t sig,
			   uint16_t access, uint16_t code_size, bool table)
{
	bool u5 = c->frames_major >= 20;
	uint64_t m = fi_alloc(&f->img, M_SIZE), cm = fi_alloc(&f->img, CM_SIZE + code_size + 32);
	fi_put64(&f->img, m + M_CONST, cm);
	fi_put16(&f->img, m + M_ACCESS, access);
	fi_put64(&f->img, cm + CM_CONSTANTS, cp);
	if (c->frames_major >= 21)
		fi_put32(&f->img, cm + CM_FLAGS, table ? LNT_BIT21 | 0x100 : 0x100);
	else
		fi_put16(&f->img, cm + CM_FLAGS, table ? LNT_BIT | 0x200 : 0x200);
	fi_put16(&f->img, cm + CM_CODE_SIZE, code_size);
	fi_put16(&f->img, cm + CM_NAME, name);
	fi_put16(&f->img, cm + CM_SIG, sig);
	if (!table)
		return m;
	/* (bci 0, line 10): an escape; (5, 11): one byte; (25, 311): an
	 * escape with a line delta of several bytes */
	uint8_t b[32];
	size_t n = 0;
	b[n++] = 0xff;
	n += cs_signed(b + n, 0, u5);
	n += cs_signed(b + n, 10, u5);
	b[n++] = 5 << 3 | 1;
	b[n++] = 0xff;
	n += cs_signed(b + n, 20, u5);
	n += cs_signed(b + n, 300, u5);
	b[n++] = 0;
	fi_write(&f->img, cm + CM_SIZE + code_size, b, n);
	return m;
}

struct frames_img {
	uint64_t main_k, run, sleep, cc;
};

static struct frames_img g_frames;

/* Thread 101's last Java frames: app.Main.run (interpreted, bci 30) called
 * by app.Main.sleep (native), called from the call stub; its native stack
 * from the unwinder: a libc frame, two `??` in the interpreter, and
 * JavaCalls::call_helper. */
static void java_frames(struct fk *f, const struct jcfg *c, struct jvm_img *j, const uint64_t vars[16])
{
	struct frames_img *g = &g_frames;
	static const struct jfield names[] = {
		{ "run", "()V", 0x2, 0x30, false, false, false }, { "sleep", "(J)V", 0x2, 0x38, false, false, false },
		{ "Main.java", "x", 0x2, 0x40, false, false, false },
	};
	g->main_k = klass_new(f, "app/Main", 0, names, N(names));
	uint64_t cp;
	cp = fi_get64(&f->img, g->main_k + IK_CONSTANTS);
	fi_put64(&f->img, cp + CP_HOLDER, g->main_k);
	fi_put16(&f->img, cp + CP_SOURCE, 5);
	g->run = method_new(f, c, cp, 1, 2, 0x1, 40, true);
	g->sleep = method_new(f, c, cp, 3, 4, 0x100 | 0x9, 0, false);
	g->cc = fi_alloc(&f->img, CC_SIZE);
	uint64_t heaps = fi_alloc(&f->img, 16), sq = fi_alloc(&f->img, 0x20);
	fi_put64(&f->img, heaps + 8, fi_alloc(&f->img, 8)); /* no code heap: only interpreted frames */
	fi_put64(&f->img, sq + 8, g->cc + INTERP);
	fi_put32(&f->img, sq + 0x14, INTERP_SIZE);
	fi_put64(&f->img, vars[8], g->cc);
	fi_put64(&f->img, vars[9], g->cc + CC_SIZE);
	fi_put64(&f->img, vars[10], heaps);
	fi_put64(&f->img, vars[11], g->cc + CALL_STUB);
	fi_put64(&f->img, vars[12], sq);
	fi_put32(&f->img, vars[13], (uint32_t)c->frames_major);
	uint64_t jt = j->jt[0], stk = fi_alloc(&f->img, 0x2000);
	uint64_t fp0 = stk + 0x1000, fp1 = stk + 0x1400;
	fi_put64(&f->img, jt + JT_STACK_BASE, stk + 0x2000);
	fi_put64(&f->img, jt + JT_STACK_SIZE, 0x2000);
	fi_put64(&f->img, jt + JT_ANCHOR + FA_SP, fp0 - 0x60);
	fi_put64(&f->img, jt + JT_ANCHOR + FA_FP, fp0);
	fi_put64(&f->img, jt + JT_ANCHOR + FA_PC, g->cc + INTERP + 0x100);
	uint64_t cm_run;
	cm_run = fi_get64(&f->img, g->run + M_CONST);
	fi_put64(&f->img, fp0 - 24, g->run);
	fi_put64(&f->img, fp0 - 64, cm_run + CM_SIZE + 30);
	fi_put64(&f->img, fp0 - 8, fp0 + 16);
	fi_put64(&f->img, fp0 + 8, g->cc + INTERP + 0x200);
	fi_put64(&f->img, fp0, fp1);
	fi_put64(&f->img, fp1 - 24, g->sleep);
	fi_put64(&f->img, fp1 - 8, fp1 + 16);
	fi_put64(&f->img, fp1 + 8, g->cc + CALL_STUB);
	struct lt_thread *t = &f->threads[1];
	static const uint64_t pcs[4] = { 0x7f0000001000, 0, 0, 0x7f0000002000 };
	t->frames = calloc(4, sizeof(*t->frames));
	t->n_frames = 4;
	for (int i = 0; i < 4; i++)
		t->frames[i].pc = pcs[i] ? pcs[i] : g->cc + INTERP + 0x100 * (uint64_t)i;
	t->frames[0].func = strdup("__futex_abstimed_wait_common");
	t->frames[3].func = strdup("JavaCalls::call_helper");
}

/* The JVM: threads 101 "worker-AB-holds-LockA" (a Thread), 102 (a UTF-16
 * name), 103 "main" (a Worker, a subclass); 101 holds LockA and waits for
 * app.LockB, 102 the other way round. */
static void jvm_image(struct fk *f, const struct jcfg *c, struct jvm_img *j)
{
	uint64_t vars[16];
	fk_init(f);
	memset(j, 0, sizeof(*j));
	g_stream = c->field_stream;
	for (int i = 0; i < 16; i++)
		vars[i] = fi_alloc(&f->img, 8);
	jvm_tables(f, c, vars);
	classes(f, j);
	flags(f, vars);
	uint64_t a = java_thread(f, j, 101, j->thread_k, "worker-AB-holds-LockA", false);
	uint64_t b = java_thread(f, j, 102, j->thread_k, "w\xc3\xb6rker-BA-h\xc3\xb6lds-LockB", true);
	java_thread(f, j, 103, j->worker_k, "main", false);
	uint64_t lock_a = object_new(f, j->lock_a_k, 0x10), lock_b = object_new(f, j->lock_b_k, 0x10);
	uint64_t ma, mb;
	if (c->owner_ids) {
		ma = monitor_new(f, lock_a, 101 + 1000);
		mb = monitor_new(f, lock_b, 1); /* anonymous: on 102's lock stack */
		push_lock_stack(f, b, lock_b);
	} else {
		ma = monitor_new(f, lock_a, a);
		mb = monitor_new(f, lock_b, STACKS + 102 * 0x100000 - 0x2000); /* a BasicLock in 102's stack */
	}
	blocked_on(f, a, mb);
	blocked_on(f, b, ma);
	uint64_t list = fi_alloc(&f->img, 0x20), arr = fi_alloc(&f->img, 8 * j->njt);
	for (size_t i = 0; i < j->njt; i++)
		fi_put64(&f->img, arr + 8 * i, j->jt[i]);
	fi_put32(&f->img, list + 4, (uint32_t)j->njt);
	fi_put64(&f->img, list + 16, arr);
	fi_put64(&f->img, vars[0], list);
	snap_threads(f);
	if (c->frames_major)
		java_frames(f, c, j, vars);
}

static void apply(struct fk *f)
{
	struct lt_lm_env e;
	fk_env(f, &e);
	lt_lockmodels_apply(&f->snap, &e);
	lt_snapshot_diagnose(&f->snap, NULL);
	dump_notes(&f->snap.notes);
}

static const struct lt_rtlock *lock_named(const struct lt_snapshot *s, const char *prefix)
{
	for (size_t i = 0; i < s->n_rtlocks; i++)
		if (!strncmp(s->rtlocks[i].name, prefix, strlen(prefix)))
			return &s->rtlocks[i];
	return NULL;
}

/* The deadlock both variants must produce. */
static void check_deadlock(struct fk *f)
{
	const struct lt_snapshot *s = &f->snap;
	cr_assert_str_eq(f->threads[1].rt_name, "worker-AB-holds-LockA");
	cr_assert_str_eq(f->threads[2].rt_name, "w\xc3\xb6rker-BA-h\xc3\xb6lds-LockB");
	cr_assert_str_eq(f->threads[3].rt_name, "main", "a subclass's name: a field of its superclass");
	cr_assert_null(f->threads[0].rt_name, "not a Java thread");
	cr_assert_null(f->threads[0].rt_lang, "not a Java thread");
	for (int i = 1; i <= 3; i++)
		cr_assert_str_eq(f->threads[i].rt_lang ? f->threads[i].rt_lang : "(none)", "java");
	cr_assert_eq(s->n_rtlocks, 2);
	const struct lt_rtlock *la = lock_named(s, "LockA@0x"), *lb = lock_named(s, "app.LockB@0x");
	cr_assert(la && lb, "monitors: %s, %s", s->rtlocks[0].name, s->rtlocks[1].name);
	cr_assert_str_eq(la->kind, "Java monitor");
	cr_assert_str_eq(la->version, "HotSpot 17.0.99+1-fixture");
	cr_assert_eq(la->held, 1);
	cr_assert_eq(la->holder, 101, "%s", la->holder_how);
	cr_assert_eq(lb->holder, 102, "%s", lb->holder_how);
	cr_assert_eq(f->threads[1].futex.owner_kind, LT_OWNER_RUNTIME);
	cr_assert_eq(f->threads[1].futex.owner, 102);
	cr_assert_eq(f->threads[2].futex.owner, 101);
	cr_assert_eq(s->n_verdicts, 1, "%s", s->verdicts[0].summary);
	const struct lt_verdict *v = &s->verdicts[0];
	cr_assert_eq(v->kind, LT_VERDICT_DEADLOCK, "%s", v->summary);
	cr_assert_eq(v->n_tids, 2);
	cr_assert((v->tids[0] == 101 && v->tids[1] == 102) || (v->tids[0] == 102 && v->tids[1] == 101));
	cr_assert_not_null(strstr(v->summary, "101 (worker-AB-holds-LockA)"), "%s", v->summary);
	cr_assert_not_null(strstr(v->summary, "102 (w\xc3\xb6rker-BA-h\xc3\xb6lds-LockB)"), "%s", v->summary);
	cr_assert(tl_strlist_has(&v->evidence, "thread 101 (worker-AB-holds-LockA) waits for the Java monitor (app.LockB@0x"));
	cr_assert(tl_strlist_has(&v->evidence, "waits for the Java monitor (LockA@0x"));
}

/* jvm_image, then the models and the verdicts applied to it. */
static void jvm_applied(struct fk *f, struct jvm_img *j, const struct jcfg *c)
{
	jvm_image(f, c, j);
	apply(f);
}

Test(lock_hotspot_fixture, jdk17_layout_deadlock_with_names_and_classes)
{
	struct fk f;
	struct jvm_img j;
	jvm_applied(&f, &j, &(struct jcfg){ 0 });
	check_deadlock(&f);
	const struct lt_rtlock *la = lock_named(&f.snap, "LockA@"), *lb = lock_named(&f.snap, "app.LockB@");
	cr_assert_not_null(strstr(la->holder_how, "is JavaThread 0x"), "%s", la->holder_how);
	cr_assert_not_null(strstr(lb->holder_how, "is a BasicLock in the stack of thread 102"), "%s",
			   lb->holder_how);
	cr_assert(tl_strlist_has(&f.snap.verdicts[0].evidence, "BasicLock in the stack of thread 102"));
	fk_free(&f);
}

/* The Java view of a thread is the runtime view every runtime fills
 * (rt_lang, rt_name): the runtime thread models, run after the lock
 * models, leave it alone, and it prints as a Python thread's does. */
Test(lock_hotspot_fixture, java_threads_are_runtime_threads_in_text_and_json)
{
	struct fk f;
	struct jvm_img j;
	jvm_image(&f, &(struct jcfg){ 0 }, &j);
	struct lt_lm_env e;
	fk_env(&f, &e);
	lt_lockmodels_apply(&f.snap, &e);
	lt_rtthreads_apply(&f.snap, &e);
	lt_snapshot_diagnose(&f.snap, NULL);
	check_deadlock(&f);
	size_t len;
	char *buf = TL_PRINTED(&len, lt_snapshot_print_text, &f.snap);
	cr_assert_not_null(strstr(buf, ") java thread \"worker-AB-holds-LockA\" state "), "%s", buf);
	free(buf);
	cr_assert_eq(lt_snapshot_to_json_buf(&f.snap, &buf, &len), 0);
	cr_assert_not_null(strstr(buf, "\"runtime\":{\"lang\":\"java\",\"name\":\"worker-AB-holds-LockA\","), "%s",
			   buf);
	cr_assert_null(strstr(buf, "\"rt_name\""), "one place for the runtime's name: runtime.name");
	free(buf);
	fk_free(&f);
}

Test(lock_hotspot_fixture, owner_ids_and_lock_stacks)
{
	struct fk f;
	struct jvm_img j;
	jvm_applied(&f, &j, &(struct jcfg){ .owner_ids = true });
	check_deadlock(&f);
	const struct lt_rtlock *la = lock_named(&f.snap, "LockA@"), *lb = lock_named(&f.snap, "app.LockB@");
	cr_assert_not_null(strstr(la->holder_how, "is the _monitor_owner_id of thread 101"), "%s",
			   la->holder_how);
	cr_assert_not_null(strstr(lb->holder_how, "ANONYMOUS_OWNER and the object is on the lock stack of "
						  "thread 102"), "%s", lb->holder_how);
	fk_free(&f);
}

Test(lock_hotspot_fixture, jdk21_field_stream_names)
{
	struct fk f;
	struct jvm_img j;
	jvm_applied(&f, &j, &(struct jcfg){ .field_stream = true });
	check_deadlock(&f);
	fk_free(&f);
}

Test(lock_hotspot_fixture, field_stream_without_its_flags_keeps_monitors)
{
	struct fk f;
	struct jvm_img j;
	jvm_applied(&f, &j, &(struct jcfg){ .field_stream = true, .no_ff_consts = true });
	cr_assert(tl_strlist_has(&f.snap.notes, "Java thread names not read: the JVM's tables do not describe its "
					  "Java field layout"));
	for (int i = 0; i < 4; i++)
		cr_assert_null(f.threads[i].rt_name);
	/* the monitors' classes are the classes' own names: still read */
	cr_assert_not_null(lock_named(&f.snap, "LockA@0x"));
	cr_assert_eq(f.snap.verdicts[0].kind, LT_VERDICT_DEADLOCK);
	cr_assert_not_null(strstr(f.snap.verdicts[0].summary, "101 (worker-AB-holds)"), "comm, then");
	fk_free(&f);
}

Test(lock_hotspot_fixture, missing_field_is_said_and_nothing_claimed)
{
	struct fk f;
	struct jvm_img j;
	jvm_applied(&f, &j, &(struct jcfg){ .no_pending = true });
	cr_assert(tl_strlist_has(&f.snap.notes, "hotspot: HotSpot 17.0.99+1-fixture: Java threads not read: no "
					  "JavaThread::_current_pending_monitor in the JVM's tables"));
	cr_assert_eq(f.snap.n_rtlocks, 0);
	cr_assert_neq(f.threads[1].futex.owner_kind, LT_OWNER_RUNTIME);
	cr_assert_neq(f.snap.verdicts[0].kind, LT_VERDICT_DEADLOCK);
	fk_free(&f);
}

Test(lock_hotspot_fixture, free_monitor_and_running_contender)
{
	struct fk f;
	struct jvm_img j;
	jvm_image(&f, &(struct jcfg){ 0 }, &j);
	/* LockA's monitor released; 102 (its waiter) is claimed without an
	 * owner.  101 spins in Java: its pending monitor is no wait. */
	uint64_t ma = fi_get64(&f.img, j.jt[1] + JT_PENDING);
	fi_put64(&f.img, ma + OM_OWNER, 0);
	fi_put32(&f.img, j.jt[0] + JT_STATE, IN_JAVA);
	apply(&f);
	cr_assert_eq(f.snap.n_rtlocks, 1);
	const struct lt_rtlock *la = lock_named(&f.snap, "LockA@");
	cr_assert(la && la->held == 0, "%s", la ? la->holder_how : "no LockA");
	cr_assert_eq(f.threads[2].futex.rtlock, 1);
	cr_assert_neq(f.threads[2].futex.owner_kind, LT_OWNER_RUNTIME);
	cr_assert_eq(f.threads[1].futex.rtlock, 0);
	cr_assert_neq(f.snap.verdicts[0].kind, LT_VERDICT_DEADLOCK);
	fk_free(&f);
}

Test(lock_hotspot_fixture, unreadable_heap_keeps_threads_and_owners)
{
	struct fk f;
	struct jvm_img j;
	jvm_image(&f, &(struct jcfg){ 0 }, &j);
	/* the String class unreadable: no names, but owners and the cycle
	 * come from the JVM's own structures */
	f.hole_lo = j.string_k;
	f.hole_hi = j.string_k + IK_SIZE;
	apply(&f);
	cr_assert(tl_strlist_has(&f.snap.notes, "3 of 3 Java thread names were unreadable"));
	cr_assert_null(f.threads[1].rt_name);
	cr_assert_eq(f.snap.verdicts[0].kind, LT_VERDICT_DEADLOCK);
	fk_free(&f);
}

Test(lock_hotspot_fixture, a_waiter_that_woke_still_waits_if_the_jvm_says_so)
{
	struct fk f;
	struct jvm_img j;
	jvm_image(&f, &(struct jcfg){ 0 }, &j);
	/* HotSpot's "responsible" waiter re-parks every second: the snapshot
	 * saw it move, the JVM says it still waits */
	f.threads[1].moved = true;
	apply(&f);
	check_deadlock(&f);
	fk_free(&f);
}

Test(lock_hotspot_fixture, a_thread_leaving_its_wait_is_not_claimed)
{
	struct fk f;
	struct jvm_img j;
	jvm_image(&f, &(struct jcfg){ 0 }, &j);
	f.flip_addr = j.jt[0] + JT_PENDING; /* 101 got its monitor meanwhile */
	f.flip_val = 0;
	apply(&f);
	cr_assert(tl_strlist_has(&f.snap.notes, "1 thread(s) left their monitor wait while being read"));
	cr_assert_eq(f.threads[1].futex.rtlock, 0);
	cr_assert_eq(f.threads[2].futex.owner, 101);
	cr_assert_neq(f.snap.verdicts[0].kind, LT_VERDICT_DEADLOCK);
	fk_free(&f);
}

Test(lock_hotspot_fixture, an_owner_changing_between_reads_is_not_named)
{
	struct fk f;
	struct jvm_img j;
	jvm_image(&f, &(struct jcfg){ 0 }, &j);
	uint64_t ma = fi_get64(&f.img, j.jt[1] + JT_PENDING);
	f.flip_addr = ma + OM_OWNER;
	f.flip_val = j.jt[2];
	apply(&f);
	const struct lt_rtlock *la = lock_named(&f.snap, "LockA@");
	cr_assert(la && la->held == -1 && la->holder == 0);
	cr_assert_not_null(strstr(la->holder_how, "_owner changed between two reads"), "%s", la->holder_how);
	cr_assert_neq(f.threads[2].futex.owner_kind, LT_OWNER_RUNTIME);
	cr_assert_neq(f.snap.verdicts[0].kind, LT_VERDICT_DEADLOCK);
	fk_free(&f);
}

/* Only a lock whose model names its waiters lets a thread that moved
 * close a cycle: an address-claimed runtime lock (a GIL, whose waiters
 * time out every 5 ms) does not. */
Test(lock_hotspot_fixture, moved_waiters_close_a_cycle_only_when_named)
{
	for (int named = 0; named < 2; named++) {
		struct fk f;
		struct jvm_img j;
		jvm_image(&f, &(struct jcfg){ 0 }, &j);
		f.threads[1].moved = true;
		struct lt_lm_env e;
		fk_env(&f, &e);
		lt_lockmodels_apply(&f.snap, &e);
		for (size_t i = 0; i < f.snap.n_rtlocks; i++)
			f.snap.rtlocks[i].waiters_named = named;
		lt_snapshot_diagnose(&f.snap, NULL);
		cr_assert_eq(f.snap.verdicts[0].kind == LT_VERDICT_DEADLOCK, named, "named=%d: %s", named,
			     f.snap.verdicts[0].summary);
		fk_free(&f);
	}
}

/* ---- lock_hotspot_fixture: Java frames ---- */

/* The Java frames are the thread's runtime frames (rt_frames, as a Python
 * stack's), each at the unwinder's `??` frame with its pc; the native
 * stack stays as the unwinder found it. */
static void check_java_frames(const struct lt_thread *t, int line_run)
{
	cr_assert_eq(t->n_frames, 4, "%zu frames", t->n_frames);
	cr_assert_str_eq(t->frames[0].func, "__futex_abstimed_wait_common");
	cr_assert_null(t->frames[1].func, "the unwinder's frames stay");
	cr_assert_null(t->frames[2].func, "the unwinder's frames stay");
	cr_assert_str_eq(t->frames[3].func, "JavaCalls::call_helper");
	cr_assert_str_eq(t->rt_lang, "java");
	cr_assert_eq(t->n_rt_frames, 2, "%zu Java frames", t->n_rt_frames);
	const struct lt_rtframe *run = &t->rt_frames[0], *sleep = &t->rt_frames[1];
	cr_assert_str_eq(run->func, "app.Main.run");
	cr_assert_str_eq(run->kind, "interpreted");
	cr_assert_eq(run->bci, 30, "the bci");
	cr_assert_eq(run->line, line_run);
	cr_assert_str_eq(run->file, "Main.java");
	cr_assert_eq(run->native, 1, "at the interpreter frame running it");
	cr_assert_eq(run->pc, t->frames[1].pc);
	cr_assert_str_eq(sleep->func, "app.Main.sleep");
	cr_assert_str_eq(sleep->kind, "native");
	cr_assert_eq(sleep->bci, -1, "a native method has no bytecode");
	cr_assert_eq(sleep->line, 0);
	cr_assert_eq(sleep->native, 2);
	cr_assert_eq(sleep->pc, t->frames[2].pc);
	cr_assert_null(t->rt_end);
	cr_assert_eq(t->notes.n, 0, "%s", t->notes.n ? t->notes.v[0] : "");
}

Test(lock_hotspot_fixture, interpreted_and_native_frames_jdk17_line_coding)
{
	struct fk f;
	struct jvm_img j;
	jvm_applied(&f, &j, &(struct jcfg){ .frames_major = 17 });
	check_java_frames(&f.threads[1], 311);
	cr_assert_eq(f.threads[2].n_rt_frames, 0, "no anchor, no frames");
	cr_assert_eq(f.threads[2].n_frames, 0);
	fk_free(&f);
}

/* The recorder's reader (hs_stack.h): the frames read while the thread
 * sleeps, before its native stack is unwound, then placed at the native
 * frames as the snapshot places them; a thread the JVM does not list, or
 * one without a last Java frame, has none; a process without HotSpot has
 * no reader. */
Test(lock_hotspot_fixture, recorder_reads_frames_then_places_them)
{
	struct fk f;
	struct jvm_img j;
	struct lt_lm_env e;
	jvm_image(&f, &(struct jcfg){ .frames_major = 17 }, &j);
	fk_env(&f, &e);
	struct lt_hsstk *h = lt_hsstk_open(&e, NULL);
	cr_assert_not_null(h, "no reader of the fixture's JVM");
	struct lt_rtthread r;
	uint64_t anchor;
	cr_assert_eq(lt_hsstk_read(h, 999, &r, &anchor, NULL), 0, "tid 999 is no Java thread");
	struct lt_hsstk_lock nolk = { .found = -1, .obj = 1, .name = "x" };
	cr_assert_eq(lt_hsstk_read(h, f.threads[2].tid, &r, &anchor, &nolk), 0, "no anchor, no frames");
	cr_assert(!nolk.found && !nolk.obj && !nolk.name[0], "no frames: no lock read");
	cr_assert_eq(lt_hsstk_read(h, f.threads[1].tid, &r, &anchor, NULL), 1);
	cr_assert_eq(r.n_frames, 2, "%zu frames", r.n_frames);
	lt_hsstk_place(h, &f.threads[1], &r, anchor);
	cr_assert_eq(r.n_frames, 0, "the frames are the thread's now");
	check_java_frames(&f.threads[1], 311);
	lt_rtthread_clear(&r);
	/* read again: the same (the thread list cached), and the Java lock
	 * in the same look-up: the fixture's thread 101 waits for LockB */
	struct lt_hsstk_lock lk = { .found = -1, .obj = 1, .name = "x" };
	cr_assert_eq(lt_hsstk_read(h, f.threads[1].tid, &r, &anchor, &lk), 1);
	cr_assert_str_eq(r.frames[0].func, "app.Main.run");
	cr_assert_eq(lk.found, 1);
	char want[64];
	snprintf(want, sizeof(want), "Java monitor app.LockB@0x%llx", (unsigned long long)lk.obj);
	cr_assert(lk.obj > 1, "%s", lk.name);
	cr_assert_str_eq(lk.name, want);
	lt_rtthread_clear(&r);
	lt_hsstk_free(h);
	fk_free(&f);

	struct fk none;
	fk_init(&none);
	fk_env(&none, &e);
	cr_assert_null(lt_hsstk_open(&e, NULL), "a reader without a JVM");
	fk_free(&none);
}

/* The anchor's pc is where the interpreter recorded its state, before the
 * call the thread is in; the unwinder has the call's return address.  Both
 * in the interpreter: the same machine frame, placed there.  And two
 * machine frames at one pc (the same call in the same template) are two
 * native frames, not one. */
Test(lock_hotspot_fixture, frames_placed_at_the_unwinders_return_addresses)
{
	struct fk f;
	struct jvm_img j;
	jvm_image(&f, &(struct jcfg){ .frames_major = 17 }, &j);
	uint64_t fp0 = fi_get64(&f.img, j.jt[0] + JT_ANCHOR + FA_FP);
	struct lt_thread *t = &f.threads[1];
	t->frames[1].pc = g_frames.cc + INTERP + 0x140; /* after the call */
	fi_put64(&f.img, fp0 + 8, g_frames.cc + INTERP + 0x140); /* the caller returns there too */
	t->frames[2].pc = g_frames.cc + INTERP + 0x140;
	apply(&f);
	check_java_frames(t, 311);
	fk_free(&f);
}

/* The unwinder stopped before the Java frames (no unwind information in
 * JIT code): they stay unplaced, listed after the native stack, and a note
 * says so. */
Test(lock_hotspot_fixture, frames_the_native_stack_does_not_reach_stay_unplaced)
{
	struct fk f;
	struct jvm_img j;
	jvm_image(&f, &(struct jcfg){ .frames_major = 17 }, &j);
	struct lt_thread *t = &f.threads[1];
	t->frames[2].pc = 0x7f0000003000; /* outside the code cache */
	free(t->frames[3].func);           /* and the stack ends there */
	t->n_frames = 2;
	apply(&f);
	cr_assert_eq(t->n_rt_frames, 2);
	cr_assert_eq(t->rt_frames[0].native, 1);
	cr_assert_eq(t->rt_frames[1].native, -1);
	cr_assert_eq(t->notes.n, 1);
	cr_assert(strstr(t->notes.v[0], "1 of 2 java frames not placed among the native frames"), "%s",
		  t->notes.v[0]);
	char *buf = TL_PRINTED(NULL, lt_snapshot_print_text, &f.snap);
	cr_assert_not_null(strstr(buf, "    java app.Main.run (Main.java:311) [interpreted, bci 30]\n    #1  "), "%s",
			   buf);
	cr_assert_not_null(strstr(buf, "  java (outer frames, not placed):\n    java app.Main.sleep (Main.java) "
				       "[native]\n"), "%s", buf);
	free(buf);
	fk_free(&f);
}

/* The unwinder walked past a Java machine frame (JIT code has no unwind
 * information; the frame pointer it follows skips compiled frames) and
 * went on to JavaCalls::call_helper: the frame it skipped is no outer
 * frame of the thread, it goes just inside the frame that entered Java,
 * in the snapshot and in a recorded stack alike, and a note says it was
 * placed by its order. */
Test(lock_hotspot_fixture, frames_the_unwinder_skipped_stay_inside_the_call_into_java)
{
	for (int rec = 0; rec < 2; rec++) {
		struct fk f;
		struct jvm_img j;
		jvm_image(&f, &(struct jcfg){ .frames_major = 17 }, &j);
		struct lt_thread *t = &f.threads[1];
		free(t->frames[2].func);
		t->frames[2] = t->frames[3]; /* app.Main.sleep's frame skipped */
		t->n_frames = 3;
		if (rec) {
			struct lt_lm_env e;
			fk_env(&f, &e);
			struct lt_hsstk *h = lt_hsstk_open(&e, NULL);
			struct lt_rtthread r;
			uint64_t anchor;
			cr_assert_eq(lt_hsstk_read(h, t->tid, &r, &anchor, NULL), 1);
			cr_assert_eq(lt_hsstk_place(h, t, &r, anchor), 1, "one frame placed by its order");
			lt_rtthread_clear(&r);
			lt_hsstk_free(h);
		} else {
			apply(&f);
		}
		cr_assert_eq(t->n_rt_frames, 2);
		cr_assert_eq(t->rt_frames[0].native, 1, "rec=%d", rec);
		cr_assert_eq(t->rt_frames[1].native, 2, "rec=%d: with JavaCalls::call_helper's frame", rec);
		cr_assert_eq(t->notes.n, 1);
		cr_assert(strstr(t->notes.v[0], "1 of 2 java frames placed by their order"), "%s", t->notes.v[0]);
		if (!rec) {
			char *buf = TL_PRINTED(NULL, lt_snapshot_print_text, &f.snap);
			cr_assert_not_null(strstr(buf, "    java app.Main.sleep (Main.java) [native]\n    #2  "), "%s",
					   buf);
			cr_assert_null(strstr(buf, "not placed"), "%s", buf);
			free(buf);
		}
		fk_free(&f);
	}
}

Test(lock_hotspot_fixture, interpreted_frames_jdk21_unsigned5_and_u4_flags)
{
	struct fk f;
	struct jvm_img j;
	jvm_applied(&f, &j, &(struct jcfg){ .frames_major = 21 });
	check_java_frames(&f.threads[1], 311);
	fk_free(&f);
}

Test(lock_hotspot_fixture, early_bci_takes_the_line_of_its_pair)
{
	struct fk f;
	struct jvm_img j;
	jvm_image(&f, &(struct jcfg){ .frames_major = 17 }, &j);
	uint64_t cm_run, fp0;
	cm_run = fi_get64(&f.img, g_frames.run + M_CONST);
	fp0 = fi_get64(&f.img, j.jt[0] + JT_ANCHOR + FA_FP);
	fi_put64(&f.img, fp0 - 64, cm_run + CM_SIZE + 7); /* bci 7: the (5, 11) pair */
	apply(&f);
	cr_assert_eq(f.threads[1].rt_frames[0].line, 11);
	fk_free(&f);
}

Test(lock_hotspot_fixture, jdk20_line_coding_is_not_guessed)
{
	struct fk f;
	struct jvm_img j;
	jvm_applied(&f, &j, &(struct jcfg){ .frames_major = 20 });
	cr_assert(tl_strlist_has(&f.snap.notes, "Java line numbers not read: the line tables' coding of JDK 20"));
	check_java_frames(&f.threads[1], 0);
	fk_free(&f);
}

Test(lock_hotspot_fixture, a_method_its_class_does_not_own_is_no_frame)
{
	struct fk f;
	struct jvm_img j;
	jvm_image(&f, &(struct jcfg){ .frames_major = 17 }, &j);
	/* the frame's Method* leads to a class that owns another pool */
	fi_put64(&f.img, g_frames.main_k + IK_CONSTANTS, MEM + 0x100);
	apply(&f);
	cr_assert(tl_strlist_has(&f.snap.notes, "the Java frames of 1 thread(s) could not be read"));
	cr_assert_eq(f.threads[1].n_frames, 4);
	cr_assert_null(f.threads[1].frames[1].func, "the unwinder's frames stay");
	cr_assert_eq(f.threads[1].n_rt_frames, 0, "no Java frame from a false Method*");
	fk_free(&f);
}

/* ---- hostile JVMs: what the target holds is not amplified ---- */

static double cpu_s(void)
{
	struct timespec ts;
	clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &ts);
	return (double)ts.tv_sec + ts.tv_nsec / 1e9;
}

static long maxrss_mib(void)
{
	struct rusage ru;
	getrusage(RUSAGE_SELF, &ru);
	return ru.ru_maxrss / 1024;
}

/* 60,000 VMStructs entries whose type and field names are the same two
 * 500-byte strings: each string is copied once, not once per entry (60 MB
 * from 2 KB of the target's memory). */
Test(rt_hotspot_hostile, shared_names_copied_once)
{
	struct tabfix t = { .notes = { 0 } };
	small_tables(&t.f);
	char big[501];
	memset(big, 'x', 500);
	big[500] = 0;
	uint64_t ty = fi_str(&t.f.img, big), nm = fi_str(&t.f.img, big);
	size_t n = 60000;
	const struct tlay *l = &ODD_STRUCT;
	uint64_t arr = fi_alloc(&t.f.img, (n + 1) * l->stride);
	for (size_t i = 0; i < n; i++) {
		uint64_t e = arr + i * l->stride;
		put_member(&t.f, e, l->off[0], 8, i == 0 ? fi_str(&t.f.img, "Thread") : ty);
		put_member(&t.f, e, l->off[1], 8, i == 0 ? fi_str(&t.f.img, "_osthread") : nm);
		put_member(&t.f, e, l->off[4], 8, i);
	}
	fi_put64(&t.f.img, sym_addr(&t.f, "gHotSpotVMStructs"), arr);
	long rss0 = maxrss_mib();
	double t0 = cpu_s();
	cr_assert_eq(read_vm(&t), 0);
	double took = cpu_s() - t0;
	long grew = maxrss_mib() - rss0;
	cr_assert_eq(t.vm.n_fields, n);
	cr_assert_not_null(hs_vm_field(&t.vm, "Thread", "_osthread"));
	cr_assert_lt(grew, 16, "reading the tables grew the peak RSS by %ld MiB", grew);
	cr_assert_lt(took, 10.0, "%.1f s of CPU", took);
	fprintf(stderr, "shared VMStructs names: +%ld MiB peak RSS, %.2f s CPU\n", grew, took);
	hs_vm_free(&t.vm);
	lt_strlist_free(&t.notes);
	fk_free(&t.f);
}

/* 100,000 Java threads, each blocked on a monitor of its own owned (a
 * BasicLock in its stack) by the next one, read into the fixture JVM:
 * monitors are matched to owners by hash and stack ranges by binary
 * search, never owners x monitors (10^10 comparisons). */
Test(lock_hotspot_hostile, hundred_thousand_threads_matched_near_linearly, .timeout = 120)
{
	struct fk f;
	struct jvm_img j;
	jvm_image(&f, &(struct jcfg){ 0 }, &j);
	size_t n = 100000;
	uint64_t arr = fi_alloc(&f.img, 8 * (n + j.njt));
	uint64_t *jt = calloc(n, sizeof(*jt));
	cr_assert_not_null(jt);
	for (size_t i = 0; i < j.njt; i++)
		fi_put64(&f.img, arr + 8 * i, j.jt[i]);
	for (size_t i = 0; i < n; i++) {
		jt[i] = fi_alloc(&f.img, JT_SIZE);
		uint64_t os = fi_alloc(&f.img, OS_SIZE);
		fi_put64(&f.img, jt[i] + T_OSTHREAD, os);
		fi_put32(&f.img, os + OS_TID, (uint32_t)(10000 + i));
		fi_put64(&f.img, jt[i] + JT_STACK_BASE, STACKS + (uint64_t)(10000 + i) * 0x100000);
		fi_put64(&f.img, jt[i] + JT_STACK_SIZE, 0x80000);
		fi_put64(&f.img, arr + 8 * (j.njt + i), jt[i]);
	}
	for (size_t i = 0; i < n; i++) {
		/* owned by a BasicLock in the next thread's stack */
		uint64_t om = monitor_new(&f, 0, i + 1 < n ? STACKS + (uint64_t)(10000 + i + 1) * 0x100000 - 0x2000
							   : 0x12345678);
		blocked_on(&f, jt[i], om);
	}
	uint64_t list = fi_alloc(&f.img, 0x20);
	fi_put32(&f.img, list + 4, (uint32_t)(n + j.njt));
	fi_put64(&f.img, list + 16, arr);
	/* ThreadsSMRSupport::_java_thread_list now names them all */
	const struct hs_field *fl = NULL;
	struct hs_vm vm;
	struct lt_strlist notes = { 0 };
	struct lt_lm_env e;
	fk_env(&f, &e);
	cr_assert_eq(hs_vm_read(&e, &vm, &notes), 0);
	fl = hs_vm_field(&vm, "ThreadsSMRSupport", "_java_thread_list");
	cr_assert(fl && fl->is_static);
	fi_put64(&f.img, fl->value, list);
	hs_vm_free(&vm);
	lt_strlist_free(&notes);
	free(jt);

	long rss0 = maxrss_mib();
	double t0 = cpu_s();
	lt_budget_begin(0, NULL);
	apply(&f);
	double took = cpu_s() - t0;
	long grew = maxrss_mib() - rss0;
	size_t nb = 0;
	const char *const *why = lt_budget_notes(&nb);
	/* 100,003 entries: the list is read up to the 100,000 a JVM here may have, and that is said */
	cr_assert_eq(nb, 1);
	cr_assert(strstr(why[0], "stopped reading HotSpot threads after 100000"), "%s", why[0]);
	lt_budget_end();
	/* the fixture's own deadlock is still found among them */
	cr_assert_eq(f.threads[1].futex.owner, 102);
	cr_assert_eq(f.threads[2].futex.owner, 101);
	cr_assert(f.snap.n_verdicts >= 1 && f.snap.verdicts[0].kind == LT_VERDICT_DEADLOCK);
	cr_assert_eq(f.snap.n_rtlocks, 100000 - j.njt + 2, "%zu monitors", f.snap.n_rtlocks);
	const struct lt_rtlock *l = NULL;
	for (size_t i = 0; i < f.snap.n_rtlocks && !l; i++)
		if (f.snap.rtlocks[i].holder == 10000 + 5000)
			l = &f.snap.rtlocks[i];
	cr_assert_not_null(l, "no monitor held by thread 15000");
	cr_assert(strstr(l->holder_how, "BasicLock in the stack of thread 15000"), "%s", l->holder_how);
	cr_assert_lt(took, 20.0, "matching 100,000 monitors took %.1f s of CPU", took);
	cr_assert_lt(grew, 512, "reading 100,000 threads grew the peak RSS by %ld MiB", grew);
	fprintf(stderr, "100,000 HotSpot threads: +%ld MiB peak RSS, %.2f s CPU\n", grew, took);
	fk_free(&f);
}

/* The recorder's reader when a thread in the JVM's list was not started
 * far enough to be read (its OSThread's tid still 0, as while the JVM
 * creates it) or the list was read while the JVM replaced it: a tid not
 * found then is not remembered as a thread of the VM's own.  Once the
 * thread has its tid (the list itself unchanged), its frames are read. */
Test(lock_hotspot_fixture, recorder_reads_a_thread_missed_in_a_partial_list)
{
	struct fk f;
	struct jvm_img j;
	struct lt_lm_env e;
	jvm_image(&f, &(struct jcfg){ .frames_major = 17 }, &j);
	fk_env(&f, &e);
	pid_t tid = f.threads[1].tid;
	uint64_t os = 0;
	for (size_t k = 0; k < j.njt && !os; k++) {
		uint64_t o = fi_get64(&f.img, j.jt[k] + T_OSTHREAD);
		uint32_t v = 0;
		fi_read(&f.img, o + OS_TID, &v, 4);
		if ((pid_t)v == tid)
			os = o;
	}
	cr_assert(os, "no JavaThread of thread %d in the fixture", (int)tid);
	fi_put32(&f.img, os + OS_TID, 0);
	struct lt_hsstk *h = lt_hsstk_open(&e, NULL);
	cr_assert_not_null(h);
	struct lt_rtthread r;
	uint64_t anchor;
	cr_assert_eq(lt_hsstk_read(h, tid, &r, &anchor, NULL), 0, "not started: not read");
	fi_put32(&f.img, os + OS_TID, (uint32_t)tid);
	struct timespec pause = { 0, 30000000 }; /* past the reader's wait before reading again */
	nanosleep(&pause, NULL);
	cr_assert_eq(lt_hsstk_read(h, tid, &r, &anchor, NULL), 1, "the thread, started since, not read");
	cr_assert_eq(r.n_frames, 2, "%zu frames", r.n_frames);
	lt_rtthread_clear(&r);
	lt_hsstk_free(h);
	fk_free(&f);
}

/* A holder the JVM's memory names but the kernel does not know (thread
 * 4242 is no thread of the process): not named, and said (issue 26). */
Test(lock_hotspot_hostile, holder_that_is_no_thread_of_the_process_not_named)
{
	struct fk f;
	struct jvm_img j;
	jvm_image(&f, &(struct jcfg){ 0 }, &j);
	fi_put32(&f.img, fi_get64(&f.img, j.jt[0] + T_OSTHREAD) + OS_TID, 4242);
	apply(&f);
	const struct lt_futex *fx = &f.threads[2].futex;
	cr_assert_eq(fx->owner, 0, "a holder the process does not have was named: %d", fx->owner);
	cr_assert(fx->lock_state && strstr(fx->lock_state, "names thread 4242 as its holder, but the process "
						       "has no such thread"), "%s", fx->lock_state);
	for (size_t i = 0; i < f.snap.n_verdicts; i++)
		cr_assert_neq(f.snap.verdicts[i].kind, LT_VERDICT_DEADLOCK, "%s", f.snap.verdicts[i].summary);
	fk_free(&f);
}

/* ---- FutureTask.get() ---- */

enum { FT_STATE = 0xc, FT_RUNNER = 0x10, FT_WAITERS = 0x14, FT_SIZE = 0x18 };

/* A FutureTask of state STATE run by the thread whose java.lang.Thread is
 * RUNNER (0: none), the parkBlocker of JavaThread JT, which parks. */
static uint64_t future_parked(struct fk *f, uint64_t jt, int32_t state, uint64_t runner)
{
	static const struct jfield ft_f[] = {
		{ "state", "I", 0x42, FT_STATE, false, false, false },
		{ "runner", "Ljava/lang/Thread;", 0x42, FT_RUNNER, false, false, false },
		{ "waiters", "Ljava/util/concurrent/FutureTask$WaitNode;", 0x42, FT_WAITERS, false, false, false },
	};
	uint64_t k = klass_new(f, "java/util/concurrent/FutureTask", 0, ft_f, N(ft_f));
	uint64_t task = object_new(f, k, FT_SIZE);
	fi_put32(&f->img, task + FT_STATE, (uint32_t)state);
	fi_put32(&f->img, task + FT_RUNNER, runner ? narrow(runner) : 0);
	uint64_t obj = fi_get64(&f->img, fi_get64(&f->img, jt + JT_THREADOBJ));
	fi_put32(&f->img, obj + THREAD_BLOCKER, narrow(task));
	fi_put64(&f->img, jt + JT_PENDING, 0);
	fi_put32(&f->img, jt + JT_STATE, BLOCKED);
	return task;
}

static uint64_t thread_obj_of(struct fk *f, uint64_t jt)
{
	return fi_get64(&f->img, fi_get64(&f->img, jt + JT_THREADOBJ));
}

/* 101 in get() of a task 102 runs, while 102 waits to enter LockA's
 * monitor, which 101 owns: a cycle through a get(), which a cancel() from
 * any thread could break: a probable deadlock, the inference said. */
Test(lock_hotspot_fixture, future_get_waits_on_the_runner_and_a_cycle_through_it_is_probable)
{
	struct fk f;
	struct jvm_img j;
	jvm_image(&f, &(struct jcfg){ 0 }, &j);
	uint64_t task = future_parked(&f, j.jt[0], 0, thread_obj_of(&f, j.jt[1]));
	apply(&f);
	const struct lt_rtlock *ft = lock_named(&f.snap, "java.util.concurrent.FutureTask@0x");
	cr_assert_not_null(ft);
	cr_assert_str_eq(ft->kind, "java.util.concurrent FutureTask (get)");
	cr_assert_eq(ft->base, task);
	cr_assert_eq(ft->holder, 102, "%s", ft->holder_how);
	cr_assert(lt_done_kind_of(ft->kind)->inferred && !lt_done_kind_of(ft->kind)->exit);
	cr_assert_eq(f.threads[1].futex.owner, 102);
	cr_assert_eq(f.threads[1].futex.owner_kind, LT_OWNER_RUNTIME);
	cr_assert_eq(f.snap.n_verdicts, 1, "%s", f.snap.verdicts[0].summary);
	const struct lt_verdict *v = &f.snap.verdicts[0];
	cr_assert_eq(v->kind, LT_VERDICT_DEADLOCK, "%s", v->summary);
	cr_assert(!strncmp(v->summary, "probable deadlock: 2 threads wait for each other: ", 50), "%s", v->summary);
	cr_assert(strstr(v->summary, "; inferred: that thread 101 (worker-AB-holds-LockA), in FutureTask.get(), waits "
			 "for thread 102 alone (a cancel() from any thread would end its wait too)"),
		  "%s", v->summary);
	char want[160];
	snprintf(want, sizeof(want), "thread 101 (worker-AB-holds-LockA) waits in FutureTask.get() for "
		 "java.util.concurrent.FutureTask@0x%" PRIx64 ", run by thread 102 (", task);
	cr_assert(tl_strlist_has(&v->evidence, want), "%s", want);
	fk_free(&f);
}

/* A task past NEW (completing, done): no wait claimed, as before. */
Test(lock_hotspot_fixture, future_get_of_a_completing_task_is_no_wait)
{
	struct fk f;
	struct jvm_img j;
	jvm_image(&f, &(struct jcfg){ 0 }, &j);
	future_parked(&f, j.jt[0], 1, thread_obj_of(&f, j.jt[1]));
	apply(&f);
	cr_assert_null(lock_named(&f.snap, "java.util.concurrent.FutureTask@0x"));
	cr_assert_eq(f.threads[1].futex.rtlock, 0);
	fk_free(&f);
}

/* A single-thread executor (its thread 101: Thread.target a
 * ThreadPoolExecutor$Worker whose this$0 is the executor) whose queue
 * holds the task 101 waits for, not started: a starved pool, inferred;
 * without the Worker, no pool is named. */
/* ... its queue's capacity CAP and the executor's maximumPoolSize MAXP
 * (starved_pool_of: unbounded, 1, as newSingleThreadExecutor's) */
static uint64_t starved_pool_cap(struct fk *f, struct jvm_img *j, uint64_t worker_jt, uint32_t ctl, int32_t cap,
				 int32_t maxp)
{
	static const struct jfield node_f[] = {
		{ "item", "Ljava/lang/Object;", 0x2, 0xc, false, false, false },
		{ "next", "Ljava/util/concurrent/LinkedBlockingQueue$Node;", 0x2, 0x10, false, false, false },
	};
	static const struct jfield lbq_f[] = {
		{ "head", "Ljava/util/concurrent/LinkedBlockingQueue$Node;", 0x2, 0xc, false, false, false },
		{ "capacity", "I", 0x12, 0x10, false, false, false },
	};
	static const struct jfield ai_f[] = { { "value", "I", 0x42, 0xc, false, false, false } };
	static const struct jfield tpe_f[] = {
		{ "ctl", "Ljava/util/concurrent/atomic/AtomicInteger;", 0x12, 0xc, false, false, false },
		{ "workQueue", "Ljava/util/concurrent/BlockingQueue;", 0x12, 0x10, false, false, false },
		{ "corePoolSize", "I", 0x42, 0x14, false, false, false },
		{ "maximumPoolSize", "I", 0x42, 0x18, false, false, false },
	};
	static const struct jfield w_f[] = {
		{ "this$0", "Ljava/util/concurrent/ThreadPoolExecutor;", 0x1010, 0xc, false, false, false },
	};
	uint64_t task = future_parked(f, j->jt[0], 0, 0);
	uint64_t nk = klass_new(f, "java/util/concurrent/LinkedBlockingQueue$Node", 0, node_f, N(node_f));
	uint64_t dummy = object_new(f, nk, 0x18), node = object_new(f, nk, 0x18);
	fi_put32(&f->img, dummy + 0x10, narrow(node));
	fi_put32(&f->img, node + 0xc, narrow(task));
	uint64_t q = object_new(f, klass_new(f, "java/util/concurrent/LinkedBlockingQueue", 0, lbq_f, N(lbq_f)), 0x18);
	fi_put32(&f->img, q + 0xc, narrow(dummy));
	fi_put32(&f->img, q + 0x10, (uint32_t)cap);
	uint64_t ai = object_new(f, klass_new(f, "java/util/concurrent/atomic/AtomicInteger", 0, ai_f, N(ai_f)), 0x10);
	fi_put32(&f->img, ai + 0xc, ctl);
	uint64_t tpe = object_new(f, klass_new(f, "java/util/concurrent/ThreadPoolExecutor", 0, tpe_f, N(tpe_f)), 0x20);
	fi_put32(&f->img, tpe + 0xc, narrow(ai));
	fi_put32(&f->img, tpe + 0x10, narrow(q));
	fi_put32(&f->img, tpe + 0x14, 1);
	fi_put32(&f->img, tpe + 0x18, (uint32_t)maxp);
	uint64_t w = object_new(f, klass_new(f, "java/util/concurrent/ThreadPoolExecutor$Worker", 0, w_f, N(w_f)), 0x10);
	fi_put32(&f->img, w + 0xc, narrow(tpe));
	if (worker_jt)
		fi_put32(&f->img, thread_obj_of(f, worker_jt) + THREAD_TARGET, narrow(w));
	return tpe;
}

static uint64_t starved_pool_of(struct fk *f, struct jvm_img *j, uint64_t worker_jt, uint32_t ctl)
{
	return starved_pool_cap(f, j, worker_jt, ctl, 0x7fffffff, 1);
}

static uint64_t starved_pool(struct fk *f, struct jvm_img *j, bool worker, uint32_t ctl)
{
	return starved_pool_of(f, j, worker ? j->jt[0] : 0, ctl);
}

Test(lock_hotspot_fixture, future_get_of_a_queued_task_in_a_starved_pool)
{
	struct fk f;
	struct jvm_img j;
	jvm_image(&f, &(struct jcfg){ 0 }, &j);
	uint64_t tpe = starved_pool(&f, &j, true, 0xe0000001u); /* RUNNING, 1 worker */
	apply(&f);
	const struct lt_rtlock *ft = lock_named(&f.snap, "java.util.concurrent.FutureTask@0x");
	cr_assert_not_null(ft);
	cr_assert(ft->holderless && ft->holder == 0);
	char want[400];
	snprintf(want, sizeof(want), "FutureTask.runner is null and its state is NEW (0): the task has not started: it "
		 "waits for a thread of its executor to take it; it is number 1 in the work queue of "
		 "java.util.concurrent.ThreadPoolExecutor@0x%" PRIx64 ", whose 1 thread (101 (worker-AB-holds-LockA)) "
		 "is blocked, this one in this get(): probably a thread-starvation deadlock (inferred: ", tpe);
	cr_assert(!strncmp(ft->holder_how, want, strlen(want)), "%s\nwant: %s", ft->holder_how, want);
	const struct lt_verdict *v = NULL;
	for (size_t i = 0; i < f.snap.n_verdicts; i++)
		for (size_t k = 0; k < f.snap.verdicts[i].n_tids; k++)
			if (f.snap.verdicts[i].tids[k] == 101)
				v = &f.snap.verdicts[i];
	cr_assert_not_null(v);
	cr_assert_eq(v->kind, LT_VERDICT_LOCK_WAIT, "%s", v->summary);
	cr_assert(!strncmp(v->summary, "1 thread waits in FutureTask.get() for the task java.util.concurrent.FutureTask@0x",
			   82) && strstr(v->summary, want), "%s", v->summary);
	fk_free(&f);
}

Test(lock_hotspot_fixture, future_get_of_a_queued_task_whose_pool_is_not_found)
{
	struct fk f;
	struct jvm_img j;
	jvm_image(&f, &(struct jcfg){ 0 }, &j);
	starved_pool(&f, &j, false, 0xe0000001u);
	apply(&f);
	const struct lt_rtlock *ft = lock_named(&f.snap, "java.util.concurrent.FutureTask@0x");
	cr_assert(ft && ft->holderless);
	cr_assert(strstr(ft->holder_how, "; no executor's work queue was found to hold it"), "%s", ft->holder_how);
	cr_assert_null(strstr(ft->holder_how, "starvation"), "%s", ft->holder_how);
	fk_free(&f);
}

/* The executor counting two workers where one is found: not all of its
 * threads are known, and no starvation is inferred. */
Test(lock_hotspot_fixture, future_get_of_a_queued_task_in_a_pool_not_all_known)
{
	struct fk f;
	struct jvm_img j;
	jvm_image(&f, &(struct jcfg){ 0 }, &j);
	starved_pool(&f, &j, true, 0xe0000002u);
	apply(&f);
	const struct lt_rtlock *ft = lock_named(&f.snap, "java.util.concurrent.FutureTask@0x");
	cr_assert(ft && ft->holderless);
	cr_assert(strstr(ft->holder_how, "is blocked (the executor's count of its workers, not read or not the threads "
			 "found: not all of them are known)"), "%s", ft->holder_how);
	cr_assert_null(strstr(ft->holder_how, "starvation"), "%s", ft->holder_how);
	fk_free(&f);
}

/* The task 101 waits for is queued in a single-thread executor whose one
 * thread, 103, runs another task and is in native code (the JVM's
 * _thread_in_native), asleep in read(): that thread is the wait's holder
 * (before: "whose 1 thread (103 ...) is not blocked", holderless). */
Test(lock_hotspot_fixture, future_get_of_a_task_queued_behind_a_thread_in_native_code)
{
	struct fk f;
	struct jvm_img j;
	jvm_image(&f, &(struct jcfg){ 0 }, &j);
	uint64_t tpe = starved_pool_of(&f, &j, j.jt[2], 0xe0000001u);
	fi_put32(&f.img, j.jt[2] + JT_STATE, IN_NATIVE);
	apply(&f);
	const struct lt_rtlock *ft = lock_named(&f.snap, "java.util.concurrent.FutureTask@0x");
	cr_assert_not_null(ft);
	cr_assert_str_eq(ft->kind, "java.util.concurrent FutureTask (get, queued)");
	cr_assert(!ft->holderless && ft->held == 1 && ft->holder == 103, "holder %d", (int)ft->holder);
	char want[300];
	snprintf(want, sizeof(want), "it is number 1 in the work queue of java.util.concurrent.ThreadPoolExecutor@0x%"
		 PRIx64 ", whose 1 thread (103 (main)) is blocked (asleep in a system call of native code): the task "
		 "starts only when it goes on", tpe);
	cr_assert(strstr(ft->holder_how, want), "%s\nwant: %s", ft->holder_how, want);
	cr_assert_null(strstr(ft->holder_how, "starvation"), "%s", ft->holder_how);
	cr_assert_eq(f.threads[1].futex.owner, 103);
	fk_free(&f);
}

/* The same executor's one thread running Java code: it takes the task
 * soon enough; no wait is claimed (before: a holderless lock wait). */
Test(lock_hotspot_fixture, future_get_of_a_task_queued_behind_a_running_thread_is_no_wait)
{
	struct fk f;
	struct jvm_img j;
	jvm_image(&f, &(struct jcfg){ 0 }, &j);
	starved_pool_of(&f, &j, j.jt[2], 0xe0000002u); /* two workers counted, one found */
	fi_put32(&f.img, j.jt[2] + JT_STATE, IN_JAVA);
	f.threads[3].state = 'R';
	f.threads[3].sc.state = LT_SC_RUNNING;
	apply(&f);
	cr_assert_null(lock_named(&f.snap, "java.util.concurrent.FutureTask@0x"));
	cr_assert_eq(f.threads[1].futex.rtlock, 0);
	fk_free(&f);
}

/* The executor's one thread, 102, is itself in get() of the very task 101
 * waits for (it submitted it to its own executor): a starvation deadlock
 * whichever getter is read first; 101, read first, gets no lock held by
 * 102 (before: 102 then waited on a lock it held itself). */
Test(lock_hotspot_fixture, future_get_by_an_outsider_of_a_task_the_pool_thread_gets_too)
{
	struct fk f;
	struct jvm_img j;
	jvm_image(&f, &(struct jcfg){ 0 }, &j);
	starved_pool_of(&f, &j, j.jt[1], 0xe0000001u);
	uint32_t task; /* narrow, as the waiter's parkBlocker holds it */
	memcpy(&task, fi_at(&f.img, thread_obj_of(&f, j.jt[0]) + THREAD_BLOCKER, 4), 4);
	fi_put32(&f.img, thread_obj_of(&f, j.jt[1]) + THREAD_BLOCKER, task);
	fi_put64(&f.img, j.jt[1] + JT_PENDING, 0);
	fi_put32(&f.img, j.jt[1] + JT_STATE, BLOCKED);
	apply(&f);
	size_t n = 0;
	for (size_t i = 0; i < f.snap.n_rtlocks; i++) {
		const struct lt_rtlock *l = &f.snap.rtlocks[i];
		if (strncmp(l->name, "java.util.concurrent.FutureTask@0x", 34))
			continue;
		n++;
		cr_assert(l->holderless && l->holder == 0, "%s held by %d", l->kind, (int)l->holder);
		cr_assert(strstr(l->holder_how, "whose 1 thread (102 (w\xc3\xb6rker-BA-h\xc3\xb6lds-LockB)) is blocked, in a get() of "
			  "this very task: probably a thread-starvation deadlock (inferred: "), "%s", l->holder_how);
	}
	cr_assert_eq(n, 1, "one lock for the task's two getters");
	cr_assert_eq(f.threads[1].futex.rtlock, f.threads[2].futex.rtlock);
	fk_free(&f);
}

/* A ScheduledFutureTask (state, runner, waiters, time, period) 101 waits
 * for in get(), not started, its time DUE_NS from now (CLOCK_MONOTONIC,
 * System.nanoTime()'s clock) and its period PERIOD. */
static void sched_parked(struct fk *f, uint64_t jt, int64_t due_ns, int64_t period)
{
	static const struct jfield sft_f[] = {
		{ "state", "I", 0x42, FT_STATE, false, false, false },
		{ "runner", "Ljava/lang/Thread;", 0x42, FT_RUNNER, false, false, false },
		{ "waiters", "Ljava/util/concurrent/FutureTask$WaitNode;", 0x42, FT_WAITERS, false, false, false },
		{ "time", "J", 0x42, 0x18, false, false, false },
		{ "period", "J", 0x12, 0x20, false, false, false },
	};
	uint64_t k = klass_new(f, "java/util/concurrent/ScheduledThreadPoolExecutor$ScheduledFutureTask", 0, sft_f,
			       N(sft_f));
	uint64_t task = object_new(f, k, 0x28);
	struct timespec ts;
	clock_gettime(CLOCK_MONOTONIC, &ts);
	fi_put32(&f->img, task + FT_STATE, 0);
	fi_put32(&f->img, task + FT_RUNNER, 0);
	fi_put64(&f->img, task + 0x18, (uint64_t)((int64_t)ts.tv_sec * 1000000000 + ts.tv_nsec + due_ns));
	fi_put64(&f->img, task + 0x20, (uint64_t)period);
	uint64_t obj = thread_obj_of(f, jt);
	fi_put32(&f->img, obj + THREAD_BLOCKER, narrow(task));
	fi_put64(&f->img, jt + JT_PENDING, 0);
	fi_put32(&f->img, jt + JT_STATE, BLOCKED);
}

/* get() of a scheduled task: due an hour from now, a wait for a time (no
 * lock claimed); periodic (scheduleAtFixedRate), a wait for its cancel()
 * (none); due a second ago, a task not started, claimed as before (no
 * executor found here: holderless). */
Test(lock_hotspot_fixture, future_get_of_scheduled_tasks)
{
	const struct {
		int64_t due_ns, period;
		bool claimed;
	} c[] = { { 3600000000000ll, 0, false }, { -1000000000ll, 1000000000ll, false }, { -1000000000ll, 0, true } };
	for (size_t i = 0; i < sizeof(c) / sizeof(c[0]); i++) {
		struct fk f;
		struct jvm_img j;
		jvm_image(&f, &(struct jcfg){ 0 }, &j);
		sched_parked(&f, j.jt[0], c[i].due_ns, c[i].period);
		apply(&f);
		const struct lt_rtlock *l =
			lock_named(&f.snap, "java.util.concurrent.ScheduledThreadPoolExecutor$ScheduledFutureTask@0x");
		cr_assert_eq(l != NULL, c[i].claimed, "case %zu: %s", i, l ? l->holder_how : "no lock");
		cr_assert_eq(f.threads[1].futex.rtlock != 0, c[i].claimed, "case %zu", i);
		if (l)
			cr_assert(l->holderless && strstr(l->holder_how, "no executor's work queue was found"), "%s",
				  l->holder_how);
		fk_free(&f);
	}
}

/* The same queued task behind a thread in native code, in an executor of
 * core 1, max 4, whose queue holds 2 tasks: a later submit() that finds
 * it full starts another thread, which may take the task: no holder, that
 * said (a review: "its executor's only thread" was wrong there). */
Test(lock_hotspot_fixture, future_get_of_a_task_queued_in_a_pool_that_may_grow)
{
	struct fk f;
	struct jvm_img j;
	jvm_image(&f, &(struct jcfg){ 0 }, &j);
	starved_pool_cap(&f, &j, j.jt[2], 0xe0000001u, 2, 4);
	fi_put32(&f.img, j.jt[2] + JT_STATE, IN_NATIVE);
	apply(&f);
	const struct lt_rtlock *ft = lock_named(&f.snap, "java.util.concurrent.FutureTask@0x");
	cr_assert_not_null(ft);
	cr_assert_str_eq(ft->kind, "java.util.concurrent FutureTask (get)");
	cr_assert(ft->holderless && ft->holder == 0, "holder %d", (int)ft->holder);
	cr_assert(strstr(ft->holder_how, "is blocked (asleep in a system call of native code): the task starts only when "
				     "it goes on, or a later submit() that finds the work queue full (2 tasks) starts a "
				     "thread (the pool has fewer than maximumPoolSize, 4)"), "%s", ft->holder_how);
	fk_free(&f);
}
