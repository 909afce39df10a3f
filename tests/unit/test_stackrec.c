/* The collector's side of record --stacks (src/record/stackrec.c): a
 * waiter's stack copied by the BPF side at its wake-up (LT_COPY_WAITER)
 * is matched to its wait by (tid, the wait's entry ts), whichever of the
 * two rings brings its part first, and the wait is then not read from
 * /proc.  Synthetic entries and copies for threads of this process: the
 * copies are of this thread's own registers and stack (getcontext), so
 * the unwinder really unwinds them; the one read from /proc is of a
 * thread of this test really asleep in FUTEX_WAIT. */
#include <criterion/criterion.h>
#include <linux/futex.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <signal.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <time.h>
#include <ucontext.h>
#include <unistd.h>
#include "stackrec.h"
#include "locktrace/calls.h"

static struct lt_event wait_entry(int32_t tid, uint64_t ts, uint64_t uaddr)
{
	struct lt_event e;
	memset(&e, 0, sizeof(e));
	e.h.ts = ts;
	e.h.tid = (uint32_t)tid;
	e.h.kind = LT_EV_FUTEX_ENTER;
	e.h.flags = LT_F_AT_SLEEP;
	e.futex.nr = LT_NR_FUTEX;
	e.futex.uaddr = uaddr;
	e.futex.op = FUTEX_WAIT_PRIVATE;
	e.futex.timeout = -1;
	return e;
}

static struct lt_event sys_exit(int32_t tid, uint64_t ts)
{
	struct lt_event e;
	memset(&e, 0, sizeof(e));
	e.h.ts = ts;
	e.h.tid = (uint32_t)tid;
	e.h.kind = LT_EV_SYS_EXIT;
	e.exit.nr = LT_NR_FUTEX;
	return e;
}

/* Bytes of this thread's own stack, as bpf_probe_read_user reads them:
 * past the live frames too, where the sanitizers keep their red zones
 * (not checked here: what is read is data for the unwinder, not objects). */
__attribute__((no_sanitize_address)) static void stack_bytes(uint8_t *d, uint64_t from, size_t n)
{
	const volatile uint8_t *s = (const volatile uint8_t *)(uintptr_t)from;
	for (size_t i = 0; i < n; i++)
		d[i] = s[i];
}

/* A waiter's copy as the BPF side writes it, of this thread's registers
 * and stack (for tid: the unwinder does not care whose). */
__attribute__((noinline)) static void own_copy(struct lt_stack_copy *c, int32_t tid, uint64_t ts,
					       uint64_t at)
{
	ucontext_t uc;
	memset(c, 0, sizeof(*c));
	cr_assert_eq(getcontext(&uc), 0);
	const greg_t *g = uc.uc_mcontext.gregs;
	c->ts = ts;
	c->at = at;
	c->tid = (uint32_t)tid;
	c->tgid = (uint32_t)getpid();
	c->role = LT_COPY_WAITER;
	c->ip = (uint64_t)g[REG_RIP];
	c->sp = (uint64_t)g[REG_RSP];
	c->bp = (uint64_t)g[REG_RBP];
	c->bx = (uint64_t)g[REG_RBX];
	c->r12 = (uint64_t)g[REG_R12];
	c->r13 = (uint64_t)g[REG_R13];
	c->r14 = (uint64_t)g[REG_R14];
	c->r15 = (uint64_t)g[REG_R15];
	c->len = LT_STACK_COPY_BYTES;
	stack_bytes(c->stack, c->sp, LT_STACK_COPY_BYTES);
}

/* Feeds R the event E of a thread of this process. */
static void feed(struct lt_stackrec *r, struct lt_event e)
{
	lt_stackrec_event(r, &e, (uint32_t)getpid());
}

/* E as written at sys_enter (--calls all), not at the sleep. */
static struct lt_event at_enter(struct lt_event e)
{
	e.h.flags = 0;
	return e;
}

/* Feeds R a waiter's copy (own_copy, into C) of TID's wait entered at TS,
 * copied at AT. */
static void feed_copy(struct lt_stackrec *r, struct lt_stack_copy *c, int32_t tid, uint64_t ts,
		      uint64_t at)
{
	own_copy(c, tid, ts, at);
	lt_stackrec_copy_cb(r, c, sizeof(*c));
}

static struct lt_stackrec *new_rec(void)
{
	/* no symbol cache written by a unit test */
	setenv("LOCKTRACE_CACHE_DIR", "off", 1);
	struct lt_stackrec *r = lt_stackrec_new(0); /* no sampling of short waits */
	cr_assert(r);
	return r;
}

