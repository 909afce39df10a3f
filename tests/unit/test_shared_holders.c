/* Process-shared futexes on synthetic snapshots, no root needed:
 *  - the threads listed as possible holders of a shared lock that records
 *    no holder (a sem_t in MAP_SHARED memory) are those of the waiter's
 *    process and of the processes mapping the lock's object, never those
 *    of another process of the view (a file lock's holders, followed
 *    there) that does not map it; when who maps it is not known, nobody
 *    is left out;
 *  - a process-shared pthread mutex whose __owner names no thread at all
 *    (the snapshot found /proc/TID absent, owner_exited) is said held by
 *    that exited thread, never to be released, with the inference marked;
 *  - both facts survive the snapshot's JSON (a trace's stored snapshot). */
#include <criterion/criterion.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "snapshot.h"
#include "lt_test.h"

#define PW 100 /* the waiter's process: sem_wait */
#define TW 101
#define PP 200 /* its child, mapping the semaphore: blocked in flock() */
#define TP 201
#define PF 300 /* the file lock's holder: maps nothing of it, in wait4() */
#define TF 301
#define SEM 0x7f0000001000ull

static struct lt_snapshot *proc(pid_t pid, const char *comm)
{
	return tl_snapshot_in_call(pid, comm);
}

/* futex(SEM, FUTEX_WAIT_BITSET (shared), expected) on WORD */
static void shared_wait(struct lt_thread *t, uint32_t word)
{
	t->sc.nr = 202;
	t->sc.args[0] = SEM;
	t->sc.args[1] = 9;
	t->sc.args[2] = word;
	t->sc_name = "futex";
	t->wait = LT_WAIT_FUTEX;
	lt_futex_decode_args(&t->futex, t->sc.args);
	t->futex.word_ok = true;
	t->futex.word = word;
	t->futex.owner_kind = LT_OWNER_NONE;
	t->futex.shared_obj = true;
	t->futex.obj_minor = 1;
	t->futex.obj_ino = 49887;
	t->futex.obj_off = 0;
}

/* The waiter on the semaphore; MAPPERS: the other processes mapping it
 * as the snapshot found them (-1: the pids not known, as in a snapshot
 * stored before they were). */
static struct lt_snapshot *sem_waiter(int mappers)
{
	struct lt_snapshot *s = proc(PW, "shsem");
	struct lt_thread *t = &s->threads[0];
	shared_wait(t, 0);
	t->futex.lock_kind = "semaphore";
	t->acquire = "sem_wait";
	t->futex.obj_mappers_known = true;
	t->futex.obj_mappers = 1;
	t->futex.obj_mapper[0] = PP;
	t->futex.obj_mapper_pids = mappers >= 0;
	return s;
}

static struct lt_snapshot *blocked(pid_t pid, const char *comm, long nr, const char *call)
{
	struct lt_snapshot *s = proc(pid, comm);
	struct lt_thread *t = &s->threads[0];
	t->sc.nr = nr;
	t->sc_name = call;
	t->wait = lt_syscall_wait_kind(nr);
	return s;
}

static struct lt_multi_snapshot *build3(struct lt_snapshot *a, struct lt_snapshot *b, struct lt_snapshot *c)
{
	struct lt_snapshot **v = calloc(3, sizeof(*v));
	cr_assert_not_null(v);
	v[0] = a;
	v[1] = b;
	v[2] = c;
	struct lt_multi_snapshot *m = NULL;
	cr_assert_eq(lt_multi_build(v, 3, NULL, &m), 0);
	return m;
}

