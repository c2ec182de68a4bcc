/* The machine's NUMA nodes and CPUs, read from sysfs through the root-aware layer. */
#ifndef NUMAPLACE_TOPOLOGY_H
#define NUMAPLACE_TOPOLOGY_H

#include <stdbool.h>
#include <stdint.h>

#include "context.h"
#include "cpuset.h"

struct np_node {
	int id;
	struct np_cpuset cpus;   /* empty for a memory-only node (CXL, HBM, ...) */
	unsigned long long memory_kb;
	int *distances;          /* one per node, in np_topology.nodes order */
};

struct np_cpu {
	int id;
	int node;                /* -1 when unknown */
	int package;             /* -1 when unknown (offline CPUs have no topology/) */
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
