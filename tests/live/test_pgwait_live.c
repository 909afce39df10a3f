/* PostgreSQL from Debian's archive, a program we did not write: a backend
 * blocked on another session's row lock, and two backends in a deadlock
 * whose detection is put off (deadlock_timeout = 10min), checked against
 * the server's own view (pg_locks, pg_blocking_pids); the flight recorder
 * catches the wait on one backend and on the server's cgroup.
 *
 * Each test runs initdb in a temp dir as the postgres user, starts the
 * server on a unix socket there (listen_addresses '' and its own port), and
 * stops it at the end (.fini), passed or not.  Root needed (BPF, runuser). */
#include <criterion/criterion.h>
#include <errno.h>
#include <glob.h>
#include <limits.h>
#include <math.h>
#include <pwd.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/sysmacros.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "appwait.h"
#include "snapshot.h"
#include "waitfor.h"
#include "target.h"
#include "locktrace/taskregs.h"
#include "locktrace/tracefile.h"
#include "lt_test.h"
#include "report_int.h"

#define NEED_ROOT() tl_skip_unless_root("needs root (BPF programs, runuser): run make test as root")
#define RUNUSER "/usr/sbin/runuser"
#define PSQL "/usr/bin/psql"
#define NSESS 3

static struct {
	char bin[PATH_MAX];   /* /usr/lib/postgresql/15/bin */
	char dir[64];         /* the test's temp dir */
	char data[PATH_MAX], sock[PATH_MAX];
	char port[16];
	char cg[PATH_MAX + 80]; /* its cgroup, if any */
	pid_t postmaster;
	int started;          /* pg_ctl start was run */
	struct tl_proc s[NSESS];
	int live[NSESS];
} pg;

static void run_ok(char *const argv[])
{
	char out[64][256], err[64][256];
	int no = 0, ne = 0;
	int rc = tl_run_to_end(argv, out, &no, err, &ne);
	for (int i = 0; rc && i < no; i++)
		fprintf(stderr, "  %s| %s\n", argv[0], out[i]);
	cr_assert_eq(rc, 0, "%s %s exited with %d", argv[0], argv[1] ? argv[1] : "", rc);
}

/* The server's binaries, or skip: Debian's postgresql package. */
static void need_postgres(void)
{
	glob_t g;
	if (glob("/usr/lib/postgresql/*/bin/initdb", 0, NULL, &g) || !g.gl_pathc)
		cr_skip_test("PostgreSQL is not installed (Debian's postgresql package: "
			     "scripts/install-deps.sh installs it)");
	snprintf(pg.bin, sizeof(pg.bin), "%s", g.gl_pathv[g.gl_pathc - 1]);
	globfree(&g);
	*strrchr(pg.bin, '/') = 0;
	if (!getpwnam("postgres"))
		cr_skip_test("no postgres user (Debian's postgresql package creates it)");
	if (access(PSQL, X_OK) || access(RUNUSER, X_OK))
		cr_skip_test("%s or %s missing", PSQL, RUNUSER);
}

/* initdb in a fresh temp dir, then the server on a unix socket there; in
 * cgroup CG (a directory of the cgroup v2 mount) if not NULL. */
static void pg_start(const char *cg)
{
	NEED_ROOT();
	need_postgres();
	snprintf(pg.dir, sizeof(pg.dir), "/tmp/lt-pg-XXXXXX");
	cr_assert_not_null(mkdtemp(pg.dir), "mkdtemp: %s", strerror(errno));
	cr_assert_eq(chmod(pg.dir, 0755), 0);
	snprintf(pg.data, sizeof(pg.data), "%s/data", pg.dir);
	snprintf(pg.sock, sizeof(pg.sock), "%s/sock", pg.dir);
	snprintf(pg.port, sizeof(pg.port), "%d", 50000 + (int)(getpid() % 10000));
	struct passwd *pw = getpwnam("postgres");
	cr_assert_not_null(pw);
	cr_assert_eq(mkdir(pg.sock, 0700), 0);
	cr_assert_eq(chown(pg.sock, pw->pw_uid, pw->pw_gid), 0);
	cr_assert_eq(mkdir(pg.data, 0700), 0);
	cr_assert_eq(chown(pg.data, pw->pw_uid, pw->pw_gid), 0);
	char initdb[PATH_MAX + 16], pgctl[PATH_MAX + 16], opts[PATH_MAX + 256], log[PATH_MAX + 8];
	snprintf(initdb, sizeof(initdb), "%s/initdb", pg.bin);
	snprintf(pgctl, sizeof(pgctl), "%s/pg_ctl", pg.bin);
	snprintf(log, sizeof(log), "%s/log", pg.sock);
	char *iargv[] = { RUNUSER, "-u", "postgres", "--", initdb, "-D", pg.data, "-A", "trust",
			  "-U", "postgres", "--no-sync", "-E", "UTF8", NULL };
	run_ok(iargv);
	snprintf(opts, sizeof(opts), "-c listen_addresses='' -k %s -p %s -c deadlock_timeout=10min "
		 "-c fsync=off -c update_process_title=on", pg.sock, pg.port);
	pg.started = 1;
	if (cg) {
		/* the postmaster is forked by pg_ctl: it, and every backend
		 * it forks, are born in the cgroup */
		char cmd[8 * PATH_MAX];
		snprintf(cmd, sizeof(cmd), "echo $$ > %s/cgroup.procs && exec %s -u postgres -- %s -D %s "
			 "-l %s -w -t 60 -o \"%s\" start", cg, RUNUSER, pgctl, pg.data, log, opts);
		char *argv[] = { "/bin/sh", "-c", cmd, NULL };
		run_ok(argv);
	} else {
		char *argv[] = { RUNUSER, "-u", "postgres", "--", pgctl, "-D", pg.data, "-l", log, "-w",
				 "-t", "60", "-o", opts, "start", NULL };
		run_ok(argv);
	}
	char pidf[PATH_MAX + 32], buf[64];
	snprintf(pidf, sizeof(pidf), "%s/postmaster.pid", pg.data);
	FILE *f = fopen(pidf, "r");
	cr_assert_not_null(f, "%s: %s", pidf, strerror(errno));
	cr_assert_not_null(fgets(buf, sizeof(buf), f));
	fclose(f);
	pg.postmaster = (pid_t)atoi(buf);
	cr_assert_gt(pg.postmaster, 0);
}

/* Stops everything the test started: sessions, the server (immediate
 * shutdown; the postmaster killed if that failed), the temp dir, the
 * cgroup. */
