/* The HotSpot (Java) model: Java threads, their names, and the monitors
 * they block on, read from the JVM's memory (see lockmodel.h and
 * docs/runtimes.md).  The JVM is never attached to, signalled or stopped:
 * it works on a JVM whose threads cannot reach a safepoint.
 *
 * Every offset comes from the JVM's own tables (rt_hotspot.h):
 *   threads   ThreadsSMRSupport::_java_thread_list -> ThreadsList {_length,
 *             _threads[]} -> JavaThread: _osthread -> OSThread::_thread_id
 *             (the kernel tid), _threadObj (an OopHandle) -> the
 *             java.lang.Thread object, _thread_state, _stack_base and
 *             _stack_size, _current_pending_monitor
 *   names     java.lang.Thread.name -> String.value (byte[]) and .coder;
 *             field offsets of Java classes are found as the JVM finds
 *             them, in the class's field table and its constant pool:
 *             InstanceKlass::_fields with FieldInfo slots and tags from
 *             the int constants (JDK <= 20), or the UNSIGNED5-coded
 *             _fieldinfo_stream with FieldFlags bits from the int
 *             constants (JDK 21+); oops and class pointers are decoded with
 *             CompressedOops / CompressedKlassPointers base and shift when
 *             the UseCompressedOops / UseCompressedClassPointers flags
 *             (read from the JVMFlag table) are on
 *   monitors  a thread in state _thread_blocked with a pending monitor
 *             waits to enter that ObjectMonitor; its _owner is the owning
 *             JavaThread, or (a stack lock inflated by a contender) the
 *             address of a BasicLock in the owner's stack, or, from JDK 24,
 *             the owner's _monitor_owner_id (ANONYMOUS_OWNER: the object
 *             is on the owner's lock stack); _object -> the locked object
 *             -> its class name.
 * Whatever a version lacks (a field, a constant) is said in a note and not
 * read: a wrong offset would name a wrong owner, which is worse than none. */
#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "lockmodel.h"
#include "budget.h"
#include "lock_hotspot.h"
#include "rt_hotspot.h"
#include "rt_idle.h"
#include "snapshot_int.h"
#include "utf8.h"

static const char KIND[] = "Java monitor";

/* Bounds for values read from a running heap: past them the read is taken
 * as torn or wrong, never used. */
#define MAX_THREADS 100000
#define MAX_NAME 256

static void identify(struct jvm *j)
{
	const struct hs_field *f = hs_vm_field(&j->vm, "Abstract_VM_Version", "_s_vm_release");
	char rel[64];
	uint64_t p = f && f->is_static ? hs_rd64(j, f->value) : 0;
	if (p && hs_read_str(j->e, j->sc, p, rel, sizeof(rel)) == 0 && rel[0])
		snprintf(j->version, sizeof(j->version), "HotSpot %s", rel);
	else
		snprintf(j->version, sizeof(j->version), "HotSpot (release unknown)");
	const struct hs_field *mv = hs_vm_field(&j->vm, "Abstract_VM_Version", "_vm_major_version");
	int32_t major = 0;
	if (mv && mv->is_static && hs_rd(j, mv->value, &major, 4) == 0 && major > 0 && major < 1000)
		j->major = major;
}

/* ---- VM flags (the JVMFlag table) ---- */

struct flag_want {
	const char *name;
	int64_t value;
	bool found;
};

/* The flag at ADDR named by the string at NAME_P, if W wants it. */
static void match_flag(struct jvm *j, uint64_t name_p, uint64_t addr, const int *width, struct flag_want *w,
		       size_t nw)
{
	char name[64];
	if (!name_p || hs_read_str(j->e, j->sc, name_p, name, sizeof(name)))
		return;
	for (size_t k = 0; k < nw; k++) {
		uint64_t v = 0;
		if (w[k].found || strcmp(name, w[k].name))
			continue;
		if (hs_rd(j, addr, &v, (size_t)width[k]) == 0) {
			w[k].value = (int64_t)v;
			w[k].found = true;
		}
	}
}

/* Reads the flags named in W (bool or int flags: 1 or 4 bytes, WIDTH of
 * each given by the caller's knowledge of the flag's declared type). */
static bool read_flags(struct jvm *j, struct flag_want *w, const int *width, size_t nw)
{
	struct need n = { .j = j };
	uint64_t flags_p = 0, num_p = 0, f_name = 0, f_addr = 0, size = 0;
	hs_addr_of(&n, "JVMFlag", "flags", &flags_p);
	hs_addr_of(&n, "JVMFlag", "numFlags", &num_p);
	hs_off(&n, "JVMFlag", "_name", &f_name);
	hs_off(&n, "JVMFlag", "_addr", &f_addr);
	hs_type_size(&n, "JVMFlag", &size);
	if (!hs_complete(&n, "VM flags"))
		return false;
	uint64_t arr = hs_rd64(j, flags_p), num = hs_rd64(j, num_p);
	if (!arr || !num || num > 10000 || size > 256 || f_name + 8 > size || f_addr + 8 > size) {
		lt_strlist_add(j->notes, "hotspot: %s: the flag table (%" PRIu64 " flags) is unreadable",
			       j->version, num);
		return false;
	}
	uint8_t *buf = malloc(num * size);
	if (!buf || hs_rd(j, arr, buf, num * size)) {
		free(buf);
		lt_strlist_add(j->notes, "hotspot: %s: the flag table is unreadable", j->version);
		return false;
	}
	for (uint64_t i = 0; i < num; i++) {
		uint64_t np, ap;
		memcpy(&np, buf + i * size + f_name, 8);
		memcpy(&ap, buf + i * size + f_addr, 8);
		match_flag(j, np, ap, width, w, nw);
	}
	free(buf);
	return true;
}

/* ---- layout: the offsets each part needs ---- */

