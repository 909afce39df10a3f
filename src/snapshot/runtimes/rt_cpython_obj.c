/* CPython thread model: reading Python objects in another process
 * (rt_cpython_int.h).
 *
 * Only what the thread model needs: str (compact forms: every identifier,
 * file name and thread name is one), bytes, small ints, tuples, dicts, and
 * instance attributes.  Every object's type is checked against the
 * exported type object (PyUnicode_Type, ...) when the symbol is known, so
 * a stale or wrong pointer reads as "not found", never as garbage text.
 * Sizes are bounded: a damaged length cannot make us read megabytes. */
#include <stdlib.h>
#include <string.h>

#include "rt_cpython_int.h"
#include "utf8.h"

#define OB_TYPE 0x08
#define VAR_SIZE 0x10     /* PyVarObject.ob_size; PyLongObject lv_tag (3.12+) */
#define TP_NAME 0x18
#define TP_BASICSIZE 0x20
#define TP_FLAGS 0xa8
#define TP_DICTOFFSET 0x120
#define STR_LENGTH 0x10
#define STR_STATE 0x20
#define BYTES_SVAL 0x20
#define TUPLE_ITEM 0x18
#define LONG_DIGIT 0x18
#define DICT_KEYS 0x20
#define DICT_VALUES 0x28
#define TPF_INLINE_VALUES (1ul << 2)
#define TPF_MANAGED_DICT (1ul << 4)
#define MAX_STR (1u << 16)
#define MAX_ENTRIES (1u << 17)
#define CHUNK 128

static int rd(const struct pyr *r, uint64_t addr, void *buf, size_t len)
{
	return addr ? r->e->read(r->e->arg, addr, buf, len) : -1;
}

static uint64_t u64_at(const struct pyr *r, uint64_t addr)
{
	uint64_t v = 0;
	return rd(r, addr, &v, sizeof(v)) < 0 ? 0 : v;
}

static uint64_t sym_addr(const struct lt_lm_env *e, const char *name)
{
	uint64_t a = 0, sz;
	return e->lookup(e->arg, name, &a, &sz) < 0 ? 0 : a;
}

void pyr_init(struct pyr *r, const struct lt_lm_env *e, const struct pyl *l)
{
	memset(r, 0, sizeof(*r));
	r->e = e;
	r->l = l;
	r->t_code = sym_addr(e, "PyCode_Type");
	r->t_str = sym_addr(e, "PyUnicode_Type");
	r->t_bytes = sym_addr(e, "PyBytes_Type");
	r->t_long = sym_addr(e, "PyLong_Type");
	r->t_dict = sym_addr(e, "PyDict_Type");
	r->t_tuple = sym_addr(e, "PyTuple_Type");
}

uint64_t pyr_type(const struct pyr *r, uint64_t obj)
{
	return u64_at(r, obj + OB_TYPE);
}

/* OBJ's type is WANT, or WANT is not known. */
static bool is_a(const struct pyr *r, uint64_t obj, uint64_t want)
{
	uint64_t t = pyr_type(r, obj);
	return t && (!want || t == want);
}

int pyr_type_name(const struct pyr *r, uint64_t type, char *buf, size_t len)
{
	uint64_t name = u64_at(r, type + TP_NAME);
	return name ? lt_lm_read_str(r->e, name, buf, len) : -1;
}

/* ---- str ---- */

struct strhdr {
	int64_t length;
	unsigned kind;      /* 1, 2 or 4 bytes per character */
	uint64_t data;
	bool ascii;
};

static int str_header(const struct pyr *r, uint64_t obj, struct strhdr *h)
{
	uint8_t b[0x28];
	uint32_t state;
	if (!is_a(r, obj, r->t_str) || rd(r, obj, b, sizeof(b)) < 0)
		return -1;
	memcpy(&h->length, b + STR_LENGTH, 8);
	memcpy(&state, b + STR_STATE, 4);
	h->kind = (state >> 2) & 7;
	h->ascii = (state >> 6) & 1;
	bool compact = (state >> 5) & 1;
	if (!compact || (h->kind != 1 && h->kind != 2 && h->kind != 4) || h->length < 0 ||
	    h->length > MAX_STR)
		return -1;
	h->data = obj + (h->ascii ? r->l->str_ascii : r->l->str_compact);
	return 0;
}

/* Appends code point C as UTF-8 if it fits; false when it does not. */
static bool put_utf8(char *buf, size_t len, size_t *o, uint32_t c)
{
	size_t at = lt_utf8_put(buf, len, *o, c);
	bool fits = at != *o;
	*o = at;
	return fits;
}

