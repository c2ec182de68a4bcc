/* SPDX-License-Identifier: GPL-2.0-or-later */
#include "judge/forbidden.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static const struct np_cpuset *isolated(const struct np_machine *m)
{
	return &m->topo.isolated;
}

static const struct np_cpuset *nohz_full(const struct np_machine *m)
{
	return &m->topo.nohz_full;
}

static const struct np_cpuset *exclusive(const struct np_machine *m)
{
	return &m->kube.exclusive;
}

static const struct np_cpuset *tuned(const struct np_machine *m)
{
	return &m->tuned.isolated;
}

static const struct np_cpuset *irqbalance(const struct np_machine *m)
{
	return &m->irqb_banned.cpus;
}

static const char *tuned_from(const struct np_machine *m)
{
	return m->tuned.source;
}

static const char *tuned_note(const struct np_machine *m)
{
	return m->tuned.note;
}

static const char *irqbalance_from(const struct np_machine *m)
{
	return m->irqb_banned.source;
}

static const char *irqbalance_note(const struct np_machine *m)
{
	return m->irqb_banned.note;
}

/* The sources: their name, how a reason calls their CPUs, where each finds
 * its CPUs on the machine (NULL: the caller's), whether the kernel keeps
 * them quiet, whether an IRQ pinned there stays (a balancer's configuration
 * bans them, which says where it may not put IRQs, not that none may run
 * there), and what a plan's notes say of it: where its CPUs were read, what
 * its reader could not use (NULL: nothing). */
static const struct source {
	const char *name, *adjective;
	const struct np_cpuset *(*find)(const struct np_machine *m);
	bool quiet, pinned_stays;
	const char *(*from)(const struct np_machine *m);
	const char *(*note)(const struct np_machine *m);
} sources[NP_FORBID_NSOURCES] = {
	[NP_FORBID_ISOLATED] = { "isolated", "isolated", isolated, .quiet = true },
	[NP_FORBID_NOHZ_FULL] = { "nohz_full", "nohz_full", nohz_full, .quiet = true },
	[NP_FORBID_EXCLUDED] = { "excluded", "excluded", .find = NULL },
	[NP_FORBID_EXCLUSIVE] = { "exclusive", "container-exclusive", .find = exclusive },
	[NP_FORBID_TUNED] = { "tuned", "TuneD-isolated", tuned, .from = tuned_from, .note = tuned_note },
	[NP_FORBID_IRQBALANCE] = { "irqbalance", "irqbalance-banned", irqbalance, .pinned_stays = true,
				   .from = irqbalance_from, .note = irqbalance_note },
};

const char *np_forbid_name(enum np_forbid_source s)
{
	return s < NP_FORBID_NSOURCES ? sources[s].name : "?";
}

int np_forbidden_find(const struct np_machine *m, const struct np_cpuset *excluded, struct np_forbidden *out)
{
	int rc = 0;
	memset(out, 0, sizeof(*out));
	for (int s = 0; s < NP_FORBID_NSOURCES && rc == 0; s++) {
		const struct np_cpuset *cpus = sources[s].find ? sources[s].find(m) : excluded;
		if (cpus && (rc = np_cpuset_copy(&out->by[s], cpus)) == 0 && sources[s].quiet)
			rc = np_cpuset_or(&out->quiet, cpus);
		if (rc == 0 && cpus)
			rc = np_cpuset_or(&out->all, cpus);
	}
	if (rc == 0)
		rc = np_cpuset_copy(&out->exclusive, &out->by[NP_FORBID_EXCLUSIVE]);
	np_cpuset_andnot(&out->exclusive, &out->quiet);
	for (int s = 0; s < NP_FORBID_NSOURCES && rc == 0; s++)
		if (sources[s].pinned_stays)
			rc = np_cpuset_or(&out->banned_only, &out->by[s]);
	for (int s = 0; s < NP_FORBID_NSOURCES && rc == 0; s++)
		if (!sources[s].pinned_stays)
			np_cpuset_andnot(&out->banned_only, &out->by[s]);
	return rc;
}

void np_forbidden_free(struct np_forbidden *f)
{
	for (int s = 0; s < NP_FORBID_NSOURCES; s++)
		np_cpuset_free(&f->by[s]);
	np_cpuset_free(&f->quiet);
	np_cpuset_free(&f->exclusive);
	np_cpuset_free(&f->banned_only);
	np_cpuset_free(&f->all);
}

char *np_forbidden_text(const struct np_forbidden *f, const struct np_cpuset *set, bool *failed)
{
	struct np_cpuset seen = NP_CPUSET_INIT, hit = NP_CPUSET_INIT;
	char *out = NULL;
	*failed = false;
	/* Asked of every IRQ the planner looks at: most machines have none. */
	if (!np_cpuset_intersects(set, &f->all))
		return NULL;
	for (int s = 0; s < NP_FORBID_NSOURCES && !*failed; s++) {
		if (!np_cpuset_intersects(set, &f->by[s]))
			continue;
		if (np_cpuset_copy(&hit, set)) {
			*failed = true;
			break;
		}
		np_cpuset_and(&hit, &f->by[s]);
		np_cpuset_andnot(&hit, &seen);
		if (np_cpuset_empty(&hit))
			continue;
		char *list = np_cpuset_format_list(&hit), *more = NULL;
		if (!list || asprintf(&more, "%s%s%s CPU%s %s", out ? out : "", out ? " and " : "", sources[s].adjective,
				      np_cpuset_count(&hit) > 1 ? "s" : "", list) < 0)
			*failed = true;
		free(list);
		free(out);
		out = more;
		if (!*failed && np_cpuset_or(&seen, &hit))
			*failed = true;
	}
	np_cpuset_free(&seen);
	np_cpuset_free(&hit);
	if (*failed) {
		free(out);
		return NULL;
	}
	return out;
}

char *np_forbid_source_line(const struct np_machine *m, const struct np_forbidden *f, enum np_forbid_source s,
			    bool *failed)
{
	const char *from = s < NP_FORBID_NSOURCES && sources[s].from ? sources[s].from(m) : NULL;
	char *list, *out = NULL;
	*failed = false;
	if (!from || np_cpuset_empty(&f->by[s]))
		return NULL;
	if (!(list = np_cpuset_format_list(&f->by[s])) ||
	    asprintf(&out, "%s CPU%s %s kept free of IRQs: %s", sources[s].adjective,
		     np_cpuset_count(&f->by[s]) > 1 ? "s" : "", list, from) < 0) {
		*failed = true;
		out = NULL;
	}
	free(list);
	return out;
}

const char *np_forbid_note(const struct np_machine *m, enum np_forbid_source s)
{
	return s < NP_FORBID_NSOURCES && sources[s].note ? sources[s].note(m) : NULL;
}

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
	/* A memory-only node's own nearest CPUs: its HMAT initiators', which
	 * distances alone can contradict. */
	const struct np_node *self = np_topology_node(topo, node);
	if (self && self->near_by == NP_NEAR_INITIATORS && np_cpuset_intersects(&self->near_cpus, usable)) {
		if ((rc = np_cpuset_copy(out, &self->near_cpus)) == 0)
			np_cpuset_and(out, usable);
		return rc;
	}
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
