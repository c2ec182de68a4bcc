#include <stdlib.h>
#include <string.h>

#include <cjson/cJSON.h>

#include "../lib/findings.h"
#include "../lib/host.h"
#include "../lib/machine.h"
#include "cmd.h"
#include "table.h"

const struct np_option report_options[] = {
	{ "json", 'j', NULL, "print everything as one JSON document", NULL },
	{ "interval", 'i', "SEC", "sample /proc/interrupts twice, SEC apart (0 < SEC <= 3600): where IRQs run now", NULL },
	{ NULL, 0, NULL, NULL, NULL },
};

static void add_string_or_null(cJSON *o, const char *key, const char *value)
{
	cJSON_AddItemToObject(o, key, value ? cJSON_CreateString(value) : cJSON_CreateNull());
}

/* What a fleet compares hosts and boots by; null when the root lacks it. */
static void host_to_json(cJSON *doc, const struct np_host *host)
{
	add_string_or_null(doc, "hostname", host->hostname);
	add_string_or_null(doc, "kernel", host->kernel);
	add_string_or_null(doc, "boot_id", host->boot_id);
}

static cJSON *findings_to_json(const struct np_findings *f)
{
	cJSON *a = cJSON_CreateArray();
	for (size_t i = 0; i < f->n; i++) {
		cJSON *o = cJSON_CreateObject();
		cJSON_AddStringToObject(o, "severity", np_severity_name(f->v[i].severity));
		cJSON_AddStringToObject(o, "kind", f->v[i].kind);
		cJSON_AddStringToObject(o, "subject", f->v[i].subject);
		cJSON_AddStringToObject(o, "message", f->v[i].message);
		cJSON_AddItemToArray(a, o);
	}
	return a;
}

/* One line per device that has IRQs: where they are allowed, where they ran. */
static void print_placement(const struct np_machine *m, const bool *selected)
{
	static const char *const head[] = { "DEVICE", "DRIVER", ">NODE", ">IRQS", ">MANAGED", "RAN ON NODES",
					    ">INTERRUPTS", ">REMOTE", NULL };
	struct np_table *t = np_table_new(head);
	struct np_cpuset ran = NP_CPUSET_INIT, nodes = NP_CPUSET_INIT;
	for (size_t di = 0; di < m->pci.ndevs; di++) {
		const struct np_pci_dev *d = &m->pci.devs[di];
		struct np_irq_summary s;
		np_device_irq_summary(m, di, &s);
		if (!selected[di] || s.nirqs == 0)
			continue;
		np_cpuset_clear(&ran);
		for (size_t i = 0; i < m->irqs.n; i++)
			if (m->irqs.v[i].dev == (int)di)
				np_cpuset_or(&ran, &m->irqs.v[i].ran_on);
		np_nodes_of(&m->topo, &ran, &nodes);
		char *ran_nodes = np_cpuset_format_list(&nodes);
		int node = np_device_node(m, d, NULL);
		np_table_cell(t, "%s", d->addr);
		np_table_cell(t, "%s", d->child_driver ? d->child_driver : d->driver ? d->driver : "-");
		np_table_cell(t, node >= 0 ? "%d" : "?", node);
		np_table_cell(t, "%d", s.nirqs);
		np_table_cell(t, "%d", s.nmanaged);
		np_table_cell(t, "%s", ran_nodes && *ran_nodes ? ran_nodes : "-");
		np_table_cell(t, "%llu", s.total);
		if (s.total > 0 && s.node_known)
			np_table_cell(t, "%.0f%%", 100.0 * (double)s.remote / (double)s.total);
		else
			np_table_cell(t, "-");
		free(ran_nodes);
	}
	np_cpuset_free(&ran);
	np_cpuset_free(&nodes);
	np_table_print(t, stdout);
	np_table_free(t);
}

int cmd_report(int argc, char **argv, struct np_ctx *ctx)
{
	const struct np_command *self = np_command_find("report");
	struct np_optparse st = { 0 };
	const char *arg;
	bool json = false;
	double interval = 0;
	int opt;
	while ((opt = np_opt_next(&st, self, argc, argv, &arg)) >= 0) {
		if (!strcmp(self->options[opt].name, "json"))
			json = true;
		else if (np_parse_interval(self, arg, &interval))
			return EXIT_USAGE;
	}
	if (opt != NP_OPT_END)
		return opt == NP_OPT_HELP ? EXIT_OK : EXIT_USAGE;
	if (st.index < argc)
		return np_usage_error(self, "unexpected argument '%s'", argv[st.index]);

	struct np_machine m;
	struct np_findings f;
	if (np_machine_load(ctx, &m))
		return np_error("%s", ctx->err);
	np_print_warnings(&m);
	bool *selected = calloc(m.pci.ndevs + 1, sizeof(bool));
	int rc = selected ? np_select_devices(&m, 0, NULL, false, selected) : EXIT_FAIL;
	/* Before the findings: they judge the placement by where the IRQs ran. */
	if (rc == EXIT_OK && interval > 0 && np_machine_sample_irqs(ctx, &m, interval))
		rc = np_error("%s", ctx->err);
	if (rc == EXIT_OK && np_findings_collect(&m, &f))
		rc = np_error("collecting findings: out of memory");
	if (rc != EXIT_OK) {
		free(selected);
		np_machine_free(&m);
		return rc;
	}
	struct np_host host = { 0 };
	if (rc == EXIT_OK && json && np_host_read(ctx, &host))
		rc = np_error("%s", ctx->err);
	if (rc == EXIT_OK && json) {
		cJSON *doc = cJSON_CreateObject();
		host_to_json(doc, &host);
		if (interval > 0)
			cJSON_AddNumberToObject(doc, "interval", interval);
		cJSON_AddItemToObject(doc, "topology", topo_to_json(&m.topo));
		cJSON_AddItemToObject(doc, "devices", devices_to_json(&m, selected));
		cJSON *irqs = cJSON_AddArrayToObject(doc, "irqs");
		for (size_t i = 0; i < m.irqs.n; i++)
			cJSON_AddItemToArray(irqs, irq_to_json(&m, &m.irqs.v[i]));
		cJSON_AddBoolToObject(doc, "irqbalance", m.irqbalance);
		cJSON_AddItemToObject(doc, "findings", findings_to_json(&f));
		rc = np_print_json(doc);
	} else if (rc == EXIT_OK) {
		puts("== Topology");
		topo_print(&m.topo, stdout, false);
		puts("\n== Devices");
		devices_print(&m, selected, stdout);
		puts("\n== IRQ placement");
		if (m.irqs.n)
			print_placement(&m, selected);
		else
			puts("no interrupts (the root has no /proc/interrupts)");
		puts("\n== Findings");
		for (size_t i = 0; i < f.n; i++)
			printf("%-7s %-20s %s\n", np_severity_name(f.v[i].severity), f.v[i].kind, f.v[i].message);
		if (f.n == 0)
			puts("none");
	}
	np_host_free(&host);
	np_findings_free(&f);
	free(selected);
	np_machine_free(&m);
	return rc;
}
