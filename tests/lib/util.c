/* Helpers for the integration tests (see lt_test.h); no tests here. */
#include <criterion/criterion.h>
#include <dirent.h>
#include <errno.h>
#include <math.h>
#include <fcntl.h>
#include <poll.h>
#include <signal.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/mount.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>
#include "lt_test.h"
#include "report.h"
#include "snapshot.h"
#include "stacks.h"
#include "report_int.h"
#include "waitfor.h"

int tl_is_root(void)
{
	return geteuid() == 0;
}

bool tl_cli_asan(void)
{
	static int known = -1;
	if (known >= 0)
		return known;
	int fd = open(LT_BIN, O_RDONLY | O_CLOEXEC);
	struct stat st;
	cr_assert_geq(fd, 0, "%s: %s", LT_BIN, strerror(errno));
	cr_assert_eq(fstat(fd, &st), 0);
	void *m = mmap(NULL, (size_t)st.st_size, PROT_READ, MAP_PRIVATE, fd, 0);
	close(fd);
	cr_assert_neq(m, MAP_FAILED, "mmap %s: %s", LT_BIN, strerror(errno));
	static const char sym[] = "__asan_init";
	known = memmem(m, (size_t)st.st_size, sym, sizeof(sym)) != NULL; /* with its NUL: the symbol */
	munmap(m, (size_t)st.st_size);
	return known;
}

void tl_header(struct lt_header *h, struct lt_thread_info *ti, size_t nti, uint32_t pid, uint64_t base,
	       int n, const uint32_t *tids)
{
	cr_assert_leq((size_t)n, nti);
	memset(h, 0, sizeof(*h));
	memset(ti, 0, nti * sizeof(*ti));
	h->pid = pid;
	snprintf(h->comm, sizeof(h->comm), "app");
	h->clock_boottime = h->clock_monotonic = base;
	h->nthreads = (uint32_t)n;
	h->threads = ti;
	for (int i = 0; i < n; i++) {
		ti[i].tid = (int32_t)tids[i];
		snprintf(ti[i].comm, sizeof(ti[i].comm), "t%u", tids[i]);
		ti[i].sc_nr = -1;
	}
}

static char *printed_buf;
static size_t printed_len;

FILE *tl_printed_begin(void)
{
	printed_buf = NULL;
	printed_len = 0;
	FILE *f = open_memstream(&printed_buf, &printed_len);
	cr_assert_not_null(f);
	return f;
}

char *tl_printed_end(FILE *f, size_t *len)
{
	cr_assert_eq(fclose(f), 0);
	if (len)
		*len = printed_len;
	return printed_buf;
}

struct lt_snapshot *tl_snapshot_one(int pid, const char *comm)
{
	struct lt_snapshot *s = calloc(1, sizeof(*s));
	cr_assert_not_null(s);
	s->pid = pid;
	s->threads = calloc(1, sizeof(*s->threads));
	cr_assert_not_null(s->threads);
	s->n_threads = 1;
	s->threads[0].tid = pid;
	s->threads[0].state = 'S';
	snprintf(s->threads[0].comm, sizeof(s->threads[0].comm), "%s", comm);
	return s;
}

struct lt_snapshot *tl_snapshot_in_call(int pid, const char *comm)
{
	struct lt_snapshot *s = calloc(1, sizeof(*s));
	cr_assert_not_null(s);
	s->pid = pid;
	snprintf(s->comm, sizeof(s->comm), "%s", comm);
	s->threads = calloc(1, sizeof(*s->threads));
	cr_assert_not_null(s->threads);
	s->n_threads = 1;
	struct lt_thread *t = &s->threads[0];
	t->tid = pid + 1;
	snprintf(t->comm, sizeof(t->comm), "%s", comm);
	t->state = 'S';
	t->idle_s = 3;
	t->idle_src = LT_IDLE_SCHED_EXEC_START;
	t->fdw.epfd = -1;
	t->fdw.io.fd = -1;
	t->sc.state = LT_SC_IN_SYSCALL;
	return s;
}

void tl_skip_unless_root(const char *why)
{
	if (!tl_is_root())
		cr_skip_test("%s", why);
}

void tl_follow(struct lt_snapshot *first, int (*take)(pid_t, void *, struct lt_snapshot **),
	       struct lt_multi_snapshot **m)
{
	struct lt_snapshot **v = NULL;
	size_t n = 0;
	struct lt_strlist notes = { 0 };
	cr_assert_eq(lt_snapshot_follow(first, NULL, take, NULL, &v, &n, &notes), 0);
	lt_strlist_free(&notes);
	*m = NULL;
	cr_assert_eq(lt_multi_build(v, n, NULL, m), 0);
}

bool tl_strlist_has(const struct lt_strlist *l, const char *needle)
{
	for (size_t i = 0; i < l->n; i++)
		if (strstr(l->v[i], needle))
			return true;
	return false;
}

