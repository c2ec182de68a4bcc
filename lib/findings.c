/* SPDX-License-Identifier: GPL-2.0-or-later */
#include "findings.h"

#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cpudesc.h"
#include "quote.h"

/* One row per kind: how much an interrupt at stake weighs. An interrupt on an
 * isolated CPU stalls the latency-critical work kept there; a remote one
 * costs a cross-node cache miss or two. */
static const struct kind {
	const char *name;
	enum np_severity severity;
	double factor;
} kinds[] = {
	{ "irq_on_isolated_cpus", NP_WARNING, 2.0 },
	{ "irq_on_exclusive_cpus", NP_WARNING, 2.0 },
	{ "remote_irqs", NP_WARNING, 1.0 },
	{ "rq_affinity_remote", NP_WARNING, 0.5 },
	{ "system_irqs_on_isolated_cpus", NP_WARNING, 0.5 },
	{ "no_numa_node", NP_WARNING, 0.1 },
	{ "irqbalance", NP_WARNING, 0 },
	{ "managed_irqs", NP_INFO, 0 },
};

static const struct kind *kind_of(const char *name)
{
	for (size_t i = 0; i < sizeof(kinds) / sizeof(kinds[0]); i++)
		if (!strcmp(kinds[i].name, name))
			return &kinds[i];
	return NULL;
}

const char *np_severity_name(enum np_severity s)
{
	return s == NP_WARNING ? "warning" : "info";
}

const char *np_count_text(unsigned long long n, char buf[16])
{
	static const char unit[] = "kMGTPE";
	if (n < 10000) {
		snprintf(buf, 16, "%llu", n);
		return buf;
	}
	double v = (double)n;
	int u = -1;
	while (v >= 999.5 && u < 5) {
		v /= 1000;
		u++;
	}
	snprintf(buf, 16, v < 99.95 ? "%.1f%c" : "%.0f%c", v, unit[u]);
	return buf;
}

static void finding_free(struct np_finding *x)
{
	free(x->subject);
	free(x->message);
	free(x->who);
	free(x->fix);
	free(x->per_node);
	np_cpuset_free(&x->cpus);
}

/* A new finding of kind at the end of f, its message from fmt; NULL on ENOMEM. */
static struct np_finding *add(struct np_findings *f, const char *kind, const char *subject, const char *fmt, ...)
	__attribute__((format(printf, 4, 5)));
static struct np_finding *add(struct np_findings *f, const char *kind, const char *subject, const char *fmt, ...)
{
	struct np_finding *more = realloc(f->v, (f->n + 1) * sizeof(*more));
	if (!more)
		return NULL;
	f->v = more;
	struct np_finding *x = &f->v[f->n];
	memset(x, 0, sizeof(*x));
	const struct kind *k = kind_of(kind);
	x->severity = k ? k->severity : NP_INFO;
	x->kind = kind;
	x->dev = -1;
	x->irq = -1;
	x->subject = strdup(subject);
	va_list ap;
	va_start(ap, fmt);
	if (vasprintf(&x->message, fmt, ap) < 0)
		x->message = NULL;
	va_end(ap);
	if (!x->subject || !x->message) {
		finding_free(x);
		return NULL;
	}
	f->n++;
	return x;
}

static const char *dev_label(const struct np_pci_dev *d)
{
	return d->child_driver ? d->child_driver : d->driver ? d->driver : "no driver";
}

/* What people call the device: its interface or disk, then its address. */
static char *dev_who(const struct np_machine *m, const struct np_pci_dev *d)
{
	const char *name = d->nnet ? d->net[0].name : d->nblock ? d->block[0].name : NULL;
	int node = np_device_node(m, d, NULL);
	char nodebuf[16] = "node unknown", *out;
	if (node >= 0)
		snprintf(nodebuf, sizeof(nodebuf), "node %d", node);
	if (asprintf(&out, "%s%s%s (%s, %s)", name ? name : "", name ? " " : "", d->addr, dev_label(d), nodebuf) < 0)
		return NULL;
	return out;
}

/* A command line to be run as shown (eval'd even): the name quoted for the
 * shell, or the PCI address for a name whose bytes do not show. */
