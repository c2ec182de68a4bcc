/* SPDX-License-Identifier: GPL-2.0-or-later */
#include "render/term.h"

#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <unistd.h>

#include "base/quote.h"

int np_output_width(int fd)
{
	struct winsize ws;
	if (!isatty(fd))
		return 0;
	if (ioctl(fd, TIOCGWINSZ, &ws) == 0 && ws.ws_col > 0)
		return ws.ws_col;
	const char *env = getenv("COLUMNS");
	char *end;
	long cols = env ? strtol(env, &end, 10) : 0;
	return env && *env && !*end && cols > 0 && cols < 100000 ? (int)cols : 80;
}

int np_term_width(void)
{
	return np_output_width(STDOUT_FILENO);
}

bool np_term_escapes(int fd)
{
	const char *term = getenv("TERM");
	return isatty(fd) && term && *term && strcmp(term, "dumb");
}

bool np_color_parse(const char *when, bool *on)
{
	if (!when || !strcmp(when, "auto")) {
		const char *no = getenv("NO_COLOR");
		*on = np_term_escapes(STDOUT_FILENO) && !(no && *no);
	} else if (!strcmp(when, "always")) {
		*on = true;
	} else if (!strcmp(when, "never")) {
		*on = false;
	} else {
		return false;
	}
	return true;
}

void np_print_wrapped(FILE *out, const char *text, int width, int col, int indent)
{
	char *shown = np_escape_dup(text);
	text = shown ? shown : "?";
	size_t len = strlen(text);
	while (width > indent + 20 && (int)len + col > width) {
		/* The last blank that keeps the line within width, else the first. */
		size_t room = (size_t)(width - col), cut = 0;
		for (size_t i = 1; i < room && i < len; i++)
			if (text[i] == ' ')
				cut = i;
		if (!cut) {
			const char *sp = strchr(text, ' ');
			if (!sp)
				break;
			cut = (size_t)(sp - text);
		}
		fprintf(out, "%.*s\n%*s", (int)cut, text, indent, "");
		text += cut + 1;
		len -= cut + 1;
		col = indent;
	}
	fprintf(out, "%s\n", text);
	free(shown);
}
