#include <errno.h>
#include <limits.h>
#include <stdio.h>
#include <string.h>

#include "../lib/conffile.h"
#include "../lib/sysfs.h"
#include "cmd.h"

const struct np_option disable_options[] = {
	{ NULL, 0, NULL, NULL, NULL },
};

int cmd_disable(int argc, char **argv, struct np_ctx *ctx)
{
	const struct np_command *self = np_command_find("disable");
	struct np_optparse st = { 0 };
	const char *arg;
	int opt = np_opt_next(&st, self, argc, argv, &arg);
	if (opt != NP_OPT_END)
		return opt == NP_OPT_HELP ? EXIT_OK : EXIT_USAGE;
	if (st.index < argc)
		return np_usage_error(self, "unexpected argument '%s'", argv[st.index]);

	char target[PATH_MAX];
	if (np_sysfs_path(ctx, target, "%s", NP_BOOT_PROFILE))
		return np_error("%s", ctx->err);
	int rc = np_conf_remove(ctx, NP_BOOT_PROFILE);
	/* Already disabled is what was asked for. */
	if (rc == -ENOENT) {
		printf("no boot profile enabled ('%s' does not exist): nothing to disable\n", target);
		return EXIT_OK;
	}
	if (rc)
		return np_error("%s", ctx->err);
	printf("disabled the boot profile: removed '%s'\n", target);
	puts("numaplace.service and numaplace-hold.service now apply nothing at boot; the values applied now stay "
	     "until 'numaplace revert' or the next reboot (stop a running hold: 'systemctl stop numaplace-hold.service')");
	return EXIT_OK;
}
