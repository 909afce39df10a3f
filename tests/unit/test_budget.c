/* The snapshot budget (src/budget.h): a deadline, an interruption, notes
 * of what was cut, and lt_snapshot_take saying them in the notes and the
 * verdicts' evidence.  No root needed. */
#include <criterion/criterion.h>
#include <signal.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "budget.h"
#include "snapshot.h"
#include "lt_test.h"

static int64_t mono_ns(void)
{
	struct timespec ts;
	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (int64_t)ts.tv_sec * 1000000000 + ts.tv_nsec;
}

Test(budget, deadline_stop_and_notes)
{
	volatile sig_atomic_t stop = 3;
	cr_assert_not(lt_budget_over(), "no budget: never over");
	lt_budget_begin(mono_ns() + 50000000, &stop);
	cr_assert_not(lt_budget_over());
	lt_budget_note("stopped reading %s after %d", "things", 7);
	lt_budget_note("stopped reading %s after %d", "things", 7); /* said once */
	usleep(80000);
	cr_assert(lt_budget_over(), "past the deadline");
	size_t n;
	const char *const *v = lt_budget_notes(&n);
	cr_assert_eq(n, 2);
	cr_assert_str_eq(v[0], "stopped reading things after 7");
	cr_assert(strstr(v[1], "time budget of 0.1 s ran out") || strstr(v[1], "time budget of 0.0 s ran out"),
		  "%s", v[1]);
	lt_budget_end();

	lt_budget_begin(0, &stop);
	cr_assert_not(lt_budget_over());
	stop++; /* Ctrl-C */
	cr_assert(lt_budget_over());
	v = lt_budget_notes(&n);
	cr_assert_eq(n, 1);
	cr_assert(strstr(v[0], "interrupted after"), "%s", v[0]);
	lt_budget_end();
	cr_assert_not(lt_budget_over());
}

/* A snapshot whose deadline has passed before it starts: one thread is
 * still read (a process past its budget is not "no process"), and the
 * notes say the snapshot is incomplete. */
Test(budget, snapshot_past_its_deadline_says_what_it_left_out)
{
	struct lt_snapshot *s = NULL;
	struct lt_snapshot_opts o = { .deadline_ns = mono_ns() - 1 };
	cr_assert_eq(lt_snapshot_take(getpid(), &o, &s), 0);
	cr_assert_geq(s->n_threads, 1);
	cr_assert(tl_strlist_has(&s->notes, "the snapshot is incomplete: its time budget"));
	lt_snapshot_free(s);
}
