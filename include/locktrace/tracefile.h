/* SPDX-License-Identifier: MIT */
/*
 * The locktrace trace file (docs/trace-format.md): a preamble, then
 * self-delimiting chunks, each with its own CRC-32.  A file cut at any byte
 * reads back up to its last complete chunk; damage in the middle is skipped
 * to the next chunk that checks out, and said (struct lt_skip).
 *
 * Writer: lt_writer_open -> lt_writer_header -> lt_writer_event* (buffered
 * into chunks) / lt_writer_section -> lt_writer_close.
 * Reader: lt_reader_open -> lt_reader_next until it returns 0 (clean end or
 * stop; see stop_reason) -> lt_reader_close.
 */
#ifndef LOCKTRACE_TRACEFILE_H
#define LOCKTRACE_TRACEFILE_H

#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <sys/types.h>
#include "locktrace/event.h"

#define LT_VERSION_MAJOR 1
#define LT_VERSION_MINOR 6
#define LT_MAGIC "\x7fLTRACE\n"
#define LT_PREAMBLE_LEN 16
#define LT_CHUNK_HDR_LEN 16
#define LT_CHUNK_MAX (4u << 20) /* a reader refuses larger chunks as damaged */
#define LT_EVENTS_CHUNK_TARGET (256u << 10)

enum lt_chunk_type {
	LT_CHUNK_HEADER = 1,   /* TLV: what was traced (struct lt_header) */
	LT_CHUNK_EVENTS = 2,   /* compact encoded events */
	LT_CHUNK_SNAPSHOT = 3, /* JSON text: state of every thread at attach */
	LT_CHUNK_STATS = 4,    /* TLV: counts and losses at the end (struct lt_stats) */
	LT_CHUNK_END = 5,      /* empty: the writer closed the file cleanly */
	LT_CHUNK_SYMBOLS = 6,  /* TLV: futex address -> name (include/locktrace/locksyms.h) */
	LT_CHUNK_STACKS = 7,   /* TLV (1.5): call stacks of waits, id -> frames, and
				* (tid, ts of the wait's event) -> stack id
				* (src/trace/stacks.h, `record --stacks`) */
	/* the first parts of a section larger than LT_CHUNK_MAX (a snapshot of
	 * thousands of threads): the reader joins consecutive CONT chunks with
	 * the next chunk, whose type the whole section has */
	LT_CHUNK_CONT = 16,
	/* text: why the recorder stopped writing (a write error); written
	 * instead of END, so the file says that it failed */
	LT_CHUNK_FAILED = 17,
};
#define LT_SECTION_MAX (1u << 30) /* a joined section (300,000 threads' snapshot); larger is damage */

/* lt_thread_info.sc_nr when the thread was in no system call at attach
 * (docs/trace-format.md): on a CPU ("running"), blocked outside any system
 * call ("-1" in /proc), or not read. */
#define LT_SC_NR_RUNNING (-3)
#define LT_SC_NR_NONE    (-1)
#define LT_SC_NR_UNKNOWN (-2)

struct lt_thread_info {
	int32_t tid;
	char comm[LT_COMM_LEN];
	/* /proc/PID/task/TID/syscall at attach: nr (>= 0 the system call it
	 * is in; LT_SC_NR_RUNNING, LT_SC_NR_NONE or LT_SC_NR_UNKNOWN below),
	 * args, and how long the thread had not run (ns, 0 unknown) */
	int64_t sc_nr;
	uint64_t sc_args[6];
	uint64_t blocked_ns;
	char state; /* /proc/PID/task/TID/stat's state ('S', 'D', 'R', ...), 0 unknown */
	int32_t tgid; /* its process (the reader sets the header's pid where a
		       * trace before 1.3 has none; 0 when writing: pid) */
};

/* A process traced from the start (1.3).  Processes that join later (a
 * fork followed, a child found by --children) are known from their
 * TASK_NEW events (tgid, parent) and the snapshots. */