const struct lt_verdict *tl_verdict_with(const struct lt_snapshot *s, int k, pid_t tid)
{
	for (size_t i = 0; i < s->n_verdicts; i++)
		for (size_t j = 0; (int)s->verdicts[i].kind == k && j < s->verdicts[i].n_tids; j++)
			if (s->verdicts[i].tids[j] == tid)
				return &s->verdicts[i];
	return NULL;
}

void tl_dump_verdicts(const struct lt_snapshot *s)
{
	for (size_t i = 0; i < s->n_verdicts; i++)
		fprintf(stderr, "verdict %zu: %s\n", i, s->verdicts[i].summary);
}

int tl_spawn(struct tl_proc *p, char *const argv[])
{
	int in[2], out[2], err[2];

	memset(p, 0, sizeof(*p));
	/* a child that exits before reading its stdin (tl_go) must not kill
	 * the test with SIGPIPE: the write just fails with EPIPE */
	signal(SIGPIPE, SIG_IGN);
	if (pipe2(in, O_CLOEXEC) || pipe2(out, O_CLOEXEC) || pipe2(err, O_CLOEXEC))
		return -1;
	p->pid = fork();
	if (p->pid < 0)
		return -1;
	if (p->pid == 0) {
		dup2(in[0], 0);
		dup2(out[1], 1);
		dup2(err[1], 2);
		execv(argv[0], argv);
		dprintf(2, "exec %s: %s\n", argv[0], strerror(errno));
		_exit(127);
	}
	close(in[0]);
	close(out[1]);
	close(err[1]);
	p->in_fd = in[1];
	p->out_fd = out[0];
	p->err_fd = err[0];
	return 0;
}

static uint64_t now_ms(void)
{
	struct timespec ts;
	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * 1000 + (uint64_t)ts.tv_nsec / 1000000;
}

int tl_readline(struct tl_proc *p, int which, char *line, size_t n, int timeout_ms)
{
	int fd = which ? p->err_fd : p->out_fd;
	char *b = p->buf[which];
	size_t *len = &p->len[which];
	uint64_t deadline = now_ms() + (uint64_t)timeout_ms;

	for (;;) {
		char *nl = memchr(b, '\n', *len);
		if (nl) {
			size_t l = (size_t)(nl - b);
			size_t c = l < n - 1 ? l : n - 1;
			memcpy(line, b, c);
			line[c] = 0;
			memmove(b, nl + 1, *len - l - 1);
			*len -= l + 1;
			return 1;
		}
		if (fd < 0)
			return 0;
		uint64_t t = now_ms();
		if (t >= deadline)
			return -1;
		struct pollfd pf = { .fd = fd, .events = POLLIN };
		int r = poll(&pf, 1, (int)(deadline - t));
		if (r < 0 && errno == EINTR)
			continue;
		if (r <= 0)
			return -1;
		ssize_t got = read(fd, b + *len, sizeof(p->buf[0]) - 1 - *len);
		if (got <= 0) {
			if (*len) { /* last line without newline */
				b[*len] = '\n';
				(*len)++;
				if (which) { close(p->err_fd); p->err_fd = -1; } else { close(p->out_fd); p->out_fd = -1; }
				continue;
			}
			return 0;
		}
		*len += (size_t)got;
	}
}

int tl_wait_for(struct tl_proc *p, int which, const char *prefix, char lines[][256], int *nlines,
		int max, int timeout_ms)
{
	char line[256];
	uint64_t deadline = now_ms() + (uint64_t)timeout_ms;

	for (;;) {
		uint64_t t = now_ms();
		if (t >= deadline)
			return 0;
		int r = tl_readline(p, which, line, sizeof(line), (int)(deadline - t));
		if (r <= 0)
			return 0;
		if (lines && *nlines < max)
			snprintf(lines[(*nlines)++], 256, "%s", line);
		if (!strncmp(line, prefix, strlen(prefix)))
			return 1;
	}
}

void tl_go(struct tl_proc *p)
{
	if (p->in_fd >= 0) {
		ssize_t w = write(p->in_fd, "go\n", 3);
		(void)w;
		close(p->in_fd);
		p->in_fd = -1;
	}
}

int tl_wait(struct tl_proc *p, int timeout_ms)
{
	uint64_t deadline = now_ms() + (uint64_t)timeout_ms;
	int st;

	for (;;) {
		pid_t r = waitpid(p->pid, &st, WNOHANG);
		if (r == p->pid) {
			p->pid = 0;
			return st;
		}
		if (r < 0)
			return -1;
		if (now_ms() >= deadline) {
			tl_kill(p);
			return -1;
		}
		usleep(10000);
	}
}

void tl_kill(struct tl_proc *p)
{
	if (p->pid > 0) {
		kill(p->pid, SIGKILL);
		waitpid(p->pid, NULL, 0);
		p->pid = 0;
	}
}

void tl_close(struct tl_proc *p)
{
	tl_kill(p);
	if (p->in_fd >= 0) close(p->in_fd);
	if (p->out_fd >= 0) close(p->out_fd);
	if (p->err_fd >= 0) close(p->err_fd);
	p->in_fd = p->out_fd = p->err_fd = -1;
}

