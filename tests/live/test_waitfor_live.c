/* Live tests of the wait-for edges (include/locktrace/waitfor.h) on
 * programs we did not write (flock(1), Debian's python3: fcntl.lockf,
 * fcntl.flock, subprocess.run; coreutils' tail --pid, bash's read -t) and
 * on the cross-process cycle workload
 * (tests/workloads/xproc_cycle.c).  Ground truth: /proc/locks, the pids
 * the programs print, /proc/PID/task/PID/children.  Needs root. */
#include <criterion/criterion.h>
#include <dirent.h>
#include <errno.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/msg.h>
#include <sys/sem.h>
#include <inttypes.h>
#include <sys/stat.h>
#include <sys/sysmacros.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "json_read.h"
#include "snapshot.h"
#include "snapshot_int.h"
#include "target.h"
#include "waitfor.h"
#include "lt_test.h"
#include "locktrace/taskregs.h"

#define FLOCK_BIN "/usr/bin/flock"
#define SQLITE_BIN "/usr/bin/sqlite3"
#define PIDWAIT_BIN "/usr/bin/pidwait"
#define GDB_BIN "/usr/bin/gdb"
#define STRACE_BIN "/usr/bin/strace"
#define MAKE_BIN "/usr/bin/make"

static struct tl_proc procs[3];
static char lines[3][64][256];
static int nlines[3];
static char lockfile[2][64];

static pid_t orphan; /* a child left when the test killed its parent */
static char extra_link[96];      /* a hard link to a lock file, or a pid file: unlinked at cleanup */
static char extra_dir[2][96];    /* directories removed at cleanup */
static char extra_sock[128];     /* a test's socket file (its process is killed: no SIGTERM handler runs) */
static int sysv_id = -1; /* ipc_waits sysv's semaphore set */
static int sysv_msqid = -1; /* ipc_waits sysv-msg's message queue */

/* a tracer a test started (gdb, strace): killed first at the cleanup, as
 * a traced process's parent cannot reap it before its tracer lets go */
static struct tl_proc tracer;

/* a fourth process of a test (the relay test's client): killed at the cleanup */
static struct tl_proc fourth;

/* Starts ARGV (gdb or strace, BIN) as the test's tracer; skips, saying
 * why, when BIN (of Debian's package PKG) is missing. */
static pid_t start_tracer(const char *bin, const char *pkg, char *const argv[])
{
	if (access(bin, X_OK))
		cr_skip_test("%s missing (Debian: %s)", bin, pkg);
	cr_assert_eq(tl_spawn(&tracer, argv), 0, "cannot start %s: %s", bin, strerror(errno));
	return tracer.pid;
}

static void cleanup(void)
{
	if (tracer.pid > 0) {
		tl_kill_tree(tracer.pid);
		tl_close(&tracer);
		tracer.pid = 0;
	}
	if (fourth.pid > 0) {
		tl_kill_tree(fourth.pid);
		tl_close(&fourth);
		fourth.pid = 0;
	}
	if (sysv_id >= 0)
		semctl(sysv_id, 0, IPC_RMID);
	sysv_id = -1;
	if (sysv_msqid >= 0)
		msgctl(sysv_msqid, IPC_RMID, NULL);
	sysv_msqid = -1;
	if (orphan > 0)
		kill(orphan, SIGKILL);
	orphan = 0;
	for (int i = 0; i < 3; i++)
		if (procs[i].pid > 0) {
			tl_kill_tree(procs[i].pid);
			tl_close(&procs[i]);
		}
	if (extra_sock[0])
		unlink(extra_sock);
	extra_sock[0] = 0;
	if (extra_link[0])
		unlink(extra_link);
	extra_link[0] = 0;
	for (int i = 1; i >= 0; i--) /* the file first, then its directory */
		if (extra_dir[i][0]) {
			char f[256];
			snprintf(f, sizeof(f), "%s/f", extra_dir[i]);
			unlink(f);
			rmdir(extra_dir[i]);
			extra_dir[i][0] = 0;
		}
	for (int i = 0; i < 2; i++)
		if (lockfile[i][0]) {
			static const char *const side[] = { "-journal", "-wal", "-shm" }; /* sqlite3's */
			for (size_t k = 0; k < 3; k++) {
				char j[160];
				snprintf(j, sizeof(j), "%s%s", lockfile[i], side[k]);
				unlink(j);
			}
			unlink(lockfile[i]);
		}
}

static void need_root(void)
{
	if (!tl_is_root())
		cr_skip_test("needs root: other processes' /proc/PID/syscall, fdinfo and memory");
}

static struct lt_snapshot *take(pid_t pid)
{
	struct lt_snapshot *s = NULL;
	struct lt_snapshot_opts o = { .flags = LT_SNAP_NO_USTACK | LT_SNAP_NO_LINES };
	int r = lt_snapshot_take(pid, &o, &s);
	cr_assert_eq(r, 0, "snapshot of %d: %s", (int)pid, lt_snapshot_strerror(r));
	return s;
}

/* Starts python3 -c SCRIPT as procs[0] and waits for its "ready" (skips
 * without root or python3). */
static void start_py(const char *script)
{
	need_root();
	if (access(TL_PYTHON, X_OK))
		cr_skip_test("%s missing", TL_PYTHON);
	tl_start_ready(&procs[0], (char *const[]){ TL_PYTHON, "-c", (char *)script, NULL }, lines[0],
		       &nlines[0], 64, 30000);
}

/* Snapshots of process PID (up to 10 s, every 50 ms) until its main thread
 * sleeps in system call NR1 or NR2 (-1: none) with, for MIN_EDGES > 0, at
 * least that many wait-for edges, the first one TIMED: the last snapshot
 * taken (the test's checks say what it lacks if time ran out), its
 * thread into *T (if T).  Sleeps: not caught running at the end of the
 * call (/proc's syscall file still names it, the thread is R and has no
 * wait-for edges: a CI run caught SQLite's 5 ms busy sleep so). */
static struct lt_snapshot *take_when(pid_t pid, long nr1, long nr2, size_t min_edges,
				     const struct lt_thread **t)
{
	struct lt_snapshot *s = NULL;
	const struct lt_thread *th = NULL;
	for (double t0 = tl_now_s(); tl_now_s() - t0 < 10; usleep(50000)) {
		if (s)
			lt_snapshot_free(s);
		s = take(pid);
		th = lt_snapshot_find(s, pid);
		if (th && th->sc.state == LT_SC_IN_SYSCALL && th->state != 'R' && (th->sc.nr == nr1 || th->sc.nr == nr2) &&
		    (!min_edges || (th->wf && th->wf->n_edges >= min_edges &&
				    th->wf->edges[0].pstate == LT_WFP_TIMED)))
			break;
	}
	if (t)
		*t = th;
	return s;
}

static const struct lt_wf_edge *edge_of(const struct lt_snapshot *s, pid_t tid, enum lt_wf_kind k)
{
	const struct lt_thread *t = lt_snapshot_find(s, tid);
	cr_assert_not_null(t, "thread %d in the snapshot", (int)tid);
	for (size_t i = 0; t->wf && i < t->wf->n_edges; i++)
		if (t->wf->edges[i].kind == k)
			return &t->wf->edges[i];
	cr_assert_fail("thread %d has no %s edge (detail: %s)", (int)tid, lt_wf_kind_name(k),
		       t->detail ? t->detail : "?");
	return NULL;
}

static void spawn(int i, char *const argv[])
{
	cr_assert_eq(tl_spawn(&procs[i], argv), 0, "cannot start %s: %s", argv[0], strerror(errno));
}

static void tmp_lockfile(int i)
{
	snprintf(lockfile[i], sizeof(lockfile[i]), "/tmp/lt-waitfor-%d-%d.lock", (int)getpid(), i);
	FILE *f = fopen(lockfile[i], "w");
	cr_assert_not_null(f);
	fclose(f);
}

static pid_t only_child(pid_t p);

/* The start of a test on flock(1): root, flock(1) and OTHER (NULL: none)
 * installed, else a skip naming them and their Debian packages (util-linux,
 * PKGS); then flock(1) holding lockfile[0] in procs[0], its /proc/locks line
 * into HELD. */
static void flock_holds_lockfile(const char *other, const char *pkgs, char *held, size_t len)
{
	need_root();
	if (access(FLOCK_BIN, X_OK) || (other && access(other, X_OK)))
		cr_skip_test("%s%s%s missing (Debian: util-linux%s%s)", FLOCK_BIN, other ? " or " : "", other ? other : "",
			     pkgs ? ", " : "", pkgs ? pkgs : "");
	tmp_lockfile(0);
	spawn(0, (char *const[]){ FLOCK_BIN, lockfile[0], "-c", "sleep 600", NULL });
	tl_locks_line(procs[0].pid, lockfile[0], false, held, len);
}


/* flock(1) forks its command, which inherits the locked open file: every
 * process of that tree holds the lock (killing flock alone would not
 * release it).  `flock FILE -c CMD` runs $SHELL, or /bin/sh when SHELL is
 * unset; dash then forks CMD rather than exec it, so the tree is flock,
 * sh, sleep under CI and flock, sleep in a login shell.  The tree once
 * its leaf is the sleep: ROOT first, then its descendants by pid. */
static size_t lock_tree(pid_t root, pid_t *out, size_t max)
{
	for (double t0 = tl_now_s(); tl_now_s() - t0 < 10; usleep(20000)) {
		size_t n = 0;
		out[n++] = root;
		bool leaf_sleeps = false;
		for (size_t i = 0; i < n; i++) {
			char path[96];
			snprintf(path, sizeof(path), "/proc/%d/task/%d/children", (int)out[i], (int)out[i]);
			FILE *f = fopen(path, "r");
			int ch;
			while (f && n < max && fscanf(f, "%d", &ch) == 1)
				out[n++] = ch;
			if (f)
				fclose(f);
			char cp[64], comm[32] = "";
			snprintf(cp, sizeof(cp), "/proc/%d/comm", (int)out[i]);
			FILE *c = fopen(cp, "r");
			if (c && fgets(comm, sizeof(comm), c) && !strcmp(comm, "sleep\n"))
				leaf_sleeps = true;
			if (c)
				fclose(c);
		}
		for (size_t i = 1; i < n; i++) /* descendants by pid, as a /proc scan meets them */
			for (size_t j = i + 1; j < n; j++)
				if (out[j] < out[i]) {
					pid_t x = out[i];
					out[i] = out[j];
					out[j] = x;
				}
		if (leaf_sleeps)
			return n;
	}
	cr_assert_fail("flock(1) %d never ran its sleep", (int)root);
	return 0;
}

TestSuite(waitfor_live, .fini = cleanup, .timeout = 120);

/* flock(1) holds the lock, a second flock(1) waits: the waiter's snapshot
 * is a lock wait on that file whose holder is the process /proc/locks
 * names, never IDLE. */
Test(waitfor_live, flock1_waiter_names_the_holder)
{
	char held[256], waiting[256];
	flock_holds_lockfile(NULL, NULL, held, sizeof(held));
	spawn(1, (char *const[]){ FLOCK_BIN, lockfile[0], "-c", "true", NULL });
	tl_locks_line(procs[1].pid, lockfile[0], true, waiting, sizeof(waiting));

	/* the locker, and every process of its tree: they share the open file */
	pid_t tree[8];
	size_t nt = lock_tree(procs[0].pid, tree, 8);
	struct lt_snapshot *s = take(procs[1].pid);
	const struct lt_wf_edge *e = edge_of(s, procs[1].pid, LT_WF_FILE_LOCK);
	cr_assert_eq(e->n_pids, nt, "the locker and the %zu processes of its tree (/proc/locks: %s)",
		     nt - 1, held);
	for (size_t i = 0; i < nt; i++)
		cr_expect_eq(e->pids[i], tree[i], "holder %zu: %d, not %d (the locker from /proc/locks "
			     "first: %s)", i, (int)tree[i], (int)e->pids[i], held);
	cr_expect(strstr(e->what, lockfile[0]) && strstr(e->what, "FLOCK WRITE"), "%s", e->what);
	const struct lt_thread *t = lt_snapshot_find(s, procs[1].pid);
	cr_expect(strstr(t->detail, "LOCK_EX"), "decoded call: %s", t->detail);
	cr_assert(s->n_verdicts > 0);
	cr_expect_eq(s->verdicts[0].kind, LT_VERDICT_LOCK_WAIT, "%s", s->verdicts[0].summary);
	cr_expect_eq(s->verdicts[0].owner, procs[0].pid);
	cr_expect(strstr(s->verdicts[0].summary, "file lock"), "%s", s->verdicts[0].summary);

	/* stored in a recording as JSON, read back the same (snapshot --from, report) */
	size_t len = 0;
	char *json = TL_PRINTED(&len, lt_snapshot_print_json, s);
	struct lt_snapshot *back = NULL;
	char err[200];
	cr_assert_eq(lt_snapshot_from_json(json, len, &back, err, sizeof(err)), 0, "%s", err);
	const struct lt_wf_edge *b = edge_of(back, procs[1].pid, LT_WF_FILE_LOCK);
	cr_expect_eq(b->n_pids, nt);
	for (size_t i = 0; i < nt && i < b->n_pids; i++)
		cr_expect_eq(b->pids[i], tree[i]);
	cr_expect_str_eq(b->what, e->what);
	cr_expect_eq(b->pstate, e->pstate);
	cr_expect_eq(back->verdicts[0].kind, LT_VERDICT_LOCK_WAIT);
	lt_snapshot_free(back);
	free(json);
	lt_snapshot_free(s);
}

/* python3 -c SCRIPT LOCKFILE hold (procs[0]) and then ... wait
 * (procs[1]) on a fresh lockfile[0], each waited for until "ready" (skips
 * without root or python3). */
static void start_py_lockers(const char *script)
{
	need_root();
	if (access(TL_PYTHON, X_OK))
		cr_skip_test("%s missing", TL_PYTHON);
	tmp_lockfile(0);
	tl_start_ready(&procs[0], (char *const[]){ TL_PYTHON, "-c", (char *)script, lockfile[0], "hold", NULL },
		       lines[0], &nlines[0], 64, 30000);
	tl_start_ready(&procs[1], (char *const[]){ TL_PYTHON, "-c", (char *)script, lockfile[0], "wait", NULL },
		       lines[1], &nlines[1], 64, 30000);
}

static const char LOCKF_PY[] =
	"import fcntl, os, sys, time\n"
	"f = open(sys.argv[1], 'a+')\n"
	"if sys.argv[2] == 'hold':\n"
	"    fcntl.lockf(f, fcntl.LOCK_EX, 10, 5)\n"
	"    print('ready', flush=True)\n"
	"    time.sleep(600)\n"
	"else:\n"
	"    print('ready', flush=True)\n"
	"    fcntl.lockf(f, fcntl.LOCK_EX, 3, 10)\n";

/* python3's fcntl.lockf: bytes 5-14 held, bytes 10-12 wanted with
 * F_SETLKW; the call is decoded from the struct flock in its memory. */
Test(waitfor_live, python_lockf_range_and_holder)
{
	start_py_lockers(LOCKF_PY);
	char held[256], waiting[256];
	tl_locks_line(procs[0].pid, lockfile[0], false, held, sizeof(held));
	tl_locks_line(procs[1].pid, lockfile[0], true, waiting, sizeof(waiting));
	cr_assert(strstr(held, " 5 14"), "ground truth: %s", held);

	struct lt_snapshot *s = take(procs[1].pid);
	const struct lt_wf_edge *e = edge_of(s, procs[1].pid, LT_WF_FILE_LOCK);
	cr_assert_eq(e->n_pids, 1);
	cr_expect_eq(e->pids[0], procs[0].pid, "holder: %s", held);
	cr_expect(strstr(e->what, "POSIX WRITE") && strstr(e->what, "bytes 10-12"), "%s", e->what);
	const struct lt_thread *t = lt_snapshot_find(s, procs[1].pid);
	cr_expect(strstr(t->detail, "F_SETLKW") && strstr(t->detail, "{F_WRLCK, SEEK_SET, start 10, len 3}"),
		  "decoded: %s", t->detail);
	cr_expect(strstr(e->evidence, "5 14"), "the holder's line: %s", e->evidence);
	cr_expect_eq(s->verdicts[0].kind, LT_VERDICT_LOCK_WAIT, "%s", s->verdicts[0].summary);
	lt_snapshot_free(s);
}

static const char LOCKF_WHENCE_PY[] =
	"import fcntl, os, sys, time\n"
	"f = open(sys.argv[1], 'r+')\n"
	"m = sys.argv[2]\n"
	"if m.startswith('hold'):\n"
	"    fcntl.lockf(f, fcntl.LOCK_EX, 10, int(m[4:]))\n"
	"    print('ready', flush=True)\n"
	"    time.sleep(600)\n"
	"print('ready', flush=True)\n"
	"if m == 'cur':\n"
	"    os.lseek(f.fileno(), 100, os.SEEK_SET)\n"
	"    fcntl.lockf(f.fileno(), fcntl.LOCK_EX, 10, -50, os.SEEK_CUR)\n"
	"else:\n"
	"    fcntl.lockf(f.fileno(), fcntl.LOCK_EX, 10, -150, os.SEEK_END)\n";

/* Byte ranges given from the fd's offset (SEEK_CUR) or the file's end
 * (SEEK_END): bytes 50-59 of a 200-byte file whose bytes 50-59 one process
 * holds and bytes 0-9 another: the range is the kernel's, and only the
 * process whose lock conflicts is named. */
Test(waitfor_live, lockf_from_the_offset_or_the_end_names_the_conflicting_holder_only)
{
	need_root();
	if (access(TL_PYTHON, X_OK))
		cr_skip_test("%s missing", TL_PYTHON);
	tmp_lockfile(0);
	cr_assert_eq(truncate(lockfile[0], 200), 0);
	const char *const modes[] = { "hold50", "hold0", "cur", "end" };
	for (int i = 0; i < 2; i++)
		tl_start_ready(&procs[i], (char *const[]){ TL_PYTHON, "-c", (char *)LOCKF_WHENCE_PY, lockfile[0],
							   (char *)modes[i], NULL },
			       lines[i], &nlines[i], 64, 30000);
	for (int w = 2; w < 4; w++) {
		tl_start_ready(&procs[2], (char *const[]){ TL_PYTHON, "-c", (char *)LOCKF_WHENCE_PY, lockfile[0],
							   (char *)modes[w], NULL },
			       lines[2], &nlines[2], 64, 30000);
		char waiting[256];
		tl_locks_line(procs[2].pid, lockfile[0], true, waiting, sizeof(waiting));
		cr_assert(strstr(waiting, " 50 59"), "ground truth: %s", waiting);
		struct lt_snapshot *s = take(procs[2].pid);
		const struct lt_wf_edge *e = edge_of(s, procs[2].pid, LT_WF_FILE_LOCK);
		cr_expect(strstr(e->what, "bytes 50-59"), "%s: %s", modes[w], e->what);
		cr_expect_eq(e->n_pids, 1, "%s: %s", modes[w], e->what);
		cr_expect_eq(e->pids[0], procs[0].pid, "%s: the holder of bytes 50-59", modes[w]);
		lt_snapshot_free(s);
		tl_kill_tree(procs[2].pid);
		tl_close(&procs[2]);
		procs[2].pid = 0;
	}
}

static const char FLOCK_X_PY[] =
	"import fcntl, os, sys, time\n"
	"a = open(sys.argv[1], 'a+'); b = open(sys.argv[2], 'a+')\n"
	"fcntl.flock(a, fcntl.LOCK_EX)\n"
	"print('ready', flush=True)\n"
	"sys.stdin.readline()\n"
	"fcntl.flock(b, fcntl.LOCK_EX)\n";

static int take_fn(pid_t pid, void *arg, struct lt_snapshot **out)
{
	(void)arg;
	struct lt_snapshot_opts o = { .flags = LT_SNAP_NO_USTACK | LT_SNAP_NO_LINES };
	return lt_snapshot_take(pid, &o, out);
}

/* S (a snapshot, given up), following its wait-for edges, diagnosed
 * together: for a wait the test caught at a moment of its own (take_when:
 * a poll between two sleeps), whose next snapshot could catch it awake. */
static struct lt_multi_snapshot *follow_snap(struct lt_snapshot *s)
{
	struct lt_multi_snapshot *m;
	tl_follow(s, take_fn, &m);
	return m;
}

/* The snapshot of PID, following its wait-for edges, diagnosed together. */
static struct lt_multi_snapshot *follow(pid_t pid)
{
	return follow_snap(take(pid));
}

static bool has_tid(const struct lt_verdict *v, pid_t tid)
{
	for (size_t i = 0; i < v->n_tids; i++)
		if (v->tids[i] == tid)
			return true;
	return false;
}

/* pidwait(1) (procps 4) polls a pidfd of each process it waits for; of a
 * process that is not its child, only that process's exit ends the wait.
 * A script holding a file lock waits for the exit of a process that waits
 * for the lock (`flock L -c 'pidwait -F PIDFILE'` beside `flock L true`):
 * pidwait's edge is the exit of the second flock, which the snapshot
 * follows, and the two are a deadlock.  Before, the pidfd of a process
 * not a child was an anonymous inode: an unknown party, no verdict.  With
 * ENDS_BY_ITSELF the process waited for is `sleep 600`: the same edge,
 * into a process asleep on a timer, and no deadlock. */
static void pidwait_case(bool ends_by_itself)
{
	char held[256], waiting[256], cmd[256], tmp[112];
	need_root();
	if (access(FLOCK_BIN, X_OK) || access(PIDWAIT_BIN, X_OK))
		cr_skip_test("%s or %s missing (Debian: util-linux, procps)", FLOCK_BIN, PIDWAIT_BIN);
	tmp_lockfile(0);
	snprintf(extra_link, sizeof(extra_link), "/tmp/lt-waitfor-%d.pid", (int)getpid());
	snprintf(cmd, sizeof(cmd), "while [ ! -s %s ]; do sleep 0.02; done; exec %s -F %s", extra_link, PIDWAIT_BIN,
		 extra_link);
	spawn(0, (char *const[]){ FLOCK_BIN, lockfile[0], "-c", cmd, NULL });
	tl_locks_line(procs[0].pid, lockfile[0], false, held, sizeof(held));
	if (ends_by_itself) {
		spawn(1, (char *const[]){ "/bin/sleep", "600", NULL });
	} else {
		spawn(1, (char *const[]){ FLOCK_BIN, lockfile[0], "true", NULL });
		tl_locks_line(procs[1].pid, lockfile[0], true, waiting, sizeof(waiting));
	}
	snprintf(tmp, sizeof(tmp), "%s.new", extra_link);
	FILE *f = fopen(tmp, "w");
	cr_assert_not_null(f, "%s: %s", tmp, strerror(errno));
	fprintf(f, "%d\n", (int)procs[1].pid);
	cr_assert_eq(fclose(f), 0);
	cr_assert_eq(rename(tmp, extra_link), 0, "rename to %s: %s", extra_link, strerror(errno));
	pid_t pw = only_child(procs[0].pid); /* the shell, which execs pidwait */
	tl_wait_in_call(pw, pw, 232, 10000);

	struct lt_multi_snapshot *m = follow(pw);
	const struct lt_wf_edge *e = edge_of(m->procs[0], pw, LT_WF_EXIT);
	cr_assert_eq(e->n_pids, 1, "%s", e->what);
	cr_expect_eq(e->pids[0], procs[1].pid, "%s", e->what);
	cr_expect(strstr(e->what, "pidfd") && strstr(e->evidence, "not a child"), "%s [%s]", e->what, e->evidence);
	cr_expect_eq(e->pstate, ends_by_itself ? LT_WFP_TIMED : LT_WFP_BLOCKED, "%s: %s", e->what,
		     lt_wf_pstate_name(e->pstate));
	cr_assert(m->n_procs >= 2, "followed into process %d", (int)procs[1].pid);
	const struct lt_verdict *v = &m->view.verdicts[0];
	if (ends_by_itself) {
		for (size_t i = 0; i < m->view.n_verdicts; i++)
			cr_expect_neq(m->view.verdicts[i].kind, LT_VERDICT_DEADLOCK, "%s", m->view.verdicts[i].summary);
	} else {
		cr_expect_eq(v->kind, LT_VERDICT_DEADLOCK, "%s", v->summary);
		cr_expect_eq(v->n_tids, 2, "%s", v->summary);
		cr_expect(has_tid(v, pw) && has_tid(v, procs[1].pid), "%s", v->summary);
		cr_expect(tl_strlist_has(&v->evidence, "ended only by the exit of process"), "%s", v->summary);
	}

	/* stored in a recording as JSON, read back the same kind */
	size_t len = 0;
	char *json = TL_PRINTED(&len, lt_snapshot_print_json, m->procs[0]);
	struct lt_snapshot *back = NULL;
	char err[200];
	cr_assert_eq(lt_snapshot_from_json(json, len, &back, err, sizeof(err)), 0, "%s", err);
	const struct lt_wf_edge *b = edge_of(back, pw, LT_WF_EXIT);
	cr_expect(b->n_pids == 1 && b->pids[0] == procs[1].pid, "%s", b->what);
	lt_snapshot_free(back);
	free(json);
	lt_multi_free(m);
}

Test(waitfor_live, pidwait_on_a_process_waiting_for_its_lock_is_a_deadlock)
{
	pidwait_case(false);
}

Test(waitfor_live, pidwait_on_a_sleeping_process_is_no_deadlock)
{
	pidwait_case(true);
}

/* Two python3 processes, each holding one flock and waiting for the
 * other's: the snapshot of one follows into the other and says deadlock. */
Test(waitfor_live, two_processes_waiting_for_each_others_flock_are_a_deadlock)
{
	need_root();
	if (access(TL_PYTHON, X_OK))
		cr_skip_test("%s missing", TL_PYTHON);
	tmp_lockfile(0);
	tmp_lockfile(1);
	tl_start_ready(&procs[0], (char *const[]){ TL_PYTHON, "-c", (char *)FLOCK_X_PY, lockfile[0], lockfile[1], NULL },
		       lines[0], &nlines[0], 64, 30000);
	tl_start_ready(&procs[1], (char *const[]){ TL_PYTHON, "-c", (char *)FLOCK_X_PY, lockfile[1], lockfile[0], NULL },
		       lines[1], &nlines[1], 64, 30000);
	cr_assert_eq(write(procs[0].in_fd, "\n", 1), 1);
	cr_assert_eq(write(procs[1].in_fd, "\n", 1), 1);
	char w0[256], w1[256];
	tl_locks_line(procs[0].pid, lockfile[1], true, w0, sizeof(w0));
	tl_locks_line(procs[1].pid, lockfile[0], true, w1, sizeof(w1));

	struct lt_multi_snapshot *m = follow(procs[0].pid);
	cr_assert_eq(m->n_procs, 2, "followed into the holder of %s", lockfile[1]);
	const struct lt_verdict *v = &m->view.verdicts[0];
	cr_expect_eq(v->kind, LT_VERDICT_DEADLOCK, "%s", v->summary);
	cr_expect_eq(v->n_tids, 2);
	cr_expect(has_tid(v, procs[0].pid) && has_tid(v, procs[1].pid), "%s", v->summary);
	lt_multi_free(m);
}

static const char SUBPROC_PY[] =
	"import subprocess\n"
	"print('ready', flush=True)\n"
	"subprocess.run(['sleep', '600'], capture_output=True)\n";

/* The only child of P, waited for (10 s); fails the test if none. */
static pid_t only_child(pid_t p)
{
	char path[96];
	snprintf(path, sizeof(path), "/proc/%d/task/%d/children", (int)p, (int)p);
	for (double t0 = tl_now_s(); tl_now_s() - t0 < 10; usleep(20000)) {
		FILE *f = fopen(path, "r");
		int ch = 0, n = f ? fscanf(f, "%d", &ch) : 0;
		if (f)
			fclose(f);
		if (n == 1 && ch > 0)
			return ch;
	}
	cr_assert_fail("no child of %d", (int)p);
	return 0;
}

/* python3's subprocess.run with capture_output polls two pipes whose only
 * writer is the child: both edges name it; it sleeps on a timer, so the
 * verdict is IDLE and says so. */
Test(waitfor_live, python_subprocess_poll_names_the_child)
{
	start_py(SUBPROC_PY);
	pid_t p = procs[0].pid, ch = only_child(p);
	/* the parent in poll (7), the child (after exec) in clock_nanosleep (230) */
	struct lt_snapshot *s = take_when(p, 7, -1, 2, NULL);
	const struct lt_thread *t = lt_snapshot_find(s, p);
	cr_assert_eq(t->sc.nr, 7, "python3 polls (detail: %s)", t->detail);
	size_t pipes = 0;
	for (size_t i = 0; i < t->wf->n_edges; i++) {
		const struct lt_wf_edge *e = &t->wf->edges[i];
		if (e->kind != LT_WF_PIPE_READ)
			continue;
		pipes++;
		cr_expect_eq(e->n_pids, 1, "%s: one writer", e->what);
		cr_expect_eq(e->pids[0], ch, "%s written by the child %d", e->what, (int)ch);
		cr_expect_eq(e->pstate, LT_WFP_TIMED, "the child sleeps on a timer");
	}
	cr_expect_eq(pipes, 2, "stdout and stderr pipes");
	cr_assert(s->n_verdicts > 0);
	cr_expect_eq(s->verdicts[0].kind, LT_VERDICT_IDLE, "%s", s->verdicts[0].summary);
	char who[32];
	snprintf(who, sizeof(who), "written by %d", (int)ch);
	bool named = false;
	for (size_t i = 0; i < s->verdicts[0].evidence.n; i++)
		named |= strstr(s->verdicts[0].evidence.v[i], who) != NULL;
	cr_expect(named, "IDLE names the child as the writer");
	lt_snapshot_free(s);
}

/* The workload xproc_cycle as procs[0] (skips without root or the
 * workload): the parent's pid, the child's, its reader thread's tid; the
 * rest of its ground truth in lines[0]. */
static void start_xproc_cycle(pid_t *parent, pid_t *child, pid_t *reader)
{
	need_root();
	if (access(WL("xproc_cycle"), X_OK))
		cr_skip_test("%s not built: run make all first", WL("xproc_cycle"));
	tl_start_ready(&procs[0], (char *const[]){ WL("xproc_cycle"), "--no-wait", NULL }, lines[0], &nlines[0],
		       64, 30000);
	*parent = procs[0].pid;
	*child = (pid_t)tl_truth_val(lines[0], nlines[0], "child", NULL, "pid");
	*reader = (pid_t)tl_truth_val(lines[0], nlines[0], "thread", "role=reader", "tid");
}

/* The cycle of issue 23: parent read(pipe) <- child; child main waits for
 * mutex M held by its reader; reader read(unix socket) <- parent.  The
 * parent's snapshot alone follows into the child and names the cycle. */
Test(waitfor_live, pipe_mutex_socket_cycle_across_two_processes)
{
	pid_t parent, child, reader;
	start_xproc_cycle(&parent, &child, &reader);
	pid_t cmain = (pid_t)tl_truth_val(lines[0], nlines[0], "thread", "role=childmain", "tid");
	unsigned long pipe_ino = tl_truth_val(lines[0], nlines[0], "pipe", NULL, "ino");
	unsigned long psock = tl_truth_val(lines[0], nlines[0], "socket", NULL, "parent_ino");
	tl_wait_in_read(parent, parent, 10000);
	tl_wait_in_read(child, reader, 10000);

	struct lt_multi_snapshot *m = follow(parent);
	cr_assert_eq(m->n_procs, 2, "followed from the parent into the child");
	cr_expect_eq(m->procs[1]->pid, child);
	const struct lt_snapshot *ps = m->procs[0], *cs = m->procs[1];
	const struct lt_wf_edge *pe = edge_of(ps, parent, LT_WF_PIPE_READ);
	char ino[40];
	snprintf(ino, sizeof(ino), "pipe:[%lu]", pipe_ino);
	cr_expect(strstr(pe->what, ino), "%s is pipe %lu", pe->what, pipe_ino);
	cr_assert_eq(pe->n_pids, 1, "one writer");
	cr_expect_eq(pe->pids[0], child);
	const struct lt_wf_edge *se = edge_of(cs, reader, LT_WF_SOCKET);
	snprintf(ino, sizeof(ino), "peer socket:[%lu]", psock);
	cr_expect(strstr(se->what, ino), "%s: peer is the parent's socket %lu", se->what, psock);
	cr_assert_eq(se->n_pids, 1);
	cr_expect_eq(se->pids[0], parent);

	const struct lt_verdict *v = &m->view.verdicts[0];
	cr_assert_eq(v->kind, LT_VERDICT_DEADLOCK, "%s", v->summary);
	cr_expect_eq(v->n_tids, 3, "%s", v->summary);
	cr_expect(has_tid(v, parent) && has_tid(v, cmain) && has_tid(v, reader), "%s", v->summary);
	lt_multi_free(m);

	/* and the command says it first */
	char out[64][256], err[64][256];
	int nout = 0, nerr = 0;
	char pid[16];
	snprintf(pid, sizeof(pid), "%d", (int)parent);
	int rc = tl_run_to_end((char *const[]){ LT_BIN, "snapshot", "-p", pid, NULL }, out, &nout, err, &nerr);
	cr_expect_eq(rc, 0);
	bool dl = false;
	for (int i = 0; i < nout; i++)
		if (!strncmp(out[i], "DEADLOCK:", 9)) {
			char a[16], b[16], c[16];
			snprintf(a, sizeof(a), "%d ", (int)parent);
			snprintf(b, sizeof(b), "%d ", (int)cmain);
			snprintf(c, sizeof(c), "%d ", (int)reader);
			dl = strstr(out[i], a) && strstr(out[i], b) && strstr(out[i], c);
		}
	cr_expect(dl, "snapshot -p %d prints the cycle as a DEADLOCK", (int)parent);
}

static const char TCP_PY[] =
	"import os, socket, time\n"
	"ls = socket.socket(); ls.bind(('127.0.0.1', 0)); ls.listen(1)\n"
	"port = ls.getsockname()[1]\n"
	"pid = os.fork()\n"
	"if pid == 0:\n"
	"    ls.close(); c = socket.create_connection(('127.0.0.1', port)); time.sleep(600)\n"
	"    os._exit(0)\n"
	"s, _ = ls.accept()\n"
	"print('peer pid=%d' % pid, flush=True)\n"
	"print('ready', flush=True)\n"
	"s.recv(1)\n";

/* A tcp connection to a local peer that never writes: the peer socket is
 * found from the reverse 4-tuple and its process named (the forked child
 * the script prints), asleep on a timer: IDLE, saying so. */
Test(waitfor_live, tcp_recv_names_the_local_peer_process)
{
	start_py(TCP_PY);
	pid_t p = procs[0].pid, peer = (pid_t)tl_truth_val(lines[0], nlines[0], "peer", NULL, "pid");
	/* recvfrom (45) or read (0), depending on the Python version */
	const struct lt_thread *t = NULL;
	struct lt_snapshot *s = take_when(p, 45, 0, 1, &t);
	const struct lt_wf_edge *e = edge_of(s, p, LT_WF_SOCKET);
	cr_expect(strstr(e->what, "tcp 127.0.0.1:"), "%s", e->what);
	cr_assert_eq(e->n_pids, 1, "%s", e->evidence);
	cr_expect_eq(e->pids[0], peer, "the peer socket is the child's (%d)", (int)peer);
	cr_expect_eq(e->pstate, LT_WFP_TIMED);
	cr_expect_eq(s->verdicts[0].kind, LT_VERDICT_IDLE, "%s", s->verdicts[0].summary);
	lt_snapshot_free(s);
	kill(peer, SIGKILL);
}

static const char EPOLL_PY[] =
	"import selectors, subprocess\n"
	"p = subprocess.Popen(['sleep', '600'], stdout=subprocess.PIPE)\n"
	"sel = selectors.EpollSelector(); sel.register(p.stdout, selectors.EVENT_READ)\n"
	"print('ready', flush=True)\n"
	"sel.select()\n";

/* epoll_wait: the interest list (fdinfo tfd: lines) resolved as a poll set. */
Test(waitfor_live, epoll_interest_list_names_the_writer)
{
	start_py(EPOLL_PY);
	pid_t p = procs[0].pid, ch = only_child(p);
	const struct lt_thread *t = NULL;
	struct lt_snapshot *s = take_when(p, 232, 281, 1, &t);
	cr_assert(t->sc.nr == 232 || t->sc.nr == 281, "python3 in epoll_wait (detail: %s)", t->detail);
	const struct lt_wf_edge *e = edge_of(s, p, LT_WF_PIPE_READ);
	cr_assert_eq(e->n_pids, 1);
	cr_expect_eq(e->pids[0], ch, "%s written by the child %d", e->what, (int)ch);
	cr_expect_eq(s->verdicts[0].kind, LT_VERDICT_IDLE, "%s", s->verdicts[0].summary);
	lt_snapshot_free(s);
}

/* DEADLOCK: on the first line naming the three threads of the cycle, in
 * the output of `locktrace snapshot ARGS...`. */
