/* OCaml runtime lock model (see lockmodel.h and docs/locks.md).
 *
 * With the threads library (systhreads) an OCaml thread runs OCaml code
 * only while it holds a runtime lock: the global `caml_master_lock` in 4.x,
 * `thread_table[d].thread_lock` of its domain d in 5.x.  Both are an
 * st_masterlock: a pthread mutex protecting `busy` and `waiters`, and a
 * condition variable the waiters sleep on.  The runtime records which
 * thread runs (`curr_thread` in 4.x, `thread_table[d].active_thread` in
 * 5.x) but not its pthread id or tid; it does record stack pointers of that
 * thread, and the stack mapping they fall in names the thread.
 *
 * Layouts differ between releases, and the program does not say which one
 * it uses except through Sys.ocaml_version, a string in the data of module
 * Stdlib__Sys (the native runtime carries no version string of its own).
 * So the version is read first and the layout taken from the tables below;
 * a version not in a table is reported, never guessed.
 * Only native code is supported: bytecode threads keep no C stack pointers
 * (and bytecode programs carry no Stdlib__Sys data symbols).
 */
#include <ctype.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "budget.h"
#include "lockmodel.h"
#include "snapshot_int.h"

static const char KIND[] = "OCaml runtime lock";

/* ---- layout tables (x86-64, from the runtime's sources at each tag) ----
 *
 * 4.08-4.14, otherlibs/systhreads/st_posix.h and st_stubs.c:
 *   st_masterlock { pthread_mutex_t lock (40); int busy @40;
 *                   int waiters @44; pthread_cond_t is_free @48 (48) } = 96
 *   caml_thread_struct { value descr @0; next @8; prev @16;
 *                        char *top_of_stack @24; char *bottom_of_stack @32 }
 * where the running thread's live stack pointers are kept:
 *   4.08-4.09: globals caml_top_of_stack, caml_bottom_of_stack
 *   4.10-4.11: Caml_state (runtime/caml/domain_state.tbl, 8 bytes a field):
 *              top_of_stack @0xc0, bottom_of_stack @0xc8
 *   4.12-4.14: mark_stack was added before them: @0xc8, @0xd0
 *
 * 5.0-5.3, st_pthreads.h and st_stubs.c:
 *   st_masterlock { int init @0; pthread_mutex_t lock @8 (40);
 *                   uintnat busy @48; atomic_uintnat waiters @56;
 *                   pthread_cond_t is_free @64 (48) } = 112
 *   caml_thread_table { caml_thread_t active_thread @0;
 *                       st_masterlock thread_lock @8; int
 *                       tick_thread_running @120; pthread_t tick_thread_id
 *                       @128; [5.3: atomic_uintnat tick_thread_stop @136] }
 *                     = 136 (5.0-5.2), 144 (5.3)
 *   thread_table: static array [Max_domains = 128] in 5.0-5.2; a pointer to
 *                 a calloc'd array of caml_params->max_domains in 5.3
 *   caml_thread_struct { descr @0; next @8; prev @16; int domain_id @24;
 *                        current_stack @32; c_stack_link *c_stack @40 }
 *                        (c_stack lives on the thread's system stack)
 * Trunk (5.4.0+dev0) made init and busy `bool` on 2024-09-02 without a
 * new version string: its entry reads only their first byte, which is the
 * value in both layouts.  A released 5.4 is not in the table until its
 * sources are read.
 *
 * Where the version cannot be read (Stdlib__Sys's data symbols absent),
 * thread_table's symbol size tells the layout apart (17408 bytes: 5.0-5.2's
 * array; 8: 5.3's pointer), confirmed by the first entry in memory; the
 * holder so found is marked as an inference. */

#define OC4_LOCK_SIZE 96
#define OC4_BUSY 40
#define OC4_WAITERS 44
#define OC4_TH_TOP 24
#define OC4_TH_BOTTOM 32

struct oc4_layout {
	int minor_lo, minor_hi; /* 4.minor_lo .. 4.minor_hi             */
	bool caml_state;        /* Caml_state pointer, else two globals  */
	uint32_t st_top, st_bottom;
};

static const struct oc4_layout oc4_layouts[] = {
	{ 8, 9, false, 0, 0 },
	{ 10, 11, true, 0xc0, 0xc8 },
	{ 12, 14, true, 0xc8, 0xd0 },
};

#define OC5_LOCK_OFF 8
#define OC5_LOCK_SIZE 112
#define OC5_INIT 0 /* in the lock */
#define OC5_BUSY 48
#define OC5_WAITERS 56
#define OC5_TH_DOMAIN 24
#define OC5_TH_C_STACK 40
/* The runtime's own bounds on domain ids: Max_domains (runtime/caml/
 * config.h, 64-bit) sizes 5.0-5.2's static table; from 5.3 the table has
 * caml_params->max_domains entries, at most Max_domains_max (domain.h). */
#define OC5_MAX_DOMAINS 128
#define OC5_MAX_DOMAINS_MAX 4096
#define OC5_STATIC_STRIDE 136

struct oc5_layout {
	const char *versions; /* "5.0-5.2" */
	int minor_lo, minor_hi;
	bool dev_only;     /* only a development version (N.M.P+dev...)     */
	bool table_is_ptr; /* thread_table is a pointer to a heap array */
	uint32_t stride;   /* sizeof(struct caml_thread_table)          */
	/* init and busy are C bools (trunk from 2024-09-02, "systhreads:
	 * use C99 booleans"): only their first byte is theirs.  The 5.4 dev
	 * version string did not change with it, so both are read that way. */
	bool bool_fields;
};

