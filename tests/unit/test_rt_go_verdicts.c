/* The Go verdicts (rt_go_verdicts.c) on synthetic goroutine tables: what a
 * mutex's blocked holder is blocked in, and a cycle closed by a channel
 * whose one other end the model inferred.  No root, no Go program. */
#include <criterion/criterion.h>
#include <stdlib.h>
#include <string.h>

#include "golang.h"
#include "json_read.h"
#include "jsonw.h"
#include "lt_test.h"
#include "snapshot.h"
#include "snapshot_int.h"
#include "waitfor.h"

static struct lt_go_routine *gr(struct lt_go *go, size_t i, long id, const char *func)
{
	struct lt_go_routine *r = &go->routines[i];
	r->id = id;
	r->status_name = "waiting";
	r->waited_s = -1;
	r->frames = calloc(1, sizeof(*r->frames));
	r->frames[0].func = strdup(func);
	r->frames[0].file = strdup("/src/app/main.go");
	r->frames[0].line = 10 + (int)i;
	r->n_frames = 1;
	return r;
}

static void on_mutex(struct lt_go_routine *r, uint64_t m)
{
	r->wait = LT_GO_WAIT_SEMA;
	r->reason = strdup("semacquire");
	r->obj = m + 4;
	r->lock = m;
	r->obj_kind = "sync.Mutex";
}

static void mutex(struct lt_go *go, size_t k, uint64_t addr, const char *name, long holder)
{
	struct lt_go_mutex *m = &go->mutexes[k];
	m->kind = "sync.Mutex";
	m->addr = addr;
	m->name = strdup(name);
	m->holder = holder;
	m->holder_how = strdup("inferred: ...");
}

/* refresher (0) holds cacheMu and sends on updates, whose one receiver
 * consumer (1) waits for statsMu, held by reporter (2), which waits for
 * cacheMu; cfgReloader (3) holds cfgMu in read(2) on thread 500, a pipe
 * process 900 holds the write end of; cfgUser (4) waits for cfgMu. */
static struct lt_snapshot *table(bool one_receiver)
{
	struct lt_snapshot *s = calloc(1, sizeof(*s));
	s->pid = 400;
	s->go = calloc(1, sizeof(*s->go));
	struct lt_go *go = s->go;
	go->routines = calloc(5, sizeof(*go->routines));
	go->n_routines = 5;
	go->mutexes = calloc(3, sizeof(*go->mutexes));
	go->n_mutexes = 3;
	struct lt_go_routine *ref = gr(go, 0, 7, "main.refresher");
	ref->wait = LT_GO_WAIT_CHAN;
	ref->reason = strdup("chan send");
	ref->obj = 0xc000010000;
	ref->obj_name = strdup("main.updates");
	ref->obj_kind = "channel";
	ref->dir = "send";
	ref->n_chan_peers = one_receiver ? 1 : 2;
	ref->chan_peer = one_receiver ? 2 : 0;
	ref->chan_peers_how = strdup(one_receiver ? "inferred from code: only goroutine 8 receives from main.updates"
						  : "inferred from code: goroutine 8, goroutine 6 receive from "
						    "main.updates");
	on_mutex(gr(go, 1, 8, "main.consumer"), 0x100);
	on_mutex(gr(go, 2, 6, "main.reporter"), 0x200);
	struct lt_go_routine *cfg = gr(go, 3, 9, "main.cfgReloader");
	cfg->status_name = "syscall";
	cfg->tid = 500;
	on_mutex(gr(go, 4, 10, "main.cfgUser"), 0x300);
	mutex(go, 0, 0x100, "main.statsMu", 2);
	mutex(go, 1, 0x200, "main.cacheMu", 0);
	mutex(go, 2, 0x300, "main.cfgMu", 3);

