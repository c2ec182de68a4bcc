#include "advise.h"

#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "sysfs.h"

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

/* Working state of one advise run. */
struct planner {
	const struct np_machine *m;
	const struct np_advise_opts *opts;
	struct np_plan *plan;
	struct np_cpuset usable;
	int *load;          /* vectors placed per CPU */
	int *core_of;       /* CPU -> index of its physical core */
	int *core_load;     /* vectors placed per core */
	struct np_cpuset *target;  /* per device: where its IRQs go (empty: leave them) */
	char **target_why;         /* per device: the reason's second half */
	struct np_cpuset *planned; /* per IRQ (index into m->irqs.v): the CPUs planned for it */
	bool *has_plan;
};

static int warn(struct np_plan *plan, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
static int warn(struct np_plan *plan, const char *fmt, ...)
{
	char **more = realloc(plan->warnings, (plan->nwarnings + 1) * sizeof(*more));
	if (!more)
		return -ENOMEM;
	plan->warnings = more;
	va_list ap;
	va_start(ap, fmt);
	int n = vasprintf(&more[plan->nwarnings], fmt, ap);
	va_end(ap);
	if (n < 0)
		return -ENOMEM;
	plan->nwarnings++;
	return 0;
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

/* Adds a recommendation; takes ownership of current, recommended and reason. */
static int add_rec(struct np_plan *plan, struct np_rec *r)
{
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
	plan->v[plan->n++] = *r;
	return 0;
}

/* Unique (package, core) pairs get one index each, so SMT siblings share it. */
static int index_cores(struct planner *p)
{
	const struct np_topology *t = &p->m->topo;
	for (int i = 0; i < t->ncpus; i++) {
		const struct np_cpu *c = &t->cpus[i];
		int idx = -1;
		np_cpuset_foreach(sib, &c->siblings) {
			if (sib < c->id && p->core_of[sib] >= 0) {
				idx = p->core_of[sib];
				break;
			}
		}
		p->core_of[c->id] = idx >= 0 ? idx : c->id;
	}
	return 0;
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
			} else if (asprintf(&why, "node %d, the device's node%s", node,
					    inferred ? " (inferred from its local CPUs)" : "") < 0) {
				why = NULL;
			}
			break;
		case NP_IRQS_APP:
			rc = np_cpuset_copy(t, &p->opts->app_cpus);
			np_cpuset_and(t, &p->usable);
			why = strdup("the application's CPUs: completions run where the work is");
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

/* Rank of a CPU within a device's target set: nearest nodes first (spread),
 * then CPU number. */
static int rank(const struct planner *p, int dev_node, int cpu)
{
	int node = np_topology_node_of_cpu(&p->m->topo, cpu);
	int d = dev_node >= 0 ? np_topology_distance(&p->m->topo, dev_node, node) : 0;
	return (d < 0 ? 255 : d) * (p->m->topo.max_cpu + 1) + cpu;
}

/* The least loaded core first, then the least loaded thread in it: one vector
 * per physical core before any SMT sibling gets a second. */
static int pick_cpu(const struct planner *p, const struct np_cpuset *t, int dev_node)
{
	int best = -1;
	np_cpuset_foreach(cpu, t) {
		if (best < 0) {
			best = cpu;
			continue;
		}
		int cl = p->core_load[p->core_of[cpu]], bl = p->core_load[p->core_of[best]];
		if (cl != bl ? cl < bl
			     : p->load[cpu] != p->load[best] ? p->load[cpu] < p->load[best]
							     : rank(p, dev_node, cpu) < rank(p, dev_node, best))
			best = cpu;
	}
	return best;
}

struct vector_ref {
	size_t irq;  /* index into m->irqs.v */
	int dev;
	int queue;
};

static int by_queue_then_device(const void *a, const void *b)
{
	const struct vector_ref *x = a, *y = b;
	if (x->queue != y->queue)
		return x->queue - y->queue;
	if (x->dev != y->dev)
		return x->dev - y->dev;
	return (int)x->irq - (int)y->irq;
}

static int irq_rec(struct planner *p, size_t ii, const struct np_cpuset *cpus, const char *what)
{
	const struct np_irq *irq = &p->m->irqs.v[ii];
	int di = irq->dev;
	struct np_rec r = { .kind = NP_ATTR_IRQ_AFFINITY, .dev = di, .irq = irq->irq, .queue = irq->queue,
			    .vector = irq->name };
	r.current = irq->has_affinity ? list_text(&irq->affinity) : NULL;
	r.recommended = list_text(cpus);
	if (asprintf(&r.reason, "%s: %s", what, p->target_why[di]) < 0)
		r.reason = NULL;
	p->has_plan[ii] = true;
	int rc = np_cpuset_copy(&p->planned[ii], cpus);
	return rc ? rc : add_rec(p->plan, &r);
}

static int place_irqs(struct planner *p)
{
	const struct np_machine *m = p->m;
	struct vector_ref *queues = calloc(m->irqs.n + 1, sizeof(*queues));
	struct np_cpuset one = NP_CPUSET_INIT;
	size_t nq = 0;
	int rc = queues ? 0 : -ENOMEM;
	int *nvectors = calloc(m->pci.ndevs + 1, sizeof(int)), *nmanaged = calloc(m->pci.ndevs + 1, sizeof(int));
	if (!nvectors || !nmanaged)
		rc = -ENOMEM;

	for (size_t i = 0; rc == 0 && i < m->irqs.n; i++) {
		const struct np_irq *irq = &m->irqs.v[i];
		if (irq->dev < 0 || np_cpuset_empty(&p->target[irq->dev]))
			continue;
		/* Managed vectors count: a device whose only movable vector is its
		 * admin queue still has one CPU for it, not a whole node. */
		nvectors[irq->dev]++;
		if (irq->managed != NP_MANAGED_NO) {
			nmanaged[irq->dev]++;
			continue;
		}
		if (irq->queue >= 0)
			queues[nq++] = (struct vector_ref){ i, irq->dev, irq->queue };
	}
	for (size_t di = 0; rc == 0 && di < m->pci.ndevs; di++)
		if (nmanaged[di])
			rc = warn(p->plan, "%s (%s): %d managed IRQ%s left as they are: the kernel owns their placement",
				  m->pci.devs[di].addr, dev_label(&m->pci.devs[di]), nmanaged[di], nmanaged[di] > 1 ? "s" : "");

	/* Queue 0 of every device first, then queue 1...: devices sharing a
	 * node take turns, so their queue 0s do not pile on one CPU. */
	qsort(queues, nq, sizeof(*queues), by_queue_then_device);
	for (size_t k = 0; rc == 0 && k < nq; k++) {
		const struct vector_ref *v = &queues[k];
		int node = np_device_node(m, &m->pci.devs[v->dev], NULL);
		int cpu = pick_cpu(p, &p->target[v->dev], node);
		char what[64];
		p->load[cpu]++;
		p->core_load[p->core_of[cpu]]++;
		np_cpuset_clear(&one);
		snprintf(what, sizeof(what), "queue %d, one per core", v->queue);
		rc = np_cpuset_set(&one, (unsigned)cpu);
		if (!rc)
			rc = irq_rec(p, v->irq, &one, what);
	}
	/* The rest: a device's only vector may use its whole set (the kernel
	 * picks one CPU in it); admin, config and misc vectors take one CPU. */
	for (size_t i = 0; rc == 0 && i < m->irqs.n; i++) {
		const struct np_irq *irq = &m->irqs.v[i];
		if (irq->dev < 0 || np_cpuset_empty(&p->target[irq->dev]) || irq->managed != NP_MANAGED_NO ||
		    irq->queue >= 0)
			continue;
		if (nvectors[irq->dev] == 1) {
			rc = irq_rec(p, i, &p->target[irq->dev], "the device's only IRQ, any CPU of the set");
			continue;
		}
		int cpu = pick_cpu(p, &p->target[irq->dev], np_device_node(m, &m->pci.devs[irq->dev], NULL));
		p->load[cpu]++;
		p->core_load[p->core_of[cpu]]++;
		np_cpuset_clear(&one);
		if (!(rc = np_cpuset_set(&one, (unsigned)cpu)))
			rc = irq_rec(p, i, &one, "not a queue vector, one CPU");
	}
	np_cpuset_free(&one);
	free(queues);
	free(nvectors);
	free(nmanaged);
	return rc;
}

/* Where an IRQ will run once the plan is applied. */
static const struct np_cpuset *irq_cpus_after(const struct planner *p, size_t ii)
{
	const struct np_irq *irq = &p->m->irqs.v[ii];
	if (p->has_plan[ii])
		return &p->planned[ii];
	return irq->has_effective ? &irq->effective : &irq->affinity;
}

static int block_recs(struct planner *p, size_t di)
{
	const struct np_machine *m = p->m;
	const struct np_device_policy *pol = &p->opts->devices[di];
	const struct np_pci_dev *d = &m->pci.devs[di];
	struct np_cpuset completions = NP_CPUSET_INIT;
	int rc = 0;
	if (pol->rq_affinity == NP_RQ_KEEP || d->nblock == 0)
		return 0;
	/* I/O completes on queue vectors; admin and config vectors do not count
	 * unless the device has nothing else. */
	bool has_queues = false;
	for (size_t i = 0; i < m->irqs.n; i++)
		has_queues |= m->irqs.v[i].dev == (int)di && m->irqs.v[i].queue >= 0;
	for (size_t i = 0; i < m->irqs.n && rc == 0; i++)
		if (m->irqs.v[i].dev == (int)di && (!has_queues || m->irqs.v[i].queue >= 0))
			rc = np_cpuset_or(&completions, irq_cpus_after(p, i));
	const struct np_cpuset *submit = &p->opts->app_cpus;
	for (size_t b = 0; b < d->nblock && rc == 0; b++) {
		const struct np_blockdev *bd = &d->block[b];
		struct np_rec r = { .kind = NP_ATTR_RQ_AFFINITY, .dev = (int)di, .irq = -1, .queue = -1, .block = bd->name };
		int want;
		const char *why;
		if (pol->rq_affinity >= 0) {
			want = pol->rq_affinity;
			why = "the profile asks for it";
		} else if (!np_cpuset_empty(submit) && !np_cpuset_subset(submit, &completions)) {
			want = 2;
			why = "its completion CPUs do not cover the application's CPUs: 2 completes each request on "
			      "the CPU that submitted it (seed: +12.9% IOPS with pinned submitters off the IRQ CPUs; "
			      "with unpinned processes, 1 cost 14% in one run)";
		} else {
			want = 1;
			why = np_cpuset_empty(submit) ? "submitters unknown: 1 completes in the submitter's cache group "
							"without forcing it (never 0 unless asked)"
						      : "its completion CPUs cover the application's CPUs: 1 is enough";
		}
		if (bd->rq_affinity >= 0 && asprintf(&r.current, "%d", bd->rq_affinity) < 0)
			r.current = NULL;
		if (asprintf(&r.recommended, "%d", want) < 0)
			r.recommended = NULL;
		r.reason = strdup(why);
		rc = add_rec(p->plan, &r);
	}
	np_cpuset_free(&completions);
	return rc;
}

/* The device's IRQ serving a queue: prefer a transmit or combined vector
 * ("output", "tx", "TxRx", "fp") for XPS, a receive one for RPS. */
static int queue_irq(const struct planner *p, size_t di, int queue, bool tx)
{
	int any = -1;
	for (size_t i = 0; i < p->m->irqs.n; i++) {
		const struct np_irq *irq = &p->m->irqs.v[i];
		if (irq->dev != (int)di || irq->queue != queue)
			continue;
		bool is_tx = strstr(irq->name, "output") || strstr(irq->name, "tx") || strstr(irq->name, "TxRx") ||
			     strstr(irq->name, "-fp-");
		bool is_rx = strstr(irq->name, "input") || strstr(irq->name, "rx") || strstr(irq->name, "TxRx") ||
			     strstr(irq->name, "-fp-");
		if (tx ? is_tx : is_rx)
			return (int)i;
		if (any < 0 && !strstr(irq->name, tx ? "input" : "output"))
			any = (int)i;
	}
	return any;
}

static int net_rec(struct planner *p, enum np_attr kind, size_t di, const struct np_netif *nif, int q,
		   const struct np_cpuset *cur, const struct np_cpuset *want, const char *why)
{
	struct np_rec r = { .kind = kind, .dev = (int)di, .irq = -1, .queue = q, .net = nif->name };
	r.current = cur ? list_text(cur) : NULL;
	r.recommended = list_text(want);
	r.reason = strdup(why);
	return add_rec(p->plan, &r);
}

static int net_recs(struct planner *p, size_t di)
{
	const struct np_machine *m = p->m;
	const struct np_device_policy *pol = &p->opts->devices[di];
	const struct np_pci_dev *d = &m->pci.devs[di];
	struct np_cpuset off = NP_CPUSET_INIT, nodes = NP_CPUSET_INIT;
	int rc = 0;
	bool managed = false;
	for (size_t i = 0; i < m->irqs.n; i++)
		if (m->irqs.v[i].dev == (int)di && m->irqs.v[i].managed != NP_MANAGED_NO)
			managed = true;
	rc = np_nodes_of(&m->topo, &p->opts->app_cpus, &nodes);

	for (size_t k = 0; k < d->nnet && rc == 0; k++) {
		const struct np_netif *nif = &d->net[k];
		for (int q = 0; q < nif->ntx && rc == 0 && (pol->xps_follow_irq || pol->auto_net); q++) {
			int ii = queue_irq(p, di, q, true);
			if (!nif->xps_known[q] || ii < 0 || np_cpuset_empty(irq_cpus_after(p, (size_t)ii)))
				continue;
			rc = net_rec(p, NP_ATTR_XPS_CPUS, di, nif, q, &nif->xps[q], irq_cpus_after(p, (size_t)ii),
				     "transmit from the CPUs that serve this queue's interrupt");
		}
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
		} else if (pol->auto_net && !np_cpuset_empty(&p->opts->app_cpus) && pol->irqs == NP_IRQS_APP &&
			   (managed || (unsigned)nif->nrx < np_cpuset_count(&nodes))) {
			rps = NP_RPS_APP;
			why = managed ? "its IRQs are managed and cannot move: RPS brings receive processing to the "
					"application's CPUs"
				      : "fewer queues than application nodes: RPS brings receive processing to the "
					"application's CPUs";
		}
		for (int q = 0; q < nif->nrx && rc == 0 && rps != NP_RPS_KEEP; q++)
			rc = net_rec(p, NP_ATTR_RPS_CPUS, di, nif, q, &nif->rps[q],
				     rps == NP_RPS_OFF ? &off : &p->opts->app_cpus, why);
	}
	np_cpuset_free(&nodes);
	return rc;
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
		struct np_rec r = { .kind = NP_ATTR_DEFAULT_IRQ_AFFINITY, .dev = -1, .irq = -1, .queue = -1 };
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
		rc = add_rec(p->plan, &r);
	}
	np_cpuset_free(&bad);
	return rc;
}

