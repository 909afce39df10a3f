/* The symbol cache between runs (src/proc/symcache.h): entries survive a
 * close and reopen, what cannot be stored is not, a directory or file that
 * is not ours is never used; and a second symbolizer session on the same
 * modules loads no symbol table and no debug information.  No root: the
 * live part symbolizes this test process itself. */
#include <criterion/criterion.h>
#include <errno.h>
#include <sched.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>
#include "symbols.h"
#include "symcache.h"

static char dir[64];

static void fresh_dir(void)
{
	snprintf(dir, sizeof(dir), "/tmp/lt-symcache-XXXXXX");
	cr_assert_not_null(mkdtemp(dir));
	setenv("LOCKTRACE_CACHE_DIR", dir, 1);
}

static void remove_dir(void)
{
	char cmd[128];
	snprintf(cmd, sizeof(cmd), "rm -rf %s", dir);
	cr_assert_eq(system(cmd), 0);
}

Test(symcache, entries_survive_a_reopen, .init = fresh_dir, .fini = remove_dir)
{
	cr_assert_str_eq(lt_symcache_dir(), dir);
	struct lt_symcache *c = lt_symcache_open("00ab");
	cr_assert_not_null(c);
	cr_assert_null(lt_symcache_frame(c, 0x1000));
	struct lt_symcache_frame f = { "main", 0x12, "prog.c", 40, true };
	lt_symcache_add_frame(c, 0x1000, &f);
	struct lt_symcache_frame none = { NULL, 0, NULL, 0, false };
	lt_symcache_add_frame(c, 0, &none);
	struct lt_symcache_frame tab = { "a\tb", 0, NULL, 0, false };
	lt_symcache_add_frame(c, 0x3000, &tab);
	struct lt_symcache_data d = { "biglock", 8, 40 };
	lt_symcache_add_data(c, 0x4000, &d);
	lt_symcache_add_name(c, "_PyRuntime", 0, 0, 0);
	lt_symcache_add_name(c, "caml_master_lock", 1, 0x5000, 64);
	lt_symcache_close(c);

	c = lt_symcache_open("00ab");
	const struct lt_symcache_frame *g = lt_symcache_frame(c, 0x1000);
	cr_assert_not_null(g);
	cr_assert_str_eq(g->func, "main");
	cr_assert_str_eq(g->file, "prog.c");
	cr_assert(g->off == 0x12 && g->line == 40 && g->lines);
	g = lt_symcache_frame(c, 0);
	cr_assert(g && !g->func && !g->file && !g->lines, "an address no symbol covers is kept too");
	cr_assert_null(lt_symcache_frame(c, 0x3000), "a name with a tab is not kept");
	const struct lt_symcache_data *e = lt_symcache_data(c, 0x4000);
	cr_assert(e && !strcmp(e->name, "biglock") && e->off == 8 && e->size == 40);
	uint64_t a = 1, sz = 1;
	cr_assert_eq(lt_symcache_name(c, "_PyRuntime", &a, &sz), 0);
	cr_assert_eq(lt_symcache_name(c, "caml_master_lock", &a, &sz), 1);
	cr_assert(a == 0x5000 && sz == 64);
	cr_assert_eq(lt_symcache_name(c, "other", &a, &sz), -1);
	lt_symcache_close(c);
	cr_assert_null(lt_symcache_open("../etc"), "only a build-id names a file");
}

/* A root tool must not read names someone else could have written. */
Test(symcache, a_directory_others_can_write_is_not_used, .init = fresh_dir, .fini = remove_dir)
{
	cr_assert_eq(chmod(dir, 0777), 0);
	cr_assert_null(lt_symcache_dir());
	cr_assert_null(lt_symcache_open("00ab"));
}

Test(symcache, a_file_others_can_write_is_not_read, .init = fresh_dir, .fini = remove_dir)
{
	char path[128];
	snprintf(path, sizeof(path), "%s/00cd", dir);
	FILE *f = fopen(path, "w");
	fputs("locktrace-symcache 1\nf\t1000\t1\t0\t1\tplanted\tx.c\n", f);
	fclose(f);
	cr_assert_eq(chmod(path, 0666), 0);
	struct lt_symcache *c = lt_symcache_open("00cd");
	cr_assert_null(lt_symcache_frame(c, 0x1000));
	lt_symcache_close(c);
	cr_assert_eq(chmod(path, 0600), 0);
	c = lt_symcache_open("00cd");
	cr_assert_not_null(lt_symcache_frame(c, 0x1000), "the same file, ours only, is read");
	lt_symcache_close(c);
}

Test(symcache, off_means_off)
{
	setenv("LOCKTRACE_CACHE_DIR", "off", 1);
	cr_assert_null(lt_symcache_dir());
	cr_assert_null(lt_symcache_open("00ab"));
}

/* Symbolizing the same addresses again: the second session loads no
 * symbol table and no debug information, and says the same. */
static void session(uint64_t pcs[], size_t n, struct lt_frame *out, unsigned *symtabs, unsigned *dbg)
{
	struct lt_sym *s = lt_sym_open(getpid(), 0, NULL);
	cr_assert_not_null(s);
	uint64_t a, sz;
	cr_assert_eq(lt_sym_lookup(s, "no_symbol_is_called_this", &a, &sz), -ENOENT);
	for (size_t i = 0; i < n; i++)
		lt_sym_frame(s, pcs[i], true, &out[i]);
	char *d = lt_sym_describe(s, (uint64_t)(uintptr_t)&dir);
	cr_assert(d && !strcmp(d, "dir"), "%s", d);
	free(d);
	lt_sym_loads(s, symtabs, dbg);
	lt_sym_close(s);
}

Test(symcache, a_second_session_loads_no_tables, .init = fresh_dir, .fini = remove_dir)
{
	/* libc functions the sanitizers do not intercept (an ASan build has its
	 * own write and strlen in the executable) */
	uint64_t pcs[] = { (uint64_t)(uintptr_t)&session, (uint64_t)(uintptr_t)&getppid,
			   (uint64_t)(uintptr_t)&sched_yield };
	struct lt_frame one[3], two[3];
	unsigned st1, dbg1, st2, dbg2;
	session(pcs, 3, one, &st1, &dbg1);
	cr_assert_geq(st1, 2, "the executable's and libc's symbol tables");
	cr_assert_geq(dbg1, 1);
	session(pcs, 3, two, &st2, &dbg2);
	cr_assert_eq(st2, 0, "%u symbol tables loaded again", st2);
	cr_assert_eq(dbg2, 0, "%u modules' debug information loaded again", dbg2);
	cr_assert_str_eq(one[0].func, "session");
	for (int i = 0; i < 3; i++) {
		cr_assert_not_null(one[i].func);
		cr_assert_str_eq(two[i].func, one[i].func);
		cr_assert_eq(two[i].func_off, one[i].func_off);
		cr_assert_str_eq(two[i].module, one[i].module);
		cr_assert_eq(!two[i].file, !one[i].file);
		if (one[i].file)
			cr_assert(!strcmp(two[i].file, one[i].file) && two[i].line == one[i].line);
		lt_frame_clear(&one[i]);
		lt_frame_clear(&two[i]);
	}
}
