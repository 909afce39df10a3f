// SPDX-License-Identifier: MIT
/* What `locktrace snapshot` shows (src/trace/snapshot.h): live
 * snapshots of one process or several diagnosed together, and the
 * snapshots a recording stored.  Results on stdout, errors said on stderr
 * (lt_err) as the command's. */
#include <errno.h>
#include <fcntl.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "cli.h"
#include "snapshot.h"
#include "target.h"
#include "locktrace/taskregs.h"
#include "locktrace/tracefile.h"
#include "jsonw.h"
#include "waitfor.h"

static int flush_out(void)
{
	if (fflush(stdout) != 0 || ferror(stdout)) {
		lt_err("writing output: %s", strerror(errno));
		return 1;
	}
	return 0;
}

/* ---- --from TRACE ---- */

struct stored {
	char *json;
	size_t len;
	char occasion[16]; /* as stored, "" if not */
};

struct stored_set {
	struct stored *v;
	size_t n;
	struct lt_header hdr;
	int cut, damaged;
	int headerless; /* its header was damaged: hdr is empty */
};

/* The "occasion" of a stored snapshot, cheaply (the text is large). */
static void occasion_of(struct stored *st)
{
	const char key[] = "\"occasion\":\"";
	size_t head = st->len < 512 ? st->len : 512;
	const char *p = memmem(st->json, head, key, sizeof(key) - 1);
	if (p)
		sscanf(p + sizeof(key) - 1, "%15[a-z0-9]", st->occasion);
}

static int read_stored(const char *path, struct stored_set *set)
{
	struct lt_reader rd;
	struct lt_item it;
	char err[512];

	memset(set, 0, sizeof(*set));
	/* snapshots are whole without the header: read them even then */
	if (lt_reader_open_flags(&rd, path, LT_READ_SECTIONS_IF_NO_HEADER, err, sizeof(err))) {
		lt_err("%s", err);
		return -1;
	}
	while (lt_reader_next(&rd, &it) > 0) {
		if (it.type != LT_ITEM_SECTION || it.sec_type != LT_CHUNK_SNAPSHOT)
			continue;
		struct stored *nv = realloc(set->v, (set->n + 1) * sizeof(*nv));
		char *copy = malloc(it.len + 1);
		if (nv)
			set->v = nv;
		if (!nv || !copy) {
			free(copy);
			lt_err("out of memory reading %s", path);
			break;
		}
		memcpy(copy, it.data, it.len);
		copy[it.len] = 0;
		set->v[set->n] = (struct stored){ copy, it.len, "" };
		occasion_of(&set->v[set->n++]);
	}
	set->cut = !rd.clean_end || rd.stop_reason[0] || rd.nskips;
	if (!rd.clean_end || rd.stop_reason[0])
		lt_warn("%s is cut short (%s); its snapshots before that are printed", path,
			rd.stop_reason[0] ? rd.stop_reason : "no end marker");
	set->damaged = rd.nskips > 0;
	set->headerless = rd.headerless;
	if (rd.nskips) {
		char msg[4096];
		snprintf(msg, sizeof(msg), "%s is damaged; the snapshots that could be read are printed", path);
		lt_trace_damage_append(&rd, msg, sizeof(msg));
		lt_warn("%s", msg);
	}
	set->hdr = rd.hdr;
	memset(&rd.hdr, 0, sizeof(rd.hdr)); /* the set owns its arrays now */
	lt_reader_close(&rd);
	return 0;
}

static void free_stored(struct stored_set *set)
{
	for (size_t i = 0; i < set->n; i++)
		free(set->v[i].json);
	free(set->v);
	lt_header_free(&set->hdr);
}

static const char *occasion_words(const char *o)
{
	static const char *const words[][2] = {
		{ "start", "at the start of the recording" },
		{ "end", "at the end of the recording" },
		{ "stall", "when the stall was detected" },
		{ "sigusr1", "on SIGUSR1" },
		{ "dump", "at the flight dump" },
	};
	for (size_t i = 0; i < sizeof(words) / sizeof(words[0]); i++)
		if (!strcmp(o, words[i][0]))
			return words[i][1];
	return "at a trigger";
}

