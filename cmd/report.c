#include <stdlib.h>
#include <string.h>

#include <cjson/cJSON.h>

#include "../lib/findings.h"
#include "../lib/machine.h"
#include "cmd.h"
#include "table.h"
#include "term.h"

const struct np_option report_options[] = {
	{ "json", 'j', NULL, "print everything as one JSON document", NULL },
	{ "all", 'a', NULL, "also list findings under the volume threshold", NULL },
	{ "color", 0, "WHEN", "colour severities: auto (a terminal, no NO_COLOR), always, never", NULL },
	{ "interval", 'i', "SEC", "judge what ran during SEC seconds (0 < SEC <= 3600), with rates per second", NULL },
	{ "svg", 0, "FILE", "also draw the nodes, devices and where their interrupts ran into FILE (SVG)", "file" },
	{ NULL, 0, NULL, NULL, NULL },
};

static cJSON *findings_to_json(const struct np_machine *m, const struct np_findings *f)
{
	cJSON *a = cJSON_CreateArray();
	for (size_t i = 0; i < f->n; i++) {
		const struct np_finding *x = &f->v[i];
		cJSON *o = cJSON_CreateObject();
		cJSON_AddStringToObject(o, "severity", np_severity_name(x->severity));
		cJSON_AddStringToObject(o, "kind", x->kind);
		cJSON_AddStringToObject(o, "subject", x->subject);
		cJSON_AddStringToObject(o, "message", x->message);
		cJSON_AddItemToObject(o, "device", x->dev >= 0 ? cJSON_CreateString(m->pci.devs[x->dev].addr) : cJSON_CreateNull());
		cJSON_AddNumberToObject(o, "irqs", x->nirqs);
		cJSON_AddNumberToObject(o, "interrupts", (double)x->interrupts);
		cJSON_AddNumberToObject(o, "total", (double)x->total);
		char *cpus = np_cpuset_format_list(&x->cpus);
		cJSON_AddStringToObject(o, "cpus", cpus ? cpus : "");
		free(cpus);
		cJSON_AddItemToObject(o, "fix", x->fix ? cJSON_CreateString(x->fix) : cJSON_CreateNull());
		cJSON_AddBoolToObject(o, "minor", x->minor);
		cJSON_AddItemToArray(a, o);
	}
	return a;
}

#define RED "\033[1;31m"
#define YELLOW "\033[33m"
#define OFF "\033[0m"

/* The answer first: one line per problem, most important first, each with
 * the command that fixes it. */
static void print_summary(const struct np_findings *f, double seconds, int width, bool color)
{
	size_t n = np_findings_summary(f), minor = 0;
	for (size_t i = 0; i < f->n; i++)
		minor += f->v[i].minor;
	if (seconds > 0)
		printf("== Summary (interrupts during %g s)\n", seconds);
	else
		puts("== Summary");
	if (n == 0)
		printf("Nothing wrong: no device's interrupts ran off its node or on isolated CPUs (%llu or more each).\n",
		       f->min_interrupts);
	for (size_t i = 0; i < n; i++) {
		const struct np_finding *x = &f->v[i];
		/* The device in colour; the rest wraps to the terminal, the fix on a
		 * line of its own when the whole does not fit. */
		const char *rest = strstr(x->message, ": ");
		size_t first = color && rest ? (size_t)(rest - x->message) : 0;
		size_t len = strlen(x->message) + (x->fix ? 4 + strlen(x->fix) : 0);
		bool split = x->fix && width && (int)len > width;
		if (first)
			printf(RED "%.*s" OFF, (int)first, x->message);
		if (split) {
			np_print_wrapped(stdout, x->message + first, width, (int)first, 4);
			printf("    -> %s\n", x->fix);
		} else {
			char *line;
			if (asprintf(&line, "%s%s%s", x->message + first, x->fix ? " -> " : "", x->fix ? x->fix : "") < 0)
				continue;
			np_print_wrapped(stdout, line, width, (int)first, 4);
			free(line);
		}
	}
	if (minor)
		printf("(%zu more under %llu interrupts per device: 'report --all' lists them)\n", minor, f->min_interrupts);
}