	s->threads = calloc(1, sizeof(*s->threads));
	s->n_threads = 1;
	struct lt_thread *t = &s->threads[0];
	t->tid = 500;
	snprintf(t->comm, sizeof(t->comm), "app");
	t->state = 'S';
	t->idle_s = 2.5;
	t->idle_src = LT_IDLE_SCHED_EXEC_START;
	t->sc.state = LT_SC_IN_SYSCALL;
	t->sc.nr = 0;
	t->sc_name = "read";
	t->wait = LT_WAIT_IO;
	t->fdw.epfd = -1;
	t->fdw.io.fd = 3;
	t->fdw.io.kind = LT_FD_PIPE;
	t->wf = calloc(1, sizeof(*t->wf));
	t->wf->pid = 400;
	t->wf->edges = calloc(1, sizeof(*t->wf->edges));
	t->wf->n_edges = 1;
	struct lt_wf_edge *e = &t->wf->edges[0];
	e->kind = LT_WF_PIPE_READ;
	e->fd = 3;
	e->what = strdup("pipe pipe:[77] (fd 3)");
	e->pids[0] = 900;
	e->n_pids = 1;
	e->pstate = LT_WFP_TIMED;
	e->doing = strdup("900 (sleep): clock_nanosleep");
	return s;
}

static const struct lt_verdict *naming(const struct lt_snapshot *s, const char *what)
{
	for (size_t i = 0; i < s->n_verdicts; i++)
		if (strstr(s->verdicts[i].summary, what))
			return &s->verdicts[i];
	return NULL;
}

Test(rt_go_verdicts, a_holder_in_a_syscall_says_its_threads_wait)
{
	struct lt_snapshot *s = table(true);
	lt_go_verdicts(s);
	const struct lt_verdict *v = naming(s, "main.cfgMu");
	cr_assert_not_null(v);
	cr_assert_eq(v->kind, LT_VERDICT_LOCK_WAIT);
	cr_assert_str_eq(v->summary, "1 goroutine (main.cfgUser) waits for sync.Mutex main.cfgMu, held by goroutine 9 "
				     "(main.cfgReloader, inferred), which is in a system call on thread 500: read(fd 3: "
				     "pipe), for 2.5 s; pipe pipe:[77] (fd 3): write end held by process 900, asleep on "
				     "a timer: 900 (sleep): clock_nanosleep []");
	lt_snapshot_free(s);
}

Test(rt_go_verdicts, a_channel_with_one_receiver_closes_the_cycle)
{
	struct lt_snapshot *s = table(true);
	lt_go_verdicts(s);
	cr_assert_eq(s->verdicts[0].kind, LT_VERDICT_DEADLOCK);
	const char *sum = s->verdicts[0].summary;
	cr_assert_str_eq(sum, "probable deadlock (holders and a channel's other end inferred): goroutine 7 "
			      "(main.refresher) at /src/app/main.go:10 is blocked in chan send on channel main.updates "
			      "(0xc000010000), which only goroutine 8 "
			      "(main.consumer) may receive from, which waits for main.statsMu, held by goroutine 6 "
			      "(main.reporter), which waits for main.cacheMu, held by goroutine 7 (main.refresher)");
	cr_assert_eq(s->verdicts[0].explains, 3);
	cr_assert(tl_strlist_has(&s->verdicts[0].evidence, "channel main.updates: inferred from code: only goroutine 8"));
	cr_assert_null(naming(s, "for sync.Mutex main.cacheMu"));
	lt_snapshot_free(s);
}

/* Two goroutines may receive: no cycle (one of them may yet do it), but
 * each holder's wait is said, down the chain. */
Test(rt_go_verdicts, several_receivers_make_no_cycle_but_the_chain_is_said)
{
	struct lt_snapshot *s = table(false);
	lt_go_verdicts(s);
	for (size_t i = 0; i < s->n_verdicts; i++)
		cr_assert_neq(s->verdicts[i].kind, LT_VERDICT_DEADLOCK, "%s", s->verdicts[i].summary);
	const struct lt_verdict *v = naming(s, "for sync.Mutex main.statsMu");
	cr_assert_not_null(v);
	cr_assert(strstr(v->summary, "1 goroutine (main.consumer) waits for sync.Mutex main.statsMu, held by goroutine "
				     "6 (main.reporter, inferred), which waits for sync.Mutex main.cacheMu, held by "
				     "goroutine 7 (main.refresher, inferred), which is blocked in chan send on channel "
				     "main.updates (0xc000010000)"), "%s", v->summary);
	lt_snapshot_free(s);
}

/* The inferred other end is in the JSON, and read back from it (a stored
 * snapshot keeps it for `snapshot --from` and `report`). */
