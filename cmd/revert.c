/* SPDX-License-Identifier: GPL-2.0-or-later */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "base/quote.h"
#include "change/txn.h"
#include "render/render.h"

struct revert_opts {
	bool force, dry_run, no_wait, json, pretty, session;
	const char *state_dir;
};

const struct np_option revert_options[] = {
	NP_OPT_BOOL('f', "force", struct revert_opts, force, "restore even values that someone changed since the apply"),
	NP_OPT_BOOL_OLD('n', "dry-run", struct revert_opts, dry_run,
		    "print what would be restored and write nothing (no lock taken)"),
	NP_OPT_BOOL(0, "session", struct revert_opts, session,
		    "revert every transaction of ID's hold session (default: the latest's), newest first"),
	NP_OPT_STRING(0, "state-dir", struct revert_opts, state_dir, "DIR",
		      "where the transactions are (default /var/lib/numaplace, under --root)", "dir"),
	NP_OPT_NO_WAIT(struct revert_opts, no_wait),
	NP_OPT_JSON(struct revert_opts, json, "print JSON: {\"reverted\": true|false, \"transaction\": ID, \"changes\": [...]}"),
	NP_OPT_PRETTY(struct revert_opts, pretty),
	NP_OPT_END,
};

/* A whole file (irqbalance's configuration) is no line to show: what changed in it is. */
static bool is_text(const struct np_change *c)
{
	return np_attrs[c->attr].value == NP_VALUE_TEXT;
}

static bool is_thread(const struct np_change *c)
{
	return c->attr == NP_ATTR_THREAD_AFFINITY || c->attr == NP_ATTR_PROCESS_AFFINITY;
}

/* What a revert of a move's threads found. gone: exited since (or whose
 * TID a newer thread has): nothing restored there. theirs: re-pinned by
 * their application since: left. added: started after the move, found by
 * the revert. found: every thread there (gone ones not). */
struct thread_counts {
	size_t threads, found, gone, theirs, added;
};

static struct thread_counts count_threads(const struct np_txn *txn)
{
	struct thread_counts n = { 0 };
	for (size_t i = 0; i < txn->nchanges; i++) {
		const struct np_change *c = &txn->changes[i];
		n.gone += c->gone;
		if (!is_thread(c))
			continue;
		n.threads++;
		n.found += !c->gone;
		n.theirs += c->theirs;
		n.added += c->added && !c->gone;
	}
	return n;
}

static size_t count_reset(const struct np_txn *txn)
{
	size_t n = 0;
	for (size_t i = 0; i < txn->nchanges; i++)
		n += txn->changes[i].reset;
	return n;
}

static void print_change(const struct np_change *c, bool dry_run)
{
	if (c->reset)
		printf("  %s: reset by its driver when the channels were restored: left as it set it\n", c->subject);
	else if (c->gone)
		printf("  %s: gone (exited, or its TID is another thread's now): skipped\n", c->subject);
	else if (c->theirs)
		printf("  %s: re-pinned by its application since the move: left as it is\n", c->subject);
	else if (c->added)
		printf("  %s: started after the move: %s -> %s\n", c->subject, c->new_value, c->old_value);
	else if (is_text(c))
		printf("  %s removed: %s %s\n", c->subject, c->path, dry_run ? "would be restored" : "restored");
	else
		np_print_change_line(stdout, c->attr, c->subject, c->new_value, c->old_value);
}

static void print_summary(const struct np_txn *txn, bool dry_run)
{
	struct thread_counts t = count_threads(txn);
	size_t reset = count_reset(txn), n = txn->nchanges - t.gone - t.theirs - reset;
	/* The journal's text: a profile's file name, a move's device as given. */
	char esc[512];
	const char *profile = np_escape(txn->profile, esc, sizeof(esc));
	if (dry_run)
		printf("would revert transaction %s (%s): %zu value%s to restore", txn->id, profile, n, n == 1 ? "" : "s");
	else
		printf("reverted transaction %s (%s): %zu value%s restored", txn->id, profile, n, n == 1 ? "" : "s");
	if (t.gone)
		printf(", %zu thread%s gone skipped", t.gone, t.gone == 1 ? "" : "s");
	if (reset)
		printf(", %zu reset by the driver with the channels", reset);
	puts(dry_run ? "; nothing written" : "");
	/* A move's process: what the revert found of it. */
	for (size_t i = 0; i < txn->nchanges; i++) {
		if (txn->changes[i].attr != NP_ATTR_PROCESS_AFFINITY)
			continue;
		printf("process %d: %zu thread%s found, %zu started after the move", txn->changes[i].target.pid, t.found,
		       t.found == 1 ? "" : "s", t.added);
		if (t.theirs)
			printf("; %zu re-pinned by %s application since, left as %s", t.theirs,
			       t.theirs == 1 ? "its" : "their", t.theirs == 1 ? "it is" : "they are");
		putchar('\n');
		break;
	}
	if (t.threads && strstr(txn->profile, " --memory"))
		puts("the memory that the move migrated (--memory) is not moved back");
}