static const struct oc5_layout oc5_layouts[] = {
	{ "5.0-5.2", 0, 2, false, false, OC5_STATIC_STRIDE, false },
	{ "5.3", 3, 3, false, true, 144, false },
	{ "5.4 development (trunk to 2024-10)", 4, 4, true, true, 144, true },
};

/* Sanity bounds: a decoded value outside them means the layout is wrong. */
#define MAX_WAITERS 1000000

/* ---- version: Sys.ocaml_version ---- */

struct ocaml_version {
	int major, minor;
	char str[40];
	const char *why; /* why unknown, static; NULL when known */
};

#define STRING_TAG 252
#define SYS_DATA_MAX 65536

/* "4.13.1", "5.3.0+dev4-2024-09-20", "4.14.1~rc1" */
static bool version_like(const char *s, int *major, int *minor)
{
	int n = 0;
	if (sscanf(s, "%d.%d.%*d%n", major, minor, &n) != 2 || n == 0 || !isdigit((unsigned char)s[0]))
		return false;
	if (s[n] && s[n] != '+' && s[n] != '~')
		return false;
	for (const char *p = s; *p; p++)
		if (!isprint((unsigned char)*p))
			return false;
	return true;
}

/* An OCaml string block at word W of BUF (N words): header with String_tag
 * and 1-4 words of bytes, the last byte counting the padding. */
static bool string_block(const uint64_t *buf, size_t w, size_t n, char *out, size_t outlen)
{
	uint64_t hd = buf[w];
	size_t wosize = hd >> 10;
	if ((hd & 0xff) != STRING_TAG || wosize < 1 || wosize > 4 || w + 1 + wosize > n)
		return false;
	const unsigned char *b = (const unsigned char *)&buf[w + 1];
	size_t bytes = wosize * 8, pad = b[bytes - 1];
	if (pad >= bytes || bytes - 1 - pad >= outlen)
		return false;
	size_t len = bytes - 1 - pad;
	if (memchr(b, 0, len))
		return false;
	memcpy(out, b, len);
	out[len] = 0;
	return true;
}

/* The data of module Stdlib__Sys, which ocamlopt brackets with the global
 * symbols caml<unit><sep>data_begin and _end.  The unit is Stdlib__Sys from
 * 4.13 on (stdlib__Sys.cmx), Stdlib__sys in 4.07-4.12 (stdlib__sys.cmx);
 * the separator is "__" up to 5.1 and "." from 5.2 on (camlStdlib__Sys.data_begin,
 * as camlHold.holder_723 for functions). */
static bool sys_data(const struct lt_lm_env *e, uint64_t *b, uint64_t *end)
{
	static const char *const units[] = { "camlStdlib__Sys", "camlStdlib__sys" };
	static const char *const seps[] = { "__", "." };
	for (size_t i = 0; i < 2; i++)
		for (size_t k = 0; k < 2; k++) {
			char nb[64], ne[64];
			uint64_t bs, es;
			snprintf(nb, sizeof(nb), "%s%sdata_begin", units[i], seps[k]);
			snprintf(ne, sizeof(ne), "%s%sdata_end", units[i], seps[k]);
			if (e->lookup(e->arg, nb, b, &bs) == 0 && e->lookup(e->arg, ne, end, &es) == 0 &&
			    *end > *b)
				return true;
		}
	return false;
}

/* Sys.ocaml_version is a constant string in Stdlib__Sys's data; no other
 * string there looks like a version. */
static void read_version(const struct lt_lm_env *e, struct ocaml_version *v)
{
	uint64_t b, end;
	memset(v, 0, sizeof(*v));
	v->major = v->minor = -1;
	if (!sys_data(e, &b, &end)) {
		v->why = "no camlStdlib__Sys data_begin/data_end symbols (Sys not linked in, bytecode, or stripped)";
		return;
	}
	size_t len = end - b > SYS_DATA_MAX ? SYS_DATA_MAX : end - b;
	uint64_t *buf = malloc(len);
	if (!buf || e->read(e->arg, b, buf, len)) {
		free(buf);
		v->why = "Stdlib__Sys's data is unreadable";
		return;
	}
	v->why = "no version string in Stdlib__Sys's data";
	for (size_t w = 0, n = len / 8; w < n; w++) {
		char s[sizeof(v->str)];
		if (string_block(buf, w, n, s, sizeof(s)) && version_like(s, &v->major, &v->minor)) {
			snprintf(v->str, sizeof(v->str), "%s", s);
			v->why = NULL;
			break;
		}
	}
	free(buf);
}

static const struct oc4_layout *oc4_layout(const struct ocaml_version *v)
{
	for (size_t i = 0; v->major == 4 && i < sizeof(oc4_layouts) / sizeof(oc4_layouts[0]); i++)
		if (v->minor >= oc4_layouts[i].minor_lo && v->minor <= oc4_layouts[i].minor_hi)
			return &oc4_layouts[i];
	return NULL;
}

static const struct oc5_layout *oc5_layout(const struct ocaml_version *v)
{
	for (size_t i = 0; v->major == 5 && i < sizeof(oc5_layouts) / sizeof(oc5_layouts[0]); i++)
		if (v->minor >= oc5_layouts[i].minor_lo && v->minor <= oc5_layouts[i].minor_hi &&
		    (!oc5_layouts[i].dev_only || strstr(v->str, "+dev")))
			return &oc5_layouts[i];
	return NULL;
}

/* ---- the holder, from stack pointers the runtime keeps ---- */

struct evidence {
	const char *what; /* "Caml_state's bottom_of_stack" */
	uint64_t addr;    /* 0: NULL or unreadable         */
	pid_t tid;        /* whose stack ADDR is in, 0     */
};

