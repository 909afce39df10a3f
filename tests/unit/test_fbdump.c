/* Unit tests of the flight recorder's dump reader (src/record/fbdump.c)
 * and of the stall rule on the state the BPF programs keep
 * (lt_stall_load), on synthetic unit arrays and thread tables with known
 * answers. */
#include <criterion/criterion.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include "lt_events.h"
#include "fbdump.h"
#include "stall.h"
#include "locktrace/calls.h"
#include "locktrace/flightbuf.h"

#define S(x) ((uint64_t)(x) * 1000000000ull)

/* Writes len bytes at rec as record u (its first unit's number) of cpu c,
 * as the BPF side does: each unit's tag, then its data, the first unit's
 * length last. */
static void put_bytes(struct lt_fb_unit *units, uint32_t nunits, unsigned c, uint64_t u,
		      const void *rec, uint32_t len)
{
	struct lt_fb_unit *base = units + (size_t)c * nunits;
	uint32_t k = LT_FB_UNITS(len);
	for (uint32_t i = 0; i < k; i++) {
		struct lt_fb_unit *un = &base[(u + i) & (nunits - 1)];
		uint32_t n = len - i * LT_FB_UDATA;
		un->tag = LT_FB_TAG(u, 0);
		memset(un->data, 0xee, sizeof(un->data));
		memcpy(un->data, (const uint8_t *)rec + i * LT_FB_UDATA, n < LT_FB_UDATA ? n : LT_FB_UDATA);
	}
	base[u & (nunits - 1)].tag = LT_FB_TAG(u, len);
}

/* Writes an event of kind (a switch: 2 units, a wake-up: 1) as record u
 * of cpu c, its tid saying (cpu, u), stamped ts.  The next record's
 * number. */
static uint64_t put(struct lt_fb_unit *units, uint32_t nunits, unsigned c, uint64_t u, uint64_t ts,
		    uint8_t kind)
{
	struct lt_event e = lt_ev(ts, c * 1000000 + (uint32_t)u, (uint16_t)c, kind);
	uint32_t len = (uint32_t)lt_record_size(kind);
	put_bytes(units, nunits, c, u, &e, len);
	return u + LT_FB_UNITS(len);
}

static uint32_t tid_at(const struct lt_fb_dump *d, size_t i)
{
	struct lt_ev_hdr h;
	memcpy(&h, lt_fb_data(d, i), sizeof(h));
	return h.tid;
}

Test(fbdump, merges_cpus_by_time_and_counts_what_was_overwritten)
{
	enum { NU = 8 };
	struct lt_fb_unit *units = calloc(2 * NU, sizeof(*units));
	struct lt_fb_dump d;
	uint64_t u0 = 0, u1 = 0;

	/* cpu 0 wrote 3 switches (2 units each) at even times 100..104;
	 * cpu 1 wrote 10 switches at odd times 101..119, then a wake-up (1
	 * unit) at 121: its 8 units hold the switches at units 14, 16, 18
	 * and the wake-up at 20, which wrote over the first half of the
	 * switch at 12 (unit 13, its second half, is a remnant) */
	for (uint64_t i = 0; i < 3; i++)
		u0 = put(units, NU, 0, u0, 100 + 2 * i, LT_EV_SWITCH);
	for (uint64_t i = 0; i < 10; i++)
		u1 = put(units, NU, 1, u1, 100 + 2 * i + 1, LT_EV_SWITCH);
	u1 = put(units, NU, 1, u1, 121, LT_EV_WAKING);
	cr_assert_eq(u0, 6);
	cr_assert_eq(u1, 21);
	uint64_t heads[2] = { u0, u1 }, records[2] = { 3, 11 };
	cr_assert_eq(lt_fb_collect(&d, units, 2, NU, heads, records), 0);
	cr_assert_eq(d.written, 14);
	cr_assert_eq(d.overwritten, 7);
	cr_assert_eq(d.cpu_overwritten[0], 0);
	cr_assert_eq(d.cpu_overwritten[1], 7);
	cr_assert_eq(d.cpu_written[1], 11);
	/* cpu 1 kept 14..20 (ts 115..121); what it wrote before is gone, so
	 * the dump begins at the first of its records that is certainly
	 * whole behind it (117, the one after its first kept: the record
	 * claimed just before that one may have been an interrupt's, stamped
	 * after it); cpu 0's three (ts 100..104) and cpu 1's 115 are before
	 * that: left out, not overwritten */
	cr_assert_eq(d.start_ts, 117);
	cr_assert_eq(d.before_start, 4);
	cr_assert_eq(d.n, 3);
	uint32_t want[3] = { 1000016, 1000018, 1000020 };
	for (size_t i = 0; i < d.n; i++) {
		cr_assert_eq(tid_at(&d, i), want[i], "record %zu: tid %u", i, tid_at(&d, i));
		if (i)
			cr_assert_geq(d.ent[i].ts, d.ent[i - 1].ts);
	}
	cr_assert_eq(d.ent[2].len, lt_record_size(LT_EV_WAKING));
	cr_assert_eq(d.ent[1].len, lt_record_size(LT_EV_SWITCH));
	cr_assert_eq(d.ent[1].seq, 18);
	lt_fb_dump_free(&d);
	free(units);
}

