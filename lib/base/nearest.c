/* SPDX-License-Identifier: GPL-2.0-or-later */
#include "base/nearest.h"

#include <stdlib.h>
#include <string.h>

size_t np_edit_distance(const char *a, const char *b)
{
	size_t la = strlen(a), lb = strlen(b);
	/* Three rows of the usual table: the one before the previous is for swaps. */
	size_t *rows = malloc(3 * (lb + 1) * sizeof(*rows));
	if (!rows)
		return (size_t)-1;
	size_t *pp = rows, *p = rows + lb + 1, *c = rows + 2 * (lb + 1);
	for (size_t j = 0; j <= lb; j++)
		p[j] = j;
	for (size_t i = 1; i <= la; i++) {
		c[0] = i;
		for (size_t j = 1; j <= lb; j++) {
			size_t best = p[j - 1] + (a[i - 1] != b[j - 1]);
			if (p[j] + 1 < best)
				best = p[j] + 1;
			if (c[j - 1] + 1 < best)
				best = c[j - 1] + 1;
			if (i > 1 && j > 1 && a[i - 1] == b[j - 2] && a[i - 2] == b[j - 1] && pp[j - 2] + 1 < best)
				best = pp[j - 2] + 1;
			c[j] = best;
		}
		size_t *t = pp;
		pp = p;
		p = c;
		c = t;
	}
	size_t d = p[lb];
	free(rows);
	return d;
}

const char *np_nearest(const char *typed, const void *names, size_t n, size_t stride)
{
	const char *best = NULL;
	size_t best_d = (size_t)-1, len = strlen(typed);
	for (size_t i = 0; i < n; i++) {
		const char *name = *(const char *const *)((const char *)names + i * stride);
		size_t d = np_edit_distance(typed, name), nlen = strlen(name);
		/* One word the start of the other: a short form, or one too long. */
		if (len >= 2 && (!strncmp(typed, name, len < nlen ? len : nlen)))
			d = d < 1 ? d : 1;
		if (d < best_d) {
			best = name;
			best_d = d;
		}
	}
	return best && best_d <= 2 && 2 * best_d < (len > strlen(best) ? len : strlen(best)) ? best : NULL;
}
