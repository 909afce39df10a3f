// SPDX-License-Identifier: MIT
/* Loading and attaching the BPF side: open -> configure rodata -> load ->
 * attach, with errors that say what failed and how to fix it. */
#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <time.h>
#include <sys/epoll.h>
#include <sys/mman.h>
#include <bpf/bpf.h>
#include <bpf/btf.h>
#include <bpf/libbpf.h>
#include "locktrace/event.h"
#include "locktrace/flightbuf.h"
#include "fbdump.h"
#include "loader.h"
#include "fbstream.h"
#include "log.h"
#include "locktrace.skel.h"
#include "grow.h"

/* a per-cpu map value is read and written in 8-byte multiples */
#define FB_CPU_STRIDE ((sizeof(struct lt_fb_cpu) + 7) / 8 * 8)

static int verbose_libbpf;

static int libbpf_print(enum libbpf_print_level level, const char *fmt, va_list ap)
{
	if (level == LIBBPF_DEBUG || (level == LIBBPF_INFO && !verbose_libbpf))
		return 0;
	if (!verbose_libbpf && level == LIBBPF_WARN)
		return 0; /* failures are reported by us, with a fix */
	return lt_vlib(fmt, ap);
}

int lt_bpf_check_kernel(char *err, size_t errlen)
{
	if (access("/sys/kernel/btf/vmlinux", R_OK)) {
		snprintf(err, errlen,
			 "this kernel exposes no BTF (/sys/kernel/btf/vmlinux: %s): locktrace needs a "
			 "kernel built with CONFIG_DEBUG_INFO_BTF=y",
			 strerror(errno));
		return -1;
	}
	return 0;
}

uint64_t lt_bpf_ring_size(uint64_t want)
{
	uint64_t sz = (uint64_t)sysconf(_SC_PAGESIZE);
	while (sz < want && sz < (1ull << 31))
		sz <<= 1;
	return sz;
}

/* Offset of the per-cpu variable name in the per-cpu section, plus that
 * of member (NULL: none) inside it; -1 if the BTF does not say. */
static int64_t percpu_offset(const struct btf *btf, const struct btf_type *sec, const char *name,
			     const char *member)
{
	const struct btf_var_secinfo *v = btf_var_secinfos(sec);

	for (int i = 0; i < btf_vlen(sec); i++, v++) {
		const struct btf_type *var = btf__type_by_id(btf, v->type);
		if (!var || strcmp(btf__name_by_offset(btf, var->name_off), name))
			continue;
		if (!member)
			return v->offset;
		const struct btf_type *t = btf__type_by_id(btf, var->type);
		const struct btf_member *m = t && btf_is_struct(t) ? btf_members(t) : NULL;
		for (int k = 0; m && k < btf_vlen(t); k++, m++)
			if (!strcmp(btf__name_by_offset(btf, m->name_off), member))
				return v->offset + btf_member_bit_offset(t, (uint32_t)k) / 8;
		return -1;
	}
	return -1;
}

/* Has the kernel the rseq_update tracepoint (CONFIG_RSEQ)? */
bool lt_bpf_has_rseq_update(void)
{
	struct btf *btf = btf__load_vmlinux_btf();
	bool has = btf && btf__find_by_name_kind(btf, "btf_trace_rseq_update", BTF_KIND_TYPEDEF) > 0;
	btf__free(btf);
	return has;
}

int64_t lt_bpf_preempt_from_rq(void)
{
	struct btf *btf = btf__load_vmlinux_btf();
	int64_t rq, pc = -1;

	if (!btf)
		return 0;
	int id = btf__find_by_name_kind(btf, ".data..percpu", BTF_KIND_DATASEC);
	const struct btf_type *sec = id > 0 ? btf__type_by_id(btf, (uint32_t)id) : NULL;
	rq = sec ? percpu_offset(btf, sec, "runqueues", NULL) : -1;
	if (sec)
		pc = percpu_offset(btf, sec, "__preempt_count", NULL);
	if (sec && pc < 0) /* 6.2 to 6.14 */
		pc = percpu_offset(btf, sec, "pcpu_hot", "preempt_count");
	btf__free(btf);
	return rq < 0 || pc < 0 ? 0 : pc - rq;
}

