/* SPDX-License-Identifier: MIT */
/*
 * The event encoder of src/trace/codec.c, inline: the writer's per-event
 * path (lt_writer_event) encodes without a call, the codec's own
 * lt_codec_encode is this same function.  Private to src/.
 */
#ifndef LT_CODEC_ENC_H
#define LT_CODEC_ENC_H

#include <string.h>
#include "codec.h"
#include "varint.h"

static inline uint8_t *codec_put_tid(uint8_t *p, const struct lt_codec *c, uint32_t tid)
{
	return lt_put_varint(p, lt_zz((int64_t)tid - c->pid));
}

/* At most LT_COMM_LEN - 1: the kernel's names end in a NUL within 16
 * bytes, and the reader refuses 16 (no room for the terminator). */
static inline size_t codec_comm_len(const char *s)
{
	size_t n = 0;
	while (n < LT_COMM_LEN - 1 && s[n])
		n++;
	return n;
}

static inline uint8_t *codec_put_str(uint8_t *p, const char *s)
{
	size_t n = codec_comm_len(s);
	p = lt_put_varint(p, n);
	memcpy(p, s, n);
	return p + n;
}

/* The comm of a tid is written only when it differs from the cached one;
 * a flag bit says whether it follows inline. */
static inline int codec_comm_cached(struct lt_codec *c, uint32_t tid, const char *comm)
{
	struct lt_comm_slot *s = &c->comms[tid % LT_COMM_CACHE];
	/* the slot is NUL-padded, and so is a comm the kernel copied: equal
	 * bytes are the common case, compared inline; strncmp only when the
	 * bytes after the NUL may differ */
	if (s->valid && s->tid == tid &&
	    (!memcmp(s->comm, comm, LT_COMM_LEN) || !strncmp(s->comm, comm, LT_COMM_LEN)))
		return 1;
	s->valid = 1;
	s->tid = tid;
	memset(s->comm, 0, LT_COMM_LEN);
	memcpy(s->comm, comm, codec_comm_len(comm));
	return 0;
}

static inline void codec_comm_store(struct lt_codec *c, uint32_t tid, const char *comm)
{
	codec_comm_cached(c, tid, comm);
}

/* futex optional-field presence bits */
#define LT_FX_UADDR2 0x1
#define LT_FX_TIMEOUT 0x2
#define LT_FX_VAL3 0x4

/* kind is ev->h.kind, given apart so that a caller that knows it (a
 * constant) gets the encoder of that kind alone, without the switch. */
