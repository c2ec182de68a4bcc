/* SPDX-License-Identifier: GPL-2.0-or-later */
/* Where each IRQ goes: the device's target by its policy, its vectors
 * grouped into queue slots, what is kept (it satisfies the policy and is
 * worth no move), and the rest placed per device over distinct cores. */
#include <errno.h>
#include <limits.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "judge/planner.h"
#include "base/count.h"

/* A node's index in topo.nodes (the planner's distance table is by index),
 * -1 when there is none. */
static int node_index_of(const struct planner *p, int id)
{
	for (int i = 0; i < p->m->topo.nnodes; i++)
		if (p->m->topo.nodes[i].id == id)
			return i;
	return -1;
}

/* The distance between two nodes by index, as np_topology_distance gives it
 * by id: -1 when either is unknown. */
static int index_distance(const struct planner *p, int from, int to)
{
	return from >= 0 && to >= 0 ? p->node_dist[from * p->m->topo.nnodes + to] : -1;
}

/* How far a CPU is from node from_node (at index from): 10 when from_node is
 * unknown, 255 when the distance is. */
static int distance(const struct planner *p, int from_node, int from, int cpu)
{
	int to = cpu >= 0 && cpu <= p->m->topo.max_cpu ? p->node_index[cpu] : -1;
	int d = from_node >= 0 ? index_distance(p, from, to) : 10;
	return d < 0 ? 255 : d;
}

/* Where the application's devices go when its own CPUs may not take IRQs:
 * the housekeeping CPUs nearest to them, same L3 first, then node, then
 * distance. */
static int housekeeping_near_app(struct planner *p, struct np_cpuset *t, char **why)
{
	const struct np_machine *m = p->m;
	const struct np_cpuset *app = &p->opts->app_cpus;
	char *apps = list_text(app);
	int rc = np_l3_cover(&m->l3, app, t);
	const char *level = "sharing their L3 cache";
	np_cpuset_and(t, &p->usable);
	if (rc == 0 && np_cpuset_empty(t)) {
		struct np_cpuset nodes = NP_CPUSET_INIT;
		level = "of their node";
		rc = np_nodes_of(&m->topo, app, &nodes);
		np_cpuset_foreach(n, &nodes) {
			const struct np_node *node = np_topology_node(&m->topo, n);
			if (rc == 0 && node)
				rc = np_cpuset_or(t, &node->cpus);
		}
		np_cpuset_and(t, &p->usable);
		if (rc == 0 && np_cpuset_empty(t) && !np_cpuset_empty(&nodes)) {
			level = "nearest to their node by distance";
			rc = np_nearest_cpus(&m->topo, np_cpuset_next(&nodes, 0), &p->usable, t);
		}
		np_cpuset_free(&nodes);
	}
	if (rc == 0 && asprintf(why, "the application's CPUs (%s) are isolated or excluded: the housekeeping CPUs %s",
				apps ? apps : "?", level) < 0)
		rc = -ENOMEM;
	free(apps);
	return rc;
}

/* Target CPUs for each selected device's IRQs, by its policy. */
int plan_choose_targets(struct planner *p)
{
	const struct np_machine *m = p->m;
	int rc = 0;
	for (size_t di = 0; di < m->pci.ndevs && rc == 0; di++) {
		const struct np_device_policy *pol = &p->opts->devices[di];
		const struct np_pci_dev *d = &m->pci.devs[di];
		if (!pol->selected || pol->irqs == NP_IRQS_KEEP)
			continue;
		bool inferred;
		int node = np_device_node(m, d, &inferred);
		char *why = NULL;
		struct np_cpuset *t = &p->target[di];
		p->anchor[di] = node;
		switch (pol->irqs) {
		case NP_IRQS_LOCAL:
			if (node < 0) {
				rc = plan_warn(p->plan, "%s (%s): NUMA node unknown (numa_node -1 and local CPUs span nodes): "
					  "no locality recommendation for it", d->addr, plan_dev_label(d));
				continue;
			}
			if ((rc = np_cpuset_copy(t, &np_topology_node(&m->topo, node)->cpus)))
				break;
			np_cpuset_and(t, &p->usable);
			if (np_cpuset_empty(t)) {
				rc = np_nearest_cpus(&m->topo, node, &p->usable, t);
				if (asprintf(&why, "node %d has no usable CPUs: nearest by distance", node) < 0)
					why = NULL;
			} else if (p->flat) {
				why = strdup("one node and one L3 cache: every usable CPU is as near");
			} else if (asprintf(&why, "node %d, the device's node%s", node,
					    inferred ? " (inferred from its local CPUs)" : "") < 0) {
				why = NULL;
			}
			break;
		case NP_IRQS_APP:
			p->anchor[di] = np_topology_node_of_cpu(&m->topo, np_cpuset_next(&p->opts->app_cpus, 0));
			rc = np_cpuset_copy(t, &p->opts->app_cpus);
			np_cpuset_and(t, &p->usable);
			if (rc == 0 && np_cpuset_empty(t))
				rc = housekeeping_near_app(p, t, &why);
			else
				why = strdup(d->nblock ? "the application's CPUs: completions run where the work is (Jeff Moyer, "
						"linux-scsi, 2012-11-12, Dell PowerEdge R715, megaraid_sas on node 3: "
						"its IRQ pinned to the node running the benchmark gained 9% with the "
						"benchmark on node 1, 8% on node 2)"
					      : "the application's CPUs: completions run where the work is");
			break;
		case NP_IRQS_SPREAD:
			rc = np_cpuset_copy(t, &p->usable);
			why = strdup("all usable CPUs, nearest nodes first");
			break;
		case NP_IRQS_CPUS:
			rc = np_cpuset_copy(t, &pol->irq_cpus);
			np_cpuset_and(t, &p->usable);
			if (!rc && !np_cpuset_subset(&pol->irq_cpus, &p->usable))
				rc = plan_warn(p->plan, "%s (%s): some requested CPUs are offline, isolated or excluded: left out",
					  d->addr, plan_dev_label(d));
			why = strdup("the CPUs the profile names");
			break;
		case NP_IRQS_KEEP:
			break;
		}
		if (rc == 0 && np_cpuset_empty(t))
			rc = plan_warn(p->plan, "%s (%s): no usable CPU for its IRQs under this policy: left as they are",
				  d->addr, plan_dev_label(d));
		p->target_why[di] = why;
		if (rc == 0 && !why && !np_cpuset_empty(t))
			rc = -ENOMEM;
	}
	return rc;
}

