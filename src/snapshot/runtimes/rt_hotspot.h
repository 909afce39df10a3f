/* HotSpot's own description of its structures, read from a JVM's memory
 * (internal: lock_hotspot.c and the tests).
 *
 * Every HotSpot libjvm.so exports, for serviceability agents, four tables
 * built by vmStructs.cpp:
 *   gHotSpotVMStructs        fields: declaring type, name, C++ type, static
 *                            flag, offset (instance) or address (static)
 *   gHotSpotVMTypes          types: name, superclass, size, oop/integer flags
 *   gHotSpotVMIntConstants   named int constants
 *   gHotSpotVMLongConstants  named 64-bit constants
 * Each is a pointer to an array of entries ended by one whose name is NULL.
 * Not even the entries' layout is assumed: the stride and the position of
 * every member are exported beside the table
 * (gHotSpotVMStructEntryArrayStride, gHotSpotVMStructEntryTypeNameOffset,
 * ...).  The reader takes all of them from the process, through struct
 * lt_lm_env, so field offsets are never hard-coded and a fixture is a byte
 * buffer. */
#ifndef LOCKTRACE_RT_HOTSPOT_H
#define LOCKTRACE_RT_HOTSPOT_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "lockmodel.h"

struct hs_field {
	const char *type;    /* declaring type: "JavaThread"                 */
	const char *name;    /* "_osthread", "_narrow_oop._base"             */
	const char *tstring; /* its C++ type, "OSThread*"; NULL if unchecked */
	bool is_static;
	uint64_t value;      /* offset in TYPE, or the static's address      */
};

struct hs_type {
	const char *name;
	const char *super;   /* NULL for a root type                         */
	uint64_t size;
	bool is_oop, is_int, is_unsigned;
};

struct hs_const {
	const char *name;
	int64_t value;
};

struct hs_arena;

struct hs_vm {
	struct hs_field *fields; /* sorted by (type, name)                   */
	size_t n_fields;
	struct hs_type *types;   /* sorted by name                           */
	size_t n_types;
	struct hs_const *ints, *longs; /* sorted by name                     */
	size_t n_ints, n_longs;
	struct hs_arena *arena;  /* the strings                              */
};

/* Reads the four tables.  0; -ENOENT when the process has no HotSpot (no
 * gHotSpotVMStructs symbol: nothing is said); -EIO when it has one whose
 * tables cannot be read or make no sense (a note says why); -ENOMEM. */
int hs_vm_read(const struct lt_lm_env *e, struct hs_vm *vm, struct lt_strlist *notes);
void hs_vm_free(struct hs_vm *vm);

/* Field NAME of TYPE or of its nearest superclass that declares it (the
 * tables list a field under the class that declares it: JavaThread's
 * _osthread is Thread's in later releases).  NULL if none. */
const struct hs_field *hs_vm_field(const struct hs_vm *vm, const char *type, const char *name);
const struct hs_type *hs_vm_type(const struct hs_vm *vm, const char *name);
bool hs_vm_int(const struct hs_vm *vm, const char *name, int64_t *v);
bool hs_vm_long(const struct hs_vm *vm, const char *name, int64_t *v);

/* Strings of the target through a small page cache: most of what a
 * HotSpot model reads by name (flag names, symbols) sits in a few pages. */
struct hs_strcache;
struct hs_strcache *hs_strcache_new(void);
void hs_strcache_free(struct hs_strcache *c);
/* A NUL-terminated string of at most LEN-1 bytes at ADDR: 0 or -EFAULT. */
int hs_read_str(const struct lt_lm_env *e, struct hs_strcache *c, uint64_t addr, char *buf, size_t len);

#endif