static bool cli_says_cycle(char *const argv[], pid_t a, pid_t b, pid_t c, int *nproc)
{
	char out[64][256], err[64][256];
	int nout = 0, nerr = 0;
	cr_expect_eq(tl_run_to_end(argv, out, &nout, err, &nerr), 0);
	bool dl = false;
	*nproc = 0;
	for (int i = 0; i < nout; i++) {
		sscanf(out[i], "snapshot of %d processes", nproc);
		if (!strncmp(out[i], "DEADLOCK:", 9)) {
			char x[16], y[16], z[16];
			snprintf(x, sizeof(x), "%d ", (int)a);
			snprintf(y, sizeof(y), "%d ", (int)b);
			snprintf(z, sizeof(z), "%d ", (int)c);
			dl = strstr(out[i], x) && strstr(out[i], y) && strstr(out[i], z);
		}
	}
	return dl;
}

/* snapshot --children and --cgroup take the processes as record does and
 * diagnose them together: the same cycle. */
Test(waitfor_live, snapshot_children_and_cgroup)
{
	pid_t parent, child, reader;
	start_xproc_cycle(&parent, &child, &reader);
	tl_wait_in_read(parent, parent, 10000);
	tl_wait_in_read(child, reader, 10000);
	char pid[16];
	snprintf(pid, sizeof(pid), "%d", (int)parent);
	int np = 0;
	cr_expect(cli_says_cycle((char *const[]){ LT_BIN, "snapshot", "-p", pid, "--children", "--no-ustack", NULL },
				 parent, child, reader, &np), "--children: the cycle");
	cr_expect_eq(np, 2, "--children: the parent and its child");

	char mount[256], dir[400], procs_file[420];
	if (lt_cgroup_mount(mount, sizeof(mount)))
		cr_skip_test("no cgroup v2 mount: --cgroup not tested");
	snprintf(dir, sizeof(dir), "%s/lt-waitfor-%d", mount, (int)getpid());
	cr_assert_eq(mkdir(dir, 0755), 0, "mkdir %s: %s", dir, strerror(errno));
	snprintf(procs_file, sizeof(procs_file), "%s/cgroup.procs", dir);
	FILE *f = fopen(procs_file, "w");
	cr_assert_not_null(f);
	fprintf(f, "%d\n", (int)parent);
	fflush(f);
	fprintf(f, "%d\n", (int)child);
	int werr = fclose(f);
	bool said = !werr && cli_says_cycle((char *const[]){ LT_BIN, "snapshot", "--cgroup", dir, "--no-ustack", NULL },
					    parent, child, reader, &np);
	/* the workload gone and the cgroup removed before asserting */
	tl_kill_tree(parent);
	tl_close(&procs[0]);
	for (int i = 0; i < 100 && rmdir(dir); i++)
		usleep(20000);
	cr_assert_eq(werr, 0, "moving the workload into %s", dir);
	cr_expect(said, "--cgroup: the cycle");
	cr_expect_eq(np, 2, "--cgroup: both processes");
}

/* The flight recorder on a flock(1) already waiting for a lock when it
 * attaches: the stall rule counts the file-lock wait as a lock wait and
 * fires; the dump's findings name the holder. */
Test(waitfor_live, flight_recorder_fires_on_a_file_lock_wait)
{
	char held[256], waiting[256], path[128];
	flock_holds_lockfile(NULL, NULL, held, sizeof(held));
	spawn(1, (char *const[]){ FLOCK_BIN, lockfile[0], "-c", "true", NULL });
	tl_locks_line(procs[1].pid, lockfile[0], true, waiting, sizeof(waiting));
	tl_tmp_path(path, sizeof(path), "flockstall");
	cr_assert_eq(tl_start_recorder(&procs[2], procs[1].pid, path,
				       (char *const[]){ "--ring", "16M", "--stall", "1", NULL }), 0);
	char out[64][256];
	int n = 0;
	cr_assert(tl_wait_for(&procs[2], 1, "locktrace: stall detected", out, &n, 64, 30000),
		  "the stall detector never fired");
	cr_expect(strstr(out[n - 1], "file-lock wait"), "%s", out[n - 1]);
	/* the locker first, then the processes of its tree sharing its open file */
	pid_t tree[8];
	size_t nt = lock_tree(procs[0].pid, tree, 8);
	char holder[128] = "held by processes";
	for (size_t i = 0; i < nt; i++)
		snprintf(holder + strlen(holder), sizeof(holder) - strlen(holder), "%s %d", i ? "," : "",
			 (int)tree[i]);
	strcat(holder, " ");
	bool named = false;
	char line[512];
	for (int i = 0; i < 40 && !named && tl_readline(&procs[2], 1, line, sizeof(line), 5000) == 1; i++)
		named = strstr(line, "waits for a file lock") && strstr(line, holder);
	cr_expect(named, "the dump's findings name the holder %d", (int)procs[0].pid);
	tl_close(&procs[2]);
	unlink(path);
}

static const char LEAK_PY[] =
	"import os\n"
	"r, w = os.pipe()\n"
	"print('ready', flush=True)\n"
	"os.read(r, 1)\n";

/* python3 reading a pipe whose only write end it holds itself: nobody else
 * can write, and its own write end keeps the pipe open. */
Test(waitfor_live, leaked_write_end_in_the_readers_own_process)
{
	start_py(LEAK_PY);
	pid_t p = procs[0].pid;
	tl_wait_in_read(p, p, 10000);
	struct lt_snapshot *s = take(p);
	const struct lt_wf_edge *e = edge_of(s, p, LT_WF_PIPE_READ);
	cr_assert_eq(e->n_pids, 1);
	cr_expect_eq(e->pids[0], p, "the only writer is the reader's own process");
	cr_assert(s->n_verdicts > 0);
	cr_expect_eq(s->verdicts[0].kind, LT_VERDICT_WAIT_CHAIN, "%s", s->verdicts[0].summary);
	cr_expect(strstr(s->verdicts[0].summary, "none is left to write, and that write end keeps the pipe from its "
		  "end-of-file"), "%s", s->verdicts[0].summary);
	lt_snapshot_free(s);
}

static const char PIPE_CYCLE_PY[] =
	"import os, threading\n"
	"r, w = os.pipe()\n"
	"lock = threading.Lock()\n"
	"held = threading.Event()\n"
	"def reader():\n"
	"    with lock:\n"
	"        held.set()\n"
	"        os.read(r, 1)\n"
	"def writer():\n"
	"    with lock:\n"
	"        os.write(w, b'x')\n"
	"a = threading.Thread(target=reader, name='reader'); a.start(); held.wait()\n"
	"b = threading.Thread(target=writer, name='writer'); b.start()\n"
	"print('reader', a.native_id, 'writer', b.native_id, flush=True)\n"
	"print('ready', flush=True)\n"
	"threading.Event().wait()\n";


/* Debian's python3: a thread holding a threading.Lock reads a pipe that
 * only its own process can write, and the thread that would write it
 * waits for that lock; the main thread waits on an Event nobody sets.
 * A deadlock through the pipe, probable (the holder is inferred from the
 * frames, the writer from the process), not a leaked write end. */
Test(waitfor_live, pipe_read_under_a_lock_its_writer_wants_is_a_probable_deadlock)
{
	start_py(PIPE_CYCLE_PY);
	pid_t p = procs[0].pid;
	const char *l = tl_find(lines[0], nlines[0], "reader", NULL);
	cr_assert_not_null(l);
	int rd = 0, wr = 0;
	cr_assert_eq(sscanf(l, "reader %d writer %d", &rd, &wr), 2, "%s", l);
	tl_wait_in_read(p, rd, 10000);
	tl_wait_in_call(p, wr, 202, 10000); /* futex */
	struct lt_snapshot *s = take(p);
	const struct lt_verdict *v = NULL;
	for (size_t i = 0; i < s->n_verdicts; i++) {
		cr_expect_null(strstr(s->verdicts[i].summary, "leaked"), "%s", s->verdicts[i].summary);
		if (s->verdicts[i].kind == LT_VERDICT_DEADLOCK)
			v = &s->verdicts[i];
	}
	cr_assert_not_null(v, "no deadlock found (first verdict: %s)", s->n_verdicts ? s->verdicts[0].summary : "none");
	cr_expect_eq(v->n_tids, 2);
	char want[160];
	snprintf(want, sizeof(want), "probable deadlock through a pipe: thread %d (reader) reads a pipe only its "
		 "own process %d can write", rd, (int)p);
	cr_expect(strstr(v->summary, want), "%s\n(wanted: %s)", v->summary, want);
	snprintf(want, sizeof(want), "%d (reader) -> %d (writer) -> %d", rd, wr, rd);
	cr_expect(strstr(v->summary, want), "%s\n(wanted: %s)", v->summary, want);
	lt_snapshot_free(s);
}

static const char SERVER_PY[] =
	"import os, socket, subprocess, sys, threading\n"
	"L = threading.Lock(); r, w = os.pipe(); held = threading.Event()\n"
	"def holder():\n"
	"    with L:\n"
	"        held.set(); os.read(r, 1)\n"
	"def handle(conn):\n"
	"    conn.recv(100)\n"
	"    with L:\n"
	"        conn.sendall(b'reply')\n"
	"h = threading.Thread(target=holder, name='holder'); h.start(); held.wait()\n"
	"s = socket.socket(); s.bind(('127.0.0.1', 0)); s.listen()\n"
	"cli = subprocess.Popen([sys.executable, '-c', 'import socket, sys; c = socket.create_connection("
	"(\"127.0.0.1\", int(sys.argv[1]))); c.sendall(b\"req\"); c.recv(100)', str(s.getsockname()[1])])\n"
	"conn, _ = s.accept()\n"
	"t = threading.Thread(target=handle, args=(conn,), name='handler'); t.start()\n"
	"print('client', cli.pid, 'handler', t.native_id, 'holder', h.native_id, flush=True)\n"
	"print('ready', flush=True)\n"
	"while True: s.accept()\n";

/* A TCP client (Debian's python3) waits for its reply; the server's
 * listener sits in accept (so the server, by the kernel's view, is an
 * idle server), while the thread handling the request waits for a
 * threading.Lock whose holder reads a pipe nobody writes.  `snapshot -p
 * CLIENT` follows the socket into the server and says the client waits
 * for it, one of whose threads is itself in a lock wait (which thread
 * would answer is inferred), not IDLE. */
Test(waitfor_live, client_of_a_server_whose_handler_waits_for_a_lock_is_a_chain_not_idle)
{
	start_py(SERVER_PY);
	pid_t srv = procs[0].pid;
	const char *l = tl_find(lines[0], nlines[0], "client", NULL);
	cr_assert_not_null(l);
	int cli = 0, handler = 0, holder = 0;
	cr_assert_eq(sscanf(l, "client %d handler %d holder %d", &cli, &handler, &holder), 3, "%s", l);
	tl_wait_in_call(srv, holder, 0, 10000);	 /* read */
	tl_wait_in_call(srv, handler, 202, 10000); /* futex */
	tl_wait_in_call(cli, cli, 45, 10000);	 /* recvfrom */
	struct rp_json *j = tl_snapshot_cli_json(cli);
	const struct rp_json *vs = rp_json_get(j, "verdicts"), *chain = NULL;
	cr_assert(vs && vs->type == RPJ_ARR);
	for (size_t i = 0; i < vs->n; i++) {
		const char *k = rp_json_str(rp_json_get(&vs->items[i], "kind"));
		const struct rp_json *tids = rp_json_get(&vs->items[i], "tids");
		cr_assert(k && strcmp(k, "idle"), "an IDLE verdict: %s", rp_json_str(rp_json_get(&vs->items[i], "summary")));
		if (!strcmp(k, "wait_chain") && tids && tids->n == 1 && (int)rp_json_num(&tids->items[0], 0) == cli)
			chain = &vs->items[i];
	}
	cr_assert_not_null(chain, "no wait chain of the client %d", cli);
	const char *sum = rp_json_str(rp_json_get(chain, "summary"));
	char want[200];
	snprintf(want, sizeof(want), "waits for process %d, 1 of whose 3 threads is itself waiting, among them %d "
		 "(handler) in a lock wait", (int)srv, handler);
	cr_expect(sum && strstr(sum, want), "%s\n(wanted: %s)", sum ? sum : "?", want);
	snprintf(want, sizeof(want), "probably held by thread %d (holder)", holder);
	cr_expect(sum && strstr(sum, want), "%s\n(wanted: %s)", sum ? sum : "?", want);
	cr_expect(sum && strstr(sum, "(that one of them would answer, not another of its threads, is inferred)"), "%s",
		  sum ? sum : "?");
	rp_json_free(j);
	kill(cli, SIGKILL);
}

static const char ZOMBIE_PY[] =
	"import os, time\n"
	"pid = os.fork()\n"
	"if pid == 0:\n"
	"    os._exit(3)\n"
	"print('child', pid, flush=True)\n"
	"print('ready', flush=True)\n"
	"time.sleep(600)\n";

/* A child that has exited and that its parent (Debian's python3, asleep)
 * never reaped: `snapshot -p CHILD` says it is a zombie and which parent
 * to look at instead (before: "no process"). */
Test(waitfor_live, snapshot_of_a_zombie_names_its_parent)
{
	start_py(ZOMBIE_PY);
	const char *l = tl_find(lines[0], nlines[0], "child", NULL);
	cr_assert_not_null(l);
	pid_t z = (pid_t)atoi(l + 6);
	for (int i = 0; i < 500 && lt_proc_alive(z); i++)
		usleep(10000);
	cr_assert_eq(lt_proc_zombie_of(z), procs[0].pid, "%d is no zombie of %d", (int)z, (int)procs[0].pid);
	char pid[16], out[64][256], err[64][256];
	int no = 0, ne = 0;
	snprintf(pid, sizeof(pid), "%d", (int)z);
	int rc = tl_run_to_end((char *const[]){ LT_BIN, "snapshot", "-p", pid, NULL }, out, &no, err, &ne);
	cr_assert(WIFEXITED(rc) ? WEXITSTATUS(rc) == 1 : rc == 1, "exit status %d", rc);
	char want[160];
	snprintf(want, sizeof(want), "process %d has exited: a zombie its parent %d has not reaped", (int)z,
		 (int)procs[0].pid);
	bool said = false;
	for (int i = 0; i < ne; i++)
		said |= strstr(err[i], want) != NULL;
	cr_assert(said, "stderr lacks: %s (%d lines, first: %s)", want, ne, ne ? err[0] : "");
}

static const char SLEEPER_PY[] =
	"import time\n"
	"print('ready', flush=True)\n"
	"time.sleep(600)\n";

/* Without user stacks (--no-ustack) a lock acquire or an application's
 * own lock wait (PostgreSQL's sleeps in epoll_wait) cannot be seen: IDLE
 * then says no lock wait was seen, and why, not "no lock involved"; with
 * them, a sleeping python3 is idle, no lock wait seen (never "no lock
 * involved": a sleeper may be retrying one). */
Test(waitfor_live, idle_without_user_stacks_says_what_it_could_not_see)
{
	start_py(SLEEPER_PY);
	pid_t p = procs[0].pid;
	struct lt_snapshot *s = take(p); /* LT_SNAP_NO_USTACK */
	cr_assert(s->n_verdicts > 0);
	cr_expect_eq(s->verdicts[0].kind, LT_VERDICT_IDLE, "%s", s->verdicts[0].summary);
	cr_expect(strstr(s->verdicts[0].summary, "no lock wait seen (user stacks not read") &&
		  !strstr(s->verdicts[0].summary, "no lock involved"), "%s", s->verdicts[0].summary);
	lt_snapshot_free(s);
	struct lt_snapshot_opts o = { .flags = LT_SNAP_NO_LINES };
	cr_assert_eq(lt_snapshot_take(p, &o, &s), 0);
	cr_expect_eq(s->verdicts[0].kind, LT_VERDICT_IDLE, "%s", s->verdicts[0].summary);
	/* a sleeper may be retrying a lock between sleeps (apt-get does, its
	 * lock file closed meanwhile): no wait seen, not "no lock involved" */
	cr_expect(strstr(s->verdicts[0].summary, "; no lock wait seen") &&
		  !strstr(s->verdicts[0].summary, "user stacks not read"), "%s", s->verdicts[0].summary);
	lt_snapshot_free(s);
}

/* Two flock(1) chains take two files in opposite orders, each inner
 * flock(1) run by a dash the outer one started: each lock's open file is
 * held by three processes (flock(1), its shell, the shell's flock(1)), all
 * blocked, two of them only waiting for their children.  `snapshot -p` of
 * the first outer flock(1) finds the deadlock between the two inner ones,
 * the four others behind it (before: two lock waits, no deadlock). */
Test(waitfor_live, flock1_abba_through_shells_is_a_deadlock)
{
	need_root();
	if (access(FLOCK_BIN, X_OK))
		cr_skip_test("%s missing (Debian: util-linux)", FLOCK_BIN);
	tmp_lockfile(0);
	tmp_lockfile(1);
	char c0[200], c1[200];
	snprintf(c0, sizeof(c0), "sleep 0.5; %s %s true", FLOCK_BIN, lockfile[1]);
	snprintf(c1, sizeof(c1), "sleep 0.5; %s %s true", FLOCK_BIN, lockfile[0]);
	spawn(0, (char *const[]){ FLOCK_BIN, lockfile[0], "/bin/sh", "-c", c0, NULL });
	spawn(1, (char *const[]){ FLOCK_BIN, lockfile[1], "/bin/sh", "-c", c1, NULL });
	pid_t in0 = 0, in1 = 0;
	for (double t0 = tl_now_s(); tl_now_s() - t0 < 10 && (!in0 || !in1); usleep(20000)) {
		pid_t sh0 = only_child(procs[0].pid), sh1 = only_child(procs[1].pid);
		pid_t a = only_child(sh0), b = only_child(sh1);
		char p0[64], p1[64], l0[64] = "", l1[64] = "";
		snprintf(p0, sizeof(p0), "/proc/%d/syscall", (int)a);
		snprintf(p1, sizeof(p1), "/proc/%d/syscall", (int)b);
		FILE *f0 = fopen(p0, "r"), *f1 = fopen(p1, "r");
		if (f0 && !fgets(l0, sizeof(l0), f0))
			l0[0] = 0;
		if (f1 && !fgets(l1, sizeof(l1), f1))
			l1[0] = 0;
		if (f0)
			fclose(f0);
		if (f1)
			fclose(f1);
		if (!strncmp(l0, "73 ", 3) && !strncmp(l1, "73 ", 3)) { /* flock */
			in0 = a;
			in1 = b;
		}
	}
	cr_assert(in0 && in1, "the inner flock(1)s never both waited in flock()");
	char pid[16], out[64][256];
	int no = 0;
	snprintf(pid, sizeof(pid), "%d", (int)procs[0].pid);
	cr_assert_eq(tl_run_to_end((char *const[]){ LT_BIN, "snapshot", "-p", pid, NULL }, out, &no, NULL, NULL), 0);
	char w0[160], w1[160];
	snprintf(w0, sizeof(w0), "DEADLOCK: deadlock: 2 threads in 2 processes wait for each other: %d (flock) -> %d "
		 "(flock) -> %d", (int)in0, (int)in1, (int)in0);
	snprintf(w1, sizeof(w1), "DEADLOCK: deadlock: 2 threads in 2 processes wait for each other: %d (flock) -> %d "
		 "(flock) -> %d", (int)in1, (int)in0, (int)in1);
	bool found = false, behind = false;
	for (int i = 0; i < no; i++) {
		found |= !strncmp(out[i], w0, strlen(w0)) || !strncmp(out[i], w1, strlen(w1));
		behind |= strstr(out[i], "4 more thread(s) blocked behind the cycle") != NULL;
		cr_assert(strncmp(out[i], "WAIT CHAIN", 10), "a chain besides the deadlock: %s", out[i]);
	}
	for (int i = 0; !found && i < no && i < 12; i++)
		fprintf(stderr, "  | %s\n", out[i]);
	cr_assert(found, "no line %s (above)", w0);
	cr_expect(behind, "the outer flock(1)s and the shells behind the cycle");
}

static const char POPEN_WAIT_PY[] =
	"import subprocess\n"
	"p = subprocess.Popen(['/bin/sh', '-c', 'yes x | head -c 1000000'], stdout=subprocess.PIPE)\n"
	"print('child', p.pid, flush=True)\n"
	"print('ready', flush=True)\n"
	"p.wait()\n";

/* The pipe-buffer deadlock of subprocess's documentation, through a shell:
 * python3 waits for dash, which waits for its pipeline, whose head(1)
 * blocks writing the full pipe python3 never reads (and yes(1) writing to
 * head).  dash's wait is for two children, both blocked: the cycle goes
 * on through the first of them not only waiting for its children (before:
 * four wait chains, no deadlock). */
Test(waitfor_live, popen_wait_on_a_shell_pipeline_filling_its_pipe_is_a_deadlock)
{
	start_py(POPEN_WAIT_PY);
	pid_t p = procs[0].pid;
	const char *l = tl_find(lines[0], nlines[0], "child", NULL);
	cr_assert_not_null(l);
	pid_t sh = (pid_t)atoi(l + 6);
	char pid[16], out[64][256], w_sh[32], w_py[32];
	snprintf(pid, sizeof(pid), "%d", (int)p);
	snprintf(w_sh, sizeof(w_sh), " %d (sh) -> ", (int)sh);
	snprintf(w_py, sizeof(w_py), " %d (", (int)p);
	bool found = false;
	int no = 0;
	/* until head has filled the pipe (64 KiB: at once) and all are asleep */
	for (double t0 = tl_now_s(); !found && tl_now_s() - t0 < 10; usleep(100000)) {
		no = 0;
		cr_assert_eq(tl_run_to_end((char *const[]){ LT_BIN, "snapshot", "-p", pid, NULL }, out, &no, NULL, NULL),
			     0);
		for (int i = 0; i < no; i++)
			found |= !strncmp(out[i], "DEADLOCK: deadlock: 4 threads in 4 processes wait for each other:", 65) &&
				 strstr(out[i], w_sh) && strstr(out[i], w_py) && strstr(out[i], "(yes) -> ") &&
				 strstr(out[i], "(head)");
	}
	for (int i = 0; !found && i < no && i < 12; i++)
		fprintf(stderr, "  | %s\n", out[i]);
	cr_assert(found, "no deadlock through %d (python3), %d (sh), yes and head (above)", (int)p, (int)sh);
}

static const char OFD_PY[] =
	"import fcntl, struct, sys, time\n"
	"f = open(sys.argv[1], 'a+')\n"
	"lk = struct.pack('hh4xqqi4x', fcntl.F_WRLCK, 0, 0, 0, 0)\n"
	"if sys.argv[2] == 'hold':\n"
	"    fcntl.fcntl(f, fcntl.F_OFD_SETLK, lk)\n"
	"    print('ready', flush=True)\n"
	"    time.sleep(600)\n"
	"else:\n"
	"    print('ready', flush=True)\n"
	"    fcntl.fcntl(f, fcntl.F_OFD_SETLKW, lk)\n";

/* Open file description locks: /proc/locks gives no pid (-1); the holder
 * is the process whose fdinfo shows the granted OFDLCK line. */
Test(waitfor_live, ofd_lock_holder_from_fdinfo)
{
	start_py_lockers(OFD_PY);
	char held[256];
	tl_locks_line(-1, lockfile[0], true, held, sizeof(held)); /* the waiter queued (pid -1) */
	cr_assert(strstr(held, "OFDLCK"), "ground truth: %s", held);
	/* its thread in fcntl (72) */
	struct lt_snapshot *s = take_when(procs[1].pid, 72, -1, 0, NULL);
	const struct lt_wf_edge *e = edge_of(s, procs[1].pid, LT_WF_FILE_LOCK);
	cr_expect(strstr(e->what, "OFDLCK WRITE"), "%s", e->what);
	cr_assert_eq(e->n_pids, 1, "%s", e->evidence);
	cr_expect_eq(e->pids[0], procs[0].pid, "the OFD holder from fdinfo: %s", e->evidence);
	const struct lt_thread *t = lt_snapshot_find(s, procs[1].pid);
	cr_expect(strstr(t->detail, "F_OFD_SETLKW"), "%s", t->detail);
	cr_expect_eq(s->verdicts[0].kind, LT_VERDICT_LOCK_WAIT, "%s", s->verdicts[0].summary);
	lt_snapshot_free(s);
}

/* tcp_peer's ground truth, and the holder's socket edge read from one
 * snapshot of the server (netlink, or /proc when NO_DIAG). */
static const struct lt_wf_edge *tcp_holder_edge(struct lt_snapshot **sp, pid_t server, pid_t holder, int port,
						 int peer_port, pid_t peer)
{
	struct lt_snapshot *s = take(server);
	*sp = s;
	const struct lt_wf_edge *e = edge_of(s, holder, LT_WF_SOCKET);
	char tuple[96];
	snprintf(tuple, sizeof(tuple), "tcp 127.0.0.1:%d -> 127.0.0.1:%d (fd ", port, peer_port);
	cr_expect(strstr(e->what, tuple), "%s, not %s", e->what, tuple);
	cr_assert_eq(e->n_pids, 1, "%s", e->evidence);
	cr_expect_eq(e->pids[0], peer, "the peer socket is process %d's", (int)peer);
	return e;
}

/* A server thread holds a mutex while blocked in recv() on a loopback tcp
 * connection to another process that never writes (tcp_peer): the peer's
 * socket is found from the reverse 4-tuple with inet_diag (and from
 * /proc/PID/net/tcp when netlink is not used), its process and what its
 * only thread does (pause) named on the edge and in the lock wait's
 * evidence. */
Test(waitfor_live, tcp_peer_process_named_from_inet_diag)
{
	need_root();
	if (access(WL("tcp_peer"), X_OK))
		cr_skip_test("%s not built: run make all first", WL("tcp_peer"));
	tl_start_ready(&procs[0], (char *const[]){ WL("tcp_peer"), "--no-wait", NULL }, lines[0], &nlines[0], 64,
		       30000);
	pid_t server = procs[0].pid;
	pid_t peer = (pid_t)tl_truth_val(lines[0], nlines[0], "peer", NULL, "pid");
	pid_t holder = (pid_t)tl_truth_val(lines[0], nlines[0], "thread", "role=holder", "tid");
	pid_t waiter = (pid_t)tl_truth_val(lines[0], nlines[0], "thread", "role=waiter", "tid");
	pid_t ptid = (pid_t)tl_truth_val(lines[0], nlines[0], "thread", "role=peer", "tid");
	int port = (int)tl_truth_val(lines[0], nlines[0], "socket", "role=server", "port");
	int pport = (int)tl_truth_val(lines[0], nlines[0], "socket", "role=server", "peer_port");
	cr_assert(peer > 0 && holder > 0 && waiter > 0 && port > 0 && pport > 0);
	cr_assert_eq(ptid, peer, "the peer is single-threaded");

	struct lt_snapshot *s;
	const struct lt_wf_edge *e = tcp_holder_edge(&s, server, holder, port, pport, peer);
	cr_expect(strstr(e->evidence, "NETLINK_SOCK_DIAG inet_diag"), "%s", e->evidence);
	cr_expect_eq(e->pstate, LT_WFP_EVENTS, "the peer sleeps in pause(): %s", e->doing);
	char pd[48];
	snprintf(pd, sizeof(pd), "%d (tcp_peer): pause", (int)peer);
	cr_expect(e->doing && strstr(e->doing, pd), "%s", e->doing ? e->doing : "(null)");
	/* the lock wait: waiter -> holder, whose own wait names the peer */
	const struct lt_verdict *v = &s->verdicts[0];
	cr_assert_eq(v->kind, LT_VERDICT_LOCK_WAIT, "%s", v->summary);
	cr_expect_eq(v->owner, holder);
	char ev[96];
	snprintf(ev, sizeof(ev), "owner %d waits for: tcp 127.0.0.1:%d", (int)holder, port);
	cr_expect(tl_strlist_has(&v->evidence, ev), "no evidence line '%s'", ev);
	snprintf(ev, sizeof(ev), "peer held by process %d", (int)peer);
	cr_expect(tl_strlist_has(&v->evidence, ev), "no evidence line '%s'", ev);
	lt_snapshot_free(s);

	/* the /proc fallback (as when netlink is refused): the same peer */
	setenv("LOCKTRACE_NO_SOCK_DIAG", "1", 1);
	e = tcp_holder_edge(&s, server, holder, port, pport, peer);
	unsetenv("LOCKTRACE_NO_SOCK_DIAG");
	cr_expect(strstr(e->evidence, "/proc/PID/net/{tcp,tcp6,udp,udp6} (LOCKTRACE_NO_SOCK_DIAG is set)"), "%s",
		  e->evidence);
	lt_snapshot_free(s);
}

/* --cycle: the holder waits for the peer to write; the peer's only thread
 * waits for the process-shared mutex the holder holds.  Both processes
 * diagnosed together, and `snapshot -p SERVER` alone (it follows the
 * socket into the peer): a DEADLOCK naming both threads. */
Test(waitfor_live, tcp_peer_blocked_on_the_servers_mutex_is_a_deadlock)
{
	need_root();
	if (access(WL("tcp_peer"), X_OK))
		cr_skip_test("%s not built: run make all first", WL("tcp_peer"));
	tl_start_ready(&procs[0], (char *const[]){ WL("tcp_peer"), "--cycle", "--no-wait", NULL }, lines[0],
		       &nlines[0], 64, 30000);
	pid_t server = procs[0].pid;
	pid_t peer = (pid_t)tl_truth_val(lines[0], nlines[0], "peer", NULL, "pid");
	pid_t holder = (pid_t)tl_truth_val(lines[0], nlines[0], "thread", "role=holder", "tid");
	int port = (int)tl_truth_val(lines[0], nlines[0], "socket", "role=server", "port");
	int pport = (int)tl_truth_val(lines[0], nlines[0], "socket", "role=server", "peer_port");
	cr_assert(peer > 0 && holder > 0);

	struct lt_snapshot *s;
	const struct lt_wf_edge *e = tcp_holder_edge(&s, server, holder, port, pport, peer);
	cr_expect_eq(e->pstate, LT_WFP_BLOCKED, "the peer is blocked in futex: %s", e->doing);
	lt_snapshot_free(s);

	struct lt_snapshot **both = malloc(2 * sizeof(*both));
	cr_assert_not_null(both);
	both[0] = take(server);
	both[1] = take(peer);
	struct lt_multi_snapshot *m = NULL;
	cr_assert_eq(lt_multi_build(both, 2, NULL, &m), 0);
	const struct lt_verdict *v = &m->view.verdicts[0];
	cr_assert_eq(v->kind, LT_VERDICT_DEADLOCK, "%s", v->summary);
	cr_expect_eq(v->n_tids, 2, "%s", v->summary);
	cr_expect(has_tid(v, holder) && has_tid(v, peer), "%s", v->summary);
	const struct lt_thread *pt = lt_snapshot_find(&m->view, peer);
	cr_assert_not_null(pt);
	cr_expect_eq(pt->futex.owner, holder, "the peer's mutex is held by the server's holder");
	lt_multi_free(m);

	int nproc = 0;
	char pid[16];
	snprintf(pid, sizeof(pid), "%d", (int)server);
	char out[64][256], err[64][256];
	int nout = 0, nerr = 0;
	cr_expect_eq(tl_run_to_end((char *const[]){ LT_BIN, "snapshot", "-p", pid, NULL }, out, &nout, err, &nerr), 0);
	bool dl = false;
	char a[16], b[16];
	snprintf(a, sizeof(a), "%d ", (int)holder);
	snprintf(b, sizeof(b), "%d ", (int)peer);
	for (int i = 0; i < nout; i++) {
		sscanf(out[i], "snapshot of %d processes", &nproc);
		if (!strncmp(out[i], "DEADLOCK:", 9))
			dl = strstr(out[i], a) && strstr(out[i], b);
	}
	cr_expect_eq(nproc, 2, "the socket's peer was followed");
	cr_expect(dl, "snapshot -p %d prints the cycle as a DEADLOCK naming %d and %d", (int)server, (int)holder,
		  (int)peer);

	/* from the other end: the peer waits for a process-shared mutex whose
	 * owner is a thread of the server, which is followed (before, "held by
	 * thread ... of another process; snapshot that process") */
	snprintf(pid, sizeof(pid), "%d", (int)peer);
	nout = nerr = 0;
	nproc = 0;
	dl = false;
	cr_expect_eq(tl_run_to_end((char *const[]){ LT_BIN, "snapshot", "-p", pid, NULL }, out, &nout, err, &nerr), 0);
	bool owner_followed = false;
	for (int i = 0; i < nout; i++) {
		sscanf(out[i], "snapshot of %d processes", &nproc);
		if (!strncmp(out[i], "DEADLOCK:", 9))
			dl = strstr(out[i], a) && strstr(out[i], b);
		owner_followed |= strstr(out[i], "(lock owner of thread ") != NULL;
	}
	cr_expect_eq(nproc, 2, "the mutex's owner process was followed");
	cr_expect(owner_followed, "the note says the lock owner was followed");
	cr_expect(dl, "snapshot -p %d prints the cycle as a DEADLOCK naming %d and %d", (int)peer, (int)holder,
		  (int)peer);
}

/* Full snapshots of PID (its stacks read: retry_edge knows SQLite's busy
 * handler by them) every 20 ms, up to 10 s, until its thread TID sleeps
 * in SQLite's busy handler (clock_nanosleep or nanosleep) with its sleep's
 * edge and the file lock's: that snapshot. */
static struct lt_snapshot *busy_handler_snapshot(pid_t pid, pid_t tid)
{
	struct lt_snapshot *s = NULL;
	const struct lt_thread *t = NULL;
	for (double t0 = tl_now_s(); tl_now_s() - t0 < 10; usleep(20000)) {
		if (s)
			lt_snapshot_free(s);
		cr_assert_eq(lt_snapshot_take(pid, NULL, &s), 0);
		t = lt_snapshot_find(s, tid);
		if (t && t->sc.state == LT_SC_IN_SYSCALL && (t->sc.nr == 230 || t->sc.nr == 35) && t->wf &&
		    t->wf->n_edges > 1)
			break;
	}
	cr_assert(t && t->sc.state == LT_SC_IN_SYSCALL && (t->sc.nr == 230 || t->sc.nr == 35),
		  "thread %d of %d never slept in its busy handler", (int)tid, (int)pid);
	return s;
}

/* SQLite's busy handler, on Debian's sqlite3: a process whose UPDATE waits
 * for a database another sqlite3 holds in a write transaction retries its
 * fcntl lock (F_SETLK, which does not wait) between sleeps, so one snapshot
 * sees a sleep.  The sleep's edge names the database and its holder (from
 * /proc/locks) as what it may wait for, marked as an inference; the
 * thread's stack, in SQLite's busy handler, makes it a file-lock wait by
 * polling: a LOCK WAIT naming the holder, not IDLE (it was). */
Test(waitfor_live, sqlite_busy_wait_names_the_database_lock_holder)
{
	need_root();
	if (access(SQLITE_BIN, X_OK))
		cr_skip_test("%s missing (Debian: sqlite3, which scripts/install-deps.sh installs)", SQLITE_BIN);
	tmp_lockfile(0);
	unlink(lockfile[0]);
	char out[8][256], err[8][256];
	int nout = 0, nerr = 0;
	cr_assert_eq(tl_run_to_end((char *const[]){ SQLITE_BIN, lockfile[0], "create table t(v int); "
						    "insert into t values(0);", NULL }, out, &nout, err, &nerr), 0,
		     "sqlite3 could not create %s: %s", lockfile[0], nerr ? err[0] : "?");
	/* the holder keeps its write transaction open while .shell sleeps */
	spawn(0, (char *const[]){ SQLITE_BIN, "-cmd", "BEGIN IMMEDIATE;", "-cmd", "UPDATE t SET v=1;", "-cmd",
				  ".shell sleep 600", lockfile[0], NULL });
	char held[256];
	tl_locks_line(procs[0].pid, lockfile[0], false, held, sizeof(held));
	spawn(1, (char *const[]){ SQLITE_BIN, "-cmd", ".timeout 600000", lockfile[0], "UPDATE t SET v=2;", NULL });
	const struct lt_thread *t = NULL;
	struct lt_snapshot *s = take_when(procs[1].pid, 230, 35, 0, &t); /* clock_nanosleep, nanosleep */
	cr_assert(t && t->sc.state == LT_SC_IN_SYSCALL && (t->sc.nr == 230 || t->sc.nr == 35),
		  "the waiting sqlite3 %d never slept in its busy handler", (int)procs[1].pid);
	const struct lt_wf_edge *e = edge_of(s, procs[1].pid, LT_WF_TIMER);
	cr_assert_eq(e->n_pids, 1, "the database's holder (/proc/locks: %s)", held);
	cr_expect_eq(e->pids[0], procs[0].pid);
	cr_assert_not_null(e->evidence);
	cr_expect(strstr(e->evidence, lockfile[0]) && strstr(e->evidence, "POSIX WRITE") &&
		  strstr(e->evidence, "inferred"), "%s", e->evidence);
	/* with its stack, in SQLite's busy handler: a file-lock wait by
	 * polling, said from the stack, not inferred, never IDLE */
	lt_snapshot_free(s);
	s = busy_handler_snapshot(procs[1].pid, procs[1].pid);
	const struct lt_wf_edge *fl = edge_of(s, procs[1].pid, LT_WF_FILE_LOCK);
	cr_assert_eq(fl->n_pids, 1);
	cr_expect_eq(fl->pids[0], procs[0].pid);
	cr_expect(fl->evidence && strstr(fl->evidence, "sqlite3InvokeBusyHandler") &&
		  strstr(fl->evidence, lockfile[0]), "%s", fl->evidence ? fl->evidence : "-");
	cr_assert(s->n_verdicts > 0);
	const struct lt_verdict *v = &s->verdicts[0];
	cr_expect_eq(v->kind, LT_VERDICT_LOCK_WAIT, "%s", v->summary);
	cr_expect_eq(v->owner, procs[0].pid, "%s", v->summary);
	char want[160];
	snprintf(want, sizeof(want), "thread %d (sqlite3) waits for a file lock: a lock on %s", (int)procs[1].pid,
		 lockfile[0]);
	cr_expect(strstr(v->summary, want), "%s\n(wanted: %s)", v->summary, want);
	lt_snapshot_free(s);
}

