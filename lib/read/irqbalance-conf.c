/* SPDX-License-Identifier: GPL-2.0-or-later */
/* Which file irqbalance reads its settings from on a given distribution,
 * and what those settings make it avoid. */
#include <ctype.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "read/irqbalance-conf.h"
#include "read/sysfs.h"

#define UNIT "irqbalance.service"

/* Where systemd looks for units, the first that has one winning. */
static const char *const unit_dirs[] = {
	"/etc/systemd/system", "/run/systemd/system", "/usr/local/lib/systemd/system",
	"/usr/lib/systemd/system", "/lib/systemd/system", NULL,
};

/* The layouts of the distributions' packages, when no unit says. */
static const struct layout {
	const char *path, *var, *who;
} layouts[] = {
	{ "/etc/default/irqbalance", "IRQBALANCE_ARGS", "the Debian layout" },
	{ "/etc/sysconfig/irqbalance", "IRQBALANCE_ARGS", "the RHEL family's layout" },
	{ "/etc/conf.d/irqbalance", "IRQBALANCE_OPTS", "the OpenRC layout" },
};
#define NLAYOUTS (sizeof(layouts) / sizeof(layouts[0]))

static bool blank(char c)
{
	return c == ' ' || c == '\t';
}

/* What a unit file's lines say: the EnvironmentFile= list (an empty
 * assignment clears it, as systemd reads it) and the variable ExecStart=
 * passes. */
struct unit_says {
	char files[8][PATH_MAX];
	size_t nfiles;
	const char *var;
};

static void unit_read(const char *text, struct unit_says *u)
{
	for (const char *p = text; *p;) {
		const char *e = strchrnul(p, '\n'), *l = p;
		p = *e ? e + 1 : e;
		while (l < e && blank(*l))
			l++;
		size_t len = (size_t)(e - l);
		if (len >= 16 && !strncmp(l, "EnvironmentFile=", 16)) {
			const char *v = l + 16;
			while (v < e && blank(*v))
				v++;
			if (v < e && *v == '-')
				v++;
			const char *end = e;
			while (end > v && (blank(end[-1]) || end[-1] == '\r'))
				end--;
			if (end == v) {
				u->nfiles = 0;
			} else if (u->nfiles < 8 && (size_t)(end - v) < PATH_MAX) {
				memcpy(u->files[u->nfiles], v, (size_t)(end - v));
				u->files[u->nfiles++][end - v] = '\0';
			}
		} else if (len >= 10 && !strncmp(l, "ExecStart=", 10)) {
			const char *opts = strstr(l, "IRQBALANCE_OPTS");
			u->var = opts && opts < e ? "IRQBALANCE_OPTS" : "IRQBALANCE_ARGS";
		}
	}
}

/* Reads the unit and its drop-ins into u; the unit's path into unit_path.
 * false when no unit file is readable. */
static bool unit_find(struct np_ctx *ctx, struct unit_says *u, char *unit_path, size_t size)
{
	char *text;
	bool found = false;
	memset(u, 0, sizeof(*u));
	for (size_t i = 0; unit_dirs[i] && !found; i++) {
		if (np_read_text(ctx, &text, "%s/" UNIT, unit_dirs[i]))
			continue;
		unit_read(text, u);
		free(text);
		snprintf(unit_path, size, "%s/" UNIT, unit_dirs[i]);
		found = true;
	}
	if (!found)
		return false;
	/* Drop-ins, by name, a name in an earlier directory hiding the same in a later one. */
	char **names[8] = { 0 };
	size_t counts[8] = { 0 }, ndirs = 0;
	for (size_t i = 0; unit_dirs[i]; i++, ndirs++)
		if (np_list_dir(ctx, &names[i], &counts[i], "%s/" UNIT ".d", unit_dirs[i]))
			counts[i] = 0;
	for (;;) {
		const char *next = NULL;
		size_t from = 0;
		for (size_t i = 0; i < ndirs; i++)
			for (size_t j = 0; j < counts[i]; j++) {
				const char *n = names[i][j];
				size_t len = strlen(n);
				if (n[0] == '\0' || len < 5 || strcmp(n + len - 5, ".conf"))
					continue;
				if (!next || strcmp(n, next) < 0) {
					next = n;
					from = i;
				}
			}
		if (!next)
			break;
		if (!np_read_text(ctx, &text, "%s/" UNIT ".d/%s", unit_dirs[from], next)) {
			unit_read(text, u);
			free(text);
		}
		/* Marks the name done in every directory. */
		char done[256];
		snprintf(done, sizeof(done), "%s", next);
		for (size_t i = 0; i < ndirs; i++)
			for (size_t j = 0; j < counts[i]; j++)
				if (!strcmp(names[i][j], done))
					names[i][j][0] = '\0';
	}
	for (size_t i = 0; i < ndirs; i++)
		np_names_free(names[i], counts[i]);
	return true;
}