static void perm_hint(char *err, size_t errlen, const char *what, int e)
{
	if (e == EPERM || e == EACCES)
		snprintf(err, errlen,
			 "%s: %s: locktrace needs root or CAP_BPF+CAP_PERFMON (run it with sudo)", what,
			 strerror(e));
	else
		snprintf(err, errlen, "%s: %s (run with -v for libbpf's log)", what, strerror(e));
}

int lt_bpf_start(struct lt_bpf *b, pid_t tgid, uint64_t ring_bytes, unsigned flags,
		 lt_sample_fn fn, void *ctx, int verbose, char *err, size_t errlen)
{
	return lt_bpf_start_set(b, &tgid, 1, ring_bytes, flags, fn, ctx, verbose, err, errlen);
}

int lt_bpf_add_tgid(struct lt_bpf *b, pid_t tgid)
{
	uint32_t k = (uint32_t)tgid;
	uint8_t one = 1;
	if (!b->skel->rodata->targ_multi)
		return -EINVAL;
	if (bpf_map_update_elem(bpf_map__fd(b->skel->maps.traced_tgids), &k, &one, BPF_ANY))
		return errno == E2BIG ? -E2BIG : -errno;
	return 0;
}

int lt_bpf_start_set(struct lt_bpf *b, const pid_t *tgids, size_t n, uint64_t ring_bytes,
		     unsigned flags, lt_sample_fn fn, void *ctx, int verbose, char *err, size_t errlen)
{
	return lt_bpf_start_cg(b, tgids, n, NULL, 0, ring_bytes, flags, fn, ctx, verbose, err, errlen);
}