static char *fix_for(const struct np_pci_dev *d)
{
	const char *name = d->nnet ? d->net[0].name : d->nblock ? d->block[0].name : d->addr;
	char *quoted = np_shell_quote(np_printable(name) ? name : d->addr), *out;
	if (!quoted || asprintf(&out, "numaplace advise --device %s", quoted) < 0)
		out = NULL;
	free(quoted);
	return out;
}

/* The IRQs of one device (or class) that a finding is about, summed. */
struct tally {
	int nirqs, irq;
	unsigned long long total, remote, quiet;
	unsigned long long *per_node;
	struct np_cpuset cpus;
};

static int tally_add(const struct np_machine *m, struct tally *t, const struct np_irq *irq,
		     const struct np_cpuset *cpus)
{
	if (!t->per_node && !(t->per_node = calloc((size_t)m->topo.nnodes + 1, sizeof(*t->per_node))))
		return -ENOMEM;
	t->irq = t->nirqs++ ? -1 : irq->irq;
	t->total += irq->total;
	t->quiet += irq->quiet;
	for (int n = 0; n < m->topo.nnodes; n++)
		t->per_node[n] += irq->per_node[n];
	return np_cpuset_or(&t->cpus, cpus);
}

static void tally_free(struct tally *t)
{
	free(t->per_node);
	np_cpuset_free(&t->cpus);
	memset(t, 0, sizeof(*t));
}

/* Moves the tally's facts into a finding. */
static void take(struct np_finding *x, struct tally *t, unsigned long long at_stake)
{
	x->nirqs = t->nirqs;
	x->irq = t->irq;
	x->total = t->total;
	x->interrupts = at_stake;
	x->per_node = t->per_node;
	x->cpus = t->cpus;
	t->per_node = NULL;
	t->cpus = (struct np_cpuset)NP_CPUSET_INIT;
	const struct kind *k = kind_of(x->kind);
	x->weight = (double)at_stake * (k ? k->factor : 0);
}

/* "IRQ 50", "9 IRQs" */
static const char *irqs_text(const struct tally *t)
{
	static char buf[32];
	if (t->nirqs == 1)
		snprintf(buf, sizeof(buf), "IRQ %d", t->irq);
	else
		snprintf(buf, sizeof(buf), "%d IRQs", t->nirqs);
	return buf;
}

/* "node 0 100%", "node 0 60%, node 1 40%": where the interrupts ran (shares
 * under 0.5% left out). */
static char *shares_text(const struct np_machine *m, const unsigned long long *per_node, unsigned long long total)
{
	char *out = strdup(""), *more;
	for (int n = 0; out && total && n < m->topo.nnodes; n++) {
		if (200 * per_node[n] < total)
			continue;
		if (asprintf(&more, "%s%snode %d %.0f%%", out, *out ? ", " : "", m->topo.nodes[n].id,
			     100.0 * (double)per_node[n] / (double)total) < 0)
			more = NULL;
		free(out);
		out = more;
	}
	return out;
}

static bool is_system(const struct np_machine *m, const struct np_irq *irq)
{
	return irq->dev < 0 || !np_pci_dev_matters(&m->pci.devs[irq->dev], true);
}

/* Interrupts off the device's node, managed IRQs left out: the kernel spreads
 * those per CPU on purpose, so "remote" says nothing about them. */
static int remote_finding(const struct np_machine *m, size_t di, int node, struct np_findings *f)
{
	const struct np_pci_dev *d = &m->pci.devs[di];
	struct tally t = { 0 };
	int rc = 0;
	for (size_t i = 0; !rc && i < m->irqs.n; i++) {
		const struct np_irq *irq = &m->irqs.v[i];
		if (irq->dev != (int)di || irq->managed != NP_MANAGED_NO || !irq->total)
			continue;
		rc = tally_add(m, &t, irq, irq->has_effective ? &irq->effective : &irq->ran_on);
		double share = np_irq_remote_share(m, irq, node);
		if (share > 0)
			t.remote += (unsigned long long)(share * (double)irq->total + 0.5);
	}
	if (rc || t.remote == 0) {
		tally_free(&t);
		return rc;
	}
	char *who = dev_who(m, d), *shares = shares_text(m, t.per_node, t.total);
	char *where = np_cpus_where(&m->topo, &t.cpus), a[16], b[16];
	struct np_finding *x = NULL;
	if (who && shares && where)
		x = add(f, "remote_irqs", d->addr, "%s: %s on %s; %s of %s interrupts ran off node %d (%s)",
			who, irqs_text(&t), where, np_count_text(t.remote, a), np_count_text(t.total, b), node, shares);
	if (x) {
		x->dev = (int)di;
		x->who = who;
		who = NULL;
		x->what = "remote";
		x->fix = fix_for(d);
		take(x, &t, t.remote);
		x->minor = t.remote < f->min_interrupts;
	}
	free(who);
	free(shares);
	free(where);
	tally_free(&t);
	return x && x->fix ? 0 : -ENOMEM;
}

