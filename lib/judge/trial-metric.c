/* SPDX-License-Identifier: GPL-2.0-or-later */
#include "judge/trial-metric.h"

#include <stdio.h>
#include <string.h>

/* The end of the bracket expression that starts at re[i] ('['): the index
 * of its closing ']', or of the string's end. A ']' first (after an
 * optional '^') is a member, and "[:", "[." and "[=" open a class that
 * runs to its own ":]", ".]" or "=]" (POSIX, XBD 9.3.5). */
static size_t bracket_end(const char *re, size_t i)
{
	i++;
	if (re[i] == '^')
		i++;
	if (re[i] == ']')
		i++;
	for (; re[i] && re[i] != ']'; i++) {
		if (re[i] == '[' && (re[i + 1] == ':' || re[i + 1] == '.' || re[i + 1] == '=')) {
			char kind = re[i + 1];
			const char *close = strstr(re + i + 2, (char[]){ kind, ']', '\0' });
			if (!close)
				return strlen(re);
			i = (size_t)(close - re) + 1;
		}
	}
	return i;
}

long np_trial_metric_backref(const char *re)
{
	for (size_t i = 0; re[i]; i++) {
		if (re[i] == '[') {
			i = bracket_end(re, i);
			if (!re[i])
				break;
		} else if (re[i] == '\\' && re[i + 1]) {
			if (re[i + 1] >= '1' && re[i + 1] <= '9')
				return (long)i;
			i++;
		}
	}
	return -1;
}

bool np_trial_metric_last(const regex_t *re, char *text, size_t len, bool cut, char *out, size_t size)
{
	bool found = false;
	size_t at = 0;
	if (cut) {
		char *nl = memchr(text, '\n', len);
		at = nl ? (size_t)(nl - text) + 1 : len;
	}
	while (at < len) {
		char *line = text + at, *nl = memchr(line, '\n', len - at);
		size_t n = nl ? (size_t)(nl - line) : len - at;
		/* The last line may have no line feed: its end is the text's, which
		 * the caller leaves room for. */
		line[n] = '\0';
		at += n + 1;
		regmatch_t m[2];
		if (regexec(re, line, 2, m, 0) || m[1].rm_so < 0)
			continue;
		found = true;
		snprintf(out, size, "%.*s", (int)(m[1].rm_eo - m[1].rm_so), line + m[1].rm_so);
	}
	return found;
}