int lt_bpf_start_cg(struct lt_bpf *b, const pid_t *tgids, size_t n, const uint64_t *cgids,
		    size_t ncg, uint64_t ring_bytes, unsigned flags, lt_sample_fn fn, void *ctx,
		    int verbose, char *err, size_t errlen)
{
	int r;
	pid_t tgid = tgids[0];
	int (*copy_fn)(void *, void *, size_t) = b->copy_fn;
	void *copy_ctx = b->copy_ctx;
	uint32_t waker_sample = b->waker_sample, sleep_slots = b->sleep_slots;

	memset(b, 0, sizeof(*b));
	b->copy_fn = copy_fn; /* the caller's, set before */
	b->copy_ctx = copy_ctx;
	b->waker_sample = waker_sample;
	b->sleep_slots = sleep_slots ? sleep_slots : LT_SLEEP_SLOTS;
	verbose_libbpf = verbose;
	libbpf_set_print(libbpf_print);

	b->ncpus = libbpf_num_possible_cpus();
	if (b->ncpus <= 0) {
		snprintf(err, errlen, "cannot count possible cpus: %s", strerror(-b->ncpus));
		return -1;
	}
	b->lost_tmp = calloc((size_t)b->ncpus, sizeof(uint64_t));
	b->skel = locktrace_bpf__open();
	if (!b->skel || !b->lost_tmp) {
		snprintf(err, errlen, "opening the BPF object: %s", strerror(errno));
		goto fail;
	}
	uint64_t asked = ring_bytes; /* the units take at most this (fb_nunits) */
	ring_bytes = lt_bpf_ring_size(ring_bytes);
	b->skel->rodata->targ_tgid = (uint32_t)tgid;
	if (n > LT_MAX_TGIDS) {
		snprintf(err, errlen, "%zu processes: at most %d can be traced at once", n, LT_MAX_TGIDS);
		goto fail;
	}
	if (ncg > LT_MAX_CGROUPS) {
		snprintf(err, errlen, "%zu cgroups: at most %d can be traced at once", ncg, LT_MAX_CGROUPS);
		goto fail;
	}
	b->skel->rodata->targ_multi = n > 1 || (flags & (LT_BPF_MULTI | LT_BPF_FOLLOW_FORKS));
	b->skel->rodata->targ_cgroup = ncg > 0;
	b->skel->rodata->self_tgid = (uint32_t)getpid();
	b->skel->rodata->follow_forks = (flags & LT_BPF_FOLLOW_FORKS) != 0;
	/* wake the collector early only when a quarter of the ring is used */
	b->skel->rodata->wake_bytes = ring_bytes / 4;
	if (flags & LT_BPF_FB_STREAM) {
		/* the units as the flight recorder's, read as they come */
		flags |= LT_BPF_FLIGHTBUF;
		flags &= ~(unsigned)LT_BPF_FB_STALL;
		b->fb_stream = true;
		b->skel->rodata->fb_stream = true;
		bpf_map__set_max_entries(b->skel->maps.fb_tails, (uint32_t)b->ncpus);
	}
	if (flags & LT_BPF_FLIGHTBUF) {
		/* the units take the ring's size; the ring buffer stays empty */
		b->fb_nunits = lt_fb_nunits(asked, (unsigned)b->ncpus);
		if (b->fb_stream && b->fb_nunits < LT_FBS_MIN_NUNITS)
			b->fb_nunits = LT_FBS_MIN_NUNITS;
		b->skel->rodata->flightbuf = true;
		b->skel->rodata->fb_nunits = b->fb_nunits;
		b->skel->rodata->fb_stall = (flags & LT_BPF_FB_STALL) != 0;
		bpf_map__set_max_entries(b->skel->maps.fb_units, b->fb_nunits * (uint32_t)b->ncpus);
		if (flags & LT_BPF_FB_STALL)
			bpf_map__set_max_entries(b->skel->maps.fb_threads, 65536);
		ring_bytes = lt_bpf_ring_size(4096);
	}
	bpf_map__set_max_entries(b->skel->maps.events, (uint32_t)ring_bytes);
	/* the copies' ring: wakers' copies (--calls blocking) and waiters' */
	int copies = (flags & LT_BPF_COPY_STACKS) && b->copy_fn &&
		     ((flags & LT_BPF_CALLS_BLOCKING) || (flags & LT_BPF_COPY_WAITERS));
	if (copies && (flags & LT_BPF_CALLS_BLOCKING))
		b->skel->rodata->copy_waker_stacks = true;
	if (!copies) { /* unused: the smallest ring and maps */
		bpf_map__set_max_entries(b->skel->maps.stack_copies, 4096);
		bpf_map__set_max_entries(b->skel->maps.py_layouts, 1);
		bpf_map__set_max_entries(b->skel->maps.py_tstates, 1);
		bpf_map__set_max_entries(b->skel->maps.oc_layouts, 1);
	}
	if (!copies || !(flags & LT_BPF_COPY_WAITERS)) {
		bpf_map__set_max_entries(b->skel->maps.waiters_read, 1);
		bpf_map__set_max_entries(b->skel->maps.copies_serve, 1);
	}
	if (copies && (flags & LT_BPF_COPY_WAITERS)) {
		/* a copy per long wait too (~2.1 KiB each): about 7,000 of
		 * them between two drains (the demo's 64 threads make
		 * ~15,000 a second); wakers' copies take at most half */
		b->skel->rodata->waiter_copy_ns = LT_WAITER_COPY_NS;
		b->skel->rodata->waker_sample_every = b->waker_sample;
		bpf_map__set_max_entries(b->skel->maps.stack_copies, 16u << 20);
		bpf_map__set_max_entries(b->skel->maps.sleep_at, b->sleep_slots);
		bpf_map__set_max_entries(b->skel->maps.sleep_spill, 16384);
		b->skel->rodata->sleep_mask = b->sleep_slots - 1;
		if (!(flags & LT_BPF_CALLS_BLOCKING)) /* the waits' entries */
			bpf_map__set_max_entries(b->skel->maps.call_at, 65536);
	}
	/* --calls blocking: long waits copied at the waiter's return to user
	 * space (where the kernel has the rseq_update tracepoint and the thread
	 * registered rseq, as glibc 2.35+ does for every thread) rather than at
	 * the wake-up: in the waiter's own context, whoever woke it (a timer,
	 * another process), so that the BPF side's copy covers every such wait
	 * of a process whose waits it serves, and the collector need not read
	 * them at 1 ms (it drains every 20 ms then; BENCHMARKS.md, 2026-12-05
	 * afternoon).  LT_BPF_COPY_AT_WAKE: at the wake-up, as before (tests,
	 * measurements). */
	if (copies && (flags & LT_BPF_COPY_WAITERS) && (flags & LT_BPF_CALLS_BLOCKING) &&
	    !(flags & LT_BPF_COPY_AT_WAKE) && lt_bpf_has_rseq_update())
		b->skel->rodata->waiter_copy_at_return = true;
	else
		bpf_program__set_autoload(b->skel->progs.lt_rseq_update, false);
	/* the waits the copies serve come flagged (LT_F_BPF_COPY): with
	 * --calls all each wait call of 1 ms or more is copied at its return
	 * (sys_exit) */
	b->waits_flagged = copies && (flags & LT_BPF_COPY_WAITERS) &&
			   (!(flags & LT_BPF_CALLS_BLOCKING) || b->skel->rodata->waiter_copy_at_return);
	/* 0 (not known): wake-ups on the interrupt stack stay interrupts */
	b->skel->rodata->pc_from_rq = lt_bpf_preempt_from_rq();
	if (!ncg)
		bpf_program__set_autoload(b->skel->progs.lt_cgroup_mkdir, false);
	if (flags & LT_BPF_CALLS_BLOCKING) {
		/* Not even loaded: once a program sits on sys_enter or
		 * sys_exit, every system call of every process takes the
		 * kernel's tracing path (BENCHMARKS.md). */
		b->skel->rodata->calls_at_switch = true;
		bpf_program__set_autoload(b->skel->progs.lt_sys_enter, false);
		bpf_program__set_autoload(b->skel->progs.lt_sys_exit, false);
	}

	r = locktrace_bpf__load(b->skel);
	if (r) {
		perm_hint(err, errlen, "loading the BPF programs", -r);
		goto fail;
	}
	for (size_t i = 1; i < n; i++) {
		r = lt_bpf_add_tgid(b, tgids[i]);
		if (r) {
			snprintf(err, errlen, "adding process %d to the kernel filter: %s", (int)tgids[i],
				 strerror(-r));
			goto fail;
		}
	}
	for (size_t i = 0; i < ncg; i++) {
		uint8_t one = 1;
		if (bpf_map_update_elem(bpf_map__fd(b->skel->maps.traced_cgroups), &cgids[i], &one,
					BPF_ANY)) {
			snprintf(err, errlen, "adding cgroup %llu to the kernel filter: %s",
				 (unsigned long long)cgids[i], strerror(errno));
			goto fail;
		}
	}
	if (flags & LT_BPF_FLIGHTBUF) {
		size_t pg = (size_t)sysconf(_SC_PAGESIZE);
		b->fb_maplen = ((size_t)b->fb_nunits * (size_t)b->ncpus * LT_FB_UNIT + pg - 1) / pg * pg;
		void *m = mmap(NULL, b->fb_maplen, PROT_READ, MAP_SHARED,
			       bpf_map__fd(b->skel->maps.fb_units), 0);
		if (m == MAP_FAILED) {
			b->fb_maplen = 0;
			snprintf(err, errlen, "mapping the kernel-side units (%zu bytes): %s",
				 (size_t)b->fb_nunits * (size_t)b->ncpus * LT_FB_UNIT, strerror(errno));
			goto fail;
		}
		b->fb_units = m;
	}
	if (b->fb_stream) {
		size_t pg = (size_t)sysconf(_SC_PAGESIZE);
		b->tails_maplen = ((size_t)b->ncpus * sizeof(struct lt_fb_tail) + pg - 1) / pg * pg;
		void *m = mmap(NULL, b->tails_maplen, PROT_READ | PROT_WRITE, MAP_SHARED,
			       bpf_map__fd(b->skel->maps.fb_tails), 0);
		if (m == MAP_FAILED) {
			b->tails_maplen = 0;
			snprintf(err, errlen, "mapping the units' read positions: %s", strerror(errno));
			goto fail;
		}
		b->fb_tails = m;
		b->fbs = calloc(1, sizeof(*b->fbs));
		if (!b->fbs) {
			snprintf(err, errlen, "out of memory");
			goto fail;
		}
		/* units numbered from 1: a tag of 0 is a unit never written */
		size_t stride = FB_CPU_STRIDE;
		uint8_t *v = calloc((size_t)b->ncpus, stride);
		uint32_t k0 = 0;
		for (int c = 0; v && c < b->ncpus; c++) {
			((struct lt_fb_cpu *)(void *)(v + (size_t)c * stride))->head = 1;
			b->fb_tails[c].tail = 1;
		}
		if (!v || bpf_map_update_elem(bpf_map__fd(b->skel->maps.fb_cpu), &k0, v, BPF_ANY)) {
			snprintf(err, errlen, "setting the units' heads: %s",
				 v ? strerror(errno) : "out of memory");
			free(v);
			goto fail;
		}
		free(v);
		b->fbs->units = b->fb_units;
		b->fbs->tails = b->fb_tails;
		b->fbs->ncpus = (unsigned)b->ncpus;
		b->fbs->nunits = b->fb_nunits;
		b->ev_fn = fn;
		b->ev_ctx = ctx;
	}
	/* the returns before the entries: a call entered before its return's
	 * program is attached would leave an entry that never returns (the
	 * skeleton attaches in program order, sys_enter first); a return
	 * without its entry is one the collector knows (begun before) */
	if (bpf_program__autoload(b->skel->progs.lt_sys_exit) && !b->skel->links.lt_sys_exit) {
		b->skel->links.lt_sys_exit = bpf_program__attach(b->skel->progs.lt_sys_exit);
		if (!b->skel->links.lt_sys_exit) {
			r = -errno;
			perm_hint(err, errlen, "attaching the BPF program to the syscall return tracepoint", -r);
			goto fail;
		}
	}
	r = locktrace_bpf__attach(b->skel);
	if (r) {
		perm_hint(err, errlen, "attaching the BPF programs to the scheduler and syscall tracepoints",
			  -r);
		goto fail;
	}
	b->rb = ring_buffer__new(bpf_map__fd(b->skel->maps.events), (ring_buffer_sample_fn)fn, ctx,
				 NULL);
	if (!b->rb) {
		snprintf(err, errlen, "opening the ring buffer: %s", strerror(errno));
		goto fail;
	}
	if (copies && ring_buffer__add(b->rb, bpf_map__fd(b->skel->maps.stack_copies),
				       (ring_buffer_sample_fn)b->copy_fn, b->copy_ctx)) {
		snprintf(err, errlen, "opening the stack copies' ring buffer: %s", strerror(errno));
		goto fail;
	}
	/* The collector sleeps on an epoll set of its own, edge-triggered:
	 * it wakes on the kernel side's wake-ups (BPF_RB_FORCE_WAKEUP) or its
	 * timeout only.  libbpf's set is level-triggered: once one wake-up had
	 * put a ring on its ready list, every epoll_wait that found an event
	 * in it returned at once, and with events coming every few
	 * microseconds the collector drained without ever sleeping (2,300
	 * drains a second on the demo, where 50 were meant). */
	b->epfd = epoll_create1(EPOLL_CLOEXEC);
	if (b->epfd < 0) {
		snprintf(err, errlen, "creating an epoll set for the ring buffers: %s", strerror(errno));
		goto fail;
	}
	struct epoll_event ev = { .events = EPOLLIN | EPOLLET };
	if (epoll_ctl(b->epfd, EPOLL_CTL_ADD, bpf_map__fd(b->skel->maps.events), &ev) ||
	    (copies && epoll_ctl(b->epfd, EPOLL_CTL_ADD, bpf_map__fd(b->skel->maps.stack_copies), &ev))) {
		snprintf(err, errlen, "watching the ring buffers (epoll): %s", strerror(errno));
		goto fail;
	}
	return 0;
fail:
	lt_bpf_destroy(b);
	return -1;
}

