/* C half of ocaml5_sites (see sites5.ml): gettid, the address of a Stdlib
 * Mutex's pthread mutex (the futex word the kernel sees), and the wait
 * until a thread sleeps in futex() on it, checked in /proc, with the
 * domain's runtime lock released meanwhile (the waiter needs it to reach
 * its Mutex.lock). */
#define _GNU_SOURCE
#include <stdint.h>
#include <stdio.h>
#include <time.h>
#include <unistd.h>

#include <caml/mlvalues.h>
#include <caml/signals.h>
#include <caml/custom.h>

value st5_gettid(value unit)
{
	(void)unit;
	return Val_int(gettid());
}

/* A Stdlib Mutex is a custom block holding a pointer to its pthread
 * mutex (runtime/sync.c, 5.x; caml/sync.h, under CAML_INTERNALS) */
value st5_mutex_addr(value m)
{
	return Val_long((long)(uintptr_t) * (void **)Data_custom_val(m));
}

/* 1 if TID sleeps in futex(ADDR, ...): "202 0xADDR ..." */
static int in_futex(int tid, unsigned long addr)
{
	char path[64], buf[256];
	snprintf(path, sizeof(path), "/proc/self/task/%d/syscall", tid);
	FILE *f = fopen(path, "r");
	if (!f)
		return 0;
	long nr = -1;
	unsigned long a0 = 0;
	int ok = fgets(buf, sizeof(buf), f) && sscanf(buf, "%ld %lx", &nr, &a0) == 2;
	fclose(f);
	return ok && nr == 202 && a0 == addr;
}

value st5_wait_blocked(value tid, value addr)
{
	int t = Int_val(tid);
	unsigned long a = (unsigned long)Long_val(addr);
	caml_enter_blocking_section();
	struct timespec ts = { 0, 200000 };
	while (!in_futex(t, a))
		nanosleep(&ts, NULL);
	caml_leave_blocking_section();
	return Val_unit;
}
