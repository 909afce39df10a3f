/* Unit tests of the one-line event format of `locktrace dump`
 * (lt_format_event): what each flag and field says; and its stats line.
 * No root needed. */
#include <criterion/criterion.h>
#include <fcntl.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include "locktrace/calls.h"
#include "dump.h"
#include "locktrace/tracefile.h"
#include "lt_events.h"

static const char *line(const struct lt_event *e)
{
	static char buf[512];
	lt_format_event(e, buf, sizeof(buf));
	return buf;
}

Test(dump, message_calls_say_their_bytes_or_n_a)
{
	struct lt_event e = lt_ev_io(1000000000, 7, 0, LT_NR_SENDMSG, 5, 96);
	cr_assert(strstr(line(&e), "sendmsg fd=5 count=96"), "%s", line(&e));
	e.io.count = LT_IO_COUNT_UNKNOWN;
	cr_assert(strstr(line(&e), "sendmsg fd=5 count=n/a"), "%s", line(&e));
}

Test(dump, calls_written_at_a_sleep_or_at_a_wake_say_so)
{
	/* --calls blocking writes a call when its thread sleeps in it or
	 * wakes another thread from it: the time is that moment */
	struct lt_event e = lt_ev_futex(1000000000, 7, 0, 0x81, 0x1000, 1, -1, 0);
	e.h.flags = LT_F_AT_WAKE;
	cr_assert(strstr(line(&e), "FUTEX_WAKE|PRIVATE") && strstr(line(&e), " (at wake)"), "%s", line(&e));
	cr_assert_null(strstr(line(&e), "(at sleep)"));
	e = lt_ev_io(1000000000, 7, 0, LT_NR_SENDTO, 4, 96);
	e.h.flags = LT_F_AT_WAKE;
	cr_assert(strstr(line(&e), "sendto fd=4 count=96 (at wake)"), "%s", line(&e));
	e.h.flags = LT_F_AT_SLEEP;
	cr_assert(strstr(line(&e), "count=96 (at sleep)"), "%s", line(&e));
	e.h.flags = 0;
	cr_assert_null(strstr(line(&e), "(at"), "%s", line(&e));
}

/* What `locktrace dump` prints for a trace of these events (thread 101 of
 * process 100, cpu 0), as a malloc'd string. */
static char *dump_of(const struct lt_event *v, size_t n)
{
	char path[64], out[64], err[256];
	snprintf(path, sizeof(path), "/tmp/lt-test-dump-%d.lt", getpid());
	snprintf(out, sizeof(out), "/tmp/lt-test-dump-%d.txt", getpid());
	static struct lt_thread_info th = { .tid = 101, .comm = "main", .sc_nr = -3 };
	struct lt_header h = { .version_major = LT_VERSION_MAJOR, .pid = 100, .ncpus = 1,
			       .clock_boottime = 500, .nthreads = 1, .threads = &th };
	struct lt_writer *w;
	cr_assert_eq(lt_writer_open(&w, path, 1), 0);
	cr_assert_eq(lt_writer_header(w, &h), 0);
	for (size_t i = 0; i < n; i++)
		cr_assert_eq(lt_writer_event(w, &v[i]), 0);
	struct lt_stats st = { .start_ns = 500, .end_ns = 3000, .ncpus = 1, .exit_status = -1 };
	cr_assert_eq(lt_writer_stats(w, &st), 0);
	cr_assert_eq(lt_writer_close(w), 0);

	fflush(stdout);
	int saved = dup(1), fd = open(out, O_RDWR | O_CREAT | O_TRUNC, 0600);
	cr_assert(saved >= 0 && fd >= 0);
	dup2(fd, 1);
	int rc = lt_dump(path, err, sizeof(err));
	fflush(stdout);
	dup2(saved, 1);
	close(saved);
	cr_assert_eq(rc, 0, "%s", err);
	off_t len = lseek(fd, 0, SEEK_END);
	char *buf = calloc(1, (size_t)len + 1);
	cr_assert(buf && pread(fd, buf, (size_t)len, 0) == len);
	close(fd);
	unlink(path);
	unlink(out);
	return buf;
}

Test(dump, the_stats_line_counts_the_switches_not_in_the_trace)
{
	/* main leaves for a thread of PID 1 (75), whose switch back to it
	 * the kernel does not report; main calls futex */
	struct lt_event v[] = {
		lt_ev_switch(1000, 0, 101, 100, 1, 75, 1, "main", "tokio-rt-worker"),
		lt_ev_futex(2000, 101, 0, 0x81, 0x1000, 1, 0, 0),
		lt_ev_exit(2100, 101, 0, 202, 0),
		lt_ev_switch(2200, 0, 101, 100, 1, 0, 0, "main", "swapper/0"),
	};
	char *d = dump_of(v, 4);
	const char *st = strstr(d, "# stats: ");
	cr_assert(st, "%s", d);
	/* nothing lost: the kernel did not report it (LT_UNSEEN_CAUSE) */
	cr_assert(strstr(st, "; lost 0; 1 switch that put a traced thread on a cpu was not in the trace "
			     "(nothing was lost: not reported by the kernel, which may hide some tasks "
			     "from tracing, as a VM's agent; it reports no switch away from one, and no "
			     "wake-up an interrupt issued while one ran, so such a switch's wake-up is "
			     "missing too); placed at the thread's next event\n"),
		  "%s", st);
	free(d);
	/* with the switch in the trace, the line is as before */
	struct lt_event w[] = {
		v[0], lt_ev_switch(1900, 0, 75, 1, 0, 101, 100, "tokio-rt-worker", "main"), v[1], v[2], v[3],
	};
	d = dump_of(w, 5);
	st = strstr(d, "# stats: ");
	cr_assert(st && strstr(st, "; lost 0\n"), "%s", d);
	cr_assert_null(strstr(d, "not in the trace"));
	free(d);
}
