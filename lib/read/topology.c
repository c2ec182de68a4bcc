/* SPDX-License-Identifier: GPL-2.0-or-later */
#include "read/topology.h"

#include <ctype.h>
#include <errno.h>
#include <limits.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "read/sysfs.h"

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

/* The CPUs or nodes whose file of one kind told nothing, for one note: the
 * first one's path and why. */
struct gap {
	struct np_cpuset ids;
	char first[PATH_MAX];
	char why[96];
};

static void gap_free(struct gap *g)
{
	np_cpuset_free(&g->ids);
}

/* One note for a gap: "what of nouns IDS unknown: 'PATH' WHY (and N more like
 * it)[; then]". */
static int note_gap(struct np_topology *t, struct gap *g, const char *what, const char *noun, const char *then)
{
	if (np_cpuset_empty(&g->ids))
		return 0;
	char *list = np_cpuset_format_list(&g->ids);
	if (!list)
		return -ENOMEM;
	unsigned more = np_cpuset_count(&g->ids) - 1;
	int rc = more ? note(t, "%s of %ss %s unknown: '%s' %s, and %u more like it%s%s", what, noun, list, g->first,
			     g->why, more, then ? "; " : "", then ? then : "")
		      : note(t, "%s of %s %s unknown: '%s' %s%s%s", what, noun, list, g->first, g->why,
			     then ? "; " : "", then ? then : "");
	free(list);
	return rc;
}

/* A per-CPU or per-node file. 0 with *text (blanks around it removed); -ENOENT
 * when absent; 1 when it tells nothing: empty, blank, "(null)" (what capture
 * tools write for what they could not read, and kernels for an unallocated
 * mask) or unreadable, recorded in gap under id (unless empty_is_value: then
 * an empty or blank file is the value ""). Only -ENOMEM stops a load. */
static int read_detail(struct np_ctx *ctx, struct gap *gap, int id, bool empty_is_value, char **text,
		       const char *fmt, ...) __attribute__((format(printf, 6, 7)));
static int read_detail(struct np_ctx *ctx, struct gap *gap, int id, bool empty_is_value, char **text,
		       const char *fmt, ...)
{
	char mpath[PATH_MAX], why[96];
	va_list ap;
	va_start(ap, fmt);
	vsnprintf(mpath, sizeof(mpath), fmt, ap);
	va_end(ap);
	*text = NULL;
	int rc = np_read_text(ctx, text, "%s", mpath);
	if (rc == -ENOENT || rc == -ENOMEM)
		return rc;
	if (rc) {
		snprintf(why, sizeof(why), "cannot be read (%s)", strerror(-rc));
		ctx->err[0] = '\0';
	} else {
		char *v = *text, *end = v + strlen(v);
		bool blank = *v;
		while (*v && isspace((unsigned char)*v))
			v++;
		while (end > v && isspace((unsigned char)end[-1]))
			end--;
		*end = '\0';
		memmove(*text, v, (size_t)(end - v) + 1);
		if (!strcmp(*text, "(null)"))
			snprintf(why, sizeof(why), "reads '(null)'");
		else if (!**text && !empty_is_value)
			snprintf(why, sizeof(why), "is %s", blank ? "blank" : "empty");
		else
			return 0;
		free(*text);
		*text = NULL;
	}
	if (np_cpuset_empty(&gap->ids)) {
		np_sysfs_path(ctx, gap->first, "%s", mpath);
		snprintf(gap->why, sizeof(gap->why), "%s", why);
	}
	return np_cpuset_set(&gap->ids, (unsigned)id) ? -ENOMEM : 1;
}

