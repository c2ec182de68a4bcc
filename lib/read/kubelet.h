/* SPDX-License-Identifier: GPL-2.0-or-later */
/* Kubernetes pods' exclusive CPUs: the kubelet's static CPU manager records
 * in /var/lib/kubelet/cpu_manager_state which CPUs each Guaranteed
 * container owns alone ({"policyName": "static", "defaultCpuSet": "0-1",
 * "entries": {"POD-UID": {"CONTAINER": "2-3"}}, "checksum": N}). A device
 * interrupt landing there steals cycles from a latency-critical workload,
 * as one on an isolated CPU does. A file that is malformed or of a version
 * not known here is a note, never a failure: the rest of the machine is
 * still worth reporting. */
#ifndef NUMAPLACE_KUBELET_H
#define NUMAPLACE_KUBELET_H

#include <stdbool.h>
#include <stddef.h>

#include "base/context.h"
#include "base/cpuset.h"
#include "read/irq.h"
#include "read/topology.h"

/* Where the kubelet keeps it, under the root. */
#define NP_KUBELET_STATE "/var/lib/kubelet/cpu_manager_state"
#define NP_KUBELET_PODS "/var/lib/kubelet/pods"

struct np_kube_container {
	char *pod_uid;
	char *pod_name;   /* from the pod's kubelet-managed etc-hosts; NULL when unknown */
	char *name;       /* the container */
	struct np_cpuset cpus;
};

struct np_kubelet {
	char *path;        /* the state file read, as shown in messages; NULL when none */
	char *policy;      /* policyName: "static", "none" */
	struct np_cpuset default_cpus; /* defaultCpuSet: shared by every other container */
	struct np_kube_container *v;   /* ascending first CPU */
	size_t n;
	struct np_cpuset exclusive;    /* the union of the containers' CPUs */
	char **notes;      /* why the file was set aside, one line each */
	size_t nnotes;
	/* Interrupts per CPU class, from a second pass over /proc/interrupts
	 * (np_kubelet_split) or the machine's own (np_kubelet_read_irqs): rows
	 * as in np_irqs (counts only), per_node entries 0..N-1 the topology's
	 * nodes without their isolated, nohz_full or exclusive CPUs, N..2N-1
	 * the exclusive CPUs (not isolated) of each node, quiet the isolated and
	 * nohz_full CPUs' counts. A second read: on a live machine its counts
	 * are a little later than the machine's. Only where some CPU is
	 * isolated, nohz_full or exclusive: elsewhere it would repeat the
	 * machine's counts, which np_kubelet_where reads instead. */
	struct np_irqs split;
	bool split_loaded;
};

/* Reads the state file: override (a path as the user gave it, not under the
 * root) or NP_KUBELET_STATE under the root. An absent default file is no
 * kubelet (out->path NULL); an absent override is an error. A malformed file,
 * or one of an unknown version or policy, leaves no exclusive CPUs and a note.
 * Pod names are read from NP_KUBELET_PODS/UID/etc-hosts. Returns 0, or -errno
 * (ctx->err says why) when a file cannot be read for another reason. */
int np_kubelet_load(struct np_ctx *ctx, const char *override, struct np_kubelet *out);
/* The parse alone, of len bytes read from shown (for the tests). */
int np_kubelet_parse(const char *text, size_t len, const char *shown, struct np_kubelet *out);
/* The container owning cpu exclusively, or NULL. */
const struct np_kube_container *np_kubelet_owner(const struct np_kubelet *k, int cpu);
/* "POD-UID/CONTAINER (pod NAME)" into buf. */
const char *np_kube_container_text(const struct np_kube_container *c, char *buf, size_t size);
/* The containers holding any of cpus, each once, ", "-separated (malloc'd;
 * "" when none); NULL on ENOMEM. */
char *np_kube_owners_text(const struct np_kubelet *k, const struct np_cpuset *cpus);
/* Fills k->split (see above) from /proc/interrupts, once. Returns 0 or -errno. */
int np_kubelet_split(struct np_ctx *ctx, const struct np_topology *topo, struct np_kubelet *k);
/* np_irqs_read of the machine whose one pass over /proc/interrupts also
 * fills k->split, as np_kubelet_split would (which is then a no-op).
 * Returns 0 or -errno (-ENOENT: no /proc/interrupts, nothing filled). */
int np_kubelet_read_irqs(struct np_ctx *ctx, const struct np_topology *topo, struct np_kubelet *k,
			 struct np_irqs *irqs);
/* After an interval (np_sample_interval): a loaded split's counts become
 * those of the interval, read again now. Returns 0 or -errno. */
int np_kubelet_split_delta(struct np_ctx *ctx, const struct np_topology *topo, struct np_kubelet *k);
void np_kubelet_free(struct np_kubelet *k);

/* Interrupts of one IRQ by where they ran, each counted once: on isolated or
 * nohz_full CPUs, else on a container's exclusive CPUs, else on a managed
 * per-CPU queue (np_irq_per_cpu: neither local nor remote, by design), else
 * off the node (node_index: the device's, in topology order; -1 unknown: all
 * remote), else local, from np_kubelet_split's counts (an IRQ it lacks, or
 * no split: the machine's, with nothing exclusive). */
struct np_where {
	unsigned long long local, remote, isolated, exclusive, per_cpu;
};
void np_kubelet_where(const struct np_kubelet *k, const struct np_topology *topo, const struct np_irq *irq,
		      int node_index, struct np_where *w);

#endif