static bool lay_threads(struct jvm *j)
{
	struct lay *L = &j->L;
	struct need n = { .j = j };
	hs_addr_of(&n, "ThreadsSMRSupport", "_java_thread_list", &L->java_thread_list);
	hs_off(&n, "ThreadsList", "_length", &L->tl_length);
	hs_off(&n, "ThreadsList", "_threads", &L->tl_threads);
	hs_off(&n, "JavaThread", "_osthread", &L->jt_osthread);
	hs_off(&n, "OSThread", "_thread_id", &L->os_tid);
	hs_off(&n, "JavaThread", "_threadObj", &L->jt_threadobj);
	hs_off(&n, "OopHandle", "_obj", &L->oh_obj);
	hs_off(&n, "JavaThread", "_thread_state", &L->jt_state);
	hs_off(&n, "JavaThread", "_current_pending_monitor", &L->jt_pending);
	hs_off(&n, "JavaThread", "_stack_base", &L->jt_stack_base);
	hs_off(&n, "JavaThread", "_stack_size", &L->jt_stack_size);
	hs_int_const(&n, "_thread_blocked", &L->blocked);
	/* optional: a pool thread asleep in a system call of native code
	 * (pool_thread_blocked) */
	if (!hs_vm_int(&j->vm, "_thread_in_native", &L->in_native))
		L->in_native = -1;
	/* optional: Object.wait() (hs_monitor_waits) */
	const struct hs_field *w = hs_vm_field(&j->vm, "JavaThread", "_current_waiting_monitor");
	L->jt_waiting = w && !w->is_static ? w->value : 0;
	return hs_complete(&n, "Java threads");
}

/* Who owns a monitor: the _owner field's meaning changed in JDK 24 (an
 * owner id instead of a pointer); the tables say which one this JVM has. */
static void lay_monitors(struct jvm *j)
{
	struct lay *L = &j->L;
	struct need n = { .j = j };
	hs_off(&n, "ObjectMonitor", "_owner", &L->om_owner);
	hs_off(&n, "ObjectMonitor", "_object", &L->om_object);
	hs_off(&n, "ObjectMonitor", "_recursions", &L->om_recursions);
	hs_off(&n, "ObjectMonitor", "_contentions", &L->om_contentions);
	hs_type_size(&n, "ObjectMonitor", &L->om_size);
	const struct hs_field *ow = hs_vm_field(&j->vm, "ObjectMonitor", "_owner");
	int64_t no_owner;
	L->owner_is_id = ow && ow->tstring && strstr(ow->tstring, "int64") &&
			 hs_vm_long(&j->vm, "ObjectMonitor::NO_OWNER", &no_owner);
	if (L->owner_is_id)
		hs_off(&n, "JavaThread", "_monitor_owner_id", &L->jt_owner_id);
	else if (ow && ow->tstring && !strchr(ow->tstring, '*'))
		hs_missing(&n, "a pointer type of", "ObjectMonitor::_owner");
	L->has_anon = hs_vm_long(&j->vm, "ObjectMonitor::ANONYMOUS_OWNER", &L->anon_owner);
	struct need ls = { .j = j };
	hs_off(&ls, "JavaThread", "_lock_stack", &L->jt_lock_stack);
	hs_off(&ls, "LockStack", "_top", &L->ls_top);
	hs_off(&ls, "LockStack", "_base[0]", &L->ls_base);
	L->lock_stack = ls.len == 0;
	L->monitors = hs_complete(&n, "monitor owners");
}

/* A compressed pointer's base and shift: statics of TYPE named _base and
 * _shift, or (older JDKs) OLD._base and OLD._shift. */
static void lay_compressed(struct jvm *j, struct need *n, const char *type, const char *old,
			   uint64_t *base, int *shift)
{
	uint64_t base_a = 0, shift_a = 0;
	int32_t v = 0;
	char b[64], s[64];
	bool now = hs_vm_field(&j->vm, type, "_base") != NULL;
	snprintf(b, sizeof(b), "%s._base", old);
	snprintf(s, sizeof(s), "%s._shift", old);
	hs_addr_of(n, type, now ? "_base" : b, &base_a);
	hs_addr_of(n, type, now ? "_shift" : s, &shift_a);
	*base = hs_rd64(j, base_a);
	if (shift_a && hs_rd(j, shift_a, &v, 4) == 0)
		*shift = v;
}

static void lay_klass(struct jvm *j, struct need *n)
{
	struct lay *L = &j->L;
	if (L->ccp) {
		hs_off(n, "oopDesc", "_metadata._compressed_klass", &L->oop_klass);
		lay_compressed(j, n, "CompressedKlassPointers", "_narrow_klass", &L->klass_base,
			       &L->klass_shift);
	} else {
		hs_off(n, "oopDesc", "_metadata._klass", &L->oop_klass);
	}
}

static void lay_oops(struct jvm *j, struct need *n)
{
	struct lay *L = &j->L;
	if (L->coops)
		lay_compressed(j, n, "CompressedOops", "_narrow_oop", &L->oop_base, &L->oop_shift);
}

/* An array's length follows the header (mark word and class pointer);
 * its elements follow the length, aligned to 8 bytes.  With a full class
 * pointer that alignment changed in JDK 22 (element size instead of a
 * word), so only compressed class pointers are read. */
static void lay_arrays(struct jvm *j, struct need *n)
{
	struct lay *L = &j->L;
	if (!L->ccp) {
		hs_missing(n, "", "compressed class pointers (UseCompressedClassPointers is off)");
		return;
	}
	L->arr_length = L->oop_klass + 4;
	L->arr_base = (L->arr_length + 4 + 7) & ~(uint64_t)7;
}

/* JDK <= 20: InstanceKlass::_fields, an Array<u2> of FieldInfo records
 * whose slots and offset tags the int constants name. */
