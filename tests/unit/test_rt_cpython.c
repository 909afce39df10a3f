/* The CPython thread model (src/rt_cpython*.c) and the pure helpers of
 * rtthread.h.
 *
 * rt_lines: the line-table decoders against PyCode_Addr2Line of the real
 * interpreters (3.8.18, 3.10.13, Debian's 3.11.2, 3.12.1, 3.13.0), asked
 * at every byte offset of one sample function (vectors below, generated
 * with ctypes on each version).
 * rt_demangle: OCaml 4 and 5 symbols, and names that are not OCaml's.
 * rt_place: Python frames among native frames.
 * rt_cpython_fixture: synthetic memory images of 3.8 to 3.13 processes
 * (interpreters, thread states, frames, code objects, threading._active
 * with Thread objects in each version's attribute layout), read through a
 * fake struct lt_lm_env, laid out with the offsets of each version's own
 * headers (build/gen/cpython_layouts.h, from tests/gen/cpython_layout.c),
 * so a wrong offset in the model's table fails here; a version whose
 * headers are not on the machine skips.
 * rt_cpython_live: Debian's /usr/bin/python3 running
 * tests/workloads/py_stacks.py and gil_holder.py --lock-deadlock, whose
 * threads print where Python itself says they block.  Needs root. */
#include <criterion/criterion.h>
#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <sys/resource.h>
#include <time.h>

#include "lockmodel.h"
#include "lt_fakeproc.h"
#include "pystack.h"
#include "rtthread.h"
#include "snapshot.h"
#include "lt_test.h"
#include "gen_layouts.h"
#include "budget.h"
#include "locktrace/pyframes.h"

/* ---- line tables ---- */

/* CPython 3.8.18: PyCode_Addr2Line of sample() at every even byte offset */
static const uint8_t tab_38[] = {0x00, 0x01, 0x04, 0x01, 0x0c, 0x01, 0x08, 0x01, 0x0a, 0x02,
	0x08, 0x05, 0x06, 0x01, 0x06, 0xff, 0x08, 0x02, 0x08, 0x01, 0x0a, 0x01, 0x02, 0x01, 0x06,
	0xff};
static const int first_38 = 2;
static const int want_38[][2] = {{-2, 2}, {0, 3}, {2, 3}, {4, 4}, {6, 4}, {8, 4}, {10, 4},
	{12, 4}, {14, 4}, {16, 5}, {18, 5}, {20, 5}, {22, 5}, {24, 6}, {26, 6}, {28, 6}, {30, 6},
	{32, 6}, {34, 8}, {36, 8}, {38, 8}, {40, 8}, {42, 13}, {44, 13}, {46, 13}, {48, 14}, {50,
	14}, {52, 14}, {54, 13}, {56, 13}, {58, 13}, {60, 13}, {62, 15}, {64, 15}, {66, 15}, {68,
	15}, {70, 16}, {72, 16}, {74, 16}, {76, 16}, {78, 16}, {80, 17}, {82, 18}, {84, 18}, {86,
	18}, {88, 17}, {90, 17}, {92, 17}, {94, 17}};

/* CPython 3.10.13: PyCode_Addr2Line of sample() at every even byte offset */
static const uint8_t tab_310[] = {0x04, 0x01, 0x0c, 0x01, 0x08, 0x01, 0x0a, 0x01, 0x08, 0x02,
	0x06, 0x05, 0x06, 0x01, 0x08, 0xff, 0x08, 0x02, 0x08, 0x01, 0x08, 0xff, 0x02, 0x02, 0x06,
	0x01, 0x04, 0xff};
static const int first_310 = 2;
static const int want_310[][2] = {{-2, 2}, {0, 3}, {2, 3}, {4, 4}, {6, 4}, {8, 4}, {10, 4},
	{12, 4}, {14, 4}, {16, 5}, {18, 5}, {20, 5}, {22, 5}, {24, 6}, {26, 6}, {28, 6}, {30, 6},
	{32, 6}, {34, 8}, {36, 8}, {38, 8}, {40, 8}, {42, 13}, {44, 13}, {46, 13}, {48, 14}, {50,
	14}, {52, 14}, {54, 13}, {56, 13}, {58, 13}, {60, 13}, {62, 15}, {64, 15}, {66, 15}, {68,
	15}, {70, 16}, {72, 16}, {74, 16}, {76, 16}, {78, 15}, {80, 15}, {82, 15}, {84, 15}, {86,
	17}, {88, 18}, {90, 18}, {92, 18}, {94, 17}, {96, 17}, {98, -1}, {100, -1}};

/* CPython 3.12.1: PyCode_Addr2Line of sample() at every even byte offset */
static const uint8_t tab_312[] = {0x80, 0x00, 0xd8, 0x08, 0x09, 0x80, 0x41, 0xdc, 0x0d, 0x12,
	0x90, 0x31, 0x8b, 0x58, 0xf2, 0x00, 0x0a, 0x05, 0x20, 0x88, 0x01, 0xd8, 0x0b, 0x0c, 0x88,
	0x71, 0x8a, 0x35, 0xd8, 0x0c, 0x0d, 0x90, 0x11, 0x89, 0x46, 0x89, 0x41, 0xe0, 0x0c, 0x0d,
	0x90, 0x11, 0x89, 0x46, 0x88, 0x41, 0xf4, 0x0c, 0x00, 0x17, 0x1c, 0x98, 0x41, 0x93, 0x68,
	0xf6, 0x03, 0x01, 0x0d, 0x20, 0xd8, 0x11, 0x12, 0xf2, 0x03, 0x00, 0x0e, 0x0f, 0xf0, 0x00,
	0x01, 0x0d, 0x20, 0x88, 0x01, 0xf1, 0x00, 0x01, 0x0d, 0x20, 0xf0, 0x13, 0x0a, 0x05, 0x20,
	0xf0, 0x16, 0x00, 0x0b, 0x0c, 0x88, 0x63, 0x8a, 0x27, 0xd8, 0x08, 0x09, 0x88, 0x61, 0x89,
	0x07, 0x88, 0x01, 0xf0, 0x03, 0x00, 0x0b, 0x0c, 0x88, 0x63, 0x8b, 0x27, 0xe0, 0x0c, 0x0d,
	0xdc, 0x0c, 0x0f, 0x90, 0x01, 0x8b, 0x46, 0xf1, 0x03, 0x01, 0x0d, 0x13, 0xf0, 0x00, 0x01,
	0x05, 0x14, 0xf9, 0xf2, 0x09, 0x01, 0x0d, 0x20};
static const int first_312 = 2;
static const int want_312[][2] = {{-2, 2}, {0, 2}, {2, 3}, {4, 3}, {6, 4}, {8, 4}, {10, 4},
	{12, 4}, {14, 4}, {16, 4}, {18, 4}, {20, 4}, {22, 4}, {24, 4}, {26, 4}, {28, 4}, {30, 4},
	{32, 4}, {34, 5}, {36, 5}, {38, 5}, {40, 5}, {42, 5}, {44, 6}, {46, 6}, {48, 6}, {50, 6},
	{52, 6}, {54, 6}, {56, 8}, {58, 8}, {60, 8}, {62, 8}, {64, 8}, {66, 14}, {68, 14}, {70, 14},
	{72, 14}, {74, 14}, {76, 14}, {78, 14}, {80, 14}, {82, 14}, {84, 14}, {86, 13}, {88, 13},
	{90, 13}, {92, 13}, {94, 13}, {96, 13}, {98, 13}, {100, 14}, {102, 13}, {104, 13}, {106,
	13}, {108, 13}, {110, 13}, {112, 13}, {114, 13}, {116, 4}, {118, 15}, {120, 15}, {122, 15},
	{124, 15}, {126, 15}, {128, 16}, {130, 16}, {132, 16}, {134, 16}, {136, 16}, {138, 15},
	{140, 15}, {142, 15}, {144, 15}, {146, 15}, {148, 15}, {150, 17}, {152, 18}, {154, 18},
	{156, 18}, {158, 18}, {160, 18}, {162, 18}, {164, 18}, {166, 18}, {168, 18}, {170, 18},
	{172, 17}, {174, 17}, {176, 17}, {178, -1}, {180, -1}, {182, 13}, {184, 13}, {186, 13},
	{188, -1}, {190, -1}};

/* CPython 3.13.0: PyCode_Addr2Line of sample() at every even byte offset */
static const uint8_t tab_313[] = {0x80, 0x00, 0xd8, 0x08, 0x09, 0x80, 0x41, 0xdc, 0x0d, 0x12,
	0x90, 0x31, 0x8e, 0x58, 0x88, 0x01, 0xd8, 0x0b, 0x0c, 0x88, 0x71, 0x8f, 0x35, 0xd8, 0x0c,
	0x0d, 0x89, 0x46, 0x89, 0x41, 0xe0, 0x0c, 0x0d, 0x89, 0x46, 0x88, 0x41, 0xf4, 0x0c, 0x00,
	0x17, 0x1c, 0x98, 0x41, 0x94, 0x68, 0xf3, 0x03, 0x01, 0x0d, 0x20, 0xd9, 0x16, 0x1e, 0x90,
	0x11, 0xf3, 0x03, 0x00, 0x0e, 0x0f, 0xd9, 0x16, 0x1e, 0xf0, 0x03, 0x00, 0x09, 0x0a, 0xf0,
	0x00, 0x01, 0x0d, 0x20, 0x89, 0x01, 0xf1, 0x13, 0x00, 0x0e, 0x16, 0xf0, 0x16, 0x00, 0x0b,
	0x0c, 0x88, 0x63, 0x8b, 0x27, 0xd8, 0x08, 0x09, 0x88, 0x61, 0x89, 0x07, 0x88, 0x01, 0xf0,
	0x03, 0x00, 0x0b, 0x0c, 0x88, 0x63, 0x8d, 0x27, 0xe0, 0x0c, 0x0d, 0xdc, 0x0c, 0x0f, 0x90,
	0x01, 0x8b, 0x46, 0xf1, 0x03, 0x01, 0x0d, 0x13, 0xf0, 0x00, 0x01, 0x05, 0x14, 0xf9, 0xf2,
	0x09, 0x01, 0x0d, 0x20};
static const int first_313 = 2;
static const int want_313[][2] = {{-2, 2}, {0, 2}, {2, 3}, {4, 3}, {6, 4}, {8, 4}, {10, 4},
	{12, 4}, {14, 4}, {16, 4}, {18, 4}, {20, 4}, {22, 4}, {24, 4}, {26, 4}, {28, 4}, {30, 4},
	{32, 4}, {34, 5}, {36, 5}, {38, 5}, {40, 5}, {42, 5}, {44, 5}, {46, 5}, {48, 5}, {50, 5},
	{52, 5}, {54, 6}, {56, 6}, {58, 6}, {60, 6}, {62, 6}, {64, 8}, {66, 8}, {68, 8}, {70, 8},
	{72, 14}, {74, 14}, {76, 14}, {78, 14}, {80, 14}, {82, 14}, {84, 14}, {86, 14}, {88, 14},
	{90, 14}, {92, 14}, {94, 13}, {96, 13}, {98, 13}, {100, 13}, {102, 14}, {104, 14}, {106,
	14}, {108, 13}, {110, 13}, {112, 13}, {114, 13}, {116, 14}, {118, 14}, {120, 13}, {122, 13},
	{124, 13}, {126, 13}, {128, 4}, {130, 4}, {132, 15}, {134, 15}, {136, 15}, {138, 15}, {140,
	15}, {142, 15}, {144, 16}, {146, 16}, {148, 16}, {150, 16}, {152, 16}, {154, 15}, {156, 15},
	{158, 15}, {160, 15}, {162, 15}, {164, 15}, {166, 15}, {168, 15}, {170, 17}, {172, 18},
	{174, 18}, {176, 18}, {178, 18}, {180, 18}, {182, 18}, {184, 18}, {186, 18}, {188, 18},
	{190, 18}, {192, 17}, {194, 17}, {196, 17}, {198, -1}, {200, -1}, {202, 13}, {204, 13},
	{206, 13}, {208, -1}, {210, -1}};

/* CPython 3.11.2: PyCode_Addr2Line of sample() at every even byte offset */
static const uint8_t tab_311[] = {0x80, 0x00, 0xd8, 0x08, 0x09, 0x80, 0x41, 0xdd, 0x0d, 0x12,
	0x90, 0x31, 0x89, 0x58, 0x8c, 0x58, 0xf0, 0x00, 0x0a, 0x05, 0x20, 0xf0, 0x00, 0x0a, 0x05,
	0x20, 0x88, 0x01, 0xd8, 0x0b, 0x0c, 0x88, 0x71, 0x89, 0x35, 0xf0, 0x00, 0x03, 0x09, 0x13,
	0xd8, 0x0c, 0x0d, 0x90, 0x11, 0x89, 0x46, 0x88, 0x41, 0x88, 0x41, 0xe0, 0x0c, 0x0d, 0x90,
	0x11, 0x89, 0x46, 0x88, 0x41, 0xf0, 0x0a, 0x01, 0x0d, 0x20, 0xf0, 0x00, 0x01, 0x0d, 0x20,
	0xdd, 0x16, 0x1b, 0x98, 0x41, 0x91, 0x68, 0x94, 0x68, 0xf0, 0x03, 0x01, 0x0d, 0x20, 0xf1,
	0x00, 0x01, 0x0d, 0x20, 0xf4, 0x00, 0x01, 0x0d, 0x20, 0x88, 0x01, 0x88, 0x01, 0xe0, 0x0a,
	0x0b, 0x88, 0x63, 0x8a, 0x27, 0x88, 0x27, 0xd8, 0x08, 0x09, 0x88, 0x61, 0x89, 0x07, 0x88,
	0x01, 0xf0, 0x03, 0x00, 0x0b, 0x0c, 0x88, 0x63, 0x8a, 0x27, 0x88, 0x27, 0xe0, 0x0c, 0x0d,
	0xdd, 0x0c, 0x0f, 0x90, 0x01, 0x89, 0x46, 0x8c, 0x46, 0xf1, 0x03, 0x01, 0x0d, 0x13, 0xf0,
	0x00, 0x01, 0x05, 0x14};
static const int first_311 = 2;
static const int want_311[][2] = {{-2, 2}, {0, 2}, {2, 3}, {4, 3}, {6, 4}, {8, 4}, {10, 4},
	{12, 4}, {14, 4}, {16, 4}, {18, 4}, {20, 4}, {22, 4}, {24, 4}, {26, 4}, {28, 4}, {30, 4},
	{32, 4}, {34, 4}, {36, 4}, {38, 4}, {40, 5}, {42, 5}, {44, 5}, {46, 5}, {48, 5}, {50, 6},
	{52, 6}, {54, 6}, {56, 6}, {58, 6}, {60, 6}, {62, 8}, {64, 8}, {66, 8}, {68, 8}, {70, 8},
	{72, 13}, {74, 13}, {76, 14}, {78, 14}, {80, 14}, {82, 14}, {84, 14}, {86, 14}, {88, 14},
	{90, 14}, {92, 14}, {94, 14}, {96, 14}, {98, 14}, {100, 14}, {102, 14}, {104, 13}, {106,
	13}, {108, 13}, {110, 13}, {112, 13}, {114, 13}, {116, 13}, {118, 13}, {120, 13}, {122, 13},
	{124, 15}, {126, 15}, {128, 15}, {130, 15}, {132, 15}, {134, 15}, {136, 16}, {138, 16},
	{140, 16}, {142, 16}, {144, 16}, {146, 15}, {148, 15}, {150, 15}, {152, 15}, {154, 15},
	{156, 15}, {158, 17}, {160, 18}, {162, 18}, {164, 18}, {166, 18}, {168, 18}, {170, 18},
	{172, 18}, {174, 18}, {176, 18}, {178, 18}, {180, 18}, {182, 18}, {184, 18}, {186, 18},
	{188, 17}, {190, 17}, {192, 17}, {194, -1}, {196, -1}};

static void check_lines(int (*fn)(const uint8_t *, size_t, int, int), const uint8_t *tab, size_t n,
			int first, const int (*want)[2], size_t nwant, const char *ver)
{
	for (size_t i = 0; i < nwant; i++) {
		int expect = want[i][1] < 0 ? 0 : want[i][1]; /* -1: no line */
		int got = fn(tab, n, first, want[i][0]);
		cr_expect_eq(got, expect, "%s: offset %d: line %d, PyCode_Addr2Line says %d", ver,
			     want[i][0], got, want[i][1]);
	}
}

