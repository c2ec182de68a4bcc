/* SPDX-License-Identifier: GPL-2.0-or-later */
/* A network device's channel count. When its busy data queues outnumber
 * the cores the plan lets serve it, some core serves two of them whatever
 * the placement: one queue per core (or per node, on request) is the
 * judgement, for each device on its own, since each one's RSS spreads its
 * flows over all its queues. Offered always; carried by the plan only when
 * asked, since a channel change resets the queues: its IRQs, XPS and RPS
 * are then planned for the queues that stay. Data queues only: RDMA
 * completion vectors (irdma's CEQs), flow director, control and misc
 * vectors are no channels. */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "judge/planner.h"

/* One data queue of a device: its vectors' family without their direction
 * (lib/judge/vector), its number, its interrupts (all its vectors'). */
struct queue_load {
	int dev, queue;
	const char *pair;
	unsigned long long total;
};

static int by_dev_queue(const void *a, const void *b)
{
	const struct queue_load *x = a, *y = b;
	if (x->dev != y->dev)
		return x->dev < y->dev ? -1 : 1;
	if (x->queue != y->queue)
		return x->queue < y->queue ? -1 : 1;
	return strcmp(x->pair, y->pair);
}

/* Whether the device's channel count is judged: a network device the plan
 * places (it has a target) under a policy that judges channels. */
static bool judged(const struct planner *p, int dev)
{
	const struct np_device_policy *pol = &p->opts->devices[dev];
	return pol->selected && pol->channels != NP_CHANNELS_KEEP && p->m->pci.devs[dev].nnet > 0 &&
	       !np_cpuset_empty(&p->target[dev]);
}

/* Physical cores of cpus (SMT siblings once), and the nodes they are on. */
static void count_serving(const struct planner *p, const struct np_cpuset *cpus, bool *seen, int *cores,
			  int *nodes)
{
	const struct np_topology *t = &p->m->topo;
	memset(seen, 0, ((size_t)t->max_cpu + 1) * sizeof(*seen));
	*cores = *nodes = 0;
	np_cpuset_foreach(cpu, cpus) {
		int c = core_of(p, cpu);
		if (c >= 0 && c <= t->max_cpu && !seen[c]) {
			seen[c] = true;
			(*cores)++;
		}
	}
	for (int i = 0; i < t->nnodes; i++)
		*nodes += np_cpuset_intersects(&t->nodes[i].cpus, cpus);
}

/* A device's queues as counted: how many, how many busy, their
 * interrupts. A queue is busy when it is not idle (the planner's floor) and
 * carries a quarter of an even share of the device's data interrupts (an
 * idle queue costs a vector, not a core's time), and the device carries
 * enough to be worth a change. */
static void weigh_queues(const struct planner *p, struct plan_channel *c, const struct queue_load *q, size_t n)
{
	unsigned long long all = 0;
	for (size_t i = 0; i < n; i++)
		all += q[i].total;
	c->queues = (int)n;
	c->busy = 0;
	for (size_t i = 0; all >= p->opts->min_interrupts && all && i < n; i++)
		c->busy += q[i].total * 4 * n >= all && q[i].total >= p->idle;
}

int plan_channels(struct planner *p)
{
	const struct np_machine *m = p->m;
	struct queue_load *q = calloc(m->irqs.n + 1, sizeof(*q));
	bool *seen = calloc((size_t)m->topo.max_cpu + 1, sizeof(*seen));
	size_t n = 0;
	p->chan = calloc(m->pci.ndevs + 1, sizeof(*p->chan));
	if (!q || !seen || !p->chan) {
		free(q);
		free(seen);
		return -ENOMEM;
	}
	for (size_t i = 0; i < m->irqs.n; i++) {
		const struct np_irq *irq = &m->irqs.v[i];
		if (irq->dev >= 0 && judged(p, irq->dev) && p->cls[i].role == NP_ROLE_DATA && p->cls[i].queue >= 0)
			q[n++] = (struct queue_load){ irq->dev, p->cls[i].queue, p->cls[i].pair, irq->total };
	}
	qsort(q, n, sizeof(*q), by_dev_queue);
	/* The vectors of one queue (a virtio input and output, ixgbe's rx and tx) count once. */
	size_t k = 0;
	for (size_t i = 0; i < n; i++) {
		if (k && q[k - 1].dev == q[i].dev && q[k - 1].queue == q[i].queue && !strcmp(q[k - 1].pair, q[i].pair))
			q[k - 1].total += q[i].total;
		else
			q[k++] = q[i];
	}
	for (size_t from = 0, to; from < k; from = to) {
		for (to = from; to < k && q[to].dev == q[from].dev; to++)
			;
		int di = q[from].dev, cores, nodes;
		struct plan_channel *c = &p->chan[di];
		enum np_channels_policy pol = p->opts->devices[di].channels;
		weigh_queues(p, c, q + from, to - from);
		count_serving(p, &p->target[di], seen, &cores, &nodes);
		c->cores = cores;
		c->per_node = pol == NP_CHANNELS_PER_NODE;
		/* One queue per node means something only across nodes. */
		int want = c->per_node ? (nodes > 1 ? nodes : 0) : cores;
		if (want > 0 && c->busy > want) {
			c->want = want;
			c->carried = pol == NP_CHANNELS_PER_CORE || pol == NP_CHANNELS_PER_NODE;
		}
	}
	free(q);
	free(seen);
	return 0;
}

