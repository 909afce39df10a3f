/* Several processes against live workloads: tests/workloads/shared_locks
 * (process-shared mutexes in one memfd, mapped at a different address in
 * each process) is the ground truth.  The workload is killed at the end of
 * every test (its child dies with it: PR_SET_PDEATHSIG).  Needs root. */
#include <criterion/criterion.h>
#include <errno.h>
#include <inttypes.h>
#include <limits.h>
#include <signal.h>
#include <sys/wait.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <sys/sysmacros.h>

#include "cli.h"
#include "locksyms.h"
#include "target.h"
#include "snapshot.h"
#include "lt_test.h"

#define NEED_ROOT() \
	tl_skip_unless_root("needs root: other processes' /proc files; run make test as root")

TL_WORKLOAD(64);

static void cleanup(void)
{
	tl_close(&wl);
}

static void start(char *const extra[])
{
	char path[] = WL("shared_locks");
	if (access(path, X_OK) != 0)
		cr_skip_test("%s not built: run make all first", path);
	char *argv[8] = { path };
	for (int i = 0; extra && extra[i] && i < 6; i++)
		argv[i + 1] = extra[i];
	tl_start_ready(&wl, argv, truth, &ntruth, 64, 30000);
}

static uint64_t tv(const char *type, const char *match, const char *key)
{
	return tl_truth_val(truth, ntruth, type, match, key);
}

static struct lt_snapshot *snap(pid_t pid)
{
	struct lt_snapshot_opts o = { .flags = LT_SNAP_NO_LINES };
	struct lt_snapshot *s = NULL;
	int r = lt_snapshot_take(pid, &o, &s);
	cr_assert_eq(r, 0, "lt_snapshot_take(%d): %s", (int)pid, lt_snapshot_strerror(r));
	return s;
}

static size_t count_kind(const struct lt_snapshot *s, enum lt_verdict_kind k, const struct lt_verdict **first)
{
	size_t n = 0;
	for (size_t i = 0; i < s->n_verdicts; i++)
		if (s->verdicts[i].kind == k && !n++)
			*first = &s->verdicts[i];
	return n;
}

Test(multi_live, two_process_deadlock_is_one_cycle, .fini = cleanup, .timeout = 60)
{
	NEED_ROOT();
	start(NULL);
	pid_t parent = wl.pid, child = (pid_t)tv("child", NULL, "pid");
	pid_t tp = (pid_t)tv("thread", "role=parent", "tid");
	pid_t tc = (pid_t)tv("thread", "role=child", "tid");
	uint64_t b_parent = tv("lock", "name=B", "parent_addr");
	uint64_t a_child = tv("lock", "name=A", "child_addr");
	cr_assert_neq(tv("lock", "name=A", "parent_addr"), a_child, "the child must map the lock elsewhere");

	struct lt_snapshot **s = calloc(2, sizeof(*s));
	s[0] = snap(parent);
	s[1] = snap(child);
	const struct lt_verdict *v = NULL;
	/* alone, each process sees a lock held by another process, no cycle */
	cr_assert_eq(count_kind(s[0], LT_VERDICT_DEADLOCK, &v), 0);
	cr_assert_eq(count_kind(s[1], LT_VERDICT_DEADLOCK, &v), 0);

	struct lt_multi_snapshot *m = NULL;
	cr_assert_eq(lt_multi_build(s, 2, NULL, &m), 0);
	cr_assert_eq(lt_multi_confirm(m), 0);
	cr_assert_eq(count_kind(&m->view, LT_VERDICT_DEADLOCK, &v), 1, "expected one deadlock");
	cr_assert_eq(m->view.verdicts[0].kind, LT_VERDICT_DEADLOCK, "the deadlock ranks first");
	cr_assert_eq(v->n_tids, 2);
	cr_assert_eq(v->n_locks, 2);
	for (size_t i = 0; i < 2; i++) {
		cr_assert(v->tids[i] == tp || v->tids[i] == tc, "unexpected tid %d", (int)v->tids[i]);
		/* each lock as its waiter's process maps it */
		cr_assert_eq(v->locks[i], v->tids[i] == tp ? b_parent : a_child);
		cr_assert_eq(lt_multi_pid_of(m, v->tids[i]), v->tids[i] == tp ? parent : child);
	}
	const struct lt_thread *a = lt_snapshot_find(&m->view, tp), *b = lt_snapshot_find(&m->view, tc);
	cr_assert(a && b);
	cr_assert_eq(a->futex.owner, tc);
	cr_assert_eq(b->futex.owner, tp);
	/* one object, the offsets the workload printed */
	cr_assert(a->futex.shared_obj && b->futex.shared_obj);
	cr_assert_eq(a->futex.obj_ino, b->futex.obj_ino);
	cr_assert_eq(a->futex.obj_off, tv("lock", "name=B", "offset"));
	cr_assert_eq(b->futex.obj_off, tv("lock", "name=A", "offset"));
	lt_multi_free(m);
}

