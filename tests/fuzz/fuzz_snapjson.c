// SPDX-License-Identifier: MIT
/* libFuzzer harness: the snapshot JSON reader (src/base/json_read.c) and what
 * is taken from it (src/trace/snapfacts.c): the snapshot model the report
 * builds, the runtime lock holders and lock names the converter takes.
 * docs/fuzzing.md. */
#include <stdint.h>
#include <stdlib.h>
#include "report_int.h"
#include "u64map.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	const char *text = (const char *)data;
	char err[256];
	struct rp_json *j = rp_json_parse(text, size, err, sizeof(err));

	if (j) {
		struct rp_snapshot s;
		if (rp_snapshot_from_json(j, "prog", &s) == 0) {
			rp_snapshot_find(&s, 1);
			rp_snapshot_clear(&s);
		}
		rp_json_free(j);
	}
	struct rp_holder h[8];
	rp_snapshot_holders(text, size, h, 8);
	struct lt_u64map m = { 0 };
	rp_snapshot_lock_names(text, size, &m);
	for (size_t i = 0; i < m.cap; i++)
		if (m.keys[i])
			free(m.vals[i]);
	lt_u64map_free(&m);
	return 0;
}
