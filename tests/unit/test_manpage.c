// SPDX-License-Identifier: MIT
/* The man pages and the bash completion that `locktrace --man [COMMAND]`
 * and `locktrace --completion bash` write (src/cli/cli_gen.c) against what
 * --help prints: every option and command of --help is in the page and
 * offered by the completion; the pages render with man(1) without a
 * warning; the completion offers pids with their process names. */
#include <criterion/criterion.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include "lt_test.h"

#define OUT_MAX (256 * 1024)

/* Runs CMD through sh, its stdout (and stderr if CMD says 2>&1) into a
 * malloc'd string; the exit status into *status. */
static char *run(const char *cmd, int *status)
{
	FILE *p = popen(cmd, "r");
	cr_assert(p, "popen(%s)", cmd);
	char *buf = malloc(OUT_MAX);
	cr_assert(buf);
	size_t n = fread(buf, 1, OUT_MAX - 1, p);
	buf[n] = 0;
	int st = pclose(p);
	*status = WIFEXITED(st) ? WEXITSTATUS(st) : 128;
	return buf;
}

static int have_man(void)
{
	return system("command -v man >/dev/null 2>&1") == 0;
}

/* The commands: NULL is the bare form (locktrace -p PID ...). */
static const char *const cmds[] = { NULL, "record", "snapshot", "report", "dump", "convert" };

/* Its --help (the bare form's: `locktrace -p 1 --help`). */
static char *help_of(const char *cmd)
{
	char c[256];
	int st;
	snprintf(c, sizeof(c), LT_BIN " %s --help", cmd ? cmd : "-p 1");
	char *h = run(c, &st);
	cr_assert_eq(st, 0, "%s: exit %d", c, st);
	return h;
}

/* The options of a --help text, "-x, --name" or "--name", one per row. */
static size_t help_options(const char *help, char rows[][64], size_t max)
{
	size_t n = 0;
	for (const char *l = help; *l; l += strcspn(l, "\n") + (l[strcspn(l, "\n")] == '\n')) {
		/* "  -x, --name" or "      --name"; wrapped help is indented further */
		size_t ind = strspn(l, " ");
		if ((ind != 2 && ind != 6) || l[ind] != '-')
			continue;
		const char *s = l + ind;
		size_t len = strcspn(s, " \n");
		char shortopt = 0;
		if (len == 3 && s[2] == ',') { /* "-x, --name" */
			shortopt = s[1];
			s += 4;
			len = strcspn(s, " \n");
		}
		cr_assert(n < max);
		if (shortopt)
			snprintf(rows[n++], 64, "-%c, %.*s", shortopt, (int)len, s);
		else
			snprintf(rows[n++], 64, "%.*s", (int)len, s);
	}
	return n;
}

/* "-x, --name" as the page writes it in troff: \fB\-x\fR, \fB\-\-name\fR */
static void troff_of(const char *row, char *out, size_t len)
{
	char name[128];
	size_t k = 0;
	for (const char *c = row[1] != '-' ? row + 6 : row + 2; *c && k + 3 < sizeof(name); c++) {
		if (*c == '-')
			name[k++] = '\\';
		name[k++] = *c;
	}
	name[k] = 0;
	if (row[1] != '-')
		snprintf(out, len, "\\fB\\-%c\\fR, \\fB\\-\\-%s\\fR", row[1], name);
	else
		snprintf(out, len, "\\fB\\-\\-%s\\fR", name);
}

static char *man_source(const char *cmd)
{
	char c[256];
	int st;
	snprintf(c, sizeof(c), LT_BIN " --man %s", cmd ? cmd : "");
	char *m = run(c, &st);
	cr_assert_eq(st, 0, "%s: exit %d", c, st);
	cr_assert(strstr(m, ".TH "), "%s wrote no man page", c);
	return m;
}

/* The page rendered by man -l as plain ASCII, wide enough not to wrap an
 * option's row; its warnings (groff's, man's) into *warn. */
