/* Channels registered with os/signal.Notify (rt_go_signal.c), found in the
 * map of os/signal's `handlers` on synthetic memory images: the layout before
 * Go 1.24 (hmap and 144-byte buckets, overflow chains, a growing map's old
 * buckets) and Go 1.24's Swiss tables (one group, or a directory of tables
 * that may repeat).  The live tests run Debian's Go 1.19 only: the Swiss
 * layout is checked here.  No root, no Go program. */
#include <criterion/criterion.h>
#include <string.h>

#include "golang.h"
#include "lockmodel.h"
#include "lt_fakeproc.h"
#include "waitfor.h"

#define CH 0xc000123400ull

static struct fp_image img;
static struct lt_lm_env env;
static uint64_t handlers;

static void setup(void)
{
	fi_init(&img, 0x10000000, 1 << 20, 64);
	env = (struct lt_lm_env){ .arg = &img, .read = fi_read, .lookup = fi_lookup, .stack_tid = fp_no_stack_tid };
	handlers = fi_alloc(&img, 16 + 65 * 8);
}

static void teardown(void)
{
	fi_free(&img);
}

TestSuite(go_signal, .init = setup, .fini = teardown);

/* a *handler whose mask has signals SIGS (0-terminated) */
static uint64_t handler(const int *sigs)
{
	uint64_t h = fi_alloc(&img, 12);
	uint32_t mask[3] = { 0 };
	for (; *sigs; sigs++)
		mask[*sigs / 32] |= 1u << (*sigs % 32);
	fi_write(&img, h, mask, sizeof(mask));
	return h;
}

static uint64_t old_bucket(void)
{
	return fi_alloc(&img, 144);
}

static void old_slot(uint64_t b, int i, uint8_t top, uint64_t key, uint64_t val)
{
	fi_put8(&img, b + (uint64_t)i, top);
	fi_put64(&img, b + 8 + 8 * (uint64_t)i, key);
	fi_put64(&img, b + 72 + 8 * (uint64_t)i, val);
}

/* an hmap of 2^B buckets (allocated together), its buckets' address */
static uint64_t old_map(uint8_t B, uint64_t count)
{
	uint64_t m = fi_alloc(&img, 48), bk = fi_alloc(&img, 144u << B);
	fi_put64(&img, m, count);
	fi_put8(&img, m + 9, B);
	fi_put64(&img, m + 16, bk);
	fi_put64(&img, handlers + 8, m);
	return bk;
}

static int lookup(bool swiss, char *sigs, size_t len)
{
	return lt_go_notify_lookup(&env, handlers, swiss, CH, sigs, len);
}

Test(go_signal, no_map_is_no_channel_registered)
{
	char sigs[64] = "x";
	cr_expect_eq(lookup(false, sigs, sizeof(sigs)), 0);
	cr_expect_eq(lookup(true, sigs, sizeof(sigs)), 0);
	cr_expect_str_empty(sigs);
}

Test(go_signal, old_layout_finds_the_channel_and_its_signals)
{
	uint64_t bk = old_map(2, 3);
	old_slot(bk + 144, 0, 7, 0xc000999900ull, handler((int[]){ 12, 0 }));
	old_slot(bk + 2 * 144, 5, 9, CH, handler((int[]){ 2, 15, 34, 64, 0 }));
	char sigs[128];
	cr_assert_eq(lookup(false, sigs, sizeof(sigs)), 1);
	cr_expect_str_eq(sigs, "SIGINT SIGTERM SIGRTMIN+2 SIGRTMIN+32");
}

Test(go_signal, old_layout_follows_overflow_buckets_and_skips_empty_slots)
{
	uint64_t bk = old_map(0, 9);
	/* the key in an emptied slot (tophash 1, emptyOne) is not there */
	old_slot(bk, 3, 1, CH, handler((int[]){ 1, 0 }));
	uint64_t ov = old_bucket();
	fi_put64(&img, bk + 136, ov);
	cr_expect_eq(lookup(false, NULL, 0), 0);
	old_slot(ov, 2, 5, CH, handler((int[]){ 10, 0 }));
	char sigs[64];
	cr_expect_eq(lookup(false, sigs, sizeof(sigs)), 1);
	cr_expect_str_eq(sigs, "SIGUSR1");
}

