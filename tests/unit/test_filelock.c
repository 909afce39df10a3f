/* Unit tests of the file-lock call decoder (src/trace/filelock.c), the one
 * every output uses: flock operations, fcntl lock commands, struct flock
 * ranges (to EOF, negative lengths, other origins, overflow), and the
 * report and stall rule on synthetic file-lock waits.  No root needed. */
#include <criterion/criterion.h>
#include <stdint.h>
#include <string.h>
#include "filelock.h"
#include "locktrace/calls.h"
#include "lt_events.h"
#include "stall.h"

static const char *call(struct lt_event e, const char *fdtext)
{
	static char buf[256];
	lt_flock_call_str(&e.flk, fdtext, buf, sizeof(buf));
	return buf;
}

Test(filelock, flock_operations)
{
	cr_expect_str_eq(call(lt_ev_flock(0, 1, LT_NR_FLOCK, 3, LT_LOCK_EX, -1, 0, 0), NULL),
			 "flock(fd 3, LOCK_EX)");
	cr_expect_str_eq(call(lt_ev_flock(0, 1, LT_NR_FLOCK, 4, LT_LOCK_SH | LT_LOCK_NB, -1, 0, 0), NULL),
			 "flock(fd 4, LOCK_SH|LOCK_NB)");
	cr_expect_str_eq(call(lt_ev_flock(0, 1, LT_NR_FLOCK, 5, LT_LOCK_UN, -1, 0, 0), "fd 5: /tmp/x"),
			 "flock(fd 5: /tmp/x, LOCK_UN)");
}

Test(filelock, fcntl_commands_and_ranges)
{
	cr_expect_str_eq(call(lt_ev_flock(0, 1, LT_NR_FCNTL, 3, LT_F_SETLKW, 1, 0, 0), NULL),
			 "fcntl(fd 3, F_SETLKW, write lock 0..EOF)");
	cr_expect_str_eq(call(lt_ev_flock(0, 1, LT_NR_FCNTL, 3, LT_F_SETLK, 0, 10, 3), NULL),
			 "fcntl(fd 3, F_SETLK, read lock 10..12)");
	cr_expect_str_eq(call(lt_ev_flock(0, 1, LT_NR_FCNTL, 9, LT_F_OFD_SETLKW, 2, 100, -10), NULL),
			 "fcntl(fd 9, F_OFD_SETLKW, unlock 90..99)");
	struct lt_event e = lt_ev_flock(0, 1, LT_NR_FCNTL, 3, LT_F_OFD_SETLK, 1, -50, 50);
	e.flk.whence = 2;
	cr_expect_str_eq(call(e, NULL), "fcntl(fd 3, F_OFD_SETLK, write lock -50..-1 from the end)");
	e.flk.whence = 1;
	cr_expect_str_eq(call(e, NULL), "fcntl(fd 3, F_OFD_SETLK, write lock -50..-1 from the current offset)");
	cr_expect_str_eq(call(lt_ev_flock(0, 1, LT_NR_FCNTL, 3, LT_F_SETLKW, -1, 0, 0), NULL),
			 "fcntl(fd 3, F_SETLKW, struct flock unreadable)");
	cr_expect_str_eq(call(lt_ev_flock(0, 1, LT_NR_FCNTL, 3, LT_F_SETLKW, LT_FLOCK_TYPE_NOT_READ, 0, 0), NULL),
			 "fcntl(fd 3, F_SETLKW, range not recorded (the call began before tracing))");
	/* a range whose end does not fit: the raw numbers, no overflow */
	cr_expect_str_eq(call(lt_ev_flock(0, 1, LT_NR_FCNTL, 3, LT_F_SETLKW, 1, INT64_MAX, 2), NULL),
			 "fcntl(fd 3, F_SETLKW, write lock start 9223372036854775807 len 2)");
	cr_expect_str_eq(call(lt_ev_flock(0, 1, LT_NR_FCNTL, 3, LT_F_SETLKW, 1, 0, INT64_MIN), NULL),
			 "fcntl(fd 3, F_SETLKW, write lock start 0 len -9223372036854775808)");
	cr_expect_str_eq(call(lt_ev_flock(0, 1, LT_NR_FCNTL, 3, 99, 7, 0, 0), NULL),
			 "fcntl(fd 3, cmd 99, lock type 7 0..EOF)");
	cr_expect_str_eq(lt_fcntl_lock_cmd(LT_F_SETLKW), "F_SETLKW");
	cr_expect_null(lt_fcntl_lock_cmd(1));
}

