/* SPDX-License-Identifier: GPL-2.0-or-later */
/* Which file irqbalance reads its settings from on a given distribution,
 * and what those settings make it avoid. */
#include <ctype.h>
#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "read/conffile.h"
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
	bool optional[8];    /* "-" in front: no error when it is missing */
	size_t nfiles;
	const char *var;
	char env[4096];      /* its Environment= assignments, one "NAME=value" a line */
	size_t envlen;
};

/* Environment= "A=1" B=2: each assignment (double quotes around a word
 * taken off, as systemd splits it) appended to u->env as a line. */
static void unit_env(const char *v, const char *e, struct unit_says *u)
{
	while (v < e) {
		while (v < e && blank(*v))
			v++;
		char quote = v < e && (*v == '"' || *v == '\'') ? *v++ : 0;
		const char *w = v;
		while (v < e && (quote ? *v != quote : !blank(*v)))
			v++;
		size_t len = (size_t)(v - w);
		if (quote && v < e)
			v++;
		if (len && memchr(w, '=', len) && u->envlen + len + 2 < sizeof(u->env)) {
			memcpy(u->env + u->envlen, w, len);
			u->envlen += len;
			u->env[u->envlen++] = '\n';
			u->env[u->envlen] = '\0';
		}
	}
}

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
			bool optional = v < e && *v == '-';
			v += optional;
			const char *end = e;
			while (end > v && (blank(end[-1]) || end[-1] == '\r'))
				end--;
			if (end == v) {
				u->nfiles = 0;
			} else if (u->nfiles < 8 && (size_t)(end - v) < PATH_MAX) {
				memcpy(u->files[u->nfiles], v, (size_t)(end - v));
				u->optional[u->nfiles] = optional;
				u->files[u->nfiles++][end - v] = '\0';
			}
		} else if (len >= 12 && !strncmp(l, "Environment=", 12)) {
			unit_env(l + 12, e, u);
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

/* What one variable says, from the last place that assigns it. */
struct banned_var {
	const char *name;
	char *value;             /* quotes off; NULL when nothing assigns it */
	char from[PATH_MAX + 64];/* the file, or "Environment= of UNIT" */
};

static int take_value(struct banned_var *v, const char *text, const char *from)
{
	char *value;
	int rc = np_conf_value(text, v->name, false, &value);
	if (rc || !value)
		return rc;
	free(v->value);
	v->value = value;
	snprintf(v->from, sizeof(v->from), "%s", from);
	return 0;
}

/* Each variable as irqbalance's environment would hold it: the unit's
 * Environment= first, then its files in order, the last assignment winning
 * (systemd.exec); without a readable unit, the distribution's file. */
static int banned_vars(struct np_ctx *ctx, struct banned_var *vars, size_t nvars)
{
	struct unit_says u;
	char unit[PATH_MAX], from[PATH_MAX + 64], *text;
	int rc = 0;
	if (unit_find(ctx, &u, unit, sizeof(unit))) {
		snprintf(from, sizeof(from), "Environment= of %s", unit);
		for (size_t k = 0; k < nvars && rc == 0; k++)
			rc = take_value(&vars[k], u.env, from);
		for (size_t i = 0; i < u.nfiles && rc == 0; i++) {
			if ((rc = np_read_text(ctx, &text, "%s", u.files[i])) == 0) {
				for (size_t k = 0; k < nvars && rc == 0; k++)
					rc = take_value(&vars[k], text, u.files[i]);
				free(text);
			} else if (rc != -ENOMEM) {
				rc = 0; /* missing or unreadable: irqbalance's start says so, not us */
			}
		}
		return rc;
	}
	for (size_t i = 0; i < NLAYOUTS; i++) {
		if ((rc = np_read_text(ctx, &text, "%s", layouts[i].path)))
			continue;
		for (size_t k = 0; k < nvars && rc == 0; k++)
			rc = take_value(&vars[k], text, layouts[i].path);
		free(text);
		return rc;
	}
	return rc == -ENOMEM ? rc : 0;
}

static int note_add(char **note, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
static int note_add(char **note, const char *fmt, ...)
{
	char *more, *line;
	va_list ap;
	va_start(ap, fmt);
	int n = vasprintf(&line, fmt, ap);
	va_end(ap);
	if (n < 0)
		return -ENOMEM;
	n = *note ? asprintf(&more, "%s; %s", *note, line) : asprintf(&more, "%s", line);
	free(line);
	if (n < 0)
		return -ENOMEM;
	free(*note);
	*note = more;
	return 0;
}

int np_irqbalance_banned_read(struct np_ctx *ctx, struct np_irqb_banned *out)
{
	struct banned_var vars[] = { { .name = "IRQBALANCE_BANNED_CPULIST" }, { .name = "IRQBALANCE_BANNED_CPUS" } };
	struct np_cpuset one[2] = { NP_CPUSET_INIT, NP_CPUSET_INIT };
	bool set[2] = { false, false };
	memset(out, 0, sizeof(*out));
	int rc = banned_vars(ctx, vars, 2);
	for (int k = 0; k < 2 && rc == 0; k++) {
		const struct banned_var *v = &vars[k];
		if (!v->value || !*v->value)
			continue; /* irqbalance ignores an empty value, as it does an absent one */
		int bad = k == 0 ? np_cpuset_parse_list(&one[k], v->value) : np_cpuset_parse_mask(&one[k], v->value);
		char buf[64];
		if (bad == -ENOMEM)
			rc = bad;
		else if (bad)
			rc = note_add(&out->note, "%s='%s' in %s is not a CPU %s: not read", v->name,
				      np_excerpt(v->value, buf, sizeof(buf)), v->from, k == 0 ? "list" : "mask");
		else if ((rc = np_cpuset_or(&out->cpus, &one[k])) == 0)
			set[k] = true;
	}
	/* Both kept free: each says what someone meant to protect. */
	for (int k = 0; k < 2 && rc == 0; k++) {
		char *list = set[k] ? np_cpuset_format_list(&one[k]) : NULL;
		if (set[k] && (!list || note_add(&out->source, "%s=%s in %s", vars[k].name, list, vars[k].from)))
			rc = -ENOMEM;
		free(list);
	}
	if (rc == 0 && set[0] && set[1] && !np_cpuset_equal(&one[0], &one[1]))
		rc = note_add(&out->note, "irqbalance itself bans only IRQBALANCE_BANNED_CPUS's CPUs when both are set "
			      "(irqbalance 1.9, setup_banned_cpus()); numaplace keeps both sets free of IRQs");
	for (int k = 0; k < 2; k++) {
		free(vars[k].value);
		np_cpuset_free(&one[k]);
	}
	if (rc) {
		np_irqbalance_banned_free(out);
		return np_fail(ctx, rc, "reading irqbalance's banned CPUs: %s", strerror(-rc));
	}
	return 0;
}

static int list_add(char ***v, size_t *n, const char *fmt, ...) __attribute__((format(printf, 3, 4)));
static int list_add(char ***v, size_t *n, const char *fmt, ...)
{
	char **more = realloc(*v, (*n + 2) * sizeof(*more)), *path;
	if (!more)
		return -ENOMEM;
	*v = more;
	va_list ap;
	va_start(ap, fmt);
	int len = vasprintf(&path, fmt, ap);
	va_end(ap);
	if (len < 0)
		return -ENOMEM;
	more[(*n)++] = path;
	more[*n] = NULL;
	return 0;
}

int np_irqbalance_files(struct np_ctx *ctx, char ***paths, size_t *n)
{
	struct unit_says u;
	char unit[PATH_MAX], **names;
	size_t count;
	int rc = 0;
	*paths = NULL;
	*n = 0;
	for (size_t i = 0; unit_dirs[i] && rc == 0; i++) {
		rc = list_add(paths, n, "%s/" UNIT, unit_dirs[i]);
		if (rc || np_list_dir(ctx, &names, &count, "%s/" UNIT ".d", unit_dirs[i]))
			continue;
		for (size_t j = 0; j < count && rc == 0; j++) {
			size_t len = strlen(names[j]);
			if (len > 5 && !strcmp(names[j] + len - 5, ".conf"))
				rc = list_add(paths, n, "%s/" UNIT ".d/%s", unit_dirs[i], names[j]);
		}
		np_names_free(names, count);
	}
	if (rc == 0 && unit_find(ctx, &u, unit, sizeof(unit)))
		for (size_t i = 0; i < u.nfiles && rc == 0; i++)
			rc = list_add(paths, n, "%s", u.files[i]);
	for (size_t i = 0; i < NLAYOUTS && rc == 0; i++)
		rc = list_add(paths, n, "%s", layouts[i].path);
	if (rc) {
		np_names_free(*paths, *n);
		*paths = NULL;
		*n = 0;
		return np_fail(ctx, rc, "listing irqbalance's files: %s", strerror(-rc));
	}
	return 0;
}

void np_irqbalance_banned_free(struct np_irqb_banned *b)
{
	np_cpuset_free(&b->cpus);
	free(b->source);
	free(b->note);
	memset(b, 0, sizeof(*b));
}
