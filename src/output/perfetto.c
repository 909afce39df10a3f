// SPDX-License-Identifier: MIT
/*
 * The Perfetto writer (src/output/perfetto.h): turns the timeline
 * model's callbacks into TracePacket records, written one by one through
 * pb_buf's sink.  Field numbers are Perfetto's (protos/perfetto/trace);
 * docs/perfetto.md says what the UI makes of them.
 *
 * Choices that shape the file:
 *  - One packet sequence (SEQ_ID) carries everything that is interned: slice
 *    names, annotation keys, and the few string values that repeat (futex
 *    operations, errno names).  Its first packet clears the incremental
 *    state; packets that use interned ids say they need it.
 *  - A call's BEGIN and END are written together when the call ends: only
 *    then are the threads it woke known, and their flow ids belong on its
 *    BEGIN (trace_processor sorts by time and starts a flow at its earliest
 *    event; the woken wait's end, which terminates the flow, may precede
 *    the waker's own END).  A flow ends on an instant "woken" at the end of
 *    the wait it ended, nested in it.
 *  - Futex waiter counts ride on the slices that change them (TrackEvent
 *    extra_counter_values) instead of separate counter packets: same
 *    counter track, a third of the bytes.
 *  - Scheduler records are full-form FtraceEvents in per-cpu bundles.  A
 *    comm is written the first time a thread appears and when it changes:
 *    trace_processor ignores an absent comm, and the names cost more than
 *    everything else in a switch.
 *  - Nested messages get a one-byte length (begin_small/end_small) and
 *    annotations are written with their exact length up front: pb_end's
 *    padded four-byte lengths would add a quarter to every annotation.
 */
#include <errno.h>
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>
#include "filelock.h"
#include "lockid.h"
#include "pb.h"
#include "perfetto.h"
#include "stacks.h"
#include "taskrun.h"
#include "u64map.h"
#include "utf8.h"

/* ---- schema: field numbers of the messages written ------------------- */

enum { /* TracePacket */
	TP_FTRACE_EVENTS = 1, TP_PROCESS_TREE = 2, TP_CLOCK_SNAPSHOT = 6, TP_TIMESTAMP = 8, TP_SEQ_ID = 10,
	TP_TRACK_EVENT = 11, TP_INTERNED_DATA = 12, TP_SEQ_FLAGS = 13, TP_SYSTEM_INFO = 45,
	TP_TRACK_DESCRIPTOR = 60, TP_FIRST_PACKET_ON_SEQ = 87, TP_GENERIC_TASK_STATE = 117,
};
enum { SEQ_INCREMENTAL_STATE_CLEARED = 1, SEQ_NEEDS_INCREMENTAL_STATE = 2 };
enum { CS_CLOCKS = 1, CS_PRIMARY_TRACE_CLOCK = 2, CLK_ID = 1, CLK_TIMESTAMP = 2 };
enum { CLOCK_ID_REALTIME = 1, CLOCK_ID_MONOTONIC = 3, CLOCK_ID_BOOTTIME = 6 };
enum { SI_UTSNAME = 1, SI_NUM_CPUS = 8, UTS_SYSNAME = 1, UTS_VERSION = 2, UTS_RELEASE = 3,
       UTS_MACHINE = 4 };
enum { PT_PROCESSES = 1, PTP_PID = 1, PTP_PPID = 2, PTP_CMDLINE = 3 }; /* ProcessTree{Process} */
enum { /* GenericKernelTaskStateEvent and its TaskStateEnum */
	GT_COMM = 2, GT_TID = 3, GT_STATE = 4,
	TASK_STATE_INTERRUPTIBLE_SLEEP = 4, TASK_STATE_UNINTERRUPTIBLE_SLEEP = 5,
	TASK_STATE_STOPPED = 6,
};
enum { /* TrackDescriptor and what it holds */
	TD_UUID = 1, TD_NAME = 2, TD_PROCESS = 3, TD_THREAD = 4, TD_PARENT_UUID = 5, TD_COUNTER = 8,
	PD_PID = 1, PD_CMDLINE = 2, PD_PROCESS_NAME = 6,
	THD_PID = 1, THD_TID = 2, THD_THREAD_NAME = 5,
	CD_UNIT = 3, CD_UNIT_COUNT = 2,
};
enum { /* TrackEvent */
	TE_DEBUG_ANNOTATIONS = 4, TE_TYPE = 9, TE_NAME_IID = 10, TE_TRACK_UUID = 11,
	TE_EXTRA_COUNTER_VALUES = 12, TE_EXTRA_COUNTER_TRACK_UUIDS = 31, TE_FLOW_IDS = 47,
	TE_TERMINATING_FLOW_IDS = 48, TE_CALLSTACK_IID = 56,
	TYPE_SLICE_BEGIN = 1, TYPE_SLICE_END = 2, TYPE_INSTANT = 3,
};
enum { /* DebugAnnotation */
	DA_NAME_IID = 1, DA_BOOL = 2, DA_UINT = 3, DA_INT = 4, DA_STRING = 6, DA_POINTER = 7,
	DA_STRING_IID = 17,
};
enum { /* InternedData: EventName / DebugAnnotationName {iid, name}, InternedString {iid, str} */
	ID_EVENT_NAMES = 2, ID_DEBUG_ANNOTATION_NAMES = 3, ID_DEBUG_ANNOTATION_STRINGS = 29,
	INTERNED_IID = 1, INTERNED_NAME = 2,
	/* interned callstacks (profile_common.proto): InternedString {iid, str},
	 * Frame {iid, function_name_id, source_path_iid, line_number},
	 * Callstack {iid, frame_ids (outermost first)} */
	ID_FUNCTION_NAMES = 5, ID_FRAMES = 6, ID_CALLSTACKS = 7, ID_SOURCE_PATHS = 18,
	FR_FUNCTION_NAME_ID = 2, FR_SOURCE_PATH_IID = 5, FR_LINE_NUMBER = 6, CSK_FRAME_IDS = 2,
};
enum { FB_CPU = 1, FB_EVENT = 2, FB_LOST_EVENTS = 3 }; /* FtraceEventBundle */
enum { /* FtraceEvent and the events used */
	FE_TIMESTAMP = 1, FE_PID = 2, FE_COMMON_FLAGS = 5, FE_SCHED_SWITCH = 4, FE_SCHED_WAKING = 20,
	FE_TASK_NEWTASK = 235, FE_TASK_RENAME = 236, FE_SCHED_PROCESS_EXIT = 238,
	SS_PREV_COMM = 1, SS_PREV_PID = 2, SS_PREV_PRIO = 3, SS_PREV_STATE = 4, SS_NEXT_COMM = 5,
	SS_NEXT_PID = 6, SS_NEXT_PRIO = 7,
	SW_COMM = 1, SW_PID = 2, SW_PRIO = 3, SW_SUCCESS = 4, SW_TARGET_CPU = 5,
	TN_PID = 1, TN_COMM = 2, TN_CLONE_FLAGS = 3,
	TR_PID = 1, TR_OLDCOMM = 2, TR_NEWCOMM = 3,
	PE_COMM = 1, PE_PID = 2, PE_TGID = 3,
};

/* Not 1: Perfetto's tracing service writes its own packets on sequence 1. */
#define SEQ_ID 2
#define PROCESS_UUID 1
#define UUID_BASE 16 /* + the timeline's uid of a thread or lock */
#define HELD_UUID_BASE (1ull << 40) /* + a thread's uid: its "lock held" track */
#define PROC_UUID_BASE (1ull << 41) /* + a tgid: the track of a process other than
				     * the trace's pid (several processes traced) */
#define FLUSH_BYTES (256u << 10)
#define BUNDLE_BYTES (32u << 10)

/* Debug annotation keys: their iid is their index. */
enum ann {
	A_NONE, A_ADDR, A_OP, A_EXPECTED, A_TIMEOUT_NS, A_RESULT, A_ERRNO, A_FD, A_BYTES, A_NFDS,
	A_ADDR2, A_NR_WAKE, A_FLAGS, A_BLOCKED_AT_START, A_BLOCKED_BEFORE_NS, A_UNFINISHED,
	A_NOTE, A_WOKEN_BY, A_WAKER_TID, A_COUNT, A_KIND, A_CPU, A_NR_FUTEXES, A_TID, A_CALL, A_LOCK, A_FD_KIND, A_MAX
};
static const char *const ann_names[A_MAX] = {
	[A_ADDR] = "addr", [A_OP] = "op", [A_EXPECTED] = "expected",
	[A_TIMEOUT_NS] = "timeout_ns", [A_RESULT] = "result", [A_ERRNO] = "errno",
	[A_FD] = "fd", [A_BYTES] = "bytes", [A_NFDS] = "nfds", [A_ADDR2] = "addr2",
	[A_NR_WAKE] = "nr_wake", [A_FLAGS] = "flags", [A_BLOCKED_AT_START] = "blocked_at_start",
	[A_BLOCKED_BEFORE_NS] = "blocked_before_ns", [A_UNFINISHED] = "unfinished",
	[A_NOTE] = "note", [A_WOKEN_BY] = "woken_by", [A_WAKER_TID] = "waker_tid",
	[A_COUNT] = "count", [A_KIND] = "kind", [A_CPU] = "cpu", [A_NR_FUTEXES] = "nr_futexes",
	[A_TID] = "tid", [A_CALL] = "call", [A_LOCK] = "lock", [A_FD_KIND] = "fd_kind",
};