static const struct lt_verdict *verdict_of(const struct lt_snapshot *s, pid_t tid)
{
	for (size_t i = 0; i < s->n_verdicts; i++)
		for (size_t k = 0; k < s->verdicts[i].n_tids; k++)
			if (s->verdicts[i].tids[k] == tid)
				return &s->verdicts[i];
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

static void dump(const struct lt_verdict *v)
{
	fprintf(stderr, "%s\n", v->summary);
	for (size_t e = 0; e < v->evidence.n; e++)
		fprintf(stderr, "  - %s\n", v->evidence.v[e]);
}

/* The sweep's shsem sem: the child that would post the semaphore is a
 * candidate, the flock holder (followed through the child's file lock
 * wait) is not, and the evidence says why it was left out. */
Test(shared_holders, only_processes_mapping_the_object_are_candidates)
{
	struct lt_multi_snapshot *m = build3(sem_waiter(1), blocked(PP, "shsem", 73, "flock"),
					     blocked(PF, "flock", 61, "wait4"));
	const struct lt_verdict *v = verdict_of(&m->view, TW);
	dump(v);
	cr_assert_eq(v->kind, LT_VERDICT_LOCK_WAIT, "%s", v->summary);
	cr_assert_eq(v->owner, 0, "%s", v->summary);
	cr_assert(evidence_has(v, "thread 201 (shsem), "), "the child mapping it is a candidate");
	cr_assert(!evidence_has(v, "thread 301 (flock)"), "the flock holder maps nothing of the semaphore");
	cr_assert(evidence_has(v, "a thread of another process that maps its object may hold it instead "
			       "(process 200)"));
	cr_assert(evidence_has(v, "the threads of process 300 are left out: they did not map the lock's "
			       "object when the snapshot was taken"));
	lt_multi_free(m);
}

/* Who maps it not known (a snapshot stored without the pids): nobody is
 * left out, nor is a process said to map it. */
Test(shared_holders, mappers_not_known_leave_nobody_out)
{
	struct lt_multi_snapshot *m = build3(sem_waiter(-1), blocked(PP, "shsem", 73, "flock"),
					     blocked(PF, "flock", 61, "wait4"));
	const struct lt_verdict *v = verdict_of(&m->view, TW);
	dump(v);
	cr_assert(evidence_has(v, "thread 201 (shsem), "));
	cr_assert(evidence_has(v, "thread 301 (flock), "));
	cr_assert(evidence_has(v, "the lock is not private, so a thread of another process may hold it instead"));
	cr_assert(!evidence_has(v, "left out"));
	lt_multi_free(m);
}

/* A private lock in a view of several processes: only its own process's
 * threads can hold it. */
Test(shared_holders, a_private_lock_lists_only_its_own_process)
{
	struct lt_snapshot *w = proc(PW, "prog");
	struct lt_thread *t = &w->threads[0];
	shared_wait(t, 0);
	t->sc.args[1] = 0x80 | 9; /* FUTEX_WAIT_BITSET_PRIVATE */
	lt_futex_decode_args(&t->futex, t->sc.args);
	t->futex.shared_obj = false;
	t->futex.lock_kind = "semaphore";
	t->acquire = "sem_wait";
	cr_assert(t->futex.private_);
	struct lt_multi_snapshot *m = build3(w, blocked(PP, "other", 73, "flock"),
					     blocked(PF, "flock", 61, "wait4"));
	const struct lt_verdict *v = verdict_of(&m->view, TW);
	dump(v);
	cr_assert(!evidence_has(v, "thread 201 (other)"));
	cr_assert(!evidence_has(v, "thread 301 (flock)"));
	lt_multi_free(m);
}

/* The sweep's dead: a PTHREAD_PROCESS_SHARED mutex, word 2, __owner 5956
 * that no thread has (owner_exited), __kind 128 (pshared, not robust). */
static struct lt_snapshot *dead_waiter(bool exited)
{
	struct lt_snapshot *s = proc(PW, "dead");
	struct lt_thread *t = &s->threads[0];
	shared_wait(t, 2);
	t->sc.args[1] = 0; /* FUTEX_WAIT, shared */
	lt_futex_decode_args(&t->futex, t->sc.args);
	t->futex.lock_kind = "pthread mutex";
	t->acquire = "pthread_mutex_lock";
	t->futex.mutex_ok = true;
	t->futex.mutex_owner = 5956;
	t->futex.mutex_kind = 128;
	t->futex.obj_mappers_known = true;
	t->futex.obj_mapper_pids = true;
	t->futex.owner_exited = exited;
	return s;
}

Test(shared_holders, an_exited_owner_is_said_held_by_it_for_ever)
{
	struct lt_snapshot *s = dead_waiter(true);
	cr_assert_eq(lt_snapshot_diagnose(s, NULL), 0);
	const struct lt_verdict *v = verdict_of(s, TW);
	dump(v);
	cr_assert_eq(v->kind, LT_VERDICT_LOCK_WAIT);
	cr_assert(strstr(v->summary, "held by thread 5956, which has exited (no such thread): it will never be "
			 "released (unless robust: EOWNERDEAD)"), "%s", v->summary);
	cr_assert(!strstr(v->summary, "not recorded"), "%s", v->summary);
	cr_assert(evidence_has(v, "/proc/5956 did not exist when the snapshot read the lock"));
	cr_assert(evidence_has(v, "inferred: its owner exited while holding the lock"));
	cr_assert(evidence_has(v, "the mutex is not robust"));
	lt_snapshot_free(s);
}

/* Its /proc/TID not known absent (another pid namespace, or an older
 * snapshot): not said to have exited, the old wording stays. */
Test(shared_holders, an_owner_not_known_absent_is_not_said_exited)
{
	struct lt_snapshot *s = dead_waiter(false);
	cr_assert_eq(lt_snapshot_diagnose(s, NULL), 0);
	const struct lt_verdict *v = verdict_of(s, TW);
	dump(v);
	cr_assert(strstr(v->summary, "whose holder is not recorded (its recorded owner 5956 is no longer a "
			 "thread of this process)"), "%s", v->summary);
	cr_assert(!strstr(v->summary, "exited"), "%s", v->summary);
	cr_assert(evidence_has(v, "probably exited"));
	lt_snapshot_free(s);
}

/* owner_exited and the mappers' pids are stored with the snapshot and
 * read back, so a trace's stored snapshot says the same. */
Test(shared_holders, json_keeps_owner_exited_and_mapper_pids)
{
	struct lt_snapshot *s = dead_waiter(true);
	s->threads[0].futex.obj_mappers = 2;
	s->threads[0].futex.obj_mapper[0] = 4242;
	s->threads[0].futex.obj_mapper[1] = 4343;
	char *buf = NULL, err[200];
	size_t len = 0;
	cr_assert_eq(lt_snapshot_to_json_buf(s, &buf, &len), 0);
	cr_assert(strstr(buf, "\"owner_exited\""), "%s", buf);
	struct lt_snapshot *r = NULL;
	cr_assert_eq(lt_snapshot_from_json(buf, len, &r, err, sizeof(err)), 0, "%s", err);
	const struct lt_futex *f = &lt_snapshot_find(r, TW)->futex;
	cr_assert(f->owner_exited);
	cr_assert(f->obj_mapper_pids);
	cr_assert_eq(f->obj_mappers, 2);
	cr_assert_eq(f->obj_mapper[0], 4242);
	cr_assert_eq(f->obj_mapper[1], 4343);
	/* a snapshot written before the pids were stored: not known */
	char *old = strstr(buf, "\"mapper_pids\"");
	cr_assert_not_null(old);
	memcpy(old, "\"mapper_pidz\"", 13);
	struct lt_snapshot *o = NULL;
	cr_assert_eq(lt_snapshot_from_json(buf, len, &o, err, sizeof(err)), 0, "%s", err);
	cr_assert(!lt_snapshot_find(o, TW)->futex.obj_mapper_pids);
	lt_snapshot_free(o);
	lt_snapshot_free(r);
	free(buf);
	lt_snapshot_free(s);
}