#define CHECK(fn, v, name) \
	check_lines(fn, tab_##v, sizeof(tab_##v), first_##v, want_##v, \
		    sizeof(want_##v) / sizeof(want_##v[0]), name)

Test(rt_lines, lnotab_3_8)
{
	CHECK(lt_py_line_lnotab, 38, "3.8");
}

Test(rt_lines, linetable_3_10)
{
	CHECK(lt_py_line_310, 310, "3.10");
}

Test(rt_lines, location_table_3_11_to_3_13)
{
	CHECK(lt_py_line_311, 311, "3.11");
	CHECK(lt_py_line_311, 312, "3.12");
	CHECK(lt_py_line_311, 313, "3.13");
}

/* Hand-made entries: the long form (code 14) with a large negative delta,
 * the no-column form (13), no location (15), and malformed tables. */
Test(rt_lines, location_table_forms)
{
	/* 2 units, code 13, delta +100 (varint 200: 0x48|0x40, 0x03) */
	/* then 1 unit, code 14, delta -60 (varint 121: 0x39|0x40, 0x01), end
	 * line 0, columns 1 and 2; then 3 units, code 15 (no location) */
	static const uint8_t t[] = { 0x80 | 13 << 3 | 1, 0x48 | 0x40, 0x03,
				     0x80 | 14 << 3 | 0, 0x39 | 0x40, 0x01, 0x00, 0x01, 0x02,
				     0x80 | 15 << 3 | 2 };
	cr_assert_eq(lt_py_line_311(t, sizeof(t), 10, 0), 110);
	cr_assert_eq(lt_py_line_311(t, sizeof(t), 10, 2), 110);
	cr_assert_eq(lt_py_line_311(t, sizeof(t), 10, 4), 50);
	cr_assert_eq(lt_py_line_311(t, sizeof(t), 10, 6), 0);
	cr_assert_eq(lt_py_line_311(t, sizeof(t), 10, 10), 0);
	cr_assert_eq(lt_py_line_311(t, sizeof(t), 10, 12), 0, "past the end");
	cr_assert_eq(lt_py_line_311(t, sizeof(t), 10, -2), 10, "before the first instruction");
	static const uint8_t bad[] = { 0x05, 0x80 };
	cr_assert_eq(lt_py_line_311(bad, sizeof(bad), 10, 0), -1);
	static const uint8_t cut[] = { 0x80 | 13 << 3, 0x41 };
	cr_assert_eq(lt_py_line_311(cut, sizeof(cut), 10, 0), -1, "varint runs off the end");
	/* 3.10: -128 is "no line" */
	static const uint8_t t10[] = { 4, 1, 6, 0x80, 2, 3 };
	cr_assert_eq(lt_py_line_310(t10, sizeof(t10), 5, 2), 6);
	cr_assert_eq(lt_py_line_310(t10, sizeof(t10), 5, 4), 0);
	cr_assert_eq(lt_py_line_310(t10, sizeof(t10), 5, 10), 9);
}

/* A long table of each format (pseudo-random entries, 4,000 to 5,000 of
 * them): the lookup from the index's nearest mark gives what the scan
 * from the start gives, for every address; the index holds one mark per
 * 64 entries. */
static uint32_t lcg(uint32_t *x)
{
	*x = *x * 1103515245u + 12345u;
	return *x >> 8;
}

static size_t long_table(enum lt_py_lines fmt, uint8_t *t, size_t cap, size_t *entries, int *span)
{
	uint32_t x = 42 + (uint32_t)fmt;
	size_t n = 0;
	*entries = 0;
	*span = 0;
	while (n + 8 < cap) {
		uint32_t r = lcg(&x);
		if (fmt == LT_PY_311) {
			unsigned len = 1 + r % 8, code = (unsigned[]){ 0, 10, 11, 12, 13, 15 }[(r >> 3) % 6];
			int d = (int)((r >> 6) % 41) - 20;
			t[n++] = (uint8_t)(0x80 | code << 3 | (len - 1));
			if (code == 13)
				t[n++] = (uint8_t)((unsigned)(d < 0 ? -d : d) << 1 | (d < 0));
			else if (code < 10)
				t[n++] = (uint8_t)(r >> 12 & 0x3f);
			else if (code < 13) {
				t[n++] = (uint8_t)(r >> 12 & 0x3f);
				t[n++] = (uint8_t)(r >> 18 & 0x3f);
			}
			*span += (int)len * 2;
		} else {
			t[n++] = (uint8_t)(r % 21);
			t[n++] = fmt == LT_PY_310 && r % 7 == 0 ? 0x80 : (uint8_t)(int8_t)((int)((r >> 5) % 21) - 10);
			*span += t[n - 2];
		}
		++*entries;
	}
	return n;
}

Test(rt_lines, index_gives_the_lines_the_scan_gives)
{
	static uint8_t t[10000];
	for (int fmt = LT_PY_LNOTAB; fmt <= LT_PY_311; fmt++) {
		size_t entries;
		int span;
		size_t n = long_table(fmt, t, sizeof(t), &entries, &span);
		struct lt_py_index ix;
		cr_assert_eq(lt_py_index_build(fmt, t, n, &ix), 0);
		cr_assert_eq(ix.n, (entries + 63) / 64, "format %d: %zu marks for %zu entries", fmt, ix.n, entries);
		size_t lines = 0;
		for (int a = -2; a < span + 10; a++) {
			int want = lt_py_line_at(fmt, t, n, NULL, 1000, a);
			int got = lt_py_line_at(fmt, t, n, &ix, 1000, a);
			cr_assert_eq(got, want, "format %d, address %d: %d from the index, %d scanned", fmt, a, got, want);
			lines += want > 0;
		}
		cr_assert_gt(lines, (size_t)span / 4, "format %d: the table gives few lines", fmt);
		lt_py_index_free(&ix);
	}
}

/* Line deltas that add up past int's range: malformed (-1), read without
 * overflowing; a malformed entry past a mark: -1 from the index too. */
Test(rt_lines, location_table_overflow_and_late_damage)
{
	static uint8_t t[3000];
	size_t n = 0;
	while (n + 6 <= sizeof(t)) { /* code 13, delta +2^29 - 1 (varint 2^30 - 2) */
		unsigned v = (1u << 30) - 2;
		t[n++] = 0x80 | 13 << 3;
		for (int k = 0; k < 5; k++, v >>= 6)
			t[n++] = (uint8_t)((v & 63) | (v >> 6 ? 64 : 0));
	}
	struct lt_py_index ix;
	cr_assert_eq(lt_py_index_build(LT_PY_311, t, n, &ix), 0);
	cr_assert_eq(lt_py_line_at(LT_PY_311, t, n, &ix, 1, 0), (1 << 29), "the first entry");
	cr_assert_eq(lt_py_line_at(LT_PY_311, t, n, &ix, 1, 6), 1 + 4 * ((1 << 29) - 1));
	cr_assert_eq(lt_py_line_at(LT_PY_311, t, n, &ix, 1, 8), -1, "past int's range");
	cr_assert_eq(lt_py_line_at(LT_PY_311, t, n, NULL, 1, 900), -1);
	cr_assert_eq(lt_py_line_at(LT_PY_311, t, n, &ix, 1, 900), -1);
	lt_py_index_free(&ix);

	size_t m = 0;
	for (int i = 0; i < 200; i++) { /* 200 entries of 1 unit, line +1 each */
		t[m++] = 0x80 | 11 << 3;
		t[m++] = 0;
		t[m++] = 1;
	}
	t[m++] = 0x80 | 13 << 3; /* its varint runs off the end */
	t[m++] = 0x41;
	cr_assert_eq(lt_py_index_build(LT_PY_311, t, m, &ix), 0);
	cr_assert_eq(ix.n, 4);
	cr_assert_eq(lt_py_line_at(LT_PY_311, t, m, &ix, 10, 2 * 150), 161);
	cr_assert_eq(lt_py_line_at(LT_PY_311, t, m, &ix, 10, 2 * 199), 210);
	cr_assert_eq(lt_py_line_at(LT_PY_311, t, m, &ix, 10, 2 * 200), -1);
	cr_assert_eq(lt_py_line_at(LT_PY_311, t, m, NULL, 10, 2 * 200), -1);
	lt_py_index_free(&ix);
}

/* ---- OCaml names ---- */

static void demangled(const char *sym, const char *want)
{
	char buf[128];
	cr_assert(lt_demangle_ocaml(sym, buf, sizeof(buf)), "%s not recognised", sym);
	cr_assert_str_eq(buf, want, "%s -> %s, want %s", sym, buf, want);
}

Test(rt_demangle, ocaml5_and_ocaml4)
{
	demangled("camlRepro.worker_399", "Repro.worker");
	demangled("camlRepro__worker_123", "Repro.worker");
	demangled("camlStdlib__List.map_123", "Stdlib.List.map");
	demangled("camlStdlib__List__map_123", "Stdlib.List.map");
	demangled("camlHolder__waiter_374", "Holder.waiter");
	demangled("camlMy_mod.do_it_12", "My_mod.do_it");
	demangled("camlRepro.Inner.f_7", "Repro.Inner.f");
	demangled("camlHolder__entry", "Holder.entry");
	demangled("camlStdlib__$40_197", "Stdlib.@");
	demangled("camlStdlib__Bytes__$2b$2b_127", "Stdlib.Bytes.++");
	demangled("camlStdlib.$5e_140", "Stdlib.^");
	/* anonymous functions keep the stamp that tells them apart */
	demangled("camlStdlib__Array__fun_530", "Stdlib.Array.fun_530");
	demangled("camlRepro.fun_1001", "Repro.fun_1001");
	/* a name ending in digits without a stamp is left alone */
	demangled("camlRepro.v2", "Repro.v2");
}

Test(rt_demangle, not_ocaml)
{
	char buf[64] = "untouched";
	const char *no[] = { "caml_alloc", "caml_thread_start", "caml_program", "caml_start_program",
			     "camlrepro_x", "main", "caml", "", "_camlRepro.f_1" };
	for (size_t i = 0; i < sizeof(no) / sizeof(no[0]); i++) {
		cr_assert_not(lt_demangle_ocaml(no[i], buf, sizeof(buf)), "%s taken for OCaml", no[i]);
		cr_assert_str_eq(buf, "untouched");
	}
	cr_assert_not(lt_demangle_ocaml(NULL, buf, sizeof(buf)));
	cr_assert_str_eq(lt_func_display("pthread_cond_wait", buf, sizeof(buf)), "pthread_cond_wait");
	cr_assert_str_eq(lt_func_display("camlRepro.worker_399", buf, sizeof(buf)), "Repro.worker");
}

Test(rt_demangle, cut_to_the_buffer)
{
	char buf[8];
	cr_assert(lt_demangle_ocaml("camlRepro.worker_399", buf, sizeof(buf)));
	cr_assert_str_eq(buf, "Repro.w");
}

/* ---- placing runtime frames ---- */

static bool loop(const char *f)
{
	return strcmp(f, "eval") == 0;
}

static void set_frames(struct lt_thread *t, const char *const *names, size_t n, size_t nrt)
{
	memset(t, 0, sizeof(*t));
	t->tid = 7;
	t->frames = calloc(n, sizeof(*t->frames));
	t->n_frames = n;
	for (size_t i = 0; i < n; i++)
		t->frames[i].func = names[i] ? strdup(names[i]) : NULL;
	t->rt_lang = "python";
	t->rt_frames = calloc(nrt, sizeof(*t->rt_frames));
	t->n_rt_frames = nrt;
}

Test(rt_place, groups_to_loop_frames)
{
	static const char *const nat[] = { "read", NULL, "call", "eval", "vectorcall", "eval", "start" };
	const unsigned group[] = { 0, 1, 1, 2 };
	struct lt_thread t;
	set_frames(&t, nat, 7, 4);
	lt_rt_place(&t, group, loop);
	cr_assert_eq(t.rt_frames[0].native, 3);
	cr_assert_eq(t.rt_frames[1].native, 5);
	cr_assert_eq(t.rt_frames[2].native, 5);
	cr_assert_eq(t.rt_frames[3].native, -1, "a third invocation with two loop frames");
	cr_assert_eq(t.notes.n, 1);
	cr_assert(strstr(t.notes.v[0], "1 of 4 python frames not placed"), "%s", t.notes.v[0]);
	lt_thread_clear(&t);

	/* no native stack at all (running): unplaced, no note */
	set_frames(&t, nat, 0, 2);
	lt_rt_place(&t, group, loop);
	cr_assert_eq(t.rt_frames[0].native, -1);
	cr_assert_eq(t.notes.n, 0);
	lt_thread_clear(&t);

	/* more loop frames than invocations: placed, but said */
	const unsigned one[] = { 0 };
	set_frames(&t, nat, 7, 1);
	lt_rt_place(&t, one, loop);
	cr_assert_eq(t.rt_frames[0].native, 3);
	cr_assert_eq(t.notes.n, 1);
	cr_assert(strstr(t.notes.v[0], "2 interpreter-loop frames for 1 invocations"), "%s",
		  t.notes.v[0]);
	lt_thread_clear(&t);
}

/* By pc (Java): the frames of one machine frame (a compiled method and
 * the one inlined into it) share its native frame; two machine frames at
 * the same pc are two native frames; a pc the native stack lacks stays
 * unplaced, with a note. */
Test(rt_place, by_pc_groups_to_native_frames)
{
	static const char *const nat[] = { "park", NULL, NULL, NULL, "call_helper" };
	static const uint64_t npc[] = { 0x1000, 0xa0, 0xb0, 0xb0, 0x2000 };
	static const uint64_t rpc[] = { 0xa0, 0xa0, 0xb0, 0xb0, 0xc0 };
	const unsigned group[] = { 0, 0, 1, 2, 3 };
	struct lt_thread t;
	set_frames(&t, nat, 5, 5);
	t.rt_lang = "java";
	for (size_t i = 0; i < 5; i++)
		t.frames[i].pc = npc[i];
	for (size_t i = 0; i < 5; i++)
		t.rt_frames[i].pc = rpc[i];
	lt_rt_place_pc(&t, group, NULL);
	cr_assert_eq(t.rt_frames[0].native, 1, "inlined: at its compiled frame");
	cr_assert_eq(t.rt_frames[1].native, 1);
	cr_assert_eq(t.rt_frames[2].native, 2);
	cr_assert_eq(t.rt_frames[3].native, 3, "the same pc, the next machine frame");
	cr_assert_eq(t.rt_frames[4].native, -1);
	cr_assert_eq(t.notes.n, 1);
	cr_assert(strstr(t.notes.v[0], "1 of 5 java frames not placed"), "%s", t.notes.v[0]);
	lt_thread_clear(&t);

	/* no native stack (running): unplaced, no note */
	set_frames(&t, nat, 0, 5);
	for (size_t i = 0; i < 5; i++)
		t.rt_frames[i].pc = rpc[i];
	lt_rt_place_pc(&t, group, NULL);
	cr_assert_eq(t.rt_frames[0].native, -1);
	cr_assert_eq(t.notes.n, 0);
	lt_thread_clear(&t);
}

/* By pc, with the runtime's code known (a JVM's code cache and call
 * stub): the unwinder walks JIT code by its frame pointer, which compiled
 * frames do not keep, so it skips them (a user's trial: a ReentrantLock
 * waiter whose compiled AbstractQueuedSynchronizer.acquire, lock() and
 * caller were listed after __clone3).  The frames it skipped go, in
 * their order, with the next frame it found, the outermost with the call
 * stub's frame; never after the thread's outermost native frame. */
Test(rt_place, by_pc_skipped_compiled_frames_keep_their_order)
{
	static const char *const nat[] = { "__futex_abstimed_wait_common", "Unsafe_Park", NULL, NULL, NULL,
					   NULL, NULL, "JavaCalls::call_helper", "start_thread", "__clone3" };
	static const uint64_t npc[] = { 0x10, 0x1000, 0xa0, 0xb0, 0x500, 0x600, 0x900, 0x2000, 0x3000, 0x4000 };
	/* Unsafe.park (native wrapper), LockSupport.park, AQS.acquire x2
	 * (compiled), Sync.lock and lock() inlined into rlBeta, lambda and
	 * Lambda.run (interpreted, one return address), Thread.run */
	static const uint64_t rpc[] = { 0xa0, 0xb0, 0xc0, 0xd0, 0xe0, 0xe0, 0xe0, 0x500, 0x500, 0x600 };
	const unsigned group[] = { 0, 1, 2, 3, 4, 4, 4, 5, 6, 7 };
	const struct lt_rt_code jvm = { 0x80, 0x1000, 0x900 };
	static const int want[] = { 2, 3, 4, 4, 4, 4, 4, 4, 5, 5 };
	struct lt_thread t;
	set_frames(&t, nat, 10, 10);
	t.rt_lang = "java";
	for (size_t i = 0; i < 10; i++) {
		t.frames[i].pc = npc[i];
		t.rt_frames[i].pc = rpc[i];
	}
	cr_assert_eq(lt_rt_place_pc(&t, group, &jvm), 6);
	for (size_t i = 0; i < 10; i++)
		cr_assert_eq(t.rt_frames[i].native, want[i], "frame %zu at %d, not %d", i, t.rt_frames[i].native,
			     want[i]);
	cr_assert_eq(t.notes.n, 1);
	cr_assert(strstr(t.notes.v[0], "6 of 10 java frames placed by their order"), "%s", t.notes.v[0]);
	cr_assert(!strstr(t.notes.v[0], "outermost"), "%s", t.notes.v[0]);
	lt_thread_clear(&t);

	/* Thread.run's frame skipped too: the outermost go with the call
	 * stub's frame, just inside JavaCalls::call_helper */
	set_frames(&t, nat, 10, 10);
	t.rt_lang = "java";
	for (size_t i = 0; i < 10; i++) {
		t.frames[i].pc = npc[i];
		t.rt_frames[i].pc = rpc[i];
	}
	t.frames[5].pc = 0x520; /* a stub's frame: no Java frame has it */
	cr_assert_eq(lt_rt_place_pc(&t, group, &jvm), 7);
	cr_assert_eq(t.rt_frames[7].native, 4);
	cr_assert_eq(t.rt_frames[8].native, 6);
	cr_assert_eq(t.rt_frames[9].native, 6);
	cr_assert(strstr(t.notes.v[0], "the outermost inside frame #6, the frame that entered the runtime's code"),
		  "%s", t.notes.v[0]);
	lt_thread_clear(&t);

	/* the unwinder stopped inside the Java frames: those it did not
	 * reach follow the native stack, which ends there */
	set_frames(&t, nat, 5, 10);
	t.rt_lang = "java";
	for (size_t i = 0; i < 10; i++) {
		t.rt_frames[i].pc = rpc[i];
		if (i < 5)
			t.frames[i].pc = npc[i];
	}
	cr_assert_eq(lt_rt_place_pc(&t, group, &jvm), 5);
	cr_assert_eq(t.rt_frames[6].native, 4);
	cr_assert_eq(t.rt_frames[7].native, 4);
	cr_assert_eq(t.rt_frames[8].native, -1);
	cr_assert_eq(t.rt_frames[9].native, -1);
	cr_assert_eq(t.notes.n, 2);
	cr_assert(strstr(t.notes.v[1], "2 of 10 java frames not placed"), "%s", t.notes.v[1]);
	lt_thread_clear(&t);

	/* without the code's bounds: as before, the skipped frames unplaced */
	set_frames(&t, nat, 10, 10);
	t.rt_lang = "java";
	for (size_t i = 0; i < 10; i++) {
		t.frames[i].pc = npc[i];
		t.rt_frames[i].pc = rpc[i];
	}
	cr_assert_eq(lt_rt_place_pc(&t, group, NULL), 0);
	cr_assert_eq(t.rt_frames[2].native, -1);
	lt_thread_clear(&t);
}

/* ---- fixtures: a fake CPython process ---- */

/* Offsets of one version: those of its own headers (build/gen/
 * cpython_layouts.h, generated by tests/gen/cpython_layout.c with
 * offsetof() on Include/internal), not the model's table; fxl(13)
 * publishes its own in _Py_DebugOffsets. */
struct fxl {
	unsigned minor;
	uint32_t rt_head, is_next, is_threads, is_modules;
	uint32_t ts_next, ts_frame, ts_pthread, ts_native;
	int cf_frame;                       /* -1: ts_frame is the frame */
	bool old;                           /* PyFrameObject (<= 3.10) */
	uint32_t f_back, f_code, f_trace, f_lasti, f_lineno, f_locals;
	uint32_t if_prev, if_code, if_instr, if_locals, if_owner, if_entry;
	uint32_t co_filename, co_name, co_qualname, co_first, co_table, co_names, co_stacksize;
	uint32_t co_code, co_firsttraceable;
	uint32_t str_ascii, str_compact;
	bool long_tag, dict311;
	uint32_t dv_values, ht_cached_keys;
	int inst;                           /* 0 dictoffset, 11, 12, 13 */
};

/* The layout of 3.MINOR from the first include directory of that version
 * on the machine, or a skip: without its headers the image of that version
 * cannot be laid out.  What is not an offset (frame kind, long tag, dict
 * keys kind, where instances keep attributes) is the version's, as
 * docs/runtimes.md gives it. */
static const struct fxl *fxl(unsigned minor)
{
	static struct fxl made[14];
	size_t i = 0;
	const struct gen_cpy *g = minor < 14 ? gen_cpy_next((int)minor, &i) : NULL;
	if (!g)
		cr_skip_test("no CPython 3.%u headers here (" GEN_CPY_WHERE "): the image of that version "
			     "cannot be laid out from them", minor);
#define U(x) ((uint32_t)((x) < 0 ? 0 : (x)))
	made[minor] = (struct fxl){
		.minor = minor, .rt_head = U(g->rt_head), .is_next = U(g->is_next),
		.is_threads = U(g->is_threads), .is_modules = U(g->is_modules), .ts_next = U(g->ts_next),
		.ts_frame = U(g->ts_frame), .ts_pthread = U(g->ts_pthread), .ts_native = U(g->ts_native),
		.cf_frame = (int)g->cf_frame, .old = minor <= 10, .f_back = U(g->f_back),
		.f_code = U(g->f_code), .f_trace = U(g->f_trace), .f_lasti = U(g->f_lasti),
		.f_lineno = U(g->f_lineno), .f_locals = U(g->f_locals), .if_prev = U(g->if_prev),
		.if_code = U(g->if_code), .if_instr = U(g->if_instr), .if_locals = U(g->if_locals),
		.if_owner = U(g->if_owner), .if_entry = U(g->if_entry), .co_filename = U(g->co_filename),
		.co_name = U(g->co_name), .co_qualname = U(g->co_qualname), .co_first = U(g->co_firstlineno),
		.co_table = U(g->co_linetable), .co_names = U(g->co_names), .co_stacksize = U(g->co_stacksize),
		.co_code = U(g->co_code), .co_firsttraceable = U(g->co_firsttraceable),
		.str_ascii = U(g->str_ascii), .str_compact = U(g->str_compact), .long_tag = minor >= 12,
		.dict311 = minor >= 11, .dv_values = U(g->dv_values), .ht_cached_keys = U(g->ht_cached_keys),
		.inst = minor <= 10 ? 0 : (int)minor,
	};
#undef U
	return &made[minor];
}

#define ARENA 0x10000000ull
#define ARENA_LEN (4u << 20) /* room for the hostile images' 1 MiB line table */

struct fx {
	struct fxl l;
	struct fp_image img; /* lt_fakeproc.h */
	uint64_t t_str, t_bytes, t_long, t_tuple, t_dict, t_code, t_module;
	uint64_t runtime, interp;
	struct lt_snapshot snap;
	struct lt_thread threads[4];
	bool fsbase;        /* answer fs bases (pthread_t) */
	uint64_t pt[3];     /* each thread's pthread_t (its fs base) */
};

static int fx_read(void *arg, uint64_t addr, void *buf, size_t len)
{
	struct fx *f = arg;
	return fi_read(&f->img, addr, buf, len);
}

static int fx_lookup(void *arg, const char *name, uint64_t *addr, uint64_t *size)
{
	struct fx *f = arg;
	return fi_lookup(&f->img, name, addr, size); /* sizes unknown: 0 */
}

static uint64_t fx_fsbase(void *arg, pid_t tid)
{
	struct fx *f = arg;
	return f->fsbase && tid >= 100 && tid < 103 ? f->pt[tid - 100] : 0;
}

static void fx_env(struct fx *f, struct lt_lm_env *e)
{
	*e = (struct lt_lm_env){ .arg = f, .read = fx_read, .lookup = fx_lookup,
				 .stack_tid = fp_no_stack_tid, .fsbase = fx_fsbase, .s = &f->snap };
}

/* An object header: refcount 1 and TYPE. */
static uint64_t obj(struct fx *f, uint64_t type, size_t len)
{
	uint64_t o = fi_alloc(&f->img, len);
	fi_put64(&f->img, o, 1);
	fi_put64(&f->img, o + 8, type);
	return o;
}

static uint64_t type_obj(struct fx *f, const char *name, uint64_t flags, int64_t dictoffset,
			 uint64_t basicsize, uint64_t cached_keys)
{
	uint64_t t = obj(f, 0, 0x400), s = fi_alloc(&f->img, strlen(name) + 1);
	fi_write(&f->img, s, name, strlen(name) + 1);
	fi_put64(&f->img, t + 0x18, s);
	fi_put64(&f->img, t + 0x20, basicsize);
	fi_put64(&f->img, t + 0xa8, flags);
	fi_put64(&f->img, t + 0x120, (uint64_t)dictoffset);
	fi_put64(&f->img, t + f->l.ht_cached_keys, cached_keys);
	return t;
}

/* A compact str: ASCII, or Latin-1 (kind 1) / UCS-2 (kind 2) code points. */
static uint64_t str_kind(struct fx *f, const uint32_t *cp, size_t n, unsigned kind, bool ascii)
{
	size_t hdr = ascii ? f->l.str_ascii : f->l.str_compact;
	uint64_t o = obj(f, f->t_str, hdr + (n + 1) * kind);
	fi_put64(&f->img, o + 0x10, n);
	fi_put64(&f->img, o + 0x18, (uint64_t)-1);
	uint32_t state = kind << 2 | 1u << 5 | (ascii ? 1u << 6 : 0) | (f->l.minor < 12 ? 1u << 7 : 0);
	fi_put32(&f->img, o + 0x20, state);
	for (size_t i = 0; i < n; i++)
		fi_write(&f->img, o + hdr + i * kind, &cp[i], kind); /* little-endian */
	return o;
}

static uint64_t str(struct fx *f, const char *s)
{
	uint32_t cp[256];
	size_t n = strlen(s);
	cr_assert_lt(n, 256);
	for (size_t i = 0; i < n; i++)
		cp[i] = (unsigned char)s[i];
	return str_kind(f, cp, n, 1, true);
}

static uint64_t bytes(struct fx *f, const uint8_t *b, size_t n)
{
	uint64_t o = obj(f, f->t_bytes, 0x21 + n);
	fi_put64(&f->img, o + 0x10, n);
	fi_write(&f->img, o + 0x20, b, n);
	return o;
}

static uint64_t pylong(struct fx *f, uint64_t v)
{
	uint32_t d[3];
	size_t nd = 0;
	for (uint64_t x = v; x; x >>= 30)
		d[nd++] = (uint32_t)(x & 0x3fffffff);
	uint64_t o = obj(f, f->t_long, 0x18 + 4 * (nd ? nd : 1));
	fi_put64(&f->img, o + 0x10, f->l.long_tag ? (nd ? nd << 3 : 1) : nd);
	for (size_t i = 0; i < nd; i++)
		fi_put32(&f->img, o + 0x18 + 4 * i, d[i]);
	return o;
}

static uint64_t tuple(struct fx *f, const uint64_t *items, size_t n)
{
	uint64_t o = obj(f, f->t_tuple, 0x18 + 8 * (n ? n : 1));
	fi_put64(&f->img, o + 0x10, n);
	for (size_t i = 0; i < n; i++)
		fi_put64(&f->img, o + 0x18 + 8 * i, items[i]);
	return o;
}

/* A keys object of up to 5 entries.  KIND: 0 general (any keys), 1 str
 * keys, 2 split (keys only: the values are elsewhere).  3.8-3.10 have one
 * entry form (hash, key, value) and 1-byte indices for 8 slots; 3.11+
 * take the form from the kind and log2 sizes. */
static uint64_t keys_obj(struct fx *f, const uint64_t *k, const uint64_t *v, size_t n, int kind)
{
	cr_assert_leq(n, 5);
	uint64_t ko;
	size_t entries, stride = 24, koff = 8, voff = 16;
	if (!f->l.dict311) {
		ko = fi_alloc(&f->img, 0x30 + 5 * 24);
		fi_put64(&f->img, ko + 8, 8);            /* dk_size */
		fi_put64(&f->img, ko + 0x18, 5 - n);     /* dk_usable */
		fi_put64(&f->img, ko + 0x20, n);         /* dk_nentries */
		entries = 0x28 + 8;           /* 8 one-byte indices */
	} else {
		ko = fi_alloc(&f->img, 0x28 + 5 * 24);
		fi_put8(&f->img, ko + 8, 3);             /* dk_log2_size */
		fi_put8(&f->img, ko + 9, 3);             /* dk_log2_index_bytes */
		fi_put8(&f->img, ko + 10, (uint8_t)kind);
		fi_put64(&f->img, ko + 0x10, 5 - n);     /* dk_usable */
		fi_put64(&f->img, ko + 0x18, n);         /* dk_nentries */
		entries = 0x20 + 8;
		if (kind) {
			stride = 16, koff = 0, voff = 8;
		}
	}
	fi_put64(&f->img, ko, 1);
	for (size_t i = 0; i < 8; i++)
		fi_put8(&f->img, ko + entries - 8 + i, i < n ? (uint8_t)i : 0xff);
	for (size_t i = 0; i < n; i++) {
		uint64_t e = ko + entries + stride * i;
		if (stride == 24)
			fi_put64(&f->img, e, 0x1234 + i);
		fi_put64(&f->img, e + koff, k[i]);
		fi_put64(&f->img, e + voff, kind == 2 ? 0 : v[i]);
	}
	return ko;
}

/* A values array for split keys (PyDictValues; 3.13 has a 4-byte
 * prefix, padded to 8). */
static uint64_t values_obj(struct fx *f, const uint64_t *v, size_t n, bool valid)
{
	uint64_t o = fi_alloc(&f->img, 8 + 8 * n);
	if (f->l.dv_values) {
		fi_put8(&f->img, o, (uint8_t)n);
		fi_put8(&f->img, o + 1, (uint8_t)n);
		fi_put8(&f->img, o + 2, 1);
		fi_put8(&f->img, o + 3, valid);
	}
	for (size_t i = 0; i < n; i++)
		fi_put64(&f->img, o + f->l.dv_values + 8 * i, v[i]);
	return o;
}

static uint64_t dict(struct fx *f, const uint64_t *k, const uint64_t *v, size_t n, int kind)
{
	uint64_t d = obj(f, f->t_dict, 0x30);
	fi_put64(&f->img, d + 0x10, n);
	fi_put64(&f->img, d + 0x20, keys_obj(f, k, v, n, kind));
	return d;
}

/* A str-keyed dict of up to 5 NAMES -> VALUES. */
static uint64_t sdict(struct fx *f, const char *const *names, const uint64_t *v, size_t n)
{
	uint64_t k[5];
	for (size_t i = 0; i < n; i++)
		k[i] = str(f, names[i]);
	return dict(f, k, v, n, 1);
}

/* ---- fixtures: objects of the interpreter ---- */

#define TPF_INLINE_VALUES (1u << 2)
#define TPF_MANAGED_DICT (1u << 4)

/* A Thread instance whose attributes (_target, then _name) are kept as
 * the version keeps an instance's: a __dict__ at tp_dictoffset (<= 3.10),
 * split values before the object (3.11: obj-32; 3.12: tagged at obj-24) or
 * inline after it (3.13).  IN_DICT: a materialized __dict__ instead. */
static uint64_t thread_obj(struct fx *f, uint64_t name, bool in_dict)
{
	static const char *const attrs[] = { "_target", "_name" };
	uint64_t vals[2] = { str(f, "target"), name }, k[2] = { str(f, attrs[0]), str(f, attrs[1]) };
	int inst = f->l.inst;
	uint64_t keys = inst ? keys_obj(f, k, vals, 2, 2) : 0;
	uint64_t flags = inst == 13 ? TPF_INLINE_VALUES | TPF_MANAGED_DICT : inst ? TPF_MANAGED_DICT : 0;
	uint64_t type = type_obj(f, "Thread", flags, inst ? -1 : 16, 16, keys);
	uint64_t base = fi_alloc(&f->img, 32 + 16 + 8 + 16 + 16), o = base + 32;
	fi_put64(&f->img, o, 1);
	fi_put64(&f->img, o + 8, type);
	uint64_t d = in_dict || !inst ? sdict(f, attrs, vals, 2) : 0;
	if (!inst)
		fi_put64(&f->img, o + 16, d);
	else if (in_dict)
		fi_put64(&f->img, o - 24, d);
	else if (inst == 11)
		fi_put64(&f->img, o - 32, values_obj(f, vals, 2, true));
	else if (inst == 12)
		fi_put64(&f->img, o - 24, values_obj(f, vals, 2, true) - 1);
	if (inst == 13) { /* inline values right after the object */
		fi_put8(&f->img, o + 16, 2);
		fi_put8(&f->img, o + 17, 2);
		fi_put8(&f->img, o + 18, 1);
		fi_put8(&f->img, o + 19, !in_dict);
		fi_put64(&f->img, o + 24, vals[0]);
		fi_put64(&f->img, o + 32, vals[1]);
	}
	return o;
}

/* A code object; its bytecode (3.11+) is inside it at co_code. */
static uint64_t code_obj(struct fx *f, const char *name, const char *qualname, const char *file,
			 const uint8_t *tab, size_t ntab, int first, const char *const *locals,
			 size_t nlocals)
{
	const struct fxl *l = &f->l;
	uint64_t names[4];
	uint64_t o = obj(f, f->t_code, 0x100 + 0x100);
	for (size_t i = 0; i < nlocals; i++)
		names[i] = str(f, locals[i]);
	fi_put64(&f->img, o + l->co_filename, str(f, file));
	fi_put64(&f->img, o + l->co_name, str(f, name));
	if (l->co_qualname)
		fi_put64(&f->img, o + l->co_qualname, str(f, qualname));
	fi_put32(&f->img, o + l->co_first, (uint32_t)first);
	fi_put64(&f->img, o + l->co_table, bytes(f, tab, ntab));
	fi_put64(&f->img, o + l->co_names, tuple(f, names, nlocals));
	fi_put32(&f->img, o + l->co_stacksize, 4);
	if (l->co_firsttraceable)
		fi_put32(&f->img, o + l->co_firsttraceable, 0);
	return o;
}

static uint64_t locals_of(struct fx *f, uint64_t frame)
{
	return frame + (f->l.old ? f->l.f_locals : f->l.if_locals);
}

/* A frame running CODE at byte offset OFF.  <= 3.10: a PyFrameObject
 * (LINENO and TRACE as the frame keeps them); 3.11+: an interpreter
 * frame (OWNER, ENTRY). */
static uint64_t frame(struct fx *f, uint64_t back, uint64_t code, int off, int lineno, bool trace,
		      int owner, bool entry)
{
	const struct fxl *l = &f->l;
	if (l->old) {
		uint64_t fr = obj(f, 0, l->f_locals + 8 * 8);
		fi_put64(&f->img, fr + l->f_back, back);
		fi_put64(&f->img, fr + l->f_code, code);
		fi_put64(&f->img, fr + l->f_trace, trace);
		fi_put32(&f->img, fr + l->f_lasti, (uint32_t)(l->minor >= 10 ? off / 2 : off));
		fi_put32(&f->img, fr + l->f_lineno, (uint32_t)lineno);
		return fr;
	}
	uint64_t fr = fi_alloc(&f->img, l->if_locals + 8 * 8);
	fi_put64(&f->img, fr + l->if_prev, back);
	fi_put64(&f->img, fr + l->if_code, code);
	fi_put64(&f->img, fr + l->if_instr, code ? code + l->co_code + (uint64_t)off : 0);
	fi_put8(&f->img, fr + l->if_owner, (uint8_t)owner);
	if (l->if_entry)
		fi_put8(&f->img, fr + l->if_entry, entry);
	return fr;
}

/* The frame below an interpreter-loop invocation: 3.12+ push one owned by
 * the C stack; 3.11 marks the invocation's first frame instead. */
static uint64_t boundary(struct fx *f, uint64_t back)
{
	return f->l.minor >= 12 ? frame(f, back, 0, 0, 0, false, 3, false) : back;
}

static uint64_t tstate(struct fx *f, uint64_t next, pid_t tid, uint64_t pt, uint64_t top)
{
	const struct fxl *l = &f->l;
	uint64_t ts = fi_alloc(&f->img, 0x100);
	fi_put64(&f->img, ts + l->ts_next, next);
	fi_put64(&f->img, ts + l->ts_pthread, pt);
	if (l->ts_native)
		fi_put64(&f->img, ts + l->ts_native, (uint64_t)tid);
	if (l->cf_frame < 0) {
		fi_put64(&f->img, ts + l->ts_frame, top);
	} else {
		uint64_t cf = fi_alloc(&f->img, 0x20);
		fi_put64(&f->img, cf + (uint32_t)l->cf_frame, top);
		fi_put64(&f->img, ts + l->ts_frame, cf);
	}
	return ts;
}

/* ---- fixtures: a whole process ---- */

#define OFF_A 48
#define OFF_B 16
#define OFF_C 64
#define MAIN_TID 100

static const uint8_t *sample(unsigned minor, size_t *n, const int (**want)[2], size_t *nwant)
{
#define S(v) (*n = sizeof(tab_##v), *want = want_##v, *nwant = sizeof(want_##v) / sizeof(want_##v[0]), tab_##v)
	switch (minor) {
	case 8: case 9: return S(38); /* the same lnotab format */
	case 10: return S(310);
	case 11: return S(311);
	case 12: return S(312);
	default: return S(313);
	}
#undef S
}

/* What PyCode_Addr2Line said for the sample at OFF. */
static int sample_line(unsigned minor, int off)
{
	size_t n, nw;
	const int(*want)[2];
	sample(minor, &n, &want, &nw);
	for (size_t i = 0; i < nw; i++)
		if (want[i][0] == off)
			return want[i][1] < 0 ? 0 : want[i][1];
	cr_assert_fail("no sample line at %d", off);
	return 0;
}

static void native_frames(struct lt_thread *t)
{
	static const char *const nat[] = { "futex_wait", "sem_wait", "PyThread_acquire_lock_timed",
					   "_PyEval_EvalFrameDefault", "call", "_PyEval_EvalFrameDefault",
					   "call", "_PyEval_EvalFrameDefault.cold", "start_thread" };
	t->n_frames = sizeof(nat) / sizeof(nat[0]);
	t->frames = calloc(t->n_frames, sizeof(*t->frames));
	for (size_t i = 0; i < t->n_frames; i++)
		t->frames[i].func = strdup(nat[i]);
}

static uint64_t type_named(struct fx *f, const char *name, const char *sym)
{
	uint64_t t = type_obj(f, name, 0, 0, 0, 0);
	if (sym)
		fi_sym(&f->img, sym, t);
	return t;
}

static void fx_init(struct fx *f, const struct fxl *l)
{
	memset(f, 0, sizeof(*f));
	f->l = *l;
	fi_init(&f->img, ARENA, ARENA_LEN, 0x100); /* nothing at the arena's first bytes */
	f->t_str = type_named(f, "str", "PyUnicode_Type");
	f->t_bytes = type_named(f, "bytes", "PyBytes_Type");
	f->t_long = type_named(f, "int", "PyLong_Type");
	f->t_tuple = type_named(f, "tuple", "PyTuple_Type");
	f->t_dict = type_named(f, "dict", "PyDict_Type");
	f->t_code = type_named(f, "code", "PyCode_Type");
	f->t_module = type_named(f, "module", NULL);
	for (int i = 0; i < 3; i++) {
		struct lt_thread *t = &f->threads[i];
		t->tid = MAIN_TID + i;
		t->sc.state = LT_SC_IN_SYSCALL;
		native_frames(t);
	}
	f->snap.pid = MAIN_TID;
	f->snap.threads = f->threads;
	f->snap.n_threads = 3;
	f->fsbase = true;
}

static void fx_free(struct fx *f)
{
	for (size_t i = 0; i < f->snap.n_threads; i++)
		lt_thread_clear(&f->threads[i]);
	lt_strlist_free(&f->snap.notes);
	fi_free(&f->img);
}

/* _Py_DebugOffsets (3.13) publishing the fixture's own offsets. */
static void debug_offsets(struct fx *f, uint64_t rt, uint32_t hex)
{
	const struct fxl *l = &f->l;
	const struct { unsigned at; uint64_t v; } d[] = {
		{ 8, hex }, { 16, 0 }, { 40, l->rt_head }, { 56, 0x1c68 }, { 64, l->is_next },
		{ 72, l->is_threads }, { 88, l->is_modules }, { 168, l->ts_next }, { 184, l->ts_frame },
		{ 192, l->ts_pthread }, { 200, l->ts_native }, { 232, l->if_prev }, { 240, l->if_code },
		{ 248, l->if_instr }, { 256, l->if_locals }, { 264, l->if_owner }, { 280, l->co_filename },
		{ 288, l->co_name }, { 296, l->co_qualname }, { 304, l->co_table }, { 312, l->co_first },
		{ 328, l->co_names }, { 344, l->co_code }, { 360, 8 }, { 376, 0x18 }, { 392, 0xa8 },
		{ 408, 0x18 }, { 456, 0x20 }, { 464, 0x28 }, { 496, 0x10 }, { 504, 0x18 }, { 520, 0x10 },
		{ 528, 0x20 }, { 544, 0x20 }, { 552, 0x10 }, { 560, l->str_ascii },
	};
	fi_write(&f->img, rt, "xdebugpy", 8);
	for (size_t i = 0; i < sizeof(d) / sizeof(d[0]); i++)
		fi_put64(&f->img, rt + d[i].at, d[i].v);
}

/* How the process says its version: Py_GetVersion's code refers to the
 * string (<= 3.10), Py_Version (3.11, 3.12), _Py_DebugOffsets (3.13+). */
static void version(struct fx *f, uint64_t rt, const char *text, uint32_t hex)
{
	if (f->l.minor <= 10) {
		uint64_t s = fi_alloc(&f->img, 16), code = fi_alloc(&f->img, 16);
		fi_write(&f->img, s, text, strlen(text) + 1);
		fi_put8(&f->img, code, 0xba); /* mov $imm32, %edx */
		fi_put32(&f->img, code + 1, (uint32_t)s);
		fi_sym(&f->img, "Py_GetVersion", code);
	} else if (f->l.minor <= 12) {
		uint64_t v = fi_alloc(&f->img, 8);
		fi_put32(&f->img, v, hex);
		fi_sym(&f->img, "Py_Version", v);
	} else {
		debug_offsets(f, rt, hex);
	}
}

/* What an image holds, for the assertions. */
struct image {
	uint64_t lock, sem, pt[3];
	uint64_t interp, top[3];   /* the interpreter, each thread's innermost frame */
	const char *name2;         /* thread 102's name, UTF-8 */
};

/* Three frames of one thread: F0 <- F1 [<- boundary] <- F2.  GROUPS as the
 * version groups them. */
static uint64_t chain3(struct fx *f, uint64_t c0, uint64_t c1, uint64_t c2, uint64_t *f0)
{
	bool old = f->l.old;
	uint64_t outer = boundary(f, 0);
	uint64_t fr2 = frame(f, outer, c2, OFF_C, 0, false, 0, true);
	uint64_t mid = old ? fr2 : boundary(f, fr2);
	uint64_t fr1 = frame(f, mid, c1, OFF_B, 0, false, 0, true);
	return *f0 = frame(f, fr1, c0, OFF_A, 0, false, 0, false);
}

/* Two frames: F0 <- F1 [<- boundary]; F0's line from LINENO where the
 * version keeps one (<= 3.10), else from OFF_C. */
static uint64_t chain2(struct fx *f, uint64_t c0, uint64_t c1, int off0, int lineno)
{
	uint64_t fr1 = frame(f, boundary(f, 0), c1, OFF_B, 0, false, 0, true);
	return frame(f, fr1, c0, off0, lineno, f->l.minor <= 9 && lineno, 0, false);
}

static void build(struct fx *f, struct image *im, const char *vtext, uint32_t hex)
{
	const struct fxl *l = &f->l;
	size_t ntab, nw;
	const int(*want)[2];
	const uint8_t *tab = sample(l->minor, &ntab, &want, &nw);
	uint64_t rt = fi_alloc(&f->img, 0x2000);
	fi_sym(&f->img, "_PyRuntime", rt);
	version(f, rt, vtext, hex);
	uint64_t interp = fi_alloc(&f->img, 0x2000);
	fi_put64(&f->img, rt + l->rt_head, interp);
	static const char *const wl[] = { "self", "lk" }, *const hl[] = { "mine" };
	uint64_t c_main = code_obj(f, "main", "main", "app.py", tab, ntab, 2, NULL, 0);
	uint64_t c_mod = code_obj(f, "<module>", "<module>", "app.py", tab, ntab, 2, NULL, 0);
	uint64_t c_wait = code_obj(f, "wait_on", "Worker.wait_on", "/srv/app/worker.py", tab, ntab, 2, wl, 2);
	uint64_t c_run = code_obj(f, "run", "Thread.run", "/usr/lib/python3/threading.py", tab, ntab, 2, NULL, 0);
	uint64_t c_boot = code_obj(f, "_bootstrap", "Thread._bootstrap", "/usr/lib/python3/threading.py",
				   tab, ntab, 2, NULL, 0);
	uint64_t c_hold = code_obj(f, "hold", "hold", "/srv/app/worker.py", tab, ntab, 2, hl, 1);
	/* the lock thread 101 waits for, which thread 102 keeps in 'mine' */
	im->sem = fi_alloc(&f->img, 32);
	im->lock = obj(f, type_named(f, "_thread.lock", NULL), 0x30);
	fi_put64(&f->img, im->lock + 16, im->sem);
	uint64_t top0 = chain2(f, c_main, c_mod, OFF_A, 0), f101, top1 = chain3(f, c_wait, c_run, c_boot, &f101);
	uint64_t top2 = chain2(f, c_hold, c_boot, OFF_C, 77);
	im->interp = interp;
	im->top[0] = top0, im->top[1] = top1, im->top[2] = top2;
	fi_put64(&f->img, locals_of(f, f101) + 8, im->lock);
	fi_put64(&f->img, locals_of(f, top2), im->lock);
	for (int i = 0; i < 3; i++) {
		im->pt[i] = f->pt[i] = fi_alloc(&f->img, 0x300);
		fi_put32(&f->img, im->pt[i] + 0x2d0, (uint32_t)(MAIN_TID + i));
	}
	uint64_t ts2 = tstate(f, 0, 102, im->pt[2], top2), ts1 = tstate(f, ts2, 101, im->pt[1], top1);
	fi_put64(&f->img, interp + l->is_threads, tstate(f, ts1, 100, im->pt[0], top0));
	/* threading._active: thread 102's name is UCS-2, in a materialized dict */
	static const uint32_t ucs2[] = { 0x4f5c, 0x696d, 0x8005 };
	im->name2 = "\xe4\xbd\x9c\xe6\xa5\xad\xe8\x80\x85";
	uint64_t k[3], v[3] = { thread_obj(f, str(f, "MainThread"), false),
				thread_obj(f, str(f, "worker-1"), false),
				thread_obj(f, str_kind(f, ucs2, 3, 2, false), true) };
	for (int i = 0; i < 3; i++)
		k[i] = pylong(f, im->pt[i]);
	static const char *const md[] = { "__name__", "_active" }, *const mods[] = { "sys", "threading" };
	uint64_t mdv[2] = { str(f, "threading"), dict(f, k, v, 3, 0) };
	uint64_t module = obj(f, f->t_module, 0x30);
	fi_put64(&f->img, module + 0x10, sdict(f, md, mdv, 2));
	uint64_t modv[2] = { str(f, "sys"), module };
	fi_put64(&f->img, interp + l->is_modules, sdict(f, mods, modv, 2));
	/* thread 101 sleeps on the lock's semaphore */
	struct lt_futex *fx = &f->threads[1].futex;
	f->threads[1].wait = LT_WAIT_FUTEX;
	fx->is_wait = true;
	fx->uaddr = im->sem;
	fx->lock_kind = "semaphore";
	fx->lock_base = im->sem;
	fx->lock_state = strdup("value 0, 1 waiter");
}

/* A fresh process of layout L holding the interpreter image of version
 * VTEXT (HEX: its Py_Version, 0 for none). */
static void image(struct fx *f, struct image *im, const struct fxl *l, const char *vtext, uint32_t hex)
{
	fx_init(f, l);
	build(f, im, vtext, hex);
}

static void apply(struct fx *f)
{
	struct lt_lm_env e;
	fx_env(f, &e);
	lt_rtthreads_apply(&f->snap, &e);
	for (size_t i = 0; i < f->snap.notes.n; i++)
		fprintf(stderr, "note: %s\n", f->snap.notes.v[i]);
}

static void expect_frame(const struct lt_thread *t, size_t i, const char *func, const char *file,
			 int line, int native)
{
	cr_assert_gt(t->n_rt_frames, i, "thread %d: %zu frames (%s)", t->tid, t->n_rt_frames,
		     t->rt_end ? t->rt_end : "-");
	const struct lt_rtframe *r = &t->rt_frames[i];
	cr_assert_str_eq(r->func, func, "thread %d frame %zu", t->tid, i);
	cr_assert_str_eq(r->file, file, "thread %d frame %zu", t->tid, i);
	cr_assert_eq(r->line, line, "thread %d frame %zu: line %d, want %d", t->tid, i, r->line, line);
	cr_assert_eq(r->native, native, "thread %d frame %zu: native %d, want %d", t->tid, i, r->native,
		     native);
}

/* Everything the image holds, as VERSION's model must read it. */
static void expect_image(struct fx *f, const struct image *im, bool names)
{
	unsigned m = f->l.minor;
	bool q = m >= 11, old = f->l.old;
	const struct lt_thread *t0 = &f->threads[0], *t1 = &f->threads[1], *t2 = &f->threads[2];
	for (int i = 0; i < 3; i++) {
		cr_assert_str_eq(f->threads[i].rt_lang, "python");
		cr_assert_null(f->threads[i].rt_end, "%s", f->threads[i].rt_end);
	}
	cr_assert_eq(t0->n_rt_frames, 2);
	expect_frame(t0, 0, "main", "app.py", sample_line(m, OFF_A), 3);
	expect_frame(t0, 1, "<module>", "app.py", sample_line(m, OFF_B), old ? 5 : 3);
	cr_assert_eq(t1->n_rt_frames, 3);
	expect_frame(t1, 0, q ? "Worker.wait_on" : "wait_on", "/srv/app/worker.py", sample_line(m, OFF_A), 3);
	expect_frame(t1, 1, q ? "Thread.run" : "run", "/usr/lib/python3/threading.py", sample_line(m, OFF_B),
		     old ? 5 : 3);
	expect_frame(t1, 2, q ? "Thread._bootstrap" : "_bootstrap", "/usr/lib/python3/threading.py",
		     sample_line(m, OFF_C), old ? 7 : 5);
	expect_frame(t2, 0, "hold", "/srv/app/worker.py", old ? 77 : sample_line(m, OFF_C), 3);
	if (names) {
		cr_assert_str_eq(t0->rt_name, "MainThread");
		cr_assert_str_eq(t1->rt_name, "worker-1");
		cr_assert_str_eq(t2->rt_name, im->name2);
		cr_assert_str_eq(lt_thread_name(t1), "worker-1");
	} else {
		for (int i = 0; i < 3; i++)
			cr_assert_null(f->threads[i].rt_name);
	}
	const struct lt_futex *fx = &t1->futex;
	cr_assert_str_eq(fx->lock_kind, "threading.Lock");
	cr_assert_eq(fx->lock_base, im->lock);
	cr_assert_str_eq(fx->lock_name, "lk");
	cr_assert(strstr(fx->lock_state, "its semaphore: value 0, 1 waiter"), "%s", fx->lock_state);
	cr_assert(strstr(fx->lock_state, "thread 102 (") && strstr(fx->lock_state, "has it in 'mine' of hold"),
		  "%s", fx->lock_state);
	/* a Lock records no owner: the one other thread keeping it in a
	 * local variable is its holder, inferred and said to be */
	cr_assert_eq(fx->owner_kind, LT_OWNER_INFERRED, "kind %d", fx->owner_kind);
	cr_assert_eq(fx->owner, t2->tid);
	cr_assert(fx->owner_how && strstr(fx->owner_how, "local variable 'mine' of hold"), "%s",
		  fx->owner_how ? fx->owner_how : "-");
}

static void run_version(const struct fxl *l, const char *text, uint32_t hex)
{
	struct fx f;
	struct image im;
	image(&f, &im, l, text, hex);
	apply(&f);
	cr_assert_eq(f.snap.notes.n, 0);
	expect_image(&f, &im, true);
	fx_free(&f);
}

Test(rt_cpython_fixture, v3_8)
{
	run_version(fxl(8), "3.8.18", 0x030812f0);
}

Test(rt_cpython_fixture, v3_9)
{
	run_version(fxl(9), "3.9.18", 0x030912f0);
}

Test(rt_cpython_fixture, v3_10)
{
	run_version(fxl(10), "3.10.13", 0x030a0df0);
}

Test(rt_cpython_fixture, v3_11)
{
	run_version(fxl(11), "3.11.2", 0x030b02f0);
}

Test(rt_cpython_fixture, v3_12)
{
	run_version(fxl(12), "3.12.1", 0x030c01f0);
}

Test(rt_cpython_fixture, v3_13_debug_offsets)
{
	run_version(fxl(13), "3.13.0", 0x030d00f0);
}

/* The recorder's path (pystack.h): the raw chain read for a tid, then
 * resolved and placed, gives each thread the frames the snapshot gives it
 * (expect_image's), with the thread state found by native_thread_id
 * (3.11+) or by libc's struct pthread (_thread_db_pthread_tid, <= 3.10),
 * and remembered. */
static void recorded_version(unsigned minor, const char *text, uint32_t hex)
{
	struct fx f;
	struct image im;
	image(&f, &im, fxl(minor), text, hex);
	uint64_t d = fi_alloc(&f.img, 12);
	fi_put32(&f.img, d, 32);
	fi_put32(&f.img, d + 4, 1);
	fi_put32(&f.img, d + 8, 0x2d0);
	fi_sym(&f.img, "_thread_db_pthread_tid", d);
	f.fsbase = false; /* the recorder has no fs bases */
	struct lt_lm_env e;
	fx_env(&f, &e);
	e.s = NULL; /* nor a thread table */
	struct lt_strlist notes = { 0 };
	struct lt_pystk *p = lt_pystk_open(&e, &notes);
	cr_assert(p, "%s", notes.n ? notes.v[0] : "no CPython");
	cr_assert_eq(notes.n, 0);
	cr_assert(strstr(lt_pystk_version(p), text), "%s", lt_pystk_version(p));
	struct lt_pyraw raw[LT_PYSTK_MAX_RAW];
	for (int i = 0; i < 3; i++) {
		struct lt_thread *t = &f.threads[i];
		struct lt_pyraw_stack o = { .f = raw, .max = LT_PYSTK_MAX_RAW };
		uint64_t ts = 0;
		cr_assert_eq(lt_pystk_read(p, &e, t->tid, &ts, &o), 1, "thread %d", t->tid);
		cr_assert(ts && o.n >= 2 && !o.end, "thread %d: %zu raw frames, end %d", t->tid, o.n, o.end);
		/* the cache: the same thread state, checked, not searched */
		uint64_t again = ts;
		cr_assert_eq(lt_pystk_read(p, &e, t->tid, &again, &o), 1);
		cr_assert_eq(again, ts);
		lt_pystk_resolve(p, &o, t);
	}
	struct lt_pyraw_stack o = { .f = raw, .max = LT_PYSTK_MAX_RAW };
	uint64_t ts = 0;
	cr_assert_eq(lt_pystk_read(p, &e, 4242, &ts, &o), 0, "a tid no thread state runs");
	cr_assert_eq(ts, 0);
	/* the lock naming and thread names are the snapshot's only: the
	 * frames must be the same */
	unsigned m = minor;
	bool q = m >= 11, old = f.l.old;
	const struct lt_thread *t0 = &f.threads[0], *t1 = &f.threads[1], *t2 = &f.threads[2];
	for (int i = 0; i < 3; i++)
		cr_assert_null(f.threads[i].rt_end, "%s", f.threads[i].rt_end);
	cr_assert_eq(t0->n_rt_frames, 2);
	expect_frame(t0, 0, "main", "app.py", sample_line(m, OFF_A), 3);
	expect_frame(t0, 1, "<module>", "app.py", sample_line(m, OFF_B), old ? 5 : 3);
	cr_assert_eq(t1->n_rt_frames, 3);
	expect_frame(t1, 0, q ? "Worker.wait_on" : "wait_on", "/srv/app/worker.py", sample_line(m, OFF_A), 3);
	expect_frame(t1, 2, q ? "Thread._bootstrap" : "_bootstrap", "/usr/lib/python3/threading.py",
		     sample_line(m, OFF_C), old ? 7 : 5);
	expect_frame(t2, 0, "hold", "/srv/app/worker.py", old ? 77 : sample_line(m, OFF_C), 3);
	lt_pystk_free(p);
	lt_strlist_free(&notes);
	fx_free(&f);
}

Test(rt_cpython_fixture, recorded_stacks_3_8_to_3_13)
{
	recorded_version(8, "3.8.18", 0x030812f0);
	recorded_version(9, "3.9.18", 0x030912f0);
	recorded_version(10, "3.10.13", 0x030a0df0);
	recorded_version(11, "3.11.2", 0x030b02f0);
	recorded_version(12, "3.12.1", 0x030c01f0);
	recorded_version(13, "3.13.0", 0x030d00f0);
}

/* ---- wakers' Python frames copied by the BPF side (pyframes.h) ---- */

/* What copy_py_frames (bpf/locktrace.bpf.c) does, over the fixture's
 * memory: the thread state's frame, then one block per frame. */
static void bpf_model(const struct lt_lm_env *e, const struct lt_py_layout *l, uint64_t ts,
		      uint32_t tid, struct lt_py_copy *o)
{
	uint8_t b[LT_PY_BLOCK];
	uint64_t f = 0, native = 0;
	memset(o, 0, sizeof(*o));
	o->magic = LT_PY_COPY_MAGIC;
	o->tstate = ts;
	o->end = LT_PYC_NO_TSTATE;
	if (l->ts_native && (e->read(e->arg, ts + l->ts_native, &native, 8) || (uint32_t)native != tid))
		return;
	o->end = LT_PYC_UNREADABLE;
	o->end_at = ts;
	if (e->read(e->arg, ts + l->ts_frame, &f, 8))
		return;
	if (l->cf_frame >= 0 && f && e->read(e->arg, f + (uint32_t)l->cf_frame, &f, 8))
		return;
	o->end = LT_PYC_ALL;
	o->end_at = 0;
	for (uint32_t i = 0; i < LT_PY_COPY_FRAMES && f; i++) {
		if (e->read(e->arg, f, b, l->block)) {
			o->end = LT_PYC_UNREADABLE;
			o->end_at = f;
			return;
		}
		o->f[i].frame = f;
		memcpy(&o->f[i].code, b + l->off_code, 8);
		memcpy(&o->f[i].a, b + l->off_a, 8);
		memcpy(&o->f[i].b, b + l->off_b, 8);
		o->n = i + 1;
		memcpy(&f, b + l->off_prev, 8);
	}
	if (f) {
		o->end = LT_PYC_CUT;
		o->end_at = f;
	}
}

struct ts_seen {
	pid_t tid[8];
	uint64_t ts[8];
	size_t n;
};

static void note_ts(void *arg, pid_t tid, uint64_t ts)
{
	struct ts_seen *v = arg;
	if (v->n < 8) {
		v->tid[v->n] = tid;
		v->ts[v->n++] = ts;
	}
}

/* The layout handed to the BPF side reads, from every thread state the
 * enumeration gives, the chain lt_pystk_read reads (same frames, code
 * objects, instruction offsets, lines and flags), so the wakers' frames
 * resolve as the waiters' do; a thread state naming another thread
 * gives nothing, and a chain longer than the copy says it was cut. */
static void waker_copy_version(unsigned minor, const char *text, uint32_t hex)
{
	struct fx f;
	struct image im;
	image(&f, &im, fxl(minor), text, hex);
	uint64_t d = fi_alloc(&f.img, 12);
	fi_put32(&f.img, d, 32);
	fi_put32(&f.img, d + 4, 1);
	fi_put32(&f.img, d + 8, 0x2d0);
	fi_sym(&f.img, "_thread_db_pthread_tid", d);
	f.fsbase = false;
	struct lt_lm_env e;
	fx_env(&f, &e);
	e.s = NULL;
	struct lt_strlist notes = { 0 };
	struct lt_pystk *p = lt_pystk_open(&e, &notes);
	cr_assert(p, "%s", notes.n ? notes.v[0] : "no CPython");
	struct lt_py_layout l;
	cr_assert_eq(lt_pystk_bpf_layout(p, &l), 0, "%s: no layout for the BPF side", text);
	cr_assert(l.block >= 8 && l.block <= LT_PY_BLOCK && l.off_prev % 8 == 0 &&
		  l.off_code % 8 == 0 && l.off_a % 8 == 0 && l.off_b % 8 == 0);
	cr_assert_eq(l.ts_native != 0, minor >= 11, "%s: the thread check", text);
	struct ts_seen seen = { 0 };
	cr_assert_eq(lt_pystk_each_ts(p, &e, note_ts, &seen), 3, "%s", text);
	struct lt_pyraw want[LT_PYSTK_MAX_RAW], got[LT_PY_COPY_FRAMES];
	for (int i = 0; i < 3; i++) {
		pid_t tid = f.threads[i].tid;
		size_t k = 0;
		while (k < seen.n && seen.tid[k] != tid)
			k++;
		cr_assert_lt(k, seen.n, "%s: thread %d not enumerated", text, (int)tid);
		cr_assert_eq(lt_pystk_find_ts(p, &e, tid), seen.ts[k]);
		struct lt_pyraw_stack w = { .f = want, .max = LT_PYSTK_MAX_RAW };
		uint64_t ts = 0;
		cr_assert_eq(lt_pystk_read(p, &e, tid, &ts, &w), 1);
		cr_assert_eq(ts, seen.ts[k]);
		struct lt_py_copy c;
		bpf_model(&e, &l, ts, (uint32_t)tid, &c);
		cr_assert_eq(c.end, LT_PYC_ALL, "%s, thread %d: end %u", text, (int)tid, c.end);
		struct lt_pyraw_stack g = { .f = got, .max = LT_PY_COPY_FRAMES };
		lt_pystk_from_copy(p, &c, &g);
		cr_assert_eq(g.n, w.n, "%s, thread %d: %zu frames, not %zu", text, (int)tid, g.n, w.n);
		cr_assert_eq(g.end, 0);
		for (size_t j = 0; j < w.n; j++) {
			cr_assert_eq(got[j].frame, want[j].frame);
			cr_assert_eq(got[j].code, want[j].code);
			cr_assert_eq(got[j].addr, want[j].addr, "%s, frame %zu: addr %lld, not %lld", text,
				     j, (long long)got[j].addr, (long long)want[j].addr);
			cr_assert_eq(got[j].lineno, want[j].lineno);
			cr_assert_eq(got[j].flags, want[j].flags, "%s, frame %zu: flags %u, not %u", text, j,
				     got[j].flags, want[j].flags);
			cr_assert_eq(got[j].locals, want[j].locals);
		}
		/* resolved, the copy gives the frames the waiter's read gives */
		struct lt_thread a = { .tid = tid }, b = { .tid = tid };
		lt_pystk_resolve(p, &w, &a);
		lt_pystk_resolve(p, &g, &b);
		cr_assert_eq(a.n_rt_frames, b.n_rt_frames);
		for (size_t j = 0; j < a.n_rt_frames; j++) {
			cr_assert_str_eq(a.rt_frames[j].func, b.rt_frames[j].func);
			cr_assert_eq(a.rt_frames[j].line, b.rt_frames[j].line);
		}
		lt_thread_clear_rt(&a);
		lt_thread_clear_rt(&b);
		lt_strlist_free(&a.notes);
		lt_strlist_free(&b.notes);
		/* another thread's thread state (3.11+: its native id says so) */
		if (minor >= 11) {
			bpf_model(&e, &l, ts, (uint32_t)tid + 1, &c);
			cr_assert_eq(c.end, LT_PYC_NO_TSTATE);
			cr_assert_eq(c.n, 0);
		}
		/* a copy that stopped before the chain's end */
		bpf_model(&e, &l, ts, (uint32_t)tid, &c);
		if (c.n >= 2) {
			c.end = LT_PYC_CUT;
			c.end_at = c.f[1].frame;
			c.n = 1;
			lt_pystk_from_copy(p, &c, &g);
			cr_assert_eq(g.n, 1);
			cr_assert_eq(g.end, LT_PYRAW_CUT);
		}
	}
	lt_pystk_free(p);
	lt_strlist_free(&notes);
	fx_free(&f);
}

Test(rt_cpython_fixture, waker_copies_3_8_to_3_13)
{
	waker_copy_version(8, "3.8.18", 0x030812f0);
	waker_copy_version(9, "3.9.18", 0x030912f0);
	waker_copy_version(10, "3.10.13", 0x030a0df0);
	waker_copy_version(11, "3.11.2", 0x030b02f0);
	waker_copy_version(12, "3.12.1", 0x030c01f0);
	waker_copy_version(13, "3.13.0", 0x030d00f0);
}

/* 3.13 whose _Py_DebugOffsets differ from 3.13.0's: the frames are read
 * with the published offsets; thread names, which need offsets 3.13 does
 * not publish (dict internals), are not, and a note says why. */
Test(rt_cpython_fixture, v3_13_other_published_offsets)
{
	struct fxl l = *fxl(13);
	struct fx f;
	struct image im;
	l.is_threads = 0x1d40;
	l.ts_frame = 0x58;
	l.if_instr = 0x30;
	l.co_filename = 0x90;
	image(&f, &im, &l, "3.13.0", 0x030d00f0);
	apply(&f);
	cr_assert_eq(f.snap.notes.n, 1);
	cr_assert(strstr(f.snap.notes.v[0], "_Py_DebugOffsets differ from 3.13.0's"), "%s",
		  f.snap.notes.v[0]);
	expect_image(&f, &im, false);
	fx_free(&f);
}

/* Versions outside the table are said, never guessed: 3.14 (another
 * _Py_DebugOffsets), 3.7 (no row), a 3.13 alpha. */
Test(rt_cpython_fixture, unknown_versions_said_not_guessed)
{
	const struct { const struct fxl *l; const char *text; uint32_t hex; const char *note; } v[] = {
		{ fxl(13), "3.14.0", 0x030e00f0, "CPython 3.14.0: layout of this version is not known" },
		{ fxl(13), "3.13.0a5", 0x030d00a5, "CPython 3.13.0a5: layout of this version is not known" },
		{ fxl(8), "3.7.16", 0x030710f0, "CPython 3.7.16: layout of this version is not known" },
	};
	for (size_t i = 0; i < sizeof(v) / sizeof(v[0]); i++) {
		struct fx f;
		struct image im;
		image(&f, &im, v[i].l, v[i].text, v[i].hex);
		apply(&f);
		cr_assert_eq(f.snap.notes.n, 1, "%s", v[i].text);
		cr_assert(strstr(f.snap.notes.v[0], v[i].note), "%s", f.snap.notes.v[0]);
		cr_assert(strstr(f.snap.notes.v[0], "Python stacks and thread names not read"));
		for (int k = 0; k < 3; k++) {
			cr_assert_null(f.threads[k].rt_lang);
			cr_assert_eq(f.threads[k].n_rt_frames, 0);
		}
		cr_assert_str_eq(f.threads[1].futex.lock_kind, "semaphore");
		fx_free(&f);
	}
}

/* 3.8 keeps no native thread id: without fs bases, libc's description of
 * struct pthread (_thread_db_pthread_tid) maps a pthread_t to its tid; with
 * neither, the thread states name no thread and a note says so. */
Test(rt_cpython_fixture, v3_8_pthread_through_thread_db)
{
	struct fx f;
	struct image im;
	image(&f, &im, fxl(8), "3.8.18", 0);
	f.fsbase = false;
	uint64_t d = fi_alloc(&f.img, 12);
	fi_put32(&f.img, d, 32);
	fi_put32(&f.img, d + 4, 1);
	fi_put32(&f.img, d + 8, 0x2d0);
	fi_sym(&f.img, "_thread_db_pthread_tid", d);
	apply(&f);
	cr_assert_eq(f.snap.notes.n, 0);
	expect_image(&f, &im, true);
	fx_free(&f);

	image(&f, &im, fxl(8), "3.8.18", 0);
	f.fsbase = false;
	apply(&f);
	cr_assert_eq(f.snap.notes.n, 1);
	cr_assert(strstr(f.snap.notes.v[0], "3 Python thread state(s) name no thread"), "%s",
		  f.snap.notes.v[0]);
	for (int k = 0; k < 3; k++)
		cr_assert_null(f.threads[k].rt_lang);
	fx_free(&f);
}

/* A process that never imported threading has no thread names: nothing to
 * say, and the stacks are read all the same. */
Test(rt_cpython_fixture, no_threading_module)
{
	struct fx f;
	struct image im;
	image(&f, &im, fxl(12), "3.12.1", 0x030c01f0);
	static const char *const mods[] = { "sys" };
	uint64_t v[1] = { str(&f, "sys") };
	fi_put64(&f.img, im.interp + f.l.is_modules, sdict(&f, mods, v, 1));
	apply(&f);
	cr_assert_eq(f.snap.notes.n, 0);
	expect_image(&f, &im, false);
	fx_free(&f);
}

/* A frame whose code is not a code object ends that thread's stack with
 * the reason; a frame chain that loops stops at 256 frames. */
Test(rt_cpython_fixture, damaged_frames)
{
	struct fx f;
	struct image im;
	image(&f, &im, fxl(11), "3.11.2", 0x030b02f0);
	fi_put64(&f.img, im.top[0] + f.l.if_code, str(&f, "not code"));
	fi_put64(&f.img, im.top[2] + f.l.if_prev, im.top[2]);
	apply(&f);
	const struct lt_thread *t0 = &f.threads[0], *t2 = &f.threads[2];
	cr_assert_eq(t0->n_rt_frames, 0);
	cr_assert(t0->rt_end && strstr(t0->rt_end, "no readable code object"), "%s", t0->rt_end);
	/* a frame list that loops is said once, not read as 256 copies */
	cr_assert_eq(t2->n_rt_frames, 1);
	cr_assert(t2->rt_end && strstr(t2->rt_end, "loops back to frame") && strstr(t2->rt_end, "cycle"),
		  "%s", t2->rt_end);
	cr_assert_eq(f.threads[1].n_rt_frames, 3, "the other threads are read");
	fx_free(&f);

	/* the same loop through PyFrameObjects (3.10) */
	image(&f, &im, fxl(10), "3.10.13", 0);
	fi_put64(&f.img, im.top[2] + f.l.f_back, im.top[2]);
	apply(&f);
	cr_assert_eq(f.threads[2].n_rt_frames, 1);
	cr_assert(strstr(f.threads[2].rt_end, "loops back to frame"), "%s", f.threads[2].rt_end);
	fx_free(&f);
}

/* An RLock records its owner: the waiter gets it (owner_kind runtime). */
Test(rt_cpython_fixture, rlock_names_its_owner)
{
	struct fx f;
	struct image im;
	image(&f, &im, fxl(12), "3.12.1", 0x030c01f0);
	fi_put64(&f.img, im.lock + 8, type_named(&f, "_thread.RLock", NULL));
	fi_put64(&f.img, im.lock + 24, im.pt[0]);
	fi_put64(&f.img, im.lock + 32, 2);
	apply(&f);
	const struct lt_futex *fx = &f.threads[1].futex;
	cr_assert_str_eq(fx->lock_kind, "threading.RLock");
	cr_assert_str_eq(fx->lock_name, "lk");
	cr_assert_eq(fx->owner_kind, LT_OWNER_RUNTIME);
	cr_assert_eq(fx->owner, MAIN_TID);
	cr_assert(strstr(fx->lock_state, "owner thread 100, count 2"), "%s", fx->lock_state);
	fx_free(&f);
}

/* A futex wait on another word is not taken for the Lock in the frame. */
Test(rt_cpython_fixture, lock_on_another_futex_not_named)
{
	struct fx f;
	struct image im;
	image(&f, &im, fxl(10), "3.10.13", 0);
	f.threads[1].futex.uaddr = f.threads[1].futex.lock_base = im.sem + 64;
	apply(&f);
	cr_assert_str_eq(f.threads[1].futex.lock_kind, "semaphore");
	cr_assert_null(f.threads[1].futex.lock_name);
	cr_assert_eq(f.threads[1].n_rt_frames, 3);
	fx_free(&f);
}

/* A process that imported _multiprocessing: thread 102 keeps, in its local
 * 'mine', an object whose attribute _name is a _multiprocessing.SemLock
 * (as 'self'._rlock._semlock is in SimpleQueue.get) taken once by thread
 * 101 and not released: listed with its sem_t, count and last_tid's thread;
 * one released (count 0) is not. */
static void semlock_version(unsigned minor, const char *text, uint32_t hex)
{
	struct fx f;
	struct image im;
	image(&f, &im, fxl(minor), text, hex);
	uint64_t sl = obj(&f, type_named(&f, "_multiprocessing.SemLock", NULL), 0x40);
	fi_put64(&f.img, sl + 16, 0x7f0000005000ull); /* handle */
	fi_put64(&f.img, sl + 24, im.pt[1]);          /* last_tid */
	fi_put32(&f.img, sl + 32, 1);                 /* count */
	fi_put32(&f.img, sl + 36, 1);                 /* maxvalue */
	fi_put32(&f.img, sl + 40, 1);                 /* kind: SEMAPHORE */
	uint64_t free_sl = obj(&f, type_named(&f, "_multiprocessing.SemLock", NULL), 0x40);
	fi_put64(&f.img, free_sl + 16, 0x7f0000006000ull);
	fi_put32(&f.img, free_sl + 36, 1);
	fi_put32(&f.img, free_sl + 40, 1);
	fi_put64(&f.img, locals_of(&f, im.top[2]), thread_obj(&f, sl, false));
	fi_put64(&f.img, locals_of(&f, im.top[1]), free_sl); /* thread 101's 'self' */
	static const char *const mods[] = { "sys", "_multiprocessing" };
	uint64_t modv[2] = { str(&f, "sys"), str(&f, "_multiprocessing") };
	fi_put64(&f.img, im.interp + f.l.is_modules, sdict(&f, mods, modv, 2));
	apply(&f);
	cr_assert_eq(f.snap.n_semlocks, 1, "%s: %zu SemLocks", text, f.snap.n_semlocks);
	const struct lt_semlock *l = &f.snap.semlocks[0];
	cr_assert_eq(l->obj, sl);
	cr_assert_eq(l->handle, 0x7f0000005000ull);
	cr_assert_eq(l->count, 1);
	cr_assert_eq(l->maxvalue, 1);
	cr_assert_eq(l->kind, 1);
	cr_assert_eq(l->last_tid, im.pt[1]);
	cr_assert_eq(l->tid, MAIN_TID + 1, "%s: last_tid's thread %d", text, (int)l->tid);
	cr_assert(l->where && strstr(l->where, "'mine'._name of hold (/srv/app/worker.py:") &&
		  strstr(l->where, "in thread 102"), "%s: %s", text, l->where ? l->where : "-");
	free(l->where);
	free(f.snap.semlocks);
	fx_free(&f);
}

Test(rt_cpython_fixture, semlocks_3_8_to_3_13)
{
	semlock_version(8, "3.8.18", 0x030812f0);
	semlock_version(11, "3.11.2", 0x030b02f0);
	semlock_version(12, "3.12.1", 0x030c01f0);
	semlock_version(13, "3.13.0", 0x030d00f0);
}

/* ---- concurrent.futures: Future.result() on fixtures ----
 *
 * Threads 101 and 102 get frames of their own (innermost first), each
 * frame's locals as given; a thread in Condition.wait sleeps on the
 * semaphore of the _thread.lock in its 'waiter' local.  Objects with two
 * attributes, in each version's instance layout (as thread_obj). */

static uint64_t obj2(struct fx *f, const char *a0, uint64_t v0, const char *a1, uint64_t v1)
{
	const char *const attrs[] = { a0, a1 };
	uint64_t vals[2] = { v0, v1 }, k[2] = { str(f, a0), str(f, a1) };
	int inst = f->l.inst;
	uint64_t keys = inst ? keys_obj(f, k, vals, 2, 2) : 0;
	uint64_t flags = inst == 13 ? TPF_INLINE_VALUES | TPF_MANAGED_DICT : inst ? TPF_MANAGED_DICT : 0;
	uint64_t type = type_obj(f, "Obj", flags, inst ? -1 : 16, 16, keys);
	uint64_t o = fi_alloc(&f->img, 32 + 16 + 8 + 16 + 16) + 32;
	fi_put64(&f->img, o, 1);
	fi_put64(&f->img, o + 8, type);
	if (!inst)
		fi_put64(&f->img, o + 16, sdict(f, attrs, vals, 2));
	else if (inst == 11)
		fi_put64(&f->img, o - 32, values_obj(f, vals, 2, true));
	else if (inst == 12)
		fi_put64(&f->img, o - 24, values_obj(f, vals, 2, true) - 1);
	if (inst == 13) {
		fi_put8(&f->img, o + 16, 2);
		fi_put8(&f->img, o + 17, 2);
		fi_put8(&f->img, o + 18, 1);
		fi_put8(&f->img, o + 19, 1);
		fi_put64(&f->img, o + 24, vals[0]);
		fi_put64(&f->img, o + 32, vals[1]);
	}
	return o;
}

struct pyfr {
	const char *name, *qual, *file;
	const char *const *names; /* its locals' names */
	size_t n;
	uint64_t vals[3];         /* and values */
};

static const char *const L_COND[] = { "self", "timeout", "waiter" }, *const L_SELF[] = { "self", "timeout" },
		  *const L_WORKER[] = { "executor_reference", "work_queue" };
#define FR_WAIT(cond, lock) { "wait", "Condition.wait", "/usr/lib/python3.11/threading.py", L_COND, 3, { cond, 0, lock } }
#define FR_RESULT(fut) { "result", "Future.result", "/usr/lib/python3.11/concurrent/futures/_base.py", L_SELF, 2, { fut } }
#define FR_EXC(fut) { "exception", "Future.exception", "/usr/lib/python3.11/concurrent/futures/_base.py", L_SELF, 2, \
		      { fut } }
#define FR_RUN(wi) { "run", "_WorkItem.run", "/usr/lib/python3.11/concurrent/futures/thread.py", L_SELF, 1, { wi } }
#define FR_WORKER { "_worker", "_worker", "/usr/lib/python3.11/concurrent/futures/thread.py", L_WORKER, 2, { 0 } }
#define FR_TASK { "task", "task", "/srv/app/jobs.py", NULL, 0, { 0 } }

/* Thread TID's Python frames (innermost first): its new thread state. */
static uint64_t py_thread(struct fx *f, uint64_t next, pid_t tid, const struct pyfr *fr, size_t n)
{
	size_t ntab, nw;
	const int(*want)[2];
	const uint8_t *tab = sample(f->l.minor, &ntab, &want, &nw);
	uint64_t back = boundary(f, 0), top = 0;
	for (size_t k = n; k-- > 0;) {
		uint64_t c = code_obj(f, fr[k].name, fr[k].qual, fr[k].file, tab, ntab, 2, fr[k].names, fr[k].n);
		top = frame(f, back, c, OFF_B, 0, false, 0, k == n - 1);
		for (size_t i = 0; i < fr[k].n; i++)
			fi_put64(&f->img, locals_of(f, top) + 8 * i, fr[k].vals[i]);
		back = top;
	}
	return tstate(f, next, tid, f->pt[tid - MAIN_TID], top);
}

/* A _thread.lock whose semaphore thread TID sleeps on, asleep 1 s. */
static uint64_t waiter_lock(struct fx *f, pid_t tid)
{
	uint64_t sem = fi_alloc(&f->img, 32), lk = obj(f, type_named(f, "_thread.lock", NULL), 0x30);
	fi_put64(&f->img, lk + 16, sem);
	struct lt_thread *t = &f->threads[tid - MAIN_TID];
	struct lt_futex *fx = &t->futex;
	t->wait = LT_WAIT_FUTEX;
	t->state = 'S';
	t->idle_src = LT_IDLE_SCHED_EXEC_START;
	t->idle_s = 1.0;
	fx->is_wait = true;
	fx->uaddr = fx->lock_base = sem;
	fx->lock_kind = "semaphore";
	free(fx->lock_state);
	fx->lock_state = strdup("value 0, 1 waiter");
	return lk;
}

static uint64_t future(struct fx *f, uint64_t cond, const char *state)
{
	return obj2(f, "_condition", cond, "_state", str(f, state));
}

static uint64_t cond_obj(struct fx *f)
{
	return obj(f, type_obj(f, "Condition", 0, 0, 16, 0), 0x20);
}

/* The image with threads 101 and 102 replaced by FR1 and FR2. */
static void fut_image(struct fx *f, struct image *im, unsigned minor, const char *text, uint32_t hex)
{
	image(f, im, fxl(minor), text, hex);
	f->threads[1].wait = LT_WAIT_NONE;
	f->threads[1].futex = (struct lt_futex){ 0 };
}

static void fut_threads(struct fx *f, const struct image *im, const struct pyfr *fr1, size_t n1,
			const struct pyfr *fr2, size_t n2)
{
	uint64_t ts2 = py_thread(f, 0, MAIN_TID + 2, fr2, n2), ts1 = py_thread(f, ts2, MAIN_TID + 1, fr1, n1);
	uint64_t ts0 = tstate(f, ts1, MAIN_TID, im->pt[0], im->top[0]);
	fi_put64(&f->img, im->interp + f->l.is_threads, ts0);
}

static void fut_free(struct fx *f)
{
	for (size_t i = 0; i < f->snap.n_rtlocks; i++)
		lt_rtlock_clear(&f->snap.rtlocks[i]);
	free(f->snap.rtlocks);
	fx_free(f);
}

static const struct lt_rtlock *fut_lock_of(const struct fx *f, pid_t tid)
{
	const struct lt_futex *fx = &f->threads[tid - MAIN_TID].futex;
	cr_assert_str_eq(fx->lock_kind ? fx->lock_kind : "-", "concurrent.futures Future (result)", "thread %d: %s",
			 (int)tid, fx->lock_state ? fx->lock_state : "-");
	cr_assert(fx->rtlock && fx->rtlock <= f->snap.n_rtlocks);
	return &f->snap.rtlocks[fx->rtlock - 1];
}

static void fut_not_claimed(const struct fx *f, pid_t tid, const char *state)
{
	const struct lt_futex *fx = &f->threads[tid - MAIN_TID].futex;
	cr_assert_str_eq(fx->lock_kind ? fx->lock_kind : "-", "threading.Condition");
	cr_assert_eq(fx->rtlock, 0);
	cr_assert_eq(fx->owner, 0);
	cr_assert(fx->lock_state && strstr(fx->lock_state, state), "%s\nwant: %s", fx->lock_state ? fx->lock_state : "-",
		  state);
}

/* 101 in result() of a RUNNING Future that 102's _WorkItem.run runs: the
 * wait is a runtime lock held by 102, inferred; in exception() likewise,
 * named so; FINISHED, a moment before the wake-up; run by nobody here, no
 * runner named. */
static void futures_version(unsigned minor, const char *text, uint32_t hex)
{
	static const char *const states[] = { "RUNNING", "FINISHED", "RUNNING", "RUNNING" };
	for (int c = 0; c < 4; c++) {
		struct fx f;
		struct image im;
		fut_image(&f, &im, minor, text, hex);
		uint64_t cond = cond_obj(&f), fut = future(&f, cond, states[c]);
		uint64_t other = future(&f, cond_obj(&f), "RUNNING");
		uint64_t wi = obj2(&f, "future", c == 2 ? other : fut, "fn", 0);
		struct pyfr w[] = { FR_WAIT(cond, waiter_lock(&f, 101)), FR_RESULT(fut), FR_TASK };
		if (c == 3)
			w[1] = (struct pyfr)FR_EXC(fut);
		struct pyfr r[] = { FR_TASK, FR_RUN(wi), FR_WORKER };
		fut_threads(&f, &im, w, 3, r, 3);
		apply(&f);
		char want[200];
		if (c == 1) {
			snprintf(want, sizeof(want), "its concurrent.futures.Future at 0x%" PRIx64 " is FINISHED: a "
				 "moment before the wake-up", fut);
			fut_not_claimed(&f, 101, want);
		} else if (c == 2) {
			snprintf(want, sizeof(want), "its concurrent.futures.Future at 0x%" PRIx64 " is RUNNING, and no "
				 "thread of this process runs it in a ThreadPoolExecutor's _WorkItem.run", fut);
			fut_not_claimed(&f, 101, want);
		} else {
			const struct lt_rtlock *l = fut_lock_of(&f, 101);
			const struct lt_futex *fx = &f.threads[1].futex;
			cr_assert_eq(fx->lock_base, fut);
			cr_assert_eq(fx->owner, 102, "%s", text);
			cr_assert_eq(fx->owner_kind, LT_OWNER_RUNTIME);
			cr_assert_eq(l->holder, 102);
			cr_assert_eq(l->held, 1);
			const struct lt_done_kind *dk = lt_done_kind_of(l->kind);
			cr_assert(dk && dk->inferred && !dk->exit && l->waiters_named);
			cr_assert_str_eq(dk->done_what, "the task ends");
			cr_assert_str_eq(dk->els, "a set_result() or set_exception() on the Future from another thread");
			cr_assert_str_eq(l->wait_call, c == 3 ? "Future.exception()" : "Future.result()");
			snprintf(want, sizeof(want), "concurrent.futures.Future at 0x%" PRIx64, fut);
			cr_assert_str_eq(l->name, want);
			cr_assert(strstr(l->holder_how, "thread 102 (") &&
				  strstr(l->holder_how, "its _WorkItem.run frame (/usr/lib/python3.11/concurrent/futures/"
					 "thread.py:"), "%s", l->holder_how);
			cr_assert(strstr(fx->lock_state, "its threading.Condition: waits in Condition.wait()"), "%s",
				  fx->lock_state);
		}
		fut_free(&f);
	}
}

Test(rt_cpython_fixture, future_result_runner_3_8_to_3_13)
{
	futures_version(8, "3.8.18", 0x030812f0);
	futures_version(11, "3.11.2", 0x030b02f0);
	futures_version(12, "3.12.1", 0x030c01f0);
	futures_version(13, "3.13.0", 0x030d00f0);
}

/* A waiter whose call changed while the snapshot read it (moved) may have
 * been woken: its frames are not taken as a wait for the runner. */
Test(rt_cpython_fixture, future_waiter_that_moved_is_not_claimed)
{
	struct fx f;
	struct image im;
	fut_image(&f, &im, 11, "3.11.2", 0x030b02f0);
	uint64_t cond = cond_obj(&f), fut = future(&f, cond, "RUNNING"), wi = obj2(&f, "future", fut, "fn", 0);
	struct pyfr w[] = { FR_WAIT(cond, waiter_lock(&f, 101)), FR_RESULT(fut), FR_TASK };
	struct pyfr r[] = { FR_TASK, FR_RUN(wi), FR_WORKER };
	fut_threads(&f, &im, w, 3, r, 3);
	f.threads[1].moved = true;
	apply(&f);
	fut_not_claimed(&f, 101, "waits in Condition.wait()");
	cr_assert_eq(f.snap.n_rtlocks, 0);
	fut_free(&f);
}

/* Two pool threads, each running a task that waits in result() of a task
 * queued behind them: both starved, each the same way (whichever is read
 * first), no holder; one of them idle instead: the other's task is only
 * queued, nothing claimed; one running (not asleep): likewise. */
static void starve(int mode)
{
	struct fx f;
	struct image im;
	fut_image(&f, &im, 12, "3.12.1", 0x030c01f0);
	uint64_t c1 = cond_obj(&f), p1 = future(&f, c1, "PENDING"), c2 = cond_obj(&f), p2 = future(&f, c2, "PENDING");
	uint64_t w1 = obj2(&f, "future", future(&f, cond_obj(&f), "RUNNING"), "fn", 0);
	uint64_t w2 = obj2(&f, "future", future(&f, cond_obj(&f), "RUNNING"), "fn", 0);
	struct pyfr a[] = { FR_WAIT(c1, waiter_lock(&f, 101)), FR_RESULT(p1), FR_TASK, FR_RUN(w1), FR_WORKER };
	uint64_t lk2 = mode == 0 ? waiter_lock(&f, 102) : 0;
	struct pyfr b[] = { FR_WAIT(c2, lk2), FR_RESULT(p2), FR_TASK, FR_RUN(w2), FR_WORKER };
	struct pyfr idle[] = { FR_WORKER };
	if (mode == 2) { /* 102 runs its task: in no call */
		f.threads[2].state = 'R';
		f.threads[2].sc.state = LT_SC_RUNNING;
		f.threads[2].idle_src = LT_IDLE_RUNNING;
		f.threads[2].idle_s = 0;
	}
	if (mode == 1)
		fut_threads(&f, &im, a, 5, idle, 1);
	else
		fut_threads(&f, &im, a, 5, mode == 2 ? b + 2 : b, mode == 2 ? 3 : 5);
	apply(&f);
	if (mode == 0) {
		for (pid_t tid = 101; tid <= 102; tid++) {
			const struct lt_rtlock *l = fut_lock_of(&f, tid);
			cr_assert_eq(l->base, tid == 101 ? p1 : p2);
			cr_assert(l->holderless && !l->holder && l->held == -1);
			cr_assert_eq(f.threads[tid - MAIN_TID].futex.owner, 0);
			cr_assert(strstr(l->holder_how, "no thread runs the task and its state is PENDING: the task has "
					 "not started: it waits for a thread of its executor to take it; every "
					 "ThreadPoolExecutor worker thread of the process (2: 101 (worker-1), 102 (") &&
				  strstr(l->holder_how, ")) runs a task and all are blocked, this one in this "
					 "Future.result(): probably a thread-starvation deadlock (inferred: "),
				  "thread %d: %s", (int)tid, l->holder_how);
		}
		cr_assert_eq(f.snap.n_rtlocks, 2);
	} else {
		fut_not_claimed(&f, 101, mode == 1 ? "it is queued, waiting for a worker"
						   : "0 idle in its work queue's get(), 1 running a task and blocked: "
						     "it is queued, waiting for a worker");
		if (mode == 1)
			fut_not_claimed(&f, 101, "1 idle in its work queue's get(), 1 running a task and blocked");
		cr_assert_eq(f.snap.n_rtlocks, 0);
	}
	fut_free(&f);
}

Test(rt_cpython_fixture, future_pending_starved_pool)
{
	starve(0);
}

Test(rt_cpython_fixture, future_pending_idle_worker_is_no_starvation)
{
	starve(1);
}

Test(rt_cpython_fixture, future_pending_running_worker_is_no_starvation)
{
	starve(2);
}

/* ---- concurrent.futures.wait() and as_completed() on fixtures ----
 *
 * 101 waits in Condition.wait under Event.wait under wait() (or
 * as_completed()), whose `waiter` is a _Waiter whose event's Condition is
 * the one it waits on; the futures waited for are its not_done (pending)
 * set: a set object's table of {key, hash} entries (one of them a removed
 * key's dummy, an object with no attributes).  102 runs f1 in its
 * _WorkItem.run, asleep on a futex for 1 s with no timeout (blocked), or
 * with one (a timer).  f2 is queued (PENDING), RUNNING with no runner here,
 * or FINISHED; f3 is not this waiter's (its _waiters does not hold it). */

static uint64_t py_list(struct fx *f, const uint64_t *items, size_t n)
{
	uint64_t l = obj(f, type_named(f, "list", NULL), 0x28), it = fi_alloc(&f->img, 8 * (n ? n : 1));
	for (size_t i = 0; i < n; i++)
		fi_put64(&f->img, it + 8 * i, items[i]);
	fi_put64(&f->img, l + 0x10, n);
	fi_put64(&f->img, l + 0x18, it);
	return l;
}

/* A set of N keys (0: an empty slot) in a table of 8 entries. */
static uint64_t py_set(struct fx *f, const uint64_t *keys, size_t n)
{
	uint64_t st = obj(f, type_named(f, "set", NULL), 0xd0), tab = fi_alloc(&f->img, 16 * 8);
	size_t used = 0;
	for (size_t i = 0; i < n && i < 8; i++) {
		fi_put64(&f->img, tab + 16 * i, keys[i]);
		fi_put64(&f->img, tab + 16 * i + 8, 0x1234 + i);
		used += keys[i] != 0;
	}
	fi_put64(&f->img, st + 0x10, n);
	fi_put64(&f->img, st + 0x18, used);
	fi_put64(&f->img, st + 0x20, 7);
	fi_put64(&f->img, st + 0x28, tab);
	return st;
}

static const char *const L_FW[] = { "not_done", "return_when", "waiter" }, *const L_AC[] = { "pending", "waiter" };
#define FR_EVWAIT(ev) { "wait", "Event.wait", "/usr/lib/python3.11/threading.py", L_SELF, 2, { ev } }
#define FR_FWAIT(set, when, w) { "wait", "wait", "/usr/lib/python3.11/concurrent/futures/_base.py", L_FW, 3, \
				 { set, when, w } }
