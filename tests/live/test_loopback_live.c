/* As root: a loopback TCP ping-pong (tests/workloads/tcp_pingpong.c) in
 * both --calls modes.  On 127.0.0.1 the receiver is woken by the network
 * softirq its peer's send runs inside its own system call, on the
 * interrupt stack; each such wake-up must be credited to the send (trace
 * flag, report wake edges, Perfetto flows), exactly once per send the
 * workload made, and sendmsg/recvmsg must record the bytes their iovecs
 * ask for.  Without root each test says why it skips. */
#include <criterion/criterion.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>
#include "locktrace/calls.h"
#include "lt_test.h"
#include "pf_check.h"
#include "report_int.h"

#define NEED_ROOT() tl_skip_unless_root("needs root: loads BPF programs to record a workload")

#define ROUNDS 150

struct pp_run {
	char raw[128], pt[160];
	char out[64][256];
	int nout;
	uint32_t client, server;
	uint64_t rounds, size;
	struct tl_trace t;
	int futex_wakes[2]; /* client woke server, server woke client, in a futex call */
};

/* Records tcp_pingpong launched by locktrace (calls: "all" or
 * "blocking"; names: with --names), converts it to Perfetto, loads the raw
 * trace. */
static void pp_record_names(struct pp_run *r, const char *calls, int names)
{
	char n[16], conv_out[64][256];
	int nconv;

	memset(r, 0, sizeof(*r));
	tl_tmp_path(r->raw, sizeof(r->raw), "loopback");
	snprintf(r->pt, sizeof(r->pt), "%s.perfetto-trace", r->raw);
	unlink(r->pt); /* left by a failed run of a process with our pid */
	snprintf(n, sizeof(n), "%d", ROUNDS);
	char *rec[] = { LT_BIN, "record", "-o", r->raw, "--no-status", "--calls", (char *)calls, "--",
			WL("tcp_pingpong"), "--no-wait", "-n", n, names ? "--names" : NULL, NULL };
	cr_assert_eq(tl_run_to_end(rec, r->out, &r->nout, NULL, NULL), 0);
	r->client = (uint32_t)tl_truth_val(r->out, r->nout, "thread", "role=client", "tid");
	r->server = (uint32_t)tl_truth_val(r->out, r->nout, "thread", "role=server", "tid");
	r->rounds = tl_truth_val(r->out, r->nout, "done", NULL, "rounds");
	r->size = tl_truth_val(r->out, r->nout, "done", NULL, "size");
	cr_assert_eq(tl_truth_val(r->out, r->nout, "done", NULL, "wakes"), 2 * r->rounds);
	char *conv[] = { LT_BIN, "convert", r->raw, "-o", r->pt, NULL };
	cr_assert_eq(tl_run_to_end(conv, conv_out, &nconv, NULL, NULL), 0);
	cr_assert_eq(tl_load(&r->t, r->raw), 0);
	cr_assert_eq(tl_total_lost(&r->t), 0, "events were lost");
}

static void pp_record(struct pp_run *r, const char *calls)
{
	pp_record_names(r, calls, 0);
}

static void pp_free(struct pp_run *r)
{
	tl_free(&r->t);
	unlink(r->raw);
	unlink(r->pt);
}

/* The call tid was in at event i: the last entry it wrote before i with
 * no return between (NULL: in none it traced). */
static const struct lt_event *call_at(const struct tl_trace *t, size_t i, uint32_t tid)
{
	while (i-- > 0) {
		const struct lt_event *e = &t->ev[i];
		if (e->h.tid != tid)
			continue;
		if (e->h.kind == LT_EV_SYS_EXIT)
			return NULL;
		if (e->h.kind == LT_EV_FUTEX_ENTER || e->h.kind == LT_EV_WAIT_ENTER || e->h.kind == LT_EV_IO_ENTER)
			return e;
	}
	return NULL;
}

/* Is e about thread a or b: its own, or they are the other end of a
 * switch or the waker of a wake-up? */
static int about(const struct lt_event *e, uint32_t a, uint32_t b)
{
	uint32_t o = e->h.kind == LT_EV_SWITCH ? e->sw.next_tid : e->h.kind == LT_EV_WAKING ? e->wake.waker_tid : 0;
	return e->h.tid == a || e->h.tid == b || o == a || o == b;
}

/* On stderr: wake-up i of wakee by waker, what call each of them was in,
 * and the events about them just before and after it. */
