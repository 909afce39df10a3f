// SPDX-License-Identifier: MIT
/* Output paths as root in a directory everyone writes to (issue 15): what an
 * unprivileged user (nobody) leaves at an output's name -- a symlink to a
 * victim, a dangling symlink, a file of theirs with mode 0666 -- is never
 * written through or into; --force replaces it with a new private file.
 * Needs root (to act as nobody), no BPF. */
#include <criterion/criterion.h>
#include <errno.h>
#include <fcntl.h>
#include <grp.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <signal.h>
#include <time.h>
#include <unistd.h>
#include "convert.h"
#include "outfile.h"
#include "locktrace/tracefile.h"
#include "lt_test.h"

#define NOBODY 65534

static char dir[64];

/* A directory like /tmp: everyone may write, the sticky bit set. */
static void make_dir(void)
{
	snprintf(dir, sizeof(dir), "/tmp/lt-sec-XXXXXX");
	cr_assert(mkdtemp(dir));
	cr_assert_eq(chmod(dir, 01777), 0);
}

static void rm_dir(void)
{
	char cmd[128];
	snprintf(cmd, sizeof(cmd), "rm -rf '%s'", dir);
	if (dir[0] && system(cmd))
		fprintf(stderr, "cannot remove %s\n", dir);
}

TestSuite(sec_paths, .init = make_dir, .fini = rm_dir);

#define NEED_ROOT() tl_skip_unless_root("needs root (acts as the user nobody): run as root")

static void pathf(char *buf, size_t n, const char *name)
{
	snprintf(buf, n, "%s/%s", dir, name);
}

/* As nobody, in a child: a symlink at name to target, or (target NULL) a
 * file with mode 0666 holding "theirs". */
static void as_nobody(const char *name, const char *target)
{
	char p[128];
	pathf(p, sizeof(p), name);
	pid_t c = fork();
	cr_assert_geq(c, 0);
	if (c == 0) {
		if (setgroups(0, NULL) || setgid(NOBODY) || setuid(NOBODY))
			_exit(1);
		umask(0);
		if (target)
			_exit(symlink(target, p) ? 2 : 0);
		int fd = open(p, O_WRONLY | O_CREAT | O_EXCL, 0666);
		_exit(fd < 0 || write(fd, "theirs", 6) != 6 ? 3 : 0);
	}
	int st;
	cr_assert_eq(waitpid(c, &st, 0), c);
	cr_assert(WIFEXITED(st) && WEXITSTATUS(st) == 0, "nobody could not create %s", p);
	struct stat sb;
	cr_assert_eq(lstat(p, &sb), 0);
	cr_assert_eq(sb.st_uid, NOBODY);
}

/* A root-owned file only root may change, mode 0644: the victim. */
static void make_victim(char *p, size_t n)
{
	pathf(p, n, "victim");
	FILE *f = fopen(p, "w");
	cr_assert(f);
	fputs("precious", f);
	fclose(f);
	cr_assert_eq(chmod(p, 0644), 0);
}

static void assert_victim_intact(const char *p)
{
	char buf[32] = "";
	struct stat sb;
	FILE *f = fopen(p, "r");
	cr_assert(f, "victim %s gone", p);
	size_t n = fread(buf, 1, sizeof(buf) - 1, f);
	fclose(f);
	buf[n] = 0;
	cr_assert_str_eq(buf, "precious", "the victim was written through a symlink");
	cr_assert_eq(stat(p, &sb), 0);
	cr_assert_eq(sb.st_mode & 0777, 0644);
}

/* A new regular file of root's with mode 0600. */
static void assert_ours(const char *p)
{
	struct stat sb;
	cr_assert_eq(lstat(p, &sb), 0, "%s: %s", p, strerror(errno));
	cr_assert(S_ISREG(sb.st_mode), "%s is not a regular file", p);
	cr_assert_eq(sb.st_uid, 0, "%s belongs to %u", p, sb.st_uid);
	cr_assert_eq(sb.st_mode & 0777, 0600, "%s has mode %o", p, sb.st_mode & 0777);
}

