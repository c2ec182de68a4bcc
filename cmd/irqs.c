/* SPDX-License-Identifier: GPL-2.0-or-later */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "read/machine.h"
#include "render/render.h"

struct irqs_opts {
	bool json, pretty;
	double interval;
	const char *interrupts;
	struct np_table_opts table;
};

const struct np_option irqs_options[] = {
	NP_OPT_JSON(struct irqs_opts, json, "print JSON instead of a table"),
	NP_OPT_PRETTY(struct irqs_opts, pretty),
	NP_OPT_CALLBACK('i', "interval", struct irqs_opts, interval, double, "SEC",
			"sample /proc/interrupts twice, SEC apart (0 < SEC <= 3600), and show what ran in between",
			NULL, np_opt_interval),
	NP_OPT_STRING(0, "interrupts", struct irqs_opts, interrupts, "FILE",
		      "read the counts from a copy of /proc/interrupts (the topology and devices: --root or this machine)",
		      "file"),
	NP_OPT_TABLE(struct irqs_opts, table),
	NP_OPT_SORT(struct irqs_opts, table),
	NP_OPT_END,
};

/* Every IRQ without filters; else those of the matching devices and those
 * whose number is a filter or whose name a filter starts (np_irq_name_matches:
 * "virtio0" for virtio0-input.0, with or without a device). */
static bool irq_selected(const struct np_irq *irq, const bool *dev_selected, int nfilters, char **filters)
{
	if (nfilters == 0)
		return true;
	if (irq->dev >= 0 && dev_selected[irq->dev])
		return true;
	for (int f = 0; f < nfilters; f++) {
		char *end;
		long n = strtol(filters[f], &end, 10);
		if ((!*end && end != filters[f] && n == irq->irq) || np_irq_name_matches(irq->name, filters[f]))
			return true;
	}
	return false;
}

/* Whether a filter names IRQs (a number, the start of a name) rather than a device. */
static bool names_irqs(const struct np_machine *m, const char *filter)
{
	for (size_t i = 0; i < m->pci.ndevs; i++)
		if (np_pci_dev_match(&m->pci.devs[i], filter))
			return false;
	if (*filter && strspn(filter, "0123456789") == strlen(filter)) {
		/* A number names an IRQ only when there is one: irqs 9999 is an error, as devices eth9. */
		for (size_t i = 0; i < m->irqs.n; i++)
			if (m->irqs.v[i].irq == atol(filter))
				return true;
		return false;
	}
	for (size_t i = 0; i < m->irqs.n; i++)
		if (np_irq_name_matches(m->irqs.v[i].name, filter))
			return true;
	return false;
}

/* A pasted /proc/interrupts is read with the root's topology: its CPU
 * columns must be the root's CPUs, or each count lands on a node it did not
 * run on. None in common is another machine: refused. Some: said, with both
 * counts. It tells nothing of the kernel's management: MANAGED unknown. */
static int check_columns(struct np_machine *m, const char *file)
{
	const struct np_cpuset *cols = &m->irqs.columns, *online = &m->topo.online;
	struct np_cpuset extra = NP_CPUSET_INIT, missing = NP_CPUSET_INIT;
	int rc = np_cpuset_copy(&extra, cols) || np_cpuset_copy(&missing, online) ? np_error("%s", strerror(ENOMEM))
										    : EXIT_OK;
	np_cpuset_andnot(&extra, online);
	np_cpuset_andnot(&missing, cols);
	char *el = np_cpuset_format_list(&extra), *ml = np_cpuset_format_list(&missing);
	unsigned nfile = np_cpuset_count(cols), nroot = np_cpuset_count(online);
	if (rc == EXIT_OK && (!el || !ml))
		rc = np_error("%s", strerror(ENOMEM));
	else if (rc == EXIT_OK && np_cpuset_count(&extra) == nfile)
		rc = np_error("--interrupts '%s': its %u CPU columns are none of the root's %u online CPUs: a copy from "
			      "another machine (give its topology with --root)", file, nfile, nroot);
	else if (rc == EXIT_OK && (*el || *ml))
		np_notef("warning: --interrupts '%s' has %u CPU columns, the root %u online CPUs%s%s%s%s%s%s: is it "
			 "this machine's?", file, nfile, nroot, *el ? "; CPUs " : "", el,
			 *el ? " are not the root's (their counts are on no node)" : "", *ml ? "; the root's CPUs " : "",
			 ml, *ml ? " have no column" : "");
	free(el);
	free(ml);
	np_cpuset_free(&extra);
	np_cpuset_free(&missing);
	for (size_t i = 0; i < m->irqs.n; i++)
		m->irqs.v[i].managed_unknown = true;
	return rc;
}

