/* SPDX-License-Identifier: GPL-2.0-or-later */
#include "resolve.h"

#include <errno.h>
#include <fnmatch.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "advise.h"
#include "sysfs.h"

void np_resolved_free(struct np_resolved *r)
{
	for (size_t i = 0; i < r->n; i++)
		np_change_free(&r->changes[i]);
	free(r->changes);
	for (size_t i = 0; i < r->nwarnings; i++)
		free(r->warnings[i]);
	free(r->warnings);
	memset(r, 0, sizeof(*r));
}

/* Adds the change of attr for t to value (taken), replacing an earlier
 * change of the same file: a later setting for a file wins. Settings and
 * rules alike come here. */
static int add_change(struct np_ctx *ctx, const struct np_profile *p, struct np_resolved *r, enum np_attr attr,
		      const struct np_target *t, char *value)
{
	struct np_change c;
	int rc = value ? np_change_make(&c, attr, t, value) : -ENOMEM;
	free(value);
	/* The names were checked before; the table refuses them again. */
	if (rc == -EINVAL)
		return np_fail(ctx, rc, "%s: %s: a name that cannot be part of the path '%s'", p->file,
			       np_attr_name(attr), np_attrs[attr].path);
	if (rc)
		return rc;
	for (size_t i = 0; i < r->n; i++) {
		if (strcmp(r->changes[i].path, c.path))
			continue;
		np_change_free(&r->changes[i]);
		r->changes[i] = c;
		return 0;
	}
	struct np_change *more = realloc(r->changes, (r->n + 1) * sizeof(*more));
	if (!more) {
		np_change_free(&c);
		return -ENOMEM;
	}
	r->changes = more;
	r->changes[r->n++] = c;
	return 0;
}

/* A CPU list (the form of profiles and plans) in attr's file form. */
static char *cpus_value(const struct np_machine *m, enum np_attr attr, const struct np_cpuset *set)
{
	return np_attr_format_cpus(attr, set, (unsigned)m->topo.max_cpu + 1);
}

static char *fmt(const char *f, ...) __attribute__((format(printf, 1, 2)));
static char *fmt(const char *f, ...)
{
	char *s;
	va_list ap;
	va_start(ap, f);
	int n = vasprintf(&s, f, ap);
	va_end(ap);
	return n < 0 ? NULL : s;
}

int np_profile_app_cpus(struct np_ctx *ctx, const struct np_machine *m, const struct np_profile *p,
			struct np_cpuset *out)
{
	np_cpuset_clear(out);
	if (p->app_cpus && np_cpuset_parse_list(out, p->app_cpus))
		return np_fail(ctx, -EINVAL, "%s: app.cpus: '%s' is not a CPU list", p->file, p->app_cpus);
	if (p->app_node >= 0) {
		const struct np_node *n = np_topology_node(&m->topo, p->app_node);
		if (!n || np_cpuset_empty(&n->cpus))
			return np_fail(ctx, -EINVAL, "%s: app.node: this machine has no node %d with CPUs", p->file,
				       p->app_node);
		return np_cpuset_copy(out, &n->cpus);
	}
	return 0;
}

/* CPU list text of a setting, which must name online CPUs only. */
static int online_cpus(struct np_ctx *ctx, const struct np_machine *m, const struct np_profile *p,
		       const struct np_setting *s, struct np_cpuset *set, bool allow_empty)
{
	if (np_cpuset_parse_list(set, s->cpus ? s->cpus : "") || (!allow_empty && np_cpuset_empty(set)))
		return np_fail(ctx, -EINVAL, "%s: %s.cpus: '%s' is not a CPU list", p->file, s->where, s->cpus);
	struct np_cpuset offline = NP_CPUSET_INIT;
	int rc = np_cpuset_copy(&offline, set);
	np_cpuset_andnot(&offline, &m->topo.online);
	if (rc == 0 && !np_cpuset_empty(&offline)) {
		char *text = np_cpuset_format_list(&offline), *online = np_cpuset_format_list(&m->topo.online);
		rc = np_fail(ctx, -EINVAL, "%s: %s.cpus: CPUs %s are not online on this machine (online: %s)", p->file,
			     s->where, text ? text : "?", online ? online : "?");
		free(text);
		free(online);
	}
	np_cpuset_free(&offline);
	return rc;
}

