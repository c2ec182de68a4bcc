/* SPDX-License-Identifier: GPL-2.0-or-later */
/* numaplace trial's outcome: the per-pair statistics (lib/judge/trial-stats), the
 * verdict and, when it is keep, the transaction that keeps the profile;
 * then the runs' table or JSON document and trial.json beside the runs'
 * outputs. The runs themselves are trial.c's. */
#include <cjson/cJSON.h>
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "judge/trial-stats.h"
#include "change/txn.h"
#include "render/output.h"
#include "trial.h"

#define WANT_LEVEL 0.95
/* What --require-keep exits with when the verdict is not keep. */
#define EXIT_NOT_KEPT 4

const char *const trial_arm_names[] = { "baseline", "profile" };

/* The median of the counted values of arm so far; NAN when none. */
double trial_arm_median(const struct trial *t, enum arm arm)
{
	double *v = malloc(t->nruns * sizeof(*v));
	size_t n = 0;
	for (size_t i = 0; v && i < t->nruns; i++)
		if (t->runs[i].ok && !t->runs[i].warmup && t->runs[i].arm == arm)
			v[n++] = t->runs[i].value;
	double m = n ? np_trial_median(v, n) : NAN;
	free(v);
	return m;
}


/* The per-pair log-ratios profile/baseline of the pairs whose both runs
 * have a value. */
static size_t log_ratios(const struct trial *t, double *d)
{
	size_t n = 0, pairs = (size_t)t->o->pairs;
	for (size_t p = 0; p < pairs; p++) {
		const struct run *arm[2] = { NULL, NULL };
		for (size_t i = 0; i < t->nruns; i++)
			if (!t->runs[i].warmup && t->runs[i].pair == p && t->runs[i].ok)
				arm[t->runs[i].arm] = &t->runs[i];
		if (arm[ARM_BASELINE] && arm[ARM_PROFILE])
			d[n++] = log(arm[ARM_PROFILE]->value / arm[ARM_BASELINE]->value);
	}
	return n;
}

#define RUN(row) ((const struct run *)(row))

static int get_number(const void *data, const void *row, struct np_value *v)
{
	(void)data;
	return np_val_int(v, (long long)RUN(row)->number);
}

static int get_arm(const void *data, const void *row, struct np_value *v)
{
	(void)data;
	return np_val_str(v, trial_arm_names[RUN(row)->arm]);
}

static int get_warmup(const void *data, const void *row, struct np_value *v)
{
	(void)data;
	return np_val_bool(v, RUN(row)->warmup);
}

static int get_value(const void *data, const void *row, struct np_value *v)
{
	(void)data;
	return RUN(row)->ok ? np_val_number(v, RUN(row)->value) : np_val_null(v);
}

static int get_status(const void *data, const void *row, struct np_value *v)
{
	(void)data;
	if (RUN(row)->timed_out)
		return np_val_str(v, "timeout");
	return np_val_int(v, RUN(row)->status);
}

static int get_seconds(const void *data, const void *row, struct np_value *v)
{
	(void)data;
	return np_val_number(v, round(RUN(row)->seconds * 1000) / 1000);
}

/* Null when it could not be written (a full filesystem). */
static int get_output(const void *data, const void *row, struct np_value *v)
{
	(void)data;
	return np_val_str(v, RUN(row)->saved ? RUN(row)->output : NULL);
}

