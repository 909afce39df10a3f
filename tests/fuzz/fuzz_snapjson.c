// SPDX-License-Identifier: MIT
/* libFuzzer harness: the stored-snapshot reader (src/base/json_read.c,
 * src/snapshot/snapshot_load.c) and what is taken from it
 * (src/snapshot/snapfacts.c): the snapshot model the report builds, the
 * runtime lock holders and the lock and thread names the converter takes.
 * docs/fuzzing.md. */
#include <stdint.h>
#include <stdlib.h>
#include "report_int.h"
#include "u64map.h"

static void free_map(struct lt_u64map *m)
{
	for (size_t i = 0; i < m->cap; i++)
		if (m->keys[i])
			free(m->vals[i]);
	lt_u64map_free(m);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	const char *text = (const char *)data;
	char err[256];
	struct rp_snapshot s;

	if (rp_snapshot_from_json(text, size, "prog", &s, err, sizeof(err)) == 0) {
		rp_snapshot_find(&s, 1);
		rp_snapshot_clear(&s);
	}
	struct rp_holder h[8];
	rp_snapshot_holders(text, size, h, 8);
	struct lt_u64map m = { 0 }, t = { 0 };
	rp_snapshot_names(text, size, &m, &t);
	free_map(&m);
	free_map(&t);
	return 0;
}
