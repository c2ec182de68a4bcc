#include "findings.h"

#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

const char *np_severity_name(enum np_severity s)
{
	return s == NP_WARNING ? "warning" : "info";
}

static int add(struct np_findings *f, enum np_severity sev, const char *kind, const char *subject,
	       const char *fmt, ...) __attribute__((format(printf, 5, 6)));

static int add(struct np_findings *f, enum np_severity sev, const char *kind, const char *subject,
	       const char *fmt, ...)
{
	struct np_finding *more = realloc(f->v, (f->n + 1) * sizeof(*more));
	if (!more)
		return -ENOMEM;
	f->v = more;
	struct np_finding *x = &f->v[f->n];
	x->severity = sev;
	x->kind = kind;
	x->subject = strdup(subject);
	va_list ap;
	va_start(ap, fmt);
	if (vasprintf(&x->message, fmt, ap) < 0)
		x->message = NULL;
	va_end(ap);
	if (!x->subject || !x->message) {
		free(x->subject);
		free(x->message);
		return -ENOMEM;
	}
	f->n++;
	return 0;
}

static const char *dev_label(const struct np_pci_dev *d)
{
	return d->child_driver ? d->child_driver : d->driver ? d->driver : "no driver";
}

/* Device-level findings: node unknown, IRQs mostly remote, managed IRQs,
 * rq_affinity 0 with remote completions. */
static int device_findings(const struct np_machine *m, size_t di, struct np_findings *f)
{
	const struct np_pci_dev *d = &m->pci.devs[di];
	bool inferred;
	int node = np_device_node(m, d, &inferred);
	struct np_irq_summary s;
	int rc = 0;

	np_device_irq_summary(m, di, &s);
	if (m->topo.nnodes > 1 && d->numa_node < 0 && np_pci_dev_matters(d, s.nirqs > 0) && inferred)
		rc = add(f, NP_WARNING, "no_numa_node", d->addr,
			 "%s (%s): firmware reports no NUMA node; its local CPUs are node %d's, so node %d is assumed",
			 d->addr, dev_label(d), node, node);
	else if (m->topo.nnodes > 1 && d->numa_node < 0 && np_pci_dev_matters(d, s.nirqs > 0))
		rc = add(f, NP_WARNING, "no_numa_node", d->addr,
			 "%s (%s): firmware reports no NUMA node, so its locality is unknown", d->addr, dev_label(d));
	if (!rc && s.node_known && s.total > 0 && (double)s.remote / (double)s.total >= NP_REMOTE_SHARE_THRESHOLD)
		rc = add(f, NP_WARNING, "remote_irqs", d->addr,
			 "%s (%s, node %d): %.0f%% of its %llu interrupts ran on other nodes (%d of %d IRQs mostly remote)",
			 d->addr, dev_label(d), node, 100.0 * (double)s.remote / (double)s.total, s.total,
			 s.nremote, s.nirqs);
	if (!rc && s.nmanaged > 0)
		rc = add(f, NP_INFO, "managed_irqs", d->addr,
			 "%s (%s): %d of %d IRQs are managed%s: the kernel owns their placement", d->addr,
			 dev_label(d), s.nmanaged, s.nirqs, m->irqs.debugfs ? "" : " (inferred from the driver)");
	for (size_t b = 0; !rc && b < d->nblock; b++)
		if (d->block[b].rq_affinity == 0 && s.remote > 0)
			rc = add(f, NP_WARNING, "rq_affinity_remote", d->block[b].name,
				 "%s: rq_affinity is 0 and %.0f%% of %s's completions land on other nodes than %d: "
				 "completions run where the interrupt lands, not near the submitter",
				 d->block[b].name, 100.0 * (double)s.remote / (double)s.total, d->addr, node);
	return rc;
}

static int isolated_findings(const struct np_machine *m, struct np_findings *f)
{
	struct np_cpuset quiet = NP_CPUSET_INIT, hit = NP_CPUSET_INIT;
	int rc = np_cpuset_copy(&quiet, &m->topo.isolated);
	if (!rc)
		rc = np_cpuset_or(&quiet, &m->topo.nohz_full);
	for (size_t i = 0; !rc && i < m->irqs.n && !np_cpuset_empty(&quiet); i++) {
		const struct np_irq *irq = &m->irqs.v[i];
		if (!irq->has_affinity || irq->managed != NP_MANAGED_NO || !np_cpuset_intersects(&irq->affinity, &quiet))
			continue;
		if ((rc = np_cpuset_copy(&hit, &irq->affinity)))
			break;
		np_cpuset_and(&hit, &quiet);
		char subject[32], *cpus = np_cpuset_format_list(&hit);
		snprintf(subject, sizeof(subject), "irq %d", irq->irq);
		rc = cpus ? add(f, NP_WARNING, "irq_on_isolated_cpus", subject,
				"irq %d (%s) may run on isolated or nohz_full CPUs %s: it will interrupt the work kept there",
				irq->irq, irq->name[0] ? irq->name : "unnamed", cpus)
			  : -ENOMEM;
		free(cpus);
	}
	np_cpuset_free(&quiet);
	np_cpuset_free(&hit);
	return rc;
}

int np_findings_collect(const struct np_machine *m, struct np_findings *out)
{
	memset(out, 0, sizeof(*out));
	int rc = 0;
	if (m->irqbalance)
		rc = add(out, NP_WARNING, "irqbalance", "irqbalance",
			 "irqbalance is running: it rewrites IRQ affinities every 10 s and will undo any placement");
	for (size_t i = 0; !rc && i < m->pci.ndevs; i++)
		rc = device_findings(m, i, out);
	if (!rc)
		rc = isolated_findings(m, out);
	if (rc)
		np_findings_free(out);
	return rc;
}

void np_findings_free(struct np_findings *f)
{
	for (size_t i = 0; i < f->n; i++) {
		free(f->v[i].subject);
		free(f->v[i].message);
	}
	free(f->v);
	memset(f, 0, sizeof(*f));
}