static void set_how(struct lt_rtlock *l, char *how)
{
	free(l->holder_how);
	l->holder_how = how;
}

/* "what 0x... and what 0x..." for the entries naming TID (all if 0). */
static void list_evidence(FILE *f, const struct evidence *ev, size_t n, pid_t tid, const char *join)
{
	for (size_t i = 0, k = 0; i < n; i++)
		if (!tid || ev[i].tid == tid)
			fprintf(f, "%s%s 0x%llx", k++ ? join : "", ev[i].what, (unsigned long long)ev[i].addr);
}

/* Every pointer that falls in a known thread stack must name the same
 * thread: then it is the holder.  Two threads named means the snapshot
 * caught a hand-off (or the layout is wrong): no holder then. */
static void decide_holder(const struct lt_lm_env *e, struct lt_rtlock *l, struct evidence *ev, size_t n)
{
	pid_t tid = 0, other = 0;
	for (size_t i = 0; i < n; i++) {
		if (!ev[i].addr) {
			lt_strlist_add(&l->facts, "%s=NULL", ev[i].what);
			continue;
		}
		ev[i].tid = e->stack_tid(e->arg, ev[i].addr);
		if (ev[i].tid)
			lt_strlist_add(&l->facts, "%s=0x%llx (stack of thread %d)", ev[i].what,
				       (unsigned long long)ev[i].addr, (int)ev[i].tid);
		else
			lt_strlist_add(&l->facts, "%s=0x%llx (in no known thread stack)", ev[i].what,
				       (unsigned long long)ev[i].addr);
		if (ev[i].tid && !tid)
			tid = ev[i].tid;
		else if (ev[i].tid && ev[i].tid != tid)
			other = ev[i].tid;
	}
	if (l->held != 1)
		return;
	char *how = NULL;
	size_t hl = 0;
	FILE *f = open_memstream(&how, &hl);
	if (!f)
		return;
	if (other) {
		fprintf(f, "stack pointers of the running thread name two threads, %d and %d "
			   "(a hand-off in progress?): ", (int)tid, (int)other);
		list_evidence(f, ev, n, 0, ", ");
		tid = 0;
	} else if (tid) {
		size_t k = 0;
		for (size_t i = 0; i < n; i++)
			k += ev[i].tid == tid;
		list_evidence(f, ev, n, tid, " and ");
		fprintf(f, " %s in the stack of thread %d", k > 1 ? "are" : "is", (int)tid);
	} else {
		bool any = false;
		for (size_t i = 0; i < n; i++)
			any |= ev[i].addr != 0;
		if (any)
			fprintf(f, "no stack pointer of the running thread is in a live thread's stack (the "
				   "thread that held it may have exited holding it, or the lock was changing "
				   "hands while read): ");
		else /* a thread that has held it since it started saved none */
			fprintf(f, "the runtime keeps no pointer into the holder's stack (the thread holding "
				   "it has not released it since it started, or the lock was changing hands "
				   "while read): ");
		list_evidence(f, ev, n, 0, ", ");
	}
	fclose(f);
	set_how(l, how);
	l->holder = tid;
}

/* busy and waiters as read, checked against what a st_masterlock can hold */
static bool decode_state(struct lt_rtlock *l, uint64_t busy, uint64_t waiters, struct lt_strlist *notes)
{
	lt_strlist_add(&l->facts, "busy=%llu", (unsigned long long)busy);
	lt_strlist_add(&l->facts, "waiters=%llu", (unsigned long long)waiters);
	if (busy > 1 || waiters > MAX_WAITERS) {
		set_how(l, lts_asprintf("busy=%llu waiters=%llu make no sense for a st_masterlock: "
					"layout mismatch, not decoded",
					(unsigned long long)busy, (unsigned long long)waiters));
		lt_strlist_add(notes, "ocaml: %s: %s", l->name, l->holder_how);
		return false;
	}
	l->held = (int)busy;
	l->waiters = (int)waiters;
	if (!busy)
		set_how(l, lts_strdup("the lock is free (busy=0)"));
	return true;
}

static struct lt_rtlock *new_lock(struct lt_rtlock **v, size_t *n, const char *model, char *name,
				  const struct ocaml_version *ver)
{
	struct lt_rtlock *l = lt_rtlock_push(v, n);
	if (!l) {
		free(name);
		return NULL;
	}
	l->model = model;
	l->kind = KIND;
	l->name = name;
	/* st_masterlock_release runs on the holder's own thread only */
	l->kept_while_asleep = true;
	if (!ver->why)
		l->version = lts_asprintf("OCaml %s", ver->str);
	return l;
}

/* An unknown version or layout: the lock is said, its state is not. */
static void undecoded(struct lt_rtlock *l, const struct ocaml_version *ver, const char *model,
		      struct lt_strlist *notes)
{
	if (ver->why)
		set_how(l, lts_asprintf("OCaml version unknown (%s): layout not guessed", ver->why));
	else
		set_how(l, lts_asprintf("OCaml %s: %s layout not known to locktrace, not guessed",
					ver->str, model));
	lt_strlist_add(notes, "ocaml: %s found, state not decoded: %s", l->name, l->holder_how);
}

static uint64_t read_ptr(const struct lt_lm_env *e, uint64_t addr)
{
	uint64_t v = 0;
	if (!addr || lt_lm_read_u64(e, addr, &v))
		return 0;
	return v;
}