static void show_wake(const struct pp_run *r, size_t i)
{
	const struct lt_event *w = &r->t.ev[i];
	char line[512];
	uint32_t waker = w->wake.waker_tid, wakee = w->h.tid;

	lt_format_event(w, line, sizeof(line));
	fprintf(stderr, "%s woke %s, not from a send's softirq:\n  %s\n", waker == r->client ? "client" : "server",
		wakee == r->client ? "client" : "server", line);
	for (int k = 0; k < 2; k++) {
		uint32_t tid = k ? wakee : waker;
		const struct lt_event *c = call_at(&r->t, i, tid);
		if (c)
			lt_format_event(c, line, sizeof(line));
		fprintf(stderr, "  the %s %u was in: %s\n", k ? "wakee" : "waker", tid, c ? line : "no traced call");
	}
	fprintf(stderr, "  events about them around it:\n");
	for (size_t j = i > 24 ? i - 24 : 0; j < r->t.n && j < i + 8; j++) {
		const struct lt_event *e = &r->t.ev[j];
		if (!about(e, waker, wakee))
			continue;
		lt_format_event(e, line, sizeof(line));
		fprintf(stderr, "  %s %s\n", j == i ? "=>" : "  ", line);
	}
}

/* The wake-ups of one thread by the other, by how they came. */
struct wakes {
	int all;
	int softirq; /* flagged softirq-in-call */
	int in_send; /* of those, issued inside one of the waker's send calls */
	int irq;     /* flagged as an interrupt's */
	int futex;   /* from task context, inside a futex call of the waker */
};

/* Counts the wake-ups of wakee by waker, whose send call is send; with
 * show, shows each that is not a send's softirq on stderr. */
static void count_wakes(const struct pp_run *r, uint32_t waker, uint32_t wakee, long send, int show,
			struct wakes *w)
{
	memset(w, 0, sizeof(*w));
	for (size_t i = 0; i < r->t.n; i++) {
		const struct lt_event *e = &r->t.ev[i];
		if (e->h.kind != LT_EV_WAKING || e->h.tid != wakee || e->wake.waker_tid != waker)
			continue;
		const struct lt_event *c = call_at(&r->t, i, waker);
		int softirq = !!(e->h.flags & LT_F_WAKER_SOFTIRQ), in_send = 0;
		w->all++;
		w->softirq += softirq;
		if (softirq)
			w->in_send += in_send = c && c->h.kind == LT_EV_IO_ENTER && c->io.nr == send;
		else if (e->h.flags & LT_F_WAKER_IRQ)
			w->irq++;
		else
			w->futex += c && c->h.kind == LT_EV_FUTEX_ENTER;
		if (show && !in_send)
			show_wake(r, i);
	}
}

/* Every send woke the peer from the softirq it ran itself, inside the
 * send: exactly one such wake-up per send.  The trace may also hold
 * wake-ups between the two that no send made, and must say what they
 * were: a timer of one (as it waits for the peer to sleep) that expires
 * while the other runs is an interrupt's wake-up, the other only the task
 * it interrupted (flagged so, credited to no call).  Nothing else: the
 * workload shares no lock between them (its client waits for the server's
 * exit before its own, so that glibc's arena lock at thread exit cannot
 * pass between them: the cause of the futex wake-ups 581f4cf allowed), so
 * no futex wake-up, no wake-up from task context, none from a softirq
 * outside a send.  *futex: the futex wake-ups (0). */
static void check_wakes(const struct pp_run *r, uint32_t waker, uint32_t wakee, long send, int *futex)
{
	struct wakes w;
	const char *who = waker == r->client ? "client woke server" : "server woke client";

	count_wakes(r, waker, wakee, send, 0, &w);
	if (w.softirq != (int)r->rounds || w.in_send != w.softirq || w.all != w.softirq + w.irq)
		count_wakes(r, waker, wakee, send, 1, &w);
	cr_assert_eq(w.softirq, (int)r->rounds, "%s %d times in its softirq (%d in all, %d as interrupts), "
		     "it sent %d times (see above; trace %s)", who, w.softirq, w.all, w.irq, (int)r->rounds,
		     r->raw);
	cr_assert_eq(w.in_send, w.softirq, "%s %d times in its softirq outside its %s calls (see above; "
		     "trace %s)", who, w.softirq - w.in_send, lt_call_name(send), r->raw);
	cr_assert_eq(w.all, w.softirq + w.irq, "%s %d times neither in its softirq nor as an interrupt "
		     "(%d of them in a futex call; see above; trace %s)", who, w.all - w.softirq - w.irq,
		     w.futex, r->raw);
	*futex = w.futex;
}

static void check_trace(struct pp_run *r)
{
	check_wakes(r, r->client, r->server, LT_NR_SENDTO, &r->futex_wakes[0]);
	check_wakes(r, r->server, r->client, LT_NR_SENDMSG, &r->futex_wakes[1]);
}

/* The message calls record the bytes of their two iovecs, not the flags
 * register: every recvmsg and sendmsg of the server asks for size bytes.
 * Its lines to the test go to its stdout, a pipe: those writes are
 * recorded too, flagged as a pipe's. */
