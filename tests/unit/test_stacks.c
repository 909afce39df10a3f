// SPDX-License-Identifier: MIT
/* The STACKS section codec (src/trace/stacks.c): stacks and references
 * written and read back, a later reference winning, repeated stack ids,
 * unknown keys skipped, and damaged sections refused without a crash. */
#include <criterion/criterion.h>
#include <stdlib.h>
#include <string.h>
#include "stacks.h"

static struct lt_sframe frames_a[] = {
	{ .pc = 0x7f0000001234, .func = "__lll_lock_wait", .func_off = 0x2b, .module = "libc.so.6",
	  .file = "futex-internal.h", .line = 146 },
	{ .pc = 0x555500001100, .func = "site_alpha", .func_off = 0x59, .module = "stack_sites",
	  .file = "stack_sites.c", .line = 45 },
	{ .pc = 0x7f0000009999 }, /* nothing known but the address */
};

static void encode_two(struct lt_stackbuf *b)
{
	struct lt_stack a = { .id = 1, .tgid = 4242, .nframes = 3, .frames = frames_a };
	struct lt_stack c = { .id = 7, .tgid = -1, .nframes = 0, .end = "[unwind stopped: x]" };
	lt_stacks_put_stack(b, &a);
	lt_stacks_put_stack(b, &c);
	struct lt_stack_ref r1 = { .tid = 4243, .ts = 1000000123, .stack_id = 1,
				   .role = LT_STACK_WAITER, .delay_ns = 1500000 };
	struct lt_stack_ref r2 = { .tid = 4244, .ts = 1000000123, .stack_id = 7,
				   .role = LT_STACK_WAKER };
	lt_stacks_put_ref(b, &r1);
	lt_stacks_put_ref(b, &r2);
	cr_assert(!b->oom);
}

Test(stacks, round_trip)
{
	struct lt_stackbuf b = { 0 };
	struct lt_stacktab t = { 0 };
	encode_two(&b);
	cr_assert_eq(lt_stacktab_add(&t, b.p, b.len), 0);
	cr_assert_eq(t.nstacks, 2);
	cr_assert_eq(t.nrefs, 2);
	const struct lt_stack *s = lt_stacktab_find(&t, 4243, 1000000123, LT_STACK_WAITER);
	cr_assert(s);
	cr_assert_eq(s->id, 1);
	cr_assert_eq(s->tgid, 4242);
	cr_assert_eq(s->nframes, 3);
	for (int i = 0; i < 3; i++) {
		const struct lt_sframe *f = &s->frames[i], *w = &frames_a[i];
		cr_assert_eq(f->pc, w->pc);
		cr_assert_eq(f->func_off, w->func_off);
		cr_assert_eq(f->line, w->line);
		cr_assert(w->func ? f->func && !strcmp(f->func, w->func) : !f->func);
		cr_assert(w->module ? f->module && !strcmp(f->module, w->module) : !f->module);
		cr_assert(w->file ? f->file && !strcmp(f->file, w->file) : !f->file);
	}
	cr_assert_null(s->end);
	/* the same (tid, ts) with another role, another tid, another ts */
	cr_assert_null(lt_stacktab_find(&t, 4243, 1000000123, LT_STACK_WAKER));
	cr_assert_null(lt_stacktab_find(&t, 4243, 1000000124, LT_STACK_WAITER));
	const struct lt_stack *w = lt_stacktab_find(&t, 4244, 1000000123, LT_STACK_WAKER);
	cr_assert(w);
	cr_assert_eq(w->id, 7);
	cr_assert_eq(w->tgid, -1);
	cr_assert_str_eq(w->end, "[unwind stopped: x]");
	char buf[256];
	cr_assert_str_eq(lt_sframe_text(&s->frames[1], buf, sizeof(buf)),
			 "site_alpha+0x59 (stack_sites.c:45) [stack_sites]");
	cr_assert_str_eq(lt_sframe_text(&s->frames[2], buf, sizeof(buf)), "0x7f0000009999 [?]");
	lt_stacktab_free(&t);
	lt_stackbuf_free(&b);
}

/* A flight dump repeats stacks a reader may have seen; a later reference
 * for the same wait wins. */
