/* Java frames of a JVM's threads, read from its memory (see lock_hotspot.c
 * and docs/runtimes.md).
 *
 * A Java thread that is not running Java code (blocked on a monitor, in a
 * native method, in the VM) has its last Java frame recorded in its
 * JavaFrameAnchor: sp, pc and fp.  From there the frames are walked as the
 * serviceability agent walks them (x86-64):
 *   interpreted  pc in the template interpreter: the frame's Method* and
 *                bytecode pointer sit at fp - 3 and fp - 8 words
 *                (frame_x86.hpp, the same from JDK 9 to 25; the tables
 *                export the two slots next to them, sender_sp at -1 and
 *                last_sp at -2, which are checked); caller: pc at fp + 1,
 *                fp at fp + 0, unextended sp at fp - 1 words
 *   compiled     pc in an nmethod of the code cache (found through the
 *                code heaps' segment maps): its Method*; caller: sp + the
 *                blob's frame size, pc and fp just below it
 *   stubs        other code blobs with a frame size (adapters, runtime
 *                stubs) are passed through; the entry frame (the call
 *                stub's return address) ends the Java part
 * A Method* is used only after a round trip (its constant pool's holder
 * class must point back to that constant pool), a bytecode pointer only
 * inside its method's bytecodes.  Line numbers come from the method's
 * compressed line number table, whose integer coding changed in JDK 20
 * (UNSIGNED5, utilities/unsigned5.hpp); JDK 20 itself is not decoded.
 * Compiled frames are mapped to their methods, inlined ones included,
 * and bytecode indexes through the nmethod's debug information: the
 * PcDesc of the frame's pc (an exact match, else the next one after it),
 * then its scope chain in the scopes data (sender offset, Method index in
 * the nmethod's metadata, bci, each coded as above), where the tables
 * describe them (JDK 17: CompiledMethod::_scopes_data_begin and the
 * nmethod's _metadata_offset, _scopes_pcs_offset, _dependencies_offset);
 * elsewhere the frame shows the nmethod's method without a line.
 *
 * The frames are the thread's runtime frames (struct lt_rtframe, as a
 * Python stack's), each with the pc of the machine frame that runs it: the
 * unwinder walked the same machine frames (as `??`), so lt_rt_place_pc
 * puts each Java frame at the native frame with its pc, and the native
 * stack stays as the unwinder found it.  The unwinder follows the frame
 * pointer through JIT code, which compiled frames do not keep: it skips
 * them (and the interpreted frame that called them), so the walk also
 * gives the code cache's bounds and the call stub's return address
 * (lt_rtthread.code), within which lt_rt_place_pc places those frames by
 * their order. */
#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "symbols.h"
#include "lock_hotspot.h"
#include "snapshot_int.h"

#define MAX_JAVA_FRAMES 256
#define MAX_HEAPS 16
#define MAX_SEG_HOPS 4096
#define MAX_LNT 65536
/* frame_x86.hpp: slots of an interpreter frame, in words from fp */
#define SENDER_SP_SLOT (-1)
#define LAST_SP_SLOT (-2)
#define METHOD_SLOT (-3)
#define BCP_SLOT (-8)

/* ---- layout ---- */

