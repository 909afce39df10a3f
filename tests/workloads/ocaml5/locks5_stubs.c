/* C half of ocaml5_locks (see locks5.ml): gettid, the stubs that keep their
 * domain's runtime lock while they block in read() on a socket or compute, and a
 * checker thread (not an OCaml thread) that confirms through /proc that
 * every thread sleeps where the mode says before printing "ready".  No
 * CAMLparam: the stubs that block never return and never allocate on the
 * OCaml heap. */
#define _GNU_SOURCE
#include <pthread.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <ucontext.h>
#include <unistd.h>

#include <caml/custom.h>
#include <caml/mlvalues.h>
#include <caml/signals.h>

value lt5_gettid(value unit)
{
	(void)unit;
	return Val_int(gettid());
}

/* One ground-truth line, written whole: OCaml 5's Printf writes a line
 * in pieces, which threads of other domains interleave. */
value lt5_say(value line)
{
	flockfile(stdout);
	fputs(String_val(line), stdout);
	fputc('\n', stdout);
	fflush(stdout);
	funlockfile(stdout);
	return Val_unit;
}

#define MAX_T 1024

static pthread_mutex_t mu = PTHREAD_MUTEX_INITIALIZER;
static pthread_cond_t cv = PTHREAD_COND_INITIALIZER;
static pid_t holders[64], waiters[MAX_T];
static int nholders, nwaiters, expect_holders = 1;
static int wake_fds[MAX_T], nwake; /* convoy: one byte to each wakes it */
static const char *on = "runtime_lock";
static volatile int spinning; /* spin: the holders run, in no system call */
static int checker_ends; /* pipe: the checker ends once it said ready */

static long syscall_of(pid_t tid)
{
	char path[64], buf[256];
	snprintf(path, sizeof(path), "/proc/self/task/%d/syscall", (int)tid);
	FILE *f = fopen(path, "r");
	if (!f)
		return -1;
	long nr = -1;
	if (!fgets(buf, sizeof(buf), f) || sscanf(buf, "%ld", &nr) != 1)
		nr = -1;
	fclose(f);
	return nr;
}

static bool all_asleep(void)
{
	for (int i = 0; i < nholders && !spinning; i++)
		if (syscall_of(holders[i]) != 0) /* read */
			return false;
	for (int i = 0; i < nwaiters; i++)
		if (syscall_of(waiters[i]) != 202) /* futex */
			return false;
	return true;
}

/* Asleep must be seen twice 200 ms apart: a waiter between two futex
 * waits of the runtime's acquire loop is not settled yet. */
static void *checker(void *arg)
{
	(void)arg;
	for (int i = 0; i < nwake; i++) /* convoy: the reads return, the lock is taken */
		if (write(wake_fds[i], "x", 1) != 1) {
			perror("ocaml5_locks: write");
			exit(1);
		}
	int seen = 0;
	for (int tries = 0; seen < 2; tries++) {
		if (tries > 300) {
			fprintf(stderr, "ocaml5_locks: threads not asleep after 60 s\n");
			exit(1);
		}
		usleep(200000);
		seen = all_asleep() ? seen + 1 : 0;
	}
	for (int i = 0; i < nwaiters; i++)
		printf("blocked tid=%d on=%s\n", (int)waiters[i], on);
	printf("ready\n");
	fflush(stdout);
	if (checker_ends) /* pipe: no thread outside the chain but the runtime's */
		return NULL;
	for (;;)
		pause();
	return NULL;
}

value lt5_expect_holders(value n)
{
	expect_holders = Int_val(n);
	return Val_unit;
}

/* convoy: a socket pair per worker; the worker reads FD, the checker
 * writes to the returned peer once every holder is blocked. */
value lt5_socketpair(value unit)
{
	(void)unit;
	int sv[2];
	if (socketpair(AF_UNIX, SOCK_STREAM, 0, sv) < 0) {
		perror("ocaml5_locks: socketpair");
		exit(1);
	}
	pthread_mutex_lock(&mu);
	wake_fds[nwake++] = sv[1];
	pthread_mutex_unlock(&mu);
	return Val_int(sv[0]); /* Unix.file_descr is an int on Unix */
}

/* Registers the caller as its domain's holder and TIDS as that domain's
 * waiters; the last holder to arrive starts the checker. */
static void register_holder(value tids, value dom)
{
	pid_t self = gettid();
	int n = (int)Wosize_val(tids);
	pthread_mutex_lock(&mu);
	holders[nholders++] = self;
	for (int i = 0; i < n && nwaiters < MAX_T; i++)
		waiters[nwaiters++] = Int_val(Field(tids, i));
	printf("thread role=holder domain=%d tid=%d\n", Int_val(dom), (int)self);
	fflush(stdout);
	if (nholders == expect_holders) {
		pthread_t t;
		if (pthread_create(&t, NULL, checker, NULL) != 0) {
			perror("ocaml5_locks: pthread_create");
			exit(1);
		}
	}
	pthread_cond_broadcast(&cv);
	pthread_mutex_unlock(&mu);
}

