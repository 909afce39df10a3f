/* Internal: the application-wait verdicts (src/appwait.c), called by
 * lt_snapshot_diagnose (src/verdicts.c). */
#ifndef LOCKTRACE_APPWAIT_INT_H
#define LOCKTRACE_APPWAIT_INT_H

#include <stdbool.h>
#include "snapshot.h"

/* An asleep thread in an application's lock wait (appwait.h). */
bool lts_appwait_lock(const struct lt_thread *t);
/* One lock-wait verdict per application server whose processes wait for
 * its locks.  Before the idle rule: such a wait is never idle. */
void lts_appwait_diagnose(struct lt_snapshot *s);
/* After it: what the application's idle waits are, on the idle verdict. */
void lts_appwait_idle_notes(struct lt_snapshot *s);

/* The thread's "app_wait" member of the snapshot JSON (docs/snapshot.md),
 * written, and read back (J: that member, may be NULL; strings the
 * snapshot owns go to s->strings). */
struct jw;
struct rp_json;
void lts_appwait_json(struct jw *w, const struct lt_thread *t);
void lts_appwait_from_json(struct lt_thread *t, struct lt_snapshot *s, const struct rp_json *j);

#endif
