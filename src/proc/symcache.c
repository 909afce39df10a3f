// SPDX-License-Identifier: MIT
/* See symcache.h.  File format: the line "locktrace-symcache 1", then one
 * entry per line, fields separated by tabs (an entry whose strings hold a
 * tab or a newline is not kept), numbers in hex:
 *   f VADDR LINES OFF LINE FUNC FILE   a code address (FUNC/FILE "" = none)
 *   d VADDR OFF SIZE NAME              a data address (NAME "" = none)
 *   s FOUND VADDR SIZE NAME            a symbol looked up by name
 * Later entries win. */
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <pthread.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>
#include "symcache.h"
#include "u64map.h"
#include "grow.h"

#define MAGIC "locktrace-symcache 1\n"

struct nentry {
	struct nentry *next;
	char *name;
	int found;
	uint64_t vaddr, size;
};

struct lt_symcache {
	char path[PATH_MAX];
	struct lt_u64map frames, data; /* vaddr + 1 -> entry */
	struct nentry *names;
	char *add;                     /* lines added since open */
	size_t add_len, add_cap;
	int bad;                       /* the file is not ours: never written */
};

/* ---- the directory ---- */

static char dir[PATH_MAX];
static pthread_once_t dir_once = PTHREAD_ONCE_INIT;

/* A directory of ours that only we can write, created if missing. */
static int ours(const char *path, int create)
{
	struct stat st;
	if (create && mkdir(path, 0700) && errno != EEXIST)
		return 0;
	return !lstat(path, &st) && S_ISDIR(st.st_mode) && st.st_uid == geteuid() &&
	       !(st.st_mode & 022);
}

static void find_dir(void)
{
	const char *env = getenv("LOCKTRACE_CACHE_DIR"), *xdg = getenv("XDG_CACHE_HOME");
	const char *home = getenv("HOME");
	char parent[PATH_MAX];
	int n;

	if (env) {
		if (!*env || !strcmp(env, "off"))
			return;
		n = snprintf(dir, sizeof(dir), "%s", env);
	} else if (xdg && xdg[0] == '/') {
		n = snprintf(dir, sizeof(dir), "%s/locktrace", xdg);
	} else if (home && home[0] == '/') {
		snprintf(parent, sizeof(parent), "%s/.cache", home);
		if (!ours(parent, 1)) /* someone else's home (sudo -E): no cache */
			return;
		n = snprintf(dir, sizeof(dir), "%s/.cache/locktrace", home);
	} else {
		return;
	}
	if (n <= 0 || (size_t)n >= sizeof(dir) - 64 || !ours(dir, 1))
		dir[0] = 0;
}

const char *lt_symcache_dir(void)
{
	pthread_once(&dir_once, find_dir);
	return dir[0] ? dir : NULL;
}

/* ---- entries ---- */

static char *dup_or_null(const char *s)
{
	return s && *s ? strdup(s) : NULL;
}

static void free_frame(struct lt_symcache_frame *f)
{
	if (f) {
		free(f->func);
		free(f->file);
		free(f);
	}
}

static void free_data(struct lt_symcache_data *d)
{
	if (d) {
		free(d->name);
		free(d);
	}
}

static void put_frame(struct lt_symcache *c, uint64_t vaddr, const struct lt_symcache_frame *f)
{
	struct lt_symcache_frame *e = calloc(1, sizeof(*e));
	if (!e)
		return;
	*e = *f;
	e->func = dup_or_null(f->func);
	e->file = dup_or_null(f->file);
	free_frame(lt_u64map_get(&c->frames, vaddr + 1));
	if (lt_u64map_put(&c->frames, vaddr + 1, e))
		free_frame(e);
}

static void put_data(struct lt_symcache *c, uint64_t vaddr, const struct lt_symcache_data *d)
{
	struct lt_symcache_data *e = calloc(1, sizeof(*e));
	if (!e)
		return;
	*e = *d;
	e->name = dup_or_null(d->name);
	free_data(lt_u64map_get(&c->data, vaddr + 1));
	if (lt_u64map_put(&c->data, vaddr + 1, e))
		free_data(e);
}

