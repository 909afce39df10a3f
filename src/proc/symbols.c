/* Addresses of a live process -> names.
 *
 * /proc/PID/maps is parsed once into a sorted table (heap, stacks, anonymous
 * mappings); the file-backed modules are reported once to one libdwfl
 * session (dwfl_linux_proc_report, which reads /proc only, no ptrace).  Code
 * addresses are cached, so the 1,000 threads of a pool parked in the same
 * libc function cost one lookup.
 *
 * A module's symbol table and debug information are loaded only when an
 * address shown lies in it, and what they said is kept between runs per
 * build-id (symcache.h): a later snapshot that meets the same addresses
 * loads neither.  Symbols looked up by name (lock models) come from the
 * executable's tables and the other modules' dynamic symbols only, which
 * need no debug file. */
#include <dwarf.h>
#include <elfutils/libdw.h>
#include <elfutils/libdwfl.h>
#include <errno.h>
#include <inttypes.h>
#include <dirent.h>
#include <stdio.h>
#include <sys/stat.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "proclive.h"
#include "symbols.h"
#include "snapshot_int.h"
#include "symcache.h"
#include "u64map.h"
#include "grow.h"

struct modinfo {
	char *base;     /* basename of the module path */
	char *build_id; /* hex or NULL */
	bool is_main;   /* the executable */
	uint64_t bias;  /* process address - the ELF's own vaddr */
	struct lt_symcache *cache; /* NULL: no cache */
	bool symtab, dwarf; /* loaded (counted once) */
};


struct lt_sym {
	pid_t pid;
	unsigned flags;
	struct lt_mem mem;
	struct lt_map *maps;
	size_t n_maps;
	char *exe;
	Dwfl *dwfl;
	char *debuginfo_path;
	Dwfl_Callbacks cbs;
	struct lt_u64map frames; /* pc << 1 | activation -> struct lt_frame (ours) */
	struct lt_u64map inlines; /* the same key -> struct inl (ours), NULL none */
	unsigned symtabs, dwarfs; /* modules whose tables / debug info were loaded */
	char *unnamed_glibc; /* a glibc module with unnamed frames and no debug file */
};

static const char *base_name(const char *p)
{
	const char *s = strrchr(p, '/');
	return s ? s + 1 : p;
}

/* ---- maps ---- */

static int parse_maps(struct lt_sym *s, struct lt_strlist *notes)
{
	char path[64];
	snprintf(path, sizeof(path), "/proc/%d/maps", (int)lt_proc_reader(s->pid));
	char *text = lts_read_all(path, NULL);
	if (!text) {
		if (notes)
			lt_strlist_add(notes, "cannot read %s: %s", path, strerror(errno));
		return -errno;
	}
	size_t cap = 64;
	s->maps = malloc(cap * sizeof(*s->maps));
	if (!s->maps) {
		free(text);
		return -ENOMEM;
	}
	char *save = NULL;
	for (char *line = strtok_r(text, "\n", &save); line; line = strtok_r(NULL, "\n", &save)) {
		struct lt_map m = { 0 };
		unsigned long long start, end, off, inode;
		int pos = 0;
		if (sscanf(line, "%llx-%llx %4s %llx %*s %llu%n", &start, &end, m.perms, &off, &inode, &pos) < 5)
			continue;
		m.start = start;
		m.end = end;
		m.offset = off;
		m.inode = inode;
		const char *p = line + pos;
		while (*p == ' ')
			p++;
		if (*p) {
			m.path = strdup(p);
			if (!m.path)
				continue;
		}
		struct lt_map *nm = lt_grow(s->maps, &cap, s->n_maps, sizeof(*nm), 64);
		if (!nm) {
			free(m.path);
			break;
		}
		s->maps = nm;
		s->maps[s->n_maps++] = m;
	}
	free(text);
	return 0;
}

int lt_sym_reread_maps(struct lt_sym *s)
{
	if (!s)
		return -EINVAL;
	struct lt_map *old = s->maps;
	size_t n_old = s->n_maps;
	s->maps = NULL;
	s->n_maps = 0;
	int r = parse_maps(s, NULL);
	if (r < 0) {
		free(s->maps);
		s->maps = old;
		s->n_maps = n_old;
		return r;
	}
	/* what was noted of the mappings still there is kept (both tables
	 * are sorted by start) */
	size_t k = 0;
	for (size_t i = 0; i < s->n_maps; i++) {
		struct lt_map *m = &s->maps[i];
		while (k < n_old && old[k].start < m->start)
			k++;
		if (k < n_old && old[k].start == m->start && old[k].end == m->end &&
		    old[k].inode == m->inode)
			m->stack_tid = old[k].stack_tid;
	}
	for (size_t i = 0; i < n_old; i++)
		free(old[i].path);
	free(old);
	return 0;
}

