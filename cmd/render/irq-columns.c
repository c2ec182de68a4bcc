/* SPDX-License-Identifier: GPL-2.0-or-later */
/* The IRQ columns: irqs prints them, report's JSON has them. */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "read/machine.h"
#include "render/render.h"

#define IRQ(row) ((const struct np_irq *)(row))
#define MACHINE(data) (((const struct np_irq_view *)(data))->m)

static const struct np_pci_dev *irq_dev(const struct np_machine *m, const struct np_irq *irq)
{
	return irq->dev >= 0 ? &m->pci.devs[irq->dev] : NULL;
}

static int irq_node(const struct np_machine *m, const struct np_irq *irq)
{
	const struct np_pci_dev *d = irq_dev(m, irq);
	return d ? np_device_node(m, d, NULL) : -1;
}

static int get_irq(const void *data, const void *row, struct np_value *v)
{
	(void)data;
	return np_val_int(v, IRQ(row)->irq);
}

static int get_name(const void *data, const void *row, struct np_value *v)
{
	(void)data;
	return np_val_str(v, IRQ(row)->name);
}

static int get_chip(const void *data, const void *row, struct np_value *v)
{
	(void)data;
	return np_val_str(v, IRQ(row)->chip);
}

static int get_device(const void *data, const void *row, struct np_value *v)
{
	const struct np_pci_dev *d = irq_dev(MACHINE(data), IRQ(row));
	return np_val_str(v, d ? d->addr : NULL);
}

static int get_queue(const void *data, const void *row, struct np_value *v)
{
	(void)data;
	return IRQ(row)->queue >= 0 ? np_val_int(v, IRQ(row)->queue) : np_val_null(v);
}

static int get_affinity(const void *data, const void *row, struct np_value *v)
{
	return IRQ(row)->has_affinity ? np_val_cpus_text(v, &MACHINE(data)->topo, &IRQ(row)->affinity, false) : np_val_null(v);
}

static int get_effective(const void *data, const void *row, struct np_value *v)
{
	return IRQ(row)->has_effective ? np_val_cpus_text(v, &MACHINE(data)->topo, &IRQ(row)->effective, false) : np_val_null(v);
}

/* One entry per column that asks (affinity_nodes, effective_nodes). */
struct np_nodes_memo {
	struct {
		bool valid;
		struct np_cpuset cpus, nodes;
	} v[2];
	/* per_node's counts, each row's in turn: no allocation a row. */
	struct np_count *counts;
	size_t ncounts;
};

struct np_nodes_memo *np_nodes_memo_new(void)
{
	return calloc(1, sizeof(struct np_nodes_memo));
}

void np_nodes_memo_free(struct np_nodes_memo *memo)
{
	for (size_t i = 0; memo && i < 2; i++) {
		np_cpuset_free(&memo->v[i].cpus);
		np_cpuset_free(&memo->v[i].nodes);
	}
	if (memo)
		free(memo->counts);
	free(memo);
}

static int nodes_value(const struct np_irq_view *view, int which, const struct np_cpuset *cpus, bool known,
		       struct np_value *v)
{
	if (!known)
		return np_val_null(v);
	if (view->memo && view->memo->v[which].valid && np_cpuset_equal(&view->memo->v[which].cpus, cpus))
		return np_val_cpus(v, &view->memo->v[which].nodes, false);
	struct np_cpuset nodes = NP_CPUSET_INIT;
	int rc = np_nodes_of(&view->m->topo, cpus, &nodes);
	if (!rc)
		rc = np_val_cpus(v, &nodes, false);
	if (!rc && view->memo) {
		/* Kept only when whole: a failed copy leaves the entry unused. */
		view->memo->v[which].valid = false;
		if (!np_cpuset_copy(&view->memo->v[which].cpus, cpus) &&
		    !np_cpuset_copy(&view->memo->v[which].nodes, &nodes))
			view->memo->v[which].valid = true;
	}
	np_cpuset_free(&nodes);
	return rc;
}

static int get_affinity_nodes(const void *data, const void *row, struct np_value *v)
{
	return nodes_value(data, 0, &IRQ(row)->affinity, IRQ(row)->has_affinity, v);
}

static int get_effective_nodes(const void *data, const void *row, struct np_value *v)
{
	return nodes_value(data, 1, &IRQ(row)->effective, IRQ(row)->has_effective, v);
}

static int get_ran_on(const void *data, const void *row, struct np_value *v)
{
	return np_val_cpus_text(v, &MACHINE(data)->topo, &IRQ(row)->ran_on, false);
}

static int get_managed(const void *data, const void *row, struct np_value *v)
{
	(void)data;
	if (IRQ(row)->managed_unknown)
		return np_val_null(v);
	return np_val_bool(v, IRQ(row)->managed != NP_MANAGED_NO);
}

static int get_managed_source(const void *data, const void *row, struct np_value *v)
{
	(void)data;
	enum np_managed m = IRQ(row)->managed;
	return np_val_str(v, m == NP_MANAGED_YES ? "debugfs" : m == NP_MANAGED_INFERRED ? "driver" : NULL);
}

static int get_node(const void *data, const void *row, struct np_value *v)
{
	int node = irq_node(MACHINE(data), IRQ(row));
	return node >= 0 ? np_val_int(v, node) : np_val_null(v);
}

static int get_total(const void *data, const void *row, struct np_value *v)
{
	(void)data;
	return np_val_int(v, (long long)IRQ(row)->total);
}

