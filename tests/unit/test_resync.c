// SPDX-License-Identifier: MIT
/* Damage in the middle of a trace file (src/trace/tracefile.c): the reader
 * skips a damaged chunk, garbage between chunks, a damaged table section, a
 * damaged part of a large section, a malformed event, and goes on at the
 * next chunk that checks out, saying what it skipped; damage at the end is a
 * file cut short, as before; a damaged header refuses the file with a
 * reason.  Exact counts of the events read before and after the damage. */
#include <criterion/criterion.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>
#include "locktrace/tracefile.h"
#include "gen_trace.h"
#include "lt_test.h"
#include "locksyms.h"
#include "stacks.h"
#include "u64map.h"
#include "varint.h"

#define PID 1000
#define BASE 0x7f0000000000ull

static char dir[64];

static void make_dir(void)
{
	snprintf(dir, sizeof(dir), "/tmp/lt-resync-XXXXXX");
	cr_assert_not_null(mkdtemp(dir));
}

static void rm_dir(void)
{
	char cmd[128];
	snprintf(cmd, sizeof(cmd), "rm -rf %s", dir);
	if (system(cmd))
		fprintf(stderr, "could not remove %s\n", dir);
}

TestSuite(resync, .init = make_dir, .fini = rm_dir);

static uint8_t *slurp(const char *path, size_t *len)
{
	FILE *f = fopen(path, "rb");
	cr_assert_not_null(f);
	fseek(f, 0, SEEK_END);
	*len = (size_t)ftell(f);
	rewind(f);
	uint8_t *d = malloc(*len + 1);
	cr_assert_not_null(d);
	cr_assert_eq(fread(d, 1, *len, f), *len);
	fclose(f);
	return d;
}

static void spill(const char *path, const uint8_t *d, size_t len)
{
	FILE *f = fopen(path, "wb");
	cr_assert_not_null(f);
	cr_assert_eq(fwrite(d, 1, len, f), len);
	cr_assert_eq(fclose(f), 0);
}

/* The chunked trace at dir/name, and its layout. */
static void gen(char *path, size_t cap, const char *name, struct lt_gen_layout *lay)
{
	snprintf(path, cap, "%s/%s", dir, name);
	cr_assert_eq(lt_gen_chunked_trace(path, lay), 0);
}

/* Flips a byte of path at off. */
static void flip(const char *path, uint64_t off)
{
	size_t len;
	uint8_t *d = slurp(path, &len);
	cr_assert_lt(off, len);
	d[off] ^= 0x5a;
	spill(path, d, len);
	free(d);
}

/* Inserts n bytes of garbage into path at off. */
static void insert_garbage(const char *path, uint64_t off, const uint8_t *g, size_t n)
{
	size_t len;
	uint8_t *d = slurp(path, &len);
	uint8_t *o = malloc(len + n);
	memcpy(o, d, off);
	memcpy(o + off, g, n);
	memcpy(o + off + n, d + off, len - off);
	spill(path, o, len + n);
	free(o);
	free(d);
}

/* Garbage that looks like chunks: a magic with an impossible length, one
 * with a sane length and a wrong CRC, and random bytes. */
static size_t garbage(uint8_t *g, size_t n)
{
	uint64_t x = 0x9e3779b97f4a7c15ull;
	for (size_t i = 0; i < n; i++) {
		x ^= x << 13, x ^= x >> 7, x ^= x << 17;
		g[i] = (uint8_t)x;
	}
	memcpy(g + 10, "LTCK\x02\0\0\0\xff\xff\xff\xff", 12);
	memcpy(g + 100, "LTCK\x02\0\0\0\x20\0\0\0\x12\x34\x56\x78", 16);
	return n;
}

struct got {
	unsigned events, in_part[LT_GEN_PARTS];
	unsigned snapshots, symbols;
};

/* Reads path to the end, counting the events by the part of the file whose
 * times they have. */
static void read_all(const char *path, struct lt_reader *r, const struct lt_gen_layout *lay,
		     struct got *g)
{
	char err[512];
	struct lt_item it;

	memset(g, 0, sizeof(*g));
	cr_assert_eq(lt_reader_open(r, path, err, sizeof(err)), 0, "%s", err);
	while (lt_reader_next(r, &it) > 0) {
		if (it.type == LT_ITEM_SECTION) {
			g->snapshots += it.sec_type == LT_CHUNK_SNAPSHOT;
			g->symbols += it.sec_type == LT_CHUNK_SYMBOLS;
			continue;
		}
		g->events++;
		for (int p = 0; lay && p < LT_GEN_PARTS; p++)
			if (lay->events[p] && it.ev.h.ts >= lay->first_ts[p] && it.ev.h.ts <= lay->last_ts[p])
				g->in_part[p]++;
	}
}