static void write_trace(const char *p, int force)
{
	struct lt_writer *w;
	struct lt_header h = { .pid = 1, .comm = "t" };
	cr_assert_eq(lt_writer_open(&w, p, force), 0);
	cr_assert_eq(lt_writer_header(w, &h), 0);
	cr_assert_eq(lt_writer_close(w), 0);
}

Test(sec_paths, force_replaces_a_symlink_instead_of_following_it)
{
	NEED_ROOT();
	char victim[128], out[128];
	make_victim(victim, sizeof(victim));
	as_nobody("t.ltrace", victim);
	pathf(out, sizeof(out), "t.ltrace");
	write_trace(out, 1);
	assert_victim_intact(victim);
	assert_ours(out);
}

Test(sec_paths, symlink_refused_without_force)
{
	NEED_ROOT();
	char victim[128], out[128];
	struct lt_writer *w;
	make_victim(victim, sizeof(victim));
	as_nobody("t.ltrace", victim);
	pathf(out, sizeof(out), "t.ltrace");
	cr_assert_eq(lt_writer_open(&w, out, 0), -EEXIST);
	assert_victim_intact(victim);
}

Test(sec_paths, dangling_symlink_never_creates_its_target)
{
	NEED_ROOT();
	char target[128], out[128];
	struct lt_writer *w;
	pathf(target, sizeof(target), "made-by-root");
	as_nobody("t.ltrace", target);
	pathf(out, sizeof(out), "t.ltrace");
	cr_assert_eq(lt_writer_open(&w, out, 0), -EEXIST);
	cr_assert_neq(access(target, F_OK), 0, "root created the symlink's target");
	write_trace(out, 1);
	cr_assert_neq(access(target, F_OK), 0, "--force created the symlink's target");
	assert_ours(out);
}

Test(sec_paths, foreign_writable_file_replaced_not_written)
{
	NEED_ROOT();
	char out[128], buf[16] = "";
	struct stat before;
	as_nobody("t.ltrace", NULL);
	pathf(out, sizeof(out), "t.ltrace");
	/* what nobody could keep open: their inode */
	int theirs = open(out, O_RDONLY);
	cr_assert_geq(theirs, 0);
	cr_assert_eq(fstat(theirs, &before), 0);
	write_trace(out, 1);
	assert_ours(out);
	struct stat now;
	cr_assert_eq(stat(out, &now), 0);
	cr_assert_neq(now.st_ino, before.st_ino, "the trace went into nobody's file");
	cr_assert_eq(pread(theirs, buf, sizeof(buf) - 1, 0), 6);
	cr_assert_str_eq(buf, "theirs");
	close(theirs);
}

Test(sec_paths, force_never_replaces_a_directory_or_device)
{
	NEED_ROOT();
	char p[128];
	pathf(p, sizeof(p), "fifo");
	cr_assert_eq(mkfifo(p, 0666), 0);
	cr_assert_eq(lt_out_create(p, 1), -EINVAL);
	pathf(p, sizeof(p), "sub");
	cr_assert_eq(mkdir(p, 0755), 0);
	cr_assert_eq(lt_out_create(p, 1), -EINVAL);
	cr_assert_eq(lt_out_check(p, 1), -EINVAL);
	cr_assert(strstr(lt_out_strerror(-EINVAL), "not a regular file"));
}

Test(sec_paths, perfetto_output_never_through_a_symlink)
{
	NEED_ROOT();
	char victim[128], in[128], out[128];
	make_victim(victim, sizeof(victim));
	pathf(in, sizeof(in), "t.ltrace");
	write_trace(in, 0);
	as_nobody("t.perfetto-trace", victim);
	pathf(out, sizeof(out), "t.perfetto-trace");
	cr_assert_eq(lt_convert_file(in, out, LT_FORMAT_PERFETTO, 0, 1), 1, "a symlink was taken as free");
	assert_victim_intact(victim);
	cr_assert_eq(lt_convert_file(in, out, LT_FORMAT_PERFETTO, 1, 1), 0, "--force did not replace it");
	assert_victim_intact(victim);
	assert_ours(out);
	/* nobody's 0666 file at the name: replaced as well, not written into */
	cr_assert_eq(unlink(out), 0);
	as_nobody("t.perfetto-trace", NULL);
	cr_assert_eq(lt_convert_file(in, out, LT_FORMAT_PERFETTO, 1, 1), 0);
	assert_ours(out);
}