Test(go_signal, old_layout_reads_a_growing_maps_old_buckets)
{
	uint64_t bk = old_map(1, 2);
	uint64_t m = fi_get64(&img, handlers + 8), old = old_bucket();
	fi_put64(&img, m + 24, old); /* growing: 2^(B-1) old buckets */
	old_slot(old, 0, 200, CH, handler((int[]){ 15, 0 }));
	char sigs[64];
	cr_expect_eq(lookup(false, sigs, sizeof(sigs)), 1);
	cr_expect_str_eq(sigs, "SIGTERM");
	/* evacuated (tophash 2-4): the entry is in the new buckets, not here */
	fi_put8(&img, old, 2);
	cr_expect_eq(lookup(false, NULL, 0), 0);
	old_slot(bk + 144, 7, 99, CH, handler((int[]){ 15, 0 }));
	cr_expect_eq(lookup(false, NULL, 0), 1);
}

static uint64_t swiss_group(void)
{
	uint64_t g = fi_alloc(&img, 136);
	fi_put64(&img, g, 0x8080808080808080ull); /* every slot empty */
	return g;
}

static void swiss_slot(uint64_t g, int i, uint8_t ctrl, uint64_t key, uint64_t val)
{
	fi_put8(&img, g + (uint64_t)i, ctrl);
	fi_put64(&img, g + 8 + 16 * (uint64_t)i, key);
	fi_put64(&img, g + 16 + 16 * (uint64_t)i, val);
}

static uint64_t swiss_map(uint64_t used, uint64_t dir, uint64_t dirlen)
{
	uint64_t m = fi_alloc(&img, 48);
	fi_put64(&img, m, used);
	fi_put64(&img, m + 16, dir);
	fi_put64(&img, m + 24, dirlen);
	fi_put64(&img, handlers + 8, m);
	return m;
}

Test(go_signal, swiss_small_map_is_one_group)
{
	uint64_t g = swiss_group();
	swiss_map(2, g, 0);
	swiss_slot(g, 0, 0x11, 0xc000777700ull, handler((int[]){ 1, 0 }));
	swiss_slot(g, 4, 0xfe, CH, handler((int[]){ 1, 0 })); /* deleted */
	cr_expect_eq(lookup(true, NULL, 0), 0);
	swiss_slot(g, 6, 0x2a, CH, handler((int[]){ 1, 15, 0 }));
	char sigs[64];
	cr_expect_eq(lookup(true, sigs, sizeof(sigs)), 1);
	cr_expect_str_eq(sigs, "SIGHUP SIGTERM");
	/* read in the older layout, the same bytes hold no such key */
	cr_expect_eq(lookup(false, NULL, 0), 0);
}

Test(go_signal, swiss_directory_of_tables_each_read_once)
{
	/* two tables of 2 and 1 groups; the directory of 4 names the first
	 * twice (local depth 1 under a global depth 2) */
	uint64_t t1 = fi_alloc(&img, 32), t2 = fi_alloc(&img, 32);
	uint64_t g1 = fi_alloc(&img, 2 * 136), g2 = swiss_group();
	fi_put64(&img, g1, 0x8080808080808080ull);
	fi_put64(&img, g1 + 136, 0x8080808080808080ull);
	fi_put64(&img, t1 + 16, g1);
	fi_put64(&img, t1 + 24, 1);
	fi_put64(&img, t2 + 16, g2);
	fi_put64(&img, t2 + 24, 0);
	uint64_t dir = fi_alloc(&img, 4 * 8);
	fi_put64(&img, dir, t1);
	fi_put64(&img, dir + 8, t1);
	fi_put64(&img, dir + 16, t2);
	fi_put64(&img, dir + 24, t2);
	swiss_map(12, dir, 4);
	swiss_slot(g2, 3, 0x05, 0xc000555500ull, handler((int[]){ 2, 0 }));
	cr_expect_eq(lookup(true, NULL, 0), 0);
	swiss_slot(g1 + 136, 7, 0x40, CH, handler((int[]){ 28, 0 }));
	char sigs[64];
	cr_expect_eq(lookup(true, sigs, sizeof(sigs)), 1);
	cr_expect_str_eq(sigs, "SIGWINCH");
}

Test(go_signal, unreadable_memory_is_no_answer)
{
	fi_put64(&img, handlers + 8, 0xdead0000ull); /* outside the image */
	cr_expect_eq(lookup(false, NULL, 0), -1);
	cr_expect_eq(lookup(true, NULL, 0), -1);
	uint64_t g = swiss_group();
	swiss_map(1, g, 0);
	swiss_slot(g, 0, 0x01, CH, 0xdead0000ull); /* its handler unreadable */
	char sigs[64] = "x";
	cr_expect_eq(lookup(true, sigs, sizeof(sigs)), 1);
	cr_expect_str_empty(sigs, "no signals said when the handler is unread: %s", sigs);
}

