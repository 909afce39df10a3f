// SPDX-License-Identifier: MIT
/* A process whose main thread (the thread-group leader) has exited while
 * other threads live on is a live process: its leader is a zombie, and
 * /proc/PID/{maps,mem,exe,cmdline} and process_vm_readv(PID) see no memory
 * through it.  Those are read through a live thread instead. */
#ifndef LOCKTRACE_PROCLIVE_H
#define LOCKTRACE_PROCLIVE_H

#include <sys/types.h>

/* The id to read tgid's process-wide /proc files and memory through:
 * tgid itself, or when its leader is a zombie, the lowest live thread of
 * the process (tgid if none lives). */
pid_t lt_proc_reader(pid_t tgid);

/* 1 if tgid's leader has exited (state Z or X) while a thread of the
 * process lives on; 0 otherwise (live leader, or no such process). */
int lt_proc_zombie_leader(pid_t tgid);

#endif