/* Registers the caller as its domain's holder, then blocks in read() on a
 * silent socket without releasing the runtime lock. */
value lt5_hold_and_block(value tids, value dom)
{
	int sv[2];
	char byte;
	if (socketpair(AF_UNIX, SOCK_STREAM, 0, sv) < 0) {
		perror("ocaml5_locks: socketpair");
		exit(1);
	}
	register_holder(tids, dom);
	/* the other end stays open and silent: read() never returns; no
	 * caml_enter_blocking_section, so the runtime lock stays taken */
	for (;;)
		if (read(sv[0], &byte, 1) >= 0) {
			fprintf(stderr, "ocaml5_locks: unexpected data\n");
			exit(1);
		}
	return Val_unit;
}

static void spin_for_ever(void)
{
	for (volatile unsigned long x = 0;; x++)
		;
}

/* Registers the caller as its domain's holder, then computes for ever in
 * C: the runtime lock stays taken (no safepoint of OCaml code to yield at)
 * by a thread that runs, which released it once before (RELEASED) or never.
 * It runs on a stack of its own in static memory, as
 * OCaml 5 runs OCaml code on fiber stacks: the thread's stack pointer is
 * not in its system stack, where the runtime's c_stack points. */
value lt5_hold_and_spin(value tids, value dom, value released)
{
	static ucontext_t here, there;
	static char fiber[64 * 1024] __attribute__((aligned(16)));
	spinning = 1;
	/* a thread that released the lock once has its c_stack saved, a
	 * pointer into this stack; one that never did has none */
	if (Bool_val(released)) {
		caml_enter_blocking_section();
		caml_leave_blocking_section();
	}
	register_holder(tids, dom);
	if (getcontext(&there) < 0) {
		perror("ocaml5_locks: getcontext");
		exit(1);
	}
	there.uc_stack.ss_sp = fiber;
	there.uc_stack.ss_size = sizeof(fiber);
	there.uc_link = NULL;
	makecontext(&there, spin_for_ever, 0);
	swapcontext(&here, &there);
	return Val_unit;
}

/* spin: whether thread TID sleeps in Thread.join of the thread whose
 * descriptor is SELF: in a futex wait inside the st_event that the
 * descriptor's third field (Terminated) points to, {mutex; status; cond},
 * 96 bytes in 5.2 and trunk.  Its futex is followed until the same one is
 * seen twice 20 ms apart: one outside the event (the lock's own, the
 * thread yielded it first) is a no.  The caller keeps the runtime lock,
 * so TID cannot leave either wait meanwhile. */
value lt5_joined_by(value self, value tid)
{
	unsigned long ev = (unsigned long)*(void **)Data_custom_val(Field(self, 2));
	char path[64], buf[256];
	unsigned long last = 0;
	snprintf(path, sizeof(path), "/proc/self/task/%d/syscall", Int_val(tid));
	for (int tries = 0; tries < 3000; tries++) {
		FILE *f = fopen(path, "r");
		long nr = -1;
		unsigned long addr = 0;
		if (!f) {
			perror("ocaml5_locks: /proc/self/task/TID/syscall");
			exit(1);
		}
		if (!fgets(buf, sizeof(buf), f) || sscanf(buf, "%ld %lx", &nr, &addr) != 2)
			nr = -1;
		fclose(f);
		if (nr == 202 && addr >= ev && addr < ev + 96)
			return Val_true;
		if (nr == 202 && addr == last)
			return Val_false;
		last = nr == 202 ? addr : 0;
		usleep(20000);
	}
	fprintf(stderr, "ocaml5_locks: thread %d in no futex wait after 60 s\n", Int_val(tid));
	exit(1);
}

/* deadlock: the checker confirms TIDS sleep in futex waits. */
/* pipe: TID (another thread) is to be seen asleep in read() too */
value lt5_expect_reader(value tid)
{
	pthread_mutex_lock(&mu);
	holders[nholders++] = Int_val(tid);
	checker_ends = 1;
	pthread_mutex_unlock(&mu);
	return Val_unit;
}

value lt5_check_blocked(value tids)
{
	pthread_mutex_lock(&mu);
	on = "mutex";
	for (int i = 0; i < (int)Wosize_val(tids) && nwaiters < MAX_T; i++)
		waiters[nwaiters++] = Int_val(Field(tids, i));
	pthread_mutex_unlock(&mu);
	pthread_t t;
	if (pthread_create(&t, NULL, checker, NULL) != 0) {
		perror("ocaml5_locks: pthread_create");
		exit(1);
	}
	return Val_unit;
}
