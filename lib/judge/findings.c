/* SPDX-License-Identifier: GPL-2.0-or-later */
#include "judge/findings.h"

#include <errno.h>
#include <stdarg.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "judge/app-place.h"
#include "judge/cpuset-names.h"
#include "read/kubelet.h"
#include "base/array.h"
#include "base/count.h"
#include "base/quote.h"

/* What a rule's problems weigh per interrupt at stake, and how bad they are.
 * An interrupt on an isolated CPU stalls the latency-critical work kept
 * there; a remote one costs a cross-node cache miss or two. */
struct weight {
	enum np_severity severity;
	double factor;
};
static const struct weight *weight_of(enum np_rule_id rule);

const char *np_severity_name(enum np_severity s)
{
	return s == NP_WARNING ? "warning" : "info";
}

static void finding_free(struct np_finding *x)
{
	free(x->subject);
	free(x->message);
	free(x->who);
	free(x->fix);
	free(x->per_node);
	free(x->fixes);
	np_cpuset_free(&x->cpus);
}

/* A new finding of kind at the end of f, its message from fmt; NULL on ENOMEM. */
static struct np_finding *add(struct np_findings *f, enum np_rule_id rule, const char *subject, const char *fmt, ...)
	__attribute__((format(printf, 4, 5)));