/* {"0": 120, "1": 3} in JSON; "0:120 1:3" (the nodes that took any) as text. */
static int get_per_node(const void *data, const void *row, struct np_value *v)
{
	const struct np_machine *m = MACHINE(data);
	struct np_nodes_memo *memo = ((const struct np_irq_view *)data)->memo;
	const struct np_irq *irq = IRQ(row);
	size_t n = (size_t)m->topo.nnodes;
	struct np_count *counts = memo && memo->ncounts >= n ? memo->counts : malloc((n ? n : 1) * sizeof(*counts));
	if (!counts)
		return -ENOMEM;
	for (size_t i = 0; i < n; i++)
		counts[i] = (struct np_count){ m->topo.nodes[i].id, irq->per_node[i] };
	if (memo && !memo->counts) {
		memo->counts = counts; /* kept for the rows to come */
		memo->ncounts = n;
	}
	return memo && memo->counts == counts ? np_val_counts_ref(v, counts, n) : np_val_counts(v, counts, n);
}

/* Null when the device's node is unknown, the IRQ never fired, or it is a
 * managed per-CPU queue (the per_cpu column): no share. */
static int get_remote_share(const void *data, const void *row, struct np_value *v)
{
	const struct np_machine *m = MACHINE(data);
	double share = np_irq_per_cpu(IRQ(row)) ? -1 : np_irq_remote_share(m, IRQ(row), irq_node(m, IRQ(row)));
	return share >= 0 ? np_val_share(v, share) : np_val_null(v);
}

static int get_per_cpu(const void *data, const void *row, struct np_value *v)
{
	(void)data;
	return np_val_bool(v, np_irq_per_cpu(IRQ(row)));
}

/* Null unless sampled over --interval. */
static int get_per_sec(const void *data, const void *row, struct np_value *v)
{
	double seconds = ((const struct np_irq_view *)data)->seconds;
	if (!(seconds > 0))
		return np_val_null(v);
	return np_val_int(v, (long long)((double)IRQ(row)->total / seconds + 0.5));
}

const struct np_column np_irq_columns[] = {
	NP_COLUMN("irq", "IRQ", 4, SCOLS_FL_RIGHT | NP_FL_KEY, "the IRQ number", get_irq),
	NP_COLUMN("name", "NAME", 1, NP_FL_KEY, "its action in /proc/interrupts", get_name),
	NP_COLUMN("chip", "CHIP", 0.1, SCOLS_FL_TRUNC | NP_FL_GIVE(2), "its interrupt controller and hardware IRQ", get_chip),
	NP_COLUMN("device", "DEVICE", 12, NP_FL_KEY, "the PCI address of its device", get_device),
	NP_COLUMN("queue", "Q", 1, SCOLS_FL_RIGHT | NP_FL_GIVE(4), "the device queue it serves", get_queue),
	NP_COLUMN("affinity", "AFFINITY", 1, NP_FL_GIVE(5), "the CPUs it may run on (smp_affinity_list)", get_affinity),
	NP_COLUMN("effective", "EFFECTIVE", 1, NP_FL_GIVE(6), "the CPUs it is delivered to (effective_affinity_list)", get_effective),
	NP_COLUMN("affinity_nodes", "AFF NODES", 4, NP_FL_GIVE(1), "the nodes of its affinity", get_affinity_nodes),
	NP_COLUMN("effective_nodes", "EFF NODES", 4, NP_FL_GIVE(1), "the nodes of its effective CPUs", get_effective_nodes),
	NP_COLUMN("ran_on", "RAN ON", 1, NP_FL_GIVE(6), "the CPUs that handled it", get_ran_on),
	NP_COLUMN_TEXT("managed", "MANAGED", 3, NP_FL_GIVE(2),
		       "whether the kernel manages its affinity (unknown without IRQ debugfs nor an inference)",
		       get_managed, "unknown", NULL),
	NP_COLUMN("managed_source", "MANAGED BY", 7, NP_FL_GIVE(1),
		  "how that is known: debugfs, or the driver (its name or its blk-mq queue map)", get_managed_source),
	NP_COLUMN("node", "DEV NODE", 4, SCOLS_FL_RIGHT | NP_FL_GIVE(3), "its device's node", get_node),
	NP_COLUMN("total", "TOTAL", 6, SCOLS_FL_RIGHT | NP_FL_DESCENDING | NP_FL_GIVE(6), "interrupts handled (during --interval)", get_total),
	NP_COLUMN("per_sec", "PER SEC", 6, SCOLS_FL_RIGHT | NP_FL_DESCENDING | NP_FL_GIVE(7), "interrupts a second (with --interval)", get_per_sec),
	NP_COLUMN("per_node", "PER NODE", 0.1, SCOLS_FL_WRAP | NP_FL_DESCENDING | NP_FL_GIVE(3), "interrupts handled on each node", get_per_node),
	NP_COLUMN("remote_share", "REMOTE", 4, SCOLS_FL_RIGHT | NP_FL_DESCENDING | NP_FL_GIVE(7), "the share handled off its device's node", get_remote_share),
	NP_COLUMN("per_cpu", "PER CPU", 3, NP_FL_GIVE(2),
		  "a managed per-CPU queue: it completes where the I/O was submitted, by design, never remote", get_per_cpu),
	NP_COLUMN_END,
};

cJSON *np_irqbalance_json(bool running, bool known, const struct np_irqb_banned *banned)
{
	cJSON *o = cJSON_CreateObject();
	/* Unknown without process information (a snapshot): null, as advise says "state unknown". */
	if (known)
		cJSON_AddBoolToObject(o, "running", running);
	else
		cJSON_AddNullToObject(o, "running");
	if (banned) {
		char *cpus = banned->source ? np_cpuset_format_list(&banned->cpus) : NULL;
		if (cpus)
			cJSON_AddStringToObject(o, "banned_cpus", cpus);
		else
			cJSON_AddNullToObject(o, "banned_cpus");
		if (banned->source)
			cJSON_AddStringToObject(o, "banned_from", banned->source);
		free(cpus);
	}
	return o;
}
