/* SPDX-License-Identifier: MIT */
/* `record --stacks`: the user stack of each wait, copied from the sleeping
 * thread once it has slept STACK_AFTER_NS, or at once for 1 in
 * sample_every waits (registers from /proc/PID/task/TID/syscall, the
 * stack's first COPY_BYTES with process_vm_readv), then unwound with DWARF
 * CFI, as the snapshot does, by a thread of its own: reading a process's
 * modules and debug files the first time takes 0.1 s and more on a cold
 * cache, and the collector keeps copying the waits that begin meanwhile.
 * A stack is kept only if the thread had not returned from the wait's call
 * before the copy ended (its return event, when it comes, is stamped
 * later), so it is the stack the thread went to sleep with.  Stacks are
 * interned and written as STACKS sections (src/trace/stacks.h). */
#ifndef LT_STACKREC_H
#define LT_STACKREC_H

#include <stdint.h>
#include "locktrace/event.h"
#include "locktrace/tracefile.h"

#define LT_STACK_AFTER_NS 1000000ull /* waits this long always get a stack */
/* a wait the BPF side copies at its end (LT_F_BPF_COPY, left_to_bpf) is
 * read while it sleeps only once it is this old: a wait that never ends
 * (a hang) has its stack in the recording too */
#define LT_STACK_LATE_NS 100000000ull
#define LT_STACKREC_QUEUE_MIB 32u   /* copies waiting to be unwound, at most */

