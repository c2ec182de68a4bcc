/* SPDX-License-Identifier: GPL-2.0-or-later */
/* CPU sets as people read them: by name when the set is one ("all",
 * "node 0", "housekeeping"), else the list (in the stride form when shorter:
 * "0-78:2"), shortened with a count when long ("0,1,4,...,78 (40)"). For text only: JSON keeps exact lists. */
#ifndef NUMAPLACE_CPUDESC_H
#define NUMAPLACE_CPUDESC_H

#include <stddef.h>

#include "base/cpuset.h"
#include "read/topology.h"

/* Lists longer than this many characters are shortened. */
#define NP_CPUS_TEXT_MAX 24

/* Newly allocated; NULL on ENOMEM. "none" for the empty set. */
char *np_cpus_text(const struct np_topology *topo, const struct np_cpuset *set);
/* The stride form when it fits in max characters ("0-62:2"), else the list
 * form shortened to about max with a count: the first items, "...", the
 * last item, " (N)". Newly allocated; NULL on ENOMEM. */
char *np_cpuset_format_short(const struct np_cpuset *set, size_t max);
/* "node 0", "nodes 0-1": the nodes of a set of node ids. Newly allocated. */
char *np_nodes_text(const struct np_cpuset *nodes);

/* Where a set of CPUs is, for a sentence: "CPU 0, node 0", "CPUs 0-2,40,
 * node 0", "node 1", "all CPUs", "housekeeping, nodes 0-1". Newly allocated. */
char *np_cpus_where(const struct np_topology *topo, const struct np_cpuset *cpus);

#endif