static bool lay_field_slots(struct jvm *j)
{
	struct lay *L = &j->L;
	struct need n = { .j = j };
	hs_off(&n, "InstanceKlass", "_fields", &L->ik_fields);
	hs_off(&n, "InstanceKlass", "_java_fields_count", &L->ik_java_fields_count);
	hs_off(&n, "Array<u2>", "_data", &L->u2_data);
	hs_int_const(&n, "FieldInfo::access_flags_offset", &L->fi_access);
	hs_int_const(&n, "FieldInfo::name_index_offset", &L->fi_name);
	hs_int_const(&n, "FieldInfo::signature_index_offset", &L->fi_sig);
	hs_int_const(&n, "FieldInfo::low_packed_offset", &L->fi_low);
	hs_int_const(&n, "FieldInfo::high_packed_offset", &L->fi_high);
	hs_int_const(&n, "FieldInfo::field_slots", &L->fi_slots);
	hs_int_const(&n, "FIELDINFO_TAG_SIZE", &L->tag_size);
	hs_int_const(&n, "FIELDINFO_TAG_OFFSET", &L->tag_offset);
	hs_int_const(&n, "JVM_ACC_FIELD_INTERNAL", &L->acc_internal);
	bool slots_ok = L->fi_slots > 0 && L->fi_slots <= 16;
	int64_t idx[5] = { L->fi_access, L->fi_name, L->fi_sig, L->fi_low, L->fi_high };
	for (int i = 0; i < 5; i++)
		slots_ok &= idx[i] >= 0 && idx[i] < L->fi_slots;
	return n.len == 0 && slots_ok && L->tag_size >= 0 && L->tag_size < 8;
}

/* JDK 21+: InstanceKlass::_fieldinfo_stream, an Array<u1> holding
 * UNSIGNED5-coded integers (utilities/unsigned5.hpp):
 *   java_fields injected_fields { name sig offset access flags
 *   [initval if flags has _ff_initialized] [generic sig if _ff_generic]
 *   [group if _ff_contended] }...
 * (oops/fieldInfo.hpp, unchanged from 21 to 25); the bit positions of the
 * flags come from the int constants. */
static bool lay_field_stream(struct jvm *j)
{
	struct lay *L = &j->L;
	struct need n = { .j = j };
	hs_off(&n, "InstanceKlass", "_fieldinfo_stream", &L->ik_stream);
	hs_off(&n, "Array<u1>", "_data", &L->u1_data);
	hs_int_const(&n, "FieldInfo::FieldFlags::_ff_initialized", &L->ff_init);
	hs_int_const(&n, "FieldInfo::FieldFlags::_ff_injected", &L->ff_injected);
	hs_int_const(&n, "FieldInfo::FieldFlags::_ff_generic", &L->ff_generic);
	hs_int_const(&n, "FieldInfo::FieldFlags::_ff_contended", &L->ff_contended);
	int64_t bits[4] = { L->ff_init, L->ff_injected, L->ff_generic, L->ff_contended };
	bool ok = n.len == 0;
	for (int i = 0; i < 4; i++)
		ok &= bits[i] >= 0 && bits[i] < 32;
	return ok;
}

static void lay_fields(struct jvm *j)
{
	struct lay *L = &j->L;
	struct need n = { .j = j };
	hs_off(&n, "InstanceKlass", "_constants", &L->ik_constants);
	hs_type_size(&n, "ConstantPool", &L->cp_size);
	L->fields = FIELDS_NONE;
	if (n.len)
		j->names_why = "the JVM's tables do not describe its constant pools";
	else if (hs_vm_field(&j->vm, "InstanceKlass", "_fields"))
		L->fields = lay_field_slots(j) ? FIELDS_SLOTS : FIELDS_NONE;
	else if (hs_vm_field(&j->vm, "InstanceKlass", "_fieldinfo_stream"))
		L->fields = lay_field_stream(j) ? FIELDS_STREAM : FIELDS_NONE;
	if (L->fields == FIELDS_NONE && !j->names_why)
		j->names_why = "the JVM's tables do not describe its Java field layout";
}

static void lay_objects(struct jvm *j)
{
	struct lay *L = &j->L;
	static const char *const names[] = { "UseCompressedOops", "UseCompressedClassPointers",
					     "UseCompactObjectHeaders" };
	static const int widths[] = { 1, 1, 1 };
	struct flag_want w[3] = { { names[0], 0, false }, { names[1], 0, false }, { names[2], 0, false } };
	if (!read_flags(j, w, widths, 3) || !w[0].found || !w[1].found) {
		j->names_why = "the UseCompressedOops / UseCompressedClassPointers flags are unreadable";
		return;
	}
	if (w[2].found && (w[2].value & 0xff)) {
		j->names_why = "UseCompactObjectHeaders is on: that object layout is not decoded";
		return;
	}
	L->coops = w[0].value & 0xff;
	L->ccp = w[1].value & 0xff;
	struct need n = { .j = j };
	lay_oops(j, &n);
	lay_klass(j, &n);
	lay_arrays(j, &n);
	hs_off(&n, "Klass", "_name", &L->klass_name);
	hs_off(&n, "Klass", "_super", &L->klass_super);
	hs_off(&n, "Symbol", "_length", &L->sym_length);
	hs_off(&n, "Symbol", "_body", &L->sym_body);
	L->objects = hs_complete(&n, "object classes and thread names");
	if (!L->objects)
		j->names_why = "the object layout is not described";
	else
		lay_fields(j);
}

/* ---- strings ---- */

static size_t put_utf8(char *out, size_t at, size_t len, uint32_t c)
{
	return lt_utf8_put(out, len, at, c);
}

/* LATIN1 (coder 0) or UTF-16 (coder 1, the machine's byte order) bytes to
 * UTF-8; lone surrogates become U+FFFD. */