int lt_bpf_py_layout(struct lt_bpf *b, uint32_t tgid, const struct lt_py_layout *l)
{
	int fd = bpf_map__fd(b->skel->maps.py_layouts);
	int r = l ? bpf_map_update_elem(fd, &tgid, l, BPF_ANY) : bpf_map_delete_elem(fd, &tgid);
	return r && (l || errno != ENOENT) ? -errno : 0;
}

int lt_bpf_oc_layout(struct lt_bpf *b, uint32_t tgid, const struct lt_oc_layout *l)
{
	int fd = bpf_map__fd(b->skel->maps.oc_layouts);
	int r = l ? bpf_map_update_elem(fd, &tgid, l, BPF_ANY) : bpf_map_delete_elem(fd, &tgid);
	return r && (l || errno != ENOENT) ? -errno : 0;
}

int lt_bpf_waiters_read(struct lt_bpf *b, uint32_t tgid)
{
	uint8_t one = 1;
	int fd = bpf_map__fd(b->skel->maps.waiters_read);
	return bpf_map_update_elem(fd, &tgid, &one, BPF_ANY) ? -errno : 0;
}

int lt_bpf_copies_serve(struct lt_bpf *b, uint32_t tgid, bool on)
{
	uint8_t one = 1;
	int fd = bpf_map__fd(b->skel->maps.copies_serve);
	int r = on ? bpf_map_update_elem(fd, &tgid, &one, BPF_ANY) : bpf_map_delete_elem(fd, &tgid);
	return r && (on || errno != ENOENT) ? -errno : 0;
}

