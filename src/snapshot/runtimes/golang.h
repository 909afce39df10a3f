/* locktrace Go runtime model: a Go program's goroutines, their wait
 * reasons, their stacks in Go's terms and what they wait on (sync.Mutex and
 * the other semaphore waits, channels, the network poller), read from the
 * runtime's memory like the other runtime models (never ptrace, never a
 * signal).  See docs/runtimes.md ("Go").
 *
 * The model runs as a runtime thread model (rtthread.h, lt_rtmodels): it
 * recognises a Go executable, reads runtime.allgs, runtime.allm and the
 * semaphore table, and keeps what it found in lt_snapshot.go.  The verdicts
 * (lt_go_verdicts, called by lt_snapshot_diagnose) group goroutines by what
 * they wait on, infer the holders of sync.Mutexes (which record none) and
 * find cycles.
 */
#ifndef LOCKTRACE_GOLANG_H
#define LOCKTRACE_GOLANG_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <sys/types.h>

#include "snapshot.h"

#ifdef __cplusplus
extern "C" {
#endif

struct jw;
struct lt_lm_env;

/* One frame of a goroutine's stack, innermost first. */
struct lt_go_frame {
	char *func;       /* "main.lockAB", "sync.(*Mutex).lockSlow" */
	char *file;       /* as the compiler recorded it, NULL unknown */
	int line;         /* 0 unknown */
	uint64_t pc;      /* the frame's pc (a return address but for the innermost) */
	bool inlined;     /* inlined into the next (outer) frame */
};

/* What a goroutine waits on. */
enum lt_go_wait {
	LT_GO_WAIT_NONE = 0,
	LT_GO_WAIT_SEMA,    /* runtime semaphore: sync.Mutex, RWMutex, WaitGroup */
	LT_GO_WAIT_CHAN,    /* channel send/receive, select */
	LT_GO_WAIT_OTHER,   /* sleep, I/O wait, Cond, ...: the reason says it */
};

struct lt_go_routine {
	uint64_t g;           /* address of its runtime.g */
	int64_t id;           /* goid */
	uint32_t status;      /* atomicstatus without the scan bit */
	const char *status_name; /* "waiting", "running", ... (static) */
	char *reason;         /* wait reason ("semacquire", "chan receive"), NULL */
	double waited_s;      /* since g.waitsince, -1 when not recorded */
	pid_t tid;            /* the thread (M) running it or in its syscall, 0 */
	bool system;          /* a runtime goroutine (runtime.Stack(all) omits them) */
	struct lt_go_frame *frames;
	size_t n_frames;
	char *end;            /* why the stack is incomplete, NULL */
	char *created_by;     /* the function of g.gopc, NULL */
	/* what it waits on */
	enum lt_go_wait wait;
	uint64_t obj;         /* sema address (SEMA) or hchan (CHAN), 0 */
	uint64_t lock;        /* the sync object: the Mutex for its sema, 0 */
	const char *obj_kind; /* "sync.Mutex", "sync.RWMutex", "channel", ... */
	char *obj_name;       /* "main.muA", "main.leakCh", NULL for heap objects */
	const char *dir;      /* channel: "receive", "send", "select" (static) */
	char *netfd;          /* IO wait: "fd 3 (tcp 127.0.0.1:80 LISTEN)", NULL */
	/* chan send or receive on a channel that is a package variable: the
	 * other goroutines whose code, after where each is stopped, does the
	 * other operation on it (inferred, rt_go_infer.c): their count, -1
	 * not looked for; chan_peer the one such goroutine's index + 1, 0 if
	 * not exactly one; chan_peers_how says what was read. */
	long n_chan_peers;
	size_t chan_peer;
	char *chan_peers_how;
	/* all of them (indices into routines), n_chan_peers long; NULL when
	 * none or not looked for (not kept in the JSON) */
	size_t *chan_peer_list;
	/* a chan receive on a channel os/signal.Notify registered: the
	 * signals it gets ("SIGINT SIGTERM"; "" when not read), NULL when the
	 * channel is not one (or was not looked for).  A signal ends the
	 * wait: no goroutine is its other end (rt_go_signal.c). */
	char *notify_sigs;
	/* its stack, read from g.sched.sp (the syscall sp in a system call)
	 * to g.stack.hi; 0 unknown */
	uint64_t sp, stack_hi;
};

/* A sync object goroutines wait for (sync.Mutex, RWMutex, WaitGroup,
 * another semaphore). */
struct lt_go_mutex {
	const char *kind;     /* "sync.Mutex", "sync.RWMutex", ... (static) */
	char *facts;          /* its decoded state ("2 readers hold it ..."), NULL */
	uint64_t addr;
	char *name;           /* variable, NULL for a heap object */
	int32_t state;        /* Mutex.state */
	bool state_ok;
	long holder;          /* inferred holder: index into routines, -1 none */
	long n_candidates;    /* goroutines whose frames may have locked it */
	char *holder_how;     /* the evidence for the inference, or why none */
};

struct lt_go {
	char *version;        /* "go1.19.8", NULL unknown */
	const char *layout;   /* "DWARF", "table for go1.19" (static), NULL: none */
	bool stripped;        /* no symbol table */
	struct lt_go_routine *routines;
	size_t n_routines;    /* read */
	size_t n_all;         /* allglen, dead ones included */
	size_t n_dead;
	bool truncated;       /* more than the cap */
	struct lt_go_mutex *mutexes;
	size_t n_mutexes;
	struct lt_strlist notes;
};

/* Cap on the goroutines read. */
#define LT_GO_MAX_ROUTINES 100000
/* Cap on the frames of one goroutine. */
#define LT_GO_MAX_FRAMES 64

void lt_go_free(struct lt_go *g);
/* The channels os/signal.Notify registered: the keys of the map in
 * os/signal's `handlers` (the variable at HANDLERS), read in Go 1.24's
 * Swiss-table layout when SWISS, else in the older one, with their values
 * (the *handler); complete false when a bound or an unreadable bucket left
 * some unread.  0, or -1 when the map could not be read at all. */
struct lt_go_notify {
	uint64_t *chans, *handlers;
	size_t n, cap;
	bool complete;
	bool sorted; /* by channel */
};
int lt_go_notify_read(const struct lt_lm_env *e, uint64_t handlers, bool swiss, struct lt_go_notify *m);
void lt_go_notify_free(struct lt_go_notify *m);
/* Is channel CH among M's: 1 (SIGS, LEN bytes, the signals it gets, "all
 * signals", "" when unread), 2 registered only for signals no channel gets
 * (SIGKILL, SIGSTOP, SIGPROF), 0 not, -1 not known (M incomplete). */
int lt_go_notify_find(const struct lt_lm_env *e, const struct lt_go_notify *m, uint64_t ch, char *sigs, size_t len);
/* Does a binary of Go version V ("go1.24.1 X:noswissmap") keep its maps
 * in Swiss tables: Go 1.24 on unless built with GOEXPERIMENT=noswissmap,
 * 1.22-1.23 only with GOEXPERIMENT=swissmap. */
bool lt_go_swiss_maps(const char *v);
/* The two at once, for one channel. */
int lt_go_notify_lookup(const struct lt_lm_env *e, uint64_t handlers, bool swiss, uint64_t ch, char *sigs,
			size_t len);

/* Adds the Go verdicts to S (from s->go): called by lt_snapshot_diagnose. */
void lt_go_verdicts(struct lt_snapshot *s);

/* An IDLE verdict of S says the goroutines waiting in a sync.WaitGroup's
 * Wait() whose counter is above 0: what ends them (Done() calls) is made by
 * goroutines no snapshot names, so the idle process is not known to be
 * free of a stuck wait.  Called after the verdicts. */
void lt_go_idle_notes(struct lt_snapshot *s);

/* Output of s->go: text (nothing when there is none) and a "go" member of
 * the snapshot's JSON object. */
void lt_go_print_text(FILE *f, const struct lt_snapshot *s);
void lt_go_print_json(struct jw *w, const struct lt_snapshot *s);

/* The "go" member of a stored snapshot's JSON read back into s->go
 * (rt_go_load.c; J: a struct rp_json of src/report_int.h). */
struct rp_json;
void lt_go_from_json(struct lt_snapshot *s, const struct rp_json *j);

/* ---- the flight recorder (rt_go_watch.c) -------------------------------- */

/* A Go process watched while recording: its goroutines are read (at most
 * once a second) and a goroutine deadlock or sync.Mutex wait seen the same
 * for WINDOW ns is a stall.  lt_go_watch_check returns -1 when PID is no
 * Go program (the events-only stall rule decides), 0 when it is one and
 * nothing is stuck (its threads' futex waits on the runtime's notes are no
 * stall), 1 for a stall (WHY says which goroutines).  NOW: BOOTTIME ns. */
struct lt_go_watch;
struct lt_go_watch *lt_go_watch_new(pid_t pid);
void lt_go_watch_free(struct lt_go_watch *w);
int lt_go_watch_check(struct lt_go_watch *w, uint64_t now, uint64_t window, char *why, size_t len);
void lt_go_watch_rearm(struct lt_go_watch *w, uint64_t now);

/* ---- pclntab (pure; rt_go_pcln.c) --------------------------------------- */

struct lt_go_pcln {
	const uint8_t *d;     /* the .gopclntab bytes */
	size_t n;
	int ver;              /* 118 (1.18, 1.19) or 120 (1.20+), 0 unknown */
	unsigned quantum, ptrsize;
	uint64_t nfunc, text; /* textStart */
	uint64_t funcname, cu, filetab, pctab, pcln; /* offsets in d */
};

/* Parse the header: 0, or -EINVAL for an unknown magic (Go before 1.18). */
int lt_go_pcln_init(struct lt_go_pcln *p, const uint8_t *d, size_t n);
/* The function holding PC: its offset in d (the _func), or 0 when none;
 * *ENTRY its entry pc. */
uint64_t lt_go_pcln_func(const struct lt_go_pcln *p, uint64_t pc, uint64_t *entry);
/* The end of the function holding PC (the next function's entry, or the
 * end of the text), 0 when PC is in none. */
uint64_t lt_go_pcln_func_end(const struct lt_go_pcln *p, uint64_t pc);
/* The function's name, "" when unreadable. */
const char *lt_go_pcln_name(const struct lt_go_pcln *p, uint64_t fn);
/* The value at PC of the function's pc-value table number TAB (0 pcsp,
 * 1 pcfile, 2 pcln), INT32_MIN when not found. */
int32_t lt_go_pcln_value(const struct lt_go_pcln *p, uint64_t fn, int tab, uint64_t pc);
/* The file of per-CU file index FILENO in the function's CU, NULL. */
const char *lt_go_pcln_file(const struct lt_go_pcln *p, uint64_t fn, int32_t fileno);
/* pcdata table I and funcdata slot I of the function, 0 / ~0 when absent. */
int32_t lt_go_pcln_pcdata(const struct lt_go_pcln *p, uint64_t fn, unsigned i, uint64_t pc);
uint32_t lt_go_pcln_funcdata(const struct lt_go_pcln *p, uint64_t fn, unsigned i);

#ifdef __cplusplus
}
#endif
#endif
