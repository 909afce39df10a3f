/* C half of ocaml_holder (see holder.ml): gettid, and the stub that keeps
 * the OCaml runtime lock while it blocks in read().  No CAMLparam: the stub
 * never returns and never allocates on the OCaml heap. */
#define _GNU_SOURCE
#include <pthread.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <caml/mlvalues.h>

value lt_ocaml_gettid(value unit)
{
	(void)unit;
	return Val_int(gettid());
}

struct check {
	pid_t holder;
	pid_t *waiters;
	int n;
	bool no_wait;
};

/* The syscall number TID sleeps in, -1 if not in a syscall or unreadable. */
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

static bool all_asleep(const struct check *c)
{
	if (c->holder && syscall_of(c->holder) != 0) /* read */
		return false;
	for (int i = 0; i < c->n; i++)
		if (syscall_of(c->waiters[i]) != 202) /* futex */
			return false;
	return true;
}

/* Not an OCaml thread: it runs while the holder keeps the runtime lock.
 * Asleep must be seen twice 200 ms apart: a waiter between two futex waits
 * of the runtime's acquire loop is not settled yet. */
static void *checker(void *arg)
{
	struct check *c = arg;
	int seen = 0;
	for (int tries = 0; seen < 2; tries++) {
		if (tries > 300) {
			fprintf(stderr, "ocaml_holder: threads not asleep after 60 s\n");
			exit(1);
		}
		usleep(200000);
		seen = all_asleep(c) ? seen + 1 : 0;
	}
	for (int i = 0; i < c->n; i++)
		printf("blocked tid=%d on=%s\n", (int)c->waiters[i], c->holder ? "runtime_lock" : "futex");
	printf("ready\n");
	fflush(stdout);
	if (!c->no_wait) {
		char line[64];
		if (!fgets(line, sizeof(line), stdin)) { /* EOF also starts */ }
	}
	for (;;)
		pause();
	return NULL;
}

value lt_ocaml_hold_and_block(value tids, value no_wait)
{
	static struct check c;
	int fds[2];
	char byte;
	pthread_t t;

	c.holder = gettid();
	c.n = (int)Wosize_val(tids);
	c.waiters = calloc(c.n, sizeof(*c.waiters));
	if (!c.waiters || pipe(fds) < 0) {
		perror("ocaml_holder");
		exit(1);
	}
	for (int i = 0; i < c.n; i++)
		c.waiters[i] = Int_val(Field(tids, i));
	c.no_wait = Bool_val(no_wait);
	printf("thread role=holder idx=0 tid=%d\n", (int)c.holder);
	fflush(stdout);
	if (pthread_create(&t, NULL, checker, &c) != 0) {
		perror("ocaml_holder: pthread_create");
		exit(1);
	}
	/* the write end stays open and silent: read() never returns; no
	 * caml_enter_blocking_section, so the runtime lock stays taken */
	for (;;)
		if (read(fds[0], &byte, 1) >= 0) {
			fprintf(stderr, "ocaml_holder: unexpected data\n");
			exit(1);
		}
	return Val_unit;
}

/* --join: a checker for TIDS alone (no holder in read()): "blocked" lines
 * and "ready" once each sleeps in a futex wait, seen twice. */
value lt_ocaml_check_asleep(value tids)
{
	static struct check c;
	pthread_t t;
	c.n = (int)Wosize_val(tids);
	c.waiters = calloc(c.n, sizeof(*c.waiters));
	if (!c.waiters) {
		perror("ocaml_holder");
		exit(1);
	}
	for (int i = 0; i < c.n; i++)
		c.waiters[i] = Int_val(Field(tids, i));
	c.no_wait = true;
	if (pthread_create(&t, NULL, checker, &c) != 0) {
		perror("ocaml_holder: pthread_create");
		exit(1);
	}
	return Val_unit;
}
