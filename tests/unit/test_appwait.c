/* The application-wait table (appwait.h) on synthetic stacks, and its
 * verdicts on synthetic thread tables.  No root needed. */
#include <criterion/criterion.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "appwait.h"
#include "snapshot.h"
#include "waitfor.h"
#include "lt_fakeproc.h"
#include "lt_test.h"

/* frames innermost first; NULL names an unnamed (static) function;
 * names starting with '@' are in libc */
static void stack(struct lt_thread *t, const char *const *names, size_t n)
{
	t->frames = calloc(n, sizeof(*t->frames));
	cr_assert_not_null(t->frames);
	t->n_frames = n;
	for (size_t i = 0; i < n; i++) {
		const char *f = names[i];
		bool libc = f && f[0] == '@';
		t->frames[i].pc = 0x1000 + i;
		t->frames[i].func = f ? strdup(libc ? f + 1 : f) : NULL;
		t->frames[i].module = strdup(libc ? "libc.so.6" : "postgres");
	}
}

#define STACK(t, ...)                                                    \
	do {                                                             \
		static const char *const n_[] = { __VA_ARGS__ };         \
		stack(t, n_, sizeof(n_) / sizeof(n_[0]));                \
	} while (0)

static const struct lt_appwait_rule *match(struct lt_thread *t, char **via)
{
	return lt_appwait_match(t, NULL, 0, via);
}

Test(appwait_match, row_lock_wait_under_xact_lock_table_wait)
{
	struct lt_thread t = { 0 };
	STACK(&t, "@epoll_wait", "WaitEventSetWait", "WaitLatch", "ProcSleep", NULL,
	      "LockAcquireExtended", "XactLockTableWait", "heap_update", "ExecUpdate");
	char *via;
	const struct lt_appwait_rule *r = match(&t, &via);
	cr_assert_not_null(r);
	cr_assert_str_eq(r->app, "PostgreSQL");
	cr_assert_eq(r->cls, LT_APPWAIT_LOCK);
	cr_assert_str_eq(r->kind, "row/transaction lock");
	cr_assert_str_eq(via, "ProcSleep < ?? < LockAcquireExtended < XactLockTableWait");
	free(via);
	lt_thread_clear(&t);
}

Test(appwait_match, the_nearest_caller_names_the_lock)
{
	struct lt_thread t = { 0 };
	/* a table lock taken while something further up waits for rows */
	STACK(&t, "@epoll_wait", "WaitEventSetWait", "WaitLatch", "ProcSleep", NULL,
	      "LockAcquireExtended", "LockRelationOid", "relation_open", "XactLockTableWait");
	const struct lt_appwait_rule *r = match(&t, NULL);
	cr_assert_not_null(r);
	cr_assert_str_eq(r->kind, "table lock");
	lt_thread_clear(&t);
}

Test(appwait_match, advisory_locks_by_prefix_and_unknown_callers_fall_back)
{
	struct lt_thread t = { 0 };
	STACK(&t, "@epoll_wait", "WaitEventSetWait", "WaitLatch", "ProcSleep", NULL,
	      "LockAcquireExtended", "pg_advisory_lock_int8", "ExecInterpExpr");
	cr_assert_str_eq(match(&t, NULL)->kind, "advisory lock");
	lt_thread_clear(&t);
	STACK(&t, "@epoll_wait", "WaitEventSetWait", "WaitLatch", "ProcSleep", NULL,
	      "LockAcquireExtended", "some_extension_function", "a", "b", "c", "d");
	const struct lt_appwait_rule *r = match(&t, NULL);
	cr_assert_not_null(r);
	cr_assert_str_eq(r->kind, "heavyweight lock");
	cr_assert_eq(r->cls, LT_APPWAIT_LOCK);
	lt_thread_clear(&t);
}

Test(appwait_match, lwlock_and_client_read)
{
	struct lt_thread t = { 0 };
	STACK(&t, "@do_futex_wait", "@__new_sem_wait_slow64", "PGSemaphoreLock", "LWLockAcquire",
	      "BufferAlloc");
	const struct lt_appwait_rule *r = match(&t, NULL);
	cr_assert_not_null(r);
	cr_assert_str_eq(r->kind, "LWLock");
	lt_thread_clear(&t);
	STACK(&t, "@epoll_wait", "WaitEventSetWait", "secure_read", NULL, "pq_getbyte", "PostgresMain");
	r = match(&t, NULL);
	cr_assert_not_null(r);
	cr_assert_eq(r->cls, LT_APPWAIT_IDLE);
	lt_thread_clear(&t);
}

Test(appwait_match, other_modules_and_deep_frames_do_not_match)
{
	struct lt_thread t = { 0 };
	STACK(&t, "@epoll_wait", "WaitEventSetWait", "WaitLatch", "ProcSleep", "XactLockTableWait");
	free(t.frames[3].module);
	t.frames[3].module = strdup("libother.so");
	cr_assert_null(match(&t, NULL), "ProcSleep of another module");
	lt_thread_clear(&t);
	/* a sleep function far from the system call is not where it sleeps */
	STACK(&t, "@epoll_wait", "a", "b", "c", "d", "e", "f", "g", "h", "ProcSleep", "XactLockTableWait");
	cr_assert_null(match(&t, NULL));
	lt_thread_clear(&t);
	STACK(&t, "@epoll_wait", "WaitEventSetWait", "WaitLatch", "main");
	cr_assert_null(match(&t, NULL));
	lt_thread_clear(&t);
}

