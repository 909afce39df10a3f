/* Locks copied by fork() while held (forkorigin.c). */
#ifndef LOCKTRACE_FORKORIGIN_H
#define LOCKTRACE_FORKORIGIN_H

#include <stdbool.h>
#include <stddef.h>
#include <sys/types.h>

#include "snapshot.h"

/* The parent of PID (PPid of /proc/PID/status), 0 if unknown. */
pid_t lts_parent_of(pid_t pid);
/* Is TID a live thread of an ancestor of PID (its parent, or further up)?
 * Then *PARENT is that ancestor and COMM the thread's name. */
bool lts_fork_origin(pid_t pid, pid_t tid, pid_t *parent, char *comm, size_t len);
/* The same for an owner known by its pthread_t PTR only: the thread of
 * an ancestor that sleeps with its stack pointer in the mapping of PID
 * holding PTR (a struct pthread sits at the top of its thread's stack).
 * *TID is that thread. */
bool lts_fork_origin_stack(pid_t pid, uint64_t ptr, pid_t *tid, pid_t *parent, char *comm, size_t len);
/* For every futex of S whose owner is gone (lt_futex.owner_gone): the
 * ancestor process that owner is a thread of, if any. */
void lts_fork_origins(struct lt_snapshot *s);

#endif