static const struct lt_stackrec_stats *finish(struct lt_stackrec *r)
{
	lt_stackrec_finish(r);
	return lt_stackrec_stats(r);
}

#define MS 1000000ull

/* The wait's entry first, then the copy (its wake-up came after the
 * collector had the entry): the read due 1 ms after the wait began is
 * called off, the copy is the wait's stack. */
Test(stackrec, copy_after_its_entry_calls_off_the_read, .timeout = 60)
{
	struct lt_stackrec *r = new_rec();
	int32_t tid = 4000001; /* no such thread: a read would fail */
	feed(r, wait_entry(tid, 10 * MS, 0x1000));
	cr_assert_eq(lt_stackrec_due_ms(r, 10 * MS), 1, "the read is due 1 ms after the wait began");
	struct lt_stack_copy *c = malloc(sizeof(*c));
	feed_copy(r, c, tid, 10 * MS, 13 * MS);
	cr_assert_eq(lt_stackrec_due_ms(r, 12 * MS), -1, "a read is still pending");
	lt_stackrec_read(r, 20 * MS);
	feed(r, sys_exit(tid, 14 * MS));
	const struct lt_stackrec_stats *k = finish(r);
	cr_assert_eq(k->waits, 1);
	cr_assert_eq(k->reads, 0, "read from /proc %llu times", (unsigned long long)k->reads);
	cr_assert_eq(k->bpf_waiters, 1);
	cr_assert_eq(k->bpf_kept, 1, "the copy was not unwound and filed");
	cr_assert_eq(k->kept, 0);
	cr_assert_eq(k->bpf_dup, 0);
	free(c);
	lt_stackrec_free(r);
}

/* The copy first (the two rings are drained in either order), then the
 * entry of the same wait: no read is scheduled for it; the entry of the
 * thread's next wait is read as usual. */
Test(stackrec, copy_before_its_entry_is_remembered, .timeout = 60)
{
	struct lt_stackrec *r = new_rec();
	int32_t tid = 4000002;
	struct lt_stack_copy *c = malloc(sizeof(*c));
	feed_copy(r, c, tid, 50 * MS, 52 * MS);
	feed(r, wait_entry(tid, 50 * MS, 0x1000));
	cr_assert_eq(lt_stackrec_due_ms(r, 50 * MS), -1, "the wait copied by BPF is read too");
	feed(r, sys_exit(tid, 53 * MS));
	/* the next wait of that thread has no copy: read 1 ms in */
	feed(r, wait_entry(tid, 60 * MS, 0x1000));
	cr_assert_eq(lt_stackrec_due_ms(r, 60 * MS), 1);
	lt_stackrec_read(r, 61 * MS);
	const struct lt_stackrec_stats *k = finish(r);
	cr_assert_eq(k->waits, 2);
	cr_assert_eq(k->reads, 1, "the second wait was read %llu times", (unsigned long long)k->reads);
	cr_assert_eq(k->failed, 1); /* no such thread */
	cr_assert_eq(k->bpf_kept, 1);
	free(c);
	lt_stackrec_free(r);
}

/* A copy of another wait of the thread (another ts) leaves this one's read
 * in place. */
Test(stackrec, copy_of_another_wait_leaves_the_read, .timeout = 60)
{
	struct lt_stackrec *r = new_rec();
	int32_t tid = 4000003;
	feed(r, wait_entry(tid, 80 * MS, 0x1000));
	struct lt_stack_copy *c = malloc(sizeof(*c));
	feed_copy(r, c, tid, 70 * MS, 79 * MS); /* an earlier wait's, late */
	cr_assert_eq(lt_stackrec_due_ms(r, 80 * MS), 1, "the read of the wait at 80 ms was called off");
	/* and another thread's copy at the same ts neither */
	feed_copy(r, c, tid + 1, 80 * MS, 82 * MS);
	cr_assert_eq(lt_stackrec_due_ms(r, 80 * MS), 1);
	const struct lt_stackrec_stats *k = finish(r);
	cr_assert_eq(k->bpf_waiters, 2);
	cr_assert_eq(k->bpf_kept, 2); /* both filed, each for its own wait */
	free(c);
	lt_stackrec_free(r);
}

/* A copy with no bytes (the stack was unreadable) calls nothing off: the
 * read stays the wait's chance. */
