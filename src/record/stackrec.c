// SPDX-License-Identifier: MIT
/* `record --stacks`: stacks of waits copied from the sleeping threads and
 * unwound by a thread of their own (stackrec.h). */
#include <errno.h>
#include <pthread.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/uio.h>
#include <time.h>
#include "stackrec.h"
#include "stacks.h"
#include "strtab.h"
#include "symbols.h"
#include "target.h"
#include "u64map.h"
#include "snapshot_int.h"
#include "lockmodel.h"
#include "pystack.h"
#include "stackrec_ocaml.h"
#include "locktrace/ocframes.h"
#include "stackrec_go.h"
#include "hs_stack.h"
#include "locktrace/calls.h"
#include "locktrace/futex.h"
#include "locktrace/pyframes.h"
#include "loader.h"
#include "grow.h"

#define MAX_DEPTH 64
#define REFS_KEEP 200000 /* flight mode: references kept for the next dump */
/* a waiter's stack copied from its sp: enough for MAX_DEPTH frames of
 * native code; an unwind that needs more says it stopped at the copy */
#define COPY_BYTES (32u * 1024u)
/* copies waiting for the unwinder; more are dropped (and counted) */
#define QUEUE_MAX_BYTES (LT_STACKREC_QUEUE_MIB * 1024u * 1024u)
#define WAKER_BUDGET_NS 200000000ull /* of unwinder time per second, for wakers */

/* a pend's state: P_WAIT its read is due at due; P_COPIED read, job
 * queued; P_BPF its stack came from the BPF side (no read); -1 none */
enum { P_WAIT = 0, P_COPIED = 1, P_BPF = 2 };

/* One stack to unwind: a waiter's, copied from /proc's sp while it slept,
 * or a waker's, copied by the BPF side; or FORGET, a process that exec'd;
 * or OPEN, a process seen for the first time: its modules and its CPython
 * runtime are read before its first stack needs them (a CPython thread's
 * frame chain is read with the copy only once its runtime is known).
 * A waiter's reference is kept only if the collector decides the wait
 * outlasted the copy (DECIDED 1) and the unwinder got a stack: whichever
 * of the two comes second files it, or frees the job. */
enum { J_WAITER, J_WAKER, J_FORGET, J_OPEN };
struct job {
	struct job *next;
	int kind;
	int32_t tid;
	uint32_t tgid;
	uint64_t ts, copied; /* the call's entry; when the copy ended (BOOTTIME) */
	struct lt_unwind_regs regs;
	uint64_t base;       /* the copy's address (its sp then) */
	uint8_t *copy;
	size_t len;
	/* waiter of a CPython process: its Python frame chain as read with
	 * the copy (code objects and instruction offsets), resolved by the
	 * unwinder; NULL none */
	struct lt_pyraw *py;
	size_t npy;
	int py_end;
	uint64_t py_end_at;
	struct pyproc *pp;
	/* waiter of an OCaml 5 process: the OCaml stack under its C stack,
	 * copied with it (stackrec_ocaml.h); NULL none */
	uint8_t *oc;
	uint64_t oc_base;
	size_t oc_len;
	/* waiter of a JVM: its Java frames, read with the copy (hs_stack.h)
	 * and placed by the unwinder; NULL none */
	struct lt_rtthread *jv;
	uint64_t jv_anchor;
	struct lt_hsstk *hs;
	/* and the Java lock it waits for (lt_hsstk_read's struct lt_hsstk_lock), its name interned
	 * in the recorder's lock_names; NULL none */
	uint64_t rtlock;
	const char *rtlock_name;
	int decided;         /* waiter: 0 not yet, 1 keep, -1 drop */
	int bpf;             /* waiter: copied by the BPF side at its wake-up */
	int attach;          /* waiter: a wait under way at the attach */
	int unwound;         /* 1: stack_id is final (0: none) */
	uint32_t stack_id;
};

struct pend {
	int32_t tid;
	uint32_t tgid;
	uint64_t ts, due;
	uint16_t nr;
	uint64_t arg0;
	int check_arg;
	int state;
	/* a sampled wait that the BPF side copies if it lasts
	 * LT_STACK_AFTER_NS (left_to_bpf): read only while shorter */
	int bpf_if_long;
	/* the BPF side copies it when it ends (LT_F_BPF_COPY, left_to_bpf):
	 * read (due) only once LT_STACK_LATE_NS old */
	int late;
	/* a wait the thread was already asleep in at the attach (no entry
	 * event: lt_stackrec_attached): it ends at the thread's first run */
	int attach;
	struct job *job; /* P_COPIED */
};

/* A CPython process: its runtime and layout (read once by the unwinder,
 * through the symbols), then read by the collector (its frame chains, the
 * layout only: immutable) and by the unwinder (code objects, cached).
 * Kept until lt_stackrec_free even after an exec (the collector may still
 * hold it); e reads with process_vm_readv, lookups only while opening. */
struct pyproc {
	struct pyproc *next;       /* every one, to free */
	struct lt_lm_env e;
	struct lt_mem mem;         /* the process's memory, read by the collector */
	const struct lt_lm_env *look; /* while opening: the symbols' env */
	struct lt_pystk *py;       /* NULL: no CPython (nothing read) */
	struct lt_ocstk *oc;       /* NULL: no OCaml 5 runtime */
	struct lt_hsstk *hs;       /* NULL: no HotSpot JVM whose Java frames are read */
	int tries;                 /* opens that found no runtime (open_python) */
};
#define PY_TRIES 30 /* opens of a process's runtime, at most */

struct symproc {
	struct lt_sym *sym;
	struct lt_unwinder *u;
	struct lt_gostk *go; /* a Go program's pclntab (stackrec_go.h), NULL */
	int broken;
	int unwound;     /* its first unwind is done (that one reads its modules' CFI) */
	uint64_t opened; /* BOOTTIME ns */
	uint64_t maps_read; /* BOOTTIME ns: its mappings last read again (0: at open) */
	bool rt_retry;   /* no runtime found, but the java launcher is mapped:
			    its modules are read again soon (open_python) */
};

struct lt_stackrec {
	int sample_every;
	int no_reads;            /* lt_stackrec_no_reads: no /proc reads */
	int bpf_waiters;         /* lt_stackrec_bpf_waiters: the BPF side copies long waits */
	int lazy;                /* lt_stackrec_lazy */
	uint64_t need_ts;        /* the latest entry of a wait to read at 1 ms (lazy) */
	int said_recording;      /* lt_stacks_put_recording written (lt_stackrec_write) */
	size_t attach_pend;      /* pends of waits under way at the attach (switches end them) */
	uint64_t nwaits;
	/* the collector's own */
	struct lt_u64map pend;   /* tid -> struct pend * */
	/* tid -> ts of its latest wait whose stack the BPF side copied (a
	 * copy may come before the wait's entry: it is in a ring of its own) */
	struct lt_u64map bpf_done;
	/* the unwinder's, under ucmu: the collector's thread looks a BPF
	 * copy up in the unwind cache itself (lt_stackrec_copy_cb) when it
	 * can take ucmu at once, so that a copy whose call path is cached
	 * costs it no job, no 2 KiB copy and no hand-over to the unwinder */
	pthread_mutex_t ucmu;
	struct lt_u64map procs;  /* tgid -> struct symproc * */
	struct lt_u64map uc_regs; /* the unwinder's: uc_regs_key -> struct uc_regs * */
	struct lt_u64map ucache;  /* uc_words_key -> stack id (unwinds remembered) */
	uint64_t budget_start, budget_used; /* wakers' unwinding, per second */
	/* the collector's own: thread -> its Python thread state (a cache) */
	struct lt_u64map py_ts;
	struct lt_u64map seen;     /* tgids whose OPEN was queued */
	struct lt_pyraw *py_buf;   /* LT_PYSTK_MAX_RAW entries */
	struct lt_u64map py_nots;  /* waker tid -> when its thread state was last looked for */
	/* shared, under mu */
	pthread_mutex_t mu;
	pthread_cond_t more, idle;
	pthread_t thread;
	int started, stop, busy;
	size_t kick; /* bytes queued since the unwinder was last woken */
	struct job *head, *tail;
	size_t queued_bytes;
	struct lt_u64map intern; /* hash -> struct lt_stack * (chain by collision check) */
	struct lt_u64map pyprocs; /* tgid -> struct pyproc * (current program) */
	/* the BPF side that copies wakers' Python frames (set by the
	 * collector's thread, read by it and, under mu, by the unwinder) */
	struct lt_bpf *bpf;
	struct pyproc *all_py;    /* every pyproc, freed at the end */
	struct lt_stack **stacks;
	size_t nstacks, cap_stacks, written_stacks;
	struct lt_stack_ref *refs;
	size_t nrefs, cap_refs, written_refs;
	/* runtime locks' names the references point to (collector thread
	 * adds; kept to the end) */
	struct lt_strtab lock_names; /* runtime locks' names, each once */
	struct lt_stackrec_stats st, out;
};

static uint64_t boot_now(void)
{
	return lt_now_ns(CLOCK_BOOTTIME);
}

static void *unwinder_main(void *arg);
static void uc_forget(struct lt_stackrec *r);
struct symproc;
static void open_python(struct lt_stackrec *r, uint32_t tgid, struct symproc *sp);

struct lt_stackrec *lt_stackrec_new(int sample_every)
{
	struct lt_stackrec *r = calloc(1, sizeof(*r));
	if (!r)
		return NULL;
	r->sample_every = sample_every < 0 ? 16 : sample_every;
	pthread_mutex_init(&r->mu, NULL);
	pthread_mutex_init(&r->ucmu, NULL);
	pthread_cond_init(&r->more, NULL);
	pthread_cond_init(&r->idle, NULL);
	/* the recorder's signals stay with its main thread */
	sigset_t all, old;
	sigfillset(&all);
	pthread_sigmask(SIG_SETMASK, &all, &old);
	r->started = pthread_create(&r->thread, NULL, unwinder_main, r) == 0;
	pthread_sigmask(SIG_SETMASK, &old, NULL);
	if (!r->started) {
		lt_stackrec_free(r);
		return NULL;
	}
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
	lt_gostk_free(sp->go);
	if (sp->u)
		lt_unwinder_free(sp->u);
	if (sp->sym)
		lt_sym_close(sp->sym);
	free(sp);
}