/* The device a setting names: a PCI address, an interface or a block device. */
static int find_device(struct np_ctx *ctx, const struct np_machine *m, const struct np_profile *p,
		       const struct np_setting *s)
{
	char addr[NP_PCI_ADDR_LEN];
	if (np_pci_parse_addr(s->device, addr)) {
		const struct np_pci_dev *d = np_pci_find(&m->pci, addr);
		if (d)
			return (int)(d - m->pci.devs);
	} else {
		for (size_t i = 0; i < m->pci.ndevs; i++) {
			const struct np_pci_dev *d = &m->pci.devs[i];
			for (size_t k = 0; k < d->nnet; k++)
				if (!strcmp(d->net[k].name, s->device))
					return (int)i;
			for (size_t k = 0; k < d->nblock; k++)
				if (!strcmp(d->block[k].name, s->device))
					return (int)i;
		}
	}
	return np_fail(ctx, -EINVAL, "%s: %s.device: no PCI function, interface or block device '%s' on this machine",
		       p->file, s->where, s->device);
}

static int irq_change(struct np_ctx *ctx, const struct np_machine *m, const struct np_profile *p,
		      const struct np_setting *s, const struct np_irq *irq, const struct np_cpuset *cpus,
		      struct np_resolved *out)
{
	const char *dev = irq->dev >= 0 ? m->pci.devs[irq->dev].addr : "no device";
	if (irq->managed != NP_MANAGED_NO)
		return np_fail(ctx, -EINVAL,
			       "%s: %s: irq %d (%s) of %s is managed%s: the kernel owns its affinity and refuses changes",
			       p->file, s->where, irq->irq, irq->name, dev,
			       irq->managed == NP_MANAGED_INFERRED ? " (its driver uses managed vectors)" : "");
	struct np_target t = { .irq = irq->irq, .queue = -1, .device = dev, .vector = irq->name };
	return add_change(ctx, p, out, NP_ATTR_IRQ_AFFINITY, &t, cpus_value(m, NP_ATTR_IRQ_AFFINITY, cpus));
}

static int resolve_irq_setting(struct np_ctx *ctx, const struct np_machine *m, const struct np_profile *p,
			       const struct np_setting *s, struct np_resolved *out)
{
	struct np_cpuset cpus = NP_CPUSET_INIT;
	int rc = online_cpus(ctx, m, p, s, &cpus, false), found = 0;
	if (rc == 0 && !s->device) {
		/* The explicit fallback: an IRQ number, valid for this boot only. */
		struct np_irq *irq = np_irqs_find((struct np_irqs *)&m->irqs, s->irq);
		rc = irq ? irq_change(ctx, m, p, s, irq, &cpus, out)
			 : np_fail(ctx, -EINVAL, "%s: %s.irq: no IRQ %d on this machine", p->file, s->where, s->irq);
		np_cpuset_free(&cpus);
		return rc;
	}
	int dev = rc == 0 ? find_device(ctx, m, p, s) : rc;
	if (dev < 0) {
		np_cpuset_free(&cpus);
		return dev;
	}
	for (size_t i = 0; rc == 0 && i < m->irqs.n; i++) {
		const struct np_irq *irq = &m->irqs.v[i];
		if (irq->dev != dev || (s->vector ? strcmp(irq->name, s->vector) != 0 : irq->queue != s->queue))
			continue;
		found++;
		rc = irq_change(ctx, m, p, s, irq, &cpus, out);
	}
	if (rc == 0 && !found) {
		if (s->vector)
			rc = np_fail(ctx, -EINVAL, "%s: %s.vector: %s has no IRQ named '%s'", p->file, s->where,
				     m->pci.devs[dev].addr, s->vector);
		else
			rc = np_fail(ctx, -EINVAL, "%s: %s.queue: %s has no IRQ for queue %d", p->file, s->where,
				     m->pci.devs[dev].addr, s->queue);
	}
	np_cpuset_free(&cpus);
	return rc;
}

/* Names reach paths: refuse anything that could leave the attribute's
 * directory, even though the profile parser already did. */
static bool safe_name(const char *name)
{
	return name && *name && !strchr(name, '/') && !strstr(name, "..");
}