static void decode_chars(const uint8_t *b, size_t nbytes, int coder, char *out, size_t len)
{
	size_t at = 0;
	if (coder == 0) {
		for (size_t i = 0; i < nbytes; i++)
			at = put_utf8(out, at, len, b[i]);
	} else {
		for (size_t i = 0; i + 1 < nbytes; i += 2) {
			uint32_t c = (uint32_t)(b[i] | b[i + 1] << 8);
			if (c >= 0xd800 && c < 0xdc00 && i + 3 < nbytes) {
				uint32_t d = (uint32_t)(b[i + 2] | b[i + 3] << 8);
				if (d >= 0xdc00 && d < 0xe000) {
					c = 0x10000 + ((c - 0xd800) << 10) + (d - 0xdc00);
					i += 2;
				} else {
					c = 0xfffd;
				}
			} else if (c >= 0xd800 && c < 0xe000) {
				c = 0xfffd;
			}
			at = put_utf8(out, at, len, c);
		}
	}
	out[at] = 0;
}

/* A java.lang.String (JDK 9+: byte[] value, byte coder), as UTF-8. */
static int java_string(struct jvm *j, uint64_t str, char *out, size_t len)
{
	uint64_t k = hs_klass_of(j, str);
	uint64_t vo = hs_field_offset(j, k, "value", "[B"), co = hs_field_offset(j, k, "coder", "B");
	if (!k || vo == UINT64_MAX || co == UINT64_MAX)
		return -ENOENT;
	uint8_t coder;
	int32_t n;
	uint64_t arr = hs_oop_field(j, str, vo);
	if (!arr || hs_rd(j, str + co, &coder, 1) || coder > 1 || hs_rd(j, arr + j->L.arr_length, &n, 4) ||
	    n < 0 || n > 4 * MAX_NAME)
		return -EFAULT;
	uint8_t buf[4 * MAX_NAME];
	if (n && hs_rd(j, arr + j->L.arr_base, buf, (size_t)n))
		return -EFAULT;
	decode_chars(buf, (size_t)n, coder, out, len);
	return 0;
}

/* ---- threads ---- */

/* The java.lang.Thread object of a JavaThread: an OopHandle, whose _obj
 * points to a slot holding the (uncompressed) oop. */
static void thread_name(struct jvm *j, struct jthread *t)
{
	char buf[MAX_NAME];
	uint64_t obj = hs_thread_obj(j, t->addr);
	uint64_t k = hs_klass_of(j, obj);
	uint64_t no = k ? hs_field_offset(j, k, "name", "Ljava/lang/String;") : UINT64_MAX;
	if (no == UINT64_MAX)
		return;
	uint64_t str = hs_oop_field(j, obj, no);
	if (str && java_string(j, str, buf, sizeof(buf)) == 0)
		t->name = lts_strdup(buf);
}

static void read_stack_range(const struct jvm *j, struct jthread *t)
{
	uint64_t base = hs_rd64(j, t->addr + j->L.jt_stack_base);
	uint64_t size = hs_rd64(j, t->addr + j->L.jt_stack_size);
	if (base && size && size < base) {
		t->stack_lo = base - size;
		t->stack_hi = base;
	}
}

static int read_thread(struct jvm *j, uint64_t jt, struct jthread *t)
{
	const struct lay *L = &j->L;
	int32_t tid = 0;
	memset(t, 0, sizeof(*t));
	t->addr = jt;
	/* the JavaThread's fields in one read when they lie close together
	 * (one system call a thread, not six) */
	uint64_t off[6] = { L->jt_osthread, L->jt_state, L->jt_pending, L->jt_stack_base, L->jt_stack_size,
			    L->owner_is_id ? L->jt_owner_id : L->jt_osthread };
	uint64_t lo = off[0], hi = off[0];
	for (int k = 1; k < 6; k++) {
		lo = off[k] < lo ? off[k] : lo;
		hi = off[k] > hi ? off[k] : hi;
	}
	uint8_t b[4096 + 8];
	if (hi + 8 - lo <= sizeof(b) && hs_rd(j, jt + lo, b, hi + 8 - lo) == 0) {
		uint64_t os, base, size;
		memcpy(&os, b + off[0] - lo, 8);
		if (!os || hs_rd(j, os + L->os_tid, &tid, 4) || tid <= 0)
			return -EFAULT;
		t->tid = tid;
		memcpy(&t->state, b + off[1] - lo, 4);
		memcpy(&t->pending, b + off[2] - lo, 8);
		memcpy(&base, b + off[3] - lo, 8);
		memcpy(&size, b + off[4] - lo, 8);
		if (base && size && size < base) {
			t->stack_lo = base - size;
			t->stack_hi = base;
		}
		if (L->owner_is_id)
			memcpy(&t->owner_id, b + off[5] - lo, 8);
		return 0;
	}
	uint64_t os = hs_rd64(j, jt + L->jt_osthread);
	if (!os || hs_rd(j, os + L->os_tid, &tid, 4) || tid <= 0)
		return -EFAULT;
	t->tid = tid;
	if (hs_rd(j, jt + L->jt_state, &t->state, 4))
		t->state = -1;
	t->pending = hs_rd64(j, jt + L->jt_pending);
	read_stack_range(j, t);
	if (L->owner_is_id && hs_rd(j, jt + L->jt_owner_id, &t->owner_id, 8))
		t->owner_id = 0;
	return 0;
}