/* The queue an IRQ's vector counts as for placing and balance, or -1. */
static int slot_queue(const struct planner *p, size_t i)
{
	return np_vector_balanced(&p->cls[i]) ? p->cls[i].queue : -1;
}

static int by_dev_queue_irq(const void *a, const void *b, void *arg)
{
	const struct planner *p = arg;
	size_t i = *(const size_t *)a, j = *(const size_t *)b;
	const struct np_irq *x = &p->m->irqs.v[i], *y = &p->m->irqs.v[j];
	if (x->dev != y->dev)
		return x->dev - y->dev;
	/* Queue vectors first (by queue, then family), then the rest, each in IRQ order. */
	int qx = slot_queue(p, i) < 0 ? 1 << 30 : slot_queue(p, i), qy = slot_queue(p, j) < 0 ? 1 << 30 : slot_queue(p, j);
	if (qx != qy)
		return qx < qy ? -1 : 1;
	int c = qx < 1 << 30 ? strcmp(p->cls[i].pair, p->cls[j].pair) : 0;
	return c ? c : x->irq - y->irq;
}

/* Groups the movable vectors of every device that has a target into slots. */
int plan_build_slots(struct planner *p)
{
	const struct np_machine *m = p->m;
	size_t n = 0;
	p->refs = calloc(m->irqs.n + 1, sizeof(*p->refs));
	p->slots = calloc(m->irqs.n + 1, sizeof(*p->slots));
	if (!p->refs || !p->slots)
		return -ENOMEM;
	for (size_t i = 0; i < m->irqs.n; i++) {
		const struct np_irq *irq = &m->irqs.v[i];
		if (plan_irq_movable(p, irq) && !plan_queue_dropped(p, i))
			p->refs[n++] = i;
	}
	qsort_r(p->refs, n, sizeof(*p->refs), by_dev_queue_irq, p);
	for (size_t k = 0; k < n; k++) {
		const struct np_irq *irq = &m->irqs.v[p->refs[k]];
		int queue = slot_queue(p, p->refs[k]);
		const char *pair = p->cls[p->refs[k]].pair;
		struct slot *last = p->nslots ? &p->slots[p->nslots - 1] : NULL;
		if (last && queue >= 0 && last->dev == irq->dev && last->queue == queue && !strcmp(last->pair, pair)) {
			last->n++;
		} else {
			p->slots[p->nslots++] = (struct slot){ .dev = irq->dev, .queue = queue, .pair = pair, .first = k,
							       .n = 1 };
			if (queue >= 0)
				p->nqueues[irq->dev]++;
		}
		p->slots[p->nslots - 1].total += irq->total;
	}
	return 0;
}

static unsigned long long *work_array(size_t n)
{
	return calloc(n, sizeof(unsigned long long));
}

/* Cores and CPUs of each device's target and its cursor (devices sharing a
 * target start at different cores, so their queue 0s differ); its busy
 * queues, and where its queues' work is delivered today. */
int plan_size_devices(struct planner *p)
{
	const struct np_machine *m = p->m;
	size_t ncpu = (size_t)m->topo.max_cpu + 1, nloads = 0;
	for (size_t di = 0; di < m->pci.ndevs; di++)
		nloads += p->nqueues[di] ? 2 * ncpu : 0;
	/* One block for every device's loads by core and by CPU (64 devices of
	 * 1024 CPUs: 4 MB): large enough to come from mmap, whose pages stay
	 * unmapped until used, where a device's target touches a few; a block
	 * each was cleared whole by calloc. */
	struct place_load *next = p->loads = calloc(nloads ? nloads : 1, sizeof(*p->loads));
	if (!p->loads)
		return -ENOMEM;
	for (size_t di = 0; di < m->pci.ndevs; di++) {
		if (!p->nqueues[di])
			continue;
		int n = 0;
		np_cpuset_foreach(cpu, &p->target[di]) {
			int c = core_of(p, cpu);
			if ((size_t)c < ncpu && p->stamp[c] != (int)di + 1) {
				p->stamp[c] = (int)di + 1;
				n++;
			}
		}
		p->ncores[di] = n;
		p->nthreads[di] = (int)np_cpuset_count(&p->target[di]);
		for (size_t dj = 0; dj < di; dj++)
			p->start[di] += p->nqueues[dj] && np_cpuset_equal(&p->target[dj], &p->target[di]);
		p->dl[di] = (struct dev_load){ .core = next, .cpu = next + ncpu };
		next += 2 * ncpu;
	}
	/* Every IRQ's work where it is delivered today: what a core's share
	 * of its target is weighed against, and which IRQ is its busiest. */
	unsigned long long *cpu_today = work_array(ncpu);
	if (!cpu_today)
		return -ENOMEM;
	for (size_t i = 0; i < m->irqs.n; i++) {
		const struct np_irq *irq = &m->irqs.v[i];
		int cpu = home_cpu(irq);
		if (cpu < 0 || (size_t)cpu >= ncpu)
			continue;
		int c = core_of(p, cpu);
		cpu_today[cpu] += irq->total;
		p->today_work[c] += irq->total;
		if (irq->total > p->top_work[c]) {
			p->top_work[c] = irq->total;
			p->top_irq[c] = (int)i;
		}
	}
	for (size_t k = 0; k < p->nslots; k++) {
		const struct slot *s = &p->slots[k];
		if (s->queue < 0)
			continue;
		if (s->total >= p->idle && s->total) {
			p->nbusy[s->dev]++;
			p->busy[s->dev] += s->total;
		}
		int cpu = home_cpu(&m->irqs.v[p->refs[s->first]]);
		if (cpu < 0 || (size_t)cpu >= ncpu)
			continue;
		struct dev_load *l = &p->dl[s->dev];
		int c = core_of(p, cpu);
		l->core[c].today += s->total;
		l->cpu[cpu].today += s->total;
		l->core[c].ntoday++;
		l->cpu[cpu].ntoday++;
		if (s->total > l->core[c].top)
			l->core[c].top = s->total;
		if (s->total > l->cpu[cpu].top)
			l->cpu[cpu].top = s->total;
	}
	/* A core's share of all the work its target takes, and half an average
	 * queue of the device more (a tenth more, when that is more). */
	for (size_t di = 0; di < m->pci.ndevs; di++) {
		if (!p->nqueues[di] || !p->ncores[di])
			continue;
		unsigned long long sum = 0;
		np_cpuset_foreach(cpu, &p->target[di])
			if ((size_t)cpu < ncpu)
				sum += cpu_today[cpu];
		unsigned long long share = sum / (unsigned)p->ncores[di];
		unsigned long long half = p->nbusy[di] ? p->busy[di] / (2 * (unsigned)p->nbusy[di]) : 0;
		p->share_work[di] = share + (half > share / 10 ? half : share / 10);
	}
	free(cpu_today);
	return 0;
}

