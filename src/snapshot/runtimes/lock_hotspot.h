/* Internal to the HotSpot model (lock_hotspot.c, lock_hotspot_frames.c):
 * the offsets taken from the JVM's tables, what was read of the JVM, and
 * the readers both files use.  See lock_hotspot.c. */
#ifndef LOCKTRACE_LOCK_HOTSPOT_H
#define LOCKTRACE_LOCK_HOTSPOT_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>

#include "lockmodel.h"
#include "rt_hotspot.h"
#include "u64map.h"

/* ---- offsets, from the tables ---- */

struct lay {
	/* thread list */
	uint64_t java_thread_list, tl_length, tl_threads;
	uint64_t jt_osthread, jt_threadobj, jt_state, jt_pending, jt_stack_base, jt_stack_size;
	uint64_t jt_waiting;            /* _current_waiting_monitor, 0 unknown */
	uint64_t os_tid, oh_obj;
	int64_t blocked;                /* _thread_blocked                     */
	int64_t in_native;              /* _thread_in_native, -1 unknown       */
	/* monitors */
	bool monitors;                  /* everything below is known           */
	uint64_t om_owner, om_object, om_recursions, om_contentions, om_size;
	bool owner_is_id;               /* JDK 24+: _owner is an owner id      */
	bool has_anon;
	int64_t anon_owner;             /* ObjectMonitor::ANONYMOUS_OWNER      */
	uint64_t jt_owner_id;           /* JavaThread::_monitor_owner_id       */
	bool lock_stack;                /* JavaThread::_lock_stack is known    */
	uint64_t jt_lock_stack, ls_top, ls_base;
	/* objects */
	bool objects;                   /* names and classes can be read       */
	bool coops, ccp;                /* compressed oops / class pointers    */
	uint64_t oop_base, klass_base;
	int oop_shift, klass_shift;
	uint64_t oop_klass, arr_length, arr_base;
	uint64_t klass_name, klass_super, sym_length, sym_body;
	/* Java fields: FieldInfo slots in an Array<u2> (JDK <= 20), or a
	 * compressed FieldInfo stream in an Array<u1> (JDK 21+) */
	enum { FIELDS_NONE, FIELDS_SLOTS, FIELDS_STREAM } fields;
	uint64_t ik_fields, ik_java_fields_count, ik_constants, cp_size, u2_data;
	int64_t fi_access, fi_name, fi_sig, fi_low, fi_high, fi_slots, tag_size, tag_offset, acc_internal;
	uint64_t ik_stream, u1_data;
	int64_t ff_init, ff_injected, ff_generic, ff_contended; /* FieldFlags bits */
};

/* Java frames (lock_hotspot_frames.c). */
struct flay {
	bool ok;
	uint64_t jt_anchor, fa_sp, fa_pc, fa_fp;   /* JavaThread::_anchor        */
	uint64_t interp_lo, interp_hi;             /* the template interpreter   */
	uint64_t cc_lo, cc_hi;                     /* the code cache             */
	uint64_t heaps, ga_len, ga_data;           /* CodeCache::_heaps          */
	uint64_t ch_memory, ch_segmap, ch_log2, vs_low, vs_high, hb_size, hb_used;
	uint64_t cb_name, cb_frame_size, cb_kind, nm_method;
	bool has_kind;                             /* CodeBlob::_kind (JDK 23+)  */
	int64_t kind_nmethod;
	uint64_t call_stub_ret;                    /* the entry frame's pc       */
	uint64_t m_const, m_access, cm_constants, cm_flags, cm_code_size, cm_name, cm_sig, cm_size;
	uint64_t cp_holder, cp_source;
	int cm_flags_width;                        /* 2 (u2) or 4 (u4)           */
	int64_t has_lnt;                           /* the line table's flag bit  */
	int lines;                                 /* line table coding: 0 none,
	                                              1 JDK <= 19, 2 UNSIGNED5   */
	/* compiled frames' debug information: PcDescs and scopes */
	bool scopes;
	uint64_t cb_code_begin, nm_scopes_data, nm_metadata, nm_pcs, nm_pcs_end, pd_pc, pd_scope, pd_size;
	int64_t entry_bci;                         /* InvocationEntryBci         */
};

