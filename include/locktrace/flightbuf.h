/* SPDX-License-Identifier: MIT */
/*
 * The flight recorder's kernel-side memory (--ring, unless
 * LOCKTRACE_FLIGHT_STREAM=1): per-cpu circular arrays of fixed-size slots
 * that the BPF programs write and nobody reads until a dump, and the state
 * the stall rule needs, kept by the programs and polled by the collector a
 * few times a second.  Shared by bpf/locktrace.bpf.c and src/record/
 * (flightbuf.c reads the slots; docs/flight-recorder.md).
 *
 * Slots: one array map of ncpus * nper slots; cpu c owns slots
 * [c * nper, (c + 1) * nper).  A per-cpu head counts the records that cpu
 * ever wrote: record s goes to slot c * nper + s % nper,
 * overwriting record s - nper.  A slot holds one ring record as the ring
 * buffer would (one event, or a call's entry followed by its switch or
 * wake-up), at most LT_FB_DATA bytes: today's largest is 136 (a futex
 * entry and a switch); the room left is for a record kind of up to 80
 * bytes of payload written with a switch.
 *
 * A slot is written like a seqlock: done = 0, seq, len, the record, then
 * done = 1 (stores in that order).  A reader copies a slot and keeps it
 * only if done was 1 and seq the same before and after the copy.
 */
#ifndef LOCKTRACE_FLIGHTBUF_H
#define LOCKTRACE_FLIGHTBUF_H

#ifndef __bpf__
#include <stdint.h>
#endif

#define LT_FB_SLOT 192
#define LT_FB_HDR 16
#define LT_FB_DATA (LT_FB_SLOT - LT_FB_HDR)
/* slots per cpu: at most this many (192 MiB per cpu) */
#define LT_FB_MAX_NPER (1u << 20)

struct lt_fb_slot {
	uint64_t seq;  /* the cpu's record number s */
	uint32_t len;  /* bytes of data used */
	uint32_t done; /* 1 once the record is complete */
	uint8_t data[LT_FB_DATA];
};

/* The stall rule's view of one thread (map key: tid), kept by the BPF
 * programs: the call it is blocked in, if any (src/record/stall.h says
 * how a call ends well).  state/woken take the values of enum lt_tstate
 * and enum lt_twoken (stall.h): LT_FB_TS_*, LT_FB_WOKEN_*. */
struct lt_fb_thread {
	uint64_t since;    /* BOOTTIME ns the open call began (or the sleep in it) */
	uint64_t woken_at; /* BOOTTIME ns of its first wake-up */
	uint64_t uaddr;    /* futex address of the open wait */
	int64_t timeout;   /* select/poll/epoll timeout (ns), -1 none or unknown */
	uint32_t futex_op; /* op | nr << 16; LT_FB_FILE_LOCK_OP: a file-lock wait */
	uint32_t val;      /* the futex wait's expected value (a join: a tid) */
	uint32_t tgid;
	uint8_t state;
	uint8_t woken;
	uint8_t at_sleep;  /* opened when it went to sleep: ends when it runs again */
	uint8_t pad;
};

#define LT_FB_FILE_LOCK_OP 0xffffffffu
/* the values of enum lt_tstate and enum lt_twoken (stall.c checks) */
#define LT_FB_TS_NONE 0
#define LT_FB_TS_FUTEX_WAIT 1
#define LT_FB_TS_FUTEX_OTHER 2
#define LT_FB_TS_IOWAIT 3
#define LT_FB_WOKEN_NONE 0
#define LT_FB_WOKEN_BY_TASK 1
#define LT_FB_WOKEN_BY_IRQ 2

/* Progress, per cpu (one entry of a per-cpu array): the collector takes
 * the newest over the cpus. */
struct lt_fb_progress {
	uint64_t last_progress;      /* a blocking call returned successfully */
	uint64_t last_lock_progress; /* a futex wait succeeded / a wake woke someone */
	uint64_t events;             /* progress events */
};

#endif
