/* The holder of a multiprocessing lock read from the _multiprocessing
 * .SemLock objects of the processes mapping its semaphore (semlock.c), on
 * synthetic snapshots diagnosed together (lt_multi_build): one SemLock
 * with count 1 names its last acquirer, in another process than the
 * waiter; its thread gone says so; two claims, a count below 0 or a
 * counting semaphore name nobody.  No root needed. */
#include <criterion/criterion.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "snapshot.h"
#include "lt_test.h"

#define PW 100  /* the waiter's process */
#define TW 101
#define PH 200  /* the holder's */
#define TH 201
#define PX 300  /* a third one mapping it */
#define TX 301
#define SEM_W 0x7f0000001000ull /* the sem_t in the waiter's mapping */
#define SEM_H 0x7f5500002000ull /* in the holder's */
#define SEM_X 0x7f7700003000ull

static struct lt_snapshot *proc(pid_t pid, const char *comm)
{
	return tl_snapshot_in_call(pid, comm);
}

/* A thread asleep in sem_wait on the semaphore (object 0:5 inode 77, at
 * offset 0x40 of it), mapped at SEM in its process. */
static struct lt_snapshot *waiter(void)
{
	struct lt_snapshot *s = proc(PW, "waiter");
	struct lt_thread *t = &s->threads[0];
	t->sc.nr = 202;
	t->sc.args[0] = SEM_W;
	t->sc.args[1] = 9; /* FUTEX_WAIT_BITSET, shared */
	t->sc_name = "futex";
	t->wait = LT_WAIT_FUTEX;
	lt_futex_decode_args(&t->futex, t->sc.args);
	t->futex.word_ok = true;
	t->futex.word = 0;
	t->futex.owner_kind = LT_OWNER_NONE;
	t->futex.lock_kind = "semaphore";
	t->futex.shared_obj = true;
	t->futex.obj_minor = 5;
	t->futex.obj_ino = 77;
	t->futex.obj_off = 0x40;
	t->acquire = "sem_wait";
	return s;
}

/* A thread blocked in read(), and a SemLock of its process over the
 * semaphore: COUNT, last acquirer LAST_TID (thread TID, 0 none). */
static struct lt_snapshot *keeper(pid_t pid, const char *comm, uint64_t sem, int count, int maxvalue, int kind,
				  pid_t tid)
{
	struct lt_snapshot *s = proc(pid, comm);
	struct lt_thread *t = &s->threads[0];
	t->sc.nr = 0;
	t->sc_name = "read";
	t->wait = LT_WAIT_IO;
	t->fdw.io.fd = 5;
	s->semlocks = calloc(1, sizeof(*s->semlocks));
	s->n_semlocks = 1;
	s->semlocks[0] = (struct lt_semlock){ .obj = 0x7f9900000010ull + (uint64_t)pid, .handle = sem,
					      .last_tid = 0x7f00aa000000ull + (uint64_t)pid, .count = count,
					      .maxvalue = maxvalue, .kind = kind, .tid = tid,
					      .where = strdup("'lock'._semlock of hold (x.py:9) in thread 1"),
					      .shared = true, .obj_minor = 5, .obj_ino = 77, .obj_off = 0x40 };
	return s;
}

static struct lt_multi_snapshot *build(struct lt_snapshot *a, struct lt_snapshot *b, struct lt_snapshot *c)
{
	struct lt_snapshot **v = calloc(3, sizeof(*v));
	size_t n = 0;
	v[n++] = a;
	v[n++] = b;
	if (c)
		v[n++] = c;
	struct lt_multi_snapshot *m = NULL;
	cr_assert_eq(lt_multi_build(v, n, NULL, &m), 0);
	return m;
}

static const struct lt_verdict *verdict_of(const struct lt_multi_snapshot *m, pid_t tid)
{
	for (size_t i = 0; i < m->view.n_verdicts; i++)
		for (size_t k = 0; k < m->view.verdicts[i].n_tids; k++)
			if (m->view.verdicts[i].tids[k] == tid)
				return &m->view.verdicts[i];
	cr_assert_fail("no verdict names %d", (int)tid);
	return NULL;
}

static bool evidence_has(const struct lt_verdict *v, const char *s)
{
	for (size_t e = 0; e < v->evidence.n; e++)
		if (strstr(v->evidence.v[e], s))
			return true;
	return false;
}