Test(fbdump, interleaved_times_and_ties_sort_by_cpu_then_number)
{
	enum { NU = 4 };
	struct lt_fb_unit *units = calloc(3 * NU, sizeof(*units));
	struct lt_fb_dump d;

	/* same times on every cpu; cpu 2 out of order within itself (a
	 * program run from an interrupt claimed units first) */
	put(units, NU, 0, 0, 10, LT_EV_WAKING);
	put(units, NU, 0, 1, 20, LT_EV_WAKING);
	put(units, NU, 1, 0, 10, LT_EV_WAKING);
	put(units, NU, 1, 1, 15, LT_EV_WAKING);
	put(units, NU, 2, 0, 20, LT_EV_WAKING);
	put(units, NU, 2, 1, 5, LT_EV_WAKING);
	uint64_t heads[3] = { 2, 2, 2 }, records[3] = { 2, 2, 2 };
	cr_assert_eq(lt_fb_collect(&d, units, 3, NU, heads, records), 0);
	cr_assert_eq(d.n, 6);
	cr_assert_eq(d.overwritten, 0);
	uint32_t want[6] = { 2000001, 0, 1000000, 1000001, 1, 2000000 };
	for (size_t i = 0; i < 6; i++)
		cr_assert_eq(tid_at(&d, i), want[i], "record %zu: tid %u, want %u", i, tid_at(&d, i),
			     want[i]);
	lt_fb_dump_free(&d);
	free(units);
}