static void check_msg_bytes(const struct pp_run *r, int blocking)
{
	int sends = 0, recvs = 0;
	for (size_t i = 0; i < r->t.n; i++) {
		const struct lt_event *e = &r->t.ev[i];
		if (e->h.kind != LT_EV_IO_ENTER || e->h.tid != r->server)
			continue;
		if (e->h.flags & LT_F_IO_PIPE) {
			cr_assert(e->io.nr == 1 && e->io.fd == 1, "%s of fd %d flagged a pipe's: only its stdout is",
				  lt_call_name(e->io.nr), e->io.fd);
			continue;
		}
		cr_assert_eq(e->io.count, r->size, "%s asked for %llu bytes, not %llu", lt_call_name(e->io.nr),
			     (unsigned long long)e->io.count, (unsigned long long)r->size);
		sends += e->io.nr == LT_NR_SENDMSG;
		recvs += e->io.nr == LT_NR_RECVMSG;
	}
	/* all: every call; blocking: each sendmsg at its wake-up, each
	 * recvmsg at its sleep (the workload waits for both) */
	cr_assert_eq(sends, (int)r->rounds);
	cr_assert_eq(recvs, (int)r->rounds);
	(void)blocking;
}

/* --calls blocking: each waking send is recorded, at its wake-up. */
static void check_sends_at_wake(const struct pp_run *r)
{
	int to = 0, msg = 0;
	for (size_t i = 0; i < r->t.n; i++) {
		const struct lt_event *e = &r->t.ev[i];
		if (e->h.kind != LT_EV_IO_ENTER || !(e->h.flags & LT_F_AT_WAKE))
			continue;
		to += e->h.tid == r->client && e->io.nr == LT_NR_SENDTO;
		msg += e->h.tid == r->server && e->io.nr == LT_NR_SENDMSG;
	}
	cr_assert_eq(to, (int)r->rounds, "%d sendto recorded at a wake-up, %d sent", to, (int)r->rounds);
	cr_assert_eq(msg, (int)r->rounds, "%d sendmsg recorded at a wake-up, %d sent", msg,
		     (int)r->rounds);
}

static const struct rp_json *edge(const struct rp_json *j, uint32_t waker, uint32_t wakee)
{
	const struct rp_json *es = rp_json_get(j, "wake_edges");
	for (size_t i = 0; es && i < es->n; i++)
		if (rp_json_num(rp_json_get(&es->items[i], "waker"), 0) == waker &&
		    rp_json_num(rp_json_get(&es->items[i], "wakee"), 0) == wakee)
			return &es->items[i];
	return NULL;
}

/* The report's wake edges: one via_io per send, nothing else (the
 * interrupts' wake-ups are the interrupt's edge). */
static void check_report(const struct pp_run *r)
{
	struct rp_json *j = tl_report_json(r->raw);
	const uint32_t pair[2][2] = { { r->client, r->server }, { r->server, r->client } };
	for (int k = 0; k < 2; k++) {
		const struct rp_json *e = edge(j, pair[k][0], pair[k][1]);
		cr_assert_not_null(e, "no wake edge %u -> %u", pair[k][0], pair[k][1]);
		cr_assert_eq(rp_json_num(rp_json_get(e, "via_io"), -1), (double)r->rounds,
			     "%u -> %u: via_io %g, count %g, other %g", pair[k][0], pair[k][1],
			     rp_json_num(rp_json_get(e, "via_io"), -1), rp_json_num(rp_json_get(e, "count"), -1),
			     rp_json_num(rp_json_get(e, "other"), -1));
		cr_assert_eq(rp_json_num(rp_json_get(e, "via_futex"), -1), 0.0);
		cr_assert_eq(rp_json_num(rp_json_get(e, "count"), -1), (double)r->rounds);
		cr_assert_eq(rp_json_get(e, "from_interrupt")->type, RPJ_FALSE);
	}
	rp_json_free(j);
}

/* Flows from from's sends (slices named send) into to's receives. */
static int flows(const struct pfc *c, uint32_t from, const char *send, uint32_t to, const char *recv)
{
	int n = 0;
	for (int i = 0;; i++) {
		const struct pfc_slice *s = pfc_slice(c, (int32_t)from, send, i);
		if (!s)
			break;
		for (int k = 0;; k++) {
			const struct pfc_slice *d = pfc_slice(c, (int32_t)to, recv, k);
			if (!d)
				break;
			n += pfc_flow(c, s, d);
		}
	}
	return n;
}