/* The table is data: another application's entries work the same way. */
Test(appwait_match, a_table_of_another_application)
{
	static const struct lt_appwait_rule mine[] = {
		{ "MyDB", NULL, "os_event_wait", 4, "row_lock_wait", 3, LT_APPWAIT_LOCK, "a row lock",
		  "row lock" },
		{ "MyDB", NULL, "os_event_wait", 4, NULL, 0, LT_APPWAIT_LOCK, "an event", "event" },
	};
	struct lt_thread t = { 0 };
	STACK(&t, "@futex_wait", "@pthread_cond_wait", "os_event_wait", "lock_wait", "row_lock_wait");
	char *via;
	const struct lt_appwait_rule *r = lt_appwait_match(&t, mine, 2, &via);
	cr_assert_eq(r, &mine[0]);
	cr_assert_str_eq(via, "os_event_wait < lock_wait < row_lock_wait");
	free(via);
	lt_thread_clear(&t);
	STACK(&t, "@futex_wait", "@pthread_cond_wait", "os_event_wait", "x");
	cr_assert_eq(lt_appwait_match(&t, mine, 2, NULL), &mine[1]);
	lt_thread_clear(&t);
}

Test(appwait_match, process_titles)
{
	static const char raw[] = "postgres: postgres db [local] UPDATE waiting\0\0\0   \0";
	char buf[128];
	lt_appwait_title(raw, sizeof(raw) - 1, buf, sizeof(buf));
	cr_assert_str_eq(buf, "postgres: postgres db [local] UPDATE waiting");
	static const char args[] = "/usr/bin/x\0-D\0/data\0";
	lt_appwait_title(args, sizeof(args) - 1, buf, sizeof(buf));
	cr_assert_str_eq(buf, "/usr/bin/x -D /data");
	lt_appwait_title(args, sizeof(args) - 1, buf, 5);
	cr_assert_str_eq(buf, "/usr");
}

/* ---- verdicts ---- */

static struct lt_snapshot *table(size_t n)
{
	struct lt_snapshot *s = calloc(1, sizeof(*s));
	cr_assert_not_null(s);
	s->pid = 100;
	s->threads = calloc(n, sizeof(*s->threads));
	s->n_threads = n;
	return s;
}

/* a backend of server 50 in epoll_wait for idle seconds */
static void backend(struct lt_thread *t, pid_t pid, int cls, const char *kind, const char *title,
		    double idle)
{
	t->tid = pid;
	snprintf(t->comm, sizeof(t->comm), "postgres");
	t->state = 'S';
	t->idle_s = idle;
	t->idle_src = LT_IDLE_SCHED_EXEC_START;
	t->sc.state = LT_SC_IN_SYSCALL;
	t->sc.nr = 232;
	t->sc_name = "epoll_wait";
	t->wait = LT_WAIT_POLL;
	t->fdw.epfd = 4;
	t->fdw.io.fd = -1;
	t->app_class = cls;
	t->app = cls ? "PostgreSQL" : NULL;
	t->app_kind = kind;
	t->app_what = kind;
	t->app_via = cls ? strdup("ProcSleep < ?? < LockAcquireExtended < XactLockTableWait") : NULL;
	t->app_title = title ? strdup(title) : NULL;
	t->app_pid = pid;
	t->app_server = cls ? 50 : 0;
}

#define ROW "row/transaction lock"
#define CLIENT "client read"

static const struct lt_verdict *only_lock_wait(const struct lt_snapshot *s)
{
	cr_assert_eq(s->n_verdicts, 1, "%zu verdicts, first: %s", s->n_verdicts,
		     s->n_verdicts ? s->verdicts[0].summary : "");
	cr_assert_eq(s->verdicts[0].kind, LT_VERDICT_LOCK_WAIT, "%s", s->verdicts[0].summary);
	return &s->verdicts[0];
}

Test(appwait_verdict, one_waiter_and_one_backend_in_a_transaction_is_an_inference)
{
	struct lt_snapshot *s = table(3);
	backend(&s->threads[0], 201, LT_APPWAIT_IDLE, CLIENT, "postgres: u d [local] idle in transaction", 30);
	backend(&s->threads[1], 202, LT_APPWAIT_LOCK, ROW, "postgres: u d [local] UPDATE waiting", 20);
	backend(&s->threads[2], 203, LT_APPWAIT_IDLE, CLIENT, "postgres: u d [local] idle", 40);
	cr_assert_eq(lt_snapshot_diagnose(s, NULL), 0);
	const struct lt_verdict *v = only_lock_wait(s);
	cr_assert_eq(v->owner, 0, "never an owner: it is not read from the server");
	cr_assert_eq(v->n_tids, 1);
	cr_assert_eq(v->tids[0], 202);
	cr_assert_not_null(strstr(v->summary, "SELECT pg_blocking_pids(202)"), "%s", v->summary);
	cr_assert_null(strstr(v->summary, "201"), "%s", v->summary);
	cr_assert(tl_strlist_has(&v->evidence, "inference, not read from the server's lock table: process 201 "
				 "is the only other traced backend"));
	cr_assert(tl_strlist_has(&v->evidence, "PostgreSQL's own mark of a lock wait"));
	lt_snapshot_free(s);
}