Test(fbdump, torn_and_stale_records_are_not_kept_and_are_counted)
{
	enum { NU = 8 };
	struct lt_fb_unit *units = calloc(NU, sizeof(*units));
	struct lt_fb_dump d;
	uint64_t u = 0;

	for (uint64_t i = 0; i < 10; i++)
		u = put(units, NU, 0, u, 1000 + i, LT_EV_SWITCH);
	/* head 20: the switches at units 12, 14, 16, 18 are the candidates.
	 * 18 is being written (its first unit has no length yet); the
	 * second unit of 14 was claimed by a newer record (unit 23) whose
	 * writer has tagged it; 12 has a bad length */
	units[18 % NU].tag = LT_FB_TAG(18, 0);
	units[15 % NU].tag = LT_FB_TAG(23, 0);
	units[12 % NU].tag = LT_FB_TAG(12, LT_FB_MAXREC + 8);
	uint64_t heads[1] = { 20 }, records[1] = { 10 };
	cr_assert_eq(lt_fb_collect(&d, units, 1, NU, heads, records), 0);
	cr_assert_eq(d.n, 1);
	cr_assert_eq(tid_at(&d, 0), 16);
	cr_assert_eq(d.written, 10);
	cr_assert_eq(d.overwritten, 9);
	lt_fb_dump_free(&d);

	/* a record claimed after the heads were read (its units beyond the
	 * head read) is not there yet */
	heads[0] = 17;
	cr_assert_eq(lt_fb_collect(&d, units, 1, NU, heads, records), 0);
	cr_assert_eq(d.n, 0);
	lt_fb_dump_free(&d);

	/* nothing written at all */
	uint64_t zero[1] = { 0 };
	cr_assert_eq(lt_fb_collect(&d, units, 1, NU, zero, zero), 0);
	cr_assert_eq(d.n, 0);
	cr_assert_eq(d.written, 0);
	cr_assert_eq(d.overwritten, 0);
	lt_fb_dump_free(&d);
	cr_assert_eq(lt_fb_collect(&d, units, 1, 0, zero, zero), -EINVAL);
	cr_assert_eq(lt_fb_collect(&d, units, 1, 6, zero, zero), -EINVAL, "not a power of two");
	free(units);
}

Test(fbdump, a_call_and_its_switch_stay_one_record_across_the_wrap)
{
	enum { NU = 4 };
	struct lt_fb_unit *units = calloc(NU, sizeof(*units));
	struct lt_fb_dump d;
	struct lt_event f = lt_ev_futex(500, 7, 0, 0x80, 0x1000, 0, -1, 0);
	struct lt_event sw = lt_ev(500, 7, 0, LT_EV_SWITCH);
	size_t a = lt_record_size(LT_EV_FUTEX_ENTER), b = lt_record_size(LT_EV_SWITCH);
	uint8_t rec[LT_FB_MAXREC];

	f.h.flags = LT_F_AT_SLEEP;
	cr_assert_leq(a + b, LT_FB_MAXREC);
	cr_assert_eq(LT_FB_UNITS(a + b), 3);
	memcpy(rec, &f, a);
	memcpy(rec + a, &sw, b);
	/* wake-ups at units 0 and 1, then the call and its switch at units
	 * 2..4: positions 2, 3 and 0 (over the first wake-up) */
	put(units, NU, 0, 0, 400, LT_EV_WAKING);
	put(units, NU, 0, 1, 450, LT_EV_WAKING);
	put_bytes(units, NU, 0, 2, rec, (uint32_t)(a + b));
	uint64_t heads[1] = { 5 }, records[1] = { 3 };
	cr_assert_eq(lt_fb_collect(&d, units, 1, NU, heads, records), 0);
	cr_assert_eq(d.overwritten, 1);
	/* the first wake-up kept (450) is before where the dump begins
	 * (the_dump_begins_where_every_cpus_records_meet) */
	cr_assert_eq(d.start_ts, 500);
	cr_assert_eq(d.before_start, 1);
	cr_assert_eq(d.n, 1);
	cr_assert_eq(d.ent[0].len, a + b);
	cr_assert_eq(d.ent[0].seq, 2);
	cr_assert_eq(memcmp(lt_fb_data(&d, 0), rec, a + b), 0);
	lt_fb_dump_free(&d);
	free(units);
}

/* lt_fb_heads_fn of the test: the heads the writers reached during the copy */
static int heads_later(void *ctx, uint64_t *heads)
{
	memcpy(heads, ctx, 2 * sizeof(*heads));
	return 0;
}