#define FR_ASCOMP(set, w) { "as_completed", "as_completed", "/usr/lib/python3.11/concurrent/futures/_base.py", \
			    L_AC, 2, { set, w } }

enum fw_case { FW_ALL, FW_FIRST_QUEUED, FW_FIRST_UNKNOWN, FW_AS_COMPLETED_ONE, FW_FIRST_TIMER, FW_FIRST_EXC };

static void fw_case(unsigned minor, const char *text, uint32_t hex, enum fw_case c)
{
	struct fx f;
	struct image im;
	fut_image(&f, &im, minor, text, hex);
	uint64_t cond = cond_obj(&f), ev = obj2(&f, "_cond", cond, "_flag", 0);
	uint64_t w = obj2(&f, "event", ev, "finished_futures", 0);
	uint64_t mine = py_list(&f, &w, 1), other = py_list(&f, NULL, 0);
	uint64_t f1 = obj2(&f, "_state", str(&f, "RUNNING"), "_waiters", mine);
	const char *s2 = c == FW_FIRST_UNKNOWN ? "RUNNING" : c == FW_AS_COMPLETED_ONE ? "FINISHED" : "PENDING";
	uint64_t f2 = obj2(&f, "_state", str(&f, s2), "_waiters", mine);
	uint64_t f3 = obj2(&f, "_state", str(&f, "RUNNING"), "_waiters", other);
	uint64_t dummy = obj(&f, type_named(&f, "dummy", NULL), 0x20);
	uint64_t keys[] = { f1, f2, 0, dummy, f3 };
	uint64_t set = py_set(&f, keys, 5), wi = obj2(&f, "future", f1, "fn", 0);
	const char *when = c == FW_ALL ? "ALL_COMPLETED" : c == FW_FIRST_EXC ? "FIRST_EXCEPTION" : "FIRST_COMPLETED";
	struct pyfr a[] = { FR_WAIT(cond, waiter_lock(&f, 101)), FR_EVWAIT(ev), FR_FWAIT(set, str(&f, when), w),
			    FR_TASK };
	if (c == FW_AS_COMPLETED_ONE)
		a[2] = (struct pyfr)FR_ASCOMP(set, w);
	struct pyfr r[] = { FR_TASK, FR_RUN(wi), FR_WORKER };
	waiter_lock(&f, 102); /* asleep 1 s on a futex: blocked */
	if (c == FW_FIRST_TIMER)
		f.threads[2].futex.timeout_ptr = 0x7000; /* a timed wait: ends by itself */
	fut_threads(&f, &im, a, 4, r, 3);
	apply(&f);
	const struct lt_futex *fx = &f.threads[1].futex;
	char want[400];
	/* f1 and what its runner does (its name is the fixture's, by version) */
	const char *said = fx->rtlock ? f.snap.rtlocks[fx->rtlock - 1].holder_how : fx->lock_state;
	snprintf(want, sizeof(want), "concurrent.futures.Future at 0x%" PRIx64 " (RUNNING): run by thread 102 (", f1);
	const char *at = said ? strstr(said, want) : NULL;
	cr_assert(at, "%s: %s\nwant: %s", text, said ? said : "-", want);
	at = strchr(at + strlen(want), ')');
	cr_assert(at && !strncmp(at, c == FW_FIRST_TIMER ? "), on a timer in " : "), blocked in ",
				 c == FW_FIRST_TIMER ? 17 : 14), "%s: %s", text, said);
	if (c == FW_ALL || c == FW_AS_COMPLETED_ONE) {
		cr_assert(fx->rtlock && fx->rtlock <= f.snap.n_rtlocks, "%s: %s", text, fx->lock_state);
		const struct lt_rtlock *l = &f.snap.rtlocks[fx->rtlock - 1];
		cr_assert_str_eq(fx->lock_kind, c == FW_ALL ? "concurrent.futures wait (all)"
							    : "concurrent.futures wait (any)");
		cr_assert_str_eq(l->wait_call, c == FW_ALL ? "concurrent.futures.wait() (ALL_COMPLETED)"
							   : "concurrent.futures.as_completed()");
		cr_assert_eq(l->base, w);
		cr_assert(l->holder == 102 && l->held == 1 && !l->holderless, "%s", text);
		cr_assert(fx->owner == 102 && fx->owner_kind == LT_OWNER_RUNTIME, "%s", text);
		if (c == FW_ALL)
			snprintf(want, sizeof(want), "2 futures (concurrent.futures.Future at 0x%" PRIx64 ", 0x%" PRIx64
				 ")", f1, f2);
		else
			snprintf(want, sizeof(want), "1 future (concurrent.futures.Future at 0x%" PRIx64 ")", f1);
		cr_assert_str_eq(l->name, want, "%s", text);
		snprintf(want, sizeof(want), "its _Waiter at 0x%" PRIx64 " is in the _waiters of %d future%s not done: ",
			 w, c == FW_ALL ? 2 : 1, c == FW_ALL ? "s" : "");
		cr_assert(strstr(l->holder_how, want), "%s: %s", text, l->holder_how);
		if (c == FW_ALL) {
			snprintf(want, sizeof(want), "concurrent.futures.Future at 0x%" PRIx64 " (PENDING): no thread runs "
				 "it: queued, waiting for a worker; the wait ends only when every one of them has ended; "
				 "thread 102 (", f2);
			cr_assert(strstr(l->holder_how, want), "%s: %s", text, l->holder_how);
		}
		const struct lt_done_kind *dk = lt_done_kind_of(l->kind);
		cr_assert(dk && dk->inferred && !dk->exit);
		cr_assert(!strstr(l->holder_how, "FINISHED") && !strstr(l->name, "..."), "%s", l->holder_how);
	} else {
		fut_not_claimed(&f, 101, c == FW_FIRST_EXC ? "any one's exception (or every one's end) ends the "
							     "wait, and not every one of them is run by a blocked thread (0 "
							     "by a thread not blocked or on a timer, 1 queued, 0 whose runner "
							     "is not known): not said to be stuck"
					 : c == FW_FIRST_QUEUED ? "(0 by a thread not blocked or on a timer, 1 queued, 0 "
								"whose runner is not known): not said to be stuck"
					 : c == FW_FIRST_UNKNOWN ? "(0 by a thread not blocked or on a timer, 0 queued, 1 "
								   "whose runner is not known): not said to be stuck"
								 : "(1 by a thread not blocked or on a timer, 1 queued, 0 "
								   "whose runner is not known): not said to be stuck");
		cr_assert_eq(f.snap.n_rtlocks, 0);
	}
	fut_free(&f);
}