Test(stackrec, empty_copy_leaves_the_read, .timeout = 60)
{
	struct lt_stackrec *r = new_rec();
	int32_t tid = 4000004;
	feed(r, wait_entry(tid, 90 * MS, 0x1000));
	struct lt_stack_copy *c = malloc(sizeof(*c));
	own_copy(c, tid, 90 * MS, 92 * MS);
	c->len = 0;
	lt_stackrec_copy_cb(r, c, sizeof(*c));
	cr_assert_eq(lt_stackrec_due_ms(r, 90 * MS), 1);
	const struct lt_stackrec_stats *k = finish(r);
	cr_assert_eq(k->bpf_waiters, 1);
	cr_assert_eq(k->bpf_kept, 0);
	free(c);
	lt_stackrec_free(r);
}

/* LOCKTRACE_WAITER_STACKS=bpf (lt_stackrec_no_reads): no read is ever
 * scheduled. */
Test(stackrec, no_reads_schedules_none, .timeout = 60)
{
	struct lt_stackrec *r = new_rec();
	lt_stackrec_no_reads(r);
	feed(r, wait_entry(4000005, 100 * MS, 0x1000));
	cr_assert_eq(lt_stackrec_due_ms(r, 100 * MS), -1);
	lt_stackrec_read(r, 200 * MS);
	const struct lt_stackrec_stats *k = finish(r);
	cr_assert_eq(k->waits, 1);
	cr_assert_eq(k->reads, 0);
	lt_stackrec_free(r);
}

/* With the BPF side copying the long waits (lt_stackrec_bpf_waiters), an
 * untimed wait on a private futex of a plain native process is not read
 * at 1 ms (only a thread of its process can end it, and that wake-up
 * copies it), only if it is still asleep 100 ms on (a hang has a stack);
 * a timed one, one on a shared futex, and one of a process not opened yet
 * are read at 1 ms. */
Test(stackrec, untimed_private_futex_waits_are_left_to_the_bpf_copy, .timeout = 60)
{
	struct lt_stackrec *r = new_rec();
	lt_stackrec_bpf_waiters(r);
	/* before the process is opened (its runtimes unknown): read */
	feed(r, wait_entry(4000010, 10 * MS, 0x1000));
	cr_assert_eq(lt_stackrec_due_ms(r, 10 * MS), 1, "a wait of a process not opened yet is read");
	feed(r, sys_exit(4000010, 11 * MS));
	lt_stackrec_settle(r, 5000); /* the unwinder opened this process */
	feed(r, wait_entry(4000011, 20 * MS, 0x1000));
	cr_assert_eq(lt_stackrec_due_ms(r, 20 * MS), 100,
		     "an untimed private futex wait is read only once 100 ms old (a hang)");
	feed(r, sys_exit(4000011, 21 * MS));
	struct lt_event timed = wait_entry(4000012, 30 * MS, 0x1000);
	timed.futex.timeout = 5 * (int64_t)MS;
	feed(r, timed);
	cr_assert_eq(lt_stackrec_due_ms(r, 30 * MS), 1, "a timed wait (a timer may end it) is read");
	feed(r, sys_exit(4000012, 31 * MS));
	struct lt_event shared = wait_entry(4000013, 40 * MS, 0x1000);
	shared.futex.op = FUTEX_WAIT; /* another process may wake it */
	feed(r, shared);
	cr_assert_eq(lt_stackrec_due_ms(r, 40 * MS), 1, "a wait on a shared futex is read");
	feed(r, sys_exit(4000013, 41 * MS));
	const struct lt_stackrec_stats *k = finish(r);
	cr_assert_eq(k->waits, 4);
	cr_assert_eq(k->left_to_bpf, 1, "%llu waits left to the BPF copy, expected 1",
		     (unsigned long long)k->left_to_bpf);
	lt_stackrec_free(r);
}

static uint32_t futex_word;
static int32_t sleeper_tid;

static void *sleeper(void *arg)
{
	(void)arg;
	__atomic_store_n(&sleeper_tid, (int32_t)syscall(SYS_gettid), __ATOMIC_RELEASE);
	while (!__atomic_load_n(&futex_word, __ATOMIC_ACQUIRE))
		syscall(SYS_futex, &futex_word, FUTEX_WAIT_PRIVATE, 0, NULL, NULL, 0);
	return NULL;
}

/* Is tid asleep in futex(uaddr, ...)?  (/proc/self/task/TID/syscall) */
static int in_futex(int32_t tid, uint64_t uaddr)
{
	char path[64], line[256];
	snprintf(path, sizeof(path), "/proc/self/task/%d/syscall", (int)tid);
	FILE *f = fopen(path, "r");
	if (!f)
		return 0;
	unsigned long long a0 = 0;
	int nr = -1;
	int ok = fgets(line, sizeof(line), f) && sscanf(line, "%d %llx", &nr, &a0) == 2;
	fclose(f);
	return ok && nr == LT_NR_FUTEX && a0 == uaddr;
}

