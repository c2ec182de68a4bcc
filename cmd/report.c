#include <string.h>

#include <cjson/cJSON.h>

#include "../lib/topology.h"
#include "cmd.h"

const struct np_option report_options[] = {
	{ "json", 'j', NULL, "print everything as one JSON document", NULL },
	{ NULL, 0, NULL, NULL, NULL },
};

int cmd_report(int argc, char **argv, struct np_ctx *ctx)
{
	const struct np_command *self = np_command_find("report");
	struct np_optparse st = { 0 };
	const char *arg;
	bool json = false;
	int opt;
	while ((opt = np_opt_next(&st, self, argc, argv, &arg)) >= 0)
		json = true;
	if (opt != NP_OPT_END)
		return opt == NP_OPT_HELP ? EXIT_OK : EXIT_USAGE;
	if (st.index < argc)
		return np_usage_error(self, "unexpected argument '%s'", argv[st.index]);

	struct np_topology topo;
	if (np_topology_load(ctx, &topo))
		return np_error("%s", ctx->err);
	int rc = EXIT_OK;
	if (json) {
		cJSON *doc = cJSON_CreateObject();
		cJSON_AddItemToObject(doc, "topology", topo_to_json(&topo));
		rc = np_print_json(doc);
	} else {
		puts("== Topology");
		topo_print(&topo, stdout, false);
	}
	np_topology_free(&topo);
	return rc;
}