static void lay_code(struct jvm *j, struct need *n)
{
	struct flay *F = &j->F;
	uint64_t lo_a = 0, hi_a = 0, heaps_a = 0, stub_a = 0, sq_a = 0, sq_buf = 0, sq_lim = 0;
	hs_addr_of(n, "CodeCache", "_low_bound", &lo_a);
	hs_addr_of(n, "CodeCache", "_high_bound", &hi_a);
	hs_addr_of(n, "CodeCache", "_heaps", &heaps_a);
	hs_off(n, "GrowableArrayBase", "_len", &F->ga_len);
	hs_off(n, "GrowableArray<int>", "_data", &F->ga_data);
	hs_off(n, "CodeHeap", "_memory", &F->ch_memory);
	hs_off(n, "CodeHeap", "_segmap", &F->ch_segmap);
	hs_off(n, "CodeHeap", "_log2_segment_size", &F->ch_log2);
	hs_off(n, "VirtualSpace", "_low", &F->vs_low);
	hs_off(n, "VirtualSpace", "_high", &F->vs_high);
	hs_off(n, "HeapBlock::Header", "_used", &F->hb_used);
	hs_type_size(n, "HeapBlock", &F->hb_size);
	hs_off(n, "CodeBlob", "_name", &F->cb_name);
	hs_off(n, "CodeBlob", "_frame_size", &F->cb_frame_size);
	hs_off(n, "nmethod", "_method", &F->nm_method);
	hs_addr_of(n, "StubRoutines", "_call_stub_return_address", &stub_a);
	hs_addr_of(n, "AbstractInterpreter", "_code", &sq_a);
	hs_off(n, "StubQueue", "_stub_buffer", &sq_buf);
	hs_off(n, "StubQueue", "_buffer_limit", &sq_lim);
	F->has_kind = hs_vm_field(&j->vm, "CodeBlob", "_kind") != NULL;
	if (F->has_kind) {
		hs_off(n, "CodeBlob", "_kind", &F->cb_kind);
		hs_int_const(n, "CodeBlobKind::Nmethod", &F->kind_nmethod);
	}
	if (n->len)
		return;
	F->cc_lo = hs_rd64(j, lo_a);
	F->cc_hi = hs_rd64(j, hi_a);
	F->heaps = hs_rd64(j, heaps_a);
	F->call_stub_ret = hs_rd64(j, stub_a);
	uint64_t sq = hs_rd64(j, sq_a);
	int32_t lim = 0;
	F->interp_lo = sq ? hs_rd64(j, sq + sq_buf) : 0;
	if (sq && hs_rd(j, sq + sq_lim, &lim, 4) == 0 && lim > 0)
		F->interp_hi = F->interp_lo + (uint64_t)lim;
}

static void lay_methods(struct jvm *j, struct need *n)
{
	struct flay *F = &j->F;
	hs_off(n, "Method", "_constMethod", &F->m_const);
	hs_off(n, "Method", "_access_flags", &F->m_access);
	hs_off(n, "ConstMethod", "_constants", &F->cm_constants);
	hs_off(n, "ConstMethod", "_code_size", &F->cm_code_size);
	hs_off(n, "ConstMethod", "_name_index", &F->cm_name);
	hs_off(n, "ConstMethod", "_signature_index", &F->cm_sig);
	hs_type_size(n, "ConstMethod", &F->cm_size);
	hs_off(n, "ConstantPool", "_pool_holder", &F->cp_holder);
	hs_off(n, "ConstantPool", "_source_file_name_index", &F->cp_source);
	/* the flags: a u2 with ConstMethod:: bits (JDK <= 20), a u4
	 * ConstMethodFlags (JDK 21+) */
	const struct hs_field *fl = hs_vm_field(&j->vm, "ConstMethod", "_flags");
	if (fl && !fl->is_static) {
		F->cm_flags = fl->value;
		F->cm_flags_width = 2;
		hs_int_const(n, "ConstMethod::_has_linenumber_table", &F->has_lnt);
	} else {
		hs_off(n, "ConstMethod", "_flags._flags", &F->cm_flags);
		F->cm_flags_width = 4;
		hs_int_const(n, "ConstMethodFlags::_misc_has_linenumber_table", &F->has_lnt);
	}
}

/* The interpreter frame's slots: the tables export the two next to the
 * Method* and bcp slots; they must be where frame_x86.hpp puts them. */
static bool interpreter_slots_known(struct jvm *j)
{
	int64_t sender = 0, last = 0;
	return hs_vm_int(&j->vm, "frame::interpreter_frame_sender_sp_offset", &sender) &&
	       hs_vm_int(&j->vm, "frame::interpreter_frame_last_sp_offset", &last) &&
	       sender == SENDER_SP_SLOT && last == LAST_SP_SLOT;
}