static int resolve_setting(struct np_ctx *ctx, const struct np_machine *m, const struct np_profile *p,
			   const struct np_setting *s, struct np_resolved *out)
{
	enum np_attr attr = s->kind;
	const char *name = np_attr_name(attr);
	struct np_target t = { .irq = -1, .queue = s->queue, .net = s->net, .block = s->block };
	struct np_cpuset cpus = NP_CPUSET_INIT;
	char *path = NULL;
	int rc = 0;

	switch (attr) {
	case NP_ATTR_IRQ_AFFINITY:
		return resolve_irq_setting(ctx, m, p, s, out);
	case NP_ATTR_RQ_AFFINITY:
		t.queue = -1;
		if (!safe_name(s->block) || !(path = np_attr_path(attr, &t)) || !np_sysfs_exists(ctx, "%s", path))
			rc = np_fail(ctx, -EINVAL, "%s: %s.block: no block device '%s' with %s on this machine",
				     p->file, s->where, s->block, name);
		else if (s->value < np_attrs[attr].min || s->value > np_attrs[attr].max)
			rc = np_fail(ctx, -EINVAL, "%s: %s.value: %d, expected 0, 1 or 2", p->file, s->where, s->value);
		else
			rc = add_change(ctx, p, out, attr, &t, fmt("%d", s->value));
		break;
	case NP_ATTR_RPS_CPUS:
	case NP_ATTR_XPS_CPUS:
		if (!safe_name(s->net) || !np_sysfs_exists(ctx, "/sys/class/net/%s", s->net))
			rc = np_fail(ctx, -EINVAL, "%s: %s.net: no interface '%s' on this machine", p->file, s->where,
				     s->net);
		else if (s->queue < 0 || !(path = np_attr_path(attr, &t)) || !np_sysfs_exists(ctx, "%s", path))
			rc = np_fail(ctx, -EINVAL, "%s: %s.queue: %s has no %s queue %d with %s", p->file, s->where,
				     s->net, attr == NP_ATTR_RPS_CPUS ? "receive" : "transmit", s->queue, name);
		else if (!(rc = online_cpus(ctx, m, p, s, &cpus, np_attrs[attr].empty_ok)))
			rc = add_change(ctx, p, out, attr, &t, cpus_value(m, attr, &cpus));
		break;
	default:
		/* Machine-wide kinds: a file every kernel with the feature has. */
		t = NP_TARGET_NONE;
		if (!(path = np_attr_path(attr, &t)) || !np_sysfs_exists(ctx, "%s", path))
			rc = np_fail(ctx, -EINVAL, "%s: %s.kind: this machine has no %s ('%s')", p->file, s->where,
				     name, path ? path : np_attrs[attr].path);
		else if (!(rc = online_cpus(ctx, m, p, s, &cpus, np_attrs[attr].empty_ok)))
			rc = add_change(ctx, p, out, attr, &t, cpus_value(m, attr, &cpus));
		break;
	}
	free(path);
	np_cpuset_free(&cpus);
	return rc;
}

static bool glob_any_net(const struct np_pci_dev *d, const char *glob)
{
	for (size_t i = 0; i < d->nnet; i++)
		if (fnmatch(glob, d->net[i].name, 0) == 0)
			return true;
	return false;
}

static bool class_matches(const struct np_pci_dev *d, const char *cls)
{
	static const struct {
		const char *name;
		unsigned base;
	} names[] = { { "storage", 0x01 }, { "network", 0x02 }, { "display", 0x03 }, { "accelerator", 0x12 } };
	for (size_t i = 0; i < sizeof(names) / sizeof(names[0]); i++)
		if (!strcmp(cls, names[i].name))
			return d->class_id >> 8 == names[i].base;
	return strtoul(cls, NULL, 16) == d->class_id;
}

static bool rule_matches(const struct np_rule *r, const struct np_pci_dev *d)
{
	char ids[16];
	snprintf(ids, sizeof(ids), "%04x:%04x", d->vendor_id, d->device_id);
	return (!r->match_class || class_matches(d, r->match_class)) &&
	       (!r->match_driver || (d->driver && !strcmp(d->driver, r->match_driver)) ||
		(d->child_driver && !strcmp(d->child_driver, r->match_driver))) &&
	       (!r->match_ids || !strcmp(ids, r->match_ids)) && (!r->match_net || glob_any_net(d, r->match_net)) &&
	       (!r->match_pci || fnmatch(r->match_pci, d->addr, 0) == 0);
}

/* Rules become per-device policies for the advisor; a later rule overrides
 * the fields it sets for the devices it matches. */