int np_advise(const struct np_machine *m, const struct np_advise_opts *opts, struct np_plan *out)
{
	memset(out, 0, sizeof(*out));
	struct planner p = { .m = m, .opts = opts, .plan = out };
	size_t ncpu = (size_t)m->topo.max_cpu + 1;
	p.load = calloc(ncpu, sizeof(int));
	p.core_of = malloc(ncpu * sizeof(int));
	p.core_load = calloc(ncpu, sizeof(int));
	p.target = calloc(m->pci.ndevs + 1, sizeof(*p.target));
	p.target_why = calloc(m->pci.ndevs + 1, sizeof(char *));
	p.planned = calloc(m->irqs.n + 1, sizeof(*p.planned));
	p.has_plan = calloc(m->irqs.n + 1, sizeof(bool));
	int rc = p.load && p.core_of && p.core_load && p.target && p.target_why && p.planned && p.has_plan ? 0 : -ENOMEM;
	if (rc == 0) {
		for (size_t c = 0; c < ncpu; c++)
			p.core_of[c] = -1;
		rc = np_usable_cpus(&m->topo, &opts->exclude, &p.usable);
	}
	if (rc == 0 && np_cpuset_empty(&p.usable))
		rc = warn(out, "no usable CPU: every online CPU is isolated, nohz_full or excluded");
	if (rc == 0 && m->irqbalance)
		rc = warn(out, "irqbalance is running and will undo this IRQ placement within seconds: ban the IRQs "
			       "(IRQBALANCE_ARGS=\"--banirq=N ...\" in /etc/default/irqbalance, or a --policyscript "
			       "printing ban=yes) or stop it");
	if (rc == 0)
		rc = index_cores(&p);
	if (rc == 0)
		rc = choose_targets(&p);
	if (rc == 0)
		rc = place_irqs(&p);
	for (size_t di = 0; rc == 0 && di < m->pci.ndevs; di++) {
		if (!opts->devices[di].selected)
			continue;
		if ((rc = block_recs(&p, di)) == 0)
			rc = net_recs(&p, di);
	}
	if (rc == 0 && !opts->devices_only)
		rc = default_irq_rec(&p);
	for (size_t i = 0; p.target && i < m->pci.ndevs; i++) {
		np_cpuset_free(&p.target[i]);
		free(p.target_why[i]);
	}
	for (size_t i = 0; p.planned && i < m->irqs.n; i++)
		np_cpuset_free(&p.planned[i]);
	np_cpuset_free(&p.usable);
	free(p.load);
	free(p.core_of);
	free(p.core_load);
	free(p.target);
	free(p.target_why);
	free(p.planned);
	free(p.has_plan);
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
	memset(plan, 0, sizeof(*plan));
}