void tl_close_started(struct tl_proc *p)
{
	if (p->pid > 0)
		tl_close(p);
	p->pid = 0;
}

const char *tl_find(char lines[][256], int n, const char *type, const char *match)
{
	size_t tl = strlen(type);
	for (int i = 0; i < n; i++) {
		if (strncmp(lines[i], type, tl) || (lines[i][tl] != ' ' && lines[i][tl] != '=' && lines[i][tl]))
			continue;
		if (!match || strstr(lines[i], match))
			return lines[i];
	}
	return NULL;
}

uint64_t tl_val(const char *line, const char *key, int *ok)
{
	size_t kl = strlen(key);
	for (const char *p = line; p && *p; p = strchr(p, ' ')) {
		while (*p == ' ')
			p++;
		if (!strncmp(p, key, kl) && p[kl] == '=') {
			if (ok)
				*ok = 1;
			return strtoull(p + kl + 1, NULL, 0);
		}
	}
	if (ok)
		*ok = 0;
	return 0;
}

int tl_load(struct tl_trace *t, const char *path)
{
	struct lt_reader r;
	struct lt_item it;
	char err[512];
	size_t cap = 0;

	memset(t, 0, sizeof(*t));
	if (lt_reader_open(&r, path, err, sizeof(err))) {
		fprintf(stderr, "tl_load: %s\n", err);
		return -1;
	}
	while (lt_reader_next(&r, &it) > 0) {
		if (it.type == LT_ITEM_SECTION) {
			if (it.sec_type == LT_CHUNK_SNAPSHOT) {
				free(t->snapshot_json);
				t->snapshot_json = malloc(it.len + 1);
				if (!t->snapshot_json)
					return -1;
				memcpy(t->snapshot_json, it.data, it.len);
				t->snapshot_json[it.len] = 0;
				t->snapshot_len = it.len;
			}
			continue;
		}
		if (t->n == cap) {
			cap = cap ? cap * 2 : 4096;
			struct lt_event *v = realloc(t->ev, cap * sizeof(*v));
			if (!v)
				return -1;
			t->ev = v;
		}
		t->ev[t->n++] = it.ev;
	}
	t->hdr = r.hdr;
	memset(&r.hdr, 0, sizeof(r.hdr)); /* its arrays (threads, procs, shared) move to t */
	t->have_stats = r.have_stats;
	t->stats = r.stats;
	r.stats.lost = NULL;
	/* damage read past is no clean file either: a recording must have none
	 * (the reader used to stop at it, which the tests saw as no clean end) */
	t->clean_end = r.clean_end && !r.nskips;
	snprintf(t->stop, sizeof(t->stop), "%s", r.stop_reason);
	lt_trace_damage_append(&r, t->stop, sizeof(t->stop));
	lt_reader_close(&r);
	return 0;
}

void tl_load_ok(struct tl_trace *t, const char *path)
{
	cr_assert_eq(tl_load(t, path), 0, "%s does not load", path);
}

void tl_load_clean(struct tl_trace *t, const char *path)
{
	tl_load_ok(t, path);
	cr_assert(t->clean_end, "%s not closed cleanly: %s", path, t->stop);
}

uint64_t tl_wait_len(const struct tl_trace *t, size_t i)
{
	for (size_t k = i + 1; k < t->n; k++)
		if (t->ev[k].h.tid == t->ev[i].h.tid && t->ev[k].h.kind == LT_EV_SYS_EXIT)
			return t->ev[k].h.ts - t->ev[i].h.ts;
	return 0;
}

void tl_free(struct tl_trace *t)
{
	free(t->ev);
	free(t->snapshot_json);
	lt_header_free(&t->hdr);
	lt_stats_free(&t->stats);
	memset(t, 0, sizeof(*t));
}

uint64_t tl_total_lost(const struct tl_trace *t)
{
	uint64_t n = 0;
	for (uint64_t i = 0; t->stats.lost && i < (uint64_t)t->stats.ncpus * LT_EV_MAX; i++)
		n += t->stats.lost[i];
	return n;
}

void tl_recorder_done(struct tl_proc *rec, struct tl_proc *wl, int timeout_ms)
{
	int st = tl_wait(rec, timeout_ms);
	cr_assert_eq(st, 0, "the recorder ended with status 0x%x", st);
	tl_close(rec);
	tl_close(wl);
}

void tl_close_recording(struct tl_proc *rec, struct tl_proc *wl, char *raw)
{
	tl_close_started(rec);
	tl_close_started(wl);
	if (raw[0])
		unlink(raw);
	raw[0] = 0;
}