static char *man_render(const char *cmd, char **warn)
{
	char page[] = "/tmp/lt-man-XXXXXX", errf[] = "/tmp/lt-manerr-XXXXXX";
	int fd = mkstemp(page), efd = mkstemp(errf);
	cr_assert(fd >= 0 && efd >= 0);
	char *src = man_source(cmd);
	cr_assert_eq(write(fd, src, strlen(src)), (ssize_t)strlen(src));
	close(fd);
	close(efd);
	free(src);
	char c[512];
	int st;
	snprintf(c, sizeof(c), "LC_ALL=C MANWIDTH=200 man --warnings -l %s 2>%s", page,
		 errf);
	char *out = run(c, &st);
	cr_assert_eq(st, 0, "%s: exit %d", c, st);
	snprintf(c, sizeof(c), "cat %s", errf);
	*warn = run(c, &st);
	unlink(page);
	unlink(errf);
	return out;
}

Test(manpage, every_help_option_is_in_the_page)
{
	for (size_t i = 0; i < sizeof(cmds) / sizeof(cmds[0]); i++) {
		char *help = help_of(cmds[i]), *src = man_source(cmds[i]);
		char rows[64][64], tr[160];
		size_t n = help_options(help, rows, 64);
		cr_assert_geq(n, 2, "%s --help: no options found in\n%s", cmds[i] ? cmds[i] : "locktrace", help);
		for (size_t k = 0; k < n; k++) {
			troff_of(rows[k], tr, sizeof(tr));
			cr_expect(strstr(src, tr), "locktrace%s%s(8) lacks %s (%s)", cmds[i] ? "-" : "",
				  cmds[i] ? cmds[i] : "", rows[k], tr);
		}
		free(help);
		free(src);
	}
}

Test(manpage, every_command_is_in_locktrace_8)
{
	int st;
	char *help = run(LT_BIN " --help", &st), *src = man_source(NULL);
	cr_assert_eq(st, 0);
	const char *c = strstr(help, "Commands:\n");
	cr_assert(c, "no Commands: in locktrace --help:\n%s", help);
	size_t n = 0;
	for (const char *l = c + 10; !strncmp(l, "  ", 2); l += strcspn(l, "\n") + 1) {
		char want[96];
		snprintf(want, sizeof(want), ".TP\n\\fB%.*s\\fR\n", (int)strcspn(l + 2, " "), l + 2);
		cr_expect(strstr(src, want), "locktrace(8) lacks the command %s", want);
		n++;
	}
	cr_assert_eq(n, 5, "commands in locktrace --help: %zu", n);
	free(help);
	free(src);
}

Test(manpage, pages_render_without_warnings_and_have_the_sections)
{
	if (!have_man())
		cr_skip_test("man(1) is not installed (Debian: man-db, scripts/install-deps.sh)");
	static const char *const sections[] = { "NAME", "SYNOPSIS", "DESCRIPTION", "OPTIONS",
						"EXIT STATUS", "PRIVILEGES", "FILES", "EXAMPLES",
						"SEE ALSO" };
	for (size_t i = 0; i < sizeof(cmds) / sizeof(cmds[0]); i++) {
		char *warn, *out = man_render(cmds[i], &warn);
		const char *name = cmds[i] ? cmds[i] : "locktrace";
		cr_expect_eq(warn[0], 0, "man --warnings -l (%s): %s", name, warn);
		for (size_t s = 0; s < sizeof(sections) / sizeof(sections[0]); s++) {
			char want[32];
			snprintf(want, sizeof(want), "\n%s\n", sections[s]);
			cr_expect(strstr(out, want), "%s(8) has no section %s:\n%s", name, sections[s], out);
		}
		/* every option of --help, as man shows it */
		char *help = help_of(cmds[i]);
		char rows[64][64];
		size_t n = help_options(help, rows, 64);
		for (size_t k = 0; k < n; k++)
			cr_expect(strstr(out, rows[k]), "%s(8) as rendered lacks %s", name, rows[k]);
		free(help);
		free(out);
		free(warn);
	}
}

/* The completion script, as make install writes it, in a temporary file. */
static char script[] = "/tmp/lt-completion-XXXXXX";

static void write_script(void)
{
	int fd = mkstemp(script);
	cr_assert(fd >= 0);
	close(fd);
	char c[256];
	snprintf(c, sizeof(c), LT_BIN " --completion bash > %s", script);
	cr_assert_eq(system(c), 0, "%s failed", c);
}

static void remove_script(void)
{
	if (strcmp(script + strlen(script) - 6, "XXXXXX"))
		unlink(script);
}

