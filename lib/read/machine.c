/* SPDX-License-Identifier: GPL-2.0-or-later */
#include "read/machine.h"

#include <ctype.h>
#include <errno.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <time.h>

#include "change/attr.h"
#include "read/pci-class.h"
#include "read/sysfs.h"

/* irqbalance rewrites IRQ affinities every 10 s: a report must say so. */
static int irqbalance_running(struct np_ctx *ctx, bool *running, bool *known)
{
	char **names;
	size_t n;
	*running = *known = false;
	int rc = np_list_dir(ctx, &names, &n, "/proc");
	if (rc)
		return rc == -ENOENT ? 0 : rc;
	for (size_t i = 0; i < n && !*running; i++) {
		char *comm;
		if (!isdigit((unsigned char)names[i][0]))
			continue;
		*known = true;
		/* A process may exit between the listing and the read. */
		if (np_read_text(ctx, &comm, "/proc/%s/comm", names[i]) == 0) {
			*running = !strcmp(comm, "irqbalance");
			free(comm);
		}
	}
	np_names_free(names, n);
	return 0;
}

/* A whole word of the kernel command line: "threadirqs", not "nothreadirqs". */
static const char *cmdline_word(const char *cmdline, const char *word)
{
	size_t len = strlen(word);
	for (const char *p = cmdline; (p = strstr(p, word)); p++)
		if ((p == cmdline || p[-1] == ' ') && strchr(" =\n", p[len] ? p[len] : ' '))
			return p;
	return NULL;
}

/* What the kernel was built and booted with that changes how IRQs behave:
 * isolcpus= with managed_irq (managed IRQs kept off isolated CPUs whenever
 * their mask has a housekeeping CPU), and forced IRQ threads. */
static void kernel_traits(struct np_ctx *ctx, struct np_machine *m)
{
	char *cmdline = NULL, *version = NULL;
	long long v;
	if (np_read_text(ctx, &cmdline, "/proc/cmdline") == 0) {
		const char *iso = cmdline_word(cmdline, "isolcpus");
		m->managed_irq_isolation = iso && strstr(iso, "managed_irq") &&
					   strstr(iso, "managed_irq") < iso + strcspn(iso, " ");
		if (cmdline_word(cmdline, "threadirqs"))
			m->irq_threads = "threadirqs on the kernel command line";
	}
	/* PREEMPT_RT forces them whatever the command line (force_irqthreads() is
	 * constant true): /sys/kernel/realtime is 1 there, and the version
	 * string says PREEMPT_RT (PREEMPT RT before 5.x's rename). */
	if (np_read_int(ctx, &v, "/sys/kernel/realtime") == 0 && v == 1)
		m->irq_threads = "a PREEMPT_RT kernel (/sys/kernel/realtime)";
	else if (np_read_text(ctx, &version, "/proc/sys/kernel/version") == 0 &&
		 (strstr(version, "PREEMPT_RT") || strstr(version, "PREEMPT RT")))
		m->irq_threads = "a PREEMPT_RT kernel (its version string)";
	m->rps_sock_flow_entries = np_read_int(ctx, &v, "%s", np_attrs[NP_ATTR_RPS_SOCK_FLOW_ENTRIES].path) == 0 ? v : -1;
	free(cmdline);
	free(version);
	ctx->err[0] = '\0';
}

int np_machine_load(struct np_ctx *ctx, struct np_machine *m)
{
	return np_machine_load_some(ctx, m, 0);
}

/* What a device coming or going changes: the PCI functions with their
 * children, the IRQs, and whether irqbalance runs. */
static int load_devices(struct np_ctx *ctx, struct np_machine *m, unsigned skip)
{
	int rc = np_pci_scan(ctx, &m->pci);
	if (rc == 0 && !(skip & NP_LOAD_NO_NAMES))
		rc = np_pci_lookup_names(ctx, &m->pci);
	/* Snapshots of topology alone have no /proc/interrupts: no IRQs, not an error. */
	if (rc == 0 && (skip & NP_LOAD_KUBE_SPLIT) && !m->kube.split_loaded)
		rc = np_kubelet_read_irqs(ctx, &m->topo, &m->kube, &m->irqs);
	else if (rc == 0)
		rc = np_irqs_read(ctx, &m->topo, &m->irqs);
	if (rc == -ENOENT) {
		m->irqs.absent = true;
		ctx->err[0] = '\0';
		rc = 0;
	}
	/* Read right after /proc/interrupts: the uptime its counts cover. */
	if (rc == 0 && !(skip & NP_LOAD_NO_CPU_TIME)) {
		np_cpu_load_free(&m->load);
		rc = np_cpu_load_read(ctx, &m->topo, &m->load);
	}
	if (rc == 0 && !(skip & NP_LOAD_NO_PROCESSES))
		rc = irqbalance_running(ctx, &m->irqbalance, &m->irqbalance_known);
	if (rc == 0)
		np_irqs_tie(&m->irqs, &m->pci);
	return rc;
}