static inline __attribute__((always_inline)) size_t lt_codec_encode_kind(struct lt_codec *c,
									 uint8_t *out,
									 const struct lt_event *ev,
									 uint8_t kind)
{
	uint8_t *p = out;
	const struct lt_ev_hdr *h = &ev->h;
	unsigned bits;
	int i;

	*p++ = kind;
	*p++ = h->flags & (uint8_t)~LT_F_RECORDER_ONLY; /* the recorder's own */
	p = lt_put_varint(p, lt_zz((int64_t)(h->ts - c->prev_ts)));
	c->prev_ts = h->ts;
	p = lt_put_varint(p, h->cpu);
	p = codec_put_tid(p, c, h->tid);

	switch (kind) {
	case LT_EV_FUTEX_ENTER: {
		const struct lt_futex_enter *f = &ev->futex;
		bits = (f->uaddr2 ? LT_FX_UADDR2 : 0) | (f->timeout != -1 ? LT_FX_TIMEOUT : 0) |
		       (f->val3 != 0xffffffffu ? LT_FX_VAL3 : 0);
		p = lt_put_varint(p, f->nr);
		p = lt_put_varint(p, bits);
		p = lt_put_varint(p, f->op);
		p = lt_put_varint(p, lt_zz((int64_t)(f->uaddr - c->prev_uaddr)));
		c->prev_uaddr = f->uaddr;
		p = lt_put_varint(p, f->val);
		if (bits & LT_FX_UADDR2)
			p = lt_put_varint(p, lt_zz((int64_t)(f->uaddr2 - f->uaddr)));
		if (bits & LT_FX_TIMEOUT)
			p = lt_put_varint(p, lt_zz(f->timeout));
		if (bits & LT_FX_VAL3)
			p = lt_put_varint(p, f->val3);
		break;
	}
	case LT_EV_WAIT_ENTER: {
		const struct lt_wait_enter *w = &ev->wait;
		int n = 0;
		while (n < LT_WAIT_FDS && w->fds[n] >= 0)
			n++;
		p = lt_put_varint(p, w->nr);
		p = lt_put_varint(p, w->nfds);
		p = lt_put_varint(p, lt_zz(w->timeout_ns));
		/* fds are kept as a prefix of non-negative values */
		for (i = n; i < LT_WAIT_FDS; i++)
			if (w->fds[i] != -1)
				n = LT_WAIT_FDS;
		p = lt_put_varint(p, n);
		for (i = 0; i < n; i++)
			p = lt_put_varint(p, lt_zz(w->fds[i]));
		break;
	}
	case LT_EV_IO_ENTER:
		p = lt_put_varint(p, ev->io.nr);
		p = lt_put_varint(p, lt_zz(ev->io.fd));
		p = lt_put_varint(p, ev->io.count);
		break;
	case LT_EV_SYS_EXIT:
		p = lt_put_varint(p, ev->exit.nr);
		p = lt_put_varint(p, lt_zz(ev->exit.ret));
		break;
	case LT_EV_SWITCH: {
		const struct lt_switch *s = &ev->sw;
		bits = (codec_comm_cached(c, s->prev_tid, s->prev_comm) ? 0 : 1) |
		       (codec_comm_cached(c, s->next_tid, s->next_comm) ? 0 : 2);
		/* prev_tid == hdr.tid always (the BPF side sets it so) */
		p = codec_put_tid(p, c, s->next_tid);
		p = lt_put_varint(p, s->prev_state);
		p = lt_put_varint(p, lt_zz(s->prev_prio));
		p = lt_put_varint(p, lt_zz(s->next_prio));
		p = lt_put_varint(p, lt_zz((int64_t)s->prev_tgid - c->pid));
		p = lt_put_varint(p, lt_zz((int64_t)s->next_tgid - c->pid));
		p = lt_put_varint(p, bits | (s->prev_tid != h->tid ? 4 : 0));
		if (s->prev_tid != h->tid)
			p = codec_put_tid(p, c, s->prev_tid);
		if (bits & 1)
			p = codec_put_str(p, s->prev_comm);
		if (bits & 2)
			p = codec_put_str(p, s->next_comm);
		break;
	}
	case LT_EV_WAKING: {
		const struct lt_waking *w = &ev->wake;
		bits = codec_comm_cached(c, w->waker_tid, w->waker_comm) ? 0 : 1;
		p = codec_put_tid(p, c, w->waker_tid);
		p = lt_put_varint(p, lt_zz((int64_t)w->waker_tgid - c->pid));
		p = lt_put_varint(p, lt_zz(w->prio));
		p = lt_put_varint(p, w->target_cpu);
		p = lt_put_varint(p, bits);
		if (bits)
			p = codec_put_str(p, w->waker_comm);
		break;
	}
	case LT_EV_TASK_NEW:
		p = lt_put_varint(p, ev->tnew.clone_flags);
		p = codec_put_tid(p, c, ev->tnew.parent_tid);
		p = lt_put_varint(p, lt_zz((int64_t)ev->tnew.tgid - c->pid));
		p = codec_put_str(p, ev->tnew.comm);
		codec_comm_store(c, h->tid, ev->tnew.comm);
		break;
	case LT_EV_TASK_EXIT:
		p = lt_put_varint(p, lt_zz(ev->texit.exit_code));
		break;
	case LT_EV_RENAME:
		p = codec_put_str(p, ev->ren.oldcomm);
		p = codec_put_str(p, ev->ren.newcomm);
		break;
	case LT_EV_EXEC:
		p = codec_put_tid(p, c, ev->exec.old_tid);
		p = codec_put_str(p, ev->exec.comm);
		break;
	case LT_EV_LOST:
		p = lt_put_varint(p, ev->lost.lost_kind);
		p = lt_put_varint(p, ev->lost.count);
		break;
	case LT_EV_FLOCK_ENTER: {
		const struct lt_flock_enter *f = &ev->flk;
		p = lt_put_varint(p, f->nr);
		p = lt_put_varint(p, lt_zz(f->fd));
		p = lt_put_varint(p, f->cmd);
		p = lt_put_varint(p, lt_zz(f->type));
		if (f->type >= 0) { /* the struct flock was read */
			p = lt_put_varint(p, f->whence);
			p = lt_put_varint(p, lt_zz(f->start));
			p = lt_put_varint(p, lt_zz(f->len));
		}
		break;
	}
	default:
		return 0;
	}
	return (size_t)(p - out);
}

static inline __attribute__((always_inline)) size_t lt_codec_encode_inline(struct lt_codec *c,
									   uint8_t *out,
									   const struct lt_event *ev)
{
	return lt_codec_encode_kind(c, out, ev, ev->h.kind);
}

#endif
