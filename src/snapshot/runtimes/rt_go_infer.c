/* The Go model's inferences (rt_go.c reads, this names and infers):
 *
 *  - a semaphore wait's sync object, from the waiter's frames:
 *    sync.(*Mutex).lockSlow -> the Mutex (its sema is at +4), RWMutex.RLock
 *    (readerSem, +12), RWMutex.Lock (writerSem, +8), WaitGroup.Wait;
 *  - the variable of a sync object (the data symbol holding it) or of a
 *    channel (a package variable of 8 bytes pointing at the hchan);
 *  - the holder of a locked sync.Mutex, which records none: the goroutine
 *    one of whose frames refers to the mutex (a RIP-relative operand equal
 *    to its address: the LEA passed to Lock, or Lock's inlined CMPXCHG)
 *    before the point where that frame is stopped, when exactly one
 *    goroutine other than its waiters does.  An inference, said to be one:
 *    the reference may be an Unlock already done, or the mutex may be held
 *    through a pointer (heap object: no inference). */
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "golang.h"
#include "rt_go_int.h"
#include "snapshot_int.h"

#define MAX_CODE (64u << 10)

static bool has_frame(const struct lt_go_routine *r, const char *func)
{
	for (size_t i = 0; i < r->n_frames; i++)
		if (r->frames[i].func && !strcmp(r->frames[i].func, func))
			return true;
	return false;
}

static void sema_kind(struct lt_go_routine *r)
{
	if (has_frame(r, "sync.(*RWMutex).RLock")) {
		r->obj_kind = "sync.RWMutex (read lock)";
		r->lock = r->obj - 12;
	} else if (has_frame(r, "sync.(*RWMutex).Lock") && !has_frame(r, "sync.(*Mutex).lockSlow")) {
		r->obj_kind = "sync.RWMutex (write lock, waiting for readers)";
		r->lock = r->obj - 8;
	} else if (has_frame(r, "sync.(*RWMutex).Lock")) {
		r->obj_kind = "sync.RWMutex (write lock)";
		r->lock = r->obj - 4;
	} else if (has_frame(r, "sync.(*Mutex).lockSlow") || has_frame(r, "sync.(*Mutex).Lock")) {
		r->obj_kind = "sync.Mutex";
		r->lock = r->obj - 4;
	} else if (has_frame(r, "sync.(*WaitGroup).Wait")) {
		/* its 64-bit state (counter << 32 | waiters) first, its sema at
		 * +8: Go 1.20's atomic.Uint64 and 1.18-1.19's 8-aligned layout */
		r->obj_kind = "sync.WaitGroup";
		r->lock = (r->obj & 7) ? r->obj : r->obj - 8;
	} else {
		r->obj_kind = "semaphore";
		r->lock = r->obj;
	}
}

static char *var_name(const struct go_ctx *c, uint64_t addr)
{
	uint64_t off = 0;
	const char *n = go_sym_at(c, addr, &off);
	if (!n)
		return NULL;
	return off ? lts_asprintf("%s+0x%" PRIx64, n, off) : lts_strdup(n);
}

static bool user_pkg(const char *n)
{
	return strncmp(n, "runtime.", 8) && strncmp(n, "internal/", 9) && strncmp(n, "sync.", 5) &&
	       strncmp(n, "go.", 3) && strncmp(n, "type.", 5) && strncmp(n, "go:", 3) && strncmp(n, "type:", 5);
}

/* the package variable holding each waited-on channel */
static void chan_names(struct go_ctx *c)
{
	bool any = false;
	for (size_t i = 0; i < c->go->n_routines && !any; i++)
		any = c->go->routines[i].wait == LT_GO_WAIT_CHAN && c->go->routines[i].obj;
	if (!any)
		return;
	for (size_t k = 0; k < c->nsyms; k++) {
		const struct go_sym *s = &c->syms[k];
		if (s->size != 8 || !user_pkg(s->name))
			continue;
		uint64_t v;
		if (lt_lm_read_u64(c->e, s->addr + c->bias, &v) || !v)
			continue;
		for (size_t i = 0; i < c->go->n_routines; i++) {
			struct lt_go_routine *r = &c->go->routines[i];
			if (r->wait == LT_GO_WAIT_CHAN && r->obj == v && !r->obj_name)
				r->obj_name = lts_strdup(s->name);
		}
	}
}

