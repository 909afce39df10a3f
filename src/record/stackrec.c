// SPDX-License-Identifier: MIT
/* `record --stacks`: stacks of waits read from the sleeping threads
 * (stackrec.h). */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include "stackrec.h"
#include "stacks.h"
#include "symbols.h"
#include "target.h"
#include "u64map.h"
#include "locktrace/calls.h"
#include "locktrace/futex.h"

#define MAX_DEPTH 64
#define REFS_KEEP 200000 /* flight mode: references kept for the next dump */

enum { P_WAIT = 0, P_READ = 1 };

struct pend {
	int32_t tid;
	uint32_t tgid;
	uint64_t ts, due;
	uint16_t nr;
	uint64_t arg0;
	int check_arg;
	int state;
	uint64_t read_end;
	uint32_t stack_id; /* P_READ: the interned stack */
};

struct symproc {
	struct lt_sym *sym;
	struct lt_unwinder *u;
	int broken;
	uint64_t opened; /* BOOTTIME ns */
};

struct lt_stackrec {
	int sample_every;
	uint64_t nwaits;
	struct lt_u64map pend;   /* tid -> struct pend * */
	struct lt_u64map procs;  /* tgid -> struct symproc * */
	struct lt_u64map intern; /* hash -> struct lt_stack * (chain by collision check) */
	struct lt_stack **stacks;
	size_t nstacks, cap_stacks, written_stacks;
	struct lt_stack_ref *refs;
	size_t nrefs, cap_refs, written_refs;
	struct lt_stackrec_stats st;
	uint64_t budget_start, budget_used; /* wakers' unwinding, per second */
};

#define WAKER_BUDGET_NS 200000000ull /* of collector time per second */

static uint64_t boot_now(void)
{
	return lt_now_ns(CLOCK_BOOTTIME);
}

struct lt_stackrec *lt_stackrec_new(int sample_every)
{
	struct lt_stackrec *r = calloc(1, sizeof(*r));
	if (r)
		r->sample_every = sample_every < 0 ? 16 : sample_every;
	return r;
}

static void free_map_vals(struct lt_u64map *m, void (*fn)(void *))
{
	for (size_t i = 0; i < m->cap; i++)
		if (m->keys[i])
			fn(m->vals[i]);
	lt_u64map_free(m);
}

static void free_symproc(void *v)
{
	struct symproc *sp = v;
	if (sp->u)
		lt_unwinder_free(sp->u);
	if (sp->sym)
		lt_sym_close(sp->sym);
	free(sp);
}

void lt_stackrec_free(struct lt_stackrec *r)
{
	if (!r)
		return;
	free_map_vals(&r->pend, free);
	free_map_vals(&r->procs, free_symproc);
	lt_u64map_free(&r->intern);
	for (size_t i = 0; i < r->nstacks; i++)
		lt_stack_free(r->stacks[i]);
	free(r->stacks);
	free(r->refs);
	free(r);
}

/* Is this entry a call the thread may sleep in?  nr, first argument and
 * whether /proc's first argument must match it. */
static int is_wait(const struct lt_event *ev, uint16_t *nr, uint64_t *arg0, int *check)
{
	if (ev->h.flags & LT_F_AT_WAKE)
		return 0;
	switch (ev->h.kind) {
	case LT_EV_FUTEX_ENTER: {
		unsigned cmd = ev->futex.op & LT_FUTEX_CMD_MASK;
		*nr = ev->futex.nr;
		*arg0 = ev->futex.uaddr;
		*check = ev->futex.nr == LT_NR_FUTEX;
		if (ev->futex.nr == LT_NR_FUTEX)
			return cmd == 0 /* WAIT */ || cmd == 9 /* WAIT_BITSET */ || cmd == 6 /* LOCK_PI */ ||
			       cmd == 11 /* WAIT_REQUEUE_PI */ || cmd == 13 /* LOCK_PI2 */;
		return ev->futex.nr == LT_NR_FUTEX_WAITV || ev->futex.nr == LT_NR_FUTEX_WAIT;
	}
	case LT_EV_WAIT_ENTER:
		*nr = ev->wait.nr;
		*arg0 = 0;
		*check = 0;
		return 1;
	case LT_EV_IO_ENTER:
		*nr = ev->io.nr;
		*arg0 = (uint64_t)(int64_t)ev->io.fd;
		*check = 1;
		return 1;
	default:
		return 0;
	}
}

