// SPDX-License-Identifier: MIT
/* The HotSpot model's readers (lock_hotspot.h), used by lock_hotspot.c and
 * lock_hotspot_frames.c: offsets taken from the JVM's tables, noting what
 * is missing, and reads of the JVM's memory, symbols and class names.
 * Below both files, so that neither calls the other back. */
#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "lockmodel.h"
#include "lock_hotspot.h"
#include "rt_hotspot.h"
#include "snapshot_int.h"
#include "utf8.h"

void hs_missing(struct need *n, const char *what, const char *name)
{
	if (n->len < sizeof(n->missing) - 2)
		n->len += (size_t)snprintf(n->missing + n->len, sizeof(n->missing) - n->len, "%s%s%s%s",
					   n->len ? ", " : "", what, what[0] ? "::" : "", name);
}

void hs_off(struct need *n, const char *type, const char *field, uint64_t *out)
{
	const struct hs_field *f = hs_vm_field(&n->j->vm, type, field);
	if (f && !f->is_static)
		*out = f->value;
	else
		hs_missing(n, type, field);
}

void hs_addr_of(struct need *n, const char *type, const char *field, uint64_t *out)
{
	const struct hs_field *f = hs_vm_field(&n->j->vm, type, field);
	if (f && f->is_static)
		*out = f->value;
	else
		hs_missing(n, type, field);
}

void hs_int_const(struct need *n, const char *name, int64_t *out)
{
	if (!hs_vm_int(&n->j->vm, name, out))
		hs_missing(n, "", name);
}

void hs_type_size(struct need *n, const char *type, uint64_t *out)
{
	const struct hs_type *t = hs_vm_type(&n->j->vm, type);
	if (t && t->size)
		*out = t->size;
	else
		hs_missing(n, "sizeof", type);
}

/* false, with a note naming what is missing, when N recorded any */
bool hs_complete(struct need *n, const char *what)
{
	if (!n->len)
		return true;
	lt_strlist_add(n->j->notes, "hotspot: %s: %s not read: no %s in the JVM's tables", n->j->version,
		       what, n->missing);
	return false;
}

/* ---- reading ---- */

uint64_t hs_rd64(const struct jvm *j, uint64_t addr)
{
	uint64_t v = 0;
	if (!addr || lt_lm_read_u64(j->e, addr, &v))
		return 0;
	return v;
}

int hs_rd(const struct jvm *j, uint64_t addr, void *buf, size_t len)
{
	return addr ? j->e->read(j->e->arg, addr, buf, len) : -EFAULT;
}

/* A Symbol's bytes (modified UTF-8), NUL-terminated; -EFAULT. */
int hs_symbol(const struct jvm *j, uint64_t sym, char *buf, size_t len)
{
	uint16_t n;
	if (!sym || hs_rd(j, sym + j->L.sym_length, &n, 2) || n >= len)
		return -EFAULT;
	if (n && hs_rd(j, sym + j->L.sym_body, buf, n))
		return -EFAULT;
	buf[n] = 0;
	return 0;
}

/* "java.lang.Object" for a class's internal name "java/lang/Object". */
int hs_class_name(const struct jvm *j, uint64_t klass, char *buf, size_t len)
{
	if (!klass || hs_symbol(j, hs_rd64(j, klass + j->L.klass_name), buf, len))
		return -EFAULT;
	/* the JVM's own spelling: a hidden class's "+0x..." suffix (kept
	 * apart from package separators in its symbol) is shown as "/0x..." */
	for (char *p = buf; *p; p++)
		if (*p == '/')
			*p = '.';
		else if (*p == '+' && p[1] == '0' && p[2] == 'x')
			*p = '/';
	return 0;
}
