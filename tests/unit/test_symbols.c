/* Unit tests of data-address labels (lt_sym_describe) on this very process,
 * whose mappings the tests arrange: what is a thread's stack, what is a
 * module's .bss.  No root needed. */
#include <criterion/criterion.h>
#include <fcntl.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>
#include "snapshot.h"
#include "symbols.h"

#define MB (1024ul * 1024)

/* Address space no one uses: len bytes, and free around them. */
static char *free_space(size_t len)
{
	char *r = mmap(NULL, len + 2 * MB, PROT_NONE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	cr_assert_neq(r, MAP_FAILED);
	munmap(r, len + 2 * MB);
	return r + MB;
}

static char *anon_at(char *at, size_t len)
{
	char *p = mmap(at, len, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS | MAP_FIXED, -1, 0);
	cr_assert_eq(p, at);
	return p;
}

static char *describe(pid_t tid, uint64_t sp, const void *addr)
{
	struct lt_sym *s = lt_sym_open(getpid(), LT_SYM_NO_LINES, NULL);
	cr_assert_not_null(s);
	if (tid)
		lt_sym_note_stack(s, tid, sp);
	char *d = lt_sym_describe(s, (uint64_t)(uintptr_t)addr);
	lt_sym_close(s);
	cr_assert_not_null(d);
	return d;
}

/* An ELF file mapped, then an anonymous mapping right after its last page
 * (a thread's stack, a JIT's heap...): an address far past the module's
 * image is not its .bss. */
Test(symbols, a_mapping_after_a_module_is_not_its_bss_past_its_image)
{
	int fd = open("/usr/bin/true", O_RDONLY);
	cr_assert_geq(fd, 0);
	struct stat st;
	cr_assert_eq(fstat(fd, &st), 0);
	size_t flen = ((size_t)st.st_size + 4095) & ~4095ul;
	char *at = free_space(flen + 16 * MB);
	cr_assert_eq(mmap(at, flen, PROT_READ, MAP_PRIVATE | MAP_FIXED, fd, 0), at);
	close(fd);
	char *anon = anon_at(at + flen, 16 * MB);
	char *d = describe(0, 0, anon + 8 * MB);
	cr_assert_null(strstr(d, "true"), "8 MiB past /usr/bin/true's image: %s", d);
	cr_assert(strstr(d, "anonymous mapping"), "%s", d);
	free(d);
	munmap(at, flen + 16 * MB);
}

/* A goroutine's stack sits in a Go heap arena, among heap objects: the
 * arena, with no guard below it, is no thread's stack. */
Test(symbols, a_thread_sp_in_a_heap_arena_does_not_make_it_a_stack)
{
	char *arena = anon_at(free_space(16 * MB), 16 * MB);
	char *d = describe(gettid(), (uint64_t)(uintptr_t)(arena + 1 * MB), arena + 12 * MB);
	cr_assert_null(strstr(d, "stack"), "a heap object in the arena: %s", d);
	free(d);
	munmap(arena, 16 * MB);
}

static int gate[2];
static void *volatile thread_local_addr;
static volatile pid_t thread_tid; /* of the last thread started here */

static void *parked(void *arg)
{
	int local = 1;
	char c;
	(void)arg;
	thread_tid = gettid();
	thread_local_addr = &local;
	while (read(gate[0], &c, 1) < 0)
		;
	return NULL;
}

/* A pthread's stack (above its guard page) holding the thread's sp is that
 * thread's stack. */
Test(symbols, a_pthread_stack_is_named_by_its_thread)
{
	pthread_t t;
	cr_assert_eq(pipe(gate), 0);
	cr_assert_eq(pthread_create(&t, NULL, parked, NULL), 0);
	while (!thread_local_addr)
		usleep(1000);
	void *a = thread_local_addr;
	pid_t tid = thread_tid;
	char *d = describe(tid, (uint64_t)(uintptr_t)a - 64, a);
	char want[64];
	snprintf(want, sizeof(want), "[stack of thread %d]", (int)tid);
	cr_assert_str_eq(d, want);
	free(d);
	cr_assert_eq(write(gate[1], "x", 1), 1);
	pthread_join(t, NULL);
}

/* ---- where an unwind ends ------------------------------------------- */

static int gate2[2];
static volatile int in_no_caller;

/* Its CFI says "no return address" from here on, as hand-written
 * assembly, JIT code or a runtime's stack switch can: the unwinder finds
 * no caller, although this is not where the thread started. */
__attribute__((noinline)) static void no_caller(void)
{
	char c;
	__asm__ volatile(".cfi_undefined rip");
	thread_tid = gettid();
	in_no_caller = 1;
	while (read(gate2[0], &c, 1) < 0)
		;
	__asm__ volatile("" ::: "memory");
}

static void *run_no_caller(void *arg)
{
	(void)arg;
	no_caller();
	return NULL;
}

/* Thread tid of this process asleep in read: its syscall line from /proc
 * (sp and pc), waited for up to a second. */
static struct lt_sc_line asleep_in_read(pid_t tid)
{
	char path[96], line[512] = "";
	snprintf(path, sizeof(path), "/proc/self/task/%d/syscall", (int)tid);
	struct lt_sc_line sc = { .nr = -1 };
	for (int i = 0; i < 1000; i++) { /* until it sleeps in read */
		FILE *f = fopen(path, "r");
		cr_assert_not_null(f);
		cr_assert_not_null(fgets(line, sizeof(line), f));
		fclose(f);
		if (lt_parse_syscall_line(line, &sc) == 0 && sc.state == LT_SC_IN_SYSCALL && sc.nr == 0)
			break;
		usleep(1000);
	}
	cr_assert_eq(sc.nr, 0, "thread %d never slept in read: %s", (int)tid, line);
	return sc;
}

/* Bytes of another thread's stack, as the BPF side reads them (past the
 * live frames too: the sanitizers' red zones are data here). */
__attribute__((no_sanitize_address)) static void copy_bytes(uint8_t *d, uint64_t from, size_t n)
{
	const volatile uint8_t *p = (const volatile uint8_t *)(uintptr_t)from;
	for (size_t i = 0; i < n; i++)
		d[i] = p[i];
}

/* Unwinds thread tid of this process from the sp and pc /proc shows for
 * it (it sleeps in read), from its live stack, or with COPY_LEN > 0 from a
 * copy of that many bytes at its sp (as a recording's stacks are); the
 * frames' functions joined by ' < ' in fns. */
static char *unwind_end(pid_t tid, char *fns, size_t len, size_t copy_len)
{
	struct lt_sc_line sc = asleep_in_read(tid);
	uint8_t *copy = copy_len ? malloc(copy_len) : NULL;
	if (copy_len) {
		cr_assert_not_null(copy);
		copy_bytes(copy, sc.sp, copy_len);
	}
	struct lt_sym *s = lt_sym_open(getpid(), LT_SYM_NO_LINES, NULL);
	char *err = NULL;
	struct lt_unwinder *u = lt_unwinder_new(s, &err);
	cr_assert_not_null(u, "%s", err);
	struct lt_unwind_regs r = { .r = { .sp = sc.sp, .ip = sc.pc } };
	struct lt_frame *fr;
	size_t n;
	char *end = NULL;
	cr_assert_gt(copy ? lt_unwind_thread_copy(u, tid, &r, sc.sp, copy, copy_len, 64, &fr, &n, &end)
			  : lt_unwind_thread(u, tid, &r, 64, &fr, &n, &end), 0);
	free(copy);
	size_t o = 0;
	fns[0] = 0;
	for (size_t i = 0; i < n; i++) {
		if (o < len)
			o += (size_t)snprintf(fns + o, len - o, "%s%s", i ? " < " : "", fr[i].func ? fr[i].func : "?");
		lt_frame_clear(&fr[i]);
	}
	free(fr);
	lt_unwinder_free(u);
	lt_sym_close(s);
	return end;
}

Test(unwind, a_stack_that_ends_before_the_threads_start_says_why)
{
	pthread_t t;
	char fns[1024];
	cr_assert_eq(pipe(gate2), 0);
	cr_assert_eq(pthread_create(&t, NULL, run_no_caller, NULL), 0);
	while (!in_no_caller)
		usleep(1000);
	char *end = unwind_end(thread_tid, fns, sizeof(fns), 0);
	cr_assert(strstr(fns, "no_caller"), "%s", fns);
	cr_assert_not_null(end, "the unwind stopped at %s with no reason", fns);
	cr_assert(strstr(end, "no caller of no_caller") && strstr(end, "not a thread start"), "%s", end);
	free(end);
	cr_assert_eq(write(gate2[1], "x", 1), 1);
	pthread_join(t, NULL);
}

/* Names glibc's start_thread and clone3, which are not in libc's .dynsym:
 * this needs libc's debug symbols (Debian: libc6-dbg, which `make deps`,
 * hence `make test`, installs).  What works without them is checked by
 * unwind.without_libc_debug_symbols_the_end_says_what_to_install. */
Test(unwind, a_stack_that_reaches_the_threads_start_ends_cleanly)
{
	pthread_t t;
	char fns[1024];
	thread_local_addr = NULL;
	cr_assert_eq(pipe(gate), 0);
	cr_assert_eq(pthread_create(&t, NULL, parked, NULL), 0);
	while (!thread_local_addr)
		usleep(1000);
	char *end = unwind_end(thread_tid, fns, sizeof(fns), 0);
	cr_assert(strstr(fns, "parked") && strstr(fns, "clone3"),
		  "%s (glibc's start_thread and clone3 are named by libc6-dbg: make deps installs it)", fns);
	cr_assert_null(end, "%s: %s", fns, end);
	cr_assert_eq(write(gate[1], "x", 1), 1);
	pthread_join(t, NULL);
}

/* Without libc's debug symbols (the debug-info path pointed at a directory
 * that has none, the symbol cache off): .eh_frame still unwinds through
 * libc up to the thread's start, .dynsym still names read, the test's own
 * .symtab names parked; the frames only libc6-dbg names are unnamed, and
 * the end of the stack says what to install rather than calling it a
 * broken unwind. */
Test(unwind, without_libc_debug_symbols_the_end_says_what_to_install)
{
	pthread_t t;
	char fns[1024];
	setenv("LOCKTRACE_DEBUGINFO_PATH", "/nonexistent-locktrace-test", 1);
	setenv("LOCKTRACE_CACHE_DIR", "off", 1);
	unsetenv("DEBUGINFOD_URLS");
	thread_local_addr = NULL;
	cr_assert_eq(pipe(gate), 0);
	cr_assert_eq(pthread_create(&t, NULL, parked, NULL), 0);
	while (!thread_local_addr)
		usleep(1000);
	char *end = unwind_end(thread_tid, fns, sizeof(fns), 0);
	cr_assert(!strncmp(fns, "read < parked < ", 16), "%s", fns);
	cr_assert(!strstr(fns, "clone3") && !strstr(fns, "start_thread"),
		  "%s: named although no debug file is on the path", fns);
	cr_assert_not_null(end, "%s: an unnamed libc frame taken for a thread start", fns);
	cr_assert(strstr(end, "in libc.so.6") && strstr(end, "install libc6-dbg for glibc frame names") &&
			  !strstr(end, "not a thread start"),
		  "%s: %s", fns, end);
	free(end);
	cr_assert_eq(write(gate[1], "x", 1), 1);
	pthread_join(t, NULL);
}

/* ---- mappings made after the process was opened ------------------------ */

/* A thread started after its process's mappings were read has its stack in
 * none of them until they are read again (lt_sym_reread_maps), and what
 * was noted of the mappings still there (whose stack) is kept. */
Test(symbols, a_mapping_made_after_opening_is_found_once_the_maps_are_read_again)
{
	struct lt_sym *s = lt_sym_open(getpid(), LT_SYM_NO_LINES, NULL);
	cr_assert_not_null(s);
	/* a pthread-like stack: a guard page, then the stack */
	char *at = free_space(2 * MB);
	char *guard = mmap(at, 4096, PROT_NONE, MAP_PRIVATE | MAP_ANONYMOUS | MAP_FIXED, -1, 0);
	cr_assert_eq(guard, at);
	char *stack = anon_at(at + 4096, 1 * MB);
	uint64_t sp = (uint64_t)(uintptr_t)(stack + 512 * 1024);
	cr_assert_null(lt_sym_map_at(s, sp), "a mapping made after the open is known already");
	cr_assert_eq(lt_sym_reread_maps(s), 0);
	const struct lt_map *m = lt_sym_map_at(s, sp);
	cr_assert_not_null(m, "not found after reading the mappings again");
	cr_assert_eq(m->start, (uint64_t)(uintptr_t)stack);
	cr_assert_eq(m->end, (uint64_t)(uintptr_t)stack + 1 * MB);
	lt_sym_note_stack(s, 4242, sp);
	cr_assert_eq(lt_sym_reread_maps(s), 0);
	char *d = lt_sym_describe(s, sp + 64);
	cr_assert_str_eq(d, "[stack of thread 4242]", "the thread noted was lost: %s", d);
	free(d);
	lt_sym_close(s);
	munmap(guard, 4096 + 1 * MB);
}

/* A copy of only the first bytes of a sleeping thread's stack (the BPF
 * side copies 2 KiB of it): the unwind stops where the next frame lies
 * past the copy, and says so, rather than blaming the CFI or naming an
 * address (a stack that ends so is the same for every copy of that call
 * path: the recorder's unwind cache keeps it). */
Test(unwind, a_copy_too_short_for_the_next_frame_says_so)
{
	pthread_t t;
	char fns[1024];
	cr_assert_eq(pipe(gate), 0);
	thread_local_addr = NULL;
	cr_assert_eq(pthread_create(&t, NULL, parked, NULL), 0);
	while (!thread_local_addr)
		usleep(1000);
	char *end = unwind_end(thread_tid, fns, sizeof(fns), 16);
	cr_assert_not_null(end, "a 16-byte copy unwound to the thread's start: %s", fns);
	cr_assert(strstr(end, "past the 16 bytes of stack copied"), "%s", end);
	cr_assert_null(strstr(end, "0x"), "the end names an address: %s", end);
	free(end);
	cr_assert_eq(write(gate[1], "x", 1), 1);
	pthread_join(t, NULL);
}
