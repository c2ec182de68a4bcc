#include <cjson/cJSON.h>
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "../lib/machine.h"
#include "cmd.h"
#include "table.h"

const struct np_option irqs_options[] = {
	{ "json", 'j', NULL, "print JSON instead of a table", NULL },
	{ "interval", 'i', "SEC", "sample /proc/interrupts twice, SEC apart (0 < SEC <= 3600), and show what ran in between", NULL },
	{ NULL, 0, NULL, NULL, NULL },
};

static const char *managed_name(enum np_managed m)
{
	return m == NP_MANAGED_YES ? "yes" : m == NP_MANAGED_INFERRED ? "inferred" : "no";
}

static char *nodes_text(const struct np_topology *topo, const struct np_cpuset *cpus)
{
	struct np_cpuset nodes = NP_CPUSET_INIT;
	char *text = np_nodes_of(topo, cpus, &nodes) ? NULL : np_cpuset_format_list(&nodes);
	np_cpuset_free(&nodes);
	return text;
}

static void add_set(cJSON *o, const char *key, const struct np_cpuset *set, bool known)
{
	char *text = known ? np_cpuset_format_list(set) : NULL;
	cJSON_AddItemToObject(o, key, text ? cJSON_CreateString(text) : cJSON_CreateNull());
	free(text);
}

cJSON *irq_to_json(const struct np_machine *m, const struct np_irq *irq)
{
	cJSON *o = cJSON_CreateObject();
	const struct np_pci_dev *d = irq->dev >= 0 ? &m->pci.devs[irq->dev] : NULL;
	int node = d ? np_device_node(m, d, NULL) : -1;

	cJSON_AddNumberToObject(o, "irq", irq->irq);
	cJSON_AddStringToObject(o, "name", irq->name);
	cJSON_AddItemToObject(o, "chip", irq->chip ? cJSON_CreateString(irq->chip) : cJSON_CreateNull());
	cJSON_AddItemToObject(o, "device", d ? cJSON_CreateString(d->addr) : cJSON_CreateNull());
	cJSON_AddItemToObject(o, "queue", irq->queue >= 0 ? cJSON_CreateNumber(irq->queue) : cJSON_CreateNull());
	add_set(o, "affinity", &irq->affinity, irq->has_affinity);
	add_set(o, "effective", &irq->effective, irq->has_effective);
	char *nodes = irq->has_affinity ? nodes_text(&m->topo, &irq->affinity) : NULL;
	cJSON_AddItemToObject(o, "affinity_nodes", nodes ? cJSON_CreateString(nodes) : cJSON_CreateNull());
	free(nodes);
	nodes = irq->has_effective ? nodes_text(&m->topo, &irq->effective) : NULL;
	cJSON_AddItemToObject(o, "effective_nodes", nodes ? cJSON_CreateString(nodes) : cJSON_CreateNull());
	free(nodes);
	add_set(o, "ran_on", &irq->ran_on, true);
	cJSON_AddBoolToObject(o, "managed", irq->managed != NP_MANAGED_NO);
	cJSON_AddItemToObject(o, "managed_source", irq->managed == NP_MANAGED_YES ? cJSON_CreateString("debugfs")
						   : irq->managed == NP_MANAGED_INFERRED ? cJSON_CreateString("driver")
											 : cJSON_CreateNull());
	cJSON_AddItemToObject(o, "node", node >= 0 ? cJSON_CreateNumber(node) : cJSON_CreateNull());
	cJSON_AddNumberToObject(o, "total", (double)irq->total);
	cJSON *per_node = cJSON_AddObjectToObject(o, "per_node");
	for (int i = 0; i < m->topo.nnodes; i++) {
		char key[16];
		snprintf(key, sizeof(key), "%d", m->topo.nodes[i].id);
		cJSON_AddNumberToObject(per_node, key, (double)irq->per_node[i]);
	}
	double share = np_irq_remote_share(m, irq, node);
	/* An IRQ that never fired has no share, but it is not remote either. */
	if (node < 0)
		cJSON_AddNullToObject(o, "remote_share");
	else
		cJSON_AddNumberToObject(o, "remote_share", share < 0 ? 0 : share);
	return o;
}

static bool irq_selected(const struct np_irq *irq, const bool *dev_selected, int nfilters, char **filters)
{
	if (nfilters == 0)
		return true;
	if (irq->dev >= 0 && dev_selected[irq->dev])
		return true;
	for (int f = 0; f < nfilters; f++) {
		char *end;
		long n = strtol(filters[f], &end, 10);
		if (!*end && end != filters[f] && n == irq->irq)
			return true;
	}
	return false;
}

static void per_node_text(const struct np_machine *m, const struct np_irq *irq, char *buf, size_t size)
{
	size_t len = 0;
	buf[0] = '\0';
	for (int i = 0; i < m->topo.nnodes && len < size; i++)
		if (irq->per_node[i])
			len += (size_t)snprintf(buf + len, size - len, "%s%d:%llu", len ? " " : "", m->topo.nodes[i].id,
						irq->per_node[i]);
	if (!buf[0])
		snprintf(buf, size, "-");
}

