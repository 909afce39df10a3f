/* SPDX-License-Identifier: MIT */
/*
 * Lock identity: futex addresses -> names ("rtlock+0x28", "libc.so.6:sym",
 * "[heap]+0x2a0", "[stack of thread 812]+0x1f40"), resolved by the recorder
 * against the live process (src/proc/symbols.c) and stored in the trace as
 * SYMBOLS sections, so that a timeline or report made later, when the
 * process is gone, still names its locks.
 *
 * A SYMBOLS payload is TLV (docs/trace-format.md): key 1, one per name, a
 * nested TLV with key 1 the address (varint) and key 2 the name (bytes);
 * since 1.3 also 3 the process (tgid; absent: the trace header's pid) and,
 * for an address in a shared mapping, 4 device, 5 inode, 6 offset of the
 * futex word in the object: the kernel's key of a shared futex, the same
 * in every process that maps the object, wherever it maps it.
 */
#ifndef LOCKTRACE_LOCKSYMS_H
#define LOCKTRACE_LOCKSYMS_H

#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>

struct lt_writer;
struct lt_sym;
struct lt_u64map; /* src/base/u64map.h */

#define LT_LOCKSYMS_MAX 100000 /* names kept at most (memory bound) */

/* A futex word in a shared mapping, as the kernel identifies it: the mapped
 * object (st_dev, st_ino) and the word's offset in it. */
struct lt_shared_key {
	uint64_t dev, ino, offset;
};

struct lt_locksyms {
	pid_t pid;
	pid_t trace_pid;        /* the trace header's pid (init sets it to pid):
				 * the names of another process carry key 3 */
	struct lt_u64map *names; /* addr -> malloc'd name, or a pending marker */
	uint64_t *pending;      /* seen, not named yet */
	size_t npending, cap_pending, nnamed;
	struct lt_sym *sym;
	uint64_t sym_opened_ns; /* CLOCK_MONOTONIC */
	int full;               /* LT_LOCKSYMS_MAX reached: new addresses ignored */
	struct lt_u64map *keys; /* addr -> malloc'd lt_shared_key (shared mappings) */
	struct lt_shared_map *shared; /* the process's shared mappings, read with sym */
	size_t nshared, cap_shared;
};

/* 0 or -ENOMEM. */
int lt_locksyms_init(struct lt_locksyms *ls, pid_t pid);
void lt_locksyms_free(struct lt_locksyms *ls);
/* Reads the process's mappings now, so that addresses seen later can still
 * be named after the process has exited (the ELF files are read by path).
 * Best effort: a failure leaves naming to the first resolve. */
void lt_locksyms_prepare(struct lt_locksyms *ls);
/* Notes an address (cheap: one hash look-up once it is known). */
void lt_locksyms_see(struct lt_locksyms *ls, uint64_t addr);
/* Names the addresses seen since the last call against the live process
 * and, if w is not NULL, writes them as a SYMBOLS section.  0 or -errno
 * (a write error; a process that is gone just leaves them unnamed). */
int lt_locksyms_resolve(struct lt_locksyms *ls, struct lt_writer *w);
/* Writes every name known as one SYMBOLS section (flight dumps). */
int lt_locksyms_write_all(const struct lt_locksyms *ls, struct lt_writer *w);

/* Adds the names in a SYMBOLS payload to map (addr -> malloc'd name): the
 * names of the trace header's process only (entries without key 3), as
 * before 1.3.  0 or -EINVAL (malformed: what was read before stays). */
int lt_locksyms_parse(const uint8_t *data, size_t len, struct lt_u64map *map);

/* One name of a SYMBOLS payload, of any process: tgid (the default pid
 * given to the parser where the entry has no key 3), the address in that
 * process, its name, and key when the address lies in a shared mapping
 * (NULL otherwise).  name and key are valid during the call only. */
typedef void (*lt_locksym_fn)(void *ctx, int32_t tgid, uint64_t addr, const char *name,
			      const struct lt_shared_key *key);
/* Calls fn for every entry of a SYMBOLS payload in order (a later entry
 * for the same tgid and address renames it).  pid: the trace header's pid.
 * 0 or -EINVAL (malformed: the entries before were delivered). */
int lt_locksyms_parse_procs(const uint8_t *data, size_t len, int32_t pid, lt_locksym_fn fn, void *ctx);
/* Every SYMBOLS section of a trace file through lt_locksyms_parse_procs,
 * with the header's pid as the default, skipping the events.  Only the
 * recorder's names: the snapshots' lock-model names are not included.
 * 0, or -1 if the file cannot be read (what was read was delivered). */
int lt_trace_symbols_procs(const char *path, lt_locksym_fn fn, void *ctx);
/* The names a stored snapshot (JSON) gives: the lock models' names of
 * futex words into locks, the runtimes' thread names into threads (either
 * may be NULL); 0 or -1.  The snapshot layer reads that schema:
 * rp_snapshot_names (src/snapshot/snapfacts.h) is the one to pass. */
typedef int (*lt_snapnames_fn)(const char *json, size_t len, struct lt_u64map *locks,
			       struct lt_u64map *threads);
/* Reads every SYMBOLS section of a trace file into map, and the lock
 * models' names its snapshots give (through names, when not NULL),
 * skipping the events (a cheap first pass for writers that name locks up
 * front).  0, or -1 if the file cannot be read (what was read stays). */
int lt_trace_symbols(const char *path, struct lt_u64map *map, lt_snapnames_fn names);
/* The same, and the runtimes' thread names the snapshots read into tnames
 * (tid -> malloc'd name; a later snapshot's name wins). */
int lt_trace_names(const char *path, struct lt_u64map *map, struct lt_u64map *tnames, lt_snapnames_fn names);
/* Frees a map filled by the two functions above, names included. */
void lt_symmap_free(struct lt_u64map *map);

#endif