static void pg_stop(void)
{
	for (int i = 0; i < NSESS; i++)
		if (pg.live[i]) {
			tl_kill_tree(pg.s[i].pid); /* a shell step psql started, flock(1)'s psql */
			tl_kill(&pg.s[i]);
			tl_close(&pg.s[i]);
			pg.live[i] = 0;
		}
	if (pg.started) {
		char pgctl[PATH_MAX + 16];
		snprintf(pgctl, sizeof(pgctl), "%s/pg_ctl", pg.bin);
		char *argv[] = { RUNUSER, "-u", "postgres", "--", pgctl, "-D", pg.data, "-m", "immediate",
				 "-w", "-t", "30", "stop", NULL };
		struct tl_proc p;
		if (tl_spawn(&p, argv) == 0) {
			tl_go(&p);
			tl_wait(&p, 40000);
			tl_close(&p);
		}
		for (int i = 0; pg.postmaster > 0 && i < 100 && kill(pg.postmaster, 0) == 0; i++)
			usleep(50000);
		if (pg.postmaster > 0 && kill(pg.postmaster, 0) == 0) {
			fprintf(stderr, "postmaster %d did not stop: killed\n", (int)pg.postmaster);
			kill(pg.postmaster, SIGKILL);
		}
		pg.started = 0;
	}
	if (pg.dir[0]) {
		char *argv[] = { "/bin/rm", "-rf", pg.dir, NULL };
		struct tl_proc p;
		if (tl_spawn(&p, argv) == 0) {
			tl_go(&p);
			tl_wait(&p, 30000);
			tl_close(&p);
		}
		pg.dir[0] = 0;
	}
	for (int i = 0; pg.cg[0] && i < 500 && rmdir(pg.cg) != 0 && errno == EBUSY; i++)
		usleep(10000);
	pg.cg[0] = 0;
	pg.postmaster = 0;
}

/* ---- sessions ---- */

static void session(int i)
{
	char *argv[] = { PSQL, "-h", pg.sock, "-p", pg.port, "-U", "postgres", "-d", "postgres", "-X",
			 "-q", "-At", NULL };
	cr_assert_eq(tl_spawn(&pg.s[i], argv), 0);
	pg.live[i] = 1;
}

static void say(int i, const char *sql)
{
	size_t n = strlen(sql);
	cr_assert_eq(write(pg.s[i].in_fd, sql, n), (ssize_t)n, "psql %d: %s", i, strerror(errno));
}

/* The next line session i prints (a query's result). */
static void answer(int i, char *line, size_t len)
{
	int r = tl_readline(&pg.s[i], 0, line, len, 20000);
	if (r != 1) {
		char e[256];
		while (tl_readline(&pg.s[i], 1, e, sizeof(e), 100) == 1)
			fprintf(stderr, "psql %d: %s\n", i, e);
	}
	cr_assert_eq(r, 1, "psql session %d printed nothing", i);
}

/* A session and its backend's pid. */
static pid_t backend(int i)
{
	char line[256];
	session(i);
	say(i, "select pg_backend_pid();\n");
	answer(i, line, sizeof(line));
	pid_t p = (pid_t)atoi(line);
	cr_assert_gt(p, 0, "pg_backend_pid: %s", line);
	return p;
}

/* One query on its own connection: its first line of output in out. */
static void query(const char *sql, char *out, size_t len)
{
	char *argv[] = { PSQL, "-h", pg.sock, "-p", pg.port, "-U", "postgres", "-d", "postgres", "-X",
			 "-q", "-At", "-c", (char *)sql, NULL };
	char o[16][256], e[16][256];
	int no = 0, ne = 0;
	int rc = tl_run_to_end(argv, o, &no, e, &ne);
	cr_assert_eq(rc, 0, "psql -c '%s': %d", sql, rc);
	snprintf(out, len, "%s", no ? o[0] : "");
}

/* The server's own view: pid waits for a lock not granted (pg_locks),
 * and pg_blocking_pids(pid) is WANT ("{123}"); waits up to 15 s for it. */
static void server_says_blocked(pid_t pid, const char *want)
{
	char sql[256], out[256] = "";
	snprintf(sql, sizeof(sql), "select count(*) from pg_locks where pid = %d and not granted", (int)pid);
	for (int i = 0; i < 150; i++) {
		query(sql, out, sizeof(out));
		if (atoi(out) > 0)
			break;
		usleep(100000);
	}
	cr_assert_gt(atoi(out), 0, "pg_locks shows no lock of backend %d not granted", (int)pid);
	snprintf(sql, sizeof(sql), "select pg_blocking_pids(%d)", (int)pid);
	query(sql, out, sizeof(out));
	cr_assert_str_eq(out, want, "pg_blocking_pids(%d)", (int)pid);
}

/* Waits until PID sleeps in a system call (epoll_wait: its latch). */
static void asleep_in_kernel(pid_t pid)
{
	char path[64], buf[256];
	snprintf(path, sizeof(path), "/proc/%d/syscall", (int)pid);
	for (int i = 0; i < 200; i++) {
		FILE *f = fopen(path, "r");
		if (f) {
			bool in = fgets(buf, sizeof(buf), f) && strcmp(buf, "running\n") && buf[0] != '-';
			fclose(f);
			if (in)
				return;
		}
		usleep(50000);
	}
	cr_assert_fail("backend %d never slept in a system call", (int)pid);
}

/* `locktrace snapshot -p PID`'s lines from its first verdict on (its
 * lines cut at 240 characters: the note of the processes followed is
 * longer than the test's lines): *N of them into OUT; printed when the
 * first is not a verdict. */
static void first_verdict(pid_t pid, char out[][256], int *n)
{
	char cmd[PATH_MAX + 64], all[64][256], errl[64][256];
	int no = 0, ne = 0;
	snprintf(cmd, sizeof(cmd), "%s snapshot -p %d | cut -c1-240", LT_BIN, (int)pid);
	char *argv[] = { "/bin/sh", "-c", cmd, NULL };
	cr_assert_eq(tl_run_to_end(argv, all, &no, errl, &ne), 0);
	int first = 1; /* after the header and its notes */
	while (first < no && (!all[first][0] || !strncmp(all[first], "note: ", 6)))
		first++;
	*n = 0;
	for (int i = first; i < no; i++)
		memcpy(out[(*n)++], all[i], 256);
	for (int i = 0; (!*n || !strchr(out[0], ':')) && i < no; i++)
		fprintf(stderr, "  | %s\n", all[i]);
}

/* A snapshot of PID as `locktrace snapshot` takes it (registers from the
 * task iterator). */
static struct lt_snapshot *snap(pid_t pid)
{
	struct lt_snapshot_opts o = { 0 };
	struct lt_tid_regs *regs = NULL;
	size_t n = 0;
	char err[256];
	if (lt_taskregs_read(pid, &regs, &n, err, sizeof(err)) == 0) {
		o.regs = regs;
		o.n_regs = n;
	}
	struct lt_snapshot *s = NULL;
	int r = lt_snapshot_take(pid, &o, &s);
	free(regs);
	cr_assert_eq(r, 0, "snapshot of %d: %s", (int)pid, lt_snapshot_strerror(r));
	return s;
}

static const struct lt_verdict *verdict_with(const struct lt_snapshot *s, pid_t tid)
{
	for (size_t i = 0; i < s->n_verdicts; i++)
		for (size_t k = 0; k < s->verdicts[i].n_tids; k++)
			if (s->verdicts[i].tids[k] == tid)
				return &s->verdicts[i];
	return NULL;
}

static void no_idle(const struct lt_snapshot *s)
{
	for (size_t i = 0; i < s->n_verdicts; i++)
		cr_assert_neq(s->verdicts[i].kind, LT_VERDICT_IDLE, "IDLE: %s", s->verdicts[i].summary);
}