void tl_record_until_done(struct tl_proc *rec, struct tl_proc *wl, char *raw, const char *tag,
			  char *const extra[], char done[][256], int *nd, int maxd,
			  const char *what)
{
	tl_tmp_path(raw, TL_PATH_MAX, tag);
	setenv("LOCKTRACE_CACHE_DIR", "off", 1);
	int rc = tl_start_recorder(rec, wl->pid, raw, extra);
	unsetenv("LOCKTRACE_CACHE_DIR");
	cr_assert_eq(rc, 0, "locktrace record -p %d %s did not start", (int)wl->pid,
		     extra && extra[0] ? extra[0] : "");
	tl_go(wl);
	*nd = 0;
	cr_assert(tl_wait_for(wl, 0, "done", done, nd, maxd, 120000), "%s never finished", what);
	kill(rec->pid, SIGINT); /* Ctrl-C: the recorder finishes what it copied */
	tl_recorder_done(rec, wl, 60000);
}

void tl_tmp_path(char *buf, size_t n, const char *tag)
{
	static int seq;
	snprintf(buf, n, "/tmp/lt-test-%d-%s-%d.ltrace", getpid(), tag, seq++);
	unlink(buf);
}

int tl_start_recorder(struct tl_proc *rec, pid_t pid, const char *path, char *const extra[])
{
	char pidbuf[16];
	char *argv[32];
	int i = 0;

	snprintf(pidbuf, sizeof(pidbuf), "%d", pid);
	argv[i++] = LT_BIN;
	argv[i++] = "record";
	argv[i++] = "-p";
	argv[i++] = pidbuf;
	argv[i++] = "-o";
	argv[i++] = (char *)path;
	argv[i++] = "--no-status";
	for (int j = 0; extra && extra[j] && i < 31; j++)
		argv[i++] = extra[j];
	argv[i] = NULL;
	if (tl_spawn(rec, argv))
		return -1;
	close(rec->in_fd);
	rec->in_fd = -1;
	char lines[8][256];
	int n = 0;
	if (!tl_wait_for(rec, 1, "locktrace (pid ", lines, &n, 8, 20000)) {
		for (int k = 0; k < n; k++)
			fprintf(stderr, "recorder said: %s\n", lines[k]);
		return -1;
	}
	return 0;
}

static char tmpfs_dir[64];

const char *tl_tmpfs(const char *size)
{
	char opts[64];
	tl_tmpfs_remove();
	snprintf(tmpfs_dir, sizeof(tmpfs_dir), "/tmp/lt-tmpfs-XXXXXX");
	if (!mkdtemp(tmpfs_dir)) {
		tmpfs_dir[0] = 0;
		return NULL;
	}
	snprintf(opts, sizeof(opts), "size=%s", size);
	if (mount("tmpfs", tmpfs_dir, "tmpfs", 0, opts)) {
		int e = errno;
		rmdir(tmpfs_dir);
		tmpfs_dir[0] = 0;
		errno = e;
		return NULL;
	}
	return tmpfs_dir;
}

void tl_tmpfs_remove(void)
{
	if (!tmpfs_dir[0])
		return;
	umount2(tmpfs_dir, MNT_DETACH);
	rmdir(tmpfs_dir);
	tmpfs_dir[0] = 0;
}

int tl_sig_held(pid_t pid, int sig)
{
	char path[64], line[256], comm[32] = "";
	unsigned long long blk = 0;
	int have = 0;

	snprintf(path, sizeof(path), "/proc/%d/comm", (int)pid);
	FILE *f = fopen(path, "r");
	if (!f)
		return 0;
	if (!fgets(comm, sizeof(comm), f))
		comm[0] = 0;
	fclose(f);
	if (strcmp(comm, "locktrace\n"))
		return 0;
	snprintf(path, sizeof(path), "/proc/%d/status", (int)pid);
	if (!(f = fopen(path, "r")))
		return 0;
	while (fgets(line, sizeof(line), f))
		if (!strncmp(line, "SigBlk:", 7))
			have = sscanf(line + 7, "%llx", &blk) == 1;
	fclose(f);
	return have && (blk >> (sig - 1) & 1);
}

static char proc_state(pid_t pid)
{
	char path[64], buf[512];
	snprintf(path, sizeof(path), "/proc/%d/stat", (int)pid);
	FILE *f = fopen(path, "r");
	if (!f)
		return 0;
	size_t n = fread(buf, 1, sizeof(buf) - 1, f);
	fclose(f);
	buf[n] = 0;
	const char *p = strrchr(buf, ')');
	return p && p[1] ? p[2] : 0;
}

int tl_stop_while_holding(pid_t pid, int sig, int timeout_ms)
{
	uint64_t deadline = now_ms() + (uint64_t)timeout_ms;

	while (!tl_sig_held(pid, sig)) {
		if (now_ms() >= deadline)
			return 0;
		usleep(500);
	}
	kill(pid, SIGSTOP);
	while (proc_state(pid) != 'T') {
		if (now_ms() >= deadline) {
			kill(pid, SIGCONT);
			return 0;
		}
		usleep(500);
	}
	if (tl_sig_held(pid, sig))
		return 1;
	kill(pid, SIGCONT);
	return 0;
}