/* An integer from a per-CPU file read by read_detail; garbage is an error naming it. */
static int detail_int(struct np_ctx *ctx, const char *text, long long *out, const char *fmt, int id)
{
	char *end, ex[44], path[PATH_MAX];
	errno = 0;
	long long v = strtoll(text, &end, 10);
	if (end != text && !*end && !errno) {
		*out = v;
		return 0;
	}
	np_sysfs_path(ctx, path, fmt, id);
	return np_fail(ctx, -EINVAL, "'%s': expected an integer, found '%s'", path, np_excerpt(text, ex, sizeof(ex)));
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
		/* Older snapshots: a CPU without an "online" file (often CPU 0) cannot
		 * go offline; one whose file tells nothing is taken as online, and said. */
		struct gap unknown = { NP_CPUSET_INIT, "", "" };
		rc = 0;
		np_cpuset_foreach(cpu, &t->present) {
			char *text;
			long long on = 1;
			rc = read_detail(ctx, &unknown, cpu, false, &text, CPU_DIR "/cpu%d/online", cpu);
			if (rc == 0) {
				rc = detail_int(ctx, text, &on, CPU_DIR "/cpu%d/online", cpu);
				free(text);
			} else if (rc > 0 || rc == -ENOENT) {
				rc = 0;
			}
			if (rc || (on && (rc = np_cpuset_set(&t->online, (unsigned)cpu))))
				break;
		}
		if (!rc)
			rc = note_gap(t, &unknown, "online state", "CPU", "taken as online");
		gap_free(&unknown);
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

/* MemTotal of meminfo text read from path (a machine path). */
static int meminfo_parse(struct np_ctx *ctx, const char *text, long long *kb, const char *path)
{
	char *end = NULL;
	const char *p = strstr(text, "MemTotal:");
	if (p) {
		p += strlen("MemTotal:");
		*kb = strtoll(p, &end, 10);
	}
	if (!p || end == p || *kb < 0)
		return np_fail(ctx, -EINVAL, "'%s%s': no MemTotal line", ctx->root, path);
	return 0;
}

static int meminfo_total(struct np_ctx *ctx, long long *kb, const char *path)
{
	char *text;
	int rc = np_read_text(ctx, &text, "%s", path);
	if (rc)
		return rc;
	rc = meminfo_parse(ctx, text, kb, path);
	free(text);
	return rc;
}

/* A node's meminfo; -ENOENT when absent, 1 when it tells nothing (in gap). */
static int node_meminfo(struct np_ctx *ctx, struct gap *gap, struct np_node *node, const char *path)
{
	char *text;
	int rc = read_detail(ctx, gap, node->id, false, &text, "%s", path);
	if (rc)
		return rc;
	rc = meminfo_parse(ctx, text, &node->memory_kb, path);
	free(text);
	return rc;
}

/* Each node's MemTotal; the machine's when one node has none of its own.
 * Nodes without either are unknown (-1), in one note. */
static int load_memory(struct np_ctx *ctx, struct np_topology *t)
{
	struct np_cpuset unknown = NP_CPUSET_INIT;
	struct gap unreadable = { NP_CPUSET_INIT, "", "" };
	int rc = 0;
	for (int i = 0; i < t->nnodes && !rc; i++) {
		struct np_node *node = &t->nodes[i];
		char meminfo[64];
		snprintf(meminfo, sizeof(meminfo), NODE_DIR "/node%d/meminfo", node->id);
		node->memory_kb = -1;
		rc = t->numa ? node_meminfo(ctx, &unreadable, node, meminfo) : -ENOENT;
		if (rc == -ENOENT && t->nnodes == 1)
			rc = meminfo_total(ctx, &node->memory_kb, "/proc/meminfo");
		if (rc == -ENOENT)
			rc = np_cpuset_set(&unknown, (unsigned)node->id);
		else if (rc > 0)
			rc = 0;
	}
	if (!rc)
		rc = note_gap(t, &unreadable, "memory", "node", NULL);
	gap_free(&unreadable);
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

/* Which entry of a distance row of n entries is node id's: rows list the
 * online nodes (the kernel's for_each_online_node), or on some kernels and
 * dumps the possible ones (node1 "21 10" where node 0 is possible but
 * offline); without node/possible, a row longer than the nodes is taken as
 * indexed by node id. -1 when the row fits none of these. */
static int distance_column(const struct np_topology *t, const struct np_cpuset *possible, int n, int index)
{
	int id = t->nodes[index].id;
	if (n == t->nnodes)
		return index;
	if (!np_cpuset_empty(possible) && n == (int)np_cpuset_count(possible)) {
		if (!np_cpuset_test(possible, (unsigned)id))
			return -1;
		int col = 0;
		np_cpuset_foreach(p, possible) {
			if (p == id)
				break;
			col++;
		}
		return col;
	}
	return np_cpuset_empty(possible) && id < n ? id : -1;
}

static int read_distances(struct np_ctx *ctx, struct np_topology *t, struct np_node *node,
			  const struct np_cpuset *possible, struct gap *gap)
{
	char *text;
	int rc = read_detail(ctx, gap, node->id, false, &text, NODE_DIR "/node%d/distance", node->id);
	if (rc == -ENOENT || rc > 0)
		return 0; /* left NULL: unknown */
	if (rc)
		return rc;
	/* A value takes at least two characters with its separator. */
	int *row = calloc(strlen(text) / 2 + 1, sizeof(int));
	node->distances = calloc((size_t)t->nnodes, sizeof(int));
	if (!row || !node->distances) {
		free(row);
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
		if (end == p || (*end && *end != ' ' && *end != '\t') || v < 0 || v > 255) {
			n = -1;
			break;
		}
		row[n++] = (int)v;
		p = end;
	}
	free(text);
	for (int i = 0; n > 0 && i < t->nnodes; i++) {
		int col = distance_column(t, possible, n, i);
		if (col < 0) {
			n = -1;
			break;
		}
		node->distances[i] = row[col];
	}
	free(row);
	if (n <= 0) {
		char path[4096];
		np_sysfs_path(ctx, path, NODE_DIR "/node%d/distance", node->id);
		if (!np_cpuset_empty(possible) && (int)np_cpuset_count(possible) != t->nnodes)
			return np_fail(ctx, -EINVAL, "'%s': expected %d distances (one per node) or %u (one per possible node), from 0 to 255",
				       path, t->nnodes, np_cpuset_count(possible));
		return np_fail(ctx, -EINVAL, "'%s': expected %d distances from 0 to 255", path, t->nnodes);
	}
	return 0;
}

/* A node's CPUs as its cpulist (else cpumap) lists them, offline ones
 * included; 1 when neither tells (recorded in gap): its CPUs then come from
 * each CPU's own nodeN link. */
static int read_node_cpus(struct np_ctx *ctx, struct np_node *node, struct gap *gap)
{
	struct gap list_gap = { NP_CPUSET_INIT, "", "" }, map_gap = { NP_CPUSET_INIT, "", "" };
	char *text, path[PATH_MAX], ex[44];
	bool mask = false;
	/* An empty cpulist is the kernel's way of saying "none" (a memory-only node). */
	int rc = read_detail(ctx, &list_gap, node->id, true, &text, NODE_DIR "/node%d/cpulist", node->id);
	if (rc == -ENOENT || rc == 1) {
		int list_rc = rc;
		mask = true;
		rc = read_detail(ctx, &map_gap, node->id, false, &text, NODE_DIR "/node%d/cpumap", node->id);
		if ((rc == -ENOENT || rc == 1) && np_cpuset_empty(&gap->ids)) {
			const struct gap *why = list_rc == 1 ? &list_gap : rc == 1 ? &map_gap : NULL;
			if (why) {
				snprintf(gap->first, sizeof(gap->first), "%s", why->first);
				snprintf(gap->why, sizeof(gap->why), "%s", why->why);
			} else {
				np_sysfs_path(ctx, gap->first, NODE_DIR "/node%d/cpulist", node->id);
				snprintf(gap->why, sizeof(gap->why), "is absent, as is cpumap");
			}
		}
		if (rc == -ENOENT || rc == 1)
			rc = np_cpuset_set(&gap->ids, (unsigned)node->id) ? -ENOMEM : 1;
	}
	gap_free(&list_gap);
	gap_free(&map_gap);
	if (rc)
		return rc;
	rc = mask ? np_cpuset_parse_mask(&node->cpus, text) : np_cpuset_parse_list(&node->cpus, text);
	if (rc && rc != -ENOMEM) {
		np_sysfs_path(ctx, path, NODE_DIR "/node%d/%s", node->id, mask ? "cpumap" : "cpulist");
		if (rc == -ERANGE)
			np_fail(ctx, rc, "'%s': '%s' names a CPU above %d, the most numaplace handles", path,
				np_excerpt(text, ex, sizeof(ex)), NP_CPUSET_MAX_CPU);
		else
			np_fail(ctx, rc, "'%s': expected a CPU %s, found '%s'", path, mask ? "mask" : "list",
				np_excerpt(text, ex, sizeof(ex)));
	}
	free(text);
	return rc;
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
	/* What distance rows may be indexed by; a bad or missing file only
	 * leaves the rows' own length to go by. */
	struct np_cpuset possible = NP_CPUSET_INIT;
	if ((rc = np_read_cpulist(ctx, &possible, NODE_DIR "/possible")) && rc != -ENOMEM) {
		np_cpuset_clear(&possible);
		ctx->err[0] = '\0';
		rc = 0;
	}
	struct gap nolist = { NP_CPUSET_INIT, "", "" }, nodist = { NP_CPUSET_INIT, "", "" };
	for (int i = 0; i < t->nnodes && !rc; i++) {
		struct np_node *node = &t->nodes[i];
		rc = read_node_cpus(ctx, node, &nolist);
		if (rc == 1)
			rc = 0;
		if (!rc)
			rc = read_distances(ctx, t, node, &possible, &nodist);
	}
	np_cpuset_free(&possible);
	if (!rc)
		rc = note_gap(t, &nolist, "CPU list", "node", "its CPUs are those whose cpuN/nodeM link names it");
	if (!rc)
		rc = note_gap(t, &nodist, "distances", "node", NULL);
	gap_free(&nolist);
	gap_free(&nodist);
	return rc ? rc : load_memory(ctx, t);
}

/* cpuN/topology/FILE into *out, -1 when unknown (*missing set when absent;
 * in gap when it tells nothing). */
static int topology_id(struct np_ctx *ctx, struct gap *gap, int *out, bool *missing, int cpu, const char *file)
{
	char *text, fmt[96];
	long long v;
	snprintf(fmt, sizeof(fmt), CPU_DIR "/cpu%%d/topology/%s", file);
	*out = -1;
	int rc = read_detail(ctx, gap, cpu, false, &text, CPU_DIR "/cpu%d/topology/%s", cpu, file);
	*missing |= rc == -ENOENT;
	if (rc)
		return rc == -ENOMEM ? rc : 0;
	rc = detail_int(ctx, text, &v, fmt, cpu);
	free(text);
	if (!rc)
		*out = (int)v;
	return rc;
}

/* The node cpuN's own nodeM link names (the kernel's cpu_to_node), -1 when none. */
static int linked_node(struct np_ctx *ctx, const struct np_topology *t, int cpu, int *node)
{
	char **names;
	size_t n;
	*node = -1;
	int rc = np_list_dir(ctx, &names, &n, CPU_DIR "/cpu%d", cpu);
	if (rc)
		return rc == -ENOMEM ? rc : 0;
	for (size_t j = 0; j < n; j++) {
		int id = numbered(names[j], "node");
		if (id >= 0 && np_topology_node(t, id))
			*node = id;
	}
	np_names_free(names, n);
	return 0;
}

struct cpu_gaps {
	struct gap ids, siblings;
};

static int load_each_cpu(struct np_ctx *ctx, struct np_topology *t, struct np_cpuset *unplaced,
			 struct cpu_gaps *gaps)
{
	int rc;
	np_cpuset_foreach(id, &t->present) {
		struct np_cpu *cpu = &t->cpus[t->ncpus++];
		cpu->id = id;
		cpu->online = np_cpuset_test(&t->online, (unsigned)id);
		bool missing = false;
		if ((rc = topology_id(ctx, &gaps->ids, &cpu->package, &missing, id, "physical_package_id")) ||
		    (rc = topology_id(ctx, &gaps->ids, &cpu->core, &missing, id, "core_id")))
			return rc;
		if (missing && cpu->online && (rc = np_cpuset_set(unplaced, (unsigned)id)))
			return rc;
		char *text;
		rc = read_detail(ctx, &gaps->siblings, id, false, &text, CPU_DIR "/cpu%d/topology/thread_siblings_list", id);
		if (rc == 0) {
			rc = np_cpuset_parse_list(&cpu->siblings, text);
			if (rc && rc != -ENOMEM) {
				char path[PATH_MAX], ex[44];
				np_sysfs_path(ctx, path, CPU_DIR "/cpu%d/topology/thread_siblings_list", id);
				np_fail(ctx, rc, "'%s': expected a CPU list, found '%s'", path, np_excerpt(text, ex, sizeof(ex)));
			}
			free(text);
		} else if (rc == -ENOENT || rc > 0) {
			rc = 0;
		}
		if (rc)
			return rc;
		cpu->node = t->node_of_cpu[id];
	}
	return 0;
}

/* One note naming the nodes whose lists overlap and the CPUs they share. */
static int note_overlap(struct np_topology *t, const struct np_cpuset *overlap, bool by_link)
{
	struct np_cpuset nodes = NP_CPUSET_INIT;
	int rc = 0;
	for (int i = 0; i < t->nnodes && !rc; i++)
		if (np_cpuset_intersects(&t->nodes[i].cpus, overlap))
			rc = np_cpuset_set(&nodes, (unsigned)t->nodes[i].id);
	char *ids = rc ? NULL : np_cpuset_format_list(&nodes), *cpus = rc ? NULL : np_cpuset_format_list(overlap);
	if (ids && cpus)
		rc = note(t, "nodes %s list the same CPUs %s: inconsistent firmware (its SRAT or device tree puts "
			  "a CPU in several nodes); each CPU is kept in %s", ids, cpus,
			  by_link ? "the node its cpuN/nodeM link names (the kernel's cpu_to_node)"
				  : "the first node listing it (there is no cpuN/nodeM link to decide)");
	else
		rc = -ENOMEM;
	free(ids);
	free(cpus);
	np_cpuset_free(&nodes);
	return rc;
}

/* Each CPU in exactly one node: the first node listing it, unless lists
 * overlap (buggy firmware) or none lists it (x86 takes offline CPUs out of
 * the lists, and a list may be unknown): then the CPU's own nodeN link
 * decides. Links are read only for those CPUs: on a 1024-CPU machine a
 * directory listing per CPU would be most of the topology's cost. Node lists
 * then hold only online CPUs; offline ones keep their node. */
static int place_cpus(struct np_ctx *ctx, struct np_topology *t)
{
	struct np_cpuset overlap = NP_CPUSET_INIT;
	int rc = 0;
	for (int i = 0; i < t->nnodes && !rc; i++)
		np_cpuset_foreach(cpu, &t->nodes[i].cpus) {
			if (t->node_of_cpu[cpu] < 0)
				t->node_of_cpu[cpu] = t->nodes[i].id;
			else if ((rc = np_cpuset_set(&overlap, (unsigned)cpu)))
				break;
		}
	bool by_link = true;
	for (int cpu = 0; cpu <= t->max_cpu && !rc && t->numa; cpu++) {
		bool overlapping = np_cpuset_test(&overlap, (unsigned)cpu);
		if (!overlapping && (t->node_of_cpu[cpu] >= 0 || !np_cpuset_test(&t->present, (unsigned)cpu)))
			continue;
		int node;
		if ((rc = linked_node(ctx, t, cpu, &node)))
			break;
		if (node >= 0)
			t->node_of_cpu[cpu] = node;
		else if (overlapping)
			by_link = false;
	}
	if (!rc && !np_cpuset_empty(&overlap))
		rc = note_overlap(t, &overlap, by_link);
	np_cpuset_free(&overlap);
	for (int i = 0; i < t->nnodes && !rc; i++)
		np_cpuset_clear(&t->nodes[i].cpus);
	for (int cpu = 0; cpu <= t->max_cpu && !rc; cpu++) {
		if (!np_cpuset_test(&t->present, (unsigned)cpu))
			t->node_of_cpu[cpu] = -1;
		else if (t->node_of_cpu[cpu] >= 0 && np_cpuset_test(&t->online, (unsigned)cpu))
			rc = np_cpuset_set(&((struct np_node *)np_topology_node(t, t->node_of_cpu[cpu]))->cpus,
					   (unsigned)cpu);
	}
	return rc;
}

/* A memory-only node's nearest CPUs: its HMAT initiators
 * (nodeN/access0/initiators/nodeM), else the CPUs of the node(s) with CPUs
 * at the least distance. A node with CPUs is near its own. */
static int find_near(struct np_ctx *ctx, struct np_topology *t)
{
	int rc = 0;
	for (int i = 0; i < t->nnodes && !rc; i++) {
		struct np_node *node = &t->nodes[i];
		if (!np_cpuset_empty(&node->cpus)) {
			node->near_by = NP_NEAR_OWN;
			if (!(rc = np_cpuset_set(&node->near_nodes, (unsigned)node->id)))
				rc = np_cpuset_copy(&node->near_cpus, &node->cpus);
			continue;
		}
		char **names;
		size_t n;
		rc = t->numa ? np_list_dir(ctx, &names, &n, NODE_DIR "/node%d/access0/initiators", node->id) : -ENOENT;
		if (rc == 0) {
			for (size_t j = 0; j < n && !rc; j++) {
				const struct np_node *m = np_topology_node(t, numbered(names[j], "node"));
				if (m && !np_cpuset_empty(&m->cpus))
					rc = np_cpuset_set(&node->near_nodes, (unsigned)m->id);
			}
			np_names_free(names, n);
			if (!np_cpuset_empty(&node->near_nodes))
				node->near_by = NP_NEAR_INITIATORS;
		} else if (rc != -ENOMEM) {
			ctx->err[0] = '\0';
			rc = 0;
		}
		if (!rc && node->near_by == NP_NEAR_UNKNOWN && node->distances) {
			int best = -1;
			for (int j = 0; j < t->nnodes; j++)
				if (j != i && !np_cpuset_empty(&t->nodes[j].cpus) && (best < 0 || node->distances[j] < best))
					best = node->distances[j];
			for (int j = 0; j < t->nnodes && !rc && best >= 0; j++)
				if (j != i && !np_cpuset_empty(&t->nodes[j].cpus) && node->distances[j] == best)
					rc = np_cpuset_set(&node->near_nodes, (unsigned)t->nodes[j].id);
			if (best >= 0)
				node->near_by = NP_NEAR_DISTANCE;
		}
		np_cpuset_foreach(m, &node->near_nodes) {
			if (rc)
				break;
			rc = np_cpuset_or(&node->near_cpus, &np_topology_node(t, m)->cpus);
		}
	}
	return rc;
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
	if ((rc = place_cpus(ctx, t)) || (rc = find_near(ctx, t)))
		return rc;

	struct np_cpuset unplaced = NP_CPUSET_INIT;
	struct cpu_gaps gaps = { { NP_CPUSET_INIT, "", "" }, { NP_CPUSET_INIT, "", "" } };
	rc = load_each_cpu(ctx, t, &unplaced, &gaps);
	/* Offline CPUs have no topology/ by design: only online ones are news. */
	if (!rc)
		rc = note_missing(ctx, t, &unplaced, "package and core", "CPU", CPU_DIR "/cpu%d/topology");
	if (!rc)
		rc = note_gap(t, &gaps.ids, "package and core", "CPU", NULL);
	if (!rc)
		rc = note_gap(t, &gaps.siblings, "SMT siblings", "CPU", NULL);
	np_cpuset_free(&unplaced);
	gap_free(&gaps.ids);
	gap_free(&gaps.siblings);
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
		np_cpuset_free(&t->nodes[i].near_cpus);
		np_cpuset_free(&t->nodes[i].near_nodes);
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