/* The waiter's thread: a PostgreSQL lock wait for a row/transaction lock. */
static void is_row_wait(const struct lt_snapshot *s, pid_t w)
{
	const struct lt_thread *t = lt_snapshot_find(s, w);
	cr_assert_not_null(t);
	cr_assert_eq(t->app_class, LT_APPWAIT_LOCK, "thread %d: app class %d (%s)", (int)w, t->app_class,
		     t->detail ? t->detail : "?");
	cr_assert_str_eq(t->app, "PostgreSQL");
	cr_assert_str_eq(t->app_kind, "row/transaction lock", "%s", t->app_what);
	cr_assert_eq(t->app_pid, w);
	cr_assert_eq(t->app_server, pg.postmaster, "server %d, postmaster %d", (int)t->app_server,
		     (int)pg.postmaster);
	cr_assert_not_null(strstr(t->app_via, "ProcSleep"), "%s", t->app_via);
	cr_assert_not_null(strstr(t->app_via, "XactLockTableWait"), "%s", t->app_via);
	cr_assert_eq(t->wait, LT_WAIT_POLL, "a latch is an epoll wait: %s", t->detail ? t->detail : "?");
}

TestSuite(pgwait_live, .fini = pg_stop, .timeout = 120);

/* One session holds a row lock (idle in transaction), the other blocks on
 * it: the waiter is a PostgreSQL row-lock wait whose holder, read from the
 * server's shared memory, is the backend pg_blocking_pids names; the
 * holder alone is an idle backend. */
Test(pgwait_live, row_lock_waiter_is_a_postgres_lock_wait)
{
	pg_start(NULL);
	char line[256], want[64];
	pid_t h = backend(0);
	say(0, "create table t(id int primary key, v int); insert into t values (1, 0), (2, 0);\n"
	       "begin; update t set v = 1 where id = 1; select 'held';\n");
	answer(0, line, sizeof(line));
	cr_assert_str_eq(line, "held");
	pid_t w = backend(1);
	double t0 = tl_now_s();
	say(1, "update t set v = 2 where id = 1; select 'done';\n");
	snprintf(want, sizeof(want), "{%d}", (int)h);
	server_says_blocked(w, want);
	asleep_in_kernel(w);
	/* past deadlock_timeout (1 s): the deadlock check woke the backend once,
	 * so the kernel's last run time is later than the wait's start */
	usleep(1600 * 1000);
	asleep_in_kernel(w);

	/* the waiter alone */
	struct lt_snapshot *s = snap(w);
	double waited = tl_now_s() - t0;
	is_row_wait(s, w);
	/* how long it has waited, by PGPROC.waitStart */
	const struct lt_thread *wt = lt_snapshot_find(s, w);
	const struct lt_wf_edge *ae = NULL;
	for (size_t k = 0; wt && wt->wf && k < wt->wf->n_edges; k++)
		if (wt->wf->edges[k].kind == LT_WF_APP_LOCK)
			ae = &wt->wf->edges[k];
	cr_assert_not_null(ae);
	cr_assert(ae->wait_s >= 1.5 && ae->wait_s <= waited + 0.05, "waitStart says %.3f s, the test waited %.3f s "
		  "(the kernel: not run for %.3f s)", ae->wait_s, waited, wt->idle_s);
	cr_assert(s->verdicts[0].longest_s >= 1.5, "longest %.3f s", s->verdicts[0].longest_s);
	cr_assert(tl_strlist_has(&s->verdicts[0].evidence, "(since PGPROC.waitStart)"));
	no_idle(s);
	cr_assert_eq(s->verdicts[0].kind, LT_VERDICT_LOCK_WAIT, "%s", s->verdicts[0].summary);
	cr_assert_not_null(strstr(s->verdicts[0].summary, "PostgreSQL lock wait"), "%s", s->verdicts[0].summary);
	cr_assert_not_null(strstr(s->verdicts[0].summary, "row/transaction lock"), "%s", s->verdicts[0].summary);
	/* the holder, read from the server's shared memory, is the one
	 * pg_blocking_pids named (server_says_blocked) */
	char held[64];
	snprintf(held, sizeof(held), "held by process %d (read from the server's shared memory)", (int)h);
	cr_assert_not_null(strstr(s->verdicts[0].summary, held), "%s", s->verdicts[0].summary);
	cr_assert_eq(s->verdicts[0].owner, h, "owner %d, pg_blocking_pids says %d", (int)s->verdicts[0].owner, (int)h);
	cr_assert_not_null(strstr(s->verdicts[0].summary, "PostgreSQL transaction "), "%s", s->verdicts[0].summary);
	cr_assert_not_null(strstr(s->verdicts[0].summary, "ShareLock wanted"), "%s", s->verdicts[0].summary);
	cr_assert(tl_strlist_has(&s->verdicts[0].evidence, "UPDATE waiting"), "the title is evidence");
	/* the transaction is the holder's: pg_locks says which xid it holds */
	char xq[160], xid[64], want_tag[160];
	snprintf(xq, sizeof(xq), "SELECT transactionid FROM pg_locks WHERE pid = %d AND locktype = 'transactionid' "
		 "AND granted AND mode = 'ExclusiveLock'", (int)h);
	query(xq, xid, sizeof(xid));
	snprintf(want_tag, sizeof(want_tag), "PostgreSQL transaction %s, ShareLock wanted", xid);
	cr_assert_not_null(strstr(s->verdicts[0].summary, want_tag), "pg_locks: %s; %s", xid, s->verdicts[0].summary);

	/* as stored in a trace and read back (what `report` and
	 * `snapshot --from` show) */
	char *buf = NULL, err[160];
	size_t len = 0;
	cr_assert_eq(lt_snapshot_to_json_buf(s, &buf, &len), 0);
	struct lt_snapshot *back = NULL;
	cr_assert_eq(lt_snapshot_from_json(buf, len, &back, err, sizeof(err)), 0, "%s", err);
	is_row_wait(back, w);
	cr_assert_eq(lt_snapshot_diagnose(back, NULL), 0);
	cr_assert_str_eq(back->verdicts[0].summary, s->verdicts[0].summary);
	lt_snapshot_free(back);
	free(buf);
	lt_snapshot_free(s);

	/* the holder alone: genuinely idle, inside a transaction */
	s = snap(h);
	const struct lt_thread *th = lt_snapshot_find(s, h);
	cr_assert_eq(th->app_class, LT_APPWAIT_IDLE, "holder %d: %s", (int)h, th->detail);
	cr_assert_eq(s->verdicts[0].kind, LT_VERDICT_IDLE, "%s", s->verdicts[0].summary);
	cr_assert(tl_strlist_has(&s->verdicts[0].evidence, "idle inside a transaction"));
	lt_snapshot_free(s);

	/* both: the holder, read from shared memory, and what it does */
	struct lt_snapshot **both = malloc(2 * sizeof(*both));
	cr_assert_not_null(both);
	both[0] = snap(w);
	both[1] = snap(h);
	struct lt_multi_snapshot *m = NULL;
	cr_assert_eq(lt_multi_build(both, 2, NULL, &m), 0);
	const struct lt_verdict *v = verdict_with(&m->view, w);
	cr_assert_not_null(v);
	cr_assert_eq(v->kind, LT_VERDICT_LOCK_WAIT, "%s", v->summary);
	cr_assert_eq(v->owner, h);
	cr_assert_not_null(strstr(v->summary, held), "%s", v->summary);
	cr_assert(!tl_strlist_has(&v->evidence, "inference"), "no inference when the holder was read");
	no_idle(&m->view);
	lt_multi_free(m);

	/* the command's first verdict (it follows the holder, idle in
	 * transaction, into its client: the notes say so first) */
	char pids[16], out[64][256], errl[64][256];
	int no = 0, ne = 0;
	snprintf(pids, sizeof(pids), "%d", (int)w);
	first_verdict(w, out, &no);
	snprintf(want, sizeof(want), "LOCK WAIT: PostgreSQL lock wait: process %d waits for a row", (int)w);
	cr_assert(no > 0 && !strncmp(out[0], want, strlen(want)), "first verdict: %s", no > 0 ? out[0] : "");
	char *argv[] = { LT_BIN, "snapshot", "-p", pids, NULL };

	/* the waiting session's psql, asked about: its socket's peer, the
	 * backend, sits in epoll_wait (an idle server by the kernel's view):
	 * followed all the same, its lock wait is what psql waits for */
	no = ne = 0;
	snprintf(pids, sizeof(pids), "%d", (int)pg.s[1].pid);
	cr_assert_eq(tl_run_to_end(argv, out, &no, errl, &ne), 0);
	char chain[200], into[256];
	snprintf(chain, sizeof(chain), "WAIT CHAIN: thread %d (psql) ", (int)pg.s[1].pid);
	snprintf(into, sizeof(into), "waits for process %d, whose thread %d (postgres) is itself in a lock wait: "
		 "PostgreSQL lock wait: process %d waits for a row", (int)w, (int)w, (int)w);
	bool found = false;
	for (int i = 0; i < no; i++) {
		cr_assert(strncmp(out[i], "IDLE", 4), "psql %d: %s", (int)pg.s[1].pid, out[i]);
		found |= !strncmp(out[i], chain, strlen(chain)) && strstr(out[i], into);
	}
	for (int i = 0; !found && i < no; i++)
		fprintf(stderr, "  | %s\n", out[i]);
	cr_assert(found, "no line %s... %s (above)", chain, into);
}