/* The command line: -p P,C and -p P -p C give the same single verdict. */
Test(multi_live, cli_reports_one_deadlock_with_both_threads, .fini = cleanup, .timeout = 60)
{
	NEED_ROOT();
	start(NULL);
	pid_t child = (pid_t)tv("child", NULL, "pid");
	pid_t tp = (pid_t)tv("thread", "role=parent", "tid");
	pid_t tc = (pid_t)tv("thread", "role=child", "tid");
	const char *forms[2] = { "-p %d,%d", "-p %d -p %d" };
	for (int f = 0; f < 2; f++) {
		char args[64], cmd[256], out[1 << 16];
		snprintf(args, sizeof(args), forms[f], (int)wl.pid, (int)child);
		snprintf(cmd, sizeof(cmd), LT_BIN " snapshot %s --no-lines --no-ustack", args);
		FILE *p = popen(cmd, "r");
		cr_assert_not_null(p);
		size_t n = fread(out, 1, sizeof(out) - 1, p);
		out[n] = 0;
		cr_assert_eq(pclose(p), 0, "%s failed:\n%s", cmd, out);
		const char *d = strstr(out, "\nDEADLOCK: ");
		cr_assert_not_null(d, "no deadlock in:\n%s", out);
		cr_assert_null(strstr(d + 1, "\nDEADLOCK: "), "two deadlocks in:\n%s", out);
		char want[128];
		snprintf(want, sizeof(want), "thread %d of process %d", (int)tp, (int)wl.pid);
		cr_assert_not_null(strstr(out, want), "%s missing in:\n%s", want, out);
		snprintf(want, sizeof(want), "thread %d of process %d", (int)tc, (int)child);
		cr_assert_not_null(strstr(out, want), "%s missing in:\n%s", want, out);
		cr_assert_not_null(strstr(out, "offset 0x40"), "lock B's offset missing:\n%s", out);
	}
}

Test(multi_live, pid_lists_parse_and_refuse)
{
	pid_t *p = NULL;
	size_t n = 0;
	const char *bad = NULL;
	cr_assert_eq(lt_parse_pid_list("12,34", &p, &n, &bad), 0);
	cr_assert_eq(lt_parse_pid_list("34,56", &p, &n, &bad), 0);
	cr_assert_eq(n, 3, "repeats are skipped");
	cr_assert(p[0] == 12 && p[1] == 34 && p[2] == 56);
	cr_assert_eq(lt_parse_pid_list("7,x", &p, &n, &bad), -1);
	cr_assert_str_eq(bad, "x");
	cr_assert_eq(lt_parse_pid_list("7,,8", &p, &n, &bad), -1);
	cr_assert_eq(lt_parse_pid_list("-1", &p, &n, &bad), -1);
	cr_assert_eq(lt_parse_pid_list("", &p, &n, &bad), -1);
	free(p);
}

/* Launches `locktrace record --no-status RFLAGS -o PATH -- shared_locks
 * WARGS --no-wait` (PATH from TAG, 128 bytes) and reads the workload's
 * lines until one begins with UNTIL. */
static void launch_shared_locks(struct tl_proc *p, const char *tag, char *path, char *const rflags[],
				char *const wargs[], const char *until, char lines[][256], int *n)
{
	NEED_ROOT();
	if (access(WL("shared_locks"), X_OK) != 0)
		cr_skip_test("shared_locks not built: run make all first");
	tl_tmp_path(path, 128, tag);
	char *argv[32] = { LT_BIN, "record", "--no-status" };
	int i = 3;
	for (int k = 0; rflags && rflags[k] && i < 20; k++)
		argv[i++] = rflags[k];
	argv[i++] = "-o";
	argv[i++] = path;
	argv[i++] = "--";
	argv[i++] = WL("shared_locks");
	for (int k = 0; wargs[k] && i < 30; k++)
		argv[i++] = wargs[k];
	argv[i++] = "--no-wait";
	*n = 0;
	cr_assert_eq(tl_spawn(p, argv), 0);
	cr_assert(tl_wait_for(p, 0, until, lines, n, 64, 60000), "the workload never printed %s", until);
}

/* Launch mode follows forks: a program whose children contend with it on
 * a process-shared mutex has every process's futex calls in the trace,
 * and a TASK_NEW naming each child's process. */
Test(multi_live, launch_follows_forks_into_children, .timeout = 90)
{
	char path[128], lines[64][256];
	struct tl_proc p;
	int n;
	launch_shared_locks(&p, "forks", path, NULL,
			    (char *[]){ "--mode", "contend", "-P", "3", "-n", "100", NULL }, "done", lines, &n);
	cr_assert_eq(tl_wait(&p, 20000), 0);
	tl_close(&p);
	pid_t pid = (pid_t)tl_val(tl_find(lines, n, "pid", NULL), "pid", NULL);
	pid_t kids[2] = { (pid_t)tl_val(tl_find(lines, n, "child", "idx=1"), "pid", NULL),
			  (pid_t)tl_val(tl_find(lines, n, "child", "idx=2"), "pid", NULL) };

	struct tl_trace t;
	tl_load_clean(&t, path);
	cr_assert_eq(t.hdr.pid, pid);
	cr_assert_eq(tl_total_lost(&t), 0);
	size_t futex[3] = { 0 }, news[2] = { 0 };
	for (size_t i = 0; i < t.n; i++) {
		const struct lt_event *e = &t.ev[i];
		for (int k = 0; k < 2; k++)
			if (e->h.kind == LT_EV_TASK_NEW && e->h.tid == (uint32_t)kids[k]) {
				cr_assert_eq(e->tnew.tgid, (uint32_t)kids[k], "a child is its own process");
				news[k]++;
			}
		if (e->h.kind != LT_EV_FUTEX_ENTER)
			continue;
		futex[0] += e->h.tid == (uint32_t)pid;
		futex[1] += e->h.tid == (uint32_t)kids[0];
		futex[2] += e->h.tid == (uint32_t)kids[1];
	}
	for (int k = 0; k < 2; k++)
		cr_assert_eq(news[k], 1, "child %d: %zu TASK_NEW events", (int)kids[k], news[k]);
	/* 300 acquisitions of one lock held 200 us each by 3 processes:
	 * every process waits in futex() at some point */
	for (int k = 0; k < 3; k++)
		cr_assert_gt(futex[k], 0, "process %d of 3 has no futex call in the trace", k);
	tl_free(&t);
	unlink(path);
}

/* Shared mappings from /proc/PID/maps lines: the device as stat(2) gives
 * it, checked against this process's own memfd. */