void tl_start_ready(struct tl_proc *p, char *const argv[], char lines[][256], int *nlines, int max,
		    int timeout_ms)
{
	char cmd[512];
	size_t len = 0;
	for (int i = 0; argv[i] && len < sizeof(cmd); i++)
		len += (size_t)snprintf(cmd + len, sizeof(cmd) - len, "%s%s", i ? " " : "", argv[i]);
	*nlines = 0;
	cr_assert_eq(tl_spawn(p, argv), 0, "cannot start %s: %s", cmd, strerror(errno));
	if (!tl_wait_for(p, 0, "ready", lines, nlines, max, timeout_ms)) {
		char line[256];
		for (int i = 0; i < *nlines; i++)
			fprintf(stderr, "%s said: %s\n", argv[0], lines[i]);
		for (int i = 0; i < 20 && tl_readline(p, 1, line, sizeof(line), 200) == 1; i++)
			fprintf(stderr, "%s stderr: %s\n", argv[0], line);
		cr_assert_fail("%s never printed ready (%d ms)", cmd, timeout_ms);
	}
}

void tl_tmp_paths(char *trace, char *pftrace, const char *tag)
{
	tl_tmp_path(trace, TL_PATH_MAX, tag);
	snprintf(pftrace, TL_PATH_MAX, "%.*s.perfetto-trace", (int)(strlen(trace) - strlen(".ltrace")),
		 trace);
	unlink(pftrace);
}

void tl_record_perfetto(pid_t pid, const char *tag, char *trace, char *pftrace)
{
	struct tl_proc rec;
	char *extra[] = { "-d", "2", "--perfetto", NULL };
	tl_tmp_paths(trace, pftrace, tag);
	cr_assert_eq(tl_start_recorder(&rec, pid, trace, extra), 0);
	cr_assert_eq(tl_wait(&rec, 30000), 0, "the recorder failed");
	tl_close(&rec);
}

void tl_unlink_traces(char *trace, char *pftrace)
{
	if (trace[0]) {
		unlink(trace);
		unlink(pftrace);
		trace[0] = 0;
	}
}

static void keep_line(char lines[][256], int *n, const char *line)
{
	if (lines && *n < 64)
		snprintf(lines[(*n)++], 256, "%s", line);
}

int tl_run_to_end(char *const argv[], char out[][256], int *nout, char err[][256], int *nerr)
{
	struct tl_proc p;
	char line[256];
	int no = 0, ne = 0;

	cr_assert_eq(tl_spawn(&p, argv), 0);
	tl_go(&p);
	while (tl_readline(&p, 0, line, sizeof(line), 30000) == 1)
		keep_line(out, &no, line);
	while (tl_readline(&p, 1, line, sizeof(line), 30000) == 1) {
		keep_line(err, &ne, line);
		fprintf(stderr, "  | %s\n", line);
	}
	int st = tl_wait(&p, 30000);
	tl_close(&p);
	if (nout)
		*nout = no;
	if (nerr)
		*nerr = ne;
	cr_assert(WIFEXITED(st), "%s did not exit", argv[0]);
	return WEXITSTATUS(st);
}

uint64_t tl_truth_val(char lines[][256], int n, const char *type, const char *match, const char *key)
{
	const char *l = tl_find(lines, n, type, match);
	cr_assert_not_null(l, "no ground-truth line '%s ... %s'", type, match ? match : "");
	int ok = 0;
	uint64_t v = tl_val(l, key, &ok);
	cr_assert(ok, "no %s= in '%s'", key, l);
	return v;
}

void tl_start_python(struct tl_proc *p, const char *script, char *const extra[], char lines[][256],
		     int *nlines, const char *root_for)
{
	if (!tl_is_root())
		cr_skip_test("needs root: %s", root_for);
	if (access(TL_PYTHON, X_OK) != 0)
		cr_skip_test("%s is missing", TL_PYTHON);
	if (access(script, R_OK) != 0)
		cr_skip_test("%s not found: run from the source tree", script);
	char *argv[8] = { TL_PYTHON, (char *)script };
	int n = 2;
	for (int i = 0; extra && extra[i] && n < 7; i++)
		argv[n++] = extra[i];
	tl_start_ready(p, argv, lines, nlines, 64, 30000);
}

void tl_start_pid(struct tl_proc *p, char *const argv[], char lines[][256], int *nlines, char pid[16])
{
	tl_start_ready(p, argv, lines, nlines, 32, 10000);
	snprintf(pid, 16, "%d", (int)p->pid);
}

char tl_thread_state(pid_t pid, pid_t tid)
{
	char path[96], buf[512];
	snprintf(path, sizeof(path), "/proc/%d/task/%d/stat", (int)pid, (int)tid);
	FILE *f = fopen(path, "r");
	size_t n = f ? fread(buf, 1, sizeof(buf) - 1, f) : 0;
	if (f)
		fclose(f);
	buf[n] = 0;
	const char *p = strrchr(buf, ')');
	return p && p[1] == ' ' ? p[2] : 0;
}

