/* SPDX-License-Identifier: GPL-2.0-or-later */
/* The machine's NUMA nodes and CPUs, read from sysfs through the root-aware layer.
 *
 * Copies of real machines are often partial, and kernels have formatted the
 * same file in several ways, so loading fails only when a file that defines
 * the topology (cpu/present or online, a node's cpulist or cpumap, its
 * distance) is present but garbled, or cannot be read for another reason than
 * being absent. A missing detail (meminfo, a CPU's topology/, isolated and
 * nohz_full with no /proc/cmdline to fall back on) or one in no format any
 * kernel wrote is left unknown and said once in notes. isolated and nohz_full
 * accept each form kernels print: blanks around the list, an empty file,
 * "(null)" with or without padding. */
#ifndef NUMAPLACE_TOPOLOGY_H
#define NUMAPLACE_TOPOLOGY_H

#include <stdbool.h>
#include <stdint.h>

#include "context.h"
#include "cpuset.h"

struct np_node {
	int id;
	struct np_cpuset cpus;   /* empty for a memory-only node (CXL, HBM, ...) */
	long long memory_kb;     /* -1 when unknown (no meminfo in the copy) */
	int *distances;          /* one per node, in np_topology.nodes order */
};

struct np_cpu {
	int id;
	int node;                /* -1 when unknown */
	int package;             /* -1 when unknown (offline CPUs have no topology/, nor some copies) */
	int core;                /* core_id, unique only within its package */
	struct np_cpuset siblings;
	bool online;
};

struct np_topology {
	struct np_node *nodes;   /* ascending id */
	int nnodes;
	struct np_cpu *cpus;     /* every present CPU, ascending id */
	int ncpus;
	bool numa;               /* false: the kernel has no node directory; one node is made up */
	struct np_cpuset present, online, isolated, nohz_full;
	int *node_of_cpu;        /* indexed by CPU id up to max_cpu; -1 when unknown */
	int max_cpu;
	char **notes;            /* what could not be read, one line each, for the user */
	size_t nnotes;
};

int np_topology_load(struct np_ctx *ctx, struct np_topology *topo);
void np_topology_free(struct np_topology *topo);
const struct np_node *np_topology_node(const struct np_topology *topo, int id);
int np_topology_node_of_cpu(const struct np_topology *topo, int cpu);
/* Distance between two nodes by id, or -1 when either is unknown. */
int np_topology_distance(const struct np_topology *topo, int from, int to);

/* Reads the "isolcpus=" / "nohz_full=" CPU list of a kernel command line.
 * isolcpus flags ("managed_irq,domain,2-5") are skipped. Returns 0 with an
 * empty set when absent, -EINVAL when the list is malformed. */
int np_cmdline_cpus(const char *cmdline, const char *param, struct np_cpuset *out);

#endif
