#include <cjson/cJSON.h>
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "../lib/resolve.h"
#include "../lib/sysfs.h"
#include "cmd.h"
#include "table.h"

const struct np_option apply_options[] = {
	{ "dry-run", 'n', NULL, "print the plan (file, current, new) and write nothing", NULL },
	{ "json", 'j', NULL, "print JSON: {\"changed\": true|false, \"transaction\": ID, \"changes\": [...]}", NULL },
	{ "profile-dir", 0, "DIR", "look for profiles in DIR first (repeatable)", "dir" },
	{ "state-dir", 0, "DIR", "keep transactions in DIR (default /var/lib/numaplace, under --root)", "dir" },
	{ "no-wait", 0, NULL, "fail at once when another apply or revert holds the lock", NULL },
	{ NULL, 0, NULL, NULL, NULL },
};

/* A resolved profile on this machine; returns an exit status. */
int np_load_resolved(struct np_ctx *ctx, const struct np_command *self, const struct np_dirlist *dirs,
		     const char *name, struct np_machine *m, struct np_profile *prof, struct np_resolved *res)
{
	int rc = np_profile_open(ctx, self, dirs, name, prof);
	if (rc != EXIT_OK)
		return rc;
	if (np_machine_load(ctx, m)) {
		np_profile_free(prof);
		return np_error("%s", ctx->err);
	}
	np_print_warnings(m);
	rc = np_profile_resolve(ctx, m, prof, res);
	if (rc) {
		np_machine_free(m);
		np_profile_free(prof);
		return rc == -EINVAL ? np_usage_error(self, "%s", ctx->err) : np_error("%s", ctx->err);
	}
	for (size_t i = 0; i < res->nwarnings; i++)
		fprintf(stderr, "numaplace: %s: note: %s\n", self->name, res->warnings[i]);
	return EXIT_OK;
}

static int dry_run(struct np_ctx *ctx, const struct np_resolved *res, bool json)
{
	static const char *const head[] = { "FILE", "SUBJECT", "CURRENT", "NEW", NULL };
	struct np_table *t = json ? NULL : np_table_new(head);
	cJSON *doc = json ? cJSON_CreateObject() : NULL, *a = json ? cJSON_AddArrayToObject(doc, "changes") : NULL;
	size_t changing = 0;
	for (size_t i = 0; i < res->n; i++) {
		const struct np_change *c = &res->changes[i];
		char *cur = NULL;
		int rc = np_read_text(ctx, &cur, "%s", c->path);
		if (rc) {
			cJSON_Delete(doc);
			np_table_free(t);
			return np_error("%s", ctx->err);
		}
		char *a_norm = np_value_normalize(c->kind, cur), *b_norm = np_value_normalize(c->kind, c->new_value);
		bool same = a_norm && b_norm && !strcmp(a_norm, b_norm);
		changing += !same;
		if (json) {
			cJSON *o = cJSON_CreateObject();
			cJSON_AddStringToObject(o, "path", c->path);
			cJSON_AddStringToObject(o, "subject", c->subject);
			cJSON_AddStringToObject(o, "current", cur);
			cJSON_AddStringToObject(o, "new", c->new_value);
			cJSON_AddBoolToObject(o, "change", !same);
			cJSON_AddItemToArray(a, o);
		} else {
			np_table_cell(t, "%s", c->path);
			np_table_cell(t, "%s", c->subject);
			np_table_cell(t, "%s", cur);
			np_table_cell(t, "%s", same ? "(unchanged)" : c->new_value);
		}
		free(a_norm);
		free(b_norm);
		free(cur);
	}
	if (json) {
		cJSON_AddBoolToObject(doc, "changed", false);
		cJSON_AddBoolToObject(doc, "dry_run", true);
		cJSON_AddNumberToObject(doc, "would_change", (double)changing);
		return np_print_json(doc);
	}
	printf("dry run: %zu of %zu values would change; nothing written\n\n", changing, res->n);
	np_table_print(t, stdout);
	np_table_free(t);
	return EXIT_OK;
}