Test(appwait_verdict, several_backends_in_transactions_are_not_guessed_between)
{
	struct lt_snapshot *s = table(3);
	backend(&s->threads[0], 201, LT_APPWAIT_IDLE, CLIENT, "postgres: u d [local] idle in transaction", 30);
	backend(&s->threads[1], 202, LT_APPWAIT_LOCK, ROW, "postgres: u d [local] UPDATE waiting", 20);
	backend(&s->threads[2], 203, LT_APPWAIT_IDLE, CLIENT, "postgres: u d [local] idle in transaction", 40);
	cr_assert_eq(lt_snapshot_diagnose(s, NULL), 0);
	const struct lt_verdict *v = only_lock_wait(s);
	cr_assert_not(tl_strlist_has(&v->evidence, "inference, not read"));
	cr_assert(tl_strlist_has(&v->evidence, "processes 201, 203 of this server are inside a transaction"));
	lt_snapshot_free(s);
}

Test(appwait_verdict, two_row_waiters_are_not_called_a_deadlock)
{
	struct lt_snapshot *s = table(3);
	backend(&s->threads[0], 201, LT_APPWAIT_LOCK, ROW, "postgres: u d [local] UPDATE waiting", 30);
	backend(&s->threads[1], 202, LT_APPWAIT_LOCK, ROW, "postgres: u d [local] UPDATE waiting", 20);
	backend(&s->threads[2], 203, LT_APPWAIT_IDLE, CLIENT, "postgres: u d [local] idle", 40);
	cr_assert_eq(lt_snapshot_diagnose(s, NULL), 0);
	const struct lt_verdict *v = only_lock_wait(s);
	cr_assert_eq(v->n_tids, 2);
	cr_assert_str_eq(v->summary, "PostgreSQL lock wait: 2 backends wait on row locks (201, 202), "
				     "longest 30 s; PostgreSQL's deadlock detector runs after deadlock_timeout");
	cr_assert(tl_strlist_has(&v->evidence, "inference: no other traced backend of this server is inside "
				 "a transaction"));
	lt_snapshot_free(s);
}

Test(appwait_verdict, an_idle_backend_is_idle_and_a_moved_waiter_is_not_a_wait)
{
	struct lt_snapshot *s = table(2);
	backend(&s->threads[0], 201, LT_APPWAIT_IDLE, CLIENT, "postgres: u d [local] idle in transaction", 30);
	backend(&s->threads[1], 202, LT_APPWAIT_LOCK, ROW, "postgres: u d [local] UPDATE waiting", 20);
	s->threads[1].moved = true; /* it ran during the snapshot */
	cr_assert_eq(lt_snapshot_diagnose(s, NULL), 0);
	cr_assert_eq(s->n_verdicts, 1);
	cr_assert_eq(s->verdicts[0].kind, LT_VERDICT_OK, "%s", s->verdicts[0].summary);
	s->n_threads = 1;
	cr_assert_eq(lt_snapshot_diagnose(s, NULL), 0);
	cr_assert_eq(s->verdicts[0].kind, LT_VERDICT_IDLE, "%s", s->verdicts[0].summary);
	cr_assert(tl_strlist_has(&s->verdicts[0].evidence, "process 201 is idle inside a transaction"));
	s->n_threads = 2;
	lt_snapshot_free(s);
}

/* An LWLock waiter sleeps on a semaphore (a futex): one verdict, the
 * application's, not also the semaphore's "no holder recorded". */
Test(appwait_verdict, lwlock_waiter_on_its_semaphore)
{
	struct lt_snapshot *s = table(1);
	struct lt_thread *t = &s->threads[0];
	backend(t, 201, LT_APPWAIT_LOCK, "LWLock", "postgres: u d [local] SELECT", 3);
	t->sc.nr = 202;
	t->sc_name = "futex";
	t->wait = LT_WAIT_FUTEX;
	t->fdw.epfd = -1;
	uint64_t args[6] = { 0x7f0000001000, 0, 0, 0, 0, 0 };
	lt_futex_decode_args(&t->futex, args);
	t->futex.word_ok = true;
	t->futex.word = 0;
	t->futex.owner_kind = LT_OWNER_NONE;
	t->acquire = "sem_wait";
	t->futex.lock_kind = "semaphore";
	cr_assert_eq(lt_snapshot_diagnose(s, NULL), 0);
	const struct lt_verdict *v = only_lock_wait(s);
	cr_assert_not_null(strstr(v->summary, "PostgreSQL lock wait: process 201 waits for LWLock"), "%s",
			   v->summary);
	lt_snapshot_free(s);
}

/* ---- the stall witness (appwatch.h) with a fake look ---- */

#include "appwatch.h"
#include "stall.h"

#define SEC 1000000000ull

static int looks_asked;
static int look_class; /* what the fake snapshot's thread is */

static int fake_look(void *arg, uint32_t tid, struct lt_snapshot **out)
{
	(void)arg;
	looks_asked++;
	if (look_class < 0)
		return 1; /* not a program of the table */
	struct lt_snapshot *s = table(1);
	s->pid = (pid_t)tid;
	backend(&s->threads[0], (pid_t)tid, look_class, look_class == LT_APPWAIT_LOCK ? ROW : CLIENT,
		"postgres: t", 9);
	*out = s;
	return 0;
}

static void one_io_waiter(struct lt_stall *st, uint64_t since)
{
	uint64_t args[6] = { 4, 0, 1, (uint64_t)-1, 0, 0 };
	cr_assert_eq(lt_stall_init(st, LT_STALL_LOCKS, 2 * SEC, since), 0);
	lt_stall_seed(st, 300, -1, args, 0);
	lt_stall_seed(st, 300, 232 /* epoll_wait */, args, since);
}

