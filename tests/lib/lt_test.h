/* Helpers for the integration tests: start workloads and locktrace, read the
 * workloads' ground truth, load a whole trace for assertions.  No tests here
 * (tests/lib/util.c). */
#ifndef LT_TEST_H
#define LT_TEST_H

#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <sys/types.h>
#include "locktrace/tracefile.h"

#define LT_BIN "build/locktrace"
#define WL(name) "build/workloads/" name

struct tl_proc {
	pid_t pid;
	int in_fd;  /* its stdin (write end), -1 if not piped */
	int out_fd; /* its stdout (read end), -1 if not piped */
	int err_fd; /* its stderr (read end), -1 if not piped */
	char buf[2][8192];
	size_t len[2];
};

/* What PRINT(stream, ARGS...) writes, as a malloc'd string; its length
 * into *LEN (a size_t *, or NULL).  Fails the test if it cannot.  (One at
 * a time: tl_printed_begin's stream writes into util.c's storage.) */
#define TL_PRINTED(len, print, ...)                                                \
	({                                                                          \
		FILE *tl_f_ = tl_printed_begin();                                   \
		print(tl_f_, __VA_ARGS__);                                          \
		tl_printed_end(tl_f_, (len));                                       \
	})
FILE *tl_printed_begin(void);
char *tl_printed_end(FILE *f, size_t *len);

/* The statics of a suite that runs one workload at a time: the process
 * (wl) and the ground-truth lines it printed (truth, at most MAX_LINES;
 * ntruth of them). */
#define TL_WORKLOAD(max_lines)             \
	static struct tl_proc wl;          \
	static char truth[max_lines][256]; \
	static int ntruth

/* Starts argv[0] with stdin/stdout/stderr on pipes.  0 or -1. */
int tl_spawn(struct tl_proc *p, char *const argv[]);
/* Reads one line (no newline) from its stdout (which=0) or stderr (1),
 * waiting at most timeout_ms.  1 line, 0 EOF, -1 timeout/error. */
int tl_readline(struct tl_proc *p, int which, char *line, size_t n, int timeout_ms);
/* Reads stdout/stderr lines until one starts with prefix; keeps every line
 * read into lines (if not NULL).  1 found, 0 not. */
int tl_wait_for(struct tl_proc *p, int which, const char *prefix, char lines[][256], int *nlines,
		int max, int timeout_ms);
/* Writes the start gate line and closes stdin. */
void tl_go(struct tl_proc *p);
/* Waits for exit up to timeout_ms; returns wait status, or -1 (then kills). */
int tl_wait(struct tl_proc *p, int timeout_ms);
void tl_kill(struct tl_proc *p);
void tl_close(struct tl_proc *p);
/* tl_close if P was started (a .fini may run before the test started it:
 * a zeroed struct tl_proc holds no descriptors of its own). */
void tl_close_started(struct tl_proc *p);

struct lt_stack;
struct lt_stacktab;
/* The index of the first frame of S whose function is FUNC, or -1. */
int tl_frame_named(const struct lt_stack *s, const char *func);
/* How long after their waits began the waiters' stacks of ST were read at
 * the latest (ns; 0 if none says). */
uint64_t tl_latest_waiter_copy(const struct lt_stacktab *st);

/* Kills (SIGKILL) every descendant of PID, deepest first; not PID itself,
 * which it leaves stopped (SIGSTOP: it starts no new child meanwhile) for
 * its caller to kill. */
void tl_kill_tree(pid_t pid);
/* CLOCK_MONOTONIC in seconds. */
double tl_now_s(void);
/* The /proc/locks line (held, or the "->" entry when BLOCKED) of process
 * PID on the inode of PATH into OUT, waited for up to 10 s; fails the test
 * if none. */
void tl_locks_line(pid_t pid, const char *path, bool blocked, char *out, size_t len);

/* Ground truth lines "type k=v k=v ...". */
const char *tl_find(char lines[][256], int n, const char *type, const char *match);
/* The value of key in a line (decimal or 0x hex); 0 if absent (sets *ok=0). */
uint64_t tl_val(const char *line, const char *key, int *ok);

struct tl_trace {
	struct lt_header hdr;
	struct lt_event *ev;
	size_t n;
	struct lt_stats stats;
	int have_stats, clean_end; /* clean_end: an END and no damage read past */
	char stop[256];            /* why not: the reader's stop reason, damage */
	char *snapshot_json; /* the last SNAPSHOT section, NUL-terminated, or NULL */
	size_t snapshot_len;
};
/* A synthetic trace header for the report tests: process PID ("app"),
 * attached at BASE (boottime = monotonic), its N threads TIDS (named
 * "t<tid>", not in a system call) in TI, which holds NTI entries. */