/* Appends a wait reference; 0, or -1 when out of memory (it is dropped). */
static int push_ref(struct lt_stackrec *r, const struct lt_stack_ref *ref)
{
	if (r->nrefs >= REFS_KEEP && r->written_refs == 0) {
		/* the flight recorder's ring never dumped: its oldest go */
		size_t drop = r->nrefs / 2;
		memmove(r->refs, r->refs + drop, (r->nrefs - drop) * sizeof(*r->refs));
		r->nrefs -= drop;
	}
	if (r->nrefs == r->cap_refs) {
		size_t nc = r->cap_refs ? r->cap_refs * 2 : 256;
		struct lt_stack_ref *v = realloc(r->refs, nc * sizeof(*v));
		if (!v)
			return -1;
		r->refs = v;
		r->cap_refs = nc;
	}
	r->refs[r->nrefs++] = *ref;
	return 0;
}

static void add_ref(struct lt_stackrec *r, const struct pend *p)
{
	struct lt_stack_ref ref = { .tid = p->tid, .ts = p->ts, .stack_id = p->stack_id,
				    .role = LT_STACK_WAITER,
				    .delay_ns = p->read_end > p->ts ? p->read_end - p->ts : 0 };
	if (push_ref(r, &ref) == 0)
		r->st.kept++;
}

/* The thread's call ended (ts: when it ran again or returned). */
static void resolve(struct lt_stackrec *r, int32_t tid, uint64_t ts)
{
	struct pend *p = lt_u64map_get(&r->pend, (uint32_t)tid);
	if (!p)
		return;
	if (p->state == P_READ) {
		if (ts >= p->read_end)
			add_ref(r, p);
		else
			r->st.late++;
	}
	lt_u64map_del(&r->pend, (uint32_t)tid);
	free(p);
}

/* The process's modules are read again at its next stack. */
static void forget_proc(struct lt_stackrec *r, uint32_t tgid)
{
	struct symproc *sp = tgid ? lt_u64map_get(&r->procs, tgid) : NULL;
	if (!sp)
		return;
	lt_u64map_del(&r->procs, tgid);
	free_symproc(sp);
}

void lt_stackrec_event(struct lt_stackrec *r, const struct lt_event *ev, uint32_t tgid)
{
	int32_t tid = (int32_t)ev->h.tid;
	uint16_t nr;
	uint64_t arg0;
	int check;

	if (!tid)
		return;
	switch (ev->h.kind) {
	case LT_EV_EXEC:
		forget_proc(r, tgid); /* another program: its modules */
		resolve(r, tid, ev->h.ts);
		return;
	case LT_EV_SYS_EXIT:
	case LT_EV_TASK_EXIT:
		resolve(r, tid, ev->h.ts);
		return;
	case LT_EV_FUTEX_ENTER:
	case LT_EV_WAIT_ENTER:
	case LT_EV_IO_ENTER:
		break;
	default:
		return;
	}
	if (!is_wait(ev, &nr, &arg0, &check) || !tgid)
		return;
	resolve(r, tid, ev->h.ts); /* a call whose return we missed */
	struct pend *p = calloc(1, sizeof(*p));
	if (!p)
		return;
	r->nwaits++;
	r->st.waits++;
	*p = (struct pend){ .tid = tid, .tgid = tgid, .ts = ev->h.ts, .nr = nr, .arg0 = arg0,
			    .check_arg = check };
	int sampled = r->sample_every && r->nwaits % (uint64_t)r->sample_every == 0;
	p->due = sampled ? ev->h.ts : ev->h.ts + LT_STACK_AFTER_NS;
	if (lt_u64map_put(&r->pend, (uint32_t)tid, p))
		free(p);
}

