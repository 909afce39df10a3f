/* locktrace lock models: what a futex a thread sleeps on belongs to, and
 * who holds it, read from the target's memory (never ptrace, never a
 * signal).  See docs/locks.md.
 *
 * Two kinds of model share this interface:
 *   - the glibc model (lock_glibc.c) classifies each futex wait by the
 *     waiting thread's stack and the lock's memory: pthread mutex, rwlock,
 *     semaphore, condition variable, pthread_join;
 *   - runtime models (lock_ocaml.c, lock_cpython.c, ...) find the runtime's
 *     own lock objects (OCaml's master lock, CPython's GIL) through its
 *     symbols, decode their state and name the holder.  Any futex word a
 *     thread sleeps on inside [base, base + size) of such an object is a
 *     wait for that runtime lock.  A runtime whose threads sleep elsewhere
 *     (HotSpot's monitors, lock_hotspot.c) names its waiters by tid
 *     instead (lt_lockmodel.scan).
 *
 * Models read the process only through struct lt_lm_env, so every model is
 * tested on a synthetic memory image (a fixture) as well as on live
 * processes.
 */
#ifndef LOCKTRACE_LOCKMODEL_H
#define LOCKTRACE_LOCKMODEL_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>

#include "snapshot.h"

#ifdef __cplusplus
extern "C" {
#endif

struct lt_sym;
/* The live environment's state (lt_lm_env_live). */
struct lt_lm_live {
	struct lt_sym *sym;
	const struct lt_snapshot *s;
	uint64_t (*fsbase)(void *arg, pid_t tid);
	void *fsbase_arg;
};

/* What a model may read of the target. */
struct lt_lm_env {
	void *arg;
	/* Read exactly LEN bytes at ADDR: 0 or -errno. */
	int (*read)(void *arg, uint64_t addr, void *buf, size_t len);
	/* Address and size of a data or function symbol NAME, searched in the
	 * executable first, then in every loaded module (.symtab and
	 * .dynsym).  0, or -ENOENT. */
	int (*lookup)(void *arg, const char *name, uint64_t *addr, uint64_t *size);
	/* The thread whose stack mapping holds ADDR, 0 if none is known. */
	pid_t (*stack_tid)(void *arg, uint64_t addr);
	/* The thread's pthread_t (its fs base), 0 if unknown.  May be NULL. */
	uint64_t (*fsbase)(void *arg, pid_t tid);
	/* The thread table, with syscalls, futex words and user stacks. */
	const struct lt_snapshot *s;
	struct lt_lm_live live; /* lt_lm_env_live's, pointed to by arg */
};

/* Is T asleep in a futex wait (its call read, a waiting command): a wait a
 * runtime lock may claim by its word. */
bool lt_lm_futex_waiter(const struct lt_thread *t);

/* Helpers for models: little-endian loads from the target. */
int lt_lm_read_u32(const struct lt_lm_env *e, uint64_t addr, uint32_t *v);
int lt_lm_read_u64(const struct lt_lm_env *e, uint64_t addr, uint64_t *v);
/* A NUL-terminated string of at most LEN-1 bytes at ADDR. */
int lt_lm_read_str(const struct lt_lm_env *e, uint64_t addr, char *buf, size_t len);

/* A runtime lock found in the process. */
struct lt_rtlock {
	const char *model;       /* "ocaml4", "ocaml5", "cpython", "hotspot"
	                            (static)                                   */
	const char *kind;        /* "OCaml runtime lock", "GIL", "Java
	                            monitor" (static)                          */
	char *name;              /* "caml_master_lock", "thread_table[0]",
	                            "_PyRuntime.ceval.gil"                     */
	char *version;           /* "OCaml 4.13.1", "CPython 3.11.2"; NULL     */
	uint64_t base, size;     /* futex words inside belong to this lock     */
	int held;                /* 1 held, 0 free, -1 unknown                 */
	int waiters;             /* the runtime's own count, -1 unknown        */
	pid_t holder;            /* tid of the holder, 0 if free or unknown    */
	char *holder_how;        /* how the holder was found, or why it is not */
	pid_t holder_gone;       /* held, and the holder the runtime recorded is
	                            no thread of this process (it exited
	                            holding it?): its tid; 0 otherwise        */
	bool holder_exited;      /* held, and the holder the runtime recorded,
	                            known by no tid (a java.lang.Thread), is no
	                            live thread: it exited holding it         */
	bool holderless;         /* a synchronizer no thread holds (a
	                            CountDownLatch): its waiters wait for
	                            calls (countDown()) of threads no one
	                            records; holder_how says what it needs   */
	/* the runtime's own count of hand-offs (CPython: the GIL's
	 * switch_number), valid when has_handoffs: a held lock whose count
	 * does not move while threads wait for it is not being passed on */
	uint64_t handoffs;
	bool has_handoffs;
	/* Only the holder itself lets go of this lock, and never while it
	 * sleeps in a call that did not release it (OCaml's runtime lock): a
	 * holder asleep in one call since T has held the lock since T, the
	 * stall rule's witness where the runtime counts no hand-offs. */
	bool kept_while_asleep;
	struct lt_strlist facts; /* decoded fields, one per line: "busy=1"     */
	/* The runtime itself names the threads waiting for this lock (scan):
	 * a claimed wait stands as long as the runtime says so, even if the
	 * thread woke briefly during the snapshot (HotSpot's monitor waiters
	 * re-park every second; the JVM's state, read twice, is the proof). */
	bool waiters_named;
	/* Threads seen waiting for this lock although they were not asleep on
	 * it when the snapshot read them (snapshot.c, resample_rtlocks): a
	 * runtime whose waiters retry in timed slices (CPython: 5 ms) leaves
	 * them runnable between two waits, for long on a loaded machine.  The
	 * snapshot re-reads the other threads' system calls SEEN_SAMPLES times
	 * over SEEN_SPAN_MS ms while the holder stays blocked; a thread seen in
	 * a futex wait on a word inside [base, base + size) is listed here. */
	pid_t *seen;
	size_t n_seen;
	int seen_samples;
	double seen_span_ms;
	/* A wait for a notify() rather than for the lock (Java's Object.wait(),
	 * a java.util.concurrent Condition's await()): only the lock's holder
	 * can send it, so the holder is the waiters' other end.  wait_call
	 * ("Object.wait()"), wake_call ("notify()"), static; held_what ("monitor",
	 * "lock, ...Sync@0x..,"), malloc'd.  NULL: a plain lock. */
	const char *wait_call, *wake_call;
	char *held_what;
	/* A wait for the holder to finish something rather than to let go of
	 * a lock or to notify (Java's FutureTask.get(): the holder is the
	 * task's runner; Thread.join(): the joined thread): KIND is one of
	 * lt_done_kind_of's (snapshot.h), which says what ends the wait and
	 * what else could; wait_call its call, wake_call NULL. */
};
void lt_rtlock_clear(struct lt_rtlock *l);

/* A thread as its runtime knows it (lt_lockmodel.scan). */
/* Where a runtime's machine code lies: [lo, hi) (a JVM's code cache:
 * interpreter, stubs, compiled methods) and ENTRY, the pc of the frame
 * that entered it from native code (HotSpot's call stub return address),
 * 0 if unknown. */
struct lt_rt_code {
	uint64_t lo, hi, entry;
};

struct lt_rtthread {
	pid_t tid;
	const char *lang; /* the runtime's language, lt_thread.rt_lang ("java";
	                     static)                                          */
	char *name;   /* the runtime's name for it (Java: Thread.getName()), NULL */
	size_t waits; /* 1 + index into the scan's locks of the lock the runtime
	                 says it waits for; 0 if none                        */
	/* The thread's stack in the runtime's own frames, innermost first
	 * (Java methods, which the unwinder sees as `??` frames of interpreter
	 * and JIT code), each with the pc of the machine frame that runs it;
	 * group[i] numbers those machine frames (a compiled method and the
	 * methods inlined into it share one).  They become lt_thread.rt_frames,
	 * placed among the native frames by lt_rt_place_pc (rtthread.h), and
	 * END (why the stack is incomplete) rt_end; the native frames stay as
	 * the unwinder found them.  NULL/0 when the runtime shows none.
	 * CODE says where the runtime's machine code is (a JVM's code cache
	 * and call stub), for placing frames whose machine frames the
	 * unwinder skipped (lt_rt_place_pc, rtthread.h); hi 0 if unknown. */
	struct lt_rtframe *frames;
	unsigned *group;
	size_t n_frames;
	char *end;
	struct lt_rt_code code;
	/* A wait the runtime names that no thread holds and only other
	 * threads' calls end (LT_KIND_JAVA_BARRIER, _PHASER, _CFUTURE,
	 * _FJTASK: snapshot.h): not a claim
	 * (no lock, no holder) but the futex wait's own kind, SIG_OBJ its
	 * lock_base, SIG_NAME its lock_name and SIG_STATE added to its
	 * lock_state (models.c, apply_rtthreads).  NULL kind: none. */
	const char *sig_kind;
	uint64_t sig_obj;
	char *sig_name, *sig_state;
};
void lt_rtthread_clear(struct lt_rtthread *t);

/* A runtime model.  find() appends the runtime's locks to *v (n entries,
 * realloc'd) and returns 0; a runtime that is absent appends nothing.
 * Problems (an unknown version, unreadable memory) go into NOTES: an
 * unknown layout is said, never guessed.
 *
 * scan() is find() for a runtime that also knows its threads: besides the
 * locks, it appends to *th (nth entries, realloc'd) the threads it knows,
 * with their names and the lock each one waits for.  That is how a wait is
 * claimed when the futex word the thread sleeps on is not inside the lock:
 * a Java thread entering a monitor parks on its own event, never on the
 * ObjectMonitor.  A claimed thread must be asleep in a futex wait; it then
 * gets the lock as its rtlock, and owner_kind LT_OWNER_RUNTIME with the
 * lock's holder, exactly as a wait inside [base, base + size) does.  The
 * threads' runtime view (lang, name) becomes lt_thread's rt_lang and
 * rt_name, the fields the runtime thread models (rtthread.h) fill for the
 * runtimes they read: one view of a thread whichever model read it.  A
 * model sets find or scan, not both. */
struct lt_lockmodel {
	const char *name;
	int (*find)(const struct lt_lm_env *e, struct lt_rtlock **v, size_t *n,
		    struct lt_strlist *notes);
	int (*scan)(const struct lt_lm_env *e, struct lt_rtlock **v, size_t *n,
		    struct lt_rtthread **th, size_t *nth, struct lt_strlist *notes);
};

/* The runtime models, NULL-terminated. */
extern const struct lt_lockmodel *const lt_lockmodels[];

/* Append one zeroed lock to *v; NULL on ENOMEM. */
struct lt_rtlock *lt_rtlock_push(struct lt_rtlock **v, size_t *n);

/* Runs every model on S: fills s->rtlocks, and for each thread the lock it
 * waits for (t->futex.lock_*, owner and owner_kind when a model names the
 * holder) and whether its stack is in a lock-acquire path (t->acquire).
 * It starts every thread's runtime view (rt_*) afresh: a scan fills it for
 * the threads its runtime knows, lt_rtthreads_apply (rtthread.h), run
 * after, for the others.  Pure given E: tests pass a synthetic
 * environment. */
void lt_lockmodels_apply(struct lt_snapshot *s, const struct lt_lm_env *e);
/* A runtime lock's holder that was asleep waiting for that very lock when
 * its call was read (the lock changed hands between the readings) is not
 * named, in the lock and its waiters' owners, and holder_how says why.
 * Run by lt_lockmodels_apply. */
void lt_lockmodels_check_holders(struct lt_snapshot *s);

/* glibc (lock_glibc.c): classify one thread's futex wait from its stack
 * (frames) and the memory around the futex word.  Sets t->futex.lock_kind,
 * lock_base, lock_state, and owner/owner_kind where the primitive records
 * an owner.  Sets t->acquire to the acquire function found on the stack. */
void lt_glibc_classify(const struct lt_lm_env *e, struct lt_thread *t);

/* The lock-acquire function a frame name stands for, NULL if none:
 * "pthread_mutex_lock", "sem_wait", "pthread_cond_wait", ... (glibc entry
 * points, with their internal aliases and version suffixes folded). */
const char *lt_glibc_acquire_name(const char *func);

/* A live environment (memory via process_vm_readv, symbols via the
 * snapshot's symbolizer SYM, which may be NULL: lookups then fail).  FSBASE
 * (may be NULL) answers a thread's fs base for it, with FSBASE_ARG. */
struct lt_sym;
void lt_lm_env_live(struct lt_lm_env *e, struct lt_sym *sym, const struct lt_snapshot *s,
		    uint64_t (*fsbase)(void *arg, pid_t tid), void *fsbase_arg);

#ifdef __cplusplus
}
#endif
#endif