/* A code cache: functions are read once. */
struct code {
	uint64_t entry, len;
	uint8_t *b;
};

static const uint8_t *code_of(struct go_ctx *c, struct code **cache, size_t *n, uint64_t entry, uint64_t len)
{
	for (size_t i = 0; i < *n; i++)
		if ((*cache)[i].entry == entry && (*cache)[i].len >= len)
			return (*cache)[i].b;
	uint8_t *b = malloc(len ? len : 1);
	if (!b || c->e->read(c->e->arg, entry, b, len)) {
		free(b);
		return NULL;
	}
	struct code *x = realloc(*cache, (*n + 1) * sizeof(*x));
	if (!x) {
		free(b);
		return NULL;
	}
	*cache = x;
	x[(*n)++] = (struct code){ entry, len, b };
	return b;
}

/* The function a call at P (E8 rel32) goes to, NULL. */
static const char *call_target(const struct go_ctx *c, const uint8_t *b, uint64_t entry, uint64_t len,
			       uint64_t p)
{
	if (p + 5 > len || b[p] != 0xe8)
		return NULL;
	int32_t d;
	memcpy(&d, b + p + 1, 4);
	return go_func_name(c, entry + p + 5 + (uint64_t)(int64_t)d);
}

static bool is_lock_fn(const char *n)
{
	return n && (!strcmp(n, "sync.(*Mutex).Lock") || !strcmp(n, "sync.(*Mutex).lockSlow") ||
		     !strcmp(n, "sync.(*RWMutex).Lock") || !strcmp(n, "sync.(*Mutex).TryLock"));
}

static bool is_unlock_fn(const char *n)
{
	return n && (!strcmp(n, "sync.(*Mutex).Unlock") || !strcmp(n, "sync.(*Mutex).unlockSlow") ||
		     !strcmp(n, "sync.(*RWMutex).Unlock"));
}

/* Whether the ModRM byte at B[P] (code at ENTRY) is a RIP-relative operand
 * (mod 00, r/m 101) whose 4-byte displacement reaches the 8-byte word at
 * WORD, for the instruction ending 5, 6 or 9 bytes on (no immediate, or
 * an 8- or 32-bit one). */
static bool rip_refers(const uint8_t *b, uint64_t entry, uint64_t p, uint64_t word)
{
	if ((b[p] & 0xc7) != 0x05)
		return false;
	int32_t d;
	memcpy(&d, b + p + 1, 4);
	static const unsigned ends[] = { 5, 6, 9 };
	for (int k = 0; k < 3; k++) {
		uint64_t t = entry + p + ends[k] + (uint64_t)(int64_t)d;
		if (t >= word && t < word + 8)
			return true;
	}
	return false;
}

/* Does code [entry, entry+len) (a frame's function up to where it is
 * stopped) lock [m, m+8) and not unlock it after?  A RIP-relative operand
 * (ModRM mod 00, r/m 101, disp32; the instruction ends after it or after an
 * 8- or 32-bit immediate) equal to the mutex counts as
 *   - a lock when it is Lock's inlined fast path (LOCK CMPXCHG, F0 0F B1)
 *     or an LEA (REX.W 8D) followed within 32 bytes by a call of
 *     sync.(*Mutex).Lock or lockSlow;
 *   - an unlock when it is Unlock's inlined LOCK XADD (F0 0F C1) or an LEA
 *     followed by a call of Unlock/unlockSlow.
 * Other references (taking its address for another purpose) count for
 * nothing. */
