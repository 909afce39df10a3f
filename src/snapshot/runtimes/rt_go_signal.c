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
#define OLD_MAX_B 10
#define SWISS_GROUP 136
#define SWISS_MAX_DIR 1024
#define SWISS_MAX_GROUPS 128 /* a table holds at most 1,024 slots */
#define MAX_READS 4096

struct walk {
	const struct lt_lm_env *e;
	uint64_t ch;
	uint64_t value; /* the found key's value: its *handler */
	int reads;
};

static int rd(struct walk *w, uint64_t a, void *buf, size_t len)
{
	if (++w->reads > MAX_READS)
		return -1;
	return w->e->read(w->e->arg, a, buf, len) ? -1 : 0;
}

/* A chain of old-layout buckets from B: 1 found, 0 not, -1 unreadable. */
static int old_chain(struct walk *w, uint64_t b)
{
	for (int hop = 0; b && hop < 64; hop++) {
		uint8_t k[OLD_BUCKET];
		if (rd(w, b, k, sizeof(k)))
			return -1;
		for (int i = 0; i < 8; i++) {
			uint64_t key, val;
			memcpy(&key, k + 8 + 8 * i, 8);
			memcpy(&val, k + 72 + 8 * i, 8);
			if (k[i] >= 5 && key == w->ch) {
				w->value = val;
				return 1;
			}
		}
		memcpy(&b, k + 136, 8);
	}
	return 0;
}

static int old_map(struct walk *w, const uint8_t *h)
{
	uint8_t flags = h[8], B = h[9];
	uint64_t buckets, old;
	memcpy(&buckets, h + 16, 8);
	memcpy(&old, h + 24, 8);
	if (B > OLD_MAX_B)
		return -1;
	int unread = 0;
	for (int arr = 0; arr < 2; arr++) {
		uint64_t base = arr ? old : buckets;
		uint64_t n = arr ? ((flags & 8) ? 1ull << B : B ? 1ull << (B - 1) : 0) : 1ull << B;
		for (uint64_t i = 0; base && i < n; i++) {
			int y = old_chain(w, base + i * OLD_BUCKET);
			if (y == 1)
				return 1;
			unread |= y < 0;
		}
	}
	return unread ? -1 : 0;
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
		if (!(k[i] & 0x80) && key == w->ch) {
			w->value = val;
			return 1;
		}
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
	int unread = 0, found = 0;
	for (uint64_t t = 0; t < dlen && !found; t++) {
		bool seen = false;
		for (uint64_t q = 0; q < t && !seen; q++)
			seen = tabs[q] == tabs[t];
		if (seen || !tabs[t])
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
		for (uint64_t g = 0; groups && g <= mask && !found; g++) {
			int y = swiss_group(w, groups + g * SWISS_GROUP);
			found = y == 1;
			unread |= y < 0;
		}
	}
	free(tabs);
	return found ? 1 : unread ? -1 : 0;
}

int lt_go_notify_lookup(const struct lt_lm_env *e, uint64_t handlers, bool swiss, uint64_t ch, char *sigs,
			size_t len)
{
	struct walk w = { .e = e, .ch = ch };
	uint64_t m;
	uint8_t h[48];
	if (len)
		sigs[0] = 0;
	if (!ch || rd(&w, handlers + 8, &m, 8))
		return -1;
	if (!m)
		return 0; /* Notify never called: no map made */
	if (rd(&w, m, h, sizeof(h)))
		return -1;
	int y = swiss ? swiss_map(&w, h) : old_map(&w, h);
	uint32_t mask[3];
	if (y == 1 && len && w.value && !rd(&w, w.value, mask, sizeof(mask))) {
		/* bit N of the mask is signal N; lt_sigset_str's bit N-1 */
		uint64_t set = (uint64_t)mask[0] >> 1 | (uint64_t)mask[1] << 31 | (uint64_t)mask[2] << 63;
		if (set)
			lt_sigset_str(set, sigs, len);
	}
	return y;
}
