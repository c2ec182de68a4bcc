#include "table.h"

#include <stdarg.h>
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>

struct np_table {
	int ncols;
	const char *const *headers;
	char **cells;
	size_t ncells, cap;
	bool failed;
};

struct np_table *np_table_new(const char *const *headers)
{
	struct np_table *t = calloc(1, sizeof(*t));
	if (!t)
		return NULL;
	while (headers[t->ncols])
		t->ncols++;
	t->headers = headers;
	return t;
}

void np_table_cell(struct np_table *t, const char *fmt, ...)
{
	if (!t || t->failed)
		return;
	if (t->ncells == t->cap) {
		size_t cap = t->cap ? t->cap * 2 : 64;
		char **cells = realloc(t->cells, cap * sizeof(*cells));
		if (!cells) {
			t->failed = true;
			return;
		}
		t->cells = cells;
		t->cap = cap;
	}
	va_list ap;
	va_start(ap, fmt);
	if (vasprintf(&t->cells[t->ncells], fmt, ap) < 0)
		t->failed = true;
	else
		t->ncells++;
	va_end(ap);
}

static const char *header_text(const char *h)
{
	return h[0] == '>' ? h + 1 : h;
}

void np_table_print(struct np_table *t, FILE *out)
{
	if (!t)
		return;
	size_t *width = calloc((size_t)t->ncols, sizeof(*width));
	if (!width)
		return;
	for (int c = 0; c < t->ncols; c++)
		width[c] = strlen(header_text(t->headers[c]));
	for (size_t i = 0; i < t->ncells; i++) {
		size_t len = strlen(t->cells[i]);
		if (len > width[i % (size_t)t->ncols])
			width[i % (size_t)t->ncols] = len;
	}
	for (size_t i = 0; i < t->ncells + (size_t)t->ncols; i++) {
		int c = (int)(i % (size_t)t->ncols);
		const char *text = i < (size_t)t->ncols ? header_text(t->headers[i])
							 : t->cells[i - (size_t)t->ncols];
		bool right = t->headers[c][0] == '>';
		bool last = c == t->ncols - 1;
		if (right)
			fprintf(out, "%*s", (int)width[c], text);
		else if (last)
			fputs(text, out);
		else
			fprintf(out, "%-*s", (int)width[c], text);
		fputs(last ? "\n" : "  ", out);
	}
	free(width);
}

void np_table_free(struct np_table *t)
{
	if (!t)
		return;
	for (size_t i = 0; i < t->ncells; i++)
		free(t->cells[i]);
	free(t->cells);
	free(t);
}