/* Two backends each wait for the other's transaction; the server's own
 * detection is put off (deadlock_timeout 10min): each one's holder, read
 * from the server's shared memory, is the other: a DEADLOCK naming both. */
Test(pgwait_live, deadlocked_backends_both_wait_on_row_locks)
{
	pg_start(NULL);
	char line[256], want[64];
	pid_t a = backend(0), b = backend(1);
	say(0, "create table t(id int primary key, v int); insert into t values (1, 0), (2, 0);\n"
	       "begin; update t set v = 1 where id = 1; select 'a';\n");
	answer(0, line, sizeof(line));
	say(1, "begin; update t set v = 2 where id = 2; select 'b';\n");
	answer(1, line, sizeof(line));
	say(0, "update t set v = 1 where id = 2;\n");
	snprintf(want, sizeof(want), "{%d}", (int)b);
	server_says_blocked(a, want);
	say(1, "update t set v = 2 where id = 1;\n");
	snprintf(want, sizeof(want), "{%d}", (int)a);
	server_says_blocked(b, want);
	asleep_in_kernel(a);
	asleep_in_kernel(b);

	struct lt_snapshot **both = malloc(2 * sizeof(*both));
	cr_assert_not_null(both);
	both[0] = snap(a);
	both[1] = snap(b);
	struct lt_multi_snapshot *m = NULL;
	cr_assert_eq(lt_multi_build(both, 2, NULL, &m), 0);
	is_row_wait(&m->view, a);
	is_row_wait(&m->view, b);
	no_idle(&m->view);
	const struct lt_verdict *v = verdict_with(&m->view, a);
	cr_assert_not_null(v);
	cr_assert_eq(v, verdict_with(&m->view, b), "one verdict for both waiters");
	/* each one's holder read from shared memory is the other (as
	 * pg_blocking_pids said): a cycle, before PostgreSQL's own detector */
	cr_assert_eq(v->kind, LT_VERDICT_DEADLOCK, "%s", v->summary);
	cr_assert_eq(v->n_tids, 2, "%s", v->summary);
	char pa[16], pb[16];
	snprintf(pa, sizeof(pa), "%d ", (int)a);
	snprintf(pb, sizeof(pb), "%d ", (int)b);
	cr_assert(strstr(v->summary, pa) && strstr(v->summary, pb), "%s", v->summary);
	cr_assert_eq(m->view.verdicts[0].kind, LT_VERDICT_DEADLOCK, "first: %s", m->view.verdicts[0].summary);
	lt_multi_free(m);

	/* `snapshot -p A` alone follows A's holder (blocked itself, its
	 * PGPROC says) into B, and says the cycle first */
	char pids[16], out[64][256], errl[64][256];
	int no = 0, ne = 0;
	snprintf(pids, sizeof(pids), "%d", (int)a);
	char *argv[] = { LT_BIN, "snapshot", "-p", pids, NULL };
	cr_assert_eq(tl_run_to_end(argv, out, &no, errl, &ne), 0);
	bool dl = false;
	for (int i = 0; i < no && !dl; i++)
		dl = !strncmp(out[i], "DEADLOCK:", 9) && strstr(out[i], pa) && strstr(out[i], pb);
	for (int i = 0; !dl && i < no; i++)
		fprintf(stderr, "  | %s\n", out[i]);
	cr_assert(dl, "snapshot -p %d prints a DEADLOCK naming %d and %d", (int)a, (int)a, (int)b);
}

/* The same two backends, B's session having SET lock_timeout = '45s'
 * before its UPDATE: the server cancels B's statement when that expires
 * (its timer is armed with the wait, at PGPROC.waitStart), which ends
 * the cycle: a "deadlock until a timeout" naming B, within 45 s less the
 * time B has waited, bounded by the test's clock (B began to wait after
 * the test sent the UPDATE, and before the server said it was blocked)
 * and by the server's (pg_locks.waitstart), each within the time the
 * snapshot took, plus 0.05 s for the one decimal said. */