/* ------------------------------------------------------------ live */

/* The recorder itself, as root: refusals before attaching and the flight
 * recorder's dump names.  Suite sec_live needs BPF for the last test. */
TestSuite(sec_live, .init = make_dir, .fini = rm_dir);

/* Runs locktrace with argv (after the binary), collects its stderr into
 * err and returns its exit code (-1: killed after timeout_ms). */
static int run_lt(char *const args[], char *err, size_t errlen, int timeout_ms)
{
	char *argv[32] = { LT_BIN };
	char lines[32][256];
	int n = 0;
	struct tl_proc p;

	for (int i = 0; args[i] && i < 30; i++)
		argv[i + 1] = args[i];
	cr_assert_eq(tl_spawn(&p, argv), 0);
	close(p.in_fd);
	p.in_fd = -1;
	tl_wait_for(&p, 1, "\x01never", lines, &n, 32, timeout_ms);
	err[0] = 0;
	for (int i = 0; i < n; i++)
		snprintf(err + strlen(err), errlen - strlen(err), "%s\n", lines[i]);
	int st = tl_wait(&p, timeout_ms);
	tl_close(&p);
	return st < 0 ? -1 : WIFEXITED(st) ? WEXITSTATUS(st) : 128;
}

Test(sec_live, numbers_refused_with_a_message)
{
	static const char *const cases[][2] = {
		{ "-d", "1e300" }, { "-d", "0x10" }, { "--stall", "1e300" }, { "-d", "inf" },
		{ "-d", "31536001" }, { "-b", "0x100000" },
	};
	char err[4096];
	for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		char *args[] = { "-p", "1", (char *)cases[i][0], (char *)cases[i][1], NULL };
		cr_expect_eq(run_lt(args, err, sizeof(err), 5000), 2, "%s %s: %s", cases[i][0],
			     cases[i][1], err);
		cr_expect(strstr(err, cases[i][1]) && strstr(err, "Error: invalid"), "%s", err);
	}
	char *args[] = { "-p", "1", "-d", "0x10", NULL };
	run_lt(args, err, sizeof(err), 5000);
	cr_expect(strstr(err, "decimal") && strstr(err, "a year"), "says what it wants: %s", err);
}

Test(sec_live, tracing_itself_refused)
{
	char err[8192], out[128];
	pathf(out, sizeof(out), "self.ltrace");
	/* the shell's pid is the pid locktrace runs under after exec */
	char *argv[] = { "/bin/sh", "-c", "exec " LT_BIN " -p $$ -d 1 -o \"$0\"", out, NULL };
	struct tl_proc p;
	char lines[16][256];
	int n = 0;
	cr_assert_eq(tl_spawn(&p, argv), 0);
	tl_wait_for(&p, 1, "\x01never", lines, &n, 16, 10000);
	int st = tl_wait(&p, 10000);
	tl_close(&p);
	err[0] = 0;
	for (int i = 0; i < n; i++)
		snprintf(err + strlen(err), sizeof(err) - strlen(err), "%s\n", lines[i]);
	cr_assert(WIFEXITED(st) && WEXITSTATUS(st) == 1, "status %d: %s", st, err);
	cr_assert(strstr(err, "this locktrace process itself"), "%s", err);
	cr_assert_neq(access(out, F_OK), 0, "%s was created", out);
}