/* The debug information of compiled code, where the tables place it. */
static void lay_scopes(struct jvm *j)
{
	struct flay *F = &j->F;
	struct need n = { .j = j };
	hs_off(&n, "CodeBlob", "_code_begin", &F->cb_code_begin);
	hs_off(&n, "CompiledMethod", "_scopes_data_begin", &F->nm_scopes_data);
	hs_off(&n, "nmethod", "_metadata_offset", &F->nm_metadata);
	hs_off(&n, "nmethod", "_scopes_pcs_offset", &F->nm_pcs);
	hs_off(&n, "nmethod", "_dependencies_offset", &F->nm_pcs_end);
	hs_off(&n, "PcDesc", "_pc_offset", &F->pd_pc);
	hs_off(&n, "PcDesc", "_scope_decode_offset", &F->pd_scope);
	hs_type_size(&n, "PcDesc", &F->pd_size);
	hs_int_const(&n, "InvocationEntryBci", &F->entry_bci);
	F->scopes = F->lines && hs_complete(&n, "the bytecode positions of compiled frames");
}

void hs_lay_frames(struct jvm *j)
{
	struct flay *F = &j->F;
	struct need n = { .j = j };
	memset(F, 0, sizeof(*F));
	if (!j->L.objects || !j->L.ik_constants || !j->L.cp_size) {
		lt_strlist_add(j->notes, "hotspot: %s: Java frames not read: classes and constant pools are "
			       "not described", j->version);
		return;
	}
	hs_off(&n, "JavaThread", "_anchor", &F->jt_anchor);
	hs_off(&n, "JavaFrameAnchor", "_last_Java_sp", &F->fa_sp);
	hs_off(&n, "JavaFrameAnchor", "_last_Java_pc", &F->fa_pc);
	hs_off(&n, "JavaFrameAnchor", "_last_Java_fp", &F->fa_fp);
	lay_code(j, &n);
	lay_methods(j, &n);
	if (!interpreter_slots_known(j))
		hs_missing(&n, "", "frame::interpreter_frame_{sender,last}_sp_offset at -1 and -2 words");
	if (!hs_complete(&n, "Java frames"))
		return;
	if (!F->cc_lo || F->cc_hi <= F->cc_lo || !F->interp_lo || !F->interp_hi || !F->heaps) {
		lt_strlist_add(j->notes, "hotspot: %s: Java frames not read: the code cache is not set up",
			       j->version);
		return;
	}
	F->lines = j->major >= 21 ? 2 : j->major >= 9 && j->major <= 19 ? 1 : 0;
	if (!F->lines)
		lt_strlist_add(j->notes, "hotspot: %s: Java line numbers not read: the line tables' coding "
			       "of JDK %d is not known to locktrace", j->version, j->major);
	F->ok = true;
	lay_scopes(j);
}

/* ---- methods ---- */

struct jmethod {
	char name[256];   /* "JavaLocks.crosswise" */
	char file[128];   /* "JavaLocks.java", "" if unknown */
	uint64_t cm;      /* its ConstMethod */
	uint16_t code_size;
	bool native;      /* a native method: no bytecodes */
	struct mc_entry *memo; /* its entry in j->mc, NULL none */
};

/* ---- the recorder's method cache (hs_mcache_new) ----
 * A method read once per Method*: a later read of it is one read (its
 * ConstMethod, which must be the one cached: a Method* freed with its
 * class and reused is read again), and the lines of the bytecode indexes
 * asked for are remembered with it. */
#define MC_MAX 16384 /* methods cached, at most (then read as without) */
#define MC_LINES 8   /* lines remembered per method */

struct mc_entry {
	struct jmethod m;
	uint32_t bci[MC_LINES];
	int line[MC_LINES];
	unsigned nlines, next;
};

struct hs_mcache {
	struct lt_u64map by_method; /* Method* -> struct mc_entry * */
};

struct hs_mcache *hs_mcache_new(void)
{
	return calloc(1, sizeof(struct hs_mcache));
}

void hs_mcache_free(struct hs_mcache *c)
{
	if (!c)
		return;
	for (size_t i = 0; i < c->by_method.cap; i++)
		if (c->by_method.keys[i])
			free(c->by_method.vals[i]);
	lt_u64map_free(&c->by_method);
	free(c);
}

#define JVM_ACC_NATIVE 0x0100 /* class-file access flag (JVMS 4.6) */