/* Starts the sleeper thread TH and waits until it is asleep in
 * FUTEX_WAIT on futex_word: its tid. */
static int32_t start_sleeper(pthread_t *th)
{
	futex_word = 0;
	sleeper_tid = 0;
	cr_assert_eq(pthread_create(th, NULL, sleeper, NULL), 0);
	int32_t tid;
	while (!(tid = __atomic_load_n(&sleeper_tid, __ATOMIC_ACQUIRE)))
		usleep(1000);
	uint64_t uaddr = (uint64_t)(uintptr_t)&futex_word;
	for (int i = 0; i < 5000 && !in_futex(tid, uaddr); i++)
		usleep(1000);
	cr_assert(in_futex(tid, uaddr), "the sleeper thread never slept in FUTEX_WAIT");
	return tid;
}

/* Wakes the sleeper thread TH and waits for it to end. */
static void stop_sleeper(pthread_t th)
{
	__atomic_store_n(&futex_word, 1, __ATOMIC_RELEASE);
	syscall(SYS_futex, &futex_word, FUTEX_WAKE_PRIVATE, 1, NULL, NULL, 0);
	pthread_join(th, NULL);
}

/* The collector read a wait from /proc (the thread really asleep), then
 * the BPF side's copy of the same wait comes: one of the two is kept, the
 * copy (certain to be of the sleep), and the read is not counted as one
 * that came too late. */
Test(stackrec, copy_replaces_a_read_of_the_same_wait, .timeout = 60)
{
	pthread_t th;
	int32_t tid = start_sleeper(&th);
	uint64_t uaddr = (uint64_t)(uintptr_t)&futex_word;

	struct lt_stackrec *r = new_rec();
	feed(r, wait_entry(tid, 200 * MS, uaddr));
	lt_stackrec_read(r, 201 * MS);
	const struct lt_stackrec_stats *k = lt_stackrec_stats(r);
	cr_assert_eq(k->reads, 1);
	cr_assert_eq(k->failed, 0, "the sleeping thread could not be read from /proc");
	struct lt_stack_copy *c = malloc(sizeof(*c));
	feed_copy(r, c, tid, 200 * MS, 205 * MS);
	feed(r, sys_exit(tid, 206 * MS));

	stop_sleeper(th);

	k = finish(r);
	cr_assert_eq(k->bpf_dup, 1);
	cr_assert_eq(k->late, 0, "the dropped read was counted as late");
	cr_assert_eq(k->kept, 0, "the read was kept beside the copy");
	cr_assert_eq(k->bpf_kept, 1);
	free(c);
	lt_stackrec_free(r);
}

/* --calls all: the wait's entry is written at sys_enter (no LT_F_AT_SLEEP)
 * and the BPF side keys its copies with that entry's ts; a call that
 * sleeps again after its copy may bring a second copy of the same wait
 * (same tid and ts): the first is its stack, the second is dropped and
 * counted, in either order of entry and copies. */
Test(stackrec, second_copy_of_a_wait_is_dropped, .timeout = 60)
{
	struct lt_stackrec *r = new_rec();
	int32_t tid = 4000006;
	feed(r, at_enter(wait_entry(tid, 300 * MS, 0x1000)));
	struct lt_stack_copy *c = malloc(sizeof(*c));
	feed_copy(r, c, tid, 300 * MS, 303 * MS);
	cr_assert_eq(lt_stackrec_due_ms(r, 300 * MS), -1, "the copied wait is still to be read");
	feed_copy(r, c, tid, 300 * MS, 309 * MS); /* it slept again in the same call */
	feed(r, sys_exit(tid, 310 * MS));

	/* copies first: the entry comes after both */
	feed_copy(r, c, tid, 400 * MS, 403 * MS);
	feed_copy(r, c, tid, 400 * MS, 407 * MS);
	feed(r, at_enter(wait_entry(tid, 400 * MS, 0x1000)));
	cr_assert_eq(lt_stackrec_due_ms(r, 400 * MS), -1);
	feed(r, sys_exit(tid, 410 * MS));

	const struct lt_stackrec_stats *k = finish(r);
	cr_assert_eq(k->waits, 2);
	cr_assert_eq(k->reads, 0);
	cr_assert_eq(k->bpf_waiters, 4);
	cr_assert_eq(k->bpf_again, 2, "second copies dropped: %llu",
		     (unsigned long long)k->bpf_again);
	cr_assert_eq(k->bpf_kept, 2, "one stack per wait: %llu", (unsigned long long)k->bpf_kept);
	free(c);
	lt_stackrec_free(r);
}

