#include <cjson/cJSON.h>
#include <stdlib.h>
#include <string.h>

#include "../lib/topology.h"
#include "cmd.h"
#include "table.h"

const struct np_option topo_options[] = {
	{ "json", 'j', NULL, "print JSON instead of tables", NULL },
	{ "cpus", 'c', NULL, "also list every CPU with its node, package, core and siblings", NULL },
	{ NULL, 0, NULL, NULL, NULL },
};

static cJSON *list_or_null(const struct np_cpuset *set)
{
	char *text = np_cpuset_format_list(set);
	cJSON *j = text ? cJSON_CreateString(text) : cJSON_CreateNull();
	free(text);
	return j;
}

static cJSON *int_or_null(int v)
{
	return v >= 0 ? cJSON_CreateNumber(v) : cJSON_CreateNull();
}

cJSON *topo_to_json(const struct np_topology *t)
{
	cJSON *root = cJSON_CreateObject();
	cJSON *nodes = cJSON_AddArrayToObject(root, "nodes");
	for (int i = 0; i < t->nnodes; i++) {
		const struct np_node *n = &t->nodes[i];
		cJSON *o = cJSON_CreateObject();
		cJSON_AddNumberToObject(o, "node", n->id);
		cJSON_AddItemToObject(o, "cpus", list_or_null(&n->cpus));
		if (n->memory_kb >= 0)
			cJSON_AddNumberToObject(o, "memory_kb", (double)n->memory_kb);
		else
			cJSON_AddNullToObject(o, "memory_kb");
		cJSON_AddBoolToObject(o, "memory_only", np_cpuset_empty(&n->cpus));
		if (n->distances)
			cJSON_AddItemToObject(o, "distances", cJSON_CreateIntArray(n->distances, t->nnodes));
		else
			cJSON_AddNullToObject(o, "distances");
		cJSON_AddItemToArray(nodes, o);
	}
	cJSON *cpus = cJSON_AddArrayToObject(root, "cpus");
	for (int i = 0; i < t->ncpus; i++) {
		const struct np_cpu *c = &t->cpus[i];
		cJSON *o = cJSON_CreateObject();
		cJSON_AddNumberToObject(o, "cpu", c->id);
		cJSON_AddItemToObject(o, "node", int_or_null(c->node));
		cJSON_AddItemToObject(o, "package", int_or_null(c->package));
		cJSON_AddItemToObject(o, "core", int_or_null(c->core));
		if (np_cpuset_empty(&c->siblings))
			cJSON_AddNullToObject(o, "thread_siblings");
		else
			cJSON_AddItemToObject(o, "thread_siblings", list_or_null(&c->siblings));
		cJSON_AddBoolToObject(o, "online", c->online);
		cJSON_AddItemToArray(cpus, o);
	}
	struct np_cpuset offline = NP_CPUSET_INIT;
	np_cpuset_copy(&offline, &t->present);
	np_cpuset_andnot(&offline, &t->online);
	cJSON_AddItemToObject(root, "online", list_or_null(&t->online));
	cJSON_AddItemToObject(root, "offline", list_or_null(&offline));
	cJSON_AddItemToObject(root, "isolated", list_or_null(&t->isolated));
	cJSON_AddItemToObject(root, "nohz_full", list_or_null(&t->nohz_full));
	np_cpuset_free(&offline);
	cJSON *notes = cJSON_AddArrayToObject(root, "notes");
	for (size_t i = 0; i < t->nnotes; i++)
		cJSON_AddItemToArray(notes, cJSON_CreateString(t->notes[i]));
	return root;
}

void topo_print_notes(const struct np_topology *t, FILE *out)
{
	for (size_t i = 0; i < t->nnotes; i++)
		fprintf(out, "numaplace: note: %s\n", t->notes[i]);
}

static void print_set_line(FILE *out, const char *label, const struct np_cpuset *set)
{
	char *text = np_cpuset_format_stride(set);
	fprintf(out, "%-16s%s", label, text && *text ? text : "none");
	if (!np_cpuset_empty(set))
		fprintf(out, " (%u)", np_cpuset_count(set));
	fputc('\n', out);
	free(text);
}

static void format_memory(char *buf, size_t size, long long kb)
{
	if (kb < 0)
		snprintf(buf, size, "-");
	else if (kb >= 1024LL * 1024)
		snprintf(buf, size, "%.1fG", (double)kb / (1024.0 * 1024.0));
	else
		snprintf(buf, size, "%lldM", kb / 1024);
}

static int by_package_core(const void *a, const void *b)
{
	const struct np_cpu *x = *(const struct np_cpu *const *)a, *y = *(const struct np_cpu *const *)b;
	return x->package != y->package ? x->package - y->package : x->core - y->core;
}

