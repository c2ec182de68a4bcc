/* SPDX-License-Identifier: GPL-2.0-or-later */
/* The planner's run (np_advise): its working state set up, each device's
 * target chosen, its IRQs kept or placed (advise-irq.c), the queue settings
 * that follow them (advise-queues.c), the machine-wide values, and what the
 * plan warns about and notes. */
#include "judge/advise.h"

#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "judge/planner.h"
#include "read/sysfs.h"

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


/* One node with CPUs and one L3 domain: no CPU is nearer to a device than another. */
static bool flat_machine(const struct np_machine *m)
{
	int nodes = 0;
	for (int i = 0; i < m->topo.nnodes; i++)
		nodes += !np_cpuset_empty(&m->topo.nodes[i].cpus);
	return nodes <= 1 && m->l3.n <= 1;
}

/* What orders the plan: by kind, the heaviest first, else in the order
 * planned (the sort is stable by the index, whatever qsort's algorithm). */
struct impact_key {
	enum np_attr kind;
	double impact;
	size_t i;
};

static int by_impact(const void *a, const void *b)
{
	const struct impact_key *x = a, *y = b;
	if (x->kind != y->kind)
		return (int)x->kind - (int)y->kind;
	if (x->impact != y->impact)
		return x->impact > y->impact ? -1 : 1;
	return x->i < y->i ? -1 : x->i > y->i;
}

/* The plan in by_impact's order, equal records in the order planned:
 * qsort is not stable by contract (glibc's falls back to a heapsort when
 * it cannot allocate its merge buffer, musl's is a smoothsort), so the
 * index says it. */
