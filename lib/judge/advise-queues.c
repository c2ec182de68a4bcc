/* SPDX-License-Identifier: GPL-2.0-or-later */
/* The queue settings that follow the IRQs: a block device's rq_affinity
 * (what blk-mq does with it today, and Alan D. Brunelle's measurements), and
 * a network interface's XPS, and RPS with RFS (its channels:
 * advise-channels.c). */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "judge/planner.h"
#include "judge/advise-queues.h"

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
	if (f->irq_threads) {
		*why = "IRQ handlers run in threads here (force_irqthreads()): blk-mq then completes every request "
		       "where its interrupt ran, whatever rq_affinity says (blk_mq_complete_need_ipi(), Linux 5.12)";
		return -1;
	}
	if (!f->pinned) {
		*why = "submitters not pinned: forcing completion on them cost 14% IOPS with scheduler-placed "
		       "processes (Alan D. Brunelle, linux-kernel, 2008-04-15, 16-way IA64: 47.8 -> 41.0 K ios/s)";
		return -1;
	}
	if (f->per_cpu_queues) {
		*why = "a hardware queue per CPU: completions already return to the submitting CPU's queue";
		return -1;
	}
	if (f->shares_llc) {
		*why = "submitters share the L3 cache of the completion CPU without being it: 1 completes their "
		       "requests on that CPU, 2 (strict, since Linux 3.1) on each submitting CPU "
		       "(blk_mq_complete_need_ipi()), as Alan D. Brunelle's rq_affinity=1 did (linux-kernel, "
		       "2008-04-15, 16-way IA64: +12.9% IOPS, 39.8 -> 45.0 K ios/s, submitters pinned off the IRQ CPU)";
		return 2;
	}
	if (f->irq_on_submitters) {
		*why = "completions are delivered on the submitting CPUs: forcing them there gained nothing "
		       "(Alan D. Brunelle, linux-kernel, 2008-04-15, 4-way IA64: 12.312 vs 12.314 K ios/s)";
		return -1;
	}
	if (f->current == 0) {
		*why = "submitters outside the L3 cache of the completion CPU: 1 sends each completion to the "
		       "submitting CPU, 0 leaves it where the interrupt ran (Alan D. Brunelle, linux-kernel, "
		       "2008-04-15, 16-way IA64: +12.9% IOPS, 39.8 -> 45.0 K ios/s)";
		return 1;
	}
	*why = "submitters outside the L3 cache of the completion CPU: 1 already sends each completion to the "
	       "submitting CPU, as 2 would (blk_mq_complete_need_ipi())";
	return -1;
}

/* Where a vector's interrupts will be delivered once the plan is applied:
 * its one CPU, the kernel's choice within its mask, else the mask (one CPU
 * of it, not known which). */
static const struct np_cpuset *delivered_after(const struct planner *p, size_t ii)
{
	const struct np_irq *irq = &p->m->irqs.v[ii];
	const struct np_cpuset *after = irq_cpus_after(p, ii);
	if (np_cpuset_count(after) > 1 && irq->has_effective && !np_cpuset_empty(&irq->effective) &&
	    np_cpuset_subset(&irq->effective, after))
		return &irq->effective;
	return after;
}

/* The completion facts of device di for the submitters: each vector that
 * completes I/O (queue vectors; admin and config ones only when the device
 * has nothing else) against the submitters and its LLC. */
static int completion_facts(const struct planner *p, size_t di, const struct np_cpuset *submit, struct np_rq_facts *f)
{
	const struct np_machine *m = p->m;
	struct np_cpuset near = NP_CPUSET_INIT, delivered = NP_CPUSET_INIT, sharing = NP_CPUSET_INIT;
	bool has_queues = false;
	int rc = 0;
	np_irqs_foreach_of_dev(&m->irqs, (int)di, i)
		has_queues |= m->irqs.v[i].dev == (int)di && m->irqs.v[i].queue >= 0;
	np_irqs_foreach_of_dev(&m->irqs, (int)di, i) {
		if (rc)
			break;
		if (m->irqs.v[i].dev != (int)di || (has_queues && m->irqs.v[i].queue < 0))
			continue;
		const struct np_cpuset *d = delivered_after(p, i);
		if ((rc = np_l3_cover(&m->l3, d, &near)) || (rc = np_cpuset_copy(&sharing, &near)))
			break;
		np_cpuset_and(&sharing, submit);
		/* Within a mask the kernel picks one CPU: the others of its LLC are "not it". */
		if (np_cpuset_count(d) == 1)
			np_cpuset_andnot(&sharing, d);
		f->shares_llc |= !np_cpuset_empty(&sharing);
		if (np_cpuset_count(d) == 1)
			rc = np_cpuset_or(&delivered, d);
	}
	f->irq_on_submitters = !np_cpuset_empty(submit) && np_cpuset_subset(submit, &delivered);
	np_cpuset_free(&near);
	np_cpuset_free(&delivered);
	np_cpuset_free(&sharing);
	return rc;
}