struct lt_stackrec;
struct lt_stackrec_stats {
	uint64_t waits;      /* waits seen (calls a thread may sleep in) */
	uint64_t reads;      /* stacks copied from sleeping threads */
	uint64_t kept;       /* of them, unwound and kept (asleep after the copy) */
	uint64_t late;       /* copied, but the thread had returned meanwhile */
	uint64_t attach_waits; /* of waits, under way at the attach (lt_stackrec_attached) */
	uint64_t attach_kept;  /* of them, with a stack kept */
	uint64_t unread;     /* waits of 1 ms or more over before their due read
				was made (the collector behind: a busy machine) */
	uint64_t failed;     /* could not be read (running, gone, another call) */
	uint64_t wakers;     /* wakers' stack copies received (--calls blocking) */
	uint64_t wakers_kept; /* of them, unwound and kept */
	uint64_t wakers_busy; /* left alone: the unwinding budget was spent */
	uint64_t stacks;     /* distinct stacks */
	uint64_t behind;     /* copies dropped: the unwinder's queue was full */
	uint64_t note_reads; /* of reads, from where the BPF side noted the sleep */
	uint64_t note_gone;  /* reads not made: the sleep was over or copied */
	uint64_t left_to_bpf; /* waits not read: only their BPF copy can (lt_stackrec_bpf_waiters) */
	uint64_t sampled_left; /* sampled waits of those, not read: 1 ms old when seen */
	uint64_t bpf_served;  /* waits whose stack the BPF side copies at the thread's return
				 (LT_F_BPF_COPY): not read while they sleep */
	uint64_t bpf_sampled; /* of them, sampled short waits (LT_F_BPF_SAMPLED) */
	uint64_t late_reads;  /* reads of waits left to the BPF side, LT_STACK_LATE_NS old */
	uint64_t maps_reread; /* a process's mappings read again: a copy's stack in none */
	uint64_t read_ns;    /* the collector's time copying stacks */
	uint64_t unwind_ns;  /* the unwinder thread's time */
	uint64_t bytes;      /* STACKS bytes written */
	uint64_t py_procs;   /* CPython processes whose frames are read */
	uint64_t py_reads;   /* waiters' Python frame chains read with the copy */
	uint64_t py_read_ns; /* of read_ns, the collector's time reading them */
	uint64_t py_resolve_ns; /* of unwind_ns, resolving them to functions */
	/* waiters' stacks copied by the BPF side at their wake-up (record
	 * --stacks, LT_COPY_WAITER) */
	uint64_t bpf_waiters;   /* copies received */
	uint64_t bpf_kept;      /* of them, unwound and kept */
	uint64_t bpf_dup;       /* a read of the same wait was taken too: it was dropped */
	uint64_t unwinds_cached; /* copies (BPF's, reads) not unwound: one of the same call path was */
	uint64_t cached_here;   /* of them, found by the collector's thread (no job) */
	uint64_t exec_kept;     /* processes whose modules, read after their exec, were kept at
				 * the exec event: they could not be read again (exited) */
	uint64_t bpf_py_left;   /* left: an OCaml 5 process's, or a CPython thread's without
				 * its Python frames (the reads have them) */
	uint64_t bpf_py;        /* a CPython thread's, with its Python frames */
	uint64_t bpf_again;     /* a copy of a wait that had its stack already: dropped */
	uint64_t wcopy[LT_WCOPY_MAX]; /* the BPF side's counts (lt_stackrec_note_wcopy) */
	uint64_t py_wakers;  /* wakers' copies with their Python frames (BPF side) */
	uint64_t py_wakers_unknown; /* of a CPython process, but the thread's state
				     * was not known yet (native frames only) */
	uint64_t oc_procs;   /* OCaml 5 processes whose OCaml stacks are copied */
	uint64_t oc_reads;   /* waiters' OCaml stacks copied with the C stack */
	uint64_t oc_bytes;   /* their bytes */
	uint64_t oc_read_ns; /* of read_ns, the collector's time finding and copying them */
	uint64_t oc_wakers;  /* wakers' copies with their OCaml stack (BPF side, at the wake-up) */
	uint64_t oc_wakers_cut; /* of those, cut at LT_OC_COPY_BYTES */
	uint64_t oc_wakers_none; /* of an OCaml 5 process, without it (no call from OCaml
				  * code in the C stack copied, or not readable) */
	uint64_t java_procs; /* JVM (HotSpot) processes whose Java frames are read */
	uint64_t java_reads; /* waiters' Java frames read with the copy (a Java thread's) */
	uint64_t java_frames; /* their frames */
	uint64_t java_locks;  /* of the java_reads: the Java lock they wait for read too */
	uint64_t java_read_ns; /* of read_ns, the collector's time reading them (all reads) */
	uint64_t java_read_max_ns; /* the longest of those reads */
	uint64_t java_place_ns; /* of unwind_ns, placing them among the native frames */
};

struct lt_stackrec *lt_stackrec_new(int sample_every);
void lt_stackrec_free(struct lt_stackrec *r);
/* Reads process TGID's modules and CPython runtime (if it runs one) in the
 * unwinder thread now, before its first wait needs them: the Python frame
 * chain of a CPython thread is read with its stack copy only once the
 * runtime is known.  Done by itself at a process's first wait; the
 * recorder calls it for the processes it attaches to (-p). */
void lt_stackrec_open(struct lt_stackrec *r, uint32_t tgid);
/* Waits until the unwinder has done what it was given (the opens), at
 * most MS ms. */
void lt_stackrec_settle(struct lt_stackrec *r, int ms);
/* Every event the collector delivers (tgid: the thread's process). */
void lt_stackrec_event(struct lt_stackrec *r, const struct lt_event *ev, uint32_t tgid);
/* Thread tid of process tgid was asleep in call nr (its arguments args,
 * as /proc/PID/task/TID/syscall gave them to the header's snapshot) when
 * recording began, its wait keyed by ts (the header's boottime, the entry
 * time the timeline gives such a call: trace-format.md, STACKS): its
 * stack is read from /proc at the next lt_stackrec_read, as any sleeping
 * waiter's, and kept if the thread had not run again before the copy
 * ended (its first switch, return or entry after it).  Calls that get no
 * stack (file locks, non-waits) are ignored.  0 or -1 (out of memory). */
