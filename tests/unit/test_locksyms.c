/* Lock names in a trace: SYMBOLS sections written and read back, and the
 * first pass that collects them from a file without decoding events. */
#include <criterion/criterion.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include "locksyms.h"
#include "snapfacts.h"
#include "locktrace/tracefile.h"
#include "u64map.h"

/* A new trace file at path (a mkstemp template) with the header of pid 100. */
static struct lt_writer *new_trace(char *path)
{
	int fd = mkstemp(path);
	cr_assert_geq(fd, 0);
	struct lt_writer *w;
	cr_assert_eq(lt_writer_fd_open(&w, fd), 0);
	struct lt_header h = { .pid = 100 };
	cr_assert_eq(lt_writer_header(w, &h), 0);
	return w;
}

Test(locksyms, names_survive_a_trace_file_and_damage_after_them)
{
	char path[] = "/tmp/lt-locksyms-XXXXXX";
	struct lt_writer *w = new_trace(path);

	/* two sections, as the recorder writes them while it learns names;
	 * the second renames one address (a later, better name wins) */
	const char *names[] = { "rtlock", "rtlock+0x28", "libc.so.6:lock+0x10", "[heap]+0x2a0",
				"a name with spaces and \"quotes\"" };
	uint64_t addrs[] = { 0x55d0c0a01040ull, 0x55d0c0a01068ull, 0x7f0012345678ull, 0x5600000002a0ull,
			     1 };
	/* build sections with the public writer path: a map, then write_all */
	struct lt_locksyms a = { 0 };
	cr_assert_eq(lt_locksyms_init(&a, 100), 0);
	for (int i = 0; i < 3; i++)
		cr_assert_eq(lt_u64map_put(a.names, addrs[i], strdup(names[i])), 0);
	cr_assert_eq(lt_locksyms_write_all(&a, w), 0);
	lt_locksyms_free(&a);
	struct lt_event ev = { .h = { .ts = 5, .tid = 101, .kind = LT_EV_TASK_EXIT } };
	cr_assert_eq(lt_writer_event(w, &ev), 0);
	cr_assert_eq(lt_writer_flush(w), 0);
	cr_assert_eq(lt_locksyms_init(&a, 100), 0);
	for (int i = 3; i < 5; i++)
		cr_assert_eq(lt_u64map_put(a.names, addrs[i], strdup(names[i])), 0);
	cr_assert_eq(lt_u64map_put(a.names, addrs[0], strdup("rtlock.m")), 0);
	cr_assert_eq(lt_locksyms_write_all(&a, w), 0);
	lt_locksyms_free(&a);
	uint64_t good_end = lt_writer_bytes(w);
	cr_assert_eq(lt_writer_close(w), 0);

	struct lt_u64map m = { 0 };
	cr_assert_eq(lt_trace_symbols(path, &m, rp_snapshot_names), 0);
	cr_assert_eq(m.n, 5);
	cr_assert_str_eq(lt_u64map_get(&m, addrs[0]), "rtlock.m");
	for (int i = 1; i < 5; i++)
		cr_assert_str_eq(lt_u64map_get(&m, addrs[i]), names[i]);
	lt_symmap_free(&m);

	/* cut inside the second section: the first one's names remain */
	cr_assert_eq(truncate(path, (off_t)good_end - 3), 0);
	cr_assert_eq(lt_trace_symbols(path, &m, rp_snapshot_names), 0);
	cr_assert_eq(m.n, 3);
	cr_assert_str_eq(lt_u64map_get(&m, addrs[0]), "rtlock");
	lt_symmap_free(&m);
	unlink(path);

	cr_assert_eq(lt_trace_symbols("/nonexistent.ltrace", &m, rp_snapshot_names), -1);
}

Test(locksyms, malformed_payload_is_refused_not_overread)
{
	struct lt_u64map m = { 0 };
	/* key 1, length 9, but only 3 bytes follow */
	const uint8_t bad[] = { 1, 9, 1, 1, 5 };
	cr_assert_eq(lt_locksyms_parse(bad, sizeof(bad), &m), -EINVAL);
	/* every truncation of a valid payload: no crash, a prefix of names */
	const uint8_t ok[] = { 1, 7, 1, 1, 0x40, 2, 2, 'a', 'b', 1, 6, 1, 1, 0x41, 2, 1, 'c' };
	for (size_t n = 0; n <= sizeof(ok); n++) {
		struct lt_u64map t = { 0 };
		lt_locksyms_parse(ok, n, &t);
		cr_assert_leq(t.n, 2);
		if (n == sizeof(ok)) {
			cr_assert_str_eq(lt_u64map_get(&t, 0x40), "ab");
			cr_assert_str_eq(lt_u64map_get(&t, 0x41), "c");
		}
		lt_symmap_free(&t);
	}
	lt_symmap_free(&m);
}