static int read_threads(struct jvm *j)
{
	const struct lay *L = &j->L;
	uint64_t list = hs_rd64(j, L->java_thread_list);
	uint32_t len = 0, said = 0;
	if (!list || hs_rd(j, list + L->tl_length, &len, 4)) {
		lt_strlist_add(j->notes, "hotspot: %s: the Java thread list is unreadable", j->version);
		return 0;
	}
	if (len > MAX_THREADS) {
		lt_budget_note("hotspot: stopped reading HotSpot threads after %d: the JVM's thread list "
			       "says %u", MAX_THREADS, len);
		said = len;
		len = MAX_THREADS;
	}
	uint64_t arr = hs_rd64(j, list + L->tl_threads);
	uint64_t *v = calloc(len ? len : 1, 8);
	j->t = calloc(len ? len : 1, sizeof(*j->t));
	if (!v || !j->t) {
		free(v);
		return -ENOMEM;
	}
	if (len && hs_rd(j, arr, v, (size_t)len * 8)) {
		lt_strlist_add(j->notes, "hotspot: %s: the Java thread list's array is unreadable", j->version);
		len = 0;
	}
	size_t bad = 0, dup = 0;
	for (uint32_t i = 0; i < len; i++) {
		if ((i & 255) == 0 && lt_budget_over()) {
			lt_budget_note("hotspot: stopped reading HotSpot threads after %u of %u: the "
				       "snapshot's time ran out", i, said ? said : len);
			break;
		}
		if (v[i] && lt_u64map_get(&j->by_addr, v[i])) {
			dup++; /* the same JavaThread twice: once is enough */
		} else if (v[i] && read_thread(j, v[i], &j->t[j->n]) == 0) {
			j->n++;
			if (lt_u64map_put(&j->by_addr, v[i], (void *)(uintptr_t)j->n) ||
			    (j->t[j->n - 1].owner_id &&
			     !lt_u64map_get(&j->by_owner_id, (uint64_t)j->t[j->n - 1].owner_id) &&
			     lt_u64map_put(&j->by_owner_id, (uint64_t)j->t[j->n - 1].owner_id,
					   (void *)(uintptr_t)j->n))) {
				free(v);
				return -ENOMEM;
			}
		} else {
			bad++;
		}
	}
	if (dup)
		lt_budget_note("hotspot: the Java thread list names %zu JavaThread(s) more than once "
			       "(not a list a JVM keeps): each read once", dup);
	if (bad)
		lt_strlist_add(j->notes, "hotspot: %s: %zu of %u Java threads could not be read (exiting?)",
			       j->version, bad, len);
	free(v);
	return 0;
}

static const struct jthread *thread_at(const struct jvm *j, uint64_t jt)
{
	uintptr_t k = jt ? (uintptr_t)lt_u64map_get(&j->by_addr, jt) : 0;
	return k ? &j->t[k - 1] : NULL;
}

/* the JVM whose stacks stack_cmp sorts (qsort has no argument) */
static __thread const struct jvm *t_sort_jvm;

static int stack_cmp(const void *a, const void *b)
{
	const struct jvm *j = t_sort_jvm;
	uint64_t x = j->t[*(const size_t *)a].stack_lo, y = j->t[*(const size_t *)b].stack_lo;
	return x < y ? -1 : x > y;
}

/* The Java thread whose stack holds ADDR (binary search over the stacks
 * sorted once by their low end; a few overlapping ones are looked at). */
static const struct jthread *stack_holding(struct jvm *j, uint64_t addr)
{
	if (!j->by_stack) {
		if (!(j->by_stack = malloc((j->n ? j->n : 1) * sizeof(*j->by_stack))))
			return NULL;
		for (size_t i = 0; i < j->n; i++)
			j->by_stack[i] = i;
		t_sort_jvm = j;
		qsort(j->by_stack, j->n, sizeof(*j->by_stack), stack_cmp);
	}
	size_t lo = 0, hi = j->n; /* first with stack_lo > addr */
	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;
		if (j->t[j->by_stack[mid]].stack_lo <= addr)
			lo = mid + 1;
		else
			hi = mid;
	}
	for (size_t k = lo, tries = 0; k > 0 && tries < 8; k--, tries++) {
		const struct jthread *t = &j->t[j->by_stack[k - 1]];
		if (addr >= t->stack_lo && addr < t->stack_hi)
			return t;
	}
	return NULL;
}

/* ---- monitors ---- */

static struct lt_rtlock *new_monitor(struct jvm *j, struct lt_rtlock **v, size_t *n, uint64_t om)
{
	struct lt_rtlock *l = lt_rtlock_push(v, n);
	if (!l)
		return NULL;
	l->model = "hotspot";
	l->kind = KIND;
	l->version = lts_strdup(j->version);
	l->base = om;
	l->size = j->L.om_size;
	l->waiters_named = true;
	return l;
}

/* "LockA@0x71a3b2e40" from the monitor's _object (a WeakHandle: a pointer
 * to the slot that holds the oop). */
static uint64_t monitor_object(struct jvm *j, struct lt_rtlock *l, uint64_t om)
{
	char cls[MAX_NAME] = "?";
	uint64_t slot = hs_rd64(j, om + j->L.om_object);
	uint64_t obj = slot ? hs_rd64(j, slot) : 0;
	if (obj && j->L.objects && hs_class_name(j, hs_klass_of(j, obj), cls, sizeof(cls)))
		snprintf(cls, sizeof(cls), "?");
	l->name = lts_asprintf("%s@0x%" PRIx64, obj ? cls : "(object unreadable)", obj);
	lt_strlist_add(&l->facts, "ObjectMonitor=0x%" PRIx64 " object=0x%" PRIx64 " class=%s", om, obj,
		       j->L.objects ? cls : "(not read)");
	return obj;
}

static void set_holder(struct lt_rtlock *l, const struct jthread *t, char *how)
{
	l->held = 1;
	l->holder = t ? t->tid : 0;
	l->holder_how = how;
}

/* The thread whose lock stack (JDK 21+ lightweight locking) holds OBJ. */
static const struct jthread *lock_stack_owner(struct jvm *j, uint64_t obj)
{
	const struct lay *L = &j->L;
	if (j->lockobj_read || !L->lock_stack || !obj) {
		uintptr_t k = obj ? (uintptr_t)lt_u64map_get(&j->by_lockobj, obj) : 0;
		return k ? &j->t[k - 1] : NULL;
	}
	/* every lock stack read once, into a map from object to thread */
	j->lockobj_read = true;
	for (size_t i = 0; i < j->n; i++) {
		uint64_t ls = j->t[i].addr + L->jt_lock_stack;
		uint32_t top;
		uint64_t ent[16];
		if (hs_rd(j, ls + L->ls_top, &top, 4))
			continue;
		/* _top is the byte offset of the next free slot from the
		 * JavaThread itself */
		uint64_t first = L->jt_lock_stack + L->ls_base;
		if (top < first || (top - first) % 8 || (top - first) / 8 > 16)
			continue;
		size_t cnt = (top - first) / 8;
		if (cnt && hs_rd(j, ls + L->ls_base, ent, cnt * 8))
			continue;
		for (size_t k = 0; k < cnt; k++)
			if (ent[k] && !lt_u64map_get(&j->by_lockobj, ent[k]) &&
			    lt_u64map_put(&j->by_lockobj, ent[k], (void *)(uintptr_t)(i + 1)))
				return NULL;
	}
	return lock_stack_owner(j, obj);
}