static struct lt_map *map_at(const struct lt_sym *s, uint64_t addr)
{
	size_t lo = 0, hi = s->n_maps;
	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;
		struct lt_map *m = &s->maps[mid];
		if (addr < m->start)
			hi = mid;
		else if (addr >= m->end)
			lo = mid + 1;
		else
			return m;
	}
	return NULL;
}

const struct lt_map *lt_sym_map_at(const struct lt_sym *s, uint64_t addr)
{
	return s ? map_at(s, addr) : NULL;
}

bool lt_sym_is_code(const struct lt_sym *s, uint64_t addr)
{
	const struct lt_map *m = lt_sym_map_at(s, addr);
	return m && m->perms[2] == 'x';
}

/* The largest PROT_NONE mapping taken for a stack's guard: glibc's and
 * musl's are a page or a few, HotSpot's zones a few pages (64 KiB pages
 * included); Go reserves its heap arenas in 64 MiB pieces. */
#define MAX_GUARD (1u << 20)

/* Does m look like a thread's stack?  The main "[stack]", or an anonymous
 * writable mapping just above a small PROT_NONE guard: how pthreads (and
 * runtimes on top of them) allocate stacks.  A thread's sp says nothing
 * about other mappings: a Go goroutine's stack lives in a heap arena among
 * heap objects, which are no stack. */
static bool stack_like(const struct lt_sym *s, const struct lt_map *m)
{
	if (m->path)
		return strcmp(m->path, "[stack]") == 0;
	if (m == s->maps || m->perms[1] != 'w')
		return false;
	const struct lt_map *g = m - 1;
	return g->end == m->start && !g->path && !strncmp(g->perms, "---", 3) &&
	       g->end - g->start <= MAX_GUARD;
}

void lt_sym_note_stack(struct lt_sym *s, pid_t tid, uint64_t sp)
{
	if (!s || !sp)
		return;
	struct lt_map *m = map_at(s, sp);
	if (!m || !stack_like(s, m))
		return;
	/* the main "[stack]" belongs to the main thread even if another
	 * thread's sp is in it (sigaltstack on the main stack is rare) */
	if (m->stack_tid == 0 || (tid == s->pid && m->path && strcmp(m->path, "[stack]") == 0))
		m->stack_tid = tid;
}

bool lt_sym_stack_unclaimed(const struct lt_sym *s, uint64_t addr, uint64_t *start, uint64_t *end)
{
	const struct lt_map *m = s ? lt_sym_map_at(s, addr) : NULL;
	if (!m || m->path || m->stack_tid || !stack_like(s, m))
		return false;
	*start = m->start;
	*end = m->end;
	return true;
}

/* ---- Dwfl ---- */

static struct modinfo *mod_info(struct lt_sym *s, Dwfl_Module *mod)
{
	void **ud = NULL;
	const char *name = dwfl_module_info(mod, &ud, NULL, NULL, NULL, NULL, NULL, NULL);
	if (!ud)
		return NULL;
	if (*ud)
		return *ud;
	struct modinfo *mi = calloc(1, sizeof(*mi));
	if (!mi)
		return NULL;
	mi->base = strdup(name ? base_name(name) : "?");
	mi->is_main = name && s->exe && strcmp(name, s->exe) == 0;
	/* the build-id is known once the ELF is loaded */
	Dwarf_Addr bias = 0;
	dwfl_module_getelf(mod, &bias);
	mi->bias = bias;
	const unsigned char *bits;
	GElf_Addr vaddr;
	int n = dwfl_module_build_id(mod, &bits, &vaddr);
	if (n > 0) {
		mi->build_id = malloc((size_t)n * 2 + 1);
		if (mi->build_id) {
			for (int i = 0; i < n; i++)
				sprintf(mi->build_id + 2 * i, "%02x", bits[i]);
		}
	}
	mi->cache = lt_symcache_open(mi->build_id);
	*ud = mi;
	return mi;
}