static bool quiet_cpus(const struct np_machine *m, struct np_cpuset *quiet)
{
	if (np_cpuset_copy(quiet, &m->topo.isolated) || np_cpuset_or(quiet, &m->topo.nohz_full))
		return false;
	return true;
}

/* IRQs that ran on, or are set to run on, isolated or nohz_full CPUs: one
 * finding for a device's, one for the system's (timer, PCIe ports, ACPI). */
static int isolated_finding(const struct np_machine *m, int di, const struct np_cpuset *quiet, struct np_findings *f)
{
	struct tally t = { 0 };
	struct np_cpuset hit = NP_CPUSET_INIT;
	char *names = strdup(""), *more;
	int rc = names ? 0 : -ENOMEM;
	for (size_t i = 0; !rc && i < m->irqs.n; i++) {
		const struct np_irq *irq = &m->irqs.v[i];
		if (di >= 0 ? irq->dev != di : !is_system(m, irq))
			continue;
		bool set_there = irq->has_effective && np_cpuset_intersects(&irq->effective, quiet);
		bool ran_there = irq->quiet > 0;
		if (!set_there && !ran_there)
			continue;
		if ((rc = np_cpuset_copy(&hit, set_there ? &irq->effective : &irq->ran_on)))
			break;
		np_cpuset_and(&hit, quiet);
		if ((rc = tally_add(m, &t, irq, &hit)))
			break;
		/* Names of a class, each once: "PCIe PME" for all the ports. */
		const char *name = irq->name[0] ? irq->name : "unnamed";
		size_t nlen = strcspn(name, ",");
		bool seen = false;
		for (const char *p = names; *p && !seen; p += strcspn(p, ",") + (p[strcspn(p, ",")] ? 2 : 0))
			seen = strcspn(p, ",") == nlen && !strncmp(p, name, nlen);
		if (di < 0 && !seen) {
			if (asprintf(&more, "%s%s%.*s", names, *names ? ", " : "", (int)nlen, name) < 0)
				more = NULL;
			free(names);
			names = more;
			rc = names ? 0 : -ENOMEM;
		}
	}
	np_cpuset_free(&hit);
	if (rc || t.nirqs == 0) {
		free(names);
		tally_free(&t);
		return rc;
	}
	char *who = NULL, *cpus = np_cpuset_format_short(&t.cpus, NP_CPUS_TEXT_MAX), a[16], b[16];
	if (di >= 0)
		who = dev_who(m, &m->pci.devs[di]);
	else if (asprintf(&who, "system IRQs (%s)", names) < 0)
		who = NULL;
	struct np_finding *x = NULL;
	if (who && cpus)
		x = add(f, di >= 0 ? "irq_on_isolated_cpus" : "system_irqs_on_isolated_cpus",
			di >= 0 ? m->pci.devs[di].addr : "system irqs",
			"%s: %s on isolated CPU%s %s; %s of %s interrupts ran there",
			who, irqs_text(&t), np_cpuset_count(&t.cpus) == 1 ? "" : "s", cpus,
			np_count_text(t.quiet, a), np_count_text(t.total, b));
	if (x) {
		x->dev = di;
		x->who = who;
		who = NULL;
		x->what = "on isolated CPUs";
		x->fix = di >= 0 ? fix_for(&m->pci.devs[di]) : strdup("numaplace advise (moves them to housekeeping CPUs)");
		take(x, &t, t.quiet);
		x->minor = t.quiet < f->min_interrupts;
	}
	free(names);
	free(who);
	free(cpus);
	tally_free(&t);
	return x && x->fix ? 0 : -ENOMEM;
}