static const char LOST_NAME[] = "lost events";
static const char WOKEN_NAME[] = "woken";
static const char UNSEEN_NAME[] = "switch-in not in the trace";
static const char UNSEEN_NOTE[] = "the switch that put this thread on the cpu was lost or not reported "
				  "by the kernel; placed at the thread's next event";

#define MAX_PENDING 8

struct pf_cpu {
	struct pb_buf b;     /* FtraceEvents of the bundle being filled */
	uint32_t last_next;  /* next_pid of the last switch written */
	uint8_t have_last, lost;
};

struct pf_tid {
	char comm[LT_COMM_LEN]; /* last comm written in a scheduler record */
	char name[LT_COMM_LEN]; /* target thread: its current name */
	uint8_t sent, target;
	uint32_t tgid;          /* target thread: its process */
};

/* A thread the header saw asleep: its state from the trace's start. */
struct pf_state {
	int32_t tid;
	int state; /* TASK_STATE_* */
	char comm[LT_COMM_LEN];
};

struct lt_perfetto {
	FILE *f;
	struct pb_buf out;
	uint64_t bytes;
	uint32_t pid;
	uint64_t attach_ts;
	/* the header's sleepers, written at the trace's start (on_start) */
	struct pf_state *states;
	uint32_t nstates;
	char process_name[LT_COMM_LEN];
	/* other processes (a trace of several): tgid -> struct pf_proc * */
	struct lt_u64map procs;
	const struct lt_proc_info *hprocs; /* the header's, copied */
	uint32_t nhprocs;
	const struct lt_lockid *ids;       /* lock keys of other processes */
	int kver_major, kver_minor; /* of the recorded kernel */
	/* interning */
	uint64_t ann_sent, ann_new;
	struct lt_u64map names;    /* static name string address -> iid */
	struct lt_u64map strings;  /* value key -> iid */
	uint64_t next_name_iid, next_string_iid;
	struct { uint64_t iid; const char *s; } new_names[MAX_PENDING];
	struct { uint64_t iid; char s[64]; } new_strings[MAX_PENDING];
	int nnew_names, nnew_strings;
	/* scheduler */
	struct pf_cpu *cpus;
	size_t ncpus;
	struct lt_u64map tids;     /* tid -> struct pf_tid * */
	/* lock naming */
	struct lt_namers namers;
	/* call stacks of waits (record --stacks) */
	const struct lt_stacktab *stacks;
	struct lt_u64map stack_iids;      /* stack id -> callstack iid */
	const struct lt_stack *new_stack; /* to intern in this packet */
	uint64_t new_stack_iid, next_stack_iid, next_frame_iid;
};

/* ---- encoding helpers ------------------------------------------------ */

static inline unsigned vlen(uint64_t v)
{
	unsigned n = 1;
	while (v >= 0x80) {
		v >>= 7;
		n++;
	}
	return n;
}

/* pb_begin/pb_end with a one-byte length: nearly every message written is
 * shorter than 128 bytes, so reserve one byte and move the payload up in
 * the rare case it is longer.  (pb_end's padded four-byte length would add
 * a quarter to every annotation; shrinking it afterwards costs a move of
 * every message.) */
static inline pb_tok begin_small(struct pb_buf *b, uint32_t field)
{
	if (!pb__room(b, PB_TAG_MAX + 1))
		return PB_TOK_NONE;
	b->p = pb__put_tag(b->p, field, PB_WT_LEN);
	pb_tok t = pb_buf_len(b);
	b->p++;
	b->depth++;
	return t;
}

static inline void end_small(struct pb_buf *b, pb_tok t)
{
	if (b->err || t == PB_TOK_NONE)
		return; /* the error is sticky and reported by pb_flush */
	size_t n = pb_buf_len(b) - t - 1;
	b->depth--;
	if (__builtin_expect(n < 128, 1)) {
		b->base[t] = (uint8_t)n;
		return;
	}
	unsigned extra = vlen(n) - 1;
	if (!pb__room(b, extra))
		return;
	uint8_t *q = b->base + t;
	memmove(q + 1 + extra, q + 1, n);
	pb__put_varint(q, n);
	b->p += extra;
}

static int count_sink(void *ctx, const uint8_t *data, size_t len)
{
	struct lt_perfetto *p = ctx;
	if (fwrite(data, 1, len, p->f) != len)
		return -(errno ? errno : EIO);
	p->bytes += len;
	return 0;
}

static void packet_end(struct lt_perfetto *p, pb_tok t)
{
	end_small(&p->out, t);
	if (pb_buf_len(&p->out) >= FLUSH_BYTES)
		pb_flush(&p->out);
}

static uint64_t thread_uuid(uint32_t uid)
{
	return UUID_BASE + (uint64_t)uid;
}

/* A name from the kernel (comm, cmdline): bytes, while Perfetto's strings
 * are UTF-8; invalid bytes become U+FFFD. */
static void put_name(struct pb_buf *b, uint32_t field, const char *s, size_t max)
{
	char buf[3 * 1024 + 1];
	size_t n = strnlen(s, max);
	if (n > 1024)
		n = 1024;
	for (size_t i = 0; i < n; i++) {
		if ((unsigned char)s[i] >= 0x80) { /* rare: check it */
			n = lt_utf8_sanitize(buf, sizeof(buf), s, n);
			pb_bytes(b, field, buf, n);
			return;
		}
	}
	pb_bytes(b, field, s, n);
}

static void put_comm(struct pb_buf *b, uint32_t field, const char *comm)
{
	put_name(b, field, comm, LT_COMM_LEN);
}

/* ---- scheduler states ------------------------------------------------- */

static void parse_release(const char *release, int *major, int *minor)
{
	if (!release || sscanf(release, "%d.%d", major, minor) != 2) {
		*major = 99; /* unknown: assume a current kernel */
		*minor = 0;
	}
}

static uint64_t report_state(uint64_t raw, int preempt, int major, int minor)
{
	if (major < 4 || (major == 4 && minor < 14)) {
		/* before 4.14 sched_switch reported the raw state, with
		 * TASK_STATE_MAX added for preemption (0x1000 from 4.8) */
		uint64_t max = major == 4 && minor >= 8 ? 0x1000 : 0x800;
		return preempt ? max : raw & (max - 1);
	}
	/* 4.14+: __trace_sched_switch_state(): TASK_REPORT_MAX (0x100) for a
	 * preempted task, else one bit: TASK_REPORT_IDLE (0x80) for TASK_IDLE,
	 * TASK_UNINTERRUPTIBLE for an rtlock waiter, else the highest bit of
	 * the state within TASK_REPORT (0x7f) */
	if (preempt)
		return 0x100;
	if ((raw & 0x402) == 0x402) /* TASK_IDLE = TASK_UNINTERRUPTIBLE | TASK_NOLOAD */
		return 0x80;
	if (raw & 0x1000) /* TASK_RTLOCK_WAIT */
		return 0x2;
	uint64_t st = raw & 0x7f;
	if (!st && (raw & 0x80)) /* TASK_DEAD: the exit state is not recorded */
		st = 0x10;          /* EXIT_DEAD */
	if (!st)
		return 0;
	return 1ull << (63 - __builtin_clzll(st));
}

uint64_t lt_report_prev_state(uint64_t raw, int preempt, const char *release)
{
	int major, minor;
	parse_release(release, &major, &minor);
	return report_state(raw, preempt, major, minor);
}

/* ---- interning ------------------------------------------------------- */

/* iid of a slice name; s must be a string with static storage (its address
 * is the key). */
static uint64_t name_iid(struct lt_perfetto *p, const char *s)
{
	uint64_t iid = (uint64_t)(uintptr_t)lt_u64map_get(&p->names, (uintptr_t)s);
	if (iid)
		return iid;
	if (p->nnew_names == MAX_PENDING) /* the caller then writes it inline */
		return 0;
	iid = ++p->next_name_iid;
	if (lt_u64map_put(&p->names, (uintptr_t)s, (void *)(uintptr_t)iid))
		return 0;
	p->new_names[p->nnew_names].iid = iid;
	p->new_names[p->nnew_names++].s = s;
	return iid;
}