static bool locks(const struct go_ctx *c, const uint8_t *b, uint64_t entry, uint64_t len, uint64_t m)
{
	bool held = false;
	for (uint64_t p = 3; p + 5 <= len; p++) {
		if (!rip_refers(b, entry, p, m))
			continue;
		if (b[p - 3] == 0xf0 && b[p - 2] == 0x0f && b[p - 1] == 0xb1) {
			held = true;
		} else if (b[p - 3] == 0xf0 && b[p - 2] == 0x0f && b[p - 1] == 0xc1) {
			held = false;
		} else if (b[p - 1] == 0x8d && (b[p - 2] & 0xf8) == 0x48) {
			for (uint64_t q = p + 5; q < p + 37 && q + 5 <= len; q++) {
				const char *fn = call_target(c, b, entry, len, q);
				if (is_lock_fn(fn)) {
					held = true;
					break;
				}
				if (is_unlock_fn(fn)) {
					held = false;
					break;
				}
			}
		}
	}
	return held;
}

static void infer_holders(struct go_ctx *c)
{
	struct lt_go *go = c->go;
	for (size_t i = 0; i < go->n_routines; i++) {
		const struct lt_go_routine *r = &go->routines[i];
		if (r->wait != LT_GO_WAIT_SEMA || !r->lock)
			continue;
		bool seen = false;
		for (size_t k = 0; k < go->n_mutexes; k++)
			seen |= go->mutexes[k].addr == r->lock;
		if (seen)
			continue;
		struct lt_go_mutex *x = realloc(go->mutexes, (go->n_mutexes + 1) * sizeof(*x));
		if (!x)
			return;
		go->mutexes = x;
		struct lt_go_mutex *m = &go->mutexes[go->n_mutexes++];
		memset(m, 0, sizeof(*m));
		m->addr = r->lock;
		m->kind = !strncmp(r->obj_kind, "sync.RWMutex", 12) ? "sync.RWMutex" :
			  !strcmp(r->obj_kind, "sync.Mutex") ? "sync.Mutex" : r->obj_kind;
		m->holder = -1;
		if (!strcmp(m->kind, "sync.RWMutex")) {
			/* w Mutex, writerSem, readerSem, readerCount, readerWait:
			 * a writer pending makes readerCount negative by 1 << 30 */
			uint32_t rc, rwait, ws;
			if (!lt_lm_read_u32(c->e, m->addr + 16, &rc) && !lt_lm_read_u32(c->e, m->addr + 20, &rwait) &&
			    !lt_lm_read_u32(c->e, m->addr, &ws)) {
				/* readerCount counts the readers in and those
				 * queued behind a pending writer; readerWait those
				 * of the first kind the writer still waits for */
				int32_t readers = (int32_t)rc;
				if (readers < 0) {
					int32_t in = (int32_t)rwait, all = readers + (1 << 30);
					m->facts = lts_asprintf("a writer is pending: %d reader%s that came before it "
								"still hold%s it, %d reader%s wait%s behind the writer",
								in, in == 1 ? "" : "s", in == 1 ? "s" : "", all - in,
								all - in == 1 ? "" : "s", all - in == 1 ? "s" : "");
				} else {
					m->facts = lts_asprintf("%d reader%s hold%s it; its writer mutex is %s", readers,
								readers == 1 ? "" : "s", readers == 1 ? "s" : "",
								(ws & 1) ? "locked" : "free");
				}
			}
		}
		m->name = r->obj_name ? lts_strdup(r->obj_name) : NULL;
		uint64_t wg;
		if (!strcmp(m->kind, "sync.WaitGroup") && m->addr != r->obj &&
		    !lt_lm_read_u64(c->e, m->addr, &wg)) {
			int32_t n = (int32_t)(wg >> 32);
			m->facts = lts_asprintf("counter %d, %u waiter%s: %s", n, (unsigned)(uint32_t)wg,
						(uint32_t)wg == 1 ? "" : "s",
						n > 0 ? "it waits for that many more Done() calls; which goroutines "
							"are to make them is not recorded" : "its waiters are being woken");
		}
		uint32_t st;
		if (lt_lm_read_u32(c->e, m->addr, &st) == 0) {
			m->state = (int32_t)st;
			m->state_ok = true;
		}
	}
	struct code *cache = NULL;
	size_t ncache = 0;
	for (size_t k = 0; k < go->n_mutexes; k++) {
		struct lt_go_mutex *m = &go->mutexes[k];
		if (strcmp(m->kind, "sync.Mutex")) {
			if (!strcmp(m->kind, "sync.RWMutex"))
				m->holder_how = lts_strdup("readers are not recorded, and their read locks are not "
							   "inferred: holders unknown");
			continue;
		}
		if (m->state_ok && !(m->state & 1)) {
			m->holder_how = lts_asprintf("not locked (state 0x%x): the waiters are being woken", m->state);
			continue;
		}
		if (!m->name) {
			m->holder_how = lts_strdup("a sync.Mutex records no owner, and this one is no package "
						   "variable the code refers to: holder unknown");
			continue;
		}
		long cand = -1, ncand = 0;
		const char *cfunc = NULL, *cfile = NULL;
		int cline = 0;
		for (size_t i = 0; i < go->n_routines; i++) {
			const struct lt_go_routine *r = &go->routines[i];
			if (r->wait == LT_GO_WAIT_SEMA && r->lock == m->addr)
				continue;
			bool hit = false;
			for (size_t f = 0; f < r->n_frames && !hit; f++) {
				const struct lt_go_frame *fr = &r->frames[f];
				if (fr->inlined || !fr->func || !user_pkg(fr->func))
					continue;
				uint64_t entry;
				uint64_t fn = lt_go_pcln_func(&c->pcln, fr->pc - c->bias, &entry);
				if (!fn)
					continue;
				entry += c->bias;
				uint64_t len = fr->pc - entry;
				if (len > MAX_CODE)
					continue;
				const uint8_t *b = code_of(c, &cache, &ncache, entry, len);
				if (b && locks(c, b, entry, len, m->addr)) {
					hit = true;
					cfunc = fr->func;
					cfile = fr->file;
					cline = fr->line;
				}
			}
			if (hit) {
				ncand++;
				cand = (long)i;
			}
		}
		m->n_candidates = ncand;
		if (ncand == 1) {
			const struct lt_go_routine *h = &go->routines[cand];
			m->holder = cand;
			/* the code is read in a line, not by the paths it takes: a
			 * Lock in a branch not taken reads the same */
			m->holder_how = lts_asprintf("inferred: goroutine %" PRId64 "'s %s has code that locks %s "
						     "before the point where it is stopped (%s:%d) and none that "
						     "unlocks it after (whether that code ran, or sat in a branch "
						     "not taken, is not known), and %s is locked "
						     "(state 0x%x); a sync.Mutex records no owner",
						     h->id, cfunc, m->name, cfile ? cfile : "?", cline, m->name,
						     m->state);
		} else if (ncand > 1) {
			m->holder_how = lts_asprintf("%ld goroutines have code that locks %s before where they are "
						     "stopped and none that unlocks it: the holder is probably one "
						     "of them (a sync.Mutex records no owner)", ncand, m->name);
		} else {
			m->holder_how = lts_asprintf("no goroutine's frames lock %s before where they are stopped "
						     "(locked through a pointer, or by a goroutine gone?): holder "
						     "unknown (a sync.Mutex records no owner)",
						     m->name);
		}
	}
	for (size_t i = 0; i < ncache; i++)
		free(cache[i].b);
	free(cache);
}