int lt_stackrec_due_ms(const struct lt_stackrec *r, uint64_t now)
{
	uint64_t first = UINT64_MAX;
	for (size_t i = 0; i < r->pend.cap; i++) {
		if (!r->pend.keys[i])
			continue;
		const struct pend *p = r->pend.vals[i];
		if (p->state == P_WAIT && p->due < first)
			first = p->due;
	}
	if (first == UINT64_MAX)
		return -1;
	if (first <= now)
		return 0;
	uint64_t ms = (first - now + 999999) / 1000000;
	return ms > 1000 ? 1000 : (int)ms;
}

static struct symproc *symproc_of(struct lt_stackrec *r, uint32_t tgid)
{
	struct symproc *sp = lt_u64map_get(&r->procs, tgid);
	if (sp)
		return sp->broken ? NULL : sp;
	sp = calloc(1, sizeof(*sp));
	if (!sp)
		return NULL;
	if (lt_u64map_put(&r->procs, tgid, sp)) {
		free(sp);
		return NULL;
	}
	sp->opened = boot_now();
	sp->sym = lt_sym_open((pid_t)tgid, 0, NULL);
	if (sp->sym)
		sp->u = lt_unwinder_new(sp->sym, NULL);
	if (!sp->u)
		sp->broken = 1;
	return sp->broken ? NULL : sp;
}

static char *dup_or_null(const char *s)
{
	return s ? strdup(s) : NULL;
}

static uint64_t stack_hash(uint32_t tgid, const struct lt_frame *f, size_t n)
{
	uint64_t h = 1469598103934665603ull ^ tgid;
	for (size_t i = 0; i < n; i++) {
		h ^= f[i].pc + (f[i].activation ? 1 : 0);
		h *= 1099511628211ull;
	}
	return h ? h : 1;
}

static int same_stack(const struct lt_stack *s, uint32_t tgid, const struct lt_frame *f, size_t n)
{
	if ((uint32_t)s->tgid != tgid || s->nframes != n)
		return 0;
	for (size_t i = 0; i < n; i++)
		if (s->frames[i].pc != f[i].pc)
			return 0;
	return 1;
}

/* The interned id of the unwound frames (a new stack if unseen), 0 OOM. */
static uint32_t intern(struct lt_stackrec *r, uint32_t tgid, const struct lt_frame *f, size_t n,
		       const char *end)
{
	uint64_t h = stack_hash(tgid, f, n);
	for (;; h++) { /* linear probing over hashes: collisions are rare */
		struct lt_stack *s = lt_u64map_get(&r->intern, h ? h : 1);
		if (!s)
			break;
		if (same_stack(s, tgid, f, n))
			return s->id;
	}
	if (!h)
		h = 1;
	if (r->nstacks == r->cap_stacks) {
		size_t nc = r->cap_stacks ? r->cap_stacks * 2 : 64;
		struct lt_stack **v = realloc(r->stacks, nc * sizeof(*v));
		if (!v)
			return 0;
		r->stacks = v;
		r->cap_stacks = nc;
	}
	struct lt_stack *s = calloc(1, sizeof(*s));
	if (!s || (n && !(s->frames = calloc(n, sizeof(*s->frames))))) {
		free(s);
		return 0;
	}
	s->id = (uint32_t)r->nstacks + 1;
	s->tgid = (int32_t)tgid;
	s->nframes = (uint32_t)n;
	for (size_t i = 0; i < n; i++) {
		struct lt_sframe *d = &s->frames[i];
		d->pc = f[i].pc;
		d->func = dup_or_null(f[i].func);
		d->func_off = f[i].func_off;
		d->module = dup_or_null(f[i].module);
		d->file = dup_or_null(f[i].file);
		d->line = f[i].line > 0 ? (uint32_t)f[i].line : 0;
	}
	s->end = dup_or_null(end);
	if (lt_u64map_put(&r->intern, h, s)) {
		lt_stack_free(s);
		return 0;
	}
	r->stacks[r->nstacks++] = s;
	r->st.stacks++;
	return s->id;
}