/* The damage lines, one string. */
static void damage_text(const struct lt_reader *r, char *buf, size_t len)
{
	buf[0] = 0;
	lt_trace_damage_append(r, buf, len);
}

Test(resync, bad_crc_in_a_middle_chunk_costs_that_chunk_alone)
{
	char path[128], text[4096];
	struct lt_gen_layout lay;
	struct lt_reader r;
	struct got g;

	gen(path, sizeof(path), "crc.ltrace", &lay);
	read_all(path, &r, &lay, &g);
	cr_assert_eq(g.events, 27);
	cr_assert_eq(r.nskips, 0);
	cr_assert(r.clean_end);
	lt_reader_close(&r);

	/* a byte of the wakes' payload: its CRC no longer checks out */
	flip(path, lay.start[LT_GEN_WAKES] + LT_CHUNK_HDR_LEN + 7);
	read_all(path, &r, &lay, &g);
	cr_assert_eq(g.in_part[LT_GEN_WAITS], 6, "the events before the damage");
	cr_assert_eq(g.in_part[LT_GEN_WAKES], 0);
	cr_assert_eq(g.in_part[LT_GEN_FINAL], 6, "the events after the damage");
	cr_assert_eq(g.events, 12);
	cr_assert_eq(g.symbols, 3, "the SYMBOLS sections around it are read");
	cr_assert(r.clean_end, "reading went on to the END: %s", r.stop_reason);
	cr_assert_str_empty(r.stop_reason);
	cr_assert(r.have_stats);
	cr_assert_eq(r.nskips, 1);
	cr_assert_eq(r.skips[0].from, lay.start[LT_GEN_WAKES]);
	cr_assert_eq(r.skips[0].to, lay.end[LT_GEN_WAKES]);
	cr_assert_eq(r.skipped_bytes, lay.end[LT_GEN_WAKES] - lay.start[LT_GEN_WAKES]);
	cr_assert_eq(r.skips[0].chunk_type, LT_CHUNK_EVENTS);
	cr_assert(r.skips[0].have_before && r.skips[0].have_after);
	cr_assert_eq(r.skips[0].ts_before, lay.last_ts[LT_GEN_WAITS]);
	cr_assert_eq(r.skips[0].ts_after, lay.first_ts[LT_GEN_FINAL]);
	damage_text(&r, text, sizeof(text));
	char want[128];
	snprintf(want, sizeof(want), "bytes %llu..%llu (%llu bytes) skipped: damaged chunk (checksum mismatch)",
		 (unsigned long long)lay.start[LT_GEN_WAKES], (unsigned long long)lay.end[LT_GEN_WAKES],
		 (unsigned long long)(lay.end[LT_GEN_WAKES] - lay.start[LT_GEN_WAKES]));
	cr_assert(strstr(text, want), "%s", text);
	cr_assert(strstr(text, "damaged: "), "%s", text);
	cr_assert(strstr(text, "chunk type EVENTS by its header"), "%s", text);
	/* the trailer counts 3 wakes: their FUTEX_WAKE, wake-up, two returns
	 * and switch each */
	cr_assert(strstr(text, "futex 3 exit 6 switch 3 waking 3"), "%s", text);
	lt_reader_close(&r);
}

Test(resync, garbage_between_chunks_is_skipped_and_nothing_is_lost)
{
	char path[128], text[4096];
	struct lt_gen_layout lay;
	struct lt_reader r;
	struct got g;
	uint8_t junk[777];

	gen(path, sizeof(path), "garbage.ltrace", &lay);
	insert_garbage(path, lay.end[LT_GEN_WAKES], junk, garbage(junk, sizeof(junk)));
	read_all(path, &r, &lay, &g);
	cr_assert_eq(g.events, 27);
	cr_assert_eq(g.in_part[LT_GEN_FINAL], 6);
	cr_assert_eq(g.symbols, 3);
	cr_assert(r.clean_end, "%s", r.stop_reason);
	cr_assert_eq(r.nskips, 1);
	cr_assert_eq(r.skips[0].from, lay.end[LT_GEN_WAKES]);
	cr_assert_eq(r.skips[0].to, lay.end[LT_GEN_WAKES] + sizeof(junk));
	cr_assert_eq(r.skipped_bytes, sizeof(junk));
	damage_text(&r, text, sizeof(text));
	cr_assert(strstr(text, "damaged chunk (bad magic)"), "%s", text);
	cr_assert(strstr(text, "held no events the trailer counts"), "%s", text);
	lt_reader_close(&r);

	/* the first pass for the lock names goes past it too */
	struct lt_u64map names = { 0 };
	cr_assert_eq(lt_trace_symbols(path, &names, NULL), 0);
	cr_assert_str_eq(lt_u64map_get(&names, BASE + 64 * 1) ?: "(none)", "lock_1");
	cr_assert_str_eq(lt_u64map_get(&names, BASE + 64 * 3) ?: "(none)", "lock_3");
	lt_symmap_free(&names);
}