Test(multi_live, maps_lines_shared_mappings)
{
	struct lt_shared_map m = { 0 };
	cr_assert_eq(lt_maps_line_shared("7f12a0000000-7f12a0001000 rw-s 00002000 00:01 4242   "
					 "/memfd:shared_locks (deleted)\n", &m), 1);
	cr_assert_eq(m.start, 0x7f12a0000000ull);
	cr_assert_eq(m.end, 0x7f12a0001000ull);
	cr_assert_eq(m.offset, 0x2000);
	cr_assert_eq(m.dev, makedev(0, 1));
	cr_assert_eq(m.ino, 4242);
	cr_assert_eq(lt_maps_line_shared("7f0000000000-7f0000001000 rw-s 00000000 fd:1a 77 /dev/shm/x\n",
					 &m), 1);
	cr_assert_eq(m.dev, makedev(0xfd, 0x1a));
	/* private file mappings, anonymous memory, a shared mapping without an
	 * inode: not keyed by an object */
	cr_assert_eq(lt_maps_line_shared("55d0c0a00000-55d0c0a01000 r--p 00000000 08:01 1234 /bin/x\n", &m), 0);
	cr_assert_eq(lt_maps_line_shared("7f0000000000-7f0000001000 rw-p 00000000 00:00 0\n", &m), 0);
	cr_assert_eq(lt_maps_line_shared("7f0000000000-7f0000001000 rw-s 00000000 00:00 0\n", &m), 0);
	cr_assert_eq(lt_maps_line_shared("not a maps line\n", &m), -1);
	cr_assert_eq(lt_maps_line_shared("", &m), -1);

	int fd = memfd_create("lt-maps-test", 0);
	cr_assert_geq(fd, 0);
	cr_assert_eq(ftruncate(fd, 8192), 0);
	char *p = mmap(NULL, 4096, PROT_READ | PROT_WRITE, MAP_SHARED, fd, 4096);
	cr_assert_neq(p, MAP_FAILED);
	struct stat st;
	cr_assert_eq(fstat(fd, &st), 0);
	struct lt_shared_map *v = NULL;
	size_t n = 0, cap = 0;
	cr_assert_eq(lt_target_shared_maps(getpid(), &v, &n, &cap), 0);
	const struct lt_shared_map *f = lt_shared_map_find(v, n, getpid(), (uint64_t)(uintptr_t)p + 0x40);
	cr_assert_not_null(f, "the memfd mapping is not among %zu shared mappings", n);
	cr_assert_eq(f->dev, st.st_dev, "dev %#" PRIx64 " vs st_dev %#lx", f->dev, (unsigned long)st.st_dev);
	cr_assert_eq(f->ino, st.st_ino);
	cr_assert_eq(f->offset + ((uint64_t)(uintptr_t)p + 0x40 - f->start), 4096 + 0x40);
	cr_assert_null(lt_shared_map_find(v, n, getpid() + 1, (uint64_t)(uintptr_t)p));
	free(v);
	munmap(p, 4096);
	close(fd);
}

/* ---- recording several processes ---------------------------------------- */

static struct tl_proc extra[3];

static void cleanup_all(void)
{
	tl_close(&wl);
	for (int i = 0; i < 3; i++)
		if (extra[i].pid > 0)
			tl_close(&extra[i]);
	memset(extra, 0, sizeof(extra));
}

/* Starts `shared_locks ARGS...` as p (up to its `ready`), its truth in lines. */
static void start_wl(struct tl_proc *p, char lines[][256], int *n, char *const args[])
{
	char path[] = WL("shared_locks");
	if (access(path, X_OK) != 0)
		cr_skip_test("%s not built: run make all first", path);
	char *argv[12] = { path };
	for (int i = 0; args[i] && i < 10; i++)
		argv[i + 1] = args[i];
	*n = 0;
	tl_start_ready(p, argv, lines, n, 64, 30000);
}

/* Lets p past its gate and waits for its `done` line (kept in lines). */
static void run_to_done(struct tl_proc *p, char lines[][256], int *n)
{
	tl_go(p);
	cr_assert(tl_wait_for(p, 0, "done", lines, n, 64, 60000), "workload %d did not finish", (int)p->pid);
}

/* Stops a recorder with SIGINT and waits for it to write its trace. */
static void stop_recorder(struct tl_proc *rec)
{
	kill(rec->pid, SIGINT);
	int st = tl_wait(rec, 60000);
	cr_assert(WIFEXITED(st) && WEXITSTATUS(st) == 0, "locktrace record ended with status 0x%x", st);
	tl_close(rec);
}

/* Starts a recorder and waits for its first line (into first). */
static void start_recording(struct tl_proc *rec, char *const argv[], char *first, size_t len)
{
	char rl[8][256];
	int rn = 0;
	cr_assert_eq(tl_spawn(rec, argv), 0);
	cr_assert(tl_wait_for(rec, 1, "locktrace (pid ", rl, &rn, 8, 20000), "the recorder did not start: %s",
		  rn ? rl[rn - 1] : "");
	snprintf(first, len, "%s", rl[rn - 1]);
}

/* Loads a trace that must be complete, with nothing lost. */
static void load_complete(struct tl_trace *t, const char *path)
{
	cr_assert_eq(tl_load(t, path), 0);
	cr_assert(t->clean_end);
	cr_assert_eq(tl_total_lost(t), 0);
}

/* Ctrl-C to a launched recording: the workload gets SIGTERM (a child dies
 * with its parent), locktrace exits with its status, 128 + 15; then the
 * trace, complete. */
static void stop_launched(struct tl_proc *p, struct tl_trace *t, const char *path)
{
	kill(p->pid, SIGINT);
	int st = tl_wait(p, 60000);
	cr_assert(WIFEXITED(st) && WEXITSTATUS(st) == 128 + SIGTERM, "status 0x%x", st);
	tl_close(p);
	load_complete(t, path);
}

