/* SPDX-License-Identifier: MIT */
/*
 * Application lock managers whose waits look like I/O (docs/appwait.md).
 *
 * A PostgreSQL backend waiting for a row lock sleeps in epoll_wait on its
 * latch (a signalfd and the postmaster-death pipe), an LWLock waiter in a
 * semaphore: by the system call alone an idle server.  The user stack says
 * what it is: ProcSleep under LockAcquireExtended under XactLockTableWait.
 * A table of known wait functions per application (src/appwait.c), matched
 * against a thread's symbolised user stack, names the application and the
 * kind of lock; the verdicts report such a wait as a lock wait of that
 * application, never as idle, and an application's idle wait (a backend
 * reading its client) as idle.
 */
#ifndef LOCKTRACE_APPWAIT_H
#define LOCKTRACE_APPWAIT_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>

#include "snapshot.h"

/* lt_thread.app_class */
enum lt_appwait_class {
	LT_APPWAIT_NONE = 0,
	LT_APPWAIT_LOCK,  /* waits for a lock of the application's lock manager */
	LT_APPWAIT_IDLE,  /* the application's own idle wait (a client read)    */
};
const char *lt_appwait_class_name(enum lt_appwait_class c);

/* One entry of the table: a thread whose user stack has SLEEP within
 * SLEEP_DEPTH frames of the innermost one (in a module whose basename
 * starts with MODULE), and, when CALLER is set, CALLER (a trailing '*' is
 * a prefix) within CALLER_DEPTH frames above SLEEP, waits as CLS for WHAT.
 * The nearest caller above SLEEP that some entry names decides; an entry
 * with no CALLER is the fallback for its SLEEP. */
struct lt_appwait_rule {
	const char *app;     /* "PostgreSQL"                                  */
	const char *module;  /* "postgres"; NULL: any module                  */
	const char *sleep;   /* "ProcSleep"                                   */
	int sleep_depth;
	const char *caller;  /* "XactLockTableWait"; NULL: fallback           */
	int caller_depth;
	enum lt_appwait_class cls;
	const char *what;    /* "a row/transaction lock"                      */
	const char *kind;    /* short, for grouping: "row/transaction lock"    */
};

/* The built-in table, and its length. */
const struct lt_appwait_rule *lt_appwait_rules(size_t *n);

/* Match T's user frames (T->frames) against RULES (NULL: the built-in
 * table).  Returns the rule, or NULL; with VIA (may be NULL) a malloc'd
 * "ProcSleep < ?? < LockAcquireExtended < XactLockTableWait" of the frames
 * from the sleep to the deciding caller. */
const struct lt_appwait_rule *lt_appwait_match(const struct lt_thread *t,
					       const struct lt_appwait_rule *rules, size_t n,
					       char **via);

/* Set the app_* fields of every thread of S (a live snapshot of process
 * S->pid) that matches: also reads the process title (/proc/PID/cmdline)
 * and parent pid, once. */
void lt_appwait_apply(struct lt_snapshot *s);

/* Could process PID be an application of the table?  Its executable's
 * basename starts with a rule's module (a rule with no module: always).
 * Cheap (one readlink): the flight recorder asks before a snapshot. */
bool lt_appwait_may_run(pid_t pid);

/* A process title as /proc/PID/cmdline holds it (NULs between the
 * arguments, padding at the end): one line, trimmed, in buf. */
void lt_appwait_title(const char *raw, size_t len, char *buf, size_t buflen);

/* ---- PostgreSQL's lock holders, from its shared memory (pglocks.c) ---- */