static const char *occasion_at(const struct stored_set *set, size_t i)
{
	return lt_snapshot_occasion(set->v[i].occasion[0] ? set->v[i].occasion : NULL, i, set->n,
				    !!(set->hdr.flags & LT_HDR_FLIGHT));
}

static int print_stored_text(const char *path, const struct stored_set *set)
{
	int bad = 0;

	for (size_t i = 0; i < set->n; i++) {
		struct lt_snapshot *s;
		char err[200];
		const char *o = occasion_at(set, i);
		printf("%s== stored snapshot %zu of %zu in %s: %s", i ? "\n" : "", i + 1, set->n, path,
		       occasion_words(o));
		if (lt_snapshot_from_json(set->v[i].json, set->v[i].len, &s, err, sizeof(err))) {
			printf(" ==\n");
			lt_err("stored snapshot %zu of %s cannot be read: %s", i + 1, path, err);
			bad = 1;
			continue;
		}
		if (!(set->hdr.flags & LT_HDR_FLIGHT) && !set->headerless && s->taken_monotonic_ns > 0)
			printf(", %.1f s after it began",
			       (double)((int64_t)s->taken_monotonic_ns - (int64_t)set->hdr.clock_monotonic) / 1e9);
		printf(" ==\n");
		lt_snapshot_print_text(stdout, s);
		lt_snapshot_free(s);
	}
	return bad;
}

/* The stored snapshots as they are in the trace, each with its occasion;
 * 0 or a write error (a negative errno). */
static int print_stored_json(const char *path, const struct stored_set *set)
{
	struct jw w;
	jw_init(&w, stdout, JW_COMPACT);
	jw_object(&w);
	jw_kstr(&w, "schema", "locktrace.stored-snapshots/1");
	jw_kstr(&w, "trace", path);
	jw_karray(&w, "snapshots");
	jw_lines(&w, 0, 0);
	for (size_t i = 0; i < set->n; i++) {
		jw_object(&w);
		jw_kstr(&w, "occasion", occasion_at(set, i));
		jw_key(&w, "snapshot");
		jw_raw(&w, set->v[i].json, set->v[i].len);
		jw_end(&w);
	}
	jw_end(&w);
	jw_end(&w);
	return jw_finish(&w);
}

int lt_snapshot_show_stored(const char *path, bool json)
{
	struct stored_set set;

	if (read_stored(path, &set))
		return 1;
	if (!set.n) {
		lt_err("%s holds no snapshot (recorded with --no-snapshot, or cut short before the "
		       "first%s): nothing to print", path, set.damaged ? ", or in the damaged bytes" : "");
		free_stored(&set);
		return 1;
	}
	int bad = 0;
	int werr = json ? print_stored_json(path, &set) : 0;
	if (werr) {
		lt_err("writing output: %s", strerror(-werr));
		bad = 1;
	} else if (!json) {
		bad = print_stored_text(path, &set);
	}
	int rc = bad ? 1 : set.cut ? 3 : 0;
	free_stored(&set);
	return flush_out() ? 1 : rc;
}

/* ---- -p PID ---- */

/* The uid that owns process pid (from /proc/PID/status), -1 unknown. */
static long owner_uid(pid_t pid)
{
	char path[64], line[256];
	long uid = -1;
	snprintf(path, sizeof(path), "/proc/%d/status", (int)pid);
	FILE *f = fopen(path, "r");
	if (!f)
		return -1;
	while (fgets(line, sizeof(line), f))
		if (!strncmp(line, "Uid:", 4))
			uid = strtol(line + 4, NULL, 10);
	fclose(f);
	return uid;
}

/* Before anything is printed: may we read what pid's threads do?  Its
 * syscall file needs the right to trace it.  0, or 1 with the message
 * printed (nothing else is). */
/* Set while taking a process a wait was followed into: its failures are
 * the follow's notes, not errors of the command. */
static int follow_quiet;