static void check_perfetto(const struct pp_run *r)
{
	struct pfc c;
	if (pfc_load(&c, r->pt)) {
		pfc_print_errors(&c);
		cr_assert_fail("%s: %d problems in the Perfetto trace", r->pt, c.nerr);
	}
	int cs = flows(&c, r->client, "sendto", r->server, "recvmsg");
	int sc = flows(&c, r->server, "sendmsg", r->client, "recvfrom");
	cr_assert_eq(cs, (int)r->rounds, "%d flows from the client's sendto to the server's recvmsg", cs);
	cr_assert_eq(sc, (int)r->rounds, "%d flows from the server's sendmsg to the client's recvfrom", sc);
	const struct pfc_slice *m = pfc_slice(&c, (int32_t)r->server, "sendmsg", 0);
	cr_assert(m && pfc_ann(m, "bytes") && pfc_ann(m, "bytes")->u == r->size,
		  "the sendmsg slice does not say it sends %llu bytes", (unsigned long long)r->size);
	pfc_free(&c);
}

/* Records the ping-pong with --calls CALLS ("all" or "blocking") and
 * checks the trace, the report and the Perfetto file; with "blocking",
 * that the sends stand at the wake-ups too. */
static void credited_to_the_send_calls(const char *calls)
{
	NEED_ROOT();
	int blocking = !strcmp(calls, "blocking");
	struct pp_run r;
	pp_record(&r, calls);
	check_trace(&r);
	if (blocking)
		check_sends_at_wake(&r);
	check_msg_bytes(&r, blocking);
	check_report(&r);
	check_perfetto(&r);
	pp_free(&r);
}

Test(loopback_live, tcp_wakeups_are_credited_to_the_send_calls_all, .timeout = 60)
{
	credited_to_the_send_calls("all");
}

Test(loopback_live, tcp_wakeups_are_credited_to_the_send_calls_blocking, .timeout = 60)
{
	credited_to_the_send_calls("blocking");
}

/* Runs argv and returns all it wrote on stdout (malloc'd, NUL-terminated). */
static char *output_of(char *const argv[], size_t *len)
{
	char *cmd = NULL, *out = NULL;
	size_t clen = 0;
	FILE *c = open_memstream(&cmd, &clen);
	for (int i = 0; argv[i]; i++)
		fprintf(c, "%s'%s'", i ? " " : "", argv[i]);
	fclose(c);
	FILE *p = popen(cmd, "r");
	cr_assert_not_null(p);
	FILE *o = open_memstream(&out, len);
	char buf[4096];
	size_t n;
	while ((n = fread(buf, 1, sizeof(buf), p)) > 0)
		fwrite(buf, 1, n, o);
	fclose(o);
	cr_assert_eq(pclose(p), 0, "%s failed", cmd);
	free(cmd);
	return out;
}

static void assert_no_controls(const char *what, const char *s, size_t len)
{
	for (size_t i = 0; i < len; i++)
		cr_assert((unsigned char)s[i] >= 0x20 || s[i] == '\n', "%s: byte 0x%02x at %zu", what,
			  (unsigned char)s[i], i);
}

/* Threads named with an escape sequence, a newline and a byte that is not
 * UTF-8: dump and the text report carry no control byte and keep one line
 * per event; the JSON report keeps the names (U+FFFD for the bad byte). */
Test(loopback_live, thread_names_with_control_bytes_are_escaped, .timeout = 60)
{
	NEED_ROOT();
	struct pp_run r;
	pp_record_names(&r, "all", 1);
	size_t len;
	char *dump[] = { LT_BIN, "dump", r.raw, NULL };
	char *d = output_of(dump, &len);
	assert_no_controls("dump", d, len);
	size_t lines = 0;
	for (char *l = d; *l; l = strchr(l, '\n') + 1) {
		cr_assert(l[0] == '#' || (l[0] >= '0' && l[0] <= '9'), "a line that is neither an event nor "
			  "a comment: %.60s", l);
		lines += l[0] != '#';
	}
	cr_assert_eq(lines, r.t.n, "%zu event lines for %zu events", lines, r.t.n);
	cr_assert(strstr(d, "cli\\x1b[2J\\x0a\xef\xbf\xbd"), "the client's name, escaped");
	free(d);
	char *rep[] = { LT_BIN, "report", r.raw, NULL };
	d = output_of(rep, &len);
	assert_no_controls("report", d, len);
	cr_assert(strstr(d, "srv\\x1b]0;x"), "the server's name, escaped (cut to its column)");
	free(d);
	struct rp_json *j = tl_report_json(r.raw);
	const struct rp_json *th = rp_json_get(j, "threads");
	int found = 0;
	for (size_t i = 0; th && i < th->n; i++)
		found += !strcmp(rp_json_str(rp_json_get(&th->items[i], "name")), "cli\033[2J\n\xef\xbf\xbd");
	cr_assert_eq(found, 1);
	rp_json_free(j);
	pp_free(&r);
}
