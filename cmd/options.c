/* SPDX-License-Identifier: GPL-2.0-or-later */
/* Option parsing for every command: getopt_long over the command's option
 * table, each value stored where its entry points. */
#include <errno.h>
#include <getopt.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>

#include "change/irqbalance.h"
#include "base/nearest.h"
#include "cmd.h"
#include "render/output.h"

/* getopt_long's value for a long option: past every character, so that a
 * long option never reads as a short one. */
#define LONG_VAL(i) (256 + (i))

static size_t count_options(const struct np_option *opts)
{
	size_t n = 0;
	while (opts && opts[n].name)
		n++;
	return n;
}

/* The option of index i, the command's own first, then --help. */
static const struct np_option *option_at(const struct np_command *cmd, size_t n, size_t i)
{
	return i < n ? &cmd->options[i] : np_help_option;
}

/* "unknown option '--jsn'; did you mean '--json'?" */
static int unknown_option(const struct np_command *cmd, size_t n, const char *text)
{
	const char *nearest = NULL;
	if (!strncmp(text, "--", 2) && text[2]) {
		const char *names[64];
		size_t k = 0;
		char typed[64];
		snprintf(typed, sizeof(typed), "%.*s", (int)strcspn(text + 2, "="), text + 2);
		for (size_t i = 0; i <= n && k < 64; i++)
			names[k++] = option_at(cmd, n, i)->name;
		nearest = np_nearest(typed, names, k, sizeof(names[0]));
	}
	if (nearest)
		return np_usage_error(cmd, "unknown option '%s'; did you mean '--%s'?", text, nearest);
	return np_usage_error(cmd, "unknown option '%s' (try 'numaplace %s --help')", text, cmd->name);
}

static int store(const struct np_command *cmd, const struct np_option *o, const char *arg, void *opts)
{
	void *field = (char *)opts + o->offset;
	switch (o->type) {
	case NP_OPT_BOOL:
		*(bool *)field = true;
		return EXIT_OK;
	case NP_OPT_STRING:
		*(const char **)field = arg;
		return EXIT_OK;
	case NP_OPT_CALLBACK:
		return o->cb(cmd, o, arg, field);
	}
	return EXIT_USAGE;
}

bool np_options_end(const struct np_command *c)
{
	return c->operands && !strncmp(c->operands, "exec", 4);
}

int np_parse_options(const struct np_command *cmd, int argc, char **argv, void *opts, int *first)
{
	size_t n = count_options(cmd->options);
	struct option *longopts = calloc(n + 2, sizeof(*longopts));
	/* "+" stops at the first operand, ":" reports a missing value apart, and
	 * each short option takes at most "x::" plus the two. */
	char *shortopts = malloc(3 * (n + 1) + 3);
	if (!longopts || !shortopts) {
		free(longopts);
		free(shortopts);
		return np_error("%s", strerror(ENOMEM));
	}
	size_t len = 0;
	if (np_options_end(cmd))
		shortopts[len++] = '+';
	shortopts[len++] = ':';
	for (size_t i = 0; i <= n; i++) {
		const struct np_option *o = option_at(cmd, n, i);
		longopts[i] = (struct option){ o->name, o->arg ? required_argument : no_argument, NULL, LONG_VAL(i) };
		char letter = o->short_name ? o->short_name : o->old_short;
		if (letter) {
			shortopts[len++] = letter;
			if (o->arg)
				shortopts[len++] = ':';
		}
	}
	shortopts[len] = '\0';

	int c, rc = NP_CONTINUE;
	opterr = 0;
	optind = 0; /* a full reset: main parsed its own options with getopt */
	while (rc == NP_CONTINUE && (c = getopt_long(argc, argv, shortopts, longopts, NULL)) != -1) {
		size_t i = n + 1;
		if (c >= LONG_VAL(0)) {
			i = (size_t)(c - LONG_VAL(0));
		} else if (c != '?' && c != ':') {
			for (i = 0; i <= n && option_at(cmd, n, i)->short_name != c && option_at(cmd, n, i)->old_short != c; i++)
				;
			if (i < n && cmd->options[i].old_short == c)
				np_notef("%s: note: -%c is deprecated (it will mean --noheadings, as in every table): "
					 "use --%s", cmd->name, c, cmd->options[i].name);
		}
		if (c == ':') {
			const struct np_option *o = NULL;
			for (size_t k = 0; k <= n; k++)
				if (optopt == LONG_VAL(k) || optopt == option_at(cmd, n, k)->short_name)
					o = option_at(cmd, n, k);
			rc = np_usage_error(cmd, "option '--%s' needs a value (%s)", o ? o->name : "?",
					    o && o->arg ? o->arg : "?");
		} else if (c == '?' && optopt >= LONG_VAL(0)) {
			rc = np_usage_error(cmd, "option '--%s' takes no value",
					    option_at(cmd, n, (size_t)(optopt - LONG_VAL(0)))->name);
		} else if (c == '?' && optopt) {
			char text[3] = { '-', (char)optopt, '\0' };
			rc = unknown_option(cmd, n, text);
		} else if (c == '?') {
			rc = unknown_option(cmd, n, argv[optind - 1]);
		} else if (i == n) {
			np_print_help(cmd, stdout);
			rc = EXIT_OK;
		} else if (i < n) {
			rc = store(cmd, &cmd->options[i], optarg, opts);
			if (rc == EXIT_OK)
				rc = NP_CONTINUE;
		}
	}
	free(longopts);
	free(shortopts);
	*first = optind;
	return rc;
}