/* SQLite in WAL mode, Debian's sqlite3: every connection keeps a SHARED
 * lock on the database file; a writer holds the WAL write lock, byte 120
 * of the -shm file.  A busy UPDATE waits for that writer, not for an idle
 * connection that opened the database after it (before: the first lock in
 * SQLite's lock bytes of /proc/locks, the idle one's SHARED). */
Test(waitfor_live, sqlite_busy_wait_in_wal_mode_names_the_writer)
{
	need_root();
	if (access(SQLITE_BIN, X_OK))
		cr_skip_test("%s missing (Debian: sqlite3, which scripts/install-deps.sh installs)", SQLITE_BIN);
	tmp_lockfile(0);
	unlink(lockfile[0]);
	char out[8][256], err[8][256], shm[96];
	int nout = 0, nerr = 0;
	snprintf(shm, sizeof(shm), "%s-shm", lockfile[0]);
	cr_assert_eq(tl_run_to_end((char *const[]){ SQLITE_BIN, lockfile[0], "PRAGMA journal_mode=WAL; create table "
						    "t(v int); insert into t values(0);", NULL }, out, &nout, err, &nerr), 0,
		     "sqlite3 could not create %s: %s", lockfile[0], nerr ? err[0] : "?");
	spawn(0, (char *const[]){ SQLITE_BIN, "-cmd", "BEGIN IMMEDIATE;", "-cmd", "UPDATE t SET v=1;", "-cmd",
				  ".shell sleep 600", lockfile[0], NULL });
	char held[256];
	/* the -shm file exists once the writer has opened the database */
	for (double t0 = tl_now_s(); access(shm, F_OK) && tl_now_s() - t0 < 10; usleep(20000))
		;
	tl_locks_line(procs[0].pid, shm, false, held, sizeof(held)); /* its WAL write lock */
	/* an idle connection, opened after the writer: SHARED on the database */
	spawn(2, (char *const[]){ SQLITE_BIN, "-cmd", "SELECT count(*) FROM t;", "-cmd", ".shell sleep 600",
				  lockfile[0], NULL });
	tl_locks_line(procs[2].pid, lockfile[0], false, held, sizeof(held));
	spawn(1, (char *const[]){ SQLITE_BIN, "-cmd", ".timeout 600000", lockfile[0], "UPDATE t SET v=2;", NULL });
	struct lt_snapshot *s = busy_handler_snapshot(procs[1].pid, procs[1].pid);
	const struct lt_wf_edge *fl = edge_of(s, procs[1].pid, LT_WF_FILE_LOCK);
	cr_expect(fl->n_pids == 1 && fl->pids[0] == procs[0].pid, "the writer %d, not the idle connection %d (%zu pids, "
		  "first %d)", (int)procs[0].pid, (int)procs[2].pid, fl->n_pids, fl->n_pids ? (int)fl->pids[0] : 0);
	char want[160];
	snprintf(want, sizeof(want), "a lock on %s (fd ", shm);
	cr_expect(fl->what && !strncmp(fl->what, want, strlen(want)), "%s (wanted: %s)", fl->what ? fl->what : "-", want);
	cr_expect(fl->evidence && strstr(fl->evidence, "the WAL write lock, byte 120 of the -shm file: a writer"), "%s",
		  fl->evidence ? fl->evidence : "-");
	lt_snapshot_free(s);
}

/* SQLite in one process: thread A holds a write transaction on a database
 * and waits for a file lock flock(1) holds; thread B's own connection to
 * the database retries in SQLite's busy handler.  B waits for the
 * database, locked in SQLite's lock bytes by its own process (/proc/locks
 * gives no thread), not for the file another process locks, which A
 * waits for (before: "a lock on LOCKFILE ..., held by process FLOCK", the
 * first file of the process another process locks). */
Test(waitfor_live, sqlite_busy_wait_on_a_database_its_own_process_holds)
{
	need_root();
	if (access(TL_PYTHON, X_OK) || access(FLOCK_BIN, X_OK))
		cr_skip_test("%s or %s missing (Debian: python3, util-linux)", TL_PYTHON, FLOCK_BIN);
	tmp_lockfile(0);
	tmp_lockfile(1);
	spawn(1, (char *const[]){ FLOCK_BIN, lockfile[1], "-c", "sleep 600", NULL });
	unlink(lockfile[0]); /* the database: sqlite3 creates it */
	char held[256];
	tl_locks_line(procs[1].pid, lockfile[1], false, held, sizeof(held));
	static const char script[] =
		"import sqlite3, threading, fcntl, time, sys\n"
		"DB, L = sys.argv[1], sys.argv[2]\n"
		"c = sqlite3.connect(DB); c.execute('create table t(x)'); c.commit(); c.close()\n"
		"def a():\n"
		"    c = sqlite3.connect(DB, isolation_level=None); c.execute('BEGIN IMMEDIATE')\n"
		"    c.execute('insert into t values(1)')\n"
		"    f = open(L, 'w'); print('A', threading.get_native_id(), flush=True)\n"
		"    fcntl.flock(f, fcntl.LOCK_EX)\n"
		"def b():\n"
		"    c = sqlite3.connect(DB, timeout=600); print('B', threading.get_native_id(), flush=True)\n"
		"    c.execute('insert into t values(2)'); c.commit()\n"
		"threading.Thread(target=a, daemon=True).start(); time.sleep(0.3)\n"
		"threading.Thread(target=b, daemon=True).start(); time.sleep(0.3)\n"
		"print('ready', flush=True)\n"
		"while True: time.sleep(1000)\n";
	tl_start_ready(&procs[0], (char *const[]){ TL_PYTHON, "-c", (char *)script, lockfile[0], lockfile[1], NULL },
		       lines[0], &nlines[0], 64, 30000);
	pid_t b = 0;
	for (int i = 0; i < nlines[0]; i++)
		if (sscanf(lines[0][i], "B %d", &b) == 1)
			break;
	cr_assert_gt(b, 0, "thread B's tid printed");
	struct lt_snapshot *s = busy_handler_snapshot(procs[0].pid, b);
	const struct lt_wf_edge *fl = edge_of(s, b, LT_WF_FILE_LOCK);
	cr_expect(fl->n_pids == 1 && fl->pids[0] == procs[0].pid, "the database's holder: its own process %d (%zu "
		  "pids, first %d)", (int)procs[0].pid, fl->n_pids, fl->n_pids ? (int)fl->pids[0] : 0);
	char want[160];
	snprintf(want, sizeof(want), "a lock on %s (fd ", lockfile[0]);
	cr_expect(fl->what && !strncmp(fl->what, want, strlen(want)), "%s (wanted: %s)", fl->what ? fl->what : "-", want);
	cr_expect(fl->evidence && strstr(fl->evidence, "sqlite3InvokeBusyHandler") &&
		  strstr(fl->evidence, "is locked by its own process (a connection of another of its threads, which "
				       "one is not recorded)") && strstr(fl->evidence, "SQLite's lock bytes"),
		  "%s", fl->evidence ? fl->evidence : "-");
	cr_expect(!fl->evidence || !strstr(fl->evidence, lockfile[1]), "not the file flock holds: %s", fl->evidence);
	lt_snapshot_free(s);
}

/* A shell's `read x < FIFO` with no writer: its open() of the FIFO waits
 * for a process to open the other end (the kernel's fifo_open).  The path
 * is read from its memory, the wait named, and the verdict is IDLE with
 * that wait's other end unknown, not "OK: nothing suspicious" (1 other). */
Test(waitfor_live, fifo_open_waits_for_the_other_end)
{
	need_root();
	snprintf(lockfile[0], sizeof(lockfile[0]), "/tmp/lt-waitfor-%d.fifo", (int)getpid());
	unlink(lockfile[0]);
	cr_assert_eq(mkfifo(lockfile[0], 0600), 0, "mkfifo %s: %s", lockfile[0], strerror(errno));
	char cmd[128];
	snprintf(cmd, sizeof(cmd), "read x < %s", lockfile[0]);
	spawn(0, (char *const[]){ "/bin/sh", "-c", cmd, NULL });
	const struct lt_thread *t = NULL;
	struct lt_snapshot *s = take_when(procs[0].pid, 257, 2, 0, &t); /* openat, open */
	cr_assert(t && t->sc.state == LT_SC_IN_SYSCALL && (t->sc.nr == 257 || t->sc.nr == 2),
		  "sh %d never blocked opening the FIFO", (int)procs[0].pid);
	const struct lt_wf_edge *e = edge_of(s, procs[0].pid, LT_WF_UNKNOWN);
	char want[160];
	snprintf(want, sizeof(want), "a process to open FIFO %s for writing", lockfile[0]);
	cr_expect_str_eq(e->what, want);
	cr_expect_eq(e->n_pids, 0);
	cr_expect(t->detail && strstr(t->detail, "O_RDONLY): waits for a process to open the FIFO for writing"),
		  "%s", t->detail ? t->detail : "-");
	cr_assert(s->n_verdicts > 0);
	const struct lt_verdict *v = &s->verdicts[0];
	cr_expect_eq(v->kind, LT_VERDICT_IDLE, "%s", v->summary);
	cr_expect(strstr(v->summary, "none known to be stuck (1 wait for a process to open a FIFO's other end"),
		  "%s", v->summary);
	lt_snapshot_free(s);
}

static const char LISTEN_PY[] =
	"import socket\n"
	"ls = socket.socket(); ls.bind(('127.0.0.1', 0)); ls.listen(1)\n"
	"print('socket role=listen port=%d' % ls.getsockname()[1], flush=True)\n"
	"print('ready', flush=True)\n"
	"ls.accept()\n";

/* A server in accept() on a listening tcp socket with nothing to accept:
 * the socket found (state LISTEN) by inet_diag, and the verdict IDLE,
 * saying it is an idle listener. */
Test(waitfor_live, tcp_listener_with_nothing_to_accept_is_idle)
{
	start_py(LISTEN_PY);
	pid_t p = procs[0].pid;
	int port = (int)tl_truth_val(lines[0], nlines[0], "socket", "role=listen", "port");
	cr_assert_gt(port, 0);
	const struct lt_thread *t = NULL;
	struct lt_snapshot *s = take_when(p, 43, 288, 0, &t);
	cr_assert(t && (t->sc.nr == 43 || t->sc.nr == 288), "python3 in accept (detail: %s)", t ? t->detail : "?");
	const struct lt_wf_edge *e = edge_of(s, p, LT_WF_LISTEN);
	char want[64];
	snprintf(want, sizeof(want), "listening tcp socket 127.0.0.1:%d (fd ", port);
	cr_expect(strstr(e->what, want), "%s", e->what);
	cr_expect(e->evidence && strstr(e->evidence, "nothing to accept") &&
		  strstr(e->evidence, "NETLINK_SOCK_DIAG inet_diag"), "%s", e->evidence ? e->evidence : "(null)");
	cr_expect_eq(e->n_pids, 0);
	cr_assert_eq(s->verdicts[0].kind, LT_VERDICT_IDLE, "%s", s->verdicts[0].summary);
	cr_expect(tl_strlist_has(&s->verdicts[0].evidence, "(an idle listener)"), "IDLE says why");
	lt_snapshot_free(s);
}

static const char UDP_PY[] =
	"import os, socket, time\n"
	"srv = socket.socket(socket.AF_INET, socket.SOCK_DGRAM); srv.bind(('127.0.0.1', 0))\n"
	"port = srv.getsockname()[1]\n"
	"pid = os.fork()\n"
	"if pid == 0:\n"
	"    time.sleep(600); os._exit(0)\n"
	"srv.close()\n"
	"c = socket.socket(socket.AF_INET, socket.SOCK_DGRAM); c.connect(('127.0.0.1', port))\n"
	"print('peer pid=%d port=%d' % (pid, port), flush=True)\n"
	"print('ready', flush=True)\n"
	"c.recv(1)\n";

/* A connected udp socket whose peer (bound, not connected, in a child
 * that never sends) is on this host: the peer's process named. */
Test(waitfor_live, udp_recv_names_the_local_peer_process)
{
	start_py(UDP_PY);
	pid_t p = procs[0].pid, peer = (pid_t)tl_truth_val(lines[0], nlines[0], "peer", NULL, "pid");
	int port = (int)tl_truth_val(lines[0], nlines[0], "peer", NULL, "port");
	const struct lt_thread *t = NULL;
	struct lt_snapshot *s = take_when(p, 45, 0, 1, &t);
	const struct lt_wf_edge *e = edge_of(s, p, LT_WF_SOCKET);
	char want[64];
	snprintf(want, sizeof(want), " -> 127.0.0.1:%d (fd ", port);
	cr_expect(!strncmp(e->what, "udp 127.0.0.1:", 14) && strstr(e->what, want), "%s", e->what);
	cr_assert_eq(e->n_pids, 1, "%s", e->evidence);
	cr_expect_eq(e->pids[0], peer, "the peer socket is the child's (%d)", (int)peer);
	cr_expect_eq(e->pstate, LT_WFP_TIMED, "the child sleeps: %s", e->doing);
	cr_expect_eq(s->verdicts[0].kind, LT_VERDICT_IDLE, "%s", s->verdicts[0].summary);
	lt_snapshot_free(s);
}

/* Waits (10 s) until thread TID of PID is in system call NR; fails the
 * test if it is not. */
/* Waits (10 s) until thread TID of PID is in system call NR or NR2. */
static void wait_in_either(pid_t pid, pid_t tid, long nr, long nr2)
{
	char path[96], buf[256];
	snprintf(path, sizeof(path), "/proc/%d/task/%d/syscall", (int)pid, (int)tid);
	for (double t0 = tl_now_s(); tl_now_s() - t0 < 10; usleep(20000)) {
		FILE *f = fopen(path, "r");
		long got = -2;
		char *end = buf;
		/* "running" (no number) is no system call: strtol's 0 would
		 * be read(2)'s */
		if (f && fgets(buf, sizeof(buf), f))
			got = strtol(buf, &end, 10);
		if (f)
			fclose(f);
		if (end != buf && (got == nr || got == nr2))
			return;
	}
	cr_assert_fail("thread %d of %d never entered system call %ld or %ld", (int)tid, (int)pid, nr, nr2);
}

static void wait_in_syscall(pid_t pid, pid_t tid, long nr)
{
	wait_in_either(pid, tid, nr, nr);
}

/* Item 5 of issue 23: bash waits (wait4) for its child flock(1), which
 * waits for a file lock another flock(1) holds.  The parent's snapshot has
 * a child edge naming the waiter (the pid /proc/locks gives for the "->"
 * entry), blocked itself; following it reaches the child, whose lock wait
 * is the first finding and names the holder and, before it, the parent. */
Test(waitfor_live, wait4_parent_of_a_child_blocked_on_a_file_lock)
{
	char held[256], waiting[256];
	flock_holds_lockfile("/bin/bash", "bash", held, sizeof(held));
	char cmd[160];
	snprintf(cmd, sizeof(cmd), "%s %s -c true; echo done", FLOCK_BIN, lockfile[0]);
	spawn(1, (char *const[]){ "/bin/bash", "-c", cmd, NULL });
	pid_t sh = procs[1].pid, ch = only_child(sh);
	tl_locks_line(ch, lockfile[0], true, waiting, sizeof(waiting)); /* the child is the waiter */
	wait_in_syscall(sh, sh, 61);                                 /* bash in wait4 */

	struct lt_snapshot *s = take(sh);
	const struct lt_wf_edge *e = edge_of(s, sh, LT_WF_CHILD);
	cr_assert_eq(e->n_pids, 1, "one child");
	cr_expect_eq(e->pids[0], ch, "the child %d, the waiter of /proc/locks: %s", (int)ch, waiting);
	cr_expect_eq(e->pstate, LT_WFP_BLOCKED, "the child is blocked itself (%s)", e->doing ? e->doing : "?");
	cr_expect(e->doing && strstr(e->doing, "flock"), "what the child does: %s", e->doing ? e->doing : "?");
	lt_snapshot_free(s);

	struct lt_multi_snapshot *m = follow(sh);
	cr_assert_eq(m->n_procs, 2, "followed from bash into its child");
	cr_expect_eq(m->procs[1]->pid, ch);
	cr_assert(m->view.n_verdicts > 0);
	const struct lt_verdict *v = &m->view.verdicts[0];
	cr_expect_eq(v->kind, LT_VERDICT_LOCK_WAIT, "%s", v->summary);
	cr_expect(has_tid(v, ch), "the child's lock wait: %s", v->summary);
	cr_expect_eq(v->owner, procs[0].pid, "holder from /proc/locks: %s", held);
	char by[64];
	snprintf(by, sizeof(by), "waited for by: thread %d (bash)", (int)sh);
	cr_expect(tl_strlist_has(&v->evidence, by), "the finding names the parent before the child: %s",
		  v->summary);
	lt_multi_free(m);
}

#define TIMEOUT_BIN "/usr/bin/timeout"
#define DASH_BIN "/bin/dash"

/* The signal mask in /proc/PID/task/TID/status FIELD ("SigBlk:"). */
static uint64_t status_mask(pid_t pid, pid_t tid, const char *field)
{
	char path[96], buf[4096];
	snprintf(path, sizeof(path), "/proc/%d/task/%d/status", (int)pid, (int)tid);
	FILE *f = fopen(path, "r");
	cr_assert_not_null(f, "%s", path);
	size_t n = fread(buf, 1, sizeof(buf) - 1, f);
	fclose(f);
	buf[n] = 0;
	uint64_t v = 0;
	cr_assert_eq(lt_status_sigmask(buf, field, &v), 0, "%s in %s", field, path);
	return v;
}

/* Whether /proc/PID/timers lists a timer that signals SIG to the process. */
static bool has_signal_timer(pid_t pid, int sig)
{
	char path[64], buf[4096];
	snprintf(path, sizeof(path), "/proc/%d/timers", (int)pid);
	FILE *f = fopen(path, "r");
	if (!f)
		return false;
	size_t n = fread(buf, 1, sizeof(buf) - 1, f);
	fclose(f);
	buf[n] = 0;
	struct lt_ptimer tm[8];
	size_t nt = lt_parse_proc_timers(buf, tm, 8);
	for (size_t i = 0; i < nt; i++)
		if (tm[i].signal && tm[i].signo == sig && tm[i].target == pid)
			return true;
	return false;
}

static const struct lt_verdict *verdict_for(const struct lt_multi_snapshot *m, enum lt_verdict_kind k,
					    pid_t tid)
{
	for (size_t i = 0; i < m->view.n_verdicts; i++)
		if (m->view.verdicts[i].kind == k && has_tid(&m->view.verdicts[i], tid))
			return &m->view.verdicts[i];
	return NULL;
}

#define NODE_BIN "/usr/bin/node"

/* Every thread of PID asleep (state S in /proc/PID/task/N/stat), within
 * 10 s: a runtime's threads settled into their waits. */
static void all_threads_asleep(pid_t pid)
{
	char path[64];
	snprintf(path, sizeof(path), "/proc/%d/task", (int)pid);
	for (double t0 = tl_now_s(); tl_now_s() - t0 < 10; usleep(20000)) {
		DIR *d = opendir(path);
		cr_assert_not_null(d, "%s: %s", path, strerror(errno));
		struct dirent *de;
		bool all = true;
		while ((de = readdir(d)) && all) {
			if (de->d_name[0] == '.')
				continue;
			char sp[352], buf[512];
			snprintf(sp, sizeof(sp), "%s/%s/stat", path, de->d_name);
			FILE *f = fopen(sp, "r");
			char *rp = f && fgets(buf, sizeof(buf), f) ? strrchr(buf, ')') : NULL;
			all = rp && rp[1] == ' ' && rp[2] == 'S';
			if (f)
				fclose(f);
		}
		closedir(d);
		if (all)
			return;
	}
	cr_assert_fail("the threads of %d did not all go to sleep in 10 s", (int)pid);
}

/* Node's child_process.execFileSync on a flock(1) that waits for a lock
 * another flock(1) holds: node's main thread runs a loop of its own
 * (libuv's SyncProcessRunner) in epoll_pwait on the child's stdio sockets,
 * libuv's signal pipe (its SIGCHLD handler writes it) and the loop's async
 * eventfd, the last two held by node alone; its other threads (libuv's
 * pool, V8's workers, the platform's loop) sleep with no timeout.  Node
 * had no verdict (the eventfd in a poll set was an unknown party, the
 * pipe's writer an idle process: its own): it is a wait chain into the
 * child's lock wait, its own wake-up fds said, the inference marked. */
Test(waitfor_live, node_execsync_on_a_stuck_child_is_a_chain_past_its_own_wake_fds)
{
	char held[256], waiting[256], js[256];
	flock_holds_lockfile(NODE_BIN, "nodejs", held, sizeof(held));
	snprintf(js, sizeof(js), "require('child_process').execFileSync('%s', ['%s', 'true'])", FLOCK_BIN,
		 lockfile[0]);
	spawn(1, (char *const[]){ NODE_BIN, "-e", js, NULL });
	pid_t node = procs[1].pid, ch = only_child(node);
	tl_locks_line(ch, lockfile[0], true, waiting, sizeof(waiting)); /* the child is the waiter */
	/* epoll_pwait (node 20's libuv), epoll_wait (Debian 12's node 18) */
	wait_in_either(node, node, 281, 232);
	all_threads_asleep(node);

	struct lt_snapshot *s = take(node);
	const struct lt_thread *t = lt_snapshot_find(s, node);
	cr_assert(t && t->wf, "no wait-for edges of node's main thread");
	size_t n_efd = 0, n_child = 0;
	for (size_t i = 0; i < t->wf->n_edges; i++) {
		const struct lt_wf_edge *e = &t->wf->edges[i];
		if (lt_wf_edge_obj(e) == LT_WF_OBJ_EVENTFD) {
			/* followed by its eventfd-id: only node holds it */
			n_efd++;
			cr_expect(e->kind == LT_WF_UNKNOWN && e->evidence && strstr(e->evidence, "no other process "
										 "holds it"), "%s: %s", e->what,
				  e->evidence ? e->evidence : "?");
		}
		for (size_t q = 0; q < e->n_pids; q++)
			n_child += e->pids[q] == ch;
	}
	cr_expect_eq(n_efd, 1, "libuv's async eventfd in the poll set");
	cr_expect_geq(n_child, 1, "an edge names the child %d", (int)ch);
	lt_snapshot_free(s);

	struct lt_multi_snapshot *m = follow(node);
	const struct lt_verdict *lw = verdict_for(m, LT_VERDICT_LOCK_WAIT, ch);
	cr_assert_not_null(lw, "the child's lock wait (first: %s)", m->view.n_verdicts ? m->view.verdicts[0].summary : "-");
	cr_expect_eq(lw->owner, procs[0].pid, "holder from /proc/locks: %s", held);
	const struct lt_verdict *wc = verdict_for(m, LT_VERDICT_WAIT_CHAIN, node);
	cr_assert_not_null(wc, "node's wait chain (first: %s)", m->view.n_verdicts ? m->view.verdicts[0].summary : "-");
	char into[64];
	snprintf(into, sizeof(into), "waits for process %d, whose thread %d (flock)", (int)ch, (int)ch);
	cr_expect(strstr(wc->summary, into) && strstr(wc->summary, "in a lock wait"), "%s", wc->summary);
	char own[128];
	snprintf(own, sizeof(own), "its other fds, a pipe and an eventfd only its own process %d holds (an event "
		 "loop's wake-up)", (int)node);
	cr_expect(strstr(wc->summary, own) && strstr(wc->summary, "is inferred"), "%s", wc->summary);
	for (size_t i = 0; i < m->view.n_verdicts; i++)
		cr_expect(m->view.verdicts[i].kind != LT_VERDICT_DEADLOCK, "%s", m->view.verdicts[i].summary);
	lt_multi_free(m);
}

/* Python's asyncio awaits a flock(1) child that waits for a lock another
 * flock(1) holds.  Up to 3.11 (Debian's python3) the loop's thread sleeps
 * in epoll_wait on nothing but its self-pipe, a unix socket pair only its
 * own process holds, which its child watcher thread (ThreadedChildWatcher,
 * in wait4 on the child) writes once the child exits: the watcher is a
 * wait chain into the child's lock wait, and the loop a wait chain into
 * the watcher's (it had no verdict: its only party was its own process, in
 * an event wait).  From 3.12 the loop polls a pidfd of the child beside its
 * self-pipe: a child edge (it was an unknown party, the verdict IDLE), the
 * loop a wait chain into the child's lock wait, the self-pipe said as its
 * own wake-up. */
static void asyncio_case(const char *python, bool pidfd)
{
	char held[256], waiting[256], py[512];
	flock_holds_lockfile(python, "python3; pyenv builds: tests/README.md", held, sizeof(held));
	snprintf(py, sizeof(py),
		 "import asyncio\n"
		 "async def main():\n"
		 "    p = await asyncio.create_subprocess_exec('%s', '%s', 'true')\n"
		 "    await p.wait()\n"
		 "asyncio.run(main())\n", FLOCK_BIN, lockfile[0]);
	spawn(1, (char *const[]){ (char *)python, "-c", py, NULL });
	pid_t loop = procs[1].pid, ch = only_child(loop);
	tl_locks_line(ch, lockfile[0], true, waiting, sizeof(waiting)); /* the child is the waiter */
	wait_in_syscall(loop, loop, 232);                             /* epoll_wait */
	all_threads_asleep(loop);

	struct lt_snapshot *s = take(loop);
	pid_t watcher = 0;
	for (size_t i = 0; i < s->n_threads; i++)
		if (s->threads[i].tid != loop && s->threads[i].wait == LT_WAIT_CHILD)
			watcher = s->threads[i].tid;
	cr_assert_eq(watcher != 0, !pidfd, "a thread of %d in wait4 (asyncio's child watcher): %d", (int)loop,
		     (int)watcher);
	const struct lt_thread *t = lt_snapshot_find(s, loop);
	cr_assert(t && t->wf && t->wf->n_edges == (pidfd ? 2u : 1u), "the loop's edges: its self-pipe%s",
		  pidfd ? " and the pidfd" : "");
	size_t n_self = 0, n_pidfd = 0;
	for (size_t i = 0; i < t->wf->n_edges; i++) {
		const struct lt_wf_edge *e = &t->wf->edges[i];
		n_self += e->kind == LT_WF_SOCKET && lt_wf_edge_obj(e) == LT_WF_OBJ_UNIX && e->n_pids == 1 &&
			  e->pids[0] == loop;
		n_pidfd += e->kind == LT_WF_CHILD && e->n_pids == 1 && e->pids[0] == ch && strstr(e->what, "pidfd");
	}
	cr_expect_eq(n_self, 1, "its self-pipe, a unix socket pair only it holds");
	cr_expect_eq(n_pidfd, pidfd ? 1 : 0, "a child edge to %d from its pidfd", (int)ch);
	lt_snapshot_free(s);

	struct lt_multi_snapshot *m = follow(loop);
	const struct lt_verdict *lw = verdict_for(m, LT_VERDICT_LOCK_WAIT, ch);
	cr_assert_not_null(lw, "the child's lock wait (first: %s)", m->view.n_verdicts ? m->view.verdicts[0].summary : "-");
	cr_expect_eq(lw->owner, procs[0].pid, "holder from /proc/locks: %s", held);
	const struct lt_verdict *lc = verdict_for(m, LT_VERDICT_WAIT_CHAIN, loop);
	cr_assert_not_null(lc, "the loop's wait chain (first: %s)", m->view.n_verdicts ? m->view.verdicts[0].summary : "-");
	char want[200];
	if (pidfd) {
		snprintf(want, sizeof(want), "its other fd, a unix socket pair only its own process %d holds (an event "
			 "loop's wake-up)", (int)loop);
		cr_expect(strstr(lc->summary, want) && strstr(lc->summary, "is inferred"), "%s", lc->summary);
	} else {
		cr_assert_not_null(verdict_for(m, LT_VERDICT_WAIT_CHAIN, watcher), "the watcher's wait chain (first: %s)",
				   m->view.n_verdicts ? m->view.verdicts[0].summary : "-");
		snprintf(want, sizeof(want), "waits only for its own wake-up fd, a unix socket pair only its own "
			 "process %d holds (an event loop's wake-up)", (int)loop);
		cr_expect(strstr(lc->summary, want), "%s", lc->summary);
		snprintf(want, sizeof(want), "one of them, thread %d (waitpid-", (int)watcher);
		cr_expect(strstr(lc->summary, want) && strstr(lc->summary, "is itself in a wait chain") &&
			  strstr(lc->summary, "is inferred"), "%s", lc->summary);
	}
	snprintf(want, sizeof(want), "waits for process %d, whose thread %d (flock)", (int)ch, (int)ch);
	cr_expect(strstr(lc->summary, want) && strstr(lc->summary, "in a lock wait"), "into the child: %s",
		  lc->summary);
	for (size_t i = 0; i < m->view.n_verdicts; i++)
		cr_expect(m->view.verdicts[i].kind != LT_VERDICT_DEADLOCK && m->view.verdicts[i].kind != LT_VERDICT_IDLE,
			  "%s", m->view.verdicts[i].summary);
	lt_multi_free(m);
}

Test(waitfor_live, asyncio_loop_on_its_self_pipe_is_a_chain_into_its_child_watcher)
{
	asyncio_case(TL_PYTHON, false);
}

Test(waitfor_live, asyncio_loop_polling_a_pidfd_is_a_chain_into_its_child)
{
	asyncio_case("/root/.pyenv/versions/3.13.0/bin/python3", true);
}

/* coreutils' timeout(1) runs flock(1) on a file another flock(1) holds:
 * timeout waits for its child in rt_sigsuspend (SIGCHLD caught, the mask
 * it passes blocking none), not in wait4, and its timer_create timer
 * (SIGALRM) could end the wait too.  Its snapshot has a child edge naming
 * the child, the flock(1) /proc/locks names as the waiter; following it
 * reaches the child's lock wait, whose holder is the first flock(1); the
 * parent is a wait chain into it that says its timer may end it first
 * (when, /proc does not say): never IDLE, never a deadlock.  With the mask
 * unread (LOCKTRACE_NO_SIGMASK) the same child is named, as an inference. */
Test(waitfor_live, timeout1_in_sigsuspend_is_followed_to_its_childs_lock_holder)
{
	char held[256], waiting[256];
	flock_holds_lockfile(TIMEOUT_BIN, "coreutils", held, sizeof(held));
	double t0 = tl_now_s();
	spawn(1, (char *const[]){ TIMEOUT_BIN, "600", FLOCK_BIN, lockfile[0], "true", NULL });
	pid_t to = procs[1].pid, ch = only_child(to);
	tl_locks_line(ch, lockfile[0], true, waiting, sizeof(waiting)); /* the child is the waiter */
	wait_in_syscall(to, to, 130);                                 /* timeout in rt_sigsuspend */
	uint64_t blk = status_mask(to, to, "SigBlk:"), cgt = status_mask(to, to, "SigCgt:");
	cr_assert(cgt & (1ULL << 16), "timeout(1) catches SIGCHLD (SigCgt %#llx)", (unsigned long long)cgt);
	bool timer = has_signal_timer(to, 14);

	struct lt_snapshot *s = take(to);
	const struct lt_wf_edge *e = edge_of(s, to, LT_WF_CHILD);
	cr_assert_eq(e->n_pids, 1, "one child");
	cr_expect_eq(e->pids[0], ch, "the child %d, the waiter of /proc/locks: %s", (int)ch, waiting);
	cr_expect_eq(e->pstate, LT_WFP_BLOCKED, "the child is blocked itself (%s)", e->doing ? e->doing : "?");
	cr_expect(e->doing && strstr(e->doing, "flock"), "what the child does: %s", e->doing ? e->doing : "?");
	cr_expect(!strncmp(e->what, LT_WF_SIGCHLD, strlen(LT_WF_SIGCHLD)), "%s", e->what);
	cr_expect(e->evidence && strstr(e->evidence, "read from its memory"), "the mask from the call: %s",
		  e->evidence ? e->evidence : "?");
	const struct lt_thread *t = lt_snapshot_find(s, to);
	char want[64];
	snprintf(want, sizeof(want), "rt_sigsuspend(mask %#" PRIx64 ")", blk); /* the kernel installs it: SigBlk */
	if (!blk)
		snprintf(want, sizeof(want), "rt_sigsuspend(mask 0x0)");
	cr_expect(t->detail && strstr(t->detail, want), "%s in: %s", want, t->detail ? t->detail : "?");
	const struct lt_wf_edge *te = NULL;
	for (size_t i = 0; i < t->wf->n_edges; i++)
		if (lt_wf_sigtimer(&t->wf->edges[i]))
			te = &t->wf->edges[i];
	/* its timer is its DURATION (600) from its start, read from its
	 * command line and start time: on the child edge, not a timer of
	 * unknown end */
	cr_expect(timer, "/proc/%d/timers lists timeout's SIGALRM timer", (int)to);
	cr_expect_null(te, "no timer of unknown end: %s", te ? te->what : "");
	cr_expect_str_eq(e->timeout_what, "timeout(1) duration");
	cr_expect(e->timeout_s > 599.999 && e->timeout_s < 600.001, "timeout %.3f s", e->timeout_s);
	double since = tl_now_s() - t0;
	cr_expect(e->timeout_left_s <= 600 && e->timeout_left_s >= 600 - since - 0.02, "left %.3f s, %.3f s after "
		  "the start (starttime in 10 ms ticks)", e->timeout_left_s, since);
	lt_snapshot_free(s);

	struct lt_multi_snapshot *m = follow(to);
	cr_assert_eq(m->n_procs, 2, "followed from timeout into its child");
	cr_expect_eq(m->procs[1]->pid, ch);
	const struct lt_verdict *lw = verdict_for(m, LT_VERDICT_LOCK_WAIT, ch);
	cr_assert_not_null(lw, "the child's lock wait (first: %s)", m->view.n_verdicts ? m->view.verdicts[0].summary : "-");
	cr_expect_eq(lw->owner, procs[0].pid, "holder from /proc/locks: %s", held);
	char by[64];
	snprintf(by, sizeof(by), "waited for by: thread %d (timeout)", (int)to);
	cr_expect(tl_strlist_has(&lw->evidence, by), "the finding names timeout before the child: %s", lw->summary);
	const struct lt_verdict *wc = verdict_for(m, LT_VERDICT_WAIT_CHAIN, to);
	cr_assert_not_null(wc, "timeout's wait chain");
	char into[64], holder[32];
	snprintf(into, sizeof(into), "waits for process %d, whose thread %d (flock)", (int)ch, (int)ch);
	snprintf(holder, sizeof(holder), "held by processes %d", (int)procs[0].pid);
	cr_expect(strstr(wc->summary, into) && strstr(wc->summary, "in a lock wait") && strstr(wc->summary, holder),
		  "%s", wc->summary);
	cr_expect(strstr(wc->summary, "; or by its timeout(1) duration (600.0 s), within "), "%s", wc->summary);
	for (size_t i = 0; i < m->view.n_verdicts; i++)
		cr_expect(m->view.verdicts[i].kind != LT_VERDICT_IDLE && m->view.verdicts[i].kind != LT_VERDICT_DEADLOCK,
			  "%s", m->view.verdicts[i].summary);
	lt_multi_free(m);

	setenv("LOCKTRACE_NO_SIGMASK", "1", 1);
	s = take(to);
	unsetenv("LOCKTRACE_NO_SIGMASK");
	e = edge_of(s, to, LT_WF_UNKNOWN);
	cr_expect(lt_wf_maybe_child(e), "%s", e->what);
	cr_expect(e->n_pids == 1 && e->pids[0] == ch, "perhaps the child %d", (int)ch);
	cr_expect(e->evidence && strstr(e->evidence, "inferred"), "%s", e->evidence ? e->evidence : "?");
	lt_snapshot_free(s);
}

/* The id of the POSIX timer of /proc/PID/timers that signals SIG to the
 * process, -1 none: read here line by line ("ID: N", "signal: SIG/...",
 * "notify: signal/pid.PID"), not by the parser under test. */
