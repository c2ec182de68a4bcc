/* SPDX-License-Identifier: GPL-2.0-or-later */
/* What the plan leaves to the kernel or to someone else, said beside it: the
 * managed IRQs (the kernel owns them; on isolated CPUs only the boot options
 * may help, and only for some masks), the IRQs pinned on CPUs only
 * irqbalance's configuration bans, and the affinities not yet followed
 * (without interrupt remapping a new mask waits for the next interrupt) or
 * not honoured. Each cites what the kernel does. */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "judge/planner.h"

/* The IRQs of one device whose new mask waits for their next interrupt. */
struct pending {
	char *list; /* "irq 29 virtio0-output.0 to CPUs 0-1 (on CPU 5 until then), ..." */
	int n;
	const char *chip;
};

/* An IRQ delivered outside its affinity. Without interrupt remapping the
 * kernel keeps a new mask pending until the interrupt next fires
 * (irq_set_affinity_locked(), applied by irq_move_masked_irq()): an idle
 * queue stays where it was, as it should; it joins the device's note.
 * Otherwise (debugfs saying no move waits, or a remapped chip) the kernel
 * did not honour it. */
static int delivery_warning(struct planner *p, const struct np_irq *irq, const struct np_pci_dev *d,
			    struct pending *pend)
{
	if (!irq->has_affinity || !irq->has_effective || np_cpuset_empty(&irq->effective) ||
	    np_cpuset_subset(&irq->effective, &irq->affinity))
		return 0;
	char *eff = list_text(&irq->effective), *aff = list_text(&irq->affinity), *more = NULL;
	int rc = eff && aff ? 0 : -ENOMEM;
	if (rc == 0 && (irq->move_pending || (irq->move_deferred && !p->m->irqs.debugfs))) {
		if (asprintf(&more, "%s%sirq %d %s to CPU%s %s (on CPU %s until then)", pend->list ? pend->list : "",
			     pend->list ? ", " : "", irq->irq, irq->name, np_cpuset_count(&irq->affinity) > 1 ? "s" : "",
			     aff, eff) < 0)
			rc = -ENOMEM;
		free(pend->list);
		pend->list = more;
		pend->n++;
		pend->chip = irq->chip;
	} else if (rc == 0) {
		rc = plan_warn(p->plan, "irq %d %s (%s): affinity not honoured: it runs on CPU %s, outside its affinity %s "
			       "(usually no free vector there: see /proc/interrupts and debugfs)", irq->irq, irq->name,
			       d->addr, eff, aff);
	}
	free(eff);
	free(aff);
	return rc;
}

static int pending_note(struct planner *p, const struct np_pci_dev *d, struct pending *pend)
{
	int rc = !pend->n ? 0
		 : pend->n == 1 ? plan_note(p->plan, "%s (%s): %s when it next fires: without interrupt remapping (chip "
					    "%s) the kernel applies a new affinity on the next interrupt, and it has not "
					    "fired since", d->addr, plan_dev_label(d), pend->list, pend->chip)
				: plan_note(p->plan, "%s (%s): %d IRQs move when they next fire: %s; without interrupt "
					    "remapping (chip %s) the kernel applies a new affinity on the next interrupt, "
					    "and they have not fired since", d->addr, plan_dev_label(d), pend->n, pend->list,
					    pend->chip);
	free(pend->list);
	memset(pend, 0, sizeof(*pend));
	return rc;
}

/* A device's managed IRQs delivered on isolated or nohz_full CPUs. The kernel
 * steers a managed IRQ off isolated CPUs under isolcpus=managed_irq only when
 * its mask also holds an online housekeeping CPU (irq_do_set_affinity() in
 * kernel/irq/manage.c, and hk_should_isolate() on CPU hotplug, Linux 5.6); a
 * mask wholly on isolated CPUs is kept, and its queue fires only for I/O
 * submitted on those CPUs: no boot option moves it, and none needs to. */
