/* The flight recorder's view of a Go program (golang.h, lt_go_watch_*).
 *
 * A Go program's threads sleep in futex waits only on the runtime's own
 * notes and semaphores (an idle M on m.park, sysmon on sched.sysmonnote):
 * an idle Go server has every thread in such a wait and nothing happening,
 * which the events-only stall rule (stall.h) takes for a stall.  What is
 * stuck in a Go program is goroutines, which no event shows.  So for a Go
 * process the stall is decided here, from its goroutines read like a
 * snapshot does (rt_go.c): a goroutine deadlock, or goroutines waiting for
 * a sync.Mutex or RWMutex, seen the same way for the whole window, is a
 * stall (a WaitGroup wait is not: a main goroutine may wait on one for the
 * life of a server); the
 * futex waits of its threads are not. */
#include <stdlib.h>
#include <string.h>

#include "golang.h"
#include "lockmodel.h"
#include "rtthread.h"
#include "symbols.h"
#include "rt_go_int.h"
#include "snapshot_int.h"

#define CHECK_EVERY_NS 1000000000ull

extern const struct lt_rtmodel lt_rt_go;

struct lt_go_watch {
	pid_t pid;
	struct lt_sym *sym;
	int is_go;            /* -1 unknown, 0 no, 1 yes */
	uint64_t last, since; /* last reading; since when SIG has been seen */
	char *sig;            /* the stuck verdict's summary, NULL none */
};

struct lt_go_watch *lt_go_watch_new(pid_t pid)
{
	struct lt_go_watch *w = calloc(1, sizeof(*w));
	if (w) {
		w->pid = pid;
		w->is_go = -1;
	}
	return w;
}

void lt_go_watch_free(struct lt_go_watch *w)
{
	if (!w)
		return;
	if (w->sym)
		lt_sym_close(w->sym);
	free(w->sig);
	free(w);
}

void lt_go_watch_rearm(struct lt_go_watch *w, uint64_t now)
{
	if (w && w->sig)
		w->since = now;
}

/* The first goroutine verdict that says something is stuck, NULL. */
static char *stuck(struct lt_go_watch *w)
{
	struct lt_snapshot snap = { .pid = w->pid };
	struct lt_lm_env env;
	lt_lm_env_live(&env, w->sym, &snap, NULL, NULL);
	lt_rt_go.apply(&env, &snap);
	if (!snap.go) {
		w->is_go = 0;
		return NULL;
	}
	w->is_go = 1;
	lt_go_verdicts(&snap);
	char *r = NULL;
	for (size_t i = 0; i < snap.n_verdicts && !r; i++)
		if (snap.verdicts[i].kind == LT_VERDICT_DEADLOCK)
			r = lts_strdup(snap.verdicts[i].summary);
	for (size_t i = 0; i < snap.n_verdicts && !r; i++)
		if (strstr(snap.verdicts[i].summary, " for sync.Mutex") ||
		    strstr(snap.verdicts[i].summary, " for sync.RWMutex"))
			r = lts_strdup(snap.verdicts[i].summary);
	for (size_t i = 0; i < snap.n_verdicts; i++)
		lt_verdict_clear(&snap.verdicts[i]);
	free(snap.verdicts);
	lt_go_free(snap.go);
	return r;
}

int lt_go_watch_check(struct lt_go_watch *w, uint64_t now, uint64_t window, char *why, size_t len)
{
	if (!w || w->is_go == 0)
		return -1;
	if (w->last && now - w->last < CHECK_EVERY_NS)
		return w->is_go == 1 ? 0 : -1;
	w->last = now;
	if (w->is_go < 0 && !go_exe_is_go(w->pid)) {
		w->is_go = 0; /* not Go, or gone: never asked again */
		return -1;
	}
	if (!w->sym && !(w->sym = lt_sym_open(w->pid, LT_SYM_NO_LINES, NULL))) {
		w->is_go = 0; /* gone */
		return -1;
	}
	char *sig = stuck(w);
	if (w->is_go == 0) {
		lt_sym_close(w->sym);
		w->sym = NULL;
		return -1;
	}
	if (!sig) {
		free(w->sig);
		w->sig = NULL;
		return 0;
	}
	if (!w->sig || strcmp(sig, w->sig)) {
		free(w->sig);
		w->sig = sig;
		w->since = now;
		return 0;
	}
	free(sig);
	if (now - w->since < window)
		return 0;
	snprintf(why, len, "Go process %d: %s (for %.1f s)", (int)w->pid, w->sig, (double)(now - w->since) / 1e9);
	return 1;
}