/* A constant pool's Symbol at index IDX. */
static int cp_symbol(const struct jvm *j, uint64_t cp, uint16_t idx, char *buf, size_t len)
{
	return idx ? hs_symbol(j, hs_rd64(j, cp + j->L.cp_size + (uint64_t)idx * 8), buf, len) : -EFAULT;
}

/* Reads method M, and only if it is one: its holder class must own its
 * constant pool. */
static int read_method_uncached(const struct jvm *j, uint64_t m, struct jmethod *out);

static int read_method(const struct jvm *j, uint64_t m, struct jmethod *out)
{
	struct hs_mcache *c = j->mc;
	struct mc_entry *e = c && m ? lt_u64map_get(&c->by_method, m) : NULL;
	if (e && hs_rd64(j, m + j->F.m_const) == e->m.cm) {
		*out = e->m;
		return 0;
	}
	int rc = read_method_uncached(j, m, out);
	out->memo = NULL;
	if (rc || !c)
		return rc;
	if (!e && c->by_method.n < MC_MAX && (e = malloc(sizeof(*e))) &&
	    lt_u64map_put(&c->by_method, m, e)) {
		free(e);
		e = NULL;
	}
	if (e) {
		memset(e, 0, sizeof(*e));
		e->m = *out;
		e->m.memo = e;
		out->memo = e;
	}
	return 0;
}

static int read_method_uncached(const struct jvm *j, uint64_t m, struct jmethod *out)
{
	const struct flay *F = &j->F;
	char cls[160], meth[96];
	uint16_t name_i = 0, src_i = 0;
	uint64_t cm = m ? hs_rd64(j, m + F->m_const) : 0;
	uint64_t cp = cm ? hs_rd64(j, cm + F->cm_constants) : 0;
	uint64_t holder = cp ? hs_rd64(j, cp + F->cp_holder) : 0;
	if (!holder || hs_rd64(j, holder + j->L.ik_constants) != cp)
		return -EINVAL;
	if (hs_rd(j, cm + F->cm_name, &name_i, 2) || hs_rd(j, cm + F->cm_code_size, &out->code_size, 2) ||
	    cp_symbol(j, cp, name_i, meth, sizeof(meth)) || hs_class_name(j, holder, cls, sizeof(cls)))
		return -EFAULT;
	uint16_t acc = 0;
	out->native = hs_rd(j, m + F->m_access, &acc, 2) == 0 && (acc & JVM_ACC_NATIVE);
	snprintf(out->name, sizeof(out->name), "%s.%s", cls, meth);
	out->file[0] = 0;
	if (hs_rd(j, cp + F->cp_source, &src_i, 2) == 0 && src_i)
		cp_symbol(j, cp, src_i, out->file, sizeof(out->file));
	out->cm = cm;
	return 0;
}

/* One integer of a line number table: CompressedReadStream's coding, the
 * Pack200 UNSIGNED5 scheme, without (JDK <= 19) or with (JDK 20+) the
 * excluded zero byte. */
static bool stream_int(const uint8_t *b, size_t n, size_t *pos, int coding, uint32_t *out)
{
	const uint32_t X = coding == 2 ? 1 : 0, L = 256 - 64 - X;
	if (*pos >= n || b[*pos] < X)
		return false;
	uint32_t sum = b[*pos] - X;
	if (sum < L) {
		*pos += 1;
		*out = sum;
		return true;
	}
	for (size_t i = 1, sh = 6; i < 5; i++, sh += 6) {
		if (*pos + i >= n || b[*pos + i] < X)
			return false;
		sum += (uint32_t)(b[*pos + i] - X) << sh;
		if (b[*pos + i] < X + L || i == 4) {
			*pos += i + 1;
			*out = sum;
			return true;
		}
	}
	return false;
}

static bool stream_signed(const uint8_t *b, size_t n, size_t *pos, int coding, int32_t *out)
{
	uint32_t v;
	if (!stream_int(b, n, pos, coding, &v))
		return false;
	*out = (int32_t)(v >> 1) ^ -(int32_t)(v & 1);
	return true;
}

