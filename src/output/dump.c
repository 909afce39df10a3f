// SPDX-License-Identifier: MIT
/* A trace file as text (src/output/dump.h): the header, then one
 * line per event, for people and for grep. */
#include <inttypes.h>
#include <stdio.h>
#include <string.h>
#include "dump.h"
#include "filelock.h"
#include "locktrace/calls.h"
#include "locksyms.h"
#include "snapfacts.h"
#include "stacks.h"
#include "timeline.h"
#include "locktrace/tracefile.h"
#include "u64map.h"
#include "utf8.h"

static void print_ref(void *ctx, const struct lt_stack_ref *r)
{
	(void)ctx;
	if (r->role == LT_STACK_WAKER)
		printf("# wake-up by tid %d at %" PRIu64 ": waker stack %u\n", r->tid, r->ts, r->stack_id);
	else {
		printf("# wait of tid %d at %" PRIu64 ": waiter stack %u (read %.3f ms after)", r->tid,
		       r->ts, r->stack_id, (double)r->delay_ns / 1e6);
		if (r->rtlock_name) { /* the runtime's lock, where the futex names none */
			fputs(", waiting for ", stdout);
			lt_text_fput(stdout, r->rtlock_name, (size_t)-1);
		}
		putchar('\n');
	}
}

/* A STACKS section: its stacks, one frame a line, then which wait has which. */
static void dump_stacks(const uint8_t *data, size_t len)
{
	struct lt_stacktab t = { 0 };
	char buf[1024];

	if (lt_stacktab_add(&t, data, len))
		printf("# STACKS section damaged: what precedes the damage follows\n");
	for (size_t i = 0; i < t.nstacks; i++) {
		const struct lt_stack *s = t.stacks[i];
		printf("# stack %u of process %d, %u frames\n", s->id, s->tgid, s->nframes);
		for (uint32_t f = 0; f < s->nframes; f++) {
			printf("#   %2u ", f);
			lt_text_fput(stdout, lt_sframe_text(&s->frames[f], buf, sizeof(buf)), (size_t)-1);
			putchar('\n');
		}
		if (s->end) {
			printf("#   ");
			lt_text_fput(stdout, s->end, (size_t)-1);
			putchar('\n');
		}
	}
	lt_stacktab_each_ref(&t, print_ref, NULL);
	lt_stacktab_free(&t);
}

/* Names, paths and the command line come from the target: escaped (utf8.h). */
static const char *esc(const char *s, size_t max, char *buf, size_t len)
{
	lt_text_escape(buf, len, s, strnlen(s, max));
	return buf;
}

static void print_header(const struct lt_header *h)
{
	char a[4 * sizeof(h->comm) + 1], b[4 * sizeof(h->host) + 1], c[4 * sizeof(h->kernel) + 1];
	char x[4 * sizeof(h->exe) + 1], y[4 * sizeof(h->cmdline) + 1], m[4 * sizeof(h->machine) + 1];

	printf("# locktrace trace v%u.%u: process %d (%s) on %s, kernel %s%s%s, %u cpus%s\n",
	       h->version_major, h->version_minor, h->pid, esc(h->comm, sizeof(h->comm), a, sizeof(a)),
	       esc(h->host, sizeof(h->host), b, sizeof(b)), esc(h->kernel, sizeof(h->kernel), c, sizeof(c)),
	       h->machine[0] ? " " : "", esc(h->machine, sizeof(h->machine), m, sizeof(m)), h->ncpus,
	       h->flags & LT_HDR_LAUNCHED ? ", launched by locktrace" : "");
	if (h->ppid > 0)
		printf("# parent process %d\n", h->ppid);
	printf("# exe %s\n# cmdline %s\n", esc(h->exe, sizeof(h->exe), x, sizeof(x)),
	       esc(h->cmdline, sizeof(h->cmdline), y, sizeof(y)));
	printf("# clocks at attach: boottime %" PRIu64 " monotonic %" PRIu64 " realtime %" PRIu64 "\n",
	       h->clock_boottime, h->clock_monotonic, h->clock_realtime);
	for (uint32_t i = 0; i < h->nthreads; i++) {
		const struct lt_thread_info *t = &h->threads[i];
		printf("# thread %d %s", t->tid, esc(t->comm, sizeof(t->comm), a, sizeof(a)));
		if (t->sc_nr == LT_SC_NR_RUNNING)
			printf(" running");
		else if (t->sc_nr >= 0 && lt_call_flock(t->sc_nr, t->sc_args[1])) {
			/* a file-lock call: decoded as the events are (its
			 * struct flock was not read at attach) */
			struct lt_flock_enter fe = { .nr = (uint16_t)t->sc_nr, .fd = (int32_t)t->sc_args[0],
						     .cmd = (uint32_t)t->sc_args[1],
						     .type = LT_FLOCK_TYPE_NOT_READ };
			char call[200];
			lt_flock_call_str(&fe, NULL, call, sizeof(call));
			printf(" in %s for %.3f s", call, (double)t->blocked_ns / 1e9);
		} else if (t->sc_nr >= 0)
			printf(" in %s(0x%" PRIx64 ", 0x%" PRIx64 ", 0x%" PRIx64 ") for %.3f s",
			       lt_call_name((unsigned)t->sc_nr), t->sc_args[0], t->sc_args[1], t->sc_args[2],
			       (double)t->blocked_ns / 1e9);
		if (t->state)
			printf(" (state %c)", t->state);
		printf("\n");
	}
}

