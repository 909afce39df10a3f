/* CPython: which runtime is this?  Shared by the GIL model and the thread
 * model (cpython_int.h).
 *
 * The version, in this order:
 *   - 3.13+: _PyRuntime starts with _Py_DebugOffsets (cookie "xdebugpy"),
 *     whose version field is PY_VERSION_HEX;
 *   - 3.11+: the exported `Py_Version`;
 *   - 3.8-3.10 export no number: the version string that Py_GetVersion's
 *     code refers to (see version_from_code). */
#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <string.h>

#include "cpython_int.h"
#include "snapshot_int.h"

static void version_from_hex(struct lt_cpy_id *c, uint32_t h)
{
	static const char level[16] = { [0xa] = 'a', [0xb] = 'b', [0xc] = 'c' };
	unsigned maj = h >> 24, min = (h >> 16) & 0xff, mic = (h >> 8) & 0xff;
	unsigned lv = (h >> 4) & 0xf, serial = h & 0xf;
	c->hexver = h;
	c->minor = min;
	if (lv == 0xf)
		snprintf(c->version, sizeof(c->version), "CPython %u.%u.%u", maj, min, mic);
	else
		snprintf(c->version, sizeof(c->version), "CPython %u.%u.%u%s%u", maj, min, mic,
			 level[lv] == 'c' ? "rc" : level[lv] == 'a' ? "a" : "b", serial);
}

/* "3.9.18..." -> PY_VERSION_HEX of a final release; 0 if S is no version. */
static uint32_t parse_version_str(const char *s)
{
	unsigned maj, min, mic;
	int end = 0;
	if (sscanf(s, "%u.%u.%u%n", &maj, &min, &mic, &end) != 3 || maj != 3 || min > 99 ||
	    mic > 99)
		return 0;
	char next = s[end];
	if (next && next != ' ' && next != '+' && next != '\n')
		return 0; /* alpha/beta builds: not decoded from text */
	return (uint32_t)maj << 24 | min << 16 | mic << 8 | 0xf0;
}

/* A string the code refers to: does it start with a version number? */
static uint32_t try_version_at(const struct lt_lm_env *e, uint64_t addr)
{
	char buf[24];
	if (lt_lm_read_str(e, addr, buf, sizeof(buf)) < 0)
		return 0;
	return parse_version_str(buf);
}

/* 3.8-3.10 export no version number.  Py_GetVersion formats PY_VERSION
 * (a string literal) into a static buffer that start-up already filled
 * for sys.version; its code refers to both by address: a RIP-relative
 * `lea` (PIC builds) or a `mov $imm32, %r32` (non-PIE executables).  Scan
 * its first bytes for such operands and take the first that points at
 * "3.N.M". */
static uint32_t version_from_code(const struct lt_lm_env *e)
{
	uint64_t fn, fsize;
	uint8_t code[160];
	if (e->lookup(e->arg, "Py_GetVersion", &fn, &fsize) < 0)
		return 0;
	size_t len = fsize && fsize < sizeof(code) ? fsize : sizeof(code);
	while (len >= 16 && e->read(e->arg, fn, code, len) < 0)
		len /= 2;
	if (len < 16)
		return 0;
	for (size_t i = 0; i + 7 <= len; i++) {
		uint64_t target = 0;
		if ((code[i] & 0xfb) == 0x48 && code[i + 1] == 0x8d && (code[i + 2] & 0xc7) == 0x05) {
			int32_t d;
			memcpy(&d, code + i + 3, 4);
			target = fn + i + 7 + (int64_t)d;
		} else if (code[i] >= 0xb8 && code[i] <= 0xbf) {
			uint32_t imm;
			memcpy(&imm, code + i + 1, 4);
			target = imm;
		}
		uint32_t h = target >= 0x1000 ? try_version_at(e, target) : 0;
		if (h)
			return h;
	}
	return 0;
}

uint64_t lt_cpy_do(const struct lt_cpy_id *id, unsigned off)
{
	uint64_t v;
	memcpy(&v, id->d + off, sizeof(v));
	return v;
}

int lt_cpy_identify(const struct lt_lm_env *e, struct lt_cpy_id *id, const char *what,
		    struct lt_strlist *notes)
{
	uint64_t size, addr;
	memset(id, 0, sizeof(*id));
	if (e->lookup(e->arg, "_PyRuntime", &id->runtime, &size) < 0)
		return 0; /* no CPython in this process */
	/* the whole struct, or at least its header when the rest is unmapped */
	bool full = e->read(e->arg, id->runtime, id->d, sizeof(id->d)) == 0;
	if (!full && e->read(e->arg, id->runtime, id->d, 16) < 0)
		memset(id->d, 0, 16);
	bool cookie = memcmp(id->d, "xdebugpy", 8) == 0;
	uint32_t hv = 0;
	if (cookie)
		hv = (uint32_t)lt_cpy_do(id, LT_DO_VERSION);
	else if (e->lookup(e->arg, "Py_Version", &addr, NULL) == 0)
		lt_lm_read_u32(e, addr, &hv);
	else
		hv = version_from_code(e);
	if (!hv || hv >> 24 != 3) {
		lt_strlist_add(notes, "CPython: _PyRuntime at 0x%" PRIx64 " but no version found (no "
			       "_Py_DebugOffsets, Py_Version or version string): %s", id->runtime, what);
		return -1;
	}
	version_from_hex(id, hv);
	unsigned level = (hv >> 4) & 0xf;
	id->have_do = full && cookie && id->minor == 13 && (level == 0xc || level == 0xf);
	return 1;
}

bool lt_cpy_is_thread(const struct lt_lm_env *e, pid_t tid)
{
	return tid > 0 && e->s && lt_snapshot_find(e->s, tid);
}

/* libc describes struct pthread's tid field for libthread_db:
 * _thread_db_pthread_tid = {size in bits, count, offset}. */
static pid_t tid_from_thread_db(const struct lt_lm_env *e, uint64_t pt)
{
	uint64_t a, sz;
	uint32_t desc[3];
	int32_t tid;
	if (e->lookup(e->arg, "_thread_db_pthread_tid", &a, &sz) < 0 ||
	    e->read(e->arg, a, desc, sizeof(desc)) < 0 || desc[0] != 32 || desc[2] >= 0x10000 ||
	    e->read(e->arg, pt + desc[2], &tid, sizeof(tid)) < 0)
		return 0;
	return tid;
}

pid_t lt_cpy_pthread_tid(const struct lt_lm_env *e, uint64_t pt)
{
	pid_t tid = pt ? tid_from_thread_db(e, pt) : 0;
	return tid > 0 ? tid : 0;
}

pid_t lt_cpy_tid_of_pthread(const struct lt_lm_env *e, uint64_t pt, const char **how)
{
	const char *dummy;
	if (!how)
		how = &dummy;
	*how = NULL;
	if (!pt)
		return 0;
	if (e->fsbase && e->s)
		for (size_t i = 0; i < e->s->n_threads; i++)
			if (e->fsbase(e->arg, e->s->threads[i].tid) == pt) {
				*how = "is that thread's fs base";
				return e->s->threads[i].tid;
			}
	pid_t tid = tid_from_thread_db(e, pt);
	if (lt_cpy_is_thread(e, tid)) {
		*how = "holds that thread's tid where libc's _thread_db_pthread_tid says";
		return tid;
	}
	tid = e->stack_tid ? e->stack_tid(e->arg, pt) : 0;
	if (!lt_cpy_is_thread(e, tid))
		return 0;
	*how = "in that thread's stack";
	return tid;
}