/* The source line of BCI: the last (bci, line) pair of the method's
 * compressed table (after its bytecodes) whose bci is not after BCI.
 * Pairs: one byte bci_delta << 3 | line_delta, or 0xff and two signed
 * integers; 0 ends the table.  0 if unknown. */
static int line_of_uncached(const struct jvm *j, const struct jmethod *m, uint32_t bci);

static int line_of(const struct jvm *j, const struct jmethod *m, uint32_t bci)
{
	struct mc_entry *e = m->memo;
	if (!e)
		return line_of_uncached(j, m, bci);
	for (unsigned i = 0; i < e->nlines; i++)
		if (e->bci[i] == bci)
			return e->line[i];
	int line = line_of_uncached(j, m, bci);
	unsigned at = e->nlines < MC_LINES ? e->nlines++ : e->next++ % MC_LINES;
	e->bci[at] = bci;
	e->line[at] = line;
	return line;
}

static int line_of_uncached(const struct jvm *j, const struct jmethod *m, uint32_t bci)
{
	const struct flay *F = &j->F;
	uint32_t flags = 0;
	if (!F->lines || hs_rd(j, m->cm + F->cm_flags, &flags, (size_t)F->cm_flags_width) ||
	    !(flags & (uint32_t)F->has_lnt))
		return 0;
	uint8_t b[512];
	size_t n = sizeof(b), pos = 0;
	uint64_t at = m->cm + F->cm_size + m->code_size;
	while (n >= 16 && hs_rd(j, at, b, n))
		n /= 2; /* the table may end near the end of a mapping */
	int32_t cur_bci = 0, cur_line = 0, line = 0;
	while (n >= 16 && pos < n && b[pos]) {
		int32_t db, dl;
		if (b[pos] == 0xff) {
			pos++;
			if (!stream_signed(b, n, &pos, F->lines, &db) || !stream_signed(b, n, &pos, F->lines, &dl))
				return 0;
		} else {
			db = b[pos] >> 3;
			dl = b[pos] & 7;
			pos++;
		}
		cur_bci += db;
		cur_line += dl;
		if ((uint32_t)cur_bci > bci)
			break;
		line = cur_line;
	}
	return line > 0 ? line : 0;
}

/* ---- the code cache ---- */

/* The CodeBlob holding PC: the code heap holding it, then its segment
 * map back to the block's start (each byte: how many segments back; 0xff:
 * free). */
static uint64_t blob_at(const struct jvm *j, uint64_t pc)
{
	const struct flay *F = &j->F;
	int32_t len = 0;
	uint64_t data = hs_rd64(j, F->heaps + F->ga_data);
	if (hs_rd(j, F->heaps + F->ga_len, &len, 4) || len <= 0 || len > MAX_HEAPS || !data)
		return 0;
	for (int32_t i = 0; i < len; i++) {
		uint64_t h = hs_rd64(j, data + 8 * (uint64_t)i);
		uint64_t lo = hs_rd64(j, h + F->ch_memory + F->vs_low), hi = hs_rd64(j, h + F->ch_memory + F->vs_high);
		uint64_t seg = hs_rd64(j, h + F->ch_segmap + F->vs_low);
		int32_t log2 = 0;
		if (!h || pc < lo || pc >= hi || !seg || hs_rd(j, h + F->ch_log2, &log2, 4) || log2 < 4 || log2 > 20)
			continue;
		uint64_t s = (pc - lo) >> log2;
		for (int hop = 0; hop < MAX_SEG_HOPS; hop++) {
			uint8_t b;
			if (hs_rd(j, seg + s, &b, 1) || b == 0xff || b > s)
				return 0;
			if (!b) {
				uint8_t used = 0;
				uint64_t block = lo + (s << log2);
				return hs_rd(j, block + F->hb_used, &used, 1) == 0 && used ? block + F->hb_size : 0;
			}
			s -= b;
		}
		return 0;
	}
	return 0;
}