/* Runs a shell command; its output (stdout and stderr) in out.  Its status. */
/* Runs cmd, keeps the first len - 1 bytes of its output and reads the rest
 * too: closing the pipe early would kill a long writer (a usage text) with
 * SIGPIPE, as it once did here. */
static int run_cmd(const char *cmd, char *out, size_t len)
{
	FILE *p = popen(cmd, "r");
	cr_assert_not_null(p);
	size_t k = fread(out, 1, len - 1, p);
	out[k] = 0;
	char sink[4096];
	while (fread(sink, 1, sizeof(sink), p) > 0)
		;
	return pclose(p);
}

/* FUTEX_ENTER events of thread tid on uaddr. */
static size_t futex_on(const struct tl_trace *t, pid_t tid, uint64_t uaddr)
{
	size_t n = 0;
	for (size_t i = 0; i < t->n; i++)
		n += t->ev[i].h.kind == LT_EV_FUTEX_ENTER && t->ev[i].h.tid == (uint32_t)tid &&
		     t->ev[i].futex.uaddr == uaddr;
	return n;
}

static int in_set(const uint32_t *v, size_t n, uint32_t x)
{
	for (size_t i = 0; i < n; i++)
		if (v[i] == x)
			return 1;
	return 0;
}

/* Every event is about the processes tgids[0..n) and nothing else: a
 * switch has one of them on a side, any other event is of a thread in the
 * header or created (TASK_NEW) in one of them. */
static void assert_only(const struct tl_trace *t, const pid_t *tgids, size_t n)
{
	uint32_t set[8], known[4096];
	size_t nk = 0;
	for (size_t i = 0; i < n && i < 8; i++)
		set[i] = (uint32_t)tgids[i];
	for (uint32_t i = 0; i < t->hdr.nthreads && nk < 4096; i++) {
		cr_assert(in_set(set, n, (uint32_t)t->hdr.threads[i].tgid), "header thread %d of process %d",
			  t->hdr.threads[i].tid, t->hdr.threads[i].tgid);
		known[nk++] = (uint32_t)t->hdr.threads[i].tid;
	}
	for (size_t i = 0; i < t->n; i++)
		if (t->ev[i].h.kind == LT_EV_TASK_NEW && nk < 4096) {
			cr_assert(in_set(set, n, t->ev[i].tnew.tgid), "a thread of process %u", t->ev[i].tnew.tgid);
			known[nk++] = t->ev[i].h.tid;
		}
	for (size_t i = 0; i < t->n; i++) {
		const struct lt_event *e = &t->ev[i];
		if (e->h.kind == LT_EV_SWITCH)
			cr_assert(in_set(set, n, e->sw.prev_tgid) || in_set(set, n, e->sw.next_tgid),
				  "switch %u (process %u) -> %u (process %u) involves no traced process",
				  e->sw.prev_tid, e->sw.prev_tgid, e->sw.next_tid, e->sw.next_tgid);
		else if (e->h.kind != LT_EV_LOST)
			cr_assert(in_set(known, nk, e->h.tid), "event of kind %s for tid %u, not a traced thread",
				  lt_kind_name(e->h.kind), e->h.tid);
	}
}

static const struct lt_proc_info *hdr_proc(const struct lt_header *h, pid_t tgid)
{
	for (uint32_t i = 0; i < h->nprocs; i++)
		if (h->procs[i].tgid == tgid)
			return &h->procs[i];
	return NULL;
}

static size_t hdr_threads_of(const struct lt_header *h, pid_t tgid)
{
	size_t n = 0;
	for (uint32_t i = 0; i < h->nthreads; i++)
		n += h->threads[i].tgid == tgid;
	return n;
}

#define WAKES 300

/* record -p A,B: both processes' exact futex calls, each thread with its
 * process in the header, nothing of a third process running meanwhile. */
Test(multi_live, record_pid_list_has_both_processes_and_no_other, .fini = cleanup_all, .timeout = 120)
{
	NEED_ROOT();
	char l[3][64][256];
	int n[3];
	char *args[] = { "--mode", "futex", "-P", "1", "-n", "300", NULL };
	for (int i = 0; i < 3; i++)
		start_wl(&extra[i], l[i], &n[i], args);
	pid_t a = extra[0].pid, b = extra[1].pid, c = extra[2].pid;
	uint64_t wa = tl_truth_val(l[0], n[0], "lock", "name=W", "addr");
	uint64_t wb = tl_truth_val(l[1], n[1], "lock", "name=W", "addr");
	uint64_t wc = tl_truth_val(l[2], n[2], "lock", "name=W", "addr");

	char path[128], list[64];
	tl_tmp_path(path, sizeof(path), "pids");
	snprintf(list, sizeof(list), "%d,%d", (int)a, (int)b);
	char *argv[] = { LT_BIN, "record", "--no-status", "-o", path, "-p", list, NULL };
	struct tl_proc rec;
	char first[256];
	start_recording(&rec, argv, first, sizeof(first));
	cr_assert(strstr(first, "2 processes"), "first line: %s", first);
	for (int i = 0; i < 3; i++)
		run_to_done(&extra[i], l[i], &n[i]);
	stop_recorder(&rec);

	struct tl_trace t;
	load_complete(&t, path);
	cr_assert_eq(t.hdr.pid, a);
	cr_assert_eq(t.hdr.nprocs, 2);
	cr_assert_eq(t.hdr.procs[0].tgid, a);
	cr_assert_eq(t.hdr.procs[1].tgid, b);
	cr_assert_eq(t.hdr.procs[1].flags, LT_PROC_GIVEN);
	cr_assert_str_eq(t.hdr.procs[1].comm, "shared_locks");
	cr_assert_eq(hdr_threads_of(&t.hdr, a), 1);
	cr_assert_eq(hdr_threads_of(&t.hdr, b), 1);
	cr_assert_eq(futex_on(&t, a, wa), WAKES, "process A: %zu of %d wakes", futex_on(&t, a, wa), WAKES);
	cr_assert_eq(futex_on(&t, b, wb), WAKES, "process B: %zu of %d wakes", futex_on(&t, b, wb), WAKES);
	cr_assert_eq(futex_on(&t, c, wc), 0);
	assert_only(&t, (pid_t[]){ a, b }, 2);
	tl_free(&t);
	unlink(path);
}