static int resolve_rules(struct np_ctx *ctx, const struct np_machine *m, const struct np_profile *p,
			 struct np_resolved *out)
{
	struct np_advise_opts o = { .policy_name = "profile", .devices_only = true };
	struct np_plan plan = { 0 };
	o.devices = calloc(m->pci.ndevs + 1, sizeof(*o.devices));
	if (!o.devices)
		return -ENOMEM;
	int rc = np_profile_app_cpus(ctx, m, p, &o.app_cpus);
	for (size_t i = 0; i < m->pci.ndevs; i++)
		o.devices[i] = (struct np_device_policy){ .irqs = NP_IRQS_KEEP, .rq_affinity = NP_RQ_KEEP };
	for (size_t k = 0; rc == 0 && k < p->nrules; k++) {
		const struct np_rule *r = &p->rules[k];
		for (size_t i = 0; rc == 0 && i < m->pci.ndevs; i++) {
			struct np_device_policy *pol = &o.devices[i];
			if (!rule_matches(r, &m->pci.devs[i]))
				continue;
			pol->selected = true;
			if (r->irqs != NP_IRQS_KEEP)
				pol->irqs = r->irqs;
			if (r->irqs == NP_IRQS_CPUS && np_cpuset_parse_list(&pol->irq_cpus, r->irq_cpus))
				rc = np_fail(ctx, -EINVAL, "%s: %s.irqs: '%s' is not a CPU list", p->file, r->where, r->irq_cpus);
			if (r->rq_affinity >= 0)
				pol->rq_affinity = r->rq_affinity;
			if (r->rps != NP_RPS_KEEP)
				pol->rps = r->rps;
			pol->xps_follow_irq |= r->xps_follow_irq;
		}
	}
	char **kube_warnings = NULL;
	size_t nkube = 0;
	if (rc == 0)
		rc = np_kubelet_forbid(m, &o, &kube_warnings, &nkube);
	for (size_t i = 0; i < nkube; i++) {
		char **more = rc == 0 ? realloc(out->warnings, (out->nwarnings + 1) * sizeof(*more)) : NULL;
		if (more) {
			out->warnings = more;
			out->warnings[out->nwarnings++] = kube_warnings[i];
		} else {
			free(kube_warnings[i]);
			rc = rc ? rc : -ENOMEM;
		}
	}
	free(kube_warnings);
	if (rc == 0 && (rc = np_advise(m, &o, &plan)))
		np_fail(ctx, rc, "%s: resolving rules: %s", p->file, strerror(-rc));
	for (size_t i = 0; rc == 0 && i < plan.n; i++) {
		const struct np_rec *r = &plan.v[i];
		struct np_target t = { .irq = r->irq, .queue = r->queue, .net = r->net, .block = r->block,
				       .device = r->dev >= 0 ? m->pci.devs[r->dev].addr : NULL, .vector = r->vector };
		struct np_cpuset set = NP_CPUSET_INIT;
		if (np_attrs[r->kind].command)
			continue; /* advice only: never applied */
		if (np_attrs[r->kind].value == NP_VALUE_INT)
			rc = add_change(ctx, p, out, r->kind, &t, strdup(r->recommended));
		else if (!(rc = np_cpuset_parse_list(&set, r->recommended)))
			rc = add_change(ctx, p, out, r->kind, &t, cpus_value(m, r->kind, &set));
		np_cpuset_free(&set);
	}
	/* What the rules could not do is worth telling, not failing on. */
	for (size_t i = 0; rc == 0 && i < plan.nwarnings; i++) {
		char **more = realloc(out->warnings, (out->nwarnings + 1) * sizeof(*more));
		if (!more) {
			rc = -ENOMEM;
			break;
		}
		out->warnings = more;
		out->warnings[out->nwarnings++] = plan.warnings[i];
		plan.warnings[i] = NULL;
	}
	for (size_t i = 0; i < m->pci.ndevs; i++)
		np_cpuset_free(&o.devices[i].irq_cpus);
	free(o.devices);
	np_cpuset_free(&o.app_cpus);
	np_cpuset_free(&o.exclude);
	np_plan_free(&plan);
	return rc;
}

int np_profile_resolve(struct np_ctx *ctx, const struct np_machine *m, const struct np_profile *p,
		       struct np_resolved *out)
{
	memset(out, 0, sizeof(*out));
	int rc = p->nrules ? resolve_rules(ctx, m, p, out) : 0;
	for (size_t i = 0; rc == 0 && i < p->nsettings; i++)
		rc = resolve_setting(ctx, m, p, &p->settings[i], out);
	if (rc == -ENOMEM)
		np_fail(ctx, rc, "%s: %s", p->file, strerror(ENOMEM));
	if (rc)
		np_resolved_free(out);
	return rc;
}
