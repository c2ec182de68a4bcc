/* SPDX-License-Identifier: GPL-2.0-or-later */
/* The CPUs kept free of IRQs, and where each comes from. Every source is one
 * row of forbidden.c's table: the kernel's isolated and nohz_full CPUs, the
 * user's exclusions (--exclude-cpus), the containers' exclusive CPUs (the
 * kubelet's CPU manager). The rules judge a device's IRQs against them (an
 * IRQ on an isolated CPU stalls the work kept there), the planner keeps IRQs
 * off them. Adding a source is an id here and a row there. */
#ifndef NUMAPLACE_FORBIDDEN_H
#define NUMAPLACE_FORBIDDEN_H

#include "base/cpuset.h"
#include "read/machine.h"

enum np_forbid_source {
	NP_FORBID_ISOLATED,  /* isolcpus= (/sys/devices/system/cpu/isolated) */
	NP_FORBID_NOHZ_FULL, /* nohz_full= */
	NP_FORBID_EXCLUDED,  /* the user's: --exclude-cpus */
	NP_FORBID_EXCLUSIVE, /* exclusive to a Kubernetes container (read/kubelet) */
	NP_FORBID_NSOURCES
};

struct np_forbidden {
	struct np_cpuset by[NP_FORBID_NSOURCES]; /* each source's CPUs */
	/* What the rules judge by: where latency-critical work runs that the
	 * kernel keeps quiet (isolated, nohz_full), and the containers' CPUs
	 * that are not quiet too (each CPU is judged by one rule). */
	struct np_cpuset quiet;
	struct np_cpuset exclusive;
};

/* The machine's sources (the user's exclusions: excluded, NULL for none).
 * 0 or -ENOMEM; free with np_forbidden_free either way. */
int np_forbidden_find(const struct np_machine *m, const struct np_cpuset *excluded, struct np_forbidden *out);
void np_forbidden_free(struct np_forbidden *f);
/* The source's name: "isolated", "nohz_full", "excluded", "exclusive". */
const char *np_forbid_name(enum np_forbid_source s);

/* CPUs that may take IRQs: online, not isolated, not nohz_full, not excluded. */
int np_usable_cpus(const struct np_topology *topo, const struct np_cpuset *exclude, struct np_cpuset *out);
/* The nodes nearest to node (by distance) that have usable CPUs, as CPUs. */
int np_nearest_cpus(const struct np_topology *topo, int node, const struct np_cpuset *usable, struct np_cpuset *out);

#endif
