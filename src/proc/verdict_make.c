/* The verdict list and the words verdicts are made of (durations, a
 * thread's activity, a lock's label): shared by the futex rules
 * (snapshot/verdicts.c), the application waits (appwait.c) and the wait-for
 * graph (waitfor_verdicts.c), below all three so that they do not depend on
 * each other. */
#include <errno.h>
#include <inttypes.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "snapshot.h"
#include "snapshot_int.h"
#include "waitfor.h"
#include "grow.h"

void lts_fmt_duration(double s, char *buf, size_t len)
{
	if (s < 0)
		snprintf(buf, len, "?");
	else if (s < 1.0)
		snprintf(buf, len, "%.0f ms", s * 1000.0);
	else if (s < 10.0)
		snprintf(buf, len, "%.1f s", s);
	else
		snprintf(buf, len, "%.0f s", s);
}

static const char *sc_label(const struct lt_thread *t, char *buf, size_t len)
{
	if (t->sc_name)
		return t->sc_name;
	const char *n = lt_syscall_name(t->sc.nr);
	if (n)
		return n;
	snprintf(buf, len, "syscall_%ld", t->sc.nr);
	return buf;
}

/* "rtlock (0x5000)"; a lock in a shared mapping also names the object
 * and offset, which are the same in every process that maps it. */
/* A thread of a JVM that runs no code of the program: one the JVM does
 * not list as a Java thread (its VM thread, GC workers, periodic task
 * thread: a native thread would have to attach to call Java), one of its
 * compiler threads, or one of the Java threads it starts for its own
 * housekeeping (named by the JVM; not the Signal Dispatcher, which starts
 * the program's handlers, nor the Common-Cleaner, which runs its
 * cleaners).  Caught running or on a timer, it ends no wait of the
 * program's.  JVM: the thread is of a process with Java threads. */
bool lts_jvm_own_thread(const struct lt_thread *u)
{
	static const char *const own[] = { "C1 CompilerThread", "C2 CompilerThread", "Monitor Deflation Thread",
					   "Sweeper thread", "Service Thread", "Notification Thread",
					   "Reference Handler" };
	const char *n = u->rt_name;
	if (!u->rt_lang)
		return true;
	if (!lts_java_thread(u) || !n)
		return false;
	for (size_t k = 0; k < sizeof(own) / sizeof(own[0]); k++)
		if (!strncmp(n, own[k], strlen(own[k])))
			return true;
	return false;
}

const char *lts_lock_label(const struct lt_futex *f, char *buf, size_t len)
{
	char obj[96] = "";
	if (f->shared_obj)
		snprintf(obj, sizeof(obj), ", shared object %u:%u inode %" PRIu64 " offset 0x%" PRIx64,
			 f->obj_major, f->obj_minor, f->obj_ino, f->obj_off);
	if (f->lock_sym)
		snprintf(buf, len, "%s (0x%" PRIx64 "%s)", f->lock_sym, f->uaddr, obj);
	else if (f->shared_obj)
		snprintf(buf, len, "0x%" PRIx64 " (%s)", f->uaddr, obj + 2);
	else
		snprintf(buf, len, "0x%" PRIx64, f->uaddr);
	return buf;
}

char *lts_thread_activity(const struct lt_thread *t)
{
	char nb[32], lb[160];
	if (t->state == 'R' || t->sc.state == LT_SC_RUNNING)
		return lts_strdup("running");
	if (t->sc.state == LT_SC_UNREADABLE)
		return lts_asprintf("in an unknown state (%c)", t->state ? t->state : '?');
	if (t->sc.state == LT_SC_NOT_IN_SYSCALL)
		return lts_asprintf("blocked outside a system call (state %c)", t->state);
	const char *name = sc_label(t, nb, sizeof(nb));
	switch (t->wait) {
	case LT_WAIT_IO: {
		const struct lt_fd *f = &t->fdw.io;
		return lts_asprintf("%s(fd %d: %s)", name, f->fd,
				    f->kind != LT_FD_UNKNOWN ? lt_fd_kind_name(f->kind) : "?");
	}
	case LT_WAIT_POLL:
		if (t->fdw.epfd >= 0)
			return lts_asprintf("%s(epfd %d, %zu fds)", name, t->fdw.epfd, t->fdw.n_fds);
		return lts_asprintf("%s(%zu fds)", name, t->fdw.n_fds);
	case LT_WAIT_FUTEX: {
		/* a Java wait the model named (a queue's take(), a latch's
		 * await(), a Semaphore's acquire()...): its object and where
		 * the program called it, not a futex word of a mapping */
		const struct lt_futex *f = &t->futex;
		if (lt_kind_java_parked(f->lock_kind) && f->lock_name) {
			const char *semi = f->lock_state ? strchr(f->lock_state, ';') : NULL;
			int cut = f->lock_state ? (semi ? (int)(semi - f->lock_state) : (int)strlen(f->lock_state)) : 0;
			return lts_asprintf("%s(%s%s%.*s)", name, f->lock_name, cut ? ": " : "", cut,
					    f->lock_state ? f->lock_state : "");
		}
		return lts_asprintf("%s(%s)", name, lts_lock_label(f, lb, sizeof(lb)));
	}
	default:
		return lts_asprintf("%s()", name);
	}
}

