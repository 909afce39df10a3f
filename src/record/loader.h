/* SPDX-License-Identifier: MIT */
/* Loading and attaching the BPF programs (bpf/locktrace.bpf.c). */
#ifndef LOCKTRACE_LOADER_H
#define LOCKTRACE_LOADER_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>

struct locktrace_bpf;
struct ring_buffer;
struct lt_fbs;
struct lt_fb_tail;
typedef int (*lt_sample_fn)(void *ctx, void *data, size_t size);

struct lt_bpf {
	struct locktrace_bpf *skel;
	struct ring_buffer *rb;
	int epfd; /* the rings' epoll set, edge-triggered (0: none) */
	/* LT_BPF_COPY_STACKS: called with each struct lt_stack_copy (set
	 * before lt_bpf_start) */
	int (*copy_fn)(void *ctx, void *data, size_t size);
	void *copy_ctx;
	/* with LT_BPF_COPY_WAITERS: a waker's stack is copied at the wake-up
	 * of a sleep of LT_WAITER_COPY_NS or more, and at 1 in this many of
	 * the others (0: none; set before lt_bpf_start) */
	uint32_t waker_sample;
	/* with LT_BPF_COPY_WAITERS: the slots of the sleep notes' array
	 * (BPF map sleep_at), a power of two; 0: LT_SLEEP_SLOTS (set before
	 * lt_bpf_start; tests make it small to have notes share slots) */
	uint32_t sleep_slots;
	/* set by lt_bpf_start: the long waits' stacks are copied when they
	 * end, in the waiter's own context (--calls all: at the call's return;
	 * --calls blocking: at the return to user space, rseq_update), and
	 * the waits' entries carry LT_F_BPF_COPY for the processes
	 * lt_bpf_copies_serve named */
	bool waits_flagged;
	int ncpus;    /* possible cpus: the width of per-cpu maps */
	uint64_t *lost_tmp; /* ncpus values, scratch for per-cpu reads */
	/* LT_BPF_FB_STREAM: the reader of the units (its tails mapped), the
	 * events' callback it hands records to, and whether the programs are
	 * detached (then every record read is handed on) */
	bool fb_stream, detached;
	struct lt_fbs *fbs;
	struct lt_fb_tail *fb_tails;
	size_t tails_maplen;
	lt_sample_fn ev_fn;
	void *ev_ctx;
	/* LT_BPF_FLIGHTBUF: the units, mapped read-only (ncpus * fb_nunits) */
	const struct lt_fb_unit *fb_units;
	size_t fb_maplen;
	uint32_t fb_nunits;
};
struct lt_fb_unit;
struct lt_fb_thread;

/* Checks the kernel can run locktrace (BTF present).  0 or -1 with err. */
int lt_bpf_check_kernel(char *err, size_t errlen);
/* lt_bpf_start flags */
#define LT_BPF_COPY_STACKS 0x100 /* the stack copies' ring (record --stacks;
				* struct lt_stack_copy); with CALLS_BLOCKING
				* the wakers' stacks are copied */
#define LT_BPF_COPY_WAITERS 0x200 /* with COPY_STACKS: also copy a waiter's stack
				  * at the wake-up that ends a sleep of
				  * LT_WAITER_COPY_NS or more, when the waker
				  * shares its address space (LT_COPY_WAITER;
				  * without CALLS_BLOCKING the wait counts from
				  * its call's entry, the copy's ts) */
#define LT_BPF_COPY_AT_WAKE 0x400 /* with COPY_WAITERS and CALLS_BLOCKING: the
				  * waiters' copies at the wake-up, not at
				  * their return to user space
				  * (LOCKTRACE_WAITER_COPY=wake) */
#define LT_WAITER_COPY_NS 1000000ull
#define LT_BPF_CALLS_BLOCKING 0x1 /* --calls blocking: no syscall programs; the
				   * switch program writes the call a thread
				   * sleeps in (LT_F_AT_SLEEP entries) */

/* Opens, configures (target tgid, ring size, flags), loads and attaches
 * the programs.  Returns 0, or -1 with a message saying what failed and
 * what to do in err. */
#define LT_BPF_MULTI 0x2        /* more processes: lt_bpf_start_set's tgids,
				   * or followed forks (a map lookup per event
				   * of another process) */
#define LT_BPF_FOLLOW_FORKS 0x4 /* with MULTI: trace the processes a traced
				   * process forks, added in the kernel */
#define LT_BPF_FLIGHTBUF 0x8    /* the flight recorder: records go to per-cpu
				   * overwrite units (include/locktrace/
				   * flightbuf.h), ring_bytes of them; the ring
				   * buffer stays minimal and empty */
#define LT_BPF_FB_STREAM 0x1000 /* the events through per-cpu units as with
				   * FLIGHTBUF, read as they come (fbstream.h)
				   * instead of through the ring buffer */
#define LT_BPF_FB_STALL 0x10    /* with FLIGHTBUF: the programs keep the stall
				   * rule's state (lt_bpf_fb_threads) */
/* Start tracing TGIDS[0..N) (N >= 1, at most LT_MAX_TGIDS): TGIDS[0] is the
 * main target (rodata), the others go into the kernel's map before the
 * programs attach.  Same return and errors as lt_bpf_start. */
