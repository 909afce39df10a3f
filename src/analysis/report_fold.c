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
#include <inttypes.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>

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

static const struct rp_notify notify_kinds[] = {
	{ "threading.Condition", "Condition.wait()", "notify()", "the holder of its lock" },
	{ "Java monitor (Object.wait)", "Object.wait()", "notify()", "the owner of its monitor" },
	{ "java.util.concurrent Condition (await)", "Condition.await()", "signal()", "the holder of its lock" },
};

/* Is KIND an object whose waiters sleep on words of their own? */
static int own_words(const char *kind)
{
	return !strcmp(kind, "threading.Condition") || !strncmp(kind, "Java monitor", 12) ||
	       !strncmp(kind, "java.util.concurrent ", 21);
}

/* The object a group's waiters wait for (the snapshot's lock_base of a
 * waiter whose lock_kind is such an object), its kind, process and the
 * holder the snapshot read (0 none); 0 if none. */
static uint64_t obj_of(const struct rgroup *g, const char **kind, int32_t *pid, int32_t *owner)
{
	for (size_t i = 0; i < g->n_mem; i++) {
		const struct rp_snap_thread *t = g->mem[i]->snap;
		if (t && t->lock_kind && t->lock_base && own_words(t->lock_kind)) {
			*kind = t->lock_kind;
			*pid = t->pid;
			*owner = t->owner;
			return t->lock_base;
		}
	}
	return 0;
}

const struct rp_notify *rp_notify_of(const struct rgroup *g, uint64_t *obj)
{
	const char *kind = NULL;
	int32_t pid, owner;
	uint64_t o = obj_of(g, &kind, &pid, &owner);
	if (obj)
		*obj = o;
	if (!o)
		return NULL;
	for (size_t k = 0; k < sizeof(notify_kinds) / sizeof(notify_kinds[0]); k++)
		if (!strcmp(kind, notify_kinds[k].kind))
			return &notify_kinds[k];
	return NULL;
}

/* Is x's longest waiter at the end older than y's (0: since before the
 * trace, the oldest)? */
static int older(const struct rgroup *x, const struct rgroup *y)
{
	return !x->end_oldest ? y->end_oldest != 0 : y->end_oldest && x->end_oldest < y->end_oldest;
}

void rp_fold_conditions(struct lt_report *r)
{
	struct lt_report_priv *p = P(r);
	if (!p->have_snap)
		return;
	for (size_t i = 0; i < p->ngr; i++) {
		struct rgroup *g = p->gr[i];
		int32_t pid = 0, lpid = 0, owner = 0, lowner = 0;
		const char *kind = NULL, *lkind = NULL;
		uint64_t obj;
		if (!g->n_end_asleep || g->in_cycle || g->folded_into || !(obj = obj_of(g, &kind, &pid, &owner)))
			continue;
		/* one object, one process, one holder read: one finding */
		struct rgroup *lead = NULL;
		for (size_t j = 0; j < i && !lead; j++) {
			struct rgroup *o = p->gr[j];
			if (o->cond_obj == obj && !o->cond_into && obj_of(o, &lkind, &lpid, &lowner) == obj &&
			    lpid == pid && lowner == owner && !strcmp(lkind, kind))
				lead = o;
		}
		if (!lead) {
			g->cond_obj = obj;
			g->cond_n_end = g->n_end;
		} else if (older(g, lead)) {
			/* the finding speaks from its oldest waiter (its rules
			 * look at their group's times) */
			for (size_t j = 0; j < i; j++)
				if (p->gr[j]->cond_into == lead)
					p->gr[j]->cond_into = g;
			g->cond_obj = obj;
			g->cond_n_end = lead->cond_n_end + g->n_end;
			lead->cond_into = g;
			lead->cond_obj = 0;
			lead->cond_n_end = 0;
		} else {
			g->cond_into = lead;
			lead->cond_n_end += g->n_end;
		}
	}
}

void rp_cond_fold_ev(struct lt_report *r, struct lt_report_finding *f, const struct rgroup *g)
{
	struct lt_report_priv *p = P(r);
	char list[2048], gn[RP_GNAME_LEN];
	size_t n = 0, more = 0;
	if (!g->cond_obj || g->cond_n_end <= g->n_end)
		return;
	list[0] = 0;
	for (size_t i = 0; i < p->ngr; i++) {
		const struct rgroup *o = p->gr[i];
		if (o->cond_into != g)
			continue;
		rp_f_group(f, o);
		for (size_t k = 0; k < o->n_mem; k++) {
			const struct rthread *t = o->mem[k];
			if (!rp_is_lock_waiter(t))
				continue;
			rp_f_tid(f, t->pub.tid);
			more++;
			/* each entry whole, or "; ..." for the rest */
			char one[RP_GNAME_LEN + 16];
			size_t k1 = (size_t)snprintf(one, sizeof(one), "%s%u on %s", n ? "; " : "", t->pub.tid,
						     rp_gname(o, gn, sizeof(gn)));
			if (n + k1 + 8 < sizeof(list)) {
				memcpy(list + n, one, k1 + 1);
				n += k1;
			} else if (n + 8 < sizeof(list) && !strstr(list, "; ...")) {
				n += (size_t)snprintf(list + n, sizeof(list) - n, "; ...");
			}
		}
	}
	const struct rp_notify *nk = rp_notify_of(g, NULL);
	if (nk && !strcmp(nk->kind, "threading.Condition"))
		rp_f_ev(f, "the same threading.Condition (0x%" PRIx64 ") has %zu more waiter%s in "
			"Condition.wait(), each asleep on a waiter lock of its own: %s", g->cond_obj, more,
			more == 1 ? "" : "s", list);
	else
		rp_f_ev(f, "the same %s %s has %zu more waiter%s%s%s, each asleep on a word of its own: %s",
			g->rt_kind[0] ? g->rt_kind : "object", g->rt_name[0] ? g->rt_name : "?", more,
			more == 1 ? "" : "s", nk ? " in " : "", nk ? nk->wait_call : "", list);
}
