// SPDX-License-Identifier: MIT
/*
 * Compact encoding of events inside an EVENTS chunk (docs/trace-format.md).
 *
 * Every chunk decodes on its own: the codec state (previous timestamp,
 * previous futex address, a small tid -> comm cache) is reset at each chunk
 * start, so a damaged chunk never poisons the ones after it.
 */
#include <errno.h>
#include <string.h>
#include "codec_enc.h"

void lt_codec_reset(struct lt_codec *c, int32_t pid, uint64_t base_ts)
{
	memset(c, 0, sizeof(*c));
	c->pid = pid;
	c->prev_ts = base_ts;
}

/* A tid or tgid stored relative to the pid: the sum wraps at 32 bits, in
 * unsigned arithmetic (a crafted delta near INT64_MAX plus the pid would
 * overflow a signed sum: undefined; found by fuzz_trace). */
static uint32_t get_tid(struct lt_cur *cur, const struct lt_codec *c)
{
	return (uint32_t)((uint64_t)lt_get_zz(cur) + (uint32_t)c->pid);
}

static void get_str(struct lt_cur *cur, char *dst)
{
	uint64_t n = lt_get_varint(cur);
	const uint8_t *s;

	memset(dst, 0, LT_COMM_LEN);
	/* a comm is at most 15 bytes: 16 would leave dst unterminated */
	if (n >= LT_COMM_LEN) {
		cur->err = 1;
		return;
	}
	s = lt_get_bytes(cur, n);
	if (s)
		memcpy(dst, s, n);
}

static int comm_lookup(struct lt_codec *c, uint32_t tid, char *dst)
{
	struct lt_comm_slot *s = &c->comms[tid % LT_COMM_CACHE];
	if (!s->valid || s->tid != tid)
		return -1;
	memcpy(dst, s->comm, LT_COMM_LEN);
	return 0;
}

size_t lt_codec_encode(struct lt_codec *c, uint8_t *out, const struct lt_event *ev)
{
	return lt_codec_encode_inline(c, out, ev);
}

int lt_codec_decode(struct lt_codec *c, const uint8_t **pp, const uint8_t *end,
		    struct lt_event *ev)
{
	struct lt_cur cur = { *pp, end, 0 };
	struct lt_ev_hdr *h = &ev->h;
	uint64_t bits;
	int i;

	memset(ev, 0, sizeof(*ev));
	if (end - cur.p < 2)
		return -EINVAL;
	h->kind = *cur.p++;
	h->flags = *cur.p++;
	h->ts = c->prev_ts + (uint64_t)lt_get_zz(&cur);
	c->prev_ts = h->ts;
	h->cpu = lt_get_varint(&cur);
	h->tid = get_tid(&cur, c);