int lt_bpf_start_set(struct lt_bpf *b, const pid_t *tgids, size_t n, uint64_t ring_bytes,
		     unsigned flags, lt_sample_fn fn, void *ctx, int verbose, char *err, size_t errlen);
/* The same, and with ncg > 0 also every task whose cgroup (default, v2
 * hierarchy) is one of cgids[0..ncg) (at most LT_MAX_CGROUPS): --cgroup.
 * TGIDS[0] must still be a traced process (a member of the cgroup). */
int lt_bpf_start_cg(struct lt_bpf *b, const pid_t *tgids, size_t n, const uint64_t *cgids,
		    size_t ncg, uint64_t ring_bytes, unsigned flags, lt_sample_fn fn, void *ctx,
		    int verbose, char *err, size_t errlen);
/* Add one more process while tracing (a descendant found in /proc).
 * 0 or -errno (-E2BIG: the map is full). */
int lt_bpf_add_tgid(struct lt_bpf *b, pid_t tgid);
int lt_bpf_start(struct lt_bpf *b, pid_t tgid, uint64_t ring_bytes, unsigned flags,
		 lt_sample_fn fn, void *ctx, int verbose, char *err, size_t errlen);
/* LT_BPF_COPY_STACKS: where process TGID's Python frames are (NULL: it
 * runs no CPython we read: forget it), and thread TID's thread state (0:
 * forget it), for the wakers' copies (include/locktrace/pyframes.h).  0 or
 * -errno (-E2BIG: the map is full). */
struct lt_py_layout;
int lt_bpf_py_layout(struct lt_bpf *b, uint32_t tgid, const struct lt_py_layout *l);
/* The stack-switching entry points of OCaml 5 process TGID, for its
 * wakers' copies to hold their OCaml stack (locktrace/ocframes.h); NULL
 * removes them. */
struct lt_oc_layout;
int lt_bpf_oc_layout(struct lt_bpf *b, uint32_t tgid, const struct lt_oc_layout *l);
/* Process tgid's waiters are not to be copied by the BPF side (the
 * collector reads them: an OCaml 5 program's, a JVM's); 0 or -errno. */
int lt_bpf_waiters_read(struct lt_bpf *b, uint32_t tgid);
int lt_bpf_py_tstate(struct lt_bpf *b, uint32_t tid, uint64_t ts);
/* Process tgid's waits are served by the BPF side's copies (ON: neither a
 * CPython, an OCaml 5 nor a JVM process) or no longer (an exec).  0 or
 * -errno. */
int lt_bpf_copies_serve(struct lt_bpf *b, uint32_t tgid, bool on);
/* The sleep thread TID was noted in when it went to sleep (map sleep_at:
 * with LT_BPF_COPY_WAITERS): 0, or -ENOENT (none noted), -errno. */
struct lt_sleep_note;
int lt_bpf_sleep_note(struct lt_bpf *b, uint32_t tid, struct lt_sleep_note *out);
/* Events consumed, or negative errno. timeout_ms < 0: do not wait. */
int lt_bpf_poll(struct lt_bpf *b, int timeout_ms);
/* Adds the cumulative lost counts to out[cpu * LT_EV_MAX + kind]
 * (ncpus * LT_EV_MAX entries, zeroed by the caller). 0 or -errno. */
int lt_bpf_read_lost(struct lt_bpf *b, uint64_t *out);
/* LT_BPF_COPY_WAITERS: the waiters' copies so far, summed over the cpus,
 * in out[LT_WCOPY_MAX] (LT_WCOPY_*).  0 or -errno. */
int lt_bpf_read_wcopy(struct lt_bpf *b, uint64_t *out);
/* LT_BPF_FLIGHTBUF: the units each cpu has claimed (heads[ncpus]) and
 * the records it has written (records[ncpus], or NULL). 0 or -errno. */
int lt_bpf_fb_heads(struct lt_bpf *b, uint64_t *heads, uint64_t *records);
/* LT_BPF_FB_STALL: the newest progress over the cpus. 0 or -errno. */
int lt_bpf_fb_progress(struct lt_bpf *b, uint64_t *last, uint64_t *last_lock, uint64_t *events);
/* LT_BPF_FB_STALL: every thread's state, into malloc'd arrays (*n of
 * them; freed by the caller).  0 or -errno. */
int lt_bpf_fb_threads(struct lt_bpf *b, uint32_t **tids, struct lt_fb_thread **t, size_t *n);
/* LT_BPF_FB_STALL: a thread already blocked at attach, unless the
 * programs saw it already.  0 or -errno. */
int lt_bpf_fb_seed(struct lt_bpf *b, uint32_t tid, const struct lt_fb_thread *t);
/* Detaches the programs (no more events) but keeps the ring buffer to drain. */
void lt_bpf_detach(struct lt_bpf *b);
void lt_bpf_destroy(struct lt_bpf *b);
/* Rounds a requested ring size to what the kernel accepts. */
uint64_t lt_bpf_ring_size(uint64_t want);
/* The distance from a cpu's run queue to its preempt count (both per-cpu
 * variables) read from the kernel's BTF, which the wake-up program needs to
 * tell a softirq a task ran in its own socket call from an interrupt; 0 if
 * this kernel's BTF does not say. */
int64_t lt_bpf_preempt_from_rq(void);
bool lt_bpf_has_rseq_update(void);

#endif
