/* Go programs for real: tests/workloads/go/gowl built with Debian's
 * golang-go.  The workload writes its own runtime.Stack(all) output (and
 * the addresses of its mutexes and channel) to a file once every goroutine
 * is blocked: the snapshot must find the same goroutines (ids), the same
 * functions in the same order with the same lines, the ABBA deadlock with
 * its goroutines and mutexes, the handlers queued behind it, a channel
 * leak, nothing on a healthy idle server, and say what a stripped binary
 * loses.  The process is only read.  Skips, saying why, where go was
 * missing at build time. */
#include <criterion/criterion.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <signal.h>
#include <unistd.h>

#include "golang.h"
#include "snapshot.h"
#include "waitfor.h"
#include "lt_test.h"
#include "tp.h"

#define GOWL WL("go/gowl")
#define GOWL_STRIPPED WL("go/gowl-stripped")

TL_WORKLOAD(16);
static char out[256];
static pid_t go_child; /* gowl pipeleak's sleep */

static void cleanup(void)
{
	if (go_child > 0)
		kill(go_child, SIGKILL);
	go_child = 0;
	tl_close_started(&wl);
	if (out[0])
		unlink(out);
}

TestSuite(go_live, .fini = cleanup, .timeout = 120);

/* Starts BIN MODE [N] OUT and waits for "ready". */
static void start(const char *bin, const char *mode, const char *n)
{
	if (access(bin, X_OK) != 0)
		cr_skip_test("%s not built: go was missing at build time (Debian's golang-go; make deps "
			     "installs it)", bin);
	tl_skip_unless_root("reading another process's memory needs root here");
	static int seq;
	snprintf(out, sizeof(out), "/tmp/lt-test-%d-gowl-%d.txt", getpid(), seq++);
	unlink(out);
	char *argv[] = { (char *)bin, (char *)mode, (char *)(n ? n : out), n ? out : NULL, NULL };
	ntruth = 0;
	cr_assert_eq(tl_spawn(&wl, argv), 0);
	cr_assert(tl_wait_for(&wl, 0, "ready", truth, &ntruth, 16, 60000), "%s %s never got ready", bin, mode);
}

/* ---- the workload's own runtime.Stack(all) ---- */

struct tg {
	long id;
	char status[64];
	char func[64][160];
	int line[64];
	int n;
};

static struct tg *truth_gs;
static size_t ntg;
static uint64_t addr_of[5];

static void read_truth(void)
{
	FILE *f = fopen(out, "r");
	cr_assert_not_null(f, "%s unreadable", out);
	free(truth_gs);
	truth_gs = NULL;
	ntg = 0;
	char line[4096];
	struct tg *cur = NULL;
	bool creator = false; /* the next line is the "created by" call's */
	memset(addr_of, 0, sizeof(addr_of));
	while (fgets(line, sizeof(line), f)) {
		line[strcspn(line, "\n")] = 0;
		char name[64];
		unsigned long long a;
		if (sscanf(line, "addr %63s 0x%llx", name, &a) == 2) {
			int k = !strcmp(name, "muA") ? 0 : !strcmp(name, "muB") ? 1 : !strcmp(name, "leakCh") ? 2
				: !strcmp(name, "jobs") ? 4 : 3;
			/* addr_of[3]: rw, [4]: jobs */
			addr_of[k] = a;
			continue;
		}
		long id;
		char st[64];
		if (sscanf(line, "goroutine %ld [%63[^]]]:", &id, st) == 2) {
			truth_gs = realloc(truth_gs, (ntg + 1) * sizeof(*truth_gs));
			cr_assert_not_null(truth_gs);
			cur = &truth_gs[ntg++];
			memset(cur, 0, sizeof(*cur));
			cur->id = id;
			snprintf(cur->status, sizeof(cur->status), "%s", st);
			continue;
		}
		if (!cur || !line[0])
			continue;
		if (!strncmp(line, "created by ", 11)) {
			creator = true;
			continue;
		}
		if (line[0] == '\t') {
			if (creator) {
				creator = false;
				continue;
			}
			/* "\t/path/file.go:37 +0x85": the line of the last function */
			char *colon = strrchr(line, ':');
			if (cur->n && colon)
				cur->line[cur->n - 1] = atoi(colon + 1);
			continue;
		}
		if (cur->n < 64) {
			char *paren = strrchr(line, '(');
			if (paren)
				*paren = 0;
			snprintf(cur->func[cur->n], sizeof(cur->func[0]), "%.159s", line);
			cur->n++;
		}
	}
	fclose(f);
	cr_assert(ntg > 0, "no goroutine in %s", out);
}

static struct lt_snapshot *snap(void)
{
	struct lt_snapshot *s = NULL;
	int err = lt_snapshot_take(wl.pid, NULL, &s);
	cr_assert_eq(err, 0, "snapshot: %s", lt_snapshot_strerror(err));
	for (size_t i = 0; i < s->n_verdicts; i++) {
		fprintf(stderr, "go_live: verdict %zu: %s\n", i, s->verdicts[i].summary);
		for (size_t k = 0; k < s->verdicts[i].evidence.n; k++)
			fprintf(stderr, "go_live:     %s\n", s->verdicts[i].evidence.v[k]);
	}
	return s;
}

static const struct lt_go_routine *routine(const struct lt_snapshot *s, long id)
{
	for (size_t i = 0; i < s->go->n_routines; i++)
		if (s->go->routines[i].id == id)
			return &s->go->routines[i];
	return NULL;
}

static bool has_func(const struct tg *t, const char *f)
{
	for (int i = 0; i < t->n; i++)
		if (!strcmp(t->func[i], f))
			return true;
	return false;
}

static const struct tg *truth_with(const char *f)
{
	for (size_t i = 0; i < ntg; i++)
		if (has_func(&truth_gs[i], f))
			return &truth_gs[i];
	cr_assert(0, "no goroutine runs %s in the workload's own stacks", f);
	return NULL;
}

/* Every goroutine runtime.Stack showed (but the one that called it, which
 * has moved on since) is in the snapshot, a user goroutine, with the
 * functions Go printed in the same order (Go hides the runtime's own
 * frames and wrappers, the snapshot keeps them) and the same line for
 * every main.* frame. */