static void fw_versions(enum fw_case c)
{
	fw_case(8, "3.8.18", 0x030812f0, c);
	fw_case(11, "3.11.2", 0x030b02f0, c);
	fw_case(12, "3.12.1", 0x030c01f0, c);
	fw_case(13, "3.13.0", 0x030d00f0, c);
}

Test(rt_cpython_fixture, futures_wait_all_held_by_a_blocked_runner)
{
	fw_versions(FW_ALL);
}

Test(rt_cpython_fixture, futures_wait_first_with_a_queued_future_is_not_stuck)
{
	fw_versions(FW_FIRST_QUEUED);
}

Test(rt_cpython_fixture, futures_wait_first_with_an_unknown_runner_is_not_stuck)
{
	fw_versions(FW_FIRST_UNKNOWN);
}

Test(rt_cpython_fixture, futures_as_completed_one_future_left_is_its_runners)
{
	fw_versions(FW_AS_COMPLETED_ONE);
}

Test(rt_cpython_fixture, futures_wait_first_with_a_runner_on_a_timer_is_not_stuck)
{
	fw_versions(FW_FIRST_TIMER);
}

/* ---- live: Debian's python3 ---- */


TL_WORKLOAD(64);

static void cleanup(void)
{
	tl_close_started(&wl);
}