static bool is_nmethod(const struct jvm *j, uint64_t blob)
{
	const struct flay *F = &j->F;
	if (F->has_kind) {
		uint8_t kind = 0;
		return hs_rd(j, blob + F->cb_kind, &kind, 1) == 0 && kind == F->kind_nmethod;
	}
	char name[32];
	uint64_t p = hs_rd64(j, blob + F->cb_name);
	return p && hs_read_str(j->e, j->sc, p, name, sizeof(name)) == 0 &&
	       (!strcmp(name, "nmethod") || !strcmp(name, "native nmethod"));
}

/* ---- the walk ---- */

struct walk {
	uint64_t sp, usp, fp, pc; /* usp: the unextended sp (before adapters) */
	uint64_t lo, hi;          /* the thread's stack                       */
	struct lt_rtframe *v;
	unsigned *group;          /* per frame: which machine frame runs it   */
	size_t n;
	unsigned cur;             /* the machine frame being decoded          */
};

/* One Java frame of the machine frame being decoded: KIND "interpreted",
 * "compiled", "inlined" or "native" (static), BCI -1 for none. */
static int push(struct walk *w, uint64_t pc, const char *func, int bci, const char *kind, const char *file,
		int line)
{
	struct lt_rtframe *nv = realloc(w->v, (w->n + 1) * sizeof(*nv));
	if (!nv)
		return -ENOMEM;
	w->v = nv;
	unsigned *ng = realloc(w->group, (w->n + 1) * sizeof(*ng));
	if (!ng)
		return -ENOMEM;
	w->group = ng;
	struct lt_rtframe *f = &nv[w->n];
	memset(f, 0, sizeof(*f));
	f->func = lts_strdup(func);
	f->file = file && file[0] ? lts_strdup(file) : NULL;
	f->line = line > 0 ? line : 0;
	f->native = -1;
	f->pc = pc;
	f->kind = kind;
	f->bci = bci;
	ng[w->n++] = w->cur;
	return 0;
}

static bool in_stack(const struct walk *w, uint64_t a)
{
	return a >= w->lo && a < w->hi;
}

/* An interpreted frame at w->fp; moves W to its caller.  1: done. */
static int interpreted(const struct jvm *j, struct walk *w)
{
	struct jmethod m;
	if (!in_stack(w, w->fp) || read_method(j, hs_rd64(j, w->fp + 8 * METHOD_SLOT), &m))
		return 1;
	uint64_t bcp = hs_rd64(j, w->fp + 8 * BCP_SLOT), code = m.cm + j->F.cm_size;
	if (m.native) {
		/* the interpreter's frame for a native method: no bytecode */
		if (push(w, w->pc, m.name, -1, "native", m.file, 0) < 0)
			return -ENOMEM;
	} else {
		if (bcp < code || bcp > code + m.code_size)
			return 1;
		uint32_t bci = (uint32_t)(bcp - code);
		if (push(w, w->pc, m.name, (int)bci, "interpreted", m.file, line_of(j, &m, bci)) < 0)
			return -ENOMEM;
	}
	uint64_t fp = w->fp;
	w->usp = hs_rd64(j, fp + 8 * SENDER_SP_SLOT);
	w->sp = fp + 16;
	w->pc = hs_rd64(j, fp + 8);
	w->fp = hs_rd64(j, fp);
	return 0;
}

/* The scope decode offset of the PcDesc for PC: an exact match, else the
 * first after it; 0 (the serialized null) if none. */
static int32_t pc_scope(const struct jvm *j, uint64_t blob, uint64_t pc)
{
	const struct flay *F = &j->F;
	int32_t pcs = 0, end = 0, best = 0, best_off = INT32_MAX;
	uint64_t code = hs_rd64(j, blob + F->cb_code_begin);
	if (hs_rd(j, blob + F->nm_pcs, &pcs, 4) || hs_rd(j, blob + F->nm_pcs_end, &end, 4) || pcs <= 0 ||
	    end < pcs || end - pcs > (1 << 22) || !code || pc < code || F->pd_size < 8 || F->pd_size > 64)
		return 0;
	uint64_t off = pc - code;
	uint8_t buf[4096];
	for (uint64_t at = blob + (uint64_t)pcs; at < blob + (uint64_t)end;) {
		size_t len = (size_t)(blob + (uint64_t)end - at);
		len = len > sizeof(buf) ? sizeof(buf) - sizeof(buf) % F->pd_size : len;
		if (hs_rd(j, at, buf, len))
			return 0;
		for (size_t k = 0; k + F->pd_size <= len; k += F->pd_size) {
			int32_t po, sc;
			memcpy(&po, buf + k + F->pd_pc, 4);
			memcpy(&sc, buf + k + F->pd_scope, 4);
			if ((uint64_t)(int64_t)po == off)
				return sc;
			if (po > 0 && (uint64_t)po > off && po < best_off) {
				best_off = po;
				best = sc;
			}
		}
		at += len;
	}
	return best;
}

