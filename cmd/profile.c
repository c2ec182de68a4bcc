/* SPDX-License-Identifier: GPL-2.0-or-later */
/* numaplace profile: the profiles a host can apply, their canonical text,
 * and a check of profile files before they are committed or applied. */
#include <dirent.h>
#include <errno.h>
#include <limits.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "change/profile.h"
#include "cmd.h"
#include "render/output.h"

struct profile_opts {
	struct np_dirlist dirs;
	bool json, pretty;
	struct np_table_opts table;
};

const struct np_option profile_options[] = {
	NP_OPT_CALLBACK(0, "profile-dir", struct profile_opts, dirs, struct np_dirlist, "DIR",
			"look for profiles in DIR first (repeatable)", "dir", np_opt_dir),
	NP_OPT_JSON(struct profile_opts, json, "print JSON instead of text"),
	NP_OPT_PRETTY(struct profile_opts, pretty),
	NP_OPT_TABLE(struct profile_opts, table),
	NP_OPT_END,
};


/* The first sentence, on one line: the table has no room for more. */
static void first_sentence(char *buf, size_t size, const char *text)
{
	size_t n = 0;
	for (const char *c = text ? text : ""; *c && n + 1 < size; c++) {
		buf[n++] = *c == '\n' || *c == '\t' ? ' ' : *c;
		if (*c == '.' && (!c[1] || c[1] == ' ' || c[1] == '\n'))
			break;
	}
	buf[n] = '\0';
	if (n + 1 == size && size > 4)
		memcpy(buf + size - 4, "...", 4);
}

static int compare_names(const void *a, const void *b)
{
	return strcmp(*(char *const *)a, *(char *const *)b);
}

/* NAME.json files of one directory, sorted; a missing directory has none. */
static int list_dir(const char *dir, char ***names, size_t *n)
{
	*names = NULL;
	*n = 0;
	DIR *d = opendir(dir);
	if (!d)
		return errno == ENOENT || errno == ENOTDIR ? 0 : -errno;
	struct dirent *e;
	int rc = 0;
	while ((e = readdir(d))) {
		size_t len = strlen(e->d_name);
		if (e->d_name[0] == '.' || len <= 5 || strcmp(e->d_name + len - 5, ".json"))
			continue;
		char **bigger = realloc(*names, (*n + 1) * sizeof(**names));
		if (!bigger || !(bigger[*n] = strndup(e->d_name, len - 5))) {
			if (bigger)
				*names = bigger;
			rc = -ENOMEM;
			break;
		}
		*names = bigger;
		(*n)++;
	}
	closedir(d);
	if (*n)
		qsort(*names, *n, sizeof(**names), compare_names);
	return rc;
}

static void free_names(char **names, size_t n)
{
	for (size_t i = 0; i < n; i++)
		free(names[i]);
	free(names);
}

static bool seen_before(char **seen, size_t nseen, const char *name)
{
	for (size_t i = 0; i < nseen; i++)
		if (!strcmp(seen[i], name))
			return true;
	return false;
}

/* A row of profile list. */
struct listed {
	const char *name, *path;
	const struct np_profile *prof; /* NULL: the file is invalid */
};

#define LISTED(row) ((const struct listed *)(row))

static int get_name(const void *data, const void *row, struct np_value *v)
{
	(void)data;
	return np_val_str(v, LISTED(row)->name);
}

static int get_rules(const void *data, const void *row, struct np_value *v)
{
	(void)data;
	return LISTED(row)->prof ? np_val_int(v, (long long)LISTED(row)->prof->nrules) : np_val_null(v);
}

static int get_settings(const void *data, const void *row, struct np_value *v)
{
	(void)data;
	return LISTED(row)->prof ? np_val_int(v, (long long)LISTED(row)->prof->nsettings) : np_val_null(v);
}

static int get_description(const void *data, const void *row, struct np_value *v)
{
	(void)data;
	char desc[100];
	if (!LISTED(row)->prof)
		return np_val_str(v, "(invalid: run 'numaplace profile validate FILE')");
	first_sentence(desc, sizeof(desc), LISTED(row)->prof->description);
	return np_val_copy(v, desc);
}

