// SPDX-License-Identifier: MIT
/* libFuzzer harness: the protobuf reader (src/base/pbread.c) that the tests and
 * tools use on locktrace's Perfetto output: every field, and every
 * length-delimited field read again as a nested message, 16 levels deep.
 * docs/fuzzing.md. */
#include <stdint.h>
#include "pbread.h"

static void walk(const void *data, size_t len, int depth)
{
	struct pb_reader r;
	struct pb_field f;
	int n = 0;

	pb_reader_init(&r, data, len);
	while (pb_read_field(&r, &f) > 0 && n++ < 100000)
		if (f.wire == PB_WT_LEN && depth < 16) {
			struct pb_reader sub;
			struct pb_field g;
			pb_reader_init_sub(&sub, &f);
			if (pb_read_field(&sub, &g) >= 0)
				walk(f.data, f.len, depth + 1);
		}
	(void)pb_reader_offset(&r);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	walk(data, size, 0);
	return 0;
}
