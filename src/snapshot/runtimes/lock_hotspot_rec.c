/* Java frames of sleeping JVM threads for the recorder (hs_stack.h): the
 * snapshot's HotSpot reader and walker, opened once per process. */
#include <errno.h>
#include <pthread.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "hs_stack.h"
#include "lock_hotspot.h"
#include "rtthread.h"

#define MAX_THREADS 100000

struct lt_hsstk {
	pthread_mutex_t mu;
	struct jvm j;
	struct lt_strlist notes;   /* the walker's (kept quiet: not shown)     */
	struct lt_u64map tids;     /* tid -> 1 + index in jt, or (void *)-1: none */
	struct jthread *jt;
	size_t n, cap;
	uint64_t list;             /* the ThreadsList read last (a JVM makes a new
	                              one at each thread start and exit)      */
	/* that list was not read whole (read while the JVM replaced it,
	 * or a thread in it not started far enough to have its tid and
	 * stack): a tid not found in it is no proof of a non-Java thread */
	bool partial;
	uint64_t partial_at;       /* when (CLOCK_MONOTONIC ns): read again at
	                              most every PARTIAL_AGAIN_NS */
};

#define PARTIAL_AGAIN_NS 20000000ull

struct lt_hsstk *lt_hsstk_open(const struct lt_lm_env *e, struct lt_strlist *notes)
{
	struct lt_hsstk *h = calloc(1, sizeof(*h));
	if (!h)
		return NULL;
	h->j.e = e;
	h->j.notes = notes ? notes : &h->notes;
	if (hs_jvm_open(&h->j)) {
		lt_strlist_free(&h->notes);
		free(h);
		return NULL;
	}
	if (!h->j.F.ok) { /* a note says why */
		hs_jvm_free(&h->j);
		lt_strlist_free(&h->notes);
		free(h);
		return NULL;
	}
	h->j.notes = &h->notes; /* from here on: the walker's, unshown */
	h->j.mc = hs_mcache_new(); /* NULL: read as the snapshot reads */
	pthread_mutex_init(&h->mu, NULL);
	return h;
}

void lt_hsstk_free(struct lt_hsstk *h)
{
	if (!h)
		return;
	hs_mcache_free(h->j.mc);
	hs_jvm_free(&h->j);
	lt_u64map_free(&h->tids);
	free(h->jt);
	lt_strlist_free(&h->notes);
	pthread_mutex_destroy(&h->mu);
	free(h);
}

/* The Java thread list read again: every tid's JavaThread (under mu). */
static int relist(struct lt_hsstk *h)
{
	const struct lay *L = &h->j.L;
	lt_u64map_free(&h->tids);
	memset(&h->tids, 0, sizeof(h->tids));
	h->n = 0;
	uint64_t list = hs_rd64(&h->j, L->java_thread_list);
	uint32_t len = 0;
	h->list = list;
	h->partial = true;
	struct timespec now;
	clock_gettime(CLOCK_MONOTONIC, &now);
	h->partial_at = (uint64_t)now.tv_sec * 1000000000ull + (uint64_t)now.tv_nsec;
	if (!list || hs_rd(&h->j, list + L->tl_length, &len, 4) || len > MAX_THREADS)
		return 0;
	uint64_t arr = hs_rd64(&h->j, list + L->tl_threads);
	uint64_t *v = calloc(len ? len : 1, 8);
	if (!v)
		return -ENOMEM;
	if (len > h->cap) {
		struct jthread *nt = realloc(h->jt, len * sizeof(*nt));
		if (!nt) {
			free(v);
			return -ENOMEM;
		}
		h->jt = nt;
		h->cap = len;
	}
	bool whole = true;
	if (len && hs_rd(&h->j, arr, v, (size_t)len * 8)) {
		len = 0;
		whole = false;
	}
	for (uint32_t i = 0; i < len; i++) {
		struct jthread *t = &h->jt[h->n];
		if (!v[i] || hs_read_thread(&h->j, v[i], t) || !t->stack_hi) {
			whole = false;
			continue;
		}
		if (lt_u64map_get(&h->tids, (uint32_t)t->tid))
			continue;
		h->n++;
		if (lt_u64map_put(&h->tids, (uint32_t)t->tid, (void *)(uintptr_t)h->n)) {
			free(v);
			return -ENOMEM;
		}
	}
	free(v);
	h->partial = !whole;
	return 0;
}