int cmd_irqs(int argc, char **argv, struct np_ctx *ctx)
{
	const struct np_command *self = np_command_find("irqs");
	struct irqs_opts o = { 0 };
	int first, rc = np_parse_options(self, argc, argv, &o, &first);
	if (rc != NP_CONTINUE)
		return rc;
	if (o.interrupts && o.interval > 0)
		return np_usage_error(self, "--interrupts reads a copy: it cannot be sampled with --interval");
	struct np_table t;
	if ((rc = np_table_init(&t, self, np_irq_columns, o.interval > 0 ? NP_IRQ_RATE_COLUMNS : NP_IRQ_DEFAULT_COLUMNS,
				&o.table, o.json, NULL)) != NP_CONTINUE)
		return rc;

	struct np_machine m;
	if (np_machine_load(ctx, &m)) {
		np_table_free(&t);
		return np_error("%s", ctx->err);
	}
	/* A pasted copy comes without /proc/irq: counts and names only, tied to
	 * the devices by the names and chips it shows. */
	if (o.interrupts) {
		np_irqs_free(&m.irqs);
		if (np_irqs_read_counts_file(ctx, &m.topo, o.interrupts, &m.irqs)) {
			np_table_free(&t);
			np_machine_free(&m);
			return np_error("%s", ctx->err);
		}
		np_irqs_tie(&m.irqs, &m.pci);
		/* Its counts cover an uptime the paste does not tell, nor this root's CPU time. */
		np_cpu_load_free(&m.load);
		m.load = (struct np_cpu_load){ 0 };
		rc = check_columns(&m, o.interrupts);
		if (rc != EXIT_OK) {
			np_table_free(&t);
			np_machine_free(&m);
			return rc;
		}
	}
	struct np_irq_view view = { &m, o.interval, np_nodes_memo_new() };
	t.data = &view;
	np_print_warnings(&m);
	int nfilters = argc - first;
	char **filters = argv + first;
	bool *selected = calloc(m.pci.ndevs + 1, sizeof(bool));
	/* IRQ numbers are filters too; only the other words must name devices. */
	char **dev_filters = calloc((size_t)nfilters + 1, sizeof(char *));
	int ndev_filters = 0;
	rc = selected && dev_filters ? EXIT_OK : np_error("%s", strerror(ENOMEM));
	for (int f = 0; rc == EXIT_OK && f < nfilters; f++)
		if (!names_irqs(&m, filters[f]))
			dev_filters[ndev_filters++] = filters[f];
	for (int f = 0; rc == EXIT_OK && f < ndev_filters; f++)
		if (strspn(dev_filters[f], "0123456789") == strlen(dev_filters[f]))
			rc = np_error("no IRQ %s here (the numbers /proc/interrupts lists)", dev_filters[f]);
	if (rc == EXIT_OK && ndev_filters && np_select_devices(ctx, &m, ndev_filters, dev_filters, false, selected))
		rc = np_error("%s", ctx->err);
	if (rc == EXIT_OK && o.interval > 0 && np_sample_interval(ctx, &m, o.interval))
		rc = np_error("%s", ctx->err);
	const void **rows = rc == EXIT_OK ? calloc(m.irqs.n + 1, sizeof(*rows)) : NULL;
	size_t nrows = 0;
	if (rc == EXIT_OK && !rows)
		rc = np_error("%s", strerror(ENOMEM));
	for (size_t i = 0; rc == EXIT_OK && i < m.irqs.n; i++)
		if (irq_selected(&m.irqs.v[i], selected, nfilters, filters))
			rows[nrows++] = &m.irqs.v[i];
	if (rc == EXIT_OK)
		rc = np_table_sort(&t, rows, nrows);
	/* JSON rows are written as they are made: 4000 IRQs are never a tree. */
	struct np_jw jw;
	if (rc == EXIT_OK && o.json) {
		np_json_begin(&jw, o.pretty);
		np_table_stream(&t, &jw, "irqs");
	}
	for (size_t i = 0; rc == EXIT_OK && i < nrows; i++)
		rc = np_table_add(&t, rows[i]);
	free(rows);
	if (rc == EXIT_OK && o.json) {
		np_table_stream_end(&t);
		if (o.interval > 0)
			np_jw_number(&jw, "interval", o.interval);
		rc = np_json_end(&jw);
	} else if (rc == EXIT_OK) {
		if (o.interval > 0)
			printf("Interrupts during %g s:\n", o.interval);
		rc = np_table_print(&t, stdout);
		if (rc == EXIT_OK && o.interval > 0)
			np_print_rates(&m, nfilters ? selected : NULL, o.interval, stdout);
	}
	np_table_free(&t);
	np_nodes_memo_free(view.memo);
	free(dev_filters);
	free(selected);
	np_machine_free(&m);
	return rc;
}
