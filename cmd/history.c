/* SPDX-License-Identifier: GPL-2.0-or-later */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "change/trial-outputs.h"
#include "change/txn.h"
#include "render/render.h"

struct history_opts {
	bool json, pretty, prune;
	int keep; /* -1: not given */
	const char *state_dir;
	struct np_table_opts table;
};

const struct np_option history_options[] = {
	NP_OPT_JSON(struct history_opts, json, "print JSON instead of a table"),
	NP_OPT_PRETTY(struct history_opts, pretty),
	NP_OPT_STRING(0, "state-dir", struct history_opts, state_dir, "DIR",
		      "where the transactions are (default /var/lib/numaplace, under --root)", "dir"),
	NP_OPT_TABLE(struct history_opts, table),
	NP_OPT_SORT(struct history_opts, table),
	NP_OPT_BOOL(0, "prune", struct history_opts, prune,
		    "remove the journals of old transactions that a revert no longer needs,\n"
		    "and the outputs of old trials"),
	NP_OPT_CALLBACK(0, "keep", struct history_opts, keep, int, "N",
			"with --prune, keep the newest N transactions and N trials' outputs (default 50)", NULL,
			np_opt_int),
	NP_OPT_END,
};

static void ids_free(char **ids, size_t n)
{
	for (size_t i = 0; i < n; i++)
		free(ids[i]);
	free(ids);
}

static cJSON *ids_json(char **ids, size_t n)
{
	cJSON *a = cJSON_CreateArray();
	for (size_t i = 0; i < n; i++)
		cJSON_AddItemToArray(a, cJSON_CreateString(ids[i]));
	return a;
}

/* The old journals, then the old trials' outputs (trial.h's trials/ID). */
static int prune(struct np_ctx *ctx, const struct np_txn_opts *topts, size_t keep, bool json, bool pretty)
{
	char **ids, **trials;
	size_t n, ntrials;
	if (np_txn_prune(ctx, topts, keep, &ids, &n))
		return np_error("%s", ctx->err);
	if (np_trial_dirs_prune(ctx, topts->state_dir, keep, &trials, &ntrials)) {
		char err[sizeof(ctx->err)];
		snprintf(err, sizeof(err), "%s", ctx->err);
		ids_free(ids, n);
		return np_error("%s (%zu transaction%s pruned before it)", err, n, n == 1 ? "" : "s");
	}
	int rc = EXIT_OK;
	if (json) {
		cJSON *doc = np_json_doc();
		np_json_put(doc, "pruned", ids_json(ids, n));
		np_json_put(doc, "pruned_trials", ids_json(trials, ntrials));
		cJSON_AddNumberToObject(doc, "keep", (double)keep);
		rc = np_print_json(doc, pretty);
	} else {
		for (size_t i = 0; i < n; i++)
			printf("removed transaction %s\n", ids[i]);
		for (size_t i = 0; i < ntrials; i++)
			printf("removed the outputs of trial %s\n", trials[i]);
		printf("pruned %zu transaction%s (kept the newest %zu, and every one still applied this boot or pending)",
		       n, n == 1 ? "" : "s", keep);
		printf(" and %zu trial%s' outputs (kept the newest %zu, and any trial's that runs)\n", ntrials,
		       ntrials == 1 ? "" : "s", keep);
	}
	ids_free(ids, n);
	ids_free(trials, ntrials);
	return rc;
}

#define TXN(row) ((const struct np_txn *)(row))

static int get_id(const void *data, const void *row, struct np_value *v)
{
	(void)data;
	return np_val_str(v, TXN(row)->id);
}

static int get_time(const void *data, const void *row, struct np_value *v)
{
	(void)data;
	return np_val_time(v, TXN(row)->time);
}

static int get_profile(const void *data, const void *row, struct np_value *v)
{
	(void)data;
	return np_val_str(v, TXN(row)->profile);
}