void plan_free_loads(struct planner *p)
{
	free(p->loads);
	free(p->dl);
}

/* What one of n places (the cores, or the CPUs, of the device's target) may
 * carry of its busy queues' work: an even share, rounded up to whole queues
 * of the average, so that 8 busy queues over 16 cores allow one each and
 * 63 over 52 SMT threads two each (never a third while a thread holds
 * none); and half an average queue more, so that queues a little busier
 * than the average do not count as a pile-up. ULLONG_MAX when the device
 * has no busy queue. */
static unsigned long long allowance(const struct planner *p, int dev, int n)
{
	int nb = p->nbusy[dev];
	if (nb == 0 || n <= 0)
		return ULLONG_MAX;
	int places = nb < n ? nb : n, per = (nb + places - 1) / places;
	return (unsigned long long)((double)p->busy[dev] * (per + 0.5) / nb);
}

/* The share of the device's data queues' interrupts that work is: "4.8%", "35%". */
static const char *share_text(const struct planner *p, int dev, unsigned long long work, char buf[16])
{
	double all = (double)(p->data_volume[dev] ? p->data_volume[dev] : 1), pct = 100.0 * (double)work / all;
	snprintf(buf, 16, pct < 9.95 ? "%.1f%%" : "%.0f%%", pct);
	return buf;
}

/* The volumes a device's problems are judged by: what its movable IRQs
 * handled off its target's nodes (locality), and what its data queues
 * carried (balance). */
int plan_weigh_devices(struct planner *p)
{
	const struct np_machine *m = p->m;
	struct np_cpuset nodes = NP_CPUSET_INIT;
	int rc = 0;
	for (size_t k = 0; k < p->nslots && rc == 0; k++) {
		const struct slot *s = &p->slots[k];
		if (s->queue >= 0)
			p->data_volume[s->dev] += s->total;
		/* A device's slots share its target: its nodes found once. */
		if (k == 0 || s->dev != p->slots[k - 1].dev)
			if ((rc = np_nodes_of(&m->topo, &p->target[s->dev], &nodes)))
				break;
		for (size_t j = 0; j < s->n; j++) {
			const struct np_irq *irq = &m->irqs.v[p->refs[s->first + j]];
			for (int n = 0; n < m->topo.nnodes; n++)
				if (!np_cpuset_test(&nodes, (unsigned)m->topo.nodes[n].id))
					p->off_target[s->dev] += irq->per_node[n];
			p->off_target[s->dev] += irq->unknown_node;
		}
	}
	np_cpuset_free(&nodes);
	return rc;
}

static const struct np_irq *slot_irq(const struct planner *p, const struct slot *s, size_t k)
{
	return &p->m->irqs.v[p->refs[s->first + k]];
}

/* Whether the IRQ lines' reasons are written (not for a caller that never
 * shows them: the decisions are the same, their sentences left empty). */
static bool says(const struct planner *p)
{
	return !p->opts->no_irq_reasons;
}

/* Where an IRQ runs: the kernel's effective CPUs when they are within its
 * affinity (else they say nothing reliable), its affinity otherwise. */
static const struct np_cpuset *runs_on(const struct np_irq *irq)
{
	if (irq->has_effective && !np_cpuset_empty(&irq->effective) && np_cpuset_subset(&irq->effective, &irq->affinity))
		return &irq->effective;
	return &irq->affinity;
}

/* "may run on isolated CPUs 3,11 and irqbalance-banned CPU 8" when cpus
 * holds CPUs no IRQ may use (each named by its source), else NULL; "runs on"
 * when the set is where it is delivered (effective affinity, or an affinity
 * of one CPU). */
static const char *outside_text(const struct planner *p, const struct np_cpuset *cpus, bool runs, char *buf,
				size_t size)
{
	bool failed;
	char *text = np_forbidden_text(&p->opts->forbidden, cpus, &failed);
	if (!text)
		return failed ? "out of memory" : NULL;
	snprintf(buf, size, "%s %s", runs ? "runs on" : "may run on", text);
	free(text);
	return buf;
}

static int spread_node(const struct planner *p, int dev, int queue);

/* How a busy slot piles up where it is delivered, past a share of the work
 * with what the plan keeps there already (slots come busiest first, so a
 * core's busiest queue always stays): */
enum stack {
	STACK_NONE,
	STACK_CORE,   /* its core, with the device's other queues */
	STACK_THREAD, /* its SMT thread, with the device's other queues */
	STACK_SHARED, /* its core, with a busier IRQ of another device (or one the plan leaves) */
};

static enum stack stacked(const struct planner *p, const struct slot *s, int cpu)
{
	const struct dev_load *l = &p->dl[s->dev];
	int c = core_of(p, cpu);
	if (s->total < p->idle || !s->total || cpu > p->m->topo.max_cpu)
		return STACK_NONE;
	if (l->core[c].nplan && l->core[c].plan + s->total > allowance(p, s->dev, p->ncores[s->dev]))
		return STACK_CORE;
	if (l->cpu[cpu].nplan && l->cpu[cpu].plan + s->total > allowance(p, s->dev, p->nthreads[s->dev]))
		return STACK_THREAD;
	if (s->total < p->top_work[c] && p->core_work[c] + s->total > p->share_work[s->dev])
		return STACK_SHARED;
	return STACK_NONE;
}