static void owner_by_pointer(struct jvm *j, struct lt_rtlock *l, uint64_t owner, uint64_t obj)
{
	const struct jthread *t = thread_at(j, owner);
	if (t) {
		set_holder(l, t, lts_asprintf("ObjectMonitor::_owner is JavaThread 0x%" PRIx64 " (tid %d)",
					      owner, (int)t->tid));
		return;
	}
	if ((t = stack_holding(j, owner))) {
		set_holder(l, t, lts_asprintf("ObjectMonitor::_owner 0x%" PRIx64 " is a BasicLock "
					      "in the stack of thread %d (stack-locked, "
					      "then inflated)", owner, (int)t->tid));
		return;
	}
	if (j->L.has_anon && (int64_t)owner == j->L.anon_owner) {
		t = lock_stack_owner(j, obj);
		set_holder(l, t, t ? lts_asprintf("anonymous owner; the object is on the lock stack of thread "
						  "%d", (int)t->tid)
				   : lts_strdup("anonymous owner, and no Java thread's lock stack holds the object"));
		return;
	}
	set_holder(l, NULL, lts_asprintf("ObjectMonitor::_owner 0x%" PRIx64 " is no Java thread and in no "
					 "Java thread's stack", owner));
}

static void owner_by_id(struct jvm *j, struct lt_rtlock *l, int64_t owner, uint64_t obj)
{
	if (j->L.has_anon && owner == j->L.anon_owner) {
		const struct jthread *t = lock_stack_owner(j, obj);
		set_holder(l, t, t ? lts_asprintf("ObjectMonitor::_owner is ANONYMOUS_OWNER and the object is on "
						  "the lock stack of thread %d", (int)t->tid)
				   : lts_strdup("ObjectMonitor::_owner is ANONYMOUS_OWNER and no Java thread's "
						"lock stack holds the object"));
		return;
	}
	uintptr_t k = owner ? (uintptr_t)lt_u64map_get(&j->by_owner_id, (uint64_t)owner) : 0;
	if (k) {
		set_holder(l, &j->t[k - 1], lts_asprintf("ObjectMonitor::_owner %" PRId64 " is the "
							 "_monitor_owner_id of thread %d", owner,
							 (int)j->t[k - 1].tid));
		return;
	}
	set_holder(l, NULL, lts_asprintf("ObjectMonitor::_owner %" PRId64 " is no Java thread's "
					 "_monitor_owner_id", owner));
}

/* Decodes the monitor at OM into L; returns the raw _owner read (for the
 * second read), 0 if unreadable. */
static uint64_t decode_monitor(struct jvm *j, struct lt_rtlock *l, uint64_t om)
{
	const struct lay *L = &j->L;
	uint64_t owner = 0;
	int64_t rec = 0;
	int32_t cont = 0;
	uint64_t obj = monitor_object(j, l, om);
	if (hs_rd(j, om + L->om_owner, &owner, 8)) {
		l->holder_how = lts_asprintf("ObjectMonitor 0x%" PRIx64 " is unreadable", om);
		return 0;
	}
	if (hs_rd(j, om + L->om_recursions, &rec, 8) == 0 && hs_rd(j, om + L->om_contentions, &cont, 4) == 0)
		lt_strlist_add(&l->facts, "_owner=0x%" PRIx64 " _recursions=%" PRId64 " _contentions=%d", owner,
			       rec, (int)cont);
	int64_t no_owner = 0;
	if (L->owner_is_id)
		hs_vm_long(&j->vm, "ObjectMonitor::NO_OWNER", &no_owner);
	if ((int64_t)owner == no_owner) {
		l->held = 0;
		l->holder_how = lts_strdup("ObjectMonitor::_owner is empty: the monitor is free");
		return owner;
	}
	if (L->owner_is_id)
		owner_by_id(j, l, (int64_t)owner, obj);
	else
		owner_by_pointer(j, l, owner, obj);
	return owner;
}

/* The JVM runs on while it is read, and a snapshot is not atomic.  A wait
 * is claimed only if a second read finds the thread still blocked on the
 * same monitor, and a holder named only if the monitor's _owner has not
 * changed: a cycle built from values of different moments is never
 * reported. */
static void confirm(struct jvm *j, struct lt_rtlock *v, size_t first, size_t n, const uint64_t *owner,
		    size_t *idx)
{
	size_t gone = 0, unconfirmed = 0;
	for (size_t i = 0; i < j->n; i++) {
		int32_t state = -1;
		if (idx[i] && (i & 255) == 0 && lt_budget_over()) {
			/* out of time: a wait not read twice is not claimed */
			for (size_t k = i; k < j->n; k++)
				if (idx[k]) {
					idx[k] = 0;
					unconfirmed++;
				}
			lt_budget_note("hotspot: %zu Java monitor wait(s) not confirmed by a second read "
				       "(the snapshot's time ran out): not counted as waiting", unconfirmed);
			break;
		}
		uint64_t pending = hs_rd64(j, j->t[i].addr + j->L.jt_pending);
		if (idx[i] && (hs_rd(j, j->t[i].addr + j->L.jt_state, &state, 4) || state != j->L.blocked ||
			       pending != j->t[i].pending)) {
			idx[i] = 0;
			gone++;
		}
	}
	for (size_t k = first; k < n; k++) {
		uint64_t now = 0;
		if (v[k].held != 1 || (hs_rd(j, v[k].base + j->L.om_owner, &now, 8) == 0 && now == owner[k - first]))
			continue;
		char *how = lts_asprintf("_owner changed between two reads (0x%" PRIx64 ", then 0x%" PRIx64
					 "): the holder is not named", owner[k - first], now);
		free(v[k].holder_how);
		v[k].holder_how = how;
		v[k].held = -1;
		v[k].holder = 0;
	}
	if (gone)
		lt_strlist_add(j->notes, "hotspot: %s: %zu thread(s) left their monitor wait while being read: "
			       "not counted as waiting", j->version, gone);
}