/* A SYMBOLS section damaged: the names it held are unknown, the later
 * sections' names and the events that use both are read. */
Test(resync, a_damaged_table_loses_its_entries_only)
{
	char path[128];
	struct lt_gen_layout lay;
	struct lt_reader r;
	struct got g;

	gen(path, sizeof(path), "table.ltrace", &lay);
	flip(path, lay.end[LT_GEN_SYMS_B] - 2); /* in lock_2's name */
	read_all(path, &r, &lay, &g);
	cr_assert_eq(g.events, 27, "every event is read");
	cr_assert_eq(g.symbols, 2);
	cr_assert_eq(r.nskips, 1);
	cr_assert_eq(r.skips[0].from, lay.start[LT_GEN_SYMS_B]);
	cr_assert_eq(r.skips[0].to, lay.end[LT_GEN_SYMS_B]);
	cr_assert_eq(r.skips[0].chunk_type, LT_CHUNK_SYMBOLS);
	lt_reader_close(&r);

	struct lt_u64map names = { 0 };
	cr_assert_eq(lt_trace_symbols(path, &names, NULL), 0);
	cr_assert_str_eq(lt_u64map_get(&names, BASE + 64 * 1) ?: "(none)", "lock_1");
	cr_assert_null(lt_u64map_get(&names, BASE + 64 * 2), "a name from the damaged section");
	cr_assert_str_eq(lt_u64map_get(&names, BASE + 64 * 3) ?: "(none)", "lock_3",
			 "the section after the damage is read");
	lt_symmap_free(&names);
}

/* A STACKS section damaged, then a reference to a stack it held: the
 * reference is there, its stack unknown (NULL), nothing crashes. */
Test(resync, a_reference_to_a_stack_of_a_damaged_section_is_unknown)
{
	char path[128];
	struct lt_writer *w;
	struct lt_header h = { .pid = PID, .ncpus = 1 };
	struct lt_sframe fr = { .pc = 0x401000, .func = "f", .module = "m" };
	uint64_t at[3], end[3];

	snprintf(path, sizeof(path), "%s/stacks.ltrace", dir);
	cr_assert_eq(lt_writer_open(&w, path, 0), 0);
	cr_assert_eq(lt_writer_header(w, &h), 0);
	for (uint32_t k = 0; k < 3; k++) {
		struct lt_stackbuf b = { 0 };
		if (k < 2) {
			struct lt_stack s = { .id = 7 + k, .tgid = PID, .nframes = 1, .frames = &fr };
			lt_stacks_put_stack(&b, &s);
		}
		/* section 0: stack 7 and a wait on it; 1: stack 8 alone; 2: a
		 * wait on stack 8 */
		struct lt_stack_ref ref = { .tid = PID + 1 + (int32_t)k, .ts = 5000 + k, .stack_id = k ? 8 : 7,
					    .role = LT_STACK_WAITER };
		if (k != 1)
			lt_stacks_put_ref(&b, &ref);
		at[k] = lt_writer_bytes(w);
		cr_assert_eq(lt_writer_section(w, LT_CHUNK_STACKS, b.p, b.len), 0);
		end[k] = lt_writer_bytes(w);
		lt_stackbuf_free(&b);
	}
	cr_assert_eq(lt_writer_close(w), 0);
	flip(path, end[1] - 3);

	struct lt_stacktab t = { 0 };
	cr_assert_eq(lt_trace_stacks(path, &t), 0);
	cr_assert_not_null(lt_stacktab_find(&t, PID + 1, 5000, LT_STACK_WAITER), "before the damage");
	const struct lt_stack_ref *ref = lt_stacktab_find_ref(&t, PID + 3, 5002, LT_STACK_WAITER);
	cr_assert_not_null(ref, "the reference after the damage is read");
	cr_assert_eq(ref->stack_id, 8);
	cr_assert_null(lt_stacktab_get(&t, 8), "its stack was in the damaged section");
	cr_assert_null(lt_stacktab_find(&t, PID + 3, 5002, LT_STACK_WAITER));
	lt_stacktab_free(&t);
	(void)at;
}

/* Damage at the end is a file cut short, as it always was: no later chunk
 * checks out, so the reader stops there and says where. */