/* What _locktrace offers for the words (the last is being completed). */
static char *complete(const char *words)
{
	char c[1024];
	int st;
	snprintf(c, sizeof(c),
		 "bash -c 'source %s || exit 9; COMP_WORDS=(%s); "
		 "COMP_CWORD=$((${#COMP_WORDS[@]} - 1)); _locktrace; printf \"%%s\\n\" "
		 "\"${COMPREPLY[@]}\"' 2>&1",
		 script, words);
	char *out = run(c, &st);
	cr_assert_eq(st, 0, "%s: exit %d: %s", c, st, out);
	return out;
}

static int has_line(const char *text, const char *line)
{
	size_t n = strlen(line);
	for (const char *p = text; (p = strstr(p, line)); p++)
		if ((p == text || p[-1] == '\n') && (p[n] == '\n' || !p[n]))
			return 1;
	return 0;
}

Test(manpage, completion_offers_every_option_and_command, .init = write_script, .fini = remove_script)
{
	for (size_t i = 0; i < sizeof(cmds) / sizeof(cmds[0]); i++) {
		char words[64], rows[64][64];
		snprintf(words, sizeof(words), "locktrace %s -", cmds[i] ? cmds[i] : "");
		char *help = help_of(cmds[i]), *got = complete(words);
		size_t n = help_options(help, rows, 64);
		for (size_t k = 0; k < n; k++) {
			const char *lng = rows[k][1] == '-' ? rows[k] : rows[k] + 4;
			cr_expect(has_line(got, lng), "`%s<TAB>` does not offer %s:\n%s", words, lng, got);
			if (rows[k][1] != '-') {
				char s[3] = { '-', rows[k][1], 0 };
				cr_expect(has_line(got, s), "`%s<TAB>` does not offer %s", words, s);
			}
		}
		free(help);
		free(got);
	}
	char *got = complete("locktrace \"\"");
	static const char *const names[] = { "record", "snapshot", "report", "dump", "convert" };
	for (size_t i = 0; i < 5; i++)
		cr_expect(has_line(got, names[i]), "`locktrace <TAB>` does not offer %s:\n%s", names[i], got);
	free(got);
	got = complete("locktrace record --calls \"\"");
	cr_expect(has_line(got, "all") && has_line(got, "blocking"), "--calls: %s", got);
	free(got);
	/* --format takes other words in report (--profile) than in convert */
	got = complete("locktrace report t.ltrace --format \"\"");
	cr_expect(has_line(got, "text") && has_line(got, "collapsed") && has_line(got, "pprof") &&
		  !has_line(got, "perfetto"), "report --format: %s", got);
	free(got);
	got = complete("locktrace convert t.ltrace --format \"\"");
	cr_expect(has_line(got, "perfetto") && has_line(got, "json") && !has_line(got, "pprof"),
		  "convert --format: %s", got);
	free(got);
}

Test(manpage, completion_offers_pids_with_names, .init = write_script, .fini = remove_script)
{
	char comm[64] = "", words[128], want[128];
	FILE *f = fopen("/proc/self/comm", "r");
	cr_assert(f && fgets(comm, sizeof(comm), f));
	fclose(f);
	comm[strcspn(comm, "\n")] = 0;
	pid_t me = getpid();
	/* after a comma, as in -p A,B */
	snprintf(words, sizeof(words), "locktrace snapshot -p 1,%d", (int)me);
	char *got = complete(words);
	/* our pid alone is inserted; with others that start with its digits,
	 * each is shown with its name */
	snprintf(want, sizeof(want), "1,%d (%s)", (int)me, comm);
	char alone[64];
	snprintf(alone, sizeof(alone), "1,%d", (int)me);
	cr_expect(has_line(got, alone) || has_line(got, want), "-p 1,%d<TAB> gave:\n%s", (int)me, got);
	free(got);
	/* every pid of a prefix, each with its name */
	snprintf(words, sizeof(words), "locktrace -p %.*s", 1, alone + 2);
	got = complete(words);
	snprintf(want, sizeof(want), "%d (%s)", (int)me, comm);
	cr_expect(has_line(got, want), "-p %c<TAB> does not show \"%s\":\n%.2000s", alone[2], want, got);
	free(got);
}
