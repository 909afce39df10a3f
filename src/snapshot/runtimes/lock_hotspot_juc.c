/* java.util.concurrent locks in the HotSpot model (lock_hotspot.c).
 *
 * A thread blocked in LockSupport.park() is parked on its own Parker (a
 * condition variable): nothing in the futex names the lock.  The Java
 * side does: LockSupport.park(blocker) stores the blocker in the thread's
 * java.lang.Thread.parkBlocker, and for an AbstractQueuedSynchronizer
 * (ReentrantLock's Sync, ReentrantReadWriteLock's Sync in write mode, ...)
 * the inherited AbstractOwnableSynchronizer.exclusiveOwnerThread is the
 * java.lang.Thread holding it, which is a JavaThread's _threadObj.  Field
 * offsets come from the classes' own field tables, as for thread names.
 * A blocker without that field (a Condition's ConditionObject, a
 * CountDownLatch's Sync has it but leaves it null) names no holder here; a
 * ConditionObject's await() is a wait for a signal(), whose other end is
 * its lock's holder (hs_juc_awaits, below).
 *
 * As with monitors, every value is read twice: a blocker or owner that
 * changed between the reads is not used (the JVM runs on while read). */
#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "budget.h"
#include "lock_hotspot.h"
#include "snapshot_int.h"

static const char KIND[] = "java.util.concurrent lock";

/* A CountDownLatch's or a Semaphore's Sync: no thread holds either (their
 * exclusiveOwnerThread stays null) and any thread may count one down or
 * release a permit: their waits are not claimed as a lock's (hs_juc_locks)
 * but named as waits for another thread (hs_juc_parties). */
static bool no_owner_sync(const char *cls)
{
	return !strcmp(cls, "java.util.concurrent.CountDownLatch$Sync") ||
	       !strcmp(cls, "java.util.concurrent.Semaphore$NonfairSync") ||
	       !strcmp(cls, "java.util.concurrent.Semaphore$FairSync");
}

/* The JavaThread whose java.lang.Thread is OBJ. */
static const struct jthread *thread_of_obj(struct jvm *j, uint64_t obj)
{
	for (size_t i = 0; obj && i < j->n; i++)
		if (hs_thread_obj(j, j->t[i].addr) == obj)
			return &j->t[i];
	return NULL;
}

/* The live JavaThread whose java.lang.Thread is OBJ, by the object's
 * Thread.eetop (the JavaThread's address, while it lives) and the JVM's
 * list, checked back (the JavaThread's _threadObj is OBJ): a few reads,
 * not one per thread; OBJ is no Thread (no such field), NULL.  Where the
 * class's tables do not give the field, each thread is asked. */
static const struct jthread *thread_of_thread_obj(struct jvm *j, uint64_t obj)
{
	uint64_t k = obj ? hs_klass_of(j, obj) : 0;
	uint64_t off = k ? hs_field_offset(j, k, "eetop", "J") : UINT64_MAX;
	if (off == UINT64_MAX) /* a subclass of Thread has the field too */
		return k && hs_field_offset(j, k, "parkBlocker", "Ljava/lang/Object;") != UINT64_MAX
		       ? thread_of_obj(j, obj) : NULL;
	uint64_t jt = hs_rd64(j, obj + off);
	uintptr_t at = jt ? (uintptr_t)lt_u64map_get(&j->by_addr, jt) : 0;
	const struct jthread *t = at ? &j->t[at - 1] : NULL;
	return t && hs_thread_obj(j, t->addr) == obj ? t : NULL;
}

/* The parkBlocker of the JavaThread at JT into *BLOCKER (0: none); false
 * when its java.lang.Thread has no such field. */
static bool park_blocker(struct jvm *j, uint64_t jt, uint64_t *blocker)
{
	uint64_t obj = hs_thread_obj(j, jt);
	uint64_t k = hs_klass_of(j, obj);
	uint64_t pb = k ? hs_field_offset(j, k, "parkBlocker", "Ljava/lang/Object;") : UINT64_MAX;
	if (pb == UINT64_MAX)
		return false;
	*blocker = hs_oop_field(j, obj, pb);
	return true;
}

/* The offset of exclusiveOwnerThread in a blocker of class BK (an ownable
 * synchronizer), UINT64_MAX when the class has none (or BK is 0). */
static uint64_t owner_offset(struct jvm *j, uint64_t bk)
{
	return bk ? hs_field_offset(j, bk, "exclusiveOwnerThread", "Ljava/lang/Thread;") : UINT64_MAX;
}

/* The exclusiveOwnerThread of the ownable synchronizer OBJ (0: none);
 * false when OBJ's class has no such field. */
static bool owner_of(struct jvm *j, uint64_t obj, uint64_t *owner)
{
	uint64_t eo = owner_offset(j, hs_klass_of(j, obj));
	if (eo == UINT64_MAX)
		return false;
	*owner = hs_oop_field(j, obj, eo);
	return true;
}

/* The AbstractQueuedSynchronizer state of synchronizer OBJ (a
 * CountDownLatch's count, a ReentrantReadWriteLock's holds), read twice;
 * -1 when not read or changing. */
static int32_t sync_state(struct jvm *j, uint64_t obj)
{
	uint64_t k = hs_klass_of(j, obj);
	uint64_t off = k ? hs_field_offset(j, k, "state", "I") : UINT64_MAX;
	int32_t a = -1, b = -2;
	if (off == UINT64_MAX || hs_rd(j, obj + off, &a, 4) || hs_rd(j, obj + off, &b, 4) || a != b || a < 0)
		return -1;
	return a;
}

/* An int (4) or long (8) field NAME of OBJ, read twice; false when OBJ's
 * class has none, the read failed or the value changed between reads. */
static bool num_field(struct jvm *j, uint64_t obj, const char *name, bool wide, int64_t *val)
{
	uint64_t k = obj ? hs_klass_of(j, obj) : 0;
	uint64_t off = k ? hs_field_offset(j, k, name, wide ? "J" : "I") : UINT64_MAX;
	int64_t a = 0, b = 1;
	int32_t a4 = 0, b4 = 1;
	if (off == UINT64_MAX)
		return false;
	if (wide ? (hs_rd(j, obj + off, &a, 8) || hs_rd(j, obj + off, &b, 8))
		 : (hs_rd(j, obj + off, &a4, 4) || hs_rd(j, obj + off, &b4, 4)))
		return false;
	if (!wide) {
		a = a4;
		b = b4;
	}
	*val = a;
	return a == b;
}

/* The live Java thread whose java.lang.Thread's tid (Thread.getId(), what
 * a HoldCounter records) is ID. */
static const struct jthread *thread_of_id(struct jvm *j, int64_t id)
{
	for (size_t i = 0; id > 0 && i < j->n; i++) {
		int64_t v = 0;
		if (num_field(j, hs_thread_obj(j, j->t[i].addr), "tid", true, &v) && v == id)
			return &j->t[i];
	}
	return NULL;
}

#define MAX_TL_TABLE 4096 /* ThreadLocalMap entries read per thread */
#define READERS_NAMED 6

/* Thread T's read holds of the lock whose ThreadLocal readHolds is RH:
 * the HoldCounter its java.lang.Thread.threadLocals map holds under that
 * key (ThreadLocalMap.table, Entry: Reference.referent the key, value the
 * counter); 0 none, -1 not readable. */
