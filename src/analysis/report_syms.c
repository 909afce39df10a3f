// SPDX-License-Identifier: MIT
/* Lock names for the report: the SYMBOLS sections' and snapshots' names of
 * futex words, and the objects those names show a word to lie in. */
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>
#include "lockid.h"
#include "report_model.h"

/* ------------------------------------------------------------- symbols */

/* Names from SYMBOLS sections and snapshots; a later name wins, as the
 * recorder may rename an address once it knows better. */
void rp_add_sym(struct lt_report_priv *p, uint64_t addr, const char *text)
{
	if (!addr || !text || !*text)
		return;
	char *t = strdup(text);
	if (!t)
		return;
	uint32_t i = rp_idx_get(&p->smap, addr);
	p->span_ok = 0;
	if (i) {
		free(p->syms[i - 1].text);
		p->syms[i - 1].text = t;
		return;
	}
	struct sym *v = lt_grow(p->syms, &p->capsyms, p->nsyms, sizeof(*v), 32);
	if (!v) {
		free(t);
		return;
	}
	p->syms = v;
	if (rp_idx_put(&p->smap, addr, (uint32_t)p->nsyms + 1)) {
		free(t);
		return;
	}
	p->syms[p->nsyms].addr = addr;
	p->syms[p->nsyms++].text = t;
}

/* A snapshot lock name that is a symbol with an offset ("rtlock+0x50",
 * "libc.so.6:lock"), as opposed to a mapping ("[heap]", "libfoo.so+0x1234",
 * "demo+0x4010" for the unsymbolized executable). */
int rp_parse_sym(const struct lt_report_priv *p, const char *s, char *name, size_t nlen,
		 uint64_t *off)
{
	if (!s || !*s || s[0] == '[' || !strcmp(s, "unmapped"))
		return 0;
	const char *plus = strrchr(s, '+');
	size_t l = plus && plus[1] == '0' && plus[2] == 'x' ? (size_t)(plus - s) : strlen(s);
	if (l == 0 || l >= nlen)
		return 0;
	memcpy(name, s, l);
	name[l] = 0;
	if (!strchr(name, ':') && (strstr(name, ".so") || !strcmp(name, p->exe_base)))
		return 0;
	*off = l < strlen(s) ? strtoull(plus + 1, NULL, 16) : 0;
	return 1;
}

/* A symbol "name+0xOFF" names a word OFF bytes into an object: the object
 * spans at least [word - OFF, word). */
struct sspan {
	uint64_t base, end;
	uint32_t k; /* syms index */
};

static int span_cmp(const void *a, const void *b)
{
	const struct sspan *x = a, *y = b;
	if (x->base != y->base)
		return x->base < y->base ? -1 : 1;
	return (x->k > y->k) - (x->k < y->k);
}

/* The spans sorted by start and a max-tree of their ends, built at the
 * first look-up that needs them (and again after new names): a look-up
 * inside an object then costs log n, not a parse of every symbol. */
static int span_build(struct lt_report_priv *p)
{
	char name[128];
	uint64_t off;

	free(p->span);
	free(p->span_max);
	p->span_max = NULL;
	p->nspan = 0;
	p->span = malloc((p->nsyms ? p->nsyms : 1) * sizeof(*p->span));
	if (!p->span)
		return -1;
	for (size_t i = 0; i < p->nsyms; i++)
		if (rp_parse_sym(p, p->syms[i].text, name, sizeof(name), &off) && off && off <= p->syms[i].addr)
			p->span[p->nspan++] = (struct sspan){ p->syms[i].addr - off, p->syms[i].addr, (uint32_t)i };
	qsort(p->span, p->nspan, sizeof(*p->span), span_cmp);
	for (p->span_m = 1; p->span_m < p->nspan; p->span_m *= 2)
		;
	p->span_max = calloc(2 * p->span_m, sizeof(*p->span_max));
	if (!p->span_max)
		return -1;
	for (size_t i = 0; i < p->nspan; i++)
		p->span_max[p->span_m + i] = p->span[i].end;
	for (size_t n = p->span_m - 1; n >= 1; n--)
		p->span_max[n] = p->span_max[2 * n] > p->span_max[2 * n + 1] ? p->span_max[2 * n]
									  : p->span_max[2 * n + 1];
	p->span_ok = 1;
	return 0;
}

/* The rightmost span below lim (in node's range [lo, hi)) that ends after
 * addr, or -1. */