Test(semlock, one_count_names_the_holder_of_another_process)
{
	struct lt_multi_snapshot *m = build(waiter(), keeper(PH, "holder", SEM_H, 1, 1, 1, TH), NULL);
	const struct lt_verdict *v = verdict_of(m, TW);
	cr_assert_eq(v->kind, LT_VERDICT_LOCK_WAIT, "%s", v->summary);
	cr_assert_eq(v->owner, TH, "%s", v->summary);
	cr_assert(strstr(v->summary, "held by thread 201 (holder) of process 200 (its multiprocessing SemLock's "
			 "count and last acquirer, read from memory), which has been blocked in read"), "%s",
		  v->summary);
	cr_assert(v->owner_source && strstr(v->owner_source, "read from memory"));
	cr_assert(evidence_has(v, "process 200's _multiprocessing.SemLock"), "%s", v->summary);
	cr_assert(evidence_has(v, "records count 1 and last_tid 0x7f00aa0000c8"), "%s", v->summary);
	/* the process's own copy of the thread is not changed */
	cr_assert_eq(m->procs[0]->threads[0].futex.owner, 0);
	lt_multi_free(m);
}

Test(semlock, an_rlock_recursion_names_its_owner)
{
	struct lt_multi_snapshot *m = build(waiter(), keeper(PH, "holder", SEM_H, 3, 1, 0, TH), NULL);
	cr_assert_eq(verdict_of(m, TW)->owner, TH, "%s", verdict_of(m, TW)->summary);
	lt_multi_free(m);
}

Test(semlock, the_holder_thread_gone_is_said_gone)
{
	struct lt_multi_snapshot *m = build(waiter(), keeper(PH, "holder", SEM_H, 1, 1, 1, 0), NULL);
	const struct lt_verdict *v = verdict_of(m, TW);
	cr_assert_eq(v->kind, LT_VERDICT_LOCK_WAIT, "%s", v->summary);
	cr_assert_eq(v->owner, 0, "%s", v->summary);
	cr_assert(strstr(v->summary, "held by no live thread: its holder, the last acquirer process 200's "
			 "multiprocessing SemLock records (pthread 0x7f00aa0000c8), is no thread of process 200"),
		  "%s", v->summary);
	cr_assert(evidence_has(v, "holder gone, read from memory"), "%s", v->summary);
	lt_multi_free(m);
}

/* no holder named from the counts, which are said in the lock's state */
static void none_named(struct lt_multi_snapshot *m, const char *why)
{
	const struct lt_verdict *v = verdict_of(m, TW);
	cr_assert_eq(v->owner, 0, "%s", v->summary);
	cr_assert(!strstr(v->summary, "read from memory") && !strstr(v->summary, "no live thread"), "%s",
		  v->summary);
	cr_assert(evidence_has(v, "_multiprocessing.SemLocks over it with acquisitions not released"), "%s",
		  v->summary);
	cr_assert(evidence_has(v, why), "want '%s' in the evidence of %s", why, v->summary);
	lt_multi_free(m);
}

Test(semlock, two_claims_name_nobody)
{
	none_named(build(waiter(), keeper(PH, "holder", SEM_H, 1, 1, 1, TH), keeper(PX, "other", SEM_X, 1, 1, 1, TX)),
		   "no one holder named");
}

Test(semlock, a_count_below_zero_names_nobody)
{
	none_named(build(waiter(), keeper(PH, "holder", SEM_H, 1, 1, 1, TH), keeper(PX, "other", SEM_X, -1, 1, 1, TX)),
		   "released more than it acquired");
}

Test(semlock, a_counting_semaphore_names_nobody)
{
	none_named(build(waiter(), keeper(PH, "holder", SEM_H, 1, 2147483647, 1, TH), NULL),
		   "a counting semaphore's permits");
}

Test(semlock, another_semaphore_is_not_this_one)
{
	struct lt_snapshot *h = keeper(PH, "holder", SEM_H, 1, 1, 1, TH);
	h->semlocks[0].obj_off = 0x80; /* another sem_t in the same file */
	struct lt_multi_snapshot *m = build(waiter(), h, NULL);
	const struct lt_verdict *v = verdict_of(m, TW);
	cr_assert_eq(v->owner, 0, "%s", v->summary);
	cr_assert(strstr(v->summary, "holder is not recorded"), "%s", v->summary);
	lt_multi_free(m);
}
