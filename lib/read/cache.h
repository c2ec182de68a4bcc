/* SPDX-License-Identifier: GPL-2.0-or-later */
/* Last-level (L3) cache domains: inside a node with several L3s (AMD CCX/CCD,
 * Intel with SNC off) the L3 domain, not the node, is the unit of locality. */
#ifndef NUMAPLACE_CACHE_H
#define NUMAPLACE_CACHE_H

#include "base/context.h"
#include "base/cpuset.h"
#include "read/topology.h"

struct np_l3 {
	struct np_cpuset *domains; /* each domain's CPUs, in the order first met */
	int n;
	int *of_cpu;               /* domain index per CPU id up to max_cpu; -1 when unknown */
	int max_cpu;
};

/* Reads cpuN/cache/index3/shared_cpu_list for each online CPU not yet in a
 * domain (one read per domain). A CPU without index3 (no L3, or a kernel that
 * does not say) falls back to its node as its domain. */
int np_l3_read(struct np_ctx *ctx, const struct np_topology *topo, struct np_l3 *out);
void np_l3_free(struct np_l3 *l3);
/* The union of the L3 domains of the CPUs in cpus. */
int np_l3_cover(const struct np_l3 *l3, const struct np_cpuset *cpus, struct np_cpuset *out);

#endif