Test(fbdump, the_dump_begins_where_every_cpus_records_meet)
{
	enum { NU = 8 };
	struct lt_fb_unit *units = calloc(2 * NU, sizeof(*units));
	struct lt_fb_dump d;
	uint64_t u0 = 0, u1 = 0;

	/* cpu 0, busy: 12 wake-ups at 200..211 (units 0..11); its units keep
	 * 4..11.  Unit 5 is stamped 203: a record that the one at unit 4
	 * (204, from an interrupt) interrupted after reading its time, and
	 * that was claimed after it.  cpu 1, quiet: 100, 150, 206, 209, all
	 * kept.  Before cpu 0's kept records begin, its events are gone and
	 * cpu 1's are not: a thread that left cpu 1 at 150 and ran on cpu 0
	 * would be seen acting there without the switch that put it there.
	 * What cpu 0 lost was claimed before unit 4, so stamped before unit
	 * 4's claim, which is before the first record claimed after it with
	 * a later time (206: unit 5 holds 203): the dump begins there. */
	for (uint64_t i = 0; i < 12; i++)
		u0 = put(units, NU, 0, u0, i == 5 ? 203 : 200 + i, LT_EV_WAKING);
	u1 = put(units, NU, 1, u1, 100, LT_EV_WAKING);
	u1 = put(units, NU, 1, u1, 150, LT_EV_WAKING);
	u1 = put(units, NU, 1, u1, 206, LT_EV_WAKING);
	u1 = put(units, NU, 1, u1, 209, LT_EV_WAKING);
	uint64_t heads[2] = { u0, u1 }, records[2] = { 12, 4 };
	cr_assert_eq(lt_fb_collect(&d, units, 2, NU, heads, records), 0);
	cr_assert_eq(d.overwritten, 4);
	cr_assert_eq(d.start_ts, 206);
	/* cpu 0's 204 and 203, cpu 1's 100 and 150 */
	cr_assert_eq(d.before_start, 4);
	uint32_t want[] = { 6, 1000002, 7, 8, 9, 1000003, 10, 11 };
	cr_assert_eq(d.n, sizeof(want) / sizeof(want[0]));
	for (size_t i = 0; i < d.n; i++)
		cr_assert_eq(tid_at(&d, i), want[i], "record %zu: tid %u, want %u", i, tid_at(&d, i),
			     want[i]);
	lt_fb_dump_free(&d);

	/* the writers went on during the copy: cpu 0 claimed 2 more units,
	 * which may have written over units 4 and 5 before they were read.
	 * Both were read whole (kept, no gap before unit 6): the start is as
	 * before */
	uint64_t later[2] = { u0 + 2, u1 };
	cr_assert_eq(lt_fb_collect_live(&d, units, 2, NU, heads, records, heads_later, later), 0);
	cr_assert_eq(d.start_ts, 206);
	lt_fb_dump_free(&d);
	/* unit 5 was written over before it was read (its tag a newer
	 * record's): the first record certainly read after everything before
	 * it is unit 6 (206), the dump begins after it, at 207 */
	units[5].tag = LT_FB_TAG(13, 0);
	cr_assert_eq(lt_fb_collect_live(&d, units, 2, NU, heads, records, heads_later, later), 0);
	cr_assert_eq(d.start_ts, 207);
	cr_assert_eq(d.n, 6); /* 207..211; 209 on cpu 1 */
	cr_assert_eq(tid_at(&d, 0), 7);
	lt_fb_dump_free(&d);
	/* the same gap above where the writers got to (no units claimed
	 * during the copy): a record lost in the middle (two records claimed
	 * the same units: flightbuf.bpf.h), counted as overwritten, not a
	 * cut: the start is as before */
	cr_assert_eq(lt_fb_collect(&d, units, 2, NU, heads, records), 0);
	cr_assert_eq(d.start_ts, 206);
	lt_fb_dump_free(&d);

	/* no cpu's units wrapped: everything, from the first record */
	free(units);
	units = calloc(2 * NU, sizeof(*units));
	u0 = u1 = 0;
	for (uint64_t i = 0; i < 4; i++)
		u0 = put(units, NU, 0, u0, 200 + i, LT_EV_WAKING);
	u1 = put(units, NU, 1, u1, 100, LT_EV_WAKING);
	cr_assert_eq(lt_fb_collect(&d, units, 2, NU, (uint64_t[]){ u0, u1 }, (uint64_t[]){ 4, 1 }), 0);
	cr_assert_eq(d.start_ts, 0);
	cr_assert_eq(d.n, 5);
	cr_assert_eq(tid_at(&d, 0), 1000000);
	lt_fb_dump_free(&d);
	free(units);
}

