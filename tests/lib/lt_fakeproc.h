/* A fake target process for the lock-model unit tests: memory regions made
 * of zeroed byte buffers at chosen addresses, a symbol table, stack ranges
 * that name a thread, optional fs bases and a thread table, read by a model
 * through the struct lt_lm_env that fp_env fills (see
 * src/snapshot/runtimes/lockmodel.h).  No process, no root.
 *
 * The helpers assert (criterion) when a fixture overflows a table or writes
 * outside its regions: a broken fixture fails its test, it is never read as
 * a model's fault. */
#ifndef LT_FAKEPROC_H
#define LT_FAKEPROC_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>

#include "lockmodel.h"
#include "snapshot.h"

#define FP_MAX_REGIONS 16
#define FP_MAX_SYMS 16
#define FP_MAX_STACKS 8
#define FP_MAX_FSBASES 8
#define FP_MAX_THREADS 8
#define FP_FIRST_TID 100 /* threads are FP_FIRST_TID, +1, ...; the pid is the first */

struct fakeproc {
	struct {
		uint64_t addr;
		uint8_t *buf;
		size_t len;
	} reg[FP_MAX_REGIONS];
	size_t nreg;
	struct {
		const char *name; /* not copied: a literal or static storage */
		uint64_t addr, size;
	} sym[FP_MAX_SYMS];
	size_t nsym; /* a test may lower it to drop the last symbols */
	struct {
		uint64_t lo, hi; /* [lo, hi) */
		pid_t tid;
	} stack[FP_MAX_STACKS];
	size_t nstack; /* likewise */
	struct {
		pid_t tid;
		uint64_t fsbase;
	} fs[FP_MAX_FSBASES];
	size_t nfs; /* none: the environment has no fsbase reader */
	bool unreadable; /* every read fails with -EFAULT */
	struct lt_snapshot snap;
	struct lt_thread threads[FP_MAX_THREADS];
};

/* An empty process whose thread table holds NTHREADS threads, tids
 * FP_FIRST_TID.. in order (as lt_snapshot_find wants); snap.pid is the
 * first.  NTHREADS may be 0. */
void fp_init(struct fakeproc *f, size_t nthreads);
/* Frees the regions and empties F.  The threads' own allocations (frames,
 * lock_state, ...) are the test's to free first. */
void fp_free(struct fakeproc *f);

/* A zeroed region of LEN bytes at ADDR; its buffer, writable. */
uint8_t *fp_region(struct fakeproc *f, uint64_t addr, size_t len);
/* The bytes [ADDR, ADDR + LEN) inside one region, writable. */
uint8_t *fp_at(struct fakeproc *f, uint64_t addr, size_t len);
/* Little-endian stores at ADDR, inside a region. */
void fp_put32(struct fakeproc *f, uint64_t addr, uint32_t v);
void fp_put64(struct fakeproc *f, uint64_t addr, uint64_t v);

/* A symbol NAME (not copied) at ADDR of SIZE bytes. */
void fp_sym(struct fakeproc *f, const char *name, uint64_t addr, uint64_t size);
/* Addresses in [LO, HI) are thread TID's stack. */
void fp_stack(struct fakeproc *f, uint64_t lo, uint64_t hi, pid_t tid);
/* Thread TID's fs base (its pthread_t) is FSBASE. */
void fp_fsbase(struct fakeproc *f, pid_t tid, uint64_t fsbase);

/* ---- a flat memory image, for fixtures with their own process type ----
 *
 * One zeroed buffer standing at a chosen address, filled by a bump
 * allocator (16-byte aligned), with the stores and the symbol table a
 * runtime's fake memory needs (the HotSpot and CPython fixtures).  Like the
 * rest, it asserts when a fixture writes outside it. */

#define FI_MAX_SYMS 64

struct fp_image {
	uint8_t *mem;
	uint64_t base;      /* the address of mem[0] */
	size_t size, used;
	struct {
		const char *name; /* not copied: a literal or static storage */
		uint64_t addr;
	} sym[FI_MAX_SYMS];
	int nsym;
	uint64_t sym_size;  /* the size fi_lookup says a symbol has (0 unknown) */
};

/* SIZE zeroed bytes at BASE (pages stay untouched until written); the
 * allocator starts RESERVED bytes in, so that nothing is at BASE itself. */
void fi_init(struct fp_image *m, uint64_t base, size_t size, size_t reserved);
void fi_free(struct fp_image *m);
/* LEN bytes of the image, 16-byte aligned: their address. */
uint64_t fi_alloc(struct fp_image *m, size_t len);
/* The bytes [ADDR, ADDR + LEN), writable. */
uint8_t *fi_at(struct fp_image *m, uint64_t addr, size_t len);
/* Little-endian stores and loads at ADDR. */
void fi_put8(struct fp_image *m, uint64_t addr, uint8_t v);
void fi_put16(struct fp_image *m, uint64_t addr, uint16_t v);
void fi_put32(struct fp_image *m, uint64_t addr, uint32_t v);
void fi_put64(struct fp_image *m, uint64_t addr, uint64_t v);
uint64_t fi_get64(struct fp_image *m, uint64_t addr);
/* The LEN bytes SRC copied to ADDR. */
void fi_write(struct fp_image *m, uint64_t addr, const void *src, size_t len);
/* A copy of the NUL-terminated S, allocated: its address (0 for NULL). */
uint64_t fi_str(struct fp_image *m, const char *s);
/* A symbol NAME (not copied) at ADDR. */
void fi_sym(struct fp_image *m, const char *name, uint64_t addr);
/* The read and lookup of a struct lt_lm_env (ARG: the image): a read
 * outside the image is -EFAULT, an unknown name -ENOENT. */
int fi_read(void *arg, uint64_t addr, void *buf, size_t len);
int fi_lookup(void *arg, const char *name, uint64_t *addr, uint64_t *size);
/* A stack_tid (struct lt_lm_env) that knows no stacks. */
pid_t fp_no_stack_tid(void *arg, uint64_t addr);

/* E reads F: memory, symbols, stacks, the thread table, and fs bases when
 * any were given before this call (e->fsbase is NULL otherwise, as for a
 * live environment without them). */
void fp_env(struct fakeproc *f, struct lt_lm_env *e);

#endif
