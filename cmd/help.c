#include "cmd.h"

const struct np_option help_options[] = {
	{ NULL, 0, NULL, NULL, NULL },
};

int cmd_help(int argc, char **argv, struct np_ctx *ctx)
{
	(void)ctx;
	const struct np_command *self = np_command_find("help");
	struct np_optparse st = { 0 };
	const char *arg;
	int opt = np_opt_next(&st, self, argc, argv, &arg);
	if (opt == NP_OPT_HELP)
		return EXIT_OK;
	if (opt != NP_OPT_END)
		return EXIT_USAGE;
	if (argc - st.index > 1)
		return np_usage_error(self, "expected at most one command name");
	if (st.index < argc) {
		const struct np_command *cmd = np_command_find(argv[st.index]);
		if (!cmd)
			return np_usage_error(self, "unknown command '%s'", argv[st.index]);
		np_print_help(cmd, stdout);
		return EXIT_OK;
	}
	np_print_usage(stdout);
	return EXIT_OK;
}