Test(resync, damage_in_the_last_chunk_is_a_cut)
{
	char path[128];
	struct lt_gen_layout lay;
	struct lt_reader r;
	struct got g;

	gen(path, sizeof(path), "cut.ltrace", &lay);
	cr_assert_eq(truncate(path, (off_t)lay.end[LT_GEN_FINAL] - 5), 0);
	read_all(path, &r, &lay, &g);
	cr_assert_eq(g.events, 21, "the chunks before the cut");
	cr_assert_eq(g.in_part[LT_GEN_FINAL], 0);
	cr_assert_eq(r.nskips, 0, "a cut is not a skip");
	cr_assert_not(r.clean_end);
	cr_assert(strstr(r.stop_reason, "truncated chunk"), "%s", r.stop_reason);
	cr_assert_eq(r.stop_offset, lay.start[LT_GEN_FINAL]);
	lt_reader_close(&r);

	/* damage in the middle and a cut: both said */
	gen(path, sizeof(path), "cut2.ltrace", &lay);
	flip(path, lay.start[LT_GEN_WAITS] + LT_CHUNK_HDR_LEN + 3);
	cr_assert_eq(truncate(path, (off_t)lay.end[LT_GEN_FINAL] - 5), 0);
	read_all(path, &r, &lay, &g);
	cr_assert_eq(g.events, 15, "the wakes, between the damage and the cut");
	cr_assert_eq(g.in_part[LT_GEN_WAKES], 15);
	cr_assert_eq(r.nskips, 1);
	cr_assert_not(r.clean_end);
	cr_assert_eq(r.stop_offset, lay.start[LT_GEN_FINAL]);
	lt_reader_close(&r);

	/* the END chunk itself damaged: every event, no clean end */
	gen(path, sizeof(path), "end.ltrace", &lay);
	flip(path, lay.start[LT_GEN_END] + 13);
	read_all(path, &r, &lay, &g);
	cr_assert_eq(g.events, 27);
	cr_assert_eq(r.nskips, 0);
	cr_assert_not(r.clean_end);
	cr_assert(strstr(r.stop_reason, "damaged chunk (checksum mismatch)"), "%s", r.stop_reason);
	cr_assert_eq(r.stop_offset, lay.start[LT_GEN_END]);
	lt_reader_close(&r);
}

/* A damaged header refuses the file, saying why (the events' tids are
 * relative to its pid); garbage before an intact header is skipped. */
Test(resync, damage_in_the_header)
{
	char path[128], err[512];
	struct lt_gen_layout lay;
	struct lt_reader r;
	struct got g;

	gen(path, sizeof(path), "hdr.ltrace", &lay);
	flip(path, LT_PREAMBLE_LEN + LT_CHUNK_HDR_LEN + 2);
	cr_assert_eq(lt_reader_open(&r, path, err, sizeof(err)), -1);
	cr_assert(strstr(err, "its header chunk is damaged (damaged chunk (checksum mismatch) at offset 16)"),
		  "%s", err);
	cr_assert(strstr(err, "relative to the header's pid"), "%s", err);

	uint8_t junk[300];
	gen(path, sizeof(path), "hdr2.ltrace", &lay);
	insert_garbage(path, LT_PREAMBLE_LEN, junk, garbage(junk, sizeof(junk)));
	read_all(path, &r, NULL, &g);
	cr_assert_eq(r.hdr.pid, PID);
	cr_assert_eq(r.hdr.nthreads, 4);
	cr_assert_eq(g.events, 27);
	cr_assert_eq(r.nskips, 1);
	cr_assert_eq(r.skips[0].from, LT_PREAMBLE_LEN);
	cr_assert_eq(r.skips[0].to, LT_PREAMBLE_LEN + sizeof(junk));
	cr_assert(r.clean_end);
	lt_reader_close(&r);
}

/* A section of several chunks of which one part is damaged: it is dropped
 * whole (a part of a snapshot is never handed out), the events on both
 * sides are read, and every byte of it is said skipped. */