static void print_findings(const struct np_findings *f, bool all, int width, bool color)
{
	size_t shown = 0;
	for (size_t i = 0; i < f->n; i++) {
		const struct np_finding *x = &f->v[i];
		if (x->minor && !all)
			continue;
		const char *sev = x->minor ? "minor" : np_severity_name(x->severity);
		if (color && !x->minor)
			printf("%s%-7s" OFF " ", x->severity == NP_WARNING ? RED : YELLOW, sev);
		else
			printf("%-7s ", sev);
		np_print_wrapped(stdout, x->message, width, 8, 8);
		shown++;
	}
	if (shown == 0)
		puts("none");
}

/* One line per device that has IRQs: where they are allowed, where they ran. */
static void print_placement(const struct np_machine *m, const bool *selected, double seconds)
{
	static const char *const head[] = { "DEVICE", "DRIVER", ">NODE", ">IRQS", ">MANAGED", "RAN ON NODES",
					    ">INTERRUPTS", ">REMOTE", NULL };
	static const char *const rate_head[] = { "DEVICE", "DRIVER", ">NODE", ">IRQS", ">MANAGED", "RAN ON NODES",
						 ">PER SEC", ">REMOTE", NULL };
	struct np_table *t = np_table_new(seconds > 0 ? rate_head : head);
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
		if (seconds > 0)
			np_table_cell(t, "%.0f", (double)s.total / seconds);
		else
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
	const char *arg, *color_when = NULL, *svg = NULL;
	bool json = false, all = false, color;
	double interval = 0;
	int opt;
	while ((opt = np_opt_next(&st, self, argc, argv, &arg)) >= 0) {
		const char *name = self->options[opt].name;
		if (!strcmp(name, "json")) {
			json = true;
		} else if (!strcmp(name, "all")) {
			all = true;
		} else if (!strcmp(name, "color")) {
			color_when = arg;
		} else if (!strcmp(name, "svg")) {
			svg = arg;
		} else {
			char *end;
			interval = strtod(arg, &end);
			if (*end || end == arg || !(interval > 0 && interval <= 3600))
				return np_usage_error(self, "--interval needs seconds between 0 and 3600, not '%s'", arg);
		}
	}
	if (opt == NP_OPT_END && !np_color_parse(color_when, &color))
		return np_usage_error(self, "--color takes auto, always or never, not '%s'", color_when);
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
	if (rc == EXIT_OK && interval > 0 && np_sample_interval(ctx, &m, interval))
		rc = np_error("%s", ctx->err);
	/* Over an interval the threshold is a rate: NP_FINDINGS_MIN_RATE a second. */
	unsigned long long min = interval > 0 ? (unsigned long long)(NP_FINDINGS_MIN_RATE * interval + 0.5)
					      : NP_FINDINGS_MIN_INTERRUPTS;
	if (rc == EXIT_OK && svg)
		rc = np_report_svg(&m, selected, svg);
	if (rc == EXIT_OK && np_findings_collect(&m, min, &f))
		rc = np_error("collecting findings: out of memory");
	if (rc != EXIT_OK) {
		free(selected);
		np_machine_free(&m);
		return rc;
	}
	if (json) {
		cJSON *doc = cJSON_CreateObject();
		cJSON_AddItemToObject(doc, "topology", topo_to_json(&m.topo));
		cJSON_AddItemToObject(doc, "devices", devices_to_json(&m, selected));
		cJSON *irqs = cJSON_AddArrayToObject(doc, "irqs");
		for (size_t i = 0; i < m.irqs.n; i++)
			cJSON_AddItemToArray(irqs, irq_to_json(&m, &m.irqs.v[i]));
		cJSON_AddBoolToObject(doc, "irqbalance", m.irqbalance);
		if (interval > 0)
			cJSON_AddNumberToObject(doc, "interval", interval);
		cJSON_AddItemToObject(doc, "findings", findings_to_json(&m, &f));
		rc = np_print_json(doc);
	} else {
		int width = np_term_width();
		print_summary(&f, interval, width, color);
		puts("\n== Topology");
		topo_print(&m.topo, stdout, false);
		puts("\n== Devices");
		devices_print(&m, selected, stdout);
		puts("\n== IRQ placement");
		if (!m.irqs.n)
			puts("no interrupts (the root has no /proc/interrupts)");
		else
			print_placement(&m, selected, interval);
		if (m.irqs.n && interval > 0)
			np_print_rates(&m, selected, interval, stdout);
		puts("\n== Findings");
		print_findings(&f, all, width, color);
	}
	np_findings_free(&f);
	free(selected);
	np_machine_free(&m);
	return rc;
}
