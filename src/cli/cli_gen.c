// SPDX-License-Identifier: MIT
/* The hidden `locktrace --man [COMMAND]` and `locktrace --completion bash`:
 * the man pages locktrace(8), locktrace-COMMAND(8) and the bash completion,
 * written from the option tables that --help prints (cli_opts.h), so an
 * option cannot be parsed and missing from either.  `make install` runs
 * them (Makefile, "install").  What only a man page says (examples with
 * their explanation, files, privileges) is in the tables below. */
#include <ctype.h>
#include <stdio.h>
#include <string.h>
#include "cli.h"
#include "cli_opts.h"
#include "version.h"

/* ------------------------------------------------------------ man-only text */

struct man_example {
	const char *what; /* a sentence */
	const char *cmd;  /* the command line(s), "\n" between lines */
};

struct man_extra {
	const char *cmd; /* NULL: locktrace(8) */
	const struct man_example *examples;
	const char *privileges;
	const char *files; /* "PATH\tWHAT\n" rows */
	const char *environment; /* likewise */
};

static const struct man_example ex_record[] = {
	{ "Attach to a hung process for 10 seconds (it is never stopped, ptraced or signalled): "
	  "writes hang.ltrace and, with the bare form, hang.perfetto-trace beside it, and prints "
	  "the findings and where both files are.",
	  "locktrace -p 1234 -d 10 -o hang.ltrace" },
	{ "Open the Perfetto file: in a browser, at https://ui.perfetto.dev, choose Open trace "
	  "file and pick hang.perfetto-trace (nothing is uploaded); every thread's states, each "
	  "blocking call as a slice, an arrow from each wake-up to the wait it ended. Or query it "
	  "with SQL (trace_processor, from the Perfetto project):",
	  "trace_processor_shell hang.perfetto-trace" },
	{ "What the threads waited for and what is wrong, as text:", "locktrace report hang.ltrace" },
	{ "The flight recorder: leave it on for hours at little cost; it keeps the newest 256 MiB of "
	  "events in memory and writes a trace when the process has stalled for 5 seconds, or at "
	  "once on SIGUSR1.",
	  "locktrace -p 1234 --ring 256M --stall 5 --pid-file /run/locktrace.pid &\n"
	  "kill -USR1 $(cat /run/locktrace.pid)    # dump the ring now" },
	{ "Every process of a systemd service or a container (a cgroup v2 and the cgroups below it), "
	  "including those it forks while recording:",
	  "locktrace --cgroup system.slice/postgresql.service -d 10" },
	{ "Launch a program and trace it from its first instruction, with the processes it forks:",
	  "locktrace -- ./server --port 8080" },
	{ "What every thread is blocked in right now, without recording:",
	  "locktrace snapshot -p 1234" },
	{ 0 },
};

static const struct man_example ex_snapshot[] = {
	{ "What every thread of a hung process waits for, the lock owners and the verdicts "
	  "(deadlock cycles, lost wake-ups, convoys):",
	  "locktrace snapshot -p 1234" },
	{ "Two processes that share locks, diagnosed together, as JSON:",
	  "locktrace snapshot -p 1234,1240 --json > state.json" },
	{ "The snapshots a recording stored (at the start, at the end, at a flight dump):",
	  "locktrace snapshot --from hang.ltrace" },
	{ 0 },
};

static const struct man_example ex_report[] = {
	{ "What the threads waited for and what is wrong, as text:", "locktrace report hang.ltrace" },
	{ "Every row of every table and the last 50 calls of each thread:",
	  "locktrace report --all -n 50 hang.ltrace" },
	{ "For a program:", "locktrace report --json hang.ltrace > report.json" },
	{ 0 },
};

static const struct man_example ex_dump[] = {
	{ "Every futex wait of a trace:", "locktrace dump hang.ltrace | grep FUTEX_WAIT" },
	{ 0 },
};