/* Is FN one of the runtime's functions that do operation RECV (true:
 * receive, false: send) on a channel, or a select (either)? */
static bool chan_op_fn(const char *fn, bool recv)
{
	return fn && (!strcmp(fn, "runtime.selectgo") ||
		      (recv ? !strcmp(fn, "runtime.chanrecv1") || !strcmp(fn, "runtime.chanrecv2")
			    : !strcmp(fn, "runtime.chansend1")));
}

/* Does code [from, len) of the function at ENTRY load the channel
 * variable [v, v+8) (a RIP-relative operand, as locks() reads them) and
 * then, within 96 bytes, call one of the runtime's functions that do
 * operation OP on a channel ("receive": chanrecv1, chanrecv2; "send":
 * chansend1; either: selectgo, a select with that case)?  V 0: does it
 * call one at all (the channel then comes from elsewhere: a stack slot)? */
static bool chan_op_after(const struct go_ctx *c, const uint8_t *b, uint64_t entry, uint64_t from, uint64_t len,
			  uint64_t v, bool recv)
{
	for (uint64_t p = from < 3 ? 3 : from; p + 5 <= len; p++) {
		if (!v) {
			if (chan_op_fn(call_target(c, b, entry, len, p), recv))
				return true;
			continue;
		}
		bool hit = rip_refers(b, entry, p, v);
		for (uint64_t q = p + 5; hit && q < p + 101 && q + 5 <= len; q++)
			if (chan_op_fn(call_target(c, b, entry, len, q), recv))
				return true;
	}
	return false;
}

