#include <cjson/cJSON.h>
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "../lib/resolve.h"
#include "../lib/sysfs.h"
#include "cmd.h"

const struct np_option verify_options[] = {
	{ "json", 'j', NULL, "print JSON: {\"matches\": true|false, \"drift\": [...]}", NULL },
	{ "profile-dir", 0, "DIR", "look for profiles in DIR first (repeatable)", "dir" },
	{ NULL, 0, NULL, NULL, NULL },
};

enum { EXIT_DRIFT = 1, EXIT_VERIFY_ERROR = 2 };

int cmd_verify(int argc, char **argv, struct np_ctx *ctx)
{
	const struct np_command *self = np_command_find("verify");
	struct np_optparse st = { 0 };
	struct np_dirlist dirs = { 0 };
	const char *arg;
	bool json = false;
	int opt, rc = EXIT_OK;
	while (rc == EXIT_OK && (opt = np_opt_next(&st, self, argc, argv, &arg)) >= 0) {
		if (!strcmp(self->options[opt].name, "json"))
			json = true;
		else if (np_dirs_add(&dirs, arg))
			rc = EXIT_VERIFY_ERROR;
	}
	if (rc == EXIT_OK && opt != NP_OPT_END)
		rc = opt == NP_OPT_HELP ? EXIT_OK : EXIT_USAGE;
	else if (rc == EXIT_OK && argc - st.index != 1)
		rc = np_usage_error(self, "expected one PROFILE (a name or a file)");
	if (rc != EXIT_OK || opt != NP_OPT_END) {
		np_dirs_free(&dirs);
		return rc;
	}

	struct np_machine m;
	struct np_profile prof;
	struct np_resolved res;
	rc = np_load_resolved(ctx, self, &dirs, argv[st.index], &m, &prof, &res);
	/* Drift is 1, so every error here must be 2, even a failure to read. */
	if (rc != EXIT_OK)
		return EXIT_VERIFY_ERROR;
	cJSON *doc = cJSON_CreateObject(), *drift = cJSON_AddArrayToObject(doc, "drift");
	size_t ndrift = 0;
	for (size_t i = 0; i < res.n && rc == EXIT_OK; i++) {
		const struct np_change *c = &res.changes[i];
		int match = np_value_matches(ctx, c->path, np_attrs[c->attr].value, c->new_value);
		if (match < 0) {
			np_error("%s", ctx->err);
			rc = EXIT_VERIFY_ERROR;
			break;
		}
		if (match)
			continue;
		char *cur = NULL;
		np_read_text(ctx, &cur, "%s", c->path);
		ndrift++;
		if (json) {
			cJSON *o = cJSON_CreateObject();
			cJSON_AddStringToObject(o, "path", c->path);
			cJSON_AddStringToObject(o, "subject", c->subject);
			cJSON_AddStringToObject(o, "current", cur ? cur : "");
			cJSON_AddStringToObject(o, "expected", c->new_value);
			cJSON_AddItemToArray(drift, o);
		} else {
			printf("drift: %s (%s) is '%s', the profile wants '%s'\n", c->subject, c->path, cur ? cur : "?",
			       c->new_value);
		}
		free(cur);
	}
	if (rc == EXIT_OK) {
		if (json) {
			cJSON_AddBoolToObject(doc, "matches", ndrift == 0);
			cJSON_AddNumberToObject(doc, "checked", (double)res.n);
			np_print_json(doc);
			doc = NULL;
		} else if (ndrift == 0) {
			printf("%s: the machine matches (%zu value%s checked)\n", prof.name, res.n, res.n == 1 ? "" : "s");
		} else {
			printf("%s: %zu of %zu values drifted\n", prof.name, ndrift, res.n);
		}
		rc = ndrift ? EXIT_DRIFT : EXIT_OK;
	}
	cJSON_Delete(doc);
	np_resolved_free(&res);
	np_profile_free(&prof);
	np_machine_free(&m);
	return rc;
}