/* Counts the first use of a module's symbol table or debug information. */
static void used(struct lt_sym *s, struct modinfo *mi, bool dwarf)
{
	if (!mi)
		return;
	if (dwarf && !mi->dwarf) {
		mi->dwarf = true;
		s->dwarfs++;
	} else if (!dwarf && !mi->symtab) {
		mi->symtab = true;
		s->symtabs++;
	}
}

void lt_sym_loads(const struct lt_sym *s, unsigned *symtabs, unsigned *debuginfo)
{
	*symtabs = s ? s->symtabs : 0;
	*debuginfo = s ? s->dwarfs : 0;
}

static int free_modinfo_cb(Dwfl_Module *mod, void **ud, const char *name, Dwarf_Addr base, void *arg)
{
	(void)mod, (void)name, (void)base, (void)arg;
	struct modinfo *mi = *ud;
	if (mi) {
		lt_symcache_close(mi->cache);
		free(mi->base);
		free(mi->build_id);
		free(mi);
		*ud = NULL;
	}
	return DWARF_CB_OK;
}

struct lt_sym *lt_sym_open(pid_t pid, unsigned flags, struct lt_strlist *notes)
{
	struct lt_sym *s = calloc(1, sizeof(*s));
	if (!s)
		return NULL;
	s->pid = pid;
	s->flags = flags;
	lt_mem_init(&s->mem, pid);
	if (parse_maps(s, notes) < 0) {
		lt_sym_close(s);
		return NULL;
	}
	char path[64], exe[4096];
	snprintf(path, sizeof(path), "/proc/%d/exe", (int)lt_proc_reader(pid));
	ssize_t n = readlink(path, exe, sizeof(exe) - 1);
	if (n > 0) {
		exe[n] = 0;
		s->exe = strdup(exe);
	}
	if (flags & LT_SYM_NO_DWFL)
		return s;

	s->cbs.find_elf = dwfl_linux_proc_find_elf;
	s->cbs.find_debuginfo = dwfl_standard_find_debuginfo;
	/* where separate debug files are looked for (libdwfl's syntax, default
	 * ":.debug:/usr/lib/debug"); tests point it away from /usr/lib/debug
	 * to check what works without debug symbols */
	const char *dip = getenv("LOCKTRACE_DEBUGINFO_PATH");
	s->debuginfo_path = dip ? strdup(dip) : NULL;
	s->cbs.debuginfo_path = &s->debuginfo_path;
	s->dwfl = dwfl_begin(&s->cbs);
	if (!s->dwfl) {
		if (notes)
			lt_strlist_add(notes, "libdwfl: %s: no symbols", dwfl_errmsg(-1));
		return s;
	}
	dwfl_report_begin(s->dwfl);
	int r = dwfl_linux_proc_report(s->dwfl, lt_proc_reader(pid));
	if (dwfl_report_end(s->dwfl, NULL, NULL) != 0 || r != 0) {
		if (notes)
			lt_strlist_add(notes, "libdwfl could not report the modules of %d: %s",
				       (int)pid, r > 0 ? strerror(r) : dwfl_errmsg(-1));
		if (r != 0) {
			dwfl_end(s->dwfl);
			s->dwfl = NULL;
		}
	}
	return s;
}

/* The calls inlined at a pc (lt_sym_expand_inlined): n frames, innermost
 * first, and the file and line of the outermost call in the function */
struct inl {
	size_t n;
	struct lt_frame *f;
	char *file;
	int line;
};

static void inl_free(struct inl *c)
{
	if (!c)
		return;
	for (size_t i = 0; i < c->n; i++)
		lt_frame_clear(&c->f[i]);
	free(c->f);
	free(c->file);
	free(c);
}

void lt_sym_close(struct lt_sym *s)
{
	if (!s)
		return;
	if (s->dwfl) {
		dwfl_getmodules(s->dwfl, free_modinfo_cb, NULL, 0);
		dwfl_end(s->dwfl);
	}
	for (size_t i = 0; i < s->frames.cap; i++)
		if (s->frames.keys[i]) {
			lt_frame_clear(s->frames.vals[i]);
			free(s->frames.vals[i]);
		}
	lt_u64map_free(&s->frames);
	for (size_t i = 0; i < s->inlines.cap; i++)
		if (s->inlines.keys[i])
			inl_free(s->inlines.vals[i]);
	lt_u64map_free(&s->inlines);
	for (size_t i = 0; i < s->n_maps; i++)
		free(s->maps[i].path);
	free(s->maps);
	free(s->exe);
	free(s->debuginfo_path);
	free(s->unnamed_glibc);
	lt_mem_close(&s->mem);
	free(s);
}