/* IRQs of a device that ran on, or are set to run on, CPUs a Kubernetes
 * container holds exclusively (the kubelet's static CPU manager): as on an
 * isolated CPU, each steals from a latency-critical workload. Isolated CPUs
 * are the other finding's; the containers are named by pod UID. */
static int exclusive_finding(const struct np_machine *m, size_t di, struct np_findings *f)
{
	const struct np_kubelet *k = &m->kube;
	struct tally t = { 0 };
	struct np_cpuset hit = NP_CPUSET_INIT, excl = NP_CPUSET_INIT;
	unsigned long long there = 0;
	int rc = np_cpuset_copy(&excl, &k->exclusive);
	np_cpuset_andnot(&excl, &m->topo.isolated);
	np_cpuset_andnot(&excl, &m->topo.nohz_full);
	for (size_t i = 0; !rc && i < m->irqs.n; i++) {
		const struct np_irq *irq = &m->irqs.v[i];
		if (irq->dev != (int)di || irq->managed != NP_MANAGED_NO)
			continue;
		struct np_where w;
		np_kubelet_where(k, &m->topo, irq, -1, &w);
		bool set_there = irq->has_effective && np_cpuset_intersects(&irq->effective, &excl);
		if (!set_there && !w.exclusive)
			continue;
		if ((rc = np_cpuset_copy(&hit, set_there ? &irq->effective : &irq->ran_on)))
			break;
		np_cpuset_and(&hit, &excl);
		rc = tally_add(m, &t, irq, &hit);
		there += w.exclusive;
	}
	np_cpuset_free(&hit);
	np_cpuset_free(&excl);
	if (rc || t.nirqs == 0) {
		tally_free(&t);
		return rc;
	}
	/* The containers hit, each once. */
	char *owners = strdup(""), *more, buf[512], a[16], b[16];
	for (size_t c = 0; owners && c < k->n; c++) {
		if (!np_cpuset_intersects(&k->v[c].cpus, &t.cpus))
			continue;
		if (asprintf(&more, "%s%s%s", owners, *owners ? ", " : "", np_kube_container_text(&k->v[c], buf, sizeof(buf))) < 0)
			more = NULL;
		free(owners);
		owners = more;
	}
	char *who = dev_who(m, &m->pci.devs[di]), *cpus = np_cpuset_format_short(&t.cpus, NP_CPUS_TEXT_MAX);
	struct np_finding *x = NULL;
	if (who && cpus && owners)
		x = add(f, "irq_on_exclusive_cpus", m->pci.devs[di].addr,
			"%s: %s on CPU%s %s, exclusive to container %s; %s of %s interrupts ran there",
			who, irqs_text(&t), np_cpuset_count(&t.cpus) == 1 ? "" : "s", cpus, owners,
			np_count_text(there, a), np_count_text(t.total, b));
	if (x) {
		x->dev = (int)di;
		x->who = who;
		who = NULL;
		x->what = "on exclusive CPUs";
		x->fix = fix_for(&m->pci.devs[di]);
		take(x, &t, there);
		x->minor = there < f->min_interrupts;
	}
	free(owners);
	free(who);
	free(cpus);
	tally_free(&t);
	return x && x->fix ? 0 : -ENOMEM;
}

/* Device-level findings: node unknown, remote IRQs, managed IRQs,
 * rq_affinity 0 with remote completions, IRQs on isolated CPUs. */
static int device_findings(const struct np_machine *m, size_t di, const struct np_cpuset *quiet,
			   struct np_findings *f)
{
	const struct np_pci_dev *d = &m->pci.devs[di];
	bool inferred;
	int node = np_device_node(m, d, &inferred);
	struct np_irq_summary s;
	struct np_finding *x;
	int rc = 0;

