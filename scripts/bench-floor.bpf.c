// SPDX-License-Identifier: GPL-2.0
/*
 * The cost of attaching alone, for scripts/bench.sh: programs that return
 * at once, on the tracepoints locktrace attaches to.  Once they are
 * attached the kernel takes its tracing path on every system call and
 * every scheduler switch and wake-up of every process, whatever the program
 * does, so the throughput of the workload under these is a floor that no
 * tracer built on these tracepoints can go under on this machine.
 */
#include "vmlinux.h"
#include <bpf/bpf_helpers.h>

char LICENSE[] SEC("license") = "GPL";

/* -DSCHED_ONLY: the tracepoints of --calls blocking, without the system
 * call ones */
#ifndef SCHED_ONLY
SEC("tp_btf/sys_enter")
int floor_sys_enter(void *ctx) { return 0; }

SEC("tp_btf/sys_exit")
int floor_sys_exit(void *ctx) { return 0; }
#endif

SEC("tp_btf/sched_switch")
int floor_sched_switch(void *ctx) { return 0; }

SEC("tp_btf/sched_waking")
int floor_sched_waking(void *ctx) { return 0; }

SEC("tp_btf/sched_wakeup_new")
int floor_sched_wakeup_new(void *ctx) { return 0; }

SEC("tp_btf/task_newtask")
int floor_task_newtask(void *ctx) { return 0; }

SEC("tp_btf/sched_process_exit")
int floor_process_exit(void *ctx) { return 0; }