static const struct man_example ex_convert[] = {
	{ "Write hang.perfetto-trace, then open it at https://ui.perfetto.dev (Open trace file), or "
	  "query it with trace_processor:",
	  "locktrace convert hang.ltrace" },
	{ "Chrome trace-event JSON, for viewers that read only JSON:",
	  "locktrace convert --format json -o hang.json hang.ltrace" },
	{ 0 },
};

#define PRIV_RECORD                                                                             \
	"Recording loads BPF programs: it needs root, or the capabilities CAP_BPF and "          \
	"CAP_PERFMON. The kernel must be Linux 6.x with BTF (/sys/kernel/btf/vmlinux); "  \
	"no kprobes, fentry or tracefs "                                                        \
	"mount are needed."
#define PRIV_READ                                                                               \
	"Reading a trace file needs no privilege: report, dump and convert run as any user "     \
	"who can read the file."

static const char files_record[] =
	"locktrace-COMM-PID.ltrace\tthe raw trace, in the current directory, unless -o FILE "
	"names it; created new with mode 0600, never through a symlink; an existing name is refused "
	"unless --force\n"
	"NAME.perfetto-trace\tthe Perfetto trace beside NAME.ltrace (locktrace -p, or --perfetto)\n"
	"NAME-2.ltrace, NAME-3.ltrace, ...\tthe flight recorder's later dumps (the first goes to "
	"the -o name)\n"
	"--pid-file FILE\tlocktrace's own pid, removed at the end\n"
	"~/.cache/locktrace\tsymbols and debug information cached per build-id\n";
static const char env_cache[] =
	"LOCKTRACE_CACHE_DIR\tthe symbol cache's directory instead of $XDG_CACHE_HOME/locktrace "
	"(else ~/.cache/locktrace); off turns the cache off\n";

static const struct man_extra extras[] = {
	{ NULL, ex_record,
	  PRIV_RECORD " `locktrace snapshot` reads /proc and the target's memory: root, or the "
	  "target's own user (kernel stacks need root). " PRIV_READ,
	  files_record, env_cache },
	{ "record", ex_record, PRIV_RECORD, files_record, env_cache },
	{ "snapshot", ex_snapshot,
	  "Reads /proc/PID and the target's memory (process_vm_readv), without stopping it: root, "
	  "or the target's own user with ptrace access. Kernel stacks (/proc/PID/task/TID/stack) "
	  "and the registers read by a BPF task iterator need root; without them a thread's "
	  "kernel stack is `unavailable` and user stacks start from /proc's sp and pc.",
	  "~/.cache/locktrace\tsymbols and debug information cached per build-id\n", env_cache },
	{ "report", ex_report, PRIV_READ, "TRACE\tread only; nothing is written\n", NULL },
	{ "dump", ex_dump, PRIV_READ, "FILE\tread only; nothing is written\n", NULL },
	{ "convert", ex_convert, PRIV_READ,
	  "TRACE.perfetto-trace\tthe Perfetto trace (TRACE with .ltrace replaced), unless -o OUT\n"
	  "TRACE.json\twith --format json\n"
	  "OUT\tcreated new with mode 0600, never through a symlink; an existing name is refused "
	  "unless --force\n",
	  NULL },
};

/* ------------------------------------------------------------ troff */

/* Text escaped for troff: backslashes, minus signs (so options can be
 * copied and searched), a control character at a line's start. */
static void tr_put(FILE *f, const char *s, size_t n, int at_line_start)
{
	for (size_t i = 0; i < n && s[i]; i++) {
		char c = s[i];
		if (at_line_start && (c == '.' || c == '\''))
			fputs("\\&", f);
		at_line_start = c == '\n';
		if (c == '\\')
			fputs("\\e", f);
		else if (c == '-')
			fputs("\\-", f);
		else
			fputc(c, f);
	}
}

static void tr_str(FILE *f, const char *s)
{
	tr_put(f, s, strlen(s), 1);
}