/* --calls all: the collector read a long wait and kept the read (the
 * thread returned after it), then the BPF side's copy taken at the call's
 * return comes: the wait has its stack, the copy is dropped. */
Test(stackrec, copy_after_a_kept_read_is_dropped, .timeout = 60)
{
	pthread_t th;
	int32_t tid = start_sleeper(&th);
	uint64_t uaddr = (uint64_t)(uintptr_t)&futex_word;

	struct lt_stackrec *r = new_rec();
	feed(r, at_enter(wait_entry(tid, 200 * MS, uaddr)));
	lt_stackrec_read(r, 201 * MS);
	cr_assert_eq(lt_stackrec_stats(r)->reads, 1);
	cr_assert_eq(lt_stackrec_stats(r)->failed, 0, "the sleeping thread could not be read");
	/* its return, stamped after any copy's end: the read is kept */
	feed(r, sys_exit(tid, UINT64_MAX / 2));
	struct lt_stack_copy *c = malloc(sizeof(*c));
	feed_copy(r, c, tid, 200 * MS, UINT64_MAX / 2);

	stop_sleeper(th);

	const struct lt_stackrec_stats *k = finish(r);
	cr_assert_eq(k->kept, 1, "the read was not kept");
	cr_assert_eq(k->bpf_again, 1, "the copy was not dropped");
	cr_assert_eq(k->bpf_kept, 0, "the copy was kept beside the read");
	free(c);
	lt_stackrec_free(r);
}

/* Copies of one call path: the first is unwound by the unwinder, the later
 * ones (waiters' and a waker's) are found in its unwind cache by the
 * collector's thread as they arrive, with no job for the unwinder; each is
 * filed, all with the one stack. */
Test(stackrec, a_cached_call_path_is_filed_by_the_collector, .timeout = 60)
{
	struct lt_stackrec *r = new_rec();
	struct lt_stack_copy *c = malloc(sizeof(*c));
	own_copy(c, 4000011, 10 * MS, 12 * MS);
	lt_stackrec_copy_cb(r, c, sizeof(*c));
	lt_stackrec_settle(r, 5000); /* unwound, and remembered */
	cr_assert_eq(lt_stackrec_stats(r)->bpf_kept, 1, "the first copy was not unwound and filed");
	for (int i = 0; i < 3; i++) {
		c->tid = 4000012 + (uint32_t)i;
		c->ts = (20 + (uint64_t)i) * MS;
		c->at = c->ts + 2 * MS;
		lt_stackrec_copy_cb(r, c, sizeof(*c));
	}
	c->role = LT_COPY_WAKER;
	c->tid = 4000020;
	c->ts = c->at = 30 * MS;
	lt_stackrec_copy_cb(r, c, sizeof(*c));
	const struct lt_stackrec_stats *k = finish(r);
	cr_assert_eq(k->bpf_kept, 4);
	cr_assert_eq(k->wakers_kept, 1);
	cr_assert_eq(k->unwinds_cached, 4);
	cr_assert_eq(k->cached_here, 4, "found by the collector's thread: %llu of 4",
		     (unsigned long long)k->cached_here);
	cr_assert_eq(k->stacks, 1, "%llu distinct stacks", (unsigned long long)k->stacks);
	free(c);
	lt_stackrec_free(r);
}

/* Reads of a sleeping thread (from /proc: sp and ip only) are remembered
 * as BPF copies are: the first is unwound by the unwinder, a second read
 * of the same call path is found in the unwind cache by the collector's
 * thread (no job for the unwinder); both waits are filed, with the one
 * stack. */
