/* SPDX-License-Identifier: GPL-2.0-or-later */
/* Interrupts: /proc/interrupts counts (one streaming pass), /proc/irq/N
 * affinities, managed state, and which PCI function and queue each belongs to. */
#ifndef NUMAPLACE_IRQ_H
#define NUMAPLACE_IRQ_H

#include <stdbool.h>
#include <stddef.h>

#include "base/context.h"
#include "base/cpuset.h"
#include "read/pci.h"
#include "read/topology.h"

enum np_managed {
	NP_MANAGED_NO,
	NP_MANAGED_YES,      /* debugfs says IRQD_AFFINITY_MANAGED */
	NP_MANAGED_INFERRED, /* no debugfs; the driver is known to use managed vectors */
};

/* How an IRQ was tied to its device, in the order of trust of KERNEL-NOTES. */
enum np_irq_tie {
	NP_TIE_NONE,
	NP_TIE_MSI_IRQS,   /* /sys/bus/pci/devices/ADDR/msi_irqs/N */
	NP_TIE_CHIP,       /* PCI address in the chip column */
	NP_TIE_NAME_ADDR,  /* PCI address inside the action name */
	NP_TIE_NAME_ALIAS, /* interface or controller name inside the action name */
	NP_TIE_LEGACY,     /* /sys/bus/pci/devices/ADDR/irq */
};

struct np_irq {
	int irq;
	char *chip;        /* "IR-PCI-MSIX-0000:18:00.0", "IO-APIC"; NULL when absent */
	char *hwirq;       /* "0-edge" */
	char *name;        /* action names as printed, "megasas0-msix0"; "" when none */
	unsigned long long total;
	unsigned long long *per_node; /* topology->nnodes entries, in topology node order */
	unsigned long long unknown_node; /* counts on CPUs of no known node */
	unsigned long long quiet; /* counts on isolated or nohz_full CPUs */
	struct np_cpuset ran_on;  /* CPUs with a non-zero count */
	struct np_cpuset affinity, effective;
	bool has_affinity, has_effective;
	enum np_managed managed;
	/* Neither debugfs (not built, not mounted, or refused under lockdown)
	 * nor an inference tells: managed reads NP_MANAGED_NO and is treated so
	 * (a write the kernel refuses is caught by the read-back), but is shown
	 * as unknown. */
	bool managed_unknown;
	/* x86 without interrupt remapping (the chip reads "PCI-MSI...", not
	 * "IR-PCI-MSI..."): a new affinity cannot be programmed from process
	 * context, so the kernel keeps it pending (irq_set_affinity_locked())
	 * and applies it when the interrupt next fires; smp_affinity shows the
	 * pending mask meanwhile, effective_affinity the old CPU. */
	bool move_deferred;
	bool move_pending;  /* debugfs says a move waits (IRQD_SETAFFINITY_PENDING) */
	/* Filled by np_irqs_tie. */
	int dev;           /* index into np_pci.devs, -1 when unowned */
	enum np_irq_tie tie;
	int queue;         /* queue index the name tells, -1 when none (admin, config, misc) */
};

/* A managed queue vector (NVMe's, virtio-blk's, one CPU or a few per
 * vector): blk-mq maps each queue to the CPUs of its mask, so it completes
 * on or beside the CPU that submitted the I/O, by design. Its interrupts are
 * neither local nor remote: a class of their own ("per CPU by design"). */
static inline bool np_irq_per_cpu(const struct np_irq *irq)
{
	return irq->managed != NP_MANAGED_NO && irq->queue >= 0;
}

struct np_irqs {
	struct np_irq *v;  /* ascending IRQ number */
	size_t n;
	char **warnings;   /* rows skipped, with file and line */
	size_t nwarnings;
	bool debugfs;      /* /sys/kernel/debug/irq was readable: managed state is known */
	bool absent;       /* no /proc/interrupts (a copy of /sys alone): interrupts unknown */
	struct np_cpuset columns; /* the CPUs the file's header names (CPUn columns) */
	/* Where a newly requested IRQ starts (attr default_irq_affinity);
	 * unknown when the file is absent or unreadable. */
	struct np_cpuset default_affinity;
	bool has_default_affinity;
	/* By np_irqs_tie: each device's IRQs, as indexes into v in ascending
	 * order, of_dev[dev_start[d]] up to of_dev[dev_start[d + 1]] (d below
	 * ndevs); NULL before the IRQs are tied (or out of memory). */
	size_t *dev_start, *of_dev, ndevs;
};