int np_machine_load_some(struct np_ctx *ctx, struct np_machine *m, unsigned skip)
{
	memset(m, 0, sizeof(*m));
	int rc = np_topology_load(ctx, &m->topo);
	if (rc)
		return rc;
	rc = np_l3_read(ctx, &m->topo, &m->l3);
	if (rc == 0) {
		kernel_traits(ctx, m);
		rc = np_kubelet_load(ctx, ctx->kubelet_state, &m->kube);
	}
	/* The CPUs others keep free of IRQs (judge/forbidden's sources). */
	if (rc == 0)
		rc = np_irqbalance_banned_read(ctx, &m->irqb_banned);
	if (rc == 0)
		rc = np_tuned_read(ctx, &m->tuned);
	/* Interrupts on exclusive CPUs need a count of their own, in the same pass. */
	if (rc == 0 && !np_cpuset_empty(&m->kube.exclusive))
		skip |= NP_LOAD_KUBE_SPLIT;
	if (rc == 0)
		rc = load_devices(ctx, m, skip);
	if (rc == 0 && (skip & NP_LOAD_KUBE_SPLIT))
		rc = np_kubelet_split(ctx, &m->topo, &m->kube);
	if (rc)
		np_machine_free(m);
	return rc;
}

int np_machine_reload_devices(struct np_ctx *ctx, struct np_machine *m, unsigned skip)
{
	np_irqs_free(&m->irqs);
	np_pci_free(&m->pci);
	m->irqbalance = m->irqbalance_known = false;
	int rc = load_devices(ctx, m, skip);
	if (rc)
		np_machine_free(m);
	return rc;
}

int np_machine_find_irqbalance(struct np_ctx *ctx, struct np_machine *m)
{
	return irqbalance_running(ctx, &m->irqbalance, &m->irqbalance_known);
}

void np_machine_free(struct np_machine *m)
{
	np_cpu_load_free(&m->load);
	np_irqbalance_banned_free(&m->irqb_banned);
	np_tuned_free(&m->tuned);
	np_kubelet_free(&m->kube);
	np_l3_free(&m->l3);
	np_irqs_free(&m->irqs);
	np_pci_free(&m->pci);
	np_topology_free(&m->topo);
}

int np_device_node(const struct np_machine *m, const struct np_pci_dev *dev, bool *inferred)
{
	if (inferred)
		*inferred = false;
	if (dev->numa_node >= 0 && np_topology_node(&m->topo, dev->numa_node))
		return dev->numa_node;
	if (np_cpuset_empty(&dev->local_cpus))
		return -1;
	for (int i = 0; i < m->topo.nnodes; i++) {
		const struct np_node *n = &m->topo.nodes[i];
		if (!np_cpuset_empty(&n->cpus) && np_cpuset_equal(&n->cpus, &dev->local_cpus)) {
			if (inferred)
				*inferred = true;
			return n->id;
		}
	}
	return -1;
}

double np_irq_remote_share(const struct np_machine *m, const struct np_irq *irq, int node)
{
	if (node < 0 || irq->total == 0)
		return -1;
	unsigned long long local = 0;
	/* Node ids ascend: without a gap below it, a node's id is its index
	 * (a lookup per IRQ and per planned change). */
	if (node < m->topo.nnodes && m->topo.nodes[node].id == node)
		local = irq->per_node[node];
	else
		for (int i = 0; i < m->topo.nnodes; i++)
			if (m->topo.nodes[i].id == node)
				local = irq->per_node[i];
	return (double)(irq->total - local) / (double)irq->total;
}

void np_device_irq_summary(const struct np_machine *m, size_t dev, struct np_irq_summary *s)
{
	int node = np_device_node(m, &m->pci.devs[dev], NULL);
	memset(s, 0, sizeof(*s));
	s->node_known = node >= 0;
	np_irqs_foreach_of_dev(&m->irqs, (int)dev, i) {
		const struct np_irq *irq = &m->irqs.v[i];
		if (irq->dev != (int)dev)
			continue;
		s->nirqs++;
		s->nmanaged += irq->managed != NP_MANAGED_NO;
		s->total += irq->total;
		if (np_irq_per_cpu(irq)) {
			s->nper_cpu++;
			s->per_cpu += irq->total;
			continue;
		}
		double share = np_irq_remote_share(m, irq, node);
		if (share < 0)
			continue;
		s->remote += (unsigned long long)(share * (double)irq->total + 0.5);
		s->nremote += share >= NP_REMOTE_SHARE_THRESHOLD;
	}
}