/* Signals no channel ever gets (SIGKILL, SIGSTOP, and SIGPROF, which the Go
 * runtime keeps for its profiler) end no wait: registered only for them is
 * 2, not 1 (a review: Notify(c, SIGKILL) was said to end the wait); every
 * signal is "all signals" (the list was cut). */
Test(go_signal, signals_no_channel_gets_and_all_signals)
{
	uint64_t bk = old_map(0, 1);
	old_slot(bk, 0, 9, CH, handler((int[]){ 9, 19, 27, 0 }));
	char sigs[160];
	cr_expect_eq(lookup(false, sigs, sizeof(sigs)), 2);
	cr_expect_str_empty(sigs);
	int all[66], n = 0;
	for (int k = 1; k < 65; k++)
		all[n++] = k;
	all[n] = 0;
	old_slot(bk, 0, 9, CH, handler(all));
	cr_expect_eq(lookup(false, sigs, sizeof(sigs)), 1);
	cr_expect_str_eq(sigs, "all signals");
}

/* A map too large to read (B above the bound), or a bucket of it
 * unreadable: a channel not found among what was read is not known, never
 * "not registered"; one found is. */
Test(go_signal, a_map_not_read_whole_is_no_answer_for_a_channel_not_found)
{
	uint64_t m = fi_alloc(&img, 48);
	fi_put8(&img, m + 9, 20); /* B = 20: over the bound */
	fi_put64(&img, m + 16, 0x20000000ull);
	fi_put64(&img, handlers + 8, m);
	cr_expect_eq(lookup(false, NULL, 0), -1);
	uint64_t bk = old_map(1, 2);
	old_slot(bk, 0, 9, CH, handler((int[]){ 15, 0 }));
	fi_put64(&img, bk + 144 + 136, 0xdead0000ull); /* bucket 1's overflow unreadable */
	cr_expect_eq(lookup(false, NULL, 0), 1, "found in what was read");
	old_slot(bk, 0, 1, CH, 0); /* emptied: now not found, the overflow unread */
	cr_expect_eq(lookup(false, NULL, 0), -1);
}

/* Many channels read once and looked up by binary search: each one found
 * with its own signals, one not registered not found. */
Test(go_signal, many_channels_read_once)
{
	uint64_t bk = old_map(3, 64);
	struct lt_go_notify nm;
	for (int i = 0; i < 64; i++)
		old_slot(bk + (uint64_t)(i % 8) * 144, i / 8, 7, CH + (uint64_t)(63 - i) * 0x100,
			 handler((int[]){ 1 + i % 8, 0 }));
	cr_assert_eq(lt_go_notify_read(&env, handlers, false, &nm), 0);
	cr_expect(nm.complete && nm.n == 64);
	for (int i = 0; i < 64; i++) {
		char sigs[64], want[64];
		cr_expect_eq(lt_go_notify_find(&env, &nm, CH + (uint64_t)(63 - i) * 0x100, sigs, sizeof(sigs)), 1);
		lt_sigset_str(1ull << (i % 8), want, sizeof(want));
		cr_expect_str_eq(sigs, want, "channel %d", i);
	}
	cr_expect_eq(lt_go_notify_find(&env, &nm, CH + 0x50, NULL, 0), 0);
	lt_go_notify_free(&nm);
}

/* Which map layout a binary has, from its version and experiments (a
 * review: GOEXPERIMENT=noswissmap builds of 1.24 and 1.25 keep the old). */
Test(go_signal, the_map_layout_from_the_version)
{
	cr_expect(!lt_go_swiss_maps("go1.19.8"));
	cr_expect(!lt_go_swiss_maps("go1.23.4"));
	cr_expect(lt_go_swiss_maps("go1.23.4 X:swissmap"));
	cr_expect(lt_go_swiss_maps("go1.24.1"));
	cr_expect(lt_go_swiss_maps("go1.24rc1"));
	cr_expect(!lt_go_swiss_maps("go1.24.1 X:noswissmap"));
	cr_expect(!lt_go_swiss_maps("go1.25.0 X:loopvar,noswissmap"));
	cr_expect(lt_go_swiss_maps("go1.25.0 X:loopvar"));
	cr_expect(lt_go_swiss_maps("go1.26.0"));
	cr_expect(!lt_go_swiss_maps(NULL));
	cr_expect(!lt_go_swiss_maps("devel +abc"));
}