/* The changes restored (or gone) and those left to their application. */
static void put_changes(cJSON *doc, const struct np_txn *txn)
{
	struct np_change *restored = calloc(txn->nchanges + 1, sizeof(*restored)),
			 *left = calloc(txn->nchanges + 1, sizeof(*left));
	size_t nr = 0, nl = 0;
	for (size_t i = 0; restored && left && i < txn->nchanges; i++) {
		if (txn->changes[i].theirs)
			left[nl++] = txn->changes[i];
		else
			restored[nr++] = txn->changes[i];
	}
	np_json_put(doc, "changes", restored && left ? np_changes_json(restored, nr) : NULL);
	np_json_put(doc, "left", restored && left ? np_changes_json(left, nl) : NULL);
	free(restored);
	free(left);
	struct thread_counts t = count_threads(txn);
	cJSON_AddNumberToObject(doc, "gone", (double)t.gone);
	cJSON_AddNumberToObject(doc, "threads_found", (double)t.found);
	cJSON_AddNumberToObject(doc, "threads_started_since", (double)t.added);
}

/* The plan of a dry run: each change's new value is the current one the
 * revert would overwrite (np_txn_revert's dry run). */
static cJSON *plan_json(const struct np_txn *txn)
{
	cJSON *a = cJSON_CreateArray();
	for (size_t i = 0; i < txn->nchanges; i++) {
		const struct np_change *c = &txn->changes[i];
		cJSON *o = cJSON_CreateObject();
		cJSON_AddStringToObject(o, "path", c->path);
		cJSON_AddStringToObject(o, "subject", c->subject);
		cJSON_AddItemToObject(o, "current", c->gone ? cJSON_CreateNull() : cJSON_CreateString(c->new_value));
		cJSON_AddStringToObject(o, "restore", c->old_value);
		cJSON_AddBoolToObject(o, "gone", c->gone);
		cJSON_AddBoolToObject(o, "left", c->theirs);
		cJSON_AddBoolToObject(o, "started_since", c->added);
		cJSON_AddItemToArray(a, o);
	}
	return a;
}

/* A hold session: each of its transactions still applied, newest first, by
 * the same revert as one ID; stops at the first that fails. */
static int revert_session(struct np_ctx *ctx, const struct revert_opts *o, const struct np_txn_opts *topts,
			  const char *id)
{
	char **ids;
	size_t n, done = 0;
	int rc = np_txn_session(ctx, topts, id, &ids, &n);
	if (rc)
		return np_error("%s", ctx->err);
	cJSON *doc = o->json ? np_json_doc() : NULL, *list = o->json ? cJSON_CreateArray() : NULL;
	bool config = false;
	for (; done < n && !rc; done++) {
		struct np_txn txn;
		rc = np_txn_revert(ctx, topts, ids[done], o->force, &txn);
		if (rc == -ESTALE) {
			/* Not a failure: the values are already the boot's defaults. */
			if (!o->json)
				printf("%s\n", ctx->err);
			rc = 0;
			continue;
		}
		if (rc)
			break;
		for (size_t i = 0; i < txn.nchanges; i++) {
			const struct np_change *c = &txn.changes[i];
			config |= is_text(c);
			if (!o->json)
				print_change(c, false);
		}
		if (o->json) {
			cJSON *t = cJSON_CreateObject();
			cJSON_AddStringToObject(t, "transaction", txn.id);
			cJSON_AddStringToObject(t, "profile", txn.profile);
			put_changes(t, &txn);
			cJSON_AddNumberToObject(t, "reset_by_driver", (double)count_reset(&txn));
			cJSON_AddItemToArray(list, t);
		} else {
			print_summary(&txn, false);
		}
		np_txn_free(&txn);
	}
	if (rc) {
		char err[sizeof(ctx->err)];
		snprintf(err, sizeof(err), "%s", ctx->err);
		rc = np_error("%s; %zu of the session's %zu transactions reverted before it", err, done, n);
	}
	for (size_t i = 0; i < n; i++)
		free(ids[i]);
	free(ids);
	if (o->json && !rc) {
		cJSON_AddBoolToObject(doc, "reverted", true);
		cJSON_AddItemToObject(doc, "transactions", list);
		cJSON_AddBoolToObject(doc, "restart_irqbalance", config);
		return np_print_json(doc, o->pretty);
	}
	cJSON_Delete(list);
	cJSON_Delete(doc);
	if (!rc && config)
		puts("restart irqbalance if it runs: systemctl restart irqbalance (it reads IRQBALANCE_ARGS only when it starts)");
	return rc ? rc : EXIT_OK;
}