static void check_stacks(const struct lt_snapshot *s)
{
	size_t checked = 0;
	for (size_t i = 0; i < ntg; i++) {
		const struct tg *t = &truth_gs[i];
		if (!strcmp(t->status, "running"))
			continue;
		const struct lt_go_routine *r = routine(s, t->id);
		cr_assert_not_null(r, "goroutine %ld [%s] (%s) not in the snapshot", t->id, t->status,
				   t->n ? t->func[0] : "?");
		cr_assert(!r->system, "goroutine %ld taken for a runtime goroutine", t->id);
		size_t k = 0;
		for (int f = 0; f < t->n; f++) {
			while (k < r->n_frames && (!r->frames[k].func || strcmp(r->frames[k].func, t->func[f])))
				k++;
			cr_assert(k < r->n_frames, "goroutine %ld: %s (frame %d of Go's stack) not found in order "
				  "(%zu frames read, end: %s)", t->id, t->func[f], f, r->n_frames,
				  r->end ? r->end : "-");
			if (!strncmp(t->func[f], "main.", 5))
				cr_assert_eq(r->frames[k].line, t->line[f], "goroutine %ld %s: line %d, Go says %d",
					     t->id, t->func[f], r->frames[k].line, t->line[f]);
			k++;
		}
		checked++;
	}
	cr_assert(checked >= 1);
}

static size_t go_verdicts_naming_threads(const struct lt_snapshot *s)
{
	size_t n = 0;
	for (size_t i = 0; i < s->n_verdicts; i++)
		n += s->verdicts[i].n_tids > 0 || s->verdicts[i].owner > 0;
	return n;
}

Test(go_live, abba_deadlock_with_http_server)
{
	start(GOWL, "deadlock", NULL);
	read_truth();
	struct lt_snapshot *s = snap();
	cr_assert_not_null(s->go, "no Go runtime found");
	cr_assert(s->go->version && !strncmp(s->go->version, "go1.", 4), "version %s", s->go->version);
	cr_assert_str_eq(s->go->layout, "DWARF");
	check_stacks(s);
	const struct tg *ab = truth_with("main.lockAB"), *ba = truth_with("main.lockBA");
	cr_assert(s->n_verdicts > 0);
	const struct lt_verdict *v = &s->verdicts[0];
	cr_assert_eq(v->kind, LT_VERDICT_DEADLOCK, "first verdict: %s", v->summary);
	char want[256];
	/* the cycle may be told from either goroutine */
	snprintf(want, sizeof(want), "goroutine %ld (main.lockAB) waits for main.muB, held by goroutine %ld (main.lockBA)",
		 ab->id, ba->id);
	char want2[256];
	snprintf(want2, sizeof(want2), "goroutine %ld (main.lockBA) waits for main.muA, held by goroutine %ld (main.lockAB)",
		 ba->id, ab->id);
	cr_assert(strstr(v->summary, want) || strstr(v->summary, want2), "%s", v->summary);
	cr_assert(strstr(v->summary, "main.muA") && strstr(v->summary, "main.muB"), "%s", v->summary);
	cr_assert(tl_strlist_has(&v->evidence, "inferred"), "the holders are not said to be inferred");
	/* the mutexes are the program's */
	size_t found = 0;
	for (size_t k = 0; k < s->go->n_mutexes; k++) {
		const struct lt_go_mutex *m = &s->go->mutexes[k];
		cr_assert(m->addr == addr_of[0] || m->addr == addr_of[1], "mutex 0x%" PRIx64, m->addr);
		cr_assert_geq(m->holder, 0);
		long want_holder = m->addr == addr_of[0] ? ab->id : ba->id;
		cr_assert_eq(s->go->routines[m->holder].id, want_holder, "%s held by %" PRId64, m->name,
			     s->go->routines[m->holder].id);
		found++;
	}
	cr_assert_eq(found, 2);
	/* the two handlers, queued on muA behind the deadlock */
	size_t handlers = 0;
	for (size_t i = 0; i < ntg; i++)
		if (has_func(&truth_gs[i], "main.handleA")) {
			const struct lt_go_routine *r = routine(s, truth_gs[i].id);
			cr_assert_not_null(r);
			cr_assert_eq(r->wait, LT_GO_WAIT_SEMA);
			cr_assert_eq(r->lock, addr_of[0]);
			cr_assert_str_eq(r->obj_name, "main.muA");
			handlers++;
		}
	cr_assert_eq(handlers, 2);
	snprintf(want, sizeof(want), "2 goroutines (main.handleA, ...) wait for sync.Mutex main.muA, held by "
		 "goroutine %ld (main.lockAB, inferred)", ab->id);
	bool queued = false;
	for (size_t i = 1; i < s->n_verdicts; i++)
		if (s->verdicts[i].kind == LT_VERDICT_LOCK_WAIT && strstr(s->verdicts[i].summary, want)) {
			queued = true;
			/* each waiter's line says what it waits for */
			bool said = false;
			for (size_t k = 0; k < s->verdicts[i].evidence.n; k++) {
				const char *ev = s->verdicts[i].evidence.v[k];
				cr_assert(strncmp(ev, "  it waits", 10), "a line of its own: '%s'", ev);
				said |= strstr(ev, "main.handleA at ") && strstr(ev, "; it waits for sync.Mutex");
			}
			cr_assert(said, "no waiter's line says it waits for sync.Mutex");
		}
	cr_assert(queued, "no verdict says: %s", want);
	/* the main goroutine, as Go prints it: no "created by" */
	for (size_t k = 0; k < s->go->n_routines; k++)
		if (s->go->routines[k].id == 1)
			cr_assert_null(s->go->routines[k].created_by, "goroutine 1 created by %s",
				       s->go->routines[k].created_by);
	/* the holder is inferred from code read in a line: said so */
	bool said = false;
	for (size_t k = 0; k < s->go->n_mutexes; k++)
		said |= s->go->mutexes[k].addr == addr_of[0] && s->go->mutexes[k].holder_how &&
			strstr(s->go->mutexes[k].holder_how, "has code that locks main.muA") &&
			strstr(s->go->mutexes[k].holder_how, "whether that code ran");
	cr_assert(said, "muA's holder_how does not say how far its inference goes");
	/* the runtime's idle Ms are no lock's waiters nor holders */
	cr_assert_eq(go_verdicts_naming_threads(s), 0, "a verdict names a thread (an idle M?)");
	size_t parked = 0, in_mcall = 0;
	for (size_t i = 0; i < s->n_threads; i++) {
		const struct lt_thread *t = &s->threads[i];
		cr_assert_str_eq(t->rt_lang ? t->rt_lang : "(none)", "go", "thread %d is no M", (int)t->tid);
		parked += t->futex.lock_kind && strstr(t->futex.lock_kind, "idle M");
		/* an M on its scheduler stack (g0): the stack ends at the switch
		 * to it, runtime.mcall, cleanly; not in a stale word above */
		for (size_t k = 0; k < t->n_frames; k++)
			if (t->frames[k].func && !strcmp(t->frames[k].func, "runtime.mcall")) {
				cr_assert_eq(k, t->n_frames - 1, "thread %d: a frame after runtime.mcall: %s",
					     (int)t->tid, t->frames[k + 1].func ? t->frames[k + 1].func : "?");
				cr_assert_null(t->ustack_end, "thread %d: %s", (int)t->tid, t->ustack_end);
				in_mcall++;
			}
	}
	cr_assert_geq(parked, 1, "no thread recognised as an idle M on its park note");
	cr_assert_geq(in_mcall, 1, "no M's stack through runtime.mcall");
	lt_snapshot_free(s);
}