/* What moving a stacked slot off cpu relieves: its core's (or thread's)
 * work today beyond what it may carry, or its busiest IRQ alone (*keep). */
static unsigned long long stacked_excess(const struct planner *p, const struct slot *s, int cpu, enum stack how,
					 unsigned long long *keep_out)
{
	const struct dev_load *l = &p->dl[s->dev];
	int c = core_of(p, cpu);
	unsigned long long today, keep, top;
	if (how == STACK_SHARED) {
		today = p->today_work[c];
		keep = p->share_work[s->dev];
		top = p->top_work[c];
	} else {
		bool thread = how == STACK_THREAD;
		today = thread ? l->cpu[cpu].today : l->core[c].today;
		keep = allowance(p, s->dev, thread ? p->nthreads[s->dev] : p->ncores[s->dev]);
		top = thread ? l->cpu[cpu].top : l->core[c].top;
	}
	if (top > keep)
		keep = top;
	*keep_out = keep;
	return today > keep ? today - keep : 0;
}

/* Appends to buf (len long) the share of its time cpu spends on
 * interrupts, when /proc/stat tells. */
static void irq_time(const struct planner *p, int cpu, char *buf, size_t size, int len)
{
	double busy = np_cpu_irq_share(&p->m->load, cpu);
	if (busy >= 0 && len > 0 && (size_t)len < size)
		snprintf(buf + len, size - (size_t)len, ", and CPU %d spends %.0f%% of its time on interrupts", cpu, 100 * busy);
}

/* Why a slot cannot stay as it is, or NULL when it can (it satisfies the
 * policy); buf holds the sentence, *rule the problem it is. Judged on where
 * the kernel delivers (the effective affinity within the mask), except that
 * a mask reaching a forbidden CPU is one already: the kernel may pick it. */
static const char *why_move(const struct planner *p, const struct slot *s, char *buf, size_t size, enum np_rule_id *rule)
{
	const struct np_cpuset *t = &p->target[s->dev];
	const struct np_irq *first = slot_irq(p, s, 0);
	*rule = NP_RULE_UNREADABLE;
	for (size_t k = 0; k < s->n; k++) {
		const struct np_irq *irq = slot_irq(p, s, k);
		if (!irq->has_affinity)
			return "its affinity is unreadable";
		/* Pinned to one CPU that it is delivered to, it runs there. */
		bool pinned = np_cpuset_count(&irq->affinity) == 1 &&
			      (!irq->has_effective || np_cpuset_equal(&irq->effective, &irq->affinity));
		*rule = NP_RULE_ISOLATED;
		if (outside_text(p, &irq->affinity, pinned, buf, size))
			return buf;
		if (irq->has_effective && outside_text(p, &irq->effective, true, buf, size))
			return buf;
		*rule = NP_RULE_APART;
		if (!np_cpuset_equal(&irq->affinity, &first->affinity))
			return "the vectors of one queue pair run apart";
		const struct np_cpuset *where = runs_on(irq);
		if (!np_cpuset_subset(where, t)) {
			if (!says(p)) {
				*rule = p->opts->devices[s->dev].irqs == NP_IRQS_LOCAL ? NP_RULE_REMOTE : NP_RULE_OUTSIDE;
				return "";
			}
			struct np_cpuset out = NP_CPUSET_INIT;
			if (np_cpuset_copy(&out, where))
				return "out of memory";
			np_cpuset_andnot(&out, t);
			char *list = list_text(&out);
			/* Pinned to one CPU, it runs there; a wider affinity only allows. */
			const char *verb = where == &irq->affinity && np_cpuset_count(where) > 1 ? "may run" : "runs";
			struct np_cpuset nodes = NP_CPUSET_INIT;
			*rule = p->opts->devices[s->dev].irqs == NP_IRQS_LOCAL ? NP_RULE_REMOTE : NP_RULE_OUTSIDE;
			if (np_nodes_of(&p->m->topo, &out, &nodes) == 0 && np_cpuset_count(&nodes) == 1)
				snprintf(buf, size, "%s on CPU%s %s (node %d), outside its target", verb,
					 np_cpuset_count(&out) > 1 ? "s" : "",
					 list ? list : "?", np_cpuset_next(&nodes, 0));
			else
				snprintf(buf, size, "%s on CPU%s %s, outside its target", verb,
					 np_cpuset_count(&out) > 1 ? "s" : "",
					 list ? list : "?");
			free(list);
			np_cpuset_free(&out);
			np_cpuset_free(&nodes);
			return buf;
		}
	}
	*rule = NP_RULE_BALANCE;
	if (s->queue >= 0) {
		int cpu = home_cpu(first), want = spread_node(p, s->dev, s->queue);
		int node = np_topology_node_of_cpu(&p->m->topo, cpu);
		if (cpu >= 0 && want >= 0 && node != want) {
			if (!says(p))
				return "";
			snprintf(buf, size, "on CPU %d (node %d), not node %d where spread puts queue %d", cpu, node,
				 want, s->queue);
			return buf;
		}
		enum stack how = cpu >= 0 ? stacked(p, s, cpu) : STACK_NONE;
		if (how != STACK_NONE && !says(p))
			return "";
		if (how == STACK_SHARED) {
			const struct np_irq *top = &p->m->irqs.v[p->top_irq[core_of(p, cpu)]];
			char a[32], b[32], c[32];
			int len = snprintf(buf, size, "its core (CPU %d) also serves IRQ %d %s, busier (%s), and carries %s "
					   "where a core's share of its target is %s", cpu, top->irq, top->name,
					   np_volume_text(p->m, top->total, a),
					   np_volume_text(p->m, p->today_work[core_of(p, cpu)], b),
					   np_volume_text(p->m, p->share_work[s->dev], c));
			irq_time(p, cpu, buf, size, len);
			return buf;
		}
		if (how != STACK_NONE) {
			const struct dev_load *l = &p->dl[s->dev];
			bool thread = how == STACK_THREAD;
			int c = core_of(p, cpu), n = thread ? l->cpu[cpu].ntoday : l->core[c].ntoday;
			unsigned long long today = thread ? l->cpu[cpu].today : l->core[c].today;
			int places = thread ? p->nthreads[s->dev] : p->ncores[s->dev];
			char a[16], b[16];
			int len = snprintf(buf, size, "its %s (CPU %d) delivers %s of this device's interrupts, through %d "
					   "of its queues, where a %s's share is %s (%d busy queues, %d %s%s)",
					   thread ? "thread" : "core", cpu, share_text(p, s->dev, today, a), n,
					   thread ? "thread" : "core", share_text(p, s->dev, allowance(p, s->dev, places), b),
					   p->nbusy[s->dev], places, thread ? "SMT thread" : "core", places > 1 ? "s" : "");
			irq_time(p, cpu, buf, size, len);
			return buf;
		}
	}
	*rule = NP_RULE_NONE;
	return NULL;
}

