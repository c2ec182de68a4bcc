#include <cjson/cJSON.h>
#include <string.h>
#include <time.h>

#include "../lib/txn.h"
#include "cmd.h"
#include "table.h"

struct history_opts {
	bool json;
	const char *state_dir;
};

const struct np_option history_options[] = {
	NP_OPT_BOOL('j', "json", struct history_opts, json, "print JSON instead of a table"),
	NP_OPT_STRING(0, "state-dir", struct history_opts, state_dir, "DIR",
		      "where the transactions are (default /var/lib/numaplace, under --root)", "dir"),
	NP_OPT_END,
};

int cmd_history(int argc, char **argv, struct np_ctx *ctx)
{
	const struct np_command *self = np_command_find("history");
	struct history_opts ho = { 0 };
	int first, rc = np_parse_options(self, argc, argv, &ho, &first);
	if (rc != NP_PARSED)
		return rc;
	if (first < argc)
		return np_usage_error(self, "unexpected argument '%s'", argv[first]);
	struct np_txn_opts topts = { .state_dir = ho.state_dir };
	bool json = ho.json;

	struct np_txn *txns;
	size_t n;
	if (np_txn_list(ctx, &topts, &txns, &n))
		return np_error("%s", ctx->err);
	rc = EXIT_OK;
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