static void put_name(struct lt_symcache *c, const char *name, int found, uint64_t vaddr, uint64_t size)
{
	struct nentry *e = calloc(1, sizeof(*e));
	if (!e || !(e->name = strdup(name))) {
		free(e);
		return;
	}
	e->found = found;
	e->vaddr = vaddr;
	e->size = size;
	e->next = c->names; /* the newest first: later entries win */
	c->names = e;
}

/* ---- the file ---- */

/* Splits line at tabs into at most max fields; their count. */
static int fields(char *line, char **f, int max)
{
	int n = 0;
	for (char *p = line; n < max; p++) {
		f[n++] = p;
		if (!(p = strchr(p, '\t')))
			break;
		*p = 0;
	}
	return n;
}

static void parse_line(struct lt_symcache *c, char *line)
{
	char *f[8];
	int n = fields(line, f, 8);
	uint64_t a = strtoull(f[1 < n ? 1 : 0], NULL, 16);

	if (n == 7 && !strcmp(f[0], "f")) {
		struct lt_symcache_frame fr = { f[5], strtoull(f[3], NULL, 16), f[6],
						(int)strtol(f[4], NULL, 16), f[2][0] == '1' };
		put_frame(c, a, &fr);
	} else if (n == 5 && !strcmp(f[0], "d")) {
		struct lt_symcache_data d = { f[4], strtoull(f[2], NULL, 16), strtoull(f[3], NULL, 16) };
		put_data(c, a, &d);
	} else if (n == 5 && !strcmp(f[0], "s")) {
		put_name(c, f[4], f[1][0] == '1', strtoull(f[2], NULL, 16), strtoull(f[3], NULL, 16));
	}
}

/* A regular file of ours, and its size (0 when it does not exist). */
static int file_ok(int fd, off_t *size)
{
	struct stat st;
	if (fstat(fd, &st) || !S_ISREG(st.st_mode) || st.st_uid != geteuid() || (st.st_mode & 022))
		return 0;
	*size = st.st_size;
	return 1;
}

static void load(struct lt_symcache *c)
{
	off_t size;
	int fd = open(c->path, O_RDONLY | O_NOFOLLOW | O_CLOEXEC);

	if (fd < 0) {
		c->bad = errno != ENOENT;
		return;
	}
	char *text = NULL;
	if (!file_ok(fd, &size) || size > LT_SYMCACHE_MAX || !(text = malloc((size_t)size + 1)) ||
	    read(fd, text, (size_t)size) != size || strncmp(text, MAGIC, sizeof(MAGIC) - 1)) {
		c->bad = 1;
		free(text);
		close(fd);
		return;
	}
	close(fd);
	text[size] = 0;
	char *save = NULL;
	for (char *l = strtok_r(text + sizeof(MAGIC) - 1, "\n", &save); l; l = strtok_r(NULL, "\n", &save))
		parse_line(c, l);
	free(text);
}

struct lt_symcache *lt_symcache_open(const char *build_id)
{
	const char *d = lt_symcache_dir();
	if (!d || !build_id || strspn(build_id, "0123456789abcdef") != strlen(build_id))
		return NULL;
	struct lt_symcache *c = calloc(1, sizeof(*c));
	if (!c)
		return NULL;
	int n = snprintf(c->path, sizeof(c->path), "%s/%s", d, build_id);
	if (n < 0 || (size_t)n >= sizeof(c->path)) {
		free(c);
		return NULL;
	}
	load(c);
	return c;
}

