/* SPDX-License-Identifier: GPL-2.0-or-later */
#include "advise.h"

#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "findings.h"
#include "sysfs.h"
#include "vector.h"

int np_usable_cpus(const struct np_topology *topo, const struct np_cpuset *exclude, struct np_cpuset *out)
{
	int rc = np_cpuset_copy(out, &topo->online);
	np_cpuset_andnot(out, &topo->isolated);
	np_cpuset_andnot(out, &topo->nohz_full);
	if (exclude)
		np_cpuset_andnot(out, exclude);
	return rc;
}

int np_nearest_cpus(const struct np_topology *topo, int node, const struct np_cpuset *usable, struct np_cpuset *out)
{
	int best = -1, rc = 0;
	np_cpuset_clear(out);
	/* A memory-only node's own nearest CPUs: its HMAT initiators', which
	 * distances alone can contradict. */
	const struct np_node *self = np_topology_node(topo, node);
	if (self && self->near_by == NP_NEAR_INITIATORS && np_cpuset_intersects(&self->near_cpus, usable)) {
		if ((rc = np_cpuset_copy(out, &self->near_cpus)) == 0)
			np_cpuset_and(out, usable);
		return rc;
	}
	for (int pass = 0; pass < 2 && rc == 0; pass++) {
		for (int i = 0; i < topo->nnodes && rc == 0; i++) {
			const struct np_node *n = &topo->nodes[i];
			if (!np_cpuset_intersects(&n->cpus, usable))
				continue;
			int d = np_topology_distance(topo, node, n->id);
			if (d < 0)
				d = n->id == node ? 10 : 20;
			if (pass == 0 && (best < 0 || d < best))
				best = d;
			else if (pass == 1 && d == best && (rc = np_cpuset_or(out, &n->cpus)) == 0)
				np_cpuset_and(out, usable);
		}
	}
	return rc;
}

/* One queue: the vectors of a device of one family but for the direction
 * and of the same queue number (virtio input.N and output.N, rx-N and tx-N;
 * one TxRx-N) move together; every other vector (admin, config, misc,
 * control, flow director, a device's only IRQ) is a slot of its own. */
struct slot {
	int dev;
	int queue;          /* -1: not a data queue or RDMA completion vector */
	const char *pair;   /* its vectors' family without direction (lib/vector) */
	size_t first, n;    /* its vectors: refs[first .. first + n) */
	unsigned long long total;
	bool done;
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
	bool *has_plan;
	size_t *refs;
	struct slot *slots;
	size_t nslots;
	bool budget_warned;
};

static int vnote(char ***v, size_t *n, const char *fmt, va_list ap)
{
	char **more = realloc(*v, (*n + 1) * sizeof(*more));
	if (!more)
		return -ENOMEM;
	*v = more;
	if (vasprintf(&more[*n], fmt, ap) < 0)
		return -ENOMEM;
	(*n)++;
	return 0;
}