/* Under spread, the node queue i belongs on: the i mod N-th of the N nodes
 * with CPUs in the device's target, so that the first N queues (what
 * remains after ethtool -L combined N) are one per node; -1 otherwise. */
static int spread_node(const struct planner *p, int dev, int queue)
{
	if (queue < 0 || p->opts->devices[dev].irqs != NP_IRQS_SPREAD)
		return -1;
	const struct np_topology *t = &p->m->topo;
	int n = 0;
	for (int i = 0; i < t->nnodes; i++)
		n += np_cpuset_intersects(&t->nodes[i].cpus, &p->target[dev]);
	for (int i = 0, k = 0; n && i < t->nnodes; i++)
		if (np_cpuset_intersects(&t->nodes[i].cpus, &p->target[dev]) && k++ == queue % n)
			return t->nodes[i].id;
	return -1;
}

/* Whether the volume at stake for a problem of rule is worth moving slot
 * s: a forbidden CPU always is; locality and balance only for a slot that is
 * not idle, and past the volume threshold: the device's interrupts off its
 * target (locality), or the work a stacked core carries beyond its share
 * (balance). Otherwise why not, in buf. */
static bool worth_moving(const struct planner *p, const struct slot *s, enum np_rule_id rule, char *buf, size_t size)
{
	char a[32], b[32];
	unsigned long long at_stake, keep = 0;
	const char *what;
	switch (rule) {
	case NP_RULE_REMOTE:
	case NP_RULE_OUTSIDE:
		at_stake = p->off_target[s->dev];
		what = "the device's interrupts off its target";
		break;
	case NP_RULE_BALANCE: {
		int cpu = home_cpu(slot_irq(p, s, 0));
		enum stack how = cpu >= 0 ? stacked(p, s, cpu) : STACK_NONE;
		if (spread_node(p, s->dev, s->queue) >= 0 || how == STACK_NONE) {
			at_stake = p->data_volume[s->dev];
			what = "the device's data queues' interrupts";
		} else {
			at_stake = stacked_excess(p, s, cpu, how, &keep);
			what = how == STACK_THREAD ? "what the thread carries beyond its share"
						   : "what the core carries beyond its share";
		}
		break;
	}
	case NP_RULE_APART:
		at_stake = p->data_volume[s->dev];
		what = "the device's data queues' interrupts";
		break;
	default:
		return true;
	}
	/* (A profile's rule has no floor: it places even an IRQ that has not
	 * fired yet, as after a device's re-probe.) */
	if (s->total < p->idle) {
		if (says(p))
			snprintf(buf, size, "it is idle (%s)", np_volume_text(p->m, s->total, a));
		return false;
	}
	/* A core that spends next to no time on interrupts has nothing to give
	 * back by moving them, however many it serves (/proc/stat). */
	int cpu = home_cpu(slot_irq(p, s, 0));
	double busy = rule == NP_RULE_BALANCE ? np_cpu_irq_share(&p->m->load, cpu) : -1;
	if (busy >= 0 && busy < NP_IRQ_TIME_FLOOR) {
		if (says(p))
			snprintf(buf, size, "CPU %d spends %.1f%% of its time on interrupts, under %.0f%%", cpu,
				 100 * busy, 100 * NP_IRQ_TIME_FLOOR);
		return false;
	}
	/* A pile-up is a matter of load. A copy with neither /proc/uptime nor
	 * /proc/stat has only counts since an unknown boot: 10k of them are a
	 * busy minute or an idle month, so it moves nothing for balance. */
	if (rule == NP_RULE_BALANCE && busy < 0 && !(p->m->load.seconds > 0)) {
		if (says(p))
			snprintf(buf, size, "its load is unknown (no /proc/uptime or /proc/stat: counts since an "
				 "unknown boot)");
		return false;
	}
	/* A tenth more than a core's share is a rounding of the load, not a
	 * pile-up: moving a queue for it would only move the excess around. */
	if (at_stake >= p->opts->min_interrupts && at_stake * 10 >= keep)
		return true;
	if (at_stake >= p->opts->min_interrupts) {
		if (says(p))
			snprintf(buf, size, "what the core carries beyond its share (%s) is under a tenth of it",
				 np_volume_text(p->m, at_stake, a));
		return false;
	}
	if (says(p))
		snprintf(buf, size, "%s (%s) are under the volume threshold (%s)", what,
			 np_volume_text(p->m, at_stake, a), np_volume_text(p->m, p->opts->min_interrupts, b));
	return false;
}

static void count_on(struct planner *p, const struct slot *s, int cpu, int sign)
{
	if (cpu < 0 || cpu > p->m->topo.max_cpu)
		return;
	int c = core_of(p, cpu);
	unsigned long long w = s->total;
	if (sign > 0)
		p->core_work[c] += w;
	else
		p->core_work[c] -= w < p->core_work[c] ? w : p->core_work[c];
	if (s->queue >= 0) {
		struct dev_load *l = &p->dl[s->dev];
		p->load[cpu] += sign;
		p->core_load[c] += sign;
		l->core[c].nplan += sign;
		l->cpu[cpu].nplan += sign;
		l->core[c].plan = sign > 0 ? l->core[c].plan + w : l->core[c].plan - w;
		l->cpu[cpu].plan = sign > 0 ? l->cpu[cpu].plan + w : l->cpu[cpu].plan - w;
	}
}