int lt_bpf_py_tstate(struct lt_bpf *b, uint32_t tid, uint64_t ts)
{
	int fd = bpf_map__fd(b->skel->maps.py_tstates);
	int r = ts ? bpf_map_update_elem(fd, &tid, &ts, BPF_ANY) : bpf_map_delete_elem(fd, &tid);
	return r && (ts || errno != ENOENT) ? -errno : 0;
}

int lt_bpf_sleep_note(struct lt_bpf *b, uint32_t tid, struct lt_sleep_note *out)
{
	/* its slot, if the note in it is this thread's; else the spilled
	 * notes (BPF: sleep_note) */
	uint32_t k = tid & b->skel->rodata->sleep_mask;
	if (bpf_map_lookup_elem(bpf_map__fd(b->skel->maps.sleep_at), &k, out))
		return -errno;
	if (out->tid == tid)
		return 0;
	return bpf_map_lookup_elem(bpf_map__fd(b->skel->maps.sleep_spill), &tid, out) ? -errno : 0;
}

int lt_bpf_poll(struct lt_bpf *b, int timeout_ms)
{
	if (timeout_ms >= 0) {
		/* woken by a forced wake-up or the timeout: the drain below
		 * collects the events of every ring */
		struct epoll_event ev[2];
		if (epoll_wait(b->epfd, ev, 2, timeout_ms) < 0 && errno != EINTR)
			return -errno;
	}
	int m = ring_buffer__consume(b->rb);
	if (m == -EINTR)
		m = 0;
	if (m < 0 || !b->fbs)
		return m;
	/* the units: every record once the programs are detached, else those
	 * a margin older than now (fbstream.h) */
	uint64_t upto = UINT64_MAX;
	if (!b->detached) {
		struct timespec t;
		clock_gettime(CLOCK_BOOTTIME, &t);
		upto = (uint64_t)t.tv_sec * 1000000000ull + (uint64_t)t.tv_nsec - LT_FBS_MARGIN_NS;
	}
	long k = lt_fbs_drain(b->fbs, upto, b->ev_fn, b->ev_ctx);
	return k < 0 ? (int)k : m + (int)k;
}