/* One lock per monitor that a blocked thread waits to enter; *idx gets
 * 1 + its index in *v for each thread (0: waits for none). */
static int monitors(struct jvm *j, struct lt_rtlock **v, size_t *n, size_t first, size_t *idx)
{
	uint64_t *owner = calloc(j->n ? j->n : 1, sizeof(*owner));
	struct lt_u64map at = { 0 }; /* monitor address -> idx */
	if (!owner)
		return -ENOMEM;
	for (size_t i = 0; i < j->n; i++) {
		const struct jthread *t = &j->t[i];
		idx[i] = 0;
		if (!t->pending || t->state != j->L.blocked)
			continue;
		if ((idx[i] = (uintptr_t)lt_u64map_get(&at, t->pending)))
			continue;
		if ((i & 255) == 0 && lt_budget_over()) {
			lt_budget_note("hotspot: stopped reading Java monitors after %zu: the snapshot's "
				       "time ran out", *n - first);
			break;
		}
		struct lt_rtlock *l = new_monitor(j, v, n, t->pending);
		if (!l || lt_u64map_put(&at, t->pending, (void *)(uintptr_t)(*n - first))) {
			free(owner);
			lt_u64map_free(&at);
			return -ENOMEM;
		}
		owner[*n - 1 - first] = decode_monitor(j, l, t->pending);
		idx[i] = *n - first;
	}
	lt_u64map_free(&at);
	confirm(j, *v, first, *n, owner, idx);
	free(owner);
	return 0;
}

/* ---- Object.wait() ---- */

void hs_notify_lock(const struct jvm *j, struct lt_rtlock *l, const char *kind, uint64_t base,
		    const char *wait_call, const char *wake_call)
{
	l->model = "hotspot";
	l->kind = kind;
	l->version = lts_strdup(j->version);
	l->base = base;
	l->size = 0; /* the waiters sleep on their own ParkEvents or Parkers */
	l->waiters = -1;
	l->waiters_named = true;
	l->wait_call = wait_call;
	l->wake_call = wake_call;
}

size_t hs_notify_lock_at(const struct lt_rtlock *v, size_t first, size_t n, uint64_t base, pid_t holder)
{
	for (size_t k = first; k < n; k++)
		if (v[k].wait_call && v[k].base == base && v[k].holder == holder)
			return k - first + 1;
	return 0;
}

bool hs_keeps(const struct jvm *j, pid_t tid)
{
	return lt_rt_keeps(j->e->s && tid > 0 ? lt_snapshot_find(j->e->s, tid) : NULL);
}

/* Is thread TID blocked entering a monitor, by the JVM's own state (a
 * pending monitor, state _thread_blocked, read again)?  Such a thread
 * keeps the monitors it holds until it enters that one, however often its
 * timed park wakes it to try again (HotSpot's waiter that is responsible
 * for the monitor re-checks every 1 ms to 1 s): the kernel's view of it
 * (lt_rt_keeps: asleep 0.2 s, not moved) would call it running. */
static bool hs_blocked_entering(struct jvm *j, pid_t tid)
{
	const struct lay *L = &j->L;
	for (size_t i = 0; i < j->n; i++) {
		const struct jthread *t = &j->t[i];
		if (t->tid != tid)
			continue;
		int32_t state = -1;
		return t->pending && t->state == L->blocked && hs_rd64(j, t->addr + L->jt_pending) == t->pending &&
		       !hs_rd(j, t->addr + L->jt_state, &state, 4) && state == L->blocked;
	}
	return false;
}

/* A thread in Object.wait() has released the monitor and waits for a
 * notify(), which raises IllegalMonitorStateException unless its caller
 * owns the monitor: while another thread owns it, that thread is the only
 * one that can end the wait.  Read twice, as monitor enters are. */
int hs_monitor_waits(struct jvm *j, struct lt_rtlock **v, size_t *n, size_t first, size_t *idx)
{
	const struct lay *L = &j->L;
	if (!L->jt_waiting || !L->monitors)
		return 0;
	for (size_t i = 0; i < j->n; i++) {
		const struct jthread *t = &j->t[i];
		if (idx[i] || t->pending || t->state != L->blocked)
			continue;
		if ((i & 255) == 0 && lt_budget_over()) {
			lt_budget_note("hotspot: stopped reading Object.wait() monitors at thread %zu of %zu: "
				       "the snapshot's time ran out", i, j->n);
			break;
		}
		uint64_t om = hs_rd64(j, t->addr + L->jt_waiting);
		if (!om)
			continue;
		uint64_t slot = hs_rd64(j, om + L->om_object), obj = slot ? hs_rd64(j, slot) : 0;
		/* a Thread.join(): a wait for that thread's exit, whoever owns
		 * the monitor (nobody, mostly) */
		int jr = hs_join_wait(j, t, om, obj, v, n, first, &idx[i]);
		if (jr < 0)
			return jr;
		if (jr)
			continue;
		struct lt_rtlock l = { 0 };
		uint64_t owner = decode_monitor(j, &l, om), again = 0;
		int32_t state = -1;
		if (l.held != 1 || l.holder <= 0 || l.holder == t->tid || !obj ||
		    !(hs_keeps(j, l.holder) || hs_blocked_entering(j, l.holder)) ||
		    hs_rd(j, om + L->om_owner, &again, 8) || again != owner ||
		    hs_rd64(j, t->addr + L->jt_waiting) != om || hs_rd(j, t->addr + L->jt_state, &state, 4) ||
		    state != L->blocked) {
			/* free, its own, held for a moment by a thread that runs,
			 * or moved on: an event wait, as before */
			lt_rtlock_clear(&l);
			continue;
		}
		/* its identity is the object (the monitor's enters are the
		 * ObjectMonitor's): a notify() wait and a wait to enter are two
		 * waits, not one lock */
		uint64_t base = obj;
		if ((idx[i] = hs_notify_lock_at(*v, first, *n, base, l.holder))) {
			lt_rtlock_clear(&l);
			continue;
		}
		struct lt_rtlock *p = lt_rtlock_push(v, n);
		if (!p) {
			lt_rtlock_clear(&l);
			return -ENOMEM;
		}
		*p = l;
		hs_notify_lock(j, p, "Java monitor (Object.wait)", base, "Object.wait()", "notify()");
		p->held_what = lts_strdup("monitor");
		idx[i] = *n - first;
	}
	return 0;
}

