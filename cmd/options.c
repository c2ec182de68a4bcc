#include <getopt.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>

#include "cmd.h"

/* Long options are matched exactly: "--js" is an error, not "--json". */
static int find_long(const struct np_option *opts, const char *name, size_t len)
{
	for (int i = 0; opts[i].name; i++)
		if (strlen(opts[i].name) == len && !strncmp(opts[i].name, name, len))
			return i;
	return -1;
}

static int find_short(const struct np_option *opts, char c)
{
	for (int i = 0; opts[i].name; i++)
		if (opts[i].short_name == c)
			return i;
	return -1;
}

static int opt_error(const struct np_command *cmd, const char *fmt, const char *what, const char *extra)
{
	fprintf(stderr, "numaplace: %s: ", cmd->name);
	fprintf(stderr, fmt, what, extra);
	fputc('\n', stderr);
	return NP_OPT_ERROR;
}

int np_opt_next(struct np_optparse *st, const struct np_command *cmd, int argc, char **argv,
		const char **arg)
{
	/* argv[0] is the command name. */
	if (st->index == 0)
		st->index = 1;
	if (st->index >= argc)
		return NP_OPT_END;
	const char *a = argv[st->index];
	if (!strcmp(a, "--")) {
		st->index++;
		return NP_OPT_END;
	}
	if (a[0] != '-' || !a[1])
		return NP_OPT_END;
	if (!strcmp(a, "--help") || !strcmp(a, "-h")) {
		np_print_help(cmd, stdout);
		return NP_OPT_HELP;
	}
	int opt;
	const char *inline_arg = NULL;
	if (a[1] == '-') {
		const char *eq = strchr(a + 2, '=');
		size_t len = eq ? (size_t)(eq - a - 2) : strlen(a + 2);
		opt = find_long(cmd->options, a + 2, len);
		if (eq)
			inline_arg = eq + 1;
	} else {
		if (a[2]) /* no bundling: "-jx" is more likely a typo than two flags */
			return opt_error(cmd, "unknown option '%s' (try 'numaplace %s --help')", a, cmd->name);
		opt = find_short(cmd->options, a[1]);
	}
	if (opt < 0)
		return opt_error(cmd, "unknown option '%s' (try 'numaplace %s --help')", a, cmd->name);
	st->index++;
	const struct np_option *o = &cmd->options[opt];
	if (!o->arg) {
		if (inline_arg)
			return opt_error(cmd, "option '--%s' takes no value%s", o->name, "");
		*arg = NULL;
		return opt;
	}
	if (inline_arg) {
		*arg = inline_arg;
		return opt;
	}
	if (st->index >= argc)
		return opt_error(cmd, "option '%s' needs a value (%s)", a, o->arg);
	*arg = argv[st->index++];
	return opt;
}

void np_print_help(const struct np_command *cmd, FILE *out)
{
	fprintf(out, "Usage: numaplace [--root DIR] %s%s%s\n\n%s\n", cmd->name,
		cmd->usage ? " " : "", cmd->usage ? cmd->usage : "", cmd->summary);
	fputs("\nOptions:\n", out);
	for (const struct np_option *o = cmd->options; o && o->name; o++) {
		char left[64];
		snprintf(left, sizeof(left), "%c%c%s--%s%s%s", o->short_name ? '-' : ' ',
			 o->short_name ? o->short_name : ' ', o->short_name ? ", " : "  ", o->name,
			 o->arg ? " " : "", o->arg ? o->arg : "");
		fprintf(out, "  %-24s %s\n", left, o->help);
	}
	fputs("  -h, --help               show this help\n", out);
	if (cmd->epilog)
		fprintf(out, "\n%s\n", cmd->epilog);
}

int np_usage_error(const struct np_command *cmd, const char *fmt, ...)
{
	va_list ap;
	fprintf(stderr, "numaplace: %s: ", cmd->name);
	va_start(ap, fmt);
	vfprintf(stderr, fmt, ap);
	va_end(ap);
	fputc('\n', stderr);
	return EXIT_USAGE;
}

int np_error(const char *fmt, ...)
{
	va_list ap;
	fputs("numaplace: ", stderr);
	va_start(ap, fmt);
	vfprintf(stderr, fmt, ap);
	va_end(ap);
	fputc('\n', stderr);
	return EXIT_FAIL;
}
