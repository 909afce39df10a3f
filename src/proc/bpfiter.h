// SPDX-License-Identifier: MIT
/* Running a BPF iterator program and reading its fixed-size records: the
 * snapshot's task iterator and task-file iterator (taskregs.c). */
#ifndef LOCKTRACE_BPFITER_H
#define LOCKTRACE_BPFITER_H
#include <stddef.h>
#include <sys/types.h>

struct bpf_program;

/* Attaches PROG (loaded) as an iterator -- to TGID's own tasks when TGID >
 * 0 and the kernel takes that (6.1 and later; else all tasks, the program
 * filtering) --, reads its records of REC_SIZE bytes each and hands each
 * to EACH (which returns 0, or -1 with err filled to stop).  WHAT names the
 * iterator in errors ("task iterator").  0, or -1 with err. */
int lt_bpf_iter_records(struct bpf_program *prog, pid_t tgid, size_t rec_size,
			int (*each)(const void *rec, void *ctx, char *err, size_t errlen), void *ctx,
			const char *what, char *err, size_t errlen);

#endif