/* Where the code a frame stopped at offset FROM of its function may run
 * from once it goes on: FROM, or the target of a jump back (a loop: a
 * "for range ch" receives at its head, before where the body is stopped)
 * found in the code from there on, again from that target.  The bytes are
 * read, not decoded: a jump's opcode inside another instruction may take
 * the start further back (the code then looked at is more, never less).
 * A jump to the function's entry (the stack-growth retry after
 * morestack) is no loop. */
static uint64_t reach_from(const uint8_t *b, uint64_t from, uint64_t len)
{
	uint64_t start = from;
	for (bool more = true; more;) {
		more = false;
		for (uint64_t p = start; p + 2 <= len; p++) {
			int64_t t = -1;
			int32_t d;
			if (b[p] == 0xeb || (b[p] >= 0x70 && b[p] <= 0x7f)) {
				t = (int64_t)p + 2 + (int8_t)b[p + 1];
			} else if (b[p] == 0xe9 && p + 5 <= len) {
				memcpy(&d, b + p + 1, 4);
				t = (int64_t)p + 5 + d;
			} else if (b[p] == 0x0f && (b[p + 1] & 0xf0) == 0x80 && p + 6 <= len) {
				memcpy(&d, b + p + 2, 4);
				t = (int64_t)p + 6 + d;
			}
			if (t > 0 && (uint64_t)t < start) {
				start = (uint64_t)t;
				more = true;
			}
		}
	}
	return start;
}

static const struct go_sym *sym_named(const struct go_ctx *c, const char *name)
{
	for (size_t k = 0; name && k < c->nsyms; k++)
		if (c->syms[k].size == 8 && !strcmp(c->syms[k].name, name))
			return &c->syms[k];
	return NULL;
}

#define PEERS_SHOWN 4
#define MAX_STACK (1u << 20)
/* reads of objects a stack points to, for all heap channels together */
#define MAX_DEREFS 100000
#define DEREF_BYTES 128

/* goroutines looked through for the other ends of waits, over all the
 * channels waited on: more, and the waits on further channels are not
 * inferred (a pool of goroutines each on its own channel) */
#define MAX_EVALS 200000

/* which goroutines could do the other operation on a channel */
struct chmemo {
	uint64_t obj;
	bool recv;
	bool *hit; /* by goroutine index */
	bool cut;  /* the reads' budget ran out: no answer */
};

struct stk {
	uint8_t *b; /* the goroutine's stack [sp, hi), NULL unread */
	size_t n;
	bool tried;
};

static const struct stk *stack_of(struct go_ctx *c, struct stk *st, size_t k)
{
	struct stk *x = &st[k];
	const struct lt_go_routine *o = &c->go->routines[k];
	if (x->tried)
		return x;
	x->tried = true;
	if (!o->sp || o->stack_hi <= o->sp || o->stack_hi - o->sp > MAX_STACK)
		return x;
	x->n = (size_t)(o->stack_hi - o->sp);
	x->b = malloc(x->n);
	if (x->b && c->e->read(c->e->arg, o->sp, x->b, x->n)) {
		free(x->b);
		x->b = NULL;
	}
	if (!x->b)
		x->n = 0;
	return x;
}