/* --children: a prefork server's workers (there before attaching) and the
 * kernel-followed forks; 4 processes contend on one shared mutex: every
 * one has futex calls on lock A (the same address: forks), and the names
 * of lock A in all of them carry one shared key, offset 0. */
struct keys_seen {
	uint64_t addr;
	int n;
	int32_t tgid[8];
	struct lt_shared_key key[8];
};

static void on_sym(void *ctx, int32_t tgid, uint64_t addr, const char *name, const struct lt_shared_key *key)
{
	struct keys_seen *k = ctx;
	(void)name;
	if (addr != k->addr || !key || k->n == 8)
		return;
	for (int i = 0; i < k->n; i++)
		if (k->tgid[i] == tgid)
			return;
	k->tgid[k->n] = tgid;
	k->key[k->n++] = *key;
}

Test(multi_live, children_of_a_prefork_server_share_one_lock, .fini = cleanup_all, .timeout = 120)
{
	NEED_ROOT();
	char l[64][256];
	int n;
	char *args[] = { "--mode", "contend", "-P", "4", "-n", "100", "--prefork", NULL };
	start_wl(&wl, l, &n, args);
	pid_t kids[3];
	for (int i = 0; i < 3; i++) {
		char m[16];
		snprintf(m, sizeof(m), "idx=%d", i + 1);
		kids[i] = (pid_t)tl_truth_val(l, n, "child", m, "pid");
	}
	uint64_t a = tl_truth_val(l, n, "lock", "name=A", "parent_addr");
	char path[128];
	tl_tmp_path(path, sizeof(path), "children");
	char *extra_args[] = { "--children", NULL };
	struct tl_proc rec;
	cr_assert_eq(tl_start_recorder(&rec, wl.pid, path, extra_args), 0);
	run_to_done(&wl, l, &n);
	cr_assert_eq(tl_truth_val(l, n, "done", NULL, "locks"), 400);
	stop_recorder(&rec);

	struct tl_trace t;
	load_complete(&t, path);
	cr_assert_eq(t.hdr.nprocs, 4, "the parent and its 3 workers at attach");
	cr_assert_eq(hdr_proc(&t.hdr, wl.pid)->flags, LT_PROC_GIVEN);
	for (int i = 0; i < 3; i++) {
		const struct lt_proc_info *p = hdr_proc(&t.hdr, kids[i]);
		cr_assert_not_null(p, "worker %d is not in the header", (int)kids[i]);
		cr_assert_eq(p->flags, LT_PROC_CHILD);
		cr_assert_eq(p->ppid, wl.pid);
		cr_assert_eq(hdr_threads_of(&t.hdr, kids[i]), 1);
	}
	/* the memfd is mapped in all four at attach */
	uint32_t shared = 0;
	for (uint32_t i = 0; i < t.hdr.nshared; i++)
		shared += t.hdr.shared[i].start <= a && a < t.hdr.shared[i].end;
	cr_assert_eq(shared, 4, "lock A's mapping in %u of 4 processes' shared mappings", shared);
	/* 400 acquisitions held 200 us by 4 processes: each waits at some point */
	pid_t all[4] = { wl.pid, kids[0], kids[1], kids[2] };
	for (int i = 0; i < 4; i++)
		cr_assert_gt(futex_on(&t, all[i], a), 0, "process %d has no futex call on lock A", (int)all[i]);
	struct keys_seen k = { .addr = a };
	cr_assert_eq(lt_trace_symbols_procs(path, on_sym, &k), 0);
	cr_assert_eq(k.n, 4, "lock A is named in %d of 4 processes", k.n);
	for (int i = 0; i < 4; i++) {
		cr_assert_eq(k.key[i].offset, 0, "lock A's offset in the memfd");
		cr_assert_eq(k.key[i].ino, k.key[0].ino);
		cr_assert_eq(k.key[i].dev, k.key[0].dev);
	}
	tl_free(&t);
	unlink(path);
}

/* A launched deadlock across two processes: the child maps the memfd at
 * another address, yet every futex word the two share has one key in the
 * SYMBOLS of both (the barrier's), the two locks the same object at the
 * offsets the workload printed; the snapshot at the end finds the cycle. */
struct all_syms {
	int n;
	int32_t tgid[64];
	uint64_t addr[64];
	int shared[64];
	struct lt_shared_key key[64];
};

static void all_sym(void *ctx, int32_t tgid, uint64_t addr, const char *name, const struct lt_shared_key *key)
{
	struct all_syms *s = ctx;
	(void)name;
	if (s->n == 64)
		return;
	s->tgid[s->n] = tgid;
	s->addr[s->n] = addr;
	s->shared[s->n] = key != NULL;
	if (key)
		s->key[s->n] = *key;
	s->n++;
}

static int sym_index(const struct all_syms *s, int32_t tgid, uint64_t addr)
{
	for (int i = 0; i < s->n; i++)
		if (s->tgid[i] == tgid && s->addr[i] == addr)
			return i;
	return -1;
}

