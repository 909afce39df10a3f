/* A checker for the Perfetto traces locktrace writes, for the tests: decodes
 * a file with the project's protobuf reader (pbread.h), checks it against
 * the part of Perfetto's trace schema locktrace uses (field numbers, wire
 * types, no other fields), checks the structure Perfetto's importer needs
 * (interning on one sequence, slices nested per track, flows with both
 * ends, named threads, scheduler events with cpu and pid), and keeps what
 * it found for the tests to query.  No tests here (tests/lib/pf_check.c). */
#ifndef PF_CHECK_H
#define PF_CHECK_H

#include <stddef.h>
#include <stdint.h>

enum { PFC_ANN_BOOL = 1, PFC_ANN_UINT, PFC_ANN_INT, PFC_ANN_STR, PFC_ANN_PTR };

struct pfc_ann {
	char key[32];
	int type;       /* PFC_ANN_* */
	uint64_t u;     /* BOOL, UINT, PTR; INT as two's complement */
	char s[96];     /* STR (interned values resolved) */
};

struct pfc_slice {
	uint64_t track;
	int32_t tid;    /* of the track's thread; -1 for other tracks */
	uint64_t begin, end;
	int ended, instant;
	char name[64];
	struct pfc_ann ann[12];
	int nann;
	uint64_t flows_out[16], flows_in[16];
	int nout, nin;
	long parent;    /* index in pfc.slices of the enclosing slice, -1 none */
	uint64_t counter_track; /* extra counter on BEGIN/END, 0 if none */
	int64_t counter_begin, counter_end;
};

struct pfc_track {
	uint64_t uuid;
	int kind;       /* 'p' process, 't' thread, 'c' counter, '?' other */
	int32_t pid, tid;
	char name[64];  /* thread name (latest), process name or track name */
	uint64_t parent;
	int has_ts;     /* its first descriptor's packet had a timestamp */
	uint64_t ts;
};

struct pfc_sched {
	uint32_t cpu, pid;      /* FtraceEvent.pid: the task that emitted it */
	uint64_t ts;
	int kind;               /* 's' switch, 'w' waking, 'n' newtask, 'r' rename, 'x' exit */
	int32_t prev_pid, next_pid, wakee;
	int64_t prev_state;
	uint32_t common_flags;
	int has_prev_comm, has_next_comm;
};

struct pfc {
	int nerr;
	char err[16][256];
	size_t npackets, ntrack_events;
	char kernel[128];
	char machine[64];      /* SystemInfo.utsname.machine */
	char cmdline[256];     /* the ProcessTree's cmdline of the process */
	struct { int32_t tid; int state; uint64_t ts; } task_states[16]; /* threads' states at attach */
	size_t ntask_states;
	int32_t pid;
	struct pfc_track *tracks;
	size_t ntracks;
	struct pfc_slice *slices;
	size_t nslices;
	struct pfc_sched *sched;
	size_t nsched;
	int lost_bundles;      /* bundles with lost_events set */
	size_t nflows;         /* flows with a start and an end */
};

/* Decodes and checks path; returns the number of problems found (their
 * first 16 messages in c->err).  pfc_free() in any case. */
int pfc_load(struct pfc *c, const char *path);
void pfc_free(struct pfc *c);
/* Prints the problems (for a failing test's log). */
void pfc_print_errors(const struct pfc *c);

/* The nth (0-based) slice named name on the track of thread tid (name NULL:
 * any name), in time order; NULL if none. */
const struct pfc_slice *pfc_slice(const struct pfc *c, int32_t tid, const char *name, int nth);
const struct pfc_ann *pfc_ann(const struct pfc_slice *s, const char *key);
/* Does a flow start on from and end on to, or on an instant nested in to
 * at its very end (where locktrace ends the flows into a wait)? */
int pfc_flow(const struct pfc *c, const struct pfc_slice *from, const struct pfc_slice *to);
const struct pfc_track *pfc_thread_track(const struct pfc *c, int32_t tid);
const struct pfc_track *pfc_track(const struct pfc *c, uint64_t uuid);

#endif