static int64_t tl_holds(struct jvm *j, const struct jthread *t, uint64_t rh)
{
	uint64_t obj = hs_thread_obj(j, t->addr), tk = obj ? hs_klass_of(j, obj) : 0;
	uint64_t off = tk ? hs_field_offset(j, tk, "threadLocals", "Ljava/lang/ThreadLocal$ThreadLocalMap;")
			  : UINT64_MAX;
	if (off == UINT64_MAX)
		return -1;
	uint64_t map = hs_oop_field(j, obj, off);
	if (!map)
		return 0;
	uint64_t mk = hs_klass_of(j, map);
	uint64_t toff = mk ? hs_field_offset(j, mk, "table", "[Ljava/lang/ThreadLocal$ThreadLocalMap$Entry;")
			   : UINT64_MAX;
	uint64_t tab = toff != UINT64_MAX ? hs_oop_field(j, map, toff) : 0;
	int32_t n = 0;
	if (!tab || hs_rd(j, tab + j->L.arr_length, &n, 4) || n < 0 || n > MAX_TL_TABLE)
		return -1;
	uint64_t esz = j->L.coops ? 4 : 8;
	for (int32_t i = 0; i < n; i++) {
		uint64_t e = hs_oop_field(j, tab, j->L.arr_base + (uint64_t)i * esz);
		uint64_t ek = e ? hs_klass_of(j, e) : 0;
		if (!ek)
			continue;
		uint64_t ro = hs_field_offset(j, ek, "referent", "Ljava/lang/Object;");
		uint64_t vo = hs_field_offset(j, ek, "value", "Ljava/lang/Object;");
		if (ro == UINT64_MAX || vo == UINT64_MAX || hs_oop_field(j, e, ro) != rh)
			continue;
		int64_t c = 0;
		return num_field(j, hs_oop_field(j, e, vo), "count", false, &c) && c > 0 ? c : 0;
	}
	return 0;
}

/* The readers of a ReentrantReadWriteLock whose Sync is SYNC, HOLDS read
 * holds in all (the AQS state's high half), as the lock records them:
 * Sync.firstReader (the thread that took the first read hold after none,
 * firstReaderHoldCount its holds), and every other reader's HoldCounter
 * in its own ThreadLocal (Sync.readHolds, read from each live thread's
 * threadLocals map); where those maps are not readable,
 * Sync.cachedHoldCounter (the last other reader's counter: its
 * Thread.getId() and count).  Sets l->holder to the first reader found
 * (a writer waits for every reader, so one that never lets go keeps it
 * waiting) and l->holder_how to what was read. */
static void read_holders(struct jvm *j, uint64_t sync, int holds, struct lt_rtlock *l)
{
	static const char HC[] = "Ljava/util/concurrent/locks/ReentrantReadWriteLock$Sync$HoldCounter;";
	static const char TLHC[] = "Ljava/util/concurrent/locks/ReentrantReadWriteLock$Sync$ThreadLocalHoldCounter;";
	uint64_t k = hs_klass_of(j, sync);
	uint64_t fr_off = k ? hs_field_offset(j, k, "firstReader", "Ljava/lang/Thread;") : UINT64_MAX;
	uint64_t hc_off = k ? hs_field_offset(j, k, "cachedHoldCounter", HC) : UINT64_MAX;
	uint64_t rh_off = k ? hs_field_offset(j, k, "readHolds", TLHC) : UINT64_MAX;
	uint64_t fr = fr_off != UINT64_MAX ? hs_oop_field(j, sync, fr_off) : 0;
	uint64_t fr2 = fr_off != UINT64_MAX ? hs_oop_field(j, sync, fr_off) : 0;
	uint64_t rh = rh_off != UINT64_MAX ? hs_oop_field(j, sync, rh_off) : 0;
	const struct jthread *first = NULL;
	char what[768] = "";
	size_t len = 0, known = 0, named = 0;
	pid_t holder = 0;
	int64_t frc = 0;
#define NAME_READER(t, cnt, how)                                                                              \
	do {                                                                                                  \
		known += (size_t)(cnt);                                                                       \
		if (!holder)                                                                                  \
			holder = (t)->tid;                                                                    \
		if (named++ < READERS_NAMED && len < sizeof(what))                                           \
			len += (size_t)snprintf(what + len, sizeof(what) - len,                               \
						"%sthread %d%s%s%s (%lld hold%s, %s)", len ? ", " : "",       \
						(int)(t)->tid, (t)->name ? " (\"" : "",                       \
						(t)->name ? (t)->name : "", (t)->name ? "\")" : "",           \
						(long long)(cnt), (cnt) == 1 ? "" : "s", how);                \
	} while (0)
	if (fr && fr == fr2 && num_field(j, sync, "firstReaderHoldCount", false, &frc) && frc > 0 &&
	    (first = thread_of_obj(j, fr)))
		NAME_READER(first, frc, "Sync.firstReader");
	size_t len_first = len;
	bool tl_ok = rh != 0;
	for (size_t i = 0; tl_ok && i < j->n; i++) {
		if (&j->t[i] == first)
			continue;
		if ((i & 255) == 255 && lt_budget_over()) { /* the snapshot's time ran out */
			tl_ok = false;
			break;
		}
		int64_t c = tl_holds(j, &j->t[i], rh);
		if (c < 0)
			tl_ok = false;
		else if (c > 0)
			NAME_READER(&j->t[i], c, "its readHolds");
	}
	if (!tl_ok) { /* the maps are not readable: the one cached counter */
		known = first ? (size_t)frc : 0;
		named = first ? 1 : 0;
		holder = first ? first->tid : 0;
		len = len_first;
		what[len < sizeof(what) ? len : sizeof(what) - 1] = 0;
		uint64_t hc = hc_off != UINT64_MAX ? hs_oop_field(j, sync, hc_off) : 0;
		int64_t hcc = 0, hct = 0;
		const struct jthread *b = NULL;
		if (hc && num_field(j, hc, "count", false, &hcc) && hcc > 0 && num_field(j, hc, "tid", true, &hct) &&
		    (b = thread_of_id(j, hct)) && b != first)
			NAME_READER(b, hcc, "Sync.cachedHoldCounter");
	}
#undef NAME_READER
	const char *pl = holds == 1 ? "" : "s";
	if (!holder) {
		l->holder_how = lts_asprintf("exclusiveOwnerThread is null and the AQS state says %d read hold%s: "
					     "held in shared mode; no live thread is recorded as a reader "
					     "(Sync.firstReader, %s)", holds, pl,
					     tl_ok ? "the threads' readHolds" : "Sync.cachedHoldCounter; the "
					     "threads' readHolds were not readable");
		return;
	}
	l->holder = holder;
	char more[48] = "";
	if (named > READERS_NAMED)
		snprintf(more, sizeof(more), " and %zu more", named - READERS_NAMED);
	if (known >= (size_t)holds)
		l->holder_how = lts_asprintf("exclusiveOwnerThread is null and the AQS state says %d read hold%s, "
					     "all of them recorded by the lock: %s%s", holds, pl, what, more);
	else
		l->holder_how = lts_asprintf("exclusiveOwnerThread is null and the AQS state says %d read hold%s, "
					     "%zu of them found: %s%s; %s", holds, pl, known, what, more,
					     tl_ok ? "the others' were not found (a thread's readHolds changing "
						     "while read)"
						   : "the other readers' counts (their ThreadLocal readHolds) "
						     "were not readable");
}

/* The parkBlocker of thread T and its exclusiveOwnerThread (0: none); false
 * when T parks on no ownable synchronizer. */
static bool blocker_of(struct jvm *j, const struct jthread *t, uint64_t *blocker, uint64_t *owner)
{
	return park_blocker(j, t->addr, blocker) && owner_of(j, *blocker, owner);
}

