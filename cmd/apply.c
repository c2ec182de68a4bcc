/* SPDX-License-Identifier: GPL-2.0-or-later */
#include <cjson/cJSON.h>
#include <errno.h>
#include <limits.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "read/conffile.h"
#include "change/pipeline.h"
#include "read/sysfs.h"
#include "cmd.h"
#include "render/render.h"

struct apply_opts {
	bool dry, json, pretty, no_wait, boot;
	struct np_dirlist dirs;
	const char *state_dir;
	enum np_irqb_mode irqbalance;
};

const struct np_option apply_options[] = {
	NP_OPT_BOOL_OLD('n', "dry-run", struct apply_opts, dry, "print the plan (file, current, new) and write nothing"),
	NP_OPT_JSON(struct apply_opts, json, "print JSON: {\"changed\": true|false, \"transaction\": ID, \"changes\": [...]}"),
	NP_OPT_PRETTY(struct apply_opts, pretty),
	NP_OPT_CALLBACK(0, "profile-dir", struct apply_opts, dirs, struct np_dirlist, "DIR",
			"look for profiles in DIR first (repeatable)", "dir", np_opt_dir),
	NP_OPT_STRING(0, "state-dir", struct apply_opts, state_dir, "DIR",
		      "keep transactions in DIR (default /var/lib/numaplace, under --root)", "dir"),
	NP_OPT_NO_WAIT(struct apply_opts, no_wait),
	/* The default is ban, when irqbalance runs or its configuration file
	 * exists (installed; at boot numaplace runs before it starts): an apply
	 * whose IRQ placement irqbalance undoes within 10 s has not applied the
	 * profile, and a warning is not enough when nobody reads the output (at
	 * boot). The ban is as safe as the rest: only the IRQs the profile places,
	 * marked, journaled and undone by revert. warn is for machines whose /etc
	 * belongs to configuration management. */
	NP_OPT_CALLBACK(0, "irqbalance", struct apply_opts, irqbalance, enum np_irqb_mode, "MODE",
			"ban the IRQs placed in irqbalance's configuration file"
			" (default if irqbalance runs or is installed), warn, or ignore", "irqbalance", np_opt_irqbalance),
	NP_OPT_BOOL(0, "boot", struct apply_opts, boot,
		    "apply " NP_BOOT_PROFILE " ('numaplace enable'), waiting 30 s at most for the lock"),
	NP_OPT_END,
};

/* The default retention after each transaction: journals of apply --boot
 * pile up at one a boot. The apply succeeded: a failure here is a warning,
 * and a lock taken since by another apply or revert is no reason to wait
 * (the next apply prunes). */
static void retain(struct np_ctx *ctx, const struct np_command *self, const struct np_txn_opts *topts)
{
	struct np_txn_opts now = *topts;
	char **ids;
	size_t n;
	now.wait_for_lock = false;
	int rc = np_txn_prune(ctx, &now, NP_TXN_KEEP, &ids, &n);
	if (rc == -EBUSY || rc == -EWOULDBLOCK)
		return;
	if (rc) {
		np_notef("%s: WARNING: old transactions were not pruned: %s\n", self->name, ctx->err);
		return;
	}
	for (size_t i = 0; i < n; i++)
		free(ids[i]);
	free(ids);
}

static void irqb_warn(const struct np_command *self, const struct np_irqban *ib)
{
	char list[256];
	np_irqban_list(list, sizeof(list), ib->irqs, ib->nirqs);
	if (ib->running)
		np_notef("%s: WARNING: irqbalance is running and will move IRQ%s %s within about 10 s, "
			"undoing this placement\n", self->name, ib->nirqs == 1 ? "" : "s", list);
	else
		np_notef("%s: WARNING: irqbalance is installed and, once it runs, will move IRQ%s %s "
			"within about 10 s, undoing this placement\n", self->name, ib->nirqs == 1 ? "" : "s", list);
	np_notef("%s: WARNING: ban them (--irqbalance=ban, or --banirq=N in %s of %s, then "
		"'systemctl restart irqbalance'), or stop irqbalance\n", self->name, ib->conf.var, ib->conf.path);
}

