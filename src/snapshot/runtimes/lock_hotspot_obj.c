/* The HotSpot model's object readers (lock_hotspot.h): oops and klasses
 * (compressed or not), a Java field's offset from its class's own field
 * table (memoised), a JavaThread's java.lang.Thread.  Used by the monitor
 * model (lock_hotspot.c) and the java.util.concurrent reader
 * (lock_hotspot_juc.c), below both so that neither calls the other back. */
#include <errno.h>
#include <inttypes.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "lockmodel.h"
#include "lock_hotspot.h"
#include "rt_hotspot.h"
#include "snapshot_int.h"

/* ---- objects ---- */

static uint64_t decode_oop(const struct jvm *j, uint32_t narrow)
{
	return narrow ? j->L.oop_base + ((uint64_t)narrow << j->L.oop_shift) : 0;
}

/* A reference field of an object: narrow with compressed oops. */
uint64_t hs_oop_field(const struct jvm *j, uint64_t obj, uint64_t off)
{
	if (!obj)
		return 0;
	if (j->L.coops) {
		uint32_t v;
		return lt_lm_read_u32(j->e, obj + off, &v) ? 0 : decode_oop(j, v);
	}
	return hs_rd64(j, obj + off);
}

uint64_t hs_klass_of(const struct jvm *j, uint64_t obj)
{
	if (!obj)
		return 0;
	if (j->L.ccp) {
		uint32_t v;
		if (lt_lm_read_u32(j->e, obj + j->L.oop_klass, &v) || !v)
			return 0;
		return j->L.klass_base + ((uint64_t)v << j->L.klass_shift);
	}
	return hs_rd64(j, obj + j->L.oop_klass);
}

/* ---- Java fields: the class's own field table ---- */

static uint16_t u2_at(const uint16_t *v, size_t i)
{
	return v[i];
}

static bool symbol_is(const struct jvm *j, uint64_t cp, uint32_t idx, const char *want)
{
	char buf[256]; /* descriptors of nested classes run past 64 */
	uint64_t sym = hs_rd64(j, cp + j->L.cp_size + (uint64_t)idx * 8);
	return idx && hs_symbol(j, sym, buf, sizeof(buf)) == 0 && strcmp(buf, want) == 0;
}

/* The offset of instance field NAME (signature SIG) declared by class K
 * itself, from its FieldInfo slots (JDK <= 20); UINT64_MAX if none. */
static uint64_t declared_field_slots(const struct jvm *j, uint64_t k, const char *name, const char *sig)
{
	const struct lay *L = &j->L;
	uint16_t count = 0;
	uint64_t arr = hs_rd64(j, k + L->ik_fields), cp = hs_rd64(j, k + L->ik_constants);
	if (!arr || !cp || hs_rd(j, k + L->ik_java_fields_count, &count, 2) || count > MAX_FIELDS)
		return UINT64_MAX;
	size_t slots = (size_t)L->fi_slots, bytes = (size_t)count * slots * 2;
	uint16_t *v = malloc(bytes ? bytes : 1);
	if (!v || (bytes && hs_rd(j, arr + L->u2_data, v, bytes))) {
		free(v);
		return UINT64_MAX;
	}
	uint64_t found = UINT64_MAX;
	for (size_t i = 0; i < count && found == UINT64_MAX; i++) {
		const uint16_t *fi = v + i * slots;
		uint16_t acc = u2_at(fi, (size_t)L->fi_access);
		if ((acc & JVM_ACC_STATIC) || (acc & (uint16_t)L->acc_internal))
			continue;
		uint32_t packed = (uint32_t)u2_at(fi, (size_t)L->fi_high) << 16 | u2_at(fi, (size_t)L->fi_low);
		if (!(packed & (uint32_t)L->tag_offset))
			continue;
		if (symbol_is(j, cp, u2_at(fi, (size_t)L->fi_name), name) &&
		    symbol_is(j, cp, u2_at(fi, (size_t)L->fi_sig), sig))
			found = packed >> L->tag_size;
	}
	free(v);
	return found;
}

/* One UNSIGNED5 integer of B[*pos..n): 1-5 bytes, never a zero byte.
 * false at the end of the data or on a zero byte. */