Test(fbdump, units_per_cpu_follow_the_ring_size)
{
	cr_assert_eq(sizeof(struct lt_fb_unit), LT_FB_UNIT);
	cr_assert_eq(lt_fb_nunits(256ull << 20, 2), (256ull << 20) / LT_FB_UNIT / 2);
	/* rounded down to a power of two */
	cr_assert_eq(lt_fb_nunits(300ull << 20, 2), 1u << 21);
	cr_assert_eq(lt_fb_nunits(1000, 4), LT_FB_MIN_NUNITS);
	cr_assert_eq(lt_fb_nunits(64ull << 30, 1), LT_FB_MAX_NUNITS);
	/* the largest record today (a futex entry with its switch) fits;
	 * a wake-up takes one unit, a switch two */
	cr_assert_leq(lt_record_size(LT_EV_FUTEX_ENTER) + lt_record_size(LT_EV_SWITCH), LT_FB_MAXREC);
	cr_assert_leq(lt_record_size(LT_EV_FLOCK_ENTER) + lt_record_size(LT_EV_SWITCH), LT_FB_MAXREC);
	cr_assert_eq(LT_FB_UNITS(lt_record_size(LT_EV_WAKING)), 1);
	cr_assert_eq(LT_FB_UNITS(lt_record_size(LT_EV_SWITCH)), 2);
	/* a record's length fits in its tag */
	cr_assert_eq(LT_FB_TAG_LEN(LT_FB_TAG(12345, LT_FB_MAXREC)), LT_FB_MAXREC);
	cr_assert_eq(LT_FB_TAG_SEQ(LT_FB_TAG(12345, LT_FB_MAXREC)), 12345);
}

/* The stall rule on the kernel-kept state: the same verdicts as from
 * events. */