Test(go_live, channel_leak)
{
	start(GOWL, "leak", "50");
	read_truth();
	struct lt_snapshot *s = snap();
	cr_assert_not_null(s->go);
	check_stacks(s);
	char want[256];
	snprintf(want, sizeof(want), "probable goroutine leak: 50 goroutines (main.leaker) blocked in chan receive "
		 "on channel main.leakCh (0x%" PRIx64 ")", addr_of[2]);
	bool found = false;
	for (size_t i = 0; i < s->n_verdicts; i++)
		found |= strstr(s->verdicts[i].summary, want) != NULL;
	cr_assert(found, "no verdict says: %s", want);
	cr_assert_eq(go_verdicts_naming_threads(s), 0);
	lt_snapshot_free(s);
}

static int take_go(pid_t pid, void *arg, struct lt_snapshot **out)
{
	(void)arg;
	return lt_snapshot_take(pid, NULL, out);
}

/* The leak's one sender reads a pipe whose writer is a child asleep for 10
 * minutes.  Followed into the child, the diagnosis of both processes keeps
 * the goroutine leak (the view's IDLE, which knows no goroutines, hid it)
 * and names the goroutine in I/O that may yet send. */
Test(go_live, channel_leak_behind_a_pipe_is_kept_when_the_wait_is_followed)
{
	start(GOWL, "pipeleak", "4");
	read_truth();
	pid_t child = 0;
	FILE *f = fopen(out, "r");
	char line[256];
	while (f && fgets(line, sizeof(line), f))
		if (sscanf(line, "child %d", &child) == 1)
			break;
	if (f)
		fclose(f);
	cr_assert_gt(child, 0, "no child in %s", out);
	go_child = child;
	struct lt_snapshot *first = NULL;
	cr_assert_eq(lt_snapshot_take(wl.pid, NULL, &first), 0);
	struct lt_multi_snapshot *m;
	tl_follow(first, take_go, &m);
	bool into_child = false;
	for (size_t i = 0; i < m->n_procs; i++)
		into_child |= m->procs[i]->pid == child;
	cr_assert(into_child, "the pipe's writer %d was not followed", (int)child);
	char want[256];
	snprintf(want, sizeof(want), "probable goroutine leak: 4 goroutines (main.leaker) blocked in chan receive "
		 "on channel main.leakCh (0x%" PRIx64 ")", addr_of[2]);
	const struct lt_verdict *leak = NULL;
	for (size_t i = 0; i < m->view.n_verdicts; i++) {
		fprintf(stderr, "go_live: view verdict %zu: %s\n", i, m->view.verdicts[i].summary);
		cr_expect_neq(m->view.verdicts[i].kind, LT_VERDICT_IDLE, "%s", m->view.verdicts[i].summary);
		if (strstr(m->view.verdicts[i].summary, want))
			leak = &m->view.verdicts[i];
	}
	cr_assert_not_null(leak, "no verdict of both processes says: %s", want);
	cr_expect(tl_strlist_has(&leak->evidence, "which may yet send on it: goroutine") &&
		  tl_strlist_has(&leak->evidence, "(main.pipeSender) [IO wait]"),
		  "the goroutine in the pipe read is not named as a possible sender");
	lt_multi_free(m);
}

/* A mutex holder that is itself blocked says in what (the user trial's
 * "held by goroutine 9 (main.cfgReloader, inferred)" said nothing of its
 * read(2)), and a cycle through two mutexes and a channel is one probable
 * deadlock, its channel's one receiver inferred from code (it was three
 * LOCK WAITs): gowl holders. */
