#include <cjson/cJSON.h>
#include <errno.h>
#include <limits.h>
#include <stdio.h>
#include <string.h>

#include "../lib/conffile.h"
#include "../lib/sysfs.h"
#include "cmd.h"

const struct np_option disable_options[] = {
	{ "json", 'j', NULL, "print JSON: {\"disabled\": true|false, \"file\": PATH}", NULL },
	{ NULL, 0, NULL, NULL, NULL },
};

int cmd_disable(int argc, char **argv, struct np_ctx *ctx)
{
	const struct np_command *self = np_command_find("disable");
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

	char target[PATH_MAX];
	if (np_sysfs_path(ctx, target, "%s", NP_BOOT_PROFILE))
		return np_error("%s", ctx->err);
	int rc = np_conf_remove(ctx, NP_BOOT_PROFILE);
	if (rc && rc != -ENOENT)
		return np_error("%s", ctx->err);
	if (json) {
		cJSON *doc = cJSON_CreateObject();
		cJSON_AddBoolToObject(doc, "disabled", rc == 0);
		cJSON_AddStringToObject(doc, "file", target);
		return np_print_json(doc);
	}
	/* Already disabled is what was asked for. */
	if (rc == -ENOENT) {
		printf("no boot profile enabled ('%s' does not exist): nothing to disable\n", target);
		return EXIT_OK;
	}
	printf("disabled the boot profile: removed '%s'\n", target);
	puts("numaplace.service now applies nothing at boot; the values applied now stay until "
	     "'numaplace revert' or the next reboot");
	return EXIT_OK;
}
