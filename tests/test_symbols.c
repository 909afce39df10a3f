/* Unit tests of data-address labels (lt_sym_describe) on this very process,
 * whose mappings the tests arrange: what is a thread's stack, what is a
 * module's .bss.  No root needed. */
#include <criterion/criterion.h>
#include <fcntl.h>
#include <pthread.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>
#include "locktrace/symbols.h"

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

static void *parked(void *arg)
{
	int local = 1;
	char c;
	(void)arg;
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
	pid_t tid = 0;
	/* the thread's tid: the one task of ours that is not us */
	char path[64];
	for (pid_t k = getpid(); k < getpid() + 100000 && !tid; k++) {
		snprintf(path, sizeof(path), "/proc/self/task/%d", (int)k);
		if (k != gettid() && access(path, F_OK) == 0)
			tid = k;
	}
	cr_assert_neq(tid, 0);
	char *d = describe(tid, (uint64_t)(uintptr_t)a - 64, a);
	char want[64];
	snprintf(want, sizeof(want), "[stack of thread %d]", (int)tid);
	cr_assert_str_eq(d, want);
	free(d);
	cr_assert_eq(write(gate[1], "x", 1), 1);
	pthread_join(t, NULL);
}
