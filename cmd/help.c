/* SPDX-License-Identifier: GPL-2.0-or-later */
#include "cmd.h"

const struct np_option help_options[] = {
	NP_OPT_END,
};

int cmd_help(int argc, char **argv, struct np_ctx *ctx)
{
	(void)ctx;
	const struct np_command *self = np_command_find("help");
	int first, rc = np_parse_options(self, argc, argv, NULL, &first);
	if (rc != NP_CONTINUE)
		return rc;
	if (argc - first > 1)
		return np_usage_error(self, "expected at most one command name");
	if (first < argc) {
		const struct np_command *cmd = np_command_find(argv[first]);
		if (!cmd)
			return np_usage_error(self, "unknown command '%s'", argv[first]);
		np_print_help(cmd, stdout);
		return EXIT_OK;
	}
	np_print_usage(stdout);
	return EXIT_OK;
}
