/* SPDX-License-Identifier: MIT */
/* `record --stacks`: the user stack of each wait, read from the sleeping
 * thread (registers from /proc/PID/task/TID/syscall, the stack with
 * process_vm_readv, unwound with DWARF CFI as the snapshot does) once it
 * has slept STACK_AFTER_NS, or at once for 1 in sample_every waits.  A stack
 * is kept only if the thread had not returned from the wait's call before
 * the read ended (its return event, when it comes, is stamped later), so
 * it is the stack the thread went to sleep with.  Stacks are interned and
 * written as STACKS sections (src/trace/stacks.h). */
#ifndef LT_STACKREC_H
#define LT_STACKREC_H

#include <stdint.h>
#include "locktrace/event.h"
#include "locktrace/tracefile.h"

#define LT_STACK_AFTER_NS 1000000ull /* waits this long always get a stack */

struct lt_stackrec;
struct lt_stackrec_stats {
	uint64_t waits;      /* waits seen (calls a thread may sleep in) */
	uint64_t reads;      /* stacks read from sleeping threads */
	uint64_t kept;       /* of them, kept (still asleep after the read) */
	uint64_t late;       /* read, but the thread had returned meanwhile */
	uint64_t failed;     /* could not be read (running, gone, another call) */
	uint64_t wakers;     /* wakers' stack copies received (--calls blocking) */
	uint64_t wakers_kept; /* of them, unwound and kept */
	uint64_t wakers_busy; /* left alone: the unwinding budget was spent */
	uint64_t stacks;     /* distinct stacks */
	uint64_t read_ns;    /* time spent reading and unwinding */
	uint64_t bytes;      /* STACKS bytes written */
};

struct lt_stackrec *lt_stackrec_new(int sample_every);
void lt_stackrec_free(struct lt_stackrec *r);
/* Every event the collector delivers (tgid: the thread's process). */
void lt_stackrec_event(struct lt_stackrec *r, const struct lt_event *ev, uint32_t tgid);
/* Milliseconds until the next read is due (0: now), -1 none pending. */
int lt_stackrec_due_ms(const struct lt_stackrec *r, uint64_t now_boot);
/* Reads the stacks that are due. */
void lt_stackrec_read(struct lt_stackrec *r, uint64_t now_boot);
/* Writes a STACKS section: the stacks and references not written yet
 * (all 0), or (all 1, a flight dump) every stack and every reference of a
 * wait that began at or after since, the waits still asleep included.
 * 0 or -errno. */
int lt_stackrec_write(struct lt_stackrec *r, struct lt_writer *w, int all, uint64_t since);
/* A waker's stack copy from the BPF side (struct lt_stack_copy; ctx: the
 * struct lt_stackrec): unwound, and filed as the WAKER stack of the
 * waker's wake-side FUTEX_ENTER at its ts.  A ring_buffer callback. */
int lt_stackrec_copy_cb(void *ctx, void *data, size_t size);
/* The end: the waits still asleep keep the stack read. */
void lt_stackrec_finish(struct lt_stackrec *r);
const struct lt_stackrec_stats *lt_stackrec_stats(const struct lt_stackrec *r);

#endif
