/* Freeing what a snapshot owns: threads (frames, fds, runtime names, the
 * wait-for edges), verdicts.  Apart from snapshot_util.c, which the
 * wait-for code itself uses, so that the two do not depend on each other. */
#include <stdlib.h>
#include <string.h>

#include "snapshot.h"
#include "waitfor.h"
#include "snapshot_int.h"

void lt_frame_clear(struct lt_frame *f)
{
	free(f->func);
	free(f->module);
	free(f->build_id);
	free(f->file);
	memset(f, 0, sizeof(*f));
}

static void fd_clear(struct lt_fd *f)
{
	free(f->target);
	free(f->desc);
	f->target = f->desc = NULL;
}

void lt_thread_clear_rt(struct lt_thread *t)
{
	for (size_t i = 0; i < t->n_rt_frames; i++) {
		free(t->rt_frames[i].func);
		free(t->rt_frames[i].file);
	}
	free(t->rt_frames);
	free(t->rt_name);
	free(t->rt_end);
	t->rt_frames = NULL;
	t->n_rt_frames = 0;
	t->rt_name = t->rt_end = NULL;
	t->rt_lang = NULL;
	t->rt_wait_ran = false;
}

void lt_thread_clear(struct lt_thread *t)
{
	free(t->futex.lock_sym);
	free(t->futex.lock_name);
	free(t->futex.lock_state);
	free(t->futex.owner_how);
	for (size_t i = 0; i < t->fdw.n_fds; i++)
		fd_clear(&t->fdw.fds[i]);
	free(t->fdw.fds);
	fd_clear(&t->fdw.io);
	free(t->detail);
	lt_strlist_free(&t->kstack);
	for (size_t i = 0; i < t->n_frames; i++)
		lt_frame_clear(&t->frames[i]);
	free(t->frames);
	free(t->ustack_end);
	lt_strlist_free(&t->notes);
	lt_thread_clear_rt(t);
	lt_waitfor_free(t->wf);
	free(t->app_via);
	free(t->app_title);
	memset(t, 0, sizeof(*t));
}

void lt_verdict_clear(struct lt_verdict *v)
{
	free(v->summary);
	lt_strlist_free(&v->evidence);
	free(v->tids);
	free(v->locks);
	free(v->behind);
	memset(v, 0, sizeof(*v));
}
