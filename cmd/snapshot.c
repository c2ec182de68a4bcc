#include <stdio.h>

#include "../lib/snapshot.h"
#include "cmd.h"

const struct np_option snapshot_options[] = {
	{ NULL, 0, NULL, NULL, NULL },
};

int cmd_snapshot(int argc, char **argv, struct np_ctx *ctx)
{
	const struct np_command *self = np_command_find("snapshot");
	struct np_optparse st = { 0 };
	const char *arg;
	int opt = np_opt_next(&st, self, argc, argv, &arg);
	if (opt != NP_OPT_END)
		return opt == NP_OPT_HELP ? EXIT_OK : EXIT_USAGE;
	if (st.index >= argc)
		return np_usage_error(self, "missing the output: a new directory, or a file ending in .tar.gz");
	if (argc - st.index > 1)
		return np_usage_error(self, "unexpected argument '%s'", argv[st.index + 1]);
	const char *out = argv[st.index];
	if (!*out)
		return np_usage_error(self, "the output path is empty");

	struct np_snapshot_stats stats;
	if (np_snapshot(ctx, out, &stats))
		return np_error("%s", ctx->err);
	printf("snapshot of %s written to %s: %lu files, %lu links, %lu skipped\n",
	       *ctx->root ? ctx->root : "this machine", out, stats.files, stats.links, stats.skipped);
	return EXIT_OK;
}