static int denied(pid_t pid)
{
	char path[64], buf[64];
	snprintf(path, sizeof(path), "/proc/%d/syscall", (int)pid);
	int fd = open(path, O_RDONLY | O_CLOEXEC);
	ssize_t n = fd < 0 ? -1 : read(fd, buf, sizeof(buf));
	int e = errno;
	if (fd >= 0)
		close(fd);
	if (n >= 0 || (e != EACCES && e != EPERM))
		return 0; /* readable, or gone: lt_snapshot_take says which */
	if (follow_quiet) /* a process followed: the follow's note says it */
		return 1;
	if (geteuid() == 0 || owner_uid(pid) == (long)geteuid())
		lt_err("not allowed to inspect process %d (owned by uid %ld; locktrace runs as uid %ld): the "
		       "kernel refuses to read its /proc/%d/syscall (%s) even so: a process that is not "
		       "dumpable (setuid, or prctl PR_SET_DUMPABLE 0), in another user namespace, or kept "
		       "out by a security module (Yama, lockdown)", (int)pid, owner_uid(pid), (long)geteuid(),
		       (int)pid, strerror(e));
	else
		lt_err("not allowed to inspect process %d (owned by uid %ld; locktrace runs as uid %ld): run "
		       "it as root, or as the process's owner", (int)pid, owner_uid(pid), (long)geteuid());
	return 1;
}

/* lt_snapshot_take's failures, said plainly.  0 if it took one. */
static int take(pid_t pid, const struct lt_snapshot_opts *o, struct lt_snapshot **s)
{
	int r = lt_snapshot_take(pid, o, s);
	if (r && follow_quiet)
		return 1;
	switch (r) {
	case 0:
		return 0;
	case LT_SNAP_ENOPROC: {
		pid_t parent = lt_proc_zombie_of(pid);
		if (parent)
			lt_err("process %d has exited: a zombie its parent %d has not reaped (wait4); what "
			       "the parent waits for instead: locktrace snapshot -p %d", (int)pid, (int)parent,
			       (int)parent);
		else
			lt_err("no process %d", (int)pid);
		return 1;
	}
	case LT_SNAP_EKTHREAD:
		lt_err("%d is a kernel thread", (int)pid);
		return 1;
	case -EACCES:
	case -EPERM:
		lt_err("not allowed to inspect process %d (%s): run as root or as its owner", (int)pid,
		       strerror(-r));
		return 1;
	default:
		lt_err("cannot snapshot process %d: %s", (int)pid, lt_snapshot_strerror(r));
		return 1;
	}
}

/* A snapshot of pid, with the task iterator's registers as root: they
 * unwind past libc's wrappers and their fs bases map pthread_t handles to
 * threads; without them the snapshot falls back to /proc (said in its
 * notes).  The same BPF object's task-file iterator reads socket timeouts
 * in the snapshot (one load).  0, or 1 after saying why not. */
static int take_live(pid_t pid, struct lt_snapshot_opts o, struct lt_snapshot **s)
{
	struct lt_tid_regs *regs = NULL;
	size_t nregs = 0;
	pid_t tgid;
	char rerr[256];

	int found = lt_target_resolve(pid, &tgid, rerr, sizeof(rerr)) == 0;
	if (found && denied(tgid))
		return 1;
	if (geteuid() == 0 && found && lt_taskiter_open(tgid, &o.iter, rerr, sizeof(rerr)) == 0 &&
	    lt_taskiter_regs(o.iter, &regs, &nregs, rerr, sizeof(rerr)) == 0) {
		o.regs = regs;
		o.n_regs = nregs;
	}
	int r = take(pid, &o, s);
	free(regs);
	lt_taskiter_close(o.iter);
	return r;
}

/* A snapshot without a single readable thread is no answer: 1 after
 * saying so (whose: "process 12's", owner: "its"), else 0. */
static int blind(const struct lt_snapshot *s, const char *whose, const char *owner)
{
	/* (an UNKNOWN naming threads is an answer: they wait in calls whose
	 * other end is not followed) */
	if (s->n_verdicts != 1 || s->verdicts[0].kind != LT_VERDICT_UNKNOWN || s->verdicts[0].n_tids)
		return 0;
	lt_err("cannot read the system calls of %s threads: run as root or as %s owner", whose, owner);
	return 1;
}

