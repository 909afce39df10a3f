/* SPDX-License-Identifier: MIT */
/*
 * The flight recorder's kernel-side memory (--ring, unless --ring-stream or
 * --stacks): per-cpu circular arrays of 64-byte units
 * that the BPF programs write and nobody reads until a dump, and the state
 * the stall rule needs, kept by the programs and polled by the collector a
 * few times a second.  The other recordings' events go through the same
 * units (fb_stream), which the collector reads as they come
 * (src/record/fbstream.c) and the programs never write over unread.  Shared by bpf/locktrace.bpf.c and src/record/
 * (fbdump.c reads the units; docs/flight-recorder.md).
 *
 * Units: one array map of ncpus * nunits 64-byte units (nunits a power of
 * two); cpu c owns units [c * nunits, (c + 1) * nunits).  A per-cpu head
 * counts the units that cpu ever claimed: a record of len bytes takes
 * k = LT_FB_UNITS(len) consecutive units (1 to 3), the unit numbers
 * s .. s + k - 1 (s the head when it was claimed, the record's sequence
 * number), at positions c * nunits + ((s + i) & (nunits - 1)), overwriting
 * the oldest.  A record is what the ring buffer would carry (one event, or
 * a call's entry followed by its switch or wake-up), at most LT_FB_MAXREC
 * bytes (a futex entry and its switch: 56 + 48, two units; a wake-up,
 * 48, or a switch, 48 without its comms, take one), its bytes split over
 * the units' data, 56 a unit.
 *
 * Every unit carries its record's number: tag = s << 8 | n, n the record's
 * length in its first unit once the record is complete, 0 in the others
 * (and in the first while it is written).  A writer stores each unit's tag
 * before its data, and the first unit's length last; a reader takes a
 * record at s only if the tags of all its units are s (the first with a
 * length) before and after its copy, so a record written over, in part or
 * while being copied, is left out and the units after it are recognised
 * as a newer record's or as remnants.
 */
#ifndef LOCKTRACE_FLIGHTBUF_H
#define LOCKTRACE_FLIGHTBUF_H

#ifndef __bpf__
#include <stdint.h>
#endif
#include "locktrace/event.h"

#define LT_FB_UNIT 64
#define LT_FB_UDATA 56 /* data bytes per unit */
#define LT_FB_MAXREC (3 * LT_FB_UDATA)
#define LT_FB_UNITS(len) ((len) <= LT_FB_UDATA ? 1u : (len) <= 2 * LT_FB_UDATA ? 2u : 3u)
/* units per cpu: a power of two, at least LT_FB_MIN_NUNITS, at most this
 * many (256 MiB per cpu) */
#define LT_FB_MIN_NUNITS (1u << 8)
#define LT_FB_MAX_NUNITS (1u << 22)
/* programs of one cpu writing at once (one interrupting another: a
 * wake-up from an interrupt over a program run with interrupts on) */
#define LT_FB_NEST 4

#define LT_FB_TAG(s, len) ((uint64_t)(s) << 8 | (len))
#define LT_FB_TAG_SEQ(tag) ((tag) >> 8)
#define LT_FB_TAG_LEN(tag) ((uint32_t)((tag) & 0xff))

/* A switch is written into the units without its two comms (the last
 * 2 * LT_COMM_LEN bytes of struct lt_switch), flagged so: one unit instead
 * of two, and a call written with its switch two instead of three.  The
 * dump fills the names in from /proc (src/record/fbdump.h). */
#define LT_FB_F_NO_COMM 0x80
#define LT_FB_SWITCH_SIZE (sizeof(struct lt_ev_hdr) + sizeof(struct lt_switch) - 2 * LT_COMM_LEN)

/* A bounded recording streamed through the units (fb_stream): per cpu, the
 * units the collector has read (a map of its own that it maps and writes;
 * the programs read it and never write over a unit above it). */
struct lt_fb_tail {
	uint64_t tail;
	uint64_t pad[7];
};
struct lt_fb_unit {
	uint64_t tag; /* LT_FB_TAG(s, n): see above */
	uint8_t data[LT_FB_UDATA];
};

/* One cpu's writing state (a per-cpu array of one entry): the head, the
 * records written, and a record being filled per nesting level (the
 * programs fill a record here, then copy it into the units). */
struct lt_fb_cpu {
	uint64_t head;    /* units this cpu ever claimed */
	uint64_t records; /* records it ever wrote */
	uint32_t nest;    /* records being filled on this cpu now */
	uint32_t len[LT_FB_NEST];
	uint32_t pad;
	uint8_t rec[LT_FB_NEST][LT_FB_MAXREC];
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
	uint32_t futex_op; /* op | nr << 16; LT_FB_FILE_LOCK_OP(_TRACED): a file-lock wait */
	uint32_t val;      /* the futex wait's expected value (a join: a tid) */
	uint32_t tgid;
	uint8_t state;
	uint8_t woken;
	uint8_t at_sleep;  /* opened when it went to sleep: ends when it runs again */
	uint8_t pad;
	struct lt_flock_enter flk; /* the open file-lock call (LT_FB_FILE_LOCK_OP_TRACED) */
	/* A futex wait that ran out of time: a new wait on the same futex
	 * before the thread's next successful wait or other call goes on
	 * with it (since kept), as src/record/stall.h's retry does. */
	uint64_t retry_uaddr; /* 0: none */
	uint64_t retry_since;
};

/* futex_op of a thread in a file-lock wait: seeded at attach (a thread
 * already asleep in one: its wake-up ends it), or recorded (its entry was
 * written: it ends as a futex wait does) */
#define LT_FB_FILE_LOCK_OP 0xffffffffu
#define LT_FB_FILE_LOCK_OP_TRACED 0xfffffffeu
/* the values of enum lt_tstate and enum lt_twoken (stall.c checks) */
#define LT_FB_TS_NONE 0
#define LT_FB_TS_FUTEX_WAIT 1
#define LT_FB_TS_FUTEX_OTHER 2
#define LT_FB_TS_IOWAIT 3
#define LT_FB_WOKEN_NONE 0
#define LT_FB_WOKEN_BY_TASK 1
#define LT_FB_WOKEN_BY_IRQ 2
/* a futex wait's return when its time ran out: -ETIMEDOUT (Linux: 110) */
#define LT_FB_ETIMEDOUT 110

/* Progress, per cpu (one entry of a per-cpu array): the collector takes
 * the newest over the cpus. */
struct lt_fb_progress {
	uint64_t last_progress;      /* a blocking call returned successfully */
	uint64_t last_lock_progress; /* a futex wait succeeded / a wake woke someone */
	uint64_t events;             /* progress events */
};

#endif