static struct np_finding *add(struct np_findings *f, enum np_rule_id rule, const char *subject, const char *fmt, ...)
{
	struct np_finding *more = realloc(f->v, (f->n + 1) * sizeof(*more));
	if (!more)
		return NULL;
	f->v = more;
	struct np_finding *x = &f->v[f->n];
	memset(x, 0, sizeof(*x));
	x->severity = weight_of(rule)->severity;
	x->rule = rule;
	x->kind = np_rule_name(rule);
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

/* ", 48.9k/s": what a count of interrupts is a second, when what the counts
 * cover is known; "" otherwise. */
static const char *rate_suffix(const struct np_machine *m, unsigned long long n, char buf[32])
{
	char r[16];
	double rate = np_cpu_load_rate(&m->load, n);
	if (rate < 0)
		buf[0] = '\0';
	else
		snprintf(buf, 32, ", %s", np_rate_text(rate, r));
	return buf;
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
static char *fix_for(const char *hint, const struct np_pci_dev *d)
{
	const char *name = d->nnet ? d->net[0].name : d->nblock ? d->block[0].name : d->addr;
	char *quoted = np_shell_quote(np_printable(name) ? name : d->addr), *out;
	if (!quoted || asprintf(&out, "%s --device %s", hint, quoted) < 0)
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
	struct np_cpuset allowed; /* of the plan's changes: their IRQs' masks today */
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
	np_cpuset_free(&t->allowed);
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
	x->weight = (double)at_stake * weight_of(x->rule)->factor;
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
	np_irqs_foreach_of_dev(&m->irqs, (int)di, i) {
		if (rc)
			break;
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
	char *where = np_cpus_where(&m->topo, &t.cpus), a[16], b[16], r[32];
	struct np_finding *x = NULL;
	if (who && shares && where)
		x = add(f, NP_RULE_REMOTE, d->addr, "%s: %s on %s; %s of %s interrupts ran off node %d (%s)%s",
			who, irqs_text(&t), where, np_count_text(t.remote, a), np_count_text(t.total, b), node, shares,
			rate_suffix(m, t.remote, r));
	if (x) {
		x->dev = (int)di;
		x->who = who;
		who = NULL;
		x->what = "remote";
		take(x, &t, t.remote);
		x->minor = t.remote < f->min_interrupts;
	}
	free(who);
	free(shares);
	free(where);
	tally_free(&t);
	return x ? 0 : -ENOMEM;
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
		/* A managed queue serving isolated CPUs only fires for I/O submitted
		 * there (irq_do_set_affinity() keeps such a mask): the isolated
		 * work's own, no intrusion (the plan's notes say so). */
		if (np_irq_per_cpu(irq) && irq->has_affinity && np_cpuset_subset(&irq->affinity, quiet))
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
	char *who = NULL, *cpus = np_cpuset_format_short(&t.cpus, NP_CPUS_TEXT_MAX), a[16], b[16], r[32];
	if (di >= 0)
		who = dev_who(m, &m->pci.devs[di]);
	else if (asprintf(&who, "system IRQs (%s)", names) < 0)
		who = NULL;
	struct np_finding *x = NULL;
	if (who && cpus)
		x = add(f, di >= 0 ? NP_RULE_ISOLATED : NP_RULE_SYSTEM_ISOLATED,
			di >= 0 ? m->pci.devs[di].addr : "system irqs",
			"%s: %s on isolated CPU%s %s; %s of %s interrupts ran there%s",
			who, irqs_text(&t), np_cpuset_count(&t.cpus) == 1 ? "" : "s", cpus,
			np_count_text(t.quiet, a), np_count_text(t.total, b), rate_suffix(m, t.quiet, r));
	if (x) {
		x->dev = di;
		x->who = who;
		who = NULL;
		x->what = "on isolated CPUs";
		take(x, &t, t.quiet);
		x->minor = t.quiet < f->min_interrupts;
	}
	free(names);
	free(who);
	free(cpus);
	tally_free(&t);
	return x ? 0 : -ENOMEM;
}

/* IRQs of a device that ran on, or are set to run on, CPUs a Kubernetes
 * container holds exclusively (the kubelet's static CPU manager): as on an
 * isolated CPU, each steals from a latency-critical workload. Isolated CPUs
 * are the other rule's; the containers are named by pod UID. */
static int exclusive_finding(const struct np_machine *m, size_t di, const struct np_cpuset *excl,
			     struct np_findings *f)
{
	const struct np_kubelet *k = &m->kube;
	struct tally t = { 0 };
	struct np_cpuset hit = NP_CPUSET_INIT;
	unsigned long long there = 0;
	int rc = 0;
	np_irqs_foreach_of_dev(&m->irqs, (int)di, i) {
		if (rc)
			break;
		const struct np_irq *irq = &m->irqs.v[i];
		if (irq->dev != (int)di || irq->managed != NP_MANAGED_NO)
			continue;
		struct np_where w;
		np_kubelet_where(k, &m->topo, irq, -1, &w);
		bool set_there = irq->has_effective && np_cpuset_intersects(&irq->effective, excl);
		if (!set_there && !w.exclusive)
			continue;
		if ((rc = np_cpuset_copy(&hit, set_there ? &irq->effective : &irq->ran_on)))
			break;
		np_cpuset_and(&hit, excl);
		rc = tally_add(m, &t, irq, &hit);
		there += w.exclusive;
	}
	np_cpuset_free(&hit);
	if (rc || t.nirqs == 0) {
		tally_free(&t);
		return rc;
	}
	char *owners = np_kube_owners_text(k, &t.cpus), a[16], b[16], r[32];
	char *who = dev_who(m, &m->pci.devs[di]), *cpus = np_cpuset_format_short(&t.cpus, NP_CPUS_TEXT_MAX);
	struct np_finding *x = NULL;
	if (who && cpus && owners)
		x = add(f, NP_RULE_EXCLUSIVE, m->pci.devs[di].addr,
			"%s: %s on CPU%s %s, exclusive to container %s; %s of %s interrupts ran there%s",
			who, irqs_text(&t), np_cpuset_count(&t.cpus) == 1 ? "" : "s", cpus, owners,
			np_count_text(there, a), np_count_text(t.total, b), rate_suffix(m, there, r));
	if (x) {
		x->dev = (int)di;
		x->who = who;
		who = NULL;
		x->what = "on exclusive CPUs";
		take(x, &t, there);
		x->minor = there < f->min_interrupts;
	}
	free(owners);
	free(who);
	free(cpus);
	tally_free(&t);
	return x ? 0 : -ENOMEM;
}

/* What a rule's emitter sees. */
struct judge {
	const struct np_machine *m;
	const struct np_advise_opts *opts;
	struct np_findings *f;
	const struct np_cpuset *quiet;     /* isolated and nohz_full CPUs */
	const struct np_cpuset *exclusive; /* containers' exclusive CPUs that are not quiet */
	bool *attached;             /* per plan record: it fixes a finding already */
	/* The plan's changes of device d, in plan order: dev_recs[dev_start[d]]
	 * up to dev_recs[dev_start[d + 1]] (a finding takes its own device's). */
	size_t *dev_start, *dev_recs;
	bool follows[NP_RULE_COUNT]; /* per rule id: its row follows_irqs */
	/* The changes of those rows no finding took yet, in plan order: each
	 * row's turn looks at them, not at the whole plan (tens of thousands
	 * of records, several MB, with 256 queues a NIC). */
	size_t *following, nfollowing;
	/* The plan's changes of rule id r, of a device or the machine, in plan
	 * order: rule_recs[rule_start[r]] up to rule_recs[rule_start[r + 1]]. */
	size_t *rule_start, *rule_recs;
};

static int rule_irqbalance(struct judge *j)
{
	if (!j->m->irqbalance)
		return 0;
	struct np_finding *x = add(j->f, NP_RULE_IRQBALANCE, "irqbalance",
				   "irqbalance is running: it rewrites IRQ affinities every 10 s and will undo any placement");
	if (!x || !(x->who = strdup("irqbalance")) ||
	    !(x->fix = strdup("numaplace apply bans the IRQs it places (--irqbalance ban)")))
		return -ENOMEM;
	x->what = "running";
	return 0;
}

static bool selected(const struct judge *j, size_t di)
{
	return j->opts->devices && j->opts->devices[di].selected;
}

static int rule_no_node(struct judge *j)
{
	const struct np_machine *m = j->m;
	for (size_t di = 0; di < m->pci.ndevs; di++) {
		const struct np_pci_dev *d = &m->pci.devs[di];
		bool inferred;
		int node = np_device_node(m, d, &inferred);
		struct np_irq_summary s;
		np_device_irq_summary(m, di, &s);
		if (!selected(j, di) || m->topo.nnodes <= 1 || d->numa_node >= 0 || !np_pci_dev_matters(d, s.nirqs > 0))
			continue;
		struct np_finding *x = NULL;
		char *who = dev_who(m, d);
		if (who && inferred)
			x = add(j->f, NP_RULE_NO_NODE, d->addr,
				"%s: firmware reports no NUMA node; its local CPUs are node %d's, so node %d is assumed",
				who, node, node);
		else if (who)
			x = add(j->f, NP_RULE_NO_NODE, d->addr, "%s: firmware reports no NUMA node, so its locality is unknown",
				who);
		if (!x) {
			free(who);
			return -ENOMEM;
		}
		x->who = who;
		x->dev = (int)di;
		x->what = "no NUMA node";
		x->total = s.total;
		x->weight = (double)s.total * weight_of(x->rule)->factor;
	}
	return 0;
}

static int rule_remote(struct judge *j)
{
	const struct np_machine *m = j->m;
	int rc = 0;
	for (size_t di = 0; di < m->pci.ndevs && rc == 0; di++) {
		const struct np_pci_dev *d = &m->pci.devs[di];
		int node = np_device_node(m, d, NULL);
		struct np_irq_summary s;
		np_device_irq_summary(m, di, &s);
		if (selected(j, di) && node >= 0 && np_pci_dev_matters(d, s.nirqs > 0))
			rc = remote_finding(m, di, node, j->f);
	}
	return rc;
}

static int rule_isolated(struct judge *j)
{
	const struct np_machine *m = j->m;
	int rc = 0;
	for (size_t di = 0; di < m->pci.ndevs && rc == 0 && !np_cpuset_empty(j->quiet); di++) {
		struct np_irq_summary s;
		np_device_irq_summary(m, di, &s);
		if (selected(j, di) && np_pci_dev_matters(&m->pci.devs[di], s.nirqs > 0))
			rc = isolated_finding(m, (int)di, j->quiet, j->f);
	}
	return rc;
}

static int rule_exclusive(struct judge *j)
{
	const struct np_machine *m = j->m;
	int rc = 0;
	for (size_t di = 0; di < m->pci.ndevs && rc == 0 && !np_cpuset_empty(j->exclusive); di++) {
		struct np_irq_summary s;
		np_device_irq_summary(m, di, &s);
		if (selected(j, di) && np_pci_dev_matters(&m->pci.devs[di], s.nirqs > 0))
			rc = exclusive_finding(m, di, j->exclusive, j->f);
	}
	return rc;
}

static int rule_system_isolated(struct judge *j)
{
	return np_cpuset_empty(j->quiet) ? 0 : isolated_finding(j->m, -1, j->quiet, j->f);
}

static int rule_managed(struct judge *j)
{
	const struct np_machine *m = j->m;
	for (size_t di = 0; di < m->pci.ndevs; di++) {
		const struct np_pci_dev *d = &m->pci.devs[di];
		struct np_irq_summary s;
		np_device_irq_summary(m, di, &s);
		if (!selected(j, di) || s.nmanaged == 0)
			continue;
		struct np_finding *x = add(j->f, NP_RULE_MANAGED, d->addr,
					   "%s (%s): %d of %d IRQs are managed%s: the kernel spreads them per CPU and owns "
					   "their placement", d->addr, dev_label(d), s.nmanaged, s.nirqs,
					   m->irqs.debugfs ? "" : " (inferred from the driver)");
		if (!x)
			return -ENOMEM;
		x->dev = (int)di;
	}
	return 0;
}

/* The plan's changes of one rule for one device (or machine-wide, dev -1)
 * that no problem took: what a problem the plan finds is stated from. */
struct group {
	int dev;
	const char *who;           /* "eth4 0000:23:00.0 (ice, node 1)", "new IRQs" */
	const char *where;         /* where their IRQs are delivered (NULL when no IRQ) */
	const struct np_rec *first;
	const struct tally *t;     /* their IRQs */
	size_t n;                  /* changes */
};

static char *says(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
static char *says(const char *fmt, ...)
{
	char *out;
	va_list ap;
	va_start(ap, fmt);
	int n = vasprintf(&out, fmt, ap);
	va_end(ap);
	return n < 0 ? NULL : out;
}

static const char *subject_of(const struct group *g)
{
	return g->first->net ? g->first->net : g->first->block ? g->first->block : "";
}

static char *says_outside(const struct judge *j, const struct group *g)
{
	char a[16], r[32];
	return says("%s: %s on %s, outside the CPUs the policy gives it; %s interrupts%s", g->who, irqs_text(g->t),
		    g->where, np_count_text(g->t->total, a), rate_suffix(j->m, g->t->total, r));
}

static char *says_balance(const struct judge *j, const struct group *g)
{
	char a[16], r[32];
	if (g->dev >= 0 && j->opts->devices[g->dev].irqs == NP_IRQS_SPREAD)
		return says("%s: %s of its data queues on %s, not one per core with queue i on node i mod the nodes; "
			    "%s interrupts%s", g->who, irqs_text(g->t), g->where, np_count_text(g->t->total, a),
			    rate_suffix(j->m, g->t->total, r));
	return says("%s: %s of its data queues stacked on %s, beyond their share of its work; %s interrupts%s",
		    g->who, irqs_text(g->t), g->where, np_count_text(g->t->total, a), rate_suffix(j->m, g->t->total, r));
}

static char *says_apart(const struct judge *j, const struct group *g)
{
	(void)j;
	return says("%s: the vectors of its queue pairs run apart (%s on %s)", g->who, irqs_text(g->t), g->where);
}

static char *says_unreadable(const struct judge *j, const struct group *g)
{
	(void)j;
	return says("%s: %s with an unreadable affinity", g->who, irqs_text(g->t));
}

/* Each forbidden CPU named by its source: "irqbalance-banned CPU 7". */
static char *says_isolated(const struct judge *j, const struct group *g)
{
	bool failed;
	char *cpus = np_forbidden_text(&j->opts->forbidden, &g->t->allowed, &failed), *out;
	if (failed)
		return NULL;
	out = says("%s: %s whose mask allows %s (delivered on %s)", g->who, irqs_text(g->t),
		   cpus ? cpus : "CPUs kept free of IRQs", g->where);
	free(cpus);
	return out;
}

static char *says_remote(const struct judge *j, const struct group *g)
{
	(void)j;
	return says("%s: %s on %s, off its node", g->who, irqs_text(g->t), g->where);
}

/* The why (with its evidence) is the change's reason, said beside it. */
static char *says_rq_affinity(const struct judge *j, const struct group *g)
{
	(void)j;
	return says("%s: rq_affinity %s of %s, %s fits its submitters", g->who, g->first->current ? g->first->current : "?",
		    subject_of(g), g->first->recommended);
}

/* RPS and, beside it, RFS (its flow tables, counted apart). */
static char *says_rps(const struct judge *j, const struct group *g)
{
	const struct np_plan *plan = &j->f->plan;
	const struct np_rec *rps = NULL, *rfs = NULL;
	size_t n = 0;
	for (size_t i = 0; i < plan->n; i++) {
		const struct np_rec *r = &plan->v[i];
		if (r->dev != g->dev || r->rule != NP_RULE_RPS || !r->change)
			continue;
		if (r->kind == NP_ATTR_RPS_CPUS)
			n++, rps = rps ? rps : r;
		else
			rfs = rfs ? rfs : r;
	}
	if (!rps)
		return says("%s: RFS off beside the RPS of %s: %s", g->who, rfs && rfs->net ? rfs->net : subject_of(g),
			    g->first->reason);
	return says("%s: RPS of %zu %s receive queue%s%s: %s", g->who, n, rps->net ? rps->net : "", n > 1 ? "s" : "",
		    rfs ? ", with RFS" : "", rps->reason);
}

static char *says_xps(const struct judge *j, const struct group *g)
{
	(void)j;
	return says("%s: XPS of %zu %s transmit queue%s does not follow their IRQs", g->who, g->n, subject_of(g),
		    g->n > 1 ? "s" : "");
}

/* The judgement's facts, its first clause; the evidence stays with the change. */
static char *says_channels(const struct judge *j, const struct group *g)
{
	(void)j;
	return says("%s: %.*s", g->who, (int)strcspn(g->first->reason, ";"), g->first->reason);
}

static char *says_default_affinity(const struct judge *j, const struct group *g)
{
	(void)j;
	return g->dev >= 0 ? says("%s: %s", g->who, g->first->reason) : says("%s", g->first->reason);
}

static int attach(struct judge *j, struct np_finding *x, size_t rec)
{
	size_t *more = np_array_room(x->fixes, x->nfixes, sizeof(*more));
	if (!more)
		return -ENOMEM;
	x->fixes = more;
	x->fixes[x->nfixes++] = rec;
	j->attached[rec] = true;
	return 0;
}

/* Where a change puts an IRQ's work today, for the facts. */
static int tally_rec(struct judge *j, struct tally *t, const struct np_rec *r)
{
	struct np_irq *irq = r->irq >= 0 ? np_irqs_find((struct np_irqs *)&j->m->irqs, r->irq) : NULL;
	if (!irq)
		return 0;
	const struct np_cpuset *cpus = irq->has_effective && !np_cpuset_empty(&irq->effective) ? &irq->effective
											 : irq->has_affinity ? &irq->affinity : &irq->ran_on;
	int rc = irq->has_affinity ? np_cpuset_or(&t->allowed, &irq->affinity) : 0;
	return rc ? rc : tally_add(j->m, t, irq, cpus);
}

/* The plan's changes of this rule that no finding took yet: one problem per
 * device (or one machine-wide), stated from them by the row. Its changes are
 * grouped by device in one pass over the plan (a counting sort keeps the
 * plan's order within a device), not one pass a device: eleven rules times
 * 65 devices times the plan's 4,800 changes on a 1024-CPU machine. */
static int rule_from_plan(struct judge *j, enum np_rule_id rule,
			  char *(*say)(const struct judge *j, const struct group *g))
{
	const struct np_plan *plan = &j->f->plan;
	const struct np_machine *m = j->m;
	size_t ngroups = m->pci.ndevs + 1; /* the machine-wide changes (dev -1) first */
	const size_t *mine = j->rule_recs + j->rule_start[rule];
	size_t nmine = j->rule_start[rule + 1] - j->rule_start[rule];
	size_t *start = calloc(ngroups + 1, sizeof(*start)), *order = malloc((nmine + 1) * sizeof(*order));
	int rc = start && order ? 0 : -ENOMEM;
	for (size_t k = 0; k < nmine && rc == 0; k++)
		if (!j->attached[mine[k]])
			start[plan->v[mine[k]].dev + 2]++;
	for (size_t g = 1; g <= ngroups && rc == 0; g++)
		start[g] += start[g - 1];
	for (size_t k = 0; k < nmine && rc == 0; k++)
		if (!j->attached[mine[k]])
			order[start[plan->v[mine[k]].dev + 1]++] = mine[k];
	/* start[g] is now where group g ends, the next group's start. */
	for (size_t g = 0, from = 0; g < ngroups && rc == 0; from = start[g], g++) {
		int di = (int)g - 1;
		size_t n = start[g] - from;
		struct tally t = { 0 };
		for (size_t k = from; k < start[g] && rc == 0; k++)
			rc = tally_rec(j, &t, &plan->v[order[k]]);
		if (n == 0 || rc) {
			tally_free(&t);
			continue;
		}
		const struct np_rec *r0 = &plan->v[order[from]];
		char *who = di >= 0 ? dev_who(m, &m->pci.devs[di]) : strdup("new IRQs");
		char *where = t.nirqs ? np_cpus_where(&m->topo, &t.cpus) : NULL;
		struct group grp = { di, who, where, r0, &t, n };
		char *msg = who && (where || !t.nirqs) ? say(j, &grp) : NULL;
		struct np_finding *x = msg ? add(j->f, rule, di >= 0 ? m->pci.devs[di].addr : np_rule_name(rule), "%s", msg)
					   : NULL;
		free(msg);
		free(who);
		free(where);
		if (!x) {
			tally_free(&t);
			rc = -ENOMEM;
			break;
		}
		x->dev = di;
		x->who = di >= 0 ? dev_who(m, &m->pci.devs[di]) : strdup(r0->target.net ? r0->target.net : "new IRQs");
		x->what = np_rule_name(rule);
		take(x, &t, t.total);
		tally_free(&t);
		if (!x->who) {
			rc = -ENOMEM;
			break;
		}
		for (size_t k = from; k < start[g] && rc == 0; k++)
			rc = attach(j, x, order[k]);
	}
	free(start);
	free(order);
	return rc;
}

/* An application's problems (lib/judge/app-place), when there is one to
 * judge, each with the move that fixes it (its row says which plan changes
 * fix it instead). */
static int rule_app(struct judge *j, enum np_rule_id rule)
{
	struct np_app_problem *v = NULL;
	size_t n = 0;
	int rc = j->opts->app ? np_app_problems(j->m, j->opts->app, rule, j->f->min_interrupts, &v, &n) : 0;
	for (size_t k = 0; k < n && rc == 0; k++) {
		struct np_finding *x = add(j->f, rule, v[k].subject, "%s", v[k].message);
		if (!x) {
			rc = -ENOMEM;
			break;
		}
		x->dev = v[k].dev;
		x->who = v[k].who;
		v[k].who = NULL;
		x->interrupts = v[k].amount;
		x->unit = strcmp(v[k].unit, "interrupts") ? v[k].unit : NULL;
		x->weight = (double)v[k].amount * weight_of(rule)->factor;
		x->minor = v[k].minor;
		x->what = np_rule_name(rule);
		x->fix = v[k].fix;
		v[k].fix = NULL;
	}
	np_app_problems_free(v, n);
	return rc;
}
#define FROM_APP(name, id) \
	static int name(struct judge *j) { return rule_app(j, id); }
FROM_APP(rule_app_memory, NP_RULE_APP_MEMORY)
FROM_APP(rule_app_threads, NP_RULE_APP_THREADS)
FROM_APP(rule_app_irqs, NP_RULE_APP_IRQS)

/* Whether a fact counts the IRQ a change moves (the same tests as its
 * emitter's): a change for an IRQ the fact leaves out (a managed one beside
 * it, one that never fired there) is a problem of its own. */
static bool covers_isolated(const struct judge *j, const struct np_finding *x, const struct np_irq *irq)
{
	(void)x;
	return (irq->has_effective && np_cpuset_intersects(&irq->effective, j->quiet)) || irq->quiet > 0;
}

static bool covers_exclusive(const struct judge *j, const struct np_finding *x, const struct np_irq *irq)
{
	(void)x;
	return (irq->has_effective && np_cpuset_intersects(&irq->effective, j->exclusive)) ||
	       np_cpuset_intersects(&irq->ran_on, j->exclusive);
}

static bool covers_remote(const struct judge *j, const struct np_finding *x, const struct np_irq *irq)
{
	int node = np_device_node(j->m, &j->m->pci.devs[x->dev], NULL);
	return irq->total && np_irq_remote_share(j->m, irq, node) > 0;
}

/* Whether the plan moves some of the device's IRQs onto its node (fixing
 * its remote interrupts on the way to fixing a heavier problem). */
static bool moves_onto_node(const struct judge *j, int dev)
{
	if (dev < 0 || dev >= (int)j->m->pci.ndevs)
		return false;
	for (size_t k = j->dev_start[dev]; k < j->dev_start[dev + 1]; k++)
		if (j->f->plan.v[j->dev_recs[k]].node_move > 0)
			return true;
	return false;
}

/* irqbalance matters to a plan that moves IRQs: on a machine it placed
 * well, it is a fact. */
static void weigh_irqbalance(const struct judge *j, struct np_finding *x)
{
	const struct np_plan *plan = &j->f->plan;
	for (size_t i = 0; i < plan->n; i++)
		if (plan->v[i].kind == NP_ATTR_IRQ_AFFINITY && plan->v[i].change)
			return;
	x->severity = NP_INFO;
}

/* Off its node is a problem under local only (the policy that puts a
 * device's work on its node), and one the plan fixes. */
static void weigh_remote(const struct judge *j, struct np_finding *x)
{
	if (j->opts->devices[x->dev].irqs != NP_IRQS_LOCAL ||
	    (x->nfixes == 0 && !moves_onto_node(j, x->dev)))
		x->severity = NP_INFO;
}

/* The rules: each row looks at one thing and emits its problems, and says
 * which of the plan's changes fix them. Rows run in this order: facts first
 * (they take the plan's changes that fix them), then what only the plan
 * sees; the changes a fact left (an IRQ that may run on an isolated CPU but
 * never did) are problems of their own after every row. Adding a rule is a
 * row here and an id in rules.h. */
static const struct rule {
	enum np_rule_id id;
	const char *name;
	const char *looks_at;
	struct weight weight;
	/* Its facts, each a problem; NULL: it has none, its problems are the
	 * plan's changes of its id. */
	int (*facts)(struct judge *j);
	/* The plan's changes that fix a fact: those of this id for its device
	 * (NP_RULE_NONE: the rule's own), each counted by the fact (covers;
	 * NULL: every one) until the fact takes one, then every such change of
	 * the device. irq_moves: every change of the device's IRQs instead,
	 * whatever problem they were planned for. */
	enum np_rule_id fixed_by;
	bool (*covers)(const struct judge *j, const struct np_finding *x, const struct np_irq *irq);
	bool irq_moves;
	/* How heavy a problem is once its changes are known (NULL: as stated). */
	void (*weigh)(const struct judge *j, struct np_finding *x);
	/* A warning of it gets the plan's command even with no change of its own
	 * (the plan moves the device's IRQs for a heavier problem). */
	bool fix_when_warned;
	/* The sentence of a problem made of the plan's changes of its id that no
	 * fact took (NULL: none is made). */
	char *(*from_plan)(const struct judge *j, const struct group *g);
	/* Its changes belong to the problem that moves the device's IRQs, when
	 * there is one (XPS follows the IRQs). */
	bool follows_irqs;
} rules[] = {
	{ NP_RULE_IRQBALANCE, "irqbalance", "whether irqbalance runs", { NP_WARNING, 0 }, .facts = rule_irqbalance,
	  .weigh = weigh_irqbalance },
	{ NP_RULE_ISOLATED, "irq_on_isolated_cpus", "each device's IRQs against isolated, nohz_full and excluded CPUs",
	  { NP_WARNING, 2.0 }, .facts = rule_isolated, .covers = covers_isolated, .from_plan = says_isolated },
	{ NP_RULE_EXCLUSIVE, "irq_on_exclusive_cpus", "each device's IRQs against containers' exclusive CPUs (kubelet)",
	  { NP_WARNING, 2.0 }, .facts = rule_exclusive, .covers = covers_exclusive,
	  /* Exclusive CPUs are forbidden as isolated ones: the planner's moves off them carry that rule. */
	  .fixed_by = NP_RULE_ISOLATED },
	{ NP_RULE_REMOTE, "remote_irqs", "where each device's interrupts were delivered, against its node",
	  { NP_WARNING, 1.0 }, .facts = rule_remote, .covers = covers_remote, .weigh = weigh_remote,
	  .fix_when_warned = true, .from_plan = says_remote },
	{ NP_RULE_SYSTEM_ISOLATED, "system_irqs_on_isolated_cpus", "system IRQs (timer, PCIe ports) on isolated CPUs",
	  { NP_WARNING, 0.5 }, .facts = rule_system_isolated },
	{ NP_RULE_NO_NODE, "no_numa_node", "each device's numa_node", { NP_WARNING, 0.1 }, .facts = rule_no_node },
	{ NP_RULE_MANAGED, "managed_irqs", "IRQs the kernel manages", { NP_INFO, 0 }, .facts = rule_managed },
	{ NP_RULE_APP_MEMORY, "app_memory_remote", "an application's memory against where its threads run",
	  { NP_WARNING, 1.0 }, .facts = rule_app_memory },
	{ NP_RULE_APP_THREADS, "app_threads_spread", "an application's threads against the node of its memory and devices",
	  { NP_WARNING, 1.0 }, .facts = rule_app_threads },
	{ NP_RULE_APP_IRQS, "app_irqs_away", "an application's devices' interrupts against its threads and memory",
	  { NP_WARNING, 1.0 }, .facts = rule_app_irqs, .irq_moves = true },
	{ NP_RULE_OUTSIDE, "irqs_outside_policy", "where each device's IRQs are delivered, against the policy's CPUs",
	  { NP_WARNING, 1.0 }, .from_plan = says_outside },
	{ NP_RULE_BALANCE, "stacked_queues", "each device's data queues per core, where the kernel delivers them",
	  { NP_WARNING, 0.5 }, .from_plan = says_balance },
	{ NP_RULE_APART, "queue_vectors_apart", "the vectors of each queue pair", { NP_WARNING, 0.5 },
	  .from_plan = says_apart },
	{ NP_RULE_UNREADABLE, "affinity_unreadable", "each IRQ's affinity file", { NP_WARNING, 0 },
	  .from_plan = says_unreadable },
	{ NP_RULE_RQ_AFFINITY, "rq_affinity", "block completions against the submitters' CPUs", { NP_WARNING, 0.5 },
	  .from_plan = says_rq_affinity },
	{ NP_RULE_RPS, "rps", "receive packet steering against the hardware queues", { NP_WARNING, 0 },
	  .from_plan = says_rps },
	{ NP_RULE_XPS, "xps", "transmit queues against the CPUs serving their IRQs", { NP_WARNING, 0 },
	  .from_plan = says_xps, .follows_irqs = true },
	{ NP_RULE_CHANNELS, "channels", "each network device's busy data queues against the cores the plan gives it "
	  "(a judgement)", { NP_WARNING, 0 }, .from_plan = says_channels },
	{ NP_RULE_DEFAULT_AFFINITY, "default_irq_affinity", "where new IRQs start", { NP_WARNING, 0 },
	  .from_plan = says_default_affinity },
};
#define NRULES (sizeof(rules) / sizeof(rules[0]))

static const struct rule *rule_row(enum np_rule_id id)
{
	for (size_t i = 0; i < NRULES; i++)
		if (rules[i].id == id)
			return &rules[i];
	return NULL;
}

static const struct weight *weight_of(enum np_rule_id rule)
{
	static const struct weight none = { NP_INFO, 0 };
	const struct rule *r = rule_row(rule);
	return r ? &r->weight : &none;
}

const char *np_rule_name(enum np_rule_id rule)
{
	const struct rule *r = rule_row(rule);
	return r ? r->name : "none";
}

const char *np_rule_looks_at(enum np_rule_id rule)
{
	const struct rule *r = rule_row(rule);
	return r ? r->looks_at : NULL;
}

/* Whether change r is one that fixes finding x, by x's row. */
static bool fixes(const struct rule *row, const struct np_finding *x, const struct np_rec *r)
{
	if (!r->change || r->dev != x->dev || x->dev < 0)
		return false;
	if (row->irq_moves)
		return r->kind == NP_ATTR_IRQ_AFFINITY;
	return r->rule == (row->fixed_by != NP_RULE_NONE ? row->fixed_by : row->id);
}

/* The new findings (from) take the plan's changes that fix them, and are
 * weighed. A fact the plan does not fix is no problem under this policy (a
 * device's interrupts off its node under "spread"), or none the plan can fix
 * (managed IRQs): it is said, with no command to run. */
static int judge_facts(struct judge *j, size_t from)
{
	struct np_findings *f = j->f;
	int rc = 0;
	for (size_t k = from; k < f->n && rc == 0; k++) {
		struct np_finding *x = &f->v[k];
		const struct rule *row = rule_row(x->rule);
		/* Its own IRQs' changes first; then, once it is a problem the
		 * plan fixes, the same kind of change for the device's other IRQs.
		 * Only its device's changes can fix it (fixes()), none without one. */
		bool any = x->dev >= 0 && x->dev < (int)j->m->pci.ndevs;
		size_t first = any ? j->dev_start[x->dev] : 0, end = any ? j->dev_start[x->dev + 1] : 0;
		for (int pass = 0; pass < 2; pass++)
			for (size_t q = first; q < end && rc == 0 && (pass == 0 || x->nfixes); q++) {
				size_t i = j->dev_recs[q];
				const struct np_rec *r = &f->plan.v[i];
				if (j->attached[i] || !fixes(row, x, r))
					continue;
				const struct np_irq *irq = r->irq >= 0 ? np_irqs_find((struct np_irqs *)&j->m->irqs, r->irq)
								       : NULL;
				if (pass == 1 || !row->covers || (irq && row->covers(j, x, irq)))
					rc = attach(j, x, i);
			}
		if (row->weigh)
			row->weigh(j, x);
	}
	return rc;
}

/* Changes of a row that follows the IRQs belong to the problem that moves
 * the device's IRQs. */
static int follow_irqs(struct judge *j)
{
	struct np_findings *f = j->f;
	size_t ndevs = j->m->pci.ndevs;
	/* Each device's first such problem (by dev + 1: -1 is the machine's). */
	size_t *mover = malloc((ndevs + 1) * sizeof(*mover));
	if (!mover)
		return -ENOMEM;
	for (size_t d = 0; d <= ndevs; d++)
		mover[d] = SIZE_MAX;
	for (size_t k = f->n; k-- > 0;) {
		const struct np_finding *x = &f->v[k];
		if (x->dev >= -1 && x->dev < (int)ndevs && x->nfixes &&
		    f->plan.v[x->fixes[0]].kind == NP_ATTR_IRQ_AFFINITY)
			mover[x->dev + 1] = k;
	}
	int rc = 0;
	size_t kept = 0;
	for (size_t n = 0; n < j->nfollowing && rc == 0; n++) {
		size_t i = j->following[n], k = mover[f->plan.v[i].dev + 1];
		if (j->attached[i])
			continue;
		if (k == SIZE_MAX)
			j->following[kept++] = i;
		else
			rc = attach(j, &f->v[k], i);
	}
	j->nfollowing = kept;
	free(mover);
	return rc;
}

/* A judgement the plan offers without carrying it (a channel count unless
 * asked) is no problem to fix: said, as information. */
static bool offered_only(const struct np_plan *plan, const struct np_finding *x)
{
	for (size_t i = 0; i < x->nfixes; i++)
		if (!plan->v[x->fixes[i]].advice)
			return false;
	return x->nfixes > 0;
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

/* One row's turn: its facts, or (late, or for a row without facts) the
 * plan's changes of its id that are left; then the changes they take. */
static int run_row(struct judge *j, const struct rule *row, bool late)
{
	size_t before = j->f->n;
	int rc = 0;
	if (row->facts && !late)
		rc = row->facts(j);
	else if (row->from_plan && late == (row->facts != NULL))
		rc = rule_from_plan(j, row->id, row->from_plan);
	if (rc == 0)
		rc = judge_facts(j, before);
	if (rc == 0)
		rc = follow_irqs(j);
	return rc;
}

/* The plan's changes grouped by key, in plan order within a group (a
 * counting sort): recs[start[k]] up to recs[start[k + 1]]; a change whose key
 * is outside 0..nkeys-1 is in none. A finding then looks at its device's
 * changes, a rule at its own, not at the whole plan (tens of thousands of
 * records, several MB, with 256 queues a NIC). */
static int group_changes(const struct judge *j, long (*key)(const struct judge *j, const struct np_rec *r),
			 size_t nkeys, size_t **start, size_t **recs)
{
	const struct np_plan *plan = &j->f->plan;
	size_t *s = *start = calloc(nkeys + 2, sizeof(*s)), *v = *recs = malloc((plan->n + 1) * sizeof(*v));
	if (!s || !v)
		return -ENOMEM;
	for (size_t i = 0; i < plan->n; i++) {
		long k = plan->v[i].change ? key(j, &plan->v[i]) : -1;
		if (k >= 0 && (size_t)k < nkeys)
			s[k + 2]++;
	}
	for (size_t k = 2; k <= nkeys + 1; k++)
		s[k] += s[k - 1];
	for (size_t i = 0; i < plan->n; i++) {
		long k = plan->v[i].change ? key(j, &plan->v[i]) : -1;
		if (k >= 0 && (size_t)k < nkeys)
			v[s[k + 1]++] = i;
	}
	return 0;
}

static long device_key(const struct judge *j, const struct np_rec *r)
{
	return r->dev < (int)j->m->pci.ndevs ? r->dev : -1;
}

/* A rule's changes: of a device, or of the machine (dev -1). */
static long rule_key(const struct judge *j, const struct np_rec *r)
{
	return r->dev >= -1 && r->dev < (int)j->m->pci.ndevs ? (long)r->rule : -1;
}

static int index_changes(struct judge *j)
{
	const struct np_plan *plan = &j->f->plan;
	int rc = group_changes(j, device_key, j->m->pci.ndevs, &j->dev_start, &j->dev_recs);
	if (rc == 0)
		rc = group_changes(j, rule_key, NP_RULE_COUNT, &j->rule_start, &j->rule_recs);
	if (rc == 0 && !(j->following = malloc((plan->n + 1) * sizeof(*j->following))))
		rc = -ENOMEM;
	for (size_t i = 0; i < plan->n && rc == 0; i++) {
		const struct np_rec *r = &plan->v[i];
		if (r->change && r->rule < NP_RULE_COUNT && j->follows[r->rule] && rule_key(j, r) >= 0)
			j->following[j->nfollowing++] = i;
	}
	return rc;
}

int np_findings_collect(const struct np_machine *m, const struct np_advise_opts *opts, const char *fix_hint,
			struct np_findings *out)
{
	memset(out, 0, sizeof(*out));
	out->min_interrupts = opts->min_interrupts;
	struct judge j = { .m = m, .opts = opts, .f = out, .quiet = &opts->forbidden.quiet,
			   .exclusive = &opts->forbidden.exclusive };
	for (size_t i = 0; i < NRULES; i++)
		j.follows[rules[i].id] = rules[i].follows_irqs;
	int rc = np_advise(m, opts, &out->plan);
	if (rc == 0 && !(j.attached = calloc(out->plan.n + 1, sizeof(bool))))
		rc = -ENOMEM;
	if (rc == 0)
		rc = index_changes(&j);
	for (int late = 0; late < 2; late++)
		for (size_t i = 0; i < NRULES && rc == 0; i++)
			rc = run_row(&j, &rules[i], late);
	/* A problem with a fix is one the plan found worth its volume; one
	 * without is a fact, said with nothing to run (or its own fix). */
	for (size_t k = 0; k < out->n && rc == 0; k++) {
		struct np_finding *x = &out->v[k];
		const struct rule *row = rule_row(x->rule);
		if (x->nfixes || (row->fix_when_warned && x->severity == NP_WARNING && !x->minor)) {
			x->minor = false;
			x->severity = offered_only(&out->plan, x) ? NP_INFO : NP_WARNING;
			free(x->fix);
			if (x->dev >= 0)
				x->fix = fix_for(fix_hint, &m->pci.devs[x->dev]);
			else
				x->fix = strdup(fix_hint);
			if (!x->fix)
				rc = -ENOMEM;
		}
	}
	free(j.attached);
	free(j.dev_start);
	free(j.dev_recs);
	free(j.following);
	free(j.rule_start);
	free(j.rule_recs);
	if (rc) {
		np_findings_free(out);
		return rc;
	}
	if (out->n)
		qsort(out->v, out->n, sizeof(*out->v), by_importance);
	return 0;
}

unsigned long long np_findings_threshold(double seconds)
{
	return seconds > 0 ? (unsigned long long)(NP_FINDINGS_MIN_RATE * seconds + 0.5) : NP_FINDINGS_MIN_INTERRUPTS;
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
	np_plan_free(&f->plan);
	memset(f, 0, sizeof(*f));
}