/* iid of a repeating string value identified by key (non-zero); text(arg,
 * buf, len) makes the string, called only the first time.  0 if it could
 * not be interned (the caller then writes it inline). */
typedef const char *(*text_fn)(uint64_t arg, char *buf, size_t len);

static uint64_t string_iid(struct lt_perfetto *p, uint64_t key, text_fn text, uint64_t arg)
{
	uint64_t iid = (uint64_t)(uintptr_t)lt_u64map_get(&p->strings, key);
	if (iid)
		return iid;
	if (p->nnew_strings == MAX_PENDING)
		return 0;
	iid = ++p->next_string_iid;
	if (lt_u64map_put(&p->strings, key, (void *)(uintptr_t)iid))
		return 0;
	char *buf = p->new_strings[p->nnew_strings].s;
	const char *t = text(arg, buf, sizeof(p->new_strings[0].s));
	if (t != buf)
		snprintf(buf, sizeof(p->new_strings[0].s), "%s", t);
	p->new_strings[p->nnew_strings++].iid = iid;
	return iid;
}

/* The InternedData of a wait's stack first used by this packet: each frame
 * (its function name and source file as interned strings) and the
 * callstack, outermost frame first.  Frames carry no mapping: they are
 * symbolized already. */
static void intern_stack(struct lt_perfetto *p)
{
	struct pb_buf *b = &p->out;
	const struct lt_stack *st = p->new_stack;
	uint64_t first = p->next_frame_iid + 1;
	char fn[64];

	for (uint32_t i = 0; i < st->nframes; i++) {
		const struct lt_sframe *f = &st->frames[i];
		uint64_t iid = ++p->next_frame_iid;
		/* one iid per frame for its name, its file and itself: each
		 * table has its own iids */
		pb_tok e = begin_small(b, ID_FUNCTION_NAMES);
		pb_uint64(b, INTERNED_IID, iid);
		if (f->func) {
			char dm[256];
			put_name(b, INTERNED_NAME, lt_sframe_func(f, dm, sizeof(dm)), 1024);
		} else {
			snprintf(fn, sizeof(fn), "0x%" PRIx64, f->pc);
			pb_string(b, INTERNED_NAME, fn);
		}
		end_small(b, e);
		if (f->file) {
			e = begin_small(b, ID_SOURCE_PATHS);
			pb_uint64(b, INTERNED_IID, iid);
			put_name(b, INTERNED_NAME, f->file, 1024);
			end_small(b, e);
		}
		e = begin_small(b, ID_FRAMES);
		pb_uint64(b, INTERNED_IID, iid);
		pb_uint64(b, FR_FUNCTION_NAME_ID, iid);
		if (f->file)
			pb_uint64(b, FR_SOURCE_PATH_IID, iid);
		if (f->line)
			pb_uint32(b, FR_LINE_NUMBER, f->line);
		end_small(b, e);
	}
	pb_tok e = begin_small(b, ID_CALLSTACKS);
	pb_uint64(b, INTERNED_IID, p->new_stack_iid);
	for (uint32_t i = st->nframes; i-- > 0;)
		pb_uint64(b, CSK_FRAME_IDS, first + i);
	end_small(b, e);
	p->new_stack = NULL;
}

/* The callstack iid of the stack the wait s went to sleep with (or, for
 * a call that woke others, the waker's stack at its wake-up), 0 none;
 * a new one is interned by the packet being written. */
static uint64_t wait_stack_iid(struct lt_perfetto *p, const struct lt_span *s)
{
	const struct lt_stack *st = lt_stacktab_find(p->stacks, (int32_t)s->tid, lt_span_stack_ts(s),
						     LT_STACK_WAITER);
	if (!st) /* a waking call: the release site, where the flows begin */
		st = lt_stacktab_find(p->stacks, (int32_t)s->tid, lt_span_stack_ts(s), LT_STACK_WAKER);
	if (!st || !st->nframes)
		return 0;
	uint64_t iid = (uint64_t)(uintptr_t)lt_u64map_get(&p->stack_iids, st->id);
	if (iid)
		return iid;
	iid = ++p->next_stack_iid;
	if (lt_u64map_put(&p->stack_iids, st->id, (void *)(uintptr_t)iid))
		return 0;
	p->new_stack = st;
	p->new_stack_iid = iid;
	return iid;
}

void lt_perfetto_set_stacks(struct lt_perfetto *p, const struct lt_stacktab *stacks)
{
	p->stacks = stacks;
}

/* Writes the InternedData entries first used by the packet being written,
 * and the sequence fields; returns nothing: errors are sticky in out. */
static void packet_interned_tail(struct lt_perfetto *p)
{
	struct pb_buf *b = &p->out;
	if (p->ann_new || p->nnew_names || p->nnew_strings || p->new_stack) {
		/* one InternedData per packet: readers take one */
		pb_tok t = begin_small(b, TP_INTERNED_DATA);
		for (int i = 0; i < p->nnew_names; i++) {
			pb_tok e = begin_small(b, ID_EVENT_NAMES);
			pb_uint64(b, INTERNED_IID, p->new_names[i].iid);
			pb_string(b, INTERNED_NAME, p->new_names[i].s);
			end_small(b, e);
		}
		for (int k = 1; k < A_MAX; k++) {
			if (!(p->ann_new & (1ull << k)))
				continue;
			pb_tok e = begin_small(b, ID_DEBUG_ANNOTATION_NAMES);
			pb_uint64(b, INTERNED_IID, (uint64_t)k);
			pb_string(b, INTERNED_NAME, ann_names[k]);
			end_small(b, e);
		}
		for (int i = 0; i < p->nnew_strings; i++) {
			pb_tok e = begin_small(b, ID_DEBUG_ANNOTATION_STRINGS);
			pb_uint64(b, INTERNED_IID, p->new_strings[i].iid);
			pb_string(b, INTERNED_NAME, p->new_strings[i].s);
			end_small(b, e);
		}
		if (p->new_stack)
			intern_stack(p);
		end_small(b, t);
		p->ann_sent |= p->ann_new;
		p->ann_new = 0;
		p->nnew_names = p->nnew_strings = 0;
	}
	pb_uint32(b, TP_SEQ_ID, SEQ_ID);
	pb_uint32(b, TP_SEQ_FLAGS, SEQ_NEEDS_INCREMENTAL_STATE);
}

/* ---- debug annotations ----------------------------------------------- */

static void ann_key(struct lt_perfetto *p, enum ann k)
{
	if (!(p->ann_sent & (1ull << k)))
		p->ann_new |= 1ull << k;
}

/* DebugAnnotation { name_iid = k; <field> = v } for a varint-typed value,
 * its length known before writing (at most 14 bytes). */
static void ann_varint(struct lt_perfetto *p, enum ann k, uint32_t field, uint64_t v)
{
	struct pb_buf *b = &p->out;
	unsigned len = 1 + vlen(k) + vlen((uint64_t)field << 3) + vlen(v);

	ann_key(p, k);
	if (!pb__room(b, 2 + len))
		return;
	uint8_t *q = pb__put_tag(b->p, TE_DEBUG_ANNOTATIONS, PB_WT_LEN);
	*q++ = (uint8_t)len;
	q = pb__put_tag(q, DA_NAME_IID, PB_WT_VARINT);
	q = pb__put_varint(q, k);
	q = pb__put_tag(q, field, PB_WT_VARINT);
	b->p = pb__put_varint(q, v);
}

static void ann_uint(struct lt_perfetto *p, enum ann k, uint64_t v)
{
	ann_varint(p, k, DA_UINT, v);
}

static void ann_int(struct lt_perfetto *p, enum ann k, int64_t v)
{
	ann_varint(p, k, DA_INT, (uint64_t)v); /* int64: two's complement */
}

static void ann_ptr(struct lt_perfetto *p, enum ann k, uint64_t v)
{
	ann_varint(p, k, DA_POINTER, v);
}

static void ann_bool(struct lt_perfetto *p, enum ann k, int v)
{
	ann_varint(p, k, DA_BOOL, v != 0);
}

static void ann_str(struct lt_perfetto *p, enum ann k, const char *str)
{
	struct pb_buf *b = &p->out;
	ann_key(p, k);
	pb_tok t = begin_small(b, TE_DEBUG_ANNOTATIONS);
	pb_uint64(b, DA_NAME_IID, (uint64_t)k);
	put_name(b, DA_STRING, str, 1024);
	end_small(b, t);
}

