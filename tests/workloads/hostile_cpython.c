/*
 * hostile_cpython - a C program that impersonates a CPython 3.11 runtime
 * whose memory is hostile (issue 26): it exports _PyRuntime and
 * Py_Version (3.11.99), and lays out, with 3.11's offsets, what the
 * thread model reads (src/snapshot/runtimes/rt_cpython*.c):
 *
 *   - interpreter A, whose thread-state list holds STATES entries
 *     (default 100,000; the model reads 4,096): the first WORKERS name
 *     the worker threads, the rest name no thread;
 *   - interpreter B, whose thread-state list loops (its second state's
 *     next is its first), both naming the main thread;
 *   - the interpreter list loops: B's next is A;
 *   - worker 0's frame list loops: frame 2's previous is frame 0;
 *   - workers 1.. run 300 frames each (the model reads 256), every frame
 *     its own code object (more than the model caches), the code objects
 *     sharing TABLES line tables of 1 MiB each (default 24: more than the
 *     16 MiB the model reads of them), each frame's instruction past the
 *     end of its line table (a lookup scans the whole table);
 *   - every code object's stack size is 2^31 - 1 and its names tuple
 *     claims 2^40 items.
 *
 * The worker threads block in read() on a pipe nobody writes; the main
 * thread hangs.  What the test checks is what reading this costs
 * locktrace (time, memory) and that each cut and cycle is said.
 *
 *   hostile_cpython [-w WORKERS=8] [-s STATES=100000] [-T TABLES=24] [--no-wait]
 *
 * Prints:
 *   pid=PID
 *   thread role=worker idx=I tid=T                    (each, in read())
 *   interp name=A addr=0x... states=N
 *   interp name=B addr=0x... loop=0x...               (B's first state)
 *   frames worker=0 loop=0x...                        (worker 0's frame 0)
 *   codes n=N tables=T table_bytes=1048576
 *   ready
 */
#include "workload.h"
#include <stdint.h>

#define USAGE "[-w WORKERS=8] [-s STATES=100000] [-T TABLES=24] [--no-wait]"
#define DEPTH 300
#define TABLE_BYTES (1u << 20)

/* 3.11, x86-64 (rt_cpython_layout.c's row) */
#define RT_HEAD 0x28
#define IS_NEXT 0x0
#define IS_THREADS 0x10
#define IS_SIZE 0x400
#define TS_NEXT 0x8
#define TS_CFRAME 0x38
#define TS_PTHREAD 0x98
#define TS_NATIVE 0xa0
#define TS_SIZE 0xb0
#define CF_CURRENT 0x8
#define IF_CODE 0x20
#define IF_PREV 0x30
#define IF_INSTR 0x38
#define IF_SIZE 0x50
#define CO_STACKSIZE 0x44
#define CO_FIRSTLINENO 0x48
#define CO_NAMES 0x60
#define CO_FILENAME 0x70
#define CO_NAME 0x78
#define CO_QUALNAME 0x80
#define CO_LINETABLE 0x88
#define CO_FIRSTTRACEABLE 0xa8
#define CO_CODE 0xb8
#define CO_SIZE 0xc0
#define OB_TYPE 0x8
#define VAR_SIZE 0x10
#define STR_STATE 0x20
#define STR_ASCII 0x30
#define BYTES_SVAL 0x20

unsigned char _PyRuntime[0x1000] __attribute__((aligned(64)));
const uint32_t Py_Version = 0x030b63f0; /* 3.11.99 final */

/* a stand-in type object: the model checks types only against exported
 * PyUnicode_Type & co, which this process does not export */
static unsigned char fake_type[0x200] __attribute__((aligned(16)));

static void put64(unsigned char *base, size_t off, uint64_t v)
{
	memcpy(base + off, &v, 8);
}

static void put32(unsigned char *base, size_t off, uint32_t v)
{
	memcpy(base + off, &v, 4);
}

static uint64_t addr_of(const void *p)
{
	return (uint64_t)(uintptr_t)p;
}

/* A compact ASCII str object. */
static unsigned char *str_obj(const char *s)
{
	size_t n = strlen(s);
	unsigned char *o = wl_xcalloc(1, STR_ASCII + n + 1);
	put64(o, OB_TYPE, addr_of(fake_type));
	put64(o, VAR_SIZE, n);
	put32(o, STR_STATE, 1u << 2 | 1u << 5 | 1u << 6); /* kind 1, compact, ascii */
	memcpy(o + STR_ASCII, s, n);
	return o;
}

/* A bytes object of TABLE_BYTES: a 3.11 location table of 2-byte entries
 * (code 0: same line, 8 code units; one column byte). */
static unsigned char *line_table(void)
{
	unsigned char *o = wl_xcalloc(1, BYTES_SVAL + TABLE_BYTES + 1);
	put64(o, OB_TYPE, addr_of(fake_type));
	put64(o, VAR_SIZE, TABLE_BYTES);
	for (size_t i = 0; i < TABLE_BYTES; i += 2) {
		o[BYTES_SVAL + i] = 0x80 | 7;
		o[BYTES_SVAL + i + 1] = 1;
	}
	return o;
}

static unsigned char *code_obj(const char *name, const unsigned char *file, const unsigned char *tab,
			       const unsigned char *names)
{
	unsigned char *c = wl_xcalloc(1, CO_SIZE);
	put64(c, OB_TYPE, addr_of(fake_type));
	put32(c, CO_STACKSIZE, 0x7fffffff);
	put32(c, CO_FIRSTLINENO, 1);
	put64(c, CO_NAMES, addr_of(names));
	put64(c, CO_FILENAME, addr_of(file));
	unsigned char *s = str_obj(name);
	put64(c, CO_NAME, addr_of(s));
	put64(c, CO_QUALNAME, addr_of(s));
	put64(c, CO_LINETABLE, addr_of(tab));
	put32(c, CO_FIRSTTRACEABLE, 0);
	return c;
}

