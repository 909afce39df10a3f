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