int np_irqbalance_conf_find(struct np_ctx *ctx, struct np_irqb_conf *out)
{
	struct unit_says u;
	char unit[PATH_MAX];
	memset(out, 0, sizeof(*out));
	if (unit_find(ctx, &u, unit, sizeof(unit))) {
		/* The last file wins where they set the same variable; numaplace
		 * edits only one under /etc (the vendor's defaults.env under /usr
		 * is the package's, and an update replaces it). */
		for (size_t i = u.nfiles; i-- > 0;) {
			if (strncmp(u.files[i], "/etc/", 5))
				continue;
			snprintf(out->path, sizeof(out->path), "%s", u.files[i]);
			snprintf(out->from, sizeof(out->from), "EnvironmentFile= of %s", unit);
			out->var = u.var ? u.var : "IRQBALANCE_ARGS";
			out->exists = np_sysfs_exists(ctx, "%s", out->path);
			/* One that exists, else the last the unit names. */
			if (out->exists)
				return 0;
			for (size_t j = i; j-- > 0;)
				if (!strncmp(u.files[j], "/etc/", 5) && np_sysfs_exists(ctx, "%s", u.files[j])) {
					snprintf(out->path, sizeof(out->path), "%s", u.files[j]);
					out->exists = true;
					return 0;
				}
			return 0;
		}
	}
	for (size_t i = 0; i < NLAYOUTS; i++)
		if (np_sysfs_exists(ctx, "%s", layouts[i].path)) {
			snprintf(out->path, sizeof(out->path), "%s", layouts[i].path);
			snprintf(out->from, sizeof(out->from), "%s", layouts[i].who);
			out->var = layouts[i].var;
			out->exists = true;
			return 0;
		}
	snprintf(out->path, sizeof(out->path), "%s", layouts[0].path);
	snprintf(out->from, sizeof(out->from), "%s", layouts[0].who);
	out->var = layouts[0].var;
	return 0;
}

/* The value of the last active "name=" assignment of text (quotes taken
 * off, as the shell and systemd read a simple one) into *value (malloc'd);
 * 0 with *value NULL when text assigns none. */
static int conf_value(const char *text, const char *name, char **value)
{
	size_t nlen = strlen(name);
	const char *v = NULL, *v_end = NULL;
	*value = NULL;
	for (const char *p = text; p && *p;) {
		const char *e = strchrnul(p, '\n'), *l = p;
		p = *e ? e + 1 : e;
		while (l < e && blank(*l))
			l++;
		if (e - l > 7 && !strncmp(l, "export", 6) && blank(l[6]))
			for (l += 6; l < e && blank(*l);)
				l++;
		if ((size_t)(e - l) <= nlen || strncmp(l, name, nlen) || l[nlen] != '=')
			continue;
		v = l + nlen + 1;
		v_end = e;
		while (v_end > v && (blank(v_end[-1]) || v_end[-1] == '\r'))
			v_end--;
		if (v_end - v >= 2 && (*v == '"' || *v == '\'') && v_end[-1] == *v) {
			v++;
			v_end--;
		}
	}
	if (!v)
		return 0;
	*value = strndup(v, (size_t)(v_end - v));
	return *value ? 0 : -ENOMEM;
}

int np_irqbalance_avoided_cpus(struct np_ctx *ctx, const char *text, const struct np_cpuset *isolated,
			       const struct np_cpuset *nohz_full, struct np_cpuset *out, const char **why)
{
	char *list = NULL, *mask = NULL;
	int rc;
	np_cpuset_clear(out);
	if ((rc = conf_value(text, "IRQBALANCE_BANNED_CPULIST", &list)) ||
	    (rc = conf_value(text, "IRQBALANCE_BANNED_CPUS", &mask)))
		goto out;
	/* irqbalance 1.9: a CPU list, assigned even empty, replaces the default
	 * ban of isolated and nohz_full CPUs; so does a mask, but only a
	 * non-empty one (the old variable, deprecated for the list). */
	if (list) {
		*why = "IRQBALANCE_BANNED_CPULIST";
		if (np_cpuset_parse_list(out, list))
			rc = np_fail(ctx, -EINVAL, "IRQBALANCE_BANNED_CPULIST='%s' is not a CPU list", list);
	} else if (mask && *mask) {
		*why = "IRQBALANCE_BANNED_CPUS";
		if (np_cpuset_parse_mask(out, mask))
			rc = np_fail(ctx, -EINVAL, "IRQBALANCE_BANNED_CPUS='%s' is not a CPU mask", mask);
	} else {
		*why = "isolated and nohz_full";
		if ((isolated && np_cpuset_or(out, isolated)) || (nohz_full && np_cpuset_or(out, nohz_full)))
			rc = -ENOMEM;
	}
out:
	if (rc == -ENOMEM)
		np_fail(ctx, rc, "%s", strerror(ENOMEM));
	free(list);
	free(mask);
	return rc;
}