Test(rt_go_verdicts, a_channels_other_end_survives_the_json)
{
	struct lt_snapshot *s = table(true);
	char *buf = NULL;
	size_t len = 0;
	FILE *f = open_memstream(&buf, &len);
	struct jw w;
	jw_init(&w, f, JW_COMPACT);
	jw_object(&w);
	lt_go_print_json(&w, s);
	jw_end(&w);
	cr_assert_eq(jw_finish(&w), 0);
	fclose(f);
	cr_assert(strstr(buf, "\"other_ends\":1") && strstr(buf, "\"other_end_goroutine\":8"), "%s", buf);
	char err[128];
	struct rp_json *j = rp_json_parse(buf, len, err, sizeof(err));
	cr_assert_not_null(j, "%s", err);
	struct lt_snapshot *s2 = calloc(1, sizeof(*s2));
	lt_go_from_json(s2, rp_json_get(j, "go"));
	cr_assert_not_null(s2->go);
	cr_assert_eq(s2->go->routines[0].chan_peer, 2);
	cr_assert_eq(s2->go->routines[0].n_chan_peers, 1);
	cr_assert_str_eq(s2->go->routines[0].chan_peers_how, s->go->routines[0].chan_peers_how);
	cr_assert_eq(s2->go->routines[1].chan_peer, 0);
	rp_json_free(j);
	free(buf);
	lt_snapshot_free(s2);
	lt_snapshot_free(s);
}

/* ---- deadlocks through channels only, several possible other ends ---- */

static void on_chan(struct lt_go_routine *r, const char *dir, uint64_t ch, const char *name, size_t n,
		    const size_t *peers)
{
	r->wait = LT_GO_WAIT_CHAN;
	r->reason = strdup(strcmp(dir, "send") ? "chan receive" : "chan send");
	r->obj = ch;
	r->obj_name = name ? strdup(name) : NULL;
	r->obj_kind = "channel";
	r->dir = dir;
	r->n_chan_peers = (long)n;
	r->chan_peer = n == 1 ? peers[0] + 1 : 0;
	if (n) {
		r->chan_peer_list = calloc(n, sizeof(size_t));
		memcpy(r->chan_peer_list, peers, n * sizeof(size_t));
	}
	r->chan_peers_how = strdup("inferred from code: ...");
}

/* parser (0) receives on c1, which collector (2) or writer (1) may send
 * on; writer receives on c2, which only parser may send on; collector
 * sends on a heap channel only parser holds.  With CB_IO the collector is
 * instead in network I/O (it may yet send on c1: no deadlock). */
static struct lt_snapshot *chans(bool cb_io)
{
	struct lt_snapshot *s = calloc(1, sizeof(*s));
	s->pid = 400;
	s->go = calloc(1, sizeof(*s->go));
	struct lt_go *go = s->go;
	go->routines = calloc(4, sizeof(*go->routines));
	go->n_routines = 4;
	const size_t wc[] = { 1, 2 }, p[] = { 0 };
	on_chan(gr(go, 0, 20, "main.parser"), "receive", 0xc000100000, "main.c1", 2, wc);
	on_chan(gr(go, 1, 21, "main.writer"), "receive", 0xc000100060, "main.c2", 1, p);
	struct lt_go_routine *cb = gr(go, 2, 22, "main.collector");
	if (cb_io) {
		cb->wait = LT_GO_WAIT_OTHER;
		cb->reason = strdup("IO wait");
		cb->netfd = strdup("fd 7 (tcp 127.0.0.1:5000 -> 127.0.0.1:80 ESTABLISHED)");
	} else {
		on_chan(cb, "send", 0xc0001000c0, NULL, 1, p);
	}
	struct lt_go_routine *srv = gr(go, 3, 1, "main.main");
	srv->reason = strdup("IO wait");
	srv->wait = LT_GO_WAIT_OTHER;
	srv->netfd = strdup("fd 3 (tcp listening 127.0.0.1:8080)");
	return s;
}

