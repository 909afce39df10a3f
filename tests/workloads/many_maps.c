/*
 * many_maps - a process with tens of thousands of separate mappings (each
 * page its own, protections alternating so the kernel cannot merge them),
 * and one thread asleep: what a snapshot of it costs.
 *
 *   many_maps [-n MAPPINGS=30000] [--no-wait]
 *
 * Prints pid=PID, `maps n=N`, ready; hangs until killed.
 */
#include "workload.h"
#include <sys/mman.h>

#define USAGE "[-n MAPPINGS] [--no-wait]"

int main(int argc, char **argv)
{
	long n = 30000;
	int no_wait = WL_ARGS(argc, argv, USAGE, WL_NUM('n', &n, 1, 60000));
	long page = sysconf(_SC_PAGESIZE);
	char *base = mmap(NULL, (size_t)(n * page), PROT_READ, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	if (base == MAP_FAILED)
		wl_die("mmap: %s", strerror(errno));
	for (long i = 0; i < n; i += 2)
		if (mprotect(base + i * page, (size_t)page, PROT_READ | PROT_WRITE))
			wl_die("mprotect: %s", strerror(errno));
	wl_begin();
	printf("maps n=%ld\n", n);
	wl_gate(no_wait);
	wl_hang();
}
