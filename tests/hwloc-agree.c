/* SPDX-License-Identifier: GPL-2.0-or-later */
/* Checks `numaplace --root ROOT topo --json` (on stdin) against hwloc's own
 * reading of the same root (HWLOC_FSROOT, as lstopo does it): the same nodes
 * with the same CPUs, memory and distances, and for every CPU the same node,
 * package, core, SMT siblings and online state. Prints each difference;
 * exits 1 when there is any, 2 when it cannot compare. */
#include <cjson/cJSON.h>
#include <hwloc.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static int differences;

#define DIFF(...) (differences++, fprintf(stderr, __VA_ARGS__), fputc('\n', stderr))

static char *slurp(FILE *f)
{
	size_t cap = 1 << 16, len = 0, n;
	char *buf = malloc(cap);
	while (buf && (n = fread(buf + len, 1, cap - len - 1, f)) > 0) {
		len += n;
		if (len + 1 == cap && !(buf = realloc(buf, cap *= 2)))
			return NULL;
	}
	if (buf)
		buf[len] = '\0';
	return buf;
}

static void compare_set(const char *what, hwloc_const_bitmap_t hw, const cJSON *ours)
{
	hwloc_bitmap_t mine = hwloc_bitmap_alloc();
	char *hw_text = NULL;
	if (!cJSON_IsString(ours) || hwloc_bitmap_list_sscanf(mine, ours->valuestring) < 0)
		DIFF("%s: numaplace gave no CPU list", what);
	else if (!hwloc_bitmap_isequal(hw, mine)) {
		hwloc_bitmap_list_asprintf(&hw_text, hw);
		DIFF("%s: hwloc '%s', numaplace '%s'", what, hw_text, ours->valuestring);
	}
	free(hw_text);
	hwloc_bitmap_free(mine);
}

static int number(const cJSON *o, const char *key)
{
	const cJSON *v = cJSON_GetObjectItemCaseSensitive(o, key);
	return cJSON_IsNumber(v) ? v->valueint : -1;
}

static const cJSON *find_by(const cJSON *array, const char *key, int value)
{
	const cJSON *o;
	cJSON_ArrayForEach(o, array) if (number(o, key) == value) return o;
	return NULL;
}

static void compare_nodes(hwloc_topology_t topo, const cJSON *nodes)
{
	int n = hwloc_get_nbobjs_by_type(topo, HWLOC_OBJ_NUMANODE);
	if (n != cJSON_GetArraySize(nodes))
		DIFF("nodes: hwloc %d, numaplace %d", n, cJSON_GetArraySize(nodes));
	for (int i = 0; i < n; i++) {
		hwloc_obj_t node = hwloc_get_obj_by_type(topo, HWLOC_OBJ_NUMANODE, (unsigned)i);
		const cJSON *mine = find_by(nodes, "node", (int)node->os_index);
		char what[64];
		snprintf(what, sizeof(what), "node %u cpus", node->os_index);
		if (!mine) {
			DIFF("node %u: missing from numaplace", node->os_index);
			continue;
		}
		/* hwloc gives a memory-only node the CPUs of the object it hangs
		 * from; the kernel (and numaplace) give it none. */
		if (cJSON_IsTrue(cJSON_GetObjectItemCaseSensitive(mine, "memory_only"))) {
			const cJSON *cpus = cJSON_GetObjectItemCaseSensitive(mine, "cpus");
			if (!cJSON_IsString(cpus) || cpus->valuestring[0])
				DIFF("node %u: memory-only for numaplace, yet it lists CPUs", node->os_index);
		} else {
			compare_set(what, node->complete_cpuset, cJSON_GetObjectItemCaseSensitive(mine, "cpus"));
		}
		/* Memory numaplace calls unknown (null) is memory hwloc found none of. */
		const cJSON *mem = cJSON_GetObjectItemCaseSensitive(mine, "memory_kb");
		double kb = cJSON_IsNumber(mem) ? mem->valuedouble : 0;
		if (!cJSON_IsNumber(mem) && !cJSON_IsNull(mem))
			DIFF("node %u memory: numaplace gave neither a number nor null", node->os_index);
		else if ((unsigned long long)kb * 1024 != node->attr->numanode.local_memory)
			DIFF("node %u memory: hwloc %llu kB, numaplace %.0f kB", node->os_index,
			     (unsigned long long)(node->attr->numanode.local_memory / 1024), kb);
	}

	struct hwloc_distances_s *dist;
	unsigned nr = 1;
	if (hwloc_distances_get_by_type(topo, HWLOC_OBJ_NUMANODE, &nr, &dist, 0, 0) < 0 || nr == 0)
		return; /* hwloc found no distances: nothing to compare */
	for (unsigned i = 0; i < dist->nbobjs; i++) {
		const cJSON *mine = find_by(nodes, "node", (int)dist->objs[i]->os_index);
		const cJSON *row = mine ? cJSON_GetObjectItemCaseSensitive(mine, "distances") : NULL;
		for (unsigned j = 0; j < dist->nbobjs; j++) {
			/* numaplace orders a row by ascending node id, as the kernel does. */
			int col = 0;
			const cJSON *o;
			cJSON_ArrayForEach(o, nodes) if (number(o, "node") < (int)dist->objs[j]->os_index) col++;
			const cJSON *v = cJSON_GetArrayItem(row, col);
			if (!cJSON_IsNumber(v) || (hwloc_uint64_t)v->valueint != dist->values[i * dist->nbobjs + j])
				DIFF("distance %u->%u: hwloc %llu, numaplace %d", dist->objs[i]->os_index,
				     dist->objs[j]->os_index, (unsigned long long)dist->values[i * dist->nbobjs + j],
				     cJSON_IsNumber(v) ? v->valueint : -1);
		}
	}
	hwloc_distances_release(topo, dist);
}