Test(resync, a_damaged_part_drops_its_section_whole)
{
	char path[128];
	struct lt_writer *w;
	struct lt_header h = { .pid = PID, .ncpus = 1 };
	const size_t big = 10u << 20; /* CONT, CONT, SNAPSHOT */
	char *snap = malloc(big);
	cr_assert_not_null(snap);
	memset(snap, ' ', big);
	snap[0] = '{';
	snap[big - 1] = '}';

	/* damage the first CONT part, the second, the last part; 3: bytes cut
	 * out of the first part (the damage is shorter than a part) */
	for (int part = 0; part < 4; part++) {
		uint64_t s0 = 0, s1 = 0;
		snprintf(path, sizeof(path), "%s/big%d.ltrace", dir, part);
		cr_assert_eq(lt_writer_open(&w, path, 0), 0);
		cr_assert_eq(lt_writer_header(w, &h), 0);
		for (int k = 0; k < 2; k++) {
			if (k == 1) {
				s0 = lt_writer_bytes(w);
				cr_assert_eq(lt_writer_section(w, LT_CHUNK_SNAPSHOT, snap, big), 0);
				s1 = lt_writer_bytes(w);
			}
			for (int e = 0; e < 5; e++) {
				struct lt_event ev = { .h = { .kind = LT_EV_TASK_EXIT, .tid = PID + 1, .ts = 1000 + e } };
				cr_assert_eq(lt_writer_event(w, &ev), 0);
			}
			cr_assert_eq(lt_writer_flush(w), 0);
		}
		cr_assert_eq(lt_writer_close(w), 0);
		uint64_t shrink = 0;
		if (part < 3) {
			flip(path, s0 + (uint64_t)part * (LT_CHUNK_HDR_LEN + LT_CHUNK_MAX) + LT_CHUNK_HDR_LEN + 100);
		} else {
			size_t len;
			uint8_t *d = slurp(path, &len);
			shrink = 1000;
			memmove(d + s0 + 5000, d + s0 + 5000 + shrink, len - s0 - 5000 - shrink);
			spill(path, d, len - shrink);
			free(d);
		}

		struct lt_reader r;
		struct got g;
		read_all(path, &r, NULL, &g);
		cr_assert_eq(g.events, 10, "part %d: the events on both sides", part);
		cr_assert_eq(g.snapshots, 0, "part %d: a part of a section was handed out", part);
		cr_assert(r.clean_end, "part %d: %s", part, r.stop_reason);
		cr_assert_eq(r.skipped_bytes, s1 - s0 - shrink, "part %d: the whole section is said skipped", part);
		for (uint32_t k = 0; k < r.nskips; k++)
			cr_log_info("part %d: skip %llu..%llu %s", part, (unsigned long long)r.skips[k].from,
				    (unsigned long long)r.skips[k].to, r.skips[k].why);
		cr_assert_eq(r.skips[0].from, s0, "part %d", part);
		cr_assert_eq(r.skips[r.nskips - 1].to, s1 - shrink);
		lt_reader_close(&r);
	}
	/* a section of two parts whose first, a CONT, is damaged whole: its
	 * last chunk alone checks out, and may not be handed out alone */
	{
		const size_t two = (6u << 20);
		uint64_t s0 = 0, s1 = 0;
		snprintf(path, sizeof(path), "%s/two.ltrace", dir);
		cr_assert_eq(lt_writer_open(&w, path, 0), 0);
		cr_assert_eq(lt_writer_header(w, &h), 0);
		s0 = lt_writer_bytes(w);
		snap[two - 1] = '}';
		cr_assert_eq(lt_writer_section(w, LT_CHUNK_SNAPSHOT, snap, two), 0);
		s1 = lt_writer_bytes(w);
		struct lt_event ev = { .h = { .kind = LT_EV_TASK_EXIT, .tid = PID + 1, .ts = 1000 } };
		cr_assert_eq(lt_writer_event(w, &ev), 0);
		cr_assert_eq(lt_writer_close(w), 0);
		flip(path, s0 + 2); /* the CONT's magic: no chunk starts there */

		struct lt_reader r;
		struct got g;
		read_all(path, &r, NULL, &g);
		cr_assert_eq(g.events, 1);
		cr_assert_eq(g.snapshots, 0, "the last part of a section was handed out alone");
		cr_assert_eq(r.skipped_bytes, s1 - s0);
		cr_assert_eq(r.nskips, 2);
		cr_assert(strstr(r.skips[1].why, "may hold its first parts"), "%s", r.skips[1].why);
		cr_assert(r.clean_end, "%s", r.stop_reason);
		lt_reader_close(&r);
	}
	free(snap);
}

/* An events chunk whose CRC checks out but whose event cannot be decoded
 * (a kind this reader does not know): the events before it in the chunk
 * and the chunks after it are read; the chunk's rest is said skipped. */
Test(resync, a_malformed_event_costs_the_rest_of_its_chunk)
{
	char path[128];
	struct lt_writer *w;
	struct lt_header h = { .pid = PID, .ncpus = 1 };
	uint8_t bad[32], *p = lt_put_varint(bad, 2000);
	uint64_t at = 0, end = 0;

	snprintf(path, sizeof(path), "%s/malformed.ltrace", dir);
	cr_assert_eq(lt_writer_open(&w, path, 0), 0);
	cr_assert_eq(lt_writer_header(w, &h), 0);
	for (int k = 0; k < 3; k++) {
		if (k == 1) {
			/* one good TASK_EXIT (kind, flags, ts delta, cpu, tid delta,
			 * its payload as the codec writes it) then kind 0xee */
			memcpy(p, (const uint8_t[]){ 0xee, 0, 0, 0, 0, 0, 0, 0 }, 8);
			at = lt_writer_bytes(w);
			cr_assert_eq(lt_writer_section(w, LT_CHUNK_EVENTS, bad, (size_t)(p - bad) + 8), 0);
			end = lt_writer_bytes(w);
			continue;
		}
		for (int e = 0; e < 4; e++) {
			struct lt_event ev = { .h = { .kind = LT_EV_TASK_EXIT, .tid = PID + 1, .ts = 1000 + e } };
			cr_assert_eq(lt_writer_event(w, &ev), 0);
		}
		cr_assert_eq(lt_writer_flush(w), 0);
	}
	cr_assert_eq(lt_writer_close(w), 0);

	struct lt_reader r;
	struct got g;
	read_all(path, &r, NULL, &g);
	cr_assert_eq(g.events, 8, "the chunks on both sides");
	cr_assert(r.clean_end, "%s", r.stop_reason);
	cr_assert_eq(r.nskips, 1);
	cr_assert_eq(r.skips[0].from, at + LT_CHUNK_HDR_LEN + (uint64_t)(p - bad));
	cr_assert_eq(r.skips[0].to, end);
	cr_assert(strstr(r.skips[0].why, "malformed event"), "%s", r.skips[0].why);
	lt_reader_close(&r);
}