int lt_bpf_read_lost(struct lt_bpf *b, uint64_t *out)
{
	int fd = bpf_map__fd(b->skel->maps.lost);
	for (uint32_t k = 0; k < LT_EV_MAX; k++) {
		if (bpf_map_lookup_elem(fd, &k, b->lost_tmp))
			return -errno;
		for (int c = 0; c < b->ncpus; c++)
			out[(size_t)c * LT_EV_MAX + k] += b->lost_tmp[c];
	}
	return 0;
}

int lt_bpf_read_wcopy(struct lt_bpf *b, uint64_t *out)
{
	int fd = bpf_map__fd(b->skel->maps.wcopy_count);
	for (uint32_t k = 0; k < LT_WCOPY_MAX; k++) {
		out[k] = 0;
		if (bpf_map_lookup_elem(fd, &k, b->lost_tmp))
			return -errno;
		for (int c = 0; c < b->ncpus; c++)
			out[k] += b->lost_tmp[c];
	}
	return 0;
}

int lt_bpf_fb_heads(struct lt_bpf *b, uint64_t *heads, uint64_t *records)
{
	uint32_t k = 0;
	size_t stride = FB_CPU_STRIDE;
	uint8_t *v = malloc((size_t)b->ncpus * stride);
	if (!v)
		return -ENOMEM;
	if (bpf_map_lookup_elem(bpf_map__fd(b->skel->maps.fb_cpu), &k, v)) {
		int e = -errno;
		free(v);
		return e;
	}
	for (int c = 0; c < b->ncpus; c++) {
		const struct lt_fb_cpu *fc = (const void *)(v + (size_t)c * stride);
		heads[c] = fc->head;
		if (records)
			records[c] = fc->records;
	}
	free(v);
	return 0;
}

