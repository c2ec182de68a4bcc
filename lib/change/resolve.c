/* SPDX-License-Identifier: GPL-2.0-or-later */
#include "change/resolve.h"

#include <errno.h>
#include <fnmatch.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "judge/advise.h"
#include "read/sysfs.h"
#include "change/target.h"

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
	/* A value the profile names in part (channels) is made whole from the
	 * machine's, so that it compares and reverts as one. */
	const struct np_attr_access *access = np_attrs[attr].access;
	char *whole = NULL;
	if (access && access->complete && (rc = access->complete(ctx, c.path, c.new_value, &whole))) {
		char detail[sizeof(ctx->err)];
		snprintf(detail, sizeof(detail), "%s", ctx->err);
		np_change_free(&c);
		return np_fail(ctx, rc, "%s: %s", p->file, detail);
	}
	if (whole) {
		free(c.new_value);
		c.new_value = whole;
	}
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
	if (np_cpuset_parse_list(set, s->value ? s->value : "") || (!allow_empty && np_cpuset_empty(set)))
		return np_fail(ctx, -EINVAL, "%s: %s.cpus: '%s' is not a CPU list", p->file, s->where, s->value);
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

/* The value a setting writes, in its kind's file form: its kind's value
 * decides, whatever its target. */
static int setting_value(struct np_ctx *ctx, const struct np_machine *m, const struct np_profile *p,
			 const struct np_setting *s, char **out)
{
	const struct np_attr_desc *d = &np_attrs[s->kind];
	*out = NULL;
	if (d->value == NP_VALUE_INT) {
		if (!np_attr_value_ok(s->kind, s->value))
			return np_fail(ctx, -EINVAL, "%s: %s.value: %s, expected %d to %d", p->file, s->where,
				       s->value ? s->value : "none", d->min, d->max);
		*out = np_value_normalize(d->value, s->value);
		return *out ? 0 : -ENOMEM;
	}
	if (d->value == NP_VALUE_CHANNELS) {
		if (!np_attr_value_ok(s->kind, s->value))
			return np_fail(ctx, -EINVAL, "%s: %s.value: '%s', expected channel counts such as \"combined 4\"",
				       p->file, s->where, s->value ? s->value : "");
		*out = strdup(s->value);
		return *out ? 0 : -ENOMEM;
	}
	struct np_cpuset cpus = NP_CPUSET_INIT;
	int rc = online_cpus(ctx, m, p, s, &cpus, d->empty_ok);
	if (!rc && !(*out = cpus_value(m, s->kind, &cpus)))
		rc = -ENOMEM;
	np_cpuset_free(&cpus);
	return rc;
}

/* The targets a setting names on the machine, as its class finds them. */
struct found {
	struct np_target *v; /* shallow: the machine's and the setting's strings */
	size_t n;
};

static int collect(void *arg, const struct np_target *t)
{
	struct found *f = arg;
	struct np_target *more = realloc(f->v, (f->n + 1) * sizeof(*more));
	if (!more)
		return -ENOMEM;
	f->v = more;
	f->v[f->n++] = *t;
	return 0;
}

static int resolve_setting(struct np_ctx *ctx, const struct np_machine *m, const struct np_profile *p,
			   const struct np_setting *s, struct np_resolved *out)
{
	struct found f = { 0 };
	char *value = NULL;
	const struct np_target_wanted want = { s->kind, s->target, p->file, s->where };
	int rc = np_attrs[s->kind].target->resolve(ctx, m, &want, collect, &f);
	if (!rc)
		rc = setting_value(ctx, m, p, s, &value);
	for (size_t i = 0; rc == 0 && i < f.n; i++)
		rc = add_change(ctx, p, out, s->kind, &f.v[i], strdup(value));
	free(value);
	free(f.v);
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
	if (!o.devices || np_forbidden_find(m, NULL, &o.forbidden)) {
		free(o.devices);
		np_forbidden_free(&o.forbidden);
		return -ENOMEM;
	}
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
			if (r->channels != NP_CHANNELS_KEEP)
				pol->channels = r->channels;
		}
	}
	if (rc == 0)
		rc = np_advise_opts_forbid(m, &o, &out->warnings, &out->nwarnings);
	if (rc == 0 && (rc = np_advise(m, &o, &plan)))
		np_fail(ctx, rc, "%s: resolving rules: %s", p->file, strerror(-rc));
	for (size_t i = 0; rc == 0 && i < plan.n; i++) {
		const struct np_rec *r = &plan.v[i];
		struct np_target t = { .irq = r->irq, .queue = r->queue, .net = r->net, .block = r->block,
				       .device = r->dev >= 0 ? m->pci.devs[r->dev].addr : NULL, .vector = r->vector };
		struct np_cpuset set = NP_CPUSET_INIT;
		if (r->advice)
			continue; /* a judgement offered, not carried */
		if (np_attrs[r->kind].value == NP_VALUE_INT || np_attrs[r->kind].value == NP_VALUE_CHANNELS)
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
	np_forbidden_free(&o.forbidden);
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
		if (r->advice)
			continue; /* a judgement offered, not carried (channels unless asked) */
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
