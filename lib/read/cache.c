/* SPDX-License-Identifier: GPL-2.0-or-later */
#include "read/cache.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "read/sysfs.h"

static int add_domain(struct np_l3 *l3, struct np_cpuset *cpus)
{
	struct np_cpuset *more = realloc(l3->domains, (size_t)(l3->n + 1) * sizeof(*more));
	if (!more)
		return -ENOMEM;
	l3->domains = more;
	l3->domains[l3->n] = *cpus;
	*cpus = (struct np_cpuset)NP_CPUSET_INIT;
	l3->n++;
	return 0;
}

int np_l3_read(struct np_ctx *ctx, const struct np_topology *topo, struct np_l3 *out)
{
	memset(out, 0, sizeof(*out));
	size_t ncpu = (size_t)topo->max_cpu + 1;
	out->of_cpu = malloc(ncpu * sizeof(int));
	if (!out->of_cpu)
		return -ENOMEM;
	out->max_cpu = topo->max_cpu;
	for (size_t c = 0; c < ncpu; c++)
		out->of_cpu[c] = -1;
	struct np_cpuset set = NP_CPUSET_INIT;
	int rc = 0;
	np_cpuset_foreach(cpu, &topo->online) {
		if ((size_t)cpu >= ncpu || out->of_cpu[cpu] >= 0)
			continue;
		rc = np_read_cpulist(ctx, &set, "/sys/devices/system/cpu/cpu%d/cache/index3/shared_cpu_list", cpu);
		if (rc == -ENOENT || (rc == 0 && !np_cpuset_test(&set, (unsigned)cpu))) {
			/* No L3 said: the node is the domain. */
			int node = np_topology_node_of_cpu(topo, cpu);
			const struct np_node *n = np_topology_node(topo, node);
			np_cpuset_clear(&set);
			rc = n ? np_cpuset_copy(&set, &n->cpus) : np_cpuset_set(&set, (unsigned)cpu);
		}
		if (rc)
			break;
		np_cpuset_and(&set, &topo->online);
		/* A CPU already in a domain keeps it: domains never overlap. */
		np_cpuset_foreach(c, &set)
			if (out->of_cpu[c] >= 0)
				np_cpuset_unset(&set, (unsigned)c);
		np_cpuset_set(&set, (unsigned)cpu);
		np_cpuset_foreach(c, &set)
			if ((size_t)c < ncpu)
				out->of_cpu[c] = out->n;
		if ((rc = add_domain(out, &set)))
			break;
	}
	np_cpuset_free(&set);
	if (rc)
		np_l3_free(out);
	return rc;
}

void np_l3_free(struct np_l3 *l3)
{
	for (int i = 0; i < l3->n; i++)
		np_cpuset_free(&l3->domains[i]);
	free(l3->domains);
	free(l3->of_cpu);
	memset(l3, 0, sizeof(*l3));
}

int np_l3_cover(const struct np_l3 *l3, const struct np_cpuset *cpus, struct np_cpuset *out)
{
	np_cpuset_clear(out);
	int last = -1, rc = 0;
	np_cpuset_foreach(cpu, cpus) {
		int d = l3->of_cpu && cpu <= l3->max_cpu ? l3->of_cpu[cpu] : -1;
		if (d < 0 || d == last)
			continue;
		last = d;
		if ((rc = np_cpuset_or(out, &l3->domains[d])))
			break;
	}
	return rc;
}
