/* SPDX-License-Identifier: GPL-2.0-or-later */
#include "read/tuned.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "read/conffile.h"
#include "read/sysfs.h"

#define ACTIVE "/etc/tuned/active_profile"

/* The profiles that isolate cores, each with the file its [variables]
 * includes (TuneD's profiles/NAME/tuned.conf). */
static const struct profile {
	const char *name, *variables;
} profiles[] = {
	{ "cpu-partitioning", "/etc/tuned/cpu-partitioning-variables.conf" },
	{ "realtime", "/etc/tuned/realtime-variables.conf" },
};
#define NPROFILES (sizeof(profiles) / sizeof(profiles[0]))

const char *np_tuned_file(size_t i)
{
	return i == 0 ? ACTIVE : i <= NPROFILES ? profiles[i - 1].variables : NULL;
}

/* The isolating profile active_profile names (it may list several, merged
 * by TuneD, separated by blanks), or NULL. */
static const struct profile *active(const char *text)
{
	for (const char *p = text; *p;) {
		p += strspn(p, " \t\r\n");
		size_t len = strcspn(p, " \t\r\n");
		for (size_t i = 0; i < NPROFILES && len; i++)
			if (strlen(profiles[i].name) == len && !strncmp(p, profiles[i].name, len))
				return &profiles[i];
		p += len;
	}
	return NULL;
}

int np_tuned_read(struct np_ctx *ctx, struct np_tuned *out)
{
	char *text = NULL, *value = NULL;
	memset(out, 0, sizeof(*out));
	int rc = np_read_text(ctx, &text, ACTIVE);
	const struct profile *prof = rc == 0 ? active(text) : NULL;
	free(text);
	text = NULL;
	if (rc == -ENOMEM || !prof)
		goto out;
	if ((rc = np_read_text(ctx, &text, "%s", prof->variables)) == 0)
		rc = np_conf_value(text, "isolated_cores", true, &value);
	if (rc == -ENOMEM)
		goto out;
	if (rc || !value || !*value) {
		rc = asprintf(&out->note, "TuneD's active profile is %s, but %s sets no isolated_cores: no CPU kept "
			      "free for it", prof->name, prof->variables) < 0 ? -ENOMEM : 0;
	} else if (strstr(value, "${")) {
		/* ${f:calc_isolated_cores:1} and the like: TuneD's own functions. */
		rc = asprintf(&out->note, "TuneD's active profile is %s, whose isolated_cores=%s in %s is evaluated "
			      "by TuneD only: its CPUs are not known here and not kept free (give them with "
			      "--exclude-cpus)", prof->name, value, prof->variables) < 0 ? -ENOMEM : 0;
	} else if ((rc = np_cpuset_parse_user_list(&out->isolated, value)) == -ENOMEM) {
		goto out;
	} else if (rc) {
		rc = asprintf(&out->note, "TuneD's active profile is %s, but isolated_cores='%s' in %s is not a CPU "
			      "list: not read", prof->name, value, prof->variables) < 0 ? -ENOMEM : 0;
	} else {
		char *list = np_cpuset_format_list(&out->isolated);
		rc = !list || asprintf(&out->source, "isolated_cores=%s in %s (active profile %s)", list,
				       prof->variables, prof->name) < 0 ? -ENOMEM : 0;
		free(list);
	}
out:
	free(text);
	free(value);
	if (rc == -ENOMEM) {
		np_tuned_free(out);
		return np_fail(ctx, rc, "reading TuneD's profile: %s", strerror(ENOMEM));
	}
	return 0;
}

void np_tuned_free(struct np_tuned *t)
{
	np_cpuset_free(&t->isolated);
	free(t->source);
	free(t->note);
	memset(t, 0, sizeof(*t));
}