int np_opt_int(const struct np_command *cmd, const struct np_option *o, const char *arg, void *field)
{
	char *end;
	long v = strtol(arg, &end, 10);
	if (*end || end == arg || v < 0 || v > 1 << 22)
		return np_usage_error(cmd, "--%s: '%s' is not a number", o->name, arg);
	*(int *)field = (int)v;
	return EXIT_OK;
}

void np_print_option(const struct np_option *o, FILE *out, int width, bool align_long)
{
	char left[64];
	const char *arg = o->arg ? o->arg : "", *sep = o->arg ? " " : "";
	if (o->short_name)
		snprintf(left, sizeof(left), "-%c, --%s%s%s", o->short_name, o->name, sep, arg);
	else
		snprintf(left, sizeof(left), "%s--%s%s%s", align_long ? "    " : "", o->name, sep, arg);
	fprintf(out, "  %-*s ", width, left);
	for (const char *h = o->help; *h; h++) {
		fputc(*h, out);
		if (*h == '\n')
			fprintf(out, "%*s", width + 3, "");
	}
	fputc('\n', out);
}

void np_print_help(const struct np_command *cmd, FILE *out)
{
	fprintf(out, "Usage: numaplace [--root DIR] %s%s%s\n\n%s\n", cmd->name,
		cmd->usage ? " " : "", cmd->usage ? cmd->usage : "", cmd->summary);
	fputs("\nOptions:\n", out);
	for (const struct np_option *o = cmd->options; o && o->name; o++)
		np_print_option(o, out, 24, true);
	np_print_option(np_help_option, out, 24, true);
	if (cmd->epilog)
		fprintf(out, "\n%s\n", cmd->epilog);
}

int np_opt_interval(const struct np_command *cmd, const struct np_option *o, const char *arg, void *field)
{
	char *end;
	double v = strtod(arg, &end);
	if (*end || end == arg || !(v > 0 && v <= 3600))
		return np_usage_error(cmd, "--%s needs seconds above 0 and at most 3600 (0.5, 2, 60), not '%s'", o->name, arg);
	*(double *)field = v;
	return EXIT_OK;
}

int np_opt_whole_seconds(const struct np_command *cmd, const struct np_option *o, const char *arg, void *field)
{
	char *end;
	errno = 0;
	long v = strtol(arg, &end, 10);
	if (errno || end == arg || *end || v < 1 || v > 86400)
		return np_usage_error(cmd, "--%s takes whole seconds from 1 to 86400, not '%s'", o->name, arg);
	*(int *)field = (int)v;
	return EXIT_OK;
}

int np_opt_irqbalance(const struct np_command *cmd, const struct np_option *o, const char *arg, void *field)
{
	static const char *const modes[] = { [NP_IRQB_BAN] = "ban", [NP_IRQB_WARN] = "warn", [NP_IRQB_IGNORE] = "ignore" };
	for (int m = NP_IRQB_BAN; m <= NP_IRQB_IGNORE; m++)
		if (!strcmp(arg, modes[m])) {
			*(enum np_irqb_mode *)field = (enum np_irqb_mode)m;
			return EXIT_OK;
		}
	return np_usage_error(cmd, "--%s takes ban, warn or ignore, not '%s'", o->name, arg);
}