/* Does the stack hold the channel H: a word equal to it, or (DEREF) a word
 * pointing into H's region of the heap at an object whose first
 * DEREF_BYTES hold it (a closure's context, a struct with a channel
 * field)?  -1: the reads' budget ran out before an answer. */
static int stack_refers(struct go_ctx *c, const struct stk *x, uint64_t h, bool deref, long *budget)
{
	size_t n = x->n / 8;
	for (size_t i = 0; i < n; i++) {
		uint64_t w;
		memcpy(&w, x->b + i * 8, 8);
		if (w == h)
			return 1;
	}
	if (!deref)
		return 0;
	for (size_t i = 0; i < n; i++) {
		uint64_t w;
		memcpy(&w, x->b + i * 8, 8);
		if (w == h || (w >> 32) != (h >> 32) || (w & 7))
			continue;
		if (--*budget < 0)
			return -1;
		uint64_t o[DEREF_BYTES / 8];
		if (c->e->read(c->e->arg, w, o, sizeof(o)))
			continue;
		for (size_t k = 0; k < DEREF_BYTES / 8; k++)
			if (o[k] == h)
				return 1;
	}
	return 0;
}

/* Does one of goroutine O's own frames, from where it may run on (loops
 * included: reach_from), load the channel variable V and do operation
 * RECV on it (V 0: do operation RECV on any channel)? */
static bool frames_do(struct go_ctx *c, struct code **cache, size_t *ncache, const struct lt_go_routine *o,
		      uint64_t v, bool recv)
{
	for (size_t f = 0; f < o->n_frames; f++) {
		const struct lt_go_frame *fr = &o->frames[f];
		if (fr->inlined || !fr->func || !user_pkg(fr->func))
			continue;
		uint64_t entry, end = lt_go_pcln_func_end(&c->pcln, fr->pc - c->bias);
		if (!end || !lt_go_pcln_func(&c->pcln, fr->pc - c->bias, &entry))
			continue;
		entry += c->bias;
		end += c->bias;
		if (end - entry > MAX_CODE || fr->pc < entry)
			continue;
		const uint8_t *b = code_of(c, cache, ncache, entry, end - entry);
		/* from the return address (the callee's return) on */
		if (b && chan_op_after(c, b, entry, reach_from(b, fr->pc - entry, end - entry), end - entry, v, recv))
			return true;
	}
	return false;
}

/* For each goroutine blocked in a chan send or receive: the other
 * goroutines that could end its wait, inferred.
 *  - A channel held by a package variable: those whose code, from where
 *    each of its frames is stopped (or the head of a loop it is in) to the
 *    end of that frame's function, loads that variable and then does the
 *    other operation on it (or a select), or that hold the channel on
 *    their stack and whose frames' code does that operation (a
 *    "for range ch" loads it once, before its loop).
 *  - Any other channel (made at run time, passed as an argument or caught
 *    by a closure): those that hold a reference to it, on their stack or
 *    in an object their stack points to, whatever their code does.
 * Only those the snapshot can see: a goroutine not yet started, code in a
 * function not on a goroutine's stack, or a reference held further away,
 * are not: an inference, and said to be one. */