	switch (h->kind) {
	case LT_EV_FUTEX_ENTER: {
		struct lt_futex_enter *f = &ev->futex;
		f->nr = lt_get_varint(&cur);
		bits = lt_get_varint(&cur);
		f->op = lt_get_varint(&cur);
		f->uaddr = c->prev_uaddr + (uint64_t)lt_get_zz(&cur);
		c->prev_uaddr = f->uaddr;
		f->val = lt_get_varint(&cur);
		f->uaddr2 = bits & LT_FX_UADDR2 ? f->uaddr + (uint64_t)lt_get_zz(&cur) : 0;
		f->timeout = bits & LT_FX_TIMEOUT ? lt_get_zz(&cur) : -1;
		f->val3 = bits & LT_FX_VAL3 ? (uint32_t)lt_get_varint(&cur) : 0xffffffffu;
		break;
	}
	case LT_EV_WAIT_ENTER: {
		struct lt_wait_enter *w = &ev->wait;
		uint64_t n;
		w->nr = lt_get_varint(&cur);
		w->nfds = lt_get_varint(&cur);
		w->timeout_ns = lt_get_zz(&cur);
		n = lt_get_varint(&cur);
		if (n > LT_WAIT_FDS)
			cur.err = 1;
		for (i = 0; i < LT_WAIT_FDS; i++)
			w->fds[i] = (uint64_t)i < n ? (int32_t)lt_get_zz(&cur) : -1;
		break;
	}
	case LT_EV_IO_ENTER:
		ev->io.nr = lt_get_varint(&cur);
		ev->io.fd = lt_get_zz(&cur);
		ev->io.count = lt_get_varint(&cur);
		break;
	case LT_EV_SYS_EXIT:
		ev->exit.nr = lt_get_varint(&cur);
		ev->exit.ret = lt_get_zz(&cur);
		break;
	case LT_EV_SWITCH: {
		struct lt_switch *s = &ev->sw;
		s->next_tid = get_tid(&cur, c);
		s->prev_state = lt_get_varint(&cur);
		s->prev_prio = lt_get_zz(&cur);
		s->next_prio = lt_get_zz(&cur);
		s->prev_tgid = get_tid(&cur, c);
		s->next_tgid = get_tid(&cur, c);
		bits = lt_get_varint(&cur);
		s->prev_tid = bits & 4 ? get_tid(&cur, c) : h->tid;
		if (bits & 1) {
			get_str(&cur, s->prev_comm);
			codec_comm_store(c, s->prev_tid, s->prev_comm);
		} else if (comm_lookup(c, s->prev_tid, s->prev_comm)) {
			cur.err = 1;
		}
		if (bits & 2) {
			get_str(&cur, s->next_comm);
			codec_comm_store(c, s->next_tid, s->next_comm);
		} else if (comm_lookup(c, s->next_tid, s->next_comm)) {
			cur.err = 1;
		}
		break;
	}
	case LT_EV_WAKING: {
		struct lt_waking *w = &ev->wake;
		w->waker_tid = get_tid(&cur, c);
		w->waker_tgid = get_tid(&cur, c);
		w->prio = lt_get_zz(&cur);
		w->target_cpu = lt_get_varint(&cur);
		bits = lt_get_varint(&cur);
		if (bits & 1) {
			get_str(&cur, w->waker_comm);
			codec_comm_store(c, w->waker_tid, w->waker_comm);
		} else if (comm_lookup(c, w->waker_tid, w->waker_comm)) {
			cur.err = 1;
		}
		break;
	}
	case LT_EV_TASK_NEW:
		ev->tnew.clone_flags = lt_get_varint(&cur);
		ev->tnew.parent_tid = get_tid(&cur, c);
		ev->tnew.tgid = get_tid(&cur, c);
		get_str(&cur, ev->tnew.comm);
		codec_comm_store(c, h->tid, ev->tnew.comm);
		break;
	case LT_EV_TASK_EXIT:
		ev->texit.exit_code = lt_get_zz(&cur);
		break;
	case LT_EV_RENAME:
		get_str(&cur, ev->ren.oldcomm);
		get_str(&cur, ev->ren.newcomm);
		break;
	case LT_EV_EXEC:
		ev->exec.old_tid = get_tid(&cur, c);
		get_str(&cur, ev->exec.comm);
		break;
	case LT_EV_LOST:
		ev->lost.lost_kind = lt_get_varint(&cur);
		ev->lost.count = lt_get_varint(&cur);
		break;
	case LT_EV_FLOCK_ENTER: {
		struct lt_flock_enter *f = &ev->flk;
		int64_t type;
		uint64_t whence;
		f->nr = lt_get_varint(&cur);
		f->fd = lt_get_zz(&cur);
		f->cmd = lt_get_varint(&cur);
		type = lt_get_zz(&cur);
		if (type < -1 || type > INT8_MAX)
			cur.err = 1;
		f->type = (int8_t)type;
		if (type >= 0) {
			whence = lt_get_varint(&cur);
			if (whence > UINT8_MAX)
				cur.err = 1;
			f->whence = (uint8_t)whence;
			f->start = lt_get_zz(&cur);
			f->len = lt_get_zz(&cur);
		}
		break;
	}
	default:
		return -EINVAL;
	}
	if (cur.err)
		return -EINVAL;
	*pp = cur.p;
	return 0;
}
