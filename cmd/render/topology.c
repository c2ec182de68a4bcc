/* SPDX-License-Identifier: GPL-2.0-or-later */
/* The topology: topo prints it, report starts with it. */
#include <errno.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "judge/cpuset-names.h"
#include "read/cpu-load.h"
#include "read/topology.h"
#include "render/render.h"

#define TOPO(data) ((const struct np_topology *)(data))
#define NODE(row) ((const struct np_node *)(row))
#define CPU(row) ((const struct np_cpu *)(row))
#define LOAD(data) ((const struct np_cpu_load *)(data))

static int by_package_core(const void *a, const void *b)
{
	const struct np_cpu *x = *(const struct np_cpu *const *)a, *y = *(const struct np_cpu *const *)b;
	return x->package != y->package ? x->package - y->package : x->core - y->core;
}

/* Distinct packages and (package, core) pairs among a node's online CPUs;
 * -1 when any of them has no package or core. */
static int count_cores(const struct np_topology *t, const struct np_node *n, int *packages, int *cores)
{
	const struct np_cpu **v = calloc((size_t)t->ncpus + 1, sizeof(*v));
	int nv = 0;
	*packages = *cores = 0;
	if (!v)
		return -ENOMEM;
	for (int i = 0; i < t->ncpus; i++)
		if (t->cpus[i].node == n->id && t->cpus[i].online)
			v[nv++] = &t->cpus[i];
	for (int i = 0; i < nv; i++)
		if (v[i]->package < 0 || v[i]->core < 0) {
			*packages = *cores = -1;
			free(v);
			return 0;
		}
	qsort(v, (size_t)nv, sizeof(*v), by_package_core);
	for (int i = 0; i < nv; i++) {
		bool new_pkg = i == 0 || v[i]->package != v[i - 1]->package;
		*packages += new_pkg;
		*cores += new_pkg || v[i]->core != v[i - 1]->core;
	}
	free(v);
	return 0;
}

static int get_node_id(const void *data, const void *row, struct np_value *v)
{
	(void)data;
	return np_val_int(v, NODE(row)->id);
}

/* The list form in JSON; in a table, the stride form (0-62:2), shortened to fit. */
static int get_node_cpus(const void *data, const void *row, struct np_value *v)
{
	(void)data;
	if (!v->text)
		return np_val_cpus(v, &NODE(row)->cpus, false);
	char *list = np_cpuset_format_list(&NODE(row)->cpus), *stride = np_cpuset_format_short(&NODE(row)->cpus, NP_CPUS_TEXT_MAX);
	cJSON *j = list ? cJSON_CreateString(list) : NULL;
	free(list);
	if (!j || !stride) {
		cJSON_Delete(j);
		free(stride);
		return -ENOMEM;
	}
	*v = (struct np_value){ .type = NP_VAL_JSON, .s = stride, .owned = stride, .json = j };
	return 0;
}

static int get_memory(const void *data, const void *row, struct np_value *v)
{
	(void)data;
	return NODE(row)->memory_kb >= 0 ? np_val_kb(v, (unsigned long long)NODE(row)->memory_kb) : np_val_null(v);
}

static int get_memory_only(const void *data, const void *row, struct np_value *v)
{
	(void)data;
	return np_val_bool(v, np_cpuset_empty(&NODE(row)->cpus));
}

/* [10, 21] in JSON, "10 21" as text; null when the kernel gave none. */
static int get_distances(const void *data, const void *row, struct np_value *v)
{
	const struct np_topology *t = TOPO(data);
	const struct np_node *n = NODE(row);
	if (!n->distances)
		return np_val_null(v);
	cJSON *a = cJSON_CreateIntArray(n->distances, t->nnodes);
	char *text = calloc((size_t)t->nnodes + 1, 12);
	if (!a || !text) {
		cJSON_Delete(a);
		free(text);
		return -ENOMEM;
	}
	size_t len = 0;
	for (int d = 0; d < t->nnodes; d++)
		len += (size_t)sprintf(text + len, "%s%d", d ? " " : "", n->distances[d]);
	*v = (struct np_value){ .type = NP_VAL_JSON, .s = text, .owned = text, .json = a };
	return 0;
}

