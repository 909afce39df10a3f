/* Channels registered with os/signal.Notify.
 *
 * os/signal keeps every channel Notify was given in its package variable
 * `handlers`: a sync.Mutex (8 bytes), then m, a map[chan<- os.Signal]
 * *handler, whose value's mask ([3]uint32, bit N for signal N) says which
 * signals go to that channel.  A goroutine receiving on such a channel waits
 * for a signal: only something outside the program's goroutines sends one
 * (kill(2), the terminal, the kernel), so no goroutine is its other end.
 *
 * The map's layout depends on the Go version:
 *  - before Go 1.24: an hmap (count at 0, B at 9, buckets at 16, oldbuckets
 *    at 24 while it grows, flags at 8 with 8 for a same-size grow) of 2^B
 *    buckets; a bucket for 8-byte keys and values is tophash[8], keys[8],
 *    values[8] and the overflow bucket's pointer: 144 bytes, a slot full
 *    when its tophash is 5 or more;
 *  - Go 1.24 on (Swiss tables): a Map (used at 0, dirPtr at 16, dirLen at
 *    24); dirLen 0: dirPtr is one group, else an array of dirLen table
 *    pointers (a table may repeat), each table's groups at 16 and their
 *    count - 1 at 24; a group is 8 control bytes then 8 slots of key and
 *    value (16 bytes each), a slot full when its control byte's top bit is
 *    clear.
 * Only full slots are read, so a channel found is one the map holds. */
#include <stdbool.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "golang.h"
#include "lockmodel.h"
#include "waitfor.h"

#define OLD_BUCKET 144
#define OLD_MAX_B 14 /* 16,384 buckets: 2.3 MB read at once */
#define SWISS_GROUP 136
#define SWISS_MAX_DIR 1024
#define SWISS_MAX_GROUPS 128 /* a table holds at most 1,024 slots */
#define MAX_READS 4096

struct walk {
	const struct lt_lm_env *e;
	struct lt_go_notify *m;
	int reads;
	bool cut; /* a bound reached: some keys not read */
};

static int rd(struct walk *w, uint64_t a, void *buf, size_t len)
{
	if (++w->reads > MAX_READS) {
		w->cut = true;
		return -1;
	}
	return w->e->read(w->e->arg, a, buf, len) ? -1 : 0;
}

static void keep(struct walk *w, uint64_t key, uint64_t val)
{
	struct lt_go_notify *m = w->m;
	if (m->n == m->cap) {
		size_t c = m->cap ? 2 * m->cap : 16;
		uint64_t *k = realloc(m->chans, c * 8), *v = k ? realloc(m->handlers, c * 8) : NULL;
		if (k)
			m->chans = k;
		if (!v) {
			w->cut = true;
			return;
		}
		m->handlers = v;
		m->cap = c;
	}
	m->chans[m->n] = key;
	m->handlers[m->n++] = val;
}

/* An old-layout bucket's full slots kept, then its overflow chain; -1 when
 * a bucket could not be read. */
static int old_bucket(struct walk *w, const uint8_t *k)
{
	for (int hop = 0;; hop++) {
		uint8_t next[OLD_BUCKET];
		for (int i = 0; i < 8; i++) {
			uint64_t key, val;
			memcpy(&key, k + 8 + 8 * i, 8);
			memcpy(&val, k + 72 + 8 * i, 8);
			if (k[i] >= 5)
				keep(w, key, val);
		}
		uint64_t b;
		memcpy(&b, k + 136, 8);
		if (!b)
			return 0;
		if (hop >= 64 || rd(w, b, next, sizeof(next)))
			return -1;
		k = next;
	}
}

/* 2^B buckets (an hmap's, or the old ones of a growing map): one read of
 * the array, a read for each overflow bucket. */
static int old_array(struct walk *w, uint64_t base, uint64_t n)
{
	if (!base || !n)
		return 0;
	uint8_t *b = malloc(n * OLD_BUCKET);
	if (!b || rd(w, base, b, n * OLD_BUCKET)) {
		free(b);
		return -1;
	}
	int unread = 0;
	for (uint64_t i = 0; i < n; i++)
		unread |= old_bucket(w, b + i * OLD_BUCKET) < 0;
	free(b);
	return unread ? -1 : 0;
}

static int old_map(struct walk *w, const uint8_t *h)
{
	uint8_t flags = h[8], B = h[9];
	uint64_t buckets, old;
	memcpy(&buckets, h + 16, 8);
	memcpy(&old, h + 24, 8);
	if (B > OLD_MAX_B)
		return -1;
	int a = old_array(w, buckets, 1ull << B);
	int o = old_array(w, old, (flags & 8) ? 1ull << B : B ? 1ull << (B - 1) : 0);
	return a < 0 || o < 0 ? -1 : 0;
}

static int swiss_group(struct walk *w, uint64_t g)
{
	uint8_t k[SWISS_GROUP];
	if (rd(w, g, k, sizeof(k)))
		return -1;
	for (int i = 0; i < 8; i++) {
		uint64_t key, val;
		memcpy(&key, k + 8 + 16 * i, 8);
		memcpy(&val, k + 16 + 16 * i, 8);
		if (!(k[i] & 0x80))
			keep(w, key, val);
	}
	return 0;
}

