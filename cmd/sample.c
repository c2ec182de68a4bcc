/* SPDX-License-Identifier: GPL-2.0-or-later */
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <stdio.h>
#include <time.h>
#include <unistd.h>

#include "base/count.h"
#include "read/machine.h"
#include "cmd.h"
#include "render/term.h"

static void sleep_for(double seconds)
{
	struct timespec ts = { (time_t)seconds, (long)((seconds - (double)(time_t)seconds) * 1e9) };
	while (nanosleep(&ts, &ts) < 0 && errno == EINTR)
		;
}

int np_sample_interval(struct np_ctx *ctx, struct np_machine *m, double seconds)
{
	/* On a terminal, say why nothing happens for a while: a line on stderr,
	 * counting down each second, erased at the end (with an escape, so not
	 * on a dumb terminal). */
	bool progress = np_term_escapes(STDERR_FILENO);
	for (double left = seconds; left > 0;) {
		if (progress)
			fprintf(stderr, "\rsampling /proc/interrupts for %g s: %.0f s left \033[K", seconds, (double)(long)(left + 0.999));
		double step = progress && left > 1 ? 1 : left;
		sleep_for(step);
		left -= step;
	}
	if (progress)
		fputs("\r\033[K", stderr);
	struct np_irqs after;
	int rc = np_irqs_read_counts(ctx, &m->topo, &after);
	if (rc)
		return rc;
	rc = np_irqs_delta(&m->irqs, &after, &m->topo);
	np_irqs_free(&after);
	struct np_cpu_load later = { 0 };
	if (rc == 0 && (rc = np_cpu_load_read(ctx, &m->topo, &later)) == 0)
		np_cpu_load_delta(&m->load, &later, seconds);
	np_cpu_load_free(&later);
	/* Interrupts on exclusive CPUs are counted apart: over the same seconds. */
	return rc ? rc : np_kubelet_split_delta(ctx, &m->topo, &m->kube);
}

struct dev_rate {
	size_t dev;
	unsigned long long total;
};

static int by_total(const void *a, const void *b)
{
	const struct dev_rate *x = a, *y = b;
	return x->total != y->total ? (x->total > y->total ? -1 : 1) : (x->dev > y->dev) - (x->dev < y->dev);
}

void np_print_rates(const struct np_machine *m, const bool *dev_selected, double seconds, FILE *out)
{
	char buf[16];
	fputs("Per node /s:", out);
	for (int n = 0; n < m->topo.nnodes; n++) {
		unsigned long long sum = 0;
		for (size_t i = 0; i < m->irqs.n; i++)
			sum += m->irqs.v[i].per_node[n];
		fprintf(out, "%s node %d %s", n ? "," : "", m->topo.nodes[n].id,
			np_count_text((unsigned long long)((double)sum / seconds + 0.5), buf));
	}
	fputc('\n', out);
	struct dev_rate *v = calloc(m->pci.ndevs + 1, sizeof(*v));
	size_t nv = 0;
	for (size_t d = 0; v && d < m->pci.ndevs; d++) {
		if (dev_selected && !dev_selected[d])
			continue;
		unsigned long long sum = 0;
		for (size_t i = 0; i < m->irqs.n; i++)
			if (m->irqs.v[i].dev == (int)d)
				sum += m->irqs.v[i].total;
		if (sum)
			v[nv++] = (struct dev_rate){ d, sum };
	}
	char *line = NULL;
	size_t len;
	FILE *f = v && nv ? open_memstream(&line, &len) : NULL;
	if (f) {
		qsort(v, nv, sizeof(*v), by_total);
		fputs("Per device /s:", f);
		for (size_t i = 0; i < nv; i++) {
			const struct np_pci_dev *d = &m->pci.devs[v[i].dev];
			const char *name = d->nnet ? d->net[0].name : d->nblock ? d->block[0].name : d->addr;
			fprintf(f, "%s %s %s", i ? "," : "", name,
				np_count_text((unsigned long long)((double)v[i].total / seconds + 0.5), buf));
		}
		fclose(f);
		np_print_wrapped(out, line, np_term_width(), 0, 4);
	}
	free(line);
	free(v);
}
