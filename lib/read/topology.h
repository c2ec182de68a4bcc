/* SPDX-License-Identifier: GPL-2.0-or-later */
/* The machine's NUMA nodes and CPUs, read from sysfs through the root-aware layer.
 *
 * Copies of real machines are often partial, and kernels have formatted the
 * same file in several ways, so loading fails only when cpu/present or online
 * cannot be read, or a file is garbled (a CPU list, a distance row, an
 * integer that is none). Every per-CPU and per-node file is optional: absent,
 * empty, blank, "(null)" or unreadable leaves its detail unknown, said once
 * per kind of file in notes. Each CPU is in exactly one node, and node CPU
 * lists hold online CPUs only (see place_cpus). isolated and nohz_full
 * accept each form kernels print: blanks around the list, an empty file,
 * "(null)" with or without padding. */
#ifndef NUMAPLACE_TOPOLOGY_H
#define NUMAPLACE_TOPOLOGY_H

#include <stdbool.h>
#include <stdint.h>

#include "base/context.h"
#include "base/cpuset.h"

/* How a node's near CPUs were found. */
enum np_near_by {
	NP_NEAR_UNKNOWN,    /* a memory-only node with neither initiators nor distances */
	NP_NEAR_OWN,        /* a node with CPUs: its own */
	NP_NEAR_INITIATORS, /* the HMAT's initiators (nodeN/access0/initiators/) */
	NP_NEAR_DISTANCE,   /* the node(s) with CPUs at the least distance */
};

struct np_node {
	int id;
	struct np_cpuset cpus;   /* its online CPUs; empty for a memory-only node (CXL, HBM, GPU) */
	long long memory_kb;     /* -1 when unknown (no meminfo in the copy) */
	int *distances;          /* one per node, in np_topology.nodes order; NULL when unknown */
	/* The CPUs that reach its memory best, and the nodes they are in: its
	 * own for a node with CPUs; for a memory-only node, those near_by says. */
	struct np_cpuset near_cpus, near_nodes;
	enum np_near_by near_by;
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
/* The node of cpu, -1 when unknown. Inline: the planner and the renderers
 * ask it for every CPU of every set they place or show. */
static inline int np_topology_node_of_cpu(const struct np_topology *topo, int cpu)
{
	return cpu >= 0 && cpu <= topo->max_cpu ? topo->node_of_cpu[cpu] : -1;
}
/* Distance between two nodes by id, or -1 when either is unknown. */
int np_topology_distance(const struct np_topology *topo, int from, int to);

/* Reads the "isolcpus=" / "nohz_full=" CPU list of a kernel command line.
 * isolcpus flags ("managed_irq,domain,2-5") are skipped. Returns 0 with an
 * empty set when absent, -EINVAL when the list is malformed. */
int np_cmdline_cpus(const char *cmdline, const char *param, struct np_cpuset *out);

#endif
