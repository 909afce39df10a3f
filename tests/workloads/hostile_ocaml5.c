/*
 * hostile_ocaml5 - a C program that impersonates an OCaml 5.2 runtime with
 * an absurd thread table (issue 26): it exports caml_thread_initialize,
 * Sys.ocaml_version "5.2.0" between camlStdlib__Sys.data_begin and _end,
 * and thread_table, whose ELF symbol claims 64 MiB (493,447 entries of
 * 136 bytes; the runtime's Max_domains is 128).  Its first ENTRIES entries
 * are filled as held thread locks (init 1, busy 1, 3 waiters), each with
 * an active thread of its own domain whose c_stack points into the stack
 * of thread "holder", blocked in read() on a pipe nobody writes.  The rest
 * of the table is untouched BSS (no memory).  Hangs until killed.
 *
 *   hostile_ocaml5 [-n ENTRIES=4096] [--gone] [--no-wait]
 *
 * --gone: the holder thread returns once it has said where its stack is,
 * and is joined: every active thread's c_stack then points into the stack
 * of a thread that no longer exists.
 *
 * Prints:
 *   pid=PID
 *   table addr=0x... size=67108864 entries=N filled=ENTRIES
 *   thread role=holder idx=0 tid=T              (in read() at this point)
 *   gone tid=T                                  (--gone: it has exited)
 *   ready
 */
#include "workload.h"
#include <stdint.h>

#define USAGE "[-n ENTRIES=4096] [--gone] [--no-wait]"
#define STRIDE 136
#define TABLE_BYTES (64ul << 20)

/* what the lock model reads of a caml_thread_struct: domain_id at 24,
 * c_stack at 40 */
struct fake_thread {
	uint64_t pad[3];
	uint32_t domain_id, pad2;
	uint64_t pad3;
	uint64_t c_stack;
	uint64_t pad4[2];
};

unsigned char thread_table[TABLE_BYTES] __attribute__((aligned(64)));

__attribute__((noinline, used)) void caml_thread_initialize(void)
{
	__asm__ volatile("");
}

/* the data of module Stdlib__Sys: a few words, then Sys.ocaml_version as
 * an OCaml string block (header: wosize 1, String_tag 252; "5.2.0", NULs,
 * the last byte the padding count) */
__asm__(".data\n"
	".globl camlStdlib__Sys.data_begin\n"
	".globl camlStdlib__Sys.data_end\n"
	".p2align 3\n"
	"camlStdlib__Sys.data_begin:\n"
	".quad 0x700, 0x55d000001234, 0\n"
	".quad (1 << 10) | (3 << 8) | 252\n"
	".ascii \"5.2.0\"\n"
	".byte 0, 0, 2\n"
	".quad 0, 0\n"
	"camlStdlib__Sys.data_end:\n"
	".text\n");

static int pipe_fds[2];
static volatile pid_t holder_tid;
static volatile uint64_t holder_stack;
static int gone;

static void *holder(void *arg)
{
	(void)arg;
	char byte;
	holder_stack = (uint64_t)(uintptr_t)&byte;
	holder_tid = wl_thread("holder", 0);
	if (gone)
		return NULL;
	for (;;)
		if (read(pipe_fds[0], &byte, 1) >= 0)
			wl_die("read: unexpected data/EOF");
	return NULL;
}

static int in_read(pid_t tid)
{
	char path[64], buf[64] = "";
	snprintf(path, sizeof path, "/proc/self/task/%d/syscall", (int)tid);
	FILE *f = fopen(path, "r");
	if (!f)
		return 0;
	int ok = fgets(buf, sizeof buf, f) && !strncmp(buf, "0 ", 2);
	fclose(f);
	return ok;
}

int main(int argc, char **argv)
{
	long filled = 4096;
	int no_wait = WL_ARGS(argc, argv, USAGE, WL_NUM('n', &filled, 1, (long)(TABLE_BYTES / STRIDE)),
			      { 1001, "gone", NULL, 0, 0, NULL, &gone });
	wl_begin();
	caml_thread_initialize();
	if (pipe(pipe_fds))
		wl_die("pipe: %s", strerror(errno));
	printf("table addr=%p size=%lu entries=%lu filled=%ld\n", (void *)thread_table, TABLE_BYTES,
	       TABLE_BYTES / STRIDE, filled);
	pthread_t t;
	wl_create(&t, NULL, holder, NULL);
	if (gone) {
		wl_join(&t, 1);
		printf("gone tid=%d\n", (int)holder_tid);
	} else {
		int i = 0;
		for (; i < 5000 && !(holder_tid && in_read(holder_tid)); i++)
			wl_sleep_ms(2);
		if (i == 5000)
			wl_die("the holder never blocked in read()");
	}
	struct fake_thread *th = wl_xcalloc((size_t)filled, sizeof *th);
	for (long d = 0; d < filled; d++) {
		unsigned char *e = thread_table + d * STRIDE;
		th[d].domain_id = (uint32_t)d;
		th[d].c_stack = holder_stack;
		uint64_t active = (uint64_t)(uintptr_t)&th[d], busy = 1, waiters = 3;
		uint32_t init = 1;
		memcpy(e, &active, 8);
		memcpy(e + 8, &init, 4);
		memcpy(e + 8 + 48, &busy, 8);
		memcpy(e + 8 + 56, &waiters, 8);
	}
	wl_gate(no_wait);
	wl_hang();
}