static int signal_timer_id(pid_t pid, int sig)
{
	char path[64], line[128], notify[64];
	snprintf(path, sizeof(path), "/proc/%d/timers", (int)pid);
	snprintf(notify, sizeof(notify), "notify: signal/pid.%d\n", (int)pid);
	FILE *f = fopen(path, "r");
	int id = -1, got = -1, signo = -1;
	while (f && fgets(line, sizeof(line), f)) {
		if (sscanf(line, "ID: %d", &id) == 1)
			signo = -1;
		else if (!strncmp(line, "signal: ", 8))
			signo = atoi(line + 8);
		else if (!strcmp(line, notify) && signo == sig && got < 0)
			got = id;
	}
	if (f)
		fclose(f);
	return got;
}

/* util-linux flock -w: two flock(1) -w 300 each hold one lock file and
 * run sh, which (told to go) execs flock -w 300 on the other file: the
 * inner flocks wait for each other's lock.  Each inner flock armed a
 * POSIX timer (timer_create, SIGALRM, /proc/PID/timers) and catches
 * SIGALRM (SigCgt): the timer interrupts its flock() when it fires.  The
 * snapshot of the first inner flock has, beside its file-lock edge (held
 * by the other outer flock and the other inner flock, which share the open
 * file), a timer edge naming that timer.  Run as BIN: Debian's flock(1),
 * whose way tells the timer is armed and fires within 300 s of when the
 * thread last ran (inferred from its executable's name and its -w 300):
 * followed, the two inner flocks are a "deadlock until a timeout" within
 * 300 s; a copy of it under another name, whose way is not known: a
 * "deadlock unless a timer ends it" naming both timers.  Never a plain
 * deadlock, never IDLE.  Then a lone BIN -w waiting for a lock a flock(1)
 * without -w holds: a lock wait held by that flock(1), its timer said. */
static void flock_w_case(const char *bin, bool known)
{
	need_root();
	if (access(FLOCK_BIN, X_OK) || access(DASH_BIN, X_OK))
		cr_skip_test("%s or %s missing (Debian: util-linux, dash)", FLOCK_BIN, DASH_BIN);
	tmp_lockfile(0);
	tmp_lockfile(1);
	snprintf(extra_link, sizeof(extra_link), "/tmp/lt-waitfor-%d-go", (int)getpid());
	char cmd[2][320];
	double t0 = tl_now_s();
	for (int i = 0; i < 2; i++) {
		snprintf(cmd[i], sizeof(cmd[i]), "while [ ! -e %s ]; do sleep 0.02; done; exec %s -w 300 %s true",
			 extra_link, bin, lockfile[1 - i]);
		spawn(i, (char *const[]){ (char *)bin, "-w", "300", lockfile[i], DASH_BIN, "-c", cmd[i], NULL });
	}
	char held[2][256], waiting[2][256];
	for (int i = 0; i < 2; i++) /* each outer flock holds its file before either inner one asks */
		tl_locks_line(procs[i].pid, lockfile[i], false, held[i], sizeof(held[i]));
	FILE *go = fopen(extra_link, "w");
	cr_assert_not_null(go);
	fclose(go);
	pid_t in[2];
	for (int i = 0; i < 2; i++) {
		in[i] = only_child(procs[i].pid); /* dash, which execs flock */
		tl_locks_line(in[i], lockfile[1 - i], true, waiting[i], sizeof(waiting[i]));
		wait_in_syscall(in[i], in[i], 73);
	}
	int tid0 = signal_timer_id(in[0], 14), tid1 = signal_timer_id(in[1], 14);
	cr_assert(tid0 >= 0 && tid1 >= 0, "each inner flock -w has a SIGALRM POSIX timer (/proc/PID/timers)");
	cr_assert(status_mask(in[0], in[0], "SigCgt:") & (1ULL << 13), "flock -w catches SIGALRM");
	cr_assert(!(status_mask(in[0], in[0], "SigBlk:") & (1ULL << 13)), "and does not block it");

	struct lt_snapshot *s = take(in[0]);
	double since = tl_now_s() - t0;
	const struct lt_wf_edge *e = edge_of(s, in[0], LT_WF_FILE_LOCK);
	bool p_out = false, p_in = false;
	for (size_t k = 0; k < e->n_pids; k++) {
		p_out |= e->pids[k] == procs[1].pid;
		p_in |= e->pids[k] == in[1];
	}
	cr_expect(e->n_pids == 2 && p_out && p_in, "held by %d (/proc/locks: %s) and %d, which share the open file",
		  (int)procs[1].pid, held[1], (int)in[1]);
	const struct lt_wf_edge *te = edge_of(s, in[0], LT_WF_TIMER);
	char want[320];
	snprintf(want, sizeof(want), LT_WF_SIGTIMER "POSIX timer %d (timer_create, CLOCK_MONOTONIC, SIGALRM), %s", tid0,
		 known ? "armed by flock(1) -w 300 (inferred)" : "if it is armed");
	cr_expect(lt_wf_sigtimer(te), "a signal's timer: %s", te->what);
	cr_expect_str_eq(te->what, want);
	cr_expect(te->evidence && strstr(te->evidence, "SIGALRM is caught (SigCgt) and not blocked during flock") &&
		  strstr(te->evidence, "SA_RESTART"), "%s", te->evidence ? te->evidence : "?");
	if (known) {
		cr_expect_str_eq(te->timeout_what, "flock(1) -w");
		cr_expect(te->timeout_s > 299.999 && te->timeout_s < 300.001, "%.3f s", te->timeout_s);
		/* armed after the test started it, before the thread slept */
		cr_expect(te->timeout_left_s <= 300 && te->timeout_left_s >= 300 - since - 0.05,
			  "left %.3f s, %.3f s after the start", te->timeout_left_s, since);
		cr_expect(strstr(te->evidence, "inferred from util-linux flock(1)'s way"), "%s", te->evidence);
	} else {
		cr_expect(!te->timeout_what[0], "no timeout known: %s", te->timeout_what);
	}
	size_t ntimers = 0;
	const struct lt_thread *t = lt_snapshot_find(s, in[0]);
	for (size_t k = 0; k < t->wf->n_edges; k++)
		ntimers += t->wf->edges[k].kind == LT_WF_TIMER;
	cr_expect_eq(ntimers, 1, "one timer: no alarm said beside the SIGALRM POSIX timer");
	lt_snapshot_free(s);

	struct lt_multi_snapshot *m = follow(in[0]);
	const struct lt_verdict *dl = verdict_for(m, LT_VERDICT_DEADLOCK, in[0]);
	cr_assert_not_null(dl, "a deadlock (first: %s)", m->view.n_verdicts ? m->view.verdicts[0].summary : "-");
	cr_expect(dl->n_tids == 2 && has_tid(dl, in[1]), "the two inner flocks: %s", dl->summary);
	pid_t first = dl->tids[0], second = first == in[0] ? in[1] : in[0];
	if (known) {
		static const char pre[] = "deadlock until a timeout: 2 threads in 2 processes wait for each other: ";
		cr_expect(!strncmp(dl->summary, pre, sizeof(pre) - 1), "%s", dl->summary);
		cr_expect(strstr(dl->summary, "(flock) waits with a timeout (flock(1) -w 300.0 s: its timer interrupts "
					      "flock(1)'s flock(), which then gives up within ") &&
			  !strstr(dl->summary, "if it is armed"), "%s", dl->summary);
	} else {
		static const char pre[] = "deadlock unless a timer ends it: 2 threads in 2 processes wait for each other: ";
		cr_expect(!strncmp(dl->summary, pre, sizeof(pre) - 1), "%s", dl->summary);
		snprintf(want, sizeof(want), "; a timer may end the wait of thread %d (%s) first: the signal of POSIX "
			 "timer %d (timer_create, CLOCK_MONOTONIC, SIGALRM), if it is armed, would interrupt its flock() "
			 "(whether it is armed, when it fires,", (int)first, lt_snapshot_find(m->procs[0], in[0]) ?
			 lt_snapshot_find(m->procs[0], in[0])->comm : "?", first == in[0] ? tid0 : tid1);
		cr_expect(strstr(dl->summary, want), "%s in: %s", want, dl->summary);
		snprintf(want, sizeof(want), "; a timer may end that of thread %d (", (int)second);
		cr_expect(strstr(dl->summary, want), "%s in: %s", want, dl->summary);
	}
	for (int i = 0; i < 2; i++) {
		snprintf(want, sizeof(want), "%s by a timer, its lock call interrupted: timer: the signal of POSIX timer %d",
			 known ? "is let go" : "may be let go", i ? tid1 : tid0);
		cr_expect(tl_strlist_has(&dl->evidence, want), "evidence: %s", want);
	}
	for (size_t i = 0; i < m->view.n_verdicts; i++) {
		const struct lt_verdict *v = &m->view.verdicts[i];
		cr_expect(v->kind != LT_VERDICT_IDLE, "never IDLE: %s", v->summary);
		cr_expect(v->kind != LT_VERDICT_DEADLOCK || strstr(v->summary, known ? "until a timeout"
										     : "unless a timer ends it"),
			  "never a plain deadlock: %s", v->summary);
	}
	lt_multi_free(m);
	for (int i = 0; i < 2; i++) { /* the processes and the go file (BIN may be in extra_dir: kept) */
		tl_kill_tree(procs[i].pid);
		tl_close(&procs[i]);
	}
	unlink(extra_link);
	extra_link[0] = 0;

	/* a lone BIN -w behind a flock(1) without -w */
	char h[256], w[256];
	flock_holds_lockfile(NULL, NULL, h, sizeof(h));
	spawn(1, (char *const[]){ (char *)bin, "-w", "300", lockfile[0], "true", NULL });
	tl_locks_line(procs[1].pid, lockfile[0], true, w, sizeof(w));
	wait_in_syscall(procs[1].pid, procs[1].pid, 73);
	int tid = signal_timer_id(procs[1].pid, 14);
	cr_assert(tid >= 0, "flock -w's SIGALRM timer");
	cr_assert_lt(signal_timer_id(procs[0].pid, 14), 0, "the holder, without -w, has none");
	m = follow(procs[1].pid);
	const struct lt_verdict *lw = verdict_for(m, LT_VERDICT_LOCK_WAIT, procs[1].pid);
	cr_assert_not_null(lw, "a lock wait (first: %s)", m->view.n_verdicts ? m->view.verdicts[0].summary : "-");
	cr_expect_eq(lw->owner, procs[0].pid, "the holder /proc/locks names: %s", h);
	if (known)
		snprintf(want, sizeof(want), "; its timer (flock(1) -w 300.0 s) ends the wait within ");
	else
		snprintf(want, sizeof(want), "; a timer may end the wait first: the signal of POSIX timer %d (timer_create, "
			 "CLOCK_MONOTONIC, SIGALRM), if it is armed, would interrupt its flock()", tid);
	cr_expect(strstr(lw->summary, want), "%s in: %s", want, lw->summary);
	for (size_t i = 0; i < m->view.n_verdicts; i++)
		cr_expect(m->view.verdicts[i].kind != LT_VERDICT_IDLE && m->view.verdicts[i].kind != LT_VERDICT_DEADLOCK,
			  "%s", m->view.verdicts[i].summary);
	lt_multi_free(m);
}

Test(waitfor_live, flock_w_waits_are_a_deadlock_until_flock1s_timeout)
{
	flock_w_case(FLOCK_BIN, true);
}

/* The same program under another name: its timer's end is not known. */
Test(waitfor_live, flock_w_waits_of_an_unknown_program_are_a_deadlock_unless_their_timers_end_it)
{
	need_root();
	if (access(FLOCK_BIN, X_OK))
		cr_skip_test("%s missing (Debian: util-linux)", FLOCK_BIN);
	snprintf(extra_dir[0], sizeof(extra_dir[0]), "/tmp/lt-waitfor-%d-bin", (int)getpid());
	cr_assert_eq(mkdir(extra_dir[0], 0755), 0, "%s", strerror(errno));
	char copy[128], cmd[320];
	snprintf(copy, sizeof(copy), "%s/f", extra_dir[0]); /* cleanup removes DIR/f */
	snprintf(cmd, sizeof(cmd), "cp %s %s", FLOCK_BIN, copy);
	cr_assert_eq(system(cmd), 0, "%s", cmd);
	flock_w_case(copy, false);
}

/* python3 catches SIGALRM, arms alarm(300) and waits in flock() for the
 * lock a flock(1) holds: no POSIX timer (/proc/PID/timers lists none), so
 * the alarm, which /proc does not show, is a timer edge "if one is armed";
 * the lock wait, held by the flock(1), says it may end by it first. */
#define ALARM_FLOCK_PY                                                          \
	"import fcntl, signal, sys\n"                                            \
	"signal.signal(signal.SIGALRM, lambda *a: None)\n"                       \
	"signal.alarm(300)\n"                                                    \
	"f = open(sys.argv[1], 'w')\n"                                           \
	"print('ready', flush=True)\n"                                           \
	"fcntl.flock(f, fcntl.LOCK_EX)\n"

Test(waitfor_live, a_flock_wait_with_sigalrm_caught_may_end_by_an_alarm)
{
	char held[256], waiting[256];
	flock_holds_lockfile(TL_PYTHON, "python3", held, sizeof(held));
	tl_start_ready(&procs[1], (char *const[]){ TL_PYTHON, "-c", (char *)ALARM_FLOCK_PY, lockfile[0], NULL }, lines[1],
		       &nlines[1], 64, 30000);
	pid_t py = procs[1].pid;
	tl_locks_line(py, lockfile[0], true, waiting, sizeof(waiting));
	wait_in_syscall(py, py, 73);
	cr_assert(status_mask(py, py, "SigCgt:") & (1ULL << 13), "python catches SIGALRM");
	cr_assert_lt(signal_timer_id(py, 14), 0, "no POSIX timer: alarm() shows nowhere");
	struct lt_snapshot *s = take(py);
	const struct lt_wf_edge *e = edge_of(s, py, LT_WF_FILE_LOCK);
	cr_expect(e->n_pids >= 1 && e->pids[0] == procs[0].pid, "held by %d: %s", (int)procs[0].pid, held);
	const struct lt_wf_edge *te = edge_of(s, py, LT_WF_TIMER);
	cr_expect(lt_wf_sigtimer(te), "%s", te->what);
	cr_expect_str_eq(te->what, LT_WF_SIGTIMER "an alarm() or setitimer(ITIMER_REAL) timer (SIGALRM), if one is armed");
	cr_expect(te->evidence && strstr(te->evidence, "/proc does not show whether such a timer is armed") &&
		  strstr(te->evidence, "SA_RESTART"), "%s", te->evidence ? te->evidence : "?");
	lt_snapshot_free(s);

	struct lt_multi_snapshot *m = follow(py);
	const struct lt_verdict *lw = verdict_for(m, LT_VERDICT_LOCK_WAIT, py);
	cr_assert_not_null(lw, "a lock wait (first: %s)", m->view.n_verdicts ? m->view.verdicts[0].summary : "-");
	cr_expect_eq(lw->owner, procs[0].pid);
	cr_expect(strstr(lw->summary, "; a timer may end the wait first: the signal of an alarm() or setitimer(ITIMER_REAL) "
				      "timer (SIGALRM), if one is armed, would interrupt its flock() (whether one is "
				      "armed,"), "%s", lw->summary);
	for (size_t i = 0; i < m->view.n_verdicts; i++)
		cr_expect(m->view.verdicts[i].kind != LT_VERDICT_IDLE, "%s", m->view.verdicts[i].summary);
	lt_multi_free(m);
}

/* dash's `wait` builtin (Debian's /bin/sh) waits in rt_sigsuspend, not in
 * wait4 as bash's does: followed the same way into its background
 * flock(1) and that lock's holder. */
Test(waitfor_live, dash_wait_builtin_in_sigsuspend_is_followed_to_its_childs_lock_holder)
{
	char held[256], waiting[256];
	flock_holds_lockfile(DASH_BIN, "dash", held, sizeof(held));
	char cmd[200];
	snprintf(cmd, sizeof(cmd), "%s %s true & wait", FLOCK_BIN, lockfile[0]);
	spawn(1, (char *const[]){ DASH_BIN, "-c", cmd, NULL });
	pid_t sh = procs[1].pid, ch = only_child(sh);
	tl_locks_line(ch, lockfile[0], true, waiting, sizeof(waiting));
	wait_in_syscall(sh, sh, 130); /* dash's wait: rt_sigsuspend */

	struct lt_multi_snapshot *m = follow(sh);
	cr_assert_eq(m->n_procs, 2, "followed from dash into its child");
	cr_expect_eq(m->procs[1]->pid, ch);
	const struct lt_verdict *lw = verdict_for(m, LT_VERDICT_LOCK_WAIT, ch);
	cr_assert_not_null(lw, "the child's lock wait (first: %s)", m->view.n_verdicts ? m->view.verdicts[0].summary : "-");
	cr_expect_eq(lw->owner, procs[0].pid, "holder from /proc/locks: %s", held);
	const struct lt_verdict *wc = verdict_for(m, LT_VERDICT_WAIT_CHAIN, sh);
	cr_assert_not_null(wc, "dash's wait chain");
	char into[64];
	snprintf(into, sizeof(into), "waits for process %d, whose thread %d (flock)", (int)ch, (int)ch);
	cr_expect(strstr(wc->summary, into) && strstr(wc->summary, "in a lock wait"), "%s", wc->summary);
	cr_expect(!strstr(wc->summary, "or by a timer"), "dash has no timer: %s", wc->summary);
	lt_multi_free(m);
}

/* flock(1) holds lock 1 and runs dash, whose `wait` (rt_sigsuspend)
 * waits for a background flock(1) that waits for lock 2, held by another
 * flock(1).  A waiter for lock 1 finds its holders (the outer flock(1),
 * dash, the inner flock(1), which share the open file) blocked: dash is
 * judged by its child, as a wait4 is, not "in an event wait (idle)". */
Test(waitfor_live, a_lock_holder_in_dash_wait_is_judged_by_its_child)
{
	need_root();
	if (access(FLOCK_BIN, X_OK) || access(DASH_BIN, X_OK))
		cr_skip_test("%s or %s missing (Debian: util-linux, dash)", FLOCK_BIN, DASH_BIN);
	tmp_lockfile(0);
	tmp_lockfile(1);
	spawn(0, (char *const[]){ FLOCK_BIN, lockfile[1], "-c", "sleep 600", NULL });
	char held[256], waiting[256];
	tl_locks_line(procs[0].pid, lockfile[1], false, held, sizeof(held));
	char cmd[200];
	snprintf(cmd, sizeof(cmd), "%s %s true & wait", FLOCK_BIN, lockfile[1]);
	spawn(1, (char *const[]){ FLOCK_BIN, lockfile[0], DASH_BIN, "-c", cmd, NULL });
	pid_t outer = procs[1].pid, sh = only_child(outer), inner = only_child(sh);
	tl_locks_line(inner, lockfile[1], true, waiting, sizeof(waiting));
	wait_in_syscall(sh, sh, 130);
	spawn(2, (char *const[]){ FLOCK_BIN, lockfile[0], "true", NULL });
	tl_locks_line(procs[2].pid, lockfile[0], true, waiting, sizeof(waiting));

	struct lt_snapshot *s = take(procs[2].pid);
	const struct lt_wf_edge *e = edge_of(s, procs[2].pid, LT_WF_FILE_LOCK);
	cr_expect_eq(e->pstate, LT_WFP_BLOCKED, "the holders are blocked: %s", e->doing ? e->doing : "?");
	char dash_line[80];
	snprintf(dash_line, sizeof(dash_line), "%d (dash): rt_sigsuspend, waiting for its child %d (flock)", (int)sh,
		 (int)inner);
	cr_expect(e->doing && strstr(e->doing, dash_line), "%s in: %s", dash_line, e->doing ? e->doing : "?");
	lt_snapshot_free(s);
}

static const char POPEN_PY[] =
	"import subprocess\n"
	"p = subprocess.Popen(['sleep', '600'])\n"
	"print('child pid=%d' % p.pid, flush=True)\n"
	"print('ready', flush=True)\n"
	"p.wait()\n";

/* python3's Popen.wait: wait4 on the child it prints, which sleeps on a
 * timer: a child edge naming it, and IDLE saying so. */
Test(waitfor_live, python_popen_wait_names_the_child)
{
	start_py(POPEN_PY);
	pid_t p = procs[0].pid;
	pid_t ch = (pid_t)tl_truth_val(lines[0], nlines[0], "child", NULL, "pid");
	wait_in_syscall(p, p, 61);
	char comm[32] = "";
	char path[64];
	snprintf(path, sizeof(path), "/proc/%d/comm", (int)ch);
	for (double t0 = tl_now_s(); tl_now_s() - t0 < 10 && strcmp(comm, "sleep\n"); usleep(20000)) {
		FILE *f = fopen(path, "r");
		if (f && !fgets(comm, sizeof(comm), f))
			comm[0] = 0;
		if (f)
			fclose(f);
	}
	cr_assert_str_eq(comm, "sleep\n", "the child %d exec'd sleep", (int)ch);
	wait_in_syscall(ch, ch, 230); /* clock_nanosleep */

	struct lt_snapshot *s = take(p);
	const struct lt_wf_edge *e = edge_of(s, p, LT_WF_CHILD);
	cr_assert_eq(e->n_pids, 1);
	cr_expect_eq(e->pids[0], ch, "the child python printed");
	cr_expect_eq(e->pstate, LT_WFP_TIMED, "the child sleeps on a timer");
	cr_expect(strstr(e->what, "child"), "%s", e->what);
	cr_assert(s->n_verdicts > 0);
	cr_expect_eq(s->verdicts[0].kind, LT_VERDICT_IDLE, "%s", s->verdicts[0].summary);
	char who[32];
	snprintf(who, sizeof(who), "child %d [", (int)ch);
	cr_expect(tl_strlist_has(&s->verdicts[0].evidence, who), "IDLE names the child %d", (int)ch);
	lt_snapshot_free(s);
}

static const char FULLPIPE_PY[] =
	"import os, time\n"
	"r, w = os.pipe()\n"
	"pid = os.fork()\n"
	"if pid == 0:\n"
	"    os.close(w); time.sleep(600); os._exit(0)\n"
	"os.close(r)\n"
	"print('reader pid=%d' % pid, flush=True)\n"
	"print('ready', flush=True)\n"
	"os.write(w, b'x' * (1 << 20))\n";

/* Item 2: a writer blocked on a full pipe waits for the readers: the
 * forked child that holds the only read end (it prints no line: the
 * parent prints its pid), asleep on a timer. */
Test(waitfor_live, writer_on_a_full_pipe_names_the_reader)
{
	start_py(FULLPIPE_PY);
	pid_t p = procs[0].pid;
	pid_t rd = (pid_t)tl_truth_val(lines[0], nlines[0], "reader", NULL, "pid");
	wait_in_syscall(p, p, 1); /* write */
	wait_in_syscall(rd, rd, 230);

	struct lt_snapshot *s = take(p);
	const struct lt_wf_edge *e = edge_of(s, p, LT_WF_PIPE_WRITE);
	cr_assert_eq(e->n_pids, 1, "one reader");
	cr_expect_eq(e->pids[0], rd, "the reader %d", (int)rd);
	cr_expect_eq(e->pstate, LT_WFP_TIMED, "the reader sleeps on a timer");
	cr_assert(s->n_verdicts > 0);
	cr_expect_eq(s->verdicts[0].kind, LT_VERDICT_IDLE, "%s", s->verdicts[0].summary);
	char who[32];
	snprintf(who, sizeof(who), "read by %d", (int)rd);
	cr_expect(tl_strlist_has(&s->verdicts[0].evidence, who), "IDLE names the reader %d", (int)rd);
	lt_snapshot_free(s);
}

static const char STOPPEDREADER_PY[] =
	"import os, signal, time\n"
	"r, w = os.pipe()\n"
	"pid = os.fork()\n"
	"if pid == 0:\n"
	"    os.dup2(r, 0); os.close(r); os.close(w)\n"
	"    os.dup2(os.open('/dev/null', os.O_WRONLY), 1)\n"
	"    os.execv('/bin/cat', ['cat'])\n"
	"os.close(r)\n"
	"def sc():\n"
	"    with open('/proc/%d/syscall' % pid) as f: return f.read().split()[0]\n"
	"while sc() != '0': time.sleep(0.01)\n" /* cat asleep in read() */
	"os.kill(pid, signal.SIGSTOP)\n"
	"while open('/proc/%d/stat' % pid).read().rsplit(')', 1)[1].split()[0] != 'T': time.sleep(0.01)\n"
	"print('reader pid=%d' % pid, flush=True)\n"
	"print('ready', flush=True)\n"
	"os.write(w, b'x' * (1 << 20))\n";

/* A pipeline's reader stopped (Ctrl-Z, SIGSTOP) while asleep in read() on
 * the empty pipe; its writer then fills the pipe and blocks.  The reader's
 * read has its data (it runs on at SIGCONT): no deadlock of the two, but
 * the writer's chain ending at the stopped reader, the stop counted among
 * the reader's own threads. */
Test(waitfor_live, a_reader_stopped_in_read_makes_no_deadlock_with_its_writer)
{
	start_py(STOPPEDREADER_PY);
	pid_t w = procs[0].pid;
	pid_t rd = (pid_t)tl_truth_val(lines[0], nlines[0], "reader", NULL, "pid");
	wait_in_syscall(w, w, 1); /* write, the pipe full */
	struct lt_multi_snapshot *m = follow(w);
	bool stopped = false, chain = false;
	char want[64];
	snprintf(want, sizeof(want), "1 of 1 threads of process %d (cat) are stopped", (int)rd);
	for (size_t i = 0; i < m->view.n_verdicts; i++) {
		const struct lt_verdict *v = &m->view.verdicts[i];
		cr_log_info("%s", v->summary);
		cr_expect_neq(v->kind, LT_VERDICT_DEADLOCK, "%s", v->summary);
		stopped |= v->kind == LT_VERDICT_STOPPED && strstr(v->summary, want) && has_tid(v, rd);
		chain |= v->kind == LT_VERDICT_WAIT_CHAIN && has_tid(v, w) && !has_tid(v, rd);
	}
	cr_expect(stopped, "no STOPPED verdict says: %s", want);
	cr_expect(chain, "no wait chain of the writer %d (and of it alone)", (int)w);
	lt_multi_free(m);
}

/* A process a debugger attached to and left stopped at its prompt (state
 * t): the STOPPED verdict names the tracer (TracerPid) and what it does,
 * gdb reading its commands: idle, so the process runs again only when
 * someone tells gdb to go on.  Before, "stopped by a tracer" named none. */
Test(waitfor_live, a_process_stopped_by_gdb_names_gdb_as_its_tracer)
{
	need_root();
	if (access(GDB_BIN, X_OK))
		cr_skip_test("%s missing (Debian: gdb)", GDB_BIN);
	spawn(0, (char *const[]){ "/bin/sleep", "600", NULL });
	pid_t target = procs[0].pid;
	char pidstr[16];
	snprintf(pidstr, sizeof(pidstr), "%d", (int)target);
	/* commands from a pipe left open: it waits at its prompt */
	pid_t gdb = start_tracer(GDB_BIN, "gdb", (char *const[]){ GDB_BIN, "-q", "-nx", "-p", pidstr, NULL });
	tl_wait_in_call(gdb, gdb, 7, 60000); /* poll: at its prompt, the attach done */
	struct lt_snapshot *s = take(target);
	const struct lt_thread *t = lt_snapshot_find(s, target);
	cr_assert_not_null(t);
	cr_assert_eq(t->state, 't', "stopped by the attach: state %c", t->state);
	cr_assert_not_null(t->wf);
	cr_expect_eq(t->wf->tracer, gdb);
	cr_expect_eq(t->wf->tracer_st, LT_WFP_EVENTS, "%s", lt_wf_pstate_name(t->wf->tracer_st));
	char want[96];
	snprintf(want, sizeof(want), "stopped by a tracer, process %d (gdb), which is in an event wait", (int)gdb);
	const struct lt_verdict *v = NULL;
	for (size_t i = 0; i < s->n_verdicts && !v; i++)
		if (s->verdicts[i].kind == LT_VERDICT_STOPPED)
			v = &s->verdicts[i];
	cr_assert_not_null(v, "a STOPPED verdict");
	cr_expect(strstr(v->summary, want), "%s", v->summary);

	/* stored in a recording as JSON, read back the same */
	size_t len = 0;
	char *json = TL_PRINTED(&len, lt_snapshot_print_json, s);
	struct lt_snapshot *back = NULL;
	char err[200];
	cr_assert_eq(lt_snapshot_from_json(json, len, &back, err, sizeof(err)), 0, "%s", err);
	const struct lt_thread *b = lt_snapshot_find(back, target);
	cr_assert(b && b->wf);
	cr_expect_eq(b->wf->tracer, gdb);
	cr_expect_eq(b->wf->tracer_st, LT_WFP_EVENTS);
	cr_expect_str_eq(b->wf->tracer_doing, t->wf->tracer_doing);
	lt_snapshot_free(back);
	free(json);
	lt_snapshot_free(s);
}

/* strace -p sits in wait4(-1, __WALL) for its tracee's next stop; the
 * tracee is no child of its, so the wait had no party ("no such child
 * found": IDLE, an unknown party).  Its tracees (their TracerPid) are the
 * parties: strace attached to a flock(1) waiting for a lock is a wait
 * chain into it; attached to sleep(1), it waits on a timer's end. */
static void strace_case(bool blocked)
{
	char held[256], waiting[256];
	if (blocked) {
		flock_holds_lockfile(STRACE_BIN, "strace", held, sizeof(held));
		spawn(2, (char *const[]){ FLOCK_BIN, lockfile[0], "true", NULL });
		tl_locks_line(procs[2].pid, lockfile[0], true, waiting, sizeof(waiting));
	} else {
		need_root();
		if (access(STRACE_BIN, X_OK))
			cr_skip_test("%s missing (Debian: strace)", STRACE_BIN);
		spawn(2, (char *const[]){ "/bin/sleep", "600", NULL });
		tl_wait_in_call(procs[2].pid, procs[2].pid, 230, 10000); /* clock_nanosleep */
	}
	pid_t target = procs[2].pid;
	char pidstr[16];
	snprintf(pidstr, sizeof(pidstr), "%d", (int)target);
	pid_t st = start_tracer(STRACE_BIN, "strace", (char *const[]){ STRACE_BIN, "-o", "/dev/null", "-p", pidstr, NULL });
	/* strace in wait4 when the snapshot reads it: it runs a moment at its
	 * attach and at each of the tracee's stops (a sleep's restart); and
	 * at its start it forks children of its own to test what ptrace can
	 * do, each waited for by its pid (a CI run caught it in
	 * "wait4(pid 4086)"): its wait for the tracee is wait4(-1) */
	struct lt_multi_snapshot *m = NULL;
	for (double t0 = tl_now_s(); tl_now_s() - t0 < 10; usleep(20000)) {
		tl_wait_in_call(st, st, 61, 10000); /* wait4: attached, waiting */
		if (m)
			lt_multi_free(m);
		m = follow(st);
		const struct lt_thread *t = lt_snapshot_find(m->procs[0], st);
		if (t && t->sc.state == LT_SC_IN_SYSCALL && t->sc.nr == 61 && t->state == 'S' &&
		    (int)t->sc.args[0] == -1)
			break;
	}
	const struct lt_wf_edge *e = edge_of(m->procs[0], st, LT_WF_TRACEE);
	cr_assert_eq(e->n_pids, 1, "%s", e->what);
	cr_expect_eq(e->pids[0], target, "%s", e->what);
	cr_expect_eq(e->pstate, blocked ? LT_WFP_BLOCKED : LT_WFP_TIMED, "%s", lt_wf_pstate_name(e->pstate));
	const struct lt_verdict *chain = NULL;
	for (size_t i = 0; i < m->view.n_verdicts; i++) {
		const struct lt_verdict *v = &m->view.verdicts[i];
		if (v->kind == LT_VERDICT_WAIT_CHAIN && has_tid(v, st))
			chain = v;
		cr_expect_neq(v->kind, LT_VERDICT_DEADLOCK, "%s", v->summary);
	}
	if (blocked) {
		cr_assert_not_null(chain, "a wait chain of strace %d into its tracee", (int)st);
		char want[64];
		snprintf(want, sizeof(want), "wait4() waits for process %d", (int)target);
		cr_expect(strstr(chain->summary, want), "%s", chain->summary);
	} else {
		cr_expect_null(chain, "%s", chain ? chain->summary : "");
	}
	lt_multi_free(m);
}

Test(waitfor_live, strace_p_waits_for_its_tracee_blocked_on_a_lock)
{
	strace_case(true);
}

Test(waitfor_live, strace_p_on_a_sleep_is_no_chain)
{
	strace_case(false);
}

/* A poll with no timeout, stopped and continued, resumes in
 * restart_syscall: decoded as the poll it resumes (its registers still
 * hold its arguments), its fds followed, no timer (before, "a timed call
 * ... resumed after a stop" and a timer edge, and a party asleep on a
 * timer to whoever waited for its process). */
Test(waitfor_live, a_poll_with_no_timeout_resumed_after_a_stop_has_no_timer)
{
	start_py("import os, select\n"
		 "r, w = os.pipe()\n"
		 "p = select.poll(); p.register(r, select.POLLIN)\n"
		 "print('ready', flush=True)\n"
		 "p.poll()\n");
	pid_t pid = procs[0].pid;
	tl_wait_in_call(pid, pid, 7, 10000); /* poll */
	cr_assert_eq(kill(pid, SIGSTOP), 0);
	char st[512] = "";
	for (double t0 = tl_now_s(); tl_now_s() - t0 < 10 && !strstr(st, "State:\tT"); usleep(10000)) {
		char path[64];
		snprintf(path, sizeof(path), "/proc/%d/status", (int)pid);
		if (lts_read_small(path, st, sizeof(st)) < 0)
			st[0] = 0;
	}
	cr_assert(strstr(st, "State:\tT"), "stopped");
	cr_assert_eq(kill(pid, SIGCONT), 0);
	tl_wait_in_call(pid, pid, 219, 10000); /* restart_syscall */
	struct lt_snapshot *s = take(pid);
	const struct lt_thread *t = lt_snapshot_find(s, pid);
	cr_assert_not_null(t);
	cr_expect(t->detail && strstr(t->detail, "resumed after a stop (restart_syscall"), "%s",
		  t->detail ? t->detail : "-");
	cr_expect(t->sc_resumed && t->sc.nr == 7 && t->wait == LT_WAIT_POLL, "decoded as the poll: nr %ld",
		  t->sc.nr);
	cr_expect_eq(t->fdw.n_fds, 1, "the poll's one fd, the pipe (%s)", t->detail ? t->detail : "-");
	const struct lt_wf_edge *e = edge_of(s, pid, LT_WF_PIPE_READ);
	cr_expect(e->n_pids == 1 && e->pids[0] == pid, "%s", e->what);
	for (size_t k = 0; t->wf && k < t->wf->n_edges; k++)
		cr_expect_neq(t->wf->edges[k].kind, LT_WF_TIMER, "no timer: %s", t->wf->edges[k].what);
	lt_snapshot_free(s);
}

/* make -j2 whose sub-make waits in pselect6 for a job token, while its
 * two jobs (flock(1)) wait for a lock held elsewhere: the sub-make's
 * pipe is written by its parent make, which waits for the sub-make, but
 * pselect6's mask lets SIGCHLD in, so its jobs' exits end its wait too.
 * Its children are parties (a wait chain into their lock waits), and no
 * deadlock of the two makes is claimed (before: "DEADLOCK: 2 threads in 2
 * processes wait for each other: make -> make", which the lock's release
 * proved false). */