static int managed_warning(struct planner *p, size_t di, const struct np_cpuset *iso)
{
	const struct np_machine *m = p->m;
	const struct np_pci_dev *d = &m->pci.devs[di];
	struct np_cpuset mixed = NP_CPUSET_INIT, whole = NP_CPUSET_INIT;
	int nmixed = 0, nwhole = 0, rc = 0;
	np_irqs_foreach_of_dev(&m->irqs, (int)di, i) {
		if (rc)
			break;
		const struct np_irq *irq = &m->irqs.v[i];
		if (irq->dev != (int)di || irq->managed == NP_MANAGED_NO || !irq->has_effective ||
		    !np_cpuset_intersects(&irq->effective, iso))
			continue;
		bool wholly = irq->has_affinity && np_cpuset_subset(&irq->affinity, iso);
		nwhole += wholly;
		nmixed += !wholly;
		rc = np_cpuset_or(wholly ? &whole : &mixed, &irq->effective);
	}
	np_cpuset_and(&mixed, iso);
	np_cpuset_and(&whole, iso);
	char *cmix = nmixed ? list_text(&mixed) : NULL, *cwhole = nwhole ? list_text(&whole) : NULL;
	char *all = nmixed ? list_text(iso) : NULL;
	if (rc == 0 && ((nmixed && (!cmix || !all)) || (nwhole && !cwhole)))
		rc = -ENOMEM;
	bool many = nmixed > 1, cpus = np_cpuset_count(&mixed) > 1;
	if (rc == 0 && nmixed && m->managed_irq_isolation)
		rc = plan_warn(p->plan, "%s (%s): %d managed IRQ%s on isolated CPU%s %s although isolcpus= has managed_irq "
			       "and %s mask%s hold%s housekeeping CPUs: the kernel keeps %s off only the CPUs "
			       "isolcpus=managed_irq lists, and only while a housekeeping CPU of the mask is online; "
			       "list %s there", d->addr, plan_dev_label(d), nmixed, many ? "s" : "", cpus ? "s" : "", cmix,
			       many ? "their" : "its", many ? "s" : "", many ? "" : "s", many ? "them" : "it", all);
	else if (rc == 0 && nmixed)
		rc = plan_warn(p->plan, "%s (%s): %d managed IRQ%s on isolated CPU%s %s whose mask%s also hold%s "
			       "housekeeping CPUs: writing cannot move %s; boot with isolcpus=managed_irq,%s and the kernel "
			       "delivers %s on %s mask%s housekeeping CPUs (irq_do_set_affinity(), Linux 5.6)", d->addr,
			       plan_dev_label(d), nmixed, many ? "s" : "", cpus ? "s" : "", cmix, many ? "s" : "",
			       many ? "" : "s", many ? "them" : "it", all, many ? "them" : "it", many ? "their" : "its",
			       many ? "s'" : "'s");
	many = nwhole > 1;
	if (rc == 0 && nwhole)
		rc = plan_note(p->plan, "%s (%s): %d managed IRQ%s on isolated CPU%s %s serve%s only isolated CPUs (no "
			       "housekeeping CPU in %s mask): %s only for I/O submitted there, and isolcpus=managed_irq "
			       "would not move %s (irq_do_set_affinity() keeps such a mask); keep the isolated work's I/O "
			       "off this device", d->addr, plan_dev_label(d), nwhole, many ? "s" : "",
			       np_cpuset_count(&whole) > 1 ? "s" : "", cwhole, many ? "" : "s", many ? "their" : "its",
			       many ? "they fire" : "it fires", many ? "them" : "it");
	free(cmix);
	free(cwhole);
	free(all);
	np_cpuset_free(&mixed);
	np_cpuset_free(&whole);
	return rc;
}

/* Warnings and notes about IRQs the plan cannot or does not move but should
 * be known: managed ones (the kernel owns them; on isolated CPUs only the
 * kernel command line may help), those pinned on CPUs only irqbalance bans,
 * and where delivery differs from the mask. */
int plan_irq_notes(struct planner *p)
{
	const struct np_machine *m = p->m;
	const struct np_topology *topo = &m->topo;
	struct np_cpuset iso = NP_CPUSET_INIT, banned = NP_CPUSET_INIT;
	int rc = np_cpuset_copy(&iso, &topo->isolated);
	if (rc == 0)
		rc = np_cpuset_or(&iso, &topo->nohz_full);
	for (size_t di = 0; rc == 0 && di < m->pci.ndevs; di++) {
		const struct np_pci_dev *d = &m->pci.devs[di];
		if (!p->opts->devices[di].selected)
			continue;
		int nmanaged = 0, npinned = 0;
		struct pending pend = { 0 };
		np_cpuset_clear(&banned);
		np_irqs_foreach_of_dev(&m->irqs, (int)di, i) {
			if (rc)
				break;
			const struct np_irq *irq = &m->irqs.v[i];
			if (irq->dev != (int)di)
				continue;
			nmanaged += irq->managed != NP_MANAGED_NO;
			if (irq->managed == NP_MANAGED_NO && !np_cpuset_empty(&p->target[di]) && plan_pinned_on_banned(p, irq)) {
				npinned++;
				rc = np_cpuset_or(&banned, &irq->affinity);
			}
			if (rc == 0)
				rc = delivery_warning(p, irq, d, &pend);
		}
		int prc = pending_note(p, d, &pend);
		rc = rc ? rc : prc;
		if (rc == 0 && nmanaged && !np_cpuset_empty(&p->target[di]))
			rc = plan_note(p->plan, "%s (%s): %d managed IRQ%s left as %s: the kernel owns %s placement",
				  d->addr, plan_dev_label(d), nmanaged, nmanaged > 1 ? "s" : "",
				  nmanaged > 1 ? "they are" : "it is", nmanaged > 1 ? "their" : "its");
		if (rc == 0 && npinned) {
			char *cpus = list_text(&banned);
			rc = !cpus ? -ENOMEM
				   : plan_note(p->plan, "%s (%s): %d IRQ%s pinned on CPU%s %s, which irqbalance's configuration "
					       "bans, left as %s: someone may have dedicated %s to %s", d->addr,
					       plan_dev_label(d), npinned, npinned > 1 ? "s" : "", np_cpuset_count(&banned) > 1 ? "s" : "",
					       cpus, npinned > 1 ? "they are" : "it is",
					       np_cpuset_count(&banned) > 1 ? "those CPUs" : "that CPU", npinned > 1 ? "them" : "it");
			free(cpus);
		}
		if (rc == 0 && !np_cpuset_empty(&iso))
			rc = managed_warning(p, di, &iso);
	}
	np_cpuset_free(&iso);
	np_cpuset_free(&banned);
	return rc;
}