struct lt_mem *lt_sym_mem(struct lt_sym *s) { return &s->mem; }
struct Dwfl *lt_sym_dwfl(struct lt_sym *s) { return s->dwfl; }
pid_t lt_sym_pid(const struct lt_sym *s) { return s->pid; }

/* ---- data addresses ---- */

/* The end of a module's memory image: its highest PT_LOAD segment's
 * p_vaddr + p_memsz (the .bss included), relocated; 0 if its ELF is not at
 * hand. */
static uint64_t module_image_end(Dwfl_Module *mod)
{
	GElf_Addr bias = 0;
	Elf *elf = dwfl_module_getelf(mod, &bias);
	size_t n = 0;
	uint64_t end = 0;

	if (!elf || elf_getphdrnum(elf, &n))
		return 0;
	for (size_t i = 0; i < n; i++) {
		GElf_Phdr ph;
		if (gelf_getphdr(elf, (int)i, &ph) && ph.p_type == PT_LOAD && ph.p_vaddr + ph.p_memsz > end)
			end = ph.p_vaddr + ph.p_memsz;
	}
	return end ? bias + end : 0;
}

/* The module holding ADDR; for .bss that spilled into the anonymous mapping
 * right after a module's last file mapping, that module, if ADDR is inside
 * the module's image: whatever was mapped after it (a thread's stack, a
 * JIT's code, an arena) is not its .bss. */
static Dwfl_Module *module_for_data(struct lt_sym *s, uint64_t addr, const struct lt_map *m)
{
	if (!s->dwfl)
		return NULL;
	Dwfl_Module *mod = dwfl_addrmodule(s->dwfl, addr);
	/* a module's range may span what the kernel mapped elsewhere (a
	 * stack, the heap, an anonymous mapping past its image): those are
	 * named as what they are, never as module+offset */
	if (mod && m && (m->stack_tid || (m->path && m->path[0] != '/') ||
			 (!m->path && addr >= module_image_end(mod))))
		mod = NULL;
	if (mod || !m || m->path || m == s->maps || m->stack_tid)
		return mod;
	const struct lt_map *prev = m - 1;
	if (prev->end != m->start || !prev->path || prev->path[0] != '/')
		return NULL;
	mod = dwfl_addrmodule(s->dwfl, prev->end - 1);
	return mod && addr < module_image_end(mod) ? mod : NULL;
}

/* The symbol that contains the data address addr of mod: from the cache,
 * else from the module's symbol table (and kept).  d->name NULL: none. */
static void data_symbol(struct lt_sym *s, Dwfl_Module *mod, struct modinfo *mi, uint64_t addr,
			struct lt_symcache_data *d)
{
	const struct lt_symcache_data *c = mi ? lt_symcache_data(mi->cache, addr - mi->bias) : NULL;
	if (c) {
		*d = *c;
		return;
	}
	GElf_Off off = 0;
	GElf_Sym sym;
	used(s, mi, false);
	const char *name = dwfl_module_addrinfo(mod, addr, &off, &sym, NULL, NULL, NULL);
	*d = (struct lt_symcache_data){ (char *)name, off, name ? sym.st_size : 0 };
	if (mi)
		lt_symcache_add_data(mi->cache, addr - mi->bias, d);
}

/* A module's data address: "sym+0x10" in the executable, "lib:sym+0x10"
 * in a library, "lib+0x1234" outside any symbol. */
static char *describe_in(struct lt_sym *s, Dwfl_Module *mod, uint64_t addr)
{
	struct modinfo *mi = mod_info(s, mod);
	struct lt_symcache_data d;
	data_symbol(s, mod, mi, addr, &d);
	/* a sized symbol must contain the address; a sizeless one is only
	 * trusted close by */
	if (d.name && ((d.size && d.off < d.size) || (!d.size && d.off < 4096))) {
		char offs[32] = "";
		if (d.off)
			snprintf(offs, sizeof(offs), "+0x%" PRIx64, d.off);
		if (mi && mi->is_main)
			return lts_asprintf("%s%s", d.name, offs);
		return lts_asprintf("%s:%s%s", mi ? mi->base : "?", d.name, offs);
	}
	Dwarf_Addr base = 0;
	dwfl_module_info(mod, NULL, &base, NULL, NULL, NULL, NULL, NULL);
	return lts_asprintf("%s+0x%" PRIx64, mi ? mi->base : "?", addr - base);
}