Test(rt_go_verdicts, a_deadlock_through_channels_only_with_several_other_ends)
{
	struct lt_snapshot *s = chans(false);
	lt_go_verdicts(s);
	cr_assert_eq(s->n_verdicts, 1);
	cr_assert_eq(s->verdicts[0].kind, LT_VERDICT_DEADLOCK);
	cr_assert_str_eq(s->verdicts[0].summary,
			 "probable deadlock (a channel's other end inferred): goroutine 20 (main.parser) at "
			 "/src/app/main.go:10 is blocked in chan receive on channel main.c1 (0xc000100000), which "
			 "goroutine 21 (main.writer) or goroutine 22 (main.collector) may send on; goroutine 21 "
			 "(main.writer) at /src/app/main.go:11 is blocked in chan receive on channel main.c2 "
			 "(0xc000100060), which only goroutine 20 (main.parser) may send on; goroutine 22 "
			 "(main.collector) at /src/app/main.go:12 is blocked in chan send on channel (heap) "
			 "(0xc0001000c0), which only goroutine 20 (main.parser) may receive from");
	cr_assert_eq(s->verdicts[0].explains, 3);
	lt_snapshot_free(s);
}

/* One that could end a wait is in network I/O: nothing is deadlocked, and
 * with nothing else found the goroutines are left to the IDLE verdict,
 * whose evidence says what could end each wait. */
Test(rt_go_verdicts, a_possible_sender_in_network_io_is_no_deadlock)
{
	struct lt_snapshot *s = chans(true);
	lt_go_verdicts(s);
	for (size_t i = 0; i < s->n_verdicts; i++)
		cr_assert_neq(s->verdicts[i].kind, LT_VERDICT_DEADLOCK, "%s", s->verdicts[i].summary);
	cr_assert_eq(s->n_verdicts, 0);
	struct lt_verdict *v = lts_verdict_new(s, LT_VERDICT_IDLE);
	v->summary = strdup("idle: ...");
	lt_go_idle_notes(s);
	cr_assert(tl_strlist_has(&v->evidence, "goroutine 20 (main.parser) is blocked in chan receive on channel "
					       "main.c1 (0xc000100000), which goroutine 21 (main.writer, which is "
					       "blocked in chan receive on channel main.c2 (0xc000100060)), goroutine "
					       "22 (main.collector, which waits for network I/O on fd 7 (tcp "
					       "127.0.0.1:5000 -> 127.0.0.1:80 ESTABLISHED)) may send on"));
	lt_snapshot_free(s);
}

/* A goroutine in Accept: its listener's edge says it waits for a
 * connection, not that its peer was not followed. */
Test(rt_go_verdicts, a_goroutine_in_accept_waits_for_a_connection)
{
	struct lt_snapshot *s = table(true);
	struct lt_go_routine *cfg = &s->go->routines[3];
	cfg->status_name = "waiting";
	cfg->reason = strdup("IO wait");
	cfg->tid = 0;
	cfg->netfd = strdup("fd 3 (tcp listening 127.0.0.1:8080)");
	struct lt_wf_edge *e = &s->threads[0].wf->edges[0];
	free(e->what);
	e->kind = LT_WF_LISTEN;
	e->fd = 3;
	e->n_pids = 0;
	e->what = strdup("listening tcp socket 127.0.0.1:8080 (fd 3)");
	lt_go_verdicts(s);
	const struct lt_verdict *v = naming(s, "main.cfgMu");
	cr_assert_not_null(v);
	cr_assert(strstr(v->summary, "which waits for network I/O on fd 3 (tcp listening 127.0.0.1:8080); listening "
				     "tcp socket 127.0.0.1:8080 (fd 3): a connection (listening)"), "%s", v->summary);
	lt_snapshot_free(s);
}

/* A thread running at the time makes it "nothing suspicious", not IDLE:
 * the note is there too. */
Test(rt_go_verdicts, what_could_end_a_channel_wait_is_said_when_nothing_is_suspicious)
{
	struct lt_snapshot *s = chans(true);
	lt_go_verdicts(s);
	cr_assert_eq(s->n_verdicts, 0);
	struct lt_verdict *v = lts_verdict_new(s, LT_VERDICT_OK);
	v->summary = strdup("nothing suspicious: ...");
	lt_go_idle_notes(s);
	cr_assert(tl_strlist_has(&v->evidence, "goroutine 20 (main.parser) is blocked in chan receive on channel "
					       "main.c1 (0xc000100000), which goroutine 21"));
	cr_assert_str_eq(v->summary, "nothing suspicious: ...");
	lt_snapshot_free(s);
}