Test(pgwait_live, a_lock_timeout_makes_the_backends_deadlock_one_until_it)
{
	pg_start(NULL);
	char line[256], want[512];
	pid_t a = backend(0), b = backend(1);
	say(0, "create table t(id int primary key, v int); insert into t values (1, 0), (2, 0);\n"
	       "begin; update t set v = 1 where id = 1; select 'a';\n");
	answer(0, line, sizeof(line));
	say(1, "set lock_timeout = '45s'; begin; update t set v = 2 where id = 2; select 'b';\n");
	answer(1, line, sizeof(line));
	say(0, "update t set v = 1 where id = 2;\n");
	snprintf(want, sizeof(want), "{%d}", (int)b);
	server_says_blocked(a, want);
	double tb0 = tl_now_s();
	say(1, "update t set v = 2 where id = 1;\n");
	snprintf(want, sizeof(want), "{%d}", (int)a);
	server_says_blocked(b, want);
	double tb1 = tl_now_s();
	asleep_in_kernel(a);
	asleep_in_kernel(b);
	struct lt_snapshot **both = malloc(2 * sizeof(*both));
	cr_assert_not_null(both);
	double ts0 = tl_now_s();
	both[0] = snap(a);
	both[1] = snap(b);
	double ts1 = tl_now_s();
	char sql[200], out[64];
	snprintf(sql, sizeof(sql), "select extract(epoch from now() - waitstart) from pg_locks where pid = %d and "
		 "not granted", (int)b);
	double tq0 = tl_now_s();
	query(sql, out, sizeof(out));
	double tq1 = tl_now_s();
	cr_assert(out[0], "pg_locks: backend %d waits for no lock", (int)b);
	double waited_pg = atof(out);
	struct lt_multi_snapshot *m = NULL;
	cr_assert_eq(lt_multi_build(both, 2, NULL, &m), 0);
	no_idle(&m->view);
	const struct lt_verdict *v = verdict_with(&m->view, a);
	cr_assert_not_null(v);
	cr_assert_eq(v->kind, LT_VERDICT_DEADLOCK, "%s", v->summary);
	double said = -1;
	for (int r = 0; r < 2 && said < 0; r++) {
		pid_t x = r ? b : a, y = r ? a : b;
		snprintf(want, sizeof(want), "deadlock until a timeout: 2 threads in 2 processes wait for each other: "
			 "%d (postgres) -> %d (postgres) -> %d; thread %d (postgres) waits with a timeout (lock_timeout "
			 "45.0 s: the server cancels the statement within ", (int)x, (int)y, (int)x, (int)b);
		char tail[8] = "";
		if (!strncmp(v->summary, want, strlen(want)) &&
		    sscanf(v->summary + strlen(want), "%lf%7s", &said, tail) == 2 && strcmp(tail, "s)"))
			said = -1;
	}
	cr_assert_geq(said, 0, "%s", v->summary);
	/* A has no timeout: B's alone is said */
	const struct lt_thread *ta = lt_snapshot_find(&m->view, a), *tb = lt_snapshot_find(&m->view, b);
	cr_assert(ta && ta->wf && ta->wf->n_edges == 1 && tb && tb->wf && tb->wf->n_edges == 1);
	cr_assert_str_eq(ta->wf->edges[0].timeout_what, "", "A: lock_timeout = 0, statement_timeout = 0");
	const struct lt_wf_edge *e = &tb->wf->edges[0];
	cr_assert_eq(e->kind, LT_WF_APP_LOCK);
	cr_assert_str_eq(e->timeout_what, "lock_timeout");
	cr_assert_float_eq(e->timeout_s, 45.0, 1e-9);
	double left = e->timeout_left_s;
	cr_assert(fabs(left - said) <= 0.05 + 1e-9, "the edge says %.3f s, the verdict %.1f s", left, said);
	double lo = 45 - (ts1 - tb0), hi = 45 - (ts0 - tb1);
	cr_assert(left >= lo - 0.05 && left <= hi + 0.05, "%.3f s left; the test's clock says %.3f..%.3f s", left,
		  lo, hi);
	double plo = 45 - waited_pg + (tq0 - ts1), phi = 45 - waited_pg + (tq1 - ts0);
	cr_assert(left >= plo - 0.05 && left <= phi + 0.05, "%.3f s left; pg_locks says waited %.3f s: %.3f..%.3f s",
		  left, waited_pg, plo, phi);
	cr_assert(tl_strlist_has(&v->evidence, "lock_timeout = 45000, statement_timeout = 0 (read from the backend's "
				 "memory): lock_timeout cancels the statement within "));
	lt_multi_free(m);
}

static int take_snap(pid_t pid, void *arg, struct lt_snapshot **out)
{
	(void)arg;
	*out = snap(pid);
	return 0;
}

/* The only child of PID (/proc/PID/task/PID/children) once it runs
 * COMM (after its exec), waited for up to 10 s. */
static pid_t only_child(pid_t pid, const char *comm)
{
	char path[96], now[64] = "";
	snprintf(path, sizeof(path), "/proc/%d/task/%d/children", (int)pid, (int)pid);
	for (int i = 0; i < 200; i++) {
		FILE *f = fopen(path, "r");
		int c = 0, n = 0, x;
		while (f && fscanf(f, "%d", &x) == 1)
			c = x, n++;
		if (f)
			fclose(f);
		cr_assert_leq(n, 1, "process %d has %d children", (int)pid, n);
		if (n == 1) {
			char cp[64];
			snprintf(cp, sizeof(cp), "/proc/%d/comm", c);
			FILE *g = fopen(cp, "r");
			now[0] = 0;
			if (g && fgets(now, (int)sizeof(now), g))
				now[strcspn(now, "\n")] = 0;
			if (g)
				fclose(g);
			if (!strcmp(now, comm))
				return (pid_t)c;
		}
		usleep(50000);
	}
	cr_assert_fail("process %d never had a child %s (%s)", (int)pid, comm, now);
	return 0;
}

/* The trial's cycle on a fresh server (see below): session A's backend
 * h runs SET (NULL: none) first; t0, t1: before A's transaction was sent
 * and after its backend was asleep again, idle in transaction (when it
 * went idle is between them); nvcsw: its voluntary context switches then. */
struct pg_cycle {
	char lockf[PATH_MAX + 16];
	struct stat st;
	pid_t h, w, fb, pb, sh, fa;
	double t0, t1;
	long nvcsw;
};

/* PID's voluntary context switches (/proc/PID/status): each time it
 * slept, so unchanged means it has not run. */
static long nvcsw_of(pid_t pid)
{
	char path[64], l[256];
	long n = -1;
	snprintf(path, sizeof(path), "/proc/%d/status", (int)pid);
	FILE *f = fopen(path, "r");
	cr_assert_not_null(f, "%s: %s", path, strerror(errno));
	while (fgets(l, sizeof(l), f))
		if (!strncmp(l, "voluntary_ctxt_switches:", 24))
			n = atol(l + 24);
	fclose(f);
	cr_assert_geq(n, 0);
	return n;
}

static void pg_cycle(struct pg_cycle *c, const char *set)
{
	pg_start(NULL);
	char line[256], sql[512];
	memset(c, 0, sizeof(*c));
	snprintf(c->lockf, sizeof(c->lockf), "%s/deploy.lock", pg.dir);
	FILE *lf = fopen(c->lockf, "w");
	cr_assert_not_null(lf, "%s: %s", c->lockf, strerror(errno));
	fclose(lf);
	cr_assert_eq(stat(c->lockf, &c->st), 0);
	pid_t h = c->h = backend(0); /* session A */
	say(0, "create table t(id int primary key, v int); insert into t values (1, 0);\n");
	if (set) {
		snprintf(sql, sizeof(sql), "%s; select 'set';\n", set);
		say(0, sql);
		answer(0, line, sizeof(line));
		cr_assert_str_eq(line, "set");
	}
	c->t0 = tl_now_s();
	say(0, "begin; update t set v = 1 where id = 1; select 'held';\n");
	answer(0, line, sizeof(line));
	cr_assert_str_eq(line, "held");
	asleep_in_kernel(h);
	c->t1 = tl_now_s();
	c->nvcsw = nvcsw_of(h);
	/* job B: flock(1) holds deploy.lock and runs psql, whose UPDATE waits */
	char *bargv[] = { "/usr/bin/flock", c->lockf, PSQL, "-h", pg.sock, "-p", pg.port, "-U", "postgres", "-d",
			  "postgres", "-X", "-q", "-c", "update t set v = 2 where id = 1", NULL };
	cr_assert_eq(tl_spawn(&pg.s[1], bargv), 0);
	pg.live[1] = 1;
	c->fb = pg.s[1].pid;
	c->pb = only_child(c->fb, "psql");
	char q[160], wpid[32] = "";
	snprintf(q, sizeof(q), "select pid from pg_locks where not granted and pid <> pg_backend_pid() limit 1");
	for (int i = 0; i < 150 && !atoi(wpid); i++) {
		query(q, wpid, sizeof(wpid));
		if (!atoi(wpid))
			usleep(100000);
	}
	pid_t w = c->w = (pid_t)atoi(wpid);
	cr_assert_gt(w, 0, "job B's backend never waited");
	char blk[64];
	snprintf(blk, sizeof(blk), "{%d}", (int)h);
	server_says_blocked(w, blk);
	/* session A's shell step waits for deploy.lock */
	say(0, "\\! /usr/bin/flock ");
	say(0, c->lockf);
	say(0, " -c 'echo stepA'\n");
	c->sh = only_child(pg.s[0].pid, "sh"); /* psql runs a shell step through system() */
	c->fa = only_child(c->sh, "flock");
	char pl[256];
	tl_locks_line(c->fa, c->lockf, true, pl, sizeof(pl));
	asleep_in_kernel(w);
	asleep_in_kernel(h);
	asleep_in_kernel(c->pb);
}