/* A named POSIX semaphore: glibc's sem_open creates it under a temporary
 * name in /dev/shm, maps it and links it to its name, so the mapping names
 * the unlinked temporary ("/dev/shm/sem.wZ0vXo (deleted)") though the file
 * lives on as /dev/shm/sem.NAME: that name, found by the inode, or NULL. */
static char *shm_live_name(const struct lt_map *m)
{
	size_t n = strlen(m->path);
	static const char del[] = " (deleted)";
	if (strncmp(m->path, "/dev/shm/sem.", 13) || n < sizeof(del) || strcmp(m->path + n - (sizeof(del) - 1), del))
		return NULL;
	DIR *d = opendir("/dev/shm");
	if (!d)
		return NULL;
	char *found = NULL;
	struct dirent *e;
	while (!found && (e = readdir(d))) {
		struct stat st;
		char p[300];
		if (strncmp(e->d_name, "sem.", 4))
			continue;
		snprintf(p, sizeof(p), "/dev/shm/%s", e->d_name);
		if (stat(p, &st) == 0 && (uint64_t)st.st_ino == m->inode)
			found = lts_strdup(e->d_name);
	}
	closedir(d);
	return found;
}

char *lt_sym_describe(struct lt_sym *s, uint64_t addr)
{
	if (!s)
		return NULL;
	const struct lt_map *m = map_at(s, addr);
	if (!m)
		return lts_strdup("unmapped");
	char *live = m->path ? shm_live_name(m) : NULL;
	if (live) {
		char *r = lts_asprintf("%s+0x%" PRIx64, live, addr - m->start + m->offset);
		free(live);
		return r;
	}
	Dwfl_Module *mod = module_for_data(s, addr, m);
	if (mod)
		return describe_in(s, mod, addr);
	if (m->stack_tid)
		return lts_asprintf("[stack of thread %d]", (int)m->stack_tid);
	if (m->path && strcmp(m->path, "[stack]") == 0)
		return lts_asprintf("[stack of thread %d]", (int)s->pid);
	if (m->path && m->path[0] == '/')
		return lts_asprintf("%s+0x%" PRIx64, base_name(m->path), addr - m->start + m->offset);
	if (m->path)
		return lts_strdup(m->path); /* [heap], [vdso], [anon:name] */
	return lts_asprintf("[anonymous mapping 0x%" PRIx64 "]", m->start);
}

/* ---- code addresses ---- */

/* What the module's tables say of the code address lookup (the symbol,
 * and with lines its source line), loading them if need be. */
static void code_symbol(struct lt_sym *s, Dwfl_Module *mod, struct modinfo *mi, uint64_t lookup,
			bool lines, struct lt_symcache_frame *f)
{
	GElf_Off off = 0;
	GElf_Sym sym;
	used(s, mi, false);
	const char *name = dwfl_module_addrinfo(mod, lookup, &off, &sym, NULL, NULL, NULL);
	*f = (struct lt_symcache_frame){ (char *)name, off, NULL, 0, lines };
	if (lines) {
		used(s, mi, true);
		Dwfl_Line *l = dwfl_module_getsrc(mod, lookup);
		f->file = l ? (char *)dwfl_lineinfo(l, NULL, &f->line, NULL, NULL, NULL) : NULL;
	}
}

bool lt_sym_is_glibc(const char *module)
{
	static const char *const pre[] = { "libc.so", "libc-2.", "ld-linux", "libpthread.so",
					   "libpthread-", "libm.so", "libdl.so", "librt.so" };
	for (size_t i = 0; module && i < sizeof(pre) / sizeof(*pre); i++)
		if (!strncmp(module, pre[i], strlen(pre[i])))
			return true;
	return false;
}

/* Whether a separate debug file for the module's build-id is in one of the
 * absolute directories of the debug-info path (/usr/lib/debug by default:
 * where Debian's libc6-dbg puts .build-id/xx/yyyy.debug). */
static bool have_debug_file(const struct lt_sym *s, const struct modinfo *mi)
{
	if (!mi->build_id || strlen(mi->build_id) < 3)
		return false;
	const char *p = s->debuginfo_path ? s->debuginfo_path : "/usr/lib/debug";
	while (*p) {
		size_t n = strcspn(p, ":");
		char path[4096];
		if (n && p[0] == '/' &&
		    snprintf(path, sizeof(path), "%.*s/.build-id/%.2s/%s.debug", (int)n, p, mi->build_id,
			     mi->build_id + 2) < (int)sizeof(path) &&
		    access(path, R_OK) == 0)
			return true;
		p += n + (p[n] == ':');
	}
	return false;
}