/* Waits whose other ends were not looked for (too many): IDLE no longer
 * says nothing is stuck. */
Test(rt_go_verdicts, a_channel_wait_not_inferred_is_unknown_not_idle)
{
	struct lt_snapshot *s = chans(true);
	struct lt_go_routine *w = &s->go->routines[1];
	free(w->chan_peer_list);
	w->chan_peer_list = NULL;
	w->chan_peer = 0;
	w->n_chan_peers = -1;
	free(w->chan_peers_how);
	w->chan_peers_how = strdup("not inferred: too many channels waited on to look through every goroutine "
				   "for each");
	lt_go_verdicts(s);
	cr_assert_eq(s->n_verdicts, 0);
	struct lt_verdict *v = lts_verdict_new(s, LT_VERDICT_IDLE);
	v->summary = strdup("idle: all 4 threads wait for I/O, timers or events, none for anything stuck (...)");
	lt_go_idle_notes(s);
	cr_assert_str_eq(v->summary, "idle: all 4 threads wait for I/O, timers or events, none known to be stuck "
				     "(...); 1 goroutine blocked on channels whose other ends were not inferred");
	cr_assert(tl_strlist_has(&v->evidence, "1 goroutine (main.writer) is blocked in a chan send or receive "
					       "whose other ends were not looked for (not inferred: too many"));
	lt_snapshot_free(s);
}

/* A goroutine blocked on a channel nothing seen could use: not idle. */
Test(rt_go_verdicts, a_channel_nothing_refers_to_is_said)
{
	struct lt_snapshot *s = chans(true);
	struct lt_go_routine *w = &s->go->routines[1];
	free(w->chan_peer_list);
	w->chan_peer_list = NULL;
	w->chan_peer = 0;
	w->n_chan_peers = 0;
	lt_go_verdicts(s);
	cr_assert_eq(s->n_verdicts, 1);
	cr_assert_eq(s->verdicts[0].kind, LT_VERDICT_LOCK_WAIT);
	cr_assert_str_eq(s->verdicts[0].summary,
			 "goroutine 21 (main.writer) at /src/app/main.go:11 is blocked in chan receive on channel "
			 "main.c2 (0xc000100060), and no other goroutine is seen that could send on it: probably "
			 "blocked for ever (unknown: a goroutine not yet started, or code not on any stack, may)");
	lt_snapshot_free(s);
}

/* A holder in network I/O: its socket's peer, from the wait-for edge the
 * netpoller's thread has on that fd. */
Test(rt_go_verdicts, a_holder_in_network_io_names_the_sockets_peer)
{
	struct lt_snapshot *s = table(true);
	struct lt_go_routine *cfg = &s->go->routines[3];
	cfg->status_name = "waiting";
	cfg->reason = strdup("IO wait");
	cfg->tid = 0;
	cfg->netfd = strdup("fd 7 (tcp 127.0.0.1:5000 -> 127.0.0.1:80 ESTABLISHED)");
	struct lt_wf_edge *e = &s->threads[0].wf->edges[0];
	free(e->what);
	e->kind = LT_WF_SOCKET;
	e->fd = 7;
	e->what = strdup("tcp 127.0.0.1:5000 -> 127.0.0.1:80 (fd 7)");
	e->pids[0] = 901;
	e->doing = strdup("901 (server): futex");
	e->pstate = LT_WFP_BLOCKED;
	lt_go_verdicts(s);
	const struct lt_verdict *v = naming(s, "main.cfgMu");
	cr_assert_not_null(v);
	cr_assert(strstr(v->summary, "held by goroutine 9 (main.cfgReloader, inferred), which waits for network I/O on "
				     "fd 7 (tcp 127.0.0.1:5000 -> 127.0.0.1:80 ESTABLISHED); tcp 127.0.0.1:5000 -> "
				     "127.0.0.1:80 (fd 7): peer held by process 901, "), "%s", v->summary);
	cr_assert(strstr(v->summary, "(followed from thread 500's poll of it)"), "%s", v->summary);
	lt_snapshot_free(s);
}
