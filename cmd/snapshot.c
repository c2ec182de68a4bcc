/* SPDX-License-Identifier: GPL-2.0-or-later */
#include <stdio.h>

#include "read/snapshot.h"
#include "render/output.h"

struct snapshot_opts {
	bool json, pretty;
};

const struct np_option snapshot_options[] = {
	NP_OPT_JSON(struct snapshot_opts, json, "print JSON: {\"output\": OUT, \"files\": N, ...}"),
	NP_OPT_PRETTY(struct snapshot_opts, pretty),
	NP_OPT_END,
};

int cmd_snapshot(int argc, char **argv, struct np_ctx *ctx)
{
	const struct np_command *self = np_command_find("snapshot");
	struct snapshot_opts o = { 0 };
	int first, rc = np_parse_options(self, argc, argv, &o, &first);
	if (rc != NP_CONTINUE)
		return rc;
	if (first >= argc)
		return np_usage_error(self, "missing the output: a new directory, or a file ending in .tar.gz");
	if (argc - first > 1)
		return np_usage_error(self, "unexpected argument '%s'", argv[first + 1]);
	const char *out = argv[first];
	if (!*out)
		return np_usage_error(self, "the output path is empty");

	struct np_snapshot_stats stats;
	if (np_snapshot(ctx, out, &stats))
		return np_error("%s", ctx->err);
	if (o.json) {
		cJSON *doc = np_json_doc();
		np_json_put(doc, "root", np_json_str(*ctx->root ? ctx->root : NULL));
		cJSON_AddStringToObject(doc, "output", out);
		cJSON_AddNumberToObject(doc, "files", (double)stats.files);
		cJSON_AddNumberToObject(doc, "links", (double)stats.links);
		cJSON_AddNumberToObject(doc, "skipped", (double)stats.skipped);
		return np_print_json(doc, o.pretty);
	}
	printf("snapshot of %s written to %s: %lu files, %lu links, %lu skipped\n",
	       *ctx->root ? ctx->root : "this machine", out, stats.files, stats.links, stats.skipped);
	return EXIT_OK;
}