static bool u5(const uint8_t *b, size_t n, size_t *pos, uint32_t *out)
{
	enum { X = 1, L = 191, LG_H = 6, MAX_LEN = 5 };
	if (*pos >= n || b[*pos] < X)
		return false;
	uint32_t sum = (uint32_t)b[*pos] - X;
	if (sum < L) {
		*pos += 1;
		*out = sum;
		return true;
	}
	for (int i = 1, sh = LG_H; i < MAX_LEN; i++, sh += LG_H) {
		if (*pos + (size_t)i >= n || b[*pos + (size_t)i] < X)
			return false;
		uint32_t bi = b[*pos + (size_t)i];
		sum += (bi - X) << sh;
		if (bi < X + L || i == MAX_LEN - 1) {
			*pos += (size_t)i + 1;
			*out = sum;
			return true;
		}
	}
	return false;
}

/* One field record of a FieldInfo stream: name, sig, offset, access,
 * flags and the optional items the flags announce. */
static bool stream_field(const struct jvm *j, const uint8_t *b, size_t n, size_t *pos, uint32_t f[5])
{
	const struct lay *L = &j->L;
	for (int k = 0; k < 5; k++)
		if (!u5(b, n, pos, &f[k]))
			return false;
	int64_t opt[3] = { L->ff_init, L->ff_generic, L->ff_contended };
	for (int k = 0; k < 3; k++) {
		uint32_t skip;
		if ((f[4] >> opt[k] & 1) && !u5(b, n, pos, &skip))
			return false;
	}
	return true;
}

#define MAX_STREAM 65536

/* The same from a FieldInfo stream (JDK 21+). */
static uint64_t declared_field_stream(const struct jvm *j, uint64_t k, const char *name, const char *sig)
{
	const struct lay *L = &j->L;
	int32_t len = 0;
	uint64_t arr = hs_rd64(j, k + L->ik_stream), cp = hs_rd64(j, k + L->ik_constants);
	if (!arr || !cp || hs_rd(j, arr, &len, 4) || len <= 0 || len > MAX_STREAM)
		return UINT64_MAX;
	uint8_t *b = malloc((size_t)len);
	if (!b || hs_rd(j, arr + L->u1_data, b, (size_t)len)) {
		free(b);
		return UINT64_MAX;
	}
	size_t pos = 0;
	uint32_t java = 0, injected = 0, f[5];
	uint64_t found = UINT64_MAX;
	if (u5(b, (size_t)len, &pos, &java) && u5(b, (size_t)len, &pos, &injected) && java <= MAX_FIELDS)
		for (uint32_t i = 0; i < java && found == UINT64_MAX; i++) {
			if (!stream_field(j, b, (size_t)len, &pos, f))
				break;
			if ((f[3] & JVM_ACC_STATIC) || (f[4] >> L->ff_injected & 1))
				continue;
			if (symbol_is(j, cp, f[0], name) && symbol_is(j, cp, f[1], sig))
				found = f[2];
		}
	free(b);
	return found;
}

static uint64_t declared_field(const struct jvm *j, uint64_t k, const char *name, const char *sig)
{
	if (j->L.fields == FIELDS_SLOTS)
		return declared_field_slots(j, k, name, sig);
	if (j->L.fields == FIELDS_STREAM)
		return declared_field_stream(j, k, name, sig);
	return UINT64_MAX;
}

/* Field NAME of an object of class K, searching its superclasses. */
uint64_t hs_field_offset(struct jvm *j, uint64_t k, const char *name, const char *sig)
{
	for (size_t i = 0; i < j->n_memo; i++)
		if (j->memo[i].klass == k && j->memo[i].name == name)
			return j->memo[i].off;
	uint64_t o = UINT64_MAX, c = k;
	for (int depth = 0; c && o == UINT64_MAX && depth < MAX_SUPERS; depth++) {
		o = declared_field(j, c, name, sig);
		c = hs_rd64(j, c + j->L.klass_super);
	}
	if (j->n_memo < MEMO)
		j->memo[j->n_memo++] = (struct field_memo){ k, name, o };
	return o;
}

uint64_t hs_thread_obj(const struct jvm *j, uint64_t jt)
{
	uint64_t slot = hs_rd64(j, jt + j->L.jt_threadobj + j->L.oh_obj);
	return slot ? hs_rd64(j, slot) : 0;
}

