/* The holder of a multiprocessing semaphore from the _multiprocessing
 * .SemLock objects of the processes that map it (semlock.c). */
#ifndef LOCKTRACE_SEMLOCK_H
#define LOCKTRACE_SEMLOCK_H

#include <stdbool.h>
#include <stddef.h>

#include "snapshot.h"

/* For each thread of VIEW asleep on a semaphore in a shared mapping: its
 * holder (owner, owner_kind RUNTIME, sem_owner, sem_pid, owner_how), or
 * that holder gone (owner_gone), or the counts read (lock_state), from the
 * SemLocks of the N snapshots PROCS.  VIEW is one of them (OWN: its
 * threads own their strings) or a multi-process view of them (its threads'
 * new strings are kept in STRINGS). */
void lts_semlock_owners(struct lt_snapshot *view, struct lt_snapshot *const *procs, size_t n, bool own,
			struct lt_strlist *strings);

#endif