/* A string from a small set that repeats: interned, keyed by key. */
static void ann_istr(struct lt_perfetto *p, enum ann k, uint64_t key, text_fn text, uint64_t arg)
{
	uint64_t iid = string_iid(p, key, text, arg);
	if (iid) {
		ann_varint(p, k, DA_STRING_IID, iid);
	} else {
		char buf[64];
		ann_str(p, k, text(arg, buf, sizeof(buf)));
	}
}

static const char *op_text(uint64_t arg, char *buf, size_t len)
{
	return lt_futex_op_name((uint32_t)arg, (uint16_t)(arg >> 32), buf, len);
}

static const char *errno_text(uint64_t arg, char *buf, size_t len)
{
	const char *n = strerrorname_np((int)arg);
	if (n)
		return n;
	snprintf(buf, len, "errno %d", (int)arg);
	return buf;
}

static const char *kind_text(uint64_t arg, char *buf, size_t len)
{
	(void)buf;
	(void)len;
	return lt_kind_name((unsigned)arg);
}

/* ---- calls ------------------------------------------------------------ */

#define NR_FUTEX 202
#define NR_FUTEX_WAITV 449
#define KEY_OP (1ull << 62)
#define KEY_ERRNO (2ull << 62)
#define KEY_KIND (3ull << 62)

static void call_args(struct lt_perfetto *p, const struct lt_span *s)
{
	const struct lt_event *e = &s->enter;
	char buf[96];

	switch (e->h.kind) {
	case LT_EV_FUTEX_ENTER: {
		const struct lt_futex_enter *f = &e->futex;
		if (f->uaddr)
			ann_ptr(p, A_ADDR, f->uaddr);
		if (f->nr == NR_FUTEX) {
			ann_istr(p, A_OP, KEY_OP | (uint64_t)f->op, op_text,
				 (uint64_t)f->nr << 32 | f->op);
		} else {
			ann_uint(p, A_FLAGS, f->op);
		}
		if (s->flags & LT_SPAN_WAIT) {
			if (f->nr == NR_FUTEX_WAITV)
				ann_uint(p, A_NR_FUTEXES, f->val3);
			if (f->uaddr)
				ann_uint(p, A_EXPECTED, f->val);
			if (f->timeout >= 0)
				ann_int(p, A_TIMEOUT_NS, f->timeout);
		} else if (s->flags & LT_SPAN_WAKER) {
			ann_uint(p, A_NR_WAKE, f->val);
		}
		if (f->uaddr2 && f->nr == NR_FUTEX) {
			unsigned cmd = f->op & 0x7f;
			/* REQUEUE, CMP_REQUEUE, WAKE_OP, WAIT_REQUEUE_PI, CMP_REQUEUE_PI */
			if (cmd == 3 || cmd == 4 || cmd == 5 || cmd == 11 || cmd == 12)
				ann_ptr(p, A_ADDR2, f->uaddr2);
		}
		break;
	}
	case LT_EV_WAIT_ENTER:
		if (e->wait.fds[0] >= 0)
			ann_int(p, A_FD, e->wait.fds[0]);
		ann_uint(p, A_NFDS, e->wait.nfds);
		if (e->wait.timeout_ns >= 0)
			ann_int(p, A_TIMEOUT_NS, e->wait.timeout_ns);
		break;
	case LT_EV_IO_ENTER:
		ann_int(p, A_FD, e->io.fd);
		if (e->io.count != LT_IO_COUNT_UNKNOWN)
			ann_uint(p, A_BYTES, e->io.count);
		if (lt_span_fd_kind(s))
			ann_str(p, A_FD_KIND, lt_span_fd_kind(s));
		break;
	case LT_EV_FLOCK_ENTER:
		ann_int(p, A_FD, e->flk.fd);
		lt_flock_call_str(&e->flk, NULL, buf, sizeof(buf));
		ann_str(p, A_CALL, buf);
		break;
	default:
		break;
	}
	if (s->flags & LT_SPAN_HAS_RESULT) {
		if (s->ret < 0 && s->ret >= -4095)
			ann_istr(p, A_ERRNO, KEY_ERRNO | (uint64_t)-s->ret, errno_text, (uint64_t)-s->ret);
		else
			ann_int(p, A_RESULT, s->ret);
	}
	if (s->flags & LT_SPAN_AT_START) {
		ann_bool(p, A_BLOCKED_AT_START, 1);
		if (s->blocked_before_ns)
			ann_uint(p, A_BLOCKED_BEFORE_NS, s->blocked_before_ns);
	}
	if (s->flags & LT_SPAN_UNFINISHED)
		ann_bool(p, A_UNFINISHED, 1);
	const char *note = NULL;
	if (s->flags & LT_SPAN_UNFINISHED)
		note = s->flags & LT_SPAN_AT_START
		       ? "blocked before the trace began and still blocked when it ended"
		       : "still blocked when the trace ended";
	else if (s->flags & LT_SPAN_THREAD_EXIT)
		note = "ended by the thread's exit";
	else if (s->flags & LT_SPAN_AT_START)
		note = "blocked before the trace began; ends when the thread next ran";
	else if (s->flags & LT_SPAN_END_INFERRED)
		note = "return not recorded; ends when the thread next ran";
	if (note)
		ann_str(p, A_NOTE, note);
	/* wake-ups no flow shows: from another process or an interrupt */
	for (uint32_t i = 0; i < s->nwoken_by; i++) {
		const struct lt_wake_edge *w = &s->woken_by[i];
		if (w->waker_span)
			continue;
		if (w->flags & LT_WAKE_IDLE) {
			ann_str(p, A_WOKEN_BY, "interrupt (idle cpu)");
		} else if (w->flags & LT_WAKE_IRQ) {
			snprintf(buf, sizeof(buf), "interrupt (while %.16s, tid %u, ran)", w->waker_comm,
				 w->waker_tid);
			ann_str(p, A_WOKEN_BY, buf);
		} else {
			snprintf(buf, sizeof(buf), "%.16s (tid %u%s)", w->waker_comm, w->waker_tid,
				 w->flags & LT_WAKE_OTHER ? ", another process" : "");
			ann_str(p, A_WOKEN_BY, buf);
			ann_uint(p, A_WAKER_TID, w->waker_tid);
		}
		break;
	}
}

static void extra_counter(struct lt_perfetto *p, const struct lt_span *s, uint32_t value)
{
	if (!(s->flags & LT_SPAN_LOCK_WAIT) || !s->lock_uid)
		return;
	pb_uint64(&p->out, TE_EXTRA_COUNTER_TRACK_UUIDS, thread_uuid(s->lock_uid));
	pb_int64(&p->out, TE_EXTRA_COUNTER_VALUES, value);
}

/* Starts a packet with a TrackEvent of type (a slice's BEGIN, an instant)
 * named name on track uuid at ts; *te is the TrackEvent, to end
 * (end_small) before packet_interned_tail and packet_end(p, the token
 * returned). */
static pb_tok event_begin(struct lt_perfetto *p, uint64_t ts, uint64_t uuid, uint32_t type, const char *name,
			  pb_tok *te)
{
	struct pb_buf *b = &p->out;
	uint64_t iid = name_iid(p, name);
	pb_tok pk = begin_small(b, 1);
	pb_uint64(b, TP_TIMESTAMP, ts);
	*te = begin_small(b, TP_TRACK_EVENT);
	pb_uint32(b, TE_TYPE, type);
	pb_uint64(b, TE_TRACK_UUID, uuid);
	if (iid)
		pb_uint64(b, TE_NAME_IID, iid);
	else
		pb_string(b, 23 /* TrackEvent.name */, name);
	return pk;
}