/* A block of --help text: paragraphs at blank lines; one with an indented
 * line is kept as it is laid out (.nf), others are filled. */
static void tr_block(FILE *f, const char *text)
{
	const char *p = text;

	while (*p) {
		while (*p == '\n')
			p++;
		if (!*p)
			break;
		const char *end = strstr(p, "\n\n");
		size_t n = end ? (size_t)(end - p) : strlen(p);
		int pre = p[0] == ' ' || memmem(p, n, "\n ", 2);
		fputs(pre ? ".PP\n.nf\n" : ".PP\n", f);
		tr_put(f, p, n, 1);
		fputs(pre ? "\n.fi\n" : "\n", f);
		p += n;
	}
}

static int has_letter(const struct lt_opt *o)
{
	return o->key > 0 && o->key < LT_OPT_LONG;
}

static void tr_opts(FILE *f, const struct lt_opt *opts)
{
	for (const struct lt_opt *o = opts; o && (o->name || o->help); o++) {
		if (!o->name) {
			size_t n = strlen(o->help);
			fputs(".SS\n", f);
			tr_put(f, o->help, n && o->help[n - 1] == ':' ? n - 1 : n, 1);
			fputc('\n', f);
			continue;
		}
		fputs(".TP\n", f);
		if (has_letter(o))
			fprintf(f, "\\fB\\-%c\\fR, ", o->key);
		fputs("\\fB\\-\\-", f);
		tr_str(f, o->name);
		fputs("\\fR", f);
		if (o->arg) {
			fputs(" \\fI", f);
			tr_str(f, o->arg);
			fputs("\\fR", f);
		}
		fputc('\n', f);
		for (const char *h = o->help ? o->help : ""; *h;) {
			size_t n = strcspn(h, "\n");
			tr_put(f, h, n, 1);
			fputc('\n', f);
			h += n;
			if (*h) {
				fputs(".br\n", f);
				h++;
			}
		}
	}
}

/* The usage lines ("Usage: locktrace record -p PID ...") as a synopsis:
 * the leading lower-case words (the command) in bold. */
static void tr_synopsis(FILE *f, const char *usage)
{
	fputs(".SH SYNOPSIS\n.nf\n", f);
	for (const char *l = usage; *l;) {
		size_t n = strcspn(l, "\n");
		const char *s = l;
		if (!strncmp(s, "Usage:", 6))
			s += 6;
		while (*s == ' ')
			s++;
		const char *w = s;
		while (w < l + n && (islower((unsigned char)*w) || *w == ' ') &&
		       !(w[0] == ' ' && !islower((unsigned char)w[1])))
			w++;
		fputs("\\fB", f);
		tr_put(f, s, (size_t)(w - s), 0);
		fputs("\\fR", f);
		tr_put(f, w, (size_t)(l + n - w), 0);
		fputc('\n', f);
		l += n + (l[n] == '\n');
	}
	fputs(".fi\n", f);
}

/* "A\tB\n" rows as a tagged list. */
static void tr_rows(FILE *f, const char *rows)
{
	for (const char *r = rows; *r;) {
		size_t n = strcspn(r, "\n"), t = strcspn(r, "\t");
		if (t > n)
			t = n;
		fputs(".TP\n\\fB", f);
		tr_put(f, r, t, 0);
		fputs("\\fR\n", f);
		if (t < n)
			tr_put(f, r + t + 1, n - t - 1, 1);
		fputc('\n', f);
		r += n + (r[n] == '\n');
	}
}

/* The tail of --help: its "Examples:" paragraph into *examples (and its
 * length), its "Exit status:" paragraph into *status; other paragraphs
 * printed as description. */
