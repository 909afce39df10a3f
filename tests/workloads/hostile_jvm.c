/*
 * hostile_jvm - a process that impersonates a HotSpot JVM: it exports
 * gHotSpotVMStructs and the other self-description tables of libjvm, with
 * a Java thread list of N fake JavaThreads, each "blocked" on an
 * ObjectMonitor of its own owned by the next one (the last one's owner is
 * no thread).  None of them is a real thread (their tids are 2,000,000 +
 * i): what it tests is what reading such a target costs locktrace (time,
 * memory), not what it finds.
 *
 *   hostile_jvm [-t THREADS=100000] [--no-wait]
 *
 * Prints:
 *   pid=PID
 *   jvm threads=N list=0x...
 *   ready
 * then hangs until killed.
 */
#include "workload.h"
#include <stddef.h>
#include <stdint.h>

#define USAGE "[-t THREADS] [--no-wait]"

/* the entry layouts, our own (the reader takes them from the exported
 * offsets below) */
struct vs_entry {
	const char *type, *field, *tstring;
	int32_t is_static, pad;
	uint64_t offset;
	void *address;
};
struct vt_entry {
	const char *name, *super;
	int32_t is_oop, is_int, is_unsigned, pad;
	uint64_t size;
};
struct vc_entry {
	const char *name;
	int32_t value, pad;
};
struct vl_entry {
	const char *name;
	int64_t value;
};

/* the fake JVM's own objects */
struct fjt {
	uint64_t osthread, threadobj;
	int32_t state, pad;
	uint64_t pending, stack_base, stack_size;
};
struct fos {
	int32_t tid, pad;
};
struct fom {
	uint64_t object, owner;
	int64_t recursions;
	int32_t contentions, pad;
};
struct ftl {
	uint32_t pad, length;
	uint64_t threads;
};

#define BLOCKED 10

/* what libjvm exports */
uint64_t gHotSpotVMStructs, gHotSpotVMStructEntryArrayStride, gHotSpotVMStructEntryTypeNameOffset,
	gHotSpotVMStructEntryFieldNameOffset, gHotSpotVMStructEntryTypeStringOffset,
	gHotSpotVMStructEntryIsStaticOffset, gHotSpotVMStructEntryOffsetOffset,
	gHotSpotVMStructEntryAddressOffset;
uint64_t gHotSpotVMTypes, gHotSpotVMTypeEntryArrayStride, gHotSpotVMTypeEntryTypeNameOffset,
	gHotSpotVMTypeEntrySuperclassNameOffset, gHotSpotVMTypeEntryIsOopTypeOffset,
	gHotSpotVMTypeEntryIsIntegerTypeOffset, gHotSpotVMTypeEntryIsUnsignedOffset,
	gHotSpotVMTypeEntrySizeOffset;
uint64_t gHotSpotVMIntConstants, gHotSpotVMIntConstantEntryArrayStride,
	gHotSpotVMIntConstantEntryNameOffset, gHotSpotVMIntConstantEntryValueOffset;
uint64_t gHotSpotVMLongConstants, gHotSpotVMLongConstantEntryArrayStride,
	gHotSpotVMLongConstantEntryNameOffset, gHotSpotVMLongConstantEntryValueOffset;

static struct ftl *java_thread_list;
static const char *vm_release = "17.0.99-hostile";

#define F(t, f, ts, st, v) { t, f, ts, st, 0, (st) ? 0 : (uint64_t)(v), (st) ? (void *)(v) : NULL }

static struct vs_entry structs[] = {
	F("ThreadsSMRSupport", "_java_thread_list", "ThreadsList*", 1, &java_thread_list),
	F("ThreadsList", "_length", "const uint", 0, offsetof(struct ftl, length)),
	F("ThreadsList", "_threads", "JavaThread *const *const", 0, offsetof(struct ftl, threads)),
	F("JavaThread", "_osthread", "OSThread*", 0, offsetof(struct fjt, osthread)),
	F("JavaThread", "_threadObj", "OopHandle", 0, offsetof(struct fjt, threadobj)),
	F("JavaThread", "_thread_state", "JavaThreadState", 0, offsetof(struct fjt, state)),
	F("JavaThread", "_current_pending_monitor", "ObjectMonitor*", 0, offsetof(struct fjt, pending)),
	F("JavaThread", "_stack_base", "address", 0, offsetof(struct fjt, stack_base)),
	F("JavaThread", "_stack_size", "size_t", 0, offsetof(struct fjt, stack_size)),
	F("OSThread", "_thread_id", "pid_t", 0, offsetof(struct fos, tid)),
	F("OopHandle", "_obj", "oop*", 0, 0),
	F("ObjectMonitor", "_object", NULL, 0, offsetof(struct fom, object)),
	F("ObjectMonitor", "_owner", NULL, 0, offsetof(struct fom, owner)),
	F("ObjectMonitor", "_recursions", "intx", 0, offsetof(struct fom, recursions)),
	F("ObjectMonitor", "_contentions", "jint", 0, offsetof(struct fom, contentions)),
	F("Abstract_VM_Version", "_s_vm_release", "const char*", 1, &vm_release),
	{ 0 },
};