/* Whether thread TID of PID sleeps (S or D): a thread woken from a call but
 * not yet run still shows that call in its syscall file. */
static bool task_asleep(pid_t pid, pid_t tid)
{
	char st = tl_thread_state(pid, tid);
	return st == 'S' || st == 'D';
}

void tl_wait_in_call_on(pid_t pid, pid_t tid, long nr, long long arg0, int timeout_ms)
{
	char path[96], buf[256], want[48];
	uint64_t deadline = now_ms() + (uint64_t)timeout_ms;
	snprintf(path, sizeof(path), "/proc/%d/task/%d/syscall", (int)pid, (int)tid);
	if (arg0 >= 0)
		snprintf(want, sizeof(want), "%ld 0x%llx ", nr, (unsigned long long)arg0);
	else
		snprintf(want, sizeof(want), "%ld ", nr);
	for (;;) {
		FILE *f = fopen(path, "r");
		size_t n = f ? fread(buf, 1, sizeof(buf) - 1, f) : 0;
		if (f)
			fclose(f);
		buf[n] = 0;
		if (!strncmp(buf, want, strlen(want)) && task_asleep(pid, tid))
			return;
		if (now_ms() >= deadline)
			break;
		usleep(10000);
	}
	cr_assert_fail("thread %d of %d never slept in system call %ld%s (%d ms): %s", (int)tid, (int)pid, nr,
		       arg0 >= 0 ? " on that first argument" : "", timeout_ms, buf);
}

void tl_wait_in_call(pid_t pid, pid_t tid, long nr, int timeout_ms)
{
	tl_wait_in_call_on(pid, tid, nr, -1, timeout_ms);
}

void tl_wait_in_read(pid_t pid, pid_t tid, int timeout_ms)
{
	tl_wait_in_call(pid, tid, 0, timeout_ms);
}

struct rp_json *tl_snapshot_cli_json(pid_t pid)
{
	char cmd[4096 + 64];
	snprintf(cmd, sizeof(cmd), "%s snapshot -p %d --json", LT_BIN, (int)pid);
	FILE *f = popen(cmd, "r");
	cr_assert_not_null(f, "%s", cmd);
	static char buf[1 << 20];
	size_t len = fread(buf, 1, sizeof(buf) - 1, f);
	cr_assert_eq(pclose(f), 0, "%s", cmd);
	return tl_json_of(buf, len);
}

const struct rp_json *tl_two_thread_deadlock(const struct rp_json *j, pid_t a, pid_t b, const char **sum)
{
	const struct rp_json *fs = rp_json_get(j, "findings"), *found = NULL;
	for (size_t i = 0; fs && i < fs->n; i++)
		if (!strcmp(rp_json_str(rp_json_get(&fs->items[i], "kind")), "deadlock")) {
			cr_assert_null(found, "two deadlock findings");
			found = &fs->items[i];
		}
	for (size_t i = 0; !found && fs && i < fs->n; i++)
		fprintf(stderr, "finding: %s\n", rp_json_str(rp_json_get(&fs->items[i], "summary")));
	cr_assert_not_null(found, "no deadlock finding (the findings above)");
	*sum = rp_json_str(rp_json_get(found, "summary"));
	const struct rp_json *tids = rp_json_get(found, "tids");
	cr_assert(tids && tids->n == 2, "%s", *sum);
	pid_t t0 = (pid_t)rp_json_num(&tids->items[0], 0), t1 = (pid_t)rp_json_num(&tids->items[1], 0);
	cr_assert((t0 == a && t1 == b) || (t0 == b && t1 == a), "threads %d and %d: %s", (int)a, (int)b, *sum);
	return found;
}

struct rp_json *tl_report_json(const char *path)
{
	char *buf = NULL, err[768];
	size_t len = 0;
	FILE *f = open_memstream(&buf, &len);
	cr_assert_not_null(f);
	int rc = lt_report_file_opts(path, f, 1, NULL, err, sizeof(err));
	fclose(f);
	cr_assert_eq(rc, 0, "report of %s: %d %s", path, rc, err);
	struct rp_json *j = tl_json_of(buf, len);
	free(buf);
	return j;
}

struct rp_json *tl_json_of(const char *buf, size_t len)
{
	char e[160];
	struct rp_json *j = rp_json_parse(buf, len, e, sizeof(e));
	cr_assert_not_null(j, "JSON does not parse: %s\n%.*s", e, (int)len, buf);
	return j;
}

static void profile_sites(char out[][256], int nout, const char *entry, const char *const func[2],
			  const char *const where[2], int rank[2], double ms[2], int nent[2], double slack[2],
			  int java);

void tl_profile_sites(char out[][256], int nout, const char *entry, const char *const func[2],
		      const char *const where[2], int rank[2], double ms[2], double slack[2])
{
	int nent[2];
	double sl[2];
	profile_sites(out, nout, entry, func, where, rank, ms, nent, slack ? slack : sl, 0);
}