void tl_header(struct lt_header *h, struct lt_thread_info *ti, size_t nti, uint32_t pid, uint64_t base,
	       int n, const uint32_t *tids);
/* Loads every event of path.  0 or -1 (message on stderr). */
int tl_load(struct tl_trace *t, const char *path);
void tl_free(struct tl_trace *t);
/* tl_load that fails the test if PATH does not load; tl_load_clean also
 * if the trace was not closed cleanly. */
void tl_load_ok(struct tl_trace *t, const char *path);
void tl_load_clean(struct tl_trace *t, const char *path);
uint64_t tl_total_lost(const struct tl_trace *t);
/* How long the wait that began with event I lasted (ns: to its thread's
 * next return), 0 unknown. */
uint64_t tl_wait_len(const struct tl_trace *t, size_t i);

/* Starts locktrace record -p pid -o path (extra args appended) and waits
 * until it reports that it is recording.  0 or -1. */
int tl_start_recorder(struct tl_proc *rec, pid_t pid, const char *path, char *const extra[]);
/* Waits up to TIMEOUT_MS for the recorder REC to exit with status 0 (fails
 * the test if it does not), then closes it and the workload WL. */
void tl_recorder_done(struct tl_proc *rec, struct tl_proc *wl, int timeout_ms);
/* A fresh temporary path for a trace. */
void tl_tmp_path(char *buf, size_t n, const char *tag);
/* Records PID for 2 s with --perfetto: the raw trace into TRACE (a fresh
 * path, as tl_tmp_path), the Perfetto file beside it into PFTRACE (both
 * TL_PATH_MAX bytes).  Fails the test if the recorder fails. */
#define TL_PATH_MAX 300
/* A fresh trace path (as tl_tmp_path) into TRACE and the Perfetto file
 * beside it (NAME.perfetto-trace, removed if there) into PFTRACE. */
void tl_tmp_paths(char *trace, char *pftrace, const char *tag);
void tl_record_perfetto(pid_t pid, const char *tag, char *trace, char *pftrace);

/* A live suite that starts a workload and attaches the recorder to it
 * (tl_record_until_done): the workload (as TL_WORKLOAD), the recorder
 * REC, the trace's path RAW, and tl_recording_fini for TestSuite's .fini
 * (tl_close_recording). */
#define TL_RECORDING(max_lines)             \
	TL_WORKLOAD(max_lines);             \
	static struct tl_proc rec;          \
	static char raw[TL_PATH_MAX];       \
	static void tl_recording_fini(void) \
	{                                   \
		tl_close_recording(&rec, &wl, raw); \
	}
/* Ends the recorder REC and the workload WL if started, removes the trace
 * RAW if set (then clears it). */
void tl_close_recording(struct tl_proc *rec, struct tl_proc *wl, char *raw);
/* Attaches `locktrace record -p` with EXTRA to the workload WL (started
 * with --gate), without the recorder's symbol cache (as on a fresh
 * machine), the trace to a fresh path (tl_tmp_path, TAG) in RAW
 * (TL_PATH_MAX bytes); lets the workload go and waits up to 120 s for its
 * "done" line (the lines read until then into DONE, at most MAXD, their
 * count in *ND); then stops the recorder with Ctrl-C (it finishes what it
 * copied) and waits for it (60 s) and the workload to end.  Fails the
 * test, naming WHAT, if the recorder does not start or the workload never
 * finishes. */
void tl_record_until_done(struct tl_proc *rec, struct tl_proc *wl, char *raw, const char *tag,
			  char *const extra[], char done[][256], int *nd, int maxd,
			  const char *what);
/* Removes the two files of tl_record_perfetto, if TRACE is set (then
 * clears it). */
void tl_unlink_traces(char *trace, char *pftrace);
/* A small file system for disk-full tests: a tmpfs of size (mount's
 * "size=" syntax, e.g. "1m") on a new directory under /tmp.  Its path, or
 * NULL (errno set).  tl_tmpfs_remove unmounts and removes it, once. */
const char *tl_tmpfs(const char *size);
void tl_tmpfs_remove(void);

int tl_is_root(void);
/* Is the CLI the tests run (LT_BIN) built with AddressSanitizer (make
 * live-asan runs them against build/asan/locktrace)?  Read from the binary
 * itself (its ASan runtime's __asan_init), so no setting can make a normal
 * build pass for a sanitized one.  Tests that bound the CLI's memory need
 * it: ASan's shadow memory, redzones and quarantine of freed blocks are
 * not the product's. */