/* The same rule for every block device of every selected device: the
 * application's CPUs are the submitters. */
int plan_block_recs(struct planner *p, size_t di)
{
	const struct np_machine *m = p->m;
	const struct np_device_policy *pol = &p->opts->devices[di];
	const struct np_pci_dev *d = &m->pci.devs[di];
	int rc = 0;
	if (pol->rq_affinity == NP_RQ_KEEP || d->nblock == 0)
		return 0;
	bool managed = false;
	np_irqs_foreach_of_dev(&m->irqs, (int)di, i)
		managed |= m->irqs.v[i].dev == (int)di && m->irqs.v[i].managed != NP_MANAGED_NO;
	const struct np_cpuset *submit = &p->opts->app_cpus;
	struct np_rq_facts facts = { .pinned = p->opts->app_pinned && !np_cpuset_empty(submit),
				     .irq_threads = m->irq_threads };
	if (pol->rq_affinity < 0 && facts.pinned && !facts.irq_threads)
		rc = completion_facts(p, di, submit, &facts);
	/* Pinned submitters would have made it worth a look: say why not. */
	if (rc == 0 && pol->rq_affinity < 0 && facts.pinned && facts.irq_threads)
		rc = plan_note(p->plan, "%s (%s): rq_affinity left as it is: IRQ handlers run in threads here (%s), so "
			       "blk-mq completes every request where its interrupt ran, whatever the value "
			       "(blk_mq_complete_need_ipi(), Linux 5.12)", d->addr, plan_dev_label(d), facts.irq_threads);
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
			facts.current = bd->rq_affinity;
			facts.per_cpu_queues = bd->nhwq > 1 && (managed || (unsigned)bd->nhwq >= np_cpuset_count(submit));
			if ((want = np_rq_affinity_decide(&facts, &why)) < 0)
				continue;
		}
		if (bd->rq_affinity >= 0 && asprintf(&r.current, "%d", bd->rq_affinity) < 0)
			r.current = NULL;
		if (asprintf(&r.recommended, "%d", want) < 0)
			r.recommended = NULL;
		r.reason = strdup(why);
		rc = plan_add_rec(p->m, p->plan, &r);
	}
	return rc;
}

/* The device's data vectors serving its first n queues, each a transmit or
 * combined one for XPS (the first such, by IRQ), -1 when none: one pass over
 * the IRQs, not one a queue. */
static void tx_queue_irqs(const struct planner *p, size_t di, int n, int *out)
{
	for (int q = 0; q < n; q++)
		out[q] = -1;
	np_irqs_foreach_of_dev(&p->m->irqs, (int)di, i) {
		const struct np_vector_class *c = &p->cls[i];
		if (p->m->irqs.v[i].dev != (int)di || c->role != NP_ROLE_DATA || c->queue < 0 || c->queue >= n ||
		    out[c->queue] >= 0)
			continue;
		if (c->dir == NP_VEC_COMBINED || c->dir == NP_VEC_TX)
			out[c->queue] = (int)i;
	}
}

static int net_rec(struct planner *p, enum np_attr kind, size_t di, const struct np_netif *nif, int q,
		   const struct np_cpuset *cur, const struct np_cpuset *want, const char *why)
{
	struct np_rec r = { .kind = kind, .dev = (int)di, .irq = -1, .queue = q, .net = nif->name,
			    .rule = kind == NP_ATTR_XPS_CPUS ? NP_RULE_XPS : NP_RULE_RPS };
	r.current = cur ? list_text(cur) : NULL;
	r.recommended = list_text(want);
	r.reason = strdup(why);
	return plan_add_rec(p->m, p->plan, &r);
}

/* p->queues_move: whether the plan moves any of a device's queue IRQs (what
 * XPS follows; a misc vector moved off a forbidden CPU is not one), in one
 * pass over the plan, not one a device (tens of thousands of records with
 * 256 queues a NIC). */
