/* The goroutines of a stored snapshot in a Perfetto trace (perfetto_go.c). */
#ifndef LOCKTRACE_PERFETTO_GO_H
#define LOCKTRACE_PERFETTO_GO_H

#include <stddef.h>
#include <stdint.h>

struct lt_perfetto;
/* From one snapshot JSON document: a track per user goroutine (at most
 * 500) with an instant at the snapshot's time (taken_monotonic_ns +
 * mono_to_boot, else end_ts).  Returns how many; 0 for no Go section. */
size_t lt_perfetto_go_snapshot(struct lt_perfetto *p, const char *json, size_t len, uint64_t mono_to_boot,
			       uint64_t end_ts);

#endif