static int snapshot_multi(struct lt_snapshot **snaps, size_t got, const struct lt_snapshot_opts *o,
			  bool json, struct lt_strlist *notes);

static int follow_take(pid_t pid, void *arg, struct lt_snapshot **out)
{
	follow_quiet = 1;
	int r = take_live(pid, *(const struct lt_snapshot_opts *)arg, out);
	follow_quiet = 0;
	return r;
}

static int snapshot_live(pid_t pid, const struct lt_snapshot_opts *o, bool json)
{
	struct lt_snapshot *s = NULL;
	if (take_live(pid, *o, &s))
		return 1;
	/* into the processes its blocked waits lead to (waitfor.h) */
	struct lt_snapshot **more = NULL;
	size_t nmore = 0;
	struct lt_strlist fnotes = { 0 };
	if (lt_snapshot_follow(s, NULL, follow_take, (void *)o, &more, &nmore, &fnotes) == 0 && nmore > 1)
		return snapshot_multi(more, nmore, o, json, &fnotes);
	free(more);
	for (size_t i = 0; i < fnotes.n; i++)
		lt_strlist_add(&s->notes, "%s", fnotes.v[i]);
	lt_strlist_free(&fnotes);
	char whose[32];
	snprintf(whose, sizeof(whose), "process %d's", (int)pid);
	int rc = blind(s, whose, "its"); /* said first and alone */
	if (!rc && json)
		lt_snapshot_print_json(stdout, s); /* a write error: flush_out says it */
	else if (!rc)
		lt_snapshot_print_text(stdout, s);
	lt_snapshot_free(s);
	return rc ? rc : flush_out();
}

/* Several processes: every snapshot, then one diagnosis of them all. */
static int snapshot_many(const pid_t *pids, size_t n, const struct lt_snapshot_opts *o, bool json)
{
	struct lt_snapshot **snaps = calloc(n, sizeof(*snaps));
	size_t got = 0;
	if (!snaps) {
		lt_err("out of memory");
		return 1;
	}
	for (size_t i = 0; i < n; i++) {
		if (take_live(pids[i], *o, &snaps[got])) {
			for (size_t k = 0; k < got; k++)
				lt_snapshot_free(snaps[k]);
			free(snaps);
			return 1;
		}
		bool dup = false; /* a tid given for its process, or twice */
		for (size_t k = 0; k < got; k++)
			dup |= snaps[k]->pid == snaps[got]->pid;
		if (dup)
			lt_snapshot_free(snaps[got]);
		else
			got++;
	}
	return snapshot_multi(snaps, got, o, json, NULL);
}

/* SNAPS (malloc'd, owned) diagnosed together; NOTES (NULL or owned: the
 * processes followed) go first among the view's notes. */
static int snapshot_multi(struct lt_snapshot **snaps, size_t got, const struct lt_snapshot_opts *o,
			  bool json, struct lt_strlist *notes)
{
	struct lt_multi_snapshot *m = NULL;
	if (lt_multi_build(snaps, got, &o->verdict, &m) < 0 || lt_multi_confirm(m) < 0) {
		if (notes)
			lt_strlist_free(notes);
		lt_err("out of memory diagnosing %zu processes", got);
		if (!m) {
			for (size_t k = 0; k < got; k++)
				lt_snapshot_free(snaps[k]);
			free(snaps);
		}
		lt_multi_free(m);
		return 1;
	}
	if (notes) {
		for (size_t i = 0; i < notes->n; i++)
			lt_strlist_add(&m->view.notes, "%s", notes->v[i]);
		lt_strlist_free(notes);
	}
	int rc = blind(&m->view, "these processes'", "their");
	if (!rc && json)
		lt_multi_print_json(stdout, m); /* a write error: flush_out says it */
	else if (!rc)
		lt_multi_print_text(stdout, m);
	lt_multi_free(m);
	return rc ? rc : flush_out();
}

int lt_snapshot_show(const pid_t *pids, size_t n, const struct lt_snapshot_opts *o, bool json)
{
	return n > 1 ? snapshot_many(pids, n, o, json) : snapshot_live(pids[0], o, json);
}
