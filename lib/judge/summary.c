/* SPDX-License-Identifier: GPL-2.0-or-later */
/* The summary's lines: the problem list as report's summary and advise's
 * groups show it, one line per device (its problems, the most important
 * first) and one per machine-wide problem. */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "judge/findings.h"

/* A finding's facts without the device's name that leads its message. */
static const char *fact_of(const struct np_finding *x)
{
	size_t len = x->who ? strlen(x->who) : 0;
	if (len && !strncmp(x->message, x->who, len) && !strncmp(x->message + len, ": ", 2))
		return x->message + len + 2;
	return x->message;
}

int np_findings_lines(const struct np_findings *f, struct np_summary_line **out, size_t *nout)
{
	size_t n = np_findings_summary(f), nlines = 0;
	struct np_summary_line *v = calloc(n + 1, sizeof(*v));
	int rc = v ? 0 : -ENOMEM;
	bool *taken = calloc(n + 1, sizeof(bool));
	if (!taken)
		rc = -ENOMEM;
	for (size_t k = 0; k < n && rc == 0; k++) {
		if (taken[k])
			continue;
		const struct np_finding *x = &f->v[k];
		struct np_summary_line *l = &v[nlines++];
		l->dev = x->dev;
		if (!(l->v = calloc(n + 1, sizeof(*l->v))) || !(l->text = strdup(x->message))) {
			rc = -ENOMEM;
			break;
		}
		/* The device's other problems join its most important one's line;
		 * channels, a judgement offered on request, keep a line of their own. */
		for (size_t i = k; i < n && rc == 0; i++) {
			const struct np_finding *y = &f->v[i];
			if (taken[i] || (i != k && (x->dev < 0 || y->dev != x->dev || x->rule == NP_RULE_CHANNELS ||
						    y->rule == NP_RULE_CHANNELS)))
				continue;
			taken[i] = true;
			l->v[l->n++] = i;
			if (!l->fix)
				l->fix = y->fix;
			char *more;
			if (i != k && asprintf(&more, "%s; also %s", l->text, fact_of(y)) < 0)
				rc = -ENOMEM;
			else if (i != k) {
				free(l->text);
				l->text = more;
			}
		}
	}
	free(taken);
	if (rc) {
		np_summary_lines_free(v, nlines);
		return rc;
	}
	*out = v;
	*nout = nlines;
	return 0;
}

void np_summary_lines_free(struct np_summary_line *v, size_t n)
{
	for (size_t i = 0; v && i < n; i++) {
		free(v[i].v);
		free(v[i].text);
	}
	free(v);
}
