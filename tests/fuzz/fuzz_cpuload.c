/* SPDX-License-Identifier: GPL-2.0-or-later */
/* /proc/uptime, /proc/stat and /proc/softirqs (lib/read/cpu-load): the
 * input is the three texts, split at the first two NUL bytes. Whatever they
 * hold, the parse succeeds or fails with a message naming the file and
 * leaves nothing behind; a CPU's share of time on interrupts is unknown
 * (-1) or within 0..1; a rate is unknown or not negative; the difference of
 * a parse with itself is zero. */
#include <math.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "read/cpu-load.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

#define NCPUS 8

static void check(const struct np_cpu_load *l)
{
	if (l->uptime < 0 || l->seconds < 0 || isnan(l->uptime))
		abort();
	for (int c = -1; c <= NCPUS; c++) {
		double s = np_cpu_irq_share(l, c);
		if (!(s == -1 || (s >= 0 && s <= 1.0000001)))
			abort();
	}
	double r = np_cpu_load_rate(l, 12345);
	if (!(r == -1 || r >= 0))
		abort();
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	char *text = malloc(size + 1);
	if (!text)
		return 0;
	memcpy(text, data, size);
	text[size] = '\0';
	/* The three files: uptime, stat, softirqs (a missing one is absent). */
	char *uptime = text, *stat = NULL, *softirqs = NULL;
	char *nul = memchr(text, '\0', size);
	if (nul && (size_t)(nul - text) < size) {
		stat = nul + 1;
		size_t rest = size - (size_t)(stat - text);
		char *nul2 = memchr(stat, '\0', rest);
		if (nul2 && (size_t)(nul2 - text) < size)
			softirqs = nul2 + 1;
	}
	struct np_topology topo = { .max_cpu = NCPUS - 1 };
	struct np_ctx ctx = { 0 };
	struct np_cpu_load a, b;
	int rc = np_cpu_load_parse(&ctx, &topo, uptime, stat, softirqs, &a);
	if (rc) {
		if (a.cpu || !ctx.err[0] || (!strstr(ctx.err, "/proc/stat") && !strstr(ctx.err, "/proc/softirqs")))
			abort();
	} else {
		check(&a);
		if (np_cpu_load_parse(&ctx, &topo, uptime, stat, softirqs, &b))
			abort();
		np_cpu_load_delta(&a, &b, 1);
		check(&a);
		for (int c = 0; a.cpu && c < a.ncpu; c++)
			if (a.cpu[c].irq || a.cpu[c].softirq || a.cpu[c].all || a.cpu[c].softirqs || a.cpu[c].dev_softirqs)
				abort();
		np_cpu_load_free(&b);
	}
	np_cpu_load_free(&a);
	free(text);
	return 0;
}
