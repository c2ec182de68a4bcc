/* SPDX-License-Identifier: GPL-2.0-or-later */
/* How every command says it failed: one line on stderr, and the exit
 * status. The one home of the two, which the dispatcher, the option parser,
 * the output layer and the commands all use. */
#include <stdarg.h>
#include <stdio.h>

#include "cmd.h"

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