Test(multi_live, launched_deadlock_names_shared_locks_by_object, .timeout = 120)
{
	char path[128], lines[64][256];
	struct tl_proc p;
	int n;
	launch_shared_locks(&p, "launchdl", path, NULL, (char *[]){ "--mode", "deadlock", NULL }, "ready",
			    lines, &n);
	pid_t parent = (pid_t)tl_truth_val(lines, n, "pid", NULL, "pid");
	pid_t child = (pid_t)tl_truth_val(lines, n, "child", NULL, "pid");
	uint64_t a_p = tl_truth_val(lines, n, "lock", "name=A", "parent_addr");
	uint64_t a_c = tl_truth_val(lines, n, "lock", "name=A", "child_addr");
	uint64_t b_p = tl_truth_val(lines, n, "lock", "name=B", "parent_addr");
	cr_assert_neq(a_p, a_c);
	/* names are given ~100 ms after an address is first seen */
	usleep(500000);
	struct tl_trace t;
	stop_launched(&p, &t, path);
	cr_assert_eq(t.hdr.pid, parent);
	cr_assert(t.hdr.flags & LT_HDR_LAUNCHED);
	cr_assert_eq(t.hdr.nprocs, 1, "the child is forked after the header");
	struct all_syms s = { 0 };
	cr_assert_eq(lt_trace_symbols_procs(path, all_sym, &s), 0);
	/* the locks waited on: B in the parent, A in the child */
	int ib = sym_index(&s, parent, b_p), ia = sym_index(&s, child, a_c);
	cr_assert(ib >= 0 && ia >= 0, "lock B in the parent (%d) or A in the child (%d) is not named", ib, ia);
	cr_assert(s.shared[ib] && s.shared[ia]);
	cr_assert_eq(s.key[ib].offset, tl_truth_val(lines, n, "lock", "name=B", "offset"));
	cr_assert_eq(s.key[ia].offset, tl_truth_val(lines, n, "lock", "name=A", "offset"));
	cr_assert_eq(s.key[ib].ino, s.key[ia].ino, "one object");
	cr_assert_eq(s.key[ib].dev, s.key[ia].dev);
	/* the barrier: futex calls in both processes, one key, two addresses */
	int same = 0;
	for (int i = 0; i < s.n; i++)
		for (int j = 0; j < s.n; j++)
			if (s.tgid[i] == parent && s.tgid[j] == child && s.shared[i] && s.shared[j] &&
			    !memcmp(&s.key[i], &s.key[j], sizeof(s.key[i]))) {
				cr_assert_eq(s.addr[i] - a_p, s.addr[j] - a_c, "key offset 0x%" PRIx64,
					     s.key[i].offset);
				cr_assert_neq(s.addr[i], s.addr[j]);
				same++;
			}
	cr_assert_geq(same, 1, "no futex word named in both processes with one key");
	/* the snapshot at the end: both processes, one cycle across them */
	cr_assert_not_null(t.snapshot_json);
	cr_assert_not_null(strstr(t.snapshot_json, "\"processes\":["), "no process list in the snapshot");
	char want[64];
	snprintf(want, sizeof(want), "{\"pid\":%d,", (int)child);
	cr_assert_not_null(strstr(t.snapshot_json, want), "the child is not in the snapshot");
	cr_assert_not_null(strstr(t.snapshot_json, "\"kind\":\"deadlock\""), "no deadlock in the snapshot");
	tl_free(&t);
	unlink(path);
}

/* ---- --cgroup ------------------------------------------------------------- */

static char cg_dir[PATH_MAX], cg_sub[PATH_MAX + 8];

static void cg_write(const char *dir, const char *file, pid_t pid)
{
	char p[PATH_MAX + 32];
	snprintf(p, sizeof(p), "%s/%s", dir, file);
	FILE *f = fopen(p, "w");
	cr_assert_not_null(f, "%s: %s", p, strerror(errno));
	fprintf(f, "%d\n", (int)pid);
	cr_assert_eq(fclose(f), 0, "moving %d into %s: %s", (int)pid, dir, strerror(errno));
}

/* Kills what is left, moves nothing back (the processes are gone), and
 * removes the test's cgroup once it is empty. */
static void cleanup_cgroup(void)
{
	cleanup_all();
	for (int i = 0; cg_sub[0] && i < 500 && rmdir(cg_sub) != 0 && errno == EBUSY; i++)
		usleep(10000);
	cg_sub[0] = 0;
	if (!cg_dir[0])
		return;
	for (int i = 0; i < 500 && rmdir(cg_dir) != 0 && errno == EBUSY; i++)
		usleep(10000);
	cg_dir[0] = 0;
}

static void make_cgroup(char *mount, size_t len)
{
	if (lt_cgroup_mount(mount, len))
		cr_skip_test("cgroup v2 is not mounted here: --cgroup needs the unified hierarchy");
	snprintf(cg_dir, sizeof(cg_dir), "%s/locktrace-test-%d", mount, (int)getpid());
	cr_assert_eq(mkdir(cg_dir, 0755), 0, "mkdir %s: %s", cg_dir, strerror(errno));
}

/* The test's cgroup, and two workloads (extra[0], extra[1]) at their gates
 * with args0 and args1, the first moved into the cgroup. */
static void two_with_the_first_in_a_cgroup(char l[2][64][256], int n[2], char *const args0[],
					   char *const args1[])
{
	char mount[PATH_MAX];
	make_cgroup(mount, sizeof(mount));
	start_wl(&extra[0], l[0], &n[0], args0);
	start_wl(&extra[1], l[1], &n[1], args1);
	cg_write(cg_dir, "cgroup.procs", extra[0].pid);
}

/* Every process of a cgroup made by the test, the ones it forks inside
 * included; nothing of a process outside it, nor of the recorder, which
 * runs inside it. */