void plan_channels_free(struct planner *p)
{
	free(p->chan);
	p->chan = NULL;
}

bool plan_queue_dropped(const struct planner *p, size_t i)
{
	const struct np_irq *irq = &p->m->irqs.v[i];
	if (irq->dev < 0 || !p->chan || !p->chan[irq->dev].carried)
		return false;
	return p->cls[i].role == NP_ROLE_DATA && p->cls[i].queue >= p->chan[irq->dev].want;
}

int plan_queues_kept(const struct planner *p, size_t di)
{
	return p->chan && p->chan[di].carried ? p->chan[di].want : -1;
}

/* Whose practice one queue per core is, and what each does, the way a user
 * can look it up. */
#define PEERS                                                                                                  \
	"OpenShift's node tuning operator sets each NIC's combined channels to the reserved CPUs' count (a "    \
	"performance profile's net.userLevelNetworking; OpenShift 4.8 docs, \"Reducing NIC queues using the " \
	"Node Tuning Operator\"), perftune.py its Rx channels to its IRQ CPUs' count (scylladb's seastar, "     \
	"scripts/perftune.py, \"reduce number of Rx channels to the number of IRQ CPUs\", Vlad Zolotarov, "    \
	"2022-07-28)"
/* What a channel change does to the rest, said with each. */
#define CUTS "cutting combined cuts its transmit queues too"

int plan_channels_rec(struct planner *p, size_t di, const struct np_netif *nif)
{
	const struct plan_channel *c = p->chan ? &p->chan[di] : NULL;
	if (!c || !c->want)
		return 0;
	struct np_rec r = { .kind = NP_ATTR_CHANNELS, .dev = (int)di, .irq = -1, .queue = -1, .net = nif->name,
			    .rule = NP_RULE_CHANNELS, .advice = !c->carried };
	char *cpus = list_text(&p->target[di]);
	const char *whose = c->carried ? "carried on request: the device's IRQs, XPS and RPS are planned for the "
					 "queues that stay, and set again by queue once the channels are"
				       : "offered, not in the plan: a channel change resets the device's queues "
					 "(--channels per-core, or a profile rule's \"channels\", carries it)";
	int len;
	/* The facts and the judgement first (a group's heading), then why. */
	if (c->per_node)
		len = asprintf(&r.reason, "judgement: %d busy data queues for the %d nodes of its CPUs: one queue per "
			       "node, the layout Tom Herbert measured best (netdev, 2009-11-24); " CUTS "; 4 RX "
			       "queues, one per socket, 361862 tps against 226722 with 16, one per CPU, measured while "
			       "receive buffers were allocated on the device's node, which Linux changed soon after "
			       "(2.6.37); the same mail measured 923422 tps with local allocation; %s",
			       c->busy, c->want, whose);
	else
		len = asprintf(&r.reason, "judgement: %d busy data queues for %d cores (CPUs %s): one queue per core, "
			       "as OpenShift's node tuning operator and scylladb's perftune.py do; for this device alone "
			       "(its RSS spreads flows over all its queues), so that no core serves two of them, and "
			       CUTS "; " PEERS "; %s",
			       c->busy, c->cores, cpus ? cpus : "?", whose);
	free(cpus);
	if (len < 0)
		r.reason = NULL;
	if (asprintf(&r.current, "combined %d", c->queues) < 0)
		r.current = NULL;
	if (asprintf(&r.recommended, "combined %d", c->want) < 0)
		r.recommended = NULL;
	return plan_add_rec(p->m, p->plan, &r);
}