int hs_juc_locks(struct jvm *j, struct lt_rtlock **v, size_t *n, size_t first, size_t *idx)
{
	for (size_t i = 0; i < j->n; i++) {
		const struct jthread *t = &j->t[i];
		uint64_t blocker = 0, owner = 0, b2 = 0, o2 = 0;
		if (idx[i] || t->pending || t->state != j->L.blocked || !blocker_of(j, t, &blocker, &owner))
			continue;
		int32_t state = -1;
		if (!blocker || !blocker_of(j, t, &b2, &o2) || b2 != blocker ||
		    hs_rd(j, t->addr + j->L.jt_state, &state, 4) || state != j->L.blocked)
			continue; /* left its park between the reads */
		for (size_t k = first; k < *n && !idx[i]; k++)
			if ((*v)[k].kind == KIND && (*v)[k].base == blocker)
				idx[i] = k - first + 1;
		if (idx[i])
			continue;
		char cls[256] = "?";
		if (hs_class_name(j, hs_klass_of(j, blocker), cls, sizeof(cls)))
			snprintf(cls, sizeof(cls), "?");
		if (!owner && owner == o2 && no_owner_sync(cls))
			continue; /* no holder: a wait for another thread (hs_juc_parties) */
		struct lt_rtlock *l = lt_rtlock_push(v, n);
		if (!l)
			return -ENOMEM;
		l->model = "hotspot";
		l->kind = KIND;
		l->version = lts_strdup(j->version);
		l->base = blocker;
		l->size = 0; /* the waiters sleep on their own Parkers */
		l->waiters = -1;
		l->waiters_named = true;
		l->name = lts_asprintf("%s@0x%" PRIx64, cls, blocker);
		lt_strlist_add(&l->facts, "parkBlocker=0x%" PRIx64 " class=%s exclusiveOwnerThread=0x%" PRIx64,
			       blocker, cls, owner);
		const struct jthread *o = thread_of_obj(j, owner);
		int32_t st = -1;
		if (owner != o2) {
			l->held = -1;
			l->holder_how = lts_asprintf("exclusiveOwnerThread changed between two reads (0x%" PRIx64
						     ", then 0x%" PRIx64 "): the holder is not named", owner, o2);
		} else if (!owner && (st = sync_state(j, blocker)) >= 0 &&
			   !strcmp(cls, "java.util.concurrent.CountDownLatch$Sync")) {
			/* AQS state: the count left */
			l->held = -1;
			l->holderless = true;
			l->holder_how = lts_asprintf("a CountDownLatch, count %d: its waiters wait for %d more "
						     "countDown() call%s; nobody holds a latch, and which threads are "
						     "to count it down is not recorded", st, st, st == 1 ? "" : "s");
		} else if (!owner && st >= 0 && strstr(cls, "ReentrantReadWriteLock$") && (st >> 16) > 0) {
			/* AQS state: shared holds in the high 16 bits */
			l->held = 1;
			read_holders(j, blocker, st >> 16, l);
		} else if (!owner) {
			l->held = -1;
			l->holder_how = lts_strdup("exclusiveOwnerThread is null: held in shared mode (readers, "
						   "permits) or being handed over; no owner is recorded");
		} else if (!o) {
			l->held = 1;
			l->holder_exited = true;
			l->holder_how = lts_asprintf("exclusiveOwnerThread 0x%" PRIx64 " is no live Java thread's "
						     "java.lang.Thread", owner);
		} else {
			l->held = 1;
			l->holder = o->tid;
			l->holder_how = lts_asprintf("AbstractOwnableSynchronizer.exclusiveOwnerThread is the "
						     "java.lang.Thread of thread %d%s%s%s", (int)o->tid,
						     o->name ? " (\"" : "", o->name ? o->name : "", o->name ? "\")" : "");
		}
		idx[i] = *n - first;
	}
	return 0;
}

/* One read of what the thread at JT waits for: 1 monitor (*obj its
 * object), 2 a park blocker with an owner field, 3 another park blocker,
 * 0 none. */
static int wait_object_once(struct jvm *j, uint64_t jt, uint64_t *obj)
{
	const struct lay *L = &j->L;
	int32_t state = -1;
	*obj = 0;
	if (hs_rd(j, jt + L->jt_state, &state, 4) || state != L->blocked)
		return 0;
	uint64_t pending = hs_rd64(j, jt + L->jt_pending);
	if (pending) {
		if (!L->monitors)
			return 0;
		uint64_t slot = hs_rd64(j, pending + L->om_object);
		*obj = slot ? hs_rd64(j, slot) : 0;
		return *obj ? 1 : 0;
	}
	if (j->names_why || L->fields == FIELDS_NONE)
		return 0;
	uint64_t bk = park_blocker(j, jt, obj) && *obj ? hs_klass_of(j, *obj) : 0;
	if (!bk)
		return 0;
	return owner_offset(j, bk) != UINT64_MAX ? 2 : 3;
}

int hs_wait_object(struct jvm *j, uint64_t jt, uint64_t *obj, char *name, size_t len)
{
	static const char *const what[] = { NULL, "Java monitor", "Java lock", "Java park blocker" };
	uint64_t o2 = 0;
	if (!j->L.objects)
		return 0;
	int how = wait_object_once(j, jt, obj);
	if (!how || wait_object_once(j, jt, &o2) != how || o2 != *obj)
		return 0; /* not waiting, or moved on between the reads */
	char cls[256];
	if (hs_class_name(j, hs_klass_of(j, *obj), cls, sizeof(cls)))
		return 0;
	snprintf(name, len, "%s %s@0x%" PRIx64, what[how], cls, *obj);
	return 1;
}

/* ---- a Condition's await() ---- */

/* The lock of a ConditionObject (an inner class of AbstractQueued(Long)
 * Synchronizer: its this$0), 0 if BLOCKER is none. */
static uint64_t condition_lock(struct jvm *j, uint64_t blocker)
{
	static const char *const sig[] = { "Ljava/util/concurrent/locks/AbstractQueuedSynchronizer;",
					   "Ljava/util/concurrent/locks/AbstractQueuedLongSynchronizer;" };
	uint64_t k = blocker ? hs_klass_of(j, blocker) : 0;
	for (size_t s = 0; k && s < 2; s++) {
		uint64_t off = hs_field_offset(j, k, "this$0", sig[s]);
		if (off != UINT64_MAX)
			return hs_oop_field(j, blocker, off);
	}
	return 0;
}

/* The lock and its exclusiveOwnerThread of the Condition thread T awaits
 * (false: T awaits none, or its lock records no owner field). */
static bool await_of(struct jvm *j, const struct jthread *t, uint64_t *blocker, uint64_t *lock,
		     uint64_t *owner)
{
	return park_blocker(j, t->addr, blocker) && *blocker && (*lock = condition_lock(j, *blocker)) &&
	       owner_of(j, *lock, owner);
}

/* A thread in a java.util.concurrent Condition's await() has released the
 * Condition's lock and waits for a signal(), which throws
 * IllegalMonitorStateException unless its caller holds that lock
 * exclusively: while another thread holds it, that thread is the only one
 * that can end the wait.  Everything read twice. */
int hs_juc_awaits(struct jvm *j, struct lt_rtlock **v, size_t *n, size_t first, size_t *idx)
{
	for (size_t i = 0; i < j->n; i++) {
		const struct jthread *t = &j->t[i];
		uint64_t blocker = 0, lock = 0, owner = 0, b2 = 0, l2 = 0, o2 = 0;
		int32_t state = -1;
		if (idx[i] || t->pending || t->state != j->L.blocked)
			continue;
		if ((i & 255) == 0 && lt_budget_over()) {
			lt_budget_note("hotspot: stopped reading Condition.await() locks at thread %zu of %zu: "
				       "the snapshot's time ran out", i, j->n);
			break;
		}
		if (!await_of(j, t, &blocker, &lock, &owner) || !owner)
			continue;
		const struct jthread *o = thread_of_obj(j, owner);
		if (!o || o->tid == t->tid || !hs_keeps(j, o->tid) || !await_of(j, t, &b2, &l2, &o2) || b2 != blocker || l2 != lock ||
		    o2 != owner || hs_rd(j, t->addr + j->L.jt_state, &state, 4) || state != j->L.blocked)
			continue; /* no live holder, its own, held for a moment by a
				     thread that runs, or moved on */
		if ((idx[i] = hs_notify_lock_at(*v, first, *n, blocker, o->tid)))
			continue;
		struct lt_rtlock *l = lt_rtlock_push(v, n);
		if (!l)
			return -ENOMEM;
		char cls[256] = "?", lcls[256] = "?";
		if (hs_class_name(j, hs_klass_of(j, blocker), cls, sizeof(cls)))
			snprintf(cls, sizeof(cls), "?");
		if (hs_class_name(j, hs_klass_of(j, lock), lcls, sizeof(lcls)))
			snprintf(lcls, sizeof(lcls), "?");
		hs_notify_lock(j, l, "java.util.concurrent Condition (await)", blocker, "Condition.await()",
			       "signal()");
		l->name = lts_asprintf("%s@0x%" PRIx64, cls, blocker);
		l->held_what = lts_asprintf("lock, %s@0x%" PRIx64 ",", lcls, lock);
		lt_strlist_add(&l->facts, "parkBlocker=0x%" PRIx64 " class=%s this$0=0x%" PRIx64
			       " class=%s exclusiveOwnerThread=0x%" PRIx64, blocker, cls, lock, lcls, owner);
		l->held = 1;
		l->holder = o->tid;
		l->holder_how = lts_asprintf("the Condition's lock's AbstractOwnableSynchronizer."
					     "exclusiveOwnerThread is the java.lang.Thread of thread %d%s%s%s",
					     (int)o->tid, o->name ? " (\"" : "", o->name ? o->name : "",
					     o->name ? "\")" : "");
		idx[i] = *n - first;
	}
	return 0;
}