static void free_job(struct job *j)
{
	if (j) {
		free(j->py);
		free(j->oc);
		if (j->jv)
			lt_rtthread_clear(j->jv);
		free(j->jv);
		free(j->copy);
		free(j);
	}
}

static void free_pend(void *v)
{
	struct pend *p = v;
	free_job(p->job);
	free(p);
}

/* Stops the unwinder once the queue is empty. */
static void stop_unwinder(struct lt_stackrec *r)
{
	if (!r->started)
		return;
	pthread_mutex_lock(&r->mu);
	r->stop = 1;
	pthread_cond_signal(&r->more);
	pthread_mutex_unlock(&r->mu);
	pthread_join(r->thread, NULL);
	r->started = 0;
}

void lt_stackrec_free(struct lt_stackrec *r)
{
	if (!r)
		return;
	stop_unwinder(r);
	/* pends still undecided own their jobs: the unwinder has let go */
	free_map_vals(&r->pend, free_pend);
	lt_u64map_free(&r->bpf_done);
	free_map_vals(&r->procs, free_symproc);
	uc_forget(r);
	lt_u64map_free(&r->pyprocs);
	lt_u64map_free(&r->py_ts);
	lt_u64map_free(&r->seen);
	lt_u64map_free(&r->py_nots);
	free(r->py_buf);
	while (r->all_py) {
		struct pyproc *pp = r->all_py;
		r->all_py = pp->next;
		lt_pystk_free(pp->py);
		lt_ocstk_free(pp->oc);
		lt_hsstk_free(pp->hs);
		lt_mem_close(&pp->mem);
		free(pp);
	}
	lt_u64map_free(&r->intern);
	for (size_t i = 0; i < r->nstacks; i++)
		lt_stack_free(r->stacks[i]);
	free(r->stacks);
	free(r->refs);
	lt_strtab_free(&r->lock_names);
	pthread_mutex_destroy(&r->mu);
	pthread_mutex_destroy(&r->ucmu);
	pthread_cond_destroy(&r->more);
	pthread_cond_destroy(&r->idle);
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

/* Appends a reference (under mu); 0, or -1 when out of memory (dropped). */
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

/* A job both decided and unwound (under mu): its reference, if any, is
 * filed; the job is freed. */
static void settle(struct lt_stackrec *r, struct job *j)
{
	if (j->kind == J_WAITER && j->decided > 0 && j->stack_id) {
		struct lt_stack_ref ref = { .tid = j->tid, .ts = j->ts, .stack_id = j->stack_id,
					    .role = LT_STACK_WAITER,
					    .delay_ns = j->copied > j->ts ? j->copied - j->ts : 0,
					    .rtlock = j->rtlock, .rtlock_name = j->rtlock_name };
		if (push_ref(r, &ref) == 0) {
			if (j->bpf)
				r->st.bpf_kept++;
			else
				r->st.kept++;
			if (j->attach)
				r->st.attach_kept++;
		}
	} else if (j->kind == J_WAKER && j->stack_id) {
		struct lt_stack_ref ref = { .tid = j->tid, .ts = j->ts, .stack_id = j->stack_id,
					    .role = LT_STACK_WAKER };
		if (push_ref(r, &ref) == 0)
			r->st.wakers_kept++;
	}
	free_job(j);
}

/* The collector's verdict on a copied wait: KEEP if the call outlasted
 * the copy.  The job settles now if the unwinder is done with it. */
static void decide(struct lt_stackrec *r, struct pend *p, int keep)
{
	struct job *j = p->job;
	p->job = NULL;
	pthread_mutex_lock(&r->mu);
	j->decided = keep ? 1 : -1;
	if (!keep && p->state != P_BPF)
		r->st.late++;
	if (j->unwound)
		settle(r, j);
	pthread_mutex_unlock(&r->mu);
}

/* The thread's call ended (ts: when it ran again or returned). */
static void resolve(struct lt_stackrec *r, int32_t tid, uint64_t ts)
{
	struct pend *p = lt_u64map_get(&r->pend, (uint32_t)tid);
	if (!p)
		return;
	/* due to be read, not read yet, and it lasted 1 ms or more: the
	 * collector came too late (said in the summary) */
	if (p->state == P_WAIT && !p->late && ts >= p->due && ts - p->ts >= LT_STACK_AFTER_NS)
		r->st.unread++;
	if (p->state == P_COPIED && p->job) {
		int keep = ts >= p->job->copied;
		decide(r, p, keep);
		/* a BPF copy of it still to come (--calls all: taken at the
		 * return) is not kept beside the read */
		if (keep)
			lt_u64map_put(&r->bpf_done, (uint32_t)tid, (void *)(uintptr_t)p->ts);
	}
	if (p->attach && r->attach_pend)
		r->attach_pend--;
	lt_u64map_del(&r->pend, (uint32_t)tid);
	free_pend(p);
}

/* Queues a job for the unwinder; false (the job freed, counted) when the
 * queue is full. */
#define KICK_BYTES (256u * 1024u)
static bool enqueue(struct lt_stackrec *r, struct job *j)
{
	pthread_mutex_lock(&r->mu);
	if (j->kind == J_WAKER && r->queued_bytes + j->len > QUEUE_MAX_BYTES / 2) {
		/* the waits' own stacks first: wakers' copies keep half the
		 * queue free for them */
		r->st.wakers_busy++;
		pthread_mutex_unlock(&r->mu);
		free_job(j);
		return false;
	}
	if (j->len && r->queued_bytes + j->len > QUEUE_MAX_BYTES) {
		r->st.behind++;
		pthread_mutex_unlock(&r->mu);
		free_job(j);
		return false;
	}
	r->queued_bytes += j->len;
	if (r->tail)
		r->tail->next = j;
	else
		r->head = j;
	r->tail = j;
	/* the unwinder is woken once per drain (lt_stackrec_kick), not per
	 * job: a wake-up per copy (tens of thousands a second on a busy
	 * target) cost a futex call and a switch to the unwinder each, on
	 * the cpus the target runs on */
	r->kick += j->len ? j->len : 1;
	if (r->kick >= KICK_BYTES) {
		/* a long drain (the collector was late): the unwinder goes on
		 * meanwhile, before the queue fills */
		r->kick = 0;
		pthread_cond_signal(&r->more);
	}
	pthread_mutex_unlock(&r->mu);
	return true;
}

/* Wakes the unwinder for what was queued since (under mu). */
static void kick_locked(struct lt_stackrec *r)
{
	if (r->kick) {
		r->kick = 0;
		pthread_cond_signal(&r->more);
	}
}

void lt_stackrec_kick(struct lt_stackrec *r)
{
	pthread_mutex_lock(&r->mu);
	kick_locked(r);
	pthread_mutex_unlock(&r->mu);
}

void lt_stackrec_open(struct lt_stackrec *r, uint32_t tgid)
{
	if (!tgid || lt_u64map_get(&r->seen, tgid) || lt_u64map_put(&r->seen, tgid, (void *)1))
		return;
	struct job *j = calloc(1, sizeof(*j));
	if (j) {
		j->kind = J_OPEN;
		j->tgid = tgid;
		enqueue(r, j);
	}
}

/* Is the wait EV begins one whose stack only the BPF side's copy at its
 * wake-up need take (no read while it sleeps)?  An untimed wait on a
 * process-private futex can be ended only by a thread of its own process
 * (a FUTEX_WAKE or requeue on that private futex, a thread's exit clearing
 * its tid word), whose wake-up shares its address space and copies its
 * stack once it slept 1 ms or more; or by a signal, which ends it with no
 * lock handed over.  Not for a process whose runtime's frames are read with
 * the stack (CPython, OCaml 5, a JVM: their copies are left to the reads),
 * nor for one not opened yet. */
static struct pyproc *pyproc_get(struct lt_stackrec *r, uint32_t tgid);

/* P's stack comes from the BPF side's copy when it ends: the collector
 * reads it only if it is still asleep LT_STACK_LATE_NS on (a hang). */
static void read_if_it_lasts(struct pend *p)
{
	p->late = 1;
	p->due = p->ts + LT_STACK_LATE_NS;
}

static bool left_to_bpf(struct lt_stackrec *r, const struct lt_event *ev, uint32_t tgid)
{
	if (!r->bpf_waiters || ev->h.kind != LT_EV_FUTEX_ENTER || ev->futex.nr != LT_NR_FUTEX ||
	    ev->futex.timeout >= 0 || !lt_futex_private(ev->futex.nr, ev->futex.op))
		return false;
	unsigned cmd = ev->futex.op & LT_FUTEX_CMD_MASK;
	if (cmd != LT_FUTEX_WAIT && cmd != LT_FUTEX_WAIT_BITSET)
		return false;
	struct pyproc *pp = pyproc_get(r, tgid);
	return pp && !pp->py && !pp->oc && !pp->hs;
}

void lt_stackrec_bpf_waiters(struct lt_stackrec *r)
{
	r->bpf_waiters = 1;
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
		resolve(r, tid, ev->h.ts);
		if (tgid) { /* another program: its modules are read again */
			pthread_mutex_lock(&r->mu);
			lt_u64map_del(&r->pyprocs, tgid);
			if (r->bpf) {
				lt_bpf_copies_serve(r->bpf, tgid, false);
				lt_bpf_py_layout(r->bpf, tgid, NULL);
				lt_bpf_py_tstate(r->bpf, (uint32_t)tid, 0);
			}
			pthread_mutex_unlock(&r->mu);
			lt_u64map_del(&r->seen, tgid);
			struct job *j = calloc(1, sizeof(*j));
			if (j) {
				j->kind = J_FORGET;
				j->tgid = tgid;
				j->ts = ev->h.ts; /* the exec's */
				enqueue(r, j);
			}
		}
		return;
	case LT_EV_TASK_EXIT:
		lt_u64map_del(&r->py_ts, (uint32_t)tid);
		lt_u64map_del(&r->bpf_done, (uint32_t)tid);
		lt_u64map_del(&r->py_nots, (uint32_t)tid);
		if (r->bpf && r->st.py_procs) /* its thread state goes too */
			lt_bpf_py_tstate(r->bpf, (uint32_t)tid, 0);
		resolve(r, tid, ev->h.ts);
		return;
	case LT_EV_SYS_EXIT:
		resolve(r, tid, ev->h.ts);
		return;
	case LT_EV_SWITCH:
		/* a wait under way at the attach has no entry, and with --calls
		 * all no return either: it ends when its thread runs (as the
		 * timeline ends it), so its copy is kept only if taken before */
		if (r->attach_pend) {
			const struct pend *p = lt_u64map_get(&r->pend, ev->sw.next_tid);
			if (p && p->attach)
				resolve(r, (int32_t)ev->sw.next_tid, ev->h.ts);
			p = lt_u64map_get(&r->pend, ev->sw.prev_tid);
			if (p && p->attach)
				resolve(r, (int32_t)ev->sw.prev_tid, ev->h.ts);
		}
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
	lt_stackrec_open(r, tgid);
	resolve(r, tid, ev->h.ts); /* a call whose return we missed */
	struct pend *p = calloc(1, sizeof(*p));
	if (!p)
		return;
	r->st.waits++;
	*p = (struct pend){ .tid = tid, .tgid = tgid, .ts = ev->h.ts, .nr = nr, .arg0 = arg0,
			    .check_arg = check };
	int sampled = 0;
	if (ev->h.flags & LT_F_BPF_COPY) {
		/* the BPF side copies it at the thread's return if it lasts
		 * 1 ms (whatever its length if it sampled it): read only if it
		 * is still asleep LT_STACK_LATE_NS on */
		read_if_it_lasts(p);
		r->st.bpf_served++;
		if (ev->h.flags & LT_F_BPF_SAMPLED)
			r->st.bpf_sampled++;
	} else {
		/* the BPF side woke the collector for it (lazy): drain every
		 * 1 ms a while (lt_stackrec_poll_ms) */
		if (ev->h.ts > r->need_ts)
			r->need_ts = ev->h.ts;
		r->nwaits++;
		sampled = r->sample_every && r->nwaits % (uint64_t)r->sample_every == 0;
		p->due = sampled ? ev->h.ts : ev->h.ts + LT_STACK_AFTER_NS;
	}
	if ((uint64_t)(uintptr_t)lt_u64map_get(&r->bpf_done, (uint32_t)tid) == ev->h.ts)
		p->state = P_BPF; /* its copy came first */
	else if (r->no_reads)
		p->state = -1;
	else if (!p->late && left_to_bpf(r, ev, tgid)) {
		if (sampled) {
			p->bpf_if_long = 1;
		} else {
			read_if_it_lasts(p);
			r->st.left_to_bpf++;
		}
	}
	if (lt_u64map_put(&r->pend, (uint32_t)tid, p))
		free(p);
}

int lt_stackrec_attached(struct lt_stackrec *r, int32_t tid, uint32_t tgid, long nr, const uint64_t *args,
			 uint64_t ts)
{
	int check = 0;
	uint64_t arg0 = 0;

	if (tid <= 0 || !tgid || lt_u64map_get(&r->pend, (uint32_t)tid))
		return 0;
	switch (lt_call_class(nr)) {
	case LT_CALL_FUTEX:
		if (!lt_futex_waits((uint16_t)nr, nr == LT_NR_FUTEX ? (uint32_t)args[1] : 0))
			return 0;
		/* as is_wait: futex(2)'s word is checked, futex_wait's and
		 * futex_waitv's are not */
		arg0 = args[0];
		check = nr == LT_NR_FUTEX;
		break;
	case LT_CALL_WAIT:
		break;
	case LT_CALL_IO:
		arg0 = (uint64_t)(int64_t)(int32_t)args[0];
		check = 1;
		break;
	default:
		return 0; /* a file lock (not a wait with a stack here) or none */
	}
	struct pend *p = calloc(1, sizeof(*p));
	if (!p)
		return -1;
	/* no BPF copy can serve it (the BPF side noted no sleep of it), so
	 * it is read now, whatever its kind, from /proc */
	*p = (struct pend){ .tid = tid, .tgid = tgid, .ts = ts, .due = 0, .nr = (uint16_t)nr,
			    .arg0 = arg0, .check_arg = check, .attach = 1 };
	if (r->no_reads)
		p->state = -1;
	if (lt_u64map_put(&r->pend, (uint32_t)tid, p)) {
		free(p);
		return -1;
	}
	r->attach_pend++;
	r->st.waits++;
	r->st.attach_waits++;
	lt_stackrec_open(r, tgid);
	return 0;
}

void lt_stackrec_no_reads(struct lt_stackrec *r)
{
	r->no_reads = 1;
}

void lt_stackrec_lazy(struct lt_stackrec *r)
{
	r->lazy = 1;
}

int lt_stackrec_poll_ms(const struct lt_stackrec *r, uint64_t now)
{
	int due = lt_stackrec_due_ms(r, now);
	/* Not lazy: a wait's entry comes with no wake-up and may be in the
	 * ring unseen: drain every 1 ms.  Lazy: the BPF side wakes the
	 * collector for such an entry at most once a millisecond, so one
	 * that follows within 1 ms is seen by draining every 1 ms for 2 ms
	 * after the latest seen. */
	if (!r->lazy || (r->need_ts && now < r->need_ts + 2 * LT_STACK_AFTER_NS))
		return due == 0 ? 0 : 1;
	return due;
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

/* ---- the collector: copying a sleeping thread's stack ---- */

static int pyproc_read(void *arg, uint64_t addr, void *buf, size_t len)
{
	return lt_mem_read(&((struct pyproc *)arg)->mem, addr, buf, len);
}

static int pyproc_lookup(void *arg, const char *name, uint64_t *addr, uint64_t *size)
{
	const struct pyproc *pp = arg;
	return pp->look ? pp->look->lookup(pp->look->arg, name, addr, size) : -ENOENT;
}

/* The Python and OCaml facts of process TGID (NULL: not opened yet). */
static struct pyproc *pyproc_get(struct lt_stackrec *r, uint32_t tgid)
{
	pthread_mutex_lock(&r->mu);
	struct pyproc *pp = lt_u64map_get(&r->pyprocs, tgid);
	pthread_mutex_unlock(&r->mu);
	return pp;
}

/* J's Python chain, from O (read from the process or from a BPF copy):
 * true if there is one to resolve (frames, or a reason it ends). */
static bool job_python(struct job *j, const struct lt_pyraw_stack *o, struct pyproc *pp)
{
	if (!o->n && !o->end)
		return false;
	if (o->n && !(j->py = malloc(o->n * sizeof(*j->py))))
		return false;
	if (o->n)
		memcpy(j->py, o->f, o->n * sizeof(*j->py));
	j->npy = o->n;
	j->py_end = o->end;
	j->py_end_at = o->end_at;
	j->pp = pp;
	return true;
}

static void read_python(struct lt_stackrec *r, struct pyproc *pp, const struct pend *p, struct job *j);

/* The Python frame chain of a CPython thread, read right after its stack
 * (both while it sleeps: the same wait-outlasted-the-copy rule keeps
 * both); the unwinder resolves it to functions and lines. */
static void copy_python(struct lt_stackrec *r, const struct pend *p, struct job *j)
{
	struct pyproc *pp = pyproc_get(r, p->tgid);
	if (!pp || !pp->py)
		return;
	uint64_t t0 = lt_now_ns(CLOCK_MONOTONIC);
	read_python(r, pp, p, j);
	r->st.py_read_ns += lt_now_ns(CLOCK_MONOTONIC) - t0;
}

static void read_python(struct lt_stackrec *r, struct pyproc *pp, const struct pend *p, struct job *j)
{
	if (!r->py_buf && !(r->py_buf = malloc(LT_PYSTK_MAX_RAW * sizeof(*r->py_buf))))
		return;
	uint64_t ts = (uint64_t)(uintptr_t)lt_u64map_get(&r->py_ts, (uint32_t)p->tid);
	uint64_t was = ts;
	struct lt_pyraw_stack o = { .f = r->py_buf, .max = LT_PYSTK_MAX_RAW };
	int got = lt_pystk_read(pp->py, &pp->e, p->tid, &ts, &o);
	if (ts != was) {
		if (ts)
			lt_u64map_put(&r->py_ts, (uint32_t)p->tid, (void *)(uintptr_t)ts);
		else
			lt_u64map_del(&r->py_ts, (uint32_t)p->tid);
		if (ts && r->bpf) /* for its copies as a waker */
			lt_bpf_py_tstate(r->bpf, (uint32_t)p->tid, ts);
	}
	if (got > 0 && job_python(j, &o, pp))
		r->st.py_reads++;
}

/* The OCaml stack of an OCaml 5 thread, copied right after its C stack
 * (stackrec_ocaml.h): its OCaml frames are unwound from it. */
static void copy_ocaml(struct lt_stackrec *r, const struct pend *p, struct job *j)
{
	struct pyproc *pp = pyproc_get(r, p->tgid);
	if (!pp || !pp->oc)
		return;
	uint64_t t0 = lt_now_ns(CLOCK_MONOTONIC);
	if (lt_ocstk_copy(pp->oc, &pp->e, j->copy, j->len, j->base, &j->oc, &j->oc_base, &j->oc_len) > 0) {
		r->st.oc_reads++;
		r->st.oc_bytes += j->oc_len;
	}
	r->st.oc_read_ns += lt_now_ns(CLOCK_MONOTONIC) - t0;
}

/* The Java frames of a JVM thread, read right after its stack while it
 * still sleeps (its JavaFrameAnchor holds its last Java frame until it
 * runs Java code again): the unwinder places them (hs_stack.h). */
static void copy_java(struct lt_stackrec *r, const struct pend *p, struct job *j)
{
	struct pyproc *pp = pyproc_get(r, p->tgid);
	if (!pp || !pp->hs)
		return;
	uint64_t t0 = lt_now_ns(CLOCK_MONOTONIC);
	struct lt_rtthread *jv = calloc(1, sizeof(*jv));
	/* and the Java lock it waits for: its own futex does not say */
	struct lt_hsstk_lock lk;
	if (jv && lt_hsstk_read(pp->hs, p->tid, jv, &j->jv_anchor, &lk) > 0) {
		j->jv = jv;
		j->hs = pp->hs;
		r->st.java_reads++;
		r->st.java_frames += jv->n_frames;
		if (lk.found && (j->rtlock_name = lt_strtab_str(&r->lock_names, lk.name))) {
			j->rtlock = lk.obj;
			r->st.java_locks++;
		}
	} else {
		if (jv)
			lt_rtthread_clear(jv);
		free(jv);
	}
	uint64_t spent = lt_now_ns(CLOCK_MONOTONIC) - t0;
	r->st.java_read_ns += spent;
	if (spent > r->st.java_read_max_ns)
		r->st.java_read_max_ns = spent;
}

static bool read_path_known(struct lt_stackrec *r, struct job *j);

/* Copies one sleeping thread's registers and stack: 0 (p now P_COPIED,
 * its job queued, or its call path found in the unwind cache), -1 not
 * (running, returned, in another call, gone). */
static int copy_one(struct lt_stackrec *r, struct pend *p)
{
	struct lt_sc_line sc = { 0 };
	struct lt_sleep_note note;
	/* a wait under way at the attach: the BPF side saw it go to sleep no more
	 * than the thread's entry */
	int nr = r->bpf && !p->attach ? lt_bpf_sleep_note(r->bpf, (uint32_t)p->tid, &note) : -ENOENT;
	if (nr == 0) {
		/* the BPF side noted where it went to sleep: still in this
		 * wait's sleep (ts), or it ran again or had its stack copied
		 * (ts 0, or another sleep's) */
		if (note.ts != p->ts || !note.sp) {
			r->st.note_gone++;
			return -1;
		}
		sc.sp = note.sp;
		sc.pc = note.ip;
		r->st.note_reads++;
	} else {
		/* none noted (no waiters' copies, or the map full): from /proc,
		 * which says whether it is still in this call */
		char path[64], line[512];
		snprintf(path, sizeof(path), "/proc/%u/task/%d/syscall", p->tgid, p->tid);
		if (lts_read_small(path, line, sizeof(line)) <= 0 || lt_parse_syscall_line(line, &sc) ||
		    sc.state != LT_SC_IN_SYSCALL || sc.nr != p->nr || (p->check_arg && sc.args[0] != p->arg0) ||
		    !sc.sp)
			return -1;
	}
	struct job *j = calloc(1, sizeof(*j));
	if (!j || !(j->copy = malloc(COPY_BYTES))) {
		free(j);
		return -1;
	}
	/* a single range: the read stops at the first unmapped page, which
	 * is the stack's end at the latest */
	struct iovec local = { j->copy, COPY_BYTES }, remote = { (void *)(uintptr_t)sc.sp, COPY_BYTES };
	ssize_t n = process_vm_readv(p->tid, &local, 1, &remote, 1, 0);
	if (n <= 0) {
		free_job(j);
		return -1;
	}
	copy_python(r, p, j);
	copy_java(r, p, j);
	j->kind = J_WAITER;
	j->tid = p->tid;
	j->tgid = p->tgid;
	j->ts = p->ts;
	j->regs.r.sp = sc.sp;
	j->regs.r.ip = sc.pc;
	j->regs.full = false;
	j->base = sc.sp;
	j->len = (size_t)n;
	copy_ocaml(r, p, j);
	j->attach = p->attach;
	j->copied = boot_now();
	if (!read_path_known(r, j) && !enqueue(r, j))
		return -1;
	p->job = j;
	p->state = P_COPIED;
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
		if (p->bpf_if_long && now - p->ts >= LT_STACK_AFTER_NS) {
			/* a sampled wait seen late, 1 ms old already: its stack
			 * comes from the BPF side's copy at its wake-up, as for
			 * the waits not sampled; a read now would give the
			 * same wait a stack twice (the copy then dropped).  Read
			 * only if it is still asleep LT_STACK_LATE_NS on (a
			 * hang), as those */
			p->bpf_if_long = 0;
			read_if_it_lasts(p);
			r->st.sampled_left++;
			continue;
		}
		uint64_t t0 = lt_now_ns(CLOCK_MONOTONIC);
		r->st.reads++;
		if (p->late)
			r->st.late_reads++;
		if (copy_one(r, p)) {
			r->st.failed++;
			/* a sampled wait read at its start may not sleep yet
			 * (still running in the call): again once it has
			 * slept as long as every wait that gets a stack */
			if (p->due < p->ts + LT_STACK_AFTER_NS)
				p->due = p->ts + LT_STACK_AFTER_NS;
			else
				p->state = -1; /* not again; the return drops it */
		}
		r->st.read_ns += lt_now_ns(CLOCK_MONOTONIC) - t0;
	}
	lt_stackrec_kick(r);
}

static void py_tstate_lookup(struct lt_stackrec *r, struct pyproc *pp, uint32_t tid,
			     uint64_t had);

/* The Python frames after a copy of SIZE bytes in all (after the deep
 * copy's more bytes for LT_COPY_F_DEEP), NULL none. */
static const struct lt_py_copy *copy_py(const struct lt_stack_copy *c, size_t size)
{
	size_t at = sizeof(*c) + ((c->pad & LT_COPY_F_DEEP) ? LT_STACK_COPY_DEEP : 0);
	if (size < at + sizeof(struct lt_py_copy))
		return NULL;
	return (const struct lt_py_copy *)((const uint8_t *)c + at);
}

/* Does one call of the interpreter loop run the Python calls of a thread
 * (3.11 and later)?  Up to 3.10 each Python call has a C frame of the
 * loop of its own, several hundred bytes each: the BPF side's 2 KiB copy
 * ends a few calls in, and the outer Python frames would have no loop
 * frame to be placed above; the read from /proc copies 32 KiB. */
static int py_one_loop(const struct pyproc *pp)
{
	const char *v = lt_pystk_version(pp->py);
	int major = 0, minor = 0;
	if (!v || sscanf(v, "CPython %d.%d", &major, &minor) != 2)
		return 0;
	return major > 3 || (major == 3 && minor >= 11);
}

/* A waiter's copy from the BPF side, taken at the wake-up that ended
 * its wait (c->ts: the wait's entry; with --calls all the entry written
 * at sys_enter, with --calls blocking the one written at the sleep): the
 * wait needs no read from /proc.  Copies and entries come through two
 * rings, in either order: a wait still pending is marked (a read already
 * taken of it is dropped: the copy is certain to be of the sleep, the
 * read only if the wait outlasted it); a copy that comes first is
 * remembered for its entry.  A second copy of the same wait (a call that
 * slept again) is dropped.  SIZE: the ring record's, which for a CPython
 * process carries the thread's Python frames after the copy.
 * -1: the copy is not to be used. */
static int waiter_copy(struct lt_stackrec *r, const struct lt_stack_copy *c, size_t size)
{
	uint32_t tid = c->tid;
	struct pend *p = lt_u64map_get(&r->pend, tid);
	struct pyproc *pp = pyproc_get(r, c->tgid);
	/* an OCaml 5 thread's read has its OCaml stack, which the copy
	 * lacks: its waits keep being read, and the copies are left (a JVM
	 * thread's too: its Java frames are read with the read); so are
	 * a CPython thread's copies without its Python frames (its thread
	 * state not known to the BPF side yet: looked up for the next), and
	 * those of CPython 3.10 and older (py_one_loop) */
	if (pp && (pp->oc || pp->hs)) {
		r->st.bpf_py_left++;
		return -1;
	}
	if (pp && pp->py) {
		const struct lt_py_copy *py = copy_py(c, size);
		if (!py || py->magic != LT_PY_COPY_MAGIC ||
		    (!py_one_loop(pp) && !(c->pad & LT_COPY_F_DEEP))) {
			r->st.bpf_py_left++;
			return -1;
		}
		if (py->end == LT_PYC_NO_TSTATE) {
			py_tstate_lookup(r, pp, tid, py->tstate);
			r->st.bpf_py_left++;
			return -1;
		}
	}
	if (p && p->ts == c->ts) {
		if (p->state == P_BPF) {
			r->st.bpf_again++;
			return -1;
		}
		if (p->state == P_COPIED && p->job) {
			p->state = P_BPF;
			decide(r, p, 0);
			r->st.bpf_dup++;
		}
		p->state = P_BPF;
	} else {
		if ((uint64_t)(uintptr_t)lt_u64map_get(&r->bpf_done, tid) == c->ts) {
			r->st.bpf_again++;
			return -1;
		}
		lt_u64map_put(&r->bpf_done, tid, (void *)(uintptr_t)c->ts);
	}
	return 0;
}

/* ---- wakers' Python frames, copied by the BPF side ---- */

static void push_ts(void *arg, pid_t tid, uint64_t ts)
{
	struct lt_stackrec *r = arg;
	lt_bpf_py_tstate(r->bpf, (uint32_t)tid, ts);
}

/* Tells the BPF side where process TGID's Python frames are and every
 * thread state it has now (under mu; r->bpf set).  Threads started later
 * are added at their first copy as a waker or as a waiter. */
static void py_to_bpf(struct lt_stackrec *r, uint32_t tgid, struct pyproc *pp)
{
	struct lt_py_layout l;
	if (pp->oc || pp->hs) { /* read where they sleep: no copies */
		/* (its runtime found later than the process: no longer one
		 * whose copies serve, open_python) */
		lt_bpf_copies_serve(r->bpf, tgid, false);
		lt_bpf_waiters_read(r->bpf, tgid);
		struct lt_oc_layout ol;
		if (pp->oc && lt_ocstk_bpf_layout(pp->oc, &ol) == 0)
			lt_bpf_oc_layout(r->bpf, tgid, &ol); /* its wakers' OCaml stacks */
		return;
	}
	if (!pp->py) { /* a native process: the copies serve its waits */
		lt_bpf_copies_serve(r->bpf, tgid, true);
		return;
	}
	if (!pp->py || lt_pystk_bpf_layout(pp->py, &l))
		return;
	l.deep = !py_one_loop(pp); /* waiters' copies of more stack */
	if (lt_bpf_py_layout(r->bpf, tgid, &l))
		return;
	lt_pystk_each_ts(pp->py, &pp->e, push_ts, r);
}

void lt_stackrec_set_bpf(struct lt_stackrec *r, struct lt_bpf *b)
{
	pthread_mutex_lock(&r->mu);
	r->bpf = b;
	for (size_t i = 0; b && i < r->pyprocs.cap; i++)
		if (r->pyprocs.keys[i])
			py_to_bpf(r, (uint32_t)r->pyprocs.keys[i], r->pyprocs.vals[i]);
	pthread_mutex_unlock(&r->mu);
}

/* The waker's OCaml 5 stack copied with its C stack by the BPF side
 * (locktrace/ocframes.h): a segment for the unwinder, as a waiter's. */
static void waker_ocaml(struct lt_stackrec *r, const struct lt_stack_copy *c, size_t size,
			struct job *j)
{
	const struct lt_oc_copy *o = (const struct lt_oc_copy *)((const uint8_t *)c + sizeof(*c));
	if (size < sizeof(*c) + sizeof(*o) || o->magic != LT_OC_COPY_MAGIC)
		return;
	if ((o->end != LT_OCC_ALL && o->end != LT_OCC_CUT) || !o->len || o->len > LT_OC_COPY_BYTES ||
	    !(j->oc = malloc(o->len))) {
		r->st.oc_wakers_none++;
		return;
	}
	memcpy(j->oc, o->data, o->len);
	j->oc_base = o->base;
	j->oc_len = o->len;
	r->st.oc_wakers++;
	r->st.oc_wakers_cut += o->end == LT_OCC_CUT;
}

/* The waker's Python frames copied with its stack: the chain for the
 * unwinder to resolve, as a waiter's.  A thread whose thread state the
 * BPF side does not know yet is looked up (at most once a second) for its
 * next copies. */
static void waker_python(struct lt_stackrec *r, const struct lt_py_copy *c, struct job *j)
{
	if (c->magic != LT_PY_COPY_MAGIC)
		return;
	struct pyproc *pp = pyproc_get(r, j->tgid);
	if (!pp || !pp->py)
		return;
	if (c->end == LT_PYC_NO_TSTATE) {
		py_tstate_lookup(r, pp, (uint32_t)j->tid, c->tstate);
		r->st.py_wakers_unknown++;
	} else {
		struct lt_pyraw buf[LT_PY_COPY_FRAMES];
		struct lt_pyraw_stack o = { .f = buf, .max = LT_PY_COPY_FRAMES };
		lt_pystk_from_copy(pp->py, c, &o);
		if (job_python(j, &o, pp)) {
			if (j->kind == J_WAITER)
				r->st.bpf_py++;
			else
				r->st.py_wakers++;
		}
	}
}

/* Thread TID of a CPython process has no thread state the BPF side knows
 * (or not that one, HAD): looked up (at most once a second) for the BPF
 * side's next copies of it, as a waker or as a waiter. */
static void py_tstate_lookup(struct lt_stackrec *r, struct pyproc *pp, uint32_t tid,
			     uint64_t had)
{
	uint64_t now = boot_now(), last = (uint64_t)(uintptr_t)lt_u64map_get(&r->py_nots, tid);
	if (!r->bpf || (last && now - last < 1000000000ull))
		return;
	uint64_t ts = lt_pystk_find_ts(pp->py, &pp->e, (pid_t)tid);
	if (ts && ts != had) {
		lt_bpf_py_tstate(r->bpf, tid, ts);
		lt_u64map_put(&r->py_ts, tid, (void *)(uintptr_t)ts);
	}
	lt_u64map_put(&r->py_nots, tid, (void *)(uintptr_t)now);
}

static bool copied_path_known(struct lt_stackrec *r, const struct lt_stack_copy *c, size_t size,
			      int waiter);

int lt_stackrec_copy_cb(void *ctx, void *data, size_t size)
{
	struct lt_stackrec *r = ctx;
	const struct lt_stack_copy *c = data;
	if (size < sizeof(*c) || !c->tid || !c->tgid)
		return 0;
	int waiter = c->role == LT_COPY_WAITER;
	if (waiter)
		r->st.bpf_waiters++;
	else
		r->st.wakers++;
	size_t most = LT_STACK_COPY_BYTES;
	if (c->pad & LT_COPY_F_DEEP) {
		if (size < sizeof(*c) + LT_STACK_COPY_DEEP)
			return 0;
		most += LT_STACK_COPY_DEEP; /* the stack goes on after the struct */
	}
	if (!c->len || c->len > most)
		return 0; /* a waiter's: the collector's read, if in time */
	if (waiter && waiter_copy(r, c, size))
		return 0;
	if (copied_path_known(r, c, size, waiter))
		return 0;
	struct job *j = calloc(1, sizeof(*j));
	if (!j || !(j->copy = malloc(c->len))) {
		free(j);
		return 0;
	}
	memcpy(j->copy, c->stack, c->len);
	j->kind = waiter ? J_WAITER : J_WAKER;
	j->bpf = waiter;
	j->copied = c->at;
	j->tid = (int32_t)c->tid;
	j->tgid = c->tgid;
	j->ts = c->ts;
	j->regs.full = true;
	j->regs.r = (struct lt_regs){ .ip = c->ip, .sp = c->sp, .bp = c->bp, .bx = c->bx,
				      .r12 = c->r12, .r13 = c->r13, .r14 = c->r14, .r15 = c->r15,
				      .ax = c->ax, .cx = c->cx, .dx = c->dx, .si = c->si, .di = c->di,
				      .r8 = c->r8, .r9 = c->r9, .r10 = c->r10, .r11 = c->r11 };
	j->base = c->sp;
	j->len = c->len;
	j->decided = 1;
	const struct lt_py_copy *py = copy_py(c, size);
	if (py)
		waker_python(r, py, j);
	if (!waiter)
		waker_ocaml(r, c, size, j);
	enqueue(r, j);
	return 0;
}

/* ---- the unwinder thread ---- */

static uint32_t uc_cached(struct lt_stackrec *r, const struct symproc *sp, const struct job *j);

/* The stack id the unwind cache holds for J's copy, 0 none, or when the
 * unwinder is using the cache (ucmu not taken at once) or has not opened
 * (or gave up on) the process: the collector's look-up before a job. */
static uint32_t uc_try(struct lt_stackrec *r, const struct job *j)
{
	if (pthread_mutex_trylock(&r->ucmu))
		return 0;
	const struct symproc *sp = lt_u64map_get(&r->procs, j->tgid);
	uint32_t id = sp && !sp->broken ? uc_cached(r, sp, j) : 0;
	pthread_mutex_unlock(&r->ucmu);
	return id;
}

/* A BPF copy whose call path the unwind cache holds: its reference filed
 * at once, from the ring's bytes (only the words the cached unwind read
 * are looked at).  Only when the unwinder is not using the cache (ucmu
 * taken at once), for a process it has opened, and for a copy the
 * unwinder would look up too (native frames only).  True if filed. */
static bool copied_path_known(struct lt_stackrec *r, const struct lt_stack_copy *c, size_t size,
			      int waiter)
{
	if ((c->pad & LT_COPY_F_DEEP) || copy_py(c, size))
		return false;
	struct job t = { .tgid = c->tgid, .base = c->sp, .copy = (uint8_t *)c->stack, .len = c->len };
	t.regs.full = true;
	t.regs.r = (struct lt_regs){ .ip = c->ip, .sp = c->sp, .bp = c->bp, .bx = c->bx,
				     .r12 = c->r12, .r13 = c->r13, .r14 = c->r14, .r15 = c->r15 };
	uint32_t id = uc_try(r, &t);
	if (!id)
		return false;
	struct lt_stack_ref ref = { .tid = c->tid, .ts = c->ts, .stack_id = id,
				    .role = waiter ? LT_STACK_WAITER : LT_STACK_WAKER,
				    .delay_ns = waiter && c->at > c->ts ? c->at - c->ts : 0 };
	pthread_mutex_lock(&r->mu);
	r->st.unwinds_cached++;
	r->st.cached_here++;
	if (push_ref(r, &ref) == 0) {
		if (waiter)
			r->st.bpf_kept++;
		else
			r->st.wakers_kept++;
	}
	pthread_mutex_unlock(&r->mu);
	return true;
}

/* A read of a sleeping thread (job J, not queued yet) whose call path
 * the unwind cache holds, as for a BPF copy: its stack id set at once
 * (the job then waits only for the collector's verdict on the wait), no
 * unwinder.  Only when ucmu is taken at once.  True if found. */
static bool read_path_known(struct lt_stackrec *r, struct job *j)
{
	uint32_t id = j->pp || j->oc || j->jv ? 0 : uc_try(r, j);
	if (!id)
		return false;
	free(j->copy); /* the bytes are not needed again */
	j->copy = NULL;
	pthread_mutex_lock(&r->mu);
	j->stack_id = id;
	j->unwound = 1;
	r->st.unwinds_cached++;
	r->st.cached_here++;
	pthread_mutex_unlock(&r->mu);
	return true;
}

static void forget_proc(struct lt_stackrec *r, uint32_t tgid)
{
	struct symproc *sp = tgid ? lt_u64map_get(&r->procs, tgid) : NULL;
	if (!sp)
		return;
	/* its mappings change: the unwinds remembered go (all of them: the
	 * cache is not kept per process) */
	uc_forget(r);
	lt_u64map_del(&r->procs, tgid);
	free_symproc(sp);
}

static struct symproc *symproc_of(struct lt_stackrec *r, uint32_t tgid);

/* Process TGID exec'd at EXEC_TS (J_FORGET, under ucmu): its modules and
 * runtime read before go.  Those read after the exec are the new
 * program's: the copies come through a ring of their own, so a copy of
 * one of its first waits may be queued, and unwound (opening the
 * process), before the collector sees the exec.  They are read again, as
 * they may have been read while its loader was still mapping its
 * libraries; but kept if the process cannot be opened any more (exited:
 * a program of a few ms, whose later copies would all have lost their
 * stacks, as the open after the exec failed). */
static void forget_exec(struct lt_stackrec *r, uint32_t tgid, uint64_t exec_ts)
{
	struct symproc *old = lt_u64map_get(&r->procs, tgid);
	bool after = old && !old->broken && old->opened >= exec_ts;
	if (after) /* set aside while it is opened again */
		lt_u64map_del(&r->procs, tgid);
	else
		forget_proc(r, tgid);
	/* an OPEN of the program before the exec may have finished after
	 * the collector dropped its runtime; the new program's is read again
	 * with its modules (open_python) */
	pthread_mutex_lock(&r->mu);
	lt_u64map_del(&r->pyprocs, tgid);
	pthread_mutex_unlock(&r->mu);
	if (!after)
		return;
	if (symproc_of(r, tgid)) {
		uc_forget(r); /* unwinds with the modules read before */
		free_symproc(old);
		return;
	}
	forget_proc(r, tgid); /* the failed open */
	if (lt_u64map_put(&r->procs, tgid, old))
		free_symproc(old);
	pthread_mutex_lock(&r->mu);
	r->st.exec_kept++;
	pthread_mutex_unlock(&r->mu);
}

/* A Go program's pclntab, for its frames' files and lines. */
static void open_go(uint32_t tgid, struct symproc *sp)
{
	struct lt_lm_env le;
	lt_lm_env_live(&le, sp->sym, NULL, NULL, NULL);
	sp->go = lt_gostk_open((pid_t)tgid, &le);
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
	if (sp->sym) {
		open_python(r, tgid, sp);
		open_go(tgid, sp);
		sp->u = lt_unwinder_new(sp->sym, NULL);
	}
	if (!sp->u)
		sp->broken = 1;
	return sp->broken ? NULL : sp;
}

static char *dup_or_null(const char *s)
{
	return s ? strdup(s) : NULL;
}

static uint64_t str_hash(uint64_t h, const char *s)
{
	for (; s && *s; s++) {
		h ^= (uint8_t)*s;
		h *= 1099511628211ull;
	}
	return h;
}

static uint64_t stack_hash(uint32_t tgid, const struct lt_sframe *f, size_t n)
{
	uint64_t h = 1469598103934665603ull ^ tgid;
	for (size_t i = 0; i < n; i++) {
		h ^= f[i].pc + (i == 0 ? 1 : 0);
		h *= 1099511628211ull;
		if (f[i].lang) { /* a runtime's frame: its function, file and line */
			h ^= ((uint64_t)f[i].lang << 32) ^ f[i].line;
			h = str_hash(str_hash(h, f[i].func), f[i].file);
		}
	}
	return h ? h : 1;
}

static int same_str(const char *a, const char *b)
{
	return a == b || (a && b && !strcmp(a, b));
}

static int same_stack(const struct lt_stack *s, uint32_t tgid, const struct lt_sframe *f, size_t n)
{
	if ((uint32_t)s->tgid != tgid || s->nframes != n)
		return 0;
	for (size_t i = 0; i < n; i++) {
		const struct lt_sframe *g = &s->frames[i];
		if (g->pc != f[i].pc || g->lang != f[i].lang)
			return 0;
		if (f[i].lang && (g->line != f[i].line || !same_str(g->func, f[i].func) ||
				  !same_str(g->file, f[i].file)))
			return 0;
	}
	return 1;
}

/* The interned id of the frames (a new stack if unseen: it takes F's
 * strings, F's entries are then zeroed), 0 OOM.  Under mu. */
static uint32_t intern(struct lt_stackrec *r, uint32_t tgid, struct lt_sframe *f, size_t n,
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
	memcpy(s->frames, f, n * sizeof(*f));
	memset(f, 0, n * sizeof(*f));
	s->end = dup_or_null(end);
	if (lt_u64map_put(&r->intern, h, s)) {
		lt_stack_free(s);
		return 0;
	}
	r->stacks[r->nstacks++] = s;
	r->st.stacks++;
	return s->id;
}

static void native_sframe(struct lt_sframe *d, const struct lt_frame *f)
{
	d->pc = f->pc;
	d->func = dup_or_null(f->func);
	d->func_off = f->func_off;
	d->module = dup_or_null(f->module);
	d->file = dup_or_null(f->file);
	d->line = f->line > 0 ? (uint32_t)f->line : 0;
	d->inlined = f->inlined;
}

static void rt_sframe(struct lt_sframe *d, const struct lt_rtframe *f, uint32_t lang)
{
	d->lang = lang;
	d->func = dup_or_null(f->func);
	d->file = dup_or_null(f->file);
	d->line = f->line > 0 ? (uint32_t)f->line : 0;
}

/* The stack as written: the native frames, and a CPython thread's Python
 * frames resolved from the chain read with the copy, each just above the
 * interpreter-loop frame that runs it (as the snapshot prints them), or a
 * JVM thread's Java frames read with the copy, each in place of the
 * machine frame (`??` in the code cache) that runs it; the frames not
 * placed after the native ones (only where the native stack stopped
 * inside Java code).  Java frames whose machine frames the unwinder
 * skipped (compiled frames: lt_rt_place_pc) go in their order before the
 * next Java frame it found, or in place of the call stub's frame; the
 * other `??` frames between them, frames the unwinder saw through a
 * stale frame pointer, are left out, and *END says the placement was
 * inferred.  *END may be replaced. */
static struct lt_sframe *merge_frames(struct lt_stackrec *r, struct job *j, const struct lt_frame *nf,
				      size_t n, size_t *out_n, char **end)
{
	struct lt_thread t;
	memset(&t, 0, sizeof(t));
	t.tid = j->tid;
	t.frames = (struct lt_frame *)nf;
	t.n_frames = n;
	size_t inferred = 0;
	if (j->pp) {
		uint64_t t0 = lt_now_ns(CLOCK_MONOTONIC);
		struct lt_pyraw_stack o = { .f = j->py, .n = j->npy, .max = j->npy, .end = j->py_end,
					    .end_at = j->py_end_at };
		lt_pystk_resolve(j->pp->py, &o, &t);
		r->st.py_resolve_ns += lt_now_ns(CLOCK_MONOTONIC) - t0;
	} else if (j->jv) {
		uint64_t t0 = lt_now_ns(CLOCK_MONOTONIC);
		inferred = lt_hsstk_place(j->hs, &t, j->jv, j->jv_anchor);
		r->st.java_place_ns += lt_now_ns(CLOCK_MONOTONIC) - t0;
	}
	uint32_t lang = j->jv ? LT_SFRAME_JAVA : LT_SFRAME_PYTHON;
	/* the native frames the Java frames are among: [first, last] */
	int first = -1, last = -1;
	for (size_t q = 0; inferred && q < t.n_rt_frames; q++)
		if (t.rt_frames[q].native >= 0) {
			if (first < 0)
				first = t.rt_frames[q].native;
			last = t.rt_frames[q].native;
		}
	struct lt_sframe *v = calloc(n + t.n_rt_frames + 1, sizeof(*v));
	size_t k = 0;
	for (size_t i = 0; v && i < n; i++) {
		bool runs = false;
		for (size_t q = 0; q < t.n_rt_frames; q++)
			if (t.rt_frames[q].native == (int)i) {
				rt_sframe(&v[k++], &t.rt_frames[q], lang);
				runs = true;
			}
		/* a JIT or interpreter frame (`??`) is the Java frames it runs */
		bool among = (int)i > first && (int)i < last;
		if (!((runs || among) && lang == LT_SFRAME_JAVA && !nf[i].func))
			native_sframe(&v[k++], &nf[i]);
	}
	for (size_t q = 0; v && q < t.n_rt_frames; q++)
		if (t.rt_frames[q].native < 0)
			rt_sframe(&v[k++], &t.rt_frames[q], lang);
	char *why = NULL;
	if (inferred && asprintf(&why, "%zu of %zu placed by their order: the unwinder skipped their "
				 "machine frames (compiled code keeps no frame pointer)%s%s",
				 inferred, t.n_rt_frames, t.rt_end ? "; " : "", t.rt_end ? t.rt_end : "") < 0)
		why = NULL;
	const char *rt_end = why ? why : t.rt_end;
	if (rt_end) {
		char *e = NULL;
		if (asprintf(&e, "%s%s%s frames: %s", *end ? *end : "", *end ? "; " : "",
			     j->jv ? "Java" : "Python", rt_end) < 0)
			e = NULL;
		if (e) {
			free(*end);
			*end = e;
		}
	}
	free(why);
	t.frames = NULL;
	lt_thread_clear_rt(&t);
	lt_strlist_free(&t.notes);
	*out_n = k;
	return v;
}

static void free_sframes(struct lt_sframe *v, size_t n)
{
	for (size_t i = 0; v && i < n; i++) {
		free(v[i].func);
		free(v[i].module);
		free(v[i].file);
	}
	free(v);
}

/* A new process's CPython runtime, if it runs one (under no lock: the
 * unwinder's; published under mu). */
static void open_python(struct lt_stackrec *r, uint32_t tgid, struct symproc *sp)
{
	/* a process whose runtime was not found is looked at again when its
	 * modules are read again (a module mapped since: a JVM's libjvm.so,
	 * which the java launcher loads after the exec), a few times; the
	 * entry it replaces stays on the list, freed at the end */
	pthread_mutex_lock(&r->mu);
	const struct pyproc *old = lt_u64map_get(&r->pyprocs, tgid);
	int have = old && (old->py || old->oc || old->hs || old->tries >= PY_TRIES);
	int tries = old ? old->tries + 1 : 0;
	pthread_mutex_unlock(&r->mu);
	if (have)
		return;
	struct pyproc *pp = calloc(1, sizeof(*pp));
	if (!pp)
		return;
	pp->tries = tries;
	struct lt_lm_env le;
	struct lt_strlist notes = { 0 };
	lt_lm_env_live(&le, sp->sym, NULL, NULL, NULL);
	lt_mem_init(&pp->mem, (pid_t)tgid);
	pp->e.arg = pp;
	pp->e.read = pyproc_read;
	pp->e.lookup = pyproc_lookup;
	pp->look = &le;
	pp->py = lt_pystk_open(&pp->e, &notes);
	if (!pp->py)
		pp->oc = lt_ocstk_open(&le);
	if (!pp->py && !pp->oc)
		pp->hs = lt_hsstk_open(&pp->e, NULL);
	pp->look = NULL;
	lt_strlist_free(&notes);
	if (!pp->py && !pp->oc && !pp->hs && pp->tries < PY_TRIES) {
		/* a JVM whose libjvm.so the launcher has not loaded yet, or
		 * whose tables are not set up yet: looked at again (unwind_job) */
		char mp[64];
		snprintf(mp, sizeof(mp), "/proc/%u/maps", tgid);
		char *maps = lts_read_all(mp, NULL);
		sp->rt_retry = maps && (strstr(maps, "/libjli.so") || strstr(maps, "/libjvm.so"));
		free(maps);
	}
	pthread_mutex_lock(&r->mu);
	pp->next = r->all_py;
	r->all_py = pp;
	lt_u64map_put(&r->pyprocs, tgid, pp);
	if (pp->py)
		r->st.py_procs++;
	if (r->bpf)
		py_to_bpf(r, tgid, pp);
	if (pp->oc)
		r->st.oc_procs++;
	if (pp->hs)
		r->st.java_procs++;
	pthread_mutex_unlock(&r->mu);
}

/* Unwinds of copies remembered, so that a copy of the same call path is
 * not unwound again: BPF copies (full registers) and the collector's reads
 * of a sleeping thread (sp and ip only; the other registers undefined for
 * the unwind), neither with a runtime's frames.  An unwind is a function
 * of the registers and of the words of the copy it reads (which words it
 * reads depends only on the values read before), so a copy whose
 * registers match a remembered unwind's and whose words match at every
 * word that unwind read unwinds the same.  Two levels: REGS, from the
 * process, ip, whether the registers are full, the copy's length and the
 * callee-saved registers, to the words the last unwinds with those
 * registers read (their indexes, at most UC_MAX_READ; up to UC_VARIANTS
 * lists, as call paths that reach the same wait from different callers
 * read different words: one list alone, rewritten by each, made them
 * miss in turn); then from those words' values to the stack.  Values that point into the copy's stack
 * mapping (saved frame and stack pointers) are taken relative to sp,
 * which differs between threads; code addresses (return addresses) as
 * they are; other values (callee-saved registers' restored from the stack)
 * cannot steer an unwind and are left out.  Unwinds that read writable
 * memory outside the stack's mapping are not remembered, nor those whose
 * end note names an address, nor those that read more than UC_MAX_READ
 * words; reads beyond the copy (which fail) are remembered as how far
 * they went. */
#define UC_WORDS (COPY_BYTES / 8) /* a read's copy is the longest */
#define UC_MAX_READ 64
#define UCACHE_MAX 65536 /* entries of each level, at most (then forgotten) */
#define UC_VARIANTS 8
struct uc_words {
	uint16_t n;              /* words read */
	uint16_t w[UC_MAX_READ]; /* their indexes from sp, ascending */
	uint64_t beyond; /* reads beyond the copy, up to here from sp: they
			  * fail only if the thread's stack mapping has it */
};
struct uc_regs {
	unsigned nv, next;                /* lists held; the next to replace */
	struct uc_words v[UC_VARIANTS];
};

static void uc_forget(struct lt_stackrec *r)
{
	for (size_t i = 0; i < r->uc_regs.cap; i++)
		if (r->uc_regs.keys[i])
			free(r->uc_regs.vals[i]);
	lt_u64map_free(&r->uc_regs);
	lt_u64map_free(&r->ucache);
}

/* A word read by an unwind, as far as it can steer one: a pointer into the
 * stack (relative to sp), a code address (a return address: as is); any
 * other value (a callee-saved register's, restored but never followed) as
 * nothing. */
static uint64_t uc_val(const struct symproc *sp, const struct lt_map *m, uint64_t sp0, uint64_t v)
{
	if (v >= m->start && v < m->end)
		return (v - sp0) ^ 0x5a5a000000000000ull;
	return v >= 4096 && lt_sym_is_code(sp->sym, v) ? v : 0;
}

#define UC_MIX(h, v) ((h) = ((h) ^ (uint64_t)(v)) * 1099511628211ull)

/* The first level's key, 0 when the job's unwind is not to be remembered. */
static uint64_t uc_regs_key(const struct symproc *sp, const struct job *j, const struct lt_map **mp)
{
	if (j->pp || j->oc || j->jv || (j->base & 7) || !j->len || j->len > COPY_BYTES)
		return 0;
	const struct lt_map *m = lt_sym_map_at(sp->sym, j->base);
	if (!m)
		return 0;
	*mp = m;
	uint64_t h = 1469598103934665603ull, sp0 = j->base;
	UC_MIX(h, j->tgid);
	UC_MIX(h, j->regs.r.ip);
	UC_MIX(h, j->len);
	UC_MIX(h, j->regs.full); /* else only sp and ip: the others undefined */
	/* only a pointer into the stack can steer an unwind (a frame's CFA) */
	const uint64_t rv[] = { j->regs.r.bp, j->regs.r.bx, j->regs.r.r12, j->regs.r.r13,
				j->regs.r.r14, j->regs.r.r15 };
	for (size_t i = 0; i < sizeof(rv) / sizeof(*rv); i++)
		UC_MIX(h, rv[i] >= m->start && rv[i] < m->end ? rv[i] - sp0 : 1);
	return h ? h : 1;
}

static uint64_t uc_words_key(const struct symproc *sp, uint64_t rkey, const struct uc_words *u,
			     const struct lt_map *m, const struct job *j)
{
	uint64_t h = rkey;
	for (size_t i = 0; i < u->n; i++) {
		size_t w = u->w[i];
		uint64_t v = 0;
		if (w * 8 < j->len)
			memcpy(&v, j->copy + w * 8, j->len - w * 8 < 8 ? j->len - w * 8 : 8);
		UC_MIX(h, w);
		UC_MIX(h, uc_val(sp, m, j->base, v));
	}
	return h ? h : 1;
}

/* The words set in READ into U's list; false if more than UC_MAX_READ. */
static bool uc_list(struct uc_words *u, const uint64_t *read)
{
	u->n = 0;
	for (size_t i = 0; i < UC_WORDS / 64; i++)
		for (uint64_t b = read[i]; b; b &= b - 1) {
			if (u->n == UC_MAX_READ)
				return false;
			u->w[u->n++] = (uint16_t)(i * 64 + (size_t)__builtin_ctzll(b));
		}
	return true;
}

/* Where in U the word list W goes: the variant with the same words, else
 * a new one, else the oldest one replaced. */
static struct uc_words *uc_variant(struct uc_regs *u, const struct uc_words *w)
{
	for (unsigned i = 0; i < u->nv; i++)
		if (u->v[i].n == w->n && !memcmp(u->v[i].w, w->w, w->n * sizeof(*w->w)))
			return &u->v[i];
	if (u->nv < UC_VARIANTS)
		return &u->v[u->nv++];
	struct uc_words *v = &u->v[u->next];
	u->next = (u->next + 1) % UC_VARIANTS;
	return v;
}

/* The stack id the unwind cache holds for job J's copy, 0 none (under
 * ucmu). */
static uint32_t uc_cached(struct lt_stackrec *r, const struct symproc *sp, const struct job *j)
{
	const struct lt_map *m = NULL;
	uint64_t rkey = uc_regs_key(sp, j, &m);
	const struct uc_regs *known = rkey ? lt_u64map_get(&r->uc_regs, rkey) : NULL;
	for (unsigned i = 0; known && i < known->nv; i++) {
		const struct uc_words *u = &known->v[i];
		if (u->beyond > m->end - j->base)
			continue;
		uint32_t id = (uint32_t)(uintptr_t)lt_u64map_get(&r->ucache,
								  uc_words_key(sp, rkey, u, m, j));
		if (id)
			return id;
	}
	return 0;
}

/* Why an OCaml 5 thread's stack ends at caml_c_call when its OCaml stack
 * is not in the copies (lt_unwind_copies_only; one text for waiters and
 * wakers, whose copies of one call path share an unwind) */
#define OC_NOT_COPIED "the OCaml stack was not copied with the C stack (it has changed since)"

/* Unwinds one job's copy (outside mu, under ucmu); the frames interned
 * under mu. */
static uint32_t unwind_job(struct lt_stackrec *r, struct job *j)
{
	struct symproc *sp = symproc_of(r, j->tgid);
	if (!sp)
		return 0;
	/* a thread started after the process's mappings were read: its stack
	 * is in none of them, and neither the unwinder would read past the
	 * copy nor the unwind cache key it (at most every 100 ms) */
	uint64_t now = boot_now();
	if (j->base && !lt_sym_map_at(sp->sym, j->base) && now - sp->maps_read >= 100000000ull) {
		sp->maps_read = now;
		if (!lt_sym_reread_maps(sp->sym)) {
			pthread_mutex_lock(&r->mu);
			r->st.maps_reread++;
			pthread_mutex_unlock(&r->mu);
		}
	}
	uint32_t hit = uc_cached(r, sp, j);
	if (hit) {
		pthread_mutex_lock(&r->mu);
		r->st.unwinds_cached++;
		pthread_mutex_unlock(&r->mu);
		return hit;
	}
	const struct lt_map *m = NULL;
	uint64_t rkey = uc_regs_key(sp, j, &m);
	struct uc_words reads;
	uint64_t read[UC_WORDS / 64]; /* the words read, a bitmap */
	bool outside = false;
	memset(&reads, 0, sizeof(reads));
	memset(read, 0, sizeof(read));
	if (rkey)
		lt_unwind_track_reads(sp->u, read, &outside, &reads.beyond);
	if (j->kind == J_WAITER)
		lt_sym_note_stack(sp->sym, j->tid, j->base);
	struct lt_frame *frames = NULL;
	size_t n = 0;
	char *end = NULL;
	struct lt_stack_seg oc = { .base = j->oc_base, .data = j->oc, .len = j->oc_len };
	/* an OCaml 5 thread's C stack leads (caml_c_call's CFI) to its OCaml
	 * stack, which has changed since the copy unless copied with it: its
	 * frames then would be of a later moment (a waker's, of the code it
	 * ran on to) */
	const struct pyproc *pp = pyproc_get(r, j->tgid);
	if (pp && pp->oc)
		lt_unwind_copies_only(sp->u, OC_NOT_COPIED);
	int got = lt_unwind_thread_segs(sp->u, (pid_t)j->tid, &j->regs, j->base, j->copy, j->len,
					j->oc ? &oc : NULL, j->oc ? 1 : 0, MAX_DEPTH, &frames, &n, &end);
	lt_unwind_copies_only(sp->u, NULL);
	sp->unwound = 1;
	lt_unwind_track_reads(sp->u, NULL, NULL, NULL);
	struct lt_frame *gof = NULL;
	size_t ngo = 0;
	if (got > 0 && sp->go && lt_gostk_frames(sp->go, frames, n, &gof, &ngo) == 0) {
		/* a Go program's frames, with their lines and inlined calls */
		for (size_t i = 0; i < n; i++)
			lt_frame_clear(&frames[i]);
		free(frames);
		frames = gof;
		n = ngo;
	}
	uint32_t id = 0;
	/* a module mapped since the process's modules were read (dlopen):
	 * read them again for the next stacks, at most once a second */
	/* (sooner while the process's runtime is not found yet: a JVM
	 * launched by the recorder maps libjvm.so after the exec) */
	uint64_t again = sp->rt_retry ? 100000000ull : 1000000000ull;
	int reread = ((end && (strstr(end, "not in any module") || strstr(end, "not in an executable mapping"))) ||
		      sp->rt_retry) &&
		     boot_now() - sp->opened > again;
	if (got > 0) {
		size_t ns = 0;
		struct lt_sframe *sf = merge_frames(r, j, frames, n, &ns, &end);
		if (sf) {
			pthread_mutex_lock(&r->mu);
			id = intern(r, j->tgid, sf, ns, end);
			pthread_mutex_unlock(&r->mu);
		}
		free_sframes(sf, ns);
	}
	if (reread) {
		forget_proc(r, j->tgid);
	} else if (rkey && id && !outside && (!end || !strstr(end, "0x")) && uc_list(&reads, read)) {
		/* not an unwind whose end names an address: that may be one
		 * that was not kept */
		if (r->ucache.n >= UCACHE_MAX || r->uc_regs.n >= UCACHE_MAX)
			uc_forget(r);
		struct uc_regs *u = lt_u64map_get(&r->uc_regs, rkey);
		if (!u && (u = calloc(1, sizeof(*u))) && lt_u64map_put(&r->uc_regs, rkey, u)) {
			free(u);
			u = NULL;
		}
		if (u) {
			struct uc_words *v = uc_variant(u, &reads);
			*v = reads; /* this unwind's words (its beyond the latest) */
			lt_u64map_put(&r->ucache, uc_words_key(sp, rkey, v, m, j),
				      (void *)(uintptr_t)id);
		}
	}
	for (size_t i = 0; i < n; i++)
		lt_frame_clear(&frames[i]);
	free(frames);
	free(end);
	return id;
}

static void *unwinder_main(void *arg)
{
	struct lt_stackrec *r = arg;
	pthread_mutex_lock(&r->mu);
	for (;;) {
		while (!r->head && !r->stop) {
			pthread_cond_broadcast(&r->idle);
			pthread_cond_wait(&r->more, &r->mu);
		}
		if (!r->head)
			break; /* stop, and nothing left */
		struct job *j = r->head;
		r->head = j->next;
		if (!r->head)
			r->tail = NULL;
		r->queued_bytes -= j->len;
		if (j->kind == J_WAITER && j->decided < 0) {
			settle(r, j); /* returned before the copy ended: not unwound */
			continue;
		}
		r->busy = 1;
		pthread_mutex_unlock(&r->mu);

		uint64_t t0 = lt_now_ns(CLOCK_MONOTONIC);
		uint32_t id = 0;
		bool skipped = false, first = false;
		pthread_mutex_lock(&r->ucmu);
		if (j->kind == J_FORGET) {
			forget_exec(r, j->tgid, j->ts);
			pthread_mutex_unlock(&r->ucmu);
		} else if (j->kind == J_OPEN) {
			symproc_of(r, j->tgid);
			pthread_mutex_unlock(&r->ucmu);
		} else if (j->kind == J_WAKER) {
			/* wakers come with every wake-up: a time budget */
			if (t0 - r->budget_start >= 1000000000ull) {
				r->budget_start = t0;
				r->budget_used = 0;
			}
			skipped = r->budget_used >= WAKER_BUDGET_NS;
			struct symproc *sp = lt_u64map_get(&r->procs, j->tgid);
			if (!skipped) {
				/* a process's first unwind reads its modules' CFI
				 * (0.2-0.7 s with no symbol cache): not charged to
				 * the wakers' time, whose second it would spend at
				 * once (the waiters' copies, taken at the return
				 * now, come after the wakers') */
				first = !sp || !sp->unwound;
				id = unwind_job(r, j);
			} else {
				/* out of time, but a call path unwound already
				 * costs a look-up (the budget's second may have
				 * gone on opening the process) */
				id = sp && !sp->broken ? uc_cached(r, sp, j) : 0;
				skipped = !id;
				if (id) {
					pthread_mutex_lock(&r->mu);
					r->st.unwinds_cached++;
					pthread_mutex_unlock(&r->mu);
				}
			}
			pthread_mutex_unlock(&r->ucmu);
		} else {
			id = unwind_job(r, j);
			pthread_mutex_unlock(&r->ucmu);
		}
		uint64_t spent = lt_now_ns(CLOCK_MONOTONIC) - t0;
		if (j->kind == J_WAKER && !first)
			r->budget_used += spent;

		pthread_mutex_lock(&r->mu);
		r->busy = 0;
		r->st.unwind_ns += spent;
		r->st.wakers_busy += skipped;
		free(j->copy); /* the bytes are not needed again */
		j->copy = NULL;
		free(j->oc);
		j->oc = NULL;
		j->stack_id = id;
		j->unwound = 1;
		if (j->kind != J_WAITER || j->decided)
			settle(r, j); /* else the collector settles it */
	}
	pthread_cond_broadcast(&r->idle);
	pthread_mutex_unlock(&r->mu);
	return NULL;
}

/* Waits (under mu) until the unwinder has emptied its queue, or MS pass. */
static void wait_idle(struct lt_stackrec *r, int ms)
{
	struct timespec until;
	clock_gettime(CLOCK_REALTIME, &until);
	until.tv_sec += ms / 1000;
	until.tv_nsec += (long)(ms % 1000) * 1000000L;
	if (until.tv_nsec >= 1000000000L) {
		until.tv_sec++;
		until.tv_nsec -= 1000000000L;
	}
	kick_locked(r);
	while (r->started && (r->head || r->busy))
		if (pthread_cond_timedwait(&r->idle, &r->mu, &until) == ETIMEDOUT)
			break;
}

void lt_stackrec_settle(struct lt_stackrec *r, int ms)
{
	pthread_mutex_lock(&r->mu);
	wait_idle(r, ms);
	pthread_mutex_unlock(&r->mu);
}

void lt_stackrec_finish(struct lt_stackrec *r)
{
	/* the waits still asleep keep the stack copied */
	for (size_t i = 0; i < r->pend.cap; i++) {
		if (!r->pend.keys[i])
			continue;
		struct pend *p = r->pend.vals[i];
		if (p->state == P_COPIED && p->job)
			decide(r, p, 1);
		free_pend(p);
	}
	lt_u64map_free(&r->pend);
	stop_unwinder(r); /* after the queue is empty */
}

int lt_stackrec_write(struct lt_stackrec *r, struct lt_writer *w, int all, uint64_t since)
{
	struct lt_stackbuf b = { 0 };
	pthread_mutex_lock(&r->mu);
	/* that the trace was recorded with --stacks, in its first section
	 * (a flight dump's every one: each is a trace of its own), so that a
	 * reader of a trace whose waits have no stack can tell why */
	if (all || !r->said_recording)
		lt_stacks_put_recording(&b, r->sample_every);
	if (all) {
		/* flight dump: the stacks copied so far, unwound (bounded) */
		wait_idle(r, 2000);
		/* drop what the ring no longer holds first */
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
		/* the waits still asleep: their stacks were copied */
		for (size_t i = 0; i < r->pend.cap; i++) {
			if (!r->pend.keys[i])
				continue;
			const struct pend *p = r->pend.vals[i];
			if (p->state != P_COPIED || !p->job || !p->job->unwound || !p->job->stack_id ||
			    p->ts < since)
				continue;
			struct lt_stack_ref ref = { .tid = p->tid, .ts = p->ts, .stack_id = p->job->stack_id,
						    .role = LT_STACK_WAITER,
						    .delay_ns = p->job->copied - p->ts,
						    .rtlock = p->job->rtlock,
						    .rtlock_name = p->job->rtlock_name };
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
		r->said_recording = 1;
		/* written references are not needed again */
		r->nrefs = r->written_refs = 0;
	}
	if (all && r->nrefs > REFS_KEEP) { /* a ring that never dumps */
		size_t drop = r->nrefs - REFS_KEEP / 2;
		memmove(r->refs, r->refs + drop, (r->nrefs - drop) * sizeof(*r->refs));
		r->nrefs -= drop;
	}
	pthread_mutex_unlock(&r->mu);
	lt_stackbuf_free(&b);
	return ret;
}

void lt_stackrec_note_wcopy(struct lt_stackrec *r, const uint64_t *wcopy)
{
	pthread_mutex_lock(&r->mu);
	memcpy(r->st.wcopy, wcopy, sizeof(r->st.wcopy));
	pthread_mutex_unlock(&r->mu);
}

int lt_stackrec_sample_every(const struct lt_stackrec *r)
{
	return r->sample_every;
}

const struct lt_stackrec_stats *lt_stackrec_stats(struct lt_stackrec *r)
{
	pthread_mutex_lock(&r->mu);
	r->out = r->st;
	pthread_mutex_unlock(&r->mu);
	return &r->out;
}