Test(go_live, blocked_holders_say_their_wait_and_a_channel_closes_a_cycle)
{
	start(GOWL, "holders", NULL);
	read_truth();
	pid_t child = 0;
	int rfd = -1;
	FILE *f = fopen(out, "r");
	char line[256];
	while (f && fgets(line, sizeof(line), f)) {
		sscanf(line, "child %d", &child);
		sscanf(line, "readfd %d", &rfd);
	}
	if (f)
		fclose(f);
	cr_assert(child > 0 && rfd >= 0, "no child or fd in %s", out);
	go_child = child;
	struct lt_snapshot *s = snap();
	cr_assert_not_null(s->go);
	const struct tg *ref = truth_with("main.refresher"), *con = truth_with("main.consumer"),
			*rep = truth_with("main.reporter"), *cfg = truth_with("main.cfgReloader");
	const struct lt_verdict *dl = NULL;
	size_t ndl = 0;
	for (size_t i = 0; i < s->n_verdicts; i++)
		if (s->verdicts[i].kind == LT_VERDICT_DEADLOCK && !ndl++)
			dl = &s->verdicts[i];
	cr_assert_eq(ndl, 1, "one deadlock, got %zu", ndl);
	cr_assert(!strncmp(dl->summary, "probable deadlock (holders and a channel's other end inferred): ", 63), "%s",
		  dl->summary);
	char w1[200], w2[200], w3[200], w4[200];
	/* the refresher's wait says where it is and the channel's address */
	snprintf(w1, sizeof(w1), "goroutine %ld (main.refresher)", ref->id);
	const struct lt_go_routine *rg = routine(s, ref->id);
	cr_assert_not_null(rg);
	int rline = 0;
	for (size_t k = 0; k < rg->n_frames; k++)
		if (rg->frames[k].func && !strcmp(rg->frames[k].func, "main.refresher"))
			rline = rg->frames[k].line;
	snprintf(w4, sizeof(w4), "gowl.go:%d is blocked in chan send on channel main.updates (0x%" PRIx64 "), "
		 "which only goroutine %ld (main.consumer) may receive from", rline, rg->obj, con->id);
	snprintf(w2, sizeof(w2), "waits for main.statsMu, held by goroutine %ld (main.reporter)", rep->id);
	snprintf(w3, sizeof(w3), "waits for main.cacheMu, held by goroutine %ld (main.refresher)", ref->id);
	cr_assert(strstr(dl->summary, w1) && strstr(dl->summary, w4) && strstr(dl->summary, w2) &&
		  strstr(dl->summary, w3), "%s", dl->summary);
	cr_assert_eq(dl->explains, 3);
	cr_assert(tl_strlist_has(&dl->evidence, "channel main.updates: inferred from code: only goroutine"), "%s",
		  dl->summary);
	/* none of the three is a LOCK WAIT of its own */
	for (size_t i = 0; i < s->n_verdicts; i++)
		cr_assert(s->verdicts[i].kind == LT_VERDICT_DEADLOCK || (!strstr(s->verdicts[i].summary, "main.cacheMu") &&
			  !strstr(s->verdicts[i].summary, "main.statsMu")), "%s", s->verdicts[i].summary);
	/* cfgMu's holder in read(2) of the pipe only the child can write */
	const struct lt_go_routine *g = routine(s, cfg->id);
	cr_assert(g && g->tid > 0, "goroutine %ld has no thread", cfg->id);
	char want[256];
	snprintf(want, sizeof(want), "wait for sync.Mutex main.cfgMu, held by goroutine %ld (main.cfgReloader, inferred), "
		 "which is in a system call on thread %d: read(fd %d: pipe), for ", cfg->id, (int)g->tid, rfd);
	char wchild[64];
	snprintf(wchild, sizeof(wchild), "write end held by process %d", (int)child);
	const struct lt_verdict *lw = NULL;
	for (size_t i = 0; i < s->n_verdicts; i++)
		if (strstr(s->verdicts[i].summary, "main.cfgMu"))
			lw = &s->verdicts[i];
	cr_assert_not_null(lw, "no verdict names main.cfgMu");
	cr_assert_eq(lw->kind, LT_VERDICT_LOCK_WAIT);
	cr_assert(!strncmp(lw->summary, "3 goroutines (main.cfgUser, ...) ", 33) && strstr(lw->summary, want) &&
		  strstr(lw->summary, wchild), "%s\nwant: %s ... %s", lw->summary, want, wchild);
	lt_snapshot_free(s);
}

/* A writer starved by readers that hold an RWMutex forever, with two
 * later readers queued behind it: one verdict names the RWMutex and the
 * counts read from it; no holder is invented. */
Test(go_live, rwmutex_writer_starved_by_readers)
{
	start(GOWL, "rwstarve", NULL);
	read_truth();
	struct lt_snapshot *s = snap();
	cr_assert_not_null(s->go);
	check_stacks(s);
	const struct tg *w = truth_with("main.rwWriter");
	const struct lt_go_routine *r = routine(s, w->id);
	cr_assert_not_null(r);
	cr_assert_eq(r->wait, LT_GO_WAIT_SEMA);
	cr_assert_eq(r->lock, addr_of[3], "writer waits on 0x%" PRIx64 ", rw is 0x%" PRIx64, r->lock, addr_of[3]);
	cr_assert_str_eq(r->obj_name, "main.rw");
	cr_assert(strstr(r->obj_kind, "sync.RWMutex (write lock"), "%s", r->obj_kind);
	size_t late = 0;
	for (size_t i = 0; i < ntg; i++)
		if (has_func(&truth_gs[i], "main.rwLateReader")) {
			const struct lt_go_routine *x = routine(s, truth_gs[i].id);
			cr_assert_not_null(x);
			cr_assert_eq(x->lock, addr_of[3]);
			cr_assert_str_eq(x->obj_kind, "sync.RWMutex (read lock)");
			late++;
		}
	cr_assert_eq(late, 2);
	bool found = false;
	for (size_t i = 0; i < s->n_verdicts; i++) {
		const struct lt_verdict *v = &s->verdicts[i];
		if (!strstr(v->summary, "3 goroutines") || !strstr(v->summary, "wait for sync.RWMutex main.rw"))
			continue;
		cr_assert_eq(v->kind, LT_VERDICT_LOCK_WAIT);
		cr_assert(strstr(v->summary, "a writer is pending: 2 readers that came before it still hold it, "
				  "2 readers wait behind the writer"), "%s", v->summary);
		cr_assert_null(strstr(v->summary, "held by goroutine"), "%s", v->summary);
		found = true;
	}
	cr_assert(found, "no verdict for the RWMutex");
	lt_snapshot_free(s);
}

/* A goroutine in sync.WaitGroup.Wait() whose counter is left at 1 (one
 * Done() of two): the WaitGroup is named from its state word (not its
 * semaphore, 8 bytes on), its counter read, and the process's IDLE verdict
 * does not say that nothing is stuck: who is to call Done() is not known. */
Test(go_live, waitgroup_never_done_is_not_said_unstuck)
{
	start(GOWL, "wgwait", NULL);
	read_truth();
	struct lt_snapshot *s = snap();
	cr_assert_not_null(s->go);
	const struct tg *w = truth_with("main.awaitJobs");
	const struct lt_go_routine *r = routine(s, w->id);
	cr_assert_not_null(r);
	cr_assert_eq(r->wait, LT_GO_WAIT_SEMA);
	cr_assert_str_eq(r->obj_kind, "sync.WaitGroup");
	cr_assert_eq(r->lock, addr_of[4], "waits on 0x%" PRIx64 ", jobs is 0x%" PRIx64, r->lock, addr_of[4]);
	cr_assert_str_eq(r->obj_name, "main.jobs");
	const struct lt_go_mutex *m = NULL;
	for (size_t k = 0; k < s->go->n_mutexes; k++)
		if (s->go->mutexes[k].addr == addr_of[4])
			m = &s->go->mutexes[k];
	cr_assert_not_null(m);
	cr_assert(m->facts && !strncmp(m->facts, "counter 1, 1 waiter:", 20), "%s", m->facts ? m->facts : "-");
	/* IDLE once the runtime's sysmon has parked (idle_http_server_is_idle:
	 * before, a snapshot finds it running, "nothing suspicious") */
	const struct lt_verdict *v = NULL;
	for (int tries = 0; tries < 20 && !v; tries++) {
		if (tries) {
			lt_snapshot_free(s);
			usleep(200 * 1000);
			s = snap();
		}
		for (size_t i = 0; i < s->n_verdicts; i++) {
			cr_assert(s->verdicts[i].kind == LT_VERDICT_IDLE || s->verdicts[i].kind == LT_VERDICT_OK,
				  "a finding: %s", s->verdicts[i].summary);
			if (s->verdicts[i].kind == LT_VERDICT_IDLE)
				v = &s->verdicts[i];
		}
	}
	cr_assert_not_null(v, "no IDLE verdict in 20 snapshots");
	cr_assert_null(strstr(v->summary, "none for anything stuck"), "%s", v->summary);
	cr_assert(strstr(v->summary, "1 goroutine waits in sync.WaitGroup.Wait() for Done() calls nobody is "
			  "recorded to make"), "%s", v->summary);
	char want[96];
	snprintf(want, sizeof(want), "goroutine %ld (main.awaitJobs) waits in sync.WaitGroup main.jobs", w->id);
	cr_assert(tl_strlist_has(&v->evidence, want), "no evidence line '%s'", want);
	lt_snapshot_free(s);
}