void lt_sym_debug_notes(const struct lt_sym *s, struct lt_strlist *notes)
{
	if (s && s->unnamed_glibc && notes)
		lt_strlist_add(notes, "%s has no debug symbols here: glibc's internal frames are "
			       "unnamed (install libc6-dbg for glibc frame names)", s->unnamed_glibc);
}

const char *lt_sym_unnamed_glibc(const struct lt_sym *s)
{
	return s ? s->unnamed_glibc : NULL;
}

static void symbolize(struct lt_sym *s, uint64_t pc, bool activation, struct lt_frame *out)
{
	uint64_t lookup = activation ? pc : pc - 1;
	bool lines = !(s->flags & LT_SYM_NO_LINES);
	Dwfl_Module *mod = s->dwfl ? dwfl_addrmodule(s->dwfl, lookup) : NULL;
	if (!mod) {
		const struct lt_map *m = map_at(s, lookup);
		if (m && m->path)
			out->module = strdup(base_name(m->path));
		return;
	}
	struct modinfo *mi = mod_info(s, mod);
	if (mi) {
		out->module = lts_strdup(mi->base);
		out->build_id = lts_strdup(mi->build_id);
	}
	struct lt_symcache_frame f;
	const struct lt_symcache_frame *c = mi ? lt_symcache_frame(mi->cache, lookup - mi->bias) : NULL;
	if (c && (c->lines || !lines)) {
		f = *c;
	} else {
		code_symbol(s, mod, mi, lookup, lines, &f);
		if (mi)
			lt_symcache_add_frame(mi->cache, lookup - mi->bias, &f);
	}
	if (f.func) {
		out->func = strdup(f.func);
		out->func_off = f.off + (pc - lookup); /* offset of pc itself */
	} else if (mi && !s->unnamed_glibc && lt_sym_is_glibc(mi->base) && !have_debug_file(s, mi)) {
		s->unnamed_glibc = strdup(mi->base);
	}
	if (lines && f.file) {
		out->file = strdup(f.file);
		out->line = f.line;
	}
}

static int frame_copy(struct lt_frame *dst, const struct lt_frame *src)
{
	*dst = *src;
	dst->func = lts_strdup(src->func);
	dst->module = lts_strdup(src->module);
	dst->build_id = lts_strdup(src->build_id);
	dst->file = lts_strdup(src->file);
	return 0;
}

void lt_sym_frame(struct lt_sym *s, uint64_t pc, bool activation, struct lt_frame *out)
{
	memset(out, 0, sizeof(*out));
	out->pc = pc;
	out->activation = activation;
	if (!s || (!activation && pc == 0))
		return;
	uint64_t key = pc << 1 | (activation ? 1 : 0);
	if (key == 0)
		key = 1;
	const struct lt_frame *known = lt_u64map_get(&s->frames, key);
	if (known) {
		frame_copy(out, known);
		return;
	}
	struct lt_frame *f = calloc(1, sizeof(*f));
	if (!f || lt_u64map_put(&s->frames, key, f)) {
		free(f); /* out of memory: not cached */
		symbolize(s, pc, activation, out);
		return;
	}
	f->pc = pc;
	f->activation = activation;
	symbolize(s, pc, activation, f);
	frame_copy(out, f);
}

/* ---- inlined calls ---- */

/* The calls inlined at code address lookup of mod into c (none when its
 * DWARF says none, or has no DWARF) */