/* ---- FutureTask.get() and Thread.join(): waits for another thread to finish ---- */

#define MAX_QUEUE 10000 /* work-queue nodes walked per executor */
#define MAX_POOL_NAMED 4
#define MAX_POOLS 64    /* executors whose queues are searched */

/* FutureTask's states (java/util/concurrent/FutureTask.java) */
#define FT_NEW 0

/* The executor whose worker thread T is: its java.lang.Thread's Runnable
 * (Thread.target, JDK <= 18; Thread.holder.task, JDK 19+) is a
 * ThreadPoolExecutor$Worker, an inner class whose this$0 is the
 * ThreadPoolExecutor; 0 when it is none. */
static uint64_t pool_of(struct jvm *j, const struct jthread *t)
{
	static const char TPE[] = "Ljava/util/concurrent/ThreadPoolExecutor;";
	uint64_t obj = hs_thread_obj(j, t->addr), tk = obj ? hs_klass_of(j, obj) : 0;
	if (!tk)
		return 0;
	uint64_t run = 0, off = hs_field_offset(j, tk, "target", "Ljava/lang/Runnable;");
	if (off != UINT64_MAX) {
		run = hs_oop_field(j, obj, off);
	} else if ((off = hs_field_offset(j, tk, "holder", "Ljava/lang/Thread$FieldHolder;")) != UINT64_MAX) {
		uint64_t h = hs_oop_field(j, obj, off), hk = h ? hs_klass_of(j, h) : 0;
		uint64_t to = hk ? hs_field_offset(j, hk, "task", "Ljava/lang/Runnable;") : UINT64_MAX;
		run = to != UINT64_MAX ? hs_oop_field(j, h, to) : 0;
	}
	uint64_t rk = run ? hs_klass_of(j, run) : 0;
	uint64_t po = rk ? hs_field_offset(j, rk, "this$0", TPE) : UINT64_MAX;
	return po != UINT64_MAX ? hs_oop_field(j, run, po) : 0;
}

/* Is TASK a ScheduledFutureTask (a task with a long time and a long
 * period)? */
static bool sched_task(struct jvm *j, uint64_t task)
{
	uint64_t k = hs_klass_of(j, task);
	return k && hs_field_offset(j, k, "time", "J") != UINT64_MAX && hs_field_offset(j, k, "period", "J") != UINT64_MAX;
}

/* A ScheduledFutureTask's time until it is due, in ns (its time is
 * System.nanoTime()'s, which is CLOCK_MONOTONIC here): > 0 not yet due,
 * <= 0 due (how long ago, when PAST is set; else 0); 0 if TASK is no
 * scheduled task. */
static int64_t sched_due_in(struct jvm *j, uint64_t task, bool past)
{
	int64_t t = 0;
	struct timespec ts;
	if (!sched_task(j, task) || !num_field(j, task, "time", true, &t) || clock_gettime(CLOCK_MONOTONIC, &ts))
		return 0;
	int64_t d = t - ((int64_t)ts.tv_sec * 1000000000 + ts.tv_nsec);
	return d > 0 || past ? d : 0;
}

/* A ScheduledFutureTask run periodically (scheduleAtFixedRate or
 * WithFixedDelay: its period not 0)? */
static bool sched_periodic(struct jvm *j, uint64_t task)
{
	int64_t period = 0;
	return sched_task(j, task) && num_field(j, task, "period", true, &period) && period != 0;
}

/* Executor TPE's work queue (ThreadPoolExecutor.workQueue), 0 if not read. */
static uint64_t work_queue(struct jvm *j, uint64_t tpe)
{
	uint64_t k = hs_klass_of(j, tpe);
	uint64_t qo = k ? hs_field_offset(j, k, "workQueue", "Ljava/util/concurrent/BlockingQueue;") : UINT64_MAX;
	return qo != UINT64_MAX ? hs_oop_field(j, tpe, qo) : 0;
}

/* A ScheduledThreadPoolExecutor's DelayedWorkQueue Q (class QK): a heap
 * of its tasks in an array (queue, size entries): TASK's place in it
 * (1-based, the heap's, not the order they run in), 0 if it is not there,
 * -1 if Q is no such queue. */
static long delayed_pos(struct jvm *j, uint64_t q, uint64_t qk, uint64_t task)
{
	uint64_t ao = hs_field_offset(j, qk, "queue", "[Ljava/util/concurrent/RunnableScheduledFuture;");
	int64_t size = -1;
	if (ao == UINT64_MAX || !num_field(j, q, "size", false, &size) || size < 0 || size > MAX_QUEUE)
		return -1;
	uint64_t arr = hs_oop_field(j, q, ao);
	int32_t len = -1;
	if (!arr || hs_rd(j, arr + j->L.arr_length, &len, 4) || len < size)
		return -1;
	uint64_t esz = j->L.coops ? 4 : 8;
	for (int64_t i = 0; i < size; i++)
		if (hs_oop_field(j, arr, j->L.arr_base + (uint64_t)i * esz) == task)
			return (long)i + 1;
	return 0;
}

/* The position (1-based) of TASK in the work queue of executor TPE (a
 * LinkedBlockingQueue: head, a dummy Node, then Node.item and Node.next;
 * or a ScheduledThreadPoolExecutor's DelayedWorkQueue: *delayed set),
 * 0 if it is not there, -1 if the queue is not one read here. */
static long queue_pos(struct jvm *j, uint64_t tpe, uint64_t task, bool *delayed)
{
	static const char NODE[] = "Ljava/util/concurrent/LinkedBlockingQueue$Node;";
	uint64_t q = work_queue(j, tpe), qk = q ? hs_klass_of(j, q) : 0;
	uint64_t ho = qk ? hs_field_offset(j, qk, "head", NODE) : UINT64_MAX;
	*delayed = false;
	if (ho == UINT64_MAX && qk) {
		long p = delayed_pos(j, q, qk, task);
		*delayed = p >= 0;
		return p;
	}
	if (ho == UINT64_MAX)
		return -1;
	uint64_t node = hs_oop_field(j, q, ho), nk = node ? hs_klass_of(j, node) : 0;
	uint64_t io = nk ? hs_field_offset(j, nk, "item", "Ljava/lang/Object;") : UINT64_MAX;
	uint64_t no = nk ? hs_field_offset(j, nk, "next", NODE) : UINT64_MAX;
	if (io == UINT64_MAX || no == UINT64_MAX)
		return -1;
	long pos = 0;
	for (long i = 0; node && i < MAX_QUEUE; i++) {
		uint64_t item = hs_oop_field(j, node, io);
		if (item) {
			pos++;
			if (item == task)
				return pos;
		}
		uint64_t next = hs_oop_field(j, node, no);
		if (next == node) /* a node taken off the queue points to itself */
			return 0;
		node = next;
	}
	return 0;
}

/* Is thread TID asleep for a while (hs_keeps) in a wait with no timeout
 * (a sleep, a timed park, a select() with one ends by itself)? */
static bool pool_thread_asleep(struct jvm *j, pid_t tid)
{
	const struct lt_thread *u = j->e->s ? lt_snapshot_find(j->e->s, tid) : NULL;
	double left;
	return hs_keeps(j, tid) && u && !lts_wait_timed(j->e->s, u, &left);
}