/* The frames of one compiled frame, from its pc's scope chain: the
 * innermost inlined method first, the nmethod's own method last.  The
 * number of frames pushed; 0 if the debug information was not read. */
static int scope_frames(const struct jvm *j, struct walk *w, uint64_t blob)
{
	const struct flay *F = &j->F;
	int32_t md = 0, pushed = 0;
	uint64_t data = hs_rd64(j, blob + F->nm_scopes_data);
	int32_t dec = F->scopes && data && hs_rd(j, blob + F->nm_metadata, &md, 4) == 0 && md > 0
		      ? pc_scope(j, blob, w->pc) : 0;
	for (int depth = 0; dec > 0 && depth < 32; depth++) {
		uint8_t b[48];
		size_t pos = 0;
		uint32_t sender, midx, rawbci;
		struct jmethod m;
		if (hs_rd(j, data + (uint64_t)dec, b, sizeof(b)) || !stream_int(b, sizeof(b), &pos, F->lines, &sender) ||
		    !stream_int(b, sizeof(b), &pos, F->lines, &midx) ||
		    !stream_int(b, sizeof(b), &pos, F->lines, &rawbci) || !midx ||
		    read_method(j, hs_rd64(j, blob + (uint64_t)md + 8 * ((uint64_t)midx - 1)), &m))
			break;
		int64_t bci = (int64_t)rawbci + F->entry_bci;
		if (bci < -1 || bci >= (int64_t)m.code_size + 1)
			break;
		int line = bci >= 0 ? line_of(j, &m, (uint32_t)bci) : 0;
		if (push(w, w->pc, m.name, bci >= 0 ? (int)bci : -1, sender ? "inlined" : "compiled", m.file,
			 line) < 0)
			return -ENOMEM;
		pushed++;
		dec = (int32_t)sender;
	}
	return pushed;
}

/* A frame of code blob B (compiled, or a stub with a frame); moves W to
 * its caller.  1: done. */
static int compiled(const struct jvm *j, struct walk *w, uint64_t blob)
{
	int32_t words = 0;
	if (hs_rd(j, blob + j->F.cb_frame_size, &words, 4) || words <= 0 || words > 65536)
		return 1;
	if (is_nmethod(j, blob)) {
		struct jmethod m;
		int got = scope_frames(j, w, blob);
		if (got < 0)
			return got;
		if (!got && read_method(j, hs_rd64(j, blob + j->F.nm_method), &m))
			return 1;
		if (!got && push(w, w->pc, m.name, -1, "compiled", m.file, 0) < 0)
			return -ENOMEM;
	}
	uint64_t sender = w->usp + 8 * (uint64_t)words;
	if (!in_stack(w, sender))
		return 1;
	w->pc = hs_rd64(j, sender - 8);
	w->fp = hs_rd64(j, sender - 16);
	w->sp = w->usp = sender;
	return 0;
}

/* 1 when the walk stopped at MAX_JAVA_FRAMES machine frames. */
static int walk(const struct jvm *j, struct walk *w)
{
	const struct flay *F = &j->F;
	for (int depth = 0; w->pc; depth++) {
		int rc;
		uint64_t blob;
		if (w->pc == F->call_stub_ret)
			return 0; /* the entry frame: native code calls Java from here */
		if (depth == MAX_JAVA_FRAMES)
			return 1;
		size_t before = w->n;
		if (w->pc >= F->interp_lo && w->pc < F->interp_hi)
			rc = interpreted(j, w);
		else if (w->pc >= F->cc_lo && w->pc < F->cc_hi && (blob = blob_at(j, w->pc)))
			rc = compiled(j, w, blob);
		else
			return 0;
		w->cur += w->n > before; /* stubs show no Java frame */
		if (rc)
			return rc < 0 ? rc : 0;
		if (!in_stack(w, w->sp))
			return 0;
	}
	return 0;
}