struct jthread {
	uint64_t addr;
	pid_t tid;
	int32_t state;
	uint64_t pending;
	uint64_t stack_lo, stack_hi;
	int64_t owner_id;
	char *name;
};

/* Offsets of a Java field found once per class. */
struct field_memo {
	uint64_t klass;
	const char *name;
	uint64_t off; /* UINT64_MAX: not found */
};

#define MEMO 16
#define MAX_FIELDS 4096 /* fields read of one class */
#define MAX_SUPERS 32   /* superclasses followed */
#define JVM_ACC_STATIC 0x0008 /* class-file access flag (JVMS 4.5) */

struct jvm {
	const struct lt_lm_env *e;
	struct lt_strlist *notes;
	struct hs_vm vm;
	struct hs_strcache *sc;
	char version[96];   /* "HotSpot 17.0.15+6-Debian-1deb12u1" */
	struct lay L;
	struct jthread *t;
	size_t n;
	struct field_memo memo[MEMO];
	size_t n_memo;
	const char *names_why; /* why names are not read; NULL when they are */
	struct flay F;
	int major;             /* Abstract_VM_Version::_vm_major_version, 0  */
	size_t frames_bad;     /* threads whose Java frames could not be read */
	/* matching monitors to threads in near-linear time: 1 + index in t */
	struct lt_u64map by_addr;     /* JavaThread address                   */
	struct lt_u64map by_owner_id; /* _monitor_owner_id (JDK 24+)          */
	struct lt_u64map by_lockobj;  /* object on a lock stack (JDK 21+)     */
	bool lockobj_read;
	size_t *by_stack;             /* indexes in t sorted by stack_lo      */
	struct hs_mcache *mc;         /* methods read, kept (the recorder's:
	                                 hs_mcache_new); NULL none           */
};

/* The recorder's cache of methods and their lines (lock_hotspot_frames.c),
 * which reads a JVM's frames again and again. */
struct hs_mcache *hs_mcache_new(void);
void hs_mcache_free(struct hs_mcache *c);

/* Each missing entry is named in the note that says what is not read. */
struct need {
	struct jvm *j;
	char missing[256];
	size_t len;
};

void hs_missing(struct need *n, const char *what, const char *name);
/* Each records what is missing in N instead of failing. */
void hs_off(struct need *n, const char *type, const char *field, uint64_t *out);
void hs_addr_of(struct need *n, const char *type, const char *field, uint64_t *out);
void hs_int_const(struct need *n, const char *name, int64_t *out);
void hs_type_size(struct need *n, const char *type, uint64_t *out);
/* false, with a note naming what is missing, when N recorded any */
bool hs_complete(struct need *n, const char *what);

uint64_t hs_rd64(const struct jvm *j, uint64_t addr);
int hs_rd(const struct jvm *j, uint64_t addr, void *buf, size_t len);
/* A Symbol's bytes, NUL-terminated; -EFAULT. */
int hs_symbol(const struct jvm *j, uint64_t sym, char *buf, size_t len);
/* "java.lang.Object" for a Klass*. */
int hs_class_name(const struct jvm *j, uint64_t klass, char *buf, size_t len);
/* Objects and fields for lock_hotspot_juc.c: an object's class, a
 * reference field, a field's offset in class K or its superclasses
 * (UINT64_MAX: none), a JavaThread's java.lang.Thread. */
uint64_t hs_klass_of(const struct jvm *j, uint64_t obj);
uint64_t hs_oop_field(const struct jvm *j, uint64_t obj, uint64_t off);
uint64_t hs_field_offset(struct jvm *j, uint64_t k, const char *name, const char *sig);
uint64_t hs_thread_obj(const struct jvm *j, uint64_t jt);
/* java.util.concurrent locks the threads not waiting for a monitor park
 * on (LockSupport.park's blocker): one lock each, *IDX as monitors(). */
int hs_juc_locks(struct jvm *j, struct lt_rtlock **v, size_t *n, size_t first, size_t *idx);
/* Threads in Object.wait() (lock_hotspot.c) and in a java.util.concurrent
 * Condition's await() (lock_hotspot_juc.c) whose monitor or lock another
 * live thread holds: one lock each (lt_rtlock.wait_call), *IDX as
 * monitors(); waits whose lock is free are left alone (events). */