/* "[kept, ]WHY: TARGET_WHY", put together without printf's parsing: a
 * plan with 256 queues a NIC says it 10,000 times. */
static char *reason_text(bool keep, const char *why, const char *target_why)
{
	const char *kept = keep ? "kept, " : "";
	size_t a = strlen(kept), b = strlen(why), c = strlen(target_why);
	char *text = malloc(a + b + 2 + c + 1);
	if (text) {
		memcpy(text, kept, a);
		memcpy(text + a, why, b);
		memcpy(text + a + b, ": ", 2);
		memcpy(text + a + b + 2, target_why, c + 1);
	}
	return text;
}

static int record(struct planner *p, struct slot *s, const struct np_cpuset *cpus, bool keep, enum np_rule_id rule,
		  const char *why)
{
	const struct np_machine *m = p->m;
	int rc = 0;
	int rcpu = np_cpuset_next(cpus, 0), rnode = np_topology_node_of_cpu(&m->topo, rcpu);
	int rindex = rnode >= 0 ? p->node_index[rcpu] : -1;
	int home = np_device_node(m, &m->pci.devs[s->dev], NULL);
	for (size_t k = 0; rc == 0 && k < s->n; k++) {
		size_t ii = p->refs[s->first + k];
		const struct np_irq *irq = &m->irqs.v[ii];
		struct np_rec r = { .kind = NP_ATTR_IRQ_AFFINITY, .dev = s->dev, .irq = irq->irq, .queue = irq->queue,
				    .vector = irq->name, .interrupts = irq->total, .rule = keep ? NP_RULE_NONE : rule };
		double weighted = 0;
		for (int n = 0; n < m->topo.nnodes; n++) {
			int d = rnode >= 0 ? index_distance(p, n, rindex) : 10;
			weighted += (double)irq->per_node[n] * (d > 0 ? d : 10) / 10.0;
		}
		/* Remote is off the device's node, whatever the policy. */
		r.remote = home >= 0 ? np_irq_remote_share(m, irq, home) : -1;
		int before = np_topology_node_of_cpu(&m->topo, home_cpu(irq));
		if (home >= 0 && !keep && before >= 0 && rnode >= 0 && (before == home) != (rnode == home))
			r.node_move = rnode == home ? 1 : -1;
		r.impact = weighted + (double)irq->unknown_node;
		r.current = irq->has_affinity ? list_text(&irq->affinity) : NULL;
		if (keep) {
			/* What it has, as a profile can restate it: online CPUs only. */
			struct np_cpuset on = NP_CPUSET_INIT;
			if (np_cpuset_copy(&on, cpus) == 0) {
				np_cpuset_and(&on, &m->topo.online);
				r.recommended = list_text(&on);
			}
			np_cpuset_free(&on);
		} else {
			r.recommended = list_text(cpus);
		}
		r.reason = says(p) ? reason_text(keep, why, p->target_why[s->dev]) : strdup("");
		p->has_plan[ii] = true;
		if ((rc = np_cpuset_copy(&p->planned[ii], cpus)) == 0 && (rc = plan_add_rec(p->m, p->plan, &r)) == 0 && keep)
			p->plan->v[p->plan->n - 1].change = false;
		if (rc == 0 && !keep) {
			int old = home_cpu(irq), now = np_cpuset_only(cpus);
			if (old >= 0 && old <= m->topo.max_cpu)
				p->vectors[old]--;
			if (now >= 0)
				p->vectors[now]++;
		}
	}
	s->done = true;
	return rc;
}

/* Keeps what already satisfies the policy, the busiest first, so that when a
 * core holds too many of a device's queues the quiet ones move. */
static int by_total_desc(const void *a, const void *b, void *arg)
{
	const struct slot *v = arg;
	const struct slot *x = &v[*(const size_t *)a], *y = &v[*(const size_t *)b];
	if (x->total != y->total)
		return x->total > y->total ? -1 : 1;
	return x->first < y->first ? -1 : x->first > y->first;
}

int plan_keep_slots(struct planner *p)
{
	size_t *order = calloc(p->nslots + 1, sizeof(*order));
	int rc = order ? 0 : -ENOMEM;
	for (size_t k = 0; k < p->nslots; k++)
		order[k] = k;
	if (rc == 0)
		qsort_r(order, p->nslots, sizeof(*order), by_total_desc, p->slots);
	for (size_t k = 0; rc == 0 && k < p->nslots; k++) {
		struct slot *s = &p->slots[order[k]];
		char buf[240], not[240], why[520];
		enum np_rule_id rule;
		const char *move = why_move(p, s, buf, sizeof(buf), &rule);
		if (move && worth_moving(p, s, rule, not, sizeof(not))) {
			/* Said as judged now, before other slots move around it. */
			s->rule = rule;
			if (says(p) && !(s->why = strdup(move)))
				rc = -ENOMEM;
			continue;
		}
		const struct np_irq *first = slot_irq(p, s, 0);
		const struct np_cpuset *where = runs_on(first);
		char *list = says(p) ? list_text(where) : NULL;
		if (!says(p))
			why[0] = '\0';
		else if (move)
			snprintf(why, sizeof(why), "%s, but %s", move, not);
		else
			snprintf(why, sizeof(why), "%s on CPU%s %s, within the target%s",
				 where == &first->affinity && np_cpuset_count(where) == 1 ? "pinned" : "runs",
				 np_cpuset_count(where) > 1 ? "s" : "", list ? list : "?",
				 s->queue >= 0 ? " and its device's share of that core" : "");
		free(list);
		count_on(p, s, home_cpu(first), 1);
		rc = record(p, s, &first->affinity, true, NP_RULE_NONE, why);
	}
	free(order);
	return rc;
}

