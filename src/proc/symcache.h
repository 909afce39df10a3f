/* SPDX-License-Identifier: MIT */
/*
 * What symbolization found in one module, kept between runs in a small
 * file per build-id, so that a later snapshot of a process using the same
 * modules loads no symbol table and no debug information for the addresses
 * and names it has seen before (loading them is most of a small snapshot's
 * time: libc's DWARF alone is a few MB to decompress).
 *
 * The directory is $LOCKTRACE_CACHE_DIR, else $XDG_CACHE_HOME/locktrace,
 * else $HOME/.cache/locktrace; LOCKTRACE_CACHE_DIR=off (or empty) turns
 * the cache off.  It is used only if it is a directory of ours that no one
 * else can write (a root tool must not read names planted by others), and
 * each file only if it is a regular file of ours.  Files are text, one
 * entry per line, appended to (one write per run and module), at most
 * LT_SYMCACHE_MAX bytes each.  A module is named by its build-id, so a
 * rebuilt library never meets another's entries.
 */
#ifndef LOCKTRACE_SYMCACHE_H
#define LOCKTRACE_SYMCACHE_H

#include <stdbool.h>
#include <stdint.h>

#define LT_SYMCACHE_MAX (4u << 20)

struct lt_symcache;

/* A code address (module-relative: the ELF's own vaddr). */
struct lt_symcache_frame {
	char *func;   /* NULL: no symbol covers it */
	uint64_t off; /* address - symbol start */
	char *file;   /* NULL: no line information (or not looked up) */
	int line;
	bool lines;   /* file:line was looked up */
};

/* A data address: the symbol that contains it, if any. */
struct lt_symcache_data {
	char *name; /* NULL: none */
	uint64_t off, size;
};

/* The module with this build-id (hex), its file read if there is one.
 * NULL when the cache is off or its directory is unusable. */
struct lt_symcache *lt_symcache_open(const char *build_id);
/* Appends what was added since open, then frees c (NULL: no-op). */
void lt_symcache_close(struct lt_symcache *c);

const struct lt_symcache_frame *lt_symcache_frame(struct lt_symcache *c, uint64_t vaddr);
void lt_symcache_add_frame(struct lt_symcache *c, uint64_t vaddr, const struct lt_symcache_frame *f);
const struct lt_symcache_data *lt_symcache_data(struct lt_symcache *c, uint64_t vaddr);
void lt_symcache_add_data(struct lt_symcache *c, uint64_t vaddr, const struct lt_symcache_data *d);
/* A symbol looked up by name: 1 found (*vaddr, *size), 0 known to be
 * absent, -1 not known. */
int lt_symcache_name(struct lt_symcache *c, const char *name, uint64_t *vaddr, uint64_t *size);
void lt_symcache_add_name(struct lt_symcache *c, const char *name, int found, uint64_t vaddr,
			  uint64_t size);

/* The directory in use, or NULL (for messages and tests). */
const char *lt_symcache_dir(void);

#endif
