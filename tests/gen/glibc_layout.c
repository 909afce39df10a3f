/* Generator, compiled at build time against the installed glibc's headers
 * (Makefile: build/gen/glibc_layouts.h), never linked into locktrace:
 * prints, as one C initializer of struct gen_glibc (tests/lib/
 * gen_layouts.h), offsetof() of the rwlock and condition variable fields
 * the glibc model decodes (src/snapshot/runtimes/lock_glibc.c).  The
 * condition variable lost __g_refs in 2.41 (and the 2.38-2.40 stable
 * branches): the Makefile says which layout the headers have
 * (-DLT_G_REFS when bits/thread-shared-types.h names __g_refs); -1 where a
 * field does not exist. */
#include <gnu/libc-version.h>
#include <pthread.h>
#include <stddef.h>
#include <stdio.h>

#define RW(f) (long)offsetof(pthread_rwlock_t, __data.f)
#define CV(f) (long)offsetof(pthread_cond_t, __data.f)

int main(void)
{
	printf("{ .version = \"%d.%d\", .rw_readers = %ld, .rw_wrphase_futex = %ld, "
	       ".rw_writers_futex = %ld, .rw_cur_writer = %ld, .cond_wseq = %ld, .cond_g1_start = %ld, "
	       ".cond_g_refs = %ld, .cond_g_size = %ld, .cond_g1_orig_size = %ld, .cond_wrefs = %ld, "
	       ".cond_g_signals = %ld, .cond_size = %ld },\n",
	       __GLIBC__, __GLIBC_MINOR__, RW(__readers), RW(__wrphase_futex), RW(__writers_futex),
	       RW(__cur_writer), CV(__wseq), CV(__g1_start),
#ifdef LT_G_REFS
	       CV(__g_refs),
#else
	       -1L,
#endif
	       CV(__g_size), CV(__g1_orig_size), CV(__wrefs), CV(__g_signals), (long)sizeof(pthread_cond_t));
	return 0;
}