struct lt_proc_info {
	int32_t tgid, ppid;
	uint32_t flags; /* LT_PROC_*: how it came to be traced */
	char comm[LT_COMM_LEN];
	char exe[512];
	char cmdline[1024]; /* argv joined by spaces */
};
#define LT_PROC_GIVEN 0x1  /* named with -p, or the launched command */
#define LT_PROC_CHILD 0x2  /* a descendant of one (--children, fork followed) */
#define LT_PROC_CGROUP 0x4 /* a member of the --cgroup */

/* A shared mapping (MAP_SHARED of a file, shm or memfd) of a traced process
 * at attach (1.3).  The kernel keys a futex in it by the mapped object, not
 * the address: (dev, ino, offset + (uaddr - start)) is the same lock in
 * every process that maps the object, wherever it maps it.  A forked child
 * inherits its parent's mappings at the same addresses. */
struct lt_shared_map {
	int32_t tgid;
	uint64_t start, end; /* [start, end) in tgid's address space */
	uint64_t offset;     /* file offset of start, bytes */
	uint64_t dev, ino;   /* the object, as stat(2) gives them (st_dev, st_ino) */
};

struct lt_header {
	uint16_t version_major, version_minor;
	int32_t pid;
	uint32_t flags; /* LT_HDR_* */
	uint32_t ncpus;
	char host[128];
	char kernel[128]; /* uname release */
	char kversion[128]; /* uname version ("#1 SMP PREEMPT_DYNAMIC Debian ..."), "" unknown */
	char machine[64];   /* uname machine ("x86_64"), "" unknown (traces before 1.1) */
	int32_t ppid;       /* the parent process at attach, 0 unknown */
	char comm[LT_COMM_LEN];
	char exe[512];
	char cmdline[1024]; /* argv joined by spaces */
	/* taken back to back at attach: the same instant on three clocks */
	uint64_t clock_boottime, clock_monotonic, clock_realtime;
	uint32_t nthreads;
	struct lt_thread_info *threads; /* owned by the header */
	/* 1.3: every process traced from the start (pid is procs[0]); 0 in a
	 * trace of one process (then pid/ppid/comm/exe/cmdline say it all) */
	uint32_t nprocs;
	struct lt_proc_info *procs;   /* owned by the header */
	uint32_t nshared;
	struct lt_shared_map *shared; /* owned by the header */
};

#define LT_HDR_LAUNCHED 0x1 /* locktrace started the target (`-- CMD`) */
#define LT_HDR_FLIGHT 0x2   /* a flight-recorder dump: threads[] name the
			       threads alive when the dump was written; their
			       syscalls are unknown (sc_nr -2) since /proc cannot
			       tell what they were in when the events begin */
#define LT_HDR_CALLS_BLOCKING 0x4 /* recorded with --calls blocking: only calls
				   * a thread slept in, written when it went to
				   * sleep; their returns are when it ran again,
				   * return values unknown (LT_F_AT_SLEEP,
				   * LT_F_RET_UNKNOWN) */

struct lt_stats {
	uint64_t start_ns, end_ns; /* BOOTTIME */
	uint64_t events[LT_EV_MAX];   /* received, by kind */
	uint32_t ncpus;
	uint64_t *lost;               /* ncpus * LT_EV_MAX, [cpu * LT_EV_MAX + kind] */
	int32_t exit_status;          /* target's wait status if known, else -1 */
	uint32_t stop_reason;         /* enum lt_stop */
	/* a flight dump from the kernel-side buffers: records (a call's
	 * entry and its switch or wake-up count once) the cpus wrote since
	 * recording began and, of those, written over before the dump (not
	 * in the file); both 0 otherwise */
	uint64_t fb_written, fb_overwritten;
};