Test(appwatch, a_long_io_wait_that_is_a_lock_wait_fires_once_looked_at)
{
	struct lt_stall st;
	one_io_waiter(&st, 10 * SEC);
	struct lt_appwatch *w = lt_appwatch_new(2 * SEC);
	char why[256] = "";
	looks_asked = 0;
	look_class = LT_APPWAIT_LOCK;
	/* not yet a window long: no look */
	cr_assert_eq(lt_appwatch_check(w, &st, 11 * SEC, fake_look, NULL, why, sizeof(why)), 0);
	cr_assert_eq(looks_asked, 0);
	cr_assert_eq(lt_appwatch_check(w, &st, 12 * SEC + 1, fake_look, NULL, why, sizeof(why)), 1);
	cr_assert_eq(looks_asked, 1);
	cr_assert_not_null(strstr(why, "process 300 thread 300 has waited 2.0 s (over 2.0 s) for a "
				  "PostgreSQL row/transaction lock [ProcSleep"), "%s", why);
	/* the answer is kept: no second look for the same call */
	cr_assert_eq(lt_appwatch_check(w, &st, 13 * SEC, fake_look, NULL, why, sizeof(why)), 1);
	cr_assert_eq(looks_asked, 1);
	/* a new window (after a trigger): the call is looked at again */
	lt_stall_rearm(&st, 14 * SEC);
	cr_assert_eq(lt_appwatch_check(w, &st, 15 * SEC, fake_look, NULL, why, sizeof(why)), 0);
	cr_assert_eq(lt_appwatch_check(w, &st, 16 * SEC + 1, fake_look, NULL, why, sizeof(why)), 1);
	cr_assert_eq(looks_asked, 2);
	lt_appwatch_free(w);
	lt_stall_free(&st);
}

Test(appwatch, an_idle_backend_is_looked_at_once_and_never_fires)
{
	struct lt_stall st;
	one_io_waiter(&st, 10 * SEC);
	struct lt_appwatch *w = lt_appwatch_new(2 * SEC);
	char why[256];
	looks_asked = 0;
	look_class = LT_APPWAIT_IDLE;
	for (uint64_t t = 12 * SEC; t < 60 * SEC; t += SEC / 10)
		cr_assert_eq(lt_appwatch_check(w, &st, t, fake_look, NULL, why, sizeof(why)), 0);
	cr_assert_eq(looks_asked, 1);
	cr_assert_eq(lt_appwatch_looks(w), 1);
	lt_appwatch_free(w);
	/* a process no rule is for: asked once, no snapshot counted */
	w = lt_appwatch_new(2 * SEC);
	looks_asked = 0;
	look_class = -1;
	for (uint64_t t = 12 * SEC; t < 20 * SEC; t += SEC / 10)
		cr_assert_eq(lt_appwatch_check(w, &st, t, fake_look, NULL, why, sizeof(why)), 0);
	cr_assert_eq(looks_asked, 1);
	cr_assert_eq(lt_appwatch_looks(w), 0);
	lt_appwatch_free(w);
	lt_stall_free(&st);
}

/* ---- PostgreSQL's lock holders, from a synthetic shared memory ---- */

#define PGBASE 0x7f0000010000ull
static struct fp_image pg; /* PostgreSQL's shared memory (lt_fakeproc.h) */

/* waiter (pid 100) waits in ShareLock (5) for transaction 745, which
 * backend 200 holds in ExclusiveLock (7); PostgreSQL 15's layout (PGPROC
 * pid at 64, waitLock 112, waitLockMode 128; LOCK grantMask 16, waitMask
 * 20, procLocks 24; PROCLOCK myLock 0, myProc 8, holdMask 24, lockLink 32) */
enum { W = 0x000, H = 0x400, LK = 0x800, PLW = 0x900, PLH = 0x980 };
static void pg_image(void)
{
	fi_free(&pg);
	fi_init(&pg, PGBASE, 0x1000, 0);
	fi_put32(&pg, PGBASE + W + 64, 100);
	fi_put64(&pg, PGBASE + W + 112, PGBASE + LK);
	fi_put32(&pg, PGBASE + W + 128, 5);
	fi_put32(&pg, PGBASE + H + 64, 200);
	fi_put32(&pg, PGBASE + LK + 0, 745);              /* field1: the xid */
	fi_put8(&pg, PGBASE + LK + 14, 5);       /* LOCKTAG_TRANSACTION */
	fi_put8(&pg, PGBASE + LK + 15, 1);       /* DEFAULT_LOCKMETHOD */
	fi_put32(&pg, PGBASE + LK + 16, 1u << 7);         /* granted: ExclusiveLock */
	fi_put32(&pg, PGBASE + LK + 20, 1u << 5);         /* awaited: ShareLock */
	fi_put64(&pg, PGBASE + LK + 24 + 8, PGBASE + PLW + 32);
	fi_put64(&pg, PGBASE + PLW + 0, PGBASE + LK);
	fi_put64(&pg, PGBASE + PLW + 8, PGBASE + W);
	fi_put64(&pg, PGBASE + PLW + 32 + 8, PGBASE + PLH + 32);
	fi_put64(&pg, PGBASE + PLH + 0, PGBASE + LK);
	fi_put64(&pg, PGBASE + PLH + 8, PGBASE + H);
	fi_put32(&pg, PGBASE + PLH + 24, 1u << 7);
	fi_put64(&pg, PGBASE + PLH + 32 + 8, PGBASE + LK + 24);
}