#define LT_PG_MAX_HOLDERS 8
struct lt_pg_wait {
	uint64_t lock;            /* the LOCK's address                          */
	int mode;                 /* the mode wanted (1..8)                      */
	unsigned grant_mask;      /* modes granted on it                         */
	char tag[96];             /* "transaction 745", "relation 16384 of ..."  */
	pid_t holders[LT_PG_MAX_HOLDERS];
	unsigned hold_masks[LT_PG_MAX_HOLDERS];
	bool holder_waits[LT_PG_MAX_HOLDERS]; /* its PGPROC waits for a lock too */
	size_t n_holders;
	bool more;
	int64_t wait_start;       /* PGPROC.waitStart: microseconds since 2000-01-01
	                             UTC (PostgreSQL's epoch) the wait began, 0 unset */
};
/* Byte offsets of the fields read (PostgreSQL 15, x86-64). */
struct lt_pg_layout {
	unsigned proc_pid, proc_waitlock, proc_waitmode, proc_groupleader;      /* PGPROC   */
	unsigned proc_waitstart;                                                 /* PGPROC   */
	unsigned lock_tag, lock_grantmask, lock_waitmask, lock_proclocks;       /* LOCK     */
	unsigned pl_mylock, pl_myproc, pl_groupleader, pl_holdmask, pl_locklink; /* PROCLOCK */
	unsigned shmq_next;                                                      /* SHM_QUEUE */
};
extern const struct lt_pg_layout lt_pg15_layout;
/* Reads LEN bytes at ADDR of the server's memory: 0 or nonzero. */
typedef int (*lt_pg_read_fn)(void *arg, uint64_t addr, void *buf, size_t len);
/* The holders of the lock the backend PID (whose PGPROC is at MYPROC)
 * waits for, PostgreSQL 15's layout, each read checked: 0, or -1 with why
 * in WHY. */
int lt_pg_holders(lt_pg_read_fn rd, void *arg, uint64_t myproc, pid_t pid, struct lt_pg_wait *out, char *why,
		  size_t whylen);
/* "AccessShareLock".."AccessExclusiveLock" of a lock mode, "?" */
const char *lt_pg_mode_name(int mode);
/* A LOCKTAG (16 bytes) in words: "transaction 745". */
size_t lt_pg_locktag_str(const unsigned char tag[16], char *buf, size_t len);
/* For each backend of S (a live snapshot) in a heavyweight-lock wait: an
 * LT_WF_APP_LOCK edge naming the holders read from the server's shared
 * memory, or, with no pids, saying why not and how to find them. */
struct lt_sym;
struct lt_mem;
void lt_appwait_holders(struct lt_snapshot *s, struct lt_sym *sym, struct lt_mem *mem);

/* ---- a backend reading from its client (pglocks.c) ---- */

/* T is a PostgreSQL backend's thread in a read from its client
 * (secure_read: idle, idle in transaction, COPY FROM STDIN), with edges. */
bool lt_pg_client_reader(const struct lt_thread *t);
/* The setting whose timeout ends such a read, by the process title:
 * "idle_in_transaction_session_timeout", "idle_session_timeout",
 * "statement_timeout" (static). */
const char *lt_pg_client_timeout_guc(const char *title);
/* Pure: T's wait (lt_waitfor_collect's edges of its epoll set) is its
 * client's socket alone, the one socket it polls: the latch's signalfd
 * and the postmaster-death pipe (read end, written only by SERVER) are
 * set aside, the socket's edge says the backend is idle in transaction
 * (its title), and a TIMEOUT_MS > 0 of the setting above is the edge's
 * timeout (timeout_what, timeout_s; the server ends the session then),
 * ending at most the timeout less T's idle_s after the snapshot (its
 * timer is armed when the backend goes idle: timeout_left_s).
 * TIMEOUT_MS < 0 (not read, WHY): the same, the edge's timeout_s < 0
 * (whether a timeout ends the wait is not known). */
void lt_pg_client_wait(struct lt_thread *t, pid_t server, int timeout_ms, const char *why_unread);
/* Pure: the settings that cancel a lock wait's statement, on its holders'
 * edge E: lock_timeout LOCK_MS (armed with the wait: E->wait_s, from
 * PGPROC.waitStart, is its age), statement_timeout STMT_MS (armed before
 * the wait); IDLE_S (how long the backend has not run, < 0 not known)
 * when E->wait_s is not known.  The one that ends first is E's timeout;
 * either < 0 (not read, WHY): E's timeout_s < 0. */
struct lt_wf_edge;
void lt_pg_lock_timeouts(struct lt_wf_edge *e, int lock_ms, int stmt_ms, double idle_s, const char *why_unread);
/* For each backend of S (a live snapshot, its edges collected) reading
 * from its client: the setting read from its memory, lt_pg_client_wait
 * (LOCKTRACE_NO_PG_SETTINGS: as if it could not be read). */
void lt_appwait_clients(struct lt_snapshot *s, struct lt_sym *sym, struct lt_mem *mem);

#endif
