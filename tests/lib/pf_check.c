/* The Perfetto trace checker used by the tests (see pf_check.h); no tests
 * here.  Its schema table is written from Perfetto's protos
 * (protos/perfetto/trace), independently of src/output/perfetto.c. */
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "pbread.h"
#include "lt_test.h"
#include "pf_check.h"

/* ---- the schema: the messages and fields locktrace may emit ----------- */

struct fdef {
	uint32_t num;
	uint8_t wire;
	const struct mdef *sub;
};
struct mdef {
	const char *name;
	size_t n;
	const struct fdef *f;
};

#define V PB_WT_VARINT
#define L PB_WT_LEN
#define F64 PB_WT_I64
#define MSG(id, ...)                                                                    \
	static const struct fdef id##_f[] = { __VA_ARGS__ };                            \
	static const struct mdef id = { #id, sizeof(id##_f) / sizeof(id##_f[0]), id##_f }

MSG(Clock, { 1, V, NULL }, { 2, V, NULL });                       /* clock_id, timestamp */
MSG(ClockSnapshot, { 1, L, &Clock }, { 2, V, NULL });             /* clocks, primary_trace_clock */
MSG(Utsname, { 1, L, NULL }, { 2, L, NULL }, { 3, L, NULL }, { 4, L, NULL });
MSG(SystemInfo, { 1, L, &Utsname }, { 8, V, NULL });              /* utsname, num_cpus */
MSG(ProcessDescriptor, { 1, V, NULL }, { 2, L, NULL }, { 6, L, NULL }); /* pid, cmdline, process_name */
MSG(ThreadDescriptor, { 1, V, NULL }, { 2, V, NULL }, { 5, L, NULL });  /* pid, tid, thread_name */
MSG(CounterDescriptor, { 1, V, NULL }, { 3, V, NULL });           /* type, unit */
MSG(TrackDescriptor, { 1, V, NULL }, { 2, L, NULL }, { 3, L, &ProcessDescriptor },
    { 4, L, &ThreadDescriptor }, { 5, V, NULL }, { 8, L, &CounterDescriptor });
/* name_iid, bool, uint, int, string, pointer, name, string_value_iid */
MSG(DebugAnnotation, { 1, V, NULL }, { 2, V, NULL }, { 3, V, NULL }, { 4, V, NULL }, { 6, L, NULL },
    { 7, V, NULL }, { 10, L, NULL }, { 17, V, NULL });
/* debug_annotations, type, name_iid, track_uuid, extra_counter_values, name,
 * counter_value, extra_counter_track_uuids, flow_ids, terminating_flow_ids */
MSG(TrackEvent, { 4, L, &DebugAnnotation }, { 9, V, NULL }, { 10, V, NULL }, { 11, V, NULL },
    { 12, V, NULL }, { 23, L, NULL }, { 30, V, NULL }, { 31, V, NULL }, { 47, F64, NULL },
    { 48, F64, NULL });
MSG(InternedEntry, { 1, V, NULL }, { 2, L, NULL });               /* iid, name / str */
/* event_names, debug_annotation_names, debug_annotation_string_values */
MSG(InternedData, { 2, L, &InternedEntry }, { 3, L, &InternedEntry }, { 29, L, &InternedEntry });
MSG(SchedSwitchFtraceEvent, { 1, L, NULL }, { 2, V, NULL }, { 3, V, NULL }, { 4, V, NULL },
    { 5, L, NULL }, { 6, V, NULL }, { 7, V, NULL });
MSG(SchedWakingFtraceEvent, { 1, L, NULL }, { 2, V, NULL }, { 3, V, NULL }, { 4, V, NULL },
    { 5, V, NULL });
MSG(TaskNewtaskFtraceEvent, { 1, V, NULL }, { 2, L, NULL }, { 3, V, NULL });
MSG(TaskRenameFtraceEvent, { 1, V, NULL }, { 2, L, NULL }, { 3, L, NULL });
MSG(SchedProcessExitFtraceEvent, { 1, L, NULL }, { 2, V, NULL }, { 3, V, NULL });
/* timestamp, pid, common_flags, sched_switch, sched_waking, task_newtask,
 * task_rename, sched_process_exit */
MSG(FtraceEvent, { 1, V, NULL }, { 2, V, NULL }, { 5, V, NULL }, { 4, L, &SchedSwitchFtraceEvent },
    { 20, L, &SchedWakingFtraceEvent }, { 235, L, &TaskNewtaskFtraceEvent },
    { 236, L, &TaskRenameFtraceEvent }, { 238, L, &SchedProcessExitFtraceEvent });
MSG(FtraceEventBundle, { 1, V, NULL }, { 2, L, &FtraceEvent }, { 3, V, NULL }); /* cpu, event, lost_events */
MSG(ProcessTreeProcess, { 1, V, NULL }, { 2, V, NULL }, { 3, L, NULL }); /* pid, ppid, cmdline */
MSG(ProcessTree, { 1, L, &ProcessTreeProcess });                  /* processes */
MSG(GenericKernelTaskStateEvent, { 2, L, NULL }, { 3, V, NULL }, { 4, V, NULL }); /* comm, tid, state */
/* ftrace_events, process_tree, clock_snapshot, timestamp,
 * trusted_packet_sequence_id, track_event, interned_data, sequence_flags,
 * system_info, track_descriptor, first_packet_on_sequence,
 * generic_kernel_task_state_event */
MSG(TracePacket, { 1, L, &FtraceEventBundle }, { 2, L, &ProcessTree }, { 6, L, &ClockSnapshot },
    { 8, V, NULL }, { 10, V, NULL }, { 11, L, &TrackEvent }, { 12, L, &InternedData },
    { 13, V, NULL }, { 45, L, &SystemInfo }, { 60, L, &TrackDescriptor }, { 87, V, NULL },
    { 117, L, &GenericKernelTaskStateEvent });
MSG(Trace, { 1, L, &TracePacket });

/* ---- helpers ------------------------------------------------------------ */

static void err(struct pfc *c, const char *fmt, ...)
{
	va_list ap;
	if (c->nerr < 16) {
		va_start(ap, fmt);
		vsnprintf(c->err[c->nerr], sizeof(c->err[0]), fmt, ap);
		va_end(ap);
	}
	c->nerr++;
}

static void walk(struct pfc *c, const struct mdef *m, const uint8_t *d, size_t n)
{
	struct pb_reader r;
	struct pb_field f;
	int rc;

	pb_reader_init(&r, d, n);
	while ((rc = pb_read_field(&r, &f)) > 0) {
		const struct fdef *fd = NULL;
		for (size_t i = 0; i < m->n; i++)
			if (m->f[i].num == f.num)
				fd = &m->f[i];
		if (!fd) {
			err(c, "%s: field %u is outside the set locktrace emits", m->name, f.num);
			continue;
		}
		if (fd->wire != f.wire) {
			err(c, "%s: field %u has wire type %u, the schema says %u", m->name, f.num, f.wire,
			    fd->wire);
			continue;
		}
		if (fd->sub)
			walk(c, fd->sub, f.data, f.len);
	}
	if (rc < 0)
		err(c, "%s: malformed at offset %zu", m->name, pb_reader_offset(&r));
}

static void copy_str(char *dst, size_t cap, const struct pb_field *f)
{
	size_t n = f->len < cap - 1 ? f->len : cap - 1;
	memcpy(dst, f->data, n);
	dst[n] = 0;
}

/* An interning table: iid -> string. */
struct itab {
	char **s;
	size_t n;
};

static int itab_add(struct itab *t, uint64_t iid, const struct pb_field *f)
{
	if (!iid || iid > 1000000)
		return -1;
	if (iid >= t->n) {
		size_t n = iid + 64;
		char **v = realloc(t->s, n * sizeof(*v));
		if (!v)
			return -1;
		memset(v + t->n, 0, (n - t->n) * sizeof(*v));
		t->s = v;
		t->n = n;
	}
	char *str = malloc(f->len + 1);
	if (!str)
		return -1;
	memcpy(str, f->data, f->len);
	str[f->len] = 0;
	if (t->s[iid] && strcmp(t->s[iid], str)) {
		free(str);
		return -2; /* redefined differently */
	}
	free(t->s[iid]);
	t->s[iid] = str;
	return 0;
}

static const char *itab_get(const struct itab *t, uint64_t iid)
{
	return iid < t->n ? t->s[iid] : NULL;
}

static void itab_free(struct itab *t)
{
	for (size_t i = 0; i < t->n; i++)
		free(t->s[i]);
	free(t->s);
}

/* A TrackEvent as decoded, before pairing BEGIN/END by time. */
struct tev {
	uint64_t track, ts;
	size_t idx;
	int type;
	struct pfc_slice s; /* name, annotations, flows, counter */
};

static int tev_cmp(const void *a, const void *b)
{
	const struct tev *x = a, *y = b;
#define CMP(u, v) (((u) > (v)) - ((u) < (v)))
	int r = CMP(x->track, y->track);
	if (!r)
		r = CMP(x->ts, y->ts);
	return r ? r : CMP(x->idx, y->idx);
#undef CMP
}

struct state {
	struct itab names, anames, strings;
	struct tev *tevs;
	size_t ntevs, cap_tevs;
	uint64_t seq;
	int have_seq;
};

static struct pfc_track *get_track(struct pfc *c, uint64_t uuid, int create)
{
	for (size_t i = 0; i < c->ntracks; i++)
		if (c->tracks[i].uuid == uuid)
			return &c->tracks[i];
	if (!create)
		return NULL;
	struct pfc_track *v = realloc(c->tracks, (c->ntracks + 1) * sizeof(*v));
	if (!v)
		return NULL;
	c->tracks = v;
	memset(&v[c->ntracks], 0, sizeof(v[0]));
	v[c->ntracks].uuid = uuid;
	v[c->ntracks].kind = '?';
	v[c->ntracks].tid = -1;
	return &v[c->ntracks++];
}

/* ---- packet contents ----------------------------------------------------- */

static void parse_interned(struct pfc *c, struct state *st, const struct pb_field *id)
{
	struct pb_reader r;
	struct pb_field f;
	pb_reader_init_sub(&r, id);
	while (pb_read_field(&r, &f) > 0) {
		struct itab *t = f.num == 2 ? &st->names : f.num == 3 ? &st->anames
				 : f.num == 29 ? &st->strings : NULL;
		struct pb_field iid = { 0 }, name = { 0 };
		if (!t)
			continue;
		if (pb_find_first(f.data, f.len, 1, &iid) != 1 || pb_find_first(f.data, f.len, 2, &name) != 1) {
			err(c, "interned entry (field %u) without iid or name", f.num);
			continue;
		}
		int rc = itab_add(t, iid.val, &name);
		if (rc == -2)
			err(c, "interned iid %llu (field %u) redefined", (unsigned long long)iid.val, f.num);
		else if (rc)
			err(c, "interned iid %llu (field %u) invalid", (unsigned long long)iid.val, f.num);
	}
}

static void parse_track_descriptor(struct pfc *c, const struct pb_field *td, int has_ts,
				   uint64_t ts)
{
	struct pb_field f;
	if (pb_find_first(td->data, td->len, 1, &f) != 1) {
		err(c, "TrackDescriptor without uuid");
		return;
	}
	int known = get_track(c, f.val, 0) != NULL;
	struct pfc_track *t = get_track(c, f.val, 1);
	if (!t)
		return;
	if (!known) {
		t->has_ts = has_ts;
		t->ts = ts;
	}
	if (pb_find_first(td->data, td->len, 5, &f) == 1)
		t->parent = f.val;
	if (pb_find_first(td->data, td->len, 2, &f) == 1)
		copy_str(t->name, sizeof(t->name), &f);
	if (pb_find_first(td->data, td->len, 3, &f) == 1) {
		struct pb_field x;
		t->kind = 'p';
		if (pb_find_first(f.data, f.len, 1, &x) == 1)
			t->pid = pb_field_int32(&x);
		if (pb_find_first(f.data, f.len, 6, &x) == 1)
			copy_str(t->name, sizeof(t->name), &x);
		if (!c->pid)
			c->pid = t->pid;
	}
	if (pb_find_first(td->data, td->len, 4, &f) == 1) {
		struct pb_field x;
		t->kind = 't';
		if (pb_find_first(f.data, f.len, 1, &x) == 1)
			t->pid = pb_field_int32(&x);
		else
			err(c, "thread track %llu without pid", (unsigned long long)t->uuid);
		if (pb_find_first(f.data, f.len, 2, &x) == 1)
			t->tid = pb_field_int32(&x);
		else
			err(c, "thread track %llu without tid", (unsigned long long)t->uuid);
		if (pb_find_first(f.data, f.len, 5, &x) == 1 && x.len)
			copy_str(t->name, sizeof(t->name), &x);
		else
			err(c, "thread %d has no name", t->tid);
	}
	if (pb_find_first(td->data, td->len, 8, &f) == 1)
		t->kind = 'c';
}

static void parse_annotation(struct pfc *c, struct state *st, struct pfc_slice *s,
			     const struct pb_field *a, int *uses_interning)
{
	struct pb_reader r;
	struct pb_field f;
	struct pfc_ann *an = s->nann < 12 ? &s->ann[s->nann++] : NULL;
	struct pfc_ann dummy;

	if (!an)
		an = &dummy;
	memset(an, 0, sizeof(*an));
	pb_reader_init_sub(&r, a);
	while (pb_read_field(&r, &f) > 0) {
		switch (f.num) {
		case 1: {
			const char *k = itab_get(&st->anames, f.val);
			*uses_interning = 1;
			if (!k)
				err(c, "annotation name iid %llu not interned before use",
				    (unsigned long long)f.val);
			snprintf(an->key, sizeof(an->key), "%s", k ? k : "?");
			break;
		}
		case 10: copy_str(an->key, sizeof(an->key), &f); break;
		case 2: an->type = PFC_ANN_BOOL; an->u = f.val; break;
		case 3: an->type = PFC_ANN_UINT; an->u = f.val; break;
		case 4: an->type = PFC_ANN_INT; an->u = f.val; break;
		case 7: an->type = PFC_ANN_PTR; an->u = f.val; break;
		case 6: an->type = PFC_ANN_STR; copy_str(an->s, sizeof(an->s), &f); break;
		case 17: {
			const char *v = itab_get(&st->strings, f.val);
			*uses_interning = 1;
			if (!v)
				err(c, "annotation string iid %llu not interned before use",
				    (unsigned long long)f.val);
			an->type = PFC_ANN_STR;
			snprintf(an->s, sizeof(an->s), "%s", v ? v : "?");
			break;
		}
		}
	}
	if (!an->key[0])
		err(c, "debug annotation without a name");
	if (!an->type)
		err(c, "debug annotation %s without a value", an->key);
}

static void parse_track_event(struct pfc *c, struct state *st, const struct pb_field *te,
			      uint64_t ts, int has_ts, uint32_t flags)
{
	struct pb_reader r;
	struct pb_field f;
	struct tev e = { .ts = ts, .idx = st->ntevs };
	int uses_interning = 0, nctr_uuid = 0, nctr_val = 0;

	c->ntrack_events++;
	e.s.tid = -1;
	if (!has_ts)
		err(c, "TrackEvent without timestamp");
	pb_reader_init_sub(&r, te);
	while (pb_read_field(&r, &f) > 0) {
		switch (f.num) {
		case 9: e.type = (int)f.val; break;
		case 11: e.track = f.val; break;
		case 10: {
			const char *n = itab_get(&st->names, f.val);
			uses_interning = 1;
			if (!n)
				err(c, "event name iid %llu not interned before use", (unsigned long long)f.val);
			snprintf(e.s.name, sizeof(e.s.name), "%s", n ? n : "?");
			break;
		}
		case 23: copy_str(e.s.name, sizeof(e.s.name), &f); break;
		case 4: parse_annotation(c, st, &e.s, &f, &uses_interning); break;
		case 47:
			if (e.s.nout < 16)
				e.s.flows_out[e.s.nout++] = f.val;
			break;
		case 48:
			if (e.s.nin < 16)
				e.s.flows_in[e.s.nin++] = f.val;
			break;
		case 31:
			nctr_uuid++;
			e.s.counter_track = f.val;
			if (!pfc_track(c, f.val) || pfc_track(c, f.val)->kind != 'c')
				err(c, "extra counter track %llu is not a counter track described before",
				    (unsigned long long)f.val);
			break;
		case 12:
			nctr_val++;
			e.s.counter_begin = e.s.counter_end = pb_field_int64(&f);
			break;
		}
	}
	if (nctr_uuid != nctr_val)
		err(c, "extra counter uuids (%d) and values (%d) differ", nctr_uuid, nctr_val);
	if (uses_interning && !(flags & 2))
		err(c, "a packet using interned data lacks SEQ_NEEDS_INCREMENTAL_STATE");
	if (e.type < 1 || e.type > 4)
		err(c, "TrackEvent of type %d", e.type);
	const struct pfc_track *t = pfc_track(c, e.track);
	if (!t)
		err(c, "TrackEvent on track %llu, not described before", (unsigned long long)e.track);
	else if (t->kind == 't')
		e.s.tid = t->tid;
	if (e.type == 1 && !e.s.name[0])
		err(c, "slice without a name on track %llu", (unsigned long long)e.track);
	if (st->ntevs == st->cap_tevs) {
		size_t n = st->cap_tevs ? st->cap_tevs * 2 : 256;
		struct tev *v = realloc(st->tevs, n * sizeof(*v));
		if (!v) {
			err(c, "out of memory");
			return;
		}
		st->tevs = v;
		st->cap_tevs = n;
	}
	st->tevs[st->ntevs++] = e;
}

static void parse_bundle(struct pfc *c, const struct pb_field *b)
{
	struct pb_reader r;
	struct pb_field f;
	int have_cpu = 0;
	uint32_t cpu = 0;

	if (pb_find_first(b->data, b->len, 1, &f) == 1) {
		have_cpu = 1;
		cpu = (uint32_t)f.val;
	}
	if (!have_cpu)
		err(c, "FtraceEventBundle without cpu");
	if (pb_find_first(b->data, b->len, 3, &f) == 1 && f.val)
		c->lost_bundles++;
	pb_reader_init_sub(&r, b);
	while (pb_read_field(&r, &f) > 0) {
		if (f.num != 2)
			continue;
		struct pfc_sched e = { .cpu = cpu, .prev_pid = -1, .next_pid = -1, .wakee = -1 };
		struct pb_field x, y;
		if (pb_find_first(f.data, f.len, 1, &x) == 1)
			e.ts = x.val;
		else
			err(c, "FtraceEvent without timestamp");
		if (pb_find_first(f.data, f.len, 2, &x) == 1)
			e.pid = (uint32_t)x.val;
		else
			err(c, "FtraceEvent without pid");
		if (pb_find_first(f.data, f.len, 5, &x) == 1)
			e.common_flags = (uint32_t)x.val;
		if (pb_find_first(f.data, f.len, 4, &x) == 1) {
			e.kind = 's';
			if (pb_find_first(x.data, x.len, 2, &y) == 1)
				e.prev_pid = pb_field_int32(&y);
			else
				err(c, "sched_switch without prev_pid");
			if (pb_find_first(x.data, x.len, 6, &y) == 1)
				e.next_pid = pb_field_int32(&y);
			else
				err(c, "sched_switch without next_pid");
			if (pb_find_first(x.data, x.len, 4, &y) == 1)
				e.prev_state = pb_field_int64(&y);
			else
				err(c, "sched_switch without prev_state");
			e.has_prev_comm = pb_find_first(x.data, x.len, 1, &y) == 1;
			e.has_next_comm = pb_find_first(x.data, x.len, 5, &y) == 1;
		} else if (pb_find_first(f.data, f.len, 20, &x) == 1) {
			e.kind = 'w';
			if (pb_find_first(x.data, x.len, 2, &y) == 1)
				e.wakee = pb_field_int32(&y);
			else
				err(c, "sched_waking without pid");
		} else if (pb_find_first(f.data, f.len, 235, &x) == 1) {
			e.kind = 'n';
			if (pb_find_first(x.data, x.len, 1, &y) == 1)
				e.wakee = pb_field_int32(&y);
		} else if (pb_find_first(f.data, f.len, 236, &x) == 1) {
			e.kind = 'r';
		} else if (pb_find_first(f.data, f.len, 238, &x) == 1) {
			e.kind = 'x';
		} else {
			err(c, "FtraceEvent without an event");
		}
		struct pfc_sched *v = realloc(c->sched, (c->nsched + 1) * sizeof(*v));
		if (!v)
			return;
		c->sched = v;
		v[c->nsched++] = e;
	}
}

static void parse_system_info(struct pfc *c, const struct pb_field *f)
{
	struct pb_field u, x;
	if (pb_find_first(f->data, f->len, 1, &u) != 1)
		return;
	if (pb_find_first(u.data, u.len, 3, &x) == 1)
		copy_str(c->kernel, sizeof(c->kernel), &x);
	if (pb_find_first(u.data, u.len, 4, &x) == 1)
		copy_str(c->machine, sizeof(c->machine), &x);
}

static void parse_process_tree(struct pfc *c, const struct pb_field *f)
{
	struct pb_field p, x;
	if (pb_find_first(f->data, f->len, 1, &p) != 1) {
		err(c, "a ProcessTree without a process");
		return;
	}
	if (pb_find_first(p.data, p.len, 1, &x) != 1) {
		err(c, "a ProcessTree process without a pid");
		return;
	}
	int32_t pid = pb_field_int32(&x);
	/* another traced process (a trace of several) is described by its own
	 * process track first; its command line may be unknown (a fork) */
	int other = 0;
	for (size_t i = 0; i < c->ntracks && pid != c->pid; i++)
		other |= c->tracks[i].kind == 'p' && c->tracks[i].pid == pid;
	if (pid != c->pid && !other)
		err(c, "the ProcessTree's process %d is neither the traced one nor described", pid);
	else if (pb_find_first(p.data, p.len, 3, &x) == 1 && !other)
		copy_str(c->cmdline, sizeof(c->cmdline), &x);
	else if (!other)
		err(c, "the ProcessTree's process has no cmdline");
}

/* A thread's state at attach (GenericKernelTaskStateEvent). */
static void parse_task_state(struct pfc *c, const struct pb_field *f, int has_ts, uint64_t ts)
{
	struct pb_field tid, st;
	if (!has_ts)
		err(c, "a task state without a timestamp");
	if (pb_find_first(f->data, f->len, 3, &tid) != 1 || pb_find_first(f->data, f->len, 4, &st) != 1) {
		err(c, "a task state without tid or state");
		return;
	}
	if (st.val < 4 || st.val > 6)
		err(c, "a task state at attach that is not a sleep (%llu)", (unsigned long long)st.val);
	if (c->ntask_states < 16) {
		c->task_states[c->ntask_states].tid = (int32_t)tid.val;
		c->task_states[c->ntask_states].state = (int)st.val;
		c->task_states[c->ntask_states].ts = ts;
	}
	c->ntask_states++;
}

static void parse_packet(struct pfc *c, struct state *st, const struct pb_field *pkt)
{
	struct pb_reader r;
	struct pb_field f, te = { 0 }, in = { 0 }, td = { 0 }, tstate = { 0 };
	uint64_t ts = 0, seq = 0;
	uint32_t flags = 0;
	int has_ts = 0, has_seq = 0, has_te = 0, has_in = 0, has_td = 0, has_tstate = 0;

	c->npackets++;
	pb_reader_init_sub(&r, pkt);
	while (pb_read_field(&r, &f) > 0) {
		switch (f.num) {
		case 8: ts = f.val; has_ts = 1; break;
		case 10: seq = f.val; has_seq = 1; break;
		case 13: flags = (uint32_t)f.val; break;
		case 11: te = f; has_te = 1; break;
		case 12: in = f; has_in = 1; break;
		case 60: td = f; has_td = 1; break;
		case 1: parse_bundle(c, &f); break;
		case 45: parse_system_info(c, &f); break;
		case 2: parse_process_tree(c, &f); break;
		case 117: tstate = f; has_tstate = 1; break;
		}
	}
	if (!has_seq || !seq) {
		err(c, "packet %zu without a trusted_packet_sequence_id", c->npackets);
	} else if (!st->have_seq) {
		st->have_seq = 1;
		st->seq = seq;
		if (!(flags & 1))
			err(c, "the sequence's first packet does not clear the incremental state");
	} else if (seq != st->seq) {
		err(c, "packet %zu on sequence %llu, the others on %llu", c->npackets,
		    (unsigned long long)seq, (unsigned long long)st->seq);
	}
	if (has_td)
		parse_track_descriptor(c, &td, has_ts, ts);
	if (has_tstate)
		parse_task_state(c, &tstate, has_ts, ts);
	if (has_in) /* a packet's interned data serves its own events too */
		parse_interned(c, st, &in);
	if (has_te)
		parse_track_event(c, st, &te, ts, has_ts, flags);
}

/* ---- slices and flows ------------------------------------------------------ */

static void build_slices(struct pfc *c, struct state *st)
{
	if (st->ntevs) /* (qsort of NULL is undefined even for none) */
		qsort(st->tevs, st->ntevs, sizeof(st->tevs[0]), tev_cmp);
	c->slices = calloc(st->ntevs + 1, sizeof(*c->slices));
	if (!c->slices)
		return;
	size_t stack[64], depth = 0;
	uint64_t track = 0;
	for (size_t i = 0; i < st->ntevs; i++) {
		struct tev *e = &st->tevs[i];
		if (i == 0 || e->track != track) {
			for (size_t k = 0; k < depth; k++)
				err(c, "slice %s on track %llu never ends", c->slices[stack[k]].name,
				    (unsigned long long)track);
			depth = 0;
			track = e->track;
		}
		if (e->type == 1 || e->type == 3) {
			struct pfc_slice *s = &c->slices[c->nslices];
			*s = e->s;
			s->track = e->track;
			s->begin = s->end = e->ts;
			s->parent = depth ? (long)stack[depth - 1] : -1;
			if (e->type == 3) {
				s->instant = s->ended = 1;
				c->nslices++;
				continue;
			}
			if (depth && s->tid >= 0)
				err(c, "calls overlap on thread %d: %s inside %s", s->tid, s->name,
				    c->slices[stack[depth - 1]].name);
			if (depth == 64) {
				err(c, "slices nested too deep");
				continue;
			}
			stack[depth++] = c->nslices++;
		} else if (e->type == 2) {
			if (!depth) {
				err(c, "slice end without a begin on track %llu at %llu",
				    (unsigned long long)e->track, (unsigned long long)e->ts);
				continue;
			}
			struct pfc_slice *s = &c->slices[stack[--depth]];
			s->end = e->ts;
			s->ended = 1;
			memcpy(s->flows_in, e->s.flows_in, sizeof(s->flows_in));
			s->nin = e->s.nin;
			if (e->s.counter_track) {
				if (e->s.counter_track != s->counter_track)
					err(c, "slice %s: counter track differs at begin and end", s->name);
				s->counter_end = e->s.counter_end;
			}
			for (int k = 0; k < e->s.nann && s->nann < 12; k++)
				s->ann[s->nann++] = e->s.ann[k];
		}
	}
	for (size_t k = 0; k < depth; k++)
		err(c, "slice %s on track %llu never ends", c->slices[stack[k]].name,
		    (unsigned long long)track);
}

/* One end of a flow: its id and the slice that carries it. */
struct flow_end {
	uint64_t id;
	size_t slice;
};

static int cmp_end(const void *a, const void *b)
{
	const struct flow_end *x = a, *y = b;
	return x->id < y->id ? -1 : x->id > y->id;
}

static void check_flows(struct pfc *c)
{
	size_t nout = 0, nin = 0, o = 0, n = 0;
	for (size_t i = 0; i < c->nslices; i++) {
		nout += (size_t)c->slices[i].nout;
		nin += (size_t)c->slices[i].nin;
	}
	struct flow_end *out = calloc(nout + 1, sizeof(*out)), *in = calloc(nin + 1, sizeof(*in));
	for (size_t i = 0; out && in && i < c->nslices; i++) {
		const struct pfc_slice *s = &c->slices[i];
		for (int k = 0; k < s->nout; k++)
			out[o++] = (struct flow_end){ s->flows_out[k], i };
		for (int k = 0; k < s->nin; k++)
			in[n++] = (struct flow_end){ s->flows_in[k], i };
	}
	qsort(out, o, sizeof(*out), cmp_end);
	qsort(in, n, sizeof(*in), cmp_end);
	for (size_t i = 1; i < o; i++)
		if (out[i].id == out[i - 1].id)
			err(c, "flow %llu starts twice", (unsigned long long)out[i].id);
	for (size_t i = 1; i < n; i++)
		if (in[i].id == in[i - 1].id)
			err(c, "flow %llu ends twice", (unsigned long long)in[i].id);
	/* every start has an end and every end a start, later in time */
	size_t a = 0, b = 0;
	while (a < o || b < n) {
		if (b >= n || (a < o && out[a].id < in[b].id)) {
			err(c, "flow %llu starts but never ends", (unsigned long long)out[a++].id);
		} else if (a >= o || in[b].id < out[a].id) {
			err(c, "flow %llu ends but never starts", (unsigned long long)in[b++].id);
		} else {
			if (c->slices[in[b].slice].end < c->slices[out[a].slice].begin)
				err(c, "flow %llu runs backwards in time", (unsigned long long)out[a].id);
			c->nflows++;
			a++;
			b++;
		}
	}
	free(out);
	free(in);
}

int pfc_load(struct pfc *c, const char *path)
{
	struct state st = { 0 };
	memset(c, 0, sizeof(*c));

	FILE *f = fopen(path, "rb");
	if (!f) {
		err(c, "cannot open %s", path);
		return c->nerr;
	}
	fseek(f, 0, SEEK_END);
	long size = ftell(f);
	fseek(f, 0, SEEK_SET);
	uint8_t *buf = malloc(size > 0 ? (size_t)size : 1);
	if (!buf || fread(buf, 1, (size_t)size, f) != (size_t)size) {
		err(c, "cannot read %s", path);
		fclose(f);
		free(buf);
		return c->nerr;
	}
	fclose(f);

	walk(c, &Trace, buf, (size_t)size);

	struct pb_reader r;
	struct pb_field pf;
	pb_reader_init(&r, buf, (size_t)size);
	while (pb_read_field(&r, &pf) > 0)
		if (pf.num == 1 && pf.wire == PB_WT_LEN)
			parse_packet(c, &st, &pf);
	if (!c->npackets)
		err(c, "no packets");
	build_slices(c, &st);
	check_flows(c);
	for (size_t i = 0; i < c->ntracks; i++)
		if (c->tracks[i].kind == 't' && !c->tracks[i].name[0])
			err(c, "thread %d has no name", c->tracks[i].tid);

	itab_free(&st.names);
	itab_free(&st.anames);
	itab_free(&st.strings);
	free(st.tevs);
	free(buf);
	return c->nerr;
}

void pfc_free(struct pfc *c)
{
	free(c->tracks);
	free(c->slices);
	free(c->sched);
	memset(c, 0, sizeof(*c));
}

void pfc_print_errors(const struct pfc *c)
{
	for (int i = 0; i < c->nerr && i < 16; i++)
		fprintf(stderr, "perfetto check: %s\n", c->err[i]);
	if (c->nerr > 16)
		fprintf(stderr, "perfetto check: ... %d problems in all\n", c->nerr);
}

const struct pfc_track *pfc_track(const struct pfc *c, uint64_t uuid)
{
	for (size_t i = 0; i < c->ntracks; i++)
		if (c->tracks[i].uuid == uuid)
			return &c->tracks[i];
	return NULL;
}

const struct pfc_track *pfc_thread_track(const struct pfc *c, int32_t tid)
{
	for (size_t i = 0; i < c->ntracks; i++)
		if (c->tracks[i].kind == 't' && c->tracks[i].tid == tid)
			return &c->tracks[i];
	return NULL;
}

const struct pfc_slice *pfc_slice(const struct pfc *c, int32_t tid, const char *name, int nth)
{
	/* slices are grouped by track and in time order within one */
	for (size_t i = 0; i < c->nslices; i++) {
		const struct pfc_slice *s = &c->slices[i];
		if (s->tid != tid || (name && strcmp(s->name, name)))
			continue;
		if (nth-- == 0)
			return s;
	}
	return NULL;
}

const struct pfc_ann *pfc_ann(const struct pfc_slice *s, const char *key)
{
	for (int i = 0; i < s->nann; i++)
		if (!strcmp(s->ann[i].key, key))
			return &s->ann[i];
	return NULL;
}

static int has_in(const struct pfc_slice *s, uint64_t id)
{
	return TL_HAS(s->flows_in, (size_t)s->nin, id);
}

int pfc_flow(const struct pfc *c, const struct pfc_slice *from, const struct pfc_slice *to)
{
	long ti = to - c->slices;
	for (int i = 0; i < from->nout; i++) {
		uint64_t id = from->flows_out[i];
		if (has_in(to, id))
			return 1;
		for (size_t k = 0; k < c->nslices; k++) {
			const struct pfc_slice *s = &c->slices[k];
			if (s->instant && s->parent == ti && s->begin == to->end && has_in(s, id))
				return 1;
		}
	}
	return 0;
}