Test(stacks, repeated_ids_and_later_reference)
{
	struct lt_stackbuf b = { 0 };
	struct lt_stacktab t = { 0 };
	encode_two(&b);
	cr_assert_eq(lt_stacktab_add(&t, b.p, b.len), 0);
	cr_assert_eq(lt_stacktab_add(&t, b.p, b.len), 0);
	cr_assert_eq(t.nstacks, 2);
	cr_assert_eq(t.nrefs, 2);
	struct lt_stackbuf b2 = { 0 };
	struct lt_stack_ref r = { .tid = 4243, .ts = 1000000123, .stack_id = 7,
				  .role = LT_STACK_WAITER };
	lt_stacks_put_ref(&b2, &r);
	cr_assert_eq(lt_stacktab_add(&t, b2.p, b2.len), 0);
	cr_assert_eq(lt_stacktab_find(&t, 4243, 1000000123, LT_STACK_WAITER)->id, 7);
	cr_assert_eq(t.nrefs, 2);
	lt_stacktab_free(&t);
	lt_stackbuf_free(&b);
	lt_stackbuf_free(&b2);
}

/* A reference may name the runtime lock its wait is for (a Java lock,
 * whose waiters park on futexes of their own): its address and name come
 * back, the name one copy for all the references that have it. */
Test(stacks, runtime_lock_of_a_reference_round_trips)
{
	struct lt_stackbuf b = { 0 };
	struct lt_stacktab t = { 0 };
	static const char name[] = "Java monitor JavaSites$Mon@0x71a3b2e40";
	char other[sizeof(name)];
	memcpy(other, name, sizeof(name)); /* the same name at another address */
	encode_two(&b);
	struct lt_stack_ref r1 = { .tid = 5, .ts = 10, .stack_id = 1, .role = LT_STACK_WAITER,
				   .rtlock = 0x71a3b2e40, .rtlock_name = name };
	struct lt_stack_ref r2 = { .tid = 6, .ts = 10, .stack_id = 1, .role = LT_STACK_WAITER,
				   .rtlock = 0x71a3b2e40, .rtlock_name = other };
	lt_stacks_put_ref(&b, &r1);
	lt_stacks_put_ref(&b, &r2);
	cr_assert_eq(lt_stacktab_add(&t, b.p, b.len), 0);
	cr_assert_eq(t.nrefs, 4);
	const struct lt_stack_ref *a = lt_stacktab_find_ref(&t, 5, 10, LT_STACK_WAITER);
	const struct lt_stack_ref *c = lt_stacktab_find_ref(&t, 6, 10, LT_STACK_WAITER);
	cr_assert(a && c);
	cr_assert_eq(a->rtlock, 0x71a3b2e40);
	cr_assert_str_eq(a->rtlock_name, name);
	cr_assert_eq(a->rtlock_name, c->rtlock_name, "two copies of one name");
	cr_assert_eq(t.names.n, 1);
	/* a reference without one has none */
	const struct lt_stack_ref *n = lt_stacktab_find_ref(&t, 4243, 1000000123, LT_STACK_WAITER);
	cr_assert(n && !n->rtlock_name && !n->rtlock);
	lt_stacktab_free(&t);
	lt_stackbuf_free(&b);
}

Test(stacks, unknown_keys_are_skipped)
{
	struct lt_stackbuf b = { 0 };
	struct lt_stacktab t = { 0 };
	/* key 9 at the top level: 3 bytes, then the usual content */
	const uint8_t extra[] = { 9, 3, 'a', 'b', 'c' };
	memcpy(b.p = malloc(sizeof(extra)), extra, sizeof(extra));
	b.len = b.cap = sizeof(extra);
	encode_two(&b);
	cr_assert_eq(lt_stacktab_add(&t, b.p, b.len), 0);
	cr_assert_eq(t.nstacks, 2);
	lt_stacktab_free(&t);
	lt_stackbuf_free(&b);
}

/* Every cut of a valid section and every flipped byte reads without a
 * crash; a cut inside a field is damage. */
Test(stacks, damage_is_refused_safely)
{
	struct lt_stackbuf b = { 0 };
	encode_two(&b);
	for (size_t cut = 0; cut < b.len; cut++) {
		struct lt_stacktab t = { 0 };
		int r = lt_stacktab_add(&t, b.p, cut);
		if (r)
			cr_assert(t.damaged);
		for (size_t i = 0; i < t.nstacks; i++)
			cr_assert(t.stacks[i]->id == 1 || t.stacks[i]->id == 7);
		lt_stacktab_free(&t);
	}
	uint8_t *copy = malloc(b.len);
	for (size_t i = 0; i < b.len; i++) {
		memcpy(copy, b.p, b.len);
		copy[i] ^= 0xff;
		struct lt_stacktab t = { 0 };
		lt_stacktab_add(&t, copy, b.len);
		lt_stacktab_free(&t);
	}
	free(copy);
	/* a stack without an id, a reference to stack 0 */
	const uint8_t noid[] = { 1, 2, 2, 0 }, ref0[] = { 2, 6, 1, 1, 2, 3, 1, 0 };
	struct lt_stacktab t = { 0 };
	cr_assert_eq(lt_stacktab_add(&t, noid, sizeof(noid)), -1);
	cr_assert(t.damaged);
	lt_stacktab_free(&t);
	cr_assert_eq(lt_stacktab_add(&t, ref0, sizeof(ref0)), -1);
	cr_assert_eq(t.nrefs, 0);
	lt_stacktab_free(&t);
	lt_stackbuf_free(&b);
}