const struct np_column trial_run_columns[] = {
	NP_COLUMN("run", "RUN", 3, SCOLS_FL_RIGHT | NP_FL_KEY, "its number, warm-ups first", get_number),
	NP_COLUMN("arm", "ARM", 8, 0, "baseline (the machine as it was) or profile (applied)", get_arm),
	NP_COLUMN("warmup", "WARMUP", 3, 0, "a warm-up run, not counted", get_warmup),
	NP_COLUMN("value", "VALUE", 10, SCOLS_FL_RIGHT, "the metric (--metric), or the wall time in seconds", get_value),
	NP_COLUMN("status", "STATUS", 7, SCOLS_FL_RIGHT, "CMD's exit status (128 + N: killed by signal N), or timeout",
		  get_status),
	NP_COLUMN("seconds", "SECONDS", 7, SCOLS_FL_RIGHT, "its wall time", get_seconds),
	NP_COLUMN("output", "OUTPUT", 0.4, NP_FL_GIVE(1),
		  "the file holding its output (its last --keep-output KiB); null when it could not be written",
		  get_output),
	NP_COLUMN_END,
};

/* "+5.2%" for a log-ratio. */
static const char *pct(char *buf, size_t len, double log_ratio)
{
	snprintf(buf, len, "%+.1f%%", expm1(log_ratio) * 100);
	return buf;
}

struct outcome {
	struct np_trial_stats s;
	bool have_stats;
	enum np_trial_verdict verdict;
	size_t pairs_needed;
	double med[2];
	char *kept;   /* the keep transaction */
};

/* The one line of evidence a kept transaction's journal carries. */
static char *evidence(const struct trial *t, const struct outcome *oc)
{
	char a[32], b[32], c[32], *text = NULL, *cmd = NULL;
	size_t len = 0;
	FILE *f = open_memstream(&cmd, &len);
	if (!f)
		return NULL;
	for (char **p = t->cmd; *p; p++)
		fprintf(f, "%s%s", p == t->cmd ? "" : " ", *p);
	fclose(f);
	if (asprintf(&text, "trial %s: keep, %s (%.1f%% interval %s to %s), %zu pairs, medians baseline %.6g "
		     "profile %.6g (%s), seed %llu, command: %s", t->id, pct(a, sizeof(a), oc->s.estimate),
		     oc->s.level * 100, pct(b, sizeof(b), oc->s.lo), pct(c, sizeof(c), oc->s.hi), oc->s.n,
		     oc->med[ARM_BASELINE], oc->med[ARM_PROFILE],
		     t->has_re ? (t->o->lower ? "metric, lower is better" : "metric, higher is better")
			       : "wall time in seconds",
		     (unsigned long long)t->seed, cmd) < 0)
		text = NULL;
	free(cmd);
	return text;
}

/* The trial's document, runs the rows given (owned from here). */
static cJSON *trial_doc(const struct trial *t, cJSON *runs, const struct outcome *oc)
{
	cJSON *doc = np_json_doc(), *a;
	if (!doc) {
		cJSON_Delete(runs);
		return NULL;
	}
	cJSON_AddStringToObject(doc, "trial", t->id);
	cJSON_AddStringToObject(doc, "profile", t->profile_name);
	a = cJSON_AddArrayToObject(doc, "command");
	for (char **p = t->cmd; *p; p++)
		cJSON_AddItemToArray(a, cJSON_CreateString(*p));
	np_json_put(doc, "metric", np_json_str(t->o->metric));
	cJSON_AddBoolToObject(doc, "lower_is_better", t->o->lower);
	cJSON_AddNumberToObject(doc, "seed", (double)t->seed);
	cJSON_AddNumberToObject(doc, "pairs", t->o->pairs);
	cJSON_AddStringToObject(doc, "outputs", t->dir);
	np_json_put(doc, "runs", runs);
	cJSON *m = cJSON_AddObjectToObject(doc, "medians");
	for (int arm = 0; arm < 2; arm++)
		np_json_put(m, trial_arm_names[arm], isnan(oc->med[arm]) ? cJSON_CreateNull() : cJSON_CreateNumber(oc->med[arm]));
	cJSON_AddNumberToObject(doc, "pairs_counted", (double)oc->s.n);
	/* As ratios profile/baseline minus 1: 0.05 is 5% more. */
	cJSON_AddNumberToObject(doc, "estimate", expm1(oc->s.estimate));
	a = cJSON_AddArrayToObject(doc, "interval");
	cJSON_AddItemToArray(a, cJSON_CreateNumber(expm1(oc->s.lo)));
	cJSON_AddItemToArray(a, cJSON_CreateNumber(expm1(oc->s.hi)));
	cJSON_AddNumberToObject(doc, "level", oc->s.level);
	cJSON_AddNumberToObject(doc, "min_gain", expm1(t->o->min_gain));
	cJSON_AddStringToObject(doc, "verdict", np_trial_verdict_name(oc->verdict));
	np_json_put(doc, "runs_needed", oc->verdict == NP_TRIAL_INCONCLUSIVE && oc->pairs_needed
						? cJSON_CreateNumber(2.0 * (double)oc->pairs_needed) : cJSON_CreateNull());
	cJSON_AddNumberToObject(doc, "reapplied", (double)t->reapplied);
	np_json_put(doc, "transaction", np_json_str(oc->kept));
	return doc;
}