static int warn(struct np_plan *plan, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
static int warn(struct np_plan *plan, const char *fmt, ...)
{
	va_list ap;
	va_start(ap, fmt);
	int rc = vnote(&plan->warnings, &plan->nwarnings, fmt, ap);
	va_end(ap);
	return rc;
}

static int note(struct np_plan *plan, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
static int note(struct np_plan *plan, const char *fmt, ...)
{
	va_list ap;
	va_start(ap, fmt);
	int rc = vnote(&plan->notes, &plan->nnotes, fmt, ap);
	va_end(ap);
	return rc;
}

static const char *dev_label(const struct np_pci_dev *d)
{
	if (d->nnet)
		return d->net[0].name;
	if (d->nblock)
		return d->block[0].name;
	return d->child_driver ? d->child_driver : d->driver ? d->driver : "device";
}

static char *list_text(const struct np_cpuset *set)
{
	return np_cpuset_format_list(set);
}

/* Adds a recommendation; takes ownership of current, recommended and reason.
 * A value kept as it is fixes no problem: its rule is cleared. */
static int add_rec(const struct np_machine *m, struct np_plan *plan, struct np_rec *r)
{
	r->target = (struct np_target){ .irq = r->irq, .queue = r->queue, .net = r->net, .block = r->block,
					.device = r->dev >= 0 ? m->pci.devs[r->dev].addr : NULL, .vector = r->vector };
	struct np_rec *more = realloc(plan->v, (plan->n + 1) * sizeof(*more));
	if (!more || !r->recommended || !r->reason) {
		free(r->current);
		free(r->recommended);
		free(r->reason);
		if (more)
			plan->v = more;
		return -ENOMEM;
	}
	plan->v = more;
	r->change = !r->current || strcmp(r->current, r->recommended) != 0;
	if (!r->change)
		r->rule = NP_RULE_NONE;
	plan->v[plan->n++] = *r;
	return 0;
}

/* Unique (package, core) pairs get one index each, so SMT siblings share it. */
static void index_cores(struct planner *p)
{
	const struct np_topology *t = &p->m->topo;
	for (int i = 0; i < t->ncpus; i++) {
		const struct np_cpu *c = &t->cpus[i];
		int idx = -1;
		np_cpuset_foreach(sib, &c->siblings) {
			if (sib < c->id && sib <= t->max_cpu && p->core_of[sib] >= 0) {
				idx = p->core_of[sib];
				break;
			}
		}
		p->core_of[c->id] = idx >= 0 ? idx : c->id;
	}
}

static int core_of(const struct planner *p, int cpu)
{
	return cpu >= 0 && cpu <= p->m->topo.max_cpu && p->core_of[cpu] >= 0 ? p->core_of[cpu] : cpu;
}

/* The CPU an IRQ runs on today, for counting: its only allowed CPU, else the
 * one the kernel chose within its affinity; -1 when that says nothing. */
static int home_cpu(const struct np_irq *irq)
{
	if (irq->has_affinity && np_cpuset_count(&irq->affinity) == 1)
		return np_cpuset_next(&irq->affinity, 0);
	if (irq->has_effective && !np_cpuset_empty(&irq->effective) &&
	    (!irq->has_affinity || np_cpuset_subset(&irq->effective, &irq->affinity)))
		return np_cpuset_next(&irq->effective, 0);
	return -1;
}

static int distance(const struct planner *p, int from_node, int cpu)
{
	int node = np_topology_node_of_cpu(&p->m->topo, cpu);
	int d = from_node >= 0 ? np_topology_distance(&p->m->topo, from_node, node) : 10;
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
static int choose_targets(struct planner *p)
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
				rc = warn(p->plan, "%s (%s): NUMA node unknown (numa_node -1 and local CPUs span nodes): "
					  "no locality recommendation for it", d->addr, dev_label(d));
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
						"linux-kernel, 2012-11, Dell PowerEdge R715, megaraid_sas: with the "
						"controller's IRQ pinned to the node running the benchmark he saw no "
						"regressions)"
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
				rc = warn(p->plan, "%s (%s): some requested CPUs are offline, isolated or excluded: left out",
					  d->addr, dev_label(d));
			why = strdup("the CPUs the profile names");
			break;
		case NP_IRQS_KEEP:
			break;
		}
		if (rc == 0 && np_cpuset_empty(t))
			rc = warn(p->plan, "%s (%s): no usable CPU for its IRQs under this policy: left as they are",
				  d->addr, dev_label(d));
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
static int build_slots(struct planner *p)
{
	const struct np_machine *m = p->m;
	size_t n = 0;
	p->refs = calloc(m->irqs.n + 1, sizeof(*p->refs));
	p->slots = calloc(m->irqs.n + 1, sizeof(*p->slots));
	if (!p->refs || !p->slots)
		return -ENOMEM;
	for (size_t i = 0; i < m->irqs.n; i++) {
		const struct np_irq *irq = &m->irqs.v[i];
		if (irq->dev >= 0 && !np_cpuset_empty(&p->target[irq->dev]) && irq->managed == NP_MANAGED_NO)
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

/* Cores of each device's target, its per-core cap and its cursor: devices
 * sharing a target start at different cores, so their queue 0s differ. */
static int size_devices(struct planner *p)
{
	const struct np_machine *m = p->m;
	size_t ncpu = (size_t)m->topo.max_cpu + 1;
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
		p->cap[di] = (p->nqueues[di] + n - 1) / (n ? n : 1);
		for (size_t dj = 0; dj < di; dj++)
			p->start[di] += p->nqueues[dj] && np_cpuset_equal(&p->target[dj], &p->target[di]);
		if (!(p->dcount[di] = calloc(ncpu, sizeof(int))) || !(p->dcpu[di] = calloc(ncpu, sizeof(int))) ||
		    !(p->dtoday[di] = calloc(ncpu, sizeof(int))))
			return -ENOMEM;
	}
	for (size_t k = 0; k < p->nslots; k++) {
		const struct slot *s = &p->slots[k];
		int cpu = home_cpu(&m->irqs.v[p->refs[s->first]]);
		if (s->queue >= 0 && cpu >= 0 && (size_t)cpu < ncpu)
			p->dtoday[s->dev][core_of(p, cpu)]++;
	}
	return 0;
}

/* The volumes a device's problems are judged by: what its movable IRQs
 * handled off its target's nodes (locality), and what its data queues
 * carried (balance). */
static int weigh_devices(struct planner *p)
{
	const struct np_machine *m = p->m;
	struct np_cpuset nodes = NP_CPUSET_INIT;
	int rc = 0;
	for (size_t k = 0; k < p->nslots && rc == 0; k++) {
		const struct slot *s = &p->slots[k];
		if (s->queue >= 0)
			p->data_volume[s->dev] += s->total;
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

/* Where an IRQ runs: the kernel's effective CPUs when they are within its
 * affinity (else they say nothing reliable), its affinity otherwise. */
static const struct np_cpuset *runs_on(const struct np_irq *irq)
{
	if (irq->has_effective && !np_cpuset_empty(&irq->effective) && np_cpuset_subset(&irq->effective, &irq->affinity))
		return &irq->effective;
	return &irq->affinity;
}

/* "may run on isolated CPU 3,11 and excluded CPU 8" when cpus holds CPUs no
 * IRQ may use, else NULL; "runs on" when the set is where it is delivered
 * (effective affinity, or an affinity of one CPU). */
static const char *outside_text(const struct planner *p, const struct np_cpuset *cpus, bool runs, char *buf,
				size_t size)
{
	const struct np_topology *topo = &p->m->topo;
	const struct np_cpuset *kinds[] = { &topo->isolated, &topo->nohz_full, &p->opts->exclude };
	static const char *const names[] = { "isolated", "nohz_full", "excluded" };
	struct np_cpuset bad = NP_CPUSET_INIT, seen = NP_CPUSET_INIT;
	size_t len = 0;
	buf[0] = '\0';
	for (int k = 0; k < 3; k++) {
		if (np_cpuset_copy(&bad, cpus))
			break;
		np_cpuset_and(&bad, kinds[k]);
		np_cpuset_andnot(&bad, &seen);
		if (np_cpuset_empty(&bad))
			continue;
		char *list = list_text(&bad);
		len += (size_t)snprintf(buf + len, len < size ? size - len : 0, "%s%s CPU%s %s", len ? " and " : runs ? "runs on " : "may run on ",
					names[k], np_cpuset_count(&bad) > 1 ? "s" : "", list ? list : "?");
		free(list);
		np_cpuset_or(&seen, &bad);
	}
	np_cpuset_free(&bad);
	np_cpuset_free(&seen);
	return len ? buf : NULL;
}

static int spread_node(const struct planner *p, int dev, int queue);

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
		int cpu = home_cpu(first), c = core_of(p, cpu), want = spread_node(p, s->dev, s->queue);
		int node = np_topology_node_of_cpu(&p->m->topo, cpu);
		if (cpu >= 0 && want >= 0 && node != want) {
			snprintf(buf, size, "on CPU %d (node %d), not node %d where spread puts queue %d", cpu, node,
				 want, s->queue);
			return buf;
		}
		if (cpu >= 0 && p->dcount[s->dev][c] >= p->cap[s->dev]) {
			/* dcount does not include this queue yet: it counts the others
			 * the plan keeps or puts there; dtoday all that are there now. */
			int today = p->dtoday[s->dev][c], other = p->dcount[s->dev][c];
			if (today > p->cap[s->dev])
				snprintf(buf, size, "its core (CPU %d) delivers %d of this device's queues today, and %d "
					 "cores allow %d per core", cpu, today, p->ncores[s->dev], p->cap[s->dev]);
			else
				snprintf(buf, size, "the plan gives its core (CPU %d) to %d other queue%s of this device, "
					 "and %d cores allow %d per core", cpu, other, other > 1 ? "s" : "",
					 p->ncores[s->dev], p->cap[s->dev]);
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

/* Whether the volume at stake for a problem of rule on dev is worth a change:
 * a forbidden CPU always is; locality and balance only past the threshold. */
static bool worth_moving(const struct planner *p, int dev, enum np_rule_id rule)
{
	switch (rule) {
	case NP_RULE_REMOTE:
	case NP_RULE_OUTSIDE:
		return p->off_target[dev] >= p->opts->min_interrupts;
	case NP_RULE_BALANCE:
	case NP_RULE_APART:
		return p->data_volume[dev] >= p->opts->min_interrupts;
	default:
		return true;
	}
}

static void count_on(struct planner *p, const struct slot *s, int cpu, int sign)
{
	if (cpu < 0 || cpu > p->m->topo.max_cpu)
		return;
	if (s->queue >= 0) {
		p->load[cpu] += sign;
		p->core_load[core_of(p, cpu)] += sign;
		p->dcount[s->dev][core_of(p, cpu)] += sign;
		p->dcpu[s->dev][cpu] += sign;
	}
}

static int record(struct planner *p, struct slot *s, const struct np_cpuset *cpus, bool keep, enum np_rule_id rule,
		  const char *why)
{
	const struct np_machine *m = p->m;
	int rc = 0;
	int rnode = np_topology_node_of_cpu(&m->topo, np_cpuset_next(cpus, 0));
	int home = np_device_node(m, &m->pci.devs[s->dev], NULL);
	for (size_t k = 0; rc == 0 && k < s->n; k++) {
		size_t ii = p->refs[s->first + k];
		const struct np_irq *irq = &m->irqs.v[ii];
		struct np_rec r = { .kind = NP_ATTR_IRQ_AFFINITY, .dev = s->dev, .irq = irq->irq, .queue = irq->queue,
				    .vector = irq->name, .interrupts = irq->total, .rule = keep ? NP_RULE_NONE : rule };
		double weighted = 0;
		for (int n = 0; n < m->topo.nnodes; n++) {
			int id = m->topo.nodes[n].id, d = rnode >= 0 ? np_topology_distance(&m->topo, id, rnode) : 10;
			weighted += (double)irq->per_node[n] * (d > 0 ? d : 10) / 10.0;
		}
		/* Remote is off the device's node, whatever the policy. */
		r.remote = home >= 0 ? np_irq_remote_share(m, irq, home) : 0;
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
		if (asprintf(&r.reason, "%s%s: %s", keep ? "kept, " : "", why, p->target_why[s->dev]) < 0)
			r.reason = NULL;
		p->has_plan[ii] = true;
		if ((rc = np_cpuset_copy(&p->planned[ii], cpus)) == 0 && (rc = add_rec(p->m, p->plan, &r)) == 0 && keep)
			p->plan->v[p->plan->n - 1].change = false;
		if (rc == 0 && !keep) {
			int old = home_cpu(irq), now = np_cpuset_count(cpus) == 1 ? np_cpuset_next(cpus, 0) : -1;
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

static int keep_slots(struct planner *p)
{
	size_t *order = calloc(p->nslots + 1, sizeof(*order));
	int rc = order ? 0 : -ENOMEM;
	for (size_t k = 0; k < p->nslots; k++)
		order[k] = k;
	if (rc == 0)
		qsort_r(order, p->nslots, sizeof(*order), by_total_desc, p->slots);
	for (size_t k = 0; rc == 0 && k < p->nslots; k++) {
		struct slot *s = &p->slots[order[k]];
		char buf[200], why[400];
		enum np_rule_id rule;
		const char *move = why_move(p, s, buf, sizeof(buf), &rule);
		if (move && worth_moving(p, s->dev, rule))
			continue;
		const struct np_irq *first = slot_irq(p, s, 0);
		const struct np_cpuset *where = runs_on(first);
		char *list = list_text(where), c[16];
		if (move)
			snprintf(why, sizeof(why), "%s, but the device's %s interrupts at stake are under the volume "
				 "threshold (%s)", move, np_count_text(rule == NP_RULE_REMOTE || rule == NP_RULE_OUTSIDE
									? p->off_target[s->dev] : p->data_volume[s->dev], c),
				 np_count_text(p->opts->min_interrupts, buf));
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

/* The CPU for a device's next queue: a core below the device's cap and with
 * the fewest of its queues (distinct physical cores first), nearest, least
 * loaded by every device's queues, an SMT thread the device does not use
 * yet, where it runs now (nothing moves for nothing), the least loaded
 * thread, then the device's cursor. CPUs at the x86 vector budget are skipped while others remain. */
static int pick_cpu(struct planner *p, int dev, int home, int queue)
{
	int want = spread_node(p, dev, queue);
	const struct np_cpuset *t = &p->target[dev];
	int best = -1, pos = 0, bestrot = 0;
	unsigned size = np_cpuset_count(t);
	long long bestkey[9] = { 0 };
	np_cpuset_foreach(cpu, t) {
		int c = core_of(p, cpu);
		int rot = (int)(((unsigned)pos + size - (unsigned)p->start[dev] % size) % size);
		long long key[9] = { p->vectors[cpu] >= NP_VECTORS_PER_CPU, p->dcount[dev][c] >= p->cap[dev],
				     want >= 0 && np_topology_node_of_cpu(&p->m->topo, cpu) != want,
				     p->dcount[dev][c], distance(p, p->anchor[dev], cpu), p->core_load[c], p->dcpu[dev][cpu],
				     cpu != home, p->load[cpu] };
		pos++;
		int cmp = 0;
		for (int i = 0; i < 9 && !cmp && best >= 0; i++)
			cmp = key[i] < bestkey[i] ? -1 : key[i] > bestkey[i];
		if (best < 0 || cmp < 0 || (cmp == 0 && rot < bestrot)) {
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

static int place_slots(struct planner *p)
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
		char buf[200], why[400];
		enum np_rule_id rule;
		const char *move = why_move(p, s, buf, sizeof(buf), &rule);
		int cpu = pick_cpu(p, s->dev, home_cpu(slot_irq(p, s, 0)), s->queue);
		if (p->vectors[cpu] >= NP_VECTORS_PER_CPU && !p->budget_warned) {
			p->budget_warned = true;
			rc = warn(p->plan, "%s (%s): every CPU of its target already holds %d vectors: an x86 CPU has "
				  "about %d free; reduce the device's queues", m->pci.devs[s->dev].addr,
				  dev_label(&m->pci.devs[s->dev]), NP_VECTORS_PER_CPU, NP_VECTORS_PER_CPU);
		}
		count_on(p, s, cpu, 1);
		np_cpuset_clear(&one);
		int here = p->dcount[s->dev][core_of(p, cpu)];
		if (here > p->cap[s->dev])
			snprintf(why, sizeof(why), "%s; queue %d on a core holding %d of the device's queues: the "
				 "target's other CPUs are at the x86 vector budget", move ? move : "not placed yet",
				 s->queue, here);
		else if (p->cap[s->dev] > 1)
			snprintf(why, sizeof(why), "%s; queue %d on a core it shares with at most %d of the device's "
				 "queues (%d queues, %d core%s)", move ? move : "not placed yet", s->queue,
				 p->cap[s->dev] - 1, p->nqueues[s->dev], p->ncores[s->dev], p->ncores[s->dev] > 1 ? "s" : "");
		else
			snprintf(why, sizeof(why), "%s; queue %d on a core of its own (%d queue%s, %d core%s)",
				 move ? move : "not placed yet", s->queue, p->nqueues[s->dev],
				 p->nqueues[s->dev] > 1 ? "s" : "", p->ncores[s->dev], p->ncores[s->dev] > 1 ? "s" : "");
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
		rc = warn(p->plan, "CPU%s %s already hold%s %d vectors or more: an x86 CPU has about %d to give, so "
			  "the plan puts no queue there while other CPUs of the target have room, and spreads instead",
			  np_cpuset_count(&full) > 1 ? "s" : "", list ? list : "?", np_cpuset_count(&full) > 1 ? "" : "s",
			  NP_VECTORS_PER_CPU, NP_VECTORS_PER_CPU);
		free(list);
	}
	np_cpuset_free(&full);
	/* The rest (a device's only IRQ, admin, config and misc vectors) keep
	 * what they may of their CPUs, else take the whole target: they carry
	 * little, and the kernel picks one CPU in the set. */
	for (size_t k = 0; rc == 0 && k < p->nslots; k++) {
		struct slot *s = &p->slots[k];
		if (s->done)
			continue;
		char buf[200], why[400];
		enum np_rule_id rule;
		const char *move = why_move(p, s, buf, sizeof(buf), &rule);
		const struct np_irq *irq = slot_irq(p, s, 0);
		rc = np_cpuset_copy(&one, &p->target[s->dev]);
		int nvec = 0;
		for (size_t j = 0; j < p->m->irqs.n; j++)
			nvec += p->m->irqs.v[j].dev == s->dev;
		bool only = nvec == 1;
		const char *what = only ? "the device's only vector" : s->queue >= 0 ? "queue" : "not a queue vector";
		if (rc == 0 && irq->has_affinity && np_cpuset_intersects(&irq->affinity, &one)) {
			np_cpuset_and(&one, &irq->affinity);
			snprintf(why, sizeof(why), "%s; %s: the target's CPUs within its current affinity",
				 move ? move : "not placed", what);
		} else {
			snprintf(why, sizeof(why), "%s; %s: any CPU of the target, the kernel picks one",
				 move ? move : "not placed", what);
		}
		if (rc == 0)
			rc = record(p, s, &one, false, rule ? rule : NP_RULE_BALANCE, why);
	}
	np_cpuset_free(&one);
	free(order);
	return rc;
}

/* A device whose queues the plan places has every data vector pinned: one
 * kept within a mask wider than a core is set to the CPU the kernel delivers
 * it to, since within the mask the interrupt controller may pick another
 * and the device's other queues were placed around this one. */
static int pin_kept_queues(struct planner *p)
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
		if (!np_vector_balanced(&p->cls[ii]) || cpu < 0 || cpu > m->topo.max_cpu ||
		    np_cpuset_count(&irq->affinity) <= 1 || p->vectors[cpu] >= NP_VECTORS_PER_CPU)
			continue;
		char *reason, *value;
		if (asprintf(&value, "%d", cpu) < 0)
			return free(placing), -ENOMEM;
		if (asprintf(&reason, "pinned where it is delivered (CPU %d), the device's other queues placed around "
			     "it: a wider mask lets the interrupt controller move it: %s", cpu, p->target_why[r->dev]) < 0) {
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

/* Warnings about IRQs the plan cannot or does not move but should be known:
 * managed ones (the kernel owns them; on isolated CPUs only the kernel
 * command line helps), and affinities the kernel did not honour. */
static int irq_warnings(struct planner *p)
{
	const struct np_machine *m = p->m;
	const struct np_topology *topo = &m->topo;
	struct np_cpuset iso = NP_CPUSET_INIT, hit = NP_CPUSET_INIT;
	int rc = np_cpuset_copy(&iso, &topo->isolated);
	if (rc == 0)
		rc = np_cpuset_or(&iso, &topo->nohz_full);
	for (size_t di = 0; rc == 0 && di < m->pci.ndevs; di++) {
		const struct np_pci_dev *d = &m->pci.devs[di];
		if (!p->opts->devices[di].selected)
			continue;
		int nmanaged = 0, niso = 0;
		np_cpuset_clear(&hit);
		for (size_t i = 0; rc == 0 && i < m->irqs.n; i++) {
			const struct np_irq *irq = &m->irqs.v[i];
			if (irq->dev != (int)di)
				continue;
			if (irq->managed != NP_MANAGED_NO) {
				nmanaged++;
				if (irq->has_effective && np_cpuset_intersects(&irq->effective, &iso)) {
					niso++;
					rc = np_cpuset_or(&hit, &irq->effective);
				}
			}
			if (rc == 0 && irq->has_affinity && irq->has_effective && !np_cpuset_empty(&irq->effective) &&
			    !np_cpuset_subset(&irq->effective, &irq->affinity)) {
				char *eff = list_text(&irq->effective), *aff = list_text(&irq->affinity);
				rc = warn(p->plan, "irq %d %s (%s): affinity not honoured: it runs on CPU %s, outside its "
					  "affinity %s (usually no free vector there: see /proc/interrupts and debugfs)",
					  irq->irq, irq->name, d->addr, eff ? eff : "?", aff ? aff : "?");
				free(eff);
				free(aff);
			}
		}
		if (rc == 0 && nmanaged && !np_cpuset_empty(&p->target[di]))
			rc = note(p->plan, "%s (%s): %d managed IRQ%s left as they are: the kernel owns their placement",
				  d->addr, dev_label(d), nmanaged, nmanaged > 1 ? "s" : "");
		if (rc == 0 && niso) {
			np_cpuset_and(&hit, &iso);
			char *cpus = list_text(&hit), *all = list_text(&iso);
			if (m->managed_irq_isolation)
				rc = warn(p->plan, "%s (%s): %d managed IRQ%s on isolated CPUs %s although isolcpus= has "
					  "managed_irq: their queues serve only isolated CPUs, so they fire only for I/O "
					  "submitted there; keep the isolated application's I/O off this device or accept them",
					  d->addr, dev_label(d), niso, niso > 1 ? "s" : "", cpus ? cpus : "?");
			else
				rc = warn(p->plan, "%s (%s): %d managed IRQ%s on isolated CPUs %s: writing cannot move them; "
					  "boot with isolcpus=managed_irq,%s to keep them on housekeeping CPUs",
					  d->addr, dev_label(d), niso, niso > 1 ? "s" : "", cpus ? cpus : "?", all ? all : "?");
			free(cpus);
			free(all);
		}
	}
	np_cpuset_free(&iso);
	np_cpuset_free(&hit);
	return rc;
}

/* Where an IRQ will run once the plan is applied. */
static const struct np_cpuset *irq_cpus_after(const struct planner *p, size_t ii)
{
	const struct np_irq *irq = &p->m->irqs.v[ii];
	if (p->has_plan[ii])
		return &p->planned[ii];
	return irq->has_effective && !np_cpuset_empty(&irq->effective) ? &irq->effective : &irq->affinity;
}

int np_rq_affinity_decide(const struct np_rq_facts *f, const char **why)
{
	if (!f->pinned) {
		*why = "submitters not pinned: forcing completion on them cost 14% IOPS with scheduler-placed "
		       "processes (Alan D. Brunelle, linux-kernel, 2008-04-15, 16-way IA64: 47.8 -> 41.0 K ios/s)";
		return -1;
	}
	if (f->per_cpu_queues) {
		*why = "a hardware queue per CPU: completions already return to the submitting CPU's queue";
		return -1;
	}
	if (f->irq_on_submitters) {
		*why = "the completion IRQ runs on the submitters' CPUs: forcing it gained nothing "
		       "(Alan D. Brunelle, linux-kernel, 2008-04-15, 4-way IA64: 12.312 vs 12.314 K ios/s)";
		return -1;
	}
	if (f->shares_l3) {
		*why = "the completion CPUs share an L3 cache with the submitters: 1 completes there already";
		return -1;
	}
	*why = "submitters pinned outside the L3 of the completion IRQ, one queue for them all: 2 completes "
	       "each request on the submitting CPU itself, 1 on any CPU sharing its cache (2008's "
	       "rq_affinity=1 is today's 2); Alan D. Brunelle, linux-kernel, 2008-04-15, 16-way IA64: +12.9% "
	       "IOPS (39.8 -> 45.0 K ios/s) with "
	       "pinned submitters off the IRQ CPUs";
	return 2;
}

static int block_recs(struct planner *p, size_t di)
{
	const struct np_machine *m = p->m;
	const struct np_device_policy *pol = &p->opts->devices[di];
	const struct np_pci_dev *d = &m->pci.devs[di];
	struct np_cpuset completions = NP_CPUSET_INIT, near = NP_CPUSET_INIT;
	int rc = 0;
	if (pol->rq_affinity == NP_RQ_KEEP || d->nblock == 0)
		return 0;
	/* I/O completes on queue vectors; admin and config vectors do not count
	 * unless the device has nothing else. */
	bool has_queues = false, managed = false;
	for (size_t i = 0; i < m->irqs.n; i++) {
		has_queues |= m->irqs.v[i].dev == (int)di && m->irqs.v[i].queue >= 0;
		managed |= m->irqs.v[i].dev == (int)di && m->irqs.v[i].managed != NP_MANAGED_NO;
	}
	for (size_t i = 0; i < m->irqs.n && rc == 0; i++)
		if (m->irqs.v[i].dev == (int)di && (!has_queues || m->irqs.v[i].queue >= 0))
			rc = np_cpuset_or(&completions, irq_cpus_after(p, i));
	if (rc == 0)
		rc = np_l3_cover(&m->l3, &completions, &near);
	const struct np_cpuset *submit = &p->opts->app_cpus;
	for (size_t b = 0; b < d->nblock && rc == 0; b++) {
		const struct np_blockdev *bd = &d->block[b];
		struct np_rec r = { .kind = NP_ATTR_RQ_AFFINITY, .dev = (int)di, .irq = -1, .queue = -1, .block = bd->name,
				    .rule = NP_RULE_RQ_AFFINITY };
		int want;
		const char *why;
		if (pol->rq_affinity >= 0) {
			want = pol->rq_affinity;
			why = "the profile asks for it";
		} else {
			struct np_rq_facts f = {
				.pinned = p->opts->app_pinned && !np_cpuset_empty(submit),
				.irq_on_submitters = np_cpuset_intersects(&completions, submit),
				.shares_l3 = np_cpuset_intersects(&near, submit),
				.per_cpu_queues = bd->nhwq > 1 && (managed || (unsigned)bd->nhwq >= np_cpuset_count(submit)),
			};
			want = np_rq_affinity_decide(&f, &why);
			if (want < 0)
				continue;
		}
		if (bd->rq_affinity >= 0 && asprintf(&r.current, "%d", bd->rq_affinity) < 0)
			r.current = NULL;
		if (asprintf(&r.recommended, "%d", want) < 0)
			r.recommended = NULL;
		r.reason = strdup(why);
		rc = add_rec(p->m, p->plan, &r);
	}
	np_cpuset_free(&completions);
	np_cpuset_free(&near);
	return rc;
}

/* The device's data vector serving a queue: a transmit or combined one for
 * XPS, a receive or combined one for RPS; -1 when none. */
static int queue_irq(const struct planner *p, size_t di, int queue, bool tx)
{
	for (size_t i = 0; i < p->m->irqs.n; i++) {
		const struct np_vector_class *c = &p->cls[i];
		if (p->m->irqs.v[i].dev != (int)di || c->role != NP_ROLE_DATA || c->queue != queue)
			continue;
		if (c->dir == NP_VEC_COMBINED || c->dir == (tx ? NP_VEC_TX : NP_VEC_RX))
			return (int)i;
	}
	return -1;
}

static int net_rec(struct planner *p, enum np_attr kind, size_t di, const struct np_netif *nif, int q,
		   const struct np_cpuset *cur, const struct np_cpuset *want, const char *why)
{
	struct np_rec r = { .kind = kind, .dev = (int)di, .irq = -1, .queue = q, .net = nif->name,
			    .rule = kind == NP_ATTR_XPS_CPUS ? NP_RULE_XPS : NP_RULE_RPS };
	r.current = cur ? list_text(cur) : NULL;
	r.recommended = list_text(want);
	r.reason = strdup(why);
	return add_rec(p->m, p->plan, &r);
}

/* Whether the plan changes any of the device's IRQs. */
static bool irqs_move(const struct planner *p, size_t di)
{
	for (size_t i = 0; i < p->plan->n; i++)
		if (p->plan->v[i].kind == NP_ATTR_IRQ_AFFINITY && p->plan->v[i].dev == (int)di && p->plan->v[i].change)
			return true;
	return false;
}

/* How near CPU a is to CPU b, for XPS: the same CPU, an SMT sibling, a
 * shared L3, the same node, then by node distance. */
static int nearness(const struct planner *p, int a, int b)
{
	const struct np_machine *m = p->m;
	if (a == b)
		return 0;
	if (core_of(p, a) == core_of(p, b))
		return 1;
	const struct np_l3 *l3 = &m->l3;
	if (a <= l3->max_cpu && b <= l3->max_cpu && l3->of_cpu[a] >= 0 && l3->of_cpu[a] == l3->of_cpu[b])
		return 2;
	int na = np_topology_node_of_cpu(&m->topo, a), nb = np_topology_node_of_cpu(&m->topo, b);
	if (na == nb)
		return 3;
	int d = np_topology_distance(&m->topo, na, nb);
	return 4 + (d < 0 ? 255 : d);
}

/* The CPU serving a queue's interrupt once the plan is applied, -1 when that
 * is not one CPU (a mask the kernel picks within, delivery unknown). */
static int serving_cpu(const struct planner *p, int ii)
{
	if (ii < 0)
		return -1;
	const struct np_cpuset *after = irq_cpus_after(p, (size_t)ii);
	return np_cpuset_count(after) == 1 ? np_cpuset_next(after, 0) : -1;
}

/* Whether today's XPS already follows interrupts that stay where they are:
 * no housekeeping CPU in two queues, each mapped CPU in one of its nearest
 * queues. CPUs left out are no problem on their own (drivers map only the
 * queues' own CPUs; the others hash over the queues): with nothing moving,
 * a working map is not churned. */
static bool xps_agrees(const struct planner *p, const struct np_netif *nif, const int *serve)
{
	struct np_cpuset seen = NP_CPUSET_INIT;
	bool agrees = true;
	for (int q = 0; agrees && q < nif->ntx; q++) {
		if (!nif->xps_known[q])
			continue;
		/* The CPU serving a queue's interrupt sends on that queue (the first
		 * such queue, when it serves several). */
		int first = 0;
		while (serve[q] >= 0 && first < q && serve[first] != serve[q])
			first++;
		if (serve[q] >= 0 && first == q && np_cpuset_test(&p->usable, (unsigned)serve[q]) &&
		    !np_cpuset_test(&nif->xps[q], (unsigned)serve[q]))
			agrees = false;
		np_cpuset_foreach(cpu, &nif->xps[q]) {
			if (!agrees || cpu > p->m->topo.max_cpu || !np_cpuset_test(&p->usable, (unsigned)cpu))
				continue;
			if (serve[q] < 0 || np_cpuset_test(&seen, (unsigned)cpu) || np_cpuset_set(&seen, (unsigned)cpu)) {
				agrees = false;
				continue;
			}
			int near = nearness(p, cpu, serve[q]);
			for (int o = 0; agrees && o < nif->ntx; o++)
				agrees = serve[o] < 0 || nearness(p, cpu, serve[o]) >= near;
		}
	}
	np_cpuset_free(&seen);
	return agrees;
}

/* XPS as the kernel's scaling.rst suggests it: each housekeeping CPU maps
 * onto exactly one transmit queue, the queue whose interrupt is served on
 * that CPU or on its nearest core (a shared cache first), so transmit
 * completions stay where the sends happened; ties go to the queue with the
 * fewest CPUs so far. A queue with no interrupt of its own (XDP) gets none.
 * Left alone when some queue's interrupt has no one CPU to follow. */
static int xps_recs(struct planner *p, size_t di, const struct np_netif *nif)
{
	int *serve = calloc((size_t)nif->ntx + 1, sizeof(int)), *nassigned = calloc((size_t)nif->ntx + 1, sizeof(int));
	struct np_cpuset *want = calloc((size_t)nif->ntx + 1, sizeof(*want));
	int rc = serve && nassigned && want ? 0 : -ENOMEM, ncand = 0;
	bool followed = true; /* every queue with an interrupt has one CPU serving it */
	bool moved = false;   /* some queue's interrupt moves */
	for (int q = 0; rc == 0 && q < nif->ntx; q++) {
		int ii = queue_irq(p, di, q, true);
		serve[q] = nif->xps_known[q] ? serving_cpu(p, ii) : -1;
		followed &= ii < 0 || !nif->xps_known[q] || serve[q] >= 0;
		moved |= serve[q] >= 0 && serve[q] != home_cpu(&p->m->irqs.v[ii]);
		ncand += serve[q] >= 0;
	}
	if (!followed || (!moved && xps_agrees(p, nif, serve)))
		ncand = 0;
	/* The serving CPUs first (each to its queue, the first queue when two
	 * share one), so that the ties below count them. */
	struct np_cpuset served = NP_CPUSET_INIT;
	for (int q = 0; rc == 0 && ncand > 1 && q < nif->ntx; q++) {
		if (serve[q] < 0 || !np_cpuset_test(&p->usable, (unsigned)serve[q]) ||
		    np_cpuset_test(&served, (unsigned)serve[q]))
			continue;
		if ((rc = np_cpuset_set(&served, (unsigned)serve[q])) == 0 &&
		    (rc = np_cpuset_set(&want[q], (unsigned)serve[q])) == 0)
			nassigned[q]++;
	}
	np_cpuset_foreach(cpu, &p->usable) {
		int best = -1, bestnear = 0;
		if (rc || ncand < 2 || np_cpuset_test(&served, (unsigned)cpu))
			continue;
		for (int q = 0; q < nif->ntx; q++) {
			if (serve[q] < 0)
				continue;
			int near = nearness(p, cpu, serve[q]);
			if (best < 0 || near < bestnear || (near == bestnear && nassigned[q] < nassigned[best])) {
				best = q;
				bestnear = near;
			}
		}
		if ((rc = np_cpuset_set(&want[best], (unsigned)cpu)) == 0)
			nassigned[best]++;
	}
	np_cpuset_free(&served);
	for (int q = 0; rc == 0 && ncand > 1 && q < nif->ntx; q++) {
		if (!nif->xps_known[q])
			continue;
		char *why = NULL;
		int first = 0;
		while (serve[q] >= 0 && first < q && serve[first] != serve[q])
			first++;
		if (serve[q] < 0)
			why = strdup("no interrupt of its own to follow: no CPU transmits on it by XPS");
		else if (np_cpuset_empty(&want[q]) && asprintf(&why, "its interrupt's CPU %d transmits on queue %d, "
							      "whose interrupt it also serves", serve[q], first) < 0)
			why = NULL;
		else if (!np_cpuset_empty(&want[q]))
			why = strdup("each housekeeping CPU transmits on one queue, the one whose interrupt is served on "
				     "it or on its nearest core (kernel Documentation/networking/scaling.rst, XPS)");
		rc = why ? net_rec(p, NP_ATTR_XPS_CPUS, di, nif, q, &nif->xps[q], &want[q], why) : -ENOMEM;
		free(why);
	}
	for (int q = 0; want && q < nif->ntx; q++)
		np_cpuset_free(&want[q]);
	free(want);
	free(serve);
	free(nassigned);
	return rc;
}

/* Physical cores among cpus. */
static unsigned count_cores(struct planner *p, const struct np_cpuset *cpus, int mark)
{
	unsigned n = 0;
	np_cpuset_foreach(cpu, cpus) {
		int c = core_of(p, cpu);
		if (c <= p->m->topo.max_cpu && p->stamp[c] != mark) {
			p->stamp[c] = mark;
			n++;
		}
	}
	return n;
}

/* One queue per node with CPUs, asked for with --channels per-node: the
 * layout Tom Herbert measured best in 2009, a judgement today (see the
 * reason). ethtool -L re-creates the vectors on some drivers, so the plan
 * is re-made afterwards. */
static int channels_rec(struct planner *p, size_t di, const struct np_netif *nif)
{
	int nodes = 0;
	for (int i = 0; i < p->m->topo.nnodes; i++)
		nodes += np_cpuset_intersects(&p->m->topo.nodes[i].cpus, &p->usable);
	if (nodes < 2 || p->nqueues[di] <= nodes)
		return 0;
	struct np_rec r = { .kind = NP_ATTR_CHANNELS, .dev = (int)di, .irq = -1, .queue = -1, .net = nif->name,
			    .rule = NP_RULE_CHANNELS };
	if (asprintf(&r.current, "%d", p->nqueues[di]) < 0)
		r.current = NULL;
	if (asprintf(&r.recommended, "%d", nodes) < 0)
		r.recommended = NULL;
	if (asprintf(&r.reason, "judgement, on request (--channels per-node): one queue per node; Tom Herbert, "
		     "netdev, 2009-11-24: 4 RX queues, one per socket, 361862 tps against 226722 with 16, one per "
		     "CPU, measured while receive buffers were allocated on the device's node, which Linux changed "
		     "soon after (2.6.37); the same mail measured 923422 tps with local allocation; then re-run "
		     "advise") < 0)
		r.reason = NULL;
	return add_rec(p->m, p->plan, &r);
}

static int net_recs(struct planner *p, size_t di)
{
	const struct np_machine *m = p->m;
	const struct np_device_policy *pol = &p->opts->devices[di];
	const struct np_pci_dev *d = &m->pci.devs[di];
	struct np_cpuset off = NP_CPUSET_INIT, rps_to = NP_CPUSET_INIT;
	int rc = np_cpuset_copy(&rps_to, &p->opts->app_cpus);
	np_cpuset_and(&rps_to, &p->usable);
	unsigned app_cores = count_cores(p, &rps_to, -2 - (int)di);

	for (size_t k = 0; k < d->nnet && rc == 0; k++) {
		const struct np_netif *nif = &d->net[k];
		/* XPS only where the plan pins the same queue's IRQ to one CPU, and
		 * only with a choice of queues to make; and only for a device
		 * whose IRQs move or whose traffic is worth a change. */
		bool xps_worth = irqs_move(p, di) || p->data_volume[di] >= p->opts->min_interrupts;
		if (nif->ntx > 1 && xps_worth && (pol->xps_follow_irq || pol->auto_net))
			rc = xps_recs(p, di, nif);
		if (rc == 0 && p->opts->channels_per_node && pol->auto_net && k == 0)
			rc = channels_rec(p, di, nif);
		enum np_rps_policy rps = pol->rps;
		const char *why = NULL;
		unsigned usable_here = np_cpuset_count(&p->target[di]) ? np_cpuset_count(&p->target[di])
									: np_cpuset_count(&p->usable);
		if (rps == NP_RPS_OFF) {
			why = "the profile turns RPS off";
		} else if (rps == NP_RPS_APP) {
			why = "the profile steers receive processing to the application's CPUs";
		} else if (pol->auto_net && nif->nrx > 0 && (unsigned)nif->nrx >= usable_here) {
			rps = NP_RPS_OFF;
			why = "a hardware queue per usable CPU: RPS would only add a hop between CPUs";
		} else if (pol->auto_net && app_cores && nif->nrx > 0 && (unsigned)nif->nrx < app_cores) {
			rps = NP_RPS_APP;
			why = "fewer receive queues than the application's cores: RPS spreads receive processing "
			      "over them";
		}
		const struct np_cpuset *to = rps == NP_RPS_OFF ? &off : rps == NP_RPS_APP && pol->auto_net ? &rps_to
													      : &p->opts->app_cpus;
		for (int q = 0; q < nif->nrx && rc == 0 && rps != NP_RPS_KEEP; q++)
			rc = net_rec(p, NP_ATTR_RPS_CPUS, di, nif, q, &nif->rps[q], to, why);
	}
	np_cpuset_free(&rps_to);
	return rc;
}

/* One node with CPUs and one L3 domain: no CPU is nearer to a device than another. */
static bool flat_machine(const struct np_machine *m)
{
	int nodes = 0;
	for (int i = 0; i < m->topo.nnodes; i++)
		nodes += !np_cpuset_empty(&m->topo.nodes[i].cpus);
	return nodes <= 1 && m->l3.n <= 1;
}

static int by_impact(const void *a, const void *b)
{
	const struct np_rec *x = a, *y = b;
	if (x->kind != y->kind)
		return (int)x->kind - (int)y->kind;
	if (x->impact != y->impact)
		return x->impact > y->impact ? -1 : 1;
	return 0;
}

const char *np_effective_note(const struct np_machine *m, const struct np_advise_opts *opts)
{
	for (size_t i = 0; i < m->irqs.n; i++) {
		const struct np_irq *irq = &m->irqs.v[i];
		if (irq->dev >= 0 && opts->devices && opts->devices[irq->dev].selected && irq->has_affinity &&
		    !irq->has_effective)
			return "effective_affinity is absent here (kernels before 4.13): where an IRQ is delivered is "
			       "judged on its mask (one CPU is where it runs; within a wider mask the interrupt "
			       "controller picks)";
	}
	return NULL;
}

static int general_warnings(struct planner *p)
{
	int rc = 0;
	const char *eff = np_effective_note(p->m, p->opts);
	if (eff)
		rc = note(p->plan, "%s", eff);
	if (rc == 0 && np_cpuset_empty(&p->usable))
		rc = warn(p->plan, "no usable CPU: every online CPU is isolated, nohz_full or excluded");
	if (rc == 0 && p->flat)
		rc = note(p->plan, "one NUMA node and one L3 cache domain: no CPU is nearer to a device than another, "
			  "so only a device's queues stacked on one core move (to cores of their own), and IRQs on "
			  "CPUs the plan forbids");
	return rc;
}

/* irqbalance matters only to a plan that moves IRQs. */
static int irqbalance_warning(struct planner *p)
{
	const struct np_machine *m = p->m;
	bool moves = false;
	for (size_t i = 0; i < p->plan->n && !moves; i++)
		moves = p->plan->v[i].kind == NP_ATTR_IRQ_AFFINITY && p->plan->v[i].change;
	if (!moves)
		return 0;
	if (m->irqbalance)
		return warn(p->plan, "irqbalance is running and will undo this IRQ placement within seconds: ban the IRQs "
			    "(IRQBALANCE_ARGS=\"--banirq=N ...\" in /etc/default/irqbalance, or /etc/sysconfig/irqbalance "
			    "on the RHEL family, or a --policyscript printing ban=yes) or stop it");
	if (!m->irqbalance_known)
		return warn(p->plan, "irqbalance: state unknown (no process information here): if it runs, ban the "
			    "placed IRQs (--banirq=N in IRQBALANCE_ARGS of /etc/default/irqbalance or "
			    "/etc/sysconfig/irqbalance) or it will undo them");
	return 0;
}

/* Every IRQ requested from now on (a driver loaded, a device hot-plugged,
 * a queue added) starts on default_smp_affinity. When that includes CPUs
 * the plan keeps free of IRQs, they get interrupts until someone notices:
 * recommend the usable (housekeeping) CPUs. Otherwise nothing. */
static int default_irq_rec(struct planner *p)
{
	const struct np_machine *m = p->m;
	const struct np_irqs *irqs = &m->irqs;
	struct np_cpuset bad = NP_CPUSET_INIT;
	if (!irqs->has_default_affinity || np_cpuset_empty(&p->usable))
		return 0;
	int rc = np_cpuset_copy(&bad, &irqs->default_affinity);
	np_cpuset_and(&bad, &m->topo.online);
	np_cpuset_andnot(&bad, &p->usable);
	if (rc == 0 && !np_cpuset_empty(&bad)) {
		struct np_rec r = { .kind = NP_ATTR_DEFAULT_IRQ_AFFINITY, .dev = -1, .irq = -1, .queue = -1,
				    .rule = NP_RULE_DEFAULT_AFFINITY };
		const struct np_cpuset *why_set[] = { &m->topo.isolated, &m->topo.nohz_full, &p->opts->exclude };
		static const char *const why_name[] = { "isolated", "nohz_full", "excluded" };
		char why[48] = "";
		for (size_t i = 0; i < 3; i++)
			if (np_cpuset_intersects(&bad, why_set[i]))
				snprintf(why + strlen(why), sizeof(why) - strlen(why), "%s%s", *why ? ", " : "",
					 why_name[i]);
		char *list = list_text(&bad);
		r.current = list_text(&irqs->default_affinity);
		r.recommended = list_text(&p->usable);
		if (!list || asprintf(&r.reason, "new IRQs would start on CPUs %s (%s): start them on the usable CPUs",
				      list, why) < 0)
			r.reason = NULL;
		free(list);
		rc = add_rec(p->m, p->plan, &r);
	}
	np_cpuset_free(&bad);
	return rc;
}

int np_advise(const struct np_machine *m, const struct np_advise_opts *opts, struct np_plan *out)
{
	memset(out, 0, sizeof(*out));
	struct planner p = { .m = m, .opts = opts, .plan = out };
	size_t ncpu = (size_t)m->topo.max_cpu + 1, ndev = m->pci.ndevs + 1;
	p.load = calloc(ncpu, sizeof(int));
	p.core_of = malloc(ncpu * sizeof(int));
	p.core_load = calloc(ncpu, sizeof(int));
	p.vectors = calloc(ncpu, sizeof(int));
	p.stamp = calloc(ncpu, sizeof(int));
	p.target = calloc(ndev, sizeof(*p.target));
	p.target_why = calloc(ndev, sizeof(char *));
	p.anchor = calloc(ndev, sizeof(int));
	p.nqueues = calloc(ndev, sizeof(int));
	p.ncores = calloc(ndev, sizeof(int));
	p.cap = calloc(ndev, sizeof(int));
	p.start = calloc(ndev, sizeof(int));
	p.dcount = calloc(ndev, sizeof(int *));
	p.dcpu = calloc(ndev, sizeof(int *));
	p.dtoday = calloc(ndev, sizeof(int *));
	p.planned = calloc(m->irqs.n + 1, sizeof(*p.planned));
	p.has_plan = calloc(m->irqs.n + 1, sizeof(bool));
	p.cls = calloc(m->irqs.n + 1, sizeof(*p.cls));
	p.off_target = calloc(ndev, sizeof(*p.off_target));
	p.data_volume = calloc(ndev, sizeof(*p.data_volume));
	int rc = p.load && p.core_of && p.core_load && p.vectors && p.stamp && p.target && p.target_why && p.anchor &&
				 p.nqueues && p.ncores && p.cap && p.start && p.dcount && p.dcpu && p.dtoday && p.planned && p.has_plan &&
				 p.off_target && p.data_volume && p.cls
			 ? 0
			 : -ENOMEM;
	if (rc == 0) {
		for (size_t c = 0; c < ncpu; c++)
			p.core_of[c] = -1;
		for (size_t i = 0; i < m->irqs.n; i++)
			np_vector_classify(m->irqs.v[i].name, &p.cls[i]);
		for (size_t i = 0; i < m->irqs.n; i++) {
			int cpu = home_cpu(&m->irqs.v[i]);
			if (cpu >= 0 && (size_t)cpu < ncpu)
				p.vectors[cpu]++;
		}
		p.flat = flat_machine(m);
		rc = np_usable_cpus(&m->topo, &opts->exclude, &p.usable);
		/* Every target is within usable: no CPU past the per-CPU arrays. */
		for (int c = np_cpuset_next(&p.usable, m->topo.max_cpu + 1); rc == 0 && c >= 0;
		     c = np_cpuset_next(&p.usable, c + 1))
			np_cpuset_unset(&p.usable, (unsigned)c);
	}
	if (rc == 0)
		rc = general_warnings(&p);
	if (rc == 0) {
		index_cores(&p);
		rc = choose_targets(&p);
	}
	if (rc == 0)
		rc = build_slots(&p);
	if (rc == 0)
		rc = size_devices(&p);
	if (rc == 0)
		rc = weigh_devices(&p);
	/* Queues the plan does not place (other devices', managed ones) still
	 * load their CPUs: balance against them too. */
	for (size_t i = 0; rc == 0 && i < m->irqs.n; i++) {
		const struct np_irq *irq = &m->irqs.v[i];
		int cpu = home_cpu(irq);
		if (irq->queue < 0 || cpu < 0 || (size_t)cpu >= ncpu ||
		    (irq->dev >= 0 && !np_cpuset_empty(&p.target[irq->dev]) && irq->managed == NP_MANAGED_NO))
			continue;
		p.load[cpu]++;
		p.core_load[core_of(&p, cpu)]++;
	}
	if (rc == 0)
		rc = keep_slots(&p);
	if (rc == 0)
		rc = place_slots(&p);
	if (rc == 0)
		rc = pin_kept_queues(&p);
	if (rc == 0)
		rc = irqbalance_warning(&p);
	if (rc == 0)
		rc = irq_warnings(&p);
	for (size_t di = 0; rc == 0 && di < m->pci.ndevs; di++) {
		if (!opts->devices[di].selected)
			continue;
		if ((rc = block_recs(&p, di)) == 0)
			rc = net_recs(&p, di);
	}
	if (rc == 0 && !opts->devices_only)
		rc = default_irq_rec(&p);
	if (rc == 0 && out->n)
		qsort(out->v, out->n, sizeof(*out->v), by_impact);
	for (size_t i = 0; p.target && i < m->pci.ndevs; i++) {
		np_cpuset_free(&p.target[i]);
		free(p.target_why[i]);
		if (p.dcount)
			free(p.dcount[i]);
		if (p.dcpu)
			free(p.dcpu[i]);
		if (p.dtoday)
			free(p.dtoday[i]);
	}
	for (size_t i = 0; p.planned && i < m->irqs.n; i++)
		np_cpuset_free(&p.planned[i]);
	np_cpuset_free(&p.usable);
	free(p.load);
	free(p.core_of);
	free(p.core_load);
	free(p.vectors);
	free(p.stamp);
	free(p.target);
	free(p.target_why);
	free(p.anchor);
	free(p.nqueues);
	free(p.ncores);
	free(p.cap);
	free(p.start);
	free(p.dcount);
	free(p.dcpu);
	free(p.dtoday);
	free(p.planned);
	free(p.has_plan);
	free(p.cls);
	free(p.off_target);
	free(p.data_volume);
	free(p.refs);
	free(p.slots);
	if (rc)
		np_plan_free(out);
	return rc;
}

void np_plan_free(struct np_plan *plan)
{
	for (size_t i = 0; i < plan->n; i++) {
		free(plan->v[i].current);
		free(plan->v[i].recommended);
		free(plan->v[i].reason);
	}
	free(plan->v);
	for (size_t i = 0; i < plan->nwarnings; i++)
		free(plan->warnings[i]);
	free(plan->warnings);
	for (size_t i = 0; i < plan->nnotes; i++)
		free(plan->notes[i]);
	free(plan->notes);
	memset(plan, 0, sizeof(*plan));
}

int np_plan_to_profile(const struct np_machine *m, const struct np_plan *plan, const char *name,
		       const char *description, struct np_profile *out)
{
	memset(out, 0, sizeof(*out));
	out->app_node = -1;
	out->name = strdup(name);
	out->description = strdup(description);
	out->settings = calloc(plan->n + 1, sizeof(*out->settings));
	if (!out->name || !out->description || !out->settings) {
		np_profile_free(out);
		return -ENOMEM;
	}
	bool oom = false;
	for (size_t i = 0; i < plan->n; i++) {
		const struct np_rec *r = &plan->v[i];
		if (np_attrs[r->kind].command)
			continue; /* advice only: ethtool, not a profile setting */
		/* The setting's target class names the target stably (target.h). */
		struct np_target t = { .irq = r->irq, .queue = r->queue, .net = r->net, .block = r->block,
				       .device = r->dev >= 0 ? m->pci.devs[r->dev].addr : NULL, .vector = r->vector };
		if (np_setting_make(m, r->kind, &t, r->recommended, i, &out->settings[out->nsettings]))
			oom = true;
		else
			out->nsettings++;
	}
	if (oom) {
		np_profile_free(out);
		return -ENOMEM;
	}
	return 0;
}

int np_process_cpus(struct np_ctx *ctx, int pid, struct np_cpuset *out)
{
	char *status;
	int rc = np_read_text(ctx, &status, "/proc/%d/status", pid);
	if (rc)
		/* ctx->err is the message's own buffer: say it anew. */
		return rc == -ENOENT ? np_fail(ctx, rc, "no process %d ('%s/proc/%d/status' is absent)", pid, ctx->root, pid)
				     : rc;
	const char *line = strstr(status, "\nCpus_allowed_list:");
	if (line) {
		line += strlen("\nCpus_allowed_list:");
		size_t len = strcspn(line, "\n");
		char *list = strndup(line, len);
		rc = list ? np_cpuset_parse_list(out, list) : -ENOMEM;
		free(list);
	}
	free(status);
	if (!line || rc)
		return np_fail(ctx, -EINVAL, "'%s/proc/%d/status': no readable Cpus_allowed_list", ctx->root, pid);
	return 0;
}

int np_app_cpus(struct np_ctx *ctx, const struct np_topology *topo, const char *cpus, int node, int pid,
		struct np_cpuset *out)
{
	if (cpus) {
		if (np_cpuset_parse_list(out, cpus) || np_cpuset_empty(out))
			return np_fail(ctx, -EINVAL, "--app-cpus: '%s' is not a CPU list such as 0-3,8", cpus);
		return 0;
	}
	if (node >= 0) {
		const struct np_node *n = np_topology_node(topo, node);
		if (!n)
			return np_fail(ctx, -EINVAL, "--app-node: there is no node %d", node);
		if (np_cpuset_empty(&n->cpus))
			return np_fail(ctx, -EINVAL, "--app-node: node %d has no CPUs (memory only)", node);
		return np_cpuset_copy(out, &n->cpus);
	}
	return pid >= 0 ? np_process_cpus(ctx, pid, out) : 0;
}