int pyr_str(const struct pyr *r, uint64_t obj, char *buf, size_t len)
{
	struct strhdr h;
	uint8_t chunk[256];
	if (!len || str_header(r, obj, &h) < 0)
		return -1;
	size_t o = 0, want = (size_t)h.length;
	/* no more characters than could fit */
	if (want > len - 1)
		want = len - 1;
	for (size_t done = 0; done < want;) {
		size_t n = (want - done) * h.kind;
		if (n > sizeof(chunk))
			n = sizeof(chunk) / h.kind * h.kind;
		if (rd(r, h.data + done * h.kind, chunk, n) < 0)
			return -1;
		for (size_t i = 0; i < n; i += h.kind) {
			uint32_t c = h.kind == 1 ? chunk[i] : h.kind == 2 ? (uint32_t)(chunk[i] | chunk[i + 1] << 8)
				     : (uint32_t)chunk[i] | (uint32_t)chunk[i + 1] << 8 |
					       (uint32_t)chunk[i + 2] << 16 | (uint32_t)chunk[i + 3] << 24;
			if (c > 0x10ffff)
				c = 0xfffd;
			if (!put_utf8(buf, len, &o, c)) {
				buf[o] = 0;
				return 0;
			}
		}
		done += n / h.kind;
	}
	buf[o] = 0;
	return 0;
}

bool pyr_str_eq(const struct pyr *r, uint64_t obj, const char *s)
{
	struct strhdr h;
	char b[64];
	size_t n = strlen(s);
	if (n >= sizeof(b) || str_header(r, obj, &h) < 0 || !h.ascii || (size_t)h.length != n)
		return false;
	return rd(r, h.data, b, n) == 0 && memcmp(b, s, n) == 0;
}

/* ---- bytes, int, tuple ---- */

int pyr_bytes(const struct pyr *r, uint64_t obj, size_t max, uint8_t **out, size_t *n)
{
	int64_t size;
	*out = NULL;
	*n = 0;
	if (!is_a(r, obj, r->t_bytes) || rd(r, obj + VAR_SIZE, &size, 8) < 0 || size < 0 ||
	    (uint64_t)size > max)
		return -1;
	uint8_t *b = malloc(size ? (size_t)size : 1);
	if (!b || (size && rd(r, obj + BYTES_SVAL, b, (size_t)size) < 0)) {
		free(b);
		return -1;
	}
	*out = b;
	*n = (size_t)size;
	return 0;
}

int pyr_long(const struct pyr *r, uint64_t obj, uint64_t *v)
{
	uint64_t tag;
	uint32_t d[3];
	size_t nd;
	if (!is_a(r, obj, r->t_long) || rd(r, obj + VAR_SIZE, &tag, 8) < 0)
		return -1;
	if (r->l->long_tag) {
		if ((tag & 3) == 2)
			return -1; /* negative */
		nd = (tag & 3) == 1 ? 0 : (size_t)(tag >> 3);
	} else {
		if ((int64_t)tag < 0)
			return -1;
		nd = (size_t)tag;
	}
	if (nd > 3 || (nd && rd(r, obj + LONG_DIGIT, d, nd * 4) < 0))
		return -1;
	uint64_t x = 0;
	for (size_t i = nd; i-- > 0;) {
		if (x >> 34)
			return -1; /* more than 64 bits */
		x = x << 30 | (d[i] & 0x3fffffffu);
	}
	*v = x;
	return 0;
}

int pyr_tuple_size(const struct pyr *r, uint64_t obj, size_t *n)
{
	int64_t size;
	if (!is_a(r, obj, r->t_tuple) || rd(r, obj + VAR_SIZE, &size, 8) < 0 || size < 0 ||
	    size > 0x10000)
		return -1;
	*n = (size_t)size;
	return 0;
}

int pyr_tuple_item(const struct pyr *r, uint64_t obj, size_t i, uint64_t *item)
{
	return rd(r, obj + TUPLE_ITEM + 8 * i, item, 8);
}

/* ---- dicts ---- */

/* Where a keys object keeps its entries. */
struct keys {
	uint64_t entries;
	size_t n, stride, key_off, value_off;
};

static int keys_layout(const struct pyr *r, uint64_t keys, struct keys *k)
{
	uint8_t h[0x28];
	int64_t n;
	if (rd(r, keys, h, sizeof(h)) < 0)
		return -1;
	if (r->l->dict == PYL_DICT_38) {
		int64_t size;
		memcpy(&size, h + 8, 8);
		memcpy(&n, h + 0x20, 8);
		if (size < 8 || (size & (size - 1)) || size > (1 << 20))
			return -1;
		unsigned ix = size <= 0xff ? 1 : size <= 0xffff ? 2 : 4;
		k->entries = keys + 0x28 + (uint64_t)size * ix;
		k->stride = 24, k->key_off = 8, k->value_off = 16;
	} else {
		unsigned log2_size = h[8], log2_index = h[9], kind = h[10];
		memcpy(&n, h + 0x18, 8);
		if (log2_size < 3 || log2_size > 20 || log2_index > 23 || kind > 2)
			return -1;
		k->entries = keys + 0x20 + (1ull << log2_index);
		bool general = kind == 0;
		k->stride = general ? 24 : 16;
		k->key_off = general ? 8 : 0;
		k->value_off = general ? 16 : 8;
	}
	if (n < 0 || n > MAX_ENTRIES)
		return -1;
	k->n = (size_t)n;
	return 0;
}

/* Each (key, value) of a keys object; VALUES is a split table's values
 * (PyDictValues) or 0. */