/* A Python frame (lang, no pc) comes back as one, and prints as
 * "func (file:line) [python]"; a native frame keeps lang 0. */
Test(stacks, python_frames_round_trip)
{
	struct lt_sframe fr[2] = {
		{ .lang = LT_SFRAME_PYTHON, .func = "Worker.run", .file = "/srv/app/worker.py", .line = 42 },
		{ .pc = 0x401000, .func = "_PyEval_EvalFrameDefault", .func_off = 0x8f0,
		  .module = "python3.11" },
	};
	struct lt_stack s = { .id = 3, .tgid = 77, .nframes = 2, .frames = fr };
	struct lt_stackbuf b = { 0 };
	struct lt_stacktab t = { 0 };
	lt_stacks_put_stack(&b, &s);
	cr_assert_eq(lt_stacktab_add(&t, b.p, b.len), 0);
	const struct lt_stack *g = lt_stacktab_get(&t, 3);
	cr_assert(g);
	cr_assert_eq(g->nframes, 2);
	cr_assert_eq(g->frames[0].lang, LT_SFRAME_PYTHON);
	cr_assert_eq(g->frames[0].pc, 0);
	cr_assert_eq(g->frames[0].line, 42);
	cr_assert_eq(g->frames[1].lang, LT_SFRAME_NATIVE);
	char buf[256];
	cr_assert_str_eq(lt_sframe_text(&g->frames[0], buf, sizeof(buf)), "Worker.run (worker.py:42) [python]");
	cr_assert_str_eq(lt_sframe_text(&g->frames[1], buf, sizeof(buf)),
			 "_PyEval_EvalFrameDefault+0x8f0 [python3.11]");
	lt_stacktab_free(&t);
	lt_stackbuf_free(&b);
}

/* A Java frame (lang 2, no pc) comes back as one and prints as
 * "Class.method (File.java:line) [java]"; its name is not demangled (a
 * lambda's "$" stays); one without a line prints without it. */
Test(stacks, java_frames_round_trip)
{
	struct lt_sframe fr[3] = {
		{ .lang = LT_SFRAME_JAVA, .func = "JavaSites.siteAlpha", .file = "JavaSites.java", .line = 68 },
		{ .pc = 0x7f5f189537ba },
		{ .lang = LT_SFRAME_JAVA, .func = "JavaSites$$Lambda$3/0x00007f5eac000c10.run" },
	};
	struct lt_stack s = { .id = 4, .tgid = 78, .nframes = 3, .frames = fr };
	struct lt_stackbuf b = { 0 };
	struct lt_stacktab t = { 0 };
	lt_stacks_put_stack(&b, &s);
	cr_assert_eq(lt_stacktab_add(&t, b.p, b.len), 0);
	const struct lt_stack *g = lt_stacktab_get(&t, 4);
	cr_assert(g);
	cr_assert_eq(g->nframes, 3);
	cr_assert_eq(g->frames[0].lang, LT_SFRAME_JAVA);
	cr_assert_eq(g->frames[0].pc, 0);
	cr_assert_eq(g->frames[1].lang, LT_SFRAME_NATIVE);
	char buf[256];
	cr_assert_str_eq(lt_sframe_text(&g->frames[0], buf, sizeof(buf)), "JavaSites.siteAlpha (JavaSites.java:68) [java]");
	cr_assert_str_eq(lt_sframe_text(&g->frames[2], buf, sizeof(buf)),
			 "JavaSites$$Lambda$3/0x00007f5eac000c10.run [java]");
	cr_assert_str_eq(lt_sframe_func(&g->frames[0], buf, sizeof(buf)), "JavaSites.siteAlpha");
	lt_stacktab_free(&t);
	lt_stackbuf_free(&b);
}
