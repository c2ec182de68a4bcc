/* SPDX-License-Identifier: GPL-2.0-or-later */
#include "judge/forbidden.h"

#include <errno.h>
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

/* The sources: their name, where each finds its CPUs on the machine (NULL:
 * the caller's), and whether the kernel keeps them quiet. */
static const struct source {
	const char *name;
	const struct np_cpuset *(*find)(const struct np_machine *m);
	bool quiet;
} sources[NP_FORBID_NSOURCES] = {
	[NP_FORBID_ISOLATED] = { "isolated", isolated, true },
	[NP_FORBID_NOHZ_FULL] = { "nohz_full", nohz_full, true },
	[NP_FORBID_EXCLUDED] = { "excluded", NULL, false },
	[NP_FORBID_EXCLUSIVE] = { "exclusive", exclusive, false },
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
	}
	if (rc == 0)
		rc = np_cpuset_copy(&out->exclusive, &out->by[NP_FORBID_EXCLUSIVE]);
	np_cpuset_andnot(&out->exclusive, &out->quiet);
	return rc;
}

void np_forbidden_free(struct np_forbidden *f)
{
	for (int s = 0; s < NP_FORBID_NSOURCES; s++)
		np_cpuset_free(&f->by[s]);
	np_cpuset_free(&f->quiet);
	np_cpuset_free(&f->exclusive);
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