/* Is the thread at JT still blocked (the JVM's state, read again) and,
 * unless it is WAITER, asleep with no timeout for a while? */
static bool pool_thread_blocked(struct jvm *j, const struct jthread *t, pid_t waiter)
{
	int32_t state = -1;
	return t->state == j->L.blocked && !hs_rd(j, t->addr + j->L.jt_state, &state, 4) &&
	       state == j->L.blocked && (t->tid == waiter || pool_thread_asleep(j, t->tid));
}

/* Is the thread at JT in native code (the JVM's state, read again: a
 * read() of a pipe or socket, an fcntl() lock, which the JVM does not call
 * blocked) and asleep in a system call with no timeout for a while?  Not
 * known to be stuck: a peer may end its read. */
static bool pool_thread_native_asleep(struct jvm *j, const struct jthread *t)
{
	int32_t state = -1;
	return j->L.in_native >= 0 && t->state == j->L.in_native && !hs_rd(j, t->addr + j->L.jt_state, &state, 4) &&
	       state == j->L.in_native && pool_thread_asleep(j, t->tid);
}

/* What a task that has not started (runner null, state NEW) waits for:
 * a thread of the executor whose work queue holds it.  The executor is
 * found through the threads that work for one (pool_of) and its queue (a
 * LinkedBlockingQueue, what Executors' fixed and single-thread pools use);
 * when every thread of it is blocked, this waiter among them or not, and
 * the executor records no more workers than those, the task is probably
 * starved (inferred: a later submit() may start a thread, below
 * corePoolSize; a blocked thread may be ended), and a deadlock when this
 * waiter, or the executor's one thread, waits for the task.  *only: the
 * executor's one thread when the executor counts one worker and that
 * thread is not waiting for this task (the thread that must take it: the
 * lock's holder, whose own state the verdicts judge), else 0.  *free: a
 * thread of the executor is neither blocked nor asleep in native code
 * (it may take the task soon: no wait is claimed). */
static char *not_started(struct jvm *j, const struct jthread *waiter, uint64_t task, uint64_t **poolp,
			 pid_t *only, bool *free_thread)
{
	*only = 0;
	*free_thread = false;
	static const char BASE[] = "FutureTask.runner is null and its state is NEW (0): the task has not "
				   "started: it waits for a thread of its executor to take it";
	if (!*poolp) { /* each thread's executor, read once a snapshot */
		if (!(*poolp = calloc(j->n ? j->n : 1, sizeof(**poolp))))
			return NULL;
		for (size_t i = 0; i < j->n && !lt_budget_over(); i++)
			(*poolp)[i] = pool_of(j, &j->t[i]);
	}
	const uint64_t *pool = *poolp;
	uint64_t tpe = 0, asked[MAX_POOLS];
	size_t n_asked = 0;
	long pos = 0;
	bool unread = false, more_pools = false, delayed = false;
	for (size_t i = 0; i < j->n && !tpe; i++) {
		bool seen = !pool[i];
		for (size_t k = 0; k < n_asked && !seen; k++)
			seen = asked[k] == pool[i];
		if (seen)
			continue;
		if (n_asked == MAX_POOLS) {
			more_pools = true;
			break;
		}
		asked[n_asked++] = pool[i];
		bool d = false;
		long p = queue_pos(j, pool[i], task, &d);
		unread |= p < 0;
		if (p > 0) {
			tpe = pool[i];
			pos = p;
			delayed = d;
		}
	}
	if (!tpe)
		return lts_asprintf("%s; no executor's work queue was found to hold it (%s): its pool is not "
				    "named", BASE, more_pools ? "only the first executors' queues are read"
						   : unread ? "some executors' queues are of a kind not read here"
							    : "the executors whose threads run hold it in none of "
							      "their LinkedBlockingQueues");
	char list[400] = "";
	size_t len = 0, nt = 0, nb = 0, nn = 0;
	bool self = false, in_pool = false;
	for (size_t i = 0; i < j->n; i++) {
		if (pool[i] != tpe)
			continue;
		const struct jthread *t = &j->t[i];
		uint64_t pb = 0;
		nt++;
		bool b = pool_thread_blocked(j, t, waiter->tid), in_nat = !b && pool_thread_native_asleep(j, t);
		nb += b;
		nn += in_nat;
		*free_thread |= !b && !in_nat;
		/* this waiter, or another get() of this very task */
		in_pool |= t == waiter;
		self |= t == waiter || (b && park_blocker(j, t->addr, &pb) && pb == task);
		if (nt <= MAX_POOL_NAMED && len < sizeof(list))
			len += (size_t)snprintf(list + len, sizeof(list) - len, "%s%d%s%s%s", len ? ", " : "",
						(int)t->tid, t->name ? " (" : "", t->name ? t->name : "",
						t->name ? ")" : "");
	}
	char more[32] = "";
	if (nt > MAX_POOL_NAMED)
		snprintf(more, sizeof(more), " and %zu more", nt - MAX_POOL_NAMED);
	int64_t ctl = 0, core = -1;
	uint64_t k = hs_klass_of(j, tpe);
	uint64_t co = k ? hs_field_offset(j, k, "ctl", "Ljava/util/concurrent/atomic/AtomicInteger;") : UINT64_MAX;
	uint64_t ai = co != UINT64_MAX ? hs_oop_field(j, tpe, co) : 0;
	bool ctl_ok = ai && num_field(j, ai, "value", false, &ctl);
	if (!num_field(j, tpe, "corePoolSize", false, &core))
		core = -1;
	/* the worker count: ctl's low 29 bits (ThreadPoolExecutor.COUNT_MASK;
	 * the run state is in the high bits, negative while RUNNING) */
	long workers = ctl_ok ? (long)((uint32_t)ctl & ((1u << 29) - 1)) : -1;
	char *head;
	if (delayed) {
		char cls[128] = "?", ago[64] = "";
		int64_t late = -sched_due_in(j, task, true);
		if (hs_class_name(j, hs_klass_of(j, tpe), cls, sizeof(cls)))
			snprintf(cls, sizeof(cls), "?");
		if (late >= 0)
			snprintf(ago, sizeof(ago), ", due %.1f s ago", (double)late / 1e9);
		head = lts_asprintf("%s; it is in the delayed work queue of %s@0x%" PRIx64 "%s, whose %zu thread%s "
				    "(%s%s)", BASE, cls, tpe, ago, nt, nt == 1 ? "" : "s", list, more);
	} else {
		head = lts_asprintf("%s; it is number %ld in the work queue of java.util.concurrent."
				    "ThreadPoolExecutor@0x%" PRIx64 ", whose %zu thread%s (%s%s)", BASE, pos, tpe, nt,
				    nt == 1 ? "" : "s", list, more);
	}
	/* a later submit() may start another thread that takes it: below
	 * corePoolSize, or (a bounded LinkedBlockingQueue that fills) below
	 * maximumPoolSize; then its one thread is not the only way */
	int64_t maxp = -1, cap = -1;
	uint64_t wq = delayed ? 0 : work_queue(j, tpe);
	bool bounded = wq && num_field(j, wq, "capacity", false, &cap) && cap < INT32_MAX;
	bool grows_full = bounded && num_field(j, tpe, "maximumPoolSize", false, &maxp) && maxp > (int64_t)nt;
	char *r, nat[96] = "", full[200] = "";
	if (grows_full)
		snprintf(full, sizeof(full), ", or a later submit() that finds the work queue full (%" PRId64 " tasks) "
			 "starts a thread (the pool has fewer than maximumPoolSize, %" PRId64 ")", cap, maxp);
	if (nt == 1 && workers == 1 && !self && core <= 1 && !grows_full)
		for (size_t i = 0; i < j->n && !*only; i++)
			if (pool[i] == tpe)
				*only = j->t[i].tid;
	if (nn)
		snprintf(nat, sizeof(nat), nt == 1 ? " (asleep in a system call of native code)"
						    : " (%zu of them asleep in system calls of native code)", nn);
	if (nt && nb + nn == nt && workers == (long)nt && (nn || !self))
		r = lts_asprintf("%s %s blocked%s: the task starts only when %s goes on%s%s", head,
				 nt == 1 ? "is" : "are all", nat, nt == 1 ? "it" : "one of them",
				 core > (int64_t)nt ? ", or a later submit() starts a thread (the pool has fewer than "
						      "corePoolSize)" : "", full);
	else if (nt && nb == nt && workers == (long)nt)
		r = lts_asprintf("%s %s blocked%s: probably a thread-starvation deadlock (inferred: no thread "
				 "of the pool is free to take the task, nor will one be unless a blocked one is "
				 "ended%s)", head, nt == 1 ? "is" : "are all",
				 in_pool ? ", this one in this get()" : nt == 1 ? ", in a get() of this very task"
									  : ", one of them in a get() of this very task",
				 core > (int64_t)nt ? ", or a later submit() starts a thread (the pool has fewer "
						      "than corePoolSize)" : full);
	else
		r = lts_asprintf("%s %s blocked%s%s", head,
				 nt == 1 ? (nb + nn ? "is" : "is not") : nb + nn == nt ? "are all" : "are not all", nat,
				 workers != (long)nt ? " (the executor's count of its workers, not read or "
						       "not the threads found: not all of them are known)" : "");
	free(head);
	return r;
}