Test(waitfor_live, make_j_waiting_for_a_job_token_is_no_deadlock_of_its_makes)
{
	char held[256], waiting[256];
	flock_holds_lockfile(MAKE_BIN, "make", held, sizeof(held));
	snprintf(extra_link, sizeof(extra_link), "/tmp/lt-waitfor-%d.mk", (int)getpid());
	FILE *f = fopen(extra_link, "w");
	cr_assert_not_null(f, "%s: %s", extra_link, strerror(errno));
	fprintf(f, "ifeq ($(SUB),)\nall:\n\t$(MAKE) -s -f %s SUB=1\nelse\nall: x y z\nx y:\n\t%s %s true\n"
		"z:\n\ttrue\nendif\n", extra_link, FLOCK_BIN, lockfile[0]);
	cr_assert_eq(fclose(f), 0);
	spawn(1, (char *const[]){ MAKE_BIN, "-s", "-j2", "-f", extra_link, NULL });
	pid_t sub = only_child(procs[1].pid);
	pid_t jobs[2] = { 0, 0 };
	char path[96];
	snprintf(path, sizeof(path), "/proc/%d/task/%d/children", (int)sub, (int)sub);
	for (double t0 = tl_now_s(); tl_now_s() - t0 < 10 && !jobs[1]; usleep(20000)) {
		FILE *c = fopen(path, "r");
		int a = 0, b = 0;
		if (c && fscanf(c, "%d %d", &a, &b) == 2) {
			jobs[0] = a;
			jobs[1] = b;
		}
		if (c)
			fclose(c);
	}
	cr_assert(jobs[1] > 0, "the sub-make %d started its two jobs", (int)sub);
	for (int i = 0; i < 2; i++)
		tl_locks_line(jobs[i], lockfile[0], true, waiting, sizeof(waiting));
	tl_wait_in_call(sub, sub, 270, 10000); /* pselect6 */
	struct lt_multi_snapshot *m = follow(sub);
	const struct lt_wf_edge *e = edge_of(m->procs[0], sub, LT_WF_CHILD);
	cr_assert_eq(e->n_pids, 2, "%s", e->what);
	for (int i = 0; i < 2; i++)
		cr_expect(e->pids[0] == jobs[i] || e->pids[1] == jobs[i], "job %d among %d, %d", (int)jobs[i],
			  (int)e->pids[0], (int)e->pids[1]);
	cr_expect(strstr(e->evidence, "not blocked during pselect6 (the mask the call passed"), "%s", e->evidence);
	size_t lock_waits = 0;
	for (size_t i = 0; i < m->view.n_verdicts; i++) {
		const struct lt_verdict *v = &m->view.verdicts[i];
		cr_expect_neq(v->kind, LT_VERDICT_DEADLOCK, "%s", v->summary);
		lock_waits += v->kind == LT_VERDICT_LOCK_WAIT && (has_tid(v, jobs[0]) || has_tid(v, jobs[1]));
	}
	cr_expect_eq(lock_waits, 2, "each job's lock wait");
	lt_multi_free(m);
}

/* A FIFO its reader opened read-write (bash's `exec 3<>fifo; read -u 3`)
 * waits for whoever opens the FIFO by its path to write it: no leaked
 * write end (before: "a leaked write end (not closed after fork?) keeps
 * the pipe open"), no chain, its holders said to be more than its own. */
Test(waitfor_live, a_fifo_its_reader_holds_open_read_write_is_no_leak)
{
	need_root();
	snprintf(extra_link, sizeof(extra_link), "/tmp/lt-waitfor-%d.fifo", (int)getpid());
	cr_assert_eq(mkfifo(extra_link, 0600), 0, "mkfifo %s: %s", extra_link, strerror(errno));
	char cmd[160];
	snprintf(cmd, sizeof(cmd), "exec 3<>%s; read -u 3 line", extra_link);
	spawn(0, (char *const[]){ "/bin/bash", "-c", cmd, NULL });
	pid_t pid = procs[0].pid;
	tl_wait_in_call(pid, pid, 0, 10000); /* read */
	struct lt_multi_snapshot *m = follow(pid);
	const struct lt_wf_edge *e = edge_of(m->procs[0], pid, LT_WF_PIPE_READ);
	cr_expect(e->n_pids == 1 && e->pids[0] == pid && e->more_pids, "%s: %s", e->what, e->evidence);
	for (size_t i = 0; i < m->view.n_verdicts; i++) {
		const struct lt_verdict *v = &m->view.verdicts[i];
		cr_expect(v->kind != LT_VERDICT_WAIT_CHAIN && v->kind != LT_VERDICT_DEADLOCK, "%s", v->summary);
		cr_expect_null(strstr(v->summary, "leaked"), "%s", v->summary);
	}
	lt_multi_free(m);
}

/* A multiprocessing.Lock held by a worker: while the worker lives (it
 * maps the lock's memory), the waiter's holder may be it; once it was
 * killed holding it, no live process but the waiter's maps the lock and
 * every thread of the waiter's waits for it: none can release it, said so
 * (before: only "whose holder is not recorded"), and that only a signal
 * could still end it (CPython catches SIGINT): unknown. */
Test(waitfor_live, a_multiprocessing_lock_whose_holder_was_killed_is_said_unreleasable)
{
	start_py("import multiprocessing as mp, sys, time\n"
		 "def hold(l):\n"
		 "    l.acquire(); time.sleep(600)\n"
		 "l = mp.Lock(); p = mp.Process(target=hold, args=(l,)); p.start()\n"
		 "while l.acquire(timeout=0.01): l.release()\n" /* until the worker holds it */
		 "print('worker pid=%d' % p.pid, flush=True)\n"
		 "print('ready', flush=True)\n"
		 "sys.stdin.readline()\n"
		 "l.acquire()\n");
	pid_t pid = procs[0].pid, worker = (pid_t)tl_truth_val(lines[0], nlines[0], "worker", NULL, "pid");
	cr_assert_gt(worker, 0);
	orphan = worker;
	for (int killed = 0; killed < 2; killed++) {
		if (killed) { /* a second run: the worker killed first */
			tl_kill_tree(pid);
			tl_close(&procs[0]);
			nlines[0] = 0;
			start_py("import multiprocessing as mp, os, signal, time\n"
				 "def hold(l):\n"
				 "    l.acquire(); time.sleep(600)\n"
				 "l = mp.Lock(); p = mp.Process(target=hold, args=(l,)); p.start()\n"
				 "while l.acquire(timeout=0.01): l.release()\n"
				 "os.kill(p.pid, signal.SIGKILL); p.join()\n"
				 "print('ready', flush=True)\n"
				 "l.acquire()\n");
			pid = procs[0].pid;
		} else {
			cr_assert_eq(write(procs[0].in_fd, "\n", 1), 1);
		}
		tl_wait_in_call(pid, pid, 202, 10000); /* futex */
		struct lt_snapshot *s = take(pid);
		const struct lt_verdict *v = NULL;
		/* killed: unknown, since CPython catches SIGINT (KeyboardInterrupt,
		 * or a handler of the program's, which is not read) */
		enum lt_verdict_kind want = killed ? LT_VERDICT_UNKNOWN : LT_VERDICT_LOCK_WAIT;
		for (size_t i = 0; i < s->n_verdicts && !v; i++)
			if (s->verdicts[i].kind == want && has_tid(&s->verdicts[i], pid))
				v = &s->verdicts[i];
		cr_assert_not_null(v, "%s: the main thread's lock wait (first: %s)", killed ? "killed" : "alive",
				   s->n_verdicts ? s->verdicts[0].summary : "-");
		if (killed)
			cr_expect(strstr(v->summary, "none can release it: no other live process maps it") &&
				  strstr(v->summary, "; only a signal could still end it: the process catches SIGINT (a "
					 "handler may post it; CPython's own SIGINT handler raises KeyboardInterrupt in "
					 "the main thread): hung, or waiting for that signal"), "%s", v->summary);
		else
			cr_expect_null(strstr(v->summary, "none can release it"), "%s", v->summary);
		lt_snapshot_free(s);
	}
}

static const char WAITSEL_PY[] =
	"import os, subprocess, sys\n"
	"own = subprocess.Popen(['sleep', '600'], process_group=0)\n" /* its own group */
	"grp = subprocess.Popen(['sleep', '600'])\n"                  /* in ours */
	"print('child role=own pid=%d' % own.pid, flush=True)\n"
	"print('child role=grp pid=%d' % grp.pid, flush=True)\n"
	"print('ready', flush=True)\n"
	"m = sys.argv[1]\n"
	"if m == 'pid': os.waitpid(own.pid, 0)\n"
	"elif m == 'pgrp': os.waitpid(0, 0)\n"
	"elif m == 'pidfd': os.waitid(os.P_PIDFD, os.pidfd_open(own.pid), os.WEXITED)\n";

/* The children a wait selects: wait4(pid) that child, wait4(0) those of
 * the caller's process group only (not the one python put in a group of
 * its own), waitid(P_PIDFD) the process of the pidfd (its fdinfo). */
Test(waitfor_live, wait_names_only_the_children_it_selects)
{
	need_root();
	if (access(TL_PYTHON, X_OK))
		cr_skip_test("%s missing", TL_PYTHON);
	static const struct {
		const char *mode;
		long nr;
		const char *role;
		const char *what;
	} cases[] = {
		{ "pid", 61, "role=own", "child " },
		{ "pgrp", 61, "role=grp", "any child of process group " },
		{ "pidfd", 247, "role=own", "child " },
	};
	for (size_t c = 0; c < sizeof(cases) / sizeof(cases[0]); c++) {
		nlines[0] = 0;
		tl_start_ready(&procs[0], (char *const[]){ TL_PYTHON, "-c", (char *)WAITSEL_PY, (char *)cases[c].mode, NULL },
			       lines[0], &nlines[0], 64, 30000);
		pid_t p = procs[0].pid;
		pid_t want = (pid_t)tl_truth_val(lines[0], nlines[0], "child", cases[c].role, "pid");
		wait_in_syscall(p, p, cases[c].nr);
		struct lt_snapshot *s = take(p);
		const struct lt_wf_edge *e = edge_of(s, p, LT_WF_CHILD);
		cr_expect_eq(e->n_pids, 1, "%s: one child of the two (%s)", cases[c].mode, e->what);
		cr_expect_eq(e->pids[0], want, "%s: the child %s %d", cases[c].mode, cases[c].role, (int)want);
		cr_expect(strstr(e->what, cases[c].what), "%s: %s", cases[c].mode, e->what);
		lt_snapshot_free(s);
		tl_kill_tree(p);
		tl_close(&procs[0]);
		procs[0].pid = 0;
	}
}

/* flock(1) takes the lock and runs its command, which inherits the locked
 * open file; flock is killed: /proc/locks still names it (the lock belongs
 * to the open file, not to a process), but the command keeps the lock.
 * The waiter's holder is the command, and the dead locker is said. */
Test(waitfor_live, flock_kept_by_the_command_after_the_locker_exited)
{
	need_root();
	if (access(FLOCK_BIN, X_OK))
		cr_skip_test("%s missing (Debian: util-linux)", FLOCK_BIN);
	tmp_lockfile(0);
	spawn(0, (char *const[]){ FLOCK_BIN, lockfile[0], "-c", "exec sleep 600", NULL });
	char held[256], waiting[256];
	tl_locks_line(procs[0].pid, lockfile[0], false, held, sizeof(held));
	pid_t locker = procs[0].pid;
	orphan = only_child(locker);
	wait_in_syscall(orphan, orphan, 230); /* the command is sleep now */
	tl_kill(&procs[0]);
	char path[64];
	snprintf(path, sizeof(path), "/proc/%d", (int)locker);
	for (double t0 = tl_now_s(); tl_now_s() - t0 < 10 && access(path, F_OK) == 0;)
		usleep(20000);
	cr_assert_neq(access(path, F_OK), 0, "the locker %d exited", (int)locker);
	tl_locks_line(locker, lockfile[0], false, held, sizeof(held)); /* still named there */
	spawn(1, (char *const[]){ FLOCK_BIN, lockfile[0], "-c", "true", NULL });
	tl_locks_line(procs[1].pid, lockfile[0], true, waiting, sizeof(waiting));

	struct lt_snapshot *s = take(procs[1].pid);
	const struct lt_wf_edge *e = edge_of(s, procs[1].pid, LT_WF_FILE_LOCK);
	cr_assert_eq(e->n_pids, 1, "one holder: the command (/proc/locks: %s)", held);
	cr_expect_eq(e->pids[0], orphan, "the command %d keeps the lock", (int)orphan);
	cr_expect_eq(e->pstate, LT_WFP_TIMED, "it sleeps");
	char said[64];
	snprintf(said, sizeof(said), "the locker /proc/locks names (%d) has exited", (int)locker);
	cr_expect(e->evidence && strstr(e->evidence, said), "%s", e->evidence ? e->evidence : "(none)");
	cr_assert(s->n_verdicts > 0);
	cr_expect_eq(s->verdicts[0].kind, LT_VERDICT_LOCK_WAIT, "%s", s->verdicts[0].summary);
	cr_expect_eq(s->verdicts[0].owner, orphan, "%s", s->verdicts[0].summary);
	lt_snapshot_free(s);
}

/* The same through a hard link: the locker took the lock through another
 * name of the file, and exited; the waiter asks through the first name.
 * The command that shares the locker's open file is found by the file's
 * device and inode (stat of /proc/PID/fd/N), not its path: before, nobody
 * had "the path" open and the exited locker was named, "[gone]". */
Test(waitfor_live, flock_through_a_hard_link_names_the_live_holder_not_the_exited_locker)
{
	need_root();
	if (access(FLOCK_BIN, X_OK))
		cr_skip_test("%s missing (Debian: util-linux)", FLOCK_BIN);
	tmp_lockfile(0);
	snprintf(extra_link, sizeof(extra_link), "%s.hard", lockfile[0]);
	cr_assert_eq(link(lockfile[0], extra_link), 0, "link: %s", strerror(errno));
	spawn(0, (char *const[]){ FLOCK_BIN, extra_link, "-c", "exec sleep 600", NULL });
	char held[256], waiting[256];
	tl_locks_line(procs[0].pid, extra_link, false, held, sizeof(held));
	pid_t locker = procs[0].pid;
	orphan = only_child(locker);
	wait_in_syscall(orphan, orphan, 230);
	tl_kill(&procs[0]);
	char path[64];
	snprintf(path, sizeof(path), "/proc/%d", (int)locker);
	for (double t0 = tl_now_s(); tl_now_s() - t0 < 10 && access(path, F_OK) == 0;)
		usleep(20000);
	cr_assert_neq(access(path, F_OK), 0, "the locker %d exited", (int)locker);
	spawn(1, (char *const[]){ FLOCK_BIN, lockfile[0], "-c", "true", NULL });
	tl_locks_line(procs[1].pid, lockfile[0], true, waiting, sizeof(waiting));

	struct lt_snapshot *s = take(procs[1].pid);
	const struct lt_wf_edge *e = edge_of(s, procs[1].pid, LT_WF_FILE_LOCK);
	cr_assert_eq(e->n_pids, 1, "one holder, the command %d (/proc/locks: %s; evidence: %s)", (int)orphan, held,
		     e->evidence ? e->evidence : "");
	cr_expect_eq(e->pids[0], orphan, "the command %d keeps the lock, not %d", (int)orphan, (int)e->pids[0]);
	cr_expect_eq(e->pstate, LT_WFP_TIMED, "it sleeps");
	char said[64];
	snprintf(said, sizeof(said), "the locker /proc/locks names (%d) has exited", (int)locker);
	cr_expect(e->evidence && strstr(e->evidence, said), "%s", e->evidence ? e->evidence : "(none)");
	cr_assert(s->n_verdicts > 0);
	cr_expect_eq(s->verdicts[0].kind, LT_VERDICT_LOCK_WAIT, "%s", s->verdicts[0].summary);
	cr_expect_eq(s->verdicts[0].owner, orphan, "%s", s->verdicts[0].summary);
	cr_expect(!strstr(s->verdicts[0].summary, "gone"), "no gone holder: %s", s->verdicts[0].summary);
	lt_snapshot_free(s);
}

/* An OFD lock taken through a bind mount in another mount namespace (a
 * container's view of a host directory): the holder's fd reads
 * DIR_B/f, the waiter's DIR_A/f, one inode.  /proc/locks gives no pid for
 * an OFD lock: the holder is found by the file's device and inode and the
 * OFDLCK line of its fdinfo (before: "whose holder is unknown"). */
Test(waitfor_live, ofd_lock_through_a_bind_mount_in_another_mount_namespace_names_the_holder)
{
	need_root();
	if (access(TL_PYTHON, X_OK) || access("/usr/bin/unshare", X_OK))
		cr_skip_test("%s or unshare(1) missing", TL_PYTHON);
	for (int i = 0; i < 2; i++) {
		snprintf(extra_dir[i], sizeof(extra_dir[i]), "/tmp/lt-waitfor-%d-bind%c", (int)getpid(), 'a' + i);
		cr_assert_eq(mkdir(extra_dir[i], 0700), 0, "mkdir %s: %s", extra_dir[i], strerror(errno));
	}
	char file[128];
	snprintf(file, sizeof(file), "%s/f", extra_dir[0]);
	FILE *f = fopen(file, "w");
	cr_assert_not_null(f);
	fclose(f);
	/* the holder: its own mount namespace, DIR_A bound on DIR_B, the
	 * file opened as DIR_B/f (unshare and sh exec: one pid) */
	tl_start_ready(&procs[0], (char *const[]){ "/usr/bin/unshare", "-m", "--propagation", "private", "/bin/sh", "-c",
			"mount --bind \"$0\" \"$1\" && exec \"$2\" -c \"$3\" \"$1/f\" hold", extra_dir[0],
			extra_dir[1], TL_PYTHON, (char *)OFD_PY, NULL }, lines[0], &nlines[0], 64, 30000);
	char hl[96], ht[300];
	snprintf(hl, sizeof(hl), "/proc/%d/fd/3", (int)procs[0].pid);
	ssize_t n = readlink(hl, ht, sizeof(ht) - 1);
	ht[n > 0 ? n : 0] = 0;
	/* DIR_B/f; in a chroot (scripts/fresh-debian.sh) the kernel writes a
	 * path of another mount namespace from that namespace's root, the
	 * chroot's directory before it: the path ends so */
	char other[128];
	snprintf(other, sizeof(other), "%s/f", extra_dir[1]);
	size_t hn = strlen(ht), on = strlen(other);
	cr_assert(hn >= on && !strcmp(ht + hn - on, other), "the holder's fd 3 reads its own mount's path %s, not %s",
		  other, ht);
	tl_start_ready(&procs[1], (char *const[]){ TL_PYTHON, "-c", (char *)OFD_PY, file, "wait", NULL }, lines[1],
		       &nlines[1], 64, 30000);
	char held[256];
	tl_locks_line(-1, file, true, held, sizeof(held));
	struct lt_snapshot *s = take_when(procs[1].pid, 72, -1, 0, NULL);
	const struct lt_wf_edge *e = edge_of(s, procs[1].pid, LT_WF_FILE_LOCK);
	cr_expect(strstr(e->what, "OFDLCK WRITE"), "%s", e->what);
	cr_assert_eq(e->n_pids, 1, "the holder %d (/proc/locks: %s): %s", (int)procs[0].pid, held,
		     e->evidence ? e->evidence : "");
	cr_expect_eq(e->pids[0], procs[0].pid, "the OFD holder from fdinfo: %s", e->evidence);
	cr_assert(s->n_verdicts > 0);
	cr_expect_eq(s->verdicts[0].kind, LT_VERDICT_LOCK_WAIT, "%s", s->verdicts[0].summary);
	cr_expect_eq(s->verdicts[0].owner, procs[0].pid, "%s", s->verdicts[0].summary);
	cr_expect(!strstr(s->verdicts[0].summary, "unknown"), "%s", s->verdicts[0].summary);
	lt_snapshot_free(s);
}

/* ---- connect() to a listener that does not accept (tests/workloads/connect_backlog.c) ---- */

/* Starts connect_backlog MODE as procs[0]; its t1 and t2 tids, and a
 * client whose only thread sleeps in connect() (42): the listener's
 * backlog is full. */
static pid_t start_backlog(const char *mode, pid_t *t1, pid_t *t2)
{
	need_root();
	if (access(WL("connect_backlog"), X_OK))
		cr_skip_test("%s not built: run make all first", WL("connect_backlog"));
	tl_start_ready(&procs[0], (char *const[]){ WL("connect_backlog"), (char *)mode, NULL }, lines[0], &nlines[0], 64,
		       30000);
	const char *sl = tl_find(lines[0], nlines[0], "socket", "role=listen");
	if (sl && strstr(sl, "path="))
		snprintf(extra_sock, sizeof(extra_sock), "%s", strstr(sl, "path=") + 5);
	*t1 = (pid_t)tl_truth_val(lines[0], nlines[0], "thread", "role=t1", "tid");
	*t2 = (pid_t)tl_truth_val(lines[0], nlines[0], "thread", "role=t2", "tid");
	cr_assert(*t1 > 0 && *t2 > 0);
	pid_t cl[3];
	int n = 0;
	for (int i = 0; i < nlines[0] && n < 3; i++)
		if (sscanf(lines[0][i], "client pid=%d", &cl[n]) == 1)
			n++;
	cr_assert_eq(n, 3, "three clients");
	/* the first is queued (it returns and pauses); a later one waits */
	tl_wait_in_call(cl[2], cl[2], 42, 10000);
	tl_wait_in_call(procs[0].pid, procs[0].pid, 202, 10000); /* main on REG */
	tl_wait_in_call(procs[0].pid, *t1, 202, 10000);
	tl_wait_in_call(procs[0].pid, *t2, 202, 10000);
	return cl[2];
}

/* The client's edge names the server (the one process holding the
 * listener), blocked; `snapshot -p CLIENT` follows it into the server and
 * says the deadlock there, the client behind it: never IDLE. */
static void check_backlog_client(pid_t cli, pid_t t1, pid_t t2, const char *what)
{
	pid_t srv = procs[0].pid;
	struct lt_snapshot *s = take(cli);
	const struct lt_wf_edge *e = edge_of(s, cli, LT_WF_SOCKET);
	cr_expect(e->what && strstr(e->what, what), "%s\n(wanted: %s)", e->what ? e->what : "?", what);
	cr_assert_eq(e->n_pids, 1, "the server alone holds the listener: %s", e->evidence ? e->evidence : "");
	cr_expect_eq(e->pids[0], srv, "the server %d, not %d", (int)srv, (int)e->pids[0]);
	cr_expect_eq(e->pstate, LT_WFP_BLOCKED, "the server is blocked itself (%s)", e->doing ? e->doing : "?");
	cr_assert(s->n_verdicts > 0);
	cr_expect_neq(s->verdicts[0].kind, LT_VERDICT_IDLE, "%s", s->verdicts[0].summary);
	lt_snapshot_free(s);

	struct rp_json *j = tl_snapshot_cli_json(cli);
	const struct rp_json *vs = rp_json_get(j, "verdicts"), *dl = NULL;
	cr_assert(vs && vs->type == RPJ_ARR);
	for (size_t i = 0; i < vs->n; i++) {
		const char *k = rp_json_str(rp_json_get(&vs->items[i], "kind"));
		cr_assert(k && strcmp(k, "idle"), "an IDLE verdict: %s", rp_json_str(rp_json_get(&vs->items[i], "summary")));
		if (!strcmp(k, "deadlock"))
			dl = &vs->items[i];
	}
	cr_assert_not_null(dl, "the server's deadlock, found by following the client's connect()");
	const struct rp_json *tids = rp_json_get(dl, "tids"), *behind = rp_json_get(dl, "behind");
	cr_assert(tids && tids->n == 2);
	pid_t a = (pid_t)rp_json_num(&tids->items[0], 0), b = (pid_t)rp_json_num(&tids->items[1], 0);
	cr_expect((a == t1 && b == t2) || (a == t2 && b == t1), "the cycle is t1 %d and t2 %d, not %d, %d", (int)t1,
		  (int)t2, (int)a, (int)b);
	bool has_cli = false, has_srv = false;
	for (size_t i = 0; behind && i < behind->n; i++) {
		pid_t x = (pid_t)rp_json_num(&behind->items[i], 0);
		has_cli |= x == cli;
		has_srv |= x == srv;
	}
	cr_expect(has_cli && has_srv, "behind the cycle: the client %d and the server's accept loop %d", (int)cli,
		  (int)srv);
	rp_json_free(j);
}

/* A unix stream client asleep in connect() (before: "no peer (unconnected
 * datagram socket: any sender)", IDLE): the path is read from connect()'s
 * sockaddr, the listener is the socket bound to that file. */
Test(waitfor_live, unix_connect_to_a_listener_that_does_not_accept_names_the_server)
{
	pid_t t1, t2;
	pid_t cli = start_backlog("unix", &t1, &t2);
	const char *path = tl_find(lines[0], nlines[0], "socket", "role=listen");
	cr_assert_not_null(path);
	char want[200];
	snprintf(want, sizeof(want), "connecting to %s: listener socket:[", strstr(path, "path=") + 5);
	check_backlog_client(cli, t1, t2, want);
}

/* A tcp client in SYN_SENT (its SYN dropped: the backlog is full) on
 * loopback (before: "a peer outside this host", IDLE): the listener on its
 * remote port is this host's. */
Test(waitfor_live, tcp_connect_to_a_listener_that_does_not_accept_names_the_server)
{
	pid_t t1, t2;
	pid_t cli = start_backlog("tcp", &t1, &t2);
	int port = (int)tl_truth_val(lines[0], nlines[0], "socket", "role=listen", "port");
	cr_assert_gt(port, 0);
	char want[200];
	snprintf(want, sizeof(want), "-> 127.0.0.1:%d (fd 3), connecting (SYN_SENT): listener socket:[", port);
	check_backlog_client(cli, t1, t2, want);
}

/* ---- waits on other kernel objects (tests/workloads/ipc_waits.c) ---- */

static void start_ipc(const char *mode, const char *file)
{
	need_root();
	if (access(WL("ipc_waits"), X_OK))
		cr_skip_test("%s not built: run make all first", WL("ipc_waits"));
	tl_start_ready(&procs[0], (char *const[]){ WL("ipc_waits"), (char *)mode, (char *)file, NULL }, lines[0],
		       &nlines[0], 64, 30000);
}

/* gdb attaching to a process whose thread is a vfork parent (posix_spawn
 * whose file action opens a FIFO nobody writes) never gets that thread's
 * stop (a vfork parent sleeps killable, not interruptibly): the attach
 * hangs, gdb in wait4(PID, __WALL) for it (in rt_sigsuspend for the
 * SIGCHLD of a stop, with several threads).  Its tracee is the party of
 * that wait (no child of gdb's), the thread not yet stopped named;
 * before, "no such child" (or "it has no child"): IDLE with no party. */
Test(waitfor_live, gdb_attaching_a_vfork_parent_waits_for_that_thread)
{
	tmp_lockfile(0);
	start_ipc("spawn-fifo", lockfile[0]);
	pid_t parent = procs[0].pid;
	tl_wait_in_call(parent, parent, 435, 10000); /* clone3 */
	orphan = only_child(parent);
	char pidstr[16];
	snprintf(pidstr, sizeof(pidstr), "%d", (int)parent);
	pid_t gdb = start_tracer(GDB_BIN, "gdb", (char *const[]){ GDB_BIN, "-q", "-nx", "-p", pidstr, NULL });
	char path[64], sc[256] = "";
	snprintf(path, sizeof(path), "/proc/%d/syscall", (int)gdb);
	for (double t0 = tl_now_s(); tl_now_s() - t0 < 60; usleep(20000)) {
		FILE *f = fopen(path, "r");
		size_t n = f ? fread(sc, 1, sizeof(sc) - 1, f) : 0;
		if (f)
			fclose(f);
		sc[n] = 0;
		if (!strncmp(sc, "61 ", 3) || !strncmp(sc, "130 ", 4)) /* wait4, rt_sigsuspend */
			break;
	}
	cr_assert(!strncmp(sc, "61 ", 3) || !strncmp(sc, "130 ", 4), "gdb never waited for the stop: %s", sc);
	struct lt_snapshot *s = take(gdb);
	const struct lt_wf_edge *e = edge_of(s, gdb, LT_WF_TRACEE);
	cr_assert_eq(e->n_pids, 1, "%s", e->what);
	cr_expect_eq(e->pids[0], parent, "%s", e->what);
	cr_expect_eq(e->holder_tid, parent, "the one thread not stopped: the vfork parent (%s)", e->what);
	cr_expect(!lt_wf_maybe_tracee(e), "a stop's SIGCHLD ends rt_sigsuspend: no inference (%s)", e->what);
	lt_snapshot_free(s);
}

/* A parent reads an eventfd its child holds too; the child waits for the
 * parent's flock before it would write it.  Every eventfd links to one
 * anonymous inode: the holders are found by the eventfd-id of their
 * fdinfo, the parent's own holding set aside (its one thread is the
 * reader), and the cycle closes: a deadlock, not "a disk read". */
Test(waitfor_live, eventfd_read_whose_other_holder_waits_for_the_readers_flock_is_a_deadlock)
{
	tmp_lockfile(0);
	start_ipc("eventfd-flock", lockfile[0]);
	pid_t parent = procs[0].pid, child = (pid_t)tl_truth_val(lines[0], nlines[0], "child", NULL, "pid");
	orphan = child;
	tl_wait_in_call(child, child, 73, 10000);  /* flock */
	tl_wait_in_call(parent, parent, 0, 10000); /* read */
	struct lt_multi_snapshot *m = follow(parent);
	cr_assert_eq(m->n_procs, 2, "followed from the eventfd into the child");
	const struct lt_wf_edge *e = edge_of(m->procs[0], parent, LT_WF_PIPE_READ);
	cr_expect(strstr(e->what, "eventfd (eventfd-id "), "%s", e->what);
	cr_assert_eq(e->n_pids, 2, "the parent and the child hold it");
	cr_expect((e->pids[0] == parent && e->pids[1] == child) || (e->pids[0] == child && e->pids[1] == parent));
	const struct lt_verdict *v = &m->view.verdicts[0];
	cr_expect_eq(v->kind, LT_VERDICT_DEADLOCK, "%s", v->summary);
	/* the kernel writes eventfds too (io_uring, aio): probable */
	cr_expect(strstr(v->summary, "probable deadlock") && strstr(v->summary, "through an eventfd"), "%s",
		  v->summary);
	cr_expect(has_tid(v, parent) && has_tid(v, child), "%s", v->summary);
	lt_multi_free(m);
}

/* M's process PARENT has an edge of KIND to CHILD alone, and its first
 * verdict is a deadlock of the two. */
static void edge_to_child_and_deadlock(const struct lt_multi_snapshot *m, pid_t parent, enum lt_wf_kind kind,
				       pid_t child)
{
	const struct lt_wf_edge *e = edge_of(m->procs[0], parent, kind);
	cr_assert_eq(e->n_pids, 1, "%s", e->what);
	cr_expect_eq(e->pids[0], child, "%s", e->what);
	const struct lt_verdict *v = &m->view.verdicts[0];
	cr_expect_eq(v->kind, LT_VERDICT_DEADLOCK, "%s", v->summary);
	cr_expect(has_tid(v, parent) && has_tid(v, child), "%s", v->summary);
}

/* splice into a full pipe sleeps on its output, not its input: the parent
 * splices pipe A into pipe B, full, whose read end only its child holds;
 * the child reads pipe C, whose write end only the parent holds.  The
 * wait is on B's readers (the child), and the two are a deadlock; before,
 * it was followed through A, its input (written by its own process). */
Test(waitfor_live, splice_into_a_full_pipe_waits_for_its_reader)
{
	static const char script[] =
		"import fcntl, os\n"
		"a, b, c = os.pipe(), os.pipe(), os.pipe()\n"
		"pid = os.fork()\n"
		"if pid == 0:\n"
		"    for fd in (a[0], a[1], b[1], c[1]): os.close(fd)\n"
		"    os.read(c[0], 1)\n"
		"    os._exit(0)\n"
		"for fd in (b[0], c[0]): os.close(fd)\n"
		"fcntl.fcntl(b[1], fcntl.F_SETFL, os.O_NONBLOCK)\n"
		"try:\n"
		"    while True: os.write(b[1], b'x' * 4096)\n"
		"except BlockingIOError: pass\n"
		"fcntl.fcntl(b[1], fcntl.F_SETFL, 0)\n"
		"os.write(a[1], b'y')\n"
		"print('child pid=%d out=%d' % (pid, b[1]), flush=True)\n"
		"print('ready', flush=True)\n"
		"os.splice(a[0], b[1], 1)\n";
	start_py(script);
	pid_t parent = procs[0].pid, child = (pid_t)tl_truth_val(lines[0], nlines[0], "child", NULL, "pid");
	int out = (int)tl_truth_val(lines[0], nlines[0], "child", NULL, "out");
	cr_assert(child > 0 && out > 0);
	orphan = child;
	tl_wait_in_call(child, child, 0, 10000);    /* read */
	tl_wait_in_call(parent, parent, 275, 10000); /* splice */
	struct lt_multi_snapshot *m = follow(parent);
	const struct lt_thread *t = lt_snapshot_find(m->procs[0], parent);
	cr_assert_not_null(t);
	cr_expect_eq(t->fdw.io.fd, out, "the fd it sleeps on: %d", t->fdw.io.fd);
	cr_expect(t->detail && strstr(t->detail, ": waits to write fd "), "%s", t->detail ? t->detail : "-");
	edge_to_child_and_deadlock(m, parent, LT_WF_PIPE_WRITE, child);
	lt_multi_free(m);
}

/* An epoll set inside another (an event loop embedding another's fd, as
 * sd-event's is meant to be) is ready when its own fds are: the outer
 * wait is on those.  The parent holds a flock and waits, through an outer
 * epoll holding an inner one, on a pipe whose only writer, its child,
 * waits for that flock: a deadlock of the two.  Before, the inner epoll
 * was an anonymous inode, an unknown party. */
Test(waitfor_live, a_nested_epoll_set_is_followed_into_its_fds)
{
	static const char script[] =
		"import fcntl, os, select, sys\n"
		"lock = open(sys.argv[1], 'a+')\n"
		"fcntl.flock(lock, fcntl.LOCK_EX)\n"
		"r, w = os.pipe()\n"
		"pid = os.fork()\n"
		"if pid == 0:\n"
		"    os.close(r); lock.close()\n"
		"    fcntl.flock(open(sys.argv[1], 'a+'), fcntl.LOCK_EX)\n"
		"    os.write(w, b'x'); os._exit(0)\n"
		"os.close(w)\n"
		"inner = select.epoll(); inner.register(r, select.EPOLLIN)\n"
		"outer = select.epoll(); outer.register(inner.fileno(), select.EPOLLIN)\n"
		"print('child pid=%d inner=%d r=%d' % (pid, inner.fileno(), r), flush=True)\n"
		"print('ready', flush=True)\n"
		"outer.poll()\n";
	need_root();
	if (access(TL_PYTHON, X_OK))
		cr_skip_test("%s missing", TL_PYTHON);
	tmp_lockfile(0);
	tl_start_ready(&procs[0], (char *const[]){ TL_PYTHON, "-c", (char *)script, lockfile[0], NULL }, lines[0],
		       &nlines[0], 64, 30000);
	pid_t parent = procs[0].pid, child = (pid_t)tl_truth_val(lines[0], nlines[0], "child", NULL, "pid");
	int inner = (int)tl_truth_val(lines[0], nlines[0], "child", NULL, "inner");
	int r = (int)tl_truth_val(lines[0], nlines[0], "child", NULL, "r");
	cr_assert(child > 0 && inner > 0 && r > 0);
	orphan = child;
	char waiting[256];
	tl_locks_line(child, lockfile[0], true, waiting, sizeof(waiting));
	tl_wait_in_call(parent, parent, 232, 10000); /* epoll_wait */
	struct lt_multi_snapshot *m = follow(parent);
	const struct lt_thread *t = lt_snapshot_find(m->procs[0], parent);
	cr_assert_not_null(t);
	cr_assert_eq(t->fdw.n_fds, 1, "the inner set's one fd in place of it: %s", t->detail ? t->detail : "-");
	cr_expect_eq(t->fdw.fds[0].fd, r);
	char in[32];
	snprintf(in, sizeof(in), "(in epoll fd %d)", inner);
	cr_expect(t->detail && strstr(t->detail, in), "%s", t->detail ? t->detail : "-");
	edge_to_child_and_deadlock(m, parent, LT_WF_PIPE_READ, child);
	lt_multi_free(m);
}

/* An empty epoll set inside another has no fds to stand for it: it stays
 * in the list as itself (before the review, it vanished: "watching []"). */
Test(waitfor_live, an_empty_nested_epoll_set_stays_in_the_list)
{
	start_py("import select\n"
		 "inner = select.epoll(); outer = select.epoll(); outer.register(inner.fileno(), select.EPOLLIN)\n"
		 "print('inner fd=%d' % inner.fileno(), flush=True)\n"
		 "print('ready', flush=True)\n"
		 "outer.poll()\n");
	pid_t pid = procs[0].pid;
	int inner = (int)tl_truth_val(lines[0], nlines[0], "inner", NULL, "fd");
	tl_wait_in_call(pid, pid, 232, 10000); /* epoll_wait */
	struct lt_snapshot *s = take(pid);
	const struct lt_thread *t = lt_snapshot_find(s, pid);
	cr_assert_not_null(t);
	cr_assert_eq(t->fdw.n_fds, 1, "%s", t->detail ? t->detail : "-");
	cr_expect_eq(t->fdw.fds[0].fd, inner);
	lt_snapshot_free(s);
}

/* A send on an unconnected unix datagram socket, addressed to a bound one
 * (sd_notify's sendmsg to $NOTIFY_SOCKET, a logger's sendto), sleeps
 * until the receiver's queue has room: it waits for whoever holds the
 * receiving socket to read.  The child holds a flock and sends to its
 * parent's socket, which the parent does not read: it waits for the
 * flock.  The socket bound to the address is followed from the call's
 * arguments (sendto's, or sendmsg's msghdr), and the two are a deadlock;
 * before, "no peer (unconnected datagram socket: any sender)", unknown. */
