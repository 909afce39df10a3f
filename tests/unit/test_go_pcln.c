/* The Go pclntab decoder (src/rt_go_pcln.c) on the .gopclntab of a real
 * Go binary (build/workloads/go/gowl, built where go exists) checked
 * against the same binary's ELF symbol table (every function's entry and
 * name), and on damaged input: truncated and garbage tables must be
 * refused or answer nothing, never read out of bounds.  No process runs. */
#include <criterion/criterion.h>
#include <errno.h>
#include <fcntl.h>
#include <gelf.h>
#include <libelf.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "golang.h"
#include "lt_test.h"

static uint8_t *tab;
static size_t ntab;
static uint64_t text_lo, text_hi;

struct fsym {
	uint64_t addr;
	char name[128];
};
static struct fsym *fs;
static size_t nfs;

static void load(void)
{
	const char *path = WL("go/gowl");
	int fd = open(path, O_RDONLY);
	if (fd < 0)
		cr_skip_test("%s not built: go was missing at build time (Debian's golang-go)", path);
	elf_version(EV_CURRENT);
	Elf *e = elf_begin(fd, ELF_C_READ, NULL);
	cr_assert_not_null(e);
	size_t shstr;
	cr_assert_eq(elf_getshdrstrndx(e, &shstr), 0);
	for (Elf_Scn *s = NULL; (s = elf_nextscn(e, s));) {
		GElf_Shdr sh;
		gelf_getshdr(s, &sh);
		const char *n = elf_strptr(e, shstr, sh.sh_name);
		Elf_Data *d = elf_getdata(s, NULL);
		if (n && !strcmp(n, ".gopclntab")) {
			ntab = d->d_size;
			tab = malloc(ntab);
			memcpy(tab, d->d_buf, ntab);
		} else if (n && !strcmp(n, ".text")) {
			text_lo = sh.sh_addr;
			text_hi = sh.sh_addr + sh.sh_size;
		} else if (sh.sh_type == SHT_SYMTAB) {
			size_t k = sh.sh_size / sh.sh_entsize;
			fs = calloc(k, sizeof(*fs));
			for (size_t i = 0; i < k; i++) {
				GElf_Sym sym;
				gelf_getsym(d, (int)i, &sym);
				const char *sn = elf_strptr(e, sh.sh_link, sym.st_name);
				if (GELF_ST_TYPE(sym.st_info) != STT_FUNC || !sn || !*sn || !sym.st_size)
					continue;
				fs[nfs].addr = sym.st_value;
				/* assembly functions are "name.abi0" in the symbol
				 * table, "name" in the pclntab */
				size_t l = strlen(sn);
				if (l > 5 && !strcmp(sn + l - 5, ".abi0"))
					l -= 5;
				snprintf(fs[nfs].name, sizeof(fs[nfs].name), "%.*s", (int)l, sn);
				nfs++;
			}
		}
	}
	elf_end(e);
	close(fd);
	cr_assert_not_null(tab, "no .gopclntab in %s", path);
	cr_assert_gt(nfs, 1000);
}

/* Every Go function of the symbol table: found at its entry and in its
 * middle, with its name; its frame size at entry is 0 (nothing pushed
 * yet but the return address). */