Test(go_live, idle_http_server_is_idle)
{
	start(GOWL, "idle", NULL);
	read_truth();
	/* Right after start-up the runtime's sysmon thread still polls (every
	 * 20 us to 10 ms) until it sees every P idle and parks on its note: a
	 * snapshot then finds it running ("nothing suspicious", never a
	 * finding).  The server is idle once it has settled: within a few
	 * snapshots, each of which must be IDLE or OK. */
	struct lt_snapshot *s = NULL;
	for (int tries = 0; tries < 20; tries++) {
		if (s)
			lt_snapshot_free(s);
		s = snap();
		cr_assert(s->n_verdicts > 0);
		for (size_t i = 0; i < s->n_verdicts; i++)
			cr_assert(s->verdicts[i].kind == LT_VERDICT_IDLE || s->verdicts[i].kind == LT_VERDICT_OK,
				  "a finding on an idle server: %s", s->verdicts[i].summary);
		if (s->verdicts[0].kind == LT_VERDICT_IDLE)
			break;
		usleep(200 * 1000);
	}
	cr_assert_not_null(s->go);
	check_stacks(s);
	cr_assert_eq(s->verdicts[0].kind, LT_VERDICT_IDLE, "first verdict: %s", s->verdicts[0].summary);
	for (size_t i = 0; i < s->n_verdicts; i++)
		cr_assert(s->verdicts[i].kind == LT_VERDICT_IDLE || s->verdicts[i].kind == LT_VERDICT_OK,
			  "a finding on an idle server: %s", s->verdicts[i].summary);
	cr_assert_eq(s->go->n_mutexes, 0);
	/* the goroutine in Accept ("IO wait") names the listening socket the
	 * program printed */
	char addr[64] = "", line[256];
	FILE *f = fopen(out, "r");
	cr_assert_not_null(f, "%s unreadable", out);
	while (fgets(line, sizeof(line), f) && !addr[0])
		if (sscanf(line, "listen %63s", addr) != 1)
			addr[0] = 0;
	fclose(f);
	cr_assert(addr[0], "the workload printed no listen line");
	const struct tg *acc = truth_with("net.(*TCPListener).Accept");
	const struct lt_go_routine *r = routine(s, acc->id);
	cr_assert_not_null(r, "goroutine %ld (Accept) not in the snapshot", acc->id);
	cr_assert_str_eq(r->reason ? r->reason : "-", "IO wait");
	char want[96];
	snprintf(want, sizeof(want), "(tcp listening %s)", addr);
	cr_assert(r->netfd && strstr(r->netfd, want), "goroutine %ld waits on %s, not on %s", acc->id,
		  r->netfd ? r->netfd : "no fd", want);
	lt_snapshot_free(s);
}

Test(go_live, stripped_binary_says_what_is_lost)
{
	start(GOWL_STRIPPED, "deadlock", NULL);
	struct lt_snapshot *s = snap();
	cr_assert_not_null(s->go, "a stripped Go binary is not recognised");
	cr_assert(s->go->stripped);
	cr_assert(s->go->version && !strncmp(s->go->version, "go1.", 4), "version %s", s->go->version);
	cr_assert_eq(s->go->n_routines, 0);
	cr_assert(tl_strlist_has(&s->go->notes, "goroutines, their waits and the names of variables are lost"));
	lt_snapshot_free(s);
}

/* 10,000 goroutines parked in select: all read, with their function.
 * (Time: BENCHMARKS.md.) */
Test(go_live, ten_thousand_goroutines)
{
	start(GOWL, "many", "10000");
	struct timespec a, b;
	clock_gettime(CLOCK_MONOTONIC, &a);
	struct lt_snapshot *s = NULL;
	cr_assert_eq(lt_snapshot_take(wl.pid, NULL, &s), 0);
	clock_gettime(CLOCK_MONOTONIC, &b);
	cr_assert_not_null(s->go);
	cr_assert(!s->go->truncated);
	size_t parked = 0;
	for (size_t i = 0; i < s->go->n_routines; i++) {
		const struct lt_go_routine *r = &s->go->routines[i];
		for (size_t k = 0; k < r->n_frames; k++)
			if (r->frames[k].func && !strcmp(r->frames[k].func, "main.parked")) {
				parked++;
				cr_assert_str_eq(r->reason, "select");
				break;
			}
	}
	cr_assert_eq(parked, 10000);
	fprintf(stderr, "go_live: snapshot of 10000 goroutines: %.0f ms\n",
		(double)(b.tv_sec - a.tv_sec) * 1e3 + (double)(b.tv_nsec - a.tv_nsec) / 1e6);
	lt_snapshot_free(s);
}

/* ---- the flight recorder ---- */

static struct tl_proc rec;
static char trace[TL_PATH_MAX], pftrace[TL_PATH_MAX];

static void rec_cleanup(void)
{
	tl_close_started(&rec);
	tl_unlink_traces(trace, pftrace);
	cleanup();
}

/* A healthy idle Go HTTP server: every M sleeps on a runtime note and
 * nothing happens, which the events-only rule took for a stall after 2 s.
 * With a 1 s window, 4 s of recording must not fire; the report of the
 * trace written at the end has no finding. */
