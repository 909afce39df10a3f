/* Readable names of native frames' symbols (rtthread.h).
 *
 * OCaml native code (ocamlopt) names a function caml + compilation unit +
 * separator + identifier + "_" + stamp:
 *   OCaml 4.x - 5.1   camlRepro__worker_123      (separator "__")
 *   OCaml 5.2+        camlRepro.worker_399       (separator ".", middle_end/compilenv.ml)
 * Units of a library keep "__" in their own name (Stdlib__List is
 * Stdlib.List), and characters that are not identifier characters are
 * "$" + two hex digits (camlStdlib__$40_197 is Stdlib.@).  The stamp
 * makes the symbol unique; it is dropped from named functions and kept for
 * anonymous ones (fun_530), which it alone tells apart.  "__" inside an
 * identifier cannot be told from a separator: it reads as one. */
#include <ctype.h>
#include <string.h>

#include "demangle.h"
#include "utf8.h"

/* Length of BODY without its "_<digits>" stamp (unchanged if none). */
static size_t without_stamp(const char *body, size_t n)
{
	size_t i = n;
	while (i > 0 && isdigit((unsigned char)body[i - 1]))
		i--;
	if (i == n || i < 2 || body[i - 1] != '_')
		return n;
	/* anonymous functions: the stamp is their only name */
	size_t id = i - 1;
	while (id > 0 && body[id - 1] != '.' && !(id >= 2 && body[id - 1] == '_' && body[id - 2] == '_'))
		id--;
	if (i - 1 - id == 3 && strncmp(body + id, "fun", 3) == 0)
		return n;
	return i - 1;
}

static void put(char *out, size_t len, size_t *o, char c)
{
	if (*o + 1 < len)
		out[(*o)++] = c;
}

bool lt_demangle_ocaml(const char *sym, char *out, size_t len)
{
	if (!sym || !out || !len || strncmp(sym, "caml", 4) != 0 || !isupper((unsigned char)sym[4]))
		return false;
	const char *b = sym + 4;
	size_t n = without_stamp(b, strlen(b)), o = 0;
	for (size_t i = 0; i < n; i++) {
		int hi, lo;
		if (b[i] == '_' && i + 1 < n && b[i + 1] == '_' && i > 0) {
			put(out, len, &o, '.');
			i++;
		} else if (b[i] == '$' && i + 2 < n && (hi = lt_hex_value(b[i + 1])) >= 0 &&
			   (lo = lt_hex_value(b[i + 2])) >= 0) {
			put(out, len, &o, (char)(hi << 4 | lo));
			i += 2;
		} else {
			put(out, len, &o, b[i]);
		}
	}
	out[o] = 0;
	return true;
}

const char *lt_func_display(const char *sym, char *buf, size_t len)
{
	if (sym && lt_demangle_ocaml(sym, buf, len))
		return buf;
	return sym;
}