Test(fbdump, stall_rule_on_loaded_state)
{
	struct lt_stall s;
	char why[320];
	uint32_t tids[3] = { 11, 12, 13 };
	struct lt_fb_thread t[3];

	memset(t, 0, sizeof(t));
	cr_assert_eq(lt_stall_init(&s, LT_STALL_LOCKS, S(2), S(100)), 0);
	/* 11 waits on a futex since 101; 12 is in a select; 13 runs */
	t[0] = (struct lt_fb_thread){ .since = S(101), .uaddr = 0xabc, .timeout = -1,
				      .futex_op = 0 | 202u << 16, .val = 2, .state = LT_FB_TS_FUTEX_WAIT,
				      .at_sleep = 1 };
	t[1] = (struct lt_fb_thread){ .since = S(100), .timeout = -1, .state = LT_FB_TS_IOWAIT };
	/* the last lock hand-off at 101 */
	cr_assert_eq(lt_stall_load(&s, tids, t, 3, S(101), S(101), 5), 0);
	cr_assert_eq(lt_stall_check(&s, S(102), why, sizeof(why)), 0);
	cr_assert_eq(lt_stall_check(&s, S(103) + 1, why, sizeof(why)), 1);
	cr_assert(strstr(why, "tid 11 on futex 0xabc"), "%s", why);
	const struct lt_stall_thread *st = lt_stall_thread_of(&s, 11);
	cr_assert_not_null(st);
	cr_assert_eq(st->since, S(101));
	cr_assert_eq(lt_stall_waiters_in(&s, 0xab0, 0xac0), 1);

	/* a hand-off at 103 (the programs' progress moved): no stall */
	cr_assert_eq(lt_stall_load(&s, tids, t, 3, S(103), S(103), 6), 0);
	cr_assert_eq(lt_stall_check(&s, S(104), why, sizeof(why)), 0);

	/* a wait whose value is the tid of a known thread is a join */
	t[0].val = 13;
	cr_assert_eq(lt_stall_load(&s, tids, t, 3, S(101), S(101), 6), 0);
	cr_assert_eq(lt_stall_check(&s, S(104), why, sizeof(why)), 0, "join taken for a lock: %s", why);

	/* after a rearm at 110, nothing counts from before it */
	t[0].val = 2;
	lt_stall_rearm(&s, S(110));
	cr_assert_eq(lt_stall_load(&s, tids, t, 3, S(101), S(101), 6), 0);
	cr_assert_eq(lt_stall_check(&s, S(111), why, sizeof(why)), 0);
	cr_assert_eq(lt_stall_check(&s, S(112) + 1, why, sizeof(why)), 1);
	cr_assert_eq(lt_stall_thread_of(&s, 11)->since, S(110));

	/* the thread's call ended (state none): no waiter, no stall */
	t[0].state = LT_FB_TS_NONE;
	cr_assert_eq(lt_stall_load(&s, tids, t, 3, S(101), S(101), 6), 0);
	cr_assert_eq(lt_stall_check(&s, S(120), why, sizeof(why)), 0);

	/* a file-lock wait seeded at attach */
	t[0] = (struct lt_fb_thread){ .since = S(90), .timeout = -1, .futex_op = LT_FB_FILE_LOCK_OP,
				      .state = LT_FB_TS_FUTEX_WAIT, .at_sleep = 1 };
	cr_assert_eq(lt_stall_load(&s, tids, t, 1, 0, 0, 6), 0);
	cr_assert_eq(lt_stall_check(&s, S(113), why, sizeof(why)), 1);
	cr_assert(strstr(why, "file-lock"), "%s", why);

	/* a file-lock wait whose entry the programs recorded: named with its
	 * call */
	t[0] = (struct lt_fb_thread){ .since = S(90), .timeout = -1, .futex_op = LT_FB_FILE_LOCK_OP_TRACED,
				      .state = LT_FB_TS_FUTEX_WAIT, .at_sleep = 1 };
	t[0].flk = (struct lt_flock_enter){ .nr = LT_NR_FCNTL, .fd = 3, .cmd = LT_F_SETLKW, .type = 1,
					    .start = 10, .len = 3 };
	cr_assert_eq(lt_stall_load(&s, tids, t, 1, 0, 0, 6), 0);
	cr_assert_eq(lt_stall_check(&s, S(113), why, sizeof(why)), 1);
	cr_assert(strstr(why, "tid 11 in a file-lock wait, fcntl(fd 3, F_SETLKW"), "%s", why);
	lt_stall_free(&s);
}

/* Thread 21 parked since 100 s on futex 0x3000 (FUTEX_WAIT_BITSET,
 * private), as the programs' state says; the rule's window 1 s. */
static void pool_wait(struct lt_stall *s, const uint32_t *tids, struct lt_fb_thread *t)
{
	memset(t, 0, sizeof(*t));
	cr_assert_eq(lt_stall_init(s, LT_STALL_LOCKS, S(1), S(100)), 0);
	*t = (struct lt_fb_thread){ .since = S(100), .uaddr = 0x3000, .timeout = -1,
				    .futex_op = 393 | 202u << 16, .state = LT_FB_TS_FUTEX_WAIT, .at_sleep = 1 };
	cr_assert_eq(lt_stall_load(s, tids, t, 1, S(100), S(100), 0), 0);
}

/* A look's judgement (lt_stall_judge: an idle pool's wait) survives the
 * reloads of the programs' state while the thread stays in that wait, and
 * is dropped when it is in another one. */