void irqs_print(const struct np_machine *m, const bool *dev_selected, int nfilters, char **filters, FILE *out)
{
	static const char *const head[] = { ">IRQ", "NAME", "DEVICE", ">Q", "AFFINITY", "EFFECTIVE", "EFF NODES",
					    ">DEV NODE", "MANAGED", ">TOTAL", "PER NODE", ">REMOTE", NULL };
	struct np_table *t = np_table_new(head);
	for (size_t i = 0; i < m->irqs.n; i++) {
		const struct np_irq *irq = &m->irqs.v[i];
		if (!irq_selected(irq, dev_selected, nfilters, filters))
			continue;
		const struct np_pci_dev *d = irq->dev >= 0 ? &m->pci.devs[irq->dev] : NULL;
		int node = d ? np_device_node(m, d, NULL) : -1;
		char *aff = np_cpuset_format_list(&irq->affinity), *eff = np_cpuset_format_list(&irq->effective);
		char *nodes = nodes_text(&m->topo, &irq->effective), per_node[256];
		double share = np_irq_remote_share(m, irq, node);
		per_node_text(m, irq, per_node, sizeof(per_node));
		np_table_cell(t, "%d", irq->irq);
		np_table_cell(t, "%s", irq->name[0] ? irq->name : "-");
		np_table_cell(t, "%s", d ? d->addr : "-");
		np_table_cell(t, irq->queue >= 0 ? "%d" : "-", irq->queue);
		np_table_cell(t, "%s", irq->has_affinity && aff ? aff : "-");
		np_table_cell(t, "%s", irq->has_effective && eff ? eff : "-");
		np_table_cell(t, "%s", irq->has_effective && nodes && *nodes ? nodes : "-");
		np_table_cell(t, node >= 0 ? "%d" : "-", node);
		np_table_cell(t, "%s", managed_name(irq->managed));
		np_table_cell(t, "%llu", irq->total);
		np_table_cell(t, "%s", per_node);
		if (share >= 0)
			np_table_cell(t, "%.0f%%", 100 * share);
		else
			np_table_cell(t, "-");
		free(aff);
		free(eff);
		free(nodes);
	}
	np_table_print(t, out);
	np_table_free(t);
}

int np_parse_interval(const struct np_command *self, const char *arg, double *seconds)
{
	char *end;
	*seconds = strtod(arg, &end);
	if (*end || end == arg || !(*seconds > 0 && *seconds <= 3600))
		return np_usage_error(self, "--interval needs seconds between 0 and 3600, not '%s'", arg);
	return EXIT_OK;
}

int cmd_irqs(int argc, char **argv, struct np_ctx *ctx)
{
	const struct np_command *self = np_command_find("irqs");
	struct np_optparse st = { 0 };
	const char *arg;
	bool json = false;
	double interval = 0;
	int opt;
	while ((opt = np_opt_next(&st, self, argc, argv, &arg)) >= 0) {
		if (!strcmp(self->options[opt].name, "json")) {
			json = true;
		} else if (np_parse_interval(self, arg, &interval)) {
			return EXIT_USAGE;
		}
	}
	if (opt != NP_OPT_END)
		return opt == NP_OPT_HELP ? EXIT_OK : EXIT_USAGE;

	struct np_machine m;
	if (np_machine_load(ctx, &m))
		return np_error("%s", ctx->err);
	np_print_warnings(&m);
	int nfilters = argc - st.index;
	char **filters = argv + st.index;
	bool *selected = calloc(m.pci.ndevs + 1, sizeof(bool));
	int rc = EXIT_FAIL;
	/* IRQ numbers are filters too; only the other words must name devices. */
	char **dev_filters = calloc((size_t)nfilters + 1, sizeof(char *));
	int ndev_filters = 0;
	for (int f = 0; dev_filters && f < nfilters; f++)
		if (strspn(filters[f], "0123456789") != strlen(filters[f]))
			dev_filters[ndev_filters++] = filters[f];
	if (selected && dev_filters)
		rc = ndev_filters ? np_select_devices(&m, ndev_filters, dev_filters, false, selected) : EXIT_OK;
	if (rc == EXIT_OK && interval > 0 && np_machine_sample_irqs(ctx, &m, interval))
		rc = np_error("%s", ctx->err);
	if (rc == EXIT_OK && json) {
		cJSON *doc = cJSON_CreateObject(), *a = cJSON_AddArrayToObject(doc, "irqs");
		if (interval > 0)
			cJSON_AddNumberToObject(doc, "interval", interval);
		for (size_t i = 0; i < m.irqs.n; i++)
			if (irq_selected(&m.irqs.v[i], selected, nfilters, filters))
				cJSON_AddItemToArray(a, irq_to_json(&m, &m.irqs.v[i]));
		rc = np_print_json(doc);
	} else if (rc == EXIT_OK) {
		if (interval > 0)
			printf("Interrupts during %g s:\n", interval);
		irqs_print(&m, selected, nfilters, filters, stdout);
	}
	free(dev_filters);
	free(selected);
	np_machine_free(&m);
	return rc;
}