Test(sec_live, existing_perfetto_file_refused_before_attach, .timeout = 60)
{
	NEED_ROOT();
	char err[4096], out[128], pf[128];
	char *wargv[] = { "/bin/sleep", "30", NULL };
	struct tl_proc wl;
	char pid[16];

	cr_assert_eq(tl_spawn(&wl, wargv), 0);
	snprintf(pid, sizeof(pid), "%d", wl.pid);
	pathf(out, sizeof(out), "t.ltrace");
	pathf(pf, sizeof(pf), "t.perfetto-trace");
	as_nobody("t.perfetto-trace", NULL);
	char *args[] = { "-p", pid, "-d", "20", "-o", out, "--no-status", NULL };
	struct timespec ts0, ts1;
	clock_gettime(CLOCK_MONOTONIC, &ts0);
	int rc = run_lt(args, err, sizeof(err), 30000);
	clock_gettime(CLOCK_MONOTONIC, &ts1);
	double secs = (double)(ts1.tv_sec - ts0.tv_sec) + (double)(ts1.tv_nsec - ts0.tv_nsec) / 1e9;
	tl_kill(&wl);
	tl_close(&wl);
	cr_assert_eq(rc, 1, "%s", err);
	cr_assert(strstr(err, "t.perfetto-trace already exists"), "%s", err);
	cr_assert(!strstr(err, "recording process"), "it attached first: %s", err);
	/* recording with -d 20 takes 20 s however idle the machine: less
	 * means it refused before recording, whatever the load */
	cr_assert_lt(secs, 20.0, "took %.1f s, the -d 20 it was given: it recorded before refusing", secs);
	cr_assert_neq(access(out, F_OK), 0, "the raw trace was created");
}

/* Flight dumps of `locktrace -p --ring` go to NAME.ltrace, NAME-2.ltrace,
 * ...: a name nobody took (a symlink to a victim, or a 0666 file at the
 * Perfetto name of a dump) is skipped, never written through or into. */
Test(sec_live, flight_dump_names_skip_what_others_planted, .timeout = 120)
{
	NEED_ROOT();
	char victim[128], out[128], p[128], pid[16], lines[64][256];
	char *wargv[] = { WL("idle"), "-t", "2", "-d", "60", "--no-wait", NULL };
	struct tl_proc wl, rec;
	int n = 0;

	make_victim(victim, sizeof(victim));
	as_nobody("t-2.ltrace", victim);
	as_nobody("t-3.perfetto-trace", NULL);
	pathf(out, sizeof(out), "t.ltrace");
	cr_assert_eq(tl_spawn(&wl, wargv), 0);
	cr_assert(tl_wait_for(&wl, 0, "ready", NULL, &n, 0, 10000));
	snprintf(pid, sizeof(pid), "%d", wl.pid);
	char *argv[] = { LT_BIN, "-p", pid, "-o", out, "--ring", "4M", "--keep-going", "--no-status", NULL };
	cr_assert_eq(tl_spawn(&rec, argv), 0);
	cr_assert(tl_wait_for(&rec, 1, "locktrace (pid ", lines, &n, 64, 20000));
	usleep(1000000); /* SIGUSR1 is handled from just after that line */
	for (int d = 0; d < 2; d++) {
		kill(rec.pid, SIGUSR1);
		cr_assert(tl_wait_for(&rec, 1, "locktrace: wrote ", lines, &n, 64, 30000),
			  "dump %d not written", d + 1);
	}
	kill(rec.pid, SIGINT);
	tl_wait(&rec, 30000);
	tl_close(&rec);
	tl_kill(&wl);
	tl_close(&wl);
	assert_victim_intact(victim);
	assert_ours(out);
	pathf(p, sizeof(p), "t-4.ltrace");
	assert_ours(p);
	pathf(p, sizeof(p), "t-4.perfetto-trace");
	assert_ours(p);
	struct stat sb;
	pathf(p, sizeof(p), "t-3.perfetto-trace");
	cr_assert_eq(stat(p, &sb), 0);
	cr_assert_eq(sb.st_uid, NOBODY, "nobody's file was replaced");
	cr_assert_eq(sb.st_size, 6, "nobody's file was written into");
	pathf(p, sizeof(p), "t-3.ltrace");
	cr_assert_neq(access(p, F_OK), 0, "a dump was named after a taken Perfetto file");
}