Test(pglocks, holder_of_a_transaction_lock)
{
	pg_image();
	struct lt_pg_wait w;
	char why[256] = "";
	cr_assert_eq(lt_pg_holders(fi_read, &pg, PGBASE + W, 100, &w, why, sizeof(why)), 0, "%s", why);
	cr_expect_str_eq(w.tag, "transaction 745");
	cr_expect_eq(w.mode, 5);
	cr_expect_str_eq(lt_pg_mode_name(w.mode), "ShareLock");
	cr_assert_eq(w.n_holders, 1);
	cr_expect_eq(w.holders[0], 200);
	cr_expect_eq(w.hold_masks[0], 1u << 7);
	cr_expect(!w.holder_waits[0]);
	/* the holder waiting itself (a deadlock's other half) */
	fi_put64(&pg, PGBASE + H + 112, PGBASE + 0xc00);
	cr_assert_eq(lt_pg_holders(fi_read, &pg, PGBASE + W, 100, &w, why, sizeof(why)), 0, "%s", why);
	cr_expect(w.holder_waits[0]);
	fi_free(&pg);
}

/* every check that guards a read: a layout that does not match says so */
Test(pglocks, a_mismatched_layout_is_refused)
{
	struct lt_pg_wait w;
	char why[256];
	pg_image();
	cr_expect_eq(lt_pg_holders(fi_read, &pg, PGBASE + W, 101, &w, why, sizeof(why)), -1);
	cr_expect(strstr(why, "MyProc->pid reads 100, not 101"), "%s", why);
	pg_image();
	fi_put32(&pg, PGBASE + W + 128, 12);
	cr_expect_eq(lt_pg_holders(fi_read, &pg, PGBASE + W, 100, &w, why, sizeof(why)), -1);
	cr_expect(strstr(why, "waitLockMode reads 12"), "%s", why);
	pg_image();
	fi_put32(&pg, PGBASE + LK + 20, 0);
	cr_expect_eq(lt_pg_holders(fi_read, &pg, PGBASE + W, 100, &w, why, sizeof(why)), -1);
	cr_expect(strstr(why, "waitMask 0x0"), "%s", why);
	pg_image();
	fi_put64(&pg, PGBASE + PLH + 0, PGBASE + 0x123);
	cr_expect_eq(lt_pg_holders(fi_read, &pg, PGBASE + W, 100, &w, why, sizeof(why)), -1);
	cr_expect(strstr(why, "not the lock"), "%s", why);
	pg_image();
	fi_put64(&pg, PGBASE + W + 112, 0);
	cr_expect_eq(lt_pg_holders(fi_read, &pg, PGBASE + W, 100, &w, why, sizeof(why)), -1);
	cr_expect(strstr(why, "no longer waits"), "%s", why);
	pg_image();
	fi_put64(&pg, PGBASE + PLH + 32 + 8, PGBASE + PLH + 32); /* a list that never returns */
	cr_expect_eq(lt_pg_holders(fi_read, &pg, PGBASE + W, 100, &w, why, sizeof(why)), -1);
	cr_expect(strstr(why, "broken list"), "%s", why);
	pg_image();
	fi_put64(&pg, PGBASE + W + 112, PGBASE + 0x5000);  /* outside the memory */
	cr_expect_eq(lt_pg_holders(fi_read, &pg, PGBASE + W, 100, &w, why, sizeof(why)), -1);
	cr_expect(strstr(why, "could not read"), "%s", why);
	/* granted but compatible: not a holder */
	pg_image();
	fi_put32(&pg, PGBASE + PLH + 24, 1u << 1);
	fi_put32(&pg, PGBASE + LK + 16, 1u << 1);
	cr_expect_eq(lt_pg_holders(fi_read, &pg, PGBASE + W, 100, &w, why, sizeof(why)), -1);
	cr_expect(strstr(why, "no mode granted"), "%s", why);
	fi_free(&pg);
}

Test(pglocks, locktags_in_words)
{
	unsigned char tag[16] = { 0 };
	char b[96];
	uint32_t db = 5, rel = 16384;
	memcpy(tag, &db, 4);
	memcpy(tag + 4, &rel, 4);
	tag[14] = 0;
	lt_pg_locktag_str(tag, b, sizeof(b));
	cr_expect_str_eq(b, "relation 16384 of database 5");
	tag[14] = 4;
	tag[8] = 3;
	tag[12] = 7;
	lt_pg_locktag_str(tag, b, sizeof(b));
	cr_expect_str_eq(b, "tuple (3,7) of relation 16384 of database 5");
}

/* The built-in offsets are those of PostgreSQL 15's own headers
 * (postgresql-server-dev-15): a program compiled against them prints
 * offsetof() of each field read, compared with lt_pg15_layout. */
