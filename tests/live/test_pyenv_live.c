/* The CPython models on real interpreters of every version the README
 * claims (3.8 - 3.13), as root: the pyenv builds in
 * $PYENV_ROOT/versions (default /root/.pyenv/versions), one test per
 * version and check, each skipped, saying why, where that version is not
 * installed (a fresh machine has none: Debian's python3.11 is tested by
 * lock_cpython_live and rt_cpython_live).  These are builds from
 * python.org's sources, not ours: a wrong offset in src/lock_cpython.c or
 * src/rt_cpython_layout.c fails here, where the fixtures built from the
 * same tables cannot.
 *
 * gil_holder_*: tests/workloads/gil_holder.py, whose holder thread keeps
 * the GIL in read(); the snapshot must find one GIL, of that version, held
 * by the tid the workload printed, and claim the waiters asleep on it.
 * py_stacks_*: tests/workloads/py_stacks.py, whose threads print their
 * innermost Python frame as Python sees it; the snapshot must read the
 * same function, file and line, and each thread's threading name. */
#include <criterion/criterion.h>
#include <glob.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "lockmodel.h"
#include "snapshot.h"
#include "lt_test.h"

TL_WORKLOAD(64);
static char python[512];

static void cleanup(void)
{
	tl_close_started(&wl);
}

/* The pyenv build of CPython 3.MINOR (its python3.MINOR), or a skip. */
static void find_python(int minor)
{
	tl_skip_unless_root("needs root: other users' /proc files and memory");
	const char *root = getenv("PYENV_ROOT");
	char pat[512];
	snprintf(pat, sizeof(pat), "%s/versions/3.%d.*/bin/python3.%d", root && *root ? root : "/root/.pyenv",
		 minor, minor);
	glob_t g;
	int r = glob(pat, 0, NULL, &g);
	bool found = false;
	for (size_t i = 0; r == 0 && i < g.gl_pathc && !found; i++)
		if (access(g.gl_pathv[i], X_OK) == 0) {
			snprintf(python, sizeof(python), "%s", g.gl_pathv[i]);
			found = true;
		}
	if (r == 0)
		globfree(&g);
	if (!found)
		cr_skip_test("no CPython 3.%d here (%s): a pyenv build of 3.%d is what this test runs", minor, pat,
			     minor);
}

static void start(const char *script)
{
	char *argv[] = { python, (char *)script, NULL };
	tl_start_ready(&wl, argv, truth, &ntruth, 64, 30000);
}

static struct lt_snapshot *snapshot(void)
{
	struct lt_snapshot *s = NULL;
	int r = lt_snapshot_take(wl.pid, NULL, &s);
	cr_assert_eq(r, 0, "lt_snapshot_take: %s", lt_snapshot_strerror(r));
	for (size_t i = 0; i < s->notes.n; i++)
		fprintf(stderr, "%s: note: %s\n", python, s->notes.v[i]);
	return s;
}

static void gil_holder(int minor)
{
	find_python(minor);
	start("tests/workloads/gil_holder.py");
	pid_t holder = (pid_t)tl_truth_val(truth, ntruth, "thread", "role=holder", "tid");
	tl_wait_in_read(wl.pid, holder, 10000); /* it says `ready` just before */
	usleep(100000);                         /* let every waiter reach take_gil */
	struct lt_snapshot *s = snapshot();
	const struct lt_rtlock *g = NULL;
	size_t ngil = 0;
	for (size_t i = 0; i < s->n_rtlocks; i++)
		if (strcmp(s->rtlocks[i].kind, "GIL") == 0) {
			g = &s->rtlocks[i];
			ngil++;
		}
	cr_assert_eq(ngil, 1, "%s: %zu GILs", python, ngil);
	char want[32];
	snprintf(want, sizeof(want), "CPython 3.%d.", minor);
	cr_assert_str_eq(g->model, "cpython");
	cr_assert(g->version && !strncmp(g->version, want, strlen(want)), "%s: version %s", python,
		  g->version ? g->version : "NULL");
	cr_assert_eq(g->held, 1, "%s: GIL not seen held", python);
	cr_assert_eq(g->holder, holder, "%s: holder %d, truth %d (%s)", python, g->holder, holder,
		     g->holder_how ? g->holder_how : "-");
	size_t gi = (size_t)(g - s->rtlocks);
	int waiters = 0, claimed = 0;
	for (int i = 0; i < ntruth; i++) {
		if (strncmp(truth[i], "thread role=waiter", 18) != 0)
			continue;
		pid_t tid = (pid_t)tl_val(truth[i], "tid", NULL);
		const struct lt_thread *t = lt_snapshot_find(s, tid);
		cr_assert_not_null(t, "%s: waiter %d missing", python, tid);
		waiters++;
		bool in_gil = t->wait == LT_WAIT_FUTEX && t->futex.is_wait && t->sc.state == LT_SC_IN_SYSCALL &&
			      t->futex.uaddr >= g->base && t->futex.uaddr < g->base + g->size;
		if (!in_gil)
			continue; /* between two 5 ms timed waits: running */
		cr_assert_eq(t->futex.rtlock, gi + 1, "%s: waiter %d not claimed", python, tid);
		cr_assert_str_eq(t->futex.lock_kind, "GIL");
		cr_assert_eq(t->futex.owner_kind, LT_OWNER_RUNTIME);
		cr_assert_eq(t->futex.owner, holder);
		claimed++;
	}
	cr_assert_geq(waiters, 19, "%s: %d waiters in the ground truth", python, waiters);
	cr_assert_geq(claimed * 2, waiters, "%s: only %d of %d waiters claimed", python, claimed, waiters);
	lt_snapshot_free(s);
}