/* A memory-only node's nearest CPUs; a node with CPUs is near its own. */
static int get_near_cpus(const void *data, const void *row, struct np_value *v)
{
	(void)data;
	return NODE(row)->near_by == NP_NEAR_UNKNOWN ? np_val_null(v) : np_val_cpus(v, &NODE(row)->near_cpus, true);
}

static const char *const near_by_names[] = {
	[NP_NEAR_UNKNOWN] = NULL,
	[NP_NEAR_OWN] = "own",
	[NP_NEAR_INITIATORS] = "initiators",
	[NP_NEAR_DISTANCE] = "distance",
};

static int get_near_by(const void *data, const void *row, struct np_value *v)
{
	(void)data;
	const char *name = near_by_names[NODE(row)->near_by];
	return name ? np_val_str(v, name) : np_val_null(v);
}

static int get_counts(const void *data, const void *row, struct np_value *v, int which)
{
	int counts[2];
	int rc = count_cores(TOPO(data), NODE(row), &counts[0], &counts[1]);
	return rc ? rc : counts[which] >= 0 ? np_val_int(v, counts[which]) : np_val_null(v);
}

static int get_packages(const void *data, const void *row, struct np_value *v)
{
	return get_counts(data, row, v, 0);
}

static int get_cores(const void *data, const void *row, struct np_value *v)
{
	return get_counts(data, row, v, 1);
}

static int get_threads(const void *data, const void *row, struct np_value *v)
{
	(void)data;
	return np_val_int(v, np_cpuset_count(&NODE(row)->cpus));
}

static const struct np_column node_columns[] = {
	NP_COLUMN("node", "NODE", 4, SCOLS_FL_RIGHT | NP_FL_KEY, "the node id", get_node_id),
	NP_COLUMN_TEXT("cpus", "CPUS", 0.3, SCOLS_FL_WRAP, "its CPUs", get_node_cpus, NULL, "(memory only)"),
	NP_COLUMN("memory_kb", "MEMORY", 6, SCOLS_FL_RIGHT, "its memory (MemTotal), in kB in JSON", get_memory),
	NP_COLUMN("memory_only", "MEMORY ONLY", 3, 0, "whether it has memory and no CPUs", get_memory_only),
	NP_COLUMN_TEXT("distances", "DISTANCES", 1, 0, "its distance to each node, in node order", get_distances, "unknown", NULL),
	NP_COLUMN("near_cpus", "NEAR CPUS", 0.2, SCOLS_FL_WRAP,
		  "the CPUs nearest its memory: its own, else its HMAT initiators' or the nearest node's", get_near_cpus),
	NP_COLUMN("near_by", "NEAR BY", 4, 0, "how NEAR CPUS was found: own, initiators (HMAT) or distance", get_near_by),
	NP_COLUMN("packages", "PKGS", 4, SCOLS_FL_RIGHT, "packages among its online CPUs", get_packages),
	NP_COLUMN("cores", "CORES", 4, SCOLS_FL_RIGHT, "cores among its online CPUs", get_cores),
	NP_COLUMN("threads", "THREADS", 4, SCOLS_FL_RIGHT, "its CPUs (hardware threads)", get_threads),
	NP_COLUMN_END,
};
#define NODE_TEXT_COLUMNS "node,cpus,memory_kb,packages,cores,threads,distances"

static int get_cpu_id(const void *data, const void *row, struct np_value *v)
{
	(void)data;
	return np_val_int(v, CPU(row)->id);
}

static int int_or_null(struct np_value *v, int i)
{
	return i >= 0 ? np_val_int(v, i) : np_val_null(v);
}

static int get_cpu_node(const void *data, const void *row, struct np_value *v)
{
	(void)data;
	return int_or_null(v, CPU(row)->node);
}

static int get_cpu_package(const void *data, const void *row, struct np_value *v)
{
	(void)data;
	return int_or_null(v, CPU(row)->package);
}

static int get_cpu_core(const void *data, const void *row, struct np_value *v)
{
	(void)data;
	return int_or_null(v, CPU(row)->core);
}

