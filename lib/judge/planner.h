/* SPDX-License-Identifier: GPL-2.0-or-later */
/* The advisor's working state, shared by its parts: advise.c (the run, its
 * warnings and machine-wide values), advise-irq.c (where each IRQ goes) and
 * advise-queues.c (the block and network queue settings that follow the
 * IRQs) and advise-channels.c (network channel counts). Not part of the
 * library's interface. */
#ifndef NUMAPLACE_PLANNER_H
#define NUMAPLACE_PLANNER_H

#include "judge/plan.h"
#include "judge/vector.h"

/* Vectors an x86 CPU can hold with room to spare (about 200 of its 256). */
#define NP_VECTORS_PER_CPU 200

/* One queue: the vectors of a device of one family but for the direction
 * and of the same queue number (virtio input.N and output.N, rx-N and tx-N;
 * one TxRx-N) move together; every other vector (admin, config, misc,
 * control, flow director, a device's only IRQ) is a slot of its own. */
struct slot {
	int dev;
	int queue;          /* -1: not a data queue or RDMA completion vector */
	const char *pair;   /* its vectors' family without direction (lib/judge/vector) */
	size_t first, n;    /* its vectors: refs[first .. first + n) */
	unsigned long long total;
	bool done;
};

/* A network device's channel judgement (advise-channels.c). */
struct plan_channel {
	int queues, busy;   /* its data queues, and those that carry work */
	int cores;          /* the physical cores of its target */
	int want;           /* the count judged right; 0: none to offer */
	bool per_node;      /* one per node (--channels per-node), not one per core */
	bool carried;       /* the plan carries it: its queues from want on are gone */
};

/* Working state of one advise run. */
struct planner {
	const struct np_machine *m;
	const struct np_advise_opts *opts;
	struct np_plan *plan;
	struct np_cpuset usable;
	bool flat;          /* one node with CPUs and one L3: no locality to gain */
	int *load;          /* queue vectors per CPU, from this plan */
	int *core_of;       /* CPU -> index of its physical core */
	int *core_load;     /* queue vectors per core, from this plan */
	int *vectors;       /* every IRQ's vector per CPU (where it runs), for the x86 budget */
	int *stamp;         /* scratch per core */
	int *node_index;    /* per CPU: its node's index in topo.nodes, -1 when none */
	int *node_dist;     /* node distances by index (nnodes x nnodes), -1 when unknown */
	struct np_cpuset *target;  /* per device: where its IRQs go (empty: leave them) */
	char **target_why;         /* per device: the reason's second half */
	int *anchor;               /* per device: the node distances are measured from */
	int *nqueues, *ncores, *cap, *start; /* per device: queue slots, cores of its target, per-core cap, cursor */
	int **dcount;              /* per device: its queue slots per core (allocated on use) */
	int **dcpu;                /* per device: its queue slots per CPU (allocated on use) */
	int **dtoday;              /* per device: its queue slots per core where they are delivered today */
	unsigned long long *off_target;  /* per device: interrupts its movable IRQs handled off its target's nodes */
	unsigned long long *data_volume; /* per device: interrupts of its data queue vectors */
	struct np_cpuset *planned; /* per IRQ (index into m->irqs.v): the CPUs planned for it */
	struct np_vector_class *cls; /* per IRQ: what its name says (family, queue, direction, role) */
	struct plan_channel *chan;   /* per device: its channel judgement */
	bool *has_plan;
	size_t *refs;
	struct slot *slots;
	size_t nslots;
	bool budget_warned;
};

static inline char *list_text(const struct np_cpuset *set)
{
	return np_cpuset_format_list(set);
}

static inline int core_of(const struct planner *p, int cpu)
{
	return cpu >= 0 && cpu <= p->m->topo.max_cpu && p->core_of[cpu] >= 0 ? p->core_of[cpu] : cpu;
}

/* The CPU an IRQ runs on today, for counting: its only allowed CPU, else the
 * one the kernel chose within its affinity; -1 when that says nothing. */
static inline int home_cpu(const struct np_irq *irq)
{
	if (irq->has_affinity && np_cpuset_count(&irq->affinity) == 1)
		return np_cpuset_next(&irq->affinity, 0);
	if (irq->has_effective && !np_cpuset_empty(&irq->effective) &&
	    (!irq->has_affinity || np_cpuset_subset(&irq->effective, &irq->affinity)))
		return np_cpuset_next(&irq->effective, 0);
	return -1;
}

/* advise-irq.c: the IRQs' targets, their slots, and the passes that keep,
 * place and pin them. */
int plan_choose_targets(struct planner *p);
int plan_build_slots(struct planner *p);
int plan_size_devices(struct planner *p);
int plan_weigh_devices(struct planner *p);
int plan_keep_slots(struct planner *p);
int plan_place_slots(struct planner *p);
int plan_pin_kept_queues(struct planner *p);

/* advise-queues.c: a device's rq_affinity, and its interfaces' XPS, RPS and
 * channels. */
int plan_block_recs(struct planner *p, size_t di);
int plan_net_recs(struct planner *p, size_t di);

/* advise-channels.c: each network device's channel count, judged once the
 * targets are chosen (before the slots: a carried change drops queues). */
int plan_channels(struct planner *p);
void plan_channels_free(struct planner *p);
/* Whether IRQ i serves a queue a carried channel change removes. */
bool plan_queue_dropped(const struct planner *p, size_t i);
/* The queues device di keeps after a carried channel change; -1: as now. */
int plan_queues_kept(const struct planner *p, size_t di);
/* The channel recommendation of device di's interface nif, when judged. */
int plan_channels_rec(struct planner *p, size_t di, const struct np_netif *nif);

#endif
