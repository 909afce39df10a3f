/* Every call, streamed: the collector pairs the returns the BPF side
 * writes with their entries (src/record/record_loop.c, pair_event).  The
 * BPF side writes the return of every futex, wait and file-lock call
 * whatever happened to its entry; the collector keeps a return whose
 * entry it saw, flags the thread's first one without an entry as begun
 * before tracing, and drops the others (entries lost).  Ring records are
 * fed through rec_on_sample as the ring callback does, into a trace file
 * read back. */
#include <criterion/criterion.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include "lt_test.h"
#include "record_int.h"
#include "locktrace/calls.h"
#include "locktrace/futex.h"

struct feed {
	struct collector c;
	struct lt_writer *w;
	char path[64];
	uint64_t ts;
};

static void feed_open(struct feed *f)
{
	memset(f, 0, sizeof(*f));
	strcpy(f->path, "/tmp/lt-recpair-XXXXXX");
	int fd = mkstemp(f->path);
	cr_assert_geq(fd, 0);
	cr_assert_eq(lt_writer_fd_open(&f->w, fd), 0);
	struct lt_header h = { .pid = 100 };
	cr_assert_eq(lt_writer_header(f->w, &h), 0);
	f->c.w = f->w;
	f->c.tgid = 100;
	rec_get_proc(&f->c, 100, 0, 1);
}

static void feed_ev(struct feed *f, struct lt_event *ev)
{
	uint8_t rec[sizeof(struct lt_event)] __attribute__((aligned(8)));
	size_t n = lt_record_size(ev->h.kind);
	cr_assert_neq(n, 0);
	ev->h.ts = ++f->ts;
	memcpy(rec, ev, n);
	cr_assert_eq(rec_on_sample(&f->c, rec, n), 0);
}

static void entry(struct feed *f, uint32_t tid, uint16_t nr)
{
	struct lt_event ev = { .h = { .tid = tid } };
	if (nr == LT_NR_FUTEX) {
		ev.h.kind = LT_EV_FUTEX_ENTER;
		ev.futex.nr = nr;
		ev.futex.uaddr = 0x1000;
	} else if (nr == LT_NR_PSELECT6) {
		ev.h.kind = LT_EV_WAIT_ENTER;
		ev.wait.nr = nr;
	} else if (nr == LT_NR_FLOCK) {
		ev.h.kind = LT_EV_FLOCK_ENTER;
		ev.flk.nr = nr;
		ev.flk.type = -1;
	} else {
		ev.h.kind = LT_EV_IO_ENTER;
		ev.io.nr = nr;
	}
	feed_ev(f, &ev);
}

static void ret(struct feed *f, uint32_t tid, uint16_t nr, int64_t val)
{
	struct lt_event ev = { .h = { .tid = tid, .kind = LT_EV_SYS_EXIT } };
	ev.exit.nr = nr;
	ev.exit.ret = val;
	feed_ev(f, &ev);
}

static void task(struct feed *f, uint32_t tid, uint8_t kind)
{
	struct lt_event ev = { .h = { .tid = tid, .kind = kind } };
	if (kind == LT_EV_TASK_NEW) {
		ev.tnew.tgid = 100;
		ev.tnew.parent_tid = 100;
	}
	feed_ev(f, &ev);
}

/* The trace written; its returns into exits (ret value, flags, tid). */
static size_t feed_close(struct feed *f, struct tl_trace *t, const struct lt_event **exits, size_t max)
{
	size_t n = 0;
	cr_assert_eq(lt_writer_close(f->w), 0);
	free(f->c.tids.v);
	free(f->c.tids.tg);
	rec_free_procs(&f->c);
	tl_load_ok(t, f->path);
	unlink(f->path);
	for (size_t i = 0; i < t->n; i++)
		if (t->ev[i].h.kind == LT_EV_SYS_EXIT && n < max)
			exits[n++] = &t->ev[i];
	return n;
}