Test(go_pcln, functions_match_the_symbol_table)
{
	load();
	struct lt_go_pcln p;
	cr_assert_eq(lt_go_pcln_init(&p, tab, ntab), 0);
	cr_assert_eq(p.ver, 118, "go1.19's pclntab is the 1.18 format");
	size_t checked = 0;
	for (size_t i = 0; i < nfs; i++) {
		if (fs[i].addr < text_lo || fs[i].addr >= text_hi)
			continue;
		uint64_t entry = 0;
		uint64_t fn = lt_go_pcln_func(&p, fs[i].addr, &entry);
		if (!fn)
			continue; /* assembly without a pclntab entry: none expected, counted below */
		cr_assert_eq(entry, fs[i].addr, "%s", fs[i].name);
		/* generated type functions and generic instances are named
		 * apart in the pclntab ("type..eq.[...]T" for the symbol
		 * table's "type..eq.[5]T", "nistCurve[...]" for
		 * "nistCurve[go.shape.*uint8_0]", a middle dot for a dot):
		 * those names are not compared */
		if (strncmp(fs[i].name, "type.", 5) && !strchr(fs[i].name, '['))
			cr_assert_str_eq(lt_go_pcln_name(&p, fn), fs[i].name);
		cr_assert_eq(lt_go_pcln_value(&p, fn, 0, entry), 0, "%s: frame size at entry", fs[i].name);
		checked++;
	}
	cr_assert_geq(checked, nfs * 9 / 10, "%zu of %zu functions found", checked, nfs);
	/* a known one: main.lockAB has a line and a file */
	for (size_t i = 0; i < nfs; i++)
		if (!strcmp(fs[i].name, "main.lockAB")) {
			uint64_t entry;
			uint64_t fn = lt_go_pcln_func(&p, fs[i].addr + 8, &entry);
			cr_assert_eq(entry, fs[i].addr);
			const char *file = lt_go_pcln_file(&p, fn, lt_go_pcln_value(&p, fn, 1, entry + 8));
			cr_assert(file && strstr(file, "gowl.go"), "%s", file ? file : "(none)");
			cr_assert_gt(lt_go_pcln_value(&p, fn, 2, entry + 8), 30);
			/* its end: its last byte is its own, the next the next
			 * function's entry */
			uint64_t end = lt_go_pcln_func_end(&p, fs[i].addr + 8), e2 = 0;
			cr_assert_gt(end, fs[i].addr + 8);
			cr_assert_eq(lt_go_pcln_func_end(&p, fs[i].addr), end);
			cr_assert(lt_go_pcln_func(&p, end - 1, &e2) && e2 == fs[i].addr);
			cr_assert(!lt_go_pcln_func(&p, end, &e2) || e2 == end);
		}
}

/* Damaged tables: refused, or every answer empty; never a crash (run
 * under make unit-asan too). */
Test(go_pcln, damaged_tables)
{
	load();
	struct lt_go_pcln p;
	uint8_t junk[256];
	memset(junk, 0xa5, sizeof(junk));
	cr_assert_eq(lt_go_pcln_init(&p, junk, sizeof(junk)), -EINVAL);
	cr_assert_eq(lt_go_pcln_init(&p, tab, 40), -EINVAL);
	/* cut anywhere: lookups stay inside the buffer */
	static const size_t cuts[] = { 72, 100, 4096, 65536 };
	for (size_t c = 0; c < sizeof(cuts) / sizeof(*cuts); c++) {
		size_t n = cuts[c] < ntab ? cuts[c] : ntab;
		uint8_t *cut = malloc(n);
		memcpy(cut, tab, n);
		if (lt_go_pcln_init(&p, cut, n) == 0)
			for (size_t i = 0; i < nfs; i += 97) {
				uint64_t entry;
				uint64_t fn = lt_go_pcln_func(&p, fs[i].addr, &entry);
				if (fn) {
					lt_go_pcln_name(&p, fn);
					lt_go_pcln_value(&p, fn, 0, fs[i].addr);
					lt_go_pcln_file(&p, fn, lt_go_pcln_value(&p, fn, 1, fs[i].addr));
					lt_go_pcln_pcdata(&p, fn, 2, fs[i].addr);
					lt_go_pcln_funcdata(&p, fn, 3);
				}
			}
		free(cut);
	}
	/* the real table with its pc-value tables scrambled */
	uint8_t *bad = malloc(ntab);
	memcpy(bad, tab, ntab);
	cr_assert_eq(lt_go_pcln_init(&p, bad, ntab), 0);
	for (size_t i = p.pctab; i < ntab && i < p.pctab + 200000; i++)
		bad[i] = (uint8_t)(i * 131 + 7) | 0x80;
	for (size_t i = 0; i < nfs; i += 13) {
		uint64_t entry;
		uint64_t fn = lt_go_pcln_func(&p, fs[i].addr, &entry);
		if (fn)
			lt_go_pcln_value(&p, fn, 2, fs[i].addr + 1);
	}
	free(bad);
}
