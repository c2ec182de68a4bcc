#include <cjson/cJSON.h>
#include <errno.h>
#include <string.h>

#include "../lib/txn.h"
#include "cmd.h"

const struct np_option revert_options[] = {
	{ "force", 'f', NULL, "restore even values that someone changed since the apply", NULL },
	{ "dry-run", 'n', NULL, "print what would be restored and write nothing (no lock taken)", NULL },
	{ "json", 'j', NULL, "print JSON: {\"reverted\": true|false, \"transaction\": ID, \"changes\": [...]}", NULL },
	{ "state-dir", 0, "DIR", "where the transactions are (default /var/lib/numaplace, under --root)", "dir" },
	{ "no-wait", 0, NULL, "fail at once when another apply or revert holds the lock", NULL },
	{ NULL, 0, NULL, NULL, NULL },
};

/* A whole file (irqbalance's configuration) is no line to show: what changed in it is. */
static bool is_text(const struct np_change *c)
{
	return np_attrs[c->attr].value == NP_VALUE_TEXT;
}

/* For a dry run each change's new value is the current one the revert would overwrite. */
static int revert_json(const struct np_txn *txn, bool dry, bool config)
{
	cJSON *doc = cJSON_CreateObject(), *a = cJSON_CreateArray();
	cJSON_AddBoolToObject(doc, "reverted", !dry);
	if (dry)
		cJSON_AddBoolToObject(doc, "dry_run", true);
	cJSON_AddStringToObject(doc, "transaction", txn->id);
	cJSON_AddStringToObject(doc, "profile", txn->profile);
	for (size_t i = 0; i < txn->nchanges; i++) {
		const struct np_change *c = &txn->changes[i];
		cJSON *o = cJSON_CreateObject();
		cJSON_AddStringToObject(o, "path", c->path);
		cJSON_AddStringToObject(o, "subject", c->subject);
		cJSON_AddStringToObject(o, dry ? "current" : "old", dry ? c->new_value : c->old_value);
		cJSON_AddStringToObject(o, dry ? "restore" : "new", dry ? c->old_value : c->new_value);
		cJSON_AddItemToArray(a, o);
	}
	cJSON_AddItemToObject(doc, "changes", a);
	cJSON_AddBoolToObject(doc, "restart_irqbalance", config);
	return np_print_json(doc);
}

int cmd_revert(int argc, char **argv, struct np_ctx *ctx)
{
	const struct np_command *self = np_command_find("revert");
	struct np_optparse st = { 0 };
	struct np_txn_opts topts = { .wait_for_lock = true };
	const char *arg;
	bool force = false, json = false;
	int opt;
	while ((opt = np_opt_next(&st, self, argc, argv, &arg)) >= 0) {
		const char *name = self->options[opt].name;
		if (!strcmp(name, "force"))
			force = true;
		else if (!strcmp(name, "dry-run"))
			topts.dry_run = true;
		else if (!strcmp(name, "json"))
			json = true;
		else if (!strcmp(name, "state-dir"))
			topts.state_dir = arg;
		else
			topts.wait_for_lock = false;
	}
	if (opt != NP_OPT_END)
		return opt == NP_OPT_HELP ? EXIT_OK : EXIT_USAGE;
	if (argc - st.index > 1)
		return np_usage_error(self, "expected at most one transaction ID (see 'numaplace history')");

	struct np_txn txn;
	int rc = np_txn_revert(ctx, &topts, st.index < argc ? argv[st.index] : NULL, force, &txn);
	if (rc == -ESTALE) {
		/* Not a failure: the values are already the boot's defaults. */
		if (!json) {
			printf("%s\n", ctx->err);
			return EXIT_OK;
		}
		cJSON *doc = cJSON_CreateObject();
		cJSON_AddBoolToObject(doc, "reverted", false);
		cJSON_AddStringToObject(doc, "message", ctx->err);
		cJSON_AddItemToObject(doc, "changes", cJSON_CreateArray());
		return np_print_json(doc);
	}
	if (rc)
		return np_error("%s", ctx->err);
	bool config = false;
	for (size_t i = 0; i < txn.nchanges; i++)
		config |= is_text(&txn.changes[i]);
	if (json) {
		rc = revert_json(&txn, topts.dry_run, config);
		np_txn_free(&txn);
		return rc;
	}
	for (size_t i = 0; i < txn.nchanges; i++) {
		const struct np_change *c = &txn.changes[i];
		if (is_text(c))
			printf("  %s removed: %s %s\n", c->subject, c->path, topts.dry_run ? "would be restored" : "restored");
		else
			printf("  %s: %s -> %s\n", c->subject, c->new_value, c->old_value);
	}
	if (topts.dry_run)
		printf("would revert transaction %s (%s): %zu value%s to restore; nothing written\n", txn.id,
		       txn.profile, txn.nchanges, txn.nchanges == 1 ? "" : "s");
	else
		printf("reverted transaction %s (%s): %zu value%s restored\n", txn.id, txn.profile, txn.nchanges,
		       txn.nchanges == 1 ? "" : "s");
	if (config && !topts.dry_run)
		puts("restart irqbalance if it runs: systemctl restart irqbalance (it reads IRQBALANCE_ARGS only when it starts)");
	np_txn_free(&txn);
	return EXIT_OK;
}