/* A thread parked with a FutureTask (or a subclass: the fields say) as
 * its parkBlocker is in its get(), waiting for the task to complete:
 * while it runs, FutureTask.runner is the thread running it, whose end of
 * the task ends the wait (a cancel() from any thread, or a timed get()'s
 * timeout, would end it too: that the runner is the only way out is
 * inferred); while it has not started (runner null, state NEW), it is
 * queued in an executor (not_started).  Everything read twice; a task
 * completing (state past NEW) is left alone (an event, as before). */
int hs_juc_futures(struct jvm *j, struct lt_rtlock **v, size_t *n, size_t first, size_t *idx)
{
	static const char KIND_FT[] = LT_KIND_JAVA_FUTURE;
	static const char KIND_FTQ[] = LT_KIND_JAVA_FUTURE_QUEUED;
	uint64_t *pool = NULL; /* each thread's executor (not_started) */
	for (size_t i = 0; i < j->n; i++) {
		const struct jthread *t = &j->t[i];
		uint64_t task = 0, t2 = 0;
		int32_t state = -1;
		if (idx[i] || t->pending || t->state != j->L.blocked)
			continue;
		if ((i & 255) == 0 && lt_budget_over()) {
			lt_budget_note("hotspot: stopped reading FutureTask.get() waits at thread %zu of %zu: the "
				       "snapshot's time ran out", i, j->n);
			break;
		}
		if (!park_blocker(j, t->addr, &task) || !task)
			continue;
		uint64_t k = hs_klass_of(j, task);
		uint64_t ro = k ? hs_field_offset(j, k, "runner", "Ljava/lang/Thread;") : UINT64_MAX;
		uint64_t wo = k ? hs_field_offset(j, k, "waiters", "Ljava/util/concurrent/FutureTask$WaitNode;")
				: UINT64_MAX;
		int64_t st = -1, st2 = -2;
		if (ro == UINT64_MAX || wo == UINT64_MAX || !num_field(j, task, "state", false, &st) || st != FT_NEW)
			continue; /* no FutureTask, or it is completing */
		uint64_t runner = hs_oop_field(j, task, ro);
		const struct jthread *o = runner ? thread_of_thread_obj(j, runner) : NULL;
		if (!runner && sched_due_in(j, task, false) > 0)
			continue; /* a scheduled task not yet due: a wait for a time, not a thread */
		if (sched_periodic(j, task))
			continue; /* a periodic task's get() ends only on its cancel() or a run that throws:
				     no run's end ends it, no thread is its holder */
		if ((runner && (!o || o == t)) || hs_oop_field(j, task, ro) != runner ||
		    !num_field(j, task, "state", false, &st2) || st2 != st || !park_blocker(j, t->addr, &t2) ||
		    t2 != task || hs_rd(j, t->addr + j->L.jt_state, &state, 4) || state != j->L.blocked)
			continue; /* a runner that is no live thread, or moved on */
		pid_t only = 0;
		bool free_thread = false;
		if ((idx[i] = hs_notify_lock_at(*v, first, *n, task, o ? o->tid : 0)))
			continue;
		for (size_t q = first; q < *n && !o && !idx[i]; q++)
			if ((*v)[q].wait_call && (*v)[q].base == task && (*v)[q].kind == KIND_FTQ &&
			    (*v)[q].holder != t->tid)
				idx[i] = q - first + 1; /* a queued task's, held by its pool's thread */
		if (idx[i])
			continue;
		char cls[256] = "?";
		if (hs_class_name(j, k, cls, sizeof(cls)))
			snprintf(cls, sizeof(cls), "?");
		char *how = o ? lts_asprintf("FutureTask.runner is the java.lang.Thread of thread %d%s%s%s, which "
					     "runs the task (state NEW): its end of the task ends the wait; a cancel() "
					     "from any thread, or a timed get()'s timeout, would end it too",
					     (int)o->tid, o->name ? " (\"" : "", o->name ? o->name : "",
					     o->name ? "\")" : "")
			      : not_started(j, t, task, &pool, &only, &free_thread);
		if (!o && !only && free_thread) {
			/* a thread of its executor may take it: queued, not
			 * stuck (no claim: the park is judged as any other) */
			free(how);
			continue;
		}
		struct lt_rtlock *l = lt_rtlock_push(v, n);
		if (!l) {
			free(how);
			free(pool);
			return -ENOMEM;
		}
		hs_notify_lock(j, l, only ? KIND_FTQ : KIND_FT, task, "FutureTask.get()", NULL);
		l->name = lts_asprintf("%s@0x%" PRIx64, cls, task);
		lt_strlist_add(&l->facts, "parkBlocker=0x%" PRIx64 " class=%s runner=0x%" PRIx64 " state=%d", task,
			       cls, runner, (int)st);
		l->holder_how = how;
		if (o || only) {
			l->held = 1;
			l->holder = o ? o->tid : only;
		} else {
			l->held = -1;
			l->holderless = true;
		}
		idx[i] = *n - first;
	}
	free(pool);
	return 0;
}

/* Is FUNC among the DEPTH innermost Java frames of the thread at T? */
static bool innermost_has(struct jvm *j, const struct jthread *t, const char *func, size_t depth)
{
	struct lt_rtthread r = { 0 };
	uint64_t pc = 0;
	size_t bad = j->frames_bad; /* counted once, when the frames are shown */
	bool yes = false;
	if (hs_java_walk(j, t, &r, &pc) == 0)
		for (size_t k = 0; k < r.n_frames && k < depth && !yes; k++)
			yes = r.frames[k].func && !strcmp(r.frames[k].func, func);
	j->frames_bad = bad;
	lt_rtthread_clear(&r);
	return yes;
}

/* Is CALLER the Java frame that called the innermost Condition await()
 * of the thread at T (a barrier action that itself awaits another
 * Condition has CyclicBarrier.dowait further out)? */
static bool await_called_by(struct jvm *j, const struct jthread *t, const char *caller)
{
	static const char AWAIT[] = "java.util.concurrent.locks.AbstractQueuedSynchronizer$ConditionObject.await";
	struct lt_rtthread r = { 0 };
	uint64_t pc = 0;
	size_t bad = j->frames_bad;
	bool yes = false;
	if (hs_java_walk(j, t, &r, &pc) == 0)
		for (size_t k = 0; k + 1 < r.n_frames && k < 10; k++)
			if (r.frames[k].func && !strncmp(r.frames[k].func, AWAIT, sizeof(AWAIT) - 1)) {
				yes = r.frames[k + 1].func && !strcmp(r.frames[k + 1].func, caller);
				break;
			}
	j->frames_bad = bad;
	lt_rtthread_clear(&r);
	return yes;
}

/* Is the thread at T in Thread.join(): among its innermost Java frames
 * (Object.wait(), then join, JDK 17)? */