/* ---- entry point ---- */

static int emit_threads(struct jvm *j, const size_t *idx, struct lt_rtthread **th, size_t *nth)
{
	*th = calloc(j->n ? j->n : 1, sizeof(**th));
	if (!*th)
		return -ENOMEM;
	*nth = j->n;
	for (size_t i = 0; i < j->n; i++) {
		struct lt_rtthread *r = &(*th)[i];
		r->tid = j->t[i].tid;
		r->lang = "java";
		r->name = j->t[i].name;
		r->waits = idx ? idx[i] : 0;
		j->t[i].name = NULL;
		const struct lt_thread *t = j->e->s ? lt_snapshot_find(j->e->s, r->tid) : NULL;
		if (lt_budget_over())
			continue; /* said by the budget: no more Java stacks */
		if (hs_java_stack(j, &j->t[i], t, r) == -ENOMEM)
			return -ENOMEM;
	}
	if (j->frames_bad)
		lt_strlist_add(j->notes, "hotspot: %s: the Java frames of %zu thread(s) could not be read "
			       "(their last Java frame is not where the JVM recorded it: moving?)", j->version,
			       j->frames_bad);
	return 0;
}

static void jvm_free(struct jvm *j)
{
	for (size_t i = 0; i < j->n; i++)
		free(j->t[i].name);
	free(j->t);
	free(j->by_stack);
	lt_u64map_free(&j->by_addr);
	lt_u64map_free(&j->by_owner_id);
	lt_u64map_free(&j->by_lockobj);
	hs_strcache_free(j->sc);
	hs_vm_free(&j->vm);
}

static void read_names(struct jvm *j)
{
	size_t named = 0;
	if (!j->names_why)
		for (size_t i = 0; i < j->n && !lt_budget_over(); i++) {
			thread_name(j, &j->t[i]);
			named += j->t[i].name != NULL;
		}
	if (j->names_why)
		lt_strlist_add(j->notes, "hotspot: %s: Java thread names not read: %s", j->version,
			       j->names_why);
	else if (named < j->n)
		lt_strlist_add(j->notes, "hotspot: %s: %zu of %zu Java thread names were unreadable "
			       "(a GC moving objects?)", j->version, j->n - named, j->n);
}

int hs_jvm_open(struct jvm *j)
{
	int rc = hs_vm_read(j->e, &j->vm, j->notes);
	if (rc)
		return rc == -EIO ? -ENOENT : rc;
	j->sc = hs_strcache_new();
	identify(j);
	if (!lay_threads(j)) {
		jvm_free(j);
		return -ENOENT;
	}
	/* the monitors' layout says what a thread's owner id is: first */
	lay_objects(j);
	lay_monitors(j);
	hs_lay_frames(j);
	return 0;
}

int hs_read_thread(struct jvm *j, uint64_t jt, struct jthread *t)
{
	return read_thread(j, jt, t);
}

void hs_jvm_free(struct jvm *j)
{
	jvm_free(j);
}

static int scan(const struct lt_lm_env *e, struct lt_rtlock **v, size_t *n, struct lt_rtthread **th,
		size_t *nth, struct lt_strlist *notes)
{
	struct jvm j = { .e = e, .notes = notes };
	size_t first = *n; /* the scan's first lock: idx counts from it */
	int rc = hs_jvm_open(&j);
	if (rc)
		return rc == -ENOENT ? 0 : rc;
	if ((rc = read_threads(&j)) < 0) {
		jvm_free(&j);
		return rc;
	}
	read_names(&j);
	size_t *idx = calloc(j.n ? j.n : 1, sizeof(*idx));
	if (!idx)
		rc = -ENOMEM;
	else if (j.L.monitors)
		rc = monitors(&j, v, n, *n, idx);
	if (rc == 0 && j.L.objects && !j.names_why && j.L.fields != FIELDS_NONE)
		rc = hs_juc_locks(&j, v, n, first, idx);
	if (rc == 0)
		rc = hs_monitor_waits(&j, v, n, first, idx);
	if (rc == 0 && j.L.objects && !j.names_why && j.L.fields != FIELDS_NONE)
		rc = hs_juc_awaits(&j, v, n, first, idx);
	if (rc == 0 && j.L.objects && !j.names_why && j.L.fields != FIELDS_NONE)
		rc = hs_juc_futures(&j, v, n, first, idx);
	if (rc == 0)
		rc = emit_threads(&j, idx, th, nth);
	if (rc == 0 && j.L.objects && !j.names_why && j.L.fields != FIELDS_NONE && !lt_budget_over())
		rc = hs_juc_parties(&j, idx, *th);
	free(idx);
	jvm_free(&j);
	return rc;
}

const struct lt_lockmodel lt_lm_hotspot = { .name = "hotspot", .scan = scan };