/* The CPU for a device's next queue s: one whose core and thread take its
 * work within their share, on the node spread wants, where it runs now when
 * that is one (nothing moves for nothing), with the fewest of the device's
 * queues on its core (distinct physical cores first), nearest, least loaded
 * by every device's interrupts, on the thread with the fewest of the
 * device's queues and then of any device's (an SMT sibling holding none
 * first), then the device's cursor. CPUs at the x86 vector budget are skipped while
 * others remain. */
static int pick_cpu(struct planner *p, const struct slot *s, int home)
{
	int dev = s->dev, want = spread_node(p, dev, s->queue);
	const struct np_cpuset *t = &p->target[dev];
	const struct dev_load *l = &p->dl[dev];
	unsigned long long allow_core = allowance(p, dev, p->ncores[dev]), allow_cpu = allowance(p, dev, p->nthreads[dev]);
	int best = -1, pos = 0, bestrot = 0;
	unsigned size = np_cpuset_count(t), first = size ? (unsigned)p->start[dev] % size : 0;
	unsigned long long bestkey[11] = { 0 }, key[11];
	int anchor = node_index_of(p, p->anchor[dev]);
	/* The target's CPUs in order, a word at a time; each candidate's keys
	 * computed only while it ties with the best so far (most lose on one of
	 * the first six), the rest once it is ahead. */
	for (size_t w = 0; w < t->nwords; w++) {
		for (uint64_t bits = t->bits[w]; bits; bits &= bits - 1, pos++) {
			int cpu = (int)(w * 64) + __builtin_ctzll(bits), c = core_of(p, cpu);
			bool ahead = best < 0;
#define PICK(i, expr)                                   \
	key[i] = (unsigned long long)(expr);                \
	if (!ahead && key[i] != bestkey[i]) {               \
		if (key[i] > bestkey[i])                    \
			continue;                           \
		ahead = true;                               \
	}
			PICK(0, p->vectors[cpu] >= NP_VECTORS_PER_CPU)
			PICK(1, l->core[c].nplan && l->core[c].plan + s->total > allow_core)
			PICK(2, l->cpu[cpu].nplan && l->cpu[cpu].plan + s->total > allow_cpu)
			PICK(3, want >= 0 && np_topology_node_of_cpu(&p->m->topo, cpu) != want)
			PICK(4, cpu != home)
			PICK(5, l->core[c].nplan)
			PICK(6, distance(p, p->anchor[dev], anchor, cpu))
			PICK(7, p->core_work[c])
			PICK(8, l->cpu[cpu].nplan)
			PICK(9, p->load[cpu])
			PICK(10, p->core_load[c])
#undef PICK
			/* the device's cursor: pos counted from it, round the target */
			int rot = (int)((unsigned)pos >= first ? (unsigned)pos - first : (unsigned)pos + size - first);
			if (!ahead && rot >= bestrot)
				continue;
			best = cpu;
			bestrot = rot;
			memcpy(bestkey, key, sizeof(key));
		}
	}
	return best;
}

static int by_queue_then_device(const void *a, const void *b, void *arg)
{
	const struct slot *v = arg;
	const struct slot *x = &v[*(const size_t *)a], *y = &v[*(const size_t *)b];
	if (x->queue != y->queue)
		return x->queue - y->queue;
	if (x->dev != y->dev)
		return x->dev - y->dev;
	return x->first < y->first ? -1 : x->first > y->first;
}

/* Each device's vectors (a slot's device has at least one). */
static int *vectors_per_device(const struct np_machine *m)
{
	int *n = calloc(m->pci.ndevs + 1, sizeof(*n));
	for (size_t i = 0; n && i < m->irqs.n; i++)
		if (m->irqs.v[i].dev >= 0)
			n[m->irqs.v[i].dev]++;
	return n;
}