Test(filelock, which_calls_are_recorded_and_may_wait)
{
	cr_expect(lt_call_flock(LT_NR_FLOCK, 0));
	cr_expect(lt_call_flock(LT_NR_FCNTL, LT_F_SETLKW));
	cr_expect(lt_call_flock(LT_NR_FCNTL, LT_F_OFD_SETLK));
	cr_expect_not(lt_call_flock(LT_NR_FCNTL, 3 /* F_GETFL */));
	cr_expect_not(lt_call_flock(LT_NR_FCNTL, 5 /* F_GETLK */));
	cr_expect_not(lt_call_flock(0, LT_F_SETLKW));
	cr_expect(lt_flock_may_wait(LT_NR_FLOCK, LT_LOCK_EX, -1));
	cr_expect(lt_flock_may_wait(LT_NR_FLOCK, LT_LOCK_SH, -1));
	cr_expect_not(lt_flock_may_wait(LT_NR_FLOCK, LT_LOCK_EX | LT_LOCK_NB, -1));
	cr_expect_not(lt_flock_may_wait(LT_NR_FLOCK, LT_LOCK_UN, -1));
	cr_expect(lt_flock_may_wait(LT_NR_FCNTL, LT_F_SETLKW, 1));
	cr_expect(lt_flock_may_wait(LT_NR_FCNTL, LT_F_OFD_SETLKW, -1));
	cr_expect_not(lt_flock_may_wait(LT_NR_FCNTL, LT_F_SETLKW, 2 /* F_UNLCK */));
	cr_expect_not(lt_flock_may_wait(LT_NR_FCNTL, LT_F_SETLK, 1));
	struct lt_event e = lt_ev_flock(0, 1, LT_NR_FCNTL, 3, LT_F_OFD_SETLKW, 1, 0, 0);
	cr_expect_str_eq(lt_flock_kind(&e.flk), "OFD lock");
	e.flk.cmd = LT_F_SETLKW;
	cr_expect_str_eq(lt_flock_kind(&e.flk), "record lock");
	e.flk.nr = LT_NR_FLOCK;
	cr_expect_str_eq(lt_flock_kind(&e.flk), "flock lock");
}

#define S(x) ((uint64_t)(x) * 1000000000ull)

/* The stall rule: a recorded flock wait is a lock wait (fires under the
 * locks rule, naming the call); its successful return is a hand-off; a
 * LOCK_NB call is not a waiter. */
Test(filelock, stall_rule_counts_a_recorded_file_lock_wait)
{
	struct lt_stall s;
	char why[512];
	cr_assert_eq(lt_stall_init(&s, LT_STALL_LOCKS, S(2), S(0)), 0);
	struct lt_event nb = lt_ev_flock(S(1), 7, LT_NR_FLOCK, 4, LT_LOCK_EX | LT_LOCK_NB, -1, 0, 0);
	lt_stall_event(&s, &nb);
	cr_expect_eq(lt_stall_check(&s, S(10), why, sizeof(why)), 0, "a LOCK_NB call is no lock wait: %s", why);
	struct lt_event w = lt_ev_flock(S(1), 8, LT_NR_FCNTL, 3, LT_F_SETLKW, 1, 10, 3);
	lt_stall_event(&s, &w);
	cr_assert_eq(lt_stall_check(&s, S(10), why, sizeof(why)), 1);
	cr_expect(strstr(why, "tid 8 in a file-lock wait, fcntl(fd 3, F_SETLKW, write lock 10..12)"), "%s", why);
	struct lt_event x = lt_ev_exit(S(9), 8, 0, LT_NR_FCNTL, 0);
	lt_stall_event(&s, &x);
	cr_expect_eq(lt_stall_check(&s, S(10), why, sizeof(why)), 0, "the lock granted at 9 s is progress: %s", why);
	lt_stall_free(&s);
}