/* A 5,000-thread process: its snapshot (about 17 MB of JSON) is larger than
 * a chunk.  A recording and a flight dump both hold it whole and end
 * cleanly; before, the recording stopped right after attach with "File too
 * large" and the file read as a clean, empty trace. */
Test(sec_live, five_thousand_threads_recorded_and_dumped, .timeout = 300)
{
	NEED_ROOT();
	char *wargv[] = { WL("many_threads"), "-t", "5000", NULL };
	char lines[64][256], out[128], dump[128], pid[16];
	struct tl_proc wl, rec;
	struct tl_trace t;
	int n = 0;

	pathf(out, sizeof(out), "many.ltrace");
	pathf(dump, sizeof(dump), "dump.ltrace");
	cr_assert_eq(tl_spawn(&wl, wargv), 0);
	cr_assert(tl_wait_for(&wl, 0, "ready", NULL, &n, 0, 120000), "workload not ready");
	snprintf(pid, sizeof(pid), "%d", wl.pid);

	char *args[] = { "record", "-p", pid, "-d", "2", "-o", out, "--no-status", "-q", NULL };
	char err[8192];
	cr_assert_eq(run_lt(args, err, sizeof(err), 120000), 0, "%s", err);
	cr_assert_eq(tl_load(&t, out), 0);
	cr_assert(t.clean_end, "%s", t.stop);
	cr_assert_geq(t.hdr.nthreads, 5001);
	cr_assert(t.snapshot_json, "no snapshot");
	cr_assert_gt(t.snapshot_len, LT_CHUNK_MAX, "a snapshot of %zu bytes", t.snapshot_len);
	cr_assert(strstr(t.snapshot_json, "\"threads\""));
	tl_free(&t);

	char *argv[] = { LT_BIN, "record", "-p", pid, "-o", dump, "--ring", "4M", "--no-status", NULL };
	n = 0;
	cr_assert_eq(tl_spawn(&rec, argv), 0);
	cr_assert(tl_wait_for(&rec, 1, "locktrace (pid ", lines, &n, 64, 60000));
	usleep(1000000);
	kill(rec.pid, SIGUSR1);
	cr_assert(tl_wait_for(&rec, 1, "locktrace: wrote ", lines, &n, 64, 120000),
		  "no dump: %s", n ? lines[n - 1] : "");
	tl_wait(&rec, 60000);
	tl_close(&rec);
	cr_assert_eq(tl_load(&t, dump), 0);
	cr_assert(t.clean_end, "%s", t.stop);
	cr_assert(t.snapshot_json && t.snapshot_len > LT_CHUNK_MAX, "the dump has no whole snapshot");
	tl_free(&t);
	tl_go(&wl);
	tl_wait(&wl, 60000);
	tl_close(&wl);
}

/* A process whose name is a terminal escape (set a window title, ring the
 * bell) and a byte that is not UTF-8: the recorder's own messages and the
 * default file name show it escaped, never the raw bytes. */
Test(sec_live, hostile_process_name_escaped_in_messages, .timeout = 60)
{
	NEED_ROOT();
	char *wargv[] = { "/usr/bin/python3", "-c",
			  "import ctypes, sys, time\n"
			  "ctypes.CDLL(None).prctl(15, b'\\x1b]2;pwned\\x07\\xff', 0, 0, 0)\n"
			  "print('ready', flush=True)\n"
			  "time.sleep(30)\n",
			  NULL };
	char err[8192], out[128], pid[16];
	struct tl_proc wl;
	int n = 0;

	if (access(wargv[0], X_OK))
		cr_skip_test("needs /usr/bin/python3");
	cr_assert_eq(tl_spawn(&wl, wargv), 0);
	cr_assert(tl_wait_for(&wl, 0, "ready", NULL, &n, 0, 20000));
	snprintf(pid, sizeof(pid), "%d", wl.pid);
	pathf(out, sizeof(out), "name.ltrace");
	char *args[] = { "record", "-p", pid, "-d", "0.3", "-o", out, "--no-status", NULL };
	int rc = run_lt(args, err, sizeof(err), 30000);
	tl_kill(&wl);
	tl_close(&wl);
	cr_assert_eq(rc, 0, "%s", err);
	for (const unsigned char *p = (const unsigned char *)err; *p; p++)
		cr_assert(*p == '\n' || (*p >= 0x20 && *p != 0x7f && *p != 0xff),
			  "raw byte 0x%02x in the recorder's messages: %s", *p, err);
	cr_assert(strstr(err, "_x1b]2;pwned_x07"), "the name is not shown escaped: %s", err);
}

