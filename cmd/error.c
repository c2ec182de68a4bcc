/* SPDX-License-Identifier: GPL-2.0-or-later */
/* How every command says it failed: one line on stderr, and the exit
 * status. The one home of the two, which the dispatcher, the option parser,
 * the output layer and the commands all use. */
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>

#include "base/quote.h"
#include "cmd.h"

void np_say(const char *what, const char *text)
{
	char buf[4096];
	fprintf(stderr, "numaplace: %s%s%s\n", what ? what : "", what ? ": " : "", np_escape(text, buf, sizeof(buf)));
}

static void vsay(const char *what, const char *fmt, va_list ap)
{
	char *text;
	if (vasprintf(&text, fmt, ap) < 0) {
		np_say(what, "out of memory writing the error message");
		return;
	}
	np_say(what, text);
	free(text);
}

int np_usage_error(const struct np_command *cmd, const char *fmt, ...)
{
	va_list ap;
	va_start(ap, fmt);
	vsay(cmd->name, fmt, ap);
	va_end(ap);
	return EXIT_USAGE;
}

int np_error(const char *fmt, ...)
{
	va_list ap;
	va_start(ap, fmt);
	vsay(NULL, fmt, ap);
	va_end(ap);
	return EXIT_FAIL;
}