static int sort_by_impact(struct np_plan *plan)
{
	struct impact_key *keys = malloc(plan->n * sizeof(*keys));
	if (!keys)
		return -ENOMEM;
	for (size_t i = 0; i < plan->n; i++)
		keys[i] = (struct impact_key){ plan->v[i].kind, plan->v[i].impact, i };
	qsort(keys, plan->n, sizeof(*keys), by_impact);
	/* Record keys[k].i goes to k: each cycle of moves in place, with one
	 * record aside (no second plan in memory: 2.6 MB at 256 queues a NIC). */
	for (size_t first = 0; first < plan->n; first++) {
		if (keys[first].i == first)
			continue;
		struct np_rec aside = plan->v[first];
		for (size_t k = first;;) {
			size_t from = keys[k].i;
			keys[k].i = k;
			if (from == first) {
				plan->v[k] = aside;
				break;
			}
			plan->v[k] = plan->v[from];
			k = from;
		}
	}
	free(keys);
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
		rc = plan_note(p->plan, "%s", eff);
	/* The sources read from configuration files: where their CPUs were found. */
	for (int s = 0; rc == 0 && s < NP_FORBID_NSOURCES; s++) {
		bool failed;
		char *line = np_forbid_source_line(p->m, &p->opts->forbidden, s, &failed);
		const char *note = np_forbid_note(p->m, s);
		if (failed)
			rc = -ENOMEM;
		if (rc == 0 && line)
			rc = plan_note(p->plan, "%s", line);
		if (rc == 0 && note)
			rc = plan_note(p->plan, "%s", note);
		free(line);
	}
	if (rc == 0 && np_cpuset_empty(&p->usable))
		rc = plan_warn(p->plan, "no usable CPU: every online CPU is isolated, nohz_full or excluded");
	if (rc == 0 && p->flat)
		rc = plan_note(p->plan, "one NUMA node and one L3 cache domain: no CPU is nearer to a device than another, "
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
		return plan_warn(p->plan, "irqbalance is running and will undo this IRQ placement within seconds: ban the IRQs "
			    "(IRQBALANCE_ARGS=\"--banirq=N ...\" in /etc/default/irqbalance, or /etc/sysconfig/irqbalance "
			    "on the RHEL family, or a --policyscript printing ban=yes) or stop it");
	if (!m->irqbalance_known)
		return plan_warn(p->plan, "irqbalance: state unknown (no process information here): if it runs, ban the "
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
		bool failed;
		char *why = np_forbidden_text(&p->opts->forbidden, &bad, &failed);
		r.current = list_text(&irqs->default_affinity);
		r.recommended = list_text(&p->usable);
		if (!why || asprintf(&r.reason, "new IRQs would start on %s: start them on the usable CPUs", why) < 0)
			r.reason = NULL;
		free(why);
		rc = plan_add_rec(p->m, p->plan, &r);
	}
	np_cpuset_free(&bad);
	return rc;
}

int np_advise(const struct np_machine *m, const struct np_advise_opts *opts, struct np_plan *out)
{
	memset(out, 0, sizeof(*out));
	struct planner p = { .m = m, .opts = opts, .plan = out, .idle = opts->min_interrupts / 10 };
	size_t ncpu = (size_t)m->topo.max_cpu + 1, ndev = m->pci.ndevs + 1;
	p.load = calloc(ncpu, sizeof(int));
	p.core_of = malloc(ncpu * sizeof(int));
	p.core_load = calloc(ncpu, sizeof(int));
	p.vectors = calloc(ncpu, sizeof(int));
	p.stamp = calloc(ncpu, sizeof(int));
	p.node_index = malloc(ncpu * sizeof(int));
	p.node_dist = malloc(((size_t)m->topo.nnodes * (size_t)m->topo.nnodes + 1) * sizeof(int));
	p.target = calloc(ndev, sizeof(*p.target));
	p.target_why = calloc(ndev, sizeof(char *));
	p.anchor = calloc(ndev, sizeof(int));
	p.nqueues = calloc(ndev, sizeof(int));
	p.ncores = calloc(ndev, sizeof(int));
	p.start = calloc(ndev, sizeof(int));
	p.nthreads = calloc(ndev, sizeof(int));
	p.nbusy = calloc(ndev, sizeof(int));
	p.busy = calloc(ndev, sizeof(*p.busy));
	p.dl = calloc(ndev, sizeof(*p.dl));
	p.core_work = calloc(ncpu, sizeof(*p.core_work));
	p.today_work = calloc(ncpu, sizeof(*p.today_work));
	p.top_work = calloc(ncpu, sizeof(*p.top_work));
	p.top_irq = calloc(ncpu, sizeof(*p.top_irq));
	p.share_work = calloc(ndev, sizeof(*p.share_work));
	p.planned = calloc(m->irqs.n + 1, sizeof(*p.planned));
	p.has_plan = calloc(m->irqs.n + 1, sizeof(bool));
	p.cls = calloc(m->irqs.n + 1, sizeof(*p.cls));
	p.off_target = calloc(ndev, sizeof(*p.off_target));
	p.data_volume = calloc(ndev, sizeof(*p.data_volume));
	int rc = p.load && p.core_of && p.core_load && p.vectors && p.stamp && p.node_index && p.node_dist && p.target && p.target_why && p.anchor &&
				 p.nqueues && p.ncores && p.nthreads && p.start && p.nbusy && p.busy && p.dl && p.core_work && p.today_work && p.top_work && p.top_irq && p.share_work && p.planned && p.has_plan &&
				 p.off_target && p.data_volume && p.cls
			 ? 0
			 : -ENOMEM;
	if (rc == 0) {
		for (size_t c = 0; c < ncpu; c++) {
			int id = np_topology_node_of_cpu(&m->topo, (int)c);
			p.core_of[c] = -1;
			p.node_index[c] = -1;
			for (int i = 0; i < m->topo.nnodes && id >= 0; i++)
				if (m->topo.nodes[i].id == id)
					p.node_index[c] = i;
		}
		for (int i = 0; i < m->topo.nnodes; i++)
			for (int j = 0; j < m->topo.nnodes; j++)
				p.node_dist[i * m->topo.nnodes + j] = m->topo.nodes[i].distances ? m->topo.nodes[i].distances[j]
												 : -1;
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
		rc = plan_choose_targets(&p);
	}
	if (rc == 0)
		rc = plan_channels(&p);
	if (rc == 0)
		rc = plan_build_slots(&p);
	if (rc == 0)
		rc = plan_size_devices(&p);
	if (rc == 0)
		rc = plan_weigh_devices(&p);
	/* IRQs the plan does not place (other devices', managed ones) still
	 * load their CPUs: balance against them too, by their work, and their
	 * queues by count. */
	for (size_t i = 0; rc == 0 && i < m->irqs.n; i++) {
		const struct np_irq *irq = &m->irqs.v[i];
		int cpu = home_cpu(irq);
		if (cpu < 0 || (size_t)cpu >= ncpu || plan_irq_movable(&p, irq))
			continue;
		p.core_work[core_of(&p, cpu)] += irq->total;
		if (irq->queue < 0)
			continue;
		p.load[cpu]++;
		p.core_load[core_of(&p, cpu)]++;
	}
	if (rc == 0)
		rc = plan_keep_slots(&p);
	if (rc == 0)
		rc = plan_place_slots(&p);
	if (rc == 0)
		rc = plan_pin_kept_queues(&p);
	/* A profile's apply says what it does about irqbalance itself (--irqbalance). */
	if (rc == 0 && !opts->devices_only)
		rc = irqbalance_warning(&p);
	if (rc == 0)
		rc = plan_irq_notes(&p);
	if (rc == 0)
		rc = plan_mark_queue_moves(&p);
	for (size_t di = 0; rc == 0 && di < m->pci.ndevs; di++) {
		if (!opts->devices[di].selected)
			continue;
		if ((rc = plan_block_recs(&p, di)) == 0)
			rc = plan_net_recs(&p, di);
	}
	if (rc == 0 && !opts->devices_only)
		rc = plan_xps_off_note(&p);
	if (rc == 0 && !opts->devices_only)
		rc = default_irq_rec(&p);
	if (rc == 0 && out->n)
		rc = sort_by_impact(out);
	for (size_t i = 0; p.target && i < m->pci.ndevs; i++) {
		np_cpuset_free(&p.target[i]);
		free(p.target_why[i]);
	}
	for (size_t i = 0; p.planned && i < m->irqs.n; i++)
		np_cpuset_free(&p.planned[i]);
	np_cpuset_free(&p.usable);
	plan_channels_free(&p);
	free(p.load);
	free(p.core_of);
	free(p.core_load);
	free(p.vectors);
	free(p.stamp);
	free(p.node_index);
	free(p.node_dist);
	free(p.target);
	free(p.target_why);
	free(p.anchor);
	free(p.nqueues);
	free(p.ncores);
	free(p.start);
	plan_free_loads(&p);
	free(p.nthreads);
	free(p.nbusy);
	free(p.busy);
	free(p.core_work);
	free(p.today_work);
	free(p.top_work);
	free(p.top_irq);
	free(p.share_work);
	free(p.planned);
	free(p.has_plan);
	free(p.queues_move);
	free(p.cls);
	free(p.off_target);
	free(p.data_volume);
	free(p.refs);
	for (size_t k = 0; p.slots && k < p.nslots; k++)
		free(p.slots[k].why);
	free(p.slots);
	if (rc)
		np_plan_free(out);
	return rc;
}