Test(fbdump, idle_judgement_survives_reloads_of_the_same_wait)
{
	struct lt_stall s;
	char why[320];
	uint32_t tids[1] = { 21 };
	struct lt_fb_thread t[1];

	pool_wait(&s, tids, t);
	cr_assert_eq(lt_stall_check(&s, S(102), why, sizeof(why)), 1, "not judged yet");
	lt_stall_judge(&s, 21, 0x3000, 1);
	cr_assert_eq(lt_stall_load(&s, tids, t, 1, S(100), S(100), 0), 0);
	cr_assert_eq(lt_stall_check(&s, S(102), why, sizeof(why)), 0, "the same wait, judged idle: %s", why);
	/* woken and parked again at 103: judged anew */
	t[0].since = S(103);
	cr_assert_eq(lt_stall_load(&s, tids, t, 1, S(100), S(100), 0), 0);
	cr_assert_eq(lt_stall_check(&s, S(105), why, sizeof(why)), 1, "another wait");
	lt_stall_free(&s);
}

/* The programs keep a wait retried after its timeout as one wait (the
 * same since and futex: bpf/flightbuf.bpf.h's retry); a poll that falls
 * between two tries sees the thread in no call, and the judgement made on
 * the wait still holds when it is back in it.  A new wait (another since)
 * is judged anew. */
Test(fbdump, idle_judgement_survives_a_poll_between_retries_of_the_wait)
{
	struct lt_stall s;
	char why[320];
	uint32_t tids[1] = { 21 };
	struct lt_fb_thread t[1];

	pool_wait(&s, tids, t);
	lt_stall_judge(&s, 21, 0x3000, 1);
	/* out of time: between its tries */
	t[0].state = LT_FB_TS_NONE;
	t[0].retry_uaddr = 0x3000;
	t[0].retry_since = S(100);
	cr_assert_eq(lt_stall_load(&s, tids, t, 1, S(100), S(100), 0), 0);
	cr_assert_eq(lt_stall_check(&s, S(102), why, sizeof(why)), 0, "no thread in a call: %s", why);
	/* the retry: the programs kept its since */
	t[0].state = LT_FB_TS_FUTEX_WAIT;
	t[0].retry_uaddr = 0;
	cr_assert_eq(lt_stall_load(&s, tids, t, 1, S(100), S(100), 0), 0);
	cr_assert_eq(lt_stall_check(&s, S(102), why, sizeof(why)), 0, "the same wait, judged idle: %s", why);
	/* a new wait on the same futex after a successful one: judged anew */
	t[0].since = S(103);
	cr_assert_eq(lt_stall_load(&s, tids, t, 1, S(100), S(100), 0), 0);
	cr_assert_eq(lt_stall_check(&s, S(105), why, sizeof(why)), 1, "another wait");
	cr_assert(strstr(why, "tid 21"), "%s", why);
	lt_stall_free(&s);
}

/* A switch goes into the units without its comms (LT_FB_F_NO_COMM): one
 * unit, and a call written with it two.  The dump reads it back whole: the
 * flag gone, the names from /proc at the dump (this process's own for its
 * tid), the idle task named as the kernel names it, a thread gone by then
 * with the last name known of it, or none. */
