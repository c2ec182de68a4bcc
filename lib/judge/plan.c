/* SPDX-License-Identifier: GPL-2.0-or-later */
/* A plan's records, notes and warnings, and what the planner is asked: each
 * device's policy, and the containers' CPUs made forbidden after the
 * pile-up guard. */
#include "judge/plan.h"

#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "base/array.h"
#include "base/count.h"
#include "read/kubelet.h"

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

int plan_warn(struct np_plan *plan, const char *fmt, ...)
{
	va_list ap;
	va_start(ap, fmt);
	int rc = vnote(&plan->warnings, &plan->nwarnings, fmt, ap);
	va_end(ap);
	return rc;
}

int plan_note(struct np_plan *plan, const char *fmt, ...)
{
	va_list ap;
	va_start(ap, fmt);
	int rc = vnote(&plan->notes, &plan->nnotes, fmt, ap);
	va_end(ap);
	return rc;
}

const char *np_volume_text(const struct np_machine *m, unsigned long long n, char buf[32])
{
	char c[16];
	double rate = np_cpu_load_rate(&m->load, n);
	if (rate >= 0)
		snprintf(buf, 32, "%s", np_rate_text(rate, c));
	else
		snprintf(buf, 32, "%s interrupts", np_count_text(n, c));
	return buf;
}

const char *plan_dev_label(const struct np_pci_dev *d)
{
	if (d->nnet)
		return d->net[0].name;
	if (d->nblock)
		return d->block[0].name;
	return d->child_driver ? d->child_driver : d->driver ? d->driver : "device";
}

