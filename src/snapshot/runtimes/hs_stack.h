/* Java frames of a sleeping JVM thread, for the recorder (`record
 * --stacks`): the snapshot's walker (lock_hotspot_frames.c) with what it
 * needs read once per process.
 *
 * A JVM thread that waits (a contended monitor, LockSupport.park) sleeps
 * in the VM or in native code, so its JavaFrameAnchor holds its last Java
 * frame for as long as it sleeps.  The recorder reads the frames while the
 * thread still sleeps (lt_hsstk_read, with its copy of the native stack),
 * and places them once that stack is unwound (lt_hsstk_place), as the
 * snapshot places them: each Java frame at the machine frame (`??` in the
 * code cache) that runs it.
 *
 * The JVM's tables (vmStructs) and every offset taken from them are read
 * by lt_hsstk_open; the Java threads (tid -> JavaThread and its stack
 * range) are cached, and read again when the JVM has made a new thread
 * list (at each thread start and exit: one 8-byte read per read tells).  A handle may be used by two threads
 * (the recorder's collector reads, its unwinder places): it locks. */
#ifndef LOCKTRACE_HS_STACK_H
#define LOCKTRACE_HS_STACK_H

#include <stdint.h>
#include <sys/types.h>

#include "lockmodel.h"
#include "snapshot.h"

struct lt_hsstk;

/* The process's HotSpot, read through E (lookup needed here only; read
 * stays in use: E must outlive the handle).  NULL when there is no HotSpot
 * or its Java frames cannot be read (NOTES, if not NULL, says why). */
struct lt_hsstk *lt_hsstk_open(const struct lt_lm_env *e, struct lt_strlist *notes);
void lt_hsstk_free(struct lt_hsstk *h);

/* The Java lock a thread waits for while it sleeps, in Java's terms
 * (hs_wait_object: "Java monitor Mon@0x71a3b2e40", "Java lock
 * java.util.concurrent.locks.ReentrantLock$NonfairSync@0x..."), and its
 * object's address: found 1, else 0 (none, or not readable). */
struct lt_hsstk_lock {
	int found;
	uint64_t obj;
	char name[320];
};

/* Thread TID's Java frames, innermost first, into R (frames, group,
 * n_frames, end; lt_rtthread_clear frees them), *ANCHOR for
 * lt_hsstk_place, and when LK is not NULL the Java lock it waits for, in
 * the same look-up of the thread.  1 read, 0 none (not a Java thread,
 * running Java code, no Java frame; LK then not read), -ENOMEM. */
int lt_hsstk_read(struct lt_hsstk *h, pid_t tid, struct lt_rtthread *r, uint64_t *anchor,
		  struct lt_hsstk_lock *lk);

/* R's frames (lt_hsstk_read's, taken: R keeps their groups, for
 * lt_rtthread_clear) placed among T's
 * native frames: t->rt_frames (.native) and t->rt_end set, t->rt_lang
 * "java".  Returns how many were placed by their order, not by a native
 * frame's pc (lt_rt_place_pc: the unwinder skipped compiled frames). */
size_t lt_hsstk_place(struct lt_hsstk *h, struct lt_thread *t, struct lt_rtthread *r, uint64_t anchor);

#endif
