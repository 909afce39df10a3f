/* Internal helpers shared by the snapshot files (snapshot*.c, fdinfo.c,
 * verdicts.c).  Not part of the public API.  Every non-static name here has
 * the lts_ prefix so it cannot collide with other locktrace modules. */
#ifndef LOCKTRACE_SNAPSHOT_INT_H
#define LOCKTRACE_SNAPSHOT_INT_H

#include <stdarg.h>
#include <stdbool.h>
#include <stdint.h>
#include <string.h>
#include <sys/types.h>

#include "snapshot.h"

/* Read a small file (whole, up to len-1 bytes), NUL-terminate.  Returns the
 * number of bytes read or -errno. */
ssize_t lts_read_small(const char *path, char *buf, size_t len);
/* Read a file of any size into a malloc'd NUL-terminated buffer.  Returns
 * NULL and sets errno on failure. */
char *lts_read_all(const char *path, size_t *len_out);

char *lts_strdup(const char *s);  /* NULL-safe, NULL on OOM */
char *lts_asprintf(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
char *lts_vasprintf(const char *fmt, va_list ap);

int64_t lts_now_ns(int clock);

/* The threads of process pid, sorted (malloc'd, *n of them); NULL when
 * /proc/PID/task cannot be read. */
pid_t *lts_list_tasks(pid_t pid, size_t *n);
struct rp_json;
/* A stored snapshot's string where a live one holds a static string: a
 * copy S owns (in S->strings, freed with it); NULL unless a string. */
const char *lts_json_own_str(struct lt_snapshot *s, const struct rp_json *j);

/* Numeric field FIELD (proc(5) numbering: 3 = state, 9 = flags) of a
 * /proc/PID/stat line. */
int lts_parse_stat_field(const char *buf, int field, unsigned long long *val);
/* Fill the op-derived fields of F from futex_wait(2) (futex2, nr 455). */
void lts_futex2_decode_args(struct lt_futex *f, const uint64_t args[6]);

/* ---- fd descriptions (fdinfo.c) ---- */

/* Per-snapshot cache of the target's /proc/PID/net tables, loaded on the
 * first socket lookup and read once. */
struct lts_net;
struct lts_net *lts_net_new(pid_t pid);
void lts_net_free(struct lts_net *n);
/* "tcp 127.0.0.1:5000 -> 127.0.0.1:41234 ESTABLISHED", NULL if not found. */
const char *lts_net_lookup(struct lts_net *n, unsigned long inode);

/* Fill fd->kind, fd->target, fd->desc for fd number FD of PID. */
void lts_describe_fd(pid_t pid, struct lts_net *net, int fd, struct lt_fd *out);
/* epoll interest list from /proc/PID/fdinfo/EPFD: appends to w->fds. */
int lts_epoll_fds(pid_t pid, struct lts_net *net, int epfd, struct lt_fdwait *w);

/* Parse the text of /proc/PID/fdinfo/EPFD: tfd and events pairs. Returns the
 * number of entries stored (at most max). */
size_t lts_parse_epoll_fdinfo(const char *text, int *fds, unsigned *events, size_t max);

/* Decode the hex address columns of /proc/net/tcp{,6}. */
int lts_format_inet(const char *hex, char *buf, size_t len);

/* ---- verdicts.c helpers shared with the printers ---- */

/* "14 s", "2.3 s", "120 ms"; "?" for a negative value. */
void lts_fmt_duration(double s, char *buf, size_t len);
/* What a thread is doing, short: "read(fd 7: socket)", "running". malloc'd. */
char *lts_thread_activity(const struct lt_thread *t);

/* A new verdict of S (NULL on ENOMEM), and a thread of it (0 or -ENOMEM):
 * for verdict rules outside verdicts.c (appwait.c). */
struct lt_verdict *lts_verdict_new(struct lt_snapshot *s, enum lt_verdict_kind k);
int lts_verdict_add_tid(struct lt_verdict *v, pid_t tid, uint64_t lock);
/* with_lock: also append LOCK to the verdict's lock list */
int lts_verdict_add(struct lt_verdict *v, pid_t tid, uint64_t lock, bool with_lock);
/* Whether thread T's wait has a timeout that ends it by itself (not a
 * runtime lock's polling steps), and *LEFT_S about how long from the
 * snapshot until then, < 0 not known. */
bool lts_wait_timed(const struct lt_snapshot *s, const struct lt_thread *t, double *left_s);
/* A runtime's own thread, or one the runtime idle table knows to wait for
 * work (rt_idle.c): it runs none of the program's code that could end
 * another's wait. */
bool lts_runtime_idle(const struct lt_thread *t);
/* A Java thread in Thread.sleep (HotSpot parks it on a timed condition
 * variable that no thread's signal ends). */
bool lts_java_sleep(const struct lt_thread *t);
/* The java launcher's first thread (PID's own, not a Java thread),
 * joining the Java main thread: once that exits, it destroys the JVM
 * (waiting for the other non-daemon threads) and runs no Java code: it
 * unparks, notifies and signals nobody. */
bool lts_java_launcher_join(const struct lt_snapshot *s, pid_t pid, const struct lt_thread *t);
/* Only a thread of the waiter's own process can wake futex F: a private
 * one, or one of a shared mapping that no other live process maps. */
static inline bool lts_futex_own_only(const struct lt_futex *f)
{
	return f->private_ || (f->shared_obj && f->obj_mappers_known && !f->obj_mappers);
}
/* TID among V's own threads (not those behind it). */
bool lts_verdict_names(const struct lt_verdict *v, pid_t tid);
/* "sym (0x...)", with the shared object of a lock in a shared mapping */
const char *lts_lock_label(const struct lt_futex *f, char *buf, size_t len);
/* A Java thread: one the HotSpot model read from the JVM's thread list. */
static inline bool lts_java_thread(const struct lt_thread *t)
{
	return t->rt_lang && !strcmp(t->rt_lang, "java");
}
/* A thread of a JVM (U of a process with Java threads) that runs no code
 * of the program: not a Java thread, a compiler thread, or one of the
 * JVM's housekeeping Java threads (by the names the JVM gives them). */
bool lts_jvm_own_thread(const struct lt_thread *u);
/* S's sig_caught into each of its threads. */
void lts_copy_sig_caught(struct lt_snapshot *s);
/* The signals T's process catches (and not all its threads block) that a
 * handler of the program's may act on: all but glibc's own 32 and 33 (thread
 * cancellation, set*id) and the faults the kernel raises in a faulting
 * thread; "SIGINT SIGTERM" into BUF: 1 some, 0 none, -1 not read. */
int lts_handled_signals(const struct lt_thread *t, char *buf, size_t len);
/* What a signal handler can still do about a wait (PLURAL: waits) no
 * thread of T's process can end (WHAT, a verb: "post", "wake", "send"),
 * said after that: "; only a signal could still end it: the process
 * catches SIGTERM (a handler may post it): hung, or waiting for that
 * signal" (1), "; nor can a signal handler: ..." (0), " (only a signal
 * handler that posts it could)" when not read (-1).  Into BUF; the case. */
int lts_handler_clause(const struct lt_thread *t, const char *what, bool plural, char *buf, size_t len);

#endif