int plan_mark_queue_moves(struct planner *p)
{
	size_t ndevs = p->m->pci.ndevs;
	if (!(p->queues_move = calloc(ndevs + 1, sizeof(*p->queues_move))))
		return -ENOMEM;
	for (size_t i = 0; i < p->plan->n; i++) {
		const struct np_rec *r = &p->plan->v[i];
		if (r->kind == NP_ATTR_IRQ_AFFINITY && r->dev >= 0 && r->dev < (int)ndevs && r->change && r->queue >= 0)
			p->queues_move[r->dev] = true;
	}
	return 0;
}

/* What nearness compares of one CPU, looked up once: XPS asks it of every
 * usable CPU against every queue's serving CPU, 840,000 times on a 1024-CPU
 * machine with 64 devices. */
struct near_key {
	int cpu, core, l3, node; /* l3: its domain, -1 when unknown */
};

static struct near_key near_key(const struct planner *p, int cpu)
{
	const struct np_l3 *l3 = &p->m->l3;
	return (struct near_key){ .cpu = cpu, .core = core_of(p, cpu),
				  .l3 = cpu <= l3->max_cpu && l3->of_cpu[cpu] >= 0 ? l3->of_cpu[cpu] : -1,
				  .node = cpu <= p->m->topo.max_cpu ? p->node_index[cpu] : -1 };
}

/* How near CPU a is to CPU b beyond their cores, for XPS: a shared L3, the
 * same node, then by node distance; a's CPU and core are not looked at. */
static inline int nearness_off_core(const struct planner *p, const struct near_key *a, const struct near_key *b)
{
	if (a->l3 >= 0 && a->l3 == b->l3)
		return 2;
	/* Asked for every CPU and queue of every interface: by index, no lookup. */
	if (a->node == b->node)
		return 3;
	int d = a->node >= 0 && b->node >= 0 ? p->node_dist[a->node * p->m->topo.nnodes + b->node] : -1;
	return 4 + (d < 0 ? 255 : d);
}

/* How near CPU a is to CPU b, for XPS: the same CPU, an SMT sibling, a
 * shared L3, the same node, then by node distance. */
static inline int nearness(const struct planner *p, const struct near_key *a, const struct near_key *b)
{
	if (a->cpu == b->cpu)
		return 0;
	if (a->core == b->core)
		return 1;
	return nearness_off_core(p, a, b);
}

/* The CPU serving a queue's interrupt once the plan is applied, -1 when that
 * is not one CPU (a mask the kernel picks within, delivery unknown). */
static int serving_cpu(const struct planner *p, int ii)
{
	if (ii < 0)
		return -1;
	const struct np_cpuset *after = irq_cpus_after(p, (size_t)ii);
	return np_cpuset_only(after);
}

/* Whether today's XPS already follows interrupts that stay where they are:
 * no housekeeping CPU in two queues, each mapped CPU in one of its nearest
 * queues. CPUs left out are no problem on their own (drivers map only the
 * queues' own CPUs; the others hash over the queues): with nothing moving,
 * a working map is not churned. */
static bool xps_agrees(const struct planner *p, const struct np_netif *nif, const int *serve,
		       const struct near_key *served_by, const int *first_of)
{
	struct np_cpuset seen = NP_CPUSET_INIT;
	bool agrees = true;
	for (int q = 0; agrees && q < nif->ntx; q++) {
		if (!nif->xps_known[q])
			continue;
		/* The CPU serving a queue's interrupt sends on that queue (the first
		 * such queue, when it serves several). */
		if (serve[q] >= 0 && first_of[q] == q && np_cpuset_test(&p->usable, (unsigned)serve[q]) &&
		    !np_cpuset_test(&nif->xps[q], (unsigned)serve[q]))
			agrees = false;
		np_cpuset_foreach(cpu, &nif->xps[q]) {
			if (!agrees || cpu > p->m->topo.max_cpu || !np_cpuset_test(&p->usable, (unsigned)cpu))
				continue;
			if (serve[q] < 0 || np_cpuset_test(&seen, (unsigned)cpu) || np_cpuset_set(&seen, (unsigned)cpu)) {
				agrees = false;
				continue;
			}
			struct near_key at = near_key(p, cpu);
			int near = nearness(p, &at, &served_by[q]);
			for (int o = 0; agrees && o < nif->ntx; o++)
				agrees = serve[o] < 0 || nearness(p, &at, &served_by[o]) >= near;
		}
	}
	np_cpuset_free(&seen);
	return agrees;
}