static void chan_peers(struct go_ctx *c)
{
	struct lt_go *go = c->go;
	struct code *cache = NULL;
	size_t ncache = 0;
	struct stk *st = NULL;
	long budget = MAX_DEREFS;
	struct chmemo *memo = NULL;
	size_t nmemo = 0, evals = 0;
	for (size_t i = 0; i < go->n_routines; i++) {
		struct lt_go_routine *r = &go->routines[i];
		if (r->wait != LT_GO_WAIT_CHAN || !r->obj || !r->dir || r->system ||
		    (strcmp(r->dir, "send") && strcmp(r->dir, "receive")))
			continue;
		if (!st && !(st = calloc(go->n_routines, sizeof(*st))))
			break;
		const struct go_sym *vs = r->obj_name ? sym_named(c, r->obj_name) : NULL;
		bool recv = !strcmp(r->dir, "send"); /* what a peer must do */
		uint64_t v = vs ? vs->addr + c->bias : 0;
		long n = 0;
		char who[400] = "";
		size_t wl = 0;
		size_t *list = NULL;
		/* who could: the same for every waiter on the channel in that
		 * direction, looked for once */
		struct chmemo *mm = NULL;
		for (size_t q = 0; q < nmemo && !mm; q++)
			if (memo[q].obj == r->obj && memo[q].recv == recv)
				mm = &memo[q];
		if (!mm && evals + go->n_routines > MAX_EVALS) {
			r->chan_peers_how = lts_strdup("not inferred: too many channels waited on to look through "
						       "every goroutine for each");
			r->n_chan_peers = -1;
			continue;
		}
		if (!mm) {
			struct chmemo *x = realloc(memo, (nmemo + 1) * sizeof(*x));
			bool *hit = calloc(go->n_routines, 1);
			if (!x || !hit) {
				free(hit);
				if (x)
					memo = x;
				break;
			}
			memo = x;
			mm = &memo[nmemo++];
			*mm = (struct chmemo){ r->obj, recv, hit, false };
			evals += go->n_routines;
			for (size_t k = 0; k < go->n_routines; k++) {
				const struct lt_go_routine *o = &go->routines[k];
				if (o->system)
					continue;
				if (v) {
					hit[k] = frames_do(c, &cache, &ncache, o, v, recv);
					if (!hit[k] && stack_refers(c, stack_of(c, st, k), r->obj, false, &budget) == 1)
						hit[k] = frames_do(c, &cache, &ncache, o, 0, recv);
				} else {
					int y = stack_refers(c, stack_of(c, st, k), r->obj, true, &budget);
					mm->cut |= y < 0;
					hit[k] = y == 1;
				}
			}
		}
		bool cut = mm->cut;
		for (size_t k = 0; k < go->n_routines; k++) {
			const struct lt_go_routine *o = &go->routines[k];
			if (k == i || o->system || !mm->hit[k])
				continue;
			size_t *nl = realloc(list, (size_t)(n + 1) * sizeof(*nl));
			if (!nl)
				break;
			list = nl;
			list[n++] = k;
			if (n <= PEERS_SHOWN && wl < sizeof(who) - 80)
				wl += (size_t)snprintf(who + wl, sizeof(who) - wl, "%sgoroutine %" PRId64, wl ? ", " : "",
						       o->id);
		}
		if (cut) {
			/* some stacks not looked through: no answer */
			free(list);
			r->chan_peers_how = lts_strdup("not inferred: too many objects to read to find which "
						       "goroutines hold a reference to the channel");
			r->n_chan_peers = -1;
			continue;
		}
		r->n_chan_peers = n;
		r->chan_peer = n == 1 ? list[0] + 1 : 0;
		r->chan_peer_list = list;
		const char *more = n > PEERS_SHOWN ? ", ..." : "";
		const char *unseen = "goroutines not yet started, and functions not on their stacks, are not seen";
		if (!v && n)
			r->chan_peers_how = lts_asprintf("inferred from stacks: %s%s%s hold%s a reference to the "
							 "channel, on %s stack or in an object it points to (no "
							 "variable holds it; %s, nor references held further away)",
							 n == 1 ? "only " : "", who, more, n == 1 ? "s" : "",
							 n == 1 ? "its" : "their", unseen);
		else if (!v)
			r->chan_peers_how = lts_asprintf("inferred from stacks: no other goroutine holds a reference "
							 "to the channel on its stack or in an object it points to (%s, "
							 "nor references held further away)", unseen);
		else if (n)
			r->chan_peers_how = lts_asprintf("inferred from code: %s%s%s %s %s after where %s "
							 "stopped (%s)", n == 1 ? "only " : "",
							 who, more, n == 1 ? (recv ? "receives from" : "sends on")
								     : (recv ? "receive from" : "send on"),
							 r->obj_name, n == 1 ? "it is" : "they are", unseen);
		else
			r->chan_peers_how = lts_asprintf("inferred from code: no other goroutine's frames %s %s "
							 "after where they are stopped (%s)",
							 recv ? "receive from" : "send on", r->obj_name, unseen);
	}
	for (size_t i = 0; i < ncache; i++)
		free(cache[i].b);
	free(cache);
	for (size_t k = 0; st && k < go->n_routines; k++)
		free(st[k].b);
	free(st);
	for (size_t q = 0; q < nmemo; q++)
		free(memo[q].hit);
	free(memo);
}

