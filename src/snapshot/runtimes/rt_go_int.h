/* The Go runtime model's internals (rt_go*.c). */
#ifndef LOCKTRACE_RT_GO_INT_H
#define LOCKTRACE_RT_GO_INT_H

#include <stdbool.h>
#include <stdint.h>
#include <sys/types.h>

#include "golang.h"
#include "lockmodel.h"

struct go_sym {
	uint64_t addr, size;
	char *name;
};

struct go_m {
	uint64_t addr, curg;
	int64_t id;
	pid_t tid;
};

struct go_semw {
	uint64_t g, elem;
};

struct go_ctx {
	const struct lt_lm_env *e;
	struct lt_go *go;
	bool pie;
	uint64_t bias;           /* run-time address - file address */
	struct go_sym *syms;     /* .symtab data objects, by address */
	size_t nsyms;
	uint8_t *pcln_buf, *binfo;
	size_t pcln_len, binfo_len;
	struct lt_go_pcln pcln;
	bool pcln_ok;
	uint64_t gofunc;         /* go.func.*: base of funcdata offsets */
	int64_t off[32];         /* field offsets, -1 unknown */
	char *reasons[256];
	size_t nreasons;
	struct go_m *ms;
	size_t nms;
	struct go_semw *semw;
	size_t nsemw;
};

/* The data symbol holding ADDR (*OFF the offset in it), NULL. */
const char *go_sym_at(const struct go_ctx *c, uint64_t addr, uint64_t *off);
/* The Go function holding PC, NULL. */
const char *go_func_name(const struct go_ctx *c, uint64_t pc);
/* What the waits are on (names, sync kinds) and who holds the mutexes
 * (rt_go_infer.c). */
void go_infer(struct go_ctx *c);
/* The fd each "IO wait" goroutine waits on (rt_go_netfd.c). */
void go_netfds(struct go_ctx *c, pid_t pid);
/* Is PID's executable a Go program (a .go.buildinfo or .gopclntab
 * section)?  Cheap: no symbols loaded. */
bool go_exe_is_go(pid_t pid);

#endif