static void dgram_send_case(const char *mode)
{
	static const char script[] =
		"import fcntl, os, socket, sys\n"
		"lockpath, path, mode = sys.argv[1], sys.argv[1] + '.sock', sys.argv[2]\n"
		"srv = socket.socket(socket.AF_UNIX, socket.SOCK_DGRAM); srv.bind(path)\n"
		"r, w = os.pipe()\n"
		"pid = os.fork()\n"
		"if pid == 0:\n"
		"    srv.close(); os.close(r)\n"
		"    lock = open(lockpath, 'a+'); fcntl.flock(lock, fcntl.LOCK_EX)\n"
		"    os.write(w, b'x')\n"
		"    c = socket.socket(socket.AF_UNIX, socket.SOCK_DGRAM)\n"
		"    other = socket.socket(socket.AF_UNIX, socket.SOCK_DGRAM)\n"
		"    other.bind('\\0lt-dgram-%d' % os.getpid())\n" /* bound, never read */
		"    if mode == 'connected': c.connect(other.getsockname())\n"
		"    if mode == 'ownbuf':\n" /* its send buffer filled by datagrams to the other */
		"        c.setsockopt(socket.SOL_SOCKET, socket.SO_SNDBUF, 4096); c.setblocking(False)\n"
		"        try:\n"
		"            while True: c.sendto(b'z' * 1000, other.getsockname())\n"
		"        except BlockingIOError: pass\n"
		"        c.setblocking(True); mode = 'sendto'\n"
		"    while True:\n"
		"        if mode != 'sendmsg': c.sendto(b'y' * 1000, path)\n"
		"        else: c.sendmsg([b'y' * 1000], [], 0, path)\n"
		"os.close(w); os.read(r, 1)\n"
		"print('child pid=%d path=%s' % (pid, path), flush=True)\n"
		"print('ready', flush=True)\n"
		"fcntl.flock(open(lockpath, 'a+'), fcntl.LOCK_EX)\n";
	need_root();
	if (access(TL_PYTHON, X_OK))
		cr_skip_test("%s missing", TL_PYTHON);
	tmp_lockfile(0);
	snprintf(extra_sock, sizeof(extra_sock), "%s.sock", lockfile[0]);
	tl_start_ready(&procs[0], (char *const[]){ TL_PYTHON, "-c", (char *)script, lockfile[0], (char *)mode, NULL },
		       lines[0], &nlines[0], 64, 30000);
	pid_t parent = procs[0].pid, child = (pid_t)tl_truth_val(lines[0], nlines[0], "child", NULL, "pid");
	cr_assert_gt(child, 0);
	orphan = child;
	tl_wait_in_call(child, child, strcmp(mode, "sendmsg") ? 44 : 46, 10000);
	char waiting[256];
	tl_locks_line(parent, lockfile[0], true, waiting, sizeof(waiting));
	struct lt_multi_snapshot *m = follow(parent);
	cr_assert_eq(m->n_procs, 2, "%s: followed from the flock into its holder, the child", mode);
	cr_assert_eq(m->procs[1]->pid, child);
	if (!strcmp(mode, "ownbuf")) { /* any receiver of what it sent: not followed, no deadlock */
		const struct lt_wf_edge *u = edge_of(m->procs[1], child, LT_WF_UNKNOWN);
		cr_expect(strstr(u->what, "its own send buffer full"), "%s", u->what);
		for (size_t i = 0; i < m->view.n_verdicts; i++)
			cr_expect_neq(m->view.verdicts[i].kind, LT_VERDICT_DEADLOCK, "%s", m->view.verdicts[i].summary);
		lt_multi_free(m);
		return;
	}
	const struct lt_wf_edge *e = edge_of(m->procs[1], child, LT_WF_SOCKET);
	cr_assert_eq(e->n_pids, 1, "%s: %s", mode, e->what);
	cr_expect_eq(e->pids[0], parent, "%s: %s", mode, e->what);
	cr_expect(strstr(e->what, "datagram") && strstr(e->what, extra_sock), "%s: %s", mode, e->what);
	const struct lt_verdict *v = &m->view.verdicts[0];
	cr_expect_eq(v->kind, LT_VERDICT_DEADLOCK, "%s: %s", mode, v->summary);
	cr_expect(has_tid(v, parent) && has_tid(v, child), "%s: %s", mode, v->summary);
	lt_multi_free(m);
}

Test(waitfor_live, a_sendto_to_a_unix_datagram_socket_waits_for_its_reader)
{
	dgram_send_case("sendto");
}

Test(waitfor_live, a_sendmsg_to_a_unix_datagram_socket_waits_for_its_reader)
{
	dgram_send_case("sendmsg");
}

/* A sendto naming a destination goes there even on a connected socket:
 * the edge is to the destination, not to the connected peer. */
Test(waitfor_live, a_sendto_on_a_connected_datagram_socket_waits_for_its_destination)
{
	dgram_send_case("connected");
}

/* A send asleep for its own send buffer (sock_alloc_send_pskb), full of
 * datagrams queued at another socket: not the destination's reader. */
Test(waitfor_live, a_datagram_send_short_of_its_own_buffer_is_no_wait_for_the_destination)
{
	dgram_send_case("ownbuf");
}

/* A vfork parent sleeps until its child execs or exits: a wait for that
 * child, found among its children as the one sharing its address space.
 * The child reads, before it would exec, a pipe whose write end only it
 * and its sleeping parent hold: a deadlock of the two processes, not "1
 * thread waits in vfork, whose other end locktrace does not follow". */
Test(waitfor_live, vfork_parent_and_a_child_reading_a_pipe_before_exec_are_a_deadlock)
{
	start_ipc("vfork-pipe", NULL);
	pid_t parent = procs[0].pid, child = (pid_t)tl_truth_val(lines[0], nlines[0], "child", NULL, "pid");
	cr_assert_gt(child, 0);
	orphan = child;
	tl_wait_in_call(child, child, 0, 10000);   /* read */
	tl_wait_in_call(parent, parent, 58, 10000); /* vfork */
	struct lt_multi_snapshot *m = follow(parent);
	cr_assert_eq(m->n_procs, 2, "followed from the vfork into the child");
	const struct lt_thread *t = lt_snapshot_find(m->procs[0], parent);
	cr_assert_not_null(t);
	cr_expect_eq(t->wait, LT_WAIT_CHILD);
	cr_expect(t->detail && !strcmp(t->detail, "vfork(): a vfork, asleep until its child execs or exits"), "%s",
		  t->detail ? t->detail : "-");
	edge_to_child_and_deadlock(m, parent, LT_WF_CHILD, child);
	lt_multi_free(m);
}

/* posix_spawn (glibc: clone3 with CLONE_VFORK) whose file action opens a
 * FIFO nobody writes: the parent waits for its child in clone3, the child
 * in open() for a writer that any process may yet be: idle, the chain said
 * (the parent's wait on the child, blocked itself), no deadlock claimed. */
Test(waitfor_live, posix_spawn_waits_for_a_child_blocked_before_exec)
{
	tmp_lockfile(0);
	start_ipc("spawn-fifo", lockfile[0]);
	pid_t parent = procs[0].pid;
	tl_wait_in_call(parent, parent, 435, 10000); /* clone3 */
	pid_t child = only_child(parent);
	orphan = child;
	tl_wait_in_call(child, child, 257, 10000); /* openat */
	struct lt_multi_snapshot *m = follow(parent);
	cr_assert_eq(m->n_procs, 2, "followed from the clone3 into the child");
	const struct lt_thread *t = lt_snapshot_find(m->procs[0], parent);
	cr_assert_not_null(t);
	cr_expect_eq(t->wait, LT_WAIT_CHILD);
	cr_expect(t->detail && strstr(t->detail, "clone3(CLONE_VFORK): a vfork"), "%s", t->detail ? t->detail : "-");
	const struct lt_wf_edge *e = edge_of(m->procs[0], parent, LT_WF_CHILD);
	cr_assert_eq(e->n_pids, 1, "%s", e->what);
	cr_expect_eq(e->pids[0], child, "%s", e->what);
	cr_expect_eq(e->pstate, LT_WFP_BLOCKED, "the child is blocked itself: %s", e->doing ? e->doing : "-");
	const struct lt_verdict *v = &m->view.verdicts[0];
	cr_expect_eq(v->kind, LT_VERDICT_IDLE, "%s", v->summary);
	lt_multi_free(m);
}

/* Two threads of one process in posix_spawn at once: each waits for the
 * child it created (its own /proc/PID/task/TID/children), not for the
 * first of the process's children that shares its address space. */
Test(waitfor_live, two_posix_spawns_at_once_each_wait_for_their_own_child)
{
	tmp_lockfile(0);
	start_ipc("spawn-fifo2", lockfile[0]);
	pid_t pid = procs[0].pid, tids[2] = { 0, 0 }, kids[2] = { 0, 0 };
	for (double t0 = tl_now_s(); tl_now_s() - t0 < 10 && !kids[1]; usleep(20000)) {
		size_t nt = 0;
		pid_t *v = lts_list_tasks(pid, &nt);
		for (size_t i = 0, k = 0; i < nt && k < 2; i++) {
			char p[96], buf[64];
			snprintf(p, sizeof(p), "/proc/%d/task/%d/children", (int)pid, (int)v[i]);
			if (lts_read_small(p, buf, sizeof(buf)) > 0 && atoi(buf) > 0) {
				tids[k] = v[i];
				kids[k++] = (pid_t)atoi(buf);
			}
		}
		free(v);
		if (!kids[1])
			kids[0] = 0;
	}
	cr_assert(kids[0] > 0 && kids[1] > 0, "two threads with a child each");
	orphan = kids[0];
	for (int k = 0; k < 2; k++) {
		tl_wait_in_call(pid, tids[k], 435, 10000); /* clone3 */
		tl_wait_in_call(kids[k], kids[k], 257, 10000);
	}
	struct lt_snapshot *s = take(pid);
	for (int k = 0; k < 2; k++) {
		const struct lt_wf_edge *e = edge_of(s, tids[k], LT_WF_CHILD);
		cr_assert_eq(e->n_pids, 1, "thread %d: %s", (int)tids[k], e->what);
		cr_expect_eq(e->pids[0], kids[k], "thread %d waits for %d, its child is %d", (int)tids[k], (int)e->pids[0],
			     (int)kids[k]);
	}
	kill(kids[1], SIGKILL);
	lt_snapshot_free(s);
}

/* mq_receive on a queue no other process holds: its holders are looked
 * for as a pipe's; none but its own: another process may yet open the
 * queue by name (a server waiting for its clients), an unknown party, so
 * IDLE says none is known to be stuck. */
Test(waitfor_live, message_queue_only_its_own_process_holds_is_an_unknown_party)
{
	start_ipc("mq", NULL);
	pid_t pid = procs[0].pid;
	tl_wait_in_call(pid, pid, 243, 10000); /* mq_timedreceive */
	struct lt_snapshot *s = take(pid);
	const struct lt_wf_edge *e = edge_of(s, pid, LT_WF_UNKNOWN);
	cr_expect(strstr(e->what, "message queue /lt-ipc-waits-"), "%s", e->what);
	cr_expect(e->evidence && strstr(e->evidence, "open the queue by name"), "%s", e->evidence ? e->evidence : "");
	cr_assert_geq(s->n_verdicts, 1);
	cr_expect_eq(s->verdicts[0].kind, LT_VERDICT_IDLE, "%s", s->verdicts[0].summary);
	cr_expect(strstr(s->verdicts[0].summary, "none known to be stuck"), "%s", s->verdicts[0].summary);
	lt_snapshot_free(s);
}

/* semop on a System V semaphore: its other end is not followed, so the
 * verdict is "not known", never "nothing suspicious"; the call is decoded
 * with the semaphore's value from semctl. */
Test(waitfor_live, sysv_semaphore_wait_is_not_known_not_ok)
{
	start_ipc("sysv", NULL);
	pid_t pid = procs[0].pid;
	sysv_id = (int)tl_truth_val(lines[0], nlines[0], "sysv", NULL, "semid");
	tl_wait_in_call(pid, pid, 220, 10000); /* glibc's semop is semtimedop */
	struct lt_snapshot *s = take(pid);
	cr_assert_eq(s->n_verdicts, 1);
	const struct lt_verdict *v = &s->verdicts[0];
	cr_expect_eq(v->kind, LT_VERDICT_UNKNOWN, "%s", v->summary);
	cr_expect(strstr(v->summary, "1 thread waits in semtimedop"), "%s", v->summary);
	cr_expect(has_tid(v, pid));
	char want[128];
	snprintf(want, sizeof(want), "semtimedop(semid %d, sem 0 -1, 1 op, no timeout): System V semaphore value 0",
		 sysv_id);
	const struct lt_thread *t = lt_snapshot_find(s, pid);
	cr_expect(t && t->detail && strstr(t->detail, want), "%s", t && t->detail ? t->detail : "?");
	lt_snapshot_free(s);
}

/* msgrcv on an empty System V message queue, msgsnd into a full one: their
 * other end is not followed either ("not known"); each call is decoded
 * with the queue's state from msgctl: what it waits for, how full the
 * queue is, and that nobody ever sent to (received from) it. */
Test(waitfor_live, sysv_message_queue_waits_are_decoded_and_not_known)
{
	static const char *const modes[] = { "sysv-msg", "sysv-msg-full" };
	for (int k = 0; k < 2; k++) {
		start_ipc(modes[k], NULL);
		pid_t pid = procs[0].pid;
		sysv_msqid = (int)tl_truth_val(lines[0], nlines[0], "sysv", NULL, "msqid");
		int queued = (int)tl_truth_val(lines[0], nlines[0], "sysv", NULL, "queued");
		cr_assert(sysv_msqid >= 0 && (k == 0 ? queued == 0 : queued == 4), "%d %d", sysv_msqid, queued);
		tl_wait_in_call(pid, pid, k == 0 ? 70 : 69, 10000);
		struct lt_snapshot *s = take(pid);
		cr_assert_eq(s->n_verdicts, 1);
		const struct lt_verdict *v = &s->verdicts[0];
		cr_expect_eq(v->kind, LT_VERDICT_UNKNOWN, "%s", v->summary);
		cr_expect(strstr(v->summary, k == 0 ? "1 thread waits in msgrcv" : "1 thread waits in msgsnd"), "%s",
			  v->summary);
		char want[160];
		if (k == 0)
			snprintf(want, sizeof(want), "msgrcv(msqid %d, any type, up to 64 bytes): System V message "
				 "queue of 0 messages (0 bytes), never sent to", sysv_msqid);
		else
			snprintf(want, sizeof(want), "msgsnd(msqid %d, 64 bytes): System V message queue full for it: 256 of "
				 "256 bytes in 4 messages, never received from", sysv_msqid);
		const struct lt_thread *t = lt_snapshot_find(s, pid);
		cr_expect(t && t->detail && !strcmp(t->detail, want), "%s\nwant %s", t && t->detail ? t->detail : "?",
			  want);
		lt_snapshot_free(s);
		cleanup();
	}
}

/* python3 locks a file with fcntl.flock, opens it again and asks again: a
 * flock belongs to the open file, so it waits for itself.  A deadlock of
 * its one thread, not a lock wait "held by process P [blocked itself]". */
Test(waitfor_live, flock_through_a_second_open_file_of_ones_own_is_a_deadlock)
{
	tmp_lockfile(0);
	char script[512];
	snprintf(script, sizeof(script),
		 "import fcntl\n"
		 "a = open('%s', 'w'); b = open('%s', 'w')\n"
		 "fcntl.flock(a, fcntl.LOCK_EX)\n"
		 "print('ready', flush=True)\n"
		 "fcntl.flock(b, fcntl.LOCK_EX)\n", lockfile[0], lockfile[0]);
	start_py(script);
	pid_t pid = procs[0].pid;
	tl_wait_in_call(pid, pid, 73, 10000);
	struct lt_snapshot *s = take(pid);
	cr_assert_geq(s->n_verdicts, 1);
	const struct lt_verdict *v = &s->verdicts[0];
	cr_expect_eq(v->kind, LT_VERDICT_DEADLOCK, "%s", v->summary);
	cr_expect_eq(v->n_tids, 1);
	cr_expect(has_tid(v, pid));
	cr_expect(strstr(v->summary, "its own process holds through another open file"), "%s", v->summary);
	lt_snapshot_free(s);
}

static const char OFD_ABBA_PY[] =
	"import fcntl, struct, sys\n"
	"f = open(sys.argv[1], 'a+')\n"
	"def lk(b): return struct.pack('hh4xqqi4x', fcntl.F_WRLCK, 0, b, 1, 0)\n"
	"fcntl.fcntl(f, fcntl.F_OFD_SETLK, lk(int(sys.argv[2])))\n"
	"print('ready', flush=True)\n"
	"sys.stdin.readline()\n"
	"fcntl.fcntl(f, fcntl.F_OFD_SETLKW, lk(int(sys.argv[3])))\n";

/* Two processes each hold one byte with an OFD lock and wait for the
 * other's: a deadlock, and each wait's evidence quotes its own queued
 * /proc/locks entry (every OFD entry's pid is -1: told apart by range). */
Test(waitfor_live, ofd_abba_evidence_quotes_each_waiters_own_entry)
{
	need_root();
	if (access(TL_PYTHON, X_OK))
		cr_skip_test("%s missing", TL_PYTHON);
	tmp_lockfile(0);
	tl_start_ready(&procs[0], (char *const[]){ TL_PYTHON, "-c", (char *)OFD_ABBA_PY, lockfile[0], "0", "1", NULL },
		       lines[0], &nlines[0], 64, 30000);
	tl_start_ready(&procs[1], (char *const[]){ TL_PYTHON, "-c", (char *)OFD_ABBA_PY, lockfile[0], "1", "0", NULL },
		       lines[1], &nlines[1], 64, 30000);
	cr_assert_eq(write(procs[0].in_fd, "\n", 1), 1);
	tl_wait_in_call(procs[0].pid, procs[0].pid, 72, 10000);
	cr_assert_eq(write(procs[1].in_fd, "\n", 1), 1);
	tl_wait_in_call(procs[1].pid, procs[1].pid, 72, 10000);
	struct lt_multi_snapshot *m = follow(procs[0].pid);
	cr_assert_eq(m->n_procs, 2);
	const struct lt_verdict *v = &m->view.verdicts[0];
	cr_expect_eq(v->kind, LT_VERDICT_DEADLOCK, "%s", v->summary);
	for (int i = 0; i < 2; i++) {
		const struct lt_wf_edge *e = edge_of(m->procs[i], procs[i].pid, LT_WF_FILE_LOCK);
		char want[64];
		int b = i == 0 ? 1 : 0; /* the byte it waits for */
		snprintf(want, sizeof(want), "-> OFDLCK ADVISORY  WRITE -1 ");
		const char *w = strstr(e->evidence, want);
		cr_assert(w, "%s", e->evidence);
		char range[32];
		snprintf(range, sizeof(range), " %d %d\"", b, b);
		const char *q = strchr(w, '"');
		cr_expect(q && q - w > (long)strlen(range) && !strncmp(q - strlen(range) + 1, range, strlen(range) - 1),
			  "process %d waits for byte %d; its evidence: %s", (int)procs[i].pid, b, e->evidence);
	}
	lt_multi_free(m);
}

/* A process-shared PI mutex held by another process (the owner's tid is in
 * the lock word): that process is followed as a pthread mutex __owner's is,
 * and the lock wait names its thread, in pause(). */
Test(waitfor_live, pi_mutex_owner_in_another_process_is_followed)
{
	start_ipc("pi-shared", NULL);
	pid_t parent = procs[0].pid, child = (pid_t)tl_truth_val(lines[0], nlines[0], "child", NULL, "pid");
	orphan = child;
	tl_wait_in_call(child, child, 202, 10000);
	tl_wait_in_call(parent, parent, 34, 10000); /* pause */
	struct lt_multi_snapshot *m = follow(child);
	cr_assert_eq(m->n_procs, 2, "the owner's process was not followed");
	cr_expect_eq(m->procs[1]->pid, parent);
	const struct lt_verdict *v = &m->view.verdicts[0];
	cr_expect_eq(v->kind, LT_VERDICT_LOCK_WAIT, "%s", v->summary);
	cr_expect_eq(v->owner, parent, "%s", v->summary);
	cr_expect(has_tid(v, child), "%s", v->summary);
	lt_multi_free(m);
}

/* Waits until /proc/PID/stat says state ST (10 s). */
static void wait_state(pid_t pid, char st)
{
	for (double t0 = tl_now_s(); tl_now_s() - t0 < 10; usleep(10000))
		if (tl_thread_state(pid, pid) == st)
			return;
	cr_assert_fail("process %d never in state %c", (int)pid, st);
}

/* sleep(1) stopped and continued (Ctrl-Z and fg; a debugger or strace that
 * attached and left) resumes its sleep as restart_syscall: a timed wait,
 * IDLE as before the stop, never "not known". */
Test(waitfor_live, a_sleep_resumed_after_a_stop_is_idle_not_unknown)
{
	need_root();
	spawn(0, (char *const[]){ "/bin/sleep", "600", NULL });
	pid_t pid = procs[0].pid;
	tl_wait_in_call(pid, pid, 230, 10000); /* clock_nanosleep */
	cr_assert_eq(kill(pid, SIGSTOP), 0);
	wait_state(pid, 'T');
	cr_assert_eq(kill(pid, SIGCONT), 0);
	tl_wait_in_call(pid, pid, 219, 10000); /* restart_syscall */
	struct lt_snapshot *s = take(pid);
	cr_assert_eq(s->n_verdicts, 1);
	cr_expect_eq(s->verdicts[0].kind, LT_VERDICT_IDLE, "%s", s->verdicts[0].summary);
	const struct lt_wf_edge *e = edge_of(s, pid, LT_WF_TIMER);
	cr_expect(strstr(e->what, "restart_syscall"), "%s", e->what);
	lt_snapshot_free(s);
}

/* A named POSIX semaphore: glibc maps it under a temporary name it then
 * renames (the mapping says "/dev/shm/sem.XXXXXX (deleted)"): the lock is
 * named by the name it lives under, found by its inode. */
Test(waitfor_live, a_named_posix_semaphore_is_named_by_its_name)
{
	start_ipc("posix-sem", NULL);
	pid_t pid = procs[0].pid;
	/* removed by cleanup */
	snprintf(lockfile[1], sizeof(lockfile[1]), "/dev/shm/sem.lt-ipc-waits-%d", (int)pid);
	tl_wait_in_call(pid, pid, 202, 10000);
	struct lt_snapshot *s = take(pid);
	const struct lt_thread *t = lt_snapshot_find(s, pid);
	cr_assert_not_null(t);
	char want[64];
	snprintf(want, sizeof(want), "sem.lt-ipc-waits-%d+0x0", (int)pid);
	cr_expect(t->futex.lock_sym && !strcmp(t->futex.lock_sym, want), "%s, not %s",
		  t->futex.lock_sym ? t->futex.lock_sym : "(none)", want);
	lt_snapshot_free(s);
}

/* A timed lock acquire (python3's Lock.acquire(timeout=600): glibc's
 * sem_clockwait) resumed after a stop is restart_syscall too, but a lock
 * wait: never IDLE, said with the acquire it is in. */
Test(waitfor_live, a_timed_lock_acquire_resumed_after_a_stop_is_not_idle)
{
	start_py("import threading\n"
		 "l = threading.Lock(); l.acquire()\n"
		 "t = threading.Thread(target=lambda: l.acquire(timeout=600)); t.start()\n"
		 "print('ready', flush=True)\n"
		 "t.join()\n");
	pid_t pid = procs[0].pid;
	pid_t tid = 0;
	char path[96];
	snprintf(path, sizeof(path), "/proc/%d/task", (int)pid);
	for (double t0 = tl_now_s(); !tid && tl_now_s() - t0 < 10; usleep(20000)) {
		FILE *f = NULL;
		char p2[128], line[256];
		for (int cand = pid + 1; cand < pid + 64 && !tid; cand++) {
			snprintf(p2, sizeof(p2), "/proc/%d/task/%d/syscall", (int)pid, cand);
			if ((f = fopen(p2, "r")) && fgets(line, sizeof(line), f) && atoi(line) == 202)
				tid = cand;
			if (f)
				fclose(f);
		}
	}
	cr_assert_gt(tid, 0, "the acquiring thread never slept in futex");
	cr_assert_eq(kill(pid, SIGSTOP), 0);
	wait_state(pid, 'T');
	cr_assert_eq(kill(pid, SIGCONT), 0);
	tl_wait_in_call(pid, tid, 219, 10000); /* restart_syscall */
	struct lt_snapshot *s = NULL;
	struct lt_snapshot_opts o = { .flags = LT_SNAP_NO_LINES }; /* its user stack: the acquire */
	cr_assert_eq(lt_snapshot_take(pid, &o, &s), 0);
	const struct lt_thread *t = lt_snapshot_find(s, tid);
	cr_assert_not_null(t);
	cr_expect(t->acquire && !strncmp(t->acquire, "sem_", 4), "acquire %s", t->acquire ? t->acquire : "(none)");
	cr_expect(t->detail && strstr(t->detail, "resumed after a stop, a lock wait"), "%s", t->detail ? t->detail : "");
	for (size_t i = 0; i < s->n_verdicts; i++)
		cr_expect_neq(s->verdicts[i].kind, LT_VERDICT_IDLE, "%s", s->verdicts[i].summary);
	lt_snapshot_free(s);
}

static const char MPLOCK_PY[] =
	"import multiprocessing as mp, os, sys, time\n"
	"def child(l, q):\n"
	"    l.acquire(); q.put(os.getpid()); time.sleep(600)\n"
	"if __name__ == '__main__':\n"
	"    l = mp.Lock(); q = mp.Queue()\n"
	"    p = mp.Process(target=child, args=(l, q)); p.start()\n"
	"    print('holder pid=%d' % q.get(), flush=True)\n"
	"    print('ready', flush=True)\n"
	"    l.acquire()\n";

/* A multiprocessing.Lock (a POSIX semaphore in /dev/shm) held by a child:
 * the parent's wait records no owner; the snapshot follows into the
 * processes that map the semaphore, and names the child as a candidate. */
Test(waitfor_live, a_shared_semaphore_is_followed_into_the_processes_mapping_it)
{
	start_py(MPLOCK_PY);
	pid_t parent = procs[0].pid;
	pid_t holder = (pid_t)tl_truth_val(lines[0], nlines[0], "holder", NULL, "pid");
	wait_in_syscall(parent, parent, 202);
	struct lt_multi_snapshot *m = follow(parent);
	bool in = false;
	for (size_t i = 0; i < m->n_procs; i++)
		in |= m->procs[i]->pid == holder;
	cr_assert(in, "the semaphore's other mapper %d was not followed", (int)holder);
	lt_multi_free(m);
}

/* Whether verdict V (JSON) has an evidence line holding A and B (if B). */
static bool ev_has(const struct rp_json *v, const char *a, const char *b)
{
	const struct rp_json *ev = rp_json_get(v, "evidence");
	for (size_t i = 0; ev && ev->type == RPJ_ARR && i < ev->n; i++) {
		const char *l = rp_json_str(&ev->items[i]);
		if (l && strstr(l, a) && (!b || strstr(l, b)))
			return true;
	}
	return false;
}

/* The trial's cycle through a condition variable, a pipe, a unix socket
 * and a file lock across three processes (tests/workloads/inferred_cycle.c):
 * `snapshot -p CLIENT` names it as a probable deadlock, first, saying
 * which links are inferred (which server thread answers the socket, who
 * signals the condition variable) and why, with the threads, processes,
 * socket, pipe and lock file. */
Test(waitfor_live, a_cycle_through_a_condvar_pipe_socket_and_flock_is_a_probable_deadlock)
{
	need_root();
	if (access(WL("inferred_cycle"), X_OK))
		cr_skip_test("%s not built: run make all first", WL("inferred_cycle"));
	tmp_lockfile(0);
	snprintf(extra_sock, sizeof(extra_sock), "/tmp/lt-waitfor-%d.sock", (int)getpid());
	tl_start_ready(&procs[0], (char *const[]){ WL("inferred_cycle"), lockfile[0], extra_sock, NULL }, lines[0],
		       &nlines[0], 64, 30000);
	pid_t srv = procs[0].pid;
	pid_t cli = (pid_t)tl_truth_val(lines[0], nlines[0], "child", "role=client", "pid");
	pid_t lg = (pid_t)tl_truth_val(lines[0], nlines[0], "child", "role=logger", "pid");
	pid_t wk = (pid_t)tl_truth_val(lines[0], nlines[0], "thread", "role=worker", "tid");
	pid_t hd = (pid_t)tl_truth_val(lines[0], nlines[0], "thread", "role=handler", "tid");
	unsigned long pipe_ino = tl_truth_val(lines[0], nlines[0], "pipe", NULL, "ino");
	uint64_t cv = tl_truth_val(lines[0], nlines[0], "lock", "name=done_cv ", "addr");
	tl_wait_in_call(srv, hd, 202, 10000); /* futex: pthread_cond_wait */
	tl_wait_in_call(srv, wk, 1, 10000);   /* write: the pipe is full */
	tl_wait_in_call(lg, lg, 73, 10000);   /* flock */
	tl_wait_in_call(cli, cli, 0, 10000);  /* read */
	tl_wait_in_call(srv, srv, 43, 10000); /* accept */
	struct stat st;
	cr_assert_eq(stat(lockfile[0], &st), 0);

	struct rp_json *j = tl_snapshot_cli_json(cli);
	const struct rp_json *vs = rp_json_get(j, "verdicts");
	cr_assert(vs && vs->type == RPJ_ARR && vs->n);
	const struct rp_json *v = &vs->items[0];
	cr_assert_str_eq(rp_json_str(rp_json_get(v, "kind")), "deadlock");
	const char *sum = rp_json_str(rp_json_get(v, "summary"));
	char want[600];
	snprintf(want, sizeof(want), "probable deadlock (which thread of a process answers and a condition variable's "
		 "signaller inferred): 4 threads in 3 processes wait for each other: %d (client) -> %d (handler) -> "
		 "%d (worker) -> %d (logger) -> %d", (int)cli, (int)hd, (int)wk, (int)lg, (int)cli);
	cr_expect_str_eq(sum, want);
	snprintf(want, sizeof(want), "inferred: of the 3 threads of process %d (srv), which holds the other end of unix "
		 "socket socket:[", (int)srv);
	char want2[300];
	snprintf(want2, sizeof(want2), "thread %d (handler) is taken to be the one to answer thread %d: its own chain "
		 "leads back to it (through %d); its other thread waits for what no thread of the cycle gives, none "
		 "running or on a timer: %d (srv) accept(fd ", (int)hd, (int)cli, (int)wk, (int)srv);
	cr_expect(ev_has(v, want, want2), "no line: %s ... %s", want, want2);
	snprintf(want, sizeof(want), "thread %d (handler) of process %d waits on condition variable at 0x%" PRIx64,
		 (int)hd, (int)srv, cv);
	snprintf(want2, sizeof(want2), "which records no thread to signal it <- probably thread %d (worker) (inferred)",
		 (int)wk);
	cr_expect(ev_has(v, want, want2), "no line: %s ... %s", want, want2);
	snprintf(want, sizeof(want), "of the other threads of process %d (srv), thread %d (worker) is taken to be the one "
		 "to, once it goes on: its own chain leads back to thread %d", (int)srv, (int)wk, (int)hd);
	cr_expect(ev_has(v, "inferred: condition variable at", want), "no line: %s", want);
	snprintf(want, sizeof(want), "thread %d (worker) write(fd ", (int)wk);
	snprintf(want2, sizeof(want2), "on pipe pipe:[%lu] (fd ", pipe_ino);
	cr_expect(ev_has(v, want, want2), "no line: %s ... %s", want, want2);
	snprintf(want2, sizeof(want2), "<- read only by process %d (logger), any of its threads", (int)lg);
	cr_expect(ev_has(v, want, want2), "no line: %s ... %s", want, want2);
	snprintf(want, sizeof(want), "FLOCK WRITE lock on %s (whole file, inode %02x:%02x:%lu) <- held only by process "
		 "%d (client)", lockfile[0], major(st.st_dev), minor(st.st_dev), (unsigned long)st.st_ino, (int)cli);
	cr_expect(ev_has(v, "(logger) flock(", want), "no line: %s", want);
	rp_json_free(j);
}

/* Two processes each reading the other's end of a tcp connection, the
 * client with SO_RCVTIMEO 60 s (tests/workloads/sock_timeo.c, the trial's
 * tcp_timeo): the timeout is read by BPF (the socket's sk_rcvtimeo: no
 * /proc file shows it), so the cycle is a deadlock until a timeout, said
 * "within" the timeout (when the read began is not known), never a plain
 * deadlock; where it cannot be read (LOCKTRACE_NO_SOCKTIMEO, as without
 * BPF) a probable deadlock whose timeout is not known. */
Test(waitfor_live, a_tcp_read_with_so_rcvtimeo_in_a_cycle_is_a_deadlock_until_a_timeout)
{
	need_root();
	if (access(WL("sock_timeo"), X_OK))
		cr_skip_test("%s not built: run make all first", WL("sock_timeo"));
	tl_start_ready(&procs[0], (char *const[]){ WL("sock_timeo"), "60", NULL }, lines[0], &nlines[0], 64, 30000);
	pid_t srv = procs[0].pid;
	pid_t cli = (pid_t)tl_truth_val(lines[0], nlines[0], "child", "role=client", "pid");
	tl_wait_in_call(srv, srv, 45, 10000); /* recvfrom */
	tl_wait_in_call(cli, cli, 45, 10000);

	struct lt_snapshot *s = take(cli);
	const struct lt_thread *t = lt_snapshot_find(s, cli);
	cr_assert_not_null(t);
	cr_expect_eq(t->fdw.sock_timeo, LT_SOCK_TIMEO_SET, "the client's SO_RCVTIMEO read: %s", t->detail);
	cr_expect_eq(t->fdw.sock_timeo_ms, 60000);
	cr_expect(t->detail && strstr(t->detail, ") SO_RCVTIMEO 60000 ms"), "%s", t->detail);
	lt_snapshot_free(s);
	s = take(srv);
	t = lt_snapshot_find(s, srv);
	cr_assert_not_null(t);
	cr_expect_eq(t->fdw.sock_timeo, LT_SOCK_TIMEO_NONE, "the server's socket has none: %s", t->detail);
	lt_snapshot_free(s);

	struct rp_json *j = tl_snapshot_cli_json(srv);
	const struct rp_json *vs = rp_json_get(j, "verdicts");
	cr_assert(vs && vs->type == RPJ_ARR && vs->n);
	cr_assert_str_eq(rp_json_str(rp_json_get(&vs->items[0], "kind")), "deadlock");
	const char *sum = rp_json_str(rp_json_get(&vs->items[0], "summary"));
	char want[400];
	snprintf(want, sizeof(want), "deadlock until a timeout: 2 threads in 2 processes wait for each other: %d "
		 "(sock_timeo) -> %d (sock_timeo) -> %d; thread %d (sock_timeo) waits with a timeout (SO_RCVTIMEO 60.0 s "
		 "on its socket: within 60.0 s, about ", (int)srv, (int)cli, (int)srv, (int)cli);
	cr_assert(sum && !strncmp(sum, want, strlen(want)), "%s\n(wanted: %s...)", sum ? sum : "?", want);
	double left = atof(sum + strlen(want));
	cr_expect(left > 40 && left <= 60, "%.1f s left of 60: %s", left, sum);
	cr_expect(strstr(sum, " s from now if the call began when the thread last ran)"), "%s", sum);
	rp_json_free(j);

	setenv("LOCKTRACE_NO_SOCKTIMEO", "1", 1);
	j = tl_snapshot_cli_json(srv);
	unsetenv("LOCKTRACE_NO_SOCKTIMEO");
	vs = rp_json_get(j, "verdicts");
	cr_assert(vs && vs->type == RPJ_ARR && vs->n);
	cr_assert_str_eq(rp_json_str(rp_json_get(&vs->items[0], "kind")), "deadlock");
	sum = rp_json_str(rp_json_get(&vs->items[0], "summary"));
	snprintf(want, sizeof(want), "probable deadlock: 2 threads in 2 processes wait for each other: %d (sock_timeo) "
		 "-> %d (sock_timeo) -> %d; whether the socket reads or writes of threads %d (sock_timeo), %d "
		 "(sock_timeo) have a timeout (SO_RCVTIMEO, SO_SNDTIMEO) is not known (not read: see the notes): they "
		 "may end by themselves", (int)srv, (int)cli, (int)srv, (int)srv, (int)cli);
	cr_expect_str_eq(sum, want);
	/* the registers came all the same, from the object loaded again
	 * without the task-file iterator */
	const struct rp_json *ps = rp_json_get(j, "processes");
	cr_assert(ps && ps->type == RPJ_ARR && ps->n == 2, "two processes");
	for (size_t i = 0; i < ps->n; i++) {
		const struct rp_json *th = rp_json_get(&ps->items[i], "threads");
		cr_assert(th && th->type == RPJ_ARR && th->n == 1);
		const struct rp_json *t0 = &th->items[0];
		int64_t tid = rp_json_int(rp_json_get(t0, "tid"), 0);
		cr_expect_str_eq(rp_json_str(rp_json_get(rp_json_get(t0, "user_stack"), "regs_source")), "caller",
				 "thread %d unwound from the task iterator's registers", (int)tid);
		cr_expect_str_eq(rp_json_str(rp_json_get(t0, "socket_timeout")), "unknown", "thread %d", (int)tid);
	}
	rp_json_free(j);
}