/* Thread TID's JavaThread (under mu), NULL if it is none. */
static const struct jthread *java_thread(struct lt_hsstk *h, pid_t tid)
{
	/* the list again if the JVM has made a new one (a thread started or
	 * exited: a JavaThread kept may be freed, its tid another's) */
	if (hs_rd64(&h->j, h->j.L.java_thread_list) != h->list && relist(h))
		return NULL;
	uintptr_t k = (uintptr_t)lt_u64map_get(&h->tids, (uint32_t)tid);
	if (!k && h->partial) {
		/* not in a list read in part: read again (a while on) before
		 * taking it for a thread of the VM's own */
		struct timespec now;
		clock_gettime(CLOCK_MONOTONIC, &now);
		uint64_t ns = (uint64_t)now.tv_sec * 1000000000ull + (uint64_t)now.tv_nsec;
		if (ns - h->partial_at >= PARTIAL_AGAIN_NS && relist(h))
			return NULL;
		k = (uintptr_t)lt_u64map_get(&h->tids, (uint32_t)tid);
		if (!k && h->partial)
			return NULL; /* not remembered as none */
	}
	if (k == UINTPTR_MAX)
		return NULL;
	if (!k) {
		lt_u64map_put(&h->tids, (uint32_t)tid, (void *)UINTPTR_MAX);
		return NULL;
	}
	return &h->jt[k - 1];
}

int lt_hsstk_read(struct lt_hsstk *h, pid_t tid, struct lt_rtthread *r, uint64_t *anchor,
		  struct lt_hsstk_lock *lk)
{
	memset(r, 0, sizeof(*r));
	*anchor = 0;
	if (lk) {
		lk->found = 0;
		lk->obj = 0;
		lk->name[0] = 0;
	}
	if (!h || tid <= 0)
		return 0;
	pthread_mutex_lock(&h->mu);
	const struct jthread *jt = java_thread(h, tid);
	h->j.frames_bad = 0;
	int rc = jt ? hs_java_walk(&h->j, jt, r, anchor) : -ENOENT;
	/* the thread's stack no longer where the list said: an exited
	 * thread's tid reused; the list is read again for the next */
	if (rc == -ENOENT && jt && h->j.frames_bad) {
		h->j.frames_bad = 0;
		h->list = 0;
		lt_u64map_del(&h->tids, (uint32_t)tid);
	}
	if (lk && rc == 0 && r->n_frames)
		lk->found = hs_wait_object(&h->j, jt->addr, &lk->obj, lk->name, sizeof(lk->name)) > 0;
	pthread_mutex_unlock(&h->mu);
	if (rc == -ENOMEM)
		return rc;
	return rc == 0 && r->n_frames ? 1 : 0;
}

size_t lt_hsstk_place(struct lt_hsstk *h, struct lt_thread *t, struct lt_rtthread *r, uint64_t anchor)
{
	if (!h || !r->n_frames)
		return 0;
	pthread_mutex_lock(&h->mu);
	hs_java_innermost(&h->j, t, r, anchor);
	pthread_mutex_unlock(&h->mu);
	t->rt_lang = "java";
	t->rt_frames = r->frames;
	t->n_rt_frames = r->n_frames;
	r->frames = NULL;
	r->n_frames = 0;
	size_t inferred = lt_rt_place_pc(t, r->group, r->code.hi ? &r->code : NULL);
	if (r->end && !t->rt_end) {
		t->rt_end = r->end;
		r->end = NULL;
	}
	return inferred;
}