static int report_applied(const struct np_txn *txn, bool json)
{
	if (json) {
		cJSON *doc = cJSON_CreateObject();
		cJSON_AddBoolToObject(doc, "changed", txn->nchanges > 0);
		cJSON_AddItemToObject(doc, "transaction", txn->nchanges ? cJSON_CreateString(txn->id) : cJSON_CreateNull());
		cJSON *a = cJSON_AddArrayToObject(doc, "changes");
		for (size_t i = 0; i < txn->nchanges; i++) {
			cJSON *o = cJSON_CreateObject();
			cJSON_AddStringToObject(o, "path", txn->changes[i].path);
			cJSON_AddStringToObject(o, "subject", txn->changes[i].subject);
			cJSON_AddStringToObject(o, "old", txn->changes[i].old_value);
			cJSON_AddStringToObject(o, "new", txn->changes[i].new_value);
			cJSON_AddItemToArray(a, o);
		}
		return np_print_json(doc);
	}
	if (txn->nchanges == 0) {
		puts("already applied: nothing to change");
		return EXIT_OK;
	}
	for (size_t i = 0; i < txn->nchanges; i++)
		printf("  %s: %s -> %s\n", txn->changes[i].subject, txn->changes[i].old_value, txn->changes[i].new_value);
	printf("applied %zu change%s (transaction %s); undo with 'numaplace revert %s'\n", txn->nchanges,
	       txn->nchanges == 1 ? "" : "s", txn->id, txn->id);
	return EXIT_OK;
}

int cmd_apply(int argc, char **argv, struct np_ctx *ctx)
{
	const struct np_command *self = np_command_find("apply");
	struct np_optparse st = { 0 };
	struct np_dirlist dirs = { 0 };
	struct np_txn_opts topts = { .wait_for_lock = true };
	const char *arg;
	bool json = false, dry = false;
	int opt, rc = EXIT_OK;
	while (rc == EXIT_OK && (opt = np_opt_next(&st, self, argc, argv, &arg)) >= 0) {
		const char *name = self->options[opt].name;
		if (!strcmp(name, "dry-run"))
			dry = true;
		else if (!strcmp(name, "json"))
			json = true;
		else if (!strcmp(name, "profile-dir"))
			rc = np_dirs_add(&dirs, arg) ? np_error("%s", strerror(ENOMEM)) : EXIT_OK;
		else if (!strcmp(name, "state-dir"))
			topts.state_dir = arg;
		else
			topts.wait_for_lock = false;
	}
	if (rc == EXIT_OK && opt != NP_OPT_END)
		rc = opt == NP_OPT_HELP ? EXIT_OK : EXIT_USAGE;
	else if (rc == EXIT_OK && argc - st.index != 1)
		rc = np_usage_error(self, "expected one PROFILE (a name or a file)");
	if (rc != EXIT_OK || opt != NP_OPT_END || np_profile_dirs_finish(&dirs)) {
		np_dirs_free(&dirs);
		return rc;
	}

	struct np_machine m;
	struct np_profile prof;
	struct np_resolved res;
	rc = np_load_resolved(ctx, self, &dirs, argv[st.index], &m, &prof, &res);
	np_dirs_free(&dirs);
	if (rc != EXIT_OK)
		return rc;
	if (dry) {
		rc = dry_run(ctx, &res, json);
	} else {
		struct np_txn txn;
		if (np_txn_apply(ctx, &topts, prof.name, res.changes, res.n, &txn)) {
			rc = np_error("%s", ctx->err);
		} else {
			rc = report_applied(&txn, json);
			np_txn_free(&txn);
		}
	}
	np_resolved_free(&res);
	np_profile_free(&prof);
	np_machine_free(&m);
	return rc;
}