/* The snapshot's one BPF object (bpf/taskregs.bpf.c) on the client of
 * tests/workloads/sock_timeo.c: its task-file iterator reads the client's
 * one socket (the fd /proc/PID/fd names with its inode) with SO_RCVTIMEO
 * 60 s, i.e. 60 * HZ jiffies, and no SO_SNDTIMEO; its task iterator, from
 * the same load, the registers of the thread asleep in recvfrom (orig_ax
 * 45); a snapshot given the object reads the timeouts with it.  When the
 * kernel refuses the task-file iterator (as an old one would;
 * LOCKTRACE_NO_SOCKTIMEO makes it) the object loads without it: the
 * registers still come and the timeouts are said not read, and why. */
Test(waitfor_live, the_task_iterator_object_reads_socket_timeouts_and_registers_without_them)
{
	need_root();
	if (access(WL("sock_timeo"), X_OK))
		cr_skip_test("%s not built: run make all first", WL("sock_timeo"));
	tl_start_ready(&procs[0], (char *const[]){ WL("sock_timeo"), "60", NULL }, lines[0], &nlines[0], 64, 30000);
	pid_t cli = (pid_t)tl_truth_val(lines[0], nlines[0], "child", "role=client", "pid");
	tl_wait_in_call(cli, cli, 45, 10000); /* recvfrom */

	for (int refused = 0; refused < 2; refused++) {
		struct lt_taskiter *it = NULL;
		char err[400] = "";
		if (refused)
			setenv("LOCKTRACE_NO_SOCKTIMEO", "1", 1);
		int r = lt_taskiter_open(cli, &it, err, sizeof(err));
		unsetenv("LOCKTRACE_NO_SOCKTIMEO");
		cr_assert_eq(r, 0, "refused %d: %s", refused, err);
		cr_expect_eq(lt_taskiter_tgid(it), cli);

		struct lt_tid_regs *regs = NULL;
		size_t nregs = 0;
		cr_assert_eq(lt_taskiter_regs(it, &regs, &nregs, err, sizeof(err)), 0, "refused %d: %s", refused, err);
		cr_expect_eq(nregs, 1, "refused %d: the client has one thread", refused);
		cr_assert(nregs >= 1);
		cr_expect_eq(regs[0].tid, cli);
		cr_expect(!regs[0].stale, "refused %d: it sleeps", refused);
		cr_expect_eq(regs[0].regs.orig_ax, 45, "refused %d: in recvfrom, not %" PRIu64, refused,
			     regs[0].regs.orig_ax);
		free(regs);

		struct lt_socktimeo_rec *v = NULL;
		size_t n = 0;
		unsigned hz = 0;
		r = lt_taskiter_socktimeo(it, &v, &n, &hz, err, sizeof(err));
		if (refused) {
			cr_expect_eq(r, -1);
			cr_expect(strstr(err, "loading the task-file iterator: ") &&
				  strstr(err, "(LOCKTRACE_NO_SOCKTIMEO is set)"), "%s", err);
			cr_expect_eq(n, 0);
		} else {
			cr_assert_eq(r, 0, "%s", err);
			cr_assert_eq(n, 1, "the client's one socket");
			char link[64], path[64], want[64];
			snprintf(path, sizeof(path), "/proc/%d/fd/%u", (int)cli, v[0].fd);
			ssize_t l = readlink(path, link, sizeof(link) - 1);
			cr_assert(l > 0, "%s: %s", path, strerror(errno));
			link[l] = 0;
			snprintf(want, sizeof(want), "socket:[%" PRIu64 "]", v[0].ino);
			cr_expect_str_eq(link, want);
			cr_expect(hz == 100 || hz == 250 || hz == 300 || hz == 1000, "HZ %u", hz);
			cr_expect_eq(v[0].rcvtimeo, 60 * (int64_t)hz, "SO_RCVTIMEO 60 s: %" PRId64 " jiffies at HZ %u",
				     v[0].rcvtimeo, hz);
			cr_expect_eq(v[0].sndtimeo, INT64_MAX, "no SO_SNDTIMEO");
		}
		free(v);
		/* a snapshot given the object reads the timeouts with it, loading
		 * no other (which would read them where this one cannot) */
		struct lt_snapshot *snap = NULL;
		struct lt_snapshot_opts o = { .flags = LT_SNAP_NO_USTACK | LT_SNAP_NO_LINES, .iter = it };
		cr_assert_eq(lt_snapshot_take(cli, &o, &snap), 0);
		const struct lt_thread *t = lt_snapshot_find(snap, cli);
		cr_assert_not_null(t);
		cr_expect_eq(t->fdw.sock_timeo, refused ? LT_SOCK_TIMEO_UNKNOWN : LT_SOCK_TIMEO_SET, "refused %d: %s",
			     refused, t->detail);
		cr_expect_eq(t->fdw.sock_timeo_ms, refused ? 0 : 60000);
		lt_snapshot_free(snap);
		lt_taskiter_close(it);
	}
}

/* Python's subprocess.run(..., timeout=...) waits for its child by polling
 * waitpid(WNOHANG) between sleeps (Popen._wait), not in wait4: Debian's
 * python3 running flock(1) on a file another flock(1) holds.  Asleep in
 * that loop, its thread has a child edge naming the flock(1) that
 * /proc/locks names as the waiter (the Popen's own pid), carrying the
 * timeout it was given and what is left of it, read from the frame's
 * locals; followed, the child's lock wait names the holder and the parent
 * is a wait chain into it that says its timeout may end it first: never
 * IDLE ("a wait on a timer", as it was), never a deadlock. */
Test(waitfor_live, python_popen_wait_with_a_timeout_is_followed_to_its_childs_lock_holder)
{
	char held[256], waiting[256];
	flock_holds_lockfile(TL_PYTHON, "python3", held, sizeof(held));
	char script[300];
	snprintf(script, sizeof(script), "import subprocess; subprocess.run(['%s', '%s', 'true'], timeout=600)",
		 FLOCK_BIN, lockfile[0]);
	double t0 = tl_now_s();
	spawn(1, (char *const[]){ TL_PYTHON, "-c", script, NULL });
	pid_t py = procs[1].pid, ch = only_child(py);
	tl_locks_line(ch, lockfile[0], true, waiting, sizeof(waiting)); /* the child is the waiter */

	const struct lt_thread *t = NULL;
	struct lt_snapshot *s = take_when(py, 230, 35, 0, &t); /* asleep between two polls */
	cr_assert(t && t->sc.state == LT_SC_IN_SYSCALL && t->sc.nr == 230, "python3 asleep in clock_nanosleep");
	const struct lt_wf_edge *e = edge_of(s, py, LT_WF_CHILD);
	cr_assert(lt_wf_pollchild(e), "%s", e->what);
	cr_assert_eq(e->n_pids, 1, "one child");
	cr_expect_eq(e->pids[0], ch, "the child %d, the waiter of /proc/locks: %s", (int)ch, waiting);
	cr_expect_eq(e->pstate, LT_WFP_BLOCKED, "the child is blocked itself (%s)", e->doing ? e->doing : "?");
	cr_expect(e->evidence && strstr(e->evidence, "Popen._wait") && strstr(e->evidence, "subprocess.py"), "%s",
		  e->evidence ? e->evidence : "?");
	cr_expect(e->evidence && strstr(e->evidence, "the Popen's pid (self.pid)"), "%s", e->evidence);
	for (size_t i = 0; i < t->wf->n_edges; i++)
		cr_expect(t->wf->edges[i].kind != LT_WF_TIMER, "the sleep's own end is no end of the wait, and the "
			  "timeout was read: %s", t->wf->edges[i].what);
	/* the timeout it was given, read from Popen._wait's locals, and what
	 * is left of it: at most 600 s, at least 600 s less the time since
	 * before the test started python3 (and the snapshot's) */
	cr_expect_str_eq(e->timeout_what, "Popen.wait timeout");
	cr_expect(e->timeout_s > 599.999 && e->timeout_s < 600.001, "timeout %.3f s", e->timeout_s);
	double since = tl_now_s() - t0;
	cr_expect(e->timeout_left_s <= 600 && e->timeout_left_s >= 600 - since, "left %.3f s, %.3f s after the "
		  "start", e->timeout_left_s, since);

	/* the same snapshot, followed: a new one could catch python3 awake
	 * between two polls (its sleeps are 50 ms; a snapshot under load
	 * takes longer), with no wait to follow */
	struct lt_multi_snapshot *m = follow_snap(s);
	cr_assert_eq(m->n_procs, 2, "followed from python3 into its child");
	cr_expect_eq(m->procs[1]->pid, ch);
	const struct lt_verdict *lw = verdict_for(m, LT_VERDICT_LOCK_WAIT, ch);
	cr_assert_not_null(lw, "the child's lock wait (first: %s)", m->view.n_verdicts ? m->view.verdicts[0].summary : "-");
	cr_expect_eq(lw->owner, procs[0].pid, "holder from /proc/locks: %s", held);
	const struct lt_verdict *wc = verdict_for(m, LT_VERDICT_WAIT_CHAIN, py);
	cr_assert_not_null(wc, "python3's wait chain (first: %s)", m->view.n_verdicts ? m->view.verdicts[0].summary : "-");
	char into[64], holder[32];
	snprintf(into, sizeof(into), "waits for process %d, whose thread %d (flock)", (int)ch, (int)ch);
	snprintf(holder, sizeof(holder), "held by processes %d", (int)procs[0].pid);
	cr_expect(strstr(wc->summary, into) && strstr(wc->summary, "in a lock wait") && strstr(wc->summary, holder) &&
		  strstr(wc->summary, "; or by its Popen.wait timeout (600.0 s), within "), "%s", wc->summary);
	for (size_t i = 0; i < m->view.n_verdicts; i++)
		cr_expect(m->view.verdicts[i].kind != LT_VERDICT_IDLE && m->view.verdicts[i].kind != LT_VERDICT_DEADLOCK,
			  "%s", m->view.verdicts[i].summary);
	lt_multi_free(m);
}

/* The deadlock Python's documentation warns of: Popen(stdout=PIPE) and
 * wait(timeout=300) before reading, the child writing more than the pipe
 * holds.  The parent polls for the child, the child waits for the parent
 * to read: a deadlock until the parent's timeout (read from Popen._wait's
 * locals), naming both threads; it was IDLE, "1 wait on a timer". */
Test(waitfor_live, python_popen_wait_on_a_full_pipe_is_a_deadlock_until_its_timeout)
{
	need_root();
	if (access(TL_PYTHON, X_OK))
		cr_skip_test("%s missing", TL_PYTHON);
	const char *script = "import subprocess, sys\n"
			     "p = subprocess.Popen([sys.executable, '-c', \"import sys; sys.stdout.write('x' * 1000000)\"], "
			     "stdout=subprocess.PIPE)\n"
			     "p.wait(timeout=300)\n";
	spawn(0, (char *const[]){ TL_PYTHON, "-c", (char *)script, NULL });
	pid_t py = procs[0].pid, ch = only_child(py);
	wait_in_syscall(ch, ch, 1); /* the child blocks writing its stdout */
	const struct lt_thread *t = NULL;
	struct lt_snapshot *s = take_when(py, 230, 35, 0, &t);
	cr_assert(t && t->sc.state == LT_SC_IN_SYSCALL && t->sc.nr == 230, "python3 asleep in clock_nanosleep");
	struct lt_multi_snapshot *m = follow_snap(s); /* caught asleep: followed as it is */
	const struct lt_verdict *d = verdict_for(m, LT_VERDICT_DEADLOCK, py);
	cr_assert_not_null(d, "a deadlock (first: %s)", m->view.n_verdicts ? m->view.verdicts[0].summary : "-");
	cr_expect_eq(d->n_tids, 2, "%s", d->summary);
	cr_expect(has_tid(d, ch), "the child %d in: %s", (int)ch, d->summary);
	char want[128];
	snprintf(want, sizeof(want), "thread %d (MainThread) waits with a timeout (Popen.wait timeout 300.0 s: Popen.wait "
		 "raises TimeoutExpired within ", (int)py);
	cr_expect(!strncmp(d->summary, "deadlock until a timeout:", 25) && strstr(d->summary, want), "%s", d->summary);
	for (size_t i = 0; i < m->view.n_verdicts; i++)
		cr_expect(m->view.verdicts[i].kind != LT_VERDICT_IDLE, "%s", m->view.verdicts[i].summary);
	lt_multi_free(m);
}

/* ---- a signalfd for a child's exit, a pty master: script(1) ---- */

#define SCRIPT_BIN "/usr/bin/script"

/* The fd of process PID linking to TGT (the first), and its fdinfo into
 * INFO; fails the test if there is none. */
static int fd_to(pid_t pid, const char *tgt, char *info, size_t len)
{
	char path[96], l[256];
	for (int fd = 0; fd < 256; fd++) {
		snprintf(path, sizeof(path), "/proc/%d/fd/%d", (int)pid, fd);
		ssize_t n = readlink(path, l, sizeof(l) - 1);
		if (n <= 0)
			continue;
		l[n] = 0;
		if (strcmp(l, tgt))
			continue;
		snprintf(path, sizeof(path), "/proc/%d/fdinfo/%d", (int)pid, fd);
		FILE *f = fopen(path, "r");
		cr_assert_not_null(f, "%s", path);
		size_t k = fread(info, 1, len - 1, f);
		fclose(f);
		info[k] = 0;
		return fd;
	}
	cr_assert_fail("process %d has no fd on %s", (int)pid, tgt);
	return -1;
}

/* The edge of thread TID whose "what" starts with PREFIX, or NULL. */
static const struct lt_wf_edge *edge_what(const struct lt_snapshot *s, pid_t tid, const char *prefix)
{
	const struct lt_thread *t = lt_snapshot_find(s, tid);
	for (size_t i = 0; t && t->wf && i < t->wf->n_edges; i++)
		if (t->wf->edges[i].what && !strncmp(t->wf->edges[i].what, prefix, strlen(prefix)))
			return &t->wf->edges[i];
	return NULL;
}

static bool names_pid(const struct lt_wf_edge *e, pid_t p)
{
	for (size_t i = 0; i < e->n_pids; i++)
		if (e->pids[i] == p)
			return true;
	return false;
}

/* util-linux's script(1) runs `flock FILE true` on a pty while another
 * flock(1) holds FILE: script polls its signalfd (SIGCHLD, SIGWINCH,
 * SIGTERM, ... blocked) and the pty master, its stdin at EOF (/dev/null).
 * The signalfd's SIGCHLD is a child edge to the flock(1) /proc/locks names
 * as the waiter, its other signals (the sigmask of its fdinfo, less
 * SIGCHLD) an unknown edge; the master's writers are the slave's holders,
 * among them the child.  `snapshot -p SCRIPT` (JSON and text): the child's
 * LOCK WAIT naming the holder first, script a WAIT CHAIN into it that says
 * its other signals may end it; never IDLE (it was: "1 wait on an unknown
 * party"), never a deadlock. */
Test(waitfor_live, script1_on_a_pty_is_followed_through_its_signalfd_and_pty_to_its_childs_lock_wait)
{
	char held[256], waiting[256], cmd[512];
	flock_holds_lockfile(SCRIPT_BIN, "bsdutils", held, sizeof(held));
	/* script runs its command with $SHELL -c, /bin/sh without SHELL (dash,
	 * which forks a lone command; bash execs it): exec'd here, so its
	 * child is flock under both */
	snprintf(cmd, sizeof(cmd), "exec %s -qc 'exec %s %s true' /dev/null </dev/null", SCRIPT_BIN, FLOCK_BIN,
		 lockfile[0]);
	spawn(1, (char *const[]){ "/bin/sh", "-c", cmd, NULL });
	pid_t sc = procs[1].pid, ch = only_child(sc);
	tl_locks_line(ch, lockfile[0], true, waiting, sizeof(waiting)); /* its child is the waiter */
	wait_in_syscall(sc, sc, 7);                                   /* script in poll */
	char sinfo[1024], minfo[1024], slave[32];
	int sfd = fd_to(sc, "anon_inode:[signalfd]", sinfo, sizeof(sinfo));
	int mfd = fd_to(sc, "/dev/ptmx", minfo, sizeof(minfo));
	uint64_t mask = 0;
	int idx = -1;
	cr_assert_eq(lt_status_sigmask(sinfo, "sigmask:", &mask), 0, "%s", sinfo);
	cr_assert(mask & (1ULL << 16), "script's signalfd has SIGCHLD (sigmask %016llx)", (unsigned long long)mask);
	cr_assert_eq(lt_fdinfo_tty_index(minfo, &idx), 0, "%s", minfo);
	snprintf(slave, sizeof(slave), "/dev/pts/%d", idx);
	char other[160], want[400];
	lt_sigset_str(mask & ~(1ULL << 16), other, sizeof(other));

	struct lt_snapshot *s = take(sc);
	const struct lt_wf_edge *e = edge_of(s, sc, LT_WF_CHILD);
	char sw[64];
	snprintf(sw, sizeof(sw), LT_WF_SIGCHLD "any child (signalfd fd %d)", sfd);
	cr_expect_str_eq(e->what, sw);
	cr_assert_eq(e->n_pids, 1, "one child");
	cr_expect_eq(e->pids[0], ch, "the child %d, the waiter of /proc/locks: %s", (int)ch, waiting);
	cr_expect_eq(e->pstate, LT_WFP_BLOCKED, "the child is blocked itself (%s)", e->doing ? e->doing : "?");
	const struct lt_wf_edge *o = edge_what(s, sc, LT_WF_SIGOTHER);
	cr_assert_not_null(o, "the signalfd's other signals");
	snprintf(want, sizeof(want), LT_WF_SIGOTHER "signalfd (fd %d): %s", sfd, other);
	cr_expect_str_eq(o->what, want);
	cr_expect_eq(o->kind, LT_WF_UNKNOWN);
	const struct lt_wf_edge *p = edge_what(s, sc, "pty master");
	cr_assert_not_null(p, "a pty edge");
	snprintf(want, sizeof(want), "pty master /dev/ptmx (fd %d) of %s", mfd, slave);
	cr_expect_str_eq(p->what, want);
	cr_expect_eq(p->kind, LT_WF_PIPE_READ);
	cr_expect(names_pid(p, ch), "the child %d holds the slave %s", (int)ch, slave);
	for (size_t i = 0; i < p->n_pids; i++)
		cr_expect(p->pids[i] == ch || p->pids[i] == sc, "only script and its child hold %s: %d", slave,
			  (int)p->pids[i]);
	lt_snapshot_free(s);

	/* the command, JSON */
	struct rp_json *j = tl_snapshot_cli_json(sc);
	const struct rp_json *vs = rp_json_get(j, "verdicts"), *chain = NULL;
	cr_assert(vs && vs->type == RPJ_ARR && vs->n);
	const struct rp_json *first = &vs->items[0], *ft = rp_json_get(first, "tids");
	cr_expect_str_eq(rp_json_str(rp_json_get(first, "kind")), "lock_wait", "first: %s",
			 rp_json_str(rp_json_get(first, "summary")));
	cr_expect(ft && ft->n == 1 && (pid_t)rp_json_num(&ft->items[0], 0) == ch, "the child's lock wait first");
	cr_expect_eq((pid_t)rp_json_num(rp_json_get(first, "owner"), 0), procs[0].pid, "holder: %s", held);
	for (size_t i = 0; i < vs->n; i++) {
		const char *k = rp_json_str(rp_json_get(&vs->items[i], "kind"));
		const struct rp_json *tids = rp_json_get(&vs->items[i], "tids");
		cr_expect(k && strcmp(k, "idle") && strcmp(k, "deadlock"), "%s: %s", k ? k : "?",
			  rp_json_str(rp_json_get(&vs->items[i], "summary")));
		if (k && !strcmp(k, "wait_chain") && tids && tids->n == 1 && (pid_t)rp_json_num(&tids->items[0], 0) == sc)
			chain = &vs->items[i];
	}
	cr_assert_not_null(chain, "no wait chain of script %d", (int)sc);
	const char *sum = rp_json_str(rp_json_get(chain, "summary"));
	snprintf(want, sizeof(want), "waits for process %d, whose thread %d (flock) is itself in a lock wait", (int)ch,
		 (int)ch);
	cr_expect(sum && strstr(sum, want), "%s\n(wanted: %s)", sum ? sum : "?", want);
	snprintf(want, sizeof(want), "held by processes %d", (int)procs[0].pid);
	cr_expect(sum && strstr(sum, want), "%s\n(wanted: %s)", sum ? sum : "?", want);
	snprintf(want, sizeof(want), "; or by a signal another process may send: the other signals of signalfd (fd %d): "
		 "%s (not followed: no deadlock is claimed)", sfd, other);
	cr_expect(sum && strstr(sum, want), "%s\n(wanted: %s)", sum ? sum : "?", want);
	/* script's pty edge in the JSON, naming the child */
	bool pty = false;
	const struct rp_json *ps = rp_json_get(j, "processes");
	for (size_t i = 0; ps && i < ps->n; i++) {
		if ((pid_t)rp_json_num(rp_json_get(&ps->items[i], "pid"), 0) != sc)
			continue;
		const struct rp_json *ts = rp_json_get(&ps->items[i], "threads");
		for (size_t k = 0; ts && k < ts->n; k++) {
			const struct rp_json *es = rp_json_get(rp_json_get(&ts->items[k], "wait_for"), "edges");
			for (size_t q = 0; es && q < es->n; q++) {
				const char *w = rp_json_str(rp_json_get(&es->items[q], "what"));
				const struct rp_json *pids = rp_json_get(&es->items[q], "pids");
				if (!w || strncmp(w, "pty master", 10) || !pids)
					continue;
				cr_expect_str_eq(rp_json_str(rp_json_get(&es->items[q], "kind")), "pipe_read");
				for (size_t r = 0; r < pids->n; r++)
					pty |= (pid_t)rp_json_num(&pids->items[r], 0) == ch;
			}
		}
	}
	cr_expect(pty, "the JSON's pty edge of script names its child %d", (int)ch);
	rp_json_free(j);

	/* and the text */
	char out[64][256], err[64][256];
	int nout = 0, nerr = 0;
	char pid[16], lw[64], wc[200];
	snprintf(pid, sizeof(pid), "%d", (int)sc);
	cr_expect_eq(tl_run_to_end((char *const[]){ LT_BIN, "snapshot", "-p", pid, "--no-ustack", NULL }, out, &nout, err,
				   &nerr), 0);
	snprintf(lw, sizeof(lw), "LOCK WAIT: thread %d (flock) waits for a file lock", (int)ch);
	snprintf(wc, sizeof(wc), "WAIT CHAIN: thread %d (script) poll(2 fds) waits for process %d, whose thread %d (flock) "
		 "is itself in a lock wait", (int)sc, (int)ch, (int)ch);
	int at_lw = -1, at_wc = -1, at_first = -1;
	for (int i = 0; i < nout; i++) {
		if (at_first < 0 && (!strncmp(out[i], "LOCK WAIT:", 10) || !strncmp(out[i], "WAIT CHAIN:", 11) ||
				     !strncmp(out[i], "IDLE:", 5)))
			at_first = i;
		if (!strncmp(out[i], lw, strlen(lw)))
			at_lw = i;
		if (!strncmp(out[i], wc, strlen(wc)))
			at_wc = i;
	}
	cr_expect(at_lw >= 0 && at_lw == at_first, "the first finding is the child's lock wait (%s)", lw);
	cr_expect(at_wc > at_lw, "then script's chain: %s", wc);
}

/* tests/workloads/sigfd_child.c: a parent reads (or polls) a signalfd for
 * its child's exit, no pty; the child waits for an flock(1)'s lock. */
static void start_sigfd(const char *mode, pid_t *child, int *sfd)
{
	need_root();
	if (access(FLOCK_BIN, X_OK))
		cr_skip_test("%s missing (Debian: util-linux)", FLOCK_BIN);
	if (access(WL("sigfd_child"), X_OK))
		cr_skip_test("%s not built: run make all first", WL("sigfd_child"));
	tmp_lockfile(0);
	spawn(0, (char *const[]){ FLOCK_BIN, lockfile[0], "-c", "sleep 600", NULL });
	char held[256], waiting[256];
	tl_locks_line(procs[0].pid, lockfile[0], false, held, sizeof(held));
	tl_start_ready(&procs[1], (char *const[]){ WL("sigfd_child"), (char *)mode, lockfile[0], NULL }, lines[1],
		       &nlines[1], 64, 30000);
	*child = (pid_t)tl_truth_val(lines[1], nlines[1], "child", NULL, "pid");
	*sfd = (int)tl_truth_val(lines[1], nlines[1], "signalfd", NULL, "fd");
	orphan = *child;
	tl_locks_line(*child, lockfile[0], true, waiting, sizeof(waiting));
	wait_in_syscall(procs[1].pid, procs[1].pid, strcmp(mode, "poll") ? 0 : 7);
}

/* Its SIGCHLD is a child edge to the child, its SIGUSR1 and SIGTERM an
 * unknown edge; followed, the parent is a wait chain into the child's
 * lock wait that says those signals may end it ("others": a read; "poll":
 * polled).  With SIGCHLD alone, a chain that says no other signal. */
Test(waitfor_live, a_signalfd_for_sigchld_is_followed_to_the_childs_lock_wait)
{
	static const char *const modes[] = { "others", "poll", "chld" };
	for (int mi = 0; mi < 3; mi++) {
		pid_t ch = 0;
		int sfd = -1;
		start_sigfd(modes[mi], &ch, &sfd);
		pid_t par = procs[1].pid;
		struct lt_snapshot *s = take(par);
		const struct lt_wf_edge *e = edge_of(s, par, LT_WF_CHILD);
		char want[300];
		snprintf(want, sizeof(want), LT_WF_SIGCHLD "any child (signalfd fd %d)", sfd);
		cr_expect_str_eq(e->what, want, "%s", modes[mi]);
		cr_expect(e->n_pids == 1 && e->pids[0] == ch, "%s: the child %d", modes[mi], (int)ch);
		cr_expect_eq(e->pstate, LT_WFP_BLOCKED, "%s: %s", modes[mi], e->doing ? e->doing : "?");
		cr_expect(e->evidence && strstr(e->evidence, "SIGCHLD is in the signalfd's mask and blocked"), "%s: %s",
			  modes[mi], e->evidence ? e->evidence : "?");
		const struct lt_wf_edge *o = edge_what(s, par, LT_WF_SIGOTHER);
		if (mi < 2) {
			snprintf(want, sizeof(want), LT_WF_SIGOTHER "signalfd (fd %d): SIGUSR1 SIGTERM", sfd);
			cr_expect(o && !strcmp(o->what, want), "%s: %s", modes[mi], o ? o->what : "no other signals");
		} else {
			cr_expect_null(o, "chld: %s", o ? o->what : "");
		}
		lt_snapshot_free(s);

		struct lt_multi_snapshot *m = follow(par);
		cr_assert_eq(m->n_procs, 2, "%s: followed into the child", modes[mi]);
		const struct lt_verdict *lw = verdict_for(m, LT_VERDICT_LOCK_WAIT, ch);
		cr_assert_not_null(lw, "%s: the child's lock wait", modes[mi]);
		cr_expect_eq(lw->owner, procs[0].pid);
		const struct lt_verdict *wc = verdict_for(m, LT_VERDICT_WAIT_CHAIN, par);
		cr_assert_not_null(wc, "%s: the parent's chain", modes[mi]);
		snprintf(want, sizeof(want), "waits for process %d", (int)ch);
		cr_expect(strstr(wc->summary, want), "%s: %s", modes[mi], wc->summary);
		snprintf(want, sizeof(want), "; or by a signal another process may send: the other signals of signalfd "
			 "(fd %d): SIGUSR1 SIGTERM (not followed: no deadlock is claimed)", sfd);
		if (mi < 2)
			cr_expect(strstr(wc->summary, want), "%s: %s", modes[mi], wc->summary);
		else
			cr_expect(!strstr(wc->summary, "or by a signal"), "chld: %s", wc->summary);
		for (size_t i = 0; i < m->view.n_verdicts; i++)
			cr_expect(m->view.verdicts[i].kind != LT_VERDICT_IDLE &&
				  m->view.verdicts[i].kind != LT_VERDICT_DEADLOCK, "%s: %s", modes[mi],
				  m->view.verdicts[i].summary);
		lt_multi_free(m);
		cleanup();
	}
}

/* A signalfd whose mask lacks SIGCHLD (SIGCHLD blocked, not in it): no
 * child's exit ends the read: no child edge, its signals an unknown
 * party, said by name; no chain into the child. */
Test(waitfor_live, a_signalfd_without_sigchld_stays_an_unknown_party)
{
	pid_t ch = 0;
	int sfd = -1;
	start_sigfd("nochld", &ch, &sfd);
	pid_t par = procs[1].pid;
	struct lt_snapshot *s = take(par);
	const struct lt_thread *t = lt_snapshot_find(s, par);
	cr_assert(t && t->wf && t->wf->n_edges == 1, "one edge");
	const struct lt_wf_edge *e = &t->wf->edges[0];
	char want[96];
	snprintf(want, sizeof(want), "anon_inode:[signalfd] (fd %d: SIGUSR1 SIGTERM)", sfd);
	cr_expect_eq(e->kind, LT_WF_UNKNOWN);
	cr_expect_str_eq(e->what, want);
	cr_expect_eq(e->n_pids, 0);
	cr_expect_eq(s->verdicts[0].kind, LT_VERDICT_IDLE, "%s", s->verdicts[0].summary);
	cr_expect(strstr(s->verdicts[0].summary, "none known to be stuck"), "%s", s->verdicts[0].summary);
	lt_snapshot_free(s);
}

/* script(1) whose command a shell runs and waits for (`sh -c 'flock L
 * true; true'`: the shell must stay for the second command), flock waiting
 * for a lock another flock(1) holds: script waits for the shell, the shell
 * for flock.  flock's LOCK WAIT, the shell a wait chain into it, and script
 * a wait chain into the shell's (a chain into a chain: script had no
 * verdict, the shell's chain being no verdict of the rules). */
Test(waitfor_live, script1_running_a_shell_is_a_chain_into_the_shells_chain)
{
	char held[256], waiting[256], cmd[512];
	flock_holds_lockfile(SCRIPT_BIN, "bsdutils", held, sizeof(held));
	snprintf(cmd, sizeof(cmd), "exec env SHELL=/bin/sh %s -qc '%s %s true; true' /dev/null </dev/null", SCRIPT_BIN,
		 FLOCK_BIN, lockfile[0]);
	spawn(1, (char *const[]){ "/bin/sh", "-c", cmd, NULL });
	pid_t sc = procs[1].pid, sh = only_child(sc), fl = only_child(sh);
	tl_locks_line(fl, lockfile[0], true, waiting, sizeof(waiting)); /* the shell's child is the waiter */
	wait_in_syscall(sh, sh, 61);                                  /* the shell in wait4 */
	wait_in_syscall(sc, sc, 7);                                   /* script in poll */
	struct lt_multi_snapshot *m = follow(sc);
	const struct lt_verdict *lw = verdict_for(m, LT_VERDICT_LOCK_WAIT, fl);
	cr_assert_not_null(lw, "flock's lock wait (first: %s)", m->view.n_verdicts ? m->view.verdicts[0].summary : "-");
	cr_expect_eq(lw->owner, procs[0].pid, "holder from /proc/locks: %s", held);
	const struct lt_verdict *ws = verdict_for(m, LT_VERDICT_WAIT_CHAIN, sh);
	cr_assert_not_null(ws, "the shell's chain (first: %s)", m->view.n_verdicts ? m->view.verdicts[0].summary : "-");
	char want[200];
	snprintf(want, sizeof(want), "waits for process %d, whose thread %d (flock) is itself in a lock wait", (int)fl,
		 (int)fl);
	cr_expect(strstr(ws->summary, want), "%s", ws->summary);
	const struct lt_verdict *wc = verdict_for(m, LT_VERDICT_WAIT_CHAIN, sc);
	cr_assert_not_null(wc, "script's chain (first: %s)", m->view.n_verdicts ? m->view.verdicts[0].summary : "-");
	snprintf(want, sizeof(want), "waits for process %d, whose thread %d (sh) is itself in a wait chain: thread %d (sh)",
		 (int)sh, (int)sh, (int)sh);
	cr_expect(strstr(wc->summary, want), "%s", wc->summary);
	for (size_t i = 0; i < m->view.n_verdicts; i++)
		cr_expect(m->view.verdicts[i].kind != LT_VERDICT_DEADLOCK && m->view.verdicts[i].kind != LT_VERDICT_IDLE,
			  "%s", m->view.verdicts[i].summary);
	lt_multi_free(m);
}

/* The other way: script(1) runs cat(1), which reads its terminal, the pty
 * slave; script's stdin is the test's pipe (open, no EOF: script would
 * send the child an EOF).  cat's read of /dev/pts/N is ended by whoever
 * holds the master with that tty-index: script alone. */
Test(waitfor_live, a_read_of_a_pty_slave_waits_for_the_masters_holder)
{
	need_root();
	if (access(SCRIPT_BIN, X_OK) || access("/bin/cat", X_OK))
		cr_skip_test("%s or /bin/cat missing (Debian: bsdutils, coreutils)", SCRIPT_BIN);
	spawn(1, (char *const[]){ SCRIPT_BIN, "-qc", "exec /bin/cat", "/dev/null", NULL });
	pid_t sc = procs[1].pid, ch = only_child(sc);
	wait_in_syscall(ch, ch, 0);  /* cat in read */
	wait_in_syscall(sc, sc, 7);  /* script in poll */
	char minfo[1024], slave[32], link[96], tgt[64];
	fd_to(sc, "/dev/ptmx", minfo, sizeof(minfo));
	int idx = -1;
	cr_assert_eq(lt_fdinfo_tty_index(minfo, &idx), 0, "%s", minfo);
	snprintf(slave, sizeof(slave), "/dev/pts/%d", idx);
	snprintf(link, sizeof(link), "/proc/%d/fd/0", (int)ch);
	ssize_t n = readlink(link, tgt, sizeof(tgt) - 1);
	cr_assert_gt(n, 0);
	tgt[n] = 0;
	cr_assert_str_eq(tgt, slave, "cat's stdin is script's slave");
	struct lt_snapshot *s = take(ch);
	const struct lt_wf_edge *e = edge_of(s, ch, LT_WF_PIPE_READ);
	char want[96];
	snprintf(want, sizeof(want), "pty slave %s (fd 0)", slave);
	cr_expect_str_eq(e->what, want);
	cr_expect(e->n_pids == 1 && e->pids[0] == sc, "the master's only holder, script %d (%zu pids, first %d)", (int)sc,
		  e->n_pids, e->n_pids ? (int)e->pids[0] : 0);
	lt_snapshot_free(s);
}

/* A relay between a client and a stuck server (found by a sweep of real
 * programs: ssh -L, socat, pgbouncer and sidecars are such relays).  The
 * server's handler waits for a file lock flock(1) holds; the relay selects
 * on its client's socket and its server's, forwarding both ways; the client
 * reads the relay's socket.  The client waits only on the relay, so it
 * cannot end the relay's wait before the relay wakes it: it is set aside,
 * and `snapshot -p CLIENT` says client -> relay -> the server's lock wait,
 * as two wait chains (before, the client and the relay had no verdict at
 * all).  With TIMEOUT the client reads with a timeout (Python's
 * settimeout: a poll with one), a way out of its own: it is not set aside,
 * and neither it nor the relay is a chain.  Never a deadlock. */
static const char RELAY_PY[] =
	"import fcntl, select, socket, sys\n"
	"role = sys.argv[1]\n"
	"def listener():\n"
	"    ls = socket.socket(); ls.bind(('127.0.0.1', 0)); ls.listen()\n"
	"    print('port', ls.getsockname()[1], flush=True); return ls\n"
	"if role == 'server':\n"
	"    ls = listener(); print('ready', flush=True)\n"
	"    c, _ = ls.accept(); c.recv(100)\n"
	"    f = open(sys.argv[2]); fcntl.flock(f, fcntl.LOCK_EX); c.sendall(b'ok')\n"
	"elif role == 'relay':\n"
	"    ls = listener(); print('ready', flush=True)\n"
	"    c, _ = ls.accept(); u = socket.create_connection(('127.0.0.1', int(sys.argv[2])))\n"
	"    while True:\n"
	"        r, _, _ = select.select([c, u], [], [])\n"
	"        for s in r:\n"
	"            d = s.recv(4096)\n"
	"            if not d: sys.exit()\n"
	"            (u if s is c else c).sendall(d)\n"
	"else:\n"
	"    s = socket.create_connection(('127.0.0.1', int(sys.argv[2])))\n"
	"    if sys.argv[3] == 'timeout': s.settimeout(600)\n"
	"    print('ready', flush=True); s.sendall(b'hi'); s.recv(100)\n";

