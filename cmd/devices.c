/* SPDX-License-Identifier: GPL-2.0-or-later */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "read/machine.h"
#include "read/pci-class.h"
#include "read/pci-tree.h"
#include "render/render.h"

struct devices_opts {
	bool all, json, pretty, matrix;
	const char *near, *classes;
	struct np_table_opts table;
};

const struct np_option devices_options[] = {
	NP_OPT_BOOL('a', "all", struct devices_opts, all, "list every PCI function, not only the ones that matter"),
	NP_OPT_BOOL('m', "matrix", struct devices_opts, matrix,
		    "the PCIe link type between every two devices (X, PIX, PXB, PHB, NODE, SYS)"),
	NP_OPT_STRING(0, "near", struct devices_opts, near, "DEVICE",
		      "the other devices, nearest to DEVICE first (link type, then NUMA distance)", "device"),
	NP_OPT_STRING(0, "class", struct devices_opts, classes, "CLASSES",
		      "with --matrix or --near: gpu, net, nvme, storage, all, comma-separated\n"
		      "(default gpu,net,storage)",
		      "class"),
	NP_OPT_TABLE(struct devices_opts, table),
	NP_OPT_JSON(struct devices_opts, json, "print JSON instead of text"),
	NP_OPT_PRETTY(struct devices_opts, pretty),
	NP_OPT_END,
};

/* --matrix and --near: the FILTERs' devices (every function but bridges
 * without any), of the classes asked (the default ones without FILTERs). */
static int select_linked(struct np_ctx *ctx, const struct np_machine *m, const struct devices_opts *o, int nfilters,
			 char **filters, bool *selected)
{
	unsigned kinds = nfilters ? NP_KIND_ALL : NP_KIND_DEFAULT;
	if (o->classes && np_pci_kinds_parse(ctx, o->classes, &kinds))
		return np_usage_error(np_command_find("devices"), "%s", ctx->err);
	if (nfilters && np_select_devices(ctx, m, nfilters, filters, false, selected))
		return np_error("%s", ctx->err);
	for (size_t i = 0; i < m->pci.ndevs; i++)
		selected[i] = (!nfilters || selected[i]) && np_pci_dev_is_kind(&m->pci.devs[i], kinds);
	return EXIT_OK;
}

static int show_near(struct np_ctx *ctx, const struct np_command *self, const struct np_machine *m, const struct np_pcitree *tree,
		     const struct devices_opts *o, const bool *selected)
{
	struct np_near near = { .m = m, .tree = tree };
	int rc = np_find_one_device(ctx, m, o->near, &near.dev);
	if (rc != EXIT_OK)
		return rc;
	struct np_table t;
	if ((rc = np_table_init(&t, self, np_near_columns, NP_NEAR_DEFAULT_COLUMNS, &o->table, o->json, &near)) !=
	    NP_CONTINUE)
		return rc;
	void *rows = NULL;
	size_t nrows = 0;
	rc = np_near_rows(&near, selected, &rows, &nrows) ? np_error("%s", strerror(ENOMEM)) : EXIT_OK;
	for (size_t i = 0; i < nrows && rc == EXIT_OK; i++)
		rc = np_table_add(&t, (const char *)rows + i * np_near_row_size());
	if (rc == EXIT_OK && o->json) {
		cJSON *doc = np_json_doc();
		np_json_put(doc, "device", np_json_str(m->pci.devs[near.dev].addr));
		np_json_put(doc, "near", np_table_take_json(&t));
		rc = np_print_json(doc, o->pretty);
	} else if (rc == EXIT_OK) {
		rc = np_table_print(&t, stdout);
	}
	free(rows);
	np_table_free(&t);
	return rc;
}

static int show_links(struct np_ctx *ctx, const struct np_command *self, const struct np_machine *m,
		      const struct devices_opts *o, int nfilters, char **filters)
{
	bool *selected = calloc(m->pci.ndevs + 1, sizeof(bool));
	if (!selected)
		return np_error("%s", strerror(ENOMEM));
	struct np_pcitree tree;
	int rc = select_linked(ctx, m, o, nfilters, filters, selected);
	if (rc == EXIT_OK && np_pcitree_read(ctx, &m->pci, &tree))
		rc = np_error("%s", ctx->err);
	else if (rc == EXIT_OK) {
		if (o->near) {
			rc = show_near(ctx, self, m, &tree, o, selected);
		} else if (o->json) {
			struct np_jw jw;
			np_json_begin(&jw, o->pretty);
			np_matrix_write(&jw, m, &tree, selected);
			rc = np_json_end(&jw);
		} else {
			rc = np_matrix_print(m, &tree, selected, stdout);
		}
		np_pcitree_free(&tree);
	}
	free(selected);
	return rc;
}

int cmd_devices(int argc, char **argv, struct np_ctx *ctx)
{
	const struct np_command *self = np_command_find("devices");
	struct devices_opts o = { 0 };
	int first, rc = np_parse_options(self, argc, argv, &o, &first);
	if (rc != NP_CONTINUE)
		return rc;
	if (o.matrix && o.near)
		return np_usage_error(self, "--matrix and --near are two views: pick one");
	if (o.classes && !o.matrix && !o.near)
		return np_usage_error(self, "--class goes with --matrix or --near");
	if ((o.table.columns || o.table.noheadings || o.table.raw || o.table.pairs) && !o.near)
		return np_usage_error(self, "-o, -n, -r and -P go with --near (the one view that is a table)");
	if (o.all && (o.matrix || o.near))
		return np_usage_error(self, "--all lists devices; with --matrix or --near, use --class all");

	struct np_machine m;
	if (np_machine_load(ctx, &m))
		return np_error("%s", ctx->err);
	np_print_warnings(&m);
	if (o.matrix || o.near) {
		rc = show_links(ctx, self, &m, &o, argc - first, argv + first);
		np_machine_free(&m);
		return rc;
	}
	bool *selected = calloc(m.pci.ndevs + 1, sizeof(bool));
	rc = selected ? EXIT_OK : np_error("%s", strerror(ENOMEM));
	if (rc == EXIT_OK && np_select_devices(ctx, &m, argc - first, argv + first, o.all, selected))
		rc = np_error("%s", ctx->err);
	if (rc == EXIT_OK && o.json) {
		struct np_jw jw;
		np_json_begin(&jw, o.pretty);
		np_devices_write(&jw, "devices", &m, selected);
		rc = np_json_end(&jw);
	} else if (rc == EXIT_OK) {
		np_devices_print(&m, selected, stdout);
	}
	free(selected);
	np_machine_free(&m);
	return rc;
}