/* The cycle of a user trial that PostgreSQL's detector and flock cannot
 * see: session A (psql) locks a row, then runs a shell step
 * (`\! flock deploy.lock ...`) that waits for deploy.lock; job B, under
 * `flock deploy.lock psql -c UPDATE`, holds the file lock while its
 * backend waits for A's row.  A's backend is idle in transaction: it
 * reads from its client, A's psql, which waits for its shell, which waits
 * for flock, which waits for B's flock(1) and its psql, which waits for
 * its backend, which waits for A's backend.  `snapshot -p` on B's psql,
 * or on either backend, follows it all and says one DEADLOCK. */
Test(pgwait_live, idle_in_transaction_backend_waits_for_its_client_in_a_cycle_through_flock)
{
	struct pg_cycle c;
	pg_cycle(&c, NULL);
	char want[512];
	const char *lockf = c.lockf;
	struct stat st = c.st;
	pid_t h = c.h, w = c.w, fb = c.fb, pb = c.pb, sh = c.sh, fa = c.fa;
	/* the cycle, in the order of its edges, from any of its pids */
	pid_t cyc[6] = { pb, w, h, pg.s[0].pid, sh, fa };
	const char *cn[6] = { "psql", "postgres", "postgres", "psql", "sh", "flock" };
	char e1[512], e2[256], e3[256], e4[256], e5[PATH_MAX + 512], e6[256];
	snprintf(e1, sizeof(e1), "thread %d (postgres) epoll_wait(epfd ", (int)h);
	snprintf(e2, sizeof(e2), "on its client's connection (PostgreSQL backend idle in transaction, its title "
		 "says: it waits for the client's next command), unix socket socket:[");
	snprintf(e3, sizeof(e3), "<- peer held only by process %d (psql)", (int)pg.s[0].pid);
	snprintf(e4, sizeof(e4), "thread %d (flock) flock(fd ", (int)fa);
	snprintf(e5, sizeof(e5), "on FLOCK WRITE lock on %s (whole file, inode %02x:%02x:%lu) <- held by processes "
		 "%d, %d, all asleep (blocked, or in event waits the snapshot followed); it goes on through process "
		 "%d (psql)", lockf, major(st.st_dev), minor(st.st_dev), (unsigned long)st.st_ino,
		 (int)(fb < pb ? fb : pb), (int)(fb < pb ? pb : fb), (int)pb); /* by pid: the fd scan's order */
	snprintf(e6, sizeof(e6), "thread %d (postgres) epoll_wait(epfd ", (int)w);
	char e7[256];
	snprintf(e7, sizeof(e7), "ShareLock wanted <- held by process %d (postgres) [read from the server's shared "
		 "memory", (int)h);
	pid_t starts[3] = { pb, h, w };
	for (int si = 0; si < 3; si++) {
		struct lt_multi_snapshot *m;
		tl_follow(snap(starts[si]), take_snap, &m);
		const struct lt_verdict *dl = NULL;
		for (size_t i = 0; i < m->view.n_verdicts && !dl; i++)
			if (m->view.verdicts[i].kind == LT_VERDICT_DEADLOCK)
				dl = &m->view.verdicts[i];
		for (size_t i = 0; !dl && i < m->view.n_verdicts; i++)
			fprintf(stderr, "  | %s\n", m->view.verdicts[i].summary);
		cr_assert_not_null(dl, "from %d: no DEADLOCK (above)", (int)starts[si]);
		/* the chain, from whichever thread it starts at */
		bool rot = false;
		for (int r = 0; r < 6 && !rot; r++) {
			size_t l = (size_t)snprintf(want, sizeof(want), "deadlock: 6 threads in 6 processes wait for "
						    "each other: ");
			for (int k = 0; k < 6; k++)
				l += (size_t)snprintf(want + l, sizeof(want) - l, "%d (%s) -> ", (int)cyc[(r + k) % 6],
						      cn[(r + k) % 6]);
			snprintf(want + l, sizeof(want) - l, "%d", (int)cyc[r]);
			rot = !strcmp(dl->summary, want);
		}
		cr_assert(rot, "from %d: %s", (int)starts[si], dl->summary);
		/* each link's evidence: the idle backend's client, the file
		 * lock's holders (flock(1) of job B and its psql), the row
		 * lock's holder read from shared memory */
		bool ha = false, hd = false, hw = false;
		for (size_t i = 0; i < dl->evidence.n; i++) {
			const char *x = dl->evidence.v[i];
			ha |= !strncmp(x, e1, strlen(e1)) && strstr(x, e2) && strstr(x, e3) &&
			      strstr(x, "its latch (signalfd) and the postmaster-death pipe set aside") &&
			      strstr(x, "idle_in_transaction_session_timeout = 0 (read from the backend's memory)");
			hd |= !strncmp(x, e4, strlen(e4)) && strstr(x, e5);
			hw |= !strncmp(x, e6, strlen(e6)) && strstr(x, e7);
		}
		for (size_t i = 0; !(ha && hd && hw) && i < dl->evidence.n; i++)
			fprintf(stderr, "  | %s\n", dl->evidence.v[i]);
		cr_assert(ha, "the idle backend %d's link to its client %d (above)", (int)h, (int)pg.s[0].pid);
		cr_assert(hd, "flock %d's link to the holders %d, %d of %s (above)", (int)fa, (int)fb, (int)pb, lockf);
		cr_assert(hw, "backend %d's row lock held by %d (above)", (int)w, (int)h);
		snprintf(want, sizeof(want), "1 more thread(s) blocked behind the cycle: %d", (int)fb);
		cr_assert(tl_strlist_has(&dl->evidence, want), "job B's flock(1) waits for its psql");
		lt_multi_free(m);
	}
	/* the command says it first */
	char out[64][256];
	int no = 0;
	first_verdict(pb, out, &no);
	const char *dlw = "DEADLOCK: deadlock: 6 threads in 6 processes wait for each other: ";
	cr_assert(no > 0 && !strncmp(out[0], dlw, strlen(dlw)), "the first verdict: %s", no > 0 ? out[0] : "");
}

/* The follow of the cycle from B's psql, as `snapshot -p` does it: its
 * DEADLOCK verdict (kind DEADLOCK, whatever its words), in *M. */