int plan_place_slots(struct planner *p)
{
	const struct np_machine *m = p->m;
	size_t *order = calloc(p->nslots + 1, sizeof(*order)), n = 0;
	struct np_cpuset one = NP_CPUSET_INIT;
	int rc = order ? 0 : -ENOMEM;
	for (size_t k = 0; rc == 0 && k < p->nslots; k++)
		if (!p->slots[k].done && p->slots[k].queue >= 0)
			order[n++] = k;
	/* Queue 0 of every device first, then queue 1...: devices take turns. */
	if (rc == 0)
		qsort_r(order, n, sizeof(*order), by_queue_then_device, p->slots);
	for (size_t k = 0; rc == 0 && k < n; k++) {
		struct slot *s = &p->slots[order[k]];
		char why[640];
		enum np_rule_id rule = s->rule;
		const char *move = s->why;
		int cpu = pick_cpu(p, s, home_cpu(slot_irq(p, s, 0)));
		if (p->vectors[cpu] >= NP_VECTORS_PER_CPU && !p->budget_warned) {
			p->budget_warned = true;
			rc = plan_warn(p->plan, "%s (%s): every CPU of its target already holds %d vectors: an x86 CPU has "
				  "about %d free; reduce the device's queues", m->pci.devs[s->dev].addr,
				  plan_dev_label(&m->pci.devs[s->dev]), NP_VECTORS_PER_CPU, NP_VECTORS_PER_CPU);
		}
		const struct dev_load *l = &p->dl[s->dev];
		int c = core_of(p, cpu);
		bool over = l->core[c].nplan && l->core[c].plan + s->total > allowance(p, s->dev, p->ncores[s->dev]);
		count_on(p, s, cpu, 1);
		np_cpuset_clear(&one);
		int nb = p->nbusy[s->dev], nc = p->ncores[s->dev];
		if (!says(p))
			why[0] = '\0';
		else if (over)
			snprintf(why, sizeof(why), "%s; queue %d on a core holding %d of the device's queues: the "
				 "target's other CPUs are at the x86 vector budget", move ? move : "not placed yet",
				 s->queue, l->core[c].nplan);
		else if (l->core[c].nplan > 1)
			snprintf(why, sizeof(why), "%s; queue %d on a core whose share of the device's work holds it "
				 "(%d busy queue%s, %d core%s)", move ? move : "not placed yet", s->queue,
				 nb, nb == 1 ? "" : "s", nc, nc == 1 ? "" : "s");
		else
			snprintf(why, sizeof(why), "%s; queue %d on a core of its own (%d busy queue%s, %d core%s)",
				 move ? move : "not placed yet", s->queue, nb, nb == 1 ? "" : "s", nc, nc == 1 ? "" : "s");
		if (rc == 0 && (rc = np_cpuset_set(&one, (unsigned)cpu)) == 0)
			rc = record(p, s, &one, false, rule ? rule : NP_RULE_BALANCE, why);
	}
	/* Say where the budget kept queues away from. */
	struct np_cpuset full = NP_CPUSET_INIT;
	for (size_t di = 0; rc == 0 && di < m->pci.ndevs; di++) {
		if (!p->nqueues[di])
			continue;
		np_cpuset_foreach(cpu, &p->target[di])
			if (rc == 0 && p->vectors[cpu] >= NP_VECTORS_PER_CPU)
				rc = np_cpuset_set(&full, (unsigned)cpu);
	}
	if (rc == 0 && !np_cpuset_empty(&full)) {
		char *list = list_text(&full);
		rc = plan_warn(p->plan, "CPU%s %s already hold%s %d vectors or more: an x86 CPU has about %d to give, so "
			  "the plan puts no queue there while other CPUs of the target have room, and spreads instead",
			  np_cpuset_count(&full) > 1 ? "s" : "", list ? list : "?", np_cpuset_count(&full) > 1 ? "" : "s",
			  NP_VECTORS_PER_CPU, NP_VECTORS_PER_CPU);
		free(list);
	}
	np_cpuset_free(&full);
	/* The rest (a device's only IRQ, admin, config and misc vectors) keep
	 * what they may of their CPUs, else take the whole target: they carry
	 * little, and the kernel picks one CPU in the set. */
	int *nvecs = NULL; /* per device: its vectors, counted once */
	for (size_t k = 0; rc == 0 && k < p->nslots; k++) {
		struct slot *s = &p->slots[k];
		if (s->done)
			continue;
		char why[640];
		enum np_rule_id rule = s->rule;
		const char *move = s->why;
		const struct np_irq *irq = slot_irq(p, s, 0);
		if (!nvecs && !(nvecs = vectors_per_device(m))) {
			rc = -ENOMEM;
			break;
		}
		rc = np_cpuset_copy(&one, &p->target[s->dev]);
		bool only = nvecs[s->dev] == 1;
		const char *what = only ? "the device's only vector" : s->queue >= 0 ? "queue" : "not a queue vector";
		why[0] = '\0';
		if (rc == 0 && irq->has_affinity && np_cpuset_intersects(&irq->affinity, &one)) {
			np_cpuset_and(&one, &irq->affinity);
			if (says(p))
				snprintf(why, sizeof(why), "%s; %s: the target's CPUs within its current affinity",
					 move ? move : "not placed", what);
		} else if (says(p)) {
			snprintf(why, sizeof(why), "%s; %s: any CPU of the target, the kernel picks one",
				 move ? move : "not placed", what);
		}
		if (rc == 0)
			rc = record(p, s, &one, false, rule ? rule : NP_RULE_BALANCE, why);
	}
	np_cpuset_free(&one);
	free(nvecs);
	free(order);
	return rc;
}

/* A device whose queues the plan places has every busy data vector pinned:
 * one kept within a mask wider than a core is set to the CPU the kernel
 * delivers it to, since within the mask the interrupt controller may pick
 * another and the device's other queues were placed around this one. An
 * idle one is left: it brings nothing to place around. */
int plan_pin_kept_queues(struct planner *p)
{
	const struct np_machine *m = p->m;
	struct np_plan *plan = p->plan;
	/* per device: the rule of its first data queue change (the pins join that problem) */
	enum np_rule_id *placing = calloc(m->pci.ndevs + 1, sizeof(*placing));
	int rc = placing ? 0 : -ENOMEM;
	for (size_t i = 0; rc == 0 && i < plan->n; i++) {
		const struct np_rec *r = &plan->v[i];
		const struct np_irq *irq = r->kind == NP_ATTR_IRQ_AFFINITY ? np_irqs_find((struct np_irqs *)&m->irqs, r->irq) : NULL;
		if (irq && r->change && np_vector_balanced(&p->cls[irq - m->irqs.v]) && !placing[r->dev])
			placing[r->dev] = r->rule;
	}
	for (size_t i = 0; rc == 0 && i < plan->n; i++) {
		struct np_rec *r = &plan->v[i];
		const struct np_irq *irq = r->kind == NP_ATTR_IRQ_AFFINITY ? np_irqs_find((struct np_irqs *)&m->irqs, r->irq) : NULL;
		if (!irq || r->change || !placing[r->dev])
			continue;
		size_t ii = (size_t)(irq - m->irqs.v);
		int cpu = home_cpu(irq);
		/* A CPU at the x86 vector budget takes no pin: the kernel may need to move it. */
		if (!np_vector_balanced(&p->cls[ii]) || irq->total < p->idle || cpu < 0 || cpu > m->topo.max_cpu ||
		    np_cpuset_count(&irq->affinity) <= 1 || p->vectors[cpu] >= NP_VECTORS_PER_CPU)
			continue;
		char *reason, *value;
		if (asprintf(&value, "%d", cpu) < 0)
			return free(placing), -ENOMEM;
		if (!says(p))
			reason = strdup("");
		else if (asprintf(&reason, "pinned where it is delivered (CPU %d), the device's other queues placed around "
			     "it: a wider mask lets the interrupt controller move it: %s", cpu, p->target_why[r->dev]) < 0)
			reason = NULL;
		if (!reason) {
			free(value);
			return free(placing), -ENOMEM;
		}
		free(r->recommended);
		free(r->reason);
		r->recommended = value;
		r->reason = reason;
		r->change = true;
		r->rule = placing[r->dev];
		np_cpuset_clear(&p->planned[ii]);
		rc = np_cpuset_set(&p->planned[ii], (unsigned)cpu);
	}
	free(placing);
	return rc;
}