/* ---- joins: Thread.join (4.x, 5.x) and Domain.join (5.2 on) ----
 *
 * A thread in Thread.join sleeps on the joined thread's termination event
 * (systhreads' st_event, 4.x st_posix.h and 5.x st_pthreads.h: a pthread
 * mutex (40 bytes), int status @40 (a bool in trunk, 5.4: only its first
 * byte is read), the condition variable @48), which only
 * that thread's exit triggers (caml_thread_stop).  The event hangs from the
 * thread's descriptor, a block {ident, start_closure, terminated} whose
 * third field is a custom block holding the st_event pointer; each running
 * thread's caml_thread_struct (the ring from thread_table[d].active_thread
 * in 5.x, from curr_thread in 4.x, linked by next @8) keeps its descriptor
 * @0, and the stack pointers that name its thread.
 *
 * A thread in Domain.join (5.2 on, stdlib/domain.ml) waits on the domain's
 * term_sync {state; mut; cond} until state is Finished; only the domain's
 * own thread sets it, when the domain's function returns (runtime/domain.c,
 * sync_result from domain_thread_func).  The runtime links term_sync to that
 * thread only through domain_thread_func's ml_values {callback; term_sync}
 * (callback already Val_unit: released before the call), a pointer that
 * function keeps live across the call, so on that thread's C stack (the
 * OCaml code it runs saves every callee-saved register there).  The
 * domain's thread is the one thread whose stack above its stack pointer
 * holds a pointer to such a pair whose term_sync's cond is the one slept
 * on, and to no other domain's (a spawner may keep a stale copy of its
 * child's); none or several such: not named (domain_joins). */
#define EV_STATUS 40 /* int status (bool from trunk's 5.4): one byte read */
#define EV_COND 48
#define COND_SIZE 48 /* pthread_cond_t */
#define CUSTOM_TAG 255
#define VAL_UNIT 1
#define MAX_RING 100000
#define SCAN_STACK 65536 /* of a domain's thread, above its stack pointer */

/* A thread of the snapshot asleep on a futex word in [lo, lo + len). */
static bool slept_on(const struct lt_lm_env *e, uint64_t lo, uint64_t len)
{
	for (size_t i = 0; e->s && i < e->s->n_threads; i++) {
		const struct lt_thread *t = &e->s->threads[i];
		if (lt_lm_futex_waiter(t) && t->futex.uaddr >= lo && t->futex.uaddr < lo + len)
			return true;
	}
	return false;
}

/* A block at V with TAG and WOSIZE words (header at V - 8). */
static bool ml_block(const struct lt_lm_env *e, uint64_t v, unsigned tag, uint64_t wosize)
{
	uint64_t hd;
	return v && !(v & 7) && !lt_lm_read_u64(e, v - 8, &hd) && (hd & 0xff) == tag && (hd >> 10) == wosize;
}

/* The pointer a custom block V holds (Data_custom_val: after its ops). */
static uint64_t custom_ptr(const struct lt_lm_env *e, uint64_t v)
{
	uint64_t hd, p = 0;
	if (!v || (v & 7) || lt_lm_read_u64(e, v - 8, &hd) || (hd & 0xff) != CUSTOM_TAG || lt_lm_read_u64(e, v + 8, &p))
		return 0;
	return p;
}

/* The lock of KIND on COND already made, or NULL. */
static struct lt_rtlock *join_made(struct lt_rtlock *v, size_t n, const char *kind, uint64_t cond)
{
	for (size_t k = 0; k < n; k++)
		if (v[k].kind && !strcmp(v[k].kind, kind) && v[k].base == cond)
			return &v[k];
	return NULL;
}

static struct lt_rtlock *join_lock(struct lt_rtlock **v, size_t *n, const char *model, const char *kind,
				   const char *call, const struct ocaml_version *ver, uint64_t cond, pid_t tid)
{
	struct lt_rtlock *l = lt_rtlock_push(v, n);
	if (!l)
		return NULL;
	l->model = model;
	l->kind = kind;
	l->wait_call = call;
	if (!ver->why)
		l->version = lts_asprintf("OCaml %s", ver->str);
	l->base = cond;
	l->size = COND_SIZE;
	l->held = 1;
	l->holder = tid;
	l->waiters = -1;
	return l;
}

static bool has_frame(const struct lt_thread *t, const char *func, size_t depth)
{
	for (size_t i = 0; i < t->n_frames && i < depth; i++)
		if (t->frames[i].func && !strcmp(t->frames[i].func, func))
			return true;
	return false;
}

/* A thread of the snapshot asleep in a futex wait under FUNC. */
static bool waits_under(const struct lt_lm_env *e, const char *func)
{
	for (size_t i = 0; e->s && i < e->s->n_threads; i++)
		if (lt_lm_futex_waiter(&e->s->threads[i]) && has_frame(&e->s->threads[i], func, 8))
			return true;
	return false;
}

/* The ring of running threads from TH (thread_table[d].active_thread, or
 * curr_thread): a lock for each whose termination event a thread sleeps
 * on, held by the thread its stack pointer at SP_OFF names.  Only when a
 * thread sleeps in caml_thread_join; *STEPS counts the threads visited
 * over all the rings, at most MAX_RING (a ring the target wrote need not
 * close). */
