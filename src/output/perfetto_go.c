/* The goroutines of a recording's stored snapshot in the Perfetto trace
 * (docs/runtimes.md): one track per user goroutine under its process,
 * named "goroutine 19 (main.lockAB)", with an instant at the time of the
 * snapshot saying what it waited for ("semacquire: waits for sync.Mutex
 * main.muB").  The goroutines are parked, not threads: the snapshot is
 * the only evidence, so an instant at its time, no invented slice. */
#include <stdint.h>
#include <stdio.h>
#include <string.h>

#include "json_read.h"
#include "perfetto.h"
#include "perfetto_go.h"

#define MAX_GOROUTINES 500

/* The goroutine's own function: its first main.* frame, else the
 * outermost frame outside the runtime (the function it was started in). */
static const char *own_func(const struct rp_json *frames)
{
	const char *outer = NULL;
	for (size_t k = 0; frames && frames->type == RPJ_ARR && k < frames->n; k++) {
		const char *fn = rp_json_str(rp_json_get(&frames->items[k], "func"));
		if (!fn)
			continue;
		if (!strncmp(fn, "main.", 5))
			return fn;
		if (strncmp(fn, "runtime.", 8))
			outer = fn;
	}
	return outer ? outer : "?";
}

size_t lt_perfetto_go_snapshot(struct lt_perfetto *p, const char *json, size_t len, uint64_t mono_to_boot,
			       uint64_t end_ts)
{
	char err[128];
	struct rp_json *doc = rp_json_parse(json, len, err, sizeof(err));
	if (!doc)
		return 0;
	const struct rp_json *gs = rp_json_get(rp_json_get(doc, "go"), "goroutines");
	int64_t taken = rp_json_int(rp_json_get(doc, "taken_monotonic_ns"), 0);
	uint64_t ts = taken > 0 ? (uint64_t)taken + mono_to_boot : end_ts;
	uint32_t pid = (uint32_t)rp_json_int(rp_json_get(doc, "pid"), 0);
	size_t n = 0;
	for (size_t i = 0; gs && gs->type == RPJ_ARR && i < gs->n && n < MAX_GOROUTINES; i++) {
		const struct rp_json *g = &gs->items[i];
		const struct rp_json *sys = rp_json_get(g, "system");
		if (sys && sys->type == RPJ_TRUE)
			continue;
		int64_t id = rp_json_int(rp_json_get(g, "id"), -1);
		const char *reason = rp_json_str(rp_json_get(g, "wait_reason"));
		if (!reason)
			reason = rp_json_str(rp_json_get(g, "status"));
		const struct rp_json *w = rp_json_get(g, "waits_for");
		const char *kind = rp_json_str(rp_json_get(w, "kind")), *name = rp_json_str(rp_json_get(w, "name"));
		const char *dir = rp_json_str(rp_json_get(w, "dir"));
		const char *netfd = rp_json_str(rp_json_get(g, "netfd"));
		char track[256], what[512];
		snprintf(track, sizeof(track), "goroutine %lld (%s)", (long long)id, own_func(rp_json_get(g, "frames")));
		const char *addr = rp_json_str(rp_json_get(w, "addr"));
		if (dir && (!addr || !strcmp(addr, "0x0")))
			snprintf(what, sizeof(what), "%s: select on several channels", reason ? reason : "?");
		else if (dir)
			snprintf(what, sizeof(what), "%s: %s on channel %s", reason ? reason : "?", dir,
				 name ? name : "(heap)");
		else if (kind)
			snprintf(what, sizeof(what), "%s: waits for %s %s", reason ? reason : "?", kind,
				 name ? name : "(heap)");
		else if (netfd)
			snprintf(what, sizeof(what), "%s: on %s", reason ? reason : "?", netfd);
		else
			snprintf(what, sizeof(what), "%s", reason ? reason : "?");
		lt_perfetto_goroutine(p, pid, id, track, ts, what);
		n++;
	}
	rp_json_free(doc);
	return n;
}