/* trial.json beside the runs' output: every column, whatever the verdict,
 * so that a trial that kept nothing still has its evidence somewhere. */
static void save_doc(const struct trial *t, const struct outcome *oc)
{
	struct np_table all;
	char path[PATH_MAX];
	if (np_table_init(&all, t->self, trial_run_columns, TRIAL_RUN_DEFAULTS, NULL, true, NULL) != NP_CONTINUE)
		return;
	for (size_t i = 0; i < t->nruns; i++)
		if (t->runs[i].done && np_table_add(&all, &t->runs[i]) != EXIT_OK)
			break;
	cJSON *doc = trial_doc(t, np_table_take_json(&all), oc);
	np_table_free(&all);
	char *text = doc ? cJSON_Print(doc) : NULL;
	cJSON_Delete(doc);
	int fd = -1;
	if (text && snprintf(path, sizeof(path), "%s/trial.json", t->dir) < (int)sizeof(path))
		fd = open(path, O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC, 0600);
	size_t len = text ? strlen(text) : 0;
	if (fd < 0 || write(fd, text, len) != (ssize_t)len || write(fd, "\n", 1) != 1)
		np_notef("trial: WARNING: the summary was not saved in %s/trial.json: %s\n", t->dir,
			 text ? strerror(errno) : strerror(ENOMEM));
	if (fd >= 0)
		close(fd);
	free(text);
}

static int print_json(const struct trial *t, struct np_table *tb, const struct outcome *oc)
{
	cJSON *doc = trial_doc(t, np_table_take_json(tb), oc);
	return doc ? np_print_json(doc, t->o->pretty) : np_error("%s", strerror(ENOMEM));
}

static int print_text(const struct trial *t, struct np_table *tb, const struct outcome *oc)
{
	char a[32], b[32], c[32];
	int rc = np_table_print(tb, stdout);
	if (rc != EXIT_OK)
		return rc;
	const char *what = t->has_re ? "metric" : "wall time (s)";
	const char *better = t->o->lower ? "lower is better" : "higher is better";
	printf("\nmedians (%s, %s): baseline %.6g, profile %.6g\n", what, better, oc->med[ARM_BASELINE],
	       oc->med[ARM_PROFILE]);
	printf("profile/baseline: %s (Hodges-Lehmann), %.1f%% interval %s to %s (exact Wilcoxon signed-rank, "
	       "%zu pairs)\n", pct(a, sizeof(a), oc->s.estimate), oc->s.level * 100, pct(b, sizeof(b), oc->s.lo),
	       pct(c, sizeof(c), oc->s.hi), oc->s.n);
	if (t->reapplied)
		printf("the profile drifted and was re-applied before %zu run%s\n", t->reapplied,
		       t->reapplied == 1 ? "" : "s");
	switch (oc->verdict) {
	case NP_TRIAL_KEEP:
		printf("verdict: keep: the profile stays applied (transaction %s); undo with 'numaplace revert %s'\n",
		       oc->kept, oc->kept);
		break;
	case NP_TRIAL_REVERT:
		puts("verdict: revert: the profile loses; the machine is back to its baseline");
		break;
	case NP_TRIAL_INCONCLUSIVE:
		if (oc->pairs_needed > NP_TRIAL_MAX_PAIRS)
			printf("verdict: inconclusive: the machine is back to its baseline; more than %d runs would be "
			       "needed: whatever the effect is, it is too small to tell from the noise\n",
			       2 * NP_TRIAL_MAX_PAIRS);
		else if (oc->pairs_needed)
			printf("verdict: inconclusive: the machine is back to its baseline; about %zu runs "
			       "(--runs %zu) would likely tell\n", 2 * oc->pairs_needed, oc->pairs_needed);
		else
			puts("verdict: inconclusive: the machine is back to its baseline; the estimate is too close to "
			     "no effect (or below --min-gain) for more runs to tell");
		break;
	}
	return EXIT_OK;
}

