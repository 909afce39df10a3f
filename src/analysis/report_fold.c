/* A runtime lock's internal futex words folded into the runtime lock.
 *
 * CPython's GIL is a struct with a mutex and condition variables of its
 * own: its waiters sleep on one word (the condvar), and every hand-off
 * also passes the struct's mutex, whose short waits look like a convoy of
 * their own.  The snapshot's lock models give each runtime lock's extent
 * (runtime_locks: base, size); a group whose word lies inside the extent
 * of a runtime lock that another group of the same address space is
 * (rt_kind, from the snapshot) is one of its internal words: no finding
 * of its own, the runtime lock's finding lists it ("part of the same
 * object", report_find.c). */
#include <stdint.h>

#include "lockid.h"
#include "report_model.h"

/* The address of a key in a process's private memory, and its space
 * (0 the trace's process, 1 + index another); -1 for a shared key. */
static int64_t key_addr(uint64_t k, uint64_t *addr)
{
	if (!(k & LT_LOCKKEY_ENC)) {
		*addr = k;
		return 0;
	}
	if (k & LT_LOCKKEY_SHARED)
		return -1;
	*addr = k & LT_LOCKKEY_ADDR_MASK;
	return 1 + (int64_t)((k >> LT_LOCKKEY_ADDR_BITS) & LT_LOCKKEY_MAX_INDEX);
}

static int inside(const struct rp_snap_rtrange *x, uint64_t a)
{
	return a >= x->base && a - x->base < x->size;
}

void rp_fold_rtlock_words(struct lt_report *r)
{
	struct lt_report_priv *p = P(r);
	if (!p->have_snap)
		return;
	for (size_t i = 0; i < p->ngr; i++) {
		const struct rgroup *g = p->gr[i];
		uint64_t ga;
		int64_t gs = key_addr(g->pub.addr, &ga);
		if (!g->rt_kind[0] || gs < 0)
			continue;
		for (size_t k = 0; k < p->snap.n_rtranges; k++) {
			const struct rp_snap_rtrange *x = &p->snap.rtranges[k];
			if (!inside(x, ga))
				continue;
			for (size_t j = 0; j < p->ngr; j++) {
				struct rgroup *o = p->gr[j];
				uint64_t oa;
				if (o == g || o->rt_kind[0] || o->folded_into || o->in_cycle ||
				    key_addr(o->pub.addr, &oa) != gs || !inside(x, oa))
					continue;
				o->folded_into = g;
			}
		}
	}
}