/* The value of KEY in a truth line, up to the next space (or the end of
 * the line for `name`, the last key). */
static void val(const char *line, const char *key, char *out, size_t n)
{
	char pat[32];
	snprintf(pat, sizeof(pat), " %s=", key);
	const char *p = strstr(line, pat);
	cr_assert_not_null(p, "no %s in '%s'", key, line);
	p += strlen(pat);
	size_t len = strcmp(key, "name") ? strcspn(p, " ") : strlen(p);
	cr_assert_lt(len, n);
	memcpy(out, p, len);
	out[len] = 0;
}

static void py_stacks(int minor)
{
	find_python(minor);
	start("tests/workloads/py_stacks.py");
	struct lt_snapshot *s = snapshot();
	int checked = 0;
	for (int i = 0; i < ntruth; i++) {
		if (strncmp(truth[i], "thread ", 7))
			continue;
		char role[32], func[64], file[160], name[64];
		val(truth[i], "role", role, sizeof(role));
		val(truth[i], "func", func, sizeof(func));
		val(truth[i], "file", file, sizeof(file));
		val(truth[i], "name", name, sizeof(name));
		int line = (int)tl_val(truth[i], "line", NULL);
		pid_t tid = (pid_t)tl_val(truth[i], "tid", NULL);
		const struct lt_thread *t = lt_snapshot_find(s, tid);
		cr_assert_not_null(t, "%s: %s: thread %d missing", python, role, tid);
		cr_assert_str_eq(t->rt_lang ? t->rt_lang : "-", "python", "%s: %s", python, role);
		cr_assert_str_eq(t->rt_name ? t->rt_name : "-", name, "%s: %s", python, role);
		/* event: threading's Event.wait and Condition.wait run above it */
		size_t k0 = strcmp(role, "event") ? 0 : 2;
		cr_assert_gt(t->n_rt_frames, k0, "%s: %s: no Python frames (%s)", python, role,
			     t->rt_end ? t->rt_end : "-");
		const struct lt_rtframe *r = &t->rt_frames[k0];
		cr_assert_str_eq(r->func, func, "%s: %s", python, role);
		cr_assert_str_eq(r->file, file, "%s: %s", python, role);
		cr_assert_eq(r->line, line, "%s: %s: line %d, Python says %d", python, role, r->line, line);
		if (!strcmp(role, "main")) {
			cr_assert_str_eq(t->rt_frames[t->n_rt_frames - 1].func, "<module>", "%s", python);
		} else if (!strcmp(role, "deep")) {
			cr_assert_geq(t->n_rt_frames, 41, "%s", python);
			for (size_t k = 1; k <= 40; k++) {
				cr_assert_str_eq(t->rt_frames[k].func, "recurse", "%s", python);
				cr_assert_eq(t->rt_frames[k].line, line + 1, "%s: the recursive call", python);
			}
		} else if (!strcmp(role, "gen")) {
			cr_assert_str_eq(t->rt_frames[1].func, "gen_main", "%s", python);
		}
		checked++;
	}
	cr_assert_eq(checked, 8, "%s", python);
	lt_snapshot_free(s);
}

TestSuite(pyenv_live, .fini = cleanup, .timeout = 120);

#define PYENV_TESTS(minor)                                                 \
	Test(pyenv_live, gil_holder_cpython_3_##minor) { gil_holder(minor); } \
	Test(pyenv_live, py_stacks_cpython_3_##minor) { py_stacks(minor); }

PYENV_TESTS(8)
PYENV_TESTS(9)
PYENV_TESTS(10)
PYENV_TESTS(11)
PYENV_TESTS(12)
PYENV_TESTS(13)