/* --pid-file follows the rules of every output: an existing file (ours,
 * nobody's 0666 file, a symlink to a victim) is refused without --force and
 * left as it was, not removed at exit; with --force it is replaced, never
 * written into (its owner could change the pid a root `kill -USR1 $(cat
 * FILE)` signals), and the file locktrace created is removed at exit. */
Test(sec_live, pid_file_refused_without_force_replaced_with, .timeout = 90)
{
	NEED_ROOT();
	char victim[128], pf[128], pf2[128], own[128], out[128], pid[16], err[8192], buf[16] = "";
	char *wargv[] = { "/bin/sleep", "30", NULL };
	struct tl_proc wl;
	struct stat sb;

	make_victim(victim, sizeof(victim));
	as_nobody("pid", NULL);
	as_nobody("pid2", victim);
	pathf(pf, sizeof(pf), "pid");
	pathf(pf2, sizeof(pf2), "pid2");
	pathf(own, sizeof(own), "ownpid");
	FILE *f = fopen(own, "w");
	cr_assert(f);
	fputs("important data", f);
	fclose(f);
	int theirs = open(pf, O_RDONLY);
	cr_assert_geq(theirs, 0);
	cr_assert_eq(tl_spawn(&wl, wargv), 0);
	snprintf(pid, sizeof(pid), "%d", wl.pid);
	const char *pfs[] = { pf, pf2, own };
	for (int k = 0; k < 3; k++) {
		snprintf(out, sizeof(out), "%s/n%d.ltrace", dir, k);
		char *args[] = { "record", "-p", pid, "-d", "0.3", "-o", out, "--no-status", "--pid-file",
				 (char *)pfs[k], NULL };
		cr_assert_neq(run_lt(args, err, sizeof(err), 30000), 0, "%s was not refused", pfs[k]);
		cr_assert(strstr(err, "already exists") && strstr(err, "--force"), "%s", err);
		cr_assert_eq(lstat(pfs[k], &sb), 0, "%s was removed without --force", pfs[k]);
	}
	f = fopen(own, "r");
	cr_assert(f);
	char ob[32] = "";
	cr_assert(fgets(ob, sizeof(ob), f));
	fclose(f);
	cr_assert_str_eq(ob, "important data");
	cr_assert_eq(pread(theirs, buf, sizeof(buf) - 1, 0), 6);
	cr_assert_str_eq(buf, "theirs");
	for (int k = 0; k < 2; k++) {
		pathf(out, sizeof(out), k ? "p2.ltrace" : "p1.ltrace");
		char *args[] = { "record", "-p", pid, "-d", "0.3", "-o", out, "--no-status", "--force",
				 "--pid-file", k ? pf2 : pf, NULL };
		cr_assert_eq(run_lt(args, err, sizeof(err), 30000), 0, "%s", err);
		cr_assert_neq(lstat(k ? pf2 : pf, &sb), 0, "the pid file locktrace created was left");
	}
	tl_kill(&wl);
	tl_close(&wl);
	cr_assert_eq(pread(theirs, buf, sizeof(buf) - 1, 0), 6, "nobody's file was truncated");
	cr_assert_str_eq(buf, "theirs");
	close(theirs);
	assert_victim_intact(victim);
}