static void append(struct lt_symcache *c)
{
	off_t size;
	int fd = open(c->path, O_WRONLY | O_APPEND | O_CREAT | O_NOFOLLOW | O_CLOEXEC, 0600);

	if (fd < 0)
		return;
	if (file_ok(fd, &size) && size + (off_t)c->add_len + 64 <= LT_SYMCACHE_MAX) {
		ssize_t w = size ? 0 : write(fd, MAGIC, sizeof(MAGIC) - 1);
		if (w >= 0) /* one write: concurrent runs do not interleave */
			w = write(fd, c->add, c->add_len);
		(void)w;
	}
	close(fd);
}

static void free_map(struct lt_u64map *m, int frames)
{
	for (size_t i = 0; i < m->cap; i++)
		if (m->keys[i]) {
			if (frames)
				free_frame(m->vals[i]);
			else
				free_data(m->vals[i]);
		}
	lt_u64map_free(m);
}

void lt_symcache_close(struct lt_symcache *c)
{
	if (!c)
		return;
	if (c->add_len && !c->bad)
		append(c);
	free(c->add);
	free_map(&c->frames, 1);
	free_map(&c->data, 0);
	while (c->names) {
		struct nentry *e = c->names;
		c->names = e->next;
		free(e->name);
		free(e);
	}
	free(c);
}

/* ---- look-ups and additions ---- */

/* Strings that would break a line are not kept. */
static int clean(const char *s)
{
	return !s || !strpbrk(s, "\t\n");
}

static void add_line(struct lt_symcache *c, const char *fmt, ...)
{
	va_list ap;
	char line[2048];

	va_start(ap, fmt);
	int n = vsnprintf(line, sizeof(line), fmt, ap);
	va_end(ap);
	if (n <= 0 || (size_t)n >= sizeof(line))
		return;
	char *nb = lt_grow_to(c->add, &c->add_cap, c->add_len + (size_t)n, 1, 4096);
	if (!nb)
		return;
	c->add = nb;
	memcpy(c->add + c->add_len, line, (size_t)n);
	c->add_len += (size_t)n;
}

const struct lt_symcache_frame *lt_symcache_frame(struct lt_symcache *c, uint64_t vaddr)
{
	return c ? lt_u64map_get(&c->frames, vaddr + 1) : NULL;
}

void lt_symcache_add_frame(struct lt_symcache *c, uint64_t vaddr, const struct lt_symcache_frame *f)
{
	if (!c || !clean(f->func) || !clean(f->file))
		return;
	put_frame(c, vaddr, f);
	add_line(c, "f\t%llx\t%d\t%llx\t%x\t%s\t%s\n", (unsigned long long)vaddr, f->lines ? 1 : 0,
		 (unsigned long long)f->off, (unsigned)f->line, f->func ? f->func : "",
		 f->file ? f->file : "");
}

const struct lt_symcache_data *lt_symcache_data(struct lt_symcache *c, uint64_t vaddr)
{
	return c ? lt_u64map_get(&c->data, vaddr + 1) : NULL;
}

void lt_symcache_add_data(struct lt_symcache *c, uint64_t vaddr, const struct lt_symcache_data *d)
{
	if (!c || !clean(d->name))
		return;
	put_data(c, vaddr, d);
	add_line(c, "d\t%llx\t%llx\t%llx\t%s\n", (unsigned long long)vaddr, (unsigned long long)d->off,
		 (unsigned long long)d->size, d->name ? d->name : "");
}

int lt_symcache_name(struct lt_symcache *c, const char *name, uint64_t *vaddr, uint64_t *size)
{
	for (struct nentry *e = c ? c->names : NULL; e; e = e->next) {
		if (strcmp(e->name, name))
			continue;
		*vaddr = e->vaddr;
		*size = e->size;
		return e->found;
	}
	return -1;
}

void lt_symcache_add_name(struct lt_symcache *c, const char *name, int found, uint64_t vaddr,
			  uint64_t size)
{
	if (!c || !*name || !clean(name))
		return;
	put_name(c, name, found, vaddr, size);
	add_line(c, "s\t%d\t%llx\t%llx\t%s\n", found ? 1 : 0, (unsigned long long)vaddr,
		 (unsigned long long)size, name);
}