static int thread_joins(const struct lt_lm_env *e, uint64_t th, uint32_t sp_off, const char *sp_what,
			const char *model, const struct ocaml_version *ver, struct lt_rtlock **v, size_t *n,
			size_t *steps)
{
	uint64_t first = th;
	for (; th && *steps < MAX_RING; ++*steps) {
		if ((*steps & 255) == 255 && lt_budget_over())
			break;
		uint64_t descr = read_ptr(e, th), ident = 0, ev = 0, sp = 0;
		uint8_t status = 1; /* an int up to 5.3, a bool in trunk (5.4): its low byte */
		if (ml_block(e, descr, 0, 3) && !lt_lm_read_u64(e, descr, &ident) &&
		    (ev = custom_ptr(e, read_ptr(e, descr + 16))) && !e->read(e->arg, ev + EV_STATUS, &status, 1) &&
		    status == 0 && slept_on(e, ev + EV_COND, COND_SIZE) && (sp = read_ptr(e, th + sp_off))) {
			pid_t tid = e->stack_tid(e->arg, sp);
			if (tid && !join_made(*v, *n, LT_KIND_OCAML_THREAD_JOIN, ev + EV_COND)) {
				struct lt_rtlock *l = join_lock(v, n, model, LT_KIND_OCAML_THREAD_JOIN, "Thread.join",
								ver, ev + EV_COND, tid);
				if (!l)
					return -ENOMEM;
				l->name = lts_asprintf("Thread %lld", (long long)((int64_t)ident >> 1));
				l->holder_how = lts_asprintf(
					"the termination event 0x%llx slept on is Thread %lld's (its descriptor 0x%llx, "
					"caml_thread_struct 0x%llx), whose %s 0x%llx is in the stack of thread %d: only "
					"its exit triggers the event", (unsigned long long)ev,
					(long long)((int64_t)ident >> 1), (unsigned long long)descr,
					(unsigned long long)th, sp_what, (unsigned long long)sp, (int)tid);
				lt_strlist_add(&l->facts, "caml_thread_struct=0x%llx descr=0x%llx event=0x%llx status=0",
					       (unsigned long long)th, (unsigned long long)descr, (unsigned long long)ev);
			}
		}
		th = read_ptr(e, th + 8);
		if (th == first)
			break;
	}
	return 0;
}

/* Thread D's stack above its stack pointer: the pointer at which (*AT) is
 * to an ml_values {Val_unit, term_sync} whose term_sync is Running and
 * whose cond a thread sleeps on; its condvar in *COND, term_sync in *TS.
 * *OTHERS counts the pointers to other such pairs (whatever their state)
 * on that stack: a thread that spawned a domain may keep a stale copy of
 * the new domain's, and then which one is its own is not known. */
static uint64_t find_ml_values(const struct lt_lm_env *e, const struct lt_thread *d, uint64_t *at, uint64_t *cond,
			       uint64_t *ts, size_t *others)
{
	uint64_t page[512], found = 0;
	uint64_t a = d->sc.sp & ~7ull, end = a + SCAN_STACK;
	*others = 0;
	while (a < end) {
		size_t len = (size_t)(4096 - (a & 4095));
		if (e->stack_tid(e->arg, a) != d->tid || e->read(e->arg, a, page, len))
			break;
		for (size_t w = 0; w < len / 8; w++) {
			uint64_t p = page[w], pair[2], sync[3];
			if (!p || (p & 7) || p < 0x10000 || p == found || e->stack_tid(e->arg, p) ||
			    e->read(e->arg, p, pair, sizeof(pair)) || pair[0] != VAL_UNIT ||
			    !ml_block(e, pair[1], 0, 3) || e->read(e->arg, pair[1], sync, sizeof(sync)))
				continue;
			uint64_t c = custom_ptr(e, sync[2]);
			if (!c)
				continue;
			if (!found && sync[0] == 1 /* Running: Val_int(0) */ && slept_on(e, c, COND_SIZE)) {
				found = p;
				*at = a + w * 8;
				*cond = c;
				*ts = pair[1];
			} else {
				++*others;
			}
		}
		a += len;
	}
	return found;
}

/* Domain.join waits, matched to the domains' threads (5.2 on).  A thread
 * whose stack holds one domain's ml_values and no other's is that domain's;
 * one holding several may keep a stale copy of a domain it spawned, and is
 * taken for none.  Two clean candidates, or none: the holder is not named. */
struct dj_match {
	pid_t tid;
	uint64_t mv, at, cond, ts;
	size_t others;
};