Test(stackrec, a_read_of_a_cached_call_path_is_not_unwound_again, .timeout = 60)
{
	pthread_t th;
	int32_t tid = start_sleeper(&th);
	uint64_t uaddr = (uint64_t)(uintptr_t)&futex_word;

	/* the waits' times on the clock of the copies' (a read is kept if
	 * its wait ended after the copy) */
	struct timespec now;
	clock_gettime(CLOCK_BOOTTIME, &now);
	uint64_t t0 = (uint64_t)now.tv_sec * 1000000000ull + (uint64_t)now.tv_nsec;
	struct lt_stackrec *r = new_rec();
	feed(r, wait_entry(tid, t0, uaddr));
	lt_stackrec_read(r, t0 + MS);
	lt_stackrec_settle(r, 5000); /* unwound, and remembered */
	const struct lt_stackrec_stats *k = lt_stackrec_stats(r);
	cr_assert_eq(k->reads, 1);
	cr_assert_eq(k->failed, 0, "the sleeping thread could not be read from /proc");
	cr_assert_eq(k->unwinds_cached, 0);
	feed(r, sys_exit(tid, t0 + 10000 * MS));
	feed(r, wait_entry(tid, t0 + 10001 * MS, uaddr));
	lt_stackrec_read(r, t0 + 10002 * MS);
	k = lt_stackrec_stats(r);
	cr_assert_eq(k->reads, 2);
	cr_assert_eq(k->failed, 0, "the sleeping thread could not be read from /proc");
	cr_assert_eq(k->cached_here, 1, "the second read was not found in the unwind cache");
	feed(r, sys_exit(tid, t0 + 20000 * MS));
	k = finish(r);
	cr_assert_eq(k->kept, 2, "%llu reads filed, expected 2", (unsigned long long)k->kept);
	cr_assert_eq(k->unwinds_cached, 1);
	cr_assert_eq(k->stacks, 1, "%llu distinct stacks", (unsigned long long)k->stacks);
	stop_sleeper(th);
	lt_stackrec_free(r);
}

/* A sampled wait of a kind the BPF side copies once it lasts 1 ms (an
 * untimed private futex wait) is read while it is shorter, and not once
 * the collector sees it 1 ms old: its stack then comes from that copy (or
 * from a read if it is still asleep 100 ms on). */
Test(stackrec, a_sampled_wait_seen_1_ms_old_is_left_to_the_bpf_copy, .timeout = 60)
{
	setenv("LOCKTRACE_CACHE_DIR", "off", 1);
	struct lt_stackrec *r = lt_stackrec_new(1); /* every wait sampled */
	cr_assert(r);
	lt_stackrec_bpf_waiters(r);
	/* the process opened (its runtimes known) at its first wait */
	feed(r, wait_entry(4000030, 10 * MS, 0x1000));
	feed(r, sys_exit(4000030, 11 * MS));
	lt_stackrec_settle(r, 5000);
	uint64_t reads0 = lt_stackrec_stats(r)->reads;
	feed(r, wait_entry(4000031, 20 * MS, 0x1000));
	cr_assert_eq(lt_stackrec_due_ms(r, 20 * MS), 0, "a sampled wait is read at once");
	lt_stackrec_read(r, 20 * MS + MS / 2);
	cr_assert_eq(lt_stackrec_stats(r)->reads, reads0 + 1, "a sampled wait 0.5 ms old was not read");
	feed(r, sys_exit(4000031, 21 * MS));
	feed(r, wait_entry(4000032, 30 * MS, 0x1000));
	lt_stackrec_read(r, 31 * MS);
	const struct lt_stackrec_stats *k = lt_stackrec_stats(r);
	cr_assert_eq(k->reads, reads0 + 1, "a sampled wait 1 ms old was read");
	cr_assert_eq(k->sampled_left, 1);
	cr_assert_eq(lt_stackrec_due_ms(r, 31 * MS), 99, "read only if still asleep 100 ms on");
	feed(r, sys_exit(4000032, 32 * MS));
	/* a timed wait (a timer may end it: no BPF copy then) is read late too */
	struct lt_event timed = wait_entry(4000033, 40 * MS, 0x1000);
	timed.futex.timeout = 5 * (int64_t)MS;
	feed(r, timed);
	lt_stackrec_read(r, 42 * MS);
	k = lt_stackrec_stats(r);
	cr_assert_eq(k->reads, reads0 + 2, "a sampled timed wait 2 ms old was not read");
	feed(r, sys_exit(4000033, 43 * MS));
	k = finish(r);
	cr_assert_eq(k->sampled_left, 1);
	lt_stackrec_free(r);
}

/* --calls blocking with the copies at the waiter's return (lazy): an entry
 * the BPF side flags LT_F_BPF_COPY is not read at 1 ms but only once
 * LT_STACK_LATE_NS old, and the collector need not drain every 1 ms then;
 * an entry without the flag (the BPF side woke the collector for it) is
 * read at 1 ms, and the drains come every 1 ms for 2 ms after it, so that
 * one that came within the BPF side's 1 ms between wake-ups is seen.  Not
 * lazy, the drains come every 1 ms whatever is pending. */