static long span_right(const struct lt_report_priv *p, size_t node, size_t lo, size_t hi, size_t lim,
		       uint64_t addr)
{
	if (lo >= lim || p->span_max[node] <= addr)
		return -1;
	if (hi - lo == 1)
		return (long)lo;
	size_t mid = lo + (hi - lo) / 2;
	long r = span_right(p, 2 * node + 1, mid, hi, lim, addr);
	return r >= 0 ? r : span_right(p, 2 * node, lo, mid, lim, addr);
}

const char *lt_report_lock_name(const struct lt_report *r, uint64_t addr, char *buf, size_t len)
{
	struct lt_report_priv *p = r->priv;
	uint32_t k = rp_idx_get(&p->smap, addr);
	if (k) {
		snprintf(buf, len, "%s", p->syms[k - 1].text);
		return buf;
	}
	/* inside a symbol whose later word the snapshot named: the object
	 * spans at least from its start to that word; of several, the one
	 * that starts nearest below */
	if (!p->span_ok && span_build(p))
		p->nspan = 0;
	size_t lo = 0, hi = p->nspan; /* lim: the spans starting at or below addr */
	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;
		if (p->span[mid].base <= addr)
			lo = mid + 1;
		else
			hi = mid;
	}
	long j = p->nspan && p->span_max ? span_right(p, 1, 0, p->span_m, lo, addr) : -1;
	char name[128];
	uint64_t off;
	if (j >= 0 && rp_parse_sym(p, p->syms[p->span[j].k].text, name, sizeof(name), &off)) {
		uint64_t base = p->span[j].base;
		if (addr == base)
			snprintf(buf, len, "%s", name);
		else
			snprintf(buf, len, "%s+0x%" PRIx64, name, addr - base);
		return buf;
	}
	return lt_lockid_format(lt_timeline_lockid(p->tl), addr, buf, len);
}

const char *lt_report_key_text(const struct lt_report *r, uint64_t key, char *buf, size_t len)
{
	return lt_lockid_format(lt_timeline_lockid(r->priv->tl), key, buf, len);
}

void lt_report_words_symbol(const struct lt_report *r, const uint64_t *words, unsigned nw, char *out,
			    size_t cap)
{
	char first[128] = "", name[128], base0[128] = "";
	size_t n = 0;
	out[0] = 0;
	for (unsigned i = 0; i < nw; i++) {
		lt_report_lock_name(r, words[i], name, sizeof(name));
		if (name[0] == '0' && name[1] == 'x')
			return; /* a word without a name: show addresses */
		/* for display any "base+0xOFF" shares its base, "[heap]" too */
		char b[128];
		uint64_t off = 0;
		const char *plus = strstr(name, "+0x");
		while (plus && strstr(plus + 1, "+0x"))
			plus = strstr(plus + 1, "+0x");
		snprintf(b, sizeof(b), "%.*s", plus ? (int)(plus - name) : (int)strlen(name), name);
		if (plus)
			off = strtoull(plus + 3, NULL, 16);
		if (i == 0) {
			snprintf(first, sizeof(first), "%s", name);
			snprintf(base0, sizeof(base0), "%s", b);
			n = (size_t)snprintf(out, cap, "%s", first);
		} else if (!strcmp(b, base0) && off) {
			n += (size_t)snprintf(out + n, n < cap ? cap - n : 0, "/+0x%" PRIx64, off);
		} else {
			n += (size_t)snprintf(out + n, n < cap ? cap - n : 0, "/%s", name);
		}
		if (n >= cap)
			break;
	}
}

/* "rtlock+0x50/+0x54" for a group whose words share a symbol. */
void rp_group_symbol(struct lt_report *r, struct rgroup *g)
{
	lt_report_key_text(r, g->pub.addr, g->keytext, sizeof(g->keytext));
	snprintf(g->pub.key, sizeof(g->pub.key), "%s", g->keytext);
	/* words in address order */
	for (unsigned i = 1; i < g->pub.n_words; i++)
		for (unsigned j = i; j > 0 && g->pub.words[j] < g->pub.words[j - 1]; j--) {
			uint64_t x = g->pub.words[j];
			g->pub.words[j] = g->pub.words[j - 1];
			g->pub.words[j - 1] = x;
		}
	lt_report_words_symbol(r, g->pub.words, g->pub.n_words, g->pub.symbol, sizeof(g->pub.symbol));
}

void rp_syms_free(struct lt_report_priv *p)
{
	for (size_t i = 0; i < p->nsyms; i++)
		free(p->syms[i].text);
	free(p->syms);
	lt_u64map_free(&p->smap);
	free(p->span);
	free(p->span_max);
}