static int swiss_map(struct walk *w, const uint8_t *h)
{
	uint64_t dir, dlen;
	memcpy(&dir, h + 16, 8);
	memcpy(&dlen, h + 24, 8);
	if (!dir)
		return 0;
	if (!dlen)
		return swiss_group(w, dir);
	if (dlen > SWISS_MAX_DIR)
		return -1;
	uint64_t *tabs = malloc(dlen * 8);
	if (!tabs || rd(w, dir, tabs, dlen * 8)) {
		free(tabs);
		return -1;
	}
	int unread = 0;
	for (uint64_t t = 0; t < dlen; t++) {
		/* a table fills consecutive directory slots: one visit */
		if (!tabs[t] || (t && tabs[t] == tabs[t - 1]))
			continue;
		uint64_t tab[4];
		if (rd(w, tabs[t], tab, sizeof(tab))) {
			unread = 1;
			continue;
		}
		uint64_t groups = tab[2], mask = tab[3];
		if (mask >= SWISS_MAX_GROUPS) {
			unread = 1;
			continue;
		}
		for (uint64_t g = 0; groups && g <= mask; g++)
			unread |= swiss_group(w, groups + g * SWISS_GROUP) < 0;
	}
	free(tabs);
	return unread ? -1 : 0;
}

static int pair_cmp(const void *a, const void *b)
{
	uint64_t x = *(const uint64_t *)a, y = *(const uint64_t *)b;
	return x < y ? -1 : x > y;
}

int lt_go_notify_read(const struct lt_lm_env *e, uint64_t handlers, bool swiss, struct lt_go_notify *m)
{
	struct walk w = { .e = e, .m = m };
	uint64_t p;
	uint8_t h[48];
	*m = (struct lt_go_notify){ 0 };
	if (rd(&w, handlers + 8, &p, 8))
		return -1;
	m->complete = true;
	if (!p)
		return 0; /* Notify never called: no map made */
	if (rd(&w, p, h, sizeof(h)))
		return -1;
	int y = swiss ? swiss_map(&w, h) : old_map(&w, h);
	m->complete = y == 0 && !w.cut;
	/* sorted by channel, for a binary search per goroutine */
	struct pair { uint64_t ch, h; } *p2 = m->n ? malloc(m->n * sizeof(*p2)) : NULL;
	if (p2) {
		for (size_t i = 0; i < m->n; i++)
			p2[i] = (struct pair){ m->chans[i], m->handlers[i] };
		qsort(p2, m->n, sizeof(*p2), pair_cmp);
		for (size_t i = 0; i < m->n; i++) {
			m->chans[i] = p2[i].ch;
			m->handlers[i] = p2[i].h;
		}
		m->sorted = true;
		free(p2);
	}
	return 0;
}

void lt_go_notify_free(struct lt_go_notify *m)
{
	free(m->chans);
	free(m->handlers);
	*m = (struct lt_go_notify){ 0 };
}

/* Signals a channel never gets: SIGKILL and SIGSTOP reach no handler,
 * and the Go runtime keeps SIGPROF for its profiler.  Bit sig-1. */
#define NEVER_SENT ((1ull << 8) | (1ull << 18) | (1ull << 26))

int lt_go_notify_find(const struct lt_lm_env *e, const struct lt_go_notify *m, uint64_t ch, char *sigs, size_t len)
{
	if (len)
		sigs[0] = 0;
	size_t i = m->n;
	if (m->sorted) {
		size_t lo = 0, hi = m->n;
		while (lo < hi) {
			size_t mid = lo + (hi - lo) / 2;
			if (m->chans[mid] < ch)
				lo = mid + 1;
			else
				hi = mid;
		}
		if (lo < m->n && m->chans[lo] == ch)
			i = lo;
	} else {
		for (i = 0; i < m->n && m->chans[i] != ch; i++)
			;
	}
	if (i == m->n)
		return m->complete ? 0 : -1;
	uint32_t mask[3];
	if (!m->handlers[i] || e->read(e->arg, m->handlers[i], mask, sizeof(mask)))
		return 1; /* registered, its signals unread */
	/* bit N of the mask is signal N; lt_sigset_str's bit N-1 */
	uint64_t set = ((uint64_t)mask[0] >> 1 | (uint64_t)mask[1] << 31 | (uint64_t)mask[2] << 63) & ~NEVER_SENT;
	if (!set)
		return 2;
	if (__builtin_popcountll(set) >= 60)
		snprintf(sigs, len, "all signals");
	else
		lt_sigset_str(set, sigs, len);
	return 1;
}

int lt_go_notify_lookup(const struct lt_lm_env *e, uint64_t handlers, bool swiss, uint64_t ch, char *sigs,
			size_t len)
{
	struct lt_go_notify m;
	if (len)
		sigs[0] = 0;
	if (!ch || lt_go_notify_read(e, handlers, swiss, &m))
		return -1;
	int y = lt_go_notify_find(e, &m, ch, sigs, len);
	lt_go_notify_free(&m);
	return y;
}