/* Reads one sleeping thread's stack: 0 read (p now P_READ), -1 not. */
static int read_one(struct lt_stackrec *r, struct pend *p)
{
	char path[64], line[512];
	snprintf(path, sizeof(path), "/proc/%u/task/%d/syscall", p->tgid, p->tid);
	FILE *f = fopen(path, "re");
	if (!f)
		return -1;
	int ok = fgets(line, sizeof(line), f) != NULL;
	fclose(f);
	struct lt_sc_line sc;
	if (!ok || lt_parse_syscall_line(line, &sc) || sc.state != LT_SC_IN_SYSCALL ||
	    sc.nr != p->nr || (p->check_arg && sc.args[0] != p->arg0))
		return -1; /* running, returned, or in another call already */
	struct symproc *sp = symproc_of(r, p->tgid);
	if (!sp)
		return -1;
	struct lt_unwind_regs regs = { 0 };
	regs.r.sp = sc.sp;
	regs.r.ip = sc.pc;
	regs.full = false;
	lt_sym_note_stack(sp->sym, p->tid, sc.sp);
	struct lt_frame *frames = NULL;
	size_t n = 0;
	char *end = NULL;
	int got = lt_unwind_thread(sp->u, p->tid, &regs, MAX_DEPTH, &frames, &n, &end);
	uint32_t id = got > 0 ? intern(r, p->tgid, frames, n, end) : 0;
	/* a module mapped since the process's modules were read (dlopen):
	 * read them again for the next stacks, at most once a second */
	if (end && (strstr(end, "not in any module") || strstr(end, "not in an executable mapping")) &&
	    boot_now() - sp->opened > 1000000000ull)
		forget_proc(r, p->tgid);
	for (size_t i = 0; i < n; i++)
		lt_frame_clear(&frames[i]);
	free(frames);
	free(end);
	if (!id)
		return -1;
	p->stack_id = id;
	p->state = P_READ;
	p->read_end = boot_now();
	return 0;
}

void lt_stackrec_read(struct lt_stackrec *r, uint64_t now)
{
	for (size_t i = 0; i < r->pend.cap; i++) {
		if (!r->pend.keys[i])
			continue;
		struct pend *p = r->pend.vals[i];
		if (p->state != P_WAIT || p->due > now)
			continue;
		uint64_t t0 = lt_now_ns(CLOCK_MONOTONIC);
		r->st.reads++;
		if (read_one(r, p)) {
			r->st.failed++;
			p->state = -1; /* not again; the return drops it */
		}
		r->st.read_ns += lt_now_ns(CLOCK_MONOTONIC) - t0;
	}
}

int lt_stackrec_copy_cb(void *ctx, void *data, size_t size)
{
	struct lt_stackrec *r = ctx;
	const struct lt_stack_copy *c = data;
	if (size < sizeof(*c) || !c->tid || !c->tgid)
		return 0;
	r->st.wakers++;
	uint64_t t0 = lt_now_ns(CLOCK_MONOTONIC);
	if (t0 - r->budget_start >= 1000000000ull) {
		r->budget_start = t0;
		r->budget_used = 0;
	}
	if (r->budget_used >= WAKER_BUDGET_NS || !c->len || c->len > LT_STACK_COPY_BYTES) {
		r->st.wakers_busy += c->len != 0;
		return 0;
	}
	struct symproc *sp = symproc_of(r, c->tgid);
	if (!sp)
		return 0;
	struct lt_unwind_regs regs = { .full = true };
	regs.r = (struct lt_regs){ .ip = c->ip, .sp = c->sp, .bp = c->bp, .bx = c->bx,
				   .r12 = c->r12, .r13 = c->r13, .r14 = c->r14, .r15 = c->r15,
				   .ax = c->ax, .cx = c->cx, .dx = c->dx, .si = c->si, .di = c->di,
				   .r8 = c->r8, .r9 = c->r9, .r10 = c->r10, .r11 = c->r11 };
	struct lt_frame *frames = NULL;
	size_t n = 0;
	char *end = NULL;
	int got = lt_unwind_thread_copy(sp->u, (pid_t)c->tid, &regs, c->sp, c->stack, c->len,
					MAX_DEPTH, &frames, &n, &end);
	uint32_t id = got > 0 ? intern(r, c->tgid, frames, n, end) : 0;
	for (size_t i = 0; i < n; i++)
		lt_frame_clear(&frames[i]);
	free(frames);
	free(end);
	uint64_t spent = lt_now_ns(CLOCK_MONOTONIC) - t0;
	r->budget_used += spent;
	r->st.read_ns += spent;
	if (!id)
		return 0;
	struct lt_stack_ref ref = { .tid = (int32_t)c->tid, .ts = c->ts, .stack_id = id,
				    .role = LT_STACK_WAKER };
	push_ref(r, &ref);
	r->st.wakers_kept++;
	return 0;
}