/* The statistics, the keep transaction, the report. */
int trial_conclude(struct trial *t)
{
	struct outcome oc = { .verdict = NP_TRIAL_INCONCLUSIVE };
	double *d = calloc((size_t)t->o->pairs, sizeof(*d));
	if (!d)
		return np_error("%s", strerror(ENOMEM));
	size_t n = log_ratios(t, d);
	int rc = n ? np_trial_stats(d, n, WANT_LEVEL, &oc.s) : -EINVAL;
	free(d);
	if (rc == -ENOMEM)
		return np_error("%s", strerror(ENOMEM));
	if (rc)
		return np_error("trial: no pair has a value in both states: nothing to compare (outputs in %s)", t->dir);
	oc.med[ARM_BASELINE] = trial_arm_median(t, ARM_BASELINE);
	oc.med[ARM_PROFILE] = trial_arm_median(t, ARM_PROFILE);
	oc.verdict = np_trial_decide(&oc.s, t->o->lower, t->o->min_gain);
	if (oc.verdict == NP_TRIAL_INCONCLUSIVE)
		oc.pairs_needed = np_trial_pairs_needed(&oc.s, t->o->lower, t->o->min_gain);
	if (oc.verdict == NP_TRIAL_KEEP) {
		char *ev = evidence(t, &oc), cause[96];
		struct np_txn_opts opts = t->topts;
		snprintf(cause, sizeof(cause), "trial %s: keep", t->id);
		opts.cause = cause;
		opts.trial = ev;
		if (!ev)
			return np_error("%s", strerror(ENOMEM));
		rc = np_pipeline_write(t->ctx, t->pipeline, &opts, t->profile_name, NP_PIPELINE_ALL);
		free(ev);
		if (rc)
			return np_error("trial: the verdict is keep, but applying %s failed: %s; the machine is at its "
					"baseline", t->profile_name, t->ctx->err);
		oc.kept = t->pipeline->txn.nchanges ? strdup(t->pipeline->txn.id) : NULL;
		if (!oc.kept)
			return np_error("trial: the verdict is keep, but the profile changed nothing when applied again");
	}
	save_doc(t, &oc);
	struct np_table tb;
	rc = np_table_init(&tb, t->self, trial_run_columns, TRIAL_RUN_DEFAULTS, &t->o->table, t->o->json, NULL);
	if (rc == NP_CONTINUE) {
		rc = EXIT_OK;
		for (size_t i = 0; rc == EXIT_OK && i < t->nruns; i++)
			if (t->runs[i].done)
				rc = np_table_add(&tb, &t->runs[i]);
		if (rc == EXIT_OK)
			rc = t->o->json ? print_json(t, &tb, &oc) : print_text(t, &tb, &oc);
		np_table_free(&tb);
	}
	free(oc.kept);
	if (rc == EXIT_OK && t->o->require_keep && oc.verdict != NP_TRIAL_KEEP)
		rc = EXIT_NOT_KEPT;
	return rc;
}