static struct vt_entry types[] = {
	{ "JavaThread", NULL, 0, 0, 0, 0, sizeof(struct fjt) },
	{ "OSThread", NULL, 0, 0, 0, 0, sizeof(struct fos) },
	{ "ObjectMonitor", NULL, 0, 0, 0, 0, sizeof(struct fom) },
	{ 0 },
};

static struct vc_entry ints[] = { { "_thread_blocked", BLOCKED, 0 }, { 0 } };
static struct vl_entry longs[] = { { 0 } };

int main(int argc, char **argv)
{
	long n = 100000;
	int no_wait;
	wl_args_threads(argc, argv, &n, 1, 10000000, &no_wait, USAGE);

	gHotSpotVMStructEntryArrayStride = sizeof(struct vs_entry);
	gHotSpotVMStructEntryTypeNameOffset = offsetof(struct vs_entry, type);
	gHotSpotVMStructEntryFieldNameOffset = offsetof(struct vs_entry, field);
	gHotSpotVMStructEntryTypeStringOffset = offsetof(struct vs_entry, tstring);
	gHotSpotVMStructEntryIsStaticOffset = offsetof(struct vs_entry, is_static);
	gHotSpotVMStructEntryOffsetOffset = offsetof(struct vs_entry, offset);
	gHotSpotVMStructEntryAddressOffset = offsetof(struct vs_entry, address);
	gHotSpotVMTypeEntryArrayStride = sizeof(struct vt_entry);
	gHotSpotVMTypeEntryTypeNameOffset = offsetof(struct vt_entry, name);
	gHotSpotVMTypeEntrySuperclassNameOffset = offsetof(struct vt_entry, super);
	gHotSpotVMTypeEntryIsOopTypeOffset = offsetof(struct vt_entry, is_oop);
	gHotSpotVMTypeEntryIsIntegerTypeOffset = offsetof(struct vt_entry, is_int);
	gHotSpotVMTypeEntryIsUnsignedOffset = offsetof(struct vt_entry, is_unsigned);
	gHotSpotVMTypeEntrySizeOffset = offsetof(struct vt_entry, size);
	gHotSpotVMIntConstantEntryArrayStride = sizeof(struct vc_entry);
	gHotSpotVMIntConstantEntryNameOffset = offsetof(struct vc_entry, name);
	gHotSpotVMIntConstantEntryValueOffset = offsetof(struct vc_entry, value);
	gHotSpotVMLongConstantEntryArrayStride = sizeof(struct vl_entry);
	gHotSpotVMLongConstantEntryNameOffset = offsetof(struct vl_entry, name);
	gHotSpotVMLongConstantEntryValueOffset = offsetof(struct vl_entry, value);

	struct fjt *jt = calloc((size_t)n, sizeof(*jt));
	struct fos *os = calloc((size_t)n, sizeof(*os));
	struct fom *om = calloc((size_t)n, sizeof(*om));
	uint64_t *arr = calloc((size_t)n, sizeof(*arr));
	java_thread_list = calloc(1, sizeof(*java_thread_list));
	if (!jt || !os || !om || !arr || !java_thread_list) {
		fprintf(stderr, "out of memory\n");
		return 1;
	}
	for (long i = 0; i < n; i++) {
		os[i].tid = (int32_t)(2000000 + i);
		jt[i].osthread = (uint64_t)(uintptr_t)&os[i];
		jt[i].state = BLOCKED;
		jt[i].pending = (uint64_t)(uintptr_t)&om[i];
		jt[i].stack_base = 0x7e0000000000ull + (uint64_t)i * 0x100000;
		jt[i].stack_size = 0x80000;
		om[i].owner = i + 1 < n ? (uint64_t)(uintptr_t)&jt[i + 1] : 0x12345678;
		om[i].contentions = 1;
		arr[i] = (uint64_t)(uintptr_t)&jt[i];
	}
	java_thread_list->length = (uint32_t)n;
	java_thread_list->threads = (uint64_t)(uintptr_t)arr;
	/* published last: a reader sees whole tables */
	gHotSpotVMTypes = (uint64_t)(uintptr_t)types;
	gHotSpotVMIntConstants = (uint64_t)(uintptr_t)ints;
	gHotSpotVMLongConstants = (uint64_t)(uintptr_t)longs;
	gHotSpotVMStructs = (uint64_t)(uintptr_t)structs;

	wl_begin();
	printf("jvm threads=%ld list=%p\n", n, (void *)java_thread_list);
	wl_gate(no_wait);
	wl_hang();
}
