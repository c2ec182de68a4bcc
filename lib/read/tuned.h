/* SPDX-License-Identifier: GPL-2.0-or-later */
/* TuneD's isolated cores: the CPUs its cpu-partitioning and realtime
 * profiles keep for latency-critical work (their variables file's
 * isolated_cores), read only when /etc/tuned/active_profile names one of
 * them. */
#ifndef NUMAPLACE_TUNED_H
#define NUMAPLACE_TUNED_H

#include "base/context.h"
#include "base/cpuset.h"

struct np_tuned {
	struct np_cpuset isolated; /* empty when no such profile is active or its value is not read */
	char *source;              /* "isolated_cores=2-5 in /etc/tuned/cpu-partitioning-variables.conf
				    * (active profile cpu-partitioning)"; NULL: none */
	char *note;                /* a value not read (TuneD evaluates ${f:...} itself); NULL */
};

/* 0, or -ENOMEM (ctx->err); what cannot be read is a note. Free with
 * np_tuned_free either way. */
int np_tuned_read(struct np_ctx *ctx, struct np_tuned *out);
void np_tuned_free(struct np_tuned *t);
/* The i-th file np_tuned_read may read (0: the active profile's name, then
 * each isolating profile's variables), NULL past the last: for snapshot. */
const char *np_tuned_file(size_t i);

#endif