Test(multi_live, cgroup_traces_its_processes_and_their_forks, .fini = cleanup_cgroup, .timeout = 120)
{
	NEED_ROOT();
	char l[2][64][256];
	int n[2];
	char *in_args[] = { "--mode", "futex", "-P", "2", "-n", "300", NULL };
	char *out_args[] = { "--mode", "futex", "-P", "1", "-n", "300", NULL };
	two_with_the_first_in_a_cgroup(l, n, in_args, out_args);
	pid_t in = extra[0].pid, out = extra[1].pid;
	uint64_t w_in = tl_truth_val(l[0], n[0], "lock", "name=W", "addr");
	uint64_t w_out = tl_truth_val(l[1], n[1], "lock", "name=W", "addr");

	char path[128], cmd[PATH_MAX + 256];
	tl_tmp_path(path, sizeof(path), "cgroup");
	/* the recorder runs in the cgroup it records: it leaves itself out;
	 * the cgroup is named relative to the mount */
	snprintf(cmd, sizeof(cmd), "echo $$ > %s/cgroup.procs && exec " LT_BIN " record --no-status -o %s "
		 "--cgroup locktrace-test-%d", cg_dir, path, (int)getpid());
	char *argv[] = { "/bin/sh", "-c", cmd, NULL };
	struct tl_proc rec;
	char first[256];
	start_recording(&rec, argv, first, sizeof(first));
	cr_assert(strstr(first, "of cgroup /"), "first line: %s", first);
	run_to_done(&extra[0], l[0], &n[0]);
	run_to_done(&extra[1], l[1], &n[1]);
	pid_t kid = (pid_t)tl_truth_val(l[0], n[0], "child", "idx=1", "pid");
	pid_t self = rec.pid;
	stop_recorder(&rec);

	struct tl_trace t;
	load_complete(&t, path);
	cr_assert_eq(t.hdr.pid, in);
	cr_assert_eq(t.hdr.nprocs, 1);
	cr_assert_eq(t.hdr.procs[0].flags, LT_PROC_CGROUP);
	cr_assert_eq(futex_on(&t, in, w_in), WAKES, "%zu of %d wakes in the cgroup's process",
		     futex_on(&t, in, w_in), WAKES);
	cr_assert_eq(futex_on(&t, kid, w_in), WAKES, "%zu of %d wakes in the process it forked",
		     futex_on(&t, kid, w_in), WAKES);
	size_t news = 0;
	for (size_t i = 0; i < t.n; i++)
		news += t.ev[i].h.kind == LT_EV_TASK_NEW && t.ev[i].h.tid == (uint32_t)kid &&
			t.ev[i].tnew.tgid == (uint32_t)kid;
	cr_assert_eq(news, 1);
	cr_assert_eq(futex_on(&t, out, w_out), 0);
	/* nothing of the process outside, nor of the recorder */
	assert_only(&t, (pid_t[]){ in, kid }, 2);
	cr_assert_null(hdr_proc(&t.hdr, self));
	tl_free(&t);
	unlink(path);
}

/* A cgroup made below the traced one after recording began (a container's
 * or a service's sub-cgroup) is traced from its birth: a process moved into
 * it then has every futex call in the trace. */
Test(multi_live, cgroup_made_below_while_recording_is_traced, .fini = cleanup_cgroup, .timeout = 120)
{
	NEED_ROOT();
	char l[2][64][256];
	int n[2];
	char *args[] = { "--mode", "futex", "-P", "1", "-n", "300", NULL };
	two_with_the_first_in_a_cgroup(l, n, args, args);
	pid_t later = extra[1].pid;
	uint64_t w_later = tl_truth_val(l[1], n[1], "lock", "name=W", "addr");

	char path[128], cgarg[PATH_MAX];
	tl_tmp_path(path, sizeof(path), "cgsub");
	snprintf(cgarg, sizeof(cgarg), "%s", cg_dir);
	char *argv[] = { LT_BIN, "record", "--no-status", "-o", path, "--cgroup", cgarg, NULL };
	struct tl_proc rec;
	char line[256];
	start_recording(&rec, argv, line, sizeof(line));
	snprintf(cg_sub, sizeof(cg_sub), "%s/sub", cg_dir);
	cr_assert_eq(mkdir(cg_sub, 0755), 0, "mkdir %s: %s", cg_sub, strerror(errno));
	cg_write(cg_sub, "cgroup.procs", later);
	run_to_done(&extra[1], l[1], &n[1]);
	run_to_done(&extra[0], l[0], &n[0]);
	stop_recorder(&rec);

	struct tl_trace t;
	load_complete(&t, path);
	cr_assert_eq(futex_on(&t, later, w_later), WAKES, "%zu of %d wakes of the process in the new cgroup",
		     futex_on(&t, later, w_later), WAKES);
	tl_free(&t);
	unlink(path);
}

/* What --cgroup refuses, and why (needs root for the empty cgroup). */
Test(multi_live, cgroup_errors_are_clear, .fini = cleanup_cgroup, .timeout = 60)
{
	NEED_ROOT();
	char mount[PATH_MAX];
	make_cgroup(mount, sizeof(mount));
	struct {
		const char *arg, *want;
	} cases[] = {
		{ "/tmp", "not a cgroup v2 directory" },
		{ "no/such/cgroup-here", "not a cgroup v2 directory" },
		{ cg_dir, "empty cgroup" },
	};
	for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		char cmd[PATH_MAX + 128], out[4096];
		snprintf(cmd, sizeof(cmd), LT_BIN " record --no-status -o /tmp/lt-cg-err.ltrace --cgroup '%s' 2>&1",
			 cases[i].arg);
		int st = run_cmd(cmd, out, sizeof(out));
		cr_assert(WIFEXITED(st) && WEXITSTATUS(st) == 1, "%s: status 0x%x", cmd, st);
		cr_assert_not_null(strstr(out, cases[i].want), "%s said:\n%s", cmd, out);
		cr_assert_neq(access("/tmp/lt-cg-err.ltrace", F_OK), 0, "a trace was left behind");
	}
}

