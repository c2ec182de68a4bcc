#include <cjson/cJSON.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "../lib/txn.h"
#include "cmd.h"
#include "table.h"

const struct np_option history_options[] = {
	{ "json", 'j', NULL, "print JSON instead of a table", NULL },
	{ "state-dir", 0, "DIR", "where the transactions are (default /var/lib/numaplace, under --root)", "dir" },
	{ "prune", 0, NULL, "remove the journals of old transactions that a revert no longer needs", NULL },
	{ "keep", 0, "N", "with --prune, keep the newest N transactions (default 50)", NULL },
	{ NULL, 0, NULL, NULL, NULL },
};

static int prune(struct np_ctx *ctx, const struct np_txn_opts *topts, size_t keep, bool json)
{
	char **ids;
	size_t n;
	if (np_txn_prune(ctx, topts, keep, &ids, &n))
		return np_error("%s", ctx->err);
	int rc = EXIT_OK;
	if (json) {
		cJSON *doc = cJSON_CreateObject(), *a = cJSON_AddArrayToObject(doc, "pruned");
		for (size_t i = 0; i < n; i++)
			cJSON_AddItemToArray(a, cJSON_CreateString(ids[i]));
		cJSON_AddNumberToObject(doc, "keep", (double)keep);
		rc = np_print_json(doc);
	} else {
		for (size_t i = 0; i < n; i++)
			printf("removed transaction %s\n", ids[i]);
		printf("pruned %zu transaction%s (kept the newest %zu, and every one still applied this boot or pending)\n",
		       n, n == 1 ? "" : "s", keep);
	}
	for (size_t i = 0; i < n; i++)
		free(ids[i]);
	free(ids);
	return rc;
}

int cmd_history(int argc, char **argv, struct np_ctx *ctx)
{
	const struct np_command *self = np_command_find("history");
	struct np_optparse st = { 0 };
	struct np_txn_opts topts = { 0 };
	const char *arg;
	bool json = false, pruning = false;
	const char *keep_arg = NULL;
	size_t keep = NP_TXN_KEEP;
	int opt;
	while ((opt = np_opt_next(&st, self, argc, argv, &arg)) >= 0) {
		const char *name = self->options[opt].name;
		if (!strcmp(name, "json"))
			json = true;
		else if (!strcmp(name, "prune"))
			pruning = true;
		else if (!strcmp(name, "keep"))
			keep_arg = arg;
		else
			topts.state_dir = arg;
	}
	if (opt != NP_OPT_END)
		return opt == NP_OPT_HELP ? EXIT_OK : EXIT_USAGE;
	if (st.index < argc)
		return np_usage_error(self, "unexpected argument '%s'", argv[st.index]);
	if (keep_arg) {
		char *end;
		unsigned long k = strtoul(keep_arg, &end, 10);
		if (!pruning)
			return np_usage_error(self, "--keep goes with --prune");
		if (*keep_arg < '0' || *keep_arg > '9' || *end || k > 1000000)
			return np_usage_error(self, "--keep: '%s' is not a number of transactions (0 to 1000000)", keep_arg);
		keep = k;
	}
	if (pruning) {
		topts.wait_for_lock = true;
		return prune(ctx, &topts, keep, json);
	}

	struct np_txn *txns;
	size_t n;
	if (np_txn_list(ctx, &topts, &txns, &n))
		return np_error("%s", ctx->err);
	int rc = EXIT_OK;
	if (json) {
		cJSON *a = cJSON_CreateArray();
		for (size_t i = 0; i < n; i++) {
			cJSON *o = cJSON_CreateObject();
			cJSON_AddStringToObject(o, "id", txns[i].id);
			cJSON_AddNumberToObject(o, "time", (double)txns[i].time);
			cJSON_AddStringToObject(o, "profile", txns[i].profile);
			cJSON_AddStringToObject(o, "state", np_txn_state_name(txns[i].state));
			cJSON_AddNumberToObject(o, "changes", (double)txns[i].nchanges);
			cJSON_AddItemToArray(a, o);
		}
		cJSON *doc = cJSON_CreateObject();
		cJSON_AddItemToObject(doc, "transactions", a);
		rc = np_print_json(doc);
	} else if (n == 0) {
		puts("no transactions");
	} else {
		static const char *const head[] = { "ID", "TIME", "PROFILE", "STATE", ">CHANGES", NULL };
		struct np_table *t = np_table_new(head);
		for (size_t i = 0; i < n; i++) {
			char when[32];
			time_t tt = (time_t)txns[i].time;
			strftime(when, sizeof(when), "%Y-%m-%d %H:%M:%S", localtime(&tt));
			np_table_cell(t, "%s", txns[i].id);
			np_table_cell(t, "%s", when);
			np_table_cell(t, "%s", txns[i].profile);
			np_table_cell(t, "%s", np_txn_state_name(txns[i].state));
			np_table_cell(t, "%zu", txns[i].nchanges);
		}
		np_table_print(t, stdout);
		np_table_free(t);
	}
	np_txns_free(txns, n);
	return rc;
}