/* Distinct packages and (package, core) pairs among a node's online CPUs;
 * -1 when any of them has no package or core. */
static void count_cores(const struct np_topology *t, const struct np_node *n, int *packages, int *cores)
{
	const struct np_cpu **v = calloc((size_t)t->ncpus + 1, sizeof(*v));
	int nv = 0;
	*packages = *cores = 0;
	if (!v)
		return;
	for (int i = 0; i < t->ncpus; i++)
		if (t->cpus[i].node == n->id && t->cpus[i].online)
			v[nv++] = &t->cpus[i];
	for (int i = 0; i < nv; i++)
		if (v[i]->package < 0 || v[i]->core < 0) {
			*packages = *cores = -1;
			free(v);
			return;
		}
	qsort(v, (size_t)nv, sizeof(*v), by_package_core);
	for (int i = 0; i < nv; i++) {
		bool new_pkg = i == 0 || v[i]->package != v[i - 1]->package;
		*packages += new_pkg;
		*cores += new_pkg || v[i]->core != v[i - 1]->core;
	}
	free(v);
}

void topo_print(const struct np_topology *t, FILE *out, bool per_cpu)
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

	static const char *const head[] = { ">NODE", "CPUS", ">MEMORY", ">PKGS", ">CORES", ">THREADS", "DISTANCES", NULL };
	struct np_table *tab = np_table_new(head);
	for (int i = 0; i < t->nnodes; i++) {
		const struct np_node *n = &t->nodes[i];
		char *cpus = np_cpuset_format_stride(&n->cpus), mem[32], dist[1024] = "";
		int packages, cores;
		count_cores(t, n, &packages, &cores);
		format_memory(mem, sizeof(mem), n->memory_kb);
		size_t len = 0;
		for (int d = 0; n->distances && d < t->nnodes && len < sizeof(dist) - 8; d++)
			len += (size_t)snprintf(dist + len, sizeof(dist) - len, "%s%d", d ? " " : "", n->distances[d]);
		np_table_cell(tab, "%d", n->id);
		np_table_cell(tab, "%s", cpus && *cpus ? cpus : "(memory only)");
		np_table_cell(tab, "%s", mem);
		np_table_cell(tab, packages >= 0 ? "%d" : "-", packages);
		np_table_cell(tab, cores >= 0 ? "%d" : "-", cores);
		np_table_cell(tab, "%u", np_cpuset_count(&n->cpus));
		np_table_cell(tab, "%s", n->distances ? dist : "unknown");
		free(cpus);
	}
	np_table_print(tab, out);
	np_table_free(tab);
	if (!per_cpu)
		return;

	static const char *const cpu_head[] = { ">CPU", ">NODE", ">PACKAGE", ">CORE", "SIBLINGS", "ONLINE", NULL };
	tab = np_table_new(cpu_head);
	for (int i = 0; i < t->ncpus; i++) {
		const struct np_cpu *c = &t->cpus[i];
		char *sib = np_cpuset_format_list(&c->siblings);
		np_table_cell(tab, "%d", c->id);
		np_table_cell(tab, c->node >= 0 ? "%d" : "-", c->node);
		np_table_cell(tab, c->package >= 0 ? "%d" : "-", c->package);
		np_table_cell(tab, c->core >= 0 ? "%d" : "-", c->core);
		np_table_cell(tab, "%s", sib && *sib ? sib : "-");
		np_table_cell(tab, "%s", c->online ? "yes" : "no");
		free(sib);
	}
	fputc('\n', out);
	np_table_print(tab, out);
	np_table_free(tab);
}

int cmd_topo(int argc, char **argv, struct np_ctx *ctx)
{
	const struct np_command *self = np_command_find("topo");
	struct np_optparse st = { 0 };
	const char *arg;
	bool json = false, per_cpu = false;
	int opt;
	while ((opt = np_opt_next(&st, self, argc, argv, &arg)) >= 0) {
		if (!strcmp(self->options[opt].name, "json"))
			json = true;
		else
			per_cpu = true;
	}
	if (opt != NP_OPT_END)
		return opt == NP_OPT_HELP ? EXIT_OK : EXIT_USAGE;
	if (st.index < argc)
		return np_usage_error(self, "unexpected argument '%s'", argv[st.index]);

	struct np_topology topo;
	if (np_topology_load(ctx, &topo))
		return np_error("%s", ctx->err);
	int rc = EXIT_OK;
	if (json) {
		rc = np_print_json(topo_to_json(&topo));
	} else {
		topo_print_notes(&topo, stderr);
		topo_print(&topo, stdout, per_cpu);
	}
	np_topology_free(&topo);
	return rc;
}