static bool in_join(struct jvm *j, const struct jthread *t)
{
	return innermost_has(j, t, "java.lang.Thread.join", 4);
}

int hs_join_wait(struct jvm *j, const struct jthread *t, uint64_t om, uint64_t obj, struct lt_rtlock **v,
		 size_t *n, size_t first, size_t *idx)
{
	const struct jthread *o = j->L.objects && !j->names_why && j->L.fields != FIELDS_NONE && obj
				  ? thread_of_thread_obj(j, obj) : NULL;
	int32_t state = -1;
	if (!o || o == t || !in_join(j, t) || hs_rd64(j, t->addr + j->L.jt_waiting) != om ||
	    hs_rd(j, t->addr + j->L.jt_state, &state, 4) || state != j->L.blocked || hs_thread_obj(j, o->addr) != obj)
		return 0; /* no live thread's object, its own, or moved on */
	if ((*idx = hs_notify_lock_at(*v, first, *n, obj, o->tid)))
		return 1;
	struct lt_rtlock *l = lt_rtlock_push(v, n);
	if (!l)
		return -ENOMEM;
	char cls[256] = "?";
	if (hs_class_name(j, hs_klass_of(j, obj), cls, sizeof(cls)))
		snprintf(cls, sizeof(cls), "?");
	hs_notify_lock(j, l, LT_KIND_JAVA_JOIN, obj, "Thread.join()", NULL);
	l->name = lts_asprintf("%s@0x%" PRIx64, cls, obj);
	l->held = 1;
	l->holder = o->tid;
	l->holder_how = lts_asprintf("the waiter is in Thread.join() and Object.wait() on the java.lang.Thread of "
				     "live thread %d%s%s%s (JavaThread 0x%" PRIx64 "), whose waiters the JVM "
				     "notifies when it exits", (int)o->tid, o->name ? " (\"" : "",
				     o->name ? o->name : "", o->name ? "\")" : "", o->addr);
	lt_strlist_add(&l->facts, "ObjectMonitor=0x%" PRIx64 " object=0x%" PRIx64 " class=%s JavaThread=0x%" PRIx64,
		       om, obj, cls, o->addr);
	*idx = *n - first;
	return 1;
}

/* ---- waits for other parties: CyclicBarrier, Phaser ---- */

/* Phaser's state (java/util/concurrent/Phaser.java): unarrived parties in
 * bits 0-15, parties in 16-31, the phase in 32-62, terminated in 63; no
 * party registered is the otherwise impossible 0 parties, 1 unarrived */
#define PH_EMPTY 1

/* Thread T parked on a Phaser$QNode (awaitAdvance, arriveAndAwaitAdvance:
 * the node's phaser is the root, whose state counts the parties, a
 * sub-phaser as one: the phaser the thread called is not reachable, and
 * how many threads wait says nothing of a tree, a non-party's
 * awaitAdvance() waiting too): the wait into *R; false when the phase
 * moved on (it is being released), the phaser terminated or a field is
 * not read. */
static bool phaser_wait(struct jvm *j, uint64_t node, struct lt_rtthread *r)
{
	uint64_t k = hs_klass_of(j, node);
	uint64_t off = k ? hs_field_offset(j, k, "phaser", "Ljava/util/concurrent/Phaser;") : UINT64_MAX;
	uint64_t ph = off != UINT64_MAX ? hs_oop_field(j, node, off) : 0;
	int64_t st = 0, wphase = -1;
	if (!ph || !num_field(j, ph, "state", true, &st) || !num_field(j, node, "phase", false, &wphase))
		return false;
	int32_t counts = (int32_t)(uint32_t)st;
	int32_t phase = (int32_t)((uint64_t)st >> 32);
	if (phase < 0 || phase != wphase)
		return false; /* terminated, or advanced: its waiters go on */
	int unarrived = counts == PH_EMPTY ? 0 : counts & 0xffff;
	int parties = (int)((uint32_t)counts >> 16);
	r->sig_kind = LT_KIND_JAVA_PHASER;
	r->sig_obj = ph;
	r->sig_name = lts_asprintf("java.util.concurrent.Phaser@0x%" PRIx64, ph);
	r->sig_state = lts_asprintf("phase %d, %d of its %d registered parties not arrived (the root phaser's "
				    "count: a sub-phaser is one party)", (int)phase, unarrived, parties);
	return r->sig_name && r->sig_state;
}

/* ---- the other parked waits, in Java's terms ---- */

static bool jdk_frame(const char *f)
{
	return f && (!strncmp(f, "java.", 5) || !strncmp(f, "jdk.", 4) || !strncmp(f, "sun.", 4) ||
		     !strncmp(f, "javax.", 6));
}

/* "LinkedBlockingQueue.take" of "java.util.concurrent.LinkedBlockingQueue.take" */
static const char *class_method(const char *f)
{
	const char *m = strrchr(f, '.'), *c = m;
	if (!m)
		return f;
	while (c > f && c[-1] != '.')
		c--;
	return c > f ? c : f;
}

/* Where the program called the wait of the thread at T, whose innermost
 * Java frame must begin with INNER (the JDK's own wait: Unsafe.park,
 * Object.wait), else NULL: "in LinkedBlockingQueue.take(), called by
 * Q.take1 (Q.java:22)": the JDK's frame the first frame of the program's
 * code called, and that frame; a thread that runs the JDK's code only (a
 * pool's worker, a Timer) is said by the frame that called ENTRY (the wait
 * it is in: ConditionObject.await, Object.wait).  ENTRY itself, called by
 * the program, is not said again ("called by Q.run (Q.java:9)").  *JOIN:
 * Thread.join() is among the innermost frames. */
static char *called_where(struct jvm *j, const struct jthread *t, const char *inner, const char *entry, bool *join)
{
	struct lt_rtthread r = { 0 };
	uint64_t pc = 0;
	size_t bad = j->frames_bad;
	char *out = NULL;
	*join = false;
	if (hs_java_walk(j, t, &r, &pc) || !r.n_frames || !r.frames[0].func ||
	    strncmp(r.frames[0].func, inner, strlen(inner)))
		goto done;
	size_t u = 0, e = r.n_frames;
	for (size_t k = 0; k < r.n_frames && k < 6; k++)
		*join |= r.frames[k].func && !strcmp(r.frames[k].func, "java.lang.Thread.join");
	while (u < r.n_frames && jdk_frame(r.frames[u].func))
		u++;
	for (size_t k = 0; k < r.n_frames; k++)
		if (r.frames[k].func && strstr(r.frames[k].func, entry))
			e = k;
	const struct lt_rtframe *api = u > 0 && u < r.n_frames ? &r.frames[u - 1]
				       : e + 1 < r.n_frames     ? &r.frames[e + 1] : NULL;
	const struct lt_rtframe *by = u > 0 && u < r.n_frames && r.frames[u].func ? &r.frames[u] : NULL;
	if (api && (!api->func || strstr(api->func, entry)))
		api = NULL; /* the program called the wait itself */
	char where[160] = "";
	if (by && by->file && by->line > 0)
		snprintf(where, sizeof(where), " (%s:%d)", by->file, by->line);
	if (api && by)
		out = lts_asprintf("in %s(), called by %s%s", class_method(api->func), by->func, where);
	else if (api)
		out = lts_asprintf("in %s() (the JDK's own code)", class_method(api->func));
	else if (by)
		out = lts_asprintf("called by %s%s", by->func, where);
	else
		out = lts_strdup("where it was called is not read");
done:
	j->frames_bad = bad;
	lt_rtthread_clear(&r);
	return out;
}

/* The object of the Object.wait() of the thread at T, 0 none. */
static uint64_t waiting_object(struct jvm *j, const struct jthread *t, uint64_t *om)
{
	const struct lay *L = &j->L;
	*om = L->jt_waiting && L->monitors ? hs_rd64(j, t->addr + L->jt_waiting) : 0;
	uint64_t slot = *om ? hs_rd64(j, *om + L->om_object) : 0;
	return slot ? hs_rd64(j, slot) : 0;
}