void tl_profile_java_sites(char out[][256], int nout, const char *entry, const char *const func[2],
			   const char *const where[2], int rank[2], double ms[2], int nent[2], double slack[2])
{
	profile_sites(out, nout, entry, func, where, rank, ms, nent, slack, 1);
}

static void profile_sites(char out[][256], int nout, const char *entry, const char *const func[2],
			  const char *const where[2], int rank[2], double ms[2], int nent[2], double slack[2],
			  int java)
{
	int cur = 0, in_entry = 0;
	double cur_ms = 0, cur_slack = 0;
	rank[0] = rank[1] = 0;
	ms[0] = ms[1] = 0;
	slack[0] = slack[1] = 0;
	nent[0] = nent[1] = 0;
	for (int i = 0; i < nout; i++) {
		int r, n = 0;
		double v, samp_ms, est_n, est_ms;
		/* "#3  241.2 ms" or, an estimate, "#3  ~121.0 ms" */
		if (sscanf(out[i], "#%d %n", &r, &n) == 1 && n > 0 &&
		    sscanf(out[i] + n + (out[i][n] == '~'), "%lf ms", &v) == 1) {
			cur = r;
			cur_ms = v;
			cur_slack = 0.05; /* printed to 0.1 ms */
			in_entry = strstr(out[i], entry) != NULL;
			continue;
		}
		/* an estimated entry (report_profile.c, print_entry): its
		 * sampled waits under 1 ms stand for a share of the lock's;
		 * what the trace has is the entry's waits with a stack, the
		 * sampled ones at their own length */
		const char *sm = strstr(out[i], " under 1 ms with a stack (");
		if (sm && strstr(out[i], "(~ an estimate: its ") &&
		    sscanf(sm, " under 1 ms with a stack (%lf ms) %*s a sample, standing for ~%lf (~%lf ms)",
			   &samp_ms, &est_n, &est_ms) == 3) {
			cur_ms += samp_ms - est_ms;
			cur_slack += 0.055; /* printed to 0.01 and 0.1 ms */
			continue;
		}
		if (!strncmp(out[i], "Where the lock was held", 23))
			break; /* the releasing stacks */
		for (int s = 0; s < 2 && in_entry; s++) {
			char pat[128];
			snprintf(pat, sizeof(pat), java ? " %s (" : " %s+", func[s]);
			if (!strstr(out[i], pat) || (java && !strstr(out[i], " [java]")))
				continue;
			if (where && where[s])
				cr_assert(strstr(out[i], where[s]), "%s not at %s: %s", func[s], where[s],
					  out[i]);
			if (java) { /* every entry's waits; the best rank */
				if (!rank[s])
					rank[s] = cur;
				ms[s] += cur_ms;
				slack[s] += cur_slack;
				nent[s]++;
				continue;
			}
			cr_assert_eq(rank[s], 0, "two entries for %s", func[s]);
			rank[s] = cur;
			ms[s] = cur_ms;
			slack[s] = cur_slack;
			nent[s] = 1;
		}
	}
	cr_assert(rank[0] && rank[1], "the profile has no entry for %s:\n%s\n%s\n%s",
		  rank[0] ? func[1] : func[0], nout > 0 ? out[0] : "", nout > 2 ? out[2] : "",
		  nout > 3 ? out[3] : "");
}

void tl_check_site_trace(const int rank[2], const double ms[2], const int nent[2], const double slack[2],
			 const double trace_ms[2], const double want_us[2], const char *const func[2])
{
	/* the profile ranks what the trace has: the site with more waiting
	 * in it first (by design the longer hold's) */
	int first = trace_ms[0] >= trace_ms[1] ? 0 : 1, second = 1 - first;
	cr_assert_lt(rank[first], rank[second], "%s (%.1f ms of waits with its stack in the trace) ranks "
		     "after %s (%.1f ms)", func[first], trace_ms[first], func[second], trace_ms[second]);
	for (int s = 0; s < 2; s++)
		cr_assert(fabs(ms[s] - trace_ms[s]) <= slack[s] + 1e-6,
			  "%s: %.1f ms in %d entries of the profile; the trace has %.3f ms of waits with a "
			  "stack through it (the program measured %.1f ms)", func[s], ms[s], nent[s],
			  trace_ms[s], want_us[s] / 1e3);
}

void tl_check_site_profile(const int rank[2], const double ms[2], const double want_us[2],
			   const char *const func[2])
{
	/* the order to expect is the one the program measured: a site holds
	 * longer by design, but on a loaded machine a wait at the other can
	 * outlast it, and the profile ranks what was waited */
	int first = want_us[0] >= want_us[1] ? 0 : 1, second = 1 - first;
	cr_assert_lt(rank[first], rank[second], "%s (%.1f ms waited) ranks after %s (%.1f ms)",
		     func[first], want_us[first] / 1e3, func[second], want_us[second] / 1e3);
	for (int s = 0; s < 2; s++)
		cr_assert(ms[s] >= want_us[s] / 1e3 * 0.9 && ms[s] <= want_us[s] / 1e3 * 1.1,
			  "%s: %.1f ms, the program measured %.1f ms", func[s], ms[s], want_us[s] / 1e3);
}