/* ---- verdict list ---- */

struct lt_verdict *lts_verdict_new(struct lt_snapshot *s, enum lt_verdict_kind k)
{
	/* doubling (capacity: the next power of two): one verdict per lock of
	 * a table of thousands stays linear */
	struct lt_verdict *nv = lt_grow_pow2(s->verdicts, s->n_verdicts, sizeof(*nv));
	if (!nv)
		return NULL;
	s->verdicts = nv;
	struct lt_verdict *v = &s->verdicts[s->n_verdicts++];
	memset(v, 0, sizeof(*v));
	v->kind = k;
	return v;
}

int lts_verdict_add(struct lt_verdict *v, pid_t tid, uint64_t lock, bool with_lock)
{
	pid_t *nt = lt_grow_pow2(v->tids, v->n_tids, sizeof(*nt)); /* doubling: linear in the count */
	if (!nt)
		return -ENOMEM;
	v->tids = nt;
	v->tids[v->n_tids++] = tid;
	if (with_lock) {
		uint64_t *nl = lt_grow_pow2(v->locks, v->n_locks, sizeof(*nl));
		if (!nl)
			return -ENOMEM;
		v->locks = nl;
		v->locks[v->n_locks++] = lock;
	}
	return 0;
}

bool lts_verdict_names(const struct lt_verdict *v, pid_t tid)
{
	for (size_t k = 0; k < v->n_tids; k++)
		if (v->tids[k] == tid)
			return true;
	return false;
}

int lts_verdict_add_tid(struct lt_verdict *v, pid_t tid, uint64_t lock)
{
	return lts_verdict_add(v, tid, lock, false);
}

void lts_copy_sig_caught(struct lt_snapshot *s)
{
	for (size_t i = 0; i < s->n_threads; i++) {
		s->threads[i].sig_caught = s->sig_caught;
		s->threads[i].sig_caught_ok = s->sig_caught_ok;
	}
}

/* Signals no program waits for a handler of: glibc's own (32: thread
 * cancellation, 33: set*id), and the faults the kernel raises in the
 * thread that caused them (SIGILL, SIGTRAP, SIGABRT, SIGBUS, SIGFPE,
 * SIGSEGV, SIGSYS: crash handlers, a collector's write barrier), which no
 * thread asleep in a wait causes.  Bit sig-1. */
#define GLIBC_OWN ((1ull << 31) | (1ull << 32))
#define FAULTS ((1ull << 3) | (1ull << 4) | (1ull << 5) | (1ull << 6) | (1ull << 7) | (1ull << 10) | (1ull << 30))

static bool python_thread(const struct lt_thread *t)
{
	return t->rt_lang && !strcmp(t->rt_lang, "python");
}

int lts_handled_signals(const struct lt_thread *t, char *buf, size_t len)
{
	if (len)
		buf[0] = 0;
	if (!t->sig_caught_ok)
		return -1;
	uint64_t m = t->sig_caught & ~(GLIBC_OWN | FAULTS);
	if (!m)
		return 0;
	lt_sigset_str(m, buf, len);
	return 1;
}

int lts_handler_clause(const struct lt_thread *t, const char *what, bool plural, char *buf, size_t len)
{
	char sigs[200];
	const char *obj = plural ? "them" : "it";
	int h = lts_handled_signals(t, sigs, sizeof(sigs));
	uint64_t faults = t->sig_caught_ok ? t->sig_caught & FAULTS : 0;
	if (h > 0)
		snprintf(buf, len, "; only a signal could still end %s: the process catches %s (a handler may %s %s%s): "
			 "hung, or waiting for that signal", plural ? "their waits" : "it", sigs, what, obj,
			 python_thread(t) && (t->sig_caught & 2) ? "; CPython's own SIGINT handler raises "
			 "KeyboardInterrupt in the main thread" : "");
	else if (!h && faults) {
		char fb[120];
		lt_sigset_str(faults, fb, sizeof(fb));
		snprintf(buf, len, "; nor can a signal handler: the process catches only fault signals (%s), which no "
			 "sleeping thread raises", fb);
	} else if (!h)
		snprintf(buf, len, "; nor can a signal handler: no signal the process catches can run one now (SigCgt "
			 "and SigBlk of /proc/PID/status: none caught, or blocked by every thread)");
	else
		snprintf(buf, len, " (only a signal handler that %ss %s could)", what, obj);
	return h;
}