static void on_span_end(void *ctx, const struct lt_span *s)
{
	struct lt_perfetto *p = ctx;
	struct pb_buf *b = &p->out;
	char nbuf[320];
	const char *name = lt_namers_span(&p->namers, s, nbuf, sizeof(nbuf));
	uint64_t uuid = thread_uuid(s->thread_uid);

	/* BEGIN: name, arguments, result, flows out */
	pb_tok te, pk = event_begin(p, s->begin_ts, uuid, TYPE_SLICE_BEGIN, name, &te);
	call_args(p, s);
	if (p->stacks && s->enter.h.kind == LT_EV_FUTEX_ENTER) {
		/* the runtime lock its stack's reference names (a JVM waiter
		 * parks on a futex of its own: the Java lock it waits for) */
		const struct lt_stack_ref *r = lt_stacktab_find_ref(p->stacks, (int32_t)s->tid, lt_span_stack_ts(s),
								    LT_STACK_WAITER);
		if (r && r->rtlock_name)
			ann_str(p, A_LOCK, r->rtlock_name);
	}
	uint64_t cs = p->stacks ? wait_stack_iid(p, s) : 0;
	if (cs)
		pb_uint64(b, TE_CALLSTACK_IID, cs);
	for (uint32_t i = 0; i < s->nwoke; i++)
		pb_fixed64(b, TE_FLOW_IDS, s->woke[i].id);
	extra_counter(p, s, s->waiters_begin);
	end_small(b, te);
	packet_interned_tail(p);
	packet_end(p, pk);

	/* Flows in end on an instant "woken" at the end of the wait, inside
	 * it: the UI draws a flow from the end of its first slice to the
	 * start of its last, so ending it on the wait itself would point the
	 * arrow back at the wait's beginning.  Written before the END (same
	 * time: trace_processor keeps file order) so that it nests. */
	int flows_in = 0;
	for (uint32_t i = 0; i < s->nwoken_by; i++)
		flows_in += s->woken_by[i].waker_span != 0;
	if (flows_in) {
		pk = event_begin(p, s->end_ts, uuid, TYPE_INSTANT, WOKEN_NAME, &te);
		for (uint32_t i = 0; i < s->nwoken_by; i++)
			if (s->woken_by[i].waker_span)
				pb_fixed64(b, TE_TERMINATING_FLOW_IDS, s->woken_by[i].id);
		end_small(b, te);
		packet_interned_tail(p);
		packet_end(p, pk);
	}

	/* END */
	pk = begin_small(b, 1);
	pb_uint64(b, TP_TIMESTAMP, s->end_ts);
	te = begin_small(b, TP_TRACK_EVENT);
	pb_uint32(b, TE_TYPE, TYPE_SLICE_END);
	pb_uint64(b, TE_TRACK_UUID, uuid);
	extra_counter(p, s, s->waiters_end);
	end_small(b, te);
	pb_uint32(b, TP_SEQ_ID, SEQ_ID);
	packet_end(p, pk);
}

/* ---- tracks ------------------------------------------------------------ */

/* ts: when it applies (0: always, as for the trace's own process) */
static void process_track(struct lt_perfetto *p, uint64_t ts, uint64_t uuid, uint32_t pid, const char *name,
			  const char *cmdline)
{
	struct pb_buf *b = &p->out;
	pb_tok pk = begin_small(b, 1);
	if (ts)
		pb_uint64(b, TP_TIMESTAMP, ts);
	pb_tok td = begin_small(b, TP_TRACK_DESCRIPTOR);
	pb_uint64(b, TD_UUID, uuid);
	pb_tok pd = begin_small(b, TD_PROCESS);
	pb_int32(b, PD_PID, (int32_t)pid);
	if (cmdline && cmdline[0])
		put_name(b, PD_CMDLINE, cmdline, 1024);
	put_comm(b, PD_PROCESS_NAME, name);
	end_small(b, pd);
	end_small(b, td);
	pb_uint32(b, TP_SEQ_ID, SEQ_ID);
	packet_end(p, pk);
}

static void process_descriptor(struct lt_perfetto *p, const char *cmdline)
{
	process_track(p, 0, PROCESS_UUID, p->pid, p->process_name, cmdline);
}

/* ---- other processes (a trace of several) ------------------------------ */

struct pf_proc {
	char name[LT_COMM_LEN];
};

static uint64_t proc_uuid(const struct lt_perfetto *p, uint32_t tgid)
{
	return !tgid || tgid == p->pid ? PROCESS_UUID : PROC_UUID_BASE + tgid;
}

static void tree_entry(struct lt_perfetto *p, uint64_t ts, uint32_t pid, int32_t ppid, const char *cmdline);

static uint32_t parent_tgid(struct lt_perfetto *p, uint32_t parent_tid)
{
	const struct pf_tid *t = lt_u64map_get(&p->tids, (uint64_t)parent_tid + 1);
	return t ? t->tgid : 0;
}

/* Describes process tgid the first time one of its threads appears: its
 * own track, named from the header or by that thread (a forked child's
 * first thread is its main thread), with its parent and command line. */
static struct pf_proc *proc_seen(struct lt_perfetto *p, uint32_t tgid, const char *name, uint64_t ts,
				 int32_t ppid)
{
	struct pf_proc *pr = lt_u64map_get(&p->procs, tgid);
	if (pr || !tgid || tgid == p->pid)
		return pr;
	if (!(pr = calloc(1, sizeof(*pr))) || lt_u64map_put(&p->procs, tgid, pr)) {
		free(pr);
		return NULL;
	}
	const char *cmdline = NULL;
	for (uint32_t i = 0; i < p->nhprocs; i++)
		if ((uint32_t)p->hprocs[i].tgid == tgid) {
			if (p->hprocs[i].comm[0])
				name = p->hprocs[i].comm;
			if (p->hprocs[i].ppid > 0)
				ppid = p->hprocs[i].ppid;
			cmdline = p->hprocs[i].cmdline;
		}
	snprintf(pr->name, sizeof(pr->name), "%s", name);
	/* a forked process's comes 1 ns after its task_newtask, like its
	 * thread's (on_thread): trace_processor starts the new process there */
	process_track(p, ts, proc_uuid(p, tgid), tgid, pr->name, cmdline);
	if ((cmdline && cmdline[0]) || ppid > 0)
		tree_entry(p, ts ? ts : p->attach_ts, tgid, ppid, cmdline);
	return pr;
}

static struct pf_tid *tid_info(struct lt_perfetto *p, uint32_t tid)
{
	struct pf_tid *t = lt_u64map_get(&p->tids, (uint64_t)tid + 1);
	if (t)
		return t;
	t = calloc(1, sizeof(*t));
	if (!t || lt_u64map_put(&p->tids, (uint64_t)tid + 1, t)) {
		free(t);
		return NULL;
	}
	return t;
}

/* The bundle being filled for cpu (created on first use), or NULL. */
static struct pf_cpu *cpu_of(struct lt_perfetto *p, unsigned cpu)
{
	if (cpu >= p->ncpus) {
		if (cpu >= 65536)
			return NULL;
		size_t n = cpu + 1 > p->ncpus * 2 ? cpu + 1 : p->ncpus * 2;
		struct pf_cpu *v = realloc(p->cpus, n * sizeof(*v));
		if (!v)
			return NULL;
		memset(v + p->ncpus, 0, (n - p->ncpus) * sizeof(*v));
		p->cpus = v;
		p->ncpus = n;
	}
	return &p->cpus[cpu];
}

static void flush_bundle(struct lt_perfetto *p, unsigned cpu)
{
	struct pf_cpu *c = &p->cpus[cpu];
	struct pb_buf *b = &p->out;
	size_t len = pb_buf_len(&c->b);

	if (pb_buf_error(&c->b) && !pb_buf_error(b))
		b->err = pb_buf_error(&c->b); /* report it through the output */
	if (!len && !c->lost)
		return;
	pb_tok pk = begin_small(b, 1);
	pb_tok fb = begin_small(b, TP_FTRACE_EVENTS);
	pb_uint32(b, FB_CPU, cpu);
	pb_raw(b, pb_buf_data(&c->b), len);
	if (c->lost)
		pb_bool(b, FB_LOST_EVENTS, true);
	end_small(b, fb);
	pb_uint32(b, TP_SEQ_ID, SEQ_ID);
	packet_end(p, pk);
	pb_buf_reset(&c->b);
	c->lost = 0;
}

static void event_done(struct lt_perfetto *p, unsigned cpu)
{
	if (pb_buf_len(&p->cpus[cpu].b) >= BUNDLE_BYTES)
		flush_bundle(p, cpu);
}

/* Starts an FtraceEvent in cpu's bundle; NULL if cpu is impossible. */
static struct pb_buf *ftrace_begin(struct lt_perfetto *p, unsigned cpu, uint64_t ts, uint32_t pid,
				   pb_tok *tok)
{
	struct pf_cpu *c = cpu_of(p, cpu);
	if (!c)
		return NULL;
	*tok = begin_small(&c->b, FB_EVENT);
	pb_uint64(&c->b, FE_TIMESTAMP, ts);
	pb_uint32(&c->b, FE_PID, pid);
	return &c->b;
}

/* Writes comm unless it is what was last written for tid. */
static void sched_comm(struct lt_perfetto *p, struct pb_buf *b, uint32_t field, uint32_t tid,
		       const char *comm)
{
	struct pf_tid *t = tid_info(p, tid);
	if (!comm[0])
		return;
	if (t && t->sent && !strncmp(t->comm, comm, LT_COMM_LEN))
		return;
	put_comm(b, field, comm);
	if (t) {
		memcpy(t->comm, comm, LT_COMM_LEN);
		t->comm[LT_COMM_LEN - 1] = 0;
		t->sent = 1;
	}
}