/* The pc of the innermost machine frame as the unwinder saw it.  The
 * anchor's pc is where the JVM recorded the frame's state, which in an
 * interpreter template (or a native wrapper) lies before the call the
 * thread is in; the unwinder sees that frame at the call's return address.
 * The first native frame in the code cache is that frame when it lies in
 * the same code (the interpreter, or the same code blob): its frames take
 * its pc, so that every Java frame has the pc of a native frame. */
static void innermost_pc(const struct jvm *j, const struct lt_thread *t, struct walk *w, uint64_t anchor_pc)
{
	const struct flay *F = &j->F;
	if (!w->n || w->v[0].pc != anchor_pc)
		return; /* the walk began in a stub: its callers' pcs are return addresses */
	size_t k = 0;
	while (k < t->n_frames && !(t->frames[k].pc >= F->cc_lo && t->frames[k].pc < F->cc_hi))
		k++;
	if (k == t->n_frames || t->frames[k].pc == anchor_pc)
		return;
	uint64_t pc = t->frames[k].pc;
	bool interp = anchor_pc >= F->interp_lo && anchor_pc < F->interp_hi;
	bool same = interp ? pc >= F->interp_lo && pc < F->interp_hi
			   : blob_at(j, pc) && blob_at(j, pc) == blob_at(j, anchor_pc);
	for (size_t i = 0; same && i < w->n && w->group[i] == 0; i++)
		w->v[i].pc = pc;
}

int hs_java_walk(struct jvm *j, const struct jthread *jt, struct lt_rtthread *r, uint64_t *anchor_pc)
{
	const struct flay *F = &j->F;
	uint64_t anchor = jt->addr + F->jt_anchor;
	struct walk w = { .lo = jt->stack_lo, .hi = jt->stack_hi };
	if (!F->ok)
		return -ENOENT;
	w.sp = w.usp = hs_rd64(j, anchor + F->fa_sp);
	w.fp = hs_rd64(j, anchor + F->fa_fp);
	w.pc = hs_rd64(j, anchor + F->fa_pc);
	if (!w.sp)
		return -ENOENT; /* in Java code, or no Java frame yet */
	if (!in_stack(&w, w.sp)) {
		j->frames_bad++;
		return -ENOENT;
	}
	if (!w.pc)
		w.pc = hs_rd64(j, w.sp - 8);
	*anchor_pc = w.pc;
	int rc = walk(j, &w);
	if (rc >= 0 && w.n == 0) {
		j->frames_bad++;
		rc = -ENOENT;
	}
	if (rc < 0) {
		for (size_t i = 0; i < w.n; i++) {
			free(w.v[i].func);
			free(w.v[i].file);
		}
		free(w.v);
		free(w.group);
		return rc;
	}
	if (rc == 1)
		r->end = lts_asprintf("deeper than %d Java machine frames: the outer ones are not read",
				      MAX_JAVA_FRAMES);
	r->frames = w.v;
	r->group = w.group;
	r->n_frames = w.n;
	r->code.lo = F->cc_lo;
	r->code.hi = F->cc_hi;
	r->code.entry = F->call_stub_ret;
	return 0;
}

void hs_java_innermost(const struct jvm *j, const struct lt_thread *t, struct lt_rtthread *r, uint64_t anchor_pc)
{
	struct walk w = { .v = r->frames, .group = r->group, .n = r->n_frames };
	if (t)
		innermost_pc(j, t, &w, anchor_pc);
}

int hs_java_stack(struct jvm *j, const struct jthread *jt, const struct lt_thread *t, struct lt_rtthread *r)
{
	uint64_t anchor_pc = 0;
	if (!t)
		return -ENOENT;
	int rc = hs_java_walk(j, jt, r, &anchor_pc);
	if (rc == 0)
		hs_java_innermost(j, t, r, anchor_pc);
	return rc;
}
