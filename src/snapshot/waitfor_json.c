/* The wait-for edges in the snapshot JSON (docs/snapshot.md, "wait_for")
 * and read back from a stored snapshot, so that `snapshot --from` and
 * `report` say what the live snapshot said. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "jsonw.h"
#include "snapshot.h"
#include "waitfor.h"
#include "json_read.h"
#include "waitfor_int.h"

void lts_wf_json(struct jw *w, const struct lt_thread *t)
{
	if (!jw_key_or_null(w, "wait_for", t->wf != NULL))
		return;
	jw_object(w);
	jw_kint(w, "pid", (int)t->wf->pid);
	jw_karray(w, "edges");
	for (size_t i = 0; i < t->wf->n_edges; i++) {
		const struct lt_wf_edge *e = &t->wf->edges[i];
		jw_object(w);
		jw_kstr(w, "kind", lt_wf_kind_name(e->kind));
		jw_kint(w, "fd", e->fd);
		jw_kstr(w, "what", e->what);
		jw_karray(w, "pids");
		for (size_t k = 0; k < e->n_pids; k++)
			jw_int(w, (int)e->pids[k]);
		jw_end(w);
		jw_kbool(w, "more_pids", e->more_pids);
		jw_kint_or_null(w, "holder_tid", (int)e->holder_tid, e->holder_tid != 0);
		if (e->wait_s > 0)
			jw_kdouble(w, "wait_s", e->wait_s, 6); /* as blocked_s: a verdict re-made from the JSON rounds it alike */
		jw_kstr(w, "parties_state", lt_wf_pstate_name(e->pstate));
		jw_kstr(w, "parties_doing", e->doing);
		jw_kstr(w, "evidence", e->evidence);
		if (e->timeout_what[0]) { /* an application's own timeout */
			jw_kobject(w, "timeout");
			jw_kstr(w, "setting", e->timeout_what);
			if (e->timeout_s > 0)
				jw_kdouble(w, "s", e->timeout_s, 3);
			else
				jw_knull(w, "s"); /* not read */
			if (e->timeout_left_s >= 0)
				jw_kdouble(w, "left_s", e->timeout_left_s, 3);
			else
				jw_knull(w, "left_s");
			jw_end(w);
		}
		jw_end(w);
	}
	jw_end(w);
	if (t->wf->tracer) {
		jw_kobject(w, "tracer");
		jw_kint(w, "pid", (int)t->wf->tracer);
		jw_kstr(w, "state", lt_wf_pstate_name(t->wf->tracer_st));
		jw_kstr(w, "doing", t->wf->tracer_doing);
		jw_end(w);
	}
	jw_end(w);
}

/* A parties' state from its name in the JSON, LT_WFP_UNKNOWN for none. */
static enum lt_wf_pstate pstate_of(const char *ps)
{
	for (int v = LT_WFP_UNKNOWN; ps && v <= LT_WFP_GONE; v++)
		if (!strcmp(lt_wf_pstate_name((enum lt_wf_pstate)v), ps))
			return (enum lt_wf_pstate)v;
	return LT_WFP_UNKNOWN;
}

void lts_wf_from_json(struct lt_thread *t, const struct rp_json *j)
{
	if (!j || j->type != RPJ_OBJ)
		return;
	const struct rp_json *edges = rp_json_get(j, "edges");
	t->wf = calloc(1, sizeof(*t->wf));
	if (!t->wf)
		return;
	t->wf->pid = (pid_t)rp_json_int(rp_json_get(j, "pid"), 0);
	const struct rp_json *tr = rp_json_get(j, "tracer");
	if (tr && tr->type == RPJ_OBJ) {
		t->wf->tracer = (pid_t)rp_json_int(rp_json_get(tr, "pid"), 0);
		t->wf->tracer_st = pstate_of(rp_json_str(rp_json_get(tr, "state")));
		t->wf->tracer_doing = rp_json_strdup(rp_json_get(tr, "doing"));
	}
	for (size_t i = 0; edges && edges->type == RPJ_ARR && i < edges->n; i++) {
		const struct rp_json *x = &edges->items[i];
		const char *k = rp_json_str(rp_json_get(x, "kind"));
		enum lt_wf_kind kind = LT_WF_UNKNOWN;
		for (int v = LT_WF_NONE; k && v <= LT_WF_UNKNOWN; v++)
			if (!strcmp(lt_wf_kind_name((enum lt_wf_kind)v), k))
				kind = (enum lt_wf_kind)v;
		struct lt_wf_edge *e = lt_waitfor_add(t, t->wf->pid, kind);
		if (!e)
			return;
		e->fd = (int)rp_json_int(rp_json_get(x, "fd"), -1);
		e->what = rp_json_strdup(rp_json_get(x, "what"));
		const struct rp_json *p = rp_json_get(x, "pids");
		for (size_t q = 0; p && p->type == RPJ_ARR && q < p->n && q < LT_WF_MAX_PIDS; q++)
			e->pids[e->n_pids++] = (pid_t)rp_json_int(&p->items[q], 0);
		const struct rp_json *mp = rp_json_get(x, "more_pids");
		e->more_pids = mp && mp->type == RPJ_TRUE;
		e->holder_tid = (pid_t)rp_json_int(rp_json_get(x, "holder_tid"), 0);
		e->wait_s = rp_json_num(rp_json_get(x, "wait_s"), 0);
		e->pstate = pstate_of(rp_json_str(rp_json_get(x, "parties_state")));
		e->doing = rp_json_strdup(rp_json_get(x, "parties_doing"));
		e->evidence = rp_json_strdup(rp_json_get(x, "evidence"));
		const struct rp_json *to = rp_json_get(x, "timeout");
		const char *set = to ? rp_json_str(rp_json_get(to, "setting")) : NULL;
		if (set && *set) {
			snprintf(e->timeout_what, sizeof(e->timeout_what), "%s", set);
			e->timeout_s = rp_json_num(rp_json_get(to, "s"), -1);
			e->timeout_left_s = rp_json_num(rp_json_get(to, "left_s"), -1);
		}
	}
}