/* Whether queue is told by exactly one IRQ of the device. */
static bool queue_is_unique(const struct np_machine *m, int dev, int queue)
{
	int n = 0;
	for (size_t i = 0; i < m->irqs.n; i++)
		n += m->irqs.v[i].dev == dev && m->irqs.v[i].queue == queue;
	return n == 1;
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
		struct np_setting *s = &out->settings[out->nsettings++];
		s->queue = -1;
		s->irq = -1;
		s->kind = r->kind;
		switch (r->kind) {
		case NP_ATTR_IRQ_AFFINITY:
			s->device = strdup(m->pci.devs[r->dev].addr);
			if (r->queue >= 0 && queue_is_unique(m, r->dev, r->queue))
				s->queue = r->queue;
			else
				oom |= !(s->vector = strdup(r->vector));
			oom |= !s->device || !(s->cpus = strdup(r->recommended));
			break;
		case NP_ATTR_RQ_AFFINITY:
			oom |= !(s->block = strdup(r->block));
			s->value = atoi(r->recommended);
			break;
		case NP_ATTR_RPS_CPUS:
		case NP_ATTR_XPS_CPUS:
			oom |= !(s->net = strdup(r->net)) || !(s->cpus = strdup(r->recommended));
			s->queue = r->queue;
			break;
		default:
			/* Machine-wide: the value alone. */
			oom |= !(s->cpus = strdup(r->recommended));
			break;
		}
		if (asprintf(&s->where, "settings[%zu]", i) < 0)
			oom = true, s->where = NULL;
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
		return rc == -ENOENT ? np_fail(ctx, rc, "no process %d (%s)", pid, ctx->err) : rc;
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