/* The ftrace events Perfetto's own thread tracking understands. */
static void thread_ftrace(struct lt_perfetto *p, const struct lt_thread_ev *t,
			  const struct lt_event *ev)
{
	struct pb_buf *cb;
	pb_tok fe, x;

	if (ev->h.kind == LT_EV_TASK_NEW && t->change == LT_THREAD_NEW) {
		if (!(cb = ftrace_begin(p, ev->h.cpu, ev->h.ts, ev->tnew.parent_tid, &fe)))
			return;
		x = begin_small(cb, FE_TASK_NEWTASK);
		pb_int32(cb, TN_PID, (int32_t)t->tid);
		put_comm(cb, TN_COMM, ev->tnew.comm);
		pb_uint64(cb, TN_CLONE_FLAGS, ev->tnew.clone_flags);
	} else if (ev->h.kind == LT_EV_RENAME && t->change == LT_THREAD_RENAME) {
		if (!(cb = ftrace_begin(p, ev->h.cpu, ev->h.ts, t->tid, &fe)))
			return;
		x = begin_small(cb, FE_TASK_RENAME);
		pb_int32(cb, TR_PID, (int32_t)t->tid);
		put_comm(cb, TR_OLDCOMM, ev->ren.oldcomm);
		put_comm(cb, TR_NEWCOMM, ev->ren.newcomm);
	} else if (ev->h.kind == LT_EV_TASK_EXIT && t->change == LT_THREAD_EXIT) {
		if (!(cb = ftrace_begin(p, ev->h.cpu, ev->h.ts, t->tid, &fe)))
			return;
		x = begin_small(cb, FE_SCHED_PROCESS_EXIT);
		put_comm(cb, PE_COMM, t->name);
		pb_int32(cb, PE_PID, (int32_t)t->tid);
		pb_int32(cb, PE_TGID, (int32_t)t->tgid);
	} else {
		return;
	}
	end_small(cb, x);
	end_small(cb, fe);
	event_done(p, ev->h.cpu);
}

static void on_thread(void *ctx, const struct lt_thread_ev *t)
{
	struct lt_perfetto *p = ctx;
	struct pb_buf *b = &p->out;
	const struct lt_event *ev = t->ev;
	struct pf_tid *ti = tid_info(p, t->tid);

	if (ti) {
		ti->target = 1;
		ti->tgid = t->tgid;
		snprintf(ti->name, sizeof(ti->name), "%s", t->name);
	}
	if (t->change == LT_THREAD_NEW && t->tgid != p->pid) {
		int32_t ppid = 0;
		if (ev && ev->h.kind == LT_EV_TASK_NEW && t->tid == t->tgid)
			ppid = (int32_t)parent_tgid(p, ev->tnew.parent_tid);
		proc_seen(p, t->tgid, t->name, t->from_header ? 0 : t->ts + (ev && ev->h.kind == LT_EV_TASK_NEW),
			  ppid);
	}
	if (t->change == LT_THREAD_NEW || t->change == LT_THREAD_RENAME) {
		/* (re)describe the thread's track: its name is the latest */
		pb_tok pk = begin_small(b, 1);
		/* a header thread's descriptor says nothing about when: the
		 * header may describe the end (flight dumps).  A new thread's
		 * comes 1 ns after its task_newtask: trace_processor starts a
		 * new thread instance there, and binds the track to the
		 * instance its descriptor finds (at the same time the order
		 * is not defined: slices and states would then sit on two
		 * threads of the same tid). */
		if (!t->from_header)
			pb_uint64(b, TP_TIMESTAMP, t->ts + (ev && ev->h.kind == LT_EV_TASK_NEW));
		pb_tok td = begin_small(b, TP_TRACK_DESCRIPTOR);
		pb_uint64(b, TD_UUID, thread_uuid(t->uid));
		pb_tok th = begin_small(b, TD_THREAD);
		pb_int32(b, THD_PID, (int32_t)t->tgid);
		pb_int32(b, THD_TID, (int32_t)t->tid);
		char rn[256];
		if (lt_namers_thread(&p->namers, t->tid, rn, sizeof(rn)))
			put_name(b, THD_THREAD_NAME, rn, sizeof(rn)); /* the runtime's name */
		else
			put_comm(b, THD_THREAD_NAME, t->name);
		end_small(b, th);
		end_small(b, td);
		pb_uint32(b, TP_SEQ_ID, SEQ_ID);
		packet_end(p, pk);
	}
	if (t->change == LT_THREAD_EXEC && t->tgid == p->pid && strncmp(p->process_name, t->name, LT_COMM_LEN)) {
		snprintf(p->process_name, sizeof(p->process_name), "%s", t->name);
		process_descriptor(p, NULL);
	}
	struct pf_proc *pr = t->change == LT_THREAD_EXEC ? lt_u64map_get(&p->procs, t->tgid) : NULL;
	if (pr && strncmp(pr->name, t->name, LT_COMM_LEN)) {
		snprintf(pr->name, sizeof(pr->name), "%s", t->name);
		process_track(p, t->ts, proc_uuid(p, t->tgid), t->tgid, pr->name, NULL);
	}
	if (ev)
		thread_ftrace(p, t, ev);
}

static void on_lock(void *ctx, const struct lt_lock_ev *l)
{
	struct lt_perfetto *p = ctx;
	struct pb_buf *b = &p->out;
	char name[160];

	if (!l->first)
		return; /* the values ride on the slices (extra_counter_values) */
	char sym[128], key[64] = "";
	uint64_t parent = PROCESS_UUID;
	struct lt_lock_ident id;
	if (p->ids && (l->addr & LT_LOCKKEY_ENC) && !lt_lockid_decode(p->ids, l->addr, &id)) {
		/* a lock of another process sits under it; a shared one, one
		 * track for all its processes, under the trace's */
		lt_lockid_format(p->ids, l->addr, key, sizeof(key));
		if (!id.shared)
			parent = proc_uuid(p, id.tgid);
	} else {
		snprintf(key, sizeof(key), "0x%" PRIx64, l->addr);
	}
	if (p->namers.lock && p->namers.lock(p->namers.lock_ctx, l->addr, sym, sizeof(sym)) > 0)
		snprintf(name, sizeof(name), "%.127s (futex %s)", sym, key);
	else
		snprintf(name, sizeof(name), "futex %s", key);
	pb_tok pk = begin_small(b, 1);
	pb_tok td = begin_small(b, TP_TRACK_DESCRIPTOR);
	pb_uint64(b, TD_UUID, thread_uuid(l->uid));
	pb_uint64(b, TD_PARENT_UUID, parent);
	put_name(b, TD_NAME, name, sizeof(name));
	pb_tok cd = begin_small(b, TD_COUNTER);
	pb_uint32(b, CD_UNIT, CD_UNIT_COUNT);
	end_small(b, cd);
	end_small(b, td);
	pb_uint32(b, TP_SEQ_ID, SEQ_ID);
	packet_end(p, pk);
}

/* A switch on cpu buffer b at ts that is not in the trace, from prev
 * (its state written as S: what it did is not known) to next.  in: the
 * timeline's inferred switch-in of next (LT_SW_INFERRED), NULL when it
 * only closes prev's time on the cpu. */
static void unrecorded_switch(struct lt_perfetto *p, struct pb_buf *b, uint64_t ts, uint32_t prev,
			      uint32_t next, const struct lt_event *in)
{
	pb_tok fe = begin_small(b, FB_EVENT);
	pb_uint64(b, FE_TIMESTAMP, ts);
	pb_uint32(b, FE_PID, prev);
	pb_tok x = begin_small(b, FE_SCHED_SWITCH);
	pb_int32(b, SS_PREV_PID, (int32_t)prev);
	pb_int64(b, SS_PREV_STATE, 1 /* S */);
	if (in)
		sched_comm(p, b, SS_NEXT_COMM, next, in->sw.next_comm);
	pb_int32(b, SS_NEXT_PID, (int32_t)next);
	if (in)
		pb_int32(b, SS_NEXT_PRIO, in->sw.next_prio);
	end_small(b, x);
	end_small(b, fe);
}

/* The timeline's inferred switch-in ev (LT_SW_INFERRED) on cpu c: from
 * whatever the cpu ran last, as far as the file says, and an instant on
 * its process's track that says the switch is not in the trace (like lost
 * events; the thread's track holds its calls only). */
static void unseen_switch_in(struct lt_perfetto *p, struct pf_cpu *c, const struct lt_event *ev)
{
	uint32_t next = ev->sw.next_tid;

	if (c->have_last && c->last_next == next)
		return; /* on this cpu already, as far as the file says */
	unrecorded_switch(p, &c->b, ev->h.ts, c->have_last ? c->last_next : 0, next, ev);
	c->last_next = next;
	c->have_last = 1;
	event_done(p, ev->h.cpu);

	pb_tok te, pk = event_begin(p, ev->h.ts, proc_uuid(p, ev->sw.next_tgid), TYPE_INSTANT, UNSEEN_NAME, &te);
	ann_uint(p, A_TID, next);
	ann_uint(p, A_CPU, ev->h.cpu);
	ann_str(p, A_NOTE, UNSEEN_NOTE); /* (longer than an interned string) */
	end_small(&p->out, te);
	packet_interned_tail(p);
	packet_end(p, pk);
}