/* The Go version's minor number (go1.24.1, go1.24rc1: 24), -1 unknown. */
static int go_minor(const char *v)
{
	int minor = -1;
	if (!v || strncmp(v, "go1.", 4) || sscanf(v + 4, "%d", &minor) != 1)
		return -1;
	return minor;
}

/* Does the binary keep its maps in Swiss tables: Go 1.24 on, unless built
 * with GOEXPERIMENT=noswissmap (1.24, 1.25), or 1.22-1.23 built with
 * GOEXPERIMENT=swissmap; the experiments follow " X:" in the version. */
bool lt_go_swiss_maps(const char *v)
{
	int minor = go_minor(v);
	const char *x = v ? strstr(v, " X:") : NULL;
	bool on = false, off = false;
	for (const char *p = x ? x + 3 : NULL; p && *p;) {
		size_t n = strcspn(p, ", ");
		on |= n == 8 && !strncmp(p, "swissmap", 8);
		off |= n == 10 && !strncmp(p, "noswissmap", 10);
		p += n;
		p += strspn(p, ", ");
	}
	return minor >= 24 ? !off : on;
}

/* Chan receives on a channel os/signal.Notify registered: a signal, not a
 * goroutine, ends them (rt_go_signal.c).  The map is read once. */
static void notify_chans(struct go_ctx *c)
{
	uint64_t a, sz;
	int minor = go_minor(c->go->version);
	bool any = false;
	for (size_t i = 0; i < c->go->n_routines && !any; i++) {
		const struct lt_go_routine *r = &c->go->routines[i];
		any = r->wait == LT_GO_WAIT_CHAN && !r->system && r->obj && r->dir && !strcmp(r->dir, "receive");
	}
	if (!any || minor < 0 || c->e->lookup(c->e->arg, "os/signal.handlers", &a, &sz) || sz < 16)
		return;
	struct lt_go_notify m;
	bool read = !lt_go_notify_read(c->e, a, lt_go_swiss_maps(c->go->version), &m);
	for (size_t i = 0; i < c->go->n_routines; i++) {
		struct lt_go_routine *r = &c->go->routines[i];
		if (r->wait != LT_GO_WAIT_CHAN || r->system || !r->obj || !r->dir || strcmp(r->dir, "receive"))
			continue;
		char sigs[160];
		int y = read ? lt_go_notify_find(c->e, &m, r->obj, sigs, sizeof(sigs)) : -1;
		char *how = NULL;
		if (y == 1)
			r->notify_sigs = lts_strdup(sigs);
		else if (y == 2 && r->n_chan_peers == 0 && r->chan_peers_how)
			how = lts_asprintf("%s; signal.Notify registered it only for signals no channel gets "
					   "(SIGKILL, SIGSTOP, or SIGPROF, which the runtime's profiler keeps)",
					   r->chan_peers_how);
		else if (y < 0 && r->n_chan_peers == 0) {
			/* the one way out it may have is not known */
			how = lts_strdup("not inferred: whether signal.Notify registered the channel is not known "
					 "(os/signal's handlers map was not read whole)");
			r->n_chan_peers = -1;
		}
		if (how) {
			free(r->chan_peers_how);
			r->chan_peers_how = how;
		}
	}
	if (read)
		lt_go_notify_free(&m);
}

void go_infer(struct go_ctx *c)
{
	for (size_t i = 0; i < c->go->n_routines; i++) {
		struct lt_go_routine *r = &c->go->routines[i];
		if (r->wait != LT_GO_WAIT_SEMA)
			continue;
		sema_kind(r);
		r->obj_name = var_name(c, r->lock);
	}
	chan_names(c);
	infer_holders(c);
	chan_peers(c);
	notify_chans(c);
}