Test(stackrec, flagged_waits_are_read_late_and_the_drains_slow, .timeout = 60)
{
	struct lt_stackrec *r = new_rec();
	cr_assert_eq(lt_stackrec_poll_ms(r, 5 * MS), 1, "not lazy: a drain every 1 ms");
	lt_stackrec_lazy(r);
	cr_assert_eq(lt_stackrec_poll_ms(r, 5 * MS), -1, "lazy, nothing pending: no hurry");
	struct lt_event e = wait_entry(4000021, 10 * MS, 0x1000);
	e.h.flags |= LT_F_BPF_COPY;
	feed(r, e);
	cr_assert_eq(lt_stackrec_due_ms(r, 10 * MS), 100, "a flagged wait is read 100 ms on");
	cr_assert_eq(lt_stackrec_poll_ms(r, 10 * MS), 100);
	cr_assert_eq(lt_stackrec_poll_ms(r, 60 * MS), 50);
	feed(r, sys_exit(4000021, 15 * MS));
	cr_assert_eq(lt_stackrec_poll_ms(r, 16 * MS), -1, "over: nothing pending");
	struct lt_event s = wait_entry(4000022, 20 * MS, 0x1000);
	s.h.flags |= LT_F_BPF_COPY | LT_F_BPF_SAMPLED;
	feed(r, s);
	feed(r, sys_exit(4000022, 20 * MS + 300000));
	/* unflagged: a shared futex, the collector's to read */
	struct lt_event u = wait_entry(4000023, 30 * MS, 0x1000);
	u.futex.op = FUTEX_WAIT;
	feed(r, u);
	cr_assert_eq(lt_stackrec_due_ms(r, 30 * MS), 1, "an unflagged wait is read at 1 ms");
	feed(r, sys_exit(4000023, 30 * MS + 500000));
	cr_assert_eq(lt_stackrec_poll_ms(r, 31 * MS), 1, "1 ms drains right after an unflagged entry");
	cr_assert_eq(lt_stackrec_poll_ms(r, 31900000), 1);
	cr_assert_eq(lt_stackrec_poll_ms(r, 32 * MS), -1, "2 ms after it: no hurry again");
	/* a flagged wait that outlasts 100 ms is read then (no such thread:
	 * the read fails, and is not tried again) */
	struct lt_event h = wait_entry(4000024, 40 * MS, 0x1000);
	h.h.flags |= LT_F_BPF_COPY;
	feed(r, h);
	lt_stackrec_read(r, 100 * MS);
	cr_assert_eq(lt_stackrec_stats(r)->late_reads, 0, "read before it was 100 ms old");
	lt_stackrec_read(r, 140 * MS);
	cr_assert_eq(lt_stackrec_stats(r)->late_reads, 1);
	cr_assert_eq(lt_stackrec_due_ms(r, 141 * MS), -1, "a failed late read is not tried again");
	feed(r, sys_exit(4000024, 150 * MS));
	const struct lt_stackrec_stats *k = finish(r);
	cr_assert_eq(k->waits, 4);
	cr_assert_eq(k->bpf_served, 3);
	cr_assert_eq(k->bpf_sampled, 1);
	cr_assert_eq(k->reads, 1, "%llu reads: only the late one (the unflagged wait was over)",
		     (unsigned long long)k->reads);
	cr_assert_eq(k->unread, 0, "%llu counted unread", (unsigned long long)k->unread);
	lt_stackrec_free(r);
}

/* A flagged wait whose BPF copy (at its return) comes is that copy's: not
 * read, even once 100 ms old. */
Test(stackrec, a_flagged_wait_has_its_stack_from_the_copy, .timeout = 60)
{
	struct lt_stackrec *r = new_rec();
	lt_stackrec_lazy(r);
	int32_t tid = 4000031;
	struct lt_event e = wait_entry(tid, 10 * MS, 0x1000);
	e.h.flags |= LT_F_BPF_COPY;
	feed(r, e);
	struct lt_stack_copy *c = malloc(sizeof(*c));
	feed_copy(r, c, tid, 10 * MS, 130 * MS);
	lt_stackrec_read(r, 200 * MS);
	feed(r, sys_exit(tid, 130 * MS));
	const struct lt_stackrec_stats *k = finish(r);
	cr_assert_eq(k->reads, 0);
	cr_assert_eq(k->bpf_waiters, 1);
	cr_assert_eq(k->bpf_kept, 1, "%llu BPF copies kept", (unsigned long long)k->bpf_kept);
	free(c);
	lt_stackrec_free(r);
}

/* A child of this test (same mappings: a copy of this thread's stack
 * unwinds in it), asleep until killed. */