static void on_sched(void *ctx, const struct lt_event *ev)
{
	struct lt_perfetto *p = ctx;
	unsigned cpu = ev->h.cpu;
	struct pf_cpu *c = cpu_of(p, cpu);
	struct pb_buf *b;
	pb_tok fe, x;

	if (!c)
		return;
	b = &c->b;
	if (ev->h.kind == LT_EV_SWITCH && (ev->h.flags & LT_SW_INFERRED)) {
		unseen_switch_in(p, c, ev);
		return;
	}
	if (ev->h.kind == LT_EV_SWITCH) {
		/* Only switches with a target thread on one side are recorded.
		 * When the thread leaving the cpu is not the one the last
		 * recorded switch put there, what ran between is unknown: say
		 * the last one left then (as sleeping), so its time on the cpu
		 * ends instead of staying open for the rest of the trace. */
		if (c->have_last && c->last_next != ev->sw.prev_tid)
			unrecorded_switch(p, b, ev->h.ts, c->last_next, ev->sw.prev_tid, NULL);
		fe = begin_small(b, FB_EVENT);
		pb_uint64(b, FE_TIMESTAMP, ev->h.ts);
		pb_uint32(b, FE_PID, ev->sw.prev_tid);
		x = begin_small(b, FE_SCHED_SWITCH);
		sched_comm(p, b, SS_PREV_COMM, ev->sw.prev_tid, ev->sw.prev_comm);
		pb_int32(b, SS_PREV_PID, (int32_t)ev->sw.prev_tid);
		pb_int32(b, SS_PREV_PRIO, ev->sw.prev_prio);
		pb_int64(b, SS_PREV_STATE,
			 (int64_t)report_state(ev->sw.prev_state, ev->h.flags & LT_F_PREEMPT,
					       p->kver_major, p->kver_minor));
		sched_comm(p, b, SS_NEXT_COMM, ev->sw.next_tid, ev->sw.next_comm);
		pb_int32(b, SS_NEXT_PID, (int32_t)ev->sw.next_tid);
		pb_int32(b, SS_NEXT_PRIO, ev->sw.next_prio);
		end_small(b, x);
		end_small(b, fe);
		c->last_next = ev->sw.next_tid;
		c->have_last = 1;
	} else if (ev->h.kind == LT_EV_WAKING) {
		/* FtraceEvent.pid is the waker: Perfetto's "woken by" */
		fe = begin_small(b, FB_EVENT);
		pb_uint64(b, FE_TIMESTAMP, ev->h.ts);
		pb_uint32(b, FE_PID, ev->wake.waker_tid);
		if (ev->h.flags & LT_F_WAKER_IRQ) /* TRACE_FLAG_HARDIRQ, as ftrace */
			pb_uint32(b, FE_COMMON_FLAGS, 0x08);
		x = begin_small(b, FE_SCHED_WAKING);
		struct pf_tid *t = tid_info(p, ev->h.tid);
		if (t && t->target)
			sched_comm(p, b, SW_COMM, ev->h.tid, t->name);
		pb_int32(b, SW_PID, (int32_t)ev->h.tid);
		pb_int32(b, SW_PRIO, ev->wake.prio);
		pb_int32(b, SW_SUCCESS, 1);
		pb_int32(b, SW_TARGET_CPU, (int32_t)ev->wake.target_cpu);
		end_small(b, x);
		end_small(b, fe);
	} else {
		return;
	}
	event_done(p, cpu);
}

static void on_lost(void *ctx, const struct lt_event *ev)
{
	struct lt_perfetto *p = ctx;
	struct pb_buf *b = &p->out;
	struct pf_cpu *c = cpu_of(p, ev->h.cpu);

	if (c)
		c->lost = 1; /* the cpu's scheduler data has a gap */
	pb_tok te, pk = event_begin(p, ev->h.ts, PROCESS_UUID, TYPE_INSTANT, LOST_NAME, &te);
	ann_uint(p, A_COUNT, ev->lost.count);
	ann_istr(p, A_KIND, KEY_KIND | ev->lost.lost_kind, kind_text, ev->lost.lost_kind);
	ann_uint(p, A_CPU, ev->h.cpu);
	end_small(b, te);
	packet_interned_tail(p);
	packet_end(p, pk);
}

/* ---- public ------------------------------------------------------------ */

/* The sequence's first packet clears its incremental state and says what
 * the clocks read at attach (timestamps are BOOTTIME). */
static void clock_packet(struct lt_perfetto *p, const struct lt_header *hdr)
{
	struct pb_buf *b = &p->out;
	pb_tok pk = begin_small(b, 1);
	pb_uint64(b, TP_TIMESTAMP, hdr->clock_boottime);
	pb_tok cs = begin_small(b, TP_CLOCK_SNAPSHOT);
	static const uint32_t ids[] = { CLOCK_ID_BOOTTIME, CLOCK_ID_MONOTONIC, CLOCK_ID_REALTIME };
	const uint64_t vals[] = { hdr->clock_boottime, hdr->clock_monotonic, hdr->clock_realtime };
	for (int i = 0; i < 3; i++) {
		if (!vals[i])
			continue;
		pb_tok c = begin_small(b, CS_CLOCKS);
		pb_uint32(b, CLK_ID, ids[i]);
		pb_uint64(b, CLK_TIMESTAMP, vals[i]);
		end_small(b, c);
	}
	pb_uint32(b, CS_PRIMARY_TRACE_CLOCK, CLOCK_ID_BOOTTIME);
	end_small(b, cs);
	pb_uint32(b, TP_SEQ_ID, SEQ_ID);
	pb_uint32(b, TP_SEQ_FLAGS, SEQ_INCREMENTAL_STATE_CLEARED);
	pb_bool(b, TP_FIRST_PACKET_ON_SEQ, true);
	packet_end(p, pk);
}

/* The kernel: Perfetto decodes prev_state by its release and picks its
 * syscall table by the machine.  A trace without the machine (before
 * format 1.1) was recorded on x86-64 all the same: the collector is built
 * for it only, and the syscall numbers in every trace are x86-64's. */
static void system_info_packet(struct lt_perfetto *p, const struct lt_header *hdr)
{
	struct pb_buf *b = &p->out;
	pb_tok pk = begin_small(b, 1);
	pb_tok si = begin_small(b, TP_SYSTEM_INFO);
	pb_tok u = begin_small(b, SI_UTSNAME);
	pb_string(b, UTS_SYSNAME, "Linux");
	if (hdr->kversion[0])
		put_name(b, UTS_VERSION, hdr->kversion, sizeof(hdr->kversion));
	if (hdr->kernel[0])
		put_name(b, UTS_RELEASE, hdr->kernel, sizeof(hdr->kernel));
	put_name(b, UTS_MACHINE, hdr->machine[0] ? hdr->machine : "x86_64", sizeof(hdr->machine));
	end_small(b, u);
	if (hdr->ncpus)
		pb_uint32(b, SI_NUM_CPUS, hdr->ncpus);
	end_small(b, si);
	pb_uint32(b, TP_SEQ_ID, SEQ_ID);
	packet_end(p, pk);
}

/* The command line: trace_processor takes a process's cmdline only from a
 * ProcessTree (it ignores ProcessDescriptor.cmdline), and names the
 * process by its argv[0] as Perfetto's own process scraper does.  The
 * header keeps argv joined by spaces: written as one element, which the
 * importer splits at the first space for argv[0]. */
static void tree_entry(struct lt_perfetto *p, uint64_t ts, uint32_t pid, int32_t ppid, const char *cmdline)
{
	struct pb_buf *b = &p->out;
	pb_tok pk = begin_small(b, 1);
	pb_uint64(b, TP_TIMESTAMP, ts);
	pb_tok pt = begin_small(b, TP_PROCESS_TREE);
	pb_tok pr = begin_small(b, PT_PROCESSES);
	pb_int32(b, PTP_PID, (int32_t)pid);
	if (ppid > 0)
		pb_int32(b, PTP_PPID, ppid);
	if (cmdline && cmdline[0])
		put_name(b, PTP_CMDLINE, cmdline, 1024);
	end_small(b, pr);
	end_small(b, pt);
	pb_uint32(b, TP_SEQ_ID, SEQ_ID);
	packet_end(p, pk);
}

static void process_tree_packet(struct lt_perfetto *p, const struct lt_header *hdr)
{
	if (hdr->cmdline[0])
		tree_entry(p, hdr->clock_boottime, p->pid, hdr->ppid, hdr->cmdline);
}

