/* The Go model's part of a stored snapshot (the JSON "go" member,
 * docs/snapshot.md) read back into struct lt_go, so that `locktrace
 * snapshot --from TRACE` shows the goroutines as the live snapshot did.
 * The verdicts are stored with the snapshot's own; nothing is re-inferred. */
#include <stdlib.h>
#include <string.h>

#include "golang.h"
#include "json_read.h"
#include "snapshot_int.h"

#define J(obj, key) rp_json_get(obj, key)

static bool yes(const struct rp_json *j)
{
	return j && j->type == RPJ_TRUE;
}

static size_t count(const struct rp_json *a)
{
	return a && a->type == RPJ_ARR ? a->n : 0;
}

static void routine_from(struct lt_snapshot *s, struct lt_go_routine *r, const struct rp_json *j)
{
	r->id = rp_json_int(J(j, "id"), 0);
	r->status_name = lts_json_own_str(s, J(j, "status"));
	r->reason = rp_json_strdup(J(j, "wait_reason"));
	r->waited_s = rp_json_num(J(j, "waited_s"), -1);
	r->tid = (pid_t)rp_json_int(J(j, "tid"), 0);
	r->system = yes(J(j, "system"));
	r->end = rp_json_strdup(J(j, "end"));
	r->created_by = rp_json_strdup(J(j, "created_by"));
	r->netfd = rp_json_strdup(J(j, "netfd"));
	const struct rp_json *w = J(j, "waits_for");
	if (w && w->type == RPJ_OBJ) {
		r->obj_kind = lts_json_own_str(s, J(w, "kind"));
		r->dir = lts_json_own_str(s, J(w, "dir"));
		r->obj_name = rp_json_strdup(J(w, "name"));
		r->wait = r->dir ? LT_GO_WAIT_CHAN : r->obj_kind ? LT_GO_WAIT_SEMA : LT_GO_WAIT_OTHER;
		r->chan_peers_how = rp_json_strdup(J(w, "other_ends_how"));
		r->n_chan_peers = (long)rp_json_int(J(w, "other_ends"), 0);
		r->notify_sigs = rp_json_strdup(J(w, "signal_notify"));
		if (r->wait == LT_GO_WAIT_SEMA)
			r->lock = r->obj = rp_json_addr0(J(w, "addr"));
		else
			r->obj = rp_json_addr0(J(w, "addr"));
	}
	const struct rp_json *fr = J(j, "frames");
	size_t n = count(fr);
	if (n && (r->frames = calloc(n, sizeof(*r->frames)))) {
		for (size_t k = 0; k < n; k++) {
			struct lt_go_frame *f = &r->frames[k];
			f->func = rp_json_strdup(J(&fr->items[k], "func"));
			f->file = rp_json_strdup(J(&fr->items[k], "file"));
			f->line = (int)rp_json_int(J(&fr->items[k], "line"), 0);
			f->pc = rp_json_addr0(J(&fr->items[k], "pc"));
			f->inlined = yes(J(&fr->items[k], "inlined"));
		}
		r->n_frames = n;
	}
}

void lt_go_from_json(struct lt_snapshot *s, const struct rp_json *j)
{
	if (!j || j->type != RPJ_OBJ)
		return;
	struct lt_go *go = calloc(1, sizeof(*go));
	if (!go)
		return;
	s->go = go;
	go->version = rp_json_strdup(J(j, "version"));
	go->layout = lts_json_own_str(s, J(j, "offsets"));
	go->stripped = yes(J(j, "stripped"));
	go->n_all = (size_t)rp_json_int(J(j, "allglen"), 0);
	go->truncated = yes(J(j, "truncated"));
	const struct rp_json *notes = J(j, "notes");
	for (size_t i = 0; i < count(notes); i++)
		if (rp_json_str(&notes->items[i]))
			lt_strlist_add(&go->notes, "%s", rp_json_str(&notes->items[i]));
	const struct rp_json *gs = J(j, "goroutines");
	size_t n = count(gs);
	if (n && (go->routines = calloc(n, sizeof(*go->routines)))) {
		for (size_t i = 0; i < n; i++)
			routine_from(s, &go->routines[i], &gs->items[i]);
		go->n_routines = n;
	}
	for (size_t i = 0; i < go->n_routines; i++) { /* a channel's one other end, by its id */
		const struct rp_json *w = J(&gs->items[i], "waits_for");
		int64_t pg = w ? rp_json_int(J(w, "other_end_goroutine"), -1) : -1;
		for (size_t k = 0; pg >= 0 && k < go->n_routines; k++)
			if (go->routines[k].id == pg)
				go->routines[i].chan_peer = k + 1;
	}
	const struct rp_json *ms = J(j, "mutexes");
	n = count(ms);
	if (n && (go->mutexes = calloc(n, sizeof(*go->mutexes)))) {
		for (size_t i = 0; i < n; i++) {
			struct lt_go_mutex *m = &go->mutexes[i];
			const struct rp_json *x = &ms->items[i];
			m->addr = rp_json_addr0(J(x, "addr"));
			m->kind = lts_json_own_str(s, J(x, "kind"));
			if (!m->kind)
				m->kind = "sync.Mutex";
			m->name = rp_json_strdup(J(x, "name"));
			m->facts = rp_json_strdup(J(x, "facts"));
			m->state = (int32_t)rp_json_int(J(x, "state"), 0);
			m->state_ok = rp_json_is_num(J(x, "state"));
			m->holder_how = rp_json_strdup(J(x, "holder_how"));
			m->holder = -1;
			int64_t hg = rp_json_int(J(x, "holder_goroutine"), -1);
			for (size_t k = 0; hg >= 0 && k < go->n_routines; k++)
				if (go->routines[k].id == hg)
					m->holder = (long)k;
		}
		go->n_mutexes = n;
	}
}