int plan_add_rec(const struct np_machine *m, struct np_plan *plan, struct np_rec *r)
{
	r->target = (struct np_target){ .irq = r->irq, .queue = r->queue, .net = r->net, .block = r->block,
					.device = r->dev >= 0 ? m->pci.devs[r->dev].addr : NULL, .vector = r->vector };
	struct np_rec *more = np_array_room(plan->v, plan->n, sizeof(*more));
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

int np_advise_opts_for(const struct np_machine *m, enum np_irq_policy irqs, const bool *selected,
		       struct np_advise_opts *o)
{
	if (!(o->devices = calloc(m->pci.ndevs + 1, sizeof(*o->devices))) ||
	    np_forbidden_find(m, &o->exclude, &o->forbidden))
		return -ENOMEM;
	for (size_t i = 0; i < m->pci.ndevs; i++)
		o->devices[i] = (struct np_device_policy){ .selected = selected[i], .irqs = irqs,
							   .rq_affinity = NP_RQ_AUTO, .rps = NP_RPS_KEEP,
							   .auto_net = true, .channels = NP_CHANNELS_OFFER };
	return 0;
}

void np_advise_opts_free(struct np_advise_opts *o)
{
	free(o->devices);
	o->devices = NULL;
	np_cpuset_free(&o->app_cpus);
	np_cpuset_free(&o->exclude);
	np_forbidden_free(&o->forbidden);
}

/* Physical cores among cpus (SMT siblings count once). */
static int cores_in(const struct np_topology *topo, const struct np_cpuset *cpus)
{
	int n = 0;
	np_cpuset_foreach(cpu, cpus) {
		const struct np_cpu *c = NULL;
		for (int i = 0; i < topo->ncpus && !c; i++)
			if (topo->cpus[i].id == cpu)
				c = &topo->cpus[i];
		/* Counted at its lowest sibling within the set. */
		int first = cpu;
		if (c)
			np_cpuset_foreach(sib, &c->siblings)
				if (sib < first && np_cpuset_test(cpus, (unsigned)sib))
					first = sib;
		n += first == cpu;
	}
	return n;
}

int np_texts_take(char ***v, size_t *n, char *text)
{
	char **more = text ? realloc(*v, (*n + 1) * sizeof(*more)) : NULL;
	if (!more) {
		free(text);
		return -ENOMEM;
	}
	*v = more;
	more[(*n)++] = text;
	return 0;
}

int np_advise_opts_forbid(const struct np_machine *m, struct np_advise_opts *o, char ***warnings, size_t *nwarnings)
{
	const struct np_kubelet *k = &m->kube;
	const struct np_cpuset *excl = &o->forbidden.by[NP_FORBID_EXCLUSIVE];
	struct np_cpuset usable = NP_CPUSET_INIT, before = NP_CPUSET_INIT, after = NP_CPUSET_INIT;
	/* The other sources beyond the kernel's and the user's (TuneD's,
	 * irqbalance's) are forbidden as they are: their owners chose them. */
	int rc = 0;
	for (int s = 0; s < NP_FORBID_NSOURCES && rc == 0; s++)
		if (s != NP_FORBID_ISOLATED && s != NP_FORBID_NOHZ_FULL && s != NP_FORBID_EXCLUDED && s != NP_FORBID_EXCLUSIVE)
			rc = np_cpuset_or(&o->exclude, &o->forbidden.by[s]);
	if (rc || np_cpuset_empty(excl))
		return rc;
	rc = np_usable_cpus(&m->topo, &o->exclude, &usable);
	for (size_t di = 0; rc == 0 && di < m->pci.ndevs; di++) {
		struct np_device_policy *pol = &o->devices[di];
		if (!pol->selected)
			continue;
		const struct np_cpuset *base = NULL;
		int node = np_device_node(m, &m->pci.devs[di], NULL);
		switch (pol->irqs) {
		case NP_IRQS_LOCAL:
			base = node >= 0 ? &np_topology_node(&m->topo, node)->cpus : NULL;
			break;
		case NP_IRQS_APP:
			base = &o->app_cpus;
			break;
		case NP_IRQS_SPREAD:
			base = &m->topo.online;
			break;
		case NP_IRQS_CPUS:
			base = &pol->irq_cpus;
			break;
		case NP_IRQS_KEEP:
			break;
		}
		if (!base || (rc = np_cpuset_copy(&before, base)) || (rc = np_cpuset_copy(&after, base)))
			continue;
		np_cpuset_and(&before, &usable);
		np_cpuset_and(&after, &usable);
		np_cpuset_andnot(&after, excl);
		/* Nothing to clear, or nothing left here (the advisor goes to the
		 * nearest CPUs instead): no pile-up of this target to fear. */
		if (!np_cpuset_intersects(&before, excl) || np_cpuset_empty(&after))
			continue;
		/* Its queues: the vectors of one queue move together. */
		int queues = 0, last = -1;
		for (size_t i = 0; i < m->irqs.n; i++) {
			const struct np_irq *irq = &m->irqs.v[i];
			if (irq->dev != (int)di || irq->managed != NP_MANAGED_NO || irq->queue < 0)
				continue;
			bool seen = irq->queue == last;
			for (size_t j = 0; j < i && !seen; j++)
				seen = m->irqs.v[j].dev == (int)di && m->irqs.v[j].managed == NP_MANAGED_NO &&
				       m->irqs.v[j].queue == irq->queue;
			queues += !seen;
			last = irq->queue;
		}
		int cores_before = cores_in(&m->topo, &before), cores_after = cores_in(&m->topo, &after);
		if (!queues || !cores_before || !cores_after)
			continue;
		int share = (queues + cores_before - 1) / cores_before, then = (queues + cores_after - 1) / cores_after;
		if (then <= share + 1)
			continue;
		struct np_cpuset hit = NP_CPUSET_INIT;
		char *cpus = NULL, *owners, *text;
		if (np_cpuset_copy(&hit, &before) == 0) {
			np_cpuset_and(&hit, excl);
			cpus = np_cpuset_format_list(&hit);
		}
		owners = np_kube_owners_text(k, &hit);
		const struct np_pci_dev *d = &m->pci.devs[di];
		if (!cpus || !owners ||
		    asprintf(&text, "%s (%s): clearing CPU%s %s, exclusive to container %s, would put its %d queues on %d core%s, "
			     "%d per core against %d over the %d cores with them: a pile-up, so its IRQs are left as "
			     "they are; give the pod CPUs away from the device's, or the device fewer queues",
			     d->addr, d->nnet ? d->net[0].name : d->nblock ? d->block[0].name : d->driver ? d->driver : "device",
			     np_cpuset_count(&hit) > 1 ? "s" : "", cpus, owners, queues, cores_after,
			     cores_after > 1 ? "s" : "", then, share, cores_before) < 0)
			text = NULL;
		free(cpus);
		free(owners);
		np_cpuset_free(&hit);
		pol->irqs = NP_IRQS_KEEP;
		rc = np_texts_take(warnings, nwarnings, text);
	}
	np_cpuset_free(&usable);
	np_cpuset_free(&before);
	np_cpuset_free(&after);
	return rc ? rc : np_cpuset_or(&o->exclude, excl);
}