/* The header's state of t (taskrun.h) as a Perfetto task state, 0 none. */
static int task_state_of(const struct lt_header *hdr, const struct lt_thread_info *t)
{
	switch (lt_run_attach_state(hdr, t)) {
	case 'S': return TASK_STATE_INTERRUPTIBLE_SLEEP;
	case 'D': return TASK_STATE_UNINTERRUPTIBLE_SLEEP;
	case 'T': case 't': return TASK_STATE_STOPPED;
	default: return 0;
	}
}

/* Threads asleep at attach emit no scheduler event until they wake, so
 * Perfetto would show no state for them (a lock holder asleep for the whole
 * trace would have none): say how each was at attach, kept until the
 * trace's start is known.  A sched_waking later ends the state as it ends
 * one opened by a switch. */
static int keep_initial_states(struct lt_perfetto *p, const struct lt_header *hdr)
{
	for (uint32_t i = 0; i < hdr->nthreads; i++) {
		const struct lt_thread_info *t = &hdr->threads[i];
		int st = task_state_of(hdr, t); /* none in a flight dump's header */
		if (!st || t->tid <= 0)
			continue;
		if (!p->nstates) {
			if (!(p->states = calloc(hdr->nthreads, sizeof(*p->states))))
				return -1;
		}
		struct pf_state *s = &p->states[p->nstates++];
		s->tid = t->tid;
		s->state = st;
		memcpy(s->comm, t->comm, sizeof(s->comm));
	}
	return 0;
}

/* They begin where the trace does, with the calls the snapshot saw
 * (src/analysis/timeline.h: the earlier of the header's clock and the
 * first event).  Once. */
static void initial_states(struct lt_perfetto *p, uint64_t start_ts)
{
	struct pb_buf *b = &p->out;
	for (uint32_t i = 0; i < p->nstates; i++) {
		const struct pf_state *s = &p->states[i];
		pb_tok pk = begin_small(b, 1);
		pb_uint64(b, TP_TIMESTAMP, start_ts);
		pb_tok ts = begin_small(b, TP_GENERIC_TASK_STATE);
		put_comm(b, GT_COMM, s->comm);
		pb_int64(b, GT_TID, s->tid);
		pb_uint32(b, GT_STATE, (uint32_t)s->state);
		end_small(b, ts);
		pb_uint32(b, TP_SEQ_ID, SEQ_ID);
		packet_end(p, pk);
	}
	p->nstates = 0;
}

static void on_start(void *ctx, uint64_t ts)
{
	initial_states(ctx, ts);
}

struct lt_perfetto *lt_perfetto_new(FILE *f, const struct lt_header *hdr)
{
	struct lt_perfetto *p = calloc(1, sizeof(*p));
	if (!p)
		return NULL;
	p->f = f;
	p->pid = (uint32_t)hdr->pid;
	p->attach_ts = hdr->clock_boottime;
	parse_release(hdr->kernel, &p->kver_major, &p->kver_minor);
	snprintf(p->process_name, sizeof(p->process_name), "%.15s", hdr->comm);
	if (hdr->nprocs) {
		struct lt_proc_info *hp = calloc(hdr->nprocs, sizeof(*hp));
		if (!hp) {
			free(p);
			return NULL;
		}
		memcpy(hp, hdr->procs, hdr->nprocs * sizeof(*hp));
		p->hprocs = hp;
		p->nhprocs = hdr->nprocs;
	}
	pb_buf_init(&p->out);
	pb_buf_set_sink(&p->out, count_sink, p, FLUSH_BYTES);
	if (keep_initial_states(p, hdr)) {
		lt_perfetto_free(p);
		return NULL;
	}
	clock_packet(p, hdr);
	system_info_packet(p, hdr);
	process_descriptor(p, hdr->cmdline);
	process_tree_packet(p, hdr);
	return p;
}

void lt_perfetto_set_namers(struct lt_perfetto *p, const struct lt_namers *names)
{
	p->namers = *names;
}

void lt_perfetto_set_lockid(struct lt_perfetto *p, const struct lt_lockid *ids)
{
	p->ids = ids;
}

void lt_perfetto_sink(struct lt_perfetto *p, struct lt_timeline_sink *sink)
{
	memset(sink, 0, sizeof(*sink));
	sink->ctx = p;
	sink->start = on_start;
	sink->thread = on_thread;
	sink->span_end = on_span_end;
	sink->lock = on_lock;
	sink->sched = on_sched;
	sink->lost = on_lost;
}

void lt_perfetto_held(struct lt_perfetto *p, uint32_t thread_uid, uint64_t begin, uint64_t end,
		      const char *name)
{
	struct pb_buf *b = &p->out;
	uint64_t uuid = HELD_UUID_BASE + thread_uid;
	/* a child track of the thread: the holder's own slices (its read()
	 * that began at the same time) stay on the thread's track */
	pb_tok pk = begin_small(b, 1);
	pb_tok td = begin_small(b, TP_TRACK_DESCRIPTOR);
	pb_uint64(b, TD_UUID, uuid);
	pb_uint64(b, TD_PARENT_UUID, thread_uuid(thread_uid));
	put_name(b, TD_NAME, "lock held", 16);
	end_small(b, td);
	pb_uint32(b, TP_SEQ_ID, SEQ_ID);
	packet_end(p, pk);
	for (int k = 0; k < 2; k++) {
		pk = begin_small(b, 1);
		pb_uint64(b, TP_TIMESTAMP, k ? end : begin);
		pb_tok te = begin_small(b, TP_TRACK_EVENT);
		pb_uint32(b, TE_TYPE, k ? TYPE_SLICE_END : TYPE_SLICE_BEGIN);
		pb_uint64(b, TE_TRACK_UUID, uuid);
		if (!k)
			put_name(b, 23 /* TrackEvent.name */, name, 256);
		end_small(b, te);
		pb_uint32(b, TP_SEQ_ID, SEQ_ID);
		packet_end(p, pk);
	}
}

/* One track per goroutine (pid, goid), a child of its process's track,
 * with an instant at ts: what the stored snapshot saw it do. */
#define GOROUTINE_UUID_BASE (1ull << 44)
void lt_perfetto_goroutine(struct lt_perfetto *p, uint32_t pid, int64_t goid, const char *track, uint64_t ts,
			   const char *name)
{
	struct pb_buf *b = &p->out;
	uint64_t uuid = GOROUTINE_UUID_BASE + ((uint64_t)(pid & 0x3fffff) << 22) + ((uint64_t)goid & 0x3fffff);
	pb_tok pk = begin_small(b, 1);
	pb_tok td = begin_small(b, TP_TRACK_DESCRIPTOR);
	pb_uint64(b, TD_UUID, uuid);
	pb_uint64(b, TD_PARENT_UUID, proc_uuid(p, pid));
	put_name(b, TD_NAME, track, 256);
	end_small(b, td);
	pb_uint32(b, TP_SEQ_ID, SEQ_ID);
	packet_end(p, pk);
	pk = begin_small(b, 1);
	pb_uint64(b, TP_TIMESTAMP, ts);
	pb_tok te = begin_small(b, TP_TRACK_EVENT);
	pb_uint32(b, TE_TYPE, TYPE_INSTANT);
	pb_uint64(b, TE_TRACK_UUID, uuid);
	put_name(b, 23 /* TrackEvent.name */, name, 512);
	end_small(b, te);
	pb_uint32(b, TP_SEQ_ID, SEQ_ID);
	packet_end(p, pk);
}

int lt_perfetto_finish(struct lt_perfetto *p)
{
	initial_states(p, p->attach_ts); /* no timeline said where it began */
	for (size_t i = 0; i < p->ncpus; i++)
		flush_bundle(p, (unsigned)i);
	int r = pb_flush(&p->out);
	if (!r && fflush(p->f))
		r = -(errno ? errno : EIO);
	return r;
}

void lt_perfetto_free(struct lt_perfetto *p)
{
	if (!p)
		return;
	for (size_t i = 0; i < p->ncpus; i++)
		pb_buf_free(&p->cpus[i].b);
	free(p->cpus);
	for (size_t i = 0; i < p->tids.cap; i++)
		free(p->tids.vals[i]);
	lt_u64map_free(&p->tids);
	for (size_t i = 0; i < p->procs.cap; i++)
		free(p->procs.vals[i]);
	lt_u64map_free(&p->procs);
	lt_u64map_free(&p->stack_iids);
	free((void *)p->hprocs);
	free(p->states);
	lt_u64map_free(&p->names);
	lt_u64map_free(&p->strings);
	pb_buf_free(&p->out);
	free(p);
}

uint64_t lt_perfetto_bytes(const struct lt_perfetto *p)
{
	return p->bytes;
}