#define PG_INC "/usr/include/postgresql/15/server"
static const char PG_OFFSETS_C[] =
	"#include \"postgres.h\"\n"
	"#include \"storage/proc.h\"\n"
	"#include \"storage/lock.h\"\n"
	"#include <stdio.h>\n"
	"#undef printf\n"
	"#define P(n, T, f) printf(\"%s %zu\\n\", n, offsetof(T, f))\n"
	"int main(void) {\n"
	"P(\"proc_pid\", PGPROC, pid); P(\"proc_waitlock\", PGPROC, waitLock);\n"
	"P(\"proc_waitmode\", PGPROC, waitLockMode); P(\"proc_groupleader\", PGPROC, lockGroupLeader);\n"
	"P(\"proc_waitstart\", PGPROC, waitStart);\n"
	"P(\"lock_tag\", LOCK, tag); P(\"lock_grantmask\", LOCK, grantMask); P(\"lock_waitmask\", LOCK, waitMask);\n"
	"P(\"lock_proclocks\", LOCK, procLocks); P(\"pl_mylock\", PROCLOCK, tag.myLock);\n"
	"P(\"pl_myproc\", PROCLOCK, tag.myProc); P(\"pl_groupleader\", PROCLOCK, groupLeader);\n"
	"P(\"pl_holdmask\", PROCLOCK, holdMask); P(\"pl_locklink\", PROCLOCK, lockLink);\n"
	"P(\"shmq_next\", SHM_QUEUE, next);\n"
	"printf(\"locktag_size %zu\\n\", sizeof(LOCKTAG));\n"
	"return 0; }\n";

Test(pglocks, offsets_match_the_server_headers)
{
	if (access(PG_INC "/storage/proc.h", R_OK))
		cr_skip_test("postgresql-server-dev-15 is not installed (scripts/install-deps.sh installs "
			     "it): the built-in offsets are not compared with its headers");
	char dir[] = "/tmp/lt-pgoff-XXXXXX", src[64], bin[64], cmd[512];
	cr_assert_not_null(mkdtemp(dir));
	snprintf(src, sizeof(src), "%s/o.c", dir);
	snprintf(bin, sizeof(bin), "%s/o", dir);
	FILE *f = fopen(src, "w");
	cr_assert_not_null(f);
	fputs(PG_OFFSETS_C, f);
	fclose(f);
	snprintf(cmd, sizeof(cmd), "cc -I" PG_INC " -o %s %s 2>&1", bin, src);
	cr_assert_eq(system(cmd), 0, "compiling against PostgreSQL's headers failed: %s", cmd);
	FILE *p = popen(bin, "r");
	cr_assert_not_null(p);
	const struct lt_pg_layout *L = &lt_pg15_layout;
	const struct { const char *n; unsigned v; } want[] = {
		{ "proc_pid", L->proc_pid }, { "proc_waitlock", L->proc_waitlock },
		{ "proc_waitmode", L->proc_waitmode }, { "proc_groupleader", L->proc_groupleader },
		{ "proc_waitstart", L->proc_waitstart },
		{ "lock_tag", L->lock_tag }, { "lock_grantmask", L->lock_grantmask },
		{ "lock_waitmask", L->lock_waitmask }, { "lock_proclocks", L->lock_proclocks },
		{ "pl_mylock", L->pl_mylock }, { "pl_myproc", L->pl_myproc },
		{ "pl_groupleader", L->pl_groupleader }, { "pl_holdmask", L->pl_holdmask },
		{ "pl_locklink", L->pl_locklink }, { "shmq_next", L->shmq_next }, { "locktag_size", 16 },
	};
	size_t seen = 0;
	char name[64];
	unsigned long v;
	while (fscanf(p, "%63s %lu", name, &v) == 2)
		for (size_t i = 0; i < sizeof(want) / sizeof(want[0]); i++)
			if (!strcmp(name, want[i].n)) {
				cr_expect_eq(v, want[i].v, "%s: the headers say %lu, locktrace uses %u", name, v,
					     want[i].v);
				seen++;
			}
	cr_expect_eq(pclose(p), 0);
	cr_expect_eq(seen, sizeof(want) / sizeof(want[0]));
	unlink(bin);
	unlink(src);
	rmdir(dir);
}

/* ---- a backend reading from its client (lt_pg_client_wait) ---- */

/* Backend 30 of postmaster 5, idle in transaction, in epoll_wait on the
 * postmaster-death pipe (written by 5 only), its latch's signalfd and its
 * client's socket (peer process 40), as lt_waitfor_collect leaves it. */
static void client_reader(struct lt_thread *t, const char *title, pid_t pipe_writer)
{
	memset(t, 0, sizeof(*t));
	t->tid = 30;
	t->state = 'S';
	t->sc.state = LT_SC_IN_SYSCALL;
	t->sc.nr = 232;
	t->wait = LT_WAIT_POLL;
	t->app_class = LT_APPWAIT_IDLE;
	t->app = "PostgreSQL";
	t->app_via = strdup("secure_read < ?? < pq_getbyte < PostgresMain");
	t->app_title = strdup(title);
	t->app_pid = 30;
	t->app_server = 5;
	struct lt_wf_edge *e = lt_waitfor_add(t, 30, LT_WF_PIPE_READ);
	e->what = strdup("pipe:[11] (fd 3)");
	e->pids[e->n_pids++] = pipe_writer;
	e->pstate = LT_WFP_TIMED;
	e = lt_waitfor_add(t, 30, LT_WF_UNKNOWN);
	e->what = strdup("anon_inode:[signalfd] (fd 7)");
	e->evidence = strdup("a signal sent to the process");
	e = lt_waitfor_add(t, 30, LT_WF_SOCKET);
	e->fd = 6;
	e->what = strdup("unix socket socket:[12] (fd 6), peer socket:[13]");
	e->evidence = strdup("peer from NETLINK_SOCK_DIAG UNIX_DIAG_PEER");
	e->pids[e->n_pids++] = 40;
	e->pstate = LT_WFP_BLOCKED;
}

