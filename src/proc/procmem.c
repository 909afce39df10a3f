/* Reading the memory of a live process without stopping it:
 * process_vm_readv, with pread(/proc/PID/mem) as the fallback when the
 * former is refused (seccomp, old kernels).  Never ptrace. */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <sys/uio.h>
#include <unistd.h>

#include "symbols.h"
#include "proclive.h"

void lt_mem_init(struct lt_mem *m, pid_t pid)
{
	m->pid = lt_proc_reader(pid); /* a zombie leader has no memory */
	m->mem_fd = -1;
	m->no_vm_readv = false;
}

void lt_mem_close(struct lt_mem *m)
{
	if (m->mem_fd >= 0)
		close(m->mem_fd);
	m->mem_fd = -1;
}

static int read_procmem(struct lt_mem *m, uint64_t addr, void *buf, size_t len)
{
	if (m->mem_fd < 0) {
		char path[64];
		snprintf(path, sizeof(path), "/proc/%d/mem", (int)m->pid);
		m->mem_fd = open(path, O_RDONLY | O_CLOEXEC);
		if (m->mem_fd < 0)
			return -errno;
	}
	size_t got = 0;
	while (got < len) {
		ssize_t r = pread(m->mem_fd, (char *)buf + got, len - got, (off_t)(addr + got));
		if (r < 0) {
			if (errno == EINTR)
				continue;
			return errno == EIO ? -EFAULT : -errno;
		}
		if (r == 0)
			return -EFAULT;
		got += (size_t)r;
	}
	return 0;
}

int lt_mem_read(struct lt_mem *m, uint64_t addr, void *buf, size_t len)
{
	if (len == 0)
		return 0;
	if (addr + len < addr)
		return -EFAULT;
	if (!m->no_vm_readv) {
		struct iovec local = { .iov_base = buf, .iov_len = len };
		struct iovec remote = { .iov_base = (void *)(uintptr_t)addr, .iov_len = len };
		ssize_t r = process_vm_readv(m->pid, &local, 1, &remote, 1, 0);
		if (r == (ssize_t)len)
			return 0;
		if (r >= 0)
			return -EFAULT; /* partial: the range crosses an unmapped page */
		if (errno == EFAULT)
			return -EFAULT;
		if (errno == ESRCH)
			return -ESRCH;
		if (errno == ENOSYS || errno == EPERM)
			m->no_vm_readv = true;
		else
			return -errno;
	}
	return read_procmem(m, addr, buf, len);
}