Test(go_live, idle_server_fires_no_stall, .fini = rec_cleanup, .timeout = 120)
{
	start(GOWL, "idle", NULL);
	tl_tmp_paths(trace, pftrace, "goidle");
	char *extra[] = { "--ring", "16M", "--stall", "1", NULL };
	cr_assert_eq(tl_start_recorder(&rec, wl.pid, trace, extra), 0);
	char line[512];
	struct timespec a, b;
	clock_gettime(CLOCK_MONOTONIC, &a);
	do {
		if (tl_readline(&rec, 1, line, sizeof(line), 200) == 1)
			cr_assert_null(strstr(line, "stall detected"), "false alarm: %s", line);
		clock_gettime(CLOCK_MONOTONIC, &b);
	} while (b.tv_sec - a.tv_sec < 4);
	cr_assert_eq(kill(rec.pid, 0), 0, "the recorder stopped by itself");
	kill(rec.pid, SIGINT);
	while (tl_readline(&rec, 1, line, sizeof(line), 20000) == 1)
		cr_assert_null(strstr(line, "stall detected"), "false alarm: %s", line);
	tl_wait(&rec, 20000);
	char *argv[] = { LT_BIN, "report", trace, NULL };
	char outl[256][256], errl[8][256];
	int nout = 0, nerr = 0;
	cr_assert_eq(tl_run_to_end(argv, outl, &nout, errl, &nerr), 0);
	bool none = false;
	for (int i = 0; i < nout; i++) {
		cr_assert_null(strstr(outl[i], "probable holder"), "report: %s", outl[i]);
		none |= strstr(outl[i], "none: no thread was stuck on a lock") != NULL;
	}
	cr_assert(none, "the report of an idle Go server has findings");
}

/* The goroutine deadlock (with its HTTP server) fires the stall rule,
 * which names the goroutines. */
Test(go_live, goroutine_deadlock_fires_the_stall_rule, .fini = rec_cleanup, .timeout = 120)
{
	start(GOWL, "deadlock", NULL);
	read_truth();
	tl_tmp_paths(trace, pftrace, "godl");
	char *extra[] = { "--ring", "16M", "--stall", "1", NULL };
	cr_assert_eq(tl_start_recorder(&rec, wl.pid, trace, extra), 0);
	char lines[64][256];
	int m = 0;
	cr_assert(tl_wait_for(&rec, 1, "locktrace: stall detected", lines, &m, 64, 30000), "no stall fired");
	const struct tg *ab = truth_with("main.lockAB");
	char want[128];
	snprintf(want, sizeof(want), "goroutine %ld (main.lockAB)", ab->id);
	cr_assert(strstr(lines[m - 1], "probable deadlock") && strstr(lines[m - 1], want), "%s", lines[m - 1]);
	cr_assert_eq(tl_wait(&rec, 30000), 0);
	/* the trace's stored snapshot shows the goroutines as a live one */
	char cmd[TL_PATH_MAX + 64];
	snprintf(cmd, sizeof(cmd), "%s snapshot --from %s", LT_BIN, trace);
	FILE *f = popen(cmd, "r");
	cr_assert_not_null(f);
	char line[1024], g[128];
	snprintf(g, sizeof(g), "  goroutine %ld [semacquire", ab->id);
	bool header = false, waiter = false, accept = false;
	char addr[64] = "", lis[96] = "-";
	FILE *o = fopen(out, "r");
	cr_assert_not_null(o, "%s unreadable", out);
	while (fgets(line, sizeof(line), o) && !addr[0])
		if (sscanf(line, "listen %63s", addr) != 1)
			addr[0] = 0;
	fclose(o);
	cr_assert(addr[0], "the workload printed no listen line");
	snprintf(lis, sizeof(lis), "(tcp listening %s)", addr);
	while (fgets(line, sizeof(line), f)) {
		header |= strncmp(line, "Go go1.", 7) == 0 && strstr(line, "(offsets: DWARF)");
		waiter |= strncmp(line, g, strlen(g)) == 0 && strstr(line, "waits for sync.Mutex main.muB");
		accept |= strstr(line, "[IO wait") && strstr(line, lis);
	}
	cr_assert_eq(pclose(f), 0, "%s failed", cmd);
	cr_assert(accept, "snapshot --from shows no goroutine in IO wait on %s", lis);
	cr_assert(header, "snapshot --from shows no Go section");
	cr_assert(waiter, "snapshot --from does not show: %s ... waits for sync.Mutex main.muB", g);
	/* report's first finding is the goroutine deadlock, not the stall of
	 * the Ms parked on their notes that it causes */
	char *argv[] = { LT_BIN, "report", trace, NULL };
	char outl[256][256], errl[8][256];
	int nout = 0, nerr = 0;
	cr_assert_eq(tl_run_to_end(argv, outl, &nout, errl, &nerr), 0);
	const char *first = NULL;
	for (int i = 0; i < nout && !first; i++)
		if (!strncmp(outl[i], " 1. ", 4))
			first = outl[i];
	cr_assert_not_null(first, "report has no finding");
	cr_assert(strstr(first, "probable deadlock") && strstr(first, want), "report's first finding: %s", first);
}

/* convert puts the stored snapshot's goroutines into the Perfetto trace:
 * one track per user goroutine, named by its function, with an instant
 * saying what it waits for, as trace_processor imports it. */
