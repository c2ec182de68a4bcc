/* SPDX-License-Identifier: GPL-2.0-or-later */
/* The metrics text (cmd/metrics.c), written by metrics and by hold --metrics. */
#ifndef NUMAPLACE_METRICS_H
#define NUMAPLACE_METRICS_H

#include <stddef.h>

#include "cmd.h"

struct np_profile;

/* What hold counted for one device. */
struct np_metrics_hold {
	char *device;
	unsigned long long reapplies, giveups;
};

struct np_metrics_src {
	const struct np_profile *profile; /* checked for drift; NULL: what the journals still applied wrote */
	const char *state_dir;            /* the transactions' (NULL: the default) */
	const struct np_metrics_hold *hold; /* hold's counters (nhold 0: not holding) */
	size_t nhold;
};

/* Loads the machine and writes every metric to path (replaced whole, mode
 * 0644), or to stdout when path is NULL. Returns 0, or -1 with ctx->err. */
int np_metrics_write(struct np_ctx *ctx, const struct np_metrics_src *src, const char *path);

#endif