/* What the JSON output says about irqbalance. */
static void irqb_json(cJSON *doc, const struct np_irqban *ib, bool done)
{
	cJSON *o = np_irqbalance_json(ib->running, ib->known, NULL), *a;
	const char *action = ib->ban ? (done ? "banned" : "ban") : ib->banned ? "banned_already"
			   : ib->warn ? "warned" : "none";
	cJSON_AddStringToObject(o, "action", action);
	a = cJSON_AddArrayToObject(o, "irqs");
	for (size_t i = 0; i < ib->nirqs; i++)
		cJSON_AddItemToArray(a, cJSON_CreateNumber(ib->irqs[i]));
	a = cJSON_AddArrayToObject(o, "added");
	for (size_t i = 0; i < ib->nadded; i++)
		cJSON_AddItemToArray(a, cJSON_CreateNumber(ib->added[i]));
	cJSON_AddBoolToObject(o, "restart", done && ib->ban && ib->running);
	if (ib->conf.path[0]) {
		cJSON_AddStringToObject(o, "file", ib->conf.path);
		cJSON_AddStringToObject(o, "method", "banirq");
	}
	np_json_put(doc, "irqbalance", o);
}

/* The lines after the plan or the changes, on stdout. */
static void irqb_print(const struct np_irqban *ib, bool done)
{
	char list[256];
	if (ib->ban && !done) {
		printf("irqbalance: would add %s to %s (%s)\n", ib->change.subject + strlen("irqbalance: "),
		       ib->conf.path, ib->conf.from);
	} else if (ib->ban) {
		if (ib->running)
			printf("restart irqbalance: systemctl restart irqbalance (it reads %s only when it starts)\n",
			       ib->conf.var);
		else
			puts("irqbalance is not running: it reads the bans when it starts");
	} else if (ib->banned) {
		printf("irqbalance: IRQ%s %s banned already in %s\n", ib->nirqs == 1 ? "" : "s",
		       np_irqban_list(list, sizeof(list), ib->irqs, ib->nirqs), ib->conf.path);
	}
}

/* A row of the dry run: a change and the value the file holds now. */
struct planned {
	const struct np_change *c;
	const char *current;
	bool change;
};

#define PLANNED(row) ((const struct planned *)(row))

static int get_path(const void *data, const void *row, struct np_value *v)
{
	(void)data;
	return np_val_str(v, PLANNED(row)->c->path);
}

static int get_subject(const void *data, const void *row, struct np_value *v)
{
	(void)data;
	return np_val_str(v, PLANNED(row)->c->subject);
}

static int get_current(const void *data, const void *row, struct np_value *v)
{
	(void)data;
	return np_val_change_value(v, np_attrs[PLANNED(row)->c->attr].value, PLANNED(row)->current);
}

static int get_new(const void *data, const void *row, struct np_value *v)
{
	(void)data;
	return np_val_change_value(v, np_attrs[PLANNED(row)->c->attr].value, PLANNED(row)->c->new_value);
}

static int get_change(const void *data, const void *row, struct np_value *v)
{
	(void)data;
	return np_val_bool(v, PLANNED(row)->change);
}

static const struct np_column plan_columns[] = {
	NP_COLUMN("path", "FILE", 1, NP_FL_GIVE(1), "the file", get_path),
	NP_COLUMN("subject", "SUBJECT", 1, NP_FL_KEY, "what the value is for", get_subject),
	NP_COLUMN("current", "CURRENT", 1, 0, "its value now", get_current),
	NP_COLUMN("new", "NEW", 1, 0, "the profile's value", get_new),
	NP_COLUMN("change", "CHANGE", 3, 0, "whether the apply would write it", get_change),
	NP_COLUMN_END,
};

/* What the apply would meet in the state directory first: an unfinished
 * transaction of this profile, which it would roll back (into *plan), or
 * one it would refuse (an error, as the apply would fail: the readiness
 * check of the DaemonSet's entry script and hold agree so). */
