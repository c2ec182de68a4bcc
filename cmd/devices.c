/* SPDX-License-Identifier: GPL-2.0-or-later */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "../lib/machine.h"
#include "render.h"

struct devices_opts {
	bool all, json, pretty;
};

const struct np_option devices_options[] = {
	NP_OPT_BOOL('a', "all", struct devices_opts, all, "list every PCI function, not only the ones that matter"),
	NP_OPT_JSON(struct devices_opts, json, "print JSON instead of text"),
	NP_OPT_PRETTY(struct devices_opts, pretty),
	NP_OPT_END,
};

int cmd_devices(int argc, char **argv, struct np_ctx *ctx)
{
	const struct np_command *self = np_command_find("devices");
	struct devices_opts o = { 0 };
	int first, rc = np_parse_options(self, argc, argv, &o, &first);
	if (rc != NP_CONTINUE)
		return rc;

	struct np_machine m;
	if (np_machine_load(ctx, &m))
		return np_error("%s", ctx->err);
	np_print_warnings(&m);
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
