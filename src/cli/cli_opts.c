// SPDX-License-Identifier: MIT
/* The option tables of the commands (cli_opts.h): getopt_long's arrays and
 * the --help text, built from one table. */
#include <stdarg.h>
#include <string.h>
#include "cli_opts.h"
#include "cli.h"

/* Help lines end before this column. */
#define WIDTH 80
/* An option's help starts in the column after its longest "-x, --name ARG"
 * up to this; a longer one has its help on the next line. */
#define LEFT_MAX 26

static const struct lt_opt builtin[] = {
	{ "help", LT_OPT_HELP, NULL, "this help" },
	{ "version", LT_OPT_VERSION, NULL, "print locktrace's version" },
	{ 0 },
};

const struct lt_opt *lt_cli_builtin_opts(void)
{
	return builtin;
}

static int has_letter(const struct lt_opt *o)
{
	return o->key > 0 && o->key < LT_OPT_LONG;
}

static int add(struct lt_getopt *g, size_t *n, size_t *s, const struct lt_opt *o)
{
	if (*n >= LT_OPTS_MAX || *s + 3 >= sizeof(g->optstring)) {
		lt_err("the option table of this command is too large (at --%s)", o->name);
		return -1;
	}
	g->longopts[(*n)++] = (struct option){ o->name, o->arg ? required_argument : no_argument, NULL,
					       o->key };
	if (has_letter(o)) {
		g->optstring[(*s)++] = (char)o->key;
		if (o->arg)
			g->optstring[(*s)++] = ':';
	}
	g->optstring[*s] = 0;
	return 0;
}

int lt_getopt_init(struct lt_getopt *g, const struct lt_cli *cli)
{
	size_t n = 0, s = 0;

	memset(g, 0, sizeof(*g));
	g->cli = cli;
	if (cli->optstring0) {
		s = strlen(cli->optstring0);
		if (s >= sizeof(g->optstring) / 2)
			return -1;
		memcpy(g->optstring, cli->optstring0, s + 1);
	}
	for (const struct lt_opt *o = cli->opts; o && (o->name || o->help); o++)
		if (o->name && add(g, &n, &s, o))
			return -1;
	for (const struct lt_opt *o = builtin; o->name; o++)
		if (add(g, &n, &s, o))
			return -1;
	optind = 0; /* a full re-initialisation: main may have run getopt */
	return 0;
}

int lt_getopt_next(struct lt_getopt *g, int argc, char **argv)
{
	int c = getopt_long(argc, argv, g->optstring, g->longopts, NULL);

	switch (c) {
	case LT_OPT_HELP:
		lt_cli_usage(stdout, g->cli);
		g->status = 0;
		return LT_CLI_EXIT;
	case LT_OPT_VERSION:
		printf("%s\n", lt_version_string());
		g->status = 0;
		return LT_CLI_EXIT;
	case '?':
	case ':':
		lt_cli_usage(stderr, g->cli);
		g->status = 2;
		return LT_CLI_EXIT;
	default:
		return c;
	}
}

/* "  -j, --json" or "      --from TRACE" into buf; its length. */
static size_t left_part(const struct lt_opt *o, char *buf, size_t len)
{
	int w = snprintf(buf, len, "  %c%c%s--%s%s%s", has_letter(o) ? '-' : ' ',
			 has_letter(o) ? o->key : ' ', has_letter(o) ? ", " : "  ", o->name,
			 o->arg ? " " : "", o->arg ? o->arg : "");
	return w < 0 ? 0 : (size_t)w >= len ? len - 1 : (size_t)w;
}

/* Text at column indent (where the cursor is), words wrapped before WIDTH,
 * continued lines indented as much; "\n" breaks a line. */
static void wrap(FILE *f, const char *text, size_t indent)
{
	size_t col = indent;

	for (const char *p = text; *p;) {
		if (*p == '\n') {
			fprintf(f, "\n%*s", (int)indent, "");
			col = indent;
			p++;
			continue;
		}
		size_t sp = strspn(p, " ");
		size_t word = strcspn(p + sp, " \n");
		if (col > indent && col + sp + word >= WIDTH) {
			fprintf(f, "\n%*s", (int)indent, "");
			col = indent;
		} else if (col > indent) {
			fprintf(f, "%.*s", (int)sp, p);
			col += sp;
		}
		fprintf(f, "%.*s", (int)word, p + sp);
		col += word;
		p += sp + word;
	}
	fputc('\n', f);
}

/* One row: a heading, or the option and its help from column col. */
static void print_opt(FILE *f, const struct lt_opt *o, size_t col)
{
	char left[128];

	if (!o->name) {
		fprintf(f, "\n%s\n", o->help);
		return;
	}
	size_t n = left_part(o, left, sizeof(left));
	fputs(left, f);
	if (n + 2 > col)
		fprintf(f, "\n%*s", (int)col, "");
	else
		fprintf(f, "%*s", (int)(col - n), "");
	wrap(f, o->help ? o->help : "", col);
}

void lt_cli_usage(FILE *f, const struct lt_cli *cli)
{
	size_t col = 0;
	char left[128];

	for (int pass = 0; pass < 2; pass++)
		for (const struct lt_opt *o = pass ? builtin : cli->opts; o && (o->name || o->help); o++) {
			size_t n = o->name ? left_part(o, left, sizeof(left)) + 2 : 0;
			if (n <= LEFT_MAX && n > col)
				col = n;
		}
	fputs(cli->usage, f);
	if (cli->about)
		fprintf(f, "%s", cli->about);
	if (!cli->opts || cli->opts->name)
		fputs("\nOptions:\n", f);
	for (const struct lt_opt *o = cli->opts; o && (o->name || o->help); o++)
		print_opt(f, o, col);
	for (const struct lt_opt *o = builtin; o->name; o++)
		print_opt(f, o, col);
	if (cli->tail)
		fprintf(f, "\n%s", cli->tail);
}

int lt_cli_usage_error(const struct lt_cli *cli, const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	lt_verr(fmt, ap);
	va_end(ap);
	lt_cli_usage(stderr, cli);
	return 2;
}

int lt_cli_one_arg(const struct lt_cli *cli, int argc, char **argv, const char *what)
{
	if (optind == argc - 1)
		return 0;
	return lt_cli_usage_error(cli, optind >= argc ? "no %s given" : "give one %s", what);
}