Test(fbdump, a_switch_without_its_comms_is_read_back_with_the_names)
{
	enum { NU = 4 };
	struct lt_fb_unit *units = calloc(NU, sizeof(*units));
	struct lt_fb_dump d;
	struct lt_fb_comms comms = { 0 };
	struct lt_event f = lt_ev_futex(500, (uint32_t)getpid(), 0, 0x80, 0x1000, 0, -1, 0);
	struct lt_event sw = lt_ev(500, (uint32_t)getpid(), 1, LT_EV_SWITCH), ev;
	size_t a = lt_record_size(LT_EV_FUTEX_ENTER), b = LT_FB_SWITCH_SIZE;
	uint8_t rec[LT_FB_MAXREC];
	char self[LT_COMM_LEN] = "";

	cr_assert_eq(LT_FB_UNITS(b), 1);
	cr_assert_eq(LT_FB_UNITS(a + b), 2);
	FILE *cf = fopen("/proc/self/comm", "r");
	cr_assert(cf && fgets(self, sizeof(self), cf));
	fclose(cf);
	self[strcspn(self, "\n")] = 0;
	f.h.flags = LT_F_AT_SLEEP;
	sw.h.flags = LT_F_PREEMPT | LT_FB_F_NO_COMM;
	sw.sw.prev_tid = (uint32_t)getpid();
	sw.sw.next_tid = 0;
	memcpy(rec, &f, a);
	memcpy(rec + a, &sw, b);
	put_bytes(units, NU, 0, 0, rec, (uint32_t)(a + b));
	uint64_t heads[1] = { 2 }, records[1] = { 1 };
	cr_assert_eq(lt_fb_collect(&d, units, 1, NU, heads, records), 0);
	cr_assert_eq(d.n, 1);
	cr_assert_eq(d.overwritten, 0);
	const uint8_t *p = lt_fb_data(&d, 0);
	size_t size = d.ent[0].len;
	cr_assert_eq(lt_fb_event_size(p, size), a);
	cr_assert_eq(lt_fb_event(&ev, p, a, &comms), 0);
	cr_assert_eq(ev.h.kind, LT_EV_FUTEX_ENTER);
	cr_assert_eq(ev.futex.uaddr, 0x1000);
	cr_assert_eq(lt_fb_event_size(p + a, size - a), b);
	cr_assert_eq(lt_fb_event_size(p + a, b - 1), 0, "a switch cut short is not an event");
	cr_assert_eq(lt_fb_event(&ev, p + a, b, &comms), 0);
	cr_assert_eq(ev.h.kind, LT_EV_SWITCH);
	cr_assert_eq(ev.h.flags, LT_F_PREEMPT, "the flag is the units' own: %#x", ev.h.flags);
	cr_assert_str_eq(ev.sw.prev_comm, self);
	cr_assert_str_eq(ev.sw.next_comm, "swapper/1");
	/* a thread gone before the dump: no name */
	uint8_t gone[LT_FB_SWITCH_SIZE];
	sw.sw.next_tid = 0x3ffffff0; /* above pid_max's largest (2^22) */
	memcpy(gone, &sw, sizeof(gone));
	cr_assert_eq(lt_fb_event(&ev, gone, sizeof(gone), &comms), 0);
	cr_assert_str_eq(ev.sw.prev_comm, self);
	cr_assert_str_eq(ev.sw.next_comm, "");
	/* one whose name the attach or the dump's events gave (the last
	 * given counts), and which /proc does not have: that name; /proc
	 * first for one it has */
	struct lt_fb_comms known = { 0 };
	cr_assert_eq(lt_fb_comms_know(&known, 0x3ffffff0, "worker-1"), 0);
	cr_assert_eq(lt_fb_comms_know(&known, 0x3ffffff0, "a-longer-name-than-16"), 0);
	cr_assert_eq(lt_fb_comms_know(&known, (uint32_t)getpid(), "not-its-name"), 0);
	cr_assert_eq(lt_fb_event(&ev, gone, sizeof(gone), &known), 0);
	cr_assert_str_eq(ev.sw.next_comm, "a-longer-name-t");
	cr_assert_str_eq(ev.sw.prev_comm, self);
	lt_fb_comms_free(&known);
	/* a switch written whole (the streamed ring's) is read as it is */
	struct lt_event full = lt_ev(500, 9, 0, LT_EV_SWITCH);
	memcpy(full.sw.next_comm, "kept", 5);
	cr_assert_eq(lt_fb_event_size((const uint8_t *)&full, lt_record_size(LT_EV_SWITCH)),
		     lt_record_size(LT_EV_SWITCH));
	cr_assert_eq(lt_fb_event(&ev, (const uint8_t *)&full, lt_record_size(LT_EV_SWITCH), &comms), 0);
	cr_assert_str_eq(ev.sw.next_comm, "kept");
	lt_fb_comms_free(&comms);
	lt_fb_dump_free(&d);
	free(units);
}