/* One transaction (ID, or the latest), or its dry run. */
static int revert_one(struct np_ctx *ctx, const struct revert_opts *o, const struct np_txn_opts *topts,
		      const char *id)
{
	struct np_txn txn;
	int rc = np_txn_revert(ctx, topts, id, o->force, &txn);
	if (rc == -ESTALE && o->json) {
		cJSON *doc = np_json_doc();
		cJSON_AddBoolToObject(doc, "reverted", false);
		cJSON_AddStringToObject(doc, "message", ctx->err);
		cJSON_AddItemToObject(doc, "changes", cJSON_CreateArray());
		return np_print_json(doc, o->pretty);
	}
	if (rc == -ESTALE) {
		/* Not a failure: the values are already the boot's defaults. */
		printf("%s\n", ctx->err);
		return EXIT_OK;
	}
	if (rc)
		return np_error("%s", ctx->err);
	bool config = false;
	for (size_t i = 0; i < txn.nchanges; i++)
		config |= is_text(&txn.changes[i]);
	if (o->json) {
		cJSON *doc = np_json_doc();
		cJSON_AddBoolToObject(doc, "reverted", !o->dry_run);
		if (o->dry_run)
			cJSON_AddBoolToObject(doc, "dry_run", true);
		cJSON_AddStringToObject(doc, "transaction", txn.id);
		cJSON_AddStringToObject(doc, "profile", txn.profile);
		if (o->dry_run) {
			np_json_put(doc, "changes", plan_json(&txn));
			cJSON_AddNumberToObject(doc, "gone", (double)count_threads(&txn).gone);
		} else {
			put_changes(doc, &txn);
		}
		cJSON_AddNumberToObject(doc, "reset_by_driver", (double)count_reset(&txn));
		cJSON_AddBoolToObject(doc, "restart_irqbalance", config);
		np_txn_free(&txn);
		return np_print_json(doc, o->pretty);
	}
	for (size_t i = 0; i < txn.nchanges; i++)
		print_change(&txn.changes[i], o->dry_run);
	print_summary(&txn, o->dry_run);
	if (config && !o->dry_run)
		puts("restart irqbalance if it runs: systemctl restart irqbalance (it reads IRQBALANCE_ARGS only when it starts)");
	np_txn_free(&txn);
	return EXIT_OK;
}

int cmd_revert(int argc, char **argv, struct np_ctx *ctx)
{
	const struct np_command *self = np_command_find("revert");
	struct revert_opts o = { 0 };
	int first, rc = np_parse_options(self, argc, argv, &o, &first);
	if (rc != NP_CONTINUE)
		return rc;
	if (argc - first > 1)
		return np_usage_error(self, "expected at most one transaction ID (see 'numaplace history')");

	if (o.session && o.dry_run)
		return np_usage_error(self, "--session and --dry-run do not go together: a dry run shows one "
				      "transaction against the values of now");
	struct np_txn_opts topts = { .state_dir = o.state_dir, .wait_for_lock = !o.no_wait, .dry_run = o.dry_run };
	/* A terminating signal stops the writes, which are then undone (the
	 * transaction stays as it was); it acts once the revert has said so. */
	struct np_stop stop;
	if (!o.dry_run && np_stop_hold(&stop, NULL) == 0)
		topts.stop = &stop.stops;
	const char *id = first < argc ? argv[first] : NULL;
	rc = o.session ? revert_session(ctx, &o, &topts, id) : revert_one(ctx, &o, &topts, id);
	if (topts.stop) {
		fflush(stdout);
		np_stop_release(&stop);
	}
	return rc;
}