Test(go_live, goroutines_in_perfetto, .fini = rec_cleanup, .timeout = 120)
{
	start(GOWL, "deadlock", NULL);
	const char *why = tp_missing();
	if (why) {
		fprintf(stderr, "go_live: skipped: %s\n", why);
		cr_skip_test("%s", why);
	}
	read_truth();
	tl_tmp_paths(trace, pftrace, "gopf");
	char *extra[] = { "--ring", "16M", "--stall", "1", NULL };
	cr_assert_eq(tl_start_recorder(&rec, wl.pid, trace, extra), 0);
	char lines[64][256];
	int m = 0;
	cr_assert(tl_wait_for(&rec, 1, "locktrace: stall detected", lines, &m, 64, 30000), "no stall fired");
	cr_assert_eq(tl_wait(&rec, 30000), 0);
	char *argv[] = { LT_BIN, "convert", trace, "-o", pftrace, "--force", NULL };
	cr_assert_eq(tl_run_to_end(argv, NULL, NULL, NULL, NULL), 0, "locktrace convert failed");
	struct tp_out o;
	int r = tp_run(pftrace, "select t.name as track, s.name as name, s.dur as dur from slice s "
			       "join track t on s.track_id = t.id where t.name like 'goroutine %' order by t.name;",
		       &o);
	cr_assert_eq(r, 0, "trace_processor on %s: exit %d: %s", pftrace, o.status, o.error);
	cr_assert_str_empty(o.warnings, "Perfetto's importer warned:\n%s", o.warnings);
	cr_assert_eq(o.n, 1);
	const struct tg *ab = truth_with("main.lockAB"), *ba = truth_with("main.lockBA");
	char t1[96], t2[96];
	snprintf(t1, sizeof(t1), "goroutine %ld (main.lockAB)", ab->id);
	snprintf(t2, sizeof(t2), "goroutine %ld (main.lockBA)", ba->id);
	long i1 = tp_find(&o.t[0], "track", t1), i2 = tp_find(&o.t[0], "track", t2);
	cr_assert(i1 >= 0 && i2 >= 0, "no track %s / %s:\n%s", t1, t2, tp_dump(&o.t[0]));
	cr_assert_str_eq(tp_get(&o.t[0], (size_t)i1, "name"), "semacquire: waits for sync.Mutex main.muB");
	cr_assert_str_eq(tp_get(&o.t[0], (size_t)i2, "name"), "semacquire: waits for sync.Mutex main.muA");
	cr_assert_str_eq(tp_get(&o.t[0], (size_t)i1, "dur"), "0", "not an instant");
	/* every user goroutine Go's own dump shows, and no runtime one */
	size_t user = 0;
	for (size_t k = 0; k < ntg; k++)
		user += strcmp(truth_gs[k].status, "running") != 0;
	cr_assert_geq(o.t[0].nrows, user, "%zu goroutine tracks, Go showed %zu parked:\n%s", o.t[0].nrows, user,
		      tp_dump(&o.t[0]));
	tp_free(&o);
}

/* ---- deadlocks through channels only (main blocked in Accept) ---- */

static uint64_t addr_named(const char *name)
{
	FILE *f = fopen(out, "r");
	cr_assert_not_null(f);
	char line[256], n[64];
	unsigned long long a, found = 0;
	while (fgets(line, sizeof(line), f))
		if (sscanf(line, "addr %63s 0x%llx", n, &a) == 2 && !strcmp(n, name))
			found = a;
	fclose(f);
	cr_assert_neq(found, 0, "no addr %s in %s", name, out);
	return found;
}

/* the goroutine of the truth running FUNC, and the line it is at there */
static long truth_of(const char *func, int *line)
{
	for (size_t i = 0; i < ntg; i++)
		for (int k = 0; k < truth_gs[i].n; k++)
			if (!strcmp(truth_gs[i].func[k], func)) {
				*line = truth_gs[i].line[k];
				return truth_gs[i].id;
			}
	cr_assert_fail("no goroutine runs %s", func);
	return -1;
}

static const struct lt_verdict *verdict_of(const struct lt_snapshot *s, enum lt_verdict_kind k)
{
	for (size_t i = 0; i < s->n_verdicts; i++)
		if (s->verdicts[i].kind == k)
			return &s->verdicts[i];
	return NULL;
}

/* chanA: <-c1; c2 <- 1, chanB: <-c2; c1 <- 1; main asleep, a goroutine in
 * Accept: the runtime sees no deadlock, the snapshot does. */
static void chan_cycle(const char *mode, const char *fa, const char *fb, const char *ca, const char *cb,
		       const char *dir, const char *peer_does)
{
	start(GOWL, mode, NULL);
	read_truth();
	int la = 0, lb = 0;
	long a = truth_of(fa, &la), b = truth_of(fb, &lb);
	struct lt_snapshot *s = snap();
	const struct lt_verdict *v = verdict_of(s, LT_VERDICT_DEADLOCK);
	cr_assert_not_null(v, "no deadlock found (verdict 0: %s)", s->n_verdicts ? s->verdicts[0].summary : "none");
	char want[1024];
	snprintf(want, sizeof(want), "probable deadlock (a channel's other end inferred): goroutine %ld (%s) at "
		 "%%s:%d is blocked in chan %s on channel %s (0x%" PRIx64 "), which only goroutine %ld (%s) %s, "
		 "which at %%s:%d is blocked in chan %s on channel %s (0x%" PRIx64 "), which only goroutine %ld "
		 "(%s) %s", a, fa, la, dir, ca, addr_named(ca + 5), b, fb, peer_does, lb, dir, cb,
		 addr_named(cb + 5), a, fa, peer_does);
	char file[512], full[2048];
	snprintf(file, sizeof(file), "%s", v->summary);
	char *at = strstr(file, " at ");
	cr_assert_not_null(at);
	char *colon = strchr(at + 4, ':');
	cr_assert_not_null(colon);
	*colon = 0;
	cr_assert(strstr(at + 4, "gowl.go"), "%s", at + 4);
	snprintf(full, sizeof(full), want, at + 4, at + 4);
	cr_assert_str_eq(v->summary, full);
	cr_assert_eq(v->explains, 2);
	cr_assert_eq(go_verdicts_naming_threads(s), 0);
	lt_snapshot_free(s);
}

Test(go_live, a_deadlock_through_channels_only_behind_a_listener)
{
	chan_cycle("chancycle", "main.chanA", "main.chanB", "main.c1", "main.c2", "receive", "may send on");
}

/* the receives are a "for range" loop's, whose channel is loaded once
 * before the loop and kept on the stack */
Test(go_live, a_deadlock_through_range_loops)
{
	chan_cycle("chanrange", "main.parser", "main.writer", "main.results", "main.acks", "send",
		   "may receive from");
}

/* loopA is blocked sending on c4 in the body of a loop whose head receives
 * from c3, loopB sends on c3: the loop's head (before where loopA is
 * stopped) is its code to come */
Test(go_live, a_deadlock_through_a_loops_head)
{
	chan_cycle("chanloop", "main.loopA", "main.loopB", "main.c4", "main.c3", "send", "may receive from");
}

/* chanWorker waits on feedJobs, whose one sender reads a socket: no
 * deadlock, and the IDLE verdict (or the one of nothing suspicious) says
 * what could end the wait. */
