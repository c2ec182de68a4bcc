/* SPDX-License-Identifier: GPL-2.0-or-later */
/* Everything numaplace reads about a machine, loaded once and tied together:
 * topology, PCI functions with their children, and IRQs tied to them. */
#ifndef NUMAPLACE_MACHINE_H
#define NUMAPLACE_MACHINE_H

#include <stdbool.h>

#include "read/cache.h"
#include "read/irq.h"
#include "read/cpu-load.h"
#include "read/irqbalance-conf.h"
#include "read/kubelet.h"
#include "read/pci.h"
#include "read/topology.h"
#include "read/tuned.h"

struct np_machine {
	struct np_topology topo;
	struct np_pci pci;
	struct np_irqs irqs;
	struct np_l3 l3;
	bool irqbalance;   /* an irqbalance process is running */
	bool irqbalance_known; /* false: no process information (a snapshot without /proc/PID) */
	bool managed_irq_isolation; /* isolcpus= has the managed_irq flag */
	struct np_kubelet kube;     /* pods' exclusive CPUs (ctx->kubelet_state, or the root's) */
	struct np_cpu_load load;    /* what the counts cover (uptime, interval) and CPU time in interrupts */
	struct np_irqb_banned irqb_banned; /* the CPUs irqbalance's configuration bans */
	struct np_tuned tuned;      /* TuneD's isolated cores (cpu-partitioning, realtime) */
	/* Why every IRQ handler runs in a thread (the kernel's force_irqthreads():
	 * "threadirqs" on the command line, or a PREEMPT_RT kernel), NULL when
	 * they do not: blk-mq then completes where the interrupt ran. */
	const char *irq_threads;
	long long rps_sock_flow_entries; /* RFS's global table (net.core): -1 when unknown */
};

int np_machine_load(struct np_ctx *ctx, struct np_machine *m);
/* What a caller that shows nothing (hold) may leave out of a load. */
enum np_load_skip {
	NP_LOAD_NO_NAMES = 1 << 0,     /* PCI vendor, device and class names: the ID database */
	NP_LOAD_NO_PROCESSES = 1 << 1, /* whether irqbalance runs (every /proc/PID/comm):
					* irqbalance and irqbalance_known stay false */	/* Not a skip: the pass over /proc/interrupts also fills kube.split
	 * (np_kubelet_split, which is then a no-op), for a caller that needs it
	 * (report --json's interrupts_where): one read of the file, not two. */
	NP_LOAD_KUBE_SPLIT = 1 << 2,
	NP_LOAD_NO_CPU_TIME = 1 << 3,  /* /proc/uptime, /proc/stat and /proc/softirqs: m->load unknown */
};
int np_machine_load_some(struct np_ctx *ctx, struct np_machine *m, unsigned skip);
/* Reads again what a device coming or going changes (PCI functions with
 * their children, IRQs, irqbalance unless skipped) and keeps the rest (the
 * topology, L3 domains, isolcpus): hold's pass after a device event. On
 * failure m is freed. */
int np_machine_reload_devices(struct np_ctx *ctx, struct np_machine *m, unsigned skip);
/* Fills m->irqbalance and m->irqbalance_known, for a load that skipped them. */
int np_machine_find_irqbalance(struct np_ctx *ctx, struct np_machine *m);
void np_machine_free(struct np_machine *m);

/* The node a device's locality is judged by: its numa_node, else the one
 * node whose CPUs are exactly its local CPUs (*inferred set), else -1. */
int np_device_node(const struct np_machine *m, const struct np_pci_dev *dev, bool *inferred);
/* Share (0..1) of an IRQ's interrupts handled on CPUs outside node; -1 when
 * node is unknown or the IRQ never fired. */
double np_irq_remote_share(const struct np_machine *m, const struct np_irq *irq, int node);
/* An IRQ or device handling at least this share of its interrupts off its
 * node runs "mostly on remote nodes". */
#define NP_REMOTE_SHARE_THRESHOLD 0.5

/* A device's IRQs at a glance, judged against np_device_node(); its
 * managed per-CPU queues (np_irq_per_cpu) are a class of their own, never
 * remote. */
struct np_irq_summary {
	int nirqs;
	int nremote;               /* IRQs mostly remote (NP_REMOTE_SHARE_THRESHOLD) */
	int nmanaged;
	int nper_cpu;              /* managed per-CPU queue vectors */
	unsigned long long total;  /* interrupts of all its IRQs */
	unsigned long long per_cpu;/* of those, on its per-CPU queues */
	unsigned long long remote; /* of the others, handled off node (0 when the node is unknown) */
	bool node_known;           /* remote means something */
};
/* The share of s's interrupts off node among those that are not per CPU by
 * design (0..1), -1 when none or the node is unknown. */
double np_irq_summary_remote_share(const struct np_irq_summary *s);
void np_device_irq_summary(const struct np_machine *m, size_t dev, struct np_irq_summary *s);

/* Interrupts of device di (m->pci.devs) by where they ran, each counted
 * once (np_kubelet_where, summed over its IRQs), judged against its node,
 * np_device_node (into *node: -1 unknown). Returns how many IRQs the device
 * has (0: w is all zero). Needs np_kubelet_split on m->kube. */
size_t np_device_where(const struct np_machine *m, size_t di, struct np_where *w, int *node);

/* Nodes of the CPUs in set, as a set of node ids. */
int np_nodes_of(const struct np_topology *topo, const struct np_cpuset *cpus, struct np_cpuset *nodes);

/* Whether filter names function i: its address, an interface, a block
 * device or its driver (np_pci_dev_match), its label in devices --matrix
 * (GPU3: np_pci_label), one of its RDMA devices (mlx5_0), or the start of
 * its IRQs' names up to a non-digit (virtio0 for virtio0-input.0, nvme0 for
 * nvme0q1, not virtio1 for virtio10-config). */
struct np_ctx;
bool np_device_matches(struct np_ctx *ctx, const struct np_machine *m, size_t i, const char *filter);
/* Whether filter starts the name of an IRQ (that prefix rule). */
bool np_irq_name_matches(const char *name, const char *filter);
/* What a filter may be, for messages. */
#define NP_FILTER_KINDS "an address, interface, block device, driver, matrix label, RDMA device or IRQ name"
/* Marks the devices a command shows (selected: one per PCI function): those
 * matching any filter, else those that matter (every one with all).
 * Returns 0, or -ENOENT when a filter matches nothing. */
int np_select_devices(struct np_ctx *ctx, const struct np_machine *m, int nfilters, char **filters, bool all,
		      bool *selected);

#endif