/* Whether every queue's map is what drivers set (ice, mlx5, i40e: the one
 * CPU its interrupt is served on today), for the queues with an interrupt. */
static bool driver_form(const struct planner *p, const struct np_netif *nif, const int *irq_of)
{
	for (int q = 0; q < nif->ntx; q++) {
		if (irq_of[q] < 0 || !nif->xps_known[q])
			continue;
		int cpu = home_cpu(&p->m->irqs.v[irq_of[q]]);
		if (cpu < 0 || np_cpuset_count(&nif->xps[q]) != 1 || !np_cpuset_test(&nif->xps[q], (unsigned)cpu))
			return false;
	}
	return true;
}

/* Each queue's first queue served by the same CPU (itself when none before
 * it is; -1 when it has no serving CPU): sorted once, not searched a queue. */
static int by_serve_then_queue(const void *a, const void *b, void *arg)
{
	const int *serve = arg, x = *(const int *)a, y = *(const int *)b;
	if (serve[x] != serve[y])
		return serve[x] < serve[y] ? -1 : 1;
	return x - y;
}

static int first_queues(const int *serve, int n, int *first_of)
{
	int *order = calloc((size_t)n + 1, sizeof(int));
	if (!order)
		return -ENOMEM;
	for (int q = 0; q < n; q++)
		order[q] = q;
	qsort_r(order, (size_t)n, sizeof(int), by_serve_then_queue, (void *)serve);
	for (int k = 0; k < n; k++) {
		int q = order[k];
		first_of[q] = serve[q] < 0 ? -1 : k > 0 && serve[order[k - 1]] == serve[q] ? first_of[order[k - 1]] : q;
	}
	free(order);
	return 0;
}

/* The queues served on each core, in queue order within a core: a CPU on a
 * serving core looks at its core's queues only, not at every queue. */
static int by_core_then_queue(const void *a, const void *b, void *arg)
{
	const struct near_key *served_by = arg;
	int x = *(const int *)a, y = *(const int *)b;
	if (served_by[x].core != served_by[y].core)
		return served_by[x].core < served_by[y].core ? -1 : 1;
	return x - y;
}