static void start_py(const char *script, char *const extra[])
{
	tl_start_python(&wl, script, extra, truth, &ntruth, "other users' /proc files and memory");
}

/* The value of KEY in a truth line, up to the next space (or the end of
 * the line for `name`, the last key). */
static void val(const char *line, const char *key, char *out, size_t n)
{
	char pat[32];
	snprintf(pat, sizeof(pat), " %s=", key);
	const char *p = strstr(line, pat);
	cr_assert_not_null(p, "no %s in '%s'", key, line);
	p += strlen(pat);
	size_t len = strcmp(key, "name") ? strcspn(p, " ") : strlen(p);
	cr_assert_lt(len, n);
	memcpy(out, p, len);
	out[len] = 0;
}

static struct lt_snapshot *snapshot(void)
{
	struct lt_snapshot *s = NULL;
	int r = lt_snapshot_take(wl.pid, NULL, &s);
	cr_assert_eq(r, 0, "lt_snapshot_take: %s", lt_snapshot_strerror(r));
	for (size_t i = 0; i < s->notes.n; i++)
		fprintf(stderr, "note: %s\n", s->notes.v[i]);
	return s;
}

static bool eval_loop(const struct lt_thread *t, int native)
{
	return native >= 0 && (size_t)native < t->n_frames && t->frames[native].func &&
	       !strncmp(t->frames[native].func, "_PyEval_EvalFrameDefault", 24);
}