/* Path checks without root: absolute, relative, as /proc/PID/cgroup says. */
Test(multi_live, cgroup_paths_resolve_or_say_why)
{
	char mount[PATH_MAX], out[PATH_MAX], rel[PATH_MAX], err[512];
	cr_assert_eq(lt_cgroup_path("x", "", out, sizeof(out), rel, sizeof(rel), err, sizeof(err)), -1);
	cr_assert_not_null(strstr(err, "cgroup v2 is not mounted"), "%s", err);
	cr_assert_eq(lt_cgroup_path("", "/sys/fs/cgroup", out, sizeof(out), rel, sizeof(rel), err, sizeof(err)), -1);
	if (lt_cgroup_mount(mount, sizeof(mount)))
		cr_skip_test("cgroup v2 is not mounted here: the rest needs it");
	cr_assert_eq(lt_cgroup_path("/tmp", mount, out, sizeof(out), rel, sizeof(rel), err, sizeof(err)), -1);
	cr_assert_not_null(strstr(err, "not a cgroup v2 directory"), "%s", err);
	cr_assert_eq(lt_cgroup_path("/", mount, out, sizeof(out), rel, sizeof(rel), err, sizeof(err)), 0, "%s", err);
	cr_assert_str_eq(out, mount);
	cr_assert_str_eq(rel, "/");
	cr_assert_eq(lt_cgroup_path(mount, mount, out, sizeof(out), rel, sizeof(rel), err, sizeof(err)), 0);
	cr_assert_str_eq(rel, "/");
	/* our own cgroup, as /proc/self/cgroup names it, and relative */
	char line[PATH_MAX], self[PATH_MAX] = "";
	FILE *f = fopen("/proc/self/cgroup", "r");
	cr_assert_not_null(f);
	while (fgets(line, sizeof(line), f))
		if (!strncmp(line, "0::", 3))
			sscanf(line + 3, "%4095s", self);
	fclose(f);
	cr_assert(self[0] == '/', "no v2 line in /proc/self/cgroup");
	cr_assert_eq(lt_cgroup_path(self, mount, out, sizeof(out), rel, sizeof(rel), err, sizeof(err)), 0, "%s", err);
	cr_assert_str_eq(rel, self);
	if (strcmp(self, "/")) {
		cr_assert_eq(lt_cgroup_path(self + 1, mount, out, sizeof(out), rel, sizeof(rel), err, sizeof(err)), 0);
		cr_assert_str_eq(rel, self);
	}
}

/* -p lists and the options that go with them, refused before anything. */
Test(multi_live, record_option_errors)
{
	struct {
		const char *args, *want;
	} cases[] = {
		{ "-p 12,x", "invalid pid 'x'" },
		{ "--children -- /bin/true", "--children needs -p" },
		{ "-p 1 --no-follow-forks", "--no-follow-forks is for -- COMMAND" },
		{ "-p 1 -- /bin/true", "not both" },
		{ "--cgroup x -- /bin/true", "not both" },
	};
	for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		char cmd[256], out[4096];
		snprintf(cmd, sizeof(cmd), LT_BIN " record %s 2>&1", cases[i].args);
		int st = run_cmd(cmd, out, sizeof(out));
		cr_assert(WIFEXITED(st) && WEXITSTATUS(st) == 2, "%s: status 0x%x", cmd, st);
		cr_assert_not_null(strstr(out, cases[i].want), "%s said:\n%s", cmd, out);
	}
}

/* --children follows the forks made after attaching too (in the kernel):
 * exact counts in the parent and in both children it forks at its gate. */
Test(multi_live, children_forked_while_recording_are_followed, .fini = cleanup_all, .timeout = 120)
{
	NEED_ROOT();
	char l[64][256];
	int n;
	char *args[] = { "--mode", "futex", "-P", "3", "-n", "300", NULL };
	start_wl(&wl, l, &n, args);
	uint64_t w = tl_truth_val(l, n, "lock", "name=W", "addr");
	char path[128];
	tl_tmp_path(path, sizeof(path), "forks-p");
	char *extra_args[] = { "--children", NULL };
	struct tl_proc rec;
	cr_assert_eq(tl_start_recorder(&rec, wl.pid, path, extra_args), 0);
	run_to_done(&wl, l, &n);
	pid_t kids[2] = { (pid_t)tl_truth_val(l, n, "child", "idx=1", "pid"),
			  (pid_t)tl_truth_val(l, n, "child", "idx=2", "pid") };
	stop_recorder(&rec);

	struct tl_trace t;
	load_complete(&t, path);
	cr_assert_eq(t.hdr.nprocs, 1, "no child at attach");
	cr_assert_eq(futex_on(&t, wl.pid, w), WAKES);
	for (int i = 0; i < 2; i++)
		cr_assert_eq(futex_on(&t, kids[i], w), WAKES, "child %d: %zu of %d wakes", (int)kids[i],
			     futex_on(&t, kids[i], w), WAKES);
	assert_only(&t, (pid_t[]){ wl.pid, kids[0], kids[1] }, 3);
	tl_free(&t);
	unlink(path);
}

/* --no-follow-forks: a launched command alone, not the processes it forks. */
Test(multi_live, launch_without_following_forks, .timeout = 90)
{
	char path[128], lines[64][256];
	struct tl_proc p;
	int n;
	launch_shared_locks(&p, "nofollow", path, (char *[]){ "--no-follow-forks", NULL },
			    (char *[]){ "--mode", "futex", "-P", "2", "-n", "300", NULL }, "done", lines, &n);
	pid_t pid = (pid_t)tl_truth_val(lines, n, "pid", NULL, "pid");
	pid_t kid = (pid_t)tl_truth_val(lines, n, "child", "idx=1", "pid");
	uint64_t w = tl_truth_val(lines, n, "lock", "name=W", "addr");
	struct tl_trace t;
	stop_launched(&p, &t, path);
	cr_assert_eq(t.hdr.nprocs, 0, "one process, as before 1.3");
	cr_assert_eq(futex_on(&t, pid, w), WAKES);
	cr_assert_eq(futex_on(&t, kid, w), 0);
	assert_only(&t, (pid_t[]){ pid }, 1);
	tl_free(&t);
	unlink(path);
}