static int get_cpu_siblings(const void *data, const void *row, struct np_value *v)
{
	(void)data;
	return np_val_cpus(v, &CPU(row)->siblings, true);
}

static int get_cpu_online(const void *data, const void *row, struct np_value *v)
{
	(void)data;
	return np_val_bool(v, CPU(row)->online);
}

/* What irqbalance balances on and advise judges a crowded CPU by. A
 * tenth of a percent shows: 1% is where advise starts to count it. */
static int get_cpu_irq_time(const void *data, const void *row, struct np_value *v)
{
	double share = data ? np_cpu_irq_share(LOAD(data), CPU(row)->id) : -1;
	if (share < 0)
		return np_val_null(v);
	/* To a hundredth of a percent: finer is tick noise, and a short number
	 * is written without printf's floating-point path (1,024 CPUs). */
	if (!v->text)
		return np_val_share(v, round(share * 1e4) / 1e4);
	char *text;
	return asprintf(&text, "%.1f%%", 100 * share) < 0 ? -ENOMEM : np_val_take(v, text);
}

static const struct np_column cpu_columns[] = {
	NP_COLUMN("cpu", "CPU", 4, SCOLS_FL_RIGHT | NP_FL_KEY, "the CPU id", get_cpu_id),
	NP_COLUMN("node", "NODE", 4, SCOLS_FL_RIGHT, "its node", get_cpu_node),
	NP_COLUMN("package", "PACKAGE", 4, SCOLS_FL_RIGHT, "its package (physical_package_id)", get_cpu_package),
	NP_COLUMN("core", "CORE", 4, SCOLS_FL_RIGHT, "its core (core_id)", get_cpu_core),
	NP_COLUMN("thread_siblings", "SIBLINGS", 1, 0, "the CPUs of its core", get_cpu_siblings),
	NP_COLUMN("online", "ONLINE", 3, 0, "whether it is online", get_cpu_online),
	NP_COLUMN("irq_time_share", "IRQ TIME", 6, SCOLS_FL_RIGHT | NP_FL_DESCENDING,
		  "the share of its time spent on devices' interrupts (hard IRQs and the softirqs they raise) "
		  "since boot, or over --interval", get_cpu_irq_time),
	NP_COLUMN_END,
};
#define CPU_TEXT_COLUMNS "cpu,node,package,core,thread_siblings,online,irq_time_share"
/* A copy without /proc/stat: a column of dashes says nothing a note does not. */
#define CPU_TEXT_COLUMNS_NO_LOAD "cpu,node,package,core,thread_siblings,online"

/* One table of rows (n of them, size bytes apart): written to jw as the
 * array key, or else printed to out. Returns an exit status. */
static int fill(const struct np_command *self, const struct np_column *cols, const char *defaults,
		const void *data, const void *rows, size_t n, size_t size, struct np_jw *jw, const char *key,
		FILE *out)
{
	struct np_table tab;
	int rc = np_table_init(&tab, self, cols, defaults, NULL, jw != NULL, data);
	if (rc != NP_CONTINUE)
		return rc;
	if (jw)
		np_table_stream(&tab, jw, key);
	rc = EXIT_OK;
	for (size_t i = 0; rc == EXIT_OK && i < n; i++)
		rc = np_table_add(&tab, (const char *)rows + i * size);
	if (jw)
		np_table_stream_end(&tab);
	else if (rc == EXIT_OK)
		rc = np_table_print(&tab, out);
	np_table_free(&tab);
	return rc;
}