static const struct lt_verdict *cycle_verdict(pid_t from, struct lt_multi_snapshot **m)
{
	tl_follow(snap(from), take_snap, m);
	const struct lt_verdict *dl = NULL;
	for (size_t i = 0; i < (*m)->view.n_verdicts && !dl; i++)
		if ((*m)->view.verdicts[i].kind == LT_VERDICT_DEADLOCK)
			dl = &(*m)->view.verdicts[i];
	for (size_t i = 0; !dl && i < (*m)->view.n_verdicts; i++)
		fprintf(stderr, "  | %s\n", (*m)->view.verdicts[i].summary);
	cr_assert_not_null(dl, "from %d: no DEADLOCK (above)", (int)from);
	no_idle(&(*m)->view);
	return dl;
}

/* The socket edge of backend H's client in view M, with its timeout. */
static const struct lt_wf_edge *client_edge(const struct lt_snapshot *m, pid_t h)
{
	const struct lt_thread *t = lt_snapshot_find(m, h);
	cr_assert(t && t->wf && t->wf->n_edges == 1, "backend %d: its client's socket alone", (int)h);
	cr_assert_eq(t->wf->edges[0].kind, LT_WF_SOCKET);
	cr_assert_eq(t->wf->edges[0].n_pids, 1);
	cr_assert_eq(t->wf->edges[0].pids[0], pg.s[0].pid, "its client, session A's psql");
	return &t->wf->edges[0];
}

/* The same cycle, session A having run SET idle_in_transaction_session_
 * timeout = '60s' first: its backend ends the session (its transaction
 * and row lock with it) when that expires, which breaks the cycle: a
 * "deadlock until a timeout" naming that backend and the time left, at
 * most the timeout less the time it has not run (it armed the timer when
 * it went idle).  The test bounds that time twice: by its own clock (the
 * backend went idle after the test sent the transaction, t0, and before
 * it saw it asleep again, t1, and has not run since: its context
 * switches did not change), and by the server's (pg_stat_activity's
 * state_change, when it went idle in transaction), each within the time
 * the snapshot took, plus 0.05 s for the one decimal said.  Then, the
 * setting unread (LOCKTRACE_NO_PG_SETTINGS, as where its symbol or memory
 * cannot be read): the same cycle, followed through the backend, a
 * probable deadlock that says the timeouts are not known, never a
 * certain one, never IDLE. */
Test(pgwait_live, idle_in_transaction_timeout_makes_the_cycle_a_deadlock_until_it)
{
	struct pg_cycle c;
	pg_cycle(&c, "set idle_in_transaction_session_timeout = '60s'");
	pid_t cyc[6] = { c.pb, c.w, c.h, pg.s[0].pid, c.sh, c.fa };
	const char *cn[6] = { "psql", "postgres", "postgres", "psql", "sh", "flock" };
	double ts0 = tl_now_s();
	struct lt_multi_snapshot *m = NULL;
	const struct lt_verdict *dl = cycle_verdict(c.pb, &m);
	double ts1 = tl_now_s();
	cr_assert_eq(nvcsw_of(c.h), c.nvcsw, "backend %d ran since it went idle: its idle time is not bounded",
		     (int)c.h);
	char sql[160], out[64];
	snprintf(sql, sizeof(sql), "select extract(epoch from now() - state_change) from pg_stat_activity "
		 "where pid = %d and state = 'idle in transaction'", (int)c.h);
	double tq0 = tl_now_s();
	query(sql, out, sizeof(out));
	double tq1 = tl_now_s();
	cr_assert(out[0], "pg_stat_activity: backend %d is not idle in transaction", (int)c.h);
	double idle_pg = atof(out);
	/* the words, from whichever thread the chain starts at; the seconds */
	char want[768];
	double said = -1;
	for (int r = 0; r < 6 && said < 0; r++) {
		size_t l = (size_t)snprintf(want, sizeof(want), "deadlock until a timeout: 6 threads in 6 processes "
					    "wait for each other: ");
		for (int k = 0; k < 6; k++)
			l += (size_t)snprintf(want + l, sizeof(want) - l, "%d (%s) -> ", (int)cyc[(r + k) % 6],
					      cn[(r + k) % 6]);
		snprintf(want + l, sizeof(want) - l, "%d; thread %d (postgres) waits with a timeout "
			 "(idle_in_transaction_session_timeout 60.0 s: the server ends the session within ",
			 (int)cyc[r], (int)c.h);
		char tail[8] = "";
		if (!strncmp(dl->summary, want, strlen(want)) &&
		    sscanf(dl->summary + strlen(want), "%lf%7s", &said, tail) == 2 && strcmp(tail, "s)"))
			said = -1;
	}
	cr_assert_geq(said, 0, "%s", dl->summary);
	const struct lt_wf_edge *e = client_edge(&m->view, c.h);
	cr_assert_str_eq(e->timeout_what, "idle_in_transaction_session_timeout");
	cr_assert_float_eq(e->timeout_s, 60.0, 1e-9);
	double left = e->timeout_left_s;
	cr_assert(fabs(left - said) <= 0.05 + 1e-9, "the edge says %.3f s, the verdict %.1f s", left, said);
	double lo = 60 - (ts1 - c.t0), hi = 60 - (ts0 - c.t1);
	cr_assert(left >= lo - 0.05 && left <= hi + 0.05, "%.3f s left; the test's clock says %.3f..%.3f s", left,
		  lo, hi);
	double plo = 60 - idle_pg + (tq0 - ts1), phi = 60 - idle_pg + (tq1 - ts0);
	cr_assert(left >= plo - 0.05 && left <= phi + 0.05, "%.3f s left; pg_stat_activity says idle %.3f s: "
		  "%.3f..%.3f s", left, idle_pg, plo, phi);
	snprintf(want, sizeof(want), "thread %d (postgres) waits with a timeout (idle_in_transaction_session_timeout "
		 "60.0 s: the server ends the session within %.1f s): the cycle lasts until then", (int)c.h, left);
	cr_assert(tl_strlist_has(&dl->evidence, want), "%s", want);
	cr_assert(tl_strlist_has(&dl->evidence, "idle_in_transaction_session_timeout = 60000 (read from the backend's "
				 "memory): the server ends the session when it expires, within "));
	/* the edge's timeout as a stored snapshot keeps it */
	const struct lt_snapshot *hs = NULL;
	for (size_t i = 0; i < m->n_procs; i++)
		if (m->procs[i]->pid == c.h)
			hs = m->procs[i];
	cr_assert_not_null(hs);
	char *buf = NULL, err[160];
	size_t len = 0;
	cr_assert_eq(lt_snapshot_to_json_buf(hs, &buf, &len), 0);
	struct lt_snapshot *back = NULL;
	cr_assert_eq(lt_snapshot_from_json(buf, len, &back, err, sizeof(err)), 0, "%s", err);
	const struct lt_wf_edge *be = client_edge(back, c.h);
	cr_assert_str_eq(be->timeout_what, "idle_in_transaction_session_timeout");
	cr_assert_float_eq(be->timeout_s, 60.0, 1e-9);
	cr_assert(fabs(be->timeout_left_s - left) <= 0.001, "%.3f, %.3f", be->timeout_left_s, left);
	lt_snapshot_free(back);
	free(buf);
	lt_multi_free(m);
	/* the command says it first */
	char lines[64][256];
	int no = 0;
	first_verdict(c.pb, lines, &no);
	const char *dlw = "DEADLOCK: deadlock until a timeout: 6 threads in 6 processes wait for each other: ";
	cr_assert(no > 0 && !strncmp(lines[0], dlw, strlen(dlw)), "the first verdict: %s", no > 0 ? lines[0] : "");

	/* the settings not read: followed all the same, a probable deadlock */
	setenv("LOCKTRACE_NO_PG_SETTINGS", "1", 1);
	m = NULL;
	dl = cycle_verdict(c.pb, &m);
	unsetenv("LOCKTRACE_NO_PG_SETTINGS");
	bool ok = false;
	for (int r = 0; r < 6 && !ok; r++) {
		size_t l = (size_t)snprintf(want, sizeof(want), "probable deadlock: 6 threads in 6 processes wait for "
					    "each other: ");
		for (int k = 0; k < 6; k++)
			l += (size_t)snprintf(want + l, sizeof(want) - l, "%d (%s) -> ", (int)cyc[(r + k) % 6],
					      cn[(r + k) % 6]);
		/* the backends in the chain's order */
		bool h_first = r == 2;
		snprintf(want + l, sizeof(want) - l, "%d; whether threads %d (postgres), %d (postgres) have a timeout "
			 "(%s; %s) is not known (not read: see the evidence): they may end by themselves", (int)cyc[r],
			 (int)(h_first ? c.h : c.w), (int)(h_first ? c.w : c.h),
			 h_first ? "idle_in_transaction_session_timeout" : "lock_timeout, statement_timeout",
			 h_first ? "lock_timeout, statement_timeout" : "idle_in_transaction_session_timeout");
		ok = !strcmp(dl->summary, want);
	}
	cr_assert(ok, "%s", dl->summary);
	e = client_edge(&m->view, c.h);
	cr_assert_str_eq(e->timeout_what, "idle_in_transaction_session_timeout");
	cr_assert_lt(e->timeout_s, 0, "not known");
	cr_assert(tl_strlist_has(&dl->evidence, "idle_in_transaction_session_timeout could not be read "
				 "(LOCKTRACE_NO_PG_SETTINGS is set): whether a timeout ends the wait is not known"));
	lt_multi_free(m);
}