static void tr_tail_split(const char *tail, const char **examples, size_t *nex, const char **status,
			  size_t *nst)
{
	*examples = *status = NULL;
	*nex = *nst = 0;
	for (const char *p = tail; p && *p;) {
		while (*p == '\n')
			p++;
		const char *end = strstr(p, "\n\n");
		size_t n = end ? (size_t)(end - p) : strlen(p);
		if (!strncmp(p, "Examples:\n", 10)) {
			*examples = p + 10;
			*nex = n - 10;
		} else if (!strncmp(p, "Exit status: ", 13)) {
			*status = p + 13;
			*nst = n - 13;
		}
		p += n;
	}
}

static const struct lt_cli *cli_of(const char *cmd)
{
	if (!cmd)
		return lt_record_cli(1);
	if (!strcmp(cmd, "record"))
		return lt_record_cli(0);
	if (!strcmp(cmd, "snapshot"))
		return lt_snapshot_cli();
	if (!strcmp(cmd, "report"))
		return lt_report_cli();
	if (!strcmp(cmd, "dump"))
		return lt_dump_cli();
	if (!strcmp(cmd, "convert"))
		return lt_convert_cli();
	return NULL;
}

static void man_page(FILE *f, const char *cmd, const struct lt_cmd *cmds, size_t ncmds)
{
	const struct lt_cli *cli = cli_of(cmd);
	const struct man_extra *x = NULL;
	const char *help = "show why the threads of a Linux process are stuck";

	for (size_t i = 0; i < sizeof(extras) / sizeof(extras[0]); i++)
		if (cmd ? extras[i].cmd && !strcmp(extras[i].cmd, cmd) : !extras[i].cmd)
			x = &extras[i];
	for (size_t i = 0; cmd && i < ncmds; i++)
		if (!strcmp(cmds[i].name, cmd))
			help = cmds[i].help;

	char title[64];
	snprintf(title, sizeof(title), "locktrace%s%s", cmd ? "-" : "", cmd ? cmd : "");
	fprintf(f, ".\\\" Generated by `locktrace --man%s%s` from the option tables of --help: do "
		   "not edit.\n", cmd ? " " : "", cmd ? cmd : "");
	fputs(".TH ", f);
	for (const char *c = title; *c; c++)
		*c == '-' ? fputs("\\-", f) : fputc(toupper((unsigned char)*c), f);
	fputs(" 8 \"\" \"locktrace " LT_VERSION "\" \"System Administration\"\n.nh\n.ad l\n", f);
	fputs(".SH NAME\n", f);
	tr_str(f, title);
	fputs(" \\- ", f);
	tr_str(f, help);
	fputc('\n', f);

	tr_synopsis(f, cli->usage);
	if (!cmd)
		fputs("\\fBlocktrace\\fR \\fICOMMAND\\fR [\\fIARGS\\fR...]\n", f);

	fputs(".SH DESCRIPTION\n", f);
	if (cli->about)
		tr_block(f, cli->about);
	if (!cmd) {
		fputs(".SH COMMANDS\n", f);
		for (size_t i = 0; i < ncmds; i++) {
			fputs(".TP\n\\fB", f);
			tr_str(f, cmds[i].name);
			fputs("\\fR\n", f);
			tr_str(f, cmds[i].help);
			fputs(": \\fBlocktrace\\-", f);
			tr_str(f, cmds[i].name);
			fputs("\\fR(8)\n", f);
		}
	}

	fputs(".SH OPTIONS\n", f);
	tr_opts(f, cli->opts);
	if (cli->opts && cli->opts->name && cli->opts[0].name)
		fputs(".SS\nEvery command\n", f);
	tr_opts(f, lt_cli_builtin_opts());

	const char *hex, *st;
	size_t nhex, nst;
	tr_tail_split(cli->tail, &hex, &nhex, &st, &nst);
	fputs(".SH \"EXIT STATUS\"\n", f);
	if (st) {
		tr_put(f, st, nst, 1);
		fputc('\n', f);
	} else {
		fputs("0 done; 1 an error (the message says which); 2 a usage error.\n", f);
	}
	if (x && x->privileges) {
		fputs(".SH PRIVILEGES\n", f);
		tr_block(f, x->privileges);
	}
	if (x && x->files) {
		fputs(".SH FILES\n", f);
		tr_rows(f, x->files);
	}
	if (x && x->environment) {
		fputs(".SH ENVIRONMENT\n", f);
		tr_rows(f, x->environment);
	}
	if ((x && x->examples) || hex) {
		fputs(".SH EXAMPLES\n", f);
		for (const struct man_example *e = x ? x->examples : NULL; e && e->what; e++) {
			fputs(".PP\n", f);
			tr_str(f, e->what);
			fputs("\n.PP\n.RS\n.nf\n", f);
			tr_str(f, e->cmd);
			fputs("\n.fi\n.RE\n", f);
		}
		if (hex) {
			fputs(".PP\nIn short (as in \\fB\\-\\-help\\fR):\n.PP\n.nf\n", f);
			/* without the two columns of indentation of --help */
			for (const char *l = hex; l < hex + nhex;) {
				size_t n = strcspn(l, "\n");
				if (n > (size_t)(hex + nhex - l))
					n = (size_t)(hex + nhex - l);
				size_t skip = n >= 2 && l[0] == ' ' && l[1] == ' ' ? 2 : 0;
				tr_put(f, l + skip, n - skip, 1);
				fputc('\n', f);
				l += n + 1;
			}
			fputs(".fi\n", f);
		}
	}

	fputs(".SH \"SEE ALSO\"\n", f);
	int first = 1;
	if (cmd) {
		fputs("\\fBlocktrace\\fR(8)", f);
		first = 0;
	}
	for (size_t i = 0; i < ncmds; i++) {
		if (cmd && !strcmp(cmds[i].name, cmd))
			continue;
		fprintf(f, "%s\\fBlocktrace\\-", first ? "" : ",\n");
		tr_str(f, cmds[i].name);
		fputs("\\fR(8)", f);
		first = 0;
	}
	fputs("\n.PP\nREADME.md and docs/ of the source tree (in /usr/share/doc/locktrace when\n"
	      "installed from the Debian package); the Perfetto UI at https://ui.perfetto.dev.\n", f);
}