Test(recpair, returns_paired_begun_before_and_lost_entries)
{
	struct feed f;
	feed_open(&f);
	/* 101 was in a futex call at attach: its first return has no entry */
	ret(&f, 101, LT_NR_FUTEX, 1);
	entry(&f, 101, LT_NR_FUTEX);
	ret(&f, 101, LT_NR_FUTEX, 2);
	/* 102: a call, then a return whose entry was lost (dropped) */
	entry(&f, 102, LT_NR_PSELECT6);
	ret(&f, 102, LT_NR_PSELECT6, 3);
	ret(&f, 102, LT_NR_FUTEX, -4);
	entry(&f, 102, LT_NR_FLOCK);
	ret(&f, 102, LT_NR_FLOCK, 5);
	/* 103 is created after attach: a return without an entry is a lost
	 * one, not a call begun before */
	task(&f, 103, LT_EV_TASK_NEW);
	ret(&f, 103, LT_NR_FUTEX, -6);
	entry(&f, 103, LT_NR_READ);
	ret(&f, 103, LT_NR_READ, 7);
	/* 104: a wait whose return was lost, then a read whose entry was
	 * lost: the read's return does not end the wait (dropped) */
	entry(&f, 104, LT_NR_PSELECT6);
	ret(&f, 104, LT_NR_READ, -8);
	entry(&f, 104, LT_NR_FUTEX);
	ret(&f, 104, LT_NR_FUTEX, 9);
	/* 105 exits in a call; a later thread of the same tid starts fresh */
	entry(&f, 105, LT_NR_FUTEX);
	task(&f, 105, LT_EV_TASK_EXIT);
	task(&f, 105, LT_EV_TASK_NEW);
	ret(&f, 105, LT_NR_FUTEX, -10);
	entry(&f, 105, LT_NR_FUTEX);
	ret(&f, 105, LT_NR_FUTEX, 11);

	struct tl_trace t;
	const struct lt_event *x[16];
	size_t n = feed_close(&f, &t, x, 16);
	int64_t want_ret[] = { 1, 2, 3, 5, 7, 9, 11 };
	uint32_t want_tid[] = { 101, 101, 102, 102, 103, 104, 105 };
	cr_assert_eq(n, 7, "%zu returns kept", n);
	for (size_t i = 0; i < n; i++) {
		cr_assert_eq(x[i]->exit.ret, want_ret[i], "return %zu: %ld", i, (long)x[i]->exit.ret);
		cr_assert_eq(x[i]->h.tid, want_tid[i]);
		cr_assert_eq(x[i]->h.flags, i == 0 ? LT_F_BEGAN_BEFORE : 0, "return %zu: flags 0x%x", i,
			     x[i]->h.flags);
	}
	/* every entry is kept */
	size_t entries = 0;
	for (size_t i = 0; i < t.n; i++)
		entries += lt_entry_nr(&t.ev[i]) != 0xffff;
	cr_assert_eq(entries, 8);
	tl_free(&t);
}

/* The programs are detached one by one once the trace's end is set
 * (rec_drain: c->end_ns): the records written after it, of some programs
 * only (a switch without the calls around it), are left out and counted;
 * those written before it still come through. */
Test(recpair, records_after_the_traces_end_are_left_out)
{
	struct feed f;
	feed_open(&f);
	entry(&f, 101, LT_NR_READ);
	ret(&f, 101, LT_NR_READ, 1);	 /* ts 2 */
	f.c.end_ns = f.ts + 2;		 /* detached from here on */
	entry(&f, 101, LT_NR_READ);	 /* ts 3: before the end */
	ret(&f, 101, LT_NR_READ, 2);	 /* ts 4: at it */
	entry(&f, 101, LT_NR_READ);	 /* ts 5: after */
	task(&f, 102, LT_EV_TASK_NEW);	 /* ts 6: after */
	cr_assert_eq(f.c.after_end, 2);
	f.c.end_ns = 0;
	struct tl_trace t;
	const struct lt_event *x[8];
	size_t n = feed_close(&f, &t, x, 8);
	cr_assert_eq(n, 2, "both returns up to the end: %zu", n);
	cr_assert_eq(x[1]->exit.ret, 2);
	size_t ios = 0, news = 0;
	for (size_t i = 0; i < t.n; i++) {
		ios += t.ev[i].h.kind == LT_EV_IO_ENTER;
		news += t.ev[i].h.kind == LT_EV_TASK_NEW;
	}
	cr_assert_eq(ios, 2);
	cr_assert_eq(news, 0);
	tl_free(&t);
}