/* A parked wait no rule before names and no lock model claimed, of the
 * thread at T whose parkBlocker is BLOCKER (of class CLS; 0: none): a
 * Condition's await() (whoever holds its lock: one that runs may signal),
 * an Object.wait() (no blocker, a waiting monitor), a LockSupport.park()
 * with another blocker or none.  Named into *R by the object, with where
 * the program called it; false: none of these (frames not read, another
 * wait, a Thread.join(), which hs_join_wait claims). */
static bool parked_wait(struct jvm *j, const struct jthread *t, uint64_t blocker, const char *cls,
			struct lt_rtthread *r, uint64_t *om)
{
	bool join = false;
	char ocls[256];
	*om = 0;
	if (blocker && condition_lock(j, blocker)) {
		r->sig_state = called_where(j, t, "jdk.internal.misc.Unsafe.park", "$ConditionObject.await", &join);
		r->sig_kind = LT_KIND_JAVA_SIGNAL;
		r->sig_obj = blocker;
		r->sig_name = lts_asprintf("%s@0x%" PRIx64, cls, blocker);
	} else if (blocker) {
		r->sig_state = called_where(j, t, "jdk.internal.misc.Unsafe.park", "LockSupport.park", &join);
		r->sig_kind = LT_KIND_JAVA_UNPARK;
		r->sig_obj = blocker;
		r->sig_name = lts_asprintf("blocker %s@0x%" PRIx64, cls, blocker);
	} else {
		uint64_t obj = waiting_object(j, t, om);
		if (obj) {
			if (hs_class_name(j, hs_klass_of(j, obj), ocls, sizeof(ocls)))
				return false;
			r->sig_state = called_where(j, t, "java.lang.Object.wait", "java.lang.Object.wait", &join);
			r->sig_kind = LT_KIND_JAVA_NOTIFY;
			r->sig_obj = obj;
			r->sig_name = lts_asprintf("%s@0x%" PRIx64, ocls, obj);
		} else {
			r->sig_state = called_where(j, t, "jdk.internal.misc.Unsafe.park", "LockSupport.park", &join);
			r->sig_kind = LT_KIND_JAVA_UNPARK;
			r->sig_obj = 0; /* no object: its own Parker's futex, no two one wait */
			r->sig_name = lts_strdup("no blocker");
		}
	}
	return r->sig_state && !join;
}

/* A thread parked on a CountDownLatch's or a Semaphore's Sync (BLOCKER,
 * of class CLS): named by it, with its AQS state (read twice: the count
 * left, the permits available) and where the program called it; false
 * when the state or the frames are not read, or the owner is set. */
static bool counted_wait(struct jvm *j, const struct jthread *t, uint64_t blocker, const char *cls,
			 struct lt_rtthread *r)
{
	uint64_t owner = 1;
	int32_t st = sync_state(j, blocker);
	bool join = false;
	if (st < 0 || !owner_of(j, blocker, &owner) || owner)
		return false;
	char *where = called_where(j, t, "jdk.internal.misc.Unsafe.park", "LockSupport.park", &join);
	if (!where || join) {
		free(where);
		return false;
	}
	bool latch = !strncmp(cls, "java.util.concurrent.CountDownLatch$", 36);
	r->sig_kind = latch ? LT_KIND_JAVA_LATCH : LT_KIND_JAVA_SEMAPHORE;
	r->sig_obj = blocker;
	r->sig_name = lts_asprintf("%s@0x%" PRIx64, cls, blocker);
	if (latch)
		r->sig_state = lts_asprintf("count %d, %s", (int)st, where);
	else
		r->sig_state = lts_asprintf("%d permit%s available, %s", (int)st, st == 1 ? "" : "s", where);
	free(where);
	return r->sig_name && r->sig_state;
}

/* Threads parked waiting for other threads to arrive, which no thread
 * holds: in CyclicBarrier.await() (the barrier's Condition, its lock
 * free: the barrier itself is not reachable from there, so its count is
 * not read) or in a Phaser's advance; threads in a CompletableFuture's
 * or a ForkJoinTask's get() or join(); a CountDownLatch's await() and a
 * Semaphore's acquire() (counted_wait); and the other parked waits no lock
 * model claimed (parked_wait: a Condition's await(), an Object.wait(), a
 * LockSupport.park()).  Their futex waits are named so
 * (lt_rtthread.sig_kind) for the rules on signal waits; TH the scan's
 * threads, as j->t.  The Phaser's numbers are read twice (num_field), the
 * blocker and the thread's state again at the end. */
int hs_juc_parties(struct jvm *j, const size_t *idx, struct lt_rtthread *th)
{
	for (size_t i = 0; i < j->n; i++) {
		const struct jthread *t = &j->t[i];
		struct lt_rtthread *r = &th[i];
		uint64_t blocker = 0, b2 = 0, owner = 1;
		int32_t state = -1;
		if (idx[i] || t->pending || t->state != j->L.blocked || r->tid != t->tid)
			continue;
		if ((i & 255) == 0 && lt_budget_over()) {
			lt_budget_note("hotspot: stopped reading barrier and Phaser waits at thread %zu of %zu: the "
				       "snapshot's time ran out", i, j->n);
			break;
		}
		char cls[256] = "";
		uint64_t om = 0, om2 = 0;
		bool drop = false;
		if (!park_blocker(j, t->addr, &blocker) ||
		    (blocker && hs_class_name(j, hs_klass_of(j, blocker), cls, sizeof(cls))))
			continue;
		if (!blocker) {
			drop = !parked_wait(j, t, 0, NULL, r, &om);
		} else if (no_owner_sync(cls)) {
			drop = !counted_wait(j, t, blocker, cls, r);
		} else if (!strcmp(cls, "java.util.concurrent.Phaser$QNode")) {
			if (!phaser_wait(j, blocker, r))
				continue;
		} else if (!strcmp(cls, "java.util.concurrent.CompletableFuture$Signaller")) {
			if (!innermost_has(j, t, "java.util.concurrent.CompletableFuture.waitingGet", 8))
				continue; /* a timed get(): its own timeout */
			r->sig_kind = LT_KIND_JAVA_CFUTURE;
			r->sig_obj = blocker;
			r->sig_name = lts_asprintf("%s@0x%" PRIx64 " (the waiter's own; which future it waits for "
						   "is not read)", cls, blocker);
			r->sig_state = lts_strdup("in CompletableFuture.get() or join()");
		} else if (innermost_has(j, t, "java.util.concurrent.ForkJoinTask.awaitDone", 4)) {
			/* a getter parks on the task (outside its pool, or a
			 * worker of the pool with nothing else to run) */
			r->sig_kind = LT_KIND_JAVA_FJTASK;
			r->sig_obj = blocker;
			r->sig_name = lts_asprintf("the task %s@0x%" PRIx64, cls, blocker);
			r->sig_state = lts_strdup("in ForkJoinTask.get() or join()");
		} else {
			uint64_t lock = condition_lock(j, blocker);
			if (lock && owner_of(j, lock, &owner) && !owner &&
			    await_called_by(j, t, "java.util.concurrent.CyclicBarrier.dowait")) {
				r->sig_kind = LT_KIND_JAVA_BARRIER;
				r->sig_obj = blocker;
				r->sig_name = lts_asprintf("%s@0x%" PRIx64 " (a CyclicBarrier's Condition)", cls, blocker);
				r->sig_state = lts_strdup("in CyclicBarrier.await(), the barrier's lock free (how many "
							  "parties it needs is not read)");
			} else {
				/* another Condition's wait (its lock free, or held
				 * by a thread that may signal), another blocker's */
				drop = !parked_wait(j, t, blocker, cls, r, &om);
			}
		}
		if (drop || !park_blocker(j, t->addr, &b2) || b2 != blocker ||
		    hs_rd(j, t->addr + j->L.jt_state, &state, 4) || state != j->L.blocked || !r->sig_name ||
		    !r->sig_state || (om && (waiting_object(j, t, &om2), om2 != om))) {
			free(r->sig_name);
			free(r->sig_state);
			r->sig_name = r->sig_state = NULL;
			r->sig_kind = NULL;
			r->sig_obj = 0;
		}
	}
	return 0;
}