/* ------------------------------------------------------------ bash */

/* The words an option's argument takes, where the table's argument name
 * does not say it (a fixed set). */
static const struct {
	const char *opt, *arg, *words; /* arg NULL: any argument name */
} arg_words[] = {
	{ "calls", NULL, "all blocking" },
	{ "stall-rule", NULL, "locks progress" },
	/* convert's --format FORMAT, report's --format FMT (with --profile) */
	{ "format", "FORMAT", "perfetto json" },
	{ "format", "FMT", "text collapsed pprof" },
};

/* How the argument of o is completed: a bash statement. */
static const char *arg_action(const struct lt_opt *o)
{
	static char buf[128];

	for (size_t i = 0; i < sizeof(arg_words) / sizeof(arg_words[0]); i++)
		if (!strcmp(o->name, arg_words[i].opt) &&
		    (!arg_words[i].arg || (o->arg && !strcmp(o->arg, arg_words[i].arg)))) {
			snprintf(buf, sizeof(buf), "_locktrace_words '%s'", arg_words[i].words);
			return buf;
		}
	if (!strncmp(o->arg, "PID", 3))
		return "_locktrace_pids";
	if (!strcmp(o->arg, "PATH"))
		return "_locktrace_cgroups";
	if (!strcmp(o->arg, "FILE") || !strcmp(o->arg, "TRACE") || !strcmp(o->arg, "OUT"))
		return "_locktrace_files";
	return ":"; /* a number, a size: nothing to offer */
}

/* Does the usage take a file operand (an upper-case word that follows no
 * option, before any "--")? */