static pid_t sleeping_child(void)
{
	pid_t pid = fork();
	cr_assert_geq(pid, 0);
	if (pid == 0) {
		for (;;)
			pause();
	}
	return pid;
}

static struct lt_event exec_event(pid_t tid, uint64_t ts)
{
	struct lt_event e;
	memset(&e, 0, sizeof(e));
	e.h.ts = ts;
	e.h.tid = (uint32_t)tid;
	e.h.kind = LT_EV_EXEC;
	return e;
}

static uint64_t boottime_ns(void)
{
	struct timespec t;
	clock_gettime(CLOCK_BOOTTIME, &t);
	return (uint64_t)t.tv_sec * 1000000000ull + (uint64_t)t.tv_nsec;
}

/* The copies come through a ring of their own: a copy of one of a new
 * program's first waits may be unwound (its process opened) before the
 * collector sees the exec's event.  The modules read after the exec are
 * the new program's: a program that exits before they could be read again
 * keeps them, and its later copies their stacks.  Before, the exec's event
 * dropped them, the process could not be opened again, and every later
 * wait of a short program had no stack (stacks_live's inline_lock: 10
 * runs in 121 beside two CPU hogs, 1 in 240 on an idle machine). */
Test(stackrec, modules_read_after_an_exec_outlive_its_late_event, .timeout = 60)
{
	struct lt_stackrec *r = new_rec();
	pid_t child = sleeping_child();
	uint64_t exec_ts = boottime_ns(); /* its exec, before the first copy */
	struct lt_stack_copy *c = malloc(sizeof(*c));
	own_copy(c, child, 10 * MS, 12 * MS);
	c->tgid = (uint32_t)child;
	lt_stackrec_copy_cb(r, c, sizeof(*c));
	lt_stackrec_settle(r, 5000); /* the process opened, the copy unwound */
	cr_assert_eq(lt_stackrec_stats(r)->bpf_kept, 1, "the first copy was not unwound and kept");
	struct lt_event e = exec_event(child, exec_ts);
	lt_stackrec_event(r, &e, (uint32_t)child); /* queued, not run yet */
	kill(child, SIGKILL);
	cr_assert_eq(waitpid(child, NULL, 0), child);
	/* a later wait, its call path new to the unwind cache (another
	 * length of the copy: not found there) */
	own_copy(c, child, 20 * MS, 22 * MS);
	c->tgid = (uint32_t)child;
	c->len = LT_STACK_COPY_BYTES / 2;
	lt_stackrec_copy_cb(r, c, sizeof(*c));
	const struct lt_stackrec_stats *k = finish(r);
	cr_assert_eq(k->bpf_waiters, 2);
	cr_assert_eq(k->bpf_kept, 2, "%llu of the 2 copies kept: the one after the exec's event had no stack",
		     (unsigned long long)k->bpf_kept);
	cr_assert_eq(k->exec_kept, 1, "%llu processes' modules kept at the exec", (unsigned long long)k->exec_kept);
	free(c);
	lt_stackrec_free(r);
}

/* The same order, the process still there at the exec's event: its
 * modules are read again (the first read may have come while its loader
 * was mapping its libraries), not kept, and the later copy unwinds. */
Test(stackrec, modules_read_after_an_exec_are_read_again_at_its_event, .timeout = 60)
{
	struct lt_stackrec *r = new_rec();
	pid_t child = sleeping_child();
	uint64_t exec_ts = boottime_ns();
	struct lt_stack_copy *c = malloc(sizeof(*c));
	own_copy(c, child, 10 * MS, 12 * MS);
	c->tgid = (uint32_t)child;
	lt_stackrec_copy_cb(r, c, sizeof(*c));
	lt_stackrec_settle(r, 5000);
	struct lt_event e = exec_event(child, exec_ts);
	lt_stackrec_event(r, &e, (uint32_t)child);
	own_copy(c, child, 20 * MS, 22 * MS);
	c->tgid = (uint32_t)child;
	c->len = LT_STACK_COPY_BYTES / 2;
	lt_stackrec_copy_cb(r, c, sizeof(*c));
	const struct lt_stackrec_stats *k = finish(r);
	kill(child, SIGKILL);
	waitpid(child, NULL, 0);
	cr_assert_eq(k->bpf_kept, 2, "%llu of the 2 copies kept", (unsigned long long)k->bpf_kept);
	cr_assert_eq(k->exec_kept, 0, "the modules were kept, not read again");
	free(c);
	lt_stackrec_free(r);
}
