/* Synthetic events for the unit tests (timeline, Perfetto, collector
 * normalizer): each builder sets the fields it takes and zeroes the rest. */
#ifndef LT_EVENTS_H
#define LT_EVENTS_H

#include <stdio.h>
#include <string.h>
#include "locktrace/event.h"

static inline struct lt_event lt_ev(uint64_t ts, uint32_t tid, uint16_t cpu, uint8_t kind)
{
	struct lt_event e;
	memset(&e, 0, sizeof(e));
	e.h = (struct lt_ev_hdr){ .ts = ts, .tid = tid, .cpu = cpu, .kind = kind };
	return e;
}

/* futex(2) (nr 202) */
static inline struct lt_event lt_ev_futex(uint64_t ts, uint32_t tid, uint16_t cpu, uint32_t op,
					  uint64_t uaddr, uint32_t val, int64_t timeout, uint32_t val3)
{
	struct lt_event e = lt_ev(ts, tid, cpu, LT_EV_FUTEX_ENTER);
	e.futex = (struct lt_futex_enter){
		.uaddr = uaddr, .timeout = timeout, .op = op, .val = val, .val3 = val3, .nr = 202
	};
	return e;
}

static inline struct lt_event lt_ev_exit(uint64_t ts, uint32_t tid, uint16_t cpu, uint16_t nr,
					 int64_t ret)
{
	struct lt_event e = lt_ev(ts, tid, cpu, LT_EV_SYS_EXIT);
	e.exit = (struct lt_sys_exit){ .ret = ret, .nr = nr };
	return e;
}

static inline struct lt_event lt_ev_io(uint64_t ts, uint32_t tid, uint16_t cpu, uint16_t nr,
				       int32_t fd, uint64_t count)
{
	struct lt_event e = lt_ev(ts, tid, cpu, LT_EV_IO_ENTER);
	e.io = (struct lt_io_enter){ .count = count, .fd = fd, .nr = nr };
	return e;
}

/* a file-lock call: flock(fd, op) (nr 73, type -1) or fcntl(fd, cmd) (nr
 * 72) with a struct flock of type, start, len (SEEK_SET) */
static inline struct lt_event lt_ev_flock(uint64_t ts, uint32_t tid, uint16_t nr, int32_t fd, uint32_t cmd,
					  int8_t type, int64_t start, int64_t len)
{
	struct lt_event e = lt_ev(ts, tid, 0, LT_EV_FLOCK_ENTER);
	e.flk = (struct lt_flock_enter){ .start = start, .len = len, .fd = fd, .cmd = cmd, .nr = nr,
					 .type = type };
	return e;
}

/* priorities 120 */
static inline struct lt_event lt_ev_waking(uint64_t ts, uint32_t wakee, uint16_t cpu,
					   uint32_t waker, uint32_t waker_tgid, uint8_t flags,
					   uint32_t target_cpu, const char *comm)
{
	struct lt_event e = lt_ev(ts, wakee, cpu, LT_EV_WAKING);
	e.h.flags = flags;
	e.wake = (struct lt_waking){
		.waker_tid = waker, .waker_tgid = waker_tgid, .prio = 120, .target_cpu = target_cpu
	};
	snprintf(e.wake.waker_comm, LT_COMM_LEN, "%s", comm);
	return e;
}

static inline struct lt_event lt_ev_switch(uint64_t ts, uint16_t cpu, uint32_t prev,
					   uint32_t prev_tgid, uint64_t state, uint32_t next,
					   uint32_t next_tgid, const char *pc, const char *nc)
{
	struct lt_event e = lt_ev(ts, prev, cpu, LT_EV_SWITCH);
	e.sw = (struct lt_switch){ .prev_tid = prev, .prev_tgid = prev_tgid, .prev_state = state,
				   .next_tid = next, .next_tgid = next_tgid, .prev_prio = 120, .next_prio = 120 };
	snprintf(e.sw.prev_comm, LT_COMM_LEN, "%s", pc);
	snprintf(e.sw.next_comm, LT_COMM_LEN, "%s", nc);
	return e;
}

#endif
