/* SPDX-License-Identifier: GPL-2.0-or-later */
/* How every command says it failed: one line on stderr, and the exit
 * status. The one home of the two, which the dispatcher, the option parser,
 * the output layer and the commands all use. */
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "base/quote.h"
#include "cmd.h"

/* --root ARCHIVE: the directory it was unpacked into, and the archive. */
static const char *unpacked_dir, *unpacked_archive;

void np_say_unpacked_as(const char *dir, const char *archive)
{
	unpacked_dir = dir && *dir ? dir : NULL;
	unpacked_archive = archive;
}

char *np_named_paths(const char *text)
{
	size_t dl = unpacked_dir ? strlen(unpacked_dir) : 0, al = unpacked_archive ? strlen(unpacked_archive) : 0, n = 0;
	for (const char *p = text; dl && (p = strstr(p, unpacked_dir)); p += dl)
		n++;
	char *out = malloc(strlen(text) + n * (al + 1) + 1), *o = out;
	for (const char *p = text, *hit; out; p = hit + dl) {
		if (!dl || !(hit = strstr(p, unpacked_dir))) {
			strcpy(o, p);
			break;
		}
		memcpy(o, p, (size_t)(hit - p));
		o += hit - p;
		o += sprintf(o, "%s:", unpacked_archive);
	}
	return out;
}

void np_say(const char *what, const char *text)
{
	char buf[4096], *named = np_named_paths(text);
	fprintf(stderr, "numaplace: %s%s%s\n", what ? what : "", what ? ": " : "",
		np_escape(named ? named : text, buf, sizeof(buf)));
	free(named);
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