double np_irq_summary_remote_share(const struct np_irq_summary *s)
{
	unsigned long long others = s->total - s->per_cpu;
	return s->node_known && others ? (double)s->remote / (double)others : -1;
}

int np_nodes_of(const struct np_topology *topo, const struct np_cpuset *cpus, struct np_cpuset *nodes)
{
	np_cpuset_clear(nodes);
	/* A word of the set at a time, and a node set again only when it
	 * changes: an IRQ's affinity of 0-1023 is 1024 CPUs of 16 nodes in runs
	 * (a call each for the next CPU, its node and the set was 40
	 * instructions a CPU). */
	int last = -1;
	for (size_t w = 0; w < cpus->nwords; w++)
		for (uint64_t bits = cpus->bits[w]; bits; bits &= bits - 1) {
			int node = np_topology_node_of_cpu(topo, (int)(w * 64) + __builtin_ctzll(bits));
			if (node < 0 || node == last)
				continue;
			last = node;
			int rc = np_cpuset_set(nodes, (unsigned)node);
			if (rc)
				return rc;
		}
	return 0;
}

static bool device_has_irqs(const struct np_machine *m, size_t di)
{
	np_irqs_foreach_of_dev(&m->irqs, (int)di, i)
		if (m->irqs.v[i].dev == (int)di)
			return true;
	return false;
}

bool np_irq_name_matches(const char *name, const char *filter)
{
	size_t len = strlen(filter);
	return len && name && !strncmp(name, filter, len) && !isdigit((unsigned char)name[len]);
}

bool np_device_matches(struct np_ctx *ctx, const struct np_machine *m, size_t i, const char *filter)
{
	const struct np_pci_dev *d = &m->pci.devs[i];
	if (np_pci_dev_match(d, filter))
		return true;
	char label[32];
	np_pci_label(&m->pci, i, label, sizeof(label));
	if (*label && !strcasecmp(label, filter))
		return true;
	for (size_t k = 0; k < m->irqs.n; k++)
		if (m->irqs.v[k].dev == (int)i && np_irq_name_matches(m->irqs.v[k].name, filter))
			return true;
	/* A name only: no path may be made of it. */
	return filter[0] && filter[0] != '.' && !strchr(filter, '/') &&
	       np_sysfs_exists(ctx, "/sys/bus/pci/devices/%s/infiniband/%s", d->addr, filter);
}

int np_select_devices(struct np_ctx *ctx, const struct np_machine *m, int nfilters, char **filters, bool all,
		      bool *selected)
{
	for (size_t i = 0; i < m->pci.ndevs; i++)
		selected[i] = nfilters == 0 && (all || np_pci_dev_matters(&m->pci.devs[i], device_has_irqs(m, i)));
	for (int f = 0; f < nfilters; f++) {
		bool any = false;
		for (size_t i = 0; i < m->pci.ndevs; i++)
			if (np_device_matches(ctx, m, i, filters[f]))
				selected[i] = any = true;
		if (!any)
			return np_fail(ctx, -ENOENT, "no PCI function matches '%s' (" NP_FILTER_KINDS ")", filters[f]);
	}
	return 0;
}

size_t np_device_where(const struct np_machine *m, size_t di, struct np_where *w, int *node)
{
	int idx = -1;
	size_t nirqs = 0;
	*node = np_device_node(m, &m->pci.devs[di], NULL);
	for (int i = 0; *node >= 0 && i < m->topo.nnodes; i++)
		if (m->topo.nodes[i].id == *node)
			idx = i;
	memset(w, 0, sizeof(*w));
	np_irqs_foreach_of_dev(&m->irqs, (int)di, i) {
		struct np_where one;
		if (m->irqs.v[i].dev != (int)di)
			continue;
		nirqs++;
		np_kubelet_where(&m->kube, &m->topo, &m->irqs.v[i], idx, &one);
		w->local += one.local;
		w->remote += one.remote;
		w->isolated += one.isolated;
		w->exclusive += one.exclusive;
		w->per_cpu += one.per_cpu;
	}
	return nirqs;
}