static int get_cause(const void *data, const void *row, struct np_value *v)
{
	(void)data;
	return np_val_str(v, TXN(row)->cause);
}

/* All the transactions listed: a row's session is found among them. */
struct listed {
	const struct np_txn *txns;
	size_t n;
};

/* The hold session a transaction belongs to: the id of the hold's first
 * apply, which each re-apply names (and 'revert --session' takes); that
 * first apply shows its own id once a re-apply names it. Null for the
 * others: an apply, a trial's step. */
static int get_session(const void *data, const void *row, struct np_value *v)
{
	const struct listed *all = data;
	if (TXN(row)->session)
		return np_val_str(v, TXN(row)->session);
	for (size_t i = 0; i < all->n; i++)
		if (all->txns[i].session && !strcmp(all->txns[i].session, TXN(row)->id))
			return np_val_str(v, TXN(row)->id);
	return np_val_str(v, NULL);
}

static int get_trial(const void *data, const void *row, struct np_value *v)
{
	(void)data;
	return np_val_str(v, TXN(row)->trial);
}

static int get_state(const void *data, const void *row, struct np_value *v)
{
	(void)data;
	return np_val_str(v, np_txn_state_name(TXN(row)->state));
}

static int get_changes(const void *data, const void *row, struct np_value *v)
{
	(void)data;
	return np_val_int(v, (long long)TXN(row)->nchanges);
}

/* Why a journal could not be read (null for the others): the text output
 * says it on stderr, JSON in the row, where a program looks for it. */
static int get_error(const void *data, const void *row, struct np_value *v)
{
	(void)data;
	return np_val_str(v, TXN(row)->unreadable);
}

static const struct np_column history_columns[] = {
	NP_COLUMN("id", "ID", 20, NP_FL_KEY, "the transaction (for 'numaplace revert ID')", get_id),
	NP_COLUMN("time", "TIME", 19, 0, "when it was applied (seconds since the epoch in JSON)", get_time),
	NP_COLUMN("profile", "PROFILE", 1, 0, "the profile applied", get_profile),
	NP_COLUMN("state", "STATE", 11, 0, "pending, applied, rolled_back, reverted, stale or unreadable", get_state),
	NP_COLUMN("changes", "CHANGES", 4, SCOLS_FL_RIGHT | NP_FL_DESCENDING, "the values it changed", get_changes),
	NP_COLUMN("session", "SESSION", 20, 0,
		  "the hold session: the id of the hold's first apply ('numaplace revert --session ID'); null for the "
		  "others", get_session),
	NP_COLUMN("cause", "CAUSE", 0.2, SCOLS_FL_WRAP,
		  "what made it: hold's event or check, a trial's step; null for apply", get_cause),
	NP_COLUMN("trial", "TRIAL", 0.3, SCOLS_FL_WRAP, "the evidence of the trial that kept it (numaplace trial)",
		  get_trial),
	NP_COLUMN("error", "ERROR", 0.3, SCOLS_FL_WRAP, "why an unreadable journal could not be read", get_error),
	NP_COLUMN_END,
};

/* history ID: the transaction's line (every column) and its values, before
 * and after; in JSON the row's keys, "changes" the values instead of their
 * number: a name twice in one object is read differently by each reader
 * (RFC 8259, 4). */