struct got {
	int n;
	int32_t tgid[8];
	uint64_t addr[8];
	char name[8][32];
	int shared[8];
	struct lt_shared_key key[8];
};

static void collect(void *ctx, int32_t tgid, uint64_t addr, const char *name, const struct lt_shared_key *key)
{
	struct got *g = ctx;
	cr_assert_lt(g->n, 8);
	g->tgid[g->n] = tgid;
	g->addr[g->n] = addr;
	snprintf(g->name[g->n], sizeof(g->name[0]), "%s", name);
	g->shared[g->n] = key != NULL;
	if (key)
		g->key[g->n] = *key;
	g->n++;
}

/* 1.3: names of several processes in one trace; a shared lock carries the
 * object and offset the kernel keys it by, the same in both processes. */
Test(locksyms, names_of_several_processes_and_shared_keys)
{
	char path[] = "/tmp/lt-locksyms-XXXXXX";
	struct lt_writer *w = new_trace(path);
	struct lt_locksyms a, b;
	cr_assert_eq(lt_locksyms_init(&a, 100), 0);
	cr_assert_eq(lt_locksyms_init(&b, 200), 0);
	b.trace_pid = 100;
	struct lt_shared_key *ka = malloc(sizeof(*ka)), *kb = malloc(sizeof(*kb));
	*ka = (struct lt_shared_key){ 0x801, 4242, 0x40 };
	*kb = *ka;
	cr_assert_eq(lt_u64map_put(a.names, 0x7f0000000040ull, strdup("/memfd:x+0x40")), 0);
	cr_assert_eq(lt_u64map_put(a.keys, 0x7f0000000040ull, ka), 0);
	cr_assert_eq(lt_u64map_put(b.names, 0x7f1000000040ull, strdup("/memfd:x+0x40")), 0);
	cr_assert_eq(lt_u64map_put(b.keys, 0x7f1000000040ull, kb), 0);
	cr_assert_eq(lt_u64map_put(b.names, 0x5600000002a0ull, strdup("[heap]+0x2a0")), 0);
	cr_assert_eq(lt_locksyms_write_all(&a, w), 0);
	cr_assert_eq(lt_locksyms_write_all(&b, w), 0);
	lt_locksyms_free(&a);
	lt_locksyms_free(&b);
	cr_assert_eq(lt_writer_close(w), 0);

	struct got g = { 0 };
	cr_assert_eq(lt_trace_symbols_procs(path, collect, &g), 0);
	cr_assert_eq(g.n, 3);
	int seen_a = 0, seen_b = 0, seen_heap = 0;
	for (int i = 0; i < g.n; i++) {
		if (g.addr[i] == 0x7f0000000040ull) {
			seen_a++;
			cr_assert_eq(g.tgid[i], 100, "no key 3: the header's pid");
			cr_assert(g.shared[i]);
			cr_assert_eq(g.key[i].dev, 0x801);
			cr_assert_eq(g.key[i].ino, 4242);
			cr_assert_eq(g.key[i].offset, 0x40);
		} else if (g.addr[i] == 0x7f1000000040ull) {
			seen_b++;
			cr_assert_eq(g.tgid[i], 200);
			cr_assert(g.shared[i]);
			cr_assert_eq(memcmp(&g.key[i], &(struct lt_shared_key){ 0x801, 4242, 0x40 },
					    sizeof(g.key[i])), 0);
		} else {
			seen_heap++;
			cr_assert_eq(g.addr[i], 0x5600000002a0ull);
			cr_assert_eq(g.tgid[i], 200);
			cr_assert_not(g.shared[i]);
			cr_assert_str_eq(g.name[i], "[heap]+0x2a0");
		}
	}
	cr_assert(seen_a == 1 && seen_b == 1 && seen_heap == 1);
	/* the address map keeps the header process's names only */
	struct lt_u64map m = { 0 };
	cr_assert_eq(lt_trace_symbols(path, &m, rp_snapshot_names), 0);
	cr_assert_eq(m.n, 1);
	cr_assert_str_eq(lt_u64map_get(&m, 0x7f0000000040ull), "/memfd:x+0x40");
	lt_symmap_free(&m);
	unlink(path);
}