static int takes_file(const char *usage)
{
	char prev[64] = "";
	const char *p = usage;

	while (*p) {
		size_t n = strcspn(p, " \n");
		char w[64];
		snprintf(w, sizeof(w), "%.*s", (int)n, p);
		if (!strcmp(w, "--"))
			return 0;
		const char *pw = prev[0] == '[' ? prev + 1 : prev;
		const char *ww = w[0] == '[' ? w + 1 : w;
		if (n && isupper((unsigned char)ww[0]) && isupper((unsigned char)ww[1]) && pw[0] != '-' &&
		    strncmp(w, "Usage", 5))
			return 1;
		memcpy(prev, w, sizeof(prev));
		p += n;
		p += strspn(p, " \n");
	}
	return 0;
}

static void bash_opts(FILE *f, const struct lt_opt *opts)
{
	for (int pass = 0; pass < 2; pass++)
		for (const struct lt_opt *o = pass ? lt_cli_builtin_opts() : opts; o && (o->name || o->help);
		     o++)
			if (o->name) {
				if (has_letter(o))
					fprintf(f, " -%c", o->key);
				fprintf(f, " --%s", o->name);
			}
}

static void bash_arg_cases(FILE *f, const struct lt_opt *opts)
{
	for (const struct lt_opt *o = opts; o && (o->name || o->help); o++) {
		if (!o->name || !o->arg)
			continue;
		fputs("\t\t\t", f);
		if (has_letter(o))
			fprintf(f, "-%c|", o->key);
		fprintf(f, "--%s) %s \"$cur\"; return ;;\n", o->name, arg_action(o));
	}
}

static const char bash_head[] =
	"# bash completion for locktrace(8): commands, options, PIDs (with their\n"
	"# process names), trace files, cgroups.  Generated by `locktrace --completion\n"
	"# bash` from the option tables that --help prints: do not edit.\n"
	"\n"
	"_locktrace_words()\n"
	"{\n"
	"\tlocal IFS=$' \\t\\n'\n"
	"\tCOMPREPLY=($(compgen -W \"$1\" -- \"$2\"))\n"
	"}\n"
	"\n"
	"_locktrace_files()\n"
	"{\n"
	"\tcompopt -o filenames 2>/dev/null\n"
	"\tmapfile -t COMPREPLY < <(compgen -f -- \"$1\")\n"
	"}\n"
	"\n"
	"# The pids that start with the last of PID,PID...: one alone is inserted;\n"
	"# several are shown as \"PID (name)\" (bash inserts only their common\n"
	"# prefix, digits).\n"
	"_locktrace_pids()\n"
	"{\n"
	"\tlocal pre= cur=$1 d p comm\n"
	"\tlocal -a out=()\n"
	"\tcase $cur in *,*) pre=${cur%,*},; cur=${cur##*,} ;; esac\n"
	"\tfor d in /proc/[0-9]*; do\n"
	"\t\tp=${d#/proc/}\n"
	"\t\t[[ $p == \"$cur\"* ]] || continue\n"
	"\t\tcomm=\n"
	"\t\tread -r comm < \"$d/comm\" 2>/dev/null || continue\n"
	"\t\tout+=(\"$pre$p ($comm)\")\n"
	"\tdone\n"
	"\tif ((${#out[@]} == 1)); then\n"
	"\t\tCOMPREPLY=(\"${out[0]%% *}\")\n"
	"\telse\n"
	"\t\tCOMPREPLY=(\"${out[@]}\")\n"
	"\tfi\n"
	"}\n"
	"\n"
	"# cgroup v2 directories, relative to the cgroup2 mount (or absolute in it)\n"
	"_locktrace_cgroups()\n"
	"{\n"
	"\tlocal root=/sys/fs/cgroup cur=${1#/} lead=\n"
	"\t[[ $1 == /* ]] && lead=/\n"
	"\tmapfile -t COMPREPLY < <(cd \"$root\" 2>/dev/null && compgen -d -- \"$cur\" | sed \"s|^|$lead|\")\n"
	"}\n"
	"\n"
	"_locktrace()\n"
	"{\n"
	"\tlocal cur=${COMP_WORDS[COMP_CWORD]} prev= cmd= i opts file=0\n"
	"\t((COMP_CWORD > 0)) && prev=${COMP_WORDS[COMP_CWORD-1]}\n"
	"\tCOMPREPLY=()\n"
	"\t# --opt=VALUE: bash splits the word at '='\n"
	"\tif [[ $cur == = ]]; then\n"
	"\t\tcur=\n"
	"\telif [[ $prev == = ]] && ((COMP_CWORD > 1)); then\n"
	"\t\tprev=${COMP_WORDS[COMP_CWORD-2]}\n"
	"\tfi\n"
	"\tfor ((i = 1; i < COMP_CWORD; i++)); do\n"
	"\t\tcase ${COMP_WORDS[i]} in\n"
	"\t\t--)\n"
	"\t\t\t# locktrace [options] -- COMMAND [ARGS...]\n"
	"\t\t\tif declare -F _command_offset >/dev/null; then\n"
	"\t\t\t\t_command_offset $((i + 1))\n"
	"\t\t\telif ((i == COMP_CWORD - 1)) && [[ $cur != */* ]]; then\n"
	"\t\t\t\tmapfile -t COMPREPLY < <(compgen -c -- \"$cur\" | sort -u)\n"
	"\t\t\telse\n"
	"\t\t\t\t_locktrace_files \"$cur\"\n"
	"\t\t\tfi\n"
	"\t\t\treturn ;;\n"
	"\t\tesac\n"
	"\tdone\n"
	"\t((COMP_CWORD > 1)) && cmd=${COMP_WORDS[1]}\n"
	"\tcase $cmd in\n";