static void inline_chain(Dwfl_Module *mod, uint64_t lookup, struct inl *c)
{
	Dwarf_Addr bias = 0;
	Dwarf_Die *cu = dwfl_module_addrdie(mod, lookup, &bias);
	if (!cu || dwarf_srclang(cu) == DW_LANG_Go)
		return;
	/* the innermost function scope at pc (dwarf_getscopes), then the
	 * scopes that hold it in the concrete tree (dwarf_getscopes_die):
	 * each inlined call inside the next, up to the function's own */
	Dwarf_Die *at = NULL, *scopes = NULL;
	int na = dwarf_getscopes(cu, lookup - bias, &at), first = -1;
	for (int i = 0; i < na && first < 0; i++)
		if (dwarf_tag(&at[i]) == DW_TAG_inlined_subroutine || dwarf_tag(&at[i]) == DW_TAG_subprogram)
			first = i;
	int ns = first >= 0 && dwarf_tag(&at[first]) == DW_TAG_inlined_subroutine ?
		 dwarf_getscopes_die(&at[first], &scopes) : 0;
	free(at);
	int nin = 0;
	for (int i = 0; i < ns && dwarf_tag(&scopes[i]) != DW_TAG_subprogram; i++)
		nin += dwarf_tag(&scopes[i]) == DW_TAG_inlined_subroutine;
	if (nin <= 0 || !(c->f = calloc((size_t)nin, sizeof(*c->f)))) {
		free(scopes);
		return;
	}
	/* the innermost call's line is pc's; each outer one's, the call's */
	int line = 0;
	const char *file = NULL;
	Dwfl_Line *l = dwfl_module_getsrc(mod, lookup);
	if (l)
		file = dwfl_lineinfo(l, NULL, &line, NULL, NULL, NULL);
	Dwarf_Files *files = NULL;
	size_t nfiles = 0;
	if (dwarf_getsrcfiles(cu, &files, &nfiles) != 0)
		files = NULL;
	for (int i = 0; i < ns && dwarf_tag(&scopes[i]) != DW_TAG_subprogram; i++) {
		if (dwarf_tag(&scopes[i]) != DW_TAG_inlined_subroutine)
			continue;
		struct lt_frame *f = &c->f[c->n++];
		const char *name = dwarf_diename(&scopes[i]);
		f->func = name ? strdup(name) : NULL;
		f->file = file ? strdup(file) : NULL;
		f->line = line;
		f->inlined = true;
		Dwarf_Attribute a;
		Dwarf_Word cf = 0, cl = 0;
		if (dwarf_formudata(dwarf_attr(&scopes[i], DW_AT_call_line, &a), &cl) != 0)
			cl = 0;
		file = NULL;
		if (files && dwarf_formudata(dwarf_attr(&scopes[i], DW_AT_call_file, &a), &cf) == 0 &&
		    cf < nfiles)
			file = dwarf_filesrc(files, cf, NULL, NULL);
		line = (int)cl;
	}
	c->file = file ? strdup(file) : NULL;
	c->line = line;
	free(scopes);
}

/* The calls inlined at pc, cached; NULL none or out of memory */
static const struct inl *inlined_at(struct lt_sym *s, uint64_t pc, bool activation)
{
	uint64_t key = pc << 1 | (activation ? 1 : 0);
	if (!key)
		return NULL;
	void **known = lt_u64map_ref(&s->inlines, key);
	if (known)
		return *known;
	uint64_t lookup = activation ? pc : pc - 1;
	Dwfl_Module *mod = s->dwfl ? dwfl_addrmodule(s->dwfl, lookup) : NULL;
	struct inl *c = mod ? calloc(1, sizeof(*c)) : NULL;
	if (c) {
		struct modinfo *mi = mod_info(s, mod);
		if (mi)
			used(s, mi, true);
		inline_chain(mod, lookup, c);
		if (!c->n) {
			inl_free(c);
			c = NULL;
		}
	}
	if (lt_u64map_put(&s->inlines, key, c)) {
		inl_free(c);
		return NULL;
	}
	return c;
}

void lt_sym_expand_inlined(struct lt_sym *s, struct lt_frame **frames, size_t *n, size_t max)
{
	if (!s || (s->flags & LT_SYM_NO_LINES) || !*n)
		return;
	size_t extra = 0;
	for (size_t i = 0; i < *n; i++) {
		const struct inl *c = inlined_at(s, (*frames)[i].pc, (*frames)[i].activation);
		extra += c ? c->n : 0;
	}
	if (!extra)
		return;
	struct lt_frame *v = calloc(*n + extra, sizeof(*v));
	if (!v)
		return;
	size_t k = 0;
	for (size_t i = 0; i < *n; i++) {
		struct lt_frame *f = &(*frames)[i];
		const struct inl *c = inlined_at(s, f->pc, f->activation);
		if (c && k + c->n + (*n - i) <= max) {
			for (size_t j = 0; j < c->n; j++) {
				frame_copy(&v[k], &c->f[j]);
				v[k].pc = f->pc;
				v[k].activation = f->activation;
				v[k].func_off = 0;
				v[k].module = lts_strdup(f->module);
				v[k].build_id = lts_strdup(f->build_id);
				k++;
			}
			free(f->file);
			f->file = lts_strdup(c->file);
			f->line = c->line;
		}
		v[k++] = *f; /* its strings move */
	}
	free(*frames);
	*frames = v;
	*n = k;
}