/* `locktrace report` on a trace with a damaged middle chunk: a warning on
 * stderr naming the bytes skipped, the report's notes saying the same, the
 * events after the damage in the report, and exit status 3 (as a trace
 * cut short). */
Test(resync, report_command_warns_and_reports_the_later_events)
{
	char path[128], cmd[512], out[65536], errtxt[8192];
	struct lt_gen_layout lay;

	if (access(LT_BIN, X_OK))
		cr_skip_test("%s is not built (make all)", LT_BIN);
	gen(path, sizeof(path), "cli.ltrace", &lay);
	flip(path, lay.start[LT_GEN_WAKES] + LT_CHUNK_HDR_LEN + 7);
	snprintf(cmd, sizeof(cmd), "%s report --all %s 2>%s/stderr", LT_BIN, path, dir);
	FILE *p = popen(cmd, "r");
	cr_assert_not_null(p);
	size_t n = fread(out, 1, sizeof(out) - 1, p);
	out[n] = 0;
	int st = pclose(p);
	cr_assert(WIFEXITED(st));
	cr_assert_eq(WEXITSTATUS(st), 3, "exit status %d; stdout:\n%s", WEXITSTATUS(st), out);

	char ep[128];
	snprintf(ep, sizeof(ep), "%s/stderr", dir);
	FILE *e = fopen(ep, "r");
	cr_assert_not_null(e);
	n = fread(errtxt, 1, sizeof(errtxt) - 1, e);
	errtxt[n] = 0;
	fclose(e);
	char want[160];
	snprintf(want, sizeof(want), "bytes %llu..%llu", (unsigned long long)lay.start[LT_GEN_WAKES],
		 (unsigned long long)lay.end[LT_GEN_WAKES]);
	cr_assert(strstr(errtxt, "warning:") && strstr(errtxt, "is damaged"), "%s", errtxt);
	cr_assert(strstr(errtxt, want), "stderr:\n%s", errtxt);
	cr_assert(strstr(errtxt, "futex 3 exit 6 switch 3 waking 3"), "stderr:\n%s", errtxt);

	/* the report: damaged in its first lines and in the notes, never "no
	 * events lost"; the 12 events read, those after the damage included */
	cr_assert(strstr(out, "12 events"), "%s", out);
	cr_assert(strstr(out, "DAMAGED: "), "%s", out);
	cr_assert_null(strstr(out, "no events lost"), "%s", out);
	cr_assert_null(strstr(out, "no events were lost"), "%s", out);
	const char *notes = strstr(out, "\nNOTES\n");
	cr_assert_not_null(notes, "%s", out);
	cr_assert(strstr(notes, want), "%s", notes);
	/* the waits at the end are in the last chunk, after the damage: each
	 * worker's lock by the name the section after the damage gave */
	cr_assert(strstr(out, "lock_3"), "%s", out);

	/* JSON: the bytes in the trace object, the lines in the notes */
	snprintf(cmd, sizeof(cmd), "%s report --json %s 2>/dev/null", LT_BIN, path);
	p = popen(cmd, "r");
	cr_assert_not_null(p);
	n = fread(out, 1, sizeof(out) - 1, p);
	out[n] = 0;
	st = pclose(p);
	cr_assert_eq(WEXITSTATUS(st), 3);
	char jb[64];
	snprintf(jb, sizeof(jb), "\"damaged_bytes\": %llu",
		 (unsigned long long)(lay.end[LT_GEN_WAKES] - lay.start[LT_GEN_WAKES]));
	cr_assert(strstr(out, jb), "no %s in %s", jb, out);
	cr_assert(strstr(out, want), "%s", out);
}