int lt_bpf_fb_progress(struct lt_bpf *b, uint64_t *last, uint64_t *last_lock, uint64_t *events)
{
	uint32_t k = 0;
	struct lt_fb_progress *p = calloc((size_t)b->ncpus, sizeof(*p));
	if (!p)
		return -ENOMEM;
	if (bpf_map_lookup_elem(bpf_map__fd(b->skel->maps.fb_progress), &k, p)) {
		int e = -errno;
		free(p);
		return e;
	}
	*last = *last_lock = *events = 0;
	for (int c = 0; c < b->ncpus; c++) {
		if (p[c].last_progress > *last)
			*last = p[c].last_progress;
		if (p[c].last_lock_progress > *last_lock)
			*last_lock = p[c].last_lock_progress;
		*events += p[c].events;
	}
	free(p);
	return 0;
}

int lt_bpf_fb_threads(struct lt_bpf *b, uint32_t **tids, struct lt_fb_thread **t, size_t *n)
{
	int fd = bpf_map__fd(b->skel->maps.fb_threads);
	size_t cap = 64, k = 0;
	uint32_t key, next, *kv = malloc(cap * sizeof(*kv));
	struct lt_fb_thread *tv = malloc(cap * sizeof(*tv));
	int r = 0;

	if (!kv || !tv) {
		r = -ENOMEM;
		goto out;
	}
	for (int first = 1; !bpf_map_get_next_key(fd, first ? NULL : &key, &next); first = 0) {
		key = next;
		if (k == cap) {
			/* kv and tv share the capacity (tv's are the larger) */
			cap = lt_grow_cap(cap, k + 1, sizeof(*tv), 64);
			uint32_t *nk = cap ? realloc(kv, cap * sizeof(*kv)) : NULL;
			if (nk)
				kv = nk;
			struct lt_fb_thread *nt = cap ? realloc(tv, cap * sizeof(*tv)) : NULL;
			if (nt)
				tv = nt;
			if (!nk || !nt) {
				r = -ENOMEM;
				goto out;
			}
		}
		if (bpf_map_lookup_elem(fd, &key, &tv[k]))
			continue; /* deleted meanwhile (its thread exited) */
		kv[k++] = key;
	}
out:
	if (r) {
		free(kv);
		free(tv);
		kv = NULL;
		tv = NULL;
		k = 0;
	}
	*tids = kv;
	*t = tv;
	*n = k;
	return r;
}

int lt_bpf_fb_seed(struct lt_bpf *b, uint32_t tid, const struct lt_fb_thread *t)
{
	if (bpf_map_update_elem(bpf_map__fd(b->skel->maps.fb_threads), &tid, t, BPF_NOEXIST) &&
	    errno != EEXIST)
		return -errno;
	return 0;
}

void lt_bpf_detach(struct lt_bpf *b)
{
	if (b->skel)
		locktrace_bpf__detach(b->skel);
	b->detached = true;
}

void lt_bpf_destroy(struct lt_bpf *b)
{
	ring_buffer__free(b->rb);
	b->rb = NULL;
	if (b->epfd > 0)
		close(b->epfd);
	b->epfd = 0;
	if (b->fb_units)
		munmap((void *)b->fb_units, b->fb_maplen);
	b->fb_units = NULL;
	if (b->fb_tails)
		munmap(b->fb_tails, b->tails_maplen);
	b->fb_tails = NULL;
	if (b->fbs) {
		lt_fbs_free(b->fbs);
		free(b->fbs);
	}
	b->fbs = NULL;
	locktrace_bpf__destroy(b->skel);
	b->skel = NULL;
	free(b->lost_tmp);
	b->lost_tmp = NULL;
}