static int recovery_plan(struct np_ctx *ctx, const struct np_txn_opts *topts, const char *profile,
			 struct np_txn *plan)
{
	struct np_txn_opts o = *topts;
	o.dry_run = true;
	int rc = np_txn_recover(ctx, &o, profile, plan);
	return rc ? np_error("%s", ctx->err) : EXIT_OK;
}

static int dry_run(struct np_ctx *ctx, const struct np_resolved *res, const struct np_irqban *ib,
		   const struct np_txn *recover, bool json, bool pretty)
{
	char line[512];
	struct np_table t;
	int rc = np_table_init(&t, np_command_find("apply"), plan_columns, "path,subject,current,new,change", NULL, json,
			       NULL);
	if (rc != NP_CONTINUE)
		return rc;
	rc = EXIT_OK;
	size_t changing = 0;
	for (size_t i = 0; rc == EXIT_OK && i < res->n; i++) {
		const struct np_change *c = &res->changes[i];
		char *cur = NULL;
		/* A value that is no file (a thread's affinity) is read its own way. */
		const struct np_attr_access *access = np_attr_access_of(c->path);
		if (access ? access->read(ctx, c->path, &cur) : np_read_text(ctx, &cur, "%s", c->path)) {
			rc = np_error("%s", ctx->err);
			break;
		}
		enum np_value_kind kind = np_attrs[c->attr].value;
		char *a_norm = np_value_normalize(kind, cur), *b_norm = np_value_normalize(kind, c->new_value);
		struct planned row = { c, cur, !(a_norm && b_norm && !strcmp(a_norm, b_norm)) };
		changing += row.change;
		rc = np_table_add(&t, &row);
		free(a_norm);
		free(b_norm);
		free(cur);
	}
	if (rc == EXIT_OK && json) {
		cJSON *doc = np_json_doc();
		cJSON_AddBoolToObject(doc, "changed", false);
		cJSON_AddBoolToObject(doc, "dry_run", true);
		cJSON_AddNumberToObject(doc, "would_change", (double)changing);
		np_json_put(doc, "changes", np_table_take_json(&t));
		irqb_json(doc, ib, false);
		cJSON_AddItemToObject(doc, "recover", recover->id ? cJSON_CreateString(recover->id) : cJSON_CreateNull());
		rc = np_print_json(doc, pretty);
	} else if (rc == EXIT_OK) {
		if (recover->id)
			printf("%s\n", np_recovered_line(recover, true, line, sizeof(line)));
		printf("dry run: %zu of %zu values would change; nothing written\n\n", changing, res->n);
		rc = np_table_print(&t, stdout);
		irqb_print(ib, false);
	}
	np_table_free(&t);
	return rc;
}

static int report_applied(const struct np_txn *txn, const struct np_txn *recovered, const struct np_irqban *ib,
			  bool json, bool pretty)
{
	if (json) {
		cJSON *doc = np_json_doc();
		cJSON_AddBoolToObject(doc, "changed", txn->nchanges > 0);
		cJSON_AddItemToObject(doc, "transaction", txn->nchanges ? cJSON_CreateString(txn->id) : cJSON_CreateNull());
		cJSON_AddItemToObject(doc, "recovered", recovered->id ? cJSON_CreateString(recovered->id) : cJSON_CreateNull());
		np_json_put(doc, "changes", np_changes_json(txn->changes, txn->nchanges));
		irqb_json(doc, ib, true);
		return np_print_json(doc, pretty);
	}
	if (txn->nchanges == 0) {
		puts("already applied: nothing to change");
		irqb_print(ib, true);
		return EXIT_OK;
	}
	for (size_t i = 0; i < txn->nchanges; i++) {
		const struct np_change *c = &txn->changes[i];
		/* A whole file is no line to show: say what changed in it. */
		if (np_attrs[c->attr].value == NP_VALUE_TEXT)
			printf("  %s added to %s\n", c->subject, c->path);
		else
			np_print_change_line(stdout, c->attr, c->subject, c->old_value, c->new_value);
	}
	printf("applied %zu change%s (transaction %s); undo with 'numaplace revert %s'\n", txn->nchanges,
	       txn->nchanges == 1 ? "" : "s", txn->id, txn->id);
	irqb_print(ib, true);
	return EXIT_OK;
}