/* The IRQs a loop over device d's looks at: its own, by np_irqs_tie's
 * index, else (not tied yet) every IRQ; the loop still checks irq->dev.
 *	np_irqs_foreach_of_dev(irqs, d, i) { const struct np_irq *irq = &irqs->v[i]; ... } */
static inline size_t np_irqs_of_dev_first(const struct np_irqs *irqs, int d)
{
	return irqs->of_dev && d >= 0 && (size_t)d < irqs->ndevs ? irqs->dev_start[d] : 0;
}

static inline size_t np_irqs_of_dev_end(const struct np_irqs *irqs, int d)
{
	if (!irqs->of_dev)
		return irqs->n;
	return d >= 0 && (size_t)d < irqs->ndevs ? irqs->dev_start[d + 1] : 0;
}

static inline size_t np_irqs_of_dev_at(const struct np_irqs *irqs, size_t k)
{
	return irqs->of_dev ? irqs->of_dev[k] : k;
}

#define np_irqs_foreach_of_dev(irqs, d, i)                                                               \
	for (size_t i##_k = np_irqs_of_dev_first((irqs), (d)), i##_end = np_irqs_of_dev_end((irqs), (d)), i; \
	     i##_k < i##_end && ((i = np_irqs_of_dev_at((irqs), i##_k)), 1); i##_k++)

/* Parses /proc/interrupts (columns mapped by the header's CPUn names, so
 * offline CPUs are handled), then reads /proc/irq/N/{smp_affinity_list,
 * effective_affinity_list}, the managed state and the default affinity. Malformed rows are skipped
 * with a warning; an unreadable or headerless file is an error. */
int np_irqs_read(struct np_ctx *ctx, const struct np_topology *topo, struct np_irqs *out);
/* Counts only (for --interval sampling): same parse, no /proc/irq reads. */
int np_irqs_read_counts(struct np_ctx *ctx, const struct np_topology *topo, struct np_irqs *out);
/* The same pass also counts each row by split_topo (the same CPUs grouped
 * into other nodes, as lib/read/kubelet's split) into split: counts only (no chip,
 * hwirq or name), rows as in out. Reading /proc/interrupts once instead of
 * twice: it is 46 MB on 1024 CPUs. split_topo NULL: np_irqs_read_counts. On
 * failure both are freed. */
int np_irqs_read_counts_split(struct np_ctx *ctx, const struct np_topology *topo, struct np_irqs *out,
			      const struct np_topology *split_topo, struct np_irqs *split);
/* np_irqs_read whose pass over /proc/interrupts counts by split_topo too. */
int np_irqs_read_split(struct np_ctx *ctx, const struct np_topology *topo, struct np_irqs *out,
		       const struct np_topology *split_topo, struct np_irqs *split);
/* The same parse of a bare copy of /proc/interrupts at path (as pasted in a
 * bug report), read as a file given by the user, not under the root. */
int np_irqs_read_counts_file(struct np_ctx *ctx, const struct np_topology *topo, const char *path,
			     struct np_irqs *out);
/* The same parse of len bytes of text (name: for messages). */
int np_irqs_parse_counts(struct np_ctx *ctx, const struct np_topology *topo, const char *name,
			 const char *text, size_t len, struct np_irqs *out);
/* Replaces each IRQ's counts in before by what it handled until after (a
 * later np_irqs_read_counts): an IRQ freed or reused in between gets 0.
 * ran_on becomes the CPUs that ever ran it on the nodes that ran it since. */
int np_irqs_delta(struct np_irqs *before, struct np_irqs *after, const struct np_topology *topo);
/* Ties every IRQ to a PCI function and queue, by every method in order of
 * trust; without debugfs, marks as NP_MANAGED_INFERRED the queue vectors of
 * drivers known to use managed affinity (nvme, virtio_blk, ...) and those
 * whose affinities match their block device's blk-mq hardware queues one to
 * one; the others stay managed_unknown. */
void np_irqs_tie(struct np_irqs *irqs, const struct np_pci *pci);
void np_irqs_free(struct np_irqs *irqs);
struct np_irq *np_irqs_find(struct np_irqs *irqs, int irq);
/* Queue index told by an action name ("eth4-TxRx-3" -> 3, "nvme0q3" -> 3,
 * "nvme0q0" -> -1: the admin queue), -1 when none. */
int np_irq_queue_from_name(const char *name);

#endif