/* ---- symbols by name ---- */

struct lookup_req {
	struct lt_sym *s;
	const char *name;
	bool main_only, skip_main;
	bool found;
	uint64_t addr, size;
};

/* The executable's own symbol table (.symtab, else .dynsym): name's ELF
 * vaddr and size.  1 found, 0 not. */
static int in_symtab(Dwfl_Module *mod, uint64_t bias, const char *name, uint64_t *vaddr,
		     uint64_t *size)
{
	int n = dwfl_module_getsymtab(mod);
	for (int i = 1; i < n; i++) {
		GElf_Sym sym;
		GElf_Addr addr;
		const char *nm = dwfl_module_getsym_info(mod, i, &sym, &addr, NULL, NULL, NULL);
		if (!nm || sym.st_shndx == SHN_UNDEF || strcmp(nm, name) != 0)
			continue;
		*vaddr = addr - bias;
		*size = sym.st_size;
		return 1;
	}
	return 0;
}

/* A library's dynamic symbols, straight from its ELF file (no debug file
 * to find and read): what a runtime exports.  1 found, 0 not. */
static int in_dynsym(Dwfl_Module *mod, const char *name, uint64_t *vaddr, uint64_t *size)
{
	GElf_Addr bias;
	Elf *elf = dwfl_module_getelf(mod, &bias);
	Elf_Scn *scn = NULL;
	GElf_Shdr sh;

	while (elf && (scn = elf_nextscn(elf, scn))) {
		Elf_Data *d;
		if (!gelf_getshdr(scn, &sh) || sh.sh_type != SHT_DYNSYM || !sh.sh_entsize ||
		    !(d = elf_getdata(scn, NULL)))
			continue;
		for (size_t i = 1; i < sh.sh_size / sh.sh_entsize; i++) {
			GElf_Sym sym;
			const char *nm;
			if (!gelf_getsym(d, (int)i, &sym) || sym.st_shndx == SHN_UNDEF ||
			    !(nm = elf_strptr(elf, sh.sh_link, sym.st_name)) || strcmp(nm, name))
				continue;
			*vaddr = sym.st_value;
			*size = sym.st_size;
			return 1;
		}
	}
	return 0;
}

static int lookup_cb(Dwfl_Module *mod, void **ud, const char *mname, Dwarf_Addr base, void *arg)
{
	(void)ud, (void)base;
	struct lookup_req *q = arg;
	bool is_main = mname && q->s->exe && strcmp(mname, q->s->exe) == 0;
	if ((q->main_only && !is_main) || (q->skip_main && is_main))
		return DWARF_CB_OK;
	struct modinfo *mi = mod_info(q->s, mod);
	uint64_t vaddr = 0, size = 0, bias = mi ? mi->bias : 0;
	int found = mi ? lt_symcache_name(mi->cache, q->name, &vaddr, &size) : -1;
	if (found < 0) {
		if (is_main) /* a library's dynamic symbols cost next to nothing */
			used(q->s, mi, false);
		found = is_main ? in_symtab(mod, bias, q->name, &vaddr, &size)
				: in_dynsym(mod, q->name, &vaddr, &size);
		if (mi)
			lt_symcache_add_name(mi->cache, q->name, found, vaddr, size);
	}
	if (!found)
		return DWARF_CB_OK;
	q->found = true;
	q->addr = vaddr + bias;
	q->size = size;
	return DWARF_CB_ABORT;
}

int lt_sym_lookup(struct lt_sym *s, const char *name, uint64_t *addr, uint64_t *size)
{
	if (!s || !s->dwfl || !name)
		return -ENOENT;
	struct lookup_req q = { .s = s, .name = name, .main_only = true };
	dwfl_getmodules(s->dwfl, lookup_cb, &q, 0);
	if (!q.found) {
		q.main_only = false;
		q.skip_main = true;
		dwfl_getmodules(s->dwfl, lookup_cb, &q, 0);
	}
	if (!q.found)
		return -ENOENT;
	*addr = q.addr;
	if (size)
		*size = q.size;
	return 0;
}
