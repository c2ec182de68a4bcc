/* SPDX-License-Identifier: GPL-2.0-or-later */
#include "topology.h"

#include <ctype.h>
#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "sysfs.h"

#define CPU_DIR "/sys/devices/system/cpu"
#define NODE_DIR "/sys/devices/system/node"

/* "cpu12" -> 12 for entries named PREFIX + digits only; -1 otherwise. */
static int numbered(const char *name, const char *prefix)
{
	size_t len = strlen(prefix);
	if (strncmp(name, prefix, len) || !name[len])
		return -1;
	long v = 0;
	for (const char *p = name + len; *p; p++) {
		if (!isdigit((unsigned char)*p) || v > NP_CPUSET_MAX_CPU)
			return -1;
		v = v * 10 + (*p - '0');
	}
	return v > NP_CPUSET_MAX_CPU ? -1 : (int)v;
}

static int optional(int rc)
{
	return rc == -ENOENT ? 0 : rc;
}

static int note(struct np_topology *t, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
static int note(struct np_topology *t, const char *fmt, ...)
{
	char **more = realloc(t->notes, (t->nnotes + 1) * sizeof(*more));
	if (!more)
		return -ENOMEM;
	t->notes = more;
	va_list ap;
	va_start(ap, fmt);
	int n = vasprintf(&more[t->nnotes], fmt, ap);
	va_end(ap);
	if (n < 0)
		return -ENOMEM;
	t->nnotes++;
	return 0;
}

/* One note for the CPUs or nodes (noun) in set that lack a file, naming the
 * first's; path_fmt takes that number. */
static int note_missing(struct np_ctx *ctx, struct np_topology *t, const struct np_cpuset *set,
			const char *what, const char *noun, const char *path_fmt)
{
	if (np_cpuset_empty(set))
		return 0;
	char path[4096], *list = np_cpuset_format_list(set);
	if (!list)
		return -ENOMEM;
	np_sysfs_path(ctx, path, path_fmt, np_cpuset_next(set, 0));
	unsigned more = np_cpuset_count(set) - 1;
	int rc = more ? note(t, "%s of %ss %s unknown: no '%s' and %u more like it", what, noun, list, path, more)
		      : note(t, "%s of %s %s unknown: no '%s'", what, noun, list, path);
	free(list);
	return rc;
}

/* cpu/isolated or cpu/nohz_full into set, else the kernel command line's
 * param= list; with neither, *unknown is set and the set stays empty. */
static int read_kernel_list(struct np_ctx *ctx, struct np_topology *t, struct np_cpuset *set,
			    const char *file, const char *param, const char *cmdline, bool *unknown)
{
	char *text = NULL, path[4096], ex[44];
	np_sysfs_path(ctx, path, CPU_DIR "/%s", file);
	int rc = np_read_text(ctx, &text, CPU_DIR "/%s", file);
	if (rc == 0) {
		char *v = text, *end = text + strlen(text);
		while (*v && isspace((unsigned char)*v))
			v++;
		while (end > v && isspace((unsigned char)end[-1]))
			*--end = '\0';
		/* "(null)": a kernel with CONFIG_CPUMASK_OFFSTACK printing an unallocated
		 * mask, padded to the field width by some (80 spaces on an EPYC 7451). */
		if (strcmp(v, "(null)") && np_cpuset_parse_list(set, v))
			rc = note(t, "'%s': not a CPU list ('%s'): %s CPUs unknown", path,
				  np_excerpt(v, ex, sizeof(ex)), file);
		free(text);
		return rc;
	}
	if (rc != -ENOENT)
		return rc;
	if (!cmdline) {
		*unknown = true;
		return 0;
	}
	if ((rc = np_cmdline_cpus(cmdline, param, set)))
		np_fail(ctx, rc, "'%s/proc/cmdline': malformed %s= list", ctx->root, param);
	return rc;
}

static int cpu_dirs(struct np_ctx *ctx, struct np_cpuset *set)
{
	char **names;
	size_t n;
	int rc = np_list_dir(ctx, &names, &n, CPU_DIR);
	if (rc)
		return rc;
	for (size_t i = 0; i < n && !rc; i++) {
		int id = numbered(names[i], "cpu");
		if (id >= 0)
			rc = np_cpuset_set(set, (unsigned)id);
	}
	np_names_free(names, n);
	if (!rc && np_cpuset_empty(set))
		rc = np_fail(ctx, -ENOENT, "no CPUs found under '%s%s'", ctx->root, CPU_DIR);
	return rc;
}

static int load_cpu_sets(struct np_ctx *ctx, struct np_topology *t)
{
	int rc = np_read_cpulist(ctx, &t->present, CPU_DIR "/present");
	if (rc == -ENOENT)
		rc = cpu_dirs(ctx, &t->present);
	if (rc)
		return rc;

	rc = np_read_cpulist(ctx, &t->online, CPU_DIR "/online");
	if (rc == -ENOENT) {
		/* Older snapshots: a CPU without an "online" file (often CPU 0) cannot go offline. */
		rc = 0;
		np_cpuset_foreach(cpu, &t->present) {
			long long on = 1;
			if ((rc = optional(np_read_int(ctx, &on, CPU_DIR "/cpu%d/online", cpu))))
				return rc;
			if (on && (rc = np_cpuset_set(&t->online, (unsigned)cpu)))
				return rc;
		}
	}
	if (rc || (rc = np_cpuset_or(&t->present, &t->online)))
		return rc;
	if (np_cpuset_empty(&t->online))
		return np_fail(ctx, -EINVAL, "'%s%s/online': no CPU is online", ctx->root, CPU_DIR);

	char *cmdline = NULL;
	if ((rc = optional(np_read_text(ctx, &cmdline, "/proc/cmdline"))))
		return rc;
	bool no_isolated = false, no_nohz = false;
	rc = read_kernel_list(ctx, t, &t->isolated, "isolated", "isolcpus", cmdline, &no_isolated);
	if (!rc)
		rc = read_kernel_list(ctx, t, &t->nohz_full, "nohz_full", "nohz_full", cmdline, &no_nohz);
	free(cmdline);
	if (rc || !(no_isolated || no_nohz))
		return rc;
	/* Old kernels and partial copies: said once for both. */
	char path[4096];
	np_sysfs_path(ctx, path, CPU_DIR "/%s", no_isolated ? "isolated" : "nohz_full");
	return note(t, "%s CPUs unknown: no '%s'%s nor '%s/proc/cmdline'",
		    no_isolated && no_nohz ? "isolated and nohz_full" : no_isolated ? "isolated" : "nohz_full",
		    path, no_isolated && no_nohz ? ", 'nohz_full'" : "", ctx->root);
}

/* MemTotal of a meminfo file, given as a machine path. */
static int meminfo_total(struct np_ctx *ctx, long long *kb, const char *path)
{
	char *text, *end = NULL;
	int rc = np_read_text(ctx, &text, "%s", path);
	if (rc)
		return rc;
	const char *p = strstr(text, "MemTotal:");
	if (p) {
		p += strlen("MemTotal:");
		*kb = strtoll(p, &end, 10);
	}
	free(text);
	if (!p || end == p || *kb < 0)
		return np_fail(ctx, -EINVAL, "'%s%s': no MemTotal line", ctx->root, path);
	return 0;
}

/* Each node's MemTotal; the machine's when one node has none of its own.
 * Nodes without either are unknown (-1), in one note. */
static int load_memory(struct np_ctx *ctx, struct np_topology *t)
{
	struct np_cpuset unknown = NP_CPUSET_INIT;
	int rc = 0;
	for (int i = 0; i < t->nnodes && !rc; i++) {
		struct np_node *node = &t->nodes[i];
		char meminfo[64];
		snprintf(meminfo, sizeof(meminfo), NODE_DIR "/node%d/meminfo", node->id);
		node->memory_kb = -1;
		rc = t->numa ? meminfo_total(ctx, &node->memory_kb, meminfo) : -ENOENT;
		if (rc == -ENOENT && t->nnodes == 1)
			rc = meminfo_total(ctx, &node->memory_kb, "/proc/meminfo");
		if (rc == -ENOENT)
			rc = np_cpuset_set(&unknown, (unsigned)node->id);
	}
	if (rc || np_cpuset_empty(&unknown)) {
		np_cpuset_free(&unknown);
		return rc;
	}
	char path[4096];
	np_sysfs_path(ctx, path, "/proc/meminfo");
	if (!t->numa)
		rc = note(t, "memory unknown: no '%s'", path);
	else if (t->nnodes == 1)
		rc = note(t, "memory unknown: no '%s%s/node%d/meminfo' nor '%s'", ctx->root, NODE_DIR,
			  t->nodes[0].id, path);
	else
		rc = note_missing(ctx, t, &unknown, "memory", "node", NODE_DIR "/node%d/meminfo");
	np_cpuset_free(&unknown);
	return rc;
}

static int read_distances(struct np_ctx *ctx, struct np_topology *t, struct np_node *node)
{
	char *text;
	int rc = np_read_text(ctx, &text, NODE_DIR "/node%d/distance", node->id);
	if (rc == -ENOENT)
		return 0; /* left NULL: unknown */
	if (rc)
		return rc;
	node->distances = calloc((size_t)t->nnodes, sizeof(int));
	if (!node->distances) {
		free(text);
		return -ENOMEM;
	}
	int n = 0;
	char *p = text, *end;
	for (;;) {
		while (*p == ' ' || *p == '\t')
			p++;
		if (!*p)
			break;
		long v = strtol(p, &end, 10);
		if (end == p || (*end && *end != ' ' && *end != '\t') || v < 0 || v > 255 || n >= t->nnodes) {
			n = -1;
			break;
		}
		node->distances[n++] = (int)v;
		p = end;
	}
	free(text);
	if (n != t->nnodes) {
		char path[4096];
		np_sysfs_path(ctx, path, NODE_DIR "/node%d/distance", node->id);
		return np_fail(ctx, -EINVAL, "'%s': expected %d distances from 0 to 255", path, t->nnodes);
	}
	return 0;
}

static int load_nodes(struct np_ctx *ctx, struct np_topology *t)
{
	char **names;
	size_t n;
	int rc = np_list_dir(ctx, &names, &n, NODE_DIR);
	if (rc == -ENOENT) {
		/* A kernel without NUMA: one node holding every CPU and all memory. */
		t->numa = false;
		if (!(t->nodes = calloc(1, sizeof(*t->nodes))))
			return -ENOMEM;
		t->nnodes = 1;
		if ((rc = np_cpuset_copy(&t->nodes[0].cpus, &t->present)))
			return rc;
		if (!(t->nodes[0].distances = malloc(sizeof(int))))
			return -ENOMEM;
		t->nodes[0].distances[0] = 10;
		return load_memory(ctx, t);
	}
	if (rc)
		return rc;
	t->numa = true;
	if (!(t->nodes = calloc(n ? n : 1, sizeof(*t->nodes)))) {
		np_names_free(names, n);
		return -ENOMEM;
	}
	for (size_t i = 0; i < n; i++) {
		int id = numbered(names[i], "node");
		if (id >= 0)
			t->nodes[t->nnodes++].id = id;
	}
	np_names_free(names, n);
	if (t->nnodes == 0)
		return np_fail(ctx, -ENOENT, "no nodes found under '%s%s'", ctx->root, NODE_DIR);
	for (int i = 0; i < t->nnodes; i++) {
		struct np_node *node = &t->nodes[i];
		rc = np_read_cpulist(ctx, &node->cpus, NODE_DIR "/node%d/cpulist", node->id);
		if (rc == -ENOENT && (rc = np_read_cpumask(ctx, &node->cpus, NODE_DIR "/node%d/cpumap", node->id)) == -ENOENT)
			rc = np_fail(ctx, rc, "'%s" NODE_DIR "/node%d': neither cpulist nor cpumap", ctx->root, node->id);
		if (rc || (rc = read_distances(ctx, t, node)))
			return rc;
	}
	return load_memory(ctx, t);
}

/* cpuN/topology/FILE into *out, -1 (and *missing set) when absent. */
static int topology_id(struct np_ctx *ctx, int *out, bool *missing, int cpu, const char *file)
{
	long long v;
	int rc = np_read_int(ctx, &v, CPU_DIR "/cpu%d/topology/%s", cpu, file);
	*out = rc ? -1 : (int)v;
	*missing |= rc == -ENOENT;
	return optional(rc);
}

static int load_each_cpu(struct np_ctx *ctx, struct np_topology *t, struct np_cpuset *unplaced)
{
	int rc;
	np_cpuset_foreach(id, &t->present) {
		struct np_cpu *cpu = &t->cpus[t->ncpus++];
		cpu->id = id;
		cpu->online = np_cpuset_test(&t->online, (unsigned)id);
		bool missing = false;
		if ((rc = topology_id(ctx, &cpu->package, &missing, id, "physical_package_id")) ||
		    (rc = topology_id(ctx, &cpu->core, &missing, id, "core_id")))
			return rc;
		if (missing && cpu->online && (rc = np_cpuset_set(unplaced, (unsigned)id)))
			return rc;
		rc = np_read_cpulist(ctx, &cpu->siblings, CPU_DIR "/cpu%d/topology/thread_siblings_list", id);
		if ((rc = optional(rc)))
			return rc;
		if (t->node_of_cpu[id] < 0 && t->numa) {
			/* Offline CPUs leave the node's cpulist on x86 but keep their nodeN link. */
			char **names;
			size_t n;
			rc = np_list_dir(ctx, &names, &n, CPU_DIR "/cpu%d", id);
			if (rc && rc != -ENOENT)
				return rc;
			for (size_t j = 0; rc == 0 && j < n; j++)
				if (numbered(names[j], "node") >= 0 && np_topology_node(t, numbered(names[j], "node")))
					t->node_of_cpu[id] = numbered(names[j], "node");
			if (rc == 0)
				np_names_free(names, n);
		}
		cpu->node = t->node_of_cpu[id];
	}
	return 0;
}

static int load_cpus(struct np_ctx *ctx, struct np_topology *t)
{
	int rc;
	t->max_cpu = np_cpuset_last(&t->present);
	for (int i = 0; i < t->nnodes; i++)
		if (np_cpuset_last(&t->nodes[i].cpus) > t->max_cpu)
			t->max_cpu = np_cpuset_last(&t->nodes[i].cpus);
	t->node_of_cpu = malloc(((size_t)t->max_cpu + 1) * sizeof(int));
	t->cpus = calloc(np_cpuset_count(&t->present), sizeof(*t->cpus));
	if (!t->node_of_cpu || !t->cpus)
		return -ENOMEM;
	for (int c = 0; c <= t->max_cpu; c++)
		t->node_of_cpu[c] = -1;
	for (int i = 0; i < t->nnodes; i++)
		np_cpuset_foreach(cpu, &t->nodes[i].cpus)
			t->node_of_cpu[cpu] = t->nodes[i].id;

	struct np_cpuset unplaced = NP_CPUSET_INIT;
	rc = load_each_cpu(ctx, t, &unplaced);
	/* Offline CPUs have no topology/ by design: only online ones are news. */
	if (!rc)
		rc = note_missing(ctx, t, &unplaced, "package and core", "CPU", CPU_DIR "/cpu%d/topology");
	np_cpuset_free(&unplaced);
	return rc;
}

int np_topology_load(struct np_ctx *ctx, struct np_topology *t)
{
	memset(t, 0, sizeof(*t));
	int rc = load_cpu_sets(ctx, t);
	if (!rc)
		rc = load_nodes(ctx, t);
	if (!rc)
		rc = load_cpus(ctx, t);
	if (rc == -ENOMEM && !ctx->err[0])
		np_fail(ctx, rc, "reading the topology: %s", strerror(ENOMEM));
	if (rc)
		np_topology_free(t);
	return rc;
}

void np_topology_free(struct np_topology *t)
{
	for (int i = 0; i < t->nnodes; i++) {
		np_cpuset_free(&t->nodes[i].cpus);
		free(t->nodes[i].distances);
	}
	free(t->nodes);
	for (int i = 0; i < t->ncpus; i++)
		np_cpuset_free(&t->cpus[i].siblings);
	free(t->cpus);
	free(t->node_of_cpu);
	np_cpuset_free(&t->present);
	np_cpuset_free(&t->online);
	np_cpuset_free(&t->isolated);
	np_cpuset_free(&t->nohz_full);
	for (size_t i = 0; i < t->nnotes; i++)
		free(t->notes[i]);
	free(t->notes);
	memset(t, 0, sizeof(*t));
}

const struct np_node *np_topology_node(const struct np_topology *t, int id)
{
	for (int i = 0; i < t->nnodes; i++)
		if (t->nodes[i].id == id)
			return &t->nodes[i];
	return NULL;
}

int np_topology_node_of_cpu(const struct np_topology *t, int cpu)
{
	return cpu >= 0 && cpu <= t->max_cpu ? t->node_of_cpu[cpu] : -1;
}

int np_topology_distance(const struct np_topology *t, int from, int to)
{
	const struct np_node *a = np_topology_node(t, from);
	if (!a || !a->distances)
		return -1;
	for (int i = 0; i < t->nnodes; i++)
		if (t->nodes[i].id == to)
			return a->distances[i];
	return -1;
}

int np_cmdline_cpus(const char *cmdline, const char *param, struct np_cpuset *out)
{
	size_t plen = strlen(param);
	np_cpuset_clear(out);
	for (const char *p = cmdline; *p;) {
		while (*p == ' ')
			p++;
		const char *end = strchr(p, ' ');
		if (!end)
			end = p + strlen(p);
		/* The last occurrence wins, as in the kernel. */
		if ((size_t)(end - p) > plen && !strncmp(p, param, plen) && p[plen] == '=') {
			const char *v = p + plen + 1;
			/* Skip isolcpus flags such as "nohz," "domain," "managed_irq,". */
			while (v < end && isalpha((unsigned char)*v)) {
				const char *comma = memchr(v, ',', (size_t)(end - v));
				if (!comma)
					return -EINVAL;
				v = comma + 1;
			}
			char *list = strndup(v, (size_t)(end - v));
			if (!list)
				return -ENOMEM;
			int rc = np_cpuset_parse_list(out, list);
			free(list);
			if (rc)
				return rc;
		}
		p = end;
	}
	return 0;
}