static int show_one(struct np_table *t, const struct listed *all, const char *id, const struct history_opts *o)
{
	const struct np_txn *txn = NULL;
	for (size_t i = 0; i < all->n && !txn; i++)
		if (!strcmp(all->txns[i].id, id))
			txn = &all->txns[i];
	if (!txn)
		return np_error("no transaction '%s' ('numaplace history' lists them)", id);
	int rc = np_table_add(t, txn);
	if (rc == EXIT_OK && o->json) {
		cJSON *doc = np_json_doc(), *rows = np_table_take_json(t);
		cJSON *row = rows ? cJSON_DetachItemFromArray(rows, 0) : NULL;
		cJSON_Delete(rows);
		if (row)
			cJSON_DeleteItemFromObjectCaseSensitive(row, "changes");
		np_json_put(row, "changes", np_changes_json(txn->changes, txn->nchanges));
		np_json_put(doc, "transaction", row);
		return np_print_json(doc, o->pretty);
	}
	if (rc == EXIT_OK)
		rc = np_table_print(t, stdout);
	if (rc != EXIT_OK || !txn->nchanges)
		return rc;
	struct np_table ct;
	if ((rc = np_table_init(&ct, np_command_find("history"), np_change_columns, "subject,old,new,path", NULL, false,
				NULL)) != NP_CONTINUE)
		return rc;
	rc = EXIT_OK;
	putchar('\n');
	for (size_t i = 0; rc == EXIT_OK && i < txn->nchanges; i++)
		rc = np_table_add(&ct, &txn->changes[i]);
	if (rc == EXIT_OK)
		rc = np_table_print(&ct, stdout);
	np_table_free(&ct);
	return rc;
}

int cmd_history(int argc, char **argv, struct np_ctx *ctx)
{
	const struct np_command *self = np_command_find("history");
	struct history_opts o = { .keep = -1 };
	int first, rc = np_parse_options(self, argc, argv, &o, &first);
	if (rc != NP_CONTINUE)
		return rc;
	if (first + 1 < argc)
		return np_usage_error(self, "unexpected argument '%s' (one ID at most)", argv[first + 1]);
	const char *id = first < argc ? argv[first] : NULL;
	if (id && o.prune)
		return np_usage_error(self, "--prune takes no ID");
	if (o.keep >= 0 && !o.prune)
		return np_usage_error(self, "--keep goes with --prune");
	if (o.prune) {
		struct np_txn_opts popts = { .state_dir = o.state_dir, .wait_for_lock = true };
		return prune(ctx, &popts, o.keep >= 0 ? (size_t)o.keep : NP_TXN_KEEP, o.json, o.pretty);
	}
	struct np_txn_opts topts = { .state_dir = o.state_dir };
	struct np_txn *txns;
	size_t n;
	struct listed all;
	struct np_table t;
	/* -o help needs no state directory: the table first. */
	if ((rc = np_table_init(&t, self, history_columns, "id,time,profile,state,changes,session,cause", &o.table,
				o.json, &all)) != NP_CONTINUE)
		return rc;
	if (np_txn_list(ctx, &topts, &txns, &n)) {
		np_table_free(&t);
		return np_error("%s", ctx->err);
	}
	all = (struct listed){ txns, n };
	if (id) {
		rc = show_one(&t, &all, id, &o);
		np_table_free(&t);
		np_txns_free(txns, n);
		return rc;
	}
	const void **rows = calloc(n + 1, sizeof(*rows));
	rc = rows ? EXIT_OK : np_error("%s", strerror(ENOMEM));
	for (size_t i = 0; rc == EXIT_OK && i < n; i++)
		rows[i] = &txns[i];
	if (rc == EXIT_OK)
		rc = np_table_sort(&t, rows, n);
	for (size_t i = 0; rc == EXIT_OK && i < n; i++)
		rc = np_table_add(&t, rows[i]);
	free(rows);
	if (rc == EXIT_OK && o.json) {
		cJSON *doc = np_json_doc();
		np_json_put(doc, "transactions", np_table_take_json(&t));
		rc = np_print_json(doc, o.pretty);
	} else if (rc == EXIT_OK && n == 0) {
		puts("no transactions");
	} else if (rc == EXIT_OK) {
		rc = np_table_print(&t, stdout);
	}
	np_table_free(&t);
	for (size_t i = 0; i < n; i++) {
		char *text;
		if (txns[i].unreadable && asprintf(&text, "transaction %s is unreadable: %s", txns[i].id,
						   txns[i].unreadable) >= 0) {
			np_say("history", text);
			free(text);
		}
	}
	np_txns_free(txns, n);
	return rc;
}