static int keys_each(const struct pyr *r, uint64_t keys, uint64_t values, pyr_each_fn fn, void *arg)
{
	struct keys k;
	uint8_t b[CHUNK * 24];
	uint64_t vals[CHUNK];
	if (keys_layout(r, keys, &k) < 0)
		return -1;
	for (size_t i = 0; i < k.n; i += CHUNK) {
		size_t m = k.n - i < CHUNK ? k.n - i : CHUNK;
		if (rd(r, k.entries + i * k.stride, b, m * k.stride) < 0 ||
		    (values && rd(r, values + r->l->dv_values + 8 * i, vals, m * 8) < 0))
			return -1;
		for (size_t j = 0; j < m; j++) {
			uint64_t key, value;
			memcpy(&key, b + j * k.stride + k.key_off, 8);
			if (values)
				value = vals[j];
			else
				memcpy(&value, b + j * k.stride + k.value_off, 8);
			if (key && value && !fn(arg, key, value))
				return 0;
		}
	}
	return 0;
}

int pyr_dict_each(const struct pyr *r, uint64_t dict, pyr_each_fn fn, void *arg)
{
	uint64_t kv[2];
	if (!is_a(r, dict, r->t_dict) || rd(r, dict + DICT_KEYS, kv, sizeof(kv)) < 0 || !kv[0])
		return -1;
	return keys_each(r, kv[0], kv[1], fn, arg);
}

struct get {
	const struct pyr *r;
	const char *key;
	uint64_t value;
	bool found;
};

static bool get_one(void *arg, uint64_t key, uint64_t value)
{
	struct get *g = arg;
	if (!pyr_str_eq(g->r, key, g->key))
		return true;
	g->value = value;
	g->found = true;
	return false;
}

int pyr_dict_get(const struct pyr *r, uint64_t dict, const char *key, uint64_t *value)
{
	struct get g = { r, key, 0, false };
	if (pyr_dict_each(r, dict, get_one, &g) < 0 || !g.found)
		return -1;
	*value = g.value;
	return 0;
}

/* Each (name, value) of shared KEYS and their split VALUES. */
static int values_each(const struct pyr *r, uint64_t type, uint64_t values, pyr_each_fn fn, void *arg)
{
	uint64_t keys = u64_at(r, type + r->l->ht_cached_keys);
	return keys ? keys_each(r, keys, values, fn, arg) : -1;
}

static int managed_each(const struct pyr *r, uint64_t obj, uint64_t type, pyr_each_fn fn, void *arg)
{
	uint64_t w;
	switch (r->l->inst) {
	case PYL_INST_311:
		if ((w = u64_at(r, obj - 32)))
			return values_each(r, type, w, fn, arg);
		break;
	case PYL_INST_312:
		w = u64_at(r, obj - 24);
		if (w & 1)
			return values_each(r, type, w + 1, fn, arg);
		return w ? pyr_dict_each(r, w, fn, arg) : -1;
	default:
		break;
	}
	w = u64_at(r, obj - 24);
	return w ? pyr_dict_each(r, w, fn, arg) : -1;
}

int pyr_number(const struct pyr *r, uint64_t obj, double *v)
{
	uint64_t type = pyr_type(r, obj), n;
	char tn[16];
	/* by the type's name: pyr_long takes any object for an int when
	 * PyLong_Type's address is not known */
	if (!type || pyr_type_name(r, type, tn, sizeof(tn)) < 0)
		return -1;
	if (!strcmp(tn, "int")) {
		if (pyr_long(r, obj, &n) < 0)
			return -1;
		*v = (double)n;
		return 0;
	}
	/* a float: PyFloatObject's ob_fval after the object's head */
	if (strcmp(tn, "float") || rd(r, obj + 16, v, sizeof(*v)) < 0)
		return -1;
	return 0;
}

int pyr_attr_each(const struct pyr *r, uint64_t obj, pyr_each_fn fn, void *arg)
{
	uint64_t type = pyr_type(r, obj), flags = type ? u64_at(r, type + TP_FLAGS) : 0;
	if (!type)
		return -1;
	if (r->l->inst == PYL_INST_313 && (flags & TPF_INLINE_VALUES)) {
		uint64_t values = obj + u64_at(r, type + TP_BASICSIZE);
		uint8_t hdr[4];
		if (rd(r, values, hdr, sizeof(hdr)) == 0 && hdr[3] /* valid */)
			return values_each(r, type, values, fn, arg);
	}
	if (r->l->inst != PYL_INST_DICTOFFSET && (flags & TPF_MANAGED_DICT))
		return managed_each(r, obj, type, fn, arg);
	int64_t off = (int64_t)u64_at(r, type + TP_DICTOFFSET);
	uint64_t dict = off > 0 && off < 0x10000 ? u64_at(r, obj + (uint64_t)off) : 0;
	return dict ? pyr_dict_each(r, dict, fn, arg) : -1;
}

int pyr_attr(const struct pyr *r, uint64_t obj, const char *name, uint64_t *value)
{
	struct get g = { r, name, 0, false };
	if (pyr_attr_each(r, obj, get_one, &g) < 0 || !g.found)
		return -1;
	*value = g.value;
	return 0;
}