Test(appwait_client, idle_in_transaction_waits_for_its_client_alone)
{
	struct lt_thread t;
	client_reader(&t, "postgres: postgres postgres [local] idle in transaction", 5);
	cr_assert(lt_pg_client_reader(&t));
	cr_assert_str_eq(lt_pg_client_timeout_guc(t.app_title), "idle_in_transaction_session_timeout");
	lt_pg_client_wait(&t, 5, 0, NULL);
	cr_assert_eq(t.wf->n_edges, 1, "the latch and the postmaster-death pipe are set aside");
	const struct lt_wf_edge *e = &t.wf->edges[0];
	cr_assert_eq(e->kind, LT_WF_SOCKET);
	cr_assert_eq(e->n_pids, 1);
	cr_assert_eq(e->pids[0], 40, "its client's process");
	cr_assert_eq(e->fd, 6);
	cr_assert_str_eq(e->what, "its client's connection (PostgreSQL backend idle in transaction, its title says: "
			 "it waits for the client's next command), unix socket socket:[12] (fd 6), peer socket:[13]");
	cr_assert_not_null(strstr(e->evidence, "peer from NETLINK_SOCK_DIAG UNIX_DIAG_PEER; its latch (signalfd) "
				  "and the postmaster-death pipe set aside"), "%s", e->evidence);
	cr_assert_not_null(strstr(e->evidence, "idle_in_transaction_session_timeout = 0 (read from the backend's "
				  "memory): no timeout ends it"), "%s", e->evidence);
	lt_thread_clear(&t);
}

/* The setting's timeout is the socket edge's own (the backend's timer,
 * SIGALRM, sets its latch): no edge of its own, which would say the wait
 * ends by a timer and no process: the edge keeps its one party, so that a
 * cycle through it is found, and says when the timeout ends it at most:
 * the timeout less the time the backend has not run (it armed the timer
 * when it went idle), or the value alone when that is not known. */
Test(appwait_client, a_timeout_that_ends_the_session_is_the_edges_own)
{
	struct lt_thread t;
	client_reader(&t, "postgres: postgres postgres [local] idle in transaction", 5);
	t.idle_src = LT_IDLE_SCHED_EXEC_START;
	t.idle_s = 3.25;
	lt_pg_client_wait(&t, 5, 60000, NULL);
	cr_assert_eq(t.wf->n_edges, 1, "the latch and the pipe set aside, no timer edge");
	const struct lt_wf_edge *e = &t.wf->edges[0];
	cr_assert_eq(e->kind, LT_WF_SOCKET);
	cr_assert_eq(e->n_pids, 1);
	cr_assert_eq(e->pids[0], 40);
	cr_assert_str_eq(e->timeout_what, "idle_in_transaction_session_timeout");
	cr_assert_float_eq(e->timeout_s, 60.0, 1e-9);
	cr_assert_float_eq(e->timeout_left_s, 56.75, 1e-9, "60 s less the 3.25 s it has not run");
	cr_assert_not_null(strstr(e->evidence, "idle_in_transaction_session_timeout = 60000 (read from the backend's "
				  "memory): the server ends the session when it expires, within 56.8 s (the timeout less "
				  "the 3.2 s the backend has not run"), "%s", e->evidence);
	lt_thread_clear(&t);
	/* when it went idle not known: the value alone, said so */
	client_reader(&t, "postgres: postgres postgres [local] idle in transaction", 5);
	lt_pg_client_wait(&t, 5, 60000, NULL);
	e = &t.wf->edges[0];
	cr_assert_float_eq(e->timeout_s, 60.0, 1e-9);
	cr_assert_lt(e->timeout_left_s, 0);
	cr_assert_not_null(strstr(e->evidence, "within 60.0 s at most (the timeout's value: when the backend went "
				  "idle is not known)"), "%s", e->evidence);
	lt_thread_clear(&t);
	/* expired already: nothing left */
	client_reader(&t, "postgres: postgres postgres [local] idle in transaction", 5);
	t.idle_src = LT_IDLE_SCHED_EXEC_START;
	t.idle_s = 75;
	lt_pg_client_wait(&t, 5, 60000, NULL);
	cr_assert_float_eq(t.wf->edges[0].timeout_left_s, 0, 1e-9);
	lt_thread_clear(&t);
	/* plain idle: idle_session_timeout; a statement reading (COPY FROM
	 * STDIN): statement_timeout */
	cr_assert_str_eq(lt_pg_client_timeout_guc("postgres: postgres postgres [local] idle"), "idle_session_timeout");
	cr_assert_str_eq(lt_pg_client_timeout_guc("postgres: postgres postgres [local] COPY"), "statement_timeout");
}