enum lt_stop {
	LT_STOP_UNKNOWN = 0,
	LT_STOP_SIGNAL = 1,   /* Ctrl-C / SIGTERM */
	LT_STOP_DURATION = 2, /* -d elapsed */
	LT_STOP_EXIT = 3,     /* the target exited */
	LT_STOP_ERROR = 4,    /* write error etc */
	LT_STOP_STALL = 5,    /* the stall detector fired */
	LT_STOP_USR1 = 6,     /* SIGUSR1 asked for a dump */
};

struct lt_writer;

/* Creates PATH (mode 0600).  Refuses an existing file unless force.
 * Returns 0 or -errno. */
int lt_writer_open(struct lt_writer **w, const char *path, int force);
int lt_writer_fd_open(struct lt_writer **w, int fd); /* takes ownership */
/* What an EVENTS chunk holds, for an in-memory writer's callback. */
struct lt_chunk_info {
	uint32_t nevents;
	uint64_t first_ts, last_ts; /* oldest and newest event (BOOTTIME ns) */
};
/* An in-memory writer: each complete chunk (events encoded for pid, about
 * chunk_target bytes) is handed to fn instead of a file; no preamble, no END.
 * info describes an EVENTS chunk (NULL for other sections).  fn returns 0
 * or -errno. */
typedef int (*lt_chunk_fn)(void *ctx, uint32_t type, const uint8_t *payload, size_t len,
			   const struct lt_chunk_info *info);
int lt_writer_mem_open(struct lt_writer **w, int32_t pid, size_t chunk_target, lt_chunk_fn fn,
		       void *ctx);
int lt_writer_header(struct lt_writer *w, const struct lt_header *h);
/* Buffers one event; writes a chunk when the buffer is full. 0 or -errno. */
int lt_writer_event(struct lt_writer *w, const struct lt_event *ev);
/* Ends the current events chunk and writes it (if any events). */
int lt_writer_flush(struct lt_writer *w);
int lt_writer_section(struct lt_writer *w, uint32_t type, const void *data, size_t len);
int lt_writer_stats(struct lt_writer *w, const struct lt_stats *s);
/* Frees w without writing anything more; returns its fd (still open). */
int lt_writer_release_fd(struct lt_writer *w);
/* Flushes, writes the END chunk, closes.  Frees w even on error (NULL: no-op). */
int lt_writer_close(struct lt_writer *w);
/* Bytes written so far (complete chunks). */
uint64_t lt_writer_bytes(const struct lt_writer *w);

enum lt_item_type { LT_ITEM_EVENT = 1, LT_ITEM_SECTION = 2 };

struct lt_item {
	int type;            /* enum lt_item_type */
	struct lt_event ev;  /* LT_ITEM_EVENT */
	uint32_t sec_type;   /* LT_ITEM_SECTION: chunk type (SNAPSHOT, STATS, ...) */
	const uint8_t *data; /* valid until the next lt_reader_next */
	size_t len;
	uint64_t offset;     /* file offset of the chunk the item came from */
};

/* A damaged stretch of the file the reader skipped: a chunk whose magic,
 * length or CRC did not check out, bytes that are no chunk at all (garbage
 * written over or between chunks), a malformed events chunk's rest, or a
 * section of several chunks of which a part was damaged (its good parts are
 * dropped with it: a part of a section is never handed out). */
struct lt_skip {
	uint64_t from, to;   /* file offsets, [from, to) */
	uint32_t chunk_type; /* the damaged chunk's type as its header says
	                        (that header may be damaged too), 0 unknown */
	uint32_t have_before, have_after; /* an event was read before / after it */
	uint64_t ts_before;  /* the last event read before the damage */
	uint64_t ts_after;   /* the first event read after it */
	char why[96];
};
#define LT_READER_SKIPS 32 /* the first ones are kept; nskips counts all */

