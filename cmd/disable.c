#include <errno.h>
#include <limits.h>
#include <stdio.h>
#include <string.h>

#include "../lib/conffile.h"
#include "../lib/sysfs.h"
#include "cmd.h"

const struct np_option disable_options[] = {
	NP_OPT_END,
};

int cmd_disable(int argc, char **argv, struct np_ctx *ctx)
{
	const struct np_command *self = np_command_find("disable");
	int first, rc = np_parse_options(self, argc, argv, NULL, &first);
	if (rc != NP_PARSED)
		return rc;
	if (first < argc)
		return np_usage_error(self, "unexpected argument '%s'", argv[first]);

	char target[PATH_MAX];
	if (np_sysfs_path(ctx, target, "%s", NP_BOOT_PROFILE))
		return np_error("%s", ctx->err);
	rc = np_conf_remove(ctx, NP_BOOT_PROFILE);
	/* Already disabled is what was asked for. */
	if (rc == -ENOENT) {
		printf("no boot profile enabled ('%s' does not exist): nothing to disable\n", target);
		return EXIT_OK;
	}
	if (rc)
		return np_error("%s", ctx->err);
	printf("disabled the boot profile: removed '%s'\n", target);
	puts("numaplace.service now applies nothing at boot; the values applied now stay until "
	     "'numaplace revert' or the next reboot");
	return EXIT_OK;
}
