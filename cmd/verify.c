/* SPDX-License-Identifier: GPL-2.0-or-later */
#include <cjson/cJSON.h>
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "change/resolve.h"
#include "read/sysfs.h"
#include "render/render.h"

struct verify_opts {
	bool json, pretty;
	struct np_dirlist dirs;
};

const struct np_option verify_options[] = {
	NP_OPT_JSON(struct verify_opts, json, "print JSON: {\"matches\": true|false, \"drift\": [...]}"),
	NP_OPT_PRETTY(struct verify_opts, pretty),
	NP_OPT_CALLBACK(0, "profile-dir", struct verify_opts, dirs, struct np_dirlist, "DIR",
			"look for profiles in DIR first (repeatable)", "dir", np_opt_dir),
	NP_OPT_END,
};

enum { EXIT_DRIFT = 1, EXIT_VERIFY_ERROR = 2 };

int cmd_verify(int argc, char **argv, struct np_ctx *ctx)
{
	const struct np_command *self = np_command_find("verify");
	struct verify_opts vo = { 0 };
	int first, rc = np_parse_options(self, argc, argv, &vo, &first);
	if (rc == NP_CONTINUE && argc - first != 1)
		rc = np_usage_error(self, "expected one PROFILE (a name or a file)");
	if (rc != NP_CONTINUE) {
		np_dirs_free(&vo.dirs);
		/* Drift is 1: a failure here must be 2 too. */
		return rc == EXIT_FAIL ? EXIT_VERIFY_ERROR : rc;
	}
	bool json = vo.json;

	struct np_machine m;
	struct np_profile prof;
	struct np_resolved res;
	rc = np_load_resolved(ctx, self, &vo.dirs, argv[first], &m, &prof, &res);
	/* Drift is 1, so every error here must be 2, even a failure to read. */
	if (rc != EXIT_OK)
		return EXIT_VERIFY_ERROR;
	cJSON *doc = np_json_doc(), *drift = cJSON_AddArrayToObject(doc, "drift");
	size_t ndrift = 0;
	for (size_t i = 0; i < res.n && rc == EXIT_OK; i++) {
		const struct np_change *c = &res.changes[i];
		/* One read, its kind's own (a channel count is no file). */
		char *cur = NULL;
		int match = np_value_matches_current(ctx, c->path, np_attrs[c->attr].value, c->new_value, &cur);
		if (match < 0) {
			np_error("%s", ctx->err);
			rc = EXIT_VERIFY_ERROR;
			break;
		}
		if (match) {
			free(cur);
			continue;
		}
		cur[strcspn(cur, "\n")] = '\0';
		ndrift++;
		if (json) {
			cJSON *o = cJSON_CreateObject();
			cJSON_AddStringToObject(o, "path", c->path);
			cJSON_AddStringToObject(o, "subject", c->subject);
			cJSON_AddStringToObject(o, "current", cur ? cur : "");
			cJSON_AddStringToObject(o, "expected", c->new_value);
			cJSON_AddItemToArray(drift, o);
		} else {
			enum np_value_kind kind = np_attrs[c->attr].value;
			char *is = cur ? np_value_shown(kind, cur) : NULL, *want = np_value_shown(kind, c->new_value);
			printf("drift: %s (%s) is '%s', the profile wants '%s'\n", c->subject, c->path, is ? is : "?",
			       want ? want : c->new_value);
			free(is);
			free(want);
		}
		free(cur);
	}
	if (rc == EXIT_OK) {
		if (json) {
			cJSON_AddBoolToObject(doc, "matches", ndrift == 0);
			cJSON_AddNumberToObject(doc, "checked", (double)res.n);
			int printed = np_print_json(doc, vo.pretty);
			doc = NULL;
			if (printed != EXIT_OK) {
				rc = EXIT_VERIFY_ERROR;
				goto out;
			}
		} else if (ndrift == 0) {
			printf("%s: the machine matches (%zu value%s checked)\n", prof.name, res.n, res.n == 1 ? "" : "s");
		} else {
			printf("%s: %zu of %zu values drifted\n", prof.name, ndrift, res.n);
		}
		rc = ndrift ? EXIT_DRIFT : EXIT_OK;
	}
out:
	cJSON_Delete(doc);
	np_resolved_free(&res);
	np_profile_free(&prof);
	np_machine_free(&m);
	return rc;
}