Test(appwait_client, followed_when_the_timeout_is_not_known)
{
	struct lt_thread t;
	/* the timeout not read: its client's socket all the same (the latch
	 * set aside), the timeout said to be not known */
	client_reader(&t, "postgres: postgres postgres [local] idle in transaction", 5);
	lt_pg_client_wait(&t, 5, -1, "its symbol was not found in the server's executable");
	cr_assert_eq(t.wf->n_edges, 1);
	const struct lt_wf_edge *e = &t.wf->edges[0];
	cr_assert_eq(e->kind, LT_WF_SOCKET);
	cr_assert_eq(e->pids[0], 40);
	cr_assert_str_eq(e->timeout_what, "idle_in_transaction_session_timeout");
	cr_assert_lt(e->timeout_s, 0, "not known");
	cr_assert_not_null(strstr(e->evidence, "idle_in_transaction_session_timeout could not be read (its symbol was "
				  "not found in the server's executable): whether a timeout ends the wait is not known"),
			   "%s", e->evidence);
	lt_thread_clear(&t);
	/* read as 0: no timeout */
	client_reader(&t, "postgres: postgres postgres [local] idle in transaction", 5);
	lt_pg_client_wait(&t, 5, 0, NULL);
	cr_assert_str_eq(t.wf->edges[0].timeout_what, "");
	lt_thread_clear(&t);
	/* a pipe another process writes is no postmaster-death pipe: kept */
	client_reader(&t, "postgres: postgres postgres [local] idle in transaction", 77);
	lt_pg_client_wait(&t, 5, 0, NULL);
	cr_assert_eq(t.wf->n_edges, 2);
	cr_assert_eq(t.wf->edges[0].kind, LT_WF_PIPE_READ);
	cr_assert_eq(t.wf->edges[0].pids[0], 77);
	cr_assert_eq(t.wf->edges[1].kind, LT_WF_SOCKET);
	lt_thread_clear(&t);
	/* not a client read (a lock wait): untouched */
	client_reader(&t, "postgres: postgres postgres [local] UPDATE waiting", 5);
	t.app_class = LT_APPWAIT_LOCK;
	lt_pg_client_wait(&t, 5, 0, NULL);
	cr_assert_eq(t.wf->n_edges, 3);
	lt_thread_clear(&t);
}

/* lock_timeout is armed with the wait (PGPROC.waitStart: the edge's
 * wait_s), statement_timeout before it: the one that ends first is the
 * edge's timeout, at most its value less the time waited. */
Test(appwait_client, lock_and_statement_timeouts_of_a_lock_wait)
{
	struct lt_wf_edge e;
	memset(&e, 0, sizeof(e));
	e.wait_s = 2.5;
	lt_pg_lock_timeouts(&e, 0, 0, 1.0, NULL);
	cr_assert_str_eq(e.timeout_what, "", "no timeout");
	cr_assert_not_null(strstr(e.evidence, "lock_timeout = 0, statement_timeout = 0"), "%s", e.evidence);
	free(e.evidence);
	memset(&e, 0, sizeof(e));
	e.wait_s = 2.5;
	lt_pg_lock_timeouts(&e, 10000, 30000, 1.0, NULL);
	cr_assert_str_eq(e.timeout_what, "lock_timeout");
	cr_assert_float_eq(e.timeout_s, 10.0, 1e-9);
	cr_assert_float_eq(e.timeout_left_s, 7.5, 1e-9, "10 s less the 2.5 s since PGPROC.waitStart");
	cr_assert_not_null(strstr(e.evidence, "lock_timeout cancels the statement within 7.5 s (the timeout less the "
				  "2.5 s since PGPROC.waitStart)"), "%s", e.evidence);
	free(e.evidence);
	/* statement_timeout first; waitStart not read: the time not run */
	memset(&e, 0, sizeof(e));
	lt_pg_lock_timeouts(&e, 10000, 4000, 1.0, NULL);
	cr_assert_str_eq(e.timeout_what, "statement_timeout");
	cr_assert_float_eq(e.timeout_left_s, 3.0, 1e-9);
	free(e.evidence);
	/* neither known how old: the value alone */
	memset(&e, 0, sizeof(e));
	lt_pg_lock_timeouts(&e, 10000, 0, -1, NULL);
	cr_assert_str_eq(e.timeout_what, "lock_timeout");
	cr_assert_lt(e.timeout_left_s, 0);
	free(e.evidence);
	/* not read: not known */
	memset(&e, 0, sizeof(e));
	lt_pg_lock_timeouts(&e, -1, -1, 1.0, "LOCKTRACE_NO_PG_SETTINGS is set");
	cr_assert_str_eq(e.timeout_what, "lock_timeout, statement_timeout");
	cr_assert_lt(e.timeout_s, 0);
	cr_assert_not_null(strstr(e.evidence, "could not be read (LOCKTRACE_NO_PG_SETTINGS is set)"), "%s", e.evidence);
	free(e.evidence);
}

/* A lone row-lock waiter whose lock_timeout was read: its headline says
 * the statement is cancelled by it, and when; unread, that it is not
 * known whether it is. */
Test(appwait_verdict, a_lone_waiters_lock_timeout_is_in_its_headline)
{
	for (int read = 1; read >= 0; read--) {
		struct lt_snapshot *s = table(1);
		backend(&s->threads[0], 202, LT_APPWAIT_LOCK, ROW, "postgres: u d [local] UPDATE waiting", 20);
		struct lt_wf_edge *e = lt_waitfor_add(&s->threads[0], 202, LT_WF_APP_LOCK);
		cr_assert_not_null(e);
		e->what = strdup("transaction 812");
		e->wait_s = 2.5;
		lt_pg_lock_timeouts(e, read ? 10000 : -1, read ? 0 : -1, 1.0, read ? NULL : "not read, for the test");
		cr_assert_eq(lt_snapshot_diagnose(s, NULL), 0);
		const struct lt_verdict *v = only_lock_wait(s);
		const char *want = read ? "; its lock_timeout (10.0 s) cancels the statement within 7.5 s"
				       : "; whether its lock_timeout, statement_timeout cancels the statement is not known";
		cr_assert_not_null(strstr(v->summary, want), "%s", v->summary);
		lt_snapshot_free(s);
	}
}