static int ancestor_index(hwloc_topology_t topo, hwloc_obj_t pu, hwloc_obj_type_t type)
{
	hwloc_obj_t a = hwloc_get_ancestor_obj_by_type(topo, type, pu);
	return a && a->os_index != HWLOC_UNKNOWN_INDEX ? (int)a->os_index : -1;
}

static void compare_cpus(hwloc_topology_t topo, const cJSON *cpus, const cJSON *nodes, const cJSON *doc)
{
	hwloc_const_bitmap_t online = hwloc_topology_get_topology_cpuset(topo);
	compare_set("online CPUs", online, cJSON_GetObjectItemCaseSensitive(doc, "online"));
	hwloc_obj_t pu = NULL;
	while ((pu = hwloc_get_next_obj_by_type(topo, HWLOC_OBJ_PU, pu))) {
		const cJSON *mine = find_by(cpus, "cpu", (int)pu->os_index);
		if (!mine) {
			DIFF("cpu %u: missing from numaplace", pu->os_index);
			continue;
		}
		int pkg = ancestor_index(topo, pu, HWLOC_OBJ_PACKAGE);
		int core = ancestor_index(topo, pu, HWLOC_OBJ_CORE);
		if (pkg >= 0 && pkg != number(mine, "package"))
			DIFF("cpu %u package: hwloc %d, numaplace %d", pu->os_index, pkg, number(mine, "package"));
		if (core >= 0 && core != number(mine, "core"))
			DIFF("cpu %u core: hwloc %d, numaplace %d", pu->os_index, core, number(mine, "core"));
		hwloc_obj_t c = hwloc_get_ancestor_obj_by_type(topo, HWLOC_OBJ_CORE, pu);
		char what[64];
		snprintf(what, sizeof(what), "cpu %u siblings", pu->os_index);
		if (c)
			compare_set(what, c->cpuset, cJSON_GetObjectItemCaseSensitive(mine, "thread_siblings"));
		if (!cJSON_IsTrue(cJSON_GetObjectItemCaseSensitive(mine, "online")))
			DIFF("cpu %u: online for hwloc, not for numaplace", pu->os_index);
		int node = -1;
		hwloc_obj_t n = NULL;
		while ((n = hwloc_get_next_obj_by_type(topo, HWLOC_OBJ_NUMANODE, n)))
			if (hwloc_bitmap_isset(n->cpuset, pu->os_index) &&
			    !cJSON_IsTrue(cJSON_GetObjectItemCaseSensitive(find_by(nodes, "node", (int)n->os_index),
									   "memory_only")))
				node = (int)n->os_index;
		if (node != number(mine, "node"))
			DIFF("cpu %u node: hwloc %d, numaplace %d", pu->os_index, node, number(mine, "node"));
	}
	/* CPUs numaplace calls offline must be absent from hwloc's online set. */
	const cJSON *o;
	cJSON_ArrayForEach(o, cpus)
	{
		if (!cJSON_IsTrue(cJSON_GetObjectItemCaseSensitive(o, "online")) &&
		    hwloc_bitmap_isset(online, (unsigned)number(o, "cpu")))
			DIFF("cpu %d: offline for numaplace, online for hwloc", number(o, "cpu"));
	}
}

int main(int argc, char **argv)
{
	if (argc != 2) {
		fprintf(stderr, "usage: %s ROOT < numaplace-topo.json\n", argv[0]);
		return 2;
	}
	char *text = slurp(stdin);
	cJSON *doc = text ? cJSON_Parse(text) : NULL;
	free(text);
	if (!doc) {
		fprintf(stderr, "cannot parse numaplace's JSON\n");
		return 2;
	}
	setenv("HWLOC_FSROOT", argv[1], 1);
	/* Only what the root says: hwloc's x86 backend would add this host's CPUID
	 * caches, which clash with a fixture's numbering (and warn). */
	setenv("HWLOC_COMPONENTS", "linux,stop", 1);
	hwloc_topology_t topo;
	if (hwloc_topology_init(&topo) < 0 ||
	    hwloc_topology_set_flags(topo, HWLOC_TOPOLOGY_FLAG_INCLUDE_DISALLOWED) < 0 ||
	    hwloc_topology_set_io_types_filter(topo, HWLOC_TYPE_FILTER_KEEP_NONE) < 0 ||
	    hwloc_topology_load(topo) < 0) {
		fprintf(stderr, "hwloc cannot load %s\n", argv[1]);
		return 2;
	}
	compare_nodes(topo, cJSON_GetObjectItemCaseSensitive(doc, "nodes"));
	compare_cpus(topo, cJSON_GetObjectItemCaseSensitive(doc, "cpus"), cJSON_GetObjectItemCaseSensitive(doc, "nodes"),
		     doc);
	hwloc_topology_destroy(topo);
	cJSON_Delete(doc);
	if (differences)
		fprintf(stderr, "%d difference(s) between hwloc and numaplace\n", differences);
	return differences ? 1 : 0;
}
