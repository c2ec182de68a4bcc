/* numaplace profile: the profiles a host can apply, their canonical text,
 * and a check of profile files before they are committed or applied. */
#include <dirent.h>
#include <errno.h>
#include <limits.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "../lib/profile.h"
#include "cmd.h"
#include "table.h"

const struct np_option profile_options[] = {
	{ "profile-dir", 0, "DIR", "look for profiles in DIR first (repeatable)", "dir" },
	{ NULL, 0, NULL, NULL, NULL },
};

static bool is_dir(const char *path)
{
	struct stat st;
	return stat(path, &st) == 0 && S_ISDIR(st.st_mode);
}

int np_dirs_add(struct np_dirlist *d, const char *dir)
{
	size_t len = strlen(dir);
	while (len > 1 && dir[len - 1] == '/')
		len--;
	for (size_t i = 0; i < d->n; i++)
		if (strlen(d->v[i]) == len && !strncmp(d->v[i], dir, len))
			return 0;
	char **bigger = realloc(d->v, (d->n + 2) * sizeof(*d->v));
	if (!bigger)
		return -ENOMEM;
	d->v = bigger;
	if (!(d->v[d->n] = strndup(dir, len)))
		return -ENOMEM;
	d->v[++d->n] = NULL;
	return 0;
}

void np_dirs_free(struct np_dirlist *d)
{
	for (size_t i = 0; i < d->n; i++)
		free(d->v[i]);
	free(d->v);
	d->v = NULL;
	d->n = 0;
}

/* Running from a checkout, the profiles sit in the source tree: next to the
 * binary (./numaplace), or two levels up for build/san/numaplace, where the
 * source tree is recognised by lib/profile.h so that an unrelated
 * "profiles" directory above an installed binary is never picked up. */
static int add_source_tree(struct np_dirlist *d)
{
	char exe[PATH_MAX], path[PATH_MAX + 32];
	ssize_t n = readlink("/proc/self/exe", exe, sizeof(exe) - 1);
	if (n <= 0)
		return 0;
	exe[n] = '\0';
	for (int up = 0; up <= 2; up++) {
		char *slash = strrchr(exe, '/');
		if (!slash || slash == exe)
			return 0;
		*slash = '\0';
		snprintf(path, sizeof(path), "%s/lib/profile.h", exe);
		if (up > 0 && access(path, F_OK) != 0)
			continue;
		snprintf(path, sizeof(path), "%s/profiles", exe);
		if (is_dir(path))
			return np_dirs_add(d, path);
	}
	return 0;
}

int np_profile_dirs_finish(struct np_dirlist *d)
{
	const char *data = getenv(NP_DATADIR_ENV);
	char shipped[PATH_MAX];
	snprintf(shipped, sizeof(shipped), "%s/profiles", data && *data ? data : NUMAPLACE_DATADIR);
	if (np_dirs_add(d, NP_PROFILE_SYSTEM_DIR) || np_dirs_add(d, shipped))
		return -ENOMEM;
	return add_source_tree(d);
}

int np_profile_open(struct np_ctx *ctx, const struct np_command *self, const struct np_dirlist *dirs,
		    const char *name, struct np_profile *out)
{
	char *path;
	int rc = np_profile_find(ctx, name, (const char *const *)dirs->v, &path);
	if (rc == 0) {
		rc = np_profile_load(ctx, path, out);
		free(path);
	}
	if (rc == -ENOMEM)
		return np_error("%s", ctx->err);
	return rc ? np_usage_error(self, "%s", ctx->err) : EXIT_OK;
}

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