/* tl: the timeline fed every event so far (NULL: out of memory), for the
 * switches it had to infer */
static void print_stats(const struct lt_stats *s, struct lt_timeline *tl)
{
	uint64_t lost = 0;
	printf("# stats: %.3f s, events:", (double)(s->end_ns - s->start_ns) / 1e9);
	for (unsigned k = 1; k < LT_EV_MAX; k++)
		if (s->events[k])
			printf(" %s=%" PRIu64, lt_kind_name(k), s->events[k]);
	for (uint64_t i = 0; s->lost && i < (uint64_t)s->ncpus * LT_EV_MAX; i++)
		lost += s->lost[i];
	printf("; lost %" PRIu64, lost);
	if (s->fb_written)
		printf("; flight recorder: %" PRIu64 " records written, %" PRIu64
		       " of them overwritten before the dump", s->fb_written, s->fb_overwritten);
	if (tl) {
		lt_timeline_finish(tl, 0);
		uint64_t n = lt_timeline_stats(tl)->unseen_switches;
		if (n)
			printf("; " LT_UNSEEN_SWITCHES_FMT, LT_UNSEEN_SWITCHES_ARGS(n, lost));
	}
	putchar('\n');
}

int lt_dump(const char *path, char *err, size_t errlen)
{
	struct lt_reader r;
	struct lt_item it;
	char line[512];
	uint64_t n = 0;

	err[0] = 0;
	if (lt_reader_open(&r, path, err, errlen))
		return 1;
	/* lock names are written as they are learnt; read them all first */
	struct lt_u64map names = { 0 };
	lt_trace_symbols(path, &names, rp_snapshot_names);
	print_header(&r.hdr);
	/* what the model makes of the events: only its count of switches it
	 * had to infer is printed */
	struct lt_timeline *tl = lt_timeline_new(&r.hdr, NULL, NULL);
	uint32_t said = 0; /* damage said in place, where the events skip it */
	while (lt_reader_next(&r, &it) > 0) {
		for (; said < r.nskips && said < LT_READER_SKIPS; said++)
			printf("# DAMAGED: bytes %" PRIu64 "..%" PRIu64 " skipped (%s)\n", r.skips[said].from,
			       r.skips[said].to, r.skips[said].why);
		if (it.type == LT_ITEM_EVENT) {
			if (tl)
				lt_timeline_event(tl, &it.ev);
			lt_format_event(&it.ev, line, sizeof(line));
			const char *name = it.ev.h.kind == LT_EV_FUTEX_ENTER
						   ? lt_u64map_get(&names, it.ev.futex.uaddr)
						   : NULL;
			if (name) {
				printf("%s <", line);
				lt_text_fput(stdout, name, (size_t)-1);
				printf(">\n");
			}
			else
				puts(line);
			n++;
		} else if (it.sec_type == LT_CHUNK_SYMBOLS) {
			struct lt_u64map sec = { 0 };
			lt_locksyms_parse(it.data, it.len, &sec);
			for (size_t i = 0; i < sec.cap; i++)
				if (sec.keys[i]) {
					printf("# lock 0x%" PRIx64 " = ", sec.keys[i]);
					lt_text_fput(stdout, sec.vals[i], (size_t)-1);
					putchar('\n');
				}
			lt_symmap_free(&sec);
		} else if (it.sec_type == LT_CHUNK_STACKS) {
			dump_stacks(it.data, it.len);
		} else if (it.sec_type == LT_CHUNK_STATS && r.have_stats) {
			print_stats(&r.stats, tl);
		} else if (it.sec_type == LT_CHUNK_SNAPSHOT) {
			printf("# snapshot of every thread, %zu bytes of JSON at offset %" PRIu64
			       " (locktrace snapshot --from %s prints it)\n", it.len, it.offset, path);
		} else {
			printf("# section type %u, %zu bytes at offset %" PRIu64 "\n", it.sec_type, it.len,
			       it.offset);
		}
	}
	int rc = 0;
	if (!r.clean_end || r.stop_reason[0]) {
		snprintf(err, errlen, "%s: read %" PRIu64 " events; stopped: %s", path, n, r.stop_reason);
		rc = r.clean_end ? 0 : 3;
	} else if (r.nskips) {
		snprintf(err, errlen, "%s: read %" PRIu64 " events; damaged", path, n);
	}
	if (r.nskips) {
		lt_trace_damage_append(&r, err, errlen);
		rc = 3;
	}
	lt_timeline_free(tl);
	lt_reader_close(&r);
	lt_symmap_free(&names);
	return rc;
}
