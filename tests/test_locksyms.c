/* Lock names in a trace: SYMBOLS sections written and read back, and the
 * first pass that collects them from a file without decoding events. */
#include <criterion/criterion.h>
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include "locktrace/locksyms.h"
#include "locktrace/tracefile.h"
#include "../src/u64map.h"

Test(locksyms, names_survive_a_trace_file_and_damage_after_them)
{
	char path[] = "/tmp/lt-locksyms-XXXXXX";
	int fd = mkstemp(path);
	cr_assert_geq(fd, 0);
	struct lt_writer *w;
	cr_assert_eq(lt_writer_fd_open(&w, fd), 0);
	struct lt_header h = { .pid = 100 };
	cr_assert_eq(lt_writer_header(w, &h), 0);

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
	cr_assert_eq(lt_trace_symbols(path, &m), 0);
	cr_assert_eq(m.n, 5);
	cr_assert_str_eq(lt_u64map_get(&m, addrs[0]), "rtlock.m");
	for (int i = 1; i < 5; i++)
		cr_assert_str_eq(lt_u64map_get(&m, addrs[i]), names[i]);
	lt_symmap_free(&m);

	/* cut inside the second section: the first one's names remain */
	cr_assert_eq(truncate(path, (off_t)good_end - 3), 0);
	cr_assert_eq(lt_trace_symbols(path, &m), 0);
	cr_assert_eq(m.n, 3);
	cr_assert_str_eq(lt_u64map_get(&m, addrs[0]), "rtlock");
	lt_symmap_free(&m);
	unlink(path);

	cr_assert_eq(lt_trace_symbols("/nonexistent.ltrace", &m), -1);
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