static int profile_list(const struct np_dirlist *dirs, struct np_ctx *ctx)
{
	static const char *const head[] = { "NAME", ">RULES", ">SETTINGS", "DESCRIPTION", "FILE", NULL };
	struct np_table *tab = np_table_new(head);
	char **seen = NULL;
	size_t nseen = 0;
	int rc = EXIT_OK;
	bool any = false;

	if (!tab)
		return np_error("%s", strerror(ENOMEM));
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

			char *path, desc[100];
			struct np_profile p;
			if (asprintf(&path, "%s/%s.json", dirs->v[i], names[k]) < 0) {
				rc = np_error("%s", strerror(ENOMEM));
				continue;
			}
			any = true;
			if (np_profile_load(ctx, path, &p) == 0) {
				first_sentence(desc, sizeof(desc), p.description);
				np_table_cell(tab, "%s", names[k]);
				np_table_cell(tab, "%zu", p.nrules);
				np_table_cell(tab, "%zu", p.nsettings);
				np_table_cell(tab, "%s", *desc ? desc : "-");
			} else {
				/* Listed anyway, so a broken file is noticed, not hidden. */
				np_usage_error(np_command_find("profile"), "%s", ctx->err);
				rc = EXIT_USAGE;
				np_table_cell(tab, "%s", names[k]);
				np_table_cell(tab, "-");
				np_table_cell(tab, "-");
				np_table_cell(tab, "(invalid: run 'numaplace profile validate FILE')");
			}
			np_table_cell(tab, "%s", path);
			np_profile_free(&p);
			free(path);
		}
		free(names);
	}
	if (any) {
		np_table_print(tab, stdout);
	} else {
		printf("No profiles in");
		for (size_t i = 0; i < dirs->n; i++)
			printf("%s %s", i ? "," : "", dirs->v[i]);
		printf(".\n");
	}
	np_table_free(tab);
	free_names(seen, nseen);
	return rc;
}

static int profile_show(const struct np_command *self, const struct np_dirlist *dirs, const char *name,
			struct np_ctx *ctx)
{
	struct np_profile prof;
	int rc = np_profile_open(ctx, self, dirs, name, &prof);
	if (rc != EXIT_OK)
		return rc;
	char *text = np_profile_to_text(&prof);
	np_profile_free(&prof);
	if (!text)
		return np_error("%s", strerror(ENOMEM));
	fputs(text, stdout);
	free(text);
	return EXIT_OK;
}

static int profile_validate(const struct np_command *self, int nfiles, char **files, struct np_ctx *ctx)
{
	int rc = EXIT_OK;
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
		} else {
			printf("%s: ok (%zu rule%s, %zu setting%s)\n", files[i], p.nrules, p.nrules == 1 ? "" : "s",
			       p.nsettings, p.nsettings == 1 ? "" : "s");
		}
		np_profile_free(&p);
	}
	return rc;
}

int cmd_profile(int argc, char **argv, struct np_ctx *ctx)
{
	const struct np_command *self = np_command_find("profile");
	struct np_optparse st = { .index = 1 };
	struct np_dirlist dirs = { 0 };
	char **operands = calloc((size_t)argc, sizeof(*operands));
	int noperands = 0, rc = EXIT_OK;
	const char *arg;

	if (!operands)
		return np_error("%s", strerror(ENOMEM));
	/* Options may follow the subcommand ("profile list --profile-dir d"). */
	while (st.index < argc) {
		if (!strcmp(argv[st.index], "--")) {
			while (++st.index < argc)
				operands[noperands++] = argv[st.index];
			break;
		}
		int opt = np_opt_next(&st, self, argc, argv, &arg);
		if (opt == NP_OPT_END) {
			operands[noperands++] = argv[st.index++];
		} else if (opt < 0) {
			rc = opt == NP_OPT_HELP ? EXIT_OK : EXIT_USAGE;
			goto out;
		} else if (!*arg) {
			rc = np_usage_error(self, "option '--profile-dir' needs a directory, not an empty string");
			goto out;
		} else if (np_dirs_add(&dirs, arg)) {
			rc = np_error("%s", strerror(ENOMEM));
			goto out;
		}
	}
	if (np_profile_dirs_finish(&dirs)) {
		rc = np_error("%s", strerror(ENOMEM));
		goto out;
	}

	const char *sub = noperands ? operands[0] : NULL;
	if (!sub) {
		rc = np_usage_error(self, "missing subcommand, expected list, show NAME or validate FILE...");
	} else if (!strcmp(sub, "list")) {
		rc = noperands > 1 ? np_usage_error(self, "list: unexpected argument '%s'", operands[1])
				   : profile_list(&dirs, ctx);
	} else if (!strcmp(sub, "show")) {
		if (noperands != 2)
			rc = np_usage_error(self, "show: expected one profile NAME or FILE");
		else
			rc = profile_show(self, &dirs, operands[1], ctx);
	} else if (!strcmp(sub, "validate")) {
		if (noperands < 2)
			rc = np_usage_error(self, "validate: expected at least one FILE");
		else
			rc = profile_validate(self, noperands - 1, operands + 1, ctx);
	} else {
		rc = np_usage_error(self, "unknown subcommand '%s', expected list, show or validate", sub);
	}
out:
	np_dirs_free(&dirs);
	free(operands);
	return rc;
}