static int get_file(const void *data, const void *row, struct np_value *v)
{
	(void)data;
	return np_val_str(v, LISTED(row)->path);
}

static int get_valid(const void *data, const void *row, struct np_value *v)
{
	(void)data;
	return np_val_bool(v, LISTED(row)->prof != NULL);
}

static const struct np_column list_columns[] = {
	NP_COLUMN("name", "NAME", 1, NP_FL_KEY, "the profile's name (for apply, show, enable)", get_name),
	NP_COLUMN("rules", "RULES", 4, SCOLS_FL_RIGHT, "its rules", get_rules),
	NP_COLUMN("settings", "SETTINGS", 4, SCOLS_FL_RIGHT, "its settings", get_settings),
	NP_COLUMN("description", "DESCRIPTION", 0.4, SCOLS_FL_WRAP | SCOLS_FL_TRUNC, "the first sentence of its description", get_description),
	NP_COLUMN("file", "FILE", 0.3, NP_FL_GIVE(1), "its file", get_file),
	NP_COLUMN("valid", "VALID", 3, 0, "whether the file is a valid profile", get_valid),
	NP_COLUMN_END,
};

static int profile_list(const struct profile_opts *o, const struct np_dirlist *dirs, struct np_ctx *ctx)
{
	const struct np_command *self = np_command_find("profile");
	struct np_table tab;
	char **seen = NULL;
	size_t nseen = 0;
	bool any = false;
	int rc = np_table_init(&tab, self, list_columns, "name,rules,settings,description,file", &o->table, o->json,
			       NULL);
	if (rc != NP_CONTINUE)
		return rc;
	rc = EXIT_OK;
	for (size_t i = 0; i < dirs->n; i++) {
		char **names;
		size_t n;
		int err = list_dir(dirs->v[i], &names, &n);
		if (err) {
			np_error("%s: %s", dirs->v[i], strerror(-err));
			rc = EXIT_FAIL;
		}
		for (size_t k = 0; k < n; k++) {
			/* An earlier directory's profile hides a later one of that name,
			 * as it does for 'show' and 'apply'. */
			if (seen_before(seen, nseen, names[k])) {
				free(names[k]);
				continue;
			}
			char **bigger = realloc(seen, (nseen + 1) * sizeof(*seen));
			if (!bigger) {
				free(names[k]);
				rc = np_error("%s", strerror(ENOMEM));
				continue;
			}
			seen = bigger;
			seen[nseen++] = names[k];

			char *path;
			struct np_profile p;
			if (asprintf(&path, "%s/%s.json", dirs->v[i], names[k]) < 0) {
				rc = np_error("%s", strerror(ENOMEM));
				continue;
			}
			any = true;
			bool valid = np_profile_load(ctx, path, &p) == 0;
			if (!valid) {
				/* Listed anyway, so a broken file is noticed, not hidden. */
				np_usage_error(self, "%s", ctx->err);
				rc = EXIT_USAGE;
			}
			struct listed row = { names[k], path, valid ? &p : NULL };
			int added = np_table_add(&tab, &row);
			if (added != EXIT_OK)
				rc = added;
			np_profile_free(&p);
			free(path);
		}
		free(names);
	}
	if (o->json) {
		cJSON *doc = np_json_doc();
		np_json_put(doc, "profiles", np_table_take_json(&tab));
		int printed = np_print_json(doc, o->pretty);
		rc = rc == EXIT_OK ? printed : rc;
	} else if (any) {
		int printed = np_table_print(&tab, stdout);
		rc = rc == EXIT_OK ? printed : rc;
	} else {
		printf("No profiles in");
		for (size_t i = 0; i < dirs->n; i++)
			printf("%s %s", i ? "," : "", dirs->v[i]);
		printf(".\n");
	}
	np_table_free(&tab);
	free_names(seen, nseen);
	return rc;
}