/* Runs cmd, its stdout into out; the exit status. */
static int run_out(const char *cmd, char *out, size_t len)
{
	FILE *p = popen(cmd, "r");
	cr_assert_not_null(p);
	size_t n = fread(out, 1, len - 1, p);
	out[n] = 0;
	int st = pclose(p);
	cr_assert(WIFEXITED(st), "%s", cmd);
	return WEXITSTATUS(st);
}

/* dump says the damage where it is, among the events, and convert writes
 * the events of both sides; both exit 3. */
Test(resync, dump_and_convert_say_it_and_exit_3)
{
	char path[128], cmd[512], out[65536], want[160];
	struct lt_gen_layout lay;

	if (access(LT_BIN, X_OK))
		cr_skip_test("%s is not built (make all)", LT_BIN);
	gen(path, sizeof(path), "dump.ltrace", &lay);
	flip(path, lay.start[LT_GEN_WAKES] + LT_CHUNK_HDR_LEN + 7);
	snprintf(cmd, sizeof(cmd), "%s dump %s 2>/dev/null", LT_BIN, path);
	cr_assert_eq(run_out(cmd, out, sizeof(out)), 3);
	snprintf(want, sizeof(want), "# DAMAGED: bytes %llu..%llu skipped (damaged chunk (checksum mismatch))\n",
		 (unsigned long long)lay.start[LT_GEN_WAKES], (unsigned long long)lay.end[LT_GEN_WAKES]);
	const char *at = strstr(out, want);
	cr_assert_not_null(at, "%s", out);
	/* the first waits before it, the last waits after it */
	cr_assert(strstr(out, "1.000010000 ") && strstr(out, "1.000010000 ") < at, "%s", out);
	cr_assert(strstr(out, "1.000090000 ") > at, "%s", out);
	cr_assert_null(strstr(out, "FUTEX_WAKE"), "%s", out);

	snprintf(cmd, sizeof(cmd), "%s convert -q -o %s/out.perfetto-trace %s 2>&1", LT_BIN, dir, path);
	cr_assert_eq(run_out(cmd, out, sizeof(out)), 3, "%s", out);
	cr_assert(strstr(out, "converted the 12 events that could be read"), "%s", out);
	cr_assert(strstr(out, "bytes "), "%s", out);
	char op[128];
	struct stat sb;
	snprintf(op, sizeof(op), "%s/out.perfetto-trace", dir);
	cr_assert_eq(stat(op, &sb), 0, "the Perfetto file is written");
	cr_assert_gt(sb.st_size, 0);

	/* the profile: the same warning and status */
	snprintf(cmd, sizeof(cmd), "%s report --profile %s 2>&1 >/dev/null", LT_BIN, path);
	cr_assert_eq(run_out(cmd, out, sizeof(out)), 3, "%s", out);
	cr_assert(strstr(out, "profiled what could be read") && strstr(out, "bytes "), "%s", out);
	/* stored snapshots: this trace has none, which may be the damage's doing */
	snprintf(cmd, sizeof(cmd), "%s snapshot --from %s 2>&1", LT_BIN, path);
	cr_assert_eq(run_out(cmd, out, sizeof(out)), 1, "%s", out);
	cr_assert(strstr(out, "is damaged") && strstr(out, "or in the damaged bytes"), "%s", out);
}

/* Garbage made of chunk headers that each claim megabytes: every one must
 * be read for its CRC, so the scan has a budget (16 times the file's size
 * and 64 MiB) and, past it, stops saying so instead of taking time
 * quadratic in the file's size. */
Test(resync, made_up_chunk_headers_do_not_make_the_scan_quadratic, .timeout = 120)
{
	char path[128];
	struct lt_gen_layout lay;
	struct lt_reader r;
	struct got g;
	const size_t n = 64u << 10, tail = 4u << 20;

	gen(path, sizeof(path), "budget.ltrace", &lay);
	uint8_t *junk = calloc(1, n + tail);
	cr_assert_not_null(junk);
	for (size_t i = 0; i + 16 <= n; i += 16) {
		uint32_t len = (uint32_t)(n + tail / 2 - i); /* within the file: read whole */
		memcpy(junk + i, "LTCK\x02\0\0\0", 8);
		memcpy(junk + i + 8, &len, 4);
	}
	insert_garbage(path, lay.end[LT_GEN_WAKES], junk, n + tail);
	free(junk);
	read_all(path, &r, &lay, &g);
	cr_assert_eq(g.events, 21, "the events before the garbage");
	cr_assert_not(r.clean_end);
	cr_assert(strstr(r.stop_reason, "too much damage to look further"), "%s", r.stop_reason);
	cr_assert_eq(r.stop_offset, lay.end[LT_GEN_WAKES]);
	lt_reader_close(&r);
}

/* The live tests' loader (tests/lib/util.c): a recording with damage read
 * past is not clean (the reader used to stop there, which those tests'
 * clean-end assertions caught; they still must). */