bool tl_cli_asan(void);
/* Skips the test with the message WHY unless it runs as root. */
void tl_skip_unless_root(const char *why);

/* A synthetic snapshot of process PID with one thread, PID itself, asleep
 * ('S') and named COMM (lt_snapshot_free it). */
struct lt_snapshot;
struct lt_snapshot *tl_snapshot_one(int pid, const char *comm);
/* A synthetic snapshot of process PID named COMM with one thread, PID + 1,
 * asleep in a system call for 3 s (by the kernel's last run time), no fd
 * waited on: the call and its lock are the test's to fill. */
struct lt_snapshot *tl_snapshot_in_call(int pid, const char *comm);
/* Is X one of the N values of the array ARR? */
#define TL_HAS(arr, n, x)                                       \
	({                                                      \
		bool tl_has_ = false;                           \
		for (size_t tl_i_ = 0; tl_i_ < (n); tl_i_++)    \
			tl_has_ |= (arr)[tl_i_] == (x);         \
		tl_has_;                                        \
	})
/* FIRST (a snapshot, given up) and the processes its wait-for edges lead
 * to, each taken by TAKE(pid, NULL, out) (lt_snapshot_follow), diagnosed
 * together into *M (lt_multi_free it); asserts both steps succeed. */
struct lt_multi_snapshot;
void tl_follow(struct lt_snapshot *first, int (*take)(pid_t, void *, struct lt_snapshot **),
	       struct lt_multi_snapshot **m);
/* Does a line of L contain NEEDLE? */
struct lt_strlist;
bool tl_strlist_has(const struct lt_strlist *l, const char *needle);
/* The first verdict of S of kind K naming thread TID among its own, or
 * NULL; and every verdict's summary to stderr (a failing test's context). */
struct lt_snapshot;
struct lt_verdict;
const struct lt_verdict *tl_verdict_with(const struct lt_snapshot *s, int k, pid_t tid);
void tl_dump_verdicts(const struct lt_snapshot *s);

/* Is sig blocked in process pid, and is it locktrace already (exec'd)? */
int tl_sig_held(pid_t pid, int sig);
/* Catches a starting locktrace while it holds sig blocked (it is still
 * attaching): waits up to timeout_ms for that, stops it with SIGSTOP and
 * checks again.  1: stopped while holding sig (send SIGCONT when done);
 * 0: not caught (it runs on). */
int tl_stop_while_holding(pid_t pid, int sig, int timeout_ms);
/* The helpers below assert with criterion: call them from a test
 * only.  A failed assertion ends the test with the message given. */

/* Starts argv[0] (as tl_spawn) and keeps its stdout lines in LINES (at most
 * MAX; *NLINES is their count, from 0) up to the one starting with "ready".
 * Fails the test if it cannot start or is not ready within TIMEOUT_MS. */
void tl_start_ready(struct tl_proc *p, char *const argv[], char lines[][256], int *nlines, int max,
		    int timeout_ms);
/* Runs argv[0] to its end (as tl_spawn, the start gate opened): its stdout
 * lines into OUT (when not NULL; at most 64, *NOUT their count), its stderr
 * lines into ERR (likewise) and shown on stderr.  Its exit status; fails
 * the test if it cannot start or does not exit. */
int tl_run_to_end(char *const argv[], char out[][256], int *nout, char err[][256], int *nerr);
/* tl_start_ready with at most 32 lines and 10 s, then the process's pid
 * as a decimal string into PID (for a command line). */
void tl_start_pid(struct tl_proc *p, char *const argv[], char lines[][256], int *nlines, char pid[16]);
/* The value of KEY in the first ground-truth line of TYPE containing MATCH
 * (NULL: any); fails the test if there is no such line or key. */
uint64_t tl_truth_val(char lines[][256], int n, const char *type, const char *match, const char *key);
/* The workload NAME built with the real OCaml VERSION compiler of
 * ../shared/tools (a static buffer): skips, saying why, when not root
 * (ROOT_WHY) or where that compiler is not there; fails the test where it
 * is and the workload was not built. */
const char *tl_ocaml5_workload(const char *version, const char *name, const char *root_why);
/* One line of a command's output, as tl_run_to_end keeps them. */
typedef char tl_line[256];
/* Every line of `report RAW --profile --all` (written to a file, so none is
 * cut), in a malloc'd array of *N lines (each cut at 255 bytes); fails
 * the test if report fails. */