/* A frame running CODE at an instruction past the end of its line table
 * (16 bytes of code per 2-byte entry: 8 MiB covered). */
static unsigned char *frame(const unsigned char *code, const unsigned char *prev)
{
	unsigned char *f = wl_xcalloc(1, IF_SIZE);
	put64(f, IF_CODE, addr_of(code));
	put64(f, IF_PREV, addr_of(prev));
	put64(f, IF_INSTR, addr_of(code) + CO_CODE + 16ull * TABLE_BYTES + 2);
	return f;
}

/* A thread state whose current frame is TOP, naming thread TID. */
static unsigned char *tstate(unsigned char *ts, pid_t tid, const unsigned char *top)
{
	if (top) {
		unsigned char *cf = wl_xcalloc(1, 0x20);
		put64(cf, CF_CURRENT, addr_of(top));
		put64(ts, TS_CFRAME, addr_of(cf));
	}
	put64(ts, TS_NATIVE, (uint64_t)tid);
	return ts;
}

static int pipe_fds[2];
static pid_t *tids;

static void *worker(void *arg)
{
	char byte;
	long i = (long)(intptr_t)arg;
	__atomic_store_n(&tids[i], wl_thread("worker", (int)i), __ATOMIC_RELEASE);
	for (;;)
		if (read(pipe_fds[0], &byte, 1) >= 0)
			wl_die("read: unexpected data/EOF");
	return NULL;
}

int main(int argc, char **argv)
{
	long workers = 8, states = 100000, tables = 24;
	int no_wait = WL_ARGS(argc, argv, USAGE, WL_NUM('w', &workers, 2, 64),
			      WL_NUM('s', &states, 64, 1000000), WL_NUM('T', &tables, 1, 64));
	wl_begin();
	if (pipe(pipe_fds))
		wl_die("pipe: %s", strerror(errno));
	pthread_t *t = wl_xcalloc((size_t)workers, sizeof(*t));
	pid_t *tid = tids = wl_xcalloc((size_t)workers, sizeof(*tid));
	for (long i = 0; i < workers; i++) {
		wl_create(&t[i], NULL, worker, (void *)(intptr_t)i);
		wl_wait_tid(&tid[i]);
	}

	unsigned char *file = str_obj("/hostile/cpython.py");
	unsigned char *names = wl_xcalloc(1, 0x20);
	put64(names, OB_TYPE, addr_of(fake_type));
	put64(names, VAR_SIZE, 1ull << 40);
	unsigned char **tabs = wl_xcalloc((size_t)tables, sizeof(*tabs));
	for (long i = 0; i < tables; i++)
		tabs[i] = line_table();

	/* interpreter A: STATES thread states, the first WORKERS on the workers */
	unsigned char *ia = wl_xcalloc(1, IS_SIZE), *ib = wl_xcalloc(1, IS_SIZE);
	unsigned char *tsa = wl_xcalloc((size_t)states, TS_SIZE);
	long ncodes = 0;
	char name[64];
	for (long s = 0; s < states; s++) {
		unsigned char *ts = tsa + s * TS_SIZE;
		if (s + 1 < states)
			put64(ts, TS_NEXT, addr_of(ts + TS_SIZE));
		if (s >= workers)
			continue; /* names no thread */
		unsigned char *top = NULL;
		if (s == 0) { /* worker 0: three frames, the third's previous the first */
			snprintf(name, sizeof(name), "loop_%d", 0);
			unsigned char *c = code_obj(name, file, tabs[0], names);
			ncodes++;
			unsigned char *f0 = frame(c, NULL), *f1 = frame(c, NULL), *f2 = frame(c, f0);
			put64(f0, IF_PREV, addr_of(f1));
			put64(f1, IF_PREV, addr_of(f2));
			top = f0;
			printf("frames worker=0 loop=%p\n", (void *)f0);
		} else {
			for (int d = 0; d < DEPTH; d++) { /* outermost first */
				snprintf(name, sizeof(name), "w%ld_depth_%d", s, d);
				unsigned char *c = code_obj(name, file, tabs[ncodes % tables], names);
				ncodes++;
				top = frame(c, top);
			}
		}
		tstate(ts, tid[s], top);
	}
	put64(ia, IS_THREADS, addr_of(tsa));
	put64(ia, IS_NEXT, addr_of(ib));

	/* interpreter B: two thread states on the main thread, looping */
	unsigned char *tsb = wl_xcalloc(2, TS_SIZE);
	snprintf(name, sizeof(name), "main_loop");
	unsigned char *mc = code_obj(name, file, tabs[0], names);
	ncodes++;
	tstate(tsb, getpid(), frame(mc, NULL));
	tstate(tsb + TS_SIZE, getpid(), NULL);
	put64(tsb, TS_NEXT, addr_of(tsb + TS_SIZE));
	put64(tsb + TS_SIZE, TS_NEXT, addr_of(tsb));
	put64(ib, IS_THREADS, addr_of(tsb));
	put64(ib, IS_NEXT, addr_of(ia));

	put64(_PyRuntime, RT_HEAD, addr_of(ia));
	printf("interp name=A addr=%p states=%ld\n", (void *)ia, states);
	printf("interp name=B addr=%p loop=%p\n", (void *)ib, (void *)tsb);
	printf("codes n=%ld tables=%ld table_bytes=%u\n", ncodes, tables, TABLE_BYTES);
	for (long i = 0; i < workers; i++)
		wl_wait_blocked(tid[i], SYS_read, (unsigned long)pipe_fds[0]);
	wl_gate(no_wait);
	wl_hang();
}