static const struct rp_json *verdict_json(const struct rp_json *vs, const char *kind, pid_t tid)
{
	for (size_t i = 0; vs && i < vs->n; i++) {
		const char *k = rp_json_str(rp_json_get(&vs->items[i], "kind"));
		const struct rp_json *tids = rp_json_get(&vs->items[i], "tids");
		for (size_t q = 0; k && !strcmp(k, kind) && tids && q < tids->n; q++)
			if ((pid_t)rp_json_num(&tids->items[q], 0) == tid)
				return &vs->items[i];
	}
	return NULL;
}

static bool json_evidence_has(const struct rp_json *v, const char *a, const char *b)
{
	const struct rp_json *ev = v ? rp_json_get(v, "evidence") : NULL;
	for (size_t i = 0; ev && i < ev->n; i++) {
		const char *l = rp_json_str(&ev->items[i]);
		if (l && strstr(l, a) && (!b || strstr(l, b)))
			return true;
	}
	return false;
}

static void relay_case(bool timeout)
{
	char held[256], port[2][16];
	flock_holds_lockfile(NULL, NULL, held, sizeof(held));
	if (access(TL_PYTHON, X_OK))
		cr_skip_test("%s missing", TL_PYTHON);
	pid_t locker = procs[0].pid;
	tl_start_ready(&procs[1], (char *const[]){ TL_PYTHON, "-c", (char *)RELAY_PY, "server", lockfile[0], NULL },
		       lines[1], &nlines[1], 64, 30000);
	const char *l = tl_find(lines[1], nlines[1], "port", NULL);
	cr_assert(l && sscanf(l, "port %15s", port[0]) == 1, "server: %s", l ? l : "no port line");
	tl_start_ready(&procs[2], (char *const[]){ TL_PYTHON, "-c", (char *)RELAY_PY, "relay", port[0], NULL },
		       lines[2], &nlines[2], 64, 30000);
	l = tl_find(lines[2], nlines[2], "port", NULL);
	cr_assert(l && sscanf(l, "port %15s", port[1]) == 1, "relay: %s", l ? l : "no port line");
	char cl_lines[8][256];
	int cl_n = 0;
	tl_start_ready(&fourth, (char *const[]){ TL_PYTHON, "-c", (char *)RELAY_PY, "client", port[1],
						 timeout ? "timeout" : "-", NULL }, cl_lines, &cl_n, 8, 30000);
	pid_t srv = procs[1].pid, rel = procs[2].pid, cli = fourth.pid;
	wait_in_syscall(srv, srv, 73);      /* flock: the request came through the relay */
	wait_in_either(rel, rel, 23, 270);  /* select (glibc may make it pselect6) */
	wait_in_either(cli, cli, 45, 7);    /* recvfrom, or poll with settimeout */
	struct rp_json *j = tl_snapshot_cli_json(cli);
	const struct rp_json *vs = rp_json_get(j, "verdicts");
	cr_assert(vs && vs->type == RPJ_ARR);
	for (size_t i = 0; i < vs->n; i++)
		cr_expect(strcmp(rp_json_str(rp_json_get(&vs->items[i], "kind")), "deadlock"), "a deadlock: %s",
			  rp_json_str(rp_json_get(&vs->items[i], "summary")));
	const struct rp_json *lw = verdict_json(vs, "lock_wait", srv);
	cr_assert_not_null(lw, "no lock wait of the server %d", (int)srv);
	cr_expect_eq((pid_t)rp_json_num(rp_json_get(lw, "owner"), 0), locker, "the lock's holder, flock(1) %d: %s",
		     (int)locker, held);
	const struct rp_json *rc = verdict_json(vs, "wait_chain", rel), *cc = verdict_json(vs, "wait_chain", cli);
	if (timeout) {
		cr_expect_null(rc, "a chain of the relay, though its client may time out: %s",
			       rc ? rp_json_str(rp_json_get(rc, "summary")) : "");
		cr_expect_null(cc, "a chain of the client, which may time out: %s",
			       cc ? rp_json_str(rp_json_get(cc, "summary")) : "");
		rp_json_free(j);
		return;
	}
	cr_assert_not_null(rc, "no wait chain of the relay %d", (int)rel);
	cr_expect_eq(rp_json_get(rc, "tids")->n, 1);
	const char *sum = rp_json_str(rp_json_get(rc, "summary"));
	char want[256];
	snprintf(want, sizeof(want), "thread %d (", (int)rel);
	cr_expect(sum && !strncmp(sum, want, strlen(want)), "%s\n(wanted: %s...)", sum ? sum : "?", want);
	snprintf(want, sizeof(want), "waits for process %d, whose thread %d (", (int)srv, (int)srv);
	cr_expect(sum && strstr(sum, want) && strstr(sum, ") is itself in a lock wait: thread"), "%s\n(wanted: %s)",
		  sum ? sum : "?", want);
	snprintf(want, sizeof(want), "; process %d, also at the other end, waits only on this process %d (each of its "
		 "threads does): it can end this wait only after process %d wakes it, so it is set aside (that nothing "
		 "else, a signal say, wakes it first is inferred)", (int)cli, (int)rel, (int)rel);
	cr_expect(sum && strstr(sum, want), "%s\n(wanted: %s)", sum ? sum : "?", want);
	snprintf(want, sizeof(want), "set aside: thread %d (", (int)cli);
	char want2[64];
	snprintf(want2, sizeof(want2), "<- peer held by %d, and waits on nothing else", (int)rel);
	cr_expect(json_evidence_has(rc, want, want2), "the client's wait in the relay's evidence: %s", sum ? sum : "?");
	cr_assert_not_null(cc, "no wait chain of the client %d", (int)cli);
	cr_expect_eq(rp_json_get(cc, "tids")->n, 1);
	const char *cs = rp_json_str(rp_json_get(cc, "summary"));
	snprintf(want, sizeof(want), "thread %d (", (int)cli);
	cr_expect(cs && !strncmp(cs, want, strlen(want)), "%s", cs ? cs : "?");
	snprintf(want, sizeof(want), "waits for process %d, whose thread %d (", (int)rel, (int)rel);
	cr_expect(cs && strstr(cs, want) && strstr(cs, ") is itself in a wait chain: thread"), "%s\n(wanted: %s)",
		  cs ? cs : "?", want);
	snprintf(want, sizeof(want), "waits for process %d, whose thread %d (", (int)srv, (int)srv);
	cr_expect(cs && strstr(cs, want), "the client's chain goes on to the server: %s", cs ? cs : "?");
	rp_json_free(j);
}

Test(waitfor_live, a_relays_client_waiting_only_on_it_is_set_aside_client_relay_server_chain)
{
	relay_case(false);
}

Test(waitfor_live, a_relays_client_reading_with_a_timeout_is_not_set_aside)
{
	relay_case(true);
}

#define TAIL_BIN "/usr/bin/tail"

/* coreutils' tail -f --pid=P waits for P's exit by polling (kill(P, 0)
 * between polls of its inotify fd, 1 s each): P, from its command line, is
 * a polled exit edge (inferred, said so), followed.  With P a flock(1)
 * waiting for a lock another flock(1) holds, tail's verdict is a chain
 * into P's lock wait, marked inferred; a tail --pid on the holder (asleep
 * on a timer through its child) has the same edge and no chain. */
/* tail --pid=Z of a zombie Z: kill(Z, 0) succeeds until its parent reaps
 * it, so the wait is that parent's to end.  bash forks a sleep and execs
 * flock(1), which waits for lockfile[0] (held) and never reaps the sleep:
 * tail's exit edge names flock, and its chain goes into flock's lock
 * wait. */
Test(waitfor_live, tail_pid_of_a_zombie_waits_for_its_parent_to_reap_it)
{
	char held[256], waiting[256], cmd[300];
	flock_holds_lockfile(TAIL_BIN, "coreutils", held, sizeof(held));
	snprintf(cmd, sizeof(cmd), "sleep 0.1 & exec %s %s true", FLOCK_BIN, lockfile[0]);
	spawn(1, (char *const[]){ "/bin/bash", "-c", cmd, NULL });
	pid_t p = procs[1].pid;
	wait_in_syscall(p, p, 73);
	tl_locks_line(p, lockfile[0], true, waiting, sizeof(waiting));
	pid_t z = 0;
	for (double t0 = tl_now_s(); tl_now_s() - t0 < 10; usleep(20000)) {
		z = only_child(p);
		char path[64], st[512] = "";
		snprintf(path, sizeof(path), "/proc/%d/stat", (int)z);
		FILE *f = z > 0 ? fopen(path, "r") : NULL;
		if (f) {
			if (!fgets(st, sizeof(st), f))
				st[0] = 0;
			fclose(f);
		}
		const char *rp = strrchr(st, ')');
		if (rp && rp[1] == ' ' && rp[2] == 'Z')
			break;
		z = 0;
	}
	cr_assert_gt(z, 0, "flock %d has no zombie child", (int)p);
	tmp_lockfile(1);
	char arg[32];
	snprintf(arg, sizeof(arg), "--pid=%d", (int)z);
	spawn(2, (char *const[]){ TAIL_BIN, "-f", arg, lockfile[1], NULL });
	pid_t t1 = procs[2].pid;
	wait_in_syscall(t1, t1, 7);
	struct lt_snapshot *s = take_when(t1, 7, 7, 0, NULL);
	const struct lt_wf_edge *e = edge_of(s, t1, LT_WF_EXIT);
	cr_assert_eq(e->n_pids, 1, "one process");
	cr_expect_eq(e->pids[0], p, "the zombie %d's parent %d (%s), not the zombie", (int)z, (int)p, e->what);
	char want[96];
	snprintf(want, sizeof(want), "a zombie until its parent %d reaps it", (int)p);
	cr_expect(strstr(e->what, want), "%s", e->what);
	lt_snapshot_free(s);
	struct lt_multi_snapshot *m = follow(t1);
	const struct lt_verdict *wc = verdict_for(m, LT_VERDICT_WAIT_CHAIN, t1);
	cr_assert_not_null(wc, "tail's wait chain (first: %s)", m->view.n_verdicts ? m->view.verdicts[0].summary : "-");
	snprintf(want, sizeof(want), "waits for process %d, whose thread %d (flock) is itself in a lock wait", (int)p,
		 (int)p);
	cr_expect(strstr(wc->summary, want), "%s", wc->summary);
	lt_multi_free(m);
}

Test(waitfor_live, tail_pid_waits_for_the_exit_of_its_pid_a_chain_into_its_lock_wait)
{
	char held[256], waiting[256];
	flock_holds_lockfile(TAIL_BIN, "coreutils", held, sizeof(held));
	spawn(1, (char *const[]){ FLOCK_BIN, lockfile[0], "true", NULL });
	pid_t p = procs[1].pid, h = procs[0].pid;
	tl_locks_line(p, lockfile[0], true, waiting, sizeof(waiting));
	wait_in_syscall(p, p, 73);
	tmp_lockfile(1); /* the file tail follows */
	char arg[32], arg2[32];
	snprintf(arg, sizeof(arg), "--pid=%d", (int)p);
	spawn(2, (char *const[]){ TAIL_BIN, "-f", arg, lockfile[1], NULL });
	snprintf(arg2, sizeof(arg2), "--pid=%d", (int)h);
	cr_assert_eq(tl_spawn(&fourth, (char *const[]){ TAIL_BIN, "-f", "-s", "2", arg2, lockfile[1], NULL }), 0);
	pid_t t1 = procs[2].pid, t2 = fourth.pid;
	wait_in_syscall(t1, t1, 7); /* poll: of its inotify fd, and its stdout (a pipe) for errors */
	wait_in_syscall(t2, t2, 7);

	const struct lt_thread *t;
	struct lt_snapshot *s = take_when(t1, 7, 7, 0, NULL);
	t = lt_snapshot_find(s, t1);
	cr_assert_not_null(t);
	const struct lt_wf_edge *e = edge_of(s, t1, LT_WF_EXIT);
	cr_expect(lt_wf_pollchild(e), "%s", e->what);
	cr_assert_eq(e->n_pids, 1, "one process");
	cr_expect_eq(e->pids[0], p, "the --pid %d, the waiter of /proc/locks: %s", (int)p, waiting);
	cr_expect_eq(e->pstate, LT_WFP_BLOCKED, "%s", e->doing ? e->doing : "?");
	cr_expect(strstr(e->what, "inferred") && e->evidence && strstr(e->evidence, "kill(") &&
		  strstr(e->evidence, "inferred"), "%s [%s]", e->what, e->evidence ? e->evidence : "?");
	for (size_t i = 0; i < t->wf->n_edges; i++) /* its inotify fd and the poll's timeout do not end the wait */
		cr_expect(t->wf->edges[i].kind == LT_WF_EXIT, "only the exit edge: %s", t->wf->edges[i].what);
	cr_expect(t->detail && strstr(t->detail, "polls for the exit of process"), "%s", t->detail ? t->detail : "?");
	lt_snapshot_free(s);

	struct lt_multi_snapshot *m = follow(t1);
	cr_assert_geq(m->n_procs, 2, "followed from tail into its --pid");
	cr_expect_eq(m->procs[1]->pid, p);
	const struct lt_verdict *lw = verdict_for(m, LT_VERDICT_LOCK_WAIT, p);
	cr_assert_not_null(lw, "P's lock wait (first: %s)", m->view.n_verdicts ? m->view.verdicts[0].summary : "-");
	cr_expect_eq(lw->owner, h, "holder from /proc/locks: %s", held);
	const struct lt_verdict *wc = verdict_for(m, LT_VERDICT_WAIT_CHAIN, t1);
	cr_assert_not_null(wc, "tail's wait chain (first: %s)", m->view.n_verdicts ? m->view.verdicts[0].summary : "-");
	char into[96];
	snprintf(into, sizeof(into), "waits for process %d, whose thread %d (flock) is itself in a lock wait", (int)p,
		 (int)p);
	cr_expect(strstr(wc->summary, into) && strstr(wc->summary, "that it waits for that process's exit is inferred"),
		  "%s", wc->summary);
	for (size_t i = 0; i < m->view.n_verdicts; i++)
		cr_expect(m->view.verdicts[i].kind != LT_VERDICT_IDLE && m->view.verdicts[i].kind != LT_VERDICT_DEADLOCK,
			  "%s", m->view.verdicts[i].summary);
	lt_multi_free(m);

	/* on the holder, asleep on a timer through its child: no chain */
	s = take(t2);
	e = edge_of(s, t2, LT_WF_EXIT);
	cr_expect(e->n_pids == 1 && e->pids[0] == h, "the --pid %d", (int)h);
	cr_expect_eq(e->pstate, LT_WFP_TIMED, "%s", e->doing ? e->doing : "?");
	cr_expect(e->evidence && strstr(e->evidence, "between waits of 2 s"), "its -s 2: %s", e->evidence);
	lt_snapshot_free(s);
	m = follow(t2);
	cr_expect_null(verdict_for(m, LT_VERDICT_WAIT_CHAIN, t2), "no chain into a sleeping holder");
	cr_expect_null(verdict_for(m, LT_VERDICT_DEADLOCK, t2));
	lt_multi_free(m);
}

/* Python's subprocess.run(..., timeout=..., capture_output=True) (and
 * Popen.communicate(timeout=...)) polls the child's pipes with what is
 * left of its timeout, and raises TimeoutExpired once it passes: Debian's
 * python3 running flock(1) on a file another flock(1) holds.  Its pipes'
 * edges name the flock(1) that /proc/locks names as the waiter and carry
 * the timeout (read from Popen._communicate's locals) and what is left;
 * the poll's timeout is no timer edge of its own.  Followed: a wait chain
 * into the child's lock wait that says the timeout may end it first (it
 * had no verdict, the poll's timeout taken as its end).  Then the parent
 * holding the lock itself: a deadlock until its timeout. */
static void run_timeout_chain(const char *python)
{
	char held[256], waiting[256];
	flock_holds_lockfile(python, "python3", held, sizeof(held));
	char script[400];
	snprintf(script, sizeof(script), "import subprocess; subprocess.run(['%s', '%s', 'true'], timeout=600, "
		 "capture_output=True)", FLOCK_BIN, lockfile[0]);
	double t0 = tl_now_s();
	spawn(1, (char *const[]){ (char *)python, "-c", script, NULL });
	pid_t py = procs[1].pid, ch = only_child(py);
	tl_locks_line(ch, lockfile[0], true, waiting, sizeof(waiting)); /* the child is the waiter */

	const struct lt_thread *t = NULL;
	struct lt_snapshot *s = take_when(py, 7, 7, 0, &t);
	cr_assert(t && t->sc.state == LT_SC_IN_SYSCALL && t->sc.nr == 7, "python3 in poll");
	size_t pipes = 0;
	double since = tl_now_s() - t0;
	for (size_t i = 0; i < t->wf->n_edges; i++) {
		const struct lt_wf_edge *e = &t->wf->edges[i];
		cr_expect(e->kind != LT_WF_TIMER, "the poll's timeout is the application's, read: %s", e->what);
		if (e->kind != LT_WF_PIPE_READ)
			continue;
		pipes++;
		cr_expect(e->n_pids == 1 && e->pids[0] == ch, "%s written by the child %d, the waiter of /proc/locks: %s",
			  e->what, (int)ch, waiting);
		cr_expect_eq(e->pstate, LT_WFP_BLOCKED, "the child is blocked itself (%s)", e->doing ? e->doing : "?");
		cr_expect_str_eq(e->timeout_what, "Popen.communicate timeout");
		cr_expect(e->timeout_s > 599.999 && e->timeout_s < 600.001, "timeout %.3f s", e->timeout_s);
		cr_expect(e->timeout_left_s <= 600 && e->timeout_left_s >= 600 - since, "left %.3f s, %.3f s after the "
			  "start", e->timeout_left_s, since);
		cr_expect(e->evidence && strstr(e->evidence, "_communicate") && strstr(e->evidence, "endtime"), "%s",
			  e->evidence ? e->evidence : "?");
	}
	cr_expect_eq(pipes, 2, "stdout and stderr pipes");

	struct lt_multi_snapshot *m = follow_snap(s);
	cr_assert_geq(m->n_procs, 2, "followed from python3 into its child");
	cr_expect_eq(m->procs[1]->pid, ch);
	const struct lt_verdict *lw = verdict_for(m, LT_VERDICT_LOCK_WAIT, ch);
	cr_assert_not_null(lw, "the child's lock wait (first: %s)", m->view.n_verdicts ? m->view.verdicts[0].summary : "-");
	cr_expect_eq(lw->owner, procs[0].pid, "holder from /proc/locks: %s", held);
	const struct lt_verdict *wc = verdict_for(m, LT_VERDICT_WAIT_CHAIN, py);
	cr_assert_not_null(wc, "python3's wait chain (first: %s)", m->view.n_verdicts ? m->view.verdicts[0].summary : "-");
	char into[64];
	snprintf(into, sizeof(into), "waits for process %d, whose thread %d (flock)", (int)ch, (int)ch);
	cr_expect(strstr(wc->summary, into) && strstr(wc->summary, "in a lock wait") &&
		  strstr(wc->summary, "; or by its Popen.communicate timeout (600.0 s), within "), "%s", wc->summary);
	for (size_t i = 0; i < m->view.n_verdicts; i++)
		cr_expect(m->view.verdicts[i].kind != LT_VERDICT_IDLE && m->view.verdicts[i].kind != LT_VERDICT_DEADLOCK,
			  "%s", m->view.verdicts[i].summary);
	lt_multi_free(m);
	tl_kill_tree(procs[1].pid);
	tl_close(&procs[1]);
}

Test(waitfor_live, python_run_with_a_timeout_polling_its_childs_pipes_is_a_chain_until_its_timeout)
{
	run_timeout_chain(TL_PYTHON);
	char script[400], waiting[256];
	const struct lt_thread *t = NULL;

	/* python3 holds the lock itself, then runs flock(1) on it: the child
	 * waits for the parent, the parent polls the child's pipes */
	tmp_lockfile(1);
	snprintf(script, sizeof(script), "import fcntl, subprocess\nf = open('%s', 'w')\nfcntl.flock(f, fcntl.LOCK_EX)\n"
		 "subprocess.run(['%s', '%s', 'true'], timeout=300, capture_output=True)\n", lockfile[1], FLOCK_BIN,
		 lockfile[1]);
	spawn(1, (char *const[]){ TL_PYTHON, "-c", script, NULL });
	pid_t py = procs[1].pid, ch = only_child(py);
	tl_locks_line(ch, lockfile[1], true, waiting, sizeof(waiting));
	struct lt_snapshot *s = take_when(py, 7, 7, 0, &t);
	cr_assert(t && t->sc.state == LT_SC_IN_SYSCALL && t->sc.nr == 7, "python3 in poll");
	struct lt_multi_snapshot *m = follow_snap(s);
	const struct lt_verdict *d = verdict_for(m, LT_VERDICT_DEADLOCK, py);
	cr_assert_not_null(d, "a deadlock (first: %s)", m->view.n_verdicts ? m->view.verdicts[0].summary : "-");
	cr_expect(d->n_tids == 2 && has_tid(d, ch), "the child %d in: %s", (int)ch, d->summary);
	char want[160];
	snprintf(want, sizeof(want), "thread %d (MainThread) waits with a timeout (Popen.communicate timeout 300.0 s: "
		 "Popen.communicate raises TimeoutExpired within ", (int)py);
	cr_expect(!strncmp(d->summary, "deadlock until a timeout:", 25) && strstr(d->summary, want), "%s", d->summary);
	lt_multi_free(m);
}

/* Two bash shells, each in `read -t 300` (a pselect6 with a timeout) on a
 * FIFO whose only write end the other holds, each writing the other's
 * FIFO only after its read: they wait for each other until a read times
 * out, but one snapshot cannot tell them from two healthy peers that poll
 * each other with a timeout and send a heartbeat when it expires (a
 * review found such pairs said deadlocked when a poll's own timeout was
 * left out of the cycle search).  So no deadlock is claimed: each read's
 * other end and its timeout are edges, the verdict idle on timers. */
Test(waitfor_live, two_shells_in_read_t_on_each_others_fifo_are_no_deadlock_claimed)
{
	need_root();
	snprintf(extra_link, sizeof(extra_link), "/tmp/lt-waitfor-%d-a.fifo", (int)getpid());
	snprintf(extra_sock, sizeof(extra_sock), "/tmp/lt-waitfor-%d-b.fifo", (int)getpid());
	cr_assert_eq(mkfifo(extra_link, 0600), 0, "mkfifo %s: %s", extra_link, strerror(errno));
	cr_assert_eq(mkfifo(extra_sock, 0600), 0, "mkfifo %s: %s", extra_sock, strerror(errno));
	char a[400], b[400];
	snprintf(a, sizeof(a), "exec 3<%s 4>%s; read -t 300 -u 3 x; echo a >&4", extra_link, extra_sock);
	snprintf(b, sizeof(b), "exec 4>%s 3<%s; read -t 300 -u 3 x; echo b >&4", extra_link, extra_sock);
	spawn(0, (char *const[]){ "/bin/bash", "-c", a, NULL });
	spawn(1, (char *const[]){ "/bin/bash", "-c", b, NULL });
	pid_t pa = procs[0].pid, pb = procs[1].pid;
	wait_in_syscall(pa, pa, 270); /* pselect6, with read -t's timeout */
	wait_in_syscall(pb, pb, 270);
	struct lt_snapshot *s = take(pa);
	const struct lt_wf_edge *e = edge_of(s, pa, LT_WF_PIPE_READ);
	cr_expect(e->n_pids == 1 && e->pids[0] == pb && !e->more_pids, "%s written only by %d", e->what, (int)pb);
	edge_of(s, pa, LT_WF_TIMER); /* the call's timeout stays an edge */
	lt_snapshot_free(s);
	struct lt_multi_snapshot *m = follow(pa);
	cr_assert_gt(m->view.n_verdicts, 0);
	for (size_t i = 0; i < m->view.n_verdicts; i++)
		cr_expect(m->view.verdicts[i].kind != LT_VERDICT_DEADLOCK, "%s", m->view.verdicts[i].summary);
	cr_expect_eq(m->view.verdicts[0].kind, LT_VERDICT_IDLE, "%s", m->view.verdicts[0].summary);
	lt_multi_free(m);
}

/* The same on a CPython before 3.11, whose frames are named without their
 * class (_communicate): pyenv's 3.8 build, if there is one. */
Test(waitfor_live, python38_run_with_a_timeout_polling_its_childs_pipes_is_a_chain_until_its_timeout)
{
	const char *root = getenv("PYENV_ROOT");
	char dir[200], py[600] = "";
	snprintf(dir, sizeof(dir), "%s/versions", root && *root ? root : "/root/.pyenv");
	DIR *d = opendir(dir);
	struct dirent *de;
	while (d && (de = readdir(d)))
		if (!strncmp(de->d_name, "3.8.", 4))
			snprintf(py, sizeof(py), "%s/%s/bin/python3.8", dir, de->d_name);
	if (d)
		closedir(d);
	if (!py[0] || access(py, X_OK))
		cr_skip_test("no pyenv build of CPython 3.8 in %s", dir);
	run_timeout_chain(py);
}

static const char FORKSERVER_PY[] =
	"import multiprocessing as mp, os, sys\n"
	"def child():\n"
	"    r, w = os.pipe()\n"
	"    os.dup2(r, 99)\n"
	"    os.read(99, 1)\n"
	"if __name__ == '__main__':\n"
	"    mp.set_start_method('forkserver')\n"
	"    p = mp.Process(target=child); p.start()\n"
	"    print('process pid=%d' % p.pid, flush=True)\n"
	"    print('ready', flush=True)\n"
	"    p.join()\n";

/* A multiprocessing Process started by the forkserver (Python 3.14's
 * default start method on Linux), its join() waiting while the Process
 * reads a pipe nobody writes: the join polls the Popen's sentinel, whose
 * only write end the forkserver keeps (it writes the exit status there once
 * it has reaped the Process).  Before: "write end held by process F, in an
 * event wait (idle)", the forkserver's loop, and no verdict for the join;
 * now the Process's exit, and a chain into it. */
Test(waitfor_live, a_forkserver_process_join_waits_for_that_process)
{
	need_root();
	if (access(TL_PYTHON, X_OK))
		cr_skip_test("%s missing", TL_PYTHON);
	snprintf(extra_link, sizeof(extra_link), "/tmp/lt-waitfor-%d-fs.py", (int)getpid());
	FILE *f = fopen(extra_link, "w");
	cr_assert_not_null(f, "%s: %s", extra_link, strerror(errno));
	cr_assert_eq(fputs(FORKSERVER_PY, f) >= 0 && fclose(f) == 0, 1, "%s", extra_link);
	tl_start_ready(&procs[0], (char *const[]){ TL_PYTHON, extra_link, NULL }, lines[0], &nlines[0], 64, 30000);
	pid_t p = procs[0].pid, child = (pid_t)tl_truth_val(lines[0], nlines[0], "process", NULL, "pid");
	cr_assert_gt(child, 0);
	orphan = child;
	/* its own read, on fd 99: the Process reads its pickled self before,
	 * maybe before the parent has written it (CI saw that read) */
	tl_wait_in_call_on(child, child, 0, 99, 10000);
	tl_wait_in_call(p, p, 7, 10000); /* poll */
	char path[64], *stat;
	size_t len = 0;
	snprintf(path, sizeof(path), "/proc/%d/stat", (int)child);
	stat = lts_read_all(path, &len);
	int fs = 0;
	cr_assert(stat && strrchr(stat, ')') && sscanf(strrchr(stat, ')') + 1, " %*c %d", &fs) == 1);
	free(stat);
	cr_assert_neq(fs, p, "the Process is the forkserver's child, not the parent's");
	struct lt_snapshot *s = take(p);
	const struct lt_wf_edge *e = edge_of(s, p, LT_WF_EXIT);
	cr_assert_eq(e->n_pids, 1);
	cr_expect_eq(e->pids[0], child);
	cr_expect_eq(e->pstate, LT_WFP_BLOCKED);
	char want[200];
	snprintf(want, sizeof(want), "the exit of process %d, a multiprocessing Process that its forkserver %d started",
		 (int)child, fs);
	cr_expect(e->what && strstr(e->what, want), "%s", e->what ? e->what : "-");
	const struct lt_verdict *v = NULL;
	for (size_t i = 0; i < s->n_verdicts && !v; i++)
		for (size_t k = 0; k < s->verdicts[i].n_tids; k++)
			if (s->verdicts[i].tids[k] == p)
				v = &s->verdicts[i];
	cr_assert_not_null(v, "no verdict for the join");
	cr_expect_eq(v->kind, LT_VERDICT_WAIT_CHAIN, "%s", v->summary);
	snprintf(want, sizeof(want), "poll(1 fds) waits for process %d [blocked itself]", (int)child);
	cr_expect(strstr(v->summary, want), "%s\nwant: %s", v->summary, want);
	lt_snapshot_free(s);
}

static const char MP_EVENT_PY[] =
	"import multiprocessing as mp, sys, time, fcntl\n"
	"def child(ev):\n"
	"    ev.wait()\n"
	"def cond_child(c):\n"
	"    with c:\n"
	"        c.wait()\n"
	"if __name__ == '__main__':\n"
	"    how = sys.argv[1]\n"
	"    if how == 'reacquire':\n"
	"        c = mp.Condition()\n"
	"        p = mp.Process(target=cond_child, args=(c,)); p.start()\n"
	"        print('child pid=%d' % p.pid, flush=True)\n"
	"        time.sleep(1)\n"
	"        c.acquire(); c.notify()\n" /* notified, it waits for the lock main keeps */
	"        print('ready', flush=True)\n"
	"        time.sleep(600)\n"
	"    ev = mp.Event()\n"
	"    p = mp.Process(target=child, args=(ev,)); p.start()\n"
	"    print('child pid=%d' % p.pid, flush=True)\n"
	"    print('ready', flush=True)\n"
	"    if how == 'sleep':\n"
	"        time.sleep(600)\n"
	"    elif how.startswith('join'):\n"
	"        if how == 'join-noint':\n"
	"            import signal; signal.signal(signal.SIGINT, signal.SIG_IGN)\n"
	"        p.join()\n" /* never set: they wait for each other */
	"    else:\n"
	"        f = open(how, 'w'); fcntl.flock(f, fcntl.LOCK_EX)\n"
	"    ev.set()\n";

enum mp_how { MP_SLEEP, MP_FLOCK, MP_JOIN, MP_JOIN_NOINT, MP_REACQUIRE };

/* A multiprocessing Process in Event.wait() (Condition.wait() on a
 * semaphore in shared memory) for its parent's set().  The parent asleep
 * on a timer: no finding names the Process (before: a lock wait "whose
 * holder is not recorded", in a healthy program).  The parent in flock()
 * for a lock flock(1) holds: a chain from the Process into the parent's
 * lock wait, its one possible setter, the processes mapping the semaphore
 * named.  The parent joining the Process, never to set(): they wait for each
 * other (a review: IDLE at first), unknown while the parent catches SIGINT
 * (CPython's handler, or one of the program's, may set it), a deadlock once
 * it ignores SIGINT.  A Process notified in Condition.wait(), waiting
 * to take the Condition's lock again, which the parent keeps: a lock wait,
 * not the Condition's wait (a review: named the Condition's at first). */
static void mp_event(enum mp_how how)
{
	need_root();
	if (access(TL_PYTHON, X_OK))
		cr_skip_test("%s missing", TL_PYTHON);
	char held[256];
	if (how == MP_FLOCK)
		flock_holds_lockfile(NULL, NULL, held, sizeof(held));
	const char *arg = how == MP_SLEEP ? "sleep" : how == MP_JOIN ? "join" : how == MP_JOIN_NOINT ? "join-noint"
			  : how == MP_REACQUIRE ? "reacquire" : lockfile[0];
	tl_start_ready(&procs[1], (char *const[]){ TL_PYTHON, "-c", (char *)MP_EVENT_PY, (char *)arg, NULL },
		       lines[1], &nlines[1], 64, 30000);
	pid_t par = procs[1].pid, ch = (pid_t)tl_truth_val(lines[1], nlines[1], "child", NULL, "pid");
	cr_assert_gt(ch, 0);
	orphan = ch;
	tl_wait_in_call(ch, ch, 202, 10000); /* futex: Event.wait(), or the lock */
	tl_wait_in_call(par, par, how == MP_FLOCK ? 73 : how == MP_JOIN || how == MP_JOIN_NOINT ? 61 : 230, 10000);
	struct lt_snapshot *s = take(ch);
	const struct lt_thread *t = lt_snapshot_find(s, ch);
	cr_assert_not_null(t);
	if (how == MP_REACQUIRE) {
		cr_expect(t->futex.lock_kind && strcmp(t->futex.lock_kind, LT_KIND_PY_MP_COND), "kind %s",
			  t->futex.lock_kind ? t->futex.lock_kind : "-");
	} else {
		cr_expect(t->futex.lock_kind && !strcmp(t->futex.lock_kind, LT_KIND_PY_MP_COND), "kind %s",
			  t->futex.lock_kind ? t->futex.lock_kind : "-");
		cr_expect(t->futex.lock_state &&
			  strstr(t->futex.lock_state, "waits in multiprocessing Event.wait() for a set()"), "%s",
			  t->futex.lock_state ? t->futex.lock_state : "-");
	}
	struct lt_multi_snapshot *m = follow_snap(s);
	cr_assert_eq(m->n_procs, 2, "the parent followed as a process mapping the semaphore");
	const struct lt_verdict *v = NULL;
	for (size_t i = 0; i < m->view.n_verdicts && !v; i++)
		if (has_tid(&m->view.verdicts[i], ch))
			v = &m->view.verdicts[i];
	char want[300];
	switch (how) {
	case MP_SLEEP:
		cr_expect_null(v, "no finding names the Process: %s", v ? v->summary : "");
		break;
	case MP_FLOCK:
		cr_assert_not_null(v, "a chain from the Process (first: %s)",
				   m->view.n_verdicts ? m->view.verdicts[0].summary : "-");
		cr_expect_eq(v->kind, LT_VERDICT_WAIT_CHAIN, "%s", v->summary);
		cr_expect_eq(v->cause_tid, par);
		snprintf(want, sizeof(want), "thread %d (MainThread) waits in multiprocessing Event.wait() for a set(), "
			 "which only a thread of a process mapping its semaphore can send (processes %d, %d), and none "
			 "can now: the only one not asleep for good, thread %d (MainThread), is itself in a lock wait: ",
			 (int)ch, (int)ch, (int)par, (int)par);
		cr_expect(!strncmp(v->summary, want, strlen(want)), "%s\nwant: %s", v->summary, want);
		cr_expect_not_null(verdict_for(m, LT_VERDICT_LOCK_WAIT, par), "the parent's own lock wait");
		break;
	case MP_JOIN:
	case MP_JOIN_NOINT:
		cr_assert_not_null(v, "a deadlock (first: %s)", m->view.n_verdicts ? m->view.verdicts[0].summary : "-");
		cr_expect_eq(v->kind, how == MP_JOIN ? LT_VERDICT_UNKNOWN : LT_VERDICT_DEADLOCK, "%s", v->summary);
		cr_expect(has_tid(v, par), "%s", v->summary);
		snprintf(want, sizeof(want), "%sthread %d (MainThread) waits in multiprocessing Event.wait() for a "
			 "set(), which only a thread of a process mapping its semaphore can send (processes %d, %d), and "
			 "none can: thread %d (MainThread) of process %d waits only for the waiter's process (wait4",
			 how == MP_JOIN ? "" : "deadlock: ", (int)ch, (int)ch, (int)par, (int)par, (int)par);
		cr_expect(!strncmp(v->summary, want, strlen(want)), "%s\nwant: %s", v->summary, want);
		if (how == MP_JOIN)
			cr_expect(strstr(v->summary, "they wait for each other; only a signal could still end it: the "
					 "process catches SIGINT"), "%s", v->summary);
		break;
	case MP_REACQUIRE:
		cr_assert_not_null(v, "a lock wait (first: %s)", m->view.n_verdicts ? m->view.verdicts[0].summary : "-");
		cr_expect_eq(v->kind, LT_VERDICT_LOCK_WAIT, "%s", v->summary);
		cr_expect_null(strstr(v->summary, "multiprocessing Condition"), "%s", v->summary);
		break;
	}
	lt_multi_free(m);
}

Test(waitfor_live, a_multiprocessing_event_whose_setter_sleeps_is_no_finding)
{
	mp_event(MP_SLEEP);
}

Test(waitfor_live, a_multiprocessing_event_whose_setter_is_stuck_is_a_chain)
{
	mp_event(MP_FLOCK);
}

Test(waitfor_live, a_multiprocessing_event_whose_setter_joins_the_waiter_is_unknown_under_sigint)
{
	mp_event(MP_JOIN);
}

Test(waitfor_live, a_multiprocessing_event_whose_setter_ignoring_sigint_joins_the_waiter_is_a_deadlock)
{
	mp_event(MP_JOIN_NOINT);
}

Test(waitfor_live, a_notified_multiprocessing_condition_waiter_retaking_its_lock_is_a_lock_wait)
{
	mp_event(MP_REACQUIRE);
}
