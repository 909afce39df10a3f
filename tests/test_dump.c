/* Unit tests of the one-line event format of `locktrace dump`
 * (lt_format_event): what each flag and field says.  No root needed. */
#include <criterion/criterion.h>
#include <string.h>
#include "locktrace/calls.h"
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