/* The first of the n queues in by_core (sorted so) served on core, or n. */
static int core_queues_start(const int *by_core, int n, const struct near_key *served_by, int core)
{
	int lo = 0, hi = n;
	while (lo < hi) {
		int mid = lo + (hi - lo) / 2;
		if (served_by[by_core[mid]].core < core)
			lo = mid + 1;
		else
			hi = mid;
	}
	return lo;
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
	struct near_key *served_by = calloc((size_t)nif->ntx + 1, sizeof(*served_by));
	int *irq_of = calloc((size_t)nif->ntx + 1, sizeof(int));
	int *first_of = calloc((size_t)nif->ntx + 1, sizeof(int)), *by_core = calloc((size_t)nif->ntx + 1, sizeof(int));
	int rc = serve && nassigned && want && served_by && irq_of && first_of && by_core ? 0 : -ENOMEM, ncand = 0;
	int nserved = 0; /* queues with a serving CPU, in by_core */
	bool followed = true; /* every queue with an interrupt has one CPU serving it */
	bool moved = false;   /* some queue's interrupt moves */
	if (rc == 0)
		tx_queue_irqs(p, di, nif->ntx, irq_of);
	for (int q = 0; rc == 0 && q < nif->ntx; q++) {
		int ii = irq_of[q];
		serve[q] = nif->xps_known[q] ? serving_cpu(p, ii) : -1;
		followed &= ii < 0 || !nif->xps_known[q] || serve[q] >= 0;
		moved |= serve[q] >= 0 && serve[q] != home_cpu(&p->m->irqs.v[ii]);
		ncand += serve[q] >= 0;
		if (serve[q] >= 0) {
			served_by[q] = near_key(p, serve[q]);
			by_core[nserved++] = q;
		}
	}
	if (rc == 0)
		rc = first_queues(serve, nif->ntx, first_of);
	if (rc == 0)
		qsort_r(by_core, (size_t)nserved, sizeof(int), by_core_then_queue, served_by);
	if (rc || !followed || (!moved && xps_agrees(p, nif, serve, served_by, first_of)))
		ncand = 0;
	/* Maps in the drivers' form (each queue's the one CPU its interrupt is
	 * served on today) keep it: only the queues whose interrupt moves
	 * change, to the CPU it moves to. */
	if (rc == 0 && ncand > 1 && driver_form(p, nif, irq_of)) {
		for (int q = 0; rc == 0 && q < nif->ntx; q++) {
			if (serve[q] < 0 || serve[q] == home_cpu(&p->m->irqs.v[irq_of[q]]))
				continue;
			struct np_cpuset one = NP_CPUSET_INIT;
			if ((rc = np_cpuset_set(&one, (unsigned)serve[q])) == 0)
				rc = net_rec(p, NP_ATTR_XPS_CPUS, di, nif, q, &nif->xps[q], &one,
					     "its interrupt moves there: the CPU that serves a queue transmits on it, as "
					     "the driver set it (kernel Documentation/networking/scaling.rst, XPS)");
			np_cpuset_free(&one);
		}
		ncand = 0;
	}
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
	/* Each queue's nearness to a CPU off its core depends on the CPU's L3
	 * and node only: worked out again when those change (CPUs come in
	 * order, a node's mostly together), with the queues nearest at that
	 * level. A CPU on no serving CPU's core picks among those alone; one
	 * on such a core compares every queue, as before. */
	int *off_core = calloc((size_t)nif->ntx + 1, sizeof(int)), *nearest = calloc((size_t)nif->ntx + 1, sizeof(int));
	/* nearest[cursor...] holds the first of them with level (the fewest)
	 * CPUs: those before it have more (counts only grow). */
	int nnearest = 0, cursor = 0, level = 0;
	struct near_key off_core_of = { .l3 = -2 }; /* no CPU's */
	struct np_cpuset serving_cores = NP_CPUSET_INIT;
	if ((!off_core || !nearest) && rc == 0)
		rc = -ENOMEM;
	for (int q = 0; rc == 0 && q < nif->ntx; q++)
		if (serve[q] >= 0)
			rc = np_cpuset_set(&serving_cores, (unsigned)served_by[q].core);
	np_cpuset_foreach(cpu, &p->usable) {
		int best = -1, bestnear = 0;
		if (rc || ncand < 2 || np_cpuset_test(&served, (unsigned)cpu))
			continue;
		struct near_key at = near_key(p, cpu);
		if (at.l3 != off_core_of.l3 || at.node != off_core_of.node) {
			off_core_of = at;
			nnearest = cursor = level = 0;
			for (int q = 0, least = 0; q < nif->ntx; q++) {
				off_core[q] = serve[q] < 0 ? 0 : nearness_off_core(p, &at, &served_by[q]);
				if (serve[q] < 0)
					continue;
				if (nnearest == 0 || off_core[q] < least) {
					least = off_core[q];
					nnearest = 0;
				}
				if (off_core[q] == least)
					nearest[nnearest++] = q;
			}
		}
		if (!np_cpuset_test(&serving_cores, (unsigned)at.core)) {
			/* The first of the nearest with the fewest CPUs, found by a
			 * cursor, not a pass over them a CPU: all the CPUs of a node
			 * choose among all the queues served there. */
			while (best < 0 && nnearest > 0) {
				while (cursor < nnearest && nassigned[nearest[cursor]] != level)
					cursor++;
				if (cursor < nnearest) {
					best = nearest[cursor++];
					continue;
				}
				level = nassigned[nearest[0]];
				for (int k = 1; k < nnearest; k++)
					if (nassigned[nearest[k]] < level)
						level = nassigned[nearest[k]];
				cursor = 0;
			}
		} else {
			/* Its core serves some queue: the nearest are there (the same
			 * CPU, else the core), off-core ones never win. */
			for (int k = core_queues_start(by_core, nserved, served_by, at.core);
			     k < nserved && served_by[by_core[k]].core == at.core; k++) {
				int q = by_core[k], near = served_by[q].cpu == at.cpu ? 0 : 1;
				if (best < 0 || near < bestnear || (near == bestnear && nassigned[q] < nassigned[best])) {
					best = q;
					bestnear = near;
				}
			}
		}
		if ((rc = np_cpuset_set(&want[best], (unsigned)cpu)) == 0)
			nassigned[best]++;
	}
	np_cpuset_free(&serving_cores);
	free(off_core);
	free(nearest);
	np_cpuset_free(&served);
	for (int q = 0; rc == 0 && ncand > 1 && q < nif->ntx; q++) {
		if (!nif->xps_known[q])
			continue;
		char *why = NULL;
		int first = first_of[q];
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
	free(served_by);
	free(irq_of);
	free(first_of);
	free(by_core);
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

/* perftune.py's (and the kernel's scaling.rst's) size of RFS's global flow
 * table, split evenly over an interface's receive queues. */
#define RFS_FLOWS 32768

/* A count as the kernel keeps it: rounded up to a power of two, so that what
 * is written reads back. */
static int pow2_at_least(int n)
{
	int v = 1;
	while (v < n && v < 1 << 29)
		v <<= 1;
	return v;
}

static int int_rec(struct planner *p, enum np_attr kind, size_t di, const struct np_netif *nif, int q, long long cur,
		   int want, const char *why)
{
	struct np_rec r = { .kind = kind, .dev = (int)di, .irq = -1, .queue = q, .net = q >= 0 ? nif->name : NULL,
			    .rule = NP_RULE_RPS };
	if (cur >= 0 && asprintf(&r.current, "%lld", cur) < 0)
		r.current = NULL;
	if (asprintf(&r.recommended, "%d", want) < 0)
		r.recommended = NULL;
	r.reason = strdup(why);
	return plan_add_rec(p->m, p->plan, &r);
}

/* RFS beside the RPS the plan sets: each flow processed on the CPU its
 * consuming thread last ran on, not on a hashed one. Only where the
 * application may run on usable CPUs alone: RFS steers to the consumer's
 * CPU whatever rps_cpus says, so it would bring the softirq work onto an
 * isolated or exclusive CPU the application shares. The table sizes are
 * perftune.py's: 32768 flows machine-wide, split over the receive queues. */
static int rfs_recs(struct planner *p, size_t di, const struct np_netif *nif)
{
	const struct np_machine *m = p->m;
	int rc = 0;
	if (!np_cpuset_subset(&p->opts->app_cpus, &p->usable)) {
		struct np_cpuset bad = NP_CPUSET_INIT;
		bool failed = np_cpuset_copy(&bad, &p->opts->app_cpus) != 0;
		np_cpuset_andnot(&bad, &p->usable);
		char *where = failed ? NULL : np_forbidden_text(&p->opts->forbidden, &bad, &failed);
		if (!failed)
			rc = plan_note(p->plan, "%s: RPS without RFS: RFS would steer each flow to its consuming thread's CPU "
				       "whatever rps_cpus says, and the application may run on %s", nif->name,
				       where ? where : "CPUs kept free of IRQs");
		free(where);
		np_cpuset_free(&bad);
		return failed ? -ENOMEM : rc;
	}
	int per_queue = pow2_at_least(RFS_FLOWS / (nif->nrx > 0 ? nif->nrx : 1)), known = 0;
	for (int q = 0; q < nif->nrx; q++)
		known += nif->rps_flow_cnt[q] >= 0;
	if (!known)
		return 0; /* no flow table here (a kernel without RPS, a copy without the files) */
	for (int q = 0; q < nif->nrx && rc == 0; q++)
		if (nif->rps_flow_cnt[q] >= 0)
			rc = int_rec(p, NP_ATTR_RPS_FLOW_CNT, di, nif, q, nif->rps_flow_cnt[q],
				     nif->rps_flow_cnt[q] >= per_queue ? nif->rps_flow_cnt[q] : per_queue,
				     "RFS beside RPS: each flow processed where its consuming thread runs (kernel "
				     "Documentation/networking/scaling.rst), 32768 flows over the receive queues as "
				     "perftune.py splits them");
	/* One machine-wide table for every interface: said once. */
	bool said = m->rps_sock_flow_entries < 0;
	for (size_t i = 0; i < p->plan->n && !said; i++)
		said = p->plan->v[i].kind == NP_ATTR_RPS_SOCK_FLOW_ENTRIES;
	if (rc == 0 && !said)
		rc = int_rec(p, NP_ATTR_RPS_SOCK_FLOW_ENTRIES, di, nif, -1, m->rps_sock_flow_entries,
			     m->rps_sock_flow_entries >= RFS_FLOWS ? (int)m->rps_sock_flow_entries : RFS_FLOWS,
			     "RFS's table of flows for every interface: 32768, scaling.rst's value for a moderately "
			     "loaded server and perftune.py's");
	return rc;
}

int plan_net_recs(struct planner *p, size_t di)
{
	const struct np_machine *m = p->m;
	const struct np_device_policy *pol = &p->opts->devices[di];
	const struct np_pci_dev *d = &m->pci.devs[di];
	struct np_cpuset off = NP_CPUSET_INIT, rps_to = NP_CPUSET_INIT;
	int rc = np_cpuset_copy(&rps_to, &p->opts->app_cpus);
	np_cpuset_and(&rps_to, &p->usable);
	unsigned app_cores = count_cores(p, &rps_to, -2 - (int)di);

	for (size_t k = 0; k < d->nnet && rc == 0; k++) {
		/* A channel change the plan carries leaves the first queues only. */
		struct np_netif kept = d->net[k];
		int nkept = plan_queues_kept(p, di);
		if (nkept >= 0 && kept.nrx > nkept)
			kept.nrx = nkept;
		if (nkept >= 0 && kept.ntx > nkept)
			kept.ntx = nkept;
		const struct np_netif *nif = &kept;
		/* XPS only where the plan pins the same queue's IRQ to one CPU, and
		 * only with a choice of queues to make: for a device whose IRQs
		 * move (kept coherent with them), or on request. XPS off is no
		 * placement fault: the kernel picks each flow's queue by its hash. */
		if (nif->ntx > 1 && (pol->xps_follow_irq || (pol->auto_net && p->queues_move[di])))
			rc = xps_recs(p, di, nif);
		if (rc == 0 && k == 0)
			rc = plan_channels_rec(p, di, &d->net[k]);
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
		} else if (pol->auto_net && app_cores && nif->nrx > 0 && (unsigned)nif->nrx < app_cores &&
			   (!p->opts->app_is_process || (p->opts->app_devices && p->opts->app_devices[di]))) {
			rps = NP_RPS_APP;
			why = "fewer receive queues than the application's cores: RPS spreads receive processing "
			      "over them";
		}
		/* Never onto a CPU kept free of IRQs, whoever asks. */
		const struct np_cpuset *to = rps == NP_RPS_OFF ? &off : &rps_to;
		for (int q = 0; q < nif->nrx && rc == 0 && rps != NP_RPS_KEEP; q++)
			rc = net_rec(p, NP_ATTR_RPS_CPUS, di, nif, q, &nif->rps[q], to, why);
		if (rc == 0 && rps == NP_RPS_APP && pol->auto_net && !np_cpuset_empty(&rps_to))
			rc = rfs_recs(p, di, nif);
	}
	np_cpuset_free(&rps_to);
	return rc;
}

/* Interfaces whose XPS is off on every transmit queue while the plan
 * leaves their IRQs where they are: said once, as a fact. With XPS off the
 * kernel picks each flow's transmit queue by its hash (netdev_pick_tx),
 * which is no placement fault; --xps maps each CPU to the queue whose
 * interrupt is served nearest. */
int plan_xps_off_note(struct planner *p)
{
	const struct np_machine *m = p->m;
	char *names = NULL;
	size_t len = 0, n = 0;
	int rc = 0;
	for (size_t di = 0; rc == 0 && di < m->pci.ndevs; di++) {
		const struct np_device_policy *pol = &p->opts->devices[di];
		const struct np_pci_dev *d = &m->pci.devs[di];
		if (!pol->selected || !pol->auto_net || pol->xps_follow_irq || p->queues_move[di])
			continue;
		for (size_t k = 0; rc == 0 && k < d->nnet; k++) {
			const struct np_netif *nif = &d->net[k];
			bool off = nif->ntx > 1;
			for (int q = 0; off && q < nif->ntx; q++)
				off = nif->xps_known[q] && np_cpuset_empty(&nif->xps[q]);
			if (!off)
				continue;
			char *more = realloc(names, len + strlen(nif->name) + 3);
			if (!more) {
				rc = -ENOMEM;
				break;
			}
			names = more;
			len += (size_t)sprintf(names + len, "%s%s", n++ ? ", " : "", nif->name);
		}
	}
	if (rc == 0 && n)
		rc = plan_note(p->plan, "XPS is off on %s: each flow's transmit queue is picked by its hash, no placement "
			       "fault; --xps maps each CPU to the queue whose interrupt is served nearest", names);
	free(names);
	return rc;
}