Test(go_live, a_channel_whose_sender_is_in_network_io_is_not_deadlocked)
{
	start(GOWL, "chanfed", NULL);
	read_truth();
	int lw = 0, lf = 0;
	long w = truth_of("main.chanWorker", &lw), fd = truth_of("main.chanFeeder", &lf);
	struct lt_snapshot *s = snap();
	cr_assert_null(verdict_of(s, LT_VERDICT_DEADLOCK));
	/* IDLE, or nothing suspicious when a thread runs at that moment */
	const struct lt_verdict *v = verdict_of(s, LT_VERDICT_IDLE);
	if (!v)
		v = verdict_of(s, LT_VERDICT_OK);
	cr_assert_not_null(v, "neither idle nor nothing suspicious");
	char want[512];
	snprintf(want, sizeof(want), "goroutine %ld (main.chanWorker) is blocked in chan receive on channel "
		 "main.feedJobs (0x%" PRIx64 "), which goroutine %ld (main.chanFeeder, which waits for network I/O "
		 "on fd ", w, addr_named("feedJobs"), fd);
	cr_assert(tl_strlist_has(&v->evidence, want), "no evidence says: %s", want);
	lt_snapshot_free(s);
}

/* A goroutine receiving on a channel signal.Notify registered waits for a
 * signal, which nothing of the program sends: no goroutine is its other end,
 * and it is no finding (before: "probably blocked for ever", as every Go
 * server's main goroutine waiting for SIGTERM was).  N channels registered:
 * 3 (one bucket or group of the map) and 20 (several in either map layout);
 * with 20, one more whose signal.Stop ran, still a goroutine nothing can
 * wake. */
static void signal_waiters(const char *n)
{
	bool many = atoi(n) >= 10;
	start(GOWL, "signals", n);
	read_truth();
	int ls = 0, lt = 0;
	long sw = truth_of("main.sigWaiter", &ls), st = many ? truth_of("main.stoppedWaiter", &lt) : -1;
	uint64_t sig = addr_named("sigCh");
	struct lt_snapshot *s = snap();
	cr_assert_not_null(s->go);
	const struct lt_go_routine *r = routine(s, sw);
	cr_assert_not_null(r, "the signal waiter read");
	cr_expect_eq(r->obj, sig);
	cr_expect(r->notify_sigs && !strcmp(r->notify_sigs, "SIGUSR1 SIGTERM"), "signals: %s",
		  r->notify_sigs ? r->notify_sigs : "(not found)");
	char want[256], gone[256];
	snprintf(want, sizeof(want), "goroutine %ld (main.sigWaiter) at ", sw);
	snprintf(gone, sizeof(gone), "goroutine %ld (main.stoppedWaiter) at ", st);
	const struct lt_verdict *lw = NULL;
	for (size_t i = 0; i < s->n_verdicts; i++) {
		const struct lt_verdict *v = &s->verdicts[i];
		cr_expect(!strstr(v->summary, want), "the signal waiter in a finding: %s", v->summary);
		if (!strncmp(v->summary, gone, strlen(gone)))
			lw = v;
	}
	if (many) {
		const struct lt_go_routine *q = routine(s, st);
		cr_assert_not_null(q, "the stopped channel's waiter read");
		cr_expect_eq(q->obj, addr_named("stoppedCh"));
		cr_expect_null(q->notify_sigs, "a stopped channel is no longer registered");
		cr_assert_not_null(lw, "no verdict for the waiter on the stopped channel");
		cr_expect_eq(lw->kind, LT_VERDICT_LOCK_WAIT);
		cr_expect(strstr(lw->summary, "probably blocked for ever"), "%s", lw->summary);
	} else {
		/* nothing else waits: the signal waiter is said in the idle (or
		 * nothing suspicious, a thread running then) verdict */
		const struct lt_verdict *v = verdict_of(s, LT_VERDICT_IDLE);
		if (!v)
			v = verdict_of(s, LT_VERDICT_OK);
		cr_assert_not_null(v, "neither idle nor nothing suspicious (first: %s)",
				   s->n_verdicts ? s->verdicts[0].summary : "-");
		snprintf(want, sizeof(want), "gowl.go:%d is blocked in chan receive on channel (heap) (0x%" PRIx64
			 "), which signal.Notify registered for SIGUSR1 SIGTERM: a signal sent to the process "
			 "ends the wait", ls, sig);
		cr_expect(tl_strlist_has(&v->evidence, want), "no evidence says: %s", want);
	}
	lt_snapshot_free(s);
}

Test(go_live, a_receive_on_a_signal_notify_channel_waits_for_a_signal)
{
	signal_waiters("3");
}

Test(go_live, a_signal_notify_channel_is_found_among_twenty)
{
	signal_waiters("20");
}

/* netHolder holds muNet in a read of a TCP connection whose peer end only a
 * child (sleep) holds: the holder's network wait is followed to the peer,
 * as a thread's socket read is. */
Test(go_live, a_holder_in_network_io_is_followed_to_the_sockets_peer)
{
	start(GOWL, "netholder", NULL);
	read_truth();
	pid_t child = 0;
	char local[64] = "", peer[64] = "", line[256];
	FILE *f = fopen(out, "r");
	while (f && fgets(line, sizeof(line), f)) {
		sscanf(line, "child %d", &child);
		sscanf(line, "local %63s", local);
		sscanf(line, "peer %63s", peer);
	}
	if (f)
		fclose(f);
	cr_assert_gt(child, 0);
	go_child = child;
	int lh = 0;
	long h = truth_of("main.netHolder", &lh);
	struct lt_snapshot *s = snap();
	const struct lt_verdict *v = verdict_of(s, LT_VERDICT_LOCK_WAIT);
	cr_assert_not_null(v);
	char want[512];
	snprintf(want, sizeof(want), "2 goroutines (main.netUser, ...) wait for sync.Mutex main.muNet, held by "
		 "goroutine %ld (main.netHolder, inferred), which waits for network I/O on fd ", h);
	cr_assert(!strncmp(v->summary, want, strlen(want)), "%s", v->summary);
	int fd = -1;
	cr_assert_eq(sscanf(v->summary + strlen(want), "%d", &fd), 1);
	snprintf(want, sizeof(want), " (tcp %s -> %s ESTABLISHED); tcp %s -> %s (fd %d): peer held by process %d, "
		 "asleep on a timer: %d (sleep): clock_nanosleep [", local, peer, local, peer, fd, (int)child,
		 (int)child);
	cr_assert(strstr(v->summary, want), "no %s in %s", want, v->summary);
	lt_snapshot_free(s);
}