/* Every thread of py_stacks.py: its threading name, and its innermost
 * Python frame exactly as Python reported it (function, file, line), placed
 * at an evaluation-loop frame of its native stack. */
Test(rt_cpython_live, names_frames_lines, .fini = cleanup, .timeout = 120)
{
	start_py("tests/workloads/py_stacks.py", NULL);
	struct lt_snapshot *s = snapshot();
	int checked = 0;
	for (int i = 0; i < ntruth; i++) {
		if (strncmp(truth[i], "thread ", 7))
			continue;
		char role[32], func[64], file[160], name[64];
		val(truth[i], "role", role, sizeof(role));
		val(truth[i], "func", func, sizeof(func));
		val(truth[i], "file", file, sizeof(file));
		val(truth[i], "name", name, sizeof(name));
		int line = (int)tl_val(truth[i], "line", NULL);
		pid_t tid = (pid_t)tl_val(truth[i], "tid", NULL);
		const struct lt_thread *t = lt_snapshot_find(s, tid);
		cr_assert_not_null(t, "%s: thread %d missing", role, tid);
		cr_assert_str_eq(t->rt_lang ? t->rt_lang : "-", "python", "%s", role);
		cr_assert_str_eq(t->rt_name ? t->rt_name : "-", name, "%s", role);
		/* event: threading's Event.wait and Condition.wait run above it */
		size_t k0 = strcmp(role, "event") ? 0 : 2;
		cr_assert_gt(t->n_rt_frames, k0, "%s: no Python frames (%s)", role, t->rt_end ? t->rt_end : "-");
		const struct lt_rtframe *r = &t->rt_frames[k0];
		cr_assert_str_eq(r->func, func, "%s", role);
		cr_assert_str_eq(r->file, file, "%s", role);
		cr_assert_eq(r->line, line, "%s: line %d, Python says %d", role, r->line, line);
		cr_assert(eval_loop(t, r->native), "%s: innermost Python frame placed at native frame %d",
			  role, r->native);
		if (!strcmp(role, "main")) {
			cr_assert_str_eq(t->rt_frames[t->n_rt_frames - 1].func, "<module>");
		} else if (!strcmp(role, "deep")) {
			cr_assert_geq(t->n_rt_frames, 41);
			for (size_t k = 1; k <= 40; k++) {
				cr_assert_str_eq(t->rt_frames[k].func, "recurse");
				cr_assert_eq(t->rt_frames[k].line, line + 1, "the recursive call");
			}
		} else if (!strcmp(role, "gen")) {
			cr_assert_str_eq(t->rt_frames[1].func, "gen_main");
		}
		checked++;
	}
	cr_assert_eq(checked, 8);
	lt_snapshot_free(s);
}

