/* SPDX-License-Identifier: GPL-2.0-or-later */
/* The advisor's working state, shared by its parts: advise.c (the run, its
 * warnings and machine-wide values), advise-irq.c (where each IRQ goes),
 * advise-queues.c (the block and network queue settings that follow the
 * IRQs), advise-notes.c (what it says of the IRQs it leaves) and
 * advise-channels.c (network channel counts). Not part of the library's
 * interface. */
#ifndef NUMAPLACE_PLANNER_H
#define NUMAPLACE_PLANNER_H

#include "judge/plan.h"
#include "judge/vector.h"

/* A CPU spending less of its time than this on interrupts (hard IRQs and
 * the softirqs devices raise, /proc/stat) has nothing to gain from moving
 * them off, however many it serves. */
#define NP_IRQ_TIME_FLOOR 0.01

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
	char *why;          /* why it moves, as the keep pass judged it (NULL: it stays) */
	enum np_rule_id rule; /* the problem it is */
};

/* A device's data queues at one core or CPU: what they bring there today
 * and as the plan keeps and places them. One record a place (the planner
 * reads them together), not one array a figure. */
struct place_load {
	unsigned long long today, top; /* today: the work delivered there, its busiest queue's */
	unsigned long long plan;       /* the plan's work there so far */
	int ntoday, nplan;             /* queues there today, and in the plan so far */
};

/* Where a device's data queues bring their work (interrupts over what the
 * counts cover), by core and by CPU (an SMT thread). Allocated for devices
 * with queues to place. */
struct dev_load {
	struct place_load *core, *cpu; /* by core index, by CPU */
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
	/* A slot bringing less than this is idle: never moved for locality or
	 * balance (a tenth of the volume threshold: 10/s; none for a profile). */
	unsigned long long idle;
	int *load;          /* queue vectors per CPU, from this plan */
	int *core_of;       /* CPU -> index of its physical core */
	int *core_load;     /* queue vectors per core, from this plan */
	unsigned long long *core_work; /* every IRQ's work per core, where it runs after the plan so far */
	unsigned long long *today_work, *top_work; /* per core: every IRQ's work today, its busiest IRQ's */
	int *top_irq;                  /* per core: that busiest IRQ (index into m->irqs.v) */
	unsigned long long *share_work; /* per device: a core's share of all the work its target takes today */
	int *vectors;       /* every IRQ's vector per CPU (where it runs), for the x86 budget */
	int *stamp;         /* scratch per core */
	int *node_index;    /* per CPU: its node's index in topo.nodes, -1 when none */
	int *node_dist;     /* node distances by index (nnodes x nnodes), -1 when unknown */
	struct np_cpuset *target;  /* per device: where its IRQs go (empty: leave them) */
	char **target_why;         /* per device: the reason's second half */
	int *anchor;               /* per device: the node distances are measured from */
	int *nqueues, *ncores, *nthreads, *start; /* per device: queue slots, cores and CPUs of its target, cursor */
	int *nbusy;                /* per device: its data queue slots that are not idle */
	unsigned long long *busy;  /* per device: their work */
	struct dev_load *dl;       /* per device (allocated on use) */
	struct place_load *loads;  /* what dl's point into */
	unsigned long long *off_target;  /* per device: interrupts its movable IRQs handled off its target's nodes */
	unsigned long long *data_volume; /* per device: interrupts of its data queue vectors */
	struct np_cpuset *planned; /* per IRQ (index into m->irqs.v): the CPUs planned for it */
	struct np_vector_class *cls; /* per IRQ: what its name says (family, queue, direction, role) */
	struct plan_channel *chan;   /* per device: its channel judgement */
	bool *has_plan;
	bool *queues_move;         /* per device: the plan moves a queue IRQ of it (what XPS follows) */
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
	int only = irq->has_affinity ? np_cpuset_only(&irq->affinity) : -1;
	if (only >= 0)
		return only;
	if (irq->has_effective && !np_cpuset_empty(&irq->effective) &&
	    (!irq->has_affinity || np_cpuset_subset(&irq->effective, &irq->affinity)))
		return np_cpuset_next(&irq->effective, 0);
	return -1;
}

/* An IRQ someone pinned onto CPUs only irqbalance's configuration bans: an
 * admin may have dedicated them to it, so it is left as it is (a note says
 * so) unless another source forbids them too. */
static inline bool plan_pinned_on_banned(const struct planner *p, const struct np_irq *irq)
{
	return irq->has_affinity && !np_cpuset_empty(&irq->affinity) &&
	       np_cpuset_subset(&irq->affinity, &p->opts->forbidden.banned_only);
}

/* An IRQ the planner places: its device has a target, the kernel does not
 * own it, and no one pinned it on a banned CPU. */
static inline bool plan_irq_movable(const struct planner *p, const struct np_irq *irq)
{
	return irq->dev >= 0 && !np_cpuset_empty(&p->target[irq->dev]) && irq->managed == NP_MANAGED_NO &&
	       !plan_pinned_on_banned(p, irq);
}

/* advise-irq.c: the IRQs' targets, their slots, and the passes that keep,
 * place and pin them. */
int plan_choose_targets(struct planner *p);
int plan_build_slots(struct planner *p);
int plan_size_devices(struct planner *p);
void plan_free_loads(struct planner *p);
int plan_weigh_devices(struct planner *p);
int plan_keep_slots(struct planner *p);
int plan_place_slots(struct planner *p);
int plan_pin_kept_queues(struct planner *p);

/* advise-notes.c: the notes and warnings about the IRQs the plan leaves
 * (managed, pinned on banned CPUs, not following their mask yet). */
int plan_irq_notes(struct planner *p);

/* advise-queues.c: a device's rq_affinity, and its interfaces' XPS, RPS and
 * channels. */
int plan_block_recs(struct planner *p, size_t di);
/* Marks p->queues_move, once every IRQ is placed, before plan_net_recs. */
int plan_mark_queue_moves(struct planner *p);
int plan_net_recs(struct planner *p, size_t di);
int plan_xps_off_note(struct planner *p);

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