static int domain_joins(const struct lt_lm_env *e, const struct ocaml_version *ver, struct lt_rtlock **v,
			size_t *n)
{
	if (!waits_under(e, "caml_ml_condition_wait"))
		return 0;
	struct dj_match *m = calloc(e->s->n_threads ? e->s->n_threads : 1, sizeof(*m));
	size_t nm = 0;
	if (!m)
		return -ENOMEM;
	for (size_t i = 0; i < e->s->n_threads; i++) {
		const struct lt_thread *d = &e->s->threads[i];
		struct dj_match x = { .tid = d->tid };
		if ((i & 63) == 63 && lt_budget_over())
			break;
		if (d->sc.state == LT_SC_IN_SYSCALL && d->sc.sp && has_frame(d, "domain_thread_func", 256) &&
		    (x.mv = find_ml_values(e, d, &x.at, &x.cond, &x.ts, &x.others)))
			m[nm++] = x;
	}
	int rc = 0;
	for (size_t k = 0; k < nm && !rc; k++) {
		if (join_made(*v, *n, LT_KIND_OCAML_DOMAIN_JOIN, m[k].cond))
			continue;
		const struct dj_match *clean = NULL;
		size_t n_clean = 0, n_all = 0;
		for (size_t q = k; q < nm; q++)
			if (m[q].cond == m[k].cond) {
				n_all++;
				if (!m[q].others && !n_clean++)
					clean = &m[q];
			}
		const struct dj_match *x = n_clean == 1 ? clean : &m[k];
		struct lt_rtlock *l = join_lock(v, n, "ocaml5", LT_KIND_OCAML_DOMAIN_JOIN, "Domain.join", ver, x->cond,
						n_clean == 1 ? x->tid : 0);
		if (!l) {
			rc = -ENOMEM;
			break;
		}
		lt_strlist_add(&l->facts, "ml_values=0x%llx term_sync=0x%llx state=Running cond=0x%llx",
			       (unsigned long long)x->mv, (unsigned long long)x->ts, (unsigned long long)x->cond);
		l->name = lts_asprintf("a domain (its term_sync at 0x%llx)", (unsigned long long)x->ts);
		if (n_clean == 1) {
			l->holder_how = lts_asprintf(
				"the condition slept on is term_sync.cond of the domain whose ml_values 0x%llx thread "
				"%d keeps on its stack (at 0x%llx, under domain_thread_func): the domain's function "
				"runs on that thread, and the join ends when it returns%s", (unsigned long long)x->mv,
				(int)x->tid, (unsigned long long)x->at,
				n_all > 1 ? " (another thread's stack holds a stale copy beside its own domain's)" : "");
			continue;
		}
		l->held = -1;
		l->holder_how = lts_asprintf(
			"the condition slept on is term_sync.cond of the domain whose ml_values 0x%llx is on the stacks "
			"of %zu thread%s (thread %d's at 0x%llx), %s: which thread runs the domain is not known",
			(unsigned long long)x->mv, n_all, n_all == 1 ? "" : "s", (int)x->tid, (unsigned long long)x->at,
			n_clean ? "more than one of them with no other domain's" :
				  "each beside another domain's (a stale copy of a domain it spawned?)");
	}
	free(m);
	return rc;
}

/* ---- OCaml 4.x: caml_master_lock ---- */

/* The pointer stored in global NAME; 0 if absent (and a fact saying so). */
static uint64_t sym_ptr(const struct lt_lm_env *e, struct lt_rtlock *l, const char *name)
{
	uint64_t a, sz;
	if (e->lookup(e->arg, name, &a, &sz)) {
		lt_strlist_add(&l->facts, "%s: no symbol", name);
		return 0;
	}
	uint64_t p = read_ptr(e, a);
	lt_strlist_add(&l->facts, "%s=0x%llx", name, (unsigned long long)p);
	return p;
}

/* Caml_state (or the 4.08-4.09 globals) holds the running thread's live
 * stack pointers: caml_c_call stores bottom_of_stack on every C call.
 * curr_thread holds the values saved when that thread last released the
 * lock, or top_of_stack as set when it started: older, but its own. */
static void oc4_holder(const struct lt_lm_env *e, struct lt_rtlock *l, const struct oc4_layout *lay)
{
	struct evidence ev[4] = {
		{ lay->caml_state ? "Caml_state's bottom_of_stack" : "caml_bottom_of_stack", 0, 0 },
		{ lay->caml_state ? "Caml_state's top_of_stack" : "caml_top_of_stack", 0, 0 },
		{ "curr_thread's bottom_of_stack", 0, 0 },
		{ "curr_thread's top_of_stack", 0, 0 },
	};
	if (lay->caml_state) {
		uint64_t st = sym_ptr(e, l, "Caml_state");
		ev[0].addr = read_ptr(e, st ? st + lay->st_bottom : 0);
		ev[1].addr = read_ptr(e, st ? st + lay->st_top : 0);
	} else {
		ev[0].addr = sym_ptr(e, l, "caml_bottom_of_stack");
		ev[1].addr = sym_ptr(e, l, "caml_top_of_stack");
	}
	uint64_t th = sym_ptr(e, l, "curr_thread");
	ev[2].addr = read_ptr(e, th ? th + OC4_TH_BOTTOM : 0);
	ev[3].addr = read_ptr(e, th ? th + OC4_TH_TOP : 0);
	decide_holder(e, l, ev, 4);
}

static int find4(const struct lt_lm_env *e, uint64_t lock, uint64_t lock_size, struct lt_rtlock **v,
		 size_t *n, struct lt_strlist *notes)
{
	struct ocaml_version ver;
	read_version(e, &ver);
	struct lt_rtlock *l = new_lock(v, n, "ocaml4", lts_strdup("caml_master_lock"), &ver);
	if (!l)
		return -ENOMEM;
	l->base = lock;
	/* the symbol's size is a fact even when the layout is unknown */
	l->size = lock_size;
	const struct oc4_layout *lay = oc4_layout(&ver);
	if (!lay) {
		undecoded(l, &ver, "ocaml4", notes);
		return 0;
	}
	lt_strlist_add(&l->facts, "version=%s", ver.str);
	if (lock_size && lock_size != OC4_LOCK_SIZE) {
		set_how(l, lts_asprintf("caml_master_lock is %llu bytes, not %d: layout mismatch, not decoded",
					(unsigned long long)lock_size, OC4_LOCK_SIZE));
		lt_strlist_add(notes, "ocaml: %s", l->holder_how);
		return 0;
	}
	l->size = OC4_LOCK_SIZE;
	uint32_t busy, waiters;
	if (lt_lm_read_u32(e, lock + OC4_BUSY, &busy) || lt_lm_read_u32(e, lock + OC4_WAITERS, &waiters)) {
		set_how(l, lts_strdup("caml_master_lock is unreadable"));
		lt_strlist_add(notes, "ocaml: %s", l->holder_how);
		return 0;
	}
	if (decode_state(l, busy, waiters, notes))
		oc4_holder(e, l, lay);
	uint64_t a, sz;
	if (e->lookup(e->arg, "curr_thread", &a, &sz))
		return 0;
	size_t steps = 0;
	return waits_under(e, "caml_thread_join")
	       ? thread_joins(e, read_ptr(e, a), OC4_TH_TOP, "top_of_stack", "ocaml4", &ver, v, n, &steps) : 0;
}