/* The Lock and RLock that py_stacks' locker and rlocker wait for: named,
 * the RLock's owner (main) found, and no verdict says OK. */
Test(rt_cpython_live, lock_and_rlock_waits, .fini = cleanup, .timeout = 120)
{
	start_py("tests/workloads/py_stacks.py", NULL);
	pid_t locker = (pid_t)tl_val(tl_find(truth, ntruth, "thread", "role=locker"), "tid", NULL);
	pid_t rlocker = (pid_t)tl_val(tl_find(truth, ntruth, "thread", "role=rlocker"), "tid", NULL);
	uint64_t held = tl_val(tl_find(truth, ntruth, "lock", "name=held"), "addr", NULL);
	uint64_t rheld = tl_val(tl_find(truth, ntruth, "lock", "name=rheld"), "addr", NULL);
	struct lt_snapshot *s = snapshot();
	const struct lt_thread *l = lt_snapshot_find(s, locker), *rl = lt_snapshot_find(s, rlocker);
	cr_assert_not_null(l);
	cr_assert_not_null(rl);
	cr_assert_str_eq(l->futex.lock_kind ? l->futex.lock_kind : "-", "threading.Lock");
	cr_assert_eq(l->futex.lock_base, held);
	cr_assert_str_eq(l->futex.lock_name ? l->futex.lock_name : "-", "lk");
	cr_assert_str_eq(rl->futex.lock_kind ? rl->futex.lock_kind : "-", "threading.RLock");
	cr_assert_eq(rl->futex.lock_base, rheld);
	cr_assert_eq(rl->futex.owner_kind, LT_OWNER_RUNTIME);
	cr_assert_eq(rl->futex.owner, wl.pid, "the RLock's owner is main");
	bool lock_verdict = false, rlock_verdict = false;
	for (size_t i = 0; i < s->n_verdicts; i++) {
		const struct lt_verdict *v = &s->verdicts[i];
		cr_assert_neq(v->kind, LT_VERDICT_OK);
		for (size_t k = 0; k < v->n_tids; k++) {
			lock_verdict |= v->tids[k] == locker && v->kind == LT_VERDICT_LOCK_WAIT;
			rlock_verdict |= v->tids[k] == rlocker && v->owner == wl.pid;
		}
	}
	cr_assert(lock_verdict && rlock_verdict);
	lt_snapshot_free(s);
}

/* Event.wait() parks in threading's Condition.wait() on a lock of its own
 * until notify(): an event wait, named as the Condition, in no lock verdict. */
Test(rt_cpython_live, condition_wait_is_no_lock_wait, .fini = cleanup, .timeout = 120)
{
	start_py("tests/workloads/py_stacks.py", NULL);
	pid_t ev = (pid_t)tl_val(tl_find(truth, ntruth, "thread", "role=event"), "tid", NULL);
	int line = (int)tl_val(tl_find(truth, ntruth, "thread", "role=event"), "line", NULL);
	struct lt_snapshot *s = snapshot();
	const struct lt_thread *t = lt_snapshot_find(s, ev);
	cr_assert_not_null(t);
	cr_assert_geq(t->n_rt_frames, 3);
	cr_assert_str_eq(t->rt_frames[0].func, "Condition.wait");
	cr_assert_str_eq(t->rt_frames[1].func, "Event.wait");
	cr_assert_str_eq(t->rt_frames[2].func, "wait_event");
	cr_assert_eq(t->rt_frames[2].line, line);
	cr_assert_str_eq(t->futex.lock_kind ? t->futex.lock_kind : "-", "threading.Condition");
	cr_assert_null(t->acquire, "waiting for notify() acquires nothing");
	/* Event's Condition has a Lock, which records no owner */
	cr_assert_neq(t->futex.owner_kind, LT_OWNER_COND);
	cr_assert(t->futex.lock_state && strstr(t->futex.lock_state, "a threading.Lock at 0x") &&
		  strstr(t->futex.lock_state, "records no owner"), "%s",
		  t->futex.lock_state ? t->futex.lock_state : "-");
	for (size_t i = 0; i < s->n_verdicts; i++)
		for (size_t k = 0; k < s->verdicts[i].n_tids; k++)
			cr_assert(s->verdicts[i].tids[k] != ev || (s->verdicts[i].kind != LT_VERDICT_LOCK_WAIT &&
								  s->verdicts[i].kind != LT_VERDICT_CONVOY),
				  "%s", s->verdicts[i].summary);
	lt_snapshot_free(s);
}