/* ---- the flight recorder ---- */

/* The recorder's stderr until its "stall detected" line (30 s), and its
 * exit. */
static void expect_pg_stall(struct tl_proc *rec, pid_t w, const char *path)
{
	char lines[64][256], want[64];
	int m = 0;
	int found = tl_wait_for(rec, 1, "locktrace: stall detected", lines, &m, 64, 30000);
	for (int i = 0; !found && i < m; i++)
		fprintf(stderr, "recorder: %s\n", lines[i]);
	int st = tl_wait(rec, 30000);
	tl_close(rec);
	cr_assert(found, "the PostgreSQL lock wait never fired the stall rule");
	cr_assert_eq(st, 0, "recorder status 0x%x", st);
	snprintf(want, sizeof(want), "process %d thread %d has waited", (int)w, (int)w);
	cr_assert_not_null(strstr(lines[m - 1], want), "%s", lines[m - 1]);
	cr_assert_not_null(strstr(lines[m - 1], "PostgreSQL row/transaction lock"), "%s", lines[m - 1]);
	struct tl_trace t;
	cr_assert_eq(tl_load(&t, path), 0);
	cr_assert_eq(t.stats.stop_reason, LT_STOP_STALL);
	tl_free(&t);
	/* the report says what the snapshot said */
	struct rp_json *j = tl_report_json(path);
	const struct rp_json *fs = rp_json_get(j, "findings");
	cr_assert(fs && fs->type == RPJ_ARR);
	snprintf(want, sizeof(want), "PostgreSQL lock wait: process %d waits for a row", (int)w);
	bool said = false;
	for (size_t i = 0; i < fs->n && !said; i++) {
		const char *sum = rp_json_str(rp_json_get(&fs->items[i], "summary"));
		said = sum && strstr(sum, want);
	}
	cr_assert(said, "no finding of the report says '%s'", want);
	rp_json_free(j);
	unlink(path);
}

/* A backend already blocked on a row lock when recording begins (the
 * wait is known from /proc at attach; the cgroup test below has it begin
 * while recording): the stall rule fires, although the events show at
 * most an epoll_wait. */
Test(pgwait_live, flight_recorder_fires_on_a_backend_lock_wait)
{
	pg_start(NULL);
	char line[256], want[64], path[128];
	pid_t h = backend(0);
	say(0, "create table t(id int primary key, v int); insert into t values (1, 0);\n"
	       "begin; update t set v = 1 where id = 1; select 'held';\n");
	answer(0, line, sizeof(line));
	pid_t w = backend(1);
	say(1, "update t set v = 2 where id = 1;\n");
	snprintf(want, sizeof(want), "{%d}", (int)h);
	server_says_blocked(w, want);
	asleep_in_kernel(w);
	tl_tmp_path(path, sizeof(path), "pgwait");
	struct tl_proc rec;
	char *extra[] = { "--ring", "16M", "--stall", "2", NULL };
	cr_assert_eq(tl_start_recorder(&rec, w, path, extra), 0);
	expect_pg_stall(&rec, w, path);
}

/* The whole server traced through its cgroup: its idle processes (the
 * checkpointer, the holder idle in its transaction) never fire; the
 * backend that blocks does. */
Test(pgwait_live, flight_recorder_fires_on_the_servers_cgroup)
{
	NEED_ROOT();
	need_postgres();
	char mount[PATH_MAX], name[64];
	if (lt_cgroup_mount(mount, sizeof(mount)))
		cr_skip_test("cgroup v2 is not mounted here: --cgroup needs the unified hierarchy");
	snprintf(name, sizeof(name), "locktrace-pg-%d", (int)getpid());
	snprintf(pg.cg, sizeof(pg.cg), "%s/%s", mount, name);
	cr_assert_eq(mkdir(pg.cg, 0755), 0, "mkdir %s: %s", pg.cg, strerror(errno));
	pg_start(pg.cg);
	char line[256], want[64], path[128];
	pid_t h = backend(0);
	say(0, "create table t(id int primary key, v int); insert into t values (1, 0);\n"
	       "begin; update t set v = 1 where id = 1; select 'held';\n");
	answer(0, line, sizeof(line));
	pid_t w = backend(1);
	tl_tmp_path(path, sizeof(path), "pgwait-cg");
	struct tl_proc rec;
	char *argv[] = { LT_BIN, "record", "--no-status", "-o", path, "--cgroup", name, "--ring", "16M",
			 "--stall", "2", NULL };
	cr_assert_eq(tl_spawn(&rec, argv), 0);
	close(rec.in_fd);
	rec.in_fd = -1;
	char lines[8][256];
	int n = 0;
	cr_assert(tl_wait_for(&rec, 1, "locktrace (pid ", lines, &n, 8, 20000), "recorder did not start");
	cr_assert_not_null(strstr(lines[n - 1], "of cgroup /"), "%s", lines[n - 1]);
	/* a few windows of an idle server first: nothing fires */
	sleep(5);
	char l2[256];
	while (tl_readline(&rec, 1, l2, sizeof(l2), 10) == 1)
		cr_assert_null(strstr(l2, "stall detected"), "the idle server fired: %s", l2);
	say(1, "update t set v = 2 where id = 1;\n");
	snprintf(want, sizeof(want), "{%d}", (int)h);
	server_says_blocked(w, want);
	expect_pg_stall(&rec, w, path);
}