static void bash_script(FILE *f, const struct lt_cmd *cmds, size_t ncmds)
{
	fputs(bash_head, f);
	for (size_t i = 0; i <= ncmds; i++) {
		const char *name = i < ncmds ? cmds[i].name : NULL;
		const struct lt_cli *cli = cli_of(name);
		if (!cli)
			continue;
		/* the bare form (locktrace -p PID ...) takes record's options */
		fprintf(f, "\t%s)\n\t\tcase $prev in\n", name ? name : "*");
		bash_arg_cases(f, cli->opts);
		fputs("\t\tesac\n\t\topts='", f);
		bash_opts(f, cli->opts);
		fprintf(f, "'\n\t\tfile=%d ;;\n", takes_file(cli->usage));
	}
	fputs("\tesac\n"
	      "\tif [[ $cur == -* ]]; then\n"
	      "\t\t_locktrace_words \"$opts\" \"$cur\"\n"
	      "\telif ((COMP_CWORD == 1)); then\n"
	      "\t\t_locktrace_words '",
	      f);
	for (size_t i = 0; i < ncmds; i++)
		fprintf(f, "%s%s", i ? " " : "", cmds[i].name);
	fputs("' \"$cur\"\n"
	      "\telif ((file)); then\n"
	      "\t\t_locktrace_files \"$cur\"\n"
	      "\tfi\n"
	      "} &&\n"
	      "\tcomplete -F _locktrace locktrace\n",
	      f);
}

int lt_cli_gen(int argc, char **argv, const struct lt_cmd *cmds, size_t ncmds)
{
	if (!strcmp(argv[0], "--completion")) {
		if (argc != 2 || strcmp(argv[1], "bash")) {
			lt_err("usage: locktrace --completion bash");
			return 2;
		}
		bash_script(stdout, cmds, ncmds);
		return fflush(stdout) ? 1 : 0;
	}
	if (argc > 2 || (argc == 2 && !cli_of(argv[1]))) {
		lt_err("usage: locktrace --man [COMMAND] (COMMAND: record, snapshot, report, dump, "
		       "convert)");
		return 2;
	}
	man_page(stdout, argc == 2 ? argv[1] : NULL, cmds, ncmds);
	return fflush(stdout) ? 1 : 0;
}
