/* SPDX-License-Identifier: MIT */
/*
 * Lock identity across processes: which futex words are the same lock.
 *
 * The kernel keys a private futex by (process, address) and a futex in a
 * shared mapping by the mapped object and the word's offset in it, wherever
 * each process maps it.  The outputs key their locks by one 64-bit number,
 * a lock key:
 *
 *  - a word of the trace's own process (the header's pid) that is not in a
 *    known shared mapping: its address, unchanged, so a trace of one process
 *    reads exactly as before;
 *  - a word of another traced process: LT_LOCKKEY_ENC | process index << 48
 *    | address;
 *  - a word in a shared mapping (known from the header's `shared` maps,
 *    inherited by a forked child, or from a SYMBOLS entry's shared key):
 *    LT_LOCKKEY_ENC | LT_LOCKKEY_SHARED | object index << 48 | offset.
 *
 * The low 48 bits stay an address (or offset), so neighbouring words of
 * one object (a condition variable's two) stay neighbours.  An index past
 * LT_LOCKKEY_MAX_INDEX, or an address above 2^48, falls back to the plain
 * address (then two processes' words could be taken for one).
 */
#ifndef LOCKTRACE_LOCKID_H
#define LOCKTRACE_LOCKID_H

#include <stddef.h>
#include <stdint.h>
#include "locktrace/tracefile.h"

#define LT_LOCKKEY_ENC (1ull << 63)
#define LT_LOCKKEY_SHARED (1ull << 62)
#define LT_LOCKKEY_ADDR_BITS 48
#define LT_LOCKKEY_ADDR_MASK ((1ull << LT_LOCKKEY_ADDR_BITS) - 1)
#define LT_LOCKKEY_MAX_INDEX ((1u << 14) - 1)

struct lt_lockid;

/* What a lock key stands for. */
struct lt_lock_ident {
	int shared;        /* 1: (dev, ino, offset) below; 0: (tgid, addr) */
	uint32_t tgid;     /* private: the process */
	uint64_t addr;     /* private: the address */
	uint64_t dev, ino, offset; /* shared: the object and the word's offset */
};

/* hdr: its pid, procs and shared maps (read during the call).  NULL on
 * out of memory. */
struct lt_lockid *lt_lockid_new(const struct lt_header *hdr);
void lt_lockid_free(struct lt_lockid *ids);
/* The primary process (the header's pid). */
uint32_t lt_lockid_pid(const struct lt_lockid *ids);
/* A process forked from parent: it inherits the parent's shared mappings,
 * at the same addresses.  0 or -ENOMEM. */
int lt_lockid_fork(struct lt_lockid *ids, uint32_t parent_tgid, uint32_t child_tgid);
/* Address addr of process tgid is the word at offset in the shared object
 * (dev, ino) (a SYMBOLS entry's shared key).  0 or -ENOMEM. */
int lt_lockid_add_shared(struct lt_lockid *ids, uint32_t tgid, uint64_t addr, uint64_t dev,
			 uint64_t ino, uint64_t offset);
/* A SYMBOLS entry (locksyms.h): the word addr of process tgid, in the
 * shared object (dev, ino) at offset when shared is set.  Records the
 * shared key and returns the key its name belongs under, or 0 for a word
 * of the trace's own process outside shared mappings (lt_locksyms_parse
 * names those by address already).  0 also on out of memory. */
uint64_t lt_lockid_symbol(struct lt_lockid *ids, uint32_t tgid, uint64_t addr, int shared,
			  uint64_t dev, uint64_t ino, uint64_t offset);
/* The lock key of futex word addr as process tgid uses it; private: the
 * call used FUTEX_PRIVATE_FLAG (the kernel then keys it by the process
 * even in a shared mapping). */
uint64_t lt_lockid_key(struct lt_lockid *ids, uint32_t tgid, uint64_t addr, int private);
/* The key of a word of process tgid without the shared check (for names
 * of addresses, which belong to one process). */
uint64_t lt_lockid_proc_key(struct lt_lockid *ids, uint32_t tgid, uint64_t addr);
/* 0 and *out, or -1 for a key not made by ids.  A plain address decodes as
 * the primary process's. */
int lt_lockid_decode(const struct lt_lockid *ids, uint64_t key, struct lt_lock_ident *out);
/* "0x7f12...", "0x55a0... in process 812", "inode 1234 (dev 0:1)+0x40": how to
 * show a lock key nothing names.  Returns buf. */
const char *lt_lockid_format(const struct lt_lockid *ids, uint64_t key, char *buf, size_t len);
/* Distinct processes seen so far (the primary one included). */
size_t lt_lockid_nprocs(const struct lt_lockid *ids);

#endif