/* gil_holder.py --cond-held: three threads in cond.wait() on one Condition
 * whose RLock a fourth thread holds while it sleeps in recv(): each waiter
 * has that thread as the other end of its wait (LT_OWNER_COND, read from
 * the RLock), and one verdict (a lock wait, not a convoy, never IDLE) names
 * the Condition, its lock's holder and the recvfrom it is blocked in. */
Test(rt_cpython_live, condition_whose_lock_is_held_names_its_holder, .fini = cleanup, .timeout = 120)
{
	char *extra[] = { "--cond-held", NULL };
	start_py("tests/workloads/gil_holder.py", extra);
	const char *cl = tl_find(truth, ntruth, "cond", NULL);
	cr_assert_not_null(cl);
	uint64_t cond = tl_val(cl, "addr", NULL), rlock = tl_val(cl, "lock", NULL);
	pid_t holder = (pid_t)tl_val(tl_find(truth, ntruth, "thread", "role=condholder"), "tid", NULL);
	pid_t waiters[3];
	for (int i = 0; i < 3; i++) {
		char key[16];
		snprintf(key, sizeof(key), "idx=%d", i);
		const char *l = NULL;
		for (int k = 0; k < ntruth && !l; k++)
			if (strstr(truth[k], "role=cwaiter") && strstr(truth[k], key))
				l = truth[k];
		cr_assert_not_null(l, "cwaiter %d", i);
		waiters[i] = (pid_t)tl_val(l, "tid", NULL);
	}
	struct lt_snapshot *s = snapshot();
	char want[64];
	snprintf(want, sizeof(want), "an RLock at 0x%" PRIx64 ", is held by thread %d", rlock, (int)holder);
	for (int i = 0; i < 3; i++) {
		const struct lt_thread *t = lt_snapshot_find(s, waiters[i]);
		cr_assert_not_null(t);
		cr_assert_str_eq(t->futex.lock_kind ? t->futex.lock_kind : "-", "threading.Condition");
		cr_assert_eq(t->futex.lock_base, cond, "waiter %d: 0x%" PRIx64 ", the Condition is 0x%" PRIx64,
			     waiters[i], t->futex.lock_base, cond);
		cr_assert_eq(t->futex.owner_kind, LT_OWNER_COND, "waiter %d", waiters[i]);
		cr_assert_eq(t->futex.owner, holder, "waiter %d: %d", waiters[i], t->futex.owner);
		cr_assert(t->futex.lock_state && strstr(t->futex.lock_state, want), "%s",
			  t->futex.lock_state ? t->futex.lock_state : "-");
		cr_assert_null(t->acquire);
	}
	const struct lt_verdict *found = NULL;
	for (size_t i = 0; i < s->n_verdicts; i++) {
		const struct lt_verdict *v = &s->verdicts[i];
		cr_assert(v->kind != LT_VERDICT_OK && v->kind != LT_VERDICT_IDLE && v->kind != LT_VERDICT_CONVOY,
			  "%s", v->summary);
		if (v->kind == LT_VERDICT_LOCK_WAIT && v->owner == holder)
			found = v;
	}
	cr_assert_not_null(found, "no verdict names the Condition's lock holder %d", holder);
	cr_assert_eq(found->n_tids, 3, "%s", found->summary);
	for (int i = 0; i < 3; i++) {
		bool in = false;
		for (size_t k = 0; k < found->n_tids; k++)
			in |= found->tids[k] == waiters[i];
		cr_assert(in, "waiter %d not in: %s", waiters[i], found->summary);
	}
	char sum[160];
	snprintf(sum, sizeof(sum), "on the threading.Condition at 0x%" PRIx64 ", whose lock thread %d", cond,
		 (int)holder);
	cr_assert(strstr(found->summary, sum) && strstr(found->summary, "blocked in recvfrom(fd"),
		  "%s", found->summary);
	lt_snapshot_free(s);
}

/* gil_holder.py --cond-busy: the Condition's RLock is held by a thread that
 * runs (a pure-Python loop inside `with cond:`), as a notifier holds it for
 * a moment: not taken as the waiters' other end (they stay event waits, no
 * lock wait names it), and their lock state says why. */
Test(rt_cpython_live, condition_whose_lock_a_running_thread_holds_is_no_lock_wait, .fini = cleanup,
     .timeout = 120)
{
	char *extra[] = { "--cond-busy", NULL };
	start_py("tests/workloads/gil_holder.py", extra);
	pid_t holder = (pid_t)tl_val(tl_find(truth, ntruth, "thread", "role=condholder"), "tid", NULL);
	struct lt_snapshot *s = snapshot();
	char want[128];
	snprintf(want, sizeof(want), "was held by thread %d (count 1) when read, a thread not asleep in a call",
		 (int)holder);
	int waiters = 0;
	for (int k = 0; k < ntruth; k++) {
		if (!strstr(truth[k], "role=cwaiter"))
			continue;
		const struct lt_thread *t = lt_snapshot_find(s, (pid_t)tl_val(truth[k], "tid", NULL));
		cr_assert_not_null(t);
		cr_assert_str_eq(t->futex.lock_kind ? t->futex.lock_kind : "-", "threading.Condition");
		cr_assert_neq(t->futex.owner_kind, LT_OWNER_COND);
		cr_assert(t->futex.lock_state && strstr(t->futex.lock_state, want), "%s",
			  t->futex.lock_state ? t->futex.lock_state : "-");
		waiters++;
	}
	cr_assert_eq(waiters, 3);
	/* The spinner also holds the GIL between two switch intervals: the
	 * main thread, which needs it once more after printing "ready" on its
	 * way into time.sleep(), may be caught waiting for it, and a verdict
	 * naming the spinner as the GIL's holder is then a true one.  Only
	 * that one may name it: never for the Condition, never with a
	 * cwaiter among its threads. */
	for (size_t i = 0; i < s->n_verdicts; i++) {
		const struct lt_verdict *v = &s->verdicts[i];
		if (v->owner != holder)
			continue;
		cr_assert(strstr(v->summary, "for the GIL") && !strstr(v->summary, "Condition"), "%s",
			  v->summary);
		for (size_t k = 0; k < v->n_tids; k++)
			cr_assert_eq(v->tids[k], wl.pid, "thread %d in: %s", (int)v->tids[k], v->summary);
	}
	lt_snapshot_free(s);
}

/* gil_holder.py --cond-deadlock: W keeps Lock L and waits in cond.wait();
 * H holds the Condition's RLock and waits for L to notify.  The cycle goes
 * through the Condition (W's other end is H, by the RLock's owner) and
 * through L (H's holder W, inferred from its frames): one deadlock verdict
 * of the two threads, said probable (one edge is inferred), its evidence
 * naming the Condition. */
Test(rt_cpython_live, deadlock_through_a_condition, .fini = cleanup, .timeout = 120)
{
	char *extra[] = { "--cond-deadlock", NULL };
	start_py("tests/workloads/gil_holder.py", extra);
	uint64_t cond = tl_val(tl_find(truth, ntruth, "cond", NULL), "addr", NULL);
	pid_t w = (pid_t)tl_val(tl_find(truth, ntruth, "thread", "role=W"), "tid", NULL);
	pid_t h = (pid_t)tl_val(tl_find(truth, ntruth, "thread", "role=H"), "tid", NULL);
	struct lt_snapshot *s = snapshot();
	const struct lt_thread *tw = lt_snapshot_find(s, w), *th = lt_snapshot_find(s, h);
	cr_assert(tw && th);
	cr_assert_eq(tw->futex.owner_kind, LT_OWNER_COND);
	cr_assert_eq(tw->futex.owner, h);
	cr_assert_eq(th->futex.owner_kind, LT_OWNER_INFERRED);
	cr_assert_eq(th->futex.owner, w);
	const struct lt_verdict *d = NULL;
	for (size_t i = 0; i < s->n_verdicts; i++) {
		cr_assert_neq(s->verdicts[i].kind, LT_VERDICT_IDLE, "%s", s->verdicts[i].summary);
		if (s->verdicts[i].kind == LT_VERDICT_DEADLOCK)
			d = &s->verdicts[i];
	}
	cr_assert_not_null(d, "no deadlock verdict");
	cr_assert_eq(d->n_tids, 2, "%s", d->summary);
	cr_assert((d->tids[0] == w && d->tids[1] == h) || (d->tids[0] == h && d->tids[1] == w), "%s",
		  d->summary);
	cr_assert(strstr(d->summary, "probable"), "%s", d->summary);
	char want[128];
	snprintf(want, sizeof(want), "waits in Condition.wait() on the threading.Condition at 0x%" PRIx64
		 " [", cond);
	bool named = false;
	for (size_t k = 0; k < d->evidence.n; k++)
		named |= strstr(d->evidence.v[k], want) != NULL;
	cr_assert(named, "the deadlock's evidence does not name the Condition 0x%" PRIx64, cond);
	lt_snapshot_free(s);
}

/* The two-Lock deadlock: each side waits for threading.Lock 'second' at
 * the line Python reports, the other side keeps that lock as 'first', and
 * the verdicts say which lock and which line, never OK. */
Test(rt_cpython_live, lock_deadlock_lines, .fini = cleanup, .timeout = 120)
{
	char *extra[] = { "--lock-deadlock", NULL };
	start_py("tests/workloads/gil_holder.py", extra);
	const char *la = tl_find(truth, ntruth, "blocked", "on=L2"), *lb = tl_find(truth, ntruth, "blocked", "on=L1");
	cr_assert(la && lb);
	pid_t tids[2] = { (pid_t)tl_val(la, "tid", NULL), (pid_t)tl_val(lb, "tid", NULL) };
	int lines[2] = { (int)tl_val(la, "line", NULL), (int)tl_val(lb, "line", NULL) };
	struct lt_snapshot *s = snapshot();
	for (int i = 0; i < 2; i++) {
		const struct lt_thread *t = lt_snapshot_find(s, tids[i]), *o = lt_snapshot_find(s, tids[!i]);
		cr_assert(t && o);
		cr_assert_gt(t->n_rt_frames, 0);
		cr_assert_str_eq(t->rt_frames[0].func, "side");
		cr_assert_eq(t->rt_frames[0].line, lines[i]);
		cr_assert_str_eq(t->futex.lock_kind ? t->futex.lock_kind : "-", "threading.Lock");
		cr_assert_str_eq(t->futex.lock_name ? t->futex.lock_name : "-", "second");
		char want[96];
		snprintf(want, sizeof(want), "thread %d (%s) has it in 'first' of side", (int)o->tid,
			 lt_thread_name(o));
		cr_assert(t->futex.lock_state && strstr(t->futex.lock_state, want), "%s",
			  t->futex.lock_state ? t->futex.lock_state : "-");
	}
	int found = 0;
	for (size_t i = 0; i < s->n_verdicts; i++) {
		const struct lt_verdict *v = &s->verdicts[i];
		cr_assert_neq(v->kind, LT_VERDICT_OK);
		cr_assert_neq(v->kind, LT_VERDICT_IDLE);
		if (v->kind != LT_VERDICT_LOCK_WAIT || v->n_tids != 1)
			continue;
		int k = v->tids[0] == tids[0] ? 0 : v->tids[0] == tids[1] ? 1 : -1;
		if (k < 0)
			continue;
		char at[64];
		snprintf(at, sizeof(at), "gil_holder.py:%d)", lines[k]);
		cr_assert(strstr(v->summary, "threading.Lock 'second'"), "%s", v->summary);
		bool has_line = false;
		for (size_t e = 0; e < v->evidence.n; e++)
			has_line |= strstr(v->evidence.v[e], "waits in python at side") &&
				    strstr(v->evidence.v[e], at);
		cr_assert(has_line, "no evidence line with side at %s", at);
		found++;
	}
	cr_assert_eq(found, 2);
	lt_snapshot_free(s);
}

/* Text output: each Python frame sits just above the evaluation-loop frame
 * that runs it, and the header carries the thread's Python name. */
Test(rt_cpython_live, text_interleaves, .fini = cleanup, .timeout = 120)
{
	start_py("tests/workloads/py_stacks.py", NULL);
	struct lt_snapshot *s = snapshot();
	char *buf = TL_PRINTED(NULL, lt_snapshot_print_text, s);
	cr_assert(strstr(buf, "python thread \"sleeper\""));
	const char *p = strstr(buf, "    py  sleep_forever (");
	cr_assert_not_null(p);
	const char *nl = strchr(p, '\n');
	cr_assert(nl && !strncmp(nl + 1, "    #", 5) && strstr(nl + 1, "_PyEval_EvalFrameDefault") &&
		  strstr(nl + 1, "_PyEval_EvalFrameDefault") < strchr(nl + 1, '\n'),
		  "the line after the Python frame is not the loop: %.200s", nl + 1);
	free(buf);
	lt_snapshot_free(s);
}

/* ---- live: OCaml frames read as OCaml names ---- */

/* ocaml_holder (OCaml 4.13 from Debian): its frames print as Holder.waiter,
 * not camlHolder__waiter_374; JSON keeps the symbol and adds the name. */
Test(rt_demangle_live, ocaml_holder_frames, .fini = cleanup, .timeout = 120)
{
	tl_skip_unless_root("needs root: other users' /proc files and memory");
	if (access(WL("ocaml_holder"), X_OK) != 0)
		cr_skip_test(WL("ocaml_holder") " not built: needs ocamlopt (Debian ocaml-nox), then make all");
	char *argv[] = { WL("ocaml_holder"), "-t", "3", NULL };
	ntruth = 0;
	cr_assert_eq(tl_spawn(&wl, argv), 0);
	cr_assert(tl_wait_for(&wl, 0, "ready", truth, &ntruth, 64, 60000), "ocaml_holder never got ready");
	struct lt_snapshot *s = snapshot();
	char *buf = TL_PRINTED(NULL, lt_snapshot_print_text, s);
	cr_assert(strstr(buf, " Holder.waiter+0x"), "%.3000s", buf);
	cr_assert_null(strstr(buf, "camlHolder__waiter"));
	free(buf);
	buf = TL_PRINTED(NULL, lt_snapshot_print_json, s);
	cr_assert(strstr(buf, "\"func\":\"camlHolder__waiter_"));
	cr_assert(strstr(buf, "\"demangled\":\"Holder.waiter\""));
	free(buf);
	lt_snapshot_free(s);
}

/* ---- hostile images: no amplification of what the target holds ---- */

static double cpu_s(void)
{
	struct timespec ts;
	clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &ts);
	return (double)ts.tv_sec + ts.tv_nsec / 1e9;
}

static long maxrss_mib(void)
{
	struct rusage ru;
	getrusage(RUSAGE_SELF, &ru);
	return ru.ru_maxrss / 1024;
}

/* 768 code objects (3 threads x 256 frames) sharing one 1 MiB line table:
 * the table is read and kept once, not once per code object (768 MiB). */
Test(rt_cpython_hostile, shared_line_table_read_once)
{
	struct fx f;
	struct image im;
	image(&f, &im, fxl(11), "3.11.2", 0x030b02f0);
	size_t big = 1u << 20;
	uint8_t *tab = calloc(1, big);
	cr_assert_not_null(tab);
	for (size_t i = 0; i < big; i += 2) { /* one-unit entries, line +0 */
		tab[i] = 0x80 | (13 << 3);
		tab[i + 1] = 0;
	}
	uint64_t shared = bytes(&f, tab, big);
	free(tab);
	long rss0 = maxrss_mib();
	for (int k = 0; k < 3; k++) {
		uint64_t back = 0;
		for (int i = 0; i < 256; i++) {
			uint64_t c = code_obj(&f, "deep", "deep", "deep.py", (const uint8_t *)"\x80", 1, 5, NULL, 0);
			fi_put64(&f.img, c + f.l.co_table, shared);
			back = frame(&f, back, c, 0, 0, false, 0, false);
		}
		fi_put64(&f.img, im.top[k] + f.l.if_prev, back);
	}
	double t0 = cpu_s();
	apply(&f);
	double took = cpu_s() - t0;
	long grew = maxrss_mib() - rss0;
	for (int k = 0; k < 3; k++)
		cr_assert_eq(f.threads[k].n_rt_frames, 256, "thread %d: %zu frames", k, f.threads[k].n_rt_frames);
	cr_assert_str_eq(f.threads[2].rt_frames[100].func, "deep");
	/* generous: one copy of the table is 1 MiB; one per code object 768 */
	cr_assert_lt(grew, 64, "reading the frames grew the peak RSS by %ld MiB", grew);
	cr_assert_lt(took, 30.0, "%.1f s of CPU", took);
	fprintf(stderr, "shared line table: +%ld MiB peak RSS, %.2f s CPU\n", grew, took);
	fx_free(&f);
}

/* A thread-state list and an interpreter list that loop back: each is
 * read once and the cycle said, through the budget notes of a snapshot. */
Test(rt_cpython_hostile, cyclic_thread_states_said)
{
	struct fx f;
	struct image im;
	image(&f, &im, fxl(12), "3.12.1", 0x030c01f0);
	uint64_t ts0 = 0;
	ts0 = fi_get64(&f.img, im.interp + f.l.is_threads);
	/* the last thread state's next: the first again */
	uint64_t ts = ts0, next;
	for (int i = 0; i < 2; i++) {
		next = fi_get64(&f.img, ts + f.l.ts_next);
		ts = next;
	}
	fi_put64(&f.img, ts + f.l.ts_next, ts0);
	lt_budget_begin(0, NULL);
	apply(&f);
	size_t n = 0;
	const char *const *why = lt_budget_notes(&n);
	cr_assert_eq(n, 1);
	cr_assert(strstr(why[0], "loops back") && strstr(why[0], "after 3"), "%s", why[0]);
	lt_budget_end();
	cr_assert_eq(f.threads[1].n_rt_frames, 3, "the threads are still read once");
	fx_free(&f);
}

/* FIRST_EXCEPTION ends at any one's exception too: with f1's runner blocked
 * but f2 queued (it may yet run and raise), not stuck -- not "held by 102"
 * as an ALL_COMPLETED wait is. */
Test(rt_cpython_fixture, futures_wait_first_exception_is_not_held_by_one_runner)
{
	fw_versions(FW_FIRST_EXC);
}