	np_device_irq_summary(m, di, &s);
	bool matters = np_pci_dev_matters(d, s.nirqs > 0);
	if (m->topo.nnodes > 1 && d->numa_node < 0 && matters) {
		if (inferred)
			x = add(f, "no_numa_node", d->addr,
				"%s (%s): firmware reports no NUMA node; its local CPUs are node %d's, so node %d is assumed",
				d->addr, dev_label(d), node, node);
		else
			x = add(f, "no_numa_node", d->addr,
				"%s (%s): firmware reports no NUMA node, so its locality is unknown", d->addr, dev_label(d));
		if (!x || !(x->who = dev_who(m, d)))
			return -ENOMEM;
		x->dev = (int)di;
		x->what = "no NUMA node";
		x->total = s.total;
		x->weight = (double)s.total * kind_of(x->kind)->factor;
	}
	if (node >= 0 && matters && (rc = remote_finding(m, di, node, f)))
		return rc;
	if (s.nmanaged > 0) {
		x = add(f, "managed_irqs", d->addr, "%s (%s): %d of %d IRQs are managed%s: the kernel spreads them per CPU and owns their placement",
			d->addr, dev_label(d), s.nmanaged, s.nirqs, m->irqs.debugfs ? "" : " (inferred from the driver)");
		if (!x)
			return -ENOMEM;
		x->dev = (int)di;
	}
	for (size_t b = 0; b < d->nblock; b++) {
		if (d->block[b].rq_affinity != 0 || s.remote == 0)
			continue;
		char c[16];
		x = add(f, "rq_affinity_remote", d->block[b].name,
			"%s: rq_affinity is 0 and %s of %s's completions (%.0f%%) ran off node %d: "
			"completions run where the interrupt lands, not near the submitter",
			d->block[b].name, np_count_text(s.remote, c), d->addr, 100.0 * (double)s.remote / (double)s.total, node);
		if (!x || !(x->who = dev_who(m, d)) || asprintf(&x->fix, "echo 2 > /sys/block/%s/queue/rq_affinity", d->block[b].name) < 0)
			return -ENOMEM;
		x->dev = (int)di;
		x->what = "rq_affinity 0";
		x->interrupts = s.remote;
		x->total = s.total;
		x->weight = (double)s.remote * kind_of(x->kind)->factor;
		x->minor = s.remote < f->min_interrupts;
	}
	if (matters && !np_cpuset_empty(quiet))
		rc = isolated_finding(m, (int)di, quiet, f);
	if (rc == 0 && matters && !np_cpuset_empty(&m->kube.exclusive))
		rc = exclusive_finding(m, di, f);
	return rc;
}

/* Warnings first, heaviest first; minor ones after the rest. */
static int by_importance(const void *a, const void *b)
{
	const struct np_finding *x = a, *y = b;
	int rx = x->minor ? 2 : x->severity == NP_WARNING ? 0 : 1;
	int ry = y->minor ? 2 : y->severity == NP_WARNING ? 0 : 1;
	if (rx != ry)
		return rx - ry;
	if (x->weight != y->weight)
		return x->weight > y->weight ? -1 : 1;
	return strcmp(x->subject, y->subject);
}

int np_findings_collect(const struct np_machine *m, unsigned long long min_interrupts, struct np_findings *out)
{
	memset(out, 0, sizeof(*out));
	out->min_interrupts = min_interrupts;
	struct np_cpuset quiet = NP_CPUSET_INIT;
	int rc = quiet_cpus(m, &quiet) ? 0 : -ENOMEM;
	if (!rc && m->irqbalance) {
		struct np_finding *x = add(out, "irqbalance", "irqbalance",
					   "irqbalance is running: it rewrites IRQ affinities every 10 s and will undo any placement");
		if (!x || !(x->who = strdup("irqbalance")) ||
		    !(x->fix = strdup("numaplace apply bans the IRQs it places (--irqbalance ban)")))
			rc = -ENOMEM;
		else
			x->what = "running";
	}
	for (size_t i = 0; !rc && i < m->pci.ndevs; i++)
		rc = device_findings(m, i, &quiet, out);
	if (!rc && !np_cpuset_empty(&quiet))
		rc = isolated_finding(m, -1, &quiet, out);
	np_cpuset_free(&quiet);
	if (rc) {
		np_findings_free(out);
		return rc;
	}
	if (out->n)
		qsort(out->v, out->n, sizeof(*out->v), by_importance);
	return 0;
}

size_t np_findings_summary(const struct np_findings *f)
{
	size_t n = 0;
	while (n < f->n && f->v[n].severity == NP_WARNING && !f->v[n].minor)
		n++;
	return n;
}

void np_findings_free(struct np_findings *f)
{
	for (size_t i = 0; i < f->n; i++)
		finding_free(&f->v[i]);
	free(f->v);
	memset(f, 0, sizeof(*f));
}
