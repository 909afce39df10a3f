/* The trace format's CRC-32 (src/base/crc32.h): the folded version gives
 * zlib's crc32 for every length, alignment and starting value, so files
 * written before and after it check the same.  No root needed. */
#include <criterion/criterion.h>
#include <stdlib.h>
#include <string.h>
#include <zlib.h>

#include "crc32.h"

static uint8_t buf[1 << 20];

static void fill(unsigned seed)
{
	srand(seed);
	for (size_t i = 0; i < sizeof(buf); i++)
		buf[i] = (uint8_t)rand();
}

Test(crc32, same_as_zlib_every_length_and_alignment)
{
	fill(29);
	for (size_t len = 0; len <= 1100; len++) {
		for (size_t off = 0; off < 16; off += 3) {
			uint32_t start = (uint32_t)(len * 2654435761u + off);
			uint32_t want = (uint32_t)crc32(start, buf + off, (uInt)len);
			cr_assert_eq(lt_crc32_update(start, buf + off, len), want,
				     "length %zu at offset %zu from %08x", len, off, start);
			cr_assert_eq(lt_crc32_update_zlib(start, buf + off, len), want);
		}
	}
}

Test(crc32, same_as_zlib_chunk_sized_and_chained)
{
	fill(7);
	/* an events chunk is about 256 KiB */
	uint32_t want = (uint32_t)crc32(0, buf, 262147);
	cr_assert_eq(lt_crc32_update(0, buf, 262147), want);
	/* chained in uneven parts, as the writer does (chunk header, payload) */
	uint32_t c = lt_crc32_update(0, buf, 8);
	c = lt_crc32_update(c, buf + 8, 262147 - 8);
	cr_assert_eq(c, want);
	/* all zeros and all ones: no data-dependent shortcut */
	memset(buf, 0, 4096);
	cr_assert_eq(lt_crc32_update(0, buf, 4096), (uint32_t)crc32(0, buf, 4096));
	memset(buf, 0xff, 4096);
	cr_assert_eq(lt_crc32_update(0xffffffffu, buf, 4096), (uint32_t)crc32(0xffffffffu, buf, 4096));
	/* known answer: CRC-32 of "123456789" */
	cr_assert_eq(lt_crc32_update(0, "123456789", 9), 0xcbf43926u);
}