/* ---- OCaml 5.x: thread_table[d] ---- */

struct oc5_entry {
	uint64_t active, busy, waiters;
	uint32_t init;
};

/* With C bools, the bytes after init and busy are padding: the low byte
 * is the value (little-endian; an int or uintnat 0/1 has the same one). */
static int read_entry(const struct lt_lm_env *e, uint64_t at, const struct oc5_layout *lay,
		      struct oc5_entry *x)
{
	uint64_t lock = at + OC5_LOCK_OFF;
	if (lt_lm_read_u64(e, at, &x->active) || lt_lm_read_u32(e, lock + OC5_INIT, &x->init) ||
	    lt_lm_read_u64(e, lock + OC5_BUSY, &x->busy) ||
	    lt_lm_read_u64(e, lock + OC5_WAITERS, &x->waiters))
		return -EFAULT;
	if (lay->bool_fields) {
		x->init &= 0xff;
		x->busy &= 0xff;
	}
	return 0;
}

static void oc5_holder(const struct lt_lm_env *e, struct lt_rtlock *l, uint64_t th, size_t d)
{
	struct evidence ev[1] = { { "active_thread's c_stack", 0, 0 } };
	uint32_t dom = 0;
	lt_strlist_add(&l->facts, "active_thread=0x%llx", (unsigned long long)th);
	if (lt_lm_read_u32(e, th + OC5_TH_DOMAIN, &dom) == 0 && dom != d) {
		lt_strlist_add(&l->facts, "active_thread's domain_id=%u", dom);
		set_how(l, lts_asprintf("active_thread's domain_id is %u, not %zu: layout mismatch", dom, d));
		return;
	}
	ev[0].addr = read_ptr(e, th + OC5_TH_C_STACK);
	decide_holder(e, l, ev, 1);
}

/* How the layout was chosen, for the facts: the version, or, when the
 * version is unknown, what the layout was recognised from. */
struct oc5_choice {
	const struct oc5_layout *lay;
	char *how; /* "version=5.2.0", "layout of 5.0-5.2 recognised from ..." */
	bool inferred;
};

/* One lock per domain whose thread_lock was initialised and that has an
 * active thread.  A heap table is read only up to its first uninitialised
 * entry: domain ids are allocated lowest first, and reading further could
 * run past an array of fewer entries (OCAMLRUNPARAM=d). */
static int oc5_domains(const struct lt_lm_env *e, uint64_t table, size_t max, const struct oc5_choice *c,
		       const struct ocaml_version *ver, struct lt_rtlock **v, size_t *n,
		       struct lt_strlist *notes)
{
	const struct oc5_layout *lay = c->lay;
	bool joins = waits_under(e, "caml_thread_join");
	size_t steps = 0;
	for (size_t d = 0; d < max; d++) {
		uint64_t at = table + d * lay->stride;
		struct oc5_entry x;
		if (read_entry(e, at, lay, &x)) {
			if (!lay->table_is_ptr || d == 0)
				lt_strlist_add(notes, "ocaml: thread_table[%zu] at 0x%llx is unreadable", d,
					       (unsigned long long)at);
			break;
		}
		if (!x.init && lay->table_is_ptr)
			break;
		if (!x.init || !x.active)
			continue;
		struct lt_rtlock *l = new_lock(v, n, "ocaml5", lts_asprintf("domain %zu", d), ver);
		if (!l)
			return -ENOMEM;
		l->base = at + OC5_LOCK_OFF;
		l->size = OC5_LOCK_SIZE;
		lt_strlist_add(&l->facts, "thread_table[%zu] at 0x%llx, its thread_lock at 0x%llx", d,
			       (unsigned long long)at, (unsigned long long)l->base);
		lt_strlist_add(&l->facts, "%s", c->how);
		if (x.init > 1) {
			set_how(l, lts_asprintf("thread_lock.init=%u: layout mismatch, not decoded", x.init));
			lt_strlist_add(notes, "ocaml: %s: %s", l->name, l->holder_how);
			continue;
		}
		if (decode_state(l, x.busy, x.waiters, notes)) {
			oc5_holder(e, l, x.active, d);
			if (c->inferred && l->holder_how) {
				char *how = lts_asprintf("%s (an inference: OCaml version unknown, %s)",
							 l->holder_how, c->how);
				set_how(l, how);
			}
		}
		if (joins && thread_joins(e, x.active, OC5_TH_C_STACK, "c_stack", "ocaml5", ver, v, n, &steps) < 0)
			return -ENOMEM;
	}
	if (max == OC5_MAX_DOMAINS_MAX && lay->table_is_ptr) {
		struct oc5_entry x;
		if (!read_entry(e, table + max * lay->stride, lay, &x) && x.init == 1)
			lt_strlist_add(notes, "ocaml: thread_table read up to %d entries (the runtime's "
					      "Max_domains_max) and not further", OC5_MAX_DOMAINS_MAX);
	}
	return 0;
}

/* The version unknown (Sys not linked in, or no symbols for it): the
 * layout is recognised from the symbol's size where only one layout has
 * it, then confirmed in memory: entry 0 initialised, its busy 0 or 1, its
 * active thread of domain 0.  A size that fits no layout is not guessed. */
