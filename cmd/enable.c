/* SPDX-License-Identifier: GPL-2.0-or-later */
#include <errno.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "read/conffile.h"
#include "change/resolve.h"
#include "read/sysfs.h"
#include "render/output.h"

struct enable_opts {
	struct np_dirlist dirs;
	bool json, pretty, hold;
};

const struct np_option enable_options[] = {
	NP_OPT_CALLBACK(0, "profile-dir", struct enable_opts, dirs, struct np_dirlist, "DIR",
			"look for profiles in DIR first (repeatable)", "dir", np_opt_dir),
	NP_OPT_JSON(struct enable_opts, json, "print JSON: {\"enabled\": true, \"changed\": true|false, \"profile\": NAME, ...}"),
	NP_OPT_PRETTY(struct enable_opts, pretty),
	NP_OPT_BOOL(0, "hold", struct enable_opts, hold,
		    "keep it applied too: numaplace-hold.service ('numaplace hold --boot') instead of numaplace.service"),
	NP_OPT_END,
};

/* The profile's bytes: boot.json is the file the user chose, comments of
 * layout and all, not numaplace's rendering of it. */
static int read_profile(const char *path, char **out)
{
	FILE *f = fopen(path, "re");
	char *buf = NULL;
	size_t size = 0;
	if (!f)
		return -errno;
	FILE *mem = open_memstream(&buf, &size);
	char chunk[8192];
	size_t n;
	int err = mem ? 0 : errno;
	while (!err && (n = fread(chunk, 1, sizeof(chunk), f)) > 0)
		if (fwrite(chunk, 1, n, mem) != n)
			err = errno ? errno : EIO;
	if (!err && ferror(f))
		err = EIO;
	fclose(f);
	if (mem && fclose(mem) && !err)
		err = errno ? errno : ENOMEM;
	if (!err && memchr(buf, '\0', size))
		err = EINVAL;
	if (err) {
		free(buf);
		return -err;
	}
	*out = buf;
	return 0;
}

/* The bytes read must be the profile that was resolved: the file could have
 * changed in between, and boot would then apply something never checked. */
static int same_profile(struct np_ctx *ctx, const struct np_profile *prof, const char *text)
{
	struct np_profile again;
	if (np_profile_parse(ctx, prof->file, text, &again))
		return 0;
	char *a = np_profile_to_text(prof), *b = np_profile_to_text(&again);
	int same = a && b ? !strcmp(a, b) : -ENOMEM;
	free(a);
	free(b);
	np_profile_free(&again);
	return same;
}

/* Whether the file at path holds exactly text. */
static bool same_file(const char *path, const char *text)
{
	char *old = NULL;
	bool same = read_profile(path, &old) == 0 && !strcmp(old, text);
	free(old);
	return same;
}

int cmd_enable(int argc, char **argv, struct np_ctx *ctx)
{
	const struct np_command *self = np_command_find("enable");
	struct enable_opts o = { 0 };
	int first, rc = np_parse_options(self, argc, argv, &o, &first);
	if (rc == NP_CONTINUE && argc - first != 1)
		rc = np_usage_error(self, "expected one PROFILE (a name or a file)");
	if (rc != NP_CONTINUE) {
		np_dirs_free(&o.dirs);
		return rc;
	}

	/* Checked exactly as 'apply --boot' will take it, on this machine (or --root). */
	struct np_machine m;
	struct np_profile prof;
	struct np_resolved res;
	rc = np_load_resolved(ctx, self, &o.dirs, argv[first], &m, &prof, &res);
	if (rc != EXIT_OK)
		return rc;

	char target[PATH_MAX], *text = NULL;
	struct stat sb;
	int err = read_profile(prof.file, &text);
	if (err) {
		rc = np_error("cannot read '%s': %s", prof.file, strerror(-err));
		goto out;
	}
	int same = same_profile(ctx, &prof, text);
	if (same < 0) {
		rc = np_error("%s", strerror(ENOMEM));
		goto out;
	}
	if (!same) {
		rc = np_error("'%s' changed while it was being checked; run 'numaplace enable' again", prof.file);
		goto out;
	}
	if (np_sysfs_path(ctx, target, "%s", NP_BOOT_PROFILE)) {
		rc = np_error("%s", ctx->err);
		goto out;
	}
	bool replacing = lstat(target, &sb) == 0;
	/* The same bytes are enabled already: rewriting them would change
	 * nothing but the file's time, and configuration management must see
	 * the second run as a no-op. */
	bool changed = !replacing || !same_file(target, text);
	if (changed && np_conf_write(ctx, NP_BOOT_PROFILE, text, 0644, true)) {
		rc = np_error("%s", ctx->err);
		goto out;
	}
	if (o.json) {
		cJSON *doc = np_json_doc();
		cJSON_AddBoolToObject(doc, "enabled", true);
		cJSON_AddBoolToObject(doc, "changed", changed);
		cJSON_AddBoolToObject(doc, "replaced", replacing);
		cJSON_AddStringToObject(doc, "profile", prof.name);
		cJSON_AddStringToObject(doc, "source", prof.file);
		cJSON_AddStringToObject(doc, "file", target);
		cJSON_AddNumberToObject(doc, "values", (double)res.n);
		rc = np_print_json(doc, o.pretty);
		goto out;
	}
	if (!changed)
		printf("boot profile %s already enabled: '%s' is a copy of '%s'\n", prof.name, target, prof.file);
	else
		printf("%s boot profile %s: copied '%s' to '%s' (%zu value%s on this machine now)\n",
		       replacing ? "replaced the" : "enabled", prof.name, prof.file, target, res.n,
		       res.n == 1 ? "" : "s");
	if (o.hold)
		puts("run 'systemctl disable numaplace.service; systemctl enable --now numaplace-hold.service' to apply it "
		     "at every boot and keep it applied ('numaplace hold --boot')");
	else
		puts("run 'systemctl enable numaplace.service' to apply it at every boot ('numaplace apply --boot')");
out:
	free(text);
	np_resolved_free(&res);
	np_profile_free(&prof);
	np_machine_free(&m);
	return rc;
}
