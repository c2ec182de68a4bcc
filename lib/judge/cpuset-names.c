/* SPDX-License-Identifier: GPL-2.0-or-later */
#include "judge/cpuset-names.h"

#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "read/machine.h"

char *np_cpuset_format_short(const struct np_cpuset *set, size_t max)
{
	/* Exact when it fits: the stride form ("0-62:2") is never longer than the list. */
	char *exact = np_cpuset_format_stride(set);
	if (!exact || strlen(exact) <= max)
		return exact;
	free(exact);
	char *full = np_cpuset_format_list(set);
	if (!full)
		return NULL;
	char tail[48];
	const char *last = strrchr(full, ',');
	snprintf(tail, sizeof(tail), ",...,%s (%u)", last ? last + 1 : "", np_cpuset_count(set));
	/* Whole items only, and at least one, so no number is ever cut. */
	size_t keep = strcspn(full, ",");
	for (const char *p = full + keep; *p == ',';) {
		size_t next = (size_t)(p - full) + 1 + strcspn(p + 1, ",");
		if (next + strlen(tail) > max)
			break;
		keep = next;
		p = full + next;
	}
	char *out;
	if (asprintf(&out, "%.*s%s", (int)keep, full, tail) < 0)
		out = NULL;
	free(full);
	return out;
}

char *np_nodes_text(const struct np_cpuset *nodes)
{
	char *list = np_cpuset_format_list(nodes), *out;
	if (!list)
		return NULL;
	if (asprintf(&out, "%s %s", np_cpuset_count(nodes) == 1 ? "node" : "nodes", list) < 0)
		out = NULL;
	free(list);
	return out;
}

/* The nodes whose CPUs make up exactly set (at least one), or false. */
static bool whole_nodes(const struct np_topology *topo, const struct np_cpuset *set, struct np_cpuset *nodes)
{
	struct np_cpuset cover = NP_CPUSET_INIT;
	bool ok = true;
	np_cpuset_clear(nodes);
	for (int i = 0; ok && i < topo->nnodes; i++) {
		const struct np_cpuset *c = &topo->nodes[i].cpus;
		if (np_cpuset_empty(c) || !np_cpuset_subset(c, set))
			continue;
		ok = !np_cpuset_or(&cover, c) && !np_cpuset_set(nodes, (unsigned)topo->nodes[i].id);
	}
	ok = ok && !np_cpuset_empty(nodes) && np_cpuset_equal(&cover, set);
	np_cpuset_free(&cover);
	return ok;
}

char *np_cpus_text(const struct np_topology *topo, const struct np_cpuset *set)
{
	if (np_cpuset_empty(set))
		return strdup("none");
	/* An affinity may name possible CPUs that are not online: still "all". */
	if (!np_cpuset_empty(&topo->online) && np_cpuset_subset(&topo->online, set))
		return strdup("all");
	if (!np_cpuset_empty(&topo->isolated) && np_cpuset_equal(set, &topo->isolated))
		return strdup("isolated");
	struct np_cpuset tmp = NP_CPUSET_INIT;
	char *out = NULL;
	bool named = false;
	if (topo->nnodes > 1 && whole_nodes(topo, set, &tmp)) {
		out = np_nodes_text(&tmp);
		named = true;
	} else if (!np_cpuset_empty(&topo->isolated) && !np_cpuset_copy(&tmp, &topo->online)) {
		np_cpuset_andnot(&tmp, &topo->isolated);
		np_cpuset_andnot(&tmp, &topo->nohz_full);
		if (!np_cpuset_empty(&tmp) && np_cpuset_equal(&tmp, set)) {
			out = strdup("housekeeping");
			named = true;
		}
	}
	np_cpuset_free(&tmp);
	return named ? out : np_cpuset_format_short(set, NP_CPUS_TEXT_MAX);
}

char *np_cpus_where(const struct np_topology *topo, const struct np_cpuset *cpus)
{
	struct np_cpuset nodes = NP_CPUSET_INIT;
	char *text = np_cpus_text(topo, cpus), *nt = NULL, *out = NULL;
	if (text && !np_nodes_of(topo, cpus, &nodes))
		nt = np_nodes_text(&nodes);
	if (!text || !nt)
		;
	else if (!strcmp(text, "all"))
		out = strdup("all CPUs");
	else if (!strncmp(text, "node", 4) || np_cpuset_empty(&nodes))
		out = strdup(text);
	else if (asprintf(&out, "%s %s, %s", np_cpuset_count(cpus) == 1 ? "CPU" : "CPUs", text, nt) < 0)
		out = NULL;
	free(text);
	free(nt);
	np_cpuset_free(&nodes);
	return out;
}