int lt_stackrec_attached(struct lt_stackrec *r, int32_t tid, uint32_t tgid, long nr, const uint64_t *args,
			 uint64_t ts);
/* Milliseconds until the next read is due (0: now), -1 none pending. */
int lt_stackrec_due_ms(const struct lt_stackrec *r, uint64_t now_boot);
/* How long the collector may wait before it drains the rings again (0:
 * now; -1: no hurry, its own cadence): 1 ms at most unless lazy, when the
 * entries of the waits it must read wake it. */
int lt_stackrec_poll_ms(const struct lt_stackrec *r, uint64_t now_boot);
/* The BPF side flags the waits its copies serve (LT_F_BPF_COPY) and wakes
 * the collector for the others (lt_bpf.waits_flagged): drains need not
 * come every 1 ms. */
void lt_stackrec_lazy(struct lt_stackrec *r);
/* Copies the stacks that are due (the unwinder thread unwinds them), then
 * wakes the unwinder for every job queued since (lt_stackrec_kick). */
void lt_stackrec_read(struct lt_stackrec *r, uint64_t now_boot);
/* Wakes the unwinder thread for the jobs queued since it was last woken:
 * queueing a job (a BPF copy, a read) does not, so that one drain of the
 * ring wakes it once.  Called after each drain. */
void lt_stackrec_kick(struct lt_stackrec *r);
/* 1 in how many waits shorter than 1 ms get a stack (0: none). */
int lt_stackrec_sample_every(const struct lt_stackrec *r);
/* Writes a STACKS section: the stacks and references not written yet
 * (all 0), or (all 1, a flight dump) every stack and every reference of a
 * wait that began at or after since, the waits still asleep included.
 * 0 or -errno. */
int lt_stackrec_write(struct lt_stackrec *r, struct lt_writer *w, int all, uint64_t since);
/* A stack copy from the BPF side (struct lt_stack_copy; ctx: the struct
 * lt_stackrec), queued for the unwinder.  A waker's (within its time
 * budget for wakers) is filed as the WAKER stack of the waker's wake-side
 * FUTEX_ENTER at its ts; a waiter's as the WAITER stack of the wait that
 * began at its ts, which then needs no read from /proc (a read already
 * taken of that wait is dropped); a CPython process's waiters' copies are
 * left, its waits read as before (the reads have the Python frames, the
 * copies do not).  A ring_buffer callback. */
int lt_stackrec_copy_cb(void *ctx, void *data, size_t size);
/* Reads no stack from /proc: the waits get only the stacks the BPF side
 * copies at their wake-up (LOCKTRACE_WAITER_STACKS=bpf, for tests and
 * measurements). */
void lt_stackrec_no_reads(struct lt_stackrec *r);
/* The BPF side copies the stacks of the waits of 1 ms or more that a
 * thread of their process ends: the untimed waits on process-private
 * futexes (which only such a thread can end) are then not read while they
 * sleep. */
void lt_stackrec_bpf_waiters(struct lt_stackrec *r);
/* The BPF side's counts of waiters' copies (LT_WCOPY_*), for the summary. */
void lt_stackrec_note_wcopy(struct lt_stackrec *r, const uint64_t *wcopy);
/* The BPF side that copies the wakers' stacks (LT_BPF_COPY_STACKS): it is
 * told, for each CPython process, where the Python frames of a waker are
 * (include/locktrace/pyframes.h), so that its copies carry them.  NULL
 * (before the BPF side goes): no more. */
struct lt_bpf;
void lt_stackrec_set_bpf(struct lt_stackrec *r, struct lt_bpf *b);
/* The end: the waits still asleep keep the stack copied; returns once the
 * unwinder has unwound every copy and stopped. */
void lt_stackrec_finish(struct lt_stackrec *r);
const struct lt_stackrec_stats *lt_stackrec_stats(struct lt_stackrec *r);

#endif