static const struct oc5_layout *oc5_recognise(const struct lt_lm_env *e, uint64_t tt, uint64_t tt_size,
					      char **how)
{
	const struct oc5_layout *lay = NULL;
	if (tt_size == (uint64_t)OC5_MAX_DOMAINS * OC5_STATIC_STRIDE)
		lay = &oc5_layouts[0];
	else if (tt_size == 8)
		lay = &oc5_layouts[2]; /* 5.3's offsets; bytes read as 5.4 dev's bools */
	if (!lay) {
		*how = lts_asprintf("thread_table is %llu bytes, the size of no known layout",
				    (unsigned long long)tt_size);
		return NULL;
	}
	uint64_t table = lay->table_is_ptr ? read_ptr(e, tt) : tt;
	struct oc5_entry x;
	uint32_t dom = 1;
	if (!table || read_entry(e, table, lay, &x) || x.init != 1 || x.busy > 1 || x.waiters > MAX_WAITERS ||
	    !x.active || lt_lm_read_u32(e, x.active + OC5_TH_DOMAIN, &dom) || dom != 0) {
		*how = lts_asprintf("thread_table (%llu bytes) looks like %s's, but its first entry does "
				    "not read as one", (unsigned long long)tt_size, lay->versions);
		return NULL;
	}
	*how = lts_asprintf("layout of OCaml %s recognised from thread_table's symbol size (%llu bytes) "
			    "and its first entry (initialised, busy 0 or 1, active thread of domain 0)",
			    lay->table_is_ptr ? "5.3 or later (trunk)" : lay->versions,
			    (unsigned long long)tt_size);
	return lay;
}

static int find5(const struct lt_lm_env *e, uint64_t tt, uint64_t tt_size, struct lt_rtlock **v, size_t *n,
		 struct lt_strlist *notes)
{
	struct ocaml_version ver;
	read_version(e, &ver);
	struct oc5_choice c = { oc5_layout(&ver), NULL, false };
	char *why_not = NULL;
	if (ver.why) {
		c.lay = oc5_recognise(e, tt, tt_size, &why_not);
		if (c.lay) {
			c.how = why_not;
			why_not = NULL;
			c.inferred = true;
		}
	} else if (c.lay) {
		c.how = lts_asprintf("version=%s (layout of %s)", ver.str, c.lay->versions);
	}
	/* the symbol's size must agree with the layout: 8 for a pointer */
	bool mismatch = c.lay && tt_size && (tt_size == 8) != c.lay->table_is_ptr;
	if (!c.lay || mismatch) {
		struct lt_rtlock *l = new_lock(v, n, "ocaml5", lts_strdup("thread_table"), &ver);
		if (!l) {
			free(c.how);
			free(why_not);
			return -ENOMEM;
		}
		l->base = tt;
		l->size = tt_size > 8 ? tt_size : 0; /* a pointer claims nothing */
		if (l->size > (uint64_t)OC5_MAX_DOMAINS_MAX * 144)
			l->size = 0; /* no known table is that big: claim nothing */
		if (tt_size)
			lt_strlist_add(&l->facts, "thread_table symbol size=%llu", (unsigned long long)tt_size);
		if (!mismatch) {
			undecoded(l, &ver, "ocaml5", notes);
			if (why_not) {
				set_how(l, lts_asprintf("%s; %s", l->holder_how, why_not));
				lt_strlist_add(notes, "ocaml: %s", why_not);
			}
			free(why_not);
			return 0;
		}
		set_how(l, lts_asprintf("OCaml %s has a thread_table %s, but its symbol is %llu bytes: "
					"layout mismatch, not decoded", ver.str,
					c.lay->table_is_ptr ? "pointer" : "array", (unsigned long long)tt_size));
		lt_strlist_add(notes, "ocaml: %s", l->holder_how);
		free(c.how);
		return 0;
	}
	uint64_t table = c.lay->table_is_ptr ? read_ptr(e, tt) : tt;
	if (!table) {
		lt_strlist_add(notes, "ocaml: thread_table is not allocated (threads not initialised yet?)");
		free(c.how);
		return 0;
	}
	/* every count from the target is bounded by the runtime's own limits */
	size_t max = c.lay->table_is_ptr ? OC5_MAX_DOMAINS_MAX : OC5_MAX_DOMAINS;
	if (!c.lay->table_is_ptr && tt_size) {
		uint64_t entries = tt_size / c.lay->stride;
		if (entries > OC5_MAX_DOMAINS)
			lt_strlist_add(notes, "ocaml: thread_table's symbol claims %llu entries (%llu bytes); "
					      "read %d, the runtime's Max_domains",
				       (unsigned long long)entries, (unsigned long long)tt_size, OC5_MAX_DOMAINS);
		else
			max = (size_t)entries;
	}
	int r = oc5_domains(e, table, max, &c, &ver, v, n, notes);
	free(c.how);
	return r < 0 ? r : domain_joins(e, &ver, v, n);
}

/* ---- entry point ---- */

static int find(const struct lt_lm_env *e, struct lt_rtlock **v, size_t *n, struct lt_strlist *notes)
{
	uint64_t a, sz, a2, sz2;
	if (e->lookup(e->arg, "caml_master_lock", &a, &sz) == 0)
		return find4(e, a, sz, v, n, notes);
	/* "thread_table" is a common name: count it as OCaml's only next to
	 * the systhreads library's own entry point */
	if (e->lookup(e->arg, "thread_table", &a, &sz) == 0 &&
	    e->lookup(e->arg, "caml_thread_initialize", &a2, &sz2) == 0)
		return find5(e, a, sz, v, n, notes);
	return 0;
}

const struct lt_lockmodel lt_lm_ocaml = { .name = "ocaml", .find = find };