struct lt_reader {
	FILE *f;
	struct lt_header hdr;
	int have_stats;
	struct lt_stats stats;
	int clean_end;        /* END chunk seen */
	char stop_reason[256]; /* why reading stopped before a clean end ("" if clean) */
	uint64_t stop_offset;
	/* damage read past: the reader scans on for the next chunk that checks
	 * out (magic, length, CRC) and goes on from there */
	uint32_t nskips;
	uint64_t skipped_bytes;
	struct lt_skip skips[LT_READER_SKIPS];
	uint64_t events_read[LT_EV_MAX]; /* by kind */
	/* opened with LT_READ_SECTIONS_IF_NO_HEADER and the header was
	 * damaged: hdr is empty, the events chunks are passed over (counted) */
	int headerless;
	uint64_t undecoded_chunks, undecoded_bytes;
	/* private */
	uint8_t *chunk;
	size_t chunk_cap, chunk_len, pos;
	uint64_t offset; /* of the next chunk */
	uint64_t cur_offset;
	uint32_t cur_type;
	void *dec;
	int done;
	uint8_t *join; /* CONT parts read so far */
	size_t join_len, join_cap;
	uint64_t last_ts;
	int have_last, after_pending;
	uint64_t scan_budget; /* lt_trace_find_chunk's, set at the first damage */
	int scan_budget_set;
};

/* Opens and validates PATH and reads its header chunk.  On error returns
 * -1 with a message in err (e.g. "not a locktrace trace"). */
int lt_reader_open(struct lt_reader *r, const char *path, char *err, size_t errlen);
/* 1: an item; 0: no more (check r->clean_end / r->stop_reason). */
int lt_reader_next(struct lt_reader *r, struct lt_item *it);
void lt_reader_close(struct lt_reader *r);
/* lt_reader_open, and with LT_READ_SECTIONS_IF_NO_HEADER a file whose
 * header chunk is damaged opens too (r->headerless): its sections
 * (snapshots, names, stacks, stats) are handed out, its events are not
 * (their tids are relative to the header's pid). */
#define LT_READ_SECTIONS_IF_NO_HEADER 1u
int lt_reader_open_flags(struct lt_reader *r, const char *path, unsigned flags, char *err, size_t errlen);
/* After reading: was damage skipped?  Then line k (0, 1, ...) of what a
 * user must be told, into buf: each damaged byte range and what it cost
 * (the time between the events around it; from the STATS trailer, when
 * the file has one, how many events of which kind are missing).  Returns
 * 0 past the last line. */
int lt_reader_damage_line(const struct lt_reader *r, unsigned k, char *buf, size_t len);
/* The offset of the first chunk at or after from that checks out (magic,
 * length within the file, CRC), or UINT64_MAX: where reading goes on past
 * damage.  Moves f's position.  The candidates' payloads read are taken
 * from *budget (UINT64_MAX when it runs out), which one pass over a file
 * starts at lt_trace_scan_budget(f): 16 times its size and 64 MiB. */
uint64_t lt_trace_find_chunk(FILE *f, uint64_t from, uint64_t *budget);
uint64_t lt_trace_scan_budget(FILE *f);
/* The same lines appended to the message in buf, each on a line of its own
 * (nothing when no damage was skipped), for a command's warning. */
void lt_trace_damage_append(const struct lt_reader *r, char *buf, size_t len);

void lt_header_free(struct lt_header *h);
void lt_stats_free(struct lt_stats *s);

/* Names for dumps and reports. */
const char *lt_kind_name(unsigned kind);
const char *lt_call_name(unsigned nr); /* "select", "futex", ... */
/* "FUTEX_WAIT_BITSET" for a futex(2) command (op & 0x7f), NULL if unknown */
const char *lt_futex_cmd_name(unsigned cmd);
/* "FUTEX_WAIT_BITSET|PRIVATE|CLOCK_REALTIME" into buf */
const char *lt_futex_op_name(uint32_t op, uint16_t nr, char *buf, size_t len);
/* One human line for an event, no newline. */
void lt_format_event(const struct lt_event *ev, char *buf, size_t len);

uint32_t lt_crc32(const void *data, size_t len);

#endif