int hs_monitor_waits(struct jvm *j, struct lt_rtlock **v, size_t *n, size_t first, size_t *idx);
int hs_juc_awaits(struct jvm *j, struct lt_rtlock **v, size_t *n, size_t first, size_t *idx);
/* Threads in FutureTask.get() (the task's parkBlocker): one lock per
 * task, held by its runner, or, not started, by none (holderless, what it
 * waits for in holder_how); *IDX as monitors(). */
int hs_juc_futures(struct jvm *j, struct lt_rtlock **v, size_t *n, size_t first, size_t *idx);
/* Threads of no lock (IDX 0) parked in CyclicBarrier.await(), a Phaser's
 * advance, or a CompletableFuture's or ForkJoinTask's get() or join():
 * their waits into TH's sig_* (TH as j->t). */
int hs_juc_parties(struct jvm *j, const size_t *idx, struct lt_rtthread *th);
/* Thread T in Object.wait() on the monitor OM of OBJ: when OBJ is another
 * live thread's java.lang.Thread and T is in Thread.join(), the lock of
 * that join, held by the joined thread, into *IDX (1 + its index from
 * FIRST): 1; 0 when it is no join; -ENOMEM. */
int hs_join_wait(struct jvm *j, const struct jthread *t, uint64_t om, uint64_t obj, struct lt_rtlock **v,
		 size_t *n, size_t first, size_t *idx);
/* Does the thread TID keep what it holds (lt_rt_keeps: asleep in a
 * system call for a while; a thread that runs may hold a monitor or lock
 * for a moment, to notify)?  False without a snapshot. */
bool hs_keeps(const struct jvm *j, pid_t tid);
/* 1 + the index from FIRST in V[FIRST, N) of the wait-for-notify lock of
 * identity BASE held by HOLDER, 0 if none yet. */
size_t hs_notify_lock_at(const struct lt_rtlock *v, size_t first, size_t n, uint64_t base, pid_t holder);
/* A wait-for-notify lock's fields (lt_rtlock.wait_call): KIND, WAIT_CALL
 * and WAKE_CALL static, the version copied; the caller sets name,
 * held_what and the holder. */
void hs_notify_lock(const struct jvm *j, struct lt_rtlock *l, const char *kind, uint64_t base,
		    const char *wait_call, const char *wake_call);
/* What the JavaThread at JT waits for now, read afresh (the recorder's
 * stack reads, hs_stack.h): the object of the monitor it is blocked
 * entering, else its park blocker.  *OBJ and "Java monitor Class@0x..."
 * (or "Java lock ...", a synchronizer with an owner field, or "Java park
 * blocker ...") in NAME; 1, or 0 when it waits for neither (or it is not
 * readable: a value that changed between two reads is not used). */
int hs_wait_object(struct jvm *j, uint64_t jt, uint64_t *obj, char *name, size_t len);

/* Java frames: the layout (sets j->F; a note when they cannot be read),
 * and one thread's Java frames, innermost first, each with the pc of the
 * machine frame that runs it (the unwinder's `??` in the code cache):
 * R's frames, group, n_frames and end (lockmodel.h); -ENOENT when the
 * thread (T, in the snapshot) has no Java frame to show (running Java code,
 * or not started). */
void hs_lay_frames(struct jvm *j);
int hs_java_stack(struct jvm *j, const struct jthread *jt, const struct lt_thread *t, struct lt_rtthread *r);
/* hs_java_stack in two steps, for the recorder (hs_stack.h), which reads
 * a sleeping thread's frames before its native stack is unwound: the walk
 * (R's frames with their machine frames' pcs as the JVM recorded them;
 * *ANCHOR_PC the innermost's), then, given the native frames T, the
 * innermost machine frame's pc as the unwinder saw it. */
int hs_java_walk(struct jvm *j, const struct jthread *jt, struct lt_rtthread *r, uint64_t *anchor_pc);
void hs_java_innermost(const struct jvm *j, const struct lt_thread *t, struct lt_rtthread *r, uint64_t anchor_pc);

/* The JVM's tables and every layout read (lock_hotspot.c): 0, or -ENOENT
 * (no HotSpot, or its threads are not described: notes say why); then
 * one JavaThread read (tid, state, stack range); jvm_free's work. */
int hs_jvm_open(struct jvm *j);
int hs_read_thread(struct jvm *j, uint64_t jt, struct jthread *t);
void hs_jvm_free(struct jvm *j);

#endif