int np_topo_write(const struct np_command *self, struct np_jw *jw, const struct np_topology *t,
		  const struct np_cpu_load *load)
{
	int rc = fill(self, node_columns, NODE_TEXT_COLUMNS, t, t->nodes, (size_t)t->nnodes, sizeof(*t->nodes), jw, "nodes",
		      NULL);
	if (rc == EXIT_OK)
		rc = fill(self, cpu_columns, CPU_TEXT_COLUMNS, load, t->cpus, (size_t)t->ncpus, sizeof(*t->cpus), jw, "cpus",
			  NULL);
	if (rc != EXIT_OK)
		return rc;
	struct np_cpuset offline = NP_CPUSET_INIT;
	if (np_cpuset_copy(&offline, &t->present))
		jw->failed = true;
	np_cpuset_andnot(&offline, &t->online);
	np_jw_cpus(jw, "online", &t->online, false);
	np_jw_cpus(jw, "offline", &offline, false);
	np_jw_cpus(jw, "isolated", &t->isolated, false);
	np_jw_cpus(jw, "nohz_full", &t->nohz_full, false);
	np_cpuset_free(&offline);
	np_jw_array(jw, "notes");
	for (size_t i = 0; i < t->nnotes; i++) {
		char *named = np_named_paths(t->notes[i]);
		np_jw_str(jw, NULL, named ? named : t->notes[i]);
		free(named);
	}
	np_jw_close(jw);
	return EXIT_OK;
}

void np_topo_print_notes(const struct np_topology *t)
{
	for (size_t i = 0; i < t->nnotes; i++)
		np_say("note", t->notes[i]);
}

/* Lines of CPU lists stay within 80 columns: a long list is shortened and
 * then carries its count already. */
static void print_set_line(FILE *out, const char *label, const struct np_cpuset *set)
{
	char *text = np_cpuset_format_short(set, 56);
	fprintf(out, "%-16s%s", label, text && *text ? text : "none");
	if (!np_cpuset_empty(set) && text && !strstr(text, "..."))
		fprintf(out, " (%u)", np_cpuset_count(set));
	fputc('\n', out);
	free(text);
}

/* Where a memory-only node's nearest CPUs are, and how that is known. */
static void print_near(FILE *out, const struct np_node *n)
{
	if (n->near_by == NP_NEAR_OWN)
		return;
	if (n->near_by == NP_NEAR_UNKNOWN) {
		fprintf(out, "Node %d: memory only; nearest CPUs unknown (no HMAT initiators, no distances)\n", n->id);
		return;
	}
	char *cpus = np_cpuset_format_short(&n->near_cpus, 40), *nodes = np_cpuset_format_list(&n->near_nodes);
	if (cpus && nodes)
		fprintf(out, "Node %d: memory only; nearest CPUs %s (node%s %s, %s)\n", n->id, cpus,
			np_cpuset_count(&n->near_nodes) > 1 ? "s" : "", nodes,
			n->near_by == NP_NEAR_INITIATORS ? np_cpuset_count(&n->near_nodes) > 1 ? "its HMAT initiators" : "its HMAT initiator" : "the least distance");
	free(cpus);
	free(nodes);
}

int np_topo_print(const struct np_command *self, const struct np_topology *t, const struct np_cpu_load *load,
		  FILE *out, bool per_cpu)
{
	struct np_cpuset offline = NP_CPUSET_INIT;
	np_cpuset_copy(&offline, &t->present);
	np_cpuset_andnot(&offline, &t->online);
	print_set_line(out, "Online CPUs:", &t->online);
	print_set_line(out, "Offline CPUs:", &offline);
	print_set_line(out, "Isolated CPUs:", &t->isolated);
	print_set_line(out, "nohz_full CPUs:", &t->nohz_full);
	fprintf(out, "%-16s%d%s\n\n", "NUMA nodes:", t->nnodes, t->numa ? "" : " (kernel without NUMA)");
	np_cpuset_free(&offline);

	int rc = fill(self, node_columns, NODE_TEXT_COLUMNS, t, t->nodes, (size_t)t->nnodes, sizeof(*t->nodes), NULL, NULL,
		      out);
	for (int i = 0; rc == EXIT_OK && i < t->nnodes; i++)
		print_near(out, &t->nodes[i]);
	if (rc == EXIT_OK && per_cpu) {
		fputc('\n', out);
		rc = fill(self, cpu_columns, load && load->cpu ? CPU_TEXT_COLUMNS : CPU_TEXT_COLUMNS_NO_LOAD, load, t->cpus,
			  (size_t)t->ncpus, sizeof(*t->cpus), NULL, NULL, out);
	}
	return rc;
}