static int profile_show(const struct np_command *self, const struct profile_opts *o, const struct np_dirlist *dirs,
			const char *name, struct np_ctx *ctx)
{
	struct np_profile prof;
	int rc = np_profile_open(ctx, self, dirs, name, &prof);
	if (rc != EXIT_OK)
		return rc;
	char *text = np_profile_to_text(&prof);
	if (!text) {
		np_profile_free(&prof);
		return np_error("%s", strerror(ENOMEM));
	}
	if (o->json) {
		/* The canonical text is JSON: the document carries it as a value. */
		cJSON *doc = np_json_doc();
		cJSON_AddStringToObject(doc, "name", prof.name);
		cJSON_AddStringToObject(doc, "file", prof.file);
		np_json_put(doc, "profile", cJSON_Parse(text));
		rc = np_print_json(doc, o->pretty);
	} else {
		fputs(text, stdout);
	}
	np_profile_free(&prof);
	free(text);
	return rc;
}

static int profile_validate(const struct np_command *self, const struct profile_opts *o, int nfiles, char **files,
			    struct np_ctx *ctx)
{
	int rc = EXIT_OK;
	cJSON *doc = o->json ? np_json_doc() : NULL, *results = o->json ? cJSON_CreateArray() : NULL;
	/* Every file is checked, so one run reports every broken one. */
	for (int i = 0; i < nfiles; i++) {
		struct np_profile p;
		int err = np_profile_load(ctx, files[i], &p);
		if (err == -ENOMEM) {
			rc = np_error("%s", ctx->err);
		} else if (err) {
			np_usage_error(self, "%s", ctx->err);
			if (rc == EXIT_OK)
				rc = EXIT_USAGE;
		} else if (!o->json) {
			printf("%s: ok (%zu rule%s, %zu setting%s)\n", files[i], p.nrules, p.nrules == 1 ? "" : "s",
			       p.nsettings, p.nsettings == 1 ? "" : "s");
		}
		if (o->json) {
			cJSON *r = cJSON_CreateObject();
			cJSON_AddStringToObject(r, "file", files[i]);
			cJSON_AddBoolToObject(r, "valid", !err);
			np_json_put(r, "rules", np_json_int((long long)p.nrules, !err));
			np_json_put(r, "settings", np_json_int((long long)p.nsettings, !err));
			np_json_put(r, "error", np_json_str(err ? ctx->err : NULL));
			np_json_put(results, NULL, r);
		}
		np_profile_free(&p);
	}
	if (o->json) {
		np_json_put(doc, "profiles", results);
		int printed = np_print_json(doc, o->pretty);
		rc = rc == EXIT_OK ? printed : rc;
	}
	return rc;
}

int cmd_profile(int argc, char **argv, struct np_ctx *ctx)
{
	const struct np_command *self = np_command_find("profile");
	struct profile_opts o = { 0 };
	struct np_dirlist dirs = { 0 };
	int first, rc = np_parse_options(self, argc, argv, &o, &first);
	dirs = o.dirs;
	if (rc != NP_CONTINUE)
		goto out;
	rc = EXIT_OK;
	if (np_profile_dirs_finish(&dirs)) {
		rc = np_error("%s", strerror(ENOMEM));
		goto out;
	}

	char **operands = argv + first;
	int noperands = argc - first;
	const char *sub = noperands ? operands[0] : NULL;
	if (!sub) {
		rc = np_usage_error(self, "missing subcommand, expected list, show NAME or validate FILE...");
	} else if (!strcmp(sub, "list")) {
		rc = noperands > 1 ? np_usage_error(self, "list: unexpected argument '%s'", operands[1])
				   : profile_list(&o, &dirs, ctx);
	} else if (!strcmp(sub, "show")) {
		if (noperands != 2)
			rc = np_usage_error(self, "show: expected one profile NAME or FILE");
		else
			rc = profile_show(self, &o, &dirs, operands[1], ctx);
	} else if (!strcmp(sub, "validate")) {
		if (noperands < 2)
			rc = np_usage_error(self, "validate: expected at least one FILE");
		else
			rc = profile_validate(self, &o, noperands - 1, operands + 1, ctx);
	} else {
		rc = np_usage_error(self, "unknown subcommand '%s', expected list, show or validate", sub);
	}
out:
	np_dirs_free(&dirs);
	return rc;
}