tl_line *tl_profile_lines(const char *raw, int *n);
/* report --profile's output OUT (the waiting part, before "Where the lock
 * was held"), two call sites: the entry whose header line ("#R MS ms ...",
 * or "#R ~MS ms ..." for an estimate) holds ENTRY and whose stack has a
 * frame " FUNC[s]+" (at WHERE[s], e.g. "(file.c:12)", when WHERE and
 * WHERE[s] are not NULL).  Gives each site's rank and ms: of an estimated
 * entry, the part the trace has (its waits with a stack, the sampled
 * ones under 1 ms at their own length, not the share of the lock's that
 * they stand for); SLACK (when not NULL) how far the printed numbers'
 * rounding can put MS from that.  Asserts one entry per site, and both
 * there. */
void tl_profile_sites(char out[][256], int nout, const char *entry, const char *const func[2],
		      const char *const where[2], int rank[2], double ms[2], double slack[2]);
/* tl_profile_sites for Java frames ("FUNC (WHERE) [java]"), a site's
 * waits added up over every entry whose header holds ENTRY (NENT of
 * them): one site's waits may have several stacks (their native frames
 * differ) or Java locks; RANK the site's best.  Asserts both there. */
void tl_profile_java_sites(char out[][256], int nout, const char *entry, const char *const func[2],
			   const char *const where[2], int rank[2], double ms[2], int nent[2], double slack[2]);
/* The two sites ranked in the order of TRACE_MS (the trace's waits whose
 * stacks go through each site, as the profile charges them), each site's
 * MS (NENT entries) adding up to it within SLACK (tl_profile_sites);
 * WANT_US (the program's own measure, µs) only in the messages: it also
 * holds what the product does not promise to record (waits under 1 ms
 * that were not sampled, stacks read too late, time runnable outside any
 * wait). */
void tl_check_site_trace(const int rank[2], const double ms[2], const int nent[2], const double slack[2],
			 const double trace_ms[2], const double want_us[2], const char *const func[2]);
/* The two sites ranked in the order of WANT_US (the program's own measure
 * of each site's waiting, µs), each site's ms within 10% of it. */
void tl_check_site_profile(const int rank[2], const double ms[2], const double want_us[2],
			   const char *const func[2]);
/* Starts Debian's python3 on SCRIPT with the arguments EXTRA (NULL or
 * NULL-terminated, at most 5) as tl_start_ready (at most 64 lines).  Skips
 * the test, saying why, when not root (ROOT_FOR: what root is needed for),
 * or when python3 or SCRIPT is missing. */
#define TL_PYTHON "/usr/bin/python3"
void tl_start_python(struct tl_proc *p, const char *script, char *const extra[], char lines[][256],
		     int *nlines, const char *root_for);
/* Waits until /proc says thread TID of PID sleeps (S or D) in system call
 * NR; fails the test after TIMEOUT_MS.  tl_wait_in_read: in read() (0).
 * A call seen is not the call meant when the thread makes it more than once
 * (a read of data not yet written, woken at once): tl_wait_in_call_on also
 * wants the call's first argument to be ARG0 (a file descriptor the
 * workload chose), none when ARG0 < 0. */
void tl_wait_in_call(pid_t pid, pid_t tid, long nr, int timeout_ms);
/* Thread TID of PID's state letter (/proc/PID/task/TID/stat), 0 unreadable. */
char tl_thread_state(pid_t pid, pid_t tid);
void tl_wait_in_call_on(pid_t pid, pid_t tid, long nr, long long arg0, int timeout_ms);
void tl_wait_in_read(pid_t pid, pid_t tid, int timeout_ms);
/* `locktrace snapshot -p PID --json` run to its end (it must exit 0),
 * parsed (rp_json_free it). */
struct rp_json *tl_snapshot_cli_json(pid_t pid);
/* The JSON report (lt_report_file_opts) of the trace at PATH, parsed
 * (rp_json_free it); fails the test if the report or its JSON fails. */
struct rp_json;
struct rp_json *tl_report_json(const char *path);
/* The one "deadlock" finding of report J (asserted: exactly one), whose
 * tids are A and B in either order (asserted); its summary into *SUM. */
const struct rp_json *tl_two_thread_deadlock(const struct rp_json *j, pid_t a, pid_t b, const char **sum);
/* BUF (LEN bytes) parsed as JSON (rp_json_free it); fails the test,
 * showing why and BUF, if it does not parse. */
struct rp_json *tl_json_of(const char *buf, size_t len);

#endif
