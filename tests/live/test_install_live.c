// SPDX-License-Identifier: MIT
/* locktrace installed like a system tool (issue 30): `make install` into a
 * temporary DESTDIR, the installed binary run from elsewhere (--version, a
 * snapshot of a deadlocked workload: the BPF object is inside it), its man
 * pages read by man -l, `make uninstall` leaving nothing; `make deb` built
 * and inspected with dpkg-deb -I/-c, its binary and pages run from the
 * extracted package.  Nothing is installed on this machine: the package is
 * only built and unpacked into a temporary directory. */
#include <criterion/criterion.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>
#include "lt_test.h"
#include "version.h"

#define OUT_MAX (256 * 1024)

TL_WORKLOAD(64);
static char dest[] = "/tmp/lt-install-XXXXXX";

static void cleanup(void)
{
	tl_close_started(&wl);
	if (strcmp(dest + strlen(dest) - 6, "XXXXXX")) {
		char c[128];
		snprintf(c, sizeof(c), "rm -rf %s", dest);
		if (system(c))
			fprintf(stderr, "install_live: could not remove %s\n", dest);
	}
}

/* CMD's stdout (with 2>&1 in CMD, its stderr too), malloc'd; its exit
 * status into *status. */
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

/* Runs CMD (printf-style), fails the test unless it exits 0; its output. */
static char *run_ok(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
static char *run_ok(const char *fmt, ...)
{
	char cmd[1024];
	va_list ap;
	va_start(ap, fmt);
	vsnprintf(cmd, sizeof(cmd), fmt, ap);
	va_end(ap);
	int st;
	char *out = run(cmd, &st);
	cr_assert_eq(st, 0, "`%s` exited %d:\n%s", cmd, st, out);
	return out;
}

static const char *const pages[] = { "locktrace.8",          "locktrace-record.8",
				     "locktrace-snapshot.8", "locktrace-report.8",
				     "locktrace-dump.8",     "locktrace-convert.8" };
#define NPAGES (sizeof(pages) / sizeof(pages[0]))

/* `make install` into a new temporary DESTDIR with PREFIX=/usr, from the
 * binary already built (-o: make does not rebuild it under the other
 * tests). */
static void install_to_dest(void)
{
	cr_assert(mkdtemp(dest), "mkdtemp");
	cr_assert_eq(access(LT_BIN, X_OK), 0, LT_BIN " not built");
	free(run_ok("make --no-print-directory -s -o " LT_BIN " install DESTDIR=%s PREFIX=/usr 2>&1", dest));
}

static void man_ok(const char *path)
{
	int st;
	char c[512];
	snprintf(c, sizeof(c), "LC_ALL=C MANWIDTH=100 man --warnings -l %s 2>&1 >/dev/null", path);
	char *warn = run(c, &st);
	cr_expect_eq(st, 0, "%s: exit %d", c, st);
	cr_expect_eq(warn[0], 0, "man -l %s warns:\n%s", path, warn);
	free(warn);
	snprintf(c, sizeof(c), "LC_ALL=C MANWIDTH=100 man -l %s", path);
	char *out = run(c, &st);
	cr_expect(strstr(out, "\nOPTIONS\n") && strstr(out, "\nEXAMPLES\n"), "man -l %s:\n%.3000s", path, out);
	free(out);
}

Test(install_live, make_install_runs_from_destdir_and_uninstall_removes_it, .fini = cleanup,
     .timeout = 120)
{
	tl_skip_unless_root("needs root: the snapshot of the workload reads its kernel stacks and registers");
	install_to_dest();
	char path[512];
	struct stat st;
	snprintf(path, sizeof(path), "%s/usr/bin/locktrace", dest);
	cr_assert_eq(stat(path, &st), 0, "%s not installed", path);
	cr_expect_eq(st.st_mode & 07777, 0755, "%s mode %o", path, st.st_mode & 07777);
	for (size_t i = 0; i < NPAGES; i++) {
		snprintf(path, sizeof(path), "%s/usr/share/man/man8/%s", dest, pages[i]);
		cr_expect_eq(access(path, R_OK), 0, "%s not installed", path);
	}
	snprintf(path, sizeof(path), "%s/usr/share/bash-completion/completions/locktrace", dest);
	cr_expect_eq(access(path, R_OK), 0, "%s not installed", path);

	/* run from / : it needs nothing of the build tree */
	char *v = run_ok("cd / && %s/usr/bin/locktrace --version", dest);
	cr_expect(!strncmp(v, "locktrace " LT_VERSION, strlen("locktrace " LT_VERSION)), "--version: %s", v);
	free(v);

	char *argv[] = { WL("deadlock"), NULL };
	tl_start_ready(&wl, argv, truth, &ntruth, 64, 30000);
	unsigned ta = (unsigned)tl_truth_val(truth, ntruth, "thread", "role=A", "tid");
	unsigned tb = (unsigned)tl_truth_val(truth, ntruth, "thread", "role=B", "tid");
	char *snap = run_ok("cd / && %s/usr/bin/locktrace snapshot -p %d 2>&1", dest, (int)wl.pid);
	char a2b[64], b2a[64];
	snprintf(a2b, sizeof(a2b), "%u (deadlock) -> %u (deadlock)", ta, tb);
	snprintf(b2a, sizeof(b2a), "%u (deadlock) -> %u (deadlock)", tb, ta);
	cr_expect(strstr(snap, "DEADLOCK") && (strstr(snap, a2b) || strstr(snap, b2a)),
		  "the installed locktrace's snapshot does not name the cycle %u <-> %u:\n%.4000s", ta, tb, snap);
	free(snap);

	if (system("command -v man >/dev/null 2>&1") == 0)
		for (size_t i = 0; i < NPAGES; i++) {
			snprintf(path, sizeof(path), "%s/usr/share/man/man8/%s", dest, pages[i]);
			man_ok(path);
		}
	else
		fprintf(stderr, "install_live: man(1) is not installed: pages not rendered here "
				"(manpage suite skips likewise; Debian: man-db)\n");

	free(run_ok("make --no-print-directory -s -o " LT_BIN " uninstall DESTDIR=%s PREFIX=/usr 2>&1", dest));
	char *left = run_ok("find %s -not -type d", dest);
	cr_expect_eq(left[0], 0, "make uninstall left:\n%s", left);
	free(left);
}

Test(install_live, deb_declares_its_dependencies_and_holds_binary_pages_completion,
     .fini = cleanup, .timeout = 180)
{
	int st;
	free(run("command -v dpkg-deb && command -v dpkg-shlibdeps", &st));
	if (st)
		cr_skip_test("dpkg-deb or dpkg-shlibdeps missing (Debian: dpkg-dev, scripts/install-deps.sh)");
	cr_assert(mkdtemp(dest), "mkdtemp");
	cr_assert_eq(access(LT_BIN, X_OK), 0, LT_BIN " not built");
	free(run_ok("make --no-print-directory -s -o " LT_BIN " deb 2>&1"));
	char *arch = run_ok("dpkg --print-architecture");
	arch[strcspn(arch, "\n")] = 0;
	char deb[256];
	snprintf(deb, sizeof(deb), "build/locktrace_" LT_VERSION "-1_%s.deb", arch);
	free(arch);

	char *info = run_ok("dpkg-deb -I %s", deb);
	cr_expect(strstr(info, " Package: locktrace\n"), "%s", info);
	cr_expect(strstr(info, " Version: " LT_VERSION "-1\n"), "%s", info);
	cr_expect(strstr(info, " Recommends: libc6-dbg\n"), "%s", info);
	const char *dep = strstr(info, " Depends: ");
	cr_assert(dep, "no Depends: in\n%s", info);
	char deps[512];
	snprintf(deps, sizeof(deps), "%.*s", (int)strcspn(dep + 10, "\n"), dep + 10);
	static const char *const need[] = { "libbpf1 ", "libelf1 ", "libdw1 ", "zlib1g ", "libc6 " };
	for (size_t i = 0; i < sizeof(need) / sizeof(need[0]); i++) {
		char w[32];
		snprintf(w, sizeof(w), ", %s(", need[i]);
		cr_expect(!strncmp(deps, w + 2, strlen(w + 2)) || strstr(deps, w), "Depends: %s lacks %s",
			  deps, need[i]);
	}
	free(info);

	char *list = run_ok("dpkg-deb -c %s", deb);
	char want[160];
	static const char *const files[] = { "./usr/bin/locktrace\n",
					     "./usr/share/bash-completion/completions/locktrace\n",
					     "./usr/share/doc/locktrace/copyright\n",
					     "./usr/share/doc/locktrace/changelog.Debian.gz\n" };
	for (size_t i = 0; i < sizeof(files) / sizeof(files[0]); i++)
		cr_expect(strstr(list, files[i]), "the package lacks %s:\n%s", files[i], list);
	for (size_t i = 0; i < NPAGES; i++) {
		snprintf(want, sizeof(want), "./usr/share/man/man8/%s.gz\n", pages[i]);
		cr_expect(strstr(list, want), "the package lacks %s", want);
	}
	/* root-owned, nothing outside /usr */
	for (const char *l = list; *l; l += strcspn(l, "\n") + (l[strcspn(l, "\n")] == '\n')) {
		size_t n = strcspn(l, "\n");
		const char *p = memmem(l, n, " ./", 3);
		cr_expect(memmem(l, n, " root/root ", 11), "not root/root: %.*s", (int)n, l);
		cr_expect(p && (!strncmp(p, " ./\n", 4) || !strncmp(p, " ./usr/", 7)), "outside /usr: %.*s",
			  (int)n, l);
	}
	free(list);

	/* what it unpacks runs, and its compressed pages read */
	free(run_ok("dpkg-deb -x %s %s", deb, dest));
	char *v = run_ok("cd / && %s/usr/bin/locktrace --version", dest);
	cr_expect(!strncmp(v, "locktrace " LT_VERSION, strlen("locktrace " LT_VERSION)), "--version: %s", v);
	free(v);
	if (system("command -v man >/dev/null 2>&1") == 0)
		for (size_t i = 0; i < NPAGES; i++) {
			char path[512];
			snprintf(path, sizeof(path), "%s/usr/share/man/man8/%s.gz", dest, pages[i]);
			man_ok(path);
		}
}
