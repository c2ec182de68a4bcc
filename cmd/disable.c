/* SPDX-License-Identifier: GPL-2.0-or-later */
#include <errno.h>
#include <limits.h>
#include <stdio.h>
#include <string.h>

#include "read/conffile.h"
#include "read/sysfs.h"
#include "render/output.h"

struct disable_opts {
	bool json, pretty;
};

const struct np_option disable_options[] = {
	NP_OPT_JSON(struct disable_opts, json, "print JSON: {\"disabled\": true|false, \"file\": PATH}"),
	NP_OPT_PRETTY(struct disable_opts, pretty),
	NP_OPT_END,
};

/* disabled: whether this run removed a boot profile. */
static int print_json(bool disabled, const char *target, bool pretty)
{
	cJSON *doc = np_json_doc();
	cJSON_AddBoolToObject(doc, "disabled", disabled);
	cJSON_AddStringToObject(doc, "file", target);
	return np_print_json(doc, pretty);
}

int cmd_disable(int argc, char **argv, struct np_ctx *ctx)
{
	const struct np_command *self = np_command_find("disable");
	struct disable_opts o = { 0 };
	int first, rc = np_parse_options(self, argc, argv, &o, &first);
	if (rc != NP_CONTINUE)
		return rc;
	if (first < argc)
		return np_usage_error(self, "unexpected argument '%s'", argv[first]);

	char target[PATH_MAX];
	if (np_sysfs_path(ctx, target, "%s", NP_BOOT_PROFILE))
		return np_error("%s", ctx->err);
	rc = np_conf_remove(ctx, NP_BOOT_PROFILE);
	/* Already disabled is what was asked for. */
	if (rc == -ENOENT && o.json)
		return print_json(false, target, o.pretty);
	if (rc == -ENOENT) {
		printf("no boot profile enabled ('%s' does not exist): nothing to disable\n", target);
		return EXIT_OK;
	}
	if (rc)
		return np_error("%s", ctx->err);
	if (o.json)
		return print_json(true, target, o.pretty);
	printf("disabled the boot profile: removed '%s'\n", target);
	puts("numaplace.service and numaplace-hold.service now apply nothing at boot; the values applied now stay "
	     "until 'numaplace revert' or the next reboot (stop a running hold: 'systemctl stop numaplace-hold.service')");
	return EXIT_OK;
}