int cmd_apply(int argc, char **argv, struct np_ctx *ctx)
{
	const struct np_command *self = np_command_find("apply");
	struct apply_opts o = { 0 };
	int first, rc = np_parse_options(self, argc, argv, &o, &first);
	if (rc == NP_CONTINUE && o.boot && argc - first != 0)
		rc = np_usage_error(self, "--boot applies " NP_BOOT_PROFILE " and takes no PROFILE");
	else if (rc == NP_CONTINUE && !o.boot && argc - first != 1)
		rc = np_usage_error(self, "expected one PROFILE (a name or a file)");
	if (rc != NP_CONTINUE) {
		np_dirs_free(&o.dirs);
		return rc;
	}
	struct np_dirlist dirs = o.dirs;
	struct np_txn_opts topts = { .state_dir = o.state_dir, .wait_for_lock = !o.no_wait, .recover = true };
	enum np_irqb_mode mode = o.irqbalance;
	bool json = o.json, dry = o.dry, boot = o.boot;

	char bootpath[PATH_MAX];
	const char *name = boot ? bootpath : argv[first];
	if (boot) {
		if (np_sysfs_path(ctx, bootpath, "%s", NP_BOOT_PROFILE)) {
			np_dirs_free(&dirs);
			return np_error("%s", ctx->err);
		}
		/* Not a failure: the unit's condition normally keeps it from running. */
		if (access(bootpath, F_OK) < 0 && errno == ENOENT) {
			np_dirs_free(&dirs);
			puts("no boot profile enabled");
			return EXIT_OK;
		}
		if (topts.wait_for_lock)
			topts.lock_timeout = NP_BOOT_LOCK_TIMEOUT;
	}

	struct np_machine m;
	struct np_profile prof;
	struct np_pipeline p = { 0 };
	rc = np_load_resolved(ctx, self, &dirs, name, &m, &prof, &p.res);
	if (rc != EXIT_OK)
		return rc;
	p.prof = &prof;
	if (boot && !json)
		printf("boot profile %s (%s)\n", prof.name, bootpath);
	if (np_pipeline_decide(ctx, &p, NULL, 0, m.irqbalance, mode))
		rc = np_error("%s", ctx->err);
	else if (p.ban.note[0])
		np_notef("%s: %s\n", self->name, p.ban.note);
	p.ban.known = m.irqbalance_known;
	/* The document lists the warnings said before it is printed. */
	bool warned = rc == EXIT_OK && json && p.ban.warn;
	if (warned)
		irqb_warn(self, &p.ban);
	struct np_stop stop;
	bool stopping = rc == EXIT_OK && !dry && np_stop_hold(&stop, NULL) == 0;
	if (rc == EXIT_OK && dry) {
		struct np_txn plan = { 0 };
		rc = recovery_plan(ctx, &topts, prof.name, &plan);
		if (rc == EXIT_OK)
			rc = dry_run(ctx, &p.res, &p.ban, &plan, json, o.pretty);
		np_txn_free(&plan);
	} else if (rc == EXIT_OK) {
		char line[512];
		/* From here a terminating signal stops the writes, which are
		 * then undone; it acts once the apply has said so. */
		topts.stop = stopping ? &stop.stops : NULL;
		int wrc = np_pipeline_write(ctx, &p, &topts, prof.name, NP_PIPELINE_ALL);
		if (p.recovered.id)
			np_notef("%s: %s\n", self->name, np_recovered_line(&p.recovered, false, line, sizeof(line)));
		if (wrc) {
			rc = np_error("%s", ctx->err);
		} else {
			if (p.txn.nchanges)
				retain(ctx, self, &topts);
			rc = report_applied(&p.txn, &p.recovered, &p.ban, json, o.pretty);
		}
	}
	if (rc == EXIT_OK && p.ban.warn && !warned)
		irqb_warn(self, &p.ban);
	if (stopping) {
		fflush(stdout);
		np_stop_release(&stop);
	}
	np_pipeline_free(&p);
	np_profile_free(&prof);
	np_machine_free(&m);
	return rc;
}