tl_line *tl_profile_lines(const char *raw, int *n)
{
	char path[TL_PATH_MAX + 16], out[64][256], err[64][256];
	int nout, nerr;
	snprintf(path, sizeof(path), "%s.profile", raw);
	char *rep[] = { LT_BIN, "report", (char *)raw, "--profile", "--all", "-o", path, "--force", NULL };
	cr_assert_eq(tl_run_to_end(rep, out, &nout, err, &nerr), 0, "report --profile: %s",
		     nerr ? err[0] : "");
	FILE *f = fopen(path, "r");
	cr_assert(f, "report --profile wrote no %s", path);
	int cap = 256;
	tl_line *v = malloc((size_t)cap * sizeof(*v));
	cr_assert(v);
	*n = 0;
	char line[4096];
	while (fgets(line, sizeof(line), f)) {
		if (*n == cap) {
			cap *= 2;
			v = realloc(v, (size_t)cap * sizeof(*v));
			cr_assert(v);
		}
		size_t len = strcspn(line, "\n");
		if (len >= sizeof(v[0]))
			len = sizeof(v[0]) - 1; /* cut, as tl_run_to_end's lines */
		memcpy(v[*n], line, len);
		v[(*n)++][len] = 0;
	}
	fclose(f);
	unlink(path);
	return v;
}

const char *tl_ocaml5_workload(const char *version, const char *name, const char *root_why)
{
	static char path[256];
	char tar[256];
	tl_skip_unless_root(root_why);
	snprintf(tar, sizeof(tar), "../shared/tools/ocaml-%s-min.tar.xz", version);
	if (access(tar, R_OK) != 0)
		cr_skip_test("%s absent: the real OCaml %s compiler is needed (OCaml 5 is not in Debian 12; "
			     "../shared/tools/README.md)", tar, version);
	snprintf(path, sizeof(path), WL("ocaml-%s/%s"), version, name);
	cr_assert_eq(access(path, X_OK), 0, "%s not built although %s is there: run make all", path, tar);
	return path;
}

double tl_now_s(void)
{
	struct timespec ts;
	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec + ts.tv_nsec / 1e9;
}

void tl_locks_line(pid_t pid, const char *path, bool blocked, char *out, size_t len)
{
	struct stat st;
	cr_assert_eq(stat(path, &st), 0, "stat %s", path);
	char ino[32];
	snprintf(ino, sizeof(ino), ":%lu ", (unsigned long)st.st_ino);
	for (double t0 = tl_now_s(); tl_now_s() - t0 < 10;) {
		FILE *f = fopen("/proc/locks", "r");
		char line[256];
		while (f && fgets(line, sizeof(line), f)) {
			struct lt_plock l;
			if (strstr(line, ino) && lt_parse_plock(line, &l) == 0 && l.pid == pid && l.blocked == blocked) {
				fclose(f);
				snprintf(out, len, "%s", line);
				return;
			}
		}
		if (f)
			fclose(f);
		usleep(20000);
	}
	cr_assert_fail("no %s entry of %d for %s in /proc/locks", blocked ? "blocked" : "held", (int)pid, path);
}


/* Every thread's children: a child belongs to the thread that created it
 * (a second thread's posix_spawn, a worker's fork) */
void tl_kill_tree(pid_t pid)
{
	char path[96];
	/* stopped first, it starts no child while its children are killed (a
	 * multiprocessing.Pool replaces a worker that dies: the replacement
	 * was left behind, orphaned); its caller kills it */
	kill(pid, SIGSTOP);
	snprintf(path, sizeof(path), "/proc/%d/task", (int)pid);
	DIR *d = opendir(path);
	for (struct dirent *de; d && (de = readdir(d));) {
		int tid = atoi(de->d_name);
		if (tid <= 0)
			continue;
		snprintf(path, sizeof(path), "/proc/%d/task/%d/children", (int)pid, tid);
		FILE *f = fopen(path, "r");
		int ch;
		while (f && fscanf(f, "%d", &ch) == 1)
			tl_kill_tree(ch), kill(ch, SIGKILL);
		if (f)
			fclose(f);
	}
	if (d)
		closedir(d);
}

int tl_frame_named(const struct lt_stack *s, const char *func)
{
	for (uint32_t i = 0; i < s->nframes; i++)
		if (s->frames[i].func && !strcmp(s->frames[i].func, func))
			return (int)i;
	return -1;
}

static void latest_waiter_copy(void *ctx, const struct lt_stack_ref *r)
{
	uint64_t *max = ctx;
	if (r->role == LT_STACK_WAITER && r->delay_ns > *max)
		*max = r->delay_ns;
}

uint64_t tl_latest_waiter_copy(const struct lt_stacktab *st)
{
	uint64_t latest = 0;
	lt_stacktab_each_ref(st, latest_waiter_copy, &latest);
	return latest;
}