Test(resync, the_test_loader_counts_damage_as_unclean)
{
	char path[128];
	struct lt_gen_layout lay;
	struct tl_trace t;

	gen(path, sizeof(path), "tl.ltrace", &lay);
	tl_load_ok(&t, path);
	cr_assert(t.clean_end, "%s", t.stop);
	cr_assert_eq(t.n, 27);
	tl_free(&t);
	flip(path, lay.start[LT_GEN_WAKES] + LT_CHUNK_HDR_LEN + 7);
	tl_load_ok(&t, path);
	cr_assert_eq(t.n, 12);
	cr_assert_not(t.clean_end);
	cr_assert(strstr(t.stop, "damaged: "), "%s", t.stop);
	tl_free(&t);
}

/* A damaged header: the events cannot be decoded, but the sections are
 * whole without it; snapshot --from prints the stored snapshots of such a
 * file, saying what could not be read, and report refuses it, saying why. */
Test(resync, the_snapshots_of_a_file_whose_header_is_damaged)
{
	char path[128], cmd[512], out[65536];
	struct lt_writer *w;
	struct lt_header h = { .pid = PID, .ncpus = 1 };
	static const char snap[] =
		"{\"schema\": \"locktrace.snapshot/1\", \"pid\": 1000, \"comm\": \"app\", \"occasion\": \"start\","
		" \"verdicts\": [], \"threads\": [{\"tid\": 1000, \"comm\": \"app\", \"state\": \"S\","
		" \"blocked_in\": \"FUTEX_WAIT\", \"frames\": []}]}";
	uint64_t ev_start = 0, ev_end = 0;

	snprintf(path, sizeof(path), "%s/nohdr.ltrace", dir);
	cr_assert_eq(lt_writer_open(&w, path, 0), 0);
	cr_assert_eq(lt_writer_header(w, &h), 0);
	cr_assert_eq(lt_writer_section(w, LT_CHUNK_SNAPSHOT, snap, sizeof(snap) - 1), 0);
	ev_start = lt_writer_bytes(w);
	for (int e = 0; e < 5; e++) {
		struct lt_event ev = { .h = { .kind = LT_EV_TASK_EXIT, .tid = PID + 1, .ts = 1000 + e } };
		cr_assert_eq(lt_writer_event(w, &ev), 0);
	}
	cr_assert_eq(lt_writer_flush(w), 0);
	ev_end = lt_writer_bytes(w);
	cr_assert_eq(lt_writer_close(w), 0);
	flip(path, LT_PREAMBLE_LEN + LT_CHUNK_HDR_LEN + 1);

	struct lt_reader r;
	struct lt_item it;
	char err[512];
	unsigned snaps = 0, events = 0;
	cr_assert_eq(lt_reader_open(&r, path, err, sizeof(err)), -1, "events without their header");
	cr_assert_eq(lt_reader_open_flags(&r, path, LT_READ_SECTIONS_IF_NO_HEADER, err, sizeof(err)), 0, "%s",
		     err);
	cr_assert(r.headerless);
	while (lt_reader_next(&r, &it) > 0) {
		events += it.type == LT_ITEM_EVENT;
		if (it.type == LT_ITEM_SECTION && it.sec_type == LT_CHUNK_SNAPSHOT) {
			snaps++;
			cr_assert_eq(it.len, sizeof(snap) - 1);
			cr_assert(!memcmp(it.data, snap, it.len));
		}
	}
	cr_assert_eq(snaps, 1);
	cr_assert_eq(events, 0);
	cr_assert_eq(r.undecoded_chunks, 1);
	cr_assert_eq(r.undecoded_bytes, ev_end - ev_start);
	cr_assert(r.clean_end, "%s", r.stop_reason);
	cr_assert_eq(r.nskips, 1);
	cr_assert_eq(r.skips[0].from, LT_PREAMBLE_LEN);
	char text[4096];
	damage_text(&r, text, sizeof(text));
	cr_assert(strstr(text, "the header chunk is damaged: 1 events chunks"), "%s", text);
	lt_reader_close(&r);

	if (access(LT_BIN, X_OK))
		cr_skip_test("%s is not built (make all)", LT_BIN);
	snprintf(cmd, sizeof(cmd), "%s snapshot --from %s 2>&1", LT_BIN, path);
	cr_assert_eq(run_out(cmd, out, sizeof(out)), 3, "%s", out);
	cr_assert(strstr(out, "stored snapshot 1 of 1"), "%s", out);
	cr_assert(strstr(out, "the header chunk is damaged"), "%s", out);
	snprintf(cmd, sizeof(cmd), "%s report %s 2>&1", LT_BIN, path);
	cr_assert_eq(run_out(cmd, out, sizeof(out)), 1, "%s", out);
	cr_assert(strstr(out, "its header chunk is damaged"), "%s", out);
}
