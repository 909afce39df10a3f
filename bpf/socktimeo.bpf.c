// SPDX-License-Identifier: GPL-2.0
/* A task-file iterator that writes, for every socket one process has open,
 * its receive and send timeouts (SO_RCVTIMEO, SO_SNDTIMEO: sk_rcvtimeo and
 * sk_sndtimeo, in jiffies), which neither /proc nor sock_diag shows: what
 * a snapshot needs to tell a blocking socket read that times out from one
 * that waits for ever (see src/proc/socktimeo.c).  Its own object, so
 * that a kernel without it leaves the register iterator working. */
#include "vmlinux.h"
#include <bpf/bpf_helpers.h>
#include <bpf/bpf_tracing.h>
#include <bpf/bpf_core_read.h>
#include "locktrace/taskregs.h"

char LICENSE[] SEC("license") = "GPL";

const volatile __u32 targ_tgid = 0;
extern unsigned int CONFIG_HZ __kconfig __weak;

#define LT_S_IFMT 0170000
#define LT_S_IFSOCK 0140000

SEC("iter/task_file")
int lt_dump_sock_timeo(struct bpf_iter__task_file *ctx)
{
	struct task_struct *task = ctx->task;
	struct file *file = ctx->file;
	struct lt_socktimeo_rec rec = {};

	if (!task || !file || task->tgid != targ_tgid)
		return 0;
	struct inode *inode = BPF_CORE_READ(file, f_inode);
	if (!inode || (BPF_CORE_READ(inode, i_mode) & LT_S_IFMT) != LT_S_IFSOCK)
		return 0;
	struct socket *sock = (struct socket *)BPF_CORE_READ(file, private_data);
	struct sock *sk = sock ? BPF_CORE_READ(sock, sk) : NULL;
	if (!sk)
		return 0;
	rec.fd = ctx->fd;
	rec.hz = CONFIG_HZ;
	rec.ino = BPF_CORE_READ(inode, i_ino);
	rec.rcvtimeo = BPF_CORE_READ(sk, sk_rcvtimeo);
	rec.sndtimeo = BPF_CORE_READ(sk, sk_sndtimeo);
	bpf_seq_write(ctx->meta->seq, &rec, sizeof(rec));
	return 0;
}