void lt_stackrec_finish(struct lt_stackrec *r)
{
	for (size_t i = 0; i < r->pend.cap; i++) {
		if (!r->pend.keys[i])
			continue;
		struct pend *p = r->pend.vals[i];
		if (p->state == P_READ)
			add_ref(r, p);
		free(p);
	}
	lt_u64map_free(&r->pend);
}

int lt_stackrec_write(struct lt_stackrec *r, struct lt_writer *w, int all, uint64_t since)
{
	struct lt_stackbuf b = { 0 };
	if (all) {
		/* flight dump: drop what the ring no longer holds first */
		size_t k = 0;
		for (size_t i = 0; i < r->nrefs; i++)
			if (r->refs[i].ts >= since || r->nrefs - i <= REFS_KEEP / 2)
				r->refs[k++] = r->refs[i];
		r->nrefs = k;
		for (size_t i = 0; i < r->nstacks; i++)
			lt_stacks_put_stack(&b, r->stacks[i]);
		for (size_t i = 0; i < r->nrefs; i++)
			if (r->refs[i].ts >= since)
				lt_stacks_put_ref(&b, &r->refs[i]);
		/* the waits still asleep: their stacks were read */
		for (size_t i = 0; i < r->pend.cap; i++) {
			if (!r->pend.keys[i])
				continue;
			const struct pend *p = r->pend.vals[i];
			if (p->state != P_READ || p->ts < since)
				continue;
			struct lt_stack_ref ref = { .tid = p->tid, .ts = p->ts, .stack_id = p->stack_id,
						    .role = LT_STACK_WAITER,
						    .delay_ns = p->read_end - p->ts };
			lt_stacks_put_ref(&b, &ref);
		}
	} else {
		for (size_t i = r->written_stacks; i < r->nstacks; i++)
			lt_stacks_put_stack(&b, r->stacks[i]);
		for (size_t i = r->written_refs; i < r->nrefs; i++)
			lt_stacks_put_ref(&b, &r->refs[i]);
	}
	int ret = 0;
	if (b.oom)
		ret = -ENOMEM;
	else if (b.len)
		ret = lt_writer_section(w, LT_CHUNK_STACKS, b.p, b.len);
	if (!ret && !all) {
		r->st.bytes += b.len;
		r->written_stacks = r->nstacks;
		/* written references are not needed again */
		r->nrefs = r->written_refs = 0;
	}
	if (all && r->nrefs > REFS_KEEP) { /* a ring that never dumps */
		size_t drop = r->nrefs - REFS_KEEP / 2;
		memmove(r->refs, r->refs + drop, (r->nrefs - drop) * sizeof(*r->refs));
		r->nrefs -= drop;
	}
	lt_stackbuf_free(&b);
	return ret;
}

const struct lt_stackrec_stats *lt_stackrec_stats(const struct lt_stackrec *r)
{
	return &r->st;
}
